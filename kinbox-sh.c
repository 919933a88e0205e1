/*
 * kinbox-sh — an sh-compatible shim for the tools that take a shell
 * ($SHELL, make SHELL=, an agent's --test-cmd, an editor's terminal):
 *   kinbox-sh [-exul]... -c CMD [ARG0 [ARG...]]
 *     → kinbox [$KINBOX_SH_FLAGS] -- /bin/sh [-e -x -u] -c CMD [ARG0 ...]
 *   kinbox-sh [-exu]... SCRIPT [ARG...] → kinbox -- /bin/sh SCRIPT ARG...
 *   kinbox-sh                           → kinbox -- /bin/sh [-i on a tty]
 * It execs kinbox (no fork): the exit status is kinbox's. It quotes
 * nothing and reads no shell syntax: each word reaches /bin/sh as it came.
 * libc only and static, as kinbox-exec: it starts once per shell command.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KB_SH_EXIT_ERROR    125 /* kinbox-sh's own: nothing was run */
#define KB_SH_EXIT_NOEXEC   126
#define KB_SH_EXIT_NOTFOUND 127

static const char usage_hint[] = "kinbox-sh takes sh's -c CMD (and -e, -x, -u)";

static void __attribute__((noreturn, format(printf, 2, 3)))
die(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("kinbox-sh: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

/* a word list that only grows; kinbox-sh execs or exits, never frees */
struct words {
	char **v;
	size_t n, cap;
};

static void
push(struct words *w, const char *s)
{
	if (w->n + 2 > w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 32;
		char **v = realloc(w->v, cap * sizeof(*v));

		if (v == NULL)
			die(KB_SH_EXIT_ERROR, "out of memory");
		w->v = v;
		w->cap = cap;
	}
	w->v[w->n++] = (char *)s;
	w->v[w->n] = NULL;
}

/*
 * KINBOX_SH_FLAGS: kinbox options, split at blanks (no quoting). Each word
 * must start with '-' and may not be "--": a word that is not an option
 * would end kinbox's options and become the command it runs (getopt's
 * "+" rule), so a value is joined to its option (--write=/x, -w/x).
 */
static void
push_flags(struct words *w, const char *env)
{
	char *copy, *save = NULL, *word;

	if (env == NULL)
		return;
	if ((copy = strdup(env)) == NULL)
		die(KB_SH_EXIT_ERROR, "out of memory");
	for (word = strtok_r(copy, " \t\n", &save); word != NULL;
	     word = strtok_r(NULL, " \t\n", &save)) {
		if (word[0] != '-' || word[1] == '\0')
			die(KB_SH_EXIT_ERROR,
			    "KINBOX_SH_FLAGS: '%s' is not an option; give "
			    "kinbox options only, a value joined to its option "
			    "(--write=/x)",
			    word);
		if (strcmp(word, "--") == 0)
			die(KB_SH_EXIT_ERROR,
			    "KINBOX_SH_FLAGS: '--' would end kinbox's options "
			    "there; give kinbox options only");
		push(w, word);
	}
}

/* the kinbox beside this program (make install puts both in BINDIR), or
 * NULL: then kinbox on PATH */
static char *
kinbox_beside_self(void)
{
	static char self[PATH_MAX + sizeof("/kinbox")];
	ssize_t n = readlink("/proc/self/exe", self, PATH_MAX);
	char *slash;

	if (n <= 0 || n >= PATH_MAX)
		return NULL;
	self[n] = '\0';
	if ((slash = strrchr(self, '/')) == NULL)
		return NULL;
	strcpy(slash + 1, "kinbox");
	return access(self, F_OK) == 0 ? self : NULL;
}

int
main(int argc, char **argv)
{
	struct words w = {0};
	const char *shopts[8]; /* -e, -x, -u in the order given */
	size_t nshopts = 0;
	bool cmd = false;
	int i;
	char *kinbox;

	/* sh's option words: a cluster of c, e, x, u and l (-ec, -lc, -e -c);
	 * "--" or "-" ends them; +e and the like are not taken */
	for (i = 1; i < argc && (argv[i][0] == '-' || argv[i][0] == '+') &&
		    argv[i][1] != '\0';
	     i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		if (argv[i][0] == '+')
			die(KB_SH_EXIT_ERROR, "%s: unsupported option; %s",
			    argv[i], usage_hint);
		for (const char *p = argv[i] + 1; *p != '\0'; p++) {
			switch (*p) {
			case 'c':
				cmd = true;
				break;
			case 'e':
			case 'x':
			case 'u':
				if (nshopts < sizeof(shopts) / sizeof(*shopts))
					shopts[nshopts++] = *p == 'e'   ? "-e"
							    : *p == 'x' ? "-x"
									: "-u";
				break;
			case 'l':
				/* a login shell reads the profile files;
				 * the sandboxed sh is never one (man page) */
				break;
			default:
				die(KB_SH_EXIT_ERROR,
				    "-%c: unsupported option; %s", *p,
				    usage_hint);
			}
		}
	}
	if (i < argc && strcmp(argv[i], "-") == 0 &&
	    (i == 1 || strcmp(argv[i - 1], "--") != 0))
		i++;
	if (cmd && i >= argc)
		die(KB_SH_EXIT_ERROR, "-c: a command string is needed; %s",
		    usage_hint);

	push(&w, "kinbox");
	push_flags(&w, getenv("KINBOX_SH_FLAGS"));
	push(&w, "--");
	push(&w, "/bin/sh");
	for (size_t k = 0; k < nshopts; k++)
		push(&w, shopts[k]);
	if (cmd)
		push(&w, "-c");
	else if (i >= argc && isatty(STDIN_FILENO))
		push(&w, "-i");
	/* an operand that looks like an option is sh's operand still */
	if (i < argc && argv[i][0] == '-')
		push(&w, "--");
	for (; i < argc; i++)
		push(&w, argv[i]);

	if ((kinbox = kinbox_beside_self()) != NULL) {
		execv(kinbox, w.v);
		die(errno == ENOENT ? KB_SH_EXIT_NOTFOUND : KB_SH_EXIT_NOEXEC,
		    "cannot run %s: %s; reinstall kinbox (make install)",
		    kinbox, strerror(errno));
	}
	execvp("kinbox", w.v);
	if (errno == ENOENT)
		die(KB_SH_EXIT_NOTFOUND,
		    "kinbox: not found beside kinbox-sh nor on PATH; install "
		    "kinbox (make install) or put it on PATH");
	die(KB_SH_EXIT_NOEXEC,
	    "cannot run kinbox from PATH: %s; reinstall "
	    "kinbox (make install)",
	    strerror(errno));
}
