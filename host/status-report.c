/*
 * host/status-report.c — kinbox --status's report of what the doctor
 * found (status.h): kb_status_text() for people, kb_status_json() for
 * programs, both from the struct kb_status that host/status.c collects.
 * No probing and no reading of files here: the struct is all it reads.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../profile/policy.h"
#include "host.h"
#include "status.h"

/* where the values start in the human report */
#define COL 18

/* what the landlock backend never provides, whatever the ABI */
static const char *const landlock_never[] = {
    "a private /tmp (a per-run TMPDIR instead)",
    "a pid namespace (host processes are visible)",
    "a private loopback (the host's localhost is reachable with --net)",
    "git hooks and config read-only during the run (restored after it)",
    "a private /dev/shm (the host's is shared)",
    "SysV IPC (refused: PostgreSQL's initdb fails)",
    "unix sockets (refused: ssh-agent, tmux, gpg-agent, dbus fail)",
    "new pseudo-terminals (script, expect, Python's pty fail: only the "
    "command's own terminal is granted)",
    "read-only metadata outside the writable roots (chmod, times, xattrs "
    "and ACLs of the caller's own files, as root most of the system)",
};

static const char *
tri_name(enum kb_tri t)
{
	return t == KB_TRI_YES ? "yes" : t == KB_TRI_NO ? "no" : "not known";
}

/* --- the report for people ------------------------------------------------ */

/* The three modes a run may have, as kinbox(1)'s Modes gives them (a
 * run's own: kinbox --dry-run's "# mode:" line) */
static const char *const mode_words[3][2] = {
    {"read_only", "read-only (--read-only, mode = read-only): writes only "
		  "the private /tmp and the caches, all discarded"},
    {"workspace_write", "workspace-write (the default): also the workspace "
			"and the --write roots"},
    {"unconfined", "unconfined (--unconfined): no sandbox at all"},
};

/* one fact: the label in its column, the value escaped */
static void __attribute__((format(printf, 3, 4)))
fact(struct kb_buf *b, const char *label, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) == -1)
		die("out of memory");
	va_end(ap);
	kb_buf_printf(b, "%-*s ", COL - 1, label);
	kb_buf_escape(b, s);
	kb_buf_puts(b, "\n");
	free(s);
}

static void
fixes(struct kb_buf *b, const struct kb_strv *fix)
{
	for (size_t i = 0; i < fix->n; i++)
		fact(b, "", "fix: %s", fix->v[i]);
}

static void
text_bwrap(struct kb_buf *b, const struct kb_status *st)
{
	const char *c = st->bwrap.cause;

	if (st->bwrap.path == NULL) {
		fact(b, "bwrap", "not found on PATH");
		fixes(b, &st->bwrap.fix);
		return;
	}
	fact(b, "bwrap", "%s, %s%s%s", st->bwrap.path,
	    st->bwrap.version != NULL ? "version " : "version not known",
	    st->bwrap.version != NULL ? st->bwrap.version : "",
	    st->bwrap.setuid ? ", set-user-ID root" : "");
	if (st->bwrap.probe == KB_PROBE_WORKS) {
		fact(b, "bwrap probe",
		    "works (user, pid and network "
		    "namespaces around /bin/true)");
	} else {
		bool elsewhere = strcmp(c, "max_user_namespaces") == 0 ||
				 strcmp(c, "unprivileged_userns_clone") == 0 ||
				 strcmp(c, "apparmor") == 0 ||
				 strcmp(c, "container") == 0;

		fact(b, "bwrap probe", "fails: %s", st->bwrap.error);
		fact(b, "", "cause: %s%s", st->bwrap.why,
		    elsewhere ? " (fix: below)" : "");
	}
	if (st->bwrap.features_from == NULL)
		fact(b, "bwrap options",
		    "not known (no bwrap --help, no "
		    "version)");
	else
		fact(b, "bwrap options",
		    "--disable-userns %s, --bind-fd %s, --overlay %s (from %s)",
		    tri_name(st->bwrap.disable_userns),
		    tri_name(st->bwrap.bind_fd), tri_name(st->bwrap.overlay),
		    st->bwrap.features_from);
	if (c != NULL && strcmp(c, "no_disable_userns") == 0)
		fact(b, "", "cause: %s", st->bwrap.why);
	fixes(b, &st->bwrap.fix);
}

/* the backend a run would use here: auto's pick, or the one
 * KINBOX_SANDBOX names when it works; NULL for none */
static const char *
run_backend(const struct kb_status *st)
{
	const char *m = st->sandbox_env;

	if (m == NULL || *m == '\0' || strcmp(m, "auto") == 0)
		return st->pick;
	if (strcmp(m, "bwrap") == 0 && st->bwrap.usable)
		return "bwrap";
	if (strcmp(m, "landlock") == 0 && st->landlock.usable)
		return "landlock";
	return NULL;
}

static void
text_landlock(struct kb_buf *b, const struct kb_status *st)
{
	const struct kb_status_lack *l = st->landlock.lack;
	const char *use = run_backend(st);
	bool bwrap = use != NULL && strcmp(use, "bwrap") == 0;
	bool selected = use != NULL && strcmp(use, "landlock") == 0;

	if (st->landlock.abi > 0)
		fact(b, "landlock", "ABI %d", st->landlock.abi);
	else
		fact(b, "landlock", "not available (ABI 0)");
	if (st->landlock.lsm == KB_TRI_UNKNOWN && st->landlock.abi > 0)
		fact(b, "landlock lsm",
		    "enabled (ABI %d; /sys/kernel/security/"
		    "lsm is unreadable)",
		    st->landlock.abi);
	else if (st->landlock.lsm == KB_TRI_UNKNOWN)
		fact(b, "landlock lsm",
		    "not known: /sys/kernel/security/lsm is "
		    "unreadable (securityfs not mounted?)");
	else
		fact(b, "landlock lsm", "%s (%s)",
		    st->landlock.lsm == KB_TRI_YES ? "enabled"
						   : "not in the list",
		    st->landlock.lsm_list);
	if (st->landlock.usable)
		fact(b, "landlock backend", "usable (ABI %d >= %d)",
		    st->landlock.abi, KB_LANDLOCK_ABI_BACKEND);
	else
		fact(b, "landlock backend", "not usable: %s", st->landlock.why);
	fixes(b, &st->landlock.fix);
	/* what the backend in use lacks on this kernel */
	for (size_t i = 0; i < st->landlock.nlack; i++) {
		bool mine = strcmp(l[i].backend, "landlock") == 0;

		if (mine ? !selected : !bwrap)
			continue;
		fact(b, "", "%s backend lacks ABI %d (Linux %s): %s",
		    l[i].backend, l[i].abi, l[i].linux_version, l[i].cost);
	}
	if (selected)
		for (size_t i = 0; i < nitems(landlock_never); i++)
			fact(b, "", "landlock backend never: %s",
			    landlock_never[i]);
}

static void
text_seccomp(struct kb_buf *b, const struct kb_status *st)
{
	struct kb_buf acts = {0};

	for (size_t i = 0; i < st->seccomp.actions.n; i++)
		kb_buf_printf(
		    &acts, "%s%s", i ? " " : "", st->seccomp.actions.v[i]);
	if (st->seccomp.available == KB_TRI_YES)
		fact(b, "seccomp", "available (%s)",
		    acts.s != NULL ? acts.s : "");
	else if (st->seccomp.available == KB_TRI_UNKNOWN)
		fact(b, "seccomp",
		    "not known (no "
		    "/proc/sys/kernel/seccomp/actions_avail)");
	else
		fact(b, "seccomp", "not available");
	kb_buf_free(&acts);
	fixes(b, &st->seccomp.fix);
	if (st->seccomp.mode > 0)
		fact(b, "",
		    "kinbox itself runs under seccomp mode %d (a "
		    "container's or a sandbox's filter)",
		    st->seccomp.mode);
	fact(b, "seccomp notify", "%s%s", tri_name(st->seccomp.user_notif),
	    st->seccomp.user_notif != KB_TRI_YES ? ""
	    : st->seccomp.addfd == KB_TRI_YES
		? " (SECCOMP_RET_USER_NOTIF; NOTIF_ADDFD too, by the "
		  "version: Linux 5.9+)"
	    : st->seccomp.addfd == KB_TRI_NO
		? " (SECCOMP_RET_USER_NOTIF; no NOTIF_ADDFD, by the version: "
		  "Linux < 5.9)"
		: " (SECCOMP_RET_USER_NOTIF; NOTIF_ADDFD not known)");
	fact(b, "unix sockets", "%s%s",
	    st->seccomp.no_mediate == NULL
		? "mediated (bwrap backend): a connect reaches the "
		  "command's own sockets and the granted ones only"
		: "every socket(AF_UNIX) refused under bwrap: cannot "
		  "mediate connects, ",
	    st->seccomp.no_mediate == NULL ? "" : st->seccomp.no_mediate);
}

char *
kb_status_text(const struct kb_status *st)
{
	struct kb_buf b = {0};
	const char *labels[KB_USERNS__N] = {
	    "userns max", "userns clone", "userns apparmor"};
	/* the verdict first, as kinbox --status has always printed it */
	if (st->pick != NULL && strcmp(st->pick, "bwrap") == 0) {
		kb_buf_puts(&b, "sandbox: available (bwrap ");
		kb_buf_escape(&b, st->bwrap.path);
		if (st->landlock.abi > 0)
			kb_buf_printf(
			    &b, ", Landlock ABI %d", st->landlock.abi);
		kb_buf_puts(&b, ")\n");
	} else if (st->pick != NULL) {
		kb_buf_printf(&b,
		    "sandbox: available (landlock backend, "
		    "Landlock ABI %d)\n",
		    st->landlock.abi);
	} else {
		kb_buf_puts(&b, "sandbox: unavailable (");
		kb_buf_escape(&b, st->pick_why);
		kb_buf_puts(&b, ")\n");
	}
	fact(&b, "kernel", "Linux %s, %s", st->kernel ? st->kernel : "?",
	    st->root ? "as root" : "as a user (not root)");
	text_bwrap(&b, st);
	for (size_t i = 0; i < KB_USERNS__N; i++) {
		fact(&b, labels[i], "%s", st->userns[i].says);
		fixes(&b, &st->userns[i].fix);
	}
	if (st->container.name == NULL) {
		fact(&b, "container", "none found");
	} else {
		fact(&b, "container", "%s (%s)%s%s", st->container.name,
		    st->container.evidence, st->container.says ? ": " : "",
		    st->container.says ? st->container.says : "");
		fixes(&b, &st->container.fix);
	}
	if (st->agent_sandbox.name != NULL) {
		fact(&b, "agent sandbox", "%s (%s)", st->agent_sandbox.name,
		    st->agent_sandbox.evidence);
		fact(&b, "", "fix: %s", st->agent_sandbox.fix);
	}
	text_landlock(&b, st);
	text_seccomp(&b, st);
	if (st->yama.ptrace_scope >= 0)
		fact(&b, "yama ptrace", "%ld, %s", st->yama.ptrace_scope,
		    st->yama.says);
	else
		fact(&b, "yama ptrace", "%s", st->yama.says);
	{
		char t[24], m[24];

		fact(&b, "memory budget",
		    "%s by default (a quarter of %s%s, at most 4 GiB; "
		    "--memory or memory = in [sandbox] sets a run's, kinbox "
		    "--dry-run shows it)",
		    kb_size_str(st->memory.budget, m, sizeof(m)),
		    st->memory.total > 0
			? kb_size_str(st->memory.total, t, sizeof(t))
			: "RAM, not known here:",
		    st->memory.total > 0 ? " RAM" : "");
		fact(&b, "memory bwrap", "%s", st->memory.bwrap);
		fact(&b, "memory landlock", "%s", st->memory.landlock);
		fact(&b, "memory cgroup", "%s", st->memory.cgroup);
	}
	for (size_t i = 0; i < nitems(mode_words); i++)
		fact(&b, i == 0 ? "modes" : "", "%s", mode_words[i][1]);
	fact(&b, "new repos", "%s", st->new_repos.says);
	if (st->sandbox_env == NULL)
		fact(&b, "KINBOX_SANDBOX", "%s", st->sandbox_effect);
	else
		fact(&b, "KINBOX_SANDBOX", "%s: %s", st->sandbox_env,
		    st->sandbox_effect);
	fact(&b, "auto", "%s: %s", st->pick != NULL ? st->pick : "none",
	    st->pick_why);
	return b.s;
}

/* --- the report as JSON --------------------------------------------------- */

/* the string, or its bytes above 0x7f as '?' when it is not UTF-8; null
 * for NULL (kinpolicy(1), JSON OUTPUT) */
static json_t *
jstr(const char *s)
{
	json_t *j;
	_cleanup_free_ char *copy = NULL;

	if (s == NULL)
		return json_null();
	if ((j = json_string(s)) != NULL)
		return j;
	copy = xstrdup(s);
	for (unsigned char *c = (unsigned char *)copy; *c != '\0'; c++)
		if (*c >= 0x80)
			*c = '?';
	if ((j = json_string(copy)) == NULL)
		die("out of memory");
	return j;
}

static json_t *
jtri(enum kb_tri t)
{
	return t == KB_TRI_UNKNOWN ? json_null()
				   : json_boolean(t == KB_TRI_YES);
}

static json_t *
jlong(long v)
{
	return v < 0 ? json_null() : json_integer(v);
}

static json_t *
jstrv(const struct kb_strv *sv)
{
	json_t *a = json_array();

	for (size_t i = 0; a != NULL && i < sv->n; i++)
		json_array_append_new(a, jstr(sv->v[i]));
	return a;
}

static void
set(json_t *o, const char *key, json_t *v)
{
	if (o == NULL || v == NULL || json_object_set_new(o, key, v) == -1)
		die("out of memory");
}

static const char *
probe_name(enum kb_probe_result r)
{
	return r == KB_PROBE_WORKS   ? "works"
	       : r == KB_PROBE_FAILS ? "fails"
				     : "not_run";
}

char *
kb_status_json(const struct kb_status *st)
{
	json_t *o = json_object(), *bw = json_object(), *feat = json_object();
	json_t *un = json_object(), *ct = json_object(), *ll = json_object();
	json_t *sc = json_object(), *ya = json_object(), *lack = json_array();
	json_t *never = json_array(), *mem = json_object();
	static const char *const keys[KB_USERNS__N] = {"max_user_namespaces",
	    "unprivileged_userns_clone",
	    "apparmor_restrict_unprivileged_userns"};
	char *text;

	set(o, "schema", json_integer(1));
	set(o, "available", json_boolean(st->pick != NULL));
	set(o, "auto", jstr(st->pick));
	set(o, "auto_reason", jstr(st->pick_why));
	set(o, "sandbox_env", jstr(st->sandbox_env));
	set(o, "sandbox_env_effect", jstr(st->sandbox_effect));
	set(o, "root", json_boolean(st->root));
	set(o, "kernel", jstr(st->kernel));

	set(bw, "path", jstr(st->bwrap.path));
	set(bw, "version", jstr(st->bwrap.version));
	set(bw, "setuid", json_boolean(st->bwrap.setuid));
	set(bw, "probe", json_string(probe_name(st->bwrap.probe)));
	set(bw, "error", jstr(st->bwrap.error));
	set(feat, "disable_userns", jtri(st->bwrap.disable_userns));
	set(feat, "bind_fd", jtri(st->bwrap.bind_fd));
	set(feat, "overlay", jtri(st->bwrap.overlay));
	set(bw, "options", feat);
	set(bw, "options_from", jstr(st->bwrap.features_from));
	set(bw, "usable", json_boolean(st->bwrap.usable));
	set(bw, "cause", jstr(st->bwrap.cause));
	set(bw, "why", jstr(st->bwrap.why));
	set(bw, "fix", jstrv(&st->bwrap.fix));
	set(o, "bwrap", bw);

	for (size_t i = 0; i < KB_USERNS__N; i++) {
		const struct kb_status_sysctl *k = &st->userns[i];
		json_t *s = json_object();

		set(s, "sysctl", json_string(k->name));
		set(s, "present", json_boolean(k->present));
		set(s, "value", jlong(k->value));
		set(s, "blocks", json_boolean(k->blocks));
		set(s, "says", jstr(k->says));
		set(s, "fix", jstrv(&k->fix));
		set(un, keys[i], s);
	}
	set(o, "userns", un);

	if (st->agent_sandbox.name != NULL) {
		json_t *as = json_object();

		set(as, "name", jstr(st->agent_sandbox.name));
		set(as, "evidence", jstr(st->agent_sandbox.evidence));
		set(as, "fix", jstr(st->agent_sandbox.fix));
		set(o, "agent_sandbox", as);
	} else {
		set(o, "agent_sandbox", json_null());
	}
	set(ct, "name", jstr(st->container.name));
	set(ct, "evidence", jstr(st->container.evidence));
	set(ct, "says", jstr(st->container.says));
	set(ct, "fix", jstrv(&st->container.fix));
	set(o, "container", ct);

	set(ll, "abi", json_integer(st->landlock.abi));
	set(ll, "lsm", jtri(st->landlock.lsm));
	set(ll, "lsm_list", jstr(st->landlock.lsm_list));
	set(ll, "usable", json_boolean(st->landlock.usable));
	set(ll, "why", jstr(st->landlock.why));
	for (size_t i = 0; lack != NULL && i < st->landlock.nlack; i++) {
		const struct kb_status_lack *l = &st->landlock.lack[i];

		json_array_append_new(
		    lack, json_pack("{s:i,s:s,s:s,s:b,s:s}", "abi", l->abi,
			      "linux", l->linux_version, "backend", l->backend,
			      "required", l->required, "cost", l->cost));
	}
	set(ll, "lacks", lack);
	for (size_t i = 0; never != NULL && i < nitems(landlock_never); i++)
		json_array_append_new(never, json_string(landlock_never[i]));
	set(ll, "never", never);
	set(ll, "fix", jstrv(&st->landlock.fix));
	set(o, "landlock", ll);

	set(sc, "available", jtri(st->seccomp.available));
	set(sc, "actions",
	    st->seccomp.available == KB_TRI_YES ? jstrv(&st->seccomp.actions)
						: json_null());
	set(sc, "user_notif", jtri(st->seccomp.user_notif));
	set(sc, "addfd", jtri(st->seccomp.addfd));
	set(sc, "unix_mediation",
	    st->seccomp.no_mediate == NULL ? json_string("on")
					   : json_string("off"));
	set(sc, "unix_mediation_why",
	    st->seccomp.no_mediate == NULL
		? json_null()
		: json_string(st->seccomp.no_mediate));
	set(sc, "mode",
	    st->seccomp.mode < 0 ? json_null()
				 : json_integer(st->seccomp.mode));
	set(sc, "fix", jstrv(&st->seccomp.fix));
	set(o, "seccomp", sc);

	set(ya, "ptrace_scope", jlong(st->yama.ptrace_scope));
	set(ya, "says", jstr(st->yama.says));
	set(o, "yama", ya);

	set(mem, "mem_total",
	    st->memory.total > 0 ? json_integer((json_int_t)st->memory.total)
				 : json_null());
	set(mem, "default_budget", json_integer((json_int_t)st->memory.budget));
	set(mem, "bwrap", jstr(st->memory.bwrap));
	set(mem, "landlock", jstr(st->memory.landlock));
	set(mem, "cgroup", jstr(st->memory.cgroup));
	set(o, "memory", mem);
	set(o, "new_repos",
	    json_pack("{s:b,s:s}", "watched", st->new_repos.watched, "says",
		st->new_repos.says != NULL ? st->new_repos.says : ""));
	{
		json_t *md = json_object();

		for (size_t i = 0; i < nitems(mode_words); i++)
			set(md, mode_words[i][0],
			    json_string(mode_words[i][1]));
		set(o, "modes", md);
	}

	text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (text == NULL)
		die("out of memory");
	return text;
}
