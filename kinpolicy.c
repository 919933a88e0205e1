/*
 * kinpolicy — the sidecar of kinbox: everything about policy that is not
 * running a command. kinbox only reads policy; kinpolicy is the only writer
 * of grants and decisions.
 *
 *   fingerprint  classify a failed command's stderr against a policy
 *   session new  start a session (grants that last while KINBOX_SESSION is
 *                set to its id)
 *   show ID      the journaled operation behind a denial
 *   grant ID     record a human's decision: capabilities and lifetime
 *   decline ID   record a refusal, with a note for the agent
 *   retry ID     run exactly the journaled argv again, once
 *   pending      denials awaiting a decision
 *   grants       session and workspace grants, numbered
 *   revoke N     remove grant N (or --all)
 *   decide       the permission gate: may this tool call run?
 *   classify     is this shell command provably read-only?
 *   check-write  may an in-process edit tool write this path?
 *   allow        a human's session "always" answer for a signature
 *
 * Verbs are a table of {name, handler, usage}; each parses its own flags.
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

#include "backends/backend.h"
#include "classify/denial.h"
#include "classify/readonly.h"
#include "classify/report.h"
#include "profile/decide.h"
#include "profile/grants.h"
#include "profile/policy.h"
#include "util.h"

#ifndef KB_VERSION
#define KB_VERSION "0.1.0"
#endif

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
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "net", no_argument, NULL, 'n' },
		{ "ssh-agent", no_argument, NULL, 's' },
		{ "status", required_argument, NULL, 'x' },
		{ "workspace", required_argument, NULL, 'C' },
		{ "write", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	static char tail[KB_TAIL];
	struct kb_host_oracle_ctx ctx = { .check_access = true };
	struct kb_oracle oracle = kb_host_oracle_template;
	struct kb_policy p;
	struct kb_denial d;
	struct kb_err e;
	const char *errstr;
	bool json = false, ssh = false, have_status = false;
	long long status = 0;
	size_t len;
	int c;

	kb_policy_init(&p);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:C:w:", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'n':
			p.net = true;
			p.net_origin = KB_ORIGIN_FLAG;
			break;
		case 's':
			ssh = true;
			break;
		case 'x':
			status = strtonum(optarg, 0, 255, &errstr);
			if (errstr != NULL)
				die("--status %s: %s; give the exit status, "
				    "0-255", optarg, errstr);
			have_status = true;
			break;
		case 'C':
			if (kb_policy_set_workspace(&p, optarg, &e) == -1)
				die("%s", e.msg);
			break;
		case 'w':
			if (kb_policy_add_write(&p, optarg, KB_ORIGIN_FLAG,
				&e) == -1)
				die("%s", e.msg);
			break;
		case ':':
			die("option %s needs a value; see kinpolicy --help",
			    argv[optind - 1]);
		default:
			die("fingerprint: unknown option '%s'; see kinpolicy "
			    "--help", argv[optind - 1]);
		}
	}
	if (!have_status)
		die("fingerprint: --status N is required (the command's exit "
		    "status)");
	if (optind != argc)
		die("fingerprint: unexpected argument '%s'; the stderr text "
		    "goes on stdin", argv[optind]);
	if (ssh && !p.net)
		die("--ssh-agent needs --net, as in kinbox");
	if (kb_policy_finalize(&p, &e) == -1)
		die("%s", e.msg);
	/* set after finalize: the agent socket of this shell is not needed
	 * to judge someone else's run */
	p.ssh_agent = ssh;
	ctx.home = p.home;
	oracle.ctx = &ctx;
	len = read_tail(tail);
	kb_classify((int)status, tail, len, &p, &oracle, &d);
	if (json) {
		char *text = kb_report_fingerprint_json(&d);

		printf("%s\n", text);
		free(text);
	} else if (d.cls == KB_CLASS_NONE) {
		printf("none: an ordinary failure, not the sandbox\n");
	} else {
		char *line = kb_report_line(&d, "no id");

		printf("%s\nevidence: %s\n", line, d.evidence);
		free(line);
	}
	kb_policy_free(&p);
	return 0;
}


/* --- the journal ------------------------------------------------------- */

static char *
home_dir(void)
{
	char *h = kb_paths_home();

	if (h == NULL)
		die("no home directory; set HOME");
	return h;
}

/* ids are what kinbox made: sbx_ and 16 hex digits, never a path */
static void
check_id(const char *id)
{
	size_t n = strlen(id);

	if (n != KB_ID_LEN || strncmp(id, "sbx_", 4) != 0 ||
	    strspn(id + 4, "0123456789abcdef") != 16)
		die("'%s' is not a denial id (sbx_ and 16 hex digits); see "
		    "kinpolicy pending", id);
}

static char *
journal_file(const char *home, const char *id, const char *suffix)
{
	_cleanup_free_ char *dir = kb_journal_dir(home);

	if (dir == NULL)
		die("no journal directory; set HOME or XDG_STATE_HOME");
	return xasprintf("%s/%s%s", dir, id, suffix);
}

/* the journaled record of a denial; dies when there is none */
static json_t *
load_record(const char *home, const char *id)
{
	_cleanup_free_ char *f = journal_file(home, id, ".json");
	json_error_t err;
	json_t *j = json_load_file(f, 0, &err);

	if (j == NULL)
		die("no denial %s in the journal (%s); see kinpolicy pending", id,
		    err.text);
	return j;
}

static json_t *
load_decision(const char *home, const char *id)
{
	_cleanup_free_ char *f = journal_file(home, id, ".decision.json");

	return json_load_file(f, 0, NULL);
}

static bool
retried(const char *home, const char *id)
{
	_cleanup_free_ char *f = journal_file(home, id, ".retried");

	return access(f, F_OK) == 0;
}

static const char *
jstr(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s != NULL ? s : "";
}

static void
print_argv(json_t *argv)
{
	size_t i;
	json_t *a;

	json_array_foreach(argv, i, a) {
		struct kb_buf b = { 0 };

		kb_buf_shquote(&b, json_string_value(a) ? json_string_value(a) :
							  "");
		printf("%s%s", i ? " " : "", b.s);
		kb_buf_free(&b);
	}
	printf("\n");
}

static const char *
state_of(const char *home, const char *id, json_t *dec)
{
	if (retried(home, id))
		return "retried";
	if (dec == NULL)
		return "pending";
	if (strcmp(jstr(dec, "decision"), "declined") == 0)
		return "declined";
	return "granted";
}

static void
print_suggest(json_t *rec)
{
	json_t *s = json_object_get(rec, "suggest"), *w;
	size_t i;

	printf("suggested:");
	json_array_foreach(json_object_get(s, "write_paths"), i, w)
		printf(" --write %s", json_string_value(w));
	if (json_is_true(json_object_get(s, "ssh_agent")))
		printf(" --ssh-agent");
	if (json_is_true(json_object_get(s, "network")))
		printf(" --net");
	if (json_is_true(json_object_get(s, "unconfined")))
		printf(" --unconfined (no narrower grant exists)");
	printf("\n");
}

static void
dump_json(json_t *o)
{
	char *t = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);

	if (t == NULL)
		die("out of memory");
	printf("%s\n", t);
	free(t);
}

static bool
want_json(int *argc, char **argv)
{
	for (int i = 1; i < *argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			memmove(argv + i, argv + i + 1,
			    (size_t)(*argc - i) * sizeof(char *));
			(*argc)--;
			return true;
		}
	}
	return false;
}

/* --- verbs --------------------------------------------------------------- */

static int
cmd_session(int argc, char **argv)
{
	bool json = want_json(&argc, argv);
	struct kb_err e;
	char *id;

	if (argc != 2 || strcmp(argv[1], "new") != 0)
		die("usage: kinpolicy session new [--json]");
	if ((id = kb_session_new(&e)) == NULL)
		die("%s", e.msg);
	if (json) {
		json_t *o = json_pack("{s:s}", "session", id);

		dump_json(o);
		json_decref(o);
	} else {
		printf("%s\n", id);
	}
	free(id);
	return 0;
}

static int
cmd_show(int argc, char **argv)
{
	bool json = want_json(&argc, argv);
	_cleanup_free_ char *home = home_dir();
	json_t *rec, *dec;

	if (argc != 2)
		die("usage: kinpolicy show ID [--json]");
	check_id(argv[1]);
	rec = load_record(home, argv[1]);
	dec = load_decision(home, argv[1]);
	if (json) {
		json_object_set_new(rec, "state",
		    json_string(state_of(home, argv[1], dec)));
		if (dec != NULL)
			json_object_set(rec, "decision", dec);
		dump_json(rec);
	} else {
		printf("denial:    %s (%s)\n", argv[1],
		    state_of(home, argv[1], dec));
		printf("command:   ");
		print_argv(json_object_get(rec, "argv"));
		printf("cwd:       %s\n", jstr(rec, "cwd"));
		printf("class:     %s (%s)\n", jstr(rec, "class"),
		    jstr(rec, "reason"));
		if (*jstr(rec, "path"))
			printf("path:      %s\n", jstr(rec, "path"));
		if (*jstr(rec, "host"))
			printf("host:      %s\n", jstr(rec, "host"));
		printf("evidence:  %s\n", jstr(rec, "evidence"));
		print_suggest(rec);
		if (dec != NULL && *jstr(dec, "note"))
			printf("note:      %s\n", jstr(dec, "note"));
		printf("warning:   the first attempt ran until it failed; part "
		       "of it may already have happened\n");
	}
	json_decref(rec);
	json_decref(dec);
	return 0;
}

/* writes <id>.decision.json once: a decision is not changed afterwards */
static void
write_decision(const char *home, const char *id, json_t *dec)
{
	_cleanup_free_ char *f = journal_file(home, id, ".decision.json");
	char *text = json_dumps(dec, JSON_COMPACT | JSON_PRESERVE_ORDER);
	size_t n;
	int fd;

	if (text == NULL)
		die("out of memory");
	fd = open(f, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd == -1) {
		if (errno == EEXIST)
			die("%s already has a decision; see kinpolicy show %s",
			    id, id);
		die_errno("%s", f);
	}
	n = strlen(text);
	if (write(fd, text, n) != (ssize_t)n || close(fd) == -1)
		die_errno("%s", f);
	free(text);
}

static char *
ask(const char *prompt)
{
	static char line[1024];

	fputs(prompt, stdout);
	fflush(stdout);
	if (fgets(line, sizeof(line), stdin) == NULL)
		return NULL;
	line[strcspn(line, "\n")] = '\0';
	return line;
}

static bool
yes(const char *prompt)
{
	char *a = ask(prompt);

	return a != NULL && (a[0] == 'y' || a[0] == 'Y');
}

/* On a terminal without capability flags: offer each suggested
 * capability, then the lifetime, or a decline with a note. Returns false
 * for a decline (note in *note). */
static bool
interactive(json_t *rec, struct kb_grant *g, char **note)
{
	json_t *s = json_object_get(rec, "suggest"), *w;
	size_t i;
	char *a;

	printf("denial %s: %s (%s)\n", jstr(rec, "id"), jstr(rec, "class"),
	    jstr(rec, "evidence"));
	printf("command: ");
	print_argv(json_object_get(rec, "argv"));
	json_array_foreach(json_object_get(s, "write_paths"), i, w) {
		char q[4200];

		snprintf(q, sizeof(q), "grant --write %s? [y/N] ",
		    json_string_value(w));
		if (yes(q))
			kb_strv_push(&g->write_paths, json_string_value(w));
	}
	if (json_is_true(json_object_get(s, "network")))
		g->net = yes("grant --net? [y/N] ");
	if (json_is_true(json_object_get(s, "ssh_agent")))
		g->ssh_agent = yes("grant --ssh-agent? [y/N] ");
	if (json_is_true(json_object_get(s, "unconfined")))
		g->unconfined = yes("grant --unconfined (no sandbox at all)? "
				    "[y/N] ");
	a = ask("lifetime: [o]nce, [s]ession, [w]orkspace, or [d]ecline? ");
	if (a == NULL || a[0] == 'd' || a[0] == '\0' ||
	    (g->write_paths.n == 0 && !g->net && !g->ssh_agent &&
		!g->unconfined)) {
		a = ask("note for the agent (why not): ");
		*note = xstrdup(a != NULL ? a : "");
		return false;
	}
	g->life = a[0] == 's' ? KB_LIFE_SESSION :
	    a[0] == 'w'	      ? KB_LIFE_WORKSPACE :
				KB_LIFE_ONCE;
	return true;
}

static json_t *
grant_json(const struct kb_grant *g)
{
	json_t *o = json_object(), *w = json_array();

	for (size_t i = 0; i < g->write_paths.n; i++)
		json_array_append_new(w, json_string(g->write_paths.v[i]));
	json_object_set_new(o, "decision", json_string("granted"));
	json_object_set_new(o, "lifetime",
	    json_string(kb_lifetime_name(g->life)));
	json_object_set_new(o, "write_paths", w);
	json_object_set_new(o, "network", json_boolean(g->net));
	json_object_set_new(o, "ssh_agent", json_boolean(g->ssh_agent));
	json_object_set_new(o, "unconfined", json_boolean(g->unconfined));
	return o;
}

static int
cmd_grant(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "net", no_argument, NULL, 'n' },
		{ "once", no_argument, NULL, 'o' },
		{ "session", no_argument, NULL, 's' },
		{ "ssh-agent", no_argument, NULL, 'a' },
		{ "unconfined", no_argument, NULL, 'u' },
		{ "workspace", no_argument, NULL, 'W' },
		{ "write", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = want_json(&argc, argv);
	_cleanup_free_ char *home = home_dir();
	struct kb_grant g = { .life = KB_LIFE_ONCE };
	int lifetimes = 0, c;
	struct kb_err e;
	json_t *rec, *dec, *pol;
	char *note = NULL;
	const char *id;

	if (argc < 2 || argv[1][0] == '-')
		die("usage: kinpolicy grant ID [--write DIR]... [--net] "
		    "[--ssh-agent] [--unconfined] --once|--session|--workspace");
	id = argv[1];
	/* the options follow the id: parse argv[1..] with the id as argv[0] */
	argc--;
	argv++;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:w:", opts, NULL)) != -1) {
		switch (c) {
		case 'w':
			kb_strv_push(&g.write_paths, optarg);
			break;
		case 'n':
			g.net = true;
			break;
		case 'a':
			g.ssh_agent = true;
			break;
		case 'u':
			g.unconfined = true;
			break;
		case 'o':
		case 's':
		case 'W':
			lifetimes++;
			g.life = c == 'o' ? KB_LIFE_ONCE :
			    c == 's'	  ? KB_LIFE_SESSION :
					    KB_LIFE_WORKSPACE;
			break;
		case ':':
			die("option %s needs a value", argv[optind - 1]);
		default:
			die("grant: unknown option '%s'; see kinpolicy --help",
			    argv[optind - 1]);
		}
	}
	if (optind != argc)
		die("grant: unexpected argument '%s'; the id comes first",
		    argv[optind]);
	check_id(id);
	rec = load_record(home, id);
	if (lifetimes > 1)
		die("give one lifetime: --once, --session or --workspace");
	if (g.write_paths.n == 0 && !g.net && !g.ssh_agent && !g.unconfined) {
		if (!isatty(0) || !isatty(1))
			die("grant %s: name the capabilities (--write DIR, --net, "
			    "--ssh-agent, --unconfined) and a lifetime; a "
			    "question is only asked on a terminal", id);
		if (!interactive(rec, &g, &note)) {
			dec = json_pack("{s:s,s:s}", "decision", "declined",
			    "note", note);
			write_decision(home, id, dec);
			json_decref(dec);
			printf("declined %s\n", id);
			free(note);
			json_decref(rec);
			kb_strv_free(&g.write_paths);
			return 0;
		}
	} else if (lifetimes == 0) {
		die("grant %s: give a lifetime: --once, --session or --workspace",
		    id);
	}
	if (retried(home, id))
		die("%s was already retried; a new denial needs a new grant", id);
	if (kb_grant_check(&g, home, &e) == -1)
		die("%s", e.msg);
	pol = json_object_get(rec, "policy");
	/* the decision claims the id first (created exclusively): a second
	 * grant or a grant after a decline stores nothing */
	dec = grant_json(&g);
	write_decision(home, id, dec);
	if (g.life != KB_LIFE_ONCE &&
	    kb_grant_store(&g, home, getenv("KINBOX_SESSION"),
		jstr(pol, "workspace"), id, &e) == -1) {
		_cleanup_free_ char *f = journal_file(home, id, ".decision.json");

		unlink(f);
		die("%s", e.msg);
	}
	if (json)
		dump_json(dec);
	else
		printf("granted %s (%s)\n", id, kb_lifetime_name(g.life));
	json_decref(dec);
	json_decref(rec);
	kb_strv_free(&g.write_paths);
	return 0;
}

static int
cmd_decline(int argc, char **argv)
{
	_cleanup_free_ char *home = home_dir();
	json_t *rec, *dec;

	if (argc != 4 || strcmp(argv[2], "--note") != 0)
		die("usage: kinpolicy decline ID --note TEXT");
	check_id(argv[1]);
	rec = load_record(home, argv[1]);
	dec = json_pack("{s:s,s:s}", "decision", "declined", "note", argv[3]);
	if (dec == NULL)
		die("--note: not valid text (UTF-8)");
	write_decision(home, argv[1], dec);
	printf("declined %s\n", argv[1]);
	json_decref(dec);
	json_decref(rec);
	return 0;
}

/* kinbox beside kinpolicy (a build tree, an install), else from PATH */
static char *
find_kinbox(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			char *k;

			*slash = '\0';
			k = xasprintf("%s/kinbox", self);
			if (access(k, X_OK) == 0)
				return k;
			free(k);
		}
	}
	return xstrdup("kinbox");
}

static int
cmd_retry(int argc, char **argv)
{
	_cleanup_free_ char *home = home_dir();
	_cleanup_free_ char *marker = NULL;
	struct kb_strv av = { 0 };
	json_t *rec, *dec, *pol, *v;
	const char *id;
	size_t i;
	int fd;

	if (argc != 2)
		die("usage: kinpolicy retry ID");
	id = argv[1];
	check_id(id);
	rec = load_record(home, id);
	dec = load_decision(home, id);
	if (dec == NULL)
		die("%s has no decision yet; a human grants it first "
		    "(kinpolicy grant %s ...)", id, id);
	if (strcmp(jstr(dec, "decision"), "granted") != 0)
		die("%s was declined: %s", id, jstr(dec, "note"));
	if (!json_is_true(json_object_get(rec, "argv_exact")))
		die("%s: the command's arguments were not all text (UTF-8), so "
		    "the journal cannot replay them exactly; run it again "
		    "yourself", id);
	/* the call as the agent made it (its flags); config, session and
	 * workspace grants apply again by themselves, as they stand now, so a
	 * revoked grant stays revoked */
	pol = json_object_get(rec, "flags");
	if (pol == NULL)
		die("%s: the journal record has no flags (an older kinbox); run "
		    "the command again yourself", id);
	kb_strv_push(&av, "kinbox");
	kb_strv_push(&av, "-C");
	kb_strv_push(&av, jstr(json_object_get(rec, "policy"), "workspace"));
	json_array_foreach(json_object_get(pol, "write_paths"), i, v) {
		kb_strv_push(&av, "--write");
		kb_strv_push(&av, json_string_value(v));
	}
	json_array_foreach(json_object_get(pol, "keep_env"), i, v) {
		kb_strv_push(&av, "--keep-env");
		kb_strv_push(&av, json_string_value(v));
	}
	if (json_is_true(json_object_get(pol, "network")))
		kb_strv_push(&av, "--net");
	if (json_is_true(json_object_get(pol, "ssh_agent")))
		kb_strv_push(&av, "--ssh-agent");
	/* a once grant rides on this call only; session and workspace
	 * grants are in their stores, where kinbox finds them */
	if (strcmp(jstr(dec, "lifetime"), "once") == 0) {
		json_array_foreach(json_object_get(dec, "write_paths"), i, v) {
			kb_strv_push(&av, "--write");
			kb_strv_push(&av, json_string_value(v));
		}
		if (json_is_true(json_object_get(dec, "network")) &&
		    !json_is_true(json_object_get(pol, "network")))
			kb_strv_push(&av, "--net");
		if (json_is_true(json_object_get(dec, "ssh_agent")) &&
		    !json_is_true(json_object_get(pol, "ssh_agent")))
			kb_strv_push(&av, "--ssh-agent");
		if (json_is_true(json_object_get(dec, "unconfined")))
			kb_strv_push(&av, "--unconfined");
	}
	kb_strv_push(&av, "--");
	json_array_foreach(json_object_get(rec, "argv"), i, v)
		kb_strv_push(&av, json_string_value(v));
	if (chdir(jstr(rec, "cwd")) == -1)
		die_errno("%s: cannot go back to the journaled directory %s", id,
		    jstr(rec, "cwd"));
	/* consumed before it runs: a second retry fails, even concurrently */
	marker = journal_file(home, id, ".retried");
	fd = open(marker, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd == -1) {
		if (errno == EEXIST)
			die("%s was already retried; retry runs a granted "
			    "denial once", id);
		die_errno("%s", marker);
	}
	close(fd);
	{
		char *k = find_kinbox();

		execvp(k, av.v);
		die_errno("cannot run %s", k);
	}
}

static int
cmd_pending(int argc, char **argv)
{
	bool json = want_json(&argc, argv);
	_cleanup_free_ char *home = home_dir();
	_cleanup_free_ char *dir = kb_journal_dir(home);
	struct dirent **names = NULL;
	json_t *list = json_array();
	int n;

	(void)argv;
	if (argc != 1)
		die("usage: kinpolicy pending [--json]");
	n = dir != NULL ? scandir(dir, &names, NULL, alphasort) : -1;
	for (int i = 0; i < n; i++) {
		char id[KB_ID_LEN + 1];
		const char *nm = names[i]->d_name;
		json_t *rec, *dec;

		if (strlen(nm) != KB_ID_LEN + 5 ||
		    strcmp(nm + KB_ID_LEN, ".json") != 0) {
			free(names[i]);
			continue;
		}
		memcpy(id, nm, KB_ID_LEN);
		id[KB_ID_LEN] = '\0';
		free(names[i]);
		dec = load_decision(home, id);
		if (dec != NULL || retried(home, id)) {
			json_decref(dec);
			continue;
		}
		{
			_cleanup_free_ char *f = journal_file(home, id, ".json");

			rec = json_load_file(f, 0, NULL);
		}
		if (rec == NULL)
			continue;
		if (json) {
			json_array_append(list, rec);
		} else {
			printf("%s  %-7s %s  ", id, jstr(rec, "class"),
			    *jstr(rec, "path") ? jstr(rec, "path") :
						 jstr(rec, "host"));
			print_argv(json_object_get(rec, "argv"));
		}
		json_decref(rec);
	}
	free(names);
	if (json)
		dump_json(list);
	json_decref(list);
	return 0;
}

static int
cmd_grants(int argc, char **argv)
{
	bool json = want_json(&argc, argv);
	_cleanup_free_ char *home = home_dir();
	struct kb_stored_grant *g = NULL;
	size_t n;
	json_t *list = json_array();

	(void)argv;
	if (argc != 1)
		die("usage: kinpolicy grants [--json]");
	n = kb_grants_list(home, getenv("KINBOX_SESSION"), &g);
	for (size_t i = 0; i < n; i++) {
		if (json) {
			json_array_append_new(list, json_pack("{s:I,s:s,s:s,s:s,"
			    "s:s}", "n", (json_int_t)(i + 1), "lifetime",
			    g[i].lifetime, "file", g[i].file, "section",
			    g[i].header, "body", g[i].body));
			continue;
		}
		printf("%zu  %s  %s  (%s)\n", i + 1, g[i].lifetime, g[i].header,
		    g[i].file);
		for (char *l = g[i].body; *l; ) {
			char *nl = strchr(l, '\n');
			size_t len = nl ? (size_t)(nl - l) : strlen(l);

			printf("     %.*s\n", (int)len, l);
			l += len + (nl != NULL);
		}
	}
	if (json)
		dump_json(list);
	json_decref(list);
	kb_stored_free(g, n);
	return 0;
}

static int
cmd_revoke(int argc, char **argv)
{
	_cleanup_free_ char *home = home_dir();
	const char *errstr;
	struct kb_err e;
	long long n = -1;

	if (argc != 2)
		die("usage: kinpolicy revoke N|--all (N from kinpolicy grants)");
	if (strcmp(argv[1], "--all") != 0) {
		n = strtonum(argv[1], 1, 1000000, &errstr);
		if (errstr != NULL)
			die("revoke %s: %s; give N from kinpolicy grants, or "
			    "--all", argv[1], errstr);
	}
	if (kb_grants_revoke(home, getenv("KINBOX_SESSION"),
		n < 0 ? -1 : (long)(n - 1), &e) == -1)
		die("%s", e.msg);
	printf("revoked %s\n", n < 0 ? "all grants" : argv[1]);
	return 0;
}

/* --- the permission gate ------------------------------------------------ */

static int
cmd_classify(int argc, char **argv)
{
	bool json = want_json(&argc, argv);
	struct kb_ro_verdict v;
	struct kb_buf cmd = { 0 };

	if (argc >= 3 && strcmp(argv[1], "--command") == 0 && argc == 3) {
		kb_buf_puts(&cmd, argv[2]);
	} else if (argc >= 3 && strcmp(argv[1], "--") == 0) {
		/* argv form: quoted back into one shell string, so that it is
		 * judged exactly as the shell would see it */
		for (int i = 2; i < argc; i++) {
			if (i > 2)
				kb_buf_puts(&cmd, " ");
			kb_buf_shquote(&cmd, argv[i]);
		}
	} else {
		die("usage: kinpolicy classify -- COMMAND [ARG...] | "
		    "--command STRING [--json]");
	}
	kb_readonly_classify(cmd.s, cmd.len, &v);
	if (json) {
		json_t *o = json_pack("{s:b,s:s,s:s}", "safe", v.safe, "reason",
		    v.safe ? "" : v.reason, "signature",
		    v.signature ? v.signature : "");

		if (o == NULL) /* not UTF-8: the signature is the raw text */
			o = json_pack("{s:b,s:s}", "safe", v.safe, "reason",
			    v.safe ? "" : v.reason);
		dump_json(o);
		json_decref(o);
	} else {
		if (v.safe)
			printf("safe\n");
		else
			printf("unsafe: %s\n", v.reason);
		printf("signature: %s\n", v.signature ? v.signature : "");
	}
	kb_ro_verdict_free(&v);
	kb_buf_free(&cmd);
	return 0;
}

static bool
classify_cb(const char *command, char **signature, char *reason,
    size_t reasonlen, void *ctx)
{
	struct kb_ro_verdict v;
	bool safe;

	(void)ctx;
	kb_readonly_classify(command, strlen(command), &v);
	safe = v.safe;
	snprintf(reason, reasonlen, "%s", v.safe ? "provably read-only" :
						   v.reason);
	*signature = steal_pointer(&v.signature);
	kb_ro_verdict_free(&v);
	return safe;
}

/* the session's [always] answers: kind and signature, exactly */
static bool
session_allows_cb(const char *kind, const char *signature, void *ctx)
{
	const char *session = ctx;
	_cleanup_free_ char *file = NULL;
	_cleanup_free_ char *text = NULL;
	char *line, *save = NULL;
	bool in = false, kind_ok = false, sig_ok = false, hit = false;

	if (session == NULL || signature == NULL)
		return false;
	file = kb_config_session_path(session);
	if (file == NULL || (text = kb_read_small_file(file, 1 << 20)) == NULL)
		return false;
	for (line = strtok_r(text, "\n", &save); ; line = strtok_r(NULL, "\n",
						       &save)) {
		if (line == NULL || line[0] == '[') {
			if (in && kind_ok && sig_ok)
				hit = true;
			if (line == NULL)
				break;
			in = strcmp(line, "[always]") == 0;
			kind_ok = sig_ok = false;
			continue;
		}
		if (!in)
			continue;
		if (strncmp(line, "kind = ", 7) == 0)
			kind_ok = strcmp(line + 7, kind) == 0;
		else if (strncmp(line, "signature = ", 12) == 0)
			sig_ok = strcmp(line + 12, signature) == 0;
	}
	return hit;
}

static int
cmd_decide(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "command", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "kind", required_argument, NULL, 'k' },
		{ "mode", required_argument, NULL, 'm' },
		{ "path", required_argument, NULL, 'p' },
		{ "planning", no_argument, NULL, 'P' },
		{ "read-only-hint", no_argument, NULL, 'r' },
		{ "session", required_argument, NULL, 's' },
		{ "tool", required_argument, NULL, 't' },
		{ "workspace", required_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};
	struct kb_decide_in in = { 0 };
	struct kb_decide_out out;
	_cleanup_free_ char *home = kb_paths_home();
	_cleanup_free_ char *ws = NULL;
	_cleanup_free_ char *cwd = NULL;
	_cleanup_free_ char *bwrap = NULL;
	const char *session = getenv("KINBOX_SESSION");
	bool json = false, have_mode = false;
	struct kb_err e;
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:C:", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			in.command = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'k':
			in.kind = optarg;
			break;
		case 'm':
			if (kb_mode_parse(optarg, &in.mode) == -1)
				die("--mode %s: unknown mode; use auto or strict",
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
			break;
		case 't':
			in.tool = optarg;
			break;
		case 'C':
			free(ws);
			if ((ws = realpath(optarg, NULL)) == NULL)
				die("--workspace %s: %s; give an existing "
				    "directory", optarg, strerror(errno));
			break;
		case ':':
			die("option %s needs a value", argv[optind - 1]);
		default:
			die("decide: unknown option '%s'; see kinpolicy --help",
			    argv[optind - 1]);
		}
	}
	if (optind != argc)
		die("decide: unexpected argument '%s'", argv[optind]);
	if (!have_mode)
		die("decide: --mode auto|strict is required");
	if (in.kind == NULL)
		die("decide: --kind is required (read, edit, shell, meta, mcp, "
		    "network, rig, outpost, publish)");
	if (session != NULL && *session != '\0') {
		_cleanup_free_ char *sf = kb_config_session_path(session);

		if (sf == NULL || access(sf, R_OK) == -1)
			die("--session %s: the session file cannot be read; "
			    "create one with kinpolicy session new", session);
	}
	cwd = getcwd(NULL, 0);
	if (ws == NULL && cwd != NULL)
		ws = realpath(cwd, NULL);
	in.workspace = ws;
	in.cwd = cwd;
	in.home = home;
	in.classify = classify_cb;
	in.session_allows = session_allows_cb;
	in.ctx = (void *)session;
	/* SANDBOX needs to know whether kinbox could wrap the command */
	if (in.kind != NULL && strcmp(in.kind, "shell") == 0 &&
	    (bwrap = kb_bwrap_find(&e)) != NULL)
		in.sandbox_available = kb_bwrap_probe(bwrap, &e) == 0;
	kb_decide(&in, &out);
	if (json) {
		json_t *o = json_pack("{s:s,s:s,s:s}", "decision",
		    kb_verdict_name(out.verdict), "step", out.step, "reason",
		    out.reason);

		if (o != NULL && out.signature != NULL)
			json_object_set_new(o, "signature",
			    json_string(out.signature));
		if (o != NULL)
			dump_json(o);
		json_decref(o);
	} else {
		printf("%s\nstep: %s\nreason: %s\n",
		    kb_verdict_name(out.verdict), out.step, out.reason);
		if (out.signature != NULL)
			printf("signature: %s\n", out.signature);
	}
	kb_decide_out_free(&out);
	return 0;
}

static int
cmd_check_write(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "mode", required_argument, NULL, 'm' },
		{ "workspace", required_argument, NULL, 'C' },
		{ "write", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	_cleanup_free_ char *home = kb_paths_home();
	_cleanup_free_ char *ws = NULL;
	_cleanup_free_ char *cwd = getcwd(NULL, 0);
	struct kb_strv roots = { 0 };
	enum kb_mode mode = KB_MODE_AUTO;
	const char *path;
	bool json = false;
	struct kb_cw out;
	struct kb_err e;
	int c;

	if (argc < 2 || argv[1][0] == '-')
		die("usage: kinpolicy check-write PATH [--workspace DIR] "
		    "[--write DIR]... [--mode auto|strict] [--json]");
	path = argv[1];
	argc--;
	argv++;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:C:w:", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'm':
			if (kb_mode_parse(optarg, &mode) == -1)
				die("--mode %s: unknown mode; use auto or strict",
				    optarg);
			break;
		case 'C':
			free(ws);
			if ((ws = realpath(optarg, NULL)) == NULL)
				die("--workspace %s: %s", optarg, strerror(errno));
			break;
		case 'w': {
			char *r = realpath(optarg, NULL);

			if (r == NULL)
				die("--write %s: %s", optarg, strerror(errno));
			kb_strv_push(&roots, r);
			free(r);
			break;
		}
		case ':':
			die("option %s needs a value", argv[optind - 1]);
		default:
			die("check-write: unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc)
		die("check-write: unexpected argument '%s'", argv[optind]);
	if (cwd == NULL)
		die_errno("getcwd");
	if (ws == NULL && (ws = realpath(cwd, NULL)) == NULL)
		die_errno("%s", cwd);
	if (kb_check_write(path, cwd, ws, roots.v, roots.n, home, mode, &out,
		&e) == -1)
		die("%s", e.msg);
	if (json) {
		json_t *o = json_pack("{s:s,s:s,s:s,s:s}", "decision",
		    kb_verdict_name(out.verdict), "rule", out.rule, "reason",
		    out.reason, "path", out.resolved);

		if (o != NULL)
			dump_json(o);
		json_decref(o);
	} else {
		printf("%s\nrule: %s\nreason: %s\npath: %s\n",
		    kb_verdict_name(out.verdict), out.rule, out.reason,
		    out.resolved);
	}
	kb_strv_free(&roots);
	return 0;
}

/* kinpolicy allow --session ID --kind KIND --signature SIG: a human's
 * "always" answer, kept in the session file */
static int
cmd_allow(int argc, char **argv)
{
	const char *session = NULL, *sig = NULL, *kind = "shell";
	_cleanup_free_ char *file = NULL;
	enum kb_kind k;
	struct kb_buf b = { 0 };
	int fd;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--session") == 0 && i + 1 < argc)
			session = argv[++i];
		else if (strcmp(argv[i], "--signature") == 0 && i + 1 < argc)
			sig = argv[++i];
		else if (strcmp(argv[i], "--kind") == 0 && i + 1 < argc)
			kind = argv[++i];
		else
			die("usage: kinpolicy allow --session ID --signature SIG "
			    "[--kind KIND]");
	}
	if (session == NULL || sig == NULL)
		die("usage: kinpolicy allow --session ID --signature SIG "
		    "[--kind KIND]");
	if (kb_kind_parse(kind, &k) == -1)
		die("--kind %s: unknown kind", kind);
	if (*sig == '\0' || strpbrk(sig, "\n\r") != NULL)
		die("--signature: one line of text, as decide printed it");
	file = kb_config_session_path(session);
	if (file == NULL || access(file, W_OK) == -1)
		die("--session %s: no such session; create one with kinpolicy "
		    "session new", session);
	kb_buf_printf(&b, "\n[always]\nkind = %s\nsignature = %s\n", kind, sig);
	fd = open(file, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1 || write(fd, b.s, b.len) != (ssize_t)b.len ||
	    close(fd) == -1)
		die_errno("%s", file);
	kb_buf_free(&b);
	printf("always allowed for session %s: %s %s\n", session, kind, sig);
	return 0;
}

static const struct verb verbs[] = {
	{ "allow", cmd_allow,
	    "allow --session ID --signature SIG [--kind KIND]" },
	{ "check-write", cmd_check_write,
	    "check-write PATH [--workspace DIR] [--write DIR]... "
	    "[--mode auto|strict] [--json]" },
	{ "classify", cmd_classify,
	    "classify -- COMMAND [ARG...] | --command STRING [--json]" },
	{ "decide", cmd_decide,
	    "decide --mode auto|strict [--planning] --kind KIND [--tool NAME] "
	    "[--command STRING] [--path PATH] [--workspace DIR] "
	    "[--session ID] [--read-only-hint] [--json]" },
	{ "decline", cmd_decline, "decline ID --note TEXT" },
	{ "fingerprint", cmd_fingerprint,
	    "fingerprint --status N [--workspace DIR] [--write DIR]... "
	    "[--net] [--ssh-agent] [--json] < STDERR_FILE" },
	{ "grant", cmd_grant,
	    "grant ID [--write DIR]... [--net] [--ssh-agent] [--unconfined] "
	    "--once|--session|--workspace [--json]" },
	{ "grants", cmd_grants, "grants [--json]" },
	{ "pending", cmd_pending, "pending [--json]" },
	{ "retry", cmd_retry, "retry ID" },
	{ "revoke", cmd_revoke, "revoke N|--all" },
	{ "session", cmd_session, "session new [--json]" },
	{ "show", cmd_show, "show ID [--json]" },
};

static void
usage(FILE *f)
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
		usage(stdout);
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
