/*
 * lib/hostenv.c — the environment of what kinbox runs on the host (see
 * hostenv.h): the fixed one, the loader variables, and kinbox's own
 * re-execution without the caller's loader variables (the memfd that
 * carries an environment: envfd.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hostenv.h"
#include "util.h"

extern char **environ;

char *const kb_host_envp[] = {
    (char *)"PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL};

#define CALLER_ENV_VAR "KINBOX_CALLER_ENV_FD"

/* glibc's UNSECURE_ENVVARS (sysdeps/generic/unsecvars.h) but TMPDIR, which
 * kinbox reads as a policy input and never as a loader path */
static const char *const exact[] = {"GCONV_PATH", "GETCONF_DIR",
    "GLIBC_TUNABLES", "HOSTALIASES", "LOCALDOMAIN", "LOCPATH", "NIS_PATH",
    "NLSPATH", "RESOLV_HOST_CONF", "RES_OPTIONS", "TZDIR"};
static const char *const prefix[] = {"LD_", "MALLOC_"};

bool
kb_env_loader_var(const char *kv)
{
	size_t n = strcspn(kv, "=");

	for (size_t i = 0; i < nitems(prefix); i++)
		if (strncmp(kv, prefix[i], strlen(prefix[i])) == 0)
			return true;
	for (size_t i = 0; i < nitems(exact); i++)
		if (strlen(exact[i]) == n && strncmp(kv, exact[i], n) == 0)
			return true;
	return false;
}

char **
kb_self_env_guard(char **argv)
{
	const char *mark = getenv(CALLER_ENV_VAR);
	struct kb_strv clean = {0};
	bool loader = false;
	int fd;

	for (char **e = environ; e != NULL && *e != NULL; e++)
		loader |= kb_env_loader_var(*e);
	if (mark != NULL) {
		char *end;
		long n = strtol(mark, &end, 10);
		char **caller;

		if (*mark == '\0' || *end != '\0' || n < 3 || n > 65535)
			die("%s=%s: not a descriptor kinbox left itself; unset "
			    "it",
			    CALLER_ENV_VAR, mark);
		if ((caller = kb_env_read((int)n)) == NULL)
			die("%s=%s: cannot read the caller's environment "
			    "back (%s); unset it",
			    CALLER_ENV_VAR, mark, strerror(errno));
		close((int)n);
		unsetenv(CALLER_ENV_VAR);
		if (loader)
			die("a loader variable is set beside %s; unset "
			    "%s",
			    CALLER_ENV_VAR, CALLER_ENV_VAR);
		return caller;
	}
	if (!loader)
		return environ;
	if ((fd = kb_env_memfd(environ)) == -1)
		die_errno("cannot keep the command's environment (its loader "
			  "variables) apart from kinbox's own");
	/* open across the exec; the kinbox run next closes it before it
	 * looks at any other descriptor */
	if (fcntl(fd, F_SETFD, 0) == -1)
		die_errno("cannot keep the command's environment");
	for (char **e = environ; *e != NULL; e++)
		if (!kb_env_loader_var(*e))
			kb_strv_push(&clean, *e);
	kb_strv_pushf(&clean, "%s=%d", CALLER_ENV_VAR, fd);
	execve("/proc/self/exe", argv, clean.v);
	die_errno("the environment sets loader variables (LD_LIBRARY_PATH, "
		  "LD_PRELOAD and the like) that kinbox keeps for the command "
		  "only, so it runs itself again without them, and "
		  "/proc/self/exe cannot be executed; mount /proc or unset "
		  "them");
}
