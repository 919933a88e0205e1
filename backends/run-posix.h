/*
 * backends/run-posix.h — running a prepared argv under macOS's
 * sandbox-exec with POSIX interfaces only: fork, exec, signals relayed,
 * stderr relayed (its tail kept for the denial classifier), the wait status
 * turned into kinbox's exit status, and a profile sandbox-exec rejected
 * told from the command's own failure.
 *
 * This file and run-posix.c are part of the portable set that
 * `make portable-check` compiles with _GNU_SOURCE off and the Linux-only
 * interfaces poisoned. They have run on Linux only (tests/unit/test-posix
 * drives them with a stand-in for sandbox-exec); no macOS machine was
 * available to run them under the real one.
 */
#ifndef KB_RUN_POSIX_H
#define KB_RUN_POSIX_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "../lib/util.h"

#define KB_POSIX_TAIL KB_TAIL /* as the Linux run keeps */

struct kb_posix_run {
	int wstatus;    /* sandbox-exec's wait status */
	bool started;   /* false: sandbox-exec refused before the command (a
			   profile it rejected, an unusable sandbox); nothing
			   ran. Told from its words: its whole stderr one
			   line of a refusal's shape, then a non-zero exit
			   (run-posix.c says which shapes, and the limit) */
	int exec_errno; /* the command could not be exec'd inside: read
			   back from sandbox-exec's "execvp() of 'X'
			   failed: <strerror>"; exit_code 127 or 126 */
	int exit_code;  /* kinbox's exit status: the child's own, 128+N for
			   a signal, 125 when !started */
	char setup_err[2048];     /* sandbox-exec's own words when !started */
	char tail[KB_POSIX_TAIL]; /* the last bytes of the command's stderr */
	size_t tail_len;
	unsigned long long stderr_bytes; /* the command's, relayed */
	/* what the command left running when it ended, killed: its process
	 * group, and every process seen to descend from it (looked for
	 * every KB_POSIX_LOOK_MS while it ran, and at the end). A process
	 * that left the group and whose parent exited between two looks is
	 * out of reach on macOS (no subreaper); on Linux the caller may make
	 * kinbox the subreaper, and orphans then come back to it */
	unsigned left_killed;
	int walk_errno; /* the process table could not be read: 0, or why */
};

#define KB_POSIX_LOOK_MS 200

/*
 * Runs `exe` (an absolute path) with `argv` and `envp` (NULL-terminated)
 * and waits for it. The signals a supervisor sends kinbox (SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH) are forwarded;
 * the child (in a process group of its own when no terminal is involved)
 * and what it leaves running are killed when it ends (left_killed);
 * the child's stderr is relayed to ours byte for byte, except a first
 * line that turns out to be sandbox-exec's refusal or its report of the
 * command's failed exec (held back until that is known: until more
 * follows, or the exit). Returns 0 with `out` filled, or -1 with `e` set
 * when nothing could be started (`exe` could not be exec'd, no pipe, no
 * fork). Not reentrant: it owns the process's handlers of those signals
 * and of SIGCHLD and SIGPIPE while it runs, and restores them after.
 */
int kb_run_posix(const char *exe, char *const *argv, char *const *envp,
    struct kb_posix_run *out, struct kb_err *e);

/* What sandbox-exec's refusal `text` (its stderr before the command
 * started) means, as kinbox's one line: the cause and the fix. A new
 * string. */
char *kb_posix_explain_failure(const char *text);

#endif
