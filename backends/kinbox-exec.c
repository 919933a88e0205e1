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
 * Built static and tiny: it is one extra exec on every start.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	int status_fd, err_fd, errsv;
	char msg[1 + sizeof(int)];

	if (argc < 5 || strcmp(argv[3], "--") != 0)
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
	execvp(argv[4], argv + 4);
	errsv = errno;
	msg[0] = 'E';
	memcpy(msg + 1, &errsv, sizeof(int));
	if (write(status_fd, msg, sizeof(msg)) != (ssize_t)sizeof(msg))
		_exit(125);
	_exit(errsv == ENOENT || errsv == ENOTDIR ? 127 : 126);
}
