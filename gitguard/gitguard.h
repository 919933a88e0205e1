/*
 * gitguard/gitguard.h — which git metadata a run must not change (the scan,
 * before the sandbox is built) and what the command did to it anyway (the
 * audit, after it is gone). Reads struct kb_policy; policy/ knows nothing
 * of this stage.
 */
#ifndef KB_GITGUARD_H
#define KB_GITGUARD_H

#include "../policy/policy.h"

/* gitguard/scan.c */

/* Adds the guards for the git checkout at `root` (a no-op when it has no
 * .git). Returns -1 with `e` set when the table is full. */
int kb_gitguard_scan(struct kb_policy *, const char *root, struct kb_err *e);

/* The scan of every writable root of a finalized policy: the workspace,
 * the writable $TMPDIR and the --write roots. */
int kb_gitguard_scan_roots(struct kb_policy *, struct kb_err *e);

/*
 * After the sandbox is gone: undoes what the command planted or what the
 * backend left (mount-point placeholders) and reports each finding through
 * `report` (one line each). Returns the number of security findings (a
 * guard that was tampered with), 0 when all is as before.
 */
int kb_gitguard_audit(
    const struct kb_policy *, void (*report)(const char *line, bool security));

/* gitguard/gitindex.c */

/* Appends the paths of the gitlinks (submodules, embedded repositories)
 * in the git index file `index` to `out`. 0, or -1 when it cannot be read
 * or is not an index of version 2 to 4. */
int kb_git_index_gitlinks(const char *index, struct kb_strv *out);
/* The same from an open descriptor (not closed). */
int kb_git_index_gitlinks_fd(int fd, struct kb_strv *out);

#endif
