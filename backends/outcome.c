/*
 * backends/outcome.c — what ended a run (struct kb_run), in the order it
 * is judged, and the one line of each of kinbox's own failures; kinbox.c
 * says the line and exits with it. And what a failed run lost: a file its
 * command names that lay where the run keeps nothing.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../lib/util.h"
#include "../profile/tables.h"
#include "backend.h"

enum kb_outcome
kb_run_outcome(const struct kb_run *run)
{
	if (run->revoked[0] != '\0')
		return KB_OUT_REVOKED;
	if (run->broken[0] != '\0')
		return KB_OUT_BROKEN;
	if (run->timed_out)
		return KB_OUT_TIMED_OUT;
	if (!run->started)
		return KB_OUT_NOT_STARTED;
	if (run->setup_fail[0] != '\0' && !WIFSIGNALED(run->wstatus))
		return KB_OUT_SETUP;
	if (run->check_failed != 0)
		return KB_OUT_CHECK;
	if (run->confine_errno != 0)
		return KB_OUT_CONFINE;
	if (run->rlimit_errno != 0)
		return KB_OUT_RLIMIT;
	if (run->proxy_errno != 0)
		return KB_OUT_PROXY;
	return KB_OUT_RAN;
}

#define STR_(x) #x
#define STR(x)  STR_(x)

/* the one line of each of kinbox's failures (its %s the outcome's detail,
 * outcome_detail), and whether the git guards are audited first (a run
 * that may have run the command) */
static const struct {
	const char *line;
	bool audit;
} outcomes[] = {
    [KB_OUT_REVOKED] = {"%s", true},
    [KB_OUT_BROKEN] = {"SECURITY: %s was replaced on the host during the run, "
		       "which drops the sandbox's mount over it; the command "
		       "was stopped (run it again)",
	true},
    [KB_OUT_SETUP] = {"no sandbox: %s; nothing was run — if it names a cache, "
		      "set it to empty or off in [caches] (kinbox.conf(5))",
	true},
    [KB_OUT_CHECK] =
	{"SECURITY: %s was not where kinbox mounted it (a "
	 "concurrent process swapped a directory on its path while "
	 "the sandbox was set up); nothing was run — run it again",
	    true},
    [KB_OUT_CONFINE] = {"no sandbox: Landlock could not be applied inside the "
			"sandbox (%s); nothing was run — report this with the "
			"output of kinbox --dry-run",
	false},
    [KB_OUT_RLIMIT] = {"no sandbox: an --rlimit could not be set inside the "
		       "sandbox (%s); nothing was run",
	false},
    [KB_OUT_PROXY] = {"no sandbox: the egress proxy's port "
		      "127.0.0.1:" STR(
			  KB_PROXY_PORT) " could not be opened inside "
					 "the sandbox (%s); nothing was run — "
					 "report this with the "
					 "output of kinbox --dry-run",
	false},
};

static const char *
outcome_detail(
    enum kb_outcome out, const struct kb_run *run, const struct kb_plan *plan)
{
	size_t i = (size_t)run->check_failed - 1;

	switch (out) {
	case KB_OUT_REVOKED:
		return run->revoked;
	case KB_OUT_BROKEN:
		return run->broken;
	case KB_OUT_SETUP:
		return run->setup_fail;
	case KB_OUT_CHECK:
		return i < plan->checks.n ? plan->checks.v[i]
					  : "a guarded path";
	case KB_OUT_CONFINE:
		return strerror(run->confine_errno);
	case KB_OUT_RLIMIT:
		return strerror(run->rlimit_errno);
	case KB_OUT_PROXY:
		return strerror(run->proxy_errno);
	case KB_OUT_TIMED_OUT:
	case KB_OUT_NOT_STARTED:
	case KB_OUT_RAN:
		break;
	}
	return "";
}

char *
kb_run_outcome_line(enum kb_outcome out, const struct kb_run *run,
    const struct kb_plan *plan, bool *audit)
{
	if (out >= nitems(outcomes) || outcomes[out].line == NULL)
		return NULL;
	*audit = outcomes[out].audit;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	return xasprintf(outcomes[out].line, outcome_detail(out, run, plan));
#pragma GCC diagnostic pop
}

/* The first path in `t` (len bytes) below `dir`/: its end, or NULL */
static const char *
path_below(const char *t, size_t len, const char *dir, const char **start)
{
	size_t dl = strlen(dir);

	for (const char *at = t;
	     dl > 1 &&
	     (at = memmem(at, len - (size_t)(at - t), dir, dl)) != NULL;
	     at += dl) {
		const char *end = at + dl;

		if (end >= t + len || *end != '/' ||
		    (at > t && !strchr(" \t\n'\"(:=", at[-1])))
			continue;
		while (end < t + len && !strchr(" \t\n'\")", *end) &&
		       (unsigned char)*end >= 0x20)
			end++;
		/* a sentence's punctuation is not the name's */
		while (end > at + dl + 1 && strchr(":,;.", end[-1]) != NULL)
			end--;
		*start = at;
		return end;
	}
	return NULL;
}

/*
 * A failed command that points at a file it wrote in a cache whose
 * writes this run does not keep (npm's "A complete log of this run can be
 * found in: ~/.npm/_logs/…", pre-commit's "Check the log at
 * ~/.cache/pre-commit/pre-commit.log"), or in the landlock backend's
 * per-run directory: one note that the file is gone, and what keeps it
 * (in a read-only cache the tool's write failed: its denial says so).
 * The first such file only.
 */
void
kb_run_note_lost_files(
    const struct kb_policy *p, const struct kb_run *run, const char *rundir)
{
	const struct {
		const char *t;
		size_t n;
	} tails[] = {{run->tail, run->tail_len},
	    {run->out_tail, run->stdout_read ? run->out_tail_len : 0}};

	for (size_t k = 0; k < nitems(tails); k++) {
		const char *start, *end;

		if (tails[k].n == 0)
			continue;
		if (rundir != NULL && rundir[0] != '\0' &&
		    (end = path_below(
			 tails[k].t, tails[k].n, rundir, &start)) != NULL) {
			warnx("note: %.*s was in this run's temporary "
			      "directory, removed with it; to keep a tool's "
			      "log, point it at the workspace",
			    (int)(end - start), start);
			return;
		}
		for (size_t c = 0; c < kb_cache_count && p->home != NULL; c++)
			for (size_t j = 0; j < nitems(kb_cache_table[c].path) &&
					   kb_cache_table[c].path[j] != NULL;
			     j++) {
				_cleanup_free_ char *dir = xasprintf("%s/%s",
				    p->home, kb_cache_table[c].path[j]);
				const char *name = kb_cache_table[c].name;

				/* read-only (off, and every cache under
				 * landlock, which has no overlay): the tool's
				 * own write failed, which the denial names */
				if (p->cache[c] == KB_CACHE_PERSISTED ||
				    p->cache[c] == KB_CACHE_OFF ||
				    run->backend == KB_BACKEND_LANDLOCK ||
				    (end = path_below(tails[k].t, tails[k].n,
					 dir, &start)) == NULL)
					continue;
				warnx("note: %.*s lies in %s ([caches] %s), "
				      "whose writes this run discards: it is "
				      "gone; [caches] %s = persisted in your "
				      "config.ini keeps it (kinbox.conf(5))",
				    (int)(end - start), start, dir, name, name);
				return;
			}
	}
}
