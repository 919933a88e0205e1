/*
 * kinpolicy.c — kinpolicy, the sidecar of kinbox: everything about policy that
 * is not running a command. kinbox only reads policy; kinpolicy is the only
 * writer of grants and decisions.
 *
 *   fingerprint  classify a failed command's stderr against a policy
 *   session new  start a session (grants that last while KINBOX_SESSION is
 *                set to its id)
 *   show ID      the journaled operation behind a denial
 *   grant ID     record a human's decision: capabilities and lifetime
 *   decline ID   record a refusal, with a note for the agent
 *   retry ID     run exactly the journaled argv again, once
 *   pending      denials awaiting a decision
 *   forget ID    remove one denial from the journal
 *   gc           remove old (or decided) denials from the journal
 *   grants       session and workspace grants, numbered
 *   revoke N     remove grant N (or --all)
 *   decide       the permission gate: may this tool call run?
 *   classify     is this shell command provably read-only?
 *   check-write  may an in-process edit tool write this path?
 *   allow        a human's session "always" answer for a signature
 *   hook AGENT   the adapter an agent runs as its hook; hook install
 *                and hook uninstall write it into the agent's settings
 *
 * Verbs are a table of {name, handler, usage}; each parses its own flags
 * and says its usage from the table (kp_usage), which kinpolicy --help
 * prints and the man page's SYNOPSIS repeats. This file: main, the table
 * and fingerprint; the verbs live in sidecar/kinpolicy-grants.c,
 * sidecar/kinpolicy-gate.c and sidecar/kinpolicy-gc.c, hook in
 * sidecar/kinpolicy-hook.c (hook install and uninstall in
 * sidecar/kinpolicy-install.c), the journal helpers they share in
 * sidecar/kinpolicy-journal.c.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bsd/stdlib.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <jansson.h>

#include "classify/denial.h"
#include "classify/readonly.h"
#include "classify/report.h"
#include "lib/util.h"
#include "profile/options.h"
#include "profile/policy.h"
#include "sidecar/decide.h"
#include "sidecar/grants.h"

#ifndef KB_VERSION
#define KB_VERSION "0.1.0"
#endif

#include "sidecar/kinpolicy-journal.h"
#include "sidecar/kinpolicy.h"

struct verb {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
};

/* stdin, keeping only the last KB_TAIL bytes, as kinbox's relay does */
static size_t
read_tail(char *tail)
{
	static char buf[64 * 1024];
	size_t len = 0;
	ssize_t n;

	while ((n = read(0, buf, sizeof(buf))) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			die_errno("reading stderr text on stdin");
		}
		if ((size_t)n >= KB_TAIL) {
			memcpy(tail, buf + n - KB_TAIL, KB_TAIL);
			len = KB_TAIL;
		} else if (len + (size_t)n <= KB_TAIL) {
			memcpy(tail + len, buf, (size_t)n);
			len += (size_t)n;
		} else {
			size_t drop = len + (size_t)n - KB_TAIL;

			memmove(tail, tail + drop, len - drop);
			memcpy(tail + len - drop, buf, (size_t)n);
			len = KB_TAIL;
		}
	}
	return len;
}

static int
cmd_fingerprint(int argc, char **argv)
{
	/* the policy knobs of the judged run are kinbox's own flags (the
	 * option table); the rest are this verb's */
	static const struct option opts[] = {
	    {"backend", required_argument, NULL, 'b'},
	    {"cwd", required_argument, NULL, 'c'},
	    {"json", no_argument, NULL, 'j'},
	    {"net", no_argument, NULL, 256 + KB_OPT_NET},
	    {"ssh-agent", no_argument, NULL, 256 + KB_OPT_SSH_AGENT},
	    {"status", required_argument, NULL, 'x'},
	    {"workspace", required_argument, NULL, 256 + KB_OPT_WORKSPACE},
	    {"write", required_argument, NULL, 256 + KB_OPT_WRITE},
	    {NULL, 0, NULL, 0},
	};
	static char tail[KB_TAIL];
	struct kb_host_oracle_ctx ctx = {.check_access = true};
	struct kb_oracle oracle = kb_host_oracle_template;
	struct kb_policy p;
	static struct kb_denial d[KB_MAX_DENIALS];
	struct kb_err e;
	const char *errstr;
	bool json = false, ssh = false, have_status = false,
	     chdir_given = false;
	long long status = 0;
	size_t len, n;
	enum kb_backend_kind backend = KB_BACKEND_BWRAP;
	int c;

	kb_policy_init(&p);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:C:w:", opts, NULL)) != -1) {
		enum kb_opt id;

		switch (c) {
		case 'j':
			json = true;
			continue;
		case 'b':
			/* how the run's sandbox refuses a write: bwrap's
			 * read-only mounts answer EROFS, Landlock EACCES */
			if (strcmp(optarg, "bwrap") == 0)
				backend = KB_BACKEND_BWRAP;
			else if (strcmp(optarg, "landlock") == 0)
				backend = KB_BACKEND_LANDLOCK;
			else
				die("--backend %s: unknown backend; give the "
				    "one the run used, bwrap or landlock",
				    optarg);
			continue;
		case 'c':
			/* where the command ran (its relative paths start
			 * there), without moving kinpolicy */
			free(p.cwd);
			p.cwd = realpath(optarg, NULL);
			if (p.cwd == NULL)
				die("--cwd %s: %s; give the directory the "
				    "command ran in",
				    optarg, strerror(errno));
			chdir_given = true;
			continue;
		case 'x':
			status = strtonum(optarg, 0, 255, &errstr);
			if (errstr != NULL)
				die("--status %s: %s; give the exit status, "
				    "0-255",
				    optarg, errstr);
			have_status = true;
			continue;
		case ':':
			die("option %s needs a value; see kinpolicy --help",
			    argv[optind - 1]);
		case 'C':
			/* as kinbox's -C: the command ran in DIR, which is
			 * the workspace unless --workspace says otherwise */
			if (chdir(optarg) == -1)
				die("-C %s: %s; give the directory the command "
				    "ran in",
				    optarg, strerror(errno));
			chdir_given = true;
			continue;
		case 'w':
			c = 256 + KB_OPT_WRITE;
			break;
		default:
			if (c < 256 || c >= 256 + KB_OPT__N)
				die("fingerprint: unknown option '%s'; see "
				    "kinpolicy --help",
				    argv[optind - 1]);
			break;
		}
		id = (enum kb_opt)(c - 256);
		if (id == KB_OPT_SSH_AGENT) {
			/* judged as granted, without this shell's agent */
			ssh = true;
			continue;
		}
		{
			_cleanup_free_ char *where =
			    xasprintf("--%s", kb_options[id].flag);
			struct kb_src src = {KB_ORIGIN_FLAG, where};

			if (kb_option_set(&p, id,
				kb_options[id].metavar ? optarg : "on", &src,
				&e) == -1)
				die("%s", e.msg);
		}
	}
	if (!have_status)
		die("fingerprint: --status N is required (the command's exit "
		    "status)");
	/* the command that ran, after "--": its words name the paths a
	 * message may leave out, and the directory tar -C moved to */
	if (optind != argc && strcmp(argv[optind - 1], "--") != 0)
		die("fingerprint: unexpected argument '%s'; the stderr text "
		    "goes on stdin, the command after --",
		    argv[optind]);
	if (optind != argc)
		p.argv = argv + optind;
	if (ssh && !p.net)
		die("--ssh-agent needs --net, as in kinbox");
	/* a command kinbox ran with --workspace and no -C ran in the
	 * workspace: its relative paths start there, not where kinpolicy
	 * happens to be */
	if (!chdir_given && p.cwd == NULL && p.workspace != NULL) {
		char here[PATH_MAX];
		char *real = getcwd(here, sizeof(here)) != NULL
				 ? realpath(here, NULL)
				 : NULL;

		/* from inside the workspace: there, as kinbox would run */
		if (real != NULL && kb_path_within(real, p.workspace))
			p.cwd = real;
		else {
			free(real);
			p.cwd = xstrdup(p.workspace);
		}
	}
	if (kb_policy_finalize(&p, &e) == -1)
		die("%s", e.msg);
	p.backend = backend;
	/* set after finalize: the agent socket of this shell is not needed
	 * to judge someone else's run */
	p.ssh_agent = ssh;
	ctx.home = p.home;
	oracle.ctx = &ctx;
	len = read_tail(tail);
	n = kb_classify_all(
	    (int)status, tail, len, &p, &oracle, d, KB_MAX_DENIALS);
	if (json) {
		char *text = kb_report_fingerprint_json(d, n);

		printf("%s\n", text);
		free(text);
	} else if (n == 0) {
		printf("none: an ordinary failure, not the sandbox\n");
	}
	for (size_t i = 0; !json && i < n; i++) {
		char *line = kb_report_line(&d[i], "no id"); /* escaped */

		printf("%s\n", line);
		kp_print_esc("evidence: ", d[i].evidence);
		free(line);
	}
	kb_policy_free(&p);
	return 0;
}

static const struct verb verbs[] = {
    {"allow", cmd_allow,
	"allow --session ID --signature SIG [--kind KIND] [--json]"},
    {"check-write", cmd_check_write,
	"check-write PATH [--workspace DIR] [--write DIR]... "
	"[--mode auto|strict] [--json] [--exit-status]"},
    {"classify", cmd_classify,
	"classify [--shell any|sh|bash|zsh] [--json] [--exit-status] "
	"{-- COMMAND [ARG...] | --command STRING}"},
    {"decide", cmd_decide,
	"decide --mode auto|strict [--planning] --kind KIND [--tool NAME] "
	"[--command STRING] [--shell any|sh|bash|zsh] [--path PATH] "
	"[--workspace DIR] [--session ID] [--read-only-hint] [--json] "
	"[--exit-status]"},
    {"decline", cmd_decline, "decline ID --note TEXT [--json]"},
    {"fingerprint", cmd_fingerprint,
	"fingerprint --status N [-C DIR]... [--cwd DIR] [--workspace DIR] "
	"[--write DIR]... [--net] [--ssh-agent] [--backend bwrap|landlock] "
	"[--json] [-- COMMAND [ARG...]] < STDERR_FILE"},
    {"forget", cmd_forget, "forget ID [--json]"},
    {"gc", cmd_gc, "gc [--older-than DURATION] [--decided] [--json]"},
    {"grant", cmd_grant,
	"grant ID [--write DIR]... [--net] [--ssh-agent] "
	"[--allow-socket PATH]... [--allow-host HOST[:PORT]]... "
	"[--device PATH]... [--gpu] [--unconfined] [--suggested] "
	"--once|--session|--workspace [--json]"},
    {"grants", cmd_grants, "grants [--json]"},
    {"hook", cmd_hook_verbs,
	"hook claude-code|codex|gemini|cursor [--mode auto|strict|plan] "
	"[--kinbox PATH] < EVENT"},
    {"hook install", cmd_hook_install,
	"hook install claude-code|codex|gemini|cursor [--project] "
	"[--dry-run]"},
    {"hook uninstall", cmd_hook_uninstall,
	"hook uninstall claude-code|codex|gemini|cursor [--project] "
	"[--dry-run]"},
    {"pending", cmd_pending, "pending [--json]"},
    {"retry", cmd_retry, "retry ID"},
    {"revoke", cmd_revoke, "revoke N|--all [--json]"},
    {"session", cmd_session, "session new [--json]"},
    {"show", cmd_show, "show ID [--json]"},
};

void
kp_usage(const char *verb)
{
	for (size_t i = 0; i < nitems(verbs); i++)
		if (strcmp(verbs[i].name, verb) == 0)
			die("usage: kinpolicy %s", verbs[i].usage);
	die("usage: kinpolicy VERB [OPTIONS]; see kinpolicy --help");
}

static void
kp_help(FILE *f)
{
	fprintf(f, "usage: kinpolicy VERB [OPTIONS]\n\nverbs:\n");
	for (size_t i = 0; i < nitems(verbs); i++)
		fprintf(f, "  kinpolicy %s\n", verbs[i].usage);
	fprintf(f, "\nSee kinpolicy(1).\n");
}

int
main(int argc, char **argv)
{
	kb_progname = "kinpolicy";
	if (argc < 2)
		die("no verb given; see kinpolicy --help");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		kp_help(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("kinpolicy %s\n", KB_VERSION);
		return 0;
	}
	for (size_t i = 0; i < nitems(verbs); i++)
		if (strcmp(argv[1], verbs[i].name) == 0)
			return verbs[i].run(argc - 1, argv + 1);
	die("unknown verb '%s'; see kinpolicy --help", argv[1]);
}
