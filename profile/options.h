/*
 * profile/options.h — kinbox's option vocabulary, one table row per knob
 * (minijail's getopt_from_conf idea): the long and short flag, the INI
 * sections and key, the JSON key, the setter, the widest lifetime a grant
 * of it may have, whether a project file may set it (tighten-only), and
 * whether it repeats; what the shell completions offer for its value, how
 * the JSON records write it and whether kinpolicy retry passes it again.
 * kinbox's option parser, --help and completions, the INI handler
 * (profile/config.c), the grant writer (sidecar/grants.c), kinpolicy's grant,
 * fingerprint and retry verbs and the JSON records all read this table;
 * tests/unit/test-options.c checks the man pages against it, and that each
 * row fills in every column that has no default.
 *
 * Every source goes through kb_option_set(), which records the origin and
 * where it was said ("--net", "/etc/kinbox/config.ini:3"). Sources are
 * applied in rank order — system config, global config, workspace grant,
 * session grant, flags, project tightening — so a later one wins a scalar
 * and lists accumulate; kb_options_validate() then judges the result once,
 * with the origins in hand.
 */
#ifndef KB_OPTIONS_H
#define KB_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "../lib/util.h"
#include "policy.h" /* enum kb_opt, struct kb_policy */

/* The lifetimes of a grant, narrowest first. */
enum kb_lifetime {
	KB_LIFE_NEVER, /* not grantable */
	KB_LIFE_ONCE,
	KB_LIFE_SESSION,
	KB_LIFE_WORKSPACE,
};
const char *kb_lifetime_name(enum kb_lifetime);

/* INI sections a key is read in (a bit set) */
#define KB_IN_SANDBOX 0x1u /* [sandbox] of the system and global config */
#define KB_IN_GRANT   0x2u /* [grant] (session), [workspace] blocks */
#define KB_IN_CACHES  0x4u /* [caches]: any name of kb_cache_table */
#define KB_IN_NETWORK 0x8u /* [network] of the system and global config */

/* What a project .kinbox.ini may do with a key of [sandbox] */
enum kb_project_rule {
	KB_PROJECT_NO,       /* ignored with a warning */
	KB_PROJECT_OFF_ONLY, /* a switch it may turn off, never on */
	KB_PROJECT_ON_ONLY,  /* a switch it may turn on, never off (a
				tightening: mode = read-only) */
	KB_PROJECT_ADD,      /* a list it may add to (masks, scrubbed names) */
};

enum kb_opt_type {
	KB_T_SWITCH, /* on/off; a flag sets it on, its negation off */
	KB_T_LIST,   /* repeatable values that accumulate */
	KB_T_VALUE,  /* one value; a later source replaces it */
	KB_T_CLI,    /* kinbox's own: handled in kinbox.c */
};

/*
 * The columns below that every row must fill in on purpose start with a
 * __UNSET value, 0, which no row may keep (tests/unit/test-options.c
 * checks each row): a row that forgets one is caught there, as
 * -Wswitch-enum caught a switch over the options that forgot a case.
 */

/* What the shell completions (profile/completion.c) offer for the value */
enum kb_complete {
	KB_COMPLETE__UNSET,
	KB_COMPLETE_NONE,     /* no value, or nothing to offer (hosts, fds) */
	KB_COMPLETE_DIR,      /* directories */
	KB_COMPLETE_FILE,     /* file names */
	KB_COMPLETE_BACKEND,  /* kb_backend_name */
	KB_COMPLETE_FEATURES, /* kb_feature_name, comma-separated */
	KB_COMPLETE_ENV,      /* the names of exported variables */
};

/*
 * How the value in force is written under the row's JSON key in the
 * denial records ("policy", "flags"), and which member of struct
 * kb_policy holds it (the row's field and count columns).
 */
enum kb_json_enc {
	KB_JSON__UNSET,
	KB_JSON_NONE,   /* no JSON key: never in a record */
	KB_JSON_STRING, /* char *field: a string ("" for NULL) */
	KB_JSON_SWITCH, /* bool field: true or false (typed: the flag's on) */
	KB_JSON_ROOTS,  /* struct kb_root field[count]: their paths */
	KB_JSON_PATHS,  /* struct kb_pathgrant field[count]: their paths */
	KB_JSON_HOSTS,  /* struct kb_hostgrant field[count]: "name:port" */
	KB_JSON_NAMES,  /* struct kb_strv field: its words, typed or not */
};

/* Whether kinpolicy retry passes the row's value again as its flag: what
 * the record's "flags" keep (classify/report.c) and the decision's
 * capabilities of a once grant (sidecar/kinpolicy-grants.c) */
enum kb_retry {
	KB_RETRY__UNSET,
	KB_RETRY_NO,
	KB_RETRY_YES, /* needs a flag and a JSON key */
};

/* Where a value came from: the origin and what the user typed or which
 * file:line said it. */
struct kb_src {
	int origin;        /* enum kb_origin (policy.h) */
	const char *where; /* "--net", "/home/u/.config/kinbox/config.ini:3" */
};

struct kb_option {
	enum kb_opt id;
	const char *flag;    /* long flag without "--"; NULL: config only */
	char shortopt;       /* 'w', or 0 */
	const char *negflag; /* "no-net": a switch's off flag, or NULL */
	const char *metavar; /* "DIR": the flag takes a value; NULL: none */
	unsigned sections;   /* KB_IN_* */
	const char *key;     /* INI key, NULL when none */
	const char *json;    /* JSON key in records and grants, or NULL */
	enum kb_lifetime max_life; /* widest grant; KB_LIFE_NEVER: none */
	enum kb_project_rule project;
	enum kb_opt_type type;
	int (*set)(struct kb_policy *, const struct kb_option *,
	    const char *value, const struct kb_src *, struct kb_err *);
	enum kb_complete complete; /* what the completions offer */
	enum kb_json_enc json_enc; /* how records write the value */
	size_t field, count; /* offsetof(struct kb_policy, ...) of the value
				and, for an array, of its length; 0 unused */
	enum kb_retry retry; /* kinpolicy retry passes it again */
	const char *help;    /* --help text; '\n' starts a continuation line */
	const char *neghelp; /* --help text of negflag */
};

extern const struct kb_option kb_options[KB_OPT__N];

/* The member of struct kb_policy that holds row r's value (its field
 * column), as a pointer to `type`: kb_option_field(p, r, bool) */
#define kb_option_field(p, r, type)                                            \
	((const type *)(const void *)((const char *)(p) + (r)->field))
#define kb_option_count(p, r)                                                  \
	(*(const size_t *)(const void *)((const char *)(p) + (r)->count))

const struct kb_option *kb_option_by_flag(const char *longflag);
const struct kb_option *kb_option_by_key(const char *key);

/* Parses an INI on/off value (on, off, true, false, yes, no, 1, 0). */
int kb_parse_onoff(const char *v, bool *out);

/*
 * The run's mode (--read-only, [sandbox] mode =): a flag's "on" or "off",
 * or a file's "read-only" or "workspace-write" (the default). 0 with
 * *read_only set, or -1 for any other word.
 */
int kb_run_mode_parse(const char *v, bool from_flag, bool *read_only);

/* "read-only" or "workspace-write": the mode's name, as a file and the
 * JSON record write it */
const char *kb_run_mode_name(bool read_only);

/* The value's form (on/off, an absolute config path, a variable name, a
 * backend, a cache mode), judged without I/O: kb_option_set() calls it
 * first; a grant for another workspace is judged by it alone. 0, or -1
 * with one line in `e` that names `where`. */
int kb_option_check(
    enum kb_opt, const char *value, const struct kb_src *, struct kb_err *);

/*
 * Sets a knob from any source: `value` is the flag's argument, "on" or
 * "off" for a switch, or the INI value. Records the origin and `where`.
 * 0, or -1 with one line in `e` that names `where`.
 */
int kb_option_set(struct kb_policy *, enum kb_opt, const char *value,
    const struct kb_src *, struct kb_err *);

/*
 * After every source: the combinations that cannot hold, judged once,
 * each message naming what the user typed or the file:line that said it.
 * A grant that the user's own flag or the project file made moot is
 * dropped with a note (p->notes), not an error: a grant permits, it does
 * not demand. 0, or -1 with `e`.
 */
int kb_options_validate(struct kb_policy *, struct kb_err *);

/* kinbox --help's option list, from the table (the caller frees). */
char *kb_options_help(void);

#endif
