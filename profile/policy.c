/*
 * profile/policy.c — building and validating struct kb_policy. Setters record
 * where each grant came from; kb_policy_finalize() (profile/finalize.c)
 * fills the defaults; which git metadata to protect is gitguard/'s answer
 * (gitguard/scan.c). No printing, no exiting.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bsd/stdlib.h>

#include "../lib/fsat.h"
#include "policy.h"
#include "resolve.h"

void
kb_policy_init(struct kb_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->workspace_fd = p->tmpdir_fd = -1;
	for (size_t i = 0; i < KB_MAX_WRITE; i++)
		p->write[i].fd = -1;
	p->backend = KB_BACKEND_AUTO;
	p->kill_after = 5; /* --kill-after's default, timeout(1)'s -k */
	for (size_t i = 0; i < nitems(p->cache); i++)
		p->cache[i] = KB_CACHE_EPHEMERAL;
	for (size_t i = 0; i < KB_OPT__N; i++) {
		p->origin[i] = KB_ORIGIN_DEFAULT;
		p->typed[i] = -1;
	}
}

void
kb_policy_free(struct kb_policy *p)
{
	free(p->workspace);
	free(p->cwd);
	free(p->home);
	free(p->tmpdir);
	free(p->tmpdir_private);
	for (size_t i = 0; i < p->nwrite; i++) {
		free(p->write[i].path);
		if (p->write[i].fd != -1)
			close(p->write[i].fd);
	}
	free(p->memory_cap_where);
	for (size_t i = 0; i < p->nallow_host; i++) {
		free(p->allow_host[i].name);
		free(p->allow_host[i].where);
	}
	for (size_t i = 0; i < p->nallow_socket; i++) {
		free(p->allow_socket[i].path);
		free(p->allow_socket[i].where);
	}
	for (size_t i = 0; i < p->ndevice; i++) {
		free(p->device[i].path);
		free(p->device[i].where);
	}
	for (size_t i = 0; i < p->ndev; i++) {
		free(p->dev[i].path);
		free(p->dev[i].dest);
		if (p->dev[i].fd != -1)
			close(p->dev[i].fd);
	}
	if (p->workspace_fd != -1)
		close(p->workspace_fd);
	if (p->tmpdir_fd != -1)
		close(p->tmpdir_fd);
	for (size_t i = 0; i < p->nguard; i++) {
		free(p->guard[i].path);
		free(p->guard[i].rel);
		free(p->guard[i].link);
		if (p->guard[i].fd != -1)
			close(p->guard[i].fd);
	}
	free(p->guard);
	kb_strv_free(&p->gitnotes);
	free(p->gitunsafe);
	for (size_t i = 0; i < p->nmask; i++) {
		free(p->mask[i].path);
		free(p->mask[i].src);
	}
	kb_strv_free(&p->keep_env);
	kb_strv_free(&p->scrub_env);
	kb_strv_free(&p->setenv);
	kb_strv_free(&p->extra_mask);
	kb_strv_free(&p->notes);
	for (size_t i = 0; i < p->ngrants; i++) {
		free(p->grants[i].file);
		free(p->grants[i].section);
		free(p->grants[i].body);
	}
	free(p->grants);
	for (size_t i = 0; i < KB_OPT__N; i++)
		free(p->where[i]);
	memset(p, 0, sizeof(*p));
}

const char *
kb_origin_name(enum kb_origin o)
{
	switch (o) {
	case KB_ORIGIN_DEFAULT:
		return "default";
	case KB_ORIGIN_SYSTEM:
		return "system config";
	case KB_ORIGIN_GLOBAL:
		return "global config";
	case KB_ORIGIN_WORKSPACE:
		return "workspace grant";
	case KB_ORIGIN_SESSION:
		return "session grant";
	case KB_ORIGIN_FLAG:
		return "flag";
	case KB_ORIGIN_PROJECT:
		return "project tightening";
	case KB_ORIGIN_ENV:
		return "environment";
	}
	return "?";
}

static void
ensure_home(struct kb_policy *p)
{
	if (p->home == NULL)
		p->home = kb_paths_home();
}

int
kb_policy_set_workspace(struct kb_policy *p, const char *dir, struct kb_err *e)
{
	char *real;

	ensure_home(p);
	/* The workspace is writable, so it obeys the write-root rules: a
	 * workspace of $HOME would make ~/.bashrc writable. */
	real = kb_paths_accept_root(dir, p->home, "workspace", e);
	if (real == NULL)
		return -1;
	free(p->workspace);
	p->workspace = real;
	return 0;
}

int
kb_policy_add_write(
    struct kb_policy *p, const char *dir, enum kb_origin o, struct kb_err *e)
{
	return kb_policy_add_write_as(p, dir, o, "--write", e);
}

int
kb_policy_add_write_as(struct kb_policy *p, const char *dir, enum kb_origin o,
    const char *what, struct kb_err *e)
{
	char *real;

	ensure_home(p);
	real = kb_paths_accept_root(dir, p->home, what, e);
	if (real == NULL)
		return -1;
	/* .git/hooks, .git/config: code git runs later, outside */
	if (kb_paths_in_git_metadata(real)) {
		kb_err_set(e,
		    "%s %s: %s is git metadata, whose hooks and "
		    "config run outside the sandbox; grant the checkout "
		    "instead",
		    what, dir, real);
		free(real);
		return -1;
	}
	for (size_t i = 0; i < p->nwrite; i++) {
		if (strcmp(p->write[i].path, real) == 0) {
			/* named again by a later source in rank order (a flag
			 * after the config): that one is its origin */
			if (o > p->write[i].origin)
				p->write[i].origin = o;
			free(real);
			return 0;
		}
	}
	if (p->nwrite == KB_MAX_WRITE) {
		free(real);
		return kb_err_set(e,
		    "%s %s: too many write roots (at most "
		    "%d); grant a common parent directory instead",
		    what, dir, KB_MAX_WRITE);
	}
	p->write[p->nwrite].path = real;
	p->write[p->nwrite].origin = o;
	p->write[p->nwrite].fd = -1;
	p->nwrite++;
	return 0;
}

/* `path` into g[0..*n) once (a later source in rank order becomes its
 * origin): 0, or -1 when it is new and the table holds `max` already */
static int
add_path_grant(struct kb_pathgrant *g, size_t *n, size_t max, const char *path,
    enum kb_origin o, const char *where)
{
	for (size_t i = 0; i < *n; i++) {
		if (strcmp(g[i].path, path) != 0)
			continue;
		/* named again by a later source in rank order */
		if (o >= g[i].origin) {
			g[i].origin = o;
			free(g[i].where);
			g[i].where = where != NULL ? xstrdup(where) : NULL;
		}
		return 0;
	}
	if (*n == max)
		return -1;
	g[*n].path = xstrdup(path);
	g[*n].origin = o;
	g[*n].where = where != NULL ? xstrdup(where) : NULL;
	(*n)++;
	return 0;
}

int
kb_policy_add_socket(struct kb_policy *p, const char *path, enum kb_origin o,
    const char *where, const char *what, struct kb_err *e)
{
	if (*path == '\0')
		return kb_err_set(e,
		    "%s '': not a path; give the path of a unix socket", what);
	if (add_path_grant(p->allow_socket, &p->nallow_socket, KB_MAX_SOCKET,
		path, o, where) == -1)
		return kb_err_set(e,
		    "%s %s: too many granted sockets (at "
		    "most %d); grant only those the command needs",
		    what, path, KB_MAX_SOCKET);
	return 0;
}

int
kb_policy_add_device(struct kb_policy *p, const char *path, enum kb_origin o,
    const char *where, const char *what, struct kb_err *e)
{
	if (*path == '\0')
		return kb_err_set(e,
		    "%s '': not a path; give the path of a device node", what);
	if (add_path_grant(
		p->device, &p->ndevice, KB_MAX_DEVICE, path, o, where) == -1)
		return kb_err_set(e,
		    "%s %s: too many devices (at most %d); grant a directory "
		    "of them, or only those the command needs",
		    what, path, KB_MAX_DEVICE);
	return 0;
}

int
kb_policy_add_keep_fd(struct kb_policy *p, const char *arg, struct kb_err *e)
{
	const char *errstr;
	long long fd;

	fd = strtonum(arg, 3, INT_MAX, &errstr);
	if (errstr != NULL)
		return kb_err_set(e,
		    "--keep-fd %s: %s; give a descriptor "
		    "number of 3 or more",
		    arg, errstr);
	if (fcntl((int)fd, F_GETFD) == -1)
		return kb_err_set(e,
		    "--keep-fd %s: descriptor is not open; "
		    "open it in the calling shell first (e.g. 3>file)",
		    arg);
	for (size_t i = 0; i < p->nkeep; i++)
		if (p->keep_fd[i] == (int)fd)
			return 0;
	if (p->nkeep == KB_MAX_KEEP_FD)
		return kb_err_set(e,
		    "--keep-fd %s: too many kept descriptors "
		    "(at most %d)",
		    arg, KB_MAX_KEEP_FD);
	p->keep_fd[p->nkeep++] = (int)fd;
	return 0;
}

int
kb_policy_add_keep_env(struct kb_policy *p, const char *name, struct kb_err *e)
{
	if (*name == '\0' || strchr(name, '=') != NULL)
		return kb_err_set(e,
		    "--keep-env '%s': not a variable name; "
		    "give the name only, e.g. --keep-env NPM_TOKEN",
		    name);
	kb_strv_push(&p->keep_env, name);
	return 0;
}

size_t
kb_policy_roots(const struct kb_policy *p, const char **out)
{
	size_t n = 0;

	/* read-only: the workspace is bound read-only, and validation left
	 * no write root and finalize no writable $TMPDIR */
	if (p->read_only)
		return 0;
	if (p->workspace != NULL)
		out[n++] = p->workspace;
	if (p->tmpdir != NULL)
		out[n++] = p->tmpdir;
	for (size_t i = 0; i < p->nwrite; i++)
		out[n++] = p->write[i].path;
	return n;
}

const char *
kb_policy_root_of(const struct kb_policy *p, const char *landing)
{
	const char *roots[KB_MAX_ROOTS];

	return kb_resolve_root(landing, roots, kb_policy_roots(p, roots));
}

bool
kb_policy_writable(const struct kb_policy *p, const char *path)
{
	char landing[PATH_MAX];

	return kb_resolve_write(path, NULL, 0, landing, sizeof(landing)) == 0 &&
	       kb_policy_root_of(p, landing) != NULL;
}

bool
kb_policy_within_roots(const struct kb_policy *p, const char *canonical)
{
	return kb_policy_root_of(p, canonical) != NULL;
}

bool
kb_policy_within_writable(const struct kb_policy *p, const char *canonical)
{
	/* the landlock backend: no private /tmp but the run's directory in
	 * it, no overlays, the caller's TMPDIR not granted */
	bool ll = p->backend == KB_BACKEND_LANDLOCK;

	if (ll && kb_path_within(canonical, "/tmp")) {
		char run[48];
		int n = snprintf(run, sizeof(run), "/tmp/kinbox-%u/run.",
		    (unsigned)geteuid());

		return strncmp(canonical, run, (size_t)n) == 0;
	}
	if (ll && p->tmpdir != NULL && kb_path_within(canonical, p->tmpdir) &&
	    !kb_path_within(canonical, p->workspace))
		return false;
	if (kb_policy_within_roots(p, canonical) ||
	    kb_path_within(canonical, "/tmp"))
		return true;
	for (size_t i = 0; i < p->nmask; i++)
		if ((p->mask[i].kind == KB_CACHE_BIND ||
			(!ll && (p->mask[i].kind == KB_CACHE_COW ||
				    p->mask[i].kind == KB_CACHE_TMPFS))) &&
		    kb_path_within(canonical, p->mask[i].path))
			return true;
	return false;
}

unsigned long long
kb_memory_default(unsigned long long mem_total)
{
	unsigned long long q = (mem_total / 4) & ~((1ULL << 20) - 1);

	if (mem_total == 0 || q > KB_MEMORY_DEFAULT_MAX)
		return KB_MEMORY_DEFAULT_MAX;
	return q < KB_MEMORY_MIN ? KB_MEMORY_MIN : q;
}

unsigned long long
kb_policy_memory(
    const struct kb_policy *p, unsigned long long mem_total, const char **by)
{
	unsigned long long b = p->memory;
	const char *who = p->where[KB_OPT_MEMORY];

	if (b == 0) {
		b = kb_memory_default(mem_total);
		who = NULL;
	}
	if (p->memory_cap != 0 && p->memory_cap < b) {
		b = p->memory_cap;
		who = p->memory_cap_where;
	}
	if (by != NULL)
		*by = who;
	return b;
}
