/*
 * profile/resolve.c — see resolve.h: where a write to a path lands, and
 * which of a list of roots holds it. The walk goes component by component, each
 * existing prefix through realpath(3), so that a symlink and a ".." after
 * it are judged where they really lead.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/util.h"
#include "resolve.h"

/* Dangling symlinks followed in one walk; the kernel gives up at 40. */
#define MAX_HOPS 40

/* Appends "/name" to the absolute path `p` (PATH_MAX bytes). */
static int
push(char *p, const char *name, size_t len)
{
	size_t n = strlen(p);

	if (n == 1)
		n = 0; /* "/" */
	if (n + 1 + len >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	p[n] = '/';
	memcpy(p + n + 1, name, len);
	p[n + 1 + len] = '\0';
	return 0;
}

/* Drops the last component of the absolute path `p`; "/" stays "/". */
static void
pop(char *p)
{
	char *s = strrchr(p, '/');

	if (s == p)
		p[1] = '\0';
	else if (s != NULL)
		*s = '\0';
}

/* The next component of a path at or after `p`: its start, with `*end`
 * just past it; NULL at the end. */
static const char *
component(const char *p, const char **end)
{
	while (*p == '/')
		p++;
	if (*p == '\0')
		return NULL;
	*end = strchrnul(p, '/');
	return p;
}

static bool
is_dot(const char *p, size_t len)
{
	return len == 1 && p[0] == '.';
}

static bool
is_dotdot(const char *p, size_t len)
{
	return len == 2 && p[0] == '.' && p[1] == '.';
}

static int
copy_out(const char *s, char *out, size_t outlen)
{
	if (strlen(s) >= outlen) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(out, s);
	return 0;
}

int
kb_resolve_lexical(const char *path, char *out, size_t outlen)
{
	char buf[PATH_MAX];
	const char *p, *end = path;
	size_t len;

	if (path == NULL || path[0] != '/') {
		errno = EINVAL;
		return -1;
	}
	strcpy(buf, "/");
	while ((p = component(end, &end)) != NULL) {
		len = (size_t)(end - p);
		if (is_dot(p, len))
			continue;
		if (is_dotdot(p, len)) {
			pop(buf);
			continue;
		}
		if (push(buf, p, len) == -1)
			return -1;
	}
	return copy_out(buf, out, outlen);
}

/*
 * The walk of the absolute `abs` into `out` (PATH_MAX bytes), see
 * resolve.h. The part of `out` before the first missing component is
 * canonical (no symlink left in it), so a ".." there is the text's
 * parent too. -1 with errno set.
 */
static int
walk(const char *abs, unsigned flags, char out[PATH_MAX])
{
	char pending[PATH_MAX], next[PATH_MAX], real[PATH_MAX];
	char target[PATH_MAX];
	const char *p, *end;
	size_t len, nmissing = 0;
	ssize_t n;
	int hops = 0;

	if (strlen(abs) >= sizeof(pending)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	/* a path that is there (the usual case) is realpath()'s: one walk
	 * of its components, not one for each prefix */
	if (!(flags & KB_RESOLVE_NOFOLLOW) && realpath(abs, real) != NULL) {
		strcpy(out, real);
		return 0;
	}
	strcpy(pending, abs);
	strcpy(out, "/");
	end = pending;
	while ((p = component(end, &end)) != NULL) {
		len = (size_t)(end - p);
		if (is_dot(p, len))
			continue;
		if (is_dotdot(p, len)) {
			if (nmissing > 0)
				nmissing--;
			pop(out);
			continue;
		}
		if (push(out, p, len) == -1)
			return -1;
		if (nmissing > 0) {
			nmissing++;
			continue;
		}
		/* the entry itself, not what it points at: its directory is
		 * canonical already ("name/" is followed, as the kernel
		 * does) */
		if ((flags & KB_RESOLVE_NOFOLLOW) && *end == '\0')
			continue;
		if (realpath(out, real) != NULL) {
			strcpy(out, real);
			continue;
		}
		if (errno != ENOENT && errno != ENOTDIR)
			return -1;
		n = readlink(out, target, sizeof(target));
		if (n == -1) {
			nmissing = 1; /* really missing: text from here on */
			continue;
		}
		if ((size_t)n >= sizeof(target)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		target[n] = '\0';
		if (++hops > MAX_HOPS) {
			errno = ELOOP;
			return -1;
		}
		/* a dangling link: its target from the link's directory,
		 * then the rest */
		pop(out);
		if (target[0] == '/')
			strcpy(out, "/");
		if ((size_t)snprintf(next, sizeof(next), "%s%s", target, end) >=
		    sizeof(next)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		strcpy(pending, next);
		end = pending;
	}
	return 0;
}

int
kb_resolve_write(
    const char *path, const char *cwd, unsigned flags, char *out, size_t outlen)
{
	char abs[PATH_MAX], res[PATH_MAX];
	int r;

	if (path == NULL || path[0] == '\0') {
		errno = ENOENT;
		return -1;
	}
	if (path[0] == '/')
		r = snprintf(abs, sizeof(abs), "%s", path);
	else if (cwd != NULL && cwd[0] == '/')
		r = snprintf(abs, sizeof(abs), "%s/%s", cwd, path);
	else {
		errno = EINVAL;
		return -1;
	}
	if (r < 0 || (size_t)r >= sizeof(abs)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (walk(abs, flags, res) == -1)
		return -1;
	return copy_out(res, out, outlen);
}

const char *
kb_resolve_root(const char *landing, const char *const *roots, size_t nroots)
{
	for (size_t i = 0; i < nroots; i++)
		if (roots[i] != NULL && kb_path_within(landing, roots[i]))
			return roots[i];
	return NULL;
}
