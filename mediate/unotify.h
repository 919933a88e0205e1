/*
 * mediate/unotify.h — the unix-socket supervisor: every connect() of the
 * sandboxed command is a seccomp user notification that kinbox answers by
 * connecting the command's own socket itself (mediate/unotify.c).
 */
#ifndef KB_UNOTIFY_H
#define KB_UNOTIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../profile/refusal.h"

/* a granted socket (--ssh-agent, --allow-socket): this inode only */
struct kb_sockid {
	dev_t dev;
	ino_t ino;
};

#define KB_SUP_MAX_OWN    64 /* mounts that are the command's own */
#define KB_SUP_MAX_DENIAL 8  /* distinct refused sockets remembered */

/* what kinbox-exec sends with the listener: the mount ids of the own
 * mounts, as statx(2) gave them inside the sandbox before the command ran */
struct kb_sup_hello {
	uint32_t magic;  /* KB_SUP_MAGIC */
	uint32_t unique; /* 1: STATX_MNT_ID_UNIQUE ids, 0: STATX_MNT_ID ones */
	uint32_t nown;
	uint32_t pad;
	uint64_t own[KB_SUP_MAX_OWN];
};
#define KB_SUP_MAGIC 0x6b62756eU /* "kbun" */

struct kb_sup_report {
	unsigned long long connects;   /* answered on the command's behalf */
	unsigned long long refused;    /* pathname unix connects refused */
	unsigned long long failed;     /* could not be mediated (the command's
					  memory or descriptor out of reach):
					  refused, fail closed */
	unsigned long long busy;       /* blocking connects that would have
					  waited, refused EAGAIN: as many
					  waited already (to that address) */
	size_t max_wait, max_per_peer; /* how many: the table's size */
	size_t ndenial;
	struct kb_refused_socket denial[KB_SUP_MAX_DENIAL];
};

struct kb_sup;

/*
 * At most this many blocking connects of a run wait at once (a unix
 * listener's backlog full, a TCP handshake), at most KB_SUP_MAX_PER_PEER
 * (a quarter) to one address; past those, one that would wait fails with
 * EAGAIN. Fewer under a hard RLIMIT_NOFILE too low for two descriptors
 * each (the report says how many).
 */
#define KB_SUP_MAX_WAITING  512
#define KB_SUP_MAX_PER_PEER 128

/*
 * Starts serving `listener` (taken over) on a thread of its own: own mount
 * ids from `hello`, the granted sockets; with `check_abstract` (the
 * host's network namespace: --net) an abstract name is connected only
 * when a socket of the sandbox listens on it. Returns NULL with errno when it
 * cannot (the caller must then stop the sandbox: its connects would wait
 * forever).
 */
struct kb_sup *kb_sup_start(int listener, const struct kb_sup_hello *hello,
    const struct kb_sockid *granted, size_t ngranted, bool check_abstract);

/* Stops serving (the sandbox is gone) and copies what was refused. */
void kb_sup_stop(struct kb_sup *, struct kb_sup_report *out);

/* Receives the listener and the hello from kinbox-exec on `sock`: the
 * listener, or -1 (errno EPROTO on a malformed message, ENODATA when
 * kinbox-exec ended without sending one: its status says why). */
int kb_sup_recv(int sock, struct kb_sup_hello *hello);

#endif
