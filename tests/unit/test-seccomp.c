/*
 * tests/unit/test-seccomp.c — the filter kinbox ships (compiled at build
 * time) is the filter seccomp.c describes today, and it is a sane BPF
 * program: whole sock_filter instructions, ending in a return.
 */
#include <linux/filter.h>
#include <string.h>
#include <unistd.h>

#include "../../backends/backend.h"
#include "tap.h"

int
main(void)
{
	unsigned char buf[65536];
	struct kb_err e;
	size_t len = 0;
	ssize_t n;
	int fd = kb_seccomp_build_fd(&e);

	ok(fd >= 0, "libseccomp compiles the filter");
	while (fd >= 0 && (n = read(fd, buf + len, sizeof(buf) - len)) > 0)
		len += (size_t)n;
	if (fd >= 0)
		close(fd);
	assert_cmpint(len, kb_seccomp_blob_len,
	    "the embedded program has the size of a fresh compile");
	ok(len == kb_seccomp_blob_len &&
		memcmp(buf, kb_seccomp_blob, len) == 0,
	    "the embedded program is byte for byte a fresh compile "
	    "(make rebuilds it from seccomp.c)");
	ok(len % sizeof(struct sock_filter) == 0 && len > 0,
	    "whole BPF instructions (%zu)", len / sizeof(struct sock_filter));
	if (len >= sizeof(struct sock_filter)) {
		struct sock_filter last;

		memcpy(&last, buf + len - sizeof(last), sizeof(last));
		ok(BPF_CLASS(last.code) == BPF_RET, "the program ends in a return");
	}
	fd = kb_seccomp_fd(&e);
	len = 0;
	while (fd >= 0 && (n = read(fd, buf + len, sizeof(buf) - len)) > 0)
		len += (size_t)n;
	ok(fd >= 0 && len == kb_seccomp_blob_len,
	    "kb_seccomp_fd stages the whole program at offset 0");
	if (fd >= 0)
		close(fd);
	return tap_done();
}
