/*
 * classify/readonly.c — see readonly.h. shlex.c turns the line into simple
 * commands; here each one is checked: redirections first, then the command
 * name against kb_ro_tool_table (readonly-rules.c), then its arguments by
 * the tool's option table (readonly-getopt.c) and, for sed, find, git,
 * printf, date and tail, a small predicate (readonly-tools.c; git's are
 * here). Every check answers "proven read-only" or gives the
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
	struct kb_ro_parsed p;
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
		return kb_ro_check_find(a, n, e);
	case KB_RO_CHECK_PRINTF:
		return kb_ro_check_printf(a, n, e);
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
	/* reasons quote at most KB_RO_SHOWN bytes of input: they fit */
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
