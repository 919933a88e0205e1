/*
 * profile/hosts.h — the entries of the egress allow-list (--allow-host
 * HOST[:PORT], [network] allowed_hosts =, allowed_hosts = in a grant):
 * what one may look like, judged without I/O, and how the network mode
 * (off, some hosts through kinbox's proxy, the whole network) is settled
 * when several sources name it (profile/hosts.c).
 */
#ifndef KB_HOSTS_H
#define KB_HOSTS_H

#include <stddef.h>

struct kb_policy;
struct kb_err;

/* the longest DNS name, without its trailing dot (RFC 1035) */
#define KB_HOST_NAME_MAX 253
/* "name:65535" with its NUL */
#define KB_HOST_ENTRY_MAX (KB_HOST_NAME_MAX + 7)

/*
 * One entry, "HOST" or "HOST:PORT". 0 with the canonical name in `name`
 * (lower case, one trailing dot dropped; `namesz` holds
 * KB_HOST_NAME_MAX + 1) and the port (443 when none is given), or -1
 * with `why` set to a constant "problem; fix" (the caller names the
 * entry). Refused: the empty entry, URLs and paths, wildcards, user
 * information, IP literals in any form inet_aton(3) or inet_pton(3)
 * reads and names whose last label is a number, a bad port, characters
 * other than letters, digits, '-' and '.', malformed or over-long
 * labels and names, single-label names and the private or reserved
 * suffixes (.localhost, .local, .internal, .arpa, ...). Exact: no
 * pattern, github.com does not cover api.github.com.
 */
int kb_host_entry_parse(
    const char *v, char *name, size_t namesz, unsigned *port, const char **why);

/*
 * After every source (kb_options_validate calls it): the network mode is
 * one of off, the allowed hosts, the whole network, and p->net and
 * p->nallow_host > 0 are never both left true. --net and --allow-host
 * typed together are an error, as are network = on and allowed_hosts in
 * one config file; otherwise a flag beats the config and the grants, a
 * config file of higher rank beats one of lower rank, a grant only ever
 * widens (the whole network of a grant beats the hosts, the hosts of a
 * grant beat a network that is off), and the project's network = off
 * clears the hosts. What loses is dropped with a note (p->notes). 0, or
 * -1 with `e`.
 */
int kb_hosts_validate(struct kb_policy *, struct kb_err *e);

#endif
