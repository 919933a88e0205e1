/*
 * gate/readonly-tools.c — see readonly-tools.h: the read-only predicates
 * of sed, find, printf, date, git branch/tag and tail.
 */
#include <stdbool.h>
#include <string.h>

#include "readonly-sed.h"
#include "readonly-tools.h"

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int
kb_ro_check_sed(const struct kb_ro_parsed *p, struct kb_err *e)
{
	struct kb_buf b = {0};
	bool have = false;
	size_t k;
	int rc;

	kb_buf_add(&b, "", 0);
	/* several -e scripts are read one after the other; joining them
	 * with newlines lets a/i/c text run on exactly as sed lets it */
	for (k = 0; k < p->nseen; k++) {
		if (!(p->seen[k].opt->flags & KB_RO_SCRIPT))
			continue;
		if (p->seen[k].vword->flags & KB_SH_W_TILDE) {
			kb_buf_free(&b);
			return kb_err_set(e, "sed script the shell may expand");
		}
		if (have)
			kb_buf_add(&b, "\n", 1);
		kb_buf_puts(&b, p->seen[k].val);
		have = true;
	}
	if (!have) {
		if (p->noperands == 0) {
			kb_buf_free(&b);
			return kb_err_set(e, "sed without a script");
		}
		if (p->operands[0]->flags & KB_SH_W_TILDE) {
			kb_buf_free(&b);
			return kb_err_set(e, "sed script the shell may expand");
		}
		kb_buf_puts(&b, p->operands[0]->s);
	}
	rc = kb_ro_sed_script(b.s, e);
	kb_buf_free(&b);
	return rc;
}

/* GNU find: leading -H -L -P -O<n>, then paths, then the expression, which
 * starts at the first word that is "-x", "(", "!", ")" or ",". Every word
 * of the expression must be known, and each takes a fixed number of words
 * (a -name pattern "-delete" is a pattern). */
static bool
find_newer_xy(const char *s)
{
	return strncmp(s, "-newer", 6) == 0 && s[6] != '\0' &&
	       strchr("aBcm", s[6]) != NULL && s[7] != '\0' &&
	       strchr("aBcmt", s[7]) != NULL && s[8] == '\0';
}

static bool
find_expr_start(const char *s)
{
	return (s[0] == '-' && s[1] != '\0') || strcmp(s, "(") == 0 ||
	       strcmp(s, "!") == 0 || strcmp(s, ")") == 0 ||
	       strcmp(s, ",") == 0;
}

int
kb_ro_check_find(const struct kb_sh_word *a, size_t n, struct kb_err *e)
{
	const struct kb_ro_find *f;
	const char *s;
	size_t i = 0, k;
	int nargs;

	while (i < n &&
	       (strcmp(a[i].s, "-H") == 0 || strcmp(a[i].s, "-L") == 0 ||
		   strcmp(a[i].s, "-P") == 0 ||
		   (strncmp(a[i].s, "-O", 2) == 0 && a[i].s[2] != '\0' &&
		       strspn(a[i].s + 2, "0123456789") == strlen(a[i].s + 2))))
		i++;
	while (i < n && !find_expr_start(a[i].s))
		i++;
	for (; i < n; i += 1 + (size_t)nargs) {
		s = a[i].s;
		for (f = NULL, k = 0; k < kb_ro_find_count; k++)
			if (strcmp(kb_ro_find_table[k].name, s) == 0) {
				f = &kb_ro_find_table[k];
				break;
			}
		if (f == NULL && find_newer_xy(s))
			nargs = 1;
		else if (f == NULL)
			return kb_err_set(e, "find %.*s: unknown predicate",
			    kb_ro_shown_len(s, strlen(s)), s);
		else if (f->deny)
			return kb_err_set(e, "find %s", f->name);
		else
			nargs = f->nargs;
		if (n - i - 1 < (size_t)nargs)
			return kb_err_set(e, "find %.*s: missing argument",
			    kb_ro_shown_len(s, strlen(s)), s);
	}
	return 0;
}

/* printf: bash's -v assigns a variable; the format's conversions must be
 * ones that only print (no %n, nothing unknown) */
int
kb_ro_check_printf(const struct kb_sh_word *a, size_t n, struct kb_err *e)
{
	const char *p, *q;
	size_t i = 0;

	if (n > 0 && strcmp(a[0].s, "--") == 0)
		i = 1;
	else if (n > 0 && a[0].s[0] == '-' && a[0].s[1] != '\0')
		return kb_err_set(e, "printf %.*s",
		    kb_ro_shown_len(a[0].s, strlen(a[0].s)), a[0].s);
	if (i == n)
		return 0;
	if (a[i].flags & KB_SH_W_TILDE)
		return kb_err_set(e, "tilde in the printf format");
	for (p = a[i].s; *p != '\0'; p++) {
		if (*p != '%')
			continue;
		if (*++p == '%')
			continue;
		while (*p != '\0' && strchr("-+ #0'", *p) != NULL)
			p++;
		if (*p == '*')
			p++;
		else
			while (is_digit(*p))
				p++;
		if (*p == '.') {
			if (*++p == '*')
				p++;
			else
				while (is_digit(*p))
					p++;
		}
		if (*p == '(') { /* bash %(strftime)T */
			if ((q = strchr(p, ')')) == NULL || q[1] != 'T')
				return kb_err_set(e, "printf format");
			p = q + 1;
			continue;
		}
		if (*p == '\0' || strchr("diouxXfFeEgGaAcsbq", *p) == NULL)
			return kb_err_set(
			    e, "printf format %%%c", kb_ro_shown(*p));
	}
	return 0;
}

/* date: one operand at most, and it must be a +FORMAT: a bare
 * [MMDDhhmm[[CC]YY][.ss]] sets the clock */
int
kb_ro_check_date(const struct kb_ro_parsed *p, struct kb_err *e)
{
	if (p->noperands == 1 && p->operands[0]->s[0] != '+')
		return kb_err_set(e, "date with a time sets the clock");
	return 0;
}

/* git branch/tag: a name creates a branch or a tag, unless an option put
 * the command in list mode, where names are patterns */
int
kb_ro_check_git_list(
    const struct kb_ro_parsed *p, const char *label, struct kb_err *e)
{
	size_t k;

	if (p->noperands == 0)
		return 0;
	for (k = 0; k < p->nseen; k++)
		if (p->seen[k].opt->flags & KB_RO_LIST)
			return 0;
	return kb_err_set(e, "%s with a name", label);
}

/* tail: the obsolete forms -N[bcl] (first argument only) are counts;
 * with an f (-5f) or a + (+5f), they follow or cannot be told apart */
int
kb_ro_check_tail(const struct kb_ro_tool *t, const struct kb_sh_word *a,
    size_t n, struct kb_ro_parsed *p, struct kb_err *e)
{
	const char *s;
	size_t k;

	if (n > 0 && a[0].s[0] == '-' && is_digit(a[0].s[1])) {
		s = a[0].s + 1;
		while (is_digit(*s))
			s++;
		if (*s == 'b' || *s == 'c' || *s == 'l')
			s++;
		if (*s == '\0') {
			a++;
			n--;
		}
	}
	if (kb_ro_parse_opts(t, "tail", a, n, p, e) == -1)
		return -1;
	for (k = 0; k < p->noperands; k++) {
		s = p->operands[k]->s;
		if (s[0] == '+')
			return kb_err_set(
			    e, "tail %.*s", kb_ro_shown_len(s, strlen(s)), s);
	}
	return 0;
}
