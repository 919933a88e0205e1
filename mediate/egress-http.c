/*
 * mediate/egress-http.c — the egress proxy's reading of a client's
 * request head (kb_http_parse) and the head it sends upstream in its
 * stead (kb_http_upstream_head), declared in egress.h. Pure: no I/O, no
 * global state. The addresses are judged in egress.c, the TLS
 * ClientHello in egress-tls.c.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../lib/util.h"
#include "egress.h"

/* --- request heads ---------------------------------------------------------
 *
 * Strict on purpose: the proxy stands between a hostile client and
 * servers whose parsers differ, and every leniency (a bare LF, a folded
 * line, two framings) is a place where the proxy and the server could
 * read two different requests from the same bytes. The head is read
 * line by line, each line judged once it is whole, so a prefix of a
 * valid head is always KB_HTTP_MORE and a verdict never changes as more
 * bytes arrive.
 */

/* RFC 9110 5.6.2 tchar */
static bool
tchar(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'))
		return true;
	return c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

/* the characters a reg-name or IPv4 host may hold as sent (RFC 3986
 * unreserved, sub-delims, '%'); kb_egress_host_canon narrows them */
static bool
host_char(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'))
		return true;
	return c != '\0' && strchr("-._~!$&'()*+,;=%", c) != NULL;
}

static bool
hex_digit(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

static bool
bad(const char **why, const char *what)
{
	*why = what;
	return false;
}

/* s[0..n) equals the lower-case `name`, in any case */
static bool
name_is(const char *s, size_t n, const char *name)
{
	return strlen(name) == n && strncasecmp(s, name, n) == 0;
}

/*
 * The line starting at buf[p]: OK with *eol at its CR; MORE when no CRLF
 * is within buf[0..lim) yet; BAD at a NUL, a bare CR or a bare LF
 * (RFC 9112 2.2 lets a recipient accept a bare LF; a proxy that does
 * would pass on a line break the server may not see).
 */
static enum kb_http
line_end(const char *buf, size_t lim, size_t p, size_t *eol, const char **why)
{
	for (size_t i = p; i < lim; i++) {
		if (buf[i] == '\r') {
			if (i + 1 == lim)
				return KB_HTTP_MORE;
			if (buf[i + 1] != '\n') {
				*why = "bare CR in the request head";
				return KB_HTTP_BAD;
			}
			*eol = i;
			return KB_HTTP_OK;
		}
		if (buf[i] == '\n') {
			*why = "bare LF in the request head (lines end with "
			       "CRLF)";
			return KB_HTTP_BAD;
		}
		if (buf[i] == '\0') {
			*why = "NUL byte in the request head";
			return KB_HTTP_BAD;
		}
	}
	return KB_HTTP_MORE;
}

static bool
parse_port(const char *s, size_t n, unsigned *port, const char **why)
{
	unsigned v = 0;

	if (n == 0)
		return bad(why, "empty port");
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return bad(why, "port is not a number");
		v = v * 10 + (unsigned)(s[i] - '0');
		if (v > 65535)
			return bad(why, "port out of range");
	}
	if (v == 0)
		return bad(why, "port 0");
	*port = v;
	return true;
}

/* host [":" port] (authority-form, or an absolute URI's authority) */
static bool
parse_authority(const char *s, size_t n, bool need_port, struct kb_http_req *r,
    const char **why)
{
	size_t h = 0;

	if (memchr(s, '@', n) != NULL)
		return bad(why, "userinfo (user@) in the target");
	if (n > 0 && s[0] == '[') {
		/* an IPv6 literal, kept as sent: the caller refuses it
		 * later as no DNS name, with a clearer reason than ours */
		for (h = 1; h < n && s[h] != ']'; h++)
			if (!hex_digit((unsigned char)s[h]) && s[h] != ':' &&
			    s[h] != '.')
				return bad(
				    why, "bad IPv6 literal in the target");
		if (h == n || h == 1)
			return bad(why, "bad IPv6 literal in the target");
		h++;
	} else {
		for (; h < n && s[h] != ':'; h++)
			if (!host_char((unsigned char)s[h]))
				return bad(why, "bad character in the host");
	}
	if (h == 0)
		return bad(why, "empty host");
	if (h >= sizeof(r->host))
		return bad(why, "host too long");
	memcpy(r->host, s, h);
	r->host[h] = '\0';
	if (h == n) {
		if (need_port)
			return bad(why, "CONNECT needs host:port");
		r->port = 80;
		return true;
	}
	if (s[h] != ':')
		return bad(why, "bad character after the IPv6 literal");
	return parse_port(s + h + 1, n - h - 1, &r->port, why);
}

/* an absolute-form target: http://authority[/path][?query] */
static bool
parse_absolute(const char *s, size_t n, struct kb_http_req *r, const char **why)
{
	size_t a;

	if (n == 1 && s[0] == '*')
		return bad(why, "not a proxy request (asterisk-form target)");
	if (s[0] == '/')
		return bad(why, "not a proxy request (origin-form target)");
	if (n >= 6 && strncasecmp(s, "https:", 6) == 0)
		return bad(why, "use CONNECT for https");
	if (n < 7 || strncasecmp(s, "http://", 7) != 0)
		return bad(why, "only http:// targets");
	for (a = 7; a < n && s[a] != '/' && s[a] != '?'; a++)
		;
	if (!parse_authority(s + 7, a - 7, false, r, why))
		return false;
	if (a == n) {
		r->target = "/";
		r->target_len = 1;
	} else {
		/* "http://h?q" leaves "?q": kb_http_upstream_head puts the
		 * "/" before it */
		r->target = s + a;
		r->target_len = n - a;
	}
	return true;
}

/* METHOD SP target SP HTTP/1.x, s[0..n) without its CRLF */
static bool
parse_request_line(
    const char *s, size_t n, struct kb_http_req *r, const char **why)
{
	size_t m = 0, t, e;

	while (m < n && tchar((unsigned char)s[m]))
		m++;
	if (m < n && s[m] != ' ')
		return bad(why, "bad character in the method");
	if (m == 0)
		return bad(why, "no method");
	if (m >= sizeof(r->method))
		return bad(why, "method too long");
	if (m == n)
		return bad(why, "no request target");
	memcpy(r->method, s, m);
	r->method[m] = '\0';
	for (e = t = m + 1; e < n && s[e] != ' '; e++)
		;
	if (e == t)
		return bad(why, "empty request target");
	if (e == n)
		return bad(why, "no HTTP version");
	if (n - e - 1 != 8 || memcmp(s + e + 1, "HTTP/1.", 7) != 0 ||
	    (s[n - 1] != '0' && s[n - 1] != '1'))
		return bad(why, "only HTTP/1.0 and HTTP/1.1");
	r->minor = s[n - 1] - '0';
	for (size_t i = t; i < e; i++) {
		unsigned char ch = (unsigned char)s[i];

		/* visible ASCII only: no CTL can reach the server, nor a
		 * byte an upstream parser might read as a separator */
		if (ch <= ' ' || ch >= 0x7f)
			return bad(why, "bad character in the request target");
		if (ch == '#')
			return bad(why, "fragment (#) in the request target");
	}
	if (strcmp(r->method, "CONNECT") == 0) {
		r->connect = true;
		return parse_authority(s + t, e - t, true, r, why);
	}
	return parse_absolute(s + t, e - t, r, why);
}

/* what the headers said about the body's framing so far */
struct framing {
	bool has_cl, has_te;
	uint64_t cl;
};

static bool
parse_content_length(const char *v, size_t n, uint64_t *cl, const char **why)
{
	uint64_t x = 0;

	if (n == 0)
		return bad(why, "empty Content-Length");
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(v[i] - '0');

		if (v[i] < '0' || v[i] > '9')
			return bad(why, "Content-Length is not a number");
		if (x > (UINT64_MAX - d) / 10)
			return bad(why, "Content-Length too large");
		x = x * 10 + d;
	}
	*cl = x;
	return true;
}

/* name ":" OWS value OWS, s[0..n) without its CRLF */
static bool
parse_header(
    const char *s, size_t n, int minor, struct framing *f, const char **why)
{
	size_t c = 0, v, ve;
	uint64_t cl;

	if (s[0] == ' ' || s[0] == '\t')
		return bad(why, "obs-fold (a header line starts with "
				"whitespace)");
	while (c < n && tchar((unsigned char)s[c]))
		c++;
	if (c == n)
		return bad(why, "header line without a colon");
	if (s[c] == ' ' || s[c] == '\t')
		return bad(why, "whitespace before a header's colon");
	if (s[c] != ':')
		return bad(why, "bad character in a header name");
	if (c == 0)
		return bad(why, "empty header name");
	for (size_t i = c + 1; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		/* HTAB, SP, VCHAR, obs-text */
		if (ch != '\t' && (ch < ' ' || ch == 0x7f))
			return bad(why, "control character in a header value");
	}
	for (v = c + 1; v < n && (s[v] == ' ' || s[v] == '\t'); v++)
		;
	for (ve = n; ve > v && (s[ve - 1] == ' ' || s[ve - 1] == '\t'); ve--)
		;
	if (name_is(s, c, "content-length")) {
		/* RFC 9112 6.3: two framings, or two lengths, and the
		 * proxy and the server may cut the body differently */
		if (!parse_content_length(s + v, ve - v, &cl, why))
			return false;
		if (f->has_cl && cl != f->cl)
			return bad(why, "Content-Lengths that differ");
		if (f->has_te)
			return bad(why, "both Content-Length and "
					"Transfer-Encoding");
		f->has_cl = true;
		f->cl = cl;
	} else if (name_is(s, c, "transfer-encoding")) {
		if (f->has_cl)
			return bad(why, "both Content-Length and "
					"Transfer-Encoding");
		/* RFC 9112 6.1: its framing is faulty in HTTP/1.0 */
		if (minor == 0)
			return bad(why, "Transfer-Encoding in an HTTP/1.0 "
					"request");
		/* the body is scanned as it is relayed: one framing only,
		 * said once */
		if (f->has_te || ve - v != 7 ||
		    strncasecmp(s + v, "chunked", 7) != 0)
			return bad(why, "a Transfer-Encoding other than "
					"chunked");
		f->has_te = true;
	}
	return true;
}

enum kb_http
kb_http_parse(
    const char *buf, size_t len, struct kb_http_req *r, const char **why)
{
	size_t lim = len < KB_HTTP_HEAD_MAX ? len : KB_HTTP_HEAD_MAX;
	size_t p = 0, eol = 0;
	struct framing f = {0};
	enum kb_http rc;
	const char *ignored;

	if (why == NULL)
		why = &ignored;
	*why = NULL;
	memset(r, 0, sizeof(*r));
	for (;;) {
		rc = line_end(buf, lim, p, &eol, why);
		if (rc == KB_HTTP_MORE && len >= KB_HTTP_HEAD_MAX) {
			*why = "request head too long";
			return KB_HTTP_BAD;
		}
		if (rc != KB_HTTP_OK)
			return rc;
		if (p == 0) {
			if (eol == 0) {
				*why = "empty request line";
				return KB_HTTP_BAD;
			}
			if (!parse_request_line(buf, eol, r, why))
				return KB_HTTP_BAD;
			r->hdr_off = eol + 2;
		} else if (eol == p) {
			break;
		} else if (!parse_header(buf + p, eol - p, r->minor, &f, why)) {
			return KB_HTTP_BAD;
		}
		p = eol + 2;
	}
	r->head_len = eol + 2;
	r->body = f.has_te   ? KB_BODY_CHUNKED
		  : f.has_cl ? KB_BODY_LENGTH
			     : KB_BODY_NONE;
	r->length = f.has_cl ? f.cl : 0;
	return KB_HTTP_OK;
}

/* --- a chunked body (RFC 9112 7.1) ---------------------------------------- */

enum {
	CH_SIZE,    /* hex digits of a chunk-size */
	CH_EXT,     /* a chunk-ext, up to the CR */
	CH_SIZE_LF, /* the LF after a chunk-size line */
	CH_DATA,    /* c->left bytes of chunk-data */
	CH_DATA_CR, /* the CRLF after chunk-data */
	CH_DATA_LF,
	CH_TRAILER,  /* at the start of a trailer line (or the end) */
	CH_FIELD,    /* inside a trailer field line */
	CH_FIELD_LF, /* the LF that ends it */
	CH_END_LF,   /* the LF of the final CRLF */
};

static int
hexval(unsigned char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

long
kb_chunked_scan(struct kb_chunked *c, const char *buf, size_t len)
{
	size_t i = 0;

	if (len > (size_t)1 << 30)
		len = (size_t)1 << 30; /* the count fits a long */
	while (i < len && !c->done) {
		unsigned char ch = (unsigned char)buf[i];
		int h;

		switch (c->state) {
		case CH_SIZE:
			if ((h = hexval(ch)) >= 0) {
				/* 15 hex digits: under 2^60 */
				if (++c->digits > 15)
					return -1;
				c->left = c->left * 16 + (unsigned)h;
			} else if (c->digits > 0 &&
				   (ch == ';' || ch == ' ' || ch == '\t')) {
				c->state = CH_EXT;
			} else if (c->digits > 0 && ch == '\r') {
				c->state = CH_SIZE_LF;
			} else {
				return -1;
			}
			i++;
			break;
		case CH_EXT:
			if (ch == '\r')
				c->state = CH_SIZE_LF;
			else if (ch == '\n' || ch == 0)
				return -1;
			i++;
			break;
		case CH_SIZE_LF:
			if (ch != '\n')
				return -1;
			c->state = c->left == 0 ? CH_TRAILER : CH_DATA;
			i++;
			break;
		case CH_DATA: {
			size_t take = len - i;

			if (take > c->left)
				take = (size_t)c->left;
			c->left -= take;
			i += take;
			if (c->left == 0)
				c->state = CH_DATA_CR;
			break;
		}
		case CH_DATA_CR:
			if (ch != '\r')
				return -1;
			c->state = CH_DATA_LF;
			i++;
			break;
		case CH_DATA_LF:
			if (ch != '\n')
				return -1;
			c->state = CH_SIZE;
			c->digits = 0;
			c->left = 0;
			i++;
			break;
		case CH_TRAILER:
			if (ch == '\r')
				c->state = CH_END_LF;
			else if (ch == '\n' || ch == 0)
				return -1;
			else
				c->state = CH_FIELD;
			i++;
			break;
		case CH_FIELD:
			if (ch == '\r')
				c->state = CH_FIELD_LF;
			else if (ch == '\n' || ch == 0)
				return -1;
			i++;
			break;
		case CH_FIELD_LF:
			if (ch != '\n')
				return -1;
			c->state = CH_TRAILER;
			i++;
			break;
		case CH_END_LF:
			if (ch != '\n')
				return -1;
			c->done = true;
			i++;
			break;
		default:
			return -1;
		}
	}
	return (long)i;
}

/* --- the head sent upstream --------------------------------------------- */

/* the hop-by-hop headers (RFC 9110 7.6.1) and the client's Host: the
 * proxy's own business, or the target's authority stands instead */
static const char *const dropped[] = {"host", "connection", "proxy-connection",
    "proxy-authorization", "proxy-authenticate", "keep-alive", "te", "trailer",
    "upgrade"};

struct token {
	const char *s;
	size_t n;
};

static int
token_cmp(const void *a, const void *b)
{
	const struct token *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return strncasecmp(x->s, y->s, x->n);
}

/* the header lines of r, one at a time: false after the last */
static bool
next_line(const char *buf, const struct kb_http_req *r, size_t *p,
    const char **line, size_t *n, size_t *name_n)
{
	const char *s = buf + *p, *e;

	if (*p + 2 >= r->head_len)
		return false;
	e = memchr(s, '\r', r->head_len - *p);
	*line = s;
	*n = (size_t)(e - s);
	*name_n = (size_t)((const char *)memchr(s, ':', *n) - s);
	*p += *n + 2;
	return true;
}

/* the names the Connection headers list, sorted for bsearch: a head may
 * hold thousands of both, and comparing every pair would be quadratic */
static struct token *
connection_tokens(const char *buf, const struct kb_http_req *r, size_t *ntok)
{
	struct token *tok = NULL;
	size_t cap = 0, p = r->hdr_off, n, c;
	const char *s;

	*ntok = 0;
	while (next_line(buf, r, &p, &s, &n, &c)) {
		if (!name_is(s, c, "connection"))
			continue;
		for (size_t i = c + 1; i < n;) {
			size_t b, e;

			while (i < n && (s[i] == ' ' || s[i] == '\t'))
				i++;
			for (b = i; i < n && s[i] != ','; i++)
				;
			for (e = i;
			     e > b && (s[e - 1] == ' ' || s[e - 1] == '\t');
			     e--)
				;
			i++;
			if (e == b)
				continue;
			if (*ntok == cap) {
				cap = cap ? cap * 2 : 8;
				tok = xreallocarray(tok, cap, sizeof(*tok));
			}
			tok[(*ntok)++] = (struct token){s + b, e - b};
		}
	}
	if (*ntok > 0)
		qsort(tok, *ntok, sizeof(*tok), token_cmp);
	return tok;
}

char *
kb_http_upstream_head(const char *buf, const struct kb_http_req *r,
    const char *host, unsigned port, size_t *outlen)
{
	struct kb_buf b = {0};
	_cleanup_free_ struct token *tok = NULL;
	size_t ntok, p = r->hdr_off, n, c;
	const char *s;

	kb_buf_puts(&b, r->method);
	kb_buf_puts(&b, r->target[0] == '/' ? " " : " /");
	kb_buf_add(&b, r->target, r->target_len);
	kb_buf_printf(&b, " HTTP/1.%d\r\n", r->minor);
	tok = connection_tokens(buf, r, &ntok);
	while (next_line(buf, r, &p, &s, &n, &c)) {
		struct token name = {s, c};
		bool drop = false;

		for (size_t i = 0; i < nitems(dropped) && !drop; i++)
			drop = name_is(s, c, dropped[i]);
		/* the body's framing goes on whatever Connection says: the
		 * body is relayed as the proxy framed it, and a server that
		 * framed it otherwise would read a request in it */
		if (!drop && ntok > 0 && !name_is(s, c, "content-length") &&
		    !name_is(s, c, "transfer-encoding"))
			drop = bsearch(&name, tok, ntok, sizeof(*tok),
				   token_cmp) != NULL;
		if (!drop)
			kb_buf_add(&b, s, n + 2);
	}
	kb_buf_printf(&b, "Host: %s", host);
	if (port != 80)
		kb_buf_printf(&b, ":%u", port);
	kb_buf_puts(&b, "\r\nConnection: close\r\n\r\n");
	*outlen = b.len;
	return b.s;
}
