/*
 * gitguard/include.h — the config files git reads because a config names
 * them (include.path, includeIf.*.path), found where the kernel will find
 * them when git opens them later; for the scan (scan.c), which guards
 * what this finds.
 */
#ifndef KB_GITINCLUDE_H
#define KB_GITINCLUDE_H

#include <sys/stat.h>

#include "gitguard.h"

#define KB_INC_DEPTH_MAX 10          /* git's MAX_INCLUDE_DEPTH */
#define KB_INC_FILES_MAX 256         /* config files read by one walk */
#define KB_INC_PATHS_MAX 4096        /* include paths looked at by one walk */
#define KB_INC_FILE_MAX  (16u << 20) /* bytes of a config file read */

/* What the scan is asked to guard, below a writable root. */
enum kb_inc_kind {
	KB_INC_PIN,         /* a directory on the way: not renamed, removed */
	KB_INC_FILE,        /* a file git reads (or that stands in the way
			       of one): read-only */
	KB_INC_ABSENT_FILE, /* the file does not exist: kept uncreatable */
	KB_INC_ABSENT_DIR,  /* a missing directory on the way: kept
			       uncreatable, and all below it */
};

/*
 * Guards `rel` below the writable root `root` (one of kb_policy_roots()'s
 * strings, opened as `rootfd`) as `kind`; fills *st with what was guarded
 * (st_dev, st_ino, and the type in st_mode: 0 when absent). 0, or -1 when
 * it could not be guarded.
 */
typedef int (*kb_inc_guard_fn)(void *ctx, const char *root, int rootfd,
    const char *rel, enum kb_inc_kind kind, struct stat *st);

struct kb_inc {
	const struct kb_policy *p;
	kb_inc_guard_fn guard;
	void *ctx;
	const char *roots[KB_MAX_ROOTS]; /* the policy's */
	int rootfd[KB_MAX_ROOTS];        /* opened when first needed */
	size_t nroots;
	unsigned files, paths;     /* read, looked at: the bounds above */
	struct kb_strv hookspaths; /* core.hooksPath of every file read */
	char *unsafe; /* the first config file git would read that cannot be
			 guarded: one line, for kb_err; NULL when none */
};

void kb_inc_init(
    struct kb_inc *, const struct kb_policy *, kb_inc_guard_fn, void *ctx);
void kb_inc_free(struct kb_inc *);

/*
 * The includes of the config file git names `name` (an absolute path: a
 * relative include is taken from its directory) whose bytes are
 * text[0..len) (taken, and freed): each file they lead to, at any depth,
 * is guarded where it lies in a writable root, with every directory on its
 * way, and read for its own includes. The core.hooksPath values of all of
 * them go to inc->hookspaths.
 */
void kb_inc_follow(struct kb_inc *, const char *name, char *text, size_t len);

/*
 * The config file git names `name`, read from where `path` leads (name
 * itself, or the target of a symlink git follows at name): guarded as
 * above where it lies in a writable root, then kb_inc_follow(). For the
 * system and global configs, and a repository config that is a symlink.
 */
void kb_inc_config(struct kb_inc *, const char *name, const char *path);

#endif
