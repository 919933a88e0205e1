/*
 * lib/util.h — the shared toolbox: die/warn (CLI only), x* allocators that
 * never fail, NULL-terminated string vectors, a small string builder, cleanup
 * attributes and the error record used by every module that must not exit.
 */
#ifndef KB_UTIL_H
#define KB_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define KB_EXIT_TIMEOUT  124 /* --timeout expired (timeout(1)'s status) */
#define KB_EXIT_ERROR    125 /* kinbox's own error: bad input, no sandbox */
#define KB_EXIT_NOEXEC   126 /* command found but not executable */
#define KB_EXIT_NOTFOUND 127 /* command not found */
#define KB_EXIT_SIGNAL   128 /* + N when the command died of signal N */

#define KB_TAIL (64 * 1024) /* bytes of a command's stderr kept to classify */

#ifndef nitems
#define nitems(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* Error record filled by code that never prints or exits (profile/,
 * backends/ planners, classify/). kb_err_set() always returns -1 so that
 * callers can write `return kb_err_set(e, ...)`. */
struct kb_err {
	char msg[512];
};
int kb_err_set(struct kb_err *, const char *, ...)
    __attribute__((format(printf, 2, 3)));

/* CLI layer only (kinbox.c, kinpolicy.c): print "<prog>: msg" and exit 125. */
extern const char *kb_progname;
void die(const char *, ...) __attribute__((noreturn, format(printf, 1, 2)));
void die_errno(const char *, ...)
    __attribute__((noreturn, format(printf, 1, 2)));
void warnx(const char *, ...) __attribute__((format(printf, 1, 2)));
/* die, die_errno and warnx escape the whole formatted line (kb_buf_escape):
 * a value quoted in a message cannot break it into two. kb_line() prints
 * "<prog>: LINE" as it is, for a line whose fields are escaped already
 * (kb_report_line). */
void kb_line(const char *line);

/*
 * After the command ran, kinbox's own lines must not inherit what the
 * command left on the terminal: kb_after_command() is called once, with
 * whether the command's stderr ended without a newline; the next line
 * kinbox prints (die, warnx, kb_line) is preceded by an SGR reset and a
 * switch back to the ASCII character set when stderr is a terminal (a
 * trailing "\e[8m" would hide it, "\e(0" garble it), and by a newline
 * when the command's last line was unfinished.
 */
void kb_after_command(bool unfinished_line);

/* Allocators: on failure they die("out of memory"). */
void *xmalloc(size_t);
void *xcalloc(size_t, size_t);
void *xreallocarray(void *, size_t, size_t);
char *xstrdup(const char *);
char *xasprintf(const char *, ...) __attribute__((format(printf, 1, 2)));

/* A growable NULL-terminated vector of owned strings. */
struct kb_strv {
	char **v;
	size_t n, cap;
};
void kb_strv_push(struct kb_strv *, const char *); /* copies */
void kb_strv_pushf(struct kb_strv *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
void kb_strv_free(struct kb_strv *);
/* Does `sv` hold the string `s`? */
bool kb_strv_has(const struct kb_strv *, const char *s);

/* Small string builder; the buffer is always NUL-terminated. */
struct kb_buf {
	char *s;
	size_t len, cap;
};
void kb_buf_add(struct kb_buf *, const char *, size_t);
void kb_buf_puts(struct kb_buf *, const char *);
void kb_buf_printf(struct kb_buf *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
void kb_buf_free(struct kb_buf *);

/* Appends `s` quoted for a POSIX shell (bare when it only holds safe
 * characters, else in single quotes). Bytes go in as they are: for a
 * shell to read, not for a person (see kb_buf_shquote_visible). */
void kb_buf_shquote(struct kb_buf *, const char *s);

/*
 * Escaping for the lines kinbox and kinpolicy print for people. A field
 * that came from the command or from a filesystem it writes (a path, a
 * hook name, argv, stderr text) must not be able to end kinbox's line,
 * start a forged one, or steer the terminal. Bytes are read as UTF-8;
 * printed as they are: printable ASCII and valid, printable UTF-8.
 * Escaped, visibly and reversibly (each \xHH is one byte of the input):
 *   \ as \\;  \n \r \t;  other C0 bytes and DEL as \xHH (ESC is \x1b);
 *   the C1 code points U+0080..U+009F, the line and paragraph separators
 *   U+2028/U+2029 and the bidirectional controls (U+061C, U+200E/F,
 *   U+202A..U+202E, U+2066..U+2069) as the \xHH of their bytes;
 *   every byte of an invalid sequence (stray continuation bytes, overlong
 *   forms, surrogates, truncated sequences, > U+10FFFF) as \xHH.
 */
void kb_buf_escape(struct kb_buf *, const char *s);
void kb_buf_escape_mem(struct kb_buf *, const char *s, size_t n);
/* The same into a new string; caller frees. */
char *kb_escape(const char *s);

/* The first control byte of `s` (C0, the tab and line breaks among them,
 * or DEL), or NULL: what a value kept as one line of text must not hold
 * to be read back as it was written. */
const char *kb_find_control(const char *s);

/* kb_buf_shquote for a person's eyes: a string kb_buf_escape would change
 * (beyond a backslash) is written as $'...' with those escapes, which
 * bash, zsh, ksh and POSIX.1-2024 sh read back to the exact bytes; any
 * other string exactly as kb_buf_shquote writes it. */
void kb_buf_shquote_visible(struct kb_buf *, const char *s);

/* true when `path` equals `dir` or lies below it (both canonical). */
bool kb_path_within(const char *path, const char *dir);

/* Reads a whole small file (at most max bytes) into a new string, NUL
 * terminated; returns NULL with errno set on failure. Caller frees. */
char *kb_read_small_file(const char *path, size_t max);

/* fstat()s `fd`, requires a regular file of at most `max` bytes and reads
 * it whole, NUL-terminated (*len, when not NULL, gets its length). NULL
 * with errno (EINVAL: not a regular file, EISDIR: a directory, EFBIG:
 * larger than max). Does not close fd. */
char *kb_read_fd(int fd, size_t max, size_t *len);

/* kb_read_fd, then closes fd (errno kept); NULL for fd -1, errno as the
 * open left it. */
char *kb_read_fd_close(int fd, size_t max);

/* A duration as kinpolicy gc takes it: digits and one unit, s, m, h or d
 * (30m, 12h, 7d), at most 100 years. 0 with *secs, or -1 with errno
 * EINVAL (not that form) or ERANGE (too long). */
int kb_duration_parse(const char *s, long long *secs);

/* A size as --memory takes it: digits and an optional unit, K, M, G or T
 * (1024-based, either case; none: bytes), at most 1 PiB (2^50). 0 with
 * *bytes, or -1 with errno EINVAL (not that form) or ERANGE (larger). */
int kb_size_parse(const char *s, unsigned long long *bytes);

/* `bytes` for people into buf (24 bytes hold any): "4 GiB", "64 MiB",
 * "37.5 MiB" (the largest unit it reaches, one decimal when not whole,
 * rounded down), "512 B". Returns buf. */
const char *kb_size_str(unsigned long long bytes, char *buf, size_t n);

/* mkdir -p with `mode` for what it creates; the created directories are
 * appended to `created` (when not NULL), outermost first. 0, or -1 with
 * errno set. */
int kb_mkdirs(const char *path, mode_t mode, struct kb_strv *created);

void cleanup_freep(void *);
void cleanup_fdp(int *);
void cleanup_strvp(struct kb_strv *);
#define _cleanup_free_  __attribute__((cleanup(cleanup_freep)))
#define _cleanup_close_ __attribute__((cleanup(cleanup_fdp)))
#define _cleanup_strv_  __attribute__((cleanup(cleanup_strvp)))

static inline void *
steal_pointer(void *pp)
{
	void **p = pp;
	void *r = *p;
	*p = NULL;
	return r;
}

#endif
