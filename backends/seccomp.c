/*
 * backends/seccomp.c — the syscall filter handed to bubblewrap (--seccomp).
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
 * 64 and could be bypassed with garbage in the high half).
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <seccomp.h>

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

int
kb_seccomp_build_fd(struct kb_err *e)
{
	scmp_filter_ctx ctx;
	uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
	int fd = -1, rc;

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
	fd = memfd_create("kinbox-seccomp", MFD_CLOEXEC);
	if (fd == -1) {
		rc = -errno;
		goto fail;
	}
	if ((rc = seccomp_export_bpf(ctx, fd)) < 0)
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
