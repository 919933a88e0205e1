/*
 * backends/run.c — executing a plan: descriptors in place, bwrap exec'd,
 * signals relayed, the wait status turned into kinbox's exit status.
 *
 * Process tree: kinbox → bwrap (monitor, host pid ns) → bwrap (pid 1 of the
 * sandbox) → kinbox-exec → the command (same pid); under the landlock
 * backend kinbox → the keeper (backends/keeper.c: the run's subreaper, in
 * a process group of its own) → kinbox-exec → the command (same pid, back
 * in kinbox's process group). bwrap's monitor dies of
 * any default-action signal and then SIGKILLs the sandbox, so it runs with
 * SIGINT/SIGQUIT/SIGTERM/SIGHUP ignored; kinbox-exec restores them. Signals
 * a terminal sends reach the command directly (it shares our process group);
 * signals sent to kinbox's pid (kill, a supervisor's timeout) are forwarded
 * to the command through a pidfd, after checking its parent chain so that a
 * recycled pid can never be hit.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/closelater.h"
#include "../lib/hostenv.h"
#include "backend.h"
#include "relay.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

static const int relayed[] = {
    SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH, SIGUSR1, SIGUSR2};

static bool
comm_is(pid_t pid, const char *name)
{
	char path[64], buf[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return strcmp(buf, name) == 0;
}

static pid_t
first_child(pid_t pid)
{
	char path[64], buf[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid,
	    (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return (pid_t)strtol(buf, NULL, 10);
}

/*
 * Opens a pidfd on the command: walk down from our bwrap child through the
 * bwrap processes. Each step is pinned with a pidfd and then checked to
 * still be the child of the step above, so a pid reused after the lookup is
 * never signalled. Returns -1 when the command is not (or no longer) there.
 */
static bool landlock_run; /* the plan runs without bubblewrap */
static pid_t keeper_cmd;  /* landlock: the command, as the keeper said */
static int hold_fd = -1;  /* landlock: what the keeper holds (kb_run_hold) */

void
kb_run_hold(int fd)
{
	hold_fd = fd;
}

/* kb_run_follow: a descriptor read on kinbox's thread during the run */
static struct {
	int fd;
	void (*ready)(void *ctx);
	void *ctx;
} follow = {-1, NULL, NULL};

void
kb_run_follow(int fd, void (*ready)(void *ctx), void *ctx)
{
	follow.fd = fd;
	follow.ready = ready;
	follow.ctx = ctx;
}

/* The keeper's messages (backends/keeper.c): 'C' and the command's pid
 * once it is spawned, 'W' and its wait status once it is reaped and the
 * tree is dead. Closes *sock at EOF. */
static void
keeper_said(int *sock, int *cmd_status, bool *have_status)
{
	char msg[1 + sizeof(int)];
	ssize_t n;
	int v;

	while (*sock != -1 &&
	       (n = recv(*sock, msg, sizeof(msg), MSG_DONTWAIT)) != -1) {
		if (n == 0) {
			close(*sock);
			*sock = -1;
			break;
		}
		if (n != (ssize_t)sizeof(msg))
			continue;
		memcpy(&v, msg + 1, sizeof(int));
		if (msg[0] == 'C' && keeper_cmd == 0 && v > 0)
			keeper_cmd = (pid_t)v;
		else if (msg[0] == 'W') {
			*cmd_status = v;
			*have_status = true;
		}
	}
}

static int
command_pidfd(pid_t bwrap, pid_t *pid)
{
	pid_t parent = bwrap, child;
	int fd = -1;

	/* the keeper's child, which kinbox-exec became: checked to be it
	 * still (the keeper reaps it; a pid reused by a process whose
	 * parent is the keeper is one of the run's) */
	if (landlock_run) {
		if (keeper_cmd <= 0)
			return -1;
		fd = (int)syscall(SYS_pidfd_open, keeper_cmd, 0);
		if (fd != -1 && kb_parent_of(keeper_cmd) != bwrap) {
			close(fd);
			return -1;
		}
		if (pid != NULL)
			*pid = keeper_cmd;
		return fd;
	}

	for (int depth = 0; depth < 4; depth++) {
		if ((child = first_child(parent)) <= 0)
			break;
		if (fd != -1)
			close(fd);
		fd = (int)syscall(SYS_pidfd_open, child, 0);
		if (fd == -1 || kb_parent_of(child) != parent)
			break;
		if (!comm_is(child, "bwrap")) {
			if (pid != NULL)
				*pid = child;
			return fd;
		}
		parent = child;
	}
	if (fd != -1)
		close(fd);
	return -1;
}

/*
 * Stops the sandbox for good (a revoked grant): SIGKILL to its pid 1,
 * bwrap's child, pinned with a pidfd and checked to be that child. When
 * the pid 1 of a namespace dies the kernel kills every other process in
 * it before the pidfd reports the death, so once the (bounded) wait is
 * over nothing the command started is left. Then bwrap itself, which is
 * all there is before it has made the namespace (its child dies with it:
 * --die-with-parent).
 */
static void
stop_sandbox(pid_t bwrap)
{
	pid_t init = first_child(bwrap);
	int fd;

	/* every process below the keeper (our child, not reaped yet); the
	 * keeper then kills what is left once the command is reaped */
	if (landlock_run) {
		kb_tree_signal(bwrap, SIGKILL);
		return;
	}
	fd = init > 0 ? (int)syscall(SYS_pidfd_open, init, 0) : -1;

	if (fd != -1 && kb_parent_of(init) == bwrap &&
	    syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0) == 0) {
		struct pollfd p = {.fd = fd, .events = POLLIN};

		while (poll(&p, 1, 5000) == -1 && errno == EINTR)
			;
	}
	if (fd != -1)
		close(fd);
	kill(bwrap, SIGKILL); /* our child, not reaped yet: never reused */
}

/*
 * --timeout's first step: SIGTERM to every process of the sandbox, so
 * that each may end cleanly (stop_sandbox's SIGKILL follows after
 * --kill-after). Under bwrap every descendant of its pid 1 (bwrap's own
 * init, which ignores SIGTERM and ends the namespace when the command
 * ends), pinned and checked to be bwrap's child; under the landlock
 * backend every descendant of the keeper, the run's subreaper. Each
 * process is pinned with a pidfd and checked to be its parent's child
 * before it is signalled (kb_tree_signal), so a recycled pid is never
 * hit.
 */
static void
term_sandbox(pid_t bwrap)
{
	pid_t top = landlock_run ? bwrap : first_child(bwrap);
	int fd = -1;

	if (top <= 0)
		return;
	if (!landlock_run) {
		fd = (int)syscall(SYS_pidfd_open, top, 0);
		if (fd == -1 || kb_parent_of(top) != bwrap) {
			if (fd != -1)
				close(fd);
			return;
		}
	}
	kb_tree_signal(top, SIGTERM);
	if (fd != -1)
		close(fd);
}

static bool
arm_timer(int tfd, long long secs)
{
	struct itimerspec its = {.it_value = {.tv_sec = (time_t)secs}};

	return timerfd_settime(tfd, 0, &its, NULL) == 0;
}

static void
forward(pid_t bwrap, int sig)
{
	int fd = command_pidfd(bwrap, NULL);

	if (fd == -1)
		return;
	syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
	close(fd);
}

/* Puts `fd` on a descriptor number above every kept one (close-on-exec). */
static int
lift(int fd, int base)
{
	int r;

	if (fd == -1)
		return -1;
	r = fcntl(fd, F_DUPFD_CLOEXEC, base);
	close(fd);
	return r;
}

static void
mark_all_cloexec(int maxfd)
{
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return;
	for (int fd = 3; fd < maxfd; fd++)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
}

/* --- watching the mounts' targets on the host ------------------------- */

/* The sandbox's mount table (backends/mounts.c): armed by go_inside(). */
struct watch {
	int fd; /* /proc/PID/mountinfo of the sandbox, -1 when unarmed */
	struct kb_strv points;
};

/* The mount table changed: read again, then compared. */
static const char *
watch_hit(struct watch *w, const struct kb_plan *pl, struct kb_run *r)
{
	if (kb_mountinfo_read(w->fd, &w->points) == -1)
		return NULL; /* the namespace is gone: the run is over */
	return kb_watch_compare(
	    pl, &w->points, r->replaced, sizeof(r->replaced));
}

/*
 * bwrap is done and kinbox-exec waits (--wait). With mounts to make,
 * kinbox's mounter got the sandbox from kinbox-exec itself: it limits
 * the tmpfs mounts, checks the mount table, mounts the overlays and gives
 * the go (no hop through kinbox); kinbox waits for it to be done and takes
 * the watch's descriptor, which kinbox-exec opened before the mounter's
 * check. Else kinbox opens the watch, checks the table and the caller
 * gives the go. A mount the host detached between bwrap's setup and the
 * check stops the run there; later ones are events on w->fd. Returns
 * false when the command must not start, or must be stopped
 * (r->setup_fail says why, or r->broken; the sandbox is then killed).
 */
static bool
go_inside(const struct kb_plan *pl, pid_t bwrap, struct watch *w, int ov_sock,
    struct kb_run *r)
{
	char path[64];
	pid_t pid;
	int pidfd = -1;
	const char *hit;
	bool ok = false, mounts = kb_plan_mounts(pl);

	if (mounts) {
		int rc = kb_mounter_wait(
		    ov_sock, &w->fd, r->setup_fail, sizeof(r->setup_fail));

		if (rc == 1) { /* its check of the table: a watched mount
				* is gone */
			snprintf(
			    r->broken, sizeof(r->broken), "%s", r->setup_fail);
			r->setup_fail[0] = '\0';
		}
		if (rc != 0)
			goto out;
	} else {
		if ((pidfd = command_pidfd(bwrap, &pid)) == -1) {
			snprintf(r->setup_fail, sizeof(r->setup_fail),
			    "the sandbox's first process is gone");
			return false;
		}
		snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)pid);
		w->fd = open(path, O_RDONLY | O_CLOEXEC);
		/* opened on the process pinned by the pidfd, not a
		 * recycled pid: it is still there after the open */
		if (w->fd == -1 ||
		    syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == -1) {
			snprintf(r->setup_fail, sizeof(r->setup_fail),
			    "cannot read the sandbox's mount table (/proc/%d): "
			    "%s",
			    (int)pid, strerror(errno));
			goto out;
		}
	}
	/* the mounter's check gave the go already; this one (also the
	 * first read for the events) notes what Landlock keeps
	 * unreadable, and stops a run whose mount went since */
	if (kb_mountinfo_read(w->fd, &w->points) == -1) {
		snprintf(r->setup_fail, sizeof(r->setup_fail),
		    "cannot read the sandbox's mount table: %s",
		    strerror(errno));
		goto out;
	}
	if ((hit = kb_watch_compare(
		 pl, &w->points, r->replaced, sizeof(r->replaced))) != NULL) {
		snprintf(r->broken, sizeof(r->broken), "%s", hit);
		goto out;
	}
	ok = true;
out:
	/* the mounter may have given the go already */
	if (!ok && mounts)
		kill(bwrap, SIGKILL);
	if (pidfd != -1)
		close(pidfd);
	if (pl->watch.n == 0 && w->fd != -1) {
		close(w->fd);
		w->fd = -1;
	}
	return ok;
}

static void
watch_close(struct watch *w)
{
	/* it may hold the last reference to the dead sandbox's mount
	 * namespace, whose mounts its last close tears down: made after
	 * kinbox's caller stopped waiting (lib/closelater.h) */
	kb_close_later(w->fd);
	kb_strv_free(&w->points);
}

/* descriptors kb_run() hands to the backend, before they get their numbers */
struct fds {
	int seccomp, status_w, err_w, realerr;
	int realout; /* the command's fd 1 when stdout is relayed, or -1 */
	int empty, go_r;
	int notify, unotify; /* the connect() filter, the listener's way out */
	int proxy;           /* the egress proxy listener's way out */
	int env;             /* the command's environment (a memfd) */
	const struct rlimit *nofile; /* to restore before exec, or NULL */
	pid_t pgrp; /* landlock: kinbox's process group, to rejoin; or 0 */
};

/* Child side (vfork: shares our memory): only system calls until exec. */
static void __attribute__((noreturn)) exec_backend(const struct kb_plan *pl,
    pid_t parent, const sigset_t *oldmask, const struct fds *f, int maxfd)
{
	static const int ignored[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 || getppid() != parent)
		_exit(KB_EXIT_ERROR);
	/* out of the keeper's own group: the terminal's signals and job
	 * control reach the command with kinbox */
	if (f->pgrp > 0 && setpgid(0, f->pgrp) == -1)
		_exit(KB_EXIT_ERROR);
	for (size_t i = 0; i < nitems(ignored); i++)
		signal(ignored[i], SIG_IGN);
	signal(SIGPIPE, SIG_DFL);
	sigprocmask(SIG_SETMASK, oldmask, NULL);
	mark_all_cloexec(maxfd);
	/* first, while the sources are intact: every source lies below
	 * pass_base (the planner saw to it), every target at or above it */
	for (size_t i = 0; i < pl->npass; i++)
		if (dup2(pl->pass_src[i], pl->pass_base + (int)i) == -1)
			_exit(KB_EXIT_ERROR);
	if ((f->realout != -1 && dup2(f->realout, 1) == -1) ||
	    dup2(f->err_w, 2) == -1 || dup2(f->seccomp, pl->seccomp_fd) == -1 ||
	    dup2(f->status_w, pl->status_fd) == -1 ||
	    dup2(f->realerr, pl->stderr_fd) == -1 ||
	    (pl->empty_fd != -1 && dup2(f->empty, pl->empty_fd) == -1) ||
	    (pl->go_fd != -1 && dup2(f->go_r, pl->go_fd) == -1) ||
	    (pl->unotify_fd != -1 &&
		(dup2(f->notify, pl->notify_fd) == -1 ||
		    dup2(f->unotify, pl->unotify_fd) == -1)) ||
	    (pl->proxy_fd != -1 && dup2(f->proxy, pl->proxy_fd) == -1) ||
	    (pl->env_fd != -1 && dup2(f->env, pl->env_fd) == -1))
		_exit(KB_EXIT_ERROR);
	for (size_t i = 0; i < pl->nkeep; i++)
		if (fcntl(pl->keep_fd[i], F_SETFD, 0) == -1)
			_exit(KB_EXIT_ERROR);
	/* the descriptors stay valid above a lowered limit */
	if (f->nofile != NULL)
		setrlimit(RLIMIT_NOFILE, f->nofile);
	/* bwrap (or kinbox-exec, under landlock) runs on the host: not in
	 * the workspace, not with the command's environment, whose loader
	 * variables could name a library the command wrote there; the
	 * command's environment is in env_fd */
	if (chdir("/") == -1)
		_exit(KB_EXIT_ERROR);
	execve(
	    pl->exe, pl->argv.v, pl->env_fd != -1 ? kb_host_envp : pl->envp.v);
	_exit(KB_EXIT_ERROR);
}

/* vfork: no page-table copy on the start path; the child only makes system
 * calls on its own stack before execve. Kept apart from its caller
 * (start_spawn(), under kb_run()) so that no caller local lives across the
 * vfork. */
static pid_t __attribute__((noinline)) spawn_backend(const struct kb_plan *pl,
    pid_t parent, const sigset_t *oldmask, const struct fds *f, int maxfd)
{
	pid_t pid = vfork();

	if (pid == 0)
		exec_backend(pl, parent, oldmask, f, maxfd);
	return pid;
}

static void
drain_status(int fd, struct kb_run *r, unsigned char *buf, size_t *len)
{
	ssize_t n;

	while (*len < 16 && (n = read(fd, buf + *len, 16 - *len)) > 0)
		*len += (size_t)n;
	if (*len >= 1 && buf[0] == 'S')
		r->started = true;
	if (*len >= 2 + sizeof(int) && buf[1] == 'E')
		memcpy(&r->exec_errno, buf + 2, sizeof(int));
	if (*len >= 2 + sizeof(int) && buf[1] == 'F')
		memcpy(&r->confine_errno, buf + 2, sizeof(int));
	if (*len >= 2 + sizeof(int) && buf[1] == 'P')
		memcpy(&r->proxy_errno, buf + 2, sizeof(int));
	if (*len >= 2 + sizeof(int) && buf[1] == 'R')
		memcpy(&r->rlimit_errno, buf + 2, sizeof(int));
	if (*len >= 2 + sizeof(int) && buf[1] == 'M') {
		memcpy(&r->check_failed, buf + 2, sizeof(int));
		r->check_failed++;
	}
}

static void
drain_err(int fd, struct kb_run *r, size_t *errlen)
{
	char chunk[1024];
	ssize_t n;

	while ((n = read(fd, chunk, sizeof(chunk))) > 0) {
		if (r->started) {
			if (write(2, chunk, (size_t)n) == -1)
				break;
			continue;
		}
		/* before the start it is bwrap speaking: keep it to explain */
		size_t room = sizeof(r->setup_err) - 1 - *errlen;
		size_t take = (size_t)n < room ? (size_t)n : room;

		memcpy(r->setup_err + *errlen, chunk, take);
		*errlen += take;
		r->setup_err[*errlen] = '\0';
	}
}

/*
 * The keeper is reaped: the command's status is the one it sent before it
 * exited (the tree dead by then); when it sent none it was killed from
 * outside, and its own status stands in (128+9), and kinbox kills what it
 * left, re-parented to kinbox.
 */
static void
keeper_gone(
    int *ksock, struct kb_run *r, int cmd_status, bool have_status, pid_t self)
{
	keeper_said(ksock, &cmd_status, &have_status);
	if (have_status)
		r->wstatus = cmd_status;
	else
		kb_tree_kill(self);
}

/*
 * The landlock backend's metadata listener from kinbox-exec on `sock`:
 * served from here on (*meta), or the run stopped with why. The listener's
 * descriptor or -1 (errno EAGAIN: nothing yet).
 */
static int
serve_meta(int sock, struct kb_meta **meta, pid_t pid, struct kb_run *r)
{
	struct kb_meta_hello hello;
	int lfd = kb_meta_recv(sock, &hello), err = errno;

	/* EOF: kinbox-exec ended before its command (it says why on the
	 * status pipe) */
	if (lfd != -1 && (*meta = kb_meta_start(lfd, &hello)) == NULL &&
	    r->setup_fail[0] == '\0') {
		/* its metadata calls would wait forever */
		snprintf(r->setup_fail, sizeof(r->setup_fail),
		    "cannot start the metadata supervisor: %s",
		    strerror(errno));
		stop_sandbox(pid);
	} else if (lfd == -1 && err == EPROTO) {
		snprintf(r->setup_fail, sizeof(r->setup_fail),
		    "the sandbox sent a malformed listener message");
		stop_sandbox(pid);
	}
	errno = err;
	return lfd;
}

/* --- the run: start, supervise, finish --------------------------------- */

/* The supervision loop's poll set: one slot per event source. */
enum {
	P_SIG,       /* the signals kinbox relays or handles (signalfd) */
	P_STATUS,    /* kinbox-exec's status pipe */
	P_ERR,       /* kinbox-exec's stderr: bwrap's before the start */
	P_RELAY_ERR, /* the command's stderr */
	P_WATCH,     /* the sandbox's mount table */
	P_UNIX,      /* the unix-socket (or metadata) supervisor's listener */
	P_PROXY,     /* the egress proxy's listener */
	P_TIMER,     /* --timeout */
	P_KEEPER,    /* landlock: the keeper's messages */
	P_RELAY_OUT, /* the command's stdout */
	P_FOLLOW,    /* kb_run_follow's descriptor */
	P_N
};

/* One run's state, from run_start() to run_finish(). */
struct run {
	const struct kb_plan *pl;
	const struct kb_stopper *stop;
	struct kb_run *r;
	int status_p[2], err_p[2], go_p[2];
	int ov_sock, un[2], notify, px[2];
	struct kb_sup *sup;
	struct kb_meta *meta;
	struct kb_proxy *proxy;
	pid_t ov_pid;
	int seccomp_fd, realerr, empty, sigfd, base, maxfd, tfd;
	int envfd;
	struct kb_relay rl, ro;
	int realout;
	off_t out_file_at;
	struct watch w;
	struct fds f;
	unsigned char stbuf[16];
	size_t stlen, errlen;
	sigset_t mask, oldmask;
	struct rlimit lim, orig_nofile;
	bool raised;
	unsigned pending;
	bool reaped, was_started, have_status;
	int ksock, cmd_status;
	pid_t pid, self;
};

/* The lowest number a lifted descriptor may take (s->base), and a
 * descriptor limit that leaves room above it. */
static int
start_limits(struct run *s, struct kb_err *e)
{
	const struct kb_plan *pl = s->pl;

	for (size_t i = 0; i < pl->nkeep; i++)
		if (pl->keep_fd[i] >= s->base)
			s->base = pl->keep_fd[i] + 1;
	/* the lifted descriptors must not land where the bind sources go */
	if (pl->pass_base + (int)pl->npass > s->base)
		s->base = pl->pass_base + (int)pl->npass;
	if (getrlimit(RLIMIT_NOFILE, &s->orig_nofile) == 0 &&
	    s->orig_nofile.rlim_cur < (rlim_t)s->base + 64) {
		struct rlimit more = s->orig_nofile;

		more.rlim_cur = (rlim_t)s->base + 64;
		if (more.rlim_cur > more.rlim_max ||
		    setrlimit(RLIMIT_NOFILE, &more) == -1)
			return kb_err_set(e,
			    "%zu guarded paths need %d "
			    "descriptors, more than the limit (ulimit -Hn) "
			    "allows; raise it or use a narrower workspace",
			    pl->npass, s->base + 64);
		s->raised = true;
	}
	s->maxfd =
	    getrlimit(RLIMIT_NOFILE, &s->lim) == 0 && s->lim.rlim_cur < 65536
		? (int)s->lim.rlim_cur
		: 65536;
	return 0;
}

/* The backend's descriptors, lifted above s->base: the seccomp filter,
 * the empty file, the status, stderr and go channels, the relays, the
 * command's environment. */
static int
start_fds(struct run *s, struct kb_err *e)
{
	const struct kb_plan *pl = s->pl;

	if ((s->seccomp_fd = kb_seccomp_fd_variant(pl->seccomp_variant, e)) ==
	    -1)
		return -1;
	if (pl->empty_fd == -1)
		s->empty = open("/dev/null", O_RDONLY | O_CLOEXEC);
	else
		s->empty = memfd_create("kinbox-empty", MFD_CLOEXEC);
	if (s->empty == -1)
		return kb_err_set(e, "memfd_create: %s", strerror(errno));
	if (pipe2(s->status_p, O_CLOEXEC) == -1 ||
	    pipe2(s->err_p, O_CLOEXEC) == -1 ||
	    (pl->go_fd != -1 && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
				    0, s->go_p) == -1))
		return kb_err_set(e, "pipe: %s", strerror(errno));
	s->seccomp_fd = lift(s->seccomp_fd, s->base);
	if (pl->go_fd != -1 && (s->go_p[0] = lift(s->go_p[0], s->base)) == -1)
		return kb_err_set(
		    e, "cannot arrange descriptors: %s", strerror(errno));
	s->status_p[1] = lift(s->status_p[1], s->base);
	s->err_p[1] = lift(s->err_p[1], s->base);
	s->empty = lift(s->empty, s->base);
	if (kb_relay_open_err(&s->rl, s->r, &s->realerr) == -1)
		return kb_err_set(
		    e, "cannot set up the stderr relay: %s", strerror(errno));
	s->realerr = lift(s->realerr, s->base);
	if ((s->realout = kb_relay_open_out(&s->ro, s->r, &s->out_file_at)) !=
		-1 &&
	    (s->realout = lift(s->realout, s->base)) == -1)
		return kb_err_set(
		    e, "cannot arrange descriptors: %s", strerror(errno));
	if (s->seccomp_fd == -1 || s->status_p[1] == -1 || s->err_p[1] == -1 ||
	    s->realerr == -1 || s->empty == -1)
		return kb_err_set(
		    e, "cannot arrange descriptors: %s", strerror(errno));
	if (pl->env_fd != -1 && ((s->envfd = kb_env_memfd(pl->envp.v)) == -1 ||
				    (s->envfd = lift(s->envfd, s->base)) == -1))
		return kb_err_set(e,
		    "cannot pass the command's environment: %s",
		    strerror(errno));
	return 0;
}

/* The ways out for the listeners made inside: the unix-socket (or
 * metadata) supervisor's, with its filter, and the egress proxy's. */
static int
start_mediators(struct run *s, struct kb_err *e)
{
	const struct kb_plan *pl = s->pl;

	/* the supervisor's: a seqpacket pair, one message, one listener */
	if (pl->unotify_fd != -1) {
		if ((s->notify = kb_seccomp_fd_variant(
			 pl->meta ? KB_SECCOMP_META : KB_SECCOMP_NOTIFY, e)) ==
		    -1)
			return -1;
		if (socketpair(
			AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, s->un) == -1)
			return kb_err_set(e, "socketpair: %s", strerror(errno));
		s->notify = lift(s->notify, s->base);
		s->un[1] = lift(s->un[1], s->base);
		if (s->notify == -1 || s->un[1] == -1)
			return kb_err_set(e, "cannot arrange descriptors: %s",
			    strerror(errno));
	}
	/* the egress proxy's: the listener made inside, one message */
	if (pl->proxy_fd != -1) {
		if (socketpair(
			AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, s->px) == -1)
			return kb_err_set(e, "socketpair: %s", strerror(errno));
		if ((s->px[1] = lift(s->px[1], s->base)) == -1)
			return kb_err_set(e, "cannot arrange descriptors: %s",
			    strerror(errno));
	}
	return 0;
}

/* The signals kinbox relays or handles, blocked and read from a
 * signalfd; the stopper armed. */
static int
start_signals(struct run *s, struct kb_err *e)
{
	const struct kb_stopper *stop = s->stop;

	sigemptyset(&s->mask);
	sigaddset(&s->mask, SIGCHLD);
	for (size_t i = 0; i < nitems(relayed); i++)
		sigaddset(&s->mask, relayed[i]);
	if (stop != NULL)
		sigaddset(&s->mask, stop->sig);
	sigprocmask(SIG_BLOCK, &s->mask, &s->oldmask);
	s->sigfd = signalfd(-1, &s->mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (s->sigfd == -1)
		return kb_err_set(e, "signalfd: %s", strerror(errno));
	if (stop != NULL && stop->arm != NULL &&
	    stop->arm(stop->ctx, e) == -1) {
		/* a `sig` already sent is dropped, not its default action */
		signal(stop->sig, SIG_IGN);
		close(s->sigfd);
		sigprocmask(SIG_SETMASK, &s->oldmask, NULL);
		return -1;
	}
	return 0;
}

/* bwrap spawned, or under landlock the keeper forked, which spawns
 * kinbox-exec; the timer armed first. */
static int
start_spawn(struct run *s, struct kb_err *e)
{
	const struct kb_plan *pl = s->pl;

	s->f = (struct fds){s->seccomp_fd, s->status_p[1], s->err_p[1],
	    s->realerr, s->realout, s->empty, s->go_p[0], s->notify, s->un[1],
	    s->px[1], s->envfd, s->raised ? &s->orig_nofile : NULL,
	    landlock_run ? getpgrp() : 0};
	/* the keeper is the run's subreaper; kinbox is one too, in case the
	 * keeper is killed from outside: then what it left is re-parented to
	 * kinbox, which kills it (kb_tree_kill) */
	if (landlock_run && prctl(PR_SET_CHILD_SUBREAPER, 1) == -1)
		return kb_err_set(e, "cannot become the run's subreaper: %s",
		    strerror(errno));
	/* --timeout: from the start of the backend, setup included */
	if (pl->timeout > 0 && ((s->tfd = timerfd_create(CLOCK_MONOTONIC,
				     TFD_CLOEXEC | TFD_NONBLOCK)) == -1 ||
				   !arm_timer(s->tfd, pl->timeout)))
		return kb_err_set(e, "timerfd: %s", strerror(errno));
	keeper_cmd = 0;
	if (landlock_run) {
		/* a fork, not an exec: the keeper is kinbox's code */
		if ((s->pid = kb_keeper_fork(&s->ksock)) == 0)
			kb_keeper_run(s->ksock,
			    spawn_backend(
				pl, getpid(), &s->oldmask, &s->f, s->maxfd),
			    hold_fd);
	} else {
		s->pid =
		    spawn_backend(pl, s->self, &s->oldmask, &s->f, s->maxfd);
	}
	if (s->pid == -1)
		return kb_err_set(e, "%s: %s", landlock_run ? "fork" : "vfork",
		    strerror(errno));
	return 0;
}

/* The child's ends closed, the mounter started, our ends made
 * non-blocking. */
static void
start_spawned(struct run *s)
{
	struct kb_run *r = s->r;

	close(s->seccomp_fd);
	if (s->envfd != -1)
		close(s->envfd);
	close(s->status_p[1]);
	close(s->err_p[1]);
	close(s->realerr);
	if (s->realout != -1)
		close(s->realout);
	close(s->empty);
	if (s->go_p[0] != -1)
		close(s->go_p[0]);
	if (s->un[1] != -1) {
		close(s->un[1]);
		close(s->notify);
		fcntl(s->un[0], F_SETFL, O_NONBLOCK);
	}
	if (s->px[1] != -1) {
		close(s->px[1]);
		s->px[1] = -1;
	}
	/* forked now, while bwrap sets up; it gives the go */
	if (kb_plan_mounts(s->pl)) {
		if ((s->ov_sock = kb_mounter_start(
			 s->pl, s->go_p[1], &s->ov_pid)) == -1)
			snprintf(r->setup_fail, sizeof(r->setup_fail),
			    "cannot start kinbox's mounter: %s",
			    strerror(errno));
		close(s->go_p[1]);
		s->go_p[1] = -1;
	}
	/* kinbox itself must not die writing to a closed stderr */
	signal(SIGPIPE, SIG_IGN);
	fcntl(s->status_p[0], F_SETFL, O_NONBLOCK);
	fcntl(s->err_p[0], F_SETFL, O_NONBLOCK);
}

/* Everything up to the supervision: 0, or -1 with `e` set (the run's
 * descriptors are then left as they are). */
static int
run_start(struct run *s, struct kb_err *e)
{
	struct kb_run *r = s->r;

	/* not the 64 KiB tail: zeroing it would fault in 16 pages per start */
	memset(r, 0, offsetof(struct kb_run, tail));
	r->backend = s->pl->backend;
	r->tail_len = 0;
	r->stderr_bytes = 0;
	if (start_limits(s, e) == -1)
		return -1;
	landlock_run = s->pl->backend == KB_BACKEND_LANDLOCK;
	if (start_fds(s, e) == -1 || start_mediators(s, e) == -1 ||
	    start_signals(s, e) == -1 || start_spawn(s, e) == -1)
		return -1;
	start_spawned(s);
	return 0;
}

/* kinbox-exec's status pipe: drained, closed at its end */
static void
on_status(struct run *s, short revents)
{
	drain_status(s->status_p[0], s->r, s->stbuf, &s->stlen);
	if (revents & (POLLHUP | POLLERR) && !(revents & POLLIN)) {
		close(s->status_p[0]);
		s->status_p[0] = -1;
	}
}

/* kinbox-exec said it started: its go, and bwrap's words kept so far */
static void
on_started(struct run *s)
{
	const struct kb_plan *pl = s->pl;
	struct kb_run *r = s->r;

	s->was_started = true;
	/* kinbox-exec waits for its go (from here, or from kinbox's
	 * mounter); an EOF instead stops it before the command */
	if (pl->go_fd != -1) {
		if (r->setup_fail[0] == '\0' && r->revoked[0] == '\0' &&
		    go_inside(pl, s->pid, &s->w, s->ov_sock, r) &&
		    s->go_p[1] != -1 && write(s->go_p[1], "G", 1) != 1)
			snprintf(r->setup_fail, sizeof(r->setup_fail),
			    "cannot start the command: %s", strerror(errno));
		if (s->go_p[1] != -1)
			close(s->go_p[1]);
		s->go_p[1] = -1;
		if (s->ov_sock != -1)
			close(s->ov_sock);
		s->ov_sock = -1;
	}
	if (s->errlen > 0 && write(2, r->setup_err, s->errlen) == -1)
		s->errlen = 0;
}

/* the signals sent to kinbox before the command was there */
static void
forward_pending(struct run *s)
{
	for (int sig = 1; sig < 32; sig++)
		if (s->pending & (1U << sig))
			forward(s->pid, sig);
	s->pending = 0;
}

/* kinbox-exec's stderr: drained, closed at its end */
static void
on_err(struct run *s, short revents)
{
	drain_err(s->err_p[0], s->r, &s->errlen);
	if (revents & (POLLHUP | POLLERR) && !(revents & POLLIN)) {
		close(s->err_p[0]);
		s->err_p[0] = -1;
	}
}

/* the landlock backend's metadata listener */
static void
on_meta_listener(struct run *s)
{
	int lfd = serve_meta(s->un[0], &s->meta, s->pid, s->r);

	if (lfd != -1 || errno != EAGAIN) {
		close(s->un[0]);
		s->un[0] = -1;
	}
}

/* the unix-socket supervisor's listener */
static void
on_sup_listener(struct run *s)
{
	const struct kb_plan *pl = s->pl;
	struct kb_run *r = s->r;
	struct kb_sup_hello hello;
	int lfd = kb_sup_recv(s->un[0], &hello);

	/* EOF: kinbox-exec ended before its command (it says why on the
	 * status pipe) */
	if (lfd != -1)
		s->sup = kb_sup_start(
		    lfd, &hello, pl->granted, pl->ngranted, pl->check_abstract);
	if (lfd != -1 && s->sup == NULL && r->setup_fail[0] == '\0') {
		/* its connects would wait forever */
		snprintf(r->setup_fail, sizeof(r->setup_fail),
		    "cannot start the unix-socket "
		    "supervisor: %s",
		    strerror(errno));
		stop_sandbox(s->pid);
	} else if (lfd == -1 && errno == EPROTO) {
		snprintf(r->setup_fail, sizeof(r->setup_fail),
		    "the sandbox sent a malformed listener "
		    "message");
		stop_sandbox(s->pid);
	}
	if (lfd != -1 || errno != EAGAIN) {
		close(s->un[0]);
		s->un[0] = -1;
	}
}

/* the egress proxy's listener */
static void
on_proxy_listener(struct run *s)
{
	const struct kb_plan *pl = s->pl;
	struct kb_run *r = s->r;
	int lfd = kb_proxy_recv(s->px[0]);

	if (lfd != -1 &&
	    (s->proxy = kb_proxy_start(lfd, pl->hosts, pl->nhosts)) == NULL &&
	    r->setup_fail[0] == '\0') {
		snprintf(r->setup_fail, sizeof(r->setup_fail),
		    "cannot start the egress proxy: %s", strerror(errno));
		stop_sandbox(s->pid);
	} else if (lfd == -1 && errno == EPROTO) {
		snprintf(r->setup_fail, sizeof(r->setup_fail),
		    "the sandbox sent a malformed proxy "
		    "listener");
		stop_sandbox(s->pid);
	}
	if (lfd != -1 || errno != EAGAIN) {
		close(s->px[0]);
		s->px[0] = -1;
	}
}

/* --timeout, and --kill-after after it */
static void
on_timer(struct run *s)
{
	struct kb_run *r = s->r;
	unsigned long long ticks;

	/* the timeout: SIGTERM to all, SIGKILL after --kill-after; before
	 * the command started there is nothing of it to end cleanly */
	if (read(s->tfd, &ticks, sizeof(ticks)) == (ssize_t)sizeof(ticks)) {
		bool first = !r->timed_out;

		r->timed_out = true;
		if (first && r->started && s->pl->kill_after > 0 &&
		    arm_timer(s->tfd, s->pl->kill_after))
			term_sandbox(s->pid);
		else
			stop_sandbox(s->pid);
	}
}

/* the sandbox's mount table changed */
static void
on_watch(struct run *s)
{
	struct kb_run *r = s->r;
	const char *hit = watch_hit(&s->w, s->pl, r);

	/* the mount covering it is gone in the sandbox too: stop everything
	 * rather than run on unprotected */
	if (hit != NULL) {
		snprintf(r->broken, sizeof(r->broken), "%s", hit);
		kill(s->pid, SIGKILL);
	}
}

/* SIGCHLD: our child (bwrap, or the keeper) reaped once it is done */
static void
on_sigchld(struct run *s)
{
	if (!s->reaped && waitpid(s->pid, &s->r->wstatus, WNOHANG) == s->pid) {
		s->reaped = true;
		if (landlock_run)
			keeper_gone(&s->ksock, s->r, s->cmd_status,
			    s->have_status, s->self);
	}
}

/* the stopper's signal: the sandbox stopped when a grant was revoked */
static void
on_stop(struct run *s)
{
	struct kb_run *r = s->r;
	char why[sizeof(r->revoked)];

	if (!s->reaped && r->revoked[0] == '\0' &&
	    s->stop->revoked(s->stop->ctx, why, sizeof(why))) {
		memcpy(r->revoked, why, sizeof(why));
		stop_sandbox(s->pid);
	}
}

/* one signal read from the signalfd */
static void
on_signal(struct run *s, const struct signalfd_siginfo *si)
{
	if (si->ssi_signo == SIGCHLD) {
		on_sigchld(s);
		return;
	}
	/* before the relay: it is kinbox's own, and no bit of `pending` */
	if (s->stop != NULL && (int)si->ssi_signo == s->stop->sig) {
		on_stop(s);
		return;
	}
	if (si->ssi_signo == SIGWINCH && s->rl.pty && s->rl.fd != -1) {
		struct winsize ws;

		if (ioctl(2, TIOCGWINSZ, &ws) == 0)
			ioctl(s->rl.fd, TIOCSWINSZ, &ws);
	}
	/* A terminal already sent it to the whole foreground group, the
	 * command included. */
	if (si->ssi_code == SI_KERNEL)
		return;
	if (s->r->started && (!landlock_run || keeper_cmd > 0))
		forward(s->pid, (int)si->ssi_signo);
	else
		s->pending |= 1U << si->ssi_signo;
}

static void
on_signals(struct run *s)
{
	struct signalfd_siginfo si;

	while (read(s->sigfd, &si, sizeof(si)) == sizeof(si))
		on_signal(s, &si);
}

/* One round of events, in this order: the keeper's socket before the
 * status pipe, the go before the pending signals are forwarded, the
 * signals last. */
static void
supervise_events(struct run *s, const struct pollfd *pfd)
{
	if (pfd[P_KEEPER].revents)
		keeper_said(&s->ksock, &s->cmd_status, &s->have_status);
	if (pfd[P_FOLLOW].revents & POLLIN)
		follow.ready(follow.ctx);
	else if (pfd[P_FOLLOW].revents)
		follow.fd = -1; /* broken: no more to read */
	if (pfd[P_STATUS].revents)
		on_status(s, pfd[P_STATUS].revents);
	if (s->r->started && !s->was_started)
		on_started(s);
	/* under landlock also once the keeper said which is the command */
	if (s->pending != 0 && s->r->started &&
	    (!landlock_run || keeper_cmd > 0))
		forward_pending(s);
	if (pfd[P_ERR].revents)
		on_err(s, pfd[P_ERR].revents);
	if (pfd[P_RELAY_ERR].revents)
		kb_relay_some(&s->rl);
	if (pfd[P_RELAY_OUT].revents)
		kb_relay_some(&s->ro);
	if (pfd[P_UNIX].revents && s->pl->meta)
		on_meta_listener(s);
	else if (pfd[P_UNIX].revents)
		on_sup_listener(s);
	if (pfd[P_PROXY].revents)
		on_proxy_listener(s);
	if (pfd[P_TIMER].revents & POLLIN)
		on_timer(s);
	if (pfd[P_WATCH].revents && s->r->broken[0] == '\0')
		on_watch(s);
	if (pfd[P_SIG].revents & POLLIN)
		on_signals(s);
}

/* Until our child is reaped and the status, stderr and relays' pipes
 * are at their end (or quiet for a second after the reaping). */
static void
run_supervise(struct run *s)
{
	for (;;) {
		struct pollfd pfd[P_N] = {
		    [P_SIG] = {.fd = s->sigfd, .events = POLLIN},
		    [P_STATUS] = {.fd = s->status_p[0], .events = POLLIN},
		    [P_ERR] = {.fd = s->err_p[0], .events = POLLIN},
		    [P_RELAY_ERR] = {.fd = s->rl.fd, .events = POLLIN},
		    [P_WATCH] = {.fd = s->reaped ? -1 : s->w.fd,
			.events = POLLPRI},
		    [P_UNIX] = {.fd = s->un[0], .events = POLLIN},
		    [P_PROXY] = {.fd = s->px[0], .events = POLLIN},
		    [P_TIMER] = {.fd = s->reaped ? -1 : s->tfd,
			.events = POLLIN},
		    [P_KEEPER] = {.fd = s->ksock, .events = POLLIN},
		    [P_RELAY_OUT] = {.fd = s->ro.fd, .events = POLLIN},
		    [P_FOLLOW] = {.fd = follow.fd, .events = POLLIN},
		};
		int n = poll(pfd, P_N, s->reaped ? 1000 : -1);

		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* reaped and the pipes stay quiet: done */
		supervise_events(s, pfd);
		if (s->reaped && s->status_p[0] == -1 && s->err_p[0] == -1 &&
		    s->rl.fd == -1 && s->ro.fd == -1)
			break;
	}
}

/* Reaped, the services stopped, every descriptor closed, the tails
 * taken, the signals as they were. */
static void
run_finish(struct run *s)
{
	struct kb_run *r = s->r;

	if (!s->reaped) {
		waitpid(s->pid, &r->wstatus, 0);
		if (landlock_run)
			keeper_gone(&s->ksock, r, s->cmd_status, s->have_status,
			    s->self);
	}
	if (s->ksock != -1)
		close(s->ksock);
	if (s->tfd != -1)
		close(s->tfd);
	kb_sup_stop(s->sup, &r->sock);
	kb_meta_stop(s->meta, &r->meta);
	kb_proxy_stop(s->proxy, &r->egress);
	if (s->un[0] != -1)
		close(s->un[0]);
	if (s->px[0] != -1)
		close(s->px[0]);
	if (landlock_run) {
		kb_tree_kill(s->self);
		prctl(PR_SET_CHILD_SUBREAPER, 0);
	}
	if (s->go_p[1] != -1)
		close(s->go_p[1]);
	if (s->ov_sock != -1)
		close(s->ov_sock);
	if (s->ov_pid > 0)
		while (waitpid(s->ov_pid, NULL, 0) == -1 && errno == EINTR)
			;
	if (s->status_p[0] != -1)
		close(s->status_p[0]);
	if (s->err_p[0] != -1)
		close(s->err_p[0]);
	if (s->rl.fd != -1)
		kb_relay_some(&s->rl);
	if (s->rl.fd != -1)
		close(s->rl.fd);
	kb_relay_finish(&s->rl);
	if (s->ro.fd != -1)
		kb_relay_some(&s->ro);
	kb_relay_close(&s->ro);
	kb_relay_finish(&s->ro);
	if (s->out_file_at >= 0)
		kb_relay_file_tail(r, s->out_file_at);
	watch_close(&s->w);
	close(s->sigfd);
	/* the run is over: a late `sig` must not kill kinbox (the default
	 * action of a real-time signal) before it reports */
	if (s->stop != NULL)
		signal(s->stop->sig, SIG_IGN);
	sigprocmask(SIG_SETMASK, &s->oldmask, NULL);
}

/* kinbox's exit status for the run */
static int
exit_code_of(const struct kb_run *r)
{
	if (r->timed_out)
		return KB_EXIT_TIMEOUT;
	if (WIFSIGNALED(r->wstatus))
		return KB_EXIT_SIGNAL + WTERMSIG(r->wstatus);
	if (!r->started || r->confine_errno != 0 || r->check_failed != 0 ||
	    r->proxy_errno != 0 || r->rlimit_errno != 0)
		return KB_EXIT_ERROR;
	if (r->exec_errno != 0)
		return r->exec_errno == ENOENT || r->exec_errno == ENOTDIR
			   ? KB_EXIT_NOTFOUND
			   : KB_EXIT_NOEXEC;
	return WEXITSTATUS(r->wstatus);
}

int
kb_run(const struct kb_plan *pl, const struct kb_stopper *stop,
    struct kb_run *r, struct kb_err *e)
{
	struct run s = {.pl = pl,
	    .stop = stop,
	    .r = r,
	    .status_p = {-1, -1},
	    .err_p = {-1, -1},
	    .go_p = {-1, -1},
	    .ov_sock = -1,
	    .un = {-1, -1},
	    .notify = -1,
	    .px = {-1, -1},
	    .ov_pid = -1,
	    .base = 32,
	    .tfd = -1,
	    .envfd = -1,
	    .realout = -1,
	    .out_file_at = -1,
	    .w = {.fd = -1},
	    .ksock = -1,
	    .self = getpid()};

	if (run_start(&s, e) == -1)
		return -1;
	run_supervise(&s);
	run_finish(&s);
	r->exit_code = exit_code_of(r);
	return 0;
}
