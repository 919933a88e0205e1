/*
 * tests/unit/test-gitinclude.c — the config files git includes
 * (gitguard/gitconfig.c's reader, gitguard/include.c's walk and the
 * scan's guards for them): what git's reader makes of include lines
 * (cases checked against git 2.39's `git config --list`), then layouts
 * made by hand in a temp dir, scanned as kinbox does it, and the guards or
 * the refusal each one gets, and what each backend's plan makes of them;
 * last, the restore of a directory on an include's way (the landlock
 * backend's).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../backends/backend.h"
#include "../../gitguard/gitconfig.h"
#include "../../gitguard/gitguard.h"
#include "tap.h"

/* short, so that base/rel always fits PATH_MAX */
static char base[256];
static char cmd_true[] = "true";
static char *cmd_argv[] = {cmd_true, NULL};

/* --- the reader ------------------------------------------------------------
 */

/* the include paths and hooksPath values of `len` bytes, '|'-joined */
static void
refs(const char *text, size_t len, char **incs, char **hooks)
{
	struct kb_strv i = {0}, h = {0};
	struct kb_buf bi = {0}, bh = {0};

	kb_gitcfg_refs(text, len, &i, &h);
	kb_buf_puts(&bi, "");
	kb_buf_puts(&bh, "");
	for (size_t k = 0; k < i.n; k++)
		kb_buf_printf(&bi, "%s%s", k ? "|" : "", i.v[k]);
	for (size_t k = 0; k < h.n; k++)
		kb_buf_printf(&bh, "%s%s", k ? "|" : "", h.v[k]);
	kb_strv_free(&i);
	kb_strv_free(&h);
	*incs = bi.s;
	*hooks = bh.s;
}

static void
test_reader(void)
{
	/* clang-format off */
	static const struct {
		const char *text;
		const char *incs;
		const char *why;
	} cases[] = {
		{ "[include]\n\tpath = a\n", "a", "include.path" },
		{ "[Include]\n\tPATH = a\n\tpath = b\npath=c", "a|b|c",
		  "names case-insensitive, every path counts" },
		{ "[includeIf \"gitdir:/x/\"]\n\tpath = a\n", "a",
		  "includeIf gitdir:" },
		{ "[includeIf \"onbranch:main\"] path = a", "a",
		  "includeIf onbranch:, the key on the header's line" },
		{ "[INCLUDEIF \"hasconfig:remote.*.url:https://e/**\"]\npath=a",
		  "a", "includeIf hasconfig:remote.*.url:" },
		{ "[includeIf \"gitdir/i:~/W/\"]\npath = a\n[includeIf "
		  "\"no such condition\"]\npath = b", "a|b",
		  "includeIf with any condition at all" },
		{ "[include \"x\"]\npath = a\n[include \"\"]\npath = b", "",
		  "[include \"x\"] and [include \"\"] are no includes" },
		{ "[includeIf]\npath = a\n", "", "includeIf without a condition" },
		{ "[include.x]\npath = a\n", "", "[include.x]: a subsection" },
		{ "[includeIf.gitdir:/x/]\npath = a\n", "",
		  "[includeIf.gitdir:/x/]: git refuses the header" },
		{ "[include]\npath\n", "", "a bare path: git refuses it" },
		{ "[include]\npath = \"a b\" ; c\n", "a b", "quoted, a comment" },
		{ "[include]\npath = a  b\t c \n", "a  b  c",
		  "blanks kept as that many spaces, trailing ones dropped" },
		{ "[include]\npath = a\\\nb\n", "ab", "a continuation line" },
		{ "[include]\npath = \"a\\tb\\\\c\\\"d\"\n", "a\tb\\c\"d",
		  "escapes in a value" },
		{ "[include]\npath = a\\qb\npath = c\n", "c",
		  "an unknown escape: that line refused, the next one read" },
		{ "[include]\npath = \"a\npath = b\n", "b",
		  "an open quote at the end of a line: refused" },
		{ "[core]\n\tx = y\\\n[include]\n\tpath = a\n", "",
		  "a header in a continued value is the value's" },
		{ "\xef\xbb\xbf[include]\npath = a\n", "a", "a UTF-8 BOM" },
		{ "[include]\r\npath = a\r\n", "a", "CRLF" },
		{ "[include]\npath = a\rb\n", "a b", "a lone CR is a blank" },
		{ "# [include]\n; path = a\n[include] # c\npath = b", "b",
		  "comments" },
		{ "[include]path=a", "a", "no blank at all" },
		{ "[include]\n\tpath = a # x\n\tpath = \"b # y\"", "a|b # y",
		  "# in quotes is no comment" },
		{ "[includeIf \"a\\\"b\\\\c\\d\"]\npath = x", "x",
		  "escapes in a subsection" },
		{ "path = a\n", "", "a key before any section" },
		{ "[include]\n\tpath = a\n[core]\n\tpath = b\n", "a",
		  "the section ends at the next header" },
		{ "[include]\n\tpath # c\n\tpath = b\n", "b",
		  "a comment after a bare key: refused" },
		{ "[ include]\npath = a\n[include ]\npath = b\n", "",
		  "blanks inside a header: refused" },
		{ "[]\npath = a\n", "", "an empty header" },
		{ "[include]\n\tpath = a\x0b\n", "a\x0b",
		  "\\v is no blank to git" },
	};
	/* clang-format on */
	char *i, *h;

	for (size_t k = 0; k < nitems(cases); k++) {
		refs(cases[k].text, strlen(cases[k].text), &i, &h);
		assert_cmpstr(i, cases[k].incs, "reader: %s", cases[k].why);
		free(i);
		free(h);
	}
	/* an empty path counts: git takes it as the including directory */
	refs("[include]\n\tpath=\n\tpath = a", 26, &i, &h);
	assert_cmpstr(i, "|a", "reader: an empty path is a path too");
	free(i);
	free(h);

	/* a NUL: the variable's name is a C string to git */
	{
		static const char t1[] =
		    "[includeIf \"gitdir:/.path\0\"]\n\tx = evil.inc\n";
		static const char t2[] = "[include]\n\tpath = a\0b\n";
		static const char t3[] = "[include]\n\tpa\0th = a\n\tpath = b";

		refs(t1, sizeof(t1) - 1, &i, &h);
		assert_cmpstr(i, "evil.inc",
		    "reader: a NUL in a subsection ends the name there "
		    "(includeif.gitdir:/.path)");
		free(i);
		free(h);
		refs(t2, sizeof(t2) - 1, &i, &h);
		assert_cmpstr(i, "a", "reader: a NUL ends a value");
		free(i);
		free(h);
		refs(t3, sizeof(t3) - 1, &i, &h);
		assert_cmpstr(i, "b", "reader: a NUL in a key: refused");
		free(i);
		free(h);
	}
	{
		static const char t[] =
		    "[core]\nhooksPath = h\n[include]\npath = a\n[Core]\n"
		    "HOOKSPATH = \"i j\"\n[core \"x\"]\nhookspath = k\n";

		refs(t, sizeof(t) - 1, &i, &h);
	}
	assert_cmpstr(h, "h|i j", "reader: every core.hooksPath, no other");
	assert_cmpstr(i, "a", "reader: and the include beside them");
	free(i);
	free(h);
}

/* --- the layouts ---------------------------------------------------------- */

static const char *
at(const char *rel)
{
	static char ring[8][PATH_MAX];
	static unsigned n;
	char *b = ring[n++ % nitems(ring)];

	snprintf(b, PATH_MAX, "%s/%s", base, rel);
	return b;
}

static void
mkdirs(const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", base, rel);
	for (char *s = p + strlen(base) + 1; *s != '\0'; s++) {
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	}
	mkdir(p, 0755);
}

static void
put(const char *rel, const char *text)
{
	char dir[PATH_MAX];
	char *slash;
	int fd;

	snprintf(dir, sizeof(dir), "%s", rel);
	if ((slash = strrchr(dir, '/')) != NULL) {
		*slash = '\0';
		mkdirs(dir);
	}
	fd = open(at(rel), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
	if (fd == -1 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		printf("# write %s: %s\n", rel, strerror(errno));
	if (fd != -1)
		close(fd);
}

/* a worktree with .git/config holding `config` (by hand: the scan needs
 * no more) */
static void
repo(const char *rel, const char *config)
{
	char c[PATH_MAX];

	snprintf(c, sizeof(c), "%s/.git/config", rel);
	put(c, config);
	snprintf(c, sizeof(c), "%s/.git/hooks", rel);
	mkdirs(c);
}

static struct kb_err scan_err;

static int
scan(const char *ws_rel, struct kb_policy *p)
{
	int rc;

	kb_policy_init(p);
	p->home = xstrdup(at("home"));
	p->argv = cmd_argv;
	scan_err.msg[0] = '\0';
	if (chdir(at(ws_rel)) == -1)
		return -1;
	rc = kb_policy_finalize(p, &scan_err);
	if (rc == 0)
		rc = kb_gitguard_scan_roots(p, &scan_err);
	if (rc != 0)
		printf("# %s\n", scan_err.msg);
	if (chdir(base) == -1)
		return -1;
	return rc;
}

static const struct kb_guard *
guard(const struct kb_policy *p, const char *rel)
{
	for (size_t i = 0; i < p->nguard; i++)
		if (strcmp(p->guard[i].path, at(rel)) == 0)
			return &p->guard[i];
	return NULL;
}

/* rel is guarded as `kind`, flagged as on an include's way */
static bool
inc_guard(const struct kb_policy *p, const char *rel, enum kb_guard_kind kind)
{
	const struct kb_guard *g = guard(p, rel);

	if (g == NULL || g->kind != kind || !g->include)
		printf("# %s: %s\n", rel,
		    g == NULL ? "not guarded" : "another kind or no flag");
	return g != NULL && g->kind == kind && g->include;
}

/* the scan refuses, with a line holding `want` */
static bool
refused(const char *ws_rel, const char *want)
{
	struct kb_policy p;
	bool r = scan(ws_rel, &p) == -1 && strstr(scan_err.msg, want) != NULL;

	if (!r)
		printf("# want: %s\n", want);
	kb_policy_free(&p);
	return r;
}

static void
test_guards(void)
{
	struct kb_policy p;

	repo("g1", "[include]\n\tpath = ../conf/x.inc\n\tpath = ../conf/y.inc\n"
		   "\tpath = ../etc/sub/z.inc\n\tpath = extra.inc\n"
		   "\tpath = ../file/below\n\tpath = ../conf/../up.inc\n");
	put("g1/conf/x.inc", "[user]\n\tname = a\n");
	put("g1/file", "not a directory\n");
	put("g1/up.inc", "\n");
	ok(scan("g1", &p) == 0, "guards: scanned");
	ok(inc_guard(&p, "g1/conf/x.inc", KB_GUARD_RO),
	    "guards: an existing include is read-only");
	ok(inc_guard(&p, "g1/conf", KB_GUARD_PIN_DIR),
	    "guards: its directory is pinned");
	ok(inc_guard(&p, "g1/conf/y.inc", KB_GUARD_RO_ABSENT_FILE),
	    "guards: a missing one is kept uncreatable");
	ok(inc_guard(&p, "g1/etc", KB_GUARD_RO_ABSENT_DIR) &&
		guard(&p, "g1/etc/sub") == NULL,
	    "guards: the first missing directory on the way is kept "
	    "uncreatable, whole");
	ok(inc_guard(&p, "g1/.git/extra.inc", KB_GUARD_RO_ABSENT_FILE),
	    "guards: relative to .git: .git/extra.inc");
	ok(guard(&p, "g1/.git") != NULL &&
		guard(&p, "g1/.git")->kind == KB_GUARD_PIN_DIR &&
		!guard(&p, "g1/.git")->include,
	    "guards: .git stays a git dir's pin");
	ok(inc_guard(&p, "g1/file", KB_GUARD_RO) &&
		guard(&p, "g1/file/below") == NULL,
	    "guards: a file in the way stays a file (git's open fails)");
	ok(inc_guard(&p, "g1/up.inc", KB_GUARD_RO),
	    "guards: conf/../up.inc is up.inc");
	ok(!guard(&p, "g1/conf/x.inc")->include ||
		guard(&p, "g1/conf/x.inc")->fd != -1,
	    "guards: the read-only one holds its bind source");
	kb_policy_free(&p);

	/* nested, with hooksPath in an included file */
	repo("g2", "[include]\n\tpath = ../a/one.inc\n");
	put("g2/a/one.inc",
	    "[includeIf \"onbranch:x\"]\n\tpath = ../b/two.inc\n");
	put("g2/b/two.inc", "[include]\n\tpath = c/three.inc\n[core]\n"
			    "\thooksPath = .hooks\n");
	ok(scan("g2", &p) == 0, "nested: scanned");
	ok(inc_guard(&p, "g2/a/one.inc", KB_GUARD_RO) &&
		inc_guard(&p, "g2/b/two.inc", KB_GUARD_RO) &&
		inc_guard(&p, "g2/b/c", KB_GUARD_RO_ABSENT_DIR),
	    "nested: each level, relative to the including file");
	ok(guard(&p, "g2/.hooks") != NULL &&
		guard(&p, "g2/.hooks")->kind == KB_GUARD_RO_ABSENT_DIR,
	    "nested: a core.hooksPath set in an included file is guarded");
	kb_policy_free(&p);

	/* ~/, a host symlink into the workspace, the global config */
	mkdirs("home");
	if (symlink(at("g3/real"), at("home/link")) == -1)
		printf("# symlink: %s\n", strerror(errno));
	repo("g3", "[include]\n\tpath = ~/link/h.inc\n");
	put("g3/real/h.inc", "\n");
	put("g3/dot/gitconfig", "[include]\n\tpath = more.inc\n");
	put("global.cfg", "[include]\n\tpath = g3/dot/gitconfig\n");
	setenv("GIT_CONFIG_GLOBAL", at("global.cfg"), 1);
	ok(scan("g3", &p) == 0, "home: scanned");
	ok(inc_guard(&p, "g3/real/h.inc", KB_GUARD_RO),
	    "home: ~/link/h.inc, link a host symlink into the workspace");
	ok(inc_guard(&p, "g3/dot/gitconfig", KB_GUARD_RO) &&
		inc_guard(&p, "g3/dot/more.inc", KB_GUARD_RO_ABSENT_FILE),
	    "home: what the global config includes, and what that includes");
	kb_policy_free(&p);
	unlink(at("global.cfg"));
	put("g4/.gitconfig", "[core]\n\thooksPath = /nowhere\n");
	setenv("GIT_CONFIG_GLOBAL", at("g4/.gitconfig"), 1);
	mkdirs("g4/plain");
	ok(scan("g4", &p) == 0 && inc_guard(&p, "g4/.gitconfig", KB_GUARD_RO),
	    "global: a global config in the workspace is read-only itself, "
	    "with no repository there");
	kb_policy_free(&p);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);

	/* a linked worktree's config.worktree */
	repo("g5", "[core]\n\tbare = false\n");
	put("g5/.git/worktrees/wt/config.worktree",
	    "[include]\n\tpath = ../../../conf/w.inc\n");
	put("g5/.git/worktrees/wt/gitdir", "x\n");
	put("g5/.git/worktrees/wt/commondir", "../..\n");
	ok(scan("g5", &p) == 0 && guard(&p, "g5/conf/w.inc") == NULL &&
		inc_guard(&p, "g5/conf", KB_GUARD_RO_ABSENT_DIR),
	    "worktree: config.worktree's include (../../../conf/w.inc)");
	kb_policy_free(&p);
}

/* the plan's argv holds `op` with `dest` as its last argument (`n`
 * arguments after op) */
static bool
has_op(const struct kb_plan *pl, const char *op, size_t n, const char *dest)
{
	for (size_t i = 0; i + n < pl->argv.n; i++)
		if (strcmp(pl->argv.v[i], op) == 0 &&
		    strcmp(pl->argv.v[i + n], dest) == 0)
			return true;
	return false;
}

static bool
has_param(const struct kb_plan *pl, const char *prefix, const char *path)
{
	for (size_t i = 0; i < pl->params.n; i++) {
		const char *eq = strchr(pl->params.v[i], '=');

		if (strncmp(pl->params.v[i], prefix, strlen(prefix)) == 0 &&
		    eq != NULL && strcmp(eq + 1, path) == 0)
			return true;
	}
	return false;
}

/* the three backends hold the guards as they hold .git/config's */
static void
test_plans(void)
{
	static char env0[] = "PATH=/usr/bin:/bin";
	static char *const envp[] = {env0, NULL};
	static const struct kb_host host = {.landlock_abi = 6};
	static const struct kb_seatbelt_host sbh = {
	    .tmp = "/tmp", .run_tag = "kinbox-test",
	    .run_tmp = "/tmp/kinbox-0/run.test"};
	struct kb_policy p;
	struct kb_plan pl;
	struct kb_err e;

	repo("pl", "[include]\n\tpath = ../conf/x.inc\n\tpath = ../y.inc\n"
		   "\tpath = ../etc/z.inc\n");
	put("pl/conf/x.inc", "\n");
	ok(scan("pl", &p) == 0, "plans: scanned");
	memset(&pl, 0, sizeof(pl));
	ok(kb_bwrap_plan(&p, &host, "/usr/bin/bwrap",
	       "/usr/libexec/kinbox/kinbox-exec", -1, envp, &pl, &e) == 0 &&
		has_op(&pl, "--ro-bind", 2, at("pl/conf/x.inc")) &&
		has_op(&pl, "--bind", 2, at("pl/conf")) &&
		has_op(&pl, "--ro-bind-data", 2, at("pl/y.inc")) &&
		has_op(&pl, "--tmpfs", 1, at("pl/etc")) &&
		has_op(&pl, "--check", 1, at("pl/conf/x.inc")),
	    "plans: bwrap binds the include read-only, pins its directory, "
	    "keeps the missing ones uncreatable, checks them in place");
	kb_plan_free(&pl);
	memset(&pl, 0, sizeof(pl));
	ok(kb_seatbelt_plan(&p, &sbh, KB_SANDBOX_EXEC, envp, &pl, &e) == 0 &&
		has_param(&pl, "GUARD_", at("pl/conf/x.inc")) &&
		has_param(&pl, "GUARD_", at("pl/y.inc")) &&
		has_param(&pl, "GUARD_", at("pl/etc")) &&
		has_param(&pl, "PIN_", at("pl/conf")),
	    "plans: seatbelt denies writes to them and pins the directory");
	kb_plan_free(&pl);
	{
		struct kb_gitsnap *s = NULL;

		ok(kb_gitguard_snapshot(&p, &s, &e) == 0 && s != NULL,
		    "plans: landlock's snapshot holds them");
		kb_gitsnap_free(s);
	}
	kb_policy_free(&p);
}

static void
test_refused(void)
{
	char name[64];

	repo("r1", "[include]\n\tpath = ../conf/x.inc\n");
	put("r1/conf/real.inc", "\n");
	if (symlink("real.inc", at("r1/conf/x.inc")) == -1)
		printf("# symlink: %s\n", strerror(errno));
	ok(refused("r1", "include path '../conf/x.inc' leads to ") &&
		strstr(scan_err.msg, "r1/conf/x.inc, a symbolic link in the "
				     "writable directory") != NULL &&
		strstr(scan_err.msg, "nothing was run") != NULL,
	    "refused: a symlink in the workspace");

	repo("r2", "[includeIf \"gitdir:/\"]\n\tpath = ../f.inc\n");
	if (mkfifo(at("r2/f.inc"), 0644) == -1)
		printf("# mkfifo: %s\n", strerror(errno));
	ok(refused("r2", "r2/f.inc, a FIFO in the writable directory"),
	    "refused: a FIFO (never opened)");

	repo("r9", "[include]\n\tpath = ../conf/x.inc\n");
	put("r9/conf/x.inc", "\n");
	if (link(at("r9/conf/x.inc"), at("r9/other")) == -1)
		printf("# link: %s\n", strerror(errno));
	ok(refused("r9", "r9/conf/x.inc, a file with 2 hard links"),
	    "refused: a file with a second hard link in the workspace");

	repo("r3", "[include]\n\tpath = l/x.inc\n");
	if (symlink("/tmp", at("r3/.git/l")) == -1)
		printf("# symlink: %s\n", strerror(errno));
	ok(refused("r3", "a symbolic link in the writable directory"),
	    "refused: a symlink on the way");

	/* ten deep is what git reads; eleven, git refuses */
	repo("r4", "[include]\n\tpath = d1.inc\n");
	for (int i = 1; i <= 10; i++) {
		char text[64];

		snprintf(name, sizeof(name), "r4/.git/d%d.inc", i);
		snprintf(
		    text, sizeof(text), "[include]\n\tpath = d%d.inc\n", i + 1);
		put(name, i < 10 ? text : "\n");
	}
	{
		struct kb_policy p;

		ok(scan("r4", &p) == 0 &&
			inc_guard(&p, "r4/.git/d10.inc", KB_GUARD_RO),
		    "depth: ten includes deep are followed");
		kb_policy_free(&p);
	}
	put("r4/.git/d10.inc", "[include]\n\tpath = d11.inc\n");
	put("r4/.git/d11.inc", "\n");
	ok(refused("r4", "d11.inc, nested more than 10 includes deep"),
	    "depth: eleven are refused");
	put("r4/.git/d11.inc", "[include]\n\tpath = d1.inc\n");
	ok(refused("r4", "nested more than 10 includes deep"),
	    "depth: a loop is refused");
	unlink(at("r4/.git/d11.inc"));
	{
		struct kb_policy p;

		ok(scan("r4", &p) == 0 && inc_guard(&p, "r4/.git/d11.inc",
					      KB_GUARD_RO_ABSENT_FILE),
		    "depth: a missing eleventh is kept uncreatable (git skips "
		    "it)");
		kb_policy_free(&p);
	}

	repo("r5", "[include]\n\tpath = %(prefix)/etc/x.inc\n");
	ok(refused("r5", "git takes %(prefix) from where git itself is "
			 "installed"),
	    "refused: %%(prefix)/");
	repo("r6", "[include]\n\tpath = ~no-such-user-kb/x.inc\n");
	ok(refused("r6", "~no-such-user-kb names a user kinbox does not find "
			 "in /etc/passwd"),
	    "refused: ~user/ for a user not in /etc/passwd");
	repo("r7", "[include]\n\tpath = ~root/.kb-test-none.inc\n");
	{
		struct kb_policy p;

		ok(scan("r7", &p) == 0, "~root/ is expanded and lies outside");
		kb_policy_free(&p);
	}

	repo("r8", "[include]\n\tpath = big.inc\n");
	{
		int fd = open(at("r8/.git/big.inc"), O_WRONLY | O_CREAT, 0644);

		if (fd == -1 || ftruncate(fd, (16 << 20) + 1) == -1)
			printf("# big.inc: %s\n", strerror(errno));
		if (fd != -1)
			close(fd);
	}
	ok(refused("r8", "big.inc, larger than 16 MiB"),
	    "refused: an include over 16 MiB");
	unlink(at("r8/.git/big.inc"));
}

/* a directory on an include's way, replaced during a run without mounts:
 * what took its place is moved aside, and git reads nothing there */
static void
report(const char *line, bool security)
{
	printf("#   %s%s\n", security ? "SECURITY: " : "", line);
}

static void
test_restore(void)
{
	struct kb_policy p;
	struct kb_gitsnap *s = NULL;
	struct kb_err e;
	struct stat st;

	repo("s1", "[include]\n\tpath = ../conf/x.inc\n");
	put("s1/conf/x.inc", "[user]\n\tname = a\n");
	put("s1/evil/x.inc", "[core]\n\tfsmonitor = evil\n");
	mkdirs("elsewhere");
	ok(scan("s1", &p) == 0 && kb_gitguard_snapshot(&p, &s, &e) == 0,
	    "restore: scanned, snapshot taken");
	/* the command: conf moved out of its directory, a symlink to its
	 * own evil/ in its place */
	if (rename(at("s1/conf"), at("elsewhere/conf")) == -1 ||
	    symlink("evil", at("s1/conf")) == -1)
		printf("# rename/symlink: %s\n", strerror(errno));
	ok(kb_gitguard_restore(&p, s, report) >= 1 &&
		lstat(at("s1/conf"), &st) == -1 && errno == ENOENT,
	    "restore: the symlink that took conf's place is moved aside");
	kb_gitsnap_free(s);
	kb_policy_free(&p);

	/* and a directory in its place */
	rename(at("elsewhere/conf"), at("s1/conf"));
	s = NULL;
	ok(scan("s1", &p) == 0 && kb_gitguard_snapshot(&p, &s, &e) == 0,
	    "restore: again, snapshot taken");
	rename(at("s1/conf"), at("elsewhere/conf2"));
	put("s1/conf/x.inc", "[core]\n\tfsmonitor = evil\n");
	ok(kb_gitguard_restore(&p, s, report) >= 1 &&
		lstat(at("s1/conf/x.inc"), &st) == -1,
	    "restore: a new conf/ with a new x.inc is moved aside");
	ok(kb_gitguard_audit_after(&p, s, report) == 0,
	    "restore: and the audit after it has nothing left to do");
	kb_gitsnap_free(s);
	kb_policy_free(&p);

	/* renamed within its directory: moved back */
	rename(at("elsewhere/conf2"), at("s1/conf"));
	s = NULL;
	ok(scan("s1", &p) == 0 && kb_gitguard_snapshot(&p, &s, &e) == 0,
	    "restore: a third time, snapshot taken");
	rename(at("s1/conf"), at("s1/conf.old"));
	put("s1/conf/x.inc", "[core]\n\tfsmonitor = evil\n");
	{
		_cleanup_free_ char *text = NULL;

		kb_gitguard_restore(&p, s, report);
		text = kb_read_small_file(at("s1/conf/x.inc"), 4096);
		ok(text != NULL && strcmp(text, "[user]\n\tname = a\n") == 0 &&
			lstat(at("s1/conf.old"), &st) == -1,
		    "restore: conf renamed aside is moved back, with x.inc");
	}
	kb_gitsnap_free(s);
	kb_policy_free(&p);
}

int
main(void)
{
	char tmpl[] = "/tmp/kb-test-gitinclude.XXXXXX";
	char real[PATH_MAX];

	alarm(120); /* a FIFO opened by mistake must not hang the suite */
	if (mkdtemp(tmpl) == NULL || realpath(tmpl, real) == NULL ||
	    strlen(real) >= sizeof(base)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	memcpy(base, real, strlen(real) + 1);
	umask(022);
	setenv("HOME", at("home"), 1);
	setenv("TMPDIR", "/tmp", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	unsetenv("GIT_CONFIG_SYSTEM");
	unsetenv("XDG_CONFIG_HOME");
	mkdirs("home");

	test_reader();
	test_guards();
	test_plans();
	test_refused();
	test_restore();

	if (chdir("/") == 0 && getenv("KB_KEEP") == NULL) {
		_cleanup_free_ char *cmd = xasprintf("rm -rf '%s'", base);

		if (system(cmd) != 0)
			printf("# could not remove %s\n", base);
	}
	return tap_done();
}
