/*
 * util.c — die/warn for the CLI, never-failing allocators, string vectors,
 * a string builder and shell quoting. The only file besides the two main
 * programs allowed to exit (through die()).
 */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static void vmsg(const char *fmt, va_list ap, const char *suffix)
    __attribute__((format(printf, 1, 0)));

static void
vmsg(const char *fmt, va_list ap, const char *suffix)
{
	char line[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	if (suffix != NULL)
		fprintf(stderr, "%s: %s: %s\n", kb_progname, line, suffix);
	else
		fprintf(stderr, "%s: %s\n", kb_progname, line);
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
	void *r = reallocarray(p, n ? n : 1, m ? m : 1);

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
	n = vasprintf(&r, fmt, ap);
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
	if (vasprintf(&s, fmt, ap) == -1)
		die("out of memory");
	va_end(ap);
	kb_strv_push(sv, s);
	free(s);
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
	n = vasprintf(&s, fmt, ap);
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

bool
kb_path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

char *
kb_read_small_file(const char *path, size_t max)
{
	struct kb_buf b = { 0 };
	char chunk[4096];
	ssize_t n;
	int fd, errsv;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd == -1)
		return NULL;
	kb_buf_add(&b, "", 0);
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (b.len + (size_t)n > max) {
			errno = EFBIG;
			goto fail;
		}
		kb_buf_add(&b, chunk, (size_t)n);
	}
	close(fd);
	return b.s;
fail:
	errsv = errno;
	close(fd);
	kb_buf_free(&b);
	errno = errsv;
	return NULL;
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
