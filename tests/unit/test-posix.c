/*
 * tests/unit/test-posix.c — the POSIX run of the macOS backend
 * (backends/run-posix.c) against stand-ins for sandbox-exec: /bin/sh
 * scripts written here that run the command after `--`, or print what the
 * real sandbox-exec is reported to print when it refuses a profile or
 * cannot exec the command. Exit statuses, death by signal, the stderr
 * relay and its tail, the refusal held back and told apart, the command's
 * exec failure, SIGTERM to kinbox forwarded, a missing exe, and what the
 * command leaves running (a background job, a double fork with setsid)
 * gone once kb_run_posix returns, judged from outside. The stand-ins
 * stand in for sandbox-exec's words as reported, not as checked: there is
 * no macOS machine here. Uses POSIX interfaces only, so that `make
 * portable-check` can build and run it as POSIX C11 as well.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../backends/run-posix.h"
#include "tap.h"

extern char **environ;

static char dir[64];

/* writes an executable /bin/sh script dir/name; returns its path */
static char *
script(const char *name, const char *body)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	if (f == NULL || fprintf(f, "#!/bin/sh\n%s\n", body) < 0 ||
	    fclose(f) != 0 || chmod(path, 0755) == -1)
		printf("# cannot write %s: %s\n", path, strerror(errno));
	return path;
}

/* the stand-in that runs what follows `--`, as sandbox-exec does after
 * applying its profile */
static char *runner;

static const char runner_body[] =
    "while [ $# -gt 0 ]; do a=$1; shift; [ \"$a\" = -- ] && break; done\n"
    "exec \"$@\"";

/* stderr's bytes during one run, captured in dir/err */
struct captured {
	struct kb_posix_run r;
	struct kb_err e;
	int rc;
	char *err; /* what reached our fd 2 */
	size_t err_len;
};

static char *
slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	char *s;

	s = kb_read_fd_close(fd, 1 << 20);
	*len = s != NULL ? strlen(s) : 0;
	return s;
}

/* kb_run_posix(exe, {exe, -p, P, -D.., --, cmd...}) with fd 2 captured */
static void
run(struct captured *c, const char *exe, const char *const *cmd)
{
	const char *argv[32] = {exe, "-p", "(version 1)(allow default)",
	    "-DWORKSPACE=/nowhere", "-DTMP=/tmp", "--"};
	char *path = xasprintf("%s/err", dir);
	int saved, fd;
	size_t n = 6;

	for (size_t i = 0; cmd[i] != NULL && n < nitems(argv) - 1; i++)
		argv[n++] = cmd[i];
	argv[n] = NULL;
	memset(&c->e, 0, sizeof(c->e));
	fflush(stdout);
	saved = dup(2);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
	c->rc = kb_run_posix(exe, (char *const *)argv, environ, &c->r, &c->e);
	dup2(saved, 2);
	close(saved);
	free(c->err);
	c->err = slurp(path, &c->err_len);
	free(path);
}

static void
test_runs_the_command(struct captured *c)
{
	char *made = xasprintf("%s/made", dir);
	char *sh = xasprintf("echo made >'%s'", made);
	const char *cmd[] = {"/bin/sh", "-c", sh, NULL};
	struct stat st;

	run(c, runner, cmd);
	assert_cmpint(c->rc, 0, "the stand-in ran");
	ok(c->r.started, "started");
	assert_cmpint(c->r.exit_code, 0, "exit 0");
	ok(stat(made, &st) == 0 && st.st_size == 5,
	    "the file the command creates is there, seen from outside");
	free(made);
	free(sh);
}

static void
test_exit_codes(struct captured *c)
{
	static const int codes[] = {0, 3, 42};

	for (size_t i = 0; i < nitems(codes); i++) {
		char *sh = xasprintf("exit %d", codes[i]);
		const char *cmd[] = {"/bin/sh", "-c", sh, NULL};

		run(c, runner, cmd);
		assert_cmpint(c->r.exit_code, codes[i],
		    "the command's exit %d is passed through", codes[i]);
		ok(c->r.started && c->r.exec_errno == 0 && c->err_len == 0,
		    "exit %d: started, no exec error, nothing on stderr",
		    codes[i]);
		free(sh);
	}
}

static void
test_signal_death(struct captured *c)
{
	const char *cmd[] = {"/bin/sh", "-c", "kill -KILL $$", NULL};
	const char *cmd2[] = {"/bin/sh", "-c", "kill -USR1 $$", NULL};

	run(c, runner, cmd);
	ok(WIFSIGNALED(c->r.wstatus), "killed by a signal");
	assert_cmpint(c->r.exit_code, 128 + SIGKILL, "SIGKILL: 128+9");
	run(c, runner, cmd2);
	assert_cmpint(c->r.exit_code, 128 + SIGUSR1, "SIGUSR1: 128+N");
}

static void
test_stderr_relay(struct captured *c)
{
	const char *cmd[] = {"/bin/sh", "-c", "printf 'hello\\n' >&2", NULL};
	const char *big[] = {"/bin/sh", "-c",
	    "i=0; while [ $i -lt 30000 ]; do printf '%05d\\n' $i; "
	    "i=$((i+1)); done >&2; exit 7",
	    NULL};
	struct kb_buf want = {0};

	run(c, runner, cmd);
	assert_cmpstr(c->err, "hello\n", "stderr relayed as it is");
	ok(c->r.tail_len == 6 && memcmp(c->r.tail, "hello\n", 6) == 0,
	    "the tail holds it");
	assert_cmpint(c->r.stderr_bytes, 6, "6 bytes counted");

	for (int i = 0; i < 30000; i++)
		kb_buf_printf(&want, "%05d\n", i);
	run(c, runner, big);
	assert_cmpint(c->r.exit_code, 7, "exit 7 after 180000 bytes");
	ok(c->err_len == want.len && memcmp(c->err, want.s, want.len) == 0,
	    "180000 bytes relayed byte for byte (%zu)", c->err_len);
	assert_cmpint(c->r.stderr_bytes, want.len, "all counted");
	assert_cmpint(c->r.tail_len, KB_POSIX_TAIL, "the tail is full");
	ok(c->r.tail_len == KB_POSIX_TAIL && want.len >= KB_POSIX_TAIL &&
		memcmp(c->r.tail, want.s + want.len - KB_POSIX_TAIL,
		    KB_POSIX_TAIL) == 0,
	    "the tail holds the last %d bytes, in order", KB_POSIX_TAIL);
	kb_buf_free(&want);
}

static void
test_refusals(struct captured *c)
{
	static const char syntax[] =
	    "sandbox-exec: syntax error: unexpected ) at <input string>, "
	    "line 3";
	static const char apply[] =
	    "sandbox-exec: sandbox_apply: Operation not permitted";
	const char *none[] = {"/bin/true", NULL};
	char *exe, *body, *why;

	body = xasprintf("printf '%%s\\n' '%s' >&2; exit 65", syntax);
	exe = script("refuse-syntax", body);
	run(c, exe, none);
	assert_cmpint(c->rc, 0, "a refusal is a result, not an error");
	ok(!c->r.started, "a profile refused: not started");
	assert_cmpstr(c->r.setup_err, syntax, "setup_err holds its words");
	assert_cmpint(c->err_len, 0, "nothing relayed to our stderr");
	assert_cmpint(c->r.stderr_bytes, 0, "nor counted as the command's");
	assert_cmpint(c->r.exit_code, KB_EXIT_ERROR, "exit 125");
	why = kb_posix_explain_failure(c->r.setup_err);
	ok(strstr(why,
	       "sandbox-exec refused kinbox's profile (syntax "
	       "error: unexpected ) at <input string>, line 3)") != NULL &&
		strstr(why, "kinbox --dry-run --backend seatbelt") != NULL &&
		strstr(why, "nothing was run") != NULL,
	    "explained: %s", why);
	free(why);
	free(exe);
	free(body);

	body = xasprintf("printf '%%s\\n' '%s' >&2; exit 71", apply);
	exe = script("refuse-apply", body);
	run(c, exe, none);
	ok(!c->r.started && c->err_len == 0, "sandbox_apply refused: "
					     "not started, nothing relayed");
	assert_cmpstr(c->r.setup_err, apply, "its words kept");
	why = kb_posix_explain_failure(c->r.setup_err);
	ok(strstr(why, "inside a macOS sandbox") != NULL &&
		strstr(why, "nothing was run") != NULL,
	    "explained as a nested sandbox: %s", why);
	free(why);
	free(exe);
	free(body);

	/* escaped: its words cannot make a second line */
	why = kb_posix_explain_failure("sandbox-exec: bad\nkinbox: forged\n");
	ok(strstr(why, "bad\\nkinbox: forged)") != NULL &&
		strchr(why, '\n') == NULL,
	    "sandbox-exec's words are escaped");
	free(why);
}

/* sandbox-exec's prefix, but the command's own line: relayed */
static void
test_lookalikes(struct captured *c)
{
	const char *zero[] = {"/bin/sh", "-c",
	    "printf 'sandbox-exec: syntax error\\n' >&2; exit 0", NULL};
	const char *more[] = {"/bin/sh", "-c",
	    "printf 'sandbox-exec: syntax error\\nmore\\n' >&2; exit 1", NULL};
	const char *other[] = {"/bin/sh", "-c",
	    "printf 'sandbox-exec: something else\\n' >&2; exit 2", NULL};

	run(c, runner, zero);
	ok(c->r.started && c->r.exit_code == 0, "exit 0: the command's");
	assert_cmpstr(c->err, "sandbox-exec: syntax error\n",
	    "a refusal-shaped line before exit 0 is relayed");
	run(c, runner, more);
	ok(c->r.started && c->r.exit_code == 1, "more lines: the command's");
	assert_cmpstr(c->err, "sandbox-exec: syntax error\nmore\n",
	    "relayed whole, in order");
	assert_cmpint(c->r.stderr_bytes, 32, "and counted");
	run(c, runner, other);
	ok(c->r.started && c->r.exit_code == 2 &&
		strcmp(c->err, "sandbox-exec: something else\n") == 0,
	    "a sandbox-exec: line of no known shape is relayed");
}

static void
test_exec_failure(struct captured *c)
{
	static const struct {
		const char *text;
		int err, code;
	} cases[] = {
	    {"No such file or directory", ENOENT, 127},
	    {"Permission denied", EACCES, 126},
	    {"Operation not permitted", EPERM, 126},
	};
	const char *cmd[] = {"nope", NULL};

	for (size_t i = 0; i < nitems(cases); i++) {
		char *body = xasprintf("printf \"sandbox-exec: execvp() of "
				       "'nope' failed: %%s\\n\" '%s' >&2; "
				       "exit 71",
		    strerror(cases[i].err));
		char *exe = script("execvp-fail", body);

		run(c, exe, cmd);
		ok(c->r.started, "%s: started (the profile applied)",
		    cases[i].text);
		assert_cmpint(c->r.exec_errno, cases[i].err,
		    "exec_errno from '%s'", cases[i].text);
		assert_cmpint(
		    c->r.exit_code, cases[i].code, "exit %d", cases[i].code);
		assert_cmpint(c->err_len, 0,
		    "sandbox-exec's line is not the command's output");
		free(exe);
		free(body);
	}
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * With `blocked`, the caller has SIGTERM blocked: kinbox still takes it
 * (none is left pending for the caller) and forwards it, but the child
 * runs with the caller's mask, as on Linux (backends/run.c), so there it
 * waits, pending: `sleep 1` ends on its own. The caller's mask is back.
 */
static void
test_sigterm_forwarded(struct captured *c, bool blocked)
{
	const char *cmd[] = {"sleep", blocked ? "1" : "30", NULL};
	struct sigaction sa;
	sigset_t term, before, after, pending;
	pid_t killer, self = getpid();
	double t0;

	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(blocked ? SIG_BLOCK : SIG_UNBLOCK, &term, &before);

	/* a process sends kinbox SIGTERM (SI_USER), as a supervisor would */
	killer = fork();
	if (killer == 0) {
		struct timespec d = {0, 300 * 1000 * 1000};

		nanosleep(&d, NULL);
		kill(self, SIGTERM);
		_exit(0);
	}
	t0 = now();
	run(c, runner, cmd);
	waitpid(killer, NULL, 0);
	if (!blocked) {
		assert_cmpint(c->r.exit_code, 128 + SIGTERM,
		    "SIGTERM forwarded: the child died of it");
		ok(now() - t0 < 5, "in well under 30 s (%.2f s)", now() - t0);
	} else {
		assert_cmpint(c->r.exit_code, 0,
		    "SIGTERM blocked by the caller: pending in the child too");
		ok(sigpending(&pending) == 0 && !sigismember(&pending, SIGTERM),
		    "kinbox took it: none left pending for the caller");
	}
	ok(sigaction(SIGTERM, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL,
	    "kinbox's own SIGTERM disposition is back");
	sigprocmask(SIG_SETMASK, &before, &after);
	ok(sigismember(&after, SIGTERM) == blocked,
	    "SIGTERM %s, as the caller had it", blocked ? "blocked" : "open");
}

static void
test_missing_exe(struct captured *c)
{
	char *exe = xasprintf("%s/no-such-sandbox-exec", dir);
	const char *cmd[] = {"/bin/true", NULL};

	run(c, exe, cmd);
	assert_cmpint(c->rc, -1, "a missing exe: -1");
	ok(strstr(c->e.msg, "no-such-sandbox-exec") != NULL &&
		strstr(c->e.msg, strerror(ENOENT)) != NULL,
	    "e says which and why: %s", c->e.msg);
	free(exe);
}

/* --- what the command leaves running ------------------------------------- */

/* the pid written in dir/name, or -1 */
static pid_t
pid_in(const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	size_t len;
	char *s = slurp(path, &len);
	long v = s != NULL ? strtol(s, NULL, 10) : -1;

	free(s);
	free(path);
	return v > 0 ? (pid_t)v : -1;
}

/*
 * Is `pid` still running, judged from outside: kill(pid, 0), and a zombie
 * (dead, left for a pid 1 that may never reap it, as in a container) is
 * not running. /proc is read where there is one; without it a zombie
 * counts as running, which can only fail the test, never pass it.
 */
static bool
running(pid_t pid)
{
	char path[64], buf[512], *paren;
	FILE *f;
	size_t n;

	if (pid <= 0 || kill(pid, 0) == -1)
		return false;
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	/* gone between the two looks: reaped */
	if ((f = fopen(path, "r")) == NULL)
		return kill(pid, 0) == 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	paren = strrchr(buf, ')');
	return paren == NULL || paren[1] == '\0' || paren[2] != 'Z';
}

/* runs `sh -c body` with no terminal on fds 0-2 (the command gets its
 * own process group), as an agent's shell tool runs it */
static void
run_detached(struct captured *c, const char *body)
{
	const char *cmd[] = {"/bin/sh", "-c", body, NULL};
	int in = dup(0), out, nul = open("/dev/null", O_RDWR);

	fflush(stdout);
	out = dup(1);
	dup2(nul, 0);
	dup2(nul, 1);
	close(nul);
	run(c, runner, cmd);
	dup2(in, 0);
	dup2(out, 1);
	close(in);
	close(out);
}

static void
test_left_running(struct captured *c)
{
	/* a background job in the command's group */
	char *bg = xasprintf("sleep 300 & echo $! >'%s/bg.pid'", dir);
	/* a double fork with setsid: the middle leaves the group and the
	 * session and outlives the command, the last one is its child;
	 * the middle lives long enough for a look to see it (without a
	 * subreaper, as here, nothing else ties it to the command) */
	char *ds = xasprintf("setsid sh -c 'sleep 300 & echo $! >\"%s/ds.pid\"; "
			     "echo $$ >\"%s/mid.pid\"; wait' & sleep 1; exit 0",
	    dir, dir);
	pid_t p, mid;

	run_detached(c, bg);
	p = pid_in("bg.pid");
	ok(c->rc == 0 && c->r.exit_code == 0 && p > 0,
	    "a background job: the command exits 0 (pid %ld)", (long)p);
	ok(!running(p) && c->r.left_killed >= 1 && c->r.walk_errno == 0,
	    "... and nothing of it runs after kb_run_posix returns (%u "
	    "killed)",
	    c->r.left_killed);
	if (running(p))
		kill(p, SIGKILL);
	run_detached(c, ds);
	p = pid_in("ds.pid");
	mid = pid_in("mid.pid");
	ok(c->rc == 0 && c->r.exit_code == 0 && p > 0 && mid > 0,
	    "a double fork with setsid: the command exits 0 (pids %ld, %ld)",
	    (long)mid, (long)p);
	ok(!running(p) && !running(mid) && c->r.left_killed >= 2,
	    "... and neither the setsid'd middle nor its child runs after "
	    "kb_run_posix returns (%u killed)",
	    c->r.left_killed);
	if (running(p))
		kill(p, SIGKILL);
	if (running(mid))
		kill(mid, SIGKILL);
	free(bg);
	free(ds);
}

int
main(void)
{
	struct captured c = {0};
	char *rm;

	snprintf(dir, sizeof(dir), "/tmp/kb-test-posix.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return 1;
	runner = script("sandbox-exec", runner_body);
	test_runs_the_command(&c);
	test_exit_codes(&c);
	test_signal_death(&c);
	test_stderr_relay(&c);
	test_refusals(&c);
	test_lookalikes(&c);
	test_exec_failure(&c);
	test_sigterm_forwarded(&c, false);
	test_sigterm_forwarded(&c, true);
	test_missing_exe(&c);
	test_left_running(&c);
	free(c.err);
	free(runner);
	rm = xasprintf("rm -rf '%s'", dir);
	if (system(rm) != 0)
		printf("# could not remove %s\n", dir);
	free(rm);
	return tap_done();
}
