/*
 * classify/denial-int.h — the denial classifier's insides, shared by
 * denial.c (the judges: policy, paths, the verdict) and denial-text.c
 * (reading a line of a tool's message). Not for use outside classify/.
 */
#ifndef KB_DENIAL_INT_H
#define KB_DENIAL_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "denial.h"

struct line {
	const char *s;
	size_t n;
};

/* denial-text.c: what a line of text names; no policy, no oracle */
bool kb_dn_code_frame(const struct line *l);
bool kb_dn_pathish(const char *s, size_t n, bool quoted);
bool kb_dn_extract_path(
    const struct line *l, size_t limit, char *out, size_t outlen);
size_t kb_dn_all_paths(const struct line *l, char (*out)[PATH_MAX], size_t max);
bool kb_dn_inet_named(const struct line *l);
void kb_dn_find_host(
    const struct line *lines, size_t nlines, size_t i, struct kb_denial *d);
bool kb_dn_words_in(
    const struct line *l, const char *const *words, size_t nwords);
bool kb_dn_sandbox_log_line(
    const struct line *l, char *op, size_t oplen, char *arg, size_t arglen);

#endif
