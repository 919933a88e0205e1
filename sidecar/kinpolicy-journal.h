/*
 * sidecar/kinpolicy-journal.h — what the kinpolicy verbs share
 * (sidecar/kinpolicy-journal.c): the journal helpers, the store check of a
 * recorded run, the output helpers, the kinbox to run. Used by kinpolicy.c
 * and the verbs' sidecar/kinpolicy-*.c; uses none of them. Its names carry
 * kinpolicy's kp_ prefix.
 * CLI layer: these print and may die().
 */
#ifndef KB_KINPOLICY_JOURNAL_H
#define KB_KINPOLICY_JOURNAL_H

#include <stdbool.h>

#include <jansson.h>

#include "../classify/report.h"

/* the caller's canonical home; dies when there is none */
char *kp_home_dir(void);
/* dies unless `id` is a denial id (sbx_ and 16 hex digits) */
void kp_check_id(const char *id);

/*
 * The journal's files, always through its directory descriptor
 * (kb_journal_open: no symlink followed on the way, none below it, a size
 * bound on what is read), named <id> + KB_JOURNAL_RECORD, _DECISION or
 * _RETRIED (profile/journal.h).
 */
#define KP_RECORD_MAX (4u << 20) /* a record holds argv: up to ARG_MAX */
/* the journal, nothing created; -1 when there is none yet (ENOENT); dies
 * on any other failure. The caller closes it. */
int kp_journal_dir_fd(const char *home);
/* the journaled record (dies when absent) / the decision (NULL when none)
 * / whether it was retried */
json_t *kp_load_record(const char *home, const char *id);
json_t *kp_load_decision(const char *home, const char *id);
bool kp_retried(const char *home, const char *id);
/* creates <id><suffix> holding `text`, exclusively (0600, not through a
 * symlink): 0, or -1 with errno EEXIST when it exists; dies on any other
 * failure */
int kp_journal_create(
    const char *home, const char *id, const char *suffix, const char *text);
/* removes <id><suffix> (a name kinpolicy just created) */
void kp_journal_remove(const char *home, const char *id, const char *suffix);
/* true when `name` is <id><suffix> for a denial id; the id in `id` */
bool kp_id_of(const char *name, const char *suffix, char id[KB_ID_LEN + 1]);
/* <id><suffix> below dfd as JSON; NULL when it is absent, not a regular
 * file, too large or not JSON */
json_t *kp_load_at(int dfd, const char *id, const char *suffix);
/* is there an entry <id><suffix> (of any type, not followed)? */
bool kp_exists_at(int dfd, const char *id, const char *suffix);
/* a string member, "" when absent */
const char *kp_jstr(json_t *o, const char *k);
/* "LABEL VALUE\n" on stdout with VALUE escaped (kb_buf_escape): every
 * field of a record came from the command or its stderr */
void kp_print_esc(const char *label, const char *value);
/* argv, one shell word each (kb_buf_shquote_visible), and a newline */
void kp_print_argv(json_t *argv);
const char *kp_state_of(const char *home, const char *id, json_t *dec);
/* dies (125) when one of kinbox's stores lies inside the workspace or a
 * write root of the run that `rec` records */
void kp_check_stores_for(json_t *rec, const char *home);
void kp_print_suggest(json_t *rec);
/* The version of every JSON object kinpolicy prints (kinpolicy(1), JSON
 * OUTPUT): a key renamed or retyped makes it 2; a key added does not. */
#define KP_JSON_SCHEMA 1
/* A JSON string of `s`: its bytes when they are UTF-8, else with every
 * byte above 0x7f as '?' (kinpolicy(1), JSON OUTPUT); never NULL. */
json_t *kp_json_text(const char *s);
/* `o` on one line of stdout, as {"schema":1, then o's keys in order};
 * borrows o */
void kp_dump_json(json_t *o);
/* removes the argument `flag` ("--json", "--exit-status") from the verb's
 * own arguments (not an option's value, nothing after "--"); true when
 * there was one */
bool kp_want_flag(int *argc, char **argv, const char *flag);
/* the kinbox to run: the one beside kinpolicy, else "kinbox" (PATH) */
char *kp_find_kinbox(void);

#endif
