/*
 * mediate/unotify.c — the unix-socket supervisor.
 *
 * A read-only bind mount does not stop connect() on a pathname unix
 * socket: without this, the command reaches every host service socket
 * kinbox does not know to mask (docker, podman, an editor's). kinbox-exec
 * loads a filter that turns every connect() into a seccomp user
 * notification and sends its listener here (SCM_RIGHTS); a thread answers
 * each one. The rule: a pathname connect succeeds only to a socket on a
 * mount that is the command's own (writable in this sandbox: the
 * workspace, a --write root, the private /tmp), or to a granted inode
 * (--ssh-agent, --allow-socket); anything else gets EACCES and is
 * remembered for the denial report, by the path kinbox resolved.
 *
 * Never SECCOMP_USER_NOTIF_FLAG_CONTINUE: the kernel would read the
 * address again after the decision, and a second thread of the command
 * can change it in between. Every connect is made here, on the command's
 * behalf:
 *   1. the address is copied once (process_vm_readv) and the notification
 *      checked to be still pending (so the pid is still the caller's);
 *   2. the command's socket is taken with pidfd_getfd (its options, its
 *      bind, its O_NONBLOCK stay: it is the same open file);
 *   3. a pathname is resolved in the sandbox's root (openat2
 *      RESOLVE_IN_ROOT from /proc/PID/root; a relative one from its
 *      cwd) to an O_PATH descriptor, no magic links (/proc/self/fd/N
 *      inside would name the command's descriptors by kinbox's table);
 *   4. that inode's mount id (STATX_MNT_ID_UNIQUE where the kernel has
 *      it: an id is never reused) or its dev/ino decides;
 *   5. the socket is connected to /proc/self/fd/N of that descriptor, so
 *      the inode checked is the inode connected, and the result (0,
 *      EINPROGRESS, ECONNREFUSED, ...) is the command's.
 * Other families (abstract, unnamed, inet) are connected the same way on
 * the copied address: the socket keeps the sandbox's network namespace
 * (with --net an abstract name only when the sandbox listens on it:
 * unotify-decide.c).
 *
 * The command is hostile and may make thousands of connects at once, so
 * one thread serves them all and never waits in a connect. A blocking
 * connect is made non-blocking (O_NONBLOCK set on the command's open file
 * for that call only); most are done at once. One that has to wait — a
 * unix listener whose backlog is full (EAGAIN: nothing done; tried again
 * every few to RETRY_MAX_MS milliseconds, and at once when another
 * connect to it got through, as the kernel's own wait tries again when
 * woken), a TCP handshake (EINPROGRESS: its POLLOUT, then a second
 * connect() for the result) — waits in a table of at most MAX_WAITING
 * connects, at most a quarter of them (MAX_PER_PEER) to one address, each
 * with the two descriptors it holds (the command's socket, the socket
 * file's O_PATH). Past those, a blocking connect that would have to wait
 * fails with EAGAIN at once, nothing done (an inet one before it starts a
 * handshake). The command's SO_SNDTIMEO still bounds its wait (then
 * EAGAIN, or EINPROGRESS for a handshake, as the kernel says). So no
 * connect is held up by the others of its run beyond the microseconds
 * each takes to serve, and kinbox's descriptors stay bounded whatever the
 * command does: kinbox raises its own RLIMIT_NOFILE soft limit (up to the
 * hard one) for the table, whose size it cuts to a quarter of what is
 * left when the hard limit is lower.
 *
 * The command may not make a listener of its own (seccomp() with
 * SECCOMP_FILTER_FLAG_NEW_LISTENER is refused by the connect() filter):
 * the newest filter's notification wins, and a supervisor of its own
 * answering CONTINUE would let a connect past this one.
 *
 * A Landlock domain the command enters itself (a sandbox inside the
 * sandbox) does not hold for the connects made here, outside it:
 * kinbox's own landlock backend, nested, refuses inet sockets by
 * seccomp instead (kb_sup_under_seccomp()), whose refusals come first.
 *
 * As root, this thread drops CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH and
 * CAP_FOWNER from its effective set (capabilities are per thread): the
 * connect has no more rights on the socket file than the sandboxed
 * command, which has none.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <netinet/in.h>

#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <linux/stat.h>

#include "../lib/fdpass.h"
#include "unotify-int.h"

#define TICK_MS      10  /* waiting callers looked at (gone, signalled) */
#define CHECK_MS     100 /* each of them, at least */
#define RETRY_MAX_MS 100 /* a full unix backlog tried again at least */

/* one connect that waits: the command's socket, the address to use */
struct job {
	uint64_t id;
	uint32_t pid;     /* the caller's thread */
	int sock;         /* ours, from pidfd_getfd */
	int opath;        /* the resolved socket file, or -1 */
	bool unix_full;   /* a unix backlog full: tried again by time */
	bool polling;     /* a handshake under way: its POLLOUT awaited */
	size_t slot;      /* its pollfd this round, or 0 */
	uint64_t peer;    /* the address, for MAX_PER_PEER */
	int64_t next;     /* ms: the next try (!polling) */
	int64_t deadline; /* ms: the command's SO_SNDTIMEO, or 0 */
	unsigned backoff; /* ms */
	/* with --net, an abstract name: the listener judged the sandbox's */
	uint32_t abs_ino;
	int type;
	socklen_t len;
	struct sockaddr_storage addr;
};

static int64_t
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* the DAC overrides out of this thread's effective set (root only) */
static void
drop_dac(void)
{
	struct {
		unsigned version;
		int pid;
	} hdr = {0x20080522, 0}; /* _LINUX_CAPABILITY_VERSION_3 */
	struct {
		unsigned effective, permitted, inheritable;
	} data[2];
	/* CAP_DAC_OVERRIDE 1, CAP_DAC_READ_SEARCH 2, CAP_FOWNER 3 */
	const unsigned drop = (1u << 1) | (1u << 2) | (1u << 3);

	if (syscall(SYS_capget, &hdr, data) == -1)
		return;
	if ((data[0].effective & drop) == 0)
		return;
	data[0].effective &= ~drop;
	syscall(SYS_capset, &hdr, data);
}

static void
respond(struct kb_sup *s, uint64_t id, int err)
{
	struct seccomp_notif_resp *resp =
	    calloc(1, s->sizes.seccomp_notif_resp);

	if (resp == NULL)
		return; /* the command's connect waits until it dies */
	resp->id = id;
	resp->error = err ? -err : 0;
	resp->val = 0;
	resp->flags = 0;
	/* ENOENT: the caller died or was interrupted meanwhile */
	while (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, resp) == -1 &&
	       errno == EINTR)
		;
	free(resp);
}

static void
count(struct kb_sup *s, unsigned long long *what)
{
	pthread_mutex_lock(&s->mu);
	(*what)++;
	pthread_mutex_unlock(&s->mu);
}

/*
 * The connect, not waiting: O_NONBLOCK on the command's open file for
 * this call only (its own, when it has it, as it is). 0 or the errno:
 * EAGAIN for a unix listener whose backlog is full (nothing done),
 * EINPROGRESS or EALREADY while a handshake is under way.
 */
static int
connect_now(struct job *j)
{
	int fl = fcntl(j->sock, F_GETFL), r, err;

	if (fl == -1)
		return errno;
	if (!(fl & O_NONBLOCK) &&
	    fcntl(j->sock, F_SETFL, fl | O_NONBLOCK) == -1)
		return errno;
	while (
	    (r = connect(j->sock, (struct sockaddr *)&j->addr, j->len)) == -1 &&
	    errno == EINTR)
		;
	err = r == 0 ? 0 : errno;
	if (!(fl & O_NONBLOCK))
		fcntl(j->sock, F_SETFL, fl);
	return err;
}

static void
job_close(struct job *j)
{
	close(j->sock);
	if (j->opath != -1)
		close(j->opath);
}

/* FNV-1a over n bytes, from h */
static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

/* Which peer the connect is to, for MAX_PER_PEER: the socket file's
 * inode, else the address (an inet one without its padding). */
static uint64_t
peer_of(const struct job *j)
{
	uint64_t h = fnv(0xcbf29ce484222325ULL, &j->addr.ss_family,
	    sizeof(j->addr.ss_family));
	struct stat st;

	if (j->opath != -1 && fstat(j->opath, &st) == 0) {
		h = fnv(h, &st.st_dev, sizeof(st.st_dev));
		return fnv(h, &st.st_ino, sizeof(st.st_ino));
	}
	if (j->addr.ss_family == AF_INET &&
	    j->len >= (socklen_t)sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const void *)&j->addr;

		h = fnv(h, &in->sin_port, sizeof(in->sin_port));
		return fnv(h, &in->sin_addr, sizeof(in->sin_addr));
	}
	if (j->addr.ss_family == AF_INET6 &&
	    j->len >= (socklen_t)sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const void *)&j->addr;

		h = fnv(h, &in6->sin6_port, sizeof(in6->sin6_port));
		return fnv(h, &in6->sin6_addr, sizeof(in6->sin6_addr));
	}
	return fnv(h, &j->addr, j->len);
}

/* Is there room for one more waiting connect to `peer`? */
static bool
room_for(const struct kb_sup *s, uint64_t peer)
{
	size_t same = 0;

	if (s->nwait >= s->max_wait)
		return false;
	for (size_t i = 0; i < s->nwait; i++)
		if (s->wait[i]->peer == peer)
			same++;
	return same < s->max_per_peer;
}

/* A connect refused for want of room: EAGAIN, nothing done. */
static void
refuse_busy(struct kb_sup *s, struct job *j)
{
	count(s, &s->rep.busy);
	respond(s, j->id, EAGAIN);
	job_close(j);
}

/* After the command's SO_SNDTIMEO: what the kernel says then */
static int
timed_out(const struct job *j)
{
	return j->unix_full ? EAGAIN : EINPROGRESS;
}

/*
 * With --net, before a waiting abstract connect is tried again (the
 * kernel looks the name up again on each try): is the name still the
 * sandbox's listener's? Else it is judged again, as a new connect.
 */
static bool
abstract_still_own(struct kb_sup *s, struct job *j)
{
	const struct sockaddr_un *un = (const void *)&j->addr;
	size_t n = j->len - offsetof(struct sockaddr_un, sun_path);
	uint32_t ino;

	if (j->abs_ino == 0)
		return true;
	if (sup_abstract_find(s->diag, &s->diag_seq, un->sun_path, n, j->type,
		j->abs_ino, &ino) == 1)
		return true;
	if (!sup_abstract_own(s, j->pid, un->sun_path, n, j->type, &ino))
		return false;
	j->abs_ino = ino;
	return true;
}

/*
 * The next try of a waiting connect: true when the caller was answered
 * (the job is done), false while it still waits.
 */
static bool
try_again(struct kb_sup *s, struct job *j, bool woken, int64_t now)
{
	int err;

	/* a handshake: the second connect's answer once POLLOUT came */
	if (j->polling && !woken)
		return false;
	if (!j->polling && !j->unix_full && !woken) {
		/* the pause after a POLLOUT that came early is over: the
		 * next one is awaited */
		j->polling = true;
		return false;
	}
	if (j->unix_full && !abstract_still_own(s, j)) {
		const struct sockaddr_un *un = (const void *)&j->addr;
		char text[512];

		sup_abstract_text(un->sun_path,
		    j->len - offsetof(struct sockaddr_un, sun_path), text,
		    sizeof(text));
		sup_note_denial(s, text, -1, EPERM);
		respond(s, j->id, EPERM);
		return true;
	}
	err = connect_now(j);
	if (j->unix_full && err == EAGAIN) {
		j->backoff = j->backoff >= RETRY_MAX_MS / 2 ? RETRY_MAX_MS
							    : j->backoff * 2;
		/* spread: connects that started together do not all try
		 * again together for the one place an accept makes */
		s->rng ^= s->rng << 13;
		s->rng ^= s->rng >> 7;
		s->rng ^= s->rng << 17;
		j->next = now + j->backoff / 2 + (int64_t)(s->rng % j->backoff);
		return false;
	}
	/* the listener accepts again: the next connect waiting for it
	 * tries at once */
	if (j->unix_full)
		for (size_t i = 0; i < s->nwait; i++)
			if (s->wait[i] != j && s->wait[i]->unix_full &&
			    s->wait[i]->peer == j->peer) {
				s->wait[i]->next = now;
				s->wait[i]->backoff = 1;
				break;
			}
	if (!j->unix_full && (err == EALREADY || err == EINPROGRESS)) {
		/* not done yet, whatever poll said: POLLOUT awaited again a
		 * little later, a little later each time */
		j->backoff = j->backoff >= RETRY_MAX_MS / 2 ? RETRY_MAX_MS
							    : j->backoff * 2;
		j->polling = false;
		j->next = now + j->backoff;
		return false;
	}
	/* connected meanwhile (another thread of the command waited on the
	 * same socket): as the kernel's, 0 for both */
	if (!j->unix_full && err == EISCONN)
		err = 0;
	respond(s, j->id, err);
	return true;
}

/* Drops waiting connect i (swapped with the last). */
static void
drop_job(struct kb_sup *s, size_t i)
{
	job_close(s->wait[i]);
	free(s->wait[i]);
	s->wait[i] = s->wait[--s->nwait];
}

/* Does thread `pid` have a signal pending that it does not block? */
static bool
signal_waits(uint32_t pid)
{
	unsigned long long pnd = 0, shd = 0, blk = 0;
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	if ((f = fopen(path, "re")) == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "SigPnd:", 7) == 0)
			pnd = strtoull(line + 7, NULL, 16);
		else if (strncmp(line, "ShdPnd:", 7) == 0)
			shd = strtoull(line + 7, NULL, 16);
		else if (strncmp(line, "SigBlk:", 7) == 0)
			blk = strtoull(line + 7, NULL, 16);
	}
	fclose(f);
	return ((pnd | shd) & ~blk) != 0;
}

/*
 * Every tick, waiting connects in turn, each every CHECK_MS at least (a
 * /proc read each): one whose caller is gone (killed) is dropped; one
 * whose caller has a signal waiting is told EINTR, and its handshake goes
 * on, as the kernel's own connect does after EINTR (the notification was
 * received, so the caller waits killably: a signal it handles, and a
 * fatal one behind it, would wait for the connect).
 */
static void
look_at_callers(struct kb_sup *s)
{
	size_t n = (s->nwait * TICK_MS + CHECK_MS - 1) / CHECK_MS;

	for (size_t k = 0; k < n && k < s->nwait; k++) {
		size_t i = s->turn++ % s->nwait;

		if (!sup_notif_valid(s, s->wait[i]->id)) {
			drop_job(s, i);
		} else if (signal_waits(s->wait[i]->pid)) {
			respond(s, s->wait[i]->id, EINTR);
			drop_job(s, i);
		}
	}
}

/*
 * The first try of a connect decided (j: the command's socket, the
 * address to connect, the socket file). A non-blocking socket's answer is
 * the command's; a blocking one's too when it is done at once, else it
 * waits in the table (a copy of j) or, without room, gets EAGAIN.
 */
static void
first_try(struct kb_sup *s, struct job *j)
{
	int fl = fcntl(j->sock, F_GETFL), fam = -1, err;
	socklen_t sl = sizeof(fam);
	struct timeval tv = {0, 0};
	struct job *w;

	if (fl != -1 && (fl & O_NONBLOCK)) {
		respond(s, j->id, connect_now(j));
		job_close(j);
		return;
	}
	if (getsockopt(j->sock, SOL_SOCKET, SO_DOMAIN, &fam, &sl) == -1)
		fam = -1;
	j->peer = peer_of(j);
	/* an inet connect that waited would have started its handshake:
	 * refused before, nothing done */
	if (fam != AF_UNIX && !room_for(s, j->peer)) {
		refuse_busy(s, j);
		return;
	}
	err = connect_now(j);
	j->unix_full = fam == AF_UNIX && err == EAGAIN;
	if (!j->unix_full && err != EINPROGRESS && err != EALREADY) {
		respond(s, j->id, err);
		job_close(j);
		return;
	}
	if (!room_for(s, j->peer) || (w = malloc(sizeof(*w))) == NULL) {
		refuse_busy(s, j);
		return;
	}
	*w = *j;
	w->polling = !w->unix_full;
	w->backoff = 1;
	w->next = now_ms() + w->backoff;
	sl = sizeof(tv);
	w->deadline = 0;
	if (getsockopt(w->sock, SOL_SOCKET, SO_SNDTIMEO, &tv, &sl) == 0 &&
	    (tv.tv_sec > 0 || tv.tv_usec > 0))
		w->deadline = now_ms() + (int64_t)tv.tv_sec * 1000 +
			      (tv.tv_usec + 999) / 1000;
	s->wait[s->nwait++] = w;
}

/* A descriptor of the caller's thread (its own table if it has one). */
static int
open_pidfd(pid_t pid)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, PIDFD_THREAD);

	if (fd == -1 && errno == EINVAL)
		fd = (int)syscall(SYS_pidfd_open, pid, 0);
	return fd;
}

static void
serve(struct kb_sup *s, const struct seccomp_notif *req)
{
	struct job j = {
	    .id = req->id, .pid = req->pid, .sock = -1, .opath = -1};
	int len = (int)req->data.args[2], pidfd, err;
	struct iovec local, remote;

	/* as the kernel's move_addr_to_kernel() */
	if (len < 0 || (size_t)len > sizeof(j.addr)) {
		respond(s, req->id, EINVAL);
		return;
	}
	local = (struct iovec){&j.addr, (size_t)len};
	remote =
	    (struct iovec){(void *)(uintptr_t)req->data.args[1], (size_t)len};
	if (len > 0 && process_vm_readv(req->pid, &local, 1, &remote, 1, 0) !=
			   (ssize_t)len) {
		err = errno;
		if (err == ESRCH)
			return; /* gone */
		if (err != EFAULT) {
			/* out of reach (not dumpable, ptrace refused):
			 * fail closed */
			count(s, &s->rep.failed);
			err = EACCES;
		}
		respond(s, req->id, err);
		return;
	}
	j.len = (socklen_t)len;
	/* the copy is the pending caller's: its pid was not reused */
	if (!sup_notif_valid(s, req->id))
		return;
	if ((pidfd = open_pidfd((pid_t)req->pid)) == -1) {
		if (errno != ESRCH)
			respond(s, req->id, EACCES);
		return;
	}
	if (!sup_notif_valid(s, req->id)) {
		close(pidfd);
		return;
	}
	j.sock =
	    (int)syscall(SYS_pidfd_getfd, pidfd, (int)req->data.args[0], 0);
	err = errno;
	if (j.sock == -1) {
		close(pidfd);
		if (err == EBADF) {
			respond(s, req->id, EBADF);
		} else if (err != ESRCH) {
			count(s, &s->rep.failed);
			respond(s, req->id, EACCES);
		}
		return;
	}
	count(s, &s->rep.connects);
	/* an abstract name: sun_path's first byte NUL, the name the rest of
	 * addrlen (the empty one too) */
	if (s->check_abstract && j.addr.ss_family == AF_UNIX &&
	    len > (int)offsetof(struct sockaddr_un, sun_path) &&
	    ((struct sockaddr_un *)&j.addr)->sun_path[0] == '\0') {
		struct sockaddr_un *un = (struct sockaddr_un *)&j.addr;
		size_t n = (size_t)len - offsetof(struct sockaddr_un, sun_path);
		socklen_t tl = sizeof(int);
		int type = -1;
		char text[512];

		/* the kernel's answer to a longer address */
		if (n > sizeof(un->sun_path)) {
			close(pidfd);
			close(j.sock);
			respond(s, req->id, EINVAL);
			return;
		}
		/* the kernel looks a name up among sockets of the
		 * connecting one's type */
		if (getsockopt(j.sock, SOL_SOCKET, SO_TYPE, &type, &tl) == -1)
			type = -1;
		if (!sup_abstract_own(
			s, req->pid, un->sun_path, n, type, &j.abs_ino)) {
			sup_abstract_text(un->sun_path, n, text, sizeof(text));
			sup_note_denial(s, text, -1, EPERM);
			close(pidfd);
			close(j.sock);
			respond(s, req->id, EPERM);
			return;
		}
		j.type = type;
	}
	if (!(len > (int)offsetof(struct sockaddr_un, sun_path) &&
		j.addr.ss_family == AF_UNIX &&
		((struct sockaddr_un *)&j.addr)->sun_path[0] != '\0'))
		close(pidfd);
	if (len > (int)offsetof(struct sockaddr_un, sun_path) &&
	    j.addr.ss_family == AF_UNIX &&
	    ((struct sockaddr_un *)&j.addr)->sun_path[0] != '\0') {
		struct sockaddr_un *un = (struct sockaddr_un *)&j.addr;
		size_t n = (size_t)len - offsetof(struct sockaddr_un, sun_path);
		char named[sizeof(un->sun_path) + 1];

		/* the kernel's reading: up to the first NUL within len */
		if (n > sizeof(un->sun_path))
			n = sizeof(un->sun_path);
		memcpy(named, un->sun_path, n);
		named[n] = '\0';
		err = sup_decide_path(s, req, pidfd, named, &j.opath);
		close(pidfd);
		if (err != 0) {
			close(j.sock);
			if (err != ESRCH)
				respond(s, req->id, err);
			return;
		}
		memset(un->sun_path, 0, sizeof(un->sun_path));
		snprintf(un->sun_path, sizeof(un->sun_path), "/proc/self/fd/%d",
		    j.opath);
		j.len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				    strlen(un->sun_path) + 1);
	}
	first_try(s, &j);
}

/*
 * One round: the waiting connects whose time or POLLOUT came, the
 * callers every tick, then one new notification. Returns false when the
 * supervisor is to stop.
 */
static bool
round_once(struct kb_sup *s, struct seccomp_notif *req, struct pollfd *p,
    int64_t *tick)
{
	size_t np = 2;
	int64_t now = now_ms(), wake = -1;
	int n;

	p[0] = (struct pollfd){.fd = s->listener, .events = POLLIN};
	p[1] = (struct pollfd){.fd = s->stop[0], .events = POLLIN};
	for (size_t i = 0; i < s->nwait; i++) {
		struct job *j = s->wait[i];
		int64_t at = j->polling ? -1 : j->next;

		j->slot = 0;
		if (j->polling) {
			j->slot = np;
			p[np++] =
			    (struct pollfd){.fd = j->sock, .events = POLLOUT};
		}
		if (j->deadline != 0 && (at == -1 || j->deadline < at))
			at = j->deadline;
		if (at != -1 && (wake == -1 || at < wake))
			wake = at;
	}
	if (s->nwait > 0 && (wake == -1 || *tick < wake))
		wake = *tick;
	n = poll(p, (nfds_t)np,
	    wake == -1 ? -1 : (int)(wake > now ? wake - now : 0));
	if (n == -1)
		return errno == EINTR;
	if (p[1].revents)
		return false;
	/* every process of the filter is gone: a listener in POLLHUP
	 * would spin */
	if (p[0].revents & (POLLHUP | POLLERR | POLLNVAL) &&
	    !(p[0].revents & POLLIN))
		return false;
	now = now_ms();
	for (size_t i = 0; i < s->nwait;) {
		struct job *j = s->wait[i];
		bool woken = j->slot != 0 && p[j->slot].revents != 0,
		     done = false;

		if (woken || (!j->polling && j->next <= now))
			done = try_again(s, j, woken, now);
		if (!done && j->deadline != 0 && j->deadline <= now) {
			respond(s, j->id, timed_out(j));
			done = true;
		}
		if (done)
			drop_job(s, i);
		else
			i++;
	}
	if (s->nwait > 0 && now >= *tick) {
		look_at_callers(s);
		*tick = now + TICK_MS;
	} else if (s->nwait == 0) {
		*tick = now + TICK_MS;
	}
	if (!(p[0].revents & POLLIN))
		return true;
	memset(req, 0, s->sizes.seccomp_notif);
	if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_RECV, req) == -1)
		/* ENOENT: the caller was interrupted before we got it */
		return errno == EINTR || errno == ENOENT;
	serve(s, req);
	return true;
}

static void *
dispatch(void *arg)
{
	struct kb_sup *s = arg;
	struct seccomp_notif *req = calloc(1, s->sizes.seccomp_notif);
	struct pollfd *p = calloc(2 + s->max_wait, sizeof(*p));
	int64_t tick = now_ms() + TICK_MS;

	if (geteuid() == 0)
		drop_dac();
	while (req != NULL && p != NULL && round_once(s, req, p, &tick))
		;
	/* the sandbox is gone: nobody waits for these any more */
	while (s->nwait > 0)
		drop_job(s, 0);
	free(p);
	free(req);
	return NULL;
}

/*
 * The table's size: MAX_WAITING connects of two descriptors each, with
 * RLIMIT_NOFILE's soft limit raised (up to the hard one) to leave as many
 * again to the rest of kinbox; a quarter of what is left under a lower
 * hard limit.
 */
static size_t
table_size(void)
{
	struct rlimit rl;
	size_t open_now = 0, left;
	DIR *d = opendir("/proc/self/fd");

	if (d != NULL) {
		while (readdir(d) != NULL)
			open_now++;
		closedir(d);
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		return 0;
	if (rl.rlim_cur < open_now + 4 * MAX_WAITING &&
	    rl.rlim_cur < rl.rlim_max) {
		rlim_t want = open_now + 4 * MAX_WAITING;

		rl.rlim_cur = want < rl.rlim_max ? want : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	left = rl.rlim_cur > open_now ? (size_t)(rl.rlim_cur - open_now) : 0;
	return left / 4 < MAX_WAITING ? left / 4 : MAX_WAITING;
}

struct kb_sup *
kb_sup_start(int listener, const struct kb_sup_hello *hello,
    const struct kb_sockid *granted, size_t ngranted, bool check_abstract)
{
	struct kb_sup *s = calloc(1, sizeof(*s));
	sigset_t all, old;
	int rc;

	if (s == NULL || hello->nown > KB_SUP_MAX_OWN) {
		free(s);
		close(listener);
		errno = EINVAL;
		return NULL;
	}
	s->listener = listener;
	s->stop[0] = s->stop[1] = -1;
	s->unique = hello->unique != 0;
	s->check_abstract = check_abstract;
	/* none: every abstract name is refused (fail closed) */
	s->diag = check_abstract ? sup_diag_open() : -1;
	s->nown = hello->nown;
	memcpy(s->own, hello->own, sizeof(s->own[0]) * s->nown);
	s->max_wait = table_size();
	s->rng = 0x9e3779b97f4a7c15ULL ^ (uint64_t)now_ms();
	/* a quarter of the table to one address: the others still wait */
	s->max_per_peer = s->max_wait / 4 > 0 ? s->max_wait / 4 : 1;
	if (s->max_per_peer > MAX_PER_PEER)
		s->max_per_peer = MAX_PER_PEER;
	if (s->max_wait > 0 &&
	    (s->wait = calloc(s->max_wait, sizeof(*s->wait))) == NULL)
		goto fail;
	if (ngranted > 0) {
		s->granted = calloc(ngranted, sizeof(*granted));
		if (s->granted == NULL)
			goto fail;
		memcpy(s->granted, granted, ngranted * sizeof(*granted));
		s->ngranted = ngranted;
	}
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &s->sizes) == -1)
		goto fail;
	/* the round trip without the scheduler's detour (Linux 6.6) */
	ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
	    SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	if (pipe2(s->stop, O_CLOEXEC) == -1)
		goto fail;
	pthread_mutex_init(&s->mu, NULL);
	/* every signal blocked on the thread: they are kinbox's to read */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(&s->thread, NULL, dispatch, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		pthread_mutex_destroy(&s->mu);
		errno = rc;
		goto fail;
	}
	return s;
fail:
	rc = errno;
	close(listener);
	if (s->stop[0] != -1) {
		close(s->stop[0]);
		close(s->stop[1]);
	}
	if (s->diag != -1)
		close(s->diag);
	free(s->wait);
	free(s->granted);
	free(s);
	errno = rc;
	return NULL;
}

void
kb_sup_stop(struct kb_sup *s, struct kb_sup_report *out)
{
	if (s == NULL)
		return;
	close(s->stop[1]);
	pthread_join(s->thread, NULL);
	close(s->stop[0]);
	s->rep.max_wait = s->max_wait;
	s->rep.max_per_peer = s->max_per_peer;
	if (out != NULL)
		*out = s->rep;
	close(s->listener);
	if (s->diag != -1)
		close(s->diag);
	pthread_mutex_destroy(&s->mu);
	free(s->wait);
	free(s->granted);
	free(s);
}

int
kb_sup_recv(int sock, struct kb_sup_hello *hello)
{
	/* a byte more than a hello: a longer message is refused, not cut */
	unsigned char buf[sizeof(*hello) + 1];
	size_t nfd = 0;
	ssize_t n;
	int fd = -1;

	memset(hello, 0, sizeof(*hello));
	n = kb_fd_recv(sock, buf, sizeof(buf), &fd, 1, &nfd);
	if (n == -1) {
		if (errno == EBADMSG) /* more than one descriptor */
			errno = EPROTO;
		return -1;
	}
	if (n == 0 && nfd == 0) {
		errno = ENODATA; /* kinbox-exec ended first: it says why */
		return -1;
	}
	if ((size_t)n == sizeof(*hello))
		memcpy(hello, buf, sizeof(*hello));
	if (nfd != 1 || (size_t)n != sizeof(*hello) ||
	    hello->magic != KB_SUP_MAGIC || hello->nown > KB_SUP_MAX_OWN) {
		if (nfd == 1)
			close(fd);
		errno = EPROTO;
		return -1;
	}
	return fd;
}
