/*
 * tests/unit/golden-harness.h — the harness of test-golden.c: the tree
 * helpers and the environment every case starts from, the normalising of
 * a plan into the golden text, the comparison with tests/golden/<case>.plan
 * (and the diff shown when they differ), and a plan built as kinbox.c
 * builds it (start, finish), as static functions. The cases are
 * test-golden.c's.
 */
#ifndef KB_GOLDEN_HARNESS_H
#define KB_GOLDEN_HARNESS_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../../backends/backend.h"
#include "../../gitguard/gitguard.h"
#include "../../profile/options.h"
#include "tap.h"

extern char **environ;

static char base[PATH_MAX];
static char golden_dir[PATH_MAX];
static bool update;

static const char bwrap_path[] = "/usr/bin/bwrap";
static const char helper_path[] = "/usr/libexec/kinbox/kinbox-exec";
static char cmd_make[] = "make", cmd_test[] = "test";
static char *cmd_argv[] = { cmd_make, cmd_test, NULL };

/* --- the tree ------------------------------------------------------------ */

static char *
at(const char *rel)
{
	return xasprintf("%s/%s", base, rel);
}

/* mkdir -p below base */
static void
mkd(const char *rel)
{
	_cleanup_free_ char *p = at(rel);

	if (kb_mkdirs(p, 0755, NULL) == -1)
		printf("# mkdir %s: %s\n", p, strerror(errno));
}

static void
mkf(const char *rel, const char *content)
{
	_cleanup_free_ char *p = at(rel);
	int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);

	if (fd == -1 || write(fd, content, strlen(content)) !=
	    (ssize_t)strlen(content))
		printf("# write %s: %s\n", p, strerror(errno));
	if (fd != -1)
		close(fd);
}

static void
mkl(const char *rel, const char *target)
{
	_cleanup_free_ char *p = at(rel);

	if (symlink(target, p) == -1)
		printf("# symlink %s: %s\n", p, strerror(errno));
}

/* a unix socket file, as an agent leaves it */
static void
mksock(const char *rel)
{
	_cleanup_free_ char *p = at(rel);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (strlen(p) >= sizeof(sa.sun_path)) {
		printf("# socket path too long: %s\n", p);
		if (fd != -1)
			close(fd);
		return;
	}
	memcpy(sa.sun_path, p, strlen(p) + 1);
	if (fd == -1 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1)
		printf("# socket %s: %s\n", p, strerror(errno));
	if (fd != -1)
		close(fd);
}

/* a repository as git init leaves it, with or without hooks and config */
static void
mkrepo(const char *rel, bool hooks)
{
	_cleanup_free_ char *git = xasprintf("%s/.git", rel);
	_cleanup_free_ char *head = xasprintf("%s/.git/HEAD", rel);
	_cleanup_free_ char *obj = xasprintf("%s/.git/objects", rel);
	_cleanup_free_ char *refs = xasprintf("%s/.git/refs/heads", rel);
	_cleanup_free_ char *hk = xasprintf("%s/.git/hooks", rel);
	_cleanup_free_ char *hook = xasprintf("%s/.git/hooks/pre-commit", rel);
	_cleanup_free_ char *cfg = xasprintf("%s/.git/config", rel);

	mkd(git);
	mkf(head, "ref: refs/heads/main\n");
	mkd(obj);
	mkd(refs);
	if (hooks) {
		mkd(hk);
		mkf(hook, "#!/bin/sh\nexit 0\n");
		mkf(cfg, "[core]\n\trepositoryformatversion = 0\n");
	}
}

/* The process environment every case starts from: the plan's envp is
 * this environ, and finalize and the masks read it with getenv. */
static void
reset_env(void)
{
	_cleanup_free_ char *home = at("home");
	_cleanup_free_ char *xdg = at("home/.config");
	_cleanup_free_ char *run = at("run/user/1000");

	clearenv();
	setenv("PATH", "/usr/bin:/bin", 1);
	setenv("HOME", home, 1);
	setenv("LANG", "C.UTF-8", 1);
	setenv("TERM", "xterm", 1);
	setenv("TMPDIR", "/tmp", 1);
	setenv("XDG_CONFIG_HOME", xdg, 1);
	setenv("XDG_RUNTIME_DIR", run, 1);
	/* secrets the scrub removes, and a forged sandbox marker */
	setenv("GITHUB_TOKEN", "ghp_golden", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "golden", 1);
	setenv("KINBOX_ACTIVE", "forged", 1);
}

/* --- normalising a plan into the golden text ------------------------------ */

/* `s` with the volatile parts replaced: the temp tree, the uid */
static char *
subst(const char *s)
{
	struct kb_buf b = { 0 };
	char uidrun[64];
	size_t bl = strlen(base), ul;

	snprintf(uidrun, sizeof(uidrun), "/run/user/%u", (unsigned)getuid());
	ul = strlen(uidrun);
	kb_buf_puts(&b, "");
	while (*s != '\0') {
		if (strncmp(s, base, bl) == 0) {
			kb_buf_puts(&b, "@BASE@");
			s += bl;
		} else if (strncmp(s, uidrun, ul) == 0 &&
		    (s[ul] == '\0' || s[ul] == '/')) {
			kb_buf_puts(&b, "/run/user/@UID@");
			s += ul;
		} else {
			kb_buf_add(&b, s, 1);
			s++;
		}
	}
	return b.s;
}

/* a path the test laid out, or one every plan has: the rest is the host's
 * and differs between machines */
static bool
stable_path(const char *path)
{
	static const char *const fixed[] = { "/", "/dev", "/dev/shm", "/proc",
		"/tmp" };

	if (kb_path_within(path, base))
		return true;
	for (size_t i = 0; i < nitems(fixed); i++)
		if (strcmp(path, fixed[i]) == 0)
			return true;
	return false;
}

static int
arity(const char *opt, bool helper)
{
	static const struct {
		const char *opt;
		int n;
	} bw[] = {
		{ "--cap-drop", 1 }, { "--ro-bind", 2 }, { "--bind", 2 },
		{ "--dev", 1 }, { "--proc", 1 }, { "--tmpfs", 1 },
		{ "--perms", 1 }, { "--size", 1 }, { "--ro-bind-data", 2 },
		{ "--dir", 1 },
		{ "--remount-ro", 1 }, { "--chdir", 1 }, { "--seccomp", 1 },
	}, kx[] = {
		{ "--close-fds", 2 }, { "--check", 2 }, { "--deny-read", 1 },
		{ "--late", 1 }, { "--wait", 1 },
		/* the landlock backend's */
		{ "--landlock", 1 }, { "--seccomp", 1 }, { "--chdir", 1 },
		{ "--write-fd", 1 }, { "--write", 1 }, { "--dev", 1 },
		{ "--allow-read", 1 },
		/* the unix-socket supervisor's */
		{ "--unotify", 2 }, { "--own", 1 }, { "--proxy", 1 },
	};

	if (!helper) {
		for (size_t i = 0; i < nitems(bw); i++)
			if (strcmp(opt, bw[i].opt) == 0)
				return bw[i].n;
	} else {
		for (size_t i = 0; i < nitems(kx); i++)
			if (strcmp(opt, kx[i].opt) == 0)
				return kx[i].n;
	}
	return 0;
}

/* one option with its arguments (and a --perms or --size before it), as
 * lines */
struct group {
	struct kb_strv lines;
	const char *op;     /* the option (borrowed from the plan) */
	const char *target; /* the path it mounts or names, or NULL */
	bool helper;        /* an argument of kinbox-exec */
	bool plain_src;     /* a bind whose source is a path, not an fd */
};

/* an argv element as the golden text shows it */
static char *
show_arg(const struct kb_plan *pl, size_t i)
{
	const char *a = pl->argv.v[i];
	const char *prev = i > 0 ? pl->argv.v[i - 1] : "";
	const char *prev2 = i > 1 ? pl->argv.v[i - 2] : "";
	_cleanup_free_ char *s = NULL;
	struct kb_buf b = { 0 };
	char *end;
	long fd;

	/* a bind source passed as a descriptor: its number depends on what
	 * the process has open; named by its rank, with what it is */
	if (strncmp(a, "/proc/self/fd/", 14) == 0) {
		fd = strtol(a + 14, &end, 10);
		if (*end == '\0' && fd >= pl->pass_base &&
		    fd < pl->pass_base + (long)pl->npass) {
			_cleanup_free_ char *what =
			    subst(pl->pass_path.v[fd - pl->pass_base]);

			kb_buf_printf(&b, "/proc/self/fd/@PASS%ld@  # ",
			    fd - pl->pass_base);
			kb_buf_escape(&b, what);
			return b.s;
		}
	}
	if (strcmp(prev, "--write-fd") == 0) {
		fd = strtol(a, &end, 10);
		if (*end == '\0' && fd >= pl->pass_base &&
		    fd < pl->pass_base + (long)pl->npass) {
			_cleanup_free_ char *what =
			    subst(pl->pass_path.v[fd - pl->pass_base]);

			kb_buf_printf(&b, "@PASS%ld@  # ", fd - pl->pass_base);
			kb_buf_escape(&b, what);
			return b.s;
		}
	}
	if (strcmp(prev, "--close-fds") == 0 ||
	    strcmp(prev2, "--close-fds") == 0) {
		fd = strtol(a, &end, 10);
		if (*end == '\0' && fd >= pl->pass_base &&
		    fd < pl->pass_base + (long)pl->npass) {
			kb_buf_printf(&b, "@PASS%ld@", fd - pl->pass_base);
			return b.s;
		}
	}
	/* the inode a guard was scanned at */
	if (strcmp(prev2, "--check") == 0 && strcmp(a, "0:0") != 0)
		return xstrdup("@DEV:INO@");
	s = subst(a);
	kb_buf_puts(&b, "");
	kb_buf_shquote_visible(&b, s);
	return b.s;
}

static const char *
parent_end(const char *path)
{
	const char *slash = path != NULL ? strrchr(path, '/') : NULL;

	return slash;
}

/* Read-only binds of plain paths at sibling paths: the files --ssh-agent
 * shows from ~/.ssh, in the order the directory was read in, which
 * differs between filesystems. Siblings do not cover each other, so
 * sorting them changes nothing bwrap does. (The guards' binds, from
 * descriptors, are sorted by the planner already.) */
static bool
siblings(const struct group *a, const struct group *b)
{
	const char *ea = parent_end(a->target), *eb = parent_end(b->target);

	return !a->helper && !b->helper && a->plain_src && b->plain_src &&
	    ea != NULL && eb != NULL && strcmp(a->op, "--ro-bind") == 0 &&
	    strcmp(b->op, "--ro-bind") == 0 &&
	    ea - a->target == eb - b->target &&
	    strncmp(a->target, b->target, (size_t)(ea - a->target)) == 0;
}

static int
by_target(const void *x, const void *y)
{
	const struct group *a = x, *b = y;

	return strcmp(a->target, b->target);
}

static int
by_string(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static void
render_argv(const struct kb_plan *pl, struct kb_buf *out)
{
	struct group *g = xcalloc(pl->argv.n + 1, sizeof(*g));
	size_t ng = 0, i = 0;
	int phase = 0; /* 0 bwrap, 1 kinbox-exec, 2 the command */
	struct kb_strv perms = { 0 };

	/* the landlock backend runs kinbox-exec itself: its name and
	 * descriptors, then its options */
	if (pl->backend == KB_BACKEND_LANDLOCK) {
		for (; i < 3 && i < pl->argv.n; i++) {
			_cleanup_free_ char *s = show_arg(pl, i);

			kb_strv_push(&g[0].lines, s);
		}
		g[0].op = pl->argv.v[0];
		g[0].helper = true;
		ng = 1;
		phase = 1;
	}

	while (i < pl->argv.n) {
		const char *a = pl->argv.v[i];
		struct group *cur = &g[ng];
		int n;

		memset(cur, 0, sizeof(*cur));
		cur->op = a;
		cur->helper = phase == 1;
		if (phase == 2) {
			_cleanup_free_ char *s = show_arg(pl, i);

			kb_strv_push(&cur->lines, s);
			ng++;
			i++;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			kb_strv_push(&cur->lines, phase == 0 ?
			    "--\n# kinbox-exec, its descriptors and options" :
			    "--\n# the command");
			ng++;
			i++;
			if (phase == 0) {
				/* the helper, its status and stderr fds */
				for (int k = 0; k < 3 && i < pl->argv.n; k++, i++) {
					_cleanup_free_ char *s = show_arg(pl, i);
					char *l = xasprintf("%s%s",
					    k == 0 ? "" : "  ", s);

					kb_strv_push(&g[ng - 1].lines, l);
					free(l);
				}
			}
			phase++;
			continue;
		}
		n = arity(a, phase == 1);
		for (size_t k = 0; k < perms.n; k++)
			kb_strv_push(&cur->lines, perms.v[k]);
		kb_strv_free(&perms);
		kb_strv_push(&cur->lines, a);
		for (int k = 1; k <= n && i + (size_t)k < pl->argv.n; k++) {
			_cleanup_free_ char *s = show_arg(pl, i + (size_t)k);
			char *l = xasprintf("  %s", s);

			kb_strv_push(&cur->lines, l);
			free(l);
		}
		/* what it mounts: the last argument, the first for --check
		 * and --deny-read; none for options without a path */
		if (n > 0 && i + (size_t)n < pl->argv.n) {
			const char *t = strcmp(a, "--check") == 0 ?
			    pl->argv.v[i + 1] : pl->argv.v[i + (size_t)n];

			if (t[0] == '/')
				cur->target = t;
			cur->plain_src = n == 2 && pl->argv.v[i + 1][0] == '/' &&
			    strncmp(pl->argv.v[i + 1], "/proc/self/fd/", 14) != 0;
		}
		i += 1 + (size_t)n;
		if (strcmp(a, "--perms") == 0 || strcmp(a, "--size") == 0) {
			/* a modifier of the next mount: kept with it */
			for (size_t k = 0; k < cur->lines.n; k++)
				kb_strv_push(&perms, cur->lines.v[k]);
			kb_strv_free(&cur->lines);
			continue;
		}
		if (cur->target != NULL && strcmp(a, "--chdir") != 0 &&
		    !stable_path(cur->target)) {
			kb_strv_free(&cur->lines); /* the host's: left out */
			continue;
		}
		ng++;
	}
	kb_strv_free(&perms);
	for (size_t s = 0; s < ng;) {
		size_t e = s + 1;

		while (g[s].target != NULL && e < ng && g[e].target != NULL &&
		    siblings(&g[s], &g[e]))
			e++;
		if (e - s > 1)
			qsort(&g[s], e - s, sizeof(*g), by_target);
		s = e;
	}
	for (size_t k = 0; k < ng; k++) {
		for (size_t l = 0; l < g[k].lines.n; l++) {
			kb_buf_puts(out, g[k].lines.v[l]);
			kb_buf_puts(out, "\n");
		}
		kb_strv_free(&g[k].lines);
	}
	free(g);
}

/* "mask: /path (...)": the path; NULL for other notes */
static char *
note_mask_path(const char *note)
{
	const char *p, *end;

	if (strncmp(note, "mask: ", 6) != 0)
		return NULL;
	p = note + 6;
	end = strstr(p, " (");
	return end != NULL ? strndup(p, (size_t)(end - p)) : NULL;
}

static void
render_notes(const struct kb_plan *pl, struct kb_buf *out)
{
	struct kb_strv v = { 0 };
	size_t deny = 0;

	/* the --deny-read paths of the tree, which the golden text keeps */
	for (size_t i = 0; i + 1 < pl->argv.n; i++)
		if (strcmp(pl->argv.v[i], "--deny-read") == 0 &&
		    stable_path(pl->argv.v[i + 1]))
			deny++;

	for (size_t i = 0; i < pl->notes.n; i++) {
		const char *n = pl->notes.v[i];
		_cleanup_free_ char *mp = note_mask_path(n);
		_cleanup_free_ char *s = NULL;
		struct kb_buf b = { 0 };

		if (mp != NULL && !stable_path(mp))
			continue;
		if (strncmp(n, "landlock: the ", 14) == 0 &&
		    strstr(n, " masked credential paths") != NULL) {
			/* it counts the host's masks too: said with the
			 * count of those left in, or not at all */
			const char *rest = strstr(n, " masked credential paths");

			if (deny == 0)
				continue;
			s = xasprintf("landlock: the %zu%s", deny, rest);
		} else {
			s = subst(n);
		}
		kb_buf_puts(&b, "");
		kb_buf_escape(&b, s);
		kb_strv_push(&v, b.s);
		kb_buf_free(&b);
	}
	/* the guards and the files --ssh-agent shows are sets, found in
	 * the order directories are read in, which the filesystem decides */
	for (size_t s = 0; s < v.n;) {
		size_t e = s + 1;
		bool guards = strncmp(v.v[s], "git guard: ", 11) == 0;
		bool shown = strstr(v.v[s], " (shown read-only)") != NULL;

		while ((guards || shown) && e < v.n &&
		    (guards ? strncmp(v.v[e], "git guard: ", 11) == 0 :
			      strstr(v.v[e], " (shown read-only)") != NULL))
			e++;
		if (e - s > 1)
			qsort(&v.v[s], e - s, sizeof(char *), by_string);
		s = e;
	}
	for (size_t i = 0; i < v.n; i++) {
		kb_buf_puts(out, v.v[i]);
		kb_buf_puts(out, "\n");
	}
	kb_strv_free(&v);
}

static char *
golden_text(const char *name, const char *what, const struct kb_plan *pl)
{
	struct kb_buf b = { 0 };

	kb_buf_printf(&b, "# golden plan %s: %s\n", name, what);
	kb_buf_puts(&b, "# Built by tests/unit/test-golden.c; `make golden-update` "
	    "rewrites it. Review a\n"
	    "# change like code. @BASE@: the test's temp tree. "
	    "/proc/self/fd/@PASSn@: the\n"
	    "# n-th bind source kinbox opened and passes as a descriptor "
	    "(what it is\n"
	    "# follows the #). @DEV:INO@: the inode a guard was scanned at. "
	    "Mounts of\n"
	    "# host paths outside the tree (/run, the passwd home's "
	    "credentials,\n"
	    "# resolv.conf) differ between machines and are left out, "
	    "also from the\n"
	    "# notes; sibling files shown from ~/.ssh are sorted.\n");
	kb_buf_puts(&b, "[argv]\n");
	render_argv(pl, &b);
	kb_buf_puts(&b, "[env]\n");
	for (size_t i = 0; i < pl->envp.n; i++) {
		_cleanup_free_ char *s = subst(pl->envp.v[i]);

		kb_buf_escape(&b, s);
		kb_buf_puts(&b, "\n");
	}
	kb_buf_puts(&b, "[notes]\n");
	render_notes(pl, &b);
	return b.s;
}

/* --- comparing ------------------------------------------------------------ */

static void
split_lines(const char *s, struct kb_strv *out)
{
	while (*s != '\0') {
		size_t n = strcspn(s, "\n");
		char *l = strndup(s, n);

		kb_strv_push(out, l);
		free(l);
		s += n;
		if (*s == '\n')
			s++;
	}
}

/* A unified-diff-like hint (want -> got) from the longest common
 * subsequence of the lines, with two lines of context; the files are a
 * few hundred lines at most. */
static void
print_diff(const char *want, const char *got)
{
	struct kb_strv a = { 0 }, b = { 0 };
	size_t n, m, i = 0, j = 0, ne = 0, shown = 0, prev = 0;
	unsigned *t;
	char *op; /* ' ', '-', '+' for each step of the edit script */
	const char **line;

	split_lines(want, &a);
	split_lines(got, &b);
	n = a.n;
	m = b.n;
	t = xcalloc((n + 1) * (m + 1), sizeof(*t));
	op = xcalloc(n + m + 1, 1);
	line = xcalloc(n + m + 1, sizeof(*line));
#define T(x, y) t[(x) * (m + 1) + (y)]
	for (size_t x = n; x-- > 0;)
		for (size_t y = m; y-- > 0;)
			T(x, y) = strcmp(a.v[x], b.v[y]) == 0 ?
			    T(x + 1, y + 1) + 1 :
			    (T(x + 1, y) > T(x, y + 1) ? T(x + 1, y) :
							 T(x, y + 1));
	while (i < n || j < m) {
		if (i < n && j < m && strcmp(a.v[i], b.v[j]) == 0) {
			op[ne] = ' ';
			line[ne++] = a.v[i];
			i++;
			j++;
		} else if (j < m && (i == n || T(i, j + 1) >= T(i + 1, j))) {
			op[ne] = '+';
			line[ne++] = b.v[j++];
		} else {
			op[ne] = '-';
			line[ne++] = a.v[i++];
		}
	}
#undef T
	printf("#   --- want (golden file)\n#   +++ got\n");
	for (size_t k = 0; k < ne && shown < 80; k++) {
		bool near = op[k] != ' ';

		for (size_t d = 1; d <= 2 && !near; d++)
			near = (k >= d && op[k - d] != ' ') ||
			    (k + d < ne && op[k + d] != ' ');
		if (!near)
			continue;
		if (shown > 0 && k != prev + 1)
			printf("#   ...\n");
		printf("#   %c%s\n", op[k], line[k]);
		prev = k;
		shown++;
	}
	if (shown >= 80)
		printf("#   ... (more)\n");
	free(t);
	free(op);
	free(line);
	kb_strv_free(&a);
	kb_strv_free(&b);
}

/* tests/golden/<name><suffix> against `got` (rewritten when updating) */
static void
compare_file(const char *name, const char *suffix, const char *got)
{
	_cleanup_free_ char *path =
	    xasprintf("%s/%s%s", golden_dir, name, suffix);
	_cleanup_free_ char *want = NULL;

	if (strstr(got, base) != NULL)
		ok(0, "%s: the temp tree's path is left in the text", name);
	if (update) {
		_cleanup_free_ char *tmp = xasprintf("%s.tmp", path);
		FILE *f = fopen(tmp, "we");
		bool w = f != NULL && fputs(got, f) != EOF;

		if (f != NULL && fclose(f) != 0)
			w = false;
		ok(w && rename(tmp, path) == 0, "%s: %s written", name, path);
		return;
	}
	want = kb_read_small_file(path, 1 << 20);
	if (want == NULL) {
		ok(0, "%s: %s: %s; run make golden-update and review the new "
		    "file", name, path, strerror(errno));
		return;
	}
	ok(strcmp(want, got) == 0, "%s: the plan matches %s", name, path);
	if (strcmp(want, got) != 0) {
		print_diff(want, got);
		printf("#   if the change is intended: make golden-update, "
		    "then review git diff tests/golden\n");
	}
}

static void
compare(const char *name, const char *got)
{
	compare_file(name, ".plan", got);
}

/* --- the seatbelt backend ------------------------------------------------- */

/* The host every seatbelt case plans for: macOS's canonical /tmp and
 * /var/tmp, a fixed run tag; the agent's socket is the policy's. */
static struct kb_seatbelt_host sb_host = {
	.tmp = "/private/tmp",
	.var_tmp = "/private/var/tmp",
	.ssh_sock = NULL,
	.run_tag = "kinbox-golden",
	.run_tmp = "/private/tmp/kinbox-501/run.golden",
};

/*
 * The seatbelt plan of `p`. The profile's shape counts the masks, and the
 * host's own (/run, the passwd home's credentials) differ between
 * machines: only the masks in the tree are planned (moved to the front,
 * the others after the count, restored after).
 */
static int
sb_plan(struct kb_policy *p, struct kb_plan *pl, struct kb_err *e)
{
	struct kb_mask keep[KB_MAX_MASK], rest[KB_MAX_MASK];
	size_t nk = 0, nr = 0, all = p->nmask;
	int rc;

	for (size_t i = 0; i < p->nmask; i++) {
		if (stable_path(p->mask[i].path) && strcmp(p->mask[i].path,
		    "/") != 0 && strcmp(p->mask[i].path, "/tmp") != 0)
			keep[nk++] = p->mask[i];
		else
			rest[nr++] = p->mask[i];
	}
	memcpy(p->mask, keep, nk * sizeof(*keep));
	memcpy(p->mask + nk, rest, nr * sizeof(*rest));
	p->nmask = nk;
	sb_host.ssh_sock = NULL;
	for (size_t i = 0; i < p->nmask; i++)
		if (p->mask[i].kind == KB_EXPOSE_SOCKET &&
		    p->mask[i].by == KB_OPT_SSH_AGENT)
			sb_host.ssh_sock = p->mask[i].path;
	rc = kb_seatbelt_plan(p, &sb_host, KB_SANDBOX_EXEC, environ, pl, e);
	p->nmask = all;
	return rc;
}

/* the parameters as the golden text shows them: one a line, the tree
 * named @BASE@, escaped */
static char *
sb_params_text(const struct kb_plan *pl)
{
	struct kb_buf b = { 0 };

	kb_buf_puts(&b, "");
	for (size_t i = 0; i < pl->params.n; i++) {
		_cleanup_free_ char *s = subst(pl->params.v[i]);

		kb_buf_escape(&b, s);
		kb_buf_puts(&b, "\n");
	}
	return b.s;
}

/* --- building a plan as kinbox.c does ------------------------------------ */

struct run {
	const char *name, *what;
	const char *cwd;       /* below base: where kinbox starts */
	struct kb_host host;
	char **argv;
	enum kb_backend_kind backend; /* KB_BACKEND_AUTO: bwrap */
	const char *refused;          /* the plan must fail, saying this */
};

/* switches typed on the command line: kinbox.c applies them after the
 * config layers and before the project file (rank order) */
static struct {
	enum kb_opt id;
	const char *value, *where;
} typed[8];
static size_t ntyped;

/* a flag with its value (--allow-socket PATH), as typed */
static void
type_value(enum kb_opt id, const char *value, const char *where)
{
	typed[ntyped].id = id;
	typed[ntyped].value = value;
	typed[ntyped].where = where;
	ntyped++;
}

static void
type_switch(enum kb_opt id, const char *where)
{
	type_value(id, "on", where);
}

static int
plan_case(struct kb_policy *p, const struct run *r, struct kb_plan *pl,
    struct kb_err *e)
{
	_cleanup_free_ char *etc = at("etc/kinbox");
	size_t n = ntyped;

	ntyped = 0;
	p->argv = r->argv != NULL ? r->argv : cmd_argv;
	if (kb_policy_resolve_workspace(p, e) == -1 ||
	    kb_config_load_layers(p, etc, NULL, e) == -1)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct kb_src src = { KB_ORIGIN_FLAG, typed[i].where };

		if (kb_option_set(p, typed[i].id, typed[i].value, &src, e) == -1)
			return -1;
	}
	if (kb_config_load_project(p, NULL, e) == -1 ||
	    kb_config_check_stores(p, etc, e) == -1 ||
	    kb_policy_finalize(p, e) == -1 ||
	    kb_gitguard_scan_roots(p, e) == -1 ||
	    kb_config_check_stores(p, etc, e) == -1)
		return -1;
	if (r->backend == KB_BACKEND_SEATBELT)
		return sb_plan(p, pl, e);
	if (r->backend == KB_BACKEND_LANDLOCK)
		return kb_landlock_plan(p, &r->host, helper_path, -1,
		    KB_LANDLOCK_RUNDIR_TEMPLATE, -1, "as asked (golden)",
		    environ, pl, e);
	return kb_bwrap_plan(p, &r->host, bwrap_path, helper_path, -1, environ, pl,
	    e);
}

/* index of `a` followed by `b` in the raw argv, or -1 */
static long
find2(const struct kb_plan *pl, const char *a, const char *b)
{
	for (size_t i = 0; i + 1 < pl->argv.n; i++)
		if (strcmp(pl->argv.v[i], a) == 0 &&
		    strcmp(pl->argv.v[i + 1], b) == 0)
			return (long)i;
	return -1;
}

/* what every plan has, checked on the raw argv (the host's part too) */
static void
check_host_parts(const struct run *r, const struct kb_plan *pl,
    const struct kb_policy *p)
{
	struct stat st;
	long ws = -1;

	if (r->backend == KB_BACKEND_LANDLOCK) {
		if (lstat("/run", &st) == 0 && S_ISDIR(st.st_mode))
			ok(find2(pl, "--deny-read", "/run") > 0,
			    "%s: the host's /run is unreadable", r->name);
		ok(find2(pl, "--chdir", p->cwd) > 0 &&
		    find2(pl, "--seccomp", "3") > 0,
		    "%s: kinbox-exec gets the cwd and the filter", r->name);
		return;
	}
	for (size_t i = 0; i + 2 < pl->argv.n; i++)
		if (strcmp(pl->argv.v[i],
			p->read_only ? "--ro-bind" : "--bind") == 0 &&
		    strcmp(pl->argv.v[i + 2], p->workspace) == 0)
			ws = (long)i;
	if (lstat("/run", &st) == 0 && S_ISDIR(st.st_mode)) {
		long run = find2(pl, "--tmpfs", "/run");

		ok(run > 0 && run < ws, "%s: the host's /run is hidden, before "
		    "the workspace is bound", r->name);
	}
}

static void
finish(const struct run *r, struct kb_policy *p)
{
	struct kb_plan pl;
	struct kb_err e;

	if (plan_case(p, r, &pl, &e) == -1) {
		ok(r->refused != NULL && strstr(e.msg, r->refused) != NULL,
		    "%s: no plan: %s", r->name, e.msg);
		kb_policy_free(p);
		return;
	}
	if (r->refused != NULL) {
		ok(0, "%s: planned, but should be refused (%s)", r->name,
		    r->refused);
		kb_plan_free(&pl);
		kb_policy_free(p);
		return;
	}
	if (r->backend == KB_BACKEND_SEATBELT) {
		_cleanup_free_ char *params = sb_params_text(&pl);

		/* the exact profile: no path of the tree may be in it */
		compare_file(r->name, ".sb", pl.profile);
		compare_file(r->name, ".params", params);
		kb_plan_free(&pl);
		kb_policy_free(p);
		return;
	}
	{
		_cleanup_free_ char *text = golden_text(r->name, r->what, &pl);

		compare(r->name, text);
	}
	check_host_parts(r, &pl, p);
	kb_plan_free(&pl);
	kb_policy_free(p);
}

/* kb_policy_init, then cd where kinbox starts */
static bool
start(struct kb_policy *p, const char *cwd)
{
	_cleanup_free_ char *dir = at(cwd);

	kb_policy_init(p);
	if (chdir(dir) == -1) {
		ok(0, "cd %s: %s", dir, strerror(errno));
		return false;
	}
	return true;
}

static bool
setter(int rc, const char *what, const struct kb_err *e)
{
	if (rc != 0)
		ok(0, "%s: %s", what, e->msg);
	return rc == 0;
}

#endif
