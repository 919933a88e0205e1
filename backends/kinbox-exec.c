/*
 * backends/kinbox-exec.c — kinbox-exec, the last link of the chain, run by
 * bubblewrap inside the sandbox:
 *   kinbox-exec STATUS_FD STDERR_FD -- COMMAND [ARG...]
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
 *                    before the command, with kinbox saying why. When FD
 *                    is a socket, kinbox's mounter waits on its other
 *                    end: right after 'S' this sends it 'R' with this
 *                    sandbox's mount namespace and two descriptors of its
 *                    mount table (one for the mounter's check, one for
 *                    kinbox's watch), so that the mounter works while
 *                    this process makes its Landlock rules;
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
 * --unotify SOCK FILTER, after all of the above: loads the seccomp program
 *                    in the memfd FILTER (connect() as a user
 *                    notification) with a listener, and sends the
 *                    listener over the unix socket SOCK to kinbox, which
 *                    answers every connect (mediate/unotify.c), with the
 *                    mount ids of the --own PATH mounts (the command's
 *                    own: writable here), read before the command runs;
 *
 * --proxy SOCK, before the start: makes the TCP socket listening on
 *                    127.0.0.1:KB_PROXY_PORT of this network namespace
 *                    and sends it over the unix socket SOCK to kinbox,
 *                    whose egress proxy serves it from outside
 *                    (mediate/proxy.h); no copy stays here ('P' + errno
 *                    when it cannot be made: nothing runs);
 *
 * --rlimit NAME=N, last, just before the exec (after Landlock, seccomp
 *                    and the descriptors' closing, so that this helper's
 *                    own setup is not limited): sets the command's limit
 *                    NAME (as, core, cpu, fsize, nofile, nproc), soft and
 *                    hard, to N, or keeps the inherited hard limit when it
 *                    is lower ('R' + errno when it cannot: nothing runs).
 *
 * --env FD, first:   the command's environment, each entry NUL-terminated
 *                    in the memfd FD (lib/hostenv.c): the environment this
 *                    helper was started with is kinbox's fixed one, since
 *                    bwrap (and this helper, under landlock) runs on the
 *                    host, where the command's loader variables must not
 *                    reach; without --env the environment is kept.
 *
 * --landlock ABI makes it the whole sandbox of the landlock backend
 * (kinbox execs it directly, no bubblewrap): it applies, in this order,
 * --chdir DIR, no_new_privs, every capability dropped (--drop-caps, as
 * root), one Landlock domain handling every filesystem right of ABI (write
 * granted beneath each --write-fd FD and --write PATH, the device nodes of
 * --dev PATH and --dev-fd FD (a --device node, the descriptor kinbox
 * judged), reading beneath everything but the --deny-read paths, and the
 * --allow-read PATH files inside them), TCP bind/connect with no rule
 * unless --net (ABI >= 4), the abstract-socket and signal scopes (ABI >= 6),
 * then the seccomp filter in the memfd --seccomp FD; with --meta SOCK FILTER
 * then the metadata filter in the memfd FILTER (chmod, chown, utimes,
 * xattrs as user notifications) with a listener, sent over SOCK to kinbox
 * with the inodes of the write roots (mediate/unotify-meta.c); then the
 * command.
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

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/securebits.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/uio.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "../mediate/proxy.h"
#include "../mediate/unotify-meta.h"
#include "../mediate/unotify.h"

#include "../lib/execsearch.h"
#include "../lib/fdpass.h"
#include "../lib/hostenv.h"

extern char **environ;
#include "exec-landlock.h"

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

#define MAX_DENY 256

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

/* --rlimit: the limits to set just before the exec */
static const struct {
	const char *name;
	int resource;
} rlim_names[] = {
    {"as", RLIMIT_AS},
    {"core", RLIMIT_CORE},
    {"cpu", RLIMIT_CPU},
    {"fsize", RLIMIT_FSIZE},
    {"nofile", RLIMIT_NOFILE},
    {"nproc", RLIMIT_NPROC},
};
#define MAX_RLIM (sizeof(rlim_names) / sizeof(rlim_names[0]))
static struct {
	int resource;
	rlim_t value;
} rlims[MAX_RLIM];
static size_t nrlims;

/* NAME=N of --rlimit, or exit */
static void
rlimarg(const char *a)
{
	const char *eq = strchr(a, '=');
	char *end;
	unsigned long long v;
	size_t i;

	if (eq == NULL || nrlims == MAX_RLIM)
		_exit(125);
	for (i = 0; i < MAX_RLIM; i++)
		if (strlen(rlim_names[i].name) == (size_t)(eq - a) &&
		    strncmp(rlim_names[i].name, a, (size_t)(eq - a)) == 0)
			break;
	errno = 0;
	v = strtoull(eq + 1, &end, 10);
	if (i == MAX_RLIM || eq[1] < '0' || eq[1] > '9' || *end != '\0' ||
	    errno != 0 || (rlim_t)v == RLIM_INFINITY)
		_exit(125);
	rlims[nrlims].resource = rlim_names[i].resource;
	rlims[nrlims++].value = (rlim_t)v;
}

/* The --rlimit limits, soft and hard: never above the hard limit this
 * helper was started with (lowering needs no privilege, and that limit
 * holds already). Or 'R' and exit: nothing runs. */
static void
apply_rlimits(int status_fd)
{
	for (size_t i = 0; i < nrlims; i++) {
		struct rlimit cur, lim;

		if (getrlimit(rlims[i].resource, &cur) == -1)
			fail(status_fd, 'R', errno, 125);
		lim.rlim_cur = lim.rlim_max = rlims[i].value;
		if (cur.rlim_max != RLIM_INFINITY &&
		    cur.rlim_max < lim.rlim_max)
			lim.rlim_cur = lim.rlim_max = cur.rlim_max;
		if (setrlimit(rlims[i].resource, &lim) == -1)
			fail(status_fd, 'R', errno, 125);
	}
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
	if ((fd = kb_ll_open_nofollow(path)) == -1)
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

/*
 * The bubblewrap backend's ruleset, in two steps: confine_start() before
 * kinbox's go (the rules outside the overlays kinbox is mounting
 * meanwhile), confine_end() after it (the rules inside them, then the
 * domain). -1 with errno; -2 when there is nothing to confine.
 */
static int
confine_start(struct kb_ll *ll, bool scope, char **deny, int ndeny, char **late,
    int nlate)
{
	/* REFER handled and granted below /: a ruleset that does not handle
	 * it refuses every rename or link across directories. Landlock still
	 * refuses one that would make a file readable that was not (a
	 * replaced credential moved out from under its mask). */
	unsigned long long fs =
	    ndeny > 0 ? KB_LL_FS_READ_FILE | KB_LL_FS_REFER : 0;

	if (!scope && ndeny == 0)
		return -2;
	if (kb_ll_create(
		ll, fs, 0, scope ? KB_LL_SCOPE_ABSTRACT_UNIX_SOCKET : 0) == -1)
		return -1;
	ll->read = KB_LL_FS_READ_FILE;
	ll->masks_readable = true;
	if (ndeny > 0 &&
	    (kb_ll_allow_path(ll, "/", KB_LL_FS_REFER, true) == -1 ||
		kb_ll_read_rules(ll, deny, ndeny, late, nlate, false) == -1)) {
		close(ll->fd);
		return -1;
	}
	return 0;
}

static int
confine_end(struct kb_ll *ll, char **deny, int ndeny, char **late, int nlate)
{
	if (ndeny > 0 && nlate > 0 &&
	    kb_ll_read_rules(ll, deny, ndeny, late, nlate, true) == -1) {
		close(ll->fd);
		return -1;
	}
	return kb_ll_restrict(ll);
}

/* --- the landlock backend --------------------------------------------- */

#define LL_MAX 64

struct lmode {
	int abi;
	bool net, drop_caps;
	int seccomp_fd;
	const char *chdir;
	int write_fd[LL_MAX], nwrite_fd;
	int dev_fd[LL_MAX], ndev_fd;
	int meta_sock, meta_filter; /* --meta, -1 without */
	char *write[LL_MAX], *dev[LL_MAX], *allow[LL_MAX];
	int nwrite, ndev, nallow;
};

/*
 * Root without capabilities: the bounding set emptied (an exec of a
 * setuid-root or file-capability program gains nothing; no_new_privs is
 * set as well), securebits locked so that uid 0 gets no capabilities back
 * on exec, the ambient set cleared, then the process's own sets zeroed.
 * What stops uid 0 from writing the files it owns is the Landlock domain.
 */
static int
drop_caps(void)
{
	struct {
		unsigned version;
		int pid;
	} hdr = {0x20080522, 0}; /* _LINUX_CAPABILITY_VERSION_3 */
	struct {
		unsigned effective, permitted, inheritable;
	} data[2] = {{0, 0, 0}, {0, 0, 0}}, now[2];

	/* none held (kinbox inside a landlock sandbox): nothing to drop,
	 * and no CAP_SETPCAP to drop the bounding set with; no_new_privs
	 * keeps an exec as uid 0 from gaining any (the kernel intersects
	 * with the permitted set it had) */
	if (syscall(SYS_capget, &hdr, now) == 0 &&
	    (now[0].effective | now[0].permitted | now[0].inheritable |
		now[1].effective | now[1].permitted | now[1].inheritable) ==
		0) {
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) ==
			-1 &&
		    errno != EINVAL)
			return -1;
		return 0;
	}
	if (prctl(PR_SET_SECUREBITS,
		SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
		    SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
		    SECBIT_NO_CAP_AMBIENT_RAISE |
		    SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED,
		0, 0, 0) == -1)
		return -1;
	for (int c = 0; c < 64; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) == -1) {
			if (errno == EINVAL)
				break; /* past the kernel's last capability */
			return -1;
		}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == -1 &&
	    errno != EINVAL)
		return -1;
	return (int)syscall(SYS_capset, &hdr, data);
}

/* The seccomp program kinbox staged in a memfd, read into `fp`. */
static int
read_seccomp(int fd, struct sock_fprog *fp)
{
	static struct sock_filter prog[4096];
	size_t len = 0;
	ssize_t n;

	while (len < sizeof(prog) && (n = pread(fd, (char *)prog + len,
					  sizeof(prog) - len, (off_t)len)) > 0)
		len += (size_t)n;
	close(fd);
	if (len == 0 || len == sizeof(prog) || len % sizeof(prog[0]) != 0) {
		errno = EINVAL;
		return -1;
	}
	fp->len = (unsigned short)(len / sizeof(prog[0]));
	fp->filter = prog;
	return 0;
}

/* ... and enforced. */
static int
load_seccomp(int fd)
{
	struct sock_fprog fp;

	if (read_seccomp(fd, &fp) == -1)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp, 0, 0);
}

#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x00004000U
#endif
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

/*
 * The mount ids of the --own paths that are writable mount roots here
 * (what a concurrent run did to a path is checked: no symlink on the way,
 * the root of a mount, not read-only).
 */
static void
own_mounts(char **own, int nown, struct kb_sup_hello *h)
{
	h->unique = 1;
	for (int pass = 0; pass < 2; pass++) {
		h->nown = 0;
		for (int i = 0; i < nown && h->nown < KB_SUP_MAX_OWN; i++) {
			struct statx sx;
			struct statfs sf;
			int fd = kb_ll_open_nofollow(own[i]);

			if (fd == -1)
				continue;
			if (syscall(SYS_statx, fd, "", AT_EMPTY_PATH,
				h->unique ? STATX_MNT_ID_UNIQUE : STATX_MNT_ID,
				&sx) == 0 &&
			    fstatfs(fd, &sf) == 0 &&
			    !(sf.f_flags & ST_RDONLY) &&
			    (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT)) {
				if (h->unique &&
				    !(sx.stx_mask & STATX_MNT_ID_UNIQUE)) {
					close(fd);
					break; /* Linux < 6.8: the old ids */
				}
				h->own[h->nown++] = sx.stx_mnt_id;
			}
			close(fd);
		}
		if (h->unique == 1 && (h->nown > 0 || nown == 0))
			return;
		if (h->unique == 0)
			return;
		h->unique = 0;
	}
}

/*
 * The connect() filter with a listener, which goes to kinbox over `sock`
 * (then closed: the command never holds either). Killable waits (Linux
 * 5.19) keep an ordinary signal from turning a connect in progress into
 * EINTR half-way through kinbox's answer.
 */
static int
send_filter_listener(int sock, int filter, const void *hello, size_t len)
{
	struct sock_fprog fp;
	long lfd;
	int errsv, fd;

	if (read_seccomp(filter, &fp) == -1)
		return -1;
	lfd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER |
		SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
	    &fp);
	if (lfd == -1 && errno == EINVAL)
		lfd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_NEW_LISTENER, &fp);
	if (lfd == -1)
		return -1;
	fd = (int)lfd;
	/* no mediated call from here on: it would wait for kinbox's answer */
	if (kb_fd_send(sock, hello, len, &fd, 1) != (ssize_t)len) {
		errsv = errno;
		close(fd);
		errno = errsv;
		return -1;
	}
	close(fd);
	close(sock);
	return 0;
}

static int
send_listener(int sock, int filter, char **own, int nown)
{
	static struct kb_sup_hello hello;

	hello.magic = KB_SUP_MAGIC;
	own_mounts(own, nown, &hello);
	return send_filter_listener(sock, filter, &hello, sizeof(hello));
}

/*
 * The landlock backend's metadata filter (--meta), after its Landlock
 * domain and filter: the listener goes to kinbox with the inodes of the
 * write roots the rules were made on, read now, before the command runs.
 */
static int
send_meta_listener(int sock, int filter, const struct lmode *lm)
{
	static struct kb_meta_hello hello;
	struct stat st;

	hello.magic = KB_META_MAGIC;
	hello.nroot = 0;
	for (int i = 0; i < lm->nwrite_fd + lm->nwrite; i++) {
		int fd = i < lm->nwrite_fd ? lm->write_fd[i]
					   : kb_ll_open_nofollow(
						 lm->write[i - lm->nwrite_fd]);
		int rc = fd == -1 ? -1 : fstat(fd, &st);

		if (i >= lm->nwrite_fd && fd != -1)
			close(fd);
		if (rc == -1 || hello.nroot == KB_META_MAX_ROOT)
			continue; /* no rule was made on it either */
		hello.root[hello.nroot].dev = st.st_dev;
		hello.root[hello.nroot].ino = st.st_ino;
		hello.nroot++;
	}
	return send_filter_listener(sock, filter, &hello, sizeof(hello));
}

/*
 * --wait on a socket: the mounter's start (see the top). Sent whatever
 * could be opened; the mounter refuses a message without all three, and
 * then no 'G' comes. A go that is not a socket (a file holding 'G') gets
 * nothing.
 */
static void
send_ready(int go_fd)
{
	static const char *const what[3] = {"/proc/self/ns/mnt",
	    "/proc/self/mountinfo", "/proc/self/mountinfo"};
	struct stat st;
	int fds[3];
	size_t n = 0;

	if (fstat(go_fd, &st) == -1 || !S_ISSOCK(st.st_mode))
		return;
	for (int i = 0; i < 3; i++)
		if ((fds[n] = open(what[i], O_RDONLY | O_CLOEXEC)) != -1)
			n++;
	(void)kb_fd_send(go_fd, "R", 1, fds, n);
	while (n > 0)
		close(fds[--n]);
}

/*
 * The egress proxy's listener (--proxy): bound before the command exists,
 * without SO_REUSEADDR or SO_REUSEPORT, so that nothing in the sandbox can
 * take the port or share it; sent to kinbox and closed here.
 */
static int
send_proxy_listener(int sock)
{
	struct kb_proxy_hello hello = {KB_PROXY_MAGIC, KB_PROXY_PORT};
	struct sockaddr_in a = {.sin_family = AF_INET,
	    .sin_port = htons(KB_PROXY_PORT),
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int fd, errsv;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd == -1)
		return -1;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == -1 ||
	    listen(fd, 512) == -1 ||
	    kb_fd_send(sock, &hello, sizeof(hello), &fd, 1) !=
		(ssize_t)sizeof(hello))
		goto out;
	close(fd);
	close(sock);
	return 0;
out:
	errsv = errno;
	close(fd);
	errno = errsv;
	return -1;
}

/* the device nodes a program needs: reading, writing, truncating (`>
 * /dev/null` opens with O_TRUNC), ioctl (terminals) */
#define DEV_RIGHTS                                                             \
	(KB_LL_FS_READ_FILE | KB_LL_FS_WRITE_FILE | KB_LL_FS_TRUNCATE |        \
	    KB_LL_FS_IOCTL_DEV)

static int
landlock_domain(const struct lmode *m, char **deny, int ndeny)
{
	unsigned long long all = kb_ll_fs_rights(m->abi), fs = all;
	unsigned long long net = 0, scoped = 0;
	struct kb_ll ll;

	if (!m->net && m->abi >= 4)
		net = KB_LL_NET_BIND_TCP | KB_LL_NET_CONNECT_TCP;
	if (m->abi >= 6)
		scoped = KB_LL_SCOPE_ABSTRACT_UNIX_SOCKET | KB_LL_SCOPE_SIGNAL;
	if (kb_ll_create(&ll, fs, net, scoped) == -1)
		return -1;
	ll.read = KB_LL_FS_READ;
	ll.masks_readable = false;
	/* the command's own terminals (its fds 0-2, kinbox's relay among
	 * them): granted by descriptor, the caller's other ones are not
	 * (/dev/pts as a whole would let it read what is typed there) */
	for (int fd = 0; fd <= 2; fd++) {
		struct stat st;

		if (fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && isatty(fd) &&
		    kb_ll_allow_fd(&ll, fd, DEV_RIGHTS) == -1)
			goto fail;
	}
	for (int i = 0; i < m->nwrite_fd; i++)
		if (kb_ll_allow_fd(&ll, m->write_fd[i], all) == -1)
			goto fail;
	for (int i = 0; i < m->nwrite; i++)
		if (kb_ll_allow_path(&ll, m->write[i], all, true) == -1)
			goto fail;
	for (int i = 0; i < m->ndev; i++)
		if (kb_ll_allow_path(&ll, m->dev[i],
			m->dev[i][strlen(m->dev[i]) - 1] == '/' ? all
								: DEV_RIGHTS,
			false) == -1)
			goto fail;
	/* --device, --gpu: the node kinbox judged, by its descriptor */
	for (int i = 0; i < m->ndev_fd; i++)
		if (kb_ll_allow_fd(&ll, m->dev_fd[i], DEV_RIGHTS) == -1)
			goto fail;
	for (int i = 0; i < m->nallow; i++)
		if (kb_ll_allow_path(&ll, m->allow[i], KB_LL_FS_READ, false) ==
		    -1)
			goto fail;
	if (kb_ll_read_rules(&ll, deny, ndeny, NULL, 0, false) == -1)
		goto fail;
	return kb_ll_restrict(&ll);
fail:
	close(ll.fd);
	return -1;
}

static void __attribute__((noreturn)) run_landlock(
    int status_fd, const struct lmode *m, char **deny, int ndeny, char **cmd)
{
	int errsv;

	if (m->chdir != NULL && chdir(m->chdir) == -1)
		fail(status_fd, 'F', errno, 125);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		fail(status_fd, 'F', errno, 125);
	if (m->drop_caps && drop_caps() == -1)
		fail(status_fd, 'F', errno, 125);
	if (landlock_domain(m, deny, ndeny) == -1)
		fail(status_fd, 'F', errno, 125);
	if (load_seccomp(m->seccomp_fd) == -1)
		fail(status_fd, 'F', errno, 125);
	if (m->meta_sock != -1 &&
	    send_meta_listener(m->meta_sock, m->meta_filter, m) == -1)
		fail(status_fd, 'F', errno, 125);
	apply_rlimits(status_fd);
	errsv = kb_exec_search(cmd[0], cmd);
	fail(status_fd, 'E', errsv,
	    errsv == ENOENT || errsv == ENOTDIR ? 127 : 126);
}

/* an absolute path argument, or exit */
static char *
patharg(int argc, char **argv, int i)
{
	if (i >= argc || argv[i][0] != '/')
		_exit(125);
	return argv[i];
}

int
main(int argc, char **argv)
{
	static const int reset[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGPIPE};
	static char *deny[MAX_DENY], *late[MAX_DENY];
	static struct lmode lm = {
	    .abi = 0, .seccomp_fd = -1, .meta_sock = -1, .meta_filter = -1};
	struct kb_ll ll;
	sigset_t none;
	int status_fd, err_fd, errsv, cmd, ndeny = 0, nchecks = 0, go_fd = -1;
	int nlate = 0, ruleset;
	int check_first = 0, close_lo = -1, close_hi = -1;
	int un_sock = -1, un_filter = -1, nown = 0, px_sock = -1, env_fd = -1;
	static char *own[KB_SUP_MAX_OWN];
	bool scope = false;

	if (argc < 4)
		_exit(125);
	status_fd = fdarg(argv[1]);
	err_fd = fdarg(argv[2]);
	for (cmd = 3; cmd < argc && strcmp(argv[cmd], "--") != 0; cmd++) {
		const char *a = argv[cmd];

		if (strcmp(a, "--scope-abstract") == 0) {
			scope = true;
		} else if (strcmp(a, "--env") == 0 && cmd + 1 < argc &&
			   env_fd == -1) {
			env_fd = fdarg(argv[++cmd]);
			if (env_fd == status_fd || env_fd == err_fd)
				_exit(125);
		} else if (strcmp(a, "--wait") == 0 && cmd + 1 < argc &&
			   go_fd == -1) {
			go_fd = fdarg(argv[++cmd]);
			if (go_fd == status_fd || go_fd == err_fd)
				_exit(125);
		} else if (strcmp(a, "--close-fds") == 0 && cmd + 2 < argc) {
			int lo = fdarg(argv[cmd + 1]),
			    hi = fdarg(argv[cmd + 2]);

			if (lo == status_fd || lo == err_fd || hi < lo ||
			    (status_fd >= lo && status_fd <= hi) ||
			    (err_fd >= lo && err_fd <= hi) ||
			    (go_fd >= lo && go_fd <= hi))
				_exit(125);
			close_lo = lo;
			close_hi = hi;
			cmd += 2;
		} else if (strcmp(a, "--check") == 0 && cmd + 2 < argc) {
			if (nchecks++ == 0)
				check_first = cmd;
			cmd += 2;
		} else if (strcmp(a, "--late") == 0) {
			if (nlate == MAX_DENY)
				_exit(125);
			late[nlate++] = patharg(argc, argv, ++cmd);
		} else if (strcmp(a, "--deny-read") == 0) {
			if (ndeny == MAX_DENY)
				_exit(125);
			deny[ndeny++] = patharg(argc, argv, ++cmd);
		} else if (strcmp(a, "--unotify") == 0 && cmd + 2 < argc &&
			   un_sock == -1) {
			un_sock = fdarg(argv[cmd + 1]);
			un_filter = fdarg(argv[cmd + 2]);
			cmd += 2;
		} else if (strcmp(a, "--meta") == 0 && cmd + 2 < argc &&
			   lm.meta_sock == -1) {
			lm.meta_sock = fdarg(argv[cmd + 1]);
			lm.meta_filter = fdarg(argv[cmd + 2]);
			cmd += 2;
		} else if (strcmp(a, "--proxy") == 0 && cmd + 1 < argc &&
			   px_sock == -1) {
			px_sock = fdarg(argv[++cmd]);
		} else if (strcmp(a, "--own") == 0) {
			if (nown == KB_SUP_MAX_OWN)
				_exit(125);
			own[nown++] = patharg(argc, argv, ++cmd);
		} else if (strcmp(a, "--landlock") == 0 && cmd + 1 < argc &&
			   lm.abi == 0) {
			lm.abi = atoi(argv[++cmd]);
			if (lm.abi < 1)
				_exit(125);
		} else if (strcmp(a, "--rlimit") == 0 && cmd + 1 < argc) {
			rlimarg(argv[++cmd]);
		} else if (strcmp(a, "--net") == 0) {
			lm.net = true;
		} else if (strcmp(a, "--drop-caps") == 0) {
			lm.drop_caps = true;
		} else if (strcmp(a, "--seccomp") == 0 && cmd + 1 < argc) {
			lm.seccomp_fd = fdarg(argv[++cmd]);
		} else if (strcmp(a, "--chdir") == 0) {
			lm.chdir = patharg(argc, argv, ++cmd);
		} else if (strcmp(a, "--write-fd") == 0 && cmd + 1 < argc &&
			   lm.nwrite_fd < LL_MAX) {
			lm.write_fd[lm.nwrite_fd++] = fdarg(argv[++cmd]);
		} else if (strcmp(a, "--write") == 0 && lm.nwrite < LL_MAX) {
			lm.write[lm.nwrite++] = patharg(argc, argv, ++cmd);
		} else if (strcmp(a, "--dev-fd") == 0 && cmd + 1 < argc &&
			   lm.ndev_fd < LL_MAX) {
			lm.dev_fd[lm.ndev_fd++] = fdarg(argv[++cmd]);
		} else if (strcmp(a, "--dev") == 0 && lm.ndev < LL_MAX) {
			lm.dev[lm.ndev++] = patharg(argc, argv, ++cmd);
		} else if (strcmp(a, "--allow-read") == 0 &&
			   lm.nallow < LL_MAX) {
			lm.allow[lm.nallow++] = patharg(argc, argv, ++cmd);
		} else {
			_exit(125);
		}
	}
	if (cmd >= argc - 1)
		_exit(125);
	cmd++;
	if (env_fd != -1) {
		if ((environ = kb_env_read(env_fd)) == NULL)
			_exit(125);
		close(env_fd);
	}
	/* the bind sources (and, for the landlock backend, the roots its
	 * rules are made on: closed at the exec) */
	if (close_lo != -1 &&
	    syscall(SYS_close_range, close_lo, close_hi,
		lm.abi > 0 ? 4U /* CLOSE_RANGE_CLOEXEC */ : 0U) == -1) {
		for (int fd = close_lo; fd <= close_hi; fd++)
			if (lm.abi > 0)
				fcntl(fd, F_SETFD, FD_CLOEXEC);
			else
				close(fd);
	}
	/* the landlock backend: the domain is all there is, and it must
	 * have its filter (no bubblewrap gave one) */
	if (lm.abi == 0 && lm.meta_sock != -1)
		_exit(125);
	if (lm.abi > 0 && (lm.seccomp_fd == -1 || go_fd != -1 || nchecks > 0 ||
			      un_sock != -1 || px_sock != -1))
		_exit(125);
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
	if (go_fd != -1)
		send_ready(go_fd);
	if (px_sock != -1 && send_proxy_listener(px_sock) == -1)
		fail(status_fd, 'P', errno, 125);
	/* the host's /dev is not read in full: only the nodes --dev names
	 * (block devices, other terminals, the rest stay closed, as the
	 * bwrap backend's own /dev would have them absent) */
	if (lm.abi > 0 && ndeny < MAX_DENY)
		deny[ndeny++] = (char *)"/dev";
	if (lm.abi > 0)
		run_landlock(status_fd, &lm, deny, ndeny, argv + cmd);
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
	ruleset = confine_start(&ll, scope, deny, ndeny, late, nlate);
	if (ruleset == -1)
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
	if (ruleset == 0 && confine_end(&ll, deny, ndeny, late, nlate) == -1)
		fail(status_fd, 'F', errno, 125);
	if (un_sock != -1 && send_listener(un_sock, un_filter, own, nown) == -1)
		fail(status_fd, 'F', errno, 125);
	apply_rlimits(status_fd);
	/* PATH is searched as bash does: a directory of it that cannot be
	 * read makes a missing command ENOENT (127), not EACCES (126) */
	errsv = kb_exec_search(argv[cmd], argv + cmd);
	fail(status_fd, 'E', errsv,
	    errsv == ENOENT || errsv == ENOTDIR ? 127 : 126);
}
