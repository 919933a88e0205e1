/*
 * profile/journal.c — the denial journal: one JSON file per denial under
 * $XDG_STATE_HOME/kinbox/denials/ (directory 0700, file 0600), so that
 * kinpolicy can show and retry exactly this operation later. kinbox only
 * appends; the directory is read-only inside every sandbox.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"

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

/* mkdir -p with 0700 for what it creates */
static int
mkdirs(const char *path)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);

	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0700) == -1 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0700) == -1 && errno != EEXIST)
		return -1;
	return 0;
}

int
kb_journal_write(const char *home, const char *id, const char *json,
    char **where, struct kb_err *e)
{
	_cleanup_free_ char *dir = kb_journal_dir(home);
	_cleanup_free_ char *path = NULL;
	size_t len = strlen(json);
	ssize_t n;
	int fd;

	if (dir == NULL)
		return kb_err_set(e, "no home directory for the journal");
	if (mkdirs(dir) == -1)
		return kb_err_set(e, "%s: %s", dir, strerror(errno));
	path = xasprintf("%s/%s.json", dir, id);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd == -1)
		return kb_err_set(e, "%s: %s", path, strerror(errno));
	n = write(fd, json, len);
	if (n != (ssize_t)len || write(fd, "\n", 1) != 1 || close(fd) == -1) {
		int errsv = n == -1 ? errno : ENOSPC;

		unlink(path);
		return kb_err_set(e, "%s: %s", path, strerror(errsv));
	}
	if (where != NULL)
		*where = steal_pointer(&path);
	return 0;
}
