/*
 * kinbox-sh.c — kinbox-sh, an sh-compatible shim for the tools that take a
 * shell ($SHELL, make SHELL=, an agent's --test-cmd, an editor's terminal):
 *   kinbox-sh [-exul]... -c CMD [ARG0 [ARG...]]
 *     → kinbox [$KINBOX_SH_FLAGS] -- /bin/sh [-e -x -u] -c CMD [ARG0 ...]
 *   kinbox-sh [-exu]... SCRIPT [ARG...] → kinbox -- /bin/sh SCRIPT ARG...
 *   kinbox-sh                           → kinbox -- /bin/sh [-i on a tty]
 *   kinbox-sh --claude-code SCRIPT      → Claude Code's shell prefix
 *                                          (CLAUDE_CODE_SHELL_PREFIX)
 * It execs kinbox (no fork): the exit status is kinbox's. It quotes
 * nothing and reads no shell syntax: each word reaches /bin/sh as it came.
 * libc only and static, as kinbox-exec: it starts once per shell command.
 *
 * As Claude Code's shell prefix it gets one argument, the script Claude
 * Code built for its shell ($SHELL): the shell snapshot sourced, the
 * model's command in eval '…', then `pwd -P >| /tmp/claude-XXXX-cwd`,
 * from which Claude Code takes the directory the next call starts in.
 * The script runs under kinbox with that shell, the workspace
 * CLAUDE_PROJECT_DIR when set; the cwd file, which the sandbox's private
 * /tmp would swallow, is written through a pipe kinbox keeps open
 * (--keep-fd, /dev/fd/N in its place) and copied to the host's file after
 * the run, when it is one absolute path. Claude Code wraps its hooks'
 * commands in the prefix too: a script that is exactly kinpolicy's hook
 * command (PATH/kinpolicy hook AGENT [--options]) runs beside the agent,
 * outside the sandbox, as the agent would run it; no Bash call of the
 * model's has that form (Claude Code always wraps it in eval).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
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

/* --- Claude Code's shell prefix ------------------------------------------ */

/* Is the script exactly kinpolicy's hook command: [PATH/]kinpolicy hook
 * AGENT [--option[=value]]..., plain words only? */
static bool
is_kinpolicy_hook(const char *s)
{
	const char *w[8];
	size_t n = 0;
	char buf[PATH_MAX + 256], *save = NULL, *t, *b;

	if (strlen(s) >= sizeof(buf))
		return false;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			(*p >= '0' && *p <= '9') || strchr("/._-=+ ", *p)))
			return false;
	strcpy(buf, s);
	for (t = strtok_r(buf, " ", &save); t != NULL && n < 8;
	     t = strtok_r(NULL, " ", &save))
		w[n++] = t;
	if (t != NULL || n < 3)
		return false;
	b = strrchr(w[0], '/');
	b = b != NULL ? b + 1 : (char *)w[0];
	if (strcmp(b, "kinpolicy") != 0 || strcmp(w[1], "hook") != 0)
		return false;
	for (size_t i = 3; i < n; i++)
		if (strncmp(w[i], "--", 2) != 0)
			return false;
	return true;
}

/* where the script ends in `pwd -P >| /tmp/claude-HEX-cwd`: the offset
 * of that path, else -1 */
static long
cwd_file_at(const char *s)
{
	static const char pre[] = "pwd -P >| /tmp/claude-";
	size_t n = strlen(s), i, k;

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
		n--;
	if (n < sizeof(pre) + 4 || memcmp(s + n - 4, "-cwd", 4) != 0)
		return -1;
	for (k = n - 4; k > 0 && strchr("0123456789abcdef", s[k - 1]) != NULL;
	     k--)
		;
	i = k - (sizeof(pre) - 1);
	if (k == n - 4 || k < sizeof(pre) - 1 ||
	    memcmp(s + i, pre, sizeof(pre) - 1) != 0)
		return -1;
	return (long)(i + sizeof("pwd -P >| ") - 1);
}

/* Claude Code pastes the session's env file (kinpolicy hook's "export
 * KINBOX_SESSION=ses_…") into the script, before the model's command, and
 * not into the prefix's environment: kinbox takes the session from there.
 * Only before the first "eval '" (the model's command is inside it, and
 * could name another session). */
static void
session_from_script(const char *s)
{
	static const char key[] = "export KINBOX_SESSION=";
	const char *end = strstr(s, "eval '"), *p, *last = NULL;
	char id[21];

	for (p = s; (p = strstr(p, key)) != NULL && (end == NULL || p < end);
	     p += sizeof(key) - 1)
		last = p + sizeof(key) - 1;
	if (last == NULL || end == NULL || strncmp(last, "ses_", 4) != 0 ||
	    strspn(last + 4, "0123456789abcdef") != 16)
		return;
	memcpy(id, last, 20);
	id[20] = '\0';
	setenv("KINBOX_SESSION", id, 1);
}

static pid_t child = -1;

static void
forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

static void __attribute__((noreturn))
claude_prefix(int argc, char **argv, char *kinbox)
{
	const char *script, *sh = getenv("SHELL");
	const char *proj = getenv("CLAUDE_PROJECT_DIR");
	struct words w = {0};
	char *mod = NULL, *target = NULL, fdarg[32], got[PATH_MAX + 2];
	int p[2] = {-1, -1}, st;
	long at;
	ssize_t n;

	if (argc != 3)
		die(KB_SH_EXIT_ERROR,
		    "--claude-code takes one argument, the script Claude Code "
		    "hands its shell prefix; set CLAUDE_CODE_SHELL_PREFIX to "
		    "'kinbox-sh --claude-code'");
	script = argv[2];
	if (is_kinpolicy_hook(script)) {
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		die(KB_SH_EXIT_NOEXEC, "cannot run /bin/sh: %s",
		    strerror(errno));
	}
	if (sh == NULL || sh[0] != '/' || access(sh, X_OK) == -1)
		sh = "/bin/bash";
	session_from_script(script);
	push(&w, "kinbox");
	push_flags(&w, getenv("KINBOX_SH_FLAGS"));
	if (proj != NULL && proj[0] == '/') {
		push(&w, "--workspace");
		push(&w, proj);
	}
	if ((at = cwd_file_at(script)) != -1) {
		size_t tl;

		if (pipe(p) == -1)
			die(KB_SH_EXIT_ERROR, "pipe: %s", strerror(errno));
		target = strdup(script + at);
		tl = strcspn(target, " \n");
		target[tl] = '\0';
		snprintf(fdarg, sizeof(fdarg), "--keep-fd=%d", p[1]);
		push(&w, fdarg);
		if ((mod = malloc(strlen(script) + 32)) == NULL)
			die(KB_SH_EXIT_ERROR, "out of memory");
		snprintf(mod, strlen(script) + 32, "%.*s/dev/fd/%d%s", (int)at,
		    script, p[1], script + at + tl);
		fcntl(p[0], F_SETFD, FD_CLOEXEC);
	}
	push(&w, "--");
	push(&w, sh);
	push(&w, "-c");
	push(&w, mod != NULL ? mod : script);
	if (mod == NULL) {
		execv(kinbox != NULL ? kinbox : "/usr/local/bin/kinbox", w.v);
		if (kinbox == NULL)
			execvp("kinbox", w.v);
		die(KB_SH_EXIT_NOTFOUND, "cannot run kinbox: %s",
		    strerror(errno));
	}
	signal(SIGINT, forward);
	signal(SIGTERM, forward);
	signal(SIGHUP, forward);
	signal(SIGQUIT, forward);
	if ((child = fork()) == -1)
		die(KB_SH_EXIT_ERROR, "fork: %s", strerror(errno));
	if (child == 0) {
		close(p[0]);
		if (kinbox != NULL)
			execv(kinbox, w.v);
		else
			execvp("kinbox", w.v);
		die(KB_SH_EXIT_NOTFOUND, "cannot run kinbox: %s",
		    strerror(errno));
	}
	close(p[1]);
	while (waitpid(child, &st, 0) == -1)
		if (errno != EINTR)
			die(KB_SH_EXIT_ERROR, "waitpid: %s", strerror(errno));
	/* what the run wrote, when it is one absolute path: a job it left
	 * behind may hold the pipe, so only what is there now */
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	n = read(p[0], got, sizeof(got) - 1);
	if (n > 1 && got[0] == '/') {
		got[n] = '\0';
		if (got[n - 1] == '\n')
			got[--n] = '\0';
		if (strcspn(got, "\n\r\t") == (size_t)n && n < PATH_MAX) {
			int fd = open(target,
			    O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
				O_CLOEXEC,
			    0600);

			if (fd != -1) {
				got[n] = '\n';
				if (write(fd, got, (size_t)n + 1) == -1)
					n = 0;
				close(fd);
			}
		}
	}
	if (WIFSIGNALED(st)) {
		signal(WTERMSIG(st), SIG_DFL);
		raise(WTERMSIG(st));
		exit(128 + WTERMSIG(st));
	}
	exit(WEXITSTATUS(st));
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

	if (argc >= 2 && strcmp(argv[1], "--claude-code") == 0)
		claude_prefix(argc, argv, kinbox_beside_self());
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
