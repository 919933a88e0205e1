/*
 * tests/fuzz/fuzz-egress.c — libFuzzer target: the egress proxy's
 * judgements (mediate/egress*.c) on bytes a hostile client chose: the
 * TLS ClientHello reader (several name buffer sizes), the request head
 * parser and, on a plain-HTTP request it accepts, the upstream head;
 * the host canonicaliser on a NUL-terminated copy; the address check on
 * the bytes as an IPv4 and an IPv6 address. Besides "no crash, no
 * leak, no out-of-bounds read" it checks, and aborts when it does not
 * hold:
 *   - a verdict never changes as bytes arrive: one byte less gives MORE
 *     or the same verdict (the callers decide on a prefix);
 *   - MORE asks for more bytes than it had; a whole hello's prefix asks
 *     for no more than the hello's length;
 *   - a name is 1..snisz-1 bytes; an accepted head ends in its blank
 *     line, its target lies in it; the upstream head has one blank line,
 *     at its end, CRLF line ends only and the Host and Connection added;
 *   - a canonical host is lower case, of DNS characters, and canonical;
 *   - an IPv4 address is judged the same inside ::ffff:0:0/96,
 *     64:ff9b::/96 and 2002::/16.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../mediate/egress.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const size_t snisz[] = {0, 1, 12, 256};

static bool
decided(enum kb_tls r)
{
	return r == KB_TLS_SNI || r == KB_TLS_NO_SNI || r == KB_TLS_ECH;
}

static void
check_tls(const uint8_t *data, size_t size)
{
	char sni[256];

	for (size_t i = 0; i < sizeof(snisz) / sizeof(snisz[0]); i++) {
		size_t need = 0, need1 = 0, n;
		enum kb_tls r, r1;

		r = kb_tls_sni(data, size, sni, snisz[i], &need);
		if (r == KB_TLS_MORE && need <= size)
			abort();
		if (r == KB_TLS_SNI) {
			n = strnlen(sni, sizeof(sni));
			if (n == 0 || n >= snisz[i])
				abort();
		}
		if (size == 0)
			continue;
		r1 = kb_tls_sni(data, size - 1, sni, snisz[i], &need1);
		if (r1 != KB_TLS_MORE && r1 != r)
			abort();
		if (r1 == KB_TLS_MORE &&
		    (need1 <= size - 1 || (decided(r) && need1 > size)))
			abort();
	}
}

static bool
ends_with(const char *s, size_t n, const char *tail)
{
	size_t t = strlen(tail);

	return n >= t && memcmp(s + n - t, tail, t) == 0;
}

static void
check_upstream(const char *buf, const struct kb_http_req *r)
{
	char host[256];
	size_t n = 0;
	char *out;

	if (!kb_egress_host_canon(r->host, host, sizeof(host)))
		strcpy(host, "example.com");
	out = kb_http_upstream_head(buf, r, host, r->port, &n);
	if (out == NULL || strlen(out) != n ||
	    !ends_with(out, n, "\r\nConnection: close\r\n\r\n"))
		abort();
	for (size_t i = 0; i < n; i++) {
		if (out[i] == '\n' && (i == 0 || out[i - 1] != '\r'))
			abort();
		if (out[i] == '\r' && (i + 1 == n || out[i + 1] != '\n'))
			abort();
	}
	if ((size_t)((const char *)memmem(out, n, "\r\n\r\n", 4) - out) !=
	    n - 4)
		abort();
	free(out);
}

static void
check_http(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data, *why = NULL, *why1 = NULL;
	struct kb_http_req r, r1;
	enum kb_http rc, rc1;

	rc = kb_http_parse(buf, size, &r, &why);
	if (rc == KB_HTTP_BAD && why == NULL)
		abort();
	if (rc == KB_HTTP_OK) {
		if (r.head_len > size || r.head_len > KB_HTTP_HEAD_MAX ||
		    r.hdr_off < 2 || r.hdr_off + 2 > r.head_len ||
		    memcmp(buf + r.head_len - 4, "\r\n\r\n", 4) != 0 ||
		    r.port == 0 || r.port > 65535 || r.method[0] == '\0' ||
		    r.host[0] == '\0' || r.connect != (r.target == NULL))
			abort();
		if (!r.connect) {
			if (r.target_len == 0 ||
			    (r.target[0] != '/' && r.target[0] != '?'))
				abort();
			if ((r.target < buf ||
				r.target + r.target_len > buf + r.head_len) &&
			    !(r.target_len == 1 && r.target[0] == '/'))
				abort();
			check_upstream(buf, &r);
		}
	}
	if (size == 0)
		return;
	rc1 = kb_http_parse(buf, size - 1, &r1, &why1);
	if (rc1 != KB_HTTP_MORE && rc1 != rc)
		abort();
	if (rc1 == KB_HTTP_OK && r1.head_len != r.head_len)
		abort();
}

static void
check_host(const uint8_t *data, size_t size)
{
	char in[300], out[300], again[300], small[8];
	size_t n = size < sizeof(in) - 1 ? size : sizeof(in) - 1;
	bool okay;

	memcpy(in, data, n);
	in[n] = '\0';
	okay = kb_egress_host_canon(in, out, sizeof(out));
	if (kb_egress_host_canon(in, small, sizeof(small)) !=
	    (okay && strlen(out) < sizeof(small)))
		abort();
	if (!okay)
		return;
	n = strlen(out);
	if (n == 0 || n > 253 || out[0] == '.' || out[n - 1] == '.' ||
	    strstr(out, "..") != NULL)
		abort();
	for (size_t i = 0; i < n; i++)
		if (!((out[i] >= 'a' && out[i] <= 'z') ||
			(out[i] >= '0' && out[i] <= '9') || out[i] == '-' ||
			out[i] == '.'))
			abort();
	if (!kb_egress_host_canon(out, again, sizeof(again)) ||
	    strcmp(out, again) != 0)
		abort();
}

/* `why` of an IPv6 form carrying the IPv4 v4why, as the judgement says */
static void
same_judgement(const char *v4why, const char *v6why, const char *prefix)
{
	if (v4why == NULL) {
		if (v6why != NULL)
			abort();
		return;
	}
	if (v6why == NULL || strncmp(v6why, prefix, strlen(prefix)) != 0 ||
	    strcmp(v6why + strlen(prefix), v4why) != 0)
		abort();
}

static void
check_addresses(const uint8_t *data, size_t size)
{
	struct sockaddr_in in = {.sin_family = AF_INET};
	struct sockaddr_in6 in6 = {.sin6_family = AF_INET6};
	struct sockaddr_storage ss;
	const char *why;

	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, data, size < sizeof(ss) ? size : sizeof(ss));
	kb_egress_refused((const struct sockaddr *)&ss,
	    (socklen_t)(size < sizeof(ss) ? size : sizeof(ss)));
	if (size >= 16) {
		memcpy(&in6.sin6_addr, data, 16);
		kb_egress_refused((struct sockaddr *)&in6, sizeof(in6));
	}
	if (size < 4)
		return;
	memcpy(&in.sin_addr, data, 4);
	why = kb_egress_refused((struct sockaddr *)&in, sizeof(in));
	memset(&in6.sin6_addr, 0, 16);
	in6.sin6_addr.s6_addr[10] = in6.sin6_addr.s6_addr[11] = 0xff;
	memcpy(in6.sin6_addr.s6_addr + 12, data, 4);
	same_judgement(why,
	    kb_egress_refused((struct sockaddr *)&in6, sizeof(in6)),
	    "IPv4-mapped ::ffff:0:0/96 carrying ");
	memset(&in6.sin6_addr, 0, 16);
	in6.sin6_addr.s6_addr[1] = 0x64;
	in6.sin6_addr.s6_addr[2] = 0xff;
	in6.sin6_addr.s6_addr[3] = 0x9b;
	memcpy(in6.sin6_addr.s6_addr + 12, data, 4);
	same_judgement(why,
	    kb_egress_refused((struct sockaddr *)&in6, sizeof(in6)),
	    "NAT64 64:ff9b::/96 carrying ");
	memset(&in6.sin6_addr, 0xee, 16);
	in6.sin6_addr.s6_addr[0] = 0x20;
	in6.sin6_addr.s6_addr[1] = 0x02;
	memcpy(in6.sin6_addr.s6_addr + 2, data, 4);
	same_judgement(why,
	    kb_egress_refused((struct sockaddr *)&in6, sizeof(in6)),
	    "6to4 2002::/16 carrying ");
}

/* a chunked body scanned whole and scanned in two pieces (split where
 * the first byte says) gives the same answer: the proxy reads it in
 * whatever pieces the socket gives */
static void
check_chunked(const uint8_t *data, size_t size)
{
	struct kb_chunked a = {0}, b = {0};
	const char *buf = (const char *)data;
	size_t cut = size > 0 ? data[0] % (size + 1) : 0;
	long whole, k1, k2 = 0;

	whole = kb_chunked_scan(&a, buf, size);
	if (whole > (long)size || (whole != -1 && whole < (long)size &&
					 !a.done))
		abort();
	k1 = kb_chunked_scan(&b, buf, cut);
	if (k1 != -1 && !b.done)
		k2 = kb_chunked_scan(&b, buf + cut, size - cut);
	if (whole == -1) {
		if (k1 != -1 && k2 != -1)
			abort();
		return;
	}
	if (k1 == -1 || k2 == -1 || a.done != b.done ||
	    (b.done ? k1 + k2 : (long)size) != whole)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_tls(data, size);
	check_http(data, size);
	check_host(data, size);
	check_addresses(data, size);
	check_chunked(data, size);
	return 0;
}
