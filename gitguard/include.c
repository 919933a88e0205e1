/*
 * gitguard/include.c — the config files git reads because another one
 * names them: include.path and includeIf.<condition>.path, for every
 * condition (whether one holds is git's call later, after the command may
 * have switched the branch), nested as deep as git follows them (10).
 *
 * git joins a relative include to the directory part of the including
 * file's name, as a string; expands ~/ and ~user/; and leaves the rest to
 * the kernel when it opens the file, at the user's next git command. So
 * each path is resolved here one component at a time, as the kernel will:
 * outside the writable roots the host's own symlinks and ".." are
 * followed (the command cannot change them); inside a root nothing is
 * followed, and every step is taken from the root's descriptor (fsat.c).
 * What lies in a root is guarded through the scan's callback: every
 * directory on the way pinned, the file read-only, a missing file (or the
 * first missing directory on the way) kept uncreatable.
 *
 * An include that cannot be held that way makes the whole scan refuse
 * (inc->unsafe): a symlink, a FIFO or a device in a root, a file with
 * another hard link, a file over 16 MiB or one that changed while it was read,
 * includes nested deeper than git follows them, more files than the bounds, and
 * a path whose meaning kinbox cannot tell (%(prefix)/, a ~user/ not in
 * /etc/passwd).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/fsat.h"
#include "gitconfig.h"
#include "include.h"

#define STEPS_MAX     4096 /* components walked for one path */
#define LINKS_MAX     40   /* host symlinks followed (the kernel's) */
#define HOOKSPATH_MAX 256  /* distinct core.hooksPath values */

void
kb_inc_init(struct kb_inc *inc, const struct kb_policy *p,
    kb_inc_guard_fn guard, void *ctx)
{
	memset(inc, 0, sizeof(*inc));
	inc->p = p;
	inc->guard = guard;
	inc->ctx = ctx;
	inc->nroots = kb_policy_roots(p, inc->roots);
	for (size_t i = 0; i < inc->nroots; i++)
		inc->rootfd[i] = -1;
}

void
kb_inc_free(struct kb_inc *inc)
{
	for (size_t i = 0; i < inc->nroots; i++)
		if (inc->rootfd[i] != -1)
			close(inc->rootfd[i]);
	kb_strv_free(&inc->hookspaths);
	free(inc->unsafe);
	memset(inc, 0, sizeof(*inc));
}

/* the first reason to refuse is the one given */
static void
set_unsafe(
    struct kb_inc *inc, const char *what, const char *where, const char *why)
{
	if (inc->unsafe != NULL)
		return;
	inc->unsafe = xasprintf(
	    "%s%s%s%s%s; git reads it at the next git command, and kinbox "
	    "cannot keep the command from changing it, so nothing was run "
	    "(make it a regular file in a place kinbox can guard, or remove "
	    "the include)",
	    what, where != NULL ? " leads to " : "", where != NULL ? where : "",
	    where != NULL ? ", " : ": ", why);
}

/* --- where a path leads ---------------------------------------------------
 */

enum step {
	S_DESCEND, /* a directory, and the path goes on */
	S_NONE,    /* nothing git reads as config there */
	S_FILE,    /* a regular file, open */
	S_LINK,    /* a host symlink: follow it */
	S_UNSAFE,
};

static size_t
root_of(const struct kb_inc *inc, const char *abs)
{
	for (size_t i = 0; i < inc->nroots; i++)
		if (kb_path_within(abs, inc->roots[i]))
			return i;
	return SIZE_MAX;
}

static const char *
rel_in(const char *root, const char *abs)
{
	size_t n = strlen(root);

	if (abs[n] == '\0')
		return ".";
	return abs + n + (strcmp(root, "/") != 0);
}

static int
guard(struct kb_inc *inc, size_t r, const char *abs, enum kb_inc_kind kind,
    struct stat *st)
{
	const char *rel = rel_in(inc->roots[r], abs);
	struct stat ignored;

	if (strcmp(rel, ".") == 0)
		return 0; /* the root itself: its own mount holds it */
	return inc->guard(inc->ctx, inc->roots[r], inc->rootfd[r], rel, kind,
	    st != NULL ? st : &ignored);
}

static const char *
type_word(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFLNK:
		return "a symbolic link";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	default:
		return "a device";
	}
}

/* One component in the root r, never through a symlink; `more` when the
 * path goes on after it. */
static enum step
in_root(struct kb_inc *inc, size_t r, const char *abs, bool more, int *fdp,
    char *why, size_t wl)
{
	const char *rel = rel_in(inc->roots[r], abs);
	struct stat st, fst, gst;
	int fd;

	if (inc->rootfd[r] == -1 &&
	    (inc->rootfd[r] = kb_open_dir_nofollow(inc->roots[r])) == -1) {
		snprintf(why, wl,
		    "its writable directory cannot be opened (%s)",
		    strerror(errno));
		return S_UNSAFE;
	}
	fd = kb_openat_beneath(inc->rootfd[r], rel, O_PATH | O_NOFOLLOW);
	if (fd == -1 && errno == ENOENT) {
		/* kept absent, and with a directory all below it */
		if (guard(inc, r, abs,
			more ? KB_INC_ABSENT_DIR : KB_INC_ABSENT_FILE,
			NULL) == 0)
			return S_NONE;
		snprintf(why, wl, "it cannot be kept from being created");
		return S_UNSAFE;
	}
	if (fd == -1 || fstat(fd, &st) == -1) {
		snprintf(why, wl, "%s",
		    errno == ELOOP || errno == EXDEV
			? "a symbolic link appeared on its way"
			: strerror(errno));
		if (fd != -1)
			close(fd);
		return S_UNSAFE;
	}
	close(fd);
	if (S_ISDIR(st.st_mode)) {
		if (guard(inc, r, abs, KB_INC_PIN, NULL) == -1) {
			snprintf(
			    why, wl, "the directory %s cannot be pinned", abs);
			return S_UNSAFE;
		}
		return more ? S_DESCEND : S_NONE;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, wl, "%s in the writable directory %s",
		    type_word(st.st_mode), inc->roots[r]);
		return S_UNSAFE;
	}
	if (more) {
		/* git's open fails (ENOTDIR) for as long as it is a file */
		if (guard(inc, r, abs, KB_INC_FILE, NULL) == 0)
			return S_NONE;
		snprintf(why, wl,
		    "a file on its way kinbox cannot hold "
		    "read-only");
		return S_UNSAFE;
	}
	fd = kb_openat_beneath(inc->rootfd[r], rel, O_RDONLY);
	if (fd == -1 || fstat(fd, &fst) == -1) {
		snprintf(why, wl, "it cannot be read (%s)", strerror(errno));
		if (fd != -1)
			close(fd);
		return S_UNSAFE;
	}
	/* a read-only mount holds one name: another is the command's to
	 * write through (a new link across the mount fails, EXDEV) */
	if (S_ISREG(fst.st_mode) && fst.st_nlink > 1) {
		close(fd);
		snprintf(why, wl,
		    "a file with %lu hard links (the command could write it "
		    "through another one)",
		    (unsigned long)fst.st_nlink);
		return S_UNSAFE;
	}
	if (guard(inc, r, abs, KB_INC_FILE, &gst) == -1) {
		close(fd);
		snprintf(why, wl, "a file kinbox cannot hold read-only");
		return S_UNSAFE;
	}
	/* what is read must be what is guarded */
	if (!S_ISREG(fst.st_mode) || fst.st_dev != st.st_dev ||
	    fst.st_ino != st.st_ino || (gst.st_mode & S_IFMT) != S_IFREG ||
	    gst.st_dev != fst.st_dev || gst.st_ino != fst.st_ino) {
		close(fd);
		snprintf(why, wl,
		    "it changed while kinbox looked at it (a "
		    "concurrent process?); run again");
		return S_UNSAFE;
	}
	*fdp = fd;
	return S_FILE;
}

/* One component outside every root: the host's, followed as the kernel
 * will follow it. */
static enum step
outside(const char *abs, bool more, int *fdp, char **link)
{
	char buf[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd;

	/* gone, unreadable, not a directory: git's open fails the same way
	 * (and the command cannot change that) */
	if (lstat(abs, &st) == -1)
		return S_NONE;
	if (S_ISLNK(st.st_mode)) {
		n = readlink(abs, buf, sizeof(buf) - 1);
		if (n <= 0)
			return S_NONE;
		buf[n] = '\0';
		*link = xstrdup(buf);
		return S_LINK;
	}
	if (S_ISDIR(st.st_mode))
		return more ? S_DESCEND : S_NONE;
	if (!S_ISREG(st.st_mode) || more)
		return S_NONE; /* /dev/null, say */
	fd = open(
	    abs, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd == -1)
		return S_NONE;
	*fdp = fd;
	return S_FILE;
}

/*
 * Where the kernel will take git when it opens `path` (absolute): S_FILE
 * with *fdp open on the regular file to read, S_NONE (nothing git reads
 * as config), or S_UNSAFE with `why`. *where gets the place reached.
 */
static enum step
resolve(struct kb_inc *inc, const char *path, int *fdp, char **where, char *why,
    size_t wl)
{
	char *rest = xstrdup(path);
	char *cur = xstrdup("/");
	const char *pos = rest;
	unsigned steps = 0, links = 0;
	enum step st = S_NONE;

	*fdp = -1;
	for (;;) {
		size_t len = 0, r;
		char *next, *link = NULL;
		bool more;

		while (*pos == '/')
			pos++;
		if (*pos == '\0') {
			st = S_NONE; /* a directory: nothing to read */
			break;
		}
		len = strcspn(pos, "/");
		more = pos[len] != '\0'; /* a slash after it: a directory */
		if (++steps > STEPS_MAX) {
			snprintf(why, wl, "more than %d steps to resolve",
			    STEPS_MAX);
			st = S_UNSAFE;
			break;
		}
		if (len == 1 && pos[0] == '.') {
			pos += len;
			continue;
		}
		if (len == 2 && pos[0] == '.' && pos[1] == '.') {
			/* cur holds no symlink: its parent is lexical */
			char *slash = strrchr(cur, '/');

			slash[slash == cur] = '\0';
			pos += len;
			continue;
		}
		next = strcmp(cur, "/") == 0
			   ? xasprintf("/%.*s", (int)len, pos)
			   : xasprintf("%s/%.*s", cur, (int)len, pos);
		pos += len;
		r = root_of(inc, next);
		st = r != SIZE_MAX ? in_root(inc, r, next, more, fdp, why, wl)
				   : outside(next, more, fdp, &link);
		if (st == S_DESCEND) {
			free(cur);
			cur = next;
			continue;
		}
		if (st != S_LINK) {
			free(cur);
			cur = next;
			break;
		}
		free(next);
		if (++links > LINKS_MAX) {
			/* the kernel's ELOOP: git stops with an error */
			free(link);
			st = S_NONE;
			break;
		}
		/* the link's target in place of its name */
		{
			/* pos is "" or "/..." */
			char *joined = xasprintf("%s%s", link, pos);

			if (link[0] == '/') {
				free(cur);
				cur = xstrdup("/");
			}
			free(link);
			free(rest);
			rest = joined;
			pos = rest;
		}
	}
	*where = cur;
	free(rest);
	return st;
}

/* --- the walk -------------------------------------------------------------
 */

/* a home directory from /etc/passwd (as kb_paths_passwd_home: no NSS in
 * a static kinbox); NULL when the user is not there */
static char *
passwd_dir(const char *user, size_t n)
{
	FILE *f = fopen("/etc/passwd", "re");
	struct passwd *pw;
	char *dir = NULL;

	if (f == NULL)
		return NULL;
	while (dir == NULL && (pw = fgetpwent(f)) != NULL)
		if (strlen(pw->pw_name) == n &&
		    strncmp(pw->pw_name, user, n) == 0 && pw->pw_dir != NULL &&
		    pw->pw_dir[0] == '/')
			dir = xstrdup(pw->pw_dir);
	fclose(f);
	return dir;
}

/*
 * The path git makes of include value `v` in the file it names `name`
 * (interpolate_path, then handle_path_include): %(prefix)/, ~ and ~user
 * expanded, a relative one joined to name's directory part. NULL with
 * `why` empty when git cannot expand it either (it stops with an error),
 * or with `why` when kinbox cannot tell what git will make of it.
 */
static char *
expand(const struct kb_inc *inc, const char *name, const char *v, char *why,
    size_t wl)
{
	const char *slash;

	why[0] = '\0';
	if (strncmp(v, "%(prefix)/", 10) == 0) {
		snprintf(why, wl,
		    "git takes %%(prefix) from where git itself is installed, "
		    "which kinbox cannot tell");
		return NULL;
	}
	if (v[0] == '~') {
		size_t ulen = strcspn(v + 1, "/");
		_cleanup_free_ char *home = NULL;

		if (ulen == 0 && inc->p->home == NULL)
			return NULL;
		home =
		    ulen == 0 ? xstrdup(inc->p->home) : passwd_dir(v + 1, ulen);
		if (home == NULL) {
			snprintf(why, wl,
			    "~%.*s names a user kinbox does not find in "
			    "/etc/passwd",
			    (int)(ulen > 64 ? 64 : ulen), v + 1);
			return NULL;
		}
		return xasprintf("%s%s", home, v + 1 + ulen);
	}
	if (v[0] == '/')
		return xstrdup(v);
	slash = strrchr(name, '/');
	return xasprintf("%.*s%s", (int)(slash - name + 1), name, v);
}

static void visit(struct kb_inc *, const char *name, const char *path,
    const char *what, int depth);

/* The includes and hooksPath values of one config file (its bytes freed
 * before the files it includes are read: one at a time in memory). */
static void
follow(
    struct kb_inc *inc, const char *name, char **textp, size_t len, int depth)
{
	struct kb_strv incs = {0}, hooks = {0};

	kb_gitcfg_refs(*textp, len, &incs, &hooks);
	free(*textp);
	*textp = NULL;
	for (size_t i = 0; i < hooks.n && inc->unsafe == NULL; i++) {
		if (kb_strv_has(&inc->hookspaths, hooks.v[i]))
			continue;
		if (inc->hookspaths.n == HOOKSPATH_MAX) {
			set_unsafe(inc, name, NULL,
			    "more than 256 core.hooksPath values in its "
			    "config files");
			break;
		}
		kb_strv_push(&inc->hookspaths, hooks.v[i]);
	}
	for (size_t i = 0; i < incs.n && inc->unsafe == NULL; i++) {
		_cleanup_free_ char *what =
		    xasprintf("%s: include path '%s'", name, incs.v[i]);
		_cleanup_free_ char *path = NULL;
		char why[512];

		if (++inc->paths > KB_INC_PATHS_MAX) {
			set_unsafe(inc, what, NULL,
			    "more than 4096 include paths in all");
			break;
		}
		path = expand(inc, name, incs.v[i], why, sizeof(why));
		if (path == NULL && why[0] != '\0')
			set_unsafe(inc, what, NULL, why);
		if (path != NULL)
			visit(inc, path, path, what, depth + 1);
	}
	kb_strv_free(&incs);
	kb_strv_free(&hooks);
}

static void
visit(struct kb_inc *inc, const char *name, const char *path, const char *what,
    int depth)
{
	_cleanup_free_ char *where = NULL;
	char *text;
	char why[512] = "";
	size_t len = 0;
	int fd = -1, errsv;

	switch (resolve(inc, path, &fd, &where, why, sizeof(why))) {
	case S_FILE:
		break;
	case S_UNSAFE:
		set_unsafe(inc, what, where, why);
		return;
	case S_DESCEND:
	case S_NONE:
	case S_LINK:
		return;
	}
	if (depth > KB_INC_DEPTH_MAX || ++inc->files > KB_INC_FILES_MAX) {
		close(fd);
		set_unsafe(inc, what, where,
		    depth > KB_INC_DEPTH_MAX
			? "nested more than 10 includes deep (git stops with "
			  "an error there; a loop?)"
			: "more than 256 config files included in all");
		return;
	}
	text = kb_read_fd(fd, KB_INC_FILE_MAX, &len);
	errsv = errno;
	close(fd);
	if (text == NULL) {
		set_unsafe(inc, what, where,
		    errsv == EFBIG ? "larger than 16 MiB" : strerror(errsv));
		return;
	}
	follow(inc, name, &text, len, depth);
}

void
kb_inc_follow(struct kb_inc *inc, const char *name, char *text, size_t len)
{
	follow(inc, name, &text, len, 0);
}

void
kb_inc_config(struct kb_inc *inc, const char *name, const char *path)
{
	_cleanup_free_ char *what = xasprintf("the git config %s", name);

	visit(inc, name, path, what, 0);
}
