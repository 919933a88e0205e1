/*
 * lib/closelater.c — slow last closes made by a child nobody waits for
 * (see closelater.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "closelater.h"

#define KEPT_MAX 16

static int kept[KEPT_MAX];
static int nkept;
static bool flushed;

void
kb_close_later(int fd)
{
	if (fd < 0)
		return;
	if (nkept == KEPT_MAX || flushed) {
		close(fd);
		return;
	}
	kept[nkept++] = fd;
}

/* The child: system calls only (it shares kinbox's memory, errno and
 * all, and runs on a stack of its own with every signal blocked). */
static int
closer(void *arg)
{
	int rd = *(const int *)arg, keep[KEPT_MAX + 1], n = 0;
	unsigned lo = 0;
	char c;

	/* the kept ones and the pipe's read end, in order */
	keep[n++] = rd;
	for (int i = 0; i < nkept; i++) {
		int j = n++;

		for (; j > 0 && keep[j - 1] > kept[i]; j--)
			keep[j] = keep[j - 1];
		keep[j] = kept[i];
	}
	/* nothing else: a pipe the caller reads is not held open by it,
	 * nor the write end that tells it kinbox is done */
	for (int i = 0; i < n; i++) {
		if ((unsigned)keep[i] > lo)
			syscall(SYS_close_range, lo, (unsigned)keep[i] - 1, 0U);
		lo = (unsigned)keep[i] + 1;
	}
	syscall(SYS_close_range, lo, ~0U, 0U);
	/* end of file once kinbox closed its copies: each close below is
	 * then the last one */
	(void)!syscall(SYS_read, rd, &c, 1);
	for (int i = 0; i < nkept; i++)
		syscall(SYS_close, kept[i]);
	return 0;
}

void
kb_close_later_flush(void)
{
	/* one flush that makes a child a kinbox: the stack is its alone */
	static char stack[16384] __attribute__((aligned(16)));
	static int rd;
	sigset_t all, old;
	int p[2];

	if (nkept == 0 || flushed)
		return;
	flushed = true;
	if (pipe2(p, O_CLOEXEC) == -1) {
		p[0] = p[1] = -1;
	} else {
		rd = p[0];
		sigfillset(&all);
		sigprocmask(SIG_SETMASK, &all, &old);
		/* no exit signal: nothing of kinbox's waits for it. Should
		 * the clone fail, kinbox's closes below are the last ones */
		(void)clone(closer, stack + sizeof(stack), CLONE_VM, &rd);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	for (int i = 0; i < nkept; i++)
		close(kept[i]);
	if (p[1] != -1) {
		close(p[1]);
		close(p[0]);
	}
}
