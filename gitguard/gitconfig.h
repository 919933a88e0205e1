/*
 * profile/gitconfig.h — the little of git's config syntax kinbox reads.
 */
#ifndef KB_GITCONFIG_H
#define KB_GITCONFIG_H

#include "../lib/util.h"

/* Called for each "key = value" with the section and key lowercased, the
 * subsection as written ("" when none) and the value unquoted. A non-zero
 * return stops the parse and is returned. */
typedef int (*kb_gitcfg_fn)(const char *section, const char *sub,
    const char *key, const char *value, void *ctx);

int kb_gitcfg_parse(const char *text, kb_gitcfg_fn fn, void *ctx);

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
