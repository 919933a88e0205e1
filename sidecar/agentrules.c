/*
 * sidecar/agentrules.c — the agent's own Bash permission rules on the
 * command the model wrote (sidecar/agentrules.h). Deny and ask rules match
 * generously (a prefix rule any command starting with it, the parts of a
 * compound line and of a wrapper one by one), so that a rewrite never
 * dodges one; allow rules match exactly (every part allowed on its own
 * word boundary), so that kinbox never allows more than the user did.
 */
#include <stdbool.h>
#include <string.h>

#include "../classify/shlex.h"
#include "agentrules.h"

#define MAX_DEPTH 3 /* bash -c 'sh -c "..."' */

/* the * wildcard alone: any run of characters */
static bool
glob(const char *p, const char *s)
{
	const char *star = NULL, *back = NULL;

	while (*s != '\0') {
		if (*p == '*') {
			star = p++;
			back = s;
		} else if (*p == *s) {
			p++;
			s++;
		} else if (star != NULL) {
			p = star + 1;
			s = ++back;
		} else {
			return false;
		}
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

/* Does `rule` match the command text `t`? generous: for deny and ask */
static bool
rule_matches(const char *rule, const char *t, bool generous)
{
	size_t rl = strlen(rule), cl;
	const char *c;

	if (strcmp(rule, "Bash") == 0)
		return true;
	if (strncmp(rule, "Bash(", 5) != 0 || rl < 6 || rule[rl - 1] != ')')
		return false;
	c = rule + 5;
	cl = rl - 6;
	if (cl == 0 || (cl == 1 && c[0] == '*'))
		return true;
	if (cl >= 2 && c[cl - 2] == ':' && c[cl - 1] == '*') {
		size_t pl = cl - 2;

		if (strncmp(t, c, pl) != 0)
			return false;
		return generous || t[pl] == '\0' || t[pl] == ' ';
	}
	{
		char pat[1024];

		if (cl >= sizeof(pat))
			return false;
		memcpy(pat, c, cl);
		pat[cl] = '\0';
		if (memchr(pat, '*', cl) != NULL)
			return glob(pat, t);
		if (strcmp(pat, t) == 0)
			return true;
		return generous && strncmp(t, pat, cl) == 0 && t[cl] == ' ';
	}
}

struct judge {
	const struct kb_rules *r;
	bool deny, ask, all_allowed;
	const char *which_deny, *which_ask, *which_allow;
};

/* one text of a part: the rules that match it (allow rules only when
 * `allowed` is not NULL) */
static void
text_hits(struct judge *j, const char *t, bool *allowed)
{
	for (size_t i = 0; i < j->r->ndeny; i++)
		if (rule_matches(j->r->deny[i], t, true)) {
			if (!j->deny)
				j->which_deny = j->r->deny[i];
			j->deny = true;
		}
	for (size_t i = 0; i < j->r->nask; i++)
		if (rule_matches(j->r->ask[i], t, true)) {
			if (!j->ask)
				j->which_ask = j->r->ask[i];
			j->ask = true;
		}
	for (size_t i = 0; allowed != NULL && i < j->r->nallow && !*allowed;
	     i++)
		if (rule_matches(j->r->allow[i], t, false)) {
			*allowed = true;
			if (j->which_allow == NULL)
				j->which_allow = j->r->allow[i];
		}
}

static bool
is_assignment(const struct kb_sh_word *w)
{
	const char *s = w->s;

	if ((w->flags & KB_SH_W_QUOTED) != 0 && strchr(s, '=') == NULL)
		return false;
	if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
		*s == '_'))
		return false;
	while ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
	       (*s >= '0' && *s <= '9') || *s == '_')
		s++;
	return *s == '=';
}

static const char *
base(const char *s)
{
	const char *sl = strrchr(s, '/');

	return sl != NULL ? sl + 1 : s;
}

/* the words a wrapper at w[0] takes before its command: 0 when it is
 * none */
static size_t
wrapper_skip(const struct kb_sh_word *w, size_t n)
{
	const char *b = base(w[0].s);
	size_t i = 1;

	if (strcmp(b, "nohup") == 0 || strcmp(b, "time") == 0 ||
	    strcmp(b, "command") == 0 || strcmp(b, "exec") == 0 ||
	    strcmp(b, "nice") == 0 || strcmp(b, "env") == 0 ||
	    strcmp(b, "sudo") == 0 || strcmp(b, "xargs") == 0 ||
	    strcmp(b, "stdbuf") == 0 || strcmp(b, "timeout") == 0) {
		while (i < n && (w[i].s[0] == '-' || (strcmp(b, "env") == 0 &&
							 is_assignment(&w[i]))))
			i++;
		/* nice -n N, timeout DURATION */
		if (strcmp(b, "nice") == 0 && i >= 2 &&
		    strcmp(w[i - 1].s, "-n") == 0 && i < n)
			i++;
		if (strcmp(b, "timeout") == 0 && i < n)
			i++;
		return i < n ? i : 0;
	}
	return 0;
}

static void kp_judge_line(struct judge *j, const char *line, int depth);

/* one simple command: its texts, then what it wraps */
static void
judge_part(
    struct judge *j, const char *in, const struct kb_sh_cmd *c, int depth)
{
	const struct kb_sh_word *w = c->words;
	size_t n = c->nwords;
	bool allowed = false;
	struct kb_buf t = {0};

	if (n == 0)
		return;
	/* as written, quotes and all */
	kb_buf_add(&t, in + w[0].start, w[n - 1].end - w[0].start);
	text_hits(j, t.s, depth == 0 ? &allowed : NULL);
	for (bool first = true;; first = false) {
		struct kb_buf words = {0};

		kb_buf_puts(&words, "");
		for (size_t i = 0; i < n; i++)
			kb_buf_printf(&words, "%s%s", i > 0 ? " " : "", w[i].s);
		/* an allow rule speaks for the command as written only */
		text_hits(j, words.s, first && depth == 0 ? &allowed : NULL);
		kb_buf_free(&words);
		/* bash -c TEXT, sh -lc TEXT: the text is a line of its own */
		if (depth < MAX_DEPTH && n >= 3 &&
		    (strcmp(base(w[0].s), "bash") == 0 ||
			strcmp(base(w[0].s), "sh") == 0 ||
			strcmp(base(w[0].s), "dash") == 0 ||
			strcmp(base(w[0].s), "zsh") == 0))
			for (size_t i = 1; i + 1 < n; i++)
				if (w[i].s[0] == '-' &&
				    strchr(w[i].s, 'c') != NULL &&
				    w[i].s[1] != '-') {
					kp_judge_line(j, w[i + 1].s, depth + 1);
					break;
				}
		if (is_assignment(&w[0]) && n > 1) {
			w++;
			n--;
			continue;
		}
		{
			size_t k = wrapper_skip(w, n);

			if (k == 0)
				break;
			w += k;
			n -= k;
		}
	}
	kb_buf_free(&t);
	if (!allowed && depth == 0)
		j->all_allowed = false;
}

static void
kp_judge_line(struct judge *j, const char *line, int depth)
{
	struct kb_sh_line l = {0};
	struct kb_err e;

	if (kb_shlex_parse(line, strlen(line), 0, &l, &e) == -1 ||
	    l.ncmds == 0) {
		/* not read as the agent would split it: judged whole, and
		 * no rule allows it */
		text_hits(j, line, NULL);
		j->all_allowed = false;
		kb_shlex_free(&l);
		return;
	}
	/* the whole line too: a rule may name a pipeline */
	text_hits(j, line, NULL);
	for (size_t i = 0; i < l.ncmds; i++)
		judge_part(j, line, &l.cmds[i], depth);
	kb_shlex_free(&l);
}

enum kb_rule_hit
kb_rules_judge(
    const char *command, const struct kb_rules *r, const char **which)
{
	struct judge j = {.r = r, .all_allowed = true};

	*which = NULL;
	if (command == NULL || r == NULL)
		return KB_RULE_NONE;
	kp_judge_line(&j, command, 0);
	if (j.deny) {
		*which = j.which_deny;
		return KB_RULE_DENY;
	}
	if (j.ask) {
		*which = j.which_ask;
		return KB_RULE_ASK;
	}
	if (j.all_allowed && j.which_allow != NULL) {
		*which = j.which_allow;
		return KB_RULE_ALLOW;
	}
	return KB_RULE_NONE;
}
