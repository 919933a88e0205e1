/*
 * sidecar/hookinstall.h — what `kinpolicy hook install AGENT` and `hook
 * uninstall AGENT` do to the agent's settings file, as pure functions on
 * its JSON (the file itself is sidecar/kinpolicy-install.c's): the hook entries
 * the README gives for each agent, whether a command is kinpolicy's hook
 * command, the merge, its inverse, and the text written (2-space indent,
 * keys in their order).
 *
 * The merge keeps every key, rule, permission and other hook of the file:
 * it only adds, updates or removes the handlers whose command is a
 * kinpolicy hook command for the agent (kb_hookinstall_is_ours), the
 * matcher groups it made for them, and the event arrays and "hooks"
 * object that hold nothing else.
 */
#ifndef KB_HOOKINSTALL_H
#define KB_HOOKINSTALL_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "../lib/util.h"
#include "hook.h"

/* One entry of an agent's block: the event, the matcher (NULL: the group
 * has none) and the timeout (0: none; seconds, Gemini CLI milliseconds).
 * Cursor's entries are handlers without groups: no matcher, no type. */
struct kb_hookinstall_entry {
	const char *event;
	const char *matcher;
	int timeout;
};

/* The agent's block, as README.md "Use with your agent" gives it; *n gets
 * the number of entries. */
const struct kb_hookinstall_entry *kb_hookinstall_entries(
    enum kb_agent, size_t *n);

/* The file the agent reads, relative to its directory in the home
 * directory or the project: ".claude/settings.json", ".codex/hooks.json",
 * ".gemini/settings.json", ".cursor/hooks.json". */
const char *kb_hookinstall_relpath(enum kb_agent);

/* The hook command: `kinpolicy` (an absolute path) quoted for a POSIX
 * shell when it needs to be, " hook ", the agent's name. A new string. */
char *kb_hookinstall_command(const char *kinpolicy, enum kb_agent);

/*
 * Is `command` a kinpolicy hook command for `agent`? Its first word, its
 * quotes taken off as a shell takes them ('...', "...", backslashes; a
 * $VAR left as written, a command substitution or an operator not a
 * word), is "kinpolicy" or a path ending in "/kinpolicy" ($HOME/bin/...),
 * then blanks, "hook", blanks, the agent's name, and the end or a blank.
 * *rest (when not NULL) points at what follows the agent's name: "" or
 * the options the command passes (" --mode strict"), kept on update.
 */
bool kb_hookinstall_is_ours(
    const char *command, enum kb_agent, const char **rest);

/* What install or uninstall did to one event */
enum kb_hookinstall_what {
	KB_HI_SAME,    /* the entry was there as it should be */
	KB_HI_ADDED,   /* a new entry */
	KB_HI_UPDATED, /* one of kinpolicy's entries rewritten */
	KB_HI_REMOVED, /* uninstall: kinpolicy's handlers taken out */
};

struct kb_hookinstall_change {
	char *event;
	enum kb_hookinstall_what what;
	char *was;      /* UPDATED, REMOVED: the (first) command it had */
	size_t removed; /* REMOVED: how many handlers; UPDATED: how many of
			   kinpolicy's handlers were replaced by the one */
};

#define KB_HOOKINSTALL_MAX_CHANGES 64
struct kb_hookinstall_report {
	struct kb_hookinstall_change ch[KB_HOOKINSTALL_MAX_CHANGES];
	size_t n;
};
void kb_hookinstall_report_free(struct kb_hookinstall_report *);
/* true when an entry of the report is not KB_HI_SAME */
bool kb_hookinstall_changed(const struct kb_hookinstall_report *);

/*
 * A settings file's text as JSON: an object, without a duplicate key
 * (jansson would keep one of them, and the other would be lost); an empty
 * or blank text is {}. NULL with `e` (which names the line and column).
 */
json_t *kb_hookinstall_parse(const char *text, size_t len, struct kb_err *e);

/*
 * Install the agent's block into `doc` (changed in place; on error it may
 * be half changed: merge into a copy). For each entry: every handler of
 * that event whose command is kinpolicy's hook command for the agent is
 * taken out (a matcher group left without a handler goes with it), and
 * the entry's group (Cursor: handler) takes the place of the first group
 * that went, else it goes at the end of the event's array; its command is
 * `command` followed by the options the old one passed. Missing
 * containers are added at the end of their object. Cursor's file also
 * gets "version": 1 when it has none. 0, or -1 with `e` naming the part
 * of the file whose shape is not the agent's ("hooks" not an object, an
 * event not an array, a group or handler not an object, a group's
 * "hooks" not an array, a Cursor "version" other than 1).
 */
int kb_hookinstall_install(json_t *doc, enum kb_agent, const char *command,
    struct kb_hookinstall_report *r, struct kb_err *e);

/*
 * The inverse: every handler, in any event, whose command is kinpolicy's
 * hook command for the agent is taken out; a matcher group, an event array
 * and the "hooks" object left empty by that go too (one that was empty
 * before stays). Parts of "hooks" that are not event arrays of objects
 * are left alone, but the shape of the entries' own events is checked as
 * install checks it. 0, or -1 with `e`.
 */
int kb_hookinstall_uninstall(json_t *doc, enum kb_agent,
    struct kb_hookinstall_report *r, struct kb_err *e);

/*
 * Claude Code's shell prefix (kinbox-sh(1), --claude-code): with `prefix`
 * (the command, e.g. "/usr/local/bin/kinbox-sh --claude-code"), sets
 * env.CLAUDE_CODE_SHELL_PREFIX to it when it is absent or kinbox-sh's
 * (any path ending in kinbox-sh, then --claude-code), so that Claude Code
 * runs every Bash call under kinbox and the hook need not rewrite; a prefix
 * of another program is kept, and *other (when not NULL) names it. With
 * `prefix` NULL (uninstall), removes kinbox-sh's, and "env" when that
 * leaves it empty. Reported as the change of "env.CLAUDE_CODE_SHELL_PREFIX".
 * 0, or -1 with `e` when "env" is not an object.
 */
int kb_hookinstall_claude_prefix(json_t *doc, const char *prefix,
    struct kb_hookinstall_report *r, const char **other, struct kb_err *e);

/* Is `prefix` kinbox-sh's --claude-code prefix? */
bool kb_hookinstall_prefix_is_ours(const char *prefix);

/* The text written: 2-space indent, keys in the file's order, UTF-8 as it
 * is, every real with the fewest digits that read back to the same
 * number, and a final newline. A new string. */
char *kb_hookinstall_dump(const json_t *doc);

/* When the settings turn the agent's hooks off (Claude Code
 * "disableAllHooks": true, Gemini CLI "hooksConfig": {"enabled": false}):
 * what says so, for a warning; else NULL. A static string. */
const char *kb_hookinstall_disabled(const json_t *doc, enum kb_agent);

/*
 * Codex's config.toml text: the line (1-based) that turns hooks off
 * ("hooks = false" or the deprecated "codex_hooks = false" in [features],
 * or features.hooks = false at the top), else 0. A line-based reading for
 * a warning only: nothing is written to config.toml.
 */
size_t kb_hookinstall_codex_off(const char *toml);

#endif
