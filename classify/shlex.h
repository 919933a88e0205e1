/*
 * classify/shlex.h — a conservative lexer for one shell command line, the
 * subset that dash, bash and zsh read alike. It splits the line into
 * simple commands joined by ; && || | |& & and newlines, removes quotes,
 * and records redirections and here-documents. Subshells ( ), groups
 * { ; } and command substitutions $( ) are read too: their commands join
 * the line's list, and a word holding a substitution or a plain parameter
 * ($NAME, ${NAME}, $1, "$@") is marked as of unknown value. Whatever else
 * makes the words depend on the shell's state (arithmetic, the other
 * parameter forms, backquotes, process substitution, brace expansion,
 * history expansion) is refused, not modelled. Pure: no I/O. Used by
 * classify/readonly.c.
 */
#ifndef KB_SHLEX_H
#define KB_SHLEX_H

#include <stdbool.h>
#include <stddef.h>

#include "../lib/util.h"

#define KB_SH_MAX_INPUT    (64 * 1024) /* longer lines are refused unread */
#define KB_SH_MAX_HEREDOCS 16          /* pending here-documents on one line */
#define KB_SH_MAX_GROUPS   16          /* ( and { open at once, per level */
#define KB_SH_MAX_SUBST    8           /* $( inside $( inside ... */

/* kb_shlex_parse() dialect: what else the line may mean */
#define KB_SH_ZSH                                                              \
	0x1 /* zsh may read it: =cmd, the extendedglob operators               \
	     * ^ # ~, <N-M> ranges, $NAME[...] subscripts */
#define KB_SH_NOCOMMENT                                                        \
	0x2 /* # starts a word, not a comment (zsh reading from an             \
	     * interactive shell's input without interactive_comments) */

/* struct kb_sh_word.flags */
#define KB_SH_W_QUOTED 0x1 /* part of it was quoted or backslash-escaped */
#define KB_SH_W_GLOB   0x2 /* unquoted * ? or [...]: pathname expansion */
#define KB_SH_W_TILDE  0x4 /* unquoted ~ (zsh: =cmd) the shell may expand */
#define KB_SH_W_OPAQUE 0x8 /* holds $NAME or $( ): its value is not known */
#define KB_SH_W_SPLIT                                                          \
	0x10 /* such an expansion unquoted: split into words and               \
	      * globbed (bash, sh; zsh splits $( ) only) */
#define KB_SH_W_XGLOB                                                          \
	0x20 /* KB_SH_ZSH: an unquoted ^ # or ~ that zsh's extendedglob        \
	      * reads as a pattern (HEAD~1, ^main); alone, the word means      \
	      * the same to every shell in single quotes */

struct kb_sh_word {
	char *s; /* quotes removed, NUL-terminated (the input holds no NUL) */
	unsigned flags;
	size_t start, end; /* its bytes in the input: [start, end), quotes
			    * and line continuations inside it included */
};

enum kb_sh_redir_op {
	KB_SH_R_IN,         /* <   */
	KB_SH_R_OUT,        /* >   */
	KB_SH_R_APPEND,     /* >>  */
	KB_SH_R_CLOBBER,    /* >|  */
	KB_SH_R_RDWR,       /* <>  */
	KB_SH_R_DUPIN,      /* <&  */
	KB_SH_R_DUPOUT,     /* >&  */
	KB_SH_R_ALL,        /* &>  (bash: stdout and stderr) */
	KB_SH_R_ALL_APPEND, /* &>> */
	KB_SH_R_HEREDOC,    /* << and <<-: target is the delimiter */
	KB_SH_R_HERESTR,    /* <<< */
};

struct kb_sh_redir {
	int fd; /* the number written before the operator, -1 when none */
	enum kb_sh_redir_op op;
	struct kb_sh_word target; /* file, fd number, delimiter or string */
	size_t nwords_before;     /* words of the command before it */
};

enum kb_sh_sep {
	KB_SH_SEP_END,      /* end of input */
	KB_SH_SEP_SEMI,     /* ; */
	KB_SH_SEP_NEWLINE,  /* newline */
	KB_SH_SEP_AND,      /* && */
	KB_SH_SEP_OR,       /* || */
	KB_SH_SEP_PIPE,     /* | */
	KB_SH_SEP_PIPE_ALL, /* |& (bash: stdout and stderr) */
	KB_SH_SEP_BG,       /* & */
	KB_SH_SEP_CLOSE,    /* the ) or } of its subshell, group or $( ) */
};

struct kb_sh_cmd {
	struct kb_sh_word *words; /* empty when there are only redirections */
	size_t nwords, wcap;
	struct kb_sh_redir *redirs;
	size_t nredirs, rcap;
	enum kb_sh_sep sep; /* what follows the command */
};

/* Every simple command of the line, those inside subshells, groups and
 * command substitutions included, in the order their first word or
 * redirection was read (a substitution's before the command it is an
 * argument of). The redirections written after a ) or } apply to all the
 * commands of that subshell or group, and are in `gredirs`. */
struct kb_sh_line {
	struct kb_sh_cmd *cmds;
	size_t ncmds, ccap;
	struct kb_sh_redir *gredirs; /* their nwords_before is 0 */
	size_t ngredirs, grcap;
	bool compound;   /* a subshell, a group or a command substitution */
	bool background; /* a & anywhere: a job that outlives the line */
};

/*
 * Parses the `len` bytes at `s` (not necessarily NUL-terminated) into
 * `out`, which must be zeroed and then owns every string in it: free it
 * with kb_shlex_free(), after failure too. `dialect` is KB_SH_ZSH and
 * KB_SH_NOCOMMENT or 0 (dash, bash). Returns 0, or -1 with a short
 * phrase in e->msg ("backquote", "unterminated quote") when the line
 * holds something refused or not understood: NUL bytes, control
 * characters other than tab and newline, invalid UTF-8, Unicode blanks
 * and a ! that an interactive bash or zsh would expand from its history
 * are refused as well. Work and memory are linear in len; nesting is
 * bounded (KB_SH_MAX_GROUPS, KB_SH_MAX_SUBST).
 */
int kb_shlex_parse(const char *s, size_t len, unsigned dialect,
    struct kb_sh_line *out, struct kb_err *e);
void kb_shlex_free(struct kb_sh_line *);

#endif
