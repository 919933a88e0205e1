/*
 * sidecar/agentrules.h — Claude Code's own permission rules for Bash, judged
 * on the command the model wrote, before kinpolicy's hook rewrites it (the
 * agent then matches its rules against the rewrite, where they no longer
 * fire). Pure: the rules come in as the strings of the settings files'
 * permissions.deny, .ask and .allow arrays; sidecar/kinpolicy-hook.c reads
 * them.
 */
#ifndef KB_AGENTRULES_H
#define KB_AGENTRULES_H

#include <stddef.h>

#include "../lib/util.h"

enum kb_rule_hit {
	KB_RULE_NONE,  /* no rule of the user's speaks */
	KB_RULE_ALLOW, /* every part of the command is allowed by a rule */
	KB_RULE_ASK,   /* a part matches an ask rule (and none a deny rule) */
	KB_RULE_DENY,  /* a part matches a deny rule */
};

struct kb_rules {
	const char *const *deny, *const *ask, *const *allow;
	size_t ndeny, nask, nallow;
};

/*
 * The rules on `command`. A rule is "Bash" (every command), "Bash(TEXT)"
 * (the command TEXT), "Bash(PREFIX:*)" (a command starting with PREFIX)
 * or a TEXT with * wildcards (any run of characters). The command is
 * split as the agent splits it: into its simple commands (; && || | & and
 * newlines, subshells and $( ) included), each judged as written and as
 * its words, also without leading NAME=VALUE assignments and wrappers
 * (env, timeout, nice, nohup, time, command, exec, xargs), and the text
 * of a bash -c / sh -c inside, so that a deny rule is never dodged by a
 * rewrite of the same command; a line the lexer refuses is judged whole,
 * and then no rule allows it. *which is the rule that decided (a string
 * of `r`), NULL for KB_RULE_NONE.
 */
enum kb_rule_hit kb_rules_judge(
    const char *command, const struct kb_rules *r, const char **which);

/*
 * The other agents' rules in that form (sidecar/agentpolicy.c), appended to
 * `r`: Codex's execpolicy .rules (prefix_rule: forbidden → deny, prompt →
 * ask, allow → allow; each pattern, its alternatives expanded, as
 * Bash(TOKENS:*)) and Gemini CLI's policy .toml ([[rule]] of the shell
 * tool: deny, ask_user, allow; commandPrefix as Bash(PREFIX:*), none as
 * Bash). 0, or -1 with `why` ("line N: ...") when the text is not one
 * kinpolicy can read whole, or holds a deny or ask rule it cannot judge
 * exactly; the caller then keeps no rule of the file and asks.
 */
struct kb_agent_rules {
	struct kb_strv deny, ask, allow;
};
int kb_codex_rules_parse(const char *text, size_t len, struct kb_agent_rules *r,
    char *why, size_t wl);
int kb_gemini_policy_parse(const char *text, size_t len,
    struct kb_agent_rules *r, char *why, size_t wl);
void kb_agent_rules_free(struct kb_agent_rules *r);

#endif
