/*
 * profile/refusal.h — what a service kinbox runs outside the sandbox
 * refused the command, one record per thing refused: the unix-socket
 * supervisor's connects (mediate/unotify.c) and the egress proxy's
 * destinations (mediate/proxy.c) record them, the classifier judges them
 * with the rest of the run (classify/evidence.c). Plain data, here so
 * that both stages may name it without depending on each other.
 */
#ifndef KB_REFUSAL_H
#define KB_REFUSAL_H

#include <stdbool.h>

/* One refused connect: the socket as kinbox resolved it in the sandbox
 * (what the command named when it could not be resolved), how often. */
struct kb_refused_socket {
	char path[4096];
	char named[109]; /* sun_path as the command gave it */
	int err;         /* what the command got */
	unsigned count;
};

/* One refused destination of the egress proxy, once per host, port and
 * reason. */
struct kb_refused_host {
	char host[256]; /* as the client sent it, cut (escape to print) */
	unsigned port;
	char why[256];  /* "not on the allow-list", "resolves only to
			   refused addresses (loopback 127.0.0.0/8)", ... */
	bool grantable; /* --allow-host host:port would let it out */
	unsigned count;
};

#endif
