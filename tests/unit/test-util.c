/*
 * tests/unit/test-util.c — util.c: the escaping of kinbox's human lines
 * (kb_buf_escape, kb_escape, kb_buf_shquote_visible), the one line printer
 * with its fresh start after the command (kb_after_command, warnx, kb_line)
 * and kb_read_small_file on what is not a regular file; and the denial
 * line built on them (kb_report_line); the stderr tail's ring
 * (lib/ring.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../classify/report.h"
#include "../../lib/fdpass.h"
#include "../../lib/ring.h"
#include "../../lib/util.h"
#include "tap.h"

/* clang-format off */
static const struct {
	const char *in, *want, *what;
} escape_cases[] = {
	{ "", "", "the empty string" },
	{ "/plain/path-1.2 with blanks", "/plain/path-1.2 with blanks",
	  "printable ASCII is kept" },
	{ "a\nkinbox: forged", "a\\nkinbox: forged",
	  "a newline cannot start a second line" },
	{ "a\rb\tc", "a\\rb\\tc", "CR and TAB are named" },
	{ "\x1b[8mhidden\x1b[0m", "\\x1b[8mhidden\\x1b[0m",
	  "ESC is \\x1b: no SGR, no conceal" },
	{ "\x01\x07\x08\x0b\x0c\x1f", "\\x01\\x07\\x08\\x0b\\x0c\\x1f",
	  "the other C0 bytes are \\xHH" },
	{ "del\x7f", "del\\x7f", "DEL is \\x7f" },
	{ "back\\slash", "back\\\\slash", "a backslash is doubled" },
	{ "\\x1b", "\\\\x1b", "an escape-looking text stays distinguishable" },
	{ "caf\xc3\xa9 \xe2\x80\x94 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x93\x81",
	  "caf\xc3\xa9 \xe2\x80\x94 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x93\x81",
	  "valid multibyte UTF-8 (2, 3 and 4 bytes) is kept" },
	{ "\xc2\xa0nbsp \xc2\xa9", "\xc2\xa0nbsp \xc2\xa9",
	  "U+00A0 and above in two bytes are kept" },
	{ "csi\xc2\x9b" "31m", "csi\\xc2\\x9b31m",
	  "C1 as UTF-8 (U+009B CSI) is escaped byte by byte" },
	{ "\xc2\x80\xc2\x85\xc2\x9f", "\\xc2\\x80\\xc2\\x85\\xc2\\x9f",
	  "U+0080, U+0085 (NEL), U+009F" },
	{ "raw\x9b" "31m", "raw\\x9b31m",
	  "a raw C1 byte (not UTF-8) is escaped" },
	{ "\x80\xbf", "\\x80\\xbf", "stray continuation bytes" },
	{ "\xc0\xaf", "\\xc0\\xaf", "an overlong '/' (0xc0 0xaf)" },
	{ "\xe0\x80\xaf", "\\xe0\\x80\\xaf", "an overlong three-byte form" },
	{ "\xed\xa0\x80", "\\xed\\xa0\\x80", "a UTF-16 surrogate (U+D800)" },
	{ "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80", "beyond U+10FFFF" },
	{ "\xf5\x80", "\\xf5\\x80", "0xf5 never starts a sequence" },
	{ "end\xe6\x97", "end\\xe6\\x97", "a truncated sequence at the end" },
	{ "\xe6\x97" "x", "\\xe6\\x97x",
	  "a sequence cut short by ASCII: the ASCII is kept" },
	{ "\xc3" "\n", "\\xc3\\n", "a lead byte before a newline" },
	{ "ab\xe2\x80\xa8" "cd", "ab\\xe2\\x80\\xa8cd",
	  "U+2028 LINE SEPARATOR is escaped" },
	{ "\xe2\x80\xa9", "\\xe2\\x80\\xa9", "U+2029 PARAGRAPH SEPARATOR" },
	{ "x\xe2\x80\xae" "txt.exe", "x\\xe2\\x80\\xaetxt.exe",
	  "U+202E RIGHT-TO-LEFT OVERRIDE is escaped" },
	{ "\xe2\x81\xa6\xe2\x81\xa9\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c",
	  "\\xe2\\x81\\xa6\\xe2\\x81\\xa9\\xe2\\x80\\x8e\\xe2\\x80\\x8f\\xd8\\x9c",
	  "the isolates, LRM, RLM and ALM are escaped" },
	{ "\xe2\x80\x8b\xe2\x80\x94", "\xe2\x80\x8b\xe2\x80\x94",
	  "other format characters nearby are kept (U+200B, U+2014)" },
	{ "it's", "it's", "a single quote is kept outside $'...'" },
};
/* clang-format on */

static void
test_escape(void)
{
	for (size_t i = 0; i < nitems(escape_cases); i++) {
		char *got = kb_escape(escape_cases[i].in);

		assert_cmpstr(got, escape_cases[i].want, "escape: %s",
		    escape_cases[i].what);
		free(got);
	}
}

/* every byte of every escaped string is printable ASCII or part of kept,
 * valid UTF-8: no C0, no DEL, no lone byte >= 0x80 */
static void
test_escape_all_bytes(void)
{
	char in[2] = { 0, 0 };
	bool clean = true;

	for (int c = 1; c < 256; c++) {
		char *got;

		in[0] = (char)c;
		got = kb_escape(in);
		for (const unsigned char *p = (unsigned char *)got; *p; p++)
			if (*p < 0x20 || *p >= 0x7f)
				clean = false;
		if (c >= 0x20 && c < 0x7f && c != '\\' && strcmp(got, in) != 0)
			clean = false;
		free(got);
	}
	ok(clean, "escape: each single byte 0x01..0xff comes out as printable "
		  "ASCII (a lone byte >= 0x80 is never valid UTF-8)");
}

static void
test_escape_mem(void)
{
	struct kb_buf b = { 0 };

	kb_buf_escape_mem(&b, "a\0b\n", 4);
	assert_cmpstr(b.s, "a\\x00b\\n", "escape_mem: a NUL inside is \\x00");
	kb_buf_free(&b);
	kb_buf_puts(&b, "kept: ");
	kb_buf_escape(&b, "\x1b");
	assert_cmpstr(b.s, "kept: \\x1b", "escape appends to what is there");
	kb_buf_free(&b);
	kb_buf_escape_mem(&b, "\xe6\x97\xa5", 2);
	assert_cmpstr(b.s, "\\xe6\\x97",
	    "escape_mem: a sequence cut by the length is invalid");
	kb_buf_free(&b);
}

/* clang-format off */
static const struct {
	const char *in, *want;
} shq_cases[] = {
	{ "/plain/path-1.2", "/plain/path-1.2" },
	{ "it's a $x", "'it'\\''s a $x'" },
	{ "", "''" },
	{ "back\\slash", "'back\\slash'" },
	{ "caf\xc3\xa9", "'caf\xc3\xa9'" },
	{ "a\nb", "$'a\\nb'" },
	{ "it's\x1b[1m", "$'it\\'s\\x1b[1m'" },
	{ "a\\b\tc", "$'a\\\\b\\tc'" },
	{ "\xff", "$'\\xff'" },
};
/* clang-format on */

static void
test_shquote_visible(void)
{
	for (size_t i = 0; i < nitems(shq_cases); i++) {
		struct kb_buf b = { 0 };

		kb_buf_shquote_visible(&b, shq_cases[i].in);
		assert_cmpstr(b.s, shq_cases[i].want, "shquote_visible %zu", i);
		kb_buf_free(&b);
	}
}

/* a file's whole content */
static char *
slurp(const char *path)
{
	char *s = kb_read_small_file(path, 1 << 16);

	return s != NULL ? s : xstrdup("(unreadable)");
}

/* stderr into `path` while `fn` runs */
static void
capture_stderr(const char *path, void (*fn)(void))
{
	int saved = dup(2);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	fflush(stderr);
	dup2(fd, 2);
	close(fd);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
}

static void
say_forged(void)
{
	warnx("denied write '%s'", "/x\nkinbox: SECURITY: forged\x1b[8m");
}

static void
say_after_unfinished(void)
{
	kb_after_command(true);
	warnx("first");
	kb_line("second \\x1b as given");
}

static void
say_after_finished(void)
{
	kb_after_command(false);
	warnx("only");
}

static void
test_lines(const char *dir)
{
	char *f = xasprintf("%s/err", dir);
	char *got;

	kb_progname = "kinbox";
	capture_stderr(f, say_forged);
	got = slurp(f);
	assert_cmpstr(got,
	    "kinbox: denied write '/x\\nkinbox: SECURITY: forged\\x1b[8m'\n",
	    "warnx escapes the formatted line: one line, no raw ESC");
	free(got);

	capture_stderr(f, say_after_unfinished);
	got = slurp(f);
	assert_cmpstr(got, "\nkinbox: first\nkinbox: second \\x1b as given\n",
	    "after an unfinished last line: one newline first, once (not a "
	    "terminal: no SGR reset); kb_line prints as given");
	free(got);

	capture_stderr(f, say_after_finished);
	got = slurp(f);
	assert_cmpstr(got, "kinbox: only\n",
	    "after a finished last line: no extra newline");
	free(got);
	free(f);
}

/* on a terminal the fresh start resets SGR and the character set */
static void
test_lines_tty(void)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC), s, saved;
	char buf[256];
	ssize_t n;

	if (m == -1 || grantpt(m) == -1 || unlockpt(m) == -1 ||
	    (s = open(ptsname(m), O_RDWR | O_NOCTTY | O_CLOEXEC)) == -1) {
		tap_skip("no pseudo-terminal here");
		if (m != -1)
			close(m);
		return;
	}
	fflush(stderr);
	saved = dup(2);
	dup2(s, 2);
	close(s);
	kb_after_command(true);
	warnx("on a terminal");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = read(m, buf, sizeof(buf) - 1);
	close(m);
	buf[n > 0 ? n : 0] = '\0';
	ok(n > 0 && strncmp(buf, "\033[0m\033(B\017", 8) == 0,
	    "on a terminal: SGR reset, G0 ASCII and SI come first");
	ok(strstr(buf, "kinbox: on a terminal") != NULL &&
		strchr(buf, '\n') < strstr(buf, "kinbox:"),
	    "then the newline, then kinbox's line");
}

static void
test_read_small_file(const char *dir)
{
	char *fifo = xasprintf("%s/fifo", dir);
	char *file = xasprintf("%s/file", dir);
	struct timespec t0, t1;
	char *s;
	int fd;

	ok(mkfifo(fifo, 0600) == 0, "fixture: a FIFO");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	errno = 0;
	s = kb_read_small_file(fifo, 4096);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ok(s == NULL && errno == EINVAL,
	    "a FIFO is refused (EINVAL), not read");
	ok(t1.tv_sec - t0.tv_sec < 2, "... at once: no writer is waited for");
	free(s);
	errno = 0;
	s = kb_read_small_file(dir, 4096);
	ok(s == NULL && errno == EISDIR, "a directory is refused (EISDIR)");
	free(s);
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ok(fd != -1 && write(fd, "abc", 3) == 3, "fixture: a small file");
	close(fd);
	s = kb_read_small_file(file, 4096);
	assert_cmpstr(s, "abc", "a regular file is read whole");
	free(s);
	errno = 0;
	s = kb_read_small_file(file, 2);
	ok(s == NULL && errno == EFBIG, "over the bound: EFBIG");
	free(s);
	unlink(fifo);
	unlink(file);
	free(fifo);
	free(file);
}

/* the denial line: every field escaped, the command's claim said so */
static void
test_report_line(void)
{
	struct kb_denial d;
	char *line;

	memset(&d, 0, sizeof(d));
	d.cls = KB_CLASS_WRITE;
	snprintf(d.path, sizeof(d.path), "/o/a\033[8m\nkinbox: x\302\233/f");
	snprintf(d.reason, sizeof(d.reason), "Read-only file system");
	snprintf(d.suggest_write, sizeof(d.suggest_write), "/o/a\033[8m");
	line = kb_report_line(&d, "sbx_0123456789abcdef");
	assert_cmpstr(line, "denied write '/o/a\\x1b[8m\\nkinbox: x\\xc2\\x9b/f' "
	    "(Read-only file system, read from the command's stderr); retry "
	    "with --write $'/o/a\\x1b[8m'  [sbx_0123456789abcdef]",
	    "report line: path escaped, the root quoted as a shell reads it, "
	    "the source named");
	free(line);
	snprintf(d.suggest_write, sizeof(d.suggest_write), "/o/with space");
	line = kb_report_line(&d, "sbx_0123456789abcdef");
	ok(strstr(line, "retry with --write '/o/with space'  [") != NULL,
	    "report line: a root with a space is quoted (pasted, it is one "
	    "word)");
	free(line);
	d.suggest_write[0] = '\0';
	d.suggest_unconfined = true;
	line = kb_report_line(&d, "sbx_0123456789abcdef");
	ok(strstr(line, "only --unconfined would allow it, and nothing but the "
			"command's stderr says that it is needed") != NULL &&
		strstr(line, "retry with --unconfined") == NULL,
	    "report line: --unconfined is never offered as a retry, only as "
	    "the command's claim");
	free(line);
	memset(&d, 0, sizeof(d));
	d.cls = KB_CLASS_NETWORK;
	snprintf(d.host, sizeof(d.host), "ex\033]0;t\007.com");
	snprintf(d.reason, sizeof(d.reason), "no network");
	line = kb_report_line(&d, "sbx_0123456789abcdef");
	assert_cmpstr(line, "denied network to ex\\x1b]0;t\\x07.com (no network, "
	    "read from the command's stderr); retry with --net  "
	    "[sbx_0123456789abcdef]", "report line: the host escaped");
	free(line);
}

/* kinpolicy gc --older-than: digits and one unit, nothing else */
static void
test_duration(void)
{
	static const struct {
		const char *in;
		long long secs; /* -1: EINVAL, -2: ERANGE */
	} cases[] = {
		{ "0s", 0 }, { "45s", 45 }, { "30m", 1800 }, { "12h", 43200 },
		{ "7d", 604800 }, { "007d", 604800 }, { "36500d", 3153600000LL },
		{ "36501d", -2 }, { "99999999999999999999d", -2 },
		{ "3153600001s", -2 }, { "", -1 }, { "7", -1 }, { "d", -1 },
		{ "7w", -1 }, { "7D", -1 }, { "7dd", -1 }, { "1h30m", -1 },
		{ " 7d", -1 }, { "-7d", -1 }, { "+7d", -1 }, { "7 d", -1 },
		{ "1.5h", -1 },
	};

	for (size_t i = 0; i < nitems(cases); i++) {
		long long v = -9;
		int rc;

		errno = 0;
		rc = kb_duration_parse(cases[i].in, &v);
		if (cases[i].secs >= 0)
			ok(rc == 0 && v == cases[i].secs,
			    "duration '%s' is %lld s (got %d, %lld)",
			    cases[i].in, cases[i].secs, rc, v);
		else
			ok(rc == -1 && v == -9 &&
				errno == (cases[i].secs == -1 ? EINVAL
							      : ERANGE),
			    "duration '%s' is refused (%s)", cases[i].in,
			    cases[i].secs == -1 ? "EINVAL" : "ERANGE");
	}
}

/* --memory: digits and one optional unit, 1024-based, at most 2^50 */
static void
test_size(void)
{
	static const struct {
		const char *in;
		long long bytes; /* -1: EINVAL, -2: ERANGE */
	} cases[] = {
		{ "0", 0 }, { "4096", 4096 }, { "1k", 1024 }, { "1K", 1024 },
		{ "64M", 64LL << 20 }, { "64m", 64LL << 20 },
		{ "2G", 2LL << 30 }, { "2g", 2LL << 30 }, { "1T", 1LL << 40 },
		{ "1024T", 1LL << 50 }, { "1025T", -2 },
		{ "1125899906842624", 1LL << 50 }, { "1125899906842625", -2 },
		{ "99999999999999999999G", -2 }, { "", -1 }, { "G", -1 },
		{ "1.5G", -1 }, { "2GB", -1 }, { "2GiB", -1 }, { "2 G", -1 },
		{ " 2G", -1 }, { "-2G", -1 }, { "+2G", -1 }, { "2P", -1 },
		{ "2x", -1 }, { "0x10", -1 },
	};
	static const struct {
		unsigned long long in;
		const char *out;
	} shown[] = {
		{ 0, "0 B" }, { 512, "512 B" }, { 1024, "1 KiB" },
		{ 1536, "1.5 KiB" }, { 64ULL << 20, "64 MiB" },
		{ (1ULL << 30) + (1ULL << 29), "1.5 GiB" },
		{ (4ULL << 30) - 1, "3.9 GiB" }, { 4ULL << 30, "4 GiB" },
		{ 1ULL << 50, "1 PiB" },
	};
	char buf[24];

	for (size_t i = 0; i < nitems(cases); i++) {
		unsigned long long v = 7;
		int rc;

		errno = 0;
		rc = kb_size_parse(cases[i].in, &v);
		if (cases[i].bytes >= 0)
			ok(rc == 0 && v == (unsigned long long)cases[i].bytes,
			    "size '%s' is %lld bytes (got %d, %llu)",
			    cases[i].in, cases[i].bytes, rc, v);
		else
			ok(rc == -1 && v == 7 &&
				errno == (cases[i].bytes == -1 ? EINVAL
							       : ERANGE),
			    "size '%s' is refused (%s)", cases[i].in,
			    cases[i].bytes == -1 ? "EINVAL" : "ERANGE");
	}
	for (size_t i = 0; i < nitems(shown); i++)
		assert_cmpstr(kb_size_str(shown[i].in, buf, sizeof(buf)),
		    shown[i].out, "%llu bytes are shown as %s", shown[i].in,
		    shown[i].out);
}

/* lib/fdpass.c: the mounter's and kinbox-exec's messages */
static void
test_fdpass(void)
{
	int sv[2], fds[3], got[4], nullfd = open("/dev/null", O_RDONLY);
	char buf[16];
	size_t n = 99;
	struct stat a, b;
	ssize_t r;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1 ||
	    nullfd == -1) {
		ok(0, "fdpass: a socket pair");
		return;
	}
	for (int i = 0; i < 3; i++)
		fds[i] = dup(nullfd);
	ok(kb_fd_send(sv[0], "R", 1, fds, 3) == 1, "fdpass: 'R' and 3 sent");
	r = kb_fd_recv(sv[1], buf, sizeof(buf), got, 3, &n);
	ok(r == 1 && buf[0] == 'R' && n == 3, "fdpass: 'R' and 3 received");
	ok(n == 3 && fstat(got[2], &a) == 0 && fstat(nullfd, &b) == 0 &&
	       a.st_rdev == b.st_rdev && (fcntl(got[0], F_GETFD) & FD_CLOEXEC),
	    "fdpass: the same file, close on exec");
	for (size_t i = 0; i < n && i < 3; i++)
		close(got[i]);
	/* more than the receiver takes: all closed, the message refused */
	ok(kb_fd_send(sv[0], "+", 1, fds, 3) == 1, "fdpass: 3 sent again");
	r = kb_fd_recv(sv[1], buf, sizeof(buf), got, 1, &n);
	ok(r == -1 && errno == EBADMSG && n == 0,
	    "fdpass: 3 for a receiver of 1: EBADMSG, none kept");
	ok(kb_fd_send(sv[0], "text", 4, NULL, 0) == 4, "fdpass: bytes alone");
	r = kb_fd_recv(sv[1], buf, sizeof(buf), got, 1, &n);
	ok(r == 4 && n == 0 && memcmp(buf, "text", 4) == 0,
	    "fdpass: bytes alone received, no descriptor");
	ok(kb_fd_send(sv[0], "x", 1, fds, 5) == -1 && errno == EINVAL,
	    "fdpass: more than KB_FDPASS_MAX refused");
	close(sv[0]);
	ok(kb_fd_recv(sv[1], buf, sizeof(buf), got, 1, &n) == 0 && n == 0,
	    "fdpass: end of file");
	close(sv[1]);
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	close(nullfd);
}

/* --- lib/ring.c: the last KB_TAIL bytes of a stream ------------------- */

static char ring_stream[4 * KB_TAIL + 1000];
static char ring_buf[KB_TAIL];

/* Feeds the stream's first `total` bytes in chunks of chunk(i) bytes (0
 * allowed) and compares what the ring kept with the stream's last bytes. */
static void
ring_case(size_t total, size_t (*chunk)(size_t i), const char *what)
{
	struct kb_ring ring = {.buf = ring_buf};
	size_t at = 0, want = total < KB_TAIL ? total : KB_TAIL, got;

	memset(ring_buf, 0, sizeof(ring_buf));
	for (size_t i = 0; at < total; i++) {
		size_t n = chunk(i);

		if (n > total - at)
			n = total - at;
		kb_ring_add(&ring, ring_stream + at, n);
		at += n;
	}
	got = kb_ring_finish(&ring);
	ok(got == want &&
	       memcmp(ring_buf, ring_stream + total - want, want) == 0,
	    "ring: %s (%zu bytes in: the last %zu kept, in order)", what,
	    total, want);
}

static size_t
chunk_all(size_t i)
{
	(void)i;
	return sizeof(ring_stream);
}

static size_t
chunk_one(size_t i)
{
	(void)i;
	return 1;
}

static size_t
chunk_4k(size_t i)
{
	(void)i;
	return 4096;
}

static size_t
chunk_1000(size_t i)
{
	(void)i;
	return 1000;
}

/* 0 to 96 bytes, an empty add every 97th */
static size_t
chunk_varied(size_t i)
{
	return (i * 37) % 97;
}

/* small adds, then one larger than the ring, then small ones again */
static size_t
chunk_big_middle(size_t i)
{
	return i == 50 ? KB_TAIL + 333 : 123;
}

static void
test_ring(void)
{
	struct kb_ring ring = {.buf = ring_buf};

	/* every byte tells its position (a period of 251, prime, not a
	 * divisor of KB_TAIL): a rotation off by any amount shows */
	for (size_t i = 0; i < sizeof(ring_stream); i++)
		ring_stream[i] = (char)(i % 251);
	assert_cmpint(kb_ring_finish(&ring), 0, "ring: empty, nothing kept");
	kb_ring_add(&ring, ring_stream, 0);
	assert_cmpint(kb_ring_finish(&ring), 0, "ring: an empty add keeps none");
	ring_case(10, chunk_all, "a few bytes, one add");
	ring_case(KB_TAIL - 1, chunk_all, "one short of KB_TAIL, one add");
	ring_case(KB_TAIL, chunk_all, "exactly KB_TAIL, one add");
	ring_case(KB_TAIL, chunk_4k, "exactly KB_TAIL, in 4 KiB adds");
	ring_case(KB_TAIL, chunk_one, "exactly KB_TAIL, a byte at a time");
	ring_case(KB_TAIL + 1, chunk_one, "KB_TAIL + 1, a byte at a time");
	ring_case(KB_TAIL + 1, chunk_all, "KB_TAIL + 1, one add");
	ring_case(KB_TAIL + 100, chunk_1000,
	    "wrap-around in the middle of an add");
	ring_case(3 * KB_TAIL + 17, chunk_1000, "wrapped three times");
	ring_case(3 * KB_TAIL + 17, chunk_one, "many one-byte adds");
	ring_case(2 * KB_TAIL + 5, chunk_varied, "many small adds, some empty");
	ring_case(KB_TAIL / 2, chunk_varied, "small adds, never wrapped");
	ring_case(sizeof(ring_stream), chunk_big_middle,
	    "an add larger than the ring between small ones");
}

int
main(void)
{
	char dir[] = "/tmp/kb-test-util.XXXXXX";
	char *err;

	if (mkdtemp(dir) == NULL)
		return 1;
	test_escape();
	test_escape_all_bytes();
	test_escape_mem();
	test_shquote_visible();
	test_lines(dir);
	test_lines_tty();
	test_read_small_file(dir);
	test_report_line();
	test_duration();
	test_size();
	test_fdpass();
	test_ring();
	err = xasprintf("%s/err", dir);
	unlink(err);
	free(err);
	rmdir(dir);
	return tap_done();
}
