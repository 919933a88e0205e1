/*
 * backends/proctab.h — the process table, read the same way on macOS
 * (libproc: proc_listallpids, proc_pidinfo) and elsewhere (/proc), for the
 * POSIX run path's walk of what a command left running
 * (backends/run-posix.c). Part of the portable set `make portable-check`
 * compiles as POSIX C11; the macOS half has never been compiled here (no
 * macOS machine), the /proc half runs in the tests on Linux.
 */
#ifndef KB_PROCTAB_H
#define KB_PROCTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct kb_proc {
	pid_t pid, ppid, pgid;
	/* when it started, in the system's own unit (clock ticks since boot
	 * on Linux, microseconds since the epoch on macOS): with the pid,
	 * what tells a process from a later one given the same pid */
	unsigned long long start;
	bool zombie; /* exited, not yet waited for: nothing to kill */
};

/*
 * Every process this one can see, in *v (a new array; free it) and *n.
 * 0, or -1 with errno (no /proc, no libproc): the caller then cannot walk
 * the table and must say so. A process that exits while the table is read
 * may be missing or half-read; it is left out.
 */
int kb_proctab_read(struct kb_proc **v, size_t *n);

#endif
