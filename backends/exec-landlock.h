/*
 * backends/exec-landlock.h — the Landlock rulesets kinbox-exec applies
 * inside: the read ruleset that keeps masked credentials unreadable under
 * bubblewrap, and the whole domain of the landlock backend. libc only (it is
 * linked into the static kinbox-exec); the ABI is spelled out because
 * Debian 12's kernel headers predate most of it.
 */
#ifndef KB_EXEC_LANDLOCK_H
#define KB_EXEC_LANDLOCK_H

#include <stdbool.h>

#define KB_LL_FS_EXECUTE                 (1ULL << 0)
#define KB_LL_FS_WRITE_FILE              (1ULL << 1)
#define KB_LL_FS_READ_FILE               (1ULL << 2)
#define KB_LL_FS_READ_DIR                (1ULL << 3)
#define KB_LL_FS_REMOVE_DIR              (1ULL << 4)
#define KB_LL_FS_REMOVE_FILE             (1ULL << 5)
#define KB_LL_FS_MAKE_CHAR               (1ULL << 6)
#define KB_LL_FS_MAKE_DIR                (1ULL << 7)
#define KB_LL_FS_MAKE_REG                (1ULL << 8)
#define KB_LL_FS_MAKE_SOCK               (1ULL << 9)
#define KB_LL_FS_MAKE_FIFO               (1ULL << 10)
#define KB_LL_FS_MAKE_BLOCK              (1ULL << 11)
#define KB_LL_FS_MAKE_SYM                (1ULL << 12)
#define KB_LL_FS_REFER                   (1ULL << 13) /* ABI 2 */
#define KB_LL_FS_TRUNCATE                (1ULL << 14) /* ABI 3 */
#define KB_LL_FS_IOCTL_DEV               (1ULL << 15) /* ABI 5 */
#define KB_LL_NET_BIND_TCP               (1ULL << 0)  /* ABI 4 */
#define KB_LL_NET_CONNECT_TCP            (1ULL << 1)
#define KB_LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define KB_LL_SCOPE_SIGNAL               (1ULL << 1)

/* what reading is: listing, reading and executing */
#define KB_LL_FS_READ                                                          \
	(KB_LL_FS_EXECUTE | KB_LL_FS_READ_FILE | KB_LL_FS_READ_DIR)
/* the rights a rule on a file (not a directory) may carry */
#define KB_LL_FS_FILE                                                          \
	(KB_LL_FS_EXECUTE | KB_LL_FS_WRITE_FILE | KB_LL_FS_READ_FILE |         \
	    KB_LL_FS_TRUNCATE | KB_LL_FS_IOCTL_DEV)

/* The filesystem rights Landlock ABI `abi` knows, all of them. */
unsigned long long kb_ll_fs_rights(int abi);

/*
 * A ruleset under construction. `read` is the set of read rights the
 * ruleset handles (0: reading is left alone): the read rules for masked
 * paths grant it, or only READ_FILE for the bubblewrap backend, which
 * hides directories with its mounts.
 */
struct kb_ll {
	int fd;
	unsigned long long handled; /* filesystem rights handled */
	unsigned long long read;    /* what a read rule grants */
	unsigned count;             /* rules added */
	/* the masked paths get a read rule too: under bubblewrap they are
	 * the empty files and directories of its mounts (and read as
	 * empty); under the landlock backend they are the real ones */
	bool masks_readable;
};

/* Creates the ruleset: -1 with errno. */
int kb_ll_create(struct kb_ll *, unsigned long long fs, unsigned long long net,
    unsigned long long scoped);

/* A rule granting `access` (masked to what is handled, and to the file
 * rights when `fd` is not a directory) beneath `fd`. -1 with errno. */
int kb_ll_allow_fd(struct kb_ll *, int fd, unsigned long long access);

/* The same on `path`, opened without following a symlink on the way; a
 * missing path is no error (nothing to allow) unless `must` is set. */
int kb_ll_allow_path(
    struct kb_ll *, const char *path, unsigned long long access, bool must);

/*
 * The read rules that keep every `deny` path unreadable: reading is
 * granted beneath every entry of every directory on the way to a masked
 * path except the next step on that way, and on those directories
 * themselves as listing only (READ_DIR) when `read` holds it. `late`
 * directories (kinbox overlays them after the go) are handled in the
 * `second` pass. -1 with errno.
 */
int kb_ll_read_rules(struct kb_ll *, char **deny, int ndeny, char **late,
    int nlate, bool second);

/* `path` opened O_PATH with no symlink on the way, component by
 * component, never through ".." (the bubblewrap backend's seccomp filter
 * refuses openat2). -1 with errno. */
int kb_ll_open_nofollow(const char *path);

/* Enforces the ruleset on the calling thread (and closes it). */
int kb_ll_restrict(struct kb_ll *);

#endif
