/*
 * profile/masks.c — turns the tables (credential stores, host sockets) into
 * the policy's mask list, and --ssh-agent into the few things it exposes.
 * Only paths that exist get a mask: each mount costs bwrap a re-read of
 * mountinfo, and no directory is scanned except ~/.ssh under --ssh-agent.
 */
#include <dirent.h>
#include <errno.h>
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
mask_existing(struct kb_policy *p, const char *path, bool tree,
    struct kb_err *e)
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
		return add_mask(p, path, NULL, tree ? KB_MASK_TREE : KB_MASK_DIR,
		    e);
	return add_mask(p, path, NULL, KB_MASK_FILE, e);
}

/* The path inside an environment value, as a new string, or NULL. */
static char *
env_path(const struct kb_env_path *ep)
{
	const char *v = getenv(ep->name);
	size_t n;

	if (v == NULL)
		return NULL;
	if (ep->after != NULL) {
		const char *at = strstr(v, ep->after);

		if (at == NULL)
			return NULL;
		v = at + strlen(ep->after);
	}
	n = strcspn(v, ",:;"); /* DBUS lists, GPG_AGENT_INFO's :pid:1 */
	if (n == 0 || v[0] != '/')
		return NULL;
	return strndup(v, n);
}

/* --ssh-agent: the agent socket, connectable, and the public client files
 * of ~/.ssh, read-only, inside the otherwise empty ~/.ssh. */
static int
expose_ssh(struct kb_policy *p, struct kb_err *e)
{
	const char *sock = getenv("SSH_AUTH_SOCK");
	_cleanup_free_ char *real = NULL;
	_cleanup_free_ char *dir = NULL;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int rc = 0;

	if (sock == NULL || *sock == '\0')
		return kb_err_set(e, "--ssh-agent: SSH_AUTH_SOCK is not set; "
		    "start an agent and add a key (eval \"$(ssh-agent)\"; "
		    "ssh-add)");
	if ((real = realpath(sock, NULL)) == NULL || stat(real, &st) == -1 ||
	    !S_ISSOCK(st.st_mode))
		return kb_err_set(e, "--ssh-agent: SSH_AUTH_SOCK=%s is not a "
		    "socket; restart the agent", sock);
	if (add_mask(p, real, real, KB_EXPOSE_SOCKET, e) == -1)
		return -1;
	if (p->home == NULL)
		return 0;
	dir = xasprintf("%s/.ssh", p->home);
	if ((d = opendir(dir)) == NULL)
		return 0;
	while (rc == 0 && (de = readdir(d)) != NULL) {
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
		if (fnmatch("*.pub", de->d_name, 0) == 0 &&
		    fnmatch("*.pub", src, 0) != 0)
			continue;
		rc = add_mask(p, path, src, KB_EXPOSE_RO, e);
	}
	closedir(d);
	return rc;
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
		path = s->home ? xasprintf("%s/%s", p->home, s->path) :
				 xstrdup(s->path);
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
	if (p->home != NULL) {
		for (size_t i = 0; i < kb_credential_count; i++) {
			_cleanup_free_ char *path = xasprintf("%s/%s", p->home,
			    kb_credential_table[i]);

			if (mask_existing(p, path, false, e) == -1)
				return -1;
		}
	}
	for (size_t i = 0; i < kb_env_path_count; i++) {
		_cleanup_free_ char *path = NULL;

		if (p->ssh_agent &&
		    strcmp(kb_env_path_table[i].name, "SSH_AUTH_SOCK") == 0)
			continue;
		path = env_path(&kb_env_path_table[i]);
		/* under the private /tmp it is gone already */
		if (path != NULL && !kb_path_within(path, "/tmp") &&
		    mask_existing(p, path, false, e) == -1)
			return -1;
	}
	/* masks the configuration adds */
	for (size_t i = 0; i < p->extra_mask.n; i++)
		if (mask_existing(p, p->extra_mask.v[i], false, e) == -1)
			return -1;
	/* kinbox's own stores: the command must never grant itself anything
	 * or edit the journal of its own denials */
	{
		const char *dirs[3] = { getenv("XDG_CONFIG_HOME"),
			getenv("XDG_STATE_HOME"), getenv("XDG_RUNTIME_DIR") };
		const char *dflt[3] = { ".config", ".local/state", NULL };

		for (int i = 0; i < 3; i++) {
			_cleanup_free_ char *d = NULL;

			if (dirs[i] != NULL && dirs[i][0] == '/')
				d = xasprintf("%s/kinbox", dirs[i]);
			else if (dflt[i] != NULL && p->home != NULL)
				d = xasprintf("%s/%s/kinbox", p->home, dflt[i]);
			if (d != NULL && mask_existing(p, d, false, e) == -1)
				return -1;
		}
	}
	/* toolchain caches the config made writable */
	for (size_t i = 0; i < kb_cache_count && p->home != NULL; i++) {
		_cleanup_free_ char *d = NULL;
		struct stat st;

		if (p->cache[i] == KB_CACHE_OFF)
			continue;
		d = xasprintf("%s/%s", p->home, kb_cache_table[i].path);
		if (stat(d, &st) == -1 || !S_ISDIR(st.st_mode))
			continue;
		if (add_mask(p, d, NULL, p->cache[i] == KB_CACHE_EPHEMERAL ?
			KB_CACHE_TMPFS : KB_CACHE_BIND, e) == -1)
			return -1;
	}
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
