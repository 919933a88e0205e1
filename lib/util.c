/*
 * lib/util.c — die/warn for the CLI, never-failing allocators, string vectors,
 * a string builder, shell quoting and the escaping of the lines people
 * read. The only file besides the two main programs allowed to exit
 * (through die()).
 */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * reallocarray and vasprintf are not POSIX.1-2008 (both are in POSIX.1-
 * 2024). glibc declares them for _GNU_SOURCE and _DEFAULT_SOURCE, the
 * Linux build's, which keeps using them; elsewhere (macOS, `make
 * portable-check`) the two below do the same from POSIX.1-2008 calls.
 */
#if defined(_GNU_SOURCE) || defined(_DEFAULT_SOURCE)
#define kb_reallocarray reallocarray
#define kb_vasprintf    vasprintf
#else
static void *
kb_reallocarray(void *p, size_t n, size_t m)
{
	if (m != 0 && n > SIZE_MAX / m) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, n * m);
}

static int kb_vasprintf(char **out, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

static int
kb_vasprintf(char **out, const char *fmt, va_list ap)
{
	va_list aq;
	char *s;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0 || (s = malloc((size_t)n + 1)) == NULL)
		return -1;
	if (vsnprintf(s, (size_t)n + 1, fmt, ap) != n) {
		free(s);
		return -1;
	}
	*out = s;
	return n;
}
#endif

const char *kb_progname = "kinbox";

int
kb_err_set(struct kb_err *e, const char *fmt, ...)
{
	va_list ap;

	if (e == NULL)
		return -1;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* kb_after_command(): the next line starts fresh */
static bool fresh_pending, fresh_newline;

void
kb_after_command(bool unfinished_line)
{
	fresh_pending = true;
	fresh_newline = unfinished_line;
}

static void
fresh_line(void)
{
	if (!fresh_pending)
		return;
	fresh_pending = false;
	/* SGR reset; G0 = ASCII and shifted in (SI), so that neither
	 * conceal, colours nor the line-drawing set the command chose
	 * apply to kinbox's text */
	if (isatty(2))
		fputs("\033[0m\033(B\017", stderr);
	if (fresh_newline)
		fputc('\n', stderr);
}

void
kb_line(const char *line)
{
	fresh_line();
	fprintf(stderr, "%s: %s\n", kb_progname, line);
}

static void vmsg(const char *fmt, va_list ap, const char *suffix)
    __attribute__((format(printf, 1, 0)));

static void
vmsg(const char *fmt, va_list ap, const char *suffix)
{
	char line[1024];
	struct kb_buf b = {0};

	vsnprintf(line, sizeof(line), fmt, ap);
	kb_buf_escape(&b, line);
	if (suffix != NULL) {
		kb_buf_puts(&b, ": ");
		kb_buf_escape(&b, suffix);
	}
	kb_line(b.s);
	kb_buf_free(&b);
}

void
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, NULL);
	va_end(ap);
	exit(KB_EXIT_ERROR);
}

void
die_errno(const char *fmt, ...)
{
	va_list ap;
	const char *s = strerror(errno);

	va_start(ap, fmt);
	vmsg(fmt, ap, s);
	va_end(ap);
	exit(KB_EXIT_ERROR);
}

void
warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, NULL);
	va_end(ap);
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		die("out of memory");
	return p;
}

void *
xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);

	if (p == NULL)
		die("out of memory");
	return p;
}

void *
xreallocarray(void *p, size_t n, size_t m)
{
	void *r = kb_reallocarray(p, n ? n : 1, m ? m : 1);

	if (r == NULL)
		die("out of memory");
	return r;
}

char *
xstrdup(const char *s)
{
	char *r = strdup(s);

	if (r == NULL)
		die("out of memory");
	return r;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *r;
	int n;

	va_start(ap, fmt);
	n = kb_vasprintf(&r, fmt, ap);
	va_end(ap);
	if (n == -1)
		die("out of memory");
	return r;
}

void
kb_strv_push(struct kb_strv *sv, const char *s)
{
	if (sv->n + 2 > sv->cap) {
		sv->cap = sv->cap ? sv->cap * 2 : 32;
		sv->v = xreallocarray(sv->v, sv->cap, sizeof(char *));
	}
	sv->v[sv->n++] = xstrdup(s);
	sv->v[sv->n] = NULL;
}

void
kb_strv_pushf(struct kb_strv *sv, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (kb_vasprintf(&s, fmt, ap) == -1)
		die("out of memory");
	va_end(ap);
	kb_strv_push(sv, s);
	free(s);
}

bool
kb_strv_has(const struct kb_strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return true;
	return false;
}

void
kb_strv_free(struct kb_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}

void
kb_buf_add(struct kb_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;

		while (cap < b->len + n + 1)
			cap *= 2;
		b->s = xreallocarray(b->s, cap, 1);
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void
kb_buf_puts(struct kb_buf *b, const char *s)
{
	kb_buf_add(b, s, strlen(s));
}

void
kb_buf_printf(struct kb_buf *b, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = kb_vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n == -1)
		die("out of memory");
	kb_buf_add(b, s, (size_t)n);
	free(s);
}

void
kb_buf_free(struct kb_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

void
kb_buf_shquote(struct kb_buf *b, const char *s)
{
	const char *p;

	if (*s != '\0') {
		for (p = s; *p != '\0'; p++)
			if (strchr("abcdefghijklmnopqrstuvwxyz"
				   "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789-_./:=+,@%",
				*p) == NULL)
				break;
		if (*p == '\0') {
			kb_buf_puts(b, s);
			return;
		}
	}
	kb_buf_add(b, "'", 1);
	for (p = s; *p != '\0'; p++) {
		if (*p == '\'')
			kb_buf_puts(b, "'\\''");
		else
			kb_buf_add(b, p, 1);
	}
	kb_buf_add(b, "'", 1);
}

/* U+0080..U+009F (C1), the line and paragraph separators and the
 * bidirectional controls: valid UTF-8, yet they move or hide text */
static bool
unsafe_code_point(unsigned long cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x61c || cp == 0x200e ||
	       cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/*
 * The character at s (n > 0 bytes left): returns its length in bytes and
 * sets *raw when it may be printed as it is. An invalid UTF-8 sequence is
 * one byte long and not raw, so that each of its bytes is escaped.
 */
static size_t
char_at(const unsigned char *s, size_t n, bool *raw)
{
	static const unsigned long min[5] = {0, 0, 0x80, 0x800, 0x10000};
	unsigned long cp;
	size_t len;

	*raw = false;
	if (s[0] < 0x80) {
		*raw = s[0] >= 0x20 && s[0] != 0x7f;
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 1; /* a continuation byte, 0xc0, 0xc1, 0xf5.. */
	}
	if (len > n)
		return 1; /* truncated */
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 1;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 1; /* overlong, beyond Unicode, a surrogate */
	*raw = !unsafe_code_point(cp);
	return len;
}

static void
escape_mem(struct kb_buf *b, const char *str, size_t n, bool squote)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0; /* bytes printed as they are, not yet added */

	while (i < n) {
		bool raw;
		size_t len = char_at(s + i, n - i, &raw);

		if (raw && s[i] != '\\' && !(squote && s[i] == '\'')) {
			run += len;
			i += len;
			continue;
		}
		kb_buf_add(b, (const char *)s + i - run, run);
		run = 0;
		for (size_t k = 0; k < len; k++, i++) {
			char esc[4] = {
			    '\\', 'x', hex[s[i] >> 4], hex[s[i] & 0xf]};

			switch (s[i]) {
			case '\\':
			case '\'':
				kb_buf_add(b, esc, 1);
				kb_buf_add(b, (const char *)s + i, 1);
				continue;
			case '\n':
				kb_buf_add(b, "\\n", 2);
				continue;
			case '\r':
				kb_buf_add(b, "\\r", 2);
				continue;
			case '\t':
				kb_buf_add(b, "\\t", 2);
				continue;
			default:
				kb_buf_add(b, esc, 4);
			}
		}
	}
	kb_buf_add(b, (const char *)s + i - run, run);
}

void
kb_buf_escape_mem(struct kb_buf *b, const char *s, size_t n)
{
	escape_mem(b, s, n, false);
}

void
kb_buf_escape(struct kb_buf *b, const char *s)
{
	escape_mem(b, s, strlen(s), false);
}

char *
kb_escape(const char *s)
{
	struct kb_buf b = {0};

	kb_buf_add(&b, "", 0);
	kb_buf_escape(&b, s);
	return b.s;
}

const char *
kb_find_control(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return s;
	return NULL;
}

void
kb_buf_shquote_visible(struct kb_buf *b, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s);

	for (size_t i = 0; i < n;) {
		bool raw;
		size_t len = char_at(u + i, n - i, &raw);

		if (!raw) {
			kb_buf_add(b, "$'", 2);
			escape_mem(b, s, n, true);
			kb_buf_add(b, "'", 1);
			return;
		}
		i += len;
	}
	kb_buf_shquote(b, s);
}

bool
kb_path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 &&
	       (path[n] == '\0' || path[n] == '/');
}

char *
kb_read_fd(int fd, size_t max, size_t *len)
{
	struct kb_buf b = {0};
	struct stat st;
	char chunk[4096];
	ssize_t n;
	int errsv;

	if (fstat(fd, &st) == -1)
		return NULL;
	if (!S_ISREG(st.st_mode)) {
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		return NULL;
	}
	if ((size_t)st.st_size > max) {
		errno = EFBIG;
		return NULL;
	}
	kb_buf_add(&b, "", 0);
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		/* the file may grow after fstat: the bound holds anyway */
		if (b.len + (size_t)n > max) {
			errno = EFBIG;
			goto fail;
		}
		kb_buf_add(&b, chunk, (size_t)n);
	}
	if (len != NULL)
		*len = b.len;
	return b.s;
fail:
	errsv = errno;
	kb_buf_free(&b);
	errno = errsv;
	return NULL;
}

char *
kb_read_small_file(const char *path, size_t max)
{
	/* a FIFO or a device must not block or feed kinbox: the type is
	 * checked on the descriptor, before the first read */
	return kb_read_fd_close(
	    open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK), max);
}

char *
kb_read_fd_close(int fd, size_t max)
{
	int errsv;
	char *s;

	if (fd == -1)
		return NULL;
	s = kb_read_fd(fd, max, NULL);
	errsv = errno;
	close(fd);
	errno = errsv;
	return s;
}

void
cleanup_freep(void *p)
{
	free(*(void **)p);
}

void
cleanup_fdp(int *fd)
{
	int errsv = errno;

	if (*fd >= 0)
		close(*fd);
	errno = errsv;
}

void
cleanup_strvp(struct kb_strv *sv)
{
	kb_strv_free(sv);
}

int
kb_mkdirs(const char *path, mode_t mode, struct kb_strv *created)
{
	char buf[4096];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, n + 1);
	for (char *s = buf + 1;; s++) {
		char c;

		if (*s != '/' && *s != '\0')
			continue;
		c = *s;
		*s = '\0';
		if (mkdir(buf, mode) == 0) {
			if (created != NULL)
				kb_strv_push(created, buf);
		} else if (errno != EEXIST) {
			return -1;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	return 0;
}

int
kb_duration_parse(const char *s, long long *secs)
{
	/* 100 years of days: far beyond any journal, far below overflow */
	static const long long cap = 36500LL * 86400;
	static const struct {
		char unit;
		long long secs;
	} units[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}};
	size_t n = strspn(s, "0123456789");
	long long v = 0;

	if (n == 0 || s[n] == '\0' || s[n + 1] != '\0') {
		errno = EINVAL;
		return -1;
	}
	for (size_t i = 0; i < nitems(units); i++) {
		if (s[n] != units[i].unit)
			continue;
		for (size_t k = 0; k < n; k++) {
			v = v * 10 + (s[k] - '0');
			if (v > cap / units[i].secs) {
				errno = ERANGE;
				return -1;
			}
		}
		*secs = v * units[i].secs;
		return 0;
	}
	errno = EINVAL;
	return -1;
}

int
kb_size_parse(const char *s, unsigned long long *bytes)
{
	static const unsigned long long cap = 1ULL << 50;
	size_t n = strspn(s, "0123456789");
	unsigned long long v = 0, mult = 1;

	if (n == 0 || (s[n] != '\0' && s[n + 1] != '\0')) {
		errno = EINVAL;
		return -1;
	}
	switch (s[n]) {
	case '\0':
		break;
	case 'k':
	case 'K':
		mult = 1ULL << 10;
		break;
	case 'm':
	case 'M':
		mult = 1ULL << 20;
		break;
	case 'g':
	case 'G':
		mult = 1ULL << 30;
		break;
	case 't':
	case 'T':
		mult = 1ULL << 40;
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	for (size_t k = 0; k < n; k++) {
		v = v * 10 + (unsigned)(s[k] - '0');
		if (v > cap / mult) {
			errno = ERANGE;
			return -1;
		}
	}
	*bytes = v * mult;
	return 0;
}

const char *
kb_size_str(unsigned long long bytes, char *buf, size_t n)
{
	static const char *const unit[] = {
	    "B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	unsigned long long scale = 1, tenth;
	size_t u = 0;

	while (u + 1 < nitems(unit) && bytes / scale >= 1024) {
		scale <<= 10;
		u++;
	}
	tenth = (bytes % scale) * 10 / scale; /* < 10: the remainder < scale */
	if (u == 0 || tenth == 0)
		snprintf(buf, n, "%llu %s", bytes / scale, unit[u]);
	else
		snprintf(buf, n, "%llu.%llu %s", bytes / scale, tenth, unit[u]);
	return buf;
}
