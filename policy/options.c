/*
 * policy/options.c — the option table and the one setter every source goes
 * through (see options.h). No I/O beyond what a setter's validation needs
 * (realpath of a write root, fcntl of a kept descriptor).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "options.h"
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

static int
switch_value(const struct kb_option *o, const char *v, const struct kb_src *s,
    bool *on, struct kb_err *e)
{
	char b[64];

	if (kb_parse_onoff(v, on) == -1)
		return kb_err_set(e, "%s %s: not on or off; write on or off",
		    what(o, s, b, sizeof(b)), v);
	return 0;
}

static int
set_write(struct kb_policy *p, const struct kb_option *o, const char *v,
    const struct kb_src *s, struct kb_err *e)
{
	_cleanup_free_ char *path = expand(p, v, s);
	char b[64];

	if (!is_flag(s) && path[0] != '/')
		return kb_err_set(e,
		    "%s %s: not an absolute path; write /path "
		    "or ~/path",
		    what(o, s, b, sizeof(b)), v);
	return kb_policy_add_write_as(
	    p, path, s->origin, what(o, s, b, sizeof(b)), e);
}

static int
set_workspace(struct kb_policy *p, const struct kb_option *o, const char *v,
    const struct kb_src *s, struct kb_err *e)
{
	(void)o;
	(void)s;
	return kb_policy_set_workspace(p, v, e);
}

static int
set_bool(struct kb_policy *p, const struct kb_option *o, const char *v,
    const struct kb_src *s, struct kb_err *e)
{
	bool on;

	if (switch_value(o, v, s, &on, e) == -1)
		return -1;
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
	} else {
		return kb_err_set(e, "internal: %s is not a switch", o->flag);
	}
	if (is_flag(s))
		p->typed[o->id] = on ? 1 : 0;
	return 0;
}

static int
set_backend(struct kb_policy *p, const struct kb_option *o, const char *v,
    const struct kb_src *s, struct kb_err *e)
{
	char b[64];

	(void)s;
	if (strcmp(v, "auto") == 0)
		p->backend = KB_BACKEND_AUTO;
	else if (strcmp(v, "bwrap") == 0)
		p->backend = KB_BACKEND_BWRAP;
	else
		return kb_err_set(e,
		    "%s %s: unknown backend; use auto or bwrap",
		    what(o, s, b, sizeof(b)), v);
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

static int
set_env_name(struct kb_policy *p, const struct kb_option *o, const char *v,
    const struct kb_src *s, struct kb_err *e)
{
	char b[64];

	if (is_flag(s))
		return kb_policy_add_keep_env(p, v, e);
	if (!valid_env_pattern(v))
		return kb_err_set(e,
		    "%s %s: not a variable name or pattern "
		    "(letters, digits, _, * and ?)",
		    what(o, s, b, sizeof(b)), v);
	if (o->id == KB_OPT_KEEP_ENV && strpbrk(v, "*?") != NULL)
		return kb_err_set(e,
		    "keep_env = %s: keep_env takes exact names, "
		    "no patterns",
		    v);
	kb_strv_push(
	    o->id == KB_OPT_KEEP_ENV ? &p->keep_env : &p->scrub_env, v);
	return 0;
}

static int
set_keep_fd(struct kb_policy *p, const struct kb_option *o, const char *v,
    const struct kb_src *s, struct kb_err *e)
{
	(void)o;
	(void)s;
	return kb_policy_add_keep_fd(p, v, e);
}

static int
set_mask(struct kb_policy *p, const struct kb_option *o, const char *v,
    const struct kb_src *s, struct kb_err *e)
{
	_cleanup_free_ char *path = expand(p, v, s);
	char b[64];

	if (path[0] != '/')
		return kb_err_set(e,
		    "%s %s: not an absolute path; write /path "
		    "or ~/path",
		    what(o, s, b, sizeof(b)), v);
	kb_strv_push(&p->extra_mask, path);
	return 0;
}

/* [caches] NAME = MODE arrives as "NAME=MODE" */
static int
set_cache(struct kb_policy *p, const struct kb_option *o, const char *v,
    const struct kb_src *s, struct kb_err *e)
{
	const char *eq = strchr(v, '=');
	_cleanup_free_ char *name = NULL;
	enum kb_cache_mode m;

	(void)o;
	(void)s;
	if (eq == NULL)
		return kb_err_set(
		    e, "internal: a cache setting without a name");
	name = xasprintf("%.*s", (int)(eq - v), v);
	if (strcmp(eq + 1, "off") == 0)
		m = KB_CACHE_OFF;
	else if (strcmp(eq + 1, "ephemeral") == 0)
		m = KB_CACHE_EPHEMERAL;
	else if (strcmp(eq + 1, "persisted") == 0)
		m = KB_CACHE_PERSISTED;
	else
		return kb_err_set(e,
		    "%s = %s: write off, ephemeral or persisted", name, eq + 1);
	for (size_t i = 0; i < kb_cache_count; i++) {
		if (strcmp(kb_cache_table[i].name, name) == 0) {
			p->cache[i] = m;
			return 0;
		}
	}
	return kb_err_set(e,
	    "unknown cache '%s' in [caches]; known: cache, "
	    "npm, cargo, gomod, gradle, maven",
	    name);
}

/* clang-format off */
const struct kb_option kb_options[KB_OPT__N] = {
	[KB_OPT_WRITE] = { KB_OPT_WRITE, "write", 'w', NULL, "DIR",
	    KB_IN_SANDBOX | KB_IN_GRANT, "write_paths", "write_paths",
	    KB_LIFE_WORKSPACE, KB_PROJECT_NO, KB_T_LIST, set_write,
	    "also make DIR writable (repeatable, at most 16)" },
	[KB_OPT_WORKSPACE] = { KB_OPT_WORKSPACE, "workspace", 'C', NULL, "DIR",
	    0, NULL, "workspace", KB_LIFE_NEVER, KB_PROJECT_NO, KB_T_VALUE,
	    set_workspace,
	    "the workspace (default: the current directory)" },
	[KB_OPT_NET] = { KB_OPT_NET, "net", 0, "no-net", NULL,
	    KB_IN_SANDBOX | KB_IN_GRANT, "network", "network",
	    KB_LIFE_WORKSPACE, KB_PROJECT_OFF_ONLY, KB_T_SWITCH, set_bool,
	    "give the command the host network",
	    "no network, loopback only (the default)" },
	[KB_OPT_BACKEND] = { KB_OPT_BACKEND, "backend", 0, NULL, "NAME",
	    KB_IN_SANDBOX, "backend", NULL, KB_LIFE_NEVER, KB_PROJECT_NO,
	    KB_T_VALUE, set_backend,
	    "auto (default) or bwrap; both fail closed\n"
	    "when bubblewrap cannot run" },
	[KB_OPT_SSH_AGENT] = { KB_OPT_SSH_AGENT, "ssh-agent", 0, NULL, NULL,
	    KB_IN_GRANT, "ssh_agent", "ssh_agent", KB_LIFE_WORKSPACE,
	    KB_PROJECT_NO, KB_T_SWITCH, set_bool,
	    "expose the SSH agent socket and public ~/.ssh\n"
	    "files (needs --net); private keys stay hidden" },
	[KB_OPT_KEEP_ENV] = { KB_OPT_KEEP_ENV, "keep-env", 0, NULL, "NAME",
	    KB_IN_SANDBOX, "keep_env", "keep_env", KB_LIFE_NEVER,
	    KB_PROJECT_NO, KB_T_LIST, set_env_name,
	    "keep variable NAME despite the secret scrub" },
	[KB_OPT_KEEP_FD] = { KB_OPT_KEEP_FD, "keep-fd", 0, NULL, "N",
	    0, NULL, NULL, KB_LIFE_NEVER, KB_PROJECT_NO, KB_T_LIST,
	    set_keep_fd, "keep descriptor N open in the command" },
	[KB_OPT_UNCONFINED] = { KB_OPT_UNCONFINED, "unconfined", 0, NULL, NULL,
	    KB_IN_GRANT, "unconfined", "unconfined", KB_LIFE_SESSION,
	    KB_PROJECT_NO, KB_T_SWITCH, set_bool,
	    "no sandbox (the escape hatch); secrets are\n"
	    "still scrubbed and descriptors closed" },
	[KB_OPT_SCRUB_ENV] = { KB_OPT_SCRUB_ENV, NULL, 0, NULL, NULL,
	    KB_IN_SANDBOX, "scrub_env", NULL, KB_LIFE_NEVER, KB_PROJECT_ADD,
	    KB_T_LIST, set_env_name, NULL },
	[KB_OPT_MASK] = { KB_OPT_MASK, NULL, 0, NULL, NULL,
	    KB_IN_SANDBOX, "mask", NULL, KB_LIFE_NEVER, KB_PROJECT_ADD,
	    KB_T_LIST, set_mask, NULL },
	[KB_OPT_CACHE] = { KB_OPT_CACHE, NULL, 0, NULL, NULL,
	    KB_IN_CACHES, NULL, NULL, KB_LIFE_NEVER, KB_PROJECT_NO,
	    KB_T_VALUE, set_cache, NULL },
	[KB_OPT_JSON_FD] = { KB_OPT_JSON_FD, "json-fd", 0, NULL, "N",
	    0, NULL, NULL, KB_LIFE_NEVER, KB_PROJECT_NO, KB_T_CLI, NULL,
	    "write a denial's JSON record to descriptor N\n"
	    "(also KINBOX_JSON_FD)" },
	[KB_OPT_DRY_RUN] = { KB_OPT_DRY_RUN, "dry-run", 0, NULL, NULL,
	    0, NULL, NULL, KB_LIFE_NEVER, KB_PROJECT_NO, KB_T_CLI, NULL,
	    "print the plan, with each grant's origin,\nand run nothing" },
	[KB_OPT_QUIET] = { KB_OPT_QUIET, "quiet", 'q', NULL, NULL,
	    0, NULL, NULL, KB_LIFE_NEVER, KB_PROJECT_NO, KB_T_CLI, NULL,
	    "no posture line when running unsandboxed" },
	[KB_OPT_VERBOSE] = { KB_OPT_VERBOSE, "verbose", 'v', NULL, NULL,
	    0, NULL, NULL, KB_LIFE_NEVER, KB_PROJECT_NO, KB_T_CLI, NULL,
	    "print the plan's summary before running" },
	[KB_OPT_STATUS] = { KB_OPT_STATUS, "status", 0, NULL, NULL,
	    0, NULL, NULL, KB_LIFE_NEVER, KB_PROJECT_NO, KB_T_CLI, NULL,
	    "say whether a sandbox can be set up here\n"
	    "(exit 0) or why not (exit 125), run nothing" },
	[KB_OPT_HELP] = { KB_OPT_HELP, "help", 'h', NULL, NULL,
	    0, NULL, NULL, KB_LIFE_NEVER, KB_PROJECT_NO, KB_T_CLI, NULL,
	    "this text" },
	[KB_OPT_VERSION] = { KB_OPT_VERSION, "version", 0, NULL, NULL,
	    0, NULL, NULL, KB_LIFE_NEVER, KB_PROJECT_NO, KB_T_CLI, NULL,
	    "print the version" },
};
/* clang-format on */

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
kb_option_set(struct kb_policy *p, enum kb_opt id, const char *value,
    const struct kb_src *s, struct kb_err *e)
{
	const struct kb_option *o = &kb_options[id];
	struct kb_err inner;

	if (o->set == NULL)
		return kb_err_set(e, "internal: no setter for option %d", id);
	if (o->set(p, o, value, s, &inner) == -1) {
		/* a file's line says where; a flag's message names it */
		if (!is_flag(s) && s->where != NULL)
			return kb_err_set(e, "%s: %s", s->where, inner.msg);
		return kb_err_set(e, "%s", inner.msg);
	}
	if (o->type == KB_T_SWITCH || o->type == KB_T_VALUE) {
		p->origin[id] = s->origin;
		free(p->where[id]);
		p->where[id] = xstrdup(s->where != NULL ? s->where : "");
	}
	return 0;
}

int
kb_options_validate(struct kb_policy *p, struct kb_err *e)
{
	const char *netw = p->where[KB_OPT_NET] ? p->where[KB_OPT_NET] : "";
	const char *sshw =
	    p->where[KB_OPT_SSH_AGENT] ? p->where[KB_OPT_SSH_AGENT] : "";

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
