/*
 * sidecar/checkwrite.c — kinpolicy check-write. The agent's own write and
 * edit tools run in the agent's process, outside any sandbox kinbox builds,
 * so their writes are judged here before they happen: the path is resolved
 * the way the kernel will resolve it (symlinks, "..", a file not created
 * yet: kb_resolve_write(), profile/resolve.c), then held against the
 * workspace, the write roots and the tables of sidecar/protected.c. No
 * output, no exit: the verdict goes to the caller.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../profile/resolve.h"
#include "checkwrite.h"

struct cw_ctx {
	const char *ws; /* canonical, or NULL */
	char ws_buf[PATH_MAX];
	const char **croots; /* canonical; NULL when not absolute */
	char (*croot_buf)[PATH_MAX];
	size_t nroots;
	const char *home;  /* as given, or NULL */
	const char *chome; /* canonical, or NULL */
	char home_buf[PATH_MAX];
	enum kb_mode mode;
};

struct judgement {
	enum kb_verdict verdict;
	const char *rule;
	const char *path; /* borrowed: the location judged */
	char reason[256];
};

const char *
kb_verdict_name(enum kb_verdict v)
{
	switch (v) {
	case KB_ALLOW:
		return "ALLOW";
	case KB_ASK:
		return "ASK";
	case KB_DENY:
		return "DENY";
	}
	return "?";
}

const char *
kb_mode_name(enum kb_mode m)
{
	switch (m) {
	case KB_MODE_AUTO:
		return "auto";
	case KB_MODE_STRICT:
		return "strict";
	}
	return "?";
}

int
kb_mode_parse(const char *s, enum kb_mode *out)
{
	if (s == NULL)
		return -1;
	if (strcmp(s, "auto") == 0)
		*out = KB_MODE_AUTO;
	else if (strcmp(s, "strict") == 0)
		*out = KB_MODE_STRICT;
	else
		return -1;
	return 0;
}

/* A reason or message is one line: a file name may hold a newline. */
static void
oneline(char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

/* The next component of a path at or after `p`: its start, with `*end`
 * just past it; NULL at the end. */
static const char *
kp_component(const char *p, const char **end)
{
	while (*p == '/')
		p++;
	if (*p == '\0')
		return NULL;
	*end = strchrnul(p, '/');
	return p;
}

/* `in` canonical when it can be walked, else as given; NULL for a path
 * that is not absolute. */
static const char *
canon(const char *in, char buf[PATH_MAX])
{
	if (in == NULL || in[0] != '/')
		return NULL;
	if (kb_resolve_write(in, NULL, 0, buf, PATH_MAX) == 0)
		return buf;
	if (strlen(in) >= PATH_MAX)
		return NULL;
	return strcpy(buf, in);
}

/* true when `path` is base/rest or below it, base taken both as given
 * and canonical (~/.config may be a symlink into a dotfiles checkout). */
static bool
under(const char *path, const char *base, const char *rest)
{
	char joined[PATH_MAX], lex[PATH_MAX], real[PATH_MAX];

	if (base == NULL || base[0] != '/')
		return false;
	if ((size_t)snprintf(joined, sizeof(joined), "%s/%s", base, rest) >=
	    sizeof(joined))
		return false;
	if (kb_resolve_lexical(joined, lex, sizeof(lex)) == 0 &&
	    kb_path_within(path, lex))
		return true;
	return kb_resolve_write(joined, NULL, 0, real, sizeof(real)) == 0 &&
	       kb_path_within(path, real);
}

static bool
has_component(const char *path, const char *name)
{
	const char *p, *end = path;
	size_t n = strlen(name);

	while ((p = kp_component(end, &end)) != NULL)
		if ((size_t)(end - p) == n && memcmp(p, name, n) == 0)
			return true;
	return false;
}

static bool
entry_matches(
    const struct kb_protected *t, const char *path, const struct cw_ctx *c)
{
	const char *base = strrchr(path, '/');
	const char *slash, *var;
	char name[64];
	size_t bl, pl = strlen(t->pattern);

	base = base != NULL ? base + 1 : path;
	bl = strlen(base);
	switch (t->how) {
	case KB_PROTECT_BASENAME:
		return strcmp(base, t->pattern) == 0;
	case KB_PROTECT_NAME_PREFIX:
		return strncmp(base, t->pattern, pl) == 0;
	case KB_PROTECT_SUFFIX:
		return bl >= pl && strcmp(base + bl - pl, t->pattern) == 0;
	case KB_PROTECT_COMPONENT:
		return has_component(path, t->pattern);
	case KB_PROTECT_HOME:
		return under(path, c->home, t->pattern) ||
		       under(path, c->chome, t->pattern);
	case KB_PROTECT_PREFIX:
		if (t->pattern[0] != '$')
			return under(path, t->pattern, "");
		slash = strchr(t->pattern, '/');
		if (slash == NULL ||
		    (size_t)(slash - t->pattern) >= sizeof(name))
			return false;
		memcpy(name, t->pattern + 1, (size_t)(slash - t->pattern) - 1);
		name[slash - t->pattern - 1] = '\0';
		/* XDG: a relative value is invalid and ignored */
		var = getenv(name);
		return var != NULL && var[0] == '/' &&
		       under(path, var, slash + 1);
	}
	return false;
}

static const struct kb_protected *
table_match(const struct kb_protected *t, size_t n, const char *path,
    const struct cw_ctx *c)
{
	for (size_t i = 0; i < n; i++)
		if (entry_matches(&t[i], path, c))
			return &t[i];
	return NULL;
}

static void verdict(struct judgement *j, enum kb_verdict v, const char *rule,
    const char *view, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void
verdict(struct judgement *j, enum kb_verdict v, const char *rule,
    const char *view, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	j->verdict = v;
	j->rule = rule;
	n = strlen(view);
	if (n >= sizeof(j->reason))
		n = 0;
	memcpy(j->reason, view, n);
	va_start(ap, fmt);
	vsnprintf(j->reason + n, sizeof(j->reason) - n, fmt, ap);
	va_end(ap);
	oneline(j->reason);
}

/* an existing regular file with more than one name: a write through this
 * one changes the others, wherever they are */
static bool
hardlinked(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink > 1;
}

/*
 * One view of the path against the rules, first match wins. `contained`
 * false judges only the names (the path as written: a symlink called .env
 * or .git is a secret or git metadata whatever it points at).
 */
static void
kp_write_judge(const char *path, bool contained, const char *view,
    const struct cw_ctx *c, struct judgement *j)
{
	const struct kb_protected *hit;
	const char *root = NULL;
	bool in_ws = c->ws != NULL && kb_path_within(path, c->ws);

	j->path = path;
	if (contained && !in_ws &&
	    (root = kb_resolve_root(path, c->croots, c->nroots)) == NULL) {
		verdict(j, KB_DENY, "outside-workspace", view,
		    "outside the workspace%s: %s (workspace %s)",
		    c->nroots > 0 ? " and every write root" : "", path,
		    c->ws != NULL ? c->ws : "none");
		return;
	}
	if ((hit = table_match(kb_secret_file_table, kb_secret_file_count, path,
		 c)) != NULL) {
		verdict(j, KB_DENY, "secret-file", view,
		    "a secret file (%s), never written through the agent: %s",
		    hit->pattern, path);
		return;
	}
	if ((hit = table_match(
		 kb_protected_table, kb_protected_count, path, c)) != NULL) {
		verdict(j, KB_ASK, "protected-path", view,
		    "protected (%s), a human says yes first: %s", hit->pattern,
		    path);
		return;
	}
	if (!contained)
		verdict(j, KB_ALLOW, "written", view, "%s", path);
	else if (hardlinked(path))
		verdict(j, KB_ASK, "hardlink", view,
		    "a file with other hard links (they may be outside the "
		    "workspace and change with it): %s",
		    path);
	else if (c->mode == KB_MODE_STRICT)
		verdict(j, KB_ASK, "strict", view,
		    "strict mode asks before every write: %s", path);
	else if (in_ws)
		verdict(j, KB_ALLOW, "workspace", view,
		    "inside the workspace: %s", path);
	else
		verdict(j, KB_ALLOW, "write-root", view,
		    "inside a write root: %s (root %s)", path, root);
}

int
kb_check_write(const char *path, const char *cwd, const char *workspace,
    char *const *roots, size_t nroots, const char *home, enum kb_mode mode,
    struct kb_cw *out, struct kb_err *e)
{
	char abs[PATH_MAX], norm[PATH_MAX], real[PATH_MAX], lexreal[PATH_MAX];
	struct judgement j[3];
	struct cw_ctx c = {0};
	size_t nj = 0, best = 0;
	int r;

	memset(out, 0, sizeof(*out));
	if (path == NULL || path[0] == '\0')
		return kb_err_set(e, "check-write: empty path; name the file "
				     "the tool would write");
	if (path[0] == '/')
		r = snprintf(abs, sizeof(abs), "%s", path);
	else if (cwd != NULL && cwd[0] == '/')
		r = snprintf(abs, sizeof(abs), "%s/%s", cwd, path);
	else
		return kb_err_set(e,
		    "check-write: relative path and no "
		    "absolute working directory; pass an absolute path");
	if (r < 0 || (size_t)r >= sizeof(abs)) {
		errno = ENAMETOOLONG;
		goto fail;
	}
	if (kb_resolve_lexical(abs, norm, sizeof(norm)) == -1 ||
	    kb_resolve_write(path, cwd, 0, real, sizeof(real)) == -1 ||
	    kb_resolve_write(norm, NULL, 0, lexreal, sizeof(lexreal)) == -1)
		goto fail;

	c.ws = canon(workspace, c.ws_buf);
	c.nroots = roots != NULL ? nroots : 0;
	c.croots = xcalloc(c.nroots + 1, sizeof(*c.croots));
	c.croot_buf = xcalloc(c.nroots + 1, sizeof(*c.croot_buf));
	for (size_t i = 0; i < c.nroots; i++)
		c.croots[i] = canon(roots[i], c.croot_buf[i]);
	c.home = home != NULL && home[0] == '/' ? home : NULL;
	c.chome = canon(c.home, c.home_buf);
	c.mode = mode;

	/*
	 * Three views, the most severe wins (the first on a tie): where the
	 * kernel writes; where a tool that normalises ".." before opening
	 * writes (ws/link/../../x); and the names as written.
	 */
	kp_write_judge(real, true, "", &c, &j[nj++]);
	if (strcmp(lexreal, real) != 0)
		kp_write_judge(lexreal, true,
		    "with '..' taken before symlinks, ", &c, &j[nj++]);
	if (strcmp(norm, real) != 0)
		kp_write_judge(norm, false, "as written, ", &c, &j[nj++]);
	for (size_t i = 1; i < nj; i++)
		if (j[i].verdict > j[best].verdict)
			best = i;

	out->verdict = j[best].verdict;
	snprintf(out->resolved, sizeof(out->resolved), "%s", j[best].path);
	snprintf(out->reason, sizeof(out->reason), "%s", j[best].reason);
	snprintf(out->rule, sizeof(out->rule), "%s", j[best].rule);
	free(c.croots);
	free(c.croot_buf);
	return 0;

fail:
	/* the path is cut short so that the reason and the fix survive */
	r = kb_err_set(e,
	    "check-write %.200s: cannot resolve: %s; fix the "
	    "path",
	    path, strerror(errno));
	if (e != NULL)
		oneline(e->msg);
	return r;
}
