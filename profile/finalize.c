/*
 * profile/finalize.c — the last step of building a policy, after every
 * setter: the workspace and $TMPDIR settled, the bind sources opened once
 * (what is mounted is what was resolved here) and the masks computed.
 * Writes nothing on the host.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/fsat.h"
#include "options.h"
#include "policy.h"

/*
 * $TMPDIR: under /tmp it is recreated inside the private /tmp; elsewhere it
 * is writable when it passes the write-root rules (outside $HOME); otherwise
 * the command gets TMPDIR=/tmp so tools still find a writable temp dir.
 */
static void
resolve_tmpdir(struct kb_policy *p)
{
	const char *t = getenv("TMPDIR");
	_cleanup_free_ char *real = NULL;
	struct kb_err ignored;

	if (t == NULL || t[0] == '\0')
		return;
	real = realpath(t, NULL);
	if (real == NULL) {
		p->tmpdir_reset = true;
		return;
	}
	if (strcmp(real, "/tmp") == 0)
		return;
	if (kb_path_within(real, "/tmp")) {
		p->tmpdir_private = steal_pointer(&real);
		return;
	}
	/* read-only: the private /tmp is the one place that takes writes */
	if (p->read_only) {
		p->tmpdir_reset = true;
		return;
	}
	/* inside home it would be a write path next to ~/.bashrc */
	if (p->home != NULL && kb_path_within(real, p->home)) {
		p->tmpdir_reset = true;
		return;
	}
	p->tmpdir = kb_paths_accept_root(real, p->home, "TMPDIR", &ignored);
	if (p->tmpdir == NULL)
		p->tmpdir_reset = true;
}

int
kb_policy_resolve_workspace(struct kb_policy *p, struct kb_err *e)
{
	char cwd[PATH_MAX];

	if (p->home == NULL)
		p->home = kb_paths_home();
	if (p->cwd == NULL) {
		if (getcwd(cwd, sizeof(cwd)) == NULL)
			return kb_err_set(e,
			    "cannot determine the current "
			    "directory: %s; cd into the workspace first",
			    strerror(errno));
		p->cwd = realpath(cwd, NULL);
		if (p->cwd == NULL)
			return kb_err_set(e,
			    "cannot resolve the current "
			    "directory: %s",
			    strerror(errno));
	}
	if (p->workspace == NULL && kb_policy_set_workspace(p, p->cwd, e) == -1)
		return -1;
	return 0;
}

static int
open_root(const char *path, int *fd, struct kb_err *e)
{
	struct stat st;

	if (*fd != -1)
		return 0;
	*fd = kb_open_dir_nofollow(path);
	if (*fd == -1 || fstat(*fd, &st) == -1 || !S_ISDIR(st.st_mode))
		return kb_err_set(e,
		    "%s: %s while kinbox resolved it (a "
		    "symlink now on its path?); check it and run again",
		    path, *fd == -1 ? strerror(errno) : "not a directory");
	return 0;
}

/* A root inside a credential store the sandbox hides (mounted over after
 * the roots) would be an empty, unwritable directory inside: the command
 * runs, and nothing it writes lands. Refused, naming the store. */
static int
check_roots_unmasked(const struct kb_policy *p, struct kb_err *e)
{
	const char *roots[KB_MAX_ROOTS];
	size_t n = kb_policy_roots(p, roots);

	/* read-only: no root, but a hidden workspace is as useless */
	if (p->read_only && p->workspace != NULL)
		roots[n++] = p->workspace;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < p->nmask; k++) {
			const struct kb_mask *m = &p->mask[k];

			if ((m->kind != KB_MASK_DIR &&
				m->kind != KB_MASK_FILE) ||
			    !kb_path_within(roots[i], m->path))
				continue;
			return kb_err_set(e,
			    "%s %s: it lies in %s, which kinbox hides in every "
			    "sandbox (a credential store): the command would "
			    "find it empty and could write nothing there; pick "
			    "a directory outside it",
			    roots[i] == p->workspace ? "workspace" : "--write",
			    roots[i], m->path);
		}
	return 0;
}

int
kb_policy_finalize(struct kb_policy *p, struct kb_err *e)
{
	clock_gettime(CLOCK_REALTIME_COARSE, &p->started);
	if (kb_policy_resolve_workspace(p, e) == -1)
		return -1;
	if (kb_options_validate(p, e) == -1)
		return -1;
	resolve_tmpdir(p);
	/* The bind sources, opened once: a concurrent run that swaps a path
	 * component for a symlink after this cannot change what is mounted. */
	if (open_root(p->workspace, &p->workspace_fd, e) == -1 ||
	    (p->tmpdir != NULL && open_root(p->tmpdir, &p->tmpdir_fd, e) == -1))
		return -1;
	for (size_t i = 0; i < p->nwrite; i++)
		if (open_root(p->write[i].path, &p->write[i].fd, e) == -1)
			return -1;
	if (kb_masks_compute(p, e) == -1 || kb_devices_compute(p, e) == -1)
		return -1;
	return check_roots_unmasked(p, e);
}
