/*
 * kinpolicy-journal.c — what the kinpolicy verbs share (kinpolicy-journal.h):
 * the journal's files (records, decisions, retried marks), the store check
 * of a recorded run, and the output helpers. CLI layer: these print and
 * may die().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "denial/journal.h"
#include "denial/report.h"
#include "lib/util.h"
#include "policy/policy.h"

#include "kinpolicy-journal.h"

char *
home_dir(void)
{
	char *h = kb_paths_home();

	if (h == NULL)
		die("no home directory; set HOME");
	return h;
}

/* ids are what kinbox made: sbx_ and 16 hex digits, never a path */
void
check_id(const char *id)
{
	size_t n = strlen(id);

	if (n != KB_ID_LEN || strncmp(id, "sbx_", 4) != 0 ||
	    strspn(id + 4, "0123456789abcdef") != 16)
		die("'%s' is not a denial id (sbx_ and 16 hex digits); see "
		    "kinpolicy pending",
		    id);
}

char *
journal_file(const char *home, const char *id, const char *suffix)
{
	_cleanup_free_ char *dir = kb_journal_dir(home);

	if (dir == NULL)
		die("no journal directory; set HOME or XDG_STATE_HOME");
	return xasprintf("%s/%s%s", dir, id, suffix);
}

/* the journaled record of a denial; dies when there is none */
json_t *
load_record(const char *home, const char *id)
{
	_cleanup_free_ char *f = journal_file(home, id, ".json");
	json_error_t err;
	json_t *j = json_load_file(f, 0, &err);

	if (j == NULL)
		die("no denial %s in the journal (%s); see kinpolicy pending",
		    id, err.text);
	return j;
}

json_t *
load_decision(const char *home, const char *id)
{
	_cleanup_free_ char *f = journal_file(home, id, ".decision.json");

	return json_load_file(f, 0, NULL);
}

bool
retried(const char *home, const char *id)
{
	_cleanup_free_ char *f = journal_file(home, id, ".retried");

	return access(f, F_OK) == 0;
}

const char *
jstr(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s != NULL ? s : "";
}

void
print_esc(const char *label, const char *value)
{
	_cleanup_free_ char *v = kb_escape(value != NULL ? value : "");

	printf("%s%s\n", label, v);
}

void
print_argv(json_t *argv)
{
	size_t i;
	json_t *a;

	/* the command's own words: quoted so that a control byte shows as
	 * $'\x1b' instead of acting on the terminal */
	json_array_foreach(argv, i, a)
	{
		struct kb_buf b = {0};

		kb_buf_shquote_visible(
		    &b, json_string_value(a) ? json_string_value(a) : "");
		printf("%s%s", i ? " " : "", b.s);
		kb_buf_free(&b);
	}
	printf("\n");
}

/*
 * The run a denial came from could write its workspace and write roots.
 * A store kinpolicy writes to or obeys there (the grants, the session
 * file, the journal with its decisions) could have been planted by that
 * command: refused as kinbox refuses it (exit 125). The record itself
 * names those roots; a record forged in such a journal is caught by the
 * same test, since its journal lies in the roots it would have to name.
 */
void
check_stores_for(json_t *rec, const char *home)
{
	json_t *pol = json_object_get(rec, "policy"), *w;
	struct kb_policy p;
	struct kb_err e;
	size_t i;

	kb_policy_init(&p);
	p.home = xstrdup(home);
	if (*jstr(pol, "workspace") == '/')
		p.workspace = xstrdup(jstr(pol, "workspace"));
	json_array_foreach(json_object_get(pol, "write_paths"), i, w)
	{
		if (p.nwrite == KB_MAX_WRITE || json_string_value(w) == NULL ||
		    json_string_value(w)[0] != '/')
			continue;
		p.write[p.nwrite].path = xstrdup(json_string_value(w));
		p.write[p.nwrite].origin = KB_ORIGIN_FLAG;
		p.nwrite++;
	}
	if (kb_config_check_stores(&p, NULL, &e) == -1)
		die("%s", e.msg);
	kb_policy_free(&p);
}

const char *
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

void
print_suggest(json_t *rec)
{
	json_t *s = json_object_get(rec, "suggest"), *w;
	size_t i;

	/* the grantable rows of the option table, by their JSON keys */
	printf("suggested:");
	for (size_t k = 0; k < KB_OPT__N; k++) {
		const struct kb_option *o = &kb_options[k];
		json_t *v;

		if (o->max_life == KB_LIFE_NEVER || o->json == NULL)
			continue;
		v = json_object_get(s, o->json);
		if (o->type == KB_T_LIST) {
			json_array_foreach(v, i, w)
			{
				struct kb_buf b = {0};

				kb_buf_shquote_visible(&b,
				    json_string_value(w) ? json_string_value(w)
							 : "");
				printf(" --%s %s", o->flag, b.s);
				kb_buf_free(&b);
			}
		} else if (json_is_true(v)) {
			printf(" --%s", o->flag);
			if (o->id == KB_OPT_UNCONFINED)
				printf(
				    " (no narrower grant exists; nothing but "
				    "the command's stderr says that it is "
				    "needed)");
		}
	}
	printf("\n");
}

void
dump_json(json_t *o)
{
	char *t = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);

	if (t == NULL)
		die("out of memory");
	printf("%s\n", t);
	free(t);
}

/* Options of the verbs that take a value: the word after one is that value,
 * never kinpolicy's own --json. */
static const char *const value_options[] = {
    "--command",
    "--kind",
    "--mode",
    "--note",
    "--path",
    "--session",
    "--shell",
    "--signature",
    "--status",
    "--tool",
    "--workspace",
    "--write",
    "-C",
    "-w",
};

bool
want_json(int *argc, char **argv)
{
	for (int i = 1; i < *argc; i++) {
		bool value = false;

		/* after "--" come the judged command's own words */
		if (strcmp(argv[i], "--") == 0)
			return false;
		for (size_t k = 0; k < nitems(value_options); k++)
			if (strcmp(argv[i], value_options[k]) == 0)
				value = true;
		if (value) {
			i++; /* the option's value */
			continue;
		}
		if (strcmp(argv[i], "--json") == 0) {
			memmove(argv + i, argv + i + 1,
			    (size_t)(*argc - i) * sizeof(char *));
			(*argc)--;
			return true;
		}
	}
	return false;
}
