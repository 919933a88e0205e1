/*
 * tests/unit/test-config.c — the config layers (profile/config.c), black
 * box: files in a temp tree, kb_config_load_all(), then the policy and the
 * error text. Written against kinbox.conf(5) and the messages it
 * documents, not against how config.c is built, so that it guards a
 * rewrite of the reader.
 *
 * Here: the keys of each section, the layers and their ranks, the
 * workspace and session grants, the project file. The INI syntax and the
 * files the reader takes (kinds, sizes) are in test-config-syntax.c; the
 * temp tree and the helpers in config-fixture.h.
 *
 * Behaviour believed right that the code does not have yet is checked
 * with tap_todo_ok() ("# TODO", not a failure); each is marked TODO here.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include "../../sidecar/grants.h"
#include "config-fixture.h"

/* --- [sandbox] ------------------------------------------------------------ */

static void
test_network(void)
{
	static const char *const on[] = { "on", "ON", "On", "true", "TRUE",
		"yes", "Yes", "1" };
	static const char *const off[] = { "off", "OFF", "false", "False", "no",
		"NO", "0" };
	static const char *const bad[] = { "maybe", "2", "enabled", "onn",
		"o n" };
	struct kb_policy p;
	struct kb_err e;
	bool all = true;

	for (size_t i = 0; i < nitems(on); i++) {
		_cleanup_free_ char *t = xasprintf("[sandbox]\nnetwork = %s\n",
		    on[i]);

		if (only(glob_file, t, &p, &e) != 0 || !p.net ||
		    p.origin[KB_OPT_NET] != KB_ORIGIN_GLOBAL) {
			printf("# network = %s: %s\n", on[i], e.msg);
			all = false;
		}
		kb_policy_free(&p);
	}
	ok(all, "network = on, ON, On, true, TRUE, yes, Yes, 1: on");
	all = true;
	for (size_t i = 0; i < nitems(off); i++) {
		_cleanup_free_ char *t = xasprintf("[sandbox]\nnetwork = on\n"
						   "network = %s\n", off[i]);

		if (only(glob_file, t, &p, &e) != 0 || p.net ||
		    p.origin[KB_OPT_NET] != KB_ORIGIN_GLOBAL) {
			printf("# network = %s: %s\n", off[i], e.msg);
			all = false;
		}
		kb_policy_free(&p);
	}
	ok(all, "off, OFF, false, False, no, NO, 0: off (the last line wins)");
	for (size_t i = 0; i < nitems(bad); i++) {
		_cleanup_free_ char *t = xasprintf("[sandbox]\nnetwork = %s\n",
		    bad[i]);
		_cleanup_free_ char *r = xasprintf("network = %s: not on or "
						   "off; write on or off", bad[i]);

		check_err(glob_file, t, 2, r, "network = <bad>: the documented "
		    "error");
	}
	check_err(glob_file, "[sandbox]\nnetwork =\n", 2,
	    "network = : not on or off; write on or off",
	    "an empty switch is an error");

	ok(only(sys_file, "[sandbox]\nnetwork = on\n", &p, &e) == 0 && p.net &&
	    p.origin[KB_OPT_NET] == KB_ORIGIN_SYSTEM, "the system config: origin "
	    "system config");
	kb_policy_free(&p);
	clean();
	put(sys_file, "[sandbox]\nnetwork = on\n");
	put(glob_file, "[sandbox]\nnetwork = off\n");
	fresh(&p);
	ok(load(&p, &e) == 0 && !p.net && p.origin[KB_OPT_NET] == KB_ORIGIN_GLOBAL,
	    "the global config wins over the system config");
	kb_policy_free(&p);

	/* --no-net / --net were applied first: config does not touch them */
	clean();
	put(glob_file, "[sandbox]\nnetwork = on\n");
	fresh(&p);
	ok(load_flag(&p, KB_OPT_NET, "off", "--no-net", &e) == 0 && !p.net &&
	    p.origin[KB_OPT_NET] == KB_ORIGIN_FLAG, "--no-net wins over network = on");
	kb_policy_free(&p);
	put(glob_file, "[sandbox]\nnetwork = maybe\n");
	fresh(&p);
	ok(load_flag(&p, KB_OPT_NET, "on", "--net", &e) == -1, "a bad network "
	    "value is an error with a flag too");
	kb_policy_free(&p);
}

static void
test_backend(void)
{
	struct kb_policy p;
	struct kb_err e;

	ok(only(glob_file, "[sandbox]\nbackend = bwrap\n", &p, &e) == 0 &&
	    p.backend == KB_BACKEND_BWRAP &&
	    p.origin[KB_OPT_BACKEND] == KB_ORIGIN_GLOBAL, "backend = bwrap");
	kb_policy_free(&p);
	ok(only(glob_file, "[sandbox]\nbackend = landlock\nrequire = "
	       "private-tmp\nrequire = pid-namespace\n", &p, &e) == 0 &&
	    p.backend == KB_BACKEND_LANDLOCK &&
	    p.require == (KB_FEAT_PRIVATE_TMP | KB_FEAT_PID_NS),
	    "backend = landlock; require = adds up");
	kb_policy_free(&p);
	ok(only(sys_file, "[sandbox]\nbackend = bwrap\nbackend = auto\n", &p,
	       &e) == 0 && p.backend == KB_BACKEND_AUTO &&
	    p.origin[KB_OPT_BACKEND] == KB_ORIGIN_SYSTEM, "backend = auto, last wins");
	kb_policy_free(&p);
	{
		const char *m = err_of(glob_file, "[sandbox]\nbackend = lxc\n");
		_cleanup_free_ char *pfx = at_line(glob_file, 2, "");

		ok(starts(m, pfx) && strstr(m, "unknown backend") != NULL &&
		    strstr(m, "auto, bwrap, landlock or seatbelt") != NULL,
		    "backend = lxc: file:line: unknown backend (%s)", m);
	}
	clean();
	put(glob_file, "[sandbox]\nbackend = auto\n");
	fresh(&p);
	ok(load_flag(&p, KB_OPT_BACKEND, "bwrap", "--backend", &e) == 0 &&
	    p.backend == KB_BACKEND_BWRAP &&
	    p.origin[KB_OPT_BACKEND] == KB_ORIGIN_FLAG, "--backend wins over config");
	kb_policy_free(&p);
	/* a file's validity does not depend on the flags (the layers are
	 * read before the flags, in rank order) */
	put(glob_file, "[sandbox]\nbackend = lxc\n");
	fresh(&p);
	ok(load_flag(&p, KB_OPT_BACKEND, "bwrap", "--backend", &e) == -1,
	    "backend = lxc is an error with --backend too");
	kb_policy_free(&p);
}

static void
test_write_paths(void)
{
	struct kb_policy p;
	struct kb_err e;
	_cleanup_free_ char *w1 = at("w1"), *w2 = at("w2");
	_cleanup_free_ char *proj = at("home/proj");
	_cleanup_free_ char *t = NULL;

	t = xasprintf("[sandbox]\nwrite_paths = %s\nwrite_paths = ~/proj\n", w1);
	ok(only(glob_file, t, &p, &e) == 0 && p.nwrite == 2 &&
	    strcmp(p.write[0].path, w1) == 0 &&
	    p.write[0].origin == KB_ORIGIN_GLOBAL &&
	    strcmp(p.write[1].path, proj) == 0, "write_paths: repeated, "
	    "~/ is the home directory, origin global config");
	kb_policy_free(&p);
	ok(only(sys_file, t, &p, &e) == 0 && p.nwrite == 2 &&
	    p.write[1].origin == KB_ORIGIN_SYSTEM, "... system config");
	kb_policy_free(&p);
	check_err(glob_file, "[sandbox]\nwrite_paths = w1\n", 2,
	    "write_paths = w1: not an absolute path; write /path or ~/path",
	    "a relative write_paths is an error");
	{
		const char *m = err_of(glob_file,
		    "[sandbox]\nwrite_paths = /nonexistent-kb-dir\n");
		_cleanup_free_ char *pfx = at_line(glob_file, 2,
		    "write_paths = /nonexistent-kb-dir: no such directory");

		ok(starts(m, pfx), "a missing directory: file:line: the key as "
		    "written (not a flag), no such directory (%s)", m);
	}
	{
		const char *m = err_of(glob_file, "[sandbox]\nwrite_paths = ~\n");

		ok(starts(m, glob_file) && strstr(m, ":2: ") != NULL &&
		    strstr(m, "your home directory") != NULL,
		    "the home directory is refused (%s)", m);
	}
	{
		_cleanup_free_ char *g = xasprintf("[sandbox]\nwrite_paths = "
						   "%s/.git\n", ws);
		const char *m = err_of(glob_file, g);

		ok(strstr(m, ":2: ") != NULL &&
		    strstr(m, "git metadata") != NULL,
		    "git metadata is refused (%s)", m);
	}
	/* one root per directory, with the origin of its highest-ranked
	 * mention (the global config ranks above the system config) */
	clean();
	{
		_cleanup_free_ char *s = xasprintf("[sandbox]\nwrite_paths = %s\n",
		    w1);
		_cleanup_free_ char *g = xasprintf("[sandbox]\nwrite_paths = "
						   "%s/w1link\nwrite_paths = %s\n",
		    base, w2);

		put(sys_file, s);
		put(glob_file, g);
	}
	fresh(&p);
	ok(load(&p, &e) == 0 && p.nwrite == 2 &&
	    strcmp(p.write[0].path, w1) == 0 &&
	    p.write[0].origin == KB_ORIGIN_GLOBAL &&
	    strcmp(p.write[1].path, w2) == 0 &&
	    p.write[1].origin == KB_ORIGIN_GLOBAL,
	    "a directory named twice (once through a symlink) is one root");
	kb_policy_free(&p);
	{
		struct kb_buf b = { 0 };
		const char *m;

		kb_buf_puts(&b, "[sandbox]\n");
		for (int i = 0; i < KB_MAX_WRITE + 1; i++)
			kb_buf_printf(&b, "write_paths = %s/many/%d\n", base, i);
		m = err_of(glob_file, b.s);
		ok(strstr(m, ":18: ") != NULL &&
		    strstr(m, "too many write roots") != NULL,
		    "a 17th write root is an error at its line (%s)", m);
		kb_buf_free(&b);
	}
}

/* allow_sockets = in each section that takes it, and in the project
 * file, which cannot add one; the host judges a socket at finalize
 * (test-bwrap.c), so these paths need not exist */
static void
test_allow_sockets(void)
{
	struct kb_policy p;
	struct kb_err e;
	_cleanup_free_ char *a = at("home/.local/run/a.sock");
	char *t = NULL, *want = NULL;

	t = xasprintf("[sandbox]\nallow_sockets = ~/.local/run/a.sock\n"
		      "allow_sockets = /srv/pg/.s.PGSQL.5432\n");
	ok(only(glob_file, t, &p, &e) == 0 && p.nallow_socket == 2 &&
	    strcmp(p.allow_socket[0].path, a) == 0 &&
	    p.allow_socket[0].origin == KB_ORIGIN_GLOBAL &&
	    strcmp(p.allow_socket[1].path, "/srv/pg/.s.PGSQL.5432") == 0,
	    "allow_sockets: repeated, ~/ is the home directory, origin global "
	    "config");
	want = at_line(glob_file, 3, "");
	want[strlen(want) - 2] = '\0'; /* "file:3" */
	ok(p.nallow_socket == 2 && strcmp(p.allow_socket[1].where, want) == 0,
	    "... each recorded with its file:line (%s)",
	    p.nallow_socket == 2 ? p.allow_socket[1].where : "?");
	kb_policy_free(&p);
	free(want);
	ok(only(sys_file, t, &p, &e) == 0 && p.nallow_socket == 2 &&
	    p.allow_socket[1].origin == KB_ORIGIN_SYSTEM, "... system config");
	kb_policy_free(&p);
	free(t);
	check_err(glob_file, "[sandbox]\nallow_sockets = run/a.sock\n", 2,
	    "allow_sockets = run/a.sock: not an absolute path; write /path or "
	    "~/path", "a relative allow_sockets is an error");

	/* a workspace grant for this workspace applies, one for another is
	 * judged but not applied; a typed flag then takes the socket over */
	t = xasprintf("[workspace]\npath = %s/elsewhere\nallow_sockets = "
		      "/run/other.sock\n[workspace]\npath = %s\n"
		      "allow_sockets = /run/user/1000/bus\n", base, ws);
	clean();
	put(glob_file, t);
	fresh(&p);
	ok(load_flag(&p, KB_OPT_ALLOW_SOCKET, "/run/user/1000/bus",
	    "--allow-socket", &e) == 0 && p.nallow_socket == 1 &&
	    strcmp(p.allow_socket[0].path, "/run/user/1000/bus") == 0 &&
	    p.allow_socket[0].origin == KB_ORIGIN_FLAG &&
	    strcmp(p.allow_socket[0].where, "--allow-socket") == 0 &&
	    p.ngrants == 1, "[workspace] allow_sockets for this workspace only; "
	    "the same typed: the flag's");
	kb_policy_free(&p);
	free(t);
	check_err(glob_file, "[workspace]\npath = /x\nallow_sockets = x.sock\n",
	    3, "allow_sockets = x.sock: not an absolute path; write /path or "
	    "~/path", "a relative socket in another workspace's grant is an "
	    "error all the same");

	t = xstrdup("[grant]\nfrom = sbx_0123456789abcdef\n"
		    "allow_sockets = ~/.cache/bazel/server.sock\n");
	clean();
	put(sess_file, t);
	setenv("KINBOX_SESSION", SID, 1);
	fresh(&p);
	{
		_cleanup_free_ char *b = at("home/.cache/bazel/server.sock");

		ok(load(&p, &e) == 0 && p.nallow_socket == 1 &&
		    strcmp(p.allow_socket[0].path, b) == 0 &&
		    p.allow_socket[0].origin == KB_ORIGIN_SESSION &&
		    !p.net && p.ngrants == 1,
		    "[grant] allow_sockets: origin session grant, no network "
		    "with it (%s)", e.msg);
	}
	kb_policy_free(&p);
	free(t);

	/* the project file is the command's: it cannot grant itself a host
	 * socket */
	ok(only(proj_file, "[sandbox]\nmask = ~/x\nallow_sockets = "
	    "/run/docker.sock\n", &p, &e) == 0 && p.nallow_socket == 0 &&
	    p.extra_mask.n == 1, "a project's allow_sockets is ignored, its "
	    "mask applies");
	want = at_line(proj_file, 3, "'allow_sockets' ignored: a project file "
	    "may only tighten (network = off, mode = read-only, mask, "
	    "scrub_env, timeout, rlimit, memory)");
	ok(warns.n == 1 && strcmp(warns.v[0], want) == 0 &&
	    has(&p.notes, want), "... with one warning naming file, line and "
	    "key, in the notes too");
	kb_policy_free(&p);
	free(want);
}

/* allowed_hosts = in [network] of the system and global config, in
 * grant blocks, never from the project file; the network mode settled
 * by kb_options_validate after the layers */
static void
test_allowed_hosts(void)
{
	struct kb_policy p;
	struct kb_err e = { 0 };
	char *t = NULL, *want = NULL;

	ok(only(glob_file, "[network]\nallowed_hosts = github.com, "
	    "Registry.npmjs.org:8443\nallowed_hosts = api.github.com\n", &p,
	    &e) == 0 && p.nallow_host == 3 &&
	    strcmp(p.allow_host[0].name, "github.com") == 0 &&
	    p.allow_host[0].port == 443 &&
	    strcmp(p.allow_host[1].name, "registry.npmjs.org") == 0 &&
	    p.allow_host[1].port == 8443 &&
	    strcmp(p.allow_host[2].name, "api.github.com") == 0 &&
	    p.allow_host[0].origin == KB_ORIGIN_GLOBAL && !p.net,
	    "[network] allowed_hosts in the global config: a list by commas, "
	    "repeated, canonical, origin global config (%s)", e.msg);
	want = at_line(glob_file, 3, "");
	want[strlen(want) - 2] = '\0'; /* "file:3" */
	ok(p.nallow_host == 3 && strcmp(p.allow_host[2].where, want) == 0,
	    "... each with its file:line (%s)",
	    p.nallow_host == 3 ? p.allow_host[2].where : "?");
	ok(kb_options_validate(&p, &e) == 0 && !p.net && p.nallow_host == 3,
	    "... and it holds: the network is those hosts");
	kb_policy_free(&p);
	free(want);
	ok(only(sys_file, "[network]\nallowed_hosts = github.com\n", &p, &e) ==
	    0 && p.nallow_host == 1 && p.allow_host[0].origin == KB_ORIGIN_SYSTEM,
	    "... in the system config: origin system config");
	kb_policy_free(&p);

	/* a bad entry names file:line, the key and the entry */
	check_err(glob_file, "[network]\nallowed_hosts = github.com\n"
	    "allowed_hosts = github.com, localhost\n", 3,
	    "allowed_hosts = localhost: a single-label name is local; give the "
	    "host's full DNS name (host.domain)",
	    "a refused entry in a config is an error naming file:line");
	check_err(sys_file, "[network]\nallowed_hosts = https://github.com\n",
	    2, "allowed_hosts = https://github.com: a URL, not a host name; "
	    "write the host name alone, e.g. github.com",
	    "... the system config's too");
	check_err(glob_file, "[network]\nallowed_hosts =\n", 2,
	    "allowed_hosts = '': empty; give a host name, e.g. github.com",
	    "an empty allowed_hosts is an error");
	check_err(glob_file, "[sandbox]\nallowed_hosts = github.com\n", 2,
	    "'allowed_hosts' belongs in [network], not [sandbox]; move the "
	    "line", "allowed_hosts in [sandbox]: says where it goes");
	check_err(glob_file, "[network]\nnetwork = on\n", 2,
	    "'network' belongs in [sandbox], not [network]; move the line",
	    "network in [network]: the same");
	check_err(glob_file, "[network]\nproxy = x\n", 2,
	    "unknown key 'proxy' in [network]; see kinbox.conf(5)",
	    "an unknown key in [network]");

	/* network = on and allowed_hosts in one file: an error naming it */
	ok(only(glob_file, "[sandbox]\nnetwork = on\n[network]\n"
	    "allowed_hosts = github.com\n", &p, &e) == 0 &&
	    kb_options_validate(&p, &e) == -1, "network = on and allowed_hosts "
	    "in one file: refused after the layers");
	want = xasprintf("%s:2: network = on gives the whole network and "
	    "allowed_hosts (%s:4) only some hosts: keep one of the two",
	    glob_file, glob_file);
	assert_cmpstr(e.msg, want, "... naming the file and both lines");
	kb_policy_free(&p);
	free(want);
	/* ranks: the system's network = on, the user's hosts */
	clean();
	put(sys_file, "[sandbox]\nnetwork = on\n");
	put(glob_file, "[network]\nallowed_hosts = github.com\n");
	fresh(&p);
	ok(load(&p, &e) == 0 && kb_options_validate(&p, &e) == 0 && !p.net &&
	    p.nallow_host == 1 && p.notes.n == 1 &&
	    starts(p.notes.v[0], "network: network = on of "),
	    "the global config's hosts over the system's network = on, with "
	    "a note");
	kb_policy_free(&p);
	/* a typed --net over the config's hosts */
	clean();
	put(glob_file, "[network]\nallowed_hosts = github.com\n");
	fresh(&p);
	ok(load_flag(&p, KB_OPT_NET, "on", "--net", &e) == 0 &&
	    kb_options_validate(&p, &e) == 0 && p.net && p.nallow_host == 0 &&
	    p.notes.n == 1 && strstr(p.notes.v[0], "are not used") == NULL &&
	    strstr(p.notes.v[0], "is not used: --net gives the whole "
	    "network") != NULL, "--net over the config's hosts: dropped with "
	    "a note (%s)", p.notes.n ? p.notes.v[0] : "none");
	kb_policy_free(&p);
	/* a typed --allow-host adds to them */
	fresh(&p);
	ok(load_flag(&p, KB_OPT_ALLOW_HOST, "gitlab.com", "--allow-host",
	    &e) == 0 && kb_options_validate(&p, &e) == 0 && !p.net &&
	    p.nallow_host == 2 && p.allow_host[1].origin == KB_ORIGIN_FLAG,
	    "--allow-host adds to the config's hosts");
	kb_policy_free(&p);

	/* grants: a workspace block for this workspace, a session block;
	 * a block for another workspace is judged all the same */
	t = xasprintf("[workspace]\npath = %s/elsewhere\nallowed_hosts = "
		      "other.example.com\n[workspace]\npath = %s\n"
		      "allowed_hosts = github.com:443\n", base, ws);
	clean();
	put(glob_file, t);
	fresh(&p);
	ok(load(&p, &e) == 0 && p.nallow_host == 1 &&
	    strcmp(p.allow_host[0].name, "github.com") == 0 &&
	    p.allow_host[0].origin == KB_ORIGIN_WORKSPACE && p.ngrants == 1,
	    "[workspace] allowed_hosts for this workspace only (%s)", e.msg);
	kb_policy_free(&p);
	free(t);
	check_err(glob_file, "[workspace]\npath = /x\nallowed_hosts = "
	    "intranet\n", 3, "allowed_hosts = intranet: a single-label name is "
	    "local; give the host's full DNS name (host.domain)",
	    "a refused host in another workspace's grant is an error all the "
	    "same");
	clean();
	put(sess_file, "[grant]\nfrom = sbx_0123456789abcdef\n"
	    "allowed_hosts = registry.npmjs.org:443\n");
	setenv("KINBOX_SESSION", SID, 1);
	fresh(&p);
	ok(load(&p, &e) == 0 && p.nallow_host == 1 &&
	    p.allow_host[0].origin == KB_ORIGIN_SESSION && !p.net &&
	    p.ngrants == 1 && kb_options_validate(&p, &e) == 0 &&
	    p.nallow_host == 1, "[grant] allowed_hosts: origin session grant, "
	    "no network with it (%s)", e.msg);
	kb_policy_free(&p);

	/* the round trip through kinpolicy's writer */
	{
		struct kb_grant g = { .life = KB_LIFE_WORKSPACE };

		clean();
		kb_strv_push(&g.allowed_hosts, "GitHub.com.");
		ok(kb_grant_check(&g, home, NULL, 0, &e) == 0 &&
		    kb_grant_store(&g, home, NULL, ws, "sbx_0123456789abcdef",
			&e) == 0, "a granted host is checked and stored: %s",
		    e.msg);
		{
			_cleanup_free_ char *text =
			    kb_read_small_file(glob_file, 4096);

			ok(text != NULL && strstr(text,
			    "\nallowed_hosts = github.com:443\n") != NULL,
			    "the block holds allowed_hosts = name:port");
		}
		fresh(&p);
		ok(load(&p, &e) == 0 && p.nallow_host == 1 &&
		    p.allow_host[0].origin == KB_ORIGIN_WORKSPACE &&
		    p.allow_host[0].port == 443, "kinbox reads it back as a "
		    "workspace grant (%s)", e.msg);
		kb_policy_free(&p);
		kb_grant_free(&g);
	}

	/* the project file cannot add hosts, in either section */
	ok(only(proj_file, "[network]\nallowed_hosts = evil.example.com\n"
	    "[sandbox]\nallowed_hosts = evil.example.com\nmask = ~/x\n", &p,
	    &e) == 0 && p.nallow_host == 0 && p.extra_mask.n == 1,
	    "a project's allowed_hosts is ignored, its mask applies");
	want = at_line(proj_file, 2, "'allowed_hosts' ignored: a project file "
	    "may only tighten (network = off, mode = read-only, mask, "
	    "scrub_env, timeout, rlimit, memory)");
	ok(warns.n == 2 && strcmp(warns.v[0], want) == 0 && has(&p.notes, want),
	    "... with one warning per line naming file, line and key");
	kb_policy_free(&p);
	free(want);

	/* ... and its network = off clears the user's hosts */
	clean();
	put(glob_file, "[network]\nallowed_hosts = github.com\n");
	put(proj_file, "[sandbox]\nnetwork = off\n");
	fresh(&p);
	ok(load_flag(&p, KB_OPT_ALLOW_HOST, "gitlab.com", "--allow-host",
	    &e) == 0 && kb_options_validate(&p, &e) == 0 && !p.net &&
	    p.nallow_host == 0, "a project's network = off clears the hosts, "
	    "the typed one too");
	want = xasprintf("network: the allowed hosts github.com:443 (%s:2), "
	    "gitlab.com:443 (--allow-host) are not used: off by %s:2 (network "
	    "= off; a project file may only tighten)", glob_file, proj_file);
	ok(has(&p.notes, want), "... said in a note");
	kb_policy_free(&p);
	free(want);
	clean();
}

/* a unix socket at base/rel (bound, then closed: the file stays) */
static char *
mksock(const char *rel)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char *p = at(rel);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", p);
	if (fd == -1 || bind(fd, (struct sockaddr *)&a, sizeof(a)) == -1)
		printf("# socket %s: %s\n", p, strerror(errno));
	if (fd != -1)
		close(fd);
	return p;
}

/* kinpolicy grant --allow-socket (sidecar/grants.c) writes what this reader
 * reads back: checked, canonical, stored, loaded with its origin */
static void
test_grant_roundtrip(void)
{
	const char *roots[] = { ws };
	_cleanup_free_ char *svc = at("svc/db.sock");
	_cleanup_free_ char *link = at("svc/current");
	_cleanup_free_ char *own = NULL, *dir = at("svc");
	struct kb_grant g = { .life = KB_LIFE_WORKSPACE };
	struct kb_policy p;
	struct kb_err e = { 0 };

	mkd("svc");
	free(mksock("svc/db.sock"));
	own = mksock("ws/sub/own.sock");
	if (symlink("db.sock", link) == -1)
		printf("# symlink: %s\n", strerror(errno));
	clean();
	kb_strv_push(&g.allow_sockets, link);
	ok(kb_grant_check(&g, home, roots, 1, &e) == 0 &&
	    g.allow_sockets.n == 1 && strcmp(g.allow_sockets.v[0], svc) == 0,
	    "a socket granted by a link is checked and stored canonical: %s",
	    e.msg);
	ok(kb_grant_store(&g, home, NULL, ws, "sbx_0123456789abcdef", &e) == 0,
	    "stored as a workspace grant: %s", e.msg);
	{
		_cleanup_free_ char *text = kb_read_small_file(glob_file, 4096);
		_cleanup_free_ char *line = xasprintf("\nallow_sockets = %s\n",
		    svc);

		ok(text != NULL && strstr(text, line) != NULL,
		    "the block holds allow_sockets = the canonical path");
	}
	fresh(&p);
	ok(load(&p, &e) == 0 && p.nallow_socket == 1 &&
	    strcmp(p.allow_socket[0].path, svc) == 0 &&
	    p.allow_socket[0].origin == KB_ORIGIN_WORKSPACE && p.ngrants == 1,
	    "kinbox reads it back: the socket, origin workspace grant (%s)",
	    e.msg);
	kb_policy_free(&p);
	kb_grant_free(&g);

	/* a session grant, from another directory by a relative name */
	clean();
	put(sess_file, "");
	g = (struct kb_grant){ .life = KB_LIFE_SESSION };
	kb_strv_push(&g.allow_sockets, "db.sock");
	ok(chdir(dir) == 0 && kb_grant_check(&g, home, roots, 1, &e) == 0 &&
	    kb_grant_store(&g, home, SID, ws, "sbx_0123456789abcdef", &e) == 0,
	    "a relative socket from its directory, for the session: %s", e.msg);
	setenv("KINBOX_SESSION", SID, 1);
	fresh(&p);
	ok(load(&p, &e) == 0 && p.nallow_socket == 1 &&
	    strcmp(p.allow_socket[0].path, svc) == 0 &&
	    p.allow_socket[0].origin == KB_ORIGIN_SESSION,
	    "... read back as a session grant (%s)", e.msg);
	kb_policy_free(&p);
	kb_grant_free(&g);

	{
		static const struct {
			const char *path, *msg;
		} bad[] = {
			{ "nope.sock", "--allow-socket nope.sock: no such "
			  "socket; start the service first, or drop "
			  "--allow-socket" },
			{ "../svc", "--allow-socket ../svc: not a socket; give "
			  "the path of a unix socket, or drop --allow-socket" },
			{ "../ws/sub/own.sock", "--allow-socket ../ws/sub/"
			  "own.sock: inside a writable root of that run; the "
			  "command's own sockets need no grant — drop it" },
		};

		for (size_t i = 0; i < nitems(bad); i++) {
			g = (struct kb_grant){ .life = KB_LIFE_ONCE };
			kb_strv_push(&g.allow_sockets, bad[i].path);
			e.msg[0] = '\0';
			ok(kb_grant_check(&g, home, roots, 1, &e) == -1 &&
			    strcmp(e.msg, bad[i].msg) == 0, "refused: %s",
			    e.msg);
			kb_grant_free(&g);
		}
	}
	g = (struct kb_grant){ .life = KB_LIFE_ONCE };
	for (int i = 0; i <= KB_MAX_SOCKET; i++)
		kb_strv_push(&g.allow_sockets, svc);
	ok(kb_grant_check(&g, home, roots, 1, &e) == -1 &&
	    strcmp(e.msg, "too many granted sockets (at most 16)") == 0,
	    "17 sockets in one grant: %s", e.msg);
	kb_grant_free(&g);
	if (chdir(base) != 0)
		printf("# chdir %s failed\n", base);
	unlink(own);
	clean();
}

static void
test_mask_env(void)
{
	struct kb_policy p;
	struct kb_err e;
	_cleanup_free_ char *secret = at("home/secret");

	ok(only(glob_file, "[sandbox]\nmask = ~/secret\nmask = /opt/x\n"
		"scrub_env = CORP_*\nscrub_env = DB_?ASS\nkeep_env = NPM_TOKEN\n",
	       &p, &e) == 0 && p.extra_mask.n == 2 &&
	    strcmp(p.extra_mask.v[0], secret) == 0 &&
	    strcmp(p.extra_mask.v[1], "/opt/x") == 0 &&
	    has(&p.scrub_env, "CORP_*") && has(&p.scrub_env, "DB_?ASS") &&
	    has(&p.keep_env, "NPM_TOKEN"), "mask, scrub_env, keep_env: "
	    "repeated, ~/ expanded");
	kb_policy_free(&p);
	check_err(glob_file, "[sandbox]\nmask = notes\n", 2,
	    "mask = notes: not an absolute path; write /path or ~/path",
	    "a relative mask is an error");
	check_err(glob_file, "[sandbox]\nmask =\n", 2,
	    "mask = : not an absolute path; write /path or ~/path",
	    "an empty mask is an error");
	check_err(glob_file, "[sandbox]\nscrub_env = A-B\n", 2,
	    "scrub_env = A-B: not a variable name or pattern (letters, digits, "
	    "_, * and ?)", "scrub_env with a '-' is an error");
	check_err(glob_file, "[sandbox]\nscrub_env =\n", 2,
	    "scrub_env = : not a variable name or pattern (letters, digits, "
	    "_, * and ?)", "an empty scrub_env is an error");
	check_err(glob_file, "[sandbox]\nkeep_env = NPM_*\n", 2,
	    "keep_env = NPM_*: keep_env takes exact names, no patterns",
	    "keep_env takes no pattern");
	check_err(glob_file, "[sandbox]\nkeep_env = A=B\n", 2,
	    "keep_env = A=B: not a variable name or pattern (letters, digits, "
	    "_, * and ?)", "keep_env A=B is an error");
	ok(only(glob_file, "[sandbox]\nmask = /nonexistent-kb\n", &p, &e) == 0,
	    "a mask that does not exist is no error");
	kb_policy_free(&p);
}

static void
test_unknown(void)
{
	struct kb_policy p;
	struct kb_err e;

	check_err(glob_file, "[sandbox]\nnetwrok = on\n", 2,
	    "unknown key 'netwrok' in [sandbox]; see kinbox.conf(5)",
	    "an unknown key is an error");
	check_err(sys_file, "[sandbox]\n\n[bogus]\n# c\nx = 1\n", 5,
	    "unknown section [bogus]; see kinbox.conf(5)",
	    "an unknown section is an error at its first key");
	ok(only(glob_file, "[bogus]\n[sandbox]\nnetwork = on\n", &p, &e) == 0 &&
	    p.net, "an unknown section without keys is not looked at");
	kb_policy_free(&p);
	{
		const char *m = err_of(glob_file, "network = on\n");
		_cleanup_free_ char *pfx = at_line(glob_file, 1, "");

		ok(starts(m, pfx), "a key before any section is an error (%s)",
		    m);
	}
	check_err(glob_file, "[sandbox]\nunconfined = on\n", 2,
	    "unknown key 'unconfined' in [sandbox]; see kinbox.conf(5)",
	    "unconfined is no [sandbox] key");
	check_err(glob_file, "[grant]\nnetwork = on\n", 2,
	    "unknown section [grant]; see kinbox.conf(5)",
	    "[grant] is no section of the global config");
}

/* --- [caches] ------------------------------------------------------------- */

static void
test_caches(void)
{
	static const char *const names[] = { "cache", "npm", "cargo", "gomod",
		"gradle", "maven" };
	static const struct {
		const char *word;
		enum kb_cache_mode mode;
	} modes[] = { { "ephemeral", KB_CACHE_EPHEMERAL },
		{ "empty", KB_CACHE_EMPTY }, { "persisted", KB_CACHE_PERSISTED },
		{ "off", KB_CACHE_OFF } };
	struct kb_policy p;
	struct kb_err e;
	bool all = true;

	for (size_t n = 0; n < nitems(names); n++) {
		int i = cache_index(names[n]);

		for (size_t m = 0; m < nitems(modes); m++) {
			_cleanup_free_ char *t = xasprintf("[caches]\n%s = "
							   "persisted\n%s = %s\n",
			    names[n], names[n], modes[m].word);

			if (i < 0 || only(glob_file, t, &p, &e) != 0 ||
			    p.cache[i] != modes[m].mode) {
				printf("# %s = %s: %s\n", names[n],
				    modes[m].word, e.msg);
				all = false;
			}
			kb_policy_free(&p);
		}
	}
	ok(all, "every cache takes ephemeral, empty, off and persisted; the "
	    "last line wins");
	check_err(glob_file, "[caches]\nnpm = on\n", 2,
	    "npm = on: write ephemeral, empty, off or persisted",
	    "a bad cache mode");
	check_err(glob_file, "[caches]\npip = off\n", 2,
	    "unknown cache 'pip' in [caches]; known: cache, npm, cargo, gomod, "
	    "gradle, maven", "an unknown cache");
	clean();
	put(sys_file, "[caches]\nnpm = persisted\ncargo = ephemeral\n");
	put(glob_file, "[caches]\nnpm = off\n");
	fresh(&p);
	ok(load(&p, &e) == 0 && p.cache[cache_index("npm")] == KB_CACHE_OFF &&
	    p.cache[cache_index("cargo")] == KB_CACHE_EPHEMERAL,
	    "the global config's mode wins over the system config's");
	kb_policy_free(&p);
}

/* --- [workspace] ---------------------------------------------------------- */

static void
test_workspace(void)
{
	struct kb_policy p;
	struct kb_err e;
	char *t = NULL;
	_cleanup_free_ char *w1 = at("w1");

	check_err(sys_file, "[workspace]\npath = /x\n", 2,
	    "workspace grants live in the user's config only",
	    "[workspace] in the system config is an error");
	check_err(glob_file, "[workspace]\nnetwork = on\n", 2,
	    "[workspace] must name its path first (path = /abs/dir)",
	    "a grant key before path");
	check_err(glob_file, "[workspace]\npath = ws\n", 2,
	    "path = ws: not an absolute path", "a relative path");

	t = xasprintf("[workspace]\npath = %s\nfrom = sbx_0123456789abcdef\n"
		      "granted = 2026-11-29T20:04:06Z\nnetwork = on\n"
		      "write_paths = %s\nssh_agent = off\nunconfined = off\n",
	    ws, w1);
	ok(only(glob_file, t, &p, &e) == 0 && p.net &&
	    p.origin[KB_OPT_NET] == KB_ORIGIN_WORKSPACE && p.nwrite == 1 &&
	    p.write[0].origin == KB_ORIGIN_WORKSPACE && !p.ssh_agent &&
	    !p.unconfined, "the grant for this workspace applies, origin "
	    "workspace grant (%s)", e.msg);
	kb_policy_free(&p);
	free(t);

	{
		/* below base */
		static const char *const miss[] = { "", "/ws/sub",
			"/nonexistent" };
		static const char *const hit[] = { "/ws/", "/ws/../ws",
			"/wslink" };
		bool none = true, all = true;

		for (size_t i = 0; i < nitems(miss); i++) {
			_cleanup_free_ char *path = xasprintf("%s%s", base,
			    miss[i]);
			_cleanup_free_ char *g = xasprintf("[workspace]\npath = "
							   "%s\nnetwork = on\n",
			    path);

			if (only(glob_file, g, &p, &e) != 0 || p.net) {
				printf("# path = %s applied (%s)\n", path, e.msg);
				none = false;
			}
			kb_policy_free(&p);
		}
		ok(none, "a grant for a parent, a subdirectory or a missing "
		    "path does not apply");
		for (size_t i = 0; i < nitems(hit); i++) {
			_cleanup_free_ char *path = xasprintf("%s%s", base,
			    hit[i]);
			_cleanup_free_ char *g = xasprintf("[workspace]\npath = "
							   "%s\nnetwork = on\n",
			    path);

			if (only(glob_file, g, &p, &e) != 0 || !p.net) {
				printf("# path = %s not applied (%s)\n", path,
				    e.msg);
				all = false;
			}
			kb_policy_free(&p);
		}
		ok(all, "the same directory by another name (trailing /, .., "
		    "a symlink) applies");
	}

	t = xasprintf("[workspace]\npath = %s/other\nnetwork = on\n"
		      "[workspace]\npath = %s\nwrite_paths = %s\n"
		      "[workspace]\npath = /elsewhere\nnetwork = on\n",
	    base, ws, w1);
	ok(only(glob_file, t, &p, &e) == 0 && !p.net && p.nwrite == 1,
	    "each path = starts a block: only this workspace's keys apply");
	kb_policy_free(&p);
	free(t);

	t = xasprintf("[sandbox]\nnetwork = off\n[workspace]\npath = %s\n"
		      "network = on\n", ws);
	ok(only(glob_file, t, &p, &e) == 0 && p.net &&
	    p.origin[KB_OPT_NET] == KB_ORIGIN_WORKSPACE,
	    "a grant after [sandbox] wins over it (the last line)");
	kb_policy_free(&p);
	free(t);

	t = xasprintf("[workspace]\npath = %s\nssh_agent = on\n", ws);
	ok(only(glob_file, t, &p, &e) == 0 && p.ssh_agent &&
	    p.origin[KB_OPT_SSH_AGENT] == KB_ORIGIN_WORKSPACE && p.net &&
	    p.origin[KB_OPT_NET] == KB_ORIGIN_WORKSPACE,
	    "ssh_agent = on grants the agent and the network");
	kb_policy_free(&p);
	clean();
	put(glob_file, t);
	fresh(&p);
	ok(load_flag(&p, KB_OPT_NET, "off", "--no-net", &e) == 0 &&
	    p.ssh_agent && !p.net && p.origin[KB_OPT_NET] == KB_ORIGIN_FLAG,
	    "... but not the network over --no-net");
	kb_policy_free(&p);
	free(t);

	t = xasprintf("[workspace]\npath = %s\nunconfined = on\n", ws);
	check_err(glob_file, t, 3, "unconfined cannot be a workspace grant (at "
	    "most a session); remove the line", "unconfined = on is no "
	    "workspace grant");
	free(t);
	t = xasprintf("[workspace]\npath = %s\nshell = on\n", ws);
	check_err(glob_file, t, 3, "unknown grant key 'shell'; see "
	    "kinbox.conf(5)", "an unknown grant key");
	free(t);
	t = xasprintf("[workspace]\npath = %s\nnetwork = maybe\n", ws);
	check_err(glob_file, t, 3, "network = maybe: not on or off; write on "
	    "or off", "a bad value in this workspace's grant");
	free(t);

	/* a grant block for another workspace is judged too (syntax only,
	 * no I/O): a file is valid or not, whichever workspace reads it */
	ok(err_of(glob_file, "[workspace]\npath = /elsewhere\n"
			     "network = maybe\n")[0] != '\0',
	    "a bad value in another workspace's grant is an error too");
	ok(err_of(glob_file, "[workspace]\npath = /elsewhere\n"
			     "unconfined = on\n")[0] != '\0',
	    "unconfined = on in another workspace's grant is an error too");
	assert_cmpstr(err_of(glob_file, "[workspace]\npath = /elsewhere\n"
					"write_paths = /absent-elsewhere\n"
					"network = on\n"), "",
	    "another workspace's absent write root is not looked for here");

	/* "path = must come first" holds for every [workspace] block (the
	 * reader tells each header): a section without a path does not
	 * continue the block above it */
	t = xasprintf("[workspace]\npath = %s\nnetwork = on\n[sandbox]\n"
		      "mask = ~/x\n[workspace]\nwrite_paths = %s\n", ws, w1);
	{
		struct kb_policy q;
		int rc = only(glob_file, t, &q, &e);

		ok(rc == -1 && strstr(e.msg, "must name its path first") != NULL,
		    "a [workspace] section without a path after another "
		    "section is an error (got rc %d, %zu write roots)", rc,
		    q.nwrite);
		kb_policy_free(&q);
	}
	free(t);
}

/* --- sessions ------------------------------------------------------------- */

static void
test_session(void)
{
	static const char *const badid[] = { "short", "ses_ABCDEF12",
		"../../../../etc/x", "ses_0123.ini", "ses 01234567",
		"0123456789012345678901234567890123456789012345678901234567890123"
		"4" };
	struct kb_policy p;
	struct kb_err e;
	_cleanup_free_ char *w1 = at("w1");
	char *t = NULL;

	for (size_t i = 0; i < nitems(badid); i++) {
		_cleanup_free_ char *want = xasprintf("KINBOX_SESSION=%s: not a "
						      "session id; create one "
						      "with kinpolicy session "
						      "new", badid[i]);

		clean();
		setenv("KINBOX_SESSION", badid[i], 1);
		fresh(&p);
		ok(load(&p, &e) == -1 && strcmp(e.msg, want) == 0,
		    "KINBOX_SESSION=%s is refused", badid[i]);
		kb_policy_free(&p);
	}
	clean();
	setenv("KINBOX_SESSION", "", 1);
	fresh(&p);
	ok(load(&p, &e) == 0, "an empty KINBOX_SESSION is no session");
	kb_policy_free(&p);

	{
		static const char *const goodid[] = { "abcdefgh",
			"0123456789012345678901234567890123456789012345678901234"
			"567890123", "a_b-c_d-e" };

		for (size_t i = 0; i < nitems(goodid); i++) {
			_cleanup_free_ char *path = kb_config_session_path(
			    goodid[i]);
			_cleanup_free_ char *want = xasprintf("%s: %s; fix the "
							      "file or its "
							      "permissions",
			    path, strerror(ENOENT));

			clean();
			setenv("KINBOX_SESSION", goodid[i], 1);
			fresh(&p);
			ok(load(&p, &e) == -1 && strcmp(e.msg, want) == 0,
			    "KINBOX_SESSION=%s: an id; its missing file is an "
			    "error (%s)", goodid[i], e.msg);
			kb_policy_free(&p);
		}
	}
	clean();
	setenv("KINBOX_SESSION", SID, 1);
	unsetenv("XDG_RUNTIME_DIR");
	fresh(&p);
	ok(load(&p, &e) == -1 &&
		strstr(e.msg, "/kinbox/sessions/" SID ".ini: No such file") !=
		    NULL,
	    "without XDG_RUNTIME_DIR a session is looked for in the state "
	    "store (%s)",
	    e.msg);
	kb_policy_free(&p);
	setenv("XDG_RUNTIME_DIR", "run", 1);
	fresh(&p);
	ok(load(&p, &e) == -1 && strstr(e.msg, "/kinbox/sessions/") != NULL,
	    "... and with a relative XDG_RUNTIME_DIR (%s)", e.msg);
	kb_policy_free(&p);

	t = xasprintf("[always]\nkinpolicy = whatever\n[grant]\n"
		      "from = sbx_0123456789abcdef\ngranted = now\n"
		      "write_paths = %s\nnetwork = on\nssh_agent = on\n"
		      "unconfined = on\n", w1);
	clean();
	put(sess_file, t);
	setenv("KINBOX_SESSION", SID, 1);
	fresh(&p);
	ok(load(&p, &e) == 0 && p.nwrite == 1 &&
	    p.write[0].origin == KB_ORIGIN_SESSION && p.net &&
	    p.origin[KB_OPT_NET] == KB_ORIGIN_SESSION && p.ssh_agent &&
	    p.origin[KB_OPT_SSH_AGENT] == KB_ORIGIN_SESSION && p.unconfined &&
	    p.origin[KB_OPT_UNCONFINED] == KB_ORIGIN_SESSION,
	    "[grant]: every key, origin session grant; [always] is not looked "
	    "at (%s)", e.msg);
	kb_policy_free(&p);
	free(t);

	clean();
	setenv("KINBOX_SESSION", SID, 1);
	put(sess_file, "[grant]\nnetwork = on\n[sandbox]\nnetwork = off\n");
	fresh(&p);
	{
		_cleanup_free_ char *want = at_line(sess_file, 4, "unknown section "
		    "[sandbox] in a session file; only [grant] and [always]");

		ok(load(&p, &e) == -1 && strcmp(e.msg, want) == 0,
		    "[sandbox] in a session file is an error");
	}
	kb_policy_free(&p);
	put(sess_file, "[grant]\npath = /x\n");
	fresh(&p);
	{
		_cleanup_free_ char *want = at_line(sess_file, 2, "unknown grant "
		    "key 'path'; see kinbox.conf(5)");

		ok(load(&p, &e) == -1 && strcmp(e.msg, want) == 0,
		    "an unknown grant key in a session file is an error");
	}
	kb_policy_free(&p);

	/* the layers in order: system, global, workspace grant, session */
	clean();
	setenv("KINBOX_SESSION", SID, 1);
	put(sys_file, "[sandbox]\nnetwork = on\n");
	t = xasprintf("[sandbox]\nnetwork = off\n[workspace]\npath = %s\n"
		      "network = on\n", ws);
	put(glob_file, t);
	put(sess_file, "[grant]\nnetwork = off\n");
	fresh(&p);
	ok(load(&p, &e) == 0 && !p.net && p.origin[KB_OPT_NET] == KB_ORIGIN_SESSION,
	    "the session's network wins over the workspace grant's");
	kb_policy_free(&p);
	put(proj_file, "[sandbox]\nnetwork = off\n");
	put(sess_file, "[grant]\nnetwork = on\n");
	fresh(&p);
	ok(load(&p, &e) == 0 && !p.net && p.origin[KB_OPT_NET] == KB_ORIGIN_PROJECT,
	    "the project's network = off wins over them all");
	kb_policy_free(&p);
	free(t);
}

/* --- the project file ----------------------------------------------------- */

static void
test_project(void)
{
	struct kb_policy p;
	struct kb_err e;
	_cleanup_free_ char *w1 = at("w1");
	_cleanup_free_ char *x = at("home/x");
	char *t = NULL;
	static const char tighten[] = "a project file may only tighten "
				      "(network = off, mode = read-only, "
				      "mask, scrub_env, timeout, rlimit, "
				      "memory)";

	clean();
	put(proj_file, "[sandbox]\nnetwork = off\nmask = ~/x\n"
		       "scrub_env = DATABASE_URL\n");
	fresh(&p);
	ok(load_flag(&p, KB_OPT_NET, "on", "--net", &e) == 0 && !p.net &&
	    p.origin[KB_OPT_NET] == KB_ORIGIN_PROJECT && p.typed[KB_OPT_NET] == 1 &&
	    p.extra_mask.n == 1 && strcmp(p.extra_mask.v[0], x) == 0 &&
	    has(&p.scrub_env, "DATABASE_URL") && warns.n == 0,
	    "network = off (over --net), mask, scrub_env apply, no warning");
	kb_policy_free(&p);

	ok(only(proj_file, "[sandbox]\n# on?\nnetwork = on\n", &p, &e) == 0 &&
	    !p.net && p.origin[KB_OPT_NET] == KB_ORIGIN_DEFAULT, "network = on is "
	    "ignored");
	{
		_cleanup_free_ char *want = at_line(proj_file, 3, "'network' "
		    "ignored: a project file cannot turn the network on");

		ok(warns.n == 1 && strcmp(warns.v[0], want) == 0,
		    "... with one warning naming file, line and key");
		ok(has(&p.notes, want), "... also in the notes --dry-run shows");
	}
	kb_policy_free(&p);

	t = xasprintf("[sandbox]\nwrite_paths = %s\nkeep_env = GITHUB_TOKEN\n"
		      "backend = bwrap\nssh_agent = on\n[caches]\nnpm = "
		      "persisted\n[workspace]\npath = %s\nnetwork = on\n"
		      "[grant]\nunconfined = on\n", w1, ws);
	ok(only(proj_file, t, &p, &e) == 0 && p.nwrite == 0 &&
	    p.keep_env.n == 0 && p.backend == KB_BACKEND_AUTO &&
	    !p.ssh_agent && p.cache[cache_index("npm")] == KB_CACHE_EPHEMERAL &&
	    !p.net && !p.unconfined, "every loosening key is ignored");
	{
		static const struct {
			int line;
			const char *key;
		} w[] = { { 2, "write_paths" }, { 3, "keep_env" },
			{ 4, "backend" }, { 5, "ssh_agent" }, { 7, "npm" },
			{ 9, "path" }, { 10, "network" }, { 12, "unconfined" } };
		bool all = warns.n == nitems(w);

		for (size_t i = 0; all && i < nitems(w); i++) {
			_cleanup_free_ char *r = xasprintf("'%s' ignored: %s",
			    w[i].key, tighten);
			_cleanup_free_ char *want = at_line(proj_file, w[i].line,
			    r);

			if (strcmp(warns.v[i], want) != 0) {
				printf("# got '%s'\n# want '%s'\n", warns.v[i],
				    want);
				all = false;
			}
		}
		ok(all, "... each with one warning: file:line: 'key' ignored: "
		    "%s (%zu warnings)", tighten, warns.n);
	}
	kb_policy_free(&p);
	free(t);

	check_err(proj_file, "[sandbox]\nnetwork = maybe\n", 2,
	    "network = maybe: not on or off; write on or off",
	    "a bad value in the project file is an error");
	check_err(proj_file, "[sandbox]\nmask = x\n", 2,
	    "mask = x: not an absolute path; write /path or ~/path",
	    "a relative project mask is an error");
	check_err(proj_file, "[sandbox]\nscrub_env = A B\n", 2,
	    "scrub_env = A B: not a variable name or pattern (letters, digits, "
	    "_, * and ?)", "a bad project scrub_env is an error");
	check_err(proj_file, "[sandbox]\nnetwork\n", 2,
	    "not an INI line (want [section] or key = value); fix it or see "
	    "kinbox.conf(5)", "a broken project line is an error");
}

/* memory = in [sandbox], --memory, a project's memory = that only
 * lowers the budget; the default from MemTotal */
static void
test_memory(void)
{
	static const struct {
		unsigned long long total, budget;
	} dflt[] = {
		{ 0, 4ULL << 30 },	       /* unknown: the cap */
		{ 64ULL << 20, 16ULL << 20 }, /* tiny: the least */
		{ 100ULL << 20, 25ULL << 20 },
		{ (100ULL << 20) + 3, 25ULL << 20 },
		{ 1000ULL << 20, 250ULL << 20 },
		{ (1000ULL << 20) + (3ULL << 20), 250ULL << 20 }, /* MiB down */
		{ 8ULL << 30, 2ULL << 30 },
		{ 16ULL << 30, 4ULL << 30 },
		{ 24ULL << 30, 4ULL << 30 },
		{ 1ULL << 42, 4ULL << 30 },
	};
	struct kb_policy p;
	struct kb_err e;
	const char *by = "x";
	_cleanup_free_ char *gl2 = at_line(glob_file, 2, "");
	_cleanup_free_ char *pr2 = at_line(proj_file, 2, "");
	_cleanup_free_ char *pr3 = at_line(proj_file, 3, "");

	/* at_line's "file:line: ": the `where` is without ": " */
	gl2[strlen(gl2) - 2] = '\0';
	pr2[strlen(pr2) - 2] = '\0';
	pr3[strlen(pr3) - 2] = '\0';
	for (size_t i = 0; i < nitems(dflt); i++)
		ok(kb_memory_default(dflt[i].total) == dflt[i].budget,
		    "the default budget of %llu bytes of RAM is %llu (got %llu)",
		    dflt[i].total, dflt[i].budget,
		    kb_memory_default(dflt[i].total));

	clean();
	fresh(&p);
	ok(load(&p, &e) == 0 && p.memory == 0 && p.memory_cap == 0 &&
	    kb_policy_memory(&p, 8ULL << 30, &by) == 2ULL << 30 && by == NULL,
	    "no memory = anywhere: the default, set by nobody");
	kb_policy_free(&p);

	ok(only(glob_file, "[sandbox]\nmemory = 2G\n", &p, &e) == 0 &&
	    p.memory == 2ULL << 30 && p.origin[KB_OPT_MEMORY] ==
	    KB_ORIGIN_GLOBAL && kb_policy_memory(&p, 1ULL << 40, &by) ==
	    2ULL << 30 && by != NULL && strcmp(by, gl2) == 0,
	    "memory = 2G in [sandbox]: the budget, set by its file:line (%s)",
	    e.msg);
	kb_policy_free(&p);
	ok(only(sys_file, "[sandbox]\nmemory = 8G\n", &p, &e) == 0 &&
	    kb_policy_memory(&p, 8ULL << 30, NULL) == 8ULL << 30,
	    "a configured budget may be more than the default");
	kb_policy_free(&p);

	/* bad values: one line naming the file, the line, the fix */
	check_err(glob_file, "[sandbox]\nmemory = 2X\n", 2,
	    "memory = 2X: not a size; write a size with K, M or G "
	    "(1024-based), at least 16M: 512M, 2G",
	    "memory = 2X is refused");
	check_err(glob_file, "[sandbox]\nmemory = 8M\n", 2,
	    "memory = 8M: less than 16M; write a size with K, M or G "
	    "(1024-based), at least 16M: 512M, 2G",
	    "memory = 8M is refused: less than the least");
	check_err(sys_file, "[sandbox]\nmemory = 2048P\n", 2,
	    "memory = 2048P: not a size; write a size with K, M or G "
	    "(1024-based), at least 16M: 512M, 2G",
	    "memory = 2048P is refused");
	check_err(proj_file, "[sandbox]\nmemory = 99999999T\n", 2,
	    "memory = 99999999T: too large; write a size with K, M or G "
	    "(1024-based), at least 16M: 512M, 2G",
	    "a project's memory = too large is refused too");
	check_err(glob_file, "[sandbox]\nmemory =\n", 2,
	    "memory = : not a size; write a size with K, M or G "
	    "(1024-based), at least 16M: 512M, 2G",
	    "an empty memory = is refused");

	/* the flag wins over the layers */
	clean();
	put(glob_file, "[sandbox]\nmemory = 2G\n");
	fresh(&p);
	ok(load_flag(&p, KB_OPT_MEMORY, "1G", "--memory", &e) == 0 &&
	    p.memory == 1ULL << 30 && p.origin[KB_OPT_MEMORY] ==
	    KB_ORIGIN_FLAG && kb_policy_memory(&p, 0, &by) == 1ULL << 30 &&
	    strcmp(by, "--memory") == 0, "--memory 1G over memory = 2G");
	kb_policy_free(&p);
	clean();
	fresh(&p);
	ok(load_flag(&p, KB_OPT_MEMORY, "1x", "--memory", &e) == -1 &&
	    strcmp(e.msg, "--memory 1x: not a size; write a size with K, M "
	    "or G (1024-based), at least 16M: 512M, 2G") == 0,
	    "--memory 1x: one line naming the flag (%s)", e.msg);
	kb_policy_free(&p);

	/* the project file: lower, never higher */
	clean();
	put(proj_file, "[sandbox]\nmemory = 512M\n");
	fresh(&p);
	ok(load_flag(&p, KB_OPT_MEMORY, "1G", "--memory", &e) == 0 &&
	    warns.n == 0 && p.memory == 1ULL << 30 &&
	    p.memory_cap == 512ULL << 20 &&
	    kb_policy_memory(&p, 0, &by) == 512ULL << 20 &&
	    strcmp(by, pr2) == 0 && p.origin[KB_OPT_MEMORY] ==
	    KB_ORIGIN_FLAG && strcmp(p.where[KB_OPT_MEMORY], "--memory") == 0,
	    "a project's memory = 512M lowers --memory 1G, and says so; the "
	    "flag's origin stays (%s)", e.msg);
	kb_policy_free(&p);
	clean();
	put(proj_file, "[sandbox]\nmemory = 8G\n");
	fresh(&p);
	ok(load_flag(&p, KB_OPT_MEMORY, "1G", "--memory", &e) == 0 &&
	    kb_policy_memory(&p, 0, &by) == 1ULL << 30 &&
	    strcmp(by, "--memory") == 0 && p.memory_cap == 8ULL << 30,
	    "a project's memory = 8G does not raise --memory 1G");
	kb_policy_free(&p);
	ok(only(proj_file, "[sandbox]\nmemory = 8G\n", &p, &e) == 0 &&
	    warns.n == 0 && kb_policy_memory(&p, 8ULL << 30, &by) ==
	    2ULL << 30 && by == NULL,
	    "nor the default (2G of 8G RAM)");
	kb_policy_free(&p);
	ok(only(proj_file, "[sandbox]\nmemory = 1G\nmemory = 256M\n", &p,
	    &e) == 0 && kb_policy_memory(&p, 8ULL << 30, &by) == 256ULL << 20 &&
	    strcmp(by, pr3) == 0, "the lowest of a project's lines wins");
	kb_policy_free(&p);
	ok(only(proj_file, "[sandbox]\nmemory = 256M\nmemory = 1G\n", &p,
	    &e) == 0 && kb_policy_memory(&p, 8ULL << 30, &by) == 256ULL << 20 &&
	    strcmp(by, pr2) == 0, "... whichever comes first");
	kb_policy_free(&p);
}

/* [sandbox] mode = read-only: the system, global and project files may set
 * it (the project: tightening only), no grant carries it, and in a
 * read-only run no write root, persisted cache or unconfined grant
 * survives validation; a typed --write is refused naming the file */
static void
test_mode(void)
{
	struct kb_policy p;
	struct kb_err e;
	_cleanup_free_ char *out = at("out");
	_cleanup_free_ char *where = at_line(proj_file, 2, "");
	char *t = NULL, *want = NULL;
	int npm = cache_index("npm");

	mkd("out");
	where[strlen(where) - 2] = '\0'; /* "file:2" */
	ok(only(glob_file, "[sandbox]\nmode = read-only\n", &p, &e) == 0 &&
	    p.read_only && p.origin[KB_OPT_READ_ONLY] == KB_ORIGIN_GLOBAL &&
	    p.typed[KB_OPT_READ_ONLY] == -1,
	    "mode = read-only in the global config: read-only, its origin, "
	    "not typed");
	kb_policy_free(&p);
	ok(only(sys_file, "[sandbox]\nmode = workspace-write\n", &p, &e) ==
		0 && !p.read_only,
	    "mode = workspace-write: the default");
	kb_policy_free(&p);
	check_err(glob_file, "[sandbox]\nmode = on\n", 2,
	    "mode = on: not a mode; write read-only or workspace-write (the "
	    "default)",
	    "mode = on is no mode: an error naming file:line");
	check_err(glob_file, "[network]\nmode = read-only\n", 2,
	    "'mode' belongs in [sandbox], not [network]; move the line",
	    "mode in [network]: names where it belongs");
	/* never a grant: a grant permits, read-only permits less */
	clean();
	put(sess_file, "[grant]\nmode = read-only\n");
	setenv("KINBOX_SESSION", SID, 1);
	fresh(&p);
	ok(load(&p, &e) == -1 && strstr(e.msg, "unknown grant key 'mode'"),
	    "mode in a session's [grant]: unknown grant key (%s)", e.msg);
	kb_policy_free(&p);

	/* the project may set it, never lift it */
	ok(only(proj_file, "[sandbox]\nmode = read-only\n", &p, &e) == 0 &&
	    p.read_only && p.origin[KB_OPT_READ_ONLY] == KB_ORIGIN_PROJECT &&
	    p.where[KB_OPT_READ_ONLY] != NULL &&
	    strcmp(p.where[KB_OPT_READ_ONLY], where) == 0 && warns.n == 0,
	    "a project's mode = read-only applies, recorded at its file:line");
	kb_policy_free(&p);
	clean();
	put(glob_file, "[sandbox]\nmode = read-only\n");
	put(proj_file, "[sandbox]\nmode = workspace-write\n");
	fresh(&p);
	want = at_line(proj_file, 2, "'mode' ignored: a project file may make "
	    "a run read-only, never lift it");
	ok(load(&p, &e) == 0 && p.read_only &&
	    p.origin[KB_OPT_READ_ONLY] == KB_ORIGIN_GLOBAL && warns.n == 1 &&
	    strcmp(warns.v[0], want) == 0,
	    "a project's mode = workspace-write does not lift the user's "
	    "read-only: one warning");
	kb_policy_free(&p);
	free(want);

	/* validation: the config's roots, the session's grants and a
	 * persisted cache are dropped with a note */
	clean();
	t = xasprintf("[sandbox]\nmode = read-only\nwrite_paths = %s\n\n"
		      "[caches]\nnpm = persisted\n", out);
	put(glob_file, t);
	put(sess_file, "[grant]\nunconfined = on\n");
	setenv("KINBOX_SESSION", SID, 1);
	fresh(&p);
	ok(load(&p, &e) == 0 && p.nwrite == 1 && p.unconfined &&
	    kb_options_validate(&p, &e) == 0 && p.read_only && p.nwrite == 0 &&
	    !p.unconfined && p.cache[npm] == KB_CACHE_EPHEMERAL,
	    "read-only: a config's write root, a session's unconfined grant "
	    "and a persisted cache do not survive validation");
	{
		size_t notes = 0;

		for (size_t i = 0; i < p.notes.n; i++)
			notes += strstr(p.notes.v[i], "read-only") != NULL;
		ok(notes == 3, "... each with a note naming the mode (%zu)",
		    notes);
	}
	ok(kb_options_validate(&p, &e) == 0, "validation runs twice unharmed");
	kb_policy_free(&p);
	free(t);

	/* a typed --write in a run a file makes read-only */
	clean();
	put(proj_file, "[sandbox]\nmode = read-only\n");
	fresh(&p);
	want = xasprintf("--write %s: this run is read-only (mode = read-only "
			 "in %s, a project file's tightening, which no flag "
			 "lifts), so nothing is writable; drop --write, or "
			 "run without read-only (remove that line)",
	    out, where);
	ok(load_flag(&p, KB_OPT_WRITE, out, "--write", &e) == 0 &&
	    kb_options_validate(&p, &e) == -1 && strcmp(e.msg, want) == 0,
	    "a typed --write with a project's read-only: refused, naming the "
	    "file (%s)", e.msg);
	kb_policy_free(&p);
	free(want);
}

int
main(void)
{
	if (fixture_setup() == -1)
		return 1;
	test_network();
	test_backend();
	test_write_paths();
	test_allow_sockets();
	test_allowed_hosts();
	test_grant_roundtrip();
	test_mask_env();
	test_unknown();
	test_caches();
	test_workspace();
	test_session();
	test_project();
	test_memory();
	test_mode();
	if (fixture_teardown() == -1)
		return 1;
	return tap_done();
}
