/*
 * host/rundir.c — where this machine gives a run of the landlock backend
 * its private temporary directory (/tmp, TMPDIR, /dev/shm, else the
 * workspace), the index of live run directories that lets a later run
 * sweep what a killed one left, and the removal of an emptied parent.
 * kinbox makes the directory before planning (backends/landlock.c plans
 * with it); kinbox --status tries one (status.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/fsat.h"
#include "host.h"

/*
 * The per-run directory's parent in a shared place (/tmp, TMPDIR,
 * /dev/shm): <where>/kinbox-<uid>, the caller's own, mode 0300 — its
 * owner may make and enter entries but not list them. Every run of the
 * user is the same user, and Landlock lets the command read /tmp; what
 * keeps one run out of another's directory is that its name (run. and 32
 * random hex digits) can be neither listed nor guessed, and the command
 * cannot make the parent listable again: the mode of a file outside the
 * write roots is not the command's to change (the metadata supervisor,
 * mediate/unotify-meta.c), and without capabilities root is held to the
 * mode too. An O_PATH descriptor of it, or -1 with errno (EPERM: a parent
 * of that name another user made, or not a directory).
 */
static int
rundir_parent(const char *where, char *path, size_t n)
{
	_cleanup_close_ int wfd = -1;
	char name[32];
	struct stat st;
	int fd;

	snprintf(name, sizeof(name), "kinbox-%u", (unsigned)geteuid());
	if ((size_t)snprintf(path, n, "%s/%s", where, name) >= n) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((wfd = open(where, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	if (mkdirat(wfd, name, 0300) == -1 && errno != EEXIST)
		return -1;
	fd = openat(wfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		return -1;
	if (fstat(fd, &st) == -1 || st.st_uid != geteuid() ||
	    ((st.st_mode & 07777) != 0300 && kb_chmod_fd(fd, 0300) == -1)) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

/* the index of live run directories (kinbox's state store, masked from
 * every sandbox: its files are unreadable there, though under Landlock a
 * masked directory's names can still be listed, so an entry has a random
 * name of its own, never the directory's): an entry per run holding its
 * directory's path, locked (flock) by the run while it lives */
static int rundir_lock = -1;
static char rundir_entry[64];
static int rundir_index = -1;

static void
rundir_record(int index_fd, const char *path)
{
	int fd;
	size_t n = strlen(path);
	char name[48];

	if (index_fd == -1)
		return;
	snprintf(name, sizeof(name), "run.%016llx%016llx", kb_random_u64(),
	    kb_random_u64());
	fd = openat(index_fd, name,
	    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd == -1)
		return;
	if (flock(fd, LOCK_EX | LOCK_NB) == -1 ||
	    write(fd, path, n) != (ssize_t)n) {
		unlinkat(index_fd, name, 0);
		close(fd);
		return;
	}
	rundir_lock = fd;
	rundir_index = index_fd;
	snprintf(rundir_entry, sizeof(rundir_entry), "%s", name);
}

void
kb_landlock_rundir_forget(const char *dir)
{
	const char *slash = strrchr(dir, '/');

	if (rundir_lock != -1) {
		unlinkat(rundir_index, rundir_entry, 0);
		close(rundir_lock);
		rundir_lock = -1;
	}
	/* its parent kinbox-UID too, when no other run has a directory
	 * there (ENOTEMPTY otherwise: kept) */
	if (slash != NULL && strncmp(slash + 1, "run.", 4) == 0 &&
	    (size_t)(slash - dir) < PATH_MAX) {
		char parent[PATH_MAX];

		memcpy(parent, dir, (size_t)(slash - dir));
		parent[slash - dir] = '\0';
		rmdir(parent);
	}
}

/* does `path` name PLACE/kinbox-<uid>/run.<32 hex digits>? (what an
 * index entry holds, checked before it is acted on); its parent in
 * `parent` */
static bool
rundir_path_ok(const char *path, char *parent, size_t n)
{
	const char *slash = strrchr(path, '/');
	char want[32];
	const char *base;

	if (path[0] != '/' || slash == NULL ||
	    strncmp(slash + 1, "run.", 4) != 0 || strlen(slash + 1) != 36 ||
	    strspn(slash + 5, "0123456789abcdef") != 32 ||
	    (size_t)(slash - path) >= n)
		return false;
	memcpy(parent, path, (size_t)(slash - path));
	parent[slash - path] = '\0';
	base = strrchr(parent, '/');
	snprintf(want, sizeof(want), "kinbox-%u", (unsigned)geteuid());
	return base != NULL && strcmp(base + 1, want) == 0 &&
	       strstr(parent, "/../") == NULL && strstr(parent, "/./") == NULL;
}

int
kb_landlock_rundir_sweep(int index_fd)
{
	DIR *d;
	struct dirent *de;
	int dfd, swept = 0;

	if (index_fd == -1 ||
	    (dfd = openat(index_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
		-1 ||
	    (d = fdopendir(dfd)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		char path[PATH_MAX], parent[PATH_MAX];
		_cleanup_close_ int fd = -1, pfd = -1, rfd = -1;
		ssize_t len;

		if (strncmp(de->d_name, "run.", 4) != 0 ||
		    strcmp(de->d_name, rundir_entry) == 0)
			continue;
		fd = openat(index_fd, de->d_name,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		/* a live run holds its entry locked */
		if (fd == -1 || flock(fd, LOCK_EX | LOCK_NB) == -1)
			continue;
		len = read(fd, path, sizeof(path) - 1);
		if (len > 0) {
			path[len] = '\0';
			if (rundir_path_ok(path, parent, sizeof(parent)) &&
			    (pfd = kb_open_dir_nofollow(parent)) != -1 &&
			    (rfd = openat(pfd, strrchr(path, '/') + 1,
				 O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				     O_CLOEXEC)) != -1 &&
			    kb_remove_tree_at(rfd) == 0 &&
			    unlinkat(
				pfd, strrchr(path, '/') + 1, AT_REMOVEDIR) == 0)
				swept++;
		}
		unlinkat(index_fd, de->d_name, 0);
	}
	closedir(d);
	return swept;
}

int
kb_landlock_rundir(const char *workspace, int index_fd, char *out,
    size_t outlen, struct kb_err *e)
{
	const char *tmp = getenv("TMPDIR");
	const char *where[] = {"/tmp",
	    tmp != NULL && tmp[0] == '/' ? tmp : NULL, "/dev/shm", workspace};
	struct kb_buf tried = {0};
	int fd;

	for (size_t i = 0; i < nitems(where); i++) {
		char parent[PATH_MAX], name[48];
		_cleanup_close_ int pfd = -1;

		if (where[i] == NULL)
			continue;
		if (i == 3) {
			/* the workspace: the command's already, hidden name */
			if ((size_t)snprintf(out, outlen,
				"%s/.kinbox-run.XXXXXX", where[i]) >= outlen) {
				errno = ENAMETOOLONG;
			} else if (mkdtemp(out) != NULL) {
				fd = open(out, O_PATH | O_DIRECTORY |
						   O_NOFOLLOW | O_CLOEXEC);
				if (fd != -1) {
					kb_buf_free(&tried);
					return fd;
				}
				rmdir(out);
			}
		} else {
			/* a run ending now removes an empty parent: made
			 * again (ENOENT), a few times */
			for (int t = 0; t < 3; t++) {
				if (pfd != -1)
					close(pfd);
				if ((pfd = rundir_parent(where[i], parent,
					 sizeof(parent))) == -1)
					break;
				snprintf(name, sizeof(name),
				    "run.%016llx%016llx", kb_random_u64(),
				    kb_random_u64());
				if ((size_t)snprintf(out, outlen, "%s/%s",
					parent, name) >= outlen) {
					errno = ENAMETOOLONG;
					break;
				}
				if (mkdirat(pfd, name, 0700) == -1) {
					if (errno == ENOENT)
						continue;
					break;
				}
				fd = openat(pfd, name,
				    O_PATH | O_DIRECTORY | O_NOFOLLOW |
					O_CLOEXEC);
				if (fd != -1) {
					rundir_record(index_fd, out);
					kb_buf_free(&tried);
					return fd;
				}
				unlinkat(pfd, name, AT_REMOVEDIR);
				break;
			}
		}
		kb_buf_printf(&tried, "%s%s (%s)", tried.len > 0 ? ", " : "",
		    where[i], strerror(errno));
	}
	kb_err_set(e, "cannot make the run's temporary directory: tried %s",
	    tried.s != NULL ? tried.s : "nowhere");
	kb_buf_free(&tried);
	return -1;
}
