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

#define KB_POSIX_TAIL 8192

struct kb_posix_run {
	int wstatus;              /* sandbox-exec's wait status */
	bool started;             /* false: sandbox-exec refused before the
				     command (a profile it rejected, an
				     unusable sandbox); nothing ran */
	int exec_errno;           /* the command could not be exec'd inside */
	int exit_code;            /* kinbox's exit status: the child's own,
				     128+N for a signal */
	char setup_err[2048];     /* sandbox-exec's own words when !started */
	char tail[KB_POSIX_TAIL]; /* the last bytes of the command's stderr */
	size_t tail_len;
	unsigned long long stderr_bytes;
};

/*
 * Runs `exe` (an absolute path) with `argv` and `envp` (NULL-terminated)
 * and waits for it. The signals a supervisor sends kinbox (SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH) are forwarded;
 * the child's stderr is relayed to ours byte for byte. Returns 0 with `out`
 * filled, or -1 with `e` set when nothing could be started.
 */
int kb_run_posix(const char *exe, char *const *argv, char *const *envp,
    struct kb_posix_run *out, struct kb_err *e);

/* What sandbox-exec's refusal `text` (its stderr before the command
 * started) means, as kinbox's one line: the cause and the fix. A new
 * string. */
char *kb_posix_explain_failure(const char *text);

#endif
