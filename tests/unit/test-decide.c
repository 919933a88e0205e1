/*
 * tests/unit/test-decide.c — kinpolicy's permission gate (sidecar/decide.c):
 * every mode × kind × planning row, then the rules one by one (sandbox,
 * classifier, edit targets, session grants, MCP), with a fake classifier
 * and a fake session store. Edits are judged on a small temp tree.
 */
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../sidecar/decide.h"
#include "tap.h"

static char base[256], ws[300], inside[320], outside[320], lockfile[320];
static char dotenv[320], loop[320];

/* Read-only when it starts with "ls" or "git status"; the signature is
 * the command itself, whatever the answer. */
static bool
fake_classify(const char *cmd, char **sig, char **rewritten, char *reason,
    size_t len, void *ctx)
{
	bool safe =
	    strncmp(cmd, "ls", 2) == 0 || strncmp(cmd, "git status", 10) == 0;

	(void)ctx;
	*sig = strdup(cmd);
	/* "git log" is read-only once rewritten */
	*rewritten =
	    strcmp(cmd, "git log") == 0 ? strdup("git --no-pager log") : NULL;
	snprintf(reason, len, "fake says %s", safe ? "read-only" : "writes");
	return safe;
}

struct session {
	const char *const *grants; /* "kind=signature", NULL-terminated */
	bool all;                  /* grants everything */
	int calls;
};

static bool
fake_session(const char *kind, const char *sig, void *ctx)
{
	struct session *s = ctx;
	char want[256];

	s->calls++;
	if (s->all)
		return true;
	snprintf(want, sizeof(want), "%s=%s", kind, sig);
	for (size_t i = 0; s->grants != NULL && s->grants[i] != NULL; i++)
		if (strcmp(s->grants[i], want) == 0)
			return true;
	return false;
}

static const char *const kinds[] = {
    "read",
    "edit",
    "shell",
    "meta",
    "mcp",
    "network",
    "rig",
    "outpost",
    "publish",
    "bogus",
};

/* A request that every row shares: an edit inside the workspace, a shell
 * command the classifier does not pass, a working sandbox. */
static struct kb_decide_in
base_in(enum kb_mode mode, const char *kind)
{
	struct kb_decide_in in = {
	    .mode = mode,
	    .kind = kind,
	    .tool = "Tool",
	    .command = "make",
	    .path = inside,
	    .workspace = ws,
	    .cwd = ws,
	    .home = base,
	    .sandbox_available = true,
	    .classify = fake_classify,
	};
	return in;
}

static void
expect(const struct kb_decide_in *in, enum kb_verdict v, const char *rule,
    const char *desc)
{
	struct kb_decide_out out;

	assert_cmpint(kb_decide(in, &out), 0, "%s: decides", desc);
	ok(out.verdict == v && strcmp(out.rule, rule) == 0, "%s: %s at %s",
	    desc, kb_verdict_name(v), rule);
	if (out.verdict != v || strcmp(out.rule, rule) != 0)
		printf("#   got %s at %s: %s\n", kb_verdict_name(out.verdict),
		    out.rule, out.reason);
	ok(out.reason[0] != '\0' && strchr(out.reason, '\n') == NULL,
	    "%s: one reason line", desc);
	kb_decide_out_free(&out);
}

/* planning: a shell command the classifier proves read-only runs (the
 * hook wraps it under kinbox), any other stays frozen, in both modes */
static void
test_planning_shell(void)
{
	static const enum kb_mode modes[] = {KB_MODE_AUTO, KB_MODE_STRICT};

	for (size_t i = 0; i < nitems(modes); i++) {
		struct kb_decide_in in = base_in(modes[i], "shell");
		struct kb_decide_out out;

		in.planning = true;
		in.command = "ls -la";
		expect(&in, KB_ALLOW, "planning-read-only",
		    "planning: ls (read-only)");
		kb_decide(&in, &out);
		ok(strstr(out.reason, "fake says read-only") != NULL,
		    "planning: the classifier's reason is kept (%s)",
		    out.reason);
		kb_decide_out_free(&out);
		in.command = "make";
		expect(&in, KB_DENY, "planning-freeze",
		    "planning: make (not read-only)");
		in.command = "git log"; /* read-only once rewritten */
		expect(&in, KB_DENY, "planning-freeze",
		    "planning: git log (the fake classifier does not pass it)");
		in.command = NULL;
		expect(&in, KB_DENY, "planning-freeze", "planning: no command");
		in.command = "git status";
		in.kind = "edit";
		expect(&in, KB_DENY, "planning-freeze",
		    "planning: an edit, whatever its command field");

		/* a caller that runs it under kinbox --read-only: any
		 * shell call runs, on that condition; edits stay frozen */
		in.kind = "shell";
		in.read_only_run = true;
		in.command = "touch x; sed -i s/a/b/ f; git commit -m x";
		expect(&in, KB_ALLOW, "planning-read-only",
		    "planning, read-only run: a write runs read-only");
		kb_decide(&in, &out);
		ok(out.read_only && strstr(out.reason, "--read-only") != NULL,
		    "... on the condition it runs under kinbox --read-only (%s)",
		    out.reason);
		kb_decide_out_free(&out);
		in.sandbox_available = false;
		expect(&in, KB_DENY, "planning-freeze",
		    "planning, read-only run but no sandbox: frozen");
		in.command = "ls -la";
		kb_decide(&in, &out);
		ok(out.verdict == KB_ALLOW && !out.read_only,
		    "... a read-only command still runs by the classifier");
		kb_decide_out_free(&out);
		in.sandbox_available = true;
		in.kind = "edit";
		expect(&in, KB_DENY, "planning-freeze",
		    "planning, read-only run: an edit stays frozen");
	}
}

static void
test_matrix(void)
{
	/* clang-format off */
	static const struct {
		enum kb_mode mode;
		const char *kind;
		bool planning;
		enum kb_verdict v;
		const char *rule;
	} rows[] = {
		{ KB_MODE_AUTO,   "read",    false, KB_ALLOW, "mode-table" },
		{ KB_MODE_AUTO,   "edit",    false, KB_ALLOW, "mode-table" },
		{ KB_MODE_AUTO,   "shell",   false, KB_ALLOW, "sandbox" },
		{ KB_MODE_AUTO,   "meta",    false, KB_ALLOW, "mode-table" },
		{ KB_MODE_AUTO,   "mcp",     false, KB_ASK,   "mcp" },
		{ KB_MODE_AUTO,   "network", false, KB_ALLOW, "mode-table" },
		{ KB_MODE_AUTO,   "rig",     false, KB_ALLOW, "mode-table" },
		{ KB_MODE_AUTO,   "outpost", false, KB_ALLOW, "mode-table" },
		{ KB_MODE_AUTO,   "publish", false, KB_ALLOW, "mode-table" },
		{ KB_MODE_AUTO,   "bogus",   false, KB_ASK,   "invalid-kind" },

		{ KB_MODE_STRICT, "read",    false, KB_ALLOW, "mode-table" },
		{ KB_MODE_STRICT, "edit",    false, KB_ASK,   "mode-table" },
		{ KB_MODE_STRICT, "shell",   false, KB_ASK,   "classifier" },
		{ KB_MODE_STRICT, "meta",    false, KB_ALLOW, "mode-table" },
		{ KB_MODE_STRICT, "mcp",     false, KB_ASK,   "mcp" },
		{ KB_MODE_STRICT, "network", false, KB_ASK,   "mode-table" },
		{ KB_MODE_STRICT, "rig",     false, KB_ASK,   "mode-table" },
		{ KB_MODE_STRICT, "outpost", false, KB_ASK,   "mode-table" },
		{ KB_MODE_STRICT, "publish", false, KB_ASK,   "mode-table" },
		{ KB_MODE_STRICT, "bogus",   false, KB_ASK,   "invalid-kind" },

		{ KB_MODE_AUTO,   "read",    true,  KB_ALLOW, "mode-table" },
		{ KB_MODE_AUTO,   "edit",    true,  KB_DENY,  "planning-freeze" },
		{ KB_MODE_AUTO,   "shell",   true,  KB_DENY,  "planning-freeze" },
		{ KB_MODE_AUTO,   "meta",    true,  KB_ALLOW, "mode-table" },
		{ KB_MODE_AUTO,   "mcp",     true,  KB_DENY,  "planning-freeze" },
		{ KB_MODE_AUTO,   "network", true,  KB_DENY,  "planning-freeze" },
		{ KB_MODE_AUTO,   "rig",     true,  KB_DENY,  "planning-freeze" },
		{ KB_MODE_AUTO,   "outpost", true,  KB_DENY,  "planning-freeze" },
		{ KB_MODE_AUTO,   "publish", true,  KB_DENY,  "planning-freeze" },
		{ KB_MODE_AUTO,   "bogus",   true,  KB_ASK,   "invalid-kind" },

		{ KB_MODE_STRICT, "read",    true,  KB_ALLOW, "mode-table" },
		{ KB_MODE_STRICT, "edit",    true,  KB_DENY,  "planning-freeze" },
		{ KB_MODE_STRICT, "shell",   true,  KB_DENY,  "planning-freeze" },
		{ KB_MODE_STRICT, "meta",    true,  KB_ALLOW, "mode-table" },
		{ KB_MODE_STRICT, "mcp",     true,  KB_DENY,  "planning-freeze" },
		{ KB_MODE_STRICT, "network", true,  KB_DENY,  "planning-freeze" },
		{ KB_MODE_STRICT, "rig",     true,  KB_DENY,  "planning-freeze" },
		{ KB_MODE_STRICT, "outpost", true,  KB_DENY,  "planning-freeze" },
		{ KB_MODE_STRICT, "publish", true,  KB_DENY,  "planning-freeze" },
		{ KB_MODE_STRICT, "bogus",   true,  KB_ASK,   "invalid-kind" },
	};
	/* clang-format on */
	bool seen[2][nitems(kinds)][2] = {{{false}}};
	size_t covered = 0;

	for (size_t i = 0; i < nitems(rows); i++) {
		struct kb_decide_in in = base_in(rows[i].mode, rows[i].kind);
		char desc[64];

		in.planning = rows[i].planning;
		snprintf(desc, sizeof(desc), "%s %s%s",
		    kb_mode_name(rows[i].mode), rows[i].kind,
		    rows[i].planning ? " (planning)" : "");
		expect(&in, rows[i].v, rows[i].rule, desc);
		for (size_t k = 0; k < nitems(kinds); k++)
			if (strcmp(kinds[k], rows[i].kind) == 0 &&
			    !seen[rows[i].mode][k][rows[i].planning]) {
				seen[rows[i].mode][k][rows[i].planning] = true;
				covered++;
			}
	}
	assert_cmpint(covered, 2 * nitems(kinds) * 2,
	    "the matrix covers every mode × kind × planning");
}

static void
test_names(void)
{
	enum kb_kind k;

	for (size_t i = 0; i + 1 < nitems(kinds); i++)
		ok(kb_kind_parse(kinds[i], &k) == 0 &&
			strcmp(kb_kind_name(k), kinds[i]) == 0,
		    "kind %s round-trips", kinds[i]);
	ok(kb_kind_parse("bogus", &k) == -1 && k == KB_KIND_INVALID,
	    "an unknown kind is KB_KIND_INVALID");
	ok(kb_kind_parse("invalid", &k) == -1 && k == KB_KIND_INVALID,
	    "'invalid' is not a kind");
	ok(kb_kind_parse("READ", &k) == -1, "kinds are lower case");
	ok(kb_kind_parse(NULL, &k) == -1 && k == KB_KIND_INVALID,
	    "a NULL kind");
	assert_cmpstr(kb_kind_name(KB_KIND_INVALID), "invalid",
	    "the invalid kind's name");
	assert_cmpstr(kb_kind_name((enum kb_kind)99), "invalid",
	    "an out-of-range kind's name");
}

static void
test_invalid(void)
{
	struct session all = {.all = true};
	struct kb_decide_in in = base_in(KB_MODE_AUTO, NULL);
	struct kb_decide_out out;

	expect(&in, KB_ASK, "invalid-kind", "a NULL kind");
	in.kind = "bo\ngus";
	expect(&in, KB_ASK, "invalid-kind", "a kind with a newline");
	in.kind = "Read";
	in.session_allows = fake_session;
	in.ctx = &all;
	expect(&in, KB_ASK, "invalid-kind",
	    "an unknown kind is not lifted by a session grant");
	assert_cmpint(all.calls, 0, "the session is not asked");

	in = base_in((enum kb_mode)7, "network");
	expect(&in, KB_ASK, "mode-table", "a mode without rows fails closed");
	in = base_in((enum kb_mode)7, "read");
	expect(&in, KB_ASK, "mode-table", "even for a read");

	ok(kb_decide(NULL, &out) == 0 && out.verdict == KB_ASK,
	    "no request: ASK");
	kb_decide_out_free(&out);
	ok(kb_decide(&in, NULL) == -1, "no output: -1");
	kb_decide_out_free(NULL);
}

static void
test_shell(void)
{
	struct kb_decide_in in = base_in(KB_MODE_AUTO, "shell");
	struct kb_decide_out out;

	in.command = "rm -rf build";
	expect(&in, KB_ALLOW, "sandbox", "auto, sandbox: anything runs boxed");
	kb_decide(&in, &out);
	ok(out.signature == NULL, "sandbox: no signature judged");
	kb_decide_out_free(&out);

	in.sandbox_available = false;
	in.command = "ls -l";
	expect(&in, KB_ALLOW, "classifier", "auto, no sandbox: ls -l");
	kb_decide(&in, &out);
	assert_cmpstr(out.signature, "ls -l", "the classifier's signature");
	ok(strstr(out.reason, "fake says read-only") != NULL,
	    "the classifier's reason is kept");
	kb_decide_out_free(&out);
	in.command = "rm -rf build";
	expect(&in, KB_ASK, "classifier", "auto, no sandbox: rm -rf");
	in.command = NULL;
	expect(&in, KB_ASK, "classifier", "auto, no sandbox: no command");
	in.command = "ls";
	in.classify = NULL;
	expect(&in, KB_ASK, "classifier", "auto, no sandbox: no classifier");

	in = base_in(KB_MODE_STRICT, "shell");
	in.command = "git status";
	expect(&in, KB_ALLOW, "classifier", "strict: git status");
	in.command = "git push";
	expect(&in, KB_ASK, "classifier", "strict: git push");
	in.sandbox_available = false;
	expect(
	    &in, KB_ASK, "classifier", "strict: the sandbox does not matter");

	/* the classifier's rewritten form goes out with its ASK; a human's
	 * "always" for the command as given drops it */
	in.command = "ls";
	kb_decide(&in, &out);
	ok(out.rewritten == NULL, "strict: ALLOW has no rewritten form");
	kb_decide_out_free(&out);
	in.command = "git log";
	kb_decide(&in, &out);
	ok(out.verdict == KB_ASK && out.rewritten != NULL &&
		strcmp(out.rewritten, "git --no-pager log") == 0,
	    "strict: the ASK carries the classifier's rewritten form");
	kb_decide_out_free(&out);
	ok(out.rewritten == NULL && out.signature == NULL,
	    "kb_decide_out_free frees the rewritten form");
	{
		static const char *const grants[] = {"shell=git log", NULL};
		struct session ss = {grants, false, 0};

		in.session_allows = fake_session;
		in.ctx = &ss;
		kb_decide(&in, &out);
		ok(out.verdict == KB_ALLOW &&
			strcmp(out.rule, "session-always") == 0 &&
			out.rewritten == NULL,
		    "strict: an always grant allows the command as given, "
		    "without the rewritten form");
		kb_decide_out_free(&out);
	}
}

static void
test_session(void)
{
	static const char *const grants[] = {
	    "shell=make test",
	    "network=network:curl",
	    "edit=edit:Write",
	    "mcp=mcp:github.create_issue",
	    "publish=publish",
	    NULL,
	};
	struct session s = {.grants = grants};
	struct session all = {.all = true};
	struct kb_decide_in in = base_in(KB_MODE_STRICT, "shell");
	struct kb_decide_out out;

	in.session_allows = fake_session;
	in.ctx = &s;
	in.command = "make test";
	expect(&in, KB_ALLOW, "session-always", "strict: granted make test");
	in.command = "make install";
	expect(&in, KB_ASK, "classifier", "strict: make install not granted");
	in.command = "ls";
	s.calls = 0;
	expect(&in, KB_ALLOW, "classifier", "an ALLOW needs no grant");
	assert_cmpint(s.calls, 0, "the session is not asked for an ALLOW");
	in.command = "make test";
	in.sandbox_available = false;
	in.mode = KB_MODE_AUTO;
	expect(&in, KB_ALLOW, "session-always", "auto, no sandbox: granted");

	in = base_in(KB_MODE_STRICT, "network");
	in.session_allows = fake_session;
	in.ctx = &s;
	in.tool = "curl";
	expect(&in, KB_ALLOW, "session-always", "strict: network:curl granted");
	kb_decide(&in, &out);
	assert_cmpstr(out.signature, "network:curl", "kind:tool signature");
	kb_decide_out_free(&out);
	in.tool = "wget";
	expect(&in, KB_ASK, "mode-table", "strict: network:wget not granted");
	in = base_in(KB_MODE_STRICT, "publish");
	in.session_allows = fake_session;
	in.ctx = &s;
	in.tool = NULL;
	expect(&in, KB_ALLOW, "session-always", "no tool: the kind alone");
	kb_decide(&in, &out);
	assert_cmpstr(out.signature, "publish", "signature without a tool");
	kb_decide_out_free(&out);

	in = base_in(KB_MODE_STRICT, "edit");
	in.session_allows = fake_session;
	in.ctx = &s;
	in.tool = "Write";
	expect(&in, KB_ALLOW, "session-always", "strict: edit:Write granted");
	in.path = lockfile;
	expect(&in, KB_ASK, "protected-path",
	    "a grant does not lift a protected path");

	in = base_in(KB_MODE_AUTO, "mcp");
	in.session_allows = fake_session;
	in.ctx = &s;
	in.tool = "github.create_issue";
	expect(&in, KB_ALLOW, "session-always", "mcp: a granted tool");
	in.tool = "github.delete_repo";
	expect(&in, KB_ASK, "mcp", "mcp: another tool");

	/* never DENY into anything */
	in = base_in(KB_MODE_AUTO, "network");
	in.session_allows = fake_session;
	in.ctx = &all;
	in.planning = true;
	expect(&in, KB_DENY, "planning-freeze", "planning beats a grant");
	in = base_in(KB_MODE_AUTO, "edit");
	in.session_allows = fake_session;
	in.ctx = &all;
	in.path = outside;
	expect(&in, KB_DENY, "outside-workspace", "outside beats a grant");
	in.mode = KB_MODE_STRICT;
	expect(
	    &in, KB_DENY, "outside-workspace", "strict: outside beats a grant");
	in.path = dotenv;
	expect(&in, KB_DENY, "secret-file", "a secret beats a grant");
	in.path = NULL;
	expect(&in, KB_ASK, "edit-no-path",
	    "a grant does not lift an edit it cannot judge");
	in.path = loop;
	expect(&in, KB_ASK, "path-unresolved",
	    "a grant does not lift an unresolvable path");
	in.path = inside;
	in.workspace = NULL;
	expect(&in, KB_ASK, "no-workspace",
	    "a grant does not lift an edit without a workspace");
	assert_cmpint(all.calls, 0, "the session is never asked above");
}

static void
test_edit(void)
{
	struct kb_decide_in in = base_in(KB_MODE_AUTO, "edit");

	for (int m = 0; m < 2; m++) {
		const char *mode = m == 0 ? "auto" : "strict";

		in = base_in(m == 0 ? KB_MODE_AUTO : KB_MODE_STRICT, "edit");
		in.path = outside;
		expect(&in, KB_DENY, "outside-workspace", mode);
		in.path = "../outside/f";
		expect(&in, KB_DENY, "outside-workspace", mode);
		in.path = dotenv;
		expect(&in, KB_DENY, "secret-file", mode);
		in.path = lockfile;
		expect(&in, KB_ASK, "protected-path", mode);
		in.path = ".git/config";
		expect(&in, KB_ASK, "protected-path", mode);
		in.path = loop;
		expect(&in, KB_ASK, "path-unresolved", mode);
		in.path = NULL;
		expect(&in, KB_ASK, "edit-no-path", mode);
		in.path = "new.txt";
		in.cwd = NULL;
		expect(&in, KB_ASK, "path-unresolved",
		    "a relative path without cwd");
	}

	in = base_in(KB_MODE_AUTO, "edit");
	in.path = "sub/new.txt";
	expect(&in, KB_ALLOW, "mode-table", "auto: a relative path inside");
	in.workspace = NULL;
	in.path = inside;
	expect(&in, KB_ASK, "no-workspace", "auto: no workspace");
	in.mode = KB_MODE_STRICT;
	expect(&in, KB_ASK, "no-workspace", "strict: no workspace");
	in.path = dotenv;
	expect(&in, KB_DENY, "secret-file", "no workspace: still a secret");
	in.mode = KB_MODE_AUTO;
	in.path = lockfile;
	expect(&in, KB_ASK, "protected-path", "no workspace: still protected");

	/* a file with a second name outside the workspace: check-write asks,
	 * and so does decide, in both modes, and no "always" lifts it */
	{
		char victim[340], lnk[340];
		struct session all = {.all = true};

		snprintf(victim, sizeof(victim), "%s/victim.txt", base);
		snprintf(lnk, sizeof(lnk), "%s/innocent.txt", ws);
		if (close(open(victim, O_WRONLY | O_CREAT, 0644)) == -1 ||
		    link(victim, lnk) == -1) {
			ok(0, "a hard link %s -> %s", lnk, victim);
			return;
		}
		in = base_in(KB_MODE_AUTO, "edit");
		in.path = lnk;
		expect(&in, KB_ASK, "hardlink", "auto: a hard-linked file");
		in.mode = KB_MODE_STRICT;
		expect(&in, KB_ASK, "hardlink", "strict: a hard-linked file");
		in.session_allows = fake_session;
		in.ctx = &all;
		expect(&in, KB_ASK, "hardlink",
		    "a grant does not lift a hard-linked file");
		assert_cmpint(all.calls, 0, "the session is not asked");
		unlink(lnk);
		in.path = lnk;
		in.session_allows = NULL;
		in.mode = KB_MODE_AUTO;
		expect(&in, KB_ALLOW, "mode-table",
		    "the control: the same name, unlinked, is allowed");
	}
}

static void
test_mcp(void)
{
	struct kb_decide_in in;
	struct kb_decide_out out;

	for (int m = 0; m < 2; m++) {
		const char *mode = m == 0 ? "auto" : "strict";

		in = base_in(m == 0 ? KB_MODE_AUTO : KB_MODE_STRICT, "mcp");
		in.tool = "fs.read";
		in.read_only_hint = true;
		expect(&in, KB_ALLOW, "mcp-read-only-hint", mode);
		in.planning = true;
		expect(&in, KB_ALLOW, "mcp-read-only-hint",
		    "planning: a read-only MCP tool is a read");
		in.read_only_hint = false;
		expect(&in, KB_DENY, "planning-freeze",
		    "planning: other MCP tools wait");
		in.planning = false;
		expect(&in, KB_ASK, "mcp", mode);
	}
	in.read_only_hint = true;
	kb_decide(&in, &out);
	assert_cmpstr(out.signature, "mcp:fs.read", "the MCP signature");
	kb_decide_out_free(&out);

	/* the hint is an MCP adapter's: it means nothing for other kinds */
	in = base_in(KB_MODE_STRICT, "network");
	in.read_only_hint = true;
	expect(&in, KB_ASK, "mode-table", "a hint on network is ignored");
	in = base_in(KB_MODE_AUTO, "edit");
	in.read_only_hint = true;
	in.planning = true;
	expect(&in, KB_DENY, "planning-freeze", "a hint on edit is ignored");
}

static int
rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

int
main(void)
{
	char tmpl[] = "/tmp/kb-test-decide.XXXXXX";
	char sub[320], l2[320];
	char *real;
	int rc;

	if (mkdtemp(tmpl) == NULL || (real = realpath(tmpl, NULL)) == NULL)
		return 1;
	if (strlen(real) >= sizeof(base))
		return 1;
	strcpy(base, real);
	free(real);
	snprintf(ws, sizeof(ws), "%s/ws", base);
	snprintf(sub, sizeof(sub), "%s/sub", ws);
	snprintf(inside, sizeof(inside), "%s/file.txt", ws);
	snprintf(outside, sizeof(outside), "%s/outside.txt", base);
	snprintf(lockfile, sizeof(lockfile), "%s/Cargo.lock", ws);
	snprintf(dotenv, sizeof(dotenv), "%s/.env.local", ws);
	snprintf(loop, sizeof(loop), "%s/loop", ws);
	snprintf(l2, sizeof(l2), "%s/loop2", ws);
	if (mkdir(ws, 0755) == -1 || mkdir(sub, 0755) == -1 ||
	    symlink("loop2", loop) == -1 || symlink("loop", l2) == -1)
		return 1;
	unsetenv("XDG_CONFIG_HOME");

	test_matrix();
	test_planning_shell();
	test_names();
	test_invalid();
	test_shell();
	test_session();
	test_edit();
	test_mcp();

	rc = tap_done();
	if (nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS) == -1)
		return 1;
	return rc;
}
