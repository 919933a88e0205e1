/*
 * kinbox — run a command in a sandbox that confines writes to the workspace
 * and keeps the network off unless granted. Fail closed: no sandbox, no run.
 *
 * The data flow, one way:
 *   argv → struct kb_policy (profile/) → struct kb_plan (backends/bwrap.c)
 *        → --dry-run prints it, or kb_run() executes it (backends/run.c)
 *        → the git guard audit (profile/gitguard.c)
 *        → the stderr tail → kb_classify() (classify/) → the denial line,
 *          --json-fd record and journal entry → the command's exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backends/backend.h"
#include "denial/denial.h"
#include "denial/journal.h"
#include "denial/report.h"
#include "gitguard/gitguard.h"
#include "policy/policy.h"
#include "lib/util.h"

#ifndef KB_VERSION
#define KB_VERSION "0.1.0"
#endif
#ifndef KB_LIBEXECDIR
#define KB_LIBEXECDIR "/usr/local/libexec/kinbox"
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

extern char **environ;

struct kb_opts {
	bool dry_run;
	int json_fd; /* -1: none */
	int verbosity; /* -1 quiet, 0 normal, 1 verbose */
	bool workspace_set, backend_set;
};

enum {
	OPT_NET = 256,
	OPT_NO_NET,
	OPT_BACKEND,
	OPT_DRY_RUN,
	OPT_KEEP_FD,
	OPT_KEEP_ENV,
	OPT_SSH_AGENT,
	OPT_UNCONFINED,
	OPT_JSON_FD,
	OPT_STATUS,
	OPT_VERSION,
};

/* sorted by long name */
static const struct option longopts[] = {
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "help", no_argument, NULL, 'h' },
	{ "json-fd", required_argument, NULL, OPT_JSON_FD },
	{ "keep-env", required_argument, NULL, OPT_KEEP_ENV },
	{ "keep-fd", required_argument, NULL, OPT_KEEP_FD },
	{ "net", no_argument, NULL, OPT_NET },
	{ "no-net", no_argument, NULL, OPT_NO_NET },
	{ "quiet", no_argument, NULL, 'q' },
	{ "ssh-agent", no_argument, NULL, OPT_SSH_AGENT },
	{ "status", no_argument, NULL, OPT_STATUS },
	{ "unconfined", no_argument, NULL, OPT_UNCONFINED },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "workspace", required_argument, NULL, 'C' },
	{ "write", required_argument, NULL, 'w' },
	{ NULL, 0, NULL, 0 },
};

static void
usage(FILE *f)
{
	fputs("usage: kinbox [OPTIONS] [--] COMMAND [ARG...]\n"
	      "\n"
	      "Runs COMMAND with writes confined to the workspace (the current\n"
	      "directory), a private /tmp and the roots granted with --write,\n"
	      "and with the network off. Refuses to run when no sandbox can be\n"
	      "set up.\n"
	      "\n"
	      "  -w, --write DIR       also make DIR writable (repeatable, at most 16)\n"
	      "  -C, --workspace DIR   the workspace (default: the current directory)\n"
	      "      --net             give the command the host network\n"
	      "      --no-net          no network, loopback only (the default)\n"
	      "      --backend NAME    auto (default) or bwrap\n"
	      "      --ssh-agent       expose the SSH agent socket and public ~/.ssh\n"
	      "                        files (needs --net); private keys stay hidden\n"
	      "      --keep-env NAME   keep variable NAME despite the secret scrub\n"
	      "      --keep-fd N       keep descriptor N open in the command\n"
	      "      --unconfined      no sandbox (the escape hatch); secrets are\n"
	      "                        still scrubbed and descriptors closed\n"
	      "      --json-fd N       write a denial's JSON record to descriptor N\n"
	      "                        (also KINBOX_JSON_FD)\n"
	      "      --dry-run         print the plan and run nothing\n"
	      "  -q, --quiet           no posture line when running unsandboxed\n"
	      "  -v, --verbose         print the plan's summary before running\n"
	      "      --status          say whether a sandbox can be set up here\n"
	      "                        (exit 0) or why not (exit 125), run nothing\n"
	      "  -h, --help            this text\n"
	      "      --version         print the version\n"
	      "\n"
	      "Exit status: the command's own; 128+N when it died of signal N;\n"
	      "125 kinbox's error (nothing was run); 126 not executable;\n"
	      "127 not found. See kinbox(1).\n",
	    f);
}

/* kinbox --status: the backend probe kinpolicy decide uses too */
static void __attribute__((noreturn))
status_and_exit(void)
{
	struct kb_err e;
	char *bwrap = kb_bwrap_find(&e);
	int abi;

	if (bwrap == NULL)
		die("%s", e.msg);
	if (kb_bwrap_probe(bwrap, &e) == -1)
		die("%s", e.msg);
	abi = kb_landlock_abi();
	printf("sandbox: available (bwrap %s", bwrap);
	if (abi > 0)
		printf(", Landlock ABI %d", abi);
	printf(")\n");
	free(bwrap);
	exit(0);
}

static int
parse_json_fd(const char *arg, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno != 0 || *end != '\0' || end == arg || v < 1 || v > INT_MAX)
		die("%s %s: not a descriptor number; give an open descriptor, "
		    "e.g. --json-fd 3 3>denial.json", what, arg);
	if (fcntl((int)v, F_GETFD) == -1)
		die("%s %s: descriptor is not open; open it in the calling "
		    "shell first (e.g. 3>denial.json)", what, arg);
	return (int)v;
}

/* the open file behind a descriptor is shared with `fd2` (for pipes,
 * sockets and files: a terminal or /dev/null has nothing to forge) */
static bool
same_object(int fd, int fd2)
{
	struct stat a, b;

	if (fstat(fd, &a) == -1 || fstat(fd2, &b) == -1)
		return false;
	if (!S_ISFIFO(a.st_mode) && !S_ISSOCK(a.st_mode) &&
	    !S_ISREG(a.st_mode))
		return false;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/*
 * The --json-fd record is the channel an agent can trust because the
 * command cannot write to it: run.c marks every descriptor but 0, 1, 2
 * and the --keep-fd ones close-on-exec. So the record's descriptor must be
 * none of those, nor the same pipe, socket or file as one of them.
 */
static void
check_json_fd(const struct kb_policy *p, const struct kb_opts *o)
{
	int fd = o->json_fd;

	if (fd == -1)
		return;
	if (fd <= 2)
		die("--json-fd %d: the command writes to descriptor %d too, so it "
		    "could forge a record there; give a descriptor of its own, "
		    "e.g. --json-fd 3 3>denial.json", fd, fd);
	for (size_t i = 0; i < p->nkeep; i++)
		if (p->keep_fd[i] == fd)
			die("--json-fd %d and --keep-fd %d: a kept descriptor "
			    "is the command's to write, so it could forge the "
			    "record; give --json-fd a descriptor of its own",
			    fd, fd);
	for (int other = 0; other <= 2; other++)
		if (same_object(fd, other))
			die("--json-fd %d is the same pipe, socket or file as "
			    "descriptor %d, which the command inherits, so it "
			    "could forge a record; give it one of its own", fd,
			    other);
	for (size_t i = 0; i < p->nkeep; i++)
		if (same_object(fd, p->keep_fd[i]))
			die("--json-fd %d is the same pipe, socket or file as "
			    "--keep-fd %d, which the command may write to, so "
			    "it could forge a record; give it one of its own",
			    fd, p->keep_fd[i]);
}

static void
parse_args(int argc, char **argv, struct kb_policy *p, struct kb_opts *o)
{
	struct kb_err e;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:C:hqvw:", longopts, NULL)) !=
	    -1) {
		switch (c) {
		case 'w':
			if (kb_policy_add_write(p, optarg, KB_ORIGIN_FLAG, &e))
				die("%s", e.msg);
			break;
		case 'C':
			if (o->workspace_set)
				die("--workspace given twice; give one "
				    "workspace");
			o->workspace_set = true;
			if (kb_policy_set_workspace(p, optarg, &e) == -1)
				die("%s", e.msg);
			break;
		case OPT_NET:
			p->net = true;
			p->net_origin = KB_ORIGIN_FLAG;
			break;
		case OPT_NO_NET:
			p->net = false;
			p->net_origin = KB_ORIGIN_FLAG;
			break;
		case OPT_BACKEND:
			if (o->backend_set)
				die("--backend given twice; give one backend");
			o->backend_set = true;
			if (kb_policy_set_backend(p, optarg, &e) == -1)
				die("%s", e.msg);
			p->backend_origin = KB_ORIGIN_FLAG;
			break;
		case OPT_DRY_RUN:
			o->dry_run = true;
			break;
		case OPT_KEEP_FD:
			if (kb_policy_add_keep_fd(p, optarg, &e) == -1)
				die("%s", e.msg);
			break;
		case OPT_KEEP_ENV:
			if (kb_policy_add_keep_env(p, optarg, &e) == -1)
				die("%s", e.msg);
			break;
		case OPT_SSH_AGENT:
			p->ssh_agent = true;
			p->ssh_origin = KB_ORIGIN_FLAG;
			break;
		case OPT_UNCONFINED:
			p->unconfined = true;
			p->unconfined_origin = KB_ORIGIN_FLAG;
			break;
		case OPT_JSON_FD:
			o->json_fd = parse_json_fd(optarg, "--json-fd");
			break;
		case 'q':
			o->verbosity = -1;
			break;
		case 'v':
			o->verbosity = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case OPT_VERSION:
			printf("kinbox %s\n", KB_VERSION);
			exit(0);
		case OPT_STATUS:
			status_and_exit();
		case ':':
			die("option %s needs a value; see kinbox --help",
			    argv[optind - 1]);
		case '?':
		default:
			if (optopt != 0)
				die("unknown option '-%c'; see kinbox --help",
				    optopt);
			die("unknown option '%s'; see kinbox --help",
			    argv[optind - 1]);
		}
	}
	if (o->json_fd == -1 && getenv("KINBOX_JSON_FD") != NULL &&
	    *getenv("KINBOX_JSON_FD") != '\0')
		o->json_fd = parse_json_fd(getenv("KINBOX_JSON_FD"),
		    "KINBOX_JSON_FD");
	if (optind >= argc)
		die("no command given; usage: kinbox [OPTIONS] -- COMMAND "
		    "[ARG...]");
	p->argv = argv + optind;
	check_json_fd(p, o);
}

/* kinbox-exec sits beside kinbox in a build tree, else in LIBEXECDIR. */
static char *
find_helper(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash, *cand;

	if (n > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			*slash = '\0';
			cand = xasprintf("%s/kinbox-exec", self);
			if (access(cand, X_OK) == 0)
				return cand;
			free(cand);
		}
	}
	cand = xstrdup(KB_LIBEXECDIR "/kinbox-exec");
	if (access(cand, X_OK) == 0)
		return cand;
	die("no sandbox: the helper %s is missing; reinstall kinbox "
	    "(make install) — nothing was run", cand);
}

/*
 * No sandbox: --unconfined (the explicit escape hatch) or
 * KINBOX_SANDBOX=container (the caller declares a disposable container is
 * the boundary). Secrets are still scrubbed and only the kept descriptors
 * survive; one posture line says what happened.
 */
static void __attribute__((noreturn))
exec_unsandboxed(const struct kb_policy *p, const struct kb_opts *o,
    const char *why)
{
	struct kb_plan pl = { 0 };
	size_t i;

	kb_plan_env(p, environ, NULL, &pl);
	if (o->dry_run) {
		printf("# no sandbox: %s\n", why);
		for (i = 0; i < pl.notes.n; i++)
			printf("# %s\n", pl.notes.v[i]);
		exit(0);
	}
	if (o->verbosity >= 0)
		warnx("no sandbox: %s", why);
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == -1)
		die_errno("close_range");
	for (i = 0; i < p->nkeep; i++)
		if (fcntl(p->keep_fd[i], F_SETFD, 0) == -1)
			die_errno("--keep-fd %d", p->keep_fd[i]);
	environ = pl.envp.v;
	execvp(p->argv[0], p->argv);
	warnx("%s: %s", p->argv[0],
	    errno == ENOENT ? "command not found" : strerror(errno));
	exit(errno == ENOENT || errno == ENOTDIR ? KB_EXIT_NOTFOUND :
						   KB_EXIT_NOEXEC);
}

/*
 * After a failed run: was it the sandbox? One human line on stderr, the
 * JSON record on --json-fd, the journal entry for kinpolicy. The command's
 * exit status is never changed by this.
 */
static void
report_denial(const struct kb_policy *p, const struct kb_opts *o,
    const struct kb_run *run)
{
	struct kb_host_oracle_ctx ctx = { .home = p->home, .check_access = true };
	struct kb_oracle oracle = kb_host_oracle_template;
	struct kb_denial d;
	char id[KB_ID_LEN + 1];
	_cleanup_free_ char *line = NULL;
	_cleanup_free_ char *json = NULL;
	struct kb_err e;

	oracle.ctx = &ctx;
	if (!kb_classify(run->exit_code, run->tail, run->tail_len, p, &oracle,
		&d))
		return;
	if (kb_denial_id(id) == -1)
		snprintf(id, sizeof(id), "sbx_unavailable");
	/* its fields are escaped already; on a fresh line (kb_after_command) */
	line = kb_report_line(&d, id);
	kb_line(line);
	json = kb_report_json(&d, id, p, run->exit_code);
	if (o->json_fd != -1) {
		size_t n = strlen(json);

		if (write(o->json_fd, json, n) != (ssize_t)n ||
		    write(o->json_fd, "\n", 1) != 1)
			warnx("--json-fd %d: %s", o->json_fd, strerror(errno));
	}
	if (kb_journal_write(p, id, json, NULL, &e) == -1)
		warnx("the denial journal could not be written (%s); kinpolicy "
		    "cannot retry %s", e.msg, id);
}

/* Every line below goes through warnx() or die(), which escape the whole
 * line: a config key, a file name or a guard path the command chose
 * cannot end kinbox's line or steer the terminal. */
static void
config_warning(const char *line)
{
	warnx("%s", line);
}

/* The audit's lines name paths under the writable roots, formatted in
 * gitguard.c: escaped here as a whole. */
static void
report_guard(const char *line, bool security)
{
	warnx("%s%s", security ? "SECURITY: " : "", line);
}

/* kinbox's own stores lie outside what the command may write */
static void
check_stores(struct kb_policy *p)
{
	struct kb_err e;

	if (kb_config_check_stores(p, NULL, &e) == -1)
		die("%s", e.msg);
}

int
main(int argc, char **argv)
{
	struct kb_policy pol;
	struct kb_opts o = { .json_fd = -1 };
	struct kb_plan plan;
	struct kb_host host;
	struct kb_run run;
	struct kb_err e;
	_cleanup_free_ char *bwrap = NULL;
	_cleanup_free_ char *helper = NULL;
	const char *mode = getenv("KINBOX_SANDBOX");

	kb_progname = "kinbox";
	kb_policy_init(&pol);
	parse_args(argc, argv, &pol, &o);
	/* flags first (they win), then the config layers around them */
	if (!pol.unconfined && (mode == NULL || strcmp(mode, "container") != 0)) {
		if (kb_policy_resolve_workspace(&pol, &e) == -1)
			die("%s", e.msg);
		if (kb_config_load_all(&pol, NULL, config_warning, &e) == -1)
			die("%s", e.msg);
		/* before anything runs, also before a session's unconfined
		 * grant is obeyed: the roots known so far */
		check_stores(&pol);
	}

	if (mode != NULL && *mode != '\0') {
		if (strcmp(mode, "off") == 0 && !pol.unconfined)
			die("KINBOX_SANDBOX=off is refused: nothing runs "
			    "unconfined unless --unconfined is given; unset "
			    "KINBOX_SANDBOX");
		if (strcmp(mode, "container") != 0 && strcmp(mode, "off") != 0)
			die("KINBOX_SANDBOX=%s: unknown value; use 'container' "
			    "or unset it", mode);
	}
	/* No sandbox, no workspace to judge: the escape hatch works from
	 * anywhere, still without secrets and stray descriptors. */
	if (pol.unconfined)
		exec_unsandboxed(&pol, &o, pol.unconfined_origin ==
			KB_ORIGIN_SESSION ? "unconfined by a session grant: the "
		    "command runs with the sandbox lifted (secrets still "
		    "scrubbed)" : "--unconfined: the command runs with the "
		    "sandbox lifted (secrets still scrubbed)");
	if (mode != NULL && strcmp(mode, "container") == 0)
		exec_unsandboxed(&pol, &o, "KINBOX_SANDBOX=container: the "
		    "container is the boundary, the command runs unconfined "
		    "inside it");
	if (kb_policy_finalize(&pol, &e) == -1 ||
	    kb_gitguard_scan_roots(&pol, &e) == -1)
		die("%s", e.msg);
	/* again with TMPDIR settled */
	check_stores(&pol);

	/* auto picks bubblewrap: the only backend on Linux so far */
	if ((bwrap = kb_bwrap_find(&e)) == NULL)
		die("%s", e.msg);
	helper = find_helper();
	host.landlock_abi = kb_landlock_abi();
	host.root = geteuid() == 0;
	if (kb_bwrap_plan(&pol, &host, bwrap, helper, environ, &plan, &e) ==
	    -1)
		die("%s", e.msg);
	if (o.dry_run || o.verbosity > 0) {
		_cleanup_free_ char *text = kb_plan_render(&plan);

		fputs(text, o.dry_run ? stdout : stderr);
		if (o.dry_run) {
			kb_plan_free(&plan);
			kb_policy_free(&pol);
			return 0;
		}
	}
	if (kb_run(&plan, &run, &e) == -1)
		die("%s", e.msg);
	/* from here on kinbox's lines follow the command's output: each
	 * starts clean (SGR reset on a terminal, a fresh line) */
	kb_after_command(run.tail_len > 0 &&
	    run.tail[run.tail_len - 1] != '\n');
	if (run.broken[0] != '\0') {
		kb_gitguard_audit(&pol, report_guard);
		die("SECURITY: %s was replaced on the host during the run, which "
		    "drops the sandbox's mount over it; the command was stopped "
		    "(run it again)", run.broken);
	}
	if (!run.started) {
		_cleanup_free_ char *why = NULL;

		kb_gitguard_audit(&pol, report_guard);
		if (WIFSIGNALED(run.wstatus))
			return run.exit_code; /* killed before it started */
		why = kb_bwrap_explain_failure(run.setup_err);
		if (o.verbosity > 0)
			fputs(run.setup_err, stderr);
		die("%s", why);
	}
	if (run.replaced[0] != '\0') {
		char *line, *save = NULL;

		for (line = strtok_r(run.replaced, "\n", &save); line != NULL;
		     line = strtok_r(NULL, "\n", &save))
			fprintf(stderr, "kinbox: note: %s was replaced on the host "
			    "during the run; the command could not read the new "
			    "one (Landlock)\n", line);
	}
	if (run.check_failed != 0) {
		size_t i = (size_t)run.check_failed - 1;

		kb_gitguard_audit(&pol, report_guard);
		die("SECURITY: %s was not where kinbox mounted it (a concurrent "
		    "process swapped a directory on its path while the sandbox "
		    "was set up); nothing was run — run it again",
		    i < plan.checks.n ? plan.checks.v[i] : "a guarded path");
	}
	if (run.confine_errno != 0)
		die("no sandbox: Landlock could not be applied inside the "
		    "sandbox (%s); nothing was run — report this with the "
		    "output of kinbox --dry-run", strerror(run.confine_errno));
	if (run.exec_errno != 0)
		warnx("%s: %s", pol.argv[0], run.exec_errno == ENOENT ?
		    "command not found" : strerror(run.exec_errno));
	if (kb_gitguard_audit(&pol, report_guard) > 0 && o.verbosity >= 0)
		warnx("SECURITY: the command tampered with git metadata; see "
		    "the lines above");
	if (run.exec_errno == 0 && run.exit_code != 0)
		report_denial(&pol, &o, &run);
	kb_plan_free(&plan);
	kb_policy_free(&pol);
	return run.exit_code;
}
