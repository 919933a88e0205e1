/*
 * classify/readonly.h — is this shell command line provably read-only?
 * The line is lexed by classify/shlex.c; each simple command in it must be
 * a known tool whose arguments pass that tool's rules (data in
 * classify/readonly-rules.c), with no redirection that writes. Whatever
 * cannot be proven read-only is unsafe. Pure: no I/O, no globals written.
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
			   * which classifies as safe; NULL otherwise */
};

/*
 * Classifies the `len` bytes at `cmd` (not necessarily NUL-terminated).
 * Never crashes, never hangs, bounded work on hostile input (unbalanced
 * quotes, 1 MB input, NUL bytes, invalid UTF-8: a NUL byte or anything it
 * cannot parse makes it unsafe). Fills *out, which the caller releases with
 * kb_ro_verdict_free(). Returns 0; -1 with errno EINVAL only when out is
 * NULL, or cmd is NULL with a non-zero len.
 */
int kb_readonly_classify(
    const char *cmd, size_t len, struct kb_ro_verdict *out);

/* Frees out->signature and out->rewritten and sets them to NULL; NULL is
 * a no-op. */
void kb_ro_verdict_free(struct kb_ro_verdict *);

#endif
