/*
 * lib/execsearch.c — the PATH search of a shell (see execsearch.h).
 *
 * glibc's execvp() remembers an EACCES from any PATH element and returns
 * it when the command is found nowhere, so a directory on PATH that the
 * caller cannot search (a 0700 directory of another user, or one the
 * sandbox hides) turns every typo into "Permission denied", exit 126.
 * bash stats each candidate instead and says "command not found", 127.
 * Here each candidate is executed as execvp() would execute it (with its
 * /bin/sh fallback for a file without a #! line), and an EACCES is kept
 * only when the candidate itself exists: the file was found and refused.
 * As in bash, the first candidate that exists decides when none runs: a
 * file is "Permission denied", a directory "not found".
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "execsearch.h"

/* execvp() of a name with a '/' is one execve() plus the /bin/sh fallback
 * for ENOEXEC; a directory is said to be one, as bash says */
static int
exec_path(const char *path, char *const argv[])
{
	struct stat st;
	int err;

	execvp(path, argv);
	err = errno;
	if (err == EACCES && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		err = EISDIR;
	return err;
}

int
kb_exec_search(const char *file, char *const argv[])
{
	const char *path = getenv("PATH"), *p, *end;
	/* the first candidate that exists but could not run: bash reports
	 * it when no later one runs, and a directory there is "not found" */
	int found = 0;

	if (file[0] == '\0')
		return errno = ENOENT;
	if (strchr(file, '/') != NULL)
		return errno = exec_path(file, argv);
	if (path == NULL)
		path = "/bin:/usr/bin";
	for (p = path;; p = end + 1) {
		char full[PATH_MAX];
		size_t dl;
		int n, err;

		end = strchrnul(p, ':');
		dl = (size_t)(end - p);
		n = dl == 0 ? snprintf(full, sizeof(full), "./%s", file)
			    : snprintf(full, sizeof(full), "%.*s/%s", (int)dl,
				  p, file);
		if (n > 0 && (size_t)n < sizeof(full)) {
			err = exec_path(full, argv);
			switch (err) {
			case EACCES:
				/* the file refused (it exists), or a
				 * directory on the way that cannot be
				 * searched (then it was not found here) */
				if (found == 0 && access(full, F_OK) == 0)
					found = EACCES;
				break;
			case EISDIR:
				if (found == 0)
					found = ENOENT;
				break;
			case ENOENT:
			case ENOTDIR:
			case ELOOP:
			case ENAMETOOLONG:
			case ESTALE:
			case ENODEV:
			case ETIMEDOUT:
				break;
			default:
				/* found, and execve refused it for another
				 * reason: that is the answer (as execvp) */
				return errno = err;
			}
		}
		if (*end == '\0')
			break;
	}
	return errno = found != 0 ? found : ENOENT;
}

const char *
kb_exec_error_text(const char *cmd, int err)
{
	if (err == ENOENT && strchr(cmd, '/') == NULL)
		return "command not found";
	return strerror(err);
}
