/*
 * backends/env.c — the command's environment, for any backend and for
 * --unconfined: the caller's, scrubbed of secrets, with what kinbox sets
 * (TMPDIR, KINBOX_ACTIVE, the offline variables when the network is off).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../profile/tables.h"
#include "backend.h"

/*
 * With the network limited to the allow-list (pl->proxy_fd set), the
 * variables that point tools at kinbox's proxy (mediate/proxy.h). The
 * caller's own values of these are replaced; JAVA_TOOL_OPTIONS and
 * git's GIT_CONFIG_* list are added to. Who reads which:
 *   http(s)_proxy, all_proxy, no_proxy, upper and lower case: curl and
 *     libcurl (git, cargo), wget, Python (urllib, requests: pip, uv),
 *     Go's net/http, Ruby, Deno, Bun;
 *   npm_config_(https_)proxy: npm, and yarn 1 (which reads npm's);
 *   YARN_HTTP(S)_PROXY: yarn 2+; PIP_PROXY: pip; CARGO_HTTP_PROXY: cargo;
 *   NODE_USE_ENV_PROXY: Node's own fetch and http (Node 24 and later);
 *   GIT_CONFIG_* http.proxy: git, also where a config sets its own;
 *   JAVA_TOOL_OPTIONS -Dhttp(s).proxyHost/Port: the JVM (Maven's and
 *     Gradle's HTTP clients among them).
 */
#define KB_PROXY_URL "http://127.0.0.1:3128"
static const char *const proxy_vars[] = {
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "npm_config_proxy",
    "npm_config_https_proxy",
    "YARN_HTTP_PROXY",
    "YARN_HTTPS_PROXY",
    "PIP_PROXY",
    "CARGO_HTTP_PROXY",
};
/* loopback is the sandbox's own: never through the proxy */
static const char *const noproxy_vars[] = {"no_proxy", "NO_PROXY"};
#define KB_NO_PROXY "localhost,127.0.0.1,::1"

static bool
is_proxy_var(const char *kv)
{
	size_t n = strcspn(kv, "=");

	for (size_t i = 0; i < nitems(proxy_vars); i++)
		if (strlen(proxy_vars[i]) == n &&
		    strncmp(kv, proxy_vars[i], n) == 0)
			return true;
	for (size_t i = 0; i < nitems(noproxy_vars); i++)
		if (strlen(noproxy_vars[i]) == n &&
		    strncmp(kv, noproxy_vars[i], n) == 0)
			return true;
	return strncmp(kv, "NODE_USE_ENV_PROXY=", 19) == 0 ||
	       strncmp(kv, "JAVA_TOOL_OPTIONS=", 18) == 0 ||
	       strncmp(kv, "GIT_CONFIG_COUNT=", 17) == 0;
}

static const char *
envp_get(char *const *envp, const char *name)
{
	size_t n = strlen(name);

	for (char *const *e = envp; e != NULL && *e != NULL; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

static void
proxy_env(const struct kb_strv *scrubbed, struct kb_plan *pl)
{
	const char *java = envp_get(scrubbed->v, "JAVA_TOOL_OPTIONS");
	const char *count = envp_get(scrubbed->v, "GIT_CONFIG_COUNT");
	long n = count != NULL ? strtol(count, NULL, 10) : 0;

	for (size_t i = 0; i < nitems(proxy_vars); i++)
		kb_strv_pushf(&pl->envp, "%s=%s", proxy_vars[i], KB_PROXY_URL);
	for (size_t i = 0; i < nitems(noproxy_vars); i++)
		kb_strv_pushf(&pl->envp, "%s=%s", noproxy_vars[i], KB_NO_PROXY);
	kb_strv_push(&pl->envp, "NODE_USE_ENV_PROXY=1");
	/* after the caller's own entries, so that ours is the last word */
	if (n < 0 || n > 1000)
		n = 0;
	kb_strv_pushf(&pl->envp, "GIT_CONFIG_COUNT=%ld", n + 1);
	kb_strv_pushf(&pl->envp, "GIT_CONFIG_KEY_%ld=http.proxy", n);
	kb_strv_pushf(&pl->envp, "GIT_CONFIG_VALUE_%ld=%s", n, KB_PROXY_URL);
	kb_strv_pushf(&pl->envp,
	    "JAVA_TOOL_OPTIONS=%s%s-Dhttp.proxyHost=127.0.0.1 "
	    "-Dhttp.proxyPort=3128 -Dhttps.proxyHost=127.0.0.1 "
	    "-Dhttps.proxyPort=3128 "
	    "-Dhttp.nonProxyHosts=localhost|127.0.0.1|[::1]",
	    java != NULL ? java : "", java != NULL && *java ? " " : "");
	kb_strv_pushf(&pl->notes,
	    "env: tools pointed at kinbox's egress proxy (%s): "
	    "http(s)_proxy, all_proxy, no_proxy (loopback), npm, yarn, pip, "
	    "cargo, git (GIT_CONFIG_*), the JVM (JAVA_TOOL_OPTIONS), Node 24+",
	    KB_PROXY_URL);
}

/* Does the environment `envp` set `name`? */
static bool
envp_has(char *const *envp, const char *name)
{
	size_t n = strlen(name);

	for (char *const *e = envp; e != NULL && *e != NULL; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return true;
	return false;
}

/*
 * --setenv NAME=VALUE, last: after the scrub, so it may set a name the
 * scrub removes (the caller typed the value), and over what kinbox set
 * (the offline variables, the proxy's). Every entry of NAME goes, then
 * NAME=VALUE is added; a later --setenv of NAME wins. The note names the
 * variables, never their values (a value may be a secret).
 */
static void
setenv_apply(const struct kb_policy *p, struct kb_plan *pl)
{
	struct kb_buf b = {0};

	for (size_t i = 0; i < p->setenv.n; i++) {
		const char *kv = p->setenv.v[i];
		size_t n = strcspn(kv, "="), k = 0;

		for (size_t j = 0; j < pl->envp.n; j++) {
			if (strncmp(pl->envp.v[j], kv, n + 1) == 0)
				free(pl->envp.v[j]);
			else
				pl->envp.v[k++] = pl->envp.v[j];
		}
		pl->envp.n = k;
		pl->envp.v[k] = NULL;
		kb_strv_push(&pl->envp, kv);
		kb_buf_printf(&b, " %.*s", (int)n, kv);
	}
	if (b.s != NULL)
		kb_strv_pushf(&pl->notes,
		    "env: set by --setenv (after the scrub):%s", b.s);
	kb_buf_free(&b);
}

void
kb_plan_env(const struct kb_policy *p, char *const *envp, const char *active,
    struct kb_plan *pl)
{
	struct kb_strv scrubbed = {0}, removed = {0};
	struct kb_buf b = {0};

	bool sandboxed = active != NULL;
	/* the command sees TMPDIR at its canonical path: a symlinked TMPDIR
	 * under /tmp would not resolve inside the private /tmp */
	const char *tmp_canon =
	    p->tmpdir_private != NULL ? p->tmpdir_private : p->tmpdir;
	bool tmp_reset = sandboxed && (p->tmpdir_reset || tmp_canon != NULL);
	/* the plan's allow-list: bwrap's goes with its proxy descriptor,
	 * seatbelt's proxy listens on the host (no descriptor) */
	bool egress = sandboxed && pl->nhosts > 0;

	kb_env_scrub(p, envp, &scrubbed, &removed);
	for (size_t i = 0; i < scrubbed.n; i++) {
		const char *kv = scrubbed.v[i];

		if (tmp_reset && strncmp(kv, "TMPDIR=", 7) == 0)
			continue;
		/* the agent socket is exposed at its real path: a symlink to
		 * it (tmux setups) would not resolve inside. Only the
		 * agent's: --allow-socket names no variable */
		if (sandboxed && p->ssh_agent &&
		    strncmp(kv, "SSH_AUTH_SOCK=", 14) == 0) {
			const struct kb_mask *agent = NULL;

			for (size_t m = 0; m < p->nmask; m++)
				if (p->mask[m].kind == KB_EXPOSE_SOCKET &&
				    p->mask[m].by == KB_OPT_SSH_AGENT)
					agent = &p->mask[m];
			if (agent != NULL) {
				kb_strv_pushf(
				    &pl->envp, "SSH_AUTH_SOCK=%s", agent->path);
				continue;
			}
		}
		if (strncmp(kv, "KINBOX_ACTIVE=", 14) == 0)
			continue;
		if (egress && is_proxy_var(kv))
			continue;
		kb_strv_push(&pl->envp, kv);
	}
	if (egress)
		proxy_env(&scrubbed, pl);
	if (tmp_reset)
		kb_strv_pushf(&pl->envp, "TMPDIR=%s",
		    p->tmpdir_reset ? "/tmp" : tmp_canon);
	/* lets a nested kinbox explain why it cannot nest */
	if (active != NULL)
		kb_strv_pushf(&pl->envp, "KINBOX_ACTIVE=%s", active);
	if (sandboxed && !p->net && !egress) {
		struct kb_buf set = {0};

		for (size_t i = 0; i < kb_offline_env_count; i++) {
			const struct kb_offline_env *o =
			    &kb_offline_env_table[i];

			if (envp_has(envp, o->name))
				continue;
			kb_strv_pushf(&pl->envp, "%s=%s", o->name, o->value);
			kb_buf_printf(&set, "%s %s=%s (%s)", set.s ? "," : "",
			    o->name, o->value, o->tool);
		}
		if (set.s != NULL)
			kb_strv_pushf(&pl->notes,
			    "env: network off, so tools use what is there "
			    "instead of waiting on it:%s",
			    set.s);
		kb_buf_free(&set);
	}
	if (pl->envp.v == NULL) /* execve wants a vector, even empty */
		pl->envp.v = xcalloc(1, sizeof(char *));
	setenv_apply(p, pl);
	for (size_t i = 0; i < removed.n; i++)
		kb_buf_printf(&b, " %s", removed.v[i]);
	kb_strv_pushf(
	    &pl->notes, "env: secrets removed:%s", b.s != NULL ? b.s : " none");
	kb_buf_free(&b);
	kb_strv_free(&scrubbed);
	kb_strv_free(&removed);
}

char **
kb_plan_env_slot(struct kb_plan *pl, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < pl->envp.n; i++)
		if (strncmp(pl->envp.v[i], name, n) == 0 &&
		    pl->envp.v[i][n] == '=')
			return &pl->envp.v[i];
	return NULL;
}

void
kb_plan_env_set(struct kb_plan *pl, const char *name, const char *value)
{
	char **slot = kb_plan_env_slot(pl, name);

	if (slot != NULL) {
		free(*slot);
		*slot = xasprintf("%s=%s", name, value);
		return;
	}
	kb_strv_pushf(&pl->envp, "%s=%s", name, value);
}

void
kb_plan_env_append(struct kb_plan *pl, const char *name, const char *sep,
    const char *word, const char *value)
{
	char **slot = kb_plan_env_slot(pl, name);

	if (slot != NULL) {
		char *old = *slot;

		*slot = xasprintf("%s%s%s%s", old, sep, word, value);
		free(old);
		return;
	}
	kb_strv_pushf(&pl->envp, "%s=%s%s", name, word, value);
}
