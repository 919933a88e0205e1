/*
 * classify/evidence.c — the whole run judged at once (kb_classify_run):
 * what the services outside the sandbox refused the command, which kinbox
 * saw and so states exactly, then the denials its stderr and stdout tell
 * (classify/denial.c), merged into one list with nothing said twice.
 *
 * Pure: the policy, the run's evidence and the oracle in, the denials
 * out. The backend that ran is the evidence's, not the policy's (which
 * says what was asked: auto, say).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/util.h"
#include "../profile/hosts.h"
#include "denial.h"

/*
 * The connects the supervisor refused: exact denials (kinbox saw the
 * path). The grant that helps is --allow-socket on it, unless it lies in
 * a writable root (a guard's mount there: no grant lifts it) or could not
 * be named (a link through /proc).
 */
static size_t
socket_denials(const struct kb_policy *p, const struct kb_evidence *ev,
    struct kb_denial *d, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < ev->nsockets && n < max; i++) {
		const struct kb_refused_socket *s = &ev->sockets[i];
		struct kb_denial *x = &d[n++];

		memset(x, 0, sizeof(*x));
		x->cls = KB_CLASS_SOCKET;
		snprintf(x->path, sizeof(x->path), "%s", s->path);
		snprintf(x->reason, sizeof(x->reason), "%s",
		    strerrorname_np(s->err) ? strerrorname_np(s->err)
					    : "EACCES");
		snprintf(x->evidence, sizeof(x->evidence),
		    "connect(\"%s\") refused %u time%s", s->named, s->count,
		    s->count == 1 ? "" : "s");
		if (s->path[0] == '/' && strncmp(s->path, "/proc/", 6) != 0 &&
		    !kb_policy_within_writable(p, s->path))
			snprintf(x->suggest_socket, sizeof(x->suggest_socket),
			    "%s", s->path);
	}
	return n;
}

/*
 * What the egress proxy refused: exact network denials (kinbox saw the
 * host), one per host, port and reason. The grant that helps is
 * --allow-host HOST:PORT when the host was only missing from the list and
 * is a name kinbox would accept there.
 */
static size_t
host_denials(const struct kb_evidence *ev, struct kb_denial *d, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < ev->nhosts && n < max; i++) {
		const struct kb_refused_host *g = &ev->hosts[i];
		struct kb_denial *x = &d[n++];
		char entry[300], name[256];
		unsigned port;
		const char *why;

		memset(x, 0, sizeof(*x));
		x->cls = KB_CLASS_NETWORK;
		x->exact = true;
		/* the destination as the proxy saw it */
		snprintf(
		    x->host, sizeof(x->host), "%.250s:%u", g->host, g->port);
		snprintf(x->reason, sizeof(x->reason), "%s",
		    g->grantable ? "not on the allow-list"
				 : "refused destination");
		snprintf(x->evidence, sizeof(x->evidence), "%s%s", g->why,
		    g->count > 1 ? ", more than once" : "");
		snprintf(entry, sizeof(entry), "%s:%u", g->host, g->port);
		if (g->grantable && kb_host_entry_parse(entry, name,
					sizeof(name), &port, &why) == 0)
			snprintf(x->suggest_host, sizeof(x->suggest_host),
			    "%s:%u", name, port);
	}
	return n;
}

/* Does a denial read from the command's output tell of a socket kinbox
 * refused (the command's own complaint about it)? Then the exact one
 * says it. */
static bool
told_already(const struct kb_denial *exact, size_t n, const struct kb_denial *d)
{
	for (size_t i = 0; i < n; i++) {
		const char *base = strrchr(exact[i].path, '/');

		if (strcmp(d->path, exact[i].path) == 0 ||
		    (base != NULL && base[1] != '\0' &&
			strstr(d->evidence, base + 1) != NULL))
			return true;
	}
	return false;
}

/* Is `d` one of the first n already (the same class and path, host or
 * reason: a tool that says it on both streams)? */
static bool
same_as(const struct kb_denial *have, size_t n, const struct kb_denial *d)
{
	for (size_t i = 0; i < n; i++)
		if (have[i].cls == d->cls &&
		    strcmp(have[i].path, d->path) == 0 &&
		    strcmp(have[i].host, d->host) == 0 &&
		    (d->path[0] != '\0' || d->host[0] != '\0' ||
			strcmp(have[i].reason, d->reason) == 0))
			return true;
	return false;
}

size_t
kb_classify_run(const struct kb_evidence *ev, const struct kb_policy *p,
    const struct kb_oracle *o, struct kb_denial *d, size_t max)
{
	/* the policy as this run applied it: judged by the errors of the
	 * backend that ran (a local view; the caller's policy is not
	 * changed) */
	struct kb_policy *ran = xmalloc(sizeof(*ran));
	size_t nd, nc, ns;

	*ran = *p;
	ran->backend = ev->backend;
	ns = socket_denials(ran, ev, d, max);
	ns += host_denials(ev, d + ns, max - ns);
	nc = kb_classify_all(ev->exit_status, ev->err_tail, ev->err_len, ran, o,
	    d + ns, max - ns);
	/* what the tool reported on stdout (test runners, hook managers):
	 * the denials stderr did not already tell */
	if (ev->out_tail != NULL && ev->out_len > 0 && ns + nc < max) {
		size_t no = kb_classify_all(ev->exit_status, ev->out_tail,
		    ev->out_len, ran, o, d + ns + nc, max - ns - nc);

		for (size_t i = ns + nc; i < ns + nc + no; i++)
			d[i].from_stdout = true;
		nc += no;
	}
	free(ran);
	nd = ns;
	for (size_t i = ns; i < ns + nc; i++)
		if (!told_already(d, ns, &d[i]) && !same_as(d, nd, &d[i]) &&
		    !(d[i].cls == KB_CLASS_NETWORK && ev->nhosts > 0) &&
		    !(d[i].from_stdout && d[i].from_status))
			d[nd++] = d[i];
	return nd;
}
