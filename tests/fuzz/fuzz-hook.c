/*
 * tests/fuzz/fuzz-hook.c — libFuzzer target: the pure half of kinpolicy
 * hook (sidecar/hook.c) on arbitrary bytes. Besides "no crash, no leak", it
 * checks what the hook relies on, and aborts when it does not hold:
 *   - the rewrite of any command is recognised as the rewrite, and gives
 *     back that exact command (when the lexer reads it at all);
 *   - the input itself is never taken for a rewrite unless it is exactly
 *     one (wrapping its inner command again gives the input);
 *   - the rewrite followed by "; rm -rf x" is never a rewrite;
 *   - every denial id found is "sbx_" and 16 lower-case hex digits, and
 *     occurs in the text.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../sidecar/agentrules.h"
#include "../../sidecar/hook.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char K[] = "/usr/bin/kinbox";
static const char R[] = "/w s";
static const char SES[] = "ses_0123456789abcdef";

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *w, *back, *tail, *in;
	char ids[4][24];
	size_t n;
	/* the rewrite with and without a session, by the input's length */
	const char *S = size % 2 == 1 ? SES : NULL;

	if (s == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0'; /* a command string ends at its first NUL */
	{
		/* the patch reader: bounded, and each path it names is a
		 * part of the text */
		struct kb_strv paths = {0};

		if (kb_hook_patch_paths(s, &paths) == 0)
			for (size_t i = 0; i < paths.n; i++)
				if (strstr(s, paths.v[i]) == NULL)
					abort();
		kb_strv_free(&paths);
	}
	/* both rewrites: planning's read-only one and the other, each
	 * recognised as itself only */
	for (int ro = 0; ro < 2; ro++) {
		w = kb_hook_wrap(K, R, S, ro, s);
		back = kb_hook_unwrap(K, R, S, ro, w);
		if (back != NULL && strcmp(back, s) != 0)
			abort();
		free(back);
		if ((back = kb_hook_unwrap(K, R, S, !ro, w)) != NULL)
			abort();
		tail = xasprintf("%s; rm -rf x", w);
		if ((back = kb_hook_unwrap(K, R, S, ro, tail)) != NULL ||
		    (back = kb_hook_unwrap(K, R, NULL, ro, tail)) != NULL)
			abort();
		if ((in = kb_hook_unwrap(K, R, NULL, ro, s)) != NULL) {
			char *again = kb_hook_wrap(K, R, NULL, ro, in);

			if (strcmp(again, s) != 0)
				abort();
			free(again);
			free(in);
		}
		free(tail);
		free(w);
	}
	{
		/* the other agents' rule files: bounded, every rule one the
		 * judge takes (Bash or Bash(...)) */
		struct kb_agent_rules r = {0};
		char why[256];

		for (int g = 0; g < 2; g++) {
			if ((g ? kb_gemini_policy_parse : kb_codex_rules_parse)(
				s, strlen(s), &r, why, sizeof(why)) == -1 &&
			    strncmp(why, "line ", 5) != 0)
				abort();
			for (size_t i = 0; i < r.deny.n; i++)
				if (strncmp(r.deny.v[i], "Bash", 4) != 0)
					abort();
			kb_agent_rules_free(&r);
			memset(&r, 0, sizeof(r));
		}
	}
	n = kb_hook_denial_ids(s, ids, 4);
	for (size_t i = 0; i < n; i++) {
		if (strlen(ids[i]) != 20 || strncmp(ids[i], "sbx_", 4) != 0 ||
		    strstr(s, ids[i]) == NULL)
			abort();
		for (size_t k = 4; k < 20; k++)
			if (!isxdigit((unsigned char)ids[i][k]) ||
			    isupper((unsigned char)ids[i][k]))
				abort();
	}
	free(s);
	return 0;
}
