/*
 * sidecar/kinpolicy-grants.c — the verbs that answer denials: session new,
 * show, grant, decline, retry, pending, grants, revoke. kinpolicy is the only
 * writer of decisions and grant stores (sidecar/grants.c); kinbox reads.
 * grants and revoke also see the running sandboxes that use a grant (the
 * run registry, profile/runs.h); revoke stops them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bsd/stdlib.h>
#include <jansson.h>

#include "../classify/denial.h"
#include "../classify/readonly.h"
#include "../classify/report.h"
#include "../lib/fsat.h"
#include "../lib/util.h"
#include "../profile/journal.h"
#include "../profile/options.h"
#include "../profile/policy.h"
#include "../profile/runs.h"
#include "decide.h"
#include "grants.h"
#include "kinpolicy-journal.h"
#include "kinpolicy.h"

/* --- verbs --------------------------------------------------------------- */

int
cmd_session(int argc, char **argv)
{
	bool json = kp_want_flag(&argc, argv, "--json");
	struct kb_err e;
	char *id;

	if (argc != 2 || strcmp(argv[1], "new") != 0)
		kp_usage("session");
	if ((id = kb_session_new(&e)) == NULL)
		die("%s", e.msg);
	if (json) {
		json_t *o = json_pack("{s:s}", "session", id);

		kp_dump_json(o);
		json_decref(o);
	} else {
		printf("%s\n", id);
	}
	free(id);
	return 0;
}

int
cmd_show(int argc, char **argv)
{
	bool json = kp_want_flag(&argc, argv, "--json");
	_cleanup_free_ char *home = kp_home_dir();
	json_t *rec, *dec;

	if (argc != 2)
		kp_usage("show");
	kp_check_id(argv[1]);
	rec = kp_load_record(home, argv[1]);
	dec = kp_load_decision(home, argv[1]);
	if (json) {
		json_object_set_new(
		    rec, "state", json_string(kp_state_of(home, argv[1], dec)));
		if (dec != NULL)
			json_object_set(rec, "decision", dec);
		kp_dump_json(rec);
	} else {
		/* the record is the command's words: argv, cwd, and what
		 * its stderr said; each field escaped */
		_cleanup_free_ char *cls = xasprintf(
		    "%s (%s)", kp_jstr(rec, "class"), kp_jstr(rec, "reason"));

		printf("denial:    %s (%s)\n", argv[1],
		    kp_state_of(home, argv[1], dec));
		printf("command:   ");
		kp_print_argv(json_object_get(rec, "argv"));
		kp_print_esc("cwd:       ", kp_jstr(rec, "cwd"));
		kp_print_esc("time:      ", kp_jstr(rec, "time"));
		kp_print_esc("class:     ", cls);
		if (*kp_jstr(rec, "path"))
			kp_print_esc("path:      ", kp_jstr(rec, "path"));
		if (*kp_jstr(rec, "host"))
			kp_print_esc("host:      ", kp_jstr(rec, "host"));
		kp_print_esc("evidence:  ", kp_jstr(rec, "evidence"));
		{
			/* the run's other denials, one line each */
			json_t *all = json_object_get(rec, "denials"), *x;
			size_t k;

			json_array_foreach(all, k, x)
			{
				_cleanup_free_ char *one = NULL;

				if (k == 0 || !json_is_object(x))
					continue;
				one = xasprintf("%s %s%s (%s)",
				    kp_jstr(x, "class"), kp_jstr(x, "path"),
				    kp_jstr(x, "host"), kp_jstr(x, "reason"));
				kp_print_esc("also:      ", one);
			}
		}
		if (strcmp(kp_jstr(rec, "class"), "socket") == 0)
			printf("source:    kinbox itself: it refused the "
			       "connect and resolved the socket's path\n");
		else if (json_is_true(json_object_get(rec, "exact")))
			printf("source:    kinbox's egress proxy: it refused "
			       "the request and named the host\n");
		else
			printf("source:    the command's stderr: the path, the "
			       "evidence and so the suggestion are what it "
			       "printed\n");
		kp_print_suggest(rec);
		if (dec != NULL && *kp_jstr(dec, "note"))
			kp_print_esc("note:      ", kp_jstr(dec, "note"));
		printf("warning:   the first attempt ran until it failed; part "
		       "of it may already have happened\n");
	}
	json_decref(rec);
	json_decref(dec);
	return 0;
}

/* A decline's note is one line of text for the agent: kept in the
 * decision file as written and printed by show and retry, so no control
 * byte (a line break would make retry's one line two, an escape sequence
 * would reach the agent's terminal as a command). */
static void
check_note(const char *what, const char *note)
{
	const char *bad = kb_find_control(note);

	if (bad != NULL)
		die("%s: a control byte (0x%02x) at byte %zu; a note is one "
		    "line of text: write it without",
		    what, (unsigned char)*bad, (size_t)(bad - note) + 1);
}

/* writes <id>.decision.json once: a decision is not changed afterwards */
static void
write_decision(const char *home, const char *id, json_t *dec)
{
	_cleanup_free_ char *text =
	    json_dumps(dec, JSON_COMPACT | JSON_PRESERVE_ORDER);

	if (text == NULL)
		die("out of memory");
	if (kp_journal_create(home, id, KB_JOURNAL_DECISION, text) == -1)
		die("%s already has a decision; see kinpolicy show %s", id, id);
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

	{
		_cleanup_free_ char *head = xasprintf("denial %s: %s (",
		    kp_jstr(rec, "id"), kp_jstr(rec, "class"));
		_cleanup_free_ char *ev = kb_escape(kp_jstr(rec, "evidence"));
		_cleanup_free_ char *h = kb_escape(head);

		printf("%s%s, %s)\n", h, ev,
		    strcmp(kp_jstr(rec, "class"), "socket") == 0 ||
			    json_is_true(json_object_get(rec, "exact"))
			? "seen by kinbox"
			: "read from the command's stderr");
	}
	printf("command: ");
	kp_print_argv(json_object_get(rec, "argv"));
	/* the lists (write roots, sockets) value by value, then switches */
	for (size_t k = 0; k < KB_OPT__N; k++) {
		const struct kb_option *o = &kb_options[k];
		struct kb_strv *l = kb_grant_list(g, o->id);

		if (o->max_life == KB_LIFE_NEVER || l == NULL)
			continue;
		json_array_foreach(json_object_get(s, o->json), i, w)
		{
			_cleanup_free_ char *q = NULL;
			struct kb_buf b = {0};

			if (json_string_value(w) == NULL)
				continue;
			kb_buf_shquote_visible(&b, json_string_value(w));
			q = xasprintf("grant --%s %s? [y/N] ", o->flag, b.s);
			kb_buf_free(&b);
			if (yes(q))
				kb_strv_push(l, json_string_value(w));
		}
	}
	for (size_t k = 0; k < KB_OPT__N; k++) {
		const struct kb_option *o = &kb_options[k];
		_cleanup_free_ char *q = NULL;

		if (o->max_life == KB_LIFE_NEVER || o->type != KB_T_SWITCH ||
		    !json_is_true(json_object_get(s, o->json)))
			continue;
		q = xasprintf("grant --%s%s? [y/N] ", o->flag,
		    o->id == KB_OPT_UNCONFINED
			? " (no sandbox at all; only "
			  "the command's stderr asks for it)"
			: "");
		g->on[k] = yes(q);
	}
	a = ask("lifetime: [o]nce, [s]ession, [w]orkspace, or [d]ecline? ");
	if (a == NULL || a[0] == 'd' || a[0] == '\0' || kb_grant_empty(g)) {
		a = ask("note for the agent (why not): ");
		*note = xstrdup(a != NULL ? a : "");
		return false;
	}
	g->life = a[0] == 's'   ? KB_LIFE_SESSION
		  : a[0] == 'w' ? KB_LIFE_WORKSPACE
				: KB_LIFE_ONCE;
	return true;
}

/*
 * grant --suggested: exactly the record's "suggest" object, read by the
 * option table's JSON keys as kp_print_suggest shows it. --unconfined is
 * never taken from it: that suggestion is the command's own claim, with
 * nothing narrower to offer (report.c), and lifting the whole sandbox is a
 * human's typed decision.
 */
static void
take_suggestion(json_t *rec, const char *id, struct kb_grant *g)
{
	json_t *s = json_object_get(rec, "suggest"), *w;
	size_t i;

	for (size_t k = 0; k < KB_OPT__N; k++) {
		const struct kb_option *o = &kb_options[k];
		json_t *v;

		if (o->max_life == KB_LIFE_NEVER || o->json == NULL)
			continue;
		v = json_object_get(s, o->json);
		if (kb_grant_list(g, o->id) != NULL) {
			json_array_foreach(v, i, w)
			{
				if (json_string_value(w) != NULL)
					kb_strv_push(kb_grant_list(g, o->id),
					    json_string_value(w));
			}
		} else if (json_is_true(v)) {
			g->on[k] = true;
		}
	}
	if (g->on[KB_OPT_UNCONFINED])
		die("grant %s --suggested: the record suggests "
		    "--unconfined (no sandbox), which rests on nothing but "
		    "the command's stderr; --suggested never grants it: "
		    "give --unconfined yourself if you mean it",
		    id);
	if (kb_grant_empty(g) && strcmp(kp_jstr(rec, "mode"), "read-only") == 0)
		die("grant %s --suggested: that run was read-only (%s), which "
		    "no grant widens, so nothing is suggested; run the command "
		    "without read-only instead",
		    id, kp_jstr(rec, "mode_by"));
	if (kb_grant_empty(g))
		die("grant %s --suggested: the record suggests nothing to "
		    "grant; see kinpolicy show %s",
		    id, id);
}

/* " --write DIR --net": what a grant holds, as kinbox flags (escaped) */
static char *
grant_flags(const struct kb_grant *g)
{
	struct kb_buf b = {0};

	kb_buf_puts(&b, "");
	for (size_t k = 0; k < KB_OPT__N; k++) {
		const struct kb_strv *l =
		    kb_grant_list_const(g, (enum kb_opt)k);

		for (size_t i = 0; l != NULL && i < l->n; i++) {
			kb_buf_printf(&b, " --%s ", kb_options[k].flag);
			kb_buf_shquote_visible(&b, l->v[i]);
		}
	}
	for (size_t k = 0; k < KB_OPT__N; k++)
		if (g->on[k] && kb_options[k].type == KB_T_SWITCH)
			kb_buf_printf(&b, " --%s", kb_options[k].flag);
	return b.s;
}

static json_t *
grant_json(const struct kb_grant *g)
{
	json_t *o = json_object();

	json_object_set_new(o, "decision", json_string("granted"));
	json_object_set_new(
	    o, "lifetime", json_string(kb_lifetime_name(g->life)));
	/* the grantable rows of the option table, by their JSON keys */
	for (size_t k = 0; k < KB_OPT__N; k++) {
		const struct kb_option *r = &kb_options[k];
		const struct kb_strv *l = kb_grant_list_const(g, r->id);

		if (r->max_life == KB_LIFE_NEVER || r->json == NULL)
			continue;
		if (l != NULL) {
			json_t *a = json_array();

			for (size_t i = 0; i < l->n; i++)
				json_array_append_new(a, json_string(l->v[i]));
			json_object_set_new(o, r->json, a);
		} else {
			json_object_set_new(o, r->json, json_boolean(g->on[k]));
		}
	}
	return o;
}

/* the writable roots of the run a denial came from, as its record names
 * them (the workspace, the write roots): a socket granted there would be
 * the command's (kb_grant_check) */
static size_t
record_roots(json_t *rec, const char **roots)
{
	json_t *pol = json_object_get(rec, "policy"), *w;
	size_t n = 0, i;

	if (*kp_jstr(pol, "workspace") == '/')
		roots[n++] = kp_jstr(pol, "workspace");
	json_array_foreach(json_object_get(pol, "write_paths"), i, w)
	{
		if (n < KB_MAX_ROOTS && json_string_value(w) != NULL &&
		    json_string_value(w)[0] == '/')
			roots[n++] = json_string_value(w);
	}
	return n;
}

int
cmd_grant(int argc, char **argv)
{
	/* the capabilities are the grantable rows of the option table
	 * (returned as 256 + row); the lifetimes are this verb's */
	struct option opts[KB_OPT__N + 6];
	size_t nopt = 0;

	for (size_t k = 0; k < KB_OPT__N; k++)
		if (kb_options[k].max_life != KB_LIFE_NEVER)
			opts[nopt++] = (struct option){kb_options[k].flag,
			    kb_options[k].metavar ? required_argument
						  : no_argument,
			    NULL, 256 + (int)k};
	/* --json by getopt: --session and --workspace take no value here
	 * (kp_want_flag would skip the word after them as decide's) */
	opts[nopt++] = (struct option){"json", no_argument, NULL, 'j'};
	opts[nopt++] = (struct option){"once", no_argument, NULL, 'o'};
	opts[nopt++] = (struct option){"session", no_argument, NULL, 's'};
	opts[nopt++] = (struct option){"suggested", no_argument, NULL, 'S'};
	opts[nopt++] = (struct option){"workspace", no_argument, NULL, 'W'};
	opts[nopt] = (struct option){NULL, 0, NULL, 0};
	bool json = false;
	_cleanup_free_ char *home = kp_home_dir();
	_cleanup_strv_ struct kb_strv asked = {0};
	struct kb_grant g = {.life = KB_LIFE_ONCE};
	int lifetimes = 0, c;
	bool suggested = false;
	struct kb_err e;
	json_t *rec, *dec, *pol;
	char *note = NULL;
	const char *id;

	if (argc < 2 || argv[1][0] == '-')
		kp_usage("grant");
	id = argv[1];
	/* the options follow the id: parse argv[1..] with the id as argv[0] */
	argc--;
	argv++;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:w:", opts, NULL)) != -1) {
		if (c == 'w')
			c = 256 + KB_OPT_WRITE;
		if (c >= 256 && c < 256 + KB_OPT__N) {
			struct kb_strv *l =
			    kb_grant_list(&g, (enum kb_opt)(c - 256));

			if (l != NULL)
				kb_strv_push(l, optarg);
			else
				g.on[c - 256] = true;
			continue;
		}
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'S':
			suggested = true;
			break;
		case 'o':
		case 's':
		case 'W':
			lifetimes++;
			g.life = c == 'o'   ? KB_LIFE_ONCE
				 : c == 's' ? KB_LIFE_SESSION
					    : KB_LIFE_WORKSPACE;
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
	kp_check_id(id);
	rec = kp_load_record(home, id);
	kp_check_stores_for(rec, home);
	if (lifetimes > 1)
		die("give one lifetime: --once, --session or --workspace");
	if (suggested) {
		if (!kb_grant_empty(&g))
			die("grant %s: --suggested grants what the record "
			    "suggests and nothing else; give either it or the "
			    "capabilities",
			    id);
		take_suggestion(rec, id, &g);
		for (size_t k = 0; k < KB_OPT__N; k++) {
			const struct kb_strv *l =
			    kb_grant_list_const(&g, (enum kb_opt)k);

			for (size_t i = 0; l != NULL && i < l->n; i++)
				kb_strv_push(&asked, l->v[i]);
		}
	}
	if (kb_grant_empty(&g)) {
		if (!isatty(0) || !isatty(1))
			die("grant %s: name the capabilities (--write DIR, "
			    "--net, --ssh-agent, --allow-socket PATH, "
			    "--allow-host HOST[:PORT], --unconfined) and a "
			    "lifetime; a question is only asked on a terminal",
			    id);
		if (!interactive(rec, &g, &note)) {
			check_note("the note", note);
			dec = json_pack(
			    "{s:s,s:s}", "decision", "declined", "note", note);
			if (dec == NULL)
				die("the note: not valid text (UTF-8)");
			write_decision(home, id, dec);
			json_decref(dec);
			printf("declined %s\n", id);
			free(note);
			json_decref(rec);
			kb_grant_free(&g);
			return 0;
		}
	} else if (lifetimes == 0) {
		die("grant %s: give a lifetime: --once, --session or "
		    "--workspace",
		    id);
	}
	if (kp_retried(home, id))
		die("%s was already retried; a new denial needs a new grant",
		    id);
	/* a network the project file turned off: a grant cannot lift it
	 * (kinbox refuses --net there), so granting it would only loop */
	if ((g.on[KB_OPT_NET] || g.on[KB_OPT_SSH_AGENT] ||
		g.allowed_hosts.n > 0) &&
	    *kp_jstr(rec, "network_off_by") != '\0')
		die("grant %s: the network of that run is off by %s (network = "
		    "off in the project file), which no grant lifts; remove "
		    "that "
		    "line from the project file instead",
		    id, kp_jstr(rec, "network_off_by"));
	/* a read-only run: kinbox drops every granted root from it (and
	 * refuses --write with --read-only), so a grant would only loop */
	if ((g.write_paths.n > 0 || g.on[KB_OPT_UNCONFINED]) &&
	    strcmp(kp_jstr(rec, "mode"), "read-only") == 0)
		die("grant %s: that run was read-only (%s), which no grant "
		    "widens; run the command without read-only instead",
		    id, kp_jstr(rec, "mode_by"));
	{
		const char *roots[KB_MAX_ROOTS];
		size_t nroots = record_roots(rec, roots);

		if (kb_grant_check(&g, home, roots, nroots, &e) == -1) {
			if (suggested)
				die("grant %s --suggested: %s", id, e.msg);
			die("%s", e.msg);
		}
	}
	/* a suggested root (or socket) is granted as suggested or not at
	 * all: one that resolves elsewhere now (a symlink put on the way
	 * since) is not the one the denial named */
	for (size_t k = 0, a = 0; k < KB_OPT__N && suggested; k++) {
		const struct kb_strv *l =
		    kb_grant_list_const(&g, (enum kb_opt)k);

		for (size_t i = 0; l != NULL && i < l->n; i++, a++) {
			_cleanup_free_ char *was = NULL, *now = NULL;

			/* a host is only made canonical ("name:port"),
			 * never resolved: nothing moved under it */
			if (strcmp(asked.v[a], l->v[i]) == 0 ||
			    k == KB_OPT_ALLOW_HOST)
				continue;
			was = kb_escape(asked.v[a]);
			now = kb_escape(l->v[i]);
			die("grant %s --suggested: the suggested %s %s is %s "
			    "now; grant --%s %s yourself if that is meant",
			    id, k == KB_OPT_WRITE ? "root" : "socket", was, now,
			    kb_options[k].flag, now);
		}
	}
	pol = json_object_get(rec, "policy");
	/* the decision claims the id first (created exclusively): a second
	 * grant or a grant after a decline stores nothing */
	dec = grant_json(&g);
	write_decision(home, id, dec);
	if (g.life != KB_LIFE_ONCE &&
	    kb_grant_store(&g, home, getenv("KINBOX_SESSION"),
		kp_jstr(pol, "workspace"), id, &e) == -1) {
		kp_journal_remove(home, id, KB_JOURNAL_DECISION);
		die("%s", e.msg);
	}
	if (json) {
		kp_dump_json(dec);
	} else if (suggested) {
		/* what was granted, since nobody typed it */
		_cleanup_free_ char *what = grant_flags(&g);

		printf(
		    "granted %s (%s):%s\n", id, kb_lifetime_name(g.life), what);
	} else {
		printf("granted %s (%s)\n", id, kb_lifetime_name(g.life));
	}
	json_decref(dec);
	json_decref(rec);
	kb_grant_free(&g);
	return 0;
}

int
cmd_decline(int argc, char **argv)
{
	bool json = kp_want_flag(&argc, argv, "--json");
	_cleanup_free_ char *home = kp_home_dir();
	json_t *rec, *dec;

	if (argc != 4 || strcmp(argv[2], "--note") != 0)
		kp_usage("decline");
	kp_check_id(argv[1]);
	check_note("--note", argv[3]);
	rec = kp_load_record(home, argv[1]);
	dec = json_pack("{s:s,s:s}", "decision", "declined", "note", argv[3]);
	if (dec == NULL)
		die("--note: not valid text (UTF-8)");
	write_decision(home, argv[1], dec);
	if (json)
		kp_dump_json(dec);
	else
		printf("declined %s\n", argv[1]);
	json_decref(dec);
	json_decref(rec);
	return 0;
}

/* kinbox flags for the knobs of `o` that retry passes again (the table's
 * retry column: each has a flag and a JSON key):
 * --write X for each list item, --net for a true switch (unless `already`
 * has it too); no --allow-host when `no_hosts` */
static void
kp_push_flags(struct kb_strv *av, json_t *o, json_t *already, bool no_hosts)
{
	json_t *v;
	size_t i;

	for (size_t k = 0; k < KB_OPT__N; k++) {
		const struct kb_option *r = &kb_options[k];
		_cleanup_free_ char *flag = NULL;

		if (r->retry != KB_RETRY_YES ||
		    (no_hosts && r->id == KB_OPT_ALLOW_HOST))
			continue;
		flag = xasprintf("--%s", r->flag);
		if (r->type == KB_T_LIST) {
			json_array_foreach(json_object_get(o, r->json), i, v)
			{
				if (json_string_value(v) == NULL)
					continue;
				kb_strv_push(av, flag);
				kb_strv_push(av, json_string_value(v));
			}
		} else if (r->type == KB_T_SWITCH &&
			   json_is_true(json_object_get(o, r->json)) &&
			   !json_is_true(json_object_get(already, r->json))) {
			kb_strv_push(av, flag);
		}
	}
}

int
cmd_retry(int argc, char **argv)
{
	_cleanup_free_ char *home = kp_home_dir();
	struct kb_strv av = {0};
	json_t *rec, *dec, *pol, *v;
	const char *id;
	size_t i;

	if (argc != 2)
		kp_usage("retry");
	id = argv[1];
	kp_check_id(id);
	rec = kp_load_record(home, id);
	/* the decision it obeys must not be the command's */
	kp_check_stores_for(rec, home);
	dec = kp_load_decision(home, id);
	if (dec == NULL)
		die("%s has no decision yet; a human grants it first "
		    "(kinpolicy grant %s ...)",
		    id, id);
	if (strcmp(kp_jstr(dec, "decision"), "granted") != 0)
		die("%s was declined: %s", id, kp_jstr(dec, "note"));
	if (!json_is_true(json_object_get(rec, "argv_exact")))
		die("%s: the command's arguments were not all text (UTF-8), so "
		    "the journal cannot replay them exactly; run it again "
		    "yourself",
		    id);
	/* the call as the agent made it (its flags); config, session and
	 * workspace grants apply again by themselves, as they stand now, so a
	 * revoked grant stays revoked */
	pol = json_object_get(rec, "flags");
	if (pol == NULL)
		die("%s: the journal record has no flags (an older kinbox); "
		    "run "
		    "the command again yourself",
		    id);
	kb_strv_push(&av, "kinbox");
	/* in the journaled cwd (below), which lies in this workspace */
	kb_strv_push(&av, "--workspace");
	kb_strv_push(&av, kp_jstr(json_object_get(rec, "policy"), "workspace"));
	/* the flags as the record keeps them, then (a once grant rides on
	 * this call only) the decision's capabilities; session and
	 * workspace grants are in their stores, where kinbox finds them.
	 * Both are keyed by the option table's JSON keys. */
	{
		/* a decision (of any lifetime) for the whole network, or
		 * a run that had it, makes the run's typed hosts moot: the
		 * two typed together are refused, and a typed --allow-host
		 * would beat the session or workspace grant of it */
		bool whole = false;

		for (size_t k = 0; k < KB_OPT__N; k++)
			if (k == KB_OPT_NET || k == KB_OPT_SSH_AGENT ||
			    k == KB_OPT_UNCONFINED)
				whole |= json_is_true(json_object_get(
					     dec, kb_options[k].json)) ||
					 json_is_true(json_object_get(
					     pol, kb_options[k].json));
		kp_push_flags(&av, pol, NULL, whole);
		if (strcmp(kp_jstr(dec, "lifetime"), "once") == 0)
			kp_push_flags(&av, dec, pol, whole);
	}
	kb_strv_push(&av, "--");
	json_array_foreach(json_object_get(rec, "argv"), i, v)
	    kb_strv_push(&av, json_string_value(v));
	if (chdir(kp_jstr(rec, "cwd")) == -1)
		die_errno("%s: cannot go back to the journaled directory %s",
		    id, kp_jstr(rec, "cwd"));
	/* consumed before it runs: a second retry fails, even concurrently */
	if (kp_journal_create(home, id, KB_JOURNAL_RETRIED, "") == -1)
		die("%s was already retried; retry runs a granted denial once",
		    id);
	{
		char *k = kp_find_kinbox();

		execvp(k, av.v);
		die_errno("cannot run %s", k);
	}
}

/* a pending denial, listed by time (ids are random) */
struct pending {
	json_t *rec;
	char id[KB_ID_LEN + 1];
};

static int
by_time(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;
	int c = strcmp(kp_jstr(x->rec, "time"), kp_jstr(y->rec, "time"));

	return c != 0 ? c : strcmp(x->id, y->id);
}

int
cmd_pending(int argc, char **argv)
{
	bool json = kp_want_flag(&argc, argv, "--json");
	_cleanup_free_ char *home = kp_home_dir();
	_cleanup_close_ int dfd = -1;
	struct pending *p = NULL;
	size_t n = 0;
	struct dirent *de;
	DIR *d = NULL;
	json_t *list = json_array();

	(void)argv;
	if (argc != 1)
		kp_usage("pending");
	/* no journal yet: nothing pending */
	if ((dfd = kp_journal_dir_fd(home)) != -1 &&
	    (d = kb_opendir_beneath(dfd, ".")) == NULL)
		die_errno("the journal");
	while (d != NULL && (errno = 0, de = readdir(d)) != NULL) {
		char id[KB_ID_LEN + 1];
		json_t *rec;

		if (!kp_id_of(de->d_name, KB_JOURNAL_RECORD, id) ||
		    kp_exists_at(dfd, id, KB_JOURNAL_DECISION) ||
		    kp_exists_at(dfd, id, KB_JOURNAL_RETRIED) ||
		    (rec = kp_load_at(dfd, id, KB_JOURNAL_RECORD)) == NULL)
			continue;
		p = xreallocarray(p, n + 1, sizeof(*p));
		p[n].rec = rec;
		memcpy(p[n].id, id, sizeof(id));
		n++;
	}
	if (d != NULL && errno != 0)
		die_errno("reading the journal");
	if (d != NULL)
		closedir(d);
	if (n > 0)
		qsort(p, n, sizeof(*p), by_time);
	for (size_t i = 0; i < n; i++) {
		json_t *rec = p[i].rec;

		if (json) {
			json_array_append(list, rec);
		} else {
			/* the record's fields are the command's: escaped */
			_cleanup_free_ char *t =
			    kb_escape(kp_jstr(rec, "time"));
			_cleanup_free_ char *cls =
			    kb_escape(kp_jstr(rec, "class"));
			_cleanup_free_ char *what = kb_escape(
			    *kp_jstr(rec, "path") ? kp_jstr(rec, "path")
						  : kp_jstr(rec, "host"));
			_cleanup_free_ char *cwd =
			    kb_escape(kp_jstr(rec, "cwd"));

			printf("%s  %s  %-7s %s  in %s: ", p[i].id, t, cls,
			    what, cwd);
			kp_print_argv(json_object_get(rec, "argv"));
		}
		json_decref(rec);
	}
	free(p);
	if (json) {
		json_t *o = json_object();

		json_object_set(o, "pending", list);
		kp_dump_json(o);
		json_decref(o);
	}
	json_decref(list);
	return 0;
}

/* --- the running sandboxes of a grant --------------------------------- */

/* KINBOX_SESSION names the session file grants and revoke read and
 * rewrite: a session id, no path */
static void
check_session_env(void)
{
	const char *s = getenv("KINBOX_SESSION");

	if (s != NULL && *s != '\0' && !kb_session_id_ok(s))
		die("KINBOX_SESSION=%s: not a session id; create one with "
		    "kinpolicy session new",
		    s);
}

static void
kp_warn_notes(struct kb_strv *notes)
{
	for (size_t i = 0; i < notes->n; i++)
		warnx("note: %s", notes->v[i]);
	kb_strv_free(notes);
}

static void
iso_time(time_t t, char *out, size_t len)
{
	struct tm tm;

	if (t <= 0 || gmtime_r(&t, &tm) == NULL)
		snprintf(out, len, "-");
	else
		strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* "pid 1234 (sh, in /ws)": the entry's fields are escaped already */
static char *
run_label(const struct kb_run_entry *r)
{
	return xasprintf("pid %d (%s, in %s)", (int)r->pid,
	    r->argv0 ? r->argv0 : "?", r->workspace ? r->workspace : "?");
}

static json_t *
run_json(const struct kb_run_entry *r)
{
	char when[32];

	iso_time(r->started, when, sizeof(when));
	return json_pack("{s:I,s:I,s:s,s:o,s:o}", "pid", (json_int_t)r->pid,
	    "start", (json_int_t)r->start, "started", when, "workspace",
	    r->workspace ? kp_json_text(r->workspace) : json_null(), "argv0",
	    r->argv0 ? kp_json_text(r->argv0) : json_null());
}

int
cmd_grants(int argc, char **argv)
{
	bool json = kp_want_flag(&argc, argv, "--json");
	_cleanup_free_ char *home = kp_home_dir();
	struct kb_stored_grant *g = NULL;
	struct kb_run_entry *runs = NULL;
	struct kb_strv notes = {0};
	size_t n, nruns, unverified;
	json_t *list = json_array();

	(void)argv;
	if (argc != 1)
		kp_usage("grants");
	check_session_env();
	n = kb_grants_list(home, getenv("KINBOX_SESSION"), &g);
	nruns = kb_runs_list(home, &runs, &notes, &unverified);
	kp_warn_notes(&notes);
	for (size_t i = 0; i < n; i++) {
		if (json) {
			json_t *using = json_array(), *o;

			for (size_t k = 0; k < nruns; k++)
				if (kb_run_uses(&runs[k], g[i].id))
					json_array_append_new(
					    using, run_json(&runs[k]));
			o = json_pack("{s:I,s:s,s:s,s:o,s:o,s:o,s:o}", "n",
			    (json_int_t)(i + 1), "id", g[i].id, "lifetime",
			    g[i].lifetime, "file", kp_json_text(g[i].file),
			    "section", kp_json_text(g[i].header), "body",
			    kp_json_text(g[i].body), "runs", using);
			if (o == NULL || json_array_append_new(list, o) == -1)
				die("out of memory");
			continue;
		}
		/* the stores' text: paths that came from denials */
		_cleanup_free_ char *hd = kb_escape(g[i].header);
		_cleanup_free_ char *fl = kb_escape(g[i].file);

		printf("%zu  %s  %s  (%s)\n", i + 1, g[i].lifetime, hd, fl);
		for (char *l = g[i].body; *l;) {
			char *nl = strchr(l, '\n');
			size_t len = nl ? (size_t)(nl - l) : strlen(l);
			struct kb_buf b = {0};

			kb_buf_escape_mem(&b, l, len);
			printf("     %s\n", b.s);
			kb_buf_free(&b);
			l += len + (nl != NULL);
		}
		for (size_t k = 0; k < nruns; k++) {
			_cleanup_free_ char *who = NULL;
			char when[32];

			if (!kb_run_uses(&runs[k], g[i].id))
				continue;
			who = run_label(&runs[k]);
			iso_time(runs[k].started, when, sizeof(when));
			printf("     running: %s since %s\n", who, when);
		}
	}
	if (json) {
		json_t *o = json_object();

		json_object_set(o, "grants", list);
		kp_dump_json(o);
		json_decref(o);
	}
	json_decref(list);
	kb_stored_free(g, n);
	kb_runs_free(runs, nruns);
	return 0;
}

/* the wait for the runs a revoke stopped: kinbox kills its sandbox and
 * waits for the pid namespace (5 s at most) before it exits */
#define REVOKE_WAIT_MS 10000

/*
 * After the stores were rewritten: every registered run that used a
 * removed grant is nudged (KB_REVOKE_SIGNAL); each reads its stores again
 * and stops itself unless an identical block remains (`gone` holds the
 * removed ids no remaining block has). Waits for those that must stop;
 * returns how many did, their labels in `stopped`, the rest in `left`.
 */
static size_t
stop_runs(const char *home, const struct kb_strv *removed,
    const struct kb_strv *gone, struct kb_strv *stopped, struct kb_strv *left,
    size_t *unverified, json_t *pids)
{
	struct kb_run_entry *runs = NULL;
	struct kb_strv notes = {0};
	size_t nruns = kb_runs_list(home, &runs, &notes, unverified), nstop = 0;
	struct pollfd *pf = xcalloc(nruns + 1, sizeof(*pf));
	size_t *who = xcalloc(nruns + 1, sizeof(*who));
	size_t nwait = 0, waiting;
	struct timespec t0, t1;

	kp_warn_notes(&notes);
	for (size_t k = 0; k < nruns; k++) {
		bool uses = false, must = false;

		for (size_t i = 0; i < removed->n; i++)
			uses |= kb_run_uses(&runs[k], removed->v[i]);
		for (size_t i = 0; i < gone->n; i++)
			must |= kb_run_uses(&runs[k], gone->v[i]);
		if (!uses)
			continue;
		if (kb_run_signal(&runs[k], KB_REVOKE_SIGNAL) == -1) {
			if (errno != ESRCH)
				warnx("pid %d: %s", (int)runs[k].pid,
				    strerror(errno));
			continue; /* gone already */
		}
		if (!must) {
			_cleanup_free_ char *l = run_label(&runs[k]);

			warnx("note: %s keeps running: an identical grant "
			      "remains in its store (see kinpolicy grants)",
			    l);
			continue;
		}
		pf[nwait] =
		    (struct pollfd){.fd = runs[k].pidfd, .events = POLLIN};
		who[nwait++] = k;
	}
	/* a pidfd is readable once its process has exited */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (waiting = nwait; waiting > 0;) {
		long ms;
		int rc;

		clock_gettime(CLOCK_MONOTONIC, &t1);
		ms = REVOKE_WAIT_MS - (t1.tv_sec - t0.tv_sec) * 1000 -
		     (t1.tv_nsec - t0.tv_nsec) / 1000000;
		if (ms <= 0)
			break;
		rc = poll(pf, nwait, (int)ms);
		if (rc == -1 && errno == EINTR)
			continue;
		if (rc <= 0)
			break;
		for (size_t i = 0; i < nwait; i++)
			if (pf[i].fd != -1 && pf[i].revents != 0) {
				pf[i].fd = -1;
				waiting--;
			}
	}
	for (size_t i = 0; i < nwait; i++) {
		const struct kb_run_entry *r = &runs[who[i]];
		char *l = run_label(r);

		if (pf[i].fd == -1) {
			kb_strv_push(stopped, l);
			json_array_append_new(pids, json_integer(r->pid));
			nstop++;
		} else {
			kb_strv_push(left, l);
		}
		free(l);
	}
	free(pf);
	free(who);
	kb_runs_free(runs, nruns);
	return nstop;
}

static bool
has_id(const struct kb_stored_grant *g, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(g[i].id, id) == 0)
			return true;
	return false;
}

int
cmd_revoke(int argc, char **argv)
{
	bool json = kp_want_flag(&argc, argv, "--json");
	_cleanup_free_ char *home = kp_home_dir();
	const char *session = getenv("KINBOX_SESSION");
	struct kb_stored_grant *before = NULL, *after = NULL;
	struct kb_strv removed = {0}, gone = {0}, stopped = {0}, left = {0};
	json_t *pids = json_array();
	const char *errstr;
	struct kb_err e;
	long long n = -1;
	size_t nb, na, nstop, unverified;

	if (argc != 2)
		kp_usage("revoke");
	check_session_env();
	if (strcmp(argv[1], "--all") != 0) {
		n = strtonum(argv[1], 1, 1000000, &errstr);
		if (errstr != NULL)
			die("revoke %s: %s; give N from kinpolicy grants, or "
			    "--all",
			    argv[1], errstr);
	}
	/* the ids of what goes: the runs registered with them are stopped */
	nb = kb_grants_list(home, session, &before);
	for (size_t i = 0; i < nb; i++)
		if (n < 0 || (size_t)n == i + 1)
			kb_strv_push(&removed, before[i].id);
	if (kb_grants_revoke(home, session, n < 0 ? -1 : (long)(n - 1), &e) ==
	    -1)
		die("%s", e.msg);
	/* listed after the rewrite: a run that registers from now on reads
	 * the rewritten stores itself (kinbox.c, arm_revocation). A block
	 * that went in the meantime by other hands went too: its runs are
	 * stopped as well. */
	na = kb_grants_list(home, session, &after);
	for (size_t i = 0; i < nb; i++)
		if (!has_id(after, na, before[i].id) &&
		    !kb_strv_has(&removed, before[i].id))
			kb_strv_push(&removed, before[i].id);
	for (size_t i = 0; i < removed.n; i++)
		if (!has_id(after, na, removed.v[i]))
			kb_strv_push(&gone, removed.v[i]);
	kb_stored_free(before, nb);
	kb_stored_free(after, na);
	nstop = stop_runs(
	    home, &removed, &gone, &stopped, &left, &unverified, pids);
	if (json) {
		/* "n" as grants --json numbers it */
		json_t *o = n < 0 ? json_pack("{s:b}", "all", 1)
				  : json_pack("{s:b,s:I}", "all", 0, "n",
					(json_int_t)n);

		json_object_set(o, "stopped", pids);
		kp_dump_json(o);
		json_decref(o);
	} else {
		printf("revoked %s\n", n < 0 ? "all grants" : argv[1]);
		if (nstop > 0) {
			printf("stopped %zu running sandbox%s:", nstop,
			    nstop == 1 ? "" : "es");
			for (size_t i = 0; i < stopped.n; i++)
				printf("%s %s", i ? "," : "", stopped.v[i]);
			printf("\n");
		}
	}
	fflush(stdout);
	json_decref(pids);
	kb_strv_free(&removed);
	kb_strv_free(&gone);
	kb_strv_free(&stopped);
	if (left.n > 0) {
		/* the grant is gone from the stores, but not from a live
		 * process: not a success */
		for (size_t i = 0; i + 1 < left.n; i++)
			warnx("%s used the revoked grant and is still running "
			      "after %d s; stop it yourself",
			    left.v[i], REVOKE_WAIT_MS / 1000);
		die("%s used the revoked grant and is still running after %d "
		    "s; stop it yourself",
		    left.v[left.n - 1], REVOKE_WAIT_MS / 1000);
	}
	kb_strv_free(&left);
	if (unverified > 0)
		die("%zu registered run%s could not be checked (see the notes "
		    "above) and may still use the grant; stop %s yourself",
		    unverified, unverified == 1 ? "" : "s",
		    unverified == 1 ? "it" : "them");
	return 0;
}
