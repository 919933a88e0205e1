/*
 * profile/journal.h — the denial journal (profile/journal.c): one JSON file
 * per denial under $XDG_STATE_HOME/kinbox/denials/, written by kinbox,
 * read, answered and forgotten by kinpolicy.
 */
#ifndef KB_JOURNAL_H
#define KB_JOURNAL_H

#include <stdbool.h>

#include "../lib/util.h"
#include "policy.h"

/* The journal directory for `home` ($XDG_STATE_HOME/kinbox/denials, else
 * ~/.local/state/kinbox/denials); new string or NULL. */
char *kb_journal_dir(const char *home);

/* The files of a denial: the record kinbox writes, the decision and the
 * retry mark kinpolicy adds (each created exclusively, never rewritten). */
#define KB_JOURNAL_RECORD   ".json"
#define KB_JOURNAL_DECISION ".decision.json"
#define KB_JOURNAL_RETRIED  ".retried"

/* The journal directory as an O_RDONLY | O_DIRECTORY descriptor, reached
 * without following a symlink in any component kinbox creates (as
 * kb_journal_write does). `create` false: nothing is created, and a
 * journal that does not exist yet is -1 with errno ENOENT. -1 with `e`
 * (and errno) on failure. */
int kb_journal_open(const char *home, bool create, struct kb_err *e);

/* Removes the files of denial `id` from the journal `dfd`, relative to
 * it: the record first (a denial half removed is no longer listed), then
 * its decision and retry mark. A name that is not a regular file is left
 * alone and is an error; none is followed. 1 when the record was there, 0
 * when it was not (its other files are removed all the same), -1 with
 * `e`. */
int kb_journal_forget(int dfd, const char *id, struct kb_err *e);

/* Writes <dir>/<id>.json (0600, created exclusively, never through a
 * symlink in the directories kinbox owns; refused when the journal lies in
 * a directory the policy let the command write). `where` (optional)
 * receives the path. 0, or -1 with `e`. */
int kb_journal_write(const struct kb_policy *, const char *id, const char *json,
    char **where, struct kb_err *e);

#endif
