/*
 * mediate/egress.h — the pure judgements of kinbox's egress proxy
 * (mediate/proxy.c): which addresses may be dialled, what a client's
 * request head and TLS ClientHello say. No I/O: table-tested in
 * tests/unit/test-egress.c and fuzzed (tests/fuzz/fuzz-egress.c).
 */
#ifndef KB_EGRESS_H
#define KB_EGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/*
 * NULL when `sa` (AF_INET or AF_INET6) is a public unicast address the
 * proxy may connect to; else a constant naming the refused range, as
 * "loopback 127.0.0.0/8" or "6to4 2002::/16 carrying private-use
 * 10.0.0.0/8". The IPv4-in-IPv6 forms (::ffff:0:0/96, 64:ff9b::/96,
 * 2002::/16, 2001::/32) are judged by the IPv4 address they carry.
 */
const char *kb_egress_refused(const struct sockaddr *sa, socklen_t len);

/* What the first bytes of a TLS connection say. */
enum kb_tls {
	KB_TLS_MORE,      /* a ClientHello so far: *need bytes in all */
	KB_TLS_SNI,       /* a whole ClientHello with one host_name */
	KB_TLS_NO_SNI,    /* a whole ClientHello without server_name */
	KB_TLS_ECH,       /* it carries encrypted_client_hello: the name
			     that counts is hidden */
	KB_TLS_NOT_HELLO, /* not a TLS handshake record with a ClientHello
			     (plain text, SSLv2, another record type) */
	KB_TLS_BAD,       /* malformed, or past KB_TLS_MAX */
};
#define KB_TLS_MAX 65536 /* a ClientHello larger than this is refused */

/*
 * Reads the ClientHello at the start of buf[0..len) (it may span several
 * handshake records). On KB_TLS_SNI the host name is in sni (NUL
 * terminated, as sent; refused as KB_TLS_BAD when it does not fit
 * snisz, holds a NUL or is not a single host_name entry). On
 * KB_TLS_MORE *need is how many bytes in all it needs to decide.
 */
enum kb_tls kb_tls_sni(const unsigned char *buf, size_t len, char *sni,
    size_t snisz, size_t *need);

/* A client's request head, as the proxy needs it. */
#define KB_HTTP_HEAD_MAX 65536 /* a longer head is refused */
struct kb_http_req {
	bool connect; /* CONNECT host:port */
	char method[24];
	char host[256];     /* as sent (not yet canonical) */
	unsigned port;      /* the authority's, else 80 (http) */
	const char *target; /* origin-form path?query: into buf (absolute
			       form: "/" when none; "?q" for http://h?q,
			       kb_http_upstream_head puts the "/" before
			       it); CONNECT: NULL */
	size_t target_len;
	int minor;       /* HTTP/1.minor */
	size_t head_len; /* bytes through the blank line */
	size_t hdr_off;  /* where the header lines start in buf */
	/* the body's framing (RFC 9112 6.3): none (no Content-Length, no
	 * Transfer-Encoding), `length` bytes, or chunked */
	enum kb_http_body {
		KB_BODY_NONE,
		KB_BODY_LENGTH,
		KB_BODY_CHUNKED,
	} body;
	unsigned long long length;
};

enum kb_http {
	KB_HTTP_MORE, /* no blank line yet (and under KB_HTTP_HEAD_MAX) */
	KB_HTTP_OK,
	KB_HTTP_BAD, /* *why says what; answer 400 */
};

/*
 * Parses the head at the start of buf[0..len): a request line with an
 * absolute-form http:// target or CONNECT authority-form, HTTP/1.0 or
 * 1.1, then header lines. Refused (KB_HTTP_BAD, with *why a constant):
 * origin-form targets (not a proxy request), other schemes (https://
 * in a GET: use CONNECT), userinfo, a bad port, bare CR or LF, NUL,
 * obs-fold, a header name with other than token characters, both
 * Content-Length and Transfer-Encoding, Content-Lengths that differ, a
 * Transfer-Encoding other than chunked (a request's only framing coding
 * here), a head past KB_HTTP_HEAD_MAX.
 */
enum kb_http kb_http_parse(
    const char *buf, size_t len, struct kb_http_req *r, const char **why);

/*
 * A chunked request body, scanned as it goes through: the proxy sends
 * upstream exactly the bytes of the body and nothing after it (a second,
 * pipelined request is never forwarded unchecked). Zero it to start.
 */
struct kb_chunked {
	int state;
	unsigned long long left; /* of the chunk (data), or its size so far */
	unsigned digits;
	bool done; /* the last chunk and the trailer section were seen */
};

/*
 * Scans buf[0..len) of a chunked body, from where the last call stopped:
 * returns how many of the bytes belong to the body (len, or fewer when it
 * ends inside buf; c->done is then set), or -1 when it is malformed (a
 * bad chunk-size line, a missing CRLF, a bare CR or LF, a size past 2^60).
 */
long kb_chunked_scan(struct kb_chunked *c, const char *buf, size_t len);

/*
 * The head to send upstream for a parsed plain-HTTP request: the request
 * line in origin-form, Host: set to the checked authority (`host`,
 * `port`: ":port" only when not 80), the client's Host, Connection,
 * Proxy-Connection, Proxy-Authorization, Proxy-Authenticate, Keep-Alive,
 * TE, Trailer and Upgrade dropped (and any header Connection names, but
 * for Content-Length and Transfer-Encoding: the body is relayed as
 * framed), the other lines kept as sent and in order, "Connection:
 * close" added. A new string (caller frees); *outlen its length.
 */
char *kb_http_upstream_head(const char *buf, const struct kb_http_req *r,
    const char *host, unsigned port, size_t *outlen);

/*
 * Canonical host for comparing with the allow-list: lower case, one
 * trailing dot dropped. false (out untouched) when `in` is no DNS name
 * (empty, too long, a character outside [A-Za-z0-9.-], an empty label).
 */
bool kb_egress_host_canon(const char *in, char *out, size_t outsz);

#endif
