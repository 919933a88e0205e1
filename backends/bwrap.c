/*
 * backends/bwrap.c — policy → bubblewrap argv. The plan is pure: every
 * mount, namespace and descriptor is decided here from the policy, so that
 * `kinbox --dry-run` prints exactly what runs and tests can diff it.
 *
 * Mount order matters (later mounts cover earlier ones): the whole host
 * read-only, fresh /dev and /proc, a private /tmp, the writable roots, then
 * the git guards on top of the roots, parents before children.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../profile/tables.h"
#include "backend.h"

static void
add(struct kb_plan *pl, const char *a)
{
	kb_strv_push(&pl->argv, a);
}

static void
add2(struct kb_plan *pl, const char *a, const char *b)
{
	add(pl, a);
	add(pl, b);
}

static void
add3(struct kb_plan *pl, const char *a, const char *b, const char *c)
{
	add(pl, a);
	add(pl, b);
	add(pl, c);
}

/*
 * An empty read-only regular file at `path`. Not a bind of /dev/null: bwrap
 * mounts binds nodev, so opening it would fail with EACCES where the
 * command should simply read nothing. bwrap copies the (empty) memfd on
 * pl->empty_fd into its own tmpfs for each use.
 */
static void
add_empty_file(struct kb_plan *pl, const char *path)
{
	char num[16];

	snprintf(num, sizeof(num), "%d", pl->empty_fd);
	add2(pl, "--perms", "0444");
	add3(pl, "--ro-bind-data", num, path);
}

/*
 * A tmpfs at `path` (with --perms `perms` unless NULL), recorded with its
 * kind: its --size is a placeholder until plan_memory() has split the
 * budget, which also counts what is mounted below it.
 */
static void
add_tmpfs(struct kb_plan *pl, const char *path, enum kb_tmpfs_kind kind,
    const char *perms)
{
	struct kb_tmpfs *t;

	if (perms != NULL)
		add2(pl, "--perms", perms);
	add2(pl, "--size", "0");
	pl->tmpfs =
	    xreallocarray(pl->tmpfs, pl->ntmpfs + 1, sizeof(*pl->tmpfs));
	t = &pl->tmpfs[pl->ntmpfs++];
	memset(t, 0, sizeof(*t));
	t->path = xstrdup(path);
	t->kind = kind;
	t->size_arg = pl->argv.n - 1;
	add2(pl, "--tmpfs", path);
	t->from = pl->argv.n;
}

static const char *
guard_word(enum kb_guard_kind k)
{
	switch (k) {
	case KB_GUARD_PIN_DIR:
		return "pinned";
	case KB_GUARD_RO:
		return "read-only";
	case KB_GUARD_RO_ABSENT_DIR:
		return "absent, kept uncreatable";
	case KB_GUARD_RO_ABSENT_FILE:
		return "absent, kept uncreatable";
	case KB_GUARD_WATCH_ABSENT:
		return "absent, removed after the run if planted";
	case KB_GUARD_WATCH_LINK:
		return "symlink, restored after the run if replaced";
	case KB_GUARD_WATCH_NEWREPO:
		return "absent, new hooks disarmed after the run";
	case KB_GUARD_WATCH_INDEX:
		return "watched: repositories it newly gitlinks are audited";
	}
	return "?";
}

/* Passes kinbox's descriptor `fd` (of `path`) to bwrap; returns its name
 * there, /proc/self/fd/N (static storage). */
static const char *
pass_fd(struct kb_plan *pl, int fd, const char *path)
{
	static char src[32];

	pl->pass_src = xreallocarray(pl->pass_src, pl->npass + 1, sizeof(int));
	pl->pass_src[pl->npass] = fd;
	snprintf(src, sizeof(src), "/proc/self/fd/%d",
	    pl->pass_base + (int)pl->npass);
	pl->npass++;
	kb_strv_push(&pl->pass_path, path);
	return src;
}

/* A bind whose source kinbox opened and checked: passed as a descriptor. */
static void
add_bind_fd(struct kb_plan *pl, const char *op, int fd, const char *path)
{
	if (fd == -1) {
		add3(pl, op, path, path);
		return;
	}
	add3(pl, op, pass_fd(pl, fd, path), path);
}

/* kinbox-exec checks, before the command starts, that `path` (resolved
 * without symlinks) is a mount point, of the inode that was scanned when
 * ino != 0: a concurrent run cannot have moved a guard mount elsewhere. */
static void
add_check(struct kb_plan *pl, struct kb_strv *args, const char *path, dev_t dev,
    ino_t ino)
{
	kb_strv_push(args, "--check");
	kb_strv_push(args, path);
	kb_strv_pushf(args, "%lu:%lu", (unsigned long)dev, (unsigned long)ino);
	kb_strv_push(&pl->checks, path);
}

static int
by_path(const void *a, const void *b)
{
	const struct kb_guard *const *x = a, *const *y = b;

	return strcmp((*x)->path, (*y)->path);
}

static void
plan_guards(
    const struct kb_policy *p, struct kb_plan *pl, struct kb_strv *checks)
{
	/* in path order: a parent's mount before its children's, which it
	 * would otherwise cover (the scan finds them in any order) */
	const struct kb_guard **order = xcalloc(p->nguard, sizeof(*order));

	for (size_t i = 0; i < p->nguard; i++)
		order[i] = &p->guard[i];
	qsort(order, p->nguard, sizeof(*order), by_path);
	/* Pass 1: directories that stay writable but become mount points,
	 * which the kernel refuses to rename or remove (EBUSY). Pass 2:
	 * read-only pieces on top. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < p->nguard; i++) {
			const struct kb_guard *g = order[i];

			switch (g->kind) {
			case KB_GUARD_PIN_DIR:
				if (pass == 0 && g->type == S_IFDIR) {
					add_bind_fd(
					    pl, "--bind", g->fd, g->path);
					add_check(pl, checks, g->path, g->dev,
					    g->ino);
				}
				break;
			case KB_GUARD_RO:
				if (pass == 1 && (g->type == S_IFDIR ||
						     g->type == S_IFREG)) {
					add_bind_fd(
					    pl, "--ro-bind", g->fd, g->path);
					add_check(pl, checks, g->path, g->dev,
					    g->ino);
				}
				break;
			case KB_GUARD_RO_ABSENT_DIR:
				/* an empty read-only directory: neither the
				 * dir nor a hook inside can be created */
				if (pass == 1) {
					add_tmpfs(
					    pl, g->path, KB_TMPFS_RO, NULL);
					add2(pl, "--remount-ro", g->path);
					add_check(pl, checks, g->path, 0, 0);
				}
				break;
			case KB_GUARD_RO_ABSENT_FILE:
				if (pass == 1) {
					add_empty_file(pl, g->path);
					add_check(pl, checks, g->path, 0, 0);
				}
				break;
			case KB_GUARD_WATCH_ABSENT:
			case KB_GUARD_WATCH_LINK:
			case KB_GUARD_WATCH_NEWREPO:
			case KB_GUARD_WATCH_INDEX:
				break;
			}
		}
	}
	free(order);
}

static const char *
mask_kind_word(const struct kb_mask *m)
{
	switch (m->kind) {
	case KB_MASK_TREE:
		return "hidden: empty directory (host sockets)";
	case KB_MASK_DIR:
		return "hidden: empty directory";
	case KB_MASK_FILE:
		return "hidden: empty file";
	case KB_EXPOSE_RO:
		return "shown read-only";
	case KB_EXPOSE_SOCKET:
		return m->by == KB_OPT_ALLOW_SOCKET
			   ? "granted socket (--allow-socket)"
			   : "granted socket (--ssh-agent)";
	case KB_CACHE_COW:
	case KB_CACHE_TMPFS:
	case KB_CACHE_BIND:
		return "cache";
	}
	return "?";
}

/* a mask as bwrap holds it (kb_posture_words.mask) */
static char *
mask_word(const struct kb_mask *m)
{
	return xstrdup(mask_kind_word(m));
}

static void plan_cache_notes(
    const struct kb_policy *, const struct kb_host *, struct kb_plan *);
static void plan_memory_notes(struct kb_plan *);

/* The private /tmp, and the host directories bound inside it (a write
 * root or the workspace below /tmp: /tmp itself is refused) */
static void
plan_tmp_notes(const struct kb_policy *p, struct kb_plan *pl)
{
	const char *roots[KB_MAX_ROOTS];
	size_t n = kb_policy_roots(p, roots), k = 0;
	/* read-only: a workspace below /tmp is bound there read-only */
	bool ws_tmp = p->read_only && kb_path_within(p->workspace, "/tmp");

	for (size_t i = 0; i < n; i++)
		if (kb_path_within(roots[i], "/tmp"))
			k++;
	k += ws_tmp;
	kb_strv_push(&pl->notes,
	    k == 0 ? "tmp: private /tmp (empty, discarded)"
		   : "tmp: private /tmp (discarded), empty but for the host "
		     "directories below");
	for (size_t i = 0; i < n; i++)
		if (kb_path_within(roots[i], "/tmp"))
			kb_strv_pushf(&pl->notes,
			    "tmp: %s: the host's, writable (%s), bound inside "
			    "the private /tmp; what is written there stays",
			    roots[i],
			    roots[i] == p->workspace ? "the workspace"
						     : "a write root");
	if (ws_tmp)
		kb_strv_pushf(&pl->notes,
		    "tmp: %s: the host's, read-only (the workspace of a "
		    "read-only run), bound inside the private /tmp",
		    p->workspace);
}

static void
plan_notes(
    const struct kb_policy *p, const struct kb_host *h, struct kb_plan *pl)
{
	const struct kb_posture_words w = {
	    .scratch =
		"the private /tmp (and a TMPDIR below it) and the caches "
		"(ephemeral) take writes, all discarded after the run",
	    .network = p->net ? "on, host network" : "off, loopback only",
	    .proxy = "only through kinbox's proxy, to the allowed hosts "
		     "below, and nothing else (loopback inside)",
	    .no_sockets = NULL,
	    .mask = mask_word,
	};

	kb_strv_pushf(&pl->notes, "backend: bwrap (%s), %s", pl->exe,
	    p->backend == KB_BACKEND_BWRAP
		? "as asked (backend = bwrap: "
		  "never another)"
		: "chosen by auto (the stronger backend; were bubblewrap "
		  "unable to make its namespaces here, auto would run the "
		  "landlock backend instead)");
	kb_plan_posture_common(p, &w, pl);
	kb_strv_push(&pl->notes, "read: the whole host filesystem, read-only");
	plan_tmp_notes(p, pl);
	plan_memory_notes(pl);
	if (p->tmpdir != NULL)
		kb_strv_pushf(&pl->notes, "TMPDIR: %s (writable)", p->tmpdir);
	if (p->tmpdir_private != NULL)
		kb_strv_pushf(&pl->notes,
		    "TMPDIR: %s (inside the private /tmp)", p->tmpdir_private);
	if (p->tmpdir_reset)
		kb_strv_push(&pl->notes, "TMPDIR: not writable here; the "
					 "command gets TMPDIR=/tmp");
	kb_strv_push(&pl->notes, "namespaces: user, pid, ipc, uts, cgroup, "
				 "mount; nested user namespaces disabled");
	kb_strv_pushf(&pl->notes, "capabilities: none%s",
	    h->root ? " (running as root: all dropped; /proc/sys and "
		      "friends read-only)"
		    : "");
	kb_strv_pushf(&pl->notes, "seccomp: refuses %s",
	    kb_seccomp_summary_variant[pl->seccomp_variant]);
	for (size_t i = 0; i < p->nguard; i++)
		kb_strv_pushf(&pl->notes, "git guard: %s (%s)",
		    p->guard[i].path, guard_word(p->guard[i].kind));
	plan_cache_notes(p, h, pl);
	if (h->landlock_abi >= KB_LANDLOCK_ABI_SCOPE)
		kb_strv_pushf(&pl->notes,
		    "landlock: abstract unix sockets of "
		    "the host refused (ABI %d)",
		    h->landlock_abi);
	/* below ABI 6 nothing is left open: the supervisor checks abstract
	 * names with --net, and without it no unix socket is made at all */
	if (pl->unotify_fd != -1)
		kb_strv_push(&pl->notes,
		    "unix sockets: every connect() answered by kinbox "
		    "(seccomp user notification): the command's own sockets "
		    "(on the mounts it writes) and the granted ones "
		    "connect, any other pathname socket is refused (EACCES); "
		    "unix datagram sockets are refused");
	else
		kb_strv_pushf(&pl->notes,
		    "unix sockets: every socket(AF_UNIX) refused (EACCES), "
		    "the command's own too: kinbox cannot mediate connects "
		    "here (%s)",
		    h->no_mediate);
	if (pl->check_abstract)
		kb_strv_push(&pl->notes,
		    "unix sockets: with --net an abstract name is connected "
		    "only when a socket of the sandbox listens on it (the "
		    "host's are refused, EPERM)");
}

/*
 * As root, uid 0 inside is the host's uid 0, and sysctl files check the
 * uid, not capabilities: /proc/sys/kernel/core_pattern would be writable,
 * and with it the host kernel runs a program as root on the next crash.
 * bwrap 0.8 would cover these itself, but skips it because access(W_OK)
 * on /proc/sys fails even for root. An unprivileged caller cannot write
 * them anyway, so the mounts are only paid for as root.
 */
static const char *const proc_ro[] = {
    "/proc/sys",
    "/proc/sysrq-trigger",
    "/proc/irq",
    "/proc/bus",
    "/proc/fs",
    "/proc/scsi",
    "/proc/acpi",
};

static void
plan_proc_ro(struct kb_plan *pl)
{
	for (size_t i = 0; i < nitems(proc_ro); i++) {
		/* the host's /proc tells which exist; the fresh one has the
		 * same entries */
		if (access(proc_ro[i], F_OK) == 0)
			add3(pl, "--ro-bind", proc_ro[i], proc_ro[i]);
	}
}

static void
plan_masks(const struct kb_policy *p, struct kb_plan *pl, bool trees)
{
	for (size_t i = 0; i < p->nmask; i++) {
		const struct kb_mask *m = &p->mask[i];

		switch (m->kind) {
		case KB_MASK_TREE:
			if (trees)
				add_tmpfs(pl, m->path, KB_TMPFS_MASK, "0755");
			break;
		case KB_MASK_DIR:
			if (!trees)
				add_tmpfs(pl, m->path, KB_TMPFS_MASK, "0555");
			break;
		case KB_MASK_FILE:
			if (!trees)
				add_empty_file(pl, m->path);
			break;
		case KB_EXPOSE_RO:
		case KB_EXPOSE_SOCKET:
		case KB_CACHE_COW:
		case KB_CACHE_TMPFS:
		case KB_CACHE_BIND:
			break;
		}
	}
}

/* What a cache becomes here. */
enum cache_plan {
	CP_OVERLAY,
	CP_EMPTY,
	CP_BIND,
	CP_READONLY
};

static enum cache_plan
cache_plan(const struct kb_host *h, const struct kb_mask *m)
{
	if (m->kind == KB_CACHE_TMPFS)
		return CP_EMPTY;
	if (m->kind == KB_CACHE_BIND)
		return CP_BIND;
	if (h->overlay)
		return CP_OVERLAY;
	return kb_cache_table[m->cache].fallback == KB_CACHE_EMPTY
		   ? CP_EMPTY
		   : CP_READONLY;
}

/*
 * Caches, before the roots (none lies inside one; a root inside a cache is
 * mounted over it) and the credential masks. An overlay is not a bwrap
 * argument: kb_run() mounts it once bwrap is done, from outside, and
 * carries the mounts below it over (pl->overlay).
 */
static void
plan_caches(
    const struct kb_policy *p, const struct kb_host *h, struct kb_plan *pl)
{
	for (size_t i = 0; i < p->nmask; i++) {
		const struct kb_mask *m = &p->mask[i];

		if (m->cache == -1)
			continue;
		switch (cache_plan(h, m)) {
		case CP_OVERLAY:
			kb_strv_push(&pl->overlay, m->path);
			kb_strv_push(
			    &pl->overlay_name, kb_cache_table[m->cache].name);
			break;
		case CP_EMPTY:
			add_tmpfs(pl, m->path, KB_TMPFS_CACHE, NULL);
			break;
		case CP_BIND:
			add3(pl, "--bind", m->path, m->path);
			break;
		case CP_READONLY:
			break;
		}
	}
}

#define NO_OVERLAY                                                             \
	"no overlay: this kernel cannot mount one in a user namespace "        \
	"(Linux < 5.11)"

static void
plan_cache_notes(
    const struct kb_policy *p, const struct kb_host *h, struct kb_plan *pl)
{
	for (size_t i = 0; i < p->nmask; i++) {
		const struct kb_mask *m = &p->mask[i];
		const struct kb_cache *c;
		bool dflt;

		if (m->cache == -1)
			continue;
		c = &kb_cache_table[m->cache];
		dflt = m->kind == KB_CACHE_COW;
		switch (cache_plan(h, m)) {
		case CP_OVERLAY:
			kb_strv_pushf(&pl->notes,
			    "cache %s: %s (ephemeral): a copy-on-write "
			    "overlay, "
			    "warm reads, writes discarded after the run",
			    c->name, m->path);
			break;
		case CP_EMPTY:
			kb_strv_pushf(&pl->notes,
			    "cache %s: %s (%s): %s, writes discarded after the "
			    "run%s%s",
			    c->name, m->path, dflt ? "ephemeral" : "empty",
			    dflt ? c->why : "empty and writable",
			    dflt ? "; " : "", dflt ? NO_OVERLAY : "");
			break;
		case CP_BIND:
			kb_strv_pushf(&pl->notes,
			    "cache %s: %s (persisted): the real directory, "
			    "writable; what the command writes there stays",
			    c->name, m->path);
			break;
		case CP_READONLY:
			kb_strv_pushf(&pl->notes,
			    "cache %s: %s (ephemeral): %s; " NO_OVERLAY,
			    c->name, m->path, c->why);
			break;
		}
	}
}

static void
plan_exposes(const struct kb_policy *p, struct kb_plan *pl)
{
	for (size_t i = 0; i < p->nmask; i++) {
		const struct kb_mask *m = &p->mask[i];

		if (m->kind == KB_EXPOSE_RO)
			add3(pl, "--ro-bind", m->src, m->path);
		else if (m->kind == KB_EXPOSE_SOCKET)
			add3(pl, "--bind", m->src, m->path);
	}
}

/*
 * --device, --gpu: each node judged at finalize (profile/devices.c), bound
 * from kinbox's O_PATH descriptor of it at its place in the sandbox: a
 * --dev-bind, bwrap's one bind that keeps device nodes usable (its others
 * are nodev). After every other mount, so that nothing covers one; bwrap
 * makes the mount point (in the fresh /dev, the private /tmp).
 */
static void
plan_devices(const struct kb_policy *p, struct kb_plan *pl)
{
	for (size_t i = 0; i < p->ndev; i++)
		add_bind_fd(pl, "--dev-bind", p->dev[i].fd, p->dev[i].dest);
}

/* every existing path a mask or guard mount covers */
static void
plan_watch(const struct kb_policy *p, struct kb_plan *pl)
{
	for (size_t i = 0; i < p->nmask; i++)
		if (p->mask[i].kind == KB_MASK_FILE ||
		    p->mask[i].kind == KB_MASK_DIR)
			kb_strv_push(&pl->watch, p->mask[i].path);
	for (size_t i = 0; i < p->nguard; i++)
		if ((p->guard[i].kind == KB_GUARD_RO ||
			p->guard[i].kind == KB_GUARD_PIN_DIR) &&
		    p->guard[i].type != 0 && p->guard[i].link == NULL)
			kb_strv_push(&pl->watch, p->guard[i].path);
}

/* the highest descriptor number the plan refers to on kinbox's side */
static int
max_fd(const struct kb_policy *p, const struct kb_plan *pl, int helper_fd)
{
	int m = pl->go_fd > pl->empty_fd ? pl->go_fd : pl->empty_fd;

	if (pl->unotify_fd > m)
		m = pl->unotify_fd;
	if (pl->proxy_fd > m)
		m = pl->proxy_fd;
	if (pl->env_fd > m)
		m = pl->env_fd;

	if (helper_fd > m)
		m = helper_fd;
	for (size_t i = 0; i < p->nkeep; i++)
		if (p->keep_fd[i] > m)
			m = p->keep_fd[i];
	if (p->workspace_fd > m)
		m = p->workspace_fd;
	if (p->tmpdir_fd > m)
		m = p->tmpdir_fd;
	for (size_t i = 0; i < p->nwrite; i++)
		if (p->write[i].fd > m)
			m = p->write[i].fd;
	for (size_t i = 0; i < p->nguard; i++)
		if (p->guard[i].fd > m)
			m = p->guard[i].fd;
	for (size_t i = 0; i < p->ndev; i++)
		if (p->dev[i].fd > m)
			m = p->dev[i].fd;
	return m;
}

/*
 * The kernel drops a mask's mount when the host replaces the file or
 * directory under it (write tmp + rename), so a mount alone cannot keep a
 * credential hidden. kinbox-exec adds a Landlock ruleset that allows
 * reading everything that existed at the start except the masked inodes
 * (rules follow inodes: a replacement has none). A mask whose directory is
 * writable in the sandbox is left to the mount (new files there must stay
 * readable).
 */
static void
plan_deny_read(
    const struct kb_policy *p, const struct kb_host *h, struct kb_strv *args)
{
	/* ABI 2 (Linux 5.19): a ruleset that cannot handle LANDLOCK_ACCESS_
	 * FS_REFER refuses every rename or link across directories (EXDEV:
	 * cargo, rustc, git, mv all break); kinbox-exec handles it and grants
	 * it everywhere */
	if (h->landlock_abi < 2)
		return;
	for (size_t i = 0; i < p->nmask; i++) {
		const struct kb_mask *m = &p->mask[i];
		_cleanup_free_ char *dir = NULL;
		char *slash;

		if (m->kind != KB_MASK_FILE && m->kind != KB_MASK_DIR)
			continue;
		dir = xstrdup(m->path);
		if ((slash = strrchr(dir, '/')) == NULL || slash == dir)
			continue;
		*slash = '\0';
		if (kb_policy_within_writable(p, dir))
			continue;
		kb_strv_push(args, "--deny-read");
		kb_strv_push(args, m->path);
	}
}

/* a socket --allow-socket exposes */
static bool
has_socket_grant(const struct kb_policy *p)
{
	for (size_t i = 0; i < p->nmask; i++)
		if (p->mask[i].kind == KB_EXPOSE_SOCKET &&
		    p->mask[i].by == KB_OPT_ALLOW_SOCKET)
			return true;
	return false;
}

/*
 * The mount points inside whose mounts are the command's own: writable
 * here, and holding nothing of the host's but what a writable root holds
 * (a unix socket there is the command's, or one it could have made). The
 * supervisor lets a connect through to a socket on one of them; every
 * other mount is the host's, read-only or masked.
 */
static void
plan_own(const struct kb_policy *p, struct kb_plan *pl)
{
	kb_strv_push(&pl->own, "/tmp");
	kb_strv_push(&pl->own, "/dev");
	kb_strv_push(&pl->own, "/dev/shm");
	/* read-only: the workspace is the host's, read-only */
	if (!p->read_only)
		kb_strv_push(&pl->own, p->workspace);
	for (size_t i = 0; i < p->nwrite; i++)
		kb_strv_push(&pl->own, p->write[i].path);
	if (p->tmpdir != NULL)
		kb_strv_push(&pl->own, p->tmpdir);
	for (size_t i = 0; i < p->nmask; i++)
		if (p->mask[i].kind == KB_MASK_TREE || p->mask[i].cache != -1)
			kb_strv_push(&pl->own, p->mask[i].path);
	/* a pinned .git is bound again, writable (git's fsmonitor daemon
	 * keeps its socket there); the read-only guards are not the
	 * command's */
	for (size_t i = 0; i < p->nguard; i++)
		if (p->guard[i].kind == KB_GUARD_PIN_DIR &&
		    p->guard[i].type == S_IFDIR)
			kb_strv_push(&pl->own, p->guard[i].path);
	while (pl->own.n > KB_SUP_MAX_OWN)
		free(pl->own.v[--pl->own.n]);
	if (pl->own.v != NULL)
		pl->own.v[pl->own.n] = NULL;
}

/* the inodes --ssh-agent and --allow-socket grant: what the policy saw
 * (a socket the host replaces meanwhile is another inode: refused) */
static void
plan_granted(const struct kb_policy *p, struct kb_plan *pl)
{
	for (size_t i = 0; i < p->nmask; i++) {
		const struct kb_mask *m = &p->mask[i];

		if (m->kind != KB_EXPOSE_SOCKET || m->ino == 0)
			continue;
		pl->granted = xreallocarray(
		    pl->granted, pl->ngranted + 1, sizeof(*pl->granted));
		pl->granted[pl->ngranted].dev = m->dev;
		pl->granted[pl->ngranted].ino = m->ino;
		pl->ngranted++;
	}
}

/* bwrap's --dev: a tmpfs of its own, with no size option; the mounter
 * sets its limits (it holds device nodes, links and what is mounted below
 * it, but the command may write there) */
static void
plan_dev(struct kb_plan *pl)
{
	struct kb_tmpfs *t;

	pl->tmpfs =
	    xreallocarray(pl->tmpfs, pl->ntmpfs + 1, sizeof(*pl->tmpfs));
	t = &pl->tmpfs[pl->ntmpfs++];
	memset(t, 0, sizeof(*t));
	t->path = xstrdup("/dev");
	t->kind = KB_TMPFS_DEV;
	t->from = pl->argv.n;
}

/* the argument of a bwrap option that names where it mounts or makes
 * something (its offset after the option), 0 for the other options */
static int
dest_offset(const char *op)
{
	static const struct {
		const char *op;
		int at;
	} ops[] = {
	    {"--bind", 2},
	    {"--ro-bind", 2},
	    {"--dev-bind", 2},
	    {"--ro-bind-data", 2},
	    {"--tmpfs", 1},
	    {"--dir", 1},
	    {"--dev", 1},
	    {"--proc", 1},
	};

	for (size_t i = 0; i < nitems(ops); i++)
		if (strcmp(op, ops[i].op) == 0)
			return ops[i].at;
	return 0;
}

/*
 * What bwrap makes in the tmpfs `t` for the mounts after it: a directory
 * or file for each component of a mount point below it (an upper bound:
 * one shared by two mounts is counted twice). A mount at its very path
 * covers it. bwrap's options end at the first "--" (no argument of
 * kinbox's starts with "--": paths are absolute).
 */
static unsigned long long
below(const struct kb_plan *pl, struct kb_tmpfs *t)
{
	size_t tl = strlen(t->path);
	unsigned long long n = 0;

	for (size_t i = t->from; i < pl->argv.n; i++) {
		const char *a = pl->argv.v[i], *d;
		int at;

		if (strcmp(a, "--") == 0)
			break;
		if ((at = dest_offset(a)) == 0 || i + (size_t)at >= pl->argv.n)
			continue;
		d = pl->argv.v[i + (size_t)at];
		if (strcmp(d, t->path) == 0 && strcmp(a, "--dir") != 0)
			t->covered = true;
		if (!kb_path_within(d, t->path) || strcmp(d, t->path) == 0)
			continue;
		for (d += strcmp(t->path, "/") == 0 ? 0 : tl; *d != '\0'; d++)
			n += *d == '/' && d[1] != '/' && d[1] != '\0';
	}
	return n;
}

/*
 * The memory budget over the tmpfs mounts (backends/memory.c): the small
 * ones' limits first, then the split of the rest, written into each
 * --size placeholder; the mounter sets the inode limits (and /dev's size)
 * once bwrap is done.
 */
static int
plan_memory(const struct kb_policy *p, const struct kb_host *h,
    struct kb_plan *pl, struct kb_err *e)
{
	_cleanup_free_ unsigned long long *nbelow =
	    xcalloc(pl->ntmpfs + 1, sizeof(*nbelow));
	unsigned long long small = 0;
	size_t ncache = pl->overlay.n > 0 ? 1 : 0, nsmall = 0;
	struct kb_memsplit sp;
	char b[24], c[24];

	pl->memory = kb_policy_memory(p, h->mem_total, &pl->memory_by);
	for (size_t i = 0; i < pl->ntmpfs; i++) {
		struct kb_tmpfs *t = &pl->tmpfs[i];

		nbelow[i] = below(pl, t);
		switch (t->kind) {
		case KB_TMPFS_CACHE:
			ncache++;
			break;
		case KB_TMPFS_DEV:
		case KB_TMPFS_MASK:
		case KB_TMPFS_RO:
			kb_memory_small(
			    t->kind, nbelow[i], &t->size, &t->inodes);
			small += kb_memory_cost(t->size, t->inodes);
			nsmall++;
			break;
		case KB_TMPFS_TMP:
		case KB_TMPFS_SHM:
			break;
		}
	}
	if (kb_memory_split(pl->memory, small, ncache, &sp) == -1)
		return kb_err_set(e,
		    "the memory budget %s (%s) is too small for this "
		    "sandbox: its %zu small mounts (/dev, the masks, absent "
		    "hooks directories) take %s, which leaves less than 4 MiB "
		    "for /tmp; give a larger --memory",
		    kb_size_str(pl->memory, b, sizeof(b)),
		    pl->memory_by != NULL ? pl->memory_by : "the default",
		    nsmall, kb_size_str(small, c, sizeof(c)));
	for (size_t i = 0; i < pl->ntmpfs; i++) {
		struct kb_tmpfs *t = &pl->tmpfs[i];

		if (t->kind == KB_TMPFS_TMP || t->kind == KB_TMPFS_SHM ||
		    t->kind == KB_TMPFS_CACHE)
			kb_memory_limits(t->kind == KB_TMPFS_TMP   ? sp.tmp
					 : t->kind == KB_TMPFS_SHM ? sp.shm
								   : sp.cache,
			    nbelow[i], &t->size, &t->inodes);
		if (t->size_arg != 0) {
			free(pl->argv.v[t->size_arg]);
			pl->argv.v[t->size_arg] = xasprintf("%llu", t->size);
		}
	}
	if (pl->overlay.n > 0)
		kb_memory_limits(
		    sp.cache, 0, &pl->upper.size, &pl->upper.inodes);
	return 0;
}

/* The posture lines of the budget: the big mounts' limits, the rule of
 * the small ones (their number differs between hosts), what it cannot
 * bound */
static void
plan_memory_notes(struct kb_plan *pl)
{
	struct kb_buf big = {0};
	char b[24];

	for (size_t i = 0; i < pl->ntmpfs; i++) {
		const struct kb_tmpfs *t = &pl->tmpfs[i];

		if (t->kind != KB_TMPFS_TMP && t->kind != KB_TMPFS_SHM &&
		    t->kind != KB_TMPFS_CACHE)
			continue;
		kb_buf_printf(&big, "%s%s %s and %llu inodes",
		    big.s != NULL ? ", " : "", t->path,
		    kb_size_str(t->size, b, sizeof(b)), t->inodes);
	}
	if (pl->upper.size > 0)
		kb_buf_printf(&big,
		    ", the ephemeral caches' overlays %s and %llu inodes "
		    "together",
		    kb_size_str(pl->upper.size, b, sizeof(b)),
		    pl->upper.inodes);
	kb_strv_pushf(&pl->notes,
	    "memory: every tmpfs of the sandbox is sized within the budget "
	    "(an inode counted as %llu bytes): %s",
	    KB_INODE_COST, big.s != NULL ? big.s : "");
	kb_strv_push(&pl->notes,
	    "memory: /dev, the masks and absent hooks directories get 64 KiB "
	    "and 64 inodes each (an absent hooks directory, read-only, 4 KiB "
	    "and 8), and an inode for each directory or file bwrap makes in "
	    "one for the mounts below it; a 16th of the budget is kept for "
	    "them; a write past a mount's size or inodes fails with ENOSPC");
	kb_strv_push(&pl->notes,
	    "memory: no cgroup: kinbox puts the run in none of its own; the "
	    "command's processes (their memory, not the tmpfs pages above) "
	    "are the OOM killer's to find, and --rlimit as bounds each one");
	kb_buf_free(&big);
}

int
kb_bwrap_plan(const struct kb_policy *p, const struct kb_host *h,
    const char *bwrap, const char *helper, int helper_fd, char *const *envp,
    struct kb_plan *pl, struct kb_err *e)
{
	struct kb_strv checks = {0}, deny = {0};
	char num[3][16];

	memset(pl, 0, sizeof(*pl));
	if (p->argv == NULL || p->argv[0] == NULL)
		return kb_err_set(e, "no command given; usage: kinbox "
				     "[OPTIONS] -- COMMAND [ARG...]");
	/* without the supervisor every unix socket is refused: what needs
	 * one cannot run (fail closed, never the old leaky mount rule) */
	if (h->no_mediate != NULL) {
		const char *need = p->require & KB_FEAT_UNIX_SOCKETS
				       ? "--require unix-sockets"
				   : p->ssh_agent        ? "--ssh-agent"
				   : has_socket_grant(p) ? "--allow-socket"
							 : NULL;

		if (need != NULL)
			return kb_err_set(e,
			    "%s: kinbox cannot mediate unix-socket connects "
			    "here (%s), so every unix socket is refused; run "
			    "on a host where kinbox --status shows them "
			    "mediated — nothing was run",
			    need, h->no_mediate);
	}
	pl->backend = KB_BACKEND_BWRAP;
	pl->exe = xstrdup(bwrap);
	pl->seccomp_fd = kb_plan_free_fd(p, 3);
	pl->status_fd = kb_plan_free_fd(p, pl->seccomp_fd + 1);
	pl->stderr_fd = kb_plan_free_fd(p, pl->status_fd + 1);
	pl->empty_fd = kb_plan_free_fd(p, pl->stderr_fd + 1);
	pl->go_fd = kb_plan_free_fd(p, pl->empty_fd + 1);
	pl->notify_fd = pl->unotify_fd = -1;
	pl->seccomp_variant = KB_SECCOMP_BWRAP_NOUNIX;
	if (h->no_mediate == NULL) {
		pl->seccomp_variant = KB_SECCOMP_BWRAP_MEDIATED;
		pl->notify_fd = kb_plan_free_fd(p, pl->go_fd + 1);
		pl->unotify_fd = kb_plan_free_fd(p, pl->notify_fd + 1);
		/* with --net the abstract names are the host's */
		pl->check_abstract = p->net;
		plan_own(p, pl);
		plan_granted(p, pl);
	}
	/* the network limited to the allow-list: the proxy's listener */
	pl->proxy_fd = -1;
	if (!p->net && p->nallow_host > 0) {
		pl->proxy_fd = kb_plan_free_fd(
		    p, (pl->unotify_fd != -1 ? pl->unotify_fd : pl->go_fd) + 1);
		pl->hosts = p->allow_host;
		pl->nhosts = p->nallow_host;
	}
	pl->env_fd =
	    kb_plan_free_fd(p, (pl->proxy_fd != -1        ? pl->proxy_fd
				   : pl->unotify_fd != -1 ? pl->unotify_fd
							  : pl->go_fd) +
				   1);
	/* above every descriptor it is copied from, so that putting them in
	 * place in the child never overwrites one still to be copied */
	pl->pass_base = max_fd(p, pl, helper_fd) + 1;
	memcpy(pl->keep_fd, p->keep_fd, sizeof(pl->keep_fd));
	pl->nkeep = p->nkeep;
	snprintf(num[0], sizeof(num[0]), "%d", pl->seccomp_fd);
	snprintf(num[1], sizeof(num[1]), "%d", pl->status_fd);
	snprintf(num[2], sizeof(num[2]), "%d", pl->stderr_fd);

	add(pl, "bwrap");
	add(pl, "--die-with-parent");
	add(pl, "--unshare-user");
	add(pl, "--disable-userns");
	add(pl, "--unshare-pid");
	add(pl, "--unshare-ipc");
	add(pl, "--unshare-uts");
	add(pl, "--unshare-cgroup-try");
	if (!p->net)
		add(pl, "--unshare-net");
	add2(pl, "--cap-drop", "ALL");
	add3(pl, "--ro-bind", "/", "/");
	add2(pl, "--dev", "/dev");
	plan_dev(pl);
	add2(pl, "--proc", "/proc");
	if (h->root)
		plan_proc_ro(pl);
	add_tmpfs(pl, "/tmp", KB_TMPFS_TMP, NULL);
	/* its own tmpfs: the one bwrap's --dev makes has no size */
	add_tmpfs(pl, "/dev/shm", KB_TMPFS_SHM, "1777");
	plan_masks(p, pl, true);
	plan_caches(p, h, pl);
	if (p->tmpdir_private != NULL)
		add2(pl, "--dir", p->tmpdir_private);
	if (p->tmpdir != NULL)
		add_bind_fd(pl, "--bind", p->tmpdir_fd, p->tmpdir);
	/* read-only: bound all the same (it may lie below /tmp or a mask),
	 * as the host has it */
	add_bind_fd(pl, p->read_only ? "--ro-bind" : "--bind", p->workspace_fd,
	    p->workspace);
	for (size_t i = 0; i < p->nwrite; i++)
		add_bind_fd(pl, "--bind", p->write[i].fd, p->write[i].path);
	plan_guards(p, pl, &checks);
	plan_masks(p, pl, false);
	plan_exposes(p, pl);
	plan_devices(p, pl);
	plan_watch(p, pl);
	add2(pl, "--chdir", p->cwd);
	add2(pl, "--seccomp", num[0]);
	add(pl, "--");
	/* by descriptor: it runs wherever kinbox lives (a build tree under
	 * the private /tmp, a masked or covered directory), and what runs is
	 * the file kinbox found */
	if (helper_fd != -1)
		add(pl, pass_fd(pl, helper_fd, helper));
	else
		add(pl, helper);
	add(pl, num[1]);
	add(pl, num[2]);
	add(pl, "--env");
	kb_strv_pushf(&pl->argv, "%d", pl->env_fd);
	if (pl->overlay.n > 0 || pl->watch.n > 0 || pl->ntmpfs > 0) {
		add(pl, "--wait");
		kb_strv_pushf(&pl->argv, "%d", pl->go_fd);
	} else {
		pl->go_fd = -1;
	}
	if (pl->npass > 0) {
		add(pl, "--close-fds");
		kb_strv_pushf(&pl->argv, "%d", pl->pass_base);
		kb_strv_pushf(
		    &pl->argv, "%d", pl->pass_base + (int)pl->npass - 1);
	}
	if (h->landlock_abi >= KB_LANDLOCK_ABI_SCOPE)
		add(pl, "--scope-abstract");
	kb_plan_limits(p, pl);
	if (pl->proxy_fd != -1) {
		add(pl, "--proxy");
		kb_strv_pushf(&pl->argv, "%d", pl->proxy_fd);
	}
	if (pl->unotify_fd != -1) {
		add(pl, "--unotify");
		kb_strv_pushf(&pl->argv, "%d", pl->unotify_fd);
		kb_strv_pushf(&pl->argv, "%d", pl->notify_fd);
		for (size_t i = 0; i < pl->own.n; i++)
			add2(pl, "--own", pl->own.v[i]);
	}
	plan_deny_read(p, h, &deny);
	for (size_t i = 0; i < checks.n; i++)
		add(pl, checks.v[i]);
	/* Landlock rules in an overlay wait for it (kinbox-exec) */
	for (size_t i = 0; deny.n > 0 && i < pl->overlay.n; i++)
		add2(pl, "--late", pl->overlay.v[i]);
	for (size_t i = 0; i < deny.n; i++) {
		add(pl, deny.v[i]);
		if (i % 2 == 1)
			kb_strv_push(&pl->watch_report, deny.v[i]);
	}
	add(pl, "--");
	for (char **a = p->argv; *a != NULL; a++)
		add(pl, *a);
	if (plan_memory(p, h, pl, e) == -1) {
		kb_strv_free(&checks);
		kb_strv_free(&deny);
		kb_plan_free(pl);
		return -1;
	}
	plan_notes(p, h, pl);
	if (deny.n > 0)
		kb_strv_pushf(&pl->notes,
		    "landlock: the %zu masked credential "
		    "paths stay unreadable even if the host replaces them "
		    "(ABI %d)",
		    deny.n / 2, h->landlock_abi);
	kb_plan_env(p, envp, "bwrap", pl);
	kb_strv_free(&checks);
	kb_strv_free(&deny);
	return 0;
}
