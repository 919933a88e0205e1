/*
 * tests/fuzz/fuzz-shlex.c — libFuzzer target: the shell lexer
 * (classify/shlex.c) and the read-only classifier (classify/readonly.c)
 * on arbitrary bytes: NULs, invalid UTF-8, unbalanced quotes, endless
 * here-documents. Besides "no crash, no leak, no hang" it checks what the
 * callers rely on, and aborts when it does not hold:
 *   - an unsafe verdict has a reason, in valid UTF-8, and the exact input
 *     as signature;
 *   - a safe verdict never comes from input holding a NUL byte;
 *   - a safe line followed by "\nrm -rf x" is unsafe (nothing after a
 *     safe line is swallowed as a comment, quote or here-document);
 *   - a rewritten line comes only with an unsafe verdict, is the input
 *     with text inserted (every input byte kept, in order), and is safe;
 *   - a line safe without --shell (any) is safe for sh, bash and zsh.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../classify/readonly.h"
#include "../../classify/shlex.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char tail[] = "\nrm -rf x";

static bool
valid_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int n;

	while (*p != 0) {
		if (*p < 0x80)
			n = 0;
		else if (*p >= 0xc2 && *p <= 0xdf)
			n = 1;
		else if (*p >= 0xe0 && *p <= 0xef)
			n = 2;
		else if (*p >= 0xf0 && *p <= 0xf4)
			n = 3;
		else
			return false;
		for (p++; n > 0; n--, p++)
			if ((*p & 0xc0) != 0x80)
				return false;
	}
	return true;
}

/* the n bytes at s appear in r in order (r is s with insertions) */
static bool
subsequence(const char *s, size_t n, const char *r)
{
	size_t i = 0;

	for (; *r != '\0' && i < n; r++)
		if (*r == s[i])
			i++;
	return i == n;
}

static void
check_rewrite(const char *s, size_t n, const struct kb_ro_verdict *v)
{
	struct kb_ro_verdict w;

	if (v->rewritten == NULL)
		return;
	if (v->safe || !subsequence(s, n, v->rewritten))
		abort();
	if (kb_readonly_classify(v->rewritten, strlen(v->rewritten), &w) != 0)
		abort();
	if (!w.safe || w.rewritten != NULL)
		abort();
	kb_ro_verdict_free(&w);
}

static void
check_verdict(const char *s, size_t n, const struct kb_ro_verdict *v)
{
	size_t i, j;

	if (v->signature == NULL)
		abort();
	check_rewrite(s, n, v);
	if (v->safe) {
		if (v->reason[0] != '\0' || memchr(s, '\0', n) != NULL)
			abort();
		return;
	}
	if (v->reason[0] == '\0' || !valid_utf8(v->reason))
		abort();
	for (i = j = 0; i < n; i++) {
		if (s[i] == '\0') {
			if ((unsigned char)v->signature[j] != 0xc0 ||
			    (unsigned char)v->signature[j + 1] != 0x80)
				abort();
			j += 2;
		} else if (v->signature[j++] != s[i])
			abort();
	}
	if (v->signature[j] != '\0')
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct kb_sh_line l;
	struct kb_err e;
	struct kb_ro_verdict v;
	char *more;

	memset(&l, 0, sizeof(l));
	memset(&e, 0, sizeof(e));
	if (kb_shlex_parse(s, size, 0, &l, &e) == -1 && e.msg[0] == '\0')
		abort();
	kb_shlex_free(&l);

	if (kb_readonly_classify(s, size, &v) != 0)
		abort();
	check_verdict(s, size, &v);
	for (int sh = KB_RO_SHELL_SH; v.safe && sh <= KB_RO_SHELL_ZSH; sh++) {
		struct kb_ro_verdict w;

		if (kb_readonly_classify_as(
			s, size, (enum kb_ro_shell)sh, &w) != 0)
			abort();
		check_verdict(s, size, &w);
		if (!w.safe)
			abort();
		kb_ro_verdict_free(&w);
	}
	if (v.safe && size + sizeof(tail) <= KB_SH_MAX_INPUT) {
		struct kb_ro_verdict w;

		more = malloc(size + sizeof(tail));
		if (more == NULL)
			abort();
		memcpy(more, s, size);
		memcpy(more + size, tail, sizeof(tail) - 1);
		if (kb_readonly_classify(more, size + sizeof(tail) - 1, &w) !=
		    0)
			abort();
		check_verdict(more, size + sizeof(tail) - 1, &w);
		if (w.safe)
			abort();
		kb_ro_verdict_free(&w);
		free(more);
	}
	kb_ro_verdict_free(&v);
	return 0;
}
