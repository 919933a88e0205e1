/*
 * tests/portable-slip.c — slips `make portable-check-selftest` must see
 * rejected under the portable flags (SLIP=1..N: each a Linux-only
 * interface used the way a portable file might), and a clean control
 * (SLIP=0) it must see compile: a check that cannot fail is worthless,
 * and one that fails on everything is no better.
 */
#if SLIP == 3
#define _GNU_SOURCE /* too late: the poison header came first */
#endif
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#if SLIP == 1
#include <sys/signalfd.h>
#endif

int kb_slip(void);

int
kb_slip(void)
{
	int p[2];
	sigset_t m;

	sigemptyset(&m);
#if SLIP == 0
	if (pipe(p) == -1 || fcntl(p[0], F_SETFD, FD_CLOEXEC) == -1)
		return -1;
	return p[0];
#elif SLIP == 1 || SLIP == 2
	(void)p;
	return signalfd(-1, &m, 0);
#elif SLIP == 3
	return pipe2(p, O_CLOEXEC);
#elif SLIP == 4
	(void)p;
	return open("/", O_PATH);
#elif SLIP == 5
	(void)p;
	return reallocarray(NULL, 2, 8) == NULL;
#endif
}
