/*
 * gate/hook.c — the pure half of `kinpolicy hook` (gate/hook.h): agent
 * names, the mode table, the kinbox rewrite and its inverse, denial ids.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "hook.h"
#include "shlex.h"

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
set(struct kb_hook_mode *m, enum kb_mode mode, bool planning, const char *why)
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
			set(m, KB_MODE_AUTO, false, "--mode auto");
		else if (strcmp(override, "strict") == 0)
			set(m, KB_MODE_STRICT, false, "--mode strict");
		else if (strcmp(override, "plan") == 0)
			set(m, KB_MODE_STRICT, true, "--mode plan");
		else
			return -1;
		return 0;
	}
	/* planning is the freeze, whoever says it */
	if (strcmp(p, "plan") == 0) {
		set(m, KB_MODE_STRICT, true, "plan mode: the planning freeze");
		return 0;
	}
	switch (a) {
	case KB_AGENT_CLAUDE:
		if (strcmp(p, "auto") == 0 || strcmp(p, "dontAsk") == 0 ||
		    strcmp(p, "bypassPermissions") == 0)
			set(m, KB_MODE_AUTO, false,
			    "Claude Code's auto, dontAsk and bypassPermissions "
			    "modes: auto");
		else
			/* default, acceptEdits, missing, unknown: a human
			 * answers what is not provably read-only */
			set(m, KB_MODE_STRICT, false,
			    "Claude Code's default and acceptEdits modes: "
			    "strict");
		break;
	case KB_AGENT_CODEX:
		/* its approval policy still judges the rewritten command,
		 * and it has no ask: strict would deny every command a
		 * human could have approved */
		set(m, KB_MODE_AUTO, false,
		    "Codex: auto (its own approval policy still judges the "
		    "rewritten command)");
		break;
	case KB_AGENT_GEMINI:
		set(m, KB_MODE_AUTO, false,
		    "Gemini CLI: auto (its policy engine still judges the "
		    "rewritten command)");
		break;
	case KB_AGENT_CURSOR:
		set(m, KB_MODE_AUTO, false, "Cursor: auto");
		break;
	}
	return 0;
}

char *
kb_hook_wrap(const char *kinbox, const char *root, const char *command)
{
	struct kb_buf b = {0};

	kb_buf_shquote(&b, kinbox);
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
literal_word(const struct kb_sh_word *w, const char *want)
{
	if (w->flags & (KB_SH_W_GLOB | KB_SH_W_TILDE | KB_SH_W_OPAQUE |
			   KB_SH_W_SPLIT | KB_SH_W_XGLOB))
		return false;
	return want == NULL || strcmp(w->s, want) == 0;
}

char *
kb_hook_unwrap(const char *kinbox, const char *root, const char *command)
{
	static const char *const shape[] = {
	    NULL, "--workspace", NULL, "--", "bash", "-c", NULL};
	struct kb_sh_line line = {0};
	struct kb_err e;
	const struct kb_sh_cmd *c;
	char *inner = NULL;

	if (command == NULL ||
	    kb_shlex_parse(command, strlen(command), 0, &line, &e) == -1)
		goto out;
	if (line.ncmds != 1 || line.compound || line.background ||
	    line.ngredirs != 0)
		goto out;
	c = &line.cmds[0];
	if (c->nwords != nitems(shape) || c->nredirs != 0)
		goto out;
	for (size_t i = 0; i < nitems(shape); i++)
		if (!literal_word(&c->words[i], shape[i]))
			goto out;
	if (strcmp(c->words[0].s, kinbox) != 0 ||
	    strcmp(c->words[2].s, root) != 0)
		goto out;
	/* exactly what kb_hook_wrap would write for it */
	{
		_cleanup_free_ char *again =
		    kb_hook_wrap(kinbox, root, c->words[6].s);

		if (strcmp(again, command) == 0)
			inner = xstrdup(c->words[6].s);
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
