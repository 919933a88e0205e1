/*
 * gitguard/gitconfig.h — git's config syntax, read as git reads it (see
 * gitconfig.c).
 */
#ifndef KB_GITCONFIG_H
#define KB_GITCONFIG_H

#include "../lib/util.h"

/*
 * Called for each variable of a config, in order, with the section and
 * the key lowercased, the subsection as written ([x "Sub"]; lowercased in
 * the old [x.sub] spelling) or NULL when there is none, and the value
 * unquoted, or NULL for a bare key ("[core] bare" without '='). A
 * non-zero return stops the parse and is returned.
 */
typedef int (*kb_gitcfg_var_fn)(const char *section, const char *sub,
    const char *key, const char *value, void *ctx);

/* The `len` bytes at `text` (NULs and all) read as git reads a config
 * file; what git would refuse is skipped, line by line. */
int kb_gitcfg_parse_mem(
    const char *text, size_t len, kb_gitcfg_var_fn fn, void *ctx);

/* The older form: for a NUL-terminated text, with the subsection "" when
 * there is none and the value "true" for a bare key. */
typedef int (*kb_gitcfg_fn)(const char *section, const char *sub,
    const char *key, const char *value, void *ctx);

int kb_gitcfg_parse(const char *text, kb_gitcfg_fn fn, void *ctx);

/*
 * What a config names that git reads or runs from, appended in the order
 * it appears: every include.path and every includeIf.<condition>.path
 * value, whatever the condition, to `includes`; every core.hooksPath value
 * to `hookspaths` (may be NULL). Values as written, before git's ~
 * expansion.
 */
void kb_gitcfg_refs(const char *text, size_t len, struct kb_strv *includes,
    struct kb_strv *hookspaths);

/* The last value of section.key (no subsection), a new string, or NULL. */
char *kb_gitcfg_get(const char *text, const char *section, const char *key);

/*
 * A config with only what cannot make git run a program: core's format and
 * boolean keys, extensions.objectformat, and the remote url/fetch and
 * branch remote/merge lines git clone writes (bare values only). Byte for
 * byte what git init writes when the input is what git init wrote. A new
 * string.
 */
char *kb_gitcfg_neutral(const char *text);

#endif
