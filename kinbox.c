/*
 * kinbox.c — kinbox's main: run a command in a sandbox that confines writes
 * to the workspace and keeps the network off unless granted. Fail closed:
 * no sandbox, no run.
 *
 * The data flow, one way, as main() reads:
 *   argv + config → struct kb_policy (profile/)
 *        → the backends to try, in order (kb_backend_candidates() in
 *          backends/choose.c: Seatbelt on macOS or when asked, else
 *          bubblewrap then the landlock backend, with what this machine
 *          can do, host/)
 *        → struct kb_plan, one candidate's (backends/: bwrap.c,
 *          landlock.c, seatbelt.c)
 *        → --dry-run prints it, or the run executes it (kb_run() in
 *          backends/run.c, kb_seatbelt_run() for Seatbelt) with the
 *          services that act for the command outside the sandbox
 *          (mediate/: the egress proxy, the unix-socket supervisor),
 *          registered while it runs when it uses a grant (profile/runs.c);
 *          a bubblewrap that cannot make its namespaces gives way to the
 *          next candidate
 *        → struct kb_run: the backend that ran, how it ended, the tails
 *        → its outcome (kb_run_outcome() in backends/outcome.c):
 *          kinbox's own failure, one line
 *        → the git guard audit (gitguard/)
 *        → the whole run → kb_classify_run() (classify/evidence.c) → the
 *          denial lines, --json-fd record and journal entry
 *          (profile/journal.c)
 *        → the command's exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backends/backend.h"
#include "backends/run-posix.h"
#include "classify/denial.h"
#include "classify/report.h"
#include "gitguard/gitguard.h"
#include "host/status.h"
#include "lib/closelater.h"
#include "lib/execsearch.h"
#include "lib/fsat.h"
#include "lib/hostenv.h"
#include "lib/util.h"
#include "profile/completion.h"
#include "profile/hosts.h"
#include "profile/journal.h"
#include "profile/options.h"
#include "profile/policy.h"
#include "profile/runs.h"
#include "profile/tables.h"

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
/* the caller's environment, the command's to have: kinbox's own environ
 * is without its loader variables (lib/hostenv.h) */
static char **caller_env;

struct kb_opts {
	bool dry_run;
	bool json;   /* --json: --dry-run's plan as one JSON object */
	int json_fd; /* -1: none */
	const char *json_fd_name; /* "--json-fd" or "KINBOX_JSON_FD" */
	int verbosity;            /* -1 quiet, 0 normal, 1 verbose */
};

/*
 * The option parser is built from the option table (profile/option-table.c):
 * getopt_long's array and short-option string, and --help. A long option
 * returns OPT_ON + its row (OPT_OFF + row for a switch's negation).
 */
#define OPT_ON  256
#define OPT_OFF 512

static struct option longopts[2 * KB_OPT__N + 1];

static const char *
build_getopt(void)
{
	static char shorts[2 * KB_OPT__N + 4] = "+:";
	size_t n = 0, k = 2;

	for (size_t i = 0; i < KB_OPT__N; i++) {
		const struct kb_option *o = &kb_options[i];

		if (o->flag == NULL)
			continue;
		longopts[n++] = (struct option){o->flag,
		    o->metavar ? required_argument : no_argument, NULL,
		    OPT_ON + (int)i};
		if (o->negflag != NULL)
			longopts[n++] = (struct option){
			    o->negflag, no_argument, NULL, OPT_OFF + (int)i};
		if (o->shortopt != 0) {
			shorts[k++] = o->shortopt;
			if (o->metavar != NULL)
				shorts[k++] = ':';
		}
	}
	longopts[n] = (struct option){NULL, 0, NULL, 0};
	shorts[k] = '\0';
	return shorts;
}

static void
usage(FILE *f)
{
	_cleanup_free_ char *opts = kb_options_help();

	fprintf(f,
	    "usage: kinbox [OPTIONS] [--] COMMAND [ARG...]\n"
	    "\n"
	    "Runs COMMAND with writes confined to the workspace (the current\n"
	    "directory), a private /tmp and the roots granted with --write,\n"
	    "and with the network off. Refuses to run when no sandbox can be\n"
	    "set up.\n"
	    "\n"
	    "%s"
	    "\n"
	    "Exit status: the command's own; 128+N when it died of signal N;\n"
	    "125 kinbox's error (nothing was run); 126 not executable;\n"
	    "127 not found. See kinbox(1).\n",
	    opts);
}

/* kinbox --status [--json]: the doctor (host/status.c); what follows
 * --status on the command line may only be --json */
static void __attribute__((noreturn)) status_and_exit(int argc, char **argv)
{
	bool json = false;

	for (int i = optind; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0 && !json)
			json = true;
		else
			die("--status takes only --json after it, not '%s'; "
			    "see kinbox --help",
			    argv[i]);
	}
	exit(kb_status_print(stdout, json));
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
		    "e.g. --json-fd 3 3>denial.json",
		    what, arg);
	if (fcntl((int)v, F_GETFD) == -1)
		die("%s %s: descriptor is not open; open it in the calling "
		    "shell first (e.g. 3>denial.json)",
		    what, arg);
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
	if (!S_ISFIFO(a.st_mode) && !S_ISSOCK(a.st_mode) && !S_ISREG(a.st_mode))
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
	const char *name = o->json_fd_name; /* what the user set */
	int fd = o->json_fd;

	if (fd == -1)
		return;
	if (fd <= 2)
		die("%s %d: the command writes to descriptor %d too, so it "
		    "could forge a record there; give a descriptor of its own, "
		    "e.g. --json-fd 3 3>denial.json",
		    name, fd, fd);
	for (size_t i = 0; i < p->nkeep; i++)
		if (p->keep_fd[i] == fd)
			die("%s %d and --keep-fd %d: a kept descriptor is the "
			    "command's to write, so it could forge the record; "
			    "give %s a descriptor of its own",
			    name, fd, fd, name);
	for (int other = 0; other <= 2; other++)
		if (same_object(fd, other))
			die("%s %d is the same pipe, socket or file as "
			    "descriptor %d, which the command inherits, so it "
			    "could forge a record; give it one of its own",
			    name, fd, other);
	for (size_t i = 0; i < p->nkeep; i++)
		if (same_object(fd, p->keep_fd[i]))
			die("%s %d is the same pipe, socket or file as "
			    "--keep-fd %d, which the command may write to, so "
			    "it could forge a record; give it one of its own",
			    name, fd, p->keep_fd[i]);
}

/* A policy flag as typed, applied after the config layers below it
 * (kb_config_load_layers) and before the project file. */
struct pending {
	enum kb_opt id;
	const char *value;
	const char *where; /* "--net", "--no-net", "--write" */
};

static void
parse_args(int argc, char **argv, struct kb_opts *o, struct pending *pend,
    size_t *npend)
{
	const char *shorts = build_getopt();
	bool given[KB_OPT__N] = {false};
	const struct kb_option *opt;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
		bool off = false;

		if (c >= OPT_OFF && c < OPT_OFF + KB_OPT__N) {
			opt = &kb_options[c - OPT_OFF];
			off = true;
		} else if (c >= OPT_ON && c < OPT_ON + KB_OPT__N) {
			opt = &kb_options[c - OPT_ON];
		} else if (c == ':') {
			die("option %s needs a value; see kinbox --help",
			    argv[optind - 1]);
		} else {
			opt = NULL;
			for (size_t i = 0; i < KB_OPT__N && c != '?'; i++)
				if (kb_options[i].shortopt == c)
					opt = &kb_options[i];
			if (opt == NULL) {
				if (optopt != 0)
					die("unknown option '-%c'; see kinbox "
					    "--help",
					    optopt);
				die("unknown option '%s'; see kinbox --help",
				    argv[optind - 1]);
			}
		}
		if (opt->type == KB_T_VALUE && given[opt->id])
			die("--%s given twice; give one %s", opt->flag,
			    opt->flag);
		given[opt->id] = true;
		switch (opt->id) {
		case KB_OPT_JSON_FD:
			o->json_fd = parse_json_fd(optarg, "--json-fd");
			o->json_fd_name = "--json-fd";
			continue;
		case KB_OPT_DRY_RUN:
			o->dry_run = true;
			continue;
		case KB_OPT_JSON:
			o->json = true;
			continue;
		case KB_OPT_CHDIR:
			/* now, as git and make do: relative paths given
			 * anywhere on the line (--write, --workspace, a
			 * later -C) are then taken from DIR, and DIR is the
			 * workspace unless --workspace says otherwise */
			if (chdir(optarg) == -1)
				die("-C %s: %s; give a directory to run in",
				    optarg, strerror(errno));
			continue;
		case KB_OPT_QUIET:
			o->verbosity = -1;
			continue;
		case KB_OPT_VERBOSE:
			o->verbosity = 1;
			continue;
		case KB_OPT_HELP:
			usage(stdout);
			exit(0);
		case KB_OPT_VERSION:
			printf("kinbox %s%s%s%s\n", KB_VERSION,
			    kb_resolve_test_note ? " (" : "",
			    kb_resolve_test_note ? kb_resolve_test_note : "",
			    kb_resolve_test_note ? ")" : "");
			exit(0);
		case KB_OPT_STATUS:
			status_and_exit(argc, argv);
		case KB_OPT_WRITE:
		case KB_OPT_WORKSPACE:
		case KB_OPT_READ_ONLY:
		case KB_OPT_NET:
		case KB_OPT_BACKEND:
		case KB_OPT_SSH_AGENT:
		case KB_OPT_KEYCHAIN:
		case KB_OPT_ALLOW_SOCKET:
		case KB_OPT_ALLOW_HOST:
		case KB_OPT_DEVICE:
		case KB_OPT_GPU:
		case KB_OPT_KEEP_ENV:
		case KB_OPT_KEEP_FD:
		case KB_OPT_UNCONFINED:
		case KB_OPT_SCRUB_ENV:
		case KB_OPT_MASK:
		case KB_OPT_CACHE:
		case KB_OPT_REQUIRE:
		case KB_OPT_TIMEOUT:
		case KB_OPT_KILL_AFTER:
		case KB_OPT_RLIMIT:
		case KB_OPT_MEMORY:
		case KB_OPT_SETENV:
		case KB_OPT__N:
			break;
		}
		pend[*npend].id = opt->id;
		pend[*npend].value =
		    opt->type == KB_T_SWITCH ? (off ? "off" : "on") : optarg;
		pend[*npend].where =
		    xasprintf("--%s", off ? opt->negflag : opt->flag);
		(*npend)++;
	}
	if (o->json_fd == -1 && getenv("KINBOX_JSON_FD") != NULL &&
	    *getenv("KINBOX_JSON_FD") != '\0') {
		o->json_fd =
		    parse_json_fd(getenv("KINBOX_JSON_FD"), "KINBOX_JSON_FD");
		o->json_fd_name = "KINBOX_JSON_FD";
	}
	if (o->json && !o->dry_run)
		die("--json goes with --dry-run (the plan as JSON) or after "
		    "--status; a denial's JSON record is --json-fd N");
	if (optind >= argc)
		die("no command given; usage: kinbox [OPTIONS] -- COMMAND "
		    "[ARG...]");
}

/* the flags, in the order typed, through the table's one setter */
static void
apply_flags(struct kb_policy *p, const struct pending *pend, size_t n,
    bool with_workspace)
{
	struct kb_err e;

	for (size_t i = 0; i < n; i++) {
		struct kb_src src = {KB_ORIGIN_FLAG, pend[i].where};

		if ((pend[i].id == KB_OPT_WORKSPACE) != with_workspace)
			continue;
		if (kb_option_set(p, pend[i].id, pend[i].value, &src, &e) == -1)
			die("%s", e.msg);
	}
}

/*
 * kinbox-exec sits beside kinbox in a build tree; installed, it is in
 * BIN/../libexec/kinbox (make install with any PREFIX, DESTDIR staging
 * and a moved tree included), else in the LIBEXECDIR it was built for.
 */
static char *
helper_path(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash, *cand, *real;

	if (n > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			*slash = '\0';
			cand = xasprintf("%s/kinbox-exec", self);
			if (access(cand, X_OK) == 0)
				return cand;
			free(cand);
			cand =
			    xasprintf("%s/../libexec/kinbox/kinbox-exec", self);
			real = realpath(cand, NULL);
			free(cand);
			if (real != NULL && access(real, X_OK) == 0)
				return real;
			free(real);
		}
	}
	cand = xstrdup(KB_LIBEXECDIR "/kinbox-exec");
	if (access(cand, X_OK) == 0)
		return cand;
	die("no sandbox: the helper %s is missing; reinstall kinbox "
	    "(make install) — nothing was run",
	    cand);
}

/* kinbox-exec, the chain's last link of the Linux backends: its path,
 * and an O_PATH descriptor the backend executes through /proc/self/fd
 * (see the plans) */
struct helper {
	char *path;
	int fd;
};

static void
open_helper(struct helper *h)
{
	h->path = helper_path();
	if ((h->fd = open(h->path, O_PATH | O_CLOEXEC)) == -1)
		die("no sandbox: cannot open the helper %s (%s); reinstall "
		    "kinbox — nothing was run",
		    h->path, strerror(errno));
}

/*
 * No sandbox: --unconfined (the explicit escape hatch) or
 * KINBOX_SANDBOX=container (the caller declares a disposable container is
 * the boundary). Secrets are still scrubbed and only the kept descriptors
 * survive; one posture line says what happened.
 */
static void __attribute__((noreturn)) exec_unsandboxed(
    const struct kb_policy *p, const struct kb_opts *o, const char *why)
{
	struct kb_plan pl = {0};
	size_t i;
	int err;

	kb_plan_env(p, caller_env, NULL, &pl);
	if (o->dry_run && o->json) {
		_cleanup_free_ char *json = NULL;

		kb_strv_pushf(&pl.notes, "no sandbox: %s", why);
		for (i = 0; p->argv[i] != NULL; i++)
			kb_strv_push(&pl.argv, p->argv[i]);
		json = kb_plan_json(&pl);
		fputs(json, stdout);
		exit(0);
	}
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
	err = kb_exec_search(p->argv[0], p->argv);
	warnx("%s: %s", p->argv[0], kb_exec_error_text(p->argv[0], err));
	exit(err == ENOENT || err == ENOTDIR ? KB_EXIT_NOTFOUND
					     : KB_EXIT_NOEXEC);
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
	struct kb_host_oracle_ctx ctx = {.home = p->home, .check_access = true};
	struct kb_oracle oracle = kb_host_oracle_template;
	const struct kb_evidence ev = {
	    .backend = run->backend,
	    .exit_status = run->exit_code,
	    .err_tail = run->tail,
	    .err_len = run->tail_len,
	    .out_tail = run->stdout_read ? run->out_tail : NULL,
	    .out_len = run->stdout_read ? run->out_tail_len : 0,
	    .sockets = run->sock.denial,
	    .nsockets = run->sock.ndenial,
	    .hosts = run->egress.denial,
	    .nhosts = run->egress.ndenial,
	};
	_cleanup_free_ struct kb_denial *d =
	    xcalloc(KB_MAX_DENIALS + 1, sizeof(*d));
	char id[KB_ID_LEN + 1];
	_cleanup_free_ char *json = NULL;
	struct kb_err e;
	size_t nd, shown;

	oracle.ctx = &ctx;
	/* one more than is shown: to say that there were more */
	nd = kb_classify_run(&ev, p, &oracle, d, KB_MAX_DENIALS + 1);
	if (nd == 0)
		return;
	shown = nd > KB_MAX_DENIALS ? KB_MAX_DENIALS : nd;
	if (kb_denial_id(id) == -1)
		snprintf(id, sizeof(id), "sbx_unavailable");
	/* one line per distinct denial; their fields are escaped already;
	 * on a fresh line (kb_after_command) */
	for (size_t i = 0; i < shown; i++) {
		_cleanup_free_ char *line = kb_report_line(&d[i], id);

		kb_line(line);
	}
	if (nd > shown)
		kb_line("more denials than these; kinpolicy show ID lists "
			"the ones recorded");
	json = kb_report_json(d, shown, id, p, run->backend, run->exit_code);
	if (o->json_fd != -1) {
		size_t n = strlen(json);

		if (write(o->json_fd, json, n) != (ssize_t)n ||
		    write(o->json_fd, "\n", 1) != 1)
			warnx("--json-fd %d: %s", o->json_fd, strerror(errno));
	}
	if (kb_journal_write(p, id, json, NULL, &e) == -1)
		warnx("the denial journal could not be written (%s); kinpolicy "
		      "cannot retry %s",
		    e.msg, id);
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
 * gitguard/audit.c: escaped here as a whole. */
static void
report_guard(const char *line, bool security)
{
	warnx("%s%s", security ? "SECURITY: " : "", line);
}

/*
 * The git guards after the run. Under the landlock backend no mount held
 * them: what the snapshot recorded before the run is put back first
 * (every process of the run is dead by then: kb_run() killed what the
 * command left), then the audit of what no guard covers; under bwrap the
 * audit alone. Returns the security findings.
 */
static struct kb_gitsnap *gitsnap;
static struct kb_gitsnap_file gitsnap_file = {.dirfd = -1, .fd = -1};
static struct kb_gitwatch *gitwatch;

static int
audit_guards(const struct kb_policy *p)
{
	int n = 0;

	/* every process of the run is dead: all it did is queued */
	kb_gitwatch_stop(gitwatch);
	if (gitsnap != NULL)
		n = kb_gitguard_restore(p, gitsnap, report_guard);
	n += kb_gitguard_audit_watched(p, gitsnap, gitwatch, report_guard);
	kb_gitwatch_free(gitwatch);
	gitwatch = NULL;
	/* the slow last closes (the watch's group, the mount table of the
	 * sandbox): nothing of the run holds them any more */
	kb_close_later_flush();
	if (gitsnap == NULL)
		return n;
	kb_gitsnap_free(gitsnap);
	gitsnap = NULL;
	/* put back: the copy on disk is for a run that dies first */
	kb_gitsnap_forget(&gitsnap_file);
	return n;
}

/* the git watch's events, read on kinbox's thread during the run */
static void
read_watch(void *ctx)
{
	kb_gitwatch_read(ctx);
}

/*
 * The repositories the command makes: from here on the kernel reports
 * every directory the run changes (gitguard/watch.c), so that the audit
 * looks there only; where it cannot (fanotify's filesystem marks need
 * root), every directory of the roots is walked after the run, and
 * --dry-run says so once (kinbox --status too), not every run.
 */
static void
watch_repos(struct kb_policy *p, const struct kb_opts *o)
{
	int err;

	if (o->dry_run)
		err = kb_gitwatch_probe(p->workspace);
	else if ((gitwatch = kb_gitwatch_start(p, &err)) != NULL) {
		err = 0;
		/* read on kinbox's thread as the run goes */
		kb_run_follow(kb_gitwatch_fd(gitwatch), read_watch, gitwatch);
	}
	if (err != 0 && o->dry_run)
		kb_strv_pushf(&p->gitnotes,
		    "new repositories: every directory below the writable "
		    "roots is walked after the run, its cost grows with "
		    "them (fanotify: %s; a filesystem mark needs root)",
		    strerror(err));
}

/*
 * Before anything runs in the workspace: what a landlock run that died
 * before its restore (kinbox killed) left of its snapshot is put back now
 * (gitguard/snapstore.c), whatever this run's backend, and said in one
 * line. After check_stores: a store the command could write is refused
 * before it is read.
 */
static void
recover_guards(const struct kb_policy *p, const struct kb_opts *o)
{
	_cleanup_free_ char *line = NULL;

	if (o->dry_run)
		return;
	if (kb_gitguard_recover(p, &line) > 0 && line != NULL)
		warnx("%s", line);
}

/*
 * --workspace names the workspace and keeps the current directory, where
 * the command runs: that directory must lie in it. A command started in a
 * read-only directory outside its workspace is a mistake -C (chdir) says
 * what was meant by.
 */
static void
check_cwd(struct kb_policy *p)
{
	struct kb_err e;

	if (p->where[KB_OPT_WORKSPACE] == NULL)
		return;
	if (kb_policy_resolve_workspace(p, &e) == -1)
		die("%s", e.msg);
	if (kb_path_within(p->cwd, p->workspace))
		return;
	die("--workspace %s: the current directory %s lies outside it, and the "
	    "command runs in the current directory; cd into the workspace "
	    "first, or give -C %s to run in it",
	    p->workspace, p->cwd, p->workspace);
}

/* kinbox's own stores lie outside what the command may write */
static void
check_stores(struct kb_policy *p)
{
	struct kb_err e;

	if (kb_config_check_stores(p, NULL, &e) == -1)
		die("%s", e.msg);
}

/*
 * Revocation. A run that applied a session or workspace grant is
 * registered while it runs, so that kinpolicy revoke can reach it; when
 * nudged (KB_REVOKE_SIGNAL) it reads its grants' stores again and stops
 * the sandbox if one is gone. The entry is removed when kinbox ends (die()
 * included: atexit); a kinbox killed by SIGKILL leaves a stale entry,
 * which kinpolicy recognises and removes.
 */
static struct kb_registration registry = {.dirfd = -1, .fd = -1};

static void
unregister_at_exit(void)
{
	kb_runs_unregister(&registry);
}

static int
arm_revocation(void *ctx, struct kb_err *e)
{
	const struct kb_policy *p = ctx;
	char why[sizeof(((struct kb_run *)NULL)->revoked)];

	/* armed once: a second attempt (auto's fallback) keeps it */
	if (registry.fd != -1)
		return 0;
	if (kb_runs_register(&registry, p, e) == -1)
		return -1;
	/* a revoke between reading the grants and this registration found
	 * no entry to signal; the stores, read again now, tell */
	if (kb_runs_revoked(p, why, sizeof(why)) > 0)
		return kb_err_set(e, "%s; nothing was run", why);
	return 0;
}

static bool
check_revoked(void *ctx, char *why, size_t len)
{
	const struct kb_policy *p = ctx;
	char what[sizeof(((struct kb_run *)NULL)->revoked) - 32];

	if (kb_runs_revoked(p, what, sizeof(what)) == 0)
		return false; /* a nudge for a grant this run does not use */
	snprintf(why, len, "%s; the command was stopped", what);
	return true;
}

/* KINBOX_SANDBOX names a backend: it wins over the flag and the config
 * (the environment ranks last) */
static void
set_backend_env(struct kb_policy *p, const char *mode)
{
	struct kb_src src = {KB_ORIGIN_ENV, "KINBOX_SANDBOX"};
	struct kb_err e;

	if (strcmp(mode, "auto") != 0 && strcmp(mode, "bwrap") != 0 &&
	    strcmp(mode, "landlock") != 0 && strcmp(mode, "seatbelt") != 0)
		die("KINBOX_SANDBOX=%s: unknown value; use auto, bwrap, "
		    "landlock, seatbelt, container or off, or unset it",
		    mode);
	if (kb_option_set(p, KB_OPT_BACKEND, mode, &src, &e) == -1)
		die("%s", e.msg);
}

/* auto's one line when it runs the landlock backend instead of bwrap */
static void
say_fallback(const char *cause, const char *bwrap_words)
{
	warnx("%s%s%s%s; running under the landlock backend: no private /tmp, "
	      "pid or network namespace (kinbox --status says what holds; "
	      "--require private-tmp refuses instead)",
	    cause, bwrap_words ? " (" : "", bwrap_words ? bwrap_words : "",
	    bwrap_words ? ")" : "");
}

/* The features --require names that `lacking` holds, for a message. */
static char *
feature_words(unsigned lacking)
{
	struct kb_buf b = {0};

	for (unsigned i = 0; i < KB_FEAT__N; i++)
		if (lacking & (1u << i))
			kb_buf_printf(
			    &b, "%s%s", b.s ? ", " : "", kb_feature_name(i));
	return b.s;
}

/*
 * The landlock backend's per-run temporary directory: TMPDIR, TMUX_TMPDIR
 * and java.io.tmpdir inside, /tmp itself being read-only there. Made by
 * kinbox (0700, a fresh name), removed after the run with everything the
 * command left in it, by descriptor (it is the command's tree by then).
 */
static char rundir[PATH_MAX];
static int rundir_fd = -1;
/* the index of run directories in kinbox's state store (-1: none), and
 * the home whose store was there before the masks (NULL: none) */
static int rundir_index = -1;
static const char *rundir_home;

static void
rundir_remove(void)
{
	if (rundir_fd == -1)
		return;
	if (kb_remove_tree_at(rundir_fd) == -1 || rmdir(rundir) == -1) {
		warnx(
		    "note: %s: %s; remove it by hand", rundir, strerror(errno));
	} else {
		kb_landlock_rundir_forget(rundir);
	}
	close(rundir_fd);
	rundir_fd = -1;
}

/* A policy that cannot be set up: its one line, and when a root is
 * read-only because kinbox runs inside an agent's own sandbox, which
 * setting of the agent is in the way */
static void __attribute__((noreturn)) die_policy(const struct kb_err *e)
{
	struct kb_agent_sandbox as;

	if (strstr(e->msg, strerror(EROFS)) != NULL && kb_agent_sandbox(&as))
		die("%s — kinbox runs inside %s (%s): %s", e->msg, as.name,
		    as.evidence, as.fix);
	die("%s", e->msg);
}

static void
rundir_make(const char *workspace)
{
	struct kb_agent_sandbox as;
	struct kb_err e;

	if (rundir_home != NULL) {
		_cleanup_free_ char *ip = NULL;
		struct kb_err ie;

		rundir_index =
		    kb_state_subdir(rundir_home, "rundirs", true, &ip, &ie);
		if (rundir_index < 0)
			rundir_index = -1;
	}
	/* what runs killed before their clean-up left */
	kb_landlock_rundir_sweep(rundir_index);
	rundir_fd = kb_landlock_rundir(
	    workspace, rundir_index, rundir, sizeof(rundir), &e);
	if (rundir_fd == -1) {
		if (kb_agent_sandbox(&as))
			die("no sandbox: %s; kinbox runs inside %s (%s), "
			    "which leaves it nowhere to write: %s — nothing "
			    "was run",
			    e.msg, as.name, as.evidence, as.fix);
		die("no sandbox: %s; check /tmp — nothing was run", e.msg);
	}
	atexit(rundir_remove);
}

/*
 * The seatbelt backend (macOS): the profile and sandbox-exec's argv from
 * the policy (backends/seatbelt.c), printed by --dry-run on any system;
 * run through the POSIX run path (backends/run-posix.c) where
 * sandbox-exec exists. kinbox has not run it on macOS: on Linux a real run
 * is refused, and the test build (kinbox-test) can put a stand-in in
 * sandbox-exec's place (KINBOX_TEST_SANDBOX_EXEC) to drive this path —
 * the stand-in runs the command, it enforces nothing.
 */
/* sandbox-exec, or the test build's stand-in for it (never in the
 * release build: KINBOX_TEST_SANDBOX_EXEC is read by kinbox-test only) */
static const char *
seatbelt_exe(void)
{
	const char *stand_in = kb_test_sandbox_exec();

	return stand_in != NULL ? stand_in : KB_SANDBOX_EXEC;
}

static void
plan_seatbelt(
    const struct kb_policy *p, const struct kb_opts *o, struct kb_plan *plan)
{
	struct kb_seatbelt_host sh = {0};
	struct kb_err e;
	char tmp[PATH_MAX], vartmp[PATH_MAX], sock[PATH_MAX], tag[64];
	char ttys[3][PATH_MAX], runtmp[PATH_MAX + 16];
	char id[KB_ID_LEN + 1];
	const char *exe = seatbelt_exe();
	const char *ssh = getenv("SSH_AUTH_SOCK");

	/* every path the profile names is canonical: on macOS /tmp is
	 * /private/tmp, /var/tmp /private/var/tmp */
	sh.tmp = realpath("/tmp", tmp) != NULL ? tmp : "/tmp";
	sh.var_tmp = realpath("/var/tmp", vartmp) != NULL ? vartmp : NULL;
	if (p->ssh_agent && ssh != NULL && ssh[0] == '/' &&
	    realpath(ssh, sock) != NULL)
		sh.ssh_sock = sock;
	if (o->dry_run || kb_denial_id(id) == -1)
		snprintf(tag, sizeof(tag), "kinbox-dry-run");
	else
		snprintf(tag, sizeof(tag), "kinbox-%s", id);
	sh.run_tag = tag;
	/* the terminals the command inherits: its own, readable and
	 * writable in the profile (every other one is not) */
	for (int fd = 0; fd < 3; fd++) {
		const char *name = isatty(fd) ? ttyname(fd) : NULL;
		bool seen = false;

		if (name == NULL || realpath(name, ttys[sh.ntty]) == NULL)
			continue;
		for (size_t i = 0; i < sh.ntty; i++)
			seen = seen || strcmp(sh.tty[i], ttys[sh.ntty]) == 0;
		if (!seen) {
			sh.tty[sh.ntty] = ttys[sh.ntty];
			sh.ntty++;
		}
	}
#ifdef __APPLE__
	{
		static char user_tmp[PATH_MAX], raw[PATH_MAX];

		if (confstr(_CS_DARWIN_USER_TEMP_DIR, raw, sizeof(raw)) > 0 &&
		    realpath(raw, user_tmp) != NULL)
			sh.user_tmp = user_tmp;
	}
#endif
	/* the run's own temporary directory, as the landlock backend's:
	 * made now, removed (with what the command left in it) at exit,
	 * after kb_run_posix has killed what the command left running */
	{
		const char *made = KB_LANDLOCK_RUNDIR_TEMPLATE;

		if (!o->dry_run) {
			rundir_make(p->workspace);
			made = rundir;
		}
		/* at its canonical path (macOS: /private/tmp/...), which is
		 * what Seatbelt matches */
		snprintf(runtmp, sizeof(runtmp), "%s%s", sh.tmp,
		    strncmp(made, "/tmp/", 5) == 0 ? made + 4 : made);
		sh.run_tmp = runtmp;
	}
	/* no namespaces: /tmp is the host's (writable, as on macOS every
	 * sandbox's), and pids, the network stack and IPC are shared */
	{
		_cleanup_free_ char *lacking = feature_words(
		    p->require & (KB_FEAT_PRIVATE_TMP | KB_FEAT_PID_NS |
				     KB_FEAT_NET_NS | KB_FEAT_IPC_NS));

		if (lacking != NULL)
			die("no sandbox: the seatbelt backend has no %s, which "
			    "--require (or require =) asks for; nothing was "
			    "run",
			    lacking);
	}
	if (kb_seatbelt_plan(p, &sh, exe, caller_env, plan, &e) == -1)
		die("%s", e.msg);
}

/* What the Seatbelt run needs before sandbox-exec starts: a real
 * sandbox-exec (the test build's stand-in says it enforces nothing), no
 * proxy, only 0-2 and the kept descriptors inherited */
static void
seatbelt_prepare(const struct kb_policy *p, const struct kb_plan *plan)
{
#ifndef __APPLE__
	if (kb_test_sandbox_exec() == NULL)
		die("%s%s: Seatbelt is macOS's sandbox (sandbox-exec); on "
		    "Linux use auto, bwrap or landlock",
		    p->where[KB_OPT_BACKEND] ? p->where[KB_OPT_BACKEND]
					     : "backend = ",
		    p->origin[KB_OPT_BACKEND] == KB_ORIGIN_ENV ? "=seatbelt"
							       : " seatbelt");
	warnx("test build: %s stands in for sandbox-exec and enforces "
	      "nothing",
	    plan->exe);
#endif
	/* the egress proxy is Linux code (splice, a network namespace to
	 * listen in) */
	if (p->nallow_host > 0)
		die("--allow-host: the egress proxy runs only under the Linux "
		    "backends so far; under Seatbelt use --net or leave the "
		    "network off — nothing was run");
	if (access(plan->exe, X_OK) == -1)
		die("no sandbox: %s: %s; it ships with macOS (a system "
		    "without it cannot run the seatbelt backend) — nothing was "
		    "run",
		    plan->exe, strerror(errno));
		/* only 0-2 and the kept descriptors reach the command */
#ifdef __APPLE__
	for (long fd = 3, max = sysconf(_SC_OPEN_MAX); fd < max; fd++)
		(void)fcntl((int)fd, F_SETFD, FD_CLOEXEC);
#else
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == -1)
		die_errno("close_range");
#endif
	for (size_t i = 0; i < p->nkeep; i++)
		if (fcntl(p->keep_fd[i], F_SETFD, 0) == -1)
			die_errno("--keep-fd %d", p->keep_fd[i]);
#ifndef __APPLE__
	/* Linux (the test build's stand-in): orphans of the command come
	 * back to kinbox, so the walk at the end finds them all. macOS has
	 * no such thing; there the walk can miss one (said below) */
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
#endif
}

/* What Seatbelt's run could not make sure of: what the command left
 * running (macOS has no subreaper) */
static void
note_left_running(const struct kb_opts *o, const struct kb_run *run)
{
	if (run->walk_errno != 0 && o->verbosity >= 0)
		warnx("note: the process table could not be read (%s): what "
		      "the command left running outside its process group may "
		      "still run",
		    strerror(run->walk_errno));
	else if (run->left_killed > 0 && o->verbosity >= 0)
		warnx("note: killed %u process%s the command left running; one "
		      "that left its process group and whose parent exited "
		      "between two looks may still run (macOS has no "
		      "subreaper)",
		    run->left_killed, run->left_killed == 1 ? "" : "es");
}

/* argv + config → profile: the sources in rank order (see kinbox(1)),
 * the stores checked and what a killed landlock run left put back */
static void
read_profile(int argc, char **argv, const char *mode, struct kb_policy *p,
    struct kb_opts *o)
{
	struct pending *pend =
	    xreallocarray(NULL, (size_t)argc + 1, sizeof(*pend));
	size_t npend = 0;
	bool unconfined_flag = false, with_config;
	struct kb_err e;

	kb_policy_init(p);
	parse_args(argc, argv, o, pend, &npend);
	p->argv = argv + optind;
	for (size_t i = 0; i < npend; i++)
		if (pend[i].id == KB_OPT_UNCONFINED &&
		    strcmp(pend[i].value, "on") == 0)
			unconfined_flag = true;
	/* the sources in rank order: the workspace (which the config
	 * layers need), the config files and grants, the flags, the
	 * project's tightening; validated once, in kb_policy_finalize */
	apply_flags(p, pend, npend, true);
	check_cwd(p);
	with_config = !unconfined_flag &&
		      (mode == NULL || strcmp(mode, "container") != 0);
	if (with_config) {
		if (kb_policy_resolve_workspace(p, &e) == -1)
			die_policy(&e);
		if (kb_config_load_layers(p, NULL, config_warning, &e) == -1)
			die("%s", e.msg);
	}
	apply_flags(p, pend, npend, false);
	if (with_config) {
		if (kb_config_load_project(p, config_warning, &e) == -1)
			die("%s", e.msg);
		/* before anything runs, also before a session's unconfined
		 * grant is obeyed: the roots known so far */
		check_stores(p);
		recover_guards(p, o);
	}
	check_json_fd(p, o);
	for (size_t i = 0; i < npend; i++)
		free((char *)pend[i].where);
	free(pend);
}

/* --unconfined (a flag or a session's grant) and KINBOX_SANDBOX: what may
 * run unsandboxed does so here (exec: no return), what may not is
 * refused */
static void
unsandboxed_if_asked(
    struct kb_policy *p, const struct kb_opts *o, const char *mode)
{
	struct kb_err e;

	if (mode != NULL && *mode != '\0') {
		if (strcmp(mode, "off") == 0 && !p->unconfined)
			die("KINBOX_SANDBOX=off is refused: nothing runs "
			    "unconfined unless --unconfined is given; unset "
			    "KINBOX_SANDBOX");
		if (strcmp(mode, "container") != 0 && strcmp(mode, "off") != 0)
			set_backend_env(p, mode);
	}
	/* No sandbox, no workspace to judge: the escape hatch works from
	 * anywhere, still without secrets and stray descriptors. Its one
	 * combination rule (no typed --allow-host with it) is judged here:
	 * kb_policy_finalize, which judges the others, is not reached. */
	if (p->unconfined && kb_options_validate(p, &e) == -1)
		die("%s", e.msg);
	/* unsandboxed, kinbox execs the command and is gone: no one to
	 * time it or to set its limits after setup */
	if (p->unconfined || (mode != NULL && strcmp(mode, "container") == 0))
		for (unsigned i = 0; i <= KB_RLIM__N; i++)
			if (i == KB_RLIM__N ? p->timeout > 0 : p->rlim_set[i])
				die("%s: kinbox execs the command unsandboxed "
				    "(%s) and is not there to %s; run it "
				    "under timeout(1) or prlimit(1) instead",
				    i == KB_RLIM__N ? "--timeout" : "--rlimit",
				    p->unconfined ? "--unconfined"
						  : "KINBOX_SANDBOX=container",
				    i == KB_RLIM__N ? "stop it" : "limit it");
	/* nor is there a sandbox's tmpfs to size */
	if ((p->unconfined ||
		(mode != NULL && strcmp(mode, "container") == 0)) &&
	    p->origin[KB_OPT_MEMORY] == KB_ORIGIN_FLAG)
		die("--memory: kinbox execs the command unsandboxed (%s) and "
		    "makes no tmpfs to bound; run it under systemd-run -p "
		    "MemoryMax=SIZE instead",
		    p->unconfined ? "--unconfined"
				  : "KINBOX_SANDBOX=container");
	/* nor one to keep it from writing */
	if (mode != NULL && strcmp(mode, "container") == 0 && p->read_only)
		die("%s: KINBOX_SANDBOX=container runs the command "
		    "unsandboxed, "
		    "which cannot keep it from writing; unset KINBOX_SANDBOX "
		    "to run it read-only in a sandbox",
		    p->origin[KB_OPT_READ_ONLY] == KB_ORIGIN_FLAG
			? "--read-only"
			: p->where[KB_OPT_READ_ONLY]);
	if (p->unconfined)
		exec_unsandboxed(p, o,
		    p->origin[KB_OPT_UNCONFINED] == KB_ORIGIN_SESSION
			? "unconfined by a session grant: the "
			  "command runs with the sandbox lifted (secrets still "
			  "scrubbed)"
			: "--unconfined: the command runs with the "
			  "sandbox lifted (secrets still scrubbed)");
	if (mode != NULL && strcmp(mode, "container") == 0)
		exec_unsandboxed(p, o,
		    "KINBOX_SANDBOX=container: the "
		    "container is the boundary, the command runs unconfined "
		    "inside it");
}

/* the profile made final: kinbox's own stores (the run registry, the
 * landlock runs' index), the policy validated, the git repositories
 * scanned */
static void
finish_profile(struct kb_policy *p, const struct kb_opts *o)
{
	struct kb_err e;

	/* before the masks are computed: the registry's directories exist
	 * then, and are hidden like the rest of kinbox's stores */
	if (p->ngrants > 0 && !o->dry_run) {
		if (kb_runs_open(&registry, p->home, &e) == -1)
			die("%s", e.msg);
		atexit(unregister_at_exit);
	}
	/* the landlock backend's index of run directories lives in kinbox's
	 * state store, and only in one that is there before the masks are
	 * computed (then it is masked: its files name the runs' directories,
	 * which nothing else lets another run find; and a run makes nothing
	 * new in the home). Whether it is there is all that is asked now: the
	 * index itself is made only when a landlock run makes its directory
	 * (rundir_make) */
	if (!o->dry_run && p->backend != KB_BACKEND_BWRAP &&
	    p->backend != KB_BACKEND_SEATBELT) {
		_cleanup_free_ char *sp = NULL;
		struct kb_err ie;
		int sfd = kb_state_subdir(p->home, ".", false, &sp, &ie);

		if (sfd >= 0) {
			close(sfd);
			rundir_home = p->home;
		}
	}
	/* the test build only: NULL (/dev) in the release build */
	p->gpu_root = kb_test_dev_root();
	p->proc_devices = kb_test_proc_devices();
	if (kb_policy_finalize(p, &e) == -1 ||
	    kb_gitguard_scan_roots(p, &e) == -1)
		die_policy(&e);
	/* again with TMPDIR settled */
	check_stores(p);
}

/* The plan of one candidate; `fell_back`: bubblewrap, tried first, could
 * not make its namespaces */
static void
plan_for(enum kb_backend_kind b, struct kb_policy *p, const struct kb_opts *o,
    const struct kb_host *host, const char *bwrap, const struct helper *h,
    const char *why, bool fell_back, struct kb_plan *plan)
{
	_cleanup_free_ char *lacking = NULL;
	struct kb_err e;

	switch (b) {
	case KB_BACKEND_SEATBELT:
		plan_seatbelt(p, o, plan);
		return;
	case KB_BACKEND_BWRAP:
		if (kb_bwrap_plan(p, host, bwrap, h->path, h->fd, caller_env,
			plan, &e) == -1)
			die("%s", e.msg);
		return;
	case KB_BACKEND_LANDLOCK:
		lacking = feature_words(kb_landlock_lacks(host, p->require));
		if (lacking != NULL)
			die("no sandbox: the landlock backend has no %s, which "
			    "--require (or require =) asks for%s%s%s; nothing "
			    "was run",
			    lacking, p->backend == KB_BACKEND_AUTO ? " (" : "",
			    p->backend == KB_BACKEND_AUTO ? why : "",
			    p->backend == KB_BACKEND_AUTO ? ")" : "");
		/* a read-only run makes nothing in its workspace */
		if (!o->dry_run && rundir_fd == -1)
			rundir_make(p->read_only ? NULL : p->workspace);
		if (kb_landlock_plan(p, host, h->path, h->fd,
			o->dry_run ? KB_LANDLOCK_RUNDIR_TEMPLATE : rundir,
			rundir_fd, why, caller_env, plan, &e) == -1)
			die("%s%s%s", e.msg, fell_back ? " (" : "",
			    fell_back ? "bubblewrap cannot make its "
					"namespaces here)"
				      : "");
		return;
	case KB_BACKEND_AUTO:
		break;
	}
	die("internal: no planner for backend %d", (int)b);
}

/* What the landlock backend's mounts cannot hold, recorded before the
 * run to be put back after it */
static void
snapshot_guards(struct kb_policy *p, const struct kb_opts *o)
{
	struct kb_err e;

	if (gitsnap != NULL)
		return;
	if (kb_gitguard_snapshot(p, &gitsnap, &e) == -1)
		die("%s", e.msg);
	/* on disk too, held by the keeper until every process of the run is
	 * dead: a run that dies before its restore is put back by the next
	 * one */
	if (kb_gitsnap_persist(p, gitsnap, &gitsnap_file, &e) == -1 &&
	    o->verbosity >= 0)
		warnx("note: the git guards' snapshot cannot be kept on disk "
		      "(%s): if kinbox is killed during this run, what the "
		      "command planted in .git stays until you check it",
		    e.msg);
	kb_run_hold(gitsnap_file.fd);
}

/* → plan → run: each candidate's plan in turn, printed by --dry-run
 * (true: nothing more to do), else run; bubblewrap that cannot make its
 * namespaces gives way to the next candidate, and says so */
static bool
plan_and_run(struct kb_policy *p, const struct kb_opts *o,
    const struct kb_host *host, const char *bwrap, const struct helper *h,
    struct kb_candidates *c, struct kb_plan *plan, struct kb_run *run)
{
	struct kb_stopper stop = {
	    KB_REVOKE_SIGNAL, arm_revocation, check_revoked, p};
	struct kb_err e;

	for (size_t i = 0; i < c->n; i++) {
		enum kb_backend_kind b = c->v[i];

		plan_for(b, p, o, host, bwrap, h, c->why, i > 0, plan);
		if (o->dry_run || o->verbosity > 0) {
			_cleanup_free_ char *text = o->dry_run && o->json
							? kb_plan_json(plan)
							: kb_plan_render(plan);

			fputs(text, o->dry_run ? stdout : stderr);
			if (o->dry_run) {
				kb_plan_free(plan);
				kb_policy_free(p);
				return true;
			}
		}
		if (b == KB_BACKEND_SEATBELT) {
			seatbelt_prepare(p, plan);
			if (kb_seatbelt_run(plan, run, &e) == -1)
				die("%s", e.msg);
			break;
		}
		if (b == KB_BACKEND_LANDLOCK)
			snapshot_guards(p, o);
		/* the test build says so where it matters */
		if (kb_resolve_test_note != NULL && plan->proxy_fd != -1 &&
		    o->verbosity >= 0)
			warnx("%s", kb_resolve_test_note);
		if (kb_run(plan, p->ngrants > 0 ? &stop : NULL, run, &e) == -1)
			die("%s", e.msg);
		/* bubblewrap could not make its namespaces and nothing ran:
		 * the next candidate, said */
		if (b == KB_BACKEND_BWRAP && i + 1 < c->n && !run->started &&
		    !WIFSIGNALED(run->wstatus) &&
		    kb_bwrap_userns_failure(run->setup_err)) {
			char first[512];

			snprintf(first, sizeof(first), "%.*s",
			    (int)strcspn(run->setup_err, "\n"), run->setup_err);
			snprintf(c->why, sizeof(c->why),
			    "chosen by auto: bubblewrap cannot make its "
			    "namespaces here (%s)",
			    first);
			if (o->verbosity >= 0 &&
			    kb_landlock_lacks(host, p->require) == 0)
				say_fallback("bubblewrap cannot make its "
					     "namespaces here",
				    first);
			kb_plan_free(plan);
			continue;
		}
		break;
	}
	return false;
}

/* the backend could not set up: its own words explained (bubblewrap's,
 * sandbox-exec's), or killed before it started (its status) */
static int
report_not_started(const struct kb_policy *p, const struct kb_opts *o,
    const struct kb_run *run, const struct kb_host *host)
{
	_cleanup_free_ char *cause = NULL;

	audit_guards(p);
	if (WIFSIGNALED(run->wstatus))
		return run->exit_code; /* killed before it started */
	if (run->backend == KB_BACKEND_SEATBELT) {
		cause = kb_posix_explain_failure(run->setup_err);
		die("%s", cause);
	}
	cause = kb_bwrap_explain_failure(run->setup_err);
	if (o->verbosity > 0)
		fputs(run->setup_err, stderr);
	/* --backend bwrap was asked for: the way out is the other */
	if (run->backend == KB_BACKEND_BWRAP &&
	    kb_bwrap_userns_failure(run->setup_err) &&
	    host->landlock_abi >= KB_LANDLOCK_ABI_MIN) {
		char *tail = strstr(cause, " — nothing was run");

		if (tail != NULL)
			*tail = '\0';
		die("%s; --backend auto or landlock would run it under "
		    "Landlock instead (weaker: kinbox --status) — "
		    "nothing was run",
		    cause);
	}
	die("%s", cause);
}

/* what the run left kinbox to say after the command ran */
static void
report_ran(
    const struct kb_policy *p, const struct kb_opts *o, struct kb_run *run)
{
	if (run->exec_errno != 0)
		warnx("%s: %s", p->argv[0],
		    kb_exec_error_text(p->argv[0], run->exec_errno));
	if (audit_guards(p) > 0 && o->verbosity >= 0)
		warnx("SECURITY: the command tampered with git metadata; see "
		      "the lines above");
	if (run->exec_errno == 0 && run->exit_code != 0 &&
	    run->sock.failed > 0 && o->verbosity >= 0)
		warnx(
		    "%llu unix-socket connect%s refused: kinbox could not act "
		    "for the command (its memory or descriptors out of reach: "
		    "a program that is executable but not readable?); make "
		    "it readable, or run as root",
		    run->sock.failed,
		    run->sock.failed == 1 ? " was" : "s were");
	if (run->exec_errno == 0 && run->exit_code != 0 && run->sock.busy > 0 &&
	    o->verbosity >= 0)
		warnx("%llu blocking unix-socket or TCP connect%s failed "
		      "with EAGAIN: kinbox lets at most %zu connects of a "
		      "run wait at once, %zu of them for one address (a "
		      "listener that does not accept, a slow handshake)",
		    run->sock.busy, run->sock.busy == 1 ? "" : "s",
		    run->sock.max_wait, run->sock.max_per_peer);
	/* what the egress proxy refused is reported whatever the exit
	 * status: kinbox saw it (a command may take the 403 and succeed,
	 * without what it asked for) */
	if (run->exec_errno == 0 &&
	    (run->exit_code != 0 || run->egress.ndenial > 0))
		report_denial(p, o, run);
	/* Seatbelt has no private /tmp and no overlays: nothing is lost */
	if (run->exec_errno == 0 && run->exit_code != 0 &&
	    run->backend != KB_BACKEND_SEATBELT)
		kb_run_note_lost_files(p, run, rundir);
}

/* → classify → report: the run's outcome as one line (kinbox's own
 * failures, exit 125), the timeout's (124), else the command's exit
 * status and a denial when the sandbox is why it failed */
static int
report_run(struct kb_policy *p, const struct kb_opts *o, struct kb_plan *plan,
    struct kb_run *run, const struct kb_host *host)
{
	enum kb_outcome out = kb_run_outcome(run);
	int status = run->exit_code;

	/* the run is over: nothing left for kinpolicy revoke to stop */
	kb_runs_unregister(&registry);
	/* from here on kinbox's lines follow the command's output: each
	 * starts clean (SGR reset on a terminal, a fresh line) */
	kb_after_command(
	    run->tail_len > 0 && run->tail[run->tail_len - 1] != '\n');
	if (run->backend == KB_BACKEND_SEATBELT)
		note_left_running(o, run);
	/* what Landlock kept unreadable when the host replaced it: a note
	 * for a run that started (and was not stopped for something else) */
	if (out >= KB_OUT_SETUP && run->replaced[0] != '\0') {
		char *line, *save = NULL;

		for (line = strtok_r(run->replaced, "\n", &save); line != NULL;
		     line = strtok_r(NULL, "\n", &save))
			fprintf(stderr,
			    "kinbox: note: %s was replaced on the host "
			    "during the run; the command could not read the "
			    "new one (Landlock)\n",
			    line);
	}
	switch (out) {
	case KB_OUT_NOT_STARTED:
		return report_not_started(p, o, run, host);
	case KB_OUT_TIMED_OUT:
		/* not a denial: one line, timeout(1)'s status */
		if (audit_guards(p) > 0 && o->verbosity >= 0)
			warnx("SECURITY: the command tampered with git "
			      "metadata; see the lines above");
		warnx("the command ran out of its --timeout %llds%s and was "
		      "stopped (exit %d)",
		    p->timeout, run->started ? "" : " before it started",
		    KB_EXIT_TIMEOUT);
		status = KB_EXIT_TIMEOUT;
		break;
	case KB_OUT_RAN:
		report_ran(p, o, run);
		break;
	case KB_OUT_REVOKED:
	case KB_OUT_BROKEN:
	case KB_OUT_SETUP:
	case KB_OUT_CHECK:
	case KB_OUT_CONFINE:
	case KB_OUT_RLIMIT:
	case KB_OUT_PROXY: {
		bool audit = false;
		char *line = kb_run_outcome_line(out, run, plan, &audit);

		if (audit)
			audit_guards(p);
		die("%s", line);
	}
	}
	kb_plan_free(plan);
	kb_policy_free(p);
	return status;
}

int
main(int argc, char **argv)
{
	struct kb_policy pol;
	struct kb_opts o = {.json_fd = -1};
	struct kb_plan plan;
	struct kb_host host = {0};
	struct kb_run run;
	struct kb_candidates cands;
	struct helper helper = {NULL, -1};
	_cleanup_free_ char *bwrap = NULL;
	const char *mode = getenv("KINBOX_SANDBOX");
	struct kb_err e;
	int status;

	kb_progname = "kinbox";
	caller_env = kb_self_env_guard(argv);
	/* kinbox completion SHELL: only as the first word (kinbox --
	 * completion runs a program of that name) */
	if (argc >= 2 && strcmp(argv[1], "completion") == 0) {
		if (argc != 3)
			die("completion takes one shell, bash or zsh: kinbox "
			    "completion bash (a command named completion: "
			    "kinbox -- completion)");
		if (kb_completion_print(stdout, argv[2]) == -1)
			die("completion %s: no completion for that shell; give "
			    "bash or zsh",
			    argv[2]);
		return fflush(stdout) == 0 && !ferror(stdout) ? 0
							      : KB_EXIT_ERROR;
	}
	/* argv + config → profile */
	read_profile(argc, argv, mode, &pol, &o);
	unsandboxed_if_asked(&pol, &o, mode);
	finish_profile(&pol, &o);
	/* → the backends to try; on Linux kinbox-exec, the chain's last
	 * link, and the git watch */
	if (kb_backend_candidates(&pol, o.dry_run, &host, &bwrap, &cands, &e) ==
	    -1)
		die("%s", e.msg);
	if (cands.fallback != NULL && o.verbosity >= 0 && !o.dry_run &&
	    kb_landlock_lacks(&host, pol.require) == 0)
		say_fallback(cands.fallback, NULL);
	if (cands.v[0] != KB_BACKEND_SEATBELT) {
		open_helper(&helper);
		watch_repos(&pol, &o);
	}
	/* → plan → run */
	if (plan_and_run(&pol, &o, &host, bwrap, &helper, &cands, &plan, &run))
		status = 0; /* --dry-run */
	else                /* → classify → report */
		status = report_run(&pol, &o, &plan, &run, &host);
	free(helper.path);
	if (helper.fd != -1)
		close(helper.fd);
	return status;
}
