/*
 * tests/unit/tree.h — a scratch tree below `base` for the path tests
 * (test-resolve.c, test-checkwrite.c): base/rel names, mkdir -p, touch,
 * symlink. The including file sets `base` (mkdtemp).
 */
#ifndef KB_TEST_TREE_H
#define KB_TEST_TREE_H

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* short, so that base/rel always fits PATH_MAX */
static char base[256];

/* base/rel, in a ring of buffers so several may be live in one call */
static const char *
at(const char *rel)
{
	static char ring[8][PATH_MAX];
	static size_t i;
	char *b = ring[i++ % nitems(ring)];

	snprintf(b, PATH_MAX, "%s/%s", base, rel);
	return b;
}

static void
mkdirs(const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", base, rel);
	for (char *s = p + strlen(base) + 1; *s != '\0'; s++) {
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	}
	mkdir(p, 0755);
}

static void
touch(const char *rel)
{
	int fd = open(at(rel), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

	if (fd != -1)
		close(fd);
}

static void
link_to(const char *target, const char *rel)
{
	if (symlink(target, at(rel)) == -1)
		printf("# symlink %s -> %s failed\n", rel, target);
}

#endif
