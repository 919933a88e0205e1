/*
 * classify/readonly-tools.c — see readonly-tools.h: the read-only predicates
 * of sed, find, printf, test, command, hash, date, git branch/tag, tail,
 * tar, unzip and 7z.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
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

/* words whose value the line does not fix, or that a shell may make
 * several of */
#define UNKNOWN (KB_SH_W_GLOB | KB_SH_W_XGLOB | KB_SH_W_OPAQUE)

/*
 * The arguments a printf format takes, in order, into `slots`: 'n' for a
 * number (d i o u x X f F e E g G a A, a * width or precision, bash's
 * %(...)T), 's' for a string (s b c q). Only conversions that print are
 * known: %n and anything else are refused.
 */
static int
printf_slots(const char *f, struct kb_buf *slots, struct kb_err *e)
{
	const char *p, *q;

	for (p = f; *p != '\0'; p++) {
		if (*p != '%')
			continue;
		if (*++p == '%')
			continue;
		while (*p != '\0' && strchr("-+ #0'", *p) != NULL)
			p++;
		if (*p == '*') {
			kb_buf_add(slots, "n", 1);
			p++;
		} else
			while (is_digit(*p))
				p++;
		if (*p == '.') {
			if (*++p == '*') {
				kb_buf_add(slots, "n", 1);
				p++;
			} else
				while (is_digit(*p))
					p++;
		}
		if (*p == '(') { /* bash %(strftime)T */
			if ((q = strchr(p, ')')) == NULL || q[1] != 'T')
				return kb_err_set(e, "printf format");
			kb_buf_add(slots, "n", 1);
			p = q + 1;
			continue;
		}
		if (*p == '\0' || strchr("diouxXfFeEgGaAcsbq", *p) == NULL)
			return kb_err_set(
			    e, "printf format %%%c", kb_ro_shown(*p));
		kb_buf_add(slots, strchr("csbq", *p) != NULL ? "s" : "n", 1);
	}
	return 0;
}

/* a number zsh's printf reads as one: decimal, 0x hexadecimal, a float,
 * or 'c ("c), the code of a character; empty is 0 */
static bool
plain_number(const char *s)
{
	size_t k;

	if (s[0] == '\'' || s[0] == '"')
		return true;
	if (*s == '+' || *s == '-')
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return s[2] != '\0' &&
		       strspn(s + 2, "0123456789abcdefABCDEF") == strlen(s + 2);
	k = strspn(s, "0123456789");
	if (s[k] == '.')
		k += 1 + strspn(s + k + 1, "0123456789");
	if (k > 0 && (s[k] == 'e' || s[k] == 'E')) {
		k++;
		if (s[k] == '+' || s[k] == '-')
			k++;
		if (!is_digit(s[k]))
			return false;
		k += strspn(s + k, "0123456789");
	}
	return s[k] == '\0';
}

/*
 * printf: bash's and zsh's -v assigns a variable; the format's
 * conversions must be ones that only print (no %n, nothing unknown). zsh
 * evaluates each argument a numeric conversion takes as arithmetic, where
 * a subscript of one of its special hashes (options[$(cmd)]) runs cmd:
 * under KB_SH_ZSH those arguments must be plain numbers, and an unquoted
 * expansion, which could shift them, is refused. bash and dash read
 * numbers without evaluating them (bash 5.2, dash 0.5.12).
 */
int
kb_ro_check_printf(
    const struct kb_sh_word *a, size_t n, unsigned dialect, struct kb_err *e)
{
	struct kb_buf slots = {0};
	size_t i = 0, k;
	int rc = 0;

	for (k = 0; k < n; k++)
		if (a[k].flags & (KB_SH_W_GLOB | KB_SH_W_XGLOB))
			return kb_err_set(e, "glob in the arguments of printf");
	if (n > 0 && strcmp(a[0].s, "--") == 0)
		i = 1;
	else if (n > 0 && a[0].s[0] == '-' && a[0].s[1] != '\0')
		return kb_err_set(e, "printf %.*s",
		    kb_ro_shown_len(a[0].s, strlen(a[0].s)), a[0].s);
	if (i == n)
		return 0;
	if (a[i].flags & KB_SH_W_OPAQUE)
		return kb_err_set(e, "printf format from an expansion: it "
				     "could be -v or %%n");
	if (a[i].flags & KB_SH_W_TILDE)
		return kb_err_set(e, "tilde in the printf format");
	kb_buf_add(&slots, "", 0);
	if (printf_slots(a[i].s, &slots, e) == -1) {
		kb_buf_free(&slots);
		return -1;
	}
	if (!(dialect & KB_SH_ZSH) || strchr(slots.s, 'n') == NULL)
		goto out;
	for (k = i + 1; k < n && rc == 0; k++) {
		if (a[k].flags & KB_SH_W_SPLIT)
			rc = kb_err_set(e, "printf: an unquoted expansion "
					   "among numeric arguments, which "
					   "zsh evaluates as arithmetic");
		else if (slots.s[(k - i - 1) % slots.len] == 'n' &&
			 ((a[k].flags & KB_SH_W_OPAQUE) ||
			     !plain_number(a[k].s)))
			rc = kb_err_set(e,
			    "printf: zsh evaluates the argument of a numeric "
			    "conversion as arithmetic (%.*s)",
			    kb_ro_shown_len(a[k].s, strlen(a[k].s)), a[k].s);
	}
out:
	kb_buf_free(&slots);
	return rc;
}

static bool
is_int(const struct kb_sh_word *w)
{
	const char *s = w->s;

	if (w->flags & UNKNOWN)
		return false;
	if (*s == '+' || *s == '-')
		s++;
	return *s != '\0' && strspn(s, "0123456789") == strlen(s);
}

static bool
numeric_op(const char *s)
{
	static const char *const ops[] = {
	    "-eq", "-ne", "-lt", "-le", "-gt", "-ge"};
	size_t k;

	for (k = 0; k < nitems(ops); k++)
		if (strcmp(s, ops[k]) == 0)
			return true;
	return false;
}

/*
 * test and [. bash's -v (and -R) and zsh's -v evaluate a subscript of the
 * variable they name as arithmetic, and zsh's -t its descriptor: a
 * subscript of one of zsh's special hashes, or any array subscript in
 * bash, runs the $( ) inside it (test -v 'a[$(cmd)]'). Refused: -v and -R,
 * -t before anything but a literal number, and numeric comparisons of
 * anything but literal numbers (bash's [[ and ksh evaluate their operands;
 * bash 5.2's and zsh 5.9's test do not, but the line may meet either).
 * A word of unknown value could be any of those operators: it is allowed
 * only where none of them could reach a word the line does not fix, that
 * is whole (quoted, so not split into several) and not next to another
 * such word or to a literal holding a [. Globs could expand to -v.
 */
int
kb_ro_check_test(
    const struct kb_sh_word *a, size_t n, bool bracket, struct kb_err *e)
{
	const struct kb_sh_word *w;
	size_t k;

	if (bracket && n > 0 && a[n - 1].flags == 0 &&
	    strcmp(a[n - 1].s, "]") == 0)
		n--;
	for (k = 0; k < n; k++) {
		w = &a[k];
		if (w->flags & (KB_SH_W_GLOB | KB_SH_W_XGLOB | KB_SH_W_SPLIT))
			return kb_err_set(e,
			    "glob or unquoted expansion in the arguments of "
			    "test: it could become several words, -v among "
			    "them");
		if (w->flags & KB_SH_W_OPAQUE) {
			if ((k > 0 && (a[k - 1].flags & KB_SH_W_OPAQUE)) ||
			    (k + 1 < n && ((a[k + 1].flags & KB_SH_W_OPAQUE) ||
					      strchr(a[k + 1].s, '[') != NULL)))
				return kb_err_set(e,
				    "test: an expansion next to a word it "
				    "could make an operand of -v or -t");
			continue;
		}
		if (strcmp(w->s, "-v") == 0 || strcmp(w->s, "-R") == 0)
			return kb_err_set(e,
			    "test %s evaluates a variable's subscript as "
			    "arithmetic (bash, zsh), which can run commands",
			    w->s);
		if (strcmp(w->s, "-t") == 0 && k + 1 < n && !is_int(&a[k + 1]))
			return kb_err_set(e, "test -t: zsh evaluates the "
					     "descriptor as arithmetic; give a "
					     "number");
		if (numeric_op(w->s) && ((k > 0 && !is_int(&a[k - 1])) ||
					    (k + 1 < n && !is_int(&a[k + 1]))))
			return kb_err_set(e,
			    "test %s: its operands must be literal numbers "
			    "(bash's [[ and ksh evaluate them as arithmetic)",
			    w->s);
	}
	return 0;
}

/* command -v and -V (with -p) describe the names after them and run
 * nothing; any other form runs its first operand */
int
kb_ro_check_command(const struct kb_sh_word *a, size_t n, struct kb_err *e)
{
	bool v = false;
	size_t k;

	for (k = 0; k < n && !v; k++) {
		if (a[k].flags & (UNKNOWN | KB_SH_W_SPLIT))
			return kb_err_set(e, "command: an expansion before -v");
		if (strcmp(a[k].s, "--") == 0 || a[k].s[0] != '-' ||
		    a[k].s[1] == '\0')
			break;
		if (strspn(a[k].s + 1, "pvV") != strlen(a[k].s + 1))
			return kb_err_set(e, "command %.*s",
			    kb_ro_shown_len(a[k].s, strlen(a[k].s)), a[k].s);
		v = strpbrk(a[k].s + 1, "vV") != NULL;
	}
	if (!v)
		return kb_err_set(
		    e, "command without -v or -V runs the command");
	return 0;
}

/* hash alone lists the remembered paths, hash -t NAME prints them (bash);
 * other forms change what later commands run (hash -p PATH NAME) */
int
kb_ro_check_hash(const struct kb_sh_word *a, size_t n, struct kb_err *e)
{
	size_t k;

	if (n == 0)
		return 0;
	if (n == 1 || a[0].flags != 0 || strcmp(a[0].s, "-t") != 0)
		return kb_err_set(e, "hash: only its listing and hash -t NAME "
				     "leave the table alone");
	for (k = 1; k < n; k++)
		if ((a[k].flags & (UNKNOWN | KB_SH_W_SPLIT)) ||
		    a[k].s[0] == '-')
			return kb_err_set(e, "hash -t: an option or an "
					     "expansion among the names");
	return 0;
}

/* parses the n words into a fresh p; the caller frees p->operands and
 * p->seen */
static int
parse(const struct kb_ro_tool *t, const char *label, const struct kb_sh_word *a,
    size_t n, struct kb_ro_parsed *p, struct kb_err *e)
{
	memset(p, 0, sizeof(*p));
	p->operands = xcalloc(n + 1, sizeof(*p->operands));
	return kb_ro_parse_opts(t, label, a, n, p, e);
}

static void
parsed_free(struct kb_ro_parsed *p)
{
	free(p->operands);
	free(p->seen);
}

int
kb_ro_check_mode(const struct kb_ro_tool *t, const struct kb_ro_parsed *p,
    const char *label, struct kb_err *e)
{
	const struct kb_ro_opt *o;
	size_t k;

	for (k = 0; k < p->nseen; k++)
		if (p->seen[k].opt->flags & KB_RO_MODE)
			return 0;
	for (o = t->opts; o->sname != 0 || o->lname != NULL; o++)
		if (o->flags & KB_RO_MODE)
			break;
	if (o->sname != 0)
		return kb_err_set(e, "%s without -%c: its other forms write",
		    label, o->sname);
	return kb_err_set(e, "%s without --%s: its other forms write", label,
	    o->lname != NULL ? o->lname : "?");
}

/*
 * tar: GNU tar reads a first word without a dash as old-style options,
 * each letter taking the next unused word when it takes a value (`tar
 * cfb ARCHIVE 20`): rewritten here as -c -f ARCHIVE -b 20 before the
 * table is read. -t must be given; an archive named HOST:FILE (a colon
 * with no / before it) is read through rsh unless --force-local.
 */
int
kb_ro_check_tar(const struct kb_ro_tool *t, const struct kb_sh_word *a,
    size_t n, struct kb_err *e)
{
	struct kb_ro_parsed p;
	struct kb_sh_word *w;
	const struct kb_ro_opt *o;
	const char *c, *val;
	char *letters = NULL;
	size_t k, nw = 0, next = 0;
	bool local = false;
	int rc = -1;

	w = xcalloc(n + (n > 0 ? strlen(a[0].s) : 0) + 1, sizeof(*w));
	if (n > 0 && a[0].s[0] != '-') {
		letters = xmalloc(3 * strlen(a[0].s) + 1);
		next = 1;
		for (c = a[0].s; *c != '\0'; c++) {
			if (!isalnum((unsigned char)*c)) {
				kb_err_set(e,
				    "tar %.*s: old-style options are "
				    "letters",
				    kb_ro_shown_len(a[0].s, strlen(a[0].s)),
				    a[0].s);
				free(w);
				free(letters);
				return -1;
			}
			w[nw].s = letters + 3 * (size_t)(c - a[0].s);
			w[nw].s[0] = '-';
			w[nw].s[1] = *c;
			w[nw].s[2] = '\0';
			nw++;
			for (o = t->opts; o->sname != 0 || o->lname != NULL;
			     o++)
				if (o->sname == *c)
					break;
			if (o->sname == *c && o->arg == KB_RO_REQARG &&
			    next < n)
				w[nw++] = a[next++];
		}
	}
	for (k = next; k < n; k++)
		w[nw++] = a[k];
	if (parse(t, "tar", w, nw, &p, e) == -1 ||
	    kb_ro_check_mode(t, &p, "tar", e) == -1)
		goto out;
	for (k = 0; k < p.nseen; k++)
		if (p.seen[k].opt->lname != NULL &&
		    strcmp(p.seen[k].opt->lname, "force-local") == 0)
			local = true;
	for (k = 0; k < p.nseen && !local; k++) {
		val = p.seen[k].val;
		if ((p.seen[k].opt->flags & KB_RO_ARCHIVE) && val != NULL &&
		    (c = strchr(val, ':')) != NULL &&
		    memchr(val, '/', (size_t)(c - val)) == NULL) {
			kb_err_set(e,
			    "tar -f %.*s: HOST:FILE is read through rsh (add "
			    "--force-local for a file)",
			    kb_ro_shown_len(val, strlen(val)), val);
			goto out;
		}
	}
	rc = 0;
out:
	parsed_free(&p);
	free(w);
	free(letters);
	return rc;
}

/* unzip: a listing mode required; -Z first makes it zipinfo */
int
kb_ro_check_unzip(const struct kb_ro_tool *t, const struct kb_sh_word *a,
    size_t n, struct kb_err *e)
{
	const struct kb_ro_tool *zi = NULL;
	struct kb_ro_parsed p;
	size_t k;
	int rc;

	if (n > 0 && a[0].flags == 0 && strcmp(a[0].s, "-Z") == 0) {
		for (k = 0; k < kb_ro_tool_count; k++)
			if (strcmp(kb_ro_tool_table[k].name, "zipinfo") == 0)
				zi = &kb_ro_tool_table[k];
		if (zi == NULL)
			return kb_err_set(e, "unzip -Z");
		rc = parse(zi, "unzip -Z", a + 1, n - 1, &p, e);
	} else {
		rc = parse(t, "unzip", a, n, &p, e);
		if (rc == 0)
			rc = kb_ro_check_mode(t, &p, "unzip", e);
	}
	parsed_free(&p);
	return rc;
}

/* 7z: the switches that choose what to list or test and how to print it;
 * any other (-o, -so, -sdel, -w, -ao ...) is refused. Case matters. */
static bool
switch_7z(const char *s)
{
	static const char *const exact[] = {
	    "-slt", "-ba", "-bd", "-r", "-r-", "-r0", "-y", "-an"};
	static const char *const prefix[] = {
	    "-t", "-scs", "-scc", "-bb", "-bs", "-p", "-i", "-x", "-ai", "-ax"};
	size_t k;

	for (k = 0; k < nitems(exact); k++)
		if (strcmp(s, exact[k]) == 0)
			return true;
	for (k = 0; k < nitems(prefix); k++)
		if (strncmp(s, prefix[k], strlen(prefix[k])) == 0)
			return true;
	return false;
}

/* 7z l (list) and t (test) read the archive; a, d, e, u, x and the rest
 * write */
int
kb_ro_check_7z(const struct kb_sh_word *a, size_t n, struct kb_err *e)
{
	size_t k;

	if (n == 0 || (strcmp(a[0].s, "l") != 0 && strcmp(a[0].s, "t") != 0))
		return kb_err_set(e, "7z: only l (list) and t (test) read");
	for (k = 1; k < n && strcmp(a[k].s, "--") != 0; k++)
		if (a[k].s[0] == '-' && !switch_7z(a[k].s))
			return kb_err_set(e, "7z %.*s",
			    kb_ro_shown_len(a[k].s, strlen(a[k].s)), a[k].s);
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
