/*
 * lib/fsat.c — descriptor-based file access below a verified directory
 * (see fsat.h). openat2(2) does the work where the kernel has it (5.6+);
 * elsewhere each component is opened with O_NOFOLLOW from the one before,
 * refusing ".." and absolute paths, which gives the same guarantees.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "util.h"
#include "fsat.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

static int
openat2_walk(int dirfd, const char *rel, int flags)
{
	_cleanup_free_ char *copy = xstrdup(rel);
	char *comp, *save = NULL, *next;
	int cur = -1, fd;

	comp = strtok_r(copy, "/", &save);
	if (comp == NULL)
		return openat(dirfd, ".", flags);
	for (;;) {
		next = strtok_r(NULL, "/", &save);
		if (strcmp(comp, "..") == 0) {
			if (cur != -1)
				close(cur);
			errno = EXDEV;
			return -1;
		}
		if (strcmp(comp, ".") == 0 && next != NULL) {
			comp = next;
			continue;
		}
		fd = openat(cur == -1 ? dirfd : cur, comp,
		    next == NULL
			? flags | O_NOFOLLOW
			: O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1 && errno == ENOTDIR) {
			/* as openat2 says it: a symlink on the way */
			struct stat st;

			if (fstatat(cur == -1 ? dirfd : cur, comp, &st,
				AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode))
				errno = ELOOP;
			else
				errno = ENOTDIR;
		}
		if (cur != -1) {
			int errsv = errno;

			close(cur);
			errno = errsv;
		}
		if (fd == -1)
			return -1;
		if (next == NULL)
			return fd;
		cur = fd;
		comp = next;
	}
}

int
kb_openat_beneath(int dirfd, const char *rel, int flags)
{
	static bool no_openat2;
	struct open_how how = {0};
	long fd;

	flags |= O_CLOEXEC | O_NOCTTY;
	if (!(flags & O_PATH))
		flags |= O_NONBLOCK;
	else
		flags &= O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW;
	if (rel[0] == '/') {
		errno = EXDEV;
		return -1;
	}
	if (!no_openat2) {
		how.flags = (unsigned long long)flags;
		how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			      RESOLVE_NO_MAGICLINKS;
		do
			fd = syscall(SYS_openat2, dirfd, rel[0] ? rel : ".",
			    &how, sizeof(how));
		while (fd == -1 && errno == EAGAIN);
		if (fd != -1 || errno != ENOSYS)
			return (int)fd;
		no_openat2 = true;
	}
	return openat2_walk(dirfd, rel, flags);
}

int
kb_open_dir_nofollow(const char *abs)
{
	int root;
	int fd;

	if (abs[0] != '/') {
		errno = EINVAL;
		return -1;
	}
	root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root == -1)
		return -1;
	fd = kb_openat_beneath(
	    root, abs[1] ? abs + 1 : ".", O_PATH | O_DIRECTORY);
	close(root);
	return fd;
}

int
kb_open_parent_beneath(int dirfd, const char *rel, const char **base)
{
	const char *slash = strrchr(rel, '/');
	_cleanup_free_ char *dir = NULL;

	if (slash == NULL) {
		*base = rel;
		if (*rel == '\0' || strcmp(rel, ".") == 0 ||
		    strcmp(rel, "..") == 0) {
			errno = EINVAL;
			return -1;
		}
		return fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
	}
	*base = slash + 1;
	if (**base == '\0' || strcmp(*base, ".") == 0 ||
	    strcmp(*base, "..") == 0) {
		errno = EINVAL;
		return -1;
	}
	dir = strndup(rel, (size_t)(slash - rel));
	if (dir == NULL)
		die("out of memory");
	return kb_openat_beneath(
	    dirfd, dir[0] ? dir : ".", O_PATH | O_DIRECTORY);
}

DIR *
kb_opendir_beneath(int dirfd, const char *rel)
{
	int fd = kb_openat_beneath(dirfd, rel, O_RDONLY | O_DIRECTORY);
	DIR *d;

	if (fd == -1)
		return NULL;
	if ((d = fdopendir(fd)) == NULL)
		close(fd);
	return d;
}

char *
kb_read_beneath(int dirfd, const char *rel, size_t max)
{
	return kb_read_fd_close(kb_openat_beneath(dirfd, rel, O_RDONLY), max);
}

char *
kb_fd_path(int fd)
{
	char link[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n <= 0)
		return xstrdup("(unknown path)");
	buf[n] = '\0';
	return xstrdup(buf);
}

char *
kb_fd_path_at(int dirfd, const char *name)
{
	_cleanup_free_ char *dir = kb_fd_path(dirfd);

	return strcmp(dir, "/") == 0 ? xasprintf("/%s", name)
				     : xasprintf("%s/%s", dir, name);
}

char *
kb_rel_join(const char *base, const char *rel)
{
	struct kb_strv parts = {0};
	struct kb_buf out = {0};
	_cleanup_free_ char *joined = NULL;
	char *comp, *save = NULL;
	char *r = NULL;

	if (rel[0] == '/')
		return NULL;
	joined = xasprintf("%s/%s", base, rel);
	for (comp = strtok_r(joined, "/", &save); comp != NULL;
	     comp = strtok_r(NULL, "/", &save)) {
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			if (parts.n == 0)
				goto out; /* above the root */
			free(parts.v[--parts.n]);
			parts.v[parts.n] = NULL;
			continue;
		}
		kb_strv_push(&parts, comp);
	}
	for (size_t i = 0; i < parts.n; i++) {
		if (i > 0)
			kb_buf_add(&out, "/", 1);
		kb_buf_puts(&out, parts.v[i]);
	}
	r = parts.n == 0 ? xstrdup(".") : steal_pointer(&out.s);
out:
	kb_buf_free(&out);
	kb_strv_free(&parts);
	return r;
}

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

char *
kb_quarantine_at(int dirfd, const char *name)
{
	char *to = xasprintf("%s.kinbox-quarantine.%ld", name, (long)getpid());

	if (syscall(SYS_renameat2, dirfd, name, dirfd, to, RENAME_NOREPLACE) ==
	    -1) {
		free(to);
		return NULL;
	}
	return to;
}

#define RM_DEPTH 128

/*
 * One pass: removes what it can below `dirfd`; a directory found at depth
 * RM_DEPTH is renamed to the top (`top`, under a fresh name) instead of
 * entered, and counted in *moved, so that the next pass takes it from
 * there: no tree is too deep, and no more than RM_DEPTH descriptors are
 * open at once.
 */
static int
remove_below(int dirfd, int depth, int top, unsigned *moved)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = 0, errsv = 0;
	DIR *d;
	struct dirent *de;

	if (fd == -1)
		return -1;
	/* what the command made unwritable (chmod 0500) still goes */
	(void)fchmod(fd, 0700);
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		int sub;

		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		if (!S_ISDIR(st.st_mode)) {
			if (unlinkat(fd, de->d_name, 0) == -1 && rc == 0) {
				rc = -1;
				errsv = errno;
			}
			continue;
		}
		if (depth >= RM_DEPTH) {
			char name[64];

			snprintf(name, sizeof(name), "kinbox-deep.%016llx",
			    kb_random_u64());
			if (renameat(fd, de->d_name, top, name) == 0)
				(*moved)++;
			else if (rc == 0) {
				rc = -1;
				errsv = errno;
			}
			continue;
		}
		/* a directory (nothing runs that could swap it now) the
		 * command made unreadable: opened after a chmod */
		if ((st.st_mode & 0700) != 0700 &&
		    fchmodat(fd, de->d_name, 0700, 0) == -1)
			(void)0; /* opening it then says why */
		sub = openat(fd, de->d_name,
		    O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub == -1) {
			if (rc == 0) {
				rc = -1;
				errsv = errno;
			}
			continue;
		}
		if (remove_below(sub, depth + 1, top, moved) == -1 && rc == 0) {
			rc = -1;
			errsv = errno;
		}
		close(sub);
		if (unlinkat(fd, de->d_name, AT_REMOVEDIR) == -1 && rc == 0 &&
		    errno != ENOTEMPTY) {
			rc = -1;
			errsv = errno;
		}
	}
	closedir(d);
	errno = errsv;
	return rc;
}

int
kb_remove_tree_at(int dirfd)
{
	for (;;) {
		unsigned moved = 0;
		int rc = remove_below(dirfd, 0, dirfd, &moved);

		/* what was moved up is taken in the next pass; a pass that
		 * moved nothing is the last */
		if (moved == 0)
			return rc;
	}
}

unsigned long long
kb_random_u64(void)
{
	static unsigned long long counter;
	unsigned long long r;
	struct timespec ts;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
		return r;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((unsigned long long)ts.tv_nsec << 20) ^
	       (unsigned long long)ts.tv_sec ^ (++counter << 40) ^
	       (unsigned long long)getpid();
}

char *
kb_quarantine_any_at(int dirfd, const char *name)
{
	char *to = kb_quarantine_at(dirfd, name);
	bool shortname = false;

	/* taken: a random suffix, which a command that is gone cannot have
	 * planted in advance (the pid it could guess) */
	for (unsigned n = 0; to == NULL && n < 16; n++) {
		int errsv = errno;

		if (errsv == ENAMETOOLONG)
			shortname = true;
		else if (errsv != EEXIST && errsv != ENOTEMPTY)
			return NULL;
		to = shortname ? xasprintf("kinbox-quarantine.%ld.%016llx",
				     (long)getpid(), kb_random_u64())
			       : xasprintf("%s.kinbox-quarantine.%ld.%016llx",
				     name, (long)getpid(), kb_random_u64());
		if (syscall(SYS_renameat2, dirfd, name, dirfd, to,
			RENAME_NOREPLACE) == -1) {
			errsv = errno;
			free(to);
			to = NULL;
			errno = errsv;
		}
	}
	return to;
}

int
kb_chmod_fd(int fd, mode_t mode)
{
	char proc[64];
	struct stat st;

	if (fstat(fd, &st) == -1)
		return -1;
	if (S_ISLNK(st.st_mode)) {
		errno = EOPNOTSUPP;
		return -1;
	}
	if (fchmod(fd, mode) == 0)
		return 0;
	if (errno != EBADF)
		return -1;
	/* an O_PATH descriptor: its magic link is the inode itself */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return chmod(proc, mode);
}
