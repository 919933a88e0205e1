/*
 * mediate/unotify-int.h — what the supervisor's two halves share:
 * unotify.c serves the notifications (the serving thread, the connects
 * that wait, signals, setup), unotify-decide.c decides what a connect may
 * reach.
 */
#ifndef KB_UNOTIFY_INT_H
#define KB_UNOTIFY_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <linux/seccomp.h>

#include "unotify.h"

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif
#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x00004000U
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif

struct job;

#define MAX_WAITING  KB_SUP_MAX_WAITING
#define MAX_PER_PEER KB_SUP_MAX_PER_PEER

struct kb_sup {
	int listener;
	int stop[2]; /* a pipe: kb_sup_stop() closes the write end */
	pthread_t thread;
	bool unique;
	bool check_abstract; /* --net: abstract names are the host's */
	int diag;            /* NETLINK_SOCK_DIAG, with check_abstract */
	uint32_t diag_seq;
	size_t nown, ngranted;
	uint64_t own[KB_SUP_MAX_OWN];
	struct kb_sockid *granted;
	struct seccomp_notif_sizes sizes;
	pthread_mutex_t mu; /* the report */
	/* the connects that wait (the serving thread's alone) */
	struct job **wait;
	size_t nwait, max_wait, max_per_peer, turn;
	uint64_t rng; /* the retries' spread */
	struct kb_sup_report rep;
};

/* Is notification `id` still pending (its caller's pid not recycled)? */
bool sup_notif_valid(const struct kb_sup *, uint64_t id);

/* Remembers a refused connect for the report: the socket file `opath`
 * names (else `named`, as the command gave it), what the command got. */
void sup_note_denial(struct kb_sup *, const char *named, int opath, int err);

/*
 * Resolves the pathname `named` as the caller of `req` would (its root,
 * its cwd, its descriptors through `pidfd`) and decides: 0 with *opath the
 * socket file to connect to, or the errno the command gets (ESRCH: the
 * caller is gone, nothing to answer).
 */
int sup_decide_path(struct kb_sup *, const struct seccomp_notif *req, int pidfd,
    const char *named, int *opath);

/*
 * The abstract names, compared as the kernel does: `name` is the n bytes
 * of sun_path the connect gave (its leading NUL included), `type` the
 * connecting socket's (SOCK_STREAM, SOCK_SEQPACKET).
 *
 * sup_diag_open() makes the NETLINK_SOCK_DIAG socket (in kinbox's network
 * namespace: with --net the sandbox's), -1 with errno. sup_abstract_find()
 * looks for the socket listening on exactly that name (bytes and length)
 * with that type, among all (ino 0) or only the socket `ino`: 1 with its
 * inode in *found, 0 when there is none, -1 with errno when the kernel
 * could not say.
 */
int sup_diag_open(void);
int sup_abstract_find(int diag, uint32_t *seq, const char *name, size_t n,
    int type, uint32_t ino, uint32_t *found);
/* With --net: does a socket of the caller's sandbox listen on the name?
 * (*ino: the listener's inode when one listens) */
bool sup_abstract_own(struct kb_sup *, uint32_t pid, const char *name, size_t n,
    int type, uint32_t *ino);
/* The name for a person ("@" then the bytes after the leading NUL,
 * escaped: a NUL as \x00), never longer than outlen - 1 */
void sup_abstract_text(const char *name, size_t n, char *out, size_t outlen);

#endif
