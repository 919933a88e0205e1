/*
 * tests/unit/test-paths.c — write-root acceptance rules and policy setters
 * (profile/paths.c, profile/policy.c). Builds its own directory tree under
 * a temp dir; needs no root.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../profile/options.h"
#include "../../profile/policy.h"
#include "tap.h"

static char base[PATH_MAX];

static char *
mk(const char *rel)
{
	char *p = xasprintf("%s/%s", base, rel);

	mkdir(p, 0755);
	return p;
}

static void
test_rules(void)
{
	struct kb_err e;
	char *home = mk("home");
	char *proj = mk("home/proj");
	char *other = mk("other");
	char *file = xasprintf("%s/file", base);
	char *link = xasprintf("%s/home/proj/up", base);
	char *dotdot = xasprintf("%s/home/proj/../proj", base);
	char *r;
	int fd = open(file, O_CREAT | O_WRONLY, 0644);

	close(fd);
	ok(symlink(other, link) == 0, "symlink fixture");

	r = kb_paths_accept_root(proj, home, "--write", &e);
	ok(r != NULL && kb_path_within(r, base), "a project dir below home is accepted");
	free(r);
	r = kb_paths_accept_root(dotdot, home, "--write", &e);
	ok(r != NULL && strstr(r, "..") == NULL, "'..' is canonicalised away");
	free(r);
	r = kb_paths_accept_root(link, home, "--write", &e);
	assert_cmpstr(r, other, "a symlink is judged at its real location");
	free(r);

	struct {
		const char *path, *msg;
	} bad[] = {
		{ "/", "root directory" },
		{ home, "is your home directory" },
		{ base, "contains your home directory" },
		{ "/proc/self", "kernel state" },
		{ "/sys", "kernel state" },
		{ "/dev", "kernel state" },
		{ "/dev/shm", "kernel state" },
		{ file, "not a directory" },
		{ "/nonexistent/kinbox", "no such directory" },
		{ "", "empty path" },
		{ "/tmp", "/tmp itself is never a write root" },
		{ "/tmp/.", "that is /tmp, and /tmp itself is never" },
		{ "//tmp/", "that is /tmp, and /tmp itself is never" },
		{ "/var/../tmp", "that is /tmp, and /tmp itself is never" },
	};
	for (size_t i = 0; i < nitems(bad); i++) {
		memset(&e, 0, sizeof(e));
		r = kb_paths_accept_root(bad[i].path, home, "--write", &e);
		ok(r == NULL && strstr(e.msg, bad[i].msg) != NULL,
		    "refused: '%s' (%s)", bad[i].path, bad[i].msg);
		if (r != NULL || strstr(e.msg, bad[i].msg) == NULL)
			printf("#   message: %s\n", e.msg);
		free(r);
	}
	/* /tmp named as the workspace: the fix is another one */
	r = kb_paths_accept_root("/tmp", home, "workspace", &e);
	ok(r == NULL && strstr(e.msg, "cannot be the workspace; work in a "
				      "subdirectory, e.g. /tmp/NAME") != NULL,
	    "the workspace /tmp is refused, naming a subdirectory");
	free(r);
	/* a directory below /tmp is a root like any other */
	{
		char tmpl[] = "/tmp/kinbox-test-paths.XXXXXX";
		char *t = mkdtemp(tmpl);

		r = t != NULL ? kb_paths_accept_root(t, home, "--write", &e)
			      : NULL;
		assert_cmpstr(r, t, "a directory below /tmp is accepted");
		free(r);
		if (t != NULL)
			rmdir(t);
	}
	/* a symlink to / is still / */
	char *rootlink = xasprintf("%s/rootlink", base);
	ok(symlink("/", rootlink) == 0, "symlink fixture");
	r = kb_paths_accept_root(rootlink, home, "--write", &e);
	ok(r == NULL && strstr(e.msg, "root directory") != NULL,
	    "a symlink to / is refused as /");
	free(r);
	/* a symlink to home is refused as home */
	char *homelink = xasprintf("%s/homelink", base);
	ok(symlink(home, homelink) == 0, "symlink fixture");
	r = kb_paths_accept_root(homelink, home, "--write", &e);
	ok(r == NULL && strstr(e.msg, "home directory") != NULL,
	    "a symlink to home is refused as home");
	free(r);
	if (geteuid() != 0) {
		char *ro = mk("ro");
		chmod(ro, 0555);
		r = kb_paths_accept_root(ro, home, "--write", &e);
		ok(r == NULL && strstr(e.msg, "not writable") != NULL,
		    "a directory the caller cannot write is refused");
		free(r);
		chmod(ro, 0755);
		free(ro);
	} else {
		tap_skip("root writes everything: the not-writable rule is "
		    "checked by t20-core.sh (refused: -w a directory the caller cannot write) in its unprivileged pass");
	}
	free(rootlink);
	free(homelink);
	free(home);
	free(proj);
	free(other);
	free(file);
	free(link);
	free(dotdot);
}

static void
test_policy(void)
{
	struct kb_policy p;
	struct kb_err e;
	char *dirs[KB_MAX_WRITE + 1];
	int rc = 0;

	kb_policy_init(&p);
	p.home = xasprintf("%s/home", base);
	for (int i = 0; i <= KB_MAX_WRITE; i++) {
		char *rel = xasprintf("r%02d", i);
		dirs[i] = mk(rel);
		free(rel);
	}
	for (int i = 0; i < KB_MAX_WRITE; i++)
		rc |= kb_policy_add_write(&p, dirs[i], KB_ORIGIN_FLAG, &e);
	assert_cmpint(rc, 0, "%d write roots are accepted", KB_MAX_WRITE);
	rc = kb_policy_add_write(&p, dirs[0], KB_ORIGIN_FLAG, &e);
	assert_cmpint(rc, 0, "a repeated root is merged, not counted twice");
	assert_cmpint(p.nwrite, KB_MAX_WRITE, "still %d roots", KB_MAX_WRITE);
	rc = kb_policy_add_write(&p, dirs[KB_MAX_WRITE], KB_ORIGIN_FLAG, &e);
	ok(rc == -1 && strstr(e.msg, "too many write roots") != NULL,
	    "the 17th root is refused");

	rc = kb_policy_add_keep_fd(&p, "1", &e);
	ok(rc == -1, "--keep-fd 1 is refused (0-2 are always kept)");
	rc = kb_policy_add_keep_fd(&p, "x", &e);
	ok(rc == -1, "--keep-fd x is refused");
	rc = kb_policy_add_keep_fd(&p, "999", &e);
	ok(rc == -1 && strstr(e.msg, "not open") != NULL,
	    "--keep-fd of a closed descriptor is refused");
	int fd = open("/dev/null", O_RDONLY);
	char *arg = xasprintf("%d", fd);
	rc = kb_policy_add_keep_fd(&p, arg, &e);
	ok(rc == 0 && p.nkeep == 1 && p.keep_fd[0] == fd,
	    "--keep-fd of an open descriptor is kept");
	close(fd);
	free(arg);
	{
		struct kb_src src = { KB_ORIGIN_FLAG, "--backend" };

		rc = kb_option_set(&p, KB_OPT_BACKEND, "firejail", &src, &e);
		ok(rc == -1 && strcmp(e.msg, "--backend firejail: unknown "
		    "backend; use auto, bwrap, landlock or seatbelt") == 0,
		    "an unknown backend is refused");
		rc = kb_option_set(&p, KB_OPT_BACKEND, "landlock", &src, &e);
		ok(rc == 0 && p.backend == KB_BACKEND_LANDLOCK,
		    "--backend landlock is taken");
		rc = kb_option_set(&p, KB_OPT_REQUIRE, "private-tmp, git-guard",
		    &src, &e);
		ok(rc == 0 && p.require == (KB_FEAT_PRIVATE_TMP |
		    KB_FEAT_GIT_GUARD), "--require takes a list");
		rc = kb_option_set(&p, KB_OPT_REQUIRE, "private-tmp,chroot",
		    &src, &e);
		ok(rc == -1 && strstr(e.msg, "unknown feature 'chroot'") != NULL,
		    "--require refuses an unknown feature: %s", e.msg);
	}
	for (int i = 0; i <= KB_MAX_WRITE; i++)
		free(dirs[i]);
	kb_policy_free(&p);
}

/* kinbox's stores outside the roots the command may write */
static void
test_stores(void)
{
	struct kb_policy p;
	struct kb_err e;
	char *ws = mk("sws"), *other = mk("sother"), *root = mk("sroot");
	char *lnk = xasprintf("%s/slink", base);
	char *v;
	int rc;

	kb_policy_init(&p);
	p.home = mk("shome");
	p.workspace = xstrdup(ws);
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("XDG_RUNTIME_DIR");
	unsetenv("XDG_STATE_HOME");
	rc = kb_config_check_stores(&p, "/nonexistent-etc-kinbox", &e);
	assert_cmpint(rc, 0, "stores: the defaults under a home outside the "
	    "workspace pass");

	v = xasprintf("%s/cfg", ws);
	setenv("XDG_CONFIG_HOME", v, 1);
	rc = kb_config_check_stores(&p, "/nonexistent-etc-kinbox", &e);
	free(v);
	v = xasprintf("$XDG_CONFIG_HOME/kinbox (%s/cfg/kinbox) lies inside the "
	    "writable workspace %s: a command could write its own grants; "
	    "move XDG_CONFIG_HOME out of the workspace", ws, ws);
	ok(rc == -1, "stores: XDG_CONFIG_HOME in the workspace is refused");
	assert_cmpstr(e.msg, v, "... with the line naming store, root and fix");
	free(v);

	v = xasprintf("%s/x/../cfg", other);
	setenv("XDG_CONFIG_HOME", v, 1);
	free(v);
	rc = kb_config_check_stores(&p, "/nonexistent-etc-kinbox", &e);
	assert_cmpint(rc, 0, "stores: elsewhere (with a '..') it passes");

	ok(symlink(ws, lnk) == 0, "fixture: a symlink to the workspace");
	v = xasprintf("%s/not/yet", lnk);
	setenv("XDG_STATE_HOME", v, 1);
	free(v);
	rc = kb_config_check_stores(&p, "/nonexistent-etc-kinbox", &e);
	ok(rc == -1 && strstr(e.msg, "$XDG_STATE_HOME/kinbox") == e.msg &&
		strstr(e.msg, "/sws/not/yet/kinbox)") != NULL,
	    "stores: through a symlink, not yet existing: judged at its real "
	    "location");
	unsetenv("XDG_STATE_HOME");

	v = xasprintf("%s/run", root);
	setenv("XDG_RUNTIME_DIR", v, 1);
	free(v);
	rc = kb_config_check_stores(&p, "/nonexistent-etc-kinbox", &e);
	assert_cmpint(rc, 0, "stores: XDG_RUNTIME_DIR outside every root");
	p.write[0].path = xstrdup(root);
	p.write[0].origin = KB_ORIGIN_SESSION;
	p.nwrite = 1;
	rc = kb_config_check_stores(&p, "/nonexistent-etc-kinbox", &e);
	ok(rc == -1 && strstr(e.msg, "lies inside the write root") != NULL &&
		strstr(e.msg, "(session grant): a command could write its own "
			      "session grants; move XDG_RUNTIME_DIR out of that "
			      "write root") != NULL,
	    "stores: in a write root of a session grant");
	unsetenv("XDG_RUNTIME_DIR");

	free(p.write[0].path);
	p.write[0].path = xasprintf("%s/.config/kinbox/sub", p.home);
	unsetenv("XDG_CONFIG_HOME");
	rc = kb_config_check_stores(&p, "/nonexistent-etc-kinbox", &e);
	ok(rc == -1 && strstr(e.msg, "the write root ") == e.msg &&
		strstr(e.msg, "lies inside kinbox's store ~/.config/kinbox") !=
		    NULL,
	    "stores: a write root inside ~/.config/kinbox is refused");
	free(p.write[0].path);
	p.write[0].path = xasprintf("%s/.config", p.home);
	rc = kb_config_check_stores(&p, "/nonexistent-etc-kinbox", &e);
	ok(rc == -1 && strstr(e.msg, "~/.config/kinbox (") == e.msg &&
		strstr(e.msg, "; grant a narrower write root than ") != NULL,
	    "stores: a write root holding ~/.config/kinbox is refused");
	p.nwrite = 0;
	free(p.write[0].path);
	p.write[0].path = NULL;

	p.cache[0] = KB_CACHE_PERSISTED; /* "cache": ~/.cache */
	v = xasprintf("%s/.cache/xdg", p.home);
	setenv("XDG_CONFIG_HOME", v, 1);
	free(v);
	rc = kb_config_check_stores(&p, "/nonexistent-etc-kinbox", &e);
	ok(rc == -1 && strstr(e.msg, "the persisted cache ") != NULL &&
		strstr(e.msg, "([caches] cache)") != NULL,
	    "stores: inside a persisted cache");
	p.cache[0] = KB_CACHE_EPHEMERAL;
	rc = kb_config_check_stores(&p, "/nonexistent-etc-kinbox", &e);
	assert_cmpint(rc, 0, "stores: an ephemeral cache is discarded: no "
	    "refusal");
	unsetenv("XDG_CONFIG_HOME");

	p.tmpdir = xstrdup(other);
	v = xasprintf("%s/state", other);
	setenv("XDG_STATE_HOME", v, 1);
	free(v);
	rc = kb_config_check_stores(&p, "/nonexistent-etc-kinbox", &e);
	ok(rc == -1 && strstr(e.msg, "the writable TMPDIR ") != NULL &&
		strstr(e.msg, "move XDG_STATE_HOME out of TMPDIR") != NULL,
	    "stores: inside the writable TMPDIR");
	unsetenv("XDG_STATE_HOME");

	kb_policy_free(&p);
	free(ws);
	free(other);
	free(root);
	free(lnk);
}

int
main(void)
{
	char tmpl[] = "/tmp/kb-test-paths.XXXXXX";

	if (mkdtemp(tmpl) == NULL)
		return 1;
	if (realpath(tmpl, base) == NULL)
		return 1;
	test_rules();
	test_policy();
	test_stores();
	{
		char *cmd = xasprintf("rm -rf '%s'", base);
		if (system(cmd) != 0)
			return 1;
		free(cmd);
	}
	return tap_done();
}
