/*
 * backends/landlock.c — policy → the landlock backend's plan: kinbox-exec
 * run directly, applying no_new_privs, no capabilities, one Landlock domain
 * and a seccomp filter before it execs the command (kinbox-exec.c). For
 * hosts where bubblewrap cannot make its namespaces (Ubuntu 24.04's
 * AppArmor restriction, unprivileged containers) or is missing.
 *
 * No namespace is made, so what bubblewrap's namespaces gave is either
 * replaced (a per-run TMPDIR for the private /tmp, seccomp for the nested
 * user namespaces, the IPC namespace and the network's other families,
 * kb_run()'s keeper killing what is left when the command or kinbox
 * ends, for the pid namespace) or said, in the posture lines, not to
 * hold.
 *
 * Writes are granted beneath the workspace, the --write roots, the per-run
 * directory, persisted caches and the device nodes a program needs (in a
 * read-only run: beneath the per-run directory and the devices only); the
 * caller's own TMPDIR is not granted (the per-run one replaces it). Reads
 * are granted beneath everything but the masked credentials: every
 * directory on the way to a mask may be listed, each of its other entries
 * read in full. Landlock is allow-only and hierarchical, so nothing can be
 * made read-only inside a writable root: a mask there is refused, and the
 * git guards are restored after the run instead (gitguard/).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../lib/fsat.h"
#include "../profile/tables.h"
#include "backend.h"

unsigned
kb_landlock_lacks(const struct kb_host *h, unsigned require)
{
	unsigned never = KB_FEAT_PRIVATE_TMP | KB_FEAT_PID_NS | KB_FEAT_NET_NS |
			 KB_FEAT_IPC_NS | KB_FEAT_GIT_GUARD |
			 KB_FEAT_UNIX_SOCKETS;

	if (h->no_meta != NULL)
		never |= KB_FEAT_ATTR_GUARD;

	if (h->landlock_abi < KB_LANDLOCK_ABI_SCOPE)
		never |= KB_FEAT_SIGNAL_SCOPE;
	return require & never;
}

/* the device nodes a program needs; a trailing / is a directory */
static const char *const devices[] = {
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/shm/",
};

/* Caches an overlay would have kept writable, sent to the per-run
 * directory where the tool has a variable for it: `npm install` must
 * write its cache. The others are read-only (a note says so). */
static const struct {
	const char *cache, *var, *sub;
} cache_redirect[] = {
    {"npm", "npm_config_cache", "npm-cache"},
};

static const char *
redirect_var(int cache)
{
	for (size_t i = 0; i < nitems(cache_redirect); i++)
		if (strcmp(cache_redirect[i].cache,
			kb_cache_table[cache].name) == 0)
			return cache_redirect[i].var;
	return NULL;
}

/* Passes kinbox's descriptor `fd` (of `path`); its number in the child. */
static int
pass(struct kb_plan *pl, int fd, const char *path)
{
	pl->pass_src = xreallocarray(pl->pass_src, pl->npass + 1, sizeof(int));
	pl->pass_src[pl->npass] = fd;
	kb_strv_push(&pl->pass_path, path);
	return pl->pass_base + (int)pl->npass++;
}

static int
max_fd(const struct kb_policy *p, const struct kb_plan *pl, int helper_fd,
    int rundir_fd)
{
	int m = pl->env_fd > pl->unotify_fd ? pl->env_fd : pl->unotify_fd;
	const int more[] = {helper_fd, rundir_fd, p->workspace_fd};

	for (size_t i = 0; i < nitems(more); i++)
		if (more[i] > m)
			m = more[i];
	for (size_t i = 0; i < p->nkeep; i++)
		if (p->keep_fd[i] > m)
			m = p->keep_fd[i];
	for (size_t i = 0; i < p->nwrite; i++)
		if (p->write[i].fd > m)
			m = p->write[i].fd;
	for (size_t i = 0; i < p->ndev; i++)
		if (p->dev[i].fd > m)
			m = p->dev[i].fd;
	return m;
}

/* a writable root, by its descriptor when kinbox holds one */
static void
add_root(struct kb_plan *pl, int fd, const char *path)
{
	if (fd == -1) {
		kb_strv_push(&pl->argv, "--write");
		kb_strv_push(&pl->argv, path);
		return;
	}
	kb_strv_push(&pl->argv, "--write-fd");
	kb_strv_pushf(&pl->argv, "%d", pass(pl, fd, path));
}

/* TMPDIR, TMUX_TMPDIR and the JVM's java.io.tmpdir: the per-run directory */
static void
plan_tmp_env(const struct kb_policy *p, char *const *envp, const char *rundir,
    struct kb_plan *pl)
{
	struct kb_policy q = *p;

	q.tmpdir = NULL;
	q.tmpdir_private = (char *)rundir;
	q.tmpdir_reset = false;
	kb_plan_env(&q, envp, "landlock", pl);
	kb_plan_env_set(pl, "TMUX_TMPDIR", rundir);
	kb_plan_env_append(
	    pl, "JAVA_TOOL_OPTIONS", " ", "-Djava.io.tmpdir=", rundir);
}

static const char *
net_words(const struct kb_policy *p, const struct kb_host *h)
{
	if (p->net)
		return "on, host network (unix sockets still refused)";
	if (h->seccomp_outer)
		return "off: every inet socket refused (seccomp: kinbox runs "
		       "under an outer filter, and a supervisor there would "
		       "make a TCP connect outside Landlock's rules); no "
		       "loopback either";
	if (h->landlock_abi >= KB_LANDLOCK_ABI_NET)
		return "off: TCP connect and bind refused (Landlock), every "
		       "other family and protocol (UDP, raw, MPTCP, SCTP, "
		       "packet, vsock, netlink but route) refused (seccomp); "
		       "no loopback either";
	return "off: every inet socket refused (seccomp; Landlock ABI < 4 "
	       "has no TCP rights); no loopback either";
}

/* a mask as the landlock backend holds it (kb_posture_words.mask): a
 * hidden path unreadable, a file shown at its own path readable; one
 * shown from elsewhere stays hidden, unlisted */
static char *
mask_words(const struct kb_mask *m)
{
	if (m->kind == KB_MASK_TREE || m->kind == KB_MASK_DIR ||
	    m->kind == KB_MASK_FILE)
		return xstrdup(
		    "unreadable; it stays so if the host replaces it");
	if (m->kind == KB_EXPOSE_RO && strcmp(m->src, m->path) == 0)
		return xstrdup("shown, read-only");
	return NULL;
}

static void
plan_notes(const struct kb_policy *p, const struct kb_host *h, const char *why,
    const char *rundir, struct kb_plan *pl)
{
	const struct kb_posture_words w = {
	    .scratch = "this run's own temporary directory (TMPDIR, below) "
		       "takes writes, removed after the run",
	    .network = net_words(p, h),
	    .proxy = NULL, /* granted hosts: unused, the network as it is */
	    .no_sockets = "the landlock backend refuses every unix socket",
	    .mask = mask_words,
	};

	pl->memory = kb_policy_memory(p, h->mem_total, &pl->memory_by);
	kb_strv_pushf(&pl->notes,
	    "backend: landlock (Landlock ABI %d + "
	    "seccomp, no namespaces), %s",
	    h->landlock_abi, why);
	kb_plan_posture_common(p, &w, pl);
	kb_strv_push(&pl->notes, "read: the whole host filesystem, but the "
				 "masks below; writes elsewhere fail with "
				 "EACCES (not EROFS)");
	kb_strv_pushf(&pl->notes,
	    "tmp: no private /tmp: /tmp is the host's, read-only; TMPDIR, "
	    "TMUX_TMPDIR and java.io.tmpdir are %s (0700, this run's, removed "
	    "after it); a script writing /tmp/x fails",
	    rundir);
	if (p->tmpdir != NULL)
		kb_strv_pushf(&pl->notes,
		    "TMPDIR: %s is not granted (the per-run directory "
		    "replaces it)",
		    p->tmpdir);
	kb_strv_pushf(&pl->notes,
	    "memory: not bounded by this backend: it makes no tmpfs, and what "
	    "the command writes goes to the host's filesystems, %s on the "
	    "host's /tmp and the host's /dev/shm among them, bounded only by "
	    "their own size (a tmpfs's default is half of RAM) and, per file, "
	    "by --rlimit fsize",
	    rundir);
	kb_strv_push(&pl->notes,
	    "memory: no cgroup: kinbox puts the run in none of its own; the "
	    "command's processes are the OOM killer's to find, and --rlimit "
	    "as bounds each one");
	kb_strv_pushf(&pl->notes, "capabilities: none%s",
	    h->root ? " (running as root: all dropped, bounding set "
		      "emptied, securebits locked)"
		    : "");
	kb_strv_pushf(&pl->notes, "seccomp: refuses %s",
	    kb_seccomp_summary_variant[pl->seccomp_variant]);
	kb_strv_push(&pl->notes,
	    "not provided (landlock): a private /tmp; a pid namespace (host "
	    "processes and their command lines are visible; what the command "
	    "leaves running is killed when it ends); a private loopback (a "
	    "server binding 127.0.0.1 fails with the network off); an IPC "
	    "namespace (SysV IPC and POSIX message queues are refused: "
	    "PostgreSQL's initdb fails); /dev/shm is the host's, writable; "
	    "unix sockets are refused (socketpair works; ssh-agent, tmux, "
	    "gpg-agent and dbus do not)");
	if (h->landlock_abi >= KB_LANDLOCK_ABI_SCOPE)
		kb_strv_pushf(&pl->notes,
		    "landlock: signals to processes outside refused, "
		    "ptrace and /proc/PID/{environ,mem,root,cwd} of them "
		    "refused (ABI %d)",
		    h->landlock_abi);
	else
		kb_strv_pushf(&pl->notes,
		    "not enforced: signals to the caller's other processes "
		    "(Landlock ABI %d < %d has no signal scope); ptrace and "
		    "/proc/PID/{environ,mem,root,cwd} of them are refused",
		    h->landlock_abi, KB_LANDLOCK_ABI_SCOPE);
	if (h->no_meta == NULL)
		kb_strv_push(&pl->notes,
		    "metadata: chmod, chown, utimes and extended attributes "
		    "(ACLs) are handed to kinbox, which makes each change "
		    "itself when the file lies beneath a writable root and "
		    "refuses it elsewhere (EROFS); 32-bit x86 programs' are "
		    "refused (EPERM), setxattrat/removexattrat are ENOSYS");
	else
		kb_strv_pushf(&pl->notes,
		    "not enforced: the mode, times, extended attributes and "
		    "ACLs of files outside the writable roots that the caller "
		    "owns%s can be changed (chmod, touch -d, setfacl): "
		    "Landlock "
		    "has no right for them and kinbox cannot mediate them here "
		    "(%s; --require attr-guard refuses instead)",
		    h->root ? " (as root: most of the system)" : "",
		    h->no_meta);
	kb_strv_push(&pl->notes,
	    "tty: only the command's own terminal; a new pseudo-terminal "
	    "(script, expect, Python's pty) cannot be opened, since "
	    "/dev/pts as a whole would open the caller's other terminals too");
	if (h->landlock_abi < 5)
		kb_strv_pushf(&pl->notes,
		    "not enforced: ioctl on device files the command may open "
		    "(Landlock ABI %d < 5)",
		    h->landlock_abi);
	for (size_t i = 0; i < p->nguard; i++) {
		const struct kb_guard *g = &p->guard[i];

		switch (g->kind) {
		case KB_GUARD_PIN_DIR:
		case KB_GUARD_RO:
		case KB_GUARD_RO_ABSENT_DIR:
		case KB_GUARD_RO_ABSENT_FILE:
			kb_strv_pushf(&pl->notes,
			    "git guard: %s (%s; not held during the run: "
			    "Landlock cannot make it read-only inside a "
			    "writable root; put back after the run)",
			    g->path, g->type == 0 ? "absent" : "present");
			break;
		case KB_GUARD_WATCH_ABSENT:
		case KB_GUARD_WATCH_LINK:
		case KB_GUARD_WATCH_NEWREPO:
		case KB_GUARD_WATCH_INDEX:
			kb_strv_pushf(&pl->notes,
			    "git guard: %s (audited after the run)", g->path);
			break;
		}
	}
	kb_strv_push(&pl->notes,
	    "masks: a file the host creates during the run in a directory "
	    "on the way to a mask (/, the home directory) is unreadable");
	for (size_t i = 0; i < p->nmask; i++) {
		const struct kb_mask *m = &p->mask[i];
		const char *var;

		if (m->cache == -1)
			continue;
		if (m->kind == KB_CACHE_BIND)
			kb_strv_pushf(&pl->notes,
			    "cache %s: %s (persisted): the real directory, "
			    "writable",
			    kb_cache_table[m->cache].name, m->path);
		else if ((var = redirect_var(m->cache)) != NULL)
			kb_strv_pushf(&pl->notes,
			    "cache %s: %s read-only (no overlay without a "
			    "mount namespace); %s is an empty directory of "
			    "this run",
			    kb_cache_table[m->cache].name, m->path, var);
		else
			kb_strv_pushf(&pl->notes,
			    "cache %s: %s read-only (no overlay without a "
			    "mount namespace)",
			    kb_cache_table[m->cache].name, m->path);
	}
}

/* What this backend cannot do safely is refused, not degraded. */
static int
refuse(const struct kb_policy *p, const struct kb_host *h, struct kb_err *e)
{
	if (h->landlock_abi < KB_LANDLOCK_ABI_MIN)
		return kb_err_set(e,
		    "no sandbox: the landlock backend needs Landlock ABI %d "
		    "(Linux 6.2) and this kernel has %d%s; use the bwrap "
		    "backend (kinbox --status says why it cannot run) — "
		    "nothing was run",
		    KB_LANDLOCK_ABI_MIN, h->landlock_abi,
		    h->landlock_abi == 0 ? " (not enabled: add landlock to "
					   "the lsm= boot parameter)"
					 : "");
	if (p->ssh_agent)
		return kb_err_set(e,
		    "--ssh-agent: the landlock backend refuses every unix "
		    "socket (Landlock on this kernel cannot tell the agent's "
		    "from the host's other sockets); use the bwrap backend, "
		    "or run git over https — nothing was run");
	/* typed, it asks for the socket; a grant only permits, and is
	 * named as unused in the plan */
	for (size_t i = 0; i < p->nallow_socket; i++)
		if (p->allow_socket[i].origin == KB_ORIGIN_FLAG)
			return kb_err_set(e,
			    "--allow-socket %s: the landlock backend refuses "
			    "every unix socket (Landlock on this kernel cannot "
			    "tell a granted socket from the host's others); "
			    "use the bwrap backend — nothing was run",
			    p->allow_socket[i].path);
	/* no network namespace here: a port kinbox listened on would be
	 * the host's, reachable by every process of the user's and by the
	 * command on any address (Landlock rules name ports, not hosts) */
	for (size_t i = 0; i < p->nallow_host; i++)
		if (p->allow_host[i].origin == KB_ORIGIN_FLAG)
			return kb_err_set(e,
			    "--allow-host %s: the landlock backend has no "
			    "network namespace of its own, so kinbox cannot "
			    "give it a proxy that only it reaches; use the "
			    "bwrap backend, or --net — nothing was run",
			    p->allow_host[i].name);
	for (size_t i = 0; i < p->nmask; i++) {
		const struct kb_mask *m = &p->mask[i];

		_cleanup_free_ char *real = realpath(m->path, NULL);

		if ((m->kind == KB_MASK_TREE || m->kind == KB_MASK_DIR ||
			m->kind == KB_MASK_FILE) &&
		    (kb_policy_within_roots(p, m->path) ||
			(real != NULL && kb_policy_within_roots(p, real))))
			return kb_err_set(e,
			    "%s lies in a writable root, and the landlock "
			    "backend cannot hide a credential there (its "
			    "rules only add rights); give a narrower --write "
			    "or use the bwrap backend — nothing was run",
			    m->path);
	}
	return 0;
}

int
kb_landlock_plan(const struct kb_policy *p, const struct kb_host *h,
    const char *helper, int helper_fd, const char *rundir, int rundir_fd,
    const char *why, char *const *envp, struct kb_plan *pl, struct kb_err *e)
{
	char num[16];
	int lo;

	memset(pl, 0, sizeof(*pl));
	if (p->argv == NULL || p->argv[0] == NULL)
		return kb_err_set(e, "no command given; usage: kinbox "
				     "[OPTIONS] -- COMMAND [ARG...]");
	if (refuse(p, h, e) == -1)
		return -1;
	pl->backend = KB_BACKEND_LANDLOCK;
	pl->seccomp_variant =
	    p->net ? KB_SECCOMP_LL_NET
	    : h->landlock_abi >= KB_LANDLOCK_ABI_NET && !h->seccomp_outer
		? KB_SECCOMP_LL_NONET
		: KB_SECCOMP_LL_NONET_ALL;
	pl->seccomp_fd = kb_plan_free_fd(p, 3);
	pl->status_fd = kb_plan_free_fd(p, pl->seccomp_fd + 1);
	pl->stderr_fd = kb_plan_free_fd(p, pl->status_fd + 1);
	pl->empty_fd = -1;
	pl->go_fd = -1;
	pl->notify_fd = pl->unotify_fd = -1; /* every unix socket refused */
	pl->proxy_fd = -1;
	pl->env_fd = kb_plan_free_fd(p, pl->stderr_fd + 1);
	/* the metadata calls kinbox answers (chmod, chown, utimes, xattrs):
	 * their filter and its listener's way out */
	if (h->no_meta == NULL) {
		pl->meta = true;
		pl->notify_fd = kb_plan_free_fd(p, pl->env_fd + 1);
		pl->unotify_fd = kb_plan_free_fd(p, pl->notify_fd + 1);
	}
	pl->pass_base = max_fd(p, pl, helper_fd, rundir_fd) + 1;
	memcpy(pl->keep_fd, p->keep_fd, sizeof(pl->keep_fd));
	pl->nkeep = p->nkeep;

	/* exec'd through its descriptor: what runs is the file kinbox
	 * found */
	if (helper_fd != -1)
		pl->exe =
		    xasprintf("/proc/self/fd/%d", pass(pl, helper_fd, helper));
	else
		pl->exe = xstrdup(helper);
	kb_strv_push(&pl->argv, "kinbox-exec");
	kb_strv_pushf(&pl->argv, "%d", pl->status_fd);
	kb_strv_pushf(&pl->argv, "%d", pl->stderr_fd);
	kb_strv_push(&pl->argv, "--env");
	kb_strv_pushf(&pl->argv, "%d", pl->env_fd);
	snprintf(num, sizeof(num), "%d", h->landlock_abi);
	kb_strv_push(&pl->argv, "--landlock");
	kb_strv_push(&pl->argv, num);
	if (p->net)
		kb_strv_push(&pl->argv, "--net");
	if (h->root)
		kb_strv_push(&pl->argv, "--drop-caps");
	kb_strv_push(&pl->argv, "--seccomp");
	kb_strv_pushf(&pl->argv, "%d", pl->seccomp_fd);
	kb_strv_push(&pl->argv, "--chdir");
	kb_strv_push(&pl->argv, p->cwd);
	if (pl->meta) {
		kb_strv_push(&pl->argv, "--meta");
		kb_strv_pushf(&pl->argv, "%d", pl->unotify_fd);
		kb_strv_pushf(&pl->argv, "%d", pl->notify_fd);
	}
	/* the roots by the descriptors kinbox checked: what is granted is
	 * what was checked */
	/* read-only: no root (validation dropped the write roots), the
	 * run's own directory is the one place that takes writes */
	if (!p->read_only)
		add_root(pl, p->workspace_fd, p->workspace);
	for (size_t i = 0; i < p->nwrite; i++)
		add_root(pl, p->write[i].fd, p->write[i].path);
	if (rundir_fd != -1) {
		kb_strv_push(&pl->argv, "--write-fd");
		kb_strv_pushf(&pl->argv, "%d", pass(pl, rundir_fd, rundir));
	}
	for (size_t i = 0; i < p->nmask; i++)
		if (p->mask[i].kind == KB_CACHE_BIND) {
			kb_strv_push(&pl->argv, "--write");
			kb_strv_push(&pl->argv, p->mask[i].path);
		}
	for (size_t i = 0; i < nitems(devices); i++) {
		kb_strv_push(&pl->argv, "--dev");
		kb_strv_push(&pl->argv, devices[i]);
	}
	/* --device, --gpu: read, write and (ABI 5) ioctl on each node
	 * judged at finalize, where it is (no mount namespace to put one
	 * elsewhere), by the descriptor judged: a node put in its place
	 * since gets no rule (the bwrap backend binds the descriptor) */
	for (size_t i = 0; i < p->ndev; i++) {
		kb_strv_push(&pl->argv, "--dev-fd");
		kb_strv_pushf(
		    &pl->argv, "%d", pass(pl, p->dev[i].fd, p->dev[i].path));
	}
	for (size_t i = 0; i < p->nmask; i++) {
		const struct kb_mask *m = &p->mask[i];

		if (m->kind == KB_MASK_TREE || m->kind == KB_MASK_DIR ||
		    m->kind == KB_MASK_FILE) {
			/* where it really is: a symlinked directory on the way
			 * (~/.config -> dotfiles/config) would otherwise leave
			 * the real one below a directory read in full
			 * (kinbox-exec follows no symlink) */
			_cleanup_free_ char *real = realpath(m->path, NULL);

			kb_strv_push(&pl->argv, "--deny-read");
			kb_strv_push(&pl->argv, real != NULL ? real : m->path);
		} else if (m->kind == KB_EXPOSE_RO &&
			   strcmp(m->src, m->path) == 0) {
			kb_strv_push(&pl->argv, "--allow-read");
			kb_strv_push(&pl->argv, m->path);
		}
	}
	kb_plan_limits(p, pl);
	if (pl->npass > 0) {
		lo = pl->pass_base;
		kb_strv_push(&pl->argv, "--close-fds");
		kb_strv_pushf(&pl->argv, "%d", lo);
		kb_strv_pushf(&pl->argv, "%d", lo + (int)pl->npass - 1);
	}
	kb_strv_push(&pl->argv, "--");
	for (char **a = p->argv; *a != NULL; a++)
		kb_strv_push(&pl->argv, *a);
	plan_notes(p, h, why, rundir, pl);
	plan_tmp_env(p, envp, rundir, pl);
	/* whether the cache exists or not: a tool makes one that is
	 * missing, which fails in the read-only home */
	for (size_t c = 0; c < kb_cache_count; c++) {
		const char *var = redirect_var((int)c);
		_cleanup_free_ char *dir = NULL;

		if (var == NULL || p->cache[c] == KB_CACHE_OFF ||
		    p->cache[c] == KB_CACHE_PERSISTED ||
		    kb_plan_env_slot(pl, var) != NULL)
			continue;
		for (size_t k = 0; k < nitems(cache_redirect); k++)
			if (strcmp(cache_redirect[k].var, var) == 0)
				dir = xasprintf(
				    "%s/%s", rundir, cache_redirect[k].sub);
		kb_plan_env_set(pl, var, dir);
		kb_strv_pushf(&pl->notes,
		    "env: %s=%s (the %s cache of this run, discarded)", var,
		    dir, kb_cache_table[c].name);
	}
	return 0;
}
