/*
 * classify/readonly.h — is this shell command line provably read-only, for
 * the shell that will run it? The line is lexed by classify/shlex.c; each
 * simple command in it (inside subshells, groups and command
 * substitutions too) must be a known tool whose arguments pass that
 * tool's rules (data in classify/readonly-rules.c), with no redirection that
 * writes. Whatever cannot be proven read-only is unsafe. Pure: no I/O, no
 * globals written.
 */
#ifndef KB_READONLY_H
#define KB_READONLY_H

#include <stdbool.h>
#include <stddef.h>

struct kb_ro_verdict {
	bool safe;        /* provably read-only */
	char reason[256]; /* when unsafe: one short phrase, e.g.
			   * "redirection to a file", "git -c"; "" when safe */
	char *signature;  /* new string, caller frees (kb_ro_verdict_free):
			   * for a single safe segment its command head (with
			   * the subcommand for multi-verb tools: "git status",
			   * "ls"); for anything compound or unsafe, the exact
			   * input string (so an always-allow of "npm test" can
			   * never approve "npm test; rm -rf x"). NUL bytes in
			   * the input are written as the two bytes C0 80
			   * (modified UTF-8), so that the signature stays one C
			   * string that no NUL-free input can equal. */
	char *rewritten;  /* new string or NULL (kb_ro_verdict_free): when
			   * the line is unsafe only because git may run
			   * programs the repository's configuration names
			   * (core.fsmonitor, textconv, the pager, ...), the
			   * same line with the words that turn them off
			   * inserted (GIT_NO_LAZY_FETCH=1, --no-pager,
			   * -c core.fsmonitor=false, --no-textconv, ...),
			   * and with quotes around an argument zsh could
			   * read as a pattern (HEAD~1), which classifies
			   * as safe; NULL otherwise */
};

/*
 * The shell that runs the line. Where bash, dash and zsh read a line
 * differently, the line must be read-only as each of them may read it,
 * interactive or not (history expansion, zsh's comments off): sh and bash
 * are judged alike; zsh adds its own readings (=cmd, extendedglob's ^ # ~,
 * $x[...] subscripts, the arithmetic its printf and test -t/-v do).
 * KB_RO_SHELL_ANY, for a caller that does not know, is judged as zsh,
 * whose rules include the others'.
 */
enum kb_ro_shell {
	KB_RO_SHELL_ANY, /* sh, bash or zsh: read-only in each */
	KB_RO_SHELL_SH,  /* POSIX sh: dash, or bash as sh */
	KB_RO_SHELL_BASH,
	KB_RO_SHELL_ZSH,
};

/* "any", "sh", "bash", "zsh": 0, or -1 (NULL and other names too) */
int kb_ro_shell_parse(const char *, enum kb_ro_shell *);
/* the name of a shell; "any" out of range */
const char *kb_ro_shell_name(enum kb_ro_shell);

/*
 * Classifies the `len` bytes at `cmd` (not necessarily NUL-terminated) as
 * a line for `shell`. Never crashes, never hangs, bounded work on hostile
 * input (unbalanced quotes, 1 MB input, NUL bytes, invalid UTF-8: a NUL
 * byte or anything it cannot parse makes it unsafe). Fills *out, which the
 * caller releases with kb_ro_verdict_free(); a rewritten line is safe for
 * the same shell. Returns 0; -1 with errno EINVAL only when out is NULL,
 * or cmd is NULL with a non-zero len, or shell is out of range.
 */
int kb_readonly_classify_as(const char *cmd, size_t len, enum kb_ro_shell shell,
    struct kb_ro_verdict *out);
/* kb_readonly_classify_as(cmd, len, KB_RO_SHELL_ANY, out) */
int kb_readonly_classify(
    const char *cmd, size_t len, struct kb_ro_verdict *out);

/* Frees out->signature and out->rewritten and sets them to NULL; NULL is
 * a no-op. */
void kb_ro_verdict_free(struct kb_ro_verdict *);

#endif
