/*
 * lib/execsearch.h — exec a command the way a shell finds it. Used by
 * kinbox-exec inside the sandbox and by kinbox's unsandboxed path, so that
 * both report what bash would: a command found nowhere on PATH is "not
 * found" (127) even when a directory of PATH could not be searched, and
 * only a file that was found but could not be executed is 126. libc only:
 * kinbox-exec is linked from this file and its own.
 */
#ifndef KB_EXECSEARCH_H
#define KB_EXECSEARCH_H

/*
 * Executes `file` with `argv` (the environment is environ). A name with a
 * '/' is executed as it is; otherwise each PATH element is tried in order
 * ("/bin:/usr/bin" when PATH is unset; an empty element is the current
 * directory), as execvp(3) does, a file without a #! line included (it
 * runs with /bin/sh). Returns only on failure, with the errno to report:
 *   ENOENT   found on no PATH element (EACCES while searching a directory
 *            that cannot be read counts as not found there, as in bash),
 *            or a path that does not exist;
 *   EACCES   a file was found but may not be executed (the first
 *            candidate on PATH that exists, when no later one runs; when
 *            that first one is a directory, ENOENT, as in bash);
 *   EISDIR   a path with a '/' names a directory;
 *   other    what execve(2) said of a file that was found (ENOEXEC,
 *            E2BIG, ETXTBSY, ENOTDIR for a path with a '/', ...).
 * errno is left as returned.
 */
int kb_exec_search(const char *file, char *const argv[]);

/* What a shell says of a command that did not start: "command not found"
 * for a name PATH did not hold, the error itself for a path ("./x: No such
 * file or directory", "Permission denied", "Is a directory"). */
const char *kb_exec_error_text(const char *cmd, int err);

#endif
