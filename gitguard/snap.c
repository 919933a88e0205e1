/*
 * gitguard/snap.c — the git guards no mount holds: a backend without a
 * mount namespace (Landlock) leaves the workspace writable beneath
 * .git/hooks, so the guarded git metadata is kept as a copy before the run
 * (kb_gitguard_snapshot) and put back after it (kb_gitguard_restore).
 *
 * What a snapshot holds, for each guard of a finalized and scanned policy:
 * - KB_GUARD_RO: the file's bytes, mode and type (config, commondir, a .git
 *   file), or a directory's tree (hooks, a core.hooksPath directory): every
 *   entry's name, type, mode and bytes, symlinks as their target (never
 *   followed), FIFOs and devices by type and mode (never opened); and the
 *   scan's dev/ino of the guarded entry itself.
 * - KB_GUARD_RO_ABSENT_DIR, _FILE: that the entry is absent, and how many
 *   leading components of its path existed.
 * - KB_GUARD_PIN_DIR: the git dir's dev/ino (the scan's).
 * Bounded: a file over 1 MiB, a directory of more than 4096 entries, more
 * than 16384 entries or 64 MiB over all, or 8 levels below a guarded
 * directory make the snapshot fail with a line saying so, and kinbox
 * refuses to run (fail closed).
 *
 * After the run every byte below the roots is the command's and the
 * restore runs with the caller's full privileges, so it acts only through
 * descriptors: the root is the policy's descriptor, each guard's path is
 * walked from it component by component with O_NOFOLLOW, every pinned git
 * dir on the way must still be the scanned one (dev/ino), every entry is
 * lstat'ed (fstatat AT_SYMLINK_NOFOLLOW) before it is opened, only regular
 * files are ever opened for reading (O_NONBLOCK, and fstat'ed again:
 * a FIFO or a device is never opened), and every change is an *at() call
 * on a verified directory descriptor:
 * - a changed file is written anew under a temporary name created with
 *   O_CREAT | O_EXCL | O_NOFOLLOW in that directory and renamed into place
 *   (RENAME_NOREPLACE) after the command's version was moved aside
 *   (kb_quarantine_any_at: the evidence is kept);
 * - a changed mode is put back with chmod on the entry's descriptor, and
 *   only on the inode the snapshot saw: anything else at the name (a copy,
 *   a hard link to a file elsewhere, another directory) is moved aside and
 *   the original recreated, so nothing outside the guard is ever changed;
 * - an entry that is new (a planted hook, a hooks dir where none was) is
 *   moved aside; one that is gone is recreated the same way a changed one
 *   is written; one whose type changed (a hook made a symlink or a FIFO)
 *   is moved aside and the original recreated;
 * - a pinned git dir or a guarded entry that is not the scanned one any
 *   more is looked for in its directory by dev/ino; when found (mv .git
 *   .git2) what took its name is moved aside and the original renamed
 *   back. When it is not there (moved elsewhere, deleted) nothing below it
 *   is touched: the change is reported, with the advice, and left alone; a
 *   directory that took a pinned git dir's name is then disarmed by the
 *   audit as any repository the command made (kb_gitguard_audit_after).
 *
 * Every difference is one report(line, true); the line names the kernel's
 * path of the place acted on (the report callback escapes it).
 *
 * What this does not hold, unlike a read-only mount:
 * - the run itself: until the restore, the planted hooks and config are
 *   live, and a git run on the host in that checkout during the run (an
 *   editor's, a file watcher's, the user's) obeys them;
 * - anything the guards do not name (as with bwrap): the rest of .git,
 *   including refs and objects, and what the scan lists as not guarded;
 * - the original's inode of a file git replaced by rename (git config):
 *   the bytes and mode come back in a new inode; xattrs, owner and times of
 *   a recreated entry are not kept;
 * - a git dir moved out of its directory or deleted: reported, not looked
 *   for elsewhere;
 * - the evidence kept aside is the command's: it stays where it was moved
 *   (name.kinbox-quarantine.<pid>[.<random>]) for a person to read and
 *   delete; git runs nothing from those names.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../lib/fsat.h"
#include "gitguard.h"
#include "snap-int.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

static void reportf(report_fn report, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
reportf(report_fn report, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	report(line, true);
}

static bool
is_guarded_kind(enum kb_guard_kind k)
{
	return k == KB_GUARD_PIN_DIR || k == KB_GUARD_RO ||
	       k == KB_GUARD_RO_ABSENT_DIR || k == KB_GUARD_RO_ABSENT_FILE;
}

static const char *
type_name(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG:
		return "a file";
	case S_IFDIR:
		return "a directory";
	case S_IFLNK:
		return "a symlink";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	case S_IFCHR:
	case S_IFBLK:
		return "a device";
	default:
		return "something of an unknown type";
	}
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(
	    ((const struct node *)a)->name, ((const struct node *)b)->name);
}

static void
node_free(struct node *nd)
{
	for (size_t i = 0; i < nd->nkids; i++)
		node_free(&nd->kids[i]);
	free(nd->kids);
	free(nd->name);
	free(nd->data);
}

void
kb_gitsnap_free(struct kb_gitsnap *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->n; i++) {
		node_free(&s->g[i].node);
		free(s->g[i].rel);
		free(s->g[i].buf);
		free(s->g[i].pins);
		free(s->g[i].pindep);
		free(s->g[i].path);
	}
	for (size_t r = 0; r < s->nroots; r++)
		free(s->own_roots[r]);
	free(s->g);
	free(s);
}

/* The policy's descriptor of a root (the one the sandbox got), else the
 * root opened without following symlinks. A new descriptor or -1. */
static int
root_fd(const struct kb_policy *p, const char *root)
{
	int fd = -1;

	if (root == p->workspace)
		fd = p->workspace_fd;
	else if (root == p->tmpdir)
		fd = p->tmpdir_fd;
	else
		for (size_t i = 0; i < p->nwrite; i++)
			if (root == p->write[i].path)
				fd = p->write[i].fd;
	if (fd >= 0)
		return fcntl(fd, F_DUPFD_CLOEXEC, 3);
	return kb_open_dir_nofollow(root);
}

/* --- the walk ------------------------------------------------------------ */

struct walk {
	int parent;       /* the last component's directory (O_PATH) */
	const char *base; /* the last component */
	/* on failure: */
	int err;     /* errno of the component that failed */
	unsigned at; /* its index */
	int atfd;    /* the directory it lies in, or -1 */
};

static void
walk_close(struct walk *w)
{
	if (w->parent != -1)
		close(w->parent);
	if (w->atfd != -1)
		close(w->atfd);
	w->parent = w->atfd = -1;
}

/*
 * The directory holding the guard's last component, from the root's
 * descriptor one component at a time, never through a symlink; each git
 * dir pinned on the way must be the scanned one. 0, or -1 with w->err
 * (ELOOP: a symlink, ENOTDIR: no directory, ENOENT, EXDEV: a pinned git
 * dir that is another one now), w->at and w->atfd.
 */
static int
walk_parent(const struct kb_gitsnap *s, const struct sguard *sg, int rootfd,
    struct walk *w)
{
	int cur = fcntl(rootfd, F_DUPFD_CLOEXEC, 3);
	size_t pi = 0;

	w->parent = w->atfd = -1;
	w->base = sg->comps[sg->ncomp - 1];
	w->at = 0;
	if (cur == -1) {
		w->err = errno;
		return -1;
	}
	for (unsigned i = 0; i + 1 < sg->ncomp; i++) {
		int fd = openat(cur, sg->comps[i],
		    O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;

		if (fd == -1) {
			w->err = errno;
			if (w->err == ENOTDIR &&
			    fstatat(cur, sg->comps[i], &st,
				AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode))
				w->err = ELOOP;
			w->at = i;
			w->atfd = cur;
			return -1;
		}
		for (; pi < sg->npins && sg->pindep[pi] <= i + 1; pi++) {
			const struct sguard *pin = &s->g[sg->pins[pi]];

			if (sg->pindep[pi] != i + 1)
				continue;
			if (fstat(fd, &st) == -1 || st.st_dev != pin->dev ||
			    st.st_ino != pin->ino) {
				close(fd);
				w->err = EXDEV;
				w->at = i;
				w->atfd = cur;
				return -1;
			}
		}
		close(cur);
		cur = fd;
	}
	w->parent = cur;
	return 0;
}

/* --- the snapshot -------------------------------------------------------- */

static int snap_node(struct kb_gitsnap *, int dfd, const char *name,
    struct node *, int depth, struct kb_err *);

static int
snap_fail(struct kb_err *e, int dfd, const char *name, const char *why)
{
	_cleanup_free_ char *path = kb_fd_path_at(dfd, name);

	return kb_err_set(e,
	    "%s: %s; kinbox keeps a copy of each guarded git file to restore "
	    "it after a run without mounts, so nothing was run (use "
	    "--backend bwrap, or fix it)",
	    path, why);
}

static int
snap_dir(struct kb_gitsnap *s, int dfd, const char *name, struct node *nd,
    const struct stat *lst, int depth, struct kb_err *e)
{
	struct stat st;
	struct dirent *de;
	DIR *d;
	int fd;

	if (depth >= DEPTH_MAX)
		return snap_fail(e, dfd, name,
		    "directories nested more than 8 deep in a guarded one");
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1 || fstat(fd, &st) == -1 || st.st_dev != lst->st_dev ||
	    st.st_ino != lst->st_ino) {
		int errsv = errno;

		if (fd != -1)
			close(fd);
		return snap_fail(
		    e, dfd, name, fd == -1 ? strerror(errsv) : "changed");
	}
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return snap_fail(e, dfd, name, strerror(errno));
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (nd->nkids == DIR_MAX) {
			closedir(d);
			return snap_fail(e, dfd, name,
			    "more than 4096 entries in a guarded directory");
		}
		if ((nd->nkids & (nd->nkids - 1)) == 0 || nd->nkids == 0)
			nd->kids = xreallocarray(nd->kids,
			    nd->nkids ? nd->nkids * 2 : 16, sizeof(*nd->kids));
		memset(&nd->kids[nd->nkids], 0, sizeof(*nd->kids));
		nd->kids[nd->nkids++].name = xstrdup(de->d_name);
	}
	if (nd->nkids > 0)
		qsort(nd->kids, nd->nkids, sizeof(*nd->kids), by_name);
	for (size_t i = 0; i < nd->nkids; i++)
		if (snap_node(s, dirfd(d), nd->kids[i].name, &nd->kids[i],
			depth + 1, e) == -1) {
			closedir(d);
			return -1;
		}
	closedir(d);
	return 0;
}

static int
snap_node(struct kb_gitsnap *s, int dfd, const char *name, struct node *nd,
    int depth, struct kb_err *e)
{
	struct stat st, fst;
	char buf[PATH_MAX];
	ssize_t n;
	int fd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return snap_fail(e, dfd, name, strerror(errno));
	if (++s->nodes > NODES_MAX)
		return snap_fail(
		    e, dfd, name, "more than 16384 guarded entries in all");
	nd->mode = st.st_mode;
	nd->dev = st.st_dev;
	nd->ino = st.st_ino;
	nd->rdev = st.st_rdev;
	switch (st.st_mode & S_IFMT) {
	case S_IFREG:
		if ((unsigned long long)st.st_size > FILE_MAX)
			return snap_fail(e, dfd, name, "larger than 1 MiB");
		/* lstat'ed as a regular file: never a FIFO that blocks */
		fd = openat(dfd, name,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd == -1)
			return snap_fail(e, dfd, name, strerror(errno));
		if (fstat(fd, &fst) == -1 || fst.st_dev != st.st_dev ||
		    fst.st_ino != st.st_ino) {
			close(fd);
			return snap_fail(e, dfd, name, "changed while read");
		}
		nd->data = kb_read_fd(fd, FILE_MAX, &nd->len);
		close(fd);
		if (nd->data == NULL)
			return snap_fail(e, dfd, name,
			    errno == EFBIG ? "larger than 1 MiB"
					   : strerror(errno));
		s->bytes += nd->len;
		if (s->bytes > TOTAL_MAX)
			return snap_fail(e, dfd, name,
			    "more than 64 MiB of guarded files in all");
		return 0;
	case S_IFLNK:
		n = readlinkat(dfd, name, buf, sizeof(buf));
		if (n < 0 || (size_t)n >= sizeof(buf))
			return snap_fail(e, dfd, name,
			    n < 0 ? strerror(errno) : "symlink too long");
		nd->data = strndup(buf, (size_t)n);
		if (nd->data == NULL)
			die("out of memory");
		nd->len = (size_t)n;
		return 0;
	case S_IFDIR:
		return snap_dir(s, dfd, name, nd, &st, depth, e);
	default:
		/* FIFO, socket, device: type and mode, never opened */
		return 0;
	}
}

/* rel split into components; refuses ".", ".." and an empty one */
int
kb_snap_split_rel(struct sguard *sg, const char *rel)
{
	char *c, *save = NULL;

	sg->rel = xstrdup(rel);
	sg->buf = xstrdup(rel);
	for (c = strtok_r(sg->buf, "/", &save); c != NULL;
	     c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, ".") == 0 || strcmp(c, "..") == 0 ||
		    sg->ncomp == COMP_MAX)
			return -1;
		sg->comps[sg->ncomp++] = c;
	}
	return sg->ncomp == 0 ? -1 : 0;
}

/* is the path of `pin` (ncomp components) a proper prefix of sg's? */
static bool
pin_on_path(const struct sguard *pin, const struct sguard *sg)
{
	if (pin->root != sg->root || pin->ncomp >= sg->ncomp)
		return false;
	for (unsigned i = 0; i < pin->ncomp; i++)
		if (strcmp(pin->comps[i], sg->comps[i]) != 0)
			return false;
	return true;
}

static int
snap_guard(struct kb_gitsnap *s, const struct kb_guard *g, struct sguard *sg,
    int rootfd, struct kb_err *e)
{
	struct walk w;
	struct stat st;
	int rc = 0;

	if (walk_parent(s, sg, rootfd, &w) == -1) {
		if (w.err == ENOENT &&
		    (sg->kind == KB_GUARD_RO_ABSENT_DIR ||
			sg->kind == KB_GUARD_RO_ABSENT_FILE)) {
			sg->existed = w.at;
			walk_close(&w);
			return 0;
		}
		walk_close(&w);
		return kb_err_set(e,
		    "%s: %s on its path since kinbox looked at it (a "
		    "concurrent process?); nothing was run, run it again",
		    g->path,
		    w.err == EXDEV ? "a git dir was replaced"
				   : strerror(w.err));
	}
	if (fstatat(w.parent, w.base, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		if (errno == ENOENT && (sg->kind == KB_GUARD_RO_ABSENT_DIR ||
					   sg->kind == KB_GUARD_RO_ABSENT_FILE))
			sg->existed = sg->ncomp - 1;
		else
			rc = kb_err_set(e,
			    "%s: %s since kinbox looked at it (a concurrent "
			    "process?); nothing was run, run it again",
			    g->path, strerror(errno));
		walk_close(&w);
		return rc;
	}
	switch (sg->kind) {
	case KB_GUARD_RO_ABSENT_DIR:
	case KB_GUARD_RO_ABSENT_FILE:
		rc = kb_err_set(e,
		    "%s appeared since kinbox looked for it (a concurrent "
		    "process?); nothing was run, run it again",
		    g->path);
		break;
	case KB_GUARD_PIN_DIR:
	case KB_GUARD_RO:
		if ((st.st_mode & S_IFMT) != g->type || st.st_dev != g->dev ||
		    st.st_ino != g->ino) {
			rc = kb_err_set(e,
			    "%s was replaced since kinbox looked at it (a "
			    "concurrent process?); nothing was run, run it "
			    "again",
			    g->path);
			break;
		}
		sg->dev = st.st_dev;
		sg->ino = st.st_ino;
		sg->mode = st.st_mode;
		if (sg->kind == KB_GUARD_RO)
			rc = snap_node(s, w.parent, w.base, &sg->node, 0, e);
		break;
	case KB_GUARD_WATCH_ABSENT:
	case KB_GUARD_WATCH_LINK:
	case KB_GUARD_WATCH_NEWREPO:
	case KB_GUARD_WATCH_INDEX:
		break;
	}
	walk_close(&w);
	return rc;
}

/* the pinned git dirs on each guard's path, outermost first (the scan
 * adds a git dir before what lies in it) */
void
kb_snap_link_pins(struct kb_gitsnap *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct sguard *sg = &s->g[i];

		for (size_t j = 0; j < s->n; j++) {
			if (s->g[j].kind != KB_GUARD_PIN_DIR ||
			    !pin_on_path(&s->g[j], sg))
				continue;
			sg->pins = xreallocarray(
			    sg->pins, sg->npins + 1, sizeof(*sg->pins));
			sg->pindep = xreallocarray(
			    sg->pindep, sg->npins + 1, sizeof(*sg->pindep));
			sg->pins[sg->npins] = j;
			sg->pindep[sg->npins++] = s->g[j].ncomp;
		}
		/* sorted by depth: insertion sort, a handful at most */
		for (size_t a = 1; a < sg->npins; a++)
			for (size_t b = a;
			     b > 0 && sg->pindep[b - 1] > sg->pindep[b]; b--) {
				size_t t = sg->pins[b];
				unsigned d = sg->pindep[b];

				sg->pins[b] = sg->pins[b - 1];
				sg->pindep[b] = sg->pindep[b - 1];
				sg->pins[b - 1] = t;
				sg->pindep[b - 1] = d;
			}
	}
}

int
kb_gitguard_snapshot(
    const struct kb_policy *p, struct kb_gitsnap **out, struct kb_err *e)
{
	struct kb_gitsnap *s = xcalloc(1, sizeof(*s));
	int fds[KB_MAX_ROOTS];
	int rc = 0;

	*out = NULL;
	s->nroots = kb_policy_roots(p, s->roots);
	s->nguard = p->nguard;
	for (size_t r = 0; r < s->nroots; r++)
		fds[r] = -1;
	for (size_t i = 0; i < p->nguard; i++)
		if (is_guarded_kind(p->guard[i].kind))
			s->n++;
	s->g = xcalloc(s->n ? s->n : 1, sizeof(*s->g));
	s->n = 0;
	for (size_t i = 0; i < p->nguard && rc == 0; i++) {
		const struct kb_guard *g = &p->guard[i];
		struct sguard *sg;
		size_t r;

		if (!is_guarded_kind(g->kind))
			continue;
		sg = &s->g[s->n++];
		sg->gi = i;
		sg->kind = g->kind;
		for (r = 0; r < s->nroots && s->roots[r] != g->root; r++)
			;
		if (r == s->nroots || kb_snap_split_rel(sg, g->rel) == -1) {
			rc = kb_err_set(e,
			    "%s: not a path below a writable root; nothing "
			    "was run (report this)",
			    g->path);
			break;
		}
		sg->root = r;
		sg->dev = g->dev;
		sg->ino = g->ino;
		sg->path = xstrdup(g->path);
		sg->include = g->include;
	}
	if (rc == 0)
		kb_snap_link_pins(s);
	for (size_t r = 0; r < s->nroots && rc == 0; r++) {
		struct stat st;

		fds[r] = root_fd(p, s->roots[r]);
		if (fds[r] == -1 || fstat(fds[r], &st) == -1) {
			rc = kb_err_set(e, "%s: %s; nothing was run",
			    s->roots[r], strerror(errno));
			break;
		}
		s->rdev[r] = st.st_dev;
		s->rino[r] = st.st_ino;
	}
	for (size_t i = 0; i < s->n && rc == 0; i++)
		rc = snap_guard(
		    s, &p->guard[s->g[i].gi], &s->g[i], fds[s->g[i].root], e);
	for (size_t r = 0; r < s->nroots; r++)
		if (fds[r] != -1)
			close(fds[r]);
	if (rc == -1) {
		kb_gitsnap_free(s);
		return -1;
	}
	*out = s;
	return 0;
}

/* --- the restore --------------------------------------------------------- */

/* Creates `nd` as dfd/name, which must not exist (O_EXCL, mkdirat...):
 * a directory with all its entries. 0, or -1 with errno. */
static int
create_node(int dfd, const char *name, const struct node *nd)
{
	int fd, errsv;
	size_t off = 0;

	switch (nd->mode & S_IFMT) {
	case S_IFREG:
		fd = openat(dfd, name,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd == -1)
			return -1;
		while (off < nd->len) {
			ssize_t w = write(fd, nd->data + off, nd->len - off);

			if (w == -1 && errno == EINTR)
				continue;
			if (w <= 0)
				goto fail_fd;
			off += (size_t)w;
		}
		if (fchmod(fd, nd->mode & 07777) == -1)
			goto fail_fd;
		close(fd);
		return 0;
	case S_IFLNK:
		return symlinkat(nd->data, dfd, name);
	case S_IFDIR:
		if (mkdirat(dfd, name, 0700) == -1)
			return -1;
		fd = openat(
		    dfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1)
			return -1;
		for (size_t i = 0; i < nd->nkids; i++)
			if (create_node(fd, nd->kids[i].name, &nd->kids[i]) ==
			    -1)
				goto fail_fd;
		if (kb_chmod_fd(fd, nd->mode & 07777) == -1)
			goto fail_fd;
		close(fd);
		return 0;
	case S_IFIFO:
		if (mkfifoat(dfd, name, 0600) == -1)
			return -1;
		fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1)
			return -1;
		if (kb_chmod_fd(fd, nd->mode & 07777) == -1)
			goto fail_fd;
		close(fd);
		return 0;
	default:
		errno = EPERM; /* a socket or a device: not kinbox's to make */
		return -1;
	}
fail_fd:
	errsv = errno;
	close(fd);
	errno = errsv;
	return -1;
}

/* Removes what create_node made (and no more: only the names `nd` has). */
static void
remove_built(int dfd, const char *name, const struct node *nd)
{
	if (S_ISDIR(nd->mode)) {
		int fd = openat(
		    dfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (fd != -1) {
			kb_chmod_fd(fd, 0700);
			for (size_t i = 0; i < nd->nkids; i++)
				remove_built(
				    fd, nd->kids[i].name, &nd->kids[i]);
			close(fd);
		}
		unlinkat(dfd, name, AT_REMOVEDIR);
		return;
	}
	unlinkat(dfd, name, 0);
}

/* `nd` built under a new temporary name in dfd; the name, or NULL */
static char *
build_tmp(int dfd, const struct node *nd)
{
	for (unsigned tries = 0; tries < 16; tries++) {
		/* random: a name the command could plant in advance would
		 * make the restore fail (O_EXCL refuses it, never follows) */
		char *tmp = xasprintf(".kinbox-restore.%ld.%016llx",
		    (long)getpid(), kb_random_u64());

		if (create_node(dfd, tmp, nd) == 0)
			return tmp;
		if (errno != EEXIST) {
			int errsv = errno;

			remove_built(dfd, tmp, nd);
			free(tmp);
			errno = errsv;
			return NULL;
		}
		free(tmp);
	}
	errno = EEXIST;
	return NULL;
}

/*
 * Puts `nd` at dfd/name: built under a temporary name, what is at the name
 * now (when `exists`) moved aside, the temporary renamed into place
 * without replacing anything. 0 with *q the evidence's name (NULL when
 * nothing was there), or -1 with *why saying what failed.
 */
static int
put_node(int dfd, const char *name, const struct node *nd, bool exists,
    char **q, const char **why)
{
	_cleanup_free_ char *tmp = build_tmp(dfd, nd);

	*q = NULL;
	if (tmp == NULL) {
		*why = errno == EPERM && !S_ISREG(nd->mode) &&
			       !S_ISDIR(nd->mode) && !S_ISLNK(nd->mode)
			   ? "a socket or device cannot be recreated"
			   : strerror(errno);
		return -1;
	}
	if (exists && (*q = kb_quarantine_any_at(dfd, name)) == NULL) {
		*why = strerror(errno);
		remove_built(dfd, tmp, nd);
		return -1;
	}
	if (syscall(SYS_renameat2, dfd, tmp, dfd, name, RENAME_NOREPLACE) ==
	    -1) {
		*why = strerror(errno);
		remove_built(dfd, tmp, nd);
		return -1;
	}
	return 0;
}

/* Does the regular file dfd/name (lstat'ed as `st`) hold nd's bytes? */
static bool
same_bytes(
    int dfd, const char *name, const struct stat *st, const struct node *nd)
{
	struct stat fst;
	char *buf;
	size_t got = 0;
	bool same;
	int fd;

	if ((size_t)st->st_size != nd->len)
		return false;
	fd = openat(dfd, name,
	    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd == -1)
		return false; /* unreadable now (mode 0): written anew */
	if (fstat(fd, &fst) == -1 || !S_ISREG(fst.st_mode) ||
	    fst.st_ino != st->st_ino || fst.st_dev != st->st_dev) {
		close(fd);
		return false;
	}
	buf = xmalloc(nd->len + 1);
	while (got < nd->len + 1) {
		ssize_t n = read(fd, buf + got, nd->len + 1 - got);

		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	same = got == nd->len && memcmp(buf, nd->data, nd->len) == 0;
	free(buf);
	close(fd);
	return same;
}

/* chmod dfd/name (lstat'ed as `st`, no symlink) through its descriptor */
static int
chmod_at(int dfd, const char *name, const struct stat *st, mode_t mode)
{
	struct stat fst;
	int fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	int rc = -1;

	if (fd == -1)
		return -1;
	if (fstat(fd, &fst) == 0 && fst.st_ino == st->st_ino &&
	    fst.st_dev == st->st_dev &&
	    (fst.st_mode & S_IFMT) == (st->st_mode & S_IFMT))
		rc = kb_chmod_fd(fd, mode);
	else
		errno = ESTALE;
	{
		int errsv = errno;

		close(fd);
		errno = errsv;
	}
	return rc;
}

/* "a symlink to X", "a FIFO", ... for what is at dfd/name */
static char *
describe(int dfd, const char *name, const struct stat *st)
{
	char buf[PATH_MAX];
	ssize_t n;

	if (S_ISLNK(st->st_mode) &&
	    (n = readlinkat(dfd, name, buf, sizeof(buf) - 1)) >= 0) {
		buf[n] = '\0';
		return xasprintf("a symlink (to %s)", buf);
	}
	return xstrdup(type_name(st->st_mode));
}

/* Moves dfd/name aside as something the command made; 1 (a finding).
 * `why`, when not NULL, ends the line. */
static int
move_new(int dfd, const char *name, const struct stat *st, report_fn report,
    const char *why)
{
	_cleanup_free_ char *path = kb_fd_path_at(dfd, name);
	_cleanup_free_ char *desc = describe(dfd, name, st);
	_cleanup_free_ char *q = NULL;
	_cleanup_free_ char *qpath = NULL;
	const char *sep = why != NULL ? ": " : "";

	why = why != NULL ? why : "";
	/* an empty directory or file holds no evidence */
	if ((S_ISDIR(st->st_mode) && unlinkat(dfd, name, AT_REMOVEDIR) == 0) ||
	    (S_ISREG(st->st_mode) && st->st_size == 0 &&
		unlinkat(dfd, name, 0) == 0)) {
		reportf(report,
		    "%s (empty %s) was created during the run; "
		    "removed%s%s",
		    path, S_ISDIR(st->st_mode) ? "directory" : "file", sep,
		    why);
		return 1;
	}
	if ((q = kb_quarantine_any_at(dfd, name)) != NULL) {
		qpath = kb_fd_path_at(dfd, q);
		reportf(report,
		    "%s (%s) was created during the run; removed (moved aside "
		    "to %s)%s%s",
		    path, desc, qpath, sep, why);
		return 1;
	}
	if (!S_ISDIR(st->st_mode) && unlinkat(dfd, name, 0) == 0) {
		reportf(report,
		    "%s (%s) was created during the run; removed (it could not "
		    "be moved aside)%s%s",
		    path, desc, sep, why);
		return 1;
	}
	reportf(report,
	    "%s (%s) was created during the run and could not be moved aside "
	    "(%s): remove it before running git here%s%s",
	    path, desc, strerror(errno), sep, why);
	return 1;
}

static int restore_at(
    int dfd, const char *name, const struct node *nd, report_fn report);

/*
 * The entries of the directory `fd` (O_PATH) put back to nd's: new ones
 * moved aside, the others restored. -1 when it holds too many entries to
 * look at (the caller replaces it whole), else the findings.
 */
static int
restore_kids(int fd, const struct node *nd, report_fn report)
{
	struct kb_strv names = {0};
	struct dirent *de;
	int rfd, found = 0;
	DIR *d;

	rfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rfd == -1 || (d = fdopendir(rfd)) == NULL) {
		_cleanup_free_ char *path = kb_fd_path(fd);

		if (rfd != -1)
			close(rfd);
		reportf(report,
		    "%s cannot be read after the run (%s); its entries were "
		    "not restored, check it before running git here",
		    path, strerror(errno));
		return 1;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (names.n >= nd->nkids + EXTRA_MAX) {
			closedir(d);
			kb_strv_free(&names);
			return -1;
		}
		kb_strv_push(&names, de->d_name);
	}
	closedir(d);
	/* the names are read first: renames while reading would skip some */
	for (size_t i = 0; i < names.n; i++) {
		struct node key = {.name = names.v[i]};
		struct stat st;

		if (nd->nkids > 0 && bsearch(&key, nd->kids, nd->nkids,
					 sizeof(*nd->kids), by_name) != NULL)
			continue;
		if (fstatat(fd, names.v[i], &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		found += move_new(fd, names.v[i], &st, report, NULL);
	}
	kb_strv_free(&names);
	for (size_t i = 0; i < nd->nkids; i++)
		found += restore_at(fd, nd->kids[i].name, &nd->kids[i], report);
	return found;
}

/* nd put at dfd/name, replacing what is there (`st`, NULL: nothing) */
static int
replace(int dfd, const char *name, const struct node *nd, const struct stat *st,
    report_fn report, const char *what)
{
	_cleanup_free_ char *path = kb_fd_path_at(dfd, name);
	_cleanup_free_ char *q = NULL;
	_cleanup_free_ char *qpath = NULL;
	const char *why = NULL;

	if (put_node(dfd, name, nd, st != NULL, &q, &why) == -1) {
		reportf(report,
		    "%s %s during the run; it could not be restored (%s): "
		    "check it before running git here",
		    path, what, why);
		return 1;
	}
	if (q == NULL) {
		reportf(report, "%s %s during the run; recreated", path, what);
		return 1;
	}
	qpath = kb_fd_path_at(dfd, q);
	reportf(report,
	    "%s %s during the run; restored (the command's version moved "
	    "aside to %s)",
	    path, what, qpath);
	return 1;
}

static int
restore_mode(int dfd, const char *name, const struct node *nd,
    const struct stat *st, report_fn report)
{
	_cleanup_free_ char *path = kb_fd_path_at(dfd, name);

	if (chmod_at(dfd, name, st, nd->mode & 07777) == 0)
		reportf(report,
		    "the mode of %s was changed during the run (%04o, was "
		    "%04o); restored",
		    path, (unsigned)(st->st_mode & 07777),
		    (unsigned)(nd->mode & 07777));
	else
		reportf(report,
		    "the mode of %s was changed during the run (%04o, was "
		    "%04o); it could not be restored (%s): check it before "
		    "running git here",
		    path, (unsigned)(st->st_mode & 07777),
		    (unsigned)(nd->mode & 07777), strerror(errno));
	return 1;
}

/*
 * Puts dfd/name back to nd; the findings. Only the snapshot's own inode
 * is changed in place (its mode, a directory's entries): anything else at
 * the name (a copy, a hard link to a file elsewhere, another directory)
 * is moved aside and nd recreated, so that nothing outside is touched.
 */
static int
restore_at(int dfd, const char *name, const struct node *nd, report_fn report)
{
	struct stat st;
	bool same;
	int found = 0;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return replace(dfd, name, nd, NULL, report, "was removed");
	same = st.st_dev == nd->dev && st.st_ino == nd->ino;
	if ((st.st_mode & S_IFMT) != (nd->mode & S_IFMT)) {
		_cleanup_free_ char *desc = describe(dfd, name, &st);
		_cleanup_free_ char *what = xasprintf(
		    "(%s) was replaced by %s", type_name(nd->mode), desc);

		return replace(dfd, name, nd, &st, report, what);
	}
	switch (nd->mode & S_IFMT) {
	case S_IFREG:
		/* the mode first: a file made mode 0 is read again after */
		if (same && (st.st_mode & 07777) != (nd->mode & 07777)) {
			found += restore_mode(dfd, name, nd, &st, report);
			if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
				return found + replace(dfd, name, nd, NULL,
						   report, "was removed");
		}
		if (!same_bytes(dfd, name, &st, nd))
			return found + replace(dfd, name, nd, &st, report,
					   "was changed");
		break;
	case S_IFLNK: {
		char buf[PATH_MAX];
		ssize_t n = readlinkat(dfd, name, buf, sizeof(buf) - 1);
		_cleanup_free_ char *what = NULL;

		if (n >= 0 && (size_t)n == nd->len &&
		    memcmp(buf, nd->data, nd->len) == 0)
			return 0; /* a symlink's mode means nothing */
		buf[n < 0 ? 0 : n] = '\0';
		what = xasprintf(
		    "(a symlink to %s) was pointed to %s", nd->data, buf);
		return replace(dfd, name, nd, &st, report, what);
	}
	case S_IFCHR:
	case S_IFBLK:
		if (st.st_rdev != nd->rdev)
			return replace(dfd, name, nd, &st, report,
			    "(a device) was replaced by another device");
		break;
	case S_IFDIR:
		if (!same)
			return replace(dfd, name, nd, &st, report,
			    "was replaced by another directory");
		break;
	default:
		break;
	}
	if ((st.st_mode & 07777) != (nd->mode & 07777) && found == 0) {
		if (!same) {
			_cleanup_free_ char *what = xasprintf(
			    "was replaced by another %s (mode %04o, was %04o)",
			    S_ISREG(st.st_mode)    ? "file"
			    : S_ISDIR(st.st_mode)  ? "directory"
			    : S_ISFIFO(st.st_mode) ? "FIFO"
						   : "entry",
			    (unsigned)(st.st_mode & 07777),
			    (unsigned)(nd->mode & 07777));

			return replace(dfd, name, nd, &st, report, what);
		}
		found += restore_mode(dfd, name, nd, &st, report);
	}
	if (S_ISDIR(nd->mode)) {
		struct stat fst;
		int fd = openat(
		    dfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int k;

		if (fd == -1 || fstat(fd, &fst) == -1 ||
		    fst.st_ino != st.st_ino || fst.st_dev != st.st_dev) {
			if (fd != -1)
				close(fd);
			return found + replace(dfd, name, nd, &st, report,
					   "was replaced");
		}
		k = restore_kids(fd, nd, report);
		close(fd);
		if (k == -1)
			return found + replace(dfd, name, nd, &st, report,
					   "was filled with more than 4096 new "
					   "entries");
		found += k;
	}
	return found;
}

/* The name in dfd (O_PATH) of the entry with this identity, other than
 * `skip`; NULL when none of the first SEARCH_MAX entries has it. */
static char *
find_moved(int dfd, const char *skip, dev_t dev, ino_t ino, mode_t type)
{
	int rfd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	unsigned n = 0;
	char *found = NULL;
	DIR *d;

	if (rfd == -1)
		return NULL;
	if ((d = fdopendir(rfd)) == NULL) {
		close(rfd);
		return NULL;
	}
	while (found == NULL && (de = readdir(d)) != NULL && n++ < SEARCH_MAX) {
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    strcmp(de->d_name, skip) == 0)
			continue;
		if (de->d_type != DT_UNKNOWN &&
		    de->d_type != (type == S_IFDIR ? DT_DIR : DT_REG))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ==
			0 &&
		    st.st_dev == dev && st.st_ino == ino &&
		    (st.st_mode & S_IFMT) == type)
			found = xstrdup(de->d_name);
	}
	closedir(d);
	return found;
}

/*
 * The scanned entry moved to another name in its directory during the run
 * (mv .git .git2): what took its name (if anything) moved aside, the
 * original renamed back. 1 when it did, 0 when it is not there, -1 when it
 * is there but could not be put back (reported).
 */
static int
move_back(int parent, const char *base, const struct sguard *sg, mode_t type,
    const struct stat *cur, report_fn report)
{
	_cleanup_free_ char *orig =
	    find_moved(parent, base, sg->dev, sg->ino, type);
	_cleanup_free_ char *path = NULL;
	_cleanup_free_ char *opath = NULL;
	_cleanup_free_ char *desc = NULL;
	_cleanup_free_ char *q = NULL;
	_cleanup_free_ char *qpath = NULL;

	if (orig == NULL)
		return 0;
	path = kb_fd_path_at(parent, base);
	opath = kb_fd_path_at(parent, orig);
	desc = cur ? describe(parent, base, cur) : NULL;
	if (cur != NULL && (q = kb_quarantine_any_at(parent, base)) == NULL) {
		reportf(report,
		    "%s was moved to %s during the run and %s put in its "
		    "place, which could not be moved aside (%s): nothing was "
		    "restored, check it before running git here",
		    path, opath, desc, strerror(errno));
		return -1;
	}
	if (syscall(SYS_renameat2, parent, orig, parent, base,
		RENAME_NOREPLACE) == -1) {
		reportf(report,
		    "%s was moved to %s during the run; it could not be moved "
		    "back (%s): check it before running git here",
		    path, opath, strerror(errno));
		return -1;
	}
	if (q != NULL) {
		qpath = kb_fd_path_at(parent, q);
		reportf(report,
		    "%s was moved to %s during the run and %s put in its "
		    "place; moved back, the replacement moved aside to %s",
		    path, opath, desc, qpath);
	} else {
		reportf(report, "%s was moved to %s during the run; moved back",
		    path, opath);
	}
	return 1;
}

/* a guard whose path could not be walked: reported unless a git dir on
 * the way was reported already */
static int
walk_failed(const struct kb_gitsnap *s, const struct sguard *sg,
    const struct walk *w, report_fn report)
{
	for (size_t i = 0; i < sg->npins; i++)
		if (s->g[sg->pins[i]].failed)
			return 0;
	if (w->err == ENOENT && (sg->kind == KB_GUARD_RO_ABSENT_DIR ||
				    sg->kind == KB_GUARD_RO_ABSENT_FILE))
		return 0; /* still absent */
	/* a symlink or file planted where nothing was: git would follow
	 * it to reach the guarded name */
	if ((w->err == ELOOP || w->err == ENOTDIR) && w->atfd != -1 &&
	    (sg->kind == KB_GUARD_RO_ABSENT_DIR ||
		sg->kind == KB_GUARD_RO_ABSENT_FILE) &&
	    w->at >= sg->existed) {
		struct stat st;
		_cleanup_free_ char *why = xasprintf(
		    "it lay on the path of %s, which did not exist", sg->path);

		if (fstatat(w->atfd, sg->comps[w->at], &st,
			AT_SYMLINK_NOFOLLOW) == 0)
			return move_new(
			    w->atfd, sg->comps[w->at], &st, report, why);
	}
	{
		_cleanup_free_ char *at =
		    w->atfd != -1 ? kb_fd_path_at(w->atfd, sg->comps[w->at])
				  : xstrdup(s->roots[sg->root]);

		reportf(report,
		    "%s: %s on its path was %s during the run; nothing below "
		    "it was touched, check it before running git here",
		    sg->path, at,
		    w->err == ENOENT    ? "removed"
		    : w->err == ELOOP   ? "replaced by a symlink"
		    : w->err == ENOTDIR ? "replaced by something that is no "
					  "directory"
		    : w->err == EXDEV   ? "replaced by another git dir"
					: strerror(w->err));
	}
	return 1;
}

/* A pinned directory: put back where it was. When it cannot be, and it
 * is not a git dir but a directory on an include's way (`include`), what
 * took its name is moved aside: git then finds no file there to read. */
static int
restore_pin(
    struct sguard *sg, const struct walk *w, bool include, report_fn report)
{
	struct stat st;
	bool exists =
	    fstatat(w->parent, w->base, &st, AT_SYMLINK_NOFOLLOW) == 0;
	_cleanup_free_ char *path = NULL;
	_cleanup_free_ char *desc = NULL;
	int m;

	if (exists && S_ISDIR(st.st_mode) && st.st_dev == sg->dev &&
	    st.st_ino == sg->ino) {
		/* git needs to search it, and so does the restore below */
		struct node nd = {.mode = sg->mode};

		if ((st.st_mode & 07777) == (sg->mode & 07777))
			return 0;
		return restore_mode(w->parent, w->base, &nd, &st, report);
	}
	m = move_back(
	    w->parent, w->base, sg, S_IFDIR, exists ? &st : NULL, report);
	if (m == 1)
		return 1;
	sg->failed = true;
	if (m == -1)
		return 1;
	path = kb_fd_path_at(w->parent, w->base);
	if (!exists) {
		reportf(report,
		    "the %s %s was removed or moved out of its directory "
		    "during the run; nothing was restored below it (find it "
		    "by its inode, %llu)",
		    include ? "directory" : "git dir", path,
		    (unsigned long long)sg->ino);
		return 1;
	}
	if (include)
		return move_new(w->parent, w->base, &st, report,
		    "it took the place of a directory on the way to a config "
		    "file git includes, which was moved out of its "
		    "directory");
	desc = describe(w->parent, w->base, &st);
	if (S_ISDIR(st.st_mode)) {
		sg->verdict = V_NEWREPO;
		sg->ndev = st.st_dev;
		sg->nino = st.st_ino;
	}
	reportf(report,
	    "the git dir %s was replaced by %s during the run and the "
	    "original is not in its directory: left alone, nothing was "
	    "restored below it; check it before running git here (the "
	    "original's inode was %llu)",
	    path, desc, (unsigned long long)sg->ino);
	return 1;
}

static int
restore_ro(struct sguard *sg, const struct walk *w, report_fn report)
{
	mode_t type = sg->node.mode & S_IFMT;
	struct stat st;
	bool exists =
	    fstatat(w->parent, w->base, &st, AT_SYMLINK_NOFOLLOW) == 0;
	int found = 0;

	/* not the scanned entry: moved aside within its directory? */
	if ((type == S_IFDIR || type == S_IFREG) &&
	    (!exists || st.st_dev != sg->dev || st.st_ino != sg->ino)) {
		int m = move_back(
		    w->parent, w->base, sg, type, exists ? &st : NULL, report);

		if (m == -1)
			return 1;
		found += m;
	}
	return found + restore_at(w->parent, w->base, &sg->node, report);
}

static int
restore_absent(struct sguard *sg, const struct walk *w, report_fn report)
{
	struct stat st;

	if (fstatat(w->parent, w->base, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return 0;
	return move_new(w->parent, w->base, &st, report,
	    sg->kind == KB_GUARD_RO_ABSENT_DIR
		? "there was none before the run (git would run hooks from it)"
		: "there was none before the run (git would obey it)");
}

/* the order of the restore: git dirs first, outermost first; then the
 * rest, outermost first (a guard's git dirs are back before it is) */
static int
by_order(const void *a, const void *b, void *ctx)
{
	const struct kb_gitsnap *s = ctx;
	const struct sguard *x = &s->g[*(const size_t *)a];
	const struct sguard *y = &s->g[*(const size_t *)b];
	int px = x->kind != KB_GUARD_PIN_DIR, py = y->kind != KB_GUARD_PIN_DIR;

	if (px != py)
		return px - py;
	if (x->ncomp != y->ncomp)
		return x->ncomp < y->ncomp ? -1 : 1;
	return x->gi < y->gi ? -1 : x->gi > y->gi;
}

int
kb_snap_restore_fds(struct kb_gitsnap *s, const int *fds,
    const struct kb_policy *p, report_fn report)
{
	size_t *order;
	int found = 0;

	order = xcalloc(s->n ? s->n : 1, sizeof(*order));
	for (size_t i = 0; i < s->n; i++)
		order[i] = i;
	if (s->n > 1)
		qsort_r(order, s->n, sizeof(*order), by_order, s);
	for (size_t k = 0; k < s->n; k++) {
		struct sguard *sg = &s->g[order[k]];
		struct walk w;

		if (fds[sg->root] == -1 ||
		    (p != NULL && strcmp(p->guard[sg->gi].rel, sg->rel) != 0))
			continue;
		sg->verdict = V_JUDGED;
		if (walk_parent(s, sg, fds[sg->root], &w) == -1) {
			if (sg->kind == KB_GUARD_PIN_DIR)
				sg->failed = true;
			found += walk_failed(s, sg, &w, report);
			walk_close(&w);
			continue;
		}
		switch (sg->kind) {
		case KB_GUARD_PIN_DIR:
			found += restore_pin(sg, &w, sg->include, report);
			break;
		case KB_GUARD_RO:
			found += restore_ro(sg, &w, report);
			break;
		case KB_GUARD_RO_ABSENT_DIR:
		case KB_GUARD_RO_ABSENT_FILE:
			found += restore_absent(sg, &w, report);
			break;
		case KB_GUARD_WATCH_ABSENT:
		case KB_GUARD_WATCH_LINK:
		case KB_GUARD_WATCH_NEWREPO:
		case KB_GUARD_WATCH_INDEX:
			break;
		}
		walk_close(&w);
	}
	free(order);
	return found;
}

int
kb_gitguard_restore(const struct kb_policy *p, struct kb_gitsnap *s,
    void (*report)(const char *, bool))
{
	int fds[KB_MAX_ROOTS];
	int found = 0;

	if (s == NULL)
		return 0;
	if (s->nguard != p->nguard) {
		reportf(report, "the git guards were not restored: the "
				"snapshot is not this run's (report this)");
		return 1;
	}
	for (size_t r = 0; r < s->nroots; r++) {
		struct stat st;

		fds[r] = root_fd(p, s->roots[r]);
		if (fds[r] != -1 &&
		    (fstat(fds[r], &st) == -1 || st.st_dev != s->rdev[r] ||
			st.st_ino != s->rino[r])) {
			close(fds[r]);
			fds[r] = -1;
			errno = ESTALE;
		}
		if (fds[r] == -1) {
			bool any = false;

			for (size_t i = 0; i < s->n; i++)
				any = any || s->g[i].root == r;
			if (any) {
				reportf(report,
				    "%s cannot be opened after the run (%s); "
				    "the git metadata in it was not restored, "
				    "check it before running git there",
				    s->roots[r], strerror(errno));
				found++;
			}
		}
	}
	found += kb_snap_restore_fds(s, fds, p, report);
	for (size_t r = 0; r < s->nroots; r++)
		if (fds[r] != -1)
			close(fds[r]);
	return found;
}

enum kb_gitsnap_verdict
kb_gitsnap_verdict(const struct kb_gitsnap *s, const struct kb_policy *p,
    size_t guard, dev_t *dev, ino_t *ino)
{
	const struct kb_guard *g;
	size_t r;

	if (s == NULL || guard >= p->nguard || s->nguard != p->nguard)
		return KB_SNAP_UNJUDGED;
	for (size_t i = 0; i < s->n; i++) {
		if (s->g[i].gi != guard)
			continue;
		switch (s->g[i].verdict) {
		case V_NEWREPO:
			*dev = s->g[i].ndev;
			*ino = s->g[i].nino;
			return KB_SNAP_NEWREPO;
		case V_JUDGED:
			return KB_SNAP_JUDGED;
		case V_NONE:
			break;
		}
		return KB_SNAP_UNJUDGED;
	}
	/* a guard of the audit's below a git dir that is gone or a symlink
	 * now: the restore said so, and nothing below it is looked at */
	g = &p->guard[guard];
	for (r = 0; r < s->nroots && s->roots[r] != g->root; r++)
		;
	for (size_t i = 0; i < s->n; i++) {
		const struct sguard *pin = &s->g[i];
		size_t len = strlen(pin->rel);

		if (pin->kind == KB_GUARD_PIN_DIR && pin->failed &&
		    pin->verdict != V_NEWREPO && pin->root == r &&
		    strncmp(g->rel, pin->rel, len) == 0 && g->rel[len] == '/')
			return KB_SNAP_JUDGED;
	}
	return KB_SNAP_UNJUDGED;
}
