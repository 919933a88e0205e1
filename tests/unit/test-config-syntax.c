/*
 * tests/unit/test-config-syntax.c — the reader of the config files
 * (profile/config.c), black box as test-config.c: the INI syntax (line
 * lengths, CRLF, comments, indented lines, NUL bytes) and the files it
 * takes (regular files and symlinks, FIFOs and directories refused, the
 * size limits), against kinbox.conf(5) and the messages it documents.
 * The temp tree and the helpers are config-fixture.h's.
 *
 * Behaviour believed right that the code does not have yet is checked
 * with tap_todo_ok() ("# TODO", not a failure); each is marked TODO here.
 */
#include "config-fixture.h"

/* --- kinds and sizes of files --------------------------------------------- */

/* a project file that is not a regular file in the workspace */
static void
test_project_kinds(void)
{
	struct kb_policy p;
	struct kb_err e;

	{
		_cleanup_free_ char *target = at("home/real.ini");
		_cleanup_free_ char *want = xasprintf("%s: a symlink; a project "
						      "file must be a regular "
						      "file in the workspace (a "
						      "link could point kinbox "
						      "anywhere); replace it "
						      "with the file itself",
		    proj_file);

		clean();
		put(target, "[sandbox]\nnetwork = off\n");
		if (symlink(target, proj_file) == -1)
			printf("# symlink: %s\n", strerror(errno));
		fresh(&p);
		ok(load(&p, &e) == -1 && strcmp(e.msg, want) == 0,
		    "a symlinked project file is refused");
		kb_policy_free(&p);
		put(proj_file, NULL);
		if (symlink("/nonexistent-kb", proj_file) == -1)
			printf("# symlink: %s\n", strerror(errno));
		fresh(&p);
		ok(load(&p, &e) == -1 && strcmp(e.msg, want) == 0,
		    "... also a dangling one");
		kb_policy_free(&p);
		put(proj_file, NULL);
		put(target, NULL);
	}
	{
		_cleanup_free_ char *want = xasprintf("%s: a FIFO; a config file "
						      "must be a regular file; "
						      "remove it or replace it "
						      "with one", proj_file);
		int rc;

		clean();
		if (mkfifo(proj_file, 0644) == -1)
			printf("# mkfifo: %s\n", strerror(errno));
		fresh(&p);
		alarm(10); /* a reader that blocks fails the test, not CI */
		rc = load(&p, &e);
		alarm(0);
		ok(rc == -1 && strcmp(e.msg, want) == 0,
		    "a FIFO is refused without waiting for a writer");
		kb_policy_free(&p);
		put(proj_file, NULL);
	}
	{
		_cleanup_free_ char *want = xasprintf("%s: a directory; a config "
						      "file must be a regular "
						      "file; remove it or "
						      "replace it with one",
		    proj_file);

		clean();
		if (mkdir(proj_file, 0755) == -1)
			printf("# mkdir: %s\n", strerror(errno));
		fresh(&p);
		ok(load(&p, &e) == -1 && strcmp(e.msg, want) == 0,
		    "a directory is refused");
		kb_policy_free(&p);
		rmdir(proj_file);
	}
}

/* a file of exactly `size` bytes: a [sandbox] line, then comments */
static char *
sized(size_t size)
{
	char *s = xmalloc(size + 1);
	size_t i = 0;

	memcpy(s, "[sandbox]\n", 10);
	i = 10;
	while (i < size) {
		size_t n = size - i < 80 ? size - i : 80;

		memset(s + i, '#', n);
		s[i + n - 1] = '\n';
		i += n;
	}
	s[size] = '\0';
	return s;
}

static void
test_files(void)
{
	struct kb_policy p;
	struct kb_err e;

	{
		_cleanup_free_ char *t = sized(64 * 1024);
		_cleanup_free_ char *t1 = sized(64 * 1024 + 1);
		_cleanup_free_ char *want = xasprintf("%s: 65537 bytes, more than "
						      "the 64 KiB a project file "
						      "may hold; shorten it",
		    proj_file);

		assert_cmpstr(err_of(proj_file, t), "", "a project file of "
		    "64 KiB loads");
		assert_cmpstr(err_of(proj_file, t1), want, "one byte more is "
		    "refused");
	}
	{
		_cleanup_free_ char *t = sized(1024 * 1024);
		_cleanup_free_ char *t1 = sized(1024 * 1024 + 1);
		_cleanup_free_ char *want = xasprintf("%s: 1048577 bytes, more "
						      "than the 1024 KiB a "
						      "config file may hold; "
						      "shorten it", glob_file);

		assert_cmpstr(err_of(glob_file, t), "", "a global config of "
		    "1 MiB loads");
		assert_cmpstr(err_of(glob_file, t1), want, "one byte more is "
		    "refused");
	}
	{
		_cleanup_free_ char *target = at("home/dotfiles.ini");

		clean();
		put(target, "[sandbox]\nnetwork = on\n");
		if (symlink(target, glob_file) == -1)
			printf("# symlink: %s\n", strerror(errno));
		fresh(&p);
		ok(load(&p, &e) == 0 && p.net, "the global config may be a "
		    "symlink (dotfile managers)");
		kb_policy_free(&p);
		put(glob_file, NULL);
		put(target, NULL);
	}
	{
		_cleanup_free_ char *want = xasprintf("%s: a FIFO; a config file "
						      "must be a regular file; "
						      "remove it or replace it "
						      "with one", sys_file);
		int rc;

		clean();
		if (mkfifo(sys_file, 0644) == -1)
			printf("# mkfifo: %s\n", strerror(errno));
		fresh(&p);
		alarm(10);
		rc = load(&p, &e);
		alarm(0);
		ok(rc == -1 && strcmp(e.msg, want) == 0,
		    "a FIFO as the system config is refused");
		kb_policy_free(&p);
		put(sys_file, NULL);
	}
	{
		clean();
		if (mkdir(glob_file, 0755) == -1)
			printf("# mkdir: %s\n", strerror(errno));
		fresh(&p);
		ok(load(&p, &e) == -1 && strstr(e.msg, ": a directory; ") != NULL,
		    "a directory as the global config is refused");
		kb_policy_free(&p);
		rmdir(glob_file);
	}
	{
		_cleanup_free_ char *dflt = at("home/.config/kinbox/config.ini");

		clean();
		unsetenv("XDG_CONFIG_HOME");
		put(dflt, "[sandbox]\nnetwork = on\n");
		fresh(&p);
		ok(load(&p, &e) == 0 && p.net && p.origin[KB_OPT_NET] == KB_ORIGIN_GLOBAL,
		    "without XDG_CONFIG_HOME: ~/.config/kinbox/config.ini");
		kb_policy_free(&p);
		setenv("XDG_CONFIG_HOME", "xdg", 1);
		fresh(&p);
		ok(load(&p, &e) == 0 && p.net, "... also with a relative one");
		kb_policy_free(&p);
		put(dflt, NULL);
		clean();
	}
	clean();
	put(proj_file, "[sandbox]\nnetwork = on\n");
	fresh(&p);
	ok(kb_config_load_all(&p, etc, NULL, &e) == 0 && !p.net &&
	    p.notes.n == 1, "no warn callback: the warning is a note only");
	kb_policy_free(&p);
}

/* --- syntax --------------------------------------------------------------- */

/* "[sandbox]\n" then a line of `len` bytes (without its newline) */
static char *
long_line(size_t len, const char *eol)
{
	struct kb_buf b = { 0 };

	kb_buf_puts(&b, "[sandbox]\nmask = /");
	for (size_t i = 8; i < len; i++)
		kb_buf_puts(&b, "x");
	kb_buf_puts(&b, eol);
	kb_buf_puts(&b, "network = on\n");
	return b.s;
}

static void
test_syntax(void)
{
	struct kb_policy p;
	struct kb_err e;

	{
		_cleanup_free_ char *t198 = long_line(198, "\n");
		_cleanup_free_ char *t199 = long_line(199, "\n");
		_cleanup_free_ char *t300 = long_line(300, "\n");
		_cleanup_free_ char *crlf = long_line(198, "\r\n");

		ok(only(glob_file, t198, &p, &e) == 0 && p.net &&
		    p.extra_mask.n == 1 && strlen(p.extra_mask.v[0]) == 191,
		    "a line of 198 bytes is read whole (%s)", e.msg);
		kb_policy_free(&p);
		check_err(glob_file, t199, 2, "line longer than 198 bytes; "
		    "shorten it", "199 bytes is refused, not split");
		check_err(glob_file, t300, 2, "line longer than 198 bytes; "
		    "shorten it", "300 bytes is refused");
		check_err(proj_file, t300, 2, "line longer than 198 bytes; "
		    "shorten it", "... in the project file too");
		check_err(glob_file, crlf, 2, "line longer than 198 bytes; "
		    "shorten it", "the CR of a CRLF line counts");
	}
	/* kinbox.conf(5): a line holds at most 198 bytes without its
	 * newline, the last line (no newline) too */
	{
		struct kb_buf b = { 0 };

		kb_buf_puts(&b, "[sandbox]\nnetwork = on\nmask = /");
		for (int i = 0; i < 190; i++)
			kb_buf_puts(&b, "y");
		/* the last line, 198 bytes, no newline */
		assert_cmpstr(err_of(glob_file, b.s), "",
		    "a last line of 198 bytes without a newline loads");
		kb_buf_puts(&b, "y");
		check_err(glob_file, b.s, 3, "line longer than 198 bytes; "
		    "shorten it", "... 199 bytes without a newline is refused");
		kb_buf_free(&b);
	}

	ok(only(glob_file, "[sandbox]\r\nnetwork = on\r\nmask = ~/x\r\n"
			   "scrub_env = CORP_*\r\n", &p, &e) == 0 && p.net &&
	    p.extra_mask.n == 1 && strchr(p.extra_mask.v[0], '\r') == NULL &&
	    has(&p.scrub_env, "CORP_*"), "CRLF lines: the CR is not part of "
	    "the value (%s)", e.msg);
	kb_policy_free(&p);
	ok(only(glob_file, "# comment\n; comment\n\n   \n[sandbox] ; c\n"
			   "network = on ; a note\n  # indented comment\n"
			   "network: on\nnetwork   =   on   \n", &p, &e) == 0 &&
	    p.net, "comments, blank lines, ' ;' comments, ':' for '=', "
	    "spaces around key and value (%s)", e.msg);
	kb_policy_free(&p);
	ok(only(glob_file, "\xef\xbb\xbf[sandbox]\nnetwork = on\n", &p, &e) ==
	    0 && p.net, "a UTF-8 byte order mark is skipped");
	kb_policy_free(&p);
	assert_cmpstr(err_of(glob_file, ""), "", "an empty global config loads");
	assert_cmpstr(err_of(proj_file, ""), "", "an empty project file loads");
	check_err(glob_file, "[sandbox]\nnetwork\n", 2, "not an INI line (want "
	    "[section] or key = value); fix it or see kinbox.conf(5)",
	    "a line without '=' is an error");
	check_err(glob_file, "[sandbox\nnetwork = on\n", 1, "not an INI line "
	    "(want [section] or key = value); fix it or see kinbox.conf(5)",
	    "an unclosed section is an error");
	check_err(glob_file, "[sandbox]\nnetwork = maybe\nbroken\n", 2,
	    "network = maybe: not on or off; write on or off",
	    "the first error is reported: a bad value before a broken line");
	check_err(glob_file, "[sandbox]\nbroken\nnetwork = maybe\n", 2,
	    "not an INI line (want [section] or key = value); fix it or see "
	    "kinbox.conf(5)", "... a broken line before a bad value");
	check_err(glob_file, "[sandbox]\nnetwork = on\nnetwork = maybe\n"
			     "mask = rel\n", 3,
	    "network = maybe: not on or off; write on or off",
	    "only the first bad value is reported");

	/* inih would read an indented line as the continuation of the key
	 * above (INI_ALLOW_MULTILINE); kinbox.conf(5) has no continuation
	 * lines and removes the blanks around a key: the reader drops
	 * leading blanks, so an indented key is a key */
	{
		int rc = only(glob_file, "[sandbox]\n  network = on\n  mask = "
					 "~/x\n", &p, &e);

		ok(rc == 0 && p.net && p.extra_mask.n == 1,
		    "indented keys are keys (%s)", rc == 0 ? "loaded" : e.msg);
		kb_policy_free(&p);
	}
	{
		_cleanup_free_ char *w1 = at("w1"), *w2 = at("w2");
		_cleanup_free_ char *t = xasprintf("[sandbox]\nwrite_paths = "
						   "%s\n    %s\n", w1, w2);
		int rc = only(glob_file, t, &p, &e);

		ok(rc == -1 || p.nwrite < 2, "an indented path is not "
		    "a second write root without a key (%d roots)",
		    (int)p.nwrite);
		kb_policy_free(&p);
	}

	/* a NUL byte ends a line for inih but not for a byte count: the
	 * bytes after it must not come back as a line of their own. The
	 * reader refuses it (saved as tests/fuzz/config.seeds/
	 * nul-split-line) */
	{
		struct kb_buf b = { 0 };
		int rc;

		kb_buf_add(&b, "[sandbox]\n# x", 13);
		kb_buf_add(&b, "\0", 1);
		/* 199 bytes: what the reader reads of the line at once */
		for (int i = 0; i < 195; i++)
			kb_buf_add(&b, "y", 1);
		kb_buf_puts(&b, "network = on\n");
		clean();
		put_n(glob_file, b.s, b.len);
		fresh(&p);
		rc = load(&p, &e);
		ok(rc == -1 && strstr(e.msg, ":2: a NUL byte; a config file is "
		    "text, remove it") != NULL, "a NUL byte is an error (rc %d, network "
		    "%s: the tail of the long line was read as a line)", rc,
		    p.net ? "on" : "off");
		kb_policy_free(&p);
		kb_buf_free(&b);
	}

	/* inih trims \f, \v and \r around a value as blanks: a value
	 * written with one would come back shorter ("\fcurl x" as "curl
	 * x"). Every control byte but the tab, and the CR of a CRLF line
	 * end, is an error naming file:line, in every file the reader
	 * takes (issue 28) */
	{
		static const struct {
			const char *text;
			int line;
			const char *what;
		} bad[] = {
		    { "[sandbox]\nmask = ~/x\f\n", 2, "0x0c" },
		    { "[sandbox]\nmask = \v~/x\n", 2, "0x0b" },
		    { "[sandbox]\n\fnetwork = on\n", 2, "0x0c" },
		    { "[sandbox]\nmask = ~/a\rb\n", 2, "0x0d" },
		    { "[sandbox]\nmask = ~/x\r\r\n", 2, "0x0d" },
		    { "[sandbox]\nnetwork = on\nmask = ~/\x1b[2Jx\n", 3, "0x1b" },
		    { "[sandbox]\nmask = ~/x\x7f\n", 2, "0x7f" },
		    { "# \x01 in a comment\n", 1, "0x01" },
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			_cleanup_free_ char *rest = xasprintf("a control byte "
			    "(%s); a config file is text, remove it",
			    bad[i].what);

			check_err(glob_file, bad[i].text, bad[i].line, rest,
			    "a control byte is refused, not trimmed");
		}
		check_err(proj_file, "[sandbox]\nmask = ~/x\v\n", 2,
		    "a control byte (0x0b); a config file is text, remove it",
		    "... in the project file too");
		{
			_cleanup_free_ char *want = at_line(sess_file, 3,
			    "a control byte (0x0c); a config file is text, "
			    "remove it");
			int rc;

			clean();
			put(sess_file, "[always]\nkind = shell\nsignature = "
				       "\fcurl x | sh\n");
			setenv("KINBOX_SESSION", SID, 1);
			fresh(&p);
			rc = load(&p, &e);
			ok(rc == -1 && strcmp(e.msg, want) == 0,
			    "... and in a session file: an always answer for "
			    "'\\fcurl x | sh' never reads as one for 'curl x "
			    "| sh' (%s)", rc == 0 ? "loaded" : e.msg);
			kb_policy_free(&p);
			clean();
		}
		/* controls: a tab inside a line, a CRLF line end, the last
		 * line's CR without a newline */
		ok(only(glob_file, "[sandbox]\nmask\t=\t~/a\tb\r\nnetwork = "
				   "on\r", &p, &e) == 0 && p.net &&
		    p.extra_mask.n == 1 &&
		    strcmp(strrchr(p.extra_mask.v[0], '/'), "/a\tb") == 0,
		    "control: tabs, CRLF and a last CR still read (%s)", e.msg);
		kb_policy_free(&p);
	}
}

int
main(void)
{
	if (fixture_setup() == -1)
		return 1;
	test_project_kinds();
	test_files();
	test_syntax();
	if (fixture_teardown() == -1)
		return 1;
	return tap_done();
}
