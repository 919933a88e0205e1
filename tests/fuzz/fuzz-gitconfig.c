/*
 * tests/fuzz/fuzz-gitconfig.c — libFuzzer target: the git config reader
 * (gitguard/gitconfig.c) on arbitrary bytes, NULs and all. Besides "no
 * crash, no leak, no hang" it checks what the guards rely on, and aborts
 * when it does not hold:
 *   - the neutral config of anything is a fixed point (neutralising it
 *     again changes nothing), so a replaced config is not replaced again;
 *   - it holds no key that makes git run a program;
 *   - the include paths (kb_gitcfg_refs) are found the same way twice,
 *     and an include after a blank line is found whatever came before it
 *     (no value, quote, header or continuation reaches past an empty
 *     line): the reader never loses its place for the rest of a file;
 *   - every include path and core.hooksPath found is one the reader's
 *     callback saw under include, includeIf.<cond> or core.
 * Then the include walk (gitguard/include.c) takes the input as a
 * repository's .git/config in a small tree of its own (includes that
 * nest, loop, a symlink, a FIFO, a home, a file outside the root), when
 * every path the input includes stays in that tree by its letters (the
 * walk resolves them on the real file system): no crash, no leak, no
 * hang.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../gitguard/gitconfig.h"
#include "../../gitguard/include.h"
#include "../../lib/fsat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const forbidden[] = {"fsmonitor", "hookspath", "command",
    "driver", "textconv", "clean", "smudge", "process", "pager", "editor",
    "sshcommand", "helper", "program", "include", "alias", "!"};

static const char sentinel[] = "\n\n[include]\n\tpath = kb-fuzz-sentinel\n";

/* counts what the callback sees, for the refs cross-check */
static int
count_cb(const char *section, const char *sub, const char *key,
    const char *value, void *ctx)
{
	size_t *n = ctx;

	if (section == NULL || key == NULL)
		abort();
	if (value != NULL && strcmp(key, "path") == 0 &&
	    ((strcmp(section, "include") == 0 && sub == NULL) ||
		(strcmp(section, "includeif") == 0 && sub != NULL)))
		n[0]++;
	if (value != NULL && strcmp(section, "core") == 0 && sub == NULL &&
	    strcmp(key, "hookspath") == 0)
		n[1]++;
	return 0;
}

static void
check_refs(const uint8_t *data, size_t size)
{
	struct kb_strv i1 = {0}, h1 = {0}, i2 = {0}, h2 = {0};
	size_t n[2] = {0, 0};
	char *with = malloc(size + sizeof(sentinel));

	if (with == NULL)
		return;
	kb_gitcfg_refs((const char *)data, size, &i1, &h1);
	kb_gitcfg_refs((const char *)data, size, &i2, &h2);
	if (i1.n != i2.n || h1.n != h2.n)
		abort();
	for (size_t k = 0; k < i1.n; k++)
		if (strcmp(i1.v[k], i2.v[k]) != 0)
			abort();
	kb_gitcfg_parse_mem((const char *)data, size, count_cb, n);
	if (n[0] != i1.n || n[1] != h1.n)
		abort();
	kb_strv_free(&i2);
	kb_strv_free(&h2);
	memcpy(with, data, size);
	memcpy(with + size, sentinel, sizeof(sentinel));
	kb_gitcfg_refs(with, size + sizeof(sentinel) - 1, &i2, &h2);
	if (i2.n == 0 || strcmp(i2.v[i2.n - 1], "kb-fuzz-sentinel") != 0)
		abort();
	kb_strv_free(&i1);
	kb_strv_free(&h1);
	kb_strv_free(&i2);
	kb_strv_free(&h2);
	free(with);
}

/* --- the include walk ----------------------------------------------------- */

static char tree[PATH_MAX];
static struct kb_policy pol;

static void
tree_put(const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", tree, rel);
	FILE *f = fopen(p, "w");

	if (f == NULL)
		abort();
	fputs(text, f);
	fclose(f);
	free(p);
}

static void
tree_fini(void)
{
	char *cmd = xasprintf("rm -rf '%s'", tree);

	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tree);
	free(cmd);
	kb_policy_free(&pol);
}

static void
tree_init(void)
{
	static const char *const dirs[] = {
	    "ws", "ws/.git", "ws/conf", "ws/lib", "home", "outside"};
	char tmpl[] = "/tmp/kb-fuzz-gitinc.XXXXXX";

	if (mkdtemp(tmpl) == NULL || realpath(tmpl, tree) == NULL)
		abort();
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char *p = xasprintf("%s/%s", tree, dirs[i]);

		mkdir(p, 0755);
		free(p);
	}
	tree_put("ws/conf/x.inc", "[include]\n\tpath = ../lib/y.inc\n");
	tree_put("ws/lib/y.inc", "[core]\n\thooksPath = .h\n[includeIf "
				 "\"onbranch:x\"]\n\tpath = ../conf/x.inc\n");
	tree_put("home/h.inc", "[include]\n\tpath = ../ws/conf/x.inc\n");
	tree_put("outside/o.inc", "[include]\n\tpath = ../ws/lib/z/z.inc\n");
	{
		char *l = xasprintf("%s/ws/link", tree);
		char *f = xasprintf("%s/ws/fifo", tree);

		if (symlink("conf", l) == -1 || mkfifo(f, 0644) == -1)
			abort();
		free(l);
		free(f);
	}
	kb_policy_init(&pol);
	pol.workspace = xasprintf("%s/ws", tree);
	pol.home = xasprintf("%s/home", tree);
	atexit(tree_fini);
}

/* the scan's guard, stubbed: what is at rel, never followed */
static int
stub_guard(void *ctx, const char *root, int rootfd, const char *rel,
    enum kb_inc_kind kind, struct stat *st)
{
	int fd = kb_openat_beneath(rootfd, rel, O_PATH | O_NOFOLLOW);

	(void)ctx;
	(void)root;
	(void)kind;
	memset(st, 0, sizeof(*st));
	if (fd == -1)
		return errno == ENOENT ? 0 : -1;
	if (fstat(fd, st) == -1)
		abort();
	st->st_mode &= S_IFMT;
	close(fd);
	return 0;
}

/* `v`, as the walk will expand it from ws/.git/config, stays in the tree
 * by its letters (".." counted): the walk then reaches nothing else */
static bool
confined(const char *v)
{
	char *full, *c, *save = NULL;
	int depth = 0, min = 0;
	bool in;

	if (strncmp(v, "%(prefix)/", 10) == 0 ||
	    (v[0] == '~' && v[1] != '/' && v[1] != '\0'))
		return true; /* refused before the file system is looked at */
	full = v[0] == '/'   ? xstrdup(v)
	       : v[0] == '~' ? xasprintf("%s%s", pol.home, v + 1)
			     : xasprintf("%s/.git/%s", pol.workspace, v);
	in =
	    strncmp(full, tree, strlen(tree)) == 0 && full[strlen(tree)] == '/';
	for (c = in ? strtok_r(full + strlen(tree), "/", &save) : NULL;
	     c != NULL; c = strtok_r(NULL, "/", &save)) {
		depth += strcmp(c, "..") == 0 ? -1 : strcmp(c, ".") != 0;
		if (depth < min)
			min = depth;
	}
	free(full);
	return in && min >= 0;
}

static void
check_walk(const uint8_t *data, size_t size)
{
	struct kb_strv incs = {0};
	struct kb_inc inc;
	char *name, *text;
	bool ok = true;

	if (tree[0] == '\0')
		tree_init();
	kb_gitcfg_refs((const char *)data, size, &incs, NULL);
	for (size_t i = 0; i < incs.n && ok; i++)
		ok = confined(incs.v[i]);
	kb_strv_free(&incs);
	if (!ok)
		return;
	text = malloc(size + 1);
	if (text == NULL)
		return;
	memcpy(text, data, size);
	text[size] = '\0';
	name = xasprintf("%s/.git/config", pol.workspace);
	kb_inc_init(&inc, &pol, stub_guard, NULL);
	kb_inc_follow(&inc, name, text, size);
	if (inc.unsafe != NULL && inc.unsafe[0] == '\0')
		abort();
	kb_inc_free(&inc);
	free(name);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = malloc(size + 1), *n1, *n2, *v;

	if (in == NULL)
		return 0;
	check_refs(data, size);
	check_walk(data, size);
	memcpy(in, data, size);
	in[size] = '\0';
	n1 = kb_gitcfg_neutral(in);
	n2 = kb_gitcfg_neutral(n1);
	if (strcmp(n1, n2) != 0)
		abort();
	for (char *c = n1; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	for (size_t i = 0; i < sizeof(forbidden) / sizeof(forbidden[0]); i++) {
		/* remote URLs may hold any of these words as text */
		char *hit = strstr(n1, forbidden[i]);

		while (hit != NULL) {
			char *line = hit;

			while (line > n1 && line[-1] != '\n')
				line--;
			if (strncmp(line, "\turl = ", 7) != 0 &&
			    strncmp(line, "\tfetch = ", 9) != 0 &&
			    strncmp(line, "\tmerge = ", 9) != 0 &&
			    strncmp(line, "\tremote = ", 10) != 0 &&
			    strncmp(line, "\tworktree = ", 12) != 0 &&
			    strncmp(line, "[remote \"", 9) != 0 &&
			    strncmp(line, "[branch \"", 9) != 0)
				abort();
			hit = strstr(hit + 1, forbidden[i]);
		}
	}
	v = kb_gitcfg_get(in, "core", "hookspath");
	free(v);
	free(n1);
	free(n2);
	free(in);
	return 0;
}
