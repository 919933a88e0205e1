/*
 * policy/config.h — the one INI reader. Every file kinbox or kinpolicy
 * reads as INI goes through kb_ini_read(): the config layers, the grant
 * stores (gate/grants.c) and the session's "always" answers
 * (kinpolicy-gate.c); every writer checks its lines with kb_ini_value_ok()
 * so that what it writes reads back exactly.
 */
#ifndef KB_CONFIG_H
#define KB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "../lib/util.h"

/* the longest line (without its newline) the reader accepts: inih's
 * buffer of INI_MAX_LINE (200) bytes holds it with "\n\0" */
#define KB_INI_LINE_MAX 198

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
 * symlink and a 64 KiB bound). Returns 0, 1 when it does not exist, or -1
 * with one line in `e` ("file:line: problem; fix").
 */
int kb_ini_read(const char *file, bool project, const struct kb_ini_visitor *,
    void *ctx, struct kb_err *e);

/* The same reader on text already in memory (`name` for messages): for a
 * writer that rewrites what it read, so that both see the same bytes. */
int kb_ini_read_text(const char *name, const char *text, size_t len,
    const struct kb_ini_visitor *, void *ctx, struct kb_err *e);

/* true when "key = value" with a key of `keylen` bytes reads back exactly:
 * within KB_INI_LINE_MAX, no comment character, line break or
 * surrounding blank */
bool kb_ini_value_ok(const char *value, size_t keylen);

#endif
