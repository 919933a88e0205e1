/*
 * profile/devices.c — --device and --gpu judged on the host at finalize:
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
 * virtblk). No GPU program needs one. So is every character device that
 * is a disk, a keyboard, a console or the machine's memory by another
 * name (devclasses below: SCSI generic, NVMe generic, input, uinput, the
 * virtual consoles, /dev/mem, ...), judged by its major and minor where
 * the kernel fixes them and by the driver's name in /proc/devices where
 * it gives the major out at load time, on the node as found and again on
 * the descriptor kinbox holds.
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

/*
 * The character devices refused whoever asks, as block devices are. A
 * major the kernel fixes (Documentation/admin-guide/devices.txt) is
 * judged by number, with its minors where only some are the class; a
 * driver the kernel gives a major at load time by the name it registered
 * in /proc/devices (`driver`, an fnmatch pattern).
 */
struct devclass {
	unsigned major_lo, major_hi; /* a fixed major (range); 0: none */
	unsigned minor_lo, minor_hi;
	const char *driver; /* a name in /proc/devices; NULL: none */
	const char *noun, *why;
};

#define ALL_MINORS 0, UINT_MAX
static const struct devclass devclasses[] = {
    /* the machine's memory, I/O ports, registers and firmware */
    {1, 1, 1, 2, NULL, "the machine's raw memory", "/dev/mem, /dev/kmem"},
    {1, 1, 4, 4, NULL, "the machine's raw I/O ports", "/dev/port"},
    {202, 202, ALL_MINORS, "cpu/msr", "a CPU's model-specific registers",
	"raw CPU control"},
    {10, 10, 144, 144, NULL, "the CMOS NVRAM", "the firmware's settings"},
    {10, 10, 231, 231, NULL, "the hibernation snapshot",
	"the machine's memory image"},
    {0, 0, ALL_MINORS, "dax", "a device-DAX node", "raw persistent memory"},
    {0, 0, ALL_MINORS, "ndctl", "an NVDIMM bus control node",
	"commands to persistent memory"},
    {0, 0, ALL_MINORS, "dimmctl", "an NVDIMM control node",
	"commands to persistent memory"},
    /* storage past the block layer: a disk by another name */
    {21, 21, ALL_MINORS, "sg", "a SCSI generic node", "raw disk access"},
    {9, 9, ALL_MINORS, "st", "a SCSI tape", "raw tape access"},
    {86, 86, ALL_MINORS, "ch", "a SCSI media changer", "raw storage access"},
    {90, 90, ALL_MINORS, "mtd", "an MTD flash device", "raw flash access"},
    {162, 162, ALL_MINORS, "raw", "a raw block device node", "raw disk access"},
    {206, 206, ALL_MINORS, "osst", "an OnStream SCSI tape", "raw tape access"},
    {0, 0, ALL_MINORS, "bsg", "a block SCSI generic node", "raw disk access"},
    {0, 0, ALL_MINORS, "nvme", "an NVMe controller",
	"raw disk access and admin commands"},
    {0, 0, ALL_MINORS, "nvme-generic", "an NVMe generic node",
	"raw disk access"},
    {0, 0, ALL_MINORS, "ubi[0-9]*", "a UBI volume", "raw flash access"},
    /* input: read, a keylogger; written, keystrokes */
    {13, 13, ALL_MINORS, "input", "an input device",
	"keyboard and mouse events, read and injected"},
    {10, 10, 223, 223, NULL, "the uinput device",
	"a virtual keyboard, keystrokes injected"},
    {10, 10, 239, 239, NULL, "the uhid device",
	"a virtual HID keyboard, keystrokes injected"},
    {10, 10, 1, 1, NULL, "a raw PS/2 port", "keyboard and mouse bytes"},
    {0, 0, ALL_MINORS, "hidraw", "a raw HID device",
	"a keyboard's reports, read and sent"},
    /* a USB device talked to directly: a keyboard or a disk by another
     * name; usbmon reads every transfer, keystrokes included */
    {189, 189, ALL_MINORS, "usb_device", "a raw USB device",
	"any USB device's traffic, a keyboard's or a disk's"},
    {0, 0, ALL_MINORS, "usbmon", "the USB monitor",
	"every USB transfer read, keystrokes included"},
    /* consoles and other sessions' terminals (/dev/tty, 5:0, is the
     * process's own and /dev/ptmx, 5:2, makes a new one: both pass) */
    {4, 4, 0, 63, NULL, "a virtual console",
	"the console's keyboard and screen"},
    {5, 5, 1, 1, NULL, "the system console",
	"the console's keyboard and screen"},
    {7, 7, ALL_MINORS, "vcs", "a virtual console's memory",
	"the console's screen, read and written"},
    {136, 143, ALL_MINORS, NULL, "a pseudo-terminal",
	"another session's keyboard and screen"},
    {2, 3, ALL_MINORS, NULL, "a legacy pseudo-terminal",
	"another session's keyboard and screen"},
    /* the machine itself */
    {10, 10, 130, 130, NULL, "a hardware watchdog",
	"opening it can reboot the machine"},
    {0, 0, ALL_MINORS, "watchdog", "a hardware watchdog",
	"opening it can reboot the machine"},
};

/* the majors the kernel gives out at load time (fs/char_dev.c:
 * CHRDEV_MAJOR_DYN_END..254, CHRDEV_MAJOR_DYN_EXT_END..511): a node there
 * is told by its driver's name only */
static bool
dynamic_major(unsigned m)
{
	return (m >= 234 && m <= 254) || (m >= 384 && m <= 511);
}

#define PROC_DEVICES_MAX (64 * 1024)

/*
 * The names the drivers of character major `maj` registered in
 * /proc/devices (`file`, the test build's stand-in, else /proc/devices),
 * read on a descriptor (a regular file, bounded, never a FIFO's wait).
 * 0, or -1 with errno when it cannot be read.
 */
static int
driver_names(const char *file, unsigned maj, struct kb_strv *names)
{
	int fd = open(file != NULL ? file : "/proc/devices",
	    O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	_cleanup_free_ char *text = kb_read_fd_close(fd, PROC_DEVICES_MAX);
	bool chr = false;

	if (text == NULL)
		return -1;
	for (char *l = text, *nl; *l != '\0'; l = nl) {
		char *end;
		unsigned long m;

		nl = l + strcspn(l, "\n");
		if (*nl == '\n')
			*nl++ = '\0';
		/* "Character devices:", then " 21 sg", then "Block devices:" */
		if (l[0] != ' ' && (l[0] < '0' || l[0] > '9')) {
			chr = strcmp(l, "Character devices:") == 0;
			continue;
		}
		l += strspn(l, " ");
		m = strtoul(l, &end, 10);
		if (!chr || end == l || *end != ' ' || m != maj)
			continue;
		kb_strv_push(names, end + 1);
	}
	return 0;
}

int
kb_device_class(dev_t rdev, const char *proc_devices, char *buf, size_t len)
{
	unsigned maj = major(rdev), min = minor(rdev);
	_cleanup_strv_ struct kb_strv names = {0};
	bool have_names;

	for (size_t i = 0; i < nitems(devclasses); i++) {
		const struct devclass *c = &devclasses[i];

		if (c->major_lo == 0 || maj < c->major_lo ||
		    maj > c->major_hi || min < c->minor_lo || min > c->minor_hi)
			continue;
		if (c->minor_lo == 0 && c->minor_hi == UINT_MAX)
			snprintf(buf, len, "%s (%s, major %u)", c->noun, c->why,
			    maj);
		else
			snprintf(buf, len, "%s (%s, %u:%u)", c->noun, c->why,
			    maj, min);
		return 1;
	}
	have_names = driver_names(proc_devices, maj, &names) == 0;
	if (!have_names && dynamic_major(maj)) {
		snprintf(buf, len,
		    "a device whose major (%u) its driver took at load time, "
		    "and %s cannot be read (%s) to tell which driver; mount "
		    "/proc",
		    maj, proc_devices != NULL ? proc_devices : "/proc/devices",
		    strerror(errno));
		return -1;
	}
	/* a load-time major nobody holds now is inert, but the next driver
	 * that loads (nvme, bsg) may take it while the node is bound */
	if (names.n == 0 && dynamic_major(maj)) {
		snprintf(buf, len,
		    "a device whose major (%u) no driver holds now, and a "
		    "driver that loads later may take it; load its driver "
		    "first, or drop it",
		    maj);
		return -1;
	}
	for (size_t i = 0; i < nitems(devclasses); i++) {
		const struct devclass *c = &devclasses[i];

		for (size_t k = 0; c->driver != NULL && k < names.n; k++) {
			if (fnmatch(c->driver, names.v[k], 0) != 0)
				continue;
			snprintf(buf, len, "%s (%s, major %u: %s)", c->noun,
			    c->why, maj, names.v[k]);
			return 1;
		}
	}
	return 0;
}

/* kb_device_class() for the one line of a refusal: "NODE: ... is refused
 * whoever asks; drop it". 1 (fatal), -1 (cannot tell), 0 */
static int
class_refusal(const struct kb_policy *p, dev_t rdev, char *why, size_t len)
{
	char cls[300];
	int rc = kb_device_class(rdev, p->proc_devices, cls, sizeof(cls));

	if (rc == 1)
		snprintf(why, len, "%s is refused whoever asks; drop it", cls);
	else if (rc == -1)
		snprintf(why, len, "%s", cls);
	return rc;
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
	char why[400];
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
	 * judged is no block device, and of no refused class either */
	if (fd == -1 || fstat(fd, &st) == -1 || !S_ISCHR(st.st_mode)) {
		if (fd != -1)
			close(fd);
		return kb_err_set(e,
		    "%s: changed while kinbox judged it; check it and run "
		    "again — nothing was run",
		    path);
	}
	if (class_refusal(p, st.st_rdev, why, sizeof(why)) != 0) {
		close(fd);
		return kb_err_set(e, "%s%s: %s — nothing was run",
		    by == KB_OPT_GPU ? "--gpu: " : "--device ", path, why);
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

/* whether the entry `name` of `dirfd` (lstat'ed into `st`) can be bound:
 * REFUSE_NONE for a character device of no refused class the caller may
 * read and write; REFUSE_ALWAYS for a block device or a refused class
 * (refused whoever asks); REFUSE for the rest. `why` gets the reason. */
enum refusal {
	REFUSE_NONE,
	REFUSE,
	REFUSE_ALWAYS
};

static enum refusal
node_refusal(const struct kb_policy *p, int dirfd, const char *name,
    const struct stat *st, char *why, size_t len)
{
	int rc;

	if (S_ISBLK(st->st_mode)) {
		snprintf(why, len,
		    "a block device: kinbox refuses every block device (one "
		    "may hold a filesystem, and bound read-write it is the "
		    "whole disk past every file rule)");
		return REFUSE_ALWAYS;
	}
	if (!S_ISCHR(st->st_mode))
		return REFUSE_NONE;
	if ((rc = class_refusal(p, st->st_rdev, why, len)) != 0)
		return rc == 1 ? REFUSE_ALWAYS : REFUSE;
	if (faccessat(dirfd, name, R_OK | W_OK,
		AT_EACCESS | AT_SYMLINK_NOFOLLOW) == -1) {
		snprintf(why, len,
		    "the caller cannot open it for reading and writing "
		    "outside the sandbox (its mode and group say so)");
		return REFUSE;
	}
	return REFUSE_NONE;
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
		char r[400];
		enum refusal ref;

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
		ref = node_refusal(p, dirfd, de->d_name, &st, r, sizeof(r));
		if (ref == REFUSE_ALWAYS) {
			char cls[300];

			kb_device_class(
			    st.st_rdev, p->proc_devices, cls, sizeof(cls));
			rc = kb_err_set(e,
			    "%s%s: it holds %s, %s, which is refused whoever "
			    "asks; name the character devices the command "
			    "needs — nothing was run",
			    what, dir, de->d_name, cls);
			break;
		}
		if (ref == REFUSE) {
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
	enum refusal ref;
	char r[400];
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
	if ((ref = node_refusal(p, dfd, name, &st, r, sizeof(r))) !=
	    REFUSE_NONE) {
		*fatal = ref == REFUSE_ALWAYS;
		return kb_err_set(e, "--device %s: %s", g->path, r);
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
		const char *why;
		char r[400];
		enum refusal ref;
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
		ref = node_refusal(p, rfd, de->d_name, &st, r, sizeof(r));
		if (ref == REFUSE_ALWAYS) {
			rc = kb_err_set(e, "--gpu: %s/%s: %s — nothing was run",
			    root, de->d_name, r);
			continue;
		}
		if (ref == REFUSE) {
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
