/*
 * backends/seccomp-blob.c — the seccomp filter as kinbox ships it: the BPF
 * program that seccomp-gen compiled from seccomp.c at build time, put in a
 * memfd for bwrap's --seccomp on each run. tests/unit/test-seccomp.c checks
 * that it equals a fresh compile.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend.h"
#include "seccomp-bpf.h"

/* keep in step with the rules in seccomp.c */
const char *const kb_seccomp_summary =
    "ioctl TIOCSTI/TIOCLINUX, keyctl/add_key/request_key, setuid/setgid "
    "modes in chmod/open/mknod, io_uring, openat2 (ENOSYS)";

const unsigned char *const kb_seccomp_blob = kb_seccomp_bpf;
const size_t kb_seccomp_blob_len = sizeof(kb_seccomp_bpf);

int
kb_seccomp_fd(struct kb_err *e)
{
	int fd = memfd_create("kinbox-seccomp", MFD_CLOEXEC);

	if (fd == -1)
		return kb_err_set(e, "memfd_create: %s", strerror(errno));
	if (write(fd, kb_seccomp_bpf, sizeof(kb_seccomp_bpf)) !=
		(ssize_t)sizeof(kb_seccomp_bpf) ||
	    lseek(fd, 0, SEEK_SET) == -1) {
		int errsv = errno;

		close(fd);
		return kb_err_set(
		    e, "cannot stage the seccomp filter: %s", strerror(errsv));
	}
	return fd;
}

/* TEMPORARY */
const char *const kb_seccomp_summary_variant[KB_SECCOMP__N] = {
    "x", "x", "x", "x"};
int
kb_seccomp_fd_variant(enum kb_seccomp_variant v, struct kb_err *e)
{
	(void)v;
	return kb_seccomp_fd(e);
}
