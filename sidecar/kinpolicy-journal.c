/*
 * sidecar/kinpolicy-journal.c — what the kinpolicy verbs share
 * (sidecar/kinpolicy-journal.h): the journal's files (records, decisions,
 * retried marks), the store check of a recorded run, the output helpers,
 * and the kinbox that retry and hook run.
 * CLI layer: these print and may die().
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "../classify/report.h"
#include "../lib/fsat.h"
#include "../lib/util.h"
#include "../profile/journal.h"
#include "../profile/options.h"
#include "../profile/policy.h"

#include "kinpolicy-journal.h"

char *
kp_home_dir(void)
{
	char *h = kb_paths_home();

	if (h == NULL)
		die("no home directory; set HOME");
	return h;
}

/* ids are what kinbox made: sbx_ and 16 hex digits, never a path */
void
kp_check_id(const char *id)
{
	size_t n = strlen(id);

	if (n != KB_ID_LEN || strncmp(id, "sbx_", 4) != 0 ||
	    strspn(id + 4, "0123456789abcdef") != 16)
		die("'%s' is not a denial id (sbx_ and 16 hex digits); see "
		    "kinpolicy pending",
		    id);
}

int
kp_journal_dir_fd(const char *home)
{
	struct kb_err e;
	int fd = kb_journal_open(home, false, &e);

	if (fd == -1 && errno != ENOENT)
		die("%s; see kinbox(1), FILES", e.msg);
	return fd;
}

bool
kp_id_of(const char *name, const char *suffix, char id[KB_ID_LEN + 1])
{
	size_t n = strlen(name), k = strlen(suffix);

	if (n != KB_ID_LEN + k || strcmp(name + KB_ID_LEN, suffix) != 0 ||
	    strncmp(name, "sbx_", 4) != 0 ||
	    strspn(name + 4, "0123456789abcdef") < 16)
		return false;
	memcpy(id, name, KB_ID_LEN);
	id[KB_ID_LEN] = '\0';
	return true;
}

json_t *
kp_load_at(int dfd, const char *id, const char *suffix)
{
	_cleanup_free_ char *name = xasprintf("%s%s", id, suffix);
	_cleanup_free_ char *text = kb_read_beneath(dfd, name, KP_RECORD_MAX);

	return text != NULL ? json_loads(text, 0, NULL) : NULL;
}

bool
kp_exists_at(int dfd, const char *id, const char *suffix)
{
	_cleanup_free_ char *name = xasprintf("%s%s", id, suffix);
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* the journaled record of a denial; dies when there is none */
json_t *
kp_load_record(const char *home, const char *id)
{
	_cleanup_close_ int dfd = kp_journal_dir_fd(home);
	_cleanup_free_ char *name = xasprintf("%s%s", id, KB_JOURNAL_RECORD);
	_cleanup_free_ char *text = NULL;
	json_error_t err;
	json_t *j;

	if (dfd == -1)
		die("no denial %s in the journal (there is no journal yet); "
		    "see kinpolicy pending",
		    id);
	if ((text = kb_read_beneath(dfd, name, KP_RECORD_MAX)) == NULL) {
		int errsv = errno;
		_cleanup_free_ char *where = kb_fd_path_at(dfd, name);

		die("no denial %s in the journal (%s: %s); see kinpolicy "
		    "pending",
		    id, where, strerror(errsv));
	}
	if ((j = json_loads(text, 0, &err)) == NULL)
		die("denial %s: its journal record is not JSON (%s); remove it "
		    "with kinpolicy forget %s",
		    id, err.text, id);
	return j;
}

json_t *
kp_load_decision(const char *home, const char *id)
{
	_cleanup_close_ int dfd = kp_journal_dir_fd(home);

	return dfd != -1 ? kp_load_at(dfd, id, KB_JOURNAL_DECISION) : NULL;
}

bool
kp_retried(const char *home, const char *id)
{
	_cleanup_close_ int dfd = kp_journal_dir_fd(home);

	return dfd != -1 && kp_exists_at(dfd, id, KB_JOURNAL_RETRIED);
}

int
kp_journal_create(
    const char *home, const char *id, const char *suffix, const char *text)
{
	_cleanup_close_ int dfd = kp_journal_dir_fd(home);
	_cleanup_free_ char *name = xasprintf("%s%s", id, suffix);
	size_t n = strlen(text);
	int fd;

	if (dfd == -1)
		die("no denial %s in the journal (there is no journal yet); "
		    "see kinpolicy pending",
		    id);
	fd = openat(dfd, name,
	    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd == -1 && errno == EEXIST)
		return -1;
	if (fd == -1 || write(fd, text, n) != (ssize_t)n || close(fd) == -1) {
		int errsv = errno;
		_cleanup_free_ char *where = kb_fd_path_at(dfd, name);

		errno = errsv;
		die_errno("%s", where);
	}
	return 0;
}

void
kp_journal_remove(const char *home, const char *id, const char *suffix)
{
	_cleanup_close_ int dfd = kp_journal_dir_fd(home);
	_cleanup_free_ char *name = xasprintf("%s%s", id, suffix);

	if (dfd != -1)
		unlinkat(dfd, name, 0);
}

const char *
kp_jstr(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s != NULL ? s : "";
}

void
kp_print_esc(const char *label, const char *value)
{
	_cleanup_free_ char *v = kb_escape(value != NULL ? value : "");

	printf("%s%s\n", label, v);
}

void
kp_print_argv(json_t *argv)
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
kp_check_stores_for(json_t *rec, const char *home)
{
	json_t *pol = json_object_get(rec, "policy"), *w;
	struct kb_policy p;
	struct kb_err e;
	size_t i;

	kb_policy_init(&p);
	p.home = xstrdup(home);
	if (*kp_jstr(pol, "workspace") == '/')
		p.workspace = xstrdup(kp_jstr(pol, "workspace"));
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
kp_state_of(const char *home, const char *id, json_t *dec)
{
	if (kp_retried(home, id))
		return "retried";
	if (dec == NULL)
		return "pending";
	if (strcmp(kp_jstr(dec, "decision"), "declined") == 0)
		return "declined";
	return "granted";
}

void
kp_print_suggest(json_t *rec)
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

json_t *
kp_json_text(const char *s)
{
	json_t *j = json_string(s != NULL ? s : "");
	_cleanup_free_ char *copy = NULL;

	if (j != NULL)
		return j;
	copy = xstrdup(s);
	for (unsigned char *p = (unsigned char *)copy; *p != '\0'; p++)
		if (*p >= 0x80)
			*p = '?';
	if ((j = json_string(copy)) == NULL)
		die("out of memory");
	return j;
}

void
kp_dump_json(json_t *o)
{
	/* "schema" first, then the object's keys in their order (a record
	 * that has its own "schema" already keeps this one) */
	json_t *out = json_pack("{s:i}", "schema", KP_JSON_SCHEMA), *v;
	const char *k;
	char *t;

	if (out == NULL)
		die("out of memory");
	json_object_foreach(o, k, v)
	{
		if (strcmp(k, "schema") != 0 &&
		    json_object_set(out, k, v) == -1)
			die("out of memory");
	}
	t = json_dumps(out, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (t == NULL)
		die("out of memory");
	printf("%s\n", t);
	free(t);
	json_decref(out);
}

/* Options of the verbs that take a value: the word after one is that value,
 * never kinpolicy's own --json or --exit-status. */
static const char *const value_options[] = {
    "--command",
    "--kind",
    "--mode",
    "--note",
    "--older-than",
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
kp_want_flag(int *argc, char **argv, const char *flag)
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
		if (strcmp(argv[i], flag) == 0) {
			memmove(argv + i, argv + i + 1,
			    (size_t)(*argc - i) * sizeof(char *));
			(*argc)--;
			return true;
		}
	}
	return false;
}

/* kinbox beside kinpolicy (a build tree, an install: both in one bin/),
 * else the name, found on PATH. What access() accepts is shorter than
 * PATH_MAX. */
char *
kp_find_kinbox(void)
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
