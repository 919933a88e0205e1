/*
 * mediate/proxy.h — kinbox's egress proxy (--allow-host): an HTTP proxy
 * that kinbox runs outside the sandbox, for the life of the run, on a
 * listening socket made inside it.
 *
 * Why this is sound. kinbox-exec, before the command exists, makes a TCP
 * socket listening on 127.0.0.1:KB_PROXY_PORT of the sandbox's own network
 * namespace and hands it to kinbox over an inherited unix socket
 * (SCM_RIGHTS); it keeps no copy and execs the command. A socket belongs
 * to the namespace it was made in, so the command reaches the listener on
 * its loopback, and nothing outside that namespace can (another sandbox
 * has its own loopback; the host's 127.0.0.1 is another address space).
 * The connections kinbox accepts are the sandbox's; the connections it
 * dials are made in kinbox's own namespace, after the checks. No process
 * of kinbox's is inside for the command to kill or trace; the command
 * cannot take the port (it is bound, without SO_REUSEPORT) nor close the
 * listener (kinbox holds the only descriptor). The only route out of the
 * namespace is this proxy: there is no other interface.
 *
 * What it lets out: an absolute-form http:// request, or a CONNECT
 * tunnel whose TLS ClientHello names (SNI) the CONNECT host, to a host and
 * port on the allow-list, at an address the host's resolver gave once for
 * this connection and kb_egress_refused() accepted (mediate/egress.h).
 * Everything else gets 403 with X-Kinbox-Denied (or, inside an accepted
 * tunnel, a TLS alert) and is recorded for the denial report.
 */
#ifndef KB_PROXY_H
#define KB_PROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "../profile/refusal.h"

/* the proxy's port on the sandbox's loopback; the sandbox's own network
 * namespace is fresh, so nothing else can hold it when kinbox-exec binds */
#define KB_PROXY_PORT  3128
#define KB_PROXY_MAGIC 0x6b627078u /* "kbpx" */

/* what kinbox-exec sends with the listener */
struct kb_proxy_hello {
	uint32_t magic;
	uint32_t port;
};

#define KB_MAX_EGRESS_DENIALS 32

struct kb_egress_report {
	struct kb_refused_host denial[KB_MAX_EGRESS_DENIALS];
	size_t ndenial;
	unsigned long long more;    /* denials past the table */
	unsigned long long allowed; /* connections let out */
	unsigned long long refused; /* requests refused */
};

struct kb_hostgrant;
struct kb_proxy;

/*
 * Receives kinbox-exec's listener from the seqpacket socket `sock`: the
 * descriptor, or -1 with errno (EAGAIN: not yet; EPROTO: a malformed
 * message; 0 bytes: kinbox-exec ended first, errno ECONNRESET).
 */
int kb_proxy_recv(int sock);

/*
 * Serves `lfd` (the listener; owned from here) in threads of kinbox's,
 * letting out what `hosts` (n of them, borrowed until kb_proxy_stop)
 * allows. NULL with errno when no thread could be started.
 */
struct kb_proxy *kb_proxy_start(
    int lfd, const struct kb_hostgrant *hosts, size_t n);

/* Closes the listener and every connection, waits for the threads, and
 * fills `out` (zeroed first; may be NULL). NULL `px` fills an empty
 * report. */
void kb_proxy_stop(struct kb_proxy *px, struct kb_egress_report *out);

/*
 * mediate/resolve.c: the host's resolver, once per connection. Fills
 * out[0..max) with the addresses of `host` that kb_egress_refused()
 * accepts, `port` set; returns how many. 0 with *why set: none (the
 * refused ranges named, or the resolver's error; *gai nonzero for a
 * lookup that failed). The test build (make kinbox-test) first consults
 * KINBOX_TEST_RESOLVE=NAME=IP[,NAME=IP...] and takes its answers as
 * public; the release build never reads that variable.
 */
size_t kb_resolve(const char *host, unsigned port, struct sockaddr_storage *out,
    size_t max, char *why, size_t whysz, int *gai);

/* true in the test build (kinbox-test), with the line that says so
 * (NULL in the release build, which holds no word of the override) */
extern const bool kb_resolve_test_build;
extern const char *const kb_resolve_test_note;

/* The test build's stand-in for sandbox-exec (KINBOX_TEST_SANDBOX_EXEC,
 * an absolute path), which enforces nothing; NULL in the release build,
 * which holds no word of the variable. Kept here, with the test build's
 * other difference, so that one object makes the two builds. */
const char *kb_test_sandbox_exec(void);
/* The test build's --gpu scan root (KINBOX_TEST_DEV_ROOT); NULL in the
 * release build, whose --gpu scans /dev. */
const char *kb_test_dev_root(void);
/* The test build's stand-in for /proc/devices (KINBOX_TEST_PROC_DEVICES),
 * whose drivers' names judge a device node (profile/devices.c); NULL in the
 * release build, which reads /proc/devices. */
const char *kb_test_proc_devices(void);

#endif
