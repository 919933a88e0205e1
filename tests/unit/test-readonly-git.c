/*
 * tests/unit/test-readonly-git.c — the read-only classifier on git command
 * lines: a subcommand that a repository's configuration can make run a
 * program is unsafe as typed; where options turn every such program off it
 * comes with the line rewritten to do so, and the rewrite is classified
 * again and must be safe.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../classify/readonly.h"
#include "../../lib/util.h"
#include "ro-check.h"
#include "tap.h"

/*
 * git, both ways: a bare command that can run a program the repository's
 * configuration names is unsafe, and comes with the rewritten line (rw)
 * when options can turn every such program off, or without one (NULL)
 * when they cannot (the work tree read through the clean filters) or the
 * command is refused anyway; the rewritten and the neutral forms are
 * safe. Every rewritten line is classified again and must be safe, with
 * the signature given.
 */
/* clang-format off */
static const struct {
	const char *cmd;
	int safe;
	const char *sig; /* safe: the signature; unsafe: that of rw */
	const char *rw;  /* unsafe: the rewrite expected, NULL: none */
} git_cases[] = {
	/* status reads the work tree through the filters: never */
	{ "git status", UNSAFE, NULL, NULL },
	{ "git status -s", UNSAFE, NULL, NULL },
	{ "git status --porcelain=v2 -uno", UNSAFE, NULL, NULL },
	{ "git --no-optional-locks status", UNSAFE, NULL, NULL },
	{ NG " --no-optional-locks status", UNSAFE, NULL, NULL },
	{ "g'i't status", UNSAFE, NULL, NULL },
	/* log */
	{ "git log", UNSAFE, "git log", NLOG " log --no-textconv" },
	{ "git log -p", UNSAFE, "git log", NLOG " log --no-textconv -p" },
	{ "git log --oneline -20", UNSAFE, "git log",
	  NLOG " log --no-textconv --oneline -20" },
	{ "git log --format='%h %an %s' main..HEAD", UNSAFE, "git log",
	  NLOG " log --no-textconv --format='%h %an %s' main..HEAD" },
	{ "git log --stat -- src/", UNSAFE, "git log",
	  NLOG " log --no-textconv --stat -- src/" },
	{ "git log -S foo --all", UNSAFE, "git log",
	  NLOG " log --no-textconv -S foo --all" },
	{ "git log -p --follow -- a.c", UNSAFE, "git log",
	  NLOG " log --no-textconv -p --follow -- a.c" },
	{ "git log -- --output=x", UNSAFE, "git log",
	  NLOG " log --no-textconv -- --output=x" },
	{ "git log '@{u}..'", UNSAFE, "git log",
	  NLOG " log --no-textconv '@{u}..'" },
	{ "git --no-pager log -1", UNSAFE, "git log",
	  "GIT_NO_LAZY_FETCH=1 git -c core.fsmonitor=false" NSIG
	  " -c diff.submodule=short --no-pager log --no-textconv -1" },
	{ "'git' 'log' -p", UNSAFE, "git log",
	  "GIT_NO_LAZY_FETCH=1 'git' --no-pager -c core.fsmonitor=false" NSIG
	  " -c diff.submodule=short 'log' --no-textconv -p" },
	{ "git \\\n  log", UNSAFE, "git log",
	  NLOG " \\\n  log --no-textconv" },
	/* a neutral word that an option takes as its value does not count */
	{ NLOG " log -S --no-textconv", UNSAFE, "git log",
	  NLOG " log --no-textconv -S --no-textconv" },
	{ NLOG " log --no-textconv", SAFE, "git log", NULL },
	{ NLOG " log --no-textconv -p --stat 'HEAD~3..'", SAFE, "git log", NULL },
	/* zsh's extendedglob reads HEAD~3 as a pattern: quoted */
	{ NLOG " log --no-textconv -p --stat HEAD~3..", UNSAFE, "git log",
	  NLOG " log --no-textconv -p --stat 'HEAD~3..'" },
	{ NLOG " log --no-textconv ^main HEAD", UNSAFE, "git log",
	  NLOG " log --no-textconv '^main' HEAD" },
	{ NLOG " log --no-textconv --grep=fix#12", UNSAFE, "git log",
	  NLOG " log --no-textconv '--grep=fix#12'" },
	{ NLOG " log --no-textconv \"HEAD\"~1", UNSAFE, NULL, NULL },
	{ NLOG " log --no-textconv HEAD~1 \"$X\"", UNSAFE, NULL, NULL },
	{ NLOG " log --no-textconv HEAD\\\n~1", UNSAFE, NULL, NULL },
	{ "GIT_NO_LAZY_FETCH=1 git -P -c core.fsmonitor=false" NSIG
	  " -c diff.submodule=short log --no-textconv -p", SAFE, "git log",
	  NULL },
	{ "git --no-lazy-fetch --no-pager -c core.fsmonitor=false" NSIG
	  " -c diff.submodule=short log --no-textconv", SAFE, "git log", NULL },
	{ "GIT_NO_LAZY_FETCH=1 git -c diff.submodule=short -c "
	  "core.fsmonitor=false --no-pager -c gpg.x509.program=false -c "
	  "gpg.ssh.program=false -c gpg.program=false show --no-textconv HEAD",
	  SAFE, "git show", NULL },
	/* log.diffMerges=remerge runs merge drivers; alternate refs a
	 * command; a pretty format %G, gpg */
	{ "git log -m -p", UNSAFE, NULL, NULL },
	{ NLOG " log --no-textconv -m", UNSAFE, NULL, NULL },
	{ "git log --diff-merges=on -p", UNSAFE, NULL, NULL },
	{ "git log --diff-merges on -p", UNSAFE, NULL, NULL },
	{ "git show --remerge-diff HEAD", UNSAFE, NULL, NULL },
	{ "git log --alternate-refs", UNSAFE, NULL, NULL },
	{ "git rev-list --alternate-refs HEAD", UNSAFE, NULL, NULL },
	{ "git log --format=%G? -1", UNSAFE, NULL, NULL },
	{ "git log --show-signature", UNSAFE, NULL, NULL },
	{ "git log --submodule=diff -p", UNSAFE, NULL, NULL },
	{ "git log --submod=log -p", UNSAFE, NULL, NULL },
	{ "git log --submodule=log -p", UNSAFE, "git log",
	  NLOG " log --no-textconv --submodule=log -p" },
	{ "git log --submodule -p", UNSAFE, "git log",
	  NLOG " log --no-textconv --submodule -p" },
	{ "git log --ext-diff -p", UNSAFE, NULL, NULL },
	{ "git log --textconv -p", UNSAFE, NULL, NULL },
	{ "git whatchanged", UNSAFE, NULL, NULL },
	{ "git range-diff A B C", UNSAFE, NULL, NULL },
	{ "git format-patch --stdout -1", UNSAFE, NULL, NULL },
	/* show */
	{ "git show", UNSAFE, "git show", NLOG " show --no-textconv" },
	{ "git show HEAD", UNSAFE, "git show", NLOG " show --no-textconv HEAD" },
	{ "git show HEAD:src/main.c", UNSAFE, "git show",
	  NLOG " show --no-textconv HEAD:src/main.c" },
	{ "git show --stat HEAD~1", UNSAFE, "git show",
	  NLOG " show --no-textconv --stat 'HEAD~1'" },
	{ "git show -m HEAD", UNSAFE, NULL, NULL },
	/* diff: the work tree forms never; the others rewritten */
	{ "git diff", UNSAFE, NULL, NULL },
	{ "git diff HEAD", UNSAFE, NULL, NULL },
	{ "git diff --stat", UNSAFE, NULL, NULL },
	{ "git diff --name-only", UNSAFE, NULL, NULL },
	{ "git diff HEAD~1 -- a.c", UNSAFE, NULL, NULL },
	{ "git diff -- a.c b.c", UNSAFE, NULL, NULL },
	{ "git -P diff", UNSAFE, NULL, NULL },
	{ "git diff --no-ext-diff --no-textconv", UNSAFE, NULL, NULL },
	{ NDIFF " diff --no-ext-diff --no-textconv", UNSAFE, NULL, NULL },
	{ NDIFF " diff --no-ext-diff --no-textconv HEAD", UNSAFE, NULL, NULL },
	{ "git diff --output-indicator-new=+ HEAD", UNSAFE, NULL, NULL },
	{ "git diff --no-index a b", UNSAFE, NULL, NULL },
	{ NDIFF " diff --no-ext-diff --no-textconv --no-index a b --", UNSAFE,
	  NULL, NULL },
	/* an option's value is not --cached, nor a revision */
	{ "git diff -S --cached", UNSAFE, NULL, NULL },
	{ "git diff -G --staged HEAD", UNSAFE, NULL, NULL },
	{ "git diff --src-prefix HEAD~1 HEAD", UNSAFE, NULL, NULL },
	{ "git diff -l 5 HEAD", UNSAFE, NULL, NULL },
	{ "git diff --author x A B", UNSAFE, NULL, NULL },
	{ "git diff --frobnicate A B", UNSAFE, NULL, NULL },
	{ "git diff --ext-diff A B", UNSAFE, NULL, NULL },
	{ "git diff --ext A B", UNSAFE, NULL, NULL },
	{ "git diff --textconv A B", UNSAFE, NULL, NULL },
	{ "git diff --output=x A B", UNSAFE, NULL, NULL },
	{ "git diff --submodule=diff A B", UNSAFE, NULL, NULL },
	{ "git diff --cached", UNSAFE, "git diff",
	  NDIFF " diff --no-ext-diff --no-textconv --cached" },
	{ "git diff --cached --stat", UNSAFE, "git diff",
	  NDIFF " diff --no-ext-diff --no-textconv --cached --stat" },
	{ "git diff --staged HEAD~1 -- a.c", UNSAFE, "git diff",
	  NDIFF " diff --no-ext-diff --no-textconv --staged 'HEAD~1' -- a.c" },
	{ "git diff HEAD~1 HEAD", UNSAFE, "git diff",
	  NDIFF " diff --no-ext-diff --no-textconv 'HEAD~1' HEAD --" },
	{ "git diff HEAD HEAD~1", UNSAFE, "git diff",
	  NDIFF " diff --no-ext-diff --no-textconv HEAD 'HEAD~1' --" },
	{ "git diff main...HEAD", UNSAFE, "git diff",
	  NDIFF " diff --no-ext-diff --no-textconv main...HEAD --" },
	{ "git diff HEAD~1..HEAD -- a.c", UNSAFE, "git diff",
	  NDIFF " diff --no-ext-diff --no-textconv 'HEAD~1..HEAD' -- a.c" },
	{ "git diff --text a b", UNSAFE, "git diff",
	  NDIFF " diff --no-ext-diff --no-textconv --text a b --" },
	{ "git diff -U5 -w A B 2>/dev/null", UNSAFE, "git diff",
	  NDIFF " diff --no-ext-diff --no-textconv -U5 -w A B -- 2>/dev/null" },
	{ "git diff -S foo --stat=80 A B --", UNSAFE, "git diff",
	  NDIFF " diff --no-ext-diff --no-textconv -S foo --stat=80 A B --" },
	{ "git diff --submodule=log A B", UNSAFE, "git diff",
	  NDIFF " diff --no-ext-diff --no-textconv --submodule=log A B --" },
	{ NDIFF " diff --no-ext-diff --no-textconv A B", UNSAFE, "git diff",
	  NDIFF " diff --no-ext-diff --no-textconv A B --" },
	{ NDIFF " diff --no-ext-diff --no-textconv 'HEAD~1' HEAD --", SAFE,
	  "git diff", NULL },
	{ NDIFF " diff --no-textconv --no-ext-diff --cached", SAFE, "git diff",
	  NULL },
	{ NDIFF " diff --no-ext-diff --no-textconv -M --stat A..B -- src",
	  SAFE, "git diff", NULL },
	/* blame: only with a revision */
	{ "git blame f.c", UNSAFE, NULL, NULL },
	{ "git blame -L 10,20 f.c", UNSAFE, NULL, NULL },
	{ "git blame -- f.c", UNSAFE, NULL, NULL },
	{ "git blame ^HEAD -- f.c", UNSAFE, NULL, NULL },
	{ "git blame -L HEAD f.c", UNSAFE, NULL, NULL },
	{ "git blame A B f.c", UNSAFE, NULL, NULL },
	{ "git blame --contents x HEAD -- f.c", UNSAFE, NULL, NULL },
	{ "git blame --textconv HEAD -- f.c", UNSAFE, NULL, NULL },
	{ "git blame --reverse A..B -- f.c", UNSAFE, NULL, NULL },
	{ "git blame HEAD -- f.c", UNSAFE, "git blame",
	  NG " blame --no-textconv HEAD -- f.c" },
	{ "git blame -L 1,2 HEAD f.c", UNSAFE, "git blame",
	  NG " blame --no-textconv -L 1,2 HEAD f.c" },
	{ "git blame -w -M -C HEAD~3 -- f.c", UNSAFE, "git blame",
	  NG " blame --no-textconv -w -M -C 'HEAD~3' -- f.c" },
	{ "git blame -- f.c HEAD", UNSAFE, "git blame",
	  NG " blame --no-textconv -- f.c HEAD" },
	{ NG " blame --no-textconv -L 5,+3 v1.0 -- f.c", SAFE, "git blame",
	  NULL },
	/* grep, ls-files, cat-file, rev-parse and the listings */
	{ "git grep -n foo", UNSAFE, "git grep", NG " grep -n foo" },
	{ "git grep -n foo HEAD~1 -- src", UNSAFE, "git grep",
	  NG " grep -n foo 'HEAD~1' -- src" },
	{ "git grep --textconv foo", UNSAFE, NULL, NULL },
	{ "git grep -O foo", UNSAFE, NULL, NULL },
	{ NG " grep -n foo", SAFE, "git grep", NULL },
	{ "git ls-files", UNSAFE, "git ls-files", NG " ls-files" },
	{ "git ls-files -o --exclude-standard", UNSAFE, "git ls-files",
	  NG " ls-files -o --exclude-standard" },
	{ "git ls-files -m", UNSAFE, NULL, NULL },
	{ "git ls-files -mo", UNSAFE, NULL, NULL },
	{ "git ls-files --modified", UNSAFE, NULL, NULL },
	{ "git ls-files --mod", UNSAFE, NULL, NULL },
	{ NG " ls-files -s", SAFE, "git ls-files", NULL },
	{ "git cat-file -p HEAD", UNSAFE, "git cat-file",
	  NG " cat-file -p HEAD" },
	{ "git cat-file --textconv HEAD:x", UNSAFE, NULL, NULL },
	{ "git cat-file --filters HEAD:x", UNSAFE, NULL, NULL },
	/* abbreviations git's parse-options takes for those two: cat-file
	 * has no --text or --filter of its own */
	{ "git cat-file --text HEAD:a.txt", UNSAFE, NULL, NULL },
	{ "git cat-file --filter HEAD:a.txt", UNSAFE, NULL, NULL },
	{ "git cat-file --filter --path=a.txt HEAD:a.txt", UNSAFE, NULL,
	  NULL },
	{ "git cat-file --text --path=a.txt HEAD", UNSAFE, NULL, NULL },
	{ "git cat-file --textc HEAD:a.txt", UNSAFE, NULL, NULL },
	{ "git cat-file --filt HEAD:a.txt", UNSAFE, NULL, NULL },
	{ "git cat-file -t HEAD", UNSAFE, "git cat-file",
	  NG " cat-file -t HEAD" },
	{ NG " cat-file --text HEAD:a.txt", UNSAFE, NULL, NULL },
	{ NG " cat-file --filter HEAD:a.txt", UNSAFE, NULL, NULL },
	{ "git rev-parse --show-toplevel", UNSAFE, "git rev-parse",
	  "GIT_NO_LAZY_FETCH=1 git -c core.fsmonitor=false rev-parse "
	  "--show-toplevel" },
	{ "git rev-parse HEAD^", UNSAFE, "git rev-parse",
	  "GIT_NO_LAZY_FETCH=1 git -c core.fsmonitor=false rev-parse 'HEAD^'" },
	{ "GIT_NO_LAZY_FETCH=1 git -c core.fsmonitor=false rev-parse HEAD",
	  SAFE, "git rev-parse", NULL },
	{ "git ls-tree HEAD", UNSAFE, "git ls-tree", NG " ls-tree HEAD" },
	{ "git rev-list --count HEAD", UNSAFE, "git rev-list",
	  NG NSIG " rev-list --count HEAD" },
	{ "git rev-list --filter=blob:none --objects HEAD", UNSAFE,
	  "git rev-list", NG NSIG " rev-list --filter=blob:none --objects HEAD" },
	{ "git describe --tags", UNSAFE, "git describe",
	  NG " describe --tags" },
	{ "git describe --dirty", UNSAFE, NULL, NULL },
	{ "git describe --broken", UNSAFE, NULL, NULL },
	{ "git for-each-ref", UNSAFE, "git for-each-ref", NG " for-each-ref" },
	{ "git merge-base A B", UNSAFE, "git merge-base", NG " merge-base A B" },
	{ "git show-ref", UNSAFE, "git show-ref",
	  "GIT_NO_LAZY_FETCH=1 git --no-pager show-ref" },
	{ "git shortlog -sn", UNSAFE, "git shortlog", NG NSIG " shortlog -sn" },
	{ "git branch", UNSAFE, "git branch", NG " branch" },
	{ "git branch -vv", UNSAFE, "git branch", NG " branch -vv" },
	{ "git branch --list 'feat*'", UNSAFE, "git branch",
	  NG " branch --list 'feat*'" },
	{ "git branch newname", UNSAFE, NULL, NULL },
	{ "git tag -l", UNSAFE, "git tag", NG " tag -l" },
	{ "git tag -n5", UNSAFE, "git tag", NG " tag -n5" },
	{ NG " tag --contains HEAD", SAFE, "git tag", NULL },
	{ "git stash list", UNSAFE, "git stash list",
	  NG NSIG " stash list --no-textconv" },
	{ "git stash list -p", UNSAFE, "git stash list",
	  NG NSIG " stash list --no-textconv -p" },
	{ "git stash list -m", UNSAFE, NULL, NULL },
	{ "git stash show", UNSAFE, "git stash show",
	  NDIFF " stash show" },
	{ "git stash show -p stash@{1}", UNSAFE, NULL, NULL },
	{ "git stash show -p 'stash@{1}'", UNSAFE, "git stash show",
	  NDIFF " stash show -p 'stash@{1}'" },
	{ "git stash pop", UNSAFE, NULL, NULL },
	{ "git worktree list", UNSAFE, "git worktree list",
	  "git --no-pager worktree list" },
	/* the read-only forms of clean and config */
	{ "git clean -n", UNSAFE, "git clean", NG " clean -n" },
	{ "git clean -d build -n", UNSAFE, "git clean", NG " clean -d build -n" },
	{ "git clean -fdx", UNSAFE, NULL, NULL },
	{ "git config --get user.name", UNSAFE, "git config",
	  "git --no-pager config --get user.name" },
	{ "git config --list", UNSAFE, "git config",
	  "git --no-pager config --list" },
	{ "git config -l --show-origin --name-only", UNSAFE, "git config",
	  "git --no-pager config -l --show-origin --name-only" },
	{ "git config foo.bar --get", UNSAFE, NULL, NULL },
	{ "git config user.name", UNSAFE, NULL, NULL },
	/* cd makes git read another repository, as -C does */
	{ "cd ../x && git log", UNSAFE, NULL, NULL },
	{ "git log; cd /", UNSAFE, NULL, NULL },
	{ "git remote -v", UNSAFE, "git remote", "git --no-pager remote -v" },
	/* what the caller sets is never trusted: only the neutral -c */
	{ "git -c core.fsmonitor=evil status", UNSAFE, NULL, NULL },
	{ "git -c core.fsmonitor=evil log", UNSAFE, NULL, NULL },
	{ "git -c core.fsmonitor=false -c core.fsmonitor=evil log", UNSAFE,
	  NULL, NULL },
	{ "git -c CORE.FSMONITOR=false log", UNSAFE, NULL, NULL },
	{ "git -c core.pager=cat log", UNSAFE, NULL, NULL },
	{ "git -c diff.external= diff A B --", UNSAFE, NULL, NULL },
	{ "git -c alias.x='!sh' x", UNSAFE, NULL, NULL },
	{ "git -c", UNSAFE, NULL, NULL },
	{ "git -c core.fsmonitor=false", UNSAFE, NULL, NULL },
	{ "git --exec-path=/tmp/x status", UNSAFE, NULL, NULL },
	{ "git --exec-path=/tmp/x log", UNSAFE, NULL, NULL },
	{ "git --exec-path /tmp/x log", UNSAFE, NULL, NULL },
	{ "git --config-env=core.fsmonitor=X log", UNSAFE, NULL, NULL },
	{ "git -C /tmp log", UNSAFE, NULL, NULL },
	{ "git --git-dir=/x log", UNSAFE, NULL, NULL },
	{ "git --work-tree=/x log", UNSAFE, NULL, NULL },
	{ "git -p log", UNSAFE, NULL, NULL },
	{ "GIT_NO_LAZY_FETCH=0 git version", UNSAFE, NULL, NULL },
	{ "GIT_NO_LAZY_FETCH=1 GIT_DIR=x git version", UNSAFE, NULL, NULL },
	{ "GIT_DIR=x GIT_NO_LAZY_FETCH=1 git version", UNSAFE, NULL, NULL },
	{ "'GIT_NO_LAZY_FETCH=1' git version", UNSAFE, NULL, NULL },
	{ "GIT_NO_LAZY_FETCH=1 ls", UNSAFE, NULL, NULL },
	{ "GIT_NO_LAZY_FETCH=1", UNSAFE, NULL, NULL },
	{ "GIT_NO_LAZY_FETCH=1 git version", SAFE, "git version", NULL },
	/* lines: each git command rewritten, the rest kept byte for byte;
	 * anything else unsafe in the line means no rewrite */
	{ "git log -p | head -5", UNSAFE, NULL,
	  NLOG " log --no-textconv -p | head -5" },
	{ "git log -1 && git diff A B", UNSAFE, NULL,
	  NLOG " log --no-textconv -1 && " NDIFF
	  " diff --no-ext-diff --no-textconv A B --" },
	{ "ls  -la;git  show\tHEAD # c", UNSAFE, NULL,
	  "ls  -la;" NLOG "  show --no-textconv\tHEAD # c" },
	{ "git log; rm -rf x", UNSAFE, NULL, NULL },
	{ "rm -rf x; git log", UNSAFE, NULL, NULL },
	{ "git status && git log", UNSAFE, NULL, NULL },
	{ "git log && git status", UNSAFE, NULL, NULL },
	{ "git log > out", UNSAFE, NULL, NULL },
	{ "git log &", UNSAFE, NULL, NULL },
};

/* a rewrite is safe for the shell it was made for: zsh's extendedglob
 * reads HEAD~1 and ^main as patterns, the others do not */
/* clang-format off */
static const struct {
	const char *cmd;
	enum kb_ro_shell shell;
	const char *rw;
} shell_rewrites[] = {
	{ "git show HEAD~1", KB_RO_SHELL_BASH,
	  NLOG " show --no-textconv HEAD~1" },
	{ "git show HEAD~1", KB_RO_SHELL_SH,
	  NLOG " show --no-textconv HEAD~1" },
	{ "git show HEAD~1", KB_RO_SHELL_ZSH,
	  NLOG " show --no-textconv 'HEAD~1'" },
	{ "git log ^main HEAD", KB_RO_SHELL_BASH,
	  NLOG " log --no-textconv ^main HEAD" },
	{ "git log ^main HEAD", KB_RO_SHELL_ANY,
	  NLOG " log --no-textconv '^main' HEAD" },
	{ "git diff HEAD^ HEAD", KB_RO_SHELL_BASH,
	  NDIFF " diff --no-ext-diff --no-textconv HEAD^ HEAD --" },
	{ "git diff HEAD^ HEAD", KB_RO_SHELL_ZSH,
	  NDIFF " diff --no-ext-diff --no-textconv 'HEAD^' HEAD --" },
	{ "git log # see HEAD~1", KB_RO_SHELL_BASH,
	  NLOG " log --no-textconv # see HEAD~1" },
	{ "git log # see HEAD~1", KB_RO_SHELL_ZSH, NULL },
};
/* clang-format on */

static void
test_shell_rewrites(void)
{
	struct kb_ro_verdict v, again;
	size_t i;

	for (i = 0; i < nitems(shell_rewrites); i++) {
		kb_readonly_classify_as(shell_rewrites[i].cmd,
		    strlen(shell_rewrites[i].cmd), shell_rewrites[i].shell, &v);
		ok(!v.safe, "%s: %s is unsafe",
		    kb_ro_shell_name(shell_rewrites[i].shell),
		    shell_rewrites[i].cmd);
		if (shell_rewrites[i].rw == NULL) {
			ok(v.rewritten == NULL, "%s: %s has no rewrite",
			    kb_ro_shell_name(shell_rewrites[i].shell),
			    shell_rewrites[i].cmd);
			kb_ro_verdict_free(&v);
			continue;
		}
		assert_cmpstr(v.rewritten != NULL ? v.rewritten : "(none)",
		    shell_rewrites[i].rw, "%s: %s: rewrite",
		    kb_ro_shell_name(shell_rewrites[i].shell),
		    shell_rewrites[i].cmd);
		if (v.rewritten != NULL) {
			kb_readonly_classify_as(v.rewritten,
			    strlen(v.rewritten), shell_rewrites[i].shell,
			    &again);
			ok(again.safe, "%s: the rewrite of %s is safe",
			    kb_ro_shell_name(shell_rewrites[i].shell),
			    shell_rewrites[i].cmd);
			kb_ro_verdict_free(&again);
		}
		kb_ro_verdict_free(&v);
	}
}

static void
test_git(void)
{
	struct kb_ro_verdict v, again;
	size_t i, nrw = 0;
	char what[96];

	for (i = 0; i < nitems(git_cases); i++) {
		snprintf(what, sizeof(what), "git case %zu [%.60s]", i,
		    git_cases[i].cmd);
		for (char *p = what; *p != '\0'; p++)
			if (*p == '\n' || *p == '\t' || *p == '#')
				*p = ' ';
		check(git_cases[i].cmd, strlen(git_cases[i].cmd),
		    git_cases[i].safe,
		    git_cases[i].safe ? git_cases[i].sig : NULL, what);
		kb_readonly_classify(
		    git_cases[i].cmd, strlen(git_cases[i].cmd), &v);
		/* decide keeps 199 bytes of the reason */
		ok(strlen(v.reason) < 200, "%s: the reason fits decide", what);
		if (git_cases[i].rw == NULL) {
			ok(v.rewritten == NULL, "%s: no rewrite (%s)", what,
			    v.rewritten != NULL ? v.rewritten : "none");
			kb_ro_verdict_free(&v);
			continue;
		}
		nrw++;
		if (v.rewritten == NULL) {
			ok(0, "%s: has a rewrite", what);
			kb_ro_verdict_free(&v);
			continue;
		}
		assert_cmpstr(
		    v.rewritten, git_cases[i].rw, "%s: rewrite", what);
		kb_readonly_classify(v.rewritten, strlen(v.rewritten), &again);
		ok(again.safe && again.rewritten == NULL,
		    "%s: the rewrite is safe (%s)", what, again.reason);
		if (git_cases[i].sig != NULL)
			assert_cmpstr(again.signature, git_cases[i].sig,
			    "%s: the rewrite's signature", what);
		kb_ro_verdict_free(&again);
		kb_ro_verdict_free(&v);
	}
	printf("# %zu git cases, %zu with a rewrite\n", nitems(git_cases), nrw);
}

int
main(void)
{
	test_git();
	test_shell_rewrites();
	return tap_done();
}
