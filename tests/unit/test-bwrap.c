/*
 * tests/unit/test-bwrap.c — plan building (backends/bwrap.c) and the git
 * guard scan and audit (gitguard/scan.c) on repositories laid out by
 * hand in a temp dir. Pure planning: nothing is executed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../../backends/backend.h"
#include "../../gitguard/gitguard.h"
#include "../../profile/options.h"
#include "../../profile/tables.h"
#include "tap.h"

static char base[PATH_MAX];
static char env0[] = "PATH=/usr/bin:/bin", env1[] = "TMPDIR=/root/x",
	    env2[] = "KINBOX_ACTIVE=forged", env3[] = "LANG=C";
static char *const test_env[] = { env0, env1, env2, env3, NULL };
static const struct kb_host test_host = { .landlock_abi = 6, .root = false };
static char cmd_make[] = "make", cmd_test[] = "test", cmd_true[] = "true";

static char *
mkd(const char *rel)
{
	char *p = xasprintf("%s/%s", base, rel);

	mkdir(p, 0755);
	return p;
}

static void
mkf(const char *rel, const char *content)
{
	char *p = xasprintf("%s/%s", base, rel);
	int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);

	if (fd >= 0) {
		if (write(fd, content, strlen(content)) < 0)
			printf("# write %s failed\n", p);
		close(fd);
	}
	free(p);
}

/* an argv element as --dry-run names it: a bind source passed as a
 * descriptor is the path it was opened on */
static const char *
arg_name(const struct kb_plan *pl, const char *a)
{
	if (strncmp(a, "/proc/self/fd/", 14) == 0) {
		long fd = strtol(a + 14, NULL, 10) - pl->pass_base;

		if (fd >= 0 && (size_t)fd < pl->npass)
			return pl->pass_path.v[fd];
	}
	return a;
}

/* index of the first argv element equal to `a` followed by `b` (and `c`) */
static long
find3(const struct kb_plan *pl, const char *a, const char *b, const char *c)
{
	for (size_t i = 0; i + 1 < pl->argv.n; i++) {
		if (strcmp(pl->argv.v[i], a) != 0)
			continue;
		if (b != NULL && strcmp(arg_name(pl, pl->argv.v[i + 1]), b) != 0)
			continue;
		if (c != NULL &&
		    (i + 2 >= pl->argv.n || strcmp(pl->argv.v[i + 2], c) != 0))
			continue;
		return (long)i;
	}
	return -1;
}

static bool
env_has(const struct kb_plan *pl, const char *kv)
{
	for (size_t i = 0; i < pl->envp.n; i++)
		if (strcmp(pl->envp.v[i], kv) == 0)
			return true;
	return false;
}

static const struct kb_guard *
guard(const struct kb_policy *p, const char *rel)
{
	char *path = xasprintf("%s/%s", base, rel);
	const struct kb_guard *g = NULL;

	for (size_t i = 0; i < p->nguard; i++)
		if (strcmp(p->guard[i].path, path) == 0)
			g = &p->guard[i];
	free(path);
	return g;
}

static int
plan_for(const char *ws_rel, struct kb_policy *p, struct kb_plan *pl,
    bool net)
{
	static char *cmd[] = { cmd_make, cmd_test, NULL };
	struct kb_err e;
	char *ws = xasprintf("%s/%s", base, ws_rel);
	int rc;

	kb_policy_init(p);
	p->home = xasprintf("%s/home", base);
	p->net = net;
	p->argv = cmd;
	if (chdir(ws) == -1)
		return -1;
	rc = kb_policy_finalize(p, &e);
	if (rc == 0)
		rc = kb_gitguard_scan_roots(p, &e);
	if (rc == 0)
		rc = kb_bwrap_plan(p, &test_host, "/usr/bin/bwrap", "/usr/libexec/kinbox/"
		    "kinbox-exec", -1, test_env, pl, &e);
	if (rc != 0)
		printf("# %s\n", e.msg);
	free(ws);
	return rc;
}

static void
test_plain_repo(void)
{
	struct kb_policy p;
	struct kb_plan pl;
	char *ws = xasprintf("%s/repo", base);
	char *dotgit = xasprintf("%s/repo/.git", base);
	char *hooks = xasprintf("%s/repo/.git/hooks", base);
	char *config = xasprintf("%s/repo/.git/config", base);
	long root, bind_ws, pin, ro_hooks;

	free(mkd("repo"));
	free(mkd("repo/.git"));
	free(mkd("repo/.git/hooks"));
	mkf("repo/.git/config", "[core]\n");
	ok(plan_for("repo", &p, &pl, false) == 0, "plan for a plain repo");

	root = find3(&pl, "--ro-bind", "/", "/");
	bind_ws = find3(&pl, "--bind", ws, ws);
	pin = find3(&pl, "--bind", dotgit, dotgit);
	ro_hooks = find3(&pl, "--ro-bind", hooks, hooks);
	ok(root > 0, "the host is bound read-only");
	ok(bind_ws > root, "the workspace is writable, over the read-only host");
	ok(pin > bind_ws, ".git is pinned (a mount point) after the workspace");
	ok(ro_hooks > pin, ".git/hooks is read-only, on top of the pin");
	ok(find3(&pl, "--ro-bind", config, config) > pin, ".git/config is read-only");
	ok(find3(&pl, "--unshare-net", NULL, NULL) > 0, "network off by default");
	ok(find3(&pl, "--tmpfs", "/tmp", NULL) > root, "a private /tmp");
	ok(find3(&pl, "--disable-userns", NULL, NULL) > 0,
	    "nested user namespaces are disabled");
	ok(find3(&pl, "--die-with-parent", NULL, NULL) > 0, "dies with kinbox");
	ok(find3(&pl, "--new-session", NULL, NULL) == -1,
	    "no --new-session: the terminal and job control stay");
	ok(find3(&pl, "--seccomp", "3", NULL) > 0, "seccomp filter on fd 3");
	ok(find3(&pl, "/usr/libexec/kinbox/kinbox-exec", "4", "5") > 0,
	    "the helper gets status fd 4 and stderr fd 5");
	assert_cmpstr(pl.argv.v[pl.argv.n - 2], "make", "the command follows");
	assert_cmpstr(pl.argv.v[pl.argv.n - 1], "test", "with its arguments");
	ok(guard(&p, "repo/.git/commondir") != NULL &&
	    guard(&p, "repo/.git/commondir")->kind == KB_GUARD_WATCH_ABSENT,
	    "a missing commondir is watched");
	ok(env_has(&pl, "TMPDIR=/tmp"),
	    "a TMPDIR under home is replaced by /tmp");
	ok(!env_has(&pl, "TMPDIR=/root/x"), "the old TMPDIR is gone");
	ok(env_has(&pl, "KINBOX_ACTIVE=bwrap") &&
	    !env_has(&pl, "KINBOX_ACTIVE=forged"),
	    "KINBOX_ACTIVE is set by kinbox, not inherited");
	ok(env_has(&pl, "LANG=C"), "the rest of the environment passes");
	kb_plan_free(&pl);
	kb_policy_free(&p);

	ok(plan_for("repo", &p, &pl, true) == 0 &&
	    find3(&pl, "--unshare-net", NULL, NULL) == -1,
	    "--net keeps the host network");
	kb_plan_free(&pl);
	kb_policy_free(&p);
	free(ws);
	free(dotgit);
	free(hooks);
	free(config);
}

static void
report_nothing(const char *line, bool security)
{
	(void)line;
	(void)security;
}

static void
test_missing_hooks(void)
{
	struct kb_policy p;
	struct kb_plan pl;
	char *hooks = xasprintf("%s/nohooks/.git/hooks", base);
	char *config = xasprintf("%s/nohooks/.git/config", base);
	int findings;

	free(mkd("nohooks"));
	free(mkd("nohooks/.git"));
	ok(plan_for("nohooks", &p, &pl, false) == 0, "plan for a repo without hooks");
	ok(find3(&pl, "--tmpfs", hooks, NULL) > 0 &&
	    find3(&pl, "--remount-ro", hooks, NULL) > 0,
	    "a missing hooks dir becomes an empty read-only mount");
	{
		char num[16];

		snprintf(num, sizeof(num), "%d", pl.empty_fd);
		ok(find3(&pl, "--ro-bind-data", num, config) > 0,
		    "a missing config becomes a read-only empty file");
	}

	/* what bwrap leaves: empty mount points; the audit removes them */
	mkdir(hooks, 0755);
	mkf("nohooks/.git/config", "");
	findings = kb_gitguard_audit(&p, report_nothing);
	assert_cmpint(findings, 0, "placeholders are not findings");
	ok(access(hooks, F_OK) == -1 && access(config, F_OK) == -1,
	    "placeholders are removed after the run");

	/* a planted commondir is a finding and is moved aside */
	mkf("nohooks/.git/commondir", "/elsewhere\n");
	mkdir(hooks, 0755);
	mkf("nohooks/.git/hooks/pre-commit", "#!/bin/sh\n");
	findings = kb_gitguard_audit(&p, report_nothing);
	assert_cmpint(findings, 2, "planted commondir and hooks are findings");
	ok(access(hooks, F_OK) == -1, "the planted hooks dir is moved aside");
	{
		char *cd = xasprintf("%s/nohooks/.git/commondir", base);
		ok(access(cd, F_OK) == -1, "the planted commondir is moved aside");
		free(cd);
	}
	kb_plan_free(&pl);
	kb_policy_free(&p);
	free(hooks);
	free(config);
}

static void
test_worktree(void)
{
	struct kb_policy p;
	struct kb_plan pl;
	const struct kb_guard *g;
	char *wtgit = xasprintf("%s/wt/.git", base);
	char *common = xasprintf("%s/main/.git", base);
	char *wgd = xasprintf("%s/main/.git/worktrees/wt", base);
	char *mhooks = xasprintf("%s/main/.git/hooks", base);

	free(mkd("main"));
	free(mkd("main/.git"));
	free(mkd("main/.git/hooks"));
	mkf("main/.git/config", "[core]\n");
	free(mkd("main/.git/worktrees"));
	free(mkd("main/.git/worktrees/wt"));
	mkf("main/.git/worktrees/wt/commondir", "../..\n");
	free(mkd("wt"));
	mkf("wt/.git", "gitdir: ../main/.git/worktrees/wt\n");
	{
		/* git's back-pointer: the worktree's git dir names its .git */
		char *back = xasprintf("%s\n", wtgit);
		mkf("main/.git/worktrees/wt/gitdir", back);
		free(back);
	}
	ok(plan_for("wt", &p, &pl, false) == 0, "plan for a linked worktree");
	ok(find3(&pl, "--ro-bind", wtgit, wtgit) > 0,
	    "the worktree's .git file is read-only");
	ok(find3(&pl, "--bind", common, common) == -1 &&
	    find3(&pl, "--bind", wgd, wgd) == -1,
	    "a git dir outside the roots is never made writable by pointers");
	kb_plan_free(&pl);
	kb_policy_free(&p);
	/* a human's --write of the main checkout: commit works, control
	 * files stay read-only */
	{
		struct kb_err e;
		char *mainrepo = xasprintf("%s/main", base);

		kb_policy_init(&p);
		p.home = xasprintf("%s/home", base);
		p.argv = (char *[]){ cmd_true, NULL };
		{
			char *wtdir = xasprintf("%s/wt", base);

			ok(chdir(wtdir) == 0, "cd wt");
			free(wtdir);
		}
		ok(kb_policy_add_write(&p, mainrepo, KB_ORIGIN_FLAG, &e) == 0 &&
		    kb_policy_finalize(&p, &e) == 0 &&
		    kb_gitguard_scan_roots(&p, &e) == 0 &&
		    kb_bwrap_plan(&p, &test_host, "/usr/bin/bwrap", "/x/kinbox-exec", -1,
			test_env, &pl, &e) == 0, "plan with --write main");
		free(mainrepo);
	}
	ok(find3(&pl, "--bind", common, common) > 0 &&
	    find3(&pl, "--ro-bind", mhooks, mhooks) > find3(&pl, "--bind",
		common, common), "--write main: its .git is pinned, hooks "
	    "read-only on top");
	g = guard(&p, "main/.git/worktrees/wt/commondir");
	ok(g != NULL && g->kind == KB_GUARD_RO, "the worktree's commondir is read-only");
	ok(find3(&pl, "--check", wgd, NULL) > 0,
	    "kinbox-exec verifies the pinned git dir is mounted where planned");
	kb_plan_free(&pl);
	kb_policy_free(&p);
	free(wtgit);
	free(common);
	free(wgd);
	free(mhooks);
}

/* A .git file a command planted in a previous run: "gitdir: /elsewhere"
 * must not make /elsewhere writable. */
static void
test_planted_pointer(void)
{
	struct kb_policy p;
	struct kb_plan pl;
	char *victim = xasprintf("%s/victim", base);
	char *home = xasprintf("%s/home", base);
	char *line;

	free(mkd("victim"));
	free(mkd("victim/hooks"));
	mkf("victim/HEAD", "ref: refs/heads/main\n");
	free(mkd("planted"));
	line = xasprintf("gitdir: %s\n", victim);
	mkf("planted/.git", line);
	free(line);
	ok(plan_for("planted", &p, &pl, false) == 0, "plan with a planted .git file");
	ok(find3(&pl, "--bind", victim, victim) == -1,
	    "its target is not made writable (no back-pointer)");
	kb_plan_free(&pl);
	kb_policy_free(&p);
	/* the repro: a planted worktree dir whose back-pointer and
	 * commondir the command also wrote */
	free(mkd("planted/evilwg"));
	free(mkd("planted/child"));
	mkf("planted/child/.git", "gitdir: ../evilwg\n");
	line = xasprintf("%s\n", victim);
	mkf("planted/evilwg/commondir", line);
	free(line);
	line = xasprintf("%s/planted/child/.git\n", base);
	mkf("planted/evilwg/gitdir", line);
	free(line);
	ok(plan_for("planted", &p, &pl, false) == 0 &&
	    find3(&pl, "--bind", victim, victim) == -1,
	    "a planted commondir with a matching back-pointer adds no write root");
	kb_plan_free(&pl);
	kb_policy_free(&p);
	line = xasprintf("gitdir: %s\n", home);
	mkf("planted/.git", line);
	free(line);
	ok(plan_for("planted", &p, &pl, false) == 0 &&
	    find3(&pl, "--bind", home, home) == -1,
	    "a .git file pointing at home never makes home writable");
	kb_plan_free(&pl);
	kb_policy_free(&p);
	free(victim);
	free(home);
}

static void
test_submodules(void)
{
	struct kb_policy p;
	struct kb_plan pl;
	const struct kb_guard *g;

	free(mkd("super"));
	free(mkd("super/.git"));
	free(mkd("super/.git/hooks"));
	mkf("super/.git/config", "");
	free(mkd("super/.git/modules"));
	free(mkd("super/.git/modules/lib"));
	free(mkd("super/.git/modules/lib/hooks"));
	mkf("super/.git/modules/lib/config", "");
	free(mkd("super/lib"));
	mkf("super/lib/.git", "gitdir: ../.git/modules/lib\n");
	mkf("super/.gitmodules", "[submodule \"lib\"]\n\tpath = lib\n"
				 "\turl = x\n[submodule \"evil\"]\n"
				 "\tpath = ../../etc\n");
	ok(plan_for("super", &p, &pl, false) == 0, "plan for a superproject");
	g = guard(&p, "super/.git/modules/lib/hooks");
	ok(g != NULL && g->kind == KB_GUARD_RO, "submodule hooks are read-only");
	g = guard(&p, "super/.git/modules/lib/config");
	ok(g != NULL && g->kind == KB_GUARD_RO, "submodule config is read-only");
	g = guard(&p, "super/.git/modules/lib");
	ok(g != NULL && g->kind == KB_GUARD_PIN_DIR,
	    "the submodule git dir is pinned");
	g = guard(&p, "super/lib/.git");
	ok(g != NULL && g->kind == KB_GUARD_RO,
	    "the submodule checkout's .git file is read-only");
	{
		bool outside = false;

		for (size_t i = 0; i < p.nguard; i++)
			if (!kb_path_within(p.guard[i].path, base))
				outside = true;
		ok(!outside, "a .gitmodules path escaping with .. guards nothing");
	}
	kb_plan_free(&pl);
	kb_policy_free(&p);
}

static void
test_keep_fds(void)
{
	struct kb_policy p;
	struct kb_plan pl;
	struct kb_err e;
	int fd3 = -1, fd4 = -1;
	char *render;

	/* keep 3 and 4: kinbox's own descriptors move out of their way */
	while (fd3 != 3 && fd3 < 3)
		fd3 = open("/dev/null", O_RDONLY);
	fd4 = open("/dev/null", O_RDONLY);
	kb_policy_init(&p);
	if (fd3 == 3 && fd4 == 4) {
		ok(kb_policy_add_keep_fd(&p, "3", &e) == 0 &&
		    kb_policy_add_keep_fd(&p, "4", &e) == 0, "keep fds 3 and 4");
	} else {
		ok(0, "could not open fds 3 and 4 for the test (%d %d)", fd3, fd4);
	}
	kb_policy_free(&p);
	free(mkd("plain"));
	{
		static char *cmd[] = { cmd_true, NULL };
		kb_policy_init(&p);
		p.home = xasprintf("%s/home", base);
		p.argv = cmd;
		kb_policy_add_keep_fd(&p, "3", &e);
		kb_policy_add_keep_fd(&p, "4", &e);
		if (chdir(base) == 0 && chdir("plain") == 0 &&
		    kb_policy_finalize(&p, &e) == 0 &&
		    kb_gitguard_scan_roots(&p, &e) == 0 &&
		    kb_bwrap_plan(&p, &test_host, "/usr/bin/bwrap", "/h", -1,
			test_env, &pl,
			&e) == 0) {
			assert_cmpint(pl.seccomp_fd, 5, "seccomp fd skips kept fds");
			ok(find3(&pl, "/h", "6", "7") > 0,
			    "helper fds skip kept fds");
			render = kb_plan_render(&pl);
			ok(strstr(render, "# fds: 0 1 2 and kept: 3 4\n") != NULL,
			    "--dry-run names the kept fds");
			ok(strstr(render, "\n--ro-bind\n/\n/\n") != NULL,
			    "--dry-run prints one argv element per line");
			free(render);
			kb_plan_free(&pl);
		} else {
			ok(0, "plan with kept fds: %s", e.msg);
		}
		kb_policy_free(&p);
	}
	close(fd3);
	close(fd4);
}

/* a unix socket at base/rel (bound, then closed: the file stays) */
static char *
mksock(const char *rel)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char *p = xasprintf("%s/%s", base, rel);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", p);
	if (fd == -1 || bind(fd, (struct sockaddr *)&a, sizeof(a)) == -1)
		printf("# socket %s failed\n", p);
	if (fd != -1)
		close(fd);
	return p;
}

static void
mkl(const char *rel, const char *target)
{
	char *p = xasprintf("%s/%s", base, rel);

	if (symlink(target, p) == -1)
		printf("# symlink %s failed\n", p);
	free(p);
}

/* a policy as kinbox builds it from base/ws_rel with the sockets granted
 * (origin, where) and finalized; 0, or -1 with `e` */
static int
sock_policy(struct kb_policy *p, const char *ws_rel, enum kb_origin o,
    const char *where, const char *const *socks, struct kb_err *e)
{
	static char *cmd[] = { cmd_true, NULL };
	char *ws = xasprintf("%s/%s", base, ws_rel);
	int rc = 0;

	e->msg[0] = '\0';
	kb_policy_init(p);
	p->home = xasprintf("%s/home", base);
	p->argv = cmd;
	if (chdir(ws) == -1)
		rc = kb_err_set(e, "cd %s failed", ws);
	for (size_t i = 0; rc == 0 && socks[i] != NULL; i++) {
		struct kb_src src = { o, where };

		rc = kb_option_set(p, KB_OPT_ALLOW_SOCKET, socks[i], &src, e);
	}
	if (rc == 0)
		rc = kb_policy_finalize(p, e);
	free(ws);
	return rc;
}

static const struct kb_mask *
mask_at(const struct kb_policy *p, const char *path)
{
	for (size_t i = 0; i < p->nmask; i++)
		if (strcmp(p->mask[i].path, path) == 0)
			return &p->mask[i];
	return NULL;
}

/* a typed --allow-socket that cannot hold: finalize's one line */
static void
sock_refused(const char *arg, const char *want, const char *what)
{
	const char *socks[] = { arg, NULL };
	struct kb_policy p;
	struct kb_err e;
	char *full = xasprintf("--allow-socket %s: %s", arg, want);

	e.msg[0] = '\0';
	ok(sock_policy(&p, "sock-ws", KB_ORIGIN_FLAG, "--allow-socket", socks,
	    &e) == -1 && strcmp(e.msg, full) == 0, "%s: %s", what, e.msg);
	if (strcmp(e.msg, full) != 0)
		printf("#   want '%s'\n", full);
	kb_policy_free(&p);
	free(full);
}

static void
test_allow_socket(void)
{
	static const char inside[] = "inside a writable root; the command's "
				     "own sockets need no grant — drop it";
	char *db, *pg, *own, *agent, *home_sock;
	char *envs[4];
	struct kb_policy p;
	struct kb_plan pl;
	struct kb_err e;
	struct stat st;

	free(mkd("sock-ws"));
	free(mkd("sock-ws/deep"));
	free(mkd("sock-ws/deep/er"));
	free(mkd("svc"));
	free(mkd("svc/pg"));
	free(mkd("agent"));
	db = mksock("svc/db.sock");
	pg = mksock("svc/pg/.s.PGSQL.5432");
	own = mksock("sock-ws/deep/er/own.sock");
	agent = mksock("agent/agent.sock");
	home_sock = mksock("home/docker.sock");
	mkf("svc/plain", "not a socket\n");
	mkl("sock-ws/out-link", db);         /* the command's link, out */
	mkl("svc/via-ws", "../sock-ws/out-link"); /* outside, via it */
	mkl("svc/alias", "db.sock");          /* a human's link, outside */
	mkl("svc/pg-dir", "pg");

	/* typed: each one that cannot hold is an error naming the fix */
	sock_refused("/nonexistent/kb.sock", "no such socket; start the "
	    "service first, or drop --allow-socket", "a missing socket");
	sock_refused("../svc/nope.sock", "no such socket; start the service "
	    "first, or drop --allow-socket", "a missing socket, relative");
	sock_refused("../svc/plain", "not a socket (a regular file); give the "
	    "path of a unix socket, or drop --allow-socket", "a regular file");
	sock_refused("../svc/pg", "not a socket (a directory); give the path "
	    "of a unix socket, or drop --allow-socket", "a directory");
	sock_refused("deep/er/own.sock", inside, "the command's own socket, "
	    "relative");
	sock_refused(own, inside, "... absolute");
	sock_refused("out-link", inside, "a link in the workspace to a host "
	    "socket (the command could have planted it)");
	sock_refused("../sock-ws/deep/../out-link", inside, "... written "
	    "with .. on the way");
	{
		char *want = xasprintf("the symbolic link %s/sock-ws/out-link "
				       "on its way lies inside a writable "
				       "root, where the command could have "
				       "planted it; give the socket's own "
				       "path", base);

		sock_refused("../svc/via-ws", want, "a link outside that "
		    "passes a link in the workspace");
		free(want);
	}

	/* granted: one mask, at the real path, with the socket's identity */
	{
		const char *socks[] = { "../svc/alias", db, "../svc/pg-dir/"
			".s.PGSQL.5432", NULL };
		const struct kb_mask *m, *m2;
		char *render;
		long bind_db, bind_ws;

		ok(sock_policy(&p, "sock-ws", KB_ORIGIN_FLAG, "--allow-socket",
		    socks, &e) == 0, "three names of two sockets, typed: %s",
		    e.msg);
		m = mask_at(&p, db);
		m2 = mask_at(&p, pg);
		ok(p.nallow_socket == 2 &&
		    strcmp(p.allow_socket[0].path, db) == 0 &&
		    strcmp(p.allow_socket[1].path, pg) == 0 &&
		    p.allow_socket[0].origin == KB_ORIGIN_FLAG &&
		    strcmp(p.allow_socket[0].where, "--allow-socket") == 0,
		    "two grants, canonical, the link and the real path one");
		ok(m != NULL && m->kind == KB_EXPOSE_SOCKET &&
		    m->by == KB_OPT_ALLOW_SOCKET && strcmp(m->src, db) == 0 &&
		    stat(db, &st) == 0 && m->dev == st.st_dev &&
		    m->ino == st.st_ino && m2 != NULL &&
		    m2->by == KB_OPT_ALLOW_SOCKET,
		    "a KB_EXPOSE_SOCKET mask each, by --allow-socket, with the "
		    "socket's dev and inode");
		ok(kb_bwrap_plan(&p, &test_host, "/usr/bin/bwrap", "/h", -1,
		    test_env, &pl, &e) == 0, "planned: %s", e.msg);
		bind_db = find3(&pl, "--bind", db, db);
		bind_ws = find3(&pl, "--bind", p.workspace, p.workspace);
		ok(bind_db > 0 && bind_ws > 0 && bind_db > bind_ws &&
		    find3(&pl, "--bind", pg, pg) > 0,
		    "bwrap binds each socket at its path, after the roots");
		render = kb_plan_render(&pl);
		{
			char *l1 = xasprintf("# mask: %s (granted socket "
					     "(--allow-socket))\n", db);
			char *l2 = xasprintf("# socket: %s (granted by flag)\n"
					     "# socket set by: --allow-socket\n"
					     "# socket: %s (granted by flag)\n",
			    db, pg);

			ok(strstr(render, l1) != NULL &&
			    strstr(render, l2) != NULL,
			    "--dry-run: the mask by --allow-socket, a socket "
			    "line with its origin and where");
			free(l1);
			free(l2);
		}
		free(render);
		kb_plan_free(&pl);
		kb_policy_free(&p);
	}

	/* a grant from a file only permits: what cannot hold is a note */
	{
		const char *socks[] = { "/nonexistent/kb.sock", own, db, NULL };
		char *n1 = xasprintf("socket: the grant of %s (/c/config.ini:2) "
				     "is not used: inside a writable root", own);

		ok(sock_policy(&p, "sock-ws", KB_ORIGIN_GLOBAL, "/c/config.ini:2",
		    socks, &e) == 0 && p.nallow_socket == 1 &&
		    strcmp(p.allow_socket[0].path, db) == 0 &&
		    p.allow_socket[0].origin == KB_ORIGIN_GLOBAL &&
		    mask_at(&p, own) == NULL, "config grants: the missing one "
		    "and the command's own dropped, the good one kept: %s",
		    e.msg);
		ok(p.notes.n == 2 && strcmp(p.notes.v[0], "socket: the grant "
		    "of /nonexistent/kb.sock (/c/config.ini:2) is not used: no "
		    "such socket") == 0 && strcmp(p.notes.v[1], n1) == 0,
		    "... each with a note saying why");
		free(n1);
		ok(kb_landlock_plan(&p, &test_host, "/h", -1,
		    KB_LANDLOCK_RUNDIR_TEMPLATE, -1, "as asked", test_env, &pl,
		    &e) == 0, "the landlock backend runs with a socket grant "
		    "(it only permits): %s", e.msg);
		{
			char *render = kb_plan_render(&pl);
			char *l = xasprintf("# socket: the grant of %s "
					    "(/c/config.ini:2) is not used: the "
					    "landlock backend refuses every unix "
					    "socket\n", db);

			ok(strstr(render, l) != NULL, "... its plan says the "
			    "grant is not used");
			free(l);
			free(render);
		}
		kb_plan_free(&pl);
		kb_policy_free(&p);
	}
	{
		const char *socks[] = { db, NULL };

		ok(sock_policy(&p, "sock-ws", KB_ORIGIN_FLAG, "--allow-socket",
		    socks, &e) == 0 &&
		    kb_landlock_plan(&p, &test_host, "/h", -1,
			KB_LANDLOCK_RUNDIR_TEMPLATE, -1, "as asked", test_env,
			&pl, &e) == -1 &&
		    strstr(e.msg, "the landlock backend refuses every unix "
		    "socket") != NULL && strstr(e.msg, "nothing was run") !=
		    NULL, "typed, the landlock backend refuses it: %s", e.msg);
		kb_policy_free(&p);
	}

	/* the agent's socket granted again: one mask, the agent's, and one
	 * SSH_AUTH_SOCK (the allowed socket names no variable) */
	{
		const char *socks[] = { agent, db, NULL };
		char *kv = xasprintf("SSH_AUTH_SOCK=%s", agent);
		struct kb_src on = { KB_ORIGIN_FLAG, "--ssh-agent" };
		size_t nsock = 0, nmask = 0;
		static char *cmd[] = { cmd_true, NULL };

		e.msg[0] = '\0';
		envs[0] = env0;
		envs[1] = kv;
		envs[2] = env3;
		envs[3] = NULL;
		setenv("SSH_AUTH_SOCK", agent, 1);
		kb_policy_init(&p);
		p.home = xasprintf("%s/home", base);
		p.argv = cmd;
		ok(chdir(base) == 0 && chdir("sock-ws") == 0 &&
		    kb_option_set(&p, KB_OPT_SSH_AGENT, "on", &on, &e) == 0 &&
		    kb_option_set(&p, KB_OPT_NET, "on", &on, &e) == 0,
		    "--ssh-agent --net");
		on.where = "--allow-socket";
		for (size_t i = 0; socks[i] != NULL; i++)
			kb_option_set(&p, KB_OPT_ALLOW_SOCKET, socks[i], &on, &e);
		ok(kb_policy_finalize(&p, &e) == 0 &&
		    kb_bwrap_plan(&p, &test_host, "/usr/bin/bwrap", "/h", -1,
			envs, &pl, &e) == 0, "planned: %s", e.msg);
		for (size_t i = 0; i < p.nmask; i++)
			nmask += strcmp(p.mask[i].path, agent) == 0;
		for (size_t i = 0; i < pl.envp.n; i++)
			nsock += strncmp(pl.envp.v[i], "SSH_AUTH_SOCK=", 14) == 0;
		ok(nmask == 1 && mask_at(&p, agent)->by == KB_OPT_SSH_AGENT &&
		    mask_at(&p, db)->by == KB_OPT_ALLOW_SOCKET &&
		    p.nallow_socket == 2, "the agent's socket is one mask, by "
		    "--ssh-agent; the other by --allow-socket");
		ok(nsock == 1 && env_has(&pl, kv), "one SSH_AUTH_SOCK, the "
		    "agent's");
		unsetenv("SSH_AUTH_SOCK");
		free(kv);
		kb_plan_free(&pl);
		kb_policy_free(&p);
	}

	/* a socket hidden by itself (a mask = of the configuration; so the
	 * tables hide one DOCKER_HOST names in the home directory): the
	 * grant shows it */
	for (int granted = 0; granted < 2; granted++) {
		static char *cmd[] = { cmd_true, NULL };
		struct kb_src src = { KB_ORIGIN_WORKSPACE, "/c/g.ini:7" };
		const struct kb_mask *m;

		e.msg[0] = '\0';
		kb_policy_init(&p);
		p.home = xasprintf("%s/home", base);
		p.argv = cmd;
		kb_strv_push(&p.extra_mask, home_sock);
		if (granted)
			kb_option_set(&p, KB_OPT_ALLOW_SOCKET, home_sock, &src,
			    &e);
		ok(chdir(base) == 0 && chdir("plain") == 0 &&
		    kb_policy_finalize(&p, &e) == 0 &&
		    (m = mask_at(&p, home_sock)) != NULL &&
		    (granted ? m->kind == KB_EXPOSE_SOCKET &&
			    m->by == KB_OPT_ALLOW_SOCKET &&
			    strcmp(m->src, home_sock) == 0 && m->ino != 0
			     : m->kind == KB_MASK_FILE && m->by == -1),
		    granted ? "granted, the mask of the socket yields to the "
			      "grant: %s"
			    : "masked by itself, without the grant%s",
		    granted ? e.msg : "");
		kb_policy_free(&p);
	}
	free(db);
	free(pg);
	free(own);
	free(agent);
	free(home_sock);
}

static void
test_quote(void)
{
	struct kb_buf b = { 0 };

	kb_buf_shquote(&b, "/plain/path-1.2");
	kb_buf_puts(&b, " ");
	kb_buf_shquote(&b, "it's a $x");
	kb_buf_puts(&b, " ");
	kb_buf_shquote(&b, "");
	assert_cmpstr(b.s, "/plain/path-1.2 'it'\\''s a $x' ''",
	    "shell quoting");
	kb_buf_free(&b);
}

/* the tmpfs mounts' share of the budget, the upper layer's included */
static unsigned long long
tmpfs_cost(const struct kb_plan *pl)
{
	unsigned long long sum = kb_memory_cost(pl->upper.size,
	    pl->upper.inodes);

	for (size_t i = 0; i < pl->ntmpfs; i++)
		sum += kb_memory_cost(pl->tmpfs[i].size, pl->tmpfs[i].inodes);
	return sum;
}

static const struct kb_tmpfs *
tmpfs_at(const struct kb_plan *pl, const char *path)
{
	for (size_t i = 0; i < pl->ntmpfs; i++)
		if (strcmp(pl->tmpfs[i].path, path) == 0)
			return &pl->tmpfs[i];
	return NULL;
}

/* every --tmpfs of bwrap's options has a --size right before it, the one
 * the plan records for that path */
static bool
every_tmpfs_sized(const struct kb_plan *pl)
{
	bool all = true;

	for (size_t i = 0; i < pl->argv.n && strcmp(pl->argv.v[i], "--"); i++) {
		const struct kb_tmpfs *t;
		char want[32];

		if (strcmp(pl->argv.v[i], "--tmpfs") != 0)
			continue;
		t = i + 1 < pl->argv.n ? tmpfs_at(pl, pl->argv.v[i + 1]) : NULL;
		if (t != NULL)
			snprintf(want, sizeof(want), "%llu", t->size);
		if (t == NULL || i < 2 || strcmp(pl->argv.v[i - 2], "--size") ||
		    strcmp(pl->argv.v[i - 1], want) != 0 || t->size == 0 ||
		    t->inodes == 0) {
			printf("# --tmpfs %s: not sized as planned\n",
			    i + 1 < pl->argv.n ? pl->argv.v[i + 1] : "?");
			all = false;
		}
	}
	return all;
}

static void
test_memory(void)
{
	static char *cmd[] = { cmd_true, NULL };
	static const struct kb_host host16 = { .landlock_abi = 6,
		.overlay = true, .mem_total = 16ULL << 30 };
	struct kb_memsplit sp;
	struct kb_policy p;
	struct kb_plan pl;
	struct kb_err e;
	const struct kb_tmpfs *t;
	unsigned long long size, inodes;
	char *render, *gc, *rm;
	/* caches below /tmp are not mounted (profile/masks.c): a home of
	 * their own elsewhere */
	char vhome[] = "/var/tmp/kb-test-bwrap-home.XXXXXX";
	int g = -1;

	for (size_t i = 0; i < kb_cache_count; i++)
		if (strcmp(kb_cache_table[i].name, "gradle") == 0)
			g = (int)i;
	free(mkd("mem"));
	if (mkdtemp(vhome) == NULL) {
		ok(0, "mkdtemp %s: %s", vhome, strerror(errno));
		return;
	}
	gc = xasprintf("%s/.npm", vhome);
	mkdir(gc, 0755);
	free(gc);
	gc = xasprintf("%s/.gradle", vhome);
	mkdir(gc, 0755);
	free(gc);
	gc = xasprintf("%s/.gradle/caches", vhome);
	mkdir(gc, 0755);

	/* the default: a quarter of 16 GiB */
	kb_policy_init(&p);
	p.home = xstrdup(vhome);
	p.argv = cmd;
	if (chdir(base) == 0 && chdir("mem") == 0 &&
	    kb_policy_finalize(&p, &e) == 0 &&
	    kb_gitguard_scan_roots(&p, &e) == 0 &&
	    kb_bwrap_plan(&p, &host16, "/usr/bin/bwrap", "/h", -1, test_env,
		&pl, &e) == 0) {
		assert_cmpint((int)(pl.memory >> 20), 4096,
		    "the default budget of 16 GiB of RAM is 4 GiB");
		ok(pl.memory_by == NULL, "... set by nobody");
		ok(every_tmpfs_sized(&pl), "every --tmpfs has its --size");
		ok(tmpfs_cost(&pl) <= pl.memory,
		    "together within the budget (%llu <= %llu)",
		    tmpfs_cost(&pl), pl.memory);
		ok(pl.ntmpfs > 0 && strcmp(pl.tmpfs[0].path, "/dev") == 0 &&
		    pl.tmpfs[0].kind == KB_TMPFS_DEV &&
		    pl.tmpfs[0].size == 64 << 10 &&
		    pl.tmpfs[0].inodes == 32 + 64 + 1 &&
		    pl.tmpfs[0].size_arg == 0,
		    "bwrap's /dev: 64 KiB, 96 inodes and one for /dev/shm, "
		    "set from outside (no --size)");
		t = tmpfs_at(&pl, "/dev/shm");
		ok(t != NULL && t->kind == KB_TMPFS_SHM &&
		    find3(&pl, "--perms", "1777", "--size") > 0,
		    "/dev/shm: a tmpfs of its own, 1777");
		ok(find3(&pl, "--own", "/dev/shm", NULL) > 0,
		    "its sockets are the command's own");
		ok(find3(&pl, "--wait", NULL, NULL) > 0,
		    "kinbox-exec waits for the mounter's go");
		ok(kb_plan_mounts(&pl), "the mounter runs");
		t = tmpfs_at(&pl, "/tmp");
		ok(t != NULL && t->size > (2ULL << 30) &&
		    t->inodes == (t->size + t->inodes * KB_INODE_COST) / 8192,
		    "/tmp gets most of it, an inode per 8 KiB of its share");
		ok(pl.upper.size > 0 && pl.upper.inodes > 0,
		    "the ephemeral caches' upper layer is sized too");
		render = kb_plan_render(&pl);
		ok(strstr(render, "# memory: budget 4 GiB (the default: a "
		    "quarter of RAM, at most 4 GiB)\n") != NULL,
		    "--dry-run says the budget and that it is the default");
		ok(strstr(render, "# memory: no cgroup: ") != NULL,
		    "... and that no cgroup bounds the run");
		free(render);
		kb_plan_free(&pl);
	} else {
		ok(0, "plan with the default budget: %s", e.msg);
	}
	kb_policy_free(&p);

	/* --memory 64M, an overlay (npm) and an empty cache (gradle) */
	kb_policy_init(&p);
	p.home = xstrdup(vhome);
	p.argv = cmd;
	p.memory = 64ULL << 20;
	free(p.where[KB_OPT_MEMORY]);
	p.where[KB_OPT_MEMORY] = xstrdup("--memory");
	if (g >= 0)
		p.cache[g] = KB_CACHE_EMPTY;
	if (chdir(base) == 0 && chdir("mem") == 0 &&
	    kb_policy_finalize(&p, &e) == 0 &&
	    kb_gitguard_scan_roots(&p, &e) == 0 &&
	    kb_bwrap_plan(&p, &host16, "/usr/bin/bwrap", "/h", -1, test_env,
		&pl, &e) == 0) {
		ok(pl.memory == 64ULL << 20 && pl.memory_by != NULL &&
		    strcmp(pl.memory_by, "--memory") == 0,
		    "--memory 64M is the budget");
		ok(every_tmpfs_sized(&pl), "every --tmpfs has its --size");
		ok(tmpfs_cost(&pl) <= pl.memory,
		    "together within 64 MiB (%llu)", tmpfs_cost(&pl));
		t = tmpfs_at(&pl, gc);
		ok(t != NULL && t->kind == KB_TMPFS_CACHE &&
		    kb_memory_cost(t->size, t->inodes) <= (64ULL << 20) / 8 &&
		    pl.upper.size > 0 &&
		    kb_memory_cost(pl.upper.size, pl.upper.inodes) ==
		    kb_memory_cost(t->size, t->inodes),
		    "the empty cache and the overlays' upper layer share a "
		    "quarter of the rest evenly");
		t = tmpfs_at(&pl, "/tmp");
		ok(t != NULL && t->size >= 30ULL << 20 && t->size < 40ULL << 20,
		    "/tmp holds 30 to 40 MiB of 64 (%llu)", t ? t->size : 0);
		render = kb_plan_render(&pl);
		ok(strstr(render, "# memory: budget 64 MiB (set by "
		    "--memory)\n") != NULL, "--dry-run names what set it");
		free(render);
		kb_plan_free(&pl);
	} else {
		ok(0, "plan with --memory 64M: %s", e.msg);
	}
	kb_policy_free(&p);

	/* the landlock backend bounds nothing with it, and says so */
	kb_policy_init(&p);
	p.home = xstrdup(vhome);
	p.argv = cmd;
	if (chdir(base) == 0 && chdir("mem") == 0 &&
	    kb_policy_finalize(&p, &e) == 0 &&
	    kb_landlock_plan(&p, &host16, "/h", -1,
		KB_LANDLOCK_RUNDIR_TEMPLATE, -1, "as asked", test_env, &pl,
		&e) == 0) {
		render = kb_plan_render(&pl);
		ok(pl.ntmpfs == 0 && !kb_plan_mounts(&pl) &&
		    strstr(render, "# memory: not bounded by this backend: it "
		    "makes no tmpfs") != NULL,
		    "landlock: no tmpfs, the budget bounds nothing, said so");
		free(render);
		kb_plan_free(&pl);
	} else {
		ok(0, "landlock plan: %s", e.msg);
	}
	kb_policy_free(&p);

	/* the split itself */
	ok(kb_memory_split(64ULL << 20, 1ULL << 20, 2, &sp) == 0 &&
	    sp.reserve == 4ULL << 20 && sp.shm == (60ULL << 20) / 8 &&
	    sp.cache == (60ULL << 20) / 4 / 2 &&
	    sp.reserve + sp.tmp + sp.shm + 2 * sp.cache == 64ULL << 20,
	    "64M: a 16th kept, an 8th of the rest for /dev/shm, a quarter "
	    "for the 2 caches, the rest for /tmp");
	ok(kb_memory_split(64ULL << 20, 10ULL << 20, 0, &sp) == 0 &&
	    sp.reserve == 10ULL << 20 && sp.cache == 0 &&
	    sp.reserve + sp.tmp + sp.shm == 64ULL << 20,
	    "small mounts past a 16th keep what they take; no cache: /tmp "
	    "has that quarter too");
	ok(kb_memory_split(16ULL << 20, 13ULL << 20, 0, &sp) == -1,
	    "refused when less than 4 MiB is left for /tmp");
	ok(kb_memory_split(16ULL << 20, 1ULL << 20, 0, &sp) == 0,
	    "16M with few small mounts holds");
	kb_memory_limits(33ULL << 20, 5, &size, &inodes);
	ok(kb_memory_cost(size, inodes) <= 33ULL << 20 && size % 4096 == 0 &&
	    inodes == (33ULL << 20) / 8192,
	    "a share's limits: an inode per 8 KiB, the rest its size in "
	    "pages");
	kb_memory_limits(64ULL << 10, 100, &size, &inodes);
	ok(inodes == 164 && size == 0,
	    "at least 64 inodes more than the mounts below need");
	kb_memory_small(KB_TMPFS_MASK, 3, &size, &inodes);
	ok(size == 64 << 10 && inodes == 67, "a mask: 64 KiB, 64 inodes + 3");
	kb_memory_small(KB_TMPFS_RO, 0, &size, &inodes);
	ok(size == 4096 && inodes == 8, "an absent hooks dir: 4 KiB, 8");
	free(gc);
	rm = xasprintf("rm -rf '%s'", vhome);
	if (system(rm) != 0)
		printf("# %s failed\n", rm);
	free(rm);
}

int
main(void)
{
	char tmpl[] = "/tmp/kb-test-bwrap.XXXXXX";

	if (mkdtemp(tmpl) == NULL || realpath(tmpl, base) == NULL)
		return 1;
	free(mkd("home"));
	setenv("TMPDIR", "/nonexistent-tmp", 1); /* finalize reads it */
	test_plain_repo();
	test_missing_hooks();
	test_worktree();
	test_planted_pointer();
	test_submodules();
	test_keep_fds();
	test_allow_socket();
	test_quote();
	test_memory();
	{
		char *cmd = xasprintf("rm -rf '%s'", base);
		if (chdir("/") != 0 || system(cmd) != 0)
			return 1;
		free(cmd);
	}
	return tap_done();
}
