/*
 * tests/unit/test-egress.c — the egress proxy's judgements (egress.h):
 * every refused address range at both edges and just past them, the
 * IPv4-carrying IPv6 forms with a refused and a public address inside;
 * host names for the allow-list; TLS ClientHellos built here field by
 * field (split across records, every prefix, each malformed length)
 * and two real ones (egress-hellos.h); request heads, one case per
 * rule, every prefix of the valid ones, and the head sent upstream.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "../../lib/util.h"
#include "../../mediate/egress.h"
#include "egress-hellos.h"
#include "tap.h"

/* --- addresses ------------------------------------------------------------ */

#define MAPPED   "IPv4-mapped ::ffff:0:0/96 carrying "
#define NAT64    "NAT64 64:ff9b::/96 carrying "
#define SIXTO4   "6to4 2002::/16 carrying "
#define TEREDO_S "Teredo 2001::/32 server carrying "
#define TEREDO_C "Teredo 2001::/32 client carrying "

#define R_THIS    "this network 0.0.0.0/8"
#define R_10      "private-use 10.0.0.0/8"
#define R_CGNAT   "shared address space (CGNAT) 100.64.0.0/10"
#define R_LOOP    "loopback 127.0.0.0/8"
#define R_LINK    "link-local (cloud metadata) 169.254.0.0/16"
#define R_172     "private-use 172.16.0.0/12"
#define R_IETF    "IETF protocol assignments 192.0.0.0/24"
#define R_TEST1   "documentation (TEST-NET-1) 192.0.2.0/24"
#define R_6TO4    "6to4 relay anycast 192.88.99.0/24"
#define R_192     "private-use 192.168.0.0/16"
#define R_BENCH   "benchmarking 198.18.0.0/15"
#define R_TEST2   "documentation (TEST-NET-2) 198.51.100.0/24"
#define R_TEST3   "documentation (TEST-NET-3) 203.0.113.0/24"
#define R_MCAST   "multicast 224.0.0.0/4"
#define R_RSVD    "reserved (and broadcast) 240.0.0.0/4"
#define R_AZURE   "cloud platform address (Azure wireserver) 168.63.129.16/32"
#define R6_OUT    "reserved (outside 2000::/3)"
#define R6_COMPAT "IPv4-compatible (deprecated) ::/96"
#define R6_ULA    "unique local fc00::/7"
#define R6_LINK   "link-local fe80::/10"
#define R6_SITE   "site-local (deprecated) fec0::/10"
#define R6_MCAST  "multicast ff00::/8"
#define R6_IETF   "IETF protocol assignments 2001::/23"
#define R6_DOC    "documentation 2001:db8::/32"
#define R6_DOC2   "documentation 3fff::/20"
#define R6_NAT64L "local-use NAT64 64:ff9b:1::/48"
#define R6_DISC   "discard-only 100::/64"

#define F6 "ffff:ffff:ffff:ffff:ffff:ffff" /* six all-ones groups */

static const struct {
	const char *addr;
	const char *why; /* NULL: public */
} addrs[] = {
    /* public controls */
    {"8.8.8.8", NULL},
    {"1.1.1.1", NULL},
    {"2606:4700::1111", NULL},
    {"2a00:1450::1", NULL},
    /* 0.0.0.0/8 */
    {"0.0.0.0", R_THIS},
    {"0.255.255.255", R_THIS},
    {"1.0.0.0", NULL},
    /* 10.0.0.0/8 */
    {"9.255.255.255", NULL},
    {"10.0.0.0", R_10},
    {"10.255.255.255", R_10},
    {"11.0.0.0", NULL},
    /* 100.64.0.0/10 */
    {"100.63.255.255", NULL},
    {"100.64.0.0", R_CGNAT},
    {"100.127.255.255", R_CGNAT},
    {"100.128.0.0", NULL},
    /* 127.0.0.0/8 */
    {"126.255.255.255", NULL},
    {"127.0.0.0", R_LOOP},
    {"127.0.0.1", R_LOOP},
    {"127.255.255.255", R_LOOP},
    {"128.0.0.0", NULL},
    /* 169.254.0.0/16 */
    {"169.253.255.255", NULL},
    {"169.254.0.0", R_LINK},
    {"169.254.169.254", R_LINK},
    {"169.254.255.255", R_LINK},
    {"169.255.0.0", NULL},
    /* 172.16.0.0/12 */
    {"172.15.255.255", NULL},
    {"172.16.0.0", R_172},
    {"172.31.255.255", R_172},
    {"172.32.0.0", NULL},
    /* 192.0.0.0/24 */
    {"191.255.255.255", NULL},
    {"192.0.0.0", R_IETF},
    {"192.0.0.255", R_IETF},
    {"192.0.1.0", NULL},
    /* 192.0.2.0/24 */
    {"192.0.1.255", NULL},
    {"192.0.2.0", R_TEST1},
    {"192.0.2.255", R_TEST1},
    {"192.0.3.0", NULL},
    /* 192.88.99.0/24 */
    {"192.88.98.255", NULL},
    {"192.88.99.0", R_6TO4},
    {"192.88.99.255", R_6TO4},
    {"192.88.100.0", NULL},
    /* 192.168.0.0/16 */
    {"192.167.255.255", NULL},
    {"192.168.0.0", R_192},
    {"192.168.255.255", R_192},
    {"192.169.0.0", NULL},
    /* 198.18.0.0/15 */
    {"198.17.255.255", NULL},
    {"198.18.0.0", R_BENCH},
    {"198.19.255.255", R_BENCH},
    {"198.20.0.0", NULL},
    /* 198.51.100.0/24 */
    {"198.51.99.255", NULL},
    {"198.51.100.0", R_TEST2},
    {"198.51.100.255", R_TEST2},
    {"198.51.101.0", NULL},
    /* 203.0.113.0/24 */
    {"203.0.112.255", NULL},
    {"203.0.113.0", R_TEST3},
    {"203.0.113.255", R_TEST3},
    {"203.0.114.0", NULL},
    /* 224.0.0.0/4, then 240.0.0.0/4 up to the broadcast address */
    {"223.255.255.255", NULL},
    {"224.0.0.0", R_MCAST},
    {"239.255.255.255", R_MCAST},
    {"240.0.0.0", R_RSVD},
    {"255.255.255.255", R_RSVD},
    /* 168.63.129.16/32 */
    {"168.63.129.15", NULL},
    {"168.63.129.16", R_AZURE},
    {"168.63.129.17", NULL},

    /* ::ffff:0:0/96, judged by the IPv4 inside */
    {"::ffff:127.0.0.1", MAPPED R_LOOP},
    {"::ffff:8.8.8.8", NULL},
    {"::ffff:0.0.0.0", MAPPED R_THIS},
    {"::ffff:255.255.255.255", MAPPED R_RSVD},
    {"::ffff:169.254.169.254", MAPPED R_LINK},
    {"::ffff:168.63.129.16", MAPPED R_AZURE},
    {"::fffe:ffff:ffff", R6_OUT},
    {"::1:0:0:0", R6_OUT},
    /* 64:ff9b::/96 */
    {"64:ff9b::a00:1", NAT64 R_10},
    {"64:ff9b::808:808", NULL},
    {"64:ff9b::", NAT64 R_THIS},
    {"64:ff9b::ffff:ffff", NAT64 R_RSVD},
    {"64:ff9a:" F6, R6_OUT},
    {"64:ff9b::1:0:0", R6_OUT},
    /* 2002::/16: the IPv4 in bits 16..47 */
    {"2002:7f00:1::", SIXTO4 R_LOOP},
    {"2002:a00:1::1", SIXTO4 R_10},
    {"2002:808:808::", NULL},
    {"2002::", SIXTO4 R_THIS},
    {"2002:ffff:ffff:ffff:"
     "ffff:ffff:ffff:ffff",
	SIXTO4 R_RSVD},
    {"2001:ffff:ffff:ffff:"
     "ffff:ffff:ffff:ffff",
	NULL},
    {"2003::", NULL},
    /* 2001::/32 Teredo: server in bits 32..63, client inverted last */
    {"2001:0:808:808::f5ff:fffe", TEREDO_C R_10}, /* client 10.0.0.1 */
    {"2001:0:808:808::fefe:fefe", NULL},          /* client 1.1.1.1 */
    {"2001:0:a00:1::fefe:fefe", TEREDO_S R_10},
    {"2001:0:a00:1::f5ff:fffe", TEREDO_S R_10}, /* both: the server */
    {"2001::", TEREDO_S R_THIS},
    {"2001:0:808:808::", TEREDO_C R_RSVD}, /* client 255.255.255.255 */
    {"2001:0:" F6, TEREDO_S R_RSVD},
    {"2000:ffff:" F6, NULL},
    /* 2001::/23 (Teredo's /32 aside) */
    {"2001:1::", R6_IETF},
    {"2001:1ff:" F6, R6_IETF},
    {"2001:200::", NULL},
    /* 2001:db8::/32 */
    {"2001:db7:" F6, NULL},
    {"2001:db8::", R6_DOC},
    {"2001:db8:" F6, R6_DOC},
    {"2001:db9::", NULL},
    /* 3fff::/20 */
    {"3ffe:ffff:" F6, NULL},
    {"3fff::", R6_DOC2},
    {"3fff:fff:" F6, R6_DOC2},
    {"3fff:1000::", NULL},
    /* ::/128, ::1/128 and the rest of ::/96 */
    {"::", "unspecified ::/128"},
    {"::1", "loopback ::1/128"},
    {"::2", R6_COMPAT},
    {"::ffff:ffff", R6_COMPAT},
    {"::1:0:0", R6_OUT},
    /* 64:ff9b:1::/48 */
    {"64:ff9b:0:ffff:ffff:ffff:ffff:ffff", R6_OUT},
    {"64:ff9b:1::", R6_NAT64L},
    {"64:ff9b:1:ffff:ffff:ffff:ffff:ffff", R6_NAT64L},
    {"64:ff9b:2::", R6_OUT},
    /* 100::/64 */
    {"ff:ffff:" F6, R6_OUT},
    {"100::", R6_DISC},
    {"100::ffff:ffff:ffff:ffff", R6_DISC},
    {"100:0:0:1::", R6_OUT},
    /* 2000::/3 */
    {"1fff:ffff:" F6, R6_OUT},
    {"2000::", NULL},
    {"3fff:ffff:" F6, NULL},
    {"4000::", R6_OUT},
    /* fc00::/7 */
    {"fbff:ffff:" F6, R6_OUT},
    {"fc00::", R6_ULA},
    {"fdff:ffff:" F6, R6_ULA},
    {"fe00::", R6_OUT},
    /* fe80::/10 */
    {"fe7f:ffff:" F6, R6_OUT},
    {"fe80::", R6_LINK},
    {"fe80::1", R6_LINK},
    {"febf:ffff:" F6, R6_LINK},
    /* fec0::/10 */
    {"fec0::", R6_SITE},
    {"feff:ffff:" F6, R6_SITE},
    /* ff00::/8 */
    {"ff00::", R6_MCAST},
    {"ff02::1", R6_MCAST},
    {"ffff:ffff:" F6, R6_MCAST},
};

static void
test_addresses(void)
{
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	struct sockaddr_in in = {.sin_family = AF_INET};
	struct sockaddr_in6 in6 = {.sin6_family = AF_INET6};
	const char *not_ip = "not an IPv4 or IPv6 address";

	for (size_t i = 0; i < nitems(addrs); i++) {
		const char *why = "(inet_pton failed)";

		if (strchr(addrs[i].addr, ':') != NULL) {
			if (inet_pton(
				AF_INET6, addrs[i].addr, &in6.sin6_addr) == 1)
				why = kb_egress_refused(
				    (struct sockaddr *)&in6, sizeof(in6));
		} else if (inet_pton(AF_INET, addrs[i].addr, &in.sin_addr) ==
			   1) {
			why = kb_egress_refused(
			    (struct sockaddr *)&in, sizeof(in));
		}
		assert_cmpstr(why, addrs[i].why, "%s: %s", addrs[i].addr,
		    addrs[i].why ? addrs[i].why : "public");
	}

	inet_pton(AF_INET, "8.8.8.8", &in.sin_addr);
	inet_pton(AF_INET6, "2606:4700::1111", &in6.sin6_addr);
	assert_cmpstr(kb_egress_refused(NULL, 0), not_ip, "no address");
	assert_cmpstr(kb_egress_refused((struct sockaddr *)&un, sizeof(un)),
	    not_ip, "AF_UNIX is no IP address");
	assert_cmpstr(kb_egress_refused((struct sockaddr *)&in, 4), not_ip,
	    "a short sockaddr_in");
	assert_cmpstr(kb_egress_refused(
			  (struct sockaddr *)&in6, sizeof(struct sockaddr_in)),
	    not_ip, "a sockaddr_in6 cut to a sockaddr_in's length");
	assert_cmpstr(
	    kb_egress_refused((struct sockaddr *)&in6, 1), not_ip, "one byte");
}

/* --- host names ----------------------------------------------------------- */

static void
test_host_canon(void)
{
	static const struct {
		const char *in, *out; /* out NULL: refused */
	} cases[] = {
	    {"github.com", "github.com"},
	    {"GitHub.COM", "github.com"},
	    {"api.GITHUB.com.", "api.github.com"},
	    {"a", "a"},
	    {"xn--bcher-kva.example", "xn--bcher-kva.example"},
	    {"my-host-1.example", "my-host-1.example"},
	    /* a dotted quad is a DNS name's shape: the caller resolves
	     * it and judges the address (kb_egress_refused) */
	    {"1.2.3.4", "1.2.3.4"},
	    {"", NULL},
	    {".", NULL},
	    {"..", NULL},
	    {"github.com..", NULL},
	    {".github.com", NULL},
	    {"a..b", NULL},
	    {"[::1]", NULL},
	    {"::1", NULL},
	    {"a_b", NULL},
	    {"a b", NULL},
	    {"a:80", NULL},
	    {"a/b", NULL},
	    {"caf\xc3\xa9.example", NULL},
	    {"a\tb", NULL},
	    {"a%2eb", NULL},
	};
	char out[300], big[300];

	for (size_t i = 0; i < nitems(cases); i++) {
		bool r;

		strcpy(out, "untouched");
		r = kb_egress_host_canon(cases[i].in, out, sizeof(out));
		if (cases[i].out != NULL)
			ok(r && strcmp(out, cases[i].out) == 0,
			    "host '%s' is '%s' (got '%s')", cases[i].in,
			    cases[i].out, r ? out : "refused");
		else
			ok(!r && strcmp(out, "untouched") == 0,
			    "host '%s' refused, out untouched", cases[i].in);
	}

	/* a label of 63 bytes, not 64 */
	memset(big, 'a', 63);
	strcpy(big + 63, ".x");
	ok(kb_egress_host_canon(big, out, sizeof(out)), "a 63-byte label");
	memset(big, 'a', 64);
	strcpy(big + 64, ".x");
	ok(!kb_egress_host_canon(big, out, sizeof(out)),
	    "a 64-byte label refused");
	/* 253 bytes in all (labels of 63 and dots), then 254 */
	memset(big, 'a', 253);
	big[63] = big[127] = big[191] = '.';
	big[253] = '\0';
	ok(kb_egress_host_canon(big, out, sizeof(out)) && strlen(out) == 253,
	    "a 253-byte name");
	strcpy(big + 253, ".");
	ok(kb_egress_host_canon(big, out, sizeof(out)) && strlen(out) == 253,
	    "a 253-byte name and the root's dot");
	big[253] = 'a';
	big[254] = '\0';
	ok(!kb_egress_host_canon(big, out, sizeof(out)),
	    "a 254-byte name refused");
	/* the room in out: exactly the name and its NUL */
	ok(kb_egress_host_canon("Example.COM.", out, 12) &&
		strcmp(out, "example.com") == 0,
	    "fits an out of strlen + 1");
	strcpy(out, "untouched");
	ok(!kb_egress_host_canon("example.com", out, 11) &&
		strcmp(out, "untouched") == 0,
	    "refused (out untouched) when out is one byte short");
	ok(!kb_egress_host_canon("a", out, 0), "refused with no room at all");
}

/* --- TLS ClientHellos ----------------------------------------------------- */

/* a byte builder, large enough for a hello past KB_TLS_MAX in records */
struct bb {
	unsigned char b[80000];
	size_t n;
};

static void
put(struct bb *b, const void *p, size_t n)
{
	if (b->n + n > sizeof(b->b))
		abort();
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void
put8(struct bb *b, unsigned v)
{
	unsigned char c = (unsigned char)v;

	put(b, &c, 1);
}

static void
put16(struct bb *b, unsigned v)
{
	put8(b, v >> 8);
	put8(b, v);
}

static void
put24(struct bb *b, size_t v)
{
	put8(b, (unsigned)(v >> 16));
	put16(b, (unsigned)(v & 0xffff));
}

struct ext {
	unsigned type;
	const void *data;
	size_t len;
};

/* what build_hello varies; all zero: a well-formed hello */
struct hello_opts {
	bool no_ext_block; /* the body ends after the compression methods */
	int ext_len_delta; /* added to the extensions block's length */
	int hs_len_delta;  /* added to the handshake header's length */
	unsigned sid_len;  /* session id bytes */
	unsigned cs_len;   /* cipher suite bytes; 0: 4 */
	bool no_comp;      /* zero compression methods */
	unsigned msg_type; /* 0: client_hello (1) */
	const void *trail; /* bytes after the extensions, in the body */
	size_t trail_len;
};

/* a ClientHello handshake message (its 4-byte header and body) */
static void
build_hello(struct bb *hs, const struct ext *ext, size_t next,
    const struct hello_opts *o)
{
	static struct bb body;
	size_t exts = 0;

	body.n = 0;
	put16(&body, 0x0303);
	for (unsigned i = 0; i < 32; i++)
		put8(&body, i);
	put8(&body, o->sid_len);
	for (unsigned i = 0; i < o->sid_len; i++)
		put8(&body, 0xaa);
	put16(&body, o->cs_len ? o->cs_len : 4);
	for (unsigned i = 0; i < (o->cs_len ? o->cs_len : 4); i++)
		put8(&body, 0x13);
	if (o->no_comp) {
		put8(&body, 0);
	} else {
		put8(&body, 1);
		put8(&body, 0);
	}
	if (!o->no_ext_block) {
		for (size_t i = 0; i < next; i++)
			exts += 4 + ext[i].len;
		put16(&body, (unsigned)((long)exts + o->ext_len_delta));
		for (size_t i = 0; i < next; i++) {
			put16(&body, ext[i].type);
			put16(&body, (unsigned)ext[i].len);
			put(&body, ext[i].data, ext[i].len);
		}
	}
	if (o->trail != NULL)
		put(&body, o->trail, o->trail_len);
	hs->n = 0;
	put8(hs, o->msg_type ? o->msg_type : 1);
	put24(hs, (size_t)((long)body.n + o->hs_len_delta));
	put(hs, body.b, body.n);
}

/* server_name extension data with the given host_name entries */
static size_t
sni_data(unsigned char *out, const char *const *names, size_t nnames)
{
	static struct bb b;
	size_t list = 0;

	b.n = 0;
	for (size_t i = 0; i < nnames; i++)
		list += 3 + strlen(names[i]);
	put16(&b, (unsigned)list);
	for (size_t i = 0; i < nnames; i++) {
		put8(&b, 0);
		put16(&b, (unsigned)strlen(names[i]));
		put(&b, names[i], strlen(names[i]));
	}
	memcpy(out, b.b, b.n);
	return b.n;
}

/* hs split into handshake records at the given handshake offsets */
static void
records(struct bb *out, const struct bb *hs, const size_t *cuts, size_t ncut)
{
	size_t from = 0;

	out->n = 0;
	for (size_t i = 0; i <= ncut; i++) {
		size_t to = i < ncut ? cuts[i] : hs->n;

		put8(out, 0x16);
		put16(out, 0x0301);
		put16(out, (unsigned)(to - from));
		put(out, hs->b + from, to - from);
		from = to;
	}
}

static const unsigned char supported_versions[] = {2, 0x03, 0x04};
static const unsigned char groups[] = {0, 2, 0x00, 0x1d};

static enum kb_tls
sni_of(const struct bb *b, char *sni, size_t snisz, size_t *need)
{
	return kb_tls_sni(b->b, b->n, sni, snisz, need);
}

/* every prefix of b asks for more, and for more than it has; following
 * *need from nothing reaches the verdict without asking past the end */
static void
check_prefixes(
    const unsigned char *b, size_t n, enum kb_tls want, const char *what)
{
	char sni[256];
	size_t need = 0, bad_at = SIZE_MAX, have = 0, steps = 0;
	enum kb_tls r;

	for (size_t len = 0; len < n && bad_at == SIZE_MAX; len++) {
		r = kb_tls_sni(b, len, sni, sizeof(sni), &need);
		if (r != KB_TLS_MORE || need <= len || need > n)
			bad_at = len;
	}
	ok(bad_at == SIZE_MAX,
	    "%s: each of its %zu prefixes is MORE, "
	    "with len < need <= its length",
	    what, n);
	if (bad_at != SIZE_MAX)
		printf("#   prefix %zu: result %d need %zu\n", bad_at,
		    (int)kb_tls_sni(b, bad_at, sni, sizeof(sni), &need), need);
	do {
		r = kb_tls_sni(b, have, sni, sizeof(sni), &need);
		steps++;
		if (r == KB_TLS_MORE)
			have = need;
	} while (r == KB_TLS_MORE && have <= n);
	ok(r == want && have <= n,
	    "%s: read as *need says, decided in %zu steps", what, steps);
}

static void
test_tls_built(void)
{
	static struct bb hs, rec;
	static unsigned char pad[KB_TLS_MAX];
	unsigned char sd[600];
	const char *gh[] = {"github.com"};
	const char *two[] = {"github.com", "evil.example"};
	struct hello_opts o = {0};
	char sni[256];
	size_t need, n;
	struct ext ext[8];
	enum kb_tls r;

	n = sni_data(sd, gh, 1);
	ext[0] =
	    (struct ext){43, supported_versions, sizeof(supported_versions)};
	ext[1] = (struct ext){0, sd, n};
	ext[2] = (struct ext){10, groups, sizeof(groups)};

	build_hello(&hs, ext, 3, &o);
	records(&rec, &hs, NULL, 0);
	r = sni_of(&rec, sni, sizeof(sni), &need);
	assert_cmpint(r, KB_TLS_SNI, "a hello with SNI github.com");
	assert_cmpstr(sni, "github.com", "its name");
	check_prefixes(rec.b, rec.n, KB_TLS_SNI, "that hello");

	/* more bytes after it (the next record) change nothing */
	put(&rec, "\x17\x03\x03\x00\x01x", 6);
	assert_cmpint(sni_of(&rec, sni, sizeof(sni), &need), KB_TLS_SNI,
	    "bytes after the hello are not read");

	/* the name's room: snisz - 1 bytes fit, not snisz */
	records(&rec, &hs, NULL, 0);
	assert_cmpint(sni_of(&rec, sni, 11, &need), KB_TLS_SNI,
	    "a 10-byte name fits 11 bytes");
	assert_cmpint(sni_of(&rec, sni, 10, &need), KB_TLS_BAD,
	    "a 10-byte name does not fit 10 bytes");
	ok(sni[0] == '\0', "and sni is left empty");
	assert_cmpint(
	    sni_of(&rec, NULL, 0, &need), KB_TLS_BAD, "no room at all");

	/* split across records: two; three cut inside the extensions
	 * block, one in the name; then every byte a record of its own */
	{
		/* the extensions start at 49 (4 + 2 + 32 + 1 + 2 + 4 + 2
		 * + 2); the name is the 10 bytes before the last
		 * extension's 8 */
		size_t two_cut[] = {40};
		size_t three_cut[] = {49 + 3, hs.n - 8 - 5};
		static size_t every[2000];

		records(&rec, &hs, two_cut, 1);
		r = sni_of(&rec, sni, sizeof(sni), &need);
		ok(r == KB_TLS_SNI && strcmp(sni, "github.com") == 0,
		    "split across two records");
		check_prefixes(rec.b, rec.n, KB_TLS_SNI, "two records");
		records(&rec, &hs, three_cut, 2);
		r = sni_of(&rec, sni, sizeof(sni), &need);
		ok(r == KB_TLS_SNI && strcmp(sni, "github.com") == 0,
		    "split across three records, in the extensions and in "
		    "the name");
		check_prefixes(rec.b, rec.n, KB_TLS_SNI, "three records");
		for (size_t i = 0; i + 1 < hs.n; i++)
			every[i] = i + 1;
		records(&rec, &hs, every, hs.n - 1);
		r = sni_of(&rec, sni, sizeof(sni), &need);
		ok(r == KB_TLS_SNI && strcmp(sni, "github.com") == 0,
		    "one byte a record (%zu records)", hs.n);
		check_prefixes(rec.b, rec.n, KB_TLS_SNI, "one-byte records");
	}

	/* no server_name; no extensions block at all */
	build_hello(&hs, ext, 1, &o);
	records(&rec, &hs, NULL, 0);
	assert_cmpint(sni_of(&rec, sni, sizeof(sni), &need), KB_TLS_NO_SNI,
	    "a hello without server_name");
	check_prefixes(rec.b, rec.n, KB_TLS_NO_SNI, "without server_name");
	o.no_ext_block = true;
	build_hello(&hs, ext, 0, &o);
	records(&rec, &hs, NULL, 0);
	assert_cmpint(sni_of(&rec, sni, sizeof(sni), &need), KB_TLS_NO_SNI,
	    "a hello without extensions");
	o.no_ext_block = false;
	build_hello(&hs, ext, 0, &o);
	records(&rec, &hs, NULL, 0);
	assert_cmpint(sni_of(&rec, sni, sizeof(sni), &need), KB_TLS_NO_SNI,
	    "a hello with an empty extensions block");

	/* encrypted_client_hello, with and without an outer SNI */
	ext[3] = (struct ext){0xfe0d, "\x00\x00\x01\x00\x01\x00", 6};
	build_hello(&hs, ext, 4, &o);
	records(&rec, &hs, NULL, 0);
	assert_cmpint(sni_of(&rec, sni, sizeof(sni), &need), KB_TLS_ECH,
	    "ECH with an outer SNI");
	check_prefixes(rec.b, rec.n, KB_TLS_ECH, "ECH");
	ext[1] = ext[3];
	build_hello(&hs, ext, 2, &o);
	records(&rec, &hs, NULL, 0);
	assert_cmpint(sni_of(&rec, sni, sizeof(sni), &need), KB_TLS_ECH,
	    "ECH without SNI");
	ext[1] = (struct ext){0, sd, n};

	/* the server_name extension's own rules */
	{
		static const struct {
			const char *what;
			const char *data;
			size_t len;
			enum kb_tls want;
		} sn[] = {
		    {"a NUL inside the name",
			"\x00\x0e\x00\x00\x0bgit\0hub.com", 16, KB_TLS_BAD},
		    {"an empty name", "\x00\x03\x00\x00\x00", 5, KB_TLS_BAD},
		    {"an empty list", "\x00\x00", 2, KB_TLS_BAD},
		    {"no list at all", "", 0, KB_TLS_BAD},
		    {"one byte of list length", "\x00", 1, KB_TLS_BAD},
		    {"a list longer than the extension",
			"\x00\x06\x00\x00\x01x", 6, KB_TLS_BAD},
		    {"a list shorter than the extension",
			"\x00\x04\x00\x00\x01x\x01\x00\x00", 9, KB_TLS_BAD},
		    {"a name longer than the list", "\x00\x04\x00\x00\x02x", 6,
			KB_TLS_BAD},
		    {"an entry cut after its type", "\x00\x01\x00", 3,
			KB_TLS_BAD},
		    {"only an entry of another type", "\x00\x04\x01\x00\x01x",
			6, KB_TLS_BAD},
		    {"another type, then a host_name",
			"\x00\x08\x01\x00\x01x\x00\x00\x01y", 10, KB_TLS_SNI},
		};

		for (size_t i = 0; i < nitems(sn); i++) {
			ext[1] = (struct ext){0, sn[i].data, sn[i].len};
			build_hello(&hs, ext, 3, &o);
			records(&rec, &hs, NULL, 0);
			assert_cmpint(sni_of(&rec, sni, sizeof(sni), &need),
			    sn[i].want, "server_name: %s", sn[i].what);
		}
		ok(strcmp(sni, "y") == 0, "the host_name after the other "
					  "type is the name");
	}
	n = sni_data(sd, two, 2);
	ext[1] = (struct ext){0, sd, n};
	build_hello(&hs, ext, 3, &o);
	records(&rec, &hs, NULL, 0);
	assert_cmpint(sni_of(&rec, sni, sizeof(sni), &need), KB_TLS_BAD,
	    "two host_name entries");

	/* a repeated extension */
	n = sni_data(sd, gh, 1);
	ext[1] = (struct ext){0, sd, n};
	ext[3] = ext[2];
	build_hello(&hs, ext, 4, &o);
	records(&rec, &hs, NULL, 0);
	assert_cmpint(sni_of(&rec, sni, sizeof(sni), &need), KB_TLS_BAD,
	    "supported_groups twice");
	ext[3] = ext[1];
	build_hello(&hs, ext, 4, &o);
	records(&rec, &hs, NULL, 0);
	assert_cmpint(sni_of(&rec, sni, sizeof(sni), &need), KB_TLS_BAD,
	    "server_name twice");

	/* lengths that do not nest */
	{
		static const struct {
			const char *what;
			struct hello_opts o;
			enum kb_tls want;
		} bad[] = {
		    {"extensions block one byte longer than the body",
			{.ext_len_delta = 1}, KB_TLS_BAD},
		    {"extensions block one byte shorter (trailing byte)",
			{.ext_len_delta = -1}, KB_TLS_BAD},
		    {"a stray byte after the extensions",
			{.trail = "x", .trail_len = 1}, KB_TLS_BAD},
		    {"an extension after the extensions block",
			{.trail = "\x00\x15\x00\x00", .trail_len = 4},
			KB_TLS_BAD},
		    {"one byte where the extensions length would be",
			{.no_ext_block = true, .trail = "x", .trail_len = 1},
			KB_TLS_BAD},
		    {"a 32-byte session id", {.sid_len = 32}, KB_TLS_SNI},
		    {"a 33-byte session id", {.sid_len = 33}, KB_TLS_BAD},
		    {"an odd cipher suites length", {.cs_len = 3}, KB_TLS_BAD},
		    {"no compression method", {.no_comp = true}, KB_TLS_BAD},
		    {"a handshake length one short of its fields",
			{.hs_len_delta = -1}, KB_TLS_BAD},
		    {"a server_hello", {.msg_type = 2}, KB_TLS_NOT_HELLO},
		};

		for (size_t i = 0; i < nitems(bad); i++) {
			build_hello(&hs, ext, 3, &bad[i].o);
			records(&rec, &hs, NULL, 0);
			assert_cmpint(sni_of(&rec, sni, sizeof(sni), &need),
			    bad[i].want, "%s", bad[i].what);
		}
	}
	/* zero cipher suites: the builder's 0 means 4, so by hand */
	build_hello(&hs, ext, 3, &o);
	rec.n = 0;
	put(&rec, hs.b, 4 + 2 + 32 + 1);
	put16(&rec, 0);
	put(&rec, hs.b + 4 + 2 + 32 + 1 + 2 + 4,
	    hs.n - (4 + 2 + 32 + 1 + 2 + 4));
	rec.b[1] = 0;
	rec.b[2] = (unsigned char)((rec.n - 4) >> 8);
	rec.b[3] = (unsigned char)(rec.n - 4);
	memcpy(&hs, &rec, sizeof(hs));
	records(&rec, &hs, NULL, 0);
	assert_cmpint(sni_of(&rec, sni, sizeof(sni), &need), KB_TLS_BAD,
	    "no cipher suites");

	/* an extension that overruns the block */
	build_hello(&hs, ext, 3, &o);
	hs.b[hs.n - sizeof(groups) - 1] += 1;
	records(&rec, &hs, NULL, 0);
	assert_cmpint(sni_of(&rec, sni, sizeof(sni), &need), KB_TLS_BAD,
	    "the last extension one byte past the block");

	/* records */
	build_hello(&hs, ext, 3, &o);
	records(&rec, &hs, NULL, 0);
	rec.b[0] = 0x17;
	assert_cmpint(sni_of(&rec, sni, sizeof(sni), &need), KB_TLS_NOT_HELLO,
	    "an application_data record");
	rec.n = 1;
	assert_cmpint(sni_of(&rec, sni, sizeof(sni), &need), KB_TLS_NOT_HELLO,
	    "... known from its first byte");
	records(&rec, &hs, NULL, 0);
	rec.b[1] = 2;
	assert_cmpint(sni_of(&rec, sni, sizeof(sni), &need), KB_TLS_NOT_HELLO,
	    "a record of version 2.x");
	{
		size_t cut[] = {30};

		records(&rec, &hs, cut, 1);
		rec.b[5 + 30] = 0x15;
		assert_cmpint(sni_of(&rec, sni, sizeof(sni), &need),
		    KB_TLS_NOT_HELLO, "an alert record before the hello ends");
		rec.b[5 + 30] = 0x16;
		rec.b[5 + 30 + 3] = rec.b[5 + 30 + 4] = 0;
		rec.n = 5 + 30 + 5;
		assert_cmpint(sni_of(&rec, sni, sizeof(sni), &need), KB_TLS_BAD,
		    "an empty handshake record");
	}
	records(&rec, &hs, NULL, 0);
	rec.b[3] = (16384 + 2048 + 1) >> 8;
	rec.b[4] = (16384 + 2048 + 1) & 0xff;
	assert_cmpint(sni_of(&rec, sni, sizeof(sni), &need), KB_TLS_BAD,
	    "a record past 16384 + 2048 bytes");
	rec.b[3] = (16384 + 2048) >> 8;
	rec.b[4] = (16384 + 2048) & 0xff;
	rec.n = 5;
	r = sni_of(&rec, sni, sizeof(sni), &need);
	ok(r == KB_TLS_MORE && need == 5 + 16384 + 2048,
	    "a record of 16384 + 2048 bytes is waited for whole");

	/* not TLS at all */
	assert_cmpint(kb_tls_sni((const unsigned char *)"GET / HTTP/1.1\r\n",
			  16, sni, sizeof(sni), &need),
	    KB_TLS_NOT_HELLO, "GET / HTTP/1.1");
	assert_cmpint(kb_tls_sni((const unsigned char *)"\x80\x2e\x01\x03\x01",
			  5, sni, sizeof(sni), &need),
	    KB_TLS_NOT_HELLO, "an SSLv2 hello");
	r = kb_tls_sni((const unsigned char *)"", 0, sni, sizeof(sni), &need);
	ok(r == KB_TLS_MORE && need == 5, "nothing yet: a record header "
					  "needed");

	/* the largest hello taken, in four records, and one byte more */
	memset(pad, 0, sizeof(pad));
	{
		size_t base, cut[3];

		build_hello(&hs, ext, 3, &o);
		base = hs.n - 4;
		ext[3] = (struct ext){21, pad, KB_TLS_MAX - base - 4};
		build_hello(&hs, ext, 4, &o);
		ok(hs.n == 4 + KB_TLS_MAX, "a hello of KB_TLS_MAX bytes built");
		cut[0] = 16384;
		cut[1] = 2 * 16384;
		cut[2] = 3 * 16384;
		records(&rec, &hs, cut, 3);
		r = sni_of(&rec, sni, sizeof(sni), &need);
		ok(r == KB_TLS_SNI && strcmp(sni, "github.com") == 0,
		    "a hello of KB_TLS_MAX bytes in four records");
		ext[3].len++;
		build_hello(&hs, ext, 4, &o);
		records(&rec, &hs, cut, 3);
		rec.n = 9; /* its handshake header decides */
		assert_cmpint(sni_of(&rec, sni, sizeof(sni), &need), KB_TLS_BAD,
		    "a hello of KB_TLS_MAX + 1 bytes");
	}
}

static void
test_tls_real(void)
{
	static const struct {
		const char *what;
		const unsigned char *b;
		size_t n;
	} real[] = {
	    {"curl's hello", hello_curl, sizeof(hello_curl)},
	    {"openssl s_client's hello", hello_openssl, sizeof(hello_openssl)},
	};
	char sni[64];
	size_t need;

	for (size_t i = 0; i < nitems(real); i++) {
		enum kb_tls r =
		    kb_tls_sni(real[i].b, real[i].n, sni, sizeof(sni), &need);

		ok(r == KB_TLS_SNI && strcmp(sni, "example.test") == 0,
		    "%s names example.test (got %d '%s')", real[i].what, (int)r,
		    sni);
		check_prefixes(real[i].b, real[i].n, KB_TLS_SNI, real[i].what);
	}
}

/* --- request heads -------------------------------------------------------- */

#define CRLF "\r\n"

/* the start of a head for a test's name: CR, LF and other bytes that
 * would garble the TAP line as \r, \n, \xHH (one test thread: static) */
static const char *
vis(const char *s)
{
	static char out[160];
	size_t o = 0;

	for (; *s != '\0' && o + 5 < sizeof(out) && o < 70; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\r' || c == '\n')
			o += (size_t)snprintf(out + o, sizeof(out) - o, "\\%c",
			    c == '\r' ? 'r' : 'n');
		else if (c < ' ' || c >= 0x7f)
			o += (size_t)snprintf(
			    out + o, sizeof(out) - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	out[o] = '\0';
	return out;
}

static const struct {
	const char *head;
	const char *why;
} bad_heads[] = {
    /* the request line */
    {CRLF CRLF, "empty request line"},
    {" GET http://h/ HTTP/1.1" CRLF CRLF, "no method"},
    {"G@T http://h/ HTTP/1.1" CRLF CRLF, "bad character in the method"},
    {"GET\thttp://h/ HTTP/1.1" CRLF CRLF, "bad character in the method"},
    {"ABCDEFGHIJKLMNOPQRSTUVWX http://h/ HTTP/1.1" CRLF CRLF,
	"method too long"},
    {"GET" CRLF CRLF, "no request target"},
    {"GET  http://h/ HTTP/1.1" CRLF CRLF, "empty request target"},
    {"GET http://h/" CRLF CRLF, "no HTTP version"},
    {"GET http://h/ HTTP/1.2" CRLF CRLF, "only HTTP/1.0 and HTTP/1.1"},
    {"GET http://h/ HTTP/2.0" CRLF CRLF, "only HTTP/1.0 and HTTP/1.1"},
    {"PRI * HTTP/2.0" CRLF CRLF "SM" CRLF CRLF, "only HTTP/1.0 and HTTP/1.1"},
    {"GET http://h/ http/1.1" CRLF CRLF, "only HTTP/1.0 and HTTP/1.1"},
    {"GET http://h/ HTTP/1.1 " CRLF CRLF, "only HTTP/1.0 and HTTP/1.1"},
    {"GET http://h/ HTTP/1.10" CRLF CRLF, "only HTTP/1.0 and HTTP/1.1"},
    {"GET http://h/ HTTP/1" CRLF CRLF, "only HTTP/1.0 and HTTP/1.1"},
    /* the target */
    {"GET /x HTTP/1.1" CRLF CRLF, "not a proxy request (origin-form target)"},
    {"OPTIONS * HTTP/1.1" CRLF CRLF,
	"not a proxy request (asterisk-form target)"},
    {"GET https://h/ HTTP/1.1" CRLF CRLF, "use CONNECT for https"},
    {"GET HTTPS://h/ HTTP/1.1" CRLF CRLF, "use CONNECT for https"},
    {"GET ftp://h/ HTTP/1.1" CRLF CRLF, "only http:// targets"},
    {"GET h:80 HTTP/1.1" CRLF CRLF, "only http:// targets"},
    {"GET http:/h/ HTTP/1.1" CRLF CRLF, "only http:// targets"},
    {"GET http://user@h/ HTTP/1.1" CRLF CRLF, "userinfo (user@) in the target"},
    {"GET http://u:p@h/ HTTP/1.1" CRLF CRLF, "userinfo (user@) in the target"},
    {"GET http://h/#f HTTP/1.1" CRLF CRLF,
	"fragment (#) in the request target"},
    {"GET http://h/\xe9 HTTP/1.1" CRLF CRLF,
	"bad character in the request target"},
    {"GET http://h/\x01 HTTP/1.1" CRLF CRLF,
	"bad character in the request target"},
    {"GET http://h/\x7f HTTP/1.1" CRLF CRLF,
	"bad character in the request target"},
    {"GET http:/// HTTP/1.1" CRLF CRLF, "empty host"},
    {"GET http:// HTTP/1.1" CRLF CRLF, "empty host"},
    {"GET http://:80/ HTTP/1.1" CRLF CRLF, "empty host"},
    {"GET http://h\"x/ HTTP/1.1" CRLF CRLF, "bad character in the host"},
    {"GET http://h:0/ HTTP/1.1" CRLF CRLF, "port 0"},
    {"GET http://h:00/ HTTP/1.1" CRLF CRLF, "port 0"},
    {"GET http://h:65536/ HTTP/1.1" CRLF CRLF, "port out of range"},
    {"GET http://h:99999999999999999999/ HTTP/1.1" CRLF CRLF,
	"port out of range"},
    {"GET http://h:8a/ HTTP/1.1" CRLF CRLF, "port is not a number"},
    {"GET http://h:-1/ HTTP/1.1" CRLF CRLF, "port is not a number"},
    {"GET http://h:+80/ HTTP/1.1" CRLF CRLF, "port is not a number"},
    {"GET http://h:/ HTTP/1.1" CRLF CRLF, "empty port"},
    {"GET http://h:80:80/ HTTP/1.1" CRLF CRLF, "port is not a number"},
    {"GET http://[::1/ HTTP/1.1" CRLF CRLF, "bad IPv6 literal in the target"},
    /* CONNECT's authority-form */
    {"CONNECT h HTTP/1.1" CRLF CRLF, "CONNECT needs host:port"},
    {"CONNECT :443 HTTP/1.1" CRLF CRLF, "empty host"},
    {"CONNECT h: HTTP/1.1" CRLF CRLF, "empty port"},
    {"CONNECT h:0 HTTP/1.1" CRLF CRLF, "port 0"},
    {"CONNECT h:65536 HTTP/1.1" CRLF CRLF, "port out of range"},
    {"CONNECT h:443x HTTP/1.1" CRLF CRLF, "port is not a number"},
    {"CONNECT u@h:443 HTTP/1.1" CRLF CRLF, "userinfo (user@) in the target"},
    {"CONNECT h:443/ HTTP/1.1" CRLF CRLF, "port is not a number"},
    {"CONNECT http://h/ HTTP/1.1" CRLF CRLF, "port is not a number"},
    {"CONNECT [::1 HTTP/1.1" CRLF CRLF, "bad IPv6 literal in the target"},
    {"CONNECT []:443 HTTP/1.1" CRLF CRLF, "bad IPv6 literal in the target"},
    {"CONNECT [::g]:443 HTTP/1.1" CRLF CRLF, "bad IPv6 literal in the target"},
    {"CONNECT [::1]443 HTTP/1.1" CRLF CRLF,
	"bad character after the IPv6 literal"},
    {"CONNECT [::1] HTTP/1.1" CRLF CRLF, "CONNECT needs host:port"},
    {"CONNECT h#x:443 HTTP/1.1" CRLF CRLF,
	"fragment (#) in the request target"},
    /* line ends */
    {"GET http://h/ HTTP/1.1\n\n", "bare LF in the request head (lines "
				   "end with CRLF)"},
    {"GET http://h/ HTTP/1.1" CRLF "X: a\n" CRLF,
	"bare LF in the request head (lines end with CRLF)"},
    {"GET http://h/ HTTP/1.1" CRLF "X: a\rb" CRLF CRLF,
	"bare CR in the request head"},
    {"GET http://h/ HTTP/1.1\r\r\n\r\n", "bare CR in the request head"},
    {"GET http://h/ HTTP/1.1" CRLF CRLF "\n", NULL}, /* after the head */
    /* header lines */
    {"GET http://h/ HTTP/1.1" CRLF "X: a" CRLF " b" CRLF CRLF,
	"obs-fold (a header line starts with whitespace)"},
    {"GET http://h/ HTTP/1.1" CRLF "\tX: a" CRLF CRLF,
	"obs-fold (a header line starts with whitespace)"},
    {"GET http://h/ HTTP/1.1" CRLF "X : a" CRLF CRLF,
	"whitespace before a header's colon"},
    {"GET http://h/ HTTP/1.1" CRLF "Host\t: a" CRLF CRLF,
	"whitespace before a header's colon"},
    {"GET http://h/ HTTP/1.1" CRLF "X(y): a" CRLF CRLF,
	"bad character in a header name"},
    {"GET http://h/ HTTP/1.1" CRLF "X\xe9: a" CRLF CRLF,
	"bad character in a header name"},
    {"GET http://h/ HTTP/1.1" CRLF "Xyz" CRLF CRLF,
	"header line without a colon"},
    {"GET http://h/ HTTP/1.1" CRLF ": a" CRLF CRLF, "empty header name"},
    {"GET http://h/ HTTP/1.1" CRLF "X: a\x01z" CRLF CRLF,
	"control character in a header value"},
    {"GET http://h/ HTTP/1.1" CRLF "X: a\x7fz" CRLF CRLF,
	"control character in a header value"},
    {"GET http://h/ HTTP/1.1" CRLF "X: a\x1b[2J" CRLF CRLF,
	"control character in a header value"},
    /* framing */
    {"POST http://h/ HTTP/1.1" CRLF "Content-Length: 5a" CRLF CRLF,
	"Content-Length is not a number"},
    {"POST http://h/ HTTP/1.1" CRLF "Content-Length: -1" CRLF CRLF,
	"Content-Length is not a number"},
    {"POST http://h/ HTTP/1.1" CRLF "Content-Length: 1, 1" CRLF CRLF,
	"Content-Length is not a number"},
    {"POST http://h/ HTTP/1.1" CRLF "Content-Length: 1 1" CRLF CRLF,
	"Content-Length is not a number"},
    {"POST http://h/ HTTP/1.1" CRLF "Content-Length:" CRLF CRLF,
	"empty Content-Length"},
    {"POST http://h/ HTTP/1.1" CRLF "Content-Length:  " CRLF CRLF,
	"empty Content-Length"},
    {"POST http://h/ HTTP/1.1" CRLF
     "Content-Length: 99999999999999999999" CRLF CRLF,
	"Content-Length too large"},
    {"POST http://h/ HTTP/1.1" CRLF "Content-Length: 5" CRLF
     "content-length: 6" CRLF CRLF,
	"Content-Lengths that differ"},
    {"POST http://h/ HTTP/1.1" CRLF "Content-Length: 5" CRLF
     "Transfer-Encoding: chunked" CRLF CRLF,
	"both Content-Length and Transfer-Encoding"},
    {"POST http://h/ HTTP/1.1" CRLF "TRANSFER-ENCODING: chunked" CRLF
     "CONTENT-LENGTH: 5" CRLF CRLF,
	"both Content-Length and Transfer-Encoding"},
    {"POST http://h/ HTTP/1.0" CRLF "Transfer-Encoding: chunked" CRLF CRLF,
	"Transfer-Encoding in an HTTP/1.0 request"},
};

static void
test_http_bad(void)
{
	struct kb_http_req r;
	const char *why;

	for (size_t i = 0; i < nitems(bad_heads); i++) {
		const char *h = bad_heads[i].head;
		enum kb_http rc = kb_http_parse(h, strlen(h), &r, &why);

		if (bad_heads[i].why == NULL) {
			assert_cmpint(rc, KB_HTTP_OK, "ok: %s", vis(h));
			continue;
		}
		ok(rc == KB_HTTP_BAD && why != NULL &&
			strcmp(why, bad_heads[i].why) == 0,
		    "bad (%s): %s", bad_heads[i].why, vis(h));
		if (rc != KB_HTTP_BAD || why == NULL ||
		    strcmp(why, bad_heads[i].why) != 0)
			printf(
			    "#   got %d '%s'\n", (int)rc, why ? why : "(null)");
	}
	/* a NUL (strlen would stop there) */
	{
		static const char nul[] =
		    "GET http://h/ HTTP/1.1" CRLF "X: a\0b" CRLF CRLF;

		ok(kb_http_parse(nul, sizeof(nul) - 1, &r, &why) ==
			    KB_HTTP_BAD &&
			strcmp(why, "NUL byte in the request head") == 0,
		    "a NUL in a header value");
		ok(kb_http_parse(nul, 2, &r, NULL) == KB_HTTP_MORE,
		    "why may be NULL");
	}
}

/* the head limit: KB_HTTP_HEAD_MAX bytes with the blank line, not one more */
static void
test_http_limit(void)
{
	static char big[KB_HTTP_HEAD_MAX + 64];
	static const char line[] = "GET http://h/ HTTP/1.1" CRLF "X: ";
	struct kb_http_req r;
	const char *why;
	size_t fill;

	memcpy(big, line, sizeof(line) - 1);
	fill = KB_HTTP_HEAD_MAX - (sizeof(line) - 1) - 4;
	memset(big + sizeof(line) - 1, 'a', fill);
	memcpy(big + KB_HTTP_HEAD_MAX - 4, CRLF CRLF, 4);
	ok(kb_http_parse(big, KB_HTTP_HEAD_MAX, &r, &why) == KB_HTTP_OK &&
		r.head_len == KB_HTTP_HEAD_MAX,
	    "a head of exactly KB_HTTP_HEAD_MAX bytes");
	memset(big + sizeof(line) - 1, 'a', fill + 1);
	memcpy(big + KB_HTTP_HEAD_MAX - 3, CRLF CRLF, 4);
	ok(kb_http_parse(big, KB_HTTP_HEAD_MAX + 1, &r, &why) == KB_HTTP_BAD &&
		strcmp(why, "request head too long") == 0,
	    "a head of KB_HTTP_HEAD_MAX + 1 bytes");
	memset(big + sizeof(line) - 1, 'a', sizeof(big) - sizeof(line));
	ok(kb_http_parse(big, KB_HTTP_HEAD_MAX - 1, &r, &why) == KB_HTTP_MORE,
	    "no blank line in KB_HTTP_HEAD_MAX - 1 bytes: more");
	ok(kb_http_parse(big, KB_HTTP_HEAD_MAX, &r, &why) == KB_HTTP_BAD &&
		strcmp(why, "request head too long") == 0,
	    "none in KB_HTTP_HEAD_MAX bytes: too long");
	ok(kb_http_parse(big, sizeof(big), &r, &why) == KB_HTTP_BAD,
	    "none in more");
	/* a host of 255 bytes fits r->host, 256 do not */
	{
		char req[400];
		char host[257];

		memset(host, 'a', 256);
		host[255] = '\0';
		snprintf(req, sizeof(req), "CONNECT %s:443 HTTP/1.1" CRLF CRLF,
		    host);
		ok(kb_http_parse(req, strlen(req), &r, &why) == KB_HTTP_OK &&
			strlen(r.host) == 255,
		    "a 255-byte host");
		host[255] = 'a';
		host[256] = '\0';
		snprintf(req, sizeof(req), "CONNECT %s:443 HTTP/1.1" CRLF CRLF,
		    host);
		ok(kb_http_parse(req, strlen(req), &r, &why) == KB_HTTP_BAD &&
			strcmp(why, "host too long") == 0,
		    "a 256-byte host");
	}
	/* a 23-byte method */
	{
		static const char m23[] =
		    "ABCDEFGHIJKLMNOPQRSTUVW http://h/ HTTP/1.1" CRLF CRLF;

		ok(kb_http_parse(m23, sizeof(m23) - 1, &r, &why) ==
			    KB_HTTP_OK &&
			strcmp(r.method, "ABCDEFGHIJKLMNOPQRSTUVW") == 0,
		    "a 23-byte method");
	}
}

static const struct {
	const char *head;
	size_t extra; /* bytes at the end past the head (body, pipelining) */
	const char *method, *host, *target;
	unsigned port;
	int minor;
	bool connect;
} good_heads[] = {
    {"GET http://example.com/a/b?x=1&y=%20 HTTP/1.1" CRLF
     "Host: example.com" CRLF "User-Agent: t/1" CRLF CRLF,
	0, "GET", "example.com", "/a/b?x=1&y=%20", 80, 1, false},
    {"HEAD http://Example.COM:8080 HTTP/1.0" CRLF CRLF, 0, "HEAD",
	"Example.COM", "/", 8080, 0, false},
    {"POST http://h/p HTTP/1.1" CRLF "Content-Length: 5" CRLF CRLF "hello", 5,
	"POST", "h", "/p", 80, 1, false},
    {"POST http://h/p HTTP/1.1" CRLF "content-length: 5" CRLF
     "CONTENT-LENGTH:\t05 " CRLF CRLF "hello",
	5, "POST", "h", "/p", 80, 1, false},
    {"POST http://h/p HTTP/1.1" CRLF "Transfer-Encoding: chunked" CRLF CRLF
     "0" CRLF CRLF,
	5, "POST", "h", "/p", 80, 1, false},
    {"CONNECT github.com:443 HTTP/1.1" CRLF "Host: github.com:443" CRLF CRLF, 0,
	"CONNECT", "github.com", NULL, 443, 1, true},
    {"CONNECT [::1]:443 HTTP/1.0" CRLF CRLF, 0, "CONNECT", "[::1]", NULL, 443,
	0, true},
    {"CONNECT h:65535 HTTP/1.1" CRLF CRLF "\x16\x03\x01", 3, "CONNECT", "h",
	NULL, 65535, 1, true},
    {"GET HTTP://h/ HTTP/1.1" CRLF CRLF, 0, "GET", "h", "/", 80, 1, false},
    {"GET hTtP://h:0080/x HTTP/1.1" CRLF CRLF, 0, "GET", "h", "/x", 80, 1,
	false},
    {"GET http://h?q=1 HTTP/1.1" CRLF CRLF, 0, "GET", "h", "?q=1", 80, 1,
	false},
    {"GET http://[2001:db8::1]:8080/ HTTP/1.1" CRLF CRLF, 0, "GET",
	"[2001:db8::1]", "/", 8080, 1, false},
    {"DELETE http://h/x HTTP/1.1" CRLF "X: caf\xc3\xa9\tbar" CRLF "Y:" CRLF
     "Z:   " CRLF CRLF,
	0, "DELETE", "h", "/x", 80, 1, false},
    /* pipelined: the second request is not part of the head */
    {"GET http://h/1 HTTP/1.1" CRLF "A: b" CRLF CRLF
     "GET http://h/2 HTTP/1.1" CRLF CRLF,
	27, "GET", "h", "/1", 80, 1, false},
    {"GET http://h/1 HTTP/1.1" CRLF CRLF "garbage\n\r", 9, "GET", "h", "/1", 80,
	1, false},
    {"M-._~!#$%&'*+^`| http://h/ HTTP/1.1" CRLF CRLF, 0, "M-._~!#$%&'*+^`|",
	"h", "/", 80, 1, false},
};

static void
test_http_good(void)
{
	struct kb_http_req r;
	const char *why;

	for (size_t i = 0; i < nitems(good_heads); i++) {
		const char *h = good_heads[i].head;
		size_t len = strlen(h), hdr_off = strstr(h, CRLF) - h + 2;
		size_t head = len - good_heads[i].extra, bad_at = SIZE_MAX;
		enum kb_http rc = kb_http_parse(h, len, &r, &why);
		bool fields;

		fields = rc == KB_HTTP_OK && r.head_len == head &&
			 r.hdr_off == hdr_off &&
			 strcmp(r.method, good_heads[i].method) == 0 &&
			 strcmp(r.host, good_heads[i].host) == 0 &&
			 r.port == good_heads[i].port &&
			 r.minor == good_heads[i].minor &&
			 r.connect == good_heads[i].connect &&
			 (good_heads[i].target == NULL
				 ? r.target == NULL
				 : (r.target != NULL &&
				       r.target_len ==
					   strlen(good_heads[i].target) &&
				       memcmp(r.target, good_heads[i].target,
					   r.target_len) == 0));
		ok(fields, "ok: %s", vis(h));
		if (!fields)
			printf("#   rc %d why '%s' head_len %zu (want %zu) "
			       "hdr_off %zu method '%s' host '%s' port %u "
			       "target '%.*s'\n",
			    (int)rc, why ? why : "", r.head_len, head,
			    r.hdr_off, r.method, r.host, r.port,
			    r.target ? (int)r.target_len : 6,
			    r.target ? r.target : "(null)");
		if (rc == KB_HTTP_OK && r.target != NULL)
			ok((r.target >= h &&
			       r.target + r.target_len <= h + head) ||
				(r.target_len == 1 && r.target[0] == '/'),
			    "its target lies in the head, or is \"/\"");
		for (size_t n = 0; n < head && bad_at == SIZE_MAX; n++)
			if (kb_http_parse(h, n, &r, &why) != KB_HTTP_MORE)
				bad_at = n;
		ok(bad_at == SIZE_MAX, "each of its %zu prefixes is MORE",
		    head);
	}
}

/* --- the head sent upstream ----------------------------------------------- */

static void
upstream(const char *in, const char *host, unsigned port, const char *want,
    const char *what)
{
	struct kb_http_req r;
	const char *why;
	size_t n = 0;
	char *out;

	if (kb_http_parse(in, strlen(in), &r, &why) != KB_HTTP_OK) {
		ok(0, "%s: parses (%s)", what, why);
		return;
	}
	out = kb_http_upstream_head(in, &r, host, port, &n);
	assert_cmpstr(out, want, "%s", what);
	assert_cmpint(n, strlen(want), "%s: its length", what);
	free(out);
}

static void
test_upstream(void)
{
	upstream("GET http://Example.com:8080/p?q HTTP/1.1" CRLF
		 "Host: evil.example" CRLF "User-Agent: a" CRLF
		 "Connection: keep-alive, X-Secret" CRLF
		 "Proxy-Connection: keep-alive" CRLF
		 "Proxy-Authorization: Basic eA==" CRLF
		 "Proxy-Authenticate: y" CRLF "Keep-Alive: 5" CRLF
		 "TE: trailers" CRLF "Trailer: z" CRLF "Upgrade: h2c" CRLF
		 "x-secret: 1" CRLF "Accept: */*" CRLF "X-Other: 2" CRLF
		 "Transfer-Encoding: chunked" CRLF CRLF "0" CRLF CRLF,
	    "example.com", 8080,
	    "GET /p?q HTTP/1.1" CRLF "User-Agent: a" CRLF "Accept: */*" CRLF
	    "X-Other: 2" CRLF "Transfer-Encoding: chunked" CRLF
	    "Host: example.com:8080" CRLF "Connection: close" CRLF CRLF,
	    "hop-by-hop headers dropped, one named by Connection too, the "
	    "rest kept in order");
	upstream("GET http://h/ HTTP/1.0" CRLF "HOST: h" CRLF
		 "CONNECTION:  a ,b,, \tc " CRLF "connection: D" CRLF
		 "A: 1" CRLF "B: 2" CRLF "C: 3" CRLF "d: 4" CRLF "E: 5" CRLF
		 "AB: 6" CRLF CRLF,
	    "h", 80,
	    "GET / HTTP/1.0" CRLF "E: 5" CRLF "AB: 6" CRLF "Host: h" CRLF
	    "Connection: close" CRLF CRLF,
	    "every name two Connection headers list, in any case; port 80 "
	    "not written");
	upstream("POST http://h?q=1 HTTP/1.1" CRLF "Content-Length: 2" CRLF CRLF
		 "hi",
	    "h", 80,
	    "POST /?q=1 HTTP/1.1" CRLF "Content-Length: 2" CRLF "Host: h" CRLF
	    "Connection: close" CRLF CRLF,
	    "a query without a path gets its '/'");
	upstream("GET http://h HTTP/1.1" CRLF CRLF, "h", 81,
	    "GET / HTTP/1.1" CRLF "Host: h:81" CRLF
	    "Connection: close" CRLF CRLF,
	    "no headers, no path");
	upstream("GET http://h/x HTTP/1.1" CRLF "Hostname: x" CRLF "Tea: y" CRLF
		 "Te: z" CRLF "Upgrade-Insecure-Requests: 1" CRLF CRLF,
	    "h", 80,
	    "GET /x HTTP/1.1" CRLF "Hostname: x" CRLF "Tea: y" CRLF
	    "Upgrade-Insecure-Requests: 1" CRLF "Host: h" CRLF
	    "Connection: close" CRLF CRLF,
	    "names that start like a dropped one are kept");
	upstream("POST http://h/ HTTP/1.1" CRLF
		 "Connection: content-length, x" CRLF "Content-Length: 2" CRLF
		 "X: 1" CRLF CRLF "hi",
	    "h", 80,
	    "POST / HTTP/1.1" CRLF "Content-Length: 2" CRLF "Host: h" CRLF
	    "Connection: close" CRLF CRLF,
	    "Content-Length stays though Connection names it");
	upstream("POST http://h/ HTTP/1.1" CRLF
		 "Connection: Transfer-Encoding" CRLF
		 "Transfer-Encoding: chunked" CRLF CRLF "0" CRLF CRLF,
	    "h", 80,
	    "POST / HTTP/1.1" CRLF "Transfer-Encoding: chunked" CRLF
	    "Host: h" CRLF "Connection: close" CRLF CRLF,
	    "so does Transfer-Encoding");
}

/* a chunked body: how much of the bytes belongs to it */
static void
chunked_case(const char *in, long want, bool done, const char *what)
{
	struct kb_chunked c = {0};
	long got = kb_chunked_scan(&c, in, strlen(in));

	ok(got == want && c.done == done, "chunked: %s (got %ld, done %d)",
	    what, got, c.done);
	/* byte by byte: the same answer */
	if (want != -1) {
		struct kb_chunked d = {0};
		long sum = 0, k = 0;

		for (size_t i = 0; in[i] != '\0' && !d.done; i++) {
			if ((k = kb_chunked_scan(&d, in + i, 1)) == -1)
				break;
			sum += k;
		}
		ok(k != -1 && sum == want && d.done == done,
		    "chunked: %s, one byte at a time", what);
	}
}

static void
test_chunked(void)
{
	chunked_case("5" CRLF "hello" CRLF "0" CRLF CRLF, 15, true,
	    "one chunk and the last");
	chunked_case("5" CRLF "hello" CRLF "0" CRLF CRLF "GET http://evil/",
	    15, true, "a pipelined request after it is not the body's");
	chunked_case("A;ext=1" CRLF "0123456789" CRLF "000" CRLF
		     "X-Sum: 1" CRLF CRLF,
	    38, true, "an extension, a trailer field, 000");
	chunked_case("1f" CRLF, 4, false, "a chunk-size line: more to come");
	chunked_case("5" CRLF "hel", 6, false, "inside the data");
	chunked_case("" , 0, false, "nothing yet");
	chunked_case("g" CRLF, -1, false, "not a hex digit");
	chunked_case(CRLF, -1, false, "no chunk-size");
	chunked_case("5\nhello" CRLF, -1, false, "a bare LF");
	chunked_case("5" CRLF "helloX" CRLF, -1, false,
	    "data longer than its size");
	chunked_case("1000000000000000" CRLF, -1, false,
	    "a size of 16 hex digits (past 2^60)");
	chunked_case("fffffffffffffff" CRLF, 17, false,
	    "15 hex digits: accepted");
	chunked_case("0" CRLF "X-A: 1\n" CRLF, -1, false,
	    "a trailer line with a bare LF");
	chunked_case("0" CRLF "\r" "X", -1, false, "CR without LF at the end");
	{
		struct kb_http_req r;
		const char *why;
		const char *te = "POST http://h/ HTTP/1.1" CRLF
				 "Transfer-Encoding: gzip, chunked" CRLF CRLF;
		const char *cl = "POST http://h/ HTTP/1.1" CRLF
				 "Content-Length: 12" CRLF CRLF;
		const char *ch = "POST http://h/ HTTP/1.1" CRLF
				 "Transfer-Encoding: Chunked" CRLF CRLF;
		const char *none = "GET http://h/ HTTP/1.1" CRLF CRLF;

		ok(kb_http_parse(te, strlen(te), &r, &why) == KB_HTTP_BAD,
		    "a Transfer-Encoding other than chunked is refused");
		ok(kb_http_parse(cl, strlen(cl), &r, &why) == KB_HTTP_OK &&
			r.body == KB_BODY_LENGTH && r.length == 12,
		    "Content-Length: the body's length");
		ok(kb_http_parse(ch, strlen(ch), &r, &why) == KB_HTTP_OK &&
			r.body == KB_BODY_CHUNKED,
		    "Transfer-Encoding: chunked (any case)");
		ok(kb_http_parse(none, strlen(none), &r, &why) == KB_HTTP_OK &&
			r.body == KB_BODY_NONE,
		    "neither: no body");
	}
}

int
main(void)
{
	test_addresses();
	test_host_canon();
	test_tls_built();
	test_tls_real();
	test_http_bad();
	test_http_limit();
	test_http_good();
	test_upstream();
	test_chunked();
	return tap_done();
}
