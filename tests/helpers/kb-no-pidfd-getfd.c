/*
 * tests/helpers/kb-no-pidfd-getfd.c — a test helper:
 * kb-no-pidfd-getfd -- CMD [ARG...]
 *
 * Runs CMD where pidfd_getfd(2) fails with EPERM, as a container's seccomp
 * profile can leave it (kinbox's own message names Docker's default, which
 * grants the call only with CAP_SYS_PTRACE). kinbox started below
 * it cannot take the sandboxed command's sockets to connect them on its
 * behalf (mediate/unotify.c), so it falls back to refusing every
 * socket(AF_UNIX) of the command: this is what lets that fallback be
 * tested for real on a machine where mediation works
 * (tests/t31-unix-sockets.sh). Nothing else changes: bubblewrap still makes its
 * namespaces, pidfd_open(2) and the rest of the pidfd calls work.
 *
 * It sets PR_SET_NO_NEW_PRIVS (needed to install a filter without
 * CAP_SYS_ADMIN), installs a hand-written BPF filter (libc only, so the
 * binary links statically and runs from copies anywhere, as
 * kb-no-userns does) and execvp()s CMD. The filter is inherited by every
 * descendant and cannot be removed.
 *
 * Architectures: only x86_64 is built for (#error elsewhere). A syscall
 * made through any other ABI, i386 or x32, fails with ENOSYS: those
 * tables are not decoded here, so they are refused whole rather than let
 * through (pidfd_getfd has the same number, 438, in all of them).
 *
 * Exit status: CMD's; 125 for a usage error or when the filter cannot be
 * installed (one line on stderr); 127 when CMD is not found, 126 when it
 * cannot be executed (as env(1)).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#if !defined(__x86_64__) || defined(__ILP32__)
#error "kb-no-pidfd-getfd decodes x86_64 syscalls only"
#endif

#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif
#define X32_SYSCALL_BIT 0x40000000U

#define LD_ABS(off)    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define JEQ(k, jt, jf) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (jt), (jf))
#define JGE(k, jt, jf) BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, (k), (jt), (jf))
#define RET(v)         BPF_STMT(BPF_RET | BPF_K, (v))

/* A jump's offsets count the instructions skipped: from instruction i,
 * offset k lands on i + 1 + k. The numbers are the instructions' indexes. */
static struct sock_filter filter[] = {
    /* 0 */ LD_ABS(offsetof(struct seccomp_data, arch)),
    /* 1 */ JEQ(AUDIT_ARCH_X86_64, 0, 4), /* not x86_64: 6 */
    /* 2 */ LD_ABS(offsetof(struct seccomp_data, nr)),
    /* 3 */ JGE(X32_SYSCALL_BIT, 2, 0),  /* x32 (or nr < 0): 6 */
    /* 4 */ JEQ(__NR_pidfd_getfd, 2, 0), /* 7 */
    /* 5 */ RET(SECCOMP_RET_ALLOW),
    /* 6 */ RET(SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
    /* 7 */ RET(SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
};

int
main(int argc, char *argv[])
{
	struct sock_fprog prog = {
	    .len = (unsigned short)(sizeof(filter) / sizeof(filter[0])),
	    .filter = filter,
	};
	int err;

	if (argc < 3 || strcmp(argv[1], "--") != 0) {
		fprintf(stderr, "usage: kb-no-pidfd-getfd -- CMD [ARG...]\n");
		return 125;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1) {
		fprintf(stderr, "kb-no-pidfd-getfd: PR_SET_NO_NEW_PRIVS: %s\n",
		    strerror(errno));
		return 125;
	}
	if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == -1) {
		fprintf(stderr, "kb-no-pidfd-getfd: seccomp: %s\n",
		    strerror(errno));
		return 125;
	}
	execvp(argv[2], argv + 2);
	err = errno;
	fprintf(stderr, "kb-no-pidfd-getfd: %s: %s\n", argv[2], strerror(err));
	return err == ENOENT ? 127 : 126;
}
