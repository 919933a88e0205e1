/*
 * mediate/unotify-meta.c — the landlock backend's metadata supervisor
 * (see unotify-meta.h).
 *
 * Landlock has no right for a file's mode, owner, times or extended
 * attributes: without this, a command under the landlock backend chmods,
 * touches and setfacls any file of its user outside the write roots (as
 * root, chmod 666 /etc/shadow). kinbox-exec loads a second filter that
 * turns chmod, fchmod, fchmodat, fchmodat2, chown, lchown, fchown,
 * fchownat, utime, utimes, futimesat, utimensat, setxattr, lsetxattr,
 * fsetxattr, removexattr, lremovexattr and fremovexattr into user
 * notifications (setxattrat and removexattrat, Linux 6.13, are refused
 * ENOSYS: libc falls back to the others) and sends the listener here. One
 * thread answers each call, never with CONTINUE (the kernel would read the
 * path again after the decision):
 *   1. the path, the times, the attribute's name and value are copied once
 *      (process_vm_readv) and the notification checked to be still
 *      pending (the pid is still the caller's);
 *   2. the file is resolved as the caller would, to an O_PATH descriptor:
 *      from its cwd (/proc/TID/cwd) or its directory descriptor
 *      (/proc/TID/fd/N), with openat2 and no magic link; a descriptor call
 *      (fchmod, fchown, fsetxattr, futimens) opens /proc/TID/fd/N, the
 *      same file (pidfd_getfd is not needed: Docker's default profile
 *      refuses it);
 *   3. it lies beneath a write root when it is one of the roots kinbox-exec
 *      made its Landlock rules on, or the directory that holds it (its
 *      path read back from the descriptor, the name there checked to be the
 *      same inode) or one of that directory's ancestors ("..", as Landlock
 *      walks) is: the same inodes Landlock's write rules are attached to.
 *      A file with no name left (unlinked, O_TMPFILE, memfd) is the
 *      command's own: only a descriptor reaches it;
 *   4. beneath a root, the change is made here on that descriptor
 *      (/proc/self/fd/N, or AT_EMPTY_PATH), so the inode judged is the inode
 *      changed, and its result is the command's; elsewhere the command gets
 *      EROFS, as from the bwrap backend's read-only mounts, and the file is
 *      remembered for the report.
 * The command cannot move a file into a root from outside or out of one
 * (Landlock's REFER), so what was judged stays true while it is changed.
 *
 * The serving thread has no capability in its effective set (root's are
 * dropped on it: capabilities are per thread), so a change has no more
 * rights than the command, which has none: a chown to another user, a
 * security.capability attribute or a trusted.* one fails as it would for
 * the command. The setuid and setgid modes never reach it (the landlock
 * filter refuses them first, ERRNO before USER_NOTIF).
 *
 * Only the native architecture's calls are mediated (x86-64 and x32 on an
 * x86-64 kernel, aarch64); a 32-bit x86 program's get EPERM.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include <linux/audit.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>

#include "../lib/fdpass.h"
#include "unotify-meta.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#define X32_BIT     0x40000000
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#define X32_BIT     0
#endif

#define XATTR_NAME_LEN  256   /* XATTR_NAME_MAX + 1 */
#define XATTR_VALUE_MAX 65536 /* XATTR_SIZE_MAX */
#define WALK_MAX        4096  /* ancestors looked at, at most */

struct kb_meta {
	int listener;
	int stop[2];
	pthread_t thread;
	size_t nroot;
	struct {
		dev_t dev;
		ino_t ino;
	} root[KB_META_MAX_ROOT];
	struct seccomp_notif_sizes sizes;
	pthread_mutex_t mu; /* the report */
	struct kb_meta_report rep;
};

/* AT_SYMLINK_NOFOLLOW and AT_EMPTY_PATH, the only flags the *at calls take */
static int
at_flags(uint64_t f, struct kb_meta_call *c, int *err)
{
	if ((f & 0xffffffffU) &
	    ~(unsigned)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)) {
		*err = EINVAL;
		return -1;
	}
	c->follow = !(f & AT_SYMLINK_NOFOLLOW);
	c->empty_ok = (f & AT_EMPTY_PATH) != 0;
	return 0;
}

int
kb_meta_decode(int nr, const uint64_t a[6], struct kb_meta_call *c, int *err)
{
	memset(c, 0, sizeof(*c));
	*err = 0;
	c->dirfd = AT_FDCWD;
	c->follow = 1;
	switch (nr) {
#ifdef SYS_chmod
	case SYS_chmod:
		c->name = "chmod";
		c->op = KB_META_CHMOD;
		c->path = a[0];
		c->mode = a[1];
		return 0;
#endif
	case SYS_fchmod:
		c->name = "fchmod";
		c->op = KB_META_CHMOD;
		c->dirfd = (int)a[0];
		c->fd_form = 1;
		c->mode = a[1];
		return 0;
	case SYS_fchmodat:
		c->name = "fchmodat";
		c->op = KB_META_CHMOD;
		c->dirfd = (int)a[0];
		c->path = a[1];
		c->mode = a[2];
		return 0;
	case SYS_fchmodat2:
		c->name = "fchmodat2";
		c->op = KB_META_CHMOD;
		c->dirfd = (int)a[0];
		c->path = a[1];
		c->mode = a[2];
		at_flags(a[3], c, err);
		return 0;
#ifdef SYS_chown
	case SYS_chown:
	case SYS_lchown:
		c->name = nr == SYS_chown ? "chown" : "lchown";
		c->op = KB_META_CHOWN;
		c->path = a[0];
		c->follow = nr == SYS_chown;
		c->uid = (uint32_t)a[1];
		c->gid = (uint32_t)a[2];
		return 0;
#endif
	case SYS_fchown:
		c->name = "fchown";
		c->op = KB_META_CHOWN;
		c->dirfd = (int)a[0];
		c->fd_form = 1;
		c->uid = (uint32_t)a[1];
		c->gid = (uint32_t)a[2];
		return 0;
	case SYS_fchownat:
		c->name = "fchownat";
		c->op = KB_META_CHOWN;
		c->dirfd = (int)a[0];
		c->path = a[1];
		c->uid = (uint32_t)a[2];
		c->gid = (uint32_t)a[3];
		at_flags(a[4], c, err);
		return 0;
#ifdef SYS_utime
	case SYS_utime:
	case SYS_utimes:
		c->name = nr == SYS_utime ? "utime" : "utimes";
		c->op = KB_META_UTIMES;
		c->path = a[0];
		c->times = a[1];
		c->tkind =
		    nr == SYS_utime ? KB_META_T_UTIMBUF : KB_META_T_TIMEVAL;
		return 0;
	case SYS_futimesat:
		c->name = "futimesat";
		c->op = KB_META_UTIMES;
		c->dirfd = (int)a[0];
		c->path = a[1];
		c->fd_form = a[1] == 0 && (int)a[0] != AT_FDCWD;
		c->times = a[2];
		c->tkind = KB_META_T_TIMEVAL;
		return 0;
#endif
	case SYS_utimensat:
		c->name = "utimensat";
		c->op = KB_META_UTIMES;
		c->dirfd = (int)a[0];
		c->path = a[1];
		c->times = a[2];
		c->tkind = KB_META_T_TIMESPEC;
		if (at_flags(a[3], c, err) == -1)
			return 0;
		/* futimens: no path, the descriptor, and no flag */
		if (a[1] == 0) {
			if ((int)a[0] == AT_FDCWD)
				*err = EFAULT;
			else if (!c->follow)
				*err = EINVAL;
			c->fd_form = 1;
		}
		return 0;
	case SYS_setxattr:
	case SYS_lsetxattr:
	case SYS_fsetxattr:
		c->name = nr == SYS_setxattr    ? "setxattr"
			  : nr == SYS_lsetxattr ? "lsetxattr"
						: "fsetxattr";
		c->op = KB_META_SETXATTR;
		if (nr == SYS_fsetxattr) {
			c->dirfd = (int)a[0];
			c->fd_form = 1;
		} else {
			c->path = a[0];
		}
		c->follow = nr != SYS_lsetxattr;
		c->name_addr = a[1];
		c->value = a[2];
		c->size = a[3];
		c->xflags = (int)a[4];
		if ((unsigned)c->xflags &
		    ~(unsigned)(XATTR_CREATE | XATTR_REPLACE))
			*err = EINVAL;
		else if (c->size > XATTR_VALUE_MAX)
			*err = E2BIG;
		return 0;
	case SYS_removexattr:
	case SYS_lremovexattr:
	case SYS_fremovexattr:
		c->name = nr == SYS_removexattr    ? "removexattr"
			  : nr == SYS_lremovexattr ? "lremovexattr"
						   : "fremovexattr";
		c->op = KB_META_REMOVEXATTR;
		if (nr == SYS_fremovexattr) {
			c->dirfd = (int)a[0];
			c->fd_form = 1;
		} else {
			c->path = a[0];
		}
		c->follow = nr != SYS_lremovexattr;
		c->name_addr = a[1];
		return 0;
	default:
		return -1;
	}
}

static void
respond(struct kb_meta *m, uint64_t id, int err)
{
	struct seccomp_notif_resp *resp =
	    calloc(1, m->sizes.seccomp_notif_resp);

	if (resp == NULL)
		return; /* the call waits until the command dies */
	resp->id = id;
	resp->error = err ? -err : 0;
	/* ENOENT: the caller died or was interrupted meanwhile */
	while (ioctl(m->listener, SECCOMP_IOCTL_NOTIF_SEND, resp) == -1 &&
	       errno == EINTR)
		;
	free(resp);
}

static bool
notif_valid(const struct kb_meta *m, uint64_t id)
{
	return ioctl(m->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* n bytes at `addr` of thread `pid`: 0 or the errno */
static int
peek(pid_t pid, uint64_t addr, void *buf, size_t n)
{
	struct iovec local = {buf, n};
	struct iovec remote = {(void *)(uintptr_t)addr, n};

	if (n == 0)
		return 0;
	if (process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)n)
		return 0;
	return errno == 0 || errno == EFAULT ? EFAULT : errno;
}

/* A NUL-terminated string of at most size - 1 bytes at `addr`, read a
 * page at a time (it may end just before an unmapped one): 0, or EFAULT,
 * `toolong` when there is no NUL within size, another errno */
static int
peek_string(pid_t pid, uint64_t addr, char *buf, size_t size, int toolong)
{
	size_t got = 0;

	while (got < size) {
		size_t page = 4096 - (size_t)((addr + got) & 4095);
		size_t n = page < size - got ? page : size - got;
		int err = peek(pid, addr + got, buf + got, n);

		if (err != 0)
			return err;
		if (memchr(buf + got, '\0', n) != NULL)
			return 0;
		got += n;
	}
	return toolong;
}

/* everything the call points at, copied once */
struct args {
	char path[PATH_MAX];
	char xname[XATTR_NAME_LEN];
	struct timespec ts[2];
	bool now; /* times NULL */
	char *value;
};

static int
copy_args(pid_t pid, const struct kb_meta_call *c, struct args *a)
{
	int err;

	a->path[0] = '\0';
	if (c->path != 0 && (err = peek_string(pid, c->path, a->path,
				 sizeof(a->path), ENAMETOOLONG)) != 0)
		return err;
	if (c->op == KB_META_SETXATTR || c->op == KB_META_REMOVEXATTR) {
		if ((err = peek_string(pid, c->name_addr, a->xname,
			 sizeof(a->xname), ERANGE)) != 0)
			return err;
		if (a->xname[0] == '\0')
			return ERANGE;
	}
	if (c->op == KB_META_SETXATTR && c->size > 0) {
		if ((a->value = malloc(c->size)) == NULL)
			return ENOMEM;
		if ((err = peek(pid, c->value, a->value, c->size)) != 0)
			return err;
	}
	a->now = c->times == 0;
	if (c->op != KB_META_UTIMES || a->now)
		return 0;
	switch (c->tkind) {
	case KB_META_T_UTIMBUF: {
		struct utimbuf u;

		if ((err = peek(pid, c->times, &u, sizeof(u))) != 0)
			return err;
		a->ts[0] = (struct timespec){u.actime, 0};
		a->ts[1] = (struct timespec){u.modtime, 0};
		return 0;
	}
	case KB_META_T_TIMEVAL: {
		struct timeval tv[2];

		if ((err = peek(pid, c->times, tv, sizeof(tv))) != 0)
			return err;
		for (int i = 0; i < 2; i++) {
			if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000)
				return EINVAL;
			a->ts[i] = (struct timespec){
			    tv[i].tv_sec, tv[i].tv_usec * 1000};
		}
		return 0;
	}
	case KB_META_T_TIMESPEC:
		/* checked by the kernel when it is used */
		return peek(pid, c->times, a->ts, sizeof(a->ts));
	case KB_META_T_NONE:
		break;
	}
	return EINVAL;
}

/* /proc/TID/fd/N (the caller's descriptor N, the same file) or
 * /proc/TID/cwd, O_PATH: -1 with errno (EBADF for a descriptor that is
 * not open) */
static int
open_caller(pid_t pid, int fd)
{
	char proc[64];
	int r;

	if (fd == AT_FDCWD)
		snprintf(proc, sizeof(proc), "/proc/%d/cwd", (int)pid);
	else if (fd < 0) {
		errno = EBADF;
		return -1;
	} else
		snprintf(proc, sizeof(proc), "/proc/%d/fd/%d", (int)pid, fd);
	r = open(proc, O_PATH | O_CLOEXEC);
	if (r == -1 && errno == ENOENT && fd != AT_FDCWD)
		errno = EBADF;
	return r;
}

/* After /proc/self/fd/, /proc/thread-self/fd/ or /dev/fd/: the
 * descriptor's number and the rest (NULL when `path` is none of those) */
static const char *
self_fd(const char *path, int *fd)
{
	static const char *const pre[] = {
	    "/proc/self/fd/", "/proc/thread-self/fd/", "/dev/fd/"};

	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
		size_t n = strlen(pre[i]);
		char *end;
		long v;

		if (strncmp(path, pre[i], n) != 0)
			continue;
		errno = 0;
		v = strtol(path + n, &end, 10);
		if (end == path + n || v < 0 || v > INT_MAX || errno != 0 ||
		    (*end != '\0' && *end != '/'))
			return NULL;
		*fd = (int)v;
		while (*end == '/')
			end++;
		return end;
	}
	return NULL;
}

/*
 * The file the call names, as the caller would find it, O_PATH: its
 * descriptor, or -1 with *err. The caller's /proc entries are opened
 * before the notification is checked again (then they were its).
 */
static int
resolve(struct kb_meta *m, const struct seccomp_notif *req,
    const struct kb_meta_call *c, const char *path, int *err)
{
	struct open_how how = {
	    .flags = O_PATH | O_CLOEXEC | (c->follow ? 0 : O_NOFOLLOW),
	    .resolve = RESOLVE_NO_MAGICLINKS,
	};
	const char *rest = path;
	int base = AT_FDCWD, fd, n;
	bool opened = false;

	if (c->fd_form || (path[0] == '\0' && c->empty_ok)) {
		fd = open_caller((pid_t)req->pid, c->dirfd);
		*err = errno;
		if (fd != -1 && !notif_valid(m, req->id)) {
			close(fd);
			*err = ESRCH;
			return -1;
		}
		return fd;
	}
	if (path[0] == '\0') {
		*err = ENOENT;
		return -1;
	}
	/* kinbox's /proc/self is not the caller's */
	if ((rest = self_fd(path, &n)) != NULL) {
		base = open_caller((pid_t)req->pid, n);
		opened = true;
	} else if (strcmp(path, "/proc/self/cwd") == 0 ||
		   strncmp(path, "/proc/self/cwd/", 15) == 0) {
		base = open_caller((pid_t)req->pid, AT_FDCWD);
		rest = path + 14;
		while (*rest == '/')
			rest++;
		opened = true;
	} else if (path[0] != '/') {
		base = open_caller((pid_t)req->pid, c->dirfd);
		rest = path;
		opened = true;
	} else {
		rest = path;
	}
	if (opened && base == -1) {
		*err = errno;
		return -1;
	}
	if (!notif_valid(m, req->id)) {
		if (opened)
			close(base);
		*err = ESRCH;
		return -1;
	}
	if (rest[0] == '\0') {
		/* the descriptor itself (/proc/self/fd/N) */
		return base;
	}
	for (int tries = 0;; tries++) {
		fd = (int)syscall(SYS_openat2, base, rest, &how, sizeof(how));
		if (fd != -1 || errno != EAGAIN || tries == 8)
			break;
	}
	*err = errno;
	if (opened)
		close(base);
	return fd;
}

static bool
is_root(const struct kb_meta *m, const struct stat *st)
{
	for (size_t i = 0; i < m->nroot; i++)
		if (m->root[i].dev == st->st_dev &&
		    m->root[i].ino == st->st_ino)
			return true;
	return false;
}

/* `dir` (taken over) or one of its ancestors is a root */
static bool
walk_up(const struct kb_meta *m, int dir)
{
	struct stat st, up;
	bool found = false;

	if (fstat(dir, &st) == -1) {
		close(dir);
		return false;
	}
	for (int i = 0; i < WALK_MAX; i++) {
		int parent;

		if (is_root(m, &st)) {
			found = true;
			break;
		}
		parent = openat(dir, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (parent == -1 || fstat(parent, &up) == -1) {
			if (parent != -1)
				close(parent);
			break;
		}
		close(dir);
		dir = parent;
		/* the root of the filesystem tree: its own parent */
		if (up.st_dev == st.st_dev && up.st_ino == st.st_ino)
			break;
		st = up;
	}
	close(dir);
	return found;
}

/*
 * Does the file of `fd` lie beneath a write root, as Landlock would judge
 * a write to it? (What `path` gets: the path kinbox read back, for the
 * report.)
 */
static bool
beneath_root(const struct kb_meta *m, int fd, char *path, size_t size)
{
	struct open_how how = {
	    .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
	    .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	static const char deleted[] = " (deleted)";
	char link[64], *slash;
	struct stat st, named;
	ssize_t n;
	int dir;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, size - 1);
	path[n > 0 ? n : 0] = '\0';
	if (fstat(fd, &st) == -1)
		return false;
	if (is_root(m, &st))
		return true;
	/* a pipe, a socket, an anonymous inode: no file of anyone's */
	if (n <= 0 || (size_t)n >= size - 1 || path[0] != '/')
		return false;
	/* no name left: only a descriptor reaches it, and a name can be
	 * given back only to an O_TMPFILE file, in a directory the command
	 * may write (Landlock) */
	if (st.st_nlink == 0 && (size_t)n > sizeof(deleted) - 1 &&
	    strcmp(path + n - (sizeof(deleted) - 1), deleted) == 0)
		return true;
	if ((slash = strrchr(path, '/')) == NULL || slash[1] == '\0')
		return false; /* "/" */
	*slash = '\0';
	dir = (int)syscall(SYS_openat2, AT_FDCWD, slash == path ? "/" : path,
	    &how, sizeof(how));
	*slash = '/';
	if (dir == -1)
		return false;
	/* the name there is this file (a rename meanwhile: refused) */
	if (fstatat(dir, slash + 1, &named, AT_SYMLINK_NOFOLLOW) == -1 ||
	    named.st_dev != st.st_dev || named.st_ino != st.st_ino) {
		close(dir);
		return false;
	}
	return walk_up(m, dir);
}

/* the change, made on `fd` (the file judged): 0 or the errno */
static int
act(const struct kb_meta_call *c, int fd, const struct args *a)
{
	char p[64];
	struct stat st;
	int r = -1;

	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	switch (c->op) {
	case KB_META_CHMOD:
		/* as fchmodat2 says of a symlink */
		if (fstat(fd, &st) == 0 && S_ISLNK(st.st_mode))
			return EOPNOTSUPP;
		r = fchmodat(AT_FDCWD, p, (mode_t)(c->mode & 07777), 0);
		break;
	case KB_META_CHOWN:
		r = fchownat(fd, "", c->uid, c->gid, AT_EMPTY_PATH);
		break;
	case KB_META_UTIMES:
		r = utimensat(fd, "", a->now ? NULL : a->ts, AT_EMPTY_PATH);
		break;
	case KB_META_SETXATTR:
		/* the magic link leads to the file itself, a symlink too */
		r = setxattr(p, a->xname, a->value, c->size, c->xflags);
		break;
	case KB_META_REMOVEXATTR:
		r = removexattr(p, a->xname);
		break;
	}
	return r == -1 ? errno : 0;
}

static void
count(struct kb_meta *m, unsigned long long *what)
{
	pthread_mutex_lock(&m->mu);
	(*what)++;
	pthread_mutex_unlock(&m->mu);
}

static void
note_denial(struct kb_meta *m, const char *call, const char *path)
{
	pthread_mutex_lock(&m->mu);
	m->rep.refused++;
	for (size_t i = 0; i < m->rep.ndenial; i++)
		if (strcmp(m->rep.denial[i].path, path) == 0) {
			m->rep.denial[i].count++;
			pthread_mutex_unlock(&m->mu);
			return;
		}
	if (m->rep.ndenial < KB_META_MAX_DENIAL) {
		struct kb_meta_denial *d = &m->rep.denial[m->rep.ndenial++];

		snprintf(d->path, sizeof(d->path), "%s", path);
		snprintf(d->call, sizeof(d->call), "%s", call);
		d->count = 1;
	}
	pthread_mutex_unlock(&m->mu);
}

static void
serve(struct kb_meta *m, const struct seccomp_notif *req)
{
	static struct args a;
	static char seen[PATH_MAX];
	struct kb_meta_call c;
	uint64_t args[6];
	int nr = req->data.nr, err, fd;

#ifdef NATIVE_ARCH
	if (req->data.arch != NATIVE_ARCH) {
		count(m, &m->rep.failed);
		respond(m, req->id, EPERM);
		return;
	}
#endif
	nr &= ~X32_BIT;
	for (int i = 0; i < 6; i++)
		args[i] = req->data.args[i];
	if (kb_meta_decode(nr, args, &c, &err) == -1) {
		count(m, &m->rep.failed);
		respond(m, req->id, EPERM);
		return;
	}
	if (err != 0) {
		respond(m, req->id, err);
		return;
	}
	memset(&a, 0, sizeof(a));
	/* as the kernel's getname() of a NULL path */
	if (!c.fd_form && c.path == 0) {
		respond(m, req->id, EFAULT);
		return;
	}
	if ((err = copy_args((pid_t)req->pid, &c, &a)) != 0) {
		free(a.value);
		if (err == ESRCH)
			return; /* gone */
		if (err != EFAULT && err != ENAMETOOLONG && err != ERANGE &&
		    err != EINVAL) {
			/* out of reach (not dumpable, ptrace refused):
			 * fail closed */
			count(m, &m->rep.failed);
			err = EPERM;
		}
		respond(m, req->id, err);
		return;
	}
	if (!notif_valid(m, req->id)) {
		free(a.value);
		return;
	}
	fd = resolve(m, req, &c, a.path, &err);
	if (fd == -1) {
		free(a.value);
		if (err != ESRCH)
			respond(m, req->id, err);
		return;
	}
	if (!beneath_root(m, fd, seen, sizeof(seen))) {
		note_denial(m, c.name, seen[0] != '\0' ? seen : a.path);
		respond(m, req->id, EROFS);
	} else {
		count(m, &m->rep.served);
		respond(m, req->id, act(&c, fd, &a));
	}
	close(fd);
	free(a.value);
}

/* every capability out of this thread's effective set but CAP_SYS_PTRACE
 * (reading an undumpable command's memory and /proc entries, as root):
 * the changes are made with the command's rights */
static void
drop_caps(void)
{
	struct {
		unsigned version;
		int pid;
	} hdr = {0x20080522, 0}; /* _LINUX_CAPABILITY_VERSION_3 */
	struct {
		unsigned effective, permitted, inheritable;
	} data[2];
	const unsigned keep = 1u << 19; /* CAP_SYS_PTRACE */

	if (syscall(SYS_capget, &hdr, data) == -1)
		return;
	data[0].effective &= keep;
	data[1].effective = 0;
	syscall(SYS_capset, &hdr, data);
}

static void *
dispatch(void *arg)
{
	struct kb_meta *m = arg;
	struct seccomp_notif *req = calloc(1, m->sizes.seccomp_notif);

	drop_caps();
	while (req != NULL) {
		struct pollfd p[2] = {
		    {.fd = m->listener, .events = POLLIN},
		    {.fd = m->stop[0], .events = POLLIN},
		};

		if (poll(p, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		/* every process of the filter is gone */
		if (p[0].revents & (POLLHUP | POLLERR | POLLNVAL) &&
		    !(p[0].revents & POLLIN))
			break;
		memset(req, 0, m->sizes.seccomp_notif);
		if (ioctl(m->listener, SECCOMP_IOCTL_NOTIF_RECV, req) == -1) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			break;
		}
		serve(m, req);
	}
	free(req);
	return NULL;
}

struct kb_meta *
kb_meta_start(int listener, const struct kb_meta_hello *hello)
{
	struct kb_meta *m = calloc(1, sizeof(*m));
	sigset_t all, old;
	int rc;

	if (m == NULL || hello->nroot > KB_META_MAX_ROOT) {
		free(m);
		close(listener);
		errno = EINVAL;
		return NULL;
	}
	m->listener = listener;
	m->stop[0] = m->stop[1] = -1;
	m->nroot = hello->nroot;
	for (size_t i = 0; i < m->nroot; i++) {
		m->root[i].dev = (dev_t)hello->root[i].dev;
		m->root[i].ino = (ino_t)hello->root[i].ino;
	}
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &m->sizes) == -1 ||
	    pipe2(m->stop, O_CLOEXEC) == -1)
		goto fail;
	ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
	    SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	pthread_mutex_init(&m->mu, NULL);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(&m->thread, NULL, dispatch, m);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		pthread_mutex_destroy(&m->mu);
		errno = rc;
		goto fail;
	}
	return m;
fail:
	rc = errno;
	close(listener);
	if (m->stop[0] != -1) {
		close(m->stop[0]);
		close(m->stop[1]);
	}
	free(m);
	errno = rc;
	return NULL;
}

void
kb_meta_stop(struct kb_meta *m, struct kb_meta_report *out)
{
	if (m == NULL)
		return;
	close(m->stop[1]);
	pthread_join(m->thread, NULL);
	close(m->stop[0]);
	if (out != NULL)
		*out = m->rep;
	close(m->listener);
	pthread_mutex_destroy(&m->mu);
	free(m);
}

int
kb_meta_recv(int sock, struct kb_meta_hello *hello)
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
		errno = ENODATA;
		return -1;
	}
	if ((size_t)n == sizeof(*hello))
		memcpy(hello, buf, sizeof(*hello));
	if (nfd != 1 || (size_t)n != sizeof(*hello) ||
	    hello->magic != KB_META_MAGIC || hello->nroot > KB_META_MAX_ROOT) {
		if (nfd == 1)
			close(fd);
		errno = EPROTO;
		return -1;
	}
	return fd;
}

const char *
kb_meta_unavailable(void)
{
	struct seccomp_notif_sizes sz;
	int fd, scope = 0;
	FILE *f;

#ifndef NATIVE_ARCH
	return "kinbox mediates metadata calls on x86-64 and aarch64 only";
#endif
	if (getenv("KINBOX_ACTIVE") != NULL)
		return "inside a kinbox sandbox already, whose filter refuses "
		       "a second listener (the outer sandbox still confines "
		       "metadata calls to its own write roots)";
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) == -1)
		return "seccomp user notifications are unavailable "
		       "(refused by a container's filter)";
	if ((f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re")) != NULL) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = 0;
		fclose(f);
	}
	if (scope >= 3)
		return "Yama's ptrace_scope is 3: no process may read "
		       "another's memory";
	if (scope == 2 && geteuid() != 0)
		return "Yama's ptrace_scope is 2: only root may read "
		       "another process's memory";
	{
		struct open_how how = {.flags = O_PATH | O_CLOEXEC,
		    .resolve = RESOLVE_NO_MAGICLINKS};

		fd =
		    (int)syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));
		if (fd == -1)
			return "openat2 is unavailable (refused by a "
			       "container's filter)";
		close(fd);
	}
	return NULL;
}
