/*
 * classify/readonly-sed.h — the sed script reader of the read-only
 * classifier.
 */
#ifndef KB_READONLY_SED_H
#define KB_READONLY_SED_H

#include "../lib/util.h"

/* 0 when the GNU sed script `script` can neither write a file nor run a
 * program (no w, W, e, s///w, s///e), else -1 with the reason in `e`
 * (also for anything this reader cannot follow exactly). */
int kb_ro_sed_script(const char *script, struct kb_err *e);

#endif
