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
#include <termios.h>
#include <unistd.h>

#include "../lib/closelater.h"
#include "../lib/hostenv.h"
#include "../lib/ring.h"
#include "backend.h"

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

/* Child side (vfork: shares our memory): only system calls until exec. */
/* --- the relays of stderr and stdout ------------------------------------ */

#define RELAY_CHUNK     (128 * 1024)
#define RELAY_PIPE_SIZE (1024 * 1024)

struct relay {
	int fd;  /* read end: pipe or pty master; -1 when closed */
	int out; /* where it goes: 2 (stderr) or 1 (stdout) */
	bool pty;
	bool out_dead; /* our end is gone: see relay_some */
	/* stdout to a pipe: tee(2)'d there, the command's pipe then
	 * emptied into /dev/null (splice) but for the tail: no copy */
	bool tee;
	int devnull;
	struct kb_ring ring; /* over KB_TAIL bytes of struct kb_run */
	size_t *ring_len;
	unsigned long long *bytes;
};

static void
write_all(struct relay *rl, const char *buf, size_t n)
{
	while (n > 0 && !rl->out_dead) {
		ssize_t w = write(rl->out, buf, n);

		if (w > 0) {
			buf += w;
			n -= (size_t)w;
		} else if (w == -1 && errno == EINTR) {
			continue;
		} else if (w == -1 && errno == EAGAIN) {
			struct pollfd p = {.fd = rl->out, .events = POLLOUT};

			poll(&p, 1, -1);
		} else {
			rl->out_dead = true;
		}
	}
}

/* the last KB_TAIL bytes, kept in a ring (lib/ring.c), linearised at the
 * end where struct kb_run holds them */
static void
ring_finish(struct relay *rl)
{
	if (rl->ring.buf == NULL)
		return;
	*rl->ring_len = kb_ring_finish(&rl->ring);
}

static void
relay_close(struct relay *rl)
{
	if (rl->fd != -1)
		close(rl->fd);
	rl->fd = -1;
	if (rl->devnull != -1)
		close(rl->devnull);
	rl->devnull = -1;
}

/* Our stdout's reader went away: the command's pipe is closed too, so
 * that its next write gets SIGPIPE or EPIPE, as it would without kinbox
 * (stderr instead keeps draining: a closed stderr must not kill it). */
static bool
relay_dead(struct relay *rl)
{
	if (!rl->out_dead || rl->out != 1)
		return false;
	relay_close(rl);
	return true;
}

/* stdout to a pipe: tee to it, keep the tail, splice the rest away */
static int
relay_tee(struct relay *rl)
{
	static char buf[KB_TAIL];
	ssize_t t = tee(rl->fd, rl->out, RELAY_PIPE_SIZE, SPLICE_F_NONBLOCK);

	if (t == -1 && errno == EAGAIN) {
		/* the command's pipe is empty, or ours is full */
		struct pollfd p[2] = {{.fd = rl->fd, .events = POLLIN},
		    {.fd = rl->out, .events = POLLOUT}};

		if (poll(p, 2, 0) > 0 && (p[0].revents & POLLIN) &&
		    !(p[1].revents & (POLLOUT | POLLERR))) {
			poll(&p[1], 1, -1);
			return 1;
		}
		if (p[1].revents & POLLERR) {
			rl->out_dead = true;
			return 1;
		}
		return 0;
	}
	if (t == -1 && errno == EINTR)
		return 1;
	if (t == -1) {
		/* EPIPE: our reader is gone; anything else: not teeable */
		if (errno == EPIPE)
			rl->out_dead = true;
		else
			rl->tee = false;
		return 1;
	}
	if (t == 0) {
		/* EOF, or a writer gone with nothing left */
		char c;
		ssize_t n = read(rl->fd, &c, 1);

		if (n == 1) { /* raced: a byte after all */
			write_all(rl, &c, 1);
			kb_ring_add(&rl->ring, &c, 1);
			*rl->bytes += 1;
			return 1;
		}
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			return 0;
		relay_close(rl);
		return 0;
	}
	*rl->bytes += (unsigned long long)t;
	if ((size_t)t > KB_TAIL) {
		size_t skip = (size_t)t - KB_TAIL;

		while (skip > 0) {
			ssize_t k =
			    splice(rl->fd, NULL, rl->devnull, NULL, skip, 0);

			if (k <= 0 && errno != EINTR)
				return -1;
			if (k > 0)
				skip -= (size_t)k;
		}
		t = KB_TAIL;
	}
	for (size_t got = 0; got < (size_t)t;) {
		ssize_t k = read(rl->fd, buf + got, (size_t)t - got);

		if (k <= 0 && errno != EINTR)
			return -1;
		if (k > 0)
			got += (size_t)k;
	}
	kb_ring_add(&rl->ring, buf, (size_t)t);
	return 1;
}

/* Moves what is there now; closes the relay at end of stream. A bounded
 * number of rounds, so that signals are still seen under a flood. */
static void
relay_some(struct relay *rl)
{
	static char buf[RELAY_CHUNK];

	for (int round = 0; round < 64 && rl->fd != -1; round++) {
		ssize_t n;

		if (relay_dead(rl))
			return;
		if (rl->tee && !rl->out_dead) {
			int k = relay_tee(rl);

			if (k == -1) {
				relay_close(rl);
				return;
			}
			if (k == 0)
				return;
			continue;
		}
		n = read(rl->fd, buf, sizeof(buf));
		if (n > 0) {
			write_all(rl, buf, (size_t)n);
			kb_ring_add(&rl->ring, buf, (size_t)n);
			*rl->bytes += (unsigned long long)n;
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return;
		/* 0: every writer is gone; EIO: a pty whose slave closed */
		relay_close(rl);
	}
}

/*
 * The command's fd 1, when our stdout is a pipe or a socket (an agent's,
 * a CI log's): a pipe, relayed byte for byte and its tail kept, so that a
 * denial a tool reports on stdout is seen. A terminal is left to the
 * command (a pipe would change what it prints), and so are a regular file
 * (its tail is read back after the run: rl->fd stays -1 and *file_at is
 * where the run's output starts) and a device (/dev/null). -1 for none.
 */
static int
open_out_relay(struct relay *rl, struct kb_run *r, off_t *file_at)
{
	struct stat st;
	int p[2];

	rl->fd = rl->devnull = -1;
	rl->out = 1;
	rl->ring.buf = r->out_tail;
	rl->ring_len = &r->out_tail_len;
	rl->bytes = &r->stdout_bytes;
	*file_at = -1;
	if (fstat(1, &st) == -1 || isatty(1))
		return -1;
	if (S_ISREG(st.st_mode)) {
		*file_at = lseek(1, 0, SEEK_CUR);
		r->stdout_read = *file_at != -1;
		return -1;
	}
	if (!S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode))
		return -1;
	if (pipe2(p, O_CLOEXEC) == -1)
		return -1;
	fcntl(p[0], F_SETPIPE_SZ, RELAY_PIPE_SIZE);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	rl->fd = p[0];
	if (S_ISFIFO(st.st_mode) &&
	    (rl->devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) != -1) {
		rl->tee = true;
		/* a tee moves at most what our pipe holds: a larger one keeps
		 * the tail's copy a small part of the stream (the size the
		 * reader sees grows; nothing else changes for it) */
		if (fcntl(1, F_GETPIPE_SZ) < RELAY_PIPE_SIZE)
			fcntl(1, F_SETPIPE_SZ, RELAY_PIPE_SIZE);
	}
	r->stdout_read = true;
	return p[1];
}

/* A regular file as stdout: the tail of what the run appended, read back
 * (the file is ours to read: we opened it for the command) */
static void
file_tail(struct kb_run *r, off_t from)
{
	off_t end = lseek(1, 0, SEEK_CUR), at;
	struct stat st, st1;
	ssize_t n;
	int fd;

	if (from < 0 || end <= from)
		return;
	r->stdout_bytes = (unsigned long long)(end - from);
	at = end - from > (off_t)KB_TAIL ? end - (off_t)KB_TAIL : from;
	/* fd 1 is write-only as a shell opens it: the same file again, for
	 * reading (when its mode lets us) */
	if ((fd = open("/proc/self/fd/1",
		 O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)) == -1)
		return;
	if (fstat(fd, &st) == 0 && fstat(1, &st1) == 0 &&
	    st.st_dev == st1.st_dev && st.st_ino == st1.st_ino) {
		n = pread(fd, r->out_tail, (size_t)(end - at), at);
		r->out_tail_len = n > 0 ? (size_t)n : 0;
	}
	close(fd);
}

/*
 * The command's fd 2. A pseudo-terminal when our stderr is a terminal (so
 * colours and progress bars still see one), with output post-processing
 * off so that its bytes reach the real terminal unchanged; a pipe
 * otherwise, enlarged to cut the number of wake-ups.
 */
static int
open_relay(struct relay *rl, struct kb_run *r, int *child_end)
{
	int p[2];

	rl->fd = rl->devnull = -1;
	rl->out = 2;
	rl->ring.buf = r->tail;
	rl->ring_len = &r->tail_len;
	rl->bytes = &r->stderr_bytes;
	if (isatty(2)) {
		char name[128];
		struct termios t;
		struct winsize ws;
		int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC), sl;

		if (m == -1 || grantpt(m) == -1 || unlockpt(m) == -1 ||
		    ptsname_r(m, name, sizeof(name)) != 0 ||
		    (sl = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)) == -1) {
			if (m != -1)
				close(m);
			return -1;
		}
		if (tcgetattr(2, &t) == 0) {
			t.c_oflag &= ~(tcflag_t)OPOST;
			tcsetattr(sl, TCSANOW, &t);
		}
		if (ioctl(2, TIOCGWINSZ, &ws) == 0)
			ioctl(sl, TIOCSWINSZ, &ws);
		rl->fd = m;
		rl->pty = true;
		*child_end = sl;
	} else {
		if (pipe2(p, O_CLOEXEC) == -1)
			return -1;
		fcntl(p[0], F_SETPIPE_SZ, RELAY_PIPE_SIZE);
		rl->fd = p[0];
		*child_end = p[1];
	}
	fcntl(rl->fd, F_SETFL, O_NONBLOCK);
	return 0;
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
 * calls on its own stack before execve. Kept apart from kb_run() so that no
 * caller local lives across the vfork. */
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

int
kb_run(const struct kb_plan *pl, const struct kb_stopper *stop,
    struct kb_run *r, struct kb_err *e)
{
	int status_p[2] = {-1, -1}, err_p[2] = {-1, -1}, go_p[2] = {-1, -1};
	int ov_sock = -1, un[2] = {-1, -1}, notify = -1, px[2] = {-1, -1};
	struct kb_sup *sup = NULL;
	struct kb_meta *meta = NULL;
	struct kb_proxy *proxy = NULL;
	pid_t ov_pid = -1;
	int seccomp_fd, realerr, empty, sigfd, base = 32, maxfd, tfd = -1;
	int envfd = -1;
	struct relay rl = {0}, ro = {0};
	int realout = -1;
	off_t out_file_at = -1;
	struct watch w = {.fd = -1};
	struct fds f;
	unsigned char stbuf[16];
	size_t stlen = 0, errlen = 0;
	sigset_t mask, oldmask;
	struct rlimit lim, orig_nofile;
	bool raised = false;
	unsigned pending = 0;
	bool reaped = false, was_started = false, have_status = false;
	int ksock = -1, cmd_status = 0;
	pid_t pid, self = getpid();

	/* not the 64 KiB tail: zeroing it would fault in 16 pages per start */
	memset(r, 0, offsetof(struct kb_run, tail));
	r->tail_len = 0;
	r->stderr_bytes = 0;
	for (size_t i = 0; i < pl->nkeep; i++)
		if (pl->keep_fd[i] >= base)
			base = pl->keep_fd[i] + 1;
	/* the lifted descriptors must not land where the bind sources go */
	if (pl->pass_base + (int)pl->npass > base)
		base = pl->pass_base + (int)pl->npass;
	if (getrlimit(RLIMIT_NOFILE, &orig_nofile) == 0 &&
	    orig_nofile.rlim_cur < (rlim_t)base + 64) {
		struct rlimit more = orig_nofile;

		more.rlim_cur = (rlim_t)base + 64;
		if (more.rlim_cur > more.rlim_max ||
		    setrlimit(RLIMIT_NOFILE, &more) == -1)
			return kb_err_set(e,
			    "%zu guarded paths need %d "
			    "descriptors, more than the limit (ulimit -Hn) "
			    "allows; raise it or use a narrower workspace",
			    pl->npass, base + 64);
		raised = true;
	}
	maxfd = getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < 65536
		    ? (int)lim.rlim_cur
		    : 65536;
	landlock_run = pl->backend == KB_BACKEND_LANDLOCK;
	if ((seccomp_fd = kb_seccomp_fd_variant(pl->seccomp_variant, e)) == -1)
		return -1;
	if (pl->empty_fd == -1)
		empty = open("/dev/null", O_RDONLY | O_CLOEXEC);
	else
		empty = memfd_create("kinbox-empty", MFD_CLOEXEC);
	if (empty == -1)
		return kb_err_set(e, "memfd_create: %s", strerror(errno));
	if (pipe2(status_p, O_CLOEXEC) == -1 || pipe2(err_p, O_CLOEXEC) == -1 ||
	    (pl->go_fd != -1 &&
		socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, go_p) == -1))
		return kb_err_set(e, "pipe: %s", strerror(errno));
	seccomp_fd = lift(seccomp_fd, base);
	if (pl->go_fd != -1 && (go_p[0] = lift(go_p[0], base)) == -1)
		return kb_err_set(
		    e, "cannot arrange descriptors: %s", strerror(errno));
	status_p[1] = lift(status_p[1], base);
	err_p[1] = lift(err_p[1], base);
	empty = lift(empty, base);
	if (open_relay(&rl, r, &realerr) == -1)
		return kb_err_set(
		    e, "cannot set up the stderr relay: %s", strerror(errno));
	realerr = lift(realerr, base);
	if ((realout = open_out_relay(&ro, r, &out_file_at)) != -1 &&
	    (realout = lift(realout, base)) == -1)
		return kb_err_set(
		    e, "cannot arrange descriptors: %s", strerror(errno));
	if (seccomp_fd == -1 || status_p[1] == -1 || err_p[1] == -1 ||
	    realerr == -1 || empty == -1)
		return kb_err_set(
		    e, "cannot arrange descriptors: %s", strerror(errno));
	if (pl->env_fd != -1 && ((envfd = kb_env_memfd(pl->envp.v)) == -1 ||
				    (envfd = lift(envfd, base)) == -1))
		return kb_err_set(e,
		    "cannot pass the command's environment: %s",
		    strerror(errno));
	/* the supervisor's: a seqpacket pair, one message, one listener */
	if (pl->unotify_fd != -1) {
		if ((notify = kb_seccomp_fd_variant(
			 pl->meta ? KB_SECCOMP_META : KB_SECCOMP_NOTIFY, e)) ==
		    -1)
			return -1;
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, un) ==
		    -1)
			return kb_err_set(e, "socketpair: %s", strerror(errno));
		notify = lift(notify, base);
		un[1] = lift(un[1], base);
		if (notify == -1 || un[1] == -1)
			return kb_err_set(e, "cannot arrange descriptors: %s",
			    strerror(errno));
	}
	/* the egress proxy's: the listener made inside, one message */
	if (pl->proxy_fd != -1) {
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, px) ==
		    -1)
			return kb_err_set(e, "socketpair: %s", strerror(errno));
		if ((px[1] = lift(px[1], base)) == -1)
			return kb_err_set(e, "cannot arrange descriptors: %s",
			    strerror(errno));
	}

	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	for (size_t i = 0; i < nitems(relayed); i++)
		sigaddset(&mask, relayed[i]);
	if (stop != NULL)
		sigaddset(&mask, stop->sig);
	sigprocmask(SIG_BLOCK, &mask, &oldmask);
	sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sigfd == -1)
		return kb_err_set(e, "signalfd: %s", strerror(errno));
	if (stop != NULL && stop->arm != NULL &&
	    stop->arm(stop->ctx, e) == -1) {
		/* a `sig` already sent is dropped, not its default action */
		signal(stop->sig, SIG_IGN);
		close(sigfd);
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
		return -1;
	}

	f = (struct fds){seccomp_fd, status_p[1], err_p[1], realerr, realout,
	    empty, go_p[0], notify, un[1], px[1], envfd,
	    raised ? &orig_nofile : NULL, landlock_run ? getpgrp() : 0};
	/* the keeper is the run's subreaper; kinbox is one too, in case the
	 * keeper is killed from outside: then what it left is re-parented to
	 * kinbox, which kills it (kb_tree_kill) */
	if (landlock_run && prctl(PR_SET_CHILD_SUBREAPER, 1) == -1)
		return kb_err_set(e, "cannot become the run's subreaper: %s",
		    strerror(errno));
	/* --timeout: from the start of the backend, setup included */
	if (pl->timeout > 0 && ((tfd = timerfd_create(CLOCK_MONOTONIC,
				     TFD_CLOEXEC | TFD_NONBLOCK)) == -1 ||
				   !arm_timer(tfd, pl->timeout)))
		return kb_err_set(e, "timerfd: %s", strerror(errno));
	keeper_cmd = 0;
	if (landlock_run) {
		/* a fork, not an exec: the keeper is kinbox's code */
		if ((pid = kb_keeper_fork(&ksock)) == 0)
			kb_keeper_run(ksock,
			    spawn_backend(pl, getpid(), &oldmask, &f, maxfd),
			    hold_fd);
	} else {
		pid = spawn_backend(pl, self, &oldmask, &f, maxfd);
	}
	if (pid == -1)
		return kb_err_set(e, "%s: %s", landlock_run ? "fork" : "vfork",
		    strerror(errno));
	close(seccomp_fd);
	if (envfd != -1)
		close(envfd);
	close(status_p[1]);
	close(err_p[1]);
	close(realerr);
	if (realout != -1)
		close(realout);
	close(empty);
	if (go_p[0] != -1)
		close(go_p[0]);
	if (un[1] != -1) {
		close(un[1]);
		close(notify);
		fcntl(un[0], F_SETFL, O_NONBLOCK);
	}
	if (px[1] != -1) {
		close(px[1]);
		px[1] = -1;
	}
	/* forked now, while bwrap sets up; it gives the go */
	if (kb_plan_mounts(pl)) {
		if ((ov_sock = kb_mounter_start(pl, go_p[1], &ov_pid)) == -1)
			snprintf(r->setup_fail, sizeof(r->setup_fail),
			    "cannot start kinbox's mounter: %s",
			    strerror(errno));
		close(go_p[1]);
		go_p[1] = -1;
	}
	/* kinbox itself must not die writing to a closed stderr */
	signal(SIGPIPE, SIG_IGN);
	fcntl(status_p[0], F_SETFL, O_NONBLOCK);
	fcntl(err_p[0], F_SETFL, O_NONBLOCK);

	for (;;) {
		struct pollfd pfd[11] = {
		    {.fd = sigfd, .events = POLLIN},
		    {.fd = status_p[0], .events = POLLIN},
		    {.fd = err_p[0], .events = POLLIN},
		    {.fd = rl.fd, .events = POLLIN},
		    {.fd = reaped ? -1 : w.fd, .events = POLLPRI},
		    {.fd = un[0], .events = POLLIN},
		    {.fd = px[0], .events = POLLIN},
		    {.fd = reaped ? -1 : tfd, .events = POLLIN},
		    {.fd = ksock, .events = POLLIN},
		    {.fd = ro.fd, .events = POLLIN},
		    {.fd = follow.fd, .events = POLLIN},
		};
		int n = poll(pfd, 11, reaped ? 1000 : -1);

		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* reaped and the pipes stay quiet: done */
		if (pfd[8].revents)
			keeper_said(&ksock, &cmd_status, &have_status);
		if (pfd[10].revents & POLLIN)
			follow.ready(follow.ctx);
		else if (pfd[10].revents)
			follow.fd = -1; /* broken: no more to read */
		if (pfd[1].revents) {
			drain_status(status_p[0], r, stbuf, &stlen);
			if (pfd[1].revents & (POLLHUP | POLLERR) &&
			    !(pfd[1].revents & POLLIN)) {
				close(status_p[0]);
				status_p[0] = -1;
			}
		}
		if (r->started && !was_started) {
			was_started = true;
			/* kinbox-exec waits for its go (from here, or from
			 * kinbox's mounter); an EOF instead stops it
			 * before the command */
			if (pl->go_fd != -1) {
				if (r->setup_fail[0] == '\0' &&
				    r->revoked[0] == '\0' &&
				    go_inside(pl, pid, &w, ov_sock, r) &&
				    go_p[1] != -1 &&
				    write(go_p[1], "G", 1) != 1)
					snprintf(r->setup_fail,
					    sizeof(r->setup_fail),
					    "cannot start the command: %s",
					    strerror(errno));
				if (go_p[1] != -1)
					close(go_p[1]);
				go_p[1] = -1;
				if (ov_sock != -1)
					close(ov_sock);
				ov_sock = -1;
			}
			if (errlen > 0 && write(2, r->setup_err, errlen) == -1)
				errlen = 0;
		}
		/* under landlock also once the keeper said which is the
		 * command */
		if (pending != 0 && r->started &&
		    (!landlock_run || keeper_cmd > 0)) {
			for (int s = 1; s < 32; s++)
				if (pending & (1U << s))
					forward(pid, s);
			pending = 0;
		}
		if (pfd[2].revents) {
			drain_err(err_p[0], r, &errlen);
			if (pfd[2].revents & (POLLHUP | POLLERR) &&
			    !(pfd[2].revents & POLLIN)) {
				close(err_p[0]);
				err_p[0] = -1;
			}
		}
		if (pfd[3].revents)
			relay_some(&rl);
		if (pfd[9].revents)
			relay_some(&ro);
		if (pfd[5].revents && pl->meta) {
			int lfd = serve_meta(un[0], &meta, pid, r);

			if (lfd != -1 || errno != EAGAIN) {
				close(un[0]);
				un[0] = -1;
			}
		} else if (pfd[5].revents) {
			struct kb_sup_hello hello;
			int lfd = kb_sup_recv(un[0], &hello);

			/* EOF: kinbox-exec ended before its command (it
			 * says why on the status pipe) */
			if (lfd != -1)
				sup = kb_sup_start(lfd, &hello, pl->granted,
				    pl->ngranted, pl->check_abstract);
			if (lfd != -1 && sup == NULL &&
			    r->setup_fail[0] == '\0') {
				/* its connects would wait forever */
				snprintf(r->setup_fail, sizeof(r->setup_fail),
				    "cannot start the unix-socket "
				    "supervisor: %s",
				    strerror(errno));
				stop_sandbox(pid);
			} else if (lfd == -1 && errno == EPROTO) {
				snprintf(r->setup_fail, sizeof(r->setup_fail),
				    "the sandbox sent a malformed listener "
				    "message");
				stop_sandbox(pid);
			}
			if (lfd != -1 || errno != EAGAIN) {
				close(un[0]);
				un[0] = -1;
			}
		}
		if (pfd[6].revents) {
			int lfd = kb_proxy_recv(px[0]);

			if (lfd != -1 &&
			    (proxy = kb_proxy_start(
				 lfd, pl->hosts, pl->nhosts)) == NULL &&
			    r->setup_fail[0] == '\0') {
				snprintf(r->setup_fail, sizeof(r->setup_fail),
				    "cannot start the egress proxy: %s",
				    strerror(errno));
				stop_sandbox(pid);
			} else if (lfd == -1 && errno == EPROTO) {
				snprintf(r->setup_fail, sizeof(r->setup_fail),
				    "the sandbox sent a malformed proxy "
				    "listener");
				stop_sandbox(pid);
			}
			if (lfd != -1 || errno != EAGAIN) {
				close(px[0]);
				px[0] = -1;
			}
		}
		if (pfd[7].revents & POLLIN) {
			unsigned long long ticks;

			/* the timeout: SIGTERM to all, SIGKILL after
			 * --kill-after; before the command started there is
			 * nothing of it to end cleanly */
			if (read(tfd, &ticks, sizeof(ticks)) ==
			    (ssize_t)sizeof(ticks)) {
				bool first = !r->timed_out;

				r->timed_out = true;
				if (first && r->started && pl->kill_after > 0 &&
				    arm_timer(tfd, pl->kill_after))
					term_sandbox(pid);
				else
					stop_sandbox(pid);
			}
		}
		if (pfd[4].revents && r->broken[0] == '\0') {
			const char *hit = watch_hit(&w, pl, r);

			/* the mount covering it is gone in the sandbox too:
			 * stop everything rather than run on unprotected */
			if (hit != NULL) {
				snprintf(
				    r->broken, sizeof(r->broken), "%s", hit);
				kill(pid, SIGKILL);
			}
		}
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(sigfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGCHLD) {
					if (!reaped && waitpid(pid, &r->wstatus,
							   WNOHANG) == pid) {
						reaped = true;
						if (landlock_run)
							keeper_gone(&ksock, r,
							    cmd_status,
							    have_status, self);
					}
					continue;
				}
				/* before the relay: it is kinbox's own, and
				 * no bit of `pending` */
				if (stop != NULL &&
				    (int)si.ssi_signo == stop->sig) {
					char why[sizeof(r->revoked)];

					if (!reaped && r->revoked[0] == '\0' &&
					    stop->revoked(
						stop->ctx, why, sizeof(why))) {
						memcpy(r->revoked, why,
						    sizeof(why));
						stop_sandbox(pid);
					}
					continue;
				}
				if (si.ssi_signo == SIGWINCH && rl.pty &&
				    rl.fd != -1) {
					struct winsize ws;

					if (ioctl(2, TIOCGWINSZ, &ws) == 0)
						ioctl(rl.fd, TIOCSWINSZ, &ws);
				}
				/* A terminal already sent it to the whole
				 * foreground group, the command included. */
				if (si.ssi_code == SI_KERNEL)
					continue;
				if (r->started &&
				    (!landlock_run || keeper_cmd > 0))
					forward(pid, (int)si.ssi_signo);
				else
					pending |= 1U << si.ssi_signo;
			}
		}
		if (reaped && status_p[0] == -1 && err_p[0] == -1 &&
		    rl.fd == -1 && ro.fd == -1)
			break;
	}
	if (!reaped) {
		waitpid(pid, &r->wstatus, 0);
		if (landlock_run)
			keeper_gone(&ksock, r, cmd_status, have_status, self);
	}
	if (ksock != -1)
		close(ksock);
	if (tfd != -1)
		close(tfd);
	kb_sup_stop(sup, &r->sock);
	kb_meta_stop(meta, &r->meta);
	kb_proxy_stop(proxy, &r->egress);
	if (un[0] != -1)
		close(un[0]);
	if (px[0] != -1)
		close(px[0]);
	if (landlock_run) {
		kb_tree_kill(self);
		prctl(PR_SET_CHILD_SUBREAPER, 0);
	}
	if (go_p[1] != -1)
		close(go_p[1]);
	if (ov_sock != -1)
		close(ov_sock);
	if (ov_pid > 0)
		while (waitpid(ov_pid, NULL, 0) == -1 && errno == EINTR)
			;
	if (status_p[0] != -1)
		close(status_p[0]);
	if (err_p[0] != -1)
		close(err_p[0]);
	if (rl.fd != -1)
		relay_some(&rl);
	if (rl.fd != -1)
		close(rl.fd);
	ring_finish(&rl);
	if (ro.fd != -1)
		relay_some(&ro);
	relay_close(&ro);
	ring_finish(&ro);
	if (out_file_at >= 0)
		file_tail(r, out_file_at);
	watch_close(&w);
	close(sigfd);
	/* the run is over: a late `sig` must not kill kinbox (the default
	 * action of a real-time signal) before it reports */
	if (stop != NULL)
		signal(stop->sig, SIG_IGN);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);

	if (r->timed_out)
		r->exit_code = KB_EXIT_TIMEOUT;
	else if (WIFSIGNALED(r->wstatus))
		r->exit_code = KB_EXIT_SIGNAL + WTERMSIG(r->wstatus);
	else if (!r->started || r->confine_errno != 0 || r->check_failed != 0 ||
		 r->proxy_errno != 0 || r->rlimit_errno != 0)
		r->exit_code = KB_EXIT_ERROR;
	else if (r->exec_errno != 0)
		r->exit_code =
		    r->exec_errno == ENOENT || r->exec_errno == ENOTDIR
			? KB_EXIT_NOTFOUND
			: KB_EXIT_NOEXEC;
	else
		r->exit_code = WEXITSTATUS(r->wstatus);
	return 0;
}
