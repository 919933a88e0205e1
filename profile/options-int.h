/*
 * profile/options-int.h — the setters the option table names: each row's
 * .set (profile/option-table.c) is one of these, defined in
 * profile/options.c. Callers outside the two go through kb_option_set()
 * (options.h). Not for use outside profile/.
 */
#ifndef KB_OPTIONS_INT_H
#define KB_OPTIONS_INT_H

#include "options.h"

int kb_optset_allow_host(struct kb_policy *, const struct kb_option *,
    const char *, const struct kb_src *, struct kb_err *);
int kb_optset_allow_socket(struct kb_policy *, const struct kb_option *,
    const char *, const struct kb_src *, struct kb_err *);
int kb_optset_backend(struct kb_policy *, const struct kb_option *,
    const char *, const struct kb_src *, struct kb_err *);
int kb_optset_bool(struct kb_policy *, const struct kb_option *, const char *,
    const struct kb_src *, struct kb_err *);
int kb_optset_cache(struct kb_policy *, const struct kb_option *, const char *,
    const struct kb_src *, struct kb_err *);
int kb_optset_device(struct kb_policy *, const struct kb_option *, const char *,
    const struct kb_src *, struct kb_err *);
int kb_optset_duration(struct kb_policy *, const struct kb_option *,
    const char *, const struct kb_src *, struct kb_err *);
int kb_optset_env_name(struct kb_policy *, const struct kb_option *,
    const char *, const struct kb_src *, struct kb_err *);
int kb_optset_keep_fd(struct kb_policy *, const struct kb_option *,
    const char *, const struct kb_src *, struct kb_err *);
int kb_optset_mask(struct kb_policy *, const struct kb_option *, const char *,
    const struct kb_src *, struct kb_err *);
int kb_optset_memory(struct kb_policy *, const struct kb_option *, const char *,
    const struct kb_src *, struct kb_err *);
int kb_optset_mode(struct kb_policy *, const struct kb_option *, const char *,
    const struct kb_src *, struct kb_err *);
int kb_optset_require(struct kb_policy *, const struct kb_option *,
    const char *, const struct kb_src *, struct kb_err *);
int kb_optset_rlimit(struct kb_policy *, const struct kb_option *, const char *,
    const struct kb_src *, struct kb_err *);
int kb_optset_setenv(struct kb_policy *, const struct kb_option *, const char *,
    const struct kb_src *, struct kb_err *);
int kb_optset_workspace(struct kb_policy *, const struct kb_option *,
    const char *, const struct kb_src *, struct kb_err *);
int kb_optset_write(struct kb_policy *, const struct kb_option *, const char *,
    const struct kb_src *, struct kb_err *);

#endif
