/*
 * lib/fsat.h — descriptor-based file access for paths the command may
 * have written. After the first run every byte under a writable root is the
 * command's: kinbox reads and changes such paths only relative to a
 * directory descriptor it verified, never through a symlink, a "..", a
 * magic link or a FIFO, and only up to a size bound.
 */
#ifndef KB_FSAT_H
#define KB_FSAT_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * Opens `rel` below the directory `dirfd` without following any symlink and
 * without leaving the tree (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
 * RESOLVE_NO_MAGICLINKS; per-component O_NOFOLLOW where openat2 is missing).
 * "." opens dirfd itself. `flags` gets O_CLOEXEC | O_NOCTTY added, and
 * O_NONBLOCK unless it is an O_PATH open. -1 with errno on failure (ELOOP
 * for a symlink on the way, EXDEV for an escape).
 */
int kb_openat_beneath(int dirfd, const char *rel, int flags);

/* An absolute canonical path opened as O_PATH | O_DIRECTORY, every
 * component without following symlinks. -1 with errno. */
int kb_open_dir_nofollow(const char *abs);

/*
 * The parent directory of `rel` (below dirfd, as kb_openat_beneath) as an
 * O_PATH | O_DIRECTORY descriptor; *base points into `rel` at its last
 * component. -1 with errno; EINVAL when rel has no last component.
 */
int kb_open_parent_beneath(int dirfd, const char *rel, const char **base);

/* The directory `rel` below dirfd (as kb_openat_beneath), for readdir();
 * NULL with errno. dirfd(3) of it is an O_RDONLY descriptor of it. */
DIR *kb_opendir_beneath(int dirfd, const char *rel);

/* kb_openat_beneath(O_RDONLY) + kb_read_fd: a small regular file below
 * dirfd. NULL with errno (ELOOP for a symlink, EINVAL for a FIFO...). */
char *kb_read_beneath(int dirfd, const char *rel, size_t max);

/* The path the kernel has for `fd` now (readlink of /proc/self/fd/N), for
 * messages: the real place kinbox acted on. A new string, never NULL. */
char *kb_fd_path(int fd);

/* The path of `name` in the directory `dirfd`, as kb_fd_path. */
char *kb_fd_path_at(int dirfd, const char *name);

/*
 * Lexically joins `base` (a path relative to a root, "." for the root) and
 * a relative `rel` with "." and ".." resolved; NULL when the result would
 * leave the root or `rel` is absolute. A new string.
 */
char *kb_rel_join(const char *base, const char *rel);

/* Renames dirfd/name to dirfd/name.kinbox-quarantine.<pid>, never over an
 * existing entry. Returns the new name (a new string) or NULL. */
char *kb_quarantine_at(int dirfd, const char *name);

/*
 * Removes everything below the directory `dirfd` (an O_PATH descriptor
 * will do), the directory itself left: never through a symlink (one is
 * removed, not followed), directories the command made unwritable made
 * writable first, at any depth (a directory 128 levels down is renamed to
 * the top and taken in a later pass). For a tree nothing runs in any
 * more. 0, or -1 with errno for the first thing that could not go.
 */
int kb_remove_tree_at(int dirfd);

/*
 * kb_quarantine_at, and when that name is taken (or too long) a free one
 * of name.kinbox-quarantine.<pid>.<random>, then
 * kinbox-quarantine.<pid>.<random>: a command that planted the first name
 * (it can guess the pid, not the random part) cannot keep its file in
 * place. Never over an existing entry. The new name (a new string) or
 * NULL with errno.
 */
char *kb_quarantine_any_at(int dirfd, const char *name);

/* 64 random bits (getrandom; a clock mix where it fails), for names a
 * command must not be able to plant in advance. */
unsigned long long kb_random_u64(void);

/*
 * chmod of what `fd` refers to, also for an O_PATH descriptor (through
 * /proc/self/fd, which names that very inode, never a path): for changing
 * the mode of something opened with O_PATH | O_NOFOLLOW without opening
 * it for reading (a FIFO, a directory or file of mode 0). Refuses a
 * symlink (EOPNOTSUPP). 0, or -1 with errno.
 */
int kb_chmod_fd(int fd, mode_t mode);

#endif
