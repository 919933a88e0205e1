/*
 * gitguard/gitconfig.c — git's config syntax as git itself reads it, for
 * kinbox: find core.hooksPath and the include paths of a config file, and
 * build the neutral config that replaces one the command wrote.
 *
 * The reader follows git's own (config.c: git_parse_source and the
 * functions it calls) character for character: a UTF-8 BOM at the start,
 * CRLF read as LF, '#' and ';' comments, [section], [section.sub] (the old
 * spelling, lowercased) and [section "sub"] with \-escapes in the
 * subsection, section and key names case-insensitive (ASCII), values with
 * quotes, the escapes \t \b \n \\ \" and a backslash-newline continuation,
 * runs of blanks outside quotes kept as that many spaces, trailing blanks
 * dropped. A variable's name is what git hands its callbacks: the whole
 * "section.sub.key" as a C string, so a NUL in a subsection cuts it there,
 * and it is split again at its first and last dot, as parse_config_key()
 * does; a value is cut at a NUL the same way.
 *
 * Where git stops with "bad config line" this reader skips to the next
 * line and goes on: what git would never read is then read as well, which
 * can only add guards (and neutral lines that are safe anyway), never
 * hide an include git would follow.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gitconfig.h"

/* --- the reader ---------------------------------------------------------- */

/* what the reading functions return: the line is fine, or git refuses it
 * (its newline still ahead, or read already) */
enum {
	R_OK = 0,
	R_BAD = -1,
	R_BAD_EOL = -2,
};

struct src {
	const unsigned char *p, *end;
	bool eof;
};

/* git's own ctype (sane_ctype): ASCII only, whatever the locale; a space
 * is ' ', \t, \n or \r (not \v or \f) */
static bool
g_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool
g_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool
g_keychar(int c)
{
	return g_alpha(c) || (c >= '0' && c <= '9') || c == '-';
}

static int
g_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

static void
addch(struct kb_buf *b, int c)
{
	char ch = (char)c;

	kb_buf_add(b, &ch, 1);
}

static void
buf_reset(struct kb_buf *b, size_t len)
{
	if (b->s == NULL)
		kb_buf_add(b, "", 0);
	b->len = len;
	b->s[len] = '\0';
}

/* get_next_char(): CRLF is LF; past the end, LF again and again, with
 * eof set */
static int
next_char(struct src *s)
{
	int c;

	if (s->p >= s->end) {
		s->eof = true;
		return '\n';
	}
	c = *s->p++;
	if (c == '\r' && s->p < s->end && *s->p == '\n') {
		s->p++;
		c = '\n';
	}
	return c;
}

/* after a line git refuses: on to the next one */
static void
skip_line(struct src *s)
{
	while (next_char(s) != '\n')
		;
}

/* parse_value(): after the '=', up to the end of the line (or of the
 * lines a backslash joins) */
static int
parse_value(struct src *s, struct kb_buf *v)
{
	bool quote = false, comment = false;
	size_t space = 0;

	buf_reset(v, 0);
	for (;;) {
		int c = next_char(s);

		if (c == '\n')
			return quote ? R_BAD_EOL : R_OK;
		if (comment)
			continue;
		if (g_space(c) && !quote) {
			if (v->len > 0)
				space++;
			continue;
		}
		if (!quote && (c == ';' || c == '#')) {
			comment = true;
			continue;
		}
		for (; space > 0; space--)
			addch(v, ' ');
		if (c == '\\') {
			switch (c = next_char(s)) {
			case '\n':
				continue; /* the value goes on, next line */
			case 't':
				c = '\t';
				break;
			case 'b':
				c = '\b';
				break;
			case 'n':
				c = '\n';
				break;
			case '\\':
			case '"':
				break;
			default:
				return R_BAD; /* git rejects other escapes */
			}
			addch(v, c);
			continue;
		}
		if (c == '"') {
			quote = !quote;
			continue;
		}
		addch(v, c);
	}
}

/* get_value(): the rest of a variable's name (its first letter is in
 * `name` already), blanks, then the end of the line (a bare key: *bare)
 * or '=' and a value */
static int
get_value(struct src *s, struct kb_buf *name, struct kb_buf *v, bool *bare)
{
	int c;

	for (;;) {
		c = next_char(s);
		if (s->eof || !g_keychar(c))
			break;
		addch(name, g_lower(c));
	}
	while (c == ' ' || c == '\t')
		c = next_char(s);
	*bare = c == '\n';
	if (*bare)
		return R_OK;
	if (c != '=')
		return R_BAD;
	return parse_value(s, v);
}

/* get_extended_base_var(): [section "sub"], from the blank after the
 * section's name; the subsection as written, \x read as x */
static int
get_extended(struct src *s, struct kb_buf *name, int c)
{
	do {
		if (c == '\n')
			return R_BAD_EOL;
		c = next_char(s);
	} while (g_space(c));
	if (c != '"')
		return R_BAD;
	addch(name, '.');
	for (;;) {
		c = next_char(s);
		if (c == '\n')
			return R_BAD_EOL;
		if (c == '"')
			break;
		if (c == '\\' && (c = next_char(s)) == '\n')
			return R_BAD_EOL;
		addch(name, c);
	}
	c = next_char(s);
	if (c != ']')
		return c == '\n' ? R_BAD_EOL : R_BAD;
	return R_OK;
}

/* get_base_var(): after '[', [section] or [section.sub], lowercased */
static int
get_base_var(struct src *s, struct kb_buf *name)
{
	for (;;) {
		int c = next_char(s);

		if (s->eof)
			return R_BAD_EOL;
		if (c == ']')
			return R_OK;
		if (g_space(c))
			return get_extended(s, name, c);
		if (!g_keychar(c) && c != '.')
			return R_BAD;
		addch(name, g_lower(c));
	}
}

/* The variable as git's callbacks get it: "section.sub.key" as a C string
 * (a NUL in it ends it), split at its first and last dot
 * (parse_config_key); nothing when it has no dot. */
static int
emit(const struct kb_buf *var, const struct kb_buf *v, bool bare,
    kb_gitcfg_var_fn fn, void *ctx)
{
	_cleanup_free_ char *name = xstrdup(var->s);
	char *first = strchr(name, '.'), *last = strrchr(name, '.');
	const char *sub = NULL;

	if (first == NULL)
		return 0;
	if (last != first) {
		sub = first + 1;
		*last = '\0';
	}
	*first = '\0';
	return fn(name, sub, last + 1, bare ? NULL : v->s, ctx);
}

int
kb_gitcfg_parse_mem(
    const char *text, size_t len, kb_gitcfg_var_fn fn, void *ctx)
{
	static const char bom[] = "\xef\xbb\xbf";
	struct src s = {(const unsigned char *)text,
	    (const unsigned char *)text + len, false};
	struct kb_buf var = {0}, v = {0};
	size_t baselen = 0;
	bool comment = false;
	int rc = 0;

	if (len >= 3 && memcmp(text, bom, 3) == 0)
		s.p += 3;
	buf_reset(&var, 0);
	buf_reset(&v, 0);
	while (rc == 0) {
		int c = next_char(&s), r;
		bool bare;

		if (c == '\n') {
			if (s.eof)
				break;
			comment = false;
			continue;
		}
		if (comment || g_space(c))
			continue;
		if (c == '#' || c == ';') {
			comment = true;
			continue;
		}
		if (c == '[') {
			buf_reset(&var, 0);
			r = get_base_var(&s, &var);
			if (r == R_OK && var.len == 0)
				r = R_BAD; /* "[]" */
			if (r != R_OK) {
				/* git stops here; the keys that follow
				 * belong to no section */
				buf_reset(&var, 0);
				baselen = 0;
				if (r == R_BAD)
					skip_line(&s);
				continue;
			}
			addch(&var, '.');
			baselen = var.len;
			continue;
		}
		if (!g_alpha(c)) {
			skip_line(&s);
			continue;
		}
		buf_reset(&var, baselen);
		addch(&var, g_lower(c));
		r = get_value(&s, &var, &v, &bare);
		if (r == R_BAD)
			skip_line(&s);
		if (r == R_OK)
			rc = emit(&var, &v, bare, fn, ctx);
	}
	kb_buf_free(&var);
	kb_buf_free(&v);
	return rc;
}

/* the older callback: "" for no subsection, "true" for a bare key */
struct compat {
	kb_gitcfg_fn fn;
	void *ctx;
};

static int
compat_cb(const char *section, const char *sub, const char *key,
    const char *value, void *vc)
{
	struct compat *c = vc;

	return c->fn(section, sub != NULL ? sub : "", key,
	    value != NULL ? value : "true", c->ctx);
}

int
kb_gitcfg_parse(const char *text, kb_gitcfg_fn fn, void *ctx)
{
	struct compat c = {fn, ctx};

	return kb_gitcfg_parse_mem(text, strlen(text), compat_cb, &c);
}

struct refs {
	struct kb_strv *includes, *hookspaths;
};

static int
refs_cb(const char *section, const char *sub, const char *key,
    const char *value, void *vr)
{
	struct refs *r = vr;

	/* git_config_include(): "include.path" exactly, and includeif with
	 * any condition at all (whether it holds is judged by git later,
	 * when the branch or the remotes may have changed) */
	if (value == NULL)
		return 0; /* a bare key: git refuses it */
	if (strcmp(key, "path") == 0 &&
	    ((strcmp(section, "include") == 0 && sub == NULL) ||
		(strcmp(section, "includeif") == 0 && sub != NULL)))
		kb_strv_push(r->includes, value);
	else if (strcmp(section, "core") == 0 && sub == NULL &&
		 strcmp(key, "hookspath") == 0 && r->hookspaths != NULL)
		kb_strv_push(r->hookspaths, value);
	return 0;
}

void
kb_gitcfg_refs(const char *text, size_t len, struct kb_strv *includes,
    struct kb_strv *hookspaths)
{
	struct refs r = {includes, hookspaths};

	kb_gitcfg_parse_mem(text, len, refs_cb, &r);
}

/* --- the neutral config --------------------------------------------------- */

struct neutral {
	struct kb_buf core, ext, rest;
	char cur[512]; /* the section header last written to rest */
};

static bool
word(const char *v, const char *const *allowed)
{
	for (; *allowed; allowed++)
		if (strcmp(v, *allowed) == 0)
			return true;
	return false;
}

/* a value written back bare: no quoting needed, nothing git would expand */
static bool
plain(const char *v, bool url)
{
	if (*v == '\0' || *v == '-')
		return false;
	for (; *v; v++) {
		unsigned char c = (unsigned char)*v;

		if (c < 0x21 || c == 0x7f || c == '"' || c == '\\' ||
		    c == ';' || c == '#')
			return false;
		if (!url && !(isalnum(c) || strchr("/._-+*:", c)))
			return false;
	}
	return true;
}

static bool
subsection_ok(const char *s)
{
	if (*s == '\0' || strlen(s) > 100)
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || strchr("/._-", *s)))
			return false;
	return true;
}

static int
keep(const char *section, const char *sub, const char *key, const char *val,
    void *vn)
{
	static const char *const booleans[] = {"true", "false", NULL};
	static const char *const core_bool[] = {"filemode", "bare",
	    "logallrefupdates", "ignorecase", "precomposeunicode", "symlinks",
	    NULL};
	static const char *const formats[] = {"sha1", "sha256", NULL};
	static const char *const versions[] = {"0", "1", NULL};
	struct neutral *n = vn;
	char header[512];

	if (strcmp(section, "core") == 0 && sub[0] == '\0') {
		/* a submodule's git dir names its checkout; runs nothing */
		if (strcmp(key, "worktree") == 0 && plain(val, false)) {
			kb_buf_printf(&n->core, "\tworktree = %s\n", val);
			return 0;
		}
		if ((strcmp(key, "repositoryformatversion") == 0 &&
			word(val, versions)) ||
		    (word(key, core_bool) && word(val, booleans)))
			kb_buf_printf(&n->core, "\t%s = %s\n",
			    strcmp(key, "repositoryformatversion") == 0
				? "repositoryformatversion"
			    : strcmp(key, "logallrefupdates") == 0
				? "logallrefupdates"
				: key,
			    val);
		return 0;
	}
	if (strcmp(section, "extensions") == 0 && sub[0] == '\0') {
		if (strcmp(key, "objectformat") == 0 && word(val, formats))
			kb_buf_printf(&n->ext, "\tobjectformat = %s\n", val);
		return 0;
	}
	/* what git clone writes: where to fetch from, what a branch tracks */
	if (!subsection_ok(sub))
		return 0;
	if (strcmp(section, "remote") == 0 &&
	    ((strcmp(key, "url") == 0 && plain(val, true) &&
		 strncmp(val, "ext::", 5) != 0) ||
		(strcmp(key, "fetch") == 0 && plain(val, false))))
		;
	else if (strcmp(section, "branch") == 0 &&
		 (strcmp(key, "remote") == 0 || strcmp(key, "merge") == 0) &&
		 plain(val, false))
		;
	else
		return 0;
	snprintf(header, sizeof(header), "[%s \"%s\"]\n", section, sub);
	if (strcmp(header, n->cur) != 0) {
		kb_buf_puts(&n->rest, header);
		snprintf(n->cur, sizeof(n->cur), "%s", header);
	}
	kb_buf_printf(&n->rest, "\t%s = %s\n", key, val);
	return 0;
}

char *
kb_gitcfg_neutral(const char *text)
{
	struct neutral n = {0};
	struct kb_buf out = {0};

	kb_buf_puts(&out, "");
	kb_gitcfg_parse(text, keep, &n);
	if (n.core.s != NULL)
		kb_buf_printf(&out, "[core]\n%s", n.core.s);
	if (n.rest.s != NULL)
		kb_buf_puts(&out, n.rest.s);
	if (n.ext.s != NULL)
		kb_buf_printf(&out, "[extensions]\n%s", n.ext.s);
	kb_buf_free(&n.core);
	kb_buf_free(&n.ext);
	kb_buf_free(&n.rest);
	return out.s;
}

struct find {
	const char *section, *key;
	char *value;
};

static int
find_cb(const char *section, const char *sub, const char *key, const char *val,
    void *vf)
{
	struct find *f = vf;

	if (sub[0] == '\0' && strcmp(section, f->section) == 0 &&
	    strcmp(key, f->key) == 0) {
		free(f->value); /* the last one wins, as in git */
		f->value = xstrdup(val);
	}
	return 0;
}

char *
kb_gitcfg_get(const char *text, const char *section, const char *key)
{
	struct find f = {section, key, NULL};

	kb_gitcfg_parse(text, find_cb, &f);
	return f.value;
}
