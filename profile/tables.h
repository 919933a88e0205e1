/*
 * profile/tables.h — the policy's data: secret environment names,
 * credential stores, host sockets. Data only (profile/tables.c); the code
 * that reads it lives in env.c and masks.c.
 */
#ifndef KB_TABLES_H
#define KB_TABLES_H

#include <stddef.h>

enum kb_match {
	KB_MATCH_EXACT,  /* the whole name */
	KB_MATCH_PREFIX, /* name starts with it */
	KB_MATCH_SUFFIX, /* name ends with it (MY_SERVICE_TOKEN) */
};

struct kb_env_pattern {
	const char
	    *text; /* upper case; names are compared case-insensitively */
	enum kb_match match;
};

/* Names removed from every command's environment, sandboxed or not. */
extern const struct kb_env_pattern kb_secret_env_table[];
extern const size_t kb_secret_env_count;
/* Names that match the table but carry no secret (CI metadata). */
extern const char *const kb_secret_env_allow[];
extern const size_t kb_secret_env_allow_count;
/*
 * Name endings that say what a variable holds when it is no secret: a
 * region, a profile's name, the path of CA certificates (AWS_REGION,
 * AWS_PROFILE, AWS_CA_BUNDLE). A name the table matches is kept when it
 * ends in one of them and holds none of kb_secret_env_words anywhere
 * (AWS_SESSION_TOKEN_REGION is still a secret). Compared without regard
 * to case, like the table.
 */
extern const char *const kb_env_benign_suffix[];
extern const size_t kb_env_benign_suffix_count;
extern const char *const kb_secret_env_words[];
extern const size_t kb_secret_env_words_count;

/* Credential stores, relative to the home directory: hidden by default
 * (a directory appears empty, a file appears empty). */
extern const char *const kb_credential_table[];
extern const size_t kb_credential_count;

/*
 * macOS's credential and browser stores, relative to the home directory.
 * The seatbelt backend denies reading and writing each, whether it exists
 * yet or not (a rule on a path costs nothing; a browser first started
 * during the run is covered). The first, ~/Library/Keychains, is shown
 * again by --keychain (keychain = on), with securityd.
 */
extern const char *const kb_macos_store_table[];
extern const size_t kb_macos_store_count;
#define KB_MACOS_KEYCHAINS 0 /* kb_macos_store_table[0] */

/*
 * Host socket locations: connect() ignores read-only mounts, so these are
 * hidden. `home` entries are relative to the home directory. Whole trees
 * (/run) are replaced by an empty directory.
 */
struct kb_socket_path {
	const char *path;
	int home; /* 1: relative to $HOME */
};
extern const struct kb_socket_path kb_socket_table[];
extern const size_t kb_socket_count;

/*
 * Variables that name a socket or a credential file: whatever they point
 * at is masked too (the variable itself may be scrubbed, but the path can
 * be guessed). `after` is the text that precedes the path in the value
 * ("unix://", "path=", "FILE:"), NULL when the value is the path.
 */
struct kb_env_path {
	const char *name;
	const char *after;
};
extern const struct kb_env_path kb_env_path_table[];
extern const size_t kb_env_path_count;

/* Public SSH client files re-exposed (read-only) by --ssh-agent, as
 * fnmatch(3) patterns on names in ~/.ssh. */
extern const char *const kb_ssh_public_table[];
extern const size_t kb_ssh_public_count;

/* Toolchain caches, relative to the home directory ([caches] NAME =
 * ephemeral | empty | off | persisted; ephemeral by default). `fallback`
 * (KB_CACHE_EMPTY or KB_CACHE_OFF) is what an ephemeral cache gets where
 * the kernel cannot overlay it, `why` says why that one. */
struct kb_cache {
	const char *name;
	const char *path[2]; /* the second may be NULL */
	int fallback;        /* enum kb_cache_mode */
	const char *why;
};
extern const struct kb_cache kb_cache_table[];
extern const size_t kb_cache_count;

/* Set for the command when the network is off and the caller has not set
 * them: tools that would otherwise reach for the network on their own
 * (an implicit sync, a retried fetch) and hang or die on the missing
 * resolver use what is already there instead. */
struct kb_offline_env {
	const char *name, *value, *tool;
};
extern const struct kb_offline_env kb_offline_env_table[];
extern const size_t kb_offline_env_count;

#endif
