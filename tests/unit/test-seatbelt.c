/*
 * tests/unit/test-seatbelt.c — the seatbelt planner against hostile
 * directory names (seatbelt-cases.h): whatever a workspace or a write
 * root is called, the profile text is the one a plain name of the same
 * shape gets, the path is exactly one parameter's value, verbatim, no
 * value is anywhere in the text, and the argv carries the parameters as
 * -D elements in order before "--". A change of shape (a second write
 * root) changes only the lines that name it. The refusals, and that
 * nothing of this has run under a real sandbox-exec, are checked here
 * too (the plan's notes say so).
 */
#include "seatbelt-cases.h"
#include "tap.h"

/* how many parameters have exactly the value `v` */
static size_t
value_count(const struct kb_plan *pl, const char *v)
{
	size_t n = 0;

	for (size_t i = 0; i < pl->params.n; i++) {
		const char *eq = strchr(pl->params.v[i], '=');

		if (eq != NULL && strcmp(eq + 1, v) == 0)
			n++;
	}
	return n;
}

/* no parameter's value appears in the profile text */
static bool
values_absent(const struct kb_plan *pl, const char **which)
{
	for (size_t i = 0; i < pl->params.n; i++) {
		const char *eq = strchr(pl->params.v[i], '=');

		if (eq != NULL && strstr(pl->profile, eq + 1) != NULL) {
			*which = pl->params.v[i];
			return false;
		}
	}
	return true;
}

/* sandbox-exec -p PROFILE -D<param>... -- make test */
static bool
argv_shape(const struct kb_plan *pl)
{
	size_t n = pl->params.n;

	if (pl->argv.n != 3 + n + 1 + 2 ||
	    strcmp(pl->argv.v[0], KB_SANDBOX_EXEC) != 0 ||
	    strcmp(pl->exe, KB_SANDBOX_EXEC) != 0 ||
	    strcmp(pl->argv.v[1], "-p") != 0 ||
	    strcmp(pl->argv.v[2], pl->profile) != 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (strncmp(pl->argv.v[3 + i], "-D", 2) != 0 ||
		    strcmp(pl->argv.v[3 + i] + 2, pl->params.v[i]) != 0)
			return false;
	return strcmp(pl->argv.v[3 + n], "--") == 0 &&
	       strcmp(pl->argv.v[4 + n], "make") == 0 &&
	       strcmp(pl->argv.v[5 + n], "test") == 0 &&
	       pl->argv.v[6 + n] == NULL;
}

static bool
has_note(const struct kb_plan *pl, const char *text)
{
	for (size_t i = 0; i < pl->notes.n; i++)
		if (strstr(pl->notes.v[i], text) != NULL)
			return true;
	return false;
}

/* the checks every hostile plan gets: `path` is the value of `key` */
static void
check_hostile(const char *what, const char *label, const struct kb_plan *pl,
    const struct kb_plan *plain, const char *key, const char *path)
{
	const char *which = NULL;

	ok(strcmp(pl->profile, plain->profile) == 0,
	    "%s %s: the profile is the plain name's, byte for byte", what,
	    label);
	assert_cmpstr(sbc_param(pl, key), path, "%s %s: %s is the path, verbatim",
	    what, label, key);
	assert_cmpint(value_count(pl, path), 1,
	    "%s %s: the path is one parameter's value", what, label);
	ok(values_absent(pl, &which), "%s %s: no parameter value in the "
	    "profile text%s%s", what, label, which != NULL ? ": " : "",
	    which != NULL ? "found" : "");
	ok(argv_shape(pl), "%s %s: argv is sandbox-exec -p PROFILE, one -D "
	    "per parameter in order, --, the command", what, label);
	assert_cmpint(pl->params.n, plain->params.n,
	    "%s %s: as many parameters as the plain name's", what, label);
}

/* a hostile name as the workspace and as a write root */
static void
test_names(void)
{
	_cleanup_free_ char *plain_ws = sbc_dir("ws/plain");
	_cleanup_free_ char *plain_w = sbc_dir("w/plain");
	_cleanup_free_ char *other_ws = sbc_dir("ws2");
	struct kb_plan ws_plain, w_plain;
	struct kb_err e;
	const char *roots[1];

	if (plain_ws == NULL || plain_w == NULL || other_ws == NULL ||
	    sbc_plan(plain_ws, NULL, 0, &ws_plain, &e) == -1) {
		ok(0, "the plain workspace's plan: %s", e.msg);
		return;
	}
	roots[0] = plain_w;
	if (sbc_plan(other_ws, roots, 1, &w_plain, &e) == -1) {
		ok(0, "the plain write root's plan: %s", e.msg);
		kb_plan_free(&ws_plain);
		return;
	}
	ok(has_note(&ws_plain, "seatbelt: this profile has been checked by "
	    "kinbox's tests, not run under a real sandbox-exec (no macOS "
	    "machine)"), "the plan says it never ran under sandbox-exec");
	ok(ws_plain.backend == KB_BACKEND_SEATBELT && ws_plain.seccomp_fd ==
	    -1 && ws_plain.status_fd == -1 && ws_plain.stderr_fd == -1 &&
	    ws_plain.empty_fd == -1 && ws_plain.go_fd == -1 &&
	    ws_plain.notify_fd == -1 && ws_plain.unotify_fd == -1 &&
	    ws_plain.proxy_fd == -1, "the seatbelt plan has no descriptors");
	for (size_t i = 1; i < nitems(sbc_names); i++) {
		_cleanup_free_ char *wsrel = xasprintf("ws/%s", sbc_names[i].name);
		_cleanup_free_ char *wrel = xasprintf("w/%s", sbc_names[i].name);
		_cleanup_free_ char *ws = sbc_dir(wsrel), *w = sbc_dir(wrel);
		struct kb_plan pl;

		if (ws == NULL || w == NULL) {
			ok(0, "mkdir %s", sbc_names[i].label);
			continue;
		}
		if (sbc_plan(ws, NULL, 0, &pl, &e) == -1) {
			ok(0, "workspace %s: no plan: %s", sbc_names[i].label,
			    e.msg);
		} else {
			check_hostile("workspace", sbc_names[i].label, &pl,
			    &ws_plain, "WORKSPACE", ws);
			kb_plan_free(&pl);
		}
		roots[0] = w;
		if (sbc_plan(other_ws, roots, 1, &pl, &e) == -1) {
			ok(0, "write root %s: no plan: %s", sbc_names[i].label,
			    e.msg);
		} else {
			check_hostile("write root", sbc_names[i].label, &pl,
			    &w_plain, "WRITE_0", w);
			kb_plan_free(&pl);
		}
	}
	/* the long ones: a 200-byte component, a path near PATH_MAX */
	{
		_cleanup_free_ char *comp = sbc_component(200, 'q');
		_cleanup_free_ char *rel = xasprintf("ws/%s", comp);
		_cleanup_free_ char *deep = sbc_deep_rel("deep", PATH_MAX - 40);
		const char *rels[] = {rel, deep};
		const char *labels[] = {"a 200-byte component",
		    "a path near PATH_MAX"};

		for (size_t i = 0; i < nitems(rels); i++) {
			_cleanup_free_ char *ws = sbc_dir(rels[i]);
			struct kb_plan pl;

			if (ws == NULL) {
				ok(0, "mkdir %s", labels[i]);
				continue;
			}
			if (i == 1)
				ok(strlen(ws) > PATH_MAX - 100,
				    "the deep workspace is %zu bytes long",
				    strlen(ws));
			if (sbc_plan(ws, NULL, 0, &pl, &e) == -1) {
				ok(0, "workspace %s: no plan: %s", labels[i],
				    e.msg);
				continue;
			}
			check_hostile("workspace", labels[i], &pl, &ws_plain,
			    "WORKSPACE", ws);
			kb_plan_free(&pl);
		}
	}
	kb_plan_free(&ws_plain);
	kb_plan_free(&w_plain);
}

/* `text` without the lines that contain `drop` (a new string) */
static char *
without_lines(const char *text, const char *drop)
{
	struct kb_buf b = {0};

	kb_buf_puts(&b, "");
	while (*text != '\0') {
		size_t n = strcspn(text, "\n");
		_cleanup_free_ char *line = strndup(text, n);

		if (strstr(line, drop) == NULL) {
			kb_buf_add(&b, text, n);
			if (text[n] == '\n')
				kb_buf_puts(&b, "\n");
		}
		text += n + (text[n] == '\n');
	}
	return b.s;
}

/* one write root more: only the lines that name WRITE_1 are new */
static void
test_shape(void)
{
	_cleanup_free_ char *ws = sbc_dir("shape/ws");
	_cleanup_free_ char *w0 = sbc_dir("shape/w0");
	_cleanup_free_ char *w1 = sbc_dir("shape/w\")(1");
	const char *roots[2] = {w0, w1};
	struct kb_plan one, two;
	struct kb_err e;

	if (ws == NULL || w0 == NULL || w1 == NULL ||
	    sbc_plan(ws, roots, 1, &one, &e) == -1) {
		ok(0, "one write root: no plan");
		return;
	}
	if (sbc_plan(ws, roots, 2, &two, &e) == -1) {
		ok(0, "two write roots: no plan: %s", e.msg);
		kb_plan_free(&one);
		return;
	}
	{
		_cleanup_free_ char *cut =
		    without_lines(two.profile, "(param \"WRITE_1\")");
		size_t added = 0;

		ok(strcmp(cut, one.profile) == 0, "a second write root: the "
		    "profile differs only by the lines naming WRITE_1");
		for (const char *s = two.profile;
		     (s = strstr(s, "(param \"WRITE_1\")")) != NULL; s++)
			added++;
		ok(added >= 2, "WRITE_1 is written to and its own sockets "
		    "connect (%zu references)", added);
		ok(strcmp(one.profile, two.profile) != 0,
		    "the shapes give different profiles");
	}
	assert_cmpint(two.params.n, one.params.n + 1,
	    "a second write root: one parameter more");
	{
		size_t k = 0;
		bool same = true;

		for (size_t i = 0; i < two.params.n; i++) {
			if (strncmp(two.params.v[i], "WRITE_1=", 8) == 0)
				continue;
			same = same && k < one.params.n &&
			       strcmp(two.params.v[i], one.params.v[k]) == 0;
			k++;
		}
		ok(same, "... and the others are the same, in the same order");
	}
	assert_cmpstr(sbc_param(&two, "WRITE_1"), w1, "WRITE_1 is the second "
	    "root, verbatim");
	kb_plan_free(&one);
	kb_plan_free(&two);
}

/* a parameter sandbox-exec cannot be given is refused, never altered */
static void
test_refusals(void)
{
	_cleanup_free_ char *ws = sbc_dir("ws/plain");
	_cleanup_free_ char *huge = sbc_component(PATH_MAX + 10, 'z');
	struct kb_seatbelt_host h = sbc_host;
	struct kb_plan pl;
	struct kb_err e;

	if (ws == NULL)
		return;
	huge[0] = '/';
	h.run_tmp = "";
	ok(sbc_plan_host(ws, NULL, 0, &h, &pl, &e) == -1 &&
	    strstr(e.msg, "parameter RUNTMP is empty") != NULL &&
	    pl.argv.n == 0 && pl.params.n == 0 && pl.profile == NULL,
	    "an empty parameter is refused, the plan left empty: %s", e.msg);
	h.run_tmp = "private/tmp";
	ok(sbc_plan_host(ws, NULL, 0, &h, &pl, &e) == -1 &&
	    strstr(e.msg, "RUNTMP is not an absolute path") != NULL,
	    "a relative path is refused: %s", e.msg);
	h.run_tmp = huge;
	ok(sbc_plan_host(ws, NULL, 0, &h, &pl, &e) == -1 &&
	    strstr(e.msg, "RUNTMP is longer than PATH_MAX") != NULL,
	    "a path longer than PATH_MAX is refused: %s", e.msg);
	h = sbc_host;
	h.tmp = NULL;
	ok(sbc_plan_host(ws, NULL, 0, &h, &pl, &e) == -1 &&
	    strstr(e.msg, "seatbelt:") != NULL,
	    "no /tmp known: refused: %s", e.msg);
	/* the run tag is a value like the paths: hostile, the text holds */
	{
		struct kb_plan plain;

		h = sbc_host;
		h.run_tag = "kinbox-\")(allow default)(\n";
		if (sbc_plan(ws, NULL, 0, &plain, &e) == 0 &&
		    sbc_plan_host(ws, NULL, 0, &h, &pl, &e) == 0) {
			ok(strcmp(pl.profile, plain.profile) == 0 &&
			    strcmp(sbc_param(&pl, "KINBOX_RUN"), h.run_tag) ==
				0,
			    "a hostile run tag is a value: the profile holds");
			kb_plan_free(&pl);
			kb_plan_free(&plain);
		} else {
			ok(0, "the run tag plans: %s", e.msg);
		}
	}
}

int
main(void)
{
	if (!sbc_init()) {
		printf("Bail out! the temp tree: %s\n", strerror(errno));
		return 1;
	}
	test_names();
	test_shape();
	test_refusals();
	sbc_cleanup();
	return tap_done();
}
