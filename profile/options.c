/*
 * profile/options.c — the option table's setters (the table itself is
 * profile/option-table.c) and the one setter every source goes through
 * (see options.h). No I/O beyond what a setter's validation needs
 * (realpath of a write root, fcntl of a kept descriptor).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "hosts.h"
#include "options-int.h"
#include "policy.h"
#include "tables.h"

const char *
kb_lifetime_name(enum kb_lifetime l)
{
	switch (l) {
	case KB_LIFE_NEVER:
		return "never";
	case KB_LIFE_ONCE:
		return "once";
	case KB_LIFE_SESSION:
		return "session";
	case KB_LIFE_WORKSPACE:
		return "workspace";
	}
	return "?";
}

int
kb_parse_onoff(const char *v, bool *out)
{
	if (strcasecmp(v, "on") == 0 || strcasecmp(v, "true") == 0 ||
	    strcasecmp(v, "yes") == 0 || strcmp(v, "1") == 0)
		*out = true;
	else if (strcasecmp(v, "off") == 0 || strcasecmp(v, "false") == 0 ||
		 strcasecmp(v, "no") == 0 || strcmp(v, "0") == 0)
		*out = false;
	else
		return -1;
	return 0;
}

static bool
is_flag(const struct kb_src *s)
{
	return s->origin == KB_ORIGIN_FLAG;
}

/* how a message names the knob: the flag as typed, or the INI key */
static const char *
what(const struct kb_option *o, const struct kb_src *s, char *buf, size_t n)
{
	if (is_flag(s) && s->where != NULL)
		return s->where;
	snprintf(buf, n, "%s =", o->key != NULL ? o->key : o->flag);
	return buf;
}

/* "~/x" in a config file is the home directory's x (a shell expands it in
 * a flag before kinbox sees it) */
static char *
expand(const struct kb_policy *p, const char *v, const struct kb_src *s)
{
	if (!is_flag(s) && v[0] == '~' && (v[1] == '/' || v[1] == '\0') &&
	    p->home != NULL)
		return xasprintf("%s%s", p->home, v + 1);
	return xstrdup(v);
}

int
kb_optset_write(struct kb_policy *p, const struct kb_option *o, const char *v,
    const struct kb_src *s, struct kb_err *e)
{
	_cleanup_free_ char *path = expand(p, v, s);
	char b[64];

	return kb_policy_add_write_as(
	    p, path, s->origin, what(o, s, b, sizeof(b)), e);
}

/* a socket grant: judged at finalize, which knows the writable roots */
int
kb_optset_allow_socket(struct kb_policy *p, const struct kb_option *o,
    const char *v, const struct kb_src *s, struct kb_err *e)
{
	_cleanup_free_ char *path = expand(p, v, s);
	char b[64];

	return kb_policy_add_socket(
	    p, path, s->origin, s->where, what(o, s, b, sizeof(b)), e);
}

/* a device request: judged at finalize (profile/devices.c) */
int
kb_optset_device(struct kb_policy *p, const struct kb_option *o, const char *v,
    const struct kb_src *s, struct kb_err *e)
{
	_cleanup_free_ char *path = expand(p, v, s);
	char b[64];

	return kb_policy_add_device(
	    p, path, s->origin, s->where, what(o, s, b, sizeof(b)), e);
}

/*
 * allowed_hosts = in a file may list several entries, separated by
 * commas or blanks ("allowed_hosts = a.com, b.org:8443"), and the key
 * may repeat; a flag (and kinpolicy's grant) names one HOST[:PORT].
 * Calls `each` on every entry; an entry is at most one line long.
 */
static int
each_host(const char *v, const struct kb_src *s,
    int (*each)(const char *entry, void *ctx), void *ctx)
{
	size_t n = 0;

	if (is_flag(s))
		return each(v, ctx);
	for (const char *w = v + strspn(v, ", \t"); *w != '\0';
	     w += strspn(w, ", \t")) {
		size_t len = strcspn(w, ", \t");
		_cleanup_free_ char *entry = xasprintf("%.*s", (int)len, w);

		if (each(entry, ctx) == -1)
			return -1;
		w += len;
		n++;
	}
	return n == 0 ? each("", ctx) : 0;
}

struct host_ctx {
	struct kb_policy *p;
	const struct kb_option *o;
	const struct kb_src *s;
	struct kb_err *e;
};

static int
check_host(const char *entry, void *vc)
{
	struct host_ctx *c = vc;
	char name[KB_HOST_NAME_MAX + 1], b[64];
	const char *why;
	unsigned port;

	if (kb_host_entry_parse(entry, name, sizeof(name), &port, &why) == -1)
		return kb_err_set(c->e, "%s %s: %s",
		    what(c->o, c->s, b, sizeof(b)), *entry ? entry : "''", why);
	return 0;
}

static int
add_host(const char *entry, void *vc)
{
	struct host_ctx *c = vc;
	char b[64];

	return kb_policy_add_host(c->p, entry, c->s->origin, c->s->where,
	    what(c->o, c->s, b, sizeof(b)), c->e);
}

/* each entry was judged by check_form: only the cap is left to fail */
int
kb_optset_allow_host(struct kb_policy *p, const struct kb_option *o,
    const char *v, const struct kb_src *s, struct kb_err *e)
{
	struct host_ctx c = {p, o, s, e};

	return each_host(v, s, add_host, &c);
}

int
kb_optset_workspace(struct kb_policy *p, const struct kb_option *o,
    const char *v, const struct kb_src *s, struct kb_err *e)
{
	(void)o;
	(void)s;
	return kb_policy_set_workspace(p, v, e);
}

int
kb_run_mode_parse(const char *v, bool from_flag, bool *read_only)
{
	if (from_flag)
		return kb_parse_onoff(v, read_only);
	if (strcmp(v, "read-only") == 0)
		*read_only = true;
	else if (strcmp(v, "workspace-write") == 0)
		*read_only = false;
	else
		return -1;
	return 0;
}

const char *
kb_run_mode_name(bool read_only)
{
	return read_only ? "read-only" : "workspace-write";
}

/* --read-only, mode =: the form was checked */
int
kb_optset_mode(struct kb_policy *p, const struct kb_option *o, const char *v,
    const struct kb_src *s, struct kb_err *e)
{
	bool ro = false;

	(void)e;
	kb_run_mode_parse(v, is_flag(s), &ro);
	p->read_only = ro;
	if (is_flag(s))
		p->typed[o->id] = ro ? 1 : 0;
	return 0;
}

int
kb_optset_bool(struct kb_policy *p, const struct kb_option *o, const char *v,
    const struct kb_src *s, struct kb_err *e)
{
	bool on = false;

	kb_parse_onoff(v, &on); /* its form was checked */
	if (o->id == KB_OPT_NET) {
		p->net = on;
	} else if (o->id == KB_OPT_SSH_AGENT) {
		p->ssh_agent = on;
		/* a grant of the agent is a grant of the network it needs
		 * (kinpolicy stores both; a hand-written file may not) */
		if (on &&
		    (s->origin == KB_ORIGIN_SESSION ||
			s->origin == KB_ORIGIN_WORKSPACE) &&
		    !p->net) {
			p->net = true;
			p->origin[KB_OPT_NET] = s->origin;
			free(p->where[KB_OPT_NET]);
			p->where[KB_OPT_NET] =
			    xstrdup(s->where ? s->where : "");
		}
	} else if (o->id == KB_OPT_UNCONFINED) {
		p->unconfined = on;
	} else if (o->id == KB_OPT_GPU) {
		p->gpu = on;
	} else if (o->id == KB_OPT_KEYCHAIN) {
		p->keychain = on;
	} else {
		return kb_err_set(e, "internal: %s is not a switch", o->flag);
	}
	if (is_flag(s))
		p->typed[o->id] = on ? 1 : 0;
	return 0;
}

/* indexed by enum kb_backend_kind */
static const char *const backend_names[KB_BACKEND__N] = {
    [KB_BACKEND_AUTO] = "auto",
    [KB_BACKEND_BWRAP] = "bwrap",
    [KB_BACKEND_LANDLOCK] = "landlock",
    [KB_BACKEND_SEATBELT] = "seatbelt",
};

const char *
kb_backend_name(unsigned i)
{
	return i < KB_BACKEND__N ? backend_names[i] : NULL;
}

/* its form was checked: one of backend_names */
int
kb_optset_backend(struct kb_policy *p, const struct kb_option *o, const char *v,
    const struct kb_src *s, struct kb_err *e)
{
	(void)o;
	(void)s;
	(void)e;
	p->backend = KB_BACKEND_AUTO;
	for (unsigned i = 0; i < KB_BACKEND__N; i++)
		if (strcmp(v, backend_names[i]) == 0)
			p->backend = (enum kb_backend_kind)i;
	return 0;
}

static const char *const feature_names[KB_FEAT__N] = {
    "private-tmp",
    "pid-namespace",
    "net-namespace",
    "ipc-namespace",
    "git-guard",
    "unix-sockets",
    "signal-scope",
    "attr-guard",
};

const char *
kb_feature_name(unsigned i)
{
	return i < KB_FEAT__N ? feature_names[i] : NULL;
}

int
kb_feature_parse(const char *list, unsigned *bits, char **bad)
{
	const char *w = list;

	*bits = 0;
	*bad = NULL;
	while (*w != '\0') {
		size_t n = strcspn(w, ", "), i;

		for (i = 0; n > 0 && i < KB_FEAT__N; i++)
			if (strlen(feature_names[i]) == n &&
			    strncmp(feature_names[i], w, n) == 0)
				break;
		if (n > 0 && i == KB_FEAT__N) {
			*bad = xasprintf("%.*s", (int)n, w);
			return -1;
		}
		if (n > 0)
			*bits |= 1u << i;
		w += n;
		w += strspn(w, ", ");
	}
	return 0;
}

/* a list: each source adds what it requires (requiring only tightens) */
int
kb_optset_require(struct kb_policy *p, const struct kb_option *o, const char *v,
    const struct kb_src *s, struct kb_err *e)
{
	unsigned bits;
	char *bad;

	(void)o;
	(void)s;
	(void)e;
	if (kb_feature_parse(v, &bits, &bad) == 0)
		p->require |= bits;
	free(bad);
	return 0;
}

static bool
valid_env_pattern(const char *v)
{
	if (*v == '\0')
		return false;
	for (const char *c = v; *c; c++)
		if (!(*c == '_' || *c == '*' || *c == '?' ||
			(*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
			(*c >= '0' && *c <= '9')))
			return false;
	return true;
}

int
kb_optset_env_name(struct kb_policy *p, const struct kb_option *o,
    const char *v, const struct kb_src *s, struct kb_err *e)
{
	if (is_flag(s))
		return kb_policy_add_keep_env(p, v, e);
	kb_strv_push(
	    o->id == KB_OPT_KEEP_ENV ? &p->keep_env : &p->scrub_env, v);
	return 0;
}

int
kb_optset_keep_fd(struct kb_policy *p, const struct kb_option *o, const char *v,
    const struct kb_src *s, struct kb_err *e)
{
	(void)o;
	(void)s;
	return kb_policy_add_keep_fd(p, v, e);
}

int
kb_optset_mask(struct kb_policy *p, const struct kb_option *o, const char *v,
    const struct kb_src *s, struct kb_err *e)
{
	_cleanup_free_ char *path = expand(p, v, s);

	(void)o;
	(void)e;
	kb_strv_push(&p->extra_mask, path);
	return 0;
}

/* [caches] NAME = MODE arrives as "NAME=MODE"; both were checked */
static enum kb_cache_mode
cache_mode(const char *m)
{
	return strcmp(m, "ephemeral") == 0   ? KB_CACHE_EPHEMERAL
	       : strcmp(m, "empty") == 0     ? KB_CACHE_EMPTY
	       : strcmp(m, "persisted") == 0 ? KB_CACHE_PERSISTED
					     : KB_CACHE_OFF;
}

static int
cache_index(const char *name, size_t len)
{
	for (size_t i = 0; i < kb_cache_count; i++)
		if (strlen(kb_cache_table[i].name) == len &&
		    strncmp(kb_cache_table[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

int
kb_optset_cache(struct kb_policy *p, const struct kb_option *o, const char *v,
    const struct kb_src *s, struct kb_err *e)
{
	const char *eq = strchr(v, '=');

	(void)o;
	(void)s;
	(void)e;
	p->cache[cache_index(v, (size_t)(eq - v))] = cache_mode(eq + 1);
	return 0;
}

/* --- limits: --timeout, --kill-after, --rlimit, --setenv ---------------- */

/* indexed by enum kb_rlim; `unit` says what a value counts */
static const struct {
	const char *name;
	char unit; /* 'b' bytes (k, m, g suffixes), 's' seconds, 'n' count */
} rlim_table[KB_RLIM__N] = {
    [KB_RLIM_AS] = {"as", 'b'},
    [KB_RLIM_CORE] = {"core", 'b'},
    [KB_RLIM_CPU] = {"cpu", 's'},
    [KB_RLIM_FSIZE] = {"fsize", 'b'},
    [KB_RLIM_NOFILE] = {"nofile", 'n'},
    [KB_RLIM_NPROC] = {"nproc", 'n'},
};

const char *
kb_rlim_name(unsigned i)
{
	return i < KB_RLIM__N ? rlim_table[i].name : NULL;
}

/*
 * One NAME=VALUE of --rlimit: the limit's index and its value (bytes,
 * seconds or a count). "unlimited" is refused: kinbox only lowers a
 * limit, and leaving one out keeps the caller's. 0, or -1 with the bare
 * reason in `why`.
 */
static int
rlim_parse(const char *v, size_t len, int *idx, unsigned long long *out,
    const char **why)
{
	/* 2^50: a petabyte, a count or 35 million years; no overflow */
	static const unsigned long long cap = 1ULL << 50;
	const char *eq = memchr(v, '=', len), *num;
	unsigned long long n = 0, mult = 1;
	size_t k, digits;

	*idx = -1;
	for (unsigned i = 0; eq != NULL && i < KB_RLIM__N; i++)
		if (strlen(rlim_table[i].name) == (size_t)(eq - v) &&
		    strncmp(rlim_table[i].name, v, (size_t)(eq - v)) == 0)
			*idx = (int)i;
	if (*idx == -1) {
		*why = "not NAME=VALUE with NAME one of as, core, cpu, fsize, "
		       "nofile, nproc";
		return -1;
	}
	num = eq + 1;
	len -= (size_t)(num - v);
	for (digits = 0;
	     digits < len && num[digits] >= '0' && num[digits] <= '9'; digits++)
		;
	if (digits == 0 || len - digits > 1) {
		*why = len == 9 && strncmp(num, "unlimited", 9) == 0
			   ? "kinbox only lowers a limit: leave it out to "
			     "keep the one kinbox was started with"
			   : "not a number (as, core, fsize: bytes with an "
			     "optional k, m or g; cpu: seconds, or with s, m "
			     "or h; nofile, nproc: a count)";
		return -1;
	}
	if (len == digits + 1) {
		char u = num[digits];

		if (rlim_table[*idx].unit == 'b' && (u == 'k' || u == 'K'))
			mult = 1ULL << 10;
		else if (rlim_table[*idx].unit == 'b' && (u == 'm' || u == 'M'))
			mult = 1ULL << 20;
		else if (rlim_table[*idx].unit == 'b' && (u == 'g' || u == 'G'))
			mult = 1ULL << 30;
		else if (rlim_table[*idx].unit == 's' && u == 's')
			mult = 1;
		else if (rlim_table[*idx].unit == 's' && u == 'm')
			mult = 60;
		else if (rlim_table[*idx].unit == 's' && u == 'h')
			mult = 3600;
		else {
			*why = rlim_table[*idx].unit == 'b'
				   ? "the suffix is k, m or g (1024-based)"
			       : rlim_table[*idx].unit == 's'
				   ? "the suffix is s, m or h"
				   : "a count takes no suffix";
			return -1;
		}
	}
	for (k = 0; k < digits; k++) {
		n = n * 10 + (unsigned)(num[k] - '0');
		if (n > cap) {
			*why = "too large";
			return -1;
		}
	}
	if (n > cap / mult) {
		*why = "too large";
		return -1;
	}
	*out = n * mult;
	return 0;
}

/*
 * --rlimit takes one NAME=VALUE; rlimit = in a file a list of them,
 * separated by commas or blanks. Calls `each` on every entry (pointer
 * and length).
 */
static int
each_rlim(const char *v, int (*each)(const char *, size_t, void *), void *ctx)
{
	size_t n = 0;

	for (const char *w = v + strspn(v, ", \t"); *w != '\0';
	     w += strspn(w, ", \t")) {
		size_t len = strcspn(w, ", \t");

		if (each(w, len, ctx) == -1)
			return -1;
		w += len;
		n++;
	}
	return n == 0 ? each("", 0, ctx) : 0;
}

struct rlim_ctx {
	struct kb_policy *p; /* NULL: only judge the form */
	const struct kb_option *o;
	const struct kb_src *s;
	struct kb_err *e;
};

static int
one_rlim(const char *w, size_t len, void *vc)
{
	struct rlim_ctx *c = vc;
	const char *why = NULL;
	unsigned long long val;
	char b[64];
	int i;

	if (rlim_parse(w, len, &i, &val, &why) == -1)
		return kb_err_set(c->e, "%s %.*s: %s",
		    what(c->o, c->s, b, sizeof(b)), (int)len,
		    len > 0 ? w : "''", why);
	if (c->p == NULL)
		return 0;
	/* the project file only tightens: a lower limit, never a higher */
	if (c->s->origin == KB_ORIGIN_PROJECT && c->p->rlim_set[i] &&
	    c->p->rlim[i] <= val)
		return 0;
	c->p->rlim_set[i] = true;
	c->p->rlim[i] = val;
	return 0;
}

int
kb_optset_rlimit(struct kb_policy *p, const struct kb_option *o, const char *v,
    const struct kb_src *s, struct kb_err *e)
{
	struct rlim_ctx c = {p, o, s, e};

	return each_rlim(v, one_rlim, &c);
}

/* --timeout, --kill-after: the form was checked (a duration) */
int
kb_optset_duration(struct kb_policy *p, const struct kb_option *o,
    const char *v, const struct kb_src *s, struct kb_err *e)
{
	long long secs = 0;

	(void)e;
	kb_duration_parse(v, &secs);
	if (o->id == KB_OPT_KILL_AFTER) {
		p->kill_after = secs;
		return 0;
	}
	/* the project file only tightens: a shorter timeout, not a longer */
	if (s->origin == KB_ORIGIN_PROJECT && p->timeout > 0 &&
	    p->timeout <= secs)
		return 0;
	p->timeout = secs;
	return 0;
}

/* --memory, memory =: the form was checked (a size, at least 16M) */
int
kb_optset_memory(struct kb_policy *p, const struct kb_option *o, const char *v,
    const struct kb_src *s, struct kb_err *e)
{
	unsigned long long b = 0;

	(void)o;
	(void)e;
	kb_size_parse(v, &b);
	/* the project file only tightens: a bound the budget is lowered
	 * to, never raised by; judged when the budget is known (its default
	 * is the host's: kb_policy_memory) */
	if (s->origin == KB_ORIGIN_PROJECT) {
		if (p->memory_cap == 0 || b < p->memory_cap) {
			p->memory_cap = b;
			free(p->memory_cap_where);
			p->memory_cap_where =
			    xstrdup(s->where != NULL ? s->where : "");
		}
		return 0;
	}
	p->memory = b;
	return 0;
}

/* a variable name, and not one of kinbox's own (KINBOX_ACTIVE tells a
 * nested kinbox the truth; the others steer kinbox itself) */
static const char *
setenv_problem(const char *v)
{
	size_t n = strcspn(v, "=");

	if (v[n] != '=')
		return "not NAME=VALUE";
	if (n == 0 || (v[0] >= '0' && v[0] <= '9'))
		return "NAME is empty or starts with a digit";
	for (size_t i = 0; i < n; i++)
		if (!(v[i] == '_' || (v[i] >= 'A' && v[i] <= 'Z') ||
			(v[i] >= 'a' && v[i] <= 'z') ||
			(v[i] >= '0' && v[i] <= '9')))
			return "NAME holds letters, digits and _ only";
	if (strncmp(v, "KINBOX_", 7) == 0)
		return "KINBOX_* are kinbox's own variables";
	return NULL;
}

int
kb_optset_setenv(struct kb_policy *p, const struct kb_option *o, const char *v,
    const struct kb_src *s, struct kb_err *e)
{
	(void)o;
	(void)s;
	(void)e;
	kb_strv_push(&p->setenv, v);
	return 0;
}

/*
 * A value's form, judged without I/O and before any setter runs: the
 * one place that says what a switch, a config path, a variable name, a
 * backend or a cache mode may look like. Returns the bare message (the
 * caller says where).
 */
static int
check_form(const struct kb_option *o, const char *v, const struct kb_src *s,
    struct kb_err *e)
{
	const char *eq;
	char b[64];
	bool on;

	switch (o->id) {
	case KB_OPT_NET:
	case KB_OPT_SSH_AGENT:
	case KB_OPT_UNCONFINED:
	case KB_OPT_GPU:
	case KB_OPT_KEYCHAIN:
		if (kb_parse_onoff(v, &on) == -1)
			return kb_err_set(e,
			    "%s %s: not on or off; write on or off",
			    what(o, s, b, sizeof(b)), v);
		return 0;
	case KB_OPT_READ_ONLY:
		if (kb_run_mode_parse(v, is_flag(s), &on) == -1)
			return kb_err_set(e,
			    "%s %s: not a mode; write read-only or "
			    "workspace-write (the default)",
			    what(o, s, b, sizeof(b)), v);
		return 0;
	case KB_OPT_WRITE:
	case KB_OPT_ALLOW_SOCKET:
	case KB_OPT_DEVICE:
	case KB_OPT_MASK:
		/* a flag's path is the shell's: relative is fine */
		if ((!is_flag(s) || o->id == KB_OPT_MASK) && v[0] != '/' &&
		    !(v[0] == '~' && (v[1] == '/' || v[1] == '\0')))
			return kb_err_set(e,
			    "%s %s: not an absolute path; write /path or "
			    "~/path",
			    what(o, s, b, sizeof(b)), v);
		return 0;
	case KB_OPT_ALLOW_HOST: {
		struct host_ctx c = {NULL, o, s, e};

		/* every entry of the line, before any is recorded */
		return each_host(v, s, check_host, &c);
	}
	case KB_OPT_KEEP_ENV:
	case KB_OPT_SCRUB_ENV:
		if (is_flag(s))
			return 0; /* kb_policy_add_keep_env judges a name */
		if (!valid_env_pattern(v))
			return kb_err_set(e,
			    "%s %s: not a variable name or pattern "
			    "(letters, digits, _, * and ?)",
			    what(o, s, b, sizeof(b)), v);
		if (o->id == KB_OPT_KEEP_ENV && strpbrk(v, "*?") != NULL)
			return kb_err_set(e,
			    "keep_env = %s: keep_env takes exact names, no "
			    "patterns",
			    v);
		return 0;
	case KB_OPT_BACKEND: {
		unsigned i = 0;

		while (i < KB_BACKEND__N && strcmp(v, backend_names[i]) != 0)
			i++;
		if (i == KB_BACKEND__N)
			return kb_err_set(e,
			    "%s %s: unknown backend; use auto, bwrap, "
			    "landlock or seatbelt",
			    what(o, s, b, sizeof(b)), v);
		return 0;
	}
	case KB_OPT_REQUIRE: {
		unsigned bits;
		_cleanup_free_ char *bad = NULL;

		if (kb_feature_parse(v, &bits, &bad) == -1 || bits == 0)
			return kb_err_set(e,
			    "%s %s: %s%s%s; name some of private-tmp, "
			    "pid-namespace, net-namespace, ipc-namespace, "
			    "git-guard, unix-sockets, signal-scope, attr-guard",
			    what(o, s, b, sizeof(b)), v,
			    bad ? "unknown feature '" : "no feature named",
			    bad ? bad : "", bad ? "'" : "");
		return 0;
	}
	case KB_OPT_CACHE:
		if ((eq = strchr(v, '=')) == NULL)
			return kb_err_set(
			    e, "internal: a cache setting without a name");
		if (strcmp(eq + 1, "off") != 0 &&
		    strcmp(eq + 1, "ephemeral") != 0 &&
		    strcmp(eq + 1, "empty") != 0 &&
		    strcmp(eq + 1, "persisted") != 0)
			return kb_err_set(e,
			    "%.*s = %s: write ephemeral, empty, off or "
			    "persisted",
			    (int)(eq - v), v, eq + 1);
		if (cache_index(v, (size_t)(eq - v)) == -1)
			return kb_err_set(e,
			    "unknown cache '%.*s' in [caches]; known: cache, "
			    "npm, cargo, gomod, gradle, maven",
			    (int)(eq - v), v);
		return 0;
	case KB_OPT_TIMEOUT:
	case KB_OPT_KILL_AFTER: {
		long long secs;

		if (kb_duration_parse(v, &secs) == -1 ||
		    (o->id == KB_OPT_TIMEOUT && secs == 0))
			return kb_err_set(e,
			    "%s %s: not a duration; write a number and a unit "
			    "(s, m, h or d): 30s, 10m, 1h%s",
			    what(o, s, b, sizeof(b)), v,
			    o->id == KB_OPT_TIMEOUT ? ", more than 0s" : "");
		return 0;
	}
	case KB_OPT_RLIMIT: {
		struct rlim_ctx c = {NULL, o, s, e};

		return each_rlim(v, one_rlim, &c);
	}
	case KB_OPT_MEMORY: {
		unsigned long long bytes = 0;
		int rc = kb_size_parse(v, &bytes);

		if (rc == -1 || bytes < KB_MEMORY_MIN)
			return kb_err_set(e,
			    "%s %s: %s; write a size with K, M or G "
			    "(1024-based), at least 16M: 512M, 2G",
			    what(o, s, b, sizeof(b)), v,
			    rc == 0           ? "less than 16M"
			    : errno == ERANGE ? "too large"
					      : "not a size");
		return 0;
	}
	case KB_OPT_SETENV: {
		const char *why = setenv_problem(v);

		if (why != NULL)
			return kb_err_set(
			    e, "%s %s: %s", what(o, s, b, sizeof(b)), v, why);
		return 0;
	}
	case KB_OPT_WORKSPACE:
	case KB_OPT_CHDIR:
	case KB_OPT_KEEP_FD:
	case KB_OPT_JSON_FD:
	case KB_OPT_DRY_RUN:
	case KB_OPT_JSON:
	case KB_OPT_QUIET:
	case KB_OPT_VERBOSE:
	case KB_OPT_STATUS:
	case KB_OPT_HELP:
	case KB_OPT_VERSION:
	case KB_OPT__N:
		break;
	}
	return 0; /* judged by its setter, which needs the file system */
}

const struct kb_option *
kb_option_by_flag(const char *f)
{
	for (size_t i = 0; i < KB_OPT__N; i++)
		if ((kb_options[i].flag != NULL &&
			strcmp(kb_options[i].flag, f) == 0) ||
		    (kb_options[i].negflag != NULL &&
			strcmp(kb_options[i].negflag, f) == 0))
			return &kb_options[i];
	return NULL;
}

const struct kb_option *
kb_option_by_key(const char *key)
{
	for (size_t i = 0; i < KB_OPT__N; i++)
		if (kb_options[i].key != NULL &&
		    strcmp(kb_options[i].key, key) == 0)
			return &kb_options[i];
	return NULL;
}

int
kb_option_check(
    enum kb_opt id, const char *value, const struct kb_src *s, struct kb_err *e)
{
	struct kb_err inner;

	if (check_form(&kb_options[id], value, s, &inner) == 0)
		return 0;
	if (!is_flag(s) && s->where != NULL)
		return kb_err_set(e, "%s: %s", s->where, inner.msg);
	return kb_err_set(e, "%s", inner.msg);
}

int
kb_option_set(struct kb_policy *p, enum kb_opt id, const char *value,
    const struct kb_src *s, struct kb_err *e)
{
	const struct kb_option *o = &kb_options[id];
	struct kb_err inner;

	if (o->set == NULL)
		return kb_err_set(e, "internal: no setter for option %d", id);
	if (check_form(o, value, s, &inner) == -1 ||
	    o->set(p, o, value, s, &inner) == -1) {
		/* a file's line says where; a flag's message names it */
		if (!is_flag(s) && s->where != NULL)
			return kb_err_set(e, "%s: %s", s->where, inner.msg);
		return kb_err_set(e, "%s", inner.msg);
	}
	/* a project's memory = is a bound the setter keeps apart
	 * (p->memory_cap): the value's origin stays what set the value */
	if ((o->type == KB_T_SWITCH || o->type == KB_T_VALUE) &&
	    !(id == KB_OPT_MEMORY && s->origin == KB_ORIGIN_PROJECT)) {
		p->origin[id] = s->origin;
		free(p->where[id]);
		p->where[id] = xstrdup(s->where != NULL ? s->where : "");
	}
	return 0;
}

/*
 * A read-only run: every writable root is gone. What the user typed and
 * cannot have is refused (--write, --unconfined with --read-only); what a
 * config file or a grant gives is dropped with a note: a grant permits, it
 * never widens a read-only run. A persisted cache would write the host's
 * directory: it is ephemeral here. $TMPDIR outside /tmp: kb_policy_finalize.
 */
static int
validate_read_only(struct kb_policy *p, struct kb_err *e)
{
	const char *by = p->where[KB_OPT_READ_ONLY] != NULL
			     ? p->where[KB_OPT_READ_ONLY]
			     : "";
	bool flag = p->origin[KB_OPT_READ_ONLY] == KB_ORIGIN_FLAG;

	if (!p->read_only)
		return 0;
	if (p->unconfined && p->typed[KB_OPT_UNCONFINED] == 1)
		return kb_err_set(e,
		    "--unconfined runs the command with no sandbox, which "
		    "cannot keep it from writing, and %s makes the run "
		    "read-only; use one of the two",
		    flag ? "--read-only" : by);
	if (p->unconfined) {
		kb_strv_pushf(&p->notes,
		    "unconfined: the grant of %s is not used: this run is "
		    "read-only (%s), which no grant widens",
		    p->where[KB_OPT_UNCONFINED] ? p->where[KB_OPT_UNCONFINED]
						: "a grant",
		    by);
		p->unconfined = false;
	}
	for (size_t i = 0; i < p->nwrite; i++) {
		if (p->write[i].origin != KB_ORIGIN_FLAG)
			continue;
		if (flag)
			return kb_err_set(e,
			    "--write %s and --read-only: a read-only run "
			    "writes nowhere but its private /tmp; drop one of "
			    "the two",
			    p->write[i].path);
		return kb_err_set(e,
		    "--write %s: this run is read-only (mode = read-only in "
		    "%s%s), so nothing is writable; drop --write, or run "
		    "without read-only (remove that line)",
		    p->write[i].path, by,
		    p->origin[KB_OPT_READ_ONLY] == KB_ORIGIN_PROJECT
			? ", a project file's tightening, which no flag lifts"
			: "");
	}
	for (size_t i = 0; i < p->nwrite; i++) {
		kb_strv_pushf(&p->notes,
		    "write: %s (%s) is read-only here: this run is read-only "
		    "(%s), which no config or grant widens",
		    p->write[i].path, kb_origin_name(p->write[i].origin), by);
		free(p->write[i].path);
		p->write[i].path = NULL;
		if (p->write[i].fd != -1)
			close(p->write[i].fd);
		p->write[i].fd = -1;
	}
	p->nwrite = 0;
	for (size_t i = 0; i < kb_cache_count && i < nitems(p->cache); i++)
		if (p->cache[i] == KB_CACHE_PERSISTED) {
			kb_strv_pushf(&p->notes,
			    "cache %s: persisted in the config, ephemeral here "
			    "(writes discarded): this run is read-only (%s)",
			    kb_cache_table[i].name, by);
			p->cache[i] = KB_CACHE_EPHEMERAL;
		}
	return 0;
}

int
kb_options_validate(struct kb_policy *p, struct kb_err *e)
{
	const char *netw = p->where[KB_OPT_NET] ? p->where[KB_OPT_NET] : "";
	const char *sshw =
	    p->where[KB_OPT_SSH_AGENT] ? p->where[KB_OPT_SSH_AGENT] : "";
	bool typed_hosts = false;

	for (size_t i = 0; i < p->nallow_host; i++)
		typed_hosts |= p->allow_host[i].origin == KB_ORIGIN_FLAG;
	/* first: it may lift a session's unconfined grant */
	if (validate_read_only(p, e) == -1)
		return -1;
	/* no sandbox: nothing below applies (kinbox runs it before the
	 * config is even read), but a typed list of hosts would be a
	 * promise --unconfined breaks */
	if (p->unconfined) {
		if (typed_hosts && p->typed[KB_OPT_UNCONFINED] == 1)
			return kb_err_set(e,
			    "--unconfined gives the whole network (no sandbox "
			    "at all) and --allow-host only some hosts: use one "
			    "of the two");
		return 0;
	}
	/* the network mode first: what the agent needs is judged on it */
	if (kb_hosts_validate(p, e) == -1)
		return -1;
	/* the project file may only tighten: its network = off wins over a
	 * typed --net and over any grant (the denial line and the record
	 * then say so instead of suggesting --net) */
	if (!p->net && p->origin[KB_OPT_NET] == KB_ORIGIN_PROJECT)
		kb_strv_pushf(&p->notes,
		    "network: off by %s (network = off); "
		    "%s",
		    netw,
		    p->typed[KB_OPT_NET] == 1
			? "--net does not "
			  "lift a project file's tightening"
			: "grants of the "
			  "network do not apply here");
	/* ssh does not go through kinbox's proxy: the agent needs the whole
	 * network, which the allowed hosts are not */
	if (p->ssh_agent && !p->net && p->nallow_host > 0) {
		if (p->origin[KB_OPT_SSH_AGENT] != KB_ORIGIN_FLAG) {
			kb_strv_pushf(&p->notes,
			    "ssh agent: the grant of %s is not used: the "
			    "network "
			    "is only the allowed hosts, through kinbox's "
			    "proxy, "
			    "and ssh needs the whole network",
			    sshw);
			p->ssh_agent = false;
		} else if (typed_hosts) {
			return kb_err_set(e,
			    "--ssh-agent needs the whole network (--net), and "
			    "--allow-host gives only some hosts, through "
			    "kinbox's proxy, which ssh does not use; drop one "
			    "of the two");
		}
	}
	if (p->ssh_agent && !p->net) {
		if (p->origin[KB_OPT_SSH_AGENT] != KB_ORIGIN_FLAG) {
			/* a grant permits, it does not demand: the user's
			 * --no-net (or the project file) wins */
			kb_strv_pushf(&p->notes,
			    "ssh agent: the grant of %s "
			    "is not used: the network is off (%s)",
			    sshw,
			    p->origin[KB_OPT_NET] == KB_ORIGIN_FLAG ? "--no-net"
								    : netw);
			p->ssh_agent = false;
		} else if (p->origin[KB_OPT_NET] == KB_ORIGIN_FLAG) {
			return kb_err_set(e,
			    "--ssh-agent needs the network, and "
			    "--no-net turns it off; drop one of the two");
		} else if (p->origin[KB_OPT_NET] == KB_ORIGIN_PROJECT) {
			return kb_err_set(e,
			    "--ssh-agent needs the network, "
			    "which %s turns off (network = off, a project file "
			    "may only tighten); run it without --ssh-agent, or "
			    "remove that line from the project file",
			    netw);
		} else {
			return kb_err_set(e,
			    "--ssh-agent needs --net: the agent "
			    "is only useful to reach a remote host; add --net");
		}
	}
	return 0;
}

char *
kb_options_help(void)
{
	struct kb_buf b = {0};

	kb_buf_puts(&b, "");
	for (size_t i = 0; i < KB_OPT__N; i++) {
		const struct kb_option *o = &kb_options[i];
		char head[64];
		const char *h, *nl;
		int n;

		if (o->flag == NULL || o->help == NULL)
			continue;
		if (o->shortopt != 0)
			n = snprintf(head, sizeof(head), "  -%c, --%s%s%s",
			    o->shortopt, o->flag, o->metavar ? " " : "",
			    o->metavar ? o->metavar : "");
		else
			n = snprintf(head, sizeof(head), "      --%s%s%s",
			    o->flag, o->metavar ? " " : "",
			    o->metavar ? o->metavar : "");
		kb_buf_printf(&b, "%-24s", head);
		if (n >= 24)
			kb_buf_printf(&b, "\n%24s", "");
		for (h = o->help; (nl = strchr(h, '\n')) != NULL; h = nl + 1)
			kb_buf_printf(&b, "%.*s\n%24s", (int)(nl - h), h, "");
		kb_buf_printf(&b, "%s\n", h);
		if (o->negflag != NULL)
			kb_buf_printf(&b, "      --%-14s  %s\n", o->negflag,
			    o->neghelp != NULL ? o->neghelp : "");
	}
	return b.s;
}
