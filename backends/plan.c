/*
 * backends/plan.c — what every backend plan shares: the posture lines that
 * follow from the policy alone (kb_plan_posture_common), rendering for
 * --dry-run (and -v) and freeing.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "../profile/tables.h"
#include "backend.h"

static bool
kept(const struct kb_policy *p, int fd)
{
	for (size_t i = 0; i < p->nkeep; i++)
		if (p->keep_fd[i] == fd)
			return true;
	return false;
}

int
kb_plan_free_fd(const struct kb_policy *p, int from)
{
	while (kept(p, from))
		from++;
	return from;
}

static void
note_fds(const struct kb_policy *p, struct kb_plan *pl)
{
	struct kb_buf b = {0};

	if (p->nkeep == 0) {
		kb_strv_push(&pl->notes, "fds: 0 1 2 only");
		return;
	}
	for (size_t i = 0; i < p->nkeep; i++)
		kb_buf_printf(&b, " %d", p->keep_fd[i]);
	kb_strv_pushf(&pl->notes, "fds: 0 1 2 and kept:%s", b.s);
	kb_buf_free(&b);
}

void
kb_plan_limits(const struct kb_policy *p, struct kb_plan *pl)
{
	struct kb_buf b = {0};

	pl->timeout = p->timeout;
	pl->kill_after = p->kill_after;
	if (p->timeout > 0)
		kb_strv_pushf(&pl->notes,
		    "timeout: %llds, then SIGTERM to every process of the "
		    "sandbox and SIGKILL %llds later; kinbox exits 124",
		    p->timeout, p->kill_after);
	for (unsigned i = 0; i < KB_RLIM__N; i++) {
		if (!p->rlim_set[i])
			continue;
		kb_strv_push(&pl->argv, "--rlimit");
		kb_strv_pushf(
		    &pl->argv, "%s=%llu", kb_rlim_name(i), p->rlim[i]);
		kb_buf_printf(&b, " %s=%llu", kb_rlim_name(i), p->rlim[i]);
	}
	if (b.s != NULL)
		kb_strv_pushf(&pl->notes,
		    "rlimit:%s (set on the command, soft and hard; never "
		    "above the inherited hard limit)%s",
		    b.s,
		    p->rlim_set[KB_RLIM_NPROC]
			? "; nproc counts the user's processes, not the "
			  "sandbox's, and does not bind root"
			: "");
	kb_buf_free(&b);
}

/* the memory budget: pl->memory, what set it, and a project file's
 * higher memory = that did not raise it (none planned: nothing) */
static void
note_memory(const struct kb_policy *p, struct kb_plan *pl)
{
	char b[24], c[24];

	if (pl->memory == 0)
		return;
	kb_strv_pushf(&pl->notes, "memory: budget %s (%s%s)",
	    kb_size_str(pl->memory, b, sizeof(b)),
	    pl->memory_by != NULL ? "set by "
				  : "the default: a quarter of "
				    "RAM, at most 4 GiB",
	    pl->memory_by != NULL ? pl->memory_by : "");
	if (p->memory_cap != 0 && p->memory_cap > pl->memory)
		kb_strv_pushf(&pl->notes,
		    "memory: %s asks for %s, more than the budget: not "
		    "raised (a project file may only lower it)",
		    p->memory_cap_where != NULL ? p->memory_cap_where
						: "the project file",
		    kb_size_str(p->memory_cap, c, sizeof(c)));
}

/* the run's mode and the workspace's line: workspace-write (the
 * default), or read-only with what set it and `scratch` */
static void
note_mode(const struct kb_policy *p, struct kb_plan *pl, const char *scratch)
{
	if (!p->read_only) {
		kb_strv_push(&pl->notes,
		    "mode: workspace-write (the default): the workspace and "
		    "the write roots take writes; --read-only would make them "
		    "read-only too, --unconfined lift the sandbox");
		kb_strv_pushf(
		    &pl->notes, "workspace: %s (writable)", p->workspace);
		return;
	}
	kb_strv_pushf(&pl->notes,
	    "mode: read-only (set by %s): nothing of the host takes a write, "
	    "the workspace neither, whatever a config or grant says; only %s",
	    p->where[KB_OPT_READ_ONLY] != NULL ? p->where[KB_OPT_READ_ONLY]
					       : "--read-only",
	    scratch);
	kb_strv_pushf(&pl->notes, "workspace: %s (read-only)", p->workspace);
}

/* --device and --gpu: each node bound, read-write, with what granted it
 * and where */
static void
note_devices(const struct kb_policy *p, struct kb_plan *pl)
{
	for (size_t i = 0; i < p->ndev; i++) {
		const struct kb_devnode *d = &p->dev[i];
		const char *where =
		    d->by == KB_OPT_GPU ? p->where[KB_OPT_GPU] : NULL;

		/* the request's own `where`: the first that names the node */
		for (size_t k = 0;
		     where == NULL && d->by == KB_OPT_DEVICE && k < p->ndevice;
		     k++)
			if (kb_path_within(d->path, p->device[k].path))
				where = p->device[k].where;
		kb_strv_pushf(&pl->notes,
		    "device: %s%s%s (%u:%u, read-write; %s %s%s%s)", d->dest,
		    strcmp(d->dest, d->path) != 0 ? " from " : "",
		    strcmp(d->dest, d->path) != 0 ? d->path : "",
		    major(d->rdev), minor(d->rdev),
		    d->by == KB_OPT_GPU ? "found by --gpu, set by"
					: "granted by",
		    kb_origin_name(d->origin), where != NULL ? ": " : "",
		    where != NULL ? where : "");
	}
	if (p->gpu)
		kb_strv_push(&pl->notes,
		    "gpu: the driver's /proc/driver and /sys files are "
		    "visible, read-only, as the rest of the host");
}

/* the network: the allow-list, each host with the source that named it
 * (what set the network switch is moot then: kb_hosts_validate), or the
 * switch in the backend's words, its origin and what set it (a backend
 * with no proxy: the switch only) */
static void
note_network(const struct kb_policy *p, const struct kb_posture_words *w,
    struct kb_plan *pl)
{
	if (p->nallow_host > 0 && w->proxy != NULL) {
		kb_strv_pushf(&pl->notes, "network: %s", w->proxy);
		for (size_t i = 0; i < p->nallow_host; i++) {
			const struct kb_hostgrant *g = &p->allow_host[i];

			kb_strv_pushf(&pl->notes,
			    "allowed host: %s:%u (%s%s%s)", g->name, g->port,
			    kb_origin_name(g->origin),
			    g->where != NULL ? ": " : "",
			    g->where != NULL ? g->where : "");
		}
		return;
	}
	kb_strv_pushf(&pl->notes, "network: %s (%s)", w->network,
	    kb_origin_name(p->origin[KB_OPT_NET]));
	if (p->where[KB_OPT_NET] != NULL)
		kb_strv_pushf(
		    &pl->notes, "network set by: %s", p->where[KB_OPT_NET]);
}

/* the SSH agent and the unix sockets granted, with what granted each */
static void
note_sockets(const struct kb_policy *p, const struct kb_posture_words *w,
    struct kb_plan *pl)
{
	kb_strv_pushf(&pl->notes, "ssh agent: %s",
	    p->ssh_agent ? "granted (socket and public ~/.ssh files only)"
			 : "not granted");
	if (p->ssh_agent)
		kb_strv_pushf(&pl->notes, "ssh agent granted by: %s",
		    kb_origin_name(p->origin[KB_OPT_SSH_AGENT]));
	if (p->ssh_agent && p->where[KB_OPT_SSH_AGENT] != NULL)
		kb_strv_pushf(&pl->notes, "ssh agent set by: %s",
		    p->where[KB_OPT_SSH_AGENT]);
	for (size_t i = 0; i < p->nallow_socket; i++) {
		const struct kb_pathgrant *g = &p->allow_socket[i];

		/* a grant only permits (a typed one is refused): unused */
		if (w->no_sockets != NULL) {
			kb_strv_pushf(&pl->notes,
			    "socket: the grant of %s (%s) is not used: %s",
			    g->path, g->where != NULL ? g->where : "a grant",
			    w->no_sockets);
			continue;
		}
		kb_strv_pushf(&pl->notes, "socket: %s (granted by %s)", g->path,
		    kb_origin_name(g->origin));
		if (g->where != NULL)
			kb_strv_pushf(
			    &pl->notes, "socket set by: %s", g->where);
	}
}

/* the masks in the backend's words, then the caches the plan has no
 * mount for (the backend names the others, as it holds them) */
static void
note_masks(const struct kb_policy *p, const struct kb_posture_words *w,
    struct kb_plan *pl)
{
	for (size_t i = 0; i < p->nmask; i++) {
		_cleanup_free_ char *words = NULL;

		if (p->mask[i].cache != -1 ||
		    (words = w->mask(&p->mask[i])) == NULL)
			continue;
		kb_strv_pushf(
		    &pl->notes, "mask: %s (%s)", p->mask[i].path, words);
	}
	for (size_t i = 0; i < kb_cache_count; i++) {
		bool planned = false;

		if (p->cache[i] == KB_CACHE_OFF) {
			kb_strv_pushf(&pl->notes,
			    "cache %s: off, read-only like the rest of home",
			    kb_cache_table[i].name);
			continue;
		}
		for (size_t k = 0; k < p->nmask; k++)
			planned |= p->mask[k].cache == (int)i;
		if (!planned && p->home != NULL)
			kb_strv_pushf(&pl->notes,
			    "cache %s: ~/%s absent, nothing to mount (kinbox "
			    "does not create it)",
			    kb_cache_table[i].name, kb_cache_table[i].path[0]);
	}
}

void
kb_plan_posture_common(const struct kb_policy *p,
    const struct kb_posture_words *w, struct kb_plan *pl)
{
	if (p->where[KB_OPT_BACKEND] != NULL)
		kb_strv_pushf(
		    &pl->notes, "backend set by: %s", p->where[KB_OPT_BACKEND]);
	note_mode(p, pl, w->scratch);
	kb_strv_pushf(&pl->notes, "cwd: %s", p->cwd);
	for (size_t i = 0; i < p->nwrite; i++)
		kb_strv_pushf(&pl->notes, "write: %s (%s)", p->write[i].path,
		    kb_origin_name(p->write[i].origin));
	note_memory(p, pl);
	note_network(p, w, pl);
	note_sockets(p, w, pl);
	note_devices(p, pl);
	note_masks(p, w, pl);
	for (size_t i = 0; i < p->gitnotes.n; i++)
		kb_strv_pushf(&pl->notes, "git: %s", p->gitnotes.v[i]);
	for (size_t i = 0; i < p->notes.n; i++)
		kb_strv_pushf(&pl->notes, "config: %s", p->notes.v[i]);
	note_fds(p, pl);
}

void
kb_plan_free(struct kb_plan *pl)
{
	free(pl->exe);
	kb_strv_free(&pl->argv);
	kb_strv_free(&pl->envp);
	kb_strv_free(&pl->notes);
	kb_strv_free(&pl->watch);
	kb_strv_free(&pl->watch_report);
	kb_strv_free(&pl->pass_path);
	kb_strv_free(&pl->checks);
	kb_strv_free(&pl->overlay);
	kb_strv_free(&pl->overlay_name);
	kb_strv_free(&pl->own);
	kb_strv_free(&pl->params);
	free(pl->profile);
	free(pl->granted);
	free(pl->pass_src);
	for (size_t i = 0; i < pl->ntmpfs; i++)
		free(pl->tmpfs[i].path);
	free(pl->tmpfs);
	memset(pl, 0, sizeof(*pl));
}

char *
kb_plan_render(const struct kb_plan *pl)
{
	struct kb_buf b = {0};

	kb_buf_puts(&b, "");
	/* notes and argv name paths under the writable roots (guarded git
	 * metadata) and config text: one line each, escaped */
	for (size_t i = 0; i < pl->notes.n; i++) {
		kb_buf_puts(&b, "# ");
		kb_buf_escape(&b, pl->notes.v[i]);
		kb_buf_puts(&b, "\n");
	}
	/* the seatbelt profile, a line of the plan each: constant text of
	 * kinbox's (paths are its parameters), escaped all the same */
	if (pl->profile != NULL) {
		const char *l = pl->profile, *nl;

		kb_buf_puts(&b, "# --- the profile (sandbox-exec -p) ---\n");
		for (; *l != '\0'; l = *nl != '\0' ? nl + 1 : nl) {
			nl = l + strcspn(l, "\n");
			kb_buf_escape_mem(&b, l, (size_t)(nl - l));
			kb_buf_puts(&b, "\n");
		}
		kb_buf_puts(&b, "# --- end of the profile ---\n");
	}
	for (size_t i = 0; i < pl->argv.n; i++) {
		const char *a = pl->argv.v[i];
		char *end;
		long fd;

		if (pl->profile != NULL && strcmp(a, pl->profile) == 0) {
			kb_buf_puts(&b, "'<the profile above>'\n");
			continue;
		}
		kb_buf_shquote_visible(&b, a);
		/* the landlock backend's roots, by descriptor */
		if (i > 0 && strcmp(pl->argv.v[i - 1], "--write-fd") == 0 &&
		    pl->npass > 0) {
			fd = strtol(a, &end, 10);
			if (*end == '\0' && fd >= pl->pass_base &&
			    fd < pl->pass_base + (long)pl->npass) {
				kb_buf_puts(&b, "  # ");
				kb_buf_escape(
				    &b, pl->pass_path.v[fd - pl->pass_base]);
			}
		}
		/* a bind source passed as a descriptor: say what it is */
		if (strncmp(a, "/proc/self/fd/", 14) == 0 && pl->npass > 0) {
			fd = strtol(a + 14, &end, 10);
			if (*end == '\0' && fd >= pl->pass_base &&
			    fd < pl->pass_base + (long)pl->npass) {
				kb_buf_puts(&b, "  # ");
				kb_buf_escape(
				    &b, pl->pass_path.v[fd - pl->pass_base]);
			}
		}
		kb_buf_puts(&b, "\n");
	}
	return b.s;
}

/* The length of the well-formed UTF-8 sequence at s (of n bytes), 0 when
 * it is not one (overlong forms, surrogates and code points past
 * U+10FFFF included). */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0], cp;
	size_t len;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

/*
 * A JSON string. Paths are bytes, not text: a byte that is not part of
 * well-formed UTF-8 is written as the lone surrogate \udc80 + byte
 * (Python's "surrogateescape"), so nothing is lost and nothing is
 * replaced — json.loads(...).encode("utf-8", "surrogateescape") gives the
 * bytes back. Strict parsers may refuse such a string; kinbox's paths
 * rarely hold one.
 */
static void
jstr(struct kb_buf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str);

	kb_buf_puts(b, "\"");
	while (n > 0) {
		size_t len = utf8_len(s, n);

		if (len == 0) {
			kb_buf_printf(b, "\\udc%02x", s[0]);
			len = 1;
		} else if (*s == '"' || *s == '\\') {
			kb_buf_printf(b, "\\%c", *s);
		} else if (*s == '\n') {
			kb_buf_puts(b, "\\n");
		} else if (*s == '\t') {
			kb_buf_puts(b, "\\t");
		} else if (*s < 0x20 || *s == 0x7f) {
			kb_buf_printf(b, "\\u%04x", *s);
		} else {
			kb_buf_add(b, (const char *)s, len);
		}
		s += len;
		n -= len;
	}
	kb_buf_puts(b, "\"");
}

static void
jstrv(struct kb_buf *b, const struct kb_strv *v)
{
	kb_buf_puts(b, "[");
	for (size_t i = 0; i < v->n; i++) {
		kb_buf_puts(b, i > 0 ? ", " : "");
		jstr(b, v->v[i]);
	}
	kb_buf_puts(b, "]");
}

static const char *
backend_name(enum kb_backend_kind k)
{
	switch (k) {
	case KB_BACKEND_BWRAP:
		return "bwrap";
	case KB_BACKEND_LANDLOCK:
		return "landlock";
	case KB_BACKEND_SEATBELT:
		return "seatbelt";
	case KB_BACKEND_AUTO:
		break;
	}
	/* every planner names its backend: a plan without one is the
	 * unconfined run's (kinbox.c's exec_unsandboxed) */
	return "none";
}

char *
kb_plan_json(const struct kb_plan *pl)
{
	struct kb_buf b = {0};

	kb_buf_puts(&b, "{\"backend\": ");
	jstr(&b, backend_name(pl->backend));
	kb_buf_puts(&b, ", \"exe\": ");
	if (pl->exe != NULL)
		jstr(&b, pl->exe);
	else
		kb_buf_puts(&b, "null");
	kb_buf_puts(&b, ", \"argv\": ");
	jstrv(&b, &pl->argv);
	kb_buf_puts(&b, ", \"notes\": ");
	jstrv(&b, &pl->notes);
	/* what a bind source passed as a descriptor is (the argv names
	 * /proc/self/fd/N): its path, by descriptor number */
	if (pl->npass > 0) {
		kb_buf_puts(&b, ", \"fds\": {");
		for (size_t i = 0; i < pl->npass && i < pl->pass_path.n; i++) {
			kb_buf_printf(&b, "%s\"%d\": ", i > 0 ? ", " : "",
			    pl->pass_base + (int)i);
			jstr(&b, pl->pass_path.v[i]);
		}
		kb_buf_puts(&b, "}");
	}
	if (pl->profile != NULL) {
		kb_buf_puts(&b, ", \"profile\": ");
		jstr(&b, pl->profile);
		kb_buf_puts(&b, ", \"params\": {");
		for (size_t i = 0; i < pl->params.n; i++) {
			const char *kv = pl->params.v[i];
			const char *eq = strchr(kv, '=');
			_cleanup_free_ char *key = NULL;

			if (eq == NULL)
				continue;
			key = xasprintf("%.*s", (int)(eq - kv), kv);
			kb_buf_puts(&b, i > 0 ? ", " : "");
			jstr(&b, key);
			kb_buf_puts(&b, ": ");
			jstr(&b, eq + 1);
		}
		kb_buf_puts(&b, "}");
	}
	kb_buf_puts(&b, "}\n");
	return b.s;
}
