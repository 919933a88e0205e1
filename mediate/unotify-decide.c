/*
 * mediate/unotify-decide.c — what a connect of the sandboxed command may
 * reach (the rule of mediate/unotify.c): a pathname resolved in the
 * caller's view to a socket file, then judged by that inode's mount (one
 * of the command's own) or its dev/ino (a grant); an abstract name, with
 * --net, by who listens on it. Everything here runs on the supervisor's
 * threads, on descriptors and /proc entries of kinbox's own procfs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <linux/openat2.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/stat.h>
#include <linux/unix_diag.h>

#include "../lib/util.h"
#include "unotify-int.h"

bool
sup_notif_valid(const struct kb_sup *s, uint64_t id)
{
	return ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

void
sup_note_denial(struct kb_sup *s, const char *named, int opath, int err)
{
	char link[64], path[4096];
	ssize_t n = -1;

	if (opath != -1) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", opath);
		n = readlink(link, path, sizeof(path) - 1);
	}
	if (n <= 0)
		snprintf(path, sizeof(path), "%s", named);
	else
		path[n] = '\0';
	pthread_mutex_lock(&s->mu);
	s->rep.refused++;
	for (size_t i = 0; i < s->rep.ndenial; i++)
		if (strcmp(s->rep.denial[i].path, path) == 0) {
			s->rep.denial[i].count++;
			pthread_mutex_unlock(&s->mu);
			return;
		}
	if (s->rep.ndenial < KB_SUP_MAX_DENIAL) {
		struct kb_refused_socket *d = &s->rep.denial[s->rep.ndenial++];

		snprintf(d->path, sizeof(d->path), "%s", path);
		snprintf(d->named, sizeof(d->named), "%s", named);
		d->err = err;
		d->count = 1;
	}
	pthread_mutex_unlock(&s->mu);
}

/* The decision on the resolved socket file `fd` (taken over): 0 with
 * *opath = fd to connect to, or the errno the command gets. */
static int
judge(struct kb_sup *s, const char *named, int fd, int *opath)
{
	struct statx sx;

	if (syscall(SYS_statx, fd, "", AT_EMPTY_PATH,
		STATX_TYPE | STATX_INO | STATX_MNT_ID |
		    (s->unique ? STATX_MNT_ID_UNIQUE : 0),
		&sx) == -1) {
		close(fd);
		return EACCES;
	}
	if (!S_ISSOCK(sx.stx_mode)) {
		close(fd);
		return ECONNREFUSED; /* the kernel's answer for a non-socket */
	}
	for (size_t i = 0; i < s->ngranted; i++)
		if (s->granted[i].ino == sx.stx_ino &&
		    s->granted[i].dev ==
			makedev(sx.stx_dev_major, sx.stx_dev_minor)) {
			*opath = fd;
			return 0;
		}
	if (s->unique == ((sx.stx_mask & STATX_MNT_ID_UNIQUE) != 0))
		for (size_t i = 0; i < s->nown; i++)
			if (s->own[i] == sx.stx_mnt_id) {
				*opath = fd;
				return 0;
			}
	sup_note_denial(s, named, fd, EACCES);
	close(fd);
	return EACCES;
}

/* After "/proc/self/" or "/proc/thread-self/": the rest, else NULL. */
static const char *
proc_self(const char *path)
{
	static const char *const pre[] = {"/proc/self/", "/proc/thread-self/"};

	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (strncmp(path, pre[i], strlen(pre[i])) == 0)
			return path + strlen(pre[i]);
	return NULL;
}

/*
 * /proc/self/fd/N[/REST] inside: the caller's descriptor N (taken with
 * pidfd_getfd), then REST beneath it, no symlink out of it and no magic
 * link. The usual way around sun_path's 108 bytes. -1 with errno.
 */
static int
open_by_fd(int pidfd, const char *after)
{
	struct open_how how = {
	    .flags = O_PATH | O_CLOEXEC,
	    .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	char *end;
	long n;
	int dir, fd, err;

	errno = 0;
	n = strtol(after, &end, 10);
	if (end == after || n < 0 || n > INT_MAX || errno != 0 ||
	    (*end != '\0' && *end != '/')) {
		errno = ENOENT;
		return -1;
	}
	if ((dir = (int)syscall(SYS_pidfd_getfd, pidfd, (int)n, 0)) == -1) {
		if (errno == EBADF)
			errno = ENOENT;
		return -1;
	}
	if (*end == '\0' || end[1] == '\0')
		return dir;
	fd = (int)syscall(SYS_openat2, dir, end + 1, &how, sizeof(how));
	err = errno;
	close(dir);
	errno = err;
	return fd;
}

/*
 * Resolves the pathname `named` as the caller (pid) would, in its root,
 * and decides (judge()). Returns 0 with *opath set (connect to it), or the
 * errno the command gets.
 */
int
sup_decide_path(struct kb_sup *s, const struct seccomp_notif *req, int pidfd,
    const char *named, int *opath)
{
	char proc[64], abs[PATH_MAX + 128];
	struct open_how how = {
	    .flags = O_PATH | O_CLOEXEC,
	    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	const char *rel = named, *self = proc_self(named);
	int root, fd, err;

	*opath = -1;
	/* kinbox's /proc/self is not the caller's: its descriptors and its
	 * cwd are looked up as the caller's own */
	if (self != NULL && strncmp(self, "fd/", 3) == 0) {
		if ((fd = open_by_fd(pidfd, self + 3)) == -1) {
			if ((err = errno) == ENOENT || err == ENOTDIR)
				return err;
			sup_note_denial(s, named, -1, EACCES);
			return EACCES;
		}
		if (!sup_notif_valid(s, req->id)) {
			close(fd);
			return ESRCH;
		}
		return judge(s, named, fd, opath);
	}
	if (self != NULL && strncmp(self, "cwd", 3) == 0 &&
	    (self[3] == '/' || self[3] == '\0'))
		rel = self[3] == '/' && self[4] != '\0' ? self + 4 : ".";
	snprintf(proc, sizeof(proc), "/proc/%u/root", req->pid);
	if ((root = open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return errno == ENOENT ? ESRCH : EACCES;
	if (rel[0] == '/') {
		snprintf(abs, sizeof(abs), "%s", rel);
	} else {
		char cwd[PATH_MAX];
		ssize_t n;

		snprintf(proc, sizeof(proc), "/proc/%u/cwd", req->pid);
		n = readlink(proc, cwd, sizeof(cwd) - 1);
		/* a cwd outside its root, or deleted: nothing to resolve
		 * against */
		if (n <= 0 || cwd[0] != '/') {
			close(root);
			return EACCES;
		}
		cwd[n] = '\0';
		snprintf(abs, sizeof(abs), "%s/%s", cwd, rel);
	}
	/* the root and cwd read are the caller's, not a recycled pid's */
	if (!sup_notif_valid(s, req->id)) {
		close(root);
		return ESRCH;
	}
	/* EAGAIN: a rename anywhere during the walk; try again */
	for (int tries = 0; tries < 8; tries++)
		if ((fd = (int)syscall(
			 SYS_openat2, root, abs, &how, sizeof(how))) != -1 ||
		    errno != EAGAIN)
			break;
	close(root);
	if (fd == -1) {
		err = errno;
		/* a magic link (the rest of /proc, a symlink to one) is not
		 * followed: refused as a socket kinbox cannot place;
		 * elsewhere what the kernel would have said (ELOOP for a
		 * loop of symlinks) */
		if (err == EXDEV || err == EAGAIN ||
		    (strncmp(abs, "/proc/", 6) == 0 &&
			(err == ELOOP || err == ENOENT))) {
			sup_note_denial(s, named, -1, EACCES);
			return EACCES;
		}
		return err;
	}
	return judge(s, named, fd, opath);
}

/*
 * With --net the sandbox shares the host's network namespace, and with
 * it the abstract names. The command's own Landlock scope does not hold
 * for a connect made here, and kinbox cannot enter a scope the sandbox is
 * nested in (a Landlock domain of kinbox's would refuse every rename
 * across directories inside, or bubblewrap's mounts). So an abstract
 * connect is made only when a socket of the sandbox listens on that name:
 * the listening socket bound to exactly that name (its bytes and its
 * length, as the kernel looks it up) and of the connecting socket's type,
 * whose inode a process of the caller's pid namespace holds. A name the
 * host's processes listen on is refused with EPERM, as the scope would.
 *
 * The names come from the kernel as bytes (NETLINK_SOCK_DIAG, UNIX_DIAG_
 * NAME), never from /proc/net/unix: that file prints a NUL as '@' and
 * every other byte as it is, so "\0kbx\0svc" and "\0kbx@svc" read alike,
 * and a name holding a space or a newline forges the rest of its line.
 * The diag socket is kinbox's own, made in kinbox's network namespace:
 * with --net that is the one the sandbox shares, and the only one whose
 * names are the host's (a socket the command made in a namespace of its
 * own reaches nothing of the host's, whatever is decided here).
 */
#define KB_TCP_LISTEN 10 /* include/net/tcp_states.h */

/* The name for a person: "@" for the leading NUL, then the bytes as
 * kb_buf_escape_mem() writes them (a NUL as \x00, a newline as \n, ...),
 * so that two names never read alike and none ends a line. */
void
sup_abstract_text(const char *name, size_t n, char *out, size_t outlen)
{
	struct kb_buf b = {0};

	kb_buf_add(&b, "@", 1);
	if (n > 1)
		kb_buf_escape_mem(&b, name + 1, n - 1);
	snprintf(out, outlen, "%s", b.s);
	kb_buf_free(&b);
}

int
sup_diag_open(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	/* the kernel answers a dump within sendmsg and recvmsg; a bound
	 * wait all the same */
	struct timeval tv = {1, 0};

	if (fd != -1)
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/* The answer to request `seq`, read into buf (size bytes): as
 * sup_abstract_find(). NLMSG_NEXT and RTA_NEXT step through char *:
 * the kernel aligns every message and attribute (NLMSG_ALIGN,
 * RTA_ALIGN), which clang's -Wcast-align cannot know. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wcast-align"
static int
diag_read(int diag, uint32_t seq, struct nlmsghdr *buf, size_t size,
    const char *name, size_t n, int type, uint32_t ino, uint32_t *found)
{
	int hit = 0;

	for (;;) {
		struct iovec iov = {buf, size};
		struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
		ssize_t r = recvmsg(diag, &m, 0);
		size_t left;

		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0 || (m.msg_flags & MSG_TRUNC)) {
			if (r >= 0)
				errno = EMSGSIZE;
			return -1;
		}
		left = (size_t)r;
		for (struct nlmsghdr *h = buf; NLMSG_OK(h, left);
		     h = NLMSG_NEXT(h, left)) {
			const struct unix_diag_msg *d = NLMSG_DATA(h);
			const struct rtattr *a;
			size_t alen;

			/* what an earlier request left unread */
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return hit;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				if (h->nlmsg_len <
				    NLMSG_LENGTH(sizeof(struct nlmsgerr))) {
					errno = EPROTO;
					return -1;
				}
				/* by inode: no such socket any more */
				if (ino != 0 && e->error == -ENOENT)
					return 0;
				errno = e->error < 0 ? -e->error : EPROTO;
				return -1;
			}
			if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
			    h->nlmsg_len < NLMSG_LENGTH(sizeof(*d)))
				continue;
			alen = h->nlmsg_len - NLMSG_LENGTH(sizeof(*d));
			/* the name's bytes and its length, exactly, of a
			 * listening socket of the type: names are unique per
			 * type in a namespace, so one at most */
			for (a = (const struct rtattr *)(d + 1);
			     RTA_OK(a, alen); a = RTA_NEXT(a, alen))
				if (a->rta_type == UNIX_DIAG_NAME &&
				    d->udiag_state == KB_TCP_LISTEN &&
				    d->udiag_type == type &&
				    RTA_PAYLOAD(a) == n &&
				    memcmp(RTA_DATA(a), name, n) == 0 &&
				    (ino == 0 || d->udiag_ino == ino)) {
					*found = d->udiag_ino;
					hit = 1;
				}
			/* by inode: one message, no NLMSG_DONE */
			if (ino != 0)
				return hit;
		}
	}
}
#pragma GCC diagnostic pop

int
sup_abstract_find(int diag, uint32_t *seq, const char *name, size_t n, int type,
    uint32_t ino, uint32_t *found)
{
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req req;
	} q = {
	    .nlh = {.nlmsg_len = sizeof(q),
		.nlmsg_type = SOCK_DIAG_BY_FAMILY,
		.nlmsg_flags = NLM_F_REQUEST | (ino == 0 ? NLM_F_DUMP : 0),
		.nlmsg_seq = ++*seq},
	    .req = {.sdiag_family = AF_UNIX,
		.udiag_states = 1U << KB_TCP_LISTEN,
		.udiag_ino = ino,
		.udiag_show = UDIAG_SHOW_NAME,
		/* by inode, any cookie (INET_DIAG_NOCOOKIE) */
		.udiag_cookie = {~0U, ~0U}},
	};
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	/* a dump comes in buffers of at most 32 KiB (netlink_recvmsg) */
	const size_t size = 32768;
	struct nlmsghdr *buf;
	int rc, err;

	if (diag == -1) {
		errno = EAFNOSUPPORT;
		return -1;
	}
	if ((buf = malloc(size)) == NULL)
		return -1;
	rc = -1;
	if (sendto(diag, &q, sizeof(q), 0, (struct sockaddr *)&kernel,
		sizeof(kernel)) == (ssize_t)sizeof(q))
		rc =
		    diag_read(diag, *seq, buf, size, name, n, type, ino, found);
	err = errno;
	free(buf);
	errno = err;
	return rc;
}

/* Does a process of pid namespace `ns` hold socket inode `ino`? */
static bool
held_in(dev_t nsdev, ino_t ns, unsigned long ino)
{
	char want[64], path[600], link[64];
	bool found = false;
	struct dirent *p;
	DIR *proc = opendir("/proc");

	if (proc == NULL)
		return false;
	snprintf(want, sizeof(want), "socket:[%lu]", ino);
	while (!found && (p = readdir(proc)) != NULL) {
		struct dirent *f;
		struct stat st;
		DIR *fds;

		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/ns/pid", p->d_name);
		if (stat(path, &st) == -1 || st.st_ino != ns ||
		    st.st_dev != nsdev)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", p->d_name);
		if ((fds = opendir(path)) == NULL)
			continue;
		while (!found && (f = readdir(fds)) != NULL) {
			ssize_t n;

			if (f->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/proc/%s/fd/%s",
			    p->d_name, f->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n > 0) {
				link[n] = '\0';
				found = strcmp(link, want) == 0;
			}
		}
		closedir(fds);
	}
	closedir(proc);
	return found;
}

bool
sup_abstract_own(struct kb_sup *s, uint32_t pid, const char *name, size_t n,
    int type, uint32_t *ino)
{
	char path[64];
	struct stat ns;

	snprintf(path, sizeof(path), "/proc/%u/ns/pid", pid);
	if (stat(path, &ns) == -1)
		return false;
	/* the kernel could not say (no unix_diag): refused, fail closed */
	if (sup_abstract_find(s->diag, &s->diag_seq, name, n, type, 0, ino) !=
	    1)
		return false;
	return held_in(ns.st_dev, ns.st_ino, *ino);
}
