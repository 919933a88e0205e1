/*
 * mediate/proxy-relay.c — the egress proxy's relay (proxy-int.h): bytes
 * both ways between a sandbox's connection and the upstream kinbox dialled
 * for it, after every check (mediate/proxy.c). Each direction is a
 * blocking splice(2) loop through a pipe (no copy through kinbox), the
 * client's in a thread of its own; a plain-HTTP request's body is sent as
 * its framing says and not a byte more.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../lib/util.h"
#include "egress.h"
#include "proxy-int.h"

/* all of buf to a (possibly non-blocking) socket; -1 on error */
int
kb_px_send_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN) {
			struct pollfd pf = {.fd = fd, .events = POLLOUT};

			if (poll(&pf, 1, KB_PX_HEAD_TIMEOUT_S * 1000) <= 0)
				return -1;
			continue;
		}
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* --- the relay ------------------------------------------------------------ */

/*
 * One direction, blocking: socket to pipe to socket by splice(2), so no
 * byte is copied through kinbox. Ends at the source's EOF (then the
 * destination's write side is shut: the peer sees the end) or at an
 * error (then both sockets are shut, which ends the other direction).
 */
struct dir {
	int from, to;
	bool broken;
};

static void
pump(struct dir *d)
{
	int p[2];
	ssize_t n;

	if (pipe2(p, O_CLOEXEC) == -1) {
		d->broken = true;
		return;
	}
	fcntl(p[1], F_SETPIPE_SZ, KB_PX_PIPE_BYTES);
	for (;;) {
		n = splice(d->from, NULL, p[1], NULL, KB_PX_PIPE_BYTES, 0);
		if (n == 0)
			break;
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			d->broken = true;
			break;
		}
		while (n > 0) {
			ssize_t w =
			    splice(p[0], NULL, d->to, NULL, (size_t)n, 0);

			if (w == -1 && errno == EINTR)
				continue;
			if (w <= 0) {
				d->broken = true;
				goto out;
			}
			n -= w;
		}
	}
out:
	close(p[0]);
	close(p[1]);
	if (d->broken) {
		shutdown(d->from, SHUT_RDWR);
		shutdown(d->to, SHUT_RDWR);
	} else {
		shutdown(d->to, SHUT_WR);
	}
}

static void *
pump_main(void *arg)
{
	pump(arg);
	return NULL;
}

/*
 * A plain-HTTP request's body, client to upstream: exactly the bytes its
 * framing says (none, Content-Length, chunked as scanned), from what came
 * with the head (`rest`) and then from the socket, and nothing after it.
 * A second request the client sends on the connection is never
 * forwarded: it would reach the upstream unchecked (and a server of many
 * sites would answer for another one).
 */
struct body {
	int cfd, ufd;
	const struct kb_http_req *rq;
	const char *rest;
	size_t nrest;
};

static void
body_fail(const struct body *b)
{
	shutdown(b->cfd, SHUT_RDWR);
	shutdown(b->ufd, SHUT_RDWR);
}

static void
body_length(const struct body *b)
{
	unsigned long long left = b->rq->length;
	size_t first = b->nrest < left ? b->nrest : (size_t)left;
	int p[2];

	if (kb_px_send_all(b->ufd, b->rest, first) == -1)
		goto fail;
	left -= first;
	if (left == 0)
		return;
	if (pipe2(p, O_CLOEXEC) == -1)
		goto fail;
	while (left > 0) {
		size_t want =
		    left < KB_PX_PIPE_BYTES ? (size_t)left : KB_PX_PIPE_BYTES;
		ssize_t n = splice(b->cfd, NULL, p[1], NULL, want, 0);

		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* the client ended first: the upstream says */
		left -= (unsigned long long)n;
		while (n > 0) {
			ssize_t w =
			    splice(p[0], NULL, b->ufd, NULL, (size_t)n, 0);

			if (w == -1 && errno == EINTR)
				continue;
			if (w <= 0) {
				close(p[0]);
				close(p[1]);
				goto fail;
			}
			n -= w;
		}
	}
	close(p[0]);
	close(p[1]);
	return;
fail:
	body_fail(b);
}

static void
body_chunked(const struct body *b)
{
	struct kb_chunked ch = {0};
	_cleanup_free_ char *buf = NULL;
	const char *at = b->rest;
	size_t n = b->nrest;

	for (;;) {
		long k = kb_chunked_scan(&ch, at, n);

		if (k == -1 || kb_px_send_all(b->ufd, at, (size_t)k) == -1) {
			body_fail(b);
			return;
		}
		if (ch.done)
			return;
		if (buf == NULL)
			buf = xmalloc(KB_PX_PIPE_BYTES / 16);
		do {
			ssize_t r = recv(b->cfd, buf, KB_PX_PIPE_BYTES / 16, 0);

			if (r == -1 && errno == EINTR)
				continue;
			if (r <= 0)
				return; /* the client ended first */
			n = (size_t)r;
			break;
		} while (true);
		at = buf;
	}
}

static void *
body_main(void *arg)
{
	struct body *b = arg;
	char sink[4096];
	ssize_t n;

	if (b->rq->body == KB_BODY_LENGTH)
		body_length(b);
	else if (b->rq->body == KB_BODY_CHUNKED)
		body_chunked(b);
	/* what the client sends after the body is dropped; its end is
	 * passed on (a server waiting on it answers and closes) */
	while ((n = recv(b->cfd, sink, sizeof(sink), 0)) > 0 ||
	       (n == -1 && errno == EINTR))
		;
	shutdown(b->ufd, SHUT_WR);
	return NULL;
}

/*
 * Relays until the upstream's answer ended, and, for a CONNECT tunnel
 * (rq NULL), both ways until both directions ended; for plain HTTP the
 * client's body goes out as framed (struct body) and the client's side
 * is shut when the answer is over, which ends that direction too. The
 * client-to-upstream direction runs in a thread of its own.
 */
void
kb_px_relay(int cfd, int ufd, const struct kb_http_req *rq, const char *rest,
    size_t nrest)
{
	struct dir up = {.from = cfd, .to = ufd};
	struct dir down = {.from = ufd, .to = cfd};
	struct body b = {cfd, ufd, rq, rest, nrest};
	pthread_attr_t attr;
	pthread_t t;
	bool threaded;

	fcntl(cfd, F_SETFL, fcntl(cfd, F_GETFL) & ~O_NONBLOCK);
	fcntl(ufd, F_SETFL, fcntl(ufd, F_GETFL) & ~O_NONBLOCK);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	threaded = pthread_create(&t, &attr, rq != NULL ? body_main : pump_main,
		       rq != NULL ? (void *)&b : (void *)&up) == 0;
	pthread_attr_destroy(&attr);
	if (!threaded)
		return;
	pump(&down);
	if (rq != NULL)
		shutdown(cfd, SHUT_RDWR);
	pthread_join(t, NULL);
}
