/*
 * kinbox-exec — the last link of the chain, run by bubblewrap inside the
 * sandbox: kinbox-exec STATUS_FD STDERR_FD -- COMMAND [ARG...]
 *
 * kinbox starts bwrap with SIGINT, SIGQUIT, SIGTERM and SIGHUP ignored, so
 * that a Ctrl-C meant for the command does not kill bwrap's monitor (which
 * would SIGKILL the whole sandbox). Ignored signals survive exec, so this
 * helper restores the defaults before the command starts. It also puts the
 * caller's real stderr back on fd 2 (bwrap's own fd 2 is a pipe kinbox reads
 * to explain setup failures) and tells kinbox through STATUS_FD that setup
 * is over ('S'), or why exec failed ('E' + errno).
 *
 * --scope-abstract puts the command in a Landlock domain that cannot
 * connect to abstract unix sockets created outside it (X11's
 * @/tmp/.X11-unix/X0 and others are reachable when the network namespace is
 * shared). It is applied here, after bwrap's mounts: a Landlock domain may
 * not change the mount topology. Failure to apply it is reported as 'F' and
 * nothing runs.
 *
 * Built static and tiny: it is one extra exec on every start.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Debian 12's kernel headers predate Landlock scopes: the ABI is stable, so
 * the two values are spelled out here. */
struct kb_ll_ruleset_attr {
	unsigned long long handled_access_fs;
	unsigned long long handled_access_net;
	unsigned long long scoped;
};
#define KB_LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_restrict_self 446
#endif

static int
scope_abstract(void)
{
	struct kb_ll_ruleset_attr attr = {
		.scoped = KB_LL_SCOPE_ABSTRACT_UNIX_SOCKET,
	};
	long fd = syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	int rc;

	if (fd < 0)
		return -1;
	rc = (int)syscall(SYS_landlock_restrict_self, (int)fd, 0);
	close((int)fd);
	return rc;
}

static void __attribute__((noreturn))
fail(int status_fd, char tag, int err, int code)
{
	char msg[1 + sizeof(int)];

	msg[0] = tag;
	memcpy(msg + 1, &err, sizeof(int));
	if (write(status_fd, msg, sizeof(msg)) != (ssize_t)sizeof(msg))
		_exit(125);
	_exit(code);
}

static int
fdarg(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < 3 || v > 65535)
		_exit(125);
	return (int)v;
}

int
main(int argc, char **argv)
{
	static const int reset[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP,
		SIGPIPE };
	sigset_t none;
	int status_fd, err_fd, errsv, cmd = 4;
	bool scope = false;

	if (argc > 4 && strcmp(argv[3], "--scope-abstract") == 0) {
		scope = true;
		cmd = 5;
	}
	if (argc <= cmd || strcmp(argv[cmd - 1], "--") != 0)
		_exit(125);
	status_fd = fdarg(argv[1]);
	err_fd = fdarg(argv[2]);
	for (size_t i = 0; i < sizeof(reset) / sizeof(reset[0]); i++)
		signal(reset[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (dup2(err_fd, 2) == -1)
		_exit(125);
	close(err_fd);
	if (fcntl(status_fd, F_SETFD, FD_CLOEXEC) == -1)
		_exit(125);
	if (write(status_fd, "S", 1) != 1)
		_exit(125);
	if (scope && scope_abstract() == -1)
		fail(status_fd, 'F', errno, 125);
	execvp(argv[cmd], argv + cmd);
	errsv = errno;
	fail(status_fd, 'E', errsv,
	    errsv == ENOENT || errsv == ENOTDIR ? 127 : 126);
}
