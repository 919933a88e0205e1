/*
 * backends/keeper.c — the landlock backend's process tree: the keeper, and
 * the walk that kills a tree. No pid namespace ends the command's
 * descendants with it there, and kinbox itself may die first (SIGKILL from
 * an agent's timeout, the OOM killer), so kb_run() forks a keeper before
 * the command: the run's subreaper and the command's parent, which kills
 * every process of the run when the command ends or when kinbox does,
 * however kinbox ends (see kb_keeper_fork in backend.h).
 *
 * How the keeper stands apart from the command it watches:
 * - it is forked before kinbox-exec applies the Landlock domain, so it is
 *   in none of the command's: Landlock's signal scope (ABI >= 6) refuses
 *   the command's kill, pidfd_send_signal and SIGIO on it, and Landlock
 *   refuses every ptrace access (ptrace, /proc/PID/mem, process_vm_writev,
 *   pidfd_getfd) from inside a domain to a process outside it, at any ABI;
 *   /proc/PID/oom_score_adj and the rest of /proc are no write root;
 * - it is in a process group of its own, so a kill of kinbox's group (the
 *   way many timeouts end a job) reaches kinbox and the command, not the
 *   keeper; the command rejoins kinbox's group (the terminal's) before its
 *   exec, and the keeper ignores the job-control and terminal signals;
 * - it learns of kinbox's death from a socket whose other end only kinbox
 *   holds (close-on-exec, closed in the keeper before the command is
 *   spawned): EOF comes however kinbox ends, with no race against a pid;
 * - it holds no descriptor but that socket and kinbox's lock on the run's
 *   git snapshot (gitguard/snapstore.c), which it keeps until the tree is
 *   dead, so that the next run restores only what no process of this one
 *   can still touch.
 * What remains: a keeper and a kinbox both killed (one SIGKILL for each,
 * from outside; the command cannot send either) or a machine that stops;
 * the persisted snapshot then still puts the git guards back on the next
 * kinbox start in that workspace.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"

pid_t
kb_parent_of(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* comm may hold spaces and parens: the state follows the last ')' */
	if ((p = strrchr(buf, ')')) == NULL)
		return -1;
	return (pid_t)strtol(p + 4, NULL, 10);
}

/*
 * The keeper is a fork of kinbox: its memory holds the caller's
 * environment, tokens and all, which /proc/PID/environ would show to
 * anything allowed to read it (the command cannot: Landlock keeps it out
 * of processes outside its domain; but no process of the run is to hold a
 * secret it does not need). The keeper needs none: the block the kernel
 * reports (env_start..env_end of /proc/self/stat) is zeroed, and environ
 * emptied. What was copied elsewhere in kinbox's heap stays there.
 */
static void
scrub_environment(void)
{
	char buf[2048], *p;
	unsigned long long start = 0, end = 0;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd == -1 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd != -1)
		close(fd);
	clearenv();
	if (n <= 0)
		return;
	buf[n] = '\0';
	/* after "(comm)": fields 3..; env_start and env_end are 50 and 51 */
	if ((p = strrchr(buf, ')')) == NULL)
		return;
	p++;
	for (int field = 3; field <= 51 && p != NULL; field++) {
		p = strchr(p, ' ');
		if (p == NULL)
			break;
		p++;
		if (field == 50)
			start = strtoull(p, NULL, 10);
		else if (field == 51)
			end = strtoull(p, NULL, 10);
	}
	if (start != 0 && end > start && end - start < (64ULL << 20))
		memset((void *)(uintptr_t)start, 0, (size_t)(end - start));
}

/*
 * Each round signals every descendant it finds below `top`, each pinned
 * with a pidfd and checked to still be the child of its parent (a pid
 * reused meanwhile is never hit). A killed process forks no more, so the
 * rounds of kb_tree_kill end when none is left.
 */
#define TREE_MAX 4096

static int
collect(pid_t pid, pid_t *out, int n, int sig)
{
	char path[320], buf[4096];
	struct dirent *de;
	ssize_t len;
	DIR *d;
	int fd;

	if (n >= TREE_MAX)
		return n;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if ((d = opendir(path)) == NULL)
		return n;
	while ((de = readdir(d)) != NULL && n < TREE_MAX) {
		char *p, *end;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/children",
		    (int)pid, de->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		for (p = buf; n < TREE_MAX; p = end) {
			long c = strtol(p, &end, 10);
			int pfd;

			if (end == p || c <= 0)
				break;
			pfd = (int)syscall(SYS_pidfd_open, (pid_t)c, 0);
			if (pfd == -1)
				continue;
			if (kb_parent_of((pid_t)c) == pid) {
				syscall(
				    SYS_pidfd_send_signal, pfd, sig, NULL, 0);
				out[n++] = (pid_t)c;
			}
			close(pfd);
		}
	}
	closedir(d);
	return n;
}

int
kb_tree_signal(pid_t top, int sig)
{
	static pid_t found[TREE_MAX];
	int total = collect(top, found, 0, sig);

	for (int i = 0; i < total && total < TREE_MAX; i++)
		total = collect(found[i], found, total, sig);
	return total;
}

void
kb_tree_kill(pid_t self)
{
	for (int round = 0; round < 10000; round++) {
		int total = kb_tree_signal(self, SIGKILL);

		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (total == 0)
			return;
		usleep(1000);
	}
}

pid_t
kb_keeper_fork(int *sock)
{
	int sp[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) == -1)
		return -1;
	if ((pid = fork()) == -1) {
		int errsv = errno;

		close(sp[0]);
		close(sp[1]);
		errno = errsv;
		return -1;
	}
	if (pid > 0) {
		close(sp[1]);
		*sock = sp[0];
		fcntl(sp[0], F_SETFL, O_NONBLOCK);
		return pid;
	}
	close(sp[0]);
	*sock = sp[1];
	/* kinbox's group gets the terminal's and the timeouts' signals; the
	 * keeper must outlive them to end the tree (see the top) */
	if (setpgid(0, 0) == -1 || prctl(PR_SET_CHILD_SUBREAPER, 1) == -1)
		_exit(KB_EXIT_ERROR);
	prctl(PR_SET_NAME, "kinbox-keeper");
	scrub_environment();
	return 0;
}

/* a few bytes to kinbox; it may be gone (MSG_NOSIGNAL: no SIGPIPE) */
static void
say(int sock, char tag, int value)
{
	char msg[1 + sizeof(int)];

	msg[0] = tag;
	memcpy(msg + 1, &value, sizeof(int));
	(void)send(sock, msg, sizeof(msg), MSG_NOSIGNAL);
}

/* closes every descriptor but the `n` in keep (sorted, ascending) */
static void
close_others(const int *keep, int n)
{
	unsigned lo = 0;

	for (int i = 0; i < n; i++) {
		if (keep[i] < 0)
			continue;
		if ((unsigned)keep[i] > lo)
			syscall(SYS_close_range, lo, (unsigned)keep[i] - 1, 0);
		lo = (unsigned)keep[i] + 1;
	}
	syscall(SYS_close_range, lo, ~0U, 0);
}

void
kb_keeper_run(int sock, pid_t cmd, int hold)
{
	static const int ignored[] = {
	    SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGTSTP, SIGTTIN, SIGTTOU};
	int keep[3] = {sock, hold, -1}, sfd, status = 0;
	bool done = false;
	sigset_t chld;

	for (size_t i = 0; i < nitems(ignored); i++)
		signal(ignored[i], SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	/* SIGCHLD stays blocked (kb_run blocked it before the fork) */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	keep[2] = sfd;
	for (int a = 0; a < 3; a++)
		for (int b = a + 1; b < 3; b++)
			if (keep[b] < keep[a]) {
				int t = keep[a];

				keep[a] = keep[b];
				keep[b] = t;
			}
	/* the relay, the pipes, the roots, the registry: kinbox's, and none
	 * may stay open past kinbox's end because the keeper lives on */
	close_others(keep, 3);
	if (cmd > 0)
		say(sock, 'C', (int)cmd);
	while (cmd > 0 && sfd != -1 && !done) {
		struct pollfd p[2] = {
		    {.fd = sock, .events = POLLIN},
		    {.fd = sfd, .events = POLLIN},
		};
		struct signalfd_siginfo si;
		char c;
		pid_t w;
		int st;

		if (poll(p, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		/* kinbox sends nothing: a readable socket is its end */
		if (p[0].revents && recv(sock, &c, 1, MSG_DONTWAIT) != -1)
			break;
		while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			;
		/* the command, and whatever the tree re-parented here */
		while ((w = waitpid(-1, &st, WNOHANG)) > 0)
			if (w == cmd) {
				status = st;
				done = true;
			}
	}
	/* the command ended, or kinbox did: nothing of the run survives */
	kb_tree_kill(getpid());
	if (!done)
		_exit(KB_EXIT_ERROR);
	say(sock, 'W', status);
	_exit(0);
}
