/*
 * gitguard/scan.c — which git metadata of a writable root must stay out of
 * the command's reach (the scan, before the run; the audit after it is in
 * gitguard/audit.c).
 *
 * Git runs code from hooks and from keys in a repository's config
 * (core.hooksPath, core.fsmonitor, diff and merge drivers, filters,
 * aliases...), and takes both from another directory when commondir or a
 * .git file points there. A command that can plant any of these gets code
 * run outside the sandbox at the user's next `git status` or `git commit`.
 * The rest of .git stays writable so that `git add` and `git commit` work.
 *
 * The rules:
 * - Nothing the command can write adds authority: pointer files (.git
 *   files, commondir, gitdir) only ever add guards. A git dir outside the
 *   write roots stays read-only like the rest of the host; `git commit` in
 *   a linked worktree whose main repository lies elsewhere needs a human's
 *   --write of that repository.
 * - Every path is walked from the root's descriptor without following a
 *   symlink (fsat.c), read with O_NONBLOCK and a size bound: a FIFO or a
 *   planted link cannot hang or steer the scan.
 * - Every git dir git itself would use is found: the root's .git (or the
 *   root as a bare repository), the roots' children, every gitlink of every
 *   index at any depth, .gitmodules entries, submodule git dirs at any depth
 *   of modules/ (their names may hold '/'), worktrees/, a .git file's or
 *   symlink's target, and the core.hooksPath directory when it lies in a
 *   root. Past the bounds the rest is named in --dry-run as not guarded.
 * - Every config file git reads is guarded like .git/config where it lies
 *   in a root: what a repository's config and config.worktree, and the
 *   system and global configs, include (include.c), with the directories
 *   on the way, and the core.hooksPath any of them sets. One that cannot
 *   be held so refuses the run (p->gitunsafe): the command could write
 *   what git would obey.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/fsat.h"
#include "gitconfig.h"
#include "gitguard.h"
#include "include.h"

#define NEST_MAX        16   /* gitlinks in gitlinks, modules in modules */
#define DIR_ENTRIES_MAX 4096 /* entries read from one directory */

struct scan {
	struct kb_policy *p;
	const char *root; /* canonical, one of the policy's roots */
	int rootfd;
	unsigned repos;
	/* core.hooksPath values of the system and global configs and what
	 * they include */
	const struct kb_strv *global_hooks;
};

static char *
abs_of(const struct scan *s, const char *rel)
{
	if (strcmp(rel, ".") == 0)
		return xstrdup(s->root);
	return strcmp(s->root, "/") == 0 ? xasprintf("/%s", rel)
					 : xasprintf("%s/%s", s->root, rel);
}

static char *
join(const char *a, const char *b)
{
	return strcmp(a, ".") == 0 ? xstrdup(b) : xasprintf("%s/%s", a, b);
}

static void
unguarded(struct kb_policy *p, const char *path, const char *why)
{
	if (p->gitnotes.n < 64)
		kb_strv_pushf(&p->gitnotes, "not guarded: %s (%s)", path, why);
	else if (p->gitnotes.n == 64)
		kb_strv_push(&p->gitnotes, "not guarded: more paths, not "
					   "listed");
}

/* lstat of rel below the root, never through a symlink */
static int
stat_rel(const struct scan *s, const char *rel, struct stat *st)
{
	int fd = kb_openat_beneath(s->rootfd, rel, O_PATH | O_NOFOLLOW);
	int rc;

	if (fd == -1)
		return -1;
	rc = fstat(fd, st);
	close(fd);
	return rc;
}

static bool
is_type(const struct scan *s, const char *rel, mode_t type)
{
	struct stat st;

	return stat_rel(s, rel, &st) == 0 && (st.st_mode & S_IFMT) == type;
}

/* The guard of `rel` (one added before at that path, or a new one of
 * `kind`); NULL when none could be added. */
static struct kb_guard *
add_guard(struct scan *s, const char *rel, enum kb_guard_kind kind)
{
	struct kb_policy *p = s->p;
	_cleanup_free_ char *path = abs_of(s, rel);
	struct kb_guard *g;
	struct stat st;
	int fd;

	if (strcmp(rel, ".") == 0)
		return NULL; /* the root itself: mounted already */
	for (size_t i = 0; i < p->nguard; i++)
		if (strcmp(p->guard[i].path, path) == 0)
			return &p->guard[i];
	if (p->nguard == KB_MAX_GUARD) {
		unguarded(p, path, "more than 1024 guarded git paths");
		return NULL;
	}
	fd = kb_openat_beneath(s->rootfd, rel, O_PATH | O_NOFOLLOW);
	if (fd == -1 && errno != ENOENT) {
		unguarded(p, path,
		    errno == ELOOP || errno == EXDEV ? "a symlink on its path"
						     : strerror(errno));
		return NULL;
	}
	if (p->nguard == p->capguard) {
		p->capguard = p->capguard ? p->capguard * 2 : 32;
		p->guard = xreallocarray(p->guard, p->capguard, sizeof(*g));
	}
	g = &p->guard[p->nguard++];
	memset(g, 0, sizeof(*g));
	g->path = steal_pointer(&path);
	g->root = s->root;
	g->rel = xstrdup(rel);
	g->kind = kind;
	g->fd = -1;
	if (fd == -1)
		return g;
	if (fstat(fd, &st) == 0) {
		g->dev = st.st_dev;
		g->ino = st.st_ino;
		g->type = st.st_mode & S_IFMT;
		g->mtime = st.st_mtim;
		g->ctime = st.st_ctim;
	}
	if (g->type == S_IFLNK) {
		char buf[PATH_MAX];
		ssize_t n = readlinkat(fd, "", buf, sizeof(buf) - 1);

		if (n > 0) {
			buf[n] = '\0';
			g->link = xstrdup(buf);
		}
	}
	/* the bind source of a mount: what is mounted is what was checked */
	if ((kind == KB_GUARD_PIN_DIR || kind == KB_GUARD_RO) &&
	    (g->type == S_IFDIR || g->type == S_IFREG))
		g->fd = fd;
	else
		close(fd);
	return g;
}

/* what scan_in_roots() finds at a path */
enum target {
	T_GITDIR,
	T_PLAIN
};

static int scan_in_roots(struct kb_policy *, const char *abs, enum target,
    const struct kb_strv *global_hooks);
static void scan_target(struct kb_policy *, const char *abs, enum target,
    const struct kb_strv *global_hooks, const char **roots, size_t n);
static void guard_gitdir(struct scan *, const char *rel, bool common,
    const char *worktree, int depth);

/* The absolute, lexically normalised path of `target` as seen from the
 * directory rel `from` of this root; NULL when it cannot be normalised. */
static char *
target_abs(const struct scan *s, const char *from, const char *target)
{
	_cleanup_free_ char *base = NULL;
	_cleanup_free_ char *lexical = NULL;

	if (target[0] == '/')
		base = xstrdup(target);
	else {
		_cleanup_free_ char *dir = abs_of(s, from);

		base = xasprintf("%s/%s", dir, target);
	}
	lexical = kb_rel_join(".", base + 1);
	if (lexical == NULL)
		return NULL;
	return strcmp(lexical, ".") == 0 ? xstrdup("/")
					 : xasprintf("/%s", lexical);
}

/* A symlink git follows (hooks, config, .git): restored if replaced, and
 * its target guarded where it lies in a root (elsewhere it is read-only). */
static void
guard_link(struct scan *s, const char *rel, bool gitdir)
{
	char buf[PATH_MAX];
	_cleanup_free_ char *dir = xstrdup(rel);
	_cleanup_free_ char *abs = NULL;
	char *slash;
	int fd;
	ssize_t n;

	add_guard(s, rel, KB_GUARD_WATCH_LINK);
	fd = kb_openat_beneath(s->rootfd, rel, O_PATH | O_NOFOLLOW);
	if (fd == -1)
		return;
	n = readlinkat(fd, "", buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	slash = strrchr(dir, '/');
	if (slash != NULL)
		*slash = '\0';
	abs = target_abs(s, slash != NULL ? dir : ".", buf);
	if (abs == NULL)
		return;
	scan_in_roots(s->p, abs, gitdir ? T_GITDIR : T_PLAIN, s->global_hooks);
}

/* One entry of a git dir: read-only when it exists, `absent` otherwise. */
static void
guard_entry(struct scan *s, const char *gitdir, const char *name,
    enum kb_guard_kind absent)
{
	_cleanup_free_ char *rel = join(gitdir, name);
	struct stat st;

	if (stat_rel(s, rel, &st) == -1)
		add_guard(s, rel, absent);
	else if (S_ISLNK(st.st_mode))
		guard_link(s, rel, false);
	else
		add_guard(s, rel, KB_GUARD_RO);
}

/* A bare repository's markers: HEAD, objects/, refs/ (no symlinks). */
static bool
is_gitdir(const struct scan *s, const char *rel)
{
	_cleanup_free_ char *head = join(rel, "HEAD");
	_cleanup_free_ char *objects = join(rel, "objects");
	_cleanup_free_ char *refs = join(rel, "refs");

	return is_type(s, head, S_IFREG) && is_type(s, objects, S_IFDIR) &&
	       is_type(s, refs, S_IFDIR);
}

/* Calls fn for each entry of the directory rel (no dot entries). */
static void
each_entry(struct scan *s, const char *rel,
    void (*fn)(struct scan *, const char *child, void *), void *ctx)
{
	DIR *d = kb_opendir_beneath(s->rootfd, rel);
	struct dirent *de;
	unsigned n = 0;

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		_cleanup_free_ char *child = NULL;

		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (++n > DIR_ENTRIES_MAX) {
			_cleanup_free_ char *a = abs_of(s, rel);

			unguarded(s->p, a,
			    "more than 4096 entries; the rest "
			    "was not looked at");
			break;
		}
		child = join(rel, de->d_name);
		fn(s, child, ctx);
	}
	closedir(d);
}

struct walk {
	int depth;
};

/* modules/: a submodule's git dir sits at its name, which may hold '/'
 * (modules/vendor/lib): a directory that is not a git dir is looked into. */
static void
module_entry(struct scan *s, const char *child, void *vw)
{
	struct walk *w = vw, deeper = {w->depth + 1};

	if (!is_type(s, child, S_IFDIR))
		return;
	if (is_gitdir(s, child)) {
		add_guard(s, child, KB_GUARD_PIN_DIR);
		guard_gitdir(s, child, true, NULL, w->depth + 1);
		return;
	}
	if (w->depth + 1 >= NEST_MAX) {
		_cleanup_free_ char *a = abs_of(s, child);

		unguarded(s->p, a, "submodules nested too deep");
		return;
	}
	each_entry(s, child, module_entry, &deeper);
}

static void
worktree_entry(struct scan *s, const char *child, void *vw)
{
	struct walk *w = vw;

	if (!is_type(s, child, S_IFDIR))
		return;
	add_guard(s, child, KB_GUARD_PIN_DIR);
	guard_gitdir(s, child, false, NULL, w->depth + 1);
}

/* core.hooksPath: where git takes hooks from instead of hooks/ (husky's
 * .husky/_). Guarded when it lies in a root: relative to the worktree. */
static void
guard_hookspath(struct scan *s, const char *value, const char *worktree)
{
	_cleanup_free_ char *abs = NULL;
	const char *home = s->p->home;

	if (value == NULL || *value == '\0')
		return;
	if (strncmp(value, "~/", 2) == 0 && home != NULL) {
		_cleanup_free_ char *h = xasprintf("%s/%s", home, value + 2);

		abs = target_abs(s, ".", h);
	} else if (value[0] == '/') {
		abs = target_abs(s, ".", value);
	} else if (worktree != NULL) {
		abs = target_abs(s, worktree, value);
	}
	if (abs != NULL)
		scan_in_roots(s->p, abs, T_PLAIN, NULL);
}

static const struct kb_guard *
find_guard(const struct scan *s, const char *abs)
{
	for (size_t i = 0; i < s->p->nguard; i++)
		if (strcmp(s->p->guard[i].path, abs) == 0)
			return &s->p->guard[i];
	return NULL;
}

/* include.c's request: a guard flagged as on an include's way */
static int
inc_guard(void *vp, const char *root, int rootfd, const char *rel,
    enum kb_inc_kind kind, struct stat *st)
{
	static const enum kb_guard_kind kinds[] = {
	    [KB_INC_PIN] = KB_GUARD_PIN_DIR,
	    [KB_INC_FILE] = KB_GUARD_RO,
	    [KB_INC_ABSENT_FILE] = KB_GUARD_RO_ABSENT_FILE,
	    [KB_INC_ABSENT_DIR] = KB_GUARD_RO_ABSENT_DIR,
	};
	struct scan s = {.p = vp, .root = root, .rootfd = rootfd};
	size_t before = s.p->nguard;
	struct kb_guard *g = add_guard(&s, rel, kinds[kind]);

	/* an index is rewritten by git all the time: nothing holds it */
	if (g == NULL || g->kind == KB_GUARD_WATCH_INDEX)
		return -1;
	if (s.p->nguard > before)
		g->include = true;
	memset(st, 0, sizeof(*st));
	st->st_dev = g->dev;
	st->st_ino = g->ino;
	st->st_mode = g->type;
	return 0;
}

/* what a walk found: its hooksPath values guarded for `worktree`, its
 * first unsafe include kept to refuse the run with */
static void
inc_done(struct scan *s, struct kb_inc *inc, const char *worktree)
{
	for (size_t i = 0; i < inc->hookspaths.n; i++)
		guard_hookspath(s, inc->hookspaths.v[i], worktree);
	if (inc->unsafe != NULL && s->p->gitunsafe == NULL)
		s->p->gitunsafe = steal_pointer(&inc->unsafe);
	kb_inc_free(inc);
}

/* The config file `file` of the git dir `gitdir` (guarded already): the
 * files it includes and the hooks directories it names. */
static void
guard_config(
    struct scan *s, const char *gitdir, const char *file, const char *worktree)
{
	_cleanup_free_ char *rel = join(gitdir, file);
	_cleanup_free_ char *abs = abs_of(s, rel);
	struct kb_inc inc;
	struct stat st;

	if (stat_rel(s, rel, &st) == -1)
		return;
	kb_inc_init(&inc, s->p, inc_guard, s->p);
	if (S_ISREG(st.st_mode)) {
		int fd = kb_openat_beneath(s->rootfd, rel, O_RDONLY);
		size_t len = 0;
		_cleanup_free_ char *text =
		    fd != -1 ? kb_read_fd(fd, KB_INC_FILE_MAX, &len) : NULL;
		const struct kb_guard *g = find_guard(s, abs);
		struct stat fst;

		if (text != NULL && g != NULL &&
		    (fstat(fd, &fst) == -1 || fst.st_dev != g->dev ||
			fst.st_ino != g->ino))
			inc.unsafe = xasprintf("%s changed while kinbox read "
					       "it (a concurrent process?); "
					       "nothing was run, run it again",
			    abs);
		else if (text != NULL)
			kb_inc_follow(&inc, abs, steal_pointer(&text), len);
		else if (errno == EFBIG)
			inc.unsafe = xasprintf("%s: larger than 16 MiB: kinbox "
					       "cannot tell which files it "
					       "makes git read; nothing was "
					       "run",
			    abs);
		if (fd != -1)
			close(fd);
	} else if (S_ISLNK(st.st_mode)) {
		/* git reads what it points at, and takes relative includes
		 * from here (guard_link guards the link) */
		char buf[PATH_MAX];
		int fd = kb_openat_beneath(s->rootfd, rel, O_PATH | O_NOFOLLOW);
		ssize_t n =
		    fd != -1 ? readlinkat(fd, "", buf, sizeof(buf) - 1) : -1;

		if (fd != -1)
			close(fd);
		if (n > 0) {
			_cleanup_free_ char *target = NULL;

			buf[n] = '\0';
			target =
			    buf[0] == '/'
				? xstrdup(buf)
				: xasprintf("%.*s/%s",
				      (int)(strrchr(abs, '/') - abs), abs, buf);
			kb_inc_config(&inc, abs, target);
		}
	}
	inc_done(s, &inc, worktree);
}

static void
guard_gitdir(struct scan *s, const char *rel, bool common, const char *worktree,
    int depth)
{
	struct walk w = {depth};

	guard_entry(s, rel, "commondir", KB_GUARD_WATCH_ABSENT);
	guard_entry(s, rel, "config.worktree", KB_GUARD_WATCH_ABSENT);
	/* read when extensions.worktreeConfig is on, which the command
	 * cannot switch on (config is read-only): followed anyway */
	guard_config(s, rel, "config.worktree", worktree);
	if (!common)
		return;
	guard_entry(s, rel, "hooks", KB_GUARD_RO_ABSENT_DIR);
	guard_entry(s, rel, "config", KB_GUARD_RO_ABSENT_FILE);
	guard_config(s, rel, "config", worktree);
	for (size_t i = 0; s->global_hooks != NULL && i < s->global_hooks->n;
	     i++)
		guard_hookspath(s, s->global_hooks->v[i], worktree);
	if (depth >= NEST_MAX) {
		_cleanup_free_ char *a = abs_of(s, rel);

		unguarded(s->p, a, "submodules nested too deep");
		return;
	}
	{
		_cleanup_free_ char *modules = join(rel, "modules");
		_cleanup_free_ char *worktrees = join(rel, "worktrees");

		each_entry(s, modules, module_entry, &w);
		each_entry(s, worktrees, worktree_entry, &w);
	}
}

static void scan_repo(struct scan *, const char *wt, int depth, bool top);

/* a gitlink or .gitmodules path: relative, no "." or ".." or .git part */
static bool
sane_subpath(const char *l)
{
	_cleanup_free_ char *copy = xstrdup(l);
	char *c, *save = NULL;

	if (*l == '\0' || *l == '/')
		return false;
	for (c = strtok_r(copy, "/", &save); c != NULL;
	     c = strtok_r(NULL, "/", &save))
		if (strcmp(c, ".") == 0 || strcmp(c, "..") == 0 ||
		    strcasecmp(c, ".git") == 0)
			return false;
	return true;
}

static void
scan_sub(struct scan *s, const char *wt, const char *sub, int depth)
{
	_cleanup_free_ char *child = NULL;

	if (!sane_subpath(sub))
		return;
	child = join(wt, sub);
	if (depth + 1 >= NEST_MAX) {
		_cleanup_free_ char *a = abs_of(s, child);

		unguarded(s->p, a, "gitlinks nested too deep");
		return;
	}
	scan_repo(s, child, depth + 1, false);
}

/* every gitlink of the index (submodules, embedded repositories) */
static void
scan_gitlinks(struct scan *s, const char *wt, const char *index, int depth)
{
	struct kb_strv links = {0};
	int fd = kb_openat_beneath(s->rootfd, index, O_RDONLY);

	if (fd == -1)
		return;
	if (kb_git_index_gitlinks_fd(fd, &links) == 0)
		for (size_t i = 0; i < links.n; i++)
			scan_sub(s, wt, links.v[i], depth);
	close(fd);
	kb_strv_free(&links);
}

/* .gitmodules paths, for submodules not in the index yet */
static int
gitmodules_cb(const char *section, const char *sub, const char *key,
    const char *val, void *ctx)
{
	void **c = ctx;

	(void)sub;
	if (strcmp(section, "submodule") == 0 && strcmp(key, "path") == 0)
		scan_sub(c[0], c[1], val, *(int *)c[2]);
	return 0;
}

static void
scan_gitmodules(struct scan *s, const char *wt, int depth)
{
	_cleanup_free_ char *gm = join(wt, ".gitmodules");
	_cleanup_free_ char *text = kb_read_beneath(s->rootfd, gm, 1 << 20);
	void *ctx[3] = {s, (void *)wt, &depth};

	if (text != NULL)
		kb_gitcfg_parse(text, gitmodules_cb, ctx);
}

/* "gitdir: X" of a .git file, as an absolute lexical path, or NULL */
static char *
gitfile_target(struct scan *s, const char *wt, const char *dotgit)
{
	_cleanup_free_ char *text = kb_read_beneath(s->rootfd, dotgit, 4096);
	char *v;

	if (text == NULL || strncmp(text, "gitdir:", 7) != 0)
		return NULL;
	v = text + 7;
	v += strspn(v, " \t");
	v[strcspn(v, "\r\n")] = '\0';
	if (*v == '\0')
		return NULL;
	return target_abs(s, wt, v);
}

static void
scan_repo(struct scan *s, const char *wt, int depth, bool top)
{
	_cleanup_free_ char *dotgit = join(wt, ".git");
	struct stat st;

	if (stat_rel(s, dotgit, &st) == -1) {
		if (top && errno == ENOENT)
			add_guard(s, dotgit, KB_GUARD_WATCH_NEWREPO);
		return;
	}
	if (++s->repos > KB_MAX_REPOS) {
		_cleanup_free_ char *a = abs_of(s, dotgit);

		if (s->repos == KB_MAX_REPOS + 1)
			unguarded(s->p, a,
			    "more than 256 repositories in this "
			    "root; this one and later ones");
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		_cleanup_free_ char *index = join(dotgit, "index");

		add_guard(s, dotgit, KB_GUARD_PIN_DIR);
		guard_gitdir(s, dotgit, true, wt, depth);
		add_guard(s, index, KB_GUARD_WATCH_INDEX);
		scan_gitlinks(s, wt, index, depth);
		scan_gitmodules(s, wt, depth);
	} else if (S_ISREG(st.st_mode)) {
		/* a pointer: a linked worktree or a submodule checkout. Its
		 * target is guarded, never made writable. */
		_cleanup_free_ char *target = gitfile_target(s, wt, dotgit);

		add_guard(s, dotgit, KB_GUARD_RO);
		if (target != NULL)
			scan_in_roots(s->p, target, T_GITDIR, s->global_hooks);
		scan_gitmodules(s, wt, depth);
	} else if (S_ISLNK(st.st_mode)) {
		guard_link(s, dotgit, true);
		scan_gitmodules(s, wt, depth);
	}
}

static void
child_entry(struct scan *s, const char *child, void *ctx)
{
	_cleanup_free_ char *dotgit = join(child, ".git");
	struct stat st;

	(void)ctx;
	if (is_type(s, child, S_IFDIR) && stat_rel(s, dotgit, &st) == 0)
		scan_repo(s, child, 1, false);
}

/*
 * The system and global configs, for every repository git is run in
 * (not only those in the roots): each one that lies in a root is guarded
 * like a repository's, and so is every file they include, at any depth;
 * their core.hooksPath values go to `hooks`. All of them are read, also
 * ~/.gitconfig when GIT_CONFIG_GLOBAL names another file: the user's git
 * later may not run with kinbox's environment.
 */
static void
global_configs(struct scan *s, struct kb_strv *hooks)
{
	const char *sys = getenv("GIT_CONFIG_SYSTEM");
	const char *gcg = getenv("GIT_CONFIG_GLOBAL");
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = s->p->home;
	struct kb_strv files = {0};
	struct kb_inc inc;

	kb_strv_push(&files, "/etc/gitconfig");
	if (sys != NULL && sys[0] == '/')
		kb_strv_push(&files, sys);
	if (gcg != NULL && gcg[0] == '/')
		kb_strv_push(&files, gcg);
	if (home != NULL)
		kb_strv_pushf(&files, "%s/.gitconfig", home);
	if (xdg != NULL && xdg[0] == '/')
		kb_strv_pushf(&files, "%s/git/config", xdg);
	else if (home != NULL)
		kb_strv_pushf(&files, "%s/.config/git/config", home);
	kb_inc_init(&inc, s->p, inc_guard, s->p);
	for (size_t i = 0; i < files.n && inc.unsafe == NULL; i++)
		kb_inc_config(&inc, files.v[i], files.v[i]);
	for (size_t i = 0; i < inc.hookspaths.n; i++)
		kb_strv_push(hooks, inc.hookspaths.v[i]);
	/* absolute and ~/ ones: guarded even with no repository here */
	inc_done(s, &inc, NULL);
	kb_strv_free(&files);
}

/* The git dir at `abs` wherever it is: guarded in the root that holds it,
 * nothing to do outside the roots (read-only like the rest of the host). */
static int
scan_in_roots(struct kb_policy *p, const char *abs, enum target what,
    const struct kb_strv *global_hooks)
{
	static int hops; /* pointers to pointers: cycles end here */
	const char *roots[KB_MAX_ROOTS];
	size_t n = kb_policy_roots(p, roots);

	if (hops >= 8) {
		unguarded(p, abs, "too many git pointers in a row");
		return 0;
	}
	hops++;
	scan_target(p, abs, what, global_hooks, roots, n);
	hops--;
	return 0;
}

static void
scan_target(struct kb_policy *p, const char *abs, enum target what,
    const struct kb_strv *global_hooks, const char **roots, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct scan s = {
		    .p = p, .root = roots[i], .global_hooks = global_hooks};
		const char *rel;

		if (!kb_path_within(abs, roots[i]))
			continue;
		rel =
		    abs[strlen(roots[i])] == '\0'
			? "."
			: abs + strlen(roots[i]) + (strcmp(roots[i], "/") != 0);
		if ((s.rootfd = kb_open_dir_nofollow(roots[i])) == -1)
			return;
		if (what == T_PLAIN) {
			/* a hooks directory or a linked config file */
			struct stat st;

			if (stat_rel(&s, rel, &st) == -1)
				add_guard(&s, rel, KB_GUARD_RO_ABSENT_DIR);
			else if (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))
				add_guard(&s, rel, KB_GUARD_RO);
			else if (S_ISLNK(st.st_mode))
				add_guard(&s, rel, KB_GUARD_WATCH_LINK);
		} else if (is_type(&s, rel, S_IFDIR)) {
			_cleanup_free_ char *cd = join(rel, "commondir");
			_cleanup_free_ char *text =
			    kb_read_beneath(s.rootfd, cd, 4096);

			add_guard(&s, rel, KB_GUARD_PIN_DIR);
			guard_gitdir(&s, rel, text == NULL, NULL, NEST_MAX / 2);
			if (text != NULL) {
				_cleanup_free_ char *c = NULL;

				text[strcspn(text, "\r\n")] = '\0';
				c = *text ? target_abs(&s, rel, text) : NULL;
				close(s.rootfd);
				if (c != NULL)
					scan_in_roots(
					    p, c, T_GITDIR, global_hooks);
				return;
			}
		}
		close(s.rootfd);
		return;
	}
	if (what == T_GITDIR && p->gitnotes.n < 64)
		kb_strv_pushf(&p->gitnotes,
		    "read-only git dir: %s lies outside "
		    "the write roots (git commit there needs --write of its "
		    "repository)",
		    abs);
	return;
}

/* drops what a scan pass added (guards, notes) before it is run again */
static void
scan_undo(struct kb_policy *p, size_t nguard, size_t nnotes)
{
	while (p->nguard > nguard) {
		struct kb_guard *g = &p->guard[--p->nguard];

		free(g->path);
		free(g->rel);
		free(g->link);
		if (g->fd != -1)
			close(g->fd);
	}
	while (p->gitnotes.n > nnotes)
		free(p->gitnotes.v[--p->gitnotes.n]);
	free(p->gitunsafe);
	p->gitunsafe = NULL;
	if (p->gitnotes.v != NULL)
		p->gitnotes.v[p->gitnotes.n] = NULL;
}

static bool
same_time(const struct stat *a, const struct stat *b)
{
	return a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

#define SCAN_TRIES 4

int
kb_gitguard_scan(struct kb_policy *p, const char *root, struct kb_err *e)
{
	size_t nguard = p->nguard, nnotes = p->gitnotes.n;
	struct stat before, after;

	if (p->gitunsafe != NULL)
		return kb_err_set(e, "%s", p->gitunsafe);
	for (int tries = 0; tries < SCAN_TRIES; tries++) {
		_cleanup_strv_ struct kb_strv hooks = {0};
		struct scan s = {.p = p, .root = root, .global_hooks = &hooks};

		s.rootfd = kb_open_dir_nofollow(root);
		if (s.rootfd == -1)
			return kb_err_set(e,
			    "%s: %s (changed since it was resolved?); "
			    "run again",
			    root, strerror(errno));
		/*
		 * The children are found by name: a repository that a
		 * concurrent process renames back and forth while the
		 * directory is read can be missed under every name it has.
		 * Any rename in the root changes its mtime and ctime (ctime
		 * in nanoseconds once it was looked at, Linux >= 6.13), so
		 * a pass during which they changed is done again.
		 */
		if (fstat(s.rootfd, &before) == -1) {
			close(s.rootfd);
			return kb_err_set(e, "%s: %s", root, strerror(errno));
		}
		global_configs(&s, &hooks);
		if (is_gitdir(&s, ".")) {
			guard_gitdir(&s, ".", true, NULL, 0);
		} else {
			scan_repo(&s, ".", 0, true);
			each_entry(&s, ".", child_entry, NULL);
		}
		if (fstat(s.rootfd, &after) == -1)
			memset(&after, 0, sizeof(after));
		close(s.rootfd);
		if (p->gitunsafe != NULL)
			return kb_err_set(e, "%s", p->gitunsafe);
		if (same_time(&before, &after))
			return 0;
		scan_undo(p, nguard, nnotes);
	}
	return kb_err_set(e,
	    "%s: its entries kept changing while kinbox looked for git "
	    "repositories in it (a concurrent process renaming them?); "
	    "nothing was run, run it again",
	    root);
}

int
kb_gitguard_scan_roots(struct kb_policy *p, struct kb_err *e)
{
	const char *roots[KB_MAX_ROOTS];
	size_t n = kb_policy_roots(p, roots);

	for (size_t i = 0; i < n; i++)
		if (kb_gitguard_scan(p, roots[i], e) == -1)
			return -1;
	return 0;
}
