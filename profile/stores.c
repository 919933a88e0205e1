/*
 * profile/stores.c — kinbox's own stores (the global config, the session
 * grants, the journal, /etc/kinbox) lie outside what the command can
 * write: a store under a writable root, the writable TMPDIR or a persisted
 * cache (or one that holds such a root) would let a command grant itself
 * write roots, the network or an unconfined run on the next start. Judged
 * by name and where a write to it lands (profile/resolve.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"
#include "resolve.h"
#include "tables.h"

struct store {
	const char *label; /* as the user names it: "$XDG_CONFIG_HOME/kinbox" */
	const char *env;   /* the variable that places it, or NULL */
	const char *gain;  /* what a command that could write it would gain */
	char *path;        /* absolute, as configured */
};

enum root_kind {
	ROOT_WORKSPACE,
	ROOT_WRITE,
	ROOT_TMPDIR,
	ROOT_CACHE,
};

struct wroot {
	enum root_kind kind;
	const char *path; /* canonical, or lexical for a cache not there */
	const char *tag;  /* the write root's origin, the cache's name */
};

/* Where a write to the absolute `path` lands (profile/resolve.h), or its
 * lexical normal form when it cannot be resolved. New string. */
static char *
real_location(const char *path, const char *norm)
{
	char buf[PATH_MAX];

	if (kb_resolve_write(path, NULL, 0, buf, sizeof(buf)) == 0)
		return xstrdup(buf);
	return xstrdup(norm);
}

static void
describe(const struct wroot *r, char *out, size_t outlen)
{
	switch (r->kind) {
	case ROOT_WORKSPACE:
		snprintf(out, outlen, "the writable workspace %s", r->path);
		return;
	case ROOT_WRITE:
		snprintf(
		    out, outlen, "the write root %s (%s)", r->path, r->tag);
		return;
	case ROOT_TMPDIR:
		snprintf(out, outlen, "the writable TMPDIR %s", r->path);
		return;
	case ROOT_CACHE:
		snprintf(out, outlen, "the persisted cache %s ([caches] %s)",
		    r->path, r->tag);
		return;
	}
}

/* the way out: move the store when a variable placed it, else narrow
 * what the command may write */
static void
fix(const struct wroot *r, const struct store *st, char *out, size_t outlen)
{
	const char *what = r->kind == ROOT_WORKSPACE ? "the workspace"
			   : r->kind == ROOT_WRITE   ? "that write root"
			   : r->kind == ROOT_TMPDIR  ? "TMPDIR"
						     : "that cache";

	if (st->env != NULL) {
		snprintf(out, outlen, "move %s out of %s", st->env, what);
		return;
	}
	switch (r->kind) {
	case ROOT_WORKSPACE:
		snprintf(out, outlen,
		    "run kinbox in a workspace that does not "
		    "hold it");
		return;
	case ROOT_WRITE:
		snprintf(out, outlen, "grant a narrower write root than %s",
		    r->path);
		return;
	case ROOT_TMPDIR:
		snprintf(out, outlen, "set TMPDIR elsewhere");
		return;
	case ROOT_CACHE:
		snprintf(
		    out, outlen, "set [caches] %s = off or ephemeral", r->tag);
		return;
	}
}

static int
check_store(const struct store *st, const struct wroot *roots, size_t nroots,
    struct kb_err *e)
{
	char norm[PATH_MAX], what[PATH_MAX + 64], how[PATH_MAX + 64];
	_cleanup_free_ char *real = NULL;

	if (kb_resolve_lexical(st->path, norm, sizeof(norm)) == -1)
		snprintf(norm, sizeof(norm), "%s", st->path);
	real = real_location(st->path, norm);
	for (size_t i = 0; i < nroots; i++) {
		const char *r = roots[i].path;

		if (kb_path_within(norm, r) || kb_path_within(real, r)) {
			describe(&roots[i], what, sizeof(what));
			fix(&roots[i], st, how, sizeof(how));
			return kb_err_set(e,
			    "%s (%s) lies inside %s: a command "
			    "could %s; %s",
			    st->label, real, what, st->gain, how);
		}
		if (kb_path_within(r, norm) || kb_path_within(r, real)) {
			describe(&roots[i], what, sizeof(what));
			return kb_err_set(e,
			    "%s lies inside kinbox's store %s "
			    "(%s): a command could %s; %s",
			    what, st->label, real, st->gain,
			    roots[i].kind == ROOT_WORKSPACE
				? "run kinbox in a workspace "
				  "outside it"
			    : roots[i].kind == ROOT_TMPDIR
				? "set TMPDIR elsewhere"
			    : roots[i].kind == ROOT_CACHE
				? "set that cache off"
				: "grant a directory outside it");
		}
	}
	return 0;
}

/* The stores as this environment places them: fills st (at most 5),
 * returns how many. Paths are new strings. */
static size_t
store_list(const struct kb_policy *p, const char *etc, struct store *st)
{
	const char *cfg = getenv("XDG_CONFIG_HOME");
	const char *run = getenv("XDG_RUNTIME_DIR");
	const char *state = getenv("XDG_STATE_HOME");
	size_t nst = 0;

	if (cfg != NULL && cfg[0] == '/')
		st[nst++] =
		    (struct store){"$XDG_CONFIG_HOME/kinbox", "XDG_CONFIG_HOME",
			"write its own grants", xasprintf("%s/kinbox", cfg)};
	else if (p->home != NULL)
		st[nst++] = (struct store){"~/.config/kinbox", NULL,
		    "write its own grants",
		    xasprintf("%s/.config/kinbox", p->home)};
	if (run != NULL && run[0] == '/')
		st[nst++] = (struct store){"$XDG_RUNTIME_DIR/kinbox",
		    "XDG_RUNTIME_DIR", "write its own session grants",
		    xasprintf("%s/kinbox", run)};
	if (state != NULL && state[0] == '/')
		st[nst++] =
		    (struct store){"$XDG_STATE_HOME/kinbox", "XDG_STATE_HOME",
			"forge the denial journal and the "
			"decisions kinpolicy retry obeys",
			xasprintf("%s/kinbox", state)};
	else if (p->home != NULL)
		st[nst++] = (struct store){"~/.local/state/kinbox", NULL,
		    "forge the denial journal and the decisions kinpolicy "
		    "retry obeys",
		    xasprintf("%s/.local/state/kinbox", p->home)};
	st[nst] = (struct store){etc != NULL ? etc : "/etc/kinbox", NULL,
	    "write the system config",
	    xstrdup(etc != NULL ? etc : "/etc/kinbox")};
	return nst + 1;
}

const char *
kb_config_store_of(const struct kb_policy *p, const char *path)
{
	struct store st[5];
	size_t nst = store_list(p, NULL, st);
	const char *label = NULL;

	for (size_t i = 0; i < nst; i++) {
		if (label == NULL && kb_path_within(path, st[i].path))
			label = st[i].label;
		free(st[i].path);
	}
	return label;
}

const char *
kb_config_store_under(const struct kb_policy *p, const char *dir)
{
	struct store st[5];
	size_t nst = store_list(p, NULL, st);
	const char *label = NULL;

	for (size_t i = 0; i < nst; i++) {
		if (label == NULL && kb_path_within(st[i].path, dir))
			label = st[i].label;
		free(st[i].path);
	}
	return label;
}

int
kb_config_check_stores(
    const struct kb_policy *p, const char *etc, struct kb_err *e)
{
	struct store st[5] = {{0}};
	struct wroot roots[2 + KB_MAX_WRITE + 2 * nitems(p->cache)];
	char *cache_paths[2 * nitems(p->cache)] = {0};
	size_t nst = store_list(p, etc, st), nroots = 0;
	int rc = 0;

	if (p->workspace != NULL)
		roots[nroots++] =
		    (struct wroot){ROOT_WORKSPACE, p->workspace, NULL};
	for (size_t i = 0; i < p->nwrite; i++)
		roots[nroots++] = (struct wroot){ROOT_WRITE, p->write[i].path,
		    kb_origin_name(p->write[i].origin)};
	if (p->tmpdir != NULL)
		roots[nroots++] = (struct wroot){ROOT_TMPDIR, p->tmpdir, NULL};
	for (size_t i = 0;
	     i < kb_cache_count && i < nitems(p->cache) && p->home != NULL;
	     i++) {
		if (p->cache[i] != KB_CACHE_PERSISTED)
			continue;
		for (size_t j = 0; j < 2; j++) {
			_cleanup_free_ char *d = NULL;
			char **cp = &cache_paths[2 * i + j];

			if (kb_cache_table[i].path[j] == NULL)
				continue;
			d = xasprintf(
			    "%s/%s", p->home, kb_cache_table[i].path[j]);
			*cp = realpath(d, NULL);
			if (*cp == NULL)
				*cp = steal_pointer(&d);
			roots[nroots++] = (struct wroot){
			    ROOT_CACHE, *cp, kb_cache_table[i].name};
		}
	}

	for (size_t i = 0; i < nst && rc == 0; i++)
		rc = check_store(&st[i], roots, nroots, e);
	for (size_t i = 0; i < nst; i++)
		free(st[i].path);
	for (size_t i = 0; i < nitems(cache_paths); i++)
		free(cache_paths[i]);
	return rc;
}
