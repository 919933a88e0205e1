/*
 * backends/exec-landlock.c — the Landlock rulesets of kinbox-exec (see
 * exec-landlock.h). Runs inside, before the command, with nothing but libc:
 * every path is opened without following a symlink, every rule is attached
 * to the inode found now (rules follow inodes, not names).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exec-landlock.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule       445
#define SYS_landlock_restrict_self  446
#endif

struct ll_ruleset_attr {
	unsigned long long handled_access_fs;
	unsigned long long handled_access_net;
	unsigned long long scoped;
};
struct ll_path_beneath {
	unsigned long long allowed_access;
	int parent_fd;
} __attribute__((packed));
#define LL_RULE_PATH_BENEATH 1

#define MAX_DENY  256
#define MAX_RULES 100000

unsigned long long
kb_ll_fs_rights(int abi)
{
	unsigned long long r = 0;

	if (abi >= 1)
		r |= (1ULL << 13) - 1; /* EXECUTE .. MAKE_SYM */
	if (abi >= 2)
		r |= KB_LL_FS_REFER;
	if (abi >= 3)
		r |= KB_LL_FS_TRUNCATE;
	if (abi >= 5)
		r |= KB_LL_FS_IOCTL_DEV;
	return r;
}

int
kb_ll_create(struct kb_ll *ll, unsigned long long fs, unsigned long long net,
    unsigned long long scoped)
{
	struct ll_ruleset_attr attr = {fs, net, scoped};
	/* the attribute's size tells the kernel which fields we know: the
	 * smallest that holds what is asked, so older kernels take it */
	size_t size =
	    scoped ? sizeof(attr)
	    : net  ? offsetof(struct ll_ruleset_attr, scoped)
		   : offsetof(struct ll_ruleset_attr, handled_access_net);
	long fd = syscall(SYS_landlock_create_ruleset, &attr, size, 0);

	ll->handled = fs;
	ll->count = 0;
	ll->fd = fd < 0 ? -1 : (int)fd;
	return ll->fd == -1 ? -1 : 0;
}

int
kb_ll_allow_fd(struct kb_ll *ll, int fd, unsigned long long access)
{
	struct ll_path_beneath pb = {.parent_fd = fd};
	struct stat st;

	if (fstat(fd, &st) == -1)
		return -1;
	if (S_ISLNK(st.st_mode))
		return 0; /* an O_PATH of a symlink: nothing to allow */
	if (!S_ISDIR(st.st_mode))
		access &= KB_LL_FS_FILE;
	pb.allowed_access = access & ll->handled;
	if (pb.allowed_access == 0)
		return 0;
	if (++ll->count > MAX_RULES) {
		errno = E2BIG;
		return -1;
	}
	return (int)syscall(
	    SYS_landlock_add_rule, ll->fd, LL_RULE_PATH_BENEATH, &pb, 0);
}

int
kb_ll_open_nofollow(const char *path)
{
	char comp[256];
	const char *p = path;
	int cur = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), next;

	while (cur != -1 && *p != '\0') {
		size_t n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 0)
			break;
		if (n >= sizeof(comp) ||
		    (n == 2 && p[0] == '.' && p[1] == '.')) {
			close(cur);
			errno = EINVAL;
			return -1;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n;
		next = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		close(cur);
		cur = next;
	}
	return cur;
}

int
kb_ll_allow_path(
    struct kb_ll *ll, const char *path, unsigned long long access, bool must)
{
	int fd = kb_ll_open_nofollow(path), rc;

	if (fd == -1)
		return must ? -1 : 0;
	rc = kb_ll_allow_fd(ll, fd, access);
	close(fd);
	return rc;
}

static bool
listed(char **v, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

/* a child of an enumerated directory: never through a symlink (the rule
 * would land on what it points at) */
static int
allow_entry(struct kb_ll *ll, const char *path, unsigned long long access)
{
	int fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC), rc;

	if (fd == -1)
		return 0; /* gone meanwhile: nothing to allow */
	rc = kb_ll_allow_fd(ll, fd, access);
	close(fd);
	return rc;
}

/*
 * A sibling whose name holds a mask's name (.netrc.lock, config.json123,
 * .aws.new, .git-credentials~) is how tools write a replacement before
 * renaming it into place: a rule on it would follow it there. It gets none.
 */
static bool
staging_name(char **deny, int ndeny, const char *dir, const char *name)
{
	size_t dl = strlen(dir);

	for (int i = 0; i < ndeny; i++) {
		const char *base =
		    deny[i] + (strcmp(dir, "/") == 0 ? 1 : dl + 1);

		/* the landlock backend's /dev: no credential is staged */
		if (strcmp(deny[i], "/dev") == 0)
			continue;
		if (strncmp(deny[i], dir, dl) == 0 &&
		    (strcmp(dir, "/") == 0 || deny[i][dl] == '/') &&
		    strchr(base, '/') == NULL && strcmp(name, base) != 0 &&
		    strcasestr(name, base) != NULL)
			return true;
	}
	return false;
}

/* Is `path` at or below one of the directories kinbox overlays after the
 * go (--late)? A rule there must wait for the overlay: Landlock rules
 * attach to inodes, and one on the directory the overlay then covers would
 * not apply beneath it. */
static bool
late_path(char **late, int nlate, const char *path)
{
	for (int i = 0; i < nlate; i++) {
		size_t n = strlen(late[i]);

		if (strncmp(path, late[i], n) == 0 &&
		    (path[n] == '\0' || path[n] == '/'))
			return true;
	}
	return false;
}

int
kb_ll_read_rules(struct kb_ll *ll, char **deny, int ndeny, char **late,
    int nlate, bool second)
{
	static char *anc[MAX_DENY * 8];
	static char buf[MAX_DENY * 8][4096];
	int nanc = 0;

	for (int i = 0; i < ndeny; i++) {
		const char *d = deny[i];

		for (const char *s = d; (s = strchr(s, '/')) != NULL; s++) {
			size_t len = s == d ? 1 : (size_t)(s - d);

			if (len >= sizeof(buf[0]) || nanc == MAX_DENY * 8)
				break;
			memcpy(buf[nanc], d, len);
			buf[nanc][len] = '\0';
			if (!listed(anc, nanc, buf[nanc])) {
				anc[nanc] = buf[nanc];
				nanc++;
			}
		}
	}
	for (int i = 0; i < nanc; i++) {
		bool anc_late = late_path(late, nlate, anc[i]);
		DIR *dir;
		struct dirent *de;

		/* a directory in an overlay is listed after the go, as the
		 * overlay shows it; one above is listed before, and only its
		 * entries in an overlay wait */
		if (anc_late && !second)
			continue;
		/* on the way to a mask: listing it is fine, what it holds
		 * is judged entry by entry below */
		if ((!second || anc_late) &&
		    allow_entry(ll, anc[i], KB_LL_FS_READ_DIR) == -1)
			return -1;
		dir = opendir(anc[i]);
		if (dir == NULL && second && !anc_late)
			continue; /* said, and allowed, before the go */
		if (dir == NULL) {
			/* cannot tell its entries apart: leave its tree to
			 * the mounts, and say so */
			dprintf(2,
			    "kinbox: note: %s cannot be listed here; "
			    "masks below it rely on their mounts alone\n",
			    anc[i]);
			if (allow_entry(ll, anc[i], ll->read) == -1)
				return -1;
			continue;
		}
		while ((de = readdir(dir)) != NULL) {
			char child[4096];

			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			if (snprintf(child, sizeof(child), "%s/%s",
				strcmp(anc[i], "/") == 0 ? "" : anc[i],
				de->d_name) >= (int)sizeof(child))
				continue;
			if (listed(anc, nanc, child) ||
			    staging_name(deny, ndeny, anc[i], de->d_name))
				continue;
			if (!ll->masks_readable && listed(deny, ndeny, child))
				continue;
			if (!anc_late &&
			    late_path(late, nlate, child) != second)
				continue;
			if (allow_entry(ll, child, ll->read) == -1) {
				closedir(dir);
				return -1;
			}
		}
		closedir(dir);
	}
	return 0;
}

int
kb_ll_restrict(struct kb_ll *ll)
{
	int rc = (int)syscall(SYS_landlock_restrict_self, ll->fd, 0);
	int errsv = errno;

	close(ll->fd);
	ll->fd = -1;
	errno = errsv;
	return rc;
}
