/*
 * sidecar/agentpolicy.c — Codex's execpolicy rules and Gemini CLI's policy
 * rules, read into the rule form kb_rules_judge() takes (agentrules.h).
 * Pure: the text of one file in, rules out.
 *
 * Codex: a .rules file is Starlark; the execpolicy language is its
 * prefix_rule() calls (codex-rs/execpolicy/README.md: pattern, a list of
 * tokens each a string or a list of alternatives; decision allow (the
 * default), prompt or forbidden; match, not_match, justification). Other
 * calls are skipped whole; anything else is not a rules file we can read.
 *
 * Gemini CLI: a policy file is TOML, [[rule]] tables (docs/reference/
 * policy-engine.md: toolName, commandPrefix, commandRegex, argsPattern,
 * decision allow | deny | ask_user, priority, modes, ...). A rule whose
 * tool is not the shell's is not ours. A deny or ask_user rule whose
 * condition we cannot judge exactly (commandRegex, argsPattern, a
 * subagent, an MCP server) makes the file unreadable: the call is asked
 * about, never allowed under a rule we did not apply. Priorities are not
 * ordered: a deny anywhere wins, as kb_rules_judge() judges.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../lib/util.h"
#include "agentrules.h"

#define MAX_ALTS 64 /* patterns expanded from a rule's alternatives */

/* --- a small lexer, enough for both languages ------------------------------
 */
struct lex {
	const char *p, *end;
	bool hash_comments;
};

static void
skip_space(struct lex *l)
{
	while (l->p < l->end) {
		if (*l->p == ' ' || *l->p == '\t' || *l->p == '\r' ||
		    *l->p == '\n')
			l->p++;
		else if (*l->p == '#' && l->hash_comments)
			while (l->p < l->end && *l->p != '\n')
				l->p++;
		else
			break;
	}
}

/* a string literal at l->p ("..." or '...', no triple quotes); -1 when
 * not one. TOML's '...' has no escapes. */
static int
string_lit(struct lex *l, struct kb_buf *out, bool single_raw)
{
	char q;

	if (l->p >= l->end || (*l->p != '"' && *l->p != '\''))
		return -1;
	q = *l->p++;
	if (l->end - l->p >= 2 && l->p[0] == q && l->p[1] == q)
		return -1; /* a triple-quoted string */
	kb_buf_add(out, "", 0);
	while (l->p < l->end && *l->p != q) {
		char c = *l->p++;

		if (c == '\n')
			return -1;
		if (c == '\\' && !(q == '\'' && single_raw)) {
			if (l->p >= l->end)
				return -1;
			c = *l->p++;
			switch (c) {
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case '\\':
			case '"':
			case '\'':
				break;
			default:
				return -1;
			}
		}
		if (c == '\0')
			return -1;
		kb_buf_add(out, &c, 1);
	}
	if (l->p >= l->end)
		return -1;
	l->p++;
	return 0;
}

static bool
ident(struct lex *l, char *out, size_t len)
{
	size_t n = 0;

	while (l->p < l->end && (isalnum((unsigned char)*l->p) ||
				    *l->p == '_' || *l->p == '-')) {
		if (n + 1 < len)
			out[n++] = *l->p;
		l->p++;
	}
	out[n] = '\0';
	return n > 0;
}

/* skips a value up to the , or closing bracket at its level (and, in
 * TOML, the end of its line) */
static int
skip_value(struct lex *l, bool toml)
{
	int depth = 0;
	const char *start = l->p;

	while (l->p < l->end) {
		char c = *l->p;

		if (toml && depth == 0 && (c == '\n' || c == '#') &&
		    l->p == start)
			return -1; /* no value */

		if (c == '"' || c == '\'') {
			struct kb_buf b = {0};
			int r = string_lit(l, &b, toml);

			kb_buf_free(&b);
			if (r == -1)
				return -1;
			continue;
		}
		if (c == '#') {
			while (l->p < l->end && *l->p != '\n')
				l->p++;
			continue;
		}
		if (c == '(' || c == '[' || c == '{')
			depth++;
		else if (c == ')' || c == ']' || c == '}') {
			/* the call's own ) ends it; any other closer at this
			 * level is unbalanced */
			if (depth == 0)
				return !toml && c == ')' ? 0 : -1;
			depth--;
		} else if (c == ',' && depth == 0 && !toml)
			return 0;
		else if (c == '\n' && depth == 0 && toml)
			return 0;
		l->p++;
	}
	return toml && depth == 0 ? 0 : -1;
}

/* a list of strings, or a string alone (as_list: a string is a list of
 * one); -1 when anything else */
static int
string_list(struct lex *l, struct kb_strv *out, bool single_raw, bool as_list)
{
	struct kb_buf b = {0};

	skip_space(l);
	if (as_list && l->p < l->end && *l->p != '[') {
		if (string_lit(l, &b, single_raw) == -1) {
			kb_buf_free(&b);
			return -1;
		}
		kb_strv_push(out, b.s);
		kb_buf_free(&b);
		return 0;
	}
	if (l->p >= l->end || *l->p != '[')
		return -1;
	l->p++;
	for (;;) {
		skip_space(l);
		if (l->p < l->end && *l->p == ']') {
			l->p++;
			kb_buf_free(&b);
			return 0;
		}
		b.len = 0;
		if (string_lit(l, &b, single_raw) == -1) {
			kb_buf_free(&b);
			return -1;
		}
		kb_strv_push(out, b.s);
		skip_space(l);
		if (l->p < l->end && *l->p == ',')
			l->p++;
		else if (l->p >= l->end || *l->p != ']') {
			kb_buf_free(&b);
			return -1;
		}
	}
}

/* the rule text: Bash(PREFIX:*), each alternative */
static void
push_prefixes(struct kb_strv *to, const struct kb_strv *alts, size_t ntok)
{
	/* alts[i] holds the alternatives of token i, \x1f-separated */
	size_t idx[64] = {0};
	size_t total = 0;

	if (ntok == 0 || ntok > nitems(idx))
		return;
	for (;;) {
		struct kb_buf b = {0};
		size_t i;

		kb_buf_puts(&b, "Bash(");
		for (i = 0; i < ntok; i++) {
			const char *s = alts->v[i];

			for (size_t k = 0; k < idx[i]; k++)
				s = strchr(s, '\x1f') + 1;
			if (i > 0)
				kb_buf_puts(&b, " ");
			kb_buf_add(&b, s, strcspn(s, "\x1f"));
		}
		kb_buf_puts(&b, ":*)");
		kb_strv_push(to, b.s);
		kb_buf_free(&b);
		if (++total >= MAX_ALTS)
			return;
		/* the next combination */
		for (i = ntok; i-- > 0;) {
			const char *s = alts->v[i];
			size_t n = 1;

			for (; *s != '\0'; s++)
				n += *s == '\x1f';
			if (++idx[i] < n)
				break;
			idx[i] = 0;
		}
		if (i == (size_t)-1)
			return;
	}
}

static int
kp_fail(char *why, size_t wl, const char *what, const struct lex *l,
    const char *text)
{
	int line = 1;

	for (const char *p = text; p < l->p && p < l->end; p++)
		line += *p == '\n';
	snprintf(why, wl, "line %d: %s", line, what);
	return -1;
}

/* --- Codex ------------------------------------------------------------------
 */
int
kb_codex_rules_parse(const char *text, size_t len, struct kb_agent_rules *r,
    char *why, size_t wl)
{
	struct lex l = {text, text + len, true};

	for (;;) {
		char name[64];
		struct kb_strv alts = {0};
		char decision[16] = "allow";
		bool is_rule, has_pattern = false;

		skip_space(&l);
		if (l.p >= l.end)
			return 0;
		if (!ident(&l, name, sizeof(name)))
			return kp_fail(why, wl, "not a call", &l, text);
		skip_space(&l);
		if (l.p >= l.end || *l.p != '(')
			return kp_fail(why, wl, "not a call", &l, text);
		l.p++;
		is_rule = strcmp(name, "prefix_rule") == 0;
		for (;;) {
			char key[64];

			skip_space(&l);
			if (l.p < l.end && *l.p == ')') {
				l.p++;
				break;
			}
			if (!is_rule) {
				if (skip_value(&l, false) == -1)
					goto bad;
				if (l.p < l.end && *l.p == ',')
					l.p++;
				else if (l.p >= l.end || *l.p != ')')
					goto bad;
				continue;
			}
			if (!ident(&l, key, sizeof(key)))
				goto bad;
			skip_space(&l);
			if (l.p >= l.end || *l.p != '=')
				goto bad;
			l.p++;
			skip_space(&l);
			if (strcmp(key, "pattern") == 0) {
				/* a list of strings or lists of strings */
				if (l.p >= l.end || *l.p != '[')
					goto bad;
				l.p++;
				for (;;) {
					struct kb_strv one = {0};
					struct kb_buf j = {0};

					skip_space(&l);
					if (l.p < l.end && *l.p == ']') {
						l.p++;
						break;
					}
					if (string_list(
						&l, &one, false, true) == -1 ||
					    one.n == 0) {
						kb_strv_free(&one);
						goto bad;
					}
					for (size_t i = 0; i < one.n; i++) {
						if (strchr(one.v[i], '\x1f')) {
							kb_strv_free(&one);
							kb_buf_free(&j);
							goto bad;
						}
						if (i > 0)
							kb_buf_puts(&j, "\x1f");
						kb_buf_puts(&j, one.v[i]);
					}
					kb_strv_push(&alts, j.s);
					kb_buf_free(&j);
					kb_strv_free(&one);
					skip_space(&l);
					if (l.p < l.end && *l.p == ',')
						l.p++;
				}
				has_pattern = true;
			} else if (strcmp(key, "decision") == 0) {
				struct kb_buf b = {0};

				if (string_lit(&l, &b, false) == -1 ||
				    strlen(b.s) >= sizeof(decision)) {
					kb_buf_free(&b);
					goto bad;
				}
				snprintf(decision, sizeof(decision), "%s", b.s);
				kb_buf_free(&b);
			} else if (skip_value(&l, false) == -1) {
				goto bad;
			}
			skip_space(&l);
			if (l.p < l.end && *l.p == ',')
				l.p++;
			else if (l.p >= l.end || *l.p != ')')
				goto bad;
		}
		if (is_rule) {
			struct kb_strv *to =
			    strcmp(decision, "forbidden") == 0 ? &r->deny
			    : strcmp(decision, "prompt") == 0  ? &r->ask
			    : strcmp(decision, "allow") == 0   ? &r->allow
							       : NULL;

			if (to == NULL || !has_pattern || alts.n == 0) {
				kb_strv_free(&alts);
				return kp_fail(why, wl,
				    to == NULL ? "a decision that is not "
						 "allow, prompt or forbidden"
					       : "a prefix_rule without a "
						 "pattern",
				    &l, text);
			}
			push_prefixes(to, &alts, alts.n);
		}
		kb_strv_free(&alts);
		continue;
	bad:
		kb_strv_free(&alts);
		return kp_fail(
		    why, wl, "not execpolicy as kinpolicy reads it", &l, text);
	}
}

/* --- Gemini CLI -------------------------------------------------------------
 */
struct gemini_rule {
	struct kb_strv tools, prefixes;
	char decision[16];
	bool in_rule, unjudgeable;
	char unjudged[64];
};

static bool
shell_tool(const struct kb_strv *tools)
{
	if (tools->n == 0)
		return true; /* no toolName: every tool */
	for (size_t i = 0; i < tools->n; i++)
		if (strcmp(tools->v[i], "run_shell_command") == 0 ||
		    strcmp(tools->v[i], "*") == 0)
			return true;
	return false;
}

static int
gemini_flush(
    struct gemini_rule *g, struct kb_agent_rules *r, char *why, size_t wl)
{
	struct kb_strv *to;
	int rc = 0;

	if (!g->in_rule || !shell_tool(&g->tools))
		goto out;
	to = strcmp(g->decision, "deny") == 0       ? &r->deny
	     : strcmp(g->decision, "ask_user") == 0 ? &r->ask
	     : strcmp(g->decision, "allow") == 0    ? &r->allow
						    : NULL;
	if (to == NULL) {
		snprintf(why, wl,
		    "a rule whose decision is not allow, deny or "
		    "ask_user");
		rc = -1;
		goto out;
	}
	if (g->unjudgeable) {
		/* an allow we cannot judge is not applied (never more
		 * allowed); a deny or ask is not ignored either */
		if (to != &r->allow) {
			snprintf(why, wl,
			    "a %s rule with %s, which kinpolicy cannot judge "
			    "exactly",
			    g->decision, g->unjudged);
			rc = -1;
		}
		goto out;
	}
	if (g->prefixes.n == 0)
		kb_strv_push(to, "Bash");
	for (size_t i = 0; i < g->prefixes.n; i++)
		kb_strv_pushf(to, "Bash(%s:*)", g->prefixes.v[i]);
out:
	kb_strv_free(&g->tools);
	kb_strv_free(&g->prefixes);
	memset(g, 0, sizeof(*g));
	return rc;
}

static int
gemini_parse(const char *text, size_t len, struct kb_agent_rules *r, char *why,
    size_t wl, struct gemini_rule *gp)
{
	struct lex l = {text, text + len, true};
	struct gemini_rule g;
	char w2[200];
	int rc;

	memset(&g, 0, sizeof(g));
#define kp_fail(...) (rc = kp_fail(__VA_ARGS__), *gp = g, rc)
	for (;;) {
		char key[64];

		skip_space(&l);
		if (l.p >= l.end)
			break;
		if (*l.p == '[') {
			bool array = l.end - l.p >= 2 && l.p[1] == '[';
			const char *close;

			if (gemini_flush(&g, r, w2, sizeof(w2)) == -1)
				return kp_fail(why, wl, w2, &l, text);
			close = memchr(l.p, '\n', (size_t)(l.end - l.p));
			if (close == NULL)
				close = l.end;
			{
				/* the header ends in ] (]] for an array of
				 * tables), then blanks or a comment */
				const char *e =
				    memchr(l.p, '#', (size_t)(close - l.p));

				if (e == NULL)
					e = close;
				while (
				    e > l.p && (e[-1] == ' ' || e[-1] == '\t' ||
						   e[-1] == '\r'))
					e--;
				if (e - l.p < (array ? 5 : 3) || e[-1] != ']' ||
				    (array && e[-2] != ']'))
					return kp_fail(why, wl,
					    "a table header that is not "
					    "closed",
					    &l, text);
			}
			/* [[rule]] opens a rule; any other table is not ours */
			g.in_rule = array && (size_t)(close - l.p) >= 8 &&
				    strncmp(l.p, "[[rule]]", 8) == 0;
			l.p = close;
			continue;
		}
		if (!ident(&l, key, sizeof(key)))
			return kp_fail(why, wl,
			    "not TOML as kinpolicy reads it", &l, text);
		skip_space(&l);
		if (l.p >= l.end || *l.p != '=')
			return kp_fail(why, wl,
			    "not TOML as kinpolicy reads it", &l, text);
		l.p++;
		skip_space(&l);
		if (g.in_rule && strcmp(key, "toolName") == 0) {
			if (string_list(&l, &g.tools, true, true) == -1)
				return kp_fail(why, wl,
				    "toolName is not a string "
				    "or a list of them",
				    &l, text);
		} else if (g.in_rule && strcmp(key, "commandPrefix") == 0) {
			if (string_list(&l, &g.prefixes, true, true) == -1)
				return kp_fail(why, wl,
				    "commandPrefix is not a "
				    "string or a list of them",
				    &l, text);
		} else if (g.in_rule && strcmp(key, "decision") == 0) {
			struct kb_buf b = {0};

			if (string_lit(&l, &b, true) == -1 ||
			    strlen(b.s) >= sizeof(g.decision)) {
				kb_buf_free(&b);
				return kp_fail(why, wl,
				    "decision is not a string", &l, text);
			}
			snprintf(g.decision, sizeof(g.decision), "%s", b.s);
			kb_buf_free(&b);
		} else {
			if (g.in_rule && (strcmp(key, "commandRegex") == 0 ||
					     strcmp(key, "argsPattern") == 0 ||
					     strcmp(key, "subagent") == 0 ||
					     strcmp(key, "mcpName") == 0)) {
				g.unjudgeable = true;
				snprintf(
				    g.unjudged, sizeof(g.unjudged), "%s", key);
			}
			if (skip_value(&l, true) == -1)
				return kp_fail(why, wl,
				    "not TOML as kinpolicy reads it", &l, text);
		}
	}
	if (gemini_flush(&g, r, w2, sizeof(w2)) == -1)
		return kp_fail(why, wl, w2, &l, text);
#undef fail
	return 0;
}

int
kb_gemini_policy_parse(const char *text, size_t len, struct kb_agent_rules *r,
    char *why, size_t wl)
{
	struct gemini_rule g;
	int rc;

	memset(&g, 0, sizeof(g));
	/* a rule half read when the text turned out unreadable */
	if ((rc = gemini_parse(text, len, r, why, wl, &g)) == -1) {
		kb_strv_free(&g.tools);
		kb_strv_free(&g.prefixes);
	}
	return rc;
}

void
kb_agent_rules_free(struct kb_agent_rules *r)
{
	kb_strv_free(&r->deny);
	kb_strv_free(&r->ask);
	kb_strv_free(&r->allow);
}
