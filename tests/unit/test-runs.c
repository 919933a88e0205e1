/*
 * tests/unit/test-runs.c — the run registry (profile/runs.c) and the grant
 * blocks it names (profile/config.c): which blocks a run records, that
 * kinbox and kinpolicy give a block the same id, that a revoked block is
 * seen as gone (and an intact one is not), where the registry lives and
 * which XDG_RUNTIME_DIR it refuses, and what kinpolicy's listing makes of
 * live, stale and forged entries.
 *
 * The live processes are this test and children it forks; nothing is
 * signalled but with signal 0 and SIGKILL to its own children.
 */
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../../profile/config.h"
#include "../../profile/runs.h"
#include "config-fixture.h"

/* the ids kb_grant_blocks() gives the blocks of `file`, in order */
static void
ids_of(const struct kb_grant_block *b, void *ctx)
{
	kb_strv_push(ctx, b->id);
}

/* kb_runs_open() with a clean message (printed on success too) */
static int
open_reg(struct kb_registration *r, struct kb_err *e)
{
	e->msg[0] = '\0';
	return kb_runs_open(r, home, e);
}

static mode_t
mode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_mode & 07777 : (mode_t)-1;
}

static void
test_recorded(void)
{
	struct kb_policy p;
	struct kb_err e;
	struct kb_strv ids = {0};
	_cleanup_free_ char *w1 = at("w1");
	_cleanup_free_ char *t = xasprintf(
	    "[sandbox]\nnetwork = off\n"
	    "[workspace]\npath = %s/other\nnetwork = on\n"
	    "[workspace]\npath = %s\nfrom = sbx_0123456789abcdef\n"
	    "granted = 2026-11-29T20:04:06Z\nwrite_paths = %s\n"
	    "[workspace]\npath = %s\nfrom = sbx_00000000000000ff\n",
	    base, ws, w1, ws);

	ok(only(glob_file, t, &p, &e) == 0, "a config with three [workspace] "
	    "blocks loads (%s)", e.msg);
	assert_cmpint(p.ngrants, 1, "one block is recorded: this "
	    "workspace's, with a key (not another workspace's, not one of "
	    "provenance only)");
	if (p.ngrants == 1) {
		_cleanup_free_ char *body = xasprintf("path = %s\nfrom = "
		    "sbx_0123456789abcdef\ngranted = 2026-11-29T20:04:06Z\n"
		    "write_paths = %s\n", ws, w1);

		assert_cmpstr(p.grants[0].file, glob_file, "its store");
		assert_cmpstr(p.grants[0].section, "workspace", "its section");
		assert_cmpstr(p.grants[0].body, body, "its body, every line "
		    "as the reader returns it");
		ok(p.grants[0].origin == KB_ORIGIN_WORKSPACE, "origin: "
		    "workspace grant");
		kb_grant_blocks(glob_file, ids_of, &ids, &e);
		assert_cmpint(ids.n, 3, "kinpolicy lists the three blocks");
		ok(ids.n == 3 && strcmp(ids.v[1], p.grants[0].id) == 0,
		    "the recorded block has the id kinpolicy lists it with "
		    "(%s)", p.grants[0].id);
		ok(ids.n == 3 && strcmp(ids.v[0], ids.v[1]) != 0 &&
		    strcmp(ids.v[1], ids.v[2]) != 0, "the other blocks have "
		    "other ids");
		assert_cmpint(kb_runs_revoked(&p, NULL, 0), 0, "intact: "
		    "nothing revoked");
	}
	kb_strv_free(&ids);
	kb_policy_free(&p);

	/* a session grant, next to a workspace grant */
	clean();
	put(sess_file, "[always]\nx = y\n[grant]\nnetwork = on\n");
	put(glob_file, "[workspace]\npath = /nowhere\nnetwork = on\n");
	setenv("KINBOX_SESSION", SID, 1);
	fresh(&p);
	ok(load(&p, &e) == 0 && p.ngrants == 1 &&
	    p.grants[0].origin == KB_ORIGIN_SESSION &&
	    strcmp(p.grants[0].file, sess_file) == 0 &&
	    strcmp(p.grants[0].body, "network = on\n") == 0, "a session's "
	    "[grant] is recorded, its [always] is not (%s)", e.msg);
	kb_policy_free(&p);
	clean();
}

static void
test_revoked(void)
{
	struct kb_policy p;
	struct kb_err e;
	char why[1024];
	_cleanup_free_ char *w1 = at("w1");
	_cleanup_free_ char *g = xasprintf("[workspace]\npath = %s\n"
	    "from = sbx_0123456789abcdef\nwrite_paths = %s\nnetwork = on\n",
	    ws, w1);
	_cleanup_free_ char *want = xasprintf("the workspace grant "
	    "write_paths = %s, network = on (from sbx_0123456789abcdef, in "
	    "%s) was revoked", w1, glob_file);
	_cleanup_free_ char *text = NULL;

	ok(only(glob_file, g, &p, &e) == 0 && p.ngrants == 1, "a workspace "
	    "grant loads (%s)", e.msg);
	/* the same block again, elsewhere in the file: still there */
	text = xasprintf("[sandbox]\nnetwork = off\n%s", g);
	put(glob_file, text);
	assert_cmpint(kb_runs_revoked(&p, why, sizeof(why)), 0, "the block "
	    "moved within its store: not revoked");
	/* one line changed: another block */
	free(text);
	text = xasprintf("[workspace]\npath = %s\nfrom = sbx_0123456789abcdef"
	    "\nwrite_paths = %s\n", ws, w1);
	put(glob_file, text);
	assert_cmpint(kb_runs_revoked(&p, why, sizeof(why)), 1, "a line of "
	    "it gone (network): revoked");
	assert_cmpstr(why, want, "the line names the grant: what it granted, "
	    "its denial, its store");
	put(glob_file, NULL);
	assert_cmpint(kb_runs_revoked(&p, why, sizeof(why)), 1, "the store "
	    "removed: revoked");
	put(glob_file, "[workspace]\n\001\n");
	assert_cmpint(kb_runs_revoked(&p, why, sizeof(why)), 1, "a store "
	    "that cannot be read holds nothing: revoked");
	kb_policy_free(&p);
	clean();
}

static void
test_dir(void)
{
	struct kb_registration r;
	struct kb_err e;
	_cleanup_free_ char *run = at("run");
	_cleanup_free_ char *state = at("state");
	_cleanup_free_ char *runs = at("run/kinbox/runs");
	_cleanup_free_ char *sruns = at("state/kinbox/runs");
	_cleanup_free_ char *want = NULL;

	chmod(run, 0755);
	ok(open_reg(&r, &e) == -1, "XDG_RUNTIME_DIR mode 0755: "
	    "refused");
	want = xasprintf("XDG_RUNTIME_DIR=%s is not a private directory of "
	    "yours (owner uid %u, mode 755); a run that uses a grant is "
	    "registered there, so that kinpolicy revoke can stop it: make it "
	    "a 0700 directory you own, or unset XDG_RUNTIME_DIR", run,
	    (unsigned)geteuid());
	assert_cmpstr(e.msg, want, "... naming the fix");
	kb_runs_unregister(&r);
	setenv("XDG_RUNTIME_DIR", "/nonexistent-kb-run", 1);
	ok(open_reg(&r, &e) == -1 && starts(e.msg,
	    "XDG_RUNTIME_DIR=/nonexistent-kb-run: No such file or directory; "),
	    "a missing XDG_RUNTIME_DIR: refused (%s)", e.msg);
	kb_runs_unregister(&r);
	setenv("XDG_RUNTIME_DIR", run, 1);
	chmod(run, 0700);
	ok(open_reg(&r, &e) == 0 && mode_of(runs) == 0700,
	    "a 0700 XDG_RUNTIME_DIR: kinbox/runs made there, 0700 (%s)", e.msg);
	assert_cmpstr(r.dir, runs, "the registry's path");
	kb_runs_unregister(&r);

	unsetenv("XDG_RUNTIME_DIR");
	setenv("XDG_STATE_HOME", state, 1);
	ok(open_reg(&r, &e) == 0 && mode_of(sruns) == 0700,
	    "no XDG_RUNTIME_DIR: the state store's kinbox/runs (%s)", e.msg);
	kb_runs_unregister(&r);
	unsetenv("XDG_STATE_HOME");
	{
		_cleanup_free_ char *hruns = at("home/.local/state/kinbox/runs");

		ok(open_reg(&r, &e) == 0 && mode_of(hruns) == 0700,
		    "nor XDG_STATE_HOME: ~/.local/state/kinbox/runs (%s)",
		    e.msg);
		kb_runs_unregister(&r);
	}
	/* a symlink where kinbox/ goes is not followed */
	{
		_cleanup_free_ char *alt = at("alt");
		_cleanup_free_ char *kb = at("alt/kinbox");

		mkd("alt-target");
		mkd("alt");
		if (symlink("../alt-target", kb) == -1)
			printf("# symlink: %s\n", strerror(errno));
		chmod(alt, 0700);
		setenv("XDG_RUNTIME_DIR", alt, 1);
		ok(open_reg(&r, &e) == -1 && strstr(e.msg,
		    "a symlink is refused here") != NULL, "XDG_RUNTIME_DIR/"
		    "kinbox a symlink: refused (%s)", e.msg);
		kb_runs_unregister(&r);
	}
	setenv("XDG_RUNTIME_DIR", run, 1);
}

static bool
have_pidfd(void)
{
	int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);

	if (fd == -1)
		return false;
	close(fd);
	return true;
}

/* a child that waits (for SIGKILL); its pid */
static pid_t
sleeper(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

static bool
alive(pid_t pid)
{
	return kill(pid, 0) == 0;
}

static void
put_entry(const char *dir, pid_t pid, unsigned long long start,
    const char *grant)
{
	_cleanup_free_ char *name = xasprintf("%s/%d-%llu.run", dir, (int)pid,
	    start);
	_cleanup_free_ char *text = xasprintf("kinbox-run 1\npid %d\nstart "
	    "%llu\nworkspace /ws\nargv0 sleep\ngrant %s\n", (int)pid, start,
	    grant);

	put(name, text);
	chmod(name, 0600);
}

static void
test_entries(void)
{
	struct kb_registration r;
	struct kb_policy p;
	struct kb_err e;
	struct kb_run_entry *v = NULL;
	struct kb_strv notes = {0};
	_cleanup_free_ char *runs = at("run/kinbox/runs");
	_cleanup_free_ char *rundir = at("run");
	_cleanup_free_ char *name = NULL;
	unsigned long long start, cstart;
	const char *id = "0123456789abcdef";
	pid_t child, gone;
	size_t n, unv;

	kb_policy_init(&p);
	p.workspace = xstrdup("/a\nb");
	p.argv = (char *[]){(char *)"npm", NULL};
	p.grants = xcalloc(1, sizeof(*p.grants));
	p.ngrants = 1;
	memcpy(p.grants[0].id, id, KB_GRANT_ID_LEN + 1);
	ok(open_reg(&r, &e) == 0 &&
	    kb_runs_register(&r, &p, &e) == 0, "registered (%s)", e.msg);
	ok(kb_proc_start(getpid(), &start) == 0, "our start time");
	name = xasprintf("%s/%d-%llu.run", runs, (int)getpid(), start);
	ok(mode_of(name) == 0600, "the entry is <pid>-<start>.run, 0600");
	{
		_cleanup_free_ char *text = kb_read_small_file(name, 4096);
		_cleanup_free_ char *want = xasprintf("kinbox-run 1\npid %d\n"
		    "start %llu\nworkspace /a\\nb\nargv0 npm\ngrant %s\n",
		    (int)getpid(), start, id);

		assert_cmpstr(text, want, "its text: pid, start, the escaped "
		    "workspace and argv[0], the grant ids");
	}
	if (!have_pidfd()) {
		/* valgrind 3.19 does not know pidfd_open */
		tap_skip("the listing: pidfd_open is not available here");
		kb_runs_unregister(&r);
		p.argv = NULL;
		kb_policy_free(&p);
		return;
	}
	n = kb_runs_list(home, &v, &notes, &unv);
	ok(n == 1 && v[0].pid == getpid() && v[0].start == start &&
	    kb_run_uses(&v[0], id) && !kb_run_uses(&v[0], "ffffffffffffffff")
	    && strcmp(v[0].workspace, "/a\\nb") == 0 &&
	    strcmp(v[0].argv0, "npm") == 0 && kb_run_signal(&v[0], 0) == 0,
	    "listed: this process, its grant, its fields; the pidfd works");
	assert_cmpint(notes.n, 0, "no note");
	kb_runs_free(v, n);

	/* forged: a live process with the right start time that does not
	 * hold the entry */
	child = sleeper();
	ok(child > 0 && kb_proc_start(child, &cstart) == 0, "a child");
	put_entry(runs, child, cstart, id);
	/* stale: a pid that is gone, and a live pid with another start */
	gone = fork();
	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	put_entry(runs, gone, 12345, id);
	{
		pid_t c2 = sleeper();
		_cleanup_free_ char *wrong = NULL;

		put_entry(runs, c2, cstart + 7, id);
		wrong = xasprintf("%s/%d-%llu.run", runs, (int)c2, cstart + 7);
		n = kb_runs_list(home, &v, &notes, &unv);
		ok(access(wrong, F_OK) == -1 && errno == ENOENT, "an entry "
		    "whose pid names a process started at another time is "
		    "removed");
		kill(c2, SIGKILL);
		waitpid(c2, NULL, 0);
	}
	{
		_cleanup_free_ char *forged = xasprintf("%s/%d-%llu.run", runs,
		    (int)child, cstart);
		_cleanup_free_ char *stale = xasprintf("%s/%d-12345.run", runs,
		    (int)gone);
		_cleanup_free_ char *note = xasprintf("%s: pid %d does not "
		    "hold this entry, so it is not the kinbox run that "
		    "registered it; ignored (not signalled)", forged,
		    (int)child);

		ok(n == 1 && v[0].pid == getpid(), "a forged entry (a live "
		    "process, the right start time) is not listed");
		ok(notes.n == 1 && strcmp(notes.v[0], note) == 0, "... with "
		    "a note");
		ok(access(forged, F_OK) == 0 && alive(child), "... left where "
		    "it is, its process alive");
		ok(access(stale, F_OK) == -1 && errno == ENOENT, "the entry of "
		    "a pid that is gone is removed");
		kb_runs_free(v, n);
		kb_strv_free(&notes);
		unlink(forged);
	}
	/* a symlink entry and one that is not an entry */
	{
		_cleanup_free_ char *link = xasprintf("%s/%d-%llu.run", runs,
		    (int)child, cstart);
		_cleanup_free_ char *junk = xasprintf("%s/notes.txt", runs);

		if (symlink(name, link) == -1)
			printf("# symlink: %s\n", strerror(errno));
		put(junk, "x");
		n = kb_runs_list(home, &v, &notes, &unv);
		ok(n == 1 && notes.n == 1 && strstr(notes.v[0], "not a run "
		    "registry entry of yours") != NULL, "a symlink named like "
		    "an entry is not followed; other names are passed over");
		kb_runs_free(v, n);
		kb_strv_free(&notes);
		unlink(link);
		unlink(junk);
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);

	/* the state store is listed too, once when it is the same dir */
	setenv("XDG_STATE_HOME", rundir, 1);
	n = kb_runs_list(home, &v, &notes, &unv);
	ok(n == 1, "the same directory through both variables: listed once");
	kb_runs_free(v, n);
	unsetenv("XDG_STATE_HOME");

	kb_runs_unregister(&r);
	ok(access(name, F_OK) == -1 && errno == ENOENT, "unregistered: the "
	    "entry is gone");
	kb_runs_unregister(&r);
	ok(true, "unregistering twice is harmless");
	n = kb_runs_list(home, &v, &notes, &unv);
	assert_cmpint(n, 0, "nothing listed");
	kb_runs_free(v, n);
	p.argv = NULL;
	kb_policy_free(&p);
}

int
main(void)
{
	if (fixture_setup() == -1)
		return 1;
	clean();
	test_recorded();
	test_revoked();
	clean();
	test_dir();
	test_entries();
	if (fixture_teardown() == -1)
		return 1;
	return tap_done();
}
