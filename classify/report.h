/*
 * classify/report.h — a denial as people and programs read it: one human
 * line on stderr, one JSON object (jansson) for --json-fd and the journal.
 */
#ifndef KB_REPORT_H
#define KB_REPORT_H

#include "denial.h"

#define KB_ID_LEN 20 /* "sbx_" + 16 hex digits */

/* A new random denial id (64 bits from getrandom), NUL-terminated. Returns
 * -1 when the kernel has no randomness to give. */
int kb_denial_id(char out[KB_ID_LEN + 1]);

/* The one-line report, without a trailing newline: every field escaped
 * (kb_buf_escape), so it prints as it is; it says that the denial was
 * read from the command's stderr. Caller frees. */
char *kb_report_line(const struct kb_denial *, const char *id);

/* The JSON record of a run's n denials ("schema": 1): the first one's
 * fingerprint, the grants all of them suggest, "denials" (each one's
 * fingerprint), the exact argv, cwd, exit status, the backend that ran
 * and the policy in force. Caller frees. */
char *kb_report_json(const struct kb_denial *, size_t n, const char *id,
    const struct kb_policy *, enum kb_backend_kind ran, int exit_status);

/* The fingerprints alone (class, evidence, reason, path, host, suggest;
 * "denials"), as `kinpolicy fingerprint --json` prints them; n may be 0
 * (class "none"). Caller frees. */
char *kb_report_fingerprint_json(const struct kb_denial *, size_t n);

#endif
