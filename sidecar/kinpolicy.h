/*
 * sidecar/kinpolicy.h — the verb handlers kinpolicy.c's table runs, one file
 * per concern: sidecar/kinpolicy-grants.c (sessions, decisions, retry, the
 * grant stores), sidecar/kinpolicy-gate.c (decide, classify, check-write,
 * allow), sidecar/kinpolicy-gc.c (forget, gc: the journal's upkeep),
 * sidecar/kinpolicy-hook.c (hook) and sidecar/kinpolicy-install.c (hook
 * install, hook uninstall). What they share is in sidecar/kinpolicy-journal.h.
 * CLI layer: these print and may die().
 */
#ifndef KB_KINPOLICY_H
#define KB_KINPOLICY_H

#include "../classify/readonly.h"
#include "decide.h"

/* sidecar/kinpolicy-gate.c: the decide chain with decide's own callbacks (the
 * read-only classifier for `shell`, the "always" answers of `session`,
 * which may be NULL), for kinpolicy hook */
void kp_gate_decide(struct kb_decide_in *in, const char *session,
    enum kb_ro_shell shell, struct kb_decide_out *out);

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

int cmd_hook(int argc, char **argv);
/* sidecar/kinpolicy-install.c: hook install, hook uninstall, and "hook", which
 * runs one of them for "hook install|uninstall ..." and cmd_hook for the
 * rest */
int cmd_hook_install(int argc, char **argv);
int cmd_hook_uninstall(int argc, char **argv);
int cmd_hook_verbs(int argc, char **argv);

int cmd_forget(int argc, char **argv);
int cmd_gc(int argc, char **argv);

/* die()s with "usage: kinpolicy <verb's usage>", the one line of the verb
 * table in kinpolicy.c (exit 125) */
void kp_usage(const char *verb) __attribute__((noreturn));

/*
 * --exit-status of decide, check-write and classify, for shell hooks:
 * ALLOW (classify: provably read-only) 0, ASK (classify: not provably
 * read-only) 10, DENY 11. Bad input stays 125 (KB_EXIT_ERROR), so that
 * every status but 0 stops a hook that runs the tool call only on 0.
 */
#define KP_EXIT_ALLOW 0
#define KP_EXIT_ASK   10
#define KP_EXIT_DENY  11

#endif
