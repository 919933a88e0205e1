/*
 * mediate/egress.c — the egress proxy's judgements on addresses and host
 * names (egress.h): which resolved address may be dialled, and the
 * canonical form of a host for the allow-list. Pure: no I/O, no global
 * state (called from any thread). The request heads are read in
 * egress-http.c, the TLS ClientHello in egress-tls.c.
 */
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>

#include "../lib/util.h"
#include "egress.h"

/* --- addresses -------------------------------------------------------------
 *
 * The IPv4 ranges that are not public unicast: those of IANA's
 * special-purpose registry (RFC 6890) a host has no business reaching
 * through a proxy (192.0.0.0/24 whole, though two /32s in it are
 * anycast), multicast, the reserved 240/4 with the broadcast address,
 * and Azure's wireserver, a platform endpoint every VM reaches without
 * credentials, as it does 169.254.169.254. They do not overlap, so
 * their order does not matter.
 *
 * A resolved name pointing at one of them (DNS rebinding, a hostile
 * zone) is refused as the address itself would be.
 *
 * A reason is a constant. The IPv6 forms that carry an IPv4 address are
 * refused for the address they carry and say both, so each range has
 * its reason once per carrier, all built here by string concatenation:
 * no buffer is formatted at run time, and the function stays thread-safe.
 */
enum carrier {
	C_NONE,     /* the IPv4 address itself */
	C_MAPPED,   /* ::ffff:a.b.c.d */
	C_NAT64,    /* 64:ff9b::a.b.c.d */
	C_6TO4,     /* 2002:AABB:CCDD::/48 */
	C_TEREDO_S, /* 2001:0:SSSS:SSSS:...: the server */
	C_TEREDO_C, /* ...:~CCCC:~CCCC, the client (inverted) */
	C_NCARRIERS,
};

#define WHY_MAPPED "IPv4-mapped ::ffff:0:0/96 carrying "
#define WHY_NAT64  "NAT64 64:ff9b::/96 carrying "
#define WHY_6TO4   "6to4 2002::/16 carrying "
#define WHY_TER_S  "Teredo 2001::/32 server carrying "
#define WHY_TER_C  "Teredo 2001::/32 client carrying "

struct v4_range {
	uint32_t net;
	unsigned bits;
	const char *why[C_NCARRIERS];
};

#define V4(a, b, c, d, bits, why)                                              \
	{                                                                      \
		((uint32_t)(a) << 24 | (uint32_t)(b) << 16 |                   \
		    (uint32_t)(c) << 8 | (uint32_t)(d)),                       \
		    (bits),                                                    \
		{                                                              \
			why, WHY_MAPPED why, WHY_NAT64 why, WHY_6TO4 why,      \
			    WHY_TER_S why, WHY_TER_C why                       \
		}                                                              \
	}

static const struct v4_range v4_refused[] = {
    V4(0, 0, 0, 0, 8, "this network 0.0.0.0/8"),
    V4(10, 0, 0, 0, 8, "private-use 10.0.0.0/8"),
    V4(100, 64, 0, 0, 10, "shared address space (CGNAT) 100.64.0.0/10"),
    V4(127, 0, 0, 0, 8, "loopback 127.0.0.0/8"),
    V4(169, 254, 0, 0, 16, "link-local (cloud metadata) 169.254.0.0/16"),
    V4(172, 16, 0, 0, 12, "private-use 172.16.0.0/12"),
    V4(192, 0, 0, 0, 24, "IETF protocol assignments 192.0.0.0/24"),
    V4(192, 0, 2, 0, 24, "documentation (TEST-NET-1) 192.0.2.0/24"),
    V4(192, 88, 99, 0, 24, "6to4 relay anycast 192.88.99.0/24"),
    V4(192, 168, 0, 0, 16, "private-use 192.168.0.0/16"),
    V4(198, 18, 0, 0, 15, "benchmarking 198.18.0.0/15"),
    V4(198, 51, 100, 0, 24, "documentation (TEST-NET-2) 198.51.100.0/24"),
    V4(203, 0, 113, 0, 24, "documentation (TEST-NET-3) 203.0.113.0/24"),
    V4(224, 0, 0, 0, 4, "multicast 224.0.0.0/4"),
    V4(240, 0, 0, 0, 4, "reserved (and broadcast) 240.0.0.0/4"),
    V4(168, 63, 129, 16, 32,
	"cloud platform address (Azure wireserver) 168.63.129.16/32"),
};

/*
 * The IPv6 ranges refused once the IPv4-carrying forms are judged,
 * first match wins (::/128 and ::1/128 before the rest of ::/96). All
 * but three lie outside 2000::/3 and would be refused anyway: they are
 * here to be named.
 */
struct v6_range {
	unsigned char net[16];
	unsigned bits;
	const char *why;
};

static const struct v6_range v6_refused[] = {
    {{0}, 128, "unspecified ::/128"},
    {{[15] = 1}, 128, "loopback ::1/128"},
    {{0}, 96, "IPv4-compatible (deprecated) ::/96"},
    {{0, 0x64, 0xff, 0x9b, 0, 1}, 48, "local-use NAT64 64:ff9b:1::/48"},
    {{0x01, 0x00}, 64, "discard-only 100::/64"},
    {{0x20, 0x01, 0x0d, 0xb8}, 32, "documentation 2001:db8::/32"},
    {{0x20, 0x01}, 23, "IETF protocol assignments 2001::/23"},
    {{0x3f, 0xff}, 20, "documentation 3fff::/20"},
    {{0xfc}, 7, "unique local fc00::/7"},
    {{0xfe, 0x80}, 10, "link-local fe80::/10"},
    {{0xfe, 0xc0}, 10, "site-local (deprecated) fec0::/10"},
    {{0xff}, 8, "multicast ff00::/8"},
};

static const unsigned char pfx_mapped[12] = {[10] = 0xff, [11] = 0xff};
static const unsigned char pfx_nat64[12] = {0, 0x64, 0xff, 0x9b};

/* the first `bits` bits of a and b agree */
static bool
prefix_eq(const unsigned char *a, const unsigned char *b, unsigned bits)
{
	unsigned bytes = bits / 8, rest = bits % 8;

	if (memcmp(a, b, bytes) != 0)
		return false;
	if (rest == 0)
		return true;
	return ((a[bytes] ^ b[bytes]) & (0xff00U >> rest) & 0xff) == 0;
}

static uint32_t
be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* the reason a (host order) is refused, as carried by c; NULL: public */
static const char *
v4_refused_as(uint32_t a, enum carrier c)
{
	for (size_t i = 0; i < nitems(v4_refused); i++) {
		uint32_t mask = UINT32_MAX << (32 - v4_refused[i].bits);

		if ((a & mask) == v4_refused[i].net)
			return v4_refused[i].why[c];
	}
	return NULL;
}

static const char *
v6_refused_why(const unsigned char *a)
{
	const char *why;

	if (memcmp(a, pfx_mapped, 12) == 0)
		return v4_refused_as(be32(a + 12), C_MAPPED);
	if (memcmp(a, pfx_nat64, 12) == 0)
		return v4_refused_as(be32(a + 12), C_NAT64);
	if (a[0] == 0x20 && a[1] == 0x02)
		return v4_refused_as(be32(a + 2), C_6TO4);
	if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0 && a[3] == 0) {
		/* RFC 4380: the client's address is stored inverted, so
		 * that NAT boxes do not rewrite it */
		why = v4_refused_as(be32(a + 4), C_TEREDO_S);
		if (why == NULL)
			why = v4_refused_as(~be32(a + 12), C_TEREDO_C);
		return why;
	}
	for (size_t i = 0; i < nitems(v6_refused); i++)
		if (prefix_eq(a, v6_refused[i].net, v6_refused[i].bits))
			return v6_refused[i].why;
	if ((a[0] & 0xe0) != 0x20)
		return "reserved (outside 2000::/3)";
	return NULL;
}

const char *
kb_egress_refused(const struct sockaddr *sa, socklen_t len)
{
	/* copied out: the caller's buffer need not be aligned for the
	 * family's struct */
	struct sockaddr_in in;
	struct sockaddr_in6 in6;

	if (sa == NULL || len < sizeof(sa_family_t))
		return "not an IPv4 or IPv6 address";
	if (sa->sa_family == AF_INET && len >= sizeof(in)) {
		memcpy(&in, sa, sizeof(in));
		return v4_refused_as(ntohl(in.sin_addr.s_addr), C_NONE);
	}
	if (sa->sa_family == AF_INET6 && len >= sizeof(in6)) {
		memcpy(&in6, sa, sizeof(in6));
		return v6_refused_why(in6.sin6_addr.s6_addr);
	}
	return "not an IPv4 or IPv6 address";
}

/* --- host names ------------------------------------------------------------
 */

bool
kb_egress_host_canon(const char *in, char *out, size_t outsz)
{
	size_t n = strlen(in), label = 0;

	/* "github.com." is github.com: the root's dot, once */
	if (n > 0 && in[n - 1] == '.')
		n--;
	if (n == 0 || n > 253 || n + 1 > outsz)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)in[i];

		if (c == '.') {
			if (label == 0)
				return false;
			label = 0;
			continue;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			(c >= '0' && c <= '9') || c == '-'))
			return false;
		if (++label > 63)
			return false;
	}
	if (label == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = in[i];

		out[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
	}
	out[n] = '\0';
	return true;
}
