/*
 * classify/oracle.c — the host-side answers kb_classify() needs: could the
 * caller write this path without the sandbox, and which --write root would
 * kinbox accept for it. Runs outside the sandbox, after the command.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../profile/resolve.h"
#include "denial.h"

/* nearest existing ancestor directory of path (path itself if a dir) */
static bool
nearest_dir(const char *path, char *out, size_t outlen)
{
	char buf[PATH_MAX];
	struct stat st;

	snprintf(buf, sizeof(buf), "%s", path);
	for (;;) {
		if (stat(buf, &st) == 0 && S_ISDIR(st.st_mode))
			break;
		char *slash = strrchr(buf, '/');

		if (slash == NULL || strcmp(buf, "/") == 0)
			return false;
		if (slash == buf)
			slash[1] = '\0'; /* "/usr" -> "/" */
		else
			*slash = '\0';
	}
	snprintf(out, outlen, "%s", buf);
	return true;
}

static bool
host_writable(const char *path, void *vctx)
{
	const struct kb_host_oracle_ctx *c = vctx;
	char dir[PATH_MAX];

	if (!c->check_access)
		return true;
	if (access(path, W_OK) == 0)
		return true;
	if (errno != ENOENT)
		return false;
	return nearest_dir(path, dir, sizeof(dir)) && access(dir, W_OK) == 0;
}

static bool
suggest_root(const char *path, char *out, size_t outlen, void *vctx)
{
	const struct kb_host_oracle_ctx *c = vctx;
	char dir[PATH_MAX];
	char *real;
	struct kb_err e;

	if (!nearest_dir(path, dir, sizeof(dir)))
		return false;
	/* kinbox refuses git metadata as a write root (its hooks and config
	 * run outside): what it can grant is the checkout, whose .git is
	 * writable but guarded */
	{
		char *g = strstr(dir, "/.git/");
		size_t n = strlen(dir);

		if (g == NULL && n >= 5 && strcmp(dir + n - 5, "/.git") == 0)
			g = dir + n - 5;
		if (g != NULL)
			*(g == dir ? g + 1 : g) = '\0';
	}
	if (c->check_access) {
		real = kb_paths_accept_root(dir, c->home, "--write", &e);
	} else {
		real = realpath(dir, NULL);
		if (real != NULL &&
		    (strcmp(real, "/") == 0 ||
			(c->home != NULL && kb_path_within(c->home, real)))) {
			free(real);
			real = NULL;
		}
	}
	if (real == NULL)
		return false;
	snprintf(out, outlen, "%s", real);
	free(real);
	return true;
}

static bool
exists(const char *path, void *vctx)
{
	struct stat st;

	(void)vctx;
	return lstat(path, &st) == 0;
}

/* where a write to `path` lands (profile/resolve.h) */
static bool
canonical(const char *path, char *out, size_t outlen, void *vctx)
{
	(void)vctx;
	return kb_resolve_write(path, NULL, 0, out, outlen) == 0;
}

/* ... and where its directory entry is: a last symlink not followed */
static bool
entry(const char *path, char *out, size_t outlen, void *vctx)
{
	(void)vctx;
	return kb_resolve_write(path, NULL, KB_RESOLVE_NOFOLLOW, out, outlen) ==
	       0;
}

const struct kb_oracle kb_host_oracle_template = {
    .canonical = canonical,
    .entry = entry,
    .host_writable = host_writable,
    .suggest_root = suggest_root,
    .exists = exists,
    .ctx = NULL,
};
