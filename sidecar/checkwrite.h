/*
 * sidecar/checkwrite.h — kinpolicy check-write: may the agent's in-process
 * write/edit tool (which no OS sandbox wraps) write this path? ALLOW, ASK
 * or DENY, judged at the path's real location (realpath), with the rule
 * that decided. The protected-path list is data (sidecar/protected.c);
 * sidecar/decide.c uses kb_check_write() for edits.
 */
#ifndef KB_CHECKWRITE_H
#define KB_CHECKWRITE_H

#include <limits.h>
#include <stddef.h>

#include "../lib/util.h"

/* Ordered by severity: a combination of judgements keeps the highest. */
enum kb_verdict {
	KB_ALLOW,
	KB_ASK,
	KB_DENY,
};

/* "ALLOW", "ASK", "DENY" ("?" for a value outside the enum). */
const char *kb_verdict_name(enum kb_verdict);

enum kb_mode {
	KB_MODE_AUTO,
	KB_MODE_STRICT,
};

/* "auto" or "strict" (exact, lower case): 0, or -1 and *out untouched. */
int kb_mode_parse(const char *, enum kb_mode *);
const char *kb_mode_name(enum kb_mode);

/*
 * How a table entry matches a canonical path. Names are compared
 * case-sensitively (Linux).
 */
enum kb_protect_how {
	KB_PROTECT_BASENAME,    /* the last component equals the pattern */
	KB_PROTECT_NAME_PREFIX, /* the last component starts with it */
	KB_PROTECT_SUFFIX,      /* the last component ends with it */
	KB_PROTECT_COMPONENT,   /* some component equals it (.git) */
	KB_PROTECT_HOME,        /* $HOME/pattern or anything below it */
	KB_PROTECT_PREFIX,      /* an absolute directory and what is below;
				   a leading "$NAME/" is taken from the
				   environment, the entry is skipped when
				   NAME is unset or not absolute */
};

struct kb_protected {
	const char *pattern;
	enum kb_protect_how how;
};

/* Writes that need a human's yes, even in auto mode. */
extern const struct kb_protected kb_protected_table[];
extern const size_t kb_protected_count;
/* Files that hold secrets: never written through the agent. */
extern const struct kb_protected kb_secret_file_table[];
extern const size_t kb_secret_file_count;

struct kb_cw {
	enum kb_verdict verdict;
	char resolved[PATH_MAX]; /* the location judged */
	char reason[256];        /* one line, control characters replaced */
	char rule[64];           /* "outside-workspace", "secret-file",
				    "protected-path", "hardlink",
				    "workspace", "write-root", "strict"
				    (decide names the same rules the same) */
};

/*
 * Judges a write to `path` (relative paths against `cwd`, which must then
 * be absolute). Rules, first match wins: outside `workspace` and every
 * `roots[i]` → DENY; a secret file → DENY; a protected path → ASK; else
 * ALLOW in auto mode, ASK in strict mode.
 *
 * The path is resolved as open(O_CREAT) would (kb_resolve_write(),
 * profile/resolve.h): existing components through realpath(3), a dangling
 * symlink through its target, a missing tail lexically. It is also judged with
 * ".." taken lexically first (a tool may normalise before it opens), and its
 * components as written are checked against the secret and protected tables (a
 * symlink named .git or .env); the most severe judgement wins.
 *
 * `workspace` and `roots` should be canonical (they are canonicalised again
 * when they exist); `workspace` may be NULL and `roots` NULL with nroots 0.
 * `home` (may be NULL) anchors the home-relative entries.
 *
 * Returns 0 with `out` filled, or -1 with `e` set when the path cannot be
 * resolved at all (empty, relative without an absolute cwd, too long, a
 * symlink loop, a directory that cannot be searched); the caller then
 * exits 125. Reads $XDG_CONFIG_HOME.
 */
int kb_check_write(const char *path, const char *cwd, const char *workspace,
    char *const *roots, size_t nroots, const char *home, enum kb_mode mode,
    struct kb_cw *out, struct kb_err *e);

#endif
