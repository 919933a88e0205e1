/*
 * profile/config.c — the one INI reader (inih, with a visitor API that also
 * serves the grant stores and the session's "always" answers) and the
 * layers kinbox reads on every run, into the same struct kb_policy the
 * flags fill, through the option table's setter (profile/option-table.c,
 * profile/options.c), each value tagged with its origin and file:line. kinbox
 * only reads; kinpolicy writes grants, within this reader's limits.
 *
 *   /etc/kinbox/config.ini          system defaults     [sandbox] [network]
 *                                                       [caches]
 *   $XDG_CONFIG_HOME/kinbox/config.ini  the user's      [sandbox] [network]
 *                                                       [caches]
 *       [workspace] path = /abs/path  workspace grants for that exact path
 *   $XDG_RUNTIME_DIR/kinbox/sessions/<KINBOX_SESSION>.ini   [grant] ...
 *   <workspace>/.kinbox.ini         the project: may only tighten
 *
 * Rank order: system, global, workspace grant, session grant (these three
 * files: kb_config_load_layers), then the caller applies the flags, then
 * the project file (kb_config_load_project): later wins a scalar, lists
 * accumulate. A repository controls .kinbox.ini, so it can turn the
 * network off, add masks and scrubbed names, and nothing else: a loosening
 * key is ignored with one warning naming file and key.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>

#include "config.h"
#include "options.h"
#include "policy.h"

#define KB_PROJECT_MAX (64 * 1024) /* .kinbox.ini, the command's file */
#define KB_CONFIG_MAX                                                          \
	(1024 * 1024) /* the caller's files (grants.c reads                    \
			 them with the same bound) */

static const char *
type_name(mode_t m)
{
	return S_ISDIR(m)    ? "a directory"
	       : S_ISFIFO(m) ? "a FIFO"
	       : S_ISSOCK(m) ? "a socket"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
			     : "not a regular file";
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
			kb_err_set(e,
			    "%s: a symlink; a project file must be a "
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
		kb_err_set(e,
		    "%s: %s; a config file must be a regular file; "
		    "remove it or replace it with one",
		    file, type_name(st.st_mode));
		goto fail;
	}
	if ((unsigned long long)st.st_size > max) {
		kb_err_set(e,
		    "%s: %lld bytes, more than the %zu KiB a %s may "
		    "hold; shorten it",
		    file, (long long)st.st_size, max / 1024,
		    project ? "project file" : "config file");
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

/* --- the one INI reader ------------------------------------------------ */

struct stream {
	FILE *f;
	const char *file;
	int line;    /* the line the reader is on */
	size_t left; /* bytes it may still read: the size bound holds
			even when the file grows after it was judged */
	const struct kb_ini_visitor *v;
	void *ctx;
	struct kb_err *e;
	bool failed;   /* e holds the first error */
	int fail_line; /* ... found on this line */
};

static void stream_fail(struct stream *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
stream_fail(struct stream *s, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	if (s->failed)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	kb_err_set(s->e, "%s:%d: %s", s->file, s->line, msg);
	s->failed = true;
	s->fail_line = s->line;
}

/* a byte that is no text: C0 and DEL */
static bool
control_byte(int ch)
{
	return (ch >= 0 && ch < 0x20) || ch == 0x7f;
}

/* after a CR: true when the line ends there (LF or the end of the file),
 * the next byte left unread */
static bool
crlf_end(FILE *f)
{
	int next = getc(f);

	if (next == EOF)
		return true;
	ungetc(next, f);
	return next == '\n';
}

/* inih's buffer holds INI_MAX_LINE bytes: a longer line would be split
 * silently and misread, so it is an error. Each "[name]" line is also
 * told to the visitor: inih merges sections of the same name, but a grant
 * store is a list of blocks. */
static char *
line_reader(char *str, int num, void *vs)
{
	struct stream *s = vs;
	size_t n = 0, lead = 0;
	bool content = false;
	int ch;

	(void)num; /* INI_MAX_LINE: holds KB_INI_LINE_MAX, "\n" and NUL */
	if (s->failed)
		return NULL;
	while ((ch = getc(s->f)) != EOF) {
		if (ch == '\0') {
			s->line++;
			stream_fail(s, "a NUL byte; a config file is text, "
				       "remove it");
			return NULL;
		}
		if (ch == '\n')
			break;
		/* inih drops the blanks around a value as isspace() sees
		 * them, \f, \v and \r too: a value with one at its end
		 * would come back shorter than it was written ("\fcurl x"
		 * as "curl x"). Refused, as every control byte but the tab,
		 * rather than read otherwise than written; the CR of a CRLF
		 * line end is the one exception, kept for inih to drop. */
		if (control_byte(ch) && ch != '\t' &&
		    !(ch == '\r' && crlf_end(s->f))) {
			s->line++;
			stream_fail(s,
			    "a control byte (0x%02x); a config file is text, "
			    "remove it",
			    ch);
			return NULL;
		}
		/* leading blanks are dropped here: inih would read an
		 * indented line as the continuation of the key above, which
		 * kinbox.conf(5) does not have */
		if (!content && (ch == ' ' || ch == '\t')) {
			lead++;
			continue;
		}
		content = true;
		if (n == KB_INI_LINE_MAX) {
			s->line++;
			stream_fail(s, "line longer than %d bytes; shorten it",
			    KB_INI_LINE_MAX);
			return NULL;
		}
		str[n++] = (char)ch;
	}
	if (ch == EOF && n == 0 && lead == 0)
		return NULL;
	s->line++;
	if (n + lead + 1 > s->left) {
		stream_fail(s, "the file grew past its size bound while it was "
			       "read; shorten it");
		return NULL;
	}
	s->left -= n + lead + (ch == '\n');
	str[n++] = '\n';
	str[n] = '\0';
	if (str[0] == '[' && s->v->section != NULL) {
		char *end = strchr(str + 1, ']');

		if (end != NULL) {
			_cleanup_free_ char *name =
			    xasprintf("%.*s", (int)(end - str - 1), str + 1);
			struct kb_err e;

			if (s->v->section(s->ctx, name, s->line, &e) == -1) {
				kb_err_set(s->e, "%s", e.msg);
				s->failed = true;
				s->fail_line = s->line;
				return NULL;
			}
		}
	}
	return str;
}

static int
entry_handler(void *vs, const char *section, const char *key, const char *v)
{
	struct stream *s = vs;
	struct kb_err e;

	if (s->failed)
		return 1;
	if (s->v->entry(s->ctx, section, key, v, s->line, &e) == -1) {
		kb_err_set(s->e, "%s", e.msg);
		s->failed = true;
		s->fail_line = s->line;
		return 0;
	}
	return 1;
}

static int
read_stream(FILE *f, const char *file, size_t max,
    const struct kb_ini_visitor *v, void *ctx, struct kb_err *e)
{
	struct stream s = {
	    .f = f, .file = file, .left = max, .v = v, .ctx = ctx, .e = e};
	int rc = ini_parse_stream(line_reader, &s, entry_handler, &s);

	fclose(f);
	/* the first error wins: inih's (a broken line) or ours */
	if (s.failed && (rc <= 0 || s.fail_line <= rc))
		return -1;
	if (rc > 0)
		return kb_err_set(e,
		    "%s:%d: not an INI line (want [section] "
		    "or key = value); fix it or see kinbox.conf(5)",
		    file, rc);
	if (rc < 0)
		return kb_err_set(e, "%s: cannot be read", file);
	return 0;
}

int
kb_ini_read(const char *file, bool project, const struct kb_ini_visitor *v,
    void *ctx, struct kb_err *e)
{
	FILE *f = open_config(file, project, e);

	if (f == NULL)
		return errno == ENOENT ? 1 : -1;
	return read_stream(
	    f, file, project ? KB_PROJECT_MAX : KB_CONFIG_MAX, v, ctx, e);
}

int
kb_ini_read_text(const char *name, const char *text, size_t len,
    const struct kb_ini_visitor *v, void *ctx, struct kb_err *e)
{
	FILE *f;

	if (len > KB_CONFIG_MAX)
		return kb_err_set(e, "%s: more than %d KiB; shorten it", name,
		    KB_CONFIG_MAX / 1024);
	if (len == 0)
		return 0; /* fmemopen takes no empty buffer */
	if ((f = fmemopen((void *)text, len, "r")) == NULL)
		return kb_err_set(e, "%s: %s", name, strerror(errno));
	return read_stream(f, name, KB_CONFIG_MAX, v, ctx, e);
}

bool
kb_ini_value_ok(const char *v, size_t keylen)
{
	size_t n = strlen(v);

	/* "key = value": what inih reads back exactly, and what this
	 * reader takes: no comment character, no control byte (inih
	 * trims \f, \v, \r and \t at a value's ends as blanks; the
	 * reader refuses every one but the tab), no blank at either end */
	return n > 0 && keylen + 3 + n <= KB_INI_LINE_MAX &&
	       strpbrk(v, ";#") == NULL && kb_find_control(v) == NULL &&
	       v[0] != ' ' && v[n - 1] != ' ';
}

/* --- grant blocks ----------------------------------------------------------
 */

bool
kb_grant_section(const char *name)
{
	return strcmp(name, "grant") == 0 || strcmp(name, "workspace") == 0;
}

static uint64_t
fnv1a(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

void
kb_grant_id(const char *file, const char *section, const char *body,
    char out[KB_GRANT_ID_LEN + 1])
{
	uint64_t h = 0xcbf29ce484222325ULL;

	/* each part with its NUL: "a" "bc" and "ab" "c" differ */
	h = fnv1a(h, file, strlen(file) + 1);
	h = fnv1a(h, section, strlen(section) + 1);
	h = fnv1a(h, body, strlen(body));
	snprintf(out, KB_GRANT_ID_LEN + 1, "%016llx", (unsigned long long)h);
}

/* the block being read: its section (NULL outside one) and its body */
struct block_reader {
	const char *file;
	void (*each)(const struct kb_grant_block *, void *ctx);
	void *ctx;
	char *section;
	struct kb_buf body;
};

static void
block_flush(struct block_reader *b)
{
	struct kb_grant_block blk;

	if (b->section != NULL) {
		blk.file = b->file;
		blk.section = b->section;
		blk.body = b->body.s != NULL ? b->body.s : "";
		kb_grant_id(blk.file, blk.section, blk.body, blk.id);
		b->each(&blk, b->ctx);
	}
	free(b->section);
	b->section = NULL;
	kb_buf_free(&b->body);
}

static int
block_section(void *ctx, const char *name, int line, struct kb_err *e)
{
	struct block_reader *b = ctx;

	(void)line;
	(void)e;
	block_flush(b);
	if (kb_grant_section(name))
		b->section = xstrdup(name);
	return 0;
}

/* the one form of a body line, for the listing and the run alike */
static void
body_add(struct kb_buf *body, const char *key, const char *v)
{
	kb_buf_printf(body, "%s = %s\n", key, v);
}

static int
block_entry(void *ctx, const char *section, const char *key, const char *v,
    int line, struct kb_err *e)
{
	struct block_reader *b = ctx;

	(void)section;
	(void)line;
	(void)e;
	if (b->section != NULL)
		body_add(&b->body, key, v);
	return 0;
}

int
kb_grant_blocks(const char *file,
    void (*each)(const struct kb_grant_block *, void *ctx), void *ctx,
    struct kb_err *e)
{
	static const struct kb_ini_visitor v = {block_section, block_entry};
	struct block_reader b = {file, each, ctx, NULL, {0}};
	int rc = kb_ini_read(file, false, &v, &b, e);

	block_flush(&b);
	return rc;
}

/* --- the policy layers --------------------------------------------------- */

struct cfg {
	struct kb_policy *p;
	const char *file;
	enum kb_origin origin;
	kb_warn_fn warn;
	bool ws_match;     /* the current [workspace] block is ours */
	bool ws_path_seen; /* ... and it has named its path */
	/* the grant block being read (kb_grant_blocks' form) and whether a
	 * key of it was applied to this run */
	char *block;
	struct kb_buf body;
	bool block_used;
};

static int cfail(struct cfg *c, int line, struct kb_err *e, const char *fmt,
    ...) __attribute__((format(printf, 4, 5)));

static int
cfail(struct cfg *c, int line, struct kb_err *e, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return kb_err_set(e, "%s:%d: %s", c->file, line, msg);
}

static void
warnf(struct cfg *c, int line, const char *key, const char *why)
{
	char l[600];

	snprintf(
	    l, sizeof(l), "%s:%d: '%s' ignored: %s", c->file, line, key, why);
	if (c->warn != NULL)
		c->warn(l);
	kb_strv_push(&c->p->notes, l);
}

/* the one setter, or (apply false) only its check of the value's form */
static int
set(struct cfg *c, const struct kb_option *o, enum kb_origin origin,
    const char *v, int line, bool apply, struct kb_err *e)
{
	_cleanup_free_ char *where = xasprintf("%s:%d", c->file, line);
	struct kb_src src = {origin, where};

	if (!apply)
		return kb_option_check(o->id, v, &src, e);
	return kb_option_set(c->p, o->id, v, &src, e);
}

/*
 * [workspace] path = /abs blocks of the global config and [grant] of a
 * session file. A block for another workspace is not applied (`apply`
 * false), but judged all the same without I/O: a file is valid or not
 * whichever workspace reads it, and a write root of another project may be
 * absent on this machine.
 */
static int
grant_entry(struct cfg *c, enum kb_origin origin, const char *key,
    const char *v, int line, bool apply, struct kb_err *e)
{
	const struct kb_option *o;
	bool on = false;

	if (strcmp(key, "from") == 0 || strcmp(key, "granted") == 0)
		return 0; /* provenance, for kinpolicy grants */
	o = kb_option_by_key(key);
	if (o == NULL || !(o->sections & KB_IN_GRANT))
		return cfail(c, line, e,
		    "unknown grant key '%s'; see "
		    "kinbox.conf(5)",
		    key);
	if (set(c, o, origin, v, line, false, e) == -1)
		return -1;
	if (origin == KB_ORIGIN_WORKSPACE && o->max_life < KB_LIFE_WORKSPACE) {
		if (kb_parse_onoff(v, &on) == 0 && on)
			return cfail(c, line, e,
			    "%s cannot be a workspace grant (at most a %s); "
			    "remove the line",
			    key, kb_lifetime_name(o->max_life));
		return 0; /* "unconfined = off" grants nothing */
	}
	if (!apply)
		return 0;
	c->block_used = true;
	return set(c, o, origin, v, line, true, e);
}

/* .kinbox.ini: tightening only */
static int
project_entry(struct cfg *c, const char *section, const char *key,
    const char *v, int line, struct kb_err *e)
{
	static const char only[] =
	    "a project file may only tighten "
	    "(network = off, mode = read-only, mask, scrub_env, timeout, "
	    "rlimit, memory)";
	const struct kb_option *o = kb_option_by_key(key);
	bool on;

	if (strcmp(section, "sandbox") != 0 || o == NULL ||
	    !(o->sections & KB_IN_SANDBOX) || o->project == KB_PROJECT_NO) {
		warnf(c, line, key, only);
		return 0;
	}
	if (set(c, o, KB_ORIGIN_PROJECT, v, line, false, e) == -1)
		return -1;
	if (o->project == KB_PROJECT_OFF_ONLY) {
		kb_parse_onoff(v, &on);
		if (on) {
			warnf(c, line, key,
			    "a project file cannot turn the "
			    "network on");
			return 0;
		}
	}
	if (o->project == KB_PROJECT_ON_ONLY) {
		on = false;
		kb_run_mode_parse(v, false, &on);
		if (!on) {
			warnf(c, line, key,
			    "a project file may make a run read-only, "
			    "never lift it");
			return 0;
		}
	}
	return set(c, o, KB_ORIGIN_PROJECT, v, line, true, e);
}

/* [workspace] path = /abs: does it name our workspace, exactly? */
static bool
path_is_workspace(const char *v, const char *workspace)
{
	_cleanup_free_ char *real = realpath(v, NULL);

	return real != NULL && workspace != NULL &&
	       strcmp(real, workspace) == 0;
}

/* The grant block just read, when a key of it applied: recorded in the
 * policy (the run registry names it, a revocation is judged by it). */
static void
grant_flush(struct cfg *c)
{
	struct kb_policy *p = c->p;
	struct kb_grant_used *g;

	if (c->block != NULL && c->block_used) {
		p->grants = xreallocarray(
		    p->grants, p->ngrants + 1, sizeof(*p->grants));
		g = &p->grants[p->ngrants++];
		g->file = xstrdup(c->file);
		g->section = steal_pointer(&c->block);
		g->body = xstrdup(c->body.s != NULL ? c->body.s : "");
		g->origin = c->origin == KB_ORIGIN_SESSION
				? KB_ORIGIN_SESSION
				: KB_ORIGIN_WORKSPACE;
		kb_grant_id(g->file, g->section, g->body, g->id);
	}
	free(c->block);
	c->block = NULL;
	c->block_used = false;
	kb_buf_free(&c->body);
}

static int
section_visit(void *ctx, const char *name, int line, struct kb_err *e)
{
	struct cfg *c = ctx;

	(void)line;
	(void)e;
	grant_flush(c);
	/* each [workspace] header starts a new grant block */
	if (strcmp(name, "workspace") == 0)
		c->ws_match = c->ws_path_seen = false;
	if ((c->origin == KB_ORIGIN_SESSION || c->origin == KB_ORIGIN_GLOBAL) &&
	    kb_grant_section(name))
		c->block = xstrdup(name);
	return 0;
}

static int
entry_visit(void *ctx, const char *section, const char *key, const char *v,
    int line, struct kb_err *e)
{
	struct cfg *c = ctx;
	const struct kb_option *o;

	if (c->block != NULL)
		body_add(&c->body, key, v);
	switch (c->origin) {
	case KB_ORIGIN_PROJECT:
		return project_entry(c, section, key, v, line, e);
	case KB_ORIGIN_SESSION:
		/* [always]: a human's "always allow" answers for kinpolicy
		 * decide; nothing for the sandbox */
		if (strcmp(section, "always") == 0)
			return 0;
		if (strcmp(section, "grant") != 0)
			return cfail(c, line, e,
			    "unknown section [%s] in a "
			    "session file; only [grant] and [always]",
			    section);
		return grant_entry(c, KB_ORIGIN_SESSION, key, v, line, true, e);
	case KB_ORIGIN_SYSTEM:
	case KB_ORIGIN_GLOBAL:
		if (strcmp(section, "sandbox") == 0 ||
		    strcmp(section, "network") == 0) {
			unsigned in =
			    section[0] == 's' ? KB_IN_SANDBOX : KB_IN_NETWORK;

			o = kb_option_by_key(key);
			/* a key of the other section: say where it goes */
			if (o != NULL && !(o->sections & in) &&
			    (o->sections & (KB_IN_SANDBOX | KB_IN_NETWORK)))
				return cfail(c, line, e,
				    "'%s' belongs in [%s], not [%s]; move the "
				    "line",
				    key,
				    o->sections & KB_IN_SANDBOX ? "sandbox"
								: "network",
				    section);
			if (o == NULL || !(o->sections & in))
				return cfail(c, line, e,
				    "unknown key '%s' in "
				    "[%s]; see kinbox.conf(5)",
				    key, section);
			return set(c, o, c->origin, v, line, true, e);
		}
		if (strcmp(section, "caches") == 0) {
			_cleanup_free_ char *kv = xasprintf("%s=%s", key, v);

			return set(c, &kb_options[KB_OPT_CACHE], c->origin, kv,
			    line, true, e);
		}
		if (strcmp(section, "workspace") != 0)
			return cfail(c, line, e,
			    "unknown section [%s]; see "
			    "kinbox.conf(5)",
			    section);
		if (c->origin != KB_ORIGIN_GLOBAL)
			return cfail(c, line, e,
			    "workspace grants live in the "
			    "user's config only");
		if (strcmp(key, "path") == 0) {
			if (v[0] != '/')
				return cfail(c, line, e,
				    "path = %s: not an "
				    "absolute path",
				    v);
			c->ws_path_seen = true;
			c->ws_match = path_is_workspace(v, c->p->workspace);
			return 0;
		}
		if (!c->ws_path_seen)
			return cfail(c, line, e,
			    "[workspace] must name its "
			    "path first (path = /abs/dir)");
		return grant_entry(
		    c, KB_ORIGIN_WORKSPACE, key, v, line, c->ws_match, e);
	case KB_ORIGIN_DEFAULT:
	case KB_ORIGIN_WORKSPACE:
	case KB_ORIGIN_FLAG:
	case KB_ORIGIN_ENV:
		break;
	}
	return cfail(c, line, e, "internal: no rules for this file");
}

static const struct kb_ini_visitor policy_visitor = {
    section_visit, entry_visit};

static int
load(struct kb_policy *p, const char *file, enum kb_origin origin,
    bool required, kb_warn_fn warn, struct kb_err *e)
{
	struct cfg c = {.p = p, .file = file, .origin = origin, .warn = warn};
	int rc = kb_ini_read(
	    file, origin == KB_ORIGIN_PROJECT, &policy_visitor, &c, e);

	grant_flush(&c);
	if (rc == 1 && required)
		return kb_err_set(e, "%s: %s; fix the file or its permissions",
		    file, strerror(ENOENT));
	return rc == -1 ? -1 : 0;
}

char *
kb_config_global_path(const char *home)
{
	const char *x = getenv("XDG_CONFIG_HOME");

	if (x != NULL && x[0] == '/')
		return xasprintf("%s/kinbox/config.ini", x);
	return home != NULL ? xasprintf("%s/.config/kinbox/config.ini", home)
			    : NULL;
}

char *
kb_config_session_dir(void)
{
	const char *x = getenv("XDG_RUNTIME_DIR");
	const char *st = getenv("XDG_STATE_HOME");
	_cleanup_free_ char *home = NULL;

	if (x != NULL && x[0] == '/')
		return xasprintf("%s/kinbox/sessions", x);
	/* containers, ssh, CI: the state store, which kinbox keeps outside
	 * every writable root as it keeps the runtime one (stores.c) */
	if (st != NULL && st[0] == '/')
		return xasprintf("%s/kinbox/sessions", st);
	if ((home = kb_paths_home()) == NULL)
		return NULL;
	return xasprintf("%s/.local/state/kinbox/sessions", home);
}

char *
kb_config_session_path(const char *session)
{
	_cleanup_free_ char *dir = kb_config_session_dir();

	if (dir == NULL)
		return NULL;
	return xasprintf("%s/%s.ini", dir, session);
}

bool
kb_session_id_ok(const char *s)
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
kb_config_load_layers(
    struct kb_policy *p, const char *etc, kb_warn_fn warn, struct kb_err *e)
{
	_cleanup_free_ char *sys =
	    xasprintf("%s/config.ini", etc != NULL ? etc : "/etc/kinbox");
	_cleanup_free_ char *global = kb_config_global_path(p->home);
	const char *session = getenv("KINBOX_SESSION");

	if (load(p, sys, KB_ORIGIN_SYSTEM, false, warn, e) == -1)
		return -1;
	if (global != NULL &&
	    load(p, global, KB_ORIGIN_GLOBAL, false, warn, e) == -1)
		return -1;
	if (session != NULL && *session != '\0') {
		_cleanup_free_ char *sf = NULL;

		if (!kb_session_id_ok(session))
			return kb_err_set(e,
			    "KINBOX_SESSION=%s: not a session "
			    "id; create one with kinpolicy session new",
			    session);
		sf = kb_config_session_path(session);
		if (sf == NULL)
			return kb_err_set(e,
			    "KINBOX_SESSION is set but there is neither "
			    "XDG_RUNTIME_DIR nor a home directory to keep "
			    "sessions in");
		if (load(p, sf, KB_ORIGIN_SESSION, true, warn, e) == -1)
			return -1;
	}
	return 0;
}

int
kb_config_load_project(struct kb_policy *p, kb_warn_fn warn, struct kb_err *e)
{
	_cleanup_free_ char *project = NULL;

	if (p->workspace == NULL)
		return 0;
	project = xasprintf("%s/.kinbox.ini", p->workspace);
	return load(p, project, KB_ORIGIN_PROJECT, false, warn, e);
}

int
kb_config_load_all(
    struct kb_policy *p, const char *etc, kb_warn_fn warn, struct kb_err *e)
{
	if (kb_config_load_layers(p, etc, warn, e) == -1)
		return -1;
	return kb_config_load_project(p, warn, e);
}
