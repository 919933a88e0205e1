/*
 * classify/shlex.c — see shlex.h. One pass over the bytes: a line either reads
 * as plain words, operators, redirections, subshells, groups and command
 * substitutions, or it is refused with a reason. A command substitution
 * is read by the same lexer, called again from inside the word (bounded by
 * KB_SH_MAX_SUBST); subshells and groups are a stack in the lexer. The
 * rules follow bash 5.2, dash 0.5 and zsh 5.9; where they could read a
 * line differently, the line is refused, or read in each way (the caller
 * lexes it again with KB_SH_NOCOMMENT). Refusing is always the safe
 * answer here: the caller then treats the line as unsafe.
 */
#include "shlex.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct heredoc {
	const char *delim; /* borrowed from the redirection's target */
	bool strip;        /* <<-: leading tabs are removed from each line */
	bool quoted;       /* part of the delimiter was quoted: literal body */
};

struct lexer {
	const char *s;
	size_t len, i;
	unsigned dialect; /* KB_SH_ZSH, KB_SH_NOCOMMENT */
	struct kb_sh_line *out;
	bool open; /* out->cmds[cur] is still being built */
	size_t cur;
	bool need_cmd;    /* after && || | |&: another command must follow */
	bool after_group; /* a ) or } just closed: redirections or an
			   * operator may follow, no word */
	char groups[KB_SH_MAX_GROUPS];   /* the open ( and { */
	size_t gstart[KB_SH_MAX_GROUPS]; /* out->ncmds when each opened */
	size_t ngroups;
	unsigned subst; /* 0, or how deep inside $( ) this lexer reads */
	size_t sstart;  /* out->ncmds when this $( opened */
	struct heredoc hd[KB_SH_MAX_HEREDOCS];
	size_t nhd; /* here-documents whose body starts at the next newline */
	struct kb_err *e;
};

static int lex(struct lexer *);

/*
 * The characters that cannot hide: NUL would cut the line short for some
 * readers, control characters and Unicode blanks can make the line that a
 * person approves look unlike the line the shell runs (and a shell that
 * took U+00A0 for a blank would split words where we do not). Invalid
 * UTF-8 is refused so that every byte >= 0x80 belongs to a well-formed
 * character and no ASCII byte can be swallowed by a multibyte sequence.
 */
static bool
unicode_blank(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0xa0) || cp == 0xad || cp == 0x1680 ||
	       cp == 0x180e || (cp >= 0x2000 && cp <= 0x200f) ||
	       (cp >= 0x2028 && cp <= 0x202f) ||
	       (cp >= 0x205f && cp <= 0x206f) || cp == 0x3000 || cp == 0xfeff ||
	       (cp >= 0xfff9 && cp <= 0xfffb);
}

static int
check_bytes(const unsigned char *s, size_t len, struct kb_err *e)
{
	size_t i = 0, n, k;
	uint32_t cp, min;

	while (i < len) {
		if (s[i] == 0)
			return kb_err_set(e, "NUL byte");
		if (s[i] < 0x80) {
			if ((s[i] < 0x20 && s[i] != '\t' && s[i] != '\n') ||
			    s[i] == 0x7f)
				return kb_err_set(e, "control character");
			i++;
			continue;
		}
		if (s[i] >= 0xc2 && s[i] <= 0xdf) {
			n = 2;
			cp = s[i] & 0x1f;
			min = 0x80;
		} else if (s[i] >= 0xe0 && s[i] <= 0xef) {
			n = 3;
			cp = s[i] & 0x0f;
			min = 0x800;
		} else if (s[i] >= 0xf0 && s[i] <= 0xf4) {
			n = 4;
			cp = s[i] & 0x07;
			min = 0x10000;
		} else
			return kb_err_set(e, "invalid UTF-8");
		if (len - i < n)
			return kb_err_set(e, "invalid UTF-8");
		for (k = 1; k < n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return kb_err_set(e, "invalid UTF-8");
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return kb_err_set(e, "invalid UTF-8");
		if (unicode_blank(cp))
			return kb_err_set(
			    e, "Unicode blank or format character");
		i += n;
	}
	return 0;
}

/*
 * An interactive bash or zsh (a harness may keep one and write commands to
 * its input) replaces !word, !! and a line starting with ^ from its
 * history before it parses anything: in double quotes, in comments and in
 * here-document bodies too. The expansion works line by line, with its
 * own idea of quoting (single quotes and backslashes protect, double
 * quotes do not), which this follows; a quote open at the end of a line is
 * forgotten, as it may be. ! before a blank or = and at the end of a line
 * is left alone by both shells (bash expands !( unless extglob is on).
 */
static int
check_history(const char *s, size_t len, struct kb_err *e)
{
	bool sq = false, dq = false, bol = true;
	size_t i;
	char n;

	for (i = 0; i < len; i++) {
		if (bol && s[i] == '^')
			return kb_err_set(e, "^ at the start of a line: an "
					     "interactive shell's history "
					     "substitution");
		bol = false;
		if (s[i] == '\n') {
			sq = dq = false;
			bol = true;
		} else if (sq) {
			if (s[i] == '\'')
				sq = false;
		} else if (s[i] == '\\') {
			if (i + 1 < len && s[i + 1] != '\n')
				i++;
		} else if (s[i] == '\'' && !dq)
			sq = true;
		else if (s[i] == '"')
			dq = !dq;
		else if (s[i] == '!' && i + 1 < len) {
			n = s[i + 1];
			if (n == ' ' || n == '\t' || n == '\n' || n == '=' ||
			    (dq && n == '"'))
				continue;
			return kb_err_set(e,
			    "history expansion: an "
			    "interactive bash or zsh "
			    "replaces !%c",
			    n > ' ' && n < 0x7f ? n : '?');
		}
	}
	return 0;
}

/*
 * Backslash-newline outside single quotes is removed before anything else
 * (bash's shell_getc, dash's pgetc_eatbnl), so `l\<newline>s` is `ls` and
 * `&\<newline>&` is `&&`. It is not removed once a here-document is
 * pending: the lexer then refuses the backslash instead.
 */
static size_t
skip_cont(const struct lexer *lx, size_t i)
{
	if (lx->nhd > 0)
		return i;
	while (i + 1 < lx->len && lx->s[i] == '\\' && lx->s[i + 1] == '\n')
		i += 2;
	return i;
}

/* the k-th character ahead (continuations skipped), -1 at the end */
static int
peek(struct lexer *lx, int k)
{
	size_t i;

	lx->i = skip_cont(lx, lx->i);
	for (i = lx->i; k > 0; k--) {
		if (i >= lx->len)
			return -1;
		i = skip_cont(lx, i + 1);
	}
	return i < lx->len ? (unsigned char)lx->s[i] : -1;
}

static void
adv(struct lexer *lx)
{
	lx->i = skip_cont(lx, lx->i);
	if (lx->i < lx->len)
		lx->i++;
}

/* ends a word; also -1 (end of input) */
static bool
is_meta(int c)
{
	return c == -1 || c == ' ' || c == '\t' || c == '\n' || c == ';' ||
	       c == '&' || c == '|' || c == '<' || c == '>' || c == '(' ||
	       c == ')';
}

static bool
is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

static struct kb_sh_cmd *
cur_cmd(struct lexer *lx)
{
	struct kb_sh_line *l = lx->out;

	if (!lx->open) {
		if (l->ncmds == l->ccap) {
			l->ccap = l->ccap ? l->ccap * 2 : 4;
			l->cmds =
			    xreallocarray(l->cmds, l->ccap, sizeof(*l->cmds));
		}
		memset(&l->cmds[l->ncmds], 0, sizeof(*l->cmds));
		lx->cur = l->ncmds++;
		lx->open = true;
		lx->need_cmd = false;
	}
	return &l->cmds[lx->cur];
}

static void
push_word(struct kb_sh_cmd *c, const struct kb_sh_word *w)
{
	if (c->nwords == c->wcap) {
		c->wcap = c->wcap ? c->wcap * 2 : 8;
		c->words = xreallocarray(c->words, c->wcap, sizeof(*c->words));
	}
	c->words[c->nwords++] = *w;
}

static void
push_redir(
    struct kb_sh_redir **v, size_t *n, size_t *cap, const struct kb_sh_redir *r)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 4;
		*v = xreallocarray(*v, *cap, sizeof(**v));
	}
	(*v)[(*n)++] = *r;
}

static const char *
dollar_reason(int next)
{
	switch (next) {
	case '\'':
		return "ANSI-C quoting";
	case '"':
		return "locale-translated string";
	case '[':
		return "arithmetic expansion";
	default:
		return "variable expansion other than $NAME";
	}
}

static bool
is_name(int c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

static bool
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/*
 * $( list ) at lx->i (or, `open` 1, the ( of a process substitution): the
 * list is read by a lexer of its own, which adds its commands to the same
 * line and stops after the ) that closes it. Its bytes go into the word as
 * written. A here-document inside, or one pending when it starts, is
 * refused: their bodies would begin at a newline the two lexers share.
 */
static int
lex_subst(struct lexer *lx, struct kb_buf *b, int open)
{
	struct lexer in;
	size_t start = lx->i;

	if (lx->subst + 1 > KB_SH_MAX_SUBST)
		return kb_err_set(lx->e, "command substitutions nested too "
					 "deep");
	if (lx->nhd > 0)
		return kb_err_set(lx->e, "command substitution after a "
					 "here-document");
	while (open-- > 0)
		adv(lx);
	memset(&in, 0, sizeof(in));
	in.s = lx->s;
	in.len = lx->len;
	in.i = lx->i;
	in.dialect = lx->dialect;
	in.out = lx->out;
	in.subst = lx->subst + 1;
	in.sstart = lx->out->ncmds;
	in.e = lx->e;
	if (lex(&in) == -1)
		return -1;
	kb_buf_add(b, lx->s + start, in.i - start);
	lx->i = in.i;
	lx->out->compound = true;
	return 0;
}

/*
 * A $ at lx->i, unquoted or (quoted) inside double quotes. Read: the forms
 * whose expansion runs nothing and that the line cannot have changed,
 * $NAME ${NAME} $1 ${10} $@ $* $? $$, and $( list ); the word is then
 * KB_SH_W_OPAQUE (and KB_SH_W_SPLIT unquoted) and keeps the bytes as
 * written. Refused: every other ${...} form (${x:=y} assigns, ${x[...]}
 * and bash's ${!x} evaluate a subscript as arithmetic, which runs any
 * $( ) in it), $(( )), $[ ], $'...', $"...", and for zsh a [ right after
 * the parameter ($x[...] is a subscript there). A $ before a blank, the
 * end or the closing quote is a literal $.
 */
static int
lex_dollar(struct lexer *lx, struct kb_buf *b, bool quoted, unsigned *flags)
{
	size_t start = lx->i;
	int n = peek(lx, 1), c;

	if (n == -1 || is_blank(n) || (quoted && n == '"')) {
		kb_buf_add(b, "$", 1);
		adv(lx);
		return 0;
	}
	if (n == '(') {
		if (peek(lx, 2) == '(')
			return kb_err_set(lx->e, "arithmetic expansion");
		if (lex_subst(lx, b, 2) == -1)
			return -1;
		*flags |= KB_SH_W_OPAQUE | (quoted ? 0 : KB_SH_W_SPLIT);
		return 0;
	}
	if (n == '{') {
		adv(lx);
		adv(lx);
		c = peek(lx, 0);
		if (c == '!')
			return kb_err_set(lx->e, "indirect expansion ${!...}");
		if (is_digit(c))
			while (is_digit(peek(lx, 0)))
				adv(lx);
		else if (is_name(c, true))
			while (is_name(peek(lx, 0), false))
				adv(lx);
		if (!(is_digit(c) || is_name(c, true)) || peek(lx, 0) != '}')
			return kb_err_set(
			    lx->e, "parameter expansion other than ${NAME}");
		adv(lx);
	} else if (is_name(n, true) || is_digit(n) || n == '@' || n == '*' ||
		   n == '?' || n == '$') {
		adv(lx);
		adv(lx);
		if (is_name(n, true))
			while (is_name(peek(lx, 0), false))
				adv(lx);
		if ((lx->dialect & KB_SH_ZSH) && peek(lx, 0) == '[')
			return kb_err_set(lx->e,
			    "zsh reads $NAME[...] as a subscript, evaluated as "
			    "arithmetic");
	} else
		return kb_err_set(lx->e, "%s", dollar_reason(n));
	kb_buf_add(b, lx->s + start, lx->i - start);
	*flags |= KB_SH_W_OPAQUE | (quoted ? 0 : KB_SH_W_SPLIT);
	return 0;
}

static int
lex_squote(struct lexer *lx, struct kb_buf *b)
{
	size_t j = lx->i + 1;
	const char *q = memchr(lx->s + j, '\'', lx->len - j);
	size_t n;

	if (q == NULL)
		return kb_err_set(lx->e, "unterminated quote");
	n = (size_t)(q - (lx->s + j));
	/* bash reads a here-document body only at the next newline token;
	 * a newline inside quotes is not one, which is easy to get wrong */
	if (lx->nhd > 0 && memchr(lx->s + j, '\n', n) != NULL)
		return kb_err_set(
		    lx->e, "newline in quotes after a here-document");
	kb_buf_add(b, lx->s + j, n);
	lx->i = j + n + 1;
	return 0;
}

static int
lex_dquote(struct lexer *lx, struct kb_buf *b, unsigned *flags)
{
	size_t j;
	int c;
	char ch;

	adv(lx);
	for (;;) {
		c = peek(lx, 0);
		switch (c) {
		case -1:
			return kb_err_set(lx->e, "unterminated quote");
		case '"':
			adv(lx);
			return 0;
		case '\\':
			j = lx->i + 1;
			if (j >= lx->len)
				return kb_err_set(lx->e, "unterminated quote");
			if (lx->s[j] == '\n')
				return kb_err_set(lx->e,
				    "line continuation after a here-document");
			if (strchr("$`\"\\", lx->s[j]) != NULL) {
				kb_buf_add(b, lx->s + j, 1);
				lx->i = j + 1;
			} else {
				/* other backslashes stay, and the next
				 * character is read as usual */
				kb_buf_add(b, "\\", 1);
				lx->i = j;
			}
			break;
		case '$':
			if (lex_dollar(lx, b, true, flags) == -1)
				return -1;
			break;
		case '`':
			return kb_err_set(lx->e, "backquote command "
						 "substitution");
		case '\n':
			if (lx->nhd > 0)
				return kb_err_set(lx->e,
				    "newline in quotes after a here-document");
			ch = (char)c;
			kb_buf_add(b, &ch, 1);
			adv(lx);
			break;
		default:
			ch = (char)c;
			kb_buf_add(b, &ch, 1);
			adv(lx);
			break;
		}
	}
}

/*
 * One word, up to an unquoted metacharacter. Sets KB_SH_W_GLOB for an
 * unquoted * or ?, or an unquoted [ followed by a ] (a lone [ is the test
 * command); KB_SH_W_TILDE for ~ or ~/ at the start, an unquoted ~ after
 * = or : (bash expands those in assignment-like words), or (KB_SH_ZSH)
 * zsh's =cmd at the start; KB_SH_W_XGLOB (KB_SH_ZSH) for an unquoted ^,
 * or a # or ~ after the start. Other tilde prefixes (~user, ~+, ~-, zsh's
 * ~[name]) and unquoted { } are refused: bash's brace expansion turns
 * `find . -{de,}lete` into `-delete -lete`.
 */
static int
lex_word(struct lexer *lx, struct kb_sh_word *w)
{
	struct kb_buf b = {0};
	size_t bracket = SIZE_MAX, j;
	bool start = true, zsh = (lx->dialect & KB_SH_ZSH) != 0;
	int c, n, prev = 0;
	char ch;

	kb_buf_add(&b, "", 0);
	w->flags = 0;
	w->s = NULL;
	peek(lx, 0);
	w->start = lx->i;
	for (;;) {
		w->end = lx->i;
		c = peek(lx, 0);
		if (is_meta(c))
			break;
		switch (c) {
		case '\\':
			j = lx->i + 1;
			if (j >= lx->len) {
				kb_err_set(lx->e, "trailing backslash");
				goto fail;
			}
			if (lx->s[j] == '\n') {
				kb_err_set(lx->e,
				    "line continuation after a here-document");
				goto fail;
			}
			kb_buf_add(&b, lx->s + j, 1);
			lx->i = j + 1;
			w->flags |= KB_SH_W_QUOTED;
			prev = 0;
			break;
		case '\'':
			if (lex_squote(lx, &b) == -1)
				goto fail;
			w->flags |= KB_SH_W_QUOTED;
			prev = 0;
			break;
		case '"':
			if (lex_dquote(lx, &b, &w->flags) == -1)
				goto fail;
			w->flags |= KB_SH_W_QUOTED;
			prev = 0;
			break;
		case '$':
			if (lex_dollar(lx, &b, false, &w->flags) == -1)
				goto fail;
			prev = '$';
			break;
		case '`':
			kb_err_set(lx->e, "backquote command substitution");
			goto fail;
		case '{':
		case '}':
			kb_err_set(lx->e, "brace expansion or group");
			goto fail;
		case '*':
		case '?':
		case '[':
		case '~':
			if (c == '[' && bracket == SIZE_MAX)
				bracket = b.len;
			if (c == '*' || c == '?')
				w->flags |= KB_SH_W_GLOB;
			if (c == '~' && start) {
				n = peek(lx, 1);
				if (!is_meta(n) && n != '/') {
					kb_err_set(lx->e, "tilde expansion");
					goto fail;
				}
				w->flags |= KB_SH_W_TILDE;
			} else if (c == '~') {
				if (prev == '=' || prev == ':')
					w->flags |= KB_SH_W_TILDE;
				if (zsh)
					w->flags |= KB_SH_W_XGLOB;
			}
			ch = (char)c;
			kb_buf_add(&b, &ch, 1);
			adv(lx);
			prev = c;
			break;
		default:
			/* zsh replaces =cmd at the start of a word by the
			 * command's path; with extendedglob, ^ negates and
			 * # repeats (a # that starts a word is a bad
			 * pattern there: an error, not another word) */
			if (zsh && c == '=' && start && !is_meta(peek(lx, 1)))
				w->flags |= KB_SH_W_TILDE;
			if (zsh && (c == '^' || (c == '#' && !start)))
				w->flags |= KB_SH_W_XGLOB;
			ch = (char)c;
			kb_buf_add(&b, &ch, 1);
			adv(lx);
			prev = c;
			break;
		}
		start = false;
	}
	if (bracket != SIZE_MAX &&
	    memchr(b.s + bracket, ']', b.len - bracket) != NULL)
		w->flags |= KB_SH_W_GLOB;
	w->s = b.s;
	return 0;
fail:
	kb_buf_free(&b);
	return -1;
}

/* zsh's <N-M> (either number may be missing) is a glob that matches
 * numbers, not a redirection: i is just after the < */
static bool
zsh_range(const struct lexer *lx, size_t i)
{
	while (i < lx->len && is_digit(lx->s[i]))
		i++;
	if (i >= lx->len || lx->s[i] != '-')
		return false;
	i++;
	while (i < lx->len && is_digit(lx->s[i]))
		i++;
	return i < lx->len && lx->s[i] == '>';
}

/*
 * bash's and zsh's <( list ) and >( list ), the < or > just read (`op`
 * KB_SH_R_IN or KB_SH_R_OUT):
 * not a redirection but a word, the path of a pipe to or from the list,
 * whose commands are judged with the rest. dash reads a redirection and
 * then a syntax error, which runs nothing. Only as a word of its own,
 * after a command's name.
 */
static int
lex_procsubst(struct lexer *lx, enum kb_sh_redir_op op, int fd)
{
	struct kb_sh_word w;
	struct kb_buf b = {0};
	char ch = op == KB_SH_R_IN ? '<' : '>';

	if ((op != KB_SH_R_IN && op != KB_SH_R_OUT) || fd != -1 ||
	    lx->after_group || !lx->open)
		return kb_err_set(lx->e, "process substitution");
	memset(&w, 0, sizeof(w));
	w.start = lx->i - 1;
	kb_buf_add(&b, &ch, 1);
	if (lex_subst(lx, &b, 1) == -1) {
		kb_buf_free(&b);
		return -1;
	}
	if (!is_meta(peek(lx, 0))) {
		kb_buf_free(&b);
		return kb_err_set(lx->e, "process substitution inside a word");
	}
	w.end = lx->i;
	w.s = b.s;
	w.flags = KB_SH_W_OPAQUE;
	push_word(cur_cmd(lx), &w);
	return 0;
}

static int
lex_redir(struct lexer *lx, int fd)
{
	struct kb_sh_redir r;
	struct kb_sh_cmd *cmd;
	bool strip = false;
	int c = peek(lx, 0);

	memset(&r, 0, sizeof(r));
	r.fd = fd;
	adv(lx);
	if (c == '<' && (lx->dialect & KB_SH_ZSH) && zsh_range(lx, lx->i))
		return kb_err_set(lx->e, "zsh reads <N-M> as a glob");
	if (c == '&') { /* &> and &>> */
		adv(lx);
		r.op = KB_SH_R_ALL;
		if (peek(lx, 0) == '>') {
			adv(lx);
			r.op = KB_SH_R_ALL_APPEND;
		}
	} else if (c == '<') {
		r.op = KB_SH_R_IN;
		switch (peek(lx, 0)) {
		case '<':
			adv(lx);
			r.op = KB_SH_R_HEREDOC;
			if ((c = peek(lx, 0)) == '<' || c == '-') {
				adv(lx);
				if (c == '<')
					r.op = KB_SH_R_HERESTR;
				else
					strip = true;
			}
			break;
		case '&':
			adv(lx);
			r.op = KB_SH_R_DUPIN;
			break;
		case '>':
			adv(lx);
			r.op = KB_SH_R_RDWR;
			break;
		default:
			break;
		}
	} else {
		r.op = KB_SH_R_OUT;
		switch (peek(lx, 0)) {
		case '>':
			adv(lx);
			r.op = KB_SH_R_APPEND;
			break;
		case '|':
			adv(lx);
			r.op = KB_SH_R_CLOBBER;
			break;
		case '&':
			adv(lx);
			r.op = KB_SH_R_DUPOUT;
			break;
		default:
			break;
		}
	}
	if (peek(lx, 0) == '(')
		return lex_procsubst(lx, r.op, fd);
	while ((c = peek(lx, 0)) == ' ' || c == '\t')
		adv(lx);
	/* a # here starts a comment (bash: syntax error) */
	if (is_meta(c) || c == '#')
		return kb_err_set(lx->e, "redirection without a target");
	if (r.op == KB_SH_R_HEREDOC && lx->subst > 0)
		return kb_err_set(
		    lx->e, "here-document in a command substitution");
	if (lex_word(lx, &r.target) == -1)
		return -1;
	if (r.op == KB_SH_R_HEREDOC) {
		if (r.target.s[0] == '\0' || lx->nhd == KB_SH_MAX_HEREDOCS ||
		    (r.target.flags & KB_SH_W_OPAQUE)) {
			free(r.target.s);
			return kb_err_set(
			    lx->e, "here-document not understood");
		}
		lx->hd[lx->nhd].delim = r.target.s;
		lx->hd[lx->nhd].strip = strip;
		lx->hd[lx->nhd].quoted = (r.target.flags & KB_SH_W_QUOTED) != 0;
		lx->nhd++;
	}
	if (lx->after_group) {
		push_redir(
		    &lx->out->gredirs, &lx->out->ngredirs, &lx->out->grcap, &r);
		return 0;
	}
	cmd = cur_cmd(lx);
	r.nwords_before = cmd->nwords;
	push_redir(&cmd->redirs, &cmd->nredirs, &cmd->rcap, &r);
	return 0;
}

/*
 * Reads the pending here-document bodies, which start after the newline
 * just consumed. A body ends at the first line equal to its delimiter
 * (after removing leading tabs for <<-), exactly as bash and dash compare.
 * With an unquoted delimiter the shell expands $, ` and \ in the body:
 * such a body is refused.
 */
static int
read_heredocs(struct lexer *lx)
{
	const char *line, *nl;
	size_t k, n, end;

	for (k = 0; k < lx->nhd; k++) {
		for (;;) {
			if (lx->i >= lx->len)
				return kb_err_set(
				    lx->e, "unterminated here-document");
			line = lx->s + lx->i;
			nl = memchr(line, '\n', lx->len - lx->i);
			n = nl != NULL ? (size_t)(nl - line) : lx->len - lx->i;
			end = lx->i + n + (nl != NULL ? 1 : 0);
			while (lx->hd[k].strip && n > 0 && *line == '\t') {
				line++;
				n--;
			}
			lx->i = end;
			if (n == strlen(lx->hd[k].delim) &&
			    memcmp(line, lx->hd[k].delim, n) == 0)
				break;
			if (!lx->hd[k].quoted &&
			    (memchr(line, '$', n) != NULL ||
				memchr(line, '`', n) != NULL ||
				memchr(line, '\\', n) != NULL))
				return kb_err_set(
				    lx->e, "expansion in a here-document");
		}
	}
	lx->nhd = 0;
	return 0;
}

static int
separate(struct lexer *lx, enum kb_sh_sep sep)
{
	if (sep == KB_SH_SEP_BG)
		lx->out->background = true;
	if (lx->after_group) {
		lx->after_group = false;
	} else if (!lx->open) {
		/* blank lines, and newlines after && || |, are allowed */
		if (sep == KB_SH_SEP_NEWLINE)
			return 0;
		return kb_err_set(lx->e, "syntax error: empty command");
	} else {
		lx->out->cmds[lx->cur].sep = sep;
		lx->open = false;
	}
	lx->need_cmd = sep == KB_SH_SEP_AND || sep == KB_SH_SEP_OR ||
		       sep == KB_SH_SEP_PIPE || sep == KB_SH_SEP_PIPE_ALL;
	return 0;
}

/* ( or { where a command starts */
static int
open_group(struct lexer *lx, char kind)
{
	if (lx->ngroups == KB_SH_MAX_GROUPS)
		return kb_err_set(lx->e, "subshells or groups nested too deep");
	lx->groups[lx->ngroups] = kind;
	lx->gstart[lx->ngroups] = lx->out->ncmds;
	lx->ngroups++;
	lx->out->compound = true;
	adv(lx);
	return 0;
}

/* the end of the list of a group, a subshell or, with no group open, of
 * this lexer's $( ); a pending here-document's body still starts at the
 * next newline (`cat <<E | ( wc )`) */
static int
end_list(struct lexer *lx, const char *what, size_t start)
{
	if (lx->need_cmd)
		return kb_err_set(lx->e, "syntax error: missing command");
	if (lx->out->ncmds == start)
		return kb_err_set(lx->e, "empty %s", what);
	if (lx->open) {
		lx->out->cmds[lx->cur].sep = KB_SH_SEP_CLOSE;
		lx->open = false;
	}
	adv(lx);
	return 0;
}

static int
close_group(struct lexer *lx, char kind)
{
	const char *what = kind == '(' ? "subshell" : "group";

	if (lx->ngroups == 0 || lx->groups[lx->ngroups - 1] != kind)
		return kb_err_set(
		    lx->e, "unbalanced %c", kind == '(' ? ')' : '}');
	if (end_list(lx, what, lx->gstart[lx->ngroups - 1]) == -1)
		return -1;
	lx->ngroups--;
	lx->after_group = true;
	return 0;
}

static bool
all_digits(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static int
lex_word_or_ionumber(struct lexer *lx)
{
	struct kb_sh_word w;
	int c, fd;

	if (lex_word(lx, &w) == -1)
		return -1;
	c = peek(lx, 0);
	if ((c == '<' || c == '>') && w.flags == 0 && all_digits(w.s)) {
		/* `2>file`: the digit is the descriptor. bash reads `10>x`
		 * as descriptor 10, dash as the argument "10" (uniq a
		 * 10>/dev/null writes a file named 10): refused */
		if (w.s[1] != '\0') {
			free(w.s);
			return kb_err_set(lx->e, "multi-digit descriptor");
		}
		fd = w.s[0] - '0';
		free(w.s);
		return lex_redir(lx, fd);
	}
	if (lx->after_group) {
		/* zsh's `{ ... } always { ... }`; elsewhere an error */
		free(w.s);
		return kb_err_set(lx->e, "a word after a subshell or group");
	}
	push_word(cur_cmd(lx), &w);
	return 0;
}

/* where a command may start: nothing of one read yet */
static bool
cmd_start(const struct lexer *lx)
{
	return !lx->open && !lx->after_group;
}

/* the list of the whole line or, for lx->subst, of one $( ): returns 0
 * at its end (after the closing ) of a substitution) */
static int
lex(struct lexer *lx)
{
	enum kb_sh_sep sep;
	int c, n;

	for (;;) {
		c = peek(lx, 0);
		n = peek(lx, 1);
		/* only reached at the start of a word: a comment, to the
		 * next newline, continuations ignored */
		if (c == '#' && !(lx->dialect & KB_SH_NOCOMMENT)) {
			while (lx->i < lx->len && lx->s[lx->i] != '\n')
				lx->i++;
			continue;
		}
		switch (c) {
		case -1:
			if (lx->subst > 0)
				return kb_err_set(lx->e, "unterminated command "
							 "substitution");
			if (lx->ngroups > 0)
				return kb_err_set(lx->e, "unterminated "
							 "subshell or group");
			if (lx->open) {
				lx->out->cmds[lx->cur].sep = KB_SH_SEP_END;
				lx->open = false;
			}
			if (lx->need_cmd)
				return kb_err_set(
				    lx->e, "syntax error: missing command");
			if (lx->nhd > 0)
				return kb_err_set(
				    lx->e, "unterminated here-document");
			return 0;
		case ' ':
		case '\t':
			adv(lx);
			break;
		case '\n':
			adv(lx);
			if (separate(lx, KB_SH_SEP_NEWLINE) == -1 ||
			    read_heredocs(lx) == -1)
				return -1;
			break;
		case ';':
			if (n == ';' || n == '&')
				return kb_err_set(lx->e, "case syntax");
			adv(lx);
			if (separate(lx, KB_SH_SEP_SEMI) == -1)
				return -1;
			break;
		case '&':
			if (n == '>') {
				if (lex_redir(lx, -1) == -1)
					return -1;
				break;
			}
			adv(lx);
			sep = KB_SH_SEP_BG;
			if (n == '&') {
				adv(lx);
				sep = KB_SH_SEP_AND;
			}
			if (separate(lx, sep) == -1)
				return -1;
			break;
		case '|':
			adv(lx);
			sep = KB_SH_SEP_PIPE;
			if (n == '|' || n == '&') {
				adv(lx);
				sep = n == '|' ? KB_SH_SEP_OR
					       : KB_SH_SEP_PIPE_ALL;
			}
			if (separate(lx, sep) == -1)
				return -1;
			break;
		case '(':
			/* after a word: a function definition, or a zsh
			 * glob qualifier; (( is arithmetic */
			if (!cmd_start(lx))
				return kb_err_set(lx->e, "( after a word");
			if (n == '(')
				return kb_err_set(lx->e, "arithmetic command");
			if (open_group(lx, '(') == -1)
				return -1;
			break;
		case ')':
			if (lx->ngroups > 0) {
				if (close_group(lx, '(') == -1)
					return -1;
				break;
			}
			if (lx->subst > 0)
				return end_list(
				    lx, "command substitution", lx->sstart);
			return kb_err_set(lx->e, "unbalanced )");
		case '<':
		case '>':
			if (lex_redir(lx, -1) == -1)
				return -1;
			break;
		default:
			/* { and } are reserved words where a command starts
			 * (} after a ; or newline): bash and dash need
			 * them alone; zsh takes a } anywhere, and that is
			 * refused as a brace in a word */
			if (c == '{' && cmd_start(lx) && is_blank(n)) {
				if (open_group(lx, '{') == -1)
					return -1;
				break;
			}
			if (c == '}' && cmd_start(lx) && is_meta(n)) {
				if (close_group(lx, '{') == -1)
					return -1;
				break;
			}
			if (lex_word_or_ionumber(lx) == -1)
				return -1;
			break;
		}
	}
}

int
kb_shlex_parse(const char *s, size_t len, unsigned dialect,
    struct kb_sh_line *out, struct kb_err *e)
{
	struct lexer lx;

	if (s == NULL)
		s = "";
	if (len > KB_SH_MAX_INPUT)
		return kb_err_set(e, "command too long");
	if (check_bytes((const unsigned char *)s, len, e) == -1 ||
	    check_history(s, len, e) == -1)
		return -1;
	memset(&lx, 0, sizeof(lx));
	lx.s = s;
	lx.len = len;
	lx.dialect = dialect;
	lx.out = out;
	lx.e = e;
	return lex(&lx);
}

void
kb_shlex_free(struct kb_sh_line *l)
{
	size_t i, j;

	if (l == NULL)
		return;
	for (i = 0; i < l->ncmds; i++) {
		for (j = 0; j < l->cmds[i].nwords; j++)
			free(l->cmds[i].words[j].s);
		for (j = 0; j < l->cmds[i].nredirs; j++)
			free(l->cmds[i].redirs[j].target.s);
		free(l->cmds[i].words);
		free(l->cmds[i].redirs);
	}
	for (j = 0; j < l->ngredirs; j++)
		free(l->gredirs[j].target.s);
	free(l->cmds);
	free(l->gredirs);
	memset(l, 0, sizeof(*l));
}
