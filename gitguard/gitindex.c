/*
 * profile/gitindex.c — the gitlinks (mode 160000: submodules and embedded
 * repositories) recorded in a git index file. `git status` in the
 * superproject walks into each of them and obeys their own config
 * (core.fsmonitor runs a program), so a repository the command created
 * and `git add`ed is audited like a new .git at a root. Index versions 2,
 * 3 and 4 (path prefix compression) are read; anything else is refused.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gitguard.h"

#define ENTRY_FIXED 62 /* stat data, mode, sha-1, flags */
#define GITLINK     0160000
#define INDEX_MAX   (256u << 20)

static uint32_t
be32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

/* The whole index from an open descriptor: a regular file of bounded size
 * (fstat first: a FIFO planted as the index must not block kinbox). */
static unsigned char *
slurp(int fd, size_t *len)
{
	struct stat st;
	unsigned char *buf;
	size_t got = 0;

	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size > INDEX_MAX)
		return NULL;
	buf = xmalloc((size_t)st.st_size + 1);
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n <= 0) {
			if (n == -1 && errno == EINTR)
				continue;
			break;
		}
		got += (size_t)n;
	}
	*len = got;
	return buf;
}

/* git's offset varint (used by index v4 for the prefix length) */
static bool
varint(const unsigned char **p, const unsigned char *end, size_t *out)
{
	size_t v;
	unsigned char c;

	if (*p >= end)
		return false;
	c = *(*p)++;
	v = c & 127;
	while (c & 128) {
		if (*p >= end || v > (SIZE_MAX >> 8))
			return false;
		c = *(*p)++;
		v = ((v + 1) << 7) + (c & 127);
	}
	*out = v;
	return true;
}

int
kb_git_index_gitlinks(const char *index, struct kb_strv *out)
{
	int fd = open(
	    index, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	int rc;

	if (fd == -1)
		return -1;
	rc = kb_git_index_gitlinks_fd(fd, out);
	close(fd);
	return rc;
}

int
kb_git_index_gitlinks_fd(int fd, struct kb_strv *out)
{
	size_t len = 0;
	unsigned char *buf = slurp(fd, &len);
	const unsigned char *p, *end;
	uint32_t version, count;
	char path[4096] = "";
	size_t plen = 0;
	int rc = -1;

	if (buf == NULL)
		return -1;
	p = buf;
	end = buf + len;
	if (len < 12 || memcmp(p, "DIRC", 4) != 0)
		goto out;
	version = be32(p + 4);
	count = be32(p + 8);
	if (version < 2 || version > 4)
		goto out;
	p += 12;
	for (uint32_t i = 0; i < count; i++) {
		const unsigned char *entry = p;
		uint32_t mode;
		uint16_t flags;
		const unsigned char *nul;

		if ((size_t)(end - p) < ENTRY_FIXED)
			goto out;
		mode = be32(p + 24);
		memcpy(&flags, p + 60, 2);
		flags = ntohs(flags);
		p += ENTRY_FIXED;
		if (flags & 0x4000) { /* extended flags (v3+) */
			if (version < 3 || end - p < 2)
				goto out;
			p += 2;
		}
		if (version == 4) {
			size_t strip;

			if (!varint(&p, end, &strip) || strip > plen)
				goto out;
			plen -= strip;
		} else {
			plen = 0;
		}
		nul = memchr(p, '\0', (size_t)(end - p));
		if (nul == NULL || plen + (size_t)(nul - p) >= sizeof(path))
			goto out;
		memcpy(path + plen, p, (size_t)(nul - p));
		plen += (size_t)(nul - p);
		path[plen] = '\0';
		p = nul + 1;
		if (version < 4) {
			/* entries are padded with NULs to a multiple of 8 */
			size_t used = (size_t)(p - entry);

			used = (used + 7) & ~(size_t)7;
			if (used > (size_t)(end - entry))
				goto out;
			p = entry + used;
		}
		if ((mode & 0170000) == GITLINK)
			kb_strv_push(out, path);
	}
	rc = 0;
out:
	free(buf);
	return rc;
}
