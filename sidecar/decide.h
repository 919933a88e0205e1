/*
 * sidecar/decide.h — kinpolicy's permission gate: one tool call of an agent
 * (its kind, tool, command or target path) and the session state in, ALLOW,
 * ASK or DENY out, with the rule of the chain that decided. Pure apart from
 * the path resolution of edits (sidecar/checkwrite.c) and the callbacks the
 * caller passes (the read-only classifier, the session grants).
 */
#ifndef KB_DECIDE_H
#define KB_DECIDE_H

#include <stdbool.h>
#include <stddef.h>

#include "checkwrite.h"

enum kb_kind {
	KB_KIND_READ,
	KB_KIND_EDIT,
	KB_KIND_SHELL,
	KB_KIND_META,
	KB_KIND_MCP,
	KB_KIND_NETWORK,
	KB_KIND_RIG,
	KB_KIND_OUTPOST,
	KB_KIND_PUBLISH,
	KB_KIND_INVALID,
};

/* "read", "edit", ... (exact, lower case): 0, or -1 with *out set to
 * KB_KIND_INVALID (also for NULL and for "invalid"). */
int kb_kind_parse(const char *, enum kb_kind *);
/* The name of a kind; "invalid" for KB_KIND_INVALID and out-of-range. */
const char *kb_kind_name(enum kb_kind);

struct kb_decide_in {
	enum kb_mode mode;
	bool planning;          /* plan mode: nothing but reads runs */
	const char *kind;       /* as given; unknown or NULL: ASK */
	const char *tool;       /* may be NULL */
	const char *command;    /* shell: the command string; may be NULL */
	const char *path;       /* edit: the target path; may be NULL */
	const char *workspace;  /* canonical; may be NULL */
	const char *cwd, *home; /* may be NULL */
	bool read_only_hint;    /* mcp: the tool is adapted as read-only */
	bool sandbox_available; /* kinbox's backend probe succeeded */
	/* shell: the caller can run the call under kinbox --read-only
	 * (kernel-enforced: it writes nothing), so that while planning any
	 * shell call may run; false: only what the classifier proves
	 * read-only (a caller that cannot rewrite the command) */
	bool read_only_run;
	/* The read-only command classifier: true when `command` is provably
	 * read-only. Sets *signature to the "always" signature and
	 * *rewritten to the command rewritten so that it is read-only, or
	 * NULL (new strings the caller frees) whatever it returns, and a
	 * NUL-terminated reason. May be NULL: every AUTO shell call asks. */
	bool (*classify)(const char *command, char **signature,
	    char **rewritten, char *reason, size_t reasonlen, void *ctx);
	/* A human's session "always" grants: true when `signature` is
	 * granted for `kind`. May be NULL: no grants. */
	bool (*session_allows)(
	    const char *kind, const char *signature, void *ctx);
	void *ctx; /* passed to both callbacks */
};

struct kb_decide_out {
	enum kb_verdict verdict;
	char rule[48];    /* the rule that decided: "invalid-kind",
			     "planning-freeze", "mcp-read-only-hint",
			     "mode-table", "mcp", "sandbox", "classifier",
			     "session-always", "edit-no-path",
			     "path-unresolved", "no-workspace", or the
			     check-write rule of an edit's target that
			     raised the verdict ("outside-workspace",
			     "secret-file", "protected-path",
			     "hardlink"): one name per rule in both verbs */
	char reason[256]; /* one line */
	char *signature;  /* shell: the classifier's; others: kind or
			     kind:tool; NULL when none. Owned by `out`:
			     free with kb_decide_out_free() */
	bool read_only;   /* ALLOW on the condition that the call runs
			     under kinbox --read-only (planning) */
	char *rewritten;  /* shell, ASK by the classifier: the command
			     rewritten to be read-only (git with the options
			     that keep the repository's configured programs
			     from running), which the classifier allows;
			     NULL when none. Owned by `out` */
};

/*
 * The chain, first decisive step wins:
 *  1. an unknown kind → ASK;
 *  2. planning: a shell call → ALLOW under kinbox --read-only (out->
 *     read_only) when the caller can run it so and a sandbox is there,
 *     else only what the classifier proves read-only; everything else
 *     but read, meta and a read-only MCP tool → DENY;
 *  3. an MCP tool adapted as read-only counts as a read → ALLOW; any
 *     other MCP call → ASK, in every mode;
 *  4. the mode table; SANDBOX is ALLOW with a sandbox, else AUTO; AUTO is
 *     the classifier's ALLOW (provably read-only) or ASK;
 *  5. edits: kb_check_write() may raise the verdict (outside the
 *     workspace or a secret file → DENY, a protected path or a file
 *     with other hard links → ASK), never lower it;
 *  6. a session "always" grant of the signature turns an ASK of the mode
 *     table, the classifier or the MCP rule into ALLOW; never a DENY, and
 *     never the ASK of a protected path or of a request it cannot judge.
 * Returns 0 (-1 only for a NULL `out`). Never fails open: what it cannot
 * judge ends in ASK. Any earlier content of `out` is overwritten, not
 * freed.
 */
int kb_decide(const struct kb_decide_in *, struct kb_decide_out *);
void kb_decide_out_free(struct kb_decide_out *);

#endif
