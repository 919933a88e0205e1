/*
 * gitguard/gitindex.c — the gitlinks (mode 160000: submodules and embedded
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

/*
 * The index is read through a window, not whole: a 30,000-file repository's
 * index is megabytes, and kinbox's peak memory should not grow with it.
 * One entry is below ENTRY_FIXED + 2 + 10 + 4096 + 8 bytes, so the window
 * is refilled whenever less than NEED is left in it.
 */
#define WINDOW (64u * 1024)
#define NEED   (ENTRY_FIXED + 2 + 10 + 4096 + 8)

struct window {
	int fd;
	unsigned char *buf;
	size_t start, end; /* the unread bytes: buf[start, end) */
	bool eof;
};

/* The unread bytes, at least NEED of them unless the file ends first. */
static size_t
fill(struct window *w)
{
	if (w->end - w->start >= NEED || w->eof)
		return w->end - w->start;
	memmove(w->buf, w->buf + w->start, w->end - w->start);
	w->end -= w->start;
	w->start = 0;
	while (w->end < WINDOW && !w->eof) {
		ssize_t n = read(w->fd, w->buf + w->end, WINDOW - w->end);

		if (n > 0)
			w->end += (size_t)n;
		else if (n == -1 && errno == EINTR)
			continue;
		else
			w->eof = true;
	}
	return w->end - w->start;
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
	struct window w = {.fd = fd};
	const unsigned char *p, *end;
	uint32_t version, count;
	char path[4096] = "";
	size_t plen = 0;
	struct stat st;
	int rc = -1;

	/* fstat first: a FIFO planted as the index must not block kinbox */
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size > INDEX_MAX)
		return -1;
	w.buf = xmalloc(WINDOW);
	p = w.buf;
	end = p + fill(&w);
	if (end - p < 12 || memcmp(p, "DIRC", 4) != 0)
		goto out;
	version = be32(p + 4);
	count = be32(p + 8);
	if (version < 2 || version > 4)
		goto out;
	w.start += 12;
	for (uint32_t i = 0; i < count; i++) {
		const unsigned char *entry;
		uint32_t mode;
		uint16_t flags;
		const unsigned char *nul;
		size_t have = fill(&w);

		entry = p = w.buf + w.start;
		end = p + have;
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
		w.start += (size_t)(p - entry);
		if ((mode & 0170000) == GITLINK)
			kb_strv_push(out, path);
	}
	rc = 0;
out:
	free(w.buf);
	return rc;
}
