/*
 * kinpolicy.h — the verb handlers kinpolicy.c's table runs, one file per
 * concern: kinpolicy-grants.c (sessions, decisions, retry, the grant
 * stores) and kinpolicy-gate.c (decide, classify, check-write, allow).
 * What they share is in kinpolicy-journal.h. CLI layer: these print and
 * may die().
 */
#ifndef KB_KINPOLICY_H
#define KB_KINPOLICY_H

int cmd_session(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_grant(int argc, char **argv);
int cmd_decline(int argc, char **argv);
int cmd_retry(int argc, char **argv);
int cmd_pending(int argc, char **argv);
int cmd_grants(int argc, char **argv);
int cmd_revoke(int argc, char **argv);

int cmd_classify(int argc, char **argv);
int cmd_decide(int argc, char **argv);
int cmd_check_write(int argc, char **argv);
int cmd_allow(int argc, char **argv);

#endif
