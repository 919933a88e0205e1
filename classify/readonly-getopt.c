/*
 * classify/readonly-getopt.c — see readonly-getopt.h: a command's options read
 * the way GNU getopt_long (and git's parse-options) read them, against
 * the tool's table.
 */
#include <string.h>

#include "readonly-getopt.h"

char
kb_ro_shown(char c)
{
	return c > ' ' && c < 0x7f ? c : '?';
}

int
kb_ro_shown_len(const char *s, size_t n)
{
	if (n > KB_RO_SHOWN) {
		n = KB_RO_SHOWN;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	return (int)n;
}

static bool
at_end(const struct kb_ro_opt *o)
{
	return o->sname == 0 && o->lname == NULL;
}

static const struct kb_ro_opt *
opt_short(const struct kb_ro_opt *t, char c)
{
	for (; t != NULL && !at_end(t); t++)
		if (t->sname == c)
			return t;
	return NULL;
}

static const struct kb_ro_opt *
opt_long(const struct kb_ro_opt *t, const char *name, size_t n)
{
	for (; t != NULL && !at_end(t); t++)
		if (t->lname != NULL && strlen(t->lname) == n &&
		    memcmp(t->lname, name, n) == 0)
			return t;
	return NULL;
}

/* getopt_long and git's parse-options accept any unambiguous prefix of a
 * long option: `sort --out=x` is `sort --output=x`. An option whose value
 * is checked is refused abbreviated too. */
static bool
opt_long_denied(const struct kb_ro_opt *t, const char *name, size_t n)
{
	for (; t != NULL && !at_end(t); t++)
		if ((t->flags & (KB_RO_DENY | KB_RO_SUBMOD)) &&
		    t->lname != NULL && strncmp(t->lname, name, n) == 0)
			return true;
	return false;
}

/* git --submodule[=log|short]: "diff" runs `git diff` in the submodule,
 * with its own configuration and without our --no-ext-diff */
static int
check_submod(const struct kb_ro_opt *o, const char *eq, const char *label,
    struct kb_err *e)
{
	if (!(o->flags & KB_RO_SUBMOD) || eq == NULL ||
	    strcmp(eq, "=log") == 0 || strcmp(eq, "=short") == 0)
		return 0;
	return kb_err_set(e,
	    "%s --submodule%.*s runs the submodule's own "
	    "diff programs",
	    label, kb_ro_shown_len(eq, strlen(eq)), eq);
}

static void
see(struct kb_ro_parsed *p, const struct kb_ro_opt *o, const char *val,
    const struct kb_sh_word *vword)
{
	if (p->nseen == p->seencap) {
		p->seencap = p->seencap ? p->seencap * 2 : 8;
		p->seen = xreallocarray(p->seen, p->seencap, sizeof(*p->seen));
	}
	p->seen[p->nseen].opt = o;
	p->seen[p->nseen].val = val;
	p->seen[p->nseen].vword = vword;
	p->nseen++;
}

static int
parse_long(const struct kb_ro_tool *t, const char *label,
    const struct kb_sh_word *a, size_t n, size_t *i, struct kb_ro_parsed *p,
    struct kb_err *e)
{
	const char *name = a[*i].s + 2, *eq = strchr(name, '='), *val = NULL;
	size_t nl = eq != NULL ? (size_t)(eq - name) : strlen(name);
	const struct kb_ro_opt *o = opt_long(t->opts, name, nl);
	const struct kb_sh_word *vw = &a[*i];

	if (t->mode == KB_RO_DENYLIST) {
		if (o != NULL && !(o->flags & KB_RO_DENY))
			return check_submod(o, eq, label, e);
		if (nl == 0 || opt_long_denied(t->opts, name, nl))
			return kb_err_set(e, "%s --%.*s", label,
			    kb_ro_shown_len(name, nl), name);
		return 0;
	}
	if (o == NULL)
		return kb_err_set(e, "%s --%.*s: unknown option", label,
		    kb_ro_shown_len(name, nl), name);
	if (o->flags & KB_RO_DENY)
		return kb_err_set(e, "%s --%s", label, o->lname);
	if (check_submod(o, eq, label, e) == -1)
		return -1;
	switch (o->arg) {
	case KB_RO_NOARG:
		if (eq != NULL)
			return kb_err_set(
			    e, "%s --%s: unexpected value", label, o->lname);
		break;
	case KB_RO_REQARG:
		if (eq != NULL)
			val = eq + 1;
		else if (*i + 1 < n) {
			vw = &a[++*i];
			val = vw->s;
		} else
			return kb_err_set(
			    e, "%s --%s: missing value", label, o->lname);
		break;
	case KB_RO_OPTARG:
		if (eq != NULL)
			val = eq + 1;
		break;
	case KB_RO_LASTARG:
		/* git takes the next word even when it starts with -; we
		 * then check it as an option, which can only refuse more */
		if (eq != NULL)
			val = eq + 1;
		else if (*i + 1 < n && a[*i + 1].s[0] != '-') {
			vw = &a[++*i];
			val = vw->s;
		}
		break;
	}
	see(p, o, val, vw);
	return 0;
}

static int
parse_short(const struct kb_ro_tool *t, const char *label,
    const struct kb_sh_word *a, size_t n, size_t *i, struct kb_ro_parsed *p,
    struct kb_err *e)
{
	const char *s = a[*i].s, *val;
	const struct kb_sh_word *vw;
	const struct kb_ro_opt *o;
	size_t j;

	for (j = 1; s[j] != '\0'; j++) {
		o = opt_short(t->opts, s[j]);
		if (t->mode == KB_RO_DENYLIST) {
			/* values are not told apart from flags: a denied
			 * letter anywhere in the cluster refuses */
			if (o != NULL && (o->flags & KB_RO_DENY))
				return kb_err_set(
				    e, "%s -%c", label, kb_ro_shown(s[j]));
			continue;
		}
		if (o == NULL)
			return kb_err_set(e, "%s -%c: unknown option", label,
			    kb_ro_shown(s[j]));
		if (o->flags & KB_RO_DENY)
			return kb_err_set(
			    e, "%s -%c", label, kb_ro_shown(s[j]));
		val = NULL;
		vw = &a[*i];
		switch (o->arg) {
		case KB_RO_NOARG:
			see(p, o, NULL, vw);
			continue;
		case KB_RO_REQARG:
			if (s[j + 1] != '\0') {
				if (t->flags & KB_RO_T_STRICT)
					return kb_err_set(e,
					    "%s -%c: attached value", label,
					    kb_ro_shown(s[j]));
				val = s + j + 1;
			} else if (*i + 1 < n) {
				vw = &a[++*i];
				val = vw->s;
			} else
				return kb_err_set(e, "%s -%c: missing value",
				    label, kb_ro_shown(s[j]));
			break;
		case KB_RO_OPTARG:
		case KB_RO_LASTARG:
			if (s[j + 1] != '\0')
				val = s + j + 1;
			break;
		}
		see(p, o, val, vw);
		return 0;
	}
	return 0;
}

/*
 * Splits arguments into options and operands the way GNU getopt_long
 * does (options may follow operands; "--" ends them; "-" is an operand).
 * KB_RO_T_OPTS_FIRST refuses options after an operand: with
 * POSIXLY_CORRECT set those become operands (`uniq in -c` would write a
 * file named -c).
 */
int
kb_ro_parse_opts(const struct kb_ro_tool *t, const char *label,
    const struct kb_sh_word *a, size_t n, struct kb_ro_parsed *p,
    struct kb_err *e)
{
	bool endopts = false;
	const char *s;
	size_t i;

	for (i = 0; i < n; i++) {
		s = a[i].s;
		if (endopts || s[0] != '-' || s[1] == '\0') {
			p->operands[p->noperands++] = &a[i];
			continue;
		}
		if ((t->flags & KB_RO_T_OPTS_FIRST) && p->noperands > 0)
			return kb_err_set(
			    e, "%s: option after an operand", label);
		if (strcmp(s, "--") == 0) {
			endopts = true;
			p->dashdash = true;
			p->nbefore = p->noperands;
		} else if (s[1] == '-') {
			if (parse_long(t, label, a, n, &i, p, e) == -1)
				return -1;
		} else if (parse_short(t, label, a, n, &i, p, e) == -1)
			return -1;
	}
	if (t->max_operands >= 0 && p->noperands > (size_t)t->max_operands)
		return kb_err_set(e,
		    t->max_operands == 0 ? "%s with an operand"
					 : "%s: too many operands",
		    label);
	return 0;
}
