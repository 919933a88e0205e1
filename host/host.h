/*
 * host/host.h — what this machine can do, probed: bubblewrap and its probe
 * (bwrap-probe.c), the Landlock ABI, overlayfs in a user namespace,
 * seccomp user notifications, the agent sandbox kinbox runs inside
 * (probe.c), and where a run's private temporary directory can be made
 * (rundir.c). The backends and kinbox --status (status.h) read these; so
 * does kinpolicy, through kb_sandbox_available(), without the backends.
 */
#ifndef KB_HOST_H
#define KB_HOST_H

#include <stdbool.h>
#include <stddef.h>

#include "../lib/util.h"

/* host/probe.c */

/* Does the running kernel mount overlayfs in a user namespace? */
bool kb_overlay_supported(void);

/* The kernel's Landlock ABI version, 0 when unsupported or disabled. */
int kb_landlock_abi(void);
/* First ABI with LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (Linux 6.12). */
#define KB_LANDLOCK_ABI_SCOPE 6
/*
 * The landlock backend needs ABI 3 (Linux 6.2): ABI 2 brings REFER
 * (without it every rename or link across directories fails) and ABI 3
 * TRUNCATE (without it truncate(2) of any file the caller owns is not
 * confined).
 */
#define KB_LANDLOCK_ABI_MIN 3
/* First ABI with TCP bind/connect rights (Linux 6.7). */
#define KB_LANDLOCK_ABI_NET 4

/* host/rundir.c */

/* The placeholder --dry-run shows for the per-run temporary directory */
#define KB_LANDLOCK_RUNDIR_TEMPLATE "/tmp/kinbox-UID/run.XXXXXX"

/*
 * Makes the landlock backend's per-run temporary directory (0700) in the
 * first place that takes one: /tmp, then $TMPDIR, then /dev/shm (an
 * agent's own sandbox leaves /tmp read-only: sandbox-runtime, Codex's),
 * each as PLACE/kinbox-UID/run.<32 random hex digits> under a parent only
 * its owner can enter and no one can list (mode 0300: another run of the
 * same user cannot find it), then `workspace` itself (a hidden
 * .kinbox-run.XXXXXX, the one place such a sandbox always leaves
 * writable; NULL: not tried). With an `index_fd` (a directory of kinbox's
 * state store; -1: none) the run records its directory there, locked
 * while the process lives, so that kb_landlock_rundir_sweep() of a later
 * run removes what a killed one left. Its path in out (outlen bytes); an
 * O_PATH descriptor of it, or -1 with e saying where it was tried and why
 * not.
 */
int kb_landlock_rundir(const char *workspace, int index_fd, char *out,
    size_t outlen, struct kb_err *e);
/* after the run's directory `dir` is removed: its index entry, and its
 * parent when that is empty now */
void kb_landlock_rundir_forget(const char *dir);
/* the directories of dead runs in the index removed (descriptor-based,
 * never following a symlink); how many */
int kb_landlock_rundir_sweep(int index_fd);

/* host/probe.c, continued */

/* The agent sandbox kinbox runs inside, by the variables it sets
 * (sandbox-runtime's SANDBOX_RUNTIME, Codex's CODEX_SANDBOX*, Gemini
 * CLI's SANDBOX): its name, the evidence and the setting that turns it
 * off, static strings; false when none is seen. */
struct kb_agent_sandbox {
	const char *name, *evidence, *fix;
};
bool kb_agent_sandbox(struct kb_agent_sandbox *out);

/*
 * Can this host mediate? NULL when it can, else why not (a static
 * string): user notifications, pidfd_getfd, openat2, ptrace of the
 * sandbox (Yama's ptrace_scope).
 */
const char *kb_sup_unavailable(void);

/* Does this process run under a seccomp filter (Seccomp: in
 * /proc/self/status)? A kinbox sandbox around it answers its connects
 * from outside, where a Landlock domain of its own does not apply. */
bool kb_sup_under_seccomp(void);

/* host/bwrap-probe.c */

/* Finds bwrap in $PATH; returns a new string or NULL with `e` set. */
char *kb_bwrap_find(struct kb_err *e);

/* Runs a minimal bwrap sandbox around /bin/true: 0 when bwrap works here,
 * else -1 with the explanation in `e`. */
int kb_bwrap_probe(const char *bwrap, struct kb_err *e);

/*
 * Turns bwrap's setup error text (what it printed before the command
 * started) into one line naming the cause and the way out. Reads the
 * userns sysctls to tell them apart. Returns a new string.
 */
char *kb_bwrap_explain_failure(const char *bwrap_stderr);

/* Is bwrap's setup error (its first line, with or without "bwrap: ", or
 * kb_bwrap_probe's message) the kernel refusing it namespaces? */
bool kb_bwrap_userns_failure(const char *bwrap_stderr);

#endif
