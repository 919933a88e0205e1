/*
 * classify/readonly-rules-git.c — data only: git's read-only subcommands,
 * their options, and the words a rewrite inserts so that no program a
 * repository's configuration names can run (see readonly-rules.c for the
 * other tools and readonly.c for how the rows are read). Checked against
 * git 2.39.
 */
#include "readonly-rules.h"

#include "../lib/util.h"

/* clang-format off */

#define N KB_RO_NOARG
#define R KB_RO_REQARG
#define O KB_RO_OPTARG
#define L KB_RO_LASTARG
#define DENY KB_RO_DENY
#define END { 0, NULL, N, 0 }

/*
 * git, for the read-only subcommands (KB_RO_DENYLIST: options are free
 * except these, and their abbreviations, which git's parse-options
 * accepts): --output writes a file; --ext-diff, --textconv and --filters
 * run configured programs; --show-signature runs gpg; --help runs man or
 * a browser; grep -O runs a pager; --alternate-refs runs
 * core.alternateRefsCommand; --remerge-diff and --diff-merges (whose "on"
 * means log.diffMerges, which may be "remerge") run merge drivers and
 * write temporary objects; describe --dirty and --broken refresh and
 * write the index and run the clean filters; --submodule=diff runs the
 * submodule's own diff programs. --text and --filter are exact names
 * that only share a prefix, except in cat-file (git_catfile_opts).
 */
static const struct kb_ro_opt git_opts[] = {
	{ 0,   "output",              R, DENY },
	{ 0,   "ext-diff",            N, DENY },
	{ 0,   "textconv",            N, DENY },
	{ 0,   "filters",             N, DENY },
	{ 0,   "show-signature",      N, DENY },
	{ 0,   "help",                N, DENY },
	{ 0,   "alternate-refs",      N, DENY },
	{ 0,   "remerge-diff",        N, DENY },
	{ 0,   "diff-merges",         R, DENY },
	{ 0,   "dirty",               O, DENY },
	{ 0,   "broken",              O, DENY },
	{ 0,   "submodule",           O, KB_RO_SUBMOD },
	{ 0,   "text",                N, 0 },
	{ 0,   "filter",              R, 0 },
	END
};

/* cat-file has --textconv and --filters, and no --text or --filter of its
 * own: there those are abbreviations that git's parse-options takes for
 * the options that run the repository's textconv and smudge programs */
static const struct kb_ro_opt git_catfile_opts[] = {
	{ 0,   "textconv",            N, DENY },
	{ 0,   "filters",             N, DENY },
	{ 0,   "help",                N, DENY },
	END
};

static const struct kb_ro_opt git_grep_opts[] = {
	{ 'O', "open-files-in-pager", O, DENY },
	{ 0,   "output",              R, DENY },
	{ 0,   "ext-diff",            N, DENY },
	{ 0,   "textconv",            N, DENY },
	{ 0,   "filters",             N, DENY },
	{ 0,   "show-signature",      N, DENY },
	{ 0,   "help",                N, DENY },
	{ 0,   "text",                N, 0 },
	END
};

/* git ls-files: -m (--modified) compares the work tree's contents with
 * the index, through the clean filters */
static const struct kb_ro_opt git_ls_files_opts[] = {
	{ 'm', "modified",            N, DENY },
	{ 0,   "output",              R, DENY },
	{ 0,   "help",                N, DENY },
	END
};

/*
 * git diff (KB_RO_ALLOW): whether it reads the work tree depends on its
 * operands, so every option must be known with the words it takes (git
 * 2.39's diff.c and builtin/diff.c), or a value could pass for a
 * revision: `git diff -S --cached` searches for "--cached". Optional
 * values are attached only (-U5, --stat=80), as in parse-options.
 */
static const struct kb_ro_opt git_diff_opts[] = {
	{ 'p', "patch",                    N, 0 },
	{ 'u', NULL,                       N, 0 },
	{ 's', "no-patch",                 N, 0 },
	{ 'U', "unified",                  O, 0 },
	{ 'W', "function-context",         N, 0 },
	{ 0,   "no-function-context",      N, 0 },
	{ 0,   "raw",                      N, 0 },
	{ 0,   "patch-with-raw",           N, 0 },
	{ 0,   "patch-with-stat",          N, 0 },
	{ 0,   "numstat",                  N, 0 },
	{ 0,   "shortstat",                N, 0 },
	{ 'X', "dirstat",                  O, 0 },
	{ 0,   "cumulative",               N, 0 },
	{ 0,   "dirstat-by-file",          O, 0 },
	{ 0,   "check",                    N, 0 },
	{ 0,   "summary",                  N, 0 },
	{ 0,   "name-only",                N, 0 },
	{ 0,   "name-status",              N, 0 },
	{ 0,   "stat",                     O, 0 },
	{ 0,   "stat-width",               R, 0 },
	{ 0,   "stat-name-width",          R, 0 },
	{ 0,   "stat-graph-width",         R, 0 },
	{ 0,   "stat-count",               R, 0 },
	{ 0,   "compact-summary",          N, 0 },
	{ 0,   "binary",                   N, 0 },
	{ 0,   "full-index",               N, 0 },
	{ 0,   "color",                    O, 0 },
	{ 0,   "no-color",                 N, 0 },
	{ 0,   "ws-error-highlight",       R, 0 },
	{ 'z', NULL,                       N, 0 },
	{ 0,   "abbrev",                   O, 0 },
	{ 0,   "no-abbrev",                N, 0 },
	{ 0,   "src-prefix",               R, 0 },
	{ 0,   "dst-prefix",               R, 0 },
	{ 0,   "line-prefix",              R, 0 },
	{ 0,   "no-prefix",                N, 0 },
	{ 0,   "inter-hunk-context",       R, 0 },
	{ 0,   "output-indicator-new",     R, 0 },
	{ 0,   "output-indicator-old",     R, 0 },
	{ 0,   "output-indicator-context", R, 0 },
	{ 'B', "break-rewrites",           O, 0 },
	{ 'M', "find-renames",             O, 0 },
	{ 'D', "irreversible-delete",      N, 0 },
	{ 'C', "find-copies",              O, 0 },
	{ 0,   "find-copies-harder",       N, 0 },
	{ 0,   "no-renames",               N, 0 },
	{ 0,   "rename-empty",             N, 0 },
	{ 0,   "no-rename-empty",          N, 0 },
	{ 'l', NULL,                       R, 0 },
	{ 0,   "minimal",                  N, 0 },
	{ 'w', "ignore-all-space",         N, 0 },
	{ 'b', "ignore-space-change",      N, 0 },
	{ 0,   "ignore-space-at-eol",      N, 0 },
	{ 0,   "ignore-cr-at-eol",         N, 0 },
	{ 0,   "ignore-blank-lines",       N, 0 },
	{ 'I', "ignore-matching-lines",    R, 0 },
	{ 0,   "indent-heuristic",         N, 0 },
	{ 0,   "no-indent-heuristic",      N, 0 },
	{ 0,   "patience",                 N, 0 },
	{ 0,   "histogram",                N, 0 },
	{ 0,   "diff-algorithm",           R, 0 },
	{ 0,   "anchored",                 R, 0 },
	{ 0,   "word-diff",                O, 0 },
	{ 0,   "word-diff-regex",          R, 0 },
	{ 0,   "color-words",              O, 0 },
	{ 0,   "color-moved",              O, 0 },
	{ 0,   "no-color-moved",           N, 0 },
	{ 0,   "color-moved-ws",           R, 0 },
	{ 0,   "no-color-moved-ws",        N, 0 },
	{ 0,   "relative",                 O, 0 },
	{ 0,   "no-relative",              N, 0 },
	{ 'a', "text",                     N, 0 },
	{ 'R', NULL,                       N, 0 },
	{ 0,   "exit-code",                N, 0 },
	{ 0,   "quiet",                    N, 0 },
	{ 0,   "ignore-submodules",        O, 0 },
	{ 0,   "submodule",                O, KB_RO_SUBMOD },
	{ 0,   "ita-invisible-in-index",   N, 0 },
	{ 0,   "ita-visible-in-index",     N, 0 },
	{ 'S', NULL,                       R, 0 },
	{ 'G', NULL,                       R, 0 },
	{ 0,   "pickaxe-all",              N, 0 },
	{ 0,   "pickaxe-regex",            N, 0 },
	{ 'O', NULL,                       R, 0 },
	{ 0,   "rotate-to",                R, 0 },
	{ 0,   "skip-to",                  R, 0 },
	{ 0,   "find-object",              R, 0 },
	{ 0,   "diff-filter",              R, 0 },
	{ 0,   "cc",                       N, 0 },
	{ 'c', NULL,                       N, 0 },
	{ 0,   "merge-base",               N, 0 },
	{ 0,   "cached",                   N, KB_RO_CACHED },
	{ 0,   "staged",                   N, KB_RO_CACHED },
	{ 0,   "no-index",                 N, KB_RO_NOINDEX },
	{ 0,   "no-ext-diff",              N, 0 },
	{ 0,   "no-textconv",              N, 0 },
	{ 0,   "output",                   R, DENY },
	{ 0,   "ext-diff",                 N, DENY },
	{ 0,   "textconv",                 N, DENY },
	{ 0,   "help",                     N, DENY },
	END
};

/* git blame (KB_RO_ALLOW): without a revision it blames the work tree's
 * file, read through the clean filters, so its operands are counted; the
 * options are builtin/blame.c's, with their words. --contents reads a
 * file as the final version, through the same filters. */
static const struct kb_ro_opt git_blame_opts[] = {
	{ 0,   "incremental",      N, 0 },
	{ 'b', NULL,               N, 0 },
	{ 0,   "root",             N, 0 },
	{ 0,   "show-stats",       N, 0 },
	{ 0,   "progress",         N, 0 },
	{ 0,   "no-progress",      N, 0 },
	{ 0,   "score-debug",      N, 0 },
	{ 'f', "show-name",        N, 0 },
	{ 'n', "show-number",      N, 0 },
	{ 'p', "porcelain",        N, 0 },
	{ 0,   "line-porcelain",   N, 0 },
	{ 'c', NULL,               N, 0 },
	{ 't', NULL,               N, 0 },
	{ 'l', NULL,               N, 0 },
	{ 's', NULL,               N, 0 },
	{ 'e', "show-email",       N, 0 },
	{ 'w', NULL,               N, 0 },
	{ 0,   "ignore-rev",       R, 0 },
	{ 0,   "ignore-revs-file", R, 0 },
	{ 0,   "color-lines",      N, 0 },
	{ 0,   "color-by-age",     N, 0 },
	{ 0,   "minimal",          N, 0 },
	{ 'S', NULL,               R, 0 },
	{ 'C', NULL,               O, 0 },
	{ 'M', NULL,               O, 0 },
	{ 'L', NULL,               R, 0 },
	{ 0,   "abbrev",           O, 0 },
	{ 0,   "first-parent",     N, 0 },
	{ 0,   "no-textconv",      N, 0 },
	{ 0,   "contents",         R, DENY },
	{ 0,   "textconv",         N, DENY },
	{ 0,   "help",             N, DENY },
	END
};

/* git branch: listing only (KB_RO_ALLOW). Names are allowed only with an
 * option that implies --list (git >= 2.20: -l is --list). */
static const struct kb_ro_opt git_branch_opts[] = {
	{ 'a', "all",                N, 0 },
	{ 0,   "abbrev",             O, 0 },
	{ 0,   "no-abbrev",          N, 0 },
	{ 0,   "color",              O, 0 },
	{ 0,   "no-color",           N, 0 },
	{ 0,   "column",             O, 0 },
	{ 0,   "no-column",          N, 0 },
	{ 0,   "contains",           L, KB_RO_LIST },
	{ 0,   "no-contains",        L, KB_RO_LIST },
	{ 0,   "format",             R, 0 },
	{ 'i', "ignore-case",        N, 0 },
	{ 'l', "list",               N, KB_RO_LIST },
	{ 0,   "merged",             L, KB_RO_LIST },
	{ 0,   "no-merged",          L, KB_RO_LIST },
	{ 0,   "omit-empty",         N, 0 },
	{ 0,   "points-at",          R, 0 },
	{ 'q', "quiet",              N, 0 },
	{ 'r', "remotes",            N, 0 },
	{ 0,   "show-current",       N, 0 },
	{ 0,   "sort",               R, 0 },
	{ 'v', "verbose",            N, 0 },
	{ 'c', "copy",               N, DENY },
	{ 'C', NULL,                 N, DENY },
	{ 'd', "delete",             N, DENY },
	{ 'D', NULL,                 N, DENY },
	{ 'f', "force",              N, DENY },
	{ 'm', "move",               N, DENY },
	{ 'M', NULL,                 N, DENY },
	{ 't', "track",              O, DENY },
	{ 0,   "no-track",           N, DENY },
	{ 'u', "set-upstream-to",    R, DENY },
	{ 0,   "unset-upstream",     N, DENY },
	{ 0,   "edit-description",   N, DENY },
	{ 0,   "create-reflog",      N, DENY },
	{ 0,   "recurse-submodules", N, DENY },
	END
};

/* git tag: listing only; names only after -l/--list. -v runs gpg. */
static const struct kb_ro_opt git_tag_opts[] = {
	{ 0,   "color",         O, 0 },
	{ 0,   "column",        O, 0 },
	{ 0,   "no-column",     N, 0 },
	{ 0,   "contains",      L, 0 },
	{ 0,   "no-contains",   L, 0 },
	{ 0,   "merged",        L, 0 },
	{ 0,   "no-merged",     L, 0 },
	{ 0,   "points-at",     L, 0 },
	{ 0,   "format",        R, 0 },
	{ 'i', "ignore-case",   N, 0 },
	{ 'l', "list",          N, KB_RO_LIST },
	{ 'n', NULL,            O, 0 },
	{ 0,   "omit-empty",    N, 0 },
	{ 0,   "sort",          R, 0 },
	{ 'a', "annotate",      N, DENY },
	{ 's', "sign",          N, DENY },
	{ 'u', "local-user",    R, DENY },
	{ 'f', "force",         N, DENY },
	{ 'd', "delete",        N, DENY },
	{ 'v', "verify",        N, DENY },
	{ 'm', "message",       R, DENY },
	{ 'F', "file",          R, DENY },
	{ 'e', "edit",          N, DENY },
	{ 0,   "create-reflog", N, DENY },
	{ 0,   "cleanup",       R, DENY },
	{ 0,   "trailer",       R, DENY },
	END
};

/*
 * git clean: only with -n (--dry-run), which lists what it would remove;
 * --no-dry-run and -f are refused (clean.requireForce=false in the
 * repository's config makes a clean without -f delete), -i prompts and
 * removes.
 */
static const struct kb_ro_opt git_clean_opts[] = {
	{ 'n', "dry-run",    N, KB_RO_MODE },
	{ 'd', NULL,         N, 0 },
	{ 'x', NULL,         N, 0 },
	{ 'X', NULL,         N, 0 },
	{ 'q', "quiet",      N, 0 },
	{ 'e', "exclude",    R, 0 },
	{ 'f', "force",      N, DENY },
	{ 'i', "interactive", N, DENY },
	END
};

/*
 * git config: only the forms that read (--get and its kin, --list), with
 * the options that choose the files and the output. Without one of those
 * `git config NAME VALUE` sets; git stops at the first operand
 * (`git config foo.bar --get` sets foo.bar to "--get"), hence options
 * first. --blob reads an object (a lazy fetch), -e runs the editor, and
 * the newer `git config get` (2.46) sets "get" in older git.
 */
static const struct kb_ro_opt git_config_opts[] = {
	{ 0,   "get",              N, KB_RO_MODE },
	{ 0,   "get-all",          N, KB_RO_MODE },
	{ 0,   "get-regexp",       N, KB_RO_MODE },
	{ 0,   "get-urlmatch",     N, KB_RO_MODE },
	{ 0,   "get-color",        N, KB_RO_MODE },
	{ 0,   "get-colorbool",    N, KB_RO_MODE },
	{ 'l', "list",             N, KB_RO_MODE },
	{ 0,   "global",           N, 0 },
	{ 0,   "system",           N, 0 },
	{ 0,   "local",            N, 0 },
	{ 0,   "worktree",         N, 0 },
	{ 'f', "file",             R, 0 },
	{ 0,   "show-origin",      N, 0 },
	{ 0,   "show-scope",       N, 0 },
	{ 'z', "null",             N, 0 },
	{ 0,   "name-only",        N, 0 },
	{ 0,   "includes",         N, 0 },
	{ 0,   "no-includes",      N, 0 },
	{ 't', "type",             R, 0 },
	{ 0,   "no-type",          N, 0 },
	{ 0,   "bool",             N, 0 },
	{ 0,   "int",              N, 0 },
	{ 0,   "bool-or-int",      N, 0 },
	{ 0,   "bool-or-str",      N, 0 },
	{ 0,   "path",             N, 0 },
	{ 0,   "expiry-date",      N, 0 },
	{ 0,   "default",          R, 0 },
	{ 0,   "fixed-value",      N, 0 },
	{ 0,   "blob",             R, DENY },
	{ 'e', "edit",             N, DENY },
	END
};

/* git remote: only the listing forms `git remote` and `git remote -v` */
static const struct kb_ro_opt git_remote_opts[] = {
	{ 'v', "verbose", N, 0 },
	END
};

/*
 * git subcommands that only read the repository, and the programs a
 * repository's configuration makes them run. Checked against git 2.39.5
 * with a repository that sets every one of these to a program leaving a
 * mark (tests/t51-decide.sh builds one), and against its source:
 *
 *   core.fsmonitor     any command that reads the index (status, diff,
 *                      ls-files, grep, blame, clean -n; every command that
 *                      takes a revision, which may be :path)
 *                                               -c core.fsmonitor=false
 *   core.pager,        every command that pages when stdout is a
 *     pager.<cmd>      terminal (not rev-parse, version; config --list
 *                      and clean -n too)                    --no-pager
 *   a promisor's       every command that reads an object a partial
 *     lazy fetch       clone lacks: `git fetch` runs the remote's helper,
 *                      core.sshCommand, remote.*.uploadpack, or an alias
 *                      remote-<name> (protocol.*.allow cannot stop an
 *                      alias)      GIT_NO_LAZY_FETCH=1 (git 2.39.4, 2.40.2,
 *                      2.41.1, 2.42.2, 2.43.4, 2.44.1, 2.45; --no-lazy-fetch
 *                      from 2.45: older git errors out on it)
 *   diff.<drv>.textconv  diff, log -p, show, blame, stash list -p; grep and
 *                      cat-file only with --textconv (refused)  --no-textconv
 *   diff.external,     git diff (tree, index and work tree forms alike),
 *     diff.<drv>.command  with the smudge filter for its temporary files;
 *                      log and show only with --ext-diff (refused)
 *                                                      --no-ext-diff
 *   gpg.program,       log.showSignature (log, show, stash list), and a
 *     gpg.ssh.program, %G placeholder in format.pretty or a pretty.<name>
 *     gpg.x509.program alias (log, show, rev-list, shortlog); the
 *                      signature's own header picks the program
 *                                  -c gpg.program=false (and ssh, x509)
 *   diff.submodule=diff  diff, log -p, show, stash show: `git diff` in the
 *                      submodule, with its own config and no --no-ext-diff
 *                                                -c diff.submodule=short
 *   log.diffMerges     log/show -m and --diff-merges=on; "remerge" runs
 *                      merge.<drv>.driver       -m, --diff-merges refused
 *   core.alternateRefsCommand  --alternate-refs (refused)
 *   filter.<drv>.clean, .process  everything that reads a work tree file
 *                      as content: status, diff against the work tree or
 *                      --no-index, blame without a revision, ls-files -m,
 *                      describe --dirty/--broken. No option turns a filter
 *                      off (git 2.40's --attr-source would), so these
 *                      forms are never safe. grep and ls-files --eol read
 *                      work tree files raw: no filter.
 *   post-index-change  a command that writes the index: status (not with
 *     hook             --no-optional-locks), describe --dirty, diff of the
 *                      work tree (refresh_index_quietly, whatever
 *                      --no-optional-locks says)
 *
 * Not reached by these commands: hooks other than post-index-change (no
 * ref or index update), merge drivers outside remerge, credential
 * helpers and core.sshCommand outside the lazy fetch, core.editor.
 * `neutral` is what a run must carry; a command line without it is
 * unsafe, and readonly.c offers the same line with the words inserted.
 */
static const char *const git_stash_list_verb[] = { "list", NULL };
static const char *const git_stash_show_verb[] = { "show", NULL };
static const char *const git_worktree_verbs[] = { "list", NULL };
static const char *const git_log_words[] = { "-m", NULL };

#define DL KB_RO_DENYLIST
#define NONE KB_RO_CHECK_NONE
#define LIST KB_RO_CHECK_GIT_LIST
#define BASE KB_RO_N_BASE
#define SIGS KB_RO_N_SIGS
#define GIT(name, mode, opts, max, check, verbs, neutral, never, words) \
	{ { name, mode, opts, max, 0, check, verbs }, neutral, never, words }
#define FIRST KB_RO_T_OPTS_FIRST
#define MODE KB_RO_CHECK_MODE

#define NEVER_STATUS "git status runs the repository's clean and process " \
	"filters (filter.*) on changed files, which no option turns off, " \
	"and writes the index"
#define NEVER_DIFF "git diff of the work tree runs the repository's clean " \
	"and process filters (filter.*), which no option turns off; compare " \
	"commits (git diff A B --) or --cached"
#define NEVER_BLAME "git blame of the work tree runs the repository's " \
	"clean and process filters (filter.*), which no option turns off; " \
	"blame a commit (git blame REV -- FILE)"

const struct kb_ro_git kb_ro_git_table[] = {
	GIT("blame", KB_RO_ALLOW, git_blame_opts, -1, KB_RO_CHECK_GIT_BLAME, NULL,
	    BASE | KB_RO_N_TEXTCONV, NEVER_BLAME, NULL),
	GIT("branch", KB_RO_ALLOW, git_branch_opts, -1, LIST, NULL,
	    BASE, NULL, NULL),
	GIT("cat-file", DL, git_catfile_opts, -1, NONE, NULL, BASE, NULL,
	    NULL),
	/* the index, its untracked cache and the directories: no object,
	 * no file's contents */
	GIT("clean", KB_RO_ALLOW, git_clean_opts, -1, MODE, NULL, BASE, NULL,
	    NULL),
	/* pager.config pages --list; nothing else runs */
	{ { "config", KB_RO_ALLOW, git_config_opts, 2, FIRST, MODE, NULL },
	  KB_RO_N_PAGER, NULL, NULL },
	GIT("describe", DL, git_opts, -1, NONE, NULL, BASE, NULL, NULL),
	GIT("diff", KB_RO_ALLOW, git_diff_opts, -1, KB_RO_CHECK_GIT_DIFF, NULL,
	    BASE | KB_RO_N_SUBM | KB_RO_N_EXTDIFF | KB_RO_N_TEXTCONV,
	    NEVER_DIFF, NULL),
	GIT("for-each-ref", DL, git_opts, -1, NONE, NULL, BASE, NULL,
	    NULL),
	GIT("grep", DL, git_grep_opts, -1, NONE, NULL, BASE, NULL, NULL),
	GIT("log", DL, git_opts, -1, NONE, NULL,
	    BASE | SIGS | KB_RO_N_SUBM | KB_RO_N_TEXTCONV, NULL,
	    git_log_words),
	GIT("ls-files", DL, git_ls_files_opts, -1, NONE, NULL, BASE,
	    NULL, NULL),
	GIT("ls-tree", DL, git_opts, -1, NONE, NULL, BASE, NULL, NULL),
	GIT("merge-base", DL, git_opts, -1, NONE, NULL, BASE, NULL,
	    NULL),
	GIT("remote", KB_RO_ALLOW, git_remote_opts, 0, NONE, NULL,
	    KB_RO_N_PAGER, NULL, NULL),
	GIT("rev-list", DL, git_opts, -1, NONE, NULL, BASE | SIGS, NULL,
	    NULL),
	GIT("rev-parse", DL, git_opts, -1, NONE, NULL,
	    KB_RO_N_LAZY | KB_RO_N_FSMON, NULL, NULL),
	GIT("shortlog", DL, git_opts, -1, NONE, NULL, BASE | SIGS, NULL,
	    NULL),
	GIT("show", DL, git_opts, -1, NONE, NULL,
	    BASE | SIGS | KB_RO_N_SUBM | KB_RO_N_TEXTCONV, NULL,
	    git_log_words),
	GIT("show-ref", DL, git_opts, -1, NONE, NULL,
	    KB_RO_N_LAZY | KB_RO_N_PAGER, NULL, NULL),
	/* stash list runs `git log -g` with its arguments; stash show takes
	 * its config defaults (stat, no patch) only when given no option,
	 * so it gets no option inserted */
	GIT("stash", DL, git_opts, -1, NONE, git_stash_list_verb,
	    BASE | SIGS | KB_RO_N_TEXTCONV, NULL, git_log_words),
	GIT("stash", DL, git_opts, -1, NONE, git_stash_show_verb,
	    BASE | KB_RO_N_SUBM, NULL, NULL),
	GIT("status", DL, git_opts, -1, KB_RO_CHECK_GIT_NEVER, NULL, 0,
	    NEVER_STATUS, NULL),
	GIT("tag", KB_RO_ALLOW, git_tag_opts, -1, LIST, NULL, BASE,
	    NULL, NULL),
	GIT("version", DL, git_opts, -1, NONE, NULL, 0, NULL, NULL),
	GIT("worktree", DL, git_opts, -1, NONE, git_worktree_verbs,
	    KB_RO_N_PAGER, NULL, NULL),
};
const size_t kb_ro_git_count = nitems(kb_ro_git_table);

/* the words, in the order a rewrite inserts them; `what` names the
 * program in a reason (NULL: named by the entry before) */
const struct kb_ro_neutral kb_ro_git_neutral_table[] = {
	{ KB_RO_N_LAZY, KB_RO_NW_ENV, "GIT_NO_LAZY_FETCH=1", "--no-lazy-fetch",
	  "GIT_NO_LAZY_FETCH=1 ", "lazy fetch" },
	{ KB_RO_N_PAGER, KB_RO_NW_GLOBAL, "--no-pager", "-P", " --no-pager",
	  "core.pager" },
	{ KB_RO_N_FSMON, KB_RO_NW_CONFIG, "core.fsmonitor=false", NULL,
	  " -c core.fsmonitor=false", "core.fsmonitor" },
	{ KB_RO_N_GPG, KB_RO_NW_CONFIG, "gpg.program=false", NULL,
	  " -c gpg.program=false", "gpg.program" },
	{ KB_RO_N_GPGSSH, KB_RO_NW_CONFIG, "gpg.ssh.program=false", NULL,
	  " -c gpg.ssh.program=false", NULL },
	{ KB_RO_N_GPGX509, KB_RO_NW_CONFIG, "gpg.x509.program=false", NULL,
	  " -c gpg.x509.program=false", NULL },
	{ KB_RO_N_SUBM, KB_RO_NW_CONFIG, "diff.submodule=short", NULL,
	  " -c diff.submodule=short", "diff.submodule" },
	{ KB_RO_N_EXTDIFF, KB_RO_NW_SUB, "--no-ext-diff", NULL,
	  " --no-ext-diff", "diff.external" },
	{ KB_RO_N_TEXTCONV, KB_RO_NW_SUB, "--no-textconv", NULL,
	  " --no-textconv", "textconv" },
};
const size_t kb_ro_git_neutral_count = nitems(kb_ro_git_neutral_table);

/* git options allowed before the subcommand, besides -c with one of the
 * values above; every other one (-c, -C, --exec-path, --git-dir,
 * --work-tree, --namespace, -p, --config-env ...) changes what runs or
 * where */
const char *const kb_ro_git_global_table[] = {
	"--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs",
	"--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs",
	"--no-replace-objects", "--no-lazy-fetch",
};
const size_t kb_ro_git_global_count = nitems(kb_ro_git_global_table);
