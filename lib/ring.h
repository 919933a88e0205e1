/*
 * lib/ring.h — the tail of a stream: the last KB_TAIL bytes of what went
 * through it, kept in a ring and put in order at the end. Both run loops
 * keep the command's stderr this way (backends/run.c, stdout too, and
 * backends/run-posix.c), for the denial classifier. POSIX C11 only: it is
 * part of the portable set (make portable-check).
 */
#ifndef KB_RING_H
#define KB_RING_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

struct kb_ring {
	char *buf;  /* KB_TAIL bytes, the caller's; borrowed */
	size_t pos; /* where the next byte goes */
	bool full;  /* the ring has wrapped: every byte of buf is the tail */
};

/* Adds n bytes of the stream; only the last KB_TAIL are kept. A ring
 * starts zeroed but for buf. */
void kb_ring_add(struct kb_ring *ring, const char *buf, size_t n);

/* Puts the kept bytes in stream order at the start of ring->buf and
 * returns how many there are (at most KB_TAIL). The ring is done: add
 * nothing after. */
size_t kb_ring_finish(struct kb_ring *ring);

#endif
