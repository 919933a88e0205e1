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
	if (best == NULL || bestn + 1 > outlen)
		return false;
	memcpy(out, best, bestn);
	out[bestn] = '\0';
	return true;
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

/* A write denial on line `i`: the path from the line, else from the few
 * lines above it (cargo's "Caused by", npm's "npm ERR! path"). */
static bool
judge_write(const struct line *lines, size_t nlines, size_t i, size_t at,
    bool rofs, const char *base, const struct kb_policy *p,
    const struct kb_oracle *o, struct kb_denial *d)
{
	char raw[PATH_MAX], abs[PATH_MAX];
	bool found = extract_path(&lines[i], at, raw, sizeof(raw));

	for (size_t k = 1; !found && k <= LOOKBACK && k <= i; k++)
		found = extract_path(
		    &lines[i - k], lines[i - k].n, raw, sizeof(raw));
	/* CMake names the path on the line after the message */
	if (!found && i + 1 < nlines)
		found = extract_path(
		    &lines[i + 1], lines[i + 1].n, raw, sizeof(raw));
	if (!found)
		return false;
	char real[PATH_MAX], ent[PATH_MAX];
	bool hidden_link;

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
	if (writable(p, real) && !hidden_link)
		return false; /* the command's own failure, or a git guard */
	/* It could not write there without the sandbox either: an ordinary
	 * failure (inside, a read-only mount answers EROFS before the
	 * permission check, so EROFS alone proves nothing). */
	if (!o->host_writable(real, o->ctx))
		return false;
	if (!rofs && !has_verb(&lines[i]))
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
	if (!o->suggest_root(
		real, d->suggest_write, sizeof(d->suggest_write), o->ctx)) {
		d->suggest_write[0] = '\0';
		d->suggest_unconfined = true; /* only / or $HOME would do */
	}
	return true;
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

bool
kb_classify(int status, const char *tail, size_t len, const struct kb_policy *p,
    const struct kb_oracle *o, struct kb_denial *d)
{
	struct line *lines = NULL;
	size_t nlines = 0, cap = 0;
	bool hit = false;
	char base[PATH_MAX], argbase[PATH_MAX];

	memset(d, 0, sizeof(*d));
	if (status == 0 || tail == NULL || len == 0)
		return false;
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
	for (size_t i = 0; i < nlines && !hit; i++) {
		const struct kb_phrase *ph;
		size_t at = 0;

		if (entering(&lines[i], base, sizeof(base)))
			continue;
		if (memmem(lines[i].s, lines[i].n, "Leaving directory ", 18))
			snprintf(base, sizeof(base), "%s", argbase);

		if (!p->ssh_agent && (ph = match(&lines[i], kb_ssh_phrases,
					  kb_ssh_count, NULL)) != NULL) {
			d->cls = KB_CLASS_SSH;
			d->suggest_ssh_agent = d->suggest_net = true;
			set_evidence(d, &lines[i], ph->reason);
			hit = true;
		} else if ((ph = match(&lines[i], kb_rofs_phrases,
				kb_rofs_count, &at)) != NULL) {
			if (judge_write(
				lines, nlines, i, at, true, base, p, o, d)) {
				set_evidence(d, &lines[i], ph->reason);
				hit = true;
			}
		} else if ((ph = match(&lines[i], kb_perm_phrases,
				kb_perm_count, &at)) != NULL) {
			if (judge_write(
				lines, nlines, i, at, false, base, p, o, d)) {
				set_evidence(d, &lines[i], ph->reason);
				hit = true;
			}
		}
		if (hit)
			break;
		if (!p->net && (ph = match(&lines[i], kb_net_phrases,
				    kb_net_count, NULL)) != NULL) {
			d->cls = KB_CLASS_NETWORK;
			d->suggest_net = true;
			set_evidence(d, &lines[i], ph->reason);
			find_host(lines, nlines, i, d);
			hit = true;
		} else if ((ph = match(&lines[i], kb_other_phrases,
				kb_other_count, &at)) != NULL &&
			   checked(ph, &lines[i], at, base, p, o)) {
			d->cls = KB_CLASS_OTHER;
			d->suggest_unconfined = true;
			set_evidence(d, &lines[i], ph->reason);
			hit = true;
		} else if ((ph = match(&lines[i], kb_fail_phrases,
				kb_fail_count, &at)) != NULL &&
			   line_path_hidden(&lines[i], at, base, p)) {
			d->cls = KB_CLASS_OTHER;
			d->suggest_unconfined = true;
			set_evidence(d, &lines[i], "hidden by the sandbox");
			hit = true;
		}
	}
	if (!hit)
		hit = argv_names_hidden(lines, nlines, p, d);
	free(lines);
	if (!hit) {
		memset(d, 0, sizeof(*d));
		return false;
	}
	/* a network the project file turned off: --net would be refused
	 * (a flag does not lift a project's tightening), so suggesting it
	 * would send the agent round in a loop */
	if ((d->cls == KB_CLASS_NETWORK || d->cls == KB_CLASS_SSH) && !p->net &&
	    p->origin[KB_OPT_NET] == KB_ORIGIN_PROJECT) {
		d->suggest_net = d->suggest_ssh_agent = false;
		snprintf(d->net_blocked_by, sizeof(d->net_blocked_by), "%s",
		    p->where[KB_OPT_NET] != NULL ? p->where[KB_OPT_NET]
						 : ".kinbox.ini");
	}
	return true;
}
