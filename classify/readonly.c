/*
 * classify/readonly.c — see readonly.h. shlex.c turns the line into simple
 * commands (those of its subshells, groups and command substitutions
 * among them); here each one is checked: redirections first, then the
 * command name against kb_ro_tool_table (readonly-rules.c), then its
 * arguments by the tool's option table (readonly-getopt.c) and, for sed,
 * find, git, printf, test, date, tail, the archivers and a few more, a
 * small predicate (readonly-tools.c; git's are here). Every check
 * answers "proven read-only" or gives the reason it is not; there is no
 * third answer. A word whose value comes from an expansion passes only
 * where no value could matter. For zsh the line is read twice, with # as
 * a comment and as a word. For git, a line that is read-only but for the
 * programs a repository's configuration can make git run is unsafe, and
 * comes with the same line rewritten to turn them off (readonly-rules.c
 * has the table), which this file proves safe before offering it.
 */
#include "readonly.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/util.h"
#include "readonly-getopt.h"
#include "readonly-rules.h"
#include "readonly-tools.h"
#include "shlex.h"

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

/* what the checks need of the command around it (the git fields for
 * git only) */
struct gitctx {
	unsigned dialect; /* kb_shlex_parse()'s: KB_SH_ZSH */
	const char *src;  /* the line, which the words index */
	const struct kb_sh_cmd *cmd;
	size_t head;               /* the index of the word "git" */
	bool lazy_env;             /* GIT_NO_LAZY_FETCH=1 before it */
	const struct kb_ro_git *g; /* the subcommand's row */
	bool dashdash;             /* git diff: "--" must be appended */
	bool quote;                /* an argument zsh may glob: quoted */
	struct rewrite *rw;
};

static int check_tool(const struct kb_ro_tool *, const char *,
    const struct kb_sh_word *, size_t, char **, struct gitctx *,
    struct kb_err *);

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
	const struct kb_sh_word *git = &gc->cmd->words[gc->head], *w;
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
	/* a word whose only special characters are zsh's extendedglob ones
	 * means the same to every shell in single quotes */
	for (w = subword + 1; gc->quote && w < gc->cmd->words + gc->cmd->nwords;
	     w++)
		if (w->flags == KB_SH_W_XGLOB) {
			insert(gc->rw, w->start, "'");
			insert(gc->rw, w->end, "'");
		}
	if (gc->dashdash)
		insert(gc->rw, gc->cmd->words[gc->cmd->nwords - 1].end, " --");
	if (gc->rw->reason[0] != '\0')
		return;
	if (missing == 0 && !gc->dashdash) {
		snprintf(gc->rw->reason, sizeof(gc->rw->reason),
		    "%s: zsh with extendedglob reads ^ # ~ in its arguments "
		    "as patterns (the rewritten form quotes them)",
		    label);
		return;
	}
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
check_git_diff(
    const struct kb_ro_parsed *p, struct gitctx *gc, struct kb_err *e)
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
check_git_blame(
    const struct kb_ro_parsed *p, struct gitctx *gc, struct kb_err *e)
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
			    kb_ro_shown_len(a[i].s, strcspn(a[i].s, "=")),
			    a[i].s);
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
		    kb_ro_shown_len(a[i].s, strlen(a[i].s)), a[i].s);
	if (g == NULL)
		return kb_err_set(e, "git %s %.*s", a[i].s,
		    i + 1 < n ? kb_ro_shown_len(a[i + 1].s, strlen(a[i + 1].s))
			      : 0,
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
	gc->quote = false;
	/* HEAD~1: quoted by the rewrite, when quotes mean the same to every
	 * shell (no other quoting or expansion, no line continuation) */
	for (k = sub + 1; k < n; k++) {
		if (!(a[k].flags & KB_SH_W_XGLOB))
			continue;
		if (a[k].flags != KB_SH_W_XGLOB ||
		    memchr(gc->src + a[k].start, '\\', a[k].end - a[k].start) !=
			NULL) {
			rc = kb_err_set(e,
			    "%s: zsh's extendedglob reads ^ # ~ in its "
			    "arguments as patterns",
			    label);
			free(label);
			return rc;
		}
		gc->quote = true;
	}
	rc = check_tool(&g->tool, label, a + i, n - i, NULL, gc, e);
	if (rc == 0 && ((g->neutral & ~have) != 0 || gc->dashdash || gc->quote))
		plan_rewrite(gc, label, g->neutral & ~have, &a[sub]);
	if (rc == 0 && sig != NULL)
		*sig = label;
	else
		free(label);
	return rc;
}

/*
 * The words of a tool that reads its arguments: a glob could expand to a
 * file named -delete, an expansion to any option, and zsh's extendedglob
 * turns ^ # ~ into patterns, which for a git subcommand (gc->g) the
 * rewrite quotes instead. A tool of KB_RO_ANY takes any word; test,
 * printf, command and hash judge theirs.
 */
static int
check_words(const struct kb_ro_tool *t, const char *label,
    const struct kb_sh_word *a, size_t n, const struct gitctx *gc,
    struct kb_err *e)
{
	size_t k;

	for (k = 0; k < n; k++) {
		if (a[k].flags & KB_SH_W_GLOB)
			return kb_err_set(
			    e, "glob in the arguments of %s", label);
		if (a[k].flags & KB_SH_W_OPAQUE)
			return kb_err_set(e,
			    "expansion in the arguments of %s: its value "
			    "could be any option",
			    label);
		if ((a[k].flags & KB_SH_W_XGLOB) &&
		    t->check != KB_RO_CHECK_GIT &&
		    (gc->g == NULL || a[k].flags != KB_SH_W_XGLOB))
			return kb_err_set(e,
			    "zsh's extendedglob reads ^ # ~ in the "
			    "arguments of %s as patterns",
			    label);
	}
	return 0;
}

/* the arguments `a` of tool `t`; label names it in reasons ("git log");
 * gc->g and the rewrite are for git */
static int
check_tool(const struct kb_ro_tool *t, const char *label,
    const struct kb_sh_word *a, size_t n, char **sig, struct gitctx *gc,
    struct kb_err *e)
{
	struct kb_ro_parsed p;
	int rc;

	if (t->check == KB_RO_CHECK_TEST)
		return kb_ro_check_test(a, n, strcmp(t->name, "[") == 0, e);
	if (t->check == KB_RO_CHECK_PRINTF)
		return kb_ro_check_printf(a, n, gc->dialect, e);
	if (t->check == KB_RO_CHECK_COMMAND)
		return kb_ro_check_command(a, n, e);
	if (t->check == KB_RO_CHECK_HASH)
		return kb_ro_check_hash(a, n, e);
	if (t->mode == KB_RO_ANY)
		return 0;
	if (check_words(t, label, a, n, gc, e) == -1)
		return -1;
	switch (t->check) {
	case KB_RO_CHECK_FIND:
		return kb_ro_check_find(a, n, e);
	case KB_RO_CHECK_GIT:
		return check_git(a, n, sig, gc, e);
	case KB_RO_CHECK_GIT_NEVER:
		return kb_err_set(e, "%s", gc->g->never);
	case KB_RO_CHECK_TAR:
		return kb_ro_check_tar(t, a, n, e);
	case KB_RO_CHECK_UNZIP:
		return kb_ro_check_unzip(t, a, n, e);
	case KB_RO_CHECK_7Z:
		return kb_ro_check_7z(a, n, e);
	case KB_RO_CHECK_NONE:
	case KB_RO_CHECK_SED:
	case KB_RO_CHECK_DATE:
	case KB_RO_CHECK_GIT_LIST:
	case KB_RO_CHECK_TAIL:
	case KB_RO_CHECK_GIT_DIFF:
	case KB_RO_CHECK_GIT_BLAME:
	case KB_RO_CHECK_MODE:
	case KB_RO_CHECK_TEST:
	case KB_RO_CHECK_PRINTF:
	case KB_RO_CHECK_COMMAND:
	case KB_RO_CHECK_HASH:
		break;
	}
	memset(&p, 0, sizeof(p));
	p.operands = xcalloc(n, sizeof(*p.operands));
	if (t->check == KB_RO_CHECK_TAIL)
		rc = kb_ro_check_tail(t, a, n, &p, e);
	else
		rc = kb_ro_parse_opts(t, label, a, n, &p, e);
	if (rc == 0) {
		switch (t->check) {
		case KB_RO_CHECK_SED:
			rc = kb_ro_check_sed(&p, e);
			break;
		case KB_RO_CHECK_DATE:
			rc = kb_ro_check_date(&p, e);
			break;
		case KB_RO_CHECK_GIT_LIST:
			rc = kb_ro_check_git_list(&p, label, e);
			break;
		case KB_RO_CHECK_GIT_DIFF:
			rc = check_git_diff(&p, gc, e);
			break;
		case KB_RO_CHECK_GIT_BLAME:
			rc = check_git_blame(&p, gc, e);
			break;
		case KB_RO_CHECK_MODE:
			rc = kb_ro_check_mode(t, &p, label, e);
			break;
		case KB_RO_CHECK_NONE:
		case KB_RO_CHECK_TAIL:
		case KB_RO_CHECK_FIND:
		case KB_RO_CHECK_PRINTF:
		case KB_RO_CHECK_GIT:
		case KB_RO_CHECK_GIT_NEVER:
		case KB_RO_CHECK_TEST:
		case KB_RO_CHECK_COMMAND:
		case KB_RO_CHECK_HASH:
		case KB_RO_CHECK_TAR:
		case KB_RO_CHECK_UNZIP:
		case KB_RO_CHECK_7Z:
			break;
		}
	}
	free(p.operands);
	free(p.seen);
	return rc;
}

/* --- redirections and commands ------------------------------------------ */

/* words of unknown value (an expansion) or that a shell may turn into
 * several (a glob, zsh's extendedglob) */
#define UNKNOWN (KB_SH_W_GLOB | KB_SH_W_OPAQUE | KB_SH_W_XGLOB)

static bool
is_devnull(const struct kb_sh_word *w)
{
	return strcmp(w->s, "/dev/null") == 0 &&
	       !(w->flags & (UNKNOWN | KB_SH_W_TILDE));
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
 * Input is read-only, except bash's /dev/tcp and /dev/udp, which connect,
 * and a file named by an expansion (it could be those). Output may only go
 * to /dev/null or to a standard descriptor (2>&1, >&2), and &>/dev/null
 * only at the end of the command: under dash it is a background job
 * (read-only all the same) followed by a redirection. Every other target
 * is a file the shell creates or truncates. <> opens read-write and
 * creates. Here-documents were checked by the lexer (no expansion in
 * them); a here-string is only the command's input. `nwords` is the
 * command's word count (0 for a subshell's or group's redirections).
 */
static int
check_redirs(
    const struct kb_sh_redir *rv, size_t nr, size_t nwords, struct kb_err *e)
{
	const struct kb_sh_redir *r;
	size_t k;

	for (k = 0; k < nr; k++) {
		r = &rv[k];
		if (r->op != KB_SH_R_HERESTR &&
		    (r->target.flags & KB_SH_W_OPAQUE))
			return kb_err_set(e, "expansion in a redirection");
		switch (r->op) {
		case KB_SH_R_IN:
			if (r->target.flags & UNKNOWN)
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
			if (r->nwords_before < nwords)
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

/*
 * The tool a command name names: a table row by its name, or by the
 * absolute path of the system's copy (/bin/NAME, /usr/bin/NAME, which only
 * root can replace); a builtin that has no program of its own is not
 * found by a path. Any other path can name any program (./ls is a file of
 * the project's).
 */
static int
find_tool(
    const struct kb_sh_word *h, const struct kb_ro_tool **tp, struct kb_err *e)
{
	const char *name = h->s;
	size_t k;
	bool path = false;

	*tp = NULL;
	if (strncmp(name, "/bin/", 5) == 0) {
		name += 5;
		path = true;
	} else if (strncmp(name, "/usr/bin/", 9) == 0) {
		name += 9;
		path = true;
	}
	if (strchr(name, '/') != NULL || name[0] == '\0')
		return kb_err_set(e, "command given by path");
	/* FOO=bar ls: LD_PRELOAD, GIT_*, PAGER ... */
	if (!path && strchr(name, '=') != NULL)
		return kb_err_set(e, "variable assignment");
	if (!path && in_list(kb_ro_keyword_table, kb_ro_keyword_count, name))
		return kb_err_set(e, "shell keyword");
	for (k = 0; k < kb_ro_tool_count; k++)
		if (strcmp(kb_ro_tool_table[k].name, name) == 0) {
			*tp = &kb_ro_tool_table[k];
			break;
		}
	if (*tp == NULL)
		return kb_err_set(e, "not a known read-only command");
	if (path && ((*tp)->flags & KB_RO_T_BUILTIN))
		return kb_err_set(e,
		    "%s is a shell builtin, not a program in "
		    "that directory",
		    (*tp)->name);
	return 0;
}

/* what a comment is, read as a command */
static const struct kb_ro_tool nocomment_tool = {
    "#", KB_RO_ANY, NULL, -1, 0, KB_RO_CHECK_NONE, NULL};

/* one simple command; *sig (when sig is not NULL) gets its head; a git
 * command that needs rewriting adds to *rw; *tp the tool it runs */
static int
check_cmd(const struct kb_sh_cmd *c, const char *src, unsigned dialect,
    char **sig, struct rewrite *rw, const struct kb_ro_tool **tp,
    struct kb_err *e)
{
	const struct kb_sh_word *h;
	const struct kb_ro_tool *t;
	struct gitctx gc;
	size_t h0 = 0;

	if (check_redirs(c->redirs, c->nredirs, c->nwords, e) == -1)
		return -1;
	if (c->nwords == 0)
		return kb_err_set(e, "redirection without a command");
	memset(&gc, 0, sizeof(gc));
	gc.dialect = dialect;
	gc.src = src;
	/* the one assignment allowed: it turns git's lazy fetch off (an
	 * unquoted word, so that the shell reads it as an assignment) */
	if (c->nwords >= 2 && c->words[0].flags == 0 &&
	    strcmp(c->words[0].s, "GIT_NO_LAZY_FETCH=1") == 0 &&
	    strcmp(c->words[1].s, "git") == 0) {
		h0 = 1;
		gc.lazy_env = true;
	}
	h = &c->words[h0];
	if (h->flags & KB_SH_W_OPAQUE)
		return kb_err_set(e, "command name from an expansion");
	if (h->flags & (KB_SH_W_GLOB | KB_SH_W_XGLOB))
		return kb_err_set(e, "glob in the command name");
	if (h->flags & KB_SH_W_TILDE)
		return kb_err_set(e, "tilde in the command name");
	/* an interactive zsh without interactive_comments runs `# text`
	 * as a command named #text, which does not exist: only its
	 * redirections and expansions do anything */
	if ((dialect & KB_SH_NOCOMMENT) && h->s[0] == '#' &&
	    !(h->flags & KB_SH_W_QUOTED)) {
		*tp = &nocomment_tool;
		return 0;
	}
	if (find_tool(h, &t, e) == -1)
		return -1;
	*tp = t;
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

/*
 * One reading of the line (kb_shlex_parse's dialect). 0 when it is
 * read-only as read: every command, the redirections of its subshells
 * and groups, no background job, and no cd before a git command (git
 * would then read a repository the caller did not name, as git -C does,
 * which is refused too). Git commands that need the rewrite add to *rw
 * and still count as read-only here. *sig gets the single command's head
 * when the line is one simple command.
 */
static int
read_line(const char *cmd, size_t len, unsigned dialect, struct rewrite *rw,
    char **sig, struct kb_err *e)
{
	struct kb_sh_line line;
	const struct kb_ro_tool *t = NULL;
	bool cd = false, git = false;
	size_t k;
	int rc = -1;

	memset(&line, 0, sizeof(line));
	if (kb_shlex_parse(cmd, len, dialect, &line, e) == -1)
		goto out;
	if (line.ncmds == 0) {
		kb_err_set(e, "empty command");
		goto out;
	}
	/* a background job outlives the check and the caller's view of
	 * what ran */
	if (line.background) {
		kb_err_set(e, "background job");
		goto out;
	}
	if (check_redirs(line.gredirs, line.ngredirs, 0, e) == -1)
		goto out;
	for (k = 0; k < line.ncmds; k++) {
		if (check_cmd(&line.cmds[k], cmd, dialect,
			line.ncmds == 1 && !line.compound ? sig : NULL, rw, &t,
			e) == -1)
			goto out;
		cd |= strcmp(t->name, "cd") == 0;
		git |= strcmp(t->name, "git") == 0;
	}
	if (cd && git) {
		kb_err_set(e, "git after cd: git reads the repository there, "
			      "as with git -C");
		goto out;
	}
	rc = 0;
out:
	kb_shlex_free(&line);
	return rc;
}

/* the lexer's readings of the line for a shell: zsh (and a caller that
 * does not know the shell) reads # as a word too, as an interactive zsh
 * without interactive_comments does */
static size_t
readings(enum kb_ro_shell shell, const char *cmd, size_t len, unsigned *d)
{
	switch (shell) {
	case KB_RO_SHELL_SH:
	case KB_RO_SHELL_BASH:
		d[0] = 0;
		return 1;
	case KB_RO_SHELL_ANY:
	case KB_RO_SHELL_ZSH:
		break;
	}
	d[0] = KB_SH_ZSH;
	d[1] = KB_SH_ZSH | KB_SH_NOCOMMENT;
	return memchr(cmd, '#', len) != NULL ? 2 : 1;
}

/* kb_readonly_classify_as(); a line that needs a rewrite gets one only
 * when the rewritten line classifies as safe, with no rewrite of its own
 * (`rewrite` is false for that second look). The rewrite comes from the
 * first reading; every reading must be read-only. */
static int
classify(const char *cmd, size_t len, enum kb_ro_shell shell,
    struct kb_ro_verdict *out, bool rewrite)
{
	struct rewrite rw, rw2;
	struct kb_ro_verdict again;
	struct kb_err e;
	char *sig = NULL, *rewritten;
	unsigned dialect[2];
	size_t k, n;

	memset(out, 0, sizeof(*out));
	memset(&rw, 0, sizeof(rw));
	memset(&e, 0, sizeof(e));
	n = readings(shell, cmd, len, dialect);
	if (read_line(cmd, len, dialect[0], &rw, &sig, &e) == -1)
		goto unsafe;
	for (k = 1; k < n; k++) {
		memset(&rw2, 0, sizeof(rw2));
		if (read_line(cmd, len, dialect[k], &rw2, NULL, &e) == -1) {
			free(rw2.ins);
			goto unsafe;
		}
		free(rw2.ins);
		if (rw.n == 0 && rw2.n > 0) {
			kb_err_set(&e, "%s", rw2.reason);
			goto unsafe;
		}
	}
	if (rw.n > 0) {
		kb_err_set(&e, "%s", rw.reason);
		if (rewrite) {
			rewritten = apply(cmd, len, &rw);
			if (classify(rewritten, strlen(rewritten), shell,
				&again, false) == 0 &&
			    again.safe)
				out->rewritten = steal_pointer(&rewritten);
			free(rewritten);
			kb_ro_verdict_free(&again);
		}
		goto unsafe;
	}
	out->safe = true;
	out->signature = sig != NULL ? steal_pointer(&sig) : exact(cmd, len);
	return 0;
unsafe:
	out->safe = false;
	/* reasons quote at most KB_RO_SHOWN bytes of input: they fit */
	k = strnlen(e.msg, sizeof(out->reason) - 1);
	memcpy(out->reason, e.msg, k);
	out->reason[k] = '\0';
	out->signature = exact(cmd, len);
	free(sig);
	free(rw.ins);
	return 0;
}

static const char *const shell_names[] = {
    [KB_RO_SHELL_ANY] = "any",
    [KB_RO_SHELL_SH] = "sh",
    [KB_RO_SHELL_BASH] = "bash",
    [KB_RO_SHELL_ZSH] = "zsh",
};

int
kb_ro_shell_parse(const char *s, enum kb_ro_shell *out)
{
	size_t k;

	for (k = 0; s != NULL && k < nitems(shell_names); k++)
		if (strcmp(s, shell_names[k]) == 0) {
			*out = (enum kb_ro_shell)k;
			return 0;
		}
	return -1;
}

const char *
kb_ro_shell_name(enum kb_ro_shell shell)
{
	return (size_t)shell < nitems(shell_names) ? shell_names[shell] : "any";
}

int
kb_readonly_classify_as(const char *cmd, size_t len, enum kb_ro_shell shell,
    struct kb_ro_verdict *out)
{
	if (out == NULL || (cmd == NULL && len != 0) ||
	    (size_t)shell >= nitems(shell_names)) {
		errno = EINVAL;
		return -1;
	}
	return classify(cmd == NULL ? "" : cmd, len, shell, out, true);
}

int
kb_readonly_classify(const char *cmd, size_t len, struct kb_ro_verdict *out)
{
	return kb_readonly_classify_as(cmd, len, KB_RO_SHELL_ANY, out);
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
