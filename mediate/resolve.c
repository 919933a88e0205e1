/*
 * mediate/resolve.c — the egress proxy's name lookups (see proxy.h):
 * the host's resolver (getaddrinfo: /etc/hosts, then DNS, as
 * nsswitch.conf says), once per connection, every answer judged by
 * kb_egress_refused() before it may be dialled. The proxy connects to
 * the sockaddr this returns, never to the name again: a second lookup
 * could answer differently (DNS rebinding).
 *
 * Built twice. The release object (resolve.o, in kinbox) has no
 * override. The test object (resolve-test.o, -DKB_TEST_BUILD, linked
 * into ./kinbox-test only, which `make install` never installs) first
 * reads KINBOX_TEST_RESOLVE=NAME=IP[,NAME=IP...] and treats those answers
 * as public, so that the tests can reach upstreams on 127.0.0.1, and
 * names in KINBOX_TEST_SANDBOX_EXEC the stand-in that takes
 * sandbox-exec's place (tests/t22-seatbelt.sh), in
 * KINBOX_TEST_DEV_ROOT the directory --gpu scans instead of /dev
 * (tests/t25-devices.sh fakes a GPU's nodes there), and in
 * KINBOX_TEST_PROC_DEVICES the file read instead of /proc/devices for the
 * drivers' load-time majors (t25 names an NVMe generic node's there).
 *
 * kinbox is linked statically: glibc's getaddrinfo then loads any NSS
 * module beyond files and dns (mdns, resolve) from the installed glibc,
 * which must be the one kinbox was built against (the linker says so).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "egress.h"
#include "proxy.h"

#ifdef KB_TEST_BUILD
const bool kb_resolve_test_build = true;
const char *const kb_resolve_test_note =
    "test build: the KINBOX_TEST_RESOLVE answers are taken as public "
    "addresses; never install it";

/* NAME=IP from KINBOX_TEST_RESOLVE ("a=127.0.0.1, b=::1"): true with
 * `out` filled */
static bool
test_override(const char *host, unsigned port, struct sockaddr_storage *out)
{
	const char *list = getenv("KINBOX_TEST_RESOLVE");
	size_t hl = strlen(host);

	for (const char *s = list; s != NULL && *s != '\0';) {
		const char *end, *eq, *ip0, *ip1, *n1;
		char ip[INET6_ADDRSTRLEN];

		s += strspn(s, " \t");
		end = strchr(s, ',');
		if (end == NULL)
			end = s + strlen(s);
		eq = memchr(s, '=', (size_t)(end - s));
		for (ip0 = eq != NULL ? eq + 1 : end; ip0 < end && *ip0 == ' ';
		     ip0++)
			;
		for (ip1 = end;
		     ip1 > ip0 && (ip1[-1] == ' ' || ip1[-1] == '\t'); ip1--)
			;
		for (n1 = eq != NULL ? eq : s; n1 > s && n1[-1] == ' '; n1--)
			;
		if (eq != NULL && (size_t)(n1 - s) == hl &&
		    strncasecmp(s, host, hl) == 0 &&
		    (size_t)(ip1 - ip0) < sizeof(ip)) {
			struct sockaddr_in *a = (struct sockaddr_in *)out;
			struct sockaddr_in6 *b = (struct sockaddr_in6 *)out;

			memcpy(ip, ip0, (size_t)(ip1 - ip0));
			ip[ip1 - ip0] = '\0';
			memset(out, 0, sizeof(*out));
			if (inet_pton(AF_INET, ip, &a->sin_addr) == 1) {
				a->sin_family = AF_INET;
				a->sin_port = htons((uint16_t)port);
				return true;
			}
			if (inet_pton(AF_INET6, ip, &b->sin6_addr) == 1) {
				b->sin6_family = AF_INET6;
				b->sin6_port = htons((uint16_t)port);
				return true;
			}
		}
		s = *end == ',' ? end + 1 : NULL;
	}
	return false;
}

const char *
kb_test_sandbox_exec(void)
{
	const char *v = getenv("KINBOX_TEST_SANDBOX_EXEC");

	return v != NULL && v[0] == '/' ? v : NULL;
}

const char *
kb_test_dev_root(void)
{
	const char *v = getenv("KINBOX_TEST_DEV_ROOT");

	return v != NULL && v[0] == '/' ? v : NULL;
}

const char *
kb_test_proc_devices(void)
{
	const char *v = getenv("KINBOX_TEST_PROC_DEVICES");

	return v != NULL && v[0] == '/' ? v : NULL;
}
#else
const bool kb_resolve_test_build = false;
const char *const kb_resolve_test_note = NULL;

const char *
kb_test_sandbox_exec(void)
{
	return NULL;
}

const char *
kb_test_dev_root(void)
{
	return NULL;
}

const char *
kb_test_proc_devices(void)
{
	return NULL;
}
#endif

size_t
kb_resolve(const char *host, unsigned port, struct sockaddr_storage *out,
    size_t max, char *why, size_t whysz, int *gai)
{
	struct addrinfo hints = {
	    .ai_family = AF_UNSPEC,
	    .ai_socktype = SOCK_STREAM,
	    .ai_protocol = IPPROTO_TCP,
	};
	struct addrinfo *res = NULL;
	const char *first = NULL;
	size_t n = 0, refused = 0;
	int rc;

	*gai = 0;
	why[0] = '\0';
#ifdef KB_TEST_BUILD
	if (max > 0 && test_override(host, port, &out[0]))
		return 1;
#endif
	rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc != 0) {
		*gai = rc;
		snprintf(why, whysz, "cannot resolve: %s",
		    rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
		return 0;
	}
	for (struct addrinfo *a = res; a != NULL && n < max; a = a->ai_next) {
		const char *r = kb_egress_refused(a->ai_addr, a->ai_addrlen);

		if (r != NULL) {
			if (first == NULL)
				first = r;
			refused++;
			continue;
		}
		if (a->ai_addrlen > sizeof(out[n]))
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		memcpy(&out[n], a->ai_addr, a->ai_addrlen);
		if (a->ai_family == AF_INET)
			((struct sockaddr_in *)&out[n])->sin_port =
			    htons((uint16_t)port);
		else
			((struct sockaddr_in6 *)&out[n])->sin6_port =
			    htons((uint16_t)port);
		n++;
	}
	freeaddrinfo(res);
	if (n == 0)
		snprintf(why, whysz,
		    "resolves only to refused addresses (%s%s)",
		    first != NULL ? first : "none usable",
		    refused > 1 ? ", and others" : "");
	return n;
}
