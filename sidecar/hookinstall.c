/*
 * sidecar/hookinstall.c — the merge of kinpolicy's hook block into an agent's
 * settings JSON, and its inverse (see hookinstall.h). Only the handlers
 * whose command is a kinpolicy hook command are ever taken out; what else
 * the file holds is kept as it is, in its order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/util.h"
#include "hookinstall.h"

/* README.md, "Use with your agent": keep the two in step */
static const struct kb_hookinstall_entry claude_entries[] = {
    {"PreToolUse", "Bash|Edit|Write|MultiEdit|NotebookEdit", 30},
    {"PostToolUseFailure", "Bash", 0},
    {"SessionStart", NULL, 0},
};
static const struct kb_hookinstall_entry codex_entries[] = {
    {"PreToolUse", "^(Bash|apply_patch)$", 30},
    {"PostToolUse", "^Bash$", 0},
    {"SessionStart", NULL, 0},
};
static const struct kb_hookinstall_entry gemini_entries[] = {
    {"BeforeTool", "run_shell_command|write_file|replace", 30000},
    {"AfterTool", "run_shell_command", 0},
    {"SessionStart", NULL, 0},
};
static const struct kb_hookinstall_entry cursor_entries[] = {
    {"beforeShellExecution", NULL, 0},
};

const struct kb_hookinstall_entry *
kb_hookinstall_entries(enum kb_agent agent, size_t *n)
{
	switch (agent) {
	case KB_AGENT_CLAUDE:
		*n = nitems(claude_entries);
		return claude_entries;
	case KB_AGENT_CODEX:
		*n = nitems(codex_entries);
		return codex_entries;
	case KB_AGENT_GEMINI:
		*n = nitems(gemini_entries);
		return gemini_entries;
	case KB_AGENT_CURSOR:
		break;
	}
	*n = nitems(cursor_entries);
	return cursor_entries;
}

const char *
kb_hookinstall_relpath(enum kb_agent agent)
{
	switch (agent) {
	case KB_AGENT_CLAUDE:
		return ".claude/settings.json";
	case KB_AGENT_CODEX:
		return ".codex/hooks.json";
	case KB_AGENT_GEMINI:
		return ".gemini/settings.json";
	case KB_AGENT_CURSOR:
		break;
	}
	return ".cursor/hooks.json";
}

char *
kb_hookinstall_command(const char *kinpolicy, enum kb_agent agent)
{
	struct kb_buf b = {0};

	kb_buf_add(&b, "", 0);
	kb_buf_shquote(&b, kinpolicy);
	kb_buf_printf(&b, " hook %s", kb_agent_name(agent));
	return b.s;
}

static bool
blank(char c)
{
	return c == ' ' || c == '\t';
}

/* the first word of `p` as a shell reads it, quotes taken off, into `w`
 * (a parameter expansion such as $HOME stays as it is written); the end of
 * the word, or NULL when it is no plain word (a command substitution, an
 * operator, an unterminated quote) */
static const char *
kp_literal_word(const char *p, struct kb_buf *w)
{
	if (*p == '#' || *p == '\0')
		return NULL; /* a comment, or nothing */
	while (*p != '\0' && !blank(*p)) {
		if (*p == '\'') {
			const char *q = strchr(p + 1, '\'');

			if (q == NULL)
				return NULL;
			kb_buf_add(w, p + 1, (size_t)(q - p - 1));
			p = q + 1;
		} else if (*p == '"') {
			for (p++; *p != '"'; p++) {
				if (*p == '\0' || *p == '`' ||
				    (*p == '$' && p[1] == '('))
					return NULL;
				if (*p == '\\' && p[1] == '\n')
					return NULL;
				/* strchr() finds the string's NUL too: a
				 * backslash last is no escape (the quote is
				 * unterminated, said above next round) */
				if (*p == '\\' && p[1] != '\0' &&
				    strchr("\"\\$`", p[1]) != NULL)
					p++;
				kb_buf_add(w, p, 1);
			}
			p++;
		} else if (*p == '\\') {
			if (p[1] == '\0' || p[1] == '\n')
				return NULL;
			kb_buf_add(w, p + 1, 1);
			p += 2;
		} else if (strchr("`;&|<>()\n\r", *p) != NULL) {
			return NULL;
		} else {
			kb_buf_add(w, p, 1);
			p++;
		}
	}
	return p;
}

bool
kb_hookinstall_is_ours(
    const char *command, enum kb_agent agent, const char **rest)
{
	const char *name = kb_agent_name(agent), *p = command;
	struct kb_buf w = {0};
	size_t nl = strlen(name);
	bool ours = false;

	kb_buf_add(&w, "", 0);
	while (blank(*p))
		p++;
	p = kp_literal_word(p, &w);
	if (p == NULL || !blank(*p))
		goto out;
	if (strcmp(w.s, "kinpolicy") != 0 &&
	    (w.len < sizeof("/kinpolicy") - 1 ||
		strcmp(w.s + w.len - (sizeof("/kinpolicy") - 1),
		    "/kinpolicy") != 0))
		goto out;
	while (blank(*p))
		p++;
	if (strncmp(p, "hook", 4) != 0 || !blank(p[4]))
		goto out;
	p += 4;
	while (blank(*p))
		p++;
	if (strncmp(p, name, nl) != 0 || (p[nl] != '\0' && !blank(p[nl])))
		goto out;
	ours = true;
	if (rest != NULL)
		*rest = p + nl;
out:
	kb_buf_free(&w);
	return ours;
}

void
kb_hookinstall_report_free(struct kb_hookinstall_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->ch[i].event);
		free(r->ch[i].was);
	}
	r->n = 0;
}

bool
kb_hookinstall_changed(const struct kb_hookinstall_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->ch[i].what != KB_HI_SAME)
			return true;
	return false;
}

static void
report_add(struct kb_hookinstall_report *r, const char *event,
    enum kb_hookinstall_what what, const char *was, size_t removed)
{
	struct kb_hookinstall_change *c;

	if (r->n == KB_HOOKINSTALL_MAX_CHANGES)
		return; /* the file says the rest (the diff) */
	c = &r->ch[r->n++];
	c->event = xstrdup(event);
	c->what = what;
	c->was = was != NULL ? xstrdup(was) : NULL;
	c->removed = removed;
}

json_t *
kb_hookinstall_parse(const char *text, size_t len, struct kb_err *e)
{
	json_error_t err;
	json_t *j;
	size_t i = 0;

	while (i < len && (text[i] == ' ' || text[i] == '\t' ||
			      text[i] == '\n' || text[i] == '\r'))
		i++;
	if (i == len)
		return json_object();
	j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
	if (j == NULL) {
		kb_err_set(e, "not valid JSON (line %d, column %d: %s)",
		    err.line, err.column, err.text);
		return NULL;
	}
	if (!json_is_object(j)) {
		kb_err_set(e, "the file is a JSON %s, not an object",
		    json_is_array(j) ? "array" : "value");
		json_decref(j);
		return NULL;
	}
	return j;
}

static const char *
kind(const json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
		return "true";
	case JSON_FALSE:
		return "false";
	case JSON_NULL:
		break;
	}
	return "null";
}

/* the event array `arr` of an entry: groups of handlers (Cursor: the
 * handlers), each an object, a group's "hooks" an array of objects */
static int
check_event(
    const json_t *arr, enum kb_agent agent, const char *event, struct kb_err *e)
{
	size_t i, j;
	json_t *g, *h, *hs;

	json_array_foreach(arr, i, g)
	{
		if (!json_is_object(g))
			return kb_err_set(e,
			    "hooks.%s[%zu] is %s, not an object (a %s)", event,
			    i, kind(g),
			    agent == KB_AGENT_CURSOR ? "hook"
						     : "matcher group");
		if (agent == KB_AGENT_CURSOR)
			continue;
		hs = json_object_get(g, "hooks");
		if (hs == NULL)
			continue;
		if (!json_is_array(hs))
			return kb_err_set(e,
			    "hooks.%s[%zu].hooks is %s, not an array", event, i,
			    kind(hs));
		json_array_foreach(hs, j, h)
		{
			if (!json_is_object(h))
				return kb_err_set(e,
				    "hooks.%s[%zu].hooks[%zu] is %s, not an "
				    "object",
				    event, i, j, kind(h));
		}
	}
	return 0;
}

/* what take_out() took out of an event array */
struct taken {
	size_t n;        /* handlers */
	char *was;       /* the first one's command */
	char *rest;      /* and the options it passed */
	json_t *handler; /* a copy of it */
	json_t *group;   /* a copy of the first group that went with them */
	long pos;        /* where that group was; -1 */
};

static void
taken_free(struct taken *t)
{
	free(t->was);
	free(t->rest);
	json_decref(t->handler);
	json_decref(t->group);
}

/* is `h` a handler of kinpolicy's hook command? (*rest as is_ours) */
static bool
ours(const json_t *h, enum kb_agent agent, const char **rest)
{
	const json_t *c =
	    json_is_object(h) ? json_object_get(h, "command") : NULL;

	return json_is_string(c) &&
	       kb_hookinstall_is_ours(json_string_value(c), agent, rest);
}

static void
note(struct taken *t, const json_t *h, const char *rest)
{
	if (t->n++ > 0)
		return;
	t->was = xstrdup(json_string_value(json_object_get(h, "command")));
	t->rest = xstrdup(rest);
	t->handler = json_deep_copy(h);
}

/* takes kinpolicy's handlers out of the event array `arr`, and the groups
 * they leave empty; what is not a group or handler object is left */
static void
take_out(json_t *arr, enum kb_agent agent, struct taken *t)
{
	const char *rest;

	t->pos = -1;
	for (size_t i = 0; i < json_array_size(arr);) {
		json_t *g = json_array_get(arr, i), *hs;
		size_t took = 0;

		if (agent == KB_AGENT_CURSOR) {
			if (ours(g, agent, &rest)) {
				note(t, g, rest);
				if (t->pos < 0)
					t->pos = (long)i;
				json_array_remove(arr, i);
				continue;
			}
			i++;
			continue;
		}
		hs = json_is_object(g) ? json_object_get(g, "hooks") : NULL;
		if (!json_is_array(hs)) {
			i++;
			continue;
		}
		for (size_t j = 0; j < json_array_size(hs);) {
			json_t *h = json_array_get(hs, j);

			if (ours(h, agent, &rest)) {
				note(t, h, rest);
				json_array_remove(hs, j);
				took++;
				continue;
			}
			j++;
		}
		if (took > 0 && json_array_size(hs) == 0) {
			if (t->pos < 0) {
				t->pos = (long)i;
				t->group = json_deep_copy(g);
			}
			json_array_remove(arr, i);
			continue;
		}
		i++;
	}
}

static void
kp_json_set(json_t *o, const char *k, json_t *v)
{
	if (v == NULL || json_object_set_new(o, k, v) == -1)
		die("out of memory");
}

/* The entry's handler: the one it replaces (other keys it has are kept),
 * with the type, the command (and the options the old one passed) and
 * the entry's timeout */
static json_t *
make_handler(enum kb_agent agent, const struct kb_hookinstall_entry *en,
    const char *command, const struct taken *t)
{
	json_t *h =
	    t->handler != NULL ? json_deep_copy(t->handler) : json_object();
	_cleanup_free_ char *cmd =
	    xasprintf("%s%s", command, t->rest != NULL ? t->rest : "");

	if (h == NULL)
		die("out of memory");
	if (agent != KB_AGENT_CURSOR)
		kp_json_set(h, "type", json_string("command"));
	kp_json_set(h, "command", json_string(cmd));
	if (en->timeout > 0)
		kp_json_set(h, "timeout", json_integer(en->timeout));
	return h;
}

/* the entry's matcher group around `h` (Cursor: h itself): the group it
 * replaces, when one went, with the entry's matcher */
static json_t *
make_item(enum kb_agent agent, const struct kb_hookinstall_entry *en, json_t *h,
    const struct taken *t)
{
	json_t *g, *hs;

	if (agent == KB_AGENT_CURSOR)
		return h;
	g = t->group != NULL ? json_deep_copy(t->group) : json_object();
	hs = json_array();
	if (g == NULL || hs == NULL || json_array_append_new(hs, h) == -1)
		die("out of memory");
	if (en->matcher != NULL)
		kp_json_set(g, "matcher", json_string(en->matcher));
	else
		json_object_del(g, "matcher");
	kp_json_set(g, "hooks", hs);
	return g;
}

int
kb_hookinstall_install(json_t *doc, enum kb_agent agent, const char *command,
    struct kb_hookinstall_report *r, struct kb_err *e)
{
	size_t n;
	const struct kb_hookinstall_entry *en =
	    kb_hookinstall_entries(agent, &n);
	json_t *hooks;

	r->n = 0;
	if (!json_is_object(doc))
		return kb_err_set(e, "the file is not a JSON object");
	if (agent == KB_AGENT_CURSOR) {
		json_t *v = json_object_get(doc, "version");

		if (v == NULL) {
			kp_json_set(doc, "version", json_integer(1));
			report_add(r, "version", KB_HI_ADDED, NULL, 0);
		} else if (!json_is_integer(v) || json_integer_value(v) != 1) {
			return kb_err_set(e,
			    "\"version\" is %s other than 1; kinpolicy "
			    "writes version 1 of Cursor's hooks.json",
			    kind(v));
		}
	}
	hooks = json_object_get(doc, "hooks");
	if (hooks == NULL) {
		hooks = json_object();
		kp_json_set(doc, "hooks", hooks);
	} else if (!json_is_object(hooks)) {
		return kb_err_set(
		    e, "\"hooks\" is %s, not an object", kind(hooks));
	}
	/* every event first: nothing is changed in a file refused */
	for (size_t i = 0; i < n; i++) {
		json_t *arr = json_object_get(hooks, en[i].event);

		if (arr != NULL && !json_is_array(arr))
			return kb_err_set(e, "hooks.%s is %s, not an array",
			    en[i].event, kind(arr));
		if (arr != NULL &&
		    check_event(arr, agent, en[i].event, e) == -1)
			return -1;
	}
	for (size_t i = 0; i < n; i++) {
		json_t *arr = json_object_get(hooks, en[i].event), *before;
		struct taken t = {0};
		json_t *item;

		if (arr == NULL) {
			arr = json_array();
			kp_json_set(hooks, en[i].event, arr);
		}
		before = json_deep_copy(arr);
		take_out(arr, agent, &t);
		item = make_item(agent, &en[i],
		    make_handler(agent, &en[i], command, &t), &t);
		if ((t.pos >= 0
			    ? json_array_insert_new(arr, (size_t)t.pos, item)
			    : json_array_append_new(arr, item)) == -1)
			die("out of memory");
		if (t.n == 0)
			report_add(r, en[i].event, KB_HI_ADDED, NULL, 0);
		else if (json_equal(before, arr))
			report_add(r, en[i].event, KB_HI_SAME, NULL, 0);
		else
			report_add(r, en[i].event, KB_HI_UPDATED, t.was, t.n);
		json_decref(before);
		taken_free(&t);
	}
	return 0;
}

int
kb_hookinstall_uninstall(json_t *doc, enum kb_agent agent,
    struct kb_hookinstall_report *r, struct kb_err *e)
{
	size_t n;
	const struct kb_hookinstall_entry *en =
	    kb_hookinstall_entries(agent, &n);
	json_t *hooks, *arr;
	const char *key;
	void *tmp;

	r->n = 0;
	if (!json_is_object(doc))
		return kb_err_set(e, "the file is not a JSON object");
	hooks = json_object_get(doc, "hooks");
	if (hooks == NULL)
		return 0;
	if (!json_is_object(hooks))
		return kb_err_set(
		    e, "\"hooks\" is %s, not an object", kind(hooks));
	if (json_object_size(hooks) == 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		arr = json_object_get(hooks, en[i].event);
		if (arr != NULL && !json_is_array(arr))
			return kb_err_set(e, "hooks.%s is %s, not an array",
			    en[i].event, kind(arr));
		if (arr != NULL &&
		    check_event(arr, agent, en[i].event, e) == -1)
			return -1;
	}
	json_object_foreach_safe(hooks, tmp, key, arr)
	{
		struct taken t = {0};
		size_t had = json_array_size(arr);

		if (!json_is_array(arr))
			continue;
		take_out(arr, agent, &t);
		if (t.n > 0) {
			report_add(r, key, KB_HI_REMOVED, t.was, t.n);
			if (had > 0 && json_array_size(arr) == 0)
				json_object_del(hooks, key);
		}
		taken_free(&t);
	}
	if (json_object_size(hooks) == 0)
		json_object_del(doc, "hooks");
	return 0;
}

/* a real with the fewest significant digits that read back to it, with a
 * ".0" when it would look like an integer (as jansson writes reals) */
static void
put_real(struct kb_buf *b, double v)
{
	char s[64];

	for (int prec = 1; prec <= 17; prec++) {
		snprintf(s, sizeof(s), "%.*g", prec, v);
		if (strtod(s, NULL) == v)
			break;
	}
	kb_buf_puts(b, s);
	if (strpbrk(s, ".eEn") == NULL) /* n: inf, nan (JSON has neither) */
		kb_buf_puts(b, ".0");
}

/* a JSON string: its UTF-8 as it is, ", \ and the C0 controls escaped */
static void
put_string(struct kb_buf *b, const char *s, size_t n)
{
	kb_buf_puts(b, "\"");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '"':
			kb_buf_puts(b, "\\\"");
			break;
		case '\\':
			kb_buf_puts(b, "\\\\");
			break;
		case '\b':
			kb_buf_puts(b, "\\b");
			break;
		case '\f':
			kb_buf_puts(b, "\\f");
			break;
		case '\n':
			kb_buf_puts(b, "\\n");
			break;
		case '\r':
			kb_buf_puts(b, "\\r");
			break;
		case '\t':
			kb_buf_puts(b, "\\t");
			break;
		default:
			if (c < 0x20)
				kb_buf_printf(b, "\\u%04x", c);
			else
				kb_buf_add(b, &s[i], 1);
		}
	}
	kb_buf_puts(b, "\"");
}

static void
indent(struct kb_buf *b, int depth)
{
	kb_buf_puts(b, "\n");
	for (int i = 0; i < depth; i++)
		kb_buf_puts(b, "  ");
}

static void
put_value(struct kb_buf *b, const json_t *j, int depth)
{
	const char *k;
	json_t *v;
	size_t i, n;

	switch (json_typeof(j)) {
	case JSON_OBJECT:
		if (json_object_size(j) == 0) {
			kb_buf_puts(b, "{}");
			break;
		}
		kb_buf_puts(b, "{");
		n = 0;
		json_object_foreach((json_t *)j, k, v)
		{
			if (n++ > 0)
				kb_buf_puts(b, ",");
			indent(b, depth + 1);
			put_string(b, k, strlen(k));
			kb_buf_puts(b, ": ");
			put_value(b, v, depth + 1);
		}
		indent(b, depth);
		kb_buf_puts(b, "}");
		break;
	case JSON_ARRAY:
		if (json_array_size(j) == 0) {
			kb_buf_puts(b, "[]");
			break;
		}
		kb_buf_puts(b, "[");
		json_array_foreach(j, i, v)
		{
			if (i > 0)
				kb_buf_puts(b, ",");
			indent(b, depth + 1);
			put_value(b, v, depth + 1);
		}
		indent(b, depth);
		kb_buf_puts(b, "]");
		break;
	case JSON_STRING:
		put_string(b, json_string_value(j), json_string_length(j));
		break;
	case JSON_INTEGER:
		kb_buf_printf(
		    b, "%" JSON_INTEGER_FORMAT, json_integer_value(j));
		break;
	case JSON_REAL:
		put_real(b, json_real_value(j));
		break;
	case JSON_TRUE:
		kb_buf_puts(b, "true");
		break;
	case JSON_FALSE:
		kb_buf_puts(b, "false");
		break;
	case JSON_NULL:
		kb_buf_puts(b, "null");
		break;
	}
}

char *
kb_hookinstall_dump(const json_t *doc)
{
	struct kb_buf b = {0};

	kb_buf_add(&b, "", 0);
	put_value(&b, doc, 0);
	kb_buf_puts(&b, "\n");
	return b.s;
}

const char *
kb_hookinstall_disabled(const json_t *doc, enum kb_agent agent)
{
	switch (agent) {
	case KB_AGENT_CLAUDE:
		if (json_is_true(json_object_get(doc, "disableAllHooks")))
			return "\"disableAllHooks\": true turns every hook off";
		break;
	case KB_AGENT_GEMINI:
		if (json_is_false(json_object_get(
			json_object_get(doc, "hooksConfig"), "enabled")))
			return "\"hooksConfig\": {\"enabled\": false} turns "
			       "every hook off";
		break;
	case KB_AGENT_CODEX:
	case KB_AGENT_CURSOR:
		break;
	}
	return NULL;
}

/* `s` without blanks, into out (at most len bytes) */
static void
squeeze(const char *s, size_t n, char *out, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 1 < len; i++)
		if (!blank(s[i]))
			out[o++] = s[i];
	out[o] = '\0';
}

size_t
kb_hookinstall_codex_off(const char *toml)
{
	const char *p = toml;
	bool top = true, features = false;
	size_t lineno = 0;

	while (*p != '\0') {
		const char *nl = strchr(p, '\n');
		size_t len = nl != NULL ? (size_t)(nl - p) : strlen(p), cut = 0;
		char q = 0, line[512], key[256], val[256];
		const char *eq;

		lineno++;
		/* the line up to a # outside quotes */
		for (; cut < len; cut++) {
			if (q != 0 && p[cut] == q)
				q = 0;
			else if (q == 0 && (p[cut] == '"' || p[cut] == '\''))
				q = p[cut];
			else if (q == 0 && p[cut] == '#')
				break;
		}
		squeeze(p, cut, line, sizeof(line));
		p = nl != NULL ? nl + 1 : p + len;
		if (line[0] == '[') {
			top = false;
			features = strcmp(line, "[features]") == 0 ||
				   strcmp(line, "[\"features\"]") == 0;
			continue;
		}
		if ((eq = strchr(line, '=')) == NULL)
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)(eq - line), line);
		snprintf(val, sizeof(val), "%s", eq + 1);
		if (features && strcmp(val, "false") == 0 &&
		    (strcmp(key, "hooks") == 0 ||
			strcmp(key, "codex_hooks") == 0 ||
			strcmp(key, "\"hooks\"") == 0 ||
			strcmp(key, "\"codex_hooks\"") == 0))
			return lineno;
		if (top && strcmp(val, "false") == 0 &&
		    (strcmp(key, "features.hooks") == 0 ||
			strcmp(key, "features.codex_hooks") == 0))
			return lineno;
		if (top && strcmp(key, "features") == 0 && val[0] == '{' &&
		    strstr(val, "hooks=false") != NULL)
			return lineno;
	}
	return 0;
}

#define PREFIX_KEY "CLAUDE_CODE_SHELL_PREFIX"

bool
kb_hookinstall_prefix_is_ours(const char *prefix)
{
	struct kb_buf w = {0};
	const char *rest = prefix != NULL ? kp_literal_word(prefix, &w) : NULL;
	const char *b;
	bool ours = false;

	if (rest != NULL && w.s != NULL) {
		b = strrchr(w.s, '/');
		b = b != NULL ? b + 1 : w.s;
		while (blank(*rest))
			rest++;
		ours = strcmp(b, "kinbox-sh") == 0 &&
		       strncmp(rest, "--claude-code", 13) == 0 &&
		       (rest[13] == '\0' || blank(rest[13]));
	}
	kb_buf_free(&w);
	return ours;
}

int
kb_hookinstall_claude_prefix(json_t *doc, const char *prefix,
    struct kb_hookinstall_report *r, const char **other, struct kb_err *e)
{
	json_t *env = json_object_get(doc, "env"), *cur;
	const char *was;

	if (other != NULL)
		*other = NULL;
	if (env != NULL && !json_is_object(env))
		return kb_err_set(e, "\"env\" is %s, not an object", kind(env));
	cur = env != NULL ? json_object_get(env, PREFIX_KEY) : NULL;
	was = json_is_string(cur) ? json_string_value(cur) : NULL;
	if (prefix == NULL) {
		if (was == NULL || !kb_hookinstall_prefix_is_ours(was))
			return 0;
		report_add(r, "env." PREFIX_KEY, KB_HI_REMOVED, was, 1);
		json_object_del(env, PREFIX_KEY);
		if (json_object_size(env) == 0)
			json_object_del(doc, "env");
		return 0;
	}
	if (cur != NULL &&
	    (was == NULL || !kb_hookinstall_prefix_is_ours(was))) {
		if (other != NULL)
			*other = was != NULL ? was : "(not a string)";
		return 0;
	}
	if (was != NULL && strcmp(was, prefix) == 0) {
		report_add(r, "env." PREFIX_KEY, KB_HI_SAME, NULL, 0);
		return 0;
	}
	if (env == NULL) {
		env = json_object();
		kp_json_set(doc, "env", env);
	}
	report_add(r, "env." PREFIX_KEY,
	    was != NULL ? KB_HI_UPDATED : KB_HI_ADDED, was, 1);
	kp_json_set(env, PREFIX_KEY, json_string(prefix));
	return 0;
}
