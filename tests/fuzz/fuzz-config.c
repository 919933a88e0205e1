/*
 * tests/fuzz/fuzz-config.c — libFuzzer target: the config layers
 * (profile/config.c and inih) on arbitrary bytes, through
 * kb_config_load_all() on a fresh policy each time. The first byte picks
 * the file the rest becomes:
 *   'g'  the global config ($XDG_CONFIG_HOME/kinbox/config.ini)
 *   's'  a session file (KINBOX_SESSION set)
 *   'a'  all three: global, session and project
 *   any other byte: the project file <workspace>/.kinbox.ini, the one a
 *        repository controls (most inputs)
 * Besides "no crash, no leak, no hang" it checks what the layers promise,
 * and aborts when it does not hold:
 *   - a project file alone never loosens the policy, not even partly
 *     before an error: no network, allowed egress host, write root, kept
 *     variable, cache, backend, SSH agent or unconfined run, no memory
 *     budget above the default;
 *   - only a session grants an unconfined run;
 *   - an error comes with a message.
 * The workspace is open on descriptor 200, so a seed can name it, and
 * the directories beside it, as /proc/self/fd/200 (path =
 * /proc/self/fd/200, write_paths = /proc/self/fd/200/../w1) although the
 * tree's name changes each run (libFuzzer needs the current directory
 * for its corpus and artifacts). Seeds: tests/fuzz/config.seeds (the first byte of each is the
 * selector).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../profile/policy.h"

#define SID "ses_fuzz0123456789"
#define WS_FD 200 /* the workspace: /proc/self/fd/200 */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char base[PATH_MAX];
static char *etc, *ws, *glob_file, *sess_file, *proj_file;

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static void
cleanup(void)
{
	if (base[0] == '/')
		nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void
mkd(const char *rel)
{
	char *p = xasprintf("%s/%s", base, rel);

	if (kb_mkdirs(p, 0755, NULL) == -1)
		abort();
	free(p);
}

/* The tree, once: a workspace, a home with a project directory in it,
 * two directories a write_paths may name. */
static void
setup(void)
{
	char tmpl[] = "/tmp/kb-fuzz-config.XXXXXX";
	char *v;

	if (mkdtemp(tmpl) == NULL || realpath(tmpl, base) == NULL)
		abort();
	atexit(cleanup);
	mkd("etc");
	mkd("xdg/kinbox");
	mkd("run/kinbox/sessions");
	mkd("ws/sub");
	mkd("home/proj");
	mkd("w1");
	mkd("w2");
	etc = xasprintf("%s/etc", base);
	ws = xasprintf("%s/ws", base);
	glob_file = xasprintf("%s/xdg/kinbox/config.ini", base);
	sess_file = xasprintf("%s/run/kinbox/sessions/" SID ".ini", base);
	proj_file = xasprintf("%s/ws/.kinbox.ini", base);
	{
		int fd = open(ws, O_PATH | O_DIRECTORY | O_CLOEXEC);

		if (fd == -1 || fcntl(WS_FD, F_GETFD) != -1 ||
		    dup2(fd, WS_FD) != WS_FD)
			abort();
		close(fd);
	}
	v = xasprintf("%s/home", base);
	setenv("HOME", v, 1);
	free(v);
	v = xasprintf("%s/xdg", base);
	setenv("XDG_CONFIG_HOME", v, 1);
	free(v);
	v = xasprintf("%s/run", base);
	setenv("XDG_RUNTIME_DIR", v, 1);
	free(v);
}

/* the file holds exactly these bytes, or is absent for NULL */
static void
put(const char *path, const uint8_t *data, size_t size)
{
	int fd;

	if (data == NULL) {
		if (unlink(path) == -1 && errno != ENOENT)
			abort();
		return;
	}
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
	if (fd == -1)
		abort();
	if (size > 0 && write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kb_policy p;
	struct kb_err e;
	char sel;
	bool project, global, session;
	int rc;

	if (base[0] == '\0')
		setup();
	if (size == 0)
		return 0;
	sel = (char)data[0];
	data++;
	size--;
	global = sel == 'g' || sel == 'a';
	session = sel == 's' || sel == 'a';
	project = (!global && !session) || sel == 'a';
	put(glob_file, global ? data : NULL, size);
	put(sess_file, session ? data : NULL, size);
	put(proj_file, project ? data : NULL, size);
	if (session)
		setenv("KINBOX_SESSION", SID, 1);
	else
		unsetenv("KINBOX_SESSION");

	kb_policy_init(&p);
	if (kb_policy_set_workspace(&p, ws, &e) == -1)
		abort();
	e.msg[0] = '\0';
	rc = kb_config_load_all(&p, etc, NULL, &e);
	if (rc == -1 && e.msg[0] == '\0')
		abort();
	if (rc != 0 && rc != -1)
		abort();
	if (project && !global && !session) {
		/* what a repository can do to the policy: tighten only */
		if (p.net || p.nallow_host != 0 || p.nwrite != 0 ||
		    p.keep_env.n != 0 ||
		    p.ssh_agent || p.unconfined || p.backend != KB_BACKEND_AUTO)
			abort();
		for (size_t i = 0; i < sizeof(p.cache) / sizeof(p.cache[0]); i++)
			if (p.cache[i] != KB_CACHE_EPHEMERAL)
				abort();
		/* its memory = only lowers the budget, never past the default */
		if (p.memory != 0 || kb_policy_memory(&p, 16ULL << 30, NULL) >
					 kb_memory_default(16ULL << 30))
			abort();
	}
	/* whatever the layers say, the budget is a size kinbox takes */
	if (rc == 0 && kb_policy_memory(&p, 0, NULL) < KB_MEMORY_MIN)
		abort();
	if (p.unconfined && p.origin[KB_OPT_UNCONFINED] != KB_ORIGIN_SESSION)
		abort();
	if (p.net && p.origin[KB_OPT_NET] == KB_ORIGIN_PROJECT)
		abort();
	if (p.ssh_agent && p.origin[KB_OPT_SSH_AGENT] != KB_ORIGIN_WORKSPACE &&
	    p.origin[KB_OPT_SSH_AGENT] != KB_ORIGIN_SESSION)
		abort();
	kb_policy_free(&p);
	return 0;
}
