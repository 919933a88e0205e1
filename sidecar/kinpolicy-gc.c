/*
 * sidecar/kinpolicy-gc.c — the journal's upkeep: forget (one denial) and gc
 * (the old ones, or the decided ones). Every file is reached through the
 * journal's directory descriptor (kb_journal_open: no symlink on the way)
 * and removed relative to it (kb_journal_forget: the record first, never
 * following a name). The journal takes no lock: its files are created
 * exclusively and never rewritten, so a grant or retry racing a removal
 * leaves at most a decision or retry mark without its record, which gc
 * removes the next time.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "../classify/report.h"
#include "../gitguard/gitguard.h"
#include "../lib/fsat.h"
#include "../lib/util.h"
#include "../profile/journal.h"
#include "kinpolicy-journal.h"
#include "kinpolicy.h"

/* prints what was forgotten: one "forgot ID" line each, one "removed
 * PATH" line for each git snapshot removed, or the JSON ("forgotten", and
 * "snapshots_removed" when there were any) */
static void
report_gc(const struct kb_strv *ids, const struct kb_strv *snaps, bool json)
{
	if (json) {
		json_t *o = json_object(), *a = json_array(), *b = json_array();

		if (o == NULL || a == NULL || b == NULL)
			die("out of memory");
		for (size_t i = 0; i < ids->n; i++)
			json_array_append_new(a, json_string(ids->v[i]));
		for (size_t i = 0; i < snaps->n; i++)
			json_array_append_new(b, json_string(snaps->v[i]));
		json_object_set_new(o, "forgotten", a);
		/* only when there were any: the schema-1 object stays as it
		 * was for the journal alone */
		if (snaps->n > 0)
			json_object_set_new(o, "snapshots_removed", b);
		else
			json_decref(b);
		kp_dump_json(o);
		json_decref(o);
		return;
	}
	for (size_t i = 0; i < ids->n; i++)
		printf("forgot %s\n", ids->v[i]);
	for (size_t i = 0; i < snaps->n; i++) {
		_cleanup_free_ char *path = kb_escape(snaps->v[i]);

		printf("removed %s (a git snapshot whose workspace is gone)\n",
		    path);
	}
}

static void
report(const struct kb_strv *ids, bool json)
{
	if (json) {
		json_t *o = json_object(), *a = json_array();

		if (o == NULL || a == NULL)
			die("out of memory");
		for (size_t i = 0; i < ids->n; i++)
			json_array_append_new(a, json_string(ids->v[i]));
		json_object_set_new(o, "forgotten", a);
		kp_dump_json(o);
		json_decref(o);
		return;
	}
	for (size_t i = 0; i < ids->n; i++)
		printf("forgot %s\n", ids->v[i]);
}

int
cmd_forget(int argc, char **argv)
{
	bool json = kp_want_flag(&argc, argv, "--json");
	_cleanup_free_ char *home = kp_home_dir();
	_cleanup_close_ int dfd = -1;
	_cleanup_strv_ struct kb_strv ids = {0};
	struct kb_err e;
	int r = 0;

	if (argc != 2 || argv[1][0] == '-')
		kp_usage("forget");
	kp_check_id(argv[1]);
	if ((dfd = kp_journal_dir_fd(home)) == -1 ||
	    (r = kb_journal_forget(dfd, argv[1], &e)) == 0)
		die("no denial %s in the journal; see kinpolicy pending",
		    argv[1]);
	if (r == -1)
		die("%s", e.msg);
	kb_strv_push(&ids, argv[1]);
	report(&ids, json);
	return 0;
}

/* When the denial happened: the record's "time" (what pending shows),
 * else (a record kinbox did not finish, or not JSON) the file's mtime. */
static time_t
when(int dfd, const char *id)
{
	_cleanup_free_ char *name = xasprintf("%s%s", id, KB_JOURNAL_RECORD);
	json_t *rec = kp_load_at(dfd, id, KB_JOURNAL_RECORD);
	struct stat st;
	struct tm tm = {0};
	const char *end;
	time_t t = (time_t)-1;

	if (rec != NULL) {
		end = strptime(kp_jstr(rec, "time"), "%Y-%m-%dT%H:%M:%SZ", &tm);
		if (end != NULL && *end == '\0')
			t = timegm(&tm);
		json_decref(rec);
	}
	if (t == (time_t)-1 &&
	    fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		t = st.st_mtime;
	return t;
}

int
cmd_gc(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"decided", no_argument, NULL, 'd'},
	    {"json", no_argument, NULL, 'j'},
	    {"older-than", required_argument, NULL, 'o'},
	    {NULL, 0, NULL, 0},
	};
	_cleanup_free_ char *home = kp_home_dir();
	_cleanup_close_ int dfd = -1;
	_cleanup_strv_ struct kb_strv records = {0};
	_cleanup_strv_ struct kb_strv leftovers = {0};
	_cleanup_strv_ struct kb_strv forgotten = {0};
	_cleanup_strv_ struct kb_strv snaps = {0};
	bool json = false, decided = false, failed = false;
	long long age = -1;
	struct kb_err e;
	struct dirent *de;
	time_t now = time(NULL);
	DIR *d;
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			decided = true;
			break;
		case 'j':
			json = true;
			break;
		case 'o':
			if (age != -1)
				die("gc: give --older-than once");
			if (kb_duration_parse(optarg, &age) == -1)
				die("--older-than %s: %s; give a number and "
				    "one unit, s, m, h or d (30m, 12h, 7d)",
				    optarg,
				    errno == ERANGE ? "longer than 100 years"
						    : "not a duration");
			break;
		case ':':
			die("option %s needs a value; see kinpolicy --help",
			    argv[optind - 1]);
		default:
			die("gc: unknown option '%s'; see kinpolicy --help",
			    argv[optind - 1]);
		}
	}
	if (optind != argc)
		die("gc: unexpected argument '%s'; to remove one denial, "
		    "kinpolicy forget ID",
		    argv[optind]);
	if (age == -1 && !decided)
		die("gc: say what goes: --older-than DURATION, --decided or "
		    "both");
	/* the landlock backend's git snapshots (gitguard/snapstore.c) whose
	 * workspace is gone: no run there will restore them */
	if (kb_gitsnap_gc(home, &snaps) == -1) {
		warnx("the git snapshots' store: %s", strerror(errno));
		failed = true;
	}
	/* no journal yet: nothing to forget */
	if ((dfd = kp_journal_dir_fd(home)) == -1) {
		report_gc(&forgotten, &snaps, json);
		return failed ? KB_EXIT_ERROR : 0;
	}
	/* the names first, then the removals: a directory is not changed
	 * while it is read */
	if ((d = kb_opendir_beneath(dfd, ".")) == NULL)
		die_errno("the journal");
	while ((errno = 0, de = readdir(d)) != NULL) {
		char id[KB_ID_LEN + 1];

		if (kp_id_of(de->d_name, KB_JOURNAL_RECORD, id))
			kb_strv_push(&records, id);
		else if (kp_id_of(de->d_name, KB_JOURNAL_DECISION, id) ||
			 kp_id_of(de->d_name, KB_JOURNAL_RETRIED, id))
			kb_strv_push(&leftovers, id);
	}
	if (errno != 0)
		die_errno("reading the journal");
	closedir(d);
	for (size_t i = 0; i < records.n; i++) {
		const char *id = records.v[i];
		time_t t;
		int r;

		if (decided && !kp_exists_at(dfd, id, KB_JOURNAL_DECISION) &&
		    !kp_exists_at(dfd, id, KB_JOURNAL_RETRIED))
			continue;
		/* a time that cannot be read, or one ahead of the clock,
		 * is not old */
		if (age != -1 && ((t = when(dfd, id)) == (time_t)-1 ||
				     t > now || (long long)(now - t) < age))
			continue;
		/* one entry that is not ours stops nothing else */
		if ((r = kb_journal_forget(dfd, id, &e)) == -1) {
			warnx("%s", e.msg);
			failed = true;
		} else if (r == 1) {
			kb_strv_push(&forgotten, id);
		}
	}
	/* a decision or retry mark whose record is gone describes nothing */
	for (size_t i = 0; i < leftovers.n; i++)
		if (!kp_exists_at(dfd, leftovers.v[i], KB_JOURNAL_RECORD) &&
		    kb_journal_forget(dfd, leftovers.v[i], &e) == -1) {
			warnx("%s", e.msg);
			failed = true;
		}
	report_gc(&forgotten, &snaps, json);
	return failed ? KB_EXIT_ERROR : 0;
}
