/*
 * backends/mounts.c — kinbox's looks into a started sandbox's mount
 * namespace from outside, while kinbox-exec waits for its go (--wait):
 *
 * - the tmpfs limits. bwrap 0.8 mounts a tmpfs with a size (--size) but
 *   no inode limit, and its --dev with neither; a tmpfs without one is
 *   half of RAM that belongs to no process. kinbox's mounter (the child
 *   below) enters the sandbox's namespaces and reconfigures each tmpfs of
 *   the plan with its size= and nr_inodes= (backends/memory.c) before
 *   the command starts.
 *
 * - the ephemeral caches' overlays. bwrap 0.8 has no overlays, and the
 *   command's side of the sandbox may not mount (it runs in a nested user
 *   namespace, with no capability over the mount namespace). kinbox owns
 *   the user namespace that does own it, so a forked child of kinbox
 *   enters that one (NS_GET_USERNS on the mount namespace) and then the
 *   mount namespace, and mounts each cache as overlayfs: the real
 *   directory as the read-only lower layer, an upper layer on a tmpfs that
 *   no path reaches once the overlay holds it. Reads are warm, writes are
 *   gone with the sandbox. Mounts bwrap made below a cache (a credential
 *   mask, a write root, a git guard) are cloned before the overlay covers
 *   them and moved back on top of it, so what was masked stays masked.
 *
 * - the mount watch. When the host unlinks or renames over the target of a
 *   mount, the kernel detaches that mount in every namespace; a mask is
 *   then gone. /proc/PID/mountinfo polls POLLPRI on every change of the
 *   mount table, so kb_run() keeps one open and compares the watched
 *   mount points with it on each event (kb_watch_compare). Unlike inotify
 *   it does not wake kinbox for every file created beside a watched one.
 *   Its descriptor is opened before the mounter reads the table through
 *   one of its own and checks it, the last thing before the go: a mount
 *   detached before that read stops the run there, one detached after it
 *   is an event. Its last close may tear the dead sandbox's mount
 *   namespace down, so it is made after kinbox is done
 *   (lib/closelater.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/nsfs.h>

#include "../lib/fdpass.h"
#include "backend.h"

#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC O_CLOEXEC
#endif
#ifndef SYS_fsopen
#define SYS_fsopen   430
#define SYS_fsconfig 431
#define SYS_fsmount  432
#endif
#ifndef FSOPEN_CLOEXEC
#define FSOPEN_CLOEXEC      0x00000001
#define FSCONFIG_SET_STRING 1
#define FSCONFIG_CMD_CREATE 6
#define FSMOUNT_CLOEXEC     0x00000001
#define MOUNT_ATTR_NOSUID   0x00000002
#define MOUNT_ATTR_NODEV    0x00000004
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
#ifndef SYS_fspick
#define SYS_fspick 433
#endif
#ifndef FSPICK_CLOEXEC
#define FSPICK_CLOEXEC          0x00000001
#define FSPICK_SYMLINK_NOFOLLOW 0x00000002
#define FSPICK_NO_AUTOMOUNT     0x00000004
#endif
#ifndef FSCONFIG_CMD_RECONFIGURE
#define FSCONFIG_CMD_RECONFIGURE 7
#endif

/* --- /proc/PID/mountinfo ---------------------------------------------- */

/* Undoes mountinfo's octal escapes (\040 space, \011, \012, \134) in place. */
static void
unescape(char *s)
{
	char *w = s;

	for (char *r = s; *r != '\0'; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' &&
		    r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') << 6 | (r[2] - '0') << 3 |
				      (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

int
kb_mountinfo_read(int fd, struct kb_strv *points)
{
	struct kb_buf b = {0};
	char chunk[8192];
	ssize_t n;

	kb_strv_free(points);
	if (lseek(fd, 0, SEEK_SET) == -1)
		return -1;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0) {
		if (b.len + (size_t)n > 4 * 1024 * 1024) {
			errno = EFBIG;
			n = -1;
			break;
		}
		kb_buf_add(&b, chunk, (size_t)n);
	}
	if (n == -1) {
		kb_buf_free(&b);
		return -1;
	}
	for (char *line = b.s, *next; line != NULL && *line != '\0';
	     line = next) {
		char *f[5] = {0}, *save = NULL, *tok;
		int k = 0;

		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		/* id parent major:minor root MOUNT-POINT options ... */
		for (tok = strtok_r(line, " ", &save); tok != NULL && k < 5;
		     tok = strtok_r(NULL, " ", &save))
			f[k++] = tok;
		if (k < 5)
			continue;
		unescape(f[4]);
		kb_strv_push(points, f[4]);
	}
	kb_buf_free(&b);
	return 0;
}

/* --- the overlays ----------------------------------------------------- */

static void __attribute__((noreturn, format(printf, 2, 3)))
child_fail(int errfd, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (len > 0 &&
	    write(errfd, msg,
		(size_t)len < sizeof(msg) ? (size_t)len : sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

/* The mounts strictly below `dir` that no other one below it covers:
 * cloned (with what is below them) before the overlay, put back after. */
static bool
top_submount(const struct kb_strv *points, const char *dir, size_t i)
{
	const char *s = points->v[i];

	if (!kb_path_within(s, dir) || strcmp(s, dir) == 0)
		return false;
	for (size_t j = 0; j < points->n; j++) {
		const char *t = points->v[j];

		if (j < i && strcmp(t, s) == 0)
			return false; /* stacked at the same place: once */
		if (strcmp(t, dir) != 0 && strcmp(t, s) != 0 &&
		    kb_path_within(t, dir) && kb_path_within(s, t))
			return false;
	}
	return true;
}

/*
 * Sets the size= and nr_inodes= of the tmpfs mounted at `path` (its root:
 * fspick refuses a path inside a mount), without touching its mount
 * flags. Linux < 5.2 has no fspick: a remount then, with the flags the
 * mount has. The superblock is the sandbox's own: this process holds no
 * capability over the host's (its user namespace is the sandbox's).
 */
static int
limit_tmpfs(
    const char *path, unsigned long long size, unsigned long long inodes)
{
	char sz[32], in[32];
	int fd, rc = -1;

	snprintf(sz, sizeof(sz), "%llu", size);
	snprintf(in, sizeof(in), "%llu", inodes);
	fd = (int)syscall(SYS_fspick, AT_FDCWD, path,
	    FSPICK_CLOEXEC | FSPICK_SYMLINK_NOFOLLOW | FSPICK_NO_AUTOMOUNT);
	if (fd == -1 && errno == ENOSYS) {
		struct statvfs sv;
		unsigned long fl = MS_REMOUNT;
		char opts[80];

		if (statvfs(path, &sv) == -1)
			return -1;
		fl |= sv.f_flag & ST_RDONLY ? MS_RDONLY : 0;
		fl |= sv.f_flag & ST_NOSUID ? MS_NOSUID : 0;
		fl |= sv.f_flag & ST_NODEV ? MS_NODEV : 0;
		fl |= sv.f_flag & ST_NOEXEC ? MS_NOEXEC : 0;
		fl |= sv.f_flag & ST_NOATIME ? MS_NOATIME : 0;
		fl |= sv.f_flag & ST_NODIRATIME ? MS_NODIRATIME : 0;
		fl |= sv.f_flag & ST_RELATIME ? MS_RELATIME : 0;
		snprintf(opts, sizeof(opts), "size=%s,nr_inodes=%s", sz, in);
		return mount(NULL, path, NULL, fl, opts);
	}
	if (fd == -1)
		return -1;
	if (syscall(SYS_fsconfig, fd, FSCONFIG_SET_STRING, "size", sz, 0) !=
		-1 &&
	    syscall(SYS_fsconfig, fd, FSCONFIG_SET_STRING, "nr_inodes", in,
		0) != -1 &&
	    syscall(SYS_fsconfig, fd, FSCONFIG_CMD_RECONFIGURE, NULL, NULL,
		0) != -1)
		rc = 0;
	close(fd);
	return rc;
}

/* Receives kinbox-exec's 'R' on the go socket: the sandbox's mount
 * namespace and two descriptors of its mount table (kinbox-exec.c,
 * send_ready). -1 at end of file (the sandbox did not start), -2 with
 * errno when the message is not that. */
static int
recv_ready(int sock, int fds[3])
{
	char one = 0;
	size_t n = 0;
	ssize_t r = kb_fd_recv(sock, &one, 1, fds, 3, &n);

	if (r == 0 || (r == -1 && errno != EBADMSG))
		return -1;
	if (r == 1 && one == 'R' && n == 3)
		return 0;
	while (n > 0)
		close(fds[--n]);
	errno = EBADMSG;
	return -2;
}

static void __attribute__((noreturn)) mounter_child(int mntfd, int infofd,
    int watchfd, const struct kb_plan *pl, int errfd, int go_w)
{
	int uns = ioctl(mntfd, NS_GET_USERNS), fsfd, up;
	char usize[32], uinodes[32];
	struct kb_strv mounted = {0}, *points = &mounted;

	if (uns == -1 || setns(uns, CLONE_NEWUSER) == -1)
		child_fail(errfd,
		    "cannot enter the sandbox's user namespace: %s",
		    strerror(errno));
	if (setns(mntfd, CLONE_NEWNS) == -1)
		child_fail(errfd,
		    "cannot enter the sandbox's mount namespace: %s",
		    strerror(errno));
	/* before the overlays: a tmpfs below a cache is cloned with its
	 * superblock, limits and all */
	for (size_t i = 0; i < pl->ntmpfs; i++) {
		const struct kb_tmpfs *t = &pl->tmpfs[i];

		if (t->covered)
			continue;
		if (limit_tmpfs(t->path, t->size, t->inodes) == -1)
			child_fail(errfd,
			    "cannot limit the tmpfs at %s to %llu bytes and "
			    "%llu inodes: %s",
			    t->path, t->size, t->inodes, strerror(errno));
	}
	/* the table kinbox-exec opened (the sandbox's, whatever this
	 * process's /proc shows), read after it opened the watch's: a
	 * watched mount the host detached since bwrap's setup stops the run
	 * here, before the go; one detached later is an event on the
	 * watch's; the mounts below the caches are cloned from it */
	if (kb_mountinfo_read(infofd, points) == -1)
		child_fail(errfd, "cannot read the sandbox's mount table: %s",
		    strerror(errno));
	{
		char replaced[1024] = "";
		const char *hit =
		    kb_watch_compare(pl, points, replaced, sizeof(replaced));

		if (hit != NULL)
			child_fail(errfd, "!%s", hit);
	}
	if (pl->overlay.n == 0)
		goto go;
	/* The upper layers: a tmpfs that is never attached anywhere (no
	 * path reaches it, nothing to unmount), named relative to the cwd;
	 * the caches' share of the budget bounds it */
	snprintf(usize, sizeof(usize), "%llu", pl->upper.size);
	snprintf(uinodes, sizeof(uinodes), "%llu", pl->upper.inodes);
	fsfd = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);
	if (fsfd == -1 ||
	    syscall(SYS_fsconfig, fsfd, FSCONFIG_SET_STRING, "mode", "0700",
		0) == -1 ||
	    syscall(SYS_fsconfig, fsfd, FSCONFIG_SET_STRING, "size", usize,
		0) == -1 ||
	    syscall(SYS_fsconfig, fsfd, FSCONFIG_SET_STRING, "nr_inodes",
		uinodes, 0) == -1 ||
	    syscall(SYS_fsconfig, fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) ==
		-1 ||
	    (up = (int)syscall(SYS_fsmount, fsfd, FSMOUNT_CLOEXEC,
		 MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)) == -1 ||
	    fchdir(up) == -1)
		child_fail(errfd, "cannot make the overlays' tmpfs: %s",
		    strerror(errno));
	umask(0);
	for (size_t i = 0; i < pl->overlay.n; i++) {
		const char *dir = pl->overlay.v[i];
		char up_name[32], wk_name[32], opts[8192];
		int clone_fd[64];
		const char *clone_at[64];
		size_t nclone = 0;
		struct stat st;

		/* overlayfs splits its options at ',' and lowerdir at ':' */
		if (strpbrk(dir, ",:\\") != NULL)
			child_fail(errfd,
			    "%s: a ',', ':' or '\\' in the path cannot be "
			    "passed to overlayfs",
			    dir);
		if (stat(dir, &st) == -1 || !S_ISDIR(st.st_mode))
			child_fail(errfd, "%s: %s", dir,
			    errno != 0 ? strerror(errno) : "not a directory");
		snprintf(up_name, sizeof(up_name), "u%zu", i);
		snprintf(wk_name, sizeof(wk_name), "w%zu", i);
		/* the overlay's root takes the upper directory's owner and
		 * mode: the cache's own */
		if (mkdir(up_name, st.st_mode & 07777) == -1 ||
		    mkdir(wk_name, 0700) == -1 ||
		    ((st.st_uid != getuid() || st.st_gid != getgid()) &&
			chown(up_name, st.st_uid, st.st_gid) == -1))
			child_fail(errfd, "%s: the upper layer: %s", dir,
			    strerror(errno));
		for (size_t k = 0; k < points->n; k++) {
			int fd;

			if (!top_submount(points, dir, k))
				continue;
			if (nclone == nitems(clone_fd))
				child_fail(errfd,
				    "%s: more than %zu mounts below it", dir,
				    nitems(clone_fd));
			fd = (int)syscall(SYS_open_tree, AT_FDCWD, points->v[k],
			    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE |
				AT_SYMLINK_NOFOLLOW);
			if (fd == -1)
				child_fail(errfd,
				    "%s: cannot keep the mount at %s: %s", dir,
				    points->v[k], strerror(errno));
			clone_at[nclone] = points->v[k];
			clone_fd[nclone++] = fd;
		}
		snprintf(opts, sizeof(opts),
		    "lowerdir=%s,upperdir=%s,workdir=%s,userxattr", dir,
		    up_name, wk_name);
		if (mount("kinbox-cache", dir, "overlay", MS_NOSUID | MS_NODEV,
			opts) == -1)
			child_fail(
			    errfd, "overlayfs on %s: %s", dir, strerror(errno));
		for (size_t k = 0; k < nclone; k++)
			if (syscall(SYS_move_mount, clone_fd[k], "", AT_FDCWD,
				clone_at[k], MOVE_MOUNT_F_EMPTY_PATH) == -1)
				child_fail(errfd,
				    "%s: cannot put the mount at %s back: %s",
				    dir, clone_at[k], strerror(errno));
	}
go:
	/* done: the command may start (one hop fewer than through kinbox),
	 * and kinbox goes on while this one exits */
	if (write(go_w, "G", 1) != 1)
		child_fail(
		    errfd, "cannot start the command: %s", strerror(errno));
	/* '+' and the watch's descriptor to kinbox */
	if (kb_fd_send(errfd, "+", 1, &watchfd, 1) != 1)
		_exit(2);
	_exit(0);
}

/* closes every descriptor from 3 up but `a` and `b` */
static void
close_all_but(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a;

	if (lo > 3)
		syscall(SYS_close_range, 3U, (unsigned)lo - 1, 0U);
	if (hi > lo + 1)
		syscall(
		    SYS_close_range, (unsigned)lo + 1, (unsigned)hi - 1, 0U);
	syscall(SYS_close_range, (unsigned)hi + 1, ~0U, 0U);
}

/*
 * The mounter (tmpfs limits, the check, overlays), forked while bwrap
 * still sets up (its start and its exit are then not on the path the
 * caller waits on). It keeps only its socket and the go's, where
 * kinbox-exec hands it the sandbox as soon as it starts.
 */
int
kb_mounter_start(const struct kb_plan *pl, int go_w, pid_t *child)
{
	int sv[2];

	*child = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		return -1;
	if ((*child = fork()) == -1) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (*child == 0) {
		int fds[3], rc;

		/* nothing of kinbox's but the socket and the go: a pipe end
		 * held here would keep kinbox waiting for its EOF */
		close_all_but(sv[1], go_w);
		if ((rc = recv_ready(go_w, fds)) == -1)
			_exit(3); /* the sandbox never started */
		if (rc == -2)
			child_fail(sv[1],
			    "the sandbox did not hand over its mount "
			    "namespace and table: %s",
			    strerror(errno));
		mounter_child(fds[0], fds[1], fds[2], pl, sv[1], go_w);
	}
	close(sv[1]);
	return sv[0];
}

int
kb_mounter_wait(int sock, int *watchfd, char *why, size_t whylen)
{
	struct pollfd p = {.fd = sock, .events = POLLIN};
	size_t nfd = 0;
	ssize_t n;
	int rc;

	/* "+" and the watch's descriptor when it is done, else why not; a
	 * mount that hangs (a dead NFS home under a cache) fails the run
	 * rather than kinbox */
	*watchfd = -1;
	why[0] = '\0';
	while ((rc = poll(&p, 1, 20000)) == -1 && errno == EINTR)
		;
	if (rc == 0) {
		snprintf(
		    why, whylen, "kinbox's mounter did not answer in 20 s");
		return -1;
	}
	n = kb_fd_recv(sock, why, whylen - 1, watchfd, 1, &nfd);
	why[n > 0 ? n : 0] = '\0';
	if (n == 1 && why[0] == '+' && nfd == 1) {
		why[0] = '\0';
		return 0;
	}
	if (nfd == 1) {
		close(*watchfd);
		*watchfd = -1;
	}
	if (n <= 0)
		snprintf(why, whylen, "kinbox's mounter died");
	if (n > 1 && why[0] == '!') { /* a watched mount is gone */
		memmove(why, why + 1, (size_t)n);
		return 1;
	}
	return -1;
}

const char *
kb_watch_compare(const struct kb_plan *pl, const struct kb_strv *points,
    char *replaced, size_t len)
{
	const char *hard = NULL;

	for (size_t i = 0; i < pl->watch.n; i++) {
		const char *path = pl->watch.v[i];
		size_t at = strlen(replaced);

		if (kb_strv_has(points, path))
			continue;
		if (!kb_strv_has(&pl->watch_report, path)) {
			if (hard == NULL)
				hard = path;
			continue;
		}
		if (strstr(replaced, path) == NULL &&
		    at + strlen(path) + 2 < len)
			snprintf(replaced + at, len - at, "%s%s",
			    at ? "\n" : "", path);
	}
	return hard;
}
