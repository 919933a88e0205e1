/*
 * gitguard/snapstore.c — the landlock backend's git snapshot kept on disk,
 * so that a run that dies before its restore (kinbox killed by SIGKILL, a
 * machine that stops) still has its guards put back: by the next kinbox
 * start in that workspace, whatever its backend, before anything runs.
 *
 *   $XDG_STATE_HOME/kinbox/gitsnap/<dev>-<ino>-<hash>.<random>
 *   (~/.local/state/kinbox/gitsnap/ without XDG_STATE_HOME)
 *
 * <dev>-<ino>-<hash> names the workspace (its device, inode and a hash of
 * its path), <random> the run: concurrent runs in one workspace keep one
 * file each. The directory is 0700 and each file 0600; kinbox's state store
 * lies outside every writable root (kb_config_check_stores), so no sandbox
 * can write it, and a file holds what the snapshot holds, bounded as it is
 * (gitguard/snap.c: 64 MiB of bytes, 16384 entries).
 *
 * A run writes its file (complete under a dot-name, renamed into place)
 * before the command starts and holds it locked (flock) while any process
 * of the run lives: kinbox, and the landlock backend's keeper, which keeps
 * the descriptor until the tree is dead (backends/keeper.c). After a normal
 * restore kinbox removes it. Another run takes a file only when it gets the
 * lock: a live run's is never touched.
 *
 * The restore from a file is the one a run does after itself
 * (kb_snap_restore_fds): every root is opened from / without following a
 * symlink and must still be the directory the snapshot saw (dev/ino), and
 * everything below is reached through descriptors (STYLE 3.11).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../lib/fsat.h"
#include "../profile/runs.h"
#include "snap-int.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

#define MAGIC     "KBGSNAP1"
#define STORE     "gitsnap"
#define FILE_SIZE ((size_t)TOTAL_MAX + (64u << 20)) /* bytes + metadata */
#define LINE_MAX_ 4096 /* the one line reporting a dead run's leftovers */

/* --- the name ------------------------------------------------------------ */

static uint64_t
fnv1a(const char *s)
{
	uint64_t h = 14695981039346656037ULL;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* "<dev>-<ino>-<hash>" of the workspace (opened without following a
 * symlink), or -1 with errno */
static int
ws_key(const char *workspace, char *out, size_t n)
{
	struct stat st;
	int fd = kb_open_dir_nofollow(workspace);

	if (fd == -1)
		return -1;
	if (fstat(fd, &st) == -1) {
		int errsv = errno;

		close(fd);
		errno = errsv;
		return -1;
	}
	close(fd);
	snprintf(out, n, "%llx-%llx-%016llx", (unsigned long long)st.st_dev,
	    (unsigned long long)st.st_ino,
	    (unsigned long long)fnv1a(workspace));
	return 0;
}

/* --- writing ------------------------------------------------------------- */

static void
put_u64(struct kb_buf *b, uint64_t v)
{
	kb_buf_add(b, (const char *)&v, sizeof(v));
}

static void
put_mem(struct kb_buf *b, const char *s, size_t n)
{
	put_u64(b, s == NULL ? UINT64_MAX : (uint64_t)n);
	if (s != NULL && n > 0)
		kb_buf_add(b, s, n);
}

static void
put_str(struct kb_buf *b, const char *s)
{
	put_mem(b, s, s == NULL ? 0 : strlen(s));
}

static void
put_node(struct kb_buf *b, const struct node *nd)
{
	put_str(b, nd->name);
	put_u64(b, nd->mode);
	put_u64(b, nd->dev);
	put_u64(b, nd->rdev);
	put_u64(b, nd->ino);
	put_mem(b, nd->data, nd->len);
	put_u64(b, nd->nkids);
	for (size_t i = 0; i < nd->nkids; i++)
		put_node(b, &nd->kids[i]);
}

static void
encode(struct kb_buf *b, const char *workspace, const struct kb_gitsnap *s)
{
	kb_buf_add(b, MAGIC, 8);
	put_str(b, workspace);
	put_u64(b, s->nroots);
	for (size_t r = 0; r < s->nroots; r++) {
		put_str(b, s->roots[r]);
		put_u64(b, s->rdev[r]);
		put_u64(b, s->rino[r]);
	}
	put_u64(b, s->n);
	for (size_t i = 0; i < s->n; i++) {
		const struct sguard *sg = &s->g[i];

		put_u64(b, (uint64_t)sg->kind);
		put_u64(b, sg->root);
		put_str(b, sg->rel);
		put_str(b, sg->path);
		put_u64(b, sg->include);
		put_u64(b, sg->dev);
		put_u64(b, sg->ino);
		put_u64(b, sg->mode);
		put_u64(b, sg->existed);
		put_node(b, &sg->node);
	}
}

static int
write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int
kb_gitsnap_persist(const struct kb_policy *p, const struct kb_gitsnap *s,
    struct kb_gitsnap_file *f, struct kb_err *e)
{
	char key[80], tmp[sizeof(f->name) + 1];
	_cleanup_free_ char *dir = NULL;
	struct kb_buf b = {0};
	int errsv;

	f->dirfd = f->fd = -1;
	f->name[0] = '\0';
	if (s == NULL || s->n == 0)
		return 0; /* nothing guarded: nothing to put back */
	if (p->workspace == NULL ||
	    ws_key(p->workspace, key, sizeof(key)) == -1)
		return kb_err_set(e, "%s: %s",
		    p->workspace ? p->workspace : "the workspace",
		    strerror(errno));
	if ((f->dirfd = kb_state_subdir(p->home, STORE, true, &dir, e)) < 0) {
		if (f->dirfd == -2)
			kb_err_set(e, "no state directory (no XDG_STATE_HOME "
				      "or home)");
		f->dirfd = -1;
		return -1;
	}
	snprintf(f->name, sizeof(f->name), "%s.%016llx", key,
	    (unsigned long long)kb_random_u64());
	snprintf(tmp, sizeof(tmp), ".%s", f->name);
	f->fd = openat(f->dirfd, tmp,
	    O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (f->fd == -1) {
		errsv = errno;
		goto fail;
	}
	encode(&b, p->workspace, s);
	/* locked before the name exists: a run that finds it can tell */
	if (flock(f->fd, LOCK_EX) == -1 || write_all(f->fd, b.s, b.len) == -1 ||
	    syscall(SYS_renameat2, f->dirfd, tmp, f->dirfd, f->name,
		RENAME_NOREPLACE) == -1) {
		errsv = errno;
		unlinkat(f->dirfd, tmp, 0);
		goto fail;
	}
	kb_buf_free(&b);
	return 0;
fail:
	kb_buf_free(&b);
	if (f->fd != -1)
		close(f->fd);
	close(f->dirfd);
	f->fd = f->dirfd = -1;
	return kb_err_set(e, "%s/%s: %s", dir, tmp, strerror(errsv));
}

void
kb_gitsnap_forget(struct kb_gitsnap_file *f)
{
	if (f->fd == -1)
		return;
	unlinkat(f->dirfd, f->name, 0);
	close(f->fd);
	close(f->dirfd);
	f->fd = f->dirfd = -1;
}

/* --- reading ------------------------------------------------------------- */

struct rd {
	const char *p;
	size_t left;
	bool bad;
	size_t nodes;
};

static uint64_t
get_u64(struct rd *r)
{
	uint64_t v = 0;

	if (r->left < sizeof(v)) {
		r->bad = true;
		return 0;
	}
	memcpy(&v, r->p, sizeof(v));
	r->p += sizeof(v);
	r->left -= sizeof(v);
	return v;
}

/* a new string of at most `max` bytes, NULL when it was NULL (or bad) */
static char *
get_mem(struct rd *r, size_t max, size_t *len)
{
	uint64_t n = get_u64(r);
	char *s;

	*len = 0;
	if (r->bad || n == UINT64_MAX)
		return NULL;
	if (n > max || n > r->left || memchr(r->p, '\0', (size_t)n) != NULL) {
		r->bad = true;
		return NULL;
	}
	s = xmalloc((size_t)n + 1);
	memcpy(s, r->p, (size_t)n);
	s[n] = '\0';
	r->p += n;
	r->left -= (size_t)n;
	*len = (size_t)n;
	return s;
}

static char *
get_str(struct rd *r, size_t max)
{
	size_t len;

	return get_mem(r, max, &len);
}

static void
get_node(struct rd *r, struct node *nd, int depth, bool top)
{
	uint64_t nk;

	nd->name = get_str(r, NAME_MAX);
	nd->mode = (mode_t)get_u64(r);
	nd->dev = (dev_t)get_u64(r);
	nd->rdev = (dev_t)get_u64(r);
	nd->ino = (ino_t)get_u64(r);
	nd->data = get_mem(r, FILE_MAX, &nd->len);
	nk = get_u64(r);
	if (r->bad)
		return;
	/* a name below the top, and one that names no other place */
	if ((!top && (nd->name == NULL || nd->name[0] == '\0' ||
			 strchr(nd->name, '/') != NULL ||
			 strcmp(nd->name, ".") == 0 ||
			 strcmp(nd->name, "..") == 0)) ||
	    nk > DIR_MAX || depth > DEPTH_MAX || ++r->nodes > NODES_MAX ||
	    (nk > 0 && !S_ISDIR(nd->mode)) ||
	    ((S_ISREG(nd->mode) || S_ISLNK(nd->mode)) && nd->data == NULL)) {
		r->bad = true;
		return;
	}
	if (nk == 0)
		return;
	nd->kids = xcalloc((size_t)nk, sizeof(*nd->kids));
	for (uint64_t i = 0; i < nk && !r->bad; i++) {
		get_node(r, &nd->kids[i], depth + 1, false);
		nd->nkids = (size_t)i + 1;
	}
}

/* A snapshot from the bytes of a file; NULL when they are not one. The
 * workspace it was taken for in *ws (a new string). */
static struct kb_gitsnap *
decode(const char *buf, size_t len, char **ws)
{
	struct rd r = {buf + 8, len - 8, false, 0};
	struct kb_gitsnap *s;
	uint64_t n;

	*ws = NULL;
	if (len < 8 || memcmp(buf, MAGIC, 8) != 0)
		return NULL;
	s = xcalloc(1, sizeof(*s));
	*ws = get_str(&r, PATH_MAX);
	n = get_u64(&r);
	if (r.bad || *ws == NULL || n > KB_MAX_ROOTS)
		goto bad;
	s->nroots = (size_t)n;
	for (size_t i = 0; i < s->nroots; i++) {
		s->own_roots[i] = get_str(&r, PATH_MAX);
		s->roots[i] = s->own_roots[i];
		s->rdev[i] = (dev_t)get_u64(&r);
		s->rino[i] = (ino_t)get_u64(&r);
		if (r.bad || s->roots[i] == NULL || s->roots[i][0] != '/')
			goto bad;
	}
	n = get_u64(&r);
	if (r.bad || n > NODES_MAX)
		goto bad;
	s->g = xcalloc(n ? (size_t)n : 1, sizeof(*s->g));
	for (uint64_t i = 0; i < n; i++) {
		struct sguard *sg = &s->g[i];
		uint64_t kind = get_u64(&r), root = get_u64(&r);
		_cleanup_free_ char *rel = get_str(&r, PATH_MAX);

		s->n = (size_t)i + 1;
		sg->gi = (size_t)i;
		sg->path = get_str(&r, PATH_MAX);
		sg->include = get_u64(&r) != 0;
		sg->dev = (dev_t)get_u64(&r);
		sg->ino = (ino_t)get_u64(&r);
		sg->mode = (mode_t)get_u64(&r);
		sg->existed = (unsigned)get_u64(&r);
		if (r.bad || root >= s->nroots || rel == NULL ||
		    sg->path == NULL ||
		    (kind != KB_GUARD_PIN_DIR && kind != KB_GUARD_RO &&
			kind != KB_GUARD_RO_ABSENT_DIR &&
			kind != KB_GUARD_RO_ABSENT_FILE) ||
		    kb_snap_split_rel(sg, rel) == -1 || sg->existed > COMP_MAX)
			goto bad;
		sg->kind = (enum kb_guard_kind)kind;
		sg->root = (size_t)root;
		get_node(&r, &sg->node, 0, true);
		if (r.bad)
			goto bad;
	}
	if (r.left != 0)
		goto bad;
	kb_snap_link_pins(s);
	return s;
bad:
	kb_gitsnap_free(s);
	return NULL;
}

/* --- the next run -------------------------------------------------------- */

/* the restore's lines, gathered into one (report_fn has no context) */
static struct kb_buf *gathered;

static void
gather(const char *line, bool security)
{
	(void)security;
	if (gathered->len >= LINE_MAX_)
		return;
	kb_buf_printf(gathered, "%s%s", gathered->len > 0 ? "; " : "", line);
}

/* Puts back the guards of the file `fd` holds (locked by the caller),
 * taken in `workspace`; their lines go to `out`. The findings, -1 when it
 * is no snapshot, -2 when it is another workspace's (a hash that
 * collided: left for its own run, or gc). */
static int
restore_file(int fd, const char *workspace, struct kb_buf *out)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ char *ws = NULL;
	struct kb_gitsnap *s;
	int fds[KB_MAX_ROOTS];
	size_t len;
	int found = 0;

	if ((buf = kb_read_fd(fd, FILE_SIZE, &len)) == NULL ||
	    (s = decode(buf, len, &ws)) == NULL)
		return -1;
	if (strcmp(ws, workspace) != 0) {
		kb_gitsnap_free(s);
		return -2;
	}
	gathered = out;
	for (size_t r = 0; r < s->nroots; r++) {
		struct stat st;

		fds[r] = kb_open_dir_nofollow(s->roots[r]);
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
				kb_buf_printf(out,
				    "%s%s cannot be opened (%s): the git "
				    "metadata in it was not restored, check it "
				    "before running git there",
				    out->len > 0 ? "; " : "", s->roots[r],
				    strerror(errno));
				found++;
			}
		}
	}
	found += kb_snap_restore_fds(s, fds, NULL, gather);
	for (size_t r = 0; r < s->nroots; r++)
		if (fds[r] != -1)
			close(fds[r]);
	kb_gitsnap_free(s);
	gathered = NULL;
	return found;
}

/* Opens and locks the store's file `name` unless a live run holds it, and
 * checks the name still holds it (another run may have taken and removed
 * it meanwhile). The descriptor, or -1. */
static int
take(int dirfd, const char *name)
{
	struct stat st, now;
	int fd =
	    openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd == -1)
		return -1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || flock(fd, LOCK_EX | LOCK_NB) == -1 ||
	    fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) == -1 ||
	    now.st_dev != st.st_dev || now.st_ino != st.st_ino) {
		close(fd);
		return -1;
	}
	return fd;
}

int
kb_gitguard_recover(const struct kb_policy *p, char **line)
{
	char key[80];
	_cleanup_free_ char *dir = NULL;
	struct kb_buf out = {0};
	struct kb_strv names = {0};
	struct kb_err e;
	struct dirent *de;
	int dirfd, found = 0, runs = 0;
	DIR *d;

	*line = NULL;
	if (p->workspace == NULL ||
	    ws_key(p->workspace, key, sizeof(key)) == -1)
		return 0;
	if ((dirfd = kb_state_subdir(p->home, STORE, false, &dir, &e)) < 0)
		return 0; /* no store: no run left anything */
	if ((d = fdopendir(fcntl(dirfd, F_DUPFD_CLOEXEC, 3))) == NULL) {
		close(dirfd);
		return 0;
	}
	while ((de = readdir(d)) != NULL)
		if (strncmp(de->d_name, key, strlen(key)) == 0 &&
		    de->d_name[strlen(key)] == '.')
			kb_strv_push(&names, de->d_name);
	closedir(d);
	for (size_t i = 0; i < names.n; i++) {
		int fd = take(dirfd, names.v[i]), n;

		if (fd == -1)
			continue; /* a live run's, or gone */
		if ((n = restore_file(fd, p->workspace, &out)) == -2) {
			close(fd);
			continue;
		}
		if (n == -1)
			kb_buf_printf(&out,
			    "%s%s/%s could not be read as a snapshot and was "
			    "removed",
			    out.len > 0 ? "; " : "", dir, names.v[i]);
		found += n == -1 ? 1 : n;
		runs++;
		unlinkat(dirfd, names.v[i], 0);
		close(fd);
	}
	close(dirfd);
	kb_strv_free(&names);
	if (found > 0)
		*line = xasprintf(
		    "SECURITY: %s kinbox run%s in %s ended before %s git "
		    "guards were put back (killed?); undone now: %s",
		    runs == 1 ? "a" : "earlier", runs == 1 ? "" : "s",
		    p->workspace, runs == 1 ? "its" : "their",
		    out.s ? out.s : "");
	kb_buf_free(&out);
	return found;
}

/* --- kinpolicy gc -------------------------------------------------------- */

int
kb_gitsnap_gc(const char *home, struct kb_strv *removed)
{
	_cleanup_free_ char *dir = NULL;
	struct kb_strv names = {0};
	struct kb_err e;
	struct dirent *de;
	int dirfd;
	DIR *d;

	if ((dirfd = kb_state_subdir(home, STORE, false, &dir, &e)) < 0)
		return 0;
	if ((d = fdopendir(fcntl(dirfd, F_DUPFD_CLOEXEC, 3))) == NULL) {
		close(dirfd);
		return -1;
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			kb_strv_push(&names, de->d_name);
	closedir(d);
	for (size_t i = 0; i < names.n; i++) {
		const char *name = names.v[i];
		_cleanup_free_ char *buf = NULL;
		_cleanup_free_ char *ws = NULL;
		struct kb_gitsnap *s = NULL;
		char key[80];
		size_t len;
		int fd = take(dirfd, name);
		bool gone;

		if (fd == -1)
			continue; /* a live run's */
		/* a dot-name is a file a run died writing */
		gone = name[0] == '.';
		if (!gone) {
			buf = kb_read_fd(fd, FILE_SIZE, &len);
			s = buf != NULL ? decode(buf, len, &ws) : NULL;
			/* its workspace is gone, or another directory holds
			 * its name now: no run there restores it any more */
			gone = s == NULL ||
			       ws_key(ws, key, sizeof(key)) == -1 ||
			       strncmp(name, key, strlen(key)) != 0;
			kb_gitsnap_free(s);
		}
		if (gone && unlinkat(dirfd, name, 0) == 0)
			kb_strv_pushf(removed, "%s/%s", dir, name);
		close(fd);
	}
	kb_strv_free(&names);
	close(dirfd);
	return 0;
}
