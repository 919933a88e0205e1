/*
 * tests/unit/test-checkwrite.c — kinpolicy check-write (sidecar/checkwrite.c,
 * sidecar/protected.c) on a real tree with symlinks under a temp dir:
 * outside the workspace, secrets, protected paths, files not created yet,
 * dangling links, ".." before and after symlinks, write roots, modes.
 */
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../sidecar/checkwrite.h"
#include "tap.h"
#include "tree.h"

static char ws[300], outside[300], root[300], home[300];


struct req {
	const char *path, *cwd, *ws;
	char *const *roots;
	size_t nroots;
	const char *home;
	enum kb_mode mode;
};

/* One judgement: verdict and rule, and the location when want_at is set
 * (relative to base). */
static void
expect(const struct req *r, enum kb_verdict want, const char *rule,
    const char *want_at, const char *desc)
{
	struct kb_cw cw;
	struct kb_err e = { { 0 } };
	int rc;

	rc = kb_check_write(r->path, r->cwd, r->ws, r->roots, r->nroots,
	    r->home, r->mode, &cw, &e);
	if (rc == -1) {
		ok(0, "%s: resolved (%s)", desc, e.msg);
		return;
	}
	ok(cw.verdict == want && strcmp(cw.rule, rule) == 0, "%s: %s %s", desc,
	    kb_verdict_name(want), rule);
	if (cw.verdict != want || strcmp(cw.rule, rule) != 0)
		printf("#   got %s %s: %s\n", kb_verdict_name(cw.verdict),
		    cw.rule, cw.reason);
	if (want_at != NULL)
		assert_cmpstr(cw.resolved, at(want_at), "%s: judged at %s",
		    desc, want_at);
	ok(strchr(cw.reason, '\n') == NULL && cw.reason[0] != '\0',
	    "%s: the reason is one line", desc);
}

/* The reason names what decided (a view, a pattern). */
static void
reason_has(const struct req *r, const char *needle, const char *desc)
{
	struct kb_cw cw;
	struct kb_err e = { { 0 } };

	ok(kb_check_write(r->path, r->cwd, r->ws, r->roots, r->nroots,
	       r->home, r->mode, &cw, &e) == 0 &&
	    strstr(cw.reason, needle) != NULL,
	    "%s: the reason says '%s'", desc, needle);
}

static void
fixture(void)
{
	mkdirs("ws/sub/.git");
	mkdirs("ws/deep/a/b");
	mkdirs("ws/realgit");
	mkdirs("ws/sub2");
	mkdirs("ws/dotconfig");
	mkdirs("outside/a/b");
	mkdirs("root/.ssh");
	mkdirs("root/xdg");
	mkdirs("home/.ssh");
	touch("ws/existing.txt");
	touch("ws/sub/.git/config");
	touch("ws/envdata");
	touch("outside/secret");
	touch("home/.ssh/config");
	touch("root/.ssh/config");
	link_to(outside, "ws/out-link");
	link_to(at("outside/secret"), "ws/file-link");
	link_to("../outside/new-file", "ws/dangling");
	link_to("created", "ws/dangling-in");
	link_to("dangling-in", "ws/dangling-chain");
	link_to("deep/a/b", "ws/up");
	link_to("../outside/a/b", "ws/up2");
	link_to("realgit", "ws/.git");
	link_to("../envdata", "ws/sub2/.env");
	link_to("loop2", "ws/loop1");
	link_to("loop1", "ws/loop2");
	link_to("ws", "wsalias");
	link_to(at("ws/dotconfig"), "home/.config");
}

static void
test_workspace(void)
{
	struct req r = { .ws = ws, .home = home, .mode = KB_MODE_AUTO };

	r.path = at("ws/file.txt");
	expect(&r, KB_ALLOW, "workspace", "ws/file.txt", "a new file in ws");
	r.path = at("ws/existing.txt");
	expect(&r, KB_ALLOW, "workspace", "ws/existing.txt", "an existing file");
	r.path = at("ws/newdir/file");
	expect(&r, KB_ALLOW, "workspace", "ws/newdir/file",
	    "ws/newdir/file, newdir not created yet");
	r.path = at("ws/newdir/sub/../file");
	expect(&r, KB_ALLOW, "workspace", "ws/newdir/file",
	    "'..' in the missing tail takes back the text");
	r.path = at("ws/./deep//a/../x");
	expect(&r, KB_ALLOW, "workspace", "ws/deep/x", "'.', '//' and '..'");
	r.path = at("ws/dangling-in");
	expect(&r, KB_ALLOW, "workspace", "ws/created",
	    "a dangling link inside ws is judged at its target");
	r.path = at("ws/dangling-chain");
	expect(&r, KB_ALLOW, "workspace", "ws/created",
	    "a chain of dangling links");
	r.path = at("ws/up/../x");
	expect(&r, KB_ALLOW, "workspace", "ws/deep/a/x",
	    "ws/up/../x: the kernel's '..' after a symlink");
	r.path = at("wsalias/f");
	expect(&r, KB_ALLOW, "workspace", "ws/f", "through a link to ws");
	r.ws = at("wsalias");
	r.path = at("ws/f");
	expect(&r, KB_ALLOW, "workspace", "ws/f",
	    "a workspace given through a link is canonicalised");
	r.ws = ws;
	r.path = at("ws/existing.txt/x");
	expect(&r, KB_ALLOW, "workspace", "ws/existing.txt/x",
	    "below a file: judged as text (the write fails anyway)");
	r.path = at("ws/a\nb");
	expect(&r, KB_ALLOW, "workspace", NULL, "a newline in the name");
	r.path = at("ws/.environment");
	expect(&r, KB_ALLOW, "workspace", NULL, ".environment is no .env");
	r.path = at("ws/env.example");
	expect(&r, KB_ALLOW, "workspace", NULL, "env.example");
	r.path = at("ws/.ENV");
	expect(&r, KB_ALLOW, "workspace", NULL, "names are case-sensitive");
	r.path = at("ws/Cargo.lock.bak");
	expect(&r, KB_ALLOW, "workspace", NULL, "Cargo.lock.bak is no lockfile");
	r.path = at("ws/git/config");
	expect(&r, KB_ALLOW, "workspace", NULL, "git/ is not .git/");
	r.path = at("ws/x.gitignore");
	expect(&r, KB_ALLOW, "workspace", NULL, "x.gitignore");
}

static void
test_outside(void)
{
	struct req r = { .ws = ws, .home = home, .mode = KB_MODE_AUTO };

	r.path = at("ws/out-link/x");
	expect(&r, KB_DENY, "outside-workspace", "outside/x",
	    "a directory link out of ws");
	r.path = at("ws/file-link");
	expect(&r, KB_DENY, "outside-workspace", "outside/secret",
	    "a file link out of ws");
	r.path = at("ws/dangling");
	expect(&r, KB_DENY, "outside-workspace", "outside/new-file",
	    "a dangling link out of ws creates its target");
	r.path = at("ws/../outside/f");
	expect(&r, KB_DENY, "outside-workspace", "outside/f", "ws/../outside");
	r.path = at("ws/newdir/../../outside/f");
	expect(&r, KB_DENY, "outside-workspace", "outside/f",
	    "'..' out of a missing directory");
	r.path = at("ws/newdir/../out-link/f");
	expect(&r, KB_DENY, "outside-workspace", "outside/f",
	    "back on existing ground, the link is followed");
	r.path = at("ws/newdir/../up2/../x");
	expect(&r, KB_DENY, "outside-workspace",
	    "outside/a/x", "back from a missing dir, '..' after a link");
	r.path = at("ws/up/../../x");
	expect(&r, KB_DENY, "outside-workspace", "x",
	    "ws/up/../../x: a tool that normalises first writes outside");
	reason_has(&r, "'..' taken before symlinks", "ws/up/../../x");
	r.path = "/etc/passwd";
	expect(&r, KB_DENY, "outside-workspace", NULL, "/etc/passwd");
	r.path = at("wsx/f");
	expect(&r, KB_DENY, "outside-workspace", NULL,
	    "a sibling sharing the prefix");
	r.path = at("home/.ssh/config");
	expect(&r, KB_DENY, "outside-workspace", "home/.ssh/config",
	    "~/.ssh/config is outside ws");
	r.ws = NULL;
	r.path = at("ws/file.txt");
	expect(&r, KB_DENY, "outside-workspace", NULL,
	    "no workspace and no root: nothing is inside");
}

static void
test_secrets_and_protected(void)
{
	struct req r = { .ws = ws, .home = home, .mode = KB_MODE_AUTO };
	static const struct {
		const char *rel;
		enum kb_verdict v;
		const char *rule;
	} cases[] = {
		{ "ws/.env", KB_DENY, "secret-file" },
		{ "ws/.env.local", KB_DENY, "secret-file" },
		{ "ws/sub/.env.production", KB_DENY, "secret-file" },
		{ "ws/key.pem", KB_DENY, "secret-file" },
		{ "ws/tls/server.key", KB_DENY, "secret-file" },
		{ "ws/sub/.git/config", KB_ASK, "protected-path" },
		{ "ws/sub/.git/hooks/pre-commit", KB_ASK, "protected-path" },
		{ "ws/sub/.git", KB_ASK, "protected-path" },
		{ "ws/uv.lock", KB_ASK, "protected-path" },
		{ "ws/package-lock.json", KB_ASK, "protected-path" },
		{ "ws/yarn.lock", KB_ASK, "protected-path" },
		{ "ws/pnpm-lock.yaml", KB_ASK, "protected-path" },
		{ "ws/sub/Cargo.lock", KB_ASK, "protected-path" },
		{ "ws/poetry.lock", KB_ASK, "protected-path" },
		{ "ws/Gemfile.lock", KB_ASK, "protected-path" },
		{ "ws/go.sum", KB_ASK, "protected-path" },
		{ "ws/.npmrc", KB_ASK, "protected-path" },
		{ "ws/.yarnrc", KB_ASK, "protected-path" },
		{ "ws/.yarnrc.yml", KB_ASK, "protected-path" },
		{ "ws/.mcp.json", KB_ASK, "protected-path" },
		{ "ws/.claude.json", KB_ASK, "protected-path" },
		{ "ws/.pre-commit-config.yaml", KB_ASK, "protected-path" },
		{ "ws/lefthook.yml", KB_ASK, "protected-path" },
		{ "ws/pyrightconfig.json", KB_ASK, "protected-path" },
		{ "ws/.kinbox.ini", KB_ASK, "protected-path" },
		{ "ws/.bashrc", KB_ASK, "protected-path" },
		{ "ws/.zshrc", KB_ASK, "protected-path" },
		{ "ws/.bash_profile", KB_ASK, "protected-path" },
		{ "ws/.profile", KB_ASK, "protected-path" },
		{ "ws/.envrc", KB_ASK, "protected-path" },
		/* ~/.config is a link into ws: the canonical prefix counts */
		{ "ws/dotconfig/kinbox/config.ini", KB_ASK, "protected-path" },
		{ "ws/dotconfig/other/config.ini", KB_ALLOW, "workspace" },
		/* a secret inside .git is a secret first */
		{ "ws/sub/.git/id.key", KB_DENY, "secret-file" },
	};

	for (size_t i = 0; i < nitems(cases); i++) {
		r.path = at(cases[i].rel);
		expect(&r, cases[i].v, cases[i].rule, cases[i].rel,
		    cases[i].rel);
	}

	/* the names as written: links called .git and .env */
	r.path = at("ws/.git/config");
	expect(&r, KB_ASK, "protected-path", "ws/.git/config",
	    "a link named .git to a plain dir");
	reason_has(&r, "as written", "ws/.git/config");
	reason_has(&r, "(.git)", "ws/.git/config");
	r.path = at("ws/sub2/.env");
	expect(&r, KB_DENY, "secret-file", "ws/sub2/.env",
	    "a link named .env to a plain file");
	reason_has(&r, "as written", "ws/sub2/.env");
}

static void
test_roots(void)
{
	char *roots[] = { root };
	struct req r = { .ws = ws, .roots = roots, .nroots = 1, .home = root,
		.mode = KB_MODE_AUTO };

	/* roots may never be the home directory (kb_paths_accept_root);
	 * here `home` is the root only to exercise the home-relative rule */
	r.path = at("root/notes.txt");
	expect(&r, KB_ALLOW, "write-root", "root/notes.txt",
	    "an extra write root");
	r.path = at("root/.ssh/config");
	expect(&r, KB_ASK, "protected-path", "root/.ssh/config",
	    "~/.ssh/config inside a root");
	r.path = at("root/.ssh/known_hosts");
	expect(&r, KB_ALLOW, "write-root", NULL, "~/.ssh/known_hosts");
	r.path = at("root/.config/kinbox/config.ini");
	expect(&r, KB_ASK, "protected-path", NULL, "~/.config/kinbox/");
	r.path = at("root/.config/kinboxes");
	expect(&r, KB_ALLOW, "write-root", NULL, "~/.config/kinboxes");
	r.path = at("ws/x");
	expect(&r, KB_ALLOW, "workspace", NULL, "ws still counts with roots");
	r.path = at("outside/x");
	expect(&r, KB_DENY, "outside-workspace", NULL,
	    "outside ws and the root");

	setenv("XDG_CONFIG_HOME", at("root/xdg"), 1);
	r.path = at("root/xdg/kinbox/config.ini");
	expect(&r, KB_ASK, "protected-path", NULL, "$XDG_CONFIG_HOME/kinbox/");
	setenv("XDG_CONFIG_HOME", "root/xdg", 1);
	expect(&r, KB_ALLOW, "write-root", NULL,
	    "a relative $XDG_CONFIG_HOME is ignored");
	unsetenv("XDG_CONFIG_HOME");
	expect(&r, KB_ALLOW, "write-root", NULL, "no $XDG_CONFIG_HOME");

	r.home = NULL;
	r.path = at("root/.ssh/config");
	expect(&r, KB_ALLOW, "write-root", NULL,
	    "no home: no home-relative rule");
}

static void
test_relative_and_modes(void)
{
	struct req r = { .ws = ws, .cwd = ws, .home = home,
		.mode = KB_MODE_AUTO };

	r.path = "file.txt";
	expect(&r, KB_ALLOW, "workspace", "ws/file.txt", "relative to cwd");
	r.path = "../outside/x";
	expect(&r, KB_DENY, "outside-workspace", "outside/x",
	    "relative ../outside");
	r.cwd = at("ws/sub");
	r.path = ".git/config";
	expect(&r, KB_ASK, "protected-path", "ws/sub/.git/config",
	    "relative .git/config from ws/sub");

	r.mode = KB_MODE_STRICT;
	r.cwd = ws;
	r.path = "file.txt";
	expect(&r, KB_ASK, "strict", "ws/file.txt", "strict: a normal file");
	r.path = ".env";
	expect(&r, KB_DENY, "secret-file", NULL, "strict: .env");
	r.path = "out-link/x";
	expect(&r, KB_DENY, "outside-workspace", NULL, "strict: outside");
	r.path = "uv.lock";
	expect(&r, KB_ASK, "protected-path", NULL, "strict: a lockfile");
}

static void
test_errors(void)
{
	struct kb_cw cw;
	struct kb_err e = { { 0 } };
	char longp[PATH_MAX + 16];
	enum kb_mode m = KB_MODE_STRICT;

	ok(kb_check_write(at("ws/loop1"), NULL, ws, NULL, 0, home,
	       KB_MODE_AUTO, &cw, &e) == -1 &&
	    strstr(e.msg, "cannot resolve") != NULL,
	    "a symlink loop cannot be resolved");
	ok(kb_check_write(at("ws/loop1/x"), NULL, ws, NULL, 0, home,
	       KB_MODE_AUTO, &cw, &e) == -1,
	    "a path through a symlink loop cannot be resolved");
	ok(kb_check_write("", NULL, ws, NULL, 0, home, KB_MODE_AUTO, &cw,
	       &e) == -1 && strstr(e.msg, "empty path") != NULL,
	    "an empty path");
	ok(kb_check_write(NULL, NULL, ws, NULL, 0, home, KB_MODE_AUTO, &cw,
	       &e) == -1, "a NULL path");
	ok(kb_check_write("f", NULL, ws, NULL, 0, home, KB_MODE_AUTO, &cw,
	       &e) == -1 && strstr(e.msg, "relative") != NULL,
	    "relative without cwd");
	ok(kb_check_write("f", "rel", ws, NULL, 0, home, KB_MODE_AUTO, &cw,
	       &e) == -1, "relative with a relative cwd");
	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = '\0';
	ok(kb_check_write(longp, NULL, ws, NULL, 0, home, KB_MODE_AUTO, &cw,
	       &e) == -1 && strstr(e.msg, "cannot resolve") != NULL,
	    "a path longer than PATH_MAX");
	ok(kb_check_write(at("ws/x"), NULL, ws, NULL, 0, home, KB_MODE_AUTO,
	       &cw, NULL) == 0, "a NULL error record is fine");
	ok(kb_check_write("", NULL, ws, NULL, 0, home, KB_MODE_AUTO, &cw,
	       NULL) == -1, "a NULL error record on failure");

	assert_cmpstr(kb_verdict_name(KB_ALLOW), "ALLOW", "verdict names");
	assert_cmpstr(kb_verdict_name(KB_ASK), "ASK", "verdict names");
	assert_cmpstr(kb_verdict_name(KB_DENY), "DENY", "verdict names");
	ok(kb_mode_parse("auto", &m) == 0 && m == KB_MODE_AUTO, "mode auto");
	ok(kb_mode_parse("strict", &m) == 0 && m == KB_MODE_STRICT,
	    "mode strict");
	ok(kb_mode_parse("Auto", &m) == -1 && m == KB_MODE_STRICT,
	    "mode Auto is refused, the output untouched");
	ok(kb_mode_parse(NULL, &m) == -1, "mode NULL is refused");
}

static int
rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

int
main(void)
{
	char tmpl[] = "/tmp/kb-test-checkwrite.XXXXXX";
	char *real;
	int rc;

	if (mkdtemp(tmpl) == NULL || (real = realpath(tmpl, NULL)) == NULL)
		return 1;
	if (strlen(real) >= sizeof(base))
		return 1;
	strcpy(base, real);
	free(real);
	snprintf(ws, sizeof(ws), "%s/ws", base);
	snprintf(outside, sizeof(outside), "%s/outside", base);
	snprintf(root, sizeof(root), "%s/root", base);
	snprintf(home, sizeof(home), "%s/home", base);
	unsetenv("XDG_CONFIG_HOME");
	fixture();

	test_workspace();
	test_outside();
	test_secrets_and_protected();
	test_roots();
	test_relative_and_modes();
	test_errors();

	rc = tap_done();
	if (nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS) == -1)
		return 1;
	return rc;
}
