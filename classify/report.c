/*
 * classify/report.c — rendering a denial: the human line and the JSON
 * record. JSON goes through jansson, never hand-written escaping: argv and
 * evidence are whatever the command printed or was given.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <jansson.h>

#include "../profile/options.h"
#include "report.h"

int
kb_denial_id(char out[KB_ID_LEN + 1])
{
	unsigned char r[8];

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return -1;
	snprintf(out, KB_ID_LEN + 1, "sbx_%02x%02x%02x%02x%02x%02x%02x%02x",
	    r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
	return 0;
}

/*
 * The denial is authored by the command: its stderr names the path, the
 * host and the failure, and a command can print any of it without having
 * tried anything. The line says so, and a suggestion that would lift the
 * sandbox (--unconfined) is given as what it is: the command's claim, with
 * no narrower grant that kinbox could offer.
 */
/* the stream is filled in last (\x01 never survives kb_escape, so it
 * cannot come from the command) */
#define FROM_STDERR "read from the command's \x01"
#define ONLY_UNCONFINED                                                        \
	"only --unconfined would allow it, and nothing but the command's "     \
	"stderr says that it is needed"

#define NET_BLOCKED                                                            \
	"the network is off by %s (network = off in the project file), "       \
	"which no flag or grant lifts"

/* The line of a write a read-only run refused (d->read_only_by set). */
static char *
read_only_line(const struct kb_denial *d, const char *path, const char *reason,
    const char *eid)
{
	_cleanup_free_ char *by = kb_escape(d->read_only_by);
	bool flag = strncmp(d->read_only_by, "--", 2) == 0;

	return xasprintf("denied write '%s' (%s, " FROM_STDERR
			 "): this run is read-only (%s%s), which no --write "
			 "or grant lifts; %s%s  [%s]",
	    path, reason, flag ? "" : "[sandbox] mode in ", by,
	    flag ? "run it without --read-only if it should write"
		 : "run it without read-only (remove that line) if it "
		   "should write",
	    d->ro_root_fits ? ""
			    : ", though no --write root fits it then either "
			      "(/, your home, or a directory that holds one "
			      "of kinbox's stores)",
	    eid);
}

/* `s` quoted for a shell and escaped for a person (a new string) */
static char *
shq(const char *s)
{
	struct kb_buf b = {0};

	kb_buf_puts(&b, "");
	kb_buf_shquote_visible(&b, s);
	return b.s;
}

static char *report_line(const struct kb_denial *d, const char *id);

char *
kb_report_line(const struct kb_denial *d, const char *id)
{
	char *line = report_line(d, id), *at = strchr(line, '\x01');
	char *r;

	if (at == NULL)
		return line;
	*at = '\0';
	r = xasprintf(
	    "%s%s%s", line, d->from_stdout ? "stdout" : "stderr", at + 1);
	free(line);
	return r;
}

static char *
report_line(const struct kb_denial *d, const char *id)
{
	/* every field came from the command's stderr (or names a directory
	 * found from it): escaped, so that it cannot end this line */
	_cleanup_free_ char *path = kb_escape(d->path);
	_cleanup_free_ char *reason = kb_escape(d->reason);
	_cleanup_free_ char *host = kb_escape(d->host);
	/* the roots and directories are given as a shell reads them: a
	 * space in a name cannot split the advice in two */
	_cleanup_free_ char *root = shq(d->suggest_write);
	_cleanup_free_ char *cdir = shq(d->cache_dir);
	_cleanup_free_ char *eid = kb_escape(id);
	_cleanup_free_ char *blocked = kb_escape(d->net_blocked_by);

	switch (d->cls) {
	case KB_CLASS_WRITE:
		if (d->read_only_by[0] != '\0')
			return read_only_line(d, path, reason, eid);
		/* the landlock backend has no private /tmp, no overlays */
		if (d->landlock && kb_path_within(d->path, "/tmp") &&
		    d->suggest_write[0] != '\0')
			return xasprintf(
			    "denied write '%s' (%s, " FROM_STDERR
			    "): the landlock backend has no private /tmp "
			    "(the host's is read-only); write to $TMPDIR "
			    "instead, or retry with --write %s  [%s]",
			    path, reason, root, eid);
		if (d->landlock && kb_path_within(d->path, "/tmp"))
			return xasprintf(
			    "denied write '%s' (%s, " FROM_STDERR
			    "): the landlock backend has no private /tmp "
			    "(the host's is read-only); write to $TMPDIR "
			    "instead, or run where bubblewrap works (kinbox "
			    "--status)  [%s]",
			    path, reason, eid);
		/* ephemeral and empty are read-only there too: only a
		 * persisted cache is writable, and only one that exists */
		if (d->landlock && d->cache[0] != '\0' && d->cache_absent)
			return xasprintf(
			    "denied write '%s' (%s, " FROM_STDERR
			    "): the %s cache %s does not exist, and the "
			    "landlock backend cannot give it an overlay; "
			    "create it (mkdir -p %s) and set %s = persisted "
			    "in [caches] of your config.ini (kinbox.conf(5)), "
			    "or run where bubblewrap works  [%s]",
			    path, reason, d->cache, cdir, cdir, d->cache, eid);
		if (d->landlock && d->cache[0] != '\0')
			return xasprintf(
			    "denied write '%s' (%s, " FROM_STDERR
			    "): the %s cache %s is read-only under the "
			    "landlock backend (%s); set %s = persisted in "
			    "[caches] of your config.ini (kinbox.conf(5)), or "
			    "run where bubblewrap works  [%s]",
			    path, reason, d->cache, cdir,
			    d->cache_off ? "[caches] says off, and an "
					   "ephemeral cache would be too"
					 : "no overlay without a mount "
					   "namespace",
			    d->cache, eid);
		if (d->cache[0] != '\0' && d->cache_absent && !d->cache_off)
			return xasprintf(
			    "denied write '%s' (%s, " FROM_STDERR
			    "): the cache directory %s ([caches] %s) does "
			    "not exist, so kinbox could not make it "
			    "writable (it creates nothing in your home); "
			    "create it (mkdir -p %s) and run again  [%s]",
			    path, reason, cdir, d->cache, cdir, eid);
		if (d->cache[0] != '\0' && d->cache_off)
			return xasprintf(
			    "denied write '%s' (%s, " FROM_STDERR
			    "): the %s cache %s is read-only "
			    "([caches] %s = off); set %s = "
			    "ephemeral (writes discarded after the "
			    "run) in [caches] of your config.ini "
			    "(kinbox.conf(5))  [%s]",
			    path, reason, d->cache, cdir, d->cache, d->cache,
			    eid);
		if (d->cache[0] != '\0')
			return xasprintf(
			    "denied write '%s' (%s, " FROM_STDERR
			    "): the %s cache %s is read-only here "
			    "(ephemeral, and this kernel cannot "
			    "overlay it); set %s = empty (an empty "
			    "cache, discarded) or persisted in "
			    "[caches] of your config.ini "
			    "(kinbox.conf(5))  [%s]",
			    path, reason, d->cache, cdir, d->cache, eid);
		if (d->suggest_write[0] != '\0' && d->suggest_create)
			return xasprintf("denied write '%s' (%s, " FROM_STDERR
					 "): %s does not exist, and kinbox "
					 "grants only existing directories; "
					 "create it outside the sandbox "
					 "(mkdir -p %s), then retry with "
					 "--write %s  [%s]",
			    path, reason, root, root, root, eid);
		if (d->suggest_write[0] != '\0')
			return xasprintf("denied write '%s' (%s, " FROM_STDERR
					 "); retry with --write %s  [%s]",
			    path, reason, root, eid);
		return xasprintf(
		    "denied write '%s' (%s, " FROM_STDERR "); no "
		    "--write root fits (/, your home, or a directory that "
		    "holds one of kinbox's stores); " ONLY_UNCONFINED "  [%s]",
		    path, reason, eid);
	case KB_CLASS_NETWORK:
		/* kinbox's proxy refused the request: the host is the one
		 * the command asked for (its words: escaped), the grant the
		 * entry kinbox would accept for it */
		if (d->exact && d->suggest_host[0] != '\0') {
			_cleanup_free_ char *grant = shq(d->suggest_host);

			return xasprintf("denied network to %s (%s; kinbox's "
					 "proxy refused it, not a guess); if "
					 "the command should reach it, retry "
					 "with --allow-host %s  [%s]",
			    host, reason, grant, eid);
		}
		if (d->exact) {
			/* the proxy's whole reason (the SNI the command
			 * sent, the ranges refused) is in the evidence */
			_cleanup_free_ char *why = kb_escape(d->evidence);

			return xasprintf(
			    "denied network to %s (%s; kinbox's proxy refused "
			    "it, not a guess); no --allow-host lifts that (a "
			    "private or reserved destination, an address, or "
			    "a tunnel that is not TLS to that very host); "
			    "only --net, the whole network, would let it "
			    "out  [%s]",
			    host, why, eid);
		}
		if (d->net_blocked_by[0] != '\0')
			return xasprintf("denied network%s%s (%s, " FROM_STDERR
					 "); " NET_BLOCKED "  [%s]",
			    d->host[0] ? " to " : "", host, reason, blocked,
			    eid);
		if (d->from_status)
			return xasprintf("denied network (%s, read from the "
					 "command's exit status: it printed "
					 "nothing); retry with --net  [%s]",
			    reason, eid);
		if (d->suggest_host[0] != '\0') {
			_cleanup_free_ char *grant = shq(d->suggest_host);

			return xasprintf(
			    "denied network to %s (%s, " FROM_STDERR
			    "); retry with --allow-host %s "
			    "(that host only, through kinbox's "
			    "proxy; --net if the tool ignores "
			    "HTTPS_PROXY)  [%s]",
			    host, reason, grant, eid);
		}
		return xasprintf("denied network%s%s (%s, " FROM_STDERR "); "
				 "retry with --net  [%s]",
		    d->host[0] ? " to " : "", host, reason, eid);
	case KB_CLASS_SSH:
		if (d->net_blocked_by[0] != '\0')
			return xasprintf("denied ssh (%s, " FROM_STDERR
					 "); " NET_BLOCKED "  [%s]",
			    reason, blocked, eid);
		/* no --ssh-agent there: it refuses every unix socket */
		if (d->landlock && d->suggest_net)
			return xasprintf("denied ssh (%s, " FROM_STDERR
					 "): --net lets the connection out, "
					 "but the landlock backend refuses "
					 "--ssh-agent (every unix socket) and "
					 "keeps ~/.ssh unreadable; run where "
					 "bubblewrap works (kinbox --status), "
					 "or use https  [%s]",
			    reason, eid);
		if (d->landlock)
			return xasprintf("denied ssh (%s, " FROM_STDERR
					 "): the landlock backend refuses "
					 "every unix socket, the agent's too, "
					 "and --ssh-agent with it; run where "
					 "bubblewrap works (kinbox --status), "
					 "or use https  [%s]",
			    reason, eid);
		return xasprintf("denied ssh (%s, " FROM_STDERR "); retry with "
				 "--ssh-agent --net  [%s]",
		    reason, eid);
	case KB_CLASS_OTHER:
		if (d->path[0] != '\0') {
			_cleanup_free_ char *what = kb_escape(
			    d->guard[0] != '\0' ? d->guard : "a hidden path");

			/* Landlock's EACCES does not tell a read from a
			 * write: a masked path is neither readable nor
			 * writable there */
			return xasprintf("denied %s '%s' (%s, " FROM_STDERR
					 "): %s, hidden by the sandbox; no "
					 "--write lifts that; " ONLY_UNCONFINED
					 "  [%s]",
			    d->landlock ? "access to" : "write", path, reason,
			    what, eid);
		}
		/* what only the landlock backend refuses: the bwrap one
		 * allows it */
		if (d->landlock && strstr(d->reason, "(landlock backend)"))
			return xasprintf(
			    "denied by the sandbox (%s, " FROM_STDERR
			    "): the landlock backend refuses %s, whatever "
			    "the grant, and the bwrap backend allows it "
			    "(kinbox --status says whether it runs here); "
			    "else " ONLY_UNCONFINED "  [%s]",
			    reason,
			    strstr(d->reason, "unix socket")
				? "every unix socket, with or without --net "
				  "(Landlock cannot tell one from another)"
				: "SysV IPC and POSIX message queues (there "
				  "is no IPC namespace to make them private)",
			    eid);
		return xasprintf("denied by the sandbox (%s, " FROM_STDERR "); "
				 "no narrower grant exists; " ONLY_UNCONFINED
				 "  [%s]",
		    reason, eid);
	case KB_CLASS_GUARDED: {
		_cleanup_free_ char *guard = kb_escape(d->guard);

		return xasprintf("refused write '%s' (%s, " FROM_STDERR
				 "): guarded by %s; no grant lifts it, by "
				 "design, so do not ask for one  [%s]",
		    path, reason, guard, eid);
	}
	case KB_CLASS_SOCKET: {
		/* the path comes from the command's address: escaped */
		_cleanup_free_ char *grant = shq(d->suggest_socket);

		if (d->suggest_socket[0] != '\0')
			return xasprintf(
			    "denied connect to the unix socket "
			    "'%s' (%s; kinbox refused it, not a "
			    "guess); if the command should reach "
			    "it, retry with --allow-socket %s  [%s]",
			    path, reason, grant, eid);
		return xasprintf("denied connect to the unix socket '%s' (%s; "
				 "kinbox refused it, not a guess); no grant "
				 "fits it (it is not a socket file kinbox "
				 "can name); " ONLY_UNCONFINED "  [%s]",
		    path, reason, eid);
	}
	case KB_CLASS_NONE:
		break;
	}
	return xasprintf("no denial  [%s]", eid);
}

/* A JSON string even for bytes that are not UTF-8 (replaced by '?'). */
static json_t *
jstr(const char *s)
{
	json_t *j = json_string(s);
	char *copy;

	if (j != NULL)
		return j;
	copy = xstrdup(s);
	for (unsigned char *p = (unsigned char *)copy; *p; p++)
		if (*p >= 0x80)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j;
}

static void
set(json_t *o, const char *k, json_t *v)
{
	if (v == NULL || json_object_set_new(o, k, v) == -1)
		die("out of memory");
}

static bool
argv_exact(char *const *argv)
{
	for (; argv != NULL && *argv != NULL; argv++) {
		json_t *j = json_string(*argv);

		if (j == NULL)
			return false;
		json_decref(j);
	}
	return true;
}

/* The fingerprint alone: what kinpolicy fingerprint prints. */
static json_t *
fingerprint(const struct kb_denial *d, const char *id)
{
	json_t *o = json_object(), *sug = json_object(), *wp = json_array();

	if (o == NULL || sug == NULL || wp == NULL)
		die("out of memory");
	if (id != NULL)
		set(o, "id", json_string(id));
	set(o, "class", json_string(kb_class_name(d->cls)));
	set(o, "evidence", jstr(d->evidence));
	/* read from the command's stdout, not its stderr (absent: stderr,
	 * the exit status, or kinbox's own proxy and supervisor) */
	if (d->from_stdout)
		set(o, "stream", json_string("stdout"));
	set(o, "reason", jstr(d->reason));
	if (d->cls == KB_CLASS_WRITE || d->cls == KB_CLASS_GUARDED ||
	    d->cls == KB_CLASS_SOCKET || d->path[0] != '\0')
		set(o, "path", jstr(d->path));
	if (d->guard[0] != '\0')
		set(o, "guard", jstr(d->guard));
	if (d->cache[0] != '\0') {
		set(o, "cache", jstr(d->cache));
		set(o, "cache_dir", jstr(d->cache_dir));
	}
	if (d->cls == KB_CLASS_NETWORK && d->host[0] != '\0')
		set(o, "host", jstr(d->host));
	/* seen by kinbox's egress proxy, not read from the command's
	 * stderr: kinpolicy show and grant say so */
	if (d->exact)
		set(o, "exact", json_true());
	if (d->net_blocked_by[0] != '\0')
		set(o, "network_off_by", jstr(d->net_blocked_by));
	/* refused because the run is read-only: no grant lifts it */
	if (d->read_only_by[0] != '\0')
		set(o, "read_only_by", jstr(d->read_only_by));
	/* judged by the landlock backend's errors (EACCES, no private
	 * /tmp, no overlays, no unix sockets) */
	if (d->landlock)
		set(o, "backend", json_string("landlock"));
	/* the smallest grant that helps, keyed as the option table keys
	 * grants (kinpolicy grant takes the same names) */
	for (size_t i = 0; i < KB_OPT__N; i++) {
		const struct kb_option *r = &kb_options[i];

		if (r->max_life == KB_LIFE_NEVER || r->json == NULL)
			continue;
		if (r->type == KB_T_LIST) {
			json_t *l = r->id == KB_OPT_WRITE ? json_incref(wp)
							  : json_array();

			if (r->id == KB_OPT_WRITE &&
			    d->suggest_write[0] != '\0')
				json_array_append_new(
				    wp, jstr(d->suggest_write));
			if (r->id == KB_OPT_ALLOW_SOCKET &&
			    d->suggest_socket[0] != '\0')
				json_array_append_new(
				    l, jstr(d->suggest_socket));
			if (r->id == KB_OPT_ALLOW_HOST &&
			    d->suggest_host[0] != '\0')
				json_array_append_new(l, jstr(d->suggest_host));
			set(sug, r->json, l);
			continue;
		}
		set(sug, r->json,
		    json_boolean(
			r->id == KB_OPT_NET          ? d->suggest_net
			: r->id == KB_OPT_SSH_AGENT  ? d->suggest_ssh_agent
			: r->id == KB_OPT_UNCONFINED ? d->suggest_unconfined
						     : false));
	}
	json_decref(wp);
	/* a root to make outside the sandbox before it can be granted, or
	 * a missing cache that kinbox makes writable once it is there */
	if ((d->suggest_create && d->suggest_write[0] != '\0') ||
	    (d->cache_absent && !d->cache_off && d->cache_dir[0] != '\0')) {
		json_t *c = json_array();
		const char *dir =
		    d->suggest_create ? d->suggest_write : d->cache_dir;

		if (c == NULL || json_array_append_new(c, jstr(dir)) == -1)
			die("out of memory");
		set(sug, "create", c);
	}
	set(o, "suggest", sug);
	return o;
}

/* Adds the grants `from` suggests to `into` (both "suggest" objects):
 * write roots once each, switches or'ed. */
static void
merge_suggest(json_t *into, json_t *from)
{
	const char *k;
	json_t *v;

	json_object_foreach(from, k, v)
	{
		json_t *have = json_object_get(into, k);

		if (have == NULL) {
			set(into, k, json_deep_copy(v));
		} else if (json_is_array(v)) {
			size_t i, j;
			json_t *x, *y;

			json_array_foreach(v, i, x)
			{
				bool dup = false;

				json_array_foreach(have, j, y) dup =
				    dup || json_equal(x, y);
				if (!dup)
					json_array_append(have, x);
			}
		} else if (json_is_true(v)) {
			set(into, k, json_true());
		}
	}
}

/*
 * The object for n denials of one run: "schema", then the first denial's
 * fields (what a reader of one denial needs), "suggest" for all of them
 * (one grant, one retry), and "denials", each with its own "suggest".
 */
static json_t *
fingerprints(const struct kb_denial *d, size_t n, const char *id)
{
	static const struct kb_denial none = {.cls = KB_CLASS_NONE};
	json_t *o = json_object(), *all = json_array(), *first;
	const char *k;
	json_t *v;

	if (o == NULL || all == NULL)
		die("out of memory");
	set(o, "schema", json_integer(1));
	first = fingerprint(n > 0 ? &d[0] : &none, id);
	json_object_foreach(first, k, v) set(o, k, json_incref(v));
	json_decref(first);
	for (size_t i = 0; i < n; i++) {
		json_t *one = fingerprint(&d[i], NULL);

		if (i > 0)
			merge_suggest(json_object_get(o, "suggest"),
			    json_object_get(one, "suggest"));
		if (json_array_append_new(all, one) == -1)
			die("out of memory");
	}
	set(o, "denials", all);
	return o;
}

static char *
dump(json_t *o)
{
	char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);

	json_decref(o);
	if (text == NULL)
		die("out of memory");
	return text;
}

char *
kb_report_fingerprint_json(const struct kb_denial *d, size_t n)
{
	return dump(fingerprints(d, n, NULL));
}

/* A knob's value in force (typed: only what the command line said), as
 * its row's json_enc column says, from the member its field column names */
static json_t *
policy_value(const struct kb_policy *p, const struct kb_option *r, bool typed)
{
	json_t *a = NULL;

	switch (r->json_enc) {
	case KB_JSON_STRING: {
		const char *v = *kb_option_field(p, r, char *);

		return jstr(v ? v : "");
	}
	case KB_JSON_SWITCH:
		return json_boolean(typed ? p->typed[r->id] == 1
					  : *kb_option_field(p, r, bool));
	case KB_JSON_ROOTS: {
		const struct kb_root *v = kb_option_field(p, r, struct kb_root);

		a = json_array();
		for (size_t i = 0; a != NULL && i < kb_option_count(p, r); i++)
			if (!typed || v[i].origin == KB_ORIGIN_FLAG)
				json_array_append_new(a, jstr(v[i].path));
		return a;
	}
	case KB_JSON_PATHS: {
		const struct kb_pathgrant *v =
		    kb_option_field(p, r, struct kb_pathgrant);

		a = json_array();
		for (size_t i = 0; a != NULL && i < kb_option_count(p, r); i++)
			if (!typed || v[i].origin == KB_ORIGIN_FLAG)
				json_array_append_new(a, jstr(v[i].path));
		return a;
	}
	case KB_JSON_HOSTS: {
		const struct kb_hostgrant *v =
		    kb_option_field(p, r, struct kb_hostgrant);

		/* "name:port": the form kinbox --allow-host takes back */
		a = json_array();
		for (size_t i = 0; a != NULL && i < kb_option_count(p, r); i++)
			if (!typed || v[i].origin == KB_ORIGIN_FLAG) {
				_cleanup_free_ char *h =
				    xasprintf("%s:%u", v[i].name, v[i].port);

				json_array_append_new(a, jstr(h));
			}
		return a;
	}
	case KB_JSON_NAMES: {
		/* every name, typed or not: a name has no origin */
		const struct kb_strv *v = kb_option_field(p, r, struct kb_strv);

		a = json_array();
		for (size_t i = 0; a != NULL && i < v->n; i++)
			json_array_append_new(a, jstr(v->v[i]));
		return a;
	}
	case KB_JSON_NONE:
	case KB_JSON__UNSET:
		break;
	}
	return json_null();
}

char *
kb_report_json(const struct kb_denial *d, size_t n, const char *id,
    const struct kb_policy *p, enum kb_backend_kind ran, int exit_status)
{
	json_t *o = fingerprints(d, n, id), *pol = json_object();
	json_t *fl = json_object(), *argv = json_array();
	char when[32];
	time_t now = time(NULL);
	struct tm tm;

	if (pol == NULL || argv == NULL || fl == NULL)
		die("out of memory");
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	for (char **a = p->argv; a != NULL && *a != NULL; a++)
		json_array_append_new(argv, jstr(*a));
	set(o, "argv", argv);
	set(o, "argv_exact", json_boolean(argv_exact(p->argv)));
	set(o, "cwd", jstr(p->cwd ? p->cwd : ""));
	set(o, "exit_status", json_integer(exit_status));
	/* the command ran until it failed: some of it may have happened */
	set(o, "partial", json_true());
	set(o, "time", json_string(when));
	/* the backend that ran (the policy says what was asked: auto) */
	set(o, "backend",
	    json_string(
		ran == KB_BACKEND_AUTO ? "bwrap" : kb_backend_name(ran)));
	/* the run's mode, and what set a read-only one */
	set(o, "mode", json_string(kb_run_mode_name(p->read_only)));
	if (p->read_only)
		set(o, "mode_by",
		    jstr(p->where[KB_OPT_READ_ONLY] != NULL
			     ? p->where[KB_OPT_READ_ONLY]
			     : "--read-only"));
	set(o, "policy", pol);
	/* what the caller asked for on the command line: kinpolicy retry
	 * replays these and lets config and grants apply anew */
	set(o, "flags", fl);
	for (size_t i = 0; i < KB_OPT__N; i++) {
		const struct kb_option *r = &kb_options[i];

		/* an unconfined run is never judged, so never recorded */
		if (r->json == NULL || r->id == KB_OPT_UNCONFINED)
			continue;
		set(pol, r->json, policy_value(p, r, false));
		if (r->retry == KB_RETRY_YES)
			set(fl, r->json, policy_value(p, r, true));
	}
	return dump(o);
}
