/*
 * lib/fdpass.c — descriptors over a unix socket (see fdpass.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fdpass.h"

ssize_t
kb_fd_send(int sock, const void *buf, size_t len, const int *fds, size_t nfds)
{
	union {
		char buf[CMSG_SPACE(KB_FDPASS_MAX * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {(void *)buf, len};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	ssize_t n;

	if (nfds > KB_FDPASS_MAX || len == 0) {
		errno = EINVAL;
		return -1;
	}
	if (nfds > 0) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		m.msg_control = u.buf;
		m.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	}
	while ((n = sendmsg(sock, &m, MSG_NOSIGNAL)) == -1 && errno == EINTR)
		;
	return n;
}

ssize_t
kb_fd_recv(
    int sock, void *buf, size_t len, int *fds, size_t maxfds, size_t *nfds)
{
	union {
		char buf[CMSG_SPACE(KB_FDPASS_MAX * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {buf, len};
	struct msghdr m = {.msg_iov = &iov,
	    .msg_iovlen = 1,
	    .msg_control = u.buf,
	    .msg_controllen = sizeof(u.buf)};
	bool bad = false;
	ssize_t n;

	*nfds = 0;
	while (
	    (n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC)) == -1 && errno == EINTR)
		;
	if (n == -1)
		return -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c != NULL;
	     c = CMSG_NXTHDR(&m, c)) {
		size_t k;
		int got[KB_FDPASS_MAX];

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
		    c->cmsg_len < CMSG_LEN(0))
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (k > KB_FDPASS_MAX)
			k = KB_FDPASS_MAX;
		memcpy(got, CMSG_DATA(c), k * sizeof(int));
		for (size_t i = 0; i < k; i++) {
			if (!bad && *nfds < maxfds)
				fds[(*nfds)++] = got[i];
			else {
				close(got[i]);
				bad = true;
			}
		}
	}
	if (m.msg_flags & MSG_CTRUNC)
		bad = true;
	if (bad) {
		while (*nfds > 0)
			close(fds[--*nfds]);
		errno = EBADMSG;
		return -1;
	}
	return n;
}
