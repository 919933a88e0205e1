/*
 * sidecar/hook.c — the pure half of `kinpolicy hook` (sidecar/hook.h): agent
 * names, the mode table, the kinbox rewrite and its inverse, denial ids.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../classify/shlex.h"
#include "hook.h"

static const char *const agent_names[] = {
    [KB_AGENT_CLAUDE] = "claude-code",
    [KB_AGENT_CODEX] = "codex",
    [KB_AGENT_GEMINI] = "gemini",
    [KB_AGENT_CURSOR] = "cursor",
};

int
kb_agent_parse(const char *s, enum kb_agent *out)
{
	for (size_t i = 0; s != NULL && i < nitems(agent_names); i++)
		if (strcmp(s, agent_names[i]) == 0) {
			*out = (enum kb_agent)i;
			return 0;
		}
	return -1;
}

const char *
kb_agent_name(enum kb_agent a)
{
	return (size_t)a < nitems(agent_names) ? agent_names[a] : "unknown";
}

static void
kp_mode_set(
    struct kb_hook_mode *m, enum kb_mode mode, bool planning, const char *why)
{
	m->mode = mode;
	m->planning = planning;
	m->why = why;
}

int
kb_hook_mode(enum kb_agent a, const char *pm, const char *override,
    struct kb_hook_mode *m)
{
	const char *p = pm != NULL ? pm : "";

	memset(m, 0, sizeof(*m));
	m->can_ask = a != KB_AGENT_CODEX;
	if (override != NULL) {
		if (strcmp(override, "auto") == 0)
			kp_mode_set(m, KB_MODE_AUTO, false, "--mode auto");
		else if (strcmp(override, "strict") == 0)
			kp_mode_set(m, KB_MODE_STRICT, false, "--mode strict");
		else if (strcmp(override, "plan") == 0)
			kp_mode_set(m, KB_MODE_STRICT, true, "--mode plan");
		else
			return -1;
		return 0;
	}
	/* planning is the freeze, whoever says it */
	if (strcmp(p, "plan") == 0) {
		kp_mode_set(
		    m, KB_MODE_STRICT, true, "plan mode: the planning freeze");
		return 0;
	}
	switch (a) {
	case KB_AGENT_CLAUDE:
		if (strcmp(p, "auto") == 0 || strcmp(p, "dontAsk") == 0 ||
		    strcmp(p, "bypassPermissions") == 0)
			kp_mode_set(m, KB_MODE_AUTO, false,
			    "Claude Code's auto, dontAsk and bypassPermissions "
			    "modes: auto");
		else
			/* default, acceptEdits, missing, unknown: a human
			 * answers what is not provably read-only */
			kp_mode_set(m, KB_MODE_STRICT, false,
			    "Claude Code's default and acceptEdits modes: "
			    "strict");
		break;
	case KB_AGENT_CODEX:
		/* its approval policy still judges the rewritten command,
		 * and it has no ask: strict would deny every command a
		 * human could have approved */
		kp_mode_set(m, KB_MODE_AUTO, false,
		    "Codex: auto (its own approval policy still judges the "
		    "rewritten command)");
		break;
	case KB_AGENT_GEMINI:
		kp_mode_set(m, KB_MODE_AUTO, false,
		    "Gemini CLI: auto (its policy engine still judges the "
		    "rewritten command)");
		break;
	case KB_AGENT_CURSOR:
		kp_mode_set(m, KB_MODE_AUTO, false, "Cursor: auto");
		break;
	}
	return 0;
}

char *
kb_hook_wrap(const char *kinbox, const char *root, const char *session,
    bool read_only, const char *command)
{
	struct kb_buf b = {0};

	if (session != NULL) {
		kb_buf_puts(&b, "KINBOX_SESSION=");
		kb_buf_shquote(&b, session);
		kb_buf_puts(&b, " ");
	}
	kb_buf_shquote(&b, kinbox);
	if (read_only)
		kb_buf_puts(&b, " --read-only");
	kb_buf_puts(&b, " --workspace ");
	kb_buf_shquote(&b, root);
	kb_buf_puts(&b, " -- bash -c ");
	/* always quoted: an empty command is '' */
	kb_buf_add(&b, "'", 1);
	for (const char *p = command; *p != '\0'; p++)
		if (*p == '\'')
			kb_buf_puts(&b, "'\\''");
		else
			kb_buf_add(&b, p, 1);
	kb_buf_add(&b, "'", 1);
	return b.s;
}

/* a word the shell hands over as written: nothing it would expand */
static bool
kp_word_is_literal(const struct kb_sh_word *w, const char *want)
{
	if (w->flags & (KB_SH_W_GLOB | KB_SH_W_TILDE | KB_SH_W_OPAQUE |
			   KB_SH_W_SPLIT | KB_SH_W_XGLOB))
		return false;
	return want == NULL || strcmp(w->s, want) == 0;
}

char *
kb_hook_unwrap(const char *kinbox, const char *root, const char *session,
    bool read_only, const char *command)
{
	static const char *const shape[] = {
	    NULL, "--workspace", NULL, "--", "bash", "-c", NULL};
	static const char *const shape_ro[] = {
	    NULL, "--read-only", "--workspace", NULL, "--", "bash", "-c", NULL};
	const char *const *sh = read_only ? shape_ro : shape;
	size_t nsh = read_only ? nitems(shape_ro) : nitems(shape);
	struct kb_sh_line line = {0};
	struct kb_err e;
	const struct kb_sh_cmd *c;
	const struct kb_sh_word *w;
	char *inner = NULL;

	if (command == NULL ||
	    kb_shlex_parse(command, strlen(command), 0, &line, &e) == -1)
		goto out;
	if (line.ncmds != 1 || line.compound || line.background ||
	    line.ngredirs != 0)
		goto out;
	c = &line.cmds[0];
	/* with a session, its assignment comes first (compared below, in
	 * the whole rewrite) */
	w = c->words + (session != NULL);
	if (c->nwords != nsh + (session != NULL) || c->nredirs != 0)
		goto out;
	for (size_t i = 0; i < nsh; i++)
		if (!kp_word_is_literal(&w[i], sh[i]))
			goto out;
	if (strcmp(w[0].s, kinbox) != 0 || strcmp(w[nsh - 5].s, root) != 0)
		goto out;
	/* exactly what kb_hook_wrap would write for it */
	{
		_cleanup_free_ char *again = kb_hook_wrap(
		    kinbox, root, session, read_only, w[nsh - 1].s);

		if (strcmp(again, command) == 0)
			inner = xstrdup(w[nsh - 1].s);
	}
out:
	kb_shlex_free(&line);
	return inner;
}

size_t
kb_hook_denial_ids(const char *text, char (*ids)[24], size_t max)
{
	size_t n = 0;

	for (const char *l = text; l != NULL && *l != '\0' && n < max;) {
		const char *end = strchr(l, '\n');
		size_t len = end != NULL ? (size_t)(end - l) : strlen(l);
		const char *p = l, *stop = l + len;

		if (len > 8 && memcmp(l, "kinbox: ", 8) == 0)
			while (n < max && (p = memmem(p, (size_t)(stop - p),
					       "[sbx_", 5)) != NULL) {
				size_t k = 0;
				bool dup = false;

				while (p + 5 + k < stop && k < 16 &&
				       isxdigit((unsigned char)p[5 + k]) &&
				       !isupper((unsigned char)p[5 + k]))
					k++;
				if (k == 16 && p + 21 < stop && p[21] == ']') {
					for (size_t i = 0; i < n; i++)
						dup |= memcmp(ids[i], p + 1,
							   20) == 0;
					if (!dup) {
						memcpy(ids[n], p + 1, 20);
						ids[n++][20] = '\0';
					}
				}
				p += 5;
			}
		l = end != NULL ? end + 1 : NULL;
	}
	return n;
}

/* --- Codex's apply_patch, read as Codex reads it ----------------------------
 * codex-rs/apply-patch/src/parser.rs (lenient mode, the one Codex uses):
 * the text trimmed of Unicode white space and split into lines as Rust's
 * str::lines does ('\n', a '\r' before it dropped); the first and last
 * lines, trimmed, must be the Begin and End markers, else the same inside
 * a <<EOF, <<'EOF' or <<"EOF" heredoc; each hunk header is its line
 * trimmed; an Add File hunk takes the '+' lines after it; an Update File
 * hunk takes an untrimmed "*** Move to: " line, then chunks (blank lines
 * between them skipped) until an untrimmed line starting with '*'; a
 * chunk is "@@" or "@@ CONTEXT" (optional for the first), then lines
 * starting ' ', '+', '-' or empty, up to "*** End of File" or another
 * line, which must not be the chunk's first. */

/* the length of the Unicode white space (Rust's char::is_whitespace) that
 * starts at s, 0 when none */
static size_t
uspace(const unsigned char *s, size_t n)
{
	if (n >= 1 && (s[0] == ' ' || (s[0] >= '\t' && s[0] <= '\r')))
		return 1;
	if (n >= 2 && s[0] == 0xc2 && (s[1] == 0x85 || s[1] == 0xa0))
		return 2;
	if (n >= 3 && s[0] == 0xe1 && s[1] == 0x9a && s[2] == 0x80)
		return 3;
	if (n >= 3 && s[0] == 0xe2 && s[1] == 0x80 &&
	    ((s[2] >= 0x80 && s[2] <= 0x8a) || s[2] == 0xa8 || s[2] == 0xa9 ||
		s[2] == 0xaf))
		return 3;
	if (n >= 3 && s[0] == 0xe2 && s[1] == 0x81 && s[2] == 0x9f)
		return 3;
	if (n >= 3 && s[0] == 0xe3 && s[1] == 0x80 && s[2] == 0x80)
		return 3;
	return 0;
}

/* the length of the Unicode white space that ends s[0..n) */
static size_t
uspace_end(const unsigned char *s, size_t n)
{
	for (size_t k = 1; k <= 3 && k <= n; k++)
		if (uspace(s + n - k, k) == k)
			return k;
	return 0;
}

struct pline {
	const char *s;
	size_t n;
};

/* s[0..n) trimmed as Rust's str::trim */
static struct pline
ptrim(struct pline l)
{
	size_t k;

	while (l.n > 0 && (k = uspace((const unsigned char *)l.s, l.n)) > 0) {
		l.s += k;
		l.n -= k;
	}
	while (l.n > 0 && (k = uspace_end((const unsigned char *)l.s, l.n)) > 0)
		l.n -= k;
	return l;
}

static bool
peq(struct pline l, const char *lit)
{
	return l.n == strlen(lit) && memcmp(l.s, lit, l.n) == 0;
}

static bool
pprefix(struct pline l, const char *lit, struct pline *rest)
{
	size_t k = strlen(lit);

	if (l.n < k || memcmp(l.s, lit, k) != 0)
		return false;
	if (rest != NULL)
		*rest = (struct pline){l.s + k, l.n - k};
	return true;
}

static void
ppush(struct kb_strv *out, struct pline p)
{
	char *s = xmalloc(p.n + 1);

	memcpy(s, p.s, p.n);
	s[p.n] = '\0';
	kb_strv_push(out, s);
	free(s);
}

/* one Update File chunk from l[0..n): the lines it takes, or 0 when it
 * is not one (an error in Codex) */
static size_t
patch_chunk(const struct pline *l, size_t n, bool first)
{
	size_t start = 0, k = 0;

	if (n == 0)
		return 0;
	if (peq(l[0], "@@") || pprefix(l[0], "@@ ", NULL))
		start = 1;
	else if (!first)
		return 0;
	if (start >= n)
		return 0;
	for (size_t i = start; i < n; i++) {
		if (peq(l[i], "*** End of File")) {
			if (k == 0)
				return 0;
			k++;
			break;
		}
		if (l[i].n == 0 || l[i].s[0] == ' ' || l[i].s[0] == '+' ||
		    l[i].s[0] == '-') {
			k++;
			continue;
		}
		if (k == 0)
			return 0;
		break;
	}
	return start + k;
}

int
kb_hook_patch_paths(const char *patch, struct kb_strv *out)
{
	struct pline all = ptrim((struct pline){patch, strlen(patch)});
	struct pline *l = NULL;
	size_t n = 0, lo, hi;
	int rc = -1;

	/* str::lines */
	for (size_t i = 0; i < all.n;) {
		const char *nl = memchr(all.s + i, '\n', all.n - i);
		size_t len =
		    nl != NULL ? (size_t)(nl - (all.s + i)) : all.n - i;
		struct pline x = {all.s + i, len};

		if (x.n > 0 && x.s[x.n - 1] == '\r')
			x.n--;
		l = xreallocarray(l, n + 1, sizeof(*l));
		l[n++] = x;
		i += len + 1;
	}
	if (n >= 2 && peq(ptrim(l[0]), "*** Begin Patch") &&
	    peq(ptrim(l[n - 1]), "*** End Patch")) {
		lo = 1;
		hi = n - 1;
	} else if (n >= 4 &&
		   (peq(l[0], "<<EOF") || peq(l[0], "<<'EOF'") ||
		       peq(l[0], "<<\"EOF\"")) &&
		   l[n - 1].n >= 3 &&
		   memcmp(l[n - 1].s + l[n - 1].n - 3, "EOF", 3) == 0 &&
		   peq(ptrim(l[1]), "*** Begin Patch") &&
		   peq(ptrim(l[n - 2]), "*** End Patch")) {
		lo = 2;
		hi = n - 2;
	} else {
		goto out;
	}
	for (size_t i = lo; i < hi;) {
		struct pline h = ptrim(l[i]), path;

		if (pprefix(h, "*** Add File: ", &path)) {
			ppush(out, path);
			for (i++; i < hi && pprefix(l[i], "+", NULL); i++)
				;
		} else if (pprefix(h, "*** Delete File: ", &path)) {
			ppush(out, path);
			i++;
		} else if (pprefix(h, "*** Update File: ", &path)) {
			struct pline to;
			bool first = true;

			ppush(out, path);
			i++;
			if (i < hi && pprefix(l[i], "*** Move to: ", &to)) {
				ppush(out, to);
				i++;
			}
			while (i < hi) {
				size_t k;

				if (ptrim(l[i]).n == 0) {
					i++;
					continue;
				}
				if (l[i].s[0] == '*')
					break;
				if ((k = patch_chunk(l + i, hi - i, first)) ==
				    0)
					goto out;
				first = false;
				i += k;
			}
			if (first)
				goto out; /* an empty Update hunk */
		} else {
			goto out;
		}
	}
	rc = 0;
out:
	free(l);
	return rc;
}
