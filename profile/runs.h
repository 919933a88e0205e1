/*
 * profile/runs.h — the registry of running sandboxes that use a grant, so
 * that kinpolicy revoke reaches a run that started before it (a live
 * process must not keep authority the stores no longer hold).
 *
 *   $XDG_RUNTIME_DIR/kinbox/runs/<pid>-<start>.run   (XDG_RUNTIME_DIR set)
 *   $XDG_STATE_HOME/kinbox/runs/ (~/.local/state/...) (it is not)
 *
 * kinbox registers a run that applied a grant, holds the file open while
 * it runs, and removes it at the end; kinpolicy lists the entries, proves
 * each one is that kinbox run (a pidfd, the start time read after it, the
 * file held open by the process) and signals KB_REVOKE_SIGNAL. The run
 * then reads its grants' stores again (kb_runs_revoked) and stops itself
 * when one of them is gone. Both directories lie in kinbox's stores: no
 * sandbox can write them (kb_config_check_stores) or see them (masks.c).
 */
#ifndef KB_RUNS_H
#define KB_RUNS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "policy.h"

/* "read your grants again": a real-time signal kinbox reads only while
 * it supervises a run, and ignores otherwise */
#define KB_REVOKE_SIGNAL (SIGRTMIN + 1)

/* A run's own registration (kinbox). */
struct kb_registration {
	int dirfd;     /* the registry directory, -1 when not opened */
	int fd;        /* the entry, held open while the run lasts */
	pid_t pid;     /* the registering process: only it removes the entry */
	char name[64]; /* <pid>-<start>.run */
	char *dir;     /* the directory's path, for messages */
};

/*
 * Opens (creating what is missing, 0700) the registry a run uses:
 * $XDG_RUNTIME_DIR/kinbox/runs when XDG_RUNTIME_DIR is set, which must
 * then be a directory of the caller's, mode 0700 (else -1: a run that
 * uses a grant and cannot register would escape revocation, so it is
 * refused, with the fix in `e`); else the state store's kinbox/runs below
 * $XDG_STATE_HOME or `home`. No component kinbox creates is followed
 * through a symlink; kinbox/ and runs/ must be the caller's. Call it
 * before the masks are computed, so that the directories exist and are
 * masked. 0, or -1 with `e`.
 */
int kb_runs_open(struct kb_registration *, const char *home, struct kb_err *e);

/*
 * Writes the entry for this process (pid, start time, the ids of
 * p->grants, the workspace, argv[0]) atomically (O_TMPFILE, linked under
 * its name; a named temporary file and renameat2 where the filesystem has
 * no O_TMPFILE) and keeps it open. 0, or -1 with `e`.
 */
int kb_runs_register(
    struct kb_registration *, const struct kb_policy *p, struct kb_err *e);

/* Removes the entry (only from the registering process, only when the
 * name still holds the file it wrote) and closes both descriptors. Safe to
 * call twice and on a registration never opened. */
void kb_runs_unregister(struct kb_registration *);

/*
 * Reads the stores of p->grants again: how many of them are gone (a
 * store that cannot be read holds none), with one line naming the first
 * (lifetime, what it granted, its denial, its store) in `why`.
 */
size_t kb_runs_revoked(const struct kb_policy *p, char *why, size_t len);

/*
 * The state store's directory kinbox/`leaf` below $XDG_STATE_HOME, else
 * below `home`/.local/state (created when `create`: 0700 from kinbox/ on,
 * the caller's, never through a symlink). Its descriptor (its path in
 * *path, a new string), -2 when it is not there (or there is no base),
 * -1 with `e`.
 */
int kb_state_subdir(const char *home, const char *leaf, bool create,
    char **path, struct kb_err *e);

/* A live, verified run (kinpolicy). */
struct kb_run_entry {
	pid_t pid;
	unsigned long long start; /* clock ticks after boot (stat field 22) */
	time_t started;           /* the same as wall-clock time */
	char *workspace;          /* as registered: escaped, one line */
	char *argv0;              /* ditto */
	struct kb_strv grants;    /* the grant ids it applied */
	char *file;               /* the entry's path */
	int pidfd;                /* pins the process */
};

/*
 * The runs of both registries (the same directory once). An entry whose
 * process is gone, or whose pid now names a process started at another
 * time, is stale and removed. An entry whose process is alive but does
 * not hold the entry open is not a kinbox run's (a hand-made or forged
 * entry, or a pid that happens to match): skipped, with a line in
 * `notes`, never signalled. An entry that cannot be checked (no
 * pidfd_open, an unreadable /proc/PID/fd) is skipped with a line in
 * `notes` and counted in *unverified: it may be a live run. Returns the
 * count; *out is a new array (free with kb_runs_free).
 */
size_t kb_runs_list(const char *home, struct kb_run_entry **out,
    struct kb_strv *notes, size_t *unverified);
void kb_runs_free(struct kb_run_entry *, size_t);

/* Does the run use the grant `id`? */
bool kb_run_uses(const struct kb_run_entry *, const char *id);

/* Sends `sig` to the run through its pidfd: 0, or -1 with errno. */
int kb_run_signal(const struct kb_run_entry *, int sig);

/* The start time (field 22 of /proc/PID/stat) of `pid`: 0, or -1 with
 * errno (ESRCH when there is no such process). */
int kb_proc_start(pid_t pid, unsigned long long *start);

#endif
