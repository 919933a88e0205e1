/*
 * backends/env.c — the command's environment, for any backend and for
 * --unconfined: the caller's, scrubbed of secrets, with what kinbox sets
 * (TMPDIR, KINBOX_ACTIVE, the offline variables when the network is off).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../policy/tables.h"
#include "backend.h"

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
		kb_strv_push(&pl->envp, kv);
	}
	if (tmp_reset)
		kb_strv_pushf(&pl->envp, "TMPDIR=%s",
		    p->tmpdir_reset ? "/tmp" : tmp_canon);
	/* lets a nested kinbox explain why it cannot nest */
	if (active != NULL)
		kb_strv_pushf(&pl->envp, "KINBOX_ACTIVE=%s", active);
	if (sandboxed && !p->net) {
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
	for (size_t i = 0; i < removed.n; i++)
		kb_buf_printf(&b, " %s", removed.v[i]);
	kb_strv_pushf(
	    &pl->notes, "env: secrets removed:%s", b.s != NULL ? b.s : " none");
	kb_buf_free(&b);
	kb_strv_free(&scrubbed);
	kb_strv_free(&removed);
}
