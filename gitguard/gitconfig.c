/*
 * profile/gitconfig.c — just enough of git's config syntax for kinbox: find
 * core.hooksPath, and build the neutral config that replaces one the
 * command wrote. Not a full parser: a line it does not understand is
 * skipped, which is safe in both uses (the neutral config keeps only what
 * it understood, and a hooksPath it cannot read is one git could not read
 * either, or is named as not guarded).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gitconfig.h"

static void
lower(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

static char *
trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (
	    end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

/* A value: quotes removed, \" \\ \n \t decoded, a comment cut. NULL for a
 * continuation line or an escape git would reject. */
static char *
value_of(char *v)
{
	char *out = v, *in = v;
	bool quoted = false;

	v = trim(v);
	in = out = v;
	for (; *in; in++) {
		if (*in == '"') {
			quoted = !quoted;
			continue;
		}
		if (!quoted && (*in == ';' || *in == '#'))
			break;
		if (*in == '\\') {
			in++;
			if (*in == 'n')
				*out++ = '\n';
			else if (*in == 't')
				*out++ = '\t';
			else if (*in == '"' || *in == '\\')
				*out++ = *in;
			else
				return NULL; /* continuation or unknown */
			continue;
		}
		*out++ = *in;
	}
	if (quoted)
		return NULL;
	*out = '\0';
	return trim(v);
}

int
kb_gitcfg_parse(const char *text, kb_gitcfg_fn fn, void *ctx)
{
	char *copy = strdup(text), *line, *save = NULL;
	char section[128] = "", sub[256] = "";
	int rc = 0;

	if (copy == NULL)
		return -1;
	for (line = strtok_r(copy, "\n", &save); line != NULL && rc == 0;
	     line = strtok_r(NULL, "\n", &save)) {
		char *l = trim(line), *eq, *key, *val;

		if (*l == '\0' || *l == ';' || *l == '#')
			continue;
		if (*l == '[') {
			char *close = strchr(l, ']'), *q;

			section[0] = sub[0] = '\0';
			if (close == NULL)
				continue;
			*close = '\0';
			l++;
			if ((q = strchr(l, '"')) != NULL) {
				char *qe = strrchr(q + 1, '"');

				if (qe == NULL)
					continue;
				*qe = '\0';
				snprintf(sub, sizeof(sub), "%s", q + 1);
				*q = '\0';
			} else if ((q = strchr(l, '.')) != NULL) {
				/* [section.sub], the old spelling */
				*q = '\0';
				snprintf(sub, sizeof(sub), "%s", q + 1);
				lower(sub);
			}
			snprintf(section, sizeof(section), "%s", trim(l));
			lower(section);
			/* "[core] key = v" on one line */
			l = trim(close + 1);
			if (*l == '\0' || *l == ';' || *l == '#')
				continue;
		}
		key = l;
		if ((eq = strchr(l, '=')) != NULL) {
			*eq = '\0';
			val = value_of(eq + 1);
		} else {
			val = (char *)"true";
		}
		key = trim(key);
		lower(key);
		if (val == NULL || *key == '\0' || section[0] == '\0')
			continue;
		rc = fn(section, sub, key, val, ctx);
	}
	free(copy);
	return rc;
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
