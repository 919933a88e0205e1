/*
 * profile/hosts.c — the egress allow-list's entries (see hosts.h): the
 * form of one HOST[:PORT], the setter that records it with its origin,
 * and the settling of the network mode after every source. No I/O: a
 * name is judged by its form, never resolved (the proxy resolves it at
 * the time of the request, and refuses private addresses there).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hosts.h"
#include "policy.h"

/*
 * Names that never lie on the public internet: loopback, link-local
 * multicast DNS, the suffixes sites use for their own networks, the
 * reserved ones (RFC 2606 .invalid, RFC 7686 .onion) and reverse DNS
 * (.arpa: in-addr.arpa, ip6.arpa, home.arpa). An allow-list entry for
 * one could only be a way to the inside of the network. .test and
 * .example stay allowed: they resolve nowhere by themselves, and tests
 * give them addresses with a resolver override.
 */
static const char *const reserved[] = {
    "localhost",
    "local",
    "internal",
    "lan",
    "localdomain",
    "intranet",
    "corp",
    "home",
    "private",
    "invalid",
    "onion",
    "arpa",
    "home.arpa",
};

static int
refuse(const char **why, const char *msg)
{
	*why = msg;
	return -1;
}

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool
is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool
is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* a label a URL parser reads as a number (WHATWG "ends in a number"):
 * decimal digits, or 0x and hex digits; then the name is an address */
static bool
numeric_label(const char *l, size_t n)
{
	size_t i = 0;

	if (n >= 2 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X')) {
		for (i = 2; i < n; i++)
			if (!is_hex(l[i]))
				return false;
		return true;
	}
	for (; i < n; i++)
		if (!is_digit(l[i]))
			return false;
	return n > 0;
}

/* an IPv6 literal inet_pton does not take, with a zone or a typo
 * ("fe80::1%eth0", "::1::"): hex digits, colons and dots, then perhaps
 * '%' and the zone's name */
static bool
ipv6_like(const char *v)
{
	for (; *v != '\0' && *v != '%'; v++)
		if (!is_hex(*v) && *v != ':' && *v != '.')
			return false;
	return true;
}

static int
parse_port(const char *s, unsigned *port, const char **why)
{
	unsigned long v = 0;
	size_t n = 0;

	if (*s == '\0')
		return refuse(why, "no port after ':'; write HOST:PORT, or "
				   "HOST alone for port 443");
	for (; s[n] != '\0'; n++) {
		if (!is_digit(s[n]))
			return refuse(why, "the port is not a number; write "
					   "HOST:PORT with a PORT of 1-65535");
		/* more digits than 65535 has: out of range, whatever
		 * they are (and no overflow) */
		if (n < 6)
			v = v * 10 + (unsigned long)(s[n] - '0');
	}
	if (v == 0 || v > 65535 || n > 5)
		return refuse(why, "the port is out of range; give 1-65535");
	*port = (unsigned)v;
	return 0;
}

static bool
ends_with_label(const char *name, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	if (n == k)
		return strncmp(name, suffix, k) == 0;
	return n > k && name[n - k - 1] == '.' &&
	       strncmp(name + n - k, suffix, k) == 0;
}

int
kb_host_entry_parse(
    const char *v, char *name, size_t namesz, unsigned *port, const char **why)
{
	char host[KB_HOST_NAME_MAX + 2];
	const char *colon, *label;
	struct in6_addr a6;
	struct in_addr a4;
	size_t n;

	*port = 443;
	if (namesz < KB_HOST_NAME_MAX + 1)
		return refuse(why, "internal: the name buffer is too small");
	/* what the entry is not, most telling first: each says what to
	 * write instead */
	if (*v == '\0')
		return refuse(why, "empty; give a host name, e.g. github.com");
	if (strstr(v, "://") != NULL)
		return refuse(why, "a URL, not a host name; write the host "
				   "name alone, e.g. github.com");
	if (strchr(v, '/') != NULL)
		return refuse(why, "a path is not part of a host name; write "
				   "the host name alone, e.g. github.com");
	if (strchr(v, '*') != NULL)
		return refuse(why, "a wildcard; each name is exact: list "
				   "every host");
	if (strchr(v, '@') != NULL)
		return refuse(why, "user information (user@) is not part of a "
				   "host name; write the host name alone, "
				   "e.g. github.com");
	if (strpbrk(v, ", \t") != NULL)
		return refuse(why, "more than one host, or a blank; give one "
				   "host per --allow-host (repeat it)");
	colon = strchr(v, ':');
	if (strpbrk(v, "[]") != NULL || inet_pton(AF_INET6, v, &a6) == 1 ||
	    (colon != NULL && colon != strrchr(v, ':') && ipv6_like(v)))
		return refuse(why, "an IP address; kinbox's proxy takes names "
				   "only: give the host's DNS name");
	n = colon != NULL ? (size_t)(colon - v) : strlen(v);
	if (colon != NULL && parse_port(colon + 1, port, why) == -1)
		return -1;
	if (n == 0)
		return refuse(why, "no host name before ':'; write HOST:PORT, "
				   "e.g. github.com:8443");
	/* the root's dot: "github.com." is github.com */
	if (v[n - 1] == '.')
		n--;
	if (n == 0)
		return refuse(why, "empty; give a host name, e.g. github.com");
	if (n > KB_HOST_NAME_MAX)
		return refuse(why, "longer than 253 characters, which no DNS "
				   "name is; check the name");
	memcpy(host, v, n);
	host[n] = '\0';
	/* every form the resolver takes as an IPv4 address: 127.1,
	 * 0x7f.1, 2130706433, 017700000001 */
	if (inet_aton(host, &a4) != 0)
		return refuse(why, "an IP address; kinbox's proxy takes names "
				   "only: give the host's DNS name");
	for (size_t i = 0; i < n; i++)
		if (!is_alpha(host[i]) && !is_digit(host[i]) &&
		    host[i] != '-' && host[i] != '.')
			return refuse(why,
			    "a character other than a letter, a digit, '-' or "
			    "'.'; write the DNS name (an international one in "
			    "its xn-- form)");
	for (label = host;;) {
		size_t len = strcspn(label, ".");

		if (len == 0)
			return refuse(why, "an empty label (a leading dot, or "
					   "two in a row); check the name");
		if (len > 63)
			return refuse(why, "a label longer than 63 characters, "
					   "which no DNS name has; check the "
					   "name");
		if (label[0] == '-' || label[len - 1] == '-')
			return refuse(why, "a label starts or ends with '-'; "
					   "check the name");
		if (label[len] == '\0') {
			if (numeric_label(label, len))
				return refuse(why,
				    "it ends in a number, so it reads as an IP "
				    "address; give the host's DNS name");
			break;
		}
		label += len + 1;
	}
	if (strchr(host, '.') == NULL)
		return refuse(why, "a single-label name is local; give the "
				   "host's full DNS name (host.domain)");
	for (size_t i = 0; i < n; i++)
		if (host[i] >= 'A' && host[i] <= 'Z')
			host[i] = (char)(host[i] - 'A' + 'a');
	for (size_t i = 0; i < nitems(reserved); i++)
		if (ends_with_label(host, n, reserved[i]))
			return refuse(why,
			    "a private or reserved name, which kinbox's proxy "
			    "never reaches; give a public name (--net gives "
			    "the whole network instead)");
	memcpy(name, host, n + 1);
	return 0;
}

int
kb_policy_add_host(struct kb_policy *p, const char *entry, enum kb_origin o,
    const char *where, const char *what, struct kb_err *e)
{
	char name[KB_HOST_NAME_MAX + 1];
	const char *why;
	unsigned port;
	struct kb_hostgrant *g;

	if (kb_host_entry_parse(entry, name, sizeof(name), &port, &why) == -1)
		return kb_err_set(
		    e, "%s %s: %s", what, *entry ? entry : "''", why);
	for (size_t i = 0; i < p->nallow_host; i++) {
		g = &p->allow_host[i];
		if (g->port != port || strcmp(g->name, name) != 0)
			continue;
		/* named again by a later source in rank order: that one
		 * is its origin, as for a socket */
		if (o >= g->origin) {
			g->origin = o;
			free(g->where);
			g->where = where != NULL ? xstrdup(where) : NULL;
		}
		return 0;
	}
	if (p->nallow_host == KB_MAX_HOST)
		return kb_err_set(e,
		    "%s %s: too many allowed hosts (at most %d); allow only "
		    "those the command needs",
		    what, entry, KB_MAX_HOST);
	g = &p->allow_host[p->nallow_host++];
	g->name = xstrdup(name);
	g->port = port;
	g->origin = o;
	g->where = where != NULL ? xstrdup(where) : NULL;
	return 0;
}

/* --- the network mode ---------------------------------------------------- */

static bool
is_grant(enum kb_origin o)
{
	return o == KB_ORIGIN_SESSION || o == KB_ORIGIN_WORKSPACE;
}

static bool
is_config(enum kb_origin o)
{
	return o == KB_ORIGIN_SYSTEM || o == KB_ORIGIN_GLOBAL;
}

/* "github.com:443 (--allow-host)": one host and who named it */
static void
host_words(struct kb_buf *b, const struct kb_hostgrant *g)
{
	kb_buf_printf(b, "%s%s:%u (%s)", b->s != NULL ? ", " : "", g->name,
	    g->port, g->where != NULL ? g->where : kb_origin_name(g->origin));
}

/* every allowed host, for a note (a new string) */
static char *
all_hosts(const struct kb_policy *p)
{
	struct kb_buf b = {0};

	for (size_t i = 0; i < p->nallow_host; i++)
		host_words(&b, &p->allow_host[i]);
	return b.s != NULL ? b.s : xstrdup("");
}

/* Drops the hosts whose origin is in `origins` (a bit per enum
 * kb_origin) and says so in one note: "network: the allowed hosts ...
 * are not used: <because>". */
static void
drop_hosts(struct kb_policy *p, unsigned origins, const char *because)
{
	struct kb_buf b = {0};
	size_t kept = 0;

	for (size_t i = 0; i < p->nallow_host; i++) {
		struct kb_hostgrant *g = &p->allow_host[i];

		if (!(origins & (1u << g->origin))) {
			p->allow_host[kept++] = *g;
			continue;
		}
		host_words(&b, g);
		free(g->name);
		free(g->where);
	}
	p->nallow_host = kept;
	if (b.s != NULL)
		kb_strv_pushf(&p->notes,
		    "network: the allowed host%s %s %s not used: %s",
		    strchr(b.s, ',') != NULL ? "s" : "", b.s,
		    strchr(b.s, ',') != NULL ? "are" : "is", because);
	kb_buf_free(&b);
}

#define ALL_ORIGINS 0xffffu

/* The hosts win: the whole network that a lower source gave is not
 * used (p->origin and p->where of the network stay, naming that source
 * for the note; the hosts carry their own origins). */
static void
hosts_win(struct kb_policy *p, const char *by)
{
	const char *netw = p->where[KB_OPT_NET] ? p->where[KB_OPT_NET] : "";
	_cleanup_free_ char *list = all_hosts(p);

	if (!p->net)
		return;
	p->net = false;
	if (is_grant(p->origin[KB_OPT_NET]))
		kb_strv_pushf(&p->notes,
		    "network: the grant of %s is not used: %s limits the "
		    "network to %s",
		    netw, by, list);
	else
		kb_strv_pushf(&p->notes,
		    "network: network = on of %s is not used: %s limits the "
		    "network to %s",
		    netw, by, list);
}

int
kb_hosts_validate(struct kb_policy *p, struct kb_err *e)
{
	const char *netw = p->where[KB_OPT_NET] ? p->where[KB_OPT_NET] : "";
	enum kb_origin no = p->origin[KB_OPT_NET];
	enum kb_origin top = KB_ORIGIN_DEFAULT; /* of the config's hosts */
	const struct kb_hostgrant *top_host = NULL;
	bool typed_hosts = false;
	_cleanup_free_ char *because = NULL;

	if (p->nallow_host == 0)
		return 0;
	for (size_t i = 0; i < p->nallow_host; i++) {
		const struct kb_hostgrant *g = &p->allow_host[i];

		typed_hosts |= g->origin == KB_ORIGIN_FLAG;
		if (is_config(g->origin) && g->origin >= top) {
			top = g->origin;
			top_host = g;
		}
	}
	/* the user typed both: no rank can say which was meant */
	if (typed_hosts && p->typed[KB_OPT_NET] == 1)
		return kb_err_set(e,
		    "--net gives the whole network and --allow-host only "
		    "some hosts: use one of the two");
	/* the project file only tightens: its network = off clears the
	 * list, a typed one included (as it wins over a typed --net) */
	if (!p->net && no == KB_ORIGIN_PROJECT) {
		because = xasprintf("off by %s (network = off; a project file "
				    "may only tighten)",
		    netw);
		drop_hosts(p, ALL_ORIGINS, because);
		return 0;
	}
	if (p->typed[KB_OPT_NET] == 1) {
		drop_hosts(p, ALL_ORIGINS, "--net gives the whole network");
		return 0;
	}
	if (typed_hosts) {
		hosts_win(p, "--allow-host");
		return 0;
	}
	if (p->typed[KB_OPT_NET] == 0) {
		drop_hosts(p, ALL_ORIGINS, "--no-net turns the network off");
		return 0;
	}
	/* no flag: the config files by rank, the grants only widen */
	if (p->net && is_grant(no)) {
		because =
		    xasprintf("the grant of %s gives the whole network", netw);
		drop_hosts(p, ALL_ORIGINS, because);
	} else if (p->net && is_config(no) && top_host != NULL && top == no) {
		return kb_err_set(e,
		    "%s: network = on gives the whole network and "
		    "allowed_hosts (%s) only some hosts: keep one of the two",
		    netw, top_host->where ? top_host->where : "");
	} else if (p->net && is_config(no) && top_host != NULL && top > no) {
		_cleanup_free_ char *by =
		    xasprintf("allowed_hosts of %s", top_host->where);

		hosts_win(p, by);
	} else if (p->net) {
		because = xasprintf(
		    "network = on of %s gives the whole network", netw);
		drop_hosts(p, ALL_ORIGINS, because);
	} else if (no == KB_ORIGIN_GLOBAL) {
		/* the user's own network = off beats the system's list; a
		 * grant's hosts (which widen) stay */
		because = xasprintf(
		    "network = off of %s turns the network off", netw);
		drop_hosts(p, 1u << KB_ORIGIN_SYSTEM, because);
	}
	return 0;
}
