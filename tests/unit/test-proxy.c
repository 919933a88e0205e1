/*
 * tests/unit/test-proxy.c — the egress proxy (mediate/proxy.c) served
 * in-process, against upstreams of the test's own on 127.0.0.1: each case
 * is judged by what the client received, what the upstream accepted and
 * read, and the report kb_proxy_stop() returns.
 *
 * Linked with the test resolver (mediate/resolve.c -DKB_TEST_BUILD):
 * KINBOX_TEST_RESOLVE gives the test's names 127.0.0.1. Nothing is looked
 * up: every name the proxy resolves is in that list, the others are
 * refused before any lookup, so no packet leaves loopback. (A listed name
 * the list does not cover, or one the host's resolver answers with a
 * private address, would need a real lookup: tests/t30-egress.sh.)
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "../../mediate/proxy.h"
#include "../../profile/policy.h"
#include "egress-hellos.h"
#include "tap.h"

#define ALLOWED "allowed.kbx.example"
#define EXAMPLE "example.test" /* the name in egress-hellos.h's hellos */
#define DENIED  "denied.kbx.example"
#define UMAX    64    /* connections an upstream records */
#define PAT     65521 /* the body pattern's period (a prime) */
#define MIB     ((size_t)1 << 20)

static const char established[] = "HTTP/1.1 200 Connection established\r\n\r\n";
static const char small_answer[] =
    "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nhello\n";
static const unsigned char alert[] = {0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x31};
static unsigned char pat[PAT];

static double
clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
send_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* true when p[0..n) is the pattern at offset `off` of a body */
static bool
pat_ok(const unsigned char *p, size_t n, size_t off)
{
	while (n > 0) {
		size_t k = off % PAT, m = n < PAT - k ? n : PAT - k;

		if (memcmp(p, pat + k, m) != 0)
			return false;
		p += m;
		n -= m;
		off += m;
	}
	return true;
}

/* a bug fails the test instead of hanging it */
static void
timeouts(int fd)
{
	struct timeval tv = {.tv_sec = 10};

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* a TCP listener on 127.0.0.1, an ephemeral port */
static int
listener(unsigned *port, int flags)
{
	struct sockaddr_in a = {
	    .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | flags, 0);

	if (fd == -1 || bind(fd, (struct sockaddr *)&a, sizeof(a)) == -1 ||
	    listen(fd, 128) == -1 ||
	    getsockname(fd, (struct sockaddr *)&a, &al) == -1)
		abort();
	*port = ntohs(a.sin_port);
	return fd;
}

/* --- the upstream ---------------------------------------------------------
 * Records every connection it accepted and what it read. HTTP: after a
 * head it answers small_answer (body 0) or a 200 with `body` bytes of the
 * pattern, and closes. TLS: after one whole record it sends "E" and reads
 * on to the end. Stopped, it counts what it had not accepted yet too. */

struct ucon {
	struct upstream *u;
	int fd;
	pthread_t t;
	unsigned char got[4096];
	size_t len; /* all it read; got holds the start */
};

struct upstream {
	int lfd, stop[2];
	unsigned port;
	bool tls;
	size_t body;
	pthread_t acc;
	int naccepted;
	struct ucon con[UMAX];
};

static void
answer_http(int fd, size_t body)
{
	char head[128];

	if (body == 0) {
		send_all(fd, small_answer, strlen(small_answer));
		return;
	}
	snprintf(head, sizeof(head),
	    "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n", body);
	if (send_all(fd, head, strlen(head)) == -1)
		return;
	for (size_t off = 0, k, m; off < body; off += m) {
		k = off % PAT;
		m = body - off < PAT - k ? body - off : PAT - k;
		if (send_all(fd, pat + k, m) == -1)
			return;
	}
}

static void *
ucon_main(void *arg)
{
	struct ucon *c = arg;
	unsigned char tmp[65536];
	bool echoed = false;
	size_t used;
	ssize_t n;

	while ((n = recv(c->fd, tmp, sizeof(tmp), 0)) > 0) {
		used = c->len < sizeof(c->got) ? c->len : sizeof(c->got);
		memcpy(c->got + used, tmp,
		    (size_t)n < sizeof(c->got) - used ? (size_t)n
						      : sizeof(c->got) - used);
		c->len += (size_t)n;
		used = c->len < sizeof(c->got) ? c->len : sizeof(c->got);
		if (!c->u->tls && memmem(c->got, used, "\r\n\r\n", 4) != NULL) {
			answer_http(c->fd, c->u->body);
			break;
		}
		if (c->u->tls && !echoed && used >= 5 &&
		    c->len >= 5 + (size_t)(c->got[3] << 8 | c->got[4])) {
			send_all(c->fd, "E", 1);
			echoed = true;
		}
	}
	close(c->fd);
	return NULL;
}

static void *
uacc_main(void *arg)
{
	struct upstream *u = arg;
	bool stopping = false;

	while (!stopping) {
		struct pollfd pf[2] = {{.fd = u->lfd, .events = POLLIN},
		    {.fd = u->stop[0], .events = POLLIN}};
		int fd;

		if (poll(pf, 2, -1) == -1 && errno != EINTR)
			abort();
		stopping = pf[1].revents != 0;
		while ((fd = accept4(u->lfd, NULL, NULL, SOCK_CLOEXEC)) != -1) {
			struct ucon *c = &u->con[u->naccepted % UMAX];

			if (stopping || u->naccepted++ >= UMAX) {
				close(fd);
				continue;
			}
			timeouts(fd);
			c->u = u;
			c->fd = fd;
			if (pthread_create(&c->t, NULL, ucon_main, c) != 0)
				abort();
		}
	}
	return NULL;
}

/* --- a session: an upstream, a proxy letting out ALLOWED and EXAMPLE at
 * its port; one at a time, the globals U, PP (the proxy's port), REP */

static char name_allowed[] = ALLOWED, name_example[] = EXAMPLE;
static struct kb_hostgrant hosts[2];
static struct upstream *U;
static struct kb_proxy *PX;
static unsigned PP;
static struct kb_egress_report REP;

static void
begin(bool tls, size_t body)
{
	free(U);
	if ((U = calloc(1, sizeof(*U))) == NULL || pipe(U->stop) == -1)
		abort();
	U->lfd = listener(&U->port, SOCK_NONBLOCK);
	U->tls = tls;
	U->body = body;
	if (pthread_create(&U->acc, NULL, uacc_main, U) != 0)
		abort();
	hosts[0] = (struct kb_hostgrant){.name = name_allowed, .port = U->port};
	hosts[1] = (struct kb_hostgrant){.name = name_example, .port = U->port};
	if ((PX = kb_proxy_start(listener(&PP, 0), hosts, 2)) == NULL)
		abort();
}

/* the proxy stopped (REP), then the upstream: its connections are over */
static void
end(void)
{
	kb_proxy_stop(PX, &REP);
	if (write(U->stop[1], "x", 1) != 1)
		abort();
	pthread_join(U->acc, NULL);
	for (int i = 0; i < U->naccepted && i < UMAX; i++)
		pthread_join(U->con[i].t, NULL);
	close(U->lfd);
	close(U->stop[0]);
	close(U->stop[1]);
}

static bool
up_saw(int i, const char *s)
{
	size_t n = U->con[i].len < sizeof(U->con[i].got)
		       ? U->con[i].len
		       : sizeof(U->con[i].got);

	return memmem(U->con[i].got, n, s, strlen(s)) != NULL;
}

static int
client(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
	    .sin_port = htons((uint16_t)PP),
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd == -1)
		abort();
	timeouts(fd);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == -1)
		abort();
	return fd;
}

/* all the proxy sends until it closes (or 10 s pass), NUL terminated */
static char *
read_all(int fd, size_t *len)
{
	size_t cap = 4096;
	char *b = malloc(cap);
	ssize_t n;

	*len = 0;
	while (b != NULL && (n = recv(fd, b + *len, cap - *len - 1, 0)) > 0)
		if ((*len += (size_t)n) + 1 == cap)
			b = realloc(b, cap *= 2);
	if (b == NULL)
		abort();
	b[*len] = '\0';
	return b;
}

/* one request on a new connection: what came back */
static char *
request(const void *req, size_t reqlen, size_t *len)
{
	int fd = client();
	char *r;

	send_all(fd, req, reqlen);
	r = read_all(fd, len);
	close(fd);
	return r;
}

static char *
get(const char *host, unsigned port)
{
	char req[512];
	size_t len;

	snprintf(req, sizeof(req),
	    "GET http://%s:%u/x HTTP/1.1\r\nHost: %s:%u\r\n\r\n", host, port,
	    host, port);
	return request(req, strlen(req), &len);
}

static bool
status(const char *r, const char *code)
{
	return strncmp(r, "HTTP/1.1 ", 9) == 0 && strncmp(r + 9, code, 3) == 0;
}

/* a connection that sent CONNECT host:U's port, then data[0..dlen) */
static int
tunnel(const char *host, const void *data, size_t dlen)
{
	char req[1024];
	int n = snprintf(
		req, 512, "CONNECT %s:%u HTTP/1.1\r\n\r\n", host, U->port),
	    fd = client();

	memcpy(req + n, data, dlen);
	send_all(fd, req, (size_t)n + dlen);
	return fd;
}

/* the tunnel's 200, then the upstream's "E" */
static bool
tunnel_up(int fd)
{
	char got[sizeof(established)] = "", e = 0;

	return recv(fd, got, sizeof(got) - 1, MSG_WAITALL) == sizeof(got) - 1 &&
	       strcmp(got, established) == 0 && recv(fd, &e, 1, 0) == 1 &&
	       e == 'E';
}

/* a ClientHello record naming `sni` (NULL: no server_name) */
static size_t
build_hello(unsigned char *out, const char *sni)
{
	size_t sl = sni != NULL ? strlen(sni) : 0, ext = sni ? 9 + sl : 0;
	size_t body = 43 + ext; /* version, random, one suite, no ids */
	const unsigned char head[] = {0x16, 3, 1,
	    (unsigned char)((4 + body) >> 8), (unsigned char)(4 + body), 1, 0,
	    (unsigned char)(body >> 8), (unsigned char)body, 3, 3};
	const unsigned char tail[] = {0, 0, 2, 0x13, 0x01, 1, 0, 0,
	    (unsigned char)ext, 0, 0, 0, (unsigned char)(5 + sl), 0,
	    (unsigned char)(3 + sl), 0, 0, (unsigned char)sl};

	memcpy(out, head, sizeof(head));
	memset(out + sizeof(head), 0x5a, 32);
	memcpy(out + sizeof(head) + 32, tail, sni != NULL ? sizeof(tail) : 9);
	if (sni != NULL)
		memcpy(out + sizeof(head) + 32 + sizeof(tail), sni, sl);
	return sizeof(head) + 32 + 9 + ext;
}

static const struct kb_refused_host *
denial(const char *host)
{
	static const struct kb_refused_host none;

	for (size_t i = 0; i < REP.ndenial; i++)
		if (strcmp(REP.denial[i].host, host) == 0)
			return &REP.denial[i];
	return &none;
}

/* --- the cases --------------------------------------------------------- */

static void
test_http(void)
{
	char req[512], want[128], *r;
	size_t len;

	begin(false, 0);
	snprintf(req, sizeof(req),
	    "GET http://" ALLOWED ":%u/path HTTP/1.1\r\nHost: " ALLOWED
	    ":%u\r\nProxy-Connection: keep-alive\r\nUser-Agent: t\r\n\r\n",
	    U->port, U->port);
	r = request(req, strlen(req), &len);
	assert_cmpstr(
	    r, small_answer, "GET: the client got the upstream's answer");
	free(r);
	end();
	assert_cmpint(
	    U->naccepted, 1, "GET: the upstream accepted one connection");
	snprintf(want, sizeof(want), "\r\nHost: " ALLOWED ":%u\r\n", U->port);
	ok(up_saw(0, "GET /path HTTP/1.1\r\n") && U->con[0].got[0] == 'G',
	    "GET: the upstream read the origin-form request line");
	ok(up_saw(0, want), "GET: ... the checked Host");
	ok(up_saw(0, "\r\nConnection: close\r\n") &&
		up_saw(0, "\r\nUser-Agent: t\r\n"),
	    "GET: ... Connection: close, the other headers as sent");
	ok(!up_saw(0, "Proxy-Connection"), "GET: ... no Proxy-Connection");
	ok(REP.allowed == 1 && REP.refused == 0 && REP.ndenial == 0,
	    "GET: the report counts one allowed, nothing refused");
}

static void
test_refused(void)
{
	static const char origin[] =
	    "GET / HTTP/1.1\r\nHost: " ALLOWED "\r\n\r\n";
	const struct kb_refused_host *d;
	bool all = true;
	size_t len;
	char *r;

	begin(false, 0);
	r = get(DENIED, U->port);
	ok(status(r, "403"), "an unlisted host: 403");
	ok(strstr(r, "\r\nX-Kinbox-Denied: " DENIED ":") != NULL &&
		strstr(r, ": not on the allow-list\r\n") != NULL,
	    "an unlisted host: X-Kinbox-Denied names it, not on the "
	    "allow-list");
	free(r);
	for (int i = 0; i < 6; i++) {
		/* the same twice more, another host, the allowed name at
		 * another port, an IP literal, localhost */
		static const char *const h[] = {DENIED, DENIED,
		    "other.kbx.example", ALLOWED, "127.0.0.1", "localhost"};

		r = get(h[i],
		    i == 3 ? (U->port == 65535 ? 1 : U->port + 1) : U->port);
		all = all && status(r, "403");
		free(r);
	}
	ok(all, "the repeats, another host, the allowed name's other port, "
		"127.0.0.1, localhost: 403");
	r = request(origin, strlen(origin), &len);
	ok(status(r, "400"), "an origin-form GET (no proxy request): 400");
	free(r);
	end();
	assert_cmpint(
	    U->naccepted, 0, "refused: the upstream accepted nothing");
	d = denial(DENIED);
	ok(d->port == U->port && d->grantable && d->count == 3 &&
		strcmp(d->why, "not on the allow-list") == 0,
	    "refused 3 times: one denial, its port, grantable, count 3");
	d = denial("other.kbx.example");
	ok(d->count == 1 && d->grantable, "another host: a denial of its own");
	d = denial(ALLOWED);
	ok(d->count == 1 && d->grantable && d->port != U->port,
	    "the allowed name at another port: denied, grantable");
	d = denial("127.0.0.1");
	ok(d->count == 1 && !d->grantable && strstr(d->why, "address") != NULL,
	    "an IP literal: denied, not grantable (%s)", d->why);
	d = denial("localhost");
	ok(d->count == 1 && !d->grantable, "localhost: denied, not grantable");
	ok(REP.ndenial == 5 && REP.refused == 7 && REP.allowed == 0,
	    "five denials (%zu), seven refusals (%llu): the 400 is none",
	    REP.ndenial, REP.refused);
	tap_skip("a listed name KINBOX_TEST_RESOLVE does not cover, or one "
		 "resolving to loopback: that needs a real lookup "
		 "(tests/t30-egress.sh)");
}

static void
test_tunnels(void)
{
	static const size_t cut[] = {3, 5, 6, 100, 400, sizeof(hello_curl)};
	unsigned char h[512];
	size_t hl = build_hello(h, ALLOWED), len;
	int fd;
	char *r;

	begin(true, 0);
	fd = tunnel(ALLOWED, h, hl);
	ok(tunnel_up(fd), "CONNECT, SNI the host: 200, the byte back");
	send_all(fd, "more", 4);
	shutdown(fd, SHUT_WR);
	r = read_all(fd, &len);
	ok(len == 0, "CONNECT: the tunnel ends when both sides did");
	free(r);
	close(fd);
	/* the real curl hello in pieces, the first with the CONNECT head */
	fd = tunnel(EXAMPLE, hello_curl, cut[0]);
	for (size_t i = 1; i < sizeof(cut) / sizeof(cut[0]); i++) {
		poll(NULL, 0, 30);
		send_all(fd, hello_curl + cut[i - 1], cut[i] - cut[i - 1]);
	}
	ok(tunnel_up(fd), "a real hello in six pieces: 200, the byte back");
	close(fd);
	end();
	assert_cmpint(U->naccepted, 2, "the upstream accepted both tunnels");
	ok(U->con[0].len == hl + 4 && memcmp(U->con[0].got, h, hl) == 0 &&
		memcmp(U->con[0].got + hl, "more", 4) == 0,
	    "the upstream read the hello, exactly, then the rest");
	ok(U->con[1].len == sizeof(hello_curl) &&
		memcmp(U->con[1].got, hello_curl, sizeof(hello_curl)) == 0,
	    "the upstream read the split hello whole");
	ok(REP.allowed == 2 && REP.refused == 0, "tunnels: 2 counted allowed");
}

static void
test_tunnels_refused(void)
{
	static const struct {
		const char *what, *sni, *raw, *why;
	} c[] = {
	    {"SNI another host", "evil.kbx.example", NULL,
		"names 'evil.kbx.example' (SNI), not the CONNECT host"},
	    {"no SNI", NULL, NULL, "(no SNI)"},
	    {"SSH", NULL, "SSH-2.0-x\r\n", "not TLS"},
	};
	size_t n = sizeof(c) / sizeof(c[0]), wl = sizeof(established) - 1;
	char want[128];

	memcpy(want, established, wl);
	memcpy(want + wl, alert, sizeof(alert));
	begin(true, 0);
	for (size_t i = 0; i < n; i++) {
		unsigned char h[512];
		size_t hl =
		    c[i].raw ? strlen(c[i].raw) : build_hello(h, c[i].sni);
		int fd;
		char *r;

		if (c[i].raw)
			memcpy(h, c[i].raw, hl);
		fd = tunnel(ALLOWED, h, hl);
		r = read_all(fd, &hl);
		ok(hl == wl + sizeof(alert) && memcmp(r, want, hl) == 0,
		    "CONNECT, %s: 200, then the TLS alert, then the end",
		    c[i].what);
		free(r);
		close(fd);
	}
	end();
	assert_cmpint(U->naccepted, 0,
	    "refused tunnels: the upstream accepted no connection");
	ok(REP.ndenial == n && REP.refused == n && REP.allowed == 0,
	    "refused tunnels: a denial each, none allowed");
	for (size_t i = 0; i < n && i < REP.ndenial; i++) {
		const struct kb_refused_host *d = &REP.denial[i];

		ok(strcmp(d->host, ALLOWED) == 0 && d->port == U->port &&
			!d->grantable && d->count == 1 &&
			strstr(d->why, c[i].why) != NULL,
		    "%s: its denial, not grantable: %s", c[i].what, d->why);
	}
}

/* kb_proxy_stop() with a client that sent nothing and a tunnel open */
static void
test_stop(void)
{
	unsigned char h[512];
	size_t hl = build_hello(h, ALLOWED), len;
	int idle, fd;
	double t;
	char *r;

	begin(true, 0);
	idle = client();
	fd = tunnel(ALLOWED, h, hl);
	/* accepted after the idle one, which was accepted too */
	ok(tunnel_up(fd), "stop: a tunnel open and idle");
	r = get(DENIED, U->port);
	ok(status(r, "403"), "stop: a refusal before it");
	free(r);
	t = clock_s(CLOCK_MONOTONIC);
	end();
	t = clock_s(CLOCK_MONOTONIC) - t;
	ok(t < 5, "stop: kb_proxy_stop and the upstream's end took %.3f s", t);
	ok(REP.ndenial == 1 && denial(DENIED)->count == 1 && REP.allowed == 1,
	    "stop: the report is whole");
	r = read_all(idle, &len);
	ok(len == 0, "stop: the idle client's connection was closed");
	free(r);
	r = read_all(fd, &len);
	ok(len == 0, "stop: the tunnel was closed");
	free(r);
	close(idle);
	close(fd);
}

struct fetch {
	pthread_t t;
	bool stall; /* pause 0.6 s after 4 MiB, its CPU time in `cpu` */
	bool ok;
	double cpu;
};

/* a GET of U's pattern body: true when all of it came, intact */
static void *
fetch_main(void *arg)
{
	struct fetch *f = arg;
	char req[256], *b = malloc(MIB + 1), *e = NULL;
	size_t have = 0, off;
	int fd = client();
	ssize_t n;

	snprintf(req, sizeof(req),
	    "GET http://" ALLOWED ":%u/big HTTP/1.1\r\nHost: x\r\n\r\n",
	    U->port);
	send_all(fd, req, strlen(req));
	while (e == NULL && have < 4096 &&
	       (n = recv(fd, b + have, 4096 - have, 0)) > 0) {
		have += (size_t)n;
		b[have] = '\0';
		e = strstr(b, "\r\n\r\n");
	}
	if (e == NULL || !status(b, "200"))
		goto out;
	off = have - (size_t)(e + 4 - b);
	if (!pat_ok((unsigned char *)e + 4, off, 0))
		goto out;
	while ((n = recv(fd, b, MIB, 0)) > 0) {
		if (!pat_ok((unsigned char *)b, (size_t)n, off))
			goto out;
		if (f->stall && off < 4 * MIB && off + (size_t)n >= 4 * MIB) {
			f->cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID);
			poll(NULL, 0, 600);
			f->cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - f->cpu;
		}
		off += (size_t)n;
	}
	f->ok = n == 0 && off == U->body;
out:
	close(fd);
	free(b);
	return NULL;
}

static void
test_bulk(int nclients, size_t body, bool stall)
{
	struct fetch *f = calloc((size_t)nclients, sizeof(*f));
	double t = clock_s(CLOCK_MONOTONIC);
	int good = 0;

	begin(false, body);
	for (int i = 0; i < nclients; i++) {
		f[i].stall = stall;
		if (pthread_create(&f[i].t, NULL, fetch_main, &f[i]) != 0)
			abort();
	}
	for (int i = 0; i < nclients; i++) {
		pthread_join(f[i].t, NULL);
		good += f[i].ok;
	}
	t = clock_s(CLOCK_MONOTONIC) - t;
	end();
	ok(good == nclients && U->naccepted == nclients &&
		REP.allowed == (unsigned long long)nclients,
	    "%d client(s) at once, %zu MiB each: %d got it intact, %d "
	    "upstream, %llu allowed (%.2f s)",
	    nclients, body / MIB, good, U->naccepted, REP.allowed, t);
	if (stall)
		ok(f[0].cpu < 0.3,
		    "a client reading nothing for 0.6 s: the "
		    "relay waits (%.3f s of CPU)",
		    f[0].cpu);
	free(f);
}

/*
 * The relay's pipes as an unprivileged user gets them past
 * pipe-user-pages-soft: 2 slots, F_SETPIPE_SZ refused, far less than the
 * relay's PIPE_BYTES. This thread (and the proxy's, started from it)
 * takes an unused uid of its own, whose pipe quota it fills first (the
 * raw syscall: glibc's would change every thread's; the saved uid 0
 * brings it back).
 */
static void
test_small_pipes(void)
{
	int hog[80][2], nhog = 0, full = -1;

	if (geteuid() != 0) {
		tap_skip("small pipes: needs root (a uid of the test's own)");
		return;
	}
	if (syscall(SYS_setresuid, 0x7ffffe0e, 0x7ffffe0e, 0) == -1)
		abort();
	for (; nhog < 80 && full == -1; nhog++) {
		if (pipe2(hog[nhog], O_CLOEXEC) == -1)
			abort();
		if (fcntl(hog[nhog][1], F_SETPIPE_SZ, (int)MIB) == -1)
			full = nhog;
	}
	test_bulk(1, 16 * MIB, true);
	if (syscall(SYS_setresuid, 0, 0, 0) == -1)
		abort();
	ok(full >= 0, "small pipes: the quota was full after %d pipes", full);
	while (nhog-- > 0) {
		close(hog[nhog][0]);
		close(hog[nhog][1]);
	}
}

static void
send_hello(int sock, uint32_t magic, int fd)
{
	struct kb_proxy_hello h = {magic, KB_PROXY_PORT};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} c = {0};
	struct iovec iov = {&h, sizeof(h)};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *cm;

	if (fd != -1) {
		m.msg_control = c.buf;
		m.msg_controllen = sizeof(c.buf);
		cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	if (sendmsg(sock, &m, 0) != sizeof(h))
		abort();
}

static void
test_recv(void)
{
	struct kb_egress_report rep;
	int sp[2], lfd, plain, fd, a = 0;
	socklen_t al = sizeof(a);
	unsigned port;

	memset(&rep, 0xa5, sizeof(rep));
	kb_proxy_stop(NULL, &rep);
	ok(rep.ndenial == 0 && rep.more == 0 && rep.allowed == 0 &&
		rep.refused == 0 && rep.denial[0].host[0] == '\0',
	    "kb_proxy_stop(NULL): an empty report");
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) == -1)
		abort();
	lfd = listener(&port, 0);
	plain = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
#define RECV_FAILS(e) (errno = 0, kb_proxy_recv(sp[0]) == -1 && errno == (e))
	ok(RECV_FAILS(EAGAIN), "recv: nothing yet: EAGAIN");
	send_hello(sp[1], KB_PROXY_MAGIC ^ 1, lfd);
	ok(RECV_FAILS(EPROTO), "recv: a wrong magic: EPROTO");
	send_hello(sp[1], KB_PROXY_MAGIC, -1);
	ok(RECV_FAILS(EPROTO), "recv: no descriptor: EPROTO");
	send_hello(sp[1], KB_PROXY_MAGIC, plain);
	ok(RECV_FAILS(EPROTO), "recv: a socket not listening: EPROTO");
	send_hello(sp[1], KB_PROXY_MAGIC, lfd);
	fd = kb_proxy_recv(sp[0]);
	ok(fd >= 0 && fd != lfd &&
		getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &a, &al) == 0 && a,
	    "recv: the listener (fd %d)", fd);
	close(sp[1]);
	ok(RECV_FAILS(ECONNRESET), "recv: the end: ECONNRESET");
#undef RECV_FAILS
	if (fd >= 0)
		close(fd);
	close(sp[0]);
	close(lfd);
	close(plain);
}

int
main(void)
{
	uint32_t x = 2463534242u;

	/* every name the proxy may look up, and only those */
	setenv("KINBOX_TEST_RESOLVE",
	    ALLOWED "=127.0.0.1," EXAMPLE "=127.0.0.1", 1);
	for (size_t i = 0; i < PAT; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		pat[i] = (unsigned char)x;
	}
	ok(kb_resolve_test_build, "linked with the test resolver");
	test_http();
	test_refused();
	test_tunnels();
	test_tunnels_refused();
	test_stop();
	test_bulk(50, MIB, false);
	test_bulk(1, 64 * MIB, false);
	test_small_pipes();
	test_recv();
	free(U);
	return tap_done();
}
