/*
 * backends/proctab.c — the process table for the POSIX run path: libproc
 * on macOS, /proc elsewhere (Linux, where the tests run it). Only POSIX
 * calls outside the __APPLE__ half: `make portable-check` compiles this
 * file with the Linux-only interfaces poisoned. The __APPLE__ half has not
 * been compiled, let alone run: no macOS machine was available.
 */
#include "proctab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifdef __APPLE__
#include <libproc.h>
#include <sys/proc.h>
#include <sys/proc_info.h>

int
kb_proctab_read(struct kb_proc **v, size_t *n)
{
	int cap = proc_listallpids(NULL, 0), got;
	pid_t *pids;
	struct kb_proc *out;
	size_t k = 0;

	*v = NULL;
	*n = 0;
	if (cap <= 0)
		return -1;
	cap += 64; /* what starts meanwhile */
	if ((pids = calloc((size_t)cap, sizeof(*pids))) == NULL)
		return -1;
	got = proc_listallpids(pids, cap * (int)sizeof(*pids));
	if (got <= 0 || (out = calloc((size_t)got, sizeof(*out))) == NULL) {
		free(pids);
		return -1;
	}
	for (int i = 0; i < got; i++) {
		struct proc_bsdinfo bi;

		/* another user's process: EPERM, and nothing of ours */
		if (proc_pidinfo(pids[i], PROC_PIDTBSDINFO, 0, &bi,
			sizeof(bi)) != (int)sizeof(bi))
			continue;
		out[k].pid = pids[i];
		out[k].ppid = (pid_t)bi.pbi_ppid;
		out[k].pgid = (pid_t)bi.pbi_pgid;
		out[k].start =
		    (unsigned long long)bi.pbi_start_tvsec * 1000000ULL +
		    (unsigned long long)bi.pbi_start_tvusec;
		out[k].zombie = bi.pbi_status == SZOMB;
		k++;
	}
	free(pids);
	*v = out;
	*n = k;
	return 0;
}

#else /* /proc */

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

/*
 * /proc/PID/stat: "pid (comm) state ppid pgrp session ... starttime", the
 * start the 22nd field. comm may hold spaces and parentheses: the fields
 * are read after its last ')'.
 */
static int
read_stat(const char *name, struct kb_proc *p)
{
	char path[64], buf[1024], *s, *end;
	ssize_t len;
	int fd;
	char state;
	long field[20];

	snprintf(path, sizeof(path), "/proc/%s/stat", name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	if ((s = strrchr(buf, ')')) == NULL || s[1] != ' ' || s[2] == '\0')
		return -1;
	state = s[2];
	s += 3;
	/* fields 4..22: ppid pgrp session tty tpgid flags minflt cminflt
	 * majflt cmajflt utime stime cutime cstime priority nice threads
	 * itrealvalue starttime */
	for (int i = 0; i < 19; i++) {
		errno = 0;
		field[i] = strtol(s, &end, 10);
		if (end == s || errno != 0)
			return -1;
		s = end;
	}
	p->pid = (pid_t)strtol(name, NULL, 10);
	p->ppid = (pid_t)field[0];
	p->pgid = (pid_t)field[1];
	p->start = (unsigned long long)field[18];
	p->zombie = state == 'Z' || state == 'X';
	return 0;
}

int
kb_proctab_read(struct kb_proc **v, size_t *n)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	struct kb_proc *out = NULL;
	size_t k = 0, cap = 0;

	*v = NULL;
	*n = 0;
	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		struct kb_proc p;

		if (e->d_name[0] < '1' || e->d_name[0] > '9' ||
		    strspn(e->d_name, "0123456789") != strlen(e->d_name) ||
		    read_stat(e->d_name, &p) == -1)
			continue;
		if (k == cap) {
			struct kb_proc *grown;

			cap = cap ? cap * 2 : 256;
			if ((grown = realloc(out, cap * sizeof(*out))) ==
			    NULL) {
				free(out);
				closedir(d);
				errno = ENOMEM;
				return -1;
			}
			out = grown;
		}
		out[k++] = p;
	}
	closedir(d);
	*v = out;
	*n = k;
	return 0;
}

#endif
