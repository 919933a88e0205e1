/*
 * profile/journal.c — the denial journal: one JSON file per denial under
 * $XDG_STATE_HOME/kinbox/denials/ (directory 0700, file 0600), so that
 * kinpolicy can show and retry exactly this operation later. kinbox only
 * appends; kinpolicy forgets (kb_journal_forget), relative to the
 * directory descriptor kb_journal_open walked to. The directory is
 * read-only inside every sandbox.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/fsat.h"
#include "journal.h"
#include "policy.h"
#include "resolve.h"

char *
kb_journal_dir(const char *home)
{
	const char *state = getenv("XDG_STATE_HOME");

	if (state != NULL && state[0] == '/')
		return xasprintf("%s/kinbox/denials", state);
	if (home == NULL)
		return NULL;
	return xasprintf("%s/.local/state/kinbox/denials", home);
}

/*
 * The journal directory, opened without following a symlink in any
 * component kinbox creates (kinbox/, denials/, and those of
 * .local/state below the home directory): a sandboxed command that can
 * write an ancestor could otherwise point the journal anywhere, and kinbox
 * writes it outside the sandbox. The trusted start is $XDG_STATE_HOME as
 * the user set it, else the home directory. Returns an O_DIRECTORY fd;
 * with `create` false nothing is made, and a missing component is -1 with
 * errno ENOENT.
 */
int
kb_journal_open(const char *home, bool create, struct kb_err *e)
{
	const char *state = getenv("XDG_STATE_HOME");
	const char *below[5];
	size_t n = 0;
	_cleanup_free_ char *base = NULL;
	int fd;

	if (state != NULL && state[0] == '/') {
		base = realpath(state, NULL);
		if (base == NULL && errno == ENOENT && create) {
			if (mkdir(state, 0700) == -1 && errno != EEXIST)
				return kb_err_set(
				    e, "%s: %s", state, strerror(errno));
			base = realpath(state, NULL);
		}
	} else if (home != NULL) {
		base = realpath(home, NULL);
		below[n++] = ".local";
		below[n++] = "state";
	}
	if (base == NULL) {
		int errsv = errno;

		kb_err_set(e, "no state directory (%s)", strerror(errsv));
		errno = errsv;
		return -1;
	}
	below[n++] = "kinbox";
	below[n++] = "denials";
	fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1)
		return kb_err_set(e, "%s: %s", base, strerror(errno));
	for (size_t i = 0; i < n; i++) {
		bool ours = i + 2 >= n; /* kinbox/ and denials/ are 0700 */
		int next;
		struct stat st;

		if (create && mkdirat(fd, below[i], ours ? 0700 : 0755) == -1 &&
		    errno != EEXIST) {
			kb_err_set(e, "%s/.../%s: %s", base, below[i],
			    strerror(errno));
			close(fd);
			return -1;
		}
		next = openat(fd, below[i],
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (next == -1) {
			int errsv = errno;

			kb_err_set(e, "%s/.../%s: %s%s", base, below[i],
			    strerror(errsv),
			    errsv == ENOENT ? ""
					    : " (a symlink is refused here)");
			errno = errsv;
			return -1;
		}
		/* tightened when kinbox writes; a reader changes nothing */
		if (create && ours && fstat(next, &st) == 0 &&
		    st.st_uid == geteuid() && (st.st_mode & 077) != 0)
			fchmod(next, 0700);
		fd = next;
	}
	return fd;
}

int
kb_journal_write(const struct kb_policy *p, const char *id, const char *json,
    char **where, struct kb_err *e)
{
	_cleanup_free_ char *dir = kb_journal_dir(p->home);
	_cleanup_free_ char *name = xasprintf("%s.json", id);
	size_t len = strlen(json);
	ssize_t n;
	int dfd, fd;

	if (dir == NULL)
		return kb_err_set(e, "no home directory for the journal");
	/* a journal the command could write is a journal it could forge:
	 * judged before anything is created */
	if (kb_policy_writable(p, dir))
		return kb_err_set(e,
		    "%s is inside a directory the command could "
		    "write; set XDG_STATE_HOME elsewhere",
		    dir);
	if ((dfd = kb_journal_open(p->home, true, e)) == -1)
		return -1;
	fd = openat(dfd, name,
	    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	close(dfd);
	if (fd == -1)
		return kb_err_set(e, "%s/%s: %s", dir, name, strerror(errno));
	n = write(fd, json, len);
	if (n != (ssize_t)len || write(fd, "\n", 1) != 1 || close(fd) == -1) {
		int errsv = n == -1 ? errno : ENOSPC;
		_cleanup_free_ char *path = xasprintf("%s/%s", dir, name);

		unlink(path);
		return kb_err_set(e, "%s: %s", path, strerror(errsv));
	}
	if (where != NULL)
		*where = xasprintf("%s/%s", dir, name);
	return 0;
}

/* a regular file `name` in dfd, never through a symlink */
static int
regular_at(int dfd, const char *name)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		return -1;
	}
	return 1;
}

int
kb_journal_forget(int dfd, const char *id, struct kb_err *e)
{
	static const char *const suffix[] = {
	    KB_JOURNAL_RECORD,
	    KB_JOURNAL_DECISION,
	    KB_JOURNAL_RETRIED,
	};
	int had = 0;

	for (size_t i = 0; i < nitems(suffix); i++) {
		_cleanup_free_ char *name = xasprintf("%s%s", id, suffix[i]);
		int r = regular_at(dfd, name);

		if (r == 0)
			continue;
		/* unlinkat removes the name itself, whatever it is: the
		 * check above only keeps what is not ours */
		if (r == -1 || unlinkat(dfd, name, 0) == -1) {
			int errsv = errno;
			_cleanup_free_ char *where = kb_fd_path_at(dfd, name);

			return kb_err_set(e, "%s: %s", where,
			    errsv == EINVAL ? "not a regular file, left alone"
					    : strerror(errsv));
		}
		if (i == 0)
			had = 1;
	}
	return had;
}
