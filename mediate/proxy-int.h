/*
 * mediate/proxy-int.h — what the egress proxy's two files share: the
 * serving (proxy.c) and the relay (proxy-relay.c). Not for other callers.
 */
#ifndef KB_PROXY_INT_H
#define KB_PROXY_INT_H

#include <stddef.h>

#include "egress.h"

#define KB_PX_HEAD_TIMEOUT_S                                                   \
	30                         /* for a request head, a ClientHello, a     \
				      blocked send */
#define KB_PX_PIPE_BYTES (1 << 20) /* a relay pipe's size, asked for */

/* all of buf to a (possibly non-blocking) socket; -1 on error */
int kb_px_send_all(int fd, const void *buf, size_t len);

/*
 * Relays a connection whose checks passed: until the upstream's answer
 * ended, and, for a CONNECT tunnel (rq NULL), both ways until both
 * directions ended; for plain HTTP the client's body goes upstream exactly
 * as framed (rest[0..nrest) first: what came with the head) and nothing
 * after it.
 */
void kb_px_relay(int cfd, int ufd, const struct kb_http_req *rq,
    const char *rest, size_t nrest);

#endif
