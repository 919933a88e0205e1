/*
 * classify/denial.c — from a failed command's stderr to a denial record.
 * Judged by policy and path, not by errno alone: EROFS on a path inside the
 * workspace is the git guard doing its job (nothing to grant), the same
 * message on /usr is a write the sandbox refused. No I/O of its own: the
 * host questions go through the struct kb_oracle.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../policy/resolve.h"
#include "../policy/tables.h"
#include "denial.h"

#define LOOKBACK 4 /* lines searched above a message that names no path */

const char *
kb_class_name(enum kb_class c)
{
	switch (c) {
	case KB_CLASS_NONE:
		return "none";
	case KB_CLASS_WRITE:
		return "write";
	case KB_CLASS_NETWORK:
		return "network";
	case KB_CLASS_SSH:
		return "ssh";
	case KB_CLASS_OTHER:
		return "other";
	case KB_CLASS_GUARDED:
		return "guarded";
	}
	return "none";
}

struct line {
	const char *s;
	size_t n;
};

/* Returns the first phrase of `tab` found in the line, or NULL. */
static const struct kb_phrase *
match(const struct line *l, const struct kb_phrase *tab, size_t cnt, size_t *at)
{
	for (size_t i = 0; i < cnt; i++) {
		const char *p =
		    memmem(l->s, l->n, tab[i].text, strlen(tab[i].text));

		if (p != NULL && tab[i].also != NULL &&
		    memmem(l->s, l->n, tab[i].also, strlen(tab[i].also)) ==
			NULL)
			continue;
		if (p != NULL) {
			if (at != NULL)
				*at = (size_t)(p - l->s);
			return &tab[i];
		}
	}
	return NULL;
}

static bool
has_verb(const struct line *l)
{
	for (size_t i = 0; i < kb_write_verb_count; i++)
		if (memmem(l->s, l->n, kb_write_verbs[i],
			strlen(kb_write_verbs[i])) != NULL)
			return true;
	return false;
}

/* Quote pairs tools put around paths: ASCII, backticks, and the UTF-8
 * quotes coreutils uses in UTF-8 locales. */
static const struct {
	const char *open, *close;
} quotes[] = {
    {"'", "'"}, {"\"", "\""}, {"`", "`"},
    {"\xe2\x80\x98", "\xe2\x80\x99"}, /* ‘ ’ */
    {"\xe2\x80\x9c", "\xe2\x80\x9d"}, /* “ ” */
};

static bool
pathish(const char *s, size_t n, bool quoted)
{
	if (n == 0 || n >= PATH_MAX)
		return false;
	if (s[0] == '/' || (n > 1 && s[0] == '~' && s[1] == '/'))
		return true;
	if (!quoted)
		return n > 2 && (memcmp(s, "./", 2) == 0 ||
				    (n > 3 && memcmp(s, "../", 3) == 0));
	/* a quoted relative name: no spaces, no URL, no wildcard text */
	for (size_t i = 0; i < n; i++)
		if (s[i] == ' ' || s[i] == '<' || s[i] == '>' || s[i] == '\t')
			return false;
	return memmem(s, n, "://", 3) == NULL;
}

static bool
verb_word(const char *s, size_t n)
{
	for (size_t i = 0; i < kb_not_a_name_count; i++)
		if (strlen(kb_not_a_name[i]) == n &&
		    strncasecmp(s, kb_not_a_name[i], n) == 0)
			return true;
	return false;
}

/*
 * "tool: NAME: phrase" and "tool: cannot open output file NAME: phrase":
 * the name just before the ": " that precedes the phrase, when it is a
 * plain word (not the tool, not a number, not a verb).
 */
static const char *
field_before(const struct line *l, size_t limit, size_t *outn)
{
	size_t end = limit < l->n ? limit : l->n;

	/* walk back over ": " separators, nearest field first */
	while (end >= 2) {
		size_t sep = end, start, w;

		while (
		    sep >= 2 && !(l->s[sep - 2] == ':' && l->s[sep - 1] == ' '))
			sep--;
		if (sep < 2)
			return NULL;
		/* the field ends at sep-2; it starts after the previous ": " */
		start = sep - 2;
		while (start >= 2 &&
		       !(l->s[start - 2] == ':' && l->s[start - 1] == ' '))
			start--;
		if (start < 2)
			return NULL; /* field 0: the tool's own name */
		w = sep - 2;
		while (w > start && l->s[w - 1] != ' ')
			w--;
		{
			const char *t = l->s + w;
			size_t n = sep - 2 - w;
			bool digits = true;

			for (size_t i = 0; i < n; i++)
				if (t[i] < '0' || t[i] > '9')
					digits = false;
			if (n > 0 && !digits && !verb_word(t, n) &&
			    memchr(t, '\'', n) == NULL &&
			    memchr(t, '"', n) == NULL) {
				*outn = n;
				return t;
			}
		}
		end = start;
	}
	return NULL;
}

/*
 * The path a message names: the last quoted path-like string before
 * `limit` (the phrase), else any quoted one, else the last unquoted token
 * that starts with / ~/ ./ or ../ . Copies it into out; false when none.
 */
static bool
extract_path(const struct line *l, size_t limit, char *out, size_t outlen)
{
	const char *best = NULL;
	size_t bestn = 0, bestpos = 0;

	/* quoted: the last one before the phrase wins, else the first after */
	for (size_t q = 0; q < nitems(quotes); q++) {
		size_t ol = strlen(quotes[q].open),
		       cl = strlen(quotes[q].close);
		const char *p = l->s, *end = l->s + l->n;

		while (p < end) {
			const char *o =
			    memmem(p, (size_t)(end - p), quotes[q].open, ol);
			const char *c;
			size_t pos;

			if (o == NULL)
				break;
			c = memmem(o + ol, (size_t)(end - o - ol),
			    quotes[q].close, cl);
			if (c == NULL)
				break;
			pos = (size_t)(o - l->s);
			if (pathish(o + ol, (size_t)(c - o - ol), true)) {
				bool before = pos < limit;
				bool best_before =
				    best != NULL && bestpos < limit;

				if (best == NULL || (before && pos > bestpos) ||
				    (!before && !best_before &&
					pos < bestpos)) {
					best = o + ol;
					bestn = (size_t)(c - o - ol);
					bestpos = pos;
				}
			}
			p = c + cl;
		}
	}
	/* else the last unquoted token before the phrase that starts like a
	 * path (Go: "open /usr/x: read-only file system"), but not the
	 * tool's own name at the start of the line ("/usr/bin/ld: ...") */
	if (best == NULL) {
		const char *p = l->s;
		const char *end = l->s + (limit < l->n ? limit : l->n);

		while (p < end) {
			const char *t;
			size_t n;

			while (
			    p < end && (*p == ' ' || *p == '\t' || *p == '('))
				p++;
			t = p;
			while (p < end && *p != ' ' && *p != '\t')
				p++;
			n = (size_t)(p - t);
			if (t == l->s && n > 0 && t[n - 1] == ':')
				continue; /* the tool's name */
			while (n > 0 && strchr(":,;).", t[n - 1]) != NULL)
				n--;
			if (pathish(t, n, false)) {
				best = t;
				bestn = n;
			}
		}
	}
	/* "tool: NAME: phrase": the field right before the phrase */
	if (best == NULL)
		best = field_before(l, limit, &bestn);
	/* else the first unquoted absolute path after the phrase (Ruby:
	 * "Read-only file system @ rb_sysopen - /opt/x (Errno::EROFS)") */
	if (best == NULL && limit < l->n) {
		const char *p = l->s + limit, *end = l->s + l->n;

		while (p < end && best == NULL) {
			const char *t;
			size_t n;

			while (p < end && (*p == ' ' || *p == '\t' || *p == '('))
				p++;
			t = p;
			while (p < end && *p != ' ' && *p != '\t')
				p++;
			n = (size_t)(p - t);
			while (n > 0 && strchr(":,;).", t[n - 1]) != NULL)
				n--;
			if (n > 1 && t[0] == '/' && pathish(t, n, false)) {
				best = t;
				bestn = n;
			}
		}
	}
	if (best == NULL || bestn + 1 > outlen)
		return false;
	memcpy(out, best, bestn);
	out[bestn] = '\0';
	return true;
}

/* Every quoted path-like string of the line and every unquoted token that
 * starts with / ~/ ./ ../, in line order: the other names a message gives
 * (a source before the blocked destination, "'a' -> '/opt/b'"). */
static size_t
all_paths(const struct line *l, char (*out)[PATH_MAX], size_t max)
{
	size_t k = 0;

	for (const char *p = l->s, *end = l->s + l->n; p < end && k < max;) {
		const char *close = NULL;
		size_t ol = 0;

		for (size_t q = 0; q < nitems(quotes); q++)
			if ((size_t)(end - p) >= strlen(quotes[q].open) &&
			    memcmp(p, quotes[q].open, strlen(quotes[q].open)) ==
				0) {
				ol = strlen(quotes[q].open);
				close = quotes[q].close;
				break;
			}
		if (close != NULL) {
			const char *c = memmem(
			    p + ol, (size_t)(end - p - ol), close, strlen(close));

			if (c != NULL) {
				size_t n = (size_t)(c - p - ol);

				if (pathish(p + ol, n, true)) {
					memcpy(out[k], p + ol, n);
					out[k++][n] = '\0';
				}
				p = c + strlen(close);
				continue;
			}
		}
		if (p == l->s || p[-1] == ' ' || p[-1] == '\t' || p[-1] == '(') {
			const char *t = p;
			size_t n;

			while (p < end && *p != ' ' && *p != '\t')
				p++;
			n = (size_t)(p - t);
			while (n > 0 && strchr(":,;).", t[n - 1]) != NULL)
				n--;
			if (t != l->s && pathish(t, n, false)) {
				memcpy(out[k], t, n);
				out[k++][n] = '\0';
			}
			if (p == t)
				p++; /* a blank: no token here */
			continue;
		}
		p++;
	}
	return k;
}

/* Lexical normalisation (kb_resolve_lexical): drops "." and resolves ".."
 * in place, in a buffer of PATH_MAX bytes. */
static void
normalize(char *path)
{
	char buf[PATH_MAX];

	if (kb_resolve_lexical(path, buf, sizeof(buf)) == 0)
		strcpy(path, buf);
}

/* Absolute form of a path a tool printed: ~ is the home directory,
 * relative paths are relative to where the command ran. Lexical only; the
 * oracle judges the real location. */
static bool
absolute(const struct kb_policy *p, const char *base, const char *in, char *out,
    size_t outlen)
{
	int n;

	if (in[0] == '~' && in[1] == '/' && p->home != NULL)
		n = snprintf(out, outlen, "%s/%s", p->home, in + 2);
	else if (in[0] == '/')
		n = snprintf(out, outlen, "%s", in);
	else
		n = snprintf(out, outlen, "%s/%s", base, in);
	return n > 0 && (size_t)n < outlen;
}

/* Where relative paths in the messages start: the cwd, or the directory
 * given with -C to tar, make or git (relative to the cwd). */
static void
argv_base(const struct kb_policy *p, char *out, size_t outlen)
{
	const char *cwd = p->cwd != NULL ? p->cwd : "/";
	const char *tool, *dir = NULL;

	snprintf(out, outlen, "%s", cwd);
	if (p->argv == NULL || p->argv[0] == NULL)
		return;
	tool = strrchr(p->argv[0], '/') ? strrchr(p->argv[0], '/') + 1
					: p->argv[0];
	for (size_t i = 0; i < kb_chdir_flag_count; i++) {
		const char *flag = kb_chdir_flags[i].flag;
		size_t fl = strlen(flag);

		if (strcmp(tool, kb_chdir_flags[i].tool) != 0)
			continue;
		for (char **a = p->argv + 1; *a != NULL; a++) {
			if (strcmp(*a, flag) == 0 && a[1] != NULL)
				dir = a[1];
			else if (strncmp(*a, flag, fl) == 0 &&
				 ((*a)[fl] == '=' ||
				     (fl == 2 && (*a)[fl] != '\0')))
				dir = *a + fl + ((*a)[fl] == '=');
		}
	}
	if (dir == NULL)
		return;
	if (dir[0] == '/')
		snprintf(out, outlen, "%s", dir);
	else if (snprintf(out, outlen, "%s/%s", cwd, dir) < 0)
		out[0] = '\0';
	normalize(out);
}

/* make's "Entering directory 'X'": relative paths after it are under X */
static bool
entering(const struct line *l, char *base, size_t baselen)
{
	static const char tag[] = "Entering directory ";
	const char *t = memmem(l->s, l->n, tag, sizeof(tag) - 1);
	char raw[PATH_MAX];
	struct line rest;

	if (t == NULL)
		return false;
	rest.s = t;
	rest.n = l->n - (size_t)(t - l->s);
	if (!extract_path(&rest, rest.n, raw, sizeof(raw)) || raw[0] != '/')
		return false;
	snprintf(base, baselen, "%s", raw);
	normalize(base);
	return true;
}

/* Inside what the command may write: then a failure is its own. */
static bool
writable(const struct kb_policy *p, const char *path)
{
	return kb_policy_within_writable(p, path) ||
	       kb_path_within(path, "/dev");
}

static bool
masked(const struct kb_policy *p, const char *path)
{
	for (size_t i = 0; i < p->nmask; i++)
		if ((p->mask[i].kind == KB_MASK_DIR ||
			p->mask[i].kind == KB_MASK_FILE) &&
		    kb_path_within(path, p->mask[i].path))
			return true;
	return false;
}

static void
set_evidence(struct kb_denial *d, const struct line *l, const char *reason)
{
	size_t n =
	    l->n < sizeof(d->evidence) - 1 ? l->n : sizeof(d->evidence) - 1;

	memcpy(d->evidence, l->s, n);
	d->evidence[n] = '\0';
	/* keep the evidence printable on one line */
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)d->evidence[i] < 0x20)
			d->evidence[i] = ' ';
	snprintf(d->reason, sizeof(d->reason), "%s", reason);
}

/* In a toolchain cache of kb_cache_table (read-only here, or the write
 * would have landed)? Names it in `d`. */
static bool
in_cache(const struct kb_policy *p, const struct kb_oracle *o, const char *real,
    struct kb_denial *d)
{
	for (size_t i = 0; i < kb_cache_count && p->home != NULL; i++)
		for (size_t j = 0; j < nitems(kb_cache_table[i].path); j++) {
			char dir[PATH_MAX];

			if (kb_cache_table[i].path[j] == NULL)
				continue;
			snprintf(dir, sizeof(dir), "%s/%s", p->home,
			    kb_cache_table[i].path[j]);
			/* in it, or on the way to it from home (a missing
			 * ~/.cargo before ~/.cargo/git) when it is absent */
			if (!kb_path_within(real, dir) &&
			    !(kb_path_within(dir, real) &&
				kb_path_within(real, p->home) &&
				strcmp(real, p->home) != 0 &&
				!o->exists(dir, o->ctx)))
				continue;
			snprintf(d->cache, sizeof(d->cache), "%s",
			    kb_cache_table[i].name);
			snprintf(d->cache_dir, sizeof(d->cache_dir), "%s", dir);
			d->cache_off = p->cache[i] == KB_CACHE_OFF;
			d->cache_absent = !o->exists(dir, o->ctx);
			return true;
		}
	return false;
}

/* Git metadata the guards keep read-only inside a writable root: the
 * hooks and config of a repository (.git/hooks/..., .git/config, and the
 * same under .git/modules/NAME and .git/worktrees/NAME), and what the scan
 * guarded (p->guard). Returns what guards it, or NULL. */
static const char *
guarded_git(const struct kb_policy *p, const char *real)
{
	for (size_t i = 0; i < p->nguard; i++) {
		const struct kb_guard *g = &p->guard[i];

		if ((g->kind == KB_GUARD_RO || g->kind == KB_GUARD_RO_ABSENT_DIR ||
			g->kind == KB_GUARD_RO_ABSENT_FILE) &&
		    kb_path_within(real, g->path))
			return "kinbox's git guard (git runs hooks and config "
			       "outside the sandbox)";
		if (g->kind == KB_GUARD_PIN_DIR && strcmp(real, g->path) == 0)
			return "kinbox's git guard (the repository may not be "
			       "renamed away)";
	}
	for (const char *g = real; (g = strstr(g, "/.git")) != NULL; g += 5) {
		const char *r = g + 5;

		if (*r != '/')
			continue;
		for (r++;;) {
			if (strncmp(r, "hooks", 5) == 0 &&
			    (r[5] == '\0' || r[5] == '/'))
				return "kinbox's git guard (hooks run outside "
				       "the sandbox, as you)";
			if (strcmp(r, "config") == 0)
				return "kinbox's git guard (git config names "
				       "programs that run outside the "
				       "sandbox)";
			if (strncmp(r, "modules/", 8) == 0 ||
			    strncmp(r, "worktrees/", 10) == 0) {
				const char *n = strchr(strchr(r, '/') + 1, '/');

				if (n == NULL)
					break;
				r = n + 1;
				continue;
			}
			break;
		}
	}
	return NULL;
}

/* A missing directory the write needed, where no existing directory
 * fits as --write (your home or /): the first missing one below the
 * nearest existing ancestor, when the path shows it is a directory (a
 * deeper path is below it, or the message makes a directory). It can be
 * made outside and then granted. */
static bool
missing_dir(const struct kb_policy *p, const struct kb_oracle *o,
    const char *real, bool mkdir_said, char *out, size_t outlen)
{
	char buf[PATH_MAX];
	size_t n;

	snprintf(buf, sizeof(buf), "%s", real);
	if (o->exists(buf, o->ctx))
		return false;
	for (;;) {
		char *slash = strrchr(buf, '/');
		char up[PATH_MAX];

		if (slash == NULL)
			return false;
		if (slash == buf)
			snprintf(up, sizeof(up), "/");
		else
			snprintf(up, sizeof(up), "%.*s", (int)(slash - buf), buf);
		if (o->exists(up, o->ctx)) {
			if (!(strcmp(up, "/") == 0 ||
				(p->home != NULL && strcmp(up, p->home) == 0)))
				return false;
			break;
		}
		*slash = '\0';
	}
	/* buf: the first missing directory (or the leaf itself) */
	n = strlen(buf);
	if (!((real[n] == '/' && real[n + 1] != '\0') ||
		(real[n] == '\0' && mkdir_said)))
		return false;
	if (strstr(buf, "/.git") != NULL || masked(p, buf) ||
	    kb_config_store_of(p, buf) != NULL)
		return false;
	snprintf(out, outlen, "%s", buf);
	return true;
}

static bool
mkdir_near(const struct line *lines, size_t i)
{
	for (size_t k = 0; k <= LOOKBACK && k <= i; k++)
		for (size_t w = 0; w < kb_mkdir_word_count; w++)
			if (memmem(lines[i - k].s, lines[i - k].n,
				kb_mkdir_words[w],
				strlen(kb_mkdir_words[w])) != NULL)
				return true;
	return false;
}

enum refusal {
	REFUSED_ROFS,  /* EROFS: a read-only mount */
	REFUSED_PERM,  /* EACCES/EPERM: the file's mode, or Landlock */
	REFUSED_BUSY,  /* EBUSY: a mount point */
};

/* Judges one name a message gave for a refused write: a denial (write or
 * guarded) in `d`, or false when the sandbox is not why it failed. */
static bool
judge_path(const char *raw, const struct line *lines, size_t nlines, size_t i,
    enum refusal how, bool eacces, const char *base, const struct kb_policy *p,
    const struct kb_oracle *o, struct kb_denial *d)
{
	char abs[PATH_MAX], real[PATH_MAX], ent[PATH_MAX];
	const char *why;
	bool hidden_link, landlock = p->backend == KB_BACKEND_LANDLOCK;

	(void)nlines;
	if (!absolute(p, base, raw, abs, sizeof(abs)))
		return false;
	/* judged where the write landed: symlinks first, then ".." (a
	 * symlinked ~/.ssh is the mask's target, ws/link/../x is beside the
	 * link's target); reported as the tool named it */
	if (o->canonical == NULL ||
	    !o->canonical(abs, real, sizeof(real), o->ctx)) {
		snprintf(real, sizeof(real), "%s", abs);
		normalize(real);
	}
	if (o->entry == NULL || !o->entry(abs, ent, sizeof(ent), o->ctx))
		snprintf(ent, sizeof(ent), "%s", real);
	normalize(abs);
	/* a link in a credential store is hidden with it: the write never
	 * reached the link's target */
	hidden_link = masked(p, ent) && !writable(p, ent);
	if (writable(p, real) && !hidden_link) {
		/* inside what the command may write, only a guard refuses:
		 * a read-only mount (EROFS), a mount point (EBUSY), or
		 * Landlock's EACCES; anything else is the file's own mode
		 * or the command's own failure */
		if (how == REFUSED_PERM && !(landlock && eacces))
			return false;
		if ((why = guarded_git(p, real)) == NULL &&
		    (why = guarded_git(p, ent)) == NULL)
			return false;
		d->cls = KB_CLASS_GUARDED;
		snprintf(d->path, sizeof(d->path), "%s", abs);
		snprintf(d->guard, sizeof(d->guard), "%s", why);
		return true;
	}
	if (how == REFUSED_BUSY)
		return false; /* a mount point outside: not a refused write */
	if (!(how == REFUSED_ROFS || (landlock && eacces)) &&
	    !has_verb(&lines[i]))
		return false;
	/* kinbox's own stores: never writable from a sandbox */
	if ((why = kb_config_store_of(p, real)) != NULL) {
		d->cls = KB_CLASS_GUARDED;
		snprintf(d->path, sizeof(d->path), "%s", abs);
		snprintf(d->guard, sizeof(d->guard),
		    "kinbox's own store %s (a sandbox that could write it "
		    "would grant itself more)",
		    why);
		return true;
	}
	/* It could not write there without the sandbox either: an ordinary
	 * failure (inside, a read-only mount answers EROFS before the
	 * permission check, so EROFS alone proves nothing). */
	if (!o->host_writable(real, o->ctx))
		return false;
	d->cls = KB_CLASS_WRITE;
	snprintf(d->path, sizeof(d->path), "%s", abs);
	if (masked(p, real) || hidden_link) {
		/* a credential store: no --write lifts a mask */
		d->suggest_unconfined = true;
		return true;
	}
	if (in_cache(p, o, real, d))
		return true;
	if (o->suggest_root(
		real, d->suggest_write, sizeof(d->suggest_write), o->ctx))
		return true;
	d->suggest_write[0] = '\0';
	if (missing_dir(p, o, real, mkdir_near(lines, i), d->suggest_write,
		sizeof(d->suggest_write))) {
		d->suggest_create = true;
		return true;
	}
	d->suggest_unconfined = true; /* only / or $HOME would do */
	return true;
}

/* A write denial on line `i`: the path from the line, else from the few
 * lines above it (cargo's "Caused by", npm's "npm ERR! path"). When the
 * name it gives is not refused, the line's other names are judged (a
 * source printed before the blocked destination). */
static bool
judge_write(const struct line *lines, size_t nlines, size_t i, size_t at,
    enum refusal how, bool eacces, const char *base, const struct kb_policy *p,
    const struct kb_oracle *o, struct kb_denial *d)
{
	char raw[PATH_MAX], others[8][PATH_MAX];
	bool found = extract_path(&lines[i], at, raw, sizeof(raw));
	size_t n;

	for (size_t k = 1; !found && k <= LOOKBACK && k <= i; k++)
		found = extract_path(
		    &lines[i - k], lines[i - k].n, raw, sizeof(raw));
	/* CMake names the path on the line after the message */
	if (!found && i + 1 < nlines)
		found = extract_path(
		    &lines[i + 1], lines[i + 1].n, raw, sizeof(raw));
	if (!found)
		return false;
	if (judge_path(raw, lines, nlines, i, how, eacces, base, p, o, d))
		return true;
	n = all_paths(&lines[i], others, nitems(others));
	for (size_t k = 0; k < n; k++) {
		if (strcmp(others[k], raw) == 0)
			continue;
		memset(d, 0, sizeof(*d));
		if (judge_path(others[k], lines, nlines, i, how, eacces, base,
			p, o, d))
			return true;
	}
	memset(d, 0, sizeof(*d));
	return false;
}

/* under a mask: /run, a credential store, a hidden socket */
static bool
hidden(const struct kb_policy *p, const char *path)
{
	for (size_t i = 0; i < p->nmask; i++)
		if ((p->mask[i].kind == KB_MASK_TREE ||
			p->mask[i].kind == KB_MASK_DIR ||
			p->mask[i].kind == KB_MASK_FILE) &&
		    kb_path_within(path, p->mask[i].path))
			return true;
	return false;
}

static bool
line_abs_path(const struct line *l, size_t at, const char *base,
    const struct kb_policy *p, char *abs, size_t abslen)
{
	char raw[PATH_MAX];

	if (!extract_path(l, at, raw, sizeof(raw)) ||
	    !absolute(p, base, raw, abs, abslen))
		return false;
	normalize(abs);
	return true;
}

/* EPERM from chmod on a file the caller may change: the filter's doing */
static bool
line_path_owned(const struct line *l, size_t at, const char *base,
    const struct kb_policy *p, const struct kb_oracle *o)
{
	char abs[PATH_MAX];

	return line_abs_path(l, at, base, p, abs, sizeof(abs)) &&
	       o->host_writable(abs, o->ctx);
}

static bool
line_path_hidden(const struct line *l, size_t at, const char *base,
    const struct kb_policy *p)
{
	char abs[PATH_MAX];

	return line_abs_path(l, at, base, p, abs, sizeof(abs)) &&
	       hidden(p, abs);
}

/* a host path from a phrase's list; $XDG_RUNTIME_DIR is expanded from
 * the environment kinbox (or kinpolicy) runs in */
static bool
host_has(const char *list, const struct kb_oracle *o)
{
	char buf[1024], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ":", &save); tok != NULL;
	     tok = strtok_r(NULL, ":", &save)) {
		char path[PATH_MAX];
		const char *x = getenv("XDG_RUNTIME_DIR");

		if (strncmp(tok, "$XDG_RUNTIME_DIR", 16) == 0) {
			if (x == NULL || x[0] != '/')
				continue;
			snprintf(path, sizeof(path), "%s%s", x, tok + 16);
		} else {
			snprintf(path, sizeof(path), "%s", tok);
		}
		if (o->exists(path, o->ctx))
			return true;
	}
	return false;
}

static bool
checked(const struct kb_phrase *ph, const struct line *l, size_t at,
    const char *base, const struct kb_policy *p, const struct kb_oracle *o)
{
	switch (ph->check) {
	case KB_CHECK_NONE:
	case KB_CHECK_EACCES:
		return true;
	case KB_CHECK_OWNED:
		return line_path_owned(l, at, base, p, o);
	case KB_CHECK_HOST:
		return ph->paths != NULL && host_has(ph->paths, o);
	}
	return false;
}

/*
 * A command given a hidden path in its arguments (curl --unix-socket
 * /run/x.sock, socat UNIX-CONNECT:/run/x) whose stderr says a connection
 * or a file failed, without naming the path.
 */
static bool
argv_names_hidden(const struct line *lines, size_t nlines,
    const struct kb_policy *p, struct kb_denial *d)
{
	const struct line *fail = NULL;

	for (size_t i = 0; i < nlines && fail == NULL; i++)
		if (match(&lines[i], kb_fail_phrases, kb_fail_count, NULL))
			fail = &lines[i];
	if (fail == NULL || p->argv == NULL)
		return false;
	for (char **a = p->argv + 1; *a != NULL; a++) {
		const char *v = strchr(*a, '/');

		/* the path starts the argument, or follows '=' or ':' */
		if (v == NULL || (v != *a && v[-1] != '=' && v[-1] != ':'))
			continue;
		if (hidden(p, v)) {
			d->cls = KB_CLASS_OTHER;
			d->suggest_unconfined = true;
			set_evidence(d, fail, "hidden by the sandbox");
			return true;
		}
	}
	return false;
}

static void
find_host(
    const struct line *lines, size_t nlines, size_t i, struct kb_denial *d)
{
	/* this line first, then the whole tail */
	for (size_t pass = 0; pass < 2 && d->host[0] == '\0'; pass++) {
		for (size_t r = 0; r < kb_host_re_count && d->host[0] == '\0';
		     r++) {
			regex_t re;
			regmatch_t m[4];

			if (regcomp(&re, kb_host_res[r].re, REG_EXTENDED) != 0)
				continue;
			for (size_t k = pass == 0 ? i : 0;
			     k < (pass == 0 ? i + 1 : nlines); k++) {
				char buf[1024];
				size_t n = lines[k].n < sizeof(buf) - 1
					       ? lines[k].n
					       : sizeof(buf) - 1;
				int g;

				memcpy(buf, lines[k].s, n);
				buf[n] = '\0';
				if (regexec(&re, buf, 4, m, 0) != 0)
					continue;
				for (g = 3; g > 0 && m[g].rm_so == -1; g--)
					;
				if (g > 0 && m[g].rm_eo - m[g].rm_so > 0 &&
				    (size_t)(m[g].rm_eo - m[g].rm_so) <
					sizeof(d->host)) {
					memcpy(d->host, buf + m[g].rm_so,
					    (size_t)(m[g].rm_eo - m[g].rm_so));
					d->host[m[g].rm_eo - m[g].rm_so] = '\0';
					break;
				}
			}
			regfree(&re);
		}
	}
	/* a dotless word is not a host (e.g. "lookup failed") */
	if (strchr(d->host, '.') == NULL && strcmp(d->host, "localhost") != 0)
		d->host[0] = '\0';
}

/* Same denial as one already found? (then it is not reported twice; a
 * network denial that names no host joins one that does) */
static bool
same_denial(struct kb_denial *have, const struct kb_denial *d)
{
	if (have->cls != d->cls)
		return false;
	switch (d->cls) {
	case KB_CLASS_WRITE:
	case KB_CLASS_GUARDED:
		return strcmp(have->path, d->path) == 0;
	case KB_CLASS_NETWORK:
		if (have->host[0] == '\0' && d->host[0] != '\0') {
			snprintf(have->host, sizeof(have->host), "%s", d->host);
			return true;
		}
		return d->host[0] == '\0' || strcmp(have->host, d->host) == 0;
	case KB_CLASS_SSH:
		return true;
	case KB_CLASS_OTHER:
		return strcmp(have->reason, d->reason) == 0;
	case KB_CLASS_NONE:
		break;
	}
	return true;
}

/* The denial on line i, if any, into d (zeroed first). */
static bool
judge_line(const struct line *lines, size_t nlines, size_t i, const char *base,
    const struct kb_policy *p, const struct kb_oracle *o, struct kb_denial *d)
{
	const struct kb_phrase *ph;
	size_t at = 0;

	memset(d, 0, sizeof(*d));
	if (!p->ssh_agent &&
	    (ph = match(&lines[i], kb_ssh_phrases, kb_ssh_count, NULL)) !=
		NULL) {
		d->cls = KB_CLASS_SSH;
		d->suggest_ssh_agent = d->suggest_net = true;
		set_evidence(d, &lines[i], ph->reason);
		return true;
	}
	if ((ph = match(&lines[i], kb_rofs_phrases, kb_rofs_count, &at)) !=
		NULL) {
		if (judge_write(lines, nlines, i, at, REFUSED_ROFS, false, base,
			p, o, d)) {
			set_evidence(d, &lines[i], ph->reason);
			return true;
		}
	} else if ((ph = match(&lines[i], kb_perm_phrases, kb_perm_count,
			&at)) != NULL) {
		if (judge_write(lines, nlines, i, at, REFUSED_PERM,
			ph->check == KB_CHECK_EACCES, base, p, o, d)) {
			set_evidence(d, &lines[i], ph->reason);
			return true;
		}
	} else if ((ph = match(&lines[i], kb_busy_phrases, kb_busy_count,
			&at)) != NULL) {
		if (judge_write(lines, nlines, i, at, REFUSED_BUSY, false, base,
			p, o, d)) {
			set_evidence(d, &lines[i], ph->reason);
			return true;
		}
	}
	if (!p->net &&
	    (ph = match(&lines[i], kb_net_phrases, kb_net_count, NULL)) !=
		NULL) {
		d->cls = KB_CLASS_NETWORK;
		d->suggest_net = true;
		set_evidence(d, &lines[i], ph->reason);
		find_host(lines, nlines, i, d);
		return true;
	}
	if ((ph = match(&lines[i], kb_other_phrases, kb_other_count, &at)) !=
		NULL &&
	    checked(ph, &lines[i], at, base, p, o)) {
		d->cls = KB_CLASS_OTHER;
		d->suggest_unconfined = true;
		set_evidence(d, &lines[i], ph->reason);
		return true;
	}
	if ((ph = match(&lines[i], kb_fail_phrases, kb_fail_count, &at)) !=
		NULL &&
	    line_path_hidden(&lines[i], at, base, p)) {
		d->cls = KB_CLASS_OTHER;
		d->suggest_unconfined = true;
		set_evidence(d, &lines[i], "hidden by the sandbox");
		return true;
	}
	return false;
}

size_t
kb_classify_all(int status, const char *tail, size_t len,
    const struct kb_policy *p, const struct kb_oracle *o, struct kb_denial *out,
    size_t max)
{
	struct line *lines = NULL;
	size_t nlines = 0, cap = 0, nd = 0;
	char base[PATH_MAX], argbase[PATH_MAX];
	struct kb_denial *d = xcalloc(1, sizeof(*d));

	if (max > 0)
		memset(out, 0, sizeof(*out));
	if (status == 0 || tail == NULL || len == 0 || max == 0) {
		free(d);
		return 0;
	}
	for (size_t s = 0; s < len;) {
		size_t e = s;

		while (e < len && tail[e] != '\n' && tail[e] != '\r' &&
		       tail[e] != '\0')
			e++;
		if (e > s) {
			if (nlines == cap) {
				cap = cap ? cap * 2 : 256;
				lines =
				    xreallocarray(lines, cap, sizeof(*lines));
			}
			lines[nlines].s = tail + s;
			lines[nlines].n = e - s;
			nlines++;
		}
		s = e + 1;
	}
	argv_base(p, argbase, sizeof(argbase));
	snprintf(base, sizeof(base), "%s", argbase);
	for (size_t i = 0; i < nlines && nd < max; i++) {
		bool dup = false;

		if (entering(&lines[i], base, sizeof(base)))
			continue;
		if (memmem(lines[i].s, lines[i].n, "Leaving directory ", 18))
			snprintf(base, sizeof(base), "%s", argbase);
		if (!judge_line(lines, nlines, i, base, p, o, d))
			continue;
		for (size_t k = 0; k < nd && !dup; k++)
			dup = same_denial(&out[k], d);
		if (!dup)
			out[nd++] = *d;
	}
	if (nd == 0 && argv_names_hidden(lines, nlines, p, d))
		out[nd++] = *d;
	free(lines);
	free(d);
	/* a network the project file turned off: --net would be refused
	 * (a flag does not lift a project's tightening), so suggesting it
	 * would send the agent round in a loop */
	for (size_t k = 0; k < nd; k++)
		if ((out[k].cls == KB_CLASS_NETWORK ||
			out[k].cls == KB_CLASS_SSH) &&
		    !p->net && p->origin[KB_OPT_NET] == KB_ORIGIN_PROJECT) {
			out[k].suggest_net = out[k].suggest_ssh_agent = false;
			snprintf(out[k].net_blocked_by,
			    sizeof(out[k].net_blocked_by), "%s",
			    p->where[KB_OPT_NET] != NULL ? p->where[KB_OPT_NET]
							 : ".kinbox.ini");
		}
	return nd;
}

bool
kb_classify(int status, const char *tail, size_t len, const struct kb_policy *p,
    const struct kb_oracle *o, struct kb_denial *d)
{
	return kb_classify_all(status, tail, len, p, o, d, 1) == 1;
}
