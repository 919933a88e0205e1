/*
 * tests/unit/config-fixture.h — the temp tree and the helpers of the
 * config tests (test-config.c, test-config-syntax.c), black box: files in
 * a temp tree, kb_config_load_all(), then the policy and the error text.
 *
 * The tree: <base>/etc/config.ini (the system config, through `etc`),
 * $XDG_CONFIG_HOME/kinbox/config.ini (the global config), the session file
 * under $XDG_RUNTIME_DIR/kinbox/sessions/, <base>/ws/.kinbox.ini (the
 * project file of the workspace <base>/ws). HOME is <base>/home.
 *
 * Static functions, like ro-check.h: each test program has its own copy
 * of the tree and the state.
 */
#ifndef KB_CONFIG_FIXTURE_H
#define KB_CONFIG_FIXTURE_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../profile/config.h"
#include "../../profile/options.h"
#include "../../profile/policy.h"
#include "../../profile/tables.h"
#include "tap.h"

#define SID "ses_0123456789abcdef"

static char base[PATH_MAX];
static char *etc, *sys_file, *glob_file, *sess_file, *proj_file, *ws, *home;
static struct kb_strv warns;

static inline void
on_warn(const char *line)
{
	kb_strv_push(&warns, line);
}

static inline char *
at(const char *rel)
{
	return xasprintf("%s/%s", base, rel);
}

static inline void
mkd(const char *rel)
{
	_cleanup_free_ char *p = at(rel);

	if (kb_mkdirs(p, 0755, NULL) == -1)
		printf("# mkdir %s: %s\n", p, strerror(errno));
}

/* writes `len` bytes of `text` to `path` (absolute), or removes it for
 * NULL */
static inline void
put_n(const char *path, const char *text, size_t len)
{
	int fd;

	if (text == NULL) {
		if (unlink(path) == -1 && errno != ENOENT && rmdir(path) == -1)
			printf("# remove %s: %s\n", path, strerror(errno));
		return;
	}
	unlink(path);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
	if (fd == -1 || write(fd, text, len) != (ssize_t)len)
		printf("# write %s: %s\n", path, strerror(errno));
	if (fd != -1)
		close(fd);
}

static inline void
put(const char *path, const char *text)
{
	put_n(path, text, text != NULL ? strlen(text) : 0);
}

/* no config anywhere, no session, the default environment */
static inline void
clean(void)
{
	_cleanup_free_ char *xdg = at("xdg");
	_cleanup_free_ char *run = at("run");

	put(sys_file, NULL);
	put(glob_file, NULL);
	put(sess_file, NULL);
	put(proj_file, NULL);
	setenv("HOME", home, 1);
	setenv("XDG_CONFIG_HOME", xdg, 1);
	setenv("XDG_RUNTIME_DIR", run, 1);
	unsetenv("KINBOX_SESSION");
	kb_strv_free(&warns);
}

/* a policy as kinbox.c has it when it loads the config: the workspace
 * resolved, the flags applied */
static inline void
fresh(struct kb_policy *p)
{
	struct kb_err e;

	kb_policy_init(p);
	if (kb_policy_set_workspace(p, ws, &e) == -1)
		printf("# workspace: %s\n", e.msg);
}

static inline int
load(struct kb_policy *p, struct kb_err *e)
{
	e->msg[0] = '\0';
	return kb_config_load_all(p, etc, on_warn, e);
}

/* as kinbox.c with one flag typed: the layers, the flag, the project */
static inline int
load_flag(struct kb_policy *p, enum kb_opt id, const char *value,
    const char *where, struct kb_err *e)
{
	struct kb_src src = { KB_ORIGIN_FLAG, where };

	e->msg[0] = '\0';
	if (kb_config_load_layers(p, etc, on_warn, e) == -1 ||
	    kb_option_set(p, id, value, &src, e) == -1)
		return -1;
	return kb_config_load_project(p, on_warn, e);
}

/* `text` as the only file at `path`: 0 or -1, the policy left in `p` */
static inline int
only(const char *path, const char *text, struct kb_policy *p,
    struct kb_err *e)
{
	clean();
	put(path, text);
	fresh(p);
	return load(p, e);
}

/* the error `text` at `path` gives, "" when it loads; static buffer */
static inline const char *
err_of(const char *path, const char *text)
{
	static struct kb_err e;
	struct kb_policy p;

	if (only(path, text, &p, &e) == 0)
		e.msg[0] = '\0';
	kb_policy_free(&p);
	return e.msg;
}

/* "<file>:<line>: <rest>" */
static inline char *
at_line(const char *file, int line, const char *rest)
{
	return xasprintf("%s:%d: %s", file, line, rest);
}

static inline void
check_err(const char *path, const char *text, int line, const char *rest,
    const char *what)
{
	_cleanup_free_ char *want = at_line(path, line, rest);

	assert_cmpstr(err_of(path, text), want, "%s", what);
}

static inline bool
has(const struct kb_strv *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->v[i], s) == 0)
			return true;
	return false;
}

static inline bool
starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static inline int
cache_index(const char *name)
{
	for (size_t i = 0; i < kb_cache_count; i++)
		if (strcmp(kb_cache_table[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* the temp tree, the config paths in it, an environment of PATH only;
 * -1 (after a Bail out!) when there is no tree */
static inline int
fixture_setup(void)
{
	char tmpl[] = "/tmp/kb-test-config.XXXXXX";

	if (mkdtemp(tmpl) == NULL || realpath(tmpl, base) == NULL) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return -1;
	}
	clearenv();
	setenv("PATH", "/usr/bin:/bin", 1);
	etc = at("etc");
	sys_file = at("etc/config.ini");
	glob_file = at("xdg/kinbox/config.ini");
	sess_file = at("run/kinbox/sessions/" SID ".ini");
	proj_file = at("ws/.kinbox.ini");
	ws = at("ws");
	home = at("home");
	mkd("etc");
	mkd("xdg/kinbox");
	mkd("run/kinbox/sessions");
	mkd("ws/sub");
	mkd("ws/.git");
	mkd("home/proj");
	mkd("home/.config/kinbox");
	mkd("w1");
	mkd("w2");
	for (int i = 0; i < KB_MAX_WRITE + 1; i++) {
		_cleanup_free_ char *d = xasprintf("many/%d", i);

		mkd(d);
	}
	{
		_cleanup_free_ char *l = at("wslink");
		_cleanup_free_ char *l2 = at("w1link");

		if (symlink(ws, l) == -1 || symlink("w1", l2) == -1)
			printf("# symlink: %s\n", strerror(errno));
	}
	signal(SIGALRM, SIG_DFL);
	return 0;
}

/* the tree removed, the state freed; -1 when the tree is not removed */
static inline int
fixture_teardown(void)
{
	clean();
	{
		char *cmd = xasprintf("rm -rf '%s'", base);

		if (chdir("/") != 0 || system(cmd) != 0)
			return -1;
		free(cmd);
	}
	kb_strv_free(&warns);
	free(etc);
	free(sys_file);
	free(glob_file);
	free(sess_file);
	free(proj_file);
	free(ws);
	free(home);
	return 0;
}

#endif
