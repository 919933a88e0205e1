/*
 * tests/helpers/kb-no-procwrite.c — a test helper:
 * kb-no-procwrite -- CMD [ARG...]
 *
 * Runs CMD where nothing under /proc can be written, while the rest of the
 * filesystem stays as writable as file permissions make it. bubblewrap
 * started below it creates its user namespace but cannot write the new
 * namespace's /proc/self/uid_map and stops with exactly the line Ubuntu
 * 24.04 prints under kernel.apparmor_restrict_unprivileged_userns=1, where
 * an unprivileged, unconfined process may create a user namespace but is
 * confined in it by AppArmor's unprivileged_userns profile:
 *
 *   bwrap: setting up uid map: Permission denied
 *
 * No privilege or host setting is needed: this is what lets kinbox's
 * fallback from bwrap to its Landlock backend (--backend auto) be tested
 * for real, and kinbox's explanation of that failure, on a machine where
 * bwrap works.
 *
 * How: a Landlock domain (raw syscalls; the structures are defined here,
 * as the installed <linux/landlock.h> may predate the running kernel) that
 * handles the filesystem write rights only: WRITE_FILE, REMOVE_DIR,
 * REMOVE_FILE, the MAKE_* rights, REFER (ABI >= 2) and TRUNCATE (ABI >= 3).
 * Read rights (EXECUTE, READ_FILE, READ_DIR) are not handled, so reading
 * and running stay as they were; IOCTL_DEV (ABI 5) is not a write right
 * and is not handled either; nor is the network (ABI 4) or any scope
 * (ABI 6). All the handled rights are then granted beneath every entry of
 * / except /proc, one rule per entry through an O_PATH descriptor:
 *
 *   - a directory (/tmp, /home, /var, /dev, /sys, ...) gets all of them;
 *     granting REFER too keeps renames and hard links between directories
 *     working (every tree is granted the same rights, so a rename from
 *     /var/tmp to /home is allowed as well, where one filesystem holds
 *     both; under ABI 1, which has no REFER, such renames fail with
 *     EXDEV);
 *   - a regular file (or another non-directory) directly in / gets
 *     WRITE_FILE and TRUNCATE, the only handled rights a file can hold;
 *   - a symlink (/bin -> usr/bin) gets nothing: its target is granted (or
 *     not) through the entry it resolves to, and a top-level symlink into
 *     /proc must not open /proc.
 *
 * There is deliberately no rule on / itself: a Landlock rule covers the
 * whole hierarchy beneath its directory, /proc included, and no deeper
 * rule can take a right back (rules only add rights). So / is left
 * unwritable: creating, removing or renaming an entry directly in / fails
 * with EACCES even as root, and an entry made in / after the helper
 * started is not covered. An entry that is a procfs mount (whatever its
 * name) is skipped like /proc.
 *
 * The domain is inherited by every descendant, also across user namespaces
 * and execve(), and cannot be left. Inside it mount(2) is refused too (any
 * Landlock domain forbids changing the mount topology), which bwrap would
 * hit next; it never gets that far. PR_SET_NO_NEW_PRIVS is set first, as
 * landlock_restrict_self() needs it without CAP_SYS_ADMIN.
 *
 * Exit status: CMD's; 125 for a usage error or when the domain cannot be
 * set up (Landlock unavailable or disabled: one line on stderr, nothing
 * runs); 127 when CMD is not found, 126 when it cannot be executed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

#define KB_PROC_SUPER_MAGIC 0x9fa0

/* <linux/landlock.h>, ABI 1 to 7 */
struct kb_ruleset_attr {
	uint64_t handled_access_fs;
	/* handled_access_net (ABI 4) and scoped (ABI 6) are left out: the
	 * kernel takes a shorter structure as their being 0 */
};

struct kb_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

#define KB_CREATE_RULESET_VERSION (1U << 0)
#define KB_RULE_PATH_BENEATH      1

#define KB_FS_WRITE_FILE  (1ULL << 1)
#define KB_FS_REMOVE_DIR  (1ULL << 4)
#define KB_FS_REMOVE_FILE (1ULL << 5)
#define KB_FS_MAKE_CHAR   (1ULL << 6)
#define KB_FS_MAKE_DIR    (1ULL << 7)
#define KB_FS_MAKE_REG    (1ULL << 8)
#define KB_FS_MAKE_SOCK   (1ULL << 9)
#define KB_FS_MAKE_FIFO   (1ULL << 10)
#define KB_FS_MAKE_BLOCK  (1ULL << 11)
#define KB_FS_MAKE_SYM    (1ULL << 12)
#define KB_FS_REFER       (1ULL << 13) /* ABI 2 */
#define KB_FS_TRUNCATE    (1ULL << 14) /* ABI 3 */

#define KB_FS_WRITE_V1                                                         \
	(KB_FS_WRITE_FILE | KB_FS_REMOVE_DIR | KB_FS_REMOVE_FILE |             \
	    KB_FS_MAKE_CHAR | KB_FS_MAKE_DIR | KB_FS_MAKE_REG |                \
	    KB_FS_MAKE_SOCK | KB_FS_MAKE_FIFO | KB_FS_MAKE_BLOCK |             \
	    KB_FS_MAKE_SYM)
/* the handled rights a rule on a non-directory may hold */
#define KB_FS_FILE_RIGHTS (KB_FS_WRITE_FILE | KB_FS_TRUNCATE)

static int
fail(const char *what, int err)
{
	fprintf(stderr, "kb-no-procwrite: %s: %s\n", what, strerror(err));
	return 125;
}

/* grant HANDLED beneath each entry of / except /proc; 0, or 125 said */
static int
grant_top_level(int ruleset, uint64_t handled)
{
	DIR *root = opendir("/");
	struct dirent *de;
	char what[300];
	int rc = 0;

	if (root == NULL)
		return fail("opendir /", errno);
	while ((errno = 0, de = readdir(root)) != NULL) {
		struct kb_path_beneath_attr rule;
		struct statfs sfs;
		struct stat st;
		int fd;

		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    strcmp(de->d_name, "proc") == 0)
			continue;
		snprintf(what, sizeof(what), "a rule for /%s", de->d_name);
		fd = openat(
		    dirfd(root), de->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1 && errno == ENOENT)
			continue; /* gone meanwhile */
		if (fd == -1 || fstat(fd, &st) == -1 ||
		    fstatfs(fd, &sfs) == -1) {
			rc = fail(what, errno);
			if (fd != -1)
				close(fd);
			break;
		}
		if (S_ISLNK(st.st_mode) ||
		    sfs.f_type == (__typeof__(sfs.f_type))KB_PROC_SUPER_MAGIC) {
			close(fd);
			continue;
		}
		rule.allowed_access =
		    S_ISDIR(st.st_mode) ? handled : handled & KB_FS_FILE_RIGHTS;
		rule.parent_fd = fd;
		if (syscall(__NR_landlock_add_rule, ruleset,
			KB_RULE_PATH_BENEATH, &rule, 0) == -1) {
			rc = fail(what, errno);
			close(fd);
			break;
		}
		close(fd);
	}
	if (de == NULL && errno != 0 && rc == 0)
		rc = fail("readdir /", errno);
	closedir(root);
	return rc;
}

int
main(int argc, char *argv[])
{
	struct kb_ruleset_attr attr = {0};
	long abi;
	int ruleset, err;

	if (argc < 3 || strcmp(argv[1], "--") != 0) {
		fprintf(stderr, "usage: kb-no-procwrite -- CMD [ARG...]\n");
		return 125;
	}
	abi = syscall(
	    __NR_landlock_create_ruleset, NULL, 0, KB_CREATE_RULESET_VERSION);
	if (abi < 1)
		return fail("Landlock is not available", errno);
	attr.handled_access_fs = KB_FS_WRITE_V1;
	if (abi >= 2)
		attr.handled_access_fs |= KB_FS_REFER;
	if (abi >= 3)
		attr.handled_access_fs |= KB_FS_TRUNCATE;
	ruleset =
	    (int)syscall(__NR_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (ruleset == -1)
		return fail("landlock_create_ruleset", errno);
	if (grant_top_level(ruleset, attr.handled_access_fs) != 0)
		return 125;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		return fail("PR_SET_NO_NEW_PRIVS", errno);
	if (syscall(__NR_landlock_restrict_self, ruleset, 0) == -1)
		return fail("landlock_restrict_self", errno);
	close(ruleset);
	execvp(argv[2], argv + 2);
	err = errno;
	fprintf(stderr, "kb-no-procwrite: %s: %s\n", argv[2], strerror(err));
	return err == ENOENT ? 127 : 126;
}
