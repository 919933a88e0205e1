/*
 * profile/config.c — the INI layers (inih) that kinbox reads on every run,
 * into the same struct kb_policy the flags fill, each value tagged with its
 * origin. kinbox only reads; kinpolicy writes grants.
 *
 *   /etc/kinbox/config.ini          system defaults     [sandbox] [caches]
 *   $XDG_CONFIG_HOME/kinbox/config.ini  the user's      [sandbox] [caches]
 *       [workspace] path = /abs/path  workspace grants for that exact path
 *   $XDG_RUNTIME_DIR/kinbox/sessions/<KINBOX_SESSION>.ini   [grant] ...
 *   <workspace>/.kinbox.ini         the project: may only tighten
 *
 * Flags win over config (they were applied first; config does not touch a
 * value whose origin is a flag). A repository controls .kinbox.ini, so it
 * can turn the network off, add masks and scrubbed names, and nothing
 * else: a loosening key is ignored with one warning naming file and key.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>

#include "policy.h"
#include "tables.h"

struct cfg {
	struct kb_policy *p;
	const char *file;
	enum kb_origin origin;
	int line;          /* the line the reader is on */
	bool failed;
	struct kb_err *e;  /* the first error */
	kb_warn_fn warn;
	int fail_line;     /* where the handler's first error was */
	bool ws_match;     /* the current [workspace] block is ours */
	bool ws_path_seen; /* ... and it has named its path */
};

static int
fail(struct cfg *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
fail(struct cfg *c, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	if (!c->failed) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		kb_err_set(c->e, "%s:%d: %s", c->file, c->line, msg);
		c->failed = true;
		c->fail_line = c->line;
	}
	return 0; /* inih: an error on this line */
}

static void
warnf(struct cfg *c, const char *key, const char *why)
{
	char line[600];

	snprintf(line, sizeof(line), "%s:%d: '%s' ignored: %s", c->file,
	    c->line, key, why);
	if (c->warn != NULL)
		c->warn(line);
	kb_strv_push(&c->p->notes, line);
}

static int
onoff(struct cfg *c, const char *key, const char *v, bool *out)
{
	if (strcasecmp(v, "on") == 0 || strcasecmp(v, "true") == 0 ||
	    strcasecmp(v, "yes") == 0 || strcmp(v, "1") == 0)
		*out = true;
	else if (strcasecmp(v, "off") == 0 || strcasecmp(v, "false") == 0 ||
	    strcasecmp(v, "no") == 0 || strcmp(v, "0") == 0)
		*out = false;
	else
		return fail(c, "%s = %s: not on or off; write on or off", key, v);
	return 1;
}

/* "~/x" is the home directory's x */
static char *
expand(const struct kb_policy *p, const char *v)
{
	if (v[0] == '~' && (v[1] == '/' || v[1] == '\0') && p->home != NULL)
		return xasprintf("%s%s", p->home, v + 1);
	return xstrdup(v);
}

static bool
valid_env_pattern(const char *v)
{
	if (*v == '\0')
		return false;
	for (const char *s = v; *s; s++)
		if (!(*s == '_' || *s == '*' || *s == '?' ||
			(*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
			(*s >= '0' && *s <= '9')))
			return false;
	return true;
}

static int
set_network(struct cfg *c, const char *v)
{
	bool on;

	if (!onoff(c, "network", v, &on))
		return 0;
	if (c->p->net_origin == KB_ORIGIN_FLAG)
		return 1; /* the flag wins */
	c->p->net = on;
	c->p->net_origin = c->origin;
	return 1;
}

static int
add_write(struct cfg *c, const char *v)
{
	_cleanup_free_ char *path = expand(c->p, v);
	struct kb_err e;

	if (path[0] != '/')
		return fail(c, "write_paths = %s: not an absolute path; write "
		    "/path or ~/path", v);
	if (kb_policy_add_write(c->p, path, c->origin, &e) == -1)
		return fail(c, "write_paths: %s", e.msg);
	return 1;
}

/* [sandbox] in the system and global configs */
static int
sandbox_key(struct cfg *c, const char *key, const char *v)
{
	struct kb_err e;

	if (strcmp(key, "backend") == 0) {
		if (c->p->backend_origin == KB_ORIGIN_FLAG)
			return 1;
		if (kb_policy_set_backend(c->p, v, &e) == -1)
			return fail(c, "%s", e.msg);
		c->p->backend_origin = c->origin;
		return 1;
	}
	if (strcmp(key, "network") == 0)
		return set_network(c, v);
	if (strcmp(key, "write_paths") == 0)
		return add_write(c, v);
	if (strcmp(key, "mask") == 0) {
		char *path = expand(c->p, v);

		if (path[0] != '/') {
			free(path);
			return fail(c, "mask = %s: not an absolute path; write "
			    "/path or ~/path", v);
		}
		kb_strv_push(&c->p->extra_mask, path);
		free(path);
		return 1;
	}
	if (strcmp(key, "scrub_env") == 0 || strcmp(key, "keep_env") == 0) {
		if (!valid_env_pattern(v))
			return fail(c, "%s = %s: not a variable name or pattern "
			    "(letters, digits, _, * and ?)", key, v);
		if (key[0] == 'k' && strpbrk(v, "*?") != NULL)
			return fail(c, "keep_env = %s: keep_env takes exact "
			    "names, no patterns", v);
		kb_strv_push(key[0] == 's' ? &c->p->scrub_env :
					     &c->p->keep_env, v);
		return 1;
	}
	return fail(c, "unknown key '%s' in [sandbox]; see kinbox.conf(5)",
	    key);
}

static int
cache_key(struct cfg *c, const char *key, const char *v)
{
	enum kb_cache_mode m;

	if (strcmp(v, "off") == 0)
		m = KB_CACHE_OFF;
	else if (strcmp(v, "ephemeral") == 0)
		m = KB_CACHE_EPHEMERAL;
	else if (strcmp(v, "persisted") == 0)
		m = KB_CACHE_PERSISTED;
	else
		return fail(c, "%s = %s: write off, ephemeral or persisted", key,
		    v);
	for (size_t i = 0; i < kb_cache_count; i++) {
		if (strcmp(kb_cache_table[i].name, key) == 0) {
			c->p->cache[i] = m;
			return 1;
		}
	}
	return fail(c, "unknown cache '%s' in [caches]; known: cache, npm, "
	    "cargo, gomod, gradle, maven", key);
}

/* [workspace "/path"] in the global config and [grant] in a session file */
static int
grant_key(struct cfg *c, const char *key, const char *v)
{
	bool on;

	if (strcmp(key, "write_paths") == 0)
		return add_write(c, v);
	if (strcmp(key, "network") == 0)
		return set_network(c, v);
	if (strcmp(key, "ssh_agent") == 0 || strcmp(key, "unconfined") == 0) {
		if (!onoff(c, key, v, &on))
			return 0;
		if (key[0] == 'u' && on && c->origin == KB_ORIGIN_WORKSPACE)
			return fail(c, "unconfined cannot be a workspace grant "
			    "(at most a session); remove the line");
		if (!on)
			return 1;
		if (key[0] == 's') {
			c->p->ssh_agent = true;
			c->p->ssh_origin = c->origin;
			/* the agent needs the network */
			if (c->p->net_origin != KB_ORIGIN_FLAG) {
				c->p->net = true;
				c->p->net_origin = c->origin;
			}
		} else {
			c->p->unconfined = true;
			c->p->unconfined_origin = c->origin;
		}
		return 1;
	}
	if (strcmp(key, "from") == 0 || strcmp(key, "granted") == 0)
		return 1; /* provenance, for kinpolicy grants */
	return fail(c, "unknown grant key '%s'; see kinbox.conf(5)", key);
}

/* .kinbox.ini: tightening only */
static int
project_key(struct cfg *c, const char *section, const char *key,
    const char *v)
{
	bool on;

	if (strcmp(section, "sandbox") != 0) {
		warnf(c, key, "a project file may only tighten (network = "
		    "off, mask, scrub_env)");
		return 1;
	}
	if (strcmp(key, "network") == 0) {
		if (!onoff(c, key, v, &on))
			return 0;
		if (on) {
			warnf(c, key, "a project file cannot turn the network "
			    "on");
			return 1;
		}
		c->p->net = false;
		c->p->net_origin = KB_ORIGIN_PROJECT;
		return 1;
	}
	if (strcmp(key, "mask") == 0 || strcmp(key, "scrub_env") == 0)
		return sandbox_key(c, key, v);
	warnf(c, key, "a project file may only tighten (network = off, mask, "
	    "scrub_env)");
	return 1;
}

/* [workspace] path = /abs: does it name our workspace, exactly? */
static bool
path_is_workspace(const char *v, const char *workspace)
{
	_cleanup_free_ char *real = realpath(v, NULL);

	return real != NULL && workspace != NULL && strcmp(real, workspace) == 0;
}

static int
handler(void *user, const char *section, const char *key, const char *v)
{
	struct cfg *c = user;

	if (c->failed)
		return 1; /* only the first error is reported */
	switch (c->origin) {
	case KB_ORIGIN_PROJECT:
		return project_key(c, section, key, v);
	case KB_ORIGIN_SESSION:
		/* [always]: a human's "always allow" answers for kinpolicy
		 * decide; nothing for the sandbox */
		if (strcmp(section, "always") == 0)
			return 1;
		if (strcmp(section, "grant") != 0)
			return fail(c, "unknown section [%s] in a session "
			    "file; only [grant] and [always]", section);
		return grant_key(c, key, v);
	case KB_ORIGIN_SYSTEM:
	case KB_ORIGIN_GLOBAL:
		if (strcmp(section, "sandbox") == 0)
			return sandbox_key(c, key, v);
		if (strcmp(section, "caches") == 0)
			return cache_key(c, key, v);
		if (strcmp(section, "workspace") == 0) {
			/* each "path =" starts a grant block (inih cannot tell
			 * two [workspace] sections apart) */
			if (c->origin != KB_ORIGIN_GLOBAL)
				return fail(c, "workspace grants live in the "
				    "user's config only");
			if (strcmp(key, "path") == 0) {
				if (v[0] != '/')
					return fail(c, "path = %s: not an "
					    "absolute path", v);
				c->ws_path_seen = true;
				c->ws_match = path_is_workspace(v,
				    c->p->workspace);
				return 1;
			}
			if (!c->ws_path_seen)
				return fail(c, "[workspace] must name its path "
				    "first (path = /abs/dir)");
			if (!c->ws_match)
				return 1;
			c->origin = KB_ORIGIN_WORKSPACE;
			grant_key(c, key, v);
			c->origin = KB_ORIGIN_GLOBAL;
			return c->failed ? 0 : 1;
		}
		return fail(c, "unknown section [%s]; see kinbox.conf(5)",
		    section);
	case KB_ORIGIN_DEFAULT:
	case KB_ORIGIN_WORKSPACE:
	case KB_ORIGIN_FLAG:
	case KB_ORIGIN_ENV:
		break;
	}
	return fail(c, "internal: no rules for this file");
}

/* inih reader that counts lines, so the handler knows where it is */
struct stream {
	FILE *f;
	struct cfg *c;
	size_t left; /* bytes it may still read: the size bound holds even
			when the file grows after it was judged */
};

/* inih's buffer holds INI_MAX_LINE bytes: a longer line would be split
 * silently and misread, so it is an error */
static char *
line_reader(char *str, int num, void *vs)
{
	struct stream *s = vs;
	char *r = fgets(str, num, s->f);
	size_t n;

	if (r == NULL)
		return NULL;
	s->c->line++;
	n = strlen(r);
	if (n == (size_t)num - 1 && r[n - 1] != '\n' && !feof(s->f)) {
		fail(s->c, "line longer than %d bytes; shorten it", num - 2);
		return NULL;
	}
	if (n > s->left) {
		fail(s->c, "the file grew past its size bound while it was "
		    "read; shorten it");
		return NULL;
	}
	s->left -= n;
	return r;
}

#define KB_PROJECT_MAX (64 * 1024) /* .kinbox.ini, the command's file */
#define KB_CONFIG_MAX (1024 * 1024) /* the caller's files (grants.c reads
				       them with the same bound) */

static const char *
type_name(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" :
	    S_ISSOCK(m)	  ? "a socket" :
	    S_ISCHR(m)	  ? "a character device" :
	    S_ISBLK(m)	  ? "a block device" :
			    "not a regular file";
}

/*
 * Opens a config file for reading, judged on the descriptor before the
 * first byte is read: O_NONBLOCK so that a FIFO cannot hang kinbox, a
 * regular file only, and a size bound. The project file is the command's
 * (it lies in the workspace, written by earlier runs): a symlink there is
 * refused (O_NOFOLLOW) rather than followed to wherever it points. The
 * caller's own files may be symlinks (dotfile managers). Returns the
 * stream, or NULL with errno ENOENT (absent) or with `e` set.
 */
static FILE *
open_config(const char *file, bool project, struct kb_err *e)
{
	int fl = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
	size_t max = project ? KB_PROJECT_MAX : KB_CONFIG_MAX;
	struct stat st;
	FILE *f;
	int fd;

	fd = open(file, fl | (project ? O_NOFOLLOW : 0));
	if (fd == -1) {
		if (errno == ENOENT)
			return NULL;
		if (project && errno == ELOOP)
			kb_err_set(e, "%s: a symlink; a project file must be a "
			    "regular file in the workspace (a link could point "
			    "kinbox anywhere); replace it with the file itself",
			    file);
		else
			kb_err_set(e, "%s: %s; fix the file or its permissions",
			    file, strerror(errno));
		errno = EINVAL;
		return NULL;
	}
	if (fstat(fd, &st) == -1) {
		kb_err_set(e, "%s: %s", file, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		kb_err_set(e, "%s: %s; a config file must be a regular file; "
		    "remove it or replace it with one", file,
		    type_name(st.st_mode));
		goto fail;
	}
	if ((unsigned long long)st.st_size > max) {
		kb_err_set(e, "%s: %lld bytes, more than the %zu KiB a %s may "
		    "hold; shorten it", file, (long long)st.st_size,
		    max / 1024, project ? "project file" : "config file");
		goto fail;
	}
	if ((f = fdopen(fd, "r")) == NULL) {
		kb_err_set(e, "%s: %s", file, strerror(errno));
		goto fail;
	}
	return f;
fail:
	close(fd);
	errno = EINVAL;
	return NULL;
}

static int
load(struct kb_policy *p, const char *file, enum kb_origin origin,
    bool required, kb_warn_fn warn, struct kb_err *e)
{
	struct cfg c = { .p = p, .file = file, .origin = origin, .e = e,
		.warn = warn };
	struct stream s = { .c = &c };
	int rc;

	s.left = origin == KB_ORIGIN_PROJECT ? KB_PROJECT_MAX : KB_CONFIG_MAX;
	s.f = open_config(file, origin == KB_ORIGIN_PROJECT, e);
	if (s.f == NULL) {
		if (errno == ENOENT && !required)
			return 0;
		if (errno == ENOENT)
			return kb_err_set(e, "%s: %s; fix the file or its "
			    "permissions", file, strerror(ENOENT));
		return -1;
	}
	rc = ini_parse_stream(line_reader, &s, handler, &c);
	fclose(s.f);
	/* the first error wins: inih's (a broken line) or ours */
	if (c.failed && (rc <= 0 || c.fail_line <= rc))
		return -1;
	if (rc > 0)
		return kb_err_set(e, "%s:%d: not an INI line (want [section] "
		    "or key = value); fix it or see kinbox.conf(5)", file, rc);
	if (rc < 0)
		return kb_err_set(e, "%s: cannot be read", file);
	return 0;
}

char *
kb_config_global_path(const char *home)
{
	const char *x = getenv("XDG_CONFIG_HOME");

	if (x != NULL && x[0] == '/')
		return xasprintf("%s/kinbox/config.ini", x);
	return home != NULL ? xasprintf("%s/.config/kinbox/config.ini", home) :
			      NULL;
}

char *
kb_config_session_path(const char *session)
{
	const char *x = getenv("XDG_RUNTIME_DIR");

	if (x == NULL || x[0] != '/')
		return NULL;
	return xasprintf("%s/kinbox/sessions/%s.ini", x, session);
}

/* a session id is what kinpolicy session new made: no path tricks */
static bool
valid_session(const char *s)
{
	size_t n = strlen(s);

	if (n < 8 || n > 64)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
			*s == '_' || *s == '-'))
			return false;
	return true;
}

int
kb_config_load_all(struct kb_policy *p, const char *etc, kb_warn_fn warn,
    struct kb_err *e)
{
	_cleanup_free_ char *sys = xasprintf("%s/config.ini",
	    etc != NULL ? etc : "/etc/kinbox");
	_cleanup_free_ char *global = kb_config_global_path(p->home);
	_cleanup_free_ char *project = NULL;
	const char *session = getenv("KINBOX_SESSION");

	if (load(p, sys, KB_ORIGIN_SYSTEM, false, warn, e) == -1)
		return -1;
	if (global != NULL && load(p, global, KB_ORIGIN_GLOBAL, false, warn,
				  e) == -1)
		return -1;
	if (session != NULL && *session != '\0') {
		_cleanup_free_ char *sf = NULL;

		if (!valid_session(session))
			return kb_err_set(e, "KINBOX_SESSION=%s: not a session "
			    "id; create one with kinpolicy session new",
			    session);
		sf = kb_config_session_path(session);
		if (sf == NULL)
			return kb_err_set(e, "KINBOX_SESSION is set but "
			    "XDG_RUNTIME_DIR is not; sessions live there");
		if (load(p, sf, KB_ORIGIN_SESSION, true, warn, e) == -1)
			return -1;
	}
	if (p->workspace != NULL) {
		project = xasprintf("%s/.kinbox.ini", p->workspace);
		if (load(p, project, KB_ORIGIN_PROJECT, false, warn, e) == -1)
			return -1;
	}
	return 0;
}
