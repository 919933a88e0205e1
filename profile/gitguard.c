/*
 * profile/gitguard.c — which git metadata of a writable root must stay out of
 * the command's reach, and the audit after the run.
 *
 * Git runs code from .git/hooks and from keys in .git/config (core.hooksPath,
 * core.fsmonitor, aliases, filters...), and takes both from another
 * directory when .git/commondir (or a worktree's .git file) points there.
 * A command that can plant any of these gets code run outside the sandbox at
 * the user's next `git commit`. The rest of .git stays writable so that
 * `git add` and `git commit` work inside.
 *
 * The scan (before the run) turns each threat into a struct kb_guard that a
 * backend enforces with mounts: the .git directory is pinned (a mount point
 * cannot be renamed or removed), hooks/config/commondir are read-only, and
 * a missing hooks dir or config gets a read-only placeholder. What mounts
 * cannot express (a file that does not exist yet, such as commondir) is
 * checked by kb_gitguard_audit() after the sandbox is gone.
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

#include "policy.h"

#define MODULE_DEPTH 3 /* nested submodules followed in .git/modules */

static int
add_guard(struct kb_policy *p, const char *path, enum kb_guard_kind kind,
    struct kb_err *e)
{
	struct stat st;

	for (size_t i = 0; i < p->nguard; i++)
		if (strcmp(p->guard[i].path, path) == 0)
			return 0;
	if (p->nguard == KB_MAX_GUARD)
		return kb_err_set(e, "%s: too many git directories to guard "
		    "(more than %d); use a narrower workspace", path,
		    KB_MAX_GUARD);
	p->guard[p->nguard].path = xstrdup(path);
	p->guard[p->nguard].kind = kind;
	p->guard[p->nguard].link = NULL;
	p->guard[p->nguard].type = 0;
	if (lstat(path, &st) == 0) {
		p->guard[p->nguard].dev = st.st_dev;
		p->guard[p->nguard].ino = st.st_ino;
		p->guard[p->nguard].type = st.st_mode & S_IFMT;
		p->guard[p->nguard].mtime = st.st_mtim;
		p->guard[p->nguard].ctime = st.st_ctim;
		if (S_ISLNK(st.st_mode)) {
			char buf[PATH_MAX];
			ssize_t n = readlink(path, buf, sizeof(buf) - 1);

			if (n > 0) {
				buf[n] = '\0';
				p->guard[p->nguard].link = xstrdup(buf);
			}
		}
	}
	p->nguard++;
	return 0;
}

/* Guards for one existing-or-missing entry of a git dir. */
static int
guard_entry(struct kb_policy *p, const char *gitdir, const char *name,
    enum kb_guard_kind if_absent, struct kb_err *e)
{
	_cleanup_free_ char *path = xasprintf("%s/%s", gitdir, name);
	struct stat st;

	if (lstat(path, &st) == 0)
		return add_guard(p, path, KB_GUARD_RO, e);
	if (errno != ENOENT)
		return kb_err_set(e, "%s: %s; fix the repository or use "
		    "another workspace", path, strerror(errno));
	return add_guard(p, path, if_absent, e);
}

static int guard_gitdir(struct kb_policy *, const char *, bool, int,
    struct kb_err *);

/* Each subdirectory of dir/sub is a git dir of its own (modules/, worktrees/). */
static int
guard_children(struct kb_policy *p, const char *gitdir, const char *sub,
    bool common, int depth, struct kb_err *e)
{
	_cleanup_free_ char *dir = xasprintf("%s/%s", gitdir, sub);
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if ((d = opendir(dir)) == NULL)
		return 0;
	while (rc == 0 && (de = readdir(d)) != NULL) {
		_cleanup_free_ char *child = NULL;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		child = xasprintf("%s/%s", dir, de->d_name);
		if (lstat(child, &st) == -1 || !S_ISDIR(st.st_mode))
			continue;
		/* pinned, so it cannot be renamed away and recreated */
		rc = add_guard(p, child, KB_GUARD_PIN_DIR, e);
		if (rc == 0)
			rc = guard_gitdir(p, child, common, depth + 1, e);
	}
	closedir(d);
	return rc;
}

/*
 * A git directory. `common` is true for a directory git takes hooks and
 * config from (a repository's .git, a submodule's gitdir); a linked
 * worktree's private gitdir only has commondir and config.worktree that
 * matter.
 */
/* Can the command write in `dir` at all? Elsewhere everything is a
 * read-only mount already and needs no guard (nor a placeholder, which
 * could not even be created there). */
static bool
writable_in_sandbox(const struct kb_policy *p, const char *dir)
{
	if (kb_policy_within_roots(p, dir))
		return true;
	for (size_t i = 0; i < p->nguard; i++)
		if (p->guard[i].kind == KB_GUARD_WRITABLE &&
		    kb_path_within(dir, p->guard[i].path))
			return true;
	return false;
}

static int
guard_gitdir(struct kb_policy *p, const char *gitdir, bool common, int depth,
    struct kb_err *e)
{
	if (!writable_in_sandbox(p, gitdir))
		return 0;
	if (guard_entry(p, gitdir, "commondir", KB_GUARD_WATCH_ABSENT, e) ||
	    guard_entry(p, gitdir, "config.worktree", KB_GUARD_WATCH_ABSENT,
		e))
		return -1;
	if (!common)
		return 0;
	if (guard_entry(p, gitdir, "hooks", KB_GUARD_RO_ABSENT_DIR, e) ||
	    guard_entry(p, gitdir, "config", KB_GUARD_RO_ABSENT_FILE, e))
		return -1;
	if (depth >= MODULE_DEPTH)
		return 0;
	if (guard_children(p, gitdir, "modules", true, depth, e) == -1)
		return -1;
	return guard_children(p, gitdir, "worktrees", false, depth, e);
}

/* Reads "gitdir: X" from a .git file and returns X resolved against `base`,
 * canonical; NULL when unreadable. */
static char *
read_gitfile(const char *file, const char *base)
{
	_cleanup_free_ char *s = kb_read_small_file(file, 4096);
	_cleanup_free_ char *joined = NULL;
	char *v, *nl;

	if (s == NULL || strncmp(s, "gitdir:", 7) != 0)
		return NULL;
	v = s + 7;
	while (*v == ' ' || *v == '\t')
		v++;
	if ((nl = strpbrk(v, "\r\n")) != NULL)
		*nl = '\0';
	if (*v == '\0')
		return NULL;
	joined = v[0] == '/' ? xstrdup(v) : xasprintf("%s/%s", base, v);
	return realpath(joined, NULL);
}

/* commondir of a linked worktree's gitdir, canonical; NULL when none. */
static char *
read_commondir(const char *gitdir)
{
	_cleanup_free_ char *f = xasprintf("%s/commondir", gitdir);
	_cleanup_free_ char *s = kb_read_small_file(f, 4096);
	_cleanup_free_ char *joined = NULL;
	char *nl;

	if (s == NULL)
		return NULL;
	if ((nl = strpbrk(s, "\r\n")) != NULL)
		*nl = '\0';
	if (*s == '\0')
		return NULL;
	joined = s[0] == '/' ? xstrdup(s) : xasprintf("%s/%s", gitdir, s);
	return realpath(joined, NULL);
}

/* The first "key = value" of a small git config file whose key matches,
 * as a new string, or NULL. Enough for core.worktree; not a config parser. */
static char *
config_value(const char *file, const char *key)
{
	_cleanup_free_ char *s = kb_read_small_file(file, 1 << 16);
	char *line, *save = NULL;

	if (s == NULL)
		return NULL;
	for (line = strtok_r(s, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char *v = line + strspn(line, " \t");
		size_t kl = strlen(key);

		if (strncmp(v, key, kl) != 0)
			continue;
		v += kl;
		v += strspn(v, " \t");
		if (*v++ != '=')
			continue;
		v += strspn(v, " \t");
		v[strcspn(v, "\r")] = '\0';
		return xstrdup(v);
	}
	return NULL;
}

/*
 * Does the git dir `wg` really belong to the checkout at `root`? A .git
 * file is an ordinary file in a writable tree: a command can plant
 * "gitdir: /anywhere" and would get /anywhere writable on the next run if
 * we believed it. So a pointer is trusted only when git's own back-pointer
 * agrees: a linked worktree's <gitdir>/gitdir names this .git file, a
 * submodule's gitdir has core.worktree naming this checkout.
 */
static bool
points_back(const char *root, const char *dotgit, const char *wg,
    bool worktree)
{
	_cleanup_free_ char *file = NULL;
	_cleanup_free_ char *val = NULL;
	_cleanup_free_ char *joined = NULL;
	_cleanup_free_ char *real = NULL;
	_cleanup_free_ char *want = NULL;

	if (worktree) {
		file = xasprintf("%s/gitdir", wg);
		val = kb_read_small_file(file, 4096);
		if (val == NULL)
			return false;
		val[strcspn(val, "\r\n")] = '\0';
		want = realpath(dotgit, NULL);
	} else {
		file = xasprintf("%s/config", wg);
		val = config_value(file, "worktree");
		if (val == NULL)
			return false;
		want = realpath(root, NULL);
	}
	joined = val[0] == '/' ? xstrdup(val) : xasprintf("%s/%s", wg, val);
	real = realpath(joined, NULL);
	return real != NULL && want != NULL && strcmp(real, want) == 0;
}

/* A git dir outside the roots becomes writable only if it passes the
 * write-root rules too (never /, $HOME, /proc...). */
static bool
may_write(const struct kb_policy *p, const char *dir)
{
	struct kb_err ignored;
	char *ok = kb_paths_accept_root(dir, p->home, "git dir", &ignored);

	free(ok);
	return ok != NULL;
}

/* A .git that is a file: a linked worktree or a submodule checkout. */
static int
guard_gitfile(struct kb_policy *p, const char *root, const char *dotgit,
    struct kb_err *e)
{
	_cleanup_free_ char *wg = NULL;
	_cleanup_free_ char *cg = NULL;
	bool trusted;

	/* the pointer itself must not be rewritten */
	if (add_guard(p, dotgit, KB_GUARD_RO, e) == -1)
		return -1;
	if ((wg = read_gitfile(dotgit, root)) == NULL)
		return 0; /* dangling: git will not use it either */
	cg = read_commondir(wg);
	if (cg != NULL && strcmp(cg, wg) != 0) {
		/* git commit in the worktree writes its index, HEAD and the
		 * shared objects and refs: these dirs are writable, their
		 * control files are not. */
		trusted = points_back(root, dotgit, wg, true) &&
		    may_write(p, wg) && may_write(p, cg);
		if (trusted && (add_guard(p, cg, KB_GUARD_WRITABLE, e) == -1 ||
				   add_guard(p, wg, KB_GUARD_WRITABLE, e) == -1))
			return -1;
		if (guard_gitdir(p, cg, true, 0, e) == -1)
			return -1;
		return guard_gitdir(p, wg, false, 0, e);
	}
	trusted = points_back(root, dotgit, wg, false) && may_write(p, wg);
	if (trusted && add_guard(p, wg, KB_GUARD_WRITABLE, e) == -1)
		return -1;
	return guard_gitdir(p, wg, true, 0, e);
}

/* Submodule checkouts named in .gitmodules: their .git files are pointers
 * that must not be redirected. */
static int
guard_submodule_files(struct kb_policy *p, const char *root, struct kb_err *e)
{
	_cleanup_free_ char *gm = xasprintf("%s/.gitmodules", root);
	_cleanup_free_ char *s = kb_read_small_file(gm, 1 << 20);
	char *line, *save = NULL;

	if (s == NULL)
		return 0;
	for (line = strtok_r(s, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		_cleanup_free_ char *sub = NULL;
		_cleanup_free_ char *real = NULL;
		char *v = line, *end;
		struct stat st;

		while (*v == ' ' || *v == '\t')
			v++;
		if (strncmp(v, "path", 4) != 0)
			continue;
		v += 4;
		while (*v == ' ' || *v == '\t')
			v++;
		if (*v++ != '=')
			continue;
		while (*v == ' ' || *v == '\t')
			v++;
		end = v + strlen(v);
		while (end > v && (end[-1] == ' ' || end[-1] == '\t' ||
				      end[-1] == '\r'))
			*--end = '\0';
		if (*v == '\0' || *v == '/')
			continue;
		sub = xasprintf("%s/%s/.git", root, v);
		if (lstat(sub, &st) == -1 || !S_ISREG(st.st_mode))
			continue;
		real = realpath(sub, NULL);
		/* judged at its real location: never guard outside root */
		if (real == NULL || !kb_path_within(real, root))
			continue;
		if (add_guard(p, real, KB_GUARD_RO, e) == -1)
			return -1;
	}
	return 0;
}

/* A bare repository (HEAD, objects/, refs/) granted as a root itself. */
static bool
is_gitdir(const char *dir)
{
	_cleanup_free_ char *head = xasprintf("%s/HEAD", dir);
	_cleanup_free_ char *objects = xasprintf("%s/objects", dir);
	_cleanup_free_ char *refs = xasprintf("%s/refs", dir);
	struct stat st;

	return lstat(head, &st) == 0 && S_ISREG(st.st_mode) &&
	    stat(objects, &st) == 0 && S_ISDIR(st.st_mode) &&
	    stat(refs, &st) == 0 && S_ISDIR(st.st_mode);
}

static int scan_root(struct kb_policy *, const char *, bool, struct kb_err *);

/*
 * Repositories one level below a root (a workspace that holds several
 * checkouts): guarded like the root's own. One readdir and a stat per
 * entry; deeper nested repositories are not looked for (a whole-tree walk
 * on every start would cost more than the sandbox) and are named as not
 * guarded in the man page.
 */
static int
scan_children(struct kb_policy *p, const char *root, struct kb_err *e)
{
	struct dirent *de;
	DIR *d = opendir(root);
	int rc = 0;

	if (d == NULL)
		return 0;
	while (rc == 0 && (de = readdir(d)) != NULL) {
		_cleanup_free_ char *child = NULL;
		_cleanup_free_ char *dotgit = NULL;
		struct stat st;

		if (de->d_name[0] == '.' ||
		    (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		child = xasprintf("%s/%s", root, de->d_name);
		dotgit = xasprintf("%s/.git", child);
		if (lstat(child, &st) == -1 || !S_ISDIR(st.st_mode) ||
		    lstat(dotgit, &st) == -1)
			continue;
		rc = scan_root(p, child, false, e);
	}
	closedir(d);
	return rc;
}

int
kb_gitguard_scan(struct kb_policy *p, const char *root, struct kb_err *e)
{
	return scan_root(p, root, true, e);
}

static int
scan_root(struct kb_policy *p, const char *root, bool top, struct kb_err *e)
{
	_cleanup_free_ char *dotgit = xasprintf("%s/.git", root);
	_cleanup_free_ char *real = NULL;
	struct stat st;

	if (is_gitdir(root))
		return guard_gitdir(p, root, true, 0, e);
	if (top && scan_children(p, root, e) == -1)
		return -1;

	if (lstat(dotgit, &st) == -1) {
		if (errno != ENOENT)
			return kb_err_set(e, "%s: %s", dotgit, strerror(errno));
		return top ? add_guard(p, dotgit, KB_GUARD_WATCH_NEWREPO, e) : 0;
	}
	if (S_ISREG(st.st_mode))
		return guard_gitfile(p, root, dotgit, e);
	if (S_ISLNK(st.st_mode)) {
		/* A symlinked .git cannot be pinned (a mount lands on its
		 * target) and has no back-pointer to check: its target's
		 * control files are guarded and the target stays read-only
		 * unless it lies in a root already (git commit then works).
		 * The audit notices a replaced link. */
		real = realpath(dotgit, NULL);
		if (real == NULL || stat(real, &st) == -1 ||
		    !S_ISDIR(st.st_mode))
			return 0;
		if (add_guard(p, dotgit, KB_GUARD_RO, e) == -1 ||
		    guard_gitdir(p, real, true, 0, e) == -1)
			return -1;
		return guard_submodule_files(p, root, e);
	}
	if (!S_ISDIR(st.st_mode))
		return 0;
	if (add_guard(p, dotgit, KB_GUARD_PIN_DIR, e) == -1 ||
	    guard_gitdir(p, dotgit, true, 0, e) == -1)
		return -1;
	{
		_cleanup_free_ char *index = xasprintf("%s/index", dotgit);

		if (add_guard(p, index, KB_GUARD_WATCH_INDEX, e) == -1)
			return -1;
	}
	return guard_submodule_files(p, root, e);
}

/* --- after the run ------------------------------------------------------ */

static bool
dir_is_empty(const char *path)
{
	struct dirent *de;
	DIR *d = opendir(path);
	bool empty = true;

	if (d == NULL)
		return false;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			empty = false;
	closedir(d);
	return empty;
}

/* Moves a planted entry out of git's way; returns the new name or NULL. */
static char *
quarantine(const char *path)
{
	char *to = xasprintf("%s.kinbox-quarantine.%ld", path, (long)getpid());

	if (rename(path, to) == -1) {
		free(to);
		return NULL;
	}
	return to;
}

typedef void (*report_fn)(const char *, bool);

static void reportf(report_fn report, bool security, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
reportf(report_fn report, bool security, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	report(line, security);
}

/* Config keys that make git run a program. A heuristic on a config the
 * command wrote from scratch; git init writes none of them. */
static const char *const exec_keys[] = {
	"hookspath", "fsmonitor", "sshcommand", "askpass", "textconv",
	"editor", "pager", "[filter", "helper", "program", "external",
	"worktree", "=!", "= !", "gitproxy", "packobjectshook", "[include",
};

static bool
config_runs_code(const char *file)
{
	_cleanup_free_ char *s = kb_read_small_file(file, 1 << 20);

	if (s == NULL)
		return false;
	for (char *c = s; *c; c++)
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
	for (size_t i = 0; i < nitems(exec_keys); i++)
		if (strstr(s, exec_keys[i]) != NULL)
			return true;
	return false;
}

/*
 * A repository the command created where there was none: git would take
 * its hooks and config at the next commit outside. Executable hooks are
 * made non-executable, linked hooks and a config that names programs are
 * moved aside; each is reported.
 */
static int
audit_newrepo(const char *dotgit, report_fn report)
{
	_cleanup_free_ char *hooks = xasprintf("%s/hooks", dotgit);
	_cleanup_free_ char *config = xasprintf("%s/config", dotgit);
	static const char *const planted[] = { "commondir", "config.worktree" };
	struct dirent *de;
	struct stat st;
	int found = 0;
	char *q;
	DIR *d;

	if (config_runs_code(config)) {
		found++;
		q = quarantine(config);
		reportf(report, true, "the command wrote %s with keys that run "
		    "programs (core.hooksPath, fsmonitor, ...); %s", config,
		    q ? "moved aside to review" :
		    "remove it before running git here");
		free(q);
	}
	for (size_t i = 0; i < nitems(planted); i++) {
		_cleanup_free_ char *f = xasprintf("%s/%s", dotgit, planted[i]);

		if (lstat(f, &st) == -1)
			continue;
		found++;
		q = quarantine(f);
		reportf(report, true, "the command planted %s; %s", f,
		    q ? "moved aside to review" : "remove it");
		free(q);
	}
	if (lstat(hooks, &st) == 0 && S_ISLNK(st.st_mode)) {
		found++;
		q = quarantine(hooks);
		reportf(report, true, "the command made %s a symlink; %s", hooks,
		    q ? "moved aside to review" : "remove it");
		free(q);
		return found;
	}
	if ((d = opendir(hooks)) == NULL)
		return found;
	while ((de = readdir(d)) != NULL) {
		_cleanup_free_ char *h = NULL;
		size_t n = strlen(de->d_name);

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    (n > 7 && strcmp(de->d_name + n - 7, ".sample") == 0))
			continue;
		h = xasprintf("%s/%s", hooks, de->d_name);
		if (lstat(h, &st) == -1)
			continue;
		if (S_ISREG(st.st_mode) && (st.st_mode & 0111) == 0)
			continue; /* git ignores a non-executable hook */
		found++;
		if (S_ISREG(st.st_mode) && chmod(h, st.st_mode & 07666) == 0) {
			reportf(report, true, "the command created the git hook "
			    "%s; it was made non-executable, review it before "
			    "running git here", h);
			continue;
		}
		q = quarantine(h);
		reportf(report, true, "the command created the git hook %s; %s",
		    h, q ? "moved aside to review" :
		    "delete it before running git here");
		free(q);
	}
	closedir(d);
	return found;
}

/* a at or after b: the coarse clock may give both the same tick */
static bool
newer(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec ||
	    (a->tv_sec == b->tv_sec && a->tv_nsec >= b->tv_nsec);
}

/*
 * The index changed during the run: each gitlinked repository whose .git
 * (or its config or hooks) changed during the run is audited as a new
 * repository. ctime cannot be set back by the command.
 */
static int
audit_index(const struct kb_guard *g, const struct stat *now,
    const struct timespec *started, report_fn report)
{
	struct kb_strv links = { 0 };
	_cleanup_free_ char *top = xstrdup(g->path);
	int found = 0;
	char *slash;

	if (now == NULL || (g->type != 0 && now->st_ctim.tv_sec == g->ctime.tv_sec &&
				now->st_ctim.tv_nsec == g->ctime.tv_nsec))
		return 0;
	/* <root>/.git/index -> <root> */
	if ((slash = strrchr(top, '/')) != NULL)
		*slash = '\0';
	if ((slash = strrchr(top, '/')) != NULL)
		*slash = '\0';
	if (kb_git_index_gitlinks(g->path, &links) == -1) {
		reportf(report, true, "%s changed during the run and cannot be "
		    "read; check its submodules before running git here",
		    g->path);
		return 1;
	}
	for (size_t i = 0; i < links.n; i++) {
		_cleanup_free_ char *dotgit = NULL;
		struct stat st;
		bool changed = false;
		static const char *const parts[] = { "", "/config", "/hooks" };

		if (strstr(links.v[i], "..") != NULL || links.v[i][0] == '/')
			continue;
		dotgit = xasprintf("%s/%s/.git", top, links.v[i]);
		if (lstat(dotgit, &st) == -1)
			continue;
		if (!S_ISDIR(st.st_mode)) {
			/* a .git file: a pointer only a planted repo needs */
			if (newer(&st.st_ctim, started)) {
				char *q = quarantine(dotgit);

				found++;
				reportf(report, true, "the command planted %s (a "
				    "gitlinked .git pointing elsewhere); %s",
				    dotgit, q ? "moved aside to review" :
				    "remove it before running git here");
				free(q);
			}
			continue;
		}
		for (size_t k = 0; k < nitems(parts); k++) {
			_cleanup_free_ char *f = xasprintf("%s%s", dotgit,
			    parts[k]);

			if (lstat(f, &st) == 0 && newer(&st.st_ctim, started))
				changed = true;
		}
		if (changed)
			found += audit_newrepo(dotgit, report);
	}
	kb_strv_free(&links);
	return found;
}

/* Is the guarded entry still what it was? A symlink is compared by its
 * target (a mount cannot pin a link, and a recycled inode number can make
 * a new directory look like the old one). */
static bool
unchanged(const struct kb_guard *g, const struct stat *st)
{
	char buf[PATH_MAX];
	ssize_t n;

	if ((st->st_mode & S_IFMT) != g->type)
		return false;
	if (g->link != NULL) {
		n = readlink(g->path, buf, sizeof(buf) - 1);
		if (n < 0)
			return false;
		buf[n] = '\0';
		return strcmp(buf, g->link) == 0;
	}
	return st->st_dev == g->dev && st->st_ino == g->ino;
}

int
kb_gitguard_audit(const struct kb_policy *p, report_fn report)
{
	int findings = 0;

	for (size_t i = 0; i < p->nguard; i++) {
		const struct kb_guard *g = &p->guard[i];
		struct stat st;
		bool exists = lstat(g->path, &st) == 0;
		char *q;

		switch (g->kind) {
		case KB_GUARD_PIN_DIR:
		case KB_GUARD_RO:
		case KB_GUARD_WRITABLE:
			if (exists && unchanged(g, &st))
				break;
			findings++;
			if (g->link != NULL) {
				/* undo: what replaced the link goes aside,
				 * the link comes back */
				q = exists ? quarantine(g->path) : NULL;
				if ((!exists || q != NULL) &&
				    symlink(g->link, g->path) == 0) {
					reportf(report, true, "%s was replaced "
					    "during the run; the symlink was "
					    "restored%s%s", g->path,
					    q ? ", the replacement moved to " : "",
					    q ? q : "");
					free(q);
					break;
				}
				free(q);
			}
			reportf(report, true, "%s was %s during the run; check it "
			    "before running git here", g->path,
			    exists ? "replaced" : "removed");
			break;
		case KB_GUARD_RO_ABSENT_DIR:
			if (!exists)
				break;
			/* the sandbox's placeholder mount point: empty */
			if (S_ISDIR(st.st_mode) && dir_is_empty(g->path) &&
			    rmdir(g->path) == 0)
				break;
			findings++;
			q = quarantine(g->path);
			reportf(report, true, "%s appeared during the run; %s",
			    g->path, q ? "moved aside to review" :
			    "remove it before running git here");
			free(q);
			break;
		case KB_GUARD_RO_ABSENT_FILE:
			if (!exists)
				break;
			if (S_ISREG(st.st_mode) && st.st_size == 0 &&
			    unlink(g->path) == 0)
				break;
			__attribute__((fallthrough));
		case KB_GUARD_WATCH_ABSENT:
			if (!exists)
				break;
			findings++;
			q = quarantine(g->path);
			reportf(report, true, "the command planted %s (git would "
			    "obey it); %s", g->path, q ? "moved aside to review" :
			    "remove it before running git here");
			free(q);
			break;
		case KB_GUARD_WATCH_INDEX:
			findings += audit_index(g, exists ? &st : NULL,
			    &p->started, report);
			break;
		case KB_GUARD_WATCH_NEWREPO:
			if (!exists)
				break;
			if (S_ISDIR(st.st_mode)) {
				findings += audit_newrepo(g->path, report);
				break;
			}
			/* a pointer to a git dir elsewhere: git would take
			 * hooks and config from there */
			findings++;
			q = quarantine(g->path);
			reportf(report, true, "the command planted %s (a .git "
			    "%s pointing elsewhere); %s", g->path,
			    S_ISLNK(st.st_mode) ? "symlink" : "file",
			    q ? "moved aside to review" :
			    "remove it before running git here");
			free(q);
			break;
		}
	}
	return findings;
}
