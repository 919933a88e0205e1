/*
 * tests/unit/udiff-apply.h — applies a unified diff as sidecar/udiff.c writes
 * it (and as patch(1) reads it) to a text, strictly: every context and
 * removed line must be there, in order, and every line of the text not in
 * a hunk is copied. For test-hookinstall.c and fuzz-hookinstall.c: the
 * diff of a and b, applied to a, must give b.
 */
#ifndef KB_UDIFF_APPLY_H
#define KB_UDIFF_APPLY_H

#include <stdlib.h>
#include <string.h>

#include "../../lib/util.h"

/* the next line of *p (with its newline) as [s, s + n); false at the end */
static bool
ua_line(const char **p, const char **s, size_t *n)
{
	const char *nl;

	if (**p == '\0')
		return false;
	*s = *p;
	nl = strchr(*p, '\n');
	*n = nl != NULL ? (size_t)(nl + 1 - *p) : strlen(*p);
	*p += *n;
	return true;
}

/* b from a and the diff; NULL when the diff does not apply */
static char *
ua_apply(const char *a, const char *diff)
{
	struct kb_buf out = {0};
	const char *ap = a, *dp = diff, *s, *ls;
	size_t n, ln, aline = 0;

	if (diff[0] == '\0')
		return xstrdup(a);
	kb_buf_add(&out, "", 0);
	/* the two header lines */
	if (!ua_line(&dp, &s, &n) || strncmp(s, "--- ", 4) != 0 ||
	    !ua_line(&dp, &s, &n) || strncmp(s, "+++ ", 4) != 0)
		goto bad;
	while (ua_line(&dp, &s, &n)) {
		unsigned long as, ac, bs, bc;

		if (sscanf(s, "@@ -%lu,%lu +%lu,%lu @@", &as, &ac, &bs, &bc) !=
		    4)
			goto bad;
		/* copy the lines before the hunk */
		for (size_t to = ac > 0 ? as - 1 : as; aline < to; aline++) {
			if (!ua_line(&ap, &ls, &ln))
				goto bad;
			kb_buf_add(&out, ls, ln);
		}
		while (ac > 0 || bc > 0) {
			const char *body;
			size_t bn;
			bool last_no_nl = false;

			if (!ua_line(&dp, &s, &n))
				goto bad;
			body = s + 1;
			bn = n - 1;
			/* "\ No newline at end of file" follows the line */
			if (strncmp(dp, "\\ No newline at end of file\n", 28) ==
			    0) {
				dp += 28;
				last_no_nl = true;
				if (bn > 0 && body[bn - 1] == '\n')
					bn--;
			}
			if (s[0] == ' ' || s[0] == '-') {
				if (!ua_line(&ap, &ls, &ln) || ln != bn ||
				    memcmp(ls, body, bn) != 0)
					goto bad;
				aline++;
				ac--;
			}
			if (s[0] == ' ' || s[0] == '+') {
				kb_buf_add(&out, body, bn);
				bc--;
			}
			if (s[0] != ' ' && s[0] != '-' && s[0] != '+')
				goto bad;
			(void)last_no_nl;
		}
	}
	while (ua_line(&ap, &ls, &ln))
		kb_buf_add(&out, ls, ln);
	return out.s;
bad:
	kb_buf_free(&out);
	return NULL;
}

#endif
