/*
 * gitguard/snap-int.h — the snapshot's insides, shared by snap.c (taking
 * it, putting it back) and snapstore.c (keeping it on disk for a run that
 * dies before its restore). Not for use outside gitguard/.
 */
#ifndef KB_SNAP_INT_H
#define KB_SNAP_INT_H

#include <stdbool.h>
#include <sys/types.h>

#include "gitguard.h"

#define FILE_MAX   (1u << 20)  /* bytes of one file */
#define TOTAL_MAX  (64u << 20) /* bytes of a snapshot */
#define DIR_MAX    4096        /* entries of one directory */
#define NODES_MAX  16384       /* entries of a snapshot */
#define DEPTH_MAX  8           /* levels below a guarded directory */
#define COMP_MAX   64          /* components of a guard's path */
#define SEARCH_MAX 4096        /* entries looked at for a git dir moved aside */
#define EXTRA_MAX  4096 /* entries past the snapshot's in a restored dir */

typedef void (*report_fn)(const char *, bool);

/* One entry as it was: a guard's file or directory, or an entry below. */
struct node {
	char *name; /* the entry's name in its directory (NULL at the top) */
	mode_t mode;
	dev_t dev, rdev; /* dev/ino: only this inode is ever changed in */
	ino_t ino;       /* place (chmod); any other is replaced */
	char *data;      /* a file's bytes, a symlink's target */
	size_t len;
	struct node *kids; /* a directory's entries, sorted by name */
	size_t nkids;
};

enum verdict {
	V_NONE,    /* not restored (yet) */
	V_JUDGED,  /* restored, or reported and left alone */
	V_NEWREPO, /* a pinned git dir that could not be put back: the
		      directory that took its name is the command's */
};

struct sguard {
	size_t gi; /* its index in the policy's guards */
	enum kb_guard_kind kind;
	size_t root; /* index in kb_gitsnap.roots */
	char *rel;   /* the guard's rel, to check it is the same guard */
	char *buf;   /* a copy of rel, split into comps */
	char *comps[COMP_MAX];
	unsigned ncomp;
	dev_t dev; /* PIN, RO: the scanned identity */
	ino_t ino;
	mode_t mode;      /* PIN: the git dir's mode */
	struct node node; /* RO */
	unsigned existed; /* RO_ABSENT_*: leading components that existed */
	size_t *pins;     /* PIN guards (indices in kb_gitsnap.g) on the */
	unsigned *pindep; /* path, outermost first; their ncomp */
	size_t npins;
	enum verdict verdict;
	bool failed;  /* PIN: not put back, nothing below touched */
	char *path;   /* the guard's path, for the report lines */
	bool include; /* PIN: a directory on an include's way */
	dev_t ndev;   /* V_NEWREPO: what took the git dir's name */
	ino_t nino;
};

struct kb_gitsnap {
	struct sguard *g;
	size_t n;
	size_t nguard; /* the policy's, to check it is the same one */
	const char *roots[KB_MAX_ROOTS];
	char *own_roots[KB_MAX_ROOTS]; /* a loaded snapshot's (snapstore.c) */
	dev_t rdev[KB_MAX_ROOTS];
	ino_t rino[KB_MAX_ROOTS];
	size_t nroots;
	size_t bytes, nodes;
};

/* rel split into sg->comps (sg->rel and sg->buf new copies); -1 for
 * ".", ".." or an empty path */
int kb_snap_split_rel(struct sguard *sg, const char *rel);

/* Fills each guard's pins: the pinned git dirs on its path. */
void kb_snap_link_pins(struct kb_gitsnap *s);

/*
 * Puts the guards back from the roots' descriptors fds[] (-1: that root
 * could not be opened, said already). With `p` each guard is checked to
 * be the policy's (a run's own snapshot); NULL for one read from disk.
 * Returns the number of findings.
 */
int kb_snap_restore_fds(struct kb_gitsnap *s, const int *fds,
    const struct kb_policy *p, report_fn report);

#endif
