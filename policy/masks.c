/*
 * profile/masks.c — turns the tables (credential stores, host sockets) into
 * the policy's mask list, and --ssh-agent into the few things it exposes.
 * Only paths that exist get a mask: each mount costs bwrap a re-read of
 * mountinfo, and no directory is scanned except ~/.ssh under --ssh-agent.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"
#include "tables.h"

static int
add_mask(struct kb_policy *p, const char *path, const char *src,
    enum kb_mask_kind kind, struct kb_err *e)
{
	for (size_t i = 0; i < p->nmask; i++)
		if (strcmp(p->mask[i].path, path) == 0)
			return 0;
	if (p->nmask == KB_MAX_MASK)
		return kb_err_set(e, "%s: too many masked paths (more than %d)",
		    path, KB_MAX_MASK);
	p->mask[p->nmask].path = xstrdup(path);
	p->mask[p->nmask].src = src != NULL ? xstrdup(src) : NULL;
	p->mask[p->nmask].kind = kind;
	p->mask[p->nmask].cache = -1;
	p->nmask++;
	return 0;
}

/* true when `path` lies in a tree already replaced by an empty dir */
static bool
under_tree(const struct kb_policy *p, const char *path)
{
	for (size_t i = 0; i < p->nmask; i++)
		if (p->mask[i].kind == KB_MASK_TREE &&
		    kb_path_within(path, p->mask[i].path))
			return true;
	return false;
}

/* Masks an existing path: a directory appears empty, anything else (file,
 * socket, fifo) appears as an empty file. A symlink is followed: the mount
 * lands on its target, which is the thing to hide. */
static int
mask_existing(
    struct kb_policy *p, const char *path, bool tree, struct kb_err *e)
{
	_cleanup_free_ char *real = NULL;
	struct stat st;

	if (lstat(path, &st) == -1)
		return 0;
	if (S_ISLNK(st.st_mode)) {
		if (tree)
			return 0; /* /var/run -> /run: the target is masked */
		if ((real = realpath(path, NULL)) == NULL ||
		    stat(real, &st) == -1)
			return 0;
		path = real;
	}
	if (under_tree(p, path))
		return 0;
	if (S_ISDIR(st.st_mode))
		return add_mask(
		    p, path, NULL, tree ? KB_MASK_TREE : KB_MASK_DIR, e);
	return add_mask(p, path, NULL, KB_MASK_FILE, e);
}

/*
 * The paths inside an environment value: every occurrence after the
 * prefix (DBUS_SESSION_BUS_ADDRESS may list several addresses), or the
 * value itself when it is an absolute path without the prefix (a bare
 * KRB5CCNAME is a FILE: cache).
 */
static void
env_paths(const struct kb_env_path *ep, struct kb_strv *out)
{
	const char *v = getenv(ep->name), *at;

	if (v == NULL)
		return;
	if (ep->after == NULL || strstr(v, ep->after) == NULL) {
		if (v[0] == '/')
			kb_strv_push(out, v);
		/* GPG_AGENT_INFO's path:pid:1 */
		if (v[0] == '/' && ep->after == NULL &&
		    strchr(v, ':') != NULL) {
			char *copy = strndup(v, strcspn(v, ":"));

			kb_strv_push(out, copy);
			free(copy);
		}
		return;
	}
	for (at = strstr(v, ep->after); at != NULL;
	     at = strstr(at + 1, ep->after)) {
		const char *p = at + strlen(ep->after);
		size_t n = strcspn(p, ",;:");
		char *copy;

		if (n == 0 || p[0] != '/')
			continue;
		copy = strndup(p, n);
		kb_strv_push(out, copy);
		free(copy);
	}
}

/*
 * A socket named by the environment: hide its directory when that
 * directory is the socket's own (a mount on a directory survives the
 * service recreating the socket; a mount on the socket file would be
 * dropped by the kernel when it is unlinked), else the socket itself.
 */
static int
mask_env_path(struct kb_policy *p, const char *path, struct kb_err *e)
{
	_cleanup_free_ char *real = realpath(path, NULL);
	_cleanup_free_ char *dir = NULL;
	char *slash;
	struct stat st;

	if (real == NULL || stat(real, &st) == -1)
		return 0;
	if (kb_path_within(real, "/tmp"))
		return 0; /* the private /tmp hides it already */
	if (!S_ISSOCK(st.st_mode))
		return mask_existing(p, real, false, e);
	dir = xstrdup(real);
	slash = strrchr(dir, '/');
	if (slash != NULL && slash != dir)
		*slash = '\0';
	if (slash == NULL || slash == dir || strcmp(dir, "/var/tmp") == 0 ||
	    (p->home != NULL && kb_path_within(p->home, dir)) ||
	    (p->workspace != NULL && (kb_path_within(p->workspace, dir) ||
					 kb_path_within(dir, p->workspace))))
		return mask_existing(p, real, false, e);
	for (size_t i = 0; i < p->nwrite; i++)
		if (kb_path_within(p->write[i].path, dir) ||
		    kb_path_within(dir, p->write[i].path))
			return mask_existing(p, real, false, e);
	return mask_existing(p, dir, false, e);
}

/*
 * A file shown under --ssh-agent must be public by its real name (a link
 * named id.pub pointing at id_ed25519 is the private key) and by its
 * content (a hard link has no other name to judge).
 */
static bool
public_file(const char *real)
{
	const char *base = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
	char head[4096];
	bool named = false;
	ssize_t n;
	int fd;

	for (size_t i = 0; i < kb_ssh_public_count; i++)
		if (fnmatch(kb_ssh_public_table[i], base, 0) == 0)
			named = true;
	if (!named)
		return false;
	if ((fd = open(real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK |
				 O_NOCTTY)) == -1)
		return false;
	n = read(fd, head, sizeof(head) - 1);
	close(fd);
	if (n < 0)
		return false;
	head[n] = '\0';
	return strstr(head, "PRIVATE KEY") == NULL;
}

/* --ssh-agent: the agent socket, connectable, and the public client files
 * of ~/.ssh, read-only, inside the otherwise empty ~/.ssh. */
static int
expose_ssh(struct kb_policy *p, struct kb_err *e)
{
	const char *sock = getenv("SSH_AUTH_SOCK");
	_cleanup_free_ char *real = NULL;
	_cleanup_free_ char *dir = NULL;
	struct dirent **names = NULL;
	struct stat st;
	int rc = 0, n;

	bool typed = p->origin[KB_OPT_SSH_AGENT] == KB_ORIGIN_FLAG;

	/* The user's --ssh-agent asks for the agent: without one it is an
	 * error. A grant only permits it: without an agent nothing is
	 * exposed, and --dry-run says why. */
	if (sock == NULL || *sock == '\0') {
		if (!typed) {
			kb_strv_pushf(&p->notes,
			    "ssh agent: the grant of %s is "
			    "not used: SSH_AUTH_SOCK is not set",
			    p->where[KB_OPT_SSH_AGENT]);
			p->ssh_agent = false;
			return 0;
		}
		return kb_err_set(e,
		    "--ssh-agent: SSH_AUTH_SOCK is not set; "
		    "start an agent and add a key (eval \"$(ssh-agent)\"; "
		    "ssh-add)");
	}
	if ((real = realpath(sock, NULL)) == NULL || stat(real, &st) == -1 ||
	    !S_ISSOCK(st.st_mode)) {
		if (!typed) {
			kb_strv_pushf(&p->notes,
			    "ssh agent: the grant of %s is "
			    "not used: SSH_AUTH_SOCK is not a socket",
			    p->where[KB_OPT_SSH_AGENT]);
			p->ssh_agent = false;
			return 0;
		}
		return kb_err_set(e,
		    "--ssh-agent: SSH_AUTH_SOCK=%s is not a "
		    "socket; restart the agent",
		    sock);
	}
	if (add_mask(p, real, real, KB_EXPOSE_SOCKET, e) == -1)
		return -1;
	if (p->home == NULL)
		return 0;
	dir = xasprintf("%s/.ssh", p->home);
	/* sorted: the plan (and --dry-run) is the same on every machine */
	if ((n = scandir(dir, &names, NULL, alphasort)) == -1)
		return 0;
	for (int k = 0; k < n; k++) {
		const struct dirent *de = names[k];
		_cleanup_free_ char *path = NULL;
		_cleanup_free_ char *src = NULL;
		bool pub = false;

		for (size_t i = 0; i < kb_ssh_public_count; i++)
			if (fnmatch(kb_ssh_public_table[i], de->d_name, 0) == 0)
				pub = true;
		if (!pub)
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		/* judged at its real location: a link named id.pub that
		 * points at the private key is still the private key */
		src = realpath(path, NULL);
		if (src == NULL || stat(src, &st) == -1 || !S_ISREG(st.st_mode))
			continue;
		if (!public_file(src))
			continue;
		if (rc == 0)
			rc = add_mask(p, path, src, KB_EXPOSE_RO, e);
	}
	for (int k = 0; k < n; k++)
		free(names[k]);
	free(names);
	return rc;
}

/*
 * Toolchain caches made writable ([caches], ephemeral by default). A cache
 * inside a write root is left as that root has it. A missing one is left
 * missing: kinbox writes nothing into the home directory (a write there is
 * a denial that names the cache and the mkdir that helps).
 */
static int
add_caches(struct kb_policy *p, struct kb_err *e)
{
	static const enum kb_mask_kind kinds[] = {
	    [KB_CACHE_EPHEMERAL] = KB_CACHE_COW,
	    [KB_CACHE_EMPTY] = KB_CACHE_TMPFS,
	    [KB_CACHE_PERSISTED] = KB_CACHE_BIND,
	};

	for (size_t i = 0; i < kb_cache_count && p->home != NULL; i++) {
		if (p->cache[i] == KB_CACHE_OFF)
			continue;
		for (size_t j = 0; j < nitems(kb_cache_table[i].path); j++) {
			const char *rel = kb_cache_table[i].path[j];
			_cleanup_free_ char *d = NULL, *real = NULL, *up = NULL;
			struct stat st;

			if (rel == NULL)
				continue;
			d = xasprintf("%s/%s", p->home, rel);
			if ((real = realpath(d, NULL)) == NULL ||
			    stat(real, &st) == -1 || !S_ISDIR(st.st_mode))
				continue;
			/* Its directory must not be the command's either: a
			 * ~/.cargo inside a write root (or a link to one)
			 * lets an earlier run swap registry for a link to
			 * /etc, which would then be made writable here. */
			*strrchr(d, '/') = '\0';
			if ((up = realpath(d, NULL)) == NULL ||
			    kb_policy_within_roots(p, up) ||
			    kb_policy_within_roots(p, real) ||
			    kb_path_within(real, "/tmp"))
				continue;
			if (add_mask(p, real, NULL, kinds[p->cache[i]], e) ==
			    -1)
				return -1;
			p->mask[p->nmask - 1].cache = (int)i;
		}
	}
	return 0;
}

int
kb_masks_compute(struct kb_policy *p, struct kb_err *e)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	_cleanup_free_ char *resolv = NULL;

	for (size_t i = 0; i < kb_socket_count; i++) {
		const struct kb_socket_path *s = &kb_socket_table[i];
		_cleanup_free_ char *path = NULL;

		if (s->home && p->home == NULL)
			continue;
		path = s->home ? xasprintf("%s/%s", p->home, s->path)
			       : xstrdup(s->path);
		if (mask_existing(p, path, !s->home, e) == -1)
			return -1;
	}
	/* The session's runtime dir (D-Bus session bus: systemd-run --user
	 * runs anything outside) when it is not under /run already. */
	if (xdg != NULL && xdg[0] == '/') {
		_cleanup_free_ char *real = realpath(xdg, NULL);

		if (real != NULL && strcmp(real, "/") != 0 &&
		    (p->home == NULL || !kb_path_within(p->home, real)) &&
		    mask_existing(p, real, true, e) == -1)
			return -1;
	}
	{
		/* $HOME and the passwd home, when they differ: the command can
		 * read both */
		_cleanup_free_ char *pw = kb_paths_passwd_home();
		const char *homes[2] = {p->home, pw};

		if (pw != NULL && p->home != NULL && strcmp(pw, p->home) == 0)
			homes[1] = NULL;
		for (int h = 0; h < 2; h++) {
			for (size_t i = 0;
			     homes[h] != NULL && i < kb_credential_count; i++) {
				_cleanup_free_ char *path = xasprintf(
				    "%s/%s", homes[h], kb_credential_table[i]);

				if (mask_existing(p, path, false, e) == -1)
					return -1;
			}
		}
	}
	for (size_t i = 0; i < kb_env_path_count; i++) {
		struct kb_strv paths = {0};
		int rc = 0;

		if (p->ssh_agent &&
		    strcmp(kb_env_path_table[i].name, "SSH_AUTH_SOCK") == 0)
			continue;
		env_paths(&kb_env_path_table[i], &paths);
		for (size_t k = 0; k < paths.n && rc == 0; k++)
			rc = mask_env_path(p, paths.v[k], e);
		kb_strv_free(&paths);
		if (rc == -1)
			return -1;
	}
	/* masks the configuration adds */
	for (size_t i = 0; i < p->extra_mask.n; i++)
		if (mask_existing(p, p->extra_mask.v[i], false, e) == -1)
			return -1;
	/* kinbox's own stores: the command must never grant itself anything
	 * or edit the journal of its own denials */
	{
		const char *dirs[3] = {getenv("XDG_CONFIG_HOME"),
		    getenv("XDG_STATE_HOME"), getenv("XDG_RUNTIME_DIR")};
		const char *dflt[3] = {".config", ".local/state", NULL};

		for (int i = 0; i < 3; i++) {
			_cleanup_free_ char *d = NULL;

			if (dirs[i] != NULL && dirs[i][0] == '/')
				d = xasprintf("%s/kinbox", dirs[i]);
			else if (dflt[i] != NULL && p->home != NULL)
				d = xasprintf("%s/%s/kinbox", p->home, dflt[i]);
			if (d == NULL)
				continue;
			/* a store the command could write is refused before
			 * this (kb_config_check_stores): masked where it is */
			if (mask_existing(p, d, false, e) == -1)
				return -1;
		}
	}
	if (add_caches(p, e) == -1)
		return -1;
	/* DNS must keep working with --net when resolv.conf lives in /run
	 * (systemd-resolved, NetworkManager, resolvconf). */
	resolv = realpath("/etc/resolv.conf", NULL);
	if (resolv != NULL && under_tree(p, resolv) &&
	    add_mask(p, resolv, resolv, KB_EXPOSE_RO, e) == -1)
		return -1;
	if (p->ssh_agent)
		return expose_ssh(p, e);
	return 0;
}
