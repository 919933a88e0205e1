/*
 * denial/journal.h — the denial journal (denial/journal.c): one JSON file
 * per denial under $XDG_STATE_HOME/kinbox/denials/, written by kinbox,
 * read and answered by kinpolicy.
 */
#ifndef KB_JOURNAL_H
#define KB_JOURNAL_H

#include "../lib/util.h"
#include "../policy/policy.h"

/* The journal directory for `home` ($XDG_STATE_HOME/kinbox/denials, else
 * ~/.local/state/kinbox/denials); new string or NULL. */
char *kb_journal_dir(const char *home);

/* Writes <dir>/<id>.json (0600, created exclusively, never through a
 * symlink in the directories kinbox owns; refused when the journal lies in
 * a directory the policy let the command write). `where` (optional)
 * receives the path. 0, or -1 with `e`. */
int kb_journal_write(const struct kb_policy *, const char *id, const char *json,
    char **where, struct kb_err *e);

#endif
