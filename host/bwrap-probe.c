/*
 * host/bwrap-probe.c — can bubblewrap run here, and if not, why: the
 * binary on PATH, the smallest sandbox kinbox needs around /bin/true
 * (kinbox --status, kinpolicy decide), and bwrap's setup error turned into
 * the cause and the fix.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host.h"

char *
kb_bwrap_find(struct kb_err *e)
{
	const char *path = getenv("PATH");
	_cleanup_free_ char *copy = NULL;
	char *dir, *save = NULL;

	if (path == NULL || *path == '\0')
		path = "/usr/bin:/bin";
	copy = xstrdup(path);
	for (dir = strtok_r(copy, ":", &save); dir != NULL;
	     dir = strtok_r(NULL, ":", &save)) {
		_cleanup_free_ char *cand = NULL;

		if (dir[0] != '/')
			continue; /* never a relative PATH entry */
		cand = xasprintf("%s/bwrap", dir);
		if (access(cand, X_OK) == 0)
			return steal_pointer(&cand);
	}
	kb_err_set(e,
	    "no sandbox: bubblewrap (bwrap) is not installed; "
	    "install it (apt-get install bubblewrap) — nothing was run");
	return NULL;
}

static long
read_sysctl(const char *path)
{
	_cleanup_free_ char *s = kb_read_small_file(path, 64);

	return s == NULL ? -1 : strtol(s, NULL, 10);
}

static bool
in_container(void)
{
	return access("/.dockerenv", F_OK) == 0 ||
	       access("/run/.containerenv", F_OK) == 0;
}

/*
 * Can bwrap set up a sandbox here? Runs the smallest one kinbox would need
 * (user, pid and network namespaces, the host read-only) around /bin/true.
 * Used by kinbox --status and by kinpolicy decide, where the SANDBOX mode
 * needs to know whether commands can be wrapped.
 */
int
kb_bwrap_probe(const char *bwrap, struct kb_err *e)
{
	char *const argv[] = {(char *)"bwrap", (char *)"--unshare-user",
	    (char *)"--unshare-pid", (char *)"--unshare-net",
	    (char *)"--ro-bind", (char *)"/", (char *)"/", (char *)"--dev",
	    (char *)"/dev", (char *)"--proc", (char *)"/proc", (char *)"--",
	    (char *)"/bin/true", NULL};
	char *const envp[] = {NULL};
	char buf[1024];
	size_t len = 0;
	ssize_t n;
	int p[2], st, devnull;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) == -1)
		return kb_err_set(e, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid == -1)
		return kb_err_set(e, "fork: %s", strerror(errno));
	if (pid == 0) {
		devnull = open("/dev/null", O_RDWR);
		if (devnull == -1 || dup2(devnull, 0) == -1 ||
		    dup2(devnull, 1) == -1 || dup2(p[1], 2) == -1)
			_exit(KB_EXIT_ERROR);
		if (chdir("/") == -1)
			_exit(KB_EXIT_ERROR);
		execve(bwrap, argv, envp);
		_exit(KB_EXIT_ERROR);
	}
	close(p[1]);
	while (len < sizeof(buf) - 1 &&
	       (n = read(p[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	close(p[0]);
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	{
		char *why = kb_bwrap_explain_failure(buf);

		kb_err_set(e, "%s", why);
		free(why);
	}
	return -1;
}

/* bwrap's words when the kernel refused it namespaces */
static const char *const userns_markers[] = {
    "namespace",
    "uid map",
    "gid map",
    "setting up uid",
    "No permissions",
    "unshare",
    "Operation not permitted",
};

/* bwrap's first line, without its "bwrap: " */
static void
first_line_of(const char *err, char *first, size_t len)
{
	size_t n;

	first[0] = '\0';
	if (err == NULL)
		return;
	if (strncmp(err, "bwrap: ", 7) == 0)
		err += 7;
	n = strcspn(err, "\n");
	if (n >= len)
		n = len - 1;
	memcpy(first, err, n);
	first[n] = '\0';
}

static bool
userns_words(const char *first)
{
	for (size_t i = 0; i < nitems(userns_markers); i++)
		if (strstr(first, userns_markers[i]) != NULL)
			return true;
	return false;
}

bool
kb_bwrap_userns_failure(const char *err)
{
	char first[512];

	first_line_of(err, first, sizeof(first));
	return userns_words(first);
}

char *
kb_bwrap_explain_failure(const char *err)
{
	char first[512];
	const char *cause;
	bool root = geteuid() == 0;

	first_line_of(err, first, sizeof(first));
	if (!userns_words(first))
		cause =
		    "bubblewrap could not set up the sandbox's mounts; run "
		    "kinbox --dry-run to see the plan, and report it if the "
		    "paths look right";
	else if (getenv("KINBOX_ACTIVE") != NULL)
		cause = "already inside a kinbox sandbox, which forbids nested "
			"user namespaces; run the command directly";
	else if (read_sysctl("/proc/sys/user/max_user_namespaces") == 0)
		cause = "user namespaces are disabled "
			"(user.max_user_namespaces = 0); enable them with "
			"'sysctl -w user.max_user_namespaces=15000'";
	else if (!root &&
		 read_sysctl("/proc/sys/kernel/unprivileged_userns_clone") == 0)
		cause = "unprivileged user namespaces are disabled "
			"(kernel.unprivileged_userns_clone = 0); enable them "
			"with 'sysctl -w kernel.unprivileged_userns_clone=1'";
	else if (!root &&
		 read_sysctl("/proc/sys/kernel/"
			     "apparmor_restrict_unprivileged_userns") == 1)
		cause = "AppArmor restricts unprivileged user namespaces "
			"(kernel.apparmor_restrict_unprivileged_userns = 1, "
			"as on Ubuntu 24.04); load an AppArmor profile that "
			"lets bwrap use them (e.g. /etc/apparmor.d/"
			"bwrap-userns-restrict from apparmor-profiles) or set "
			"that sysctl to 0";
	else if (in_container())
		cause =
		    "this container does not allow user namespaces; give it "
		    "that right, or set KINBOX_SANDBOX=container if the "
		    "container itself is the disposable boundary";
	else
		cause = "the kernel refused bubblewrap its namespaces; check "
			"user.max_user_namespaces and any LSM policy, or set "
			"KINBOX_SANDBOX=container if a disposable container is "
			"the boundary";
	return xasprintf("no sandbox: %s [bwrap: %s] — nothing was run", cause,
	    first[0] ? first : "no message");
}
