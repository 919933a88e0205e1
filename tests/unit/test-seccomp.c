/*
 * tests/unit/test-seccomp.c — each filter kinbox ships (compiled at build
 * time) is the filter seccomp.c describes today, it is a sane BPF program
 * (whole sock_filter instructions, ending in a return), and it does what
 * its summary says: a child (this program exec'd with --child, see
 * child_main) loads it and makes the calls it refuses (each fails with the
 * stated errno) and the ones it lets through (they work).
 * On x86-64 the 32-bit paths are called too: int $0x80 from this 64-bit
 * process enters the i386 table (seccomp sees AUDIT_ARCH_I386), and a
 * number with the x32 bit is an x32 call (the filter sees it even on a
 * kernel without x32, which answers ENOSYS when it is let through).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../backends/backend.h"
#include "tap.h"

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#define X32_BIT 0x40000000L
/* the high half of a 64-bit argument, which the kernel drops for an int */
#define HI 0x100000000L

static const char *const variant_name[KB_SECCOMP__N] = {
    [KB_SECCOMP_BWRAP] = "BWRAP",
    [KB_SECCOMP_LL_NET] = "LL_NET",
    [KB_SECCOMP_LL_NONET] = "LL_NONET",
    [KB_SECCOMP_LL_NONET_ALL] = "LL_NONET_ALL",
    [KB_SECCOMP_BWRAP_MEDIATED] = "BWRAP_MEDIATED",
    [KB_SECCOMP_BWRAP_NOUNIX] = "BWRAP_NOUNIX",
    [KB_SECCOMP_NOTIFY] = "NOTIFY",
    [KB_SECCOMP_META] = "META",
};

enum kind {
	K_SYS,        /* syscall(nr, a...) */
	K_I386,       /* int $0x80 */
	K_SOCKETCALL, /* i386 socketcall(a[0], {a[1], a[2], ...}) */
	K_X32,        /* syscall(nr | X32_BIT, a...) */
	K_THREAD,     /* pthread_create (clone3, then clone) */
	K_FORK,       /* fork() */
};

/* what to undo when the call worked */
enum undo {
	U_NONE,
	U_CLOSE, /* close the descriptor it returned */
	U_PAIR,  /* close the two in the pair buffer */
	U_SHM,
	U_SEM,
	U_MSG,
	U_CHILD, /* a clone: the child exits, the caller reaps it */
};

/* argument stand-ins the child replaces by addresses below 4 GiB */
#define P_NAME (-4001L) /* a message queue name that does not exist */
#define P_PAIR (-4002L) /* int[2] */

struct check {
	const char *what;
	enum kind kind;
	long nr;
	long a[5];
	enum undo undo;
	int err; /* the errno of a refusal */
	/* per variant, in enum order: r refused with err, s succeeds,
	 * a let through (any result but err), - not called */
	const char want[KB_SECCOMP__N + 1];
};

static const struct check checks[] = {
    /* the bwrap filter's rules, in every filter */
    {"ioctl(TIOCSTI)", K_SYS, SYS_ioctl, {-1, TIOCSTI, 0}, U_NONE, EPERM,
	"rrrrrr-"},
    /* --gpu: the filter refuses only the ioctls it names; a driver's
     * (DRM_IOCTL_VERSION, an NVIDIA escape, AMDKFD_IOC_GET_VERSION, a
     * terminal's TIOCGWINSZ) reach the kernel (EBADF on fd -1) */
    {"ioctl(DRM_IOCTL_VERSION)", K_SYS, SYS_ioctl, {-1, 0xc0406400L, 0},
	U_NONE, EPERM, "aaaaaa-"},
    {"ioctl(NVIDIA 'F' 0xd2)", K_SYS, SYS_ioctl, {-1, 0xc00446d2L, 0}, U_NONE,
	EPERM, "aaaaaa-"},
    {"ioctl(AMDKFD_IOC_GET_VERSION)", K_SYS, SYS_ioctl, {-1, 0x80084b01L, 0},
	U_NONE, EPERM, "aaaaaa-"},
    {"ioctl(TIOCGWINSZ)", K_SYS, SYS_ioctl, {-1, TIOCGWINSZ, 0}, U_NONE, EPERM,
	"aaaaaa-"},
    {"keyctl", K_SYS, SYS_keyctl, {0, 0, 0}, U_NONE, EPERM, "rrrrrr-"},
    {"chmod(04755)", K_SYS, SYS_chmod, {P_NAME, 04755}, U_NONE, EPERM, "rrrrrr-"},
    {"openat2", K_SYS, SYS_openat2, {AT_FDCWD, P_NAME, 0, 0}, U_NONE, ENOSYS,
	"rrrrrr-"},

    /* the landlock backend's metadata filter: each call notified
     * (ENOSYS here, with no listener attached), setxattrat and
     * removexattrat refused by number on every ABI, no listener of the
     * command's own */
    {"chmod(0644) notified", K_SYS, SYS_chmod, {P_NAME, 0644}, U_NONE, ENOSYS,
	"-------r"},
    {"fchown notified", K_SYS, SYS_fchown, {-1, 0, 0}, U_NONE, ENOSYS,
	"-------r"},
    {"utimensat notified", K_SYS, SYS_utimensat, {AT_FDCWD, P_NAME, 0, 0},
	U_NONE, ENOSYS, "-------r"},
    {"fsetxattr notified", K_SYS, SYS_fsetxattr, {-1, P_NAME, 0, 0, 0},
	U_NONE, ENOSYS, "-------r"},
    {"setxattrat", K_SYS, 463, {AT_FDCWD, P_NAME, 0, P_NAME, 0}, U_NONE,
	ENOSYS, "-------r"},
    {"removexattrat", K_SYS, 466, {AT_FDCWD, P_NAME, 0, P_NAME}, U_NONE,
	ENOSYS, "-------r"},
    {"x32 setxattrat", K_X32, 463, {AT_FDCWD, P_NAME, 0, P_NAME, 0}, U_NONE,
	ENOSYS, "-------r"},
    {"i386 removexattrat", K_I386, 466, {AT_FDCWD, P_NAME, 0, P_NAME},
	U_NONE, ENOSYS, "-------r"},
    {"chmod(0644) in the other filters", K_SYS, SYS_chmod, {P_NAME, 0644},
	U_NONE, ENOSYS, "aaaaaaa-"},

    /* user namespaces */
    {"unshare(CLONE_NEWUSER)", K_SYS, SYS_unshare, {CLONE_NEWUSER}, U_NONE,
	EPERM, "-rrr---"},
    {"unshare(CLONE_NEWUSER|CLONE_NEWNET, high half set)", K_SYS, SYS_unshare,
	{HI | CLONE_NEWUSER | CLONE_NEWNET}, U_NONE, EPERM, "-rrr---"},
    {"unshare(0)", K_SYS, SYS_unshare, {0}, U_NONE, EPERM, "ssssss-"},
    {"clone(CLONE_NEWUSER|SIGCHLD)", K_SYS, SYS_clone,
	{CLONE_NEWUSER | SIGCHLD}, U_CHILD, EPERM, "-rrr---"},
    {"clone(SIGCHLD)", K_SYS, SYS_clone, {SIGCHLD}, U_CHILD, EPERM, "ssssss-"},
    {"clone3", K_SYS, SYS_clone3, {0, 0}, U_NONE, ENOSYS, "-rrr---"},
    {"fork()", K_FORK, 0, {0}, U_CHILD, EPERM, "ssssss-"},
    {"pthread_create (clone3 falls back to clone)", K_THREAD, 0, {0}, U_NONE,
	ENOSYS, "ssssss-"},

    /* what Landlock's TCP hooks miss with the network off: listen()'s
     * autobind, TCP Fast Open; a host process's resource limits */
    {"listen", K_SYS, SYS_listen, {-1, 1}, U_NONE, EACCES, "aarraa-"},
    {"sendto(MSG_FASTOPEN)", K_SYS, SYS_sendto, {-1, 0, 0, 0x20000000, 0},
	U_NONE, EACCES, "aarraa-"},
    {"sendto(flags 0)", K_SYS, SYS_sendto, {-1, 0, 0, 0, 0}, U_NONE, EACCES,
	"aaaaaa-"},
    /* the connect() filter: a notification, which without a listener
     * fails with ENOSYS; the command's own listener is refused */
    {"connect", K_SYS, SYS_connect, {-1, 0, 0}, U_NONE, ENOSYS, "aaaaaar"},
    {"seccomp(SET_MODE_FILTER, NEW_LISTENER)", K_SYS, SYS_seccomp,
	{SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, 0},
	U_NONE, EPERM, "aaaaaarr"},
    {"seccomp(SET_MODE_FILTER, 0)", K_SYS, SYS_seccomp,
	{SECCOMP_SET_MODE_FILTER, 0, 0}, U_NONE, EPERM, "aaaaaaa"},
    {"sendmsg(MSG_FASTOPEN)", K_SYS, SYS_sendmsg, {-1, 0, 0x20000000},
	U_NONE, EACCES, "aarraa-"},
    {"sendmmsg(MSG_FASTOPEN)", K_SYS, SYS_sendmmsg, {-1, 0, 0, 0x20000000},
	U_NONE, EACCES, "aarraa-"},
    {"prlimit64(another pid)", K_SYS, SYS_prlimit64,
	{0x3ffffff0, RLIMIT_NOFILE, 0, 0}, U_NONE, EPERM, "arrraa-"},
    {"prlimit64(0), get", K_SYS, SYS_prlimit64, {0, RLIMIT_NOFILE, 0, 0},
	U_NONE, EPERM, "ssssss-"},

    /* the host's SysV IPC and POSIX message queues */
    {"shmget(IPC_PRIVATE)", K_SYS, SYS_shmget,
	{IPC_PRIVATE, 4096, IPC_CREAT | 0600}, U_SHM, EPERM, "srrrss-"},
    {"shmat", K_SYS, SYS_shmat, {-1, 0, 0}, U_NONE, EPERM, "arrraa-"},
    {"shmdt", K_SYS, SYS_shmdt, {0}, U_NONE, EPERM, "arrraa-"},
    {"shmctl", K_SYS, SYS_shmctl, {-1, IPC_STAT, 0}, U_NONE, EPERM, "arrraa-"},
    {"semget(IPC_PRIVATE)", K_SYS, SYS_semget,
	{IPC_PRIVATE, 1, IPC_CREAT | 0600}, U_SEM, EPERM, "srrrss-"},
    {"semop", K_SYS, SYS_semop, {-1, 0, 0}, U_NONE, EPERM, "arrraa-"},
    {"semtimedop", K_SYS, SYS_semtimedop, {-1, 0, 0, 0}, U_NONE, EPERM, "arrraa-"},
    {"semctl", K_SYS, SYS_semctl, {-1, 0, IPC_STAT, 0}, U_NONE, EPERM, "arrraa-"},
    {"msgget(IPC_PRIVATE)", K_SYS, SYS_msgget, {IPC_PRIVATE, IPC_CREAT | 0600},
	U_MSG, EPERM, "srrrss-"},
    {"msgsnd", K_SYS, SYS_msgsnd, {-1, 0, 0, 0}, U_NONE, EPERM, "arrraa-"},
    {"msgrcv", K_SYS, SYS_msgrcv, {-1, 0, 0, 0, 0}, U_NONE, EPERM, "arrraa-"},
    {"msgctl", K_SYS, SYS_msgctl, {-1, IPC_STAT, 0}, U_NONE, EPERM, "arrraa-"},
    {"mq_open", K_SYS, SYS_mq_open, {P_NAME, O_RDONLY, 0, 0}, U_CLOSE, EPERM,
	"arrraa-"},
    {"mq_unlink", K_SYS, SYS_mq_unlink, {P_NAME}, U_NONE, EPERM, "arrraa-"},
    {"mq_timedsend", K_SYS, SYS_mq_timedsend, {-1, 0, 0, 0, 0}, U_NONE, EPERM,
	"arrraa-"},
    {"mq_timedreceive", K_SYS, SYS_mq_timedreceive, {-1, 0, 0, 0, 0}, U_NONE,
	EPERM, "arrraa-"},
    {"mq_notify", K_SYS, SYS_mq_notify, {-1, 0}, U_NONE, EPERM, "arrraa-"},
    {"mq_getsetattr", K_SYS, SYS_mq_getsetattr, {-1, 0, 0}, U_NONE, EPERM,
	"arrraa-"},

    /* unix sockets */
    {"socket(AF_UNIX, SOCK_STREAM)", K_SYS, SYS_socket,
	{AF_UNIX, SOCK_STREAM, 0}, U_CLOSE, EACCES, "srrrsr-"},
    {"socket(AF_UNIX, SOCK_DGRAM|SOCK_CLOEXEC)", K_SYS, SYS_socket,
	{AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0}, U_CLOSE, EACCES, "srrrrr-"},
    {"socket(AF_UNIX, high half set)", K_SYS, SYS_socket,
	{HI | AF_UNIX, SOCK_STREAM, 0}, U_CLOSE, EACCES, "srrrsr-"},
    {"socketpair(AF_UNIX, SOCK_STREAM)", K_SYS, SYS_socketpair,
	{AF_UNIX, SOCK_STREAM, 0, P_PAIR}, U_PAIR, EACCES, "ssssss-"},
    {"socketpair(AF_UNIX, SOCK_STREAM|SOCK_NONBLOCK|SOCK_CLOEXEC)", K_SYS,
	SYS_socketpair,
	{AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, P_PAIR},
	U_PAIR, EACCES, "ssssss-"},
    {"socketpair(AF_UNIX, SOCK_SEQPACKET)", K_SYS, SYS_socketpair,
	{AF_UNIX, SOCK_SEQPACKET, 0, P_PAIR}, U_PAIR, EACCES, "ssssss-"},
    {"socketpair(AF_UNIX, SOCK_DGRAM)", K_SYS, SYS_socketpair,
	{AF_UNIX, SOCK_DGRAM, 0, P_PAIR}, U_PAIR, EACCES, "srrrrr-"},
    {"socketpair(AF_UNIX, SOCK_DGRAM|SOCK_CLOEXEC)", K_SYS, SYS_socketpair,
	{AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, P_PAIR}, U_PAIR, EACCES,
	"srrrrr-"},
    {"socketpair(AF_UNIX, SOCK_RAW) (a datagram pair)", K_SYS, SYS_socketpair,
	{AF_UNIX, SOCK_RAW, 0, P_PAIR}, U_PAIR, EACCES, "srrrrr-"},
    {"socketpair(AF_INET, SOCK_STREAM)", K_SYS, SYS_socketpair,
	{AF_INET, SOCK_STREAM, 0, P_PAIR}, U_PAIR, EACCES, "aarraa-"},

    /* the network */
    {"socket(AF_INET, SOCK_STREAM, 0)", K_SYS, SYS_socket,
	{AF_INET, SOCK_STREAM, 0}, U_CLOSE, EACCES, "sssrss-"},
    {"socket(AF_INET, SOCK_STREAM|SOCK_NONBLOCK|SOCK_CLOEXEC, "
     "IPPROTO_TCP)",
	K_SYS, SYS_socket,
	{AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP},
	U_CLOSE, EACCES, "sssrss-"},
    {"socket(AF_INET6, SOCK_STREAM, IPPROTO_TCP)", K_SYS, SYS_socket,
	{AF_INET6, SOCK_STREAM, IPPROTO_TCP}, U_CLOSE, EACCES, "aaaraa-"},
    {"socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP)", K_SYS, SYS_socket,
	{AF_INET, SOCK_STREAM, IPPROTO_MPTCP}, U_CLOSE, EACCES, "aarraa-"},
    {"socket(AF_INET6, SOCK_STREAM, IPPROTO_MPTCP)", K_SYS, SYS_socket,
	{AF_INET6, SOCK_STREAM, IPPROTO_MPTCP}, U_CLOSE, EACCES, "aarraa-"},
    {"socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP)", K_SYS, SYS_socket,
	{AF_INET, SOCK_STREAM, IPPROTO_SCTP}, U_CLOSE, EACCES, "aarraa-"},
    {"socket(AF_INET, SOCK_STREAM, 5)", K_SYS, SYS_socket,
	{AF_INET, SOCK_STREAM, 5}, U_CLOSE, EACCES, "aarraa-"},
    {"socket(AF_INET, SOCK_STREAM, 7)", K_SYS, SYS_socket,
	{AF_INET, SOCK_STREAM, 7}, U_CLOSE, EACCES, "aarraa-"},
    {"socket(AF_INET, SOCK_STREAM, IPPROTO_TCP, high half set)", K_SYS,
	SYS_socket, {AF_INET, SOCK_STREAM, HI | IPPROTO_TCP}, U_CLOSE, EACCES,
	"ssrrss-"},
    {"socket(AF_INET, SOCK_DGRAM, 0)", K_SYS, SYS_socket,
	{AF_INET, SOCK_DGRAM, 0}, U_CLOSE, EACCES, "ssrrss-"},
    {"socket(AF_INET6, SOCK_DGRAM|SOCK_CLOEXEC, 0)", K_SYS, SYS_socket,
	{AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0}, U_CLOSE, EACCES, "aarraa-"},
    {"socket(AF_INET, SOCK_DGRAM, high half set)", K_SYS, SYS_socket,
	{AF_INET, HI | SOCK_DGRAM, 0}, U_CLOSE, EACCES, "ssrrss-"},
    {"socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP)", K_SYS, SYS_socket,
	{AF_INET, SOCK_DGRAM, IPPROTO_ICMP}, U_CLOSE, EACCES, "--rr---"},
    {"socket(AF_INET, SOCK_RAW, IPPROTO_ICMP)", K_SYS, SYS_socket,
	{AF_INET, SOCK_RAW, IPPROTO_ICMP}, U_CLOSE, EACCES, "aarraa-"},
    {"socket(AF_INET, SOCK_SEQPACKET, 0)", K_SYS, SYS_socket,
	{AF_INET, SOCK_SEQPACKET, 0}, U_CLOSE, EACCES, "aarraa-"},
    {"socket(AF_INET, SOCK_PACKET, 0)", K_SYS, SYS_socket,
	{AF_INET, SOCK_PACKET, 0}, U_CLOSE, EACCES, "aarraa-"},
    {"socket(AF_INET, high half set)", K_SYS, SYS_socket,
	{HI | AF_INET, SOCK_STREAM, 0}, U_CLOSE, EACCES, "ssrrss-"},
    {"socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE)", K_SYS, SYS_socket,
	{AF_NETLINK, SOCK_RAW, 0}, U_CLOSE, EACCES, "ssssss-"},
    {"socket(AF_NETLINK, SOCK_DGRAM|SOCK_CLOEXEC, NETLINK_ROUTE)", K_SYS,
	SYS_socket, {AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, 0}, U_CLOSE, EACCES,
	"ssssss-"},
    {"socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT)", K_SYS, SYS_socket,
	{AF_NETLINK, SOCK_RAW, 9}, U_CLOSE, EACCES, "aarraa-"},
    {"socket(AF_NETLINK, SOCK_RAW, NETLINK_SOCK_DIAG)", K_SYS, SYS_socket,
	{AF_NETLINK, SOCK_RAW, 4}, U_CLOSE, EACCES, "aarraa-"},
    {"socket(AF_UNSPEC)", K_SYS, SYS_socket, {AF_UNSPEC, SOCK_STREAM, 0},
	U_CLOSE, EACCES, "aarraa-"},
    {"socket(AF_PACKET, SOCK_RAW)", K_SYS, SYS_socket, {AF_PACKET, SOCK_RAW, 0},
	U_CLOSE, EACCES, "aarraa-"},
    {"socket(AF_KEY)", K_SYS, SYS_socket, {AF_KEY, SOCK_RAW, 2}, U_CLOSE,
	EACCES, "aarraa-"},
    {"socket(AF_CAN)", K_SYS, SYS_socket, {AF_CAN, SOCK_RAW, 1}, U_CLOSE,
	EACCES, "aarraa-"},
    {"socket(AF_TIPC)", K_SYS, SYS_socket, {AF_TIPC, SOCK_RDM, 0}, U_CLOSE,
	EACCES, "aarraa-"},
    {"socket(AF_BLUETOOTH)", K_SYS, SYS_socket, {AF_BLUETOOTH, SOCK_STREAM, 0},
	U_CLOSE, EACCES, "aarraa-"},
    {"socket(AF_ALG)", K_SYS, SYS_socket, {AF_ALG, SOCK_SEQPACKET, 0}, U_CLOSE,
	EACCES, "aarraa-"},
    {"socket(AF_VSOCK)", K_SYS, SYS_socket, {AF_VSOCK, SOCK_STREAM, 0}, U_CLOSE,
	EACCES, "aarraa-"},
    {"socket(AF_XDP)", K_SYS, SYS_socket, {AF_XDP, SOCK_RAW, 0}, U_CLOSE,
	EACCES, "aarraa-"},
    {"socket(AF_MAX)", K_SYS, SYS_socket, {AF_MAX, SOCK_STREAM, 0}, U_CLOSE,
	EACCES, "aarraa-"},
    {"socket(family 255)", K_SYS, SYS_socket, {255, SOCK_STREAM, 0}, U_CLOSE,
	EACCES, "aarraa-"},
    {"socket(family -1)", K_SYS, SYS_socket, {-1, SOCK_STREAM, 0}, U_CLOSE,
	EACCES, "aarraa-"},

#if defined(__x86_64__)
    /* i386: the direct calls and the multiplexers */
    {"i386 socket(AF_UNIX)", K_I386, 359, {AF_UNIX, SOCK_STREAM, 0}, U_CLOSE,
	EACCES, "srrrsr-"},
    {"i386 socket(AF_INET, SOCK_STREAM)", K_I386, 359,
	{AF_INET, SOCK_STREAM, 0}, U_CLOSE, EACCES, "sssrss-"},
    {"i386 socket(AF_INET, SOCK_DGRAM)", K_I386, 359, {AF_INET, SOCK_DGRAM, 0},
	U_CLOSE, EACCES, "ssrrss-"},
    {"i386 socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP)", K_I386, 359,
	{AF_INET, SOCK_STREAM, IPPROTO_MPTCP}, U_CLOSE, EACCES, "aarraa-"},
    {"i386 socket(AF_VSOCK)", K_I386, 359, {AF_VSOCK, SOCK_STREAM, 0}, U_CLOSE,
	EACCES, "aarraa-"},
    {"i386 socket(AF_NETLINK, NETLINK_ROUTE)", K_I386, 359,
	{AF_NETLINK, SOCK_RAW, 0}, U_CLOSE, EACCES, "ssssss-"},
    {"i386 socketpair(AF_UNIX, SOCK_STREAM)", K_I386, 360,
	{AF_UNIX, SOCK_STREAM, 0, P_PAIR}, U_PAIR, EACCES, "ssssss-"},
    {"i386 socketpair(AF_UNIX, SOCK_DGRAM)", K_I386, 360,
	{AF_UNIX, SOCK_DGRAM, 0, P_PAIR}, U_PAIR, EACCES, "srrrrr-"},
    {"i386 socketcall(SYS_SOCKET, AF_INET)", K_SOCKETCALL, 102,
	{1, AF_INET, SOCK_STREAM, 0}, U_CLOSE, EACCES, "srrrrr-"},
    {"i386 socketcall(SYS_SOCKETPAIR, AF_UNIX)", K_SOCKETCALL, 102,
	{8, AF_UNIX, SOCK_STREAM, 0, P_PAIR}, U_PAIR, EACCES, "srrrrr-"},
    {"i386 socketcall(SYS_CONNECT)", K_SOCKETCALL, 102, {3, -1, 0, 0},
	U_NONE, EACCES, "aaaarr-"},
    {"i386 connect", K_I386, 362, {-1, 0, 0}, U_NONE, ENOSYS, "aaaaaar"},
    {"i386 shmget", K_I386, 395, {IPC_PRIVATE, 4096, IPC_CREAT | 0600}, U_SHM,
	EPERM, "srrrss-"},
    {"i386 ipc(SHMGET)", K_I386, 117, {23, IPC_PRIVATE, 4096, IPC_CREAT | 0600},
	U_SHM, EPERM, "srrrss-"},
    {"i386 ipc(SHMGET, version 1)", K_I386, 117,
	{(1 << 16) | 23, IPC_PRIVATE, 4096, IPC_CREAT | 0600}, U_SHM, EPERM,
	"arrraa-"},
    {"i386 ipc(SEMTIMEDOP)", K_I386, 117, {4, -1, 0, 0, 0}, U_NONE, EPERM,
	"arrraa-"},
    {"i386 semtimedop_time64", K_I386, 420, {-1, 0, 0, 0}, U_NONE, EPERM,
	"arrraa-"},
    {"i386 mq_open", K_I386, 277, {P_NAME, O_RDONLY, 0, 0}, U_CLOSE, EPERM,
	"arrraa-"},
    {"i386 mq_timedsend_time64", K_I386, 418, {-1, 0, 0, 0, 0}, U_NONE, EPERM,
	"arrraa-"},
    {"i386 mq_timedreceive_time64", K_I386, 419, {-1, 0, 0, 0, 0}, U_NONE,
	EPERM, "arrraa-"},
    {"i386 unshare(CLONE_NEWUSER)", K_I386, 310, {CLONE_NEWUSER}, U_NONE, EPERM,
	"-rrr---"},
    {"i386 unshare(0)", K_I386, 310, {0}, U_NONE, EPERM, "ssssss-"},
    {"i386 clone(CLONE_NEWUSER|SIGCHLD)", K_I386, 120,
	{CLONE_NEWUSER | SIGCHLD}, U_CHILD, EPERM, "-rrr---"},
    {"i386 clone3", K_I386, 435, {0, 0}, U_NONE, ENOSYS, "-rrr---"},
    {"i386 keyctl", K_I386, 288, {0, 0, 0}, U_NONE, EPERM, "rrrrrr-"},

    /* x32 (ENOSYS when let through to a kernel without it) */
    {"x32 socket(AF_UNIX)", K_X32, SYS_socket, {AF_UNIX, SOCK_STREAM, 0},
	U_CLOSE, EACCES, "arrrar-"},
    {"x32 socket(AF_INET, SOCK_STREAM)", K_X32, SYS_socket,
	{AF_INET, SOCK_STREAM, 0}, U_CLOSE, EACCES, "aaaraa-"},
    {"x32 socket(AF_INET, SOCK_DGRAM)", K_X32, SYS_socket,
	{AF_INET, SOCK_DGRAM, 0}, U_CLOSE, EACCES, "aarraa-"},
    {"x32 socketpair(AF_UNIX, SOCK_DGRAM)", K_X32, SYS_socketpair,
	{AF_UNIX, SOCK_DGRAM, 0, P_PAIR}, U_PAIR, EACCES, "arrrrr-"},

    {"x32 shmget", K_X32, SYS_shmget, {IPC_PRIVATE, 4096, IPC_CREAT | 0600},
	U_SHM, EPERM, "arrraa-"},
    {"x32 mq_notify", K_X32, 527, {-1, 0}, U_NONE, EPERM, "arrraa-"},
    {"x32 unshare(CLONE_NEWUSER)", K_X32, SYS_unshare, {CLONE_NEWUSER}, U_NONE,
	EPERM, "-rrr---"},
    {"x32 clone(CLONE_NEWUSER|SIGCHLD)", K_X32, SYS_clone,
	{CLONE_NEWUSER | SIGCHLD}, U_CHILD, EPERM, "-rrr---"},
#endif
};

#define NCHECKS nitems(checks)

#if defined(__x86_64__)
/* an i386 system call from 64-bit code; the kernel reads the low 32 bits
 * of ebx, ecx, edx, esi, edi */
static long
i386_call(long nr, long a0, long a1, long a2, long a3, long a4)
{
	long r;

	__asm__ volatile("int $0x80"
			 : "=a"(r)
			 : "a"(nr), "b"(a0), "c"(a1), "d"(a2), "S"(a3), "D"(a4)
			 : "r8", "r9", "r10", "r11", "memory");
	return (long)(int)r; /* -errno, sign-extended */
}
#endif

/* 32-bit addressable scratch memory: the mq name, then an int[2], then
 * socketcall's argument vector at 129 */
static char *scratch;

static long
arg(long v)
{
	if (v == P_NAME)
		return (long)(uintptr_t)scratch;
	if (v == P_PAIR)
		return (long)(uintptr_t)(scratch + 64);
	return v;
}

static void *
thread_main(void *p)
{
	return p;
}

/* 0 when the call worked, else its errno */
static int
call(const struct check *c)
{
	long a[5], r = -1;
	int err = 0;

	for (size_t i = 0; i < nitems(a); i++)
		a[i] = arg(c->a[i]);
	errno = 0;
	switch (c->kind) {
	case K_SYS:
	case K_X32:
		r = syscall(c->nr | (c->kind == K_X32 ? X32_BIT : 0), a[0],
		    a[1], a[2], a[3], a[4]);
		err = r < 0 ? errno : 0;
		break;
	case K_I386:
	case K_SOCKETCALL:
#if defined(__x86_64__)
		if (c->kind == K_SOCKETCALL) {
			/* at an odd address, so that libseccomp's own
			 * socketcall rules (made from the socketpair ones:
			 * they test the pointer's low bits) do not refuse
			 * it by chance */
			char *v = scratch + 129;

			for (size_t i = 1; i < nitems(a); i++) {
				uint32_t x = (uint32_t)a[i];

				memcpy(v + 4 * (i - 1), &x, sizeof(x));
			}
			r = i386_call(c->nr, a[0], (long)(uintptr_t)v, 0, 0, 0);
		} else
			r = i386_call(c->nr, a[0], a[1], a[2], a[3], a[4]);
		err = r < 0 ? (int)-r : 0;
#endif
		break;
	case K_THREAD: {
		pthread_t t;

		if ((err = pthread_create(&t, NULL, thread_main, NULL)) == 0)
			pthread_join(t, NULL);
		return err;
	}
	case K_FORK:
		r = fork();
		err = r < 0 ? errno : 0;
		break;
	}
	if (r < 0)
		return err;
	switch (c->undo) {
	case U_NONE:
		break;
	case U_CLOSE:
		close((int)r);
		break;
	case U_PAIR:
		close(((int *)(void *)(scratch + 64))[0]);
		close(((int *)(void *)(scratch + 64))[1]);
		break;
	case U_SHM:
		shmctl((int)r, IPC_RMID, NULL);
		break;
	case U_SEM:
		semctl((int)r, 0, IPC_RMID);
		break;
	case U_MSG:
		msgctl((int)r, IPC_RMID, NULL);
		break;
	case U_CHILD:
		if (r == 0)
			_exit(0);
		waitpid((pid_t)r, NULL, 0);
		break;
	}
	return 0;
}

/* Which 32-bit paths reach seccomp here (under valgrind they may not): a
 * child loads a filter that answers EXDEV to getpid from i386 (20) and
 * x32 (39) and calls both. Bit 0: i386, bit 1: x32. */
static int
abis(void)
{
#if defined(__x86_64__)
	struct sock_filter f[] = {
	    /* 0 */ BPF_STMT(
		BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	    /* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, 0, 2),
	    /* 2 */
	    BPF_STMT(
		BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    /* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 20, 3, 4),
	    /* 4 */
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 3),
	    /* 5 */
	    BPF_STMT(
		BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    /* 6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, X32_BIT | 39, 0, 1),
	    /* 7 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EXDEV),
	    /* 8 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = nitems(f), .filter = f};
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		int got = 0;

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
			_exit(0);
		if (i386_call(20, 0, 0, 0, 0, 0) == -EXDEV)
			got |= 1;
		if (syscall(X32_BIT | 39) == -1 && errno == EXDEV)
			got |= 2;
		_exit(got);
	}
	if (pid == -1 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 0;
	return WEXITSTATUS(st);
#else
	return 0;
#endif
}

static bool
runs(const struct check *c, enum kb_seccomp_variant v, int abi)
{
	/* a check whose string stops short of a variant is not run there
	 * (META's own checks are its only ones) */
	if (c->want[v] == '-' || c->want[v] == '\0')
		return false;
	if (c->kind == K_I386 || c->kind == K_SOCKETCALL)
		return abi & 1;
	if (c->kind == K_X32)
		return abi & 2;
	return true;
}

static size_t
slurp(int fd, unsigned char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (fd >= 0 && (n = read(fd, buf + len, size - len)) > 0)
		len += (size_t)n;
	if (fd >= 0)
		close(fd);
	return len;
}

/*
 * test-seccomp --child V FD: what a child of behaves() runs. It loads the
 * filter kinbox ships for variant V (kb_seccomp_fd_variant's bytes), makes
 * the calls and writes the ABIs it could call (abis()) and the result of
 * each call to FD. It is exec'd, not forked, so that valgrind (which does
 * not follow an exec by default, and emulates the calls itself) leaves it
 * alone: the kernel sees each call as it is written here.
 */
static int
child_main(const char *vs, const char *fds)
{
	static unsigned char bpf[BPF_MAXINSNS * sizeof(struct sock_filter)];
	static struct sock_filter f[BPF_MAXINSNS];
	int v = atoi(vs), out = atoi(fds), res[1 + NCHECKS];
	struct kb_err e;
	struct sock_fprog prog;
	size_t len;

	if (v < 0 || v >= KB_SECCOMP__N)
		_exit(2);
	scratch = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (scratch == MAP_FAILED)
		_exit(3);
	strcpy(scratch, "kinbox-test-no-such-queue");
	res[0] = abis();
	len = slurp(kb_seccomp_fd_variant(v, &e), bpf, sizeof(bpf));
	if (len == 0 || len % sizeof(f[0]) != 0 || len == sizeof(bpf))
		_exit(4);
	memcpy(f, bpf, len);
	prog.len = (unsigned short)(len / sizeof(f[0]));
	prog.filter = f;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
		_exit(5);
	for (size_t i = 0; i < NCHECKS; i++)
		res[1 + i] =
		    runs(&checks[i], (enum kb_seccomp_variant)v, res[0])
			? call(&checks[i])
			: -1;
	if (write(out, res, sizeof(res)) != (ssize_t)sizeof(res))
		_exit(6);
	_exit(0);
}

/* Runs `self` --child for filter `v` and reports each call's result. */
static void
behaves(const char *self, enum kb_seccomp_variant v)
{
	const char *name = variant_name[v];
	int res[1 + NCHECKS], p[2], st = -1, abi;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(p) != 0) {
		ok(0, "%s: pipe: %s", name, strerror(errno));
		return;
	}
	fflush(stdout);
	if ((pid = fork()) == 0) {
		char vs[16], fds[16];

		close(p[0]);
		snprintf(vs, sizeof(vs), "%d", (int)v);
		snprintf(fds, sizeof(fds), "%d", p[1]);
		execl(self, self, "--child", vs, fds, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while (pid > 0 && got < sizeof(res) &&
	       (n = read(p[0], (char *)res + got, sizeof(res) - got)) > 0)
		got += (size_t)n;
	close(p[0]);
	if (pid > 0)
		waitpid(pid, &st, 0);
	ok(pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
		got == sizeof(res),
	    "%s: a child loads the filter and makes %zu calls", name, NCHECKS);
	if (got != sizeof(res)) {
		if (pid > 0 && WIFEXITED(st))
			printf("#   exit status %d\n", WEXITSTATUS(st));
		return;
	}
	abi = res[0];
	if (!(abi & 1))
		tap_skip("%s: the i386 calls (they do not reach seccomp here)",
		    name);
	if (!(abi & 2))
		tap_skip(
		    "%s: the x32 calls (they do not reach seccomp here)", name);
	for (size_t i = 0; i < NCHECKS; i++) {
		const struct check *c = &checks[i];
		int got_err = res[1 + i];
		const char *what = "";
		bool pass = false;

		if (!runs(c, v, abi))
			continue;
		switch (c->want[v]) {
		case 'r':
			pass = got_err == c->err;
			what = "is refused";
			break;
		case 's':
			pass = got_err == 0;
			what = "succeeds";
			break;
		default:
			pass = got_err != c->err;
			what = "is let through";
			break;
		}
		ok(pass, "%s: %s %s%s%s", name, c->what, what,
		    c->want[v] == 'r' ? " with " : "",
		    c->want[v] == 'r' ? strerrorname_np(c->err) : "");
		if (!pass)
			printf("#   got %s\n",
			    got_err ? strerrorname_np(got_err) : "success");
	}
}

int
main(int argc, char **argv)
{
	static unsigned char buf[65536], shipped[65536];
	struct kb_err e;
	size_t len;

	if (argc == 4 && strcmp(argv[1], "--child") == 0)
		return child_main(argv[2], argv[3]);
	if (argc != 1 || strchr(argv[0], '/') == NULL) {
		printf("Bail out! run as a path, without arguments\n");
		return 1;
	}
	ok(kb_seccomp_blob == kb_seccomp_blob_variant[KB_SECCOMP_BWRAP] &&
		kb_seccomp_blob_len ==
		    kb_seccomp_blob_len_variant[KB_SECCOMP_BWRAP],
	    "kb_seccomp_blob is the bwrap filter's");
	assert_cmpstr(kb_seccomp_summary,
	    kb_seccomp_summary_variant[KB_SECCOMP_BWRAP],
	    "kb_seccomp_summary is the bwrap filter's");
	ok(kb_seccomp_fd_variant(KB_SECCOMP__N, &e) == -1 &&
		kb_seccomp_build_fd_variant(KB_SECCOMP__N, &e) == -1,
	    "no filter past the last");

	/* kb_seccomp_build_fd and kb_seccomp_fd are the bwrap filter's */
	len = slurp(kb_seccomp_build_fd(&e), buf, sizeof(buf));
	ok(len == kb_seccomp_blob_len && memcmp(buf, kb_seccomp_blob, len) == 0,
	    "kb_seccomp_build_fd compiles the bwrap filter");
	len = slurp(kb_seccomp_fd(&e), buf, sizeof(buf));
	ok(len == kb_seccomp_blob_len && memcmp(buf, kb_seccomp_blob, len) == 0,
	    "kb_seccomp_fd stages the bwrap filter");

	for (int i = 0; i < KB_SECCOMP__N; i++) {
		enum kb_seccomp_variant v = (enum kb_seccomp_variant)i;
		const char *name = variant_name[v];
		const char *sum = kb_seccomp_summary_variant[v];
		const unsigned char *blob = kb_seccomp_blob_variant[v];
		size_t blen = kb_seccomp_blob_len_variant[v], slen;
		int fd = kb_seccomp_build_fd_variant(v, &e);

		ok(fd >= 0, "%s: libseccomp compiles the filter", name);
		len = slurp(fd, buf, sizeof(buf));
		assert_cmpint(len, blen,
		    "%s: the embedded program has the size of a fresh compile",
		    name);
		ok(len == blen && memcmp(buf, blob, len) == 0,
		    "%s: the embedded program is byte for byte a fresh compile "
		    "(make rebuilds it from seccomp.c)",
		    name);
		ok(blen % sizeof(struct sock_filter) == 0 && blen > 0 &&
			blen / sizeof(struct sock_filter) <= BPF_MAXINSNS,
		    "%s: whole BPF instructions (%zu)", name,
		    blen / sizeof(struct sock_filter));
		if (blen >= sizeof(struct sock_filter)) {
			struct sock_filter last;

			memcpy(&last, blob + blen - sizeof(last), sizeof(last));
			ok(BPF_CLASS(last.code) == BPF_RET,
			    "%s: the program ends in a return", name);
		}
		slen = slurp(
		    kb_seccomp_fd_variant(v, &e), shipped, sizeof(shipped));
		ok(slen == blen && memcmp(shipped, blob, blen) == 0,
		    "%s: kb_seccomp_fd_variant stages the whole program at "
		    "offset 0",
		    name);
		ok(sum != NULL && *sum != '\0' && strchr(sum, '\n') == NULL,
		    "%s: a one-line summary", name);
		if (v != KB_SECCOMP_BWRAP && v != KB_SECCOMP_NOTIFY &&
		    v != KB_SECCOMP_META)
			ok(sum != NULL &&
				strncmp(sum, kb_seccomp_summary,
				    strlen(kb_seccomp_summary)) == 0 &&
				strlen(sum) > strlen(kb_seccomp_summary),
			    "%s: the summary names the bwrap filter's "
			    "refusals, "
			    "then more",
			    name);
		behaves(argv[0], v);
	}
	return tap_done();
}
