/*
 * tests/unit/test-unotify.c — the unix-socket supervisor (backends/
 * unotify.c) against a real child under the connect() filter kinbox
 * ships, without a sandbox: the "own" mount is the one the test's
 * directory lies on, the "host" one another mount (/dev/shm, or /run).
 *
 * The child is exec'd (test-unotify --child SOCK OWN HOST GRANTED), not
 * forked, so that valgrind, which does not follow an exec by default,
 * runs only the supervisor: the child's calls reach the kernel as
 * written. It loads the filter with a listener, sends it here with the
 * hello kinbox-exec would send, makes its connects and writes each
 * result (0 or the errno) to stdout. The host listener counts what it
 * accepts: a refusal that still reached it is a failure.
 *
 * Near its end the child makes a storm: STORM_N threads in blocking connects
 * to one full listener of its own, beside which a connect to another
 * listener must be answered at once and one to a third full listener
 * must get a place to wait, while the supervisor's descriptors (counted
 * here) stay bounded.
 *
 * Before that, in the test's own process: the abstract names the
 * supervisor looks up with NETLINK_SOCK_DIAG under --net, compared byte
 * for byte (a NUL is not '@', a prefix or one byte more is another name,
 * a seqpacket listener is not a stream one), and the way one is shown.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/stat.h>

#include "../../backends/backend.h"
#include "../../lib/fdpass.h"
#include "../../mediate/unotify-int.h"
#include "../../mediate/unotify.h"
#include "tap.h"

#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x00004000U
#endif

enum {
	C_OWN,        /* a socket on the own mount */
	C_HOST,       /* one on the other mount */
	C_GRANTED,    /* one on the other mount, granted by dev/ino */
	C_RELATIVE,   /* the host one by a relative path from its dir */
	C_SYMLINK,    /* a link on the own mount to the host one */
	C_PROCFD,     /* /proc/self/fd/N of an O_PATH fd of the host one */
	C_MISSING,    /* no such file */
	C_REGULAR,    /* a regular file */
	C_ABSTRACT,   /* an abstract socket of the child's */
	C_TCP,        /* loopback TCP, blocking */
	C_TCP_NB,     /* loopback TCP, non-blocking: EINPROGRESS */
	C_BADFD,      /* not a descriptor */
	C_BADADDR,    /* an address the kernel cannot read */
	C_LONGLEN,    /* addrlen past sockaddr_storage */
	C_THREADS,    /* 8 threads at once, half own, half host: wrong ones */
	C_RACE,       /* a thread flips the path: host connects that worked */
	C_RACE_OWN,   /* ... and own connects that did (must be > 0) */
	C_RACE_HOST,  /* ... and connects refused (must be > 0) */
	C_LISTENER,   /* a listener of the command's own: refused */
	C_FD_DIR,     /* /proc/self/fd/DIRFD/own.sock: the long-path way */
	C_SELF_CWD,   /* /proc/self/cwd/own.sock */
	C_FD_DIR_HOST, /* /proc/self/fd/DIRFD/host.sock: refused */
	C_LOOP,       /* a loop of symlinks: ELOOP, as the kernel says */
	C_SNDTIMEO,   /* a full backlog, SO_SNDTIMEO 200 ms: EAGAIN */
	C_SNDTIMEO_MS, /* ... after about that long */
	C_STORM_WAIT, /* STORM_N threads on a full backlog: those that wait */
	C_STORM_BUSY, /* ... those refused EAGAIN (past MAX_PER_PEER) */
	C_STORM_OTHER, /* ... any other answer */
	C_UNRELATED,  /* meanwhile a connect to another listener: answered */
	C_UNRELATED_MS, /* ... at once */
	C_WAITED,     /* one to a third, full, accepting 0.3 s later */
	C_WAITED_MS,  /* ... answered then */
	C__N
};

static const char *const case_name[C__N] = {
    "a socket on the command's own mount connects",
    "a socket on another mount is refused (EACCES)",
    "a granted inode on another mount connects",
    "the refused socket by a relative path is refused",
    "the refused socket through a symlink on the own mount is refused",
    "the refused socket through /proc/self/fd/N is refused",
    "a missing path is ENOENT, as the kernel says",
    "a regular file is ECONNREFUSED, as the kernel says",
    "the command's own abstract socket connects",
    "blocking loopback TCP connects",
    "non-blocking loopback TCP gives EINPROGRESS",
    "a bad descriptor is EBADF",
    "an unreadable address is EFAULT",
    "an address longer than sockaddr_storage is EINVAL",
    "8 threads at once: none gets the wrong answer",
    "a thread flipping the path: no connect reached the host socket",
    "... while the own connects of the race went through",
    "... and the host ones were refused",
    "the command cannot make a seccomp listener of its own (EPERM)",
    "its own socket by /proc/self/fd/DIRFD/NAME connects",
    "its own socket by /proc/self/cwd/NAME connects",
    "the refused socket by /proc/self/fd/DIRFD/NAME is refused",
    "a loop of symlinks is ELOOP, as the kernel says",
    "a connect to a full backlog with SO_SNDTIMEO 200 ms fails EAGAIN",
    "... after about 200 ms",
    "a storm of blocking connects to a full backlog: MAX_PER_PEER wait",
    "... the rest fail EAGAIN at once",
    "... nothing else",
    "meanwhile a connect to another listener is answered",
    "... at once (under a second)",
    "then one to a third full listener gets a place to wait, connected",
    "... when that listener accepts (under 1.5 s, 0.3 s of it waiting)",
};

static const int want[C__N] = {
    [C_OWN] = 0,
    [C_HOST] = EACCES,
    [C_GRANTED] = 0,
    [C_RELATIVE] = EACCES,
    [C_SYMLINK] = EACCES,
    [C_PROCFD] = EACCES,
    [C_MISSING] = ENOENT,
    [C_REGULAR] = ECONNREFUSED,
    [C_ABSTRACT] = 0,
    [C_TCP] = 0,
    [C_TCP_NB] = EINPROGRESS,
    [C_BADFD] = EBADF,
    [C_BADADDR] = EFAULT,
    [C_LONGLEN] = EINVAL,
    [C_THREADS] = 0,
    [C_RACE] = 0,
    [C_RACE_OWN] = -1, /* > 0 */
    [C_RACE_HOST] = -1,
    [C_LISTENER] = EPERM,
    [C_FD_DIR] = 0,
    [C_SELF_CWD] = 0,
    [C_FD_DIR_HOST] = EACCES,
    [C_LOOP] = ELOOP,
    [C_SNDTIMEO] = EAGAIN,
    [C_SNDTIMEO_MS] = -2, /* in [150, 1500) */
    [C_STORM_WAIT] = -6, /* the supervisor's per-address cap */
    [C_STORM_BUSY] = -3, /* STORM_N - that */
    [C_STORM_OTHER] = -7, /* 0 */
    [C_UNRELATED] = 0,
    [C_UNRELATED_MS] = -4, /* < 1000 */
    [C_WAITED] = 0,
    [C_WAITED_MS] = -5, /* < 1500 */
};

#define RACE_N  3000
#define STORM_N 200

static char own_dir[PATH_MAX], host_dir[PATH_MAX];

static int
un_addr(struct sockaddr_un *a, const char *path)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	snprintf(a->sun_path, sizeof(a->sun_path), "%s", path);
	return (int)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1);
}

static int
try_connect(const char *path)
{
	struct sockaddr_un a;
	int len = un_addr(&a, path), s = socket(AF_UNIX, SOCK_STREAM, 0), r;

	r = connect(s, (struct sockaddr *)&a, (socklen_t)len);
	r = r == 0 ? 0 : errno;
	close(s);
	return r;
}

static int
listen_unix(const char *path)
{
	struct sockaddr_un a;
	int len = un_addr(&a, path), s = socket(AF_UNIX, SOCK_STREAM, 0);

	unlink(path);
	if (s == -1 || bind(s, (struct sockaddr *)&a, (socklen_t)len) == -1 ||
	    listen(s, 4096) == -1)
		return -1;
	return s;
}

/* --- the child ---------------------------------------------------------- */

static long
ms_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* a listener at `path` whose backlog is full: listen(0) and one
 * connection queued, never accepted (until the test says) */
static int
listen_full(const char *path)
{
	struct sockaddr_un a;
	int len = un_addr(&a, path), s = socket(AF_UNIX, SOCK_STREAM, 0),
	    c = socket(AF_UNIX, SOCK_STREAM, 0);

	unlink(path);
	if (s == -1 || c == -1 ||
	    bind(s, (struct sockaddr *)&a, (socklen_t)len) == -1 ||
	    listen(s, 0) == -1 ||
	    connect(c, (struct sockaddr *)&a, (socklen_t)len) == -1)
		return -1;
	/* the filler stays open: its connection fills the backlog */
	return s;
}

struct stormer {
	const char *path;
	int got;
	atomic_int *done;
};

static void *
storm_one(void *arg)
{
	struct stormer *t = arg;

	t->got = try_connect(t->path);
	atomic_fetch_add(t->done, 1);
	return NULL;
}

/* accepts two connections on fd after 0.3 s (the filler's and one) */
static void *
accept_later(void *arg)
{
	int fd = *(int *)arg;

	usleep(300000);
	for (int i = 0; i < 2; i++) {
		int c = accept(fd, NULL, NULL);

		if (c != -1)
			close(c);
	}
	return NULL;
}

struct waiter {
	const char *path;
	int got;
	long ms;
};

static void *
connect_timed(void *arg)
{
	struct waiter *w = arg;
	long t0 = ms_now();

	w->got = try_connect(w->path);
	w->ms = ms_now() - t0;
	return NULL;
}

/*
 * The supervisor serves a hostile command fairly: STORM_N threads block
 * on one full listener of the command's own; MAX_PER_PEER of them wait,
 * the rest fail EAGAIN at once; a connect to another listener meanwhile
 * is answered at once, and one to a third full listener still gets a
 * place to wait and is connected when that one accepts. Then the full
 * listener accepts the waiting ones.
 */
static void
storm(int *res)
{
	static struct stormer st[STORM_N];
	static pthread_t id[STORM_N];
	char full[PATH_MAX + 32], slow[PATH_MAX + 32], own[PATH_MAX + 32];
	struct waiter w = {.got = -1, .ms = -1};
	atomic_int done = 0;
	pthread_attr_t at;
	pthread_t acc, wt;
	struct timespec until;
	int lf, ls, started = 0;
	long t0;

	snprintf(full, sizeof(full), "%s/full.sock", own_dir);
	snprintf(slow, sizeof(slow), "%s/slow.sock", own_dir);
	snprintf(own, sizeof(own), "%s/own.sock", own_dir);
	res[C_STORM_WAIT] = res[C_STORM_BUSY] = res[C_STORM_OTHER] = 0;
	res[C_UNRELATED] = res[C_UNRELATED_MS] = -1;
	res[C_WAITED] = res[C_WAITED_MS] = -1;
	if ((lf = listen_full(full)) == -1 || (ls = listen_full(slow)) == -1)
		return;
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 256 * 1024);
	for (int i = 0; i < STORM_N; i++) {
		st[i] = (struct stormer){full, -1, &done};
		if (pthread_create(&id[i], &at, storm_one, &st[i]) == 0)
			started++;
	}
	/* right behind the storm */
	t0 = ms_now();
	res[C_UNRELATED] = try_connect(own);
	res[C_UNRELATED_MS] = (int)(ms_now() - t0);
	/* the storm's connects all made by now */
	usleep(300000);
	w.path = slow;
	pthread_create(&acc, NULL, accept_later, &ls);
	pthread_create(&wt, NULL, connect_timed, &w);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 3;
	if (pthread_timedjoin_np(wt, NULL, &until) == 0) {
		res[C_WAITED] = w.got;
		res[C_WAITED_MS] = (int)w.ms;
	}
	/* the full listener accepts, one at a time */
	fcntl(lf, F_SETFL, O_NONBLOCK);
	for (t0 = ms_now();
	     atomic_load(&done) < started && ms_now() - t0 < 20000;) {
		int c = accept(lf, NULL, NULL);

		if (c != -1)
			close(c);
		else
			usleep(1000);
	}
	for (int i = 0; i < started; i++)
		pthread_join(id[i], NULL);
	for (int i = 0; i < STORM_N; i++) {
		if (st[i].got == 0)
			res[C_STORM_WAIT]++;
		else if (st[i].got == EAGAIN)
			res[C_STORM_BUSY]++;
		else
			res[C_STORM_OTHER]++;
	}
	pthread_join(acc, NULL);
	if (res[C_WAITED] == -1) {
		pthread_join(wt, NULL);
	}
	pthread_attr_destroy(&at);
	close(lf);
	close(ls);
	unlink(full);
	unlink(slow);
}

static struct sockaddr_un race_addr;
static atomic_bool race_stop;
static char race_own[108], race_host[108];

static void *
flipper(void *arg)
{
	(void)arg;
	/* about as long on each path: some connects are made with one,
	 * some with the other, some change under the kernel's copy */
	while (!atomic_load(&race_stop)) {
		memcpy(race_addr.sun_path, race_host, sizeof(race_host));
		__asm__ volatile("" ::: "memory"); /* the store happens */
		for (volatile int k = 0; k < 2000; k++)
			;
		memcpy(race_addr.sun_path, race_own, sizeof(race_own));
		__asm__ volatile("" ::: "memory");
		for (volatile int k = 0; k < 2000; k++)
			;
	}
	return NULL;
}

struct th {
	const char *path;
	int want, got;
};

static void *
one_thread(void *arg)
{
	struct th *t = arg;

	t->got = try_connect(t->path);
	return NULL;
}

static int
child(int sock, const char *filter_path)
{
	static struct sock_filter prog[4096];
	struct sock_fprog fp;
	struct kb_sup_hello hello = {.magic = KB_SUP_MAGIC, .unique = 1};
	struct statx sx;
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {&hello, sizeof(hello)};
	struct msghdr m = {.msg_iov = &iov,
	    .msg_iovlen = 1,
	    .msg_control = u.buf,
	    .msg_controllen = sizeof(u.buf)};
	struct cmsghdr *c;
	int res[C__N], fd, lfd, n = 0;
	char path[PATH_MAX + 32];
	ssize_t len = 0, r;

	if ((fd = open(filter_path, O_RDONLY | O_CLOEXEC)) == -1)
		return 3;
	while ((r = read(fd, (char *)prog + len, sizeof(prog) - (size_t)len)) >
	       0)
		len += r;
	close(fd);
	fp.len = (unsigned short)((size_t)len / sizeof(prog[0]));
	fp.filter = prog;
	/* the own mount's id, as kinbox-exec reads it */
	if (syscall(SYS_statx, AT_FDCWD, own_dir, 0,
		STATX_MNT_ID | STATX_MNT_ID_UNIQUE, &sx) == -1)
		return 4;
	hello.unique = (sx.stx_mask & STATX_MNT_ID_UNIQUE) != 0;
	hello.own[hello.nown++] = sx.stx_mnt_id;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		return 5;
	lfd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER, &fp);
	if (lfd == -1)
		return 6;
	memset(&u, 0, sizeof(u));
	if ((c = CMSG_FIRSTHDR(&m)) == NULL)
		return 7;
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &lfd, sizeof(int));
	if (sendmsg(sock, &m, 0) != (ssize_t)sizeof(hello))
		return 8;
	close(lfd);
	close(sock);

	snprintf(path, sizeof(path), "%s/own.sock", own_dir);
	res[C_OWN] = try_connect(path);
	snprintf(path, sizeof(path), "%s/host.sock", host_dir);
	res[C_HOST] = try_connect(path);
	snprintf(path, sizeof(path), "%s/granted.sock", host_dir);
	res[C_GRANTED] = try_connect(path);
	if (chdir(host_dir) == -1)
		return 9;
	res[C_RELATIVE] = try_connect("host.sock");
	snprintf(path, sizeof(path), "%s/link.sock", own_dir);
	res[C_SYMLINK] = try_connect(path);
	snprintf(path, sizeof(path), "%s/host.sock", host_dir);
	fd = open(path, O_PATH | O_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	res[C_PROCFD] = try_connect(path);
	close(fd);
	snprintf(path, sizeof(path), "%s/missing.sock", own_dir);
	res[C_MISSING] = try_connect(path);
	snprintf(path, sizeof(path), "%s/regular", own_dir);
	res[C_REGULAR] = try_connect(path);
	{
		struct sockaddr_un a = {.sun_family = AF_UNIX};
		int l = socket(AF_UNIX, SOCK_STREAM, 0), k;
		socklen_t alen = (socklen_t)(offsetof(struct sockaddr_un,
						 sun_path) +
					     1 + 20);

		snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1,
		    "kb-test-unotify-%05d", (int)getpid() % 100000);
		res[C_ABSTRACT] = -1;
		if (bind(l, (struct sockaddr *)&a, alen) == 0 &&
		    listen(l, 4) == 0) {
			k = socket(AF_UNIX, SOCK_STREAM, 0);
			res[C_ABSTRACT] =
			    connect(k, (struct sockaddr *)&a, alen) == 0 ? 0
									 : errno;
			close(k);
		}
		close(l);
	}
	{
		struct sockaddr_in in = {.sin_family = AF_INET,
		    .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		socklen_t il = sizeof(in);
		int l = socket(AF_INET, SOCK_STREAM, 0), k;

		res[C_TCP] = res[C_TCP_NB] = -1;
		if (bind(l, (struct sockaddr *)&in, sizeof(in)) == 0 &&
		    listen(l, 8) == 0 &&
		    getsockname(l, (struct sockaddr *)&in, &il) == 0) {
			k = socket(AF_INET, SOCK_STREAM, 0);
			res[C_TCP] = connect(k, (struct sockaddr *)&in,
					 sizeof(in)) == 0
					 ? 0
					 : errno;
			close(k);
			k = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
			/* on loopback the handshake may be done already */
			res[C_TCP_NB] = connect(k, (struct sockaddr *)&in,
					    sizeof(in)) == 0
					    ? EINPROGRESS
					    : errno;
			close(k);
		}
		close(l);
	}
	{
		struct sockaddr_un a;
		int s = socket(AF_UNIX, SOCK_STREAM, 0);

		res[C_BADFD] = connect(999, (struct sockaddr *)&a, 10) == 0
				   ? 0
				   : errno;
		res[C_BADADDR] = connect(s, (struct sockaddr *)8, 20) == 0
				     ? 0
				     : errno;
		res[C_LONGLEN] = connect(s, (struct sockaddr *)&a, 4096) == 0
				     ? 0
				     : errno;
		close(s);
	}
	{
		struct th t[8];
		pthread_t id[8];
		char own[PATH_MAX + 32], host[PATH_MAX + 32];

		snprintf(own, sizeof(own), "%s/own.sock", own_dir);
		snprintf(host, sizeof(host), "%s/host.sock", host_dir);
		for (int i = 0; i < 8; i++) {
			t[i].path = i % 2 ? own : host;
			t[i].want = i % 2 ? 0 : EACCES;
			pthread_create(&id[i], NULL, one_thread, &t[i]);
		}
		res[C_THREADS] = 0;
		for (int i = 0; i < 8; i++) {
			pthread_join(id[i], NULL);
			if (t[i].got != t[i].want)
				res[C_THREADS]++;
		}
	}
	{
		pthread_t f;

		snprintf(race_own, sizeof(race_own), "%.90s/own.sock", own_dir);
		snprintf(race_host, sizeof(race_host), "%.90s/host.sock",
		    host_dir);
		un_addr(&race_addr, race_own);
		pthread_create(&f, NULL, flipper, NULL);
		res[C_RACE_OWN] = res[C_RACE_HOST] = 0;
		for (int i = 0; i < RACE_N; i++) {
			int s = socket(AF_UNIX, SOCK_STREAM, 0);

			if (connect(s, (struct sockaddr *)&race_addr,
				sizeof(race_addr)) == 0)
				res[C_RACE_OWN]++;
			else if (errno == EACCES)
				res[C_RACE_HOST]++;
			close(s);
		}
		atomic_store(&race_stop, true);
		pthread_join(f, NULL);
		res[C_RACE] = 0; /* the parent counts the host's accepts */
	}
	{
		int od = open(own_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		int hd = open(host_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

		snprintf(path, sizeof(path), "/proc/self/fd/%d/own.sock", od);
		res[C_FD_DIR] = try_connect(path);
		snprintf(path, sizeof(path), "/proc/self/fd/%d/host.sock", hd);
		res[C_FD_DIR_HOST] = try_connect(path);
		close(od);
		close(hd);
		res[C_SELF_CWD] = chdir(own_dir) == 0
				      ? try_connect("/proc/self/cwd/own.sock")
				      : -1;
		snprintf(path, sizeof(path), "%s/loop-a", own_dir);
		res[C_LOOP] = try_connect(path);
	}
	{
		struct sockaddr_un a;
		struct timeval tv = {0, 200000};
		int lt, k, alen;
		long t0;

		snprintf(path, sizeof(path), "%s/timeo.sock", own_dir);
		alen = un_addr(&a, path);
		res[C_SNDTIMEO] = res[C_SNDTIMEO_MS] = -1;
		if ((lt = listen_full(path)) != -1) {
			k = socket(AF_UNIX, SOCK_STREAM, 0);
			setsockopt(k, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
			t0 = ms_now();
			res[C_SNDTIMEO] = connect(k, (struct sockaddr *)&a,
					      (socklen_t)alen) == 0
					      ? 0
					      : errno;
			res[C_SNDTIMEO_MS] = (int)(ms_now() - t0);
			close(k);
			close(lt);
			unlink(path);
		}
	}
	storm(res);
	/* its own filter with a listener: answered first, a CONTINUE from
	 * it would skip kinbox */
	res[C_LISTENER] = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			      SECCOMP_FILTER_FLAG_NEW_LISTENER, &fp) >= 0
			      ? 0
			      : errno;
	(void)n;
	if (write(1, res, sizeof(res)) != (ssize_t)sizeof(res))
		return 10;
	return 0;
}

/* --- the supervisor's side ---------------------------------------------- */

struct acceptor {
	int fd;
	atomic_int count;
	atomic_bool stop;
};

static void *
accept_loop(void *arg)
{
	struct acceptor *a = arg;

	while (!atomic_load(&a->stop)) {
		struct pollfd p = {.fd = a->fd, .events = POLLIN};
		int c;

		if (poll(&p, 1, 50) <= 0)
			continue;
		if ((c = accept(a->fd, NULL, NULL)) >= 0) {
			atomic_fetch_add(&a->count, 1);
			close(c);
		}
	}
	return NULL;
}

/* --- abstract names, byte for byte -------------------------------------- */

/* one abstract socket of the test's: `name` (n bytes after the leading
 * NUL), bound, listening unless `bound_only`; its inode in *ino */
static int
abstract_listener(
    const char *name, size_t n, int type, bool bound_only, uint32_t *ino)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	struct stat st;
	int s = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);

	memcpy(a.sun_path + 1, name, n);
	if (s == -1 ||
	    bind(s, (struct sockaddr *)&a,
		(socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) ==
		-1 ||
	    (!bound_only && listen(s, 4) == -1) || fstat(s, &st) == -1) {
		if (s != -1)
			close(s);
		return -1;
	}
	*ino = (uint32_t)st.st_ino;
	return s;
}

/* sup_abstract_find() on "\0" + the n bytes of `name` */
static int
find_name(int diag, uint32_t *seq, const char *name, size_t n, int type,
    uint32_t ino, uint32_t *found)
{
	char path[110] = {0};

	memcpy(path + 1, name, n);
	*found = 0;
	return sup_abstract_find(diag, seq, path, n + 1, type, ino, found);
}

/*
 * The names the kernel tells apart must never be taken for one another:
 * the lookup compares bytes and lengths, and the socket type, as the
 * kernel's own, and sees only listening sockets. What /proc/net/unix
 * would have shown alike: a NUL and '@', a name and the part of it before
 * a space or a newline.
 */
static void
test_abstract_names(void)
{
	char base[32], name[7][64];
	size_t len[7];
	uint32_t ino[7], got, seq = 0;
	int fd[7], diag = sup_diag_open(), n;
	static const int type[7] = {SOCK_STREAM, SOCK_STREAM, SOCK_STREAM,
	    SOCK_STREAM, SOCK_SEQPACKET, SOCK_STREAM, SOCK_STREAM};
	char text[512];

	if (diag == -1) {
		tap_skip(
		    "no NETLINK_SOCK_DIAG socket here (%s)", strerror(errno));
		return;
	}
	n = snprintf(base, sizeof(base), "kbx-unit-%d", (int)getpid());
	/* 0 "B\0svc", 1 "B sp\n@", 2 "B-long", 3 "B-bound" (not
	 * listening), 4 "B-seq" seqpacket, 5 "B\xff\x80", 6 "B-tr\0" */
	memcpy(name[0], base, (size_t)n);
	memcpy(name[0] + n, "\0svc", 4);
	len[0] = (size_t)n + 4;
	len[1] = (size_t)snprintf(name[1], sizeof(name[1]), "%s sp\n@", base);
	len[2] = (size_t)snprintf(name[2], sizeof(name[2]), "%s-long", base);
	len[3] = (size_t)snprintf(name[3], sizeof(name[3]), "%s-bound", base);
	len[4] = (size_t)snprintf(name[4], sizeof(name[4]), "%s-seq", base);
	len[5] = (size_t)snprintf(name[5], sizeof(name[5]), "%s\xff\x80", base);
	len[6] = (size_t)snprintf(name[6], sizeof(name[6]), "%s-tr", base) + 1;
	for (int i = 0; i < 7; i++)
		if ((fd[i] = abstract_listener(
			 name[i], len[i], type[i], i == 3, &ino[i])) == -1) {
			tap_skip("cannot listen on abstract names: %s",
			    strerror(errno));
			close(diag);
			return;
		}
	for (int i = 0; i < 7; i++) {
		int r =
		    find_name(diag, &seq, name[i], len[i], type[i], 0, &got);

		if (i == 3)
			ok(r == 0,
			    "a name bound but not listening is not found");
		else
			ok(r == 1 && got == ino[i],
			    "listening name %d is found, its socket's inode",
			    i);
	}
	{
		char alt[64];

		/* "B@svc": the NUL read as '@' */
		memcpy(alt, name[0], len[0]);
		alt[n] = '@';
		assert_cmpint(
		    find_name(diag, &seq, alt, len[0], SOCK_STREAM, 0, &got), 0,
		    "\"B@svc\" is not \"B\\0svc\"");
		/* "B": the text before the space, and before the NUL */
		assert_cmpint(find_name(diag, &seq, base, (size_t)n,
				  SOCK_STREAM, 0, &got),
		    0,
		    "the name before a space, a newline or a NUL is not "
		    "the name");
		/* "B sp": before the newline */
		assert_cmpint(find_name(diag, &seq, name[1], len[1] - 2,
				  SOCK_STREAM, 0, &got),
		    0, "the name before its newline is not the name");
		/* a prefix, and one byte more (a trailing NUL) */
		assert_cmpint(find_name(diag, &seq, name[2], len[2] - 1,
				  SOCK_STREAM, 0, &got),
		    0, "a prefix of a listening name is not found");
		memcpy(alt, name[2], len[2]);
		alt[len[2]] = '\0';
		assert_cmpint(find_name(diag, &seq, alt, len[2] + 1,
				  SOCK_STREAM, 0, &got),
		    0, "a listening name and one NUL more is not found");
		/* "B-tr\0" listens: "B-tr" and "B-tr@" are others */
		assert_cmpint(find_name(diag, &seq, name[6], len[6] - 1,
				  SOCK_STREAM, 0, &got),
		    0, "a name without its trailing NUL is not found");
		memcpy(alt, name[6], len[6]);
		alt[len[6] - 1] = '@';
		assert_cmpint(
		    find_name(diag, &seq, alt, len[6], SOCK_STREAM, 0, &got), 0,
		    "its trailing NUL read as '@' is not found");
		/* "B\xff": not UTF-8, a prefix */
		assert_cmpint(find_name(diag, &seq, name[5], len[5] - 1,
				  SOCK_STREAM, 0, &got),
		    0, "bytes that are not UTF-8 are compared as bytes");
		/* another type */
		assert_cmpint(find_name(diag, &seq, name[4], len[4],
				  SOCK_STREAM, 0, &got),
		    0, "a seqpacket listener's name is not a stream one's");
		assert_cmpint(find_name(diag, &seq, name[0], len[0],
				  SOCK_SEQPACKET, 0, &got),
		    0, "a stream listener's name is not a seqpacket one's");
	}
	/* by inode: the listener still there, with that name */
	ok(find_name(diag, &seq, name[0], len[0], SOCK_STREAM, ino[0], &got) ==
		    1 &&
		got == ino[0],
	    "by inode: the listener is still the name's");
	assert_cmpint(
	    find_name(diag, &seq, name[2], len[2], SOCK_STREAM, ino[0], &got),
	    0, "by inode: another name's socket is not");
	close(fd[0]);
	assert_cmpint(
	    find_name(diag, &seq, name[0], len[0], SOCK_STREAM, ino[0], &got),
	    0, "by inode: a closed listener is gone");
	for (int i = 1; i < 7; i++)
		close(fd[i]);
	close(diag);
	assert_cmpint(
	    find_name(-1, &seq, name[0], len[0], SOCK_STREAM, 0, &got), -1,
	    "no diag socket: the kernel could not say (refused)");

	/* for a person: "@" for the leading NUL, the rest escaped */
	sup_abstract_text("\0kbx\0svc", 8, text, sizeof(text));
	assert_cmpstr(text, "@kbx\\x00svc", "a NUL is shown as \\x00");
	sup_abstract_text("\0kbx@svc", 8, text, sizeof(text));
	assert_cmpstr(text, "@kbx@svc", "an '@' is shown as '@'");
	sup_abstract_text("\0a\nb \\\x1b\xff", 8, text, sizeof(text));
	assert_cmpstr(text, "@a\\nb \\\\\\x1b\\xff",
	    "a newline, a backslash, ESC and a byte that is not UTF-8 are "
	    "escaped");
	sup_abstract_text("\0", 1, text, sizeof(text));
	assert_cmpstr(text, "@", "the empty name is \"@\"");
	sup_abstract_text("\0abcdef", 7, text, 4);
	assert_cmpstr(text, "@ab", "a short buffer is never overrun");
}
/* the supervisor's process's descriptors, counted while the child runs */
struct fdcount {
	atomic_bool stop;
	int max;
};

static int
count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (d == NULL)
		return -1;
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return n;
}

static void *
fd_sampler(void *arg)
{
	struct fdcount *f = arg;

	while (!atomic_load(&f->stop)) {
		int n = count_fds();

		if (n > f->max)
			f->max = n;
		usleep(2000);
	}
	return NULL;
}

static bool
mount_id(const char *path, uint64_t *id)
{
	struct statx sx;

	if (syscall(SYS_statx, AT_FDCWD, path, 0, STATX_MNT_ID, &sx) == -1)
		return false;
	*id = sx.stx_mnt_id;
	return true;
}

/* kb_sup_recv refuses what is not one hello with one listener: a short
 * or long message, a bad magic, too many own mounts, no descriptor or
 * two; the end of file is ENODATA */
static void
test_recv_refuses(void)
{
	static const struct {
		const char *name;
		size_t len;  /* bytes sent: 0 for a hello's size */
		int nfds;    /* descriptors sent along */
		uint32_t magic, nown;
		int err;     /* 0: accepted */
	} c[] = {
	    {"a hello and its listener", 0, 1, KB_SUP_MAGIC, 1, 0},
	    {"a short message", 8, 1, KB_SUP_MAGIC, 1, EPROTO},
	    {"a message longer than a hello", sizeof(struct kb_sup_hello) + 8,
		1, KB_SUP_MAGIC, 1, EPROTO},
	    {"a bad magic", 0, 1, 0x12345678U, 1, EPROTO},
	    {"too many own mounts", 0, 1, KB_SUP_MAGIC, KB_SUP_MAX_OWN + 1,
		EPROTO},
	    {"no descriptor", 0, 0, KB_SUP_MAGIC, 1, EPROTO},
	    {"two descriptors", 0, 2, KB_SUP_MAGIC, 1, EPROTO},
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		unsigned char msg[sizeof(struct kb_sup_hello) + 8] = {0};
		struct kb_sup_hello h = {0}, got;
		int sp[2], fds[2], fd;

		h.magic = c[i].magic;
		h.nown = c[i].nown;
		memcpy(msg, &h, sizeof(h));
		fds[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		fds[1] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) ==
			-1 ||
		    kb_fd_send(sp[1], msg, c[i].len ? c[i].len : sizeof(h),
			fds, (size_t)c[i].nfds) == -1) {
			ok(0, "recv: %s: sent", c[i].name);
			continue;
		}
		errno = 0;
		fd = kb_sup_recv(sp[0], &got);
		if (c[i].err == 0)
			ok(fd >= 0 && got.nown == 1, "recv: %s: accepted",
			    c[i].name);
		else
			ok(fd == -1 && errno == c[i].err, "recv: %s: refused",
			    c[i].name);
		if (fd >= 0)
			close(fd);
		close(sp[1]);
		errno = 0;
		fd = kb_sup_recv(sp[0], &got);
		if (i == 0)
			ok(fd == -1 && errno == ENODATA,
			    "recv: the end of file is ENODATA");
		close(sp[0]);
		close(fds[0]);
		close(fds[1]);
	}
}

int
main(int argc, char **argv)
{
	struct acceptor own = {.fd = -1}, host = {.fd = -1},
			granted = {.fd = -1};
	struct fdcount fdc = {.max = 0};
	pthread_t ta, th, tg, tf;
	size_t per_peer;
	int fdbase;
	char path[PATH_MAX + 32], filter[PATH_MAX + 32];
	struct kb_sup_report rep;
	struct kb_sup_hello hello;
	struct kb_sockid gid;
	struct kb_sup *sup;
	struct kb_err e;
	struct stat st;
	uint64_t a, b;
	int sp[2], out[2], res[C__N], fd, status;
	const char *why;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (argc == 6 && strcmp(argv[1], "--child") == 0) {
		snprintf(own_dir, sizeof(own_dir), "%s", argv[3]);
		snprintf(host_dir, sizeof(host_dir), "%s", argv[4]);
		return child(atoi(argv[2]), argv[5]);
	}
	test_abstract_names();
	test_recv_refuses();
	if ((why = kb_sup_unavailable()) != NULL) {
		const char *pre = getenv("LD_PRELOAD");

		/* valgrind does not emulate seccomp(2)'s notifications: the
		 * ASan build (san-unotify) runs these */
		tap_skip("the supervisor cannot work here: %s%s", why,
		    pre != NULL && strstr(pre, "vgpreload") != NULL
			? " (under valgrind, which does not emulate them)"
			: "");
		return tap_done();
	}
	snprintf(own_dir, sizeof(own_dir), "/var/tmp/kb-test-unotify.XXXXXX");
	if (mkdtemp(own_dir) == NULL)
		return 1;
	/* another mount: the "host" side */
	snprintf(host_dir, sizeof(host_dir), "/dev/shm/kb-test-unotify.XXXXXX");
	if (mkdtemp(host_dir) == NULL || !mount_id(own_dir, &a) ||
	    !mount_id(host_dir, &b) || a == b) {
		tap_skip("no second mount to stand for the host's (/dev/shm)");
		return tap_done();
	}
	snprintf(path, sizeof(path), "%s/own.sock", own_dir);
	own.fd = listen_unix(path);
	snprintf(path, sizeof(path), "%s/host.sock", host_dir);
	host.fd = listen_unix(path);
	snprintf(path, sizeof(path), "%s/granted.sock", host_dir);
	granted.fd = listen_unix(path);
	if (own.fd == -1 || host.fd == -1 || granted.fd == -1 ||
	    stat(path, &st) == -1)
		return 1;
	gid.dev = st.st_dev;
	gid.ino = st.st_ino;
	snprintf(path, sizeof(path), "%s/link.sock", own_dir);
	snprintf(filter, sizeof(filter), "%s/host.sock", host_dir);
	if (symlink(filter, path) == -1)
		return 1;
	snprintf(path, sizeof(path), "%s/regular", own_dir);
	if ((fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600)) == -1)
		return 1;
	close(fd);
	snprintf(path, sizeof(path), "%s/loop-a", own_dir);
	if (symlink("loop-b", path) == -1)
		return 1;
	snprintf(path, sizeof(path), "%s/loop-b", own_dir);
	if (symlink("loop-a", path) == -1)
		return 1;
	/* the filter kinbox ships, as a file the child reads */
	snprintf(filter, sizeof(filter), "%s/filter.bpf", own_dir);
	{
		char buf[65536];
		int in = kb_seccomp_fd_variant(KB_SECCOMP_NOTIFY, &e),
		    o = open(filter, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);

		if (in == -1 || o == -1 || (n = read(in, buf, sizeof(buf))) <= 0 ||
		    write(o, buf, (size_t)n) != n)
			return 1;
		close(in);
		close(o);
	}
	pthread_create(&ta, NULL, accept_loop, &own);
	pthread_create(&th, NULL, accept_loop, &host);
	pthread_create(&tg, NULL, accept_loop, &granted);

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sp) == -1 ||
	    pipe(out) == -1)
		return 1;
	fflush(stdout);
	if ((pid = fork()) == 0) {
		char fds[16];

		close(sp[0]);
		close(out[0]);
		dup2(out[1], 1);
		snprintf(fds, sizeof(fds), "%d", sp[1]);
		execl(argv[0], argv[0], "--child", fds, own_dir, host_dir,
		    filter, (char *)NULL);
		_exit(127);
	}
	close(sp[1]);
	close(out[1]);
	fd = kb_sup_recv(sp[0], &hello);
	ok(fd >= 0 && hello.nown == 1, "the listener and the hello arrive");
	fdbase = count_fds();
	sup = fd >= 0 ? kb_sup_start(fd, &hello, &gid, 1, false) : NULL;
	ok(sup != NULL, "the supervisor starts");
	/* KB_SUP_MAX_PER_PEER, less under a low RLIMIT_NOFILE hard limit */
	per_peer = sup != NULL ? sup->max_per_peer : 0;
	ok(per_peer > 0 && per_peer <= KB_SUP_MAX_PER_PEER &&
		sup->max_wait >= 4 * per_peer,
	    "at most %zu connects wait for one address, %zu in all",
	    per_peer, sup != NULL ? sup->max_wait : 0);
	pthread_create(&tf, NULL, fd_sampler, &fdc);
	while (got < sizeof(res) &&
	       (n = read(out[0], (char *)res + got, sizeof(res) - got)) > 0)
		got += (size_t)n;
	waitpid(pid, &status, 0);
	atomic_store(&fdc.stop, true);
	pthread_join(tf, NULL);
	/* the storm's waiting connects hold two each (the socket, the
	 * socket file); the threads refused hold none */
	ok(fdbase > 0 && fdc.max - fdbase <= 2 * (int)per_peer + 16,
	    "the supervisor's descriptors stay bounded during the storm (%d "
	    "more at most, %d allowed)",
	    fdc.max - fdbase, 2 * (int)per_peer + 16);
	kb_sup_stop(sup, &rep);
	atomic_store(&own.stop, true);
	atomic_store(&host.stop, true);
	atomic_store(&granted.stop, true);
	pthread_join(ta, NULL);
	pthread_join(th, NULL);
	pthread_join(tg, NULL);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
		got == sizeof(res),
	    "the child made its connects (exit %d)",
	    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	if (got == sizeof(res)) {
		res[C_RACE] = atomic_load(&host.count);
		for (int i = 0; i < C__N; i++) {
			if (want[i] == -1) {
				ok(res[i] > 0, "%s (%d of %d)", case_name[i],
				    res[i], RACE_N);
				continue;
			}
			if (want[i] <= -2) {
				bool in = false, count = true;

				switch (want[i]) {
				case -2: /* a time about 200 ms */
					in = res[i] >= 150 && res[i] < 1500;
					count = false;
					break;
				case -3:
					in = res[i] ==
					     STORM_N - (int)per_peer;
					break;
				case -4: /* a time under a second */
					in = res[i] >= 0 && res[i] < 1000;
					count = false;
					break;
				case -5: /* a time under 1.5 s */
					in = res[i] >= 0 && res[i] < 1500;
					count = false;
					break;
				case -6:
					in = res[i] == (int)per_peer;
					break;
				default: /* -7: none */
					in = res[i] == 0;
					break;
				}
				ok(in, "%s (%d%s)", case_name[i], res[i],
				    count ? "" : " ms");
				continue;
			}
			ok(res[i] == want[i], "%s", case_name[i]);
			if (res[i] != want[i])
				printf("#   got %d (%s), want %d\n", res[i],
				    res[i] > 0 ? strerror(res[i]) : "",
				    want[i]);
		}
	}
	assert_cmpint(atomic_load(&host.count), 0,
	    "the host listener accepted nothing");
	ok(atomic_load(&granted.count) == 1,
	    "the granted listener accepted the one granted connect");
	ok(atomic_load(&own.count) > 4,
	    "the own listener accepted the own connects");
	snprintf(path, sizeof(path), "%s/host.sock", host_dir);
	{
		bool named = false;

		for (size_t i = 0; i < rep.ndenial; i++)
			if (strcmp(rep.denial[i].path, path) == 0 &&
			    rep.denial[i].count > 4)
				named = true;
		ok(named, "the report names the refused socket by its path");
	}
	ok(rep.failed == 0 && rep.connects > RACE_N,
	    "every connect was mediated (%llu), none failed (%llu)",
	    rep.connects, rep.failed);

	/* tidy */
	for (const char *const *f = (const char *const[]){"own.sock",
		 "link.sock", "regular", "filter.bpf", "loop-a", "loop-b", NULL};
	     *f != NULL; f++) {
		snprintf(path, sizeof(path), "%s/%s", own_dir, *f);
		unlink(path);
	}
	for (const char *const *f =
		 (const char *const[]){"host.sock", "granted.sock", NULL};
	     *f != NULL; f++) {
		snprintf(path, sizeof(path), "%s/%s", host_dir, *f);
		unlink(path);
	}
	rmdir(own_dir);
	rmdir(host_dir);
	close(own.fd);
	close(host.fd);
	close(granted.fd);
	close(sp[0]);
	close(out[0]);
	return tap_done();
}
