/*
 * classify/readonly-rules.c — data only: which commands are read-only, and
 * which of their options are. Read by classify/readonly.c (types in
 * readonly-rules.h). A tool is listed here only when every way of calling
 * it that the rules let through reads and prints, and nothing else: no
 * file written, no program run; for git, once the options of its row's
 * `neutral` keep the repository's configured programs from running. To
 * extend, add a row; when a tool has an option that writes or runs
 * something, list it with KB_RO_DENY so the reason names it.
 *
 * Versions checked: Debian 12 (coreutils 9.1, findutils 4.9, GNU sed 4.9,
 * git 2.39, procps 4.0, file 5.44, tree 2.1, ripgrep 13, GNU tar 1.34,
 * Info-ZIP unzip 6.0, p7zip 16.02; bash 5.2, dash 0.5.12, zsh 5.9 for the
 * builtins).
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

/* GNU sed: -i edits in place; -f reads a script we cannot see */
static const struct kb_ro_opt sed_opts[] = {
	{ 'n', "quiet",           N, 0 },
	{ 0,   "silent",          N, 0 },
	{ 0,   "debug",           N, 0 },
	{ 'e', "expression",      R, KB_RO_SCRIPT },
	{ 'f', "file",            R, DENY },
	{ 0,   "follow-symlinks", N, 0 },
	{ 'i', "in-place",        O, DENY },
	{ 'l', "line-length",     R, 0 },
	{ 0,   "posix",           N, 0 },
	{ 'E', "regexp-extended", N, 0 },
	{ 'r', NULL,              N, 0 },
	{ 's', "separate",        N, 0 },
	{ 0,   "sandbox",         N, 0 },
	{ 'u', "unbuffered",      N, 0 },
	{ 'z', "null-data",       N, 0 },
	{ 0,   "zero-terminated", N, 0 },
	{ 0,   "help",            N, 0 },
	{ 0,   "version",         N, 0 },
	END
};

/* sort: -o writes, --compress-program runs PROG, -T writes temporaries
 * into a directory of the caller's choosing */
static const struct kb_ro_opt sort_opts[] = {
	{ 'b', "ignore-leading-blanks", N, 0 },
	{ 'd', "dictionary-order",      N, 0 },
	{ 'f', "ignore-case",           N, 0 },
	{ 'g', "general-numeric-sort",  N, 0 },
	{ 'i', "ignore-nonprinting",    N, 0 },
	{ 'M', "month-sort",            N, 0 },
	{ 'h', "human-numeric-sort",    N, 0 },
	{ 'n', "numeric-sort",          N, 0 },
	{ 'R', "random-sort",           N, 0 },
	{ 0,   "random-source",         R, 0 },
	{ 'r', "reverse",               N, 0 },
	{ 0,   "sort",                  R, 0 },
	{ 'V', "version-sort",          N, 0 },
	{ 0,   "batch-size",            R, 0 },
	{ 'c', NULL,                    N, 0 },
	{ 0,   "check",                 O, 0 },
	{ 'C', NULL,                    N, 0 },
	{ 0,   "compress-program",      R, DENY },
	{ 0,   "debug",                 N, 0 },
	{ 0,   "files0-from",           R, 0 },
	{ 'k', "key",                   R, 0 },
	{ 'm', "merge",                 N, 0 },
	{ 'o', "output",                R, DENY },
	{ 's', "stable",                N, 0 },
	{ 'S', "buffer-size",           R, 0 },
	{ 't', "field-separator",       R, 0 },
	{ 'T', "temporary-directory",   R, DENY },
	{ 0,   "parallel",              R, 0 },
	{ 'u', "unique",                N, 0 },
	{ 'z', "zero-terminated",       N, 0 },
	{ 0,   "help",                  N, 0 },
	{ 0,   "version",               N, 0 },
	END
};

/* uniq: a second operand is an output file (max_operands 1) */
static const struct kb_ro_opt uniq_opts[] = {
	{ 'c', "count",           N, 0 },
	{ 'd', "repeated",        N, 0 },
	{ 'D', NULL,              N, 0 },
	{ 0,   "all-repeated",    O, 0 },
	{ 'f', "skip-fields",     R, 0 },
	{ 0,   "group",           O, 0 },
	{ 'i', "ignore-case",     N, 0 },
	{ 's', "skip-chars",      R, 0 },
	{ 'u', "unique",          N, 0 },
	{ 'z', "zero-terminated", N, 0 },
	{ 'w', "check-chars",     R, 0 },
	{ 0,   "help",            N, 0 },
	{ 0,   "version",         N, 0 },
	END
};

/* tail: following never ends (-f, -F, --follow, --retry) */
static const struct kb_ro_opt tail_opts[] = {
	{ 'c', "bytes",               R, 0 },
	{ 'f', NULL,                  N, DENY },
	{ 0,   "follow",              O, DENY },
	{ 'F', NULL,                  N, DENY },
	{ 'n', "lines",               R, 0 },
	{ 0,   "max-unchanged-stats", R, 0 },
	{ 0,   "pid",                 R, 0 },
	{ 'q', "quiet",               N, 0 },
	{ 0,   "silent",              N, 0 },
	{ 0,   "retry",               N, DENY },
	{ 's', "sleep-interval",      R, 0 },
	{ 'v', "verbose",             N, 0 },
	{ 'z', "zero-terminated",     N, 0 },
	{ 0,   "help",                N, 0 },
	{ 0,   "version",             N, 0 },
	END
};

/* date: -s and a bare MMDDhhmm operand set the clock */
static const struct kb_ro_opt date_opts[] = {
	{ 'd', "date",        R, 0 },
	{ 0,   "debug",       N, 0 },
	{ 'f', "file",        R, 0 },
	{ 'I', "iso-8601",    O, 0 },
	{ 0,   "resolution",  N, 0 },
	{ 'R', "rfc-email",   N, 0 },
	{ 0,   "rfc-3339",    R, 0 },
	{ 'r', "reference",   R, 0 },
	{ 's', "set",         R, DENY },
	{ 'u', "utc",         N, 0 },
	{ 0,   "universal",   N, 0 },
	{ 0,   "help",        N, 0 },
	{ 0,   "version",     N, 0 },
	END
};

/* env without a command prints the environment; every operand
 * (NAME=VALUE or a command) is refused */
static const struct kb_ro_opt env_opts[] = {
	{ 'i', "ignore-environment", N, 0 },
	{ '0', "null",               N, 0 },
	{ 'u', "unset",              R, 0 },
	{ 0,   "help",               N, 0 },
	{ 0,   "version",            N, 0 },
	END
};

/* hostname (net-tools): any operand, -b and -F set the name */
static const struct kb_ro_opt hostname_opts[] = {
	{ 'a', "alias",            N, 0 },
	{ 'A', "all-fqdns",        N, 0 },
	{ 'd', "domain",           N, 0 },
	{ 'f', "fqdn",             N, 0 },
	{ 0,   "long",             N, 0 },
	{ 'i', "ip-address",       N, 0 },
	{ 'I', "all-ip-addresses", N, 0 },
	{ 's', "short",            N, 0 },
	{ 'y', "yp",               N, 0 },
	{ 0,   "nis",              N, 0 },
	{ 'b', "boot",             N, DENY },
	{ 'F', "file",             R, DENY },
	{ 'V', "version",          N, 0 },
	{ 'h', "help",             N, 0 },
	END
};

/* free (procps): -s repeats forever */
static const struct kb_ro_opt free_opts[] = {
	{ 'b', "bytes",     N, 0 },
	{ 0,   "kilo",      N, 0 },
	{ 0,   "mega",      N, 0 },
	{ 0,   "giga",      N, 0 },
	{ 0,   "tera",      N, 0 },
	{ 0,   "peta",      N, 0 },
	{ 'k', "kibi",      N, 0 },
	{ 'm', "mebi",      N, 0 },
	{ 'g', "gibi",      N, 0 },
	{ 0,   "tebi",      N, 0 },
	{ 0,   "pebi",      N, 0 },
	{ 'h', "human",     N, 0 },
	{ 0,   "si",        N, 0 },
	{ 'l', "lohi",      N, 0 },
	{ 't', "total",     N, 0 },
	{ 'v', "committed", N, 0 },
	{ 's', "seconds",   R, DENY },
	{ 'c', "count",     R, 0 },
	{ 'w', "wide",      N, 0 },
	{ 0,   "help",      N, 0 },
	{ 'V', "version",   N, 0 },
	END
};

/* file: -C compiles (writes) magic; -z/-Z run decompressors; -p resets
 * access times; -S turns its own sandbox off */
static const struct kb_ro_opt file_opts[] = {
	{ 0,   "help",                 N, 0 },
	{ 'v', "version",              N, 0 },
	{ 'm', "magic-file",           R, 0 },
	{ 'z', "uncompress",           N, DENY },
	{ 'Z', "uncompress-noreport",  N, DENY },
	{ 'b', "brief",                N, 0 },
	{ 'c', "checking-printout",    N, 0 },
	{ 'e', "exclude",              R, 0 },
	{ 0,   "exclude-quiet",        R, 0 },
	{ 'f', "files-from",           R, 0 },
	{ 'F', "separator",            R, 0 },
	{ 'i', "mime",                 N, 0 },
	{ 0,   "apple",                N, 0 },
	{ 0,   "extension",            N, 0 },
	{ 0,   "mime-type",            N, 0 },
	{ 0,   "mime-encoding",        N, 0 },
	{ 'k', "keep-going",           N, 0 },
	{ 'l', "list",                 N, 0 },
	{ 'L', "dereference",          N, 0 },
	{ 'h', "no-dereference",       N, 0 },
	{ 'n', "no-buffer",            N, 0 },
	{ 'N', "no-pad",               N, 0 },
	{ '0', "print0",               N, 0 },
	{ 'p', "preserve-date",        N, DENY },
	{ 'P', "parameter",            R, 0 },
	{ 'r', "raw",                  N, 0 },
	{ 's', "special-files",        N, 0 },
	{ 'S', "no-sandbox",           N, DENY },
	{ 'C', "compile",              N, DENY },
	{ 'd', "debug",                N, 0 },
	END
};

/* tree: -o writes the listing to a file; -R (with -H) writes 00Tree.html
 * into every directory. tree reads a short option's value from the next
 * word even inside a cluster (-Lo 2 out), hence KB_RO_T_STRICT. */
static const struct kb_ro_opt tree_opts[] = {
	{ 'a', NULL,          N, 0 },
	{ 'd', NULL,          N, 0 },
	{ 'l', NULL,          N, 0 },
	{ 'f', NULL,          N, 0 },
	{ 'x', NULL,          N, 0 },
	{ 'L', NULL,          R, 0 },
	{ 'R', NULL,          N, DENY },
	{ 'P', NULL,          R, 0 },
	{ 'I', NULL,          R, 0 },
	{ 0,   "gitignore",   N, 0 },
	{ 0,   "ignore-case", N, 0 },
	{ 0,   "matchdirs",   N, 0 },
	{ 0,   "metafirst",   N, 0 },
	{ 0,   "prune",       N, 0 },
	{ 0,   "info",        N, 0 },
	{ 0,   "noreport",    N, 0 },
	{ 0,   "charset",     R, 0 },
	{ 0,   "filelimit",   R, 0 },
	{ 'o', NULL,          R, DENY },
	{ 'q', NULL,          N, 0 },
	{ 'N', NULL,          N, 0 },
	{ 'Q', NULL,          N, 0 },
	{ 'p', NULL,          N, 0 },
	{ 'u', NULL,          N, 0 },
	{ 'g', NULL,          N, 0 },
	{ 's', NULL,          N, 0 },
	{ 'h', NULL,          N, 0 },
	{ 0,   "si",          N, 0 },
	{ 0,   "du",          N, 0 },
	{ 'D', NULL,          N, 0 },
	{ 0,   "timefmt",     R, 0 },
	{ 'F', NULL,          N, 0 },
	{ 0,   "inodes",      N, 0 },
	{ 0,   "device",      N, 0 },
	{ 'v', NULL,          N, 0 },
	{ 't', NULL,          N, 0 },
	{ 'c', NULL,          N, 0 },
	{ 'U', NULL,          N, 0 },
	{ 'r', NULL,          N, 0 },
	{ 0,   "dirsfirst",   N, 0 },
	{ 0,   "filesfirst",  N, 0 },
	{ 0,   "sort",        R, 0 },
	{ 'i', NULL,          N, 0 },
	{ 'A', NULL,          N, 0 },
	{ 'S', NULL,          N, 0 },
	{ 'n', NULL,          N, 0 },
	{ 'C', NULL,          N, 0 },
	{ 'X', NULL,          N, 0 },
	{ 'J', NULL,          N, 0 },
	{ 'H', NULL,          R, 0 },
	{ 'T', NULL,          R, 0 },
	{ 0,   "nolinks",     N, 0 },
	{ 0,   "help",        N, 0 },
	{ 0,   "version",     N, 0 },
	END
};

/* ripgrep: --pre runs a program per file, -z runs decompressors,
 * --hostname-bin (rg 14) runs a program. Other options only read. */
static const struct kb_ro_opt rg_opts[] = {
	{ 'z', "search-zip",   N, DENY },
	{ 0,   "pre",          R, DENY },
	{ 0,   "pre-glob",     R, DENY },
	{ 0,   "hostname-bin", R, DENY },
	END
};

/*
 * GNU tar, listing only (-t): every other mode writes, and so do -g
 * (the snapshot file), --index-file and --volno-file; -I, --to-command,
 * --rsh-command, --rmt-command, -F and --checkpoint-action run programs,
 * -M and -w prompt. An archive named HOST:FILE is read through rsh, hence
 * KB_RO_ARCHIVE on -f (--force-local makes it a file). Long names exact:
 * tar takes abbreviations, which are refused as unknown.
 */
static const struct kb_ro_opt tar_opts[] = {
	{ 't', "list",                   N, KB_RO_MODE },
	{ 'f', "file",                   R, KB_RO_ARCHIVE },
	{ 0,   "force-local",            N, 0 },
	{ 'v', "verbose",                N, 0 },
	{ 'z', "gzip",                   N, 0 },
	{ 0,   "gunzip",                 N, 0 },
	{ 0,   "ungzip",                 N, 0 },
	{ 'j', "bzip2",                  N, 0 },
	{ 'J', "xz",                     N, 0 },
	{ 'Z', "compress",               N, 0 },
	{ 0,   "uncompress",             N, 0 },
	{ 0,   "lzip",                   N, 0 },
	{ 0,   "lzma",                   N, 0 },
	{ 0,   "lzop",                   N, 0 },
	{ 0,   "zstd",                   N, 0 },
	{ 'a', "auto-compress",          N, 0 },
	{ 0,   "no-auto-compress",       N, 0 },
	{ 'C', "directory",              R, 0 },
	{ 'T', "files-from",             R, 0 },
	{ 'X', "exclude-from",           R, 0 },
	{ 0,   "exclude",                R, 0 },
	{ 0,   "exclude-vcs",            N, 0 },
	{ 0,   "exclude-backups",        N, 0 },
	{ 0,   "wildcards",              N, 0 },
	{ 0,   "no-wildcards",           N, 0 },
	{ 0,   "wildcards-match-slash",  N, 0 },
	{ 0,   "no-wildcards-match-slash", N, 0 },
	{ 0,   "anchored",               N, 0 },
	{ 0,   "no-anchored",            N, 0 },
	{ 0,   "ignore-case",            N, 0 },
	{ 0,   "no-ignore-case",         N, 0 },
	{ 0,   "recursion",              N, 0 },
	{ 0,   "no-recursion",           N, 0 },
	{ 0,   "null",                   N, 0 },
	{ 0,   "no-null",                N, 0 },
	{ 0,   "unquote",                N, 0 },
	{ 0,   "no-unquote",             N, 0 },
	{ 0,   "verbatim-files-from",    N, 0 },
	{ 0,   "no-verbatim-files-from", N, 0 },
	{ 'b', "blocking-factor",        R, 0 },
	{ 0,   "record-size",            R, 0 },
	{ 'B', "read-full-records",      N, 0 },
	{ 'i', "ignore-zeros",           N, 0 },
	{ 'n', "seek",                   N, 0 },
	{ 0,   "no-seek",                N, 0 },
	{ 'R', "block-number",           N, 0 },
	{ 0,   "totals",                 O, 0 },
	{ 0,   "full-time",              N, 0 },
	{ 0,   "utc",                    N, 0 },
	{ 0,   "numeric-owner",          N, 0 },
	{ 0,   "quoting-style",          R, 0 },
	{ 0,   "quote-chars",            R, 0 },
	{ 0,   "no-quote-chars",         R, 0 },
	{ 0,   "show-transformed-names", N, 0 },
	{ 0,   "show-stored-names",      N, 0 },
	{ 0,   "transform",              R, 0 },
	{ 0,   "xform",                  R, 0 },
	{ 0,   "strip-components",       R, 0 },
	{ 0,   "occurrence",             O, 0 },
	{ 'K', "starting-file",          R, 0 },
	{ 'N', "newer",                  R, 0 },
	{ 0,   "after-date",             R, 0 },
	{ 0,   "newer-mtime",            R, 0 },
	{ 'G', "incremental",            N, 0 },
	{ 'P', "absolute-names",         N, 0 },
	{ 'V', "label",                  R, 0 },
	{ 'H', "format",                 R, 0 },
	{ 0,   "warning",                R, 0 },
	{ 0,   "checkpoint",             O, 0 },
	{ 'x', "extract",                N, DENY },
	{ 0,   "get",                    N, DENY },
	{ 'c', "create",                 N, DENY },
	{ 'r', "append",                 N, DENY },
	{ 'u', "update",                 N, DENY },
	{ 'A', "catenate",               N, DENY },
	{ 0,   "concatenate",            N, DENY },
	{ 0,   "delete",                 N, DENY },
	{ 'g', "listed-incremental",     R, DENY },
	{ 0,   "index-file",             R, DENY },
	{ 0,   "volno-file",             R, DENY },
	{ 'I', "use-compress-program",   R, DENY },
	{ 0,   "to-command",             R, DENY },
	{ 0,   "rsh-command",            R, DENY },
	{ 0,   "rmt-command",            R, DENY },
	{ 'F', "info-script",            R, DENY },
	{ 0,   "new-volume-script",      R, DENY },
	{ 0,   "checkpoint-action",      R, DENY },
	{ 'M', "multi-volume",           N, DENY },
	{ 'w', "interactive",            N, DENY },
	{ 0,   "confirmation",           N, DENY },
	END
};

/* unzip: -l, -v (with an archive), -t and -z only list, test or print
 * the comment; every other mode extracts, and -M pipes through more.
 * Options come first (-x and -d after the names are refused with them) */
static const struct kb_ro_opt unzip_opts[] = {
	{ 'l', NULL, N, KB_RO_MODE },
	{ 'v', NULL, N, KB_RO_MODE },
	{ 't', NULL, N, KB_RO_MODE },
	{ 'z', NULL, N, KB_RO_MODE },
	{ 'q', NULL, N, 0 },
	{ 'C', NULL, N, 0 },
	{ 'M', NULL, N, DENY },
	END
};

/* zipinfo (and unzip -Z) only lists; -M pipes through more */
static const struct kb_ro_opt zipinfo_opts[] = {
	{ '1', NULL, N, 0 },
	{ '2', NULL, N, 0 },
	{ 's', NULL, N, 0 },
	{ 'm', NULL, N, 0 },
	{ 'l', NULL, N, 0 },
	{ 'v', NULL, N, 0 },
	{ 'h', NULL, N, 0 },
	{ 't', NULL, N, 0 },
	{ 'T', NULL, N, 0 },
	{ 'z', NULL, N, 0 },
	{ 'C', NULL, N, 0 },
	{ 'M', NULL, N, DENY },
	END
};

/* git's subcommands, options and neutral words: readonly-rules-git.c */

#define DL KB_RO_DENYLIST
#define NONE KB_RO_CHECK_NONE

#define ANY(name) { name, KB_RO_ANY, NULL, -1, 0, NONE, NULL }
#define FIRST KB_RO_T_OPTS_FIRST
#define BUILTIN KB_RO_T_BUILTIN
#define CUSTOM(name, check) { name, KB_RO_CUSTOM, NULL, -1, 0, check, NULL }

/*
 * The tools. KB_RO_ANY: no option of the tool writes, runs a program or
 * sets anything, so arguments are not looked at and globs and expansions
 * are allowed (even a file named -x expands to a harmless option). The
 * rest need their arguments read, so a glob or an expansion in them is
 * refused: `find *` with a file named -delete, `sed -n p *` with one named
 * -i. test, [, printf, command and hash are builtins whose arguments the
 * shell itself may evaluate: their predicates say which are safe.
 */
const struct kb_ro_tool kb_ro_tool_table[] = {
	{ "7z", KB_RO_CUSTOM, NULL, -1, 0, KB_RO_CHECK_7Z, NULL },
	{ "7za", KB_RO_CUSTOM, NULL, -1, 0, KB_RO_CHECK_7Z, NULL },
	{ "7zr", KB_RO_CUSTOM, NULL, -1, 0, KB_RO_CHECK_7Z, NULL },
	{ "7zz", KB_RO_CUSTOM, NULL, -1, 0, KB_RO_CHECK_7Z, NULL },
	CUSTOM("[", KB_RO_CHECK_TEST),
	ANY("arch"),
	ANY("b2sum"),
	ANY("basename"),
	ANY("cat"),
	{ "cd", KB_RO_ANY, NULL, -1, BUILTIN, NONE, NULL },
	ANY("cksum"),
	ANY("cmp"),
	ANY("column"),
	ANY("comm"),
	{ "command", KB_RO_CUSTOM, NULL, -1, BUILTIN, KB_RO_CHECK_COMMAND,
	  NULL },
	ANY("cut"),
	{ "date", KB_RO_ALLOW, date_opts, 1, FIRST, KB_RO_CHECK_DATE, NULL },
	ANY("df"),
	ANY("diff"),
	ANY("dirname"),
	ANY("du"),
	ANY("echo"),
	ANY("egrep"),
	{ "env", KB_RO_ALLOW, env_opts, 0, FIRST, NONE, NULL },
	ANY("expand"),
	ANY("false"),
	ANY("fgrep"),
	{ "file", KB_RO_ALLOW, file_opts, -1, 0, NONE, NULL },
	{ "find", KB_RO_CUSTOM, NULL, -1, 0, KB_RO_CHECK_FIND, NULL },
	ANY("fold"),
	{ "free", KB_RO_ALLOW, free_opts, 0, 0, NONE, NULL },
	{ "git", KB_RO_CUSTOM, NULL, -1, 0, KB_RO_CHECK_GIT, NULL },
	ANY("grep"),
	ANY("groups"),
	{ "hash", KB_RO_CUSTOM, NULL, -1, BUILTIN, KB_RO_CHECK_HASH, NULL },
	ANY("head"),
	{ "hostname", KB_RO_ALLOW, hostname_opts, 0, 0, NONE, NULL },
	ANY("id"),
	ANY("jq"),
	ANY("logname"),
	ANY("ls"),
	ANY("md5sum"),
	ANY("nl"),
	ANY("nproc"),
	ANY("od"),
	ANY("paste"),
	ANY("printenv"),
	{ "printf", KB_RO_CUSTOM, NULL, -1, 0, KB_RO_CHECK_PRINTF, NULL },
	ANY("ps"),
	ANY("pwd"),
	ANY("readlink"),
	ANY("realpath"),
	ANY("rev"),
	{ "rg", KB_RO_DENYLIST, rg_opts, -1, 0, NONE, NULL },
	{ "sed", KB_RO_ALLOW, sed_opts, -1, FIRST, KB_RO_CHECK_SED, NULL },
	ANY("seq"),
	ANY("sha1sum"),
	ANY("sha224sum"),
	ANY("sha256sum"),
	ANY("sha384sum"),
	ANY("sha512sum"),
	{ "sort", KB_RO_ALLOW, sort_opts, -1, 0, NONE, NULL },
	ANY("stat"),
	ANY("sum"),
	ANY("tac"),
	{ "tail", KB_RO_CUSTOM, tail_opts, -1, 0, KB_RO_CHECK_TAIL, NULL },
	{ "tar", KB_RO_ALLOW, tar_opts, -1, 0, KB_RO_CHECK_TAR, NULL },
	CUSTOM("test", KB_RO_CHECK_TEST),
	ANY("tr"),
	{ "tree", KB_RO_ALLOW, tree_opts, -1, KB_RO_T_STRICT, NONE, NULL },
	ANY("true"),
	ANY("tty"),
	{ "type", KB_RO_ANY, NULL, -1, BUILTIN, NONE, NULL },
	ANY("uname"),
	ANY("unexpand"),
	{ "uniq", KB_RO_ALLOW, uniq_opts, 1, FIRST, NONE, NULL },
	{ "unzip", KB_RO_ALLOW, unzip_opts, -1, FIRST, KB_RO_CHECK_UNZIP,
	  NULL },
	ANY("uptime"),
	ANY("wc"),
	ANY("which"),
	ANY("whoami"),
	{ "zipinfo", KB_RO_ALLOW, zipinfo_opts, -1, FIRST, NONE, NULL },
};
const size_t kb_ro_tool_count = nitems(kb_ro_tool_table);

/* GNU find's expression words, with the number of words each takes. The
 * denied ones delete, write a file, or run a program. */
const struct kb_ro_find kb_ro_find_table[] = {
	{ "!", 0, false },           { "(", 0, false },
	{ ")", 0, false },           { ",", 0, false },
	{ "-a", 0, false },          { "-and", 0, false },
	{ "-o", 0, false },          { "-or", 0, false },
	{ "-not", 0, false },        { "-amin", 1, false },
	{ "-anewer", 1, false },     { "-atime", 1, false },
	{ "-cmin", 1, false },       { "-cnewer", 1, false },
	{ "-context", 1, false },    { "-ctime", 1, false },
	{ "-d", 0, false },          { "-daystart", 0, false },
	{ "-depth", 0, false },      { "-empty", 0, false },
	{ "-executable", 0, false }, { "-false", 0, false },
	{ "-files0-from", 1, false },{ "-follow", 0, false },
	{ "-fstype", 1, false },     { "-gid", 1, false },
	{ "-group", 1, false },      { "-help", 0, false },
	{ "--help", 0, false },      { "-ignore_readdir_race", 0, false },
	{ "-ilname", 1, false },     { "-iname", 1, false },
	{ "-inum", 1, false },       { "-ipath", 1, false },
	{ "-iregex", 1, false },     { "-iwholename", 1, false },
	{ "-links", 1, false },      { "-lname", 1, false },
	{ "-ls", 0, false },         { "-maxdepth", 1, false },
	{ "-mindepth", 1, false },   { "-mmin", 1, false },
	{ "-mount", 0, false },      { "-mtime", 1, false },
	{ "-name", 1, false },       { "-newer", 1, false },
	{ "-noleaf", 0, false },     { "-noignore_readdir_race", 0, false },
	{ "-nogroup", 0, false },    { "-nouser", 0, false },
	{ "-nowarn", 0, false },     { "-path", 1, false },
	{ "-perm", 1, false },       { "-print", 0, false },
	{ "-print0", 0, false },     { "-printf", 1, false },
	{ "-prune", 0, false },      { "-quit", 0, false },
	{ "-readable", 0, false },   { "-regex", 1, false },
	{ "-regextype", 1, false },  { "-samefile", 1, false },
	{ "-size", 1, false },       { "-true", 0, false },
	{ "-type", 1, false },       { "-uid", 1, false },
	{ "-used", 1, false },       { "-user", 1, false },
	{ "-version", 0, false },    { "--version", 0, false },
	{ "-warn", 0, false },       { "-wholename", 1, false },
	{ "-writable", 0, false },   { "-xdev", 0, false },
	{ "-xtype", 1, false },
	{ "-delete", 0, true },      { "-exec", 0, true },
	{ "-execdir", 0, true },     { "-ok", 0, true },
	{ "-okdir", 0, true },       { "-fprint", 0, true },
	{ "-fprint0", 0, true },     { "-fprintf", 0, true },
	{ "-fls", 0, true },
};
const size_t kb_ro_find_count = nitems(kb_ro_find_table);

/* reserved words: never a plain command */
const char *const kb_ro_keyword_table[] = {
	"!", "[[", "]]", "{", "}", "case", "coproc", "do", "done", "elif",
	"else", "esac", "fi", "for", "function", "if", "in", "select", "then",
	"time", "until", "while",
};
const size_t kb_ro_keyword_count = nitems(kb_ro_keyword_table);

/* clang-format on */
