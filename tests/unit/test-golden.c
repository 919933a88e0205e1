/*
 * tests/unit/test-golden.c — golden plans: for each named case a tree laid
 * out under a temp dir, a policy built as kinbox.c builds it (the setters,
 * the config layers, finalize, the git scan, the store check) and the
 * bwrap plan compared with tests/golden/<case>.plan, argv element by argv
 * element; for the seatbelt cases the exact profile and its parameters,
 * tests/golden/seatbelt-<case>.sb and .params. A change to what kinbox
 * mounts shows up as a diff of those files, reviewed like code.
 *
 *   make golden-update      rewrites the files (KB_GOLDEN_UPDATE=1)
 *   KB_GOLDEN_DIR=dir       where the files are (default tests/golden,
 *                           from the directory the test starts in)
 *
 * The test owns its whole environment: it starts from an empty one and
 * sets HOME, the XDG_* variables and TMPDIR to the temp tree, and the
 * system config is read from the tree (kb_config_load_all's `etc`). What
 * the test cannot move is the passwd home and the host's /run and
 * /etc/resolv.conf: mounts of host paths outside the tree are left out of
 * the golden text (they are checked here instead, where they exist).
 *
 * The cases are here; the harness (the tree helpers, the normalising,
 * the comparison, building a plan) is golden-harness.h.
 */
#include "golden-harness.h"

static const struct kb_host host6 = { .landlock_abi = 6, .root = false,
	.overlay = true };

/* --- the cases ------------------------------------------------------------ */

static void
case_plain(void)
{
	struct run r = { "plain", "a workspace without git, all defaults",
		"plain", host6, NULL, KB_BACKEND_AUTO, NULL };
	struct kb_policy p;

	mkd("plain/src");
	reset_env();
	if (start(&p, r.cwd))
		finish(&r, &p);
}

static void
case_repo_hooks(void)
{
	struct run r = { "repo-hooks", "-C repo from repo/src: a git repository "
		"with hooks and config, an embedded repository in sub/",
		"repo/src", host6, NULL, KB_BACKEND_AUTO, NULL };
	struct kb_policy p;
	struct kb_err e;
	_cleanup_free_ char *ws = at("repo");

	mkrepo("repo", true);
	mkd("repo/src");
	mkrepo("repo/sub", true);
	reset_env();
	if (start(&p, r.cwd) &&
	    setter(kb_policy_set_workspace(&p, ws, &e), "-C repo", &e))
		finish(&r, &p);
	else
		kb_policy_free(&p);
}

static void
case_repo_nohooks(void)
{
	struct run r = { "repo-nohooks", "a git repository without hooks/ and "
		"config: both kept uncreatable", "bare", host6, NULL, KB_BACKEND_AUTO, NULL };
	struct kb_policy p;

	mkrepo("bare", false);
	reset_env();
	if (start(&p, r.cwd))
		finish(&r, &p);
}

static void
case_write_net(void)
{
	struct run r = { "write-net", "--write out (itself a git checkout) "
		"--write out2 --net", "proj", host6, NULL, KB_BACKEND_AUTO, NULL };
	struct kb_policy p;
	struct kb_err e;
	_cleanup_free_ char *out = at("out"), *out2 = at("out2");

	mkd("proj");
	mkrepo("out", true);
	mkd("out2");
	reset_env();
	if (!start(&p, r.cwd) ||
	    !setter(kb_policy_add_write(&p, out, KB_ORIGIN_FLAG, &e),
		"--write out", &e) ||
	    !setter(kb_policy_add_write(&p, out2, KB_ORIGIN_FLAG, &e),
		"--write out2", &e)) {
		kb_policy_free(&p);
		return;
	}
	type_switch(KB_OPT_NET, "--net");
	finish(&r, &p);
}

/* fd `fd` open on /dev/null; false when the number is taken */
static bool
open_at(int fd)
{
	int n;

	if (fcntl(fd, F_GETFD) != -1) {
		ok(0, "descriptor %d is in use already; the case needs it", fd);
		return false;
	}
	n = open("/dev/null", O_RDONLY);
	if (n == -1 || (n != fd && dup2(n, fd) == -1)) {
		ok(0, "open descriptor %d: %s", fd, strerror(errno));
		if (n != -1)
			close(n);
		return false;
	}
	if (n != fd)
		close(n);
	return true;
}

static void
case_keep_fd(void)
{
	struct run r = { "keep-fd", "--keep-fd 3 --keep-fd 5, TMPDIR outside "
		"/tmp and home (a writable root)", "kf", host6, NULL, KB_BACKEND_AUTO, NULL };
	struct kb_policy p;
	struct kb_err e;
	_cleanup_free_ char *tmp = at("tmpdir");

	mkd("kf");
	mkd("tmpdir");
	reset_env();
	setenv("TMPDIR", tmp, 1);
	if (!open_at(3) || !open_at(5)) {
		close(3);
		close(5);
		return;
	}
	if (start(&p, r.cwd) &&
	    setter(kb_policy_add_keep_fd(&p, "3", &e), "--keep-fd 3", &e) &&
	    setter(kb_policy_add_keep_fd(&p, "5", &e), "--keep-fd 5", &e))
		finish(&r, &p);
	else
		kb_policy_free(&p);
	close(3);
	close(5);
}

/* the fake home's credential stores, and an ssh dir with a private key,
 * public files and a link named like a public file to the private key */
static void
mkcreds(void)
{
	mkf("home/.netrc", "machine example.org login me password golden\n");
	mkd("home/.aws");
	mkf("home/.aws/credentials", "[default]\n");
	mkd("home/.config/gh");
	mkf("home/.config/gh/hosts.yml", "github.com:\n");
	mkd("home/.docker");
	mkf("home/.docker/config.json", "{}\n");
	mkd("home/.ssh");
	mkf("home/.ssh/id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\n");
	mkf("home/.ssh/id_ed25519.pub", "ssh-ed25519 AAAA golden\n");
	mkf("home/.ssh/known_hosts", "example.org ssh-ed25519 AAAA\n");
	mkf("home/.ssh/config", "Host *\n");
	mkl("home/.ssh/id_rsa.pub", "id_ed25519");
}

static void
case_credentials(void)
{
	struct run r = { "credentials", "a fake home with ~/.netrc, ~/.ssh, "
		"~/.aws, ~/.config/gh, ~/.docker/config.json; an agent "
		"socket not granted; TMPDIR in home", "cred", host6, NULL, KB_BACKEND_AUTO, NULL };
	struct kb_policy p;
	_cleanup_free_ char *sock = at("agent/agent.sock");
	_cleanup_free_ char *tmp = at("home/tmp");

	mkd("cred");
	mkcreds();
	mkd("agent");
	mksock("agent/agent.sock");
	mkd("home/tmp");
	reset_env();
	setenv("SSH_AUTH_SOCK", sock, 1);
	setenv("TMPDIR", tmp, 1);
	if (start(&p, r.cwd))
		finish(&r, &p);
}

static void
case_ssh_agent(void)
{
	struct run r = { "ssh-agent", "--ssh-agent (the network follows) with "
		"the credentials of the credentials case", "cred", host6, NULL, KB_BACKEND_AUTO, NULL };
	struct kb_policy p;
	_cleanup_free_ char *sock = at("agent/agent.sock");

	reset_env();
	setenv("SSH_AUTH_SOCK", sock, 1);
	setenv("SSH_AGENT_PID", "4242", 1);
	if (!start(&p, r.cwd))
		return;
	/* as kinbox --ssh-agent --net */
	type_switch(KB_OPT_SSH_AGENT, "--ssh-agent");
	type_switch(KB_OPT_NET, "--net");
	finish(&r, &p);
}

static void
case_allow_socket(void)
{
	struct run r = { "allow-socket", "--allow-socket of a service's socket "
		"(by a link to it and by its path: one grant), of the agent's "
		"(also --ssh-agent --net: one mask, the agent's), a global "
		"config's socket in the masked runtime dir, and one that is "
		"missing (not used, a note)", "sockws", host6, NULL,
		KB_BACKEND_AUTO, NULL };
	struct kb_policy p;
	_cleanup_free_ char *agent = at("agent/agent.sock");
	_cleanup_free_ char *db = at("svc/db.sock");

	mkd("sockws");
	mkd("svc");
	mksock("svc/db.sock");
	mkl("svc/db-link", "db.sock");
	mksock("run/user/1000/app.sock");
	/* the config's: a missing one, one under the runtime dir */
	{
		_cleanup_free_ char *c = xasprintf("[sandbox]\nallow_sockets = "
		    "~/.missing/x.sock\nallow_sockets = %s/run/user/1000/"
		    "app.sock\n", base);

		mkf("home/.config/kinbox/config.ini", c);
	}
	reset_env();
	setenv("SSH_AUTH_SOCK", agent, 1);
	if (!start(&p, r.cwd))
		return;
	type_switch(KB_OPT_SSH_AGENT, "--ssh-agent");
	type_switch(KB_OPT_NET, "--net");
	type_value(KB_OPT_ALLOW_SOCKET, "../svc/db-link", "--allow-socket");
	type_value(KB_OPT_ALLOW_SOCKET, db, "--allow-socket");
	type_value(KB_OPT_ALLOW_SOCKET, agent, "--allow-socket");
	finish(&r, &p);
	mkf("home/.config/kinbox/config.ini", "");
}

static void
case_allow_host(void)
{
	struct run r = { "allow-host", "--allow-host github.com and "
		"registry.npmjs.org:443 (one entry twice), a global config's "
		"[network] allowed_hosts, a caller's HTTPS_PROXY, "
		"JAVA_TOOL_OPTIONS and GIT_CONFIG_COUNT (replaced, added to)",
		"hostws", host6, NULL, KB_BACKEND_AUTO, NULL };
	struct kb_policy p;

	mkd("hostws");
	mkf("home/.config/kinbox/config.ini",
	    "[network]\nallowed_hosts = pypi.org, files.pythonhosted.org\n");
	reset_env();
	setenv("HTTPS_PROXY", "http://proxy.corp.example:8080", 1);
	setenv("JAVA_TOOL_OPTIONS", "-Xmx1g", 1);
	setenv("GIT_CONFIG_COUNT", "1", 1);
	setenv("GIT_CONFIG_KEY_0", "core.pager", 1);
	setenv("GIT_CONFIG_VALUE_0", "cat", 1);
	if (!start(&p, r.cwd))
		return;
	type_value(KB_OPT_ALLOW_HOST, "GitHub.com.", "--allow-host");
	type_value(KB_OPT_ALLOW_HOST, "registry.npmjs.org", "--allow-host");
	type_value(KB_OPT_ALLOW_HOST, "registry.npmjs.org:443", "--allow-host");
	finish(&r, &p);
	mkf("home/.config/kinbox/config.ini", "");
}

static void
case_caches(void)
{
	struct run r = { "caches", "[caches] in the global config: cache "
		"ephemeral, npm persisted, cargo empty (registry there; git "
		"absent: left so), gomod off, the rest ephemeral by default "
		"(absent)", "cc", host6, NULL, KB_BACKEND_AUTO, NULL };
	struct kb_policy p;

	mkd("cc");
	mkd("home/.cache/pip");
	mkd("home/.npm/_cacache");
	mkd("home/go/pkg/mod");
	mkd("home/.cargo/registry");
	mkd("home/.config/kinbox");
	mkf("home/.config/kinbox/config.ini", "[caches]\ncache = ephemeral\n"
	    "npm = persisted\ncargo = empty\ngomod = off\n");
	reset_env();
	if (start(&p, r.cwd))
		finish(&r, &p);
	/* the next cases see the default: every cache ephemeral */
	mkf("home/.config/kinbox/config.ini", "");
}

static void
mkworktree(void)
{
	_cleanup_free_ char *back = at("wt/.git");
	_cleanup_free_ char *line = xasprintf("%s\n", back);

	mkrepo("main", true);
	mkd("main/.git/worktrees/wt");
	mkf("main/.git/worktrees/wt/commondir", "../..\n");
	mkf("main/.git/worktrees/wt/HEAD", "ref: refs/heads/topic\n");
	mkf("main/.git/worktrees/wt/gitdir", line);
	mkd("wt");
	mkf("wt/.git", "gitdir: ../main/.git/worktrees/wt\n");
}

static void
case_worktree(void)
{
	struct run r = { "worktree", "a linked worktree whose main repository "
		"lies outside the roots", "wt", host6, NULL, KB_BACKEND_AUTO, NULL };
	struct kb_policy p;

	mkworktree();
	reset_env();
	if (start(&p, r.cwd))
		finish(&r, &p);
}

static void
case_worktree_write_main(void)
{
	struct run r = { "worktree-write-main", "the linked worktree with "
		"--write main: the main .git pinned, its control files "
		"read-only", "wt", host6, NULL, KB_BACKEND_AUTO, NULL };
	struct kb_policy p;
	struct kb_err e;
	_cleanup_free_ char *main_repo = at("main");

	reset_env();
	if (start(&p, r.cwd) &&
	    setter(kb_policy_add_write(&p, main_repo, KB_ORIGIN_FLAG, &e),
		"--write main", &e))
		finish(&r, &p);
	else
		kb_policy_free(&p);
}

static void
case_config_layers(void)
{
	struct run r = { "config-layers", "system, global, workspace grant, "
		"session and project files; the project turns the network off "
		"and tries to loosen", "layers", host6, NULL, KB_BACKEND_AUTO, NULL };
	struct kb_policy p;
	_cleanup_free_ char *glob = NULL, *sess = NULL;
	_cleanup_free_ char *ws = at("layers");

	mkd("layers");
	mkd("granted-out");
	mkd("session-out");
	mkd("home/build-cache");
	mkd("home/notes/private");
	mkd("etc/kinbox");
	mkf("etc/kinbox/config.ini", "[sandbox]\nscrub_env = CORP_*\n");
	glob = xasprintf("[sandbox]\nwrite_paths = ~/build-cache\n"
			 "mask = ~/notes/private\nkeep_env = GITHUB_TOKEN\n\n"
			 "[workspace]\npath = %s/elsewhere\nnetwork = on\n\n"
			 "[workspace]\npath = %s\nfrom = sbx_0123456789abcdef\n"
			 "write_paths = %s/granted-out\nnetwork = on\n",
	    base, ws, base);
	mkf("home/.config/kinbox/config.ini", glob);
	mkd("run/user/1000/kinbox/sessions");
	sess = xasprintf("[grant]\nwrite_paths = %s/session-out\n", base);
	mkf("run/user/1000/kinbox/sessions/ses_0123456789abcdef.ini", sess);
	mkf("layers/.kinbox.ini", "[sandbox]\nnetwork = off\nmask = "
	    "~/.gitconfig\nscrub_env = DATABASE_URL\nwrite_paths = /var/tmp\n"
	    "[caches]\nnpm = persisted\n");
	mkf("home/.gitconfig", "[user]\n\tname = golden\n");
	reset_env();
	setenv("KINBOX_SESSION", "ses_0123456789abcdef", 1);
	setenv("DATABASE_URL", "postgres://golden", 1);
	setenv("CORP_VAULT", "golden", 1);
	if (start(&p, r.cwd))
		finish(&r, &p);
	mkf("home/.config/kinbox/config.ini", "");
	mkf("etc/kinbox/config.ini", "");
}

/* A project's mode = read-only, with a global config's write root and
 * persisted cache, a session's write grant and a TMPDIR outside /tmp:
 * all dropped or made ephemeral, the workspace bound read-only, no git
 * guard (nothing is writable to guard) */
static void
case_read_only(void)
{
	struct run r = { "read-only", "a project file's mode = read-only: "
		"the checkout (hooks and all) read-only, the global config's "
		"write root and a session's grant dropped, npm persisted made "
		"ephemeral, TMPDIR outside /tmp not granted", "ro",
		host6, NULL, KB_BACKEND_AUTO, NULL };
	struct kb_policy p;
	_cleanup_free_ char *glob = NULL, *sess = NULL;
	_cleanup_free_ char *tmp = at("tmpdir");

	mkrepo("ro", true);
	mkd("ro-out");
	mkd("ro-session-out");
	mkd("home/.npm/_cacache");
	glob = xasprintf("[sandbox]\nwrite_paths = %s/ro-out\n\n"
			 "[caches]\nnpm = persisted\n", base);
	mkf("home/.config/kinbox/config.ini", glob);
	mkd("run/user/1000/kinbox/sessions");
	sess = xasprintf("[grant]\nwrite_paths = %s/ro-session-out\n", base);
	mkf("run/user/1000/kinbox/sessions/ses_0123456789abcdef.ini", sess);
	mkf("ro/.kinbox.ini", "[sandbox]\nmode = read-only\n");
	reset_env();
	setenv("KINBOX_SESSION", "ses_0123456789abcdef", 1);
	setenv("TMPDIR", tmp, 1);
	if (start(&p, r.cwd))
		finish(&r, &p);
	mkf("home/.config/kinbox/config.ini", "");
}

static void
case_old_kernel(void)
{
	struct run r = { "old-kernel", "--net on a kernel without Landlock "
		"nor overlays in a user namespace: no scope, no deny-read, the "
		"gap named; the caches' fallbacks", "cred",
		{ .landlock_abi = 0, .root = false }, NULL, KB_BACKEND_AUTO, NULL };
	struct kb_policy p;

	reset_env();
	if (!start(&p, r.cwd))
		return;
	type_switch(KB_OPT_NET, "--net");
	finish(&r, &p);
}

/* --- the landlock backend ------------------------------------------------ */

static const struct kb_host ll7 = { .landlock_abi = 7, .root = false };

static void
case_ll_repo(void)
{
	struct run r = { "ll-repo", "landlock (ABI 7): a checkout with hooks, "
		"--write out: roots by descriptor, devices, the guards not "
		"held", "ll/proj", ll7, NULL, KB_BACKEND_LANDLOCK, NULL };
	struct kb_policy p;
	struct kb_err e;
	_cleanup_free_ char *out = at("ll/out");

	mkrepo("ll/proj", true);
	mkd("ll/out");
	reset_env();
	if (!start(&p, r.cwd) ||
	    !setter(kb_policy_add_write(&p, out, KB_ORIGIN_FLAG, &e),
		"--write out", &e)) {
		kb_policy_free(&p);
		return;
	}
	finish(&r, &p);
}

static void
case_ll_read_only(void)
{
	struct run r = { "ll-read-only", "landlock (ABI 7): --read-only on "
		"a checkout with hooks: no root, only the run's directory and "
		"the devices writable", "ll/proj", ll7, NULL,
		KB_BACKEND_LANDLOCK, NULL };
	struct kb_policy p;

	reset_env();
	if (!start(&p, r.cwd))
		return;
	type_switch(KB_OPT_READ_ONLY, "--read-only");
	finish(&r, &p);
}

static void
case_ll_credentials(void)
{
	struct run r = { "ll-credentials", "landlock (ABI 7, root): the "
		"credentials case's home: every mask unreadable, TMPDIR in "
		"home replaced by the run's", "cred",
		{ .landlock_abi = 7, .root = true }, NULL, KB_BACKEND_LANDLOCK,
		NULL };
	struct kb_policy p;
	_cleanup_free_ char *tmp = at("home/tmp");

	reset_env();
	setenv("TMPDIR", tmp, 1);
	if (start(&p, r.cwd))
		finish(&r, &p);
}

static void
case_ll_abi4_net(void)
{
	struct run r = { "ll-abi4-net", "landlock ABI 4 (Ubuntu 24.04's 6.8) "
		"with --net: no signal scope, no ioctl rights, named", "cred",
		{ .landlock_abi = 4, .root = false }, NULL,
		KB_BACKEND_LANDLOCK, NULL };
	struct kb_policy p;

	reset_env();
	if (!start(&p, r.cwd))
		return;
	type_switch(KB_OPT_NET, "--net");
	finish(&r, &p);
}

static void
case_ll_abi3(void)
{
	struct run r = { "ll-abi3", "landlock ABI 3: network off without TCP "
		"rights, every inet socket refused by seccomp", "cred",
		{ .landlock_abi = 3, .root = false }, NULL,
		KB_BACKEND_LANDLOCK, NULL };
	struct kb_policy p;

	reset_env();
	if (start(&p, r.cwd))
		finish(&r, &p);
}

static void
case_ll_refused(void)
{
	struct run abi2 = { "ll-abi2", "landlock ABI 2 is refused", "cred",
		{ .landlock_abi = 2, .root = false }, NULL,
		KB_BACKEND_LANDLOCK, "needs Landlock ABI 3" };
	struct run agent = { "ll-ssh-agent", "--ssh-agent is refused under "
		"landlock", "cred", ll7, NULL, KB_BACKEND_LANDLOCK,
		"refuses every unix socket" };
	struct run allow = { "ll-allow-socket", "--allow-socket is refused "
		"under landlock", "cred", ll7, NULL, KB_BACKEND_LANDLOCK,
		"the landlock backend refuses every unix socket (Landlock on "
		"this kernel cannot tell a granted socket" };
	struct kb_policy p;
	_cleanup_free_ char *sock = at("agent/agent.sock");
	_cleanup_free_ char *db = at("svc/db.sock");

	reset_env();
	if (start(&p, abi2.cwd))
		finish(&abi2, &p);
	reset_env();
	setenv("SSH_AUTH_SOCK", sock, 1);
	if (!start(&p, agent.cwd))
		return;
	type_switch(KB_OPT_SSH_AGENT, "--ssh-agent");
	type_switch(KB_OPT_NET, "--net");
	finish(&agent, &p);
	reset_env();
	if (!start(&p, allow.cwd))
		return;
	type_value(KB_OPT_ALLOW_SOCKET, db, "--allow-socket");
	finish(&allow, &p);
}

static void
case_ll_socket_grant(void)
{
	struct run r = { "ll-socket-grant", "a global config's allow_sockets "
		"under landlock: it only permits, so the run goes on without it "
		"and the plan says so", "cred", ll7, NULL, KB_BACKEND_LANDLOCK,
		NULL };
	struct kb_policy p;
	_cleanup_free_ char *c = xasprintf("[sandbox]\nallow_sockets = "
	    "%s/svc/db.sock\n", base);

	mkf("home/.config/kinbox/config.ini", c);
	reset_env();
	if (start(&p, r.cwd))
		finish(&r, &p);
	mkf("home/.config/kinbox/config.ini", "");
}


/* --- the seatbelt backend: the profile (.sb) and its parameters (.params) */

static void
case_sb_plain(void)
{
	struct run r = { "seatbelt-plain", "seatbelt: the plain workspace",
		"plain", host6, NULL, KB_BACKEND_SEATBELT, NULL };
	struct kb_policy p;

	reset_env();
	if (start(&p, r.cwd))
		finish(&r, &p);
}

static void
case_sb_read_only(void)
{
	struct run r = { "seatbelt-read-only", "seatbelt: --read-only on a "
		"git checkout with hooks: no write parameter but TMP",
		"repo/src", host6, NULL, KB_BACKEND_SEATBELT, NULL };
	struct kb_policy p;
	struct kb_err e;
	_cleanup_free_ char *ws = at("repo");

	reset_env();
	if (!start(&p, r.cwd) ||
	    !setter(kb_policy_set_workspace(&p, ws, &e), "-C repo", &e)) {
		kb_policy_free(&p);
		return;
	}
	type_switch(KB_OPT_READ_ONLY, "--read-only");
	finish(&r, &p);
}

static void
case_sb_write_net(void)
{
	struct run r = { "seatbelt-write-net", "seatbelt: --write out (a git "
		"checkout) --write out2 --net, TMPDIR outside /tmp and home",
		"proj", host6, NULL, KB_BACKEND_SEATBELT, NULL };
	struct kb_policy p;
	struct kb_err e;
	_cleanup_free_ char *out = at("out"), *out2 = at("out2");
	_cleanup_free_ char *tmp = at("tmpdir");

	reset_env();
	setenv("TMPDIR", tmp, 1);
	if (!start(&p, r.cwd) ||
	    !setter(kb_policy_add_write(&p, out, KB_ORIGIN_FLAG, &e),
		"--write out", &e) ||
	    !setter(kb_policy_add_write(&p, out2, KB_ORIGIN_FLAG, &e),
		"--write out2", &e)) {
		kb_policy_free(&p);
		return;
	}
	type_switch(KB_OPT_NET, "--net");
	finish(&r, &p);
}

static void
case_sb_repo_hooks(void)
{
	struct run r = { "seatbelt-repo-hooks", "seatbelt: -C repo, hooks and "
		"config guarded, an embedded repository in sub/ (its way "
		"pinned)", "repo/src", host6, NULL, KB_BACKEND_SEATBELT, NULL };
	struct kb_policy p;
	struct kb_err e;
	_cleanup_free_ char *ws = at("repo");

	reset_env();
	if (start(&p, r.cwd) &&
	    setter(kb_policy_set_workspace(&p, ws, &e), "-C repo", &e))
		finish(&r, &p);
	else
		kb_policy_free(&p);
}

static void
case_sb_worktree(void)
{
	struct run r = { "seatbelt-worktree", "seatbelt: the linked worktree "
		"with --write main: main's .git and worktrees/wt pinned, their "
		"control files read-only", "wt", host6, NULL,
		KB_BACKEND_SEATBELT, NULL };
	struct kb_policy p;
	struct kb_err e;
	_cleanup_free_ char *main_repo = at("main");

	reset_env();
	if (start(&p, r.cwd) &&
	    setter(kb_policy_add_write(&p, main_repo, KB_ORIGIN_FLAG, &e),
		"--write main", &e))
		finish(&r, &p);
	else
		kb_policy_free(&p);
}

static void
case_sb_caches(void)
{
	struct run r = { "seatbelt-caches", "seatbelt: npm persisted (a "
		"writable root), cargo empty and pip ephemeral (read-only: no "
		"overlay)", "cc", host6, NULL, KB_BACKEND_SEATBELT, NULL };
	struct kb_policy p;

	mkf("home/.config/kinbox/config.ini", "[caches]\ncache = ephemeral\n"
	    "npm = persisted\ncargo = empty\ngomod = off\n");
	reset_env();
	if (start(&p, r.cwd))
		finish(&r, &p);
	mkf("home/.config/kinbox/config.ini", "");
}

static void
case_sb_credentials(void)
{
	struct run r = { "seatbelt-credentials", "seatbelt: the credentials "
		"case's home (~/.aws, ~/.ssh keys, ...): masked; TMPDIR in "
		"home writable", "cred", host6, NULL, KB_BACKEND_SEATBELT, NULL };
	struct kb_policy p;
	_cleanup_free_ char *sock = at("agent/agent.sock");
	_cleanup_free_ char *tmp = at("home/tmp");

	reset_env();
	setenv("SSH_AUTH_SOCK", sock, 1);
	setenv("TMPDIR", tmp, 1);
	if (start(&p, r.cwd))
		finish(&r, &p);
}

static void
case_sb_ssh_agent(void)
{
	struct run r = { "seatbelt-ssh-agent", "seatbelt: --ssh-agent --net: "
		"the agent's socket and the public ~/.ssh files", "cred", host6,
		NULL, KB_BACKEND_SEATBELT, NULL };
	struct kb_policy p;
	_cleanup_free_ char *sock = at("agent/agent.sock");

	reset_env();
	setenv("SSH_AUTH_SOCK", sock, 1);
	if (!start(&p, r.cwd))
		return;
	type_switch(KB_OPT_SSH_AGENT, "--ssh-agent");
	type_switch(KB_OPT_NET, "--net");
	finish(&r, &p);
}

static void
case_sb_allow_socket(void)
{
	struct run r = { "seatbelt-allow-socket", "seatbelt: --allow-socket "
		"of a service's socket (by a link and by its path: one grant), "
		"a global config's socket in the masked runtime dir",
		"sockws", host6, NULL, KB_BACKEND_SEATBELT, NULL };
	struct kb_policy p;
	_cleanup_free_ char *db = at("svc/db.sock");
	_cleanup_free_ char *c = xasprintf("[sandbox]\nallow_sockets = "
	    "%s/run/user/1000/app.sock\n", base);

	mkf("home/.config/kinbox/config.ini", c);
	reset_env();
	if (!start(&p, r.cwd))
		return;
	type_value(KB_OPT_ALLOW_SOCKET, "../svc/db-link", "--allow-socket");
	type_value(KB_OPT_ALLOW_SOCKET, db, "--allow-socket");
	finish(&r, &p);
	mkf("home/.config/kinbox/config.ini", "");
}

static void
case_sb_allow_host(void)
{
	struct run r = { "seatbelt-allow-host", "seatbelt: --allow-host "
		"github.com: only the proxy on the loopback", "hostws", host6,
		NULL, KB_BACKEND_SEATBELT, NULL };
	struct kb_policy p;

	reset_env();
	if (!start(&p, r.cwd))
		return;
	type_value(KB_OPT_ALLOW_HOST, "github.com", "--allow-host");
	finish(&r, &p);
}

static void
case_sb_keychain(void)
{
	struct run r = { "seatbelt-keychain", "seatbelt: --keychain --net: "
		"securityd and ~/Library/Keychains reachable, the other macOS "
		"stores still masked", "plain", host6, NULL,
		KB_BACKEND_SEATBELT, NULL };
	struct kb_policy p;

	reset_env();
	if (!start(&p, r.cwd))
		return;
	type_switch(KB_OPT_KEYCHAIN, "--keychain");
	type_switch(KB_OPT_NET, "--net");
	finish(&r, &p);
}

static void
case_sb_tty(void)
{
	struct run r = { "seatbelt-tty", "seatbelt: started on a terminal: "
		"that one terminal readable and writable, no other", "plain",
		host6, NULL, KB_BACKEND_SEATBELT, NULL };
	struct kb_policy p;

	reset_env();
	sb_host.tty[0] = "/dev/ttys004";
	sb_host.ntty = 1;
	if (start(&p, r.cwd))
		finish(&r, &p);
	sb_host.ntty = 0;
	sb_host.tty[0] = NULL;
}

static void
case_sb_refused(void)
{
	struct run r = { "seatbelt-ssh-agent-unknown", "seatbelt: --ssh-agent "
		"with the agent's socket unknown is refused", "cred", host6,
		NULL, KB_BACKEND_SEATBELT, "--ssh-agent: the agent's socket is "
		"not known" };
	struct kb_policy p;
	_cleanup_free_ char *sock = at("agent/agent.sock");
	struct kb_plan pl;
	struct kb_err e;

	reset_env();
	setenv("SSH_AUTH_SOCK", sock, 1);
	if (!start(&p, r.cwd))
		return;
	type_switch(KB_OPT_SSH_AGENT, "--ssh-agent");
	type_switch(KB_OPT_NET, "--net");
	/* as kinbox.c would plan it had realpath(SSH_AUTH_SOCK) failed */
	p.argv = cmd_argv;
	if (plan_case(&p, &r, &pl, &e) == 0)
		kb_plan_free(&pl);
	{
		struct kb_seatbelt_host h = sb_host;

		h.ssh_sock = NULL;
		ok(kb_seatbelt_plan(&p, &h, KB_SANDBOX_EXEC, environ, &pl,
		       &e) == -1 && strstr(e.msg, r.refused) != NULL &&
		    pl.argv.n == 0 && pl.profile == NULL,
		    "%s: refused: %s", r.name, e.msg);
	}
	kb_policy_free(&p);
}

int
main(void)
{
	char tmpl[] = "/var/tmp/kb-golden.XXXXXX";
	const char *gd = getenv("KB_GOLDEN_DIR");
	const char *up = getenv("KB_GOLDEN_UPDATE");
	char *real;

	update = up != NULL && strcmp(up, "1") == 0;
	/* the golden files, found before any chdir */
	if ((real = realpath(gd != NULL ? gd : "tests/golden", NULL)) == NULL) {
		printf("Bail out! %s: %s (run from the source tree, or set "
		       "KB_GOLDEN_DIR)\n", gd != NULL ? gd : "tests/golden",
		    strerror(errno));
		return 1;
	}
	snprintf(golden_dir, sizeof(golden_dir), "%s", real);
	free(real);
	/* outside /tmp: the private /tmp would hide the tree, and the
	 * plan treats paths there differently */
	if (mkdtemp(tmpl) == NULL || realpath(tmpl, base) == NULL) {
		printf("Bail out! mkdtemp %s: %s\n", tmpl, strerror(errno));
		return 1;
	}
	mkd("home/.config");
	mkd("run/user/1000");
	case_plain();
	case_repo_hooks();
	case_repo_nohooks();
	case_write_net();
	case_keep_fd();
	case_caches();
	case_worktree();
	case_worktree_write_main();
	case_config_layers();
	case_read_only();
	/* last: the credentials stay in the fake home */
	case_credentials();
	case_ssh_agent();
	case_allow_socket();
	case_allow_host();
	case_old_kernel();
	case_ll_repo();
	case_ll_read_only();
	case_ll_credentials();
	case_ll_abi4_net();
	case_ll_abi3();
	case_ll_refused();
	case_ll_socket_grant();
	case_sb_plain();
	case_sb_read_only();
	case_sb_write_net();
	case_sb_repo_hooks();
	case_sb_worktree();
	case_sb_caches();
	case_sb_credentials();
	case_sb_ssh_agent();
	case_sb_allow_socket();
	case_sb_allow_host();
	case_sb_keychain();
	case_sb_tty();
	case_sb_refused();
	{
		char *cmd = xasprintf("rm -rf '%s'", base);

		if (chdir("/") != 0 || system(cmd) != 0)
			return 1;
		free(cmd);
	}
	return tap_done();
}
