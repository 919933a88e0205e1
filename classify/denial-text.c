/*
 * classify/denial-text.c — reading one line of a failed command's stderr
 * for the denial classifier (classify/denial.c judges what it finds): the
 * paths a line names (quoted, after a verb, in a field), a traceback's
 * code frame, an IPv4 address or port, the host a network error names,
 * macOS's sandbox log line. Text only: no policy, no oracle, no I/O.
 */
#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../profile/tables.h"
#include "denial-int.h"

/* Quote pairs tools put around paths: ASCII, backticks, and the UTF-8
 * quotes coreutils uses in UTF-8 locales. */
static const struct {
	const char *open, *close;
} quotes[] = {
    {"'", "'"}, {"\"", "\""}, {"`", "'"}, {"`", "`"},
    {"\xe2\x80\x98", "\xe2\x80\x99"}, /* ‘ ’ */
    {"\xe2\x80\x9c", "\xe2\x80\x9d"}, /* “ ” */
};

/* "file.rb:243:in", "main.c:12:", "x.py:7": where code is, not a path
 * the command wrote */
static bool
source_location(const char *s, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++) {
		size_t j = i + 1;

		if (s[i] != ':' || s[j] < '0' || s[j] > '9')
			continue;
		while (j < n && s[j] >= '0' && s[j] <= '9')
			j++;
		if (j == n || s[j] == ':')
			return true;
	}
	return false;
}

/* A Python traceback frame ('  File "/usr/lib/python3.11/socket.py",
 * line 836, in create_connection'): it names code, never the path the
 * command wrote */
bool
kb_dn_code_frame(const struct line *l)
{
	size_t k = 0;

	while (k < l->n && (l->s[k] == ' ' || l->s[k] == '\t'))
		k++;
	return l->n - k > 6 && memcmp(l->s + k, "File \"", 6) == 0 &&
	       memmem(l->s + k, l->n - k, "\", line ", 8) != NULL;
}

bool
kb_dn_pathish(const char *s, size_t n, bool quoted)
{
	if (n == 0 || n >= PATH_MAX || source_location(s, n))
		return false;
	if (s[0] == '/' || (n > 1 && s[0] == '~' && s[1] == '/'))
		return true;
	if (!quoted)
		return n > 2 && (memcmp(s, "./", 2) == 0 ||
				    (n > 3 && memcmp(s, "../", 3) == 0));
	/* a quoted relative name: no spaces, no URL, no wildcard text */
	for (size_t i = 0; i < n; i++)
		if (s[i] == ' ' || s[i] == '<' || s[i] == '>' || s[i] == '\t')
			return false;
	return memmem(s, n, "://", 3) == NULL;
}

/* An unquoted token as a name: "file_put_contents(/etc/x):" is /etc/x;
 * trailing punctuation goes */
static void
token_name(const char **t, size_t *n)
{
	const char *par = memchr(*t, '(', *n);

	if (par != NULL && par + 1 < *t + *n && par[1] == '/') {
		*n -= (size_t)(par + 1 - *t);
		*t = par + 1;
	}
	while (*n > 0 && strchr(":,;).\"'", (*t)[*n - 1]) != NULL)
		(*n)--;
}

static bool
verb_word(const char *s, size_t n)
{
	for (size_t i = 0; i < kb_not_a_name_count; i++)
		if (strlen(kb_not_a_name[i]) == n &&
		    strncasecmp(s, kb_not_a_name[i], n) == 0)
			return true;
	return false;
}

/*
 * "tool: NAME: phrase" and "tool: cannot open output file NAME: phrase":
 * the name just before the ": " that precedes the phrase, when it is a
 * plain word (not the tool, not a number, not a verb).
 */
static const char *
field_before(const struct line *l, size_t limit, size_t *outn)
{
	size_t end = limit < l->n ? limit : l->n;

	/* walk back over ": " separators, nearest field first */
	while (end >= 2) {
		size_t sep = end, start, w;

		while (
		    sep >= 2 && !(l->s[sep - 2] == ':' && l->s[sep - 1] == ' '))
			sep--;
		if (sep < 2)
			return NULL;
		/* the field ends at sep-2; it starts after the previous ": " */
		start = sep - 2;
		while (start >= 2 &&
		       !(l->s[start - 2] == ':' && l->s[start - 1] == ' '))
			start--;
		/* field 0 is the tool's own name, unless the phrase follows
		 * it and it looks like a file ("audit.log: Read-only file
		 * system") */
		if (start < 2) {
			size_t n0 = sep - 2;

			if (sep == limit && n0 > 0 &&
			    memchr(l->s, ' ', n0) == NULL &&
			    memchr(l->s, '.', n0) != NULL &&
			    !source_location(l->s, n0)) {
				*outn = n0;
				return l->s;
			}
			return NULL;
		}
		w = sep - 2;
		while (w > start && l->s[w - 1] != ' ')
			w--;
		{
			const char *t = l->s + w;
			size_t n = sep - 2 - w;
			bool digits = true;

			for (size_t i = 0; i < n; i++)
				if (t[i] < '0' || t[i] > '9')
					digits = false;
			if (n > 0 && !digits && !verb_word(t, n) &&
			    memchr(t, '\'', n) == NULL &&
			    memchr(t, '"', n) == NULL &&
			    memchr(t, '(', n) == NULL) {
				*outn = n;
				return t;
			}
		}
		end = start;
	}
	return NULL;
}

/*
 * The path a message names: the last quoted path-like string before
 * `limit` (the phrase), else any quoted one, else the last unquoted token
 * that starts with / ~/ ./ or ../ . Copies it into out; false when none.
 */
bool
kb_dn_extract_path(const struct line *l, size_t limit, char *out, size_t outlen)
{
	const char *best = NULL;
	size_t bestn = 0, bestpos = 0;

	/* quoted: the last one before the phrase wins, else the first after */
	for (size_t q = 0; q < nitems(quotes); q++) {
		size_t ol = strlen(quotes[q].open),
		       cl = strlen(quotes[q].close);
		const char *p = l->s, *end = l->s + l->n;

		while (p < end) {
			const char *o =
			    memmem(p, (size_t)(end - p), quotes[q].open, ol);
			const char *c;
			size_t pos;

			if (o == NULL)
				break;
			/* an apostrophe in a word ("can't") opens nothing */
			if (ol == 1 && *o == '\'' && o > l->s && o + 1 < end &&
			    isalpha((unsigned char)o[-1]) &&
			    isalpha((unsigned char)o[1])) {
				p = o + 1;
				continue;
			}
			c = memmem(o + ol, (size_t)(end - o - ol),
			    quotes[q].close, cl);
			if (c == NULL)
				break;
			pos = (size_t)(o - l->s);
			if (kb_dn_pathish(o + ol, (size_t)(c - o - ol), true)) {
				bool before = pos < limit;
				bool best_before =
				    best != NULL && bestpos < limit;

				if (best == NULL || (before && pos > bestpos) ||
				    (!before && !best_before &&
					pos < bestpos)) {
					best = o + ol;
					bestn = (size_t)(c - o - ol);
					bestpos = pos;
				}
			}
			p = c + cl;
		}
	}
	/* "'SRC' -> 'DST'" (Python's rename, npm's symlink): the write was
	 * to DST */
	if (best != NULL) {
		const char *end = l->s + l->n, *q = best + bestn + 1;

		if (q + 5 < end && memcmp(q, " -> ", 4) == 0 &&
		    (q[4] == '\'' || q[4] == '"')) {
			const char *c =
			    memchr(q + 5, q[4], (size_t)(end - q - 5));

			if (c != NULL &&
			    kb_dn_pathish(q + 5, (size_t)(c - q - 5), true)) {
				best = q + 5;
				bestn = (size_t)(c - q - 5);
			}
		}
	}
	/* else the last unquoted token before the phrase that starts like a
	 * path (Go: "open /usr/x: read-only file system"), but not the
	 * tool's own name at the start of the line ("/usr/bin/ld: ...") */
	if (best == NULL) {
		const char *p = l->s;
		const char *end = l->s + (limit < l->n ? limit : l->n);

		while (p < end) {
			const char *t;
			size_t n;

			while (
			    p < end && (*p == ' ' || *p == '\t' || *p == '('))
				p++;
			t = p;
			while (p < end && *p != ' ' && *p != '\t')
				p++;
			n = (size_t)(p - t);
			/* the tool's name ("/usr/bin/ld: ..."), unless the
			 * phrase follows it ("/opt/x: Read-only file
			 * system") */
			if (t == l->s && n > 0 && t[n - 1] == ':' &&
			    (size_t)(p - l->s) + 1 != limit)
				continue;
			token_name(&t, &n);
			if (kb_dn_pathish(t, n, false)) {
				best = t;
				bestn = n;
			}
		}
	}
	/* "tool: NAME: phrase": the field right before the phrase */
	if (best == NULL)
		best = field_before(l, limit, &bestn);
	/* else the first unquoted absolute path after the phrase (Ruby:
	 * "Read-only file system @ rb_sysopen - /opt/x (Errno::EROFS)") */
	if (best == NULL && limit < l->n) {
		const char *p = l->s + limit, *end = l->s + l->n;

		while (p < end && best == NULL) {
			const char *t;
			size_t n;

			while (
			    p < end && (*p == ' ' || *p == '\t' || *p == '('))
				p++;
			t = p;
			while (p < end && *p != ' ' && *p != '\t')
				p++;
			n = (size_t)(p - t);
			token_name(&t, &n);
			if (kb_dn_pathish(t, n, false)) {
				best = t;
				bestn = n;
			}
		}
	}
	if (best == NULL || bestn + 1 > outlen)
		return false;
	memcpy(out, best, bestn);
	out[bestn] = '\0';
	return true;
}

/* Every quoted path-like string of the line and every unquoted token that
 * starts with / ~/ ./ ../, in line order: the other names a message gives
 * (a source before the blocked destination, "'a' -> '/opt/b'"). */
size_t
kb_dn_all_paths(const struct line *l, char (*out)[PATH_MAX], size_t max)
{
	size_t k = 0;

	for (const char *p = l->s, *end = l->s + l->n; p < end && k < max;) {
		const char *close = NULL;
		size_t ol = 0;

		for (size_t q = 0; q < nitems(quotes); q++)
			if ((size_t)(end - p) >= strlen(quotes[q].open) &&
			    memcmp(p, quotes[q].open, strlen(quotes[q].open)) ==
				0) {
				ol = strlen(quotes[q].open);
				close = quotes[q].close;
				break;
			}
		if (close != NULL && ol == 1 && *p == '\'' && p > l->s &&
		    p + 1 < end && isalpha((unsigned char)p[-1]) &&
		    isalpha((unsigned char)p[1]))
			close = NULL; /* an apostrophe in a word */
		if (close != NULL) {
			const char *c = memmem(p + ol, (size_t)(end - p - ol),
			    close, strlen(close));

			if (c != NULL) {
				size_t n = (size_t)(c - p - ol);

				if (kb_dn_pathish(p + ol, n, true)) {
					memcpy(out[k], p + ol, n);
					out[k++][n] = '\0';
				}
				p = c + strlen(close);
				continue;
			}
		}
		if (p == l->s || p[-1] == ' ' || p[-1] == '\t' ||
		    p[-1] == '(') {
			const char *t = p;
			size_t n;

			while (p < end && *p != ' ' && *p != '\t')
				p++;
			n = (size_t)(p - t);
			token_name(&t, &n);
			if (kb_dn_pathish(t, n, false)) {
				memcpy(out[k], t, n);
				out[k++][n] = '\0';
				continue;
			}
			/* not a name: its quotes are looked at one by one */
			p = t + 1;
			continue;
		}
		p++;
	}
	return k;
}

/* The line names an IPv4 address, localhost, or a port ("port 22",
 * "host:8080"): a TCP connection, not a unix socket */
bool
kb_dn_inet_named(const struct line *l)
{
	if (memmem(l->s, l->n, "localhost", 9) != NULL ||
	    memmem(l->s, l->n, "tcp", 3) != NULL)
		return true;
	for (size_t i = 0; i < l->n; i++) {
		const char *s = l->s + i;
		size_t left = l->n - i;
		int dots = 0;
		size_t j = 0;

		if (left > 5 && memcmp(s, "port ", 5) == 0 && s[5] >= '0' &&
		    s[5] <= '9')
			return true;
		if (i > 0 && s[0] == ':' && left > 1 && s[1] >= '0' &&
		    s[1] <= '9' &&
		    (isalnum((unsigned char)s[-1]) || s[-1] == ']'))
			return true;
		/* a dotted quad */
		if (i > 0 && isdigit((unsigned char)s[-1]))
			continue;
		while (j < left && (isdigit((unsigned char)s[j]) ||
				       (s[j] == '.' && j > 0 &&
					   isdigit((unsigned char)s[j - 1]))))
			dots += s[j++] == '.';
		if (dots == 3 && isdigit((unsigned char)s[j - 1]))
			return true;
	}
	return false;
}

void
kb_dn_find_host(
    const struct line *lines, size_t nlines, size_t i, struct kb_denial *d)
{
	/* this line first, then the whole tail */
	for (size_t pass = 0; pass < 2 && d->host[0] == '\0'; pass++) {
		for (size_t r = 0; r < kb_host_re_count && d->host[0] == '\0';
		     r++) {
			regex_t re;
			regmatch_t m[4];

			if ((pass == 1 && kb_host_res[r].line_only) ||
			    regcomp(&re, kb_host_res[r].re, REG_EXTENDED) != 0)
				continue;
			for (size_t k = pass == 0 ? i : 0;
			     k < (pass == 0 ? i + 1 : nlines); k++) {
				char buf[1024];
				size_t n = lines[k].n < sizeof(buf) - 1
					       ? lines[k].n
					       : sizeof(buf) - 1;
				int g;

				memcpy(buf, lines[k].s, n);
				buf[n] = '\0';
				if (regexec(&re, buf, 4, m, 0) != 0)
					continue;
				for (g = 3; g > 0 && m[g].rm_so == -1; g--)
					;
				if (g > 0 && m[g].rm_eo - m[g].rm_so > 0 &&
				    (size_t)(m[g].rm_eo - m[g].rm_so) <
					sizeof(d->host)) {
					memcpy(d->host, buf + m[g].rm_so,
					    (size_t)(m[g].rm_eo - m[g].rm_so));
					d->host[m[g].rm_eo - m[g].rm_so] = '\0';
					break;
				}
			}
			regfree(&re);
		}
	}
	/* a dotless word is not a host (e.g. "lookup failed") */
	if (strchr(d->host, '.') == NULL && strcmp(d->host, "localhost") != 0)
		d->host[0] = '\0';
}

bool
kb_dn_words_in(const struct line *l, const char *const *words, size_t nwords)
{
	for (size_t w = 0; w < nwords; w++)
		if (memmem(l->s, l->n, words[w], strlen(words[w])) != NULL)
			return true;
	return false;
}

/*
 * macOS's sandbox log line, as `log stream --predicate 'sender ==
 * "Sandbox"'` shows it and as a user may paste it into the output:
 * "Sandbox: touch(4242) deny(1) file-write-create /Users/me/x". The
 * operation is a word of [a-z*-]; what follows it, to the end of the
 * line, is the path (or the address, for network-*). Only the kernel's
 * sandbox writes these, so the line is exact evidence, whichever backend
 * the policy names. kinbox does not read the log itself: it sees only what
 * reaches the command's stderr.
 */
bool
kb_dn_sandbox_log_line(
    const struct line *l, char *op, size_t oplen, char *arg, size_t arglen)
{
	const char *s = l->s, *end = l->s + l->n, *o, *a;

	while ((s = memmem(s, (size_t)(end - s), "deny(", 5)) != NULL) {
		const char *q = s + 5;

		s = q;
		if (q >= end || !isdigit((unsigned char)*q))
			continue;
		while (q < end && isdigit((unsigned char)*q))
			q++;
		if (end - q < 3 || q[0] != ')' || q[1] != ' ')
			continue;
		o = q + 2;
		for (q = o; q < end && (islower((unsigned char)*q) ||
					   *q == '-' || *q == '*');
		     q++)
			;
		if (q == o || (size_t)(q - o) >= oplen)
			continue;
		memcpy(op, o, (size_t)(q - o));
		op[q - o] = '\0';
		a = q < end && *q == ' ' ? q + 1 : q;
		if ((size_t)(end - a) >= arglen)
			return false;
		memcpy(arg, a, (size_t)(end - a));
		arg[end - a] = '\0';
		return true;
	}
	return false;
}
