/*
 * classify/shlex.h — a conservative lexer for one shell command line, the
 * subset on which bash, dash and POSIX sh agree. It splits the line into
 * simple commands joined by ; && || | |& & and newlines, removes quotes,
 * and records redirections and here-documents. Whatever makes the words
 * depend on the shell's state (parameter, command, arithmetic and process
 * substitution, brace expansion, subshells and groups) is refused, not
 * modelled. Pure: no I/O. Used by classify/readonly.c.
 */
#ifndef KB_SHLEX_H
#define KB_SHLEX_H

#include <stddef.h>

#include "../lib/util.h"

#define KB_SH_MAX_INPUT    (64 * 1024) /* longer lines are refused unread */
#define KB_SH_MAX_HEREDOCS 16          /* pending here-documents on one line */

/* struct kb_sh_word.flags */
#define KB_SH_W_QUOTED 0x1 /* part of it was quoted or backslash-escaped */
#define KB_SH_W_GLOB   0x2 /* unquoted * ? or [...]: pathname expansion */
#define KB_SH_W_TILDE  0x4 /* unquoted ~ (zsh: =cmd) the shell may expand */

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
};

struct kb_sh_cmd {
	struct kb_sh_word *words; /* empty when there are only redirections */
	size_t nwords, wcap;
	struct kb_sh_redir *redirs;
	size_t nredirs, rcap;
	enum kb_sh_sep sep; /* what follows the command */
};

struct kb_sh_line {
	struct kb_sh_cmd *cmds;
	size_t ncmds, ccap;
};

/*
 * Parses the `len` bytes at `s` (not necessarily NUL-terminated) into
 * `out`, which must be zeroed and then owns every string in it: free it
 * with kb_shlex_free(), after failure too. Returns 0, or -1 with a short
 * phrase in e->msg ("command substitution", "unterminated quote") when the
 * line holds something refused or not understood: NUL bytes, control
 * characters other than tab and newline, invalid UTF-8 and Unicode blanks
 * are refused as well. Work and memory are linear in len.
 */
int kb_shlex_parse(
    const char *s, size_t len, struct kb_sh_line *out, struct kb_err *e);
void kb_shlex_free(struct kb_sh_line *);

#endif
