/*
 * sidecar/hook.h — what `kinpolicy hook AGENT` decides, as pure functions:
 * the agents it speaks to, how each one's permission mode maps to the
 * gate's (decide's --mode and --planning), the rewrite of a shell command
 * to run under kinbox and its exact inverse (a command that is already
 * that rewrite is not wrapped twice), and the denial ids kinbox printed in
 * a tool's output. The JSON of each agent is sidecar/kinpolicy-hook.c's.
 */
#ifndef KB_HOOK_H
#define KB_HOOK_H

#include <stdbool.h>
#include <stddef.h>

#include "../lib/util.h"
#include "checkwrite.h"

enum kb_agent {
	KB_AGENT_CLAUDE, /* claude-code */
	KB_AGENT_CODEX,  /* codex */
	KB_AGENT_GEMINI, /* gemini */
	KB_AGENT_CURSOR, /* cursor */
};

/* "claude-code", "codex", "gemini", "cursor": 0, or -1 */
int kb_agent_parse(const char *, enum kb_agent *);
const char *kb_agent_name(enum kb_agent);

/* The gate's mode for an agent's permission mode (NULL when the agent
 * sends none): see kb_hook_mode(). */
struct kb_hook_mode {
	enum kb_mode mode;
	bool planning;   /* the agent plans: nothing but reads runs */
	bool can_ask;    /* the agent can show a prompt for "ask" (Codex
			    cannot: an ask is answered deny, with the reason) */
	const char *why; /* the row of the table, for the reason */
};

/*
 * The table (kinpolicy(1), HOOKS):
 *   Claude Code  default, acceptEdits            → strict
 *                auto, dontAsk, bypassPermissions → auto
 *                plan                             → the planning freeze
 *                missing or unknown               → strict
 *   Codex        default (its approval policy still judges the
 *                rewritten command), bypassPermissions → auto;
 *                plan → freeze; unknown → auto; ask is deny
 *   Gemini CLI   no mode in its input: auto (its policy engine still
 *                judges the rewritten command)
 *   Cursor       no mode in its input: auto
 * `override` ("auto", "strict", "plan"; NULL for none) is --mode, which
 * wins. 0, or -1 for an unknown override.
 */
int kb_hook_mode(enum kb_agent, const char *permission_mode,
    const char *override, struct kb_hook_mode *out);

/*
 * The rewrite: KINBOX --workspace ROOT -- bash -c 'COMMAND' (with
 * `read_only`, planning: KINBOX --read-only --workspace ...), each part
 * quoted for any POSIX shell (single quotes, ' as '\''), so that bash -c
 * gets COMMAND byte for byte, whatever it holds; with a `session` (the
 * agent session's kinbox session; NULL for none), KINBOX_SESSION=SESSION
 * before it, so that the run has the session's grants whether or not the
 * agent has an env file to export it. A new string.
 */
char *kb_hook_wrap(const char *kinbox, const char *root, const char *session,
    bool read_only, const char *command);

/*
 * Is `command` exactly a rewrite kb_hook_wrap() makes, with `kinbox` (or
 * the bare name kinbox), `root`, `session` (NULL: none) and `read_only`
 * (the one form: a read-only rewrite is not one of a run that may write,
 * nor the other way round)? Then the original
 * command is returned (a new string), else NULL: anything else, a kinbox run
 * with other options (--net, --unconfined), a second command after it, a
 * redirection, is an ordinary command and is wrapped.
 */
char *kb_hook_unwrap(const char *kinbox, const char *root, const char *session,
    bool read_only, const char *command);

/*
 * The paths a Codex apply_patch text adds, deletes, updates or moves to,
 * read as Codex's own parser reads it (codex-rs/apply-patch/src/parser.rs,
 * lenient mode: white space around markers, the heredoc form), pushed
 * onto `out` as written (relative to the call's directory, or absolute).
 * 0, or -1 when Codex would refuse the patch too (the caller refuses it:
 * what cannot be read exactly is not judged).
 */
int kb_hook_patch_paths(const char *patch, struct kb_strv *out);

/* The denial ids ("sbx_" and 16 hex digits) of the "kinbox: " lines of
 * `text` (a tool's output), in order, each once, at most `max`. */
size_t kb_hook_denial_ids(const char *text, char (*ids)[24], size_t max);

#endif
