/*
 * kinbox-exec — the last link of the chain, run by bubblewrap inside the
 * sandbox: kinbox-exec STATUS_FD STDERR_FD -- COMMAND [ARG...]
 *
 * kinbox starts bwrap with SIGINT, SIGQUIT, SIGTERM and SIGHUP ignored, so
 * that a Ctrl-C meant for the command does not kill bwrap's monitor (which
 * would SIGKILL the whole sandbox). Ignored signals survive exec, so this
 * helper restores the defaults before the command starts. It also puts the
 * caller's real stderr back on fd 2 (bwrap's own fd 2 is a pipe kinbox reads
 * to explain setup failures) and tells kinbox through STATUS_FD that setup
 * is over ('S'), or why exec failed ('E' + errno: ENOENT when the command
 * was found nowhere, lib/execsearch.c).
 *
 * --scope-abstract puts the command in a Landlock domain that cannot
 * connect to abstract unix sockets created outside it (X11's
 * @/tmp/.X11-unix/X0 and others are reachable when the network namespace is
 * shared). It is applied here, after bwrap's mounts: a Landlock domain may
 * not change the mount topology. Failure to apply it is reported as 'F' and
 * nothing runs.
 *
 * Before the command starts it also:
 * --wait FD          after 'S', waits for kinbox's 'G' on FD: kinbox
 *                    mounts the ephemeral caches' overlays into this
 *                    sandbox from outside and arms its mount watch
 *                    meanwhile; anything else (EOF included) ends the run
 *                    before the command, with kinbox saying why;
 * --close-fds LO HI  closes the bind sources kinbox passed to bwrap as
 *                    descriptors (O_PATH descriptors of host directories:
 *                    openat() through one would bypass every mount);
 * --check PATH D:I   verifies that PATH, resolved without symlinks, is a
 *                    mount point (of device D, inode I unless both are 0):
 *                    a concurrent run that swapped a directory for a
 *                    symlink while bwrap mounted cannot have moved a guard
 *                    away from where it belongs ('M' + the index);
 * --late PATH        a directory kinbox overlays before the go: the
 *                    Landlock rules in it are added after the go, the
 *                    rest before (while kinbox mounts);
 * --deny-read PATH   keeps a masked credential unreadable even if the host
 *                    replaces it during the run (the kernel then drops the
 *                    mask's mount): a Landlock ruleset allows reading every
 *                    file that exists now except the masked ones, and rules
 *                    follow inodes, so a replacement has none.
 *
 * Built static and tiny: it is one extra exec on every start.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/stat.h>

#include "../lib/execsearch.h"

/* Debian 12's kernel headers predate Landlock scopes: the ABI is stable, so
 * the values are spelled out here. */
struct kb_ll_ruleset_attr {
	unsigned long long handled_access_fs;
	unsigned long long handled_access_net;
	unsigned long long scoped;
};
struct kb_ll_path_beneath {
	unsigned long long allowed_access;
	int parent_fd;
} __attribute__((packed));
#define KB_LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define KB_LL_ACCESS_FS_READ_FILE        (1ULL << 2)
#define KB_LL_ACCESS_FS_REFER            (1ULL << 13)
#define KB_LL_RULE_PATH_BENEATH          1
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule       445
#define SYS_landlock_restrict_self  446
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

#define MAX_DENY  256
#define MAX_RULES 100000

static void __attribute__((noreturn))
fail(int status_fd, char tag, int err, int code)
{
	char msg[1 + sizeof(int)];

	msg[0] = tag;
	memcpy(msg + 1, &err, sizeof(int));
	if (write(status_fd, msg, sizeof(msg)) != (ssize_t)sizeof(msg))
		_exit(125);
	_exit(code);
}

static int
fdarg(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < 3 || v > 1 << 20)
		_exit(125);
	return (int)v;
}

/* `path` opened O_PATH with no symlink on the way, component by component
 * (the seccomp filter in force here refuses openat2) */
static int
open_nofollow(const char *path)
{
	char comp[256];
	const char *p = path;
	int cur = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), next;

	while (cur != -1 && *p != '\0') {
		size_t n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 0)
			break;
		if (n >= sizeof(comp) ||
		    (n == 2 && p[0] == '.' && p[1] == '.')) {
			close(cur);
			return -1;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n;
		next = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		close(cur);
		cur = next;
	}
	return cur;
}

/* Is `path` (no symlinks on the way) a mount point of the expected inode? */
static bool
mounted_as(const char *path, const char *id)
{
	unsigned long dev, ino;
	struct statx sx;
	int fd;
	bool ok;

	if (sscanf(id, "%lu:%lu", &dev, &ino) != 2)
		return false;
	if ((fd = open_nofollow(path)) == -1)
		return false;
	ok = syscall(SYS_statx, fd, "", AT_EMPTY_PATH, STATX_INO | STATX_TYPE,
		 &sx) == 0 &&
	     (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
	     (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) &&
	     (ino == 0 || (sx.stx_ino == ino && makedev(sx.stx_dev_major,
						    sx.stx_dev_minor) == dev));
	close(fd);
	return ok;
}

static bool
listed(char **v, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

static int
allow_read(int ruleset, const char *path, unsigned *count)
{
	struct kb_ll_path_beneath pb = {
	    .allowed_access = KB_LL_ACCESS_FS_READ_FILE};
	struct stat st;
	int rc = 0;

	if (++*count > MAX_RULES) {
		errno = E2BIG;
		return -1;
	}
	pb.parent_fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pb.parent_fd == -1)
		return 0; /* gone meanwhile: nothing to allow */
	if (fstat(pb.parent_fd, &st) == 0 && !S_ISLNK(st.st_mode))
		rc = (int)syscall(SYS_landlock_add_rule, ruleset,
		    KB_LL_RULE_PATH_BENEATH, &pb, 0);
	close(pb.parent_fd);
	return rc;
}

/*
 * A sibling whose name holds a mask's name (.netrc.lock, config.json123,
 * .aws.new, .git-credentials~) is how tools write a replacement before
 * renaming it into place: a rule on it would follow it there. It gets none.
 */
static bool
staging_name(char **deny, int ndeny, const char *dir, const char *name)
{
	size_t dl = strlen(dir);

	for (int i = 0; i < ndeny; i++) {
		const char *base =
		    deny[i] + (strcmp(dir, "/") == 0 ? 1 : dl + 1);

		if (strncmp(deny[i], dir, dl) == 0 &&
		    (strcmp(dir, "/") == 0 || deny[i][dl] == '/') &&
		    strchr(base, '/') == NULL && strcmp(name, base) != 0 &&
		    strcasestr(name, base) != NULL)
			return true;
	}
	return false;
}

/*
 * Reading files is allowed below every entry of every directory on the way
 * to a masked path, except the next step on that way; the masks themselves
 * (the empty file or directory the sandbox shows) are allowed too, so they
 * read as empty. Whatever the host puts in place of a mask later has no
 * rule, and reads fail with EACCES.
 */
/* Is `path` at or below one of the directories kinbox overlays after the
 * go (--late)? A rule there must wait for the overlay: Landlock rules
 * attach to inodes, and one on the directory the overlay then covers would
 * not apply beneath it. */
static bool
late_path(char **late, int nlate, const char *path)
{
	for (int i = 0; i < nlate; i++) {
		size_t n = strlen(late[i]);

		if (strncmp(path, late[i], n) == 0 &&
		    (path[n] == '\0' || path[n] == '/'))
			return true;
	}
	return false;
}

/* Pass `late` false: every rule not in a --late directory (before the
 * go, while kinbox mounts the overlays); true: the rest (after it). */
static int
add_read_rules(
    int ruleset, char **deny, int ndeny, char **late, int nlate, bool second)
{
	static char *anc[MAX_DENY * 8];
	static char buf[MAX_DENY * 8][4096];
	static unsigned count;
	int nanc = 0;

	for (int i = 0; i < ndeny; i++) {
		const char *d = deny[i];

		for (const char *s = d; (s = strchr(s, '/')) != NULL; s++) {
			size_t len = s == d ? 1 : (size_t)(s - d);

			if (len >= sizeof(buf[0]) || nanc == MAX_DENY * 8)
				break;
			memcpy(buf[nanc], d, len);
			buf[nanc][len] = '\0';
			if (!listed(anc, nanc, buf[nanc])) {
				anc[nanc] = buf[nanc];
				nanc++;
			}
		}
	}
	for (int i = 0; i < nanc; i++) {
		bool anc_late = late_path(late, nlate, anc[i]);
		DIR *dir;
		struct dirent *de;

		/* a directory in an overlay is listed after the go, as the
		 * overlay shows it; one above is listed before, and only its
		 * entries in an overlay wait */
		if (anc_late && !second)
			continue;
		dir = opendir(anc[i]);
		if (dir == NULL && second && !anc_late)
			continue; /* said, and allowed, before the go */
		if (dir == NULL) {
			/* cannot tell its entries apart: leave its tree to
			 * the mounts, and say so */
			dprintf(2,
			    "kinbox: note: %s cannot be listed here; "
			    "masks below it rely on their mounts alone\n",
			    anc[i]);
			if (allow_read(ruleset, anc[i], &count) == -1)
				return -1;
			continue;
		}
		while ((de = readdir(dir)) != NULL) {
			char child[4096];

			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			if (snprintf(child, sizeof(child), "%s/%s",
				strcmp(anc[i], "/") == 0 ? "" : anc[i],
				de->d_name) >= (int)sizeof(child))
				continue;
			if (listed(anc, nanc, child) ||
			    staging_name(deny, ndeny, anc[i], de->d_name))
				continue;
			if (!anc_late &&
			    late_path(late, nlate, child) != second)
				continue;
			if (allow_read(ruleset, child, &count) == -1) {
				closedir(dir);
				return -1;
			}
		}
		closedir(dir);
	}
	return 0;
}

/*
 * The ruleset, in two steps: confine_start() before kinbox's go (the
 * rules outside the overlays kinbox is mounting meanwhile), confine_end()
 * after it (the rules inside them, then the domain). -1 with errno.
 */
static int
confine_start(bool scope, char **deny, int ndeny, char **late, int nlate)
{
	/* REFER handled and granted below /: a ruleset that does not handle
	 * it refuses every rename or link across directories. Landlock still
	 * refuses one that would make a file readable that was not (a
	 * replaced credential moved out from under its mask). */
	struct kb_ll_ruleset_attr attr = {
	    .handled_access_fs =
		ndeny > 0 ? KB_LL_ACCESS_FS_READ_FILE | KB_LL_ACCESS_FS_REFER
			  : 0,
	    .scoped = scope ? KB_LL_SCOPE_ABSTRACT_UNIX_SOCKET : 0,
	};
	long fd;
	int rc = 0;

	if (!scope && ndeny == 0)
		return -2; /* nothing to confine */
	fd = syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (fd < 0)
		return -1;
	if (ndeny > 0) {
		struct kb_ll_path_beneath pb = {
		    .allowed_access = KB_LL_ACCESS_FS_REFER,
		    .parent_fd = open("/", O_PATH | O_CLOEXEC)};

		rc = pb.parent_fd == -1
			 ? -1
			 : (int)syscall(SYS_landlock_add_rule, (int)fd,
			       KB_LL_RULE_PATH_BENEATH, &pb, 0);
		if (pb.parent_fd != -1)
			close(pb.parent_fd);
		if (rc == 0)
			rc = add_read_rules(
			    (int)fd, deny, ndeny, late, nlate, false);
	}
	if (rc != 0) {
		close((int)fd);
		return -1;
	}
	return (int)fd;
}

static int
confine_end(int fd, char **deny, int ndeny, char **late, int nlate)
{
	int rc = 0;

	if (fd == -2)
		return 0;
	if (ndeny > 0 && nlate > 0)
		rc = add_read_rules(fd, deny, ndeny, late, nlate, true);
	if (rc == 0)
		rc = (int)syscall(SYS_landlock_restrict_self, fd, 0);
	close(fd);
	return rc;
}

int
main(int argc, char **argv)
{
	static const int reset[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGPIPE};
	static char *deny[MAX_DENY], *late[MAX_DENY];
	sigset_t none;
	int status_fd, err_fd, errsv, cmd, ndeny = 0, nchecks = 0, go_fd = -1;
	int nlate = 0, ruleset;
	int check_first = 0;
	bool scope = false;

	if (argc < 4)
		_exit(125);
	status_fd = fdarg(argv[1]);
	err_fd = fdarg(argv[2]);
	for (cmd = 3; cmd < argc && strcmp(argv[cmd], "--") != 0; cmd++) {
		if (strcmp(argv[cmd], "--scope-abstract") == 0) {
			scope = true;
		} else if (strcmp(argv[cmd], "--wait") == 0 && cmd + 1 < argc &&
			   go_fd == -1) {
			go_fd = fdarg(argv[++cmd]);
			if (go_fd == status_fd || go_fd == err_fd)
				_exit(125);
		} else if (strcmp(argv[cmd], "--close-fds") == 0 &&
			   cmd + 2 < argc) {
			int lo = fdarg(argv[cmd + 1]),
			    hi = fdarg(argv[cmd + 2]);

			if (lo == status_fd || lo == err_fd || hi < lo ||
			    (status_fd >= lo && status_fd <= hi) ||
			    (err_fd >= lo && err_fd <= hi) ||
			    (go_fd >= lo && go_fd <= hi))
				_exit(125);
			if (syscall(SYS_close_range, lo, hi, 0) == -1)
				for (int fd = lo; fd <= hi; fd++)
					close(fd);
			cmd += 2;
		} else if (strcmp(argv[cmd], "--check") == 0 &&
			   cmd + 2 < argc) {
			if (nchecks++ == 0)
				check_first = cmd;
			cmd += 2;
		} else if (strcmp(argv[cmd], "--late") == 0 && cmd + 1 < argc &&
			   argv[cmd + 1][0] == '/') {
			if (nlate == MAX_DENY)
				_exit(125);
			late[nlate++] = argv[++cmd];
		} else if (strcmp(argv[cmd], "--deny-read") == 0 &&
			   cmd + 1 < argc && argv[cmd + 1][0] == '/') {
			if (ndeny == MAX_DENY)
				_exit(125);
			deny[ndeny++] = argv[++cmd];
		} else {
			_exit(125);
		}
	}
	if (cmd >= argc - 1)
		_exit(125);
	cmd++;
	for (size_t i = 0; i < sizeof(reset) / sizeof(reset[0]); i++)
		signal(reset[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (dup2(err_fd, 2) == -1)
		_exit(125);
	close(err_fd);
	if (fcntl(status_fd, F_SETFD, FD_CLOEXEC) == -1)
		_exit(125);
	if (write(status_fd, "S", 1) != 1)
		_exit(125);
	/* while kinbox arms its watch and mounts the overlays: the guard
	 * checks (an overlay carries a guard below it over, the same mount)
	 * and the Landlock rules outside the overlays */
	for (int i = 0, a = check_first; i < nchecks; a++) {
		if (strcmp(argv[a], "--check") != 0)
			continue;
		if (!mounted_as(argv[a + 1], argv[a + 2]))
			fail(status_fd, 'M', i, 125);
		i++;
		a += 2;
	}
	if ((ruleset = confine_start(scope, deny, ndeny, late, nlate)) == -1)
		fail(status_fd, 'F', errno, 125);
	if (go_fd != -1) {
		char go = 0;
		ssize_t n;

		while ((n = read(go_fd, &go, 1)) == -1 && errno == EINTR)
			;
		if (n != 1 || go != 'G')
			_exit(125);
		close(go_fd);
	}
	if (confine_end(ruleset, deny, ndeny, late, nlate) == -1)
		fail(status_fd, 'F', errno, 125);
	/* PATH is searched as bash does: a directory of it that cannot be
	 * read makes a missing command ENOENT (127), not EACCES (126) */
	errsv = kb_exec_search(argv[cmd], argv + cmd);
	fail(status_fd, 'E', errsv,
	    errsv == ENOENT || errsv == ENOTDIR ? 127 : 126);
}
