/*
 * gitguard/audit.c — after the sandbox is gone: undo what the command
 * planted in git metadata, and report it.
 *
 * Everything here acts on paths the command could have rewritten, with the
 * caller's full privileges, so nothing is done by path: each guard is found
 * again from its root's descriptor without following a symlink (fsat.c), its
 * identity is compared with the scan, and every change is an *at() call on
 * the verified parent directory. A guard whose directory was replaced by a
 * symlink or moved away is reported and left alone. The name printed is the
 * kernel's name for the place acted on.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/fsat.h"
#include "gitconfig.h"
#include "gitguard.h"

#define NEST_MAX 16

typedef void (*report_fn)(const char *, bool);

static void reportf(report_fn report, bool security, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
reportf(report_fn report, bool security, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	report(line, security);
}

/* Moves dirfd/name aside and reports it; returns 1 (one finding). */
static int
move_aside(int dirfd, const char *name, report_fn report, const char *what)
{
	_cleanup_free_ char *path = kb_fd_path_at(dirfd, name);
	_cleanup_free_ char *q = kb_quarantine_at(dirfd, name);
	_cleanup_free_ char *qpath = q ? kb_fd_path_at(dirfd, q) : NULL;

	reportf(report, true, "%s %s; %s%s", what, path,
	    q ? "moved aside to " : "remove it before running git here",
	    q ? qpath : "");
	return 1;
}

static bool
dir_is_empty_at(int dirfd, const char *name)
{
	DIR *d = kb_opendir_beneath(dirfd, name);
	struct dirent *de;
	bool empty = true;

	if (d == NULL)
		return false;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			empty = false;
	closedir(d);
	return empty;
}

/* a config the command wrote: replaced by one that runs nothing */
static int
neutralize_config(int gitfd, report_fn report)
{
	_cleanup_free_ char *text = kb_read_beneath(gitfd, "config", 1 << 20);
	_cleanup_free_ char *neutral = NULL;
	_cleanup_free_ char *path = NULL;
	_cleanup_free_ char *q = NULL;
	struct stat st;
	int fd;

	if (text == NULL) {
		if (fstatat(gitfd, "config", &st, AT_SYMLINK_NOFOLLOW) == -1)
			return 0;
		return move_aside(gitfd, "config", report,
		    "the command made "
		    "a config that is no regular file:");
	}
	neutral = kb_gitcfg_neutral(text);
	if (strcmp(neutral, text) == 0)
		return 0;
	path = kb_fd_path_at(gitfd, "config");
	if ((q = kb_quarantine_at(gitfd, "config")) == NULL) {
		reportf(report, true,
		    "the command wrote %s with settings git "
		    "init does not write (they can make git run programs); "
		    "remove it before running git here",
		    path);
		return 1;
	}
	fd = openat(gitfd, "config",
	    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd != -1) {
		ssize_t w = write(fd, neutral, strlen(neutral));

		close(fd);
		if (w != (ssize_t)strlen(neutral))
			unlinkat(
			    gitfd, "config", 0); /* no config: git
						    refuses, runs nothing */
	}
	{
		_cleanup_free_ char *qpath = kb_fd_path_at(gitfd, q);

		reportf(report, true,
		    "the command wrote %s with settings git "
		    "init does not write (they can make git run programs); it "
		    "was replaced by a neutral config, the original moved to "
		    "%s",
		    path, qpath);
	}
	return 1;
}

/* hooks/: executable hooks made non-executable, anything else moved aside */
static int
disarm_hooks(int gitfd, report_fn report)
{
	struct stat st;
	struct dirent *de;
	int hfd, found = 0;
	DIR *d;

	if (fstatat(gitfd, "hooks", &st, AT_SYMLINK_NOFOLLOW) == -1)
		return 0;
	if (!S_ISDIR(st.st_mode))
		return move_aside(gitfd, "hooks", report,
		    "the command made a hooks entry that is no directory:");
	if ((d = kb_opendir_beneath(gitfd, "hooks")) == NULL)
		return 0;
	hfd = dirfd(d);
	while ((de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);
		_cleanup_free_ char *path = NULL;
		int fd;

		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(hfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		/* git runs neither a non-executable hook nor a .sample */
		if (S_ISREG(st.st_mode) &&
		    ((st.st_mode & 0111) == 0 ||
			(n > 7 && strcmp(de->d_name + n - 7, ".sample") == 0)))
			continue;
		found++;
		path = kb_fd_path_at(hfd, de->d_name);
		fd = S_ISREG(st.st_mode)
			 ? openat(hfd, de->d_name,
			       O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
				   O_CLOEXEC)
			 : -1;
		if (fd != -1 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    fchmod(fd, st.st_mode & 07666) == 0) {
			close(fd);
			reportf(report, true,
			    "the command created the git hook "
			    "%s; it was made non-executable, review it before "
			    "running git here",
			    path);
			continue;
		}
		if (fd != -1)
			close(fd);
		move_aside(hfd, de->d_name, report,
		    "the command created the git hook");
	}
	closedir(d);
	return found;
}

static int audit_newrepo(int gitfd, report_fn report, int depth);

/* submodule git dirs the command made inside a new repository */
static int
audit_modules(int modfd, report_fn report, int depth)
{
	DIR *d = kb_opendir_beneath(modfd, ".");
	struct dirent *de;
	int found = 0, fd;

	if (d == NULL)
		return 0;
	fd = dirfd(d);
	while ((de = readdir(d)) != NULL && depth < NEST_MAX) {
		int child;
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		child = kb_openat_beneath(fd, de->d_name, O_PATH | O_DIRECTORY);
		if (child == -1)
			continue;
		if (fstatat(child, "HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0)
			found += audit_newrepo(child, report, depth + 1);
		else
			found += audit_modules(child, report, depth + 1);
		close(child);
	}
	closedir(d);
	return found;
}

/*
 * A repository the command created (or changed) where git outside will
 * use it: its config is replaced by a neutral one (not grepped: too many
 * keys run programs), executable hooks are disarmed, pointers git would
 * obey are moved aside, and its submodules get the same.
 */
static int
audit_newrepo(int gitfd, report_fn report, int depth)
{
	static const char *const planted[] = {"commondir", "config.worktree"};
	struct stat st;
	int found = neutralize_config(gitfd, report);
	int mfd;

	for (size_t i = 0; i < nitems(planted); i++)
		if (fstatat(gitfd, planted[i], &st, AT_SYMLINK_NOFOLLOW) == 0)
			found += move_aside(
			    gitfd, planted[i], report, "the command planted");
	found += disarm_hooks(gitfd, report);
	mfd = kb_openat_beneath(gitfd, "modules", O_PATH | O_DIRECTORY);
	if (mfd != -1) {
		found += audit_modules(mfd, report, depth);
		close(mfd);
	}
	return found;
}

static bool
guarded(const struct kb_policy *p, const char *path)
{
	for (size_t i = 0; i < p->nguard; i++)
		if (strcmp(p->guard[i].path, path) == 0)
			return true;
	return false;
}

/* a at or after b: the coarse clock may give both the same tick */
static bool
newer(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec >= b->tv_nsec);
}

/* Was dirfd/name created during the run? Its birth time where the file
 * system records one, else its status-change time. */
static bool
born_during(int dirfd, const char *name, const struct stat *st,
    const struct timespec *started)
{
	struct statx sx;

	if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_BTIME, &sx) == 0 &&
	    (sx.stx_mask & STATX_BTIME)) {
		struct timespec b = {sx.stx_btime.tv_sec, sx.stx_btime.tv_nsec};

		return newer(&b, started);
	}
	return newer(&st->st_ctim, started);
}

/* The git dir a .git file names, opened from the root that holds it
 * without following symlinks; -1 when it lies outside the roots (then it
 * is read-only in the sandbox and not the command's). */
static int
pointed_gitdir(const struct kb_policy *p, int dirfd, const char *name)
{
	_cleanup_free_ char *text = kb_read_beneath(dirfd, name, 4096);
	_cleanup_free_ char *dir = kb_fd_path(dirfd);
	_cleanup_free_ char *joined = NULL;
	_cleanup_free_ char *lex = NULL;
	const char *roots[KB_MAX_ROOTS];
	size_t n;
	char *v;

	if (text == NULL || strncmp(text, "gitdir:", 7) != 0)
		return -1;
	v = text + 7 + strspn(text + 7, " \t");
	v[strcspn(v, "\r\n")] = '\0';
	if (*v == '\0')
		return -1;
	joined = v[0] == '/' ? xstrdup(v + 1) : xasprintf("%s/%s", dir + 1, v);
	if ((lex = kb_rel_join(".", joined)) == NULL)
		return -1;
	/* only where git itself puts them (submodule add, worktree add) */
	if (strstr(lex, "/.git/modules/") == NULL &&
	    strstr(lex, "/.git/worktrees/") == NULL)
		return -1;
	n = kb_policy_roots(p, roots);
	for (size_t i = 0; i < n; i++) {
		size_t rl = strlen(roots[i]) - 1; /* without the leading / */
		int rootfd, fd;

		if (strncmp(lex, roots[i] + 1, rl) != 0 || lex[rl] != '/')
			continue;
		if ((rootfd = kb_open_dir_nofollow(roots[i])) == -1)
			return -1;
		fd = kb_openat_beneath(
		    rootfd, lex + rl + 1, O_PATH | O_DIRECTORY);
		close(rootfd);
		return fd;
	}
	return -1;
}

/* `wtfd`/<sub>/.git changed during the run: audited as a new repository,
 * or moved aside when it is a pointer (only a planted repo needs one).
 * `appeared`: the kernel saw the .git entry created or renamed in during
 * the run (gitwatch), whatever its birth time says (a directory made
 * before the run and renamed to .git keeps its own). */
static int
audit_repo_at(const struct kb_policy *p, int wtfd, const char *sub,
    report_fn report, bool appeared)
{
	_cleanup_free_ char *dotgit = xasprintf("%s/.git", sub);
	_cleanup_free_ char *path = NULL;
	const char *base;
	struct stat st;
	int parent, gitfd, found = 0;

	if ((parent = kb_open_parent_beneath(wtfd, dotgit, &base)) == -1)
		return 0;
	if (fstatat(parent, base, &st, AT_SYMLINK_NOFOLLOW) == -1)
		goto out;
	path = kb_fd_path_at(parent, base);
	if (guarded(p, path))
		goto out; /* it was there before: its guards held it */
	if (!S_ISDIR(st.st_mode)) {
		if (!appeared && !newer(&st.st_ctim, &p->started))
			goto out;
		/* git submodule add writes a pointer into the superproject's
		 * .git/modules: that git dir is disarmed, the pointer kept.
		 * Any other pointer only a planted repository needs. */
		if (S_ISREG(st.st_mode) &&
		    (gitfd = pointed_gitdir(p, parent, base)) != -1) {
			found = audit_newrepo(gitfd, report, 0);
			close(gitfd);
			goto out;
		}
		found = move_aside(parent, base, report,
		    "the command "
		    "planted a .git pointing elsewhere:");
		goto out;
	}
	if ((gitfd = kb_openat_beneath(parent, base, O_PATH | O_DIRECTORY)) ==
	    -1)
		goto out;
	if (appeared || born_during(parent, base, &st, &p->started)) {
		found = audit_newrepo(gitfd, report, 0);
		close(gitfd);
		goto out;
	}
	/* an existing repository the command worked in: what it changed
	 * of what git obeys is disarmed, the rest (git commit) stays */
	for (const char *const *f = (const char *const[]){"config", "hooks",
		 "commondir", "config.worktree", NULL};
	     *f != NULL; f++) {
		if (fstatat(gitfd, *f, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
		    !newer(&st.st_ctim, &p->started))
			continue;
		if (strcmp(*f, "config") == 0)
			found += neutralize_config(gitfd, report);
		else if (strcmp(*f, "hooks") == 0)
			found += disarm_hooks(gitfd, report);
		else
			found += move_aside(
			    gitfd, *f, report, "the command planted");
	}
	close(gitfd);
out:
	close(parent);
	return found;
}

/*
 * Is dirfd itself shaped like a git directory, as git's discovery judges
 * one (is_git_directory: a HEAD, and objects and refs or a commondir)?
 * git run there or below uses it as a bare repository (safe.bareRepository
 * is "all" unless the user set it). A superset: the entries' types and
 * HEAD's contents are git's to judge.
 */
static bool
gitdir_shaped(int dirfd)
{
	struct stat st;

	if (fstatat(dirfd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) == -1)
		return false;
	if (fstatat(dirfd, "commondir", &st, AT_SYMLINK_NOFOLLOW) == 0)
		return true;
	return fstatat(dirfd, "objects", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       fstatat(dirfd, "refs", &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* did gitfd/name, or (a directory) an entry of it, change during the run? */
static bool
changed_during(int gitfd, const char *name, const struct timespec *started)
{
	struct stat st;
	struct dirent *de;
	bool changed;
	DIR *d;

	if (fstatat(gitfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return false;
	changed = newer(&st.st_ctim, started);
	if (changed || !S_ISDIR(st.st_mode) ||
	    (d = kb_opendir_beneath(gitfd, name)) == NULL)
		return changed;
	while (!changed && (de = readdir(d)) != NULL)
		changed = strcmp(de->d_name, ".") != 0 &&
			  strcmp(de->d_name, "..") != 0 &&
			  fstatat(dirfd(d), de->d_name, &st,
			      AT_SYMLINK_NOFOLLOW) == 0 &&
			  newer(&st.st_ctim, started);
	closedir(d);
	return changed;
}

/*
 * A directory that is itself a git directory (a bare repository), not
 * named .git: audited as a new repository when anything at its top
 * changed during the run (an entry made, renamed in or out: a shape
 * completed, a HEAD or config written; the directory renamed into place)
 * or in its hooks; one the run left alone stays as it is. A bare
 * repository the user keeps in the workspace and the command pushed to
 * has its executable hooks disarmed too (said, as for any other).
 */
static int
audit_bare(const struct kb_policy *p, int gitfd, report_fn report)
{
	_cleanup_free_ char *path = kb_fd_path(gitfd);
	struct stat st;

	if (guarded(p, path) || fstat(gitfd, &st) == -1)
		return 0; /* it was there before: its guards held it */
	if (!newer(&st.st_ctim, &p->started) &&
	    !changed_during(gitfd, "config", &p->started) &&
	    !changed_during(gitfd, "hooks", &p->started) &&
	    !changed_during(gitfd, "commondir", &p->started) &&
	    !changed_during(gitfd, "config.worktree", &p->started))
		return 0;
	return audit_newrepo(gitfd, report, 0);
}

/* The index changed during the run: the repositories it gitlinks (at any
 * depth) whose .git changed are audited as new ones. */
static int
audit_index(const struct kb_policy *p, const struct kb_guard *g, int rootfd,
    report_fn report)
{
	_cleanup_free_ char *wt = xstrdup(g->rel);
	struct kb_strv links = {0};
	struct stat st;
	char *slash;
	int wtfd, ifd, found = 0;

	/* <wt>/.git/index -> <wt> */
	for (int i = 0; i < 2; i++) {
		if ((slash = strrchr(wt, '/')) != NULL)
			*slash = '\0';
		else
			strcpy(wt, ".");
	}
	if ((wtfd = kb_openat_beneath(rootfd, wt, O_PATH | O_DIRECTORY)) == -1)
		return 0;
	ifd = kb_openat_beneath(wtfd, ".git/index", O_RDONLY);
	if (ifd == -1 || fstat(ifd, &st) == -1 ||
	    (g->type != 0 && st.st_ctim.tv_sec == g->ctime.tv_sec &&
		st.st_ctim.tv_nsec == g->ctime.tv_nsec)) {
		if (ifd != -1)
			close(ifd);
		close(wtfd);
		return 0;
	}
	if (kb_git_index_gitlinks_fd(ifd, &links) == -1) {
		reportf(report, true,
		    "%s changed during the run and cannot be "
		    "read as an index; check its submodules before running git "
		    "here",
		    g->path);
		found = 1;
	}
	close(ifd);
	for (size_t i = 0; i < links.n; i++)
		if (links.v[i][0] != '/' && strstr(links.v[i], "..") == NULL)
			found +=
			    audit_repo_at(p, wtfd, links.v[i], report, false);
	kb_strv_free(&links);
	close(wtfd);
	return found;
}

/*
 * Repositories the command made anywhere below a root (no guard held them:
 * there was no .git at scan time). git run later in that directory would
 * obey them, so each .git created or changed during the run is disarmed
 * like a new top-level one.
 *
 * Where the run was watched (gitwatch: fanotify, as root) only the
 * directories the run changed are looked at: the cost follows what the
 * run did. Elsewhere every directory of the root is walked (readdir only,
 * no stat unless an entry is named .git), whatever the count and the
 * depth: the cost grows with the workspace (kinbox --status says which).
 * Up to WALK_HELD levels each directory's descriptor is held while what
 * lies below it is walked; deeper, a directory is closed while its
 * subtree is walked and opened again from its child as ".." (checked to
 * be the same directory by device and inode), so that no depth runs out
 * of descriptors or is left unchecked.
 */
#define WALK_HELD 64

struct walk {
	const struct kb_policy *p;
	report_fn report;
	bool cut;
	int found;
};

/* One directory of the walk: its descriptor (-1 while a deeper one's
 * subtree is walked), its identity (known past WALK_HELD - 1 levels, where
 * it may be closed), and its subdirectories' names (NUL-separated; `at`
 * the next one to walk) */
struct level {
	int fd;
	dev_t dev;
	ino_t ino;
	char *names;
	size_t len, at;
};

/*
 * With no watch: did the .git in dirfd come in during the run, whatever
 * its birth time (a directory prepared earlier and renamed to .git)? A
 * rename moves the renamed inode's change time and its new parent's
 * modification time; both must have (a repository that was there, in a
 * directory the run changed nothing else in, stays one git commit inside
 * it only changes).
 */
static bool
renamed_in(const struct kb_policy *p, int dirfd)
{
	struct stat dir, git;

	return fstat(dirfd, &dir) == 0 &&
	       fstatat(dirfd, ".git", &git, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISDIR(git.st_mode) && newer(&git.st_ctim, &p->started) &&
	       newer(&dir.st_mtim, &p->started);
}

/* Reads fd (a directory open for reading) whole, with getdents64 (no
 * stdio buffer, no stat): keeps in l the names of its subdirectories (and
 * of entries of unknown type), then audits the .git it holds and, with an
 * entry named HEAD, itself as a bare repository. false: it could not be
 * read. */
static bool
read_level(struct walk *w, int fd, struct level *l)
{
	char buf[16384] __attribute__((aligned(8)));
	size_t cap = 0;
	bool shaped = false, dotgit = false;
	ssize_t got;

	l->names = NULL;
	l->len = l->at = 0;
	while ((got = getdents64(fd, buf, sizeof(buf))) > 0) {
		for (size_t at = 0; at < (size_t)got;) {
			const char *name =
			    buf + at + offsetof(struct dirent64, d_name);
			unsigned char type = (unsigned char)
			    buf[at + offsetof(struct dirent64, d_type)];
			unsigned short reclen;
			size_t n;

			memcpy(&reclen,
			    buf + at + offsetof(struct dirent64, d_reclen),
			    sizeof(reclen));
			at += reclen;
			if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
				continue;
			if (strcmp(name, ".git") == 0) {
				dotgit = true;
				continue;
			}
			shaped = shaped || strcmp(name, "HEAD") == 0;
			if (type != DT_DIR && type != DT_UNKNOWN)
				continue;
			n = strlen(name) + 1;
			if (l->len + n > cap) {
				cap = cap ? cap * 2 : 256;
				while (cap < l->len + n)
					cap *= 2;
				l->names = xreallocarray(l->names, cap, 1);
			}
			memcpy(l->names + l->len, name, n);
			l->len += n;
		}
	}
	if (got == -1) {
		free(l->names);
		l->names = NULL;
		l->len = 0;
		return false;
	}
	if (dotgit)
		w->found += audit_repo_at(
		    w->p, fd, ".", w->report, renamed_in(w->p, fd));
	/* a HEAD: perhaps a bare repository (below it, git finds it) */
	if (shaped && gitdir_shaped(fd))
		w->found += audit_bare(w->p, fd, w->report);
	return true;
}

/* The directory `want` again, from its child `below` (O_PATH), as "..":
 * the same directory by device and inode, or -1 (it was moved while the
 * walk was below it) */
static int
reopen_parent(int below, const struct level *want)
{
	struct stat st;
	int fd = openat(below, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd != -1 && (fstat(fd, &st) == -1 || st.st_dev != want->dev ||
			    st.st_ino != want->ino)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Every directory below `top` (held by the caller), depth first, to any
 * depth */
static void
walk_tree(struct walk *w, int top)
{
	struct level *st = xcalloc(1, sizeof(*st));
	size_t n = 0, cap = 1;
	int rfd = kb_openat_beneath(top, ".", O_RDONLY | O_DIRECTORY);

	st[0].fd = top;
	if (rfd == -1 || !read_level(w, rfd, &st[0])) {
		if (rfd != -1)
			close(rfd);
		free(st);
		return;
	}
	close(rfd);
	n = 1;
	while (n > 0) {
		struct level *l = &st[n - 1], c = {.fd = -1};
		struct stat id;
		const char *name;

		if (l->at >= l->len) {
			struct level done = *l;

			n--;
			free(done.names);
			/* a closed parent opened again from this child */
			if (n > 0 && st[n - 1].fd == -1 &&
			    (st[n - 1].fd =
				    reopen_parent(done.fd, &st[n - 1])) == -1) {
				if (!w->cut) {
					_cleanup_free_ char *at =
					    kb_fd_path_at(done.fd, ".");

					w->cut = true;
					reportf(w->report, false,
					    "note: a directory above %s was "
					    "moved while kinbox checked it for "
					    "repositories the command made; "
					    "the rest of it was not checked",
					    at);
				}
				/* back to the nearest one still held */
				while (n > 0 && st[n - 1].fd == -1)
					free(st[--n].names);
			}
			if (done.fd != top)
				close(done.fd);
			continue;
		}
		name = l->names + l->at;
		l->at += strlen(name) + 1;
		/* opened for reading: one descriptor to list it and to open
		 * below it from */
		c.fd = kb_openat_beneath(l->fd, name, O_RDONLY | O_DIRECTORY);
		if (c.fd == -1)
			continue; /* a symlink or no directory: git stops too */
		if (!read_level(w, c.fd, &c) || c.len == 0 ||
		    /* deep: it may be closed below, and known again by this */
		    (n + 1 >= WALK_HELD && fstat(c.fd, &id) == -1)) {
			free(c.names);
			close(c.fd);
			continue; /* nothing below it to walk */
		}
		if (n + 1 >= WALK_HELD) {
			c.dev = id.st_dev;
			c.ino = id.st_ino;
		}
		if (n == cap) {
			cap *= 2;
			st = xreallocarray(st, cap, sizeof(*st));
			l = &st[n - 1];
		}
		/* deep: closed while its subtree is walked */
		if (n >= WALK_HELD && l->fd != top) {
			close(l->fd);
			l->fd = -1;
		}
		st[n++] = c;
	}
	free(st);
}

/* A place the watch says may hold a repository the run made or changed:
 * rel (below root r) is the directory whose .git is audited. */
struct cand {
	size_t root;
	char *rel;
	unsigned flags;
};

struct watched {
	const char *const *roots;
	const int *fds;
	size_t n;
	const struct kb_gitwatch *w;
	struct cand *v;
	size_t nv, capv;
};

/* rel's first component named .git (any case): the length before it,
 * or -1 when there is none */
static ssize_t
dotgit_at(const char *rel)
{
	const char *c = rel;

	for (;;) {
		size_t len = strcspn(c, "/");

		if (len == 4 && strncasecmp(c, ".git", 4) == 0)
			return c - rel;
		if (c[len] == '\0')
			return -1;
		c += len + 1;
	}
}

static void
add_cand(
    struct watched *x, size_t r, const char *rel, size_t len, unsigned flags)
{
	if (x->nv == x->capv) {
		x->capv = x->capv ? x->capv * 2 : 64;
		x->v = xreallocarray(x->v, x->capv, sizeof(*x->v));
	}
	x->v[x->nv].root = r;
	x->v[x->nv].rel =
	    len == 0 ? xstrdup(".") : xasprintf("%.*s", (int)(len - 1), rel);
	x->v[x->nv].flags = flags;
	x->nv++;
}

/* a candidate that is a bare repository itself (not a .git's worktree) */
#define CAND_BARE 0x100u

/* rel's last component */
static const char *
last_name(const char *rel)
{
	const char *slash = strrchr(rel, '/');

	return slash != NULL ? slash + 1 : rel;
}

/* Is the directory holding rel's last component (below rootfd) a bare
 * repository? */
static bool
bare_above(int rootfd, const char *rel)
{
	const char *base = last_name(rel);
	_cleanup_free_ char *up =
	    base == rel ? xstrdup(".")
			: xasprintf("%.*s", (int)(base - rel - 1), rel);
	int fd = kb_openat_beneath(rootfd, up, O_PATH | O_DIRECTORY);
	bool shaped = fd != -1 && gitdir_shaped(fd);

	if (fd != -1)
		close(fd);
	return shaped;
}

/* one directory the run changed: where it lies in a covered root, found
 * again from the root's descriptor (the same inode, no symlink on the
 * way), and what to audit there */
static void
watched_dir(int dirfd, unsigned flags, void *ctx)
{
	struct watched *x = ctx;
	_cleanup_free_ char *path = kb_fd_path(dirfd);
	struct stat a, b;

	if (path[0] != '/' || fstat(dirfd, &a) == -1)
		return;
	for (size_t r = 0; r < x->n; r++) {
		const char *root = x->roots[r];
		const char *rel;
		ssize_t at;
		int fd;

		if (x->fds[r] == -1 || !kb_gitwatch_covers(x->w, root) ||
		    !kb_path_within(path, root))
			continue;
		rel = path[strlen(root)] == '\0'
			  ? "."
			  : path + strlen(root) + (strcmp(root, "/") != 0);
		fd = kb_openat_beneath(x->fds[r], rel, O_PATH | O_DIRECTORY);
		if (fd == -1)
			return;
		if (fstat(fd, &b) == -1 || a.st_dev != b.st_dev ||
		    a.st_ino != b.st_ino) {
			close(fd);
			return;
		}
		/* a change inside a git dir: its repository (the .git
		 * entry's own flags are its parent's) */
		if ((at = dotgit_at(rel)) >= 0)
			add_cand(x, r, rel, (size_t)at, 0);
		else if (flags & KB_GITWATCH_DOTGIT)
			add_cand(x, r, rel,
			    strcmp(rel, ".") == 0 ? 0 : strlen(rel) + 1, flags);
		/* a bare repository changed at its top, or in its hooks */
		if (at < 0 && gitdir_shaped(fd))
			add_cand(x, r, rel, strlen(rel) + 1, CAND_BARE);
		else if (at < 0 && strcmp(last_name(rel), "hooks") == 0 &&
			 bare_above(x->fds[r], rel))
			add_cand(x, r, rel, (size_t)(last_name(rel) - rel),
			    CAND_BARE);
		close(fd);
		return;
	}
}

static int
cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->root != y->root)
		return x->root < y->root ? -1 : 1;
	return strcmp(x->rel, y->rel);
}

/* the repositories the watched run made or changed, each audited once */
static int
audit_watched(const struct kb_policy *p, const struct kb_gitwatch *w,
    const char *const *roots, const int *fds, size_t n, report_fn report)
{
	struct watched x = {.roots = roots, .fds = fds, .n = n, .w = w};
	int found = 0;

	kb_gitwatch_each(w, watched_dir, &x);
	if (x.nv > 0)
		qsort(x.v, x.nv, sizeof(*x.v), cand_cmp);
	for (size_t i = 0; i < x.nv; i++) {
		unsigned flags = x.v[i].flags;
		/* a .git's worktree, a bare repository, or both */
		bool repo = !(flags & CAND_BARE), bare = !repo;

		while (i + 1 < x.nv && cand_cmp(&x.v[i], &x.v[i + 1]) == 0) {
			free(x.v[i].rel);
			flags |= x.v[++i].flags;
			repo = repo || !(x.v[i].flags & CAND_BARE);
			bare = bare || (x.v[i].flags & CAND_BARE);
		}
		flags &= ~CAND_BARE;
		if (bare) {
			int gitfd = kb_openat_beneath(
			    fds[x.v[i].root], x.v[i].rel, O_PATH | O_DIRECTORY);

			if (gitfd != -1) {
				found += audit_bare(p, gitfd, report);
				close(gitfd);
			}
		}
		if (repo)
			found += audit_repo_at(p, fds[x.v[i].root], x.v[i].rel,
			    report, (flags & KB_GITWATCH_APPEARED) != 0);
		free(x.v[i].rel);
	}
	free(x.v);
	return found;
}

/* Is the guarded entry still what it was? */
static bool
unchanged(const struct kb_guard *g, const struct stat *st)
{
	return (st->st_mode & S_IFMT) == g->type && st->st_dev == g->dev &&
	       st->st_ino == g->ino;
}

static bool
link_unchanged(const struct kb_guard *g, int parent, const char *base,
    const struct stat *st)
{
	char buf[PATH_MAX];
	ssize_t n;

	if (!S_ISLNK(st->st_mode) || g->link == NULL)
		return false;
	n = readlinkat(parent, base, buf, sizeof(buf) - 1);
	if (n < 0)
		return false;
	buf[n] = '\0';
	return strcmp(buf, g->link) == 0;
}

static int
audit_one(const struct kb_policy *p, const struct kb_guard *g, int rootfd,
    report_fn report)
{
	_cleanup_free_ char *path = NULL;
	const char *base;
	struct stat st;
	int parent = kb_open_parent_beneath(rootfd, g->rel, &base);
	bool exists;
	int found = 0;

	if (parent == -1) {
		if (errno == ENOENT && g->kind != KB_GUARD_PIN_DIR &&
		    g->kind != KB_GUARD_RO && g->kind != KB_GUARD_WATCH_LINK)
			return 0;
		reportf(report, true,
		    "%s: a directory on its path was %s "
		    "during the run; nothing there was touched, check it "
		    "before running git here",
		    g->path,
		    errno == ENOENT ? "removed"
				    : "replaced by a symlink or moved");
		return 1;
	}
	exists = fstatat(parent, base, &st, AT_SYMLINK_NOFOLLOW) == 0;
	path = kb_fd_path_at(parent, base);
	switch (g->kind) {
	case KB_GUARD_PIN_DIR:
	case KB_GUARD_RO:
		if (exists && unchanged(g, &st))
			break;
		found = 1;
		reportf(report, true,
		    "%s was %s during the run; check it "
		    "before running git here",
		    path, exists ? "replaced" : "removed");
		break;
	case KB_GUARD_WATCH_LINK:
		if (exists && link_unchanged(g, parent, base, &st))
			break;
		found = 1;
		{
			_cleanup_free_ char *q =
			    exists ? kb_quarantine_at(parent, base) : NULL;

			if ((!exists || q != NULL) && g->link != NULL &&
			    symlinkat(g->link, parent, base) == 0)
				reportf(report, true,
				    "%s was replaced during "
				    "the run; the symlink was restored%s%s",
				    path,
				    q ? ", the replacement moved to " : "",
				    q ? q : "");
			else
				reportf(report, true,
				    "%s was replaced during "
				    "the run; check it before running git "
				    "here",
				    path);
		}
		break;
	case KB_GUARD_RO_ABSENT_DIR:
		if (!exists)
			break;
		/* the sandbox's placeholder mount point: empty */
		if (S_ISDIR(st.st_mode) && dir_is_empty_at(parent, base) &&
		    unlinkat(parent, base, AT_REMOVEDIR) == 0)
			break;
		found = move_aside(parent, base, report,
		    "appeared during the "
		    "run:");
		break;
	case KB_GUARD_RO_ABSENT_FILE:
		if (!exists)
			break;
		if (S_ISREG(st.st_mode) && st.st_size == 0 &&
		    unlinkat(parent, base, 0) == 0)
			break;
		__attribute__((fallthrough));
	case KB_GUARD_WATCH_ABSENT:
		if (!exists)
			break;
		found = move_aside(parent, base, report,
		    "the command planted "
		    "(git would obey it)");
		break;
	case KB_GUARD_WATCH_INDEX:
		found = audit_index(p, g, rootfd, report);
		break;
	case KB_GUARD_WATCH_NEWREPO:
		if (!exists)
			break;
		if (S_ISDIR(st.st_mode)) {
			int gitfd = kb_openat_beneath(
			    parent, base, O_PATH | O_DIRECTORY);

			if (gitfd != -1) {
				found = audit_newrepo(gitfd, report, 0);
				close(gitfd);
			}
			break;
		}
		/* a pointer to a git dir elsewhere: git would take hooks and
		 * config from there */
		found = move_aside(parent, base, report,
		    "the command planted a "
		    ".git pointing elsewhere:");
		break;
	}
	close(parent);
	return found;
}

/* A pinned git dir whose name another directory took during the run
 * (kb_gitguard_restore could not put the original back): that directory
 * is the command's, disarmed as a repository it made. */
static int
audit_replaced_gitdir(const struct kb_guard *g, int rootfd, dev_t dev,
    ino_t ino, report_fn report)
{
	const char *base;
	struct stat st;
	int parent = kb_open_parent_beneath(rootfd, g->rel, &base);
	int gitfd, found = 0;

	if (parent == -1)
		return 0;
	gitfd = kb_openat_beneath(parent, base, O_PATH | O_DIRECTORY);
	if (gitfd != -1 && fstat(gitfd, &st) == 0 && st.st_dev == dev &&
	    st.st_ino == ino)
		found = audit_newrepo(gitfd, report, 0);
	if (gitfd != -1)
		close(gitfd);
	close(parent);
	return found;
}

int
kb_gitguard_audit(const struct kb_policy *p, report_fn report)
{
	return kb_gitguard_audit_after(p, NULL, report);
}

int
kb_gitguard_audit_after(
    const struct kb_policy *p, const struct kb_gitsnap *snap, report_fn report)
{
	return kb_gitguard_audit_watched(p, snap, NULL, report);
}

int
kb_gitguard_audit_watched(const struct kb_policy *p,
    const struct kb_gitsnap *snap, const struct kb_gitwatch *watch,
    report_fn report)
{
	const char *roots[KB_MAX_ROOTS];
	int fds[KB_MAX_ROOTS];
	size_t n = kb_policy_roots(p, roots);
	int findings = 0;

	/* a root's own path is outside the command's reach (its parent is
	 * read-only, the root a mount point), so it is opened by name */
	for (size_t i = 0; i < n; i++)
		fds[i] = kb_open_dir_nofollow(roots[i]);
	for (size_t i = 0; i < p->nguard; i++) {
		const struct kb_guard *g = &p->guard[i];
		enum kb_gitsnap_verdict v;
		dev_t dev = 0;
		ino_t ino = 0;

		/* what the restore judged is its own (snap.c) */
		v = kb_gitsnap_verdict(snap, p, i, &dev, &ino);
		if (v == KB_SNAP_JUDGED)
			continue;
		for (size_t r = 0; r < n; r++) {
			if (g->root != roots[r] || fds[r] == -1)
				continue;
			if (v == KB_SNAP_NEWREPO)
				findings += audit_replaced_gitdir(
				    g, fds[r], dev, ino, report);
			else
				findings += audit_one(p, g, fds[r], report);
		}
	}
	findings += audit_watched(p, watch, roots, fds, n, report);
	for (size_t i = 0; i < n; i++) {
		if (fds[i] == -1)
			continue;
		if (!kb_gitwatch_covers(watch, roots[i])) {
			struct walk w = {.p = p, .report = report};

			walk_tree(&w, fds[i]);
			findings += w.found;
		}
		close(fds[i]);
	}
	return findings;
}
