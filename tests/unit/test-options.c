/*
 * tests/unit/test-options.c — the option table (profile/option-table.c): the man
 * pages list exactly its flags and keys, --help is made from it, the one
 * setter records origins, validation names what was typed or which
 * file:line, and the one INI reader (profile/config.c) keeps its limits
 * and tells each section header to its visitor.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../profile/config.h"
#include "../../profile/options.h"
#include "../../profile/policy.h"
#include "tap.h"

static char *
slurp(const char *path)
{
	char *s = kb_read_small_file(path, 1 << 20);

	if (s == NULL)
		printf("# cannot read %s: %s\n", path, strerror(errno));
	return s;
}

/* the flags tagged in kinbox(1)'s OPTIONS: every "\-\-name" on the line
 * after a .TP */
static void
man_flags(const char *man, struct kb_strv *out)
{
	const char *opt = strstr(man, "\n.SH OPTIONS"), *end;
	const char *p;

	if (opt == NULL)
		return;
	end = strstr(opt + 1, "\n.SH ");
	if (end == NULL)
		end = opt + strlen(opt);
	for (p = opt; (p = strstr(p, "\n.TP\n")) != NULL && p < end; p += 4) {
		const char *line = p + 5, *nl = strchr(line, '\n');
		const char *q;

		for (q = line; q != NULL && q < nl &&
		     (q = strstr(q, "\\-\\-")) != NULL && q < nl; q += 4) {
			struct kb_buf b = { 0 };
			const char *c = q + 4;

			kb_buf_puts(&b, "");
			while (c < nl && ((*c >= 'a' && *c <= 'z') ||
					     (c[0] == '\\' && c[1] == '-'))) {
				if (*c == '\\') {
					kb_buf_puts(&b, "-");
					c += 2;
				} else {
					kb_buf_add(&b, c, 1);
					c++;
				}
			}
			kb_strv_push(out, b.s);
			kb_buf_free(&b);
		}
	}
}

/* The field and count columns name the member the row's setter fills:
 * a flag's value set through the table shows there (a value each
 * encoding's setter takes without touching the host) */
static void
test_json_fields(void)
{
	char tmpl[] = "/var/tmp/kb-test-options.XXXXXX";
	_cleanup_free_ char *dir = NULL;

	if (mkdtemp(tmpl) == NULL || (dir = realpath(tmpl, NULL)) == NULL) {
		ok(0, "a directory to set: %s", strerror(errno));
		return;
	}
	for (size_t i = 0; i < KB_OPT__N; i++) {
		const struct kb_option *o = &kb_options[i];
		const char *v = NULL;
		struct kb_policy p;
		struct kb_src s = { KB_ORIGIN_FLAG, NULL };
		struct kb_err e;
		bool seen = false;

		switch (o->json_enc) {
		case KB_JSON_STRING:
		case KB_JSON_ROOTS:
			v = dir;
			break;
		case KB_JSON_SWITCH:
			v = "on";
			break;
		case KB_JSON_PATHS:
			v = "/dev/null";
			break;
		case KB_JSON_HOSTS:
			v = "example.org";
			break;
		case KB_JSON_NAMES:
			v = "KB_TEST_NAME";
			break;
		case KB_JSON_NONE:
		case KB_JSON__UNSET:
			continue;
		}
		kb_policy_init(&p);
		s.where = xasprintf("--%s", o->flag ? o->flag : o->json);
		if (kb_option_set(&p, o->id, v, &s, &e) == -1)
			printf("# %s\n", e.msg);
		switch (o->json_enc) {
		case KB_JSON_STRING: {
			const char *got = *kb_option_field(&p, o, char *);

			seen = got != NULL && strcmp(got, v) == 0;
			break;
		}
		case KB_JSON_SWITCH:
			seen = *kb_option_field(&p, o, bool);
			break;
		case KB_JSON_ROOTS:
			seen = kb_option_count(&p, o) == 1 &&
			       strcmp(kb_option_field(&p, o, struct kb_root)
					  ->path,
				   v) == 0;
			break;
		case KB_JSON_PATHS:
			seen = kb_option_count(&p, o) == 1 &&
			       strcmp(kb_option_field(&p, o, struct kb_pathgrant)
					  ->path,
				   v) == 0;
			break;
		case KB_JSON_HOSTS:
			seen = kb_option_count(&p, o) == 1 &&
			       strcmp(kb_option_field(&p, o, struct kb_hostgrant)
					  ->name,
				   v) == 0;
			break;
		case KB_JSON_NAMES:
			seen = kb_strv_has(kb_option_field(&p, o, struct kb_strv),
			    v);
			break;
		case KB_JSON_NONE:
		case KB_JSON__UNSET:
			break;
		}
		ok(seen, "%s %s lands in the member its field column names",
		    s.where, v);
		free((char *)s.where);
		kb_policy_free(&p);
	}
	rmdir(tmpl);
}

static void
test_table(void)
{
	for (size_t i = 0; i < KB_OPT__N; i++) {
		const struct kb_option *o = &kb_options[i];

		ok(o->id == (enum kb_opt)i, "row %zu is its own id", i);
		if (o->max_life != KB_LIFE_NEVER)
			ok(o->flag != NULL && o->key != NULL && o->json != NULL &&
			    (o->sections & KB_IN_GRANT),
			    "grantable %s: a flag, an INI key in [grant], a JSON "
			    "key", o->flag ? o->flag : "?");
		if (o->project != KB_PROJECT_NO)
			ok(o->sections & KB_IN_SANDBOX,
			    "%s: a project may set it, so it is a [sandbox] key",
			    o->key ? o->key : "?");
		if (o->type != KB_T_CLI)
			ok(o->set != NULL, "row %zu has a setter", i);
		/* the columns with no default: each row says, on purpose
		 * (what -Wswitch-enum did for the switches they replace) */
		ok(o->complete != KB_COMPLETE__UNSET &&
			(o->metavar != NULL || o->complete == KB_COMPLETE_NONE),
		    "row %zu: what the completions offer (none without a "
		    "value)", i);
		ok(o->json_enc != KB_JSON__UNSET &&
			(o->json == NULL) == (o->json_enc == KB_JSON_NONE),
		    "row %zu: how records write it (none without a JSON key)",
		    i);
		ok(o->json_enc == KB_JSON_NONE ||
			o->field + sizeof(void *) <= sizeof(struct kb_policy),
		    "row %zu: its value lies in struct kb_policy", i);
		ok((o->count != 0) == (o->json_enc == KB_JSON_ROOTS ||
					  o->json_enc == KB_JSON_PATHS ||
					  o->json_enc == KB_JSON_HOSTS),
		    "row %zu: a length exactly when its value is an array", i);
		ok(o->retry != KB_RETRY__UNSET &&
			(o->retry == KB_RETRY_NO ||
			    (o->flag != NULL && o->json != NULL)),
		    "row %zu: whether retry passes it (only with a flag and a "
		    "JSON key)", i);
	}
	test_json_fields();
}

static void
test_man(void)
{
	char *man = slurp("man/kinbox.1");
	char *conf = slurp("man/kinbox.conf.5");
	char *help = kb_options_help();
	struct kb_strv flags = { 0 };

	if (man == NULL || conf == NULL) {
		ok(0, "man pages readable (run from the top of the tree)");
		return;
	}
	man_flags(man, &flags);
	ok(flags.n > 10, "kinbox(1) OPTIONS tags %zu flags", flags.n);
	for (size_t i = 0; i < KB_OPT__N; i++) {
		const struct kb_option *o = &kb_options[i];
		_cleanup_free_ char *dd = NULL;

		if (o->flag != NULL) {
			ok(kb_strv_has(&flags, o->flag),
			    "kinbox(1) OPTIONS documents --%s", o->flag);
			dd = xasprintf("--%s", o->flag);
			ok(strstr(help, dd) != NULL, "--help lists --%s",
			    o->flag);
		}
		if (o->negflag != NULL)
			ok(kb_strv_has(&flags, o->negflag),
			    "kinbox(1) OPTIONS documents --%s", o->negflag);
		if (o->key != NULL) {
			_cleanup_free_ char *b = xasprintf("\n.B %s\n", o->key);
			_cleanup_free_ char *bi = xasprintf("\n.BI %s ", o->key);

			ok(strstr(conf, b) != NULL || strstr(conf, bi) != NULL,
			    "kinbox.conf(5) documents the key %s", o->key);
		}
	}
	for (size_t i = 0; i < flags.n; i++)
		ok(kb_option_by_flag(flags.v[i]) != NULL,
		    "--%s of kinbox(1) is a row of the table", flags.v[i]);
	kb_strv_free(&flags);
	free(help);
	free(man);
	free(conf);
}

static void
set_ok(struct kb_policy *p, enum kb_opt id, const char *v, int origin,
    const char *where)
{
	struct kb_src s = { origin, where };
	struct kb_err e;

	if (kb_option_set(p, id, v, &s, &e) == -1)
		printf("# %s\n", e.msg);
}

static void
test_setter_and_validate(void)
{
	struct kb_policy p;
	struct kb_err e;
	struct kb_src s;

	kb_policy_init(&p);
	set_ok(&p, KB_OPT_NET, "on", KB_ORIGIN_SYSTEM, "/etc/kinbox/config.ini:2");
	ok(p.net && p.origin[KB_OPT_NET] == KB_ORIGIN_SYSTEM &&
	    strcmp(p.where[KB_OPT_NET], "/etc/kinbox/config.ini:2") == 0 &&
	    p.typed[KB_OPT_NET] == -1, "a config line sets, with origin and "
	    "file:line, and was not typed");
	set_ok(&p, KB_OPT_NET, "off", KB_ORIGIN_FLAG, "--no-net");
	ok(!p.net && p.origin[KB_OPT_NET] == KB_ORIGIN_FLAG &&
	    p.typed[KB_OPT_NET] == 0, "a later flag wins, typed off");
	s = (struct kb_src){ KB_ORIGIN_GLOBAL, "/c/config.ini:7" };
	ok(kb_option_set(&p, KB_OPT_NET, "maybe", &s, &e) == -1 &&
	    strcmp(e.msg, "/c/config.ini:7: network = maybe: not on or off; "
	    "write on or off") == 0, "a bad value names file:line and the "
	    "key: %s", e.msg);
	s = (struct kb_src){ KB_ORIGIN_FLAG, "--backend" };
	ok(kb_option_set(&p, KB_OPT_BACKEND, "x", &s, &e) == -1 &&
	    strcmp(e.msg, "--backend x: unknown backend; use auto, bwrap, landlock "
	    "or seatbelt") ==
	    0, "a bad flag value names the flag: %s", e.msg);
	s = (struct kb_src){ KB_ORIGIN_SYSTEM, "/etc/kinbox/config.ini:3" };
	ok(kb_option_set(&p, KB_OPT_BACKEND, "x", &s, &e) == -1 &&
	    strcmp(e.msg, "/etc/kinbox/config.ini:3: backend = x: unknown "
	    "backend; use auto, bwrap, landlock or seatbelt") == 0,
	    "the same value in a file names the key, not the flag: %s", e.msg);
	kb_policy_free(&p);

	/* a grant permits: the user's --no-net wins, no error */
	kb_policy_init(&p);
	set_ok(&p, KB_OPT_SSH_AGENT, "on", KB_ORIGIN_SESSION, "/r/s.ini:3");
	ok(p.net && p.origin[KB_OPT_NET] == KB_ORIGIN_SESSION,
	    "a session's ssh_agent grant brings the network it needs");
	set_ok(&p, KB_OPT_NET, "off", KB_ORIGIN_FLAG, "--no-net");
	ok(kb_options_validate(&p, &e) == 0 && !p.ssh_agent && p.notes.n == 1 &&
	    strcmp(p.notes.v[0], "ssh agent: the grant of /r/s.ini:3 is not "
	    "used: the network is off (--no-net)") == 0,
	    "ssh_agent grant + --no-net: dropped with a note, no error");
	kb_policy_free(&p);

	kb_policy_init(&p);
	set_ok(&p, KB_OPT_SSH_AGENT, "on", KB_ORIGIN_FLAG, "--ssh-agent");
	set_ok(&p, KB_OPT_NET, "off", KB_ORIGIN_FLAG, "--no-net");
	ok(kb_options_validate(&p, &e) == -1 && strcmp(e.msg, "--ssh-agent "
	    "needs the network, and --no-net turns it off; drop one of the "
	    "two") == 0, "--ssh-agent --no-net: both named: %s", e.msg);
	kb_policy_free(&p);

	kb_policy_init(&p);
	set_ok(&p, KB_OPT_SSH_AGENT, "on", KB_ORIGIN_FLAG, "--ssh-agent");
	set_ok(&p, KB_OPT_NET, "on", KB_ORIGIN_FLAG, "--net");
	set_ok(&p, KB_OPT_NET, "off", KB_ORIGIN_PROJECT, "/w/.kinbox.ini:2");
	ok(kb_options_validate(&p, &e) == -1 && strstr(e.msg,
	    "which /w/.kinbox.ini:2 turns off") != NULL,
	    "--ssh-agent with a project's network = off names the file:line");
	ok(p.typed[KB_OPT_NET] == 1, "--net stays recorded as typed");
	kb_policy_free(&p);

	kb_policy_init(&p);
	set_ok(&p, KB_OPT_SSH_AGENT, "on", KB_ORIGIN_FLAG, "--ssh-agent");
	ok(kb_options_validate(&p, &e) == -1 && strcmp(e.msg, "--ssh-agent "
	    "needs --net: the agent is only useful to reach a remote host; add "
	    "--net") == 0, "--ssh-agent alone: add --net");
	kb_policy_free(&p);
}

/* --allow-socket and allow_sockets: recorded as given by the one setter
 * (judged at finalize: test-bwrap.c), repeatable up to KB_MAX_SOCKET */
static void
test_allow_socket(void)
{
	const struct kb_option *o = kb_option_by_flag("allow-socket");
	struct kb_policy p;
	struct kb_err e;
	struct kb_src s;

	ok(o != NULL && o->id == KB_OPT_ALLOW_SOCKET &&
	    strcmp(o->metavar, "PATH") == 0 &&
	    o->sections == (KB_IN_SANDBOX | KB_IN_GRANT) &&
	    strcmp(o->key, "allow_sockets") == 0 &&
	    strcmp(o->json, "allow_sockets") == 0 &&
	    o->max_life == KB_LIFE_WORKSPACE && o->project == KB_PROJECT_NO &&
	    o->type == KB_T_LIST && kb_option_by_key("allow_sockets") == o,
	    "--allow-socket PATH: a list, [sandbox] and [grant], a workspace "
	    "grant at most, never from a project file");

	kb_policy_init(&p);
	set_ok(&p, KB_OPT_ALLOW_SOCKET, "srv/db.sock", KB_ORIGIN_FLAG,
	    "--allow-socket");
	set_ok(&p, KB_OPT_ALLOW_SOCKET, "/var/run/x/y/z/build.sock",
	    KB_ORIGIN_FLAG, "--allow-socket");
	set_ok(&p, KB_OPT_ALLOW_SOCKET, "srv/db.sock", KB_ORIGIN_FLAG,
	    "--allow-socket");
	ok(p.nallow_socket == 2 &&
	    strcmp(p.allow_socket[0].path, "srv/db.sock") == 0 &&
	    strcmp(p.allow_socket[1].path, "/var/run/x/y/z/build.sock") == 0 &&
	    p.allow_socket[1].origin == KB_ORIGIN_FLAG &&
	    strcmp(p.allow_socket[1].where, "--allow-socket") == 0,
	    "the flag repeats, each path once, kept as given (relative too)");
	ok(p.origin[KB_OPT_ALLOW_SOCKET] == KB_ORIGIN_DEFAULT &&
	    p.where[KB_OPT_ALLOW_SOCKET] == NULL,
	    "a list keeps its origins per value, not per knob");
	for (int i = 2; i < KB_MAX_SOCKET; i++) {
		_cleanup_free_ char *v = xasprintf("/run/svc%d/s%d", i, i);

		set_ok(&p, KB_OPT_ALLOW_SOCKET, v, KB_ORIGIN_FLAG,
		    "--allow-socket");
	}
	s = (struct kb_src){ KB_ORIGIN_FLAG, "--allow-socket" };
	ok(p.nallow_socket == KB_MAX_SOCKET &&
	    kb_option_set(&p, KB_OPT_ALLOW_SOCKET, "/run/17th.sock", &s,
		&e) == -1 &&
	    strcmp(e.msg, "--allow-socket /run/17th.sock: too many granted "
	    "sockets (at most 16); grant only those the command needs") == 0,
	    "the 17th socket is refused, naming the cap: %s", e.msg);
	s = (struct kb_src){ KB_ORIGIN_GLOBAL, "/c/config.ini:9" };
	ok(kb_option_set(&p, KB_OPT_ALLOW_SOCKET, "/srv/17.sock", &s,
	    &e) == -1 &&
	    strcmp(e.msg, "/c/config.ini:9: allow_sockets = /srv/17.sock: too "
	    "many granted sockets (at most 16); grant only those the command "
	    "needs") == 0, "... also from a file, naming file:line and the "
	    "key: %s", e.msg);
	ok(kb_option_set(&p, KB_OPT_ALLOW_SOCKET, "/run/svc5/s5", &s,
	    &e) == 0 && p.nallow_socket == KB_MAX_SOCKET,
	    "a 17th mention of one of the 16 is no 17th socket");
	kb_policy_free(&p);

	kb_policy_init(&p);
	p.home = xstrdup("/home/kbt");
	set_ok(&p, KB_OPT_ALLOW_SOCKET, "~/.local/run/a.sock", KB_ORIGIN_GLOBAL,
	    "/c/config.ini:4");
	set_ok(&p, KB_OPT_ALLOW_SOCKET, "~", KB_ORIGIN_WORKSPACE,
	    "/c/config.ini:12");
	set_ok(&p, KB_OPT_ALLOW_SOCKET, "~/x", KB_ORIGIN_FLAG, "--allow-socket");
	ok(p.nallow_socket == 3 &&
	    strcmp(p.allow_socket[0].path, "/home/kbt/.local/run/a.sock") == 0 &&
	    p.allow_socket[0].origin == KB_ORIGIN_GLOBAL &&
	    strcmp(p.allow_socket[0].where, "/c/config.ini:4") == 0 &&
	    strcmp(p.allow_socket[1].path, "/home/kbt") == 0 &&
	    strcmp(p.allow_socket[2].path, "~/x") == 0,
	    "a file's ~/x is the home's x, a flag's is the shell's to expand");
	/* the same socket from a file, then typed: the flag is its origin */
	set_ok(&p, KB_OPT_ALLOW_SOCKET, "/home/kbt/.local/run/a.sock",
	    KB_ORIGIN_FLAG, "--allow-socket");
	ok(p.nallow_socket == 3 && p.allow_socket[0].origin == KB_ORIGIN_FLAG &&
	    strcmp(p.allow_socket[0].where, "--allow-socket") == 0,
	    "named again by a flag: the flag's grant");
	s = (struct kb_src){ KB_ORIGIN_SESSION, "/r/s.ini:3" };
	ok(kb_option_set(&p, KB_OPT_ALLOW_SOCKET, "run/b.sock", &s, &e) == -1 &&
	    strcmp(e.msg, "/r/s.ini:3: allow_sockets = run/b.sock: not an "
	    "absolute path; write /path or ~/path") == 0,
	    "a relative path in a file is an error naming file:line: %s",
	    e.msg);
	s = (struct kb_src){ KB_ORIGIN_FLAG, "--allow-socket" };
	ok(kb_option_set(&p, KB_OPT_ALLOW_SOCKET, "", &s, &e) == -1 &&
	    strcmp(e.msg, "--allow-socket '': not a path; give the path of a "
	    "unix socket") == 0, "an empty --allow-socket: %s", e.msg);
	ok(p.nallow_socket == 3, "nothing recorded for the refused ones");
	kb_policy_free(&p);
}

struct count {
	int sections, grants, entries;
	char last[64];
};

static int
count_section(void *ctx, const char *name, int line, struct kb_err *e)
{
	struct count *c = ctx;

	(void)line;
	(void)e;
	c->sections++;
	c->grants += strcmp(name, "grant") == 0;
	return 0;
}

static int
count_entry(void *ctx, const char *section, const char *key, const char *v,
    int line, struct kb_err *e)
{
	struct count *c = ctx;

	(void)section;
	(void)key;
	(void)line;
	(void)e;
	c->entries++;
	snprintf(c->last, sizeof(c->last), "%s", v);
	return 0;
}

static void
write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd == -1 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		printf("# write %s: %s\n", path, strerror(errno));
	if (fd != -1)
		close(fd);
}

static void
test_reader(void)
{
	static const struct kb_ini_visitor v = { count_section, count_entry };
	char dir[] = "/tmp/kb-options.XXXXXX";
	_cleanup_free_ char *f = NULL;
	struct count c;
	struct kb_buf b = { 0 };
	struct kb_err e;
	char val[200];

	if (mkdtemp(dir) == NULL) {
		ok(0, "mkdtemp");
		return;
	}
	f = xasprintf("%s/s.ini", dir);
	write_file(f, "[grant]\nnetwork = on\n\n[grant]\nssh_agent = on\n"
		      "[always]\nkind = shell\n");
	memset(&c, 0, sizeof(c));
	ok(kb_ini_read(f, false, &v, &c, &e) == 0 && c.sections == 3 &&
	    c.grants == 2 && c.entries == 3,
	    "the visitor hears each [grant] header, also a repeated one");
	/* the longest line the reader takes, and one byte more */
	memset(val, 'x', sizeof(val));
	val[KB_INI_LINE_MAX - 4] = '\0'; /* "k = " + value = 198 bytes */
	kb_buf_printf(&b, "[s]\nk = %s\n", val);
	write_file(f, b.s);
	memset(&c, 0, sizeof(c));
	ok(kb_ini_read(f, false, &v, &c, &e) == 0 && strlen(c.last) == 63,
	    "a line of %d bytes reads", KB_INI_LINE_MAX);
	kb_buf_free(&b);
	val[KB_INI_LINE_MAX - 3] = '\0';
	val[KB_INI_LINE_MAX - 4] = 'x';
	kb_buf_printf(&b, "[s]\nk = %s\n", val);
	write_file(f, b.s);
	kb_buf_free(&b);
	{
		_cleanup_free_ char *want = xasprintf("%s:2: line longer than "
		    "%d bytes; shorten it", f, KB_INI_LINE_MAX);

		ok(kb_ini_read(f, false, &v, &c, &e) == -1 &&
		    strcmp(e.msg, want) == 0, "a line of %d bytes is an error "
		    "naming file:line: %s", KB_INI_LINE_MAX + 1, e.msg);
	}
	memset(val, 'y', sizeof(val));
	val[KB_INI_LINE_MAX - 12] = '\0'; /* "signature = " is 12 bytes */
	ok(kb_ini_value_ok(val, 9), "a value that fills the line exactly "
	    "is storable");
	val[KB_INI_LINE_MAX - 12] = 'y';
	val[KB_INI_LINE_MAX - 11] = '\0';
	ok(!kb_ini_value_ok(val, 9), "one byte more is not");
	ok(!kb_ini_value_ok("ls ; pwd", 9) && !kb_ini_value_ok("a#b", 9) &&
	    !kb_ini_value_ok(" ls", 9) && !kb_ini_value_ok("ls ", 9) &&
	    !kb_ini_value_ok("", 9) && kb_ini_value_ok("ls -l", 9),
	    "comment characters, blanks at the ends, empty: not storable");
	ok(!kb_ini_value_ok("ls\t-l", 9) && !kb_ini_value_ok("\vls", 9) &&
	    !kb_ini_value_ok("ls\f", 9) && !kb_ini_value_ok("l\x7fs", 9) &&
	    !kb_ini_value_ok("ls\r", 9) && !kb_ini_value_ok("l\x1bs", 9) &&
	    kb_ini_value_ok("l\xc3\xa9s", 9),
	    "a control byte anywhere: not storable; UTF-8 is");
	unlink(f);
	rmdir(dir);
}

/* what the reader gave back for the one entry of a text */
struct got {
	int entries;
	struct kb_buf value;
};

static int
got_entry(void *ctx, const char *section, const char *key, const char *v,
    int line, struct kb_err *e)
{
	struct got *g = ctx;

	(void)section;
	(void)key;
	(void)line;
	(void)e;
	g->entries++;
	kb_buf_free(&g->value);
	kb_buf_puts(&g->value, v);
	return 0;
}

/* "[always]\nsignature = V\n" through the one reader: 0 with the value
 * read into *out (a new string), -1 when the reader refused the text */
static int
read_back(const char *v, char **out)
{
	static const struct kb_ini_visitor vis = { NULL, got_entry };
	_cleanup_free_ char *text = xasprintf("[always]\nsignature = %s\n", v);
	struct got g = { 0, { 0 } };
	struct kb_err e;

	*out = NULL;
	if (kb_ini_read_text("t", text, strlen(text), &vis, &g, &e) == -1) {
		kb_buf_free(&g.value);
		return -1;
	}
	*out = g.entries == 1 && g.value.s != NULL ? g.value.s : xstrdup("");
	if (*out != g.value.s)
		kb_buf_free(&g.value);
	return 0;
}

/*
 * Every value a writer stores is read back as written (issue 28): for
 * each byte, at the start, inside, at the end of a value and alone, a
 * value kb_ini_value_ok() passes reads back byte for byte, and the
 * reader itself never hands back a value with a byte dropped: it reads
 * it exactly or refuses the text. The exceptions are the reader's
 * documented syntax, which no writer stores: blanks around a value, the
 * CR of a CRLF line end, ';' and '#' comments.
 */
static void
test_round_trip(void)
{
	int stored_bad = 0, normalised = 0, control_ok = 0, stored = 0;

	for (int ch = 1; ch < 256; ch++) {
		char forms[4][8];
		bool syntax = ch == ' ' || ch == '\t' || ch == '\r' ||
			      ch == ';' || ch == '#';

		snprintf(forms[0], sizeof(forms[0]), "%cab", ch);
		snprintf(forms[1], sizeof(forms[1]), "a%cb", ch);
		snprintf(forms[2], sizeof(forms[2]), "ab%c", ch);
		snprintf(forms[3], sizeof(forms[3]), "%c", ch);
		for (int k = 0; k < 4; k++) {
			_cleanup_free_ char *back = NULL;
			const char *v = forms[k];
			int rc;

			if (strchr(v, '\n') != NULL)
				continue; /* a line break is two lines */
			rc = read_back(v, &back);
			if (kb_ini_value_ok(v, strlen("signature"))) {
				stored++;
				if (rc == -1 || strcmp(back, v) != 0) {
					stored_bad++;
					printf("# stored 0x%02x at %d: read "
					       "back %s\n",
					    ch, k, rc == -1 ? "(refused)" : back);
				}
				if ((ch < 0x20 || ch == 0x7f))
					control_ok++;
			}
			if (!syntax && rc == 0 && strcmp(back, v) != 0) {
				normalised++;
				printf("# the reader gave 0x%02x at %d back as "
				       "'%s'\n",
				    ch, k, back);
			}
		}
	}
	ok(stored > 700 && stored_bad == 0,
	    "every value kb_ini_value_ok() passes reads back byte for byte "
	    "(%d values, %d not)", stored, stored_bad);
	ok(control_ok == 0,
	    "no value with a control byte (C0, DEL) is storable (%d were)",
	    control_ok);
	ok(normalised == 0,
	    "the reader gives a value back as written or refuses it, never "
	    "with a byte dropped (%d normalised)", normalised);
	/* the finding itself: \f and \v at the ends of a signature */
	{
		_cleanup_free_ char *b1 = NULL, *b2 = NULL, *b3 = NULL;

		ok(!kb_ini_value_ok("\fcurl x | sh", 9) &&
		    !kb_ini_value_ok("curl x | sh\v", 9) &&
		    read_back("\fcurl x | sh", &b1) == -1 &&
		    read_back("curl x | sh\v", &b2) == -1,
		    "'\\fcurl x | sh' is neither storable nor read as "
		    "'curl x | sh'");
		ok(read_back("curl x | sh", &b3) == 0 &&
		    strcmp(b3, "curl x | sh") == 0 &&
		    kb_ini_value_ok("curl x | sh", 9),
		    "control: 'curl x | sh' is stored and read back");
	}
}

/* --read-only: a switch from a flag, a mode word from a file; the
 * combinations a typed flag cannot have are refused in one line */
static void
test_read_only(void)
{
	struct kb_policy p;
	struct kb_err e;
	struct kb_src s = { KB_ORIGIN_FLAG, "--read-only" };
	bool ro = false;
	char dir[] = "/var/tmp/kb-options-ro.XXXXXX";

	ok(kb_run_mode_parse("on", true, &ro) == 0 && ro &&
	    kb_run_mode_parse("read-only", false, &ro) == 0 && ro &&
	    kb_run_mode_parse("workspace-write", false, &ro) == 0 && !ro &&
	    kb_run_mode_parse("on", false, &ro) == -1 &&
	    kb_run_mode_parse("read-only", true, &ro) == -1 &&
	    kb_run_mode_parse("Read-Only", false, &ro) == -1,
	    "a flag's on/off, a file's read-only/workspace-write, nothing "
	    "else");
	ok(strcmp(kb_run_mode_name(true), "read-only") == 0 &&
	    strcmp(kb_run_mode_name(false), "workspace-write") == 0,
	    "the modes' names");
	ok(kb_options[KB_OPT_READ_ONLY].max_life == KB_LIFE_NEVER &&
	    !(kb_options[KB_OPT_READ_ONLY].sections & KB_IN_GRANT) &&
	    kb_options[KB_OPT_READ_ONLY].project == KB_PROJECT_ON_ONLY,
	    "read-only: never a grant; a project file may turn it on only");

	kb_policy_init(&p);
	ok(kb_option_set(&p, KB_OPT_READ_ONLY, "on", &s, &e) == 0 &&
	    p.read_only && p.typed[KB_OPT_READ_ONLY] == 1 &&
	    strcmp(p.where[KB_OPT_READ_ONLY], "--read-only") == 0,
	    "--read-only: set, typed, where");
	if (mkdtemp(dir) == NULL) {
		ok(0, "mkdtemp: %s", strerror(errno));
		kb_policy_free(&p);
		return;
	}
	set_ok(&p, KB_OPT_WRITE, dir, KB_ORIGIN_FLAG, "--write");
	{
		_cleanup_free_ char *want = xasprintf("--write %s and "
		    "--read-only: a read-only run writes nowhere but its "
		    "private /tmp; drop one of the two", dir);

		ok(kb_options_validate(&p, &e) == -1 &&
		    strcmp(e.msg, want) == 0,
		    "--write with --read-only: one line naming both: %s", e.msg);
	}
	kb_policy_free(&p);

	kb_policy_init(&p);
	set_ok(&p, KB_OPT_READ_ONLY, "on", KB_ORIGIN_FLAG, "--read-only");
	set_ok(&p, KB_OPT_UNCONFINED, "on", KB_ORIGIN_FLAG, "--unconfined");
	ok(kb_options_validate(&p, &e) == -1 &&
	    strstr(e.msg, "--unconfined") != NULL &&
	    strstr(e.msg, "use one of the two") != NULL,
	    "--unconfined with --read-only: refused: %s", e.msg);
	kb_policy_free(&p);

	/* a grant of a write root: dropped, noted, no error */
	kb_policy_init(&p);
	set_ok(&p, KB_OPT_WRITE, dir, KB_ORIGIN_SESSION, "/r/s.ini:2");
	set_ok(&p, KB_OPT_READ_ONLY, "on", KB_ORIGIN_FLAG, "--read-only");
	ok(kb_options_validate(&p, &e) == 0 && p.nwrite == 0 &&
	    p.notes.n == 1 && strstr(p.notes.v[0], "is read-only here") &&
	    kb_policy_roots(&p, (const char *[KB_MAX_ROOTS]){ 0 }) == 0,
	    "a session's write root under --read-only: dropped with a note; "
	    "no root at all");
	kb_policy_free(&p);
	rmdir(dir);
}

int
main(void)
{
	test_table();
	test_man();
	test_setter_and_validate();
	test_allow_socket();
	test_reader();
	test_round_trip();
	test_read_only();
	return tap_done();
}
