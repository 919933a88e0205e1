/*
 * lib/envfd.c — an environment in a sealed memfd (see hostenv.h): written
 * by kinbox, read by kinbox-exec (--env FD) and by kinbox itself when it
 * executes itself again. Plain libc only: kinbox-exec links it statically
 * without the rest of lib/.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "hostenv.h"

/* execve's own bound on argv + envp is far below */
#define ENV_MAX (64L * 1024 * 1024)

static int
write_all(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, s, n);

		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

int
kb_env_memfd(char *const *envp)
{
	int fd = memfd_create("kinbox-env", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	int errsv;

	if (fd == -1)
		return -1;
	/* a batch of entries a write: an environment of 50 variables is a
	 * system call, not 50 */
	for (char *const *e = envp; e != NULL && *e != NULL;) {
		struct iovec iov[64];
		size_t n = 0, want = 0;
		ssize_t w;

		for (; *e != NULL && n < 64; e++, n++) {
			iov[n].iov_base = *e;
			iov[n].iov_len = strlen(*e) + 1;
			want += iov[n].iov_len;
		}
		while ((w = writev(fd, iov, (int)n)) == -1 && errno == EINTR)
			;
		if (w == -1)
			goto fail;
		/* short: the rest of the batch one entry at a time */
		for (size_t i = 0; (size_t)w < want && i < n; i++) {
			size_t len = iov[i].iov_len;

			if ((size_t)w >= len) {
				w -= (ssize_t)len;
				want -= len;
				continue;
			}
			if (write_all(fd, (const char *)iov[i].iov_base + w,
				len - (size_t)w) == -1)
				goto fail;
			want -= len;
			w = 0;
		}
	}
	if (fcntl(fd, F_ADD_SEALS,
		F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) == -1)
		goto fail;
	return fd;
fail:
	errsv = errno;
	close(fd);
	errno = errsv;
	return -1;
}

char **
kb_env_read(int fd)
{
	struct stat st;
	char *buf, **v;
	size_t n = 0, k = 0, off = 0, size;

	if (fstat(fd, &st) == -1)
		return NULL;
	if (!S_ISREG(st.st_mode) || st.st_size < 0 || st.st_size > ENV_MAX) {
		errno = EINVAL;
		return NULL;
	}
	size = (size_t)st.st_size;
	if ((buf = malloc(size + 1)) == NULL)
		return NULL;
	while (off < size) {
		ssize_t r = pread(fd, buf + off, size - off, (off_t)off);

		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0) {
			free(buf);
			errno = r == 0 ? EINVAL : errno;
			return NULL;
		}
		off += (size_t)r;
	}
	buf[size] = '\0';
	for (size_t i = 0; i < size; i++)
		n += buf[i] == '\0';
	if ((v = calloc(n + 1, sizeof(*v))) == NULL) {
		free(buf);
		return NULL;
	}
	for (size_t i = 0; i < size; i += strlen(buf + i) + 1)
		v[k++] = buf + i;
	v[k] = NULL;
	if (k == 0)
		free(buf); /* v[0] owns it otherwise */
	return v;
}
