/*
 * lib/ring.c — the last KB_TAIL bytes of a stream, in a ring (see
 * ring.h): the stderr tail of both run loops.
 */
#include <string.h>

#include "ring.h"

void
kb_ring_add(struct kb_ring *ring, const char *buf, size_t n)
{
	size_t first;

	if (n >= KB_TAIL) {
		memcpy(ring->buf, buf + n - KB_TAIL, KB_TAIL);
		ring->pos = 0;
		ring->full = true;
		return;
	}
	first = KB_TAIL - ring->pos < n ? KB_TAIL - ring->pos : n;
	memcpy(ring->buf + ring->pos, buf, first);
	memcpy(ring->buf, buf + first, n - first);
	if (ring->pos + n >= KB_TAIL)
		ring->full = true;
	ring->pos = (ring->pos + n) % KB_TAIL;
}

static void
reverse(char *p, size_t n)
{
	for (size_t i = 0, j = n; i + 1 < j; i++, j--) {
		char c = p[i];

		p[i] = p[j - 1];
		p[j - 1] = c;
	}
}

size_t
kb_ring_finish(struct kb_ring *ring)
{
	if (!ring->full)
		return ring->pos;
	/* the oldest byte is at pos: a rotation left by pos, in place (no
	 * second KB_TAIL buffer on the stack or in the data segment) */
	reverse(ring->buf, ring->pos);
	reverse(ring->buf + ring->pos, KB_TAIL - ring->pos);
	reverse(ring->buf, KB_TAIL);
	return KB_TAIL;
}
