/*
 * tests/fuzz/fuzz-hook.c — libFuzzer target: the pure half of kinpolicy
 * hook (gate/hook.c) on arbitrary bytes. Besides "no crash, no leak", it
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

#include "../../gate/hook.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char K[] = "/usr/bin/kinbox";
static const char R[] = "/w s";

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *w, *back, *tail, *in;
	char ids[4][24];
	size_t n;

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
	w = kb_hook_wrap(K, R, s);
	back = kb_hook_unwrap(K, R, w);
	if (back != NULL && strcmp(back, s) != 0)
		abort();
	tail = xasprintf("%s; rm -rf x", w);
	free(back);
	if ((back = kb_hook_unwrap(K, R, tail)) != NULL)
		abort();
	if ((in = kb_hook_unwrap(K, R, s)) != NULL) {
		char *again = kb_hook_wrap(K, R, in);

		if (strcmp(again, s) != 0)
			abort();
		free(again);
		free(in);
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
	free(tail);
	free(w);
	free(s);
	return 0;
}
