/*
 * gitguard/gitguard.h — which git metadata a run must not change (the scan,
 * before the sandbox is built) and what the command did to it anyway (the
 * audit, after it is gone). Reads struct kb_policy; profile/ knows nothing
 * of this stage.
 */
#ifndef KB_GITGUARD_H
#define KB_GITGUARD_H

#include "../profile/policy.h"

/* gitguard/scan.c */

/* Adds the guards for the git checkout at `root` (a no-op when it has no
 * .git), and for what the system and global git configs include there.
 * Returns -1 with `e` set (the one line to refuse the run with) when its
 * entries kept changing, or a config file git would read cannot be
 * guarded (a symlink or a FIFO in a root, includes nested too deep...:
 * gitguard/include.c). */
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

/*
 * gitguard/snap.c: the guards no mount holds (a backend without a mount
 * namespace: Landlock). The workspace stays writable during the run; what
 * the read-only guards held (KB_GUARD_RO, _RO_ABSENT_DIR, _RO_ABSENT_FILE,
 * KB_GUARD_PIN_DIR) is recorded before it and put back after it.
 *
 * The order after the run (every process of the run is dead by then):
 *   kb_gitguard_restore(p, snap, report);      the guards the snapshot holds
 *   kb_gitguard_audit_after(p, snap, report);  the WATCH_* kinds, new repos
 *   kb_gitsnap_free(snap);
 * Restore first: the audit then sees the git dirs and hooks put back, and
 * leaves alone what the restore judged (a restored config is a new inode,
 * which kb_gitguard_audit() alone would report a second time as replaced).
 */
struct kb_gitsnap; /* opaque */

/*
 * Before the run, after kb_gitguard_scan_roots(): for each RO, RO_ABSENT_*
 * and PIN_DIR guard, what must be true again after the run: a file's bytes,
 * mode and type; a directory's entries (name, type, mode, bytes; symlinks
 * as their target, never followed; 8 levels at most); an absent guard's
 * absence; a pinned git dir's dev/ino (each checked against the scan).
 * Refuses a file over 1 MiB, a directory of more than 4096 entries, more
 * than 16384 entries or 64 MiB in all. -1 with `e` set (the one line
 * naming the path and why) on any failure: then nothing may run.
 */
int kb_gitguard_snapshot(
    const struct kb_policy *, struct kb_gitsnap **out, struct kb_err *e);

/*
 * After the run: compares each guard with the snapshot and puts it back,
 * descriptor-based from the policy's root descriptors (see snap.c). Each
 * difference is one report(line, true) naming the path and what was done:
 * restored (the command's version moved aside), recreated, removed (moved
 * aside to X), mode restored, moved back; a change it cannot undo safely
 * (a git dir moved out of its directory or replaced, a directory on a
 * guard's path replaced by a symlink) is reported with the advice and left
 * alone. Returns the number of findings. Frees nothing.
 */
int kb_gitguard_restore(const struct kb_policy *, struct kb_gitsnap *,
    void (*report)(const char *line, bool security));

void kb_gitsnap_free(struct kb_gitsnap *);

/* kb_gitguard_audit() for a run whose read-only guards a snapshot held:
 * what kb_gitguard_restore() judged is left alone, a directory that took a
 * pinned git dir's name (and that restore could not undo) is disarmed as a
 * repository the command made; the rest is kb_gitguard_audit()'s. With
 * snap NULL it is kb_gitguard_audit(). */
int kb_gitguard_audit_after(const struct kb_policy *,
    const struct kb_gitsnap *snap,
    void (*report)(const char *line, bool security));

/* For the audit: what the restore made of guard i (its index in p->guard):
 * not judged (the audit's), judged (also a WATCH_* guard below a git dir
 * the restore reported gone or replaced by a symlink), or a pinned git
 * dir whose name another directory (*dev, *ino) took. */
enum kb_gitsnap_verdict {
	KB_SNAP_UNJUDGED,
	KB_SNAP_JUDGED,
	KB_SNAP_NEWREPO,
};
enum kb_gitsnap_verdict kb_gitsnap_verdict(const struct kb_gitsnap *,
    const struct kb_policy *, size_t i, dev_t *dev, ino_t *ino);

/*
 * gitguard/snapstore.c: the snapshot kept on disk while the run lasts, in
 * kinbox's state store (kinbox/gitsnap/, 0700; each file 0600), so that a
 * run that dies before its restore still has its guards put back.
 */
struct kb_gitsnap_file {
	int dirfd, fd; /* the store, the file (locked); -1 when none */
	char name[128];
};

/*
 * Writes `s` for p->workspace (complete before its name exists) and keeps
 * it open and locked in `f`: nothing when the snapshot guards nothing
 * (f->fd -1). 0, or -1 with `e` (the path and why).
 */
int kb_gitsnap_persist(const struct kb_policy *p, const struct kb_gitsnap *s,
    struct kb_gitsnap_file *f, struct kb_err *e);

/* After the run's own restore: removes the file and closes `f`. Safe on
 * an `f` that holds none. */
void kb_gitsnap_forget(struct kb_gitsnap_file *f);

/*
 * Before a run in p->workspace (p->workspace and p->home set): restores
 * every snapshot a run in it left that no live run holds, and removes it.
 * Returns the findings, with one line for them all in *line (a new string
 * to escape and print; NULL when none). Nothing found, no store: 0.
 */
int kb_gitguard_recover(const struct kb_policy *p, char **line);

/* kinpolicy gc: removes the snapshots no live run holds whose workspace
 * is gone (or another directory took its path) and those a run died
 * writing; their paths are pushed to `removed`. 0, or -1 with errno. */
int kb_gitsnap_gc(const char *home, struct kb_strv *removed);

/*
 * gitguard/watch.c: the directories the run changed, as fanotify reports
 * them (a filesystem mark on each root's filesystem: CAP_SYS_ADMIN), so
 * that the audit looks for new repositories there instead of walking
 * every directory of the roots. The order:
 *   w = kb_gitwatch_start(p, &err);   before the command can run
 *   ... the run ...
 *   kb_gitwatch_stop(w);              every process of the run dead
 *   kb_gitguard_audit_watched(p, snap, w, report);
 *   kb_gitwatch_free(w);
 */
struct kb_gitwatch; /* opaque */

/* Distinct directories kept at most (about 16 MiB of handles and table);
 * past it the audit walks. */
#define KB_GITWATCH_MAX_DIRS (1u << 18)

/* what happened in a directory, besides a change */
#define KB_GITWATCH_DOTGIT   1u /* an entry named .git changed */
#define KB_GITWATCH_APPEARED 2u /* ... was created or renamed in */

/* 0 when a filesystem mark on dir's filesystem works here (kinbox
 * --status), else the errno fanotify gave (EPERM: not privileged). */
int kb_gitwatch_probe(const char *dir);

/* Starts watching the filesystems of p's roots (borrowed: p must outlive
 * the watch). NULL with *err (fanotify's errno) when no root's can be
 * watched; *err is also set when some root's could not (that root is
 * walked). */
struct kb_gitwatch *kb_gitwatch_start(const struct kb_policy *p, int *err);

/* During the run, the caller's loop polls kb_gitwatch_fd() (POLLIN; -1
 * when there is nothing to poll) and calls kb_gitwatch_read() when it is
 * readable: the events are kept as the run goes, so the kernel's queue
 * stays short. Both safe on NULL. */
int kb_gitwatch_fd(const struct kb_gitwatch *);
void kb_gitwatch_read(struct kb_gitwatch *);

/* After the run: reads what is queued and stops. Safe on NULL. */
void kb_gitwatch_stop(struct kb_gitwatch *);

/* A stopped watch that lost nothing and marked `root`'s filesystem. */
bool kb_gitwatch_covers(const struct kb_gitwatch *, const char *root);

/* Calls fn with an O_PATH descriptor of each directory the run changed
 * that still exists (borrowed: closed after fn returns). */
void kb_gitwatch_each(const struct kb_gitwatch *,
    void (*fn)(int dirfd, unsigned flags, void *ctx), void *ctx);

size_t kb_gitwatch_ndirs(const struct kb_gitwatch *);
void kb_gitwatch_free(struct kb_gitwatch *);

/* kb_gitguard_audit_after() with the new repositories found from `w`
 * in each root it covers (kb_gitwatch_covers), by the walk elsewhere. */
int kb_gitguard_audit_watched(const struct kb_policy *,
    const struct kb_gitsnap *snap, const struct kb_gitwatch *w,
    void (*report)(const char *line, bool security));

/* gitguard/gitindex.c */

/* Appends the paths of the gitlinks (submodules, embedded repositories)
 * in the git index file `index` to `out`. 0, or -1 when it cannot be read
 * or is not an index of version 2 to 4. */
int kb_git_index_gitlinks(const char *index, struct kb_strv *out);
/* The same from an open descriptor (not closed). */
int kb_git_index_gitlinks_fd(int fd, struct kb_strv *out);

#endif
