/*
 * backends/choose.c — the backends a run tries, in order, and why the
 * first (the posture line): Seatbelt when asked (macOS: auto), else
 * bubblewrap then the landlock backend, with what this host can do
 * (host/). kinbox.c plans and runs them in turn.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"

/* What this host can do (the Linux backends' planners read it). */
static void
probe_host(struct kb_host *host)
{
	host->landlock_abi = kb_landlock_abi();
	host->root = geteuid() == 0;
	host->overlay = kb_overlay_supported();
	host->no_mediate = kb_sup_unavailable();
	host->no_meta = kb_meta_unavailable();
	host->seccomp_outer = kb_sup_under_seccomp();
	host->mem_total = kb_host_mem_total();
}

/*
 * → the backend: the candidates in order, and why. Seatbelt when asked
 * (macOS: auto); bubblewrap where it can make its namespaces, else the
 * landlock backend, found out by trying (a probe for --dry-run; under
 * auto a run that finds bwrap unable falls back); *bwrap is bubblewrap's
 * path when it is a candidate.
 */
int
kb_backend_candidates(const struct kb_policy *p, bool dry_run,
    struct kb_host *host, char **bwrap, struct kb_candidates *c,
    struct kb_err *err)
{
	struct kb_err e;
	enum kb_backend_kind asked = p->backend;
	const char *active = getenv("KINBOX_ACTIVE");

	*bwrap = NULL;
	c->n = 0;
	c->why[0] = '\0';
	c->fallback = NULL;
#ifdef __APPLE__
	/* macOS has one sandbox: auto is Seatbelt */
	if (asked == KB_BACKEND_AUTO)
		asked = KB_BACKEND_SEATBELT;
#endif
	if (asked == KB_BACKEND_SEATBELT) {
		c->v[c->n++] = KB_BACKEND_SEATBELT;
		return 0;
	}
	probe_host(host);
	if (asked == KB_BACKEND_AUTO && active != NULL &&
	    strcmp(active, "landlock") == 0) {
		/* its seccomp filter refuses user namespaces: bwrap cannot */
		snprintf(c->why, sizeof(c->why),
		    "chosen by auto: inside a landlock sandbox, which refuses "
		    "the user namespaces bubblewrap needs");
	} else if (asked != KB_BACKEND_LANDLOCK &&
		   (*bwrap = kb_bwrap_find(&e)) == NULL) {
		if (asked == KB_BACKEND_BWRAP) {
			*err = e;
			return -1;
		}
		snprintf(c->why, sizeof(c->why),
		    "chosen by auto: bubblewrap is not installed (install it "
		    "for the stronger backend: apt-get install bubblewrap)");
		c->fallback = "bubblewrap (bwrap) is not installed "
			      "(apt-get install bubblewrap)";
	} else if (asked == KB_BACKEND_LANDLOCK) {
		snprintf(c->why, sizeof(c->why), "as asked (%s)",
		    p->where[KB_OPT_BACKEND] ? p->where[KB_OPT_BACKEND]
					     : "backend = landlock");
	} else if (asked == KB_BACKEND_AUTO && dry_run &&
		   kb_bwrap_probe(*bwrap, &e) == -1 &&
		   kb_bwrap_userns_failure(e.msg)) {
		/* bwrap's own words, from the probe's explanation */
		const char *b = strstr(e.msg, "[bwrap: "), *end;

		b = b != NULL ? b + 8 : e.msg;
		end = strstr(b, "] — ");
		snprintf(c->why, sizeof(c->why),
		    "chosen by auto: bubblewrap cannot make its namespaces "
		    "here (bwrap: %.*s)",
		    end != NULL ? (int)(end - b) : (int)strlen(b), b);
	} else {
		c->v[c->n++] = KB_BACKEND_BWRAP;
		if (asked == KB_BACKEND_BWRAP)
			return 0;
	}
	c->v[c->n++] = KB_BACKEND_LANDLOCK;
	return 0;
}
