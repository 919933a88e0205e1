/*
 * profile/env.c — the secret scrub: environment in, environment out plus the
 * names removed. Pure: it reads only its arguments and the tables.
 */
#include <fnmatch.h>
#include <string.h>
#include <strings.h>

#include "policy.h"
#include "tables.h"

/* does name[0..len) hold `word` anywhere (without regard to case)? */
static bool
holds_word(const char *name, size_t len, const char *word)
{
	size_t n = strlen(word);

	for (size_t i = 0; n <= len && i <= len - n; i++)
		if (strncasecmp(name + i, word, n) == 0)
			return true;
	return false;
}

/* a region, a profile, a CA path (tables.c): never a secret word in it */
static bool
benign(const char *name, size_t len)
{
	bool ends = false;

	for (size_t i = 0; i < kb_env_benign_suffix_count && !ends; i++) {
		size_t n = strlen(kb_env_benign_suffix[i]);

		ends = n < len && strncasecmp(name + len - n,
				      kb_env_benign_suffix[i], n) == 0;
	}
	if (!ends)
		return false;
	for (size_t i = 0; i < kb_secret_env_words_count; i++)
		if (holds_word(name, len, kb_secret_env_words[i]))
			return false;
	return true;
}

bool
kb_env_is_secret(const char *name, size_t len)
{
	for (size_t i = 0; i < kb_secret_env_allow_count; i++)
		if (strlen(kb_secret_env_allow[i]) == len &&
		    strncasecmp(name, kb_secret_env_allow[i], len) == 0)
			return false;
	if (benign(name, len))
		return false;
	for (size_t i = 0; i < kb_secret_env_count; i++) {
		const struct kb_env_pattern *p = &kb_secret_env_table[i];
		size_t n = strlen(p->text);

		switch (p->match) {
		case KB_MATCH_EXACT:
			if (n == len && strncasecmp(name, p->text, n) == 0)
				return true;
			break;
		case KB_MATCH_PREFIX:
			if (n <= len && strncasecmp(name, p->text, n) == 0)
				return true;
			break;
		case KB_MATCH_SUFFIX:
			if (n <= len &&
			    strncasecmp(name + len - n, p->text, n) == 0)
				return true;
			break;
		}
	}
	return false;
}

static bool
kept(const struct kb_policy *p, const char *name, size_t len)
{
	for (size_t i = 0; i < p->keep_env.n; i++)
		if (strlen(p->keep_env.v[i]) == len &&
		    strncmp(p->keep_env.v[i], name, len) == 0)
			return true;
	/* the agent socket is the grant itself */
	if (p->ssh_agent && len == 13 &&
	    strncmp(name, "SSH_AUTH_SOCK", 13) == 0)
		return true;
	return false;
}

/* the config's extra names and patterns (scrub_env), case-insensitive */
static bool
config_secret(const struct kb_policy *p, const char *name, size_t len)
{
	char buf[256];

	if (p->scrub_env.n == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, name, len);
	buf[len] = '\0';
	for (size_t i = 0; i < p->scrub_env.n; i++)
		if (fnmatch(p->scrub_env.v[i], buf, FNM_CASEFOLD) == 0)
			return true;
	return false;
}

void
kb_env_scrub(const struct kb_policy *p, char *const *envp, struct kb_strv *out,
    struct kb_strv *removed)
{
	for (char *const *e = envp; e != NULL && *e != NULL; e++) {
		const char *eq = strchr(*e, '=');
		size_t len = eq != NULL ? (size_t)(eq - *e) : strlen(*e);

		if ((kb_env_is_secret(*e, len) || config_secret(p, *e, len)) &&
		    !kept(p, *e, len)) {
			if (removed != NULL) {
				kb_strv_push(removed, *e);
				removed->v[removed->n - 1][len] = '\0';
			}
			continue;
		}
		kb_strv_push(out, *e);
	}
}
