/*
 * profile/masks.c — turns the tables (credential stores, host sockets) into
 * the policy's mask list, and --ssh-agent and --allow-socket into the few
 * things they expose. Only paths that exist get a mask: each mount costs
 * bwrap a re-read of mountinfo, and no directory is scanned except ~/.ssh
 * under --ssh-agent.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"
#include "resolve.h"
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
	p->mask[p->nmask].dev = 0;
	p->mask[p->nmask].ino = 0;
	p->mask[p->nmask].by = -1;
	p->nmask++;
	return 0;
}

/*
 * A granted socket, connectable at its canonical path `real` (`st` its
 * stat), `by` the grant (KB_OPT_SSH_AGENT, KB_OPT_ALLOW_SOCKET). Granted
 * twice (the agent's socket named by --allow-socket too) it is one mask,
 * the first grant's. A mask of the socket file itself, which the tables
 * made because a variable such as DOCKER_HOST names it, yields: hiding
 * it is kinbox's default, the grant a human's word.
 */
static int
add_socket_mask(struct kb_policy *p, const char *real, const struct stat *st,
    int by, struct kb_err *e)
{
	struct kb_mask *m = NULL;

	for (size_t i = 0; i < p->nmask && m == NULL; i++)
		if (strcmp(p->mask[i].path, real) == 0)
			m = &p->mask[i];
	if (m != NULL && m->kind != KB_MASK_FILE)
		return 0; /* granted already (a directory mask is no socket) */
	if (m == NULL) {
		if (add_mask(p, real, real, KB_EXPOSE_SOCKET, e) == -1)
			return -1;
		m = &p->mask[p->nmask - 1];
	} else {
		free(m->src);
		m->src = xstrdup(real);
		m->kind = KB_EXPOSE_SOCKET;
	}
	m->dev = st->st_dev;
	m->ino = st->st_ino;
	m->by = by;
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
	if (add_socket_mask(p, real, &st, KB_OPT_SSH_AGENT, e) == -1)
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
 * Where the command writes the host's own bytes: a writable root or a
 * persisted cache. The private /tmp, a cache's overlay and an empty cache
 * are the sandbox's: what the command writes there never reaches the
 * host's path, which a grant is judged at.
 */
static bool
command_writes(const struct kb_policy *p, const char *path)
{
	if (kb_policy_within_roots(p, path))
		return true;
	for (size_t i = 0; i < p->nmask; i++)
		if (p->mask[i].kind == KB_CACHE_BIND &&
		    kb_path_within(path, p->mask[i].path))
			return true;
	return false;
}

/*
 * The absolute `path` resolved as the kernel resolves it, one component
 * at a time, into `out` (PATH_MAX bytes): canonical, as realpath(3) has
 * it. On the way every symbolic link is judged where it lies: the first
 * one in a place the command writes goes to *planted (a new string), for
 * a link there is the command's to plant or to swap, and a grant must not
 * be steered by its bytes. 0, or -1 with errno (ENOENT, ENOTDIR, ELOOP,
 * ENAMETOOLONG, EACCES).
 */
static int
resolve_grant(
    const struct kb_policy *p, const char *path, char *out, char **planted)
{
	char done[PATH_MAX] = "/", rest[PATH_MAX], next[PATH_MAX];
	char link[PATH_MAX];
	size_t off = 0;
	int hops = 0;

	if (snprintf(rest, sizeof(rest), "%s", path) >= (int)sizeof(rest)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (;;) {
		const char *c = rest + off, *end;
		size_t len, n = strlen(done);
		struct stat st;
		ssize_t k;

		while (*c == '/')
			c++;
		if (*c == '\0')
			break;
		end = strchrnul(c, '/');
		len = (size_t)(end - c);
		off = (size_t)(end - rest);
		if (len == 1 && c[0] == '.')
			continue;
		if (len == 2 && c[0] == '.' && c[1] == '.') {
			char *slash = strrchr(done, '/');

			slash[slash == done ? 1 : 0] = '\0';
			continue;
		}
		if (snprintf(next, sizeof(next), "%s%s%.*s", done,
			n > 1 ? "/" : "", (int)len, c) >= (int)sizeof(next)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		if (lstat(next, &st) == -1)
			return -1;
		if (!S_ISLNK(st.st_mode)) {
			memcpy(done, next, strlen(next) + 1);
			continue;
		}
		if (++hops > 40) {
			errno = ELOOP;
			return -1;
		}
		if (*planted == NULL && command_writes(p, next))
			*planted = xstrdup(next);
		if ((k = readlink(next, link, sizeof(link) - 1)) == -1)
			return -1;
		link[k] = '\0';
		/* the target, then what was left after the link */
		if (snprintf(next, sizeof(next), "%s/%s", link, rest + off) >=
		    (int)sizeof(next)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(rest, next, strlen(next) + 1);
		off = 0;
		if (link[0] == '/')
			strcpy(done, "/");
	}
	memcpy(out, done, strlen(done) + 1);
	return 0;
}

static const char *
file_kind(mode_t m)
{
	return S_ISREG(m)    ? "a regular file"
	       : S_ISDIR(m)  ? "a directory"
	       : S_ISFIFO(m) ? "a fifo"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
			     : "another kind of file";
}

/*
 * Why the grant of the socket `g` cannot hold, as the reason and the fix
 * for a typed flag (new strings); 0 when it holds, with its canonical path
 * in `real` and its stat in `st`.
 */
static int
judge_socket(const struct kb_policy *p, const struct kb_pathgrant *g,
    char *real, struct stat *st, char **why, char **fix)
{
	char lex[PATH_MAX];
	_cleanup_free_ char *planted = NULL;
	/* a relative one from where kinbox was started (after -C) */
	_cleanup_free_ char *abs = g->path[0] == '/' || p->cwd == NULL
				       ? xstrdup(g->path)
				       : xasprintf("%s/%s", p->cwd, g->path);

	/* as given: a name in a writable root is the command's, whatever it
	 * points at now (a link planted there to a host socket) */
	if (kb_resolve_lexical(abs, lex, sizeof(lex)) == -1) {
		*why = xasprintf("cannot be resolved (%s)", strerror(errno));
		*fix = xstrdup("check the path, or drop --allow-socket");
		return -1;
	}
	if (command_writes(p, lex))
		goto inside;
	if (resolve_grant(p, abs, real, &planted) == -1) {
		if (errno == ENOENT || errno == ENOTDIR) {
			*why = xstrdup("no such socket");
			*fix = xstrdup("start the service first, or drop "
				       "--allow-socket");
		} else {
			*why = xasprintf(
			    "cannot be resolved (%s)", strerror(errno));
			*fix =
			    xstrdup("check the path, or drop --allow-socket");
		}
		return -1;
	}
	if (planted != NULL) {
		_cleanup_free_ char *esc = kb_escape(planted);

		*why = xasprintf("the symbolic link %s on its way lies inside "
				 "a writable root, where the command could "
				 "have planted it",
		    esc);
		*fix = xstrdup("give the socket's own path");
		return -1;
	}
	if (command_writes(p, real))
		goto inside;
	if (stat(real, st) == -1) {
		*why = xstrdup("no such socket");
		*fix = xstrdup("start the service first, or drop "
			       "--allow-socket");
		return -1;
	}
	if (!S_ISSOCK(st->st_mode)) {
		*why = xasprintf("not a socket (%s)", file_kind(st->st_mode));
		*fix = xstrdup("give the path of a unix socket, or drop "
			       "--allow-socket");
		return -1;
	}
	return 0;
inside:
	*why = xstrdup("inside a writable root");
	*fix = xstrdup("the command's own sockets need no grant — drop it");
	return -1;
}

/*
 * --allow-socket, allow_sockets =: each granted socket judged on the host,
 * then shown connectable at its canonical path (bound even under a masked
 * tree such as /run). A typed one that fails is an error: nothing runs. A
 * configured or granted one only permits: it is dropped with a note.
 * What stays in p->allow_socket is what was granted, canonical, once each.
 */
static int
expose_allowed(struct kb_policy *p, struct kb_err *e)
{
	size_t kept = 0;

	for (size_t i = 0; i < p->nallow_socket; i++) {
		struct kb_pathgrant g = p->allow_socket[i];
		_cleanup_free_ char *why = NULL, *fix = NULL;
		char real[PATH_MAX];
		struct stat st;
		bool dup = false;
		int rc;

		if (judge_socket(p, &g, real, &st, &why, &fix) == -1) {
			if (g.origin == KB_ORIGIN_FLAG) {
				kb_err_set(e, "--allow-socket %s: %s; %s",
				    g.path, why, fix);
				/* the rest are freed with the policy */
				for (size_t k = i; k < p->nallow_socket; k++)
					p->allow_socket[kept++] =
					    p->allow_socket[k];
				p->nallow_socket = kept;
				return -1;
			}
			kb_strv_pushf(&p->notes,
			    "socket: the grant of %s (%s) is not used: %s",
			    g.path, g.where != NULL ? g.where : "a grant", why);
			free(g.path);
			free(g.where);
			continue;
		}
		/* two names of one socket: one grant, the higher-ranked */
		for (size_t k = 0; k < kept && !dup; k++) {
			struct kb_pathgrant *h = &p->allow_socket[k];

			if (strcmp(h->path, real) != 0)
				continue;
			dup = true;
			if (g.origin >= h->origin) {
				h->origin = g.origin;
				free(h->where);
				h->where = steal_pointer(&g.where);
			}
		}
		free(g.path);
		if (dup) {
			free(g.where);
			continue;
		}
		g.path = xstrdup(real);
		p->allow_socket[kept++] = g;
		rc = add_socket_mask(p, real, &st, KB_OPT_ALLOW_SOCKET, e);
		if (rc == -1) {
			for (size_t k = i + 1; k < p->nallow_socket; k++)
				p->allow_socket[kept++] = p->allow_socket[k];
			p->nallow_socket = kept;
			return -1;
		}
	}
	p->nallow_socket = kept;
	return 0;
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
	/* the agent first: its socket granted again is still the agent's */
	if (p->ssh_agent && expose_ssh(p, e) == -1)
		return -1;
	return expose_allowed(p, e);
}
