/*
 * classify/readonly.c — see readonly.h. shlex.c turns the line into simple
 * commands; here each one is checked: redirections first, then the command
 * name against kb_ro_tool_table (readonly-rules.c), then its arguments by
 * the tool's option table and, for sed, find, git, printf, date and tail,
 * a small predicate. Every check answers "proven read-only" or gives the
 * reason it is not; there is no third answer. For git, a line that is
 * read-only but for the programs a repository's configuration can make
 * git run is unsafe, and comes with the same line rewritten to turn them
 * off (readonly-rules.c has the table), which this file proves safe
 * before offering it.
 */
#include "readonly.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/util.h"
#include "readonly-rules.h"
#include "readonly-sed.h"
#include "shlex.h"

#define SHOWN 40 /* at most this much of a user's word goes in a reason */

struct seen {
	const struct kb_ro_opt *opt;
	const char *val;                /* its value, NULL when none */
	const struct kb_sh_word *vword; /* the word the value was read from */
};

/* what parse_opts() found in a command's arguments */
struct parsed {
	const struct kb_sh_word **operands;
	size_t noperands;
	size_t nbefore; /* operands before "--" (when dashdash) */
	bool dashdash;
	struct seen *seen;
	size_t nseen, seencap;
};

/* a rewrite of the input: texts inserted at byte offsets */
struct insertion {
	size_t at;
	const char *text; /* static */
};

struct rewrite {
	struct insertion *ins;
	size_t n, cap;
	char reason[256]; /* the first command's reason to be rewritten */
};

/* what check_git needs of the command around it */
struct gitctx {
	const struct kb_sh_cmd *cmd;
	size_t head;               /* the index of the word "git" */
	bool lazy_env;             /* GIT_NO_LAZY_FETCH=1 before it */
	const struct kb_ro_git *g; /* the subcommand's row */
	bool dashdash;             /* git diff: "--" must be appended */
	struct rewrite *rw;
};

static int check_tool(const struct kb_ro_tool *, const char *,
    const struct kb_sh_word *, size_t, char **, struct gitctx *,
    struct kb_err *);

static char
shown(char c)
{
	return c > ' ' && c < 0x7f ? c : '?';
}

/* how much of the n bytes at s a reason quotes: at most SHOWN, and never
 * half a UTF-8 character (reasons may end up in JSON) */
static int
shown_len(const char *s, size_t n)
{
	if (n > SHOWN) {
		n = SHOWN;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	return (int)n;
}

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool
in_list(const char *const *list, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(list[i], s) == 0)
			return true;
	return false;
}

/* the entries of a NULL-terminated list */
static size_t
list_len(const char *const *list)
{
	size_t n = 0;

	while (list[n] != NULL)
		n++;
	return n;
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
	    label, shown_len(eq, strlen(eq)), eq);
}

static void
see(struct parsed *p, const struct kb_ro_opt *o, const char *val,
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
    const struct kb_sh_word *a, size_t n, size_t *i, struct parsed *p,
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
			return kb_err_set(
			    e, "%s --%.*s", label, shown_len(name, nl), name);
		return 0;
	}
	if (o == NULL)
		return kb_err_set(e, "%s --%.*s: unknown option", label,
		    shown_len(name, nl), name);
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
    const struct kb_sh_word *a, size_t n, size_t *i, struct parsed *p,
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
				    e, "%s -%c", label, shown(s[j]));
			continue;
		}
		if (o == NULL)
			return kb_err_set(
			    e, "%s -%c: unknown option", label, shown(s[j]));
		if (o->flags & KB_RO_DENY)
			return kb_err_set(e, "%s -%c", label, shown(s[j]));
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
					    shown(s[j]));
				val = s + j + 1;
			} else if (*i + 1 < n) {
				vw = &a[++*i];
				val = vw->s;
			} else
				return kb_err_set(e, "%s -%c: missing value",
				    label, shown(s[j]));
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
static int
parse_opts(const struct kb_ro_tool *t, const char *label,
    const struct kb_sh_word *a, size_t n, struct parsed *p, struct kb_err *e)
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

static int
check_sed(const struct parsed *p, struct kb_err *e)
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

/* --- the other predicates ----------------------------------------------- */

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

static int
check_find(const struct kb_sh_word *a, size_t n, struct kb_err *e)
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
			    shown_len(s, strlen(s)), s);
		else if (f->deny)
			return kb_err_set(e, "find %s", f->name);
		else
			nargs = f->nargs;
		if (n - i - 1 < (size_t)nargs)
			return kb_err_set(e, "find %.*s: missing argument",
			    shown_len(s, strlen(s)), s);
	}
	return 0;
}

/* printf: bash's -v assigns a variable; the format's conversions must be
 * ones that only print (no %n, nothing unknown) */
static int
check_printf(const struct kb_sh_word *a, size_t n, struct kb_err *e)
{
	const char *p, *q;
	size_t i = 0;

	if (n > 0 && strcmp(a[0].s, "--") == 0)
		i = 1;
	else if (n > 0 && a[0].s[0] == '-' && a[0].s[1] != '\0')
		return kb_err_set(e, "printf %.*s",
		    shown_len(a[0].s, strlen(a[0].s)), a[0].s);
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
			return kb_err_set(e, "printf format %%%c", shown(*p));
	}
	return 0;
}

/* date: one operand at most, and it must be a +FORMAT: a bare
 * [MMDDhhmm[[CC]YY][.ss]] sets the clock */
static int
check_date(const struct parsed *p, struct kb_err *e)
{
	if (p->noperands == 1 && p->operands[0]->s[0] != '+')
		return kb_err_set(e, "date with a time sets the clock");
	return 0;
}

/* git branch/tag: a name creates a branch or a tag, unless an option put
 * the command in list mode, where names are patterns */
static int
check_git_list(const struct parsed *p, const char *label, struct kb_err *e)
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
static int
check_tail(const struct kb_ro_tool *t, const struct kb_sh_word *a, size_t n,
    struct parsed *p, struct kb_err *e)
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
	if (parse_opts(t, "tail", a, n, p, e) == -1)
		return -1;
	for (k = 0; k < p->noperands; k++) {
		s = p->operands[k]->s;
		if (s[0] == '+')
			return kb_err_set(
			    e, "tail %.*s", shown_len(s, strlen(s)), s);
	}
	return 0;
}

/* --- git ------------------------------------------------------------------ */

/* the neutral table's entry for word s where it stands; the alternatives
 * (-P, --no-lazy-fetch) are all global options */
static const struct kb_ro_neutral *
neutral_word(const char *s, enum kb_ro_nwhere where)
{
	const struct kb_ro_neutral *nt;
	size_t k;

	for (k = 0; k < kb_ro_git_neutral_count; k++) {
		nt = &kb_ro_git_neutral_table[k];
		if ((nt->where == where && strcmp(nt->word, s) == 0) ||
		    (where == KB_RO_NW_GLOBAL && nt->alt != NULL &&
			strcmp(nt->alt, s) == 0))
			return nt;
	}
	return NULL;
}

static void
insert(struct rewrite *rw, size_t at, const char *text)
{
	size_t k;

	if (rw->n == rw->cap) {
		rw->cap = rw->cap ? rw->cap * 2 : 8;
		rw->ins = xreallocarray(rw->ins, rw->cap, sizeof(*rw->ins));
	}
	/* stable: after every insertion at the same offset */
	for (k = rw->n; k > 0 && rw->ins[k - 1].at > at; k--)
		rw->ins[k] = rw->ins[k - 1];
	rw->ins[k].at = at;
	rw->ins[k].text = text;
	rw->n++;
}

/*
 * The words the command lacks, inserted where git reads them: the
 * assignment before "git", global options after it, subcommand options
 * right after the subcommand (and verb), where no option before them can
 * take them as its value; "--" after the last word. The reason names what
 * could run.
 */
static void
plan_rewrite(struct gitctx *gc, const char *label, unsigned missing,
    const struct kb_sh_word *subword)
{
	const struct kb_sh_word *git = &gc->cmd->words[gc->head];
	const struct kb_ro_neutral *nt;
	struct kb_buf b = {0};
	size_t k;

	for (k = 0; k < kb_ro_git_neutral_count; k++) {
		nt = &kb_ro_git_neutral_table[k];
		if (!(missing & nt->bit))
			continue;
		switch (nt->where) {
		case KB_RO_NW_ENV:
			insert(gc->rw, git->start, nt->insert);
			break;
		case KB_RO_NW_GLOBAL:
		case KB_RO_NW_CONFIG:
			insert(gc->rw, git->end, nt->insert);
			break;
		case KB_RO_NW_SUB:
			insert(gc->rw, subword->end, nt->insert);
			break;
		}
	}
	if (gc->dashdash)
		insert(gc->rw, gc->cmd->words[gc->cmd->nwords - 1].end, " --");
	if (gc->rw->reason[0] != '\0')
		return;
	if (missing == 0) {
		snprintf(gc->rw->reason, sizeof(gc->rw->reason),
		    "%s with revisions but no \"--\" may name work tree "
		    "files, read through the repository's clean filters "
		    "(the rewritten form adds \"--\")",
		    label);
		return;
	}
	kb_buf_printf(&b,
	    "%s can run programs the repository's config "
	    "names:",
	    label);
	for (k = 0; k < kb_ro_git_neutral_count; k++) {
		nt = &kb_ro_git_neutral_table[k];
		if ((missing & nt->bit) && nt->what != NULL)
			kb_buf_printf(&b, "%s %s",
			    b.s[b.len - 1] == ':' ? "" : ",", nt->what);
	}
	kb_buf_puts(&b, " (the rewritten form turns them off)");
	snprintf(gc->rw->reason, sizeof(gc->rw->reason), "%s", b.s);
	kb_buf_free(&b);
}

/* git diff: --no-index and the work tree forms read files through the
 * clean filters; --cached, two revisions (trees or blobs) and a range do
 * not. Without "--" a revision may be a path: the rewrite adds "--", and
 * git then refuses a path as a bad revision. */
static int
check_git_diff(const struct parsed *p, struct gitctx *gc, struct kb_err *e)
{
	size_t k, nrevs;

	for (k = 0; k < p->nseen; k++)
		if (p->seen[k].opt->flags & KB_RO_NOINDEX)
			return kb_err_set(e, "git diff --no-index runs the "
					     "repository's clean and process "
					     "filters (filter.*), which no "
					     "option turns off");
	for (k = 0; k < p->nseen; k++)
		if (p->seen[k].opt->flags & KB_RO_CACHED)
			return 0;
	nrevs = p->dashdash ? p->nbefore : p->noperands;
	if (nrevs >= 2 ||
	    (nrevs == 1 && strstr(p->operands[0]->s, "..") != NULL)) {
		gc->dashdash = !p->dashdash;
		return 0;
	}
	return kb_err_set(e, "%s", gc->g->never);
}

/* git blame: `REV -- FILE`, `-- FILE REV` or `REV FILE` / `FILE REV`
 * (git takes the second as the revision when it is one). A revision
 * starting with ^ is negative: there is then no commit to start from and
 * git blames the work tree. */
static int
check_git_blame(const struct parsed *p, struct gitctx *gc, struct kb_err *e)
{
	size_t k;

	if (p->noperands != 2 || (p->dashdash && p->nbefore > 1))
		goto worktree;
	for (k = 0; k < p->noperands; k++)
		if (p->operands[k]->s[0] == '^')
			goto worktree;
	return 0;
worktree:
	return kb_err_set(e, "%s", gc->g->never);
}

/*
 * git [global options] SUBCOMMAND [VERB] [neutral options] ARGS. The
 * global options are the harmless ones and -c with a neutral value; the
 * subcommand a kb_ro_git_table row, whose arguments then go through
 * check_tool(). %G placeholders and %(signature) in a format run gpg.
 * What the row's `neutral` asks for and the command lacks is planned as a
 * rewrite (gc->rw): the command then counts as read-only here, and the
 * line as unsafe with that rewrite.
 */
static int
check_git(const struct kb_sh_word *a, size_t n, char **sig, struct gitctx *gc,
    struct kb_err *e)
{
	const struct kb_ro_neutral *nt;
	const struct kb_ro_git *g = NULL;
	const char *verb = NULL, *const * verbs;
	unsigned have = gc->lazy_env ? KB_RO_N_LAZY : 0;
	bool named = false;
	char *label;
	size_t i, k, sub;
	int rc;

	for (i = 0; i < n && a[i].s[0] == '-'; i++) {
		if (strcmp(a[i].s, "-c") == 0) {
			if (i + 1 == n || (nt = neutral_word(a[i + 1].s,
					       KB_RO_NW_CONFIG)) == NULL)
				return kb_err_set(e, "git -c");
			have |= nt->bit;
			i++;
			continue;
		}
		if (!in_list(
			kb_ro_git_global_table, kb_ro_git_global_count, a[i].s))
			return kb_err_set(e, "git %.*s",
			    shown_len(a[i].s, strcspn(a[i].s, "=")), a[i].s);
		if ((nt = neutral_word(a[i].s, KB_RO_NW_GLOBAL)) != NULL)
			have |= nt->bit;
	}
	if (i == n)
		return kb_err_set(e, "git without a subcommand");
	for (k = 0; k < kb_ro_git_count && g == NULL; k++) {
		if (strcmp(kb_ro_git_table[k].tool.name, a[i].s) != 0)
			continue;
		named = true;
		verbs = kb_ro_git_table[k].tool.verbs;
		if (verbs == NULL)
			g = &kb_ro_git_table[k];
		else if (i + 1 < n &&
			 in_list(verbs, list_len(verbs), a[i + 1].s)) {
			g = &kb_ro_git_table[k];
			verb = a[i + 1].s;
		}
	}
	if (!named)
		return kb_err_set(e, "git %.*s: not a read-only subcommand",
		    shown_len(a[i].s, strlen(a[i].s)), a[i].s);
	if (g == NULL)
		return kb_err_set(e, "git %s %.*s", a[i].s,
		    i + 1 < n ? shown_len(a[i + 1].s, strlen(a[i + 1].s)) : 0,
		    i + 1 < n ? a[i + 1].s : "");
	sub = verb != NULL ? i + 1 : i;
	for (i = sub + 1;
	     i < n && (nt = neutral_word(a[i].s, KB_RO_NW_SUB)) != NULL; i++)
		have |= nt->bit;
	for (k = i; k < n; k++)
		if (strstr(a[k].s, "%G") != NULL ||
		    strstr(a[k].s, "%(signature") != NULL)
			return kb_err_set(e, "git signature check runs gpg");
	if (verb != NULL)
		label = xasprintf("git %s %s", g->tool.name, verb);
	else
		label = xasprintf("git %s", g->tool.name);
	for (k = i; k < n && strcmp(a[k].s, "--") != 0; k++)
		if (g->deny_words != NULL &&
		    in_list(g->deny_words, list_len(g->deny_words), a[k].s)) {
			rc = kb_err_set(e, "%s %s", label, a[k].s);
			free(label);
			return rc;
		}
	gc->g = g;
	gc->dashdash = false;
	rc = check_tool(&g->tool, label, a + i, n - i, NULL, gc, e);
	if (rc == 0 && ((g->neutral & ~have) != 0 || gc->dashdash))
		plan_rewrite(gc, label, g->neutral & ~have, &a[sub]);
	if (rc == 0 && sig != NULL)
		*sig = label;
	else
		free(label);
	return rc;
}

/* the arguments `a` of tool `t`; label names it in reasons ("git log");
 * gc is given for git only */
static int
check_tool(const struct kb_ro_tool *t, const char *label,
    const struct kb_sh_word *a, size_t n, char **sig, struct gitctx *gc,
    struct kb_err *e)
{
	struct parsed p;
	size_t k;
	int rc;

	if (t->mode == KB_RO_ANY)
		return 0;
	for (k = 0; k < n; k++)
		if (a[k].flags & KB_SH_W_GLOB)
			return kb_err_set(
			    e, "glob in the arguments of %s", label);
	switch (t->check) {
	case KB_RO_CHECK_FIND:
		return check_find(a, n, e);
	case KB_RO_CHECK_PRINTF:
		return check_printf(a, n, e);
	case KB_RO_CHECK_GIT:
		return check_git(a, n, sig, gc, e);
	case KB_RO_CHECK_GIT_NEVER:
		return kb_err_set(e, "%s", gc->g->never);
	case KB_RO_CHECK_NONE:
	case KB_RO_CHECK_SED:
	case KB_RO_CHECK_DATE:
	case KB_RO_CHECK_GIT_LIST:
	case KB_RO_CHECK_TAIL:
	case KB_RO_CHECK_GIT_DIFF:
	case KB_RO_CHECK_GIT_BLAME:
		break;
	}
	memset(&p, 0, sizeof(p));
	p.operands = xcalloc(n, sizeof(*p.operands));
	if (t->check == KB_RO_CHECK_TAIL)
		rc = check_tail(t, a, n, &p, e);
	else
		rc = parse_opts(t, label, a, n, &p, e);
	if (rc == 0) {
		switch (t->check) {
		case KB_RO_CHECK_SED:
			rc = check_sed(&p, e);
			break;
		case KB_RO_CHECK_DATE:
			rc = check_date(&p, e);
			break;
		case KB_RO_CHECK_GIT_LIST:
			rc = check_git_list(&p, label, e);
			break;
		case KB_RO_CHECK_GIT_DIFF:
			rc = check_git_diff(&p, gc, e);
			break;
		case KB_RO_CHECK_GIT_BLAME:
			rc = check_git_blame(&p, gc, e);
			break;
		case KB_RO_CHECK_NONE:
		case KB_RO_CHECK_TAIL:
		case KB_RO_CHECK_FIND:
		case KB_RO_CHECK_PRINTF:
		case KB_RO_CHECK_GIT:
		case KB_RO_CHECK_GIT_NEVER:
			break;
		}
	}
	free(p.operands);
	free(p.seen);
	return rc;
}

/* --- redirections and commands ------------------------------------------ */

static bool
is_devnull(const struct kb_sh_word *w)
{
	return strcmp(w->s, "/dev/null") == 0 &&
	       !(w->flags & (KB_SH_W_GLOB | KB_SH_W_TILDE));
}

/* an unquoted 0, 1, 2 or - (close): duplicating a standard descriptor
 * opens nothing; other numbers could name whatever the caller left open */
static bool
is_std_fd(const struct kb_sh_word *w)
{
	return w->flags == 0 &&
	       (strcmp(w->s, "0") == 0 || strcmp(w->s, "1") == 0 ||
		   strcmp(w->s, "2") == 0 || strcmp(w->s, "-") == 0);
}

/*
 * Input is read-only, except bash's /dev/tcp and /dev/udp, which connect.
 * Output may only go to /dev/null or to a standard descriptor (2>&1, >&2):
 * ... and &>/dev/null only at the end of the command: under dash it is a
 * background job (read-only all the same) followed by a redirection.
 * every other target is a file the shell creates or truncates. <> opens
 * read-write and creates. Here-documents and here-strings were checked by
 * the lexer (no expansion in them).
 */
static int
check_redirs(const struct kb_sh_cmd *c, struct kb_err *e)
{
	const struct kb_sh_redir *r;
	size_t k;

	for (k = 0; k < c->nredirs; k++) {
		r = &c->redirs[k];
		switch (r->op) {
		case KB_SH_R_IN:
			if (r->target.flags & KB_SH_W_GLOB)
				return kb_err_set(e, "glob in a redirection");
			if (strncmp(r->target.s, "/dev/tcp/", 9) == 0 ||
			    strncmp(r->target.s, "/dev/udp/", 9) == 0)
				return kb_err_set(e, "network redirection");
			break;
		case KB_SH_R_HEREDOC:
		case KB_SH_R_HERESTR:
			break;
		case KB_SH_R_ALL:
		case KB_SH_R_ALL_APPEND:
			/* dash reads `ls &>/dev/null rm x` as `ls &` then
			 * `>/dev/null rm x`: words after &> are a command */
			if (r->nwords_before < c->nwords)
				return kb_err_set(e, "words after &>");
			if (!is_devnull(&r->target))
				return kb_err_set(e, "redirection to a file");
			break;
		case KB_SH_R_OUT:
		case KB_SH_R_APPEND:
		case KB_SH_R_CLOBBER:
			if (!is_devnull(&r->target))
				return kb_err_set(e, "redirection to a file");
			break;
		case KB_SH_R_DUPOUT:
			if (is_std_fd(&r->target) || is_devnull(&r->target))
				break;
			if (r->target.flags == 0 &&
			    strspn(r->target.s, "0123456789-") ==
				strlen(r->target.s))
				return kb_err_set(
				    e, "redirection to another descriptor");
			/* >&word with a non-number is bash's &>word */
			return kb_err_set(e, "redirection to a file");
		case KB_SH_R_DUPIN:
			if (!is_std_fd(&r->target))
				return kb_err_set(
				    e, "redirection from another descriptor");
			break;
		case KB_SH_R_RDWR:
			return kb_err_set(e, "read-write redirection");
		}
	}
	return 0;
}

/* one simple command; *sig (when sig is not NULL) gets its head; a git
 * command that needs rewriting adds to *rw */
static int
check_cmd(
    const struct kb_sh_cmd *c, char **sig, struct rewrite *rw, struct kb_err *e)
{
	const struct kb_sh_word *h;
	const struct kb_ro_tool *t = NULL;
	struct gitctx gc;
	size_t k, h0 = 0;

	if (check_redirs(c, e) == -1)
		return -1;
	if (c->nwords == 0)
		return kb_err_set(e, "redirection without a command");
	memset(&gc, 0, sizeof(gc));
	/* the one assignment allowed: it turns git's lazy fetch off (an
	 * unquoted word, so that the shell reads it as an assignment) */
	if (c->nwords >= 2 && c->words[0].flags == 0 &&
	    strcmp(c->words[0].s, "GIT_NO_LAZY_FETCH=1") == 0 &&
	    strcmp(c->words[1].s, "git") == 0) {
		h0 = 1;
		gc.lazy_env = true;
	}
	h = &c->words[h0];
	if (h->flags & KB_SH_W_GLOB)
		return kb_err_set(e, "glob in the command name");
	if (h->flags & KB_SH_W_TILDE)
		return kb_err_set(e, "tilde in the command name");
	/* a path can name any program, ./ls a file of the project's */
	if (strchr(h->s, '/') != NULL)
		return kb_err_set(e, "command given by path");
	/* FOO=bar ls: LD_PRELOAD, GIT_*, PAGER ... */
	if (strchr(h->s, '=') != NULL)
		return kb_err_set(e, "variable assignment");
	if (in_list(kb_ro_keyword_table, kb_ro_keyword_count, h->s))
		return kb_err_set(e, "shell keyword");
	for (k = 0; k < kb_ro_tool_count; k++)
		if (strcmp(kb_ro_tool_table[k].name, h->s) == 0) {
			t = &kb_ro_tool_table[k];
			break;
		}
	if (t == NULL)
		return kb_err_set(e, "not a known read-only command");
	gc.cmd = c;
	gc.head = h0;
	gc.rw = rw;
	if (check_tool(t, t->name, c->words + h0 + 1, c->nwords - h0 - 1, sig,
		&gc, e) == -1)
		return -1;
	if (sig != NULL && *sig == NULL)
		*sig = xstrdup(t->name);
	return 0;
}

/* the exact input as one C string; NUL becomes C0 80 (see readonly.h) */
static char *
exact(const char *s, size_t len)
{
	char *r = xmalloc(len * 2 + 1), *q = r;
	size_t i;

	for (i = 0; i < len; i++) {
		if (s[i] == '\0') {
			*q++ = (char)0xc0;
			*q++ = (char)0x80;
		} else
			*q++ = s[i];
	}
	*q = '\0';
	return r;
}

/* the input with the rewrite's insertions (the input holds no NUL: the
 * lexer refused it) */
static char *
apply(const char *s, size_t len, const struct rewrite *rw)
{
	struct kb_buf b = {0};
	size_t k, at = 0;

	kb_buf_add(&b, "", 0);
	for (k = 0; k < rw->n; k++) {
		kb_buf_add(&b, s + at, rw->ins[k].at - at);
		kb_buf_puts(&b, rw->ins[k].text);
		at = rw->ins[k].at;
	}
	kb_buf_add(&b, s + at, len - at);
	return b.s;
}

/* kb_readonly_classify(); a line that needs a rewrite gets one only when
 * the rewritten line classifies as safe, with no rewrite of its own
 * (`rewrite` is false for that second look) */
static int
classify(const char *cmd, size_t len, struct kb_ro_verdict *out, bool rewrite)
{
	struct kb_sh_line line;
	struct rewrite rw;
	struct kb_ro_verdict again;
	struct kb_err e;
	char *sig = NULL, *rewritten;
	size_t k;

	memset(out, 0, sizeof(*out));
	memset(&line, 0, sizeof(line));
	memset(&rw, 0, sizeof(rw));
	memset(&e, 0, sizeof(e));
	if (kb_shlex_parse(cmd, len, &line, &e) == -1)
		goto unsafe;
	if (line.ncmds == 0) {
		kb_err_set(&e, "empty command");
		goto unsafe;
	}
	for (k = 0; k < line.ncmds; k++) {
		/* a background job outlives the check and the caller's
		 * view of what ran */
		if (line.cmds[k].sep == KB_SH_SEP_BG) {
			kb_err_set(&e, "background job");
			goto unsafe;
		}
		if (check_cmd(&line.cmds[k], line.ncmds == 1 ? &sig : NULL, &rw,
			&e) == -1)
			goto unsafe;
	}
	if (rw.n > 0) {
		kb_err_set(&e, "%s", rw.reason);
		if (rewrite) {
			rewritten = apply(cmd, len, &rw);
			if (classify(rewritten, strlen(rewritten), &again,
				false) == 0 &&
			    again.safe)
				out->rewritten = steal_pointer(&rewritten);
			free(rewritten);
			kb_ro_verdict_free(&again);
		}
		goto unsafe;
	}
	out->safe = true;
	out->signature =
	    line.ncmds == 1 ? steal_pointer(&sig) : exact(cmd, len);
	kb_shlex_free(&line);
	return 0;
unsafe:
	out->safe = false;
	/* reasons quote at most SHOWN bytes of input: they fit */
	k = strnlen(e.msg, sizeof(out->reason) - 1);
	memcpy(out->reason, e.msg, k);
	out->reason[k] = '\0';
	out->signature = exact(cmd, len);
	free(sig);
	free(rw.ins);
	kb_shlex_free(&line);
	return 0;
}

int
kb_readonly_classify(const char *cmd, size_t len, struct kb_ro_verdict *out)
{
	if (out == NULL || (cmd == NULL && len != 0)) {
		errno = EINVAL;
		return -1;
	}
	return classify(cmd == NULL ? "" : cmd, len, out, true);
}

void
kb_ro_verdict_free(struct kb_ro_verdict *v)
{
	if (v == NULL)
		return;
	free(v->signature);
	v->signature = NULL;
	free(v->rewritten);
	v->rewritten = NULL;
}
