/*
 * backends/relay.h — the relays of the command's stderr and stdout (an
 * internal header of backends/: run.c's use of relay.c): the bytes passed
 * on to kinbox's own fd 2 and fd 1 as they come, the last KB_TAIL bytes of
 * each kept in struct kb_run for the denial classifier.
 */
#ifndef KB_RELAY_H
#define KB_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "../lib/ring.h"
#include "backend.h"

struct kb_relay {
	int fd;  /* read end: pipe or pty master; -1 when closed */
	int out; /* where it goes: 2 (stderr) or 1 (stdout) */
	bool pty;
	bool out_dead; /* our end is gone: see kb_relay_some */
	/* stdout to a pipe: tee(2)'d there, the command's pipe then
	 * emptied into /dev/null (splice) but for the tail: no copy */
	bool tee;
	int devnull;
	struct kb_ring ring; /* over KB_TAIL bytes of struct kb_run */
	size_t *ring_len;
	unsigned long long *bytes;
};

/* The command's fd 2: a pty or a pipe whose read end is rl->fd; its write
 * end in *child_end. 0, or -1 with errno set. */
int kb_relay_open_err(struct kb_relay *rl, struct kb_run *r, int *child_end);
/* The command's fd 1 when stdout is relayed, or -1 (*file_at: where a
 * regular file's run output starts, or -1). */
int kb_relay_open_out(struct kb_relay *rl, struct kb_run *r, off_t *file_at);
/* Moves what is there now; closes the relay at end of stream. */
void kb_relay_some(struct kb_relay *rl);
void kb_relay_close(struct kb_relay *rl);
/* The kept tail, in order, where struct kb_run holds it. */
void kb_relay_finish(struct kb_relay *rl);
/* A regular file as stdout: the tail of what the run appended. */
void kb_relay_file_tail(struct kb_run *r, off_t from);

#endif
