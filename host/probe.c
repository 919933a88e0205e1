/*
 * host/probe.c — what this kernel and this process can do, probed one
 * question at a time: the Landlock ABI, overlayfs in a user namespace,
 * seccomp user notifications with what the unix-socket supervisor needs
 * beside them (mediate/unotify.c), a seccomp filter around kinbox, and
 * the agent sandbox kinbox runs inside. kinbox fills struct kb_host from
 * these (backends/backend.h); kinbox --status reports them (status.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <linux/openat2.h>
#include <linux/seccomp.h>

#include "host.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#define KB_LANDLOCK_CREATE_RULESET_VERSION (1U << 0)

int
kb_landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
	    KB_LANDLOCK_CREATE_RULESET_VERSION);

	return abi < 0 ? 0 : (int)abi;
}

bool
kb_overlay_supported(void)
{
	struct utsname u;
	unsigned major = 0, minor = 0;

	if (uname(&u) == -1 || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return false;
	return major > 5 || (major == 5 && minor >= 11);
}

const char *
kb_sup_unavailable(void)
{
	struct seccomp_notif_sizes sz;
	int self, fd, scope = 0;
	FILE *f;

	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) == -1)
		return "seccomp user notifications are unavailable "
		       "(Linux < 5.0, or refused by a container's filter)";
	if ((f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re")) != NULL) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = 0;
		fclose(f);
	}
	if (scope >= 3)
		return "Yama's ptrace_scope is 3: no process may read "
		       "another's memory or descriptors";
	if (scope == 2 && geteuid() != 0)
		return "Yama's ptrace_scope is 2: only root may read "
		       "another process's memory or descriptors";
	if ((self = (int)syscall(SYS_pidfd_open, getpid(), 0)) == -1)
		return "pidfd_open is unavailable (Linux < 5.3, or refused "
		       "by a container's filter)";
	fd = (int)syscall(SYS_pidfd_getfd, self, 0, 0);
	close(self);
	if (fd == -1)
		return "pidfd_getfd is unavailable (Linux < 5.6, or refused "
		       "by a container's filter, as Docker's default)";
	close(fd);
	{
		struct open_how how = {
		    .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_IN_ROOT};

		fd =
		    (int)syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));
		if (fd == -1)
			return "openat2 is unavailable (Linux < 5.6)";
		close(fd);
	}
	return NULL;
}

bool
kb_sup_under_seccomp(void)
{
	char line[256];
	bool under = false;
	FILE *f = fopen("/proc/self/status", "re");

	if (f == NULL)
		return true; /* not known: the safe answer */
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "Seccomp:", 8) == 0)
			under = strtol(line + 8, NULL, 10) != 0;
	fclose(f);
	return under;
}

bool
kb_agent_sandbox(struct kb_agent_sandbox *out)
{
	const char *v;

	if ((v = getenv("SANDBOX_RUNTIME")) != NULL && *v != '\0') {
		*out = (struct kb_agent_sandbox){
		    "Claude Code's sandbox (sandbox-runtime)",
		    "SANDBOX_RUNTIME is set",
		    "let kinbox be the boundary: turn the agent's sandbox off "
		    "(Claude Code: \"sandbox\": {\"enabled\": false} in "
		    ".claude/settings.json, or /sandbox) and keep kinpolicy's "
		    "hook"};
		return true;
	}
	if (((v = getenv("CODEX_SANDBOX")) != NULL && *v != '\0') ||
	    ((v = getenv("CODEX_SANDBOX_NETWORK_DISABLED")) != NULL &&
		*v != '\0')) {
		*out = (struct kb_agent_sandbox){"Codex's sandbox",
		    "CODEX_SANDBOX or CODEX_SANDBOX_NETWORK_DISABLED is set",
		    "let kinbox be the boundary: run Codex with sandbox_mode = "
		    "\"danger-full-access\" (config.toml, or --sandbox "
		    "danger-full-access) and keep kinpolicy's hook"};
		return true;
	}
	if ((v = getenv("SANDBOX")) != NULL && *v != '\0' &&
	    getenv("GEMINI_CLI") != NULL) {
		*out = (struct kb_agent_sandbox){"Gemini CLI's sandbox",
		    "SANDBOX and GEMINI_CLI are set",
		    "let kinbox be the boundary: run Gemini CLI without "
		    "--sandbox (GEMINI_SANDBOX=false, or \"tools\": "
		    "{\"sandbox\": false} in settings.json) and keep "
		    "kinpolicy's hook"};
		return true;
	}
	return false;
}
