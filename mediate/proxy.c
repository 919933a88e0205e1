/*
 * mediate/proxy.c — the egress proxy's serving (see proxy.h for why it
 * is sound, egress.h for the judgements): an accepting thread, and one
 * thread per connection that reads the request head, checks the host
 * against the allow-list, resolves it once (mediate/resolve.c), for a
 * CONNECT reads the TLS ClientHello and compares its SNI, and only then
 * dials the checked address and relays bytes both ways
 * (mediate/proxy-relay.c: splice(2), no copy through kinbox).
 *
 * Plain HTTP goes one request per connection: the upstream is asked for
 * "Connection: close", and when it has answered the client's connection
 * is closed too, so the client's next request (a redirect's, say) comes
 * on a new connection and is checked again. What a client sends after
 * the head goes to the same upstream (a body, or anything else): the
 * destination is what was checked, not the bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "../lib/util.h"
#include "../profile/hosts.h"
#include "../profile/policy.h"
#include "egress.h"
#include "proxy-int.h"
#include "proxy.h"

#define MAX_CONN        256   /* connections served at once */
#define DIAL_TIMEOUT_MS 15000 /* for the upstream's TCP handshake */
#define MAX_ADDRS       16

struct conn {
	struct kb_proxy *px;
	int cfd, ufd; /* the sandbox's connection, the upstream's */
	struct conn *prev, *next;
};

struct kb_proxy {
	int lfd;
	pthread_t acceptor;
	const struct kb_hostgrant *hosts;
	size_t nhosts;
	pthread_mutex_t mu;
	pthread_cond_t idle;
	bool stopping;
	int active;
	struct conn *conns;
	struct kb_egress_report rep;
};

int
kb_proxy_recv(int sock)
{
	struct kb_proxy_hello h;
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {&h, sizeof(h)};
	struct msghdr m = {.msg_iov = &iov,
	    .msg_iovlen = 1,
	    .msg_control = u.buf,
	    .msg_controllen = sizeof(u.buf)};
	struct cmsghdr *c;
	ssize_t n;
	int fd = -1, type = 0;
	socklen_t tl = sizeof(type);

	n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n == -1)
		return -1;
	if (n == 0) {
		errno = ECONNRESET;
		return -1;
	}
	c = CMSG_FIRSTHDR(&m);
	if (c != NULL && c->cmsg_level == SOL_SOCKET &&
	    c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	/* a listening TCP socket on the agreed port, and nothing else */
	if (fd == -1 || (size_t)n != sizeof(h) || h.magic != KB_PROXY_MAGIC ||
	    h.port != KB_PROXY_PORT || (m.msg_flags & MSG_CTRUNC) ||
	    getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &type, &tl) == -1 ||
	    type != 1) {
		if (fd != -1)
			close(fd);
		errno = EPROTO;
		return -1;
	}
	return fd;
}

/* --- the record of what was refused ------------------------------------ */

static void
note_denial(struct kb_proxy *px, const char *host, unsigned port,
    const char *why, bool grantable)
{
	struct kb_egress_report *r = &px->rep;

	pthread_mutex_lock(&px->mu);
	r->refused++;
	for (size_t i = 0; i < r->ndenial; i++) {
		struct kb_refused_host *d = &r->denial[i];

		if (d->port == port && strcmp(d->host, host) == 0 &&
		    strcmp(d->why, why) == 0) {
			d->count++;
			pthread_mutex_unlock(&px->mu);
			return;
		}
	}
	if (r->ndenial < KB_MAX_EGRESS_DENIALS) {
		struct kb_refused_host *d = &r->denial[r->ndenial++];

		snprintf(d->host, sizeof(d->host), "%s", host);
		snprintf(d->why, sizeof(d->why), "%s", why);
		d->port = port;
		d->grantable = grantable;
		d->count = 1;
	} else {
		r->more++;
	}
	pthread_mutex_unlock(&px->mu);
}

/* --- small I/O ------------------------------------------------------------ */

/*
 * The refusal the client sees: a status line, the reason in
 * X-Kinbox-Denied and the body. The reason may carry what the client sent
 * (its host): escaped, so that it cannot end the header.
 */
static void
answer(int fd, int code, const char *status, const char *reason)
{
	_cleanup_free_ char *why = kb_escape(reason);
	_cleanup_free_ char *body = xasprintf("kinbox: %s\n", why);
	_cleanup_free_ char *head = NULL;

	/* kb_escape leaves printable ASCII and escapes; a header must not
	 * hold a CR or LF, which it never leaves */
	head = xasprintf("HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\n"
			 "X-Kinbox-Denied: %s\r\nConnection: close\r\n"
			 "Content-Length: %zu\r\n\r\n%s",
	    code, status, why, strlen(body), body);
	kb_px_send_all(fd, head, strlen(head));
}

/* the record and the 403 */
static void
refuse(struct kb_proxy *px, int fd, const char *host, unsigned port,
    const char *why, bool grantable)
{
	_cleanup_free_ char *line = xasprintf("%s:%u: %s", host, port, why);

	note_denial(px, host, port, why, grantable);
	answer(fd, 403, "Forbidden", line);
}

/* Reads more of the client's bytes into buf[*len..cap): -1 on EOF,
 * error or timeout */
static int
read_more(int fd, char *buf, size_t *len, size_t cap)
{
	ssize_t n;

	if (*len >= cap)
		return -1;
	do
		n = recv(fd, buf + *len, cap - *len, 0);
	while (n == -1 && errno == EINTR);
	if (n <= 0)
		return -1;
	*len += (size_t)n;
	return 0;
}

/* could an allow-list hold it? (never an address, never localhost) */
static bool
listable(const char *canon, unsigned port)
{
	char entry[KB_HOST_ENTRY_MAX + 16], name[KB_HOST_NAME_MAX + 1];
	unsigned p;
	const char *why;

	snprintf(entry, sizeof(entry), "%s:%u", canon, port);
	return kb_host_entry_parse(entry, name, sizeof(name), &p, &why) == 0;
}

static bool
allowed(const struct kb_proxy *px, const char *canon, unsigned port)
{
	for (size_t i = 0; i < px->nhosts; i++)
		if (px->hosts[i].port == port &&
		    strcmp(px->hosts[i].name, canon) == 0)
			return true;
	return false;
}

static void set_ufd(struct conn *c, int fd);

/*
 * A connection to one of the checked addresses, in their order: the
 * descriptor (non-blocking), or -1. Each attempt's socket is the
 * connection's (c->ufd) while it connects, so that kb_proxy_stop() can cut
 * it short; none is tried once the proxy stops.
 */
static int
dial(struct conn *c, const struct sockaddr_storage *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		socklen_t len = a[i].ss_family == AF_INET
				    ? sizeof(struct sockaddr_in)
				    : sizeof(struct sockaddr_in6);
		int fd = socket(a[i].ss_family,
		    SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, IPPROTO_TCP);
		struct pollfd pf = {.fd = fd, .events = POLLOUT};
		int err = 0;
		socklen_t el = sizeof(err);
		bool stopping;

		if (fd == -1)
			continue;
		pthread_mutex_lock(&c->px->mu);
		stopping = c->px->stopping;
		if (!stopping)
			c->ufd = fd;
		pthread_mutex_unlock(&c->px->mu);
		if (stopping) {
			close(fd);
			return -1;
		}
		if (connect(fd, (const struct sockaddr *)&a[i], len) == 0)
			return fd;
		if (errno == EINPROGRESS &&
		    poll(&pf, 1, DIAL_TIMEOUT_MS) == 1 &&
		    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 &&
		    err == 0)
			return fd;
		set_ufd(c, -1);
		close(fd);
	}
	return -1;
}

/* --- one connection --------------------------------------------------------
 */

/* TLS alert access_denied (fatal): what a client in a refused tunnel
 * sees instead of the server's hello */
static const unsigned char tls_denied[] = {
    0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x31};

static void
set_ufd(struct conn *c, int fd)
{
	pthread_mutex_lock(&c->px->mu);
	c->ufd = fd;
	pthread_mutex_unlock(&c->px->mu);
}

/*
 * The ClientHello of a tunnel to `canon`: true when its SNI is that
 * host. buf[0..*len) holds what the client sent after the CONNECT head.
 */
static bool
hello_ok(struct kb_proxy *px, int cfd, char *buf, size_t *len, size_t cap,
    const char *host, const char *canon, unsigned port)
{
	char sni[256], sni_canon[256];
	size_t need = 0;
	enum kb_tls t;
	const char *why = NULL;
	_cleanup_free_ char *msg = NULL;

	for (;;) {
		t = kb_tls_sni(
		    (const unsigned char *)buf, *len, sni, sizeof(sni), &need);
		if (t != KB_TLS_MORE)
			break;
		if (need > cap) {
			why = "a TLS ClientHello too large, or cut in too "
			      "many records";
			break;
		}
		if (read_more(cfd, buf, len, cap) == -1) {
			if (*len == 0)
				return false; /* it went away: no denial */
			why = "the tunnel ended before a whole TLS "
			      "ClientHello";
			break;
		}
	}
	if (why == NULL) {
		switch (t) {
		case KB_TLS_SNI:
			if (kb_egress_host_canon(
				sni, sni_canon, sizeof(sni_canon)) &&
			    strcmp(sni_canon, canon) == 0)
				return true;
			msg = xasprintf("the TLS ClientHello names '%s' "
					"(SNI), not the CONNECT host",
			    sni);
			why = msg;
			break;
		case KB_TLS_NO_SNI:
			why = "the TLS ClientHello names no server (no SNI)";
			break;
		case KB_TLS_ECH:
			why = "the TLS ClientHello hides its server name "
			      "(encrypted client hello)";
			break;
		case KB_TLS_NOT_HELLO:
			why = "not TLS: a CONNECT tunnel carries TLS only "
			      "(no SSH, SOCKS or raw TCP)";
			break;
		case KB_TLS_BAD:
		case KB_TLS_MORE:
			why = "a malformed or oversized TLS ClientHello";
			break;
		}
	}
	note_denial(px, host, port, why, false);
	kb_px_send_all(cfd, tls_denied, sizeof(tls_denied));
	return false;
}

static void
serve(struct conn *c)
{
	struct kb_proxy *px = c->px;
	struct sockaddr_storage addr[MAX_ADDRS];
	struct kb_http_req rq;
	char canon[256], why[256];
	_cleanup_free_ char *buf = xmalloc(KB_HTTP_HEAD_MAX);
	_cleanup_free_ char *uhead = NULL;
	size_t len = 0, nad, rest, uhlen = 0;
	struct timeval tv = {.tv_sec = KB_PX_HEAD_TIMEOUT_S};
	const char *bad = NULL;
	enum kb_http h;
	int gai, ufd;

	setsockopt(c->cfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while ((h = kb_http_parse(buf, len, &rq, &bad)) == KB_HTTP_MORE)
		if (read_more(c->cfd, buf, &len, KB_HTTP_HEAD_MAX) == -1)
			return;
	if (h == KB_HTTP_BAD) {
		answer(c->cfd, 400, "Bad Request", bad ? bad : "bad request");
		return;
	}
	if (!kb_egress_host_canon(rq.host, canon, sizeof(canon)) ||
	    !listable(canon, rq.port)) {
		/* an address, or a name no allow-list may hold (localhost,
		 * *.local, a single label): refused before any lookup */
		refuse(px, c->cfd, rq.host, rq.port,
		    "not a DNS name kinbox lets out (an address, or a "
		    "private or reserved name)",
		    false);
		return;
	}
	if (!allowed(px, canon, rq.port)) {
		refuse(
		    px, c->cfd, canon, rq.port, "not on the allow-list", true);
		return;
	}
	nad =
	    kb_resolve(canon, rq.port, addr, MAX_ADDRS, why, sizeof(why), &gai);
	if (nad == 0 && gai != 0) {
		/* not the sandbox's doing: the name does not resolve */
		answer(c->cfd, 502, "Bad Gateway", why);
		return;
	}
	if (nad == 0) {
		refuse(px, c->cfd, canon, rq.port, why, false);
		return;
	}
	rest = len - rq.head_len;
	if (rq.connect) {
		static const char ok[] =
		    "HTTP/1.1 200 Connection established\r\n\r\n";

		memmove(buf, buf + rq.head_len, rest);
		len = rest;
		if (kb_px_send_all(c->cfd, ok, sizeof(ok) - 1) == -1 ||
		    !hello_ok(px, c->cfd, buf, &len, KB_HTTP_HEAD_MAX, canon,
			canon, rq.port))
			return;
	} else {
		uhead = kb_http_upstream_head(buf, &rq, canon, rq.port, &uhlen);
	}
	if ((ufd = dial(c, addr, nad)) == -1) {
		if (!rq.connect)
			answer(c->cfd, 502, "Bad Gateway",
			    "the upstream did not answer");
		return;
	}
	set_ufd(c, ufd);
	pthread_mutex_lock(&px->mu);
	px->rep.allowed++;
	pthread_mutex_unlock(&px->mu);
	setsockopt(ufd, IPPROTO_TCP, TCP_NODELAY, &(int){1}, sizeof(int));
	if (kb_px_send_all(
		ufd, rq.connect ? buf : uhead, rq.connect ? len : uhlen) == -1)
		return;
	tv.tv_sec = 0;
	setsockopt(c->cfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	kb_px_relay(
	    c->cfd, ufd, rq.connect ? NULL : &rq, buf + rq.head_len, rest);
}

static void *
conn_main(void *arg)
{
	struct conn *c = arg;
	struct kb_proxy *px = c->px;

	serve(c);
	pthread_mutex_lock(&px->mu);
	close(c->cfd);
	if (c->ufd != -1)
		close(c->ufd);
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		px->conns = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	if (--px->active == 0)
		pthread_cond_broadcast(&px->idle);
	pthread_mutex_unlock(&px->mu);
	free(c);
	return NULL;
}

static void *
accept_main(void *arg)
{
	struct kb_proxy *px = arg;
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	for (;;) {
		int fd = accept4(px->lfd, NULL, NULL, SOCK_CLOEXEC);
		struct conn *c;
		pthread_t t;

		if (fd == -1) {
			if (errno == EINTR || errno == ECONNABORTED ||
			    errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM) {
				pthread_mutex_lock(&px->mu);
				bool stop = px->stopping;
				pthread_mutex_unlock(&px->mu);
				if (stop)
					break;
				if (errno != EINTR && errno != ECONNABORTED)
					poll(NULL, 0, 10);
				continue;
			}
			break; /* shut down by kb_proxy_stop */
		}
		pthread_mutex_lock(&px->mu);
		if (px->stopping || px->active >= MAX_CONN) {
			bool stop = px->stopping;

			pthread_mutex_unlock(&px->mu);
			if (!stop)
				answer(fd, 503, "Service Unavailable",
				    "too many connections through kinbox's "
				    "proxy at once");
			close(fd);
			if (stop)
				break;
			continue;
		}
		c = xcalloc(1, sizeof(*c));
		c->px = px;
		c->cfd = fd;
		c->ufd = -1;
		c->next = px->conns;
		if (px->conns != NULL)
			px->conns->prev = c;
		px->conns = c;
		px->active++;
		if (pthread_create(&t, &attr, conn_main, c) != 0) {
			px->conns = c->next;
			if (c->next != NULL)
				c->next->prev = NULL;
			px->active--;
			pthread_mutex_unlock(&px->mu);
			close(fd);
			free(c);
			continue;
		}
		pthread_mutex_unlock(&px->mu);
	}
	pthread_attr_destroy(&attr);
	return NULL;
}

struct kb_proxy *
kb_proxy_start(int lfd, const struct kb_hostgrant *hosts, size_t n)
{
	struct kb_proxy *px = xcalloc(1, sizeof(*px));
	sigset_t all, old;
	int rc;

	px->lfd = lfd;
	px->hosts = hosts;
	px->nhosts = n;
	pthread_mutex_init(&px->mu, NULL);
	pthread_cond_init(&px->idle, NULL);
	/* the relayed signals stay kinbox's main thread's (its signalfd) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&px->acceptor, NULL, accept_main, px);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		close(lfd);
		pthread_mutex_destroy(&px->mu);
		pthread_cond_destroy(&px->idle);
		free(px);
		errno = rc;
		return NULL;
	}
	return px;
}

void
kb_proxy_stop(struct kb_proxy *px, struct kb_egress_report *out)
{
	if (out != NULL)
		memset(out, 0, sizeof(*out));
	if (px == NULL)
		return;
	pthread_mutex_lock(&px->mu);
	px->stopping = true;
	pthread_mutex_unlock(&px->mu);
	/* wakes the accept */
	shutdown(px->lfd, SHUT_RDWR);
	pthread_join(px->acceptor, NULL);
	close(px->lfd);
	pthread_mutex_lock(&px->mu);
	/* the sandbox is gone; what is left are connections of the
	 * upstream's or half-read heads: ended */
	for (struct conn *c = px->conns; c != NULL; c = c->next) {
		shutdown(c->cfd, SHUT_RDWR);
		if (c->ufd != -1)
			shutdown(c->ufd, SHUT_RDWR);
	}
	while (px->active > 0)
		pthread_cond_wait(&px->idle, &px->mu);
	pthread_mutex_unlock(&px->mu);
	if (out != NULL)
		*out = px->rep;
	pthread_mutex_destroy(&px->mu);
	pthread_cond_destroy(&px->idle);
	free(px);
}
