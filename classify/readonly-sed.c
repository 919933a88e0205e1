/*
 * classify/readonly-sed.c — does a sed script only read? A reading of GNU
 * sed 4.9's compile.c, kept as close as it goes: where this reader and sed
 * could part ways it refuses. The aim is to find the commands w, W and e
 * and the s flags w and e, so text that sed takes as data (regexes,
 * replacements, a/i/c text, r file names, labels, comments) must end
 * exactly where sed ends it. Used by readonly.c for `sed -e SCRIPT`.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/util.h"
#include "readonly-sed.h"

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static void
sed_blanks(const char **p)
{
	while (**p == ' ' || **p == '\t')
		(*p)++;
}

/* snarf_char_class(): a bracket expression, after its "[". Bytes >= 0x80
 * are refused: sed treats them differently by locale. */
static int
sed_bracket(const char **pp)
{
	const char *p = *pp;
	int state = 0;
	char delim = 0;

	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	for (;; p++) {
		switch (*p) {
		case '\0':
		case '\n':
			return -1;
		case '.':
		case ':':
		case '=':
			if (state == 1) {
				delim = *p;
				state = 2;
				continue;
			}
			if (state == 2 && *p == delim) {
				state = 3;
				continue;
			}
			break;
		case '[':
			if (state == 0)
				state = 1;
			continue;
		case ']':
			if (state == 0 || state == 1) {
				*pp = p + 1;
				return 0;
			}
			if (state == 3)
				state = 0;
			break;
		default:
			if ((unsigned char)*p >= 0x80)
				return -1;
			break;
		}
		state &= ~1;
	}
}

/* match_slash(): up to the unescaped delimiter; a regex's bracket
 * expressions may hold it */
static int
sed_slash(const char **pp, char delim, bool regex)
{
	const char *p = *pp;
	char c;

	for (;;) {
		c = *p;
		if (c == '\0' || c == '\n')
			return -1;
		p++;
		if (c == delim) {
			*pp = p;
			return 0;
		}
		if (c == '\\') {
			if (*p == '\0')
				return -1;
			p++; /* an escaped newline is part of the text */
		} else if (c == '[' && regex && sed_bracket(&p) == -1)
			return -1;
	}
}

static bool
sed_delim_ok(char c)
{
	return c != '\0' && c != '\n' && (unsigned char)c < 0x80;
}

/* compile_address(): 1 when an address was read, 0 when none, -1 */
static int
sed_addr(const char **pp)
{
	const char *p = *pp;
	char d = *p;

	if (d == '/' || d == '\\') {
		if (d == '\\')
			d = *++p;
		if (!sed_delim_ok(d))
			return -1;
		p++;
		if (sed_slash(&p, d, true) == -1)
			return -1;
		for (;;) {
			sed_blanks(&p);
			if (*p != 'I' && *p != 'M')
				break;
			p++;
		}
	} else if (is_digit(d) || d == '+' || d == '~') {
		if (!is_digit(d))
			p++;
		sed_blanks(&p);
		while (is_digit(*p))
			p++;
		sed_blanks(&p);
		if (is_digit(d) && *p == '~') {
			p++;
			sed_blanks(&p);
			while (is_digit(*p))
				p++;
		}
	} else if (d == '$')
		p++;
	else
		return 0;
	*pp = p;
	return 1;
}

/* read_end_of_cmd() */
static int
sed_end(const char **p)
{
	sed_blanks(p);
	if (**p == '\n' || **p == ';')
		(*p)++;
	else if (**p != '\0' && **p != '}' && **p != '#')
		return -1;
	return 0;
}

/* read_label(): to a blank, ; } # or the end of the line */
static void
sed_label(const char **p)
{
	sed_blanks(p);
	while (**p != '\0' && strchr("\n \t;}#", **p) == NULL)
		(*p)++;
}

/* mark_subst_opts() */
static int
sed_sflags(const char **p, struct kb_err *e)
{
	for (;;) {
		sed_blanks(p);
		switch (**p) {
		case 'e':
			return kb_err_set(e, "sed s///e runs a command");
		case 'w':
			return kb_err_set(e, "sed s///w writes a file");
		case 'i':
		case 'I':
		case 'm':
		case 'M':
		case 'p':
		case 'g':
			(*p)++;
			break;
		case '\n':
		case ';':
			(*p)++;
			return 0;
		case '\0':
		case '}':
		case '#':
			return 0;
		default:
			if (!is_digit(**p))
				return kb_err_set(
				    e, "sed script not understood");
			while (is_digit(**p))
				(*p)++;
			break;
		}
	}
}

int
kb_ro_sed_script(const char *p, struct kb_err *e)
{
	int depth = 0, r;
	char c, d;

	for (;;) {
		while (*p == ';' || *p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (*p == '\0')
			break;
		if (*p == '#') {
			while (*p != '\0' && *p != '\n')
				p++;
			continue;
		}
		if ((r = sed_addr(&p)) == -1)
			goto bad;
		if (r == 1) {
			sed_blanks(&p);
			if (*p == ',') {
				p++;
				sed_blanks(&p);
				if (sed_addr(&p) != 1)
					goto bad;
				sed_blanks(&p);
			}
		}
		if (*p == '!') {
			p++;
			sed_blanks(&p);
		}
		if ((c = *p) == '\0')
			goto bad;
		p++;
		switch (c) {
		case '{':
			depth++;
			break;
		case '}':
			if (--depth < 0 || sed_end(&p) == -1)
				goto bad;
			break;
		case '=':
		case 'd':
		case 'D':
		case 'F':
		case 'g':
		case 'G':
		case 'h':
		case 'H':
		case 'n':
		case 'N':
		case 'p':
		case 'P':
		case 'x':
		case 'z':
			if (sed_end(&p) == -1)
				goto bad;
			break;
		case 'l':
		case 'L':
		case 'q':
		case 'Q':
			sed_blanks(&p);
			while (is_digit(*p))
				p++;
			if (sed_end(&p) == -1)
				goto bad;
			break;
		case ':':
		case 'b':
		case 't':
		case 'T':
		case 'v':
			sed_label(&p);
			break;
		case 'a':
		case 'i':
		case 'c':
			/* read_text(): to the first unescaped newline */
			while (*p != '\0' && *p != '\n') {
				if (*p == '\\' && p[1] != '\0')
					p++;
				p++;
			}
			break;
		case 'r':
		case 'R':
			/* the file name runs to the end of the line */
			while (*p != '\0' && *p != '\n')
				p++;
			break;
		case 's':
		case 'y':
			/* the delimiter is the very next byte, even a blank */
			d = *p;
			if (!sed_delim_ok(d))
				goto bad;
			p++;
			if (sed_slash(&p, d, c == 's') == -1 ||
			    sed_slash(&p, d, false) == -1)
				goto bad;
			if (c == 's') {
				if (sed_sflags(&p, e) == -1)
					return -1;
			} else if (sed_end(&p) == -1)
				goto bad;
			break;
		case 'e':
			return kb_err_set(e, "sed e runs a command");
		case 'w':
		case 'W':
			return kb_err_set(e, "sed %c writes a file", c);
		default:
			goto bad;
		}
	}
	if (depth != 0)
		goto bad;
	return 0;
bad:
	return kb_err_set(e, "sed script not understood");
}
