/*
 * sidecar/udiff.c — a unified diff of two texts (see udiff.h). The common
 * first and last lines are taken off, Myers' greedy O(ND) algorithm finds
 * a shortest edit script for the middle (keeping, for every D, the
 * furthest-reaching points of the diagonals that D could reach, to walk
 * back from the end), and the script is cut into hunks with 3 lines of
 * context, as diff -u does.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/util.h"
#include "udiff.h"

#define CONTEXT 3

struct line {
	const char *s;
	size_t n; /* with its newline, when it has one */
};

enum op {
	OP_SAME,
	OP_DEL,
	OP_ADD
};

static size_t
split(const char *t, struct line **out)
{
	size_t n = 0, i = 0;
	const char *p;

	for (p = t; *p != '\0'; n++) {
		const char *nl = strchr(p, '\n');

		p = nl != NULL ? nl + 1 : p + strlen(p);
	}
	*out = xreallocarray(NULL, n + 1, sizeof(**out));
	for (p = t; *p != '\0'; i++) {
		const char *nl = strchr(p, '\n');
		size_t len = nl != NULL ? (size_t)(nl + 1 - p) : strlen(p);

		(*out)[i].s = p;
		(*out)[i].n = len;
		p += len;
	}
	return n;
}

static bool
same(const struct line *x, const struct line *y)
{
	return x->n == y->n && memcmp(x->s, y->s, x->n) == 0;
}

/*
 * The shortest edit script of a[0..n) into b[0..m), appended to ops
 * (which has room for n + m more); -1 when it needs more than
 * KB_UDIFF_MAX_EDITS edits.
 */
static int
myers(const struct line *a, long n, const struct line *b, long m, enum op *ops,
    size_t *nops)
{
	long dmax = n + m < KB_UDIFF_MAX_EDITS ? n + m : KB_UDIFF_MAX_EDITS;
	long off = dmax + 1, found = -1, x, y;
	long *v = xcalloc((size_t)(2 * off + 1), sizeof(long));
	long **trace = xcalloc((size_t)dmax + 1, sizeof(long *));
	size_t k0 = *nops, len;

	for (long d = 0; d <= dmax && found < 0; d++) {
		/* v before this round, diagonals -d-1..d+1, for the walk back
		 */
		long *t =
		    xreallocarray(NULL, (size_t)(2 * d + 3), sizeof(long));

		for (long k = -d - 1; k <= d + 1; k++)
			t[k + d + 1] = v[k + off];
		trace[d] = t;
		for (long k = -d; k <= d; k += 2) {
			if (k == -d ||
			    (k != d && v[k - 1 + off] < v[k + 1 + off]))
				x = v[k + 1 + off]; /* down: an insertion */
			else
				x = v[k - 1 + off] + 1; /* right: a deletion */
			y = x - k;
			while (x < n && y < m && same(&a[x], &b[y])) {
				x++;
				y++;
			}
			v[k + off] = x;
			if (x >= n && y >= m) {
				found = d;
				break;
			}
		}
	}
	if (found >= 0) {
		/* walk back from (n, m), collecting the script in reverse */
		x = n;
		y = m;
		for (long d = found; d >= 0; d--) {
			long *t = trace[d], k = x - y, pk, px, py;

			if (k == -d ||
			    (k != d && t[k - 1 + d + 1] < t[k + 1 + d + 1]))
				pk = k + 1;
			else
				pk = k - 1;
			px = d == 0 ? 0 : t[pk + d + 1];
			py = px - pk;
			if (d == 0)
				py = 0;
			while (x > px && y > py) {
				ops[(*nops)++] = OP_SAME;
				x--;
				y--;
			}
			if (d > 0)
				ops[(*nops)++] = x == px ? OP_ADD : OP_DEL;
			x = px;
			y = py;
		}
		len = *nops - k0;
		for (size_t i = 0; i < len / 2; i++) {
			enum op tmp = ops[k0 + i];

			ops[k0 + i] = ops[k0 + len - 1 - i];
			ops[k0 + len - 1 - i] = tmp;
		}
	}
	for (long d = 0; d <= dmax; d++)
		free(trace[d]);
	free(trace);
	free(v);
	return found >= 0 ? 0 : -1;
}

static void
put_line(struct kb_buf *out, char mark, const struct line *l)
{
	kb_buf_add(out, &mark, 1);
	kb_buf_add(out, l->s, l->n);
	if (l->n == 0 || l->s[l->n - 1] != '\n')
		kb_buf_puts(out, "\n\\ No newline at end of file\n");
}

char *
kb_udiff(const char *a_name, const char *a, const char *b_name, const char *b)
{
	struct line *la, *lb;
	size_t n = split(a, &la), m = split(b, &lb), pre = 0, suf = 0;
	size_t nops = 0, i = 0, *apos, *bpos;
	enum op *ops;
	struct kb_buf out = {0};

	kb_buf_add(&out, "", 0);
	while (pre < n && pre < m && same(&la[pre], &lb[pre]))
		pre++;
	while (suf < n - pre && suf < m - pre &&
	       same(&la[n - 1 - suf], &lb[m - 1 - suf]))
		suf++;
	ops = xreallocarray(NULL, n + m + 1, sizeof(*ops));
	for (size_t k = 0; k < pre; k++)
		ops[nops++] = OP_SAME;
	if (myers(la + pre, (long)(n - pre - suf), lb + pre,
		(long)(m - pre - suf), ops, &nops) == -1) {
		/* too different: the whole middle out, the new one in */
		for (size_t k = pre; k < n - suf; k++)
			ops[nops++] = OP_DEL;
		for (size_t k = pre; k < m - suf; k++)
			ops[nops++] = OP_ADD;
	}
	for (size_t k = 0; k < suf; k++)
		ops[nops++] = OP_SAME;
	/* the lines of a and b before each op */
	apos = xreallocarray(NULL, nops + 1, sizeof(*apos));
	bpos = xreallocarray(NULL, nops + 1, sizeof(*bpos));
	apos[0] = bpos[0] = 0;
	for (size_t k = 0; k < nops; k++) {
		apos[k + 1] = apos[k] + (ops[k] != OP_ADD);
		bpos[k + 1] = bpos[k] + (ops[k] != OP_DEL);
	}
	if (pre < n || pre < m) {
		kb_buf_printf(&out, "--- %s\n+++ %s\n", a_name, b_name);
	}
	while (pre < n || pre < m) {
		size_t c = i, start, e, na = 0, nb = 0;

		while (c < nops && ops[c] == OP_SAME)
			c++;
		if (c == nops)
			break;
		start = c >= i + CONTEXT ? c - CONTEXT : i;
		e = c;
		for (;;) {
			size_t r = 0;

			while (e < nops && ops[e] != OP_SAME)
				e++;
			while (e + r < nops && ops[e + r] == OP_SAME)
				r++;
			if (e + r < nops && r <= 2 * CONTEXT) {
				e += r; /* the next change is near: one hunk */
				continue;
			}
			e += r < CONTEXT ? r : CONTEXT;
			break;
		}
		for (size_t k = start; k < e; k++) {
			na += ops[k] != OP_ADD;
			nb += ops[k] != OP_DEL;
		}
		kb_buf_printf(&out, "@@ -%zu,%zu +%zu,%zu @@\n",
		    apos[start] + (na > 0), na, bpos[start] + (nb > 0), nb);
		for (size_t k = start; k < e; k++) {
			switch (ops[k]) {
			case OP_SAME:
				put_line(&out, ' ', &la[apos[k]]);
				break;
			case OP_DEL:
				put_line(&out, '-', &la[apos[k]]);
				break;
			case OP_ADD:
				put_line(&out, '+', &lb[bpos[k]]);
				break;
			}
		}
		i = e;
	}
	free(apos);
	free(bpos);
	free(ops);
	free(la);
	free(lb);
	return out.s;
}
