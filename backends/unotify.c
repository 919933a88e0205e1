/*
 * backends/unotify.c — the unix-socket supervisor.
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
 * the copied address: the socket keeps the sandbox's network namespace.
 * A blocking connect can take long (a TCP handshake, a full backlog), so
 * it runs on a thread of its own and the others go on being answered.
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <linux/stat.h>

#include "unotify-int.h"

#define MAX_WORKERS 64 /* blocking connects in progress at once */

/* one connect to make: the command's socket, the address to use */
struct job {
	struct job *next;          /* the queue */
	struct job *anext, *aprev; /* the active list: queued or running */
	struct kb_sup *s;
	uint64_t id;
	uint32_t pid;  /* the caller's thread */
	bool answered; /* already told (EINTR: a signal waits for it) */
	int sock;      /* ours, from pidfd_getfd */
	int opath;     /* the resolved socket file, or -1 */
	socklen_t len;
	struct sockaddr_storage addr;
};

static void
unref(struct kb_sup *s)
{
	unsigned left;

	pthread_mutex_lock(&s->mu);
	left = --s->refs;
	pthread_mutex_unlock(&s->mu);
	if (left > 0)
		return;
	close(s->listener);
	if (s->diag != -1)
		close(s->diag);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s->granted);
	free(s);
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

static int
do_connect(struct job *j)
{
	int r;

	while (
	    (r = connect(j->sock, (struct sockaddr *)&j->addr, j->len)) == -1 &&
	    errno == EINTR)
		;
	return r == 0 ? 0 : errno;
}

static void
job_done(struct job *j, int err)
{
	respond(j->s, j->id, err);
	close(j->sock);
	if (j->opath != -1)
		close(j->opath);
}

/* A pool thread: the next queued connect, until kb_sup_stop() and the
 * queue is empty. */
static void *
worker(void *arg)
{
	struct kb_sup *s = arg;
	bool told;
	int err;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		struct job *j;

		while (s->head == NULL && !s->stopping) {
			s->idle++;
			pthread_cond_wait(&s->cv, &s->mu);
			s->idle--;
		}
		if ((j = s->head) == NULL)
			break;
		if ((s->head = j->next) == NULL)
			s->tail = NULL;
		pthread_mutex_unlock(&s->mu);
		err = do_connect(j);
		pthread_mutex_lock(&s->mu);
		told = j->answered;
		j->answered = true;
		pthread_mutex_unlock(&s->mu);
		/* interrupted meanwhile: the connect went on, as the kernel's
		 * does after EINTR; the caller was told already */
		if (!told)
			respond(s, j->id, err);
		close(j->sock);
		if (j->opath != -1)
			close(j->opath);
		pthread_mutex_lock(&s->mu);
		if (j->aprev != NULL)
			j->aprev->anext = j->anext;
		else
			s->active = j->anext;
		if (j->anext != NULL)
			j->anext->aprev = j->aprev;
		free(j);
	}
	s->workers--;
	pthread_mutex_unlock(&s->mu);
	unref(s);
	return NULL;
}

/*
 * Most blocking connects finish at once (a unix listener with room in its
 * backlog, a loopback handshake): tried here first with the socket's
 * send timeout, which bounds connect(2)'s wait, cut to a millisecond and
 * then put back. True when that answered; false when the connect is
 * still to wait (EAGAIN: a unix backlog full, nothing done; EINPROGRESS:
 * a TCP handshake under way, which the pool's second connect() waits
 * for).
 */
static bool
brief_first(struct job *j)
{
	struct timeval old, brief = {0, 1000};
	socklen_t ol = sizeof(old);
	int fam = j->addr.ss_family, err;
	bool theirs;

	if ((fam != AF_UNIX && fam != AF_INET && fam != AF_INET6) ||
	    getsockopt(j->sock, SOL_SOCKET, SO_SNDTIMEO, &old, &ol) == -1 ||
	    ol != sizeof(old))
		return false;
	/* a timeout of the command's own that is shorter: the answer */
	theirs =
	    (old.tv_sec != 0 || old.tv_usec != 0) && timercmp(&old, &brief, <=);
	if (!theirs && setsockopt(j->sock, SOL_SOCKET, SO_SNDTIMEO, &brief,
			   sizeof(brief)) == -1)
		return false;
	err = do_connect(j);
	if (!theirs)
		setsockopt(j->sock, SOL_SOCKET, SO_SNDTIMEO, &old, sizeof(old));
	if (!theirs && (err == EAGAIN || err == EINPROGRESS))
		return false;
	job_done(j, err);
	return true;
}

/* A blocking connect goes to the pool (a thread more when none is idle),
 * so that a slow one (a TCP handshake, a full backlog) holds up no other
 * answer; a non-blocking one is made here. */
static void
run_job(struct job *j)
{
	struct kb_sup *s = j->s;
	int fl = fcntl(j->sock, F_GETFL);
	struct job *h;

	if (fl != -1 && !(fl & O_NONBLOCK) && brief_first(j))
		return;
	if (fl != -1 && !(fl & O_NONBLOCK) &&
	    (h = malloc(sizeof(*h))) != NULL) {
		bool queued = false;

		*h = *j;
		h->next = h->aprev = NULL;
		h->answered = false;
		pthread_mutex_lock(&s->mu);
		if (s->idle == 0 && s->workers < MAX_WORKERS) {
			pthread_attr_t at;
			pthread_t t;

			pthread_attr_init(&at);
			pthread_attr_setdetachstate(
			    &at, PTHREAD_CREATE_DETACHED);
			pthread_attr_setstacksize(&at, 64 * 1024);
			if (pthread_create(&t, &at, worker, s) == 0) {
				s->workers++;
				s->refs++;
			}
			pthread_attr_destroy(&at);
		}
		if (s->workers > 0) {
			if (s->tail != NULL)
				s->tail->next = h;
			else
				s->head = h;
			s->tail = h;
			if ((h->anext = s->active) != NULL)
				s->active->aprev = h;
			s->active = h;
			pthread_cond_signal(&s->cv);
			queued = true;
		}
		pthread_mutex_unlock(&s->mu);
		if (queued)
			return;
		free(h);
	}
	job_done(j, do_connect(j));
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
	    .s = s, .id = req->id, .pid = req->pid, .sock = -1, .opath = -1};
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
		uint32_t ino;
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
			s, req->pid, un->sun_path, n, type, &ino)) {
			sup_abstract_text(un->sun_path, n, text, sizeof(text));
			sup_note_denial(s, text, -1, EPERM);
			close(pidfd);
			close(j.sock);
			respond(s, req->id, EPERM);
			return;
		}
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
	run_job(&j);
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
 * A connect that takes long waits killably (the notification is received),
 * so a signal the command handles (Python's SIGINT) would wait for it, and
 * a fatal one behind it as well: such a caller is told EINTR now, while
 * its connect goes on, as the kernel's own connect does after EINTR.
 */
static void
interrupt_waiting(struct kb_sup *s)
{
	uint64_t ids[MAX_WORKERS];
	size_t n = 0;

	pthread_mutex_lock(&s->mu);
	for (struct job *j = s->active; j != NULL && n < MAX_WORKERS;
	     j = j->anext)
		if (!j->answered && signal_waits(j->pid)) {
			j->answered = true;
			ids[n++] = j->id;
		}
	pthread_mutex_unlock(&s->mu);
	for (size_t i = 0; i < n; i++)
		respond(s, ids[i], EINTR);
}

static void *
dispatch(void *arg)
{
	struct kb_sup *s = arg;
	struct seccomp_notif *req = calloc(1, s->sizes.seccomp_notif);

	if (geteuid() == 0)
		drop_dac();
	for (; req != NULL;) {
		struct pollfd p[2] = {
		    {.fd = s->listener, .events = POLLIN},
		    {.fd = s->stop[0], .events = POLLIN},
		};
		bool waiting;
		int n;

		pthread_mutex_lock(&s->mu);
		waiting = s->active != NULL;
		pthread_mutex_unlock(&s->mu);
		/* while connects are in progress, look at their callers'
		 * signals every 10 ms */
		if ((n = poll(p, 2, waiting ? 10 : -1)) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (waiting)
			interrupt_waiting(s);
		if (n == 0)
			continue;
		if (p[1].revents)
			break;
		/* every process of the filter is gone: stop polling, a
		 * listener in POLLHUP would spin */
		if (p[0].revents & (POLLHUP | POLLERR | POLLNVAL) &&
		    !(p[0].revents & POLLIN))
			break;
		if (!(p[0].revents & POLLIN))
			continue;
		memset(req, 0, s->sizes.seccomp_notif);
		if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_RECV, req) == -1) {
			/* ENOENT: the caller was interrupted before we got
			 * it */
			if (errno == EINTR || errno == ENOENT)
				continue;
			break;
		}
		serve(s, req);
	}
	free(req);
	unref(s);
	return NULL;
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
	s->unique = hello->unique != 0;
	s->check_abstract = check_abstract;
	/* none: every abstract name is refused (fail closed) */
	s->diag = check_abstract ? sup_diag_open() : -1;
	s->nown = hello->nown;
	memcpy(s->own, hello->own, sizeof(s->own[0]) * s->nown);
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
	pthread_cond_init(&s->cv, NULL);
	s->refs = 2;
	/* every signal blocked on the threads: they are kinbox's to read */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(&s->thread, NULL, dispatch, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		close(s->stop[0]);
		close(s->stop[1]);
		pthread_cond_destroy(&s->cv);
		pthread_mutex_destroy(&s->mu);
		errno = rc;
		goto fail;
	}
	return s;
fail:
	rc = errno;
	close(listener);
	if (s->diag != -1)
		close(s->diag);
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
	pthread_mutex_lock(&s->mu);
	s->stopping = true;
	pthread_cond_broadcast(&s->cv);
	if (out != NULL)
		*out = s->rep;
	pthread_mutex_unlock(&s->mu);
	unref(s);
}

int
kb_sup_recv(int sock, struct kb_sup_hello *hello)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {hello, sizeof(*hello)};
	struct msghdr m = {.msg_iov = &iov,
	    .msg_iovlen = 1,
	    .msg_control = u.buf,
	    .msg_controllen = sizeof(u.buf)};
	struct cmsghdr *c;
	ssize_t n;
	int fd = -1;

	memset(hello, 0, sizeof(*hello));
	while (
	    (n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC)) == -1 && errno == EINTR)
		;
	if (n == -1)
		return -1;
	if (n == 0) {
		errno = ENODATA; /* kinbox-exec ended first: it says why */
		return -1;
	}
	for (c = CMSG_FIRSTHDR(&m); c != NULL; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
	if (fd == -1 || (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
	    (size_t)n != sizeof(*hello) || hello->magic != KB_SUP_MAGIC ||
	    hello->nown > KB_SUP_MAX_OWN) {
		if (fd != -1)
			close(fd);
		errno = EPROTO;
		return -1;
	}
	return fd;
}

const char *
kb_sup_unavailable(void)
{
	struct seccomp_notif_sizes sz;
	int self, fd, scope = 0;
	FILE *f;

	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) == -1)
		return "seccomp user notifications are unavailable "
		       "(Linux < 5.0, or refused by a container's filter)";
	if ((f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re")) != NULL) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = 0;
		fclose(f);
	}
	if (scope >= 3)
		return "Yama's ptrace_scope is 3: no process may read "
		       "another's memory or descriptors";
	if (scope == 2 && geteuid() != 0)
		return "Yama's ptrace_scope is 2: only root may read "
		       "another process's memory or descriptors";
	if ((self = (int)syscall(SYS_pidfd_open, getpid(), 0)) == -1)
		return "pidfd_open is unavailable (Linux < 5.3, or refused "
		       "by a container's filter)";
	fd = (int)syscall(SYS_pidfd_getfd, self, 0, 0);
	close(self);
	if (fd == -1)
		return "pidfd_getfd is unavailable (Linux < 5.6, or refused "
		       "by a container's filter, as Docker's default)";
	close(fd);
	{
		struct open_how how = {
		    .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_IN_ROOT};

		fd =
		    (int)syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));
		if (fd == -1)
			return "openat2 is unavailable (Linux < 5.6)";
		close(fd);
	}
	return NULL;
}

bool
kb_sup_under_seccomp(void)
{
	char line[256];
	bool under = false;
	FILE *f = fopen("/proc/self/status", "re");

	if (f == NULL)
		return true; /* not known: the safe answer */
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "Seccomp:", 8) == 0)
			under = strtol(line + 8, NULL, 10) != 0;
	fclose(f);
	return under;
}
