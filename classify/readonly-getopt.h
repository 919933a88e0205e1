/*
 * classify/readonly-getopt.h — how the read-only classifier reads a command's
 * options: GNU getopt_long's rules (clusters, attached and separate
 * values, unambiguous long prefixes, "--", options after operands) held
 * against the tool's kb_ro_opt table (readonly-rules.h). What it finds
 * goes to the tool's predicate (readonly-tools.h, and git's in
 * readonly.c). Not a public interface: only the classifier's files
 * include it.
 */
#ifndef KB_READONLY_GETOPT_H
#define KB_READONLY_GETOPT_H

#include <stdbool.h>
#include <stddef.h>

#include "../lib/util.h"
#include "readonly-rules.h"
#include "shlex.h"

/* at most this much of a user's word goes in a reason */
#define KB_RO_SHOWN 40

struct kb_ro_seen {
	const struct kb_ro_opt *opt;
	const char *val;                /* its value, NULL when none */
	const struct kb_sh_word *vword; /* the word the value was read from */
};

/* what kb_ro_parse_opts() found in a command's arguments */
struct kb_ro_parsed {
	const struct kb_sh_word **operands;
	size_t noperands;
	size_t nbefore; /* operands before "--" (when dashdash) */
	bool dashdash;
	struct kb_ro_seen *seen;
	size_t nseen, seencap;
};

/*
 * Splits the `n` arguments at `a` of tool `t` into options and operands
 * the way GNU getopt_long does (options may follow operands; "--" ends
 * them; "-" is an operand), refusing what the tool's table denies or does
 * not know; `label` names the tool in the reason. `p` is zeroed by the
 * caller, with p->operands holding room for `n`; the caller frees
 * p->operands and p->seen. 0, or -1 with `e` set.
 */
int kb_ro_parse_opts(const struct kb_ro_tool *t, const char *label,
    const struct kb_sh_word *a, size_t n, struct kb_ro_parsed *p,
    struct kb_err *e);

/* c as a reason may quote it: printable ASCII, else '?' */
char kb_ro_shown(char c);
/* how much of the n bytes at s a reason quotes: at most KB_RO_SHOWN, and
 * never half a UTF-8 character (reasons may end up in JSON) */
int kb_ro_shown_len(const char *s, size_t n);

#endif
