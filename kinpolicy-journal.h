/*
 * kinpolicy-journal.h — what the kinpolicy verbs share (kinpolicy-journal.c):
 * the journal helpers, the store check of a recorded run, the output
 * helpers. Used by kinpolicy.c, kinpolicy-grants.c and kinpolicy-gate.c;
 * uses none of them. CLI layer: these print and may die().
 */
#ifndef KB_KINPOLICY_JOURNAL_H
#define KB_KINPOLICY_JOURNAL_H

#include <stdbool.h>

#include <jansson.h>

/* the caller's canonical home; dies when there is none */
char *home_dir(void);
/* dies unless `id` is a denial id (sbx_ and 16 hex digits) */
void check_id(const char *id);
/* <journal>/<id><suffix>; new string */
char *journal_file(const char *home, const char *id, const char *suffix);
/* the journaled record (dies when absent) / the decision (NULL when none) */
json_t *load_record(const char *home, const char *id);
json_t *load_decision(const char *home, const char *id);
bool retried(const char *home, const char *id);
/* a string member, "" when absent */
const char *jstr(json_t *o, const char *k);
/* "LABEL VALUE\n" on stdout with VALUE escaped (kb_buf_escape): every
 * field of a record came from the command or its stderr */
void print_esc(const char *label, const char *value);
/* argv, one shell word each (kb_buf_shquote_visible), and a newline */
void print_argv(json_t *argv);
const char *state_of(const char *home, const char *id, json_t *dec);
/* dies (125) when one of kinbox's stores lies inside the workspace or a
 * write root of the run that `rec` records */
void check_stores_for(json_t *rec, const char *home);
void print_suggest(json_t *rec);
void dump_json(json_t *o);
/* removes a --json argument, true when there was one */
bool want_json(int *argc, char **argv);

#endif
