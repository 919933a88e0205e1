/*
 * backends/seccomp.c — the syscall filters: the one handed to bubblewrap
 * (--seccomp), and the landlock backend's, which add what the bwrap
 * backend's namespaces gave it (see landlock_rules()).
 *
 * Namespaces do not cover everything a command can reach:
 *  - TIOCSTI / TIOCLINUX push keystrokes into the caller's terminal, which
 *    runs them after kinbox exits (the terminal is shared on purpose, so
 *    that shells and editors keep job control; --new-session would take
 *    it away);
 *  - the session and user kernel keyrings are not namespaced;
 *  - a file made setuid or setgid in the workspace is a persistence path
 *    out of the sandbox (as root above all: uid 0 owns what it writes, so
 *    dropped capabilities do not stop chmod 4755);
 *  - io_uring performs opens and chmods that a seccomp filter cannot see,
 *    and openat2 hides its mode in a struct we cannot inspect.
 * Argument checks look at the low 32 bits only, as the kernel does for
 * ioctl commands and modes (CVE-2019-10063 was a filter that compared all
 * 64 and could be bypassed with garbage in the high half), but for the
 * ranges (ge() below), which refuse garbage there.
 *
 * Every filter is a deny-list: what no rule names is allowed. The bwrap
 * one is the same program byte for byte as before there were several
 * (the benchmark's raw-bwrap baseline runs it).
 */
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <seccomp.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "backend.h"

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

/* syscall name, index of the mode argument */
static const struct {
	const char *name;
	unsigned arg;
} mode_syscalls[] = {
    {"chmod", 1},
    {"fchmod", 1},
    {"fchmodat", 2},
    {"fchmodat2", 2},
    {"open", 2},
    {"openat", 3},
    {"creat", 1},
    {"mknod", 1},
    {"mknodat", 2},
};

static const char *const refused_syscalls[] = {
    "keyctl",
    "add_key",
    "request_key",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
};

/* fchmodat2 (Linux 6.6) has one number on every architecture; older
 * libseccomp releases do not know its name. */
#define KB_NR_FCHMODAT2 452

static int
resolve(const char *name)
{
	int nr = seccomp_syscall_resolve_name(name);

	if (nr == __NR_SCMP_ERROR && strcmp(name, "fchmodat2") == 0)
		nr = KB_NR_FCHMODAT2;
	return nr;
}

/* -EDOM/-EINVAL from libseccomp: the syscall does not exist on one of the
 * filter's architectures (e.g. open on aarch64), which is fine. */
static int
rule(scmp_filter_ctx ctx, uint32_t action, int nr, unsigned cnt,
    const struct scmp_arg_cmp *cmp)
{
	int rc;

	if (nr == __NR_SCMP_ERROR)
		return 0;
	rc = seccomp_rule_add_array(ctx, action, nr, cnt, cmp);
	if (rc == -EDOM || rc == -EINVAL)
		return 0;
	return rc;
}

/* argument `a`'s bits `m` are `v` (m and v below 2^32: the low half only) */
static struct scmp_arg_cmp
bits(unsigned a, uint64_t m, uint64_t v)
{
	struct scmp_arg_cmp c = {
	    .arg = a, .op = SCMP_CMP_MASKED_EQ, .datum_a = m, .datum_b = v};

	return c;
}

/* the low 32 bits of argument `a` are `v` (an int argument) */
static struct scmp_arg_cmp
lo32(unsigned a, uint64_t v)
{
	return bits(a, 0xffffffffUL, v);
}

/* argument `a` is `v` or more, compared whole: a value with anything in the
 * high half is "more" on a 64-bit architecture, so a range refused with it
 * also refuses every value with garbage above the low 32 bits (the kernel
 * truncates an int argument; refusing more is the safe side) */
static struct scmp_arg_cmp
ge(unsigned a, uint64_t v)
{
	struct scmp_arg_cmp c = {.arg = a, .op = SCMP_CMP_GE, .datum_a = v};

	return c;
}

static int
rule2(scmp_filter_ctx ctx, uint32_t action, const char *name,
    struct scmp_arg_cmp c0, struct scmp_arg_cmp c1)
{
	const struct scmp_arg_cmp c[2] = {c0, c1};

	return rule(ctx, action, resolve(name), 2, c);
}

static int
rule1(scmp_filter_ctx ctx, uint32_t action, const char *name,
    struct scmp_arg_cmp c0)
{
	return rule(ctx, action, resolve(name), 1, &c0);
}

/* What the bwrap backend gets from its namespaces and the landlock
 * backend does not (it runs in the host's pid, net and ipc namespaces). */
static const char *const ipc_syscalls[] = {
    "shmget",
    "shmat",
    "shmdt",
    "shmctl",
    "semget",
    "semop",
    "semtimedop",
    "semtimedop_time64",
    "semctl",
    "msgget",
    "msgsnd",
    "msgrcv",
    "msgctl",
    /* the x86 multiplexer: its call number carries a version in the high
     * 16 bits, so refuse it whole rather than per call */
    "ipc",
    "mq_open",
    "mq_unlink",
    "mq_timedsend",
    "mq_timedsend_time64",
    "mq_timedreceive",
    "mq_timedreceive_time64",
    "mq_notify",
    "mq_getsetattr",
};

/* the first family number above the last one a filter names */
#define KB_AF_ABOVE (AF_NETLINK + 1)
/* socketcall(2)'s SYS_SOCKET and SYS_SOCKETPAIR (x86: the arguments are
 * behind a pointer) */
static const unsigned socketcalls[] = {1, 8};

/* clone(2)'s flags are its first argument on x86-64, x86 (whose
 * CLONE_BACKWARDS order moves tls, not flags), x32, arm, aarch64 ...; its
 * second on s390 (CLONE_BACKWARDS2). A filter holds the native
 * architecture and, on x86-64 only, x86 and x32. */
static unsigned
clone_flags_arg(void)
{
	uint32_t arch = seccomp_arch_native();

	return arch == SCMP_ARCH_S390X || arch == SCMP_ARCH_S390 ? 1 : 0;
}

/* Is socket(family, ...) refused whatever its type and protocol? */
static bool
family_refused(enum kb_seccomp_variant v, unsigned family)
{
	switch (family) {
	case AF_UNIX:
		return true;
	case AF_INET:
	case AF_INET6:
		return v == KB_SECCOMP_LL_NONET_ALL;
	case AF_NETLINK:
		return false;
	default:
		return v != KB_SECCOMP_LL_NET;
	}
}

/*
 * The landlock backend's rules, on top of the bwrap ones. Landlock (ABI 7)
 * does not mediate unix sockets by path, so a socket(AF_UNIX) could
 * connect to the host's docker.sock or D-Bus: refused everywhere. A
 * socketpair is both ends the command's, unless it is a datagram one
 * (sendto can name a host socket). With the network off, Landlock's TCP
 * hooks (ABI 4) see plain TCP only: any other socket is refused (an MPTCP
 * one would connect under CONNECT_TCP's nose), netlink but NETLINK_ROUTE
 * (getifaddrs). The type's SOCK_NONBLOCK/SOCK_CLOEXEC bits are masked:
 * type & 0xf is the type.
 *
 * x86 (32-bit) programs may create sockets through socketcall(2), whose
 * arguments lie in memory a filter cannot read: socketcall's socket and
 * socketpair are refused whole (libseccomp would turn the socket rules
 * into that anyway); the direct syscalls (Linux 4.3) are filtered by
 * their arguments.
 */
static int
landlock_rules(scmp_filter_ctx ctx, enum kb_seccomp_variant v)
{
	const uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
	const uint32_t eacces = SCMP_ACT_ERRNO(EACCES);
	int rc;

	if ((rc = rule1(ctx, eperm, "unshare",
		 bits(0, CLONE_NEWUSER, CLONE_NEWUSER))) < 0 ||
	    (rc = rule1(ctx, eperm, "clone",
		 bits(clone_flags_arg(), CLONE_NEWUSER, CLONE_NEWUSER))) < 0)
		return rc;
	/* its flags are in a struct: ENOSYS sends glibc back to clone */
	if ((rc = rule(
		 ctx, SCMP_ACT_ERRNO(ENOSYS), resolve("clone3"), 0, NULL)) < 0)
		return rc;
	for (size_t i = 0; i < nitems(ipc_syscalls); i++)
		if ((rc = rule(ctx, eperm, resolve(ipc_syscalls[i]), 0, NULL)) <
		    0)
			return rc;

	/* The broad rules before the narrow ones they cover: libseccomp
	 * 2.5.4 leaks the tree it prunes the other way round (the x86
	 * socketcall rules it makes from the socketpair ones). */
	for (size_t i = 0; i < nitems(socketcalls); i++)
		if ((rc = rule1(ctx, eacces, "socketcall",
			 lo32(0, socketcalls[i]))) < 0)
			return rc;

	/* socket(): the families refused whole, then one range above */
	for (unsigned f = 0; f < KB_AF_ABOVE; f++)
		if (family_refused(v, f) &&
		    (rc = rule1(ctx, eacces, "socket", lo32(0, f))) < 0)
			return rc;
	if (v != KB_SECCOMP_LL_NET &&
	    (rc = rule1(ctx, eacces, "socket", ge(0, KB_AF_ABOVE))) < 0)
		return rc;
	if (v == KB_SECCOMP_LL_NONET) {
		const unsigned inet[] = {AF_INET, AF_INET6};

		for (size_t i = 0; i < nitems(inet); i++) {
			/* type & 0xf other than SOCK_STREAM (1): bit 0
			 * clear, or any of bits 1-3 set */
			const struct scmp_arg_cmp type[] = {
			    bits(1, 0x1, 0),
			    bits(1, 0x2, 0x2),
			    bits(1, 0x4, 0x4),
			    bits(1, 0x8, 0x8),
			};
			struct scmp_arg_cmp fam = lo32(0, inet[i]);

			for (size_t t = 0; t < nitems(type); t++)
				if ((rc = rule2(ctx, eacces, "socket", fam,
					 type[t])) < 0)
					return rc;
			/* protocol other than 0 and IPPROTO_TCP (6) */
			for (unsigned p = 1; p < IPPROTO_TCP; p++)
				if ((rc = rule2(ctx, eacces, "socket", fam,
					 lo32(2, p))) < 0)
					return rc;
			if ((rc = rule2(ctx, eacces, "socket", fam,
				 ge(2, IPPROTO_TCP + 1))) < 0)
				return rc;
		}
	}
	/* netlink but NETLINK_ROUTE (0) */
	if (v != KB_SECCOMP_LL_NET && (rc = rule2(ctx, eacces, "socket",
					   lo32(0, AF_NETLINK), ge(2, 1))) < 0)
		return rc;

	/* socketpair() of any family but AF_UNIX (most have none) */
	if (v != KB_SECCOMP_LL_NET) {
		if ((rc = rule1(ctx, eacces, "socketpair", lo32(0, 0))) < 0 ||
		    (rc = rule1(
			 ctx, eacces, "socketpair", ge(0, AF_UNIX + 1))) < 0)
			return rc;
	}
	/* socketpair(AF_UNIX, ...) but SOCK_STREAM (1) and SOCK_SEQPACKET
	 * (5): bit 0 clear, or bit 1 or 3 set (AF_UNIX takes SOCK_RAW
	 * for SOCK_DGRAM) */
	{
		const struct scmp_arg_cmp type[] = {
		    bits(1, 0x1, 0),
		    bits(1, 0x2, 0x2),
		    bits(1, 0x8, 0x8),
		};

		for (size_t t = 0; t < nitems(type); t++)
			if ((rc = rule2(ctx, eacces, "socketpair",
				 lo32(0, AF_UNIX), type[t])) < 0)
				return rc;
	}
	/* the host's processes: Landlock has no hook for their resource
	 * limits (a CPU limit has the kernel kill one, whatever the signal
	 * scope): prlimit64 of any pid but 0 (the caller) */
	{
		struct scmp_arg_cmp other = {
		    .arg = 0, .op = SCMP_CMP_NE, .datum_a = 0};

		if ((rc = rule1(ctx, eperm, "prlimit64", other)) < 0)
			return rc;
	}
	/* The user's other processes, by pid, process group or user: the
	 * kernel lets a process of the same uid renice them, make them
	 * SCHED_IDLE, pin them or starve their I/O, and no Landlock scope
	 * covers that. Only the caller itself (pid or who 0) is taken; the
	 * calls that take ptrace's check (migrate_pages, move_pages, kcmp,
	 * process_madvise, process_mrelease) are Landlock's already, refused
	 * here as well for other pids. */
	{
		static const char *const self_only[] = {"sched_setaffinity",
		    "sched_setscheduler", "sched_setparam", "sched_setattr",
		    "migrate_pages", "move_pages"};
		static const char *const never[] = {
		    "kcmp", "process_madvise", "process_mrelease"};
		const struct scmp_arg_cmp nz0 = {
		    .arg = 0, .op = SCMP_CMP_NE, .datum_a = 0};
		const struct scmp_arg_cmp nz1 = {
		    .arg = 1, .op = SCMP_CMP_NE, .datum_a = 0};
		/* setpriority(PRIO_PROCESS = 0, 0, ...); ioprio_set(
		 * IOPRIO_WHO_PROCESS = 1, 0, ...) */
		const struct scmp_arg_cmp not_process = {
		    .arg = 0, .op = SCMP_CMP_NE, .datum_a = 1};

		for (size_t i = 0; i < nitems(self_only); i++)
			if ((rc = rule1(ctx, eperm, self_only[i], nz0)) < 0)
				return rc;
		for (size_t i = 0; i < nitems(never); i++)
			if ((rc = rule(
				 ctx, eperm, resolve(never[i]), 0, NULL)) < 0)
				return rc;
		if ((rc = rule1(ctx, eperm, "setpriority", nz0)) < 0 ||
		    (rc = rule1(ctx, eperm, "setpriority", nz1)) < 0 ||
		    (rc = rule1(ctx, eperm, "ioprio_set", not_process)) < 0 ||
		    (rc = rule1(ctx, eperm, "ioprio_set", nz1)) < 0)
			return rc;
	}
	if (v == KB_SECCOMP_LL_NET)
		return 0;
	/* With the network off, what Landlock's TCP hooks do not see:
	 * listen() on an unbound socket binds an ephemeral port on every
	 * address without a bind() (no unix socket can listen here, so
	 * listen is refused whole); a TCP Fast Open sendto/sendmsg connects
	 * without a connect() (landlock-lsm/linux#41). The same through
	 * x86's socketcall (SYS_LISTEN, SYS_SENDTO, SYS_SENDMSG,
	 * SYS_SENDMMSG), whose flags lie behind a pointer. */
	{
		static const unsigned sock32[] = {4, 11, 16, 20};
		const uint64_t fastopen = 0x20000000; /* MSG_FASTOPEN */

		if ((rc = rule(ctx, eacces, resolve("listen"), 0, NULL)) < 0 ||
		    (rc = rule1(ctx, eacces, "sendto",
			 bits(3, fastopen, fastopen))) < 0 ||
		    (rc = rule1(ctx, eacces, "sendmsg",
			 bits(2, fastopen, fastopen))) < 0 ||
		    (rc = rule1(ctx, eacces, "sendmmsg",
			 bits(3, fastopen, fastopen))) < 0)
			return rc;
		for (size_t i = 0; i < nitems(sock32); i++)
			if ((rc = rule1(ctx, eacces, "socketcall",
				 lo32(0, sock32[i]))) < 0)
				return rc;
	}
	return 0;
}

/*
 * The bwrap backend with unix connects mediated (mediate/unotify.c): a
 * connect() is a user notification that kinbox answers, but a datagram
 * socket looks its peer up again on every sendto(), a path the supervisor
 * never sees, so unix datagram sockets are refused, socketpairs included
 * (a pair's end can sendto() any unbound host socket, /dev/log). That
 * costs sd_notify and syslog clients; stream and seqpacket sockets, which
 * need a connect() to reach anything, stay. x86's socketcall(2) hides its
 * arguments behind a pointer: refused whole, the direct calls (Linux 4.3)
 * remain. Where the supervisor cannot work (no pidfd_getfd, ptrace
 * refused) the fallback refuses every socket(AF_UNIX), as Anthropic's
 * sandbox-runtime does; socketpairs but datagram ones stay.
 */
static int
unix_rules(scmp_filter_ctx ctx, enum kb_seccomp_variant v)
{
	const uint32_t eacces = SCMP_ACT_ERRNO(EACCES);
	/* type & 0xf other than SOCK_STREAM (1) and SOCK_SEQPACKET (5): bit
	 * 0 clear, or bit 1 or 3 set (AF_UNIX takes SOCK_RAW for
	 * SOCK_DGRAM) */
	const struct scmp_arg_cmp type[] = {
	    bits(1, 0x1, 0),
	    bits(1, 0x2, 0x2),
	    bits(1, 0x8, 0x8),
	};
	int rc;

	if ((rc = rule(ctx, eacces, resolve("socketcall"), 0, NULL)) < 0)
		return rc;
	if (v == KB_SECCOMP_BWRAP_NOUNIX &&
	    (rc = rule1(ctx, eacces, "socket", lo32(0, AF_UNIX))) < 0)
		return rc;
	for (size_t t = 0; t < nitems(type); t++) {
		if (v == KB_SECCOMP_BWRAP_MEDIATED &&
		    (rc = rule2(
			 ctx, eacces, "socket", lo32(0, AF_UNIX), type[t])) < 0)
			return rc;
		if ((rc = rule2(ctx, eacces, "socketpair", lo32(0, AF_UNIX),
			 type[t])) < 0)
			return rc;
	}
	return 0;
}

/* connect() handed to kinbox as a user notification, on every
 * architecture the filters hold; the rest is left to the other filter */
static int
notify_rules(scmp_filter_ctx ctx)
{
	/* no listener of the command's own: a filter of its that returned
	 * USER_NOTIF would be answered first (the newest filter's
	 * notification wins), and CONTINUE from it would skip kinbox.
	 * seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER) */
	int rc = rule2(ctx, SCMP_ACT_ERRNO(EPERM), "seccomp", lo32(0, 1),
	    bits(1, 1u << 3, 1u << 3));

	if (rc < 0)
		return rc;
	/* not rule(): a connect rule that is left out is no mediation at
	 * all, so every error fails the build */
	rc = seccomp_rule_add(
	    ctx, SCMP_ACT_NOTIFY, seccomp_syscall_resolve_name("connect"), 0);
	return rc < 0 ? rc : 0;
}

/*
 * The landlock backend's metadata calls handed to kinbox as user
 * notifications (mediate/unotify-meta.c): Landlock has no right for a
 * file's mode, owner, times or extended attributes. setxattrat and
 * removexattrat (Linux 6.13) take their arguments in a struct: ENOSYS
 * sends libc back to the calls above. No listener of the command's own
 * (as notify_rules()).
 */
static const char *const meta_syscalls[] = {
    "chmod",
    "fchmod",
    "fchmodat",
    "fchmodat2",
    "chown",
    "lchown",
    "fchown",
    "fchownat",
    "chown32",
    "lchown32",
    "fchown32",
    "utime",
    "utimes",
    "futimesat",
    "utimensat",
    "utimensat_time64",
    "setxattr",
    "lsetxattr",
    "fsetxattr",
    "removexattr",
    "lremovexattr",
    "fremovexattr",
};
/* one number on every architecture (Linux 6.13); older libseccomp
 * releases do not know their names */
#define KB_NR_SETXATTRAT    463
#define KB_NR_REMOVEXATTRAT 466

static int
meta_rules(scmp_filter_ctx ctx)
{
	int rc = rule2(ctx, SCMP_ACT_ERRNO(EPERM), "seccomp", lo32(0, 1),
	    bits(1, 1u << 3, 1u << 3));

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < nitems(meta_syscalls); i++)
		if ((rc = rule(ctx, SCMP_ACT_NOTIFY, resolve(meta_syscalls[i]),
			 0, NULL)) < 0)
			return rc;
	return 0;
}

/*
 * setxattrat and removexattrat by number, in front of libseccomp's
 * program (whose jumps are relative, so it runs unchanged after): the
 * libseccomp releases we build with know neither name, and refuse a
 * number they do not know for x86 and x32. Both numbers are the same on
 * every architecture; x32's carry bit 30.
 */
static int
prepend_xattrat(int fd)
{
	const uint32_t native = seccomp_arch_native();
	const struct sock_filter pre[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4), /* arch */
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, native, 1, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
		native == SCMP_ARCH_X86_64 ? SCMP_ARCH_X86 : native, 0, 4),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0), /* nr */
	    BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~0x40000000U),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, KB_NR_SETXATTRAT, 2, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, KB_NR_REMOVEXATTRAT, 1, 0),
	    BPF_STMT(BPF_JMP | BPF_JA, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
	};
	static unsigned char prog[65536];
	size_t len = 0;
	ssize_t n;

	while ((n = pread(fd, prog + len, sizeof(prog) - len, (off_t)len)) > 0)
		len += (size_t)n;
	if (n == -1)
		return -errno;
	if (len + sizeof(pre) > sizeof(prog))
		return -E2BIG;
	memmove(prog + sizeof(pre), prog, len);
	memcpy(prog, pre, sizeof(pre));
	if (pwrite(fd, prog, len + sizeof(pre), 0) !=
	    (ssize_t)(len + sizeof(pre)))
		return -EIO;
	return 0;
}

int
kb_seccomp_build_fd_variant(enum kb_seccomp_variant v, struct kb_err *e)
{
	scmp_filter_ctx ctx;
	uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
	int fd = -1, rc;

	if ((unsigned)v >= KB_SECCOMP__N)
		return kb_err_set(e, "no seccomp filter %d", (int)v);
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (ctx == NULL)
		return kb_err_set(e, "libseccomp: cannot create a filter");
	/* 32-bit programs run on x86-64 kernels: filter their syscall
	 * tables too rather than let them around the filter. */
	if (seccomp_arch_native() == SCMP_ARCH_X86_64) {
		if ((rc = seccomp_arch_add(ctx, SCMP_ARCH_X86)) < 0 &&
		    rc != -EEXIST)
			goto fail;
		if ((rc = seccomp_arch_add(ctx, SCMP_ARCH_X32)) < 0 &&
		    rc != -EEXIST)
			goto fail;
	}
	if (v == KB_SECCOMP_NOTIFY) {
		/* libseccomp asks the running kernel whether it has user
		 * notifications and refuses the action where it has not
		 * (or cannot tell: under valgrind); the program is for the
		 * kernel kinbox will run on, which kinbox-exec asks itself */
		if ((rc = seccomp_api_get()) < 5 &&
		    (rc = seccomp_api_set(5)) < 0)
			goto fail;
		if ((rc = notify_rules(ctx)) < 0)
			goto fail;
		goto export;
	}
	if (v == KB_SECCOMP_META) {
		if ((rc = seccomp_api_get()) < 5 &&
		    (rc = seccomp_api_set(5)) < 0)
			goto fail;
		if ((rc = meta_rules(ctx)) < 0)
			goto fail;
		goto export;
	}
	{
		const unsigned long tio[] = {TIOCSTI, TIOCLINUX};

		for (size_t i = 0; i < nitems(tio); i++) {
			struct scmp_arg_cmp c =
			    SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, tio[i]);

			if ((rc = rule(ctx, eperm, resolve("ioctl"), 1, &c)) <
			    0)
				goto fail;
		}
	}
	for (size_t i = 0; i < nitems(refused_syscalls); i++)
		if ((rc = rule(ctx, eperm, resolve(refused_syscalls[i]), 0,
			 NULL)) < 0)
			goto fail;
	if ((rc = rule(
		 ctx, SCMP_ACT_ERRNO(ENOSYS), resolve("openat2"), 0, NULL)) < 0)
		goto fail;
	for (size_t i = 0; i < nitems(mode_syscalls); i++) {
		const unsigned long bits[] = {S_ISUID, S_ISGID};

		for (size_t b = 0; b < nitems(bits); b++) {
			struct scmp_arg_cmp c = {
			    .arg = mode_syscalls[i].arg,
			    .op = SCMP_CMP_MASKED_EQ,
			    .datum_a = bits[b],
			    .datum_b = bits[b],
			};

			if ((rc = rule(ctx, eperm,
				 resolve(mode_syscalls[i].name), 1, &c)) < 0)
				goto fail;
		}
	}
	if ((v == KB_SECCOMP_BWRAP_MEDIATED || v == KB_SECCOMP_BWRAP_NOUNIX) &&
	    (rc = unix_rules(ctx, v)) < 0)
		goto fail;
	if ((v == KB_SECCOMP_LL_NET || v == KB_SECCOMP_LL_NONET ||
		v == KB_SECCOMP_LL_NONET_ALL) &&
	    (rc = landlock_rules(ctx, v)) < 0)
		goto fail;
	export : fd = memfd_create("kinbox-seccomp", MFD_CLOEXEC);
	if (fd == -1) {
		rc = -errno;
		goto fail;
	}
	if ((rc = seccomp_export_bpf(ctx, fd)) < 0)
		goto fail;
	if (v == KB_SECCOMP_META && (rc = prepend_xattrat(fd)) < 0)
		goto fail;
	if (lseek(fd, 0, SEEK_SET) == -1) {
		rc = -errno;
		goto fail;
	}
	seccomp_release(ctx);
	return fd;
fail:
	seccomp_release(ctx);
	if (fd != -1)
		close(fd);
	return kb_err_set(e,
	    "cannot build the seccomp filter: %s; "
	    "check libseccomp",
	    strerror(-rc));
}

int
kb_seccomp_build_fd(struct kb_err *e)
{
	return kb_seccomp_build_fd_variant(KB_SECCOMP_BWRAP, e);
}
