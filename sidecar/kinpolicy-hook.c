/*
 * sidecar/kinpolicy-hook.c — `kinpolicy hook AGENT`: one hook event of a coding
 * agent (Claude Code, Codex, Gemini CLI, Cursor) as JSON on stdin, the
 * answer in that agent's own schema on stdout.
 *
 *   a shell call    → rewritten to run under kinbox (the project root as
 *                     workspace, the agent's directory kept) and answered
 *                     as kinpolicy decide says for the agent's mode; never
 *                     an unwrapped command allowed where no sandbox works
 *   a file edit     → check-write: DENY deny, ASK ask, ALLOW no opinion
 *   a failed call   → the denial kinbox reported, with the grant and retry
 *                     a human would run, as context for the model
 *   a session start → a kinbox session, exported as KINBOX_SESSION where
 *                     the agent reads an env file
 *
 * Fail closed: the work runs in a child; if it dies, crashes or cannot
 * judge the event (malformed input, an unknown event), the parent answers
 * deny in the agent's schema, says why on stderr and exits 2, which blocks
 * the call in all four agents (an exit status other than 0 and 2, or an
 * output the agent cannot parse, makes Claude Code and Codex run the tool
 * anyway). Only fields of the agents' published schemas are written
 * (Codex treats an unknown field as a failed hook, and runs the tool).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "../classify/report.h"
#include "../host/status.h"
#include "../lib/util.h"
#include "../profile/policy.h"
#include "agentrules.h"
#include "checkwrite.h"
#include "decide.h"
#include "grants.h"
#include "hook.h"
#include "kinpolicy-journal.h"
#include "kinpolicy.h"

#define HOOK_MAX_INPUT                                                         \
	(1024 * 1024) /* an event larger than this is refused                  \
		       */
#define MAX_ANSWER (256 * 1024)
#define MAX_IDS    4

struct hook {
	enum kb_agent agent;
	const char *override;  /* --mode */
	char kinbox[PATH_MAX]; /* the kinbox the rewrite runs */
	json_t *in;
	const char *event;
	bool pretool; /* Cursor's preToolUse (it rewrites; no ask) */
	/* the agent's session, when kinpolicy keeps one for it (agent
	 * session id → kinbox session and project root) */
	char *session;
	char *root;
	struct kb_buf out; /* the answer; empty: no opinion */
};

/* --- the answers ------------------------------------------------------------
 */

/* the answer: one JSON object on one line */
static void
kp_answer(struct hook *h, json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);

	if (s == NULL)
		die("hook: the answer could not be written (out of memory)");
	kb_buf_puts(&h->out, s);
	kb_buf_puts(&h->out, "\n");
	free(s);
	json_decref(o);
}

/* A string for JSON: bytes that are not UTF-8 replaced (a command's path
 * names them); never NULL. */
static json_t *
jtext(const char *s)
{
	json_t *j = kp_json_text(s);

	if (j == NULL)
		die("out of memory");
	return j;
}

/* the agent's tool_input with its command replaced by `command`, every
 * other key as the agent sent it */
static json_t *
input_with(struct hook *h, const char *command)
{
	json_t *ti = json_deep_copy(json_object_get(h->in, "tool_input"));

	if (!json_is_object(ti)) {
		json_decref(ti);
		ti = json_object();
	}
	json_object_set_new(ti, "command", jtext(command));
	return ti;
}

/* PreToolUse-like decisions. `rewritten` the command to run instead (NULL:
 * unchanged); `decision` "allow", "ask" or "deny". */
static void
answer_decision(struct hook *h, const char *decision, const char *reason,
    const char *rewritten)
{
	json_t *o = json_object(), *hs;

	switch (h->agent) {
	case KB_AGENT_CLAUDE:
	case KB_AGENT_CODEX:
		hs = json_object();
		json_object_set_new(
		    hs, "hookEventName", json_string("PreToolUse"));
		json_object_set_new(
		    hs, "permissionDecision", json_string(decision));
		json_object_set_new(
		    hs, "permissionDecisionReason", jtext(reason));
		if (rewritten != NULL)
			/* Claude Code: updatedInput replaces the whole input,
			 * so every other field goes back unchanged; Codex's is
			 * {command} alone */
			json_object_set_new(
			    hs, "updatedInput", input_with(h, rewritten));
		json_object_set_new(o, "hookSpecificOutput", hs);
		break;
	case KB_AGENT_GEMINI:
		json_object_set_new(o, "decision", json_string(decision));
		json_object_set_new(o, "reason", jtext(reason));
		if (rewritten != NULL) {
			/* Gemini CLI builds the call from this object alone
			 * (0.61: tool.build(modifiedInput)): every argument
			 * the model gave (dir_path, is_background,
			 * description) goes back, the command replaced */
			hs = json_object();
			json_object_set_new(
			    hs, "tool_input", input_with(h, rewritten));
			json_object_set_new(o, "hookSpecificOutput", hs);
		}
		break;
	case KB_AGENT_CURSOR:
		/* preToolUse knows allow and deny only */
		json_object_set_new(o, "permission",
		    json_string(h->pretool && strcmp(decision, "ask") == 0
				    ? "deny"
				    : decision));
		json_object_set_new(o, "user_message", jtext(reason));
		json_object_set_new(o, "agent_message", jtext(reason));
		if (rewritten != NULL && h->pretool)
			json_object_set_new(
			    o, "updated_input", input_with(h, rewritten));
		break;
	}
	kp_answer(h, o);
}

/* context for the model after a tool call (PostToolUseFailure,
 * PostToolUse, AfterTool) */
static void
answer_context(struct hook *h, const char *text)
{
	json_t *o = json_object(), *hs = json_object();

	if (h->agent != KB_AGENT_GEMINI)
		json_object_set_new(hs, "hookEventName", json_string(h->event));
	json_object_set_new(hs, "additionalContext", jtext(text));
	json_object_set_new(o, "hookSpecificOutput", hs);
	kp_answer(h, o);
}

/* --- what the event says ---------------------------------------------------
 */

static const char *
str(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* the agent's working directory: absolute and existing, else ours */
static char *
event_cwd(struct hook *h)
{
	const char *c = str(h->in, "cwd");
	char *r;

	if (c != NULL && c[0] == '/' && (r = realpath(c, NULL)) != NULL)
		return r;
	if ((r = getcwd(NULL, 0)) == NULL)
		die_errno("hook: getcwd");
	return r;
}

/*
 * The project root, the workspace kinbox gets: the one recorded when the
 * agent's session started (agent_session()), else what the agent names
 * (Claude Code's CLAUDE_PROJECT_DIR, Gemini's GEMINI_PROJECT_DIR, Cursor's
 * workspace root holding `cwd`, else its first), else the top of the git
 * repository around `cwd`, the agent's own directory (not the home
 * directory or /, which no workspace may be), else `cwd`. Never a
 * directory the model named: that is judged against this root.
 */
static char *
kp_hook_project_root(struct hook *h, const char *cwd)
{
	const char *named = NULL;
	_cleanup_free_ char *home = kb_paths_home();
	char *r, dir[PATH_MAX];
	json_t *roots;

	if (h->root != NULL)
		return xstrdup(h->root);
	switch (h->agent) {
	case KB_AGENT_CLAUDE:
		named = getenv("CLAUDE_PROJECT_DIR");
		break;
	case KB_AGENT_GEMINI:
		named = getenv("GEMINI_PROJECT_DIR");
		break;
	case KB_AGENT_CURSOR:
		/* the workspace root that holds cwd, else the first */
		roots = json_object_get(h->in, "workspace_roots");
		for (size_t i = 0; json_is_array(roots) &&
				   i < json_array_size(roots) && named == NULL;
		     i++) {
			const char *c =
			    json_string_value(json_array_get(roots, i));
			_cleanup_free_ char *rc =
			    c != NULL && c[0] == '/' ? realpath(c, NULL) : NULL;

			if (rc != NULL && kb_path_within(cwd, rc))
				named = c;
		}
		if (named == NULL && json_is_array(roots) &&
		    json_is_string(json_array_get(roots, 0)))
			named = json_string_value(json_array_get(roots, 0));
		break;
	case KB_AGENT_CODEX:
		break;
	}
	if (named != NULL && named[0] == '/' &&
	    (r = realpath(named, NULL)) != NULL) {
		/* the agent's project, whether or not cwd lies in it: a
		 * directory outside it is refused (shell_call), never made
		 * the workspace */
		if (strcmp(r, "/") != 0 &&
		    (home == NULL || strcmp(r, home) != 0))
			return r;
		free(r);
	}
	snprintf(dir, sizeof(dir), "%s", cwd);
	for (;;) {
		char probe[PATH_MAX + 8], *sl;
		struct stat st;

		if (strcmp(dir, "/") == 0 ||
		    (home != NULL && strcmp(dir, home) == 0))
			break;
		snprintf(probe, sizeof(probe), "%s/.git", dir);
		if (lstat(probe, &st) == 0)
			return xstrdup(dir);
		if ((sl = strrchr(dir, '/')) == NULL)
			break;
		if (sl == dir)
			sl[1] = '\0';
		else
			*sl = '\0';
	}
	return xstrdup(cwd);
}

/* --- the agent's own permission rules ---------------------------------------
 * Claude Code matches its allow, ask and deny rules against the command it
 * is about to run: after the rewrite, kinbox's. So the hook judges the
 * model's command against them first, from every settings file Claude
 * Code reads (managed, user, project, local). A file it cannot read as
 * JSON leaves the rules unknown: the call is asked, never allowed. */
struct agent_rules {
	struct kb_strv deny, ask, allow;
	struct kb_strv from; /* for each rule of the three, in order: file */
	char *unreadable;    /* a rules file kinpolicy cannot read, and why */
};

static void
rules_add(json_t *perm, const char *key, struct kb_strv *to,
    struct kb_strv *from, const char *file)
{
	json_t *v;
	size_t i;

	json_array_foreach(json_object_get(perm, key), i, v)
	{
		if (!json_is_string(v))
			continue;
		kb_strv_push(to, json_string_value(v));
		kb_strv_pushf(from, "%s\t%s", json_string_value(v), file);
	}
}

/* a settings or rules file, read once on its descriptor (a project's
 * lies in the workspace: no FIFO, no huge file); NULL when absent */
static char *
read_small(const char *file, size_t *len, bool *bad)
{
	struct stat st;
	char *buf = NULL;
	ssize_t n = -1;
	int fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	*bad = false;
	if (fd == -1) {
		*bad = errno != ENOENT && errno != ENOTDIR;
		return NULL;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size <= HOOK_MAX_INPUT) {
		buf = xmalloc((size_t)st.st_size + 1);
		n = read(fd, buf, (size_t)st.st_size + 1);
	}
	close(fd);
	if (n < 0 || n > st.st_size) {
		free(buf);
		*bad = true;
		return NULL;
	}
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

static void
rules_unreadable(struct agent_rules *ar, const char *file, const char *why)
{
	if (ar->unreadable == NULL)
		ar->unreadable = xasprintf("%s (%s)", file, why);
}

static void
rules_file(struct agent_rules *ar, const char *file)
{
	json_error_t err;
	json_t *j = NULL, *perm;
	size_t n = 0;
	bool bad;
	char *buf = read_small(file, &n, &bad);

	if (buf != NULL)
		j = json_loadb(buf, n, 0, &err);
	free(buf);
	if (buf == NULL && !bad)
		return;
	if (!json_is_object(j)) {
		json_decref(j);
		rules_unreadable(ar, file, "not a JSON object");
		return;
	}
	perm = json_object_get(j, "permissions");
	rules_add(perm, "deny", &ar->deny, &ar->from, file);
	rules_add(perm, "ask", &ar->ask, &ar->from, file);
	rules_add(perm, "allow", &ar->allow, &ar->from, file);
	json_decref(j);
}

static void
rules_take(struct kb_strv *from, struct kb_strv *to, struct kb_strv *origin,
    const char *file)
{
	for (size_t i = 0; i < from->n; i++) {
		kb_strv_push(to, from->v[i]);
		kb_strv_pushf(origin, "%s\t%s", from->v[i], file);
	}
}

/* every FILE ending in `suffix` in `dir`: Codex's execpolicy (.rules) or
 * Gemini CLI's policy (.toml); a project's (`project`) adds no allow
 * rule: its files are the workspace's, which the command may write */
static void
rules_dir(struct agent_rules *ar, const char *dir, const char *suffix,
    bool gemini, bool project)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t sl = strlen(suffix);

	if (d == NULL) {
		if (errno != ENOENT && errno != ENOTDIR)
			rules_unreadable(ar, dir, strerror(errno));
		return;
	}
	while ((de = readdir(d)) != NULL) {
		size_t nl = strlen(de->d_name);
		_cleanup_free_ char *file = NULL;
		char *buf, why[256];
		size_t n = 0;
		bool bad;
		struct kb_agent_rules r = {0};

		if (nl <= sl || strcmp(de->d_name + nl - sl, suffix) != 0 ||
		    de->d_name[0] == '.')
			continue;
		file = xasprintf("%s/%s", dir, de->d_name);
		if ((buf = read_small(file, &n, &bad)) == NULL) {
			if (bad)
				rules_unreadable(
				    ar, file, "not a regular file");
			continue;
		}
		if ((gemini ? kb_gemini_policy_parse : kb_codex_rules_parse)(
			buf, n, &r, why, sizeof(why)) == -1) {
			rules_unreadable(ar, file, why);
		} else {
			rules_take(&r.deny, &ar->deny, &ar->from, file);
			rules_take(&r.ask, &ar->ask, &ar->from, file);
			if (!project)
				rules_take(
				    &r.allow, &ar->allow, &ar->from, file);
		}
		kb_agent_rules_free(&r);
		free(buf);
	}
	closedir(d);
}

/* Codex's execpolicy layers (/etc/codex/rules, $CODEX_HOME/rules, the
 * project's .codex/rules) and Gemini CLI's policy tiers (admin
 * /etc/gemini-cli/policies, user ~/.gemini/policies; its workspace tier
 * is disabled in Gemini CLI itself) */
static void
other_agent_rules(struct hook *h, const char *root, struct agent_rules *ar)
{
	_cleanup_free_ char *home = kb_paths_home();
	_cleanup_free_ char *user = NULL;
	_cleanup_free_ char *proj = NULL;
	const char *ch = getenv("CODEX_HOME");
	const char *gh = getenv("GEMINI_CLI_HOME");

	if (h->agent == KB_AGENT_CODEX) {
		rules_dir(ar, "/etc/codex/rules", ".rules", false, false);
		if (ch != NULL && ch[0] == '/')
			user = xasprintf("%s/rules", ch);
		else if (home != NULL)
			user = xasprintf("%s/.codex/rules", home);
		if (user != NULL)
			rules_dir(ar, user, ".rules", false, false);
		proj = xasprintf("%s/.codex/rules", root);
		rules_dir(ar, proj, ".rules", false, true);
	} else if (h->agent == KB_AGENT_GEMINI) {
		rules_dir(ar, "/etc/gemini-cli/policies", ".toml", true, false);
		if (gh != NULL && gh[0] == '/')
			user = xasprintf("%s/.gemini/policies", gh);
		else if (home != NULL)
			user = xasprintf("%s/.gemini/policies", home);
		if (user != NULL)
			rules_dir(ar, user, ".toml", true, false);
	}
}

static void
agent_rules(struct hook *h, const char *root, struct agent_rules *ar)
{
	const char *cfg = getenv("CLAUDE_CONFIG_DIR");
	const char *proj = getenv("CLAUDE_PROJECT_DIR");
	_cleanup_free_ char *home = kb_paths_home();
	_cleanup_free_ char *user = NULL;
	_cleanup_free_ char *p1 = NULL;
	_cleanup_free_ char *p2 = NULL;

	memset(ar, 0, sizeof(*ar));
	if (h->agent != KB_AGENT_CLAUDE) {
		other_agent_rules(h, root, ar);
		return;
	}
	if (proj == NULL || proj[0] != '/')
		proj = root;
	rules_file(ar, "/etc/claude-code/managed-settings.json");
	if (cfg != NULL && cfg[0] == '/')
		user = xasprintf("%s/settings.json", cfg);
	else if (home != NULL)
		user = xasprintf("%s/.claude/settings.json", home);
	if (user != NULL)
		rules_file(ar, user);
	p1 = xasprintf("%s/.claude/settings.json", proj);
	p2 = xasprintf("%s/.claude/settings.local.json", proj);
	rules_file(ar, p1);
	rules_file(ar, p2);
}

/* the file a rule came from */
static const char *
rule_file(const struct agent_rules *ar, const char *rule)
{
	size_t n = strlen(rule);

	for (size_t i = 0; i < ar->from.n; i++)
		if (strncmp(ar->from.v[i], rule, n) == 0 &&
		    ar->from.v[i][n] == '\t')
			return ar->from.v[i] + n + 1;
	return "?";
}

static void
agent_rules_free(struct agent_rules *ar)
{
	kb_strv_free(&ar->deny);
	kb_strv_free(&ar->ask);
	kb_strv_free(&ar->allow);
	kb_strv_free(&ar->from);
	free(ar->unreadable);
}

/* Is Claude Code's shell prefix kinbox-sh --claude-code (it wraps every
 * Bash call at execution, kinbox-sh(1))? */
static bool
claude_prefix_mode(struct hook *h)
{
	const char *p = getenv("CLAUDE_CODE_SHELL_PREFIX");

	return h->agent == KB_AGENT_CLAUDE && p != NULL &&
	       strstr(p, "kinbox-sh") != NULL &&
	       strstr(p, "--claude-code") != NULL;
}

/* --- a shell call ------------------------------------------------------------
 */

static void
shell_call(struct hook *h, const char *command, const char *cwd_in)
{
	struct kb_hook_mode m;
	struct kb_decide_in in = {0};
	struct kb_decide_out out;
	_cleanup_free_ char *cwd = NULL;
	_cleanup_free_ char *root = NULL;
	_cleanup_free_ char *inner = NULL;
	_cleanup_free_ char *wrapped = NULL;
	_cleanup_free_ char *why = NULL;
	_cleanup_free_ char *home = kb_paths_home();
	_cleanup_free_ char *reason = NULL;
	const char *session =
	    h->session != NULL ? h->session : getenv("KINBOX_SESSION");
	const char *rw_session, *judged, *verdict, *rule = NULL;
	struct agent_rules ar;
	enum kb_rule_hit hit;
	bool ro;

	if (kb_hook_mode(
		h->agent, str(h->in, "permission_mode"), h->override, &m) == -1)
		die("hook: --mode %s: unknown mode; use auto, strict or plan",
		    h->override);
	cwd = cwd_in != NULL ? xstrdup(cwd_in) : event_cwd(h);
	{
		_cleanup_free_ char *agent_cwd = event_cwd(h);

		root = kp_hook_project_root(h, agent_cwd);
	}
	/* where the command runs is the model's choice (a dir_path, a cd
	 * the agent carried over): judged where it really is, against the
	 * project the agent works in, never made the workspace */
	if (!kb_path_within(cwd, root)) {
		reason = xasprintf("kinbox: the command would run in %s, "
				   "outside the project %s that is kinbox's "
				   "workspace here; run it from inside the "
				   "project, or ask the user to run it",
		    cwd, root);
		answer_decision(h, m.can_ask ? "ask" : "deny", reason, NULL);
		return;
	}
	/* the session's grants reach the run by its KINBOX_SESSION, in the
	 * rewrite itself where the agent has no env file to export it
	 * (Codex, Gemini CLI, Cursor; Claude Code's CLAUDE_ENV_FILE puts it
	 * in the environment the rewrite runs in) */
	if (session != NULL && *session == '\0')
		session = NULL;
	rw_session = h->agent == KB_AGENT_CLAUDE ? NULL : session;
	/* planning: every shell call runs under kinbox --read-only, which
	 * the kernel enforces, so any of them may run. Not with Claude
	 * Code's shell prefix: kinbox-sh runs the command, and nothing tells
	 * it the agent plans (the permission mode reaches the hook only), so
	 * there the classifier's rule stays (kinpolicy(1), HOOKS) */
	ro = m.planning && !claude_prefix_mode(h);
	/* a command that is already exactly the rewrite runs as it is; one
	 * without the session it now has gets it */
	inner = kb_hook_unwrap(h->kinbox, root, rw_session, ro, command);
	if (inner == NULL && rw_session != NULL &&
	    (inner = kb_hook_unwrap(h->kinbox, root, NULL, ro, command)) !=
		NULL)
		wrapped = kb_hook_wrap(h->kinbox, root, rw_session, ro, inner);
	/* ... and while planning, a rewrite that may write (the model sent
	 * an earlier one back) becomes the read-only one */
	for (int k = 0; inner == NULL && ro && k < 2; k++)
		if ((inner = kb_hook_unwrap(h->kinbox, root,
			 k == 0 ? rw_session : NULL, false, command)) != NULL)
			wrapped = kb_hook_wrap(
			    h->kinbox, root, rw_session, ro, inner);
	judged = inner != NULL ? inner : command;
	/* Claude Code with kinbox-sh as its shell prefix runs every command
	 * under kinbox itself: no rewrite, so that its own rules and
	 * prompts see the command the model wrote */
	if (inner == NULL && !claude_prefix_mode(h))
		wrapped =
		    kb_hook_wrap(h->kinbox, root, rw_session, ro, command);
	/* no sandbox here: never an unwrapped command allowed, and kinbox
	 * would refuse a wrapped one */
	if ((why = kb_sandbox_why_not()) != NULL) {
		reason = xasprintf("kinbox: %s", why);
		answer_decision(h, m.can_ask ? "ask" : "deny", reason, NULL);
		return;
	}
	/* the user's own rules, on the command the model wrote */
	agent_rules(h, root, &ar);
	if (ar.unreadable != NULL) {
		reason = xasprintf("kinbox: %s: kinpolicy cannot read your "
				   "permission rules there, so they cannot be "
				   "kept in force: fix the file",
		    ar.unreadable);
		answer_decision(h, m.can_ask ? "ask" : "deny", reason,
		    m.can_ask ? wrapped : NULL);
		agent_rules_free(&ar);
		return;
	}
	{
		const struct kb_rules r = {
		    (const char *const *)ar.deny.v,
		    (const char *const *)ar.ask.v,
		    (const char *const *)ar.allow.v,
		    ar.deny.n,
		    ar.ask.n,
		    ar.allow.n,
		};

		hit = kb_rules_judge(judged, &r, &rule);
	}
	if (hit == KB_RULE_DENY && h->agent != KB_AGENT_CLAUDE) {
		/* Codex's prefix_rule, Gemini CLI's policy rule: named by
		 * the prefix they match, and their file */
		size_t rl = strlen(rule);
		bool pre = rl > 8 && strncmp(rule, "Bash(", 5) == 0 &&
			   strcmp(rule + rl - 3, ":*)") == 0;

		reason = xasprintf("kinbox: your %s rule on '%.*s' (%s) "
				   "denies this command",
		    h->agent == KB_AGENT_CODEX ? "execpolicy" : "policy",
		    pre ? (int)(rl - 8) : (int)rl, pre ? rule + 5 : rule,
		    rule_file(&ar, rule));
		answer_decision(h, "deny", reason, NULL);
		agent_rules_free(&ar);
		return;
	}
	if (hit == KB_RULE_DENY) {
		reason = xasprintf("kinbox: your permission rule %s (%s) "
				   "denies this command",
		    rule, rule_file(&ar, rule));
		answer_decision(h, "deny", reason, NULL);
		agent_rules_free(&ar);
		return;
	}
	in.mode = m.mode;
	in.planning = m.planning;
	in.kind = "shell";
	in.tool = str(h->in, "tool_name");
	in.command = judged;
	in.workspace = root;
	in.cwd = cwd;
	in.home = home;
	in.sandbox_available = true;
	in.read_only_run = ro;
	kp_gate_decide(&in, session, KB_RO_SHELL_BASH, &out);
	/* an ask rule of the user's asks; an allow rule answers the
	 * gate's ask (never a deny, never while planning) */
	if (hit == KB_RULE_ASK && out.verdict == KB_ALLOW) {
		out.verdict = KB_ASK;
		snprintf(out.rule, sizeof(out.rule), "user-ask");
		snprintf(out.reason, sizeof(out.reason),
		    "your permission rule %s (%s) asks", rule,
		    rule_file(&ar, rule));
	} else if (hit == KB_RULE_ALLOW && out.verdict == KB_ASK &&
		   !m.planning) {
		out.verdict = KB_ALLOW;
		snprintf(out.rule, sizeof(out.rule), "user-allow");
		snprintf(out.reason, sizeof(out.reason),
		    "your permission rule %s (%s) allows it; it runs under "
		    "kinbox",
		    rule, rule_file(&ar, rule));
	}
	agent_rules_free(&ar);
	verdict = out.verdict == KB_ALLOW ? "allow"
		  : out.verdict == KB_ASK ? (m.can_ask ? "ask" : "deny")
					  : "deny";
	reason =
	    xasprintf("kinbox: %s (%s; rule %s)%s", out.reason, m.why, out.rule,
		out.verdict == KB_ASK && !m.can_ask
		    ? "; it needs a human's yes, which this agent cannot ask "
		      "for: ask the user to run it"
		    : "");
	if (h->agent == KB_AGENT_CURSOR && !h->pretool && wrapped != NULL &&
	    out.verdict != KB_DENY) {
		/* Cursor cannot rewrite: the model is told the command that
		 * would be allowed, exactly */
		free(reason);
		reason = xasprintf("kinbox: shell commands run under kinbox "
				   "here; run it as: %s",
		    wrapped);
		verdict = "deny";
	}
	/* a deny never carries the rewrite (Codex honours updatedInput only
	 * with allow, and runs the original when an answer breaks its
	 * schema); Codex's allow always does, the same command when it is
	 * already the rewrite */
	if (strcmp(verdict, "deny") == 0 ||
	    (h->agent == KB_AGENT_CURSOR && !h->pretool))
		answer_decision(h, verdict, reason, NULL);
	else if (wrapped == NULL && h->agent == KB_AGENT_CURSOR)
		answer_decision(h, verdict, reason, NULL);
	else if (wrapped == NULL && h->agent == KB_AGENT_CODEX)
		answer_decision(h, verdict, reason, command);
	else
		answer_decision(h, verdict, reason, wrapped);
	kb_decide_out_free(&out);
}

/* --- a file edit -------------------------------------------------------------
 */

static void
edit_call(struct hook *h, const char *const *paths, size_t n)
{
	struct kb_hook_mode m;
	_cleanup_free_ char *cwd = event_cwd(h);
	_cleanup_free_ char *root = kp_hook_project_root(h, cwd);
	_cleanup_free_ char *home = kb_paths_home();
	struct kb_cw worst = {.verdict = KB_ALLOW}, cw;
	struct kb_err e;

	if (kb_hook_mode(
		h->agent, str(h->in, "permission_mode"), h->override, &m) == -1)
		die("hook: --mode %s: unknown mode; use auto, strict or plan",
		    h->override);
	if (m.planning) {
		answer_decision(h, "deny",
		    "kinbox: plan mode: nothing is written while planning "
		    "(the planning freeze)",
		    NULL);
		return;
	}
	if (n == 0)
		die("hook: an edit without a path");
	for (size_t i = 0; i < n; i++) {
		/* auto: only what a human must see asks; the agent's own
		 * prompts still apply to the rest */
		if (kb_check_write(paths[i], cwd, root, NULL, 0, home,
			KB_MODE_AUTO, &cw, &e) == -1)
			die("hook: %s", e.msg);
		if (cw.verdict > worst.verdict)
			worst = cw;
	}
	if (worst.verdict == KB_ALLOW)
		return; /* no opinion */
	{
		_cleanup_free_ char *reason =
		    xasprintf("kinbox check-write: %s (rule %s)", worst.reason,
			worst.rule);

		answer_decision(h,
		    worst.verdict == KB_DENY || !m.can_ask ? "deny" : "ask",
		    reason, NULL);
	}
}

/* --- after a tool call -------------------------------------------------------
 */

/* every string inside `v`, a line each */
static void
strings_of(json_t *v, struct kb_buf *b, int depth)
{
	const char *k;
	json_t *x;
	size_t i;

	if (depth > 8 || b->len > HOOK_MAX_INPUT)
		return;
	if (json_is_string(v)) {
		kb_buf_puts(b, json_string_value(v));
		kb_buf_puts(b, "\n");
	} else if (json_is_object(v)) {
		json_object_foreach(v, k, x) strings_of(x, b, depth + 1);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x) strings_of(x, b, depth + 1);
	}
}

static void
after_call(struct hook *h)
{
	_cleanup_free_ char *home = kp_home_dir();
	struct kb_buf text = {0}, ctx = {0};
	char ids[MAX_IDS][24];
	size_t n;
	int dfd;

	kb_buf_puts(&text, "");
	strings_of(json_object_get(h->in, "error"), &text, 0);
	strings_of(json_object_get(h->in, "tool_response"), &text, 0);
	n = kb_hook_denial_ids(text.s, ids, MAX_IDS);
	dfd = n > 0 ? kp_journal_dir_fd(home) : -1;
	for (size_t i = 0; i < n && dfd != -1; i++) {
		/* only a denial kinbox recorded: the output is the
		 * command's, which can print any line it likes */
		json_t *rec = kp_load_at(dfd, ids[i], ".json");
		const char *cls = kp_jstr(rec, "class");
		const char *what = *kp_jstr(rec, "path") != '\0'
				       ? kp_jstr(rec, "path")
				       : kp_jstr(rec, "host");

		if (rec == NULL || *cls == '\0') {
			json_decref(rec);
			continue;
		}
		kb_buf_printf(&ctx,
		    "%skinbox denied %s%s%s (%s). The sandbox refused it, not "
		    "the command; a human can allow exactly this and re-run it "
		    "with: kinpolicy grant %s --suggested --once && kinpolicy "
		    "retry %s",
		    ctx.len > 0 ? "\n" : "", cls, *what != '\0' ? " " : "",
		    what, ids[i], ids[i], ids[i]);
		json_decref(rec);
	}
	if (dfd != -1)
		close(dfd);
	if (ctx.len > 0)
		answer_context(h, ctx.s);
	kb_buf_free(&text);
	kb_buf_free(&ctx);
}

/* --- a session start ---------------------------------------------------------
 */

/* The file that maps the agent's session id to the kinbox session and
 * the project root of its start: <sessions>/agent-AGENT-<id in hex>.map
 * (hex: an id is any string the agent chose). NULL when the event has no
 * usable id. */
static char *
agent_map_path(struct hook *h)
{
	const char *sid = str(h->in, "session_id");
	_cleanup_free_ char *dir = kb_config_session_dir();
	struct kb_buf b = {0};
	char *r;

	if (sid == NULL && h->agent == KB_AGENT_CURSOR)
		sid = str(h->in, "conversation_id");
	if (sid == NULL || *sid == '\0' || strlen(sid) > 128 || dir == NULL)
		return NULL;
	kb_buf_printf(&b, "%s/agent-%s-", dir, kb_agent_name(h->agent));
	for (const unsigned char *p = (const unsigned char *)sid; *p; p++)
		kb_buf_printf(&b, "%02x", *p);
	kb_buf_puts(&b, ".map");
	r = xstrdup(b.s);
	kb_buf_free(&b);
	return r;
}

/* reads a map: the session (its file still there) and the root (an
 * existing directory); false when absent or not exactly that */
static bool
agent_map_read(const char *path, char **session, char **root)
{
	char buf[PATH_MAX + 64], *nl, *r;
	_cleanup_free_ char *sf = NULL;
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	if (fd == -1)
		return false;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size >= (off_t)sizeof(buf) ||
	    (n = read(fd, buf, sizeof(buf) - 1)) <= 0) {
		close(fd);
		return false;
	}
	close(fd);
	buf[n] = '\0';
	if ((nl = strchr(buf, '\n')) == NULL)
		return false;
	*nl = '\0';
	r = nl + 1;
	if ((nl = strchr(r, '\n')) == NULL || nl[1] != '\0')
		return false;
	*nl = '\0';
	if (strncmp(buf, "ses_", 4) != 0 ||
	    strspn(buf + 4, "0123456789abcdef") != 16 || buf[20] != '\0' ||
	    r[0] != '/' || (sf = kb_config_session_path(buf)) == NULL ||
	    access(sf, F_OK) == -1 || stat(r, &st) == -1 ||
	    !S_ISDIR(st.st_mode))
		return false;
	*session = xstrdup(buf);
	*root = xstrdup(r);
	return true;
}

/* writes a map whole (a temporary file renamed over it) */
static void
agent_map_write(const char *path, const char *session, const char *root)
{
	_cleanup_free_ char *tmp = xasprintf("%s.%d.tmp", path, (int)getpid());
	_cleanup_free_ char *text = xasprintf("%s\n%s\n", session, root);
	int fd = open(
	    tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd == -1 ||
	    write(fd, text, strlen(text)) != (ssize_t)strlen(text) ||
	    close(fd) == -1 || rename(tmp, path) == -1) {
		unlink(tmp);
		die("hook: %s: %s", path, strerror(errno));
	}
}

/* the kinbox session and root of the agent's session (h->session,
 * h->root): the ones its start made, else, for the agents without an env
 * file, made now, at its first call (settings written before SessionStart
 * was in their block; the session reaches the run in the rewrite, so it
 * is seen). Nothing when the event has no session id, or no session can
 * be made. */
static void
agent_session(struct hook *h)
{
	_cleanup_free_ char *map = agent_map_path(h);
	_cleanup_free_ char *cwd = NULL;
	struct kb_err e;

	if (map == NULL || agent_map_read(map, &h->session, &h->root) ||
	    h->agent == KB_AGENT_CLAUDE)
		return;
	if ((h->session = kb_session_new(&e)) == NULL)
		return;
	cwd = event_cwd(h);
	h->root = kp_hook_project_root(h, cwd);
	agent_map_write(map, h->session, h->root);
}

/*
 * A session start (startup, resume, compact, clear: the same agent
 * session id each time the agent means the same session): the kinbox
 * session of that id and the project root set at its first start, kept
 * (so that a --session grant outlives a resume or an auto-compaction), or
 * new ones; exported as KINBOX_SESSION where the agent reads an env file.
 */
static void
session_start(struct hook *h)
{
	const char *file = NULL;
	_cleanup_free_ char *line = NULL;
	_cleanup_free_ char *map = agent_map_path(h);
	struct kb_err e;
	int fd;

	if (h->agent == KB_AGENT_CLAUDE)
		file = getenv("CLAUDE_ENV_FILE");
	else if (h->agent == KB_AGENT_CODEX)
		file = getenv("CODEX_ENV_FILE") != NULL
			   ? getenv("CODEX_ENV_FILE")
			   : getenv("CLAUDE_ENV_FILE");
	if (file != NULL && file[0] != '/')
		file = NULL;
	/* no env file and no id to keep it under: a session nobody would
	 * see is not made */
	if (file == NULL && map == NULL)
		return;
	if (map == NULL || !agent_map_read(map, &h->session, &h->root)) {
		_cleanup_free_ char *cwd = event_cwd(h);

		if ((h->session = kb_session_new(&e)) == NULL)
			die("hook: %s", e.msg);
		h->root = kp_hook_project_root(h, cwd);
		if (map != NULL)
			agent_map_write(map, h->session, h->root);
	}
	if (file == NULL)
		return;
	line = xasprintf("export KINBOX_SESSION=%s\n", h->session);
	fd = open(
	    file, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd == -1 || write(fd, line, strlen(line)) != (ssize_t)strlen(line))
		die("hook: %s: %s", file, strerror(errno));
	close(fd);
}

/* --- the event ---------------------------------------------------------------
 */

/* Does the work; -1 with `why` when the event cannot be judged. */
static int
kp_hook_judge(
    struct hook *h, const char *input, size_t len, char *why, size_t wl)
{
	json_error_t err;
	const char *tool, *cmd;
	json_t *ti;

	h->in = json_loadb(input, len, JSON_REJECT_DUPLICATES, &err);
	if (!json_is_object(h->in)) {
		snprintf(why, wl, "the hook event is not a JSON object (%s)",
		    h->in == NULL ? err.text : "not an object");
		return -1;
	}
	h->event = str(h->in, "hook_event_name");
	tool = str(h->in, "tool_name");
	ti = json_object_get(h->in, "tool_input");
	cmd = json_is_object(ti) ? str(ti, "command") : NULL;
	if (h->event == NULL) {
		snprintf(why, wl, "the hook event has no hook_event_name");
		return -1;
	}
	if (strcmp(h->event, "SessionStart") != 0 &&
	    strcmp(h->event, "sessionStart") != 0)
		agent_session(h);
	switch (h->agent) {
	case KB_AGENT_CLAUDE:
	case KB_AGENT_CODEX:
		if (strcmp(h->event, "PreToolUse") == 0) {
			if (tool == NULL)
				break;
			if (strcmp(tool, "Bash") == 0) {
				if (cmd == NULL)
					break;
				shell_call(h, cmd, NULL);
				return 0;
			}
			if (h->agent == KB_AGENT_CLAUDE &&
			    (strcmp(tool, "Edit") == 0 ||
				strcmp(tool, "Write") == 0 ||
				strcmp(tool, "MultiEdit") == 0 ||
				strcmp(tool, "NotebookEdit") == 0)) {
				const char *p = json_is_object(ti)
						    ? str(ti, "file_path")
						    : NULL;

				if (p == NULL && json_is_object(ti))
					p = str(ti, "notebook_path");
				if (p == NULL)
					break;
				edit_call(h, &p, 1);
				return 0;
			}
			if (h->agent == KB_AGENT_CODEX &&
			    strcmp(tool, "apply_patch") == 0) {
				struct kb_strv paths = {0};

				if (cmd == NULL)
					break;
				if (kb_hook_patch_paths(cmd, &paths) == -1) {
					kb_strv_free(&paths);
					answer_decision(h, "deny",
					    "kinbox: this patch cannot be read "
					    "exactly as Codex reads it, so it "
					    "is not applied; write it in the "
					    "apply_patch format",
					    NULL);
					return 0;
				}
				edit_call(
				    h, (const char *const *)paths.v, paths.n);
				kb_strv_free(&paths);
				return 0;
			}
			if (h->agent == KB_AGENT_CLAUDE &&
			    strcmp(tool, "PowerShell") == 0) {
				answer_decision(h, "deny",
				    "kinbox: PowerShell commands cannot run "
				    "under kinbox; use Bash",
				    NULL);
				return 0;
			}
			return 0; /* another tool: no opinion */
		}
		if (strcmp(h->event, "PostToolUseFailure") == 0 ||
		    strcmp(h->event, "PostToolUse") == 0) {
			after_call(h);
			return 0;
		}
		if (strcmp(h->event, "SessionStart") == 0) {
			session_start(h);
			return 0;
		}
		break;
	case KB_AGENT_GEMINI:
		if (strcmp(h->event, "BeforeTool") == 0) {
			if (tool == NULL)
				break;
			if (strcmp(tool, "run_shell_command") == 0) {
				_cleanup_free_ char *cwd = event_cwd(h);
				const char *dir = str(ti, "dir_path");
				_cleanup_free_ char *in_dir = NULL;

				if (cmd == NULL)
					break;
				/* the tool runs in dir_path (the model's),
				 * judged where it really is */
				if (dir != NULL && *dir != '\0') {
					_cleanup_free_ char *d =
					    dir[0] == '/'
						? xstrdup(dir)
						: xasprintf("%s/%s", cwd, dir);

					if ((in_dir = realpath(d, NULL)) ==
					    NULL) {
						_cleanup_free_ char *unres =
						    xasprintf(
							"kinbox: dir_path "
							"%s cannot be "
							"resolved (%s), so "
							"where the command "
							"would run cannot "
							"be judged",
							d, strerror(errno));

						answer_decision(
						    h, "deny", unres, NULL);
						return 0;
					}
				}
				shell_call(
				    h, cmd, in_dir != NULL ? in_dir : cwd);
				return 0;
			}
			if (strcmp(tool, "write_file") == 0 ||
			    strcmp(tool, "replace") == 0) {
				const char *p = json_is_object(ti)
						    ? str(ti, "file_path")
						    : NULL;

				if (p == NULL)
					break;
				edit_call(h, &p, 1);
				return 0;
			}
			return 0;
		}
		if (strcmp(h->event, "AfterTool") == 0) {
			after_call(h);
			return 0;
		}
		if (strcmp(h->event, "SessionStart") == 0) {
			/* no env file: the session is kinpolicy's, by id */
			session_start(h);
			return 0;
		}
		break;
	case KB_AGENT_CURSOR:
		if (strcmp(h->event, "beforeShellExecution") == 0) {
			const char *c = str(h->in, "command");
			const char *d = str(h->in, "cwd");
			_cleanup_free_ char *rd = NULL;

			if (c == NULL)
				break;
			if (d != NULL && d[0] == '/')
				rd = realpath(d, NULL);
			shell_call(h, c, rd);
			return 0;
		}
		if (strcmp(h->event, "preToolUse") == 0) {
			/* the newer hook, which can rewrite: the shell call
			 * runs under kinbox without a retyped command */
			const char *d = str(h->in, "cwd");
			_cleanup_free_ char *rd = NULL;

			h->pretool = true;
			if (tool == NULL)
				break;
			if (strcmp(tool, "Shell") != 0) {
				answer_decision(h, "allow",
				    "kinbox: no opinion on this tool", NULL);
				return 0;
			}
			if (cmd == NULL)
				break;
			if (d != NULL && d[0] == '/')
				rd = realpath(d, NULL);
			shell_call(h, cmd, rd);
			return 0;
		}
		if (strcmp(h->event, "sessionStart") == 0) {
			session_start(h);
			return 0;
		}
		break;
	}
	snprintf(why, wl, "%s event %s%s%s is not one kinpolicy hook judges",
	    kb_agent_name(h->agent), h->event, tool != NULL ? " of tool " : "",
	    tool != NULL ? tool : "");
	return -1;
}

/* --- fail closed -------------------------------------------------------------
 */

/* the event's name, when the parent could read it: a deny is written
 * in the answer's form only for the events that take one */
static char *event_seen;

static bool
takes_decision(const char *event)
{
	static const char *const after[] = {"PostToolUse", "PostToolUseFailure",
	    "AfterTool", "SessionStart", "sessionStart", "postToolUseFailure"};

	for (size_t i = 0; event != NULL && i < nitems(after); i++)
		if (strcmp(event, after[i]) == 0)
			return false;
	return true; /* a tool call, or not known: deny */
}

static void __attribute__((noreturn))
fail_closed(enum kb_agent agent, const char *cause)
{
	struct hook h = {.agent = agent};
	_cleanup_free_ char *reason = xasprintf(
	    "kinpolicy hook could not judge this call, so it is refused: %s",
	    cause);

	h.in = json_object();
	if (takes_decision(event_seen)) {
		answer_decision(&h, "deny", reason, NULL);
		fputs(h.out.s, stdout);
	}
	fflush(stdout);
	fprintf(stderr, "%s\n", reason);
	exit(2);
}

/* stdin (a pipe, usually), bounded */
static char *
read_input_as(enum kb_agent agent, size_t *len)
{
	struct kb_buf b = {0};
	char chunk[8192];
	ssize_t n;

	kb_buf_add(&b, "", 0);
	while ((n = read(0, chunk, sizeof(chunk))) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			fail_closed(agent, "the hook event could not be read");
		if (b.len + (size_t)n > HOOK_MAX_INPUT)
			fail_closed(
			    agent, "the hook event is larger than 1 MiB");
		kb_buf_add(&b, chunk, (size_t)n);
	}
	*len = b.len;
	return b.s;
}

int
cmd_hook(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"kinbox", required_argument, NULL, 'k'},
	    {"mode", required_argument, NULL, 'm'},
	    {NULL, 0, NULL, 0},
	};
	struct hook h = {0};
	struct kb_hook_mode m;
	_cleanup_free_ char *input = NULL;
	struct kb_buf got = {0}, err = {0};
	size_t len;
	int c, outp[2], errp[2], status;
	pid_t pid;

	if (argc < 2 || kb_agent_parse(argv[1], &h.agent) == -1) {
		/* no agent to answer in the form of: exit 2 blocks in all */
		fprintf(stderr,
		    "kinpolicy: hook %s: unknown agent; use claude-code, "
		    "codex, gemini or cursor (the call is refused)\n",
		    argc >= 2 ? argv[1] : "");
		exit(2);
	}
	argc--;
	argv++;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			if (optarg[0] != '/')
				fail_closed(
				    h.agent, "--kinbox needs an absolute path");
			snprintf(h.kinbox, sizeof(h.kinbox), "%s", optarg);
			break;
		case 'm':
			h.override = optarg;
			if (kb_hook_mode(h.agent, NULL, optarg, &m) == -1)
				fail_closed(h.agent,
				    "--mode: unknown mode; use auto, strict or "
				    "plan");
			break;
		default:
			fail_closed(
			    h.agent, "unknown option; see kinpolicy --help");
		}
	}
	if (optind != argc)
		fail_closed(
		    h.agent, "unexpected argument; see kinpolicy --help");
	if (h.kinbox[0] == '\0') {
		/* named absolutely, so that a PATH the command set earlier
		 * cannot put another program in its place */
		_cleanup_free_ char *k = kp_find_kinbox();

		snprintf(h.kinbox, sizeof(h.kinbox), "%s", k);
	}
	input = read_input_as(h.agent, &len);
	{
		json_t *j = json_loadb(input, len, 0, NULL);
		const char *ev =
		    json_is_object(j) ? str(j, "hook_event_name") : NULL;

		if (ev != NULL)
			event_seen = xstrdup(ev);
		json_decref(j);
	}
	fflush(stdout);
	if (pipe(outp) == -1 || pipe(errp) == -1)
		fail_closed(h.agent, strerror(errno));
	if ((pid = fork()) == -1)
		fail_closed(h.agent, strerror(errno));
	if (pid == 0) {
		char why[512];

		close(outp[0]);
		close(errp[0]);
		/* nothing but the answer reaches the agent: what anything
		 * in the child prints goes to the parent's cause */
		if (dup2(errp[1], 2) == -1 || dup2(errp[1], 1) == -1)
			_exit(3);
		if (kp_hook_judge(&h, input, len, why, sizeof(why)) == -1) {
			if (write(outp[1], "B", 1) != 1 ||
			    write(outp[1], why, strlen(why)) == -1)
				_exit(3);
			_exit(0);
		}
		if (write(outp[1], "A", 1) != 1 ||
		    (h.out.len > 0 && write(outp[1], h.out.s, h.out.len) !=
					  (ssize_t)h.out.len))
			_exit(3);
		_exit(0);
	}
	close(outp[1]);
	close(errp[1]);
	{
		/* both pipes at once: a child that fills one while we wait on
		 * the other would never end */
		struct pollfd pf[2] = {
		    {.fd = outp[0], .events = POLLIN},
		    {.fd = errp[0], .events = POLLIN},
		};
		char buf[4096];

		while (pf[0].fd != -1 || pf[1].fd != -1) {
			if (poll(pf, 2, -1) == -1) {
				if (errno == EINTR)
					continue;
				break;
			}
			for (int i = 0; i < 2; i++) {
				ssize_t r;

				if (pf[i].fd == -1 || pf[i].revents == 0)
					continue;
				r = read(pf[i].fd, buf, sizeof(buf));
				if (r <= 0) {
					close(pf[i].fd);
					pf[i].fd = -1;
					continue;
				}
				if ((i == 0 ? got.len : err.len) < MAX_ANSWER)
					kb_buf_add(i == 0 ? &got : &err, buf,
					    (size_t)r);
			}
		}
	}
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			fail_closed(h.agent, strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || got.len == 0) {
		char cause[600];
		const char *e = err.len > 0 ? err.s : NULL;
		size_t el = e != NULL ? strcspn(e, "\n") : 0;

		if (WIFSIGNALED(status))
			snprintf(cause, sizeof(cause),
			    "internal error (killed by signal %d)",
			    WTERMSIG(status));
		else
			snprintf(cause, sizeof(cause), "internal error%s%.*s",
			    e != NULL ? ": " : "", (int)(el > 400 ? 400 : el),
			    e != NULL ? e : "");
		fail_closed(h.agent, cause);
	}
	if (got.s[0] == 'B') {
		_cleanup_free_ char *cause =
		    xasprintf("%.*s", (int)(got.len - 1), got.s + 1);

		fail_closed(h.agent, cause);
	}
	if (got.len > 1)
		fwrite(got.s + 1, 1, got.len - 1, stdout);
	if (fflush(stdout) != 0)
		exit(2);
	kb_buf_free(&got);
	kb_buf_free(&err);
	return 0;
}
