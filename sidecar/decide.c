/*
 * sidecar/decide.c — kinpolicy's permission gate: the mode × kind table and
 * the chain around it (planning freeze, sandbox, classifier, edit targets,
 * session grants). Pure: the only file system access is the path
 * resolution of kb_check_write(); the classifier and the session grants are
 * callbacks. Whatever it cannot judge ends in ASK, never in ALLOW.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide.h"

/* What the mode table says of a kind, before the chain refines it. */
enum action {
	ACT_ALLOW,
	ACT_ASK,
	ACT_SANDBOX, /* ALLOW under kinbox when a backend works, else AUTO */
	ACT_AUTO, /* the classifier: provably read-only → ALLOW, else ASK */
};

/* clang-format off */
static const struct {
	enum kb_mode mode;
	enum kb_kind kind;
	enum action action;
} mode_table[] = {
	{ KB_MODE_AUTO,   KB_KIND_READ,    ACT_ALLOW },
	{ KB_MODE_AUTO,   KB_KIND_META,    ACT_ALLOW },
	{ KB_MODE_AUTO,   KB_KIND_EDIT,    ACT_ALLOW },
	{ KB_MODE_AUTO,   KB_KIND_SHELL,   ACT_SANDBOX },
	{ KB_MODE_AUTO,   KB_KIND_MCP,     ACT_ASK },
	{ KB_MODE_AUTO,   KB_KIND_NETWORK, ACT_ALLOW },
	{ KB_MODE_AUTO,   KB_KIND_RIG,     ACT_ALLOW },
	{ KB_MODE_AUTO,   KB_KIND_OUTPOST, ACT_ALLOW },
	{ KB_MODE_AUTO,   KB_KIND_PUBLISH, ACT_ALLOW },

	{ KB_MODE_STRICT, KB_KIND_READ,    ACT_ALLOW },
	{ KB_MODE_STRICT, KB_KIND_META,    ACT_ALLOW },
	{ KB_MODE_STRICT, KB_KIND_EDIT,    ACT_ASK },
	{ KB_MODE_STRICT, KB_KIND_SHELL,   ACT_AUTO },
	{ KB_MODE_STRICT, KB_KIND_MCP,     ACT_ASK },
	{ KB_MODE_STRICT, KB_KIND_NETWORK, ACT_ASK },
	{ KB_MODE_STRICT, KB_KIND_RIG,     ACT_ASK },
	{ KB_MODE_STRICT, KB_KIND_OUTPOST, ACT_ASK },
	{ KB_MODE_STRICT, KB_KIND_PUBLISH, ACT_ASK },
};

static const char *const kind_names[] = {
	[KB_KIND_READ]    = "read",
	[KB_KIND_EDIT]    = "edit",
	[KB_KIND_SHELL]   = "shell",
	[KB_KIND_META]    = "meta",
	[KB_KIND_MCP]     = "mcp",
	[KB_KIND_NETWORK] = "network",
	[KB_KIND_RIG]     = "rig",
	[KB_KIND_OUTPOST] = "outpost",
	[KB_KIND_PUBLISH] = "publish",
};
/* clang-format on */

int
kb_kind_parse(const char *s, enum kb_kind *out)
{
	*out = KB_KIND_INVALID;
	if (s == NULL)
		return -1;
	for (size_t i = 0; i < nitems(kind_names); i++) {
		if (kind_names[i] != NULL && strcmp(s, kind_names[i]) == 0) {
			*out = (enum kb_kind)i;
			return 0;
		}
	}
	return -1;
}

const char *
kb_kind_name(enum kb_kind k)
{
	if ((size_t)k < nitems(kind_names) && kind_names[k] != NULL)
		return kind_names[k];
	return "invalid";
}

static void kp_decide_set(struct kb_decide_out *out, enum kb_verdict v,
    const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
kp_decide_set(struct kb_decide_out *out, enum kb_verdict v, const char *rule,
    const char *fmt, ...)
{
	va_list ap;

	out->verdict = v;
	snprintf(out->rule, sizeof(out->rule), "%s", rule);
	va_start(ap, fmt);
	vsnprintf(out->reason, sizeof(out->reason), fmt, ap);
	va_end(ap);
	/* one line: the kind, tool and path come from the agent */
	for (char *s = out->reason; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

/* -1 when the table has no row: the caller fails closed. */
static int
lookup(enum kb_mode mode, enum kb_kind kind, enum action *act)
{
	for (size_t i = 0; i < nitems(mode_table); i++) {
		if (mode_table[i].mode == mode && mode_table[i].kind == kind) {
			*act = mode_table[i].action;
			return 0;
		}
	}
	return -1;
}

/* kind, or kind:tool; NULL when out of memory (then no grant applies). */
static char *
signature_of(enum kb_kind kind, const char *tool)
{
	char *s = NULL;

	if (tool == NULL || tool[0] == '\0')
		return strdup(kb_kind_name(kind));
	if (asprintf(&s, "%s:%s", kb_kind_name(kind), tool) == -1)
		return NULL;
	return s;
}

/* AUTO: the classifier says whether the command is provably read-only. */
static void
kp_classify(const struct kb_decide_in *in, struct kb_decide_out *out)
{
	char reason[200] = "";
	bool safe;

	if (in->command == NULL) {
		kp_decide_set(
		    out, KB_ASK, "classifier", "no command to classify");
		return;
	}
	if (in->classify == NULL) {
		kp_decide_set(
		    out, KB_ASK, "classifier", "no read-only classifier");
		return;
	}
	safe = in->classify(in->command, &out->signature, &out->rewritten,
	    reason, sizeof(reason), in->ctx);
	reason[sizeof(reason) - 1] = '\0';
	if (safe)
		kp_decide_set(out, KB_ALLOW, "classifier", "%s",
		    reason[0] != '\0' ? reason : "provably read-only");
	else
		kp_decide_set(out, KB_ASK, "classifier",
		    "not provably read-only%s%s", reason[0] != '\0' ? ": " : "",
		    reason);
}

/*
 * An edit's target, through kb_check_write(): raises the verdict (outside
 * the workspace or a secret → DENY, a protected path or other hard links
 * → ASK), never lowers it, and then names check-write's rule: one name
 * for one rule in both verbs. Clears *liftable when the ASK is one no
 * session grant may lift.
 */
static void
judge_edit(
    const struct kb_decide_in *in, struct kb_decide_out *out, bool *liftable)
{
	struct kb_cw cw;
	struct kb_err e = {{0}};

	if (in->path == NULL) {
		kp_decide_set(
		    out, KB_ASK, "edit-no-path", "no target path to judge");
		*liftable = false;
		return;
	}
	/* Without a workspace, "/" lets the secret and protected rules
	 * run; the containment it skips turns an ALLOW into an ASK below. */
	if (kb_check_write(in->path, in->cwd,
		in->workspace != NULL ? in->workspace : "/", NULL, 0, in->home,
		in->mode, &cw, &e) == -1) {
		kp_decide_set(out, KB_ASK, "path-unresolved", "%s", e.msg);
		*liftable = false;
		return;
	}
	switch (cw.verdict) {
	case KB_DENY:
		kp_decide_set(out, KB_DENY, cw.rule, "%s", cw.reason);
		*liftable = false;
		return;
	case KB_ASK:
		/* strict mode's ASK is the mode table's, which stands (and a
		 * session may lift); any other is about this target: a
		 * protected path, or a file whose other hard links may lie
		 * outside the workspace, which an "always" for edits never
		 * looked at */
		if (strcmp(cw.rule, "strict") != 0) {
			kp_decide_set(out, KB_ASK, cw.rule, "%s", cw.reason);
			*liftable = false;
		}
		break;
	case KB_ALLOW:
		break;
	}
	if (in->workspace == NULL && (out->verdict == KB_ALLOW || *liftable)) {
		kp_decide_set(out, KB_ASK, "no-workspace",
		    "no workspace to hold %s in", cw.resolved);
		*liftable = false;
	}
}

int
kb_decide(const struct kb_decide_in *in, struct kb_decide_out *out)
{
	enum kb_kind kind;
	enum action act;
	bool liftable = false;

	if (out == NULL)
		return -1;
	memset(out, 0, sizeof(*out));
	if (in == NULL) {
		kp_decide_set(
		    out, KB_ASK, "invalid-kind", "no request to judge");
		return 0;
	}

	/* 1. An unknown kind: a new tool the gate was not taught about. */
	if (kb_kind_parse(in->kind, &kind) == -1) {
		kp_decide_set(out, KB_ASK, "invalid-kind",
		    "unknown kind '%s': asking instead of guessing",
		    in->kind != NULL ? in->kind : "(none)");
		return 0;
	}
	if (kind != KB_KIND_SHELL)
		out->signature = signature_of(kind, in->tool);

	/*
	 * 2. Planning freeze: an overlay before the mode, nothing with an
	 * effect runs. An MCP tool adapted as read-only is a read (3) and
	 * runs like one: the same hint that lets it run unasked in strict
	 * mode vouches for it here.
	 */
	if (in->planning && kind == KB_KIND_SHELL && in->read_only_run &&
	    in->sandbox_available) {
		/* under kinbox --read-only the kernel keeps it from writing
		 * anything but its private /tmp: whatever it is, it runs */
		kp_decide_set(out, KB_ALLOW, "planning-read-only",
		    "planning: it runs under kinbox --read-only, which lets it "
		    "write nothing");
		out->read_only = true;
		return 0;
	}
	if (in->planning && kind == KB_KIND_SHELL) {
		/* a command the classifier proves read-only changes nothing:
		 * it runs while planning (under kinbox, where the caller
		 * wraps it), as a read would */
		kp_classify(in, out);
		if (out->verdict == KB_ALLOW) {
			char why[sizeof(out->reason)];

			snprintf(why, sizeof(why), "%s", out->reason);
			kp_decide_set(out, KB_ALLOW, "planning-read-only",
			    "planning: %s, so it runs", why);
			return 0;
		}
		kb_decide_out_free(out);
	}
	if (in->planning && kind != KB_KIND_READ && kind != KB_KIND_META &&
	    !(kind == KB_KIND_MCP && in->read_only_hint)) {
		kp_decide_set(out, KB_DENY, "planning-freeze",
		    "planning: %s calls wait until the plan is approved",
		    kb_kind_name(kind));
		return 0;
	}

	/* 3. MCP: a read when adapted as read-only, else always asked. */
	if (kind == KB_KIND_MCP && in->read_only_hint) {
		kp_decide_set(out, KB_ALLOW, "mcp-read-only-hint",
		    "the MCP tool is adapted as read-only: it counts as a "
		    "read");
		return 0;
	}

	/* 4. The mode table. */
	if (lookup(in->mode, kind, &act) == -1) {
		kp_decide_set(out, KB_ASK, "mode-table",
		    "no rule for %s in this mode", kb_kind_name(kind));
		return 0;
	}
	if (act == ACT_SANDBOX && in->sandbox_available) {
		kp_decide_set(out, KB_ALLOW, "sandbox",
		    "auto mode: the command runs under kinbox's sandbox");
		return 0;
	}
	switch (act) {
	case ACT_ALLOW:
		kp_decide_set(out, KB_ALLOW, "mode-table",
		    "%s mode allows %s calls", kb_mode_name(in->mode),
		    kb_kind_name(kind));
		break;
	case ACT_ASK:
		if (kind == KB_KIND_MCP)
			kp_decide_set(out, KB_ASK, "mcp",
			    "MCP tools ask in every mode "
			    "unless adapted as read-only");
		else
			kp_decide_set(out, KB_ASK, "mode-table",
			    "%s mode asks before "
			    "%s calls",
			    kb_mode_name(in->mode), kb_kind_name(kind));
		liftable = true;
		break;
	case ACT_SANDBOX: /* no sandbox: the classifier decides */
	case ACT_AUTO:
		kp_classify(in, out);
		liftable = true;
		break;
	}

	/* 5. An edit's target may only make the verdict stricter. */
	if (kind == KB_KIND_EDIT)
		judge_edit(in, out, &liftable);

	/* 6. A human's "always" lifts an ASK, never a DENY. */
	if (out->verdict == KB_ASK && liftable && out->signature != NULL &&
	    in->session_allows != NULL &&
	    in->session_allows(kb_kind_name(kind), out->signature, in->ctx)) {
		kp_decide_set(out, KB_ALLOW, "session-always",
		    "a session \"always\" grant covers %s", out->signature);
		/* the human allowed the command as given */
		free(out->rewritten);
		out->rewritten = NULL;
	}
	return 0;
}

void
kb_decide_out_free(struct kb_decide_out *out)
{
	if (out == NULL)
		return;
	free(out->signature);
	out->signature = NULL;
	free(out->rewritten);
	out->rewritten = NULL;
}
