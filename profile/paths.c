/*
 * profile/paths.c — canonicalisation and the write-root acceptance rules.
 * Every path the sandbox makes writable goes through kb_paths_accept_root():
 * the kernel resolves symlinks and ".." (realpath) before we judge the path,
 * so a link inside the workspace cannot smuggle in a wider root.
 */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"

/* Kernel pseudo-filesystems: writable roots there would reach kernel state. */
static const char *const forbidden_trees[] = {"/proc", "/sys", "/dev"};

/*
 * The caller's home from /etc/passwd, canonical, or NULL. Read with
 * fgetpwent rather than getpwuid: no NSS modules are loaded on every start
 * (kinbox is linked statically); users known only to a directory service
 * are covered by $HOME.
 */
char *
kb_paths_passwd_home(void)
{
	static bool looked;
	static char *cached;
	struct passwd *pw;
	char *r = NULL;
	uid_t uid = getuid();
	FILE *f;

	if (looked)
		return cached != NULL ? xstrdup(cached) : NULL;
	looked = true;
	if ((f = fopen("/etc/passwd", "re")) == NULL)
		return NULL;
	while ((pw = fgetpwent(f)) != NULL) {
		if (pw->pw_uid == uid && pw->pw_dir != NULL &&
		    pw->pw_dir[0] == '/') {
			r = realpath(pw->pw_dir, NULL);
			break;
		}
	}
	fclose(f);
	/* kept for the life of the process: one lookup per start */
	cached = r != NULL ? xstrdup(r) : NULL;
	return r;
}

char *
kb_paths_home(void)
{
	const char *h = getenv("HOME");
	char *r;

	if (h != NULL && h[0] == '/' && (r = realpath(h, NULL)) != NULL)
		return r;
	return kb_paths_passwd_home();
}

/* true when `dir` is `path` itself or one of its ancestors */
static bool
is_ancestor_or_self(const char *dir, const char *path)
{
	return kb_path_within(path, dir);
}

char *
kb_paths_accept_root(
    const char *in, const char *home, const char *what, struct kb_err *e)
{
	_cleanup_free_ char *real = NULL;
	_cleanup_free_ char *pwhome = NULL;
	struct stat st;

	if (in == NULL || in[0] == '\0') {
		kb_err_set(
		    e, "%s: empty path; name an existing directory", what);
		return NULL;
	}
	real = realpath(in, NULL);
	if (real == NULL) {
		if (errno == ENOENT || errno == ENOTDIR)
			kb_err_set(e,
			    "%s %s: no such directory; create it first "
			    "or fix the path",
			    what, in);
		else
			kb_err_set(e, "%s %s: cannot resolve: %s; fix the path",
			    what, in, strerror(errno));
		return NULL;
	}
	if (stat(real, &st) == -1 || !S_ISDIR(st.st_mode)) {
		kb_err_set(e,
		    "%s %s: not a directory; name the directory that "
		    "should be writable",
		    what, in);
		return NULL;
	}
	/* The sandbox's /tmp is a private tmpfs: the host's /tmp bound
	 * over it would make the shared /tmp (other users' files, X11 and
	 * agent sockets) writable, while the plan says private. A directory
	 * below it is fine: it is bound inside the private /tmp. */
	if (strcmp(real, "/tmp") == 0) {
		const char *alias =
		    strcmp(in, real) == 0 ? "" : "that is /tmp, and ";

		if (strcmp(what, "workspace") == 0)
			kb_err_set(e,
			    "workspace %s: %sthe sandbox's /tmp is private "
			    "(empty, discarded), so the host's /tmp cannot be "
			    "the workspace; work in a subdirectory, e.g. "
			    "/tmp/NAME",
			    in, alias);
		else
			kb_err_set(e,
			    "%s %s: %s/tmp itself is never a write root (the "
			    "bwrap backend's /tmp is private and writable, the "
			    "landlock backend's TMPDIR a directory of the "
			    "run); "
			    "to share a host directory, grant a subdirectory, "
			    "e.g. %s /tmp/NAME",
			    what, in, alias, what);
		return NULL;
	}
	if (strcmp(real, "/") == 0) {
		kb_err_set(e,
		    "%s %s: the root directory cannot be writable; "
		    "grant a narrower directory",
		    what, in);
		return NULL;
	}
	for (size_t i = 0; i < nitems(forbidden_trees); i++) {
		if (kb_path_within(real, forbidden_trees[i])) {
			kb_err_set(e,
			    "%s %s: %s is kernel state, not a "
			    "workspace; grant a directory outside /proc, /sys "
			    "and /dev",
			    what, in, real);
			return NULL;
		}
	}
	/* Both $HOME and the passwd entry count: either is where a shell
	 * looks for rc files that run outside the sandbox. */
	pwhome = kb_paths_passwd_home();
	for (int i = 0; i < 2; i++) {
		const char *h = i == 0 ? home : pwhome;

		if (h == NULL || strcmp(h, "/") == 0)
			continue;
		if (is_ancestor_or_self(real, h)) {
			kb_err_set(e,
			    "%s %s: %s %s your home directory; grant "
			    "a project directory below it instead",
			    what, in, real,
			    strcmp(real, h) == 0 ? "is" : "contains");
			return NULL;
		}
	}
	if (access(real, W_OK) == -1) {
		kb_err_set(e,
		    "%s %s: not writable by you (%s); grant a "
		    "directory you can write",
		    what, in, strerror(errno));
		return NULL;
	}
	return steal_pointer(&real);
}

bool
kb_paths_in_git_metadata(const char *real)
{
	size_t n = strlen(real);

	return strstr(real, "/.git/") != NULL ||
	       (n >= 5 && strcmp(real + n - 5, "/.git") == 0);
}
