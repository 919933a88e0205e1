/*
 * policy/devices.c — --device and --gpu judged on the host at finalize:
 * each request turned into the device nodes it names, each node opened
 * O_PATH once, without following a symlink, and held: the bind source
 * (backends/bwrap.c passes it as /proc/self/fd/N), so that what is mounted
 * is the node judged here. Opens no device for I/O: opening some (a GPU,
 * a tape, a modem) has side effects, so access is asked with
 * faccessat(AT_EACCESS), as the caller, never tried.
 *
 * Every block device is refused, whoever asks: a disk, a partition, a
 * device-mapper volume or a loop device bound read-write is the whole
 * filesystem past every file rule, and kinbox cannot tell for certain one
 * that holds no filesystem (majors are dynamic: nvme and blkext, dm,
 * virtblk). No GPU program needs one.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../lib/fsat.h"
#include "policy.h"

/* /dev/mem, /dev/kmem, /dev/port: the machine's memory and I/O ports */
static bool
raw_memory(dev_t rdev)
{
	return major(rdev) == 1 &&
	       (minor(rdev) == 1 || minor(rdev) == 2 || minor(rdev) == 4);
}

/* Records the node `name` in the directory `dirfd` (whose canonical path
 * is `dir`), to be bound at `destdir`/name. 0; 1 when it is already
 * there; -1 with `e` on a full table or when it changed under kinbox. */
static int
add_node(struct kb_policy *p, int dirfd, const char *dir, const char *name,
    const char *destdir, enum kb_origin o, int by, struct kb_err *e)
{
	_cleanup_free_ char *path = xasprintf("%s/%s", dir, name);
	_cleanup_free_ char *dest = xasprintf("%s/%s", destdir, name);
	struct kb_devnode *d;
	struct stat st;
	int fd;

	for (size_t i = 0; i < p->ndev; i++)
		if (strcmp(p->dev[i].dest, dest) == 0)
			return 1;
	if (p->ndev == KB_MAX_DEVNODE)
		return kb_err_set(e,
		    "%s: too many device nodes (at most %d); grant only those "
		    "the command needs — nothing was run",
		    path, KB_MAX_DEVNODE);
	fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	/* what is held is judged again: a node put in the place of the one
	 * judged is neither a block device nor raw memory either */
	if (fd == -1 || fstat(fd, &st) == -1 || !S_ISCHR(st.st_mode) ||
	    raw_memory(st.st_rdev)) {
		if (fd != -1)
			close(fd);
		return kb_err_set(e,
		    "%s: changed while kinbox judged it; check it and run "
		    "again — nothing was run",
		    path);
	}
	d = &p->dev[p->ndev++];
	d->path = steal_pointer(&path);
	d->dest = steal_pointer(&dest);
	d->fd = fd;
	d->rdev = st.st_rdev;
	d->block = false;
	d->origin = o;
	d->by = by;
	return 0;
}

/* why the entry `name` of `dirfd` (lstat'ed into `st`) cannot be bound,
 * or NULL: a character device the caller may read and write */
static const char *
node_refusal(int dirfd, const char *name, const struct stat *st)
{
	if (S_ISBLK(st->st_mode))
		return "a block device: kinbox refuses every block device (one "
		       "may hold a filesystem, and bound read-write it is the "
		       "whole disk past every file rule)";
	if (!S_ISCHR(st->st_mode))
		return NULL;
	if (raw_memory(st->st_rdev))
		return "the machine's raw memory or I/O ports: refused";
	if (faccessat(dirfd, name, R_OK | W_OK,
		AT_EACCESS | AT_SYMLINK_NOFOLLOW) == -1)
		return "the caller cannot open it for reading and writing "
		       "outside the sandbox (its mode and group say so)";
	return NULL;
}

static const char *
kind_word(mode_t m)
{
	return S_ISREG(m)    ? "a regular file"
	       : S_ISLNK(m)  ? "a symlink"
	       : S_ISSOCK(m) ? "a socket"
	       : S_ISFIFO(m) ? "a FIFO"
			     : "not a device node";
}

/*
 * The directory `dirfd` (canonical `dir`): its character devices, one
 * level, bound below `destdir`; symlinks (/dev/dri/by-path) and
 * subdirectories are skipped: they name nodes the directory holds, or
 * others. A block device in it refuses the whole directory. `why` gets
 * the reason when no node could be taken. The number taken, or -1 with
 * `e`.
 */
static int
add_dir(struct kb_policy *p, int dirfd, const char *dir, const char *destdir,
    enum kb_origin o, int by, const char **why, struct kb_err *e)
{
	const char *what = by == KB_OPT_GPU ? "--gpu: " : "--device ";
	DIR *d = kb_opendir_beneath(dirfd, ".");
	struct dirent *de;
	int n = 0, rc = 0;

	*why = "it holds no character device";
	if (d == NULL)
		return kb_err_set(e, "%s%s: %s — nothing was run", what, dir,
		    strerror(errno));
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		const char *r;

		if (de->d_name[0] == '.' ||
		    fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		if (S_ISBLK(st.st_mode)) {
			rc = kb_err_set(e,
			    "%s%s: it holds the block device %s: kinbox "
			    "refuses every block device; name the character "
			    "devices the command needs — nothing was run",
			    what, dir, de->d_name);
			break;
		}
		if (!S_ISCHR(st.st_mode))
			continue;
		if ((r = node_refusal(dirfd, de->d_name, &st)) != NULL) {
			kb_strv_pushf(&p->notes, "device: %s/%s not bound: %s",
			    dir, de->d_name, r);
			*why = "the caller can open none of its devices";
			continue;
		}
		if ((rc = add_node(
			 p, dirfd, dir, de->d_name, destdir, o, by, e)) == -1)
			break;
		n += rc == 0;
		rc = 0;
	}
	closedir(d);
	return rc == -1 ? -1 : n;
}

/*
 * One --device request. -1 with `e` when it cannot hold (*fatal when it
 * must refuse the run whoever asked: a block device); else 0.
 */
static int
judge(
    struct kb_policy *p, struct kb_pathgrant *g, bool *fatal, struct kb_err *e)
{
	_cleanup_free_ char *abs = NULL, *real = NULL, *dir = NULL;
	_cleanup_close_ int dfd = -1, fd = -1;
	const char *name, *why = NULL;
	struct stat st;
	char *slash;
	int n;

	*fatal = false;
	abs = g->path[0] == '/' ? xstrdup(g->path)
				: xasprintf("%s/%s", p->cwd, g->path);
	if ((real = realpath(abs, NULL)) == NULL)
		return kb_err_set(e,
		    "--device %s: %s; give the path of a "
		    "device node",
		    g->path, strerror(errno));
	if (strcmp(real, "/") == 0)
		return kb_err_set(e, "--device /: not a device node");
	dir = xstrdup(real);
	slash = strrchr(dir, '/');
	*slash = '\0';
	name = slash + 1;
	/* every component without following a symlink: what is bound is
	 * the node at the canonical path, judged here */
	if ((dfd = kb_open_dir_nofollow(dir[0] != '\0' ? dir : "/")) == -1 ||
	    fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return kb_err_set(e,
		    "--device %s: %s while kinbox resolved it (a symlink now "
		    "on its path?); check it and run again",
		    g->path, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		if ((fd = openat(dfd, name,
			 O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
			return kb_err_set(
			    e, "--device %s: %s", g->path, strerror(errno));
		n = add_dir(
		    p, fd, real, real, g->origin, KB_OPT_DEVICE, &why, e);
		if (n == -1) {
			*fatal = true;
			return -1;
		}
		if (n == 0)
			return kb_err_set(e,
			    "--device %s: a directory, and %s; give a "
			    "directory of device nodes the caller may open",
			    g->path, why);
		return 0;
	}
	if (!S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode))
		return kb_err_set(e,
		    "--device %s: %s, not a device node; give the path of a "
		    "character device (or a directory of them, /dev/dri)",
		    g->path, kind_word(st.st_mode));
	if ((why = node_refusal(dfd, name, &st)) != NULL) {
		*fatal = S_ISBLK(st.st_mode) || raw_memory(st.st_rdev);
		return kb_err_set(e, "--device %s: %s", g->path, why);
	}
	if (add_node(p, dfd, dir[0] != '\0' ? dir : "", name,
		dir[0] != '\0' ? dir : "", g->origin, KB_OPT_DEVICE, e) == -1) {
		*fatal = true;
		return -1;
	}
	/* canonical from here on: the JSON record and a grant name it so */
	free(g->path);
	g->path = steal_pointer(&real);
	return 0;
}

/* the GPU nodes of the vendors' layouts, in the scan root's top level */
static const char *const gpu_nodes[] = {
    "nvidia[0-9]*",
    "nvidiactl",
    "nvidia-uvm",
    "nvidia-uvm-tools",
    "nvidia-modeset",
    "kfd",
};
/* ... and its directories of them (every character device in each) */
static const char *const gpu_dirs[] = {"dri", "nvidia-caps"};

static bool
gpu_node(const char *name)
{
	for (size_t i = 0; i < nitems(gpu_nodes); i++)
		if (fnmatch(gpu_nodes[i], name, 0) == 0)
			return true;
	return false;
}

/*
 * --gpu: the nodes found now, whatever the vendor: what the driver made
 * at boot. Bound at /dev/<name> (the scan root is /dev but in the test
 * build). The driver's /proc/driver/nvidia and /sys files are visible
 * already (read-only).
 */
static int
find_gpu(struct kb_policy *p, struct kb_err *e)
{
	const char *root = p->gpu_root != NULL ? p->gpu_root : "/dev";
	_cleanup_close_ int rfd = kb_open_dir_nofollow(root);
	DIR *d;
	struct dirent *de;
	size_t before = p->ndev;
	bool set_by = p->where[KB_OPT_GPU] != NULL &&
		      p->origin[KB_OPT_GPU] != KB_ORIGIN_FLAG;
	int rc = 0;

	if (rfd == -1 || (d = kb_opendir_beneath(rfd, ".")) == NULL)
		return kb_err_set(e, "--gpu: %s: %s — nothing was run", root,
		    strerror(errno));
	while (rc != -1 && (de = readdir(d)) != NULL) {
		struct stat st;
		const char *r, *why;
		bool dir = false;

		for (size_t i = 0; i < nitems(gpu_dirs); i++)
			dir |= strcmp(de->d_name, gpu_dirs[i]) == 0;
		if ((!dir && !gpu_node(de->d_name)) ||
		    fstatat(rfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		if (dir && S_ISDIR(st.st_mode)) {
			_cleanup_close_ int fd = openat(rfd, de->d_name,
			    O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			_cleanup_free_ char *path =
			    xasprintf("%s/%s", root, de->d_name);
			_cleanup_free_ char *dest =
			    xasprintf("/dev/%s", de->d_name);

			if (fd != -1 &&
			    add_dir(p, fd, path, dest, p->origin[KB_OPT_GPU],
				KB_OPT_GPU, &why, e) == -1)
				rc = -1;
			continue;
		}
		if (!S_ISCHR(st.st_mode))
			continue;
		if ((r = node_refusal(rfd, de->d_name, &st)) != NULL) {
			kb_strv_pushf(&p->notes, "gpu: %s/%s not bound: %s",
			    root, de->d_name, r);
			continue;
		}
		if (add_node(p, rfd, root, de->d_name, "/dev",
			p->origin[KB_OPT_GPU], KB_OPT_GPU, e) == -1)
			rc = -1;
	}
	closedir(d);
	if (rc == -1)
		return -1;
	/* no silent fall back to the CPU */
	if (p->ndev == before)
		return kb_err_set(e,
		    "--gpu%s%s%s: no GPU device nodes found (/dev/nvidia*, "
		    "/dev/dri, /dev/kfd) that the caller may open; the "
		    "command would fall back to the CPU: load the driver (or "
		    "join the video/render group), or drop --gpu — nothing "
		    "was run",
		    set_by ? " (set by " : "",
		    set_by ? p->where[KB_OPT_GPU] : "", set_by ? ")" : "");
	return 0;
}

int
kb_devices_compute(struct kb_policy *p, struct kb_err *e)
{
	size_t kept = 0;

	for (size_t i = 0; i < p->ndevice; i++) {
		struct kb_pathgrant *g = &p->device[i];
		struct kb_err why;
		bool fatal;

		if (judge(p, g, &fatal, &why) == 0) {
			p->device[kept++] = *g;
			continue;
		}
		/* typed, it asks for the device; a grant or a config only
		 * permits (the GPU may be gone this boot): dropped with a
		 * note, unless it names what is never granted */
		if (g->origin == KB_ORIGIN_FLAG || fatal) {
			bool set_by =
			    g->where != NULL && g->origin != KB_ORIGIN_FLAG;

			kb_err_set(e, "%s%s%s%s%s", why.msg,
			    set_by ? " (set by " : "", set_by ? g->where : "",
			    set_by ? ")" : "",
			    strstr(why.msg, "nothing was run") != NULL
				? ""
				: " — nothing was run");
			for (size_t k = i; k < p->ndevice; k++)
				p->device[kept++] = p->device[k];
			p->ndevice = kept;
			return -1;
		}
		kb_strv_pushf(&p->notes,
		    "device: the grant of %s (%s) is not "
		    "used: %s",
		    g->path, kb_origin_name(g->origin), why.msg);
		free(g->path);
		free(g->where);
	}
	p->ndevice = kept;
	return p->gpu ? find_gpu(p, e) : 0;
}
