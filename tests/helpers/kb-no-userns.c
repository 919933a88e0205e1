/*
 * tests/helpers/kb-no-userns.c — a test helper: kb-no-userns -- CMD [ARG...]
 *
 * Runs CMD where no user namespace can be created, the way Docker's
 * default seccomp profile (and podman's, and many CI runners) leaves a
 * container: clone() and unshare() with CLONE_NEWUSER fail with EPERM, and
 * clone3() fails with ENOSYS, because its flags sit in a struct that a
 * seccomp filter cannot read; glibc then falls back to clone(), whose flags
 * the filter sees. bubblewrap started below it cannot create its sandbox
 * ("bwrap: No permissions to create new namespace, ...") exactly as in such
 * a container, without any privilege or host setting: this is what lets
 * kinbox's fallback from bwrap to its Landlock backend (--backend auto) be
 * tested for real on a machine where bwrap works.
 *
 * It sets PR_SET_NO_NEW_PRIVS (needed to install a filter without
 * CAP_SYS_ADMIN; it also keeps a setuid bwrap from gaining root), installs
 * a hand-written BPF filter (libc only, so the binary links statically and
 * runs from copies anywhere) and execvp()s CMD. The filter is inherited by
 * every descendant and cannot be removed. Everything else is allowed:
 * fork(), threads, and clone()/unshare() of the other namespaces (which
 * still need privilege of their own).
 *
 * Architectures: only x86_64 is built for (#error elsewhere). A syscall
 * made through any other ABI, i386 (int 0x80 or a 32-bit binary) or x32
 * (numbers with __X32_SYSCALL_BIT), fails with ENOSYS: those tables have
 * clone and unshare under other numbers, which this filter does not
 * decode, so they are refused as a whole rather than let through. No
 * 32-bit program is expected below this helper.
 *
 * Exit status: CMD's; 125 for a usage error or when the filter cannot be
 * installed (one line on stderr); 127 when CMD is not found, 126 when it
 * cannot be executed (as env(1)).
 */
#include <errno.h>
#include <sched.h>
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
#error "kb-no-userns decodes x86_64 syscalls only"
#endif
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the filter reads the low word of args[0] at its first offset"
#endif

#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#define X32_SYSCALL_BIT 0x40000000U

#define LD_ABS(off)     BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define JEQ(k, jt, jf)  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (jt), (jf))
#define JGE(k, jt, jf)  BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, (k), (jt), (jf))
#define JSET(k, jt, jf) BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, (k), (jt), (jf))
#define RET(v)          BPF_STMT(BPF_RET | BPF_K, (v))

/*
 * A jump's offsets count the instructions skipped: from instruction i,
 * offset k lands on i + 1 + k. The numbers in the comments are the
 * instructions' indexes. clone(flags, ...) and unshare(flags) are judged
 * by the low 32 bits of flags: the kernel takes clone's flags from them,
 * and CLONE_NEWUSER (0x10000000) is one of them for unshare too.
 */
static struct sock_filter filter[] = {
    /* 0 */ LD_ABS(offsetof(struct seccomp_data, arch)),
    /* 1 */ JEQ(AUDIT_ARCH_X86_64, 0, 8), /* not x86_64: 10 */
    /* 2 */ LD_ABS(offsetof(struct seccomp_data, nr)),
    /* 3 */ JGE(X32_SYSCALL_BIT, 6, 0), /* x32 (or nr < 0): 10 */
    /* 4 */ JEQ(__NR_clone3, 5, 0),     /* 10 */
    /* 5 */ JEQ(__NR_clone, 1, 0),      /* 7 */
    /* 6 */ JEQ(__NR_unshare, 0, 2),    /* 7, else 9 */
    /* 7 */ LD_ABS(offsetof(struct seccomp_data, args[0])),
    /* 8 */ JSET(CLONE_NEWUSER, 2, 0), /* 11, else 9 */
    /* 9 */ RET(SECCOMP_RET_ALLOW),
    /* 10 */ RET(SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
    /* 11 */ RET(SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
};

/*
 * --no-landlock: also no Landlock, as on a kernel built without it (or a
 * container profile that does not know its calls): landlock_create_ruleset,
 * landlock_add_rule and landlock_restrict_self (444-446) fail with ENOSYS,
 * so that neither of kinbox's backends can run below (kinpolicy hook's
 * "no sandbox here" answer is tested with it). Other architectures are
 * left to the filter above.
 */
#define NR_LANDLOCK_FIRST 444
#define NR_LANDLOCK_END   447
static struct sock_filter no_landlock[] = {
    /* 0 */ LD_ABS(offsetof(struct seccomp_data, arch)),
    /* 1 */ JEQ(AUDIT_ARCH_X86_64, 0, 4), /* not x86_64: 6 */
    /* 2 */ LD_ABS(offsetof(struct seccomp_data, nr)),
    /* 3 */ JGE(NR_LANDLOCK_FIRST, 0, 2), /* below: 6 */
    /* 4 */ JGE(NR_LANDLOCK_END, 1, 0),   /* above: 6 */
    /* 5 */ RET(SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
    /* 6 */ RET(SECCOMP_RET_ALLOW),
};

static int
load(struct sock_filter *f, size_t n)
{
	struct sock_fprog prog = {.len = (unsigned short)n, .filter = f};

	if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == -1) {
		fprintf(stderr, "kb-no-userns: seccomp: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

int
main(int argc, char *argv[])
{
	int err, a = 1;
	int ll = argc > 1 && strcmp(argv[1], "--no-landlock") == 0;

	a += ll;
	if (argc < a + 2 || strcmp(argv[a], "--") != 0) {
		fprintf(stderr,
		    "usage: kb-no-userns [--no-landlock] -- CMD [ARG...]\n");
		return 125;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1) {
		fprintf(stderr, "kb-no-userns: PR_SET_NO_NEW_PRIVS: %s\n",
		    strerror(errno));
		return 125;
	}
	if (load(filter, sizeof(filter) / sizeof(filter[0])) == -1 ||
	    (ll && load(no_landlock,
		       sizeof(no_landlock) / sizeof(no_landlock[0])) == -1))
		return 125;
	execvp(argv[a + 1], argv + a + 1);
	err = errno;
	fprintf(stderr, "kb-no-userns: %s: %s\n", argv[a + 1], strerror(err));
	return err == ENOENT ? 127 : 126;
}
