/*
 * classify/readonly-tools.h — the predicates of the tools whose options alone
 * do not prove them read-only (enum kb_ro_check in readonly-rules.h): the
 * sed script, find's expression, printf's format and arguments, test's
 * operators, command -v, hash -t, date's operand, git branch/tag's names,
 * tail's obsolete forms, the archivers' listing modes. git's own (global
 * options, diff, blame, the rewrite) are in readonly.c. Each returns 0
 * when the arguments are read-only, else -1 with the reason in `e`.
 */
#ifndef KB_READONLY_TOOLS_H
#define KB_READONLY_TOOLS_H

#include <stdbool.h>
#include <stddef.h>

#include "readonly-getopt.h"

/* sed: its scripts (the KB_RO_SCRIPT options, else the first operand),
 * through kb_ro_sed_script() */
int kb_ro_check_sed(const struct kb_ro_parsed *p, struct kb_err *e);
/* find: the `n` words after "find" */
int kb_ro_check_find(const struct kb_sh_word *a, size_t n, struct kb_err *e);
/* printf: the `n` words after "printf"; dialect is kb_shlex_parse()'s
 * (KB_SH_ZSH: zsh evaluates numeric arguments as arithmetic) */
int kb_ro_check_printf(
    const struct kb_sh_word *a, size_t n, unsigned dialect, struct kb_err *e);
/* test, or [ (`bracket`: a last word ] is dropped) */
int kb_ro_check_test(
    const struct kb_sh_word *a, size_t n, bool bracket, struct kb_err *e);
/* command -v / -V NAME... */
int kb_ro_check_command(const struct kb_sh_word *a, size_t n, struct kb_err *e);
/* hash, hash -t NAME... */
int kb_ro_check_hash(const struct kb_sh_word *a, size_t n, struct kb_err *e);
/* tar: parses the `n` words (old-style `tar tzf x` included) itself */
int kb_ro_check_tar(const struct kb_ro_tool *t, const struct kb_sh_word *a,
    size_t n, struct kb_err *e);
/* unzip; unzip -Z is zipinfo's table */
int kb_ro_check_unzip(const struct kb_ro_tool *t, const struct kb_sh_word *a,
    size_t n, struct kb_err *e);
/* 7z, 7za, 7zr, 7zz: the `n` words after the name */
int kb_ro_check_7z(const struct kb_sh_word *a, size_t n, struct kb_err *e);
/* KB_RO_CHECK_MODE: one of t's KB_RO_MODE options was seen */
int kb_ro_check_mode(const struct kb_ro_tool *t, const struct kb_ro_parsed *p,
    const char *label, struct kb_err *e);
int kb_ro_check_date(const struct kb_ro_parsed *p, struct kb_err *e);
int kb_ro_check_git_list(
    const struct kb_ro_parsed *p, const char *label, struct kb_err *e);
/* tail: parses the `n` words at `a` into `p` (kb_ro_parse_opts) itself */
int kb_ro_check_tail(const struct kb_ro_tool *t, const struct kb_sh_word *a,
    size_t n, struct kb_ro_parsed *p, struct kb_err *e);

#endif
