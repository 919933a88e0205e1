/*
 * backends/run-posix.c — the macOS run (sandbox-exec) with POSIX.1-2008
 * interfaces only: fork and execve, stderr relayed through a pipe with its
 * tail kept, the relayed signals forwarded through a self-pipe, the wait
 * status turned into kinbox's exit status, sandbox-exec's refusal of
 * the profile told from the command's own failure, and what the command
 * leaves running killed after it (its process group, and every process
 * seen to descend from it: backends/proctab.c reads the table).
 *
 * No macOS machine was available: this has run on Linux only, against the
 * stand-ins of tests/unit/test-posix, and `make portable-check` compiles it
 * as POSIX C11 with the Linux-only interfaces poisoned. What it assumes of
 * sandbox-exec is written down at classify() below.
 */
#include "run-posix.h"
#include "proctab.h"
#include "../lib/ring.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const int relayed[] = {
    SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH};

/* the signals kb_run_posix handles while it runs: the relayed ones, and
 * SIGCHLD to wake the loop */
#define NHANDLED (nitems(relayed) + 1)

/* Held back until the first line is known not to be sandbox-exec's. */
#define HOLD_MAX 4096

#define PREFIX     "sandbox-exec: "
#define PREFIX_LEN (sizeof(PREFIX) - 1)

/* --- the self-pipe -------------------------------------------------------- */

/* The write end, for the handler; nonblocking, so that a flood of signals
 * drops records (the loop still wakes) rather than blocking the handler. */
static volatile sig_atomic_t sig_w = -1;

/*
 * A record is two bytes: the signal, and whether a process sent it (kill,
 * sigqueue) rather than the kernel (a terminal's ^C, ^\, a hangup). On
 * Linux a terminal's signal has si_code SI_KERNEL and si_pid 0; POSIX names
 * SI_USER and SI_QUEUE for kill() and sigqueue(). si_pid is accepted as
 * well, in case a system leaves si_code unset for kill(): no kernel-made
 * signal carries a sender's pid. Not checked on macOS.
 */
static void
on_signal(int sig, siginfo_t *si, void *uctx)
{
	int errsv = errno;
	unsigned char rec[2];

	(void)uctx;
	rec[0] = (unsigned char)sig;
	rec[1] = si != NULL && (si->si_code == SI_USER ||
				   si->si_code == SI_QUEUE || si->si_pid > 0);
	if (sig_w != -1) {
		ssize_t w = write(sig_w, rec, sizeof(rec));

		(void)w; /* full: the loop wakes anyway */
	}
	errno = errsv;
}

static int
handled_signal(size_t i)
{
	return i < nitems(relayed) ? relayed[i] : SIGCHLD;
}

/* --- writing to our stderr ---------------------------------------------- */

struct relay {
	int fd;        /* the read end of the child's stderr; -1 at EOF */
	bool out_dead; /* our stderr is gone: keep draining, stop writing */
	bool deciding; /* the first line is still held */
	size_t hold_len;
	struct kb_ring ring; /* over the run's tail */
	/* the first line, held until it is known to be the command's */
	char hold[HOLD_MAX];
};

static void
write_all(struct relay *rl, const char *buf, size_t n)
{
	while (n > 0 && !rl->out_dead) {
		ssize_t w = write(2, buf, n);

		if (w > 0) {
			buf += w;
			n -= (size_t)w;
		} else if (w == -1 && errno == EINTR) {
			continue;
		} else if (w == -1 &&
			   (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd p = {.fd = 2, .events = POLLOUT};

			(void)poll(&p, 1, -1);
		} else {
			rl->out_dead = true;
		}
	}
}

/* the command's bytes: to our stderr, into the tail, counted */
static void
pass_on(struct relay *rl, struct kb_posix_run *r, const char *buf, size_t n)
{
	write_all(rl, buf, n);
	kb_ring_add(&rl->ring, buf, n);
	r->stderr_bytes += (unsigned long long)n;
}

static void
release_hold(struct relay *rl, struct kb_posix_run *r)
{
	rl->deciding = false;
	if (rl->hold_len > 0)
		pass_on(rl, r, rl->hold, rl->hold_len);
	rl->hold_len = 0;
}

/*
 * Whether the held bytes may still be sandbox-exec's last words: they begin
 * with its prefix (or with part of it, so far), and are one line at most,
 * with nothing after its newline. sandbox-exec prints one line and exits
 * when it refuses (the shapes at classify()); anything more is the
 * command's own stderr, relayed.
 */
static bool
hold_may_be_refusal(const struct relay *rl)
{
	size_t cmp = rl->hold_len < PREFIX_LEN ? rl->hold_len : PREFIX_LEN;
	const char *nl;

	if (memcmp(rl->hold, PREFIX, cmp) != 0)
		return false;
	nl = memchr(rl->hold, '\n', rl->hold_len);
	if (nl == NULL)
		return rl->hold_len < HOLD_MAX;
	return (size_t)(nl - rl->hold) + 1 == rl->hold_len;
}

/* Moves what is there now; closes the read end at EOF. A bounded number of
 * rounds, so that signals are still seen under a flood. */
static void
relay_some(struct relay *rl, struct kb_posix_run *r)
{
	char buf[16384];

	for (int round = 0; round < 64 && rl->fd != -1; round++) {
		ssize_t n = read(rl->fd, buf, sizeof(buf));

		if (n > 0) {
			size_t take = 0;

			if (rl->deciding) {
				take = HOLD_MAX - rl->hold_len < (size_t)n
					   ? HOLD_MAX - rl->hold_len
					   : (size_t)n;
				memcpy(rl->hold + rl->hold_len, buf, take);
				rl->hold_len += take;
				if (take < (size_t)n ||
				    !hold_may_be_refusal(rl))
					release_hold(rl, r);
			}
			if (take < (size_t)n)
				pass_on(rl, r, buf + take, (size_t)n - take);
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		close(rl->fd);
		rl->fd = -1;
	}
}

/* --- what sandbox-exec said ---------------------------------------------- */

/*
 * The errno whose strerror() text is `text` on this system: sandbox-exec
 * formats it with the same libc, so the local strerror() is the table.
 * Unknown text: ENOEXEC (exit 126, "cannot be run").
 */
static int
errno_of_text(const char *text)
{
	static const int candidates[] = {
	    ENOENT, ENOTDIR, EACCES, EPERM, ENOEXEC, ELOOP, ENAMETOOLONG, E2BIG,
	    ENOMEM, ETXTBSY, EISDIR, EFAULT, EIO, EINVAL, EMFILE, ENFILE,
#ifdef EBADARCH
	    EBADARCH, /* macOS: "Bad CPU type in executable" */
#endif
	};

	for (size_t i = 0; i < nitems(candidates); i++)
		if (strcmp(strerror(candidates[i]), text) == 0)
			return candidates[i];
	return ENOEXEC;
}

enum said {
	SAID_NOTHING,
	SAID_REFUSAL,
	SAID_EXEC_FAILED
};

/*
 * What the held line means, when the child exited non-zero and printed
 * nothing else. Assumed of sandbox-exec (from reports of its real output;
 * none of it checked against a real sandbox-exec here):
 *
 *  - a profile it cannot compile: one line, "sandbox-exec: <reason>", exit
 *    65 (EX_DATAERR), e.g. "sandbox-exec: unbound variable: setenv at
 *    <input string>, line 5" (ZaxbyHub/opencode-swarm#2590); "syntax
 *    error" is assumed to take the same shape;
 *  - sandbox_apply(3) refused: "sandbox-exec: sandbox_apply: Operation not
 *    permitted", exit 71 (EX_OSERR): kinbox is inside a sandbox already and
 *    macOS refuses to nest them (openai/codex#45657, Warashi/cage#84,
 *    anthropic-experimental/sandbox-runtime#67, nolabs-ai/nono#1646);
 *    "sandbox_init: ..." is older releases' wording, assumed;
 *  - the command cannot be exec'd (after the profile applied): "sandbox-
 *    exec: execvp() of '<cmd>' failed: <strerror>", exit 71, reported as
 *    measured in one project's source comment and quoted in several
 *    issues; EPERM there is the profile denying process-exec of <cmd>.
 *
 * The exit status is not matched (only non-zero), the wording is. The
 * limit of this: a command whose whole stderr is one such line and which
 * then exits non-zero (a nested sandbox-exec inside the command, refused)
 * is taken for sandbox-exec refusing kinbox's profile.
 */
static enum said
classify(const char *line, int *exec_errno)
{
	static const char *const refusals[] = {"sandbox_apply:", "sandbox_init",
	    "sandbox_compile", "syntax error", "unbound variable",
	    "<input string>"};
	static const char execvp_pre[] = PREFIX "execvp() of '";
	static const char failed[] = "' failed: ";
	const char *p, *last = NULL;

	if (strncmp(line, PREFIX, PREFIX_LEN) != 0)
		return SAID_NOTHING;
	if (strncmp(line, execvp_pre, sizeof(execvp_pre) - 1) == 0) {
		/* the command's name may hold "' failed: " itself */
		for (p = line; (p = strstr(p, failed)) != NULL; p++)
			last = p;
		if (last == NULL)
			return SAID_NOTHING;
		*exec_errno = errno_of_text(last + sizeof(failed) - 1);
		return SAID_EXEC_FAILED;
	}
	for (size_t i = 0; i < nitems(refusals); i++)
		if (strstr(line + PREFIX_LEN, refusals[i]) != NULL)
			return SAID_REFUSAL;
	return SAID_NOTHING;
}

/* At the end of the run: the held line is sandbox-exec's, or released. */
static void
settle_hold(struct relay *rl, struct kb_posix_run *r)
{
	char line[HOLD_MAX + 1];
	int err = 0;
	enum said said = SAID_NOTHING;

	if (rl->deciding && rl->hold_len > 0 && WIFEXITED(r->wstatus) &&
	    WEXITSTATUS(r->wstatus) != 0 && hold_may_be_refusal(rl)) {
		size_t n = rl->hold_len;

		if (rl->hold[n - 1] == '\n')
			n--;
		memcpy(line, rl->hold, n);
		line[n] = '\0';
		/* a NUL inside is no line of sandbox-exec's */
		if (strlen(line) == n)
			said = classify(line, &err);
		if (said == SAID_REFUSAL) {
			size_t k = n < sizeof(r->setup_err) - 1
				       ? n
				       : sizeof(r->setup_err) - 1;

			r->started = false;
			memcpy(r->setup_err, line, k);
			r->setup_err[k] = '\0';
		} else if (said == SAID_EXEC_FAILED) {
			r->exec_errno = err;
		}
	}
	if (said == SAID_NOTHING)
		release_hold(rl, r);
	rl->deciding = false;
	rl->hold_len = 0;
}

/* --- what the command leaves running ------------------------------------- */

/*
 * The processes seen to descend from the command, each by pid and start
 * (a pid reused by a stranger is not one of them). macOS has no
 * subreaper and no pid namespace: a process whose parent exits is
 * launchd's, and only a look taken before that ties it to the command.
 * So the table is read every KB_POSIX_LOOK_MS while the command runs and
 * once more at the end; each look adds, until nothing more is added:
 * the command itself; a member of its own process group; a child of a
 * process already tracked (the same process still: pid and start); and
 * a child of kinbox's other than the command, which only an orphan
 * reparented to kinbox as a subreaper is (Linux; the caller's choice).
 */
struct tracked {
	struct kb_proc *v;
	size_t n, cap;
	pid_t child;
	bool own_group;
	int walk_errno;
};

static bool
tracked_is(const struct tracked *t, pid_t pid, unsigned long long start)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].pid == pid && t->v[i].start == start)
			return true;
	return false;
}

static const struct kb_proc *
table_find(const struct kb_proc *tab, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (tab[i].pid == pid)
			return &tab[i];
	return NULL;
}

/* one look at the table; the table itself in *tab (freed by the caller) */
static void
track(struct tracked *t, struct kb_proc **tab, size_t *ntab)
{
	pid_t self = getpid();
	bool added = true;

	*tab = NULL;
	*ntab = 0;
	if (kb_proctab_read(tab, ntab) == -1) {
		t->walk_errno = errno != 0 ? errno : ENOSYS;
		return;
	}
	while (added) {
		added = false;
		for (size_t i = 0; i < *ntab; i++) {
			const struct kb_proc *p = &(*tab)[i], *parent;
			bool ours;

			if (tracked_is(t, p->pid, p->start))
				continue;
			parent = table_find(*tab, *ntab, p->ppid);
			ours = p->pid == t->child ||
			       (t->own_group && p->pgid == t->child) ||
			       (p->ppid == self && p->pid != t->child) ||
			       (parent != NULL &&
				   tracked_is(t, parent->pid, parent->start));
			if (!ours)
				continue;
			if (t->n == t->cap) {
				size_t cap = t->cap ? t->cap * 2 : 16;
				struct kb_proc *v =
				    realloc(t->v, cap * sizeof(*v));

				if (v == NULL)
					return; /* the next look adds it */
				t->v = v;
				t->cap = cap;
			}
			t->v[t->n++] = *p;
			added = true;
		}
	}
}

static void
look(struct tracked *t)
{
	struct kb_proc *tab;
	size_t n;

	track(t, &tab, &n);
	free(tab);
}

static void
pause_ms(long ms)
{
	struct timespec ts = {0, ms * 1000000L};

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/*
 * After the command ended (reaped): every tracked process still there and
 * the command's process group killed, until a look finds none (a bounded number
 * of rounds: something forking faster than it is killed is reported, not
 * chased forever). Orphans reparented to kinbox are waited for. Returns
 * how many were killed.
 */
static unsigned
kill_left(struct tracked *t)
{
	unsigned killed = 0;

	for (int round = 0; round < 50; round++) {
		struct kb_proc *tab;
		size_t ntab;
		unsigned now = 0;

		track(t, &tab, &ntab);
		for (size_t i = 0; i < ntab; i++) {
			const struct kb_proc *p = &tab[i];

			if (p->zombie || p->pid == t->child ||
			    !tracked_is(t, p->pid, p->start))
				continue;
			if (kill(p->pid, SIGKILL) == 0)
				now++;
		}
		free(tab);
		/* and any member of the group a look did not see */
		if (t->own_group)
			(void)kill(-t->child, SIGKILL);
		killed += now;
		if (now == 0 || t->walk_errno != 0)
			break;
		pause_ms(10);
	}
	/* orphans that came to kinbox (a subreaper) are its children now:
	 * waited for, so that none stays a zombie once kinbox is gone (an
	 * init that does not reap, as in some containers, would keep it) */
	for (int round = 0; round < 100; round++) {
		pid_t w = waitpid(-1, NULL, WNOHANG);

		if (w > 0)
			continue;
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1)
			break; /* ECHILD: none left */
		pause_ms(5);
	}
	return killed;
}

/* --- the run ------------------------------------------------------------- */

static int
set_cloexec_nonblock(int fd, bool nonblock)
{
	int fl;

	if (fcntl(fd, F_SETFD, FD_CLOEXEC) == -1)
		return -1;
	if (!nonblock)
		return 0;
	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1)
		return -1;
	return 0;
}

/*
 * A pipe with both ends close-on-exec (and the read end, or both, non-
 * blocking). Not atomic with fork as pipe2(O_CLOEXEC) is, which macOS
 * lacks: a thread of kinbox forking meanwhile could leak the ends into its
 * child. kinbox forks from its main thread only.
 */
static int
cloexec_pipe(int p[2], bool nonblock_read, bool nonblock_write)
{
	int errsv;

	if (pipe(p) == -1)
		return -1;
	if (set_cloexec_nonblock(p[0], nonblock_read) == -1 ||
	    set_cloexec_nonblock(p[1], nonblock_write) == -1) {
		errsv = errno;
		close(p[0]);
		close(p[1]);
		p[0] = p[1] = -1;
		errno = errsv;
		return -1;
	}
	return 0;
}

static void
close_pair(int p[2])
{
	for (int i = 0; i < 2; i++)
		if (p[i] != -1)
			close(p[i]);
	p[0] = p[1] = -1;
}

/* Child side: only async-signal-safe calls until execve. */
static void __attribute__((noreturn)) exec_child(const char *exe,
    char *const *argv, char *const *envp, int err_w, int status_w,
    bool own_group, const struct sigaction *old, const sigset_t *oldmask)
{
	int errsv;

	/* the dispositions kinbox was started with: an ignored one stays
	 * ignored (nohup), a caught one is the default after execve */
	for (size_t i = 0; i < NHANDLED; i++)
		sigaction(handled_signal(i), &old[i], NULL);
	sigaction(SIGPIPE, &old[NHANDLED], NULL);
	/* and the caller's mask, as backends/run.c gives bwrap */
	sigprocmask(SIG_SETMASK, oldmask, NULL);
	if (own_group)
		setpgid(0, 0);
	if (dup2(err_w, 2) == -1)
		goto fail;
	execve(exe, argv, envp);
fail:
	errsv = errno;
	while (write(status_w, &errsv, sizeof(errsv)) == -1 && errno == EINTR)
		;
	_exit(KB_EXIT_NOTFOUND);
}

/* Waits for `pid`, EINTR-safe. */
static void
reap(pid_t pid, int *wstatus)
{
	while (waitpid(pid, wstatus, 0) == -1 && errno == EINTR)
		;
}

/*
 * Process groups. When a terminal is involved (fd 0, 1 or 2 is one) the
 * child stays in kinbox's process group, as on Linux (backends/run.c): a
 * job-control shell gives the terminal to that group, so the child can
 * read it and set its modes, and ^C, ^\ and a hangup reach the child
 * directly from the terminal. kinbox, in the same group, gets them as
 * well, and must not send them a second time: it forwards only the signals
 * a process sent (SI_USER, SI_QUEUE: a supervisor's kill, a timeout), which
 * is what run.c's SI_KERNEL test does with signalfd's ssi_code. A kill()
 * of the whole group by a process still reaches the child twice, as on
 * Linux.
 *
 * With no terminal, the child gets a process group of its own: nothing but
 * kinbox's forwarding reaches it, so every relayed signal is forwarded,
 * whoever sent it, and a kill of kinbox's group reaches it once.
 */
static bool
terminal_involved(void)
{
	return isatty(0) || isatty(1) || isatty(2);
}

int
kb_run_posix(const char *exe, char *const *argv, char *const *envp,
    struct kb_posix_run *out, struct kb_err *e)
{
	int err_p[2] = {-1, -1}, status_p[2] = {-1, -1}, sig_p[2] = {-1, -1};
	struct sigaction old[NHANDLED + 1], sa;
	struct relay rl;
	sigset_t mask, oldmask, runmask;
	bool reaped = false, own_group = !terminal_involved();
	int exec_err = 0, errsv, rc = -1;
	ssize_t n;
	pid_t pid;
	struct tracked tr = {0};
	struct timespec last = {0, 0};

	memset(out, 0, offsetof(struct kb_posix_run, tail));
	out->tail_len = 0;
	out->stderr_bytes = 0;
	out->left_killed = 0;
	out->walk_errno = 0;
	/* not the held line's buffer: it is written before it is read */
	memset(&rl, 0, offsetof(struct relay, hold));
	rl.fd = -1;
	rl.deciding = true;
	rl.ring.buf = out->tail;

	if (cloexec_pipe(err_p, true, false) == -1 ||
	    cloexec_pipe(status_p, false, false) == -1 ||
	    cloexec_pipe(sig_p, true, true) == -1) {
		errsv = errno;
		close_pair(err_p);
		close_pair(status_p);
		return kb_err_set(e, "pipe: %s", strerror(errsv));
	}

	/* blocked across the fork: the child restores the mask, we unblock
	 * once the handlers know where to write */
	sigemptyset(&mask);
	for (size_t i = 0; i < NHANDLED; i++)
		sigaddset(&mask, handled_signal(i));
	sigprocmask(SIG_BLOCK, &mask, &oldmask);
	sig_w = sig_p[1];
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO; /* no SA_RESTART: poll() wakes */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NHANDLED; i++)
		sigaction(handled_signal(i), &sa, &old[i]);
	/* kinbox must not die writing to a closed stderr */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, &old[NHANDLED]);

	pid = fork();
	if (pid == 0)
		exec_child(exe, argv, envp, err_p[1], status_p[1], own_group,
		    old, &oldmask);
	errsv = errno;
	close(err_p[1]);
	close(status_p[1]);
	err_p[1] = status_p[1] = -1;
	rl.fd = err_p[0];
	if (pid == -1) {
		kb_err_set(e, "fork: %s", strerror(errsv));
		goto fail;
	}
	/* both sides: whichever runs first, the group exists before we
	 * signal it (we signal the pid only, but a wait must not race) */
	if (own_group)
		setpgid(pid, pid);

	/* EOF at the execve, an errno when it failed; signals stay blocked
	 * meanwhile, to be forwarded once the command is there */
	while ((n = read(status_p[0], &exec_err, sizeof(exec_err))) == -1 &&
	       errno == EINTR)
		;
	if (n == (ssize_t)sizeof(exec_err)) {
		reap(pid, &out->wstatus);
		kb_err_set(e, "cannot run %s: %s", exe, strerror(exec_err));
		goto fail;
	}
	close(status_p[0]);
	status_p[0] = -1;
	out->started = true; /* until sandbox-exec's words say otherwise */
	tr.child = pid;
	tr.own_group = own_group;
	look(&tr);
	clock_gettime(CLOCK_MONOTONIC, &last);
	/* the caller's mask, but never blocking what we relay: a caller
	 * that blocked SIGTERM still has it forwarded */
	runmask = oldmask;
	for (size_t i = 0; i < NHANDLED; i++)
		sigdelset(&runmask, handled_signal(i));
	sigprocmask(SIG_SETMASK, &runmask, NULL);
	/* a SIGCHLD before the unblock above is in the self-pipe now; one
	 * caught before any handler was in place (none: SIGCHLD was blocked
	 * before the fork) cannot be lost */

	for (;;) {
		struct pollfd pfd[2] = {
		    {.fd = sig_p[0], .events = POLLIN},
		    {.fd = rl.fd, .events = POLLIN},
		};
		unsigned char rec[64];
		int ready = poll(pfd, 2, reaped ? 1000 : KB_POSIX_LOOK_MS);
		struct timespec now;

		if (!reaped) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if ((now.tv_sec - last.tv_sec) * 1000L +
				(now.tv_nsec - last.tv_nsec) / 1000000L >=
			    KB_POSIX_LOOK_MS) {
				look(&tr);
				last = now;
			}
		}
		if (ready == -1 && errno == EINTR)
			continue;
		/* ENOMEM: stop relaying (the command's next write to its
		 * stderr fails, rather than blocking forever) and wait */
		if (ready == -1) {
			if (rl.fd != -1)
				close(rl.fd);
			rl.fd = -1;
			break;
		}
		/* reaped and the pipe stays quiet: something the command
		 * left running holds its stderr (and escaped the kill);
		 * the run is over */
		if (ready == 0 && reaped)
			break;
		if (ready == 0)
			continue;
		if (pfd[1].revents)
			relay_some(&rl, out);
		if (pfd[0].revents & POLLIN) {
			while ((n = read(sig_p[0], rec, sizeof(rec))) > 0) {
				for (ssize_t i = 0; i + 1 < n; i += 2) {
					int sig = rec[i];

					if (sig == SIGCHLD || reaped)
						continue;
					if (!own_group && !rec[i + 1])
						continue; /* the terminal's */
					kill(pid, sig);
				}
			}
		}
		if (!reaped) {
			pid_t w;

			while (
			    (w = waitpid(pid, &out->wstatus, WNOHANG)) == -1 &&
			    errno == EINTR)
				;
			if (w == pid) {
				reaped = true;
				/* now, not after the stderr pipe closes:
				 * what it left running may hold that open */
				out->left_killed = kill_left(&tr);
			}
		}
		if (reaped && rl.fd == -1)
			break;
	}
	if (!reaped) {
		reap(pid, &out->wstatus);
		out->left_killed = kill_left(&tr);
	}
	out->walk_errno = tr.walk_errno;
	if (rl.fd != -1) {
		relay_some(&rl, out);
		if (rl.fd != -1)
			close(rl.fd);
		rl.fd = -1;
	}
	settle_hold(&rl, out);
	out->tail_len = kb_ring_finish(&rl.ring);

	if (WIFSIGNALED(out->wstatus))
		out->exit_code = KB_EXIT_SIGNAL + WTERMSIG(out->wstatus);
	else if (!out->started)
		out->exit_code = KB_EXIT_ERROR;
	else if (out->exec_errno != 0)
		out->exit_code =
		    out->exec_errno == ENOENT || out->exec_errno == ENOTDIR
			? KB_EXIT_NOTFOUND
			: KB_EXIT_NOEXEC;
	else
		out->exit_code = WEXITSTATUS(out->wstatus);
	rc = 0;
fail:
	free(tr.v);
	if (rl.fd != -1)
		close(rl.fd);
	if (status_p[0] != -1)
		close(status_p[0]);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	for (size_t i = 0; i < NHANDLED; i++)
		sigaction(handled_signal(i), &old[i], NULL);
	sigaction(SIGPIPE, &old[NHANDLED], NULL);
	sig_w = -1;
	close_pair(sig_p);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	return rc;
}

char *
kb_posix_explain_failure(const char *text)
{
	struct kb_buf words = {0}, line = {0};
	size_t n = strlen(text);

	while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r' ||
			    text[n - 1] == ' '))
		n--;
	if (n >= PREFIX_LEN && strncmp(text, PREFIX, PREFIX_LEN) == 0) {
		text += PREFIX_LEN;
		n -= PREFIX_LEN;
	}
	kb_buf_add(&words, "", 0);
	kb_buf_escape_mem(&words, text, n);
	if (strstr(words.s, "sandbox_apply: Operation not permitted") != NULL)
		kb_buf_printf(&line,
		    "no sandbox: sandbox-exec could not apply kinbox's "
		    "profile (%s): kinbox is itself running inside a macOS "
		    "sandbox (another tool's Seatbelt profile), and macOS "
		    "refuses a sandbox inside a sandbox; run kinbox from an "
		    "unsandboxed terminal, or turn the outer tool's own "
		    "sandbox off — nothing was run",
		    words.s);
	else
		kb_buf_printf(&line,
		    "no sandbox: sandbox-exec refused kinbox's profile (%s); "
		    "report this with the output of kinbox --dry-run "
		    "--backend seatbelt — nothing was run",
		    words.s);
	kb_buf_free(&words);
	return line.s;
}
