/*
 * sidecar/kinpolicy-gate.c — the permission gate for agent harnesses: decide
 * (the chain in sidecar/decide.c), classify (classify/readonly.c), check-write
 * (sidecar/checkwrite.c) and allow (a session's "always" answers). With
 * --exit-status the first three say their verdict in the exit status too
 * (sidecar/kinpolicy.h), for a hook that only looks at $?.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bsd/stdlib.h>
#include <sha2.h>
#include <jansson.h>

#include "../classify/denial.h"
#include "../classify/readonly.h"
#include "../classify/report.h"
#include "../host/status.h"
#include "../lib/util.h"
#include "../profile/config.h"
#include "../profile/policy.h"
#include "decide.h"
#include "grants.h"
#include "kinpolicy-journal.h"
#include "kinpolicy.h"

/* --exit-status: the verdict as the exit status (sidecar/kinpolicy.h) */
static int
verdict_status(enum kb_verdict v)
{
	switch (v) {
	case KB_ALLOW:
		return KP_EXIT_ALLOW;
	case KB_ASK:
		return KP_EXIT_ASK;
	case KB_DENY:
		return KP_EXIT_DENY;
	}
	return KP_EXIT_DENY; /* NOTREACHED: an unknown verdict fails closed */
}

/* --shell NAME: the shell that will run the command */
static enum kb_ro_shell
shell_arg(const char *name)
{
	enum kb_ro_shell shell;

	if (kb_ro_shell_parse(name, &shell) == -1)
		die("--shell %s: unknown shell; use any, sh, bash or zsh",
		    name);
	return shell;
}

int
cmd_classify(int argc, char **argv)
{
	bool json = kp_want_flag(&argc, argv, "--json");
	bool status = kp_want_flag(&argc, argv, "--exit-status");
	bool have_shell = false;
	enum kb_ro_shell shell = KB_RO_SHELL_ANY;
	const char *command = NULL;
	struct kb_ro_verdict v;
	struct kb_buf cmd = {0};
	int i = 1, rc;

	for (; i < argc && strcmp(argv[i], "--") != 0; i += 2) {
		if (i + 1 == argc)
			kp_usage("classify");
		if (strcmp(argv[i], "--shell") == 0 && !have_shell) {
			shell = shell_arg(argv[i + 1]);
			have_shell = true;
		} else if (strcmp(argv[i], "--command") == 0 && command == NULL)
			command = argv[i + 1];
		else
			kp_usage("classify");
	}
	if (command != NULL && i == argc) {
		kb_buf_puts(&cmd, command);
	} else if (command == NULL && i + 1 < argc) {
		/* argv form: quoted back into one shell string, so that it is
		 * judged exactly as the shell would see it */
		for (int k = i + 1; k < argc; k++) {
			if (k > i + 1)
				kb_buf_puts(&cmd, " ");
			kb_buf_shquote(&cmd, argv[k]);
		}
	} else {
		kp_usage("classify");
	}
	kb_readonly_classify_as(cmd.s, cmd.len, shell, &v);
	if (json) {
		json_t *o = json_pack("{s:b,s:o,s:s}", "safe", v.safe, "reason",
		    kp_json_text(v.safe ? "" : v.reason), "shell",
		    kb_ro_shell_name(shell));

		if (o == NULL)
			die("out of memory");
		/* a signature is given back exactly or not at all: one that
		 * is not UTF-8 (the raw command text) is left out */
		json_object_set_new(o, "signature",
		    json_string(v.signature != NULL ? v.signature : ""));
		/* valid UTF-8 when the input was: the input plus ASCII */
		if (v.rewritten != NULL)
			json_object_set_new(
			    o, "rewritten", json_string(v.rewritten));
		kp_dump_json(o);
		json_decref(o);
	} else {
		/* the reason and the signature quote the command */
		if (v.safe)
			printf("safe\n");
		else
			kp_print_esc("unsafe: ", v.reason);
		if (v.rewritten != NULL)
			kp_print_esc("rewritten: ", v.rewritten);
		kp_print_esc("signature: ", v.signature);
		printf("shell: %s\n", kb_ro_shell_name(shell));
	}
	/* not provably read-only is what decide asks about */
	rc = !status ? 0 : v.safe ? KP_EXIT_ALLOW : KP_EXIT_ASK;
	kb_ro_verdict_free(&v);
	kb_buf_free(&cmd);
	return rc;
}

/* what decide's callbacks need */
struct gate_ctx {
	const char *session;
	enum kb_ro_shell shell;
};

static bool
classify_cb(const char *command, char **signature, char **rewritten,
    char *reason, size_t reasonlen, void *ctx)
{
	const struct gate_ctx *g = ctx;
	struct kb_ro_verdict v;
	bool safe;

	kb_readonly_classify_as(command, strlen(command), g->shell, &v);
	safe = v.safe;
	snprintf(
	    reason, reasonlen, "%s", v.safe ? "provably read-only" : v.reason);
	*signature = steal_pointer(&v.signature);
	*rewritten = steal_pointer(&v.rewritten);
	kb_ro_verdict_free(&v);
	return safe;
}

/*
 * The session's [always] answers, read by the one INI reader: a block
 * allows when its kind and its signature both match exactly. A signature
 * that the reader could not give back exactly (too long for a line, a
 * comment character, surrounding blanks) is stored as its SHA-256
 * (signature_sha256), which kinpolicy allow writes instead.
 */
struct always {
	const char *kind, *signature;
	char sha[SHA256_DIGEST_STRING_LENGTH];
	bool in, kind_ok, sig_ok, hit;
};

static void
always_close(struct always *a)
{
	if (a->in && a->kind_ok && a->sig_ok)
		a->hit = true;
	a->in = a->kind_ok = a->sig_ok = false;
}

static int
always_section(void *ctx, const char *name, int line, struct kb_err *e)
{
	struct always *a = ctx;

	(void)line;
	(void)e;
	always_close(a);
	a->in = strcmp(name, "always") == 0;
	return 0;
}

static int
always_entry(void *ctx, const char *section, const char *key, const char *v,
    int line, struct kb_err *e)
{
	struct always *a = ctx;

	(void)section;
	(void)line;
	(void)e;
	if (!a->in)
		return 0;
	if (strcmp(key, "kind") == 0)
		a->kind_ok = strcmp(v, a->kind) == 0;
	else if (strcmp(key, "signature") == 0)
		a->sig_ok = strcmp(v, a->signature) == 0;
	else if (strcmp(key, "signature_sha256") == 0)
		a->sig_ok = strcmp(v, a->sha) == 0;
	return 0;
}

static bool
session_allows_cb(const char *kind, const char *signature, void *ctx)
{
	static const struct kb_ini_visitor v = {always_section, always_entry};
	const char *session = ((const struct gate_ctx *)ctx)->session;
	_cleanup_free_ char *file = NULL;
	struct always a = {.kind = kind, .signature = signature};
	struct kb_err e;

	if (session == NULL || signature == NULL || !kb_session_id_ok(session))
		return false;
	file = kb_config_session_path(session);
	if (file == NULL)
		return false;
	SHA256Data((const uint8_t *)signature, strlen(signature), a.sha);
	/* a store that cannot be read whole allows nothing */
	if (kb_ini_read(file, false, &v, &a, &e) != 0)
		return false;
	always_close(&a);
	return a.hit;
}

/* kinpolicy hook's way into the chain: decide's callbacks (the read-only
 * classifier for `shell`, the session's "always" answers) for `in` */
void
kp_gate_decide(struct kb_decide_in *in, const char *session,
    enum kb_ro_shell shell, struct kb_decide_out *out)
{
	struct gate_ctx gctx = {.shell = shell, .session = session};

	in->classify = classify_cb;
	in->session_allows = session_allows_cb;
	in->ctx = &gctx;
	kb_decide(in, out);
	in->ctx = NULL;
}

int
cmd_decide(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"command", required_argument, NULL, 'c'},
	    {"exit-status", no_argument, NULL, 'e'},
	    {"json", no_argument, NULL, 'j'},
	    {"kind", required_argument, NULL, 'k'},
	    {"mode", required_argument, NULL, 'm'},
	    {"path", required_argument, NULL, 'p'},
	    {"planning", no_argument, NULL, 'P'},
	    {"read-only-hint", no_argument, NULL, 'r'},
	    {"session", required_argument, NULL, 's'},
	    {"shell", required_argument, NULL, 'S'},
	    {"tool", required_argument, NULL, 't'},
	    {"workspace", required_argument, NULL, 'C'},
	    {NULL, 0, NULL, 0},
	};
	struct kb_decide_in in = {0};
	struct kb_decide_out out;
	_cleanup_free_ char *home = kb_paths_home();
	_cleanup_free_ char *ws = NULL;
	_cleanup_free_ char *cwd = NULL;
	const char *session = getenv("KINBOX_SESSION");
	struct gate_ctx gctx = {.shell = KB_RO_SHELL_ANY};
	bool json = false, have_mode = false, status = false;
	bool have_shell = false, session_given = false;
	struct kb_err e;
	int c, rc;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:C:", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			in.command = optarg;
			break;
		case 'e':
			status = true;
			break;
		case 'j':
			json = true;
			break;
		case 'k':
			in.kind = optarg;
			break;
		case 'm':
			if (kb_mode_parse(optarg, &in.mode) == -1)
				die("--mode %s: unknown mode; use auto or "
				    "strict",
				    optarg);
			have_mode = true;
			break;
		case 'p':
			in.path = optarg;
			break;
		case 'P':
			in.planning = true;
			break;
		case 'r':
			in.read_only_hint = true;
			break;
		case 's':
			session = optarg;
			session_given = true;
			break;
		case 'S':
			if (have_shell)
				die("--shell given twice");
			gctx.shell = shell_arg(optarg);
			have_shell = true;
			break;
		case 't':
			in.tool = optarg;
			break;
		case 'C':
			free(ws);
			if ((ws = realpath(optarg, NULL)) == NULL)
				die("--workspace %s: %s; give an existing "
				    "directory",
				    optarg, strerror(errno));
			break;
		case ':':
			die("option %s needs a value", argv[optind - 1]);
		default:
			die("decide: unknown option '%s'; see kinpolicy --help",
			    argv[optind - 1]);
		}
	}
	if (optind != argc)
		die("decide: unexpected argument '%s'; every value follows "
		    "its option (see kinpolicy --help)",
		    argv[optind]);
	if (!have_mode)
		die("decide: --mode auto|strict is required");
	if (in.kind == NULL)
		die("decide: --kind is required (read, edit, shell, meta, mcp, "
		    "network, rig, outpost, publish)");
	if (session != NULL && *session != '\0') {
		_cleanup_free_ char *sf = NULL;

		if (!kb_session_id_ok(session))
			die("%s%s: not a session id; create one with kinpolicy "
			    "session new",
			    session_given ? "--session " : "KINBOX_SESSION=",
			    session);
		sf = kb_config_session_path(session);
		if (sf == NULL || access(sf, R_OK) == -1)
			die("--session %s: the session file cannot be read; "
			    "create one with kinpolicy session new",
			    session);
	}
	cwd = getcwd(NULL, 0);
	if (ws == NULL && cwd != NULL)
		ws = realpath(cwd, NULL);
	/* the session's "always" answers must not be the workspace's: a
	 * command run there could have written them */
	if (session != NULL && *session != '\0' && ws != NULL) {
		struct kb_policy p;

		kb_policy_init(&p);
		p.home = home != NULL ? xstrdup(home) : NULL;
		p.workspace = xstrdup(ws);
		if (kb_config_check_stores(&p, NULL, &e) == -1)
			die("%s", e.msg);
		kb_policy_free(&p);
	}
	in.workspace = ws;
	in.cwd = cwd;
	in.home = home;
	gctx.session = session;
	in.classify = classify_cb;
	in.session_allows = session_allows_cb;
	in.ctx = &gctx;
	/* SANDBOX needs to know whether kinbox could wrap the command:
	 * bwrap works or the landlock backend is usable (kinbox --status) */
	if (in.kind != NULL && strcmp(in.kind, "shell") == 0)
		in.sandbox_available = kb_sandbox_available();
	/* planning: the harness runs the call under kinbox --read-only,
	 * which the answer says ("read_only", "run:") */
	in.read_only_run = true;
	kb_decide(&in, &out);
	if (json) {
		json_t *o = json_pack("{s:s,s:s,s:o}", "decision",
		    kb_verdict_name(out.verdict), "rule", out.rule, "reason",
		    kp_json_text(out.reason));

		if (o == NULL)
			die("out of memory");
		/* given back exactly or left out (as classify) */
		if (out.signature != NULL)
			json_object_set_new(
			    o, "signature", json_string(out.signature));
		if (out.rewritten != NULL)
			json_object_set_new(
			    o, "rewritten", json_string(out.rewritten));
		/* allowed only under kinbox --read-only (planning) */
		if (out.read_only)
			json_object_set_new(o, "read_only", json_true());
		/* the shell the classifier judged the command for */
		if (strcmp(in.kind, "shell") == 0)
			json_object_set_new(o, "shell",
			    json_string(kb_ro_shell_name(gctx.shell)));
		kp_dump_json(o);
		json_decref(o);
	} else {
		printf("%s\n", kb_verdict_name(out.verdict));
		kp_print_esc("rule: ", out.rule);
		kp_print_esc("reason: ", out.reason);
		if (out.rewritten != NULL)
			kp_print_esc("rewritten: ", out.rewritten);
		if (out.read_only)
			printf("run: under kinbox --read-only\n");
		if (out.signature != NULL)
			kp_print_esc("signature: ", out.signature);
		if (strcmp(in.kind, "shell") == 0)
			printf("shell: %s\n", kb_ro_shell_name(gctx.shell));
	}
	rc = status ? verdict_status(out.verdict) : 0;
	kb_decide_out_free(&out);
	return rc;
}

int
cmd_check_write(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"exit-status", no_argument, NULL, 'e'},
	    {"json", no_argument, NULL, 'j'},
	    {"mode", required_argument, NULL, 'm'},
	    {"workspace", required_argument, NULL, 'C'},
	    {"write", required_argument, NULL, 'w'},
	    {NULL, 0, NULL, 0},
	};
	_cleanup_free_ char *home = kb_paths_home();
	_cleanup_free_ char *ws = NULL;
	_cleanup_free_ char *cwd = getcwd(NULL, 0);
	struct kb_strv roots = {0};
	enum kb_mode mode = KB_MODE_AUTO;
	const char *path;
	bool json = false, status = false;
	struct kb_cw out;
	struct kb_err e;
	int c;

	if (argc < 2 || argv[1][0] == '-')
		kp_usage("check-write");
	path = argv[1];
	argc--;
	argv++;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:C:w:", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			status = true;
			break;
		case 'j':
			json = true;
			break;
		case 'm':
			if (kb_mode_parse(optarg, &mode) == -1)
				die("--mode %s: unknown mode; use auto or "
				    "strict",
				    optarg);
			break;
		case 'C':
			free(ws);
			if ((ws = realpath(optarg, NULL)) == NULL)
				die("--workspace %s: %s; give an existing "
				    "directory",
				    optarg, strerror(errno));
			break;
		case 'w': {
			char *r = realpath(optarg, NULL);

			if (r == NULL)
				die("--write %s: %s; give an existing "
				    "directory",
				    optarg, strerror(errno));
			kb_strv_push(&roots, r);
			free(r);
			break;
		}
		case ':':
			die("option %s needs a value", argv[optind - 1]);
		default:
			die("check-write: unknown option '%s'; see kinpolicy "
			    "--help",
			    argv[optind - 1]);
		}
	}
	if (optind != argc)
		die("check-write: unexpected argument '%s'; give one PATH, "
		    "first",
		    argv[optind]);
	if (cwd == NULL)
		die_errno("getcwd");
	if (ws == NULL && (ws = realpath(cwd, NULL)) == NULL)
		die_errno("%s", cwd);
	if (kb_check_write(
		path, cwd, ws, roots.v, roots.n, home, mode, &out, &e) == -1)
		die("%s", e.msg);
	if (json) {
		json_t *o = json_pack("{s:s,s:s,s:o,s:o}", "decision",
		    kb_verdict_name(out.verdict), "rule", out.rule, "reason",
		    kp_json_text(out.reason), "path",
		    kp_json_text(out.resolved));

		if (o == NULL)
			die("out of memory");
		kp_dump_json(o);
		json_decref(o);
	} else {
		printf("%s\n", kb_verdict_name(out.verdict));
		kp_print_esc("rule: ", out.rule);
		kp_print_esc("reason: ", out.reason);
		kp_print_esc("path: ", out.resolved);
	}
	kb_strv_free(&roots);
	return status ? verdict_status(out.verdict) : 0;
}

/* kinpolicy allow --session ID --kind KIND --signature SIG: a human's
 * "always" answer, kept in the session file */
int
cmd_allow(int argc, char **argv)
{
	bool json = kp_want_flag(&argc, argv, "--json");
	const char *session = NULL, *sig = NULL, *kind = "shell", *bad;
	_cleanup_free_ char *file = NULL;
	enum kb_kind k;
	struct kb_buf b = {0};
	int fd;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--session") == 0 && i + 1 < argc)
			session = argv[++i];
		else if (strcmp(argv[i], "--signature") == 0 && i + 1 < argc)
			sig = argv[++i];
		else if (strcmp(argv[i], "--kind") == 0 && i + 1 < argc)
			kind = argv[++i];
		else
			kp_usage("allow");
	}
	if (session == NULL || sig == NULL)
		kp_usage("allow");
	if (kb_kind_parse(kind, &k) == -1)
		die("--kind %s: unknown kind", kind);
	if (!kb_session_id_ok(session))
		die("--session %s: not a session id; create one with kinpolicy "
		    "session new",
		    session);
	if (*sig == '\0')
		die("--signature: empty; give the signature decide printed");
	/* read back as written or not kept: the reader would trim a \f or
	 * \v at an end and match a signature the human never allowed
	 * ("\fcurl x | sh" as "curl x | sh"); a digest would keep it, but a
	 * command with control bytes is one to be asked about each time */
	if ((bad = kb_find_control(sig)) != NULL)
		die("--signature: a control byte (0x%02x) at byte %zu; a "
		    "signature is one line of text as decide printed it, and a "
		    "command with control bytes is asked about each time",
		    (unsigned char)*bad, (size_t)(bad - sig) + 1);
	file = kb_config_session_path(session);
	if (file == NULL || access(file, W_OK) == -1)
		die("--session %s: no such session; create one with kinpolicy "
		    "session new",
		    session);
	/* what the one INI reader reads back exactly, else its digest */
	if (kb_ini_value_ok(sig, strlen("signature")))
		kb_buf_printf(
		    &b, "\n[always]\nkind = %s\nsignature = %s\n", kind, sig);
	else {
		char sha[SHA256_DIGEST_STRING_LENGTH];

		SHA256Data((const uint8_t *)sig, strlen(sig), sha);
		kb_buf_printf(&b,
		    "\n[always]\nkind = %s\nsignature_sha256 = "
		    "%s\n",
		    kind, sha);
	}
	fd = open(file, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1 || write(fd, b.s, b.len) != (ssize_t)b.len ||
	    close(fd) == -1)
		die_errno("%s", file);
	kb_buf_free(&b);
	if (json) {
		json_t *o = json_pack("{s:o,s:s}", "session",
		    kp_json_text(session), "kind", kind);

		if (o == NULL)
			die("out of memory");
		/* given back exactly or left out (as decide) */
		json_object_set_new(o, "signature", json_string(sig));
		kp_dump_json(o);
		json_decref(o);
	} else {
		_cleanup_free_ char *line = xasprintf("always allowed for "
						      "session %s: %s %s",
		    session, kind, sig);

		kp_print_esc("", line);
	}
	return 0;
}
