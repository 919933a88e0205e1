/*
 * classify/readonly-rules.h — the shape of the read-only rule tables (data in
 * classify/readonly-rules.c and readonly-rules-git.c, read by
 * classify/readonly.c and its readonly-getopt.c, readonly-tools.c). Not a
 * public interface: only the classifier's files include it.
 */
#ifndef KB_READONLY_RULES_H
#define KB_READONLY_RULES_H

#include <stdbool.h>
#include <stddef.h>

enum kb_ro_arg {
	KB_RO_NOARG,   /* a flag */
	KB_RO_REQARG,  /* takes a value: attached (-k2, --key=2) or next word */
	KB_RO_OPTARG,  /* optional value, attached only (-i.bak, --color=x) */
	KB_RO_LASTARG, /* git's LASTARG_DEFAULT: the next word unless it is
			* the last or looks like an option */
};

/* struct kb_ro_opt.flags. KB_RO_SUBMOD: --submodule=diff runs the
 * submodule's own diff programs; an abbreviation is refused too. */
#define KB_RO_DENY    0x1  /* writes, runs a program, or never ends */
#define KB_RO_LIST    0x2  /* git branch/tag: puts the command in list mode */
#define KB_RO_SCRIPT  0x4  /* sed -e: the value is a script to check */
#define KB_RO_CACHED  0x8  /* git diff --cached: index, not work tree */
#define KB_RO_NOINDEX 0x10 /* git diff --no-index: two files, filtered */
#define KB_RO_SUBMOD  0x20 /* git --submodule: =log or =short only */
#define KB_RO_MODE    0x40 /* tar -t, git clean -n: the read-only mode */
#define KB_RO_ARCHIVE 0x80 /* tar -f: HOST:FILE reaches HOST by rsh */

/* One option. Tables end with an entry whose sname and lname are empty.
 * When the short and the long form take a value differently (sort -c,
 * --check[=X]), they are two entries: a short option with an optional
 * value swallows the rest of its cluster. */
struct kb_ro_opt {
	char sname;        /* short name, 0 when none */
	const char *lname; /* long name without "--", NULL when none */
	enum kb_ro_arg arg;
	unsigned flags;
};

enum kb_ro_mode {
	KB_RO_ANY,      /* every option of the tool is read-only: arguments
			 * are not looked at, globs are allowed */
	KB_RO_ALLOW,    /* options must be in the table (getopt_long rules,
			 * long names matched exactly: no abbreviations) */
	KB_RO_DENYLIST, /* options are free except the table's KB_RO_DENY
			 * entries; a long option that abbreviates a denied
			 * name is denied; an exact non-denied entry wins */
	KB_RO_CUSTOM,   /* a predicate in readonly.c reads the arguments */
};

/* what readonly.c checks beyond the options */
enum kb_ro_check {
	KB_RO_CHECK_NONE,
	KB_RO_CHECK_SED,       /* the script: no w, W, e, s///w, s///e */
	KB_RO_CHECK_DATE,      /* the only operand is a +FORMAT */
	KB_RO_CHECK_GIT_LIST,  /* git branch/tag: names only in list mode */
	KB_RO_CHECK_TAIL,      /* obsolete -N/+N forms; no follow */
	KB_RO_CHECK_FIND,      /* the expression, predicate by predicate */
	KB_RO_CHECK_PRINTF,    /* no -v; the format's conversions */
	KB_RO_CHECK_GIT,       /* global options, then a kb_ro_git_table row */
	KB_RO_CHECK_GIT_DIFF,  /* git diff: only forms that read no work tree
				* file (--cached, two revisions, a range) */
	KB_RO_CHECK_GIT_BLAME, /* git blame: only with one revision */
	KB_RO_CHECK_GIT_NEVER, /* git status: always reads the work tree */
	KB_RO_CHECK_TEST,      /* test, [: -v, -t and numbers (arithmetic
				* in bash and zsh), expansions by position */
	KB_RO_CHECK_COMMAND,   /* command: only -v and -V, which run nothing */
	KB_RO_CHECK_HASH,      /* hash: the listing and -t only */
	KB_RO_CHECK_TAR,       /* tar: old-style options, -t, local -f */
	KB_RO_CHECK_UNZIP,     /* unzip: -l -v -t -z, or -Z as zipinfo */
	KB_RO_CHECK_7Z,        /* 7z l and t, with the switches that read */
	KB_RO_CHECK_MODE,      /* a KB_RO_MODE option is given */
};

/* struct kb_ro_tool.flags */
#define KB_RO_T_OPTS_FIRST                                                     \
	0x1 /* an option after an operand is refused (so                       \
	     * POSIXLY_CORRECT cannot turn an option                           \
	     * into an output file: uniq in -c) */
#define KB_RO_T_STRICT                                                         \
	0x2 /* a value is never attached to a short                            \
	     * option in a cluster (tree -Lo reads two                         \
	     * words) */
#define KB_RO_T_BUILTIN                                                        \
	0x4 /* a shell builtin with no program of its own:                     \
	     * /usr/bin/NAME is not it */

struct kb_ro_tool {
	const char *name;
	enum kb_ro_mode mode;
	const struct kb_ro_opt *opts; /* NULL for KB_RO_ANY */
	int max_operands;             /* -1: any number */
	unsigned flags;
	enum kb_ro_check check;
	const char *const *verbs; /* git stash: the allowed second words */
};

/*
 * What a read-only git subcommand needs so that none of the programs a
 * repository's configuration can name runs (the table in
 * readonly-rules.c says which subcommand can run what). One bit per word;
 * kb_ro_git_neutral_table gives the words, in the order a rewrite inserts
 * them.
 */
#define KB_RO_N_LAZY     0x001 /* GIT_NO_LAZY_FETCH=1 (or --no-lazy-fetch) */
#define KB_RO_N_PAGER    0x002 /* --no-pager (or -P) */
#define KB_RO_N_FSMON    0x004 /* -c core.fsmonitor=false */
#define KB_RO_N_GPG      0x008 /* -c gpg.program=false */
#define KB_RO_N_GPGSSH   0x010 /* -c gpg.ssh.program=false */
#define KB_RO_N_GPGX509  0x020 /* -c gpg.x509.program=false */
#define KB_RO_N_SUBM     0x040 /* -c diff.submodule=short */
#define KB_RO_N_EXTDIFF  0x080 /* SUB --no-ext-diff */
#define KB_RO_N_TEXTCONV 0x100 /* SUB --no-textconv */
#define KB_RO_N_SIGS     (KB_RO_N_GPG | KB_RO_N_GPGSSH | KB_RO_N_GPGX509)
#define KB_RO_N_BASE     (KB_RO_N_LAZY | KB_RO_N_PAGER | KB_RO_N_FSMON)

enum kb_ro_nwhere {
	KB_RO_NW_ENV,    /* an assignment before "git" */
	KB_RO_NW_GLOBAL, /* an option between "git" and the subcommand */
	KB_RO_NW_CONFIG, /* the value of a -c before the subcommand */
	KB_RO_NW_SUB,    /* an option right after the subcommand (and verb) */
};

struct kb_ro_neutral {
	unsigned bit;
	enum kb_ro_nwhere where;
	const char *word;   /* as it must appear (the -c value for CONFIG) */
	const char *alt;    /* another word that does the same, or NULL */
	const char *insert; /* what a rewrite inserts */
	const char *what;   /* the program it keeps from running, for reasons */
};

/* A git subcommand. tool.check says how its operands are judged:
 * KB_RO_CHECK_GIT_DIFF, _BLAME and _NEVER for those that can read a work
 * tree file (through the clean filters), NONE or GIT_LIST otherwise. */
struct kb_ro_git {
	struct kb_ro_tool tool;        /* name, options, verbs as for a tool */
	unsigned neutral;              /* KB_RO_N_*: what a run must carry */
	const char *never;             /* why a form that reads the work tree is
					* not safe; NULL when none does */
	const char *const *deny_words; /* exact arguments refused (options
					* git matches whole, like log -m);
					* NULL-terminated, or NULL */
};

/* what a find expression word is */
struct kb_ro_find {
	const char *name;
	int nargs; /* words it takes */
	bool deny;
};

extern const struct kb_ro_tool kb_ro_tool_table[];
extern const size_t kb_ro_tool_count;
extern const struct kb_ro_git kb_ro_git_table[];
extern const size_t kb_ro_git_count;
extern const struct kb_ro_neutral kb_ro_git_neutral_table[];
extern const size_t kb_ro_git_neutral_count;
extern const char *const kb_ro_git_global_table[];
extern const size_t kb_ro_git_global_count;
extern const struct kb_ro_find kb_ro_find_table[];
extern const size_t kb_ro_find_count;
extern const char *const kb_ro_keyword_table[];
extern const size_t kb_ro_keyword_count;

#endif
