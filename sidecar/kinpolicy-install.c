/*
 * sidecar/kinpolicy-install.c — `kinpolicy hook install AGENT` and `kinpolicy
 * hook uninstall AGENT`: kinpolicy's hook block (README.md, "Use with your
 * agent") merged into the agent's settings file, or taken out of it. The
 * merge is sidecar/hookinstall.c's; this file finds the file, reads it,
 * prints what changes (a unified diff with --dry-run) and writes it:
 *
 *   - the file: the user's (~/.claude/settings.json, ~/.codex/hooks.json,
 *     ~/.gemini/settings.json, ~/.cursor/hooks.json; CLAUDE_CONFIG_DIR,
 *     CODEX_HOME and GEMINI_CLI_HOME move them as they move the agent's),
 *     or with --project the project's (the same names below the top of
 *     the git repository around the working directory, never the home
 *     directory or /);
 *   - a symlink (the file, or a directory on its way) is followed only
 *     when what it leads to lies inside the home directory (--project:
 *     the project; or the directory the agent's variable names); else the
 *     call is refused, nothing written;
 *   - before a change, the file as it was goes to FILE.kinbox-bak beside
 *     it (the one backup of kinpolicy's last change, overwritten by the
 *     next); both are written atomically (a temporary file in the same
 *     directory, fsync, rename), with the file's mode and owner;
 *   - a missing directory is made with mode 0700;
 *   - a file that is not JSON, or whose JSON is not of the agent's shape,
 *     is refused with one line and exit status 125, nothing written.
 *
 * The command written is this kinpolicy's absolute path (/proc/self/exe),
 * so that the PATH the agent runs hooks with does not matter.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bsd/stdlib.h>

#include <jansson.h>

#include "../lib/fsat.h"
#include "../lib/util.h"
#include "../profile/policy.h"
#include "hook.h"
#include "hookinstall.h"
#include "kinpolicy.h"
#include "udiff.h"

/* no settings file is this large; one that is, is not merged into */
#define SETTINGS_MAX  (4u << 20)
#define BACKUP_SUFFIX ".kinbox-bak"

struct target {
	enum kb_agent agent;
	bool project;
	char *home;   /* canonical */
	char *root;   /* --project: the project (canonical) */
	char *envdir; /* the directory the agent's variable names
			 (canonical), or NULL */
	const char *envname;
	char *dir;     /* the directory of the file, as named */
	char *path;    /* the file, as named */
	char *realdir; /* its canonical directory; NULL: still to be made */
	char *base;    /* the file's name in realdir */
	char *linked;  /* the canonical file a symlink leads to, or NULL */
	struct kb_strv made; /* the directories made */
};

static void
target_free(struct target *t)
{
	free(t->home);
	free(t->root);
	free(t->envdir);
	free(t->dir);
	free(t->path);
	free(t->realdir);
	free(t->base);
	free(t->linked);
	kb_strv_free(&t->made);
}

/* a path for a line kinpolicy prints: escaped (kb_escape); a new string */
#define E(s) kb_escape(s)

/* this kinpolicy's absolute path, for the hook command */
static char *
self_path(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	const char *sl;

	if (n <= 0)
		die_errno("hook install: kinpolicy's own path (/proc/self/exe) "
			  "cannot be read; is /proc mounted?");
	buf[n] = '\0';
	if (buf[0] != '/' ||
	    (n > 10 && strcmp(buf + n - 10, " (deleted)") == 0))
		die("hook install: kinpolicy's own file %s was removed or "
		    "replaced; run the installed kinpolicy",
		    buf);
	for (ssize_t i = 0; i < n; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			die("hook install: kinpolicy's path %s holds a control "
			    "character; install kinpolicy under a plain path",
			    buf);
	sl = strrchr(buf, '/');
	if (strcmp(sl + 1, "kinpolicy") != 0)
		die("hook install: this kinpolicy is named %s; the hook "
		    "command must end in /kinpolicy (install and uninstall "
		    "recognise it by that): run it as kinpolicy",
		    sl + 1);
	return xstrdup(buf);
}

/* `path` lies in the home directory, the project, or the agent's own
 * directory (whichever apply) */
static bool
kp_allowed(const struct target *t, const char *path)
{
	if (t->project)
		return kb_path_within(path, t->root);
	return kb_path_within(path, t->home) ||
	       (t->envdir != NULL && kb_path_within(path, t->envdir));
}

static const char *
where(const struct target *t)
{
	if (t->project)
		return "the project";
	return t->envdir != NULL ? "your home directory or the agent's"
				 : "your home directory";
}

/* --project: the top of the git repository around the working directory
 * (a .git directory or file, as git finds it), never the home directory
 * or / */
static char *
kp_install_project_root(const char *home)
{
	char *cwd = getcwd(NULL, 0), *real, *dir;

	if (cwd == NULL || (real = realpath(cwd, NULL)) == NULL)
		die_errno("hook install --project: the working directory");
	free(cwd);
	dir = xstrdup(real);
	for (;;) {
		_cleanup_free_ char *probe = xasprintf(
		    "%s%s.git", dir, strcmp(dir, "/") == 0 ? "" : "/");
		struct stat st;
		char *sl;

		if (lstat(probe, &st) == 0)
			break;
		if (strcmp(dir, "/") == 0) {
			_cleanup_free_ char *w = E(real);

			die("--project: no git repository around %s; the "
			    "project is the top of its git repository: run "
			    "this inside it, or leave out --project for your "
			    "own settings",
			    w);
		}
		sl = strrchr(dir, '/');
		if (sl == dir)
			sl[1] = '\0';
		else
			*sl = '\0';
	}
	if (strcmp(dir, "/") == 0 || strcmp(dir, home) == 0) {
		_cleanup_free_ char *w = E(real), *d = E(dir);

		die("--project: the git repository around %s has its top at "
		    "%s, %s; kinpolicy writes no project settings there: run "
		    "it in a project's repository, or leave out --project for "
		    "your own settings",
		    w, d, strcmp(dir, "/") == 0 ? "/" : "your home directory");
	}
	free(real);
	return dir;
}

/* the directory an agent's variable names (CLAUDE_CONFIG_DIR, CODEX_HOME,
 * GEMINI_CLI_HOME), canonical; NULL when it is not set */
static char *
env_dir(const char *name)
{
	const char *v = getenv(name);
	char *r;

	if (v == NULL || v[0] == '\0')
		return NULL;
	if (v[0] != '/')
		die("%s=%s is not an absolute path; set it to the agent's "
		    "directory, or unset it",
		    name, v);
	if ((r = realpath(v, NULL)) == NULL)
		die("%s=%s: %s; the agent's directory it names must exist: "
		    "make it, or unset %s",
		    name, v, strerror(errno), name);
	return r;
}

static void
find_target(struct target *t)
{
	const char *rel = kb_hookinstall_relpath(t->agent);
	_cleanup_free_ char *relcopy = xstrdup(rel);
	char *sl = strchr(relcopy, '/');

	*sl = '\0'; /* relcopy: ".claude", sl + 1: "settings.json" */
	if ((t->home = kb_paths_home()) == NULL)
		die("hook install: no home directory (HOME is not set and "
		    "the password database has none)");
	if (t->project) {
		t->root = kp_install_project_root(t->home);
		t->dir = xasprintf("%s/%s", t->root, relcopy);
	} else {
		switch (t->agent) {
		case KB_AGENT_CLAUDE:
			t->envname = "CLAUDE_CONFIG_DIR";
			break;
		case KB_AGENT_CODEX:
			t->envname = "CODEX_HOME";
			break;
		case KB_AGENT_GEMINI:
			t->envname = "GEMINI_CLI_HOME";
			break;
		case KB_AGENT_CURSOR:
			break;
		}
		if (t->envname != NULL)
			t->envdir = env_dir(t->envname);
		if (t->envdir != NULL && t->agent == KB_AGENT_GEMINI)
			/* Gemini CLI's home directory, not its directory */
			t->dir = xasprintf("%s/%s", t->envdir, relcopy);
		else if (t->envdir != NULL)
			t->dir = xstrdup(t->envdir);
		else
			t->dir = xasprintf("%s/%s", t->home, relcopy);
	}
	t->base = xstrdup(sl + 1);
	t->path = xasprintf("%s/%s", t->dir, t->base);
}

/*
 * Where the file really is: the canonical directory (NULL when a part of
 * it is still to be made: the part that exists must lie where kp_allowed())
 * and, when the file is a symlink, the canonical file it leads to, which
 * must be a regular file where kp_allowed().
 */
static void
kp_resolve(struct target *t)
{
	_cleanup_free_ char *d = xstrdup(t->dir);
	_cleanup_free_ char *real = NULL;
	_cleanup_free_ char *file = NULL;
	struct stat st;

	while (stat(d, &st) != 0) {
		char *sl = strrchr(d, '/');

		if (errno != ENOENT || sl == NULL || sl == d)
			die_errno("%s", d);
		*sl = '\0';
	}
	if (!S_ISDIR(st.st_mode) || (real = realpath(d, NULL)) == NULL) {
		_cleanup_free_ char *w = E(d);

		die("%s is not a directory; move it away, then run kinpolicy "
		    "again; nothing was written",
		    w);
	}
	if (!kp_allowed(t, real)) {
		_cleanup_free_ char *w = E(d), *r = E(real);

		die("%s leads to %s, outside %s; kinpolicy writes no settings "
		    "through a link that leads out of it: add the block there "
		    "by hand (README.md, Use with your agent), or replace the "
		    "link; nothing was written",
		    w, r, where(t));
	}
	if (strcmp(d, t->dir) != 0)
		return; /* the rest is made, and the file with it */
	t->realdir = steal_pointer(&real);
	file = xasprintf("%s/%s", t->realdir, t->base);
	if (lstat(file, &st) != 0) {
		if (errno != ENOENT)
			die_errno("%s", t->path);
		return;
	}
	if (S_ISLNK(st.st_mode)) {
		_cleanup_free_ char *w = E(t->path);
		char *to = realpath(file, NULL), *sl;

		if (to == NULL)
			die("%s is a symbolic link that leads nowhere (%s); "
			    "remove it or make what it names, then run "
			    "kinpolicy again; nothing was written",
			    w, strerror(errno));
		if (!kp_allowed(t, to)) {
			_cleanup_free_ char *r = E(to);

			free(to);
			die("%s is a symbolic link to %s, outside %s; "
			    "kinpolicy writes no settings through a link that "
			    "leads out of it: add the block there by hand "
			    "(README.md, Use with your agent), or replace the "
			    "link; nothing was written",
			    w, r, where(t));
		}
		if (stat(to, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(to);
			die("%s is a symbolic link to something that is not a "
			    "regular file; replace it; nothing was written",
			    w);
		}
		t->linked = to;
		sl = strrchr(to, '/');
		free(t->realdir);
		free(t->base);
		t->base = xstrdup(sl + 1);
		t->realdir = sl == to ? xstrdup("/")
				      : xasprintf("%.*s", (int)(sl - to), to);
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		_cleanup_free_ char *w = E(t->path);

		die("%s is not a regular file; move it away; nothing was "
		    "written",
		    w);
	}
}

/* makes what is missing of t->dir (0700), then resolves it again */
static void
make_dir(struct target *t)
{
	_cleanup_free_ char *real = NULL;

	if (kb_mkdirs(t->dir, 0700, &t->made) == -1)
		die_errno("making %s", t->dir);
	if ((real = realpath(t->dir, NULL)) == NULL)
		die_errno("%s", t->dir);
	if (!kp_allowed(t, real)) {
		_cleanup_free_ char *w = E(t->dir), *r = E(real);

		die("%s leads to %s, outside %s; nothing was written", w, r,
		    where(t));
	}
	t->realdir = steal_pointer(&real);
}

/* the file as read, and its metadata (exists false: there is none) */
struct current {
	bool exists;
	char *text;
	size_t len;
	struct stat st;
};

static void
read_current(const struct target *t, int dfd, struct current *c)
{
	int fd = openat(dfd, t->base,
	    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	_cleanup_free_ char *w = E(t->linked != NULL ? t->linked : t->path);

	c->exists = fd != -1;
	if (fd == -1 && errno == ENOENT) {
		c->text = xstrdup("");
		c->len = 0;
		return;
	}
	if (fd == -1)
		die("%s: %s; nothing was written", w,
		    errno == ELOOP ? "became a symbolic link"
				   : strerror(errno));
	if (fstat(fd, &c->st) == -1)
		die_errno("%s", w);
	if (!S_ISREG(c->st.st_mode))
		die("%s is not a regular file; move it away; nothing was "
		    "written",
		    w);
	if ((c->text = kb_read_fd(fd, SETTINGS_MAX, &c->len)) == NULL)
		die("%s: %s; nothing was written", w,
		    errno == EFBIG ? "larger than 4 MiB, not a settings file "
				     "kinpolicy merges into"
				   : strerror(errno));
	close(fd);
}

/* writes `text` to dirfd/name atomically: a new file beside it, fsync,
 * rename over it; mode `mode`, and (as root) the owner of `owner` */
static void
write_at(int dfd, const char *name, const char *text, size_t len, mode_t mode,
    const struct stat *owner, const char *shown)
{
	_cleanup_free_ char *tmp = NULL;
	_cleanup_free_ char *w = E(shown);
	size_t off = 0;
	int fd = -1;

	for (int i = 0; i < 16 && fd == -1; i++) {
		free(tmp);
		tmp = xasprintf(".%s.kinbox-tmp.%ld.%08x", name, (long)getpid(),
		    arc4random());
		fd = openat(dfd, tmp,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd == -1 && errno != EEXIST)
			break;
	}
	if (fd == -1)
		die("%s: cannot make a file beside it (%s); nothing was "
		    "written",
		    w, strerror(errno));
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);

		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			goto fail;
		off += (size_t)n;
	}
	if (fchmod(fd, mode & 07777) == -1)
		goto fail;
	if (owner != NULL && geteuid() == 0 &&
	    fchown(fd, owner->st_uid, owner->st_gid) == -1)
		goto fail;
	if (fsync(fd) == -1 || close(fd) == -1) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (renameat(dfd, tmp, dfd, name) == -1)
		goto fail;
	return;
fail : {
	int err = errno;

	if (fd != -1)
		close(fd);
	unlinkat(dfd, tmp, 0);
	die("%s: %s; it was left as it was", w, strerror(err));
}
}

static void
sync_dir(int dfd)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd != -1) {
		fsync(fd);
		close(fd);
	}
}

/* the entry of the agent's block for `event`, or NULL */
static const struct kb_hookinstall_entry *
entry_of(enum kb_agent agent, const char *event)
{
	size_t n;
	const struct kb_hookinstall_entry *en =
	    kb_hookinstall_entries(agent, &n);

	for (size_t i = 0; i < n; i++)
		if (strcmp(en[i].event, event) == 0)
			return &en[i];
	return NULL;
}

static void
print_changes(const struct target *t, const struct kb_hookinstall_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct kb_hookinstall_change *c = &r->ch[i];
		const struct kb_hookinstall_entry *en =
		    entry_of(t->agent, c->event);
		_cleanup_free_ char *ev = E(c->event);
		_cleanup_free_ char *was = c->was != NULL ? E(c->was) : NULL;
		struct kb_buf b = {0};

		kb_buf_printf(&b, "  %-20s ", ev);
		switch (c->what) {
		case KB_HI_SAME:
			kb_buf_puts(&b, "unchanged");
			break;
		case KB_HI_ADDED:
			kb_buf_puts(&b, "added");
			if (strcmp(c->event, "version") == 0 &&
			    t->agent == KB_AGENT_CURSOR)
				kb_buf_puts(&b, " (1)");
			break;
		case KB_HI_UPDATED:
			kb_buf_printf(&b, "updated (was: %s%s)", was,
			    c->removed > 1 ? ", and duplicates removed" : "");
			break;
		case KB_HI_REMOVED:
			kb_buf_printf(&b, "removed (%s%s)", was,
			    c->removed > 1 ? ", and others" : "");
			break;
		}
		if (en != NULL && c->what != KB_HI_REMOVED &&
		    (en->matcher != NULL || en->timeout > 0)) {
			_cleanup_free_ char *m =
			    en->matcher != NULL ? E(en->matcher) : NULL;

			kb_buf_printf(&b, ": %s%s%s",
			    m != NULL ? "matcher " : "", m != NULL ? m : "",
			    m != NULL && en->timeout > 0 ? ", " : "");
			if (en->timeout > 0)
				kb_buf_printf(&b, "timeout %d%s", en->timeout,
				    t->agent == KB_AGENT_GEMINI ? " ms" : " s");
		}
		printf("%s\n", b.s);
		kb_buf_free(&b);
	}
}

/* warnings: the settings or Codex's config.toml turn hooks off */
static void
warn_disabled(const struct target *t, const json_t *doc)
{
	const char *why = kb_hookinstall_disabled(doc, t->agent);
	_cleanup_free_ char *w = E(t->path);

	if (why != NULL)
		warnx("warning: %s: %s; kinpolicy's hooks will not run until "
		      "it is changed (kinpolicy did not change it)",
		    w, why);
	if (t->agent != KB_AGENT_CODEX)
		return;
	/* Codex's own config.toml (CODEX_HOME's, else ~/.codex's), and with
	 * --project the project's */
	for (int i = 0; i < 2; i++) {
		const char *ch = getenv("CODEX_HOME");
		_cleanup_free_ char *cfg = NULL;
		_cleanup_free_ char *text = NULL;
		size_t line;

		if (i == 0 && ch != NULL && ch[0] == '/')
			cfg = xasprintf("%s/config.toml", ch);
		else if (i == 0)
			cfg = xasprintf("%s/.codex/config.toml", t->home);
		else if (t->project)
			cfg = xasprintf("%s/config.toml", t->dir);
		else
			break;
		if ((text = kb_read_small_file(cfg, SETTINGS_MAX)) == NULL)
			continue;
		if ((line = kb_hookinstall_codex_off(text)) > 0) {
			_cleanup_free_ char *c = E(cfg);

			warnx("warning: %s, line %zu, turns Codex's hooks off "
			      "([features] hooks = false); kinpolicy's hooks "
			      "will not run until it is removed (kinpolicy did "
			      "not change it)",
			    c, line);
		}
	}
}

static void
kp_install_notes(const struct target *t, bool dry)
{
	_cleanup_free_ char *w = E(t->path);

	if (t->agent == KB_AGENT_CODEX) {
		printf(
		    "Codex runs a new or changed hook only once it is "
		    "trusted: open /hooks in Codex and trust kinpolicy's hooks"
		    "%s\n",
		    t->project ? "; it reads a project's .codex/hooks.json "
				 "only in a project it trusts"
			       : "");
	}
	if (t->linked != NULL) {
		_cleanup_free_ char *l = E(t->linked);

		printf("%s is a link to %s: that file %s\n", w, l,
		    dry ? "would be written" : "was written");
	}
	for (size_t i = 0; i < t->made.n; i++) {
		_cleanup_free_ char *d = E(t->made.v[i]);

		printf("made %s (mode 0700)\n", d);
	}
}

static void
warn_prefix(const char *other)
{
	_cleanup_free_ char *o = E(other);

	printf("note: env.CLAUDE_CODE_SHELL_PREFIX is another program's (%s): "
	       "kept; the hook rewrites each shell call instead, where Claude "
	       "Code's own rules see kinbox's command (kinpolicy keeps your "
	       "deny rules in force itself)\n",
	    o);
}

/* Claude Code's shell prefix: kinbox-sh beside kinpolicy, quoted for the
 * shell Claude Code parses the prefix with; NULL when there is none (the
 * hook then rewrites each command, as for the other agents) */
static const char *
kp_claude_prefix(const char *self)
{
	static char *prefix;
	_cleanup_free_ char *dir = NULL;
	_cleanup_free_ char *sh = NULL;
	struct kb_buf b = {0};
	char *sl;

	if (self == NULL || prefix != NULL)
		return prefix;
	dir = xstrdup(self);
	if ((sl = strrchr(dir, '/')) == NULL)
		return NULL;
	*sl = '\0';
	sh = xasprintf("%s/kinbox-sh", dir);
	if (access(sh, X_OK) == -1)
		return NULL;
	kb_buf_add(&b, "", 0);
	kb_buf_shquote(&b, sh);
	kb_buf_puts(&b, " --claude-code");
	prefix = b.s;
	return prefix;
}

static int
run(enum kb_agent agent, bool install, bool project, bool dry)
{
	struct target t = {.agent = agent, .project = project};
	struct kb_hookinstall_report r = {0};
	struct current cur = {0};
	_cleanup_free_ char *self = install ? self_path() : NULL;
	_cleanup_free_ char *command =
	    self != NULL ? kb_hookinstall_command(self, agent) : NULL;
	_cleanup_free_ char *oldtext = NULL;
	_cleanup_free_ char *newtext = NULL;
	_cleanup_free_ char *shown = NULL;
	_cleanup_free_ char *cmdw = NULL;
	_cleanup_close_ int dfd = -1;
	const char *verb = install ? "install" : "uninstall";
	const char *other_prefix = NULL;
	const char *name = kb_agent_name(agent);
	json_t *doc = NULL, *next = NULL, *back;
	struct kb_err e;

	if (command != NULL && !kb_hookinstall_is_ours(command, agent, NULL))
		die("hook install: the command %s would not be recognised as "
		    "kinpolicy's; install kinpolicy under a plain path",
		    command);
	find_target(&t);
	kp_resolve(&t);
	shown = E(t.path);
	if (t.realdir != NULL) {
		if ((dfd = kb_open_dir_nofollow(t.realdir)) == -1)
			die_errno("%s", t.realdir);
		read_current(&t, dfd, &cur);
	} else {
		cur.text = xstrdup("");
	}
	if (!install && !cur.exists) {
		printf(
		    "%s does not exist: no %s hook to remove\n", shown, name);
		goto done;
	}
	if ((doc = kb_hookinstall_parse(cur.text, cur.len, &e)) == NULL)
		die("%s: %s; fix it, or move it away, then run kinpolicy hook "
		    "%s again; nothing was written",
		    shown, e.msg, verb);
	next = json_deep_copy(doc);
	if (next == NULL)
		die("out of memory");
	if ((install ? kb_hookinstall_install(next, agent, command, &r, &e)
		     : kb_hookinstall_uninstall(next, agent, &r, &e)) == -1 ||
	    (agent == KB_AGENT_CLAUDE &&
		kb_hookinstall_claude_prefix(next,
		    install ? kp_claude_prefix(self) : NULL, &r, &other_prefix,
		    &e) == -1))
		die("%s: %s: not the shape %s's settings have; fix it by hand "
		    "(README.md, Use with your agent), or move it away; "
		    "nothing "
		    "was written",
		    shown, e.msg, name);
	cmdw = command != NULL ? E(command) : NULL;
	if (json_equal(doc, next)) {
		if (install)
			printf("the %s hook is already installed in %s: "
			       "nothing %s (command: %s)\n",
			    name, shown, dry ? "would change" : "changed",
			    cmdw);
		else
			printf("no %s hook of kinpolicy in %s: nothing %s\n",
			    name, shown, dry ? "would change" : "changed");
		if (install)
			warn_disabled(&t, next);
		if (install && other_prefix != NULL)
			warn_prefix(other_prefix);
		goto done;
	}
	oldtext = cur.exists ? kb_hookinstall_dump(doc) : xstrdup("");
	newtext = kb_hookinstall_dump(next);
	/* what is written reads back as what was merged */
	back = kb_hookinstall_parse(newtext, strlen(newtext), &e);
	if (back == NULL || !json_equal(back, next))
		die("internal error: the merged settings do not read back; "
		    "nothing was written");
	json_decref(back);
	if (!dry) {
		mode_t mask = umask(0);
		struct stat now;

		umask(mask);
		if (t.realdir == NULL) {
			make_dir(&t);
			if ((dfd = kb_open_dir_nofollow(t.realdir)) == -1)
				die_errno("%s", t.realdir);
		}
		if (cur.exists) {
			_cleanup_free_ char *bak =
			    xasprintf("%s%s", t.base, BACKUP_SUFFIX);
			_cleanup_free_ char *bshown = xasprintf("%s%s",
			    t.linked != NULL ? t.linked : t.path,
			    BACKUP_SUFFIX);

			write_at(dfd, bak, cur.text, cur.len, cur.st.st_mode,
			    &cur.st, bshown);
		}
		/* another program (the agent) wrote the file meanwhile: its
		 * change would be lost */
		if (cur.exists
			? (fstatat(dfd, t.base, &now, AT_SYMLINK_NOFOLLOW) ==
				  -1 ||
			      now.st_ino != cur.st.st_ino ||
			      now.st_dev != cur.st.st_dev ||
			      now.st_size != cur.st.st_size ||
			      now.st_mtim.tv_sec != cur.st.st_mtim.tv_sec ||
			      now.st_mtim.tv_nsec != cur.st.st_mtim.tv_nsec)
			: fstatat(dfd, t.base, &now, AT_SYMLINK_NOFOLLOW) == 0)
			die("%s changed while kinpolicy was merging into it; "
			    "run kinpolicy hook %s again; it was not written",
			    shown, verb);
		write_at(dfd, t.base, newtext, strlen(newtext),
		    cur.exists ? cur.st.st_mode : (0666 & ~mask),
		    cur.exists ? &cur.st : NULL,
		    t.linked != NULL ? t.linked : t.path);
		sync_dir(dfd);
	}
	if (install)
		printf("%s the %s hook in %s:\n",
		    dry ? "would install" : "installed", name, shown);
	else
		printf("%s the %s hook from %s:\n",
		    dry ? "would remove" : "removed", name, shown);
	print_changes(&t, &r);
	if (install)
		printf("command: %s (this kinpolicy's absolute path: the PATH "
		       "the agent runs hooks with does not matter)\n",
		    cmdw);
	if (cur.exists && !dry) {
		_cleanup_free_ char *b =
		    E(t.linked != NULL ? t.linked : t.path);

		printf(
		    "backup of the file as it was: %s%s\n", b, BACKUP_SUFFIX);
	}
	if (install)
		kp_install_notes(&t, dry);
	if (install)
		warn_disabled(&t, next);
	if (install && other_prefix != NULL)
		warn_prefix(other_prefix);
	if (dry) {
		_cleanup_free_ char *diff = kb_udiff(
		    cur.exists ? shown : "/dev/null", oldtext, shown, newtext);

		if (cur.exists && strcmp(oldtext, cur.text) != 0)
			printf("(the file is written with a 2-space indent: "
			       "the diff compares both as kinpolicy writes "
			       "them)\n");
		printf("--dry-run: nothing was written; the change:\n%s", diff);
	}
done:
	json_decref(doc);
	json_decref(next);
	free(cur.text);
	kb_hookinstall_report_free(&r);
	target_free(&t);
	return 0;
}

static int
hook_install_verb(int argc, char **argv, bool install)
{
	const char *verb = install ? "hook install" : "hook uninstall";
	bool project = false, dry = false, have = false;
	enum kb_agent agent = KB_AGENT_CLAUDE;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--project") == 0)
			project = true;
		else if (strcmp(argv[i], "--dry-run") == 0)
			dry = true;
		else if (argv[i][0] == '-' || have)
			kp_usage(verb);
		else if (kb_agent_parse(argv[i], &agent) == -1)
			die("%s %s: unknown agent; use claude-code, codex, "
			    "gemini or cursor",
			    verb, argv[i]);
		else
			have = true;
	}
	if (!have)
		kp_usage(verb);
	return run(agent, install, project, dry);
}

int
cmd_hook_install(int argc, char **argv)
{
	return hook_install_verb(argc, argv, true);
}

int
cmd_hook_uninstall(int argc, char **argv)
{
	return hook_install_verb(argc, argv, false);
}

int
cmd_hook_verbs(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "install") == 0)
		return cmd_hook_install(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "uninstall") == 0)
		return cmd_hook_uninstall(argc - 1, argv + 1);
	return cmd_hook(argc, argv);
}
