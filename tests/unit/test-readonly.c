/*
 * tests/unit/test-readonly.c — the read-only command classifier
 * (classify/readonly.c, classify/shlex.c) against a table of command lines, most
 * of them adversarial: quoting tricks, operators, expansions,
 * substitutions, subshells, redirections, here-documents, builtins that
 * evaluate arithmetic, and each tool's options that write or run
 * something. Every unsafe verdict must carry a reason and the exact input
 * as its signature. Then lines judged for each shell (sh, bash, zsh, and
 * any, which must be the strictest), and the inputs a table of C strings
 * cannot hold: NUL bytes, invalid UTF-8, 1 MB lines, deep nesting. The
 * tables are readonly-cases.h.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../classify/readonly.h"
#include "../../classify/shlex.h"
#include "readonly-cases.h"
#include "ro-check.h"
#include "tap.h"

/* a shell line in which every word is a plain word: the lexer's view */
static void
test_lexer(void)
{
	struct kb_sh_line l;
	struct kb_err e;
	const char *s = "a 'b c' \"d\\\"e\" f\\ g 2>&1 | h <<EOF\nbody\nEOF\n";
	int rc;

	memset(&l, 0, sizeof(l));
	memset(&e, 0, sizeof(e));
	rc = kb_shlex_parse(s, strlen(s), 0, &l, &e);
	assert_cmpint(rc, 0, "lexer: parses a quoted pipeline (%s)", e.msg);
	assert_cmpint(l.ncmds, 2, "lexer: two commands");
	if (rc == 0 && l.ncmds == 2) {
		assert_cmpint(l.cmds[0].nwords, 4, "lexer: four words");
		if (l.cmds[0].nwords == 4) {
			assert_cmpstr(
			    l.cmds[0].words[1].s, "b c", "lexer: 'b c'");
			assert_cmpstr(
			    l.cmds[0].words[2].s, "d\"e", "lexer: \"d\\\"e\"");
			assert_cmpstr(
			    l.cmds[0].words[3].s, "f g", "lexer: f\\ g");
		}
		assert_cmpint(l.cmds[0].nredirs, 1, "lexer: one redirection");
		if (l.cmds[0].nredirs == 1) {
			assert_cmpint(l.cmds[0].redirs[0].fd, 2, "lexer: fd 2");
			assert_cmpint(l.cmds[0].redirs[0].op, KB_SH_R_DUPOUT,
			    "lexer: >&");
		}
		assert_cmpint(l.cmds[0].sep, KB_SH_SEP_PIPE, "lexer: |");
		assert_cmpint(l.cmds[1].nredirs, 1, "lexer: a here-document");
		assert_cmpint(
		    l.cmds[1].sep, KB_SH_SEP_NEWLINE, "lexer: newline");
	}
	kb_shlex_free(&l);
}

static void
test_table(void)
{
	size_t i, nsafe = 0;

	for (i = 0; i < nitems(cases); i++) {
		char what[96];

		snprintf(
		    what, sizeof(what), "case %zu [%.60s]", i, cases[i].cmd);
		for (char *p = what; *p != '\0'; p++)
			if (*p == '\n' || *p == '\t' || *p == '#')
				*p = ' ';
		check(cases[i].cmd, strlen(cases[i].cmd), cases[i].safe,
		    cases[i].sig, what);
		nsafe += cases[i].safe ? 1 : 0;
	}
	printf("# %zu cases: %zu safe, %zu unsafe\n", nitems(cases), nsafe,
	    nitems(cases) - nsafe);
	ok(nitems(cases) >= 300, "at least 300 cases");
}

/* a line for each shell, and without one: safe only if safe for all */
static void
test_shells(void)
{
	enum kb_ro_shell sh0;
	static const enum kb_ro_shell sh[] = {
	    KB_RO_SHELL_SH, KB_RO_SHELL_BASH, KB_RO_SHELL_ZSH};
	struct kb_ro_verdict v;
	size_t i, k;
	int want[3];

	for (i = 0; i < nitems(shell_cases); i++) {
		char what[96];

		want[0] = shell_cases[i].sh;
		want[1] = shell_cases[i].bash;
		want[2] = shell_cases[i].zsh;
		for (k = 0; k < nitems(sh); k++) {
			snprintf(what, sizeof(what), "%s case %zu [%.56s]",
			    kb_ro_shell_name(sh[k]), i, shell_cases[i].cmd);
			for (char *p = what; *p != '\0'; p++)
				if (*p == '\n' || *p == '\t' || *p == '#')
					*p = ' ';
			check_as(shell_cases[i].cmd, strlen(shell_cases[i].cmd),
			    sh[k], want[k], NULL, what);
		}
		kb_readonly_classify(
		    shell_cases[i].cmd, strlen(shell_cases[i].cmd), &v);
		ok(v.safe == (want[0] && want[1] && want[2]),
		    "any case %zu: safe only if safe for sh, bash and zsh", i);
		kb_ro_verdict_free(&v);
	}
	assert_cmpint(kb_readonly_classify_as("ls", 2, (enum kb_ro_shell)9, &v),
	    -1, "an unknown shell: -1");
	ok(kb_ro_shell_parse("zsh", &sh0) == 0 && sh0 == KB_RO_SHELL_ZSH,
	    "zsh parses");
	ok(kb_ro_shell_parse("fish", &sh0) == -1 &&
		kb_ro_shell_parse(NULL, &sh0) == -1,
	    "fish and NULL do not");
	assert_cmpstr(kb_ro_shell_name(KB_RO_SHELL_ANY), "any", "any's name");
}

/* inputs a C string literal cannot hold */
static void
test_bytes(void)
{
	static const char nul1[] = "ls\0; rm -rf x";
	static const char nul2[] = "npm test\0";
	static const char bad1[] = "ls \xff";
	static const char bad2[] = "echo \xc0\x80";
	static const char bad3[] = "echo \xed\xa0\x80";
	static const char bad4[] = "echo \xe2\x82";
	static const char bad5[] = "echo \xf4\x90\x80\x80";
	struct kb_ro_verdict v;

	check(nul1, sizeof(nul1) - 1, UNSAFE, NULL, "NUL in the middle");
	check(nul2, sizeof(nul2) - 1, UNSAFE, NULL, "NUL at the end");
	check(nul1, 2, SAFE, "ls", "explicit length stops before the NUL");
	check("ls -la; rm", 6, SAFE, "ls", "input need not be NUL-terminated");
	check(bad1, sizeof(bad1) - 1, UNSAFE, NULL, "invalid UTF-8 byte");
	check(bad2, sizeof(bad2) - 1, UNSAFE, NULL, "overlong NUL");
	check(bad3, sizeof(bad3) - 1, UNSAFE, NULL, "UTF-8 surrogate");
	check(bad4, sizeof(bad4) - 1, UNSAFE, NULL, "truncated UTF-8");
	check(bad5, sizeof(bad5) - 1, UNSAFE, NULL, "beyond U+10FFFF");

	/* a NUL-containing line must not share a signature with the line
	 * before its NUL (the always-allow of "npm test") */
	kb_readonly_classify(nul2, sizeof(nul2) - 1, &v);
	ok(strcmp(v.signature, "npm test") != 0,
	    "NUL input's signature differs from the NUL-free prefix");
	kb_ro_verdict_free(&v);

	assert_cmpint(kb_readonly_classify(NULL, 0, &v), 0, "NULL, 0");
	ok(!v.safe, "NULL, 0 is unsafe (empty)");
	kb_ro_verdict_free(&v);
	assert_cmpint(kb_readonly_classify(NULL, 1, &v), -1, "NULL, 1: -1");
	assert_cmpint(kb_readonly_classify("ls", 2, NULL), -1, "NULL out: -1");
	kb_ro_verdict_free(NULL);
}

static void
test_signatures(void)
{
	struct kb_ro_verdict v;
	const char *s;

	s = "npm test; rm -rf x";
	kb_readonly_classify(s, strlen(s), &v);
	ok(!v.safe, "npm test; rm -rf x is unsafe");
	assert_cmpstr(v.signature, s, "npm test; rm -rf x: exact signature");
	kb_ro_verdict_free(&v);

	s = NLOG " log --no-textconv --oneline";
	kb_readonly_classify(s, strlen(s), &v);
	ok(v.safe, "the neutral git log --oneline is safe");
	assert_cmpstr(v.signature, "git log", "git log --oneline: git log");
	kb_ro_verdict_free(&v);

	s = "git stash show -p";
	kb_readonly_classify(s, strlen(s), &v);
	assert_cmpstr(v.reason,
	    "git stash show can run programs the "
	    "repository's config names: lazy fetch, "
	    "core.pager, core.fsmonitor, diff.submodule "
	    "(the rewritten form turns them off)",
	    "git stash show: the reason names what could run");
	kb_ro_verdict_free(&v);

	s = "git status";
	kb_readonly_classify(s, strlen(s), &v);
	ok(strstr(v.reason, "clean and process filters") != NULL &&
		v.rewritten == NULL,
	    "git status: the filters named, no rewrite");
	kb_ro_verdict_free(&v);

	s = "git -c core.pager=sh status";
	kb_readonly_classify(s, strlen(s), &v);
	assert_cmpstr(v.reason, "git -c", "git -c: reason");
	kb_ro_verdict_free(&v);

	s = "echo > x";
	kb_readonly_classify(s, strlen(s), &v);
	assert_cmpstr(v.reason, "redirection to a file", "echo > x: reason");
	kb_ro_verdict_free(&v);

	s = "npm test";
	kb_readonly_classify(s, strlen(s), &v);
	assert_cmpstr(
	    v.reason, "not a known read-only command", "npm test: reason");
	kb_ro_verdict_free(&v);

	s = "ls | wc -l";
	kb_readonly_classify(s, strlen(s), &v);
	ok(v.safe, "ls | wc -l is safe");
	assert_cmpstr(v.signature, s, "a safe pipeline's signature is exact");
	kb_ro_verdict_free(&v);
}

/* hostile sizes: bounded time, always unsafe or safe, never a crash */
static void
test_big(void)
{
	size_t n = 1024 * 1024, i;
	char *s = malloc(n);
	struct kb_ro_verdict v;
	clock_t t0;
	double secs;

	t0 = clock();
	memset(s, 'a', n);
	check(s, n, UNSAFE, NULL, "1 MB word");
	for (i = 0; i < n; i++)
		s[i] = "ls -la | "[i % 9];
	check(s, n, UNSAFE, NULL, "1 MB pipeline");
	memset(s, '\'', n);
	check(s, n, UNSAFE, NULL, "1 MB of quotes");
	memset(s, '\\', n);
	check(s, n, UNSAFE, NULL, "1 MB of backslashes");

	/* just under the lexer's limit: still parsed, linear time */
	n = KB_SH_MAX_INPUT;
	for (i = 0; i < n; i++)
		s[i] = "ls -l\n"[i % 6];
	s[n - 1] = '\n';
	kb_readonly_classify(s, n, &v);
	ok(v.safe, "64 KiB of ls lines is safe (%s)", v.reason);
	kb_ro_verdict_free(&v);
	for (i = 0; i < n; i++)
		s[i] = "cat <<E\n"[i % 8];
	check(s, n, UNSAFE, NULL, "many pending here-documents");
	for (i = 0; i < n; i++)
		s[i] = "\\\n"[i % 2];
	check(s, n, UNSAFE, NULL, "64 KiB of line continuations");
	memcpy(s, "sed ", 4);
	for (i = 4; i < n; i++) /* whole "-e p " groups, then blanks */
		s[i] = i < 4 + (n - 4) / 5 * 5 ? "-e p "[(i - 4) % 5] : ' ';
	kb_readonly_classify(s, n, &v);
	ok(v.safe, "64 KiB sed command with thousands of -e is safe (%s)",
	    v.reason);
	kb_ro_verdict_free(&v);
	/* nesting: bounded, never deep recursion */
	for (i = 0; i < n; i++)
		s[i] = "$("[i % 2];
	check(s, n, UNSAFE, NULL, "32768 nested command substitutions");
	for (i = 0; i < n; i++)
		s[i] = "\"$("[i % 3];
	check(s, n, UNSAFE, NULL, "nested quoted command substitutions");
	memset(s, '(', n);
	check(s, n, UNSAFE, NULL, "64 KiB of (");
	for (i = 0; i < n; i++)
		s[i] = "{ "[i % 2];
	check(s, n, UNSAFE, NULL, "32768 groups");
	for (i = 0; i < n; i++)
		s[i] = "( ls ) "[i % 7];
	s[n - 1] = '\n';
	check(s, n, UNSAFE, NULL, "subshells without operators between them");
	memcpy(s, "echo", 4);
	for (i = 4; i < n; i++) /* whole " $(ls)" groups, then blanks */
		s[i] = i < 4 + (n - 4) / 6 * 6 ? " $(ls)"[(i - 4) % 6] : ' ';
	kb_readonly_classify(s, n, &v);
	ok(v.safe, "64 KiB of command substitutions is safe (%s)", v.reason);
	kb_ro_verdict_free(&v);
	secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	ok(secs < 10.0, "hostile sizes in %.2f s", secs);
	free(s);
}

int
main(void)
{
	test_lexer();
	test_table();
	test_shells();
	test_bytes();
	test_signatures();
	test_big();
	return tap_done();
}
