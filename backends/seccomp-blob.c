/*
 * backends/seccomp-blob.c — the seccomp filters as kinbox ships them: the
 * BPF programs that seccomp-gen compiled from seccomp.c at build time, put
 * in a memfd for bwrap's --seccomp (or the landlock backend) on each run.
 * tests/unit/test-seccomp.c checks that each equals a fresh compile.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend.h"
#include "seccomp-bpf.h"

/* keep in step with the rules in seccomp.c */
#define KB_SUMMARY_BWRAP                                                       \
	"ioctl TIOCSTI/TIOCLINUX, keyctl/add_key/request_key, setuid/setgid "  \
	"modes in chmod/open/mknod, io_uring, openat2 (ENOSYS)"
#define KB_SUMMARY_LL                                                          \
	KB_SUMMARY_BWRAP ", new user namespaces (unshare/clone; clone3 "       \
			 "ENOSYS), SysV IPC and POSIX message queues, "        \
			 "prlimit64 of other processes, "
#define KB_SUMMARY_PAIR                                                        \
	"every socketpair but AF_UNIX stream/seqpacket, listen() and TCP "     \
	"Fast Open sends (EACCES)"

const char *const kb_seccomp_summary_variant[KB_SECCOMP__N] = {
    [KB_SECCOMP_BWRAP] = KB_SUMMARY_BWRAP,
    [KB_SECCOMP_LL_NET] = KB_SUMMARY_LL
    "AF_UNIX sockets but stream/seqpacket socketpairs (EACCES)",
    [KB_SECCOMP_LL_NONET] =
	KB_SUMMARY_LL "every socket but plain TCP over IPv4/IPv6 and "
		      "NETLINK_ROUTE, " KB_SUMMARY_PAIR,
    [KB_SECCOMP_LL_NONET_ALL] =
	KB_SUMMARY_LL "every socket but NETLINK_ROUTE, " KB_SUMMARY_PAIR,
    [KB_SECCOMP_BWRAP_MEDIATED] = KB_SUMMARY_BWRAP
    ", unix datagram sockets and socketpairs, x86 socketcall (EACCES)",
    [KB_SECCOMP_BWRAP_NOUNIX] = KB_SUMMARY_BWRAP
    ", every socket(AF_UNIX), datagram socketpairs, x86 socketcall "
    "(EACCES)",
    [KB_SECCOMP_NOTIFY] = "nothing: connect() is handed to kinbox",
    [KB_SECCOMP_META] = ("nothing: chmod, chown, utimes and xattr "
			 "changes are handed to kinbox"),
};
const char *const kb_seccomp_summary = KB_SUMMARY_BWRAP;

const unsigned char *const kb_seccomp_blob_variant[KB_SECCOMP__N] = {
    [KB_SECCOMP_BWRAP] = kb_seccomp_bpf_bwrap,
    [KB_SECCOMP_LL_NET] = kb_seccomp_bpf_ll_net,
    [KB_SECCOMP_LL_NONET] = kb_seccomp_bpf_ll_nonet,
    [KB_SECCOMP_LL_NONET_ALL] = kb_seccomp_bpf_ll_nonet_all,
    [KB_SECCOMP_BWRAP_MEDIATED] = kb_seccomp_bpf_bwrap_mediated,
    [KB_SECCOMP_BWRAP_NOUNIX] = kb_seccomp_bpf_bwrap_nounix,
    [KB_SECCOMP_NOTIFY] = kb_seccomp_bpf_notify,
    [KB_SECCOMP_META] = kb_seccomp_bpf_meta,
};
const size_t kb_seccomp_blob_len_variant[KB_SECCOMP__N] = {
    [KB_SECCOMP_BWRAP] = sizeof(kb_seccomp_bpf_bwrap),
    [KB_SECCOMP_LL_NET] = sizeof(kb_seccomp_bpf_ll_net),
    [KB_SECCOMP_LL_NONET] = sizeof(kb_seccomp_bpf_ll_nonet),
    [KB_SECCOMP_LL_NONET_ALL] = sizeof(kb_seccomp_bpf_ll_nonet_all),
    [KB_SECCOMP_BWRAP_MEDIATED] = sizeof(kb_seccomp_bpf_bwrap_mediated),
    [KB_SECCOMP_BWRAP_NOUNIX] = sizeof(kb_seccomp_bpf_bwrap_nounix),
    [KB_SECCOMP_NOTIFY] = sizeof(kb_seccomp_bpf_notify),
    [KB_SECCOMP_META] = sizeof(kb_seccomp_bpf_meta),
};
const unsigned char *const kb_seccomp_blob = kb_seccomp_bpf_bwrap;
const size_t kb_seccomp_blob_len = sizeof(kb_seccomp_bpf_bwrap);

int
kb_seccomp_fd_variant(enum kb_seccomp_variant v, struct kb_err *e)
{
	int fd;

	if ((unsigned)v >= KB_SECCOMP__N)
		return kb_err_set(e, "no seccomp filter %d", (int)v);
	if ((fd = memfd_create("kinbox-seccomp", MFD_CLOEXEC)) == -1)
		return kb_err_set(e, "memfd_create: %s", strerror(errno));
	if (write(fd, kb_seccomp_blob_variant[v],
		kb_seccomp_blob_len_variant[v]) !=
		(ssize_t)kb_seccomp_blob_len_variant[v] ||
	    lseek(fd, 0, SEEK_SET) == -1) {
		int errsv = errno;

		close(fd);
		return kb_err_set(
		    e, "cannot stage the seccomp filter: %s", strerror(errsv));
	}
	return fd;
}

int
kb_seccomp_fd(struct kb_err *e)
{
	return kb_seccomp_fd_variant(KB_SECCOMP_BWRAP, e);
}
