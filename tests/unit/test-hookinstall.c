/*
 * tests/unit/test-hookinstall.c — sidecar/hookinstall.c and sidecar/udiff.c: the
 * merge of kinpolicy's hook block into each agent's settings JSON keeps
 * every other key and hook, in order; a second install changes nothing;
 * an entry with another kinpolicy path is updated, not duplicated;
 * uninstall gives the original JSON value back; a file of another shape
 * is refused untouched; which commands are kinpolicy's; the text written;
 * the warnings; and the --dry-run diff, applied, gives the new text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sidecar/hookinstall.h"
#include "../../sidecar/udiff.h"
#include "tap.h"
#include "udiff-apply.h"

static const char K[] = "/usr/local/bin/kinpolicy";
static const enum kb_agent agents[] = {
    KB_AGENT_CLAUDE, KB_AGENT_CODEX, KB_AGENT_GEMINI, KB_AGENT_CURSOR};

static json_t *
J(const char *text)
{
	struct kb_err e;
	json_t *j = kb_hookinstall_parse(text, strlen(text), &e);

	if (j == NULL) {
		printf("# fixture does not parse: %s: %s\n", e.msg, text);
		exit(1);
	}
	return j;
}

static char *
cmd(enum kb_agent a)
{
	return kb_hookinstall_command(K, a);
}

/* install into a copy of `text`; NULL when refused (e.msg says why) */
static json_t *
installed(const char *text, enum kb_agent a, struct kb_hookinstall_report *r,
    struct kb_err *e)
{
	json_t *j = J(text);
	_cleanup_free_ char *c = cmd(a);

	if (kb_hookinstall_install(j, a, c, r, e) == -1) {
		json_decref(j);
		return NULL;
	}
	return j;
}

static bool
equal_text(const json_t *j, const char *want)
{
	json_t *w = json_loads(want, JSON_DECODE_ANY, NULL);
	bool eq = json_equal(j, w);

	if (!eq) {
		char *got = kb_hookinstall_dump(j);

		printf("# got:\n%s# want: %s\n", got, want);
		free(got);
	}
	json_decref(w);
	return eq;
}

static void
test_command(void)
{
	const char *rest = NULL;
	_cleanup_free_ char *c = cmd(KB_AGENT_CLAUDE);
	_cleanup_free_ char *q =
	    kb_hookinstall_command("/opt/my tools/kinpolicy", KB_AGENT_CODEX);

	assert_cmpstr(c, "/usr/local/bin/kinpolicy hook claude-code",
	    "the command: kinpolicy's absolute path, hook, the agent");
	assert_cmpstr(q, "'/opt/my tools/kinpolicy' hook codex",
	    "a path with a blank is quoted for the shell");
	ok(kb_hookinstall_is_ours(q, KB_AGENT_CODEX, NULL),
	    "the quoted command is recognised as kinpolicy's");
	ok(kb_hookinstall_is_ours(c, KB_AGENT_CLAUDE, &rest) &&
		strcmp(rest, "") == 0,
	    "control: the command written is kinpolicy's, with no options");
	for (size_t i = 0; i < nitems(agents); i++) {
		_cleanup_free_ char *ci = cmd(agents[i]);

		ok(kb_hookinstall_is_ours(ci, agents[i], NULL),
		    "%s: the command written is recognised",
		    kb_agent_name(agents[i]));
		for (size_t k = 0; k < nitems(agents); k++)
			if (k != i)
				ok(!kb_hookinstall_is_ours(ci, agents[k], NULL),
				    "%s's command is not %s's",
				    kb_agent_name(agents[i]),
				    kb_agent_name(agents[k]));
	}
}

static void
test_is_ours(void)
{
	static const struct {
		const char *cmd;
		bool ours;
		const char *rest;
	} cases[] = {
	    {"kinpolicy hook claude-code", true, ""},
	    {"/usr/bin/kinpolicy hook claude-code", true, ""},
	    {"  kinpolicy\thook  claude-code", true, ""},
	    {"kinpolicy hook claude-code --mode strict", true,
		" --mode strict"},
	    {"'/my dir/kinpolicy' hook claude-code", true, ""},
	    {"\"/my dir/kinpolicy\" hook claude-code", true, ""},
	    {"/my\\ dir/kinpolicy hook claude-code", true, ""},
	    {"$HOME/.local/bin/kinpolicy hook claude-code", true, ""},
	    {"\"${HOME}/bin/kinpolicy\" hook claude-code", true, ""},
	    {"~/bin/kinpolicy hook claude-code", true, ""},
	    {"kinpolicy hook claude-code ; echo x", true, " ; echo x"},
	    {"kinpolicy hook claude-code;echo x", false, NULL},
	    {"kinpolicy hook claude-codex", false, NULL},
	    {"kinpolicy hook codex", false, NULL},
	    {"kinpolicy hook", false, NULL},
	    {"kinpolicy hooks claude-code", false, NULL},
	    {"kinpolicy decide --kind shell", false, NULL},
	    {"/usr/bin/notkinpolicy hook claude-code", false, NULL},
	    {"/usr/bin/kinpolicy.sh hook claude-code", false, NULL},
	    {"kinpolicyx hook claude-code", false, NULL},
	    {"echo kinpolicy hook claude-code", false, NULL},
	    {"$(which kinpolicy) hook claude-code", false, NULL},
	    {"`which kinpolicy` hook claude-code", false, NULL},
	    {"'/unterminated/kinpolicy hook claude-code", false, NULL},
	    {"# kinpolicy hook claude-code", false, NULL},
	    {"FOO=1 kinpolicy hook claude-code", false, NULL},
	    {"", false, NULL},
	};

	for (size_t i = 0; i < nitems(cases); i++) {
		const char *rest = NULL;
		bool got = kb_hookinstall_is_ours(
		    cases[i].cmd, KB_AGENT_CLAUDE, &rest);

		ok(got == cases[i].ours &&
			(!got || strcmp(rest, cases[i].rest) == 0),
		    "is_ours(\"%s\") is %s%s%s", cases[i].cmd,
		    cases[i].ours ? "yes" : "no",
		    cases[i].ours ? ", options: " : "",
		    cases[i].ours ? cases[i].rest : "");
	}
}

static void
test_parse(void)
{
	struct kb_err e;
	json_t *j;
	static const char *bad[] = {
	    "{",
	    "{\"a\": 1,}",
	    "[]",
	    "\"text\"",
	    "{\"a\": 1, \"a\": 2}",
	    "// a comment {}",
	    "{} {}",
	    "{\"a\": \"\\u0000\"}",
	    "{\"n\": 99999999999999999999}",
	};

	j = kb_hookinstall_parse("", 0, &e);
	ok(json_is_object(j) && json_object_size(j) == 0,
	    "an empty file is {}");
	json_decref(j);
	j = kb_hookinstall_parse(" \n\t\n", 4, &e);
	ok(json_is_object(j) && json_object_size(j) == 0, "a blank file is {}");
	json_decref(j);
	j = kb_hookinstall_parse("{\"a\": [1]}", 10, &e);
	ok(json_is_object(j), "control: an object parses");
	json_decref(j);
	for (size_t i = 0; i < nitems(bad); i++) {
		e.msg[0] = '\0';
		j = kb_hookinstall_parse(bad[i], strlen(bad[i]), &e);
		ok(j == NULL && e.msg[0] != '\0', "refused: %s (%s)", bad[i],
		    e.msg);
		json_decref(j);
	}
	e.msg[0] = '\0';
	j = kb_hookinstall_parse("{\n  \"a\": 1,\n}", 13, &e);
	ok(j == NULL && strstr(e.msg, "line 3") != NULL,
	    "the refusal names the line: %s", e.msg);
	json_decref(j);
}

/* the README's blocks, from an empty file */
static void
test_fresh(void)
{
	struct kb_hookinstall_report r = {0};
	struct kb_err e;
	json_t *j;
	char *text;

	j = installed("{}", KB_AGENT_CLAUDE, &r, &e);
	ok(j != NULL && equal_text(j,
			    "{\"hooks\": {"
			    "\"PreToolUse\": [{\"matcher\": "
			    "\"Bash|Edit|Write|MultiEdit|NotebookEdit\", "
			    "\"hooks\": [{\"type\": \"command\", \"command\": "
			    "\"/usr/local/bin/kinpolicy hook claude-code\", "
			    "\"timeout\": 30}]}],"
			    "\"PostToolUseFailure\": [{\"matcher\": \"Bash\", "
			    "\"hooks\": [{\"type\": \"command\", \"command\": "
			    "\"/usr/local/bin/kinpolicy hook claude-code\"}]}],"
			    "\"SessionStart\": [{\"hooks\": [{\"type\": "
			    "\"command\", \"command\": "
			    "\"/usr/local/bin/kinpolicy hook claude-code\"}]}]"
			    "}}"),
	    "claude-code: the README's block");
	ok(r.n == 3 && r.ch[0].what == KB_HI_ADDED &&
		r.ch[1].what == KB_HI_ADDED && r.ch[2].what == KB_HI_ADDED &&
		kb_hookinstall_changed(&r),
	    "claude-code: three entries added");
	text = kb_hookinstall_dump(j);
	ok(strncmp(text,
	       "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n"
	       "        \"matcher\": ",
	       strlen("{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n"
		      "        \"matcher\": ")) == 0 &&
		text[strlen(text) - 1] == '\n' && text[strlen(text) - 2] == '}',
	    "written with a 2-space indent, the keys in the README's order, "
	    "and a final newline");
	free(text);
	kb_hookinstall_report_free(&r);
	json_decref(j);

	j = installed("{}", KB_AGENT_CODEX, &r, &e);
	ok(j != NULL && equal_text(j,
			    "{\"hooks\": {"
			    "\"PreToolUse\": [{\"matcher\": "
			    "\"^(Bash|apply_patch)$\", \"hooks\": [{\"type\": "
			    "\"command\", \"command\": "
			    "\"/usr/local/bin/kinpolicy hook codex\", "
			    "\"timeout\": 30}]}],"
			    "\"PostToolUse\": [{\"matcher\": \"^Bash$\", "
			    "\"hooks\": [{\"type\": \"command\", \"command\": "
			    "\"/usr/local/bin/kinpolicy hook codex\"}]}],"
			    "\"SessionStart\": [{\"hooks\": [{\"type\": "
			    "\"command\", \"command\": "
			    "\"/usr/local/bin/kinpolicy hook codex\"}]}]"
			    "}}"),
	    "codex: the README's block");
	kb_hookinstall_report_free(&r);
	json_decref(j);

	j = installed("{}", KB_AGENT_GEMINI, &r, &e);
	ok(j != NULL &&
		equal_text(j, "{\"hooks\": {"
			      "\"BeforeTool\": [{\"matcher\": "
			      "\"run_shell_command|write_file|replace\", "
			      "\"hooks\": [{\"type\": \"command\", "
			      "\"command\": "
			      "\"/usr/local/bin/kinpolicy hook gemini\", "
			      "\"timeout\": 30000}]}],"
			      "\"AfterTool\": [{\"matcher\": "
			      "\"run_shell_command\", \"hooks\": [{\"type\": "
			      "\"command\", \"command\": "
			      "\"/usr/local/bin/kinpolicy hook gemini\"}]}],"
			      "\"SessionStart\": [{\"hooks\": [{\"type\": "
			      "\"command\", \"command\": "
			      "\"/usr/local/bin/kinpolicy hook gemini\"}]}]"
			      "}}"),
	    "gemini: the README's block (timeout in milliseconds)");
	kb_hookinstall_report_free(&r);
	json_decref(j);

	j = installed("{}", KB_AGENT_CURSOR, &r, &e);
	ok(j != NULL &&
		equal_text(j, "{\"version\": 1, \"hooks\": "
			      "{\"beforeShellExecution\": [{\"command\": "
			      "\"/usr/local/bin/kinpolicy hook cursor\"}]}}"),
	    "cursor: the README's block, version 1");
	text = kb_hookinstall_dump(j);
	ok(strncmp(text, "{\n  \"version\": 1,", 17) == 0,
	    "cursor: \"version\" first, as in the README");
	free(text);
	kb_hookinstall_report_free(&r);
	json_decref(j);
}

/* a user's settings: every other key and hook kept, in order */
static const char user_claude[] =
    "{\"model\": \"opus\", \"permissions\": {\"allow\": [\"Bash(npm "
    "test)\"], \"deny\": [\"Read(./.env)\"], \"defaultMode\": "
    "\"acceptEdits\"}, \"env\": {\"A\": \"1\", \"PI\": 3.25, \"E\": 1e-7},"
    " \"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": "
    "[{\"type\": \"command\", \"command\": \"/usr/bin/guard-one\"}]}, "
    "{\"matcher\": \"Write\", \"hooks\": [{\"type\": \"command\", "
    "\"command\": \"guard-two\", \"timeout\": 5}]}], \"Stop\": [{\"hooks\": "
    "[{\"type\": \"command\", \"command\": \"notify-send done\"}]}], "
    "\"SessionStart\": []}, \"statusLine\": {\"type\": \"command\", "
    "\"command\": \"~/bin/status\"}, \"nested\": [[], {}, null, true, "
    "\"\\u00e9\\ud83d\\ude00\"]}";

static void
test_keeps(void)
{
	struct kb_hookinstall_report r = {0};
	struct kb_err e;
	json_t *orig = J(user_claude), *j, *pre, *x;
	_cleanup_free_ char *c = cmd(KB_AGENT_CLAUDE);
	const char *k;
	json_t *v;
	bool others = true;

	j = installed(user_claude, KB_AGENT_CLAUDE, &r, &e);
	ok(j != NULL, "control: a user's settings take the block");
	json_object_foreach(orig, k, v)
	{
		if (strcmp(k, "hooks") != 0 &&
		    !json_equal(v, json_object_get(j, k)))
			others = false;
	}
	ok(others && json_object_size(j) == json_object_size(orig),
	    "every other key is kept as it was (permissions, env, model, "
	    "statusLine, ...)");
	{
		/* the keys' order */
		void *it = json_object_iter(j);
		const char *order[] = {"model", "permissions", "env", "hooks",
		    "statusLine", "nested"};
		bool inorder = true;

		for (size_t i = 0; i < nitems(order);
		     i++, it = json_object_iter_next(j, it))
			if (it == NULL ||
			    strcmp(json_object_iter_key(it), order[i]) != 0)
				inorder = false;
		ok(inorder, "the keys stay in their order");
	}
	pre = json_object_get(json_object_get(j, "hooks"), "PreToolUse");
	ok(json_array_size(pre) == 3 &&
		json_equal(json_array_get(pre, 0),
		    json_array_get(
			json_object_get(
			    json_object_get(orig, "hooks"), "PreToolUse"),
			0)) &&
		json_equal(json_array_get(pre, 1),
		    json_array_get(
			json_object_get(
			    json_object_get(orig, "hooks"), "PreToolUse"),
			1)),
	    "the other PreToolUse hooks stay first, in order; kinpolicy's "
	    "comes after them");
	x = json_array_get(json_object_get(json_array_get(pre, 2), "hooks"), 0);
	assert_cmpstr(json_string_value(json_object_get(x, "command")), c,
	    "kinpolicy's handler is last");
	ok(json_equal(json_object_get(json_object_get(j, "hooks"), "Stop"),
	       json_object_get(json_object_get(orig, "hooks"), "Stop")),
	    "another event's hooks are kept");
	ok(json_array_size(json_object_get(
	       json_object_get(j, "hooks"), "SessionStart")) == 1,
	    "an empty event array takes the entry");
	kb_hookinstall_report_free(&r);

	/* again: nothing changes */
	{
		json_t *again = json_deep_copy(j);

		ok(kb_hookinstall_install(again, KB_AGENT_CLAUDE, c, &r, &e) ==
			    0 &&
			json_equal(again, j) && !kb_hookinstall_changed(&r) &&
			r.n == 3 && r.ch[0].what == KB_HI_SAME,
		    "a second install changes nothing and says so");
		kb_hookinstall_report_free(&r);
		json_decref(again);
	}
	/* uninstall: the original value, but the empty SessionStart array
	 * that the entry went into goes with it */
	ok(kb_hookinstall_uninstall(j, KB_AGENT_CLAUDE, &r, &e) == 0 &&
		r.n == 3 && r.ch[0].what == KB_HI_REMOVED,
	    "uninstall removes the three entries");
	json_object_set_new(
	    json_object_get(j, "hooks"), "SessionStart", json_array());
	ok(json_equal(j, orig),
	    "uninstall gives the original JSON back (the event array that "
	    "was empty before aside)");
	kb_hookinstall_report_free(&r);
	json_decref(j);
	json_decref(orig);
}

/* install then uninstall gives the original value, for every agent */
static void
test_round_trip(void)
{
	static const struct {
		enum kb_agent agent;
		const char *text;
	} cases[] = {
	    {KB_AGENT_CLAUDE, "{}"},
	    {KB_AGENT_CLAUDE, "{\"model\": \"x\"}"},
	    {KB_AGENT_CLAUDE,
		"{\"hooks\": {\"PostToolUse\": [{\"matcher\": \"*\", "
		"\"hooks\": [{\"type\": \"command\", \"command\": \"log\"}]}]},"
		" \"x\": 1}"},
	    {KB_AGENT_CLAUDE,
		"{\"hooks\": {\"PreToolUse\": [{\"matcher\": "
		"\"Bash|Edit|Write|MultiEdit|NotebookEdit\", \"hooks\": "
		"[{\"type\": \"command\", \"command\": \"mine\", "
		"\"timeout\": 30}]}]}}"},
	    {KB_AGENT_CLAUDE,
		"{\"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", "
		"\"hooks\": [{\"type\": \"command\", \"command\": \"kinpolicy "
		"hook codex\"}]}]}}"},
	    {KB_AGENT_CODEX,
		"{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", "
		"\"command\": \"x\"}]}]}, \"description\": \"d\"}"},
	    {KB_AGENT_GEMINI,
		"{\"general\": {\"vimMode\": true}, \"hooksConfig\": "
		"{\"enabled\": true}, \"hooks\": {\"disabled\": [\"a\"], "
		"\"BeforeTool\": [{\"matcher\": \"x\", \"sequential\": true, "
		"\"hooks\": [{\"type\": \"command\", \"command\": \"y\", "
		"\"name\": \"n\"}]}]}, \"r\": 0.1}"},
	    {KB_AGENT_CURSOR,
		"{\"version\": 1, \"hooks\": {\"beforeShellExecution\": "
		"[{\"command\": \"./audit.sh\"}], \"afterFileEdit\": "
		"[{\"command\": \"fmt\"}]}}"},
	    {KB_AGENT_CURSOR, "{\"version\": 1}"},
	};

	for (size_t i = 0; i < nitems(cases); i++) {
		struct kb_hookinstall_report r = {0};
		struct kb_err e;
		json_t *orig = J(cases[i].text);
		json_t *j = installed(cases[i].text, cases[i].agent, &r, &e);
		bool inst = j != NULL && kb_hookinstall_changed(&r);

		kb_hookinstall_report_free(&r);
		ok(inst && !json_equal(j, orig) &&
			kb_hookinstall_uninstall(j, cases[i].agent, &r, &e) ==
			    0 &&
			json_equal(j, orig),
		    "%s: install, uninstall: the original JSON of %s",
		    kb_agent_name(cases[i].agent), cases[i].text);
		kb_hookinstall_report_free(&r);
		json_decref(j);
		json_decref(orig);
	}
}

static void
test_update(void)
{
	struct kb_hookinstall_report r = {0};
	struct kb_err e;
	_cleanup_free_ char *c = cmd(KB_AGENT_CLAUDE);
	json_t *j, *pre, *h;

	/* an older install, another path, its own matcher and options */
	j = installed(
	    "{\"hooks\": {\"PreToolUse\": [{\"matcher\": \"a\", "
	    "\"hooks\": [{\"type\": \"command\", \"command\": "
	    "\"b\"}]}, {\"matcher\": \"Bash\", \"hooks\": "
	    "[{\"type\": \"command\", \"command\": "
	    "\"/old/bin/kinpolicy hook claude-code --mode strict\", "
	    "\"timeout\": 60, \"statusMessage\": \"sandboxing\"}]}, "
	    "{\"matcher\": \"c\", \"hooks\": [{\"type\": \"command\", "
	    "\"command\": \"d\"}]}]}}",
	    KB_AGENT_CLAUDE, &r, &e);
	pre = json_object_get(json_object_get(j, "hooks"), "PreToolUse");
	h = json_array_get(json_object_get(json_array_get(pre, 1), "hooks"), 0);
	ok(json_array_size(pre) == 3, "an old path is updated, not added");
	assert_cmpstr(json_string_value(json_object_get(h, "command")),
	    "/usr/local/bin/kinpolicy hook claude-code --mode strict",
	    "in place, with this path and the options it had");
	assert_cmpstr(json_string_value(
			  json_object_get(json_array_get(pre, 1), "matcher")),
	    "Bash|Edit|Write|MultiEdit|NotebookEdit",
	    "the matcher is the README's");
	assert_cmpint(json_integer_value(json_object_get(h, "timeout")), 30,
	    "the timeout is the README's");
	assert_cmpstr(json_string_value(json_object_get(h, "statusMessage")),
	    "sandboxing", "another key of the handler is kept");
	ok(r.ch[0].what == KB_HI_UPDATED && r.ch[0].was != NULL &&
		strcmp(r.ch[0].was, "/old/bin/kinpolicy hook claude-code "
				    "--mode strict") == 0,
	    "the report says what it was");
	assert_cmpstr(
	    json_string_value(json_object_get(
		json_array_get(
		    json_object_get(json_array_get(pre, 0), "hooks"), 0),
		"command")),
	    "b", "the hooks around it stay");
	kb_hookinstall_report_free(&r);
	json_decref(j);

	/* duplicates, and one in a group shared with another hook */
	j = installed("{\"hooks\": {\"SessionStart\": [{\"hooks\": "
		      "[{\"type\": \"command\", \"command\": \"kinpolicy hook "
		      "claude-code\"}]}, {\"hooks\": [{\"type\": \"command\", "
		      "\"command\": \"mine\"}, {\"type\": \"command\", "
		      "\"command\": \"/x/kinpolicy hook claude-code\"}]}]}}",
	    KB_AGENT_CLAUDE, &r, &e);
	ok(j != NULL &&
		equal_text(json_object_get(
			       json_object_get(j, "hooks"), "SessionStart"),
		    "[{\"hooks\": [{\"type\": \"command\", \"command\": "
		    "\"/usr/local/bin/kinpolicy hook claude-code\"}]}, "
		    "{\"hooks\": [{\"type\": \"command\", \"command\": "
		    "\"mine\"}]}]"),
	    "two of kinpolicy's become one, where the first was; the shared "
	    "group keeps its other hook");
	ok(r.n == 3 && r.ch[2].what == KB_HI_UPDATED && r.ch[2].removed == 2,
	    "the report counts both");
	kb_hookinstall_report_free(&r);
	json_decref(j);

	/* another agent's kinpolicy hook is not this one's */
	j = installed("{\"hooks\": {\"SessionStart\": [{\"hooks\": "
		      "[{\"type\": \"command\", \"command\": \"kinpolicy hook "
		      "codex\"}]}]}}",
	    KB_AGENT_CLAUDE, &r, &e);
	ok(j != NULL && json_array_size(json_object_get(
			    json_object_get(j, "hooks"), "SessionStart")) == 2,
	    "codex's hook in Claude Code's file is left, claude-code's added");
	kb_hookinstall_report_free(&r);
	ok(kb_hookinstall_uninstall(j, KB_AGENT_CLAUDE, &r, &e) == 0 &&
		equal_text(j, "{\"hooks\": {\"SessionStart\": [{\"hooks\": "
			      "[{\"type\": \"command\", \"command\": "
			      "\"kinpolicy hook codex\"}]}]}}"),
	    "and uninstall leaves it");
	kb_hookinstall_report_free(&r);
	json_decref(j);
	(void)c;
}

static void
test_refused(void)
{
	static const struct {
		enum kb_agent agent;
		const char *text, *says;
	} cases[] = {
	    {KB_AGENT_CLAUDE, "{\"hooks\": []}", "\"hooks\" is an array"},
	    {KB_AGENT_CLAUDE, "{\"hooks\": \"x\"}", "\"hooks\" is a string"},
	    {KB_AGENT_CLAUDE, "{\"hooks\": null}", "\"hooks\" is null"},
	    {KB_AGENT_CLAUDE, "{\"hooks\": {\"PreToolUse\": {}}}",
		"hooks.PreToolUse is an object"},
	    {KB_AGENT_CLAUDE, "{\"hooks\": {\"SessionStart\": [1]}}",
		"hooks.SessionStart[0] is a number"},
	    {KB_AGENT_CLAUDE,
		"{\"hooks\": {\"PreToolUse\": [{\"hooks\": {}}]}}",
		"hooks.PreToolUse[0].hooks is an object"},
	    {KB_AGENT_CLAUDE,
		"{\"hooks\": {\"PreToolUse\": [{\"hooks\": [\"x\"]}]}}",
		"hooks.PreToolUse[0].hooks[0] is a string"},
	    {KB_AGENT_CODEX, "{\"hooks\": {\"PostToolUse\": true}}",
		"hooks.PostToolUse is true"},
	    {KB_AGENT_GEMINI, "{\"hooks\": {\"AfterTool\": [[]]}}",
		"hooks.AfterTool[0] is an array"},
	    {KB_AGENT_CURSOR, "{\"version\": 2}", "\"version\" is a number"},
	    {KB_AGENT_CURSOR, "{\"version\": \"1\"}",
		"\"version\" is a string"},
	    {KB_AGENT_CURSOR,
		"{\"version\": 1, \"hooks\": {\"beforeShellExecution\": "
		"[\"kinpolicy hook cursor\"]}}",
		"hooks.beforeShellExecution[0] is a string"},
	};

	for (size_t i = 0; i < nitems(cases); i++) {
		struct kb_hookinstall_report r = {0};
		struct kb_err e = {{0}};
		json_t *j = J(cases[i].text);
		_cleanup_free_ char *c = cmd(cases[i].agent);
		int got = kb_hookinstall_install(j, cases[i].agent, c, &r, &e);

		ok(got == -1 && strstr(e.msg, cases[i].says) != NULL,
		    "%s: install refuses %s: %s", kb_agent_name(cases[i].agent),
		    cases[i].text, e.msg);
		kb_hookinstall_report_free(&r);
		json_decref(j);
		/* uninstall refuses the same shapes (Cursor's version aside:
		 * it only reads hooks) */
		if (cases[i].agent == KB_AGENT_CURSOR &&
		    strstr(cases[i].says, "version") != NULL)
			continue;
		j = J(cases[i].text);
		e.msg[0] = '\0';
		got = kb_hookinstall_uninstall(j, cases[i].agent, &r, &e);
		ok(got == -1 && strstr(e.msg, cases[i].says) != NULL,
		    "%s: uninstall refuses it too: %s",
		    kb_agent_name(cases[i].agent), e.msg);
		kb_hookinstall_report_free(&r);
		json_decref(j);
	}
	{
		/* parts of "hooks" install does not write are not its
		 * business: uninstall leaves them */
		struct kb_hookinstall_report r = {0};
		struct kb_err e;
		const char *t = "{\"hooks\": {\"disabled\": [\"a\", 1], "
				"\"enabled\": true, \"Other\": [{\"hooks\": "
				"\"x\"}]}}";
		json_t *j = J(t), *o = J(t);

		ok(kb_hookinstall_uninstall(j, KB_AGENT_GEMINI, &r, &e) == 0 &&
			json_equal(j, o) && r.n == 0,
		    "uninstall leaves what is not an event array of objects");
		json_decref(j);
		json_decref(o);
	}
}

static void
test_dump(void)
{
	json_t *j = J("{\"a\": 0.1, \"b\": 1e300, \"c\": 3.0, \"d\": -0.5, "
		      "\"e\": 0.30000000000000004, \"s\": \"\\u00e9/\\\"\", "
		      "\"i\": -9223372036854775807, \"z\": {}, \"y\": []}");
	char *t = kb_hookinstall_dump(j);
	struct kb_err e;
	json_t *back = kb_hookinstall_parse(t, strlen(t), &e);

	ok(back != NULL && json_equal(back, j), "the text reads back equal");
	ok(strstr(t, "\"a\": 0.1,") != NULL, "0.1 is written 0.1");
	ok(strstr(t, "\"e\": 0.30000000000000004,") != NULL,
	    "0.30000000000000004 keeps its digits");
	ok(strstr(t, "\"c\": 3.0,") != NULL, "3.0 stays a real");
	ok(strstr(t, "\"s\": \"\xc3\xa9/\\\"\"") != NULL,
	    "UTF-8 is written as it is, / unescaped");
	ok(strstr(t, "\"z\": {},\n  \"y\": []\n}\n") != NULL,
	    "empty containers, and the final newline");
	free(t);
	json_decref(back);
	json_decref(j);
}

static void
test_warnings(void)
{
	json_t *j;
	static const struct {
		const char *toml;
		size_t line;
	} tomls[] = {
	    {"model = \"o3\"\n[features]\nhooks = true\n", 0},
	    {"[features]\nhooks = false\n", 2},
	    {"[features]\ncodex_hooks = false # old\n", 2},
	    {"[features]\n\"hooks\"=false\n", 2},
	    {"features.hooks = false\n", 1},
	    {"features = { hooks = false }\n", 1},
	    {"[profiles.x]\nhooks = false\n", 0},
	    {"[features]\nother = false\n[tui]\nhooks = false\n", 0},
	    {"# [features]\n# hooks = false\n", 0},
	    {"[features] # on\nweb = true\n\nhooks   =   false\n", 4},
	    {"x = \"# not a comment\"\n[features]\nhooks = false", 3},
	    {"", 0},
	};

	j = J("{\"disableAllHooks\": true}");
	ok(kb_hookinstall_disabled(j, KB_AGENT_CLAUDE) != NULL,
	    "claude-code: disableAllHooks is warned about");
	ok(kb_hookinstall_disabled(j, KB_AGENT_GEMINI) == NULL,
	    "gemini: not its key");
	json_decref(j);
	j = J("{\"disableAllHooks\": false}");
	ok(kb_hookinstall_disabled(j, KB_AGENT_CLAUDE) == NULL,
	    "control: disableAllHooks false is not");
	json_decref(j);
	j = J("{\"hooksConfig\": {\"enabled\": false}}");
	ok(kb_hookinstall_disabled(j, KB_AGENT_GEMINI) != NULL,
	    "gemini: hooksConfig.enabled false is warned about");
	json_decref(j);
	j = J("{\"hooksConfig\": {\"enabled\": true}}");
	ok(kb_hookinstall_disabled(j, KB_AGENT_GEMINI) == NULL,
	    "control: hooksConfig.enabled true is not");
	json_decref(j);
	for (size_t i = 0; i < nitems(tomls); i++)
		assert_cmpint(kb_hookinstall_codex_off(tomls[i].toml),
		    tomls[i].line,
		    "codex config.toml: line %zu turns hooks off",
		    tomls[i].line);
}

/* the diff of a and b, applied to a, gives b */
static bool
diff_applies(const char *a, const char *b)
{
	char *d = kb_udiff("a", a, "b", b);
	char *got = ua_apply(a, d);
	bool good = got != NULL && strcmp(got, b) == 0;

	if (!good)
		printf("# diff of '%s' and '%s':\n%s", a, b, d);
	free(got);
	free(d);
	return good;
}

static void
test_udiff(void)
{
	char *d = kb_udiff("old", "a\nb\nc\n", "new", "a\nB\nc\nd\n");
	struct kb_buf a = {0}, b = {0};
	static const char *pairs[][2] = {
	    {"", ""},
	    {"", "x\n"},
	    {"x\n", ""},
	    {"x", "x\n"},
	    {"x\n", "x"},
	    {"a\nb\n", "b\na\n"},
	    {"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n",
		"1\n2\nX\n4\n5\n6\n7\n8\n9\n10\n11\n12\nY\n14\n15\n"},
	    {"1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\nX\n4\n5\n6\n7\n8\nY\n"},
	    {"{\n}\n", "{\n  \"a\": 1\n}\n"},
	};

	assert_cmpstr(d,
	    "--- old\n+++ new\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n",
	    "a small diff, exactly as diff -u writes it");
	free(d);
	d = kb_udiff("a", "same\n", "b", "same\n");
	assert_cmpstr(d, "", "equal texts: no diff");
	free(d);
	for (size_t i = 0; i < nitems(pairs); i++)
		ok(diff_applies(pairs[i][0], pairs[i][1]),
		    "the diff applies (pair %zu)", i);
	/* far apart changes: two hunks */
	d = kb_udiff("a", pairs[6][0], "b", pairs[6][1]);
	ok(strstr(d, "@@ -1,6 +1,6 @@") != NULL &&
		strstr(d, "@@ -10,6 +10,6 @@") != NULL,
	    "changes far apart are two hunks");
	free(d);
	/* beyond KB_UDIFF_MAX_EDITS: still a diff that applies */
	kb_buf_add(&a, "", 0);
	kb_buf_add(&b, "", 0);
	for (int i = 0; i < 1500; i++) {
		kb_buf_printf(&a, "a%d\nsame%d\n", i, i);
		kb_buf_printf(&b, "b%d\nsame%d\n", i, i);
	}
	ok(diff_applies(a.s, b.s),
	    "a diff of more edits than the bound applies too");
	kb_buf_free(&a);
	kb_buf_free(&b);
}

int
main(void)
{
	test_command();
	test_is_ours();
	test_parse();
	test_fresh();
	test_keeps();
	test_round_trip();
	test_update();
	test_refused();
	test_dump();
	test_warnings();
	test_udiff();
	return tap_done();
}
