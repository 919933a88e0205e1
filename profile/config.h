/*
 * profile/config.h — the one INI reader. Every file kinbox or kinpolicy
 * reads as INI goes through kb_ini_read(): the config layers, the grant
 * stores (sidecar/grants.c) and the session's "always" answers
 * (sidecar/kinpolicy-gate.c); every writer checks its lines with
 * kb_ini_value_ok() so that what it writes reads back exactly.
 */
#ifndef KB_CONFIG_H
#define KB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "../lib/util.h"
#include "policy.h"

/* the longest line (without its newline) the reader accepts: inih's
 * buffer of INI_MAX_LINE (200) bytes holds it with "\n\0" */
#define KB_INI_LINE_MAX 198

/* KB_GRANT_ID_LEN, the hex digits of a grant block's id: profile/policy.h */

struct kb_ini_visitor {
	/* a "[name]" line, each time it appears (inih itself merges
	 * sections of one name; a grant store is a list of blocks); NULL:
	 * not wanted */
	int (*section)(void *ctx, const char *name, int line, struct kb_err *e);
	/* key = value in [section]; -1 with a whole message in `e` stops
	 * the read */
	int (*entry)(void *ctx, const char *section, const char *key,
	    const char *value, int line, struct kb_err *e);
};

/*
 * Reads `file`, judged on its descriptor before the first byte (regular,
 * O_NONBLOCK, size-bounded; `project`: the command's own file, so no
 * symlink and a 64 KiB bound). A control byte other than the tab (and the
 * CR of a CRLF line end) is an error, never dropped: inih trims \f, \v
 * and \r around a value, which would read it otherwise than written.
 * Returns 0, 1 when it does not exist, or -1 with one line in `e`
 * ("file:line: problem; fix").
 */
int kb_ini_read(const char *file, bool project, const struct kb_ini_visitor *,
    void *ctx, struct kb_err *e);

/* The same reader on text already in memory (`name` for messages): for a
 * writer that rewrites what it read, so that both see the same bytes. */
int kb_ini_read_text(const char *name, const char *text, size_t len,
    const struct kb_ini_visitor *, void *ctx, struct kb_err *e);

/*
 * Grant blocks: a "[grant]" section of a session file or a "[workspace]"
 * section of the global config, with its key = value lines as the reader
 * returns them, one "key = value\n" each (the body). kinbox records the
 * blocks a run applied (struct kb_grant_used), kinpolicy lists and
 * revokes them (sidecar/grants.c): both see a block in this one form.
 */
struct kb_grant_block {
	const char *file;
	const char *section; /* "grant" or "workspace" */
	const char *body;
	char id[KB_GRANT_ID_LEN + 1];
};

/* Calls `each` for every grant block of `file`, in order. Returns what
 * kb_ini_read() returns (1: no such file); a store that cannot be read
 * to its end has its blocks before the fault listed. */
int kb_grant_blocks(const char *file,
    void (*each)(const struct kb_grant_block *, void *ctx), void *ctx,
    struct kb_err *e);

/* true for the section names that open a grant block */
bool kb_grant_section(const char *name);

/*
 * A block's id: 16 hex digits of a 64-bit FNV-1a hash of its file,
 * section and body, into `out`. It names a block in the run registry
 * (profile/runs.h) and in kinpolicy grants --json. Not a secret and not
 * collision-proof: two blocks with the same id at worst make kinpolicy
 * revoke signal a run that then finds its own grants intact (each run
 * judges its grants by their whole text).
 */
void kb_grant_id(const char *file, const char *section, const char *body,
    char out[KB_GRANT_ID_LEN + 1]);

/* true for what kinpolicy session new makes, the only names a session
 * file may have: 8 to 64 bytes of [a-z0-9_-], no path tricks */
bool kb_session_id_ok(const char *id);

/* true when "key = value" with a key of `keylen` bytes reads back exactly:
 * within KB_INI_LINE_MAX, no comment character, no control byte (C0 or
 * DEL, the tab and the line breaks among them) and no surrounding blank */
bool kb_ini_value_ok(const char *value, size_t keylen);

#endif
