/*
 * sidecar/grants.c — writing and listing grants. Only kinpolicy links the
 * writers. Stores are plain INI text, appended to or rewritten whole
 * through a temporary file and rename(2), never edited in place, and are
 * hidden inside every sandbox (profile/masks.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../profile/hosts.h"
#include "../profile/resolve.h"
#include "grants.h"

/* Roots a grant may open for a session at most: the system's own trees
 * and the places that hold credentials or kinbox's policy. */
static const char *const sensitive_system[] = {
    "/etc",
    "/usr",
    "/var",
    "/boot",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/opt",
    "/srv",
    "/root",
};
static const char *const sensitive_home[] = {
    ".ssh",
    ".gnupg",
    ".config/kinbox",
    ".local/state/kinbox",
    ".aws",
    ".kube",
    ".config",
    ".local/bin",
    ".bashrc",
    ".profile",
};

static bool
sensitive(const char *path, const char *home)
{
	/* scratch space, not system state */
	if (kb_path_within(path, "/var/tmp"))
		return false;
	for (size_t i = 0; i < nitems(sensitive_system); i++)
		if (kb_path_within(path, sensitive_system[i]))
			return true;
	for (size_t i = 0; home != NULL && i < nitems(sensitive_home); i++) {
		_cleanup_free_ char *h =
		    xasprintf("%s/%s", home, sensitive_home[i]);

		if (kb_path_within(path, h))
			return true;
	}
	return false;
}

const struct kb_strv *
kb_grant_list_const(const struct kb_grant *g, enum kb_opt id)
{
	if (id == KB_OPT_WRITE)
		return &g->write_paths;
	if (id == KB_OPT_ALLOW_SOCKET)
		return &g->allow_sockets;
	if (id == KB_OPT_ALLOW_HOST)
		return &g->allowed_hosts;
	if (id == KB_OPT_DEVICE)
		return &g->devices;
	return NULL;
}

struct kb_strv *
kb_grant_list(struct kb_grant *g, enum kb_opt id)
{
	if (id == KB_OPT_WRITE)
		return &g->write_paths;
	if (id == KB_OPT_ALLOW_SOCKET)
		return &g->allow_sockets;
	if (id == KB_OPT_ALLOW_HOST)
		return &g->allowed_hosts;
	if (id == KB_OPT_DEVICE)
		return &g->devices;
	return NULL;
}

bool
kb_grant_empty(const struct kb_grant *g)
{
	for (size_t i = 0; i < KB_OPT__N; i++)
		if (g->on[i])
			return false;
	return g->write_paths.n == 0 && g->allow_sockets.n == 0 &&
	       g->allowed_hosts.n == 0 && g->devices.n == 0;
}

void
kb_grant_free(struct kb_grant *g)
{
	kb_strv_free(&g->write_paths);
	kb_strv_free(&g->allow_sockets);
	kb_strv_free(&g->allowed_hosts);
	kb_strv_free(&g->devices);
}

/* An allowed host, canonical in place ("GitHub.com." is
 * "github.com:443"): the entry kinbox would take, judged by its form. */
static int
kp_check_host(char **entry, struct kb_err *e)
{
	char name[KB_HOST_NAME_MAX + 1];
	const char *why;
	unsigned port;

	if (kb_host_entry_parse(*entry, name, sizeof(name), &port, &why) == -1)
		return kb_err_set(
		    e, "--allow-host %s: %s", **entry ? *entry : "''", why);
	free(*entry);
	*entry = xasprintf("%s:%u", name, port);
	return 0;
}

/*
 * A granted socket, canonicalised in place: it exists and is a socket
 * (kinbox judges it again at every run, and drops it with a note when it
 * no longer holds), and lies in no writable root of the run: a name there,
 * or a socket there, is the command's own (it needs no grant, or it
 * planted a link to a host socket for a human to grant).
 */
static int
check_socket(char **path, enum kb_lifetime life, const char *const *roots,
    size_t nroots, struct kb_err *e)
{
	const char *key = kb_options[KB_OPT_ALLOW_SOCKET].key;
	char cwd[PATH_MAX], lex[PATH_MAX];
	_cleanup_free_ char *abs = NULL, *real = NULL;
	struct stat st;

	if ((*path)[0] == '/')
		abs = xstrdup(*path);
	else if (getcwd(cwd, sizeof(cwd)) != NULL)
		abs = xasprintf("%s/%s", cwd, *path);
	if (abs == NULL || kb_resolve_lexical(abs, lex, sizeof(lex)) == -1)
		return kb_err_set(e,
		    "--allow-socket %s: cannot be resolved (%s); "
		    "check the path",
		    *path, strerror(errno));
	if ((real = realpath(abs, NULL)) == NULL || stat(real, &st) == -1)
		return kb_err_set(e,
		    "--allow-socket %s: no such socket; "
		    "start the service first, or drop --allow-socket",
		    *path);
	if (!S_ISSOCK(st.st_mode))
		return kb_err_set(e,
		    "--allow-socket %s: not a socket; give the path "
		    "of a unix socket, or drop --allow-socket",
		    *path);
	if (kb_resolve_root(lex, roots, nroots) != NULL ||
	    kb_resolve_root(real, roots, nroots) != NULL)
		return kb_err_set(e,
		    "--allow-socket %s: inside a writable root of that run; "
		    "the command's own sockets need no grant — drop it",
		    *path);
	if (life != KB_LIFE_ONCE && !kb_ini_value_ok(real, strlen(key)))
		return kb_err_set(e,
		    "--allow-socket %s: a path with ';', '#', a control byte "
		    "(a tab, a line break) or surrounding blanks, or longer "
		    "than %zu bytes, cannot be stored; use --once",
		    real, KB_INI_LINE_MAX - 3 - strlen(key));
	free(*path);
	*path = steal_pointer(&real);
	return 0;
}

/* A node no run would take, whoever asks: a block device, or a character
 * device of a refused class (kb_device_class: a disk, a keyboard, a
 * console or memory by another name). `what` names it in the message
 * ("--device /dev/sg0" or "... it holds sg0"). -1 with `e`, else 0. */
static int
check_device_node(
    const char *what, const struct stat *st, const char *fix, struct kb_err *e)
{
	char cls[300];

	if (S_ISBLK(st->st_mode))
		return kb_err_set(e,
		    "%s a block device: kinbox refuses every block device%s",
		    what, fix);
	if (S_ISCHR(st->st_mode) &&
	    kb_device_class(st->st_rdev, NULL, cls, sizeof(cls)) == 1)
		return kb_err_set(e, "%s %s, which is refused whoever asks%s",
		    what, cls, fix);
	return 0;
}

/*
 * A granted device, canonicalised in place: a character device (or a
 * directory of them) now; never a block device or a device of a refused
 * class, nor a directory that holds one, which no run would take. kinbox
 * judges it again, by descriptor, at every run (profile/devices.c).
 */
static int
check_device(char **path, enum kb_lifetime life, struct kb_err *e)
{
	const char *key = kb_options[KB_OPT_DEVICE].key;
	_cleanup_free_ char *real = realpath(*path, NULL);
	_cleanup_free_ char *what = NULL;
	struct stat st;

	if (real == NULL || stat(real, &st) == -1)
		return kb_err_set(e, "--device %s: %s; check the path", *path,
		    strerror(errno));
	what = xasprintf("--device %s:", *path);
	if (check_device_node(what, &st, "; drop it", e) == -1)
		return -1;
	if (!S_ISCHR(st.st_mode) && !S_ISDIR(st.st_mode))
		return kb_err_set(e,
		    "--device %s: not a device node; give the path of a "
		    "character device or a directory of them",
		    *path);
	if (S_ISDIR(st.st_mode)) {
		/* one level, as kinbox binds it; links are not followed */
		_cleanup_close_ int dfd =
		    open(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		DIR *d = dfd != -1 ? fdopendir(dfd) : NULL;
		struct dirent *de;
		int rc = 0;

		if (d == NULL)
			return kb_err_set(e, "--device %s: %s; check the path",
			    *path, strerror(errno));
		dfd = -1; /* the stream owns it */
		while (rc == 0 && (de = readdir(d)) != NULL) {
			struct stat ent;
			_cleanup_free_ char *w = NULL;

			if (de->d_name[0] == '.' ||
			    fstatat(dirfd(d), de->d_name, &ent,
				AT_SYMLINK_NOFOLLOW) == -1)
				continue;
			w = xasprintf(
			    "--device %s: it holds %s,", *path, de->d_name);
			rc = check_device_node(w, &ent,
			    "; name the character devices the command needs",
			    e);
		}
		closedir(d);
		if (rc == -1)
			return -1;
	}
	if (life != KB_LIFE_ONCE && !kb_ini_value_ok(real, strlen(key)))
		return kb_err_set(e,
		    "--device %s: a path with ';', '#', a control byte (a "
		    "tab, a line break) or surrounding blanks, or longer than "
		    "%zu bytes, cannot be stored; use --once",
		    real, KB_INI_LINE_MAX - 3 - strlen(key));
	free(*path);
	*path = steal_pointer(&real);
	return 0;
}

/* "--write DIR, --net, --ssh-agent, --allow-socket PATH or --unconfined",
 * from the table */
static char *
grantable_list(void)
{
	struct kb_buf b = {0};
	size_t n = 0, k = 0;

	for (size_t i = 0; i < KB_OPT__N; i++)
		n += kb_options[i].max_life != KB_LIFE_NEVER;
	for (size_t i = 0; i < KB_OPT__N; i++) {
		const struct kb_option *o = &kb_options[i];

		if (o->max_life == KB_LIFE_NEVER)
			continue;
		k++;
		kb_buf_printf(&b, "%s--%s%s%s",
		    k == 1   ? ""
		    : k == n ? " or "
			     : ", ",
		    o->flag, o->metavar ? " " : "",
		    o->metavar ? o->metavar : "");
	}
	return b.s;
}

int
kb_grant_check(struct kb_grant *g, const char *home, const char *const *roots,
    size_t nroots, struct kb_err *e)
{
	if (kb_grant_empty(g)) {
		_cleanup_free_ char *what = grantable_list();

		return kb_err_set(e, "nothing to grant; give %s", what);
	}
	if (g->write_paths.n > KB_MAX_WRITE)
		return kb_err_set(
		    e, "too many write roots (at most %d)", KB_MAX_WRITE);
	for (size_t i = 0; i < g->write_paths.n; i++) {
		char *real = kb_paths_accept_root(
		    g->write_paths.v[i], home, "--write", e);

		if (real == NULL)
			return -1;
		if (kb_paths_in_git_metadata(real)) {
			kb_err_set(e,
			    "--write %s: git metadata; grant the "
			    "checkout instead",
			    real);
			free(real);
			return -1;
		}
		if (g->life == KB_LIFE_WORKSPACE && sensitive(real, home)) {
			kb_err_set(e,
			    "--write %s: a system or credential "
			    "directory can be granted at most for a session; "
			    "use --once or --session",
			    real);
			free(real);
			return -1;
		}
		/* a root that holds (or lies in) kinbox's own stores: every
		 * run with it would be refused, and rightly */
		{
			struct kb_policy tmp;
			int rc;

			kb_policy_init(&tmp);
			tmp.home = home != NULL ? xstrdup(home) : NULL;
			tmp.write[0].path = xstrdup(real);
			tmp.write[0].origin =
			    g->life == KB_LIFE_SESSION     ? KB_ORIGIN_SESSION
			    : g->life == KB_LIFE_WORKSPACE ? KB_ORIGIN_WORKSPACE
							   : KB_ORIGIN_FLAG;
			tmp.nwrite = 1;
			rc = kb_config_check_stores(&tmp, NULL, e);
			kb_policy_free(&tmp);
			if (rc == -1) {
				free(real);
				return -1;
			}
		}
		if (g->life != KB_LIFE_ONCE &&
		    !kb_ini_value_ok(
			real, strlen(kb_options[KB_OPT_WRITE].key))) {
			kb_err_set(e,
			    "--write %s: a path with ';', '#', a control "
			    "byte (a tab, a line break) or surrounding blanks, "
			    "or longer than %zu bytes, cannot be stored; use "
			    "--once",
			    real,
			    KB_INI_LINE_MAX - 3 -
				strlen(kb_options[KB_OPT_WRITE].key));
			free(real);
			return -1;
		}
		free(g->write_paths.v[i]);
		g->write_paths.v[i] = real;
	}
	if (g->allow_sockets.n > KB_MAX_SOCKET)
		return kb_err_set(
		    e, "too many granted sockets (at most %d)", KB_MAX_SOCKET);
	for (size_t i = 0; i < g->allow_sockets.n; i++)
		if (check_socket(&g->allow_sockets.v[i], g->life, roots, nroots,
			e) == -1)
			return -1;
	if (g->allowed_hosts.n > KB_MAX_HOST)
		return kb_err_set(
		    e, "too many allowed hosts (at most %d)", KB_MAX_HOST);
	for (size_t i = 0; i < g->allowed_hosts.n; i++)
		if (kp_check_host(&g->allowed_hosts.v[i], e) == -1)
			return -1;
	if (g->devices.n > KB_MAX_DEVICE)
		return kb_err_set(
		    e, "too many devices (at most %d)", KB_MAX_DEVICE);
	for (size_t i = 0; i < g->devices.n; i++)
		if (check_device(&g->devices.v[i], g->life, e) == -1)
			return -1;
	/* the whole network and some hosts: kinbox refuses the two typed
	 * together, so a once grant of both could never be retried */
	if (g->allowed_hosts.n > 0 && g->on[KB_OPT_SSH_AGENT])
		return kb_err_set(e,
		    "--ssh-agent needs the whole network (--net), and "
		    "--allow-host gives only some hosts: grant one of the two");
	if (g->allowed_hosts.n > 0 && g->on[KB_OPT_NET])
		return kb_err_set(e,
		    "--net gives the whole network and --allow-host only some "
		    "hosts: grant one of the two");
	if (g->allowed_hosts.n > 0 && g->on[KB_OPT_UNCONFINED])
		return kb_err_set(e,
		    "--unconfined gives the whole network (no sandbox at all) "
		    "and --allow-host only some hosts: grant one of the two");
	if (g->on[KB_OPT_SSH_AGENT])
		g->on[KB_OPT_NET] = true; /* the agent needs the network */
	for (size_t i = 0; i < KB_OPT__N; i++) {
		const struct kb_strv *l =
		    kb_grant_list_const(g, (enum kb_opt)i);

		if ((g->on[i] || (l != NULL && l->n > 0)) &&
		    g->life > kb_options[i].max_life)
			return kb_err_set(e,
			    "--%s can be granted at most for a "
			    "%s; use --once or --session",
			    kb_options[i].flag,
			    kb_lifetime_name(kb_options[i].max_life));
	}
	return 0;
}

static int
mkparent(const char *file)
{
	_cleanup_free_ char *d = xstrdup(file);
	char *slash = strrchr(d, '/');

	if (slash == NULL || slash == d)
		return 0;
	*slash = '\0';
	return kb_mkdirs(d, 0700, NULL);
}

char *
kb_session_new(struct kb_err *e)
{
	unsigned char r[8];
	char id[32];
	_cleanup_free_ char *file = NULL;
	int fd;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
		kb_err_set(e, "getrandom: %s", strerror(errno));
		return NULL;
	}
	snprintf(id, sizeof(id), "ses_%02x%02x%02x%02x%02x%02x%02x%02x", r[0],
	    r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
	file = kb_config_session_path(id);
	if (file == NULL) {
		kb_err_set(e,
		    "neither XDG_RUNTIME_DIR nor a home directory is "
		    "there to keep sessions in (set XDG_RUNTIME_DIR to a "
		    "private 0700 directory)");
		return NULL;
	}
	if (mkparent(file) == -1 ||
	    (fd = open(file,
		 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) ==
		-1) {
		kb_err_set(e, "%s: %s", file, strerror(errno));
		return NULL;
	}
	close(fd);
	return xstrdup(id);
}

/* Appends text to a file (created 0600), never through a symlink. */
static int
append(const char *file, const char *text, struct kb_err *e)
{
	size_t n = strlen(text);
	int fd;

	if (mkparent(file) == -1)
		return kb_err_set(e, "%s: %s", file, strerror(errno));
	fd = open(
	    file, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd == -1)
		return kb_err_set(e, "%s: %s", file, strerror(errno));
	if (write(fd, text, n) != (ssize_t)n || close(fd) == -1)
		return kb_err_set(e, "%s: %s", file, strerror(errno));
	return 0;
}

int
kb_grant_store(const struct kb_grant *g, const char *home, const char *session,
    const char *workspace, const char *from, struct kb_err *e)
{
	_cleanup_free_ char *file = NULL;
	struct kb_buf b = {0};
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	int rc;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	if (g->life == KB_LIFE_SESSION) {
		if (session == NULL || *session == '\0')
			return kb_err_set(e,
			    "--session needs KINBOX_SESSION; "
			    "create one with kinpolicy session new");
		if (!kb_session_id_ok(session))
			return kb_err_set(e,
			    "KINBOX_SESSION=%s: not a session id; create one "
			    "with kinpolicy session new",
			    session);
		file = kb_config_session_path(session);
		if (file == NULL || access(file, F_OK) == -1)
			return kb_err_set(e,
			    "KINBOX_SESSION=%s: no such session; "
			    "create one with kinpolicy session new",
			    session);
		kb_buf_puts(&b, "\n[grant]\n");
	} else if (g->life == KB_LIFE_WORKSPACE) {
		if (workspace == NULL || !kb_ini_value_ok(workspace, 4))
			return kb_err_set(e,
			    "workspace %s: a path with ';', '#', a control "
			    "byte (a tab, a line break) or surrounding blanks, "
			    "or longer than %d bytes, cannot be stored in the "
			    "config",
			    workspace ? workspace : "(none)",
			    KB_INI_LINE_MAX - 7);
		file = kb_config_global_path(home);
		if (file == NULL)
			return kb_err_set(
			    e, "no home directory for the config");
		kb_buf_printf(&b, "\n[workspace]\npath = %s\n", workspace);
	} else {
		return kb_err_set(e, "a once grant is not stored");
	}
	kb_buf_printf(&b, "from = %s\ngranted = %s\n", from ? from : "-", when);
	/* the keys of the option table, which kinbox's reader looks up */
	for (size_t i = 0; i < KB_OPT__N; i++) {
		const struct kb_strv *l =
		    kb_grant_list_const(g, (enum kb_opt)i);

		for (size_t k = 0; l != NULL && k < l->n; k++)
			kb_buf_printf(
			    &b, "%s = %s\n", kb_options[i].key, l->v[k]);
	}
	for (size_t i = 0; i < KB_OPT__N; i++)
		if (g->on[i])
			kb_buf_printf(&b, "%s = on\n", kb_options[i].key);
	rc = append(file, b.s, e);
	kb_buf_free(&b);
	return rc;
}

/* --- listing and revoking -------------------------------------------- */

struct list_ctx {
	struct kb_stored_grant *v;
	size_t n;
	const char *lifetime; /* of the store being read */
};

static void
kp_collect(const struct kb_grant_block *b, void *vctx)
{
	struct list_ctx *c = vctx;
	struct kb_stored_grant *g;

	c->v = xreallocarray(c->v, c->n + 1, sizeof(*c->v));
	g = &c->v[c->n++];
	g->file = xstrdup(b->file);
	g->header = xasprintf("[%s]", b->section);
	g->body = xstrdup(b->body);
	g->lifetime = c->lifetime;
	memcpy(g->id, b->id, sizeof(g->id));
}

/* the grant blocks of a store, read by the one INI reader (config.c); a
 * store that cannot be read lists what was read before the fault */
static void
blocks(const char *file, const char *lifetime, struct list_ctx *c)
{
	struct kb_err e;

	c->lifetime = lifetime;
	kb_grant_blocks(file, kp_collect, c, &e);
}

size_t
kb_grants_list(
    const char *home, const char *session, struct kb_stored_grant **out)
{
	struct list_ctx c = {NULL, 0, NULL};
	_cleanup_free_ char *global = kb_config_global_path(home);

	if (session != NULL && *session != '\0') {
		_cleanup_free_ char *sf = kb_config_session_path(session);

		if (sf != NULL)
			blocks(sf, "session", &c);
	}
	if (global != NULL)
		blocks(global, "workspace", &c);
	*out = c.v;
	return c.n;
}

void
kb_stored_free(struct kb_stored_grant *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].file);
		free(v[i].header);
		free(v[i].body);
	}
	free(v);
}

/* the line numbers of a store's section headers, and whether each opens
 * a grant block */
struct heads {
	int line[256];
	bool grant[256];
	size_t n;
	bool full;
};

static int
head_section(void *ctx, const char *name, int line, struct kb_err *e)
{
	struct heads *h = ctx;

	if (h->n == nitems(h->line)) {
		h->full = true;
		return kb_err_set(e, "more than %zu sections", nitems(h->line));
	}
	h->line[h->n] = line;
	h->grant[h->n++] = kb_grant_section(name);
	return 0;
}

static int
head_entry(void *ctx, const char *section, const char *key, const char *v,
    int line, struct kb_err *e)
{
	(void)ctx;
	(void)section;
	(void)key;
	(void)v;
	(void)line;
	(void)e;
	return 0;
}

/* Rewrites `file` without the grant blocks whose global index (counted
 * from *seen) is `index` (or all, index < 0). The blocks are where the
 * reader found their headers; the text in between is kept as it was. */
static int
rewrite(const char *file, long index, long *seen, struct kb_err *e)
{
	static const struct kb_ini_visitor v = {head_section, head_entry};
	_cleanup_free_ char *s = NULL;
	_cleanup_free_ char *tmp = NULL;
	struct heads h = {.n = 0};
	struct kb_buf out = {0};
	bool skipping = false;
	size_t next = 0;
	char *p, *nl;
	int fd, rc = 0, line = 0;

	/* read once: the blocks are found in the very bytes rewritten */
	if ((s = kb_read_small_file(file, 1 << 20)) == NULL)
		return 0;
	if (kb_ini_read_text(file, s, strlen(s), &v, &h, e) == -1)
		return -1;
	kb_buf_puts(&out, "");
	for (p = s; *p != '\0'; p = nl) {
		nl = strchr(p, '\n');
		nl = nl != NULL ? nl + 1 : p + strlen(p);
		line++;
		if (next < h.n && h.line[next] == line) {
			skipping = false;
			if (h.grant[next]) {
				skipping = index < 0 || *seen == index;
				(*seen)++;
			}
			next++;
		}
		if (!skipping)
			kb_buf_add(&out, p, (size_t)(nl - p));
	}
	tmp = xasprintf("%s.kinpolicy.%ld", file, (long)getpid());
	fd = open(
	    tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	rc = 0;
	if (fd == -1 || write(fd, out.s, out.len) != (ssize_t)out.len ||
	    close(fd) == -1 || rename(tmp, file) == -1) {
		rc = kb_err_set(e, "%s: %s", file, strerror(errno));
		unlink(tmp);
	}
	kb_buf_free(&out);
	return rc;
}

int
kb_grants_revoke(
    const char *home, const char *session, long index, struct kb_err *e)
{
	_cleanup_free_ char *global = kb_config_global_path(home);
	long seen = 0;

	if (session != NULL && *session != '\0') {
		_cleanup_free_ char *sf = kb_config_session_path(session);

		if (sf != NULL && rewrite(sf, index, &seen, e) == -1)
			return -1;
	}
	if (global != NULL && rewrite(global, index, &seen, e) == -1)
		return -1;
	if (index >= seen)
		return kb_err_set(
		    e, "no grant %ld; see kinpolicy grants", index + 1);
	return 0;
}
