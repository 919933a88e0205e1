/*
 * lib/fdpass.h — descriptors passed over a unix socket (SCM_RIGHTS) with
 * a few bytes of message: kinbox-exec to kinbox's mounter, the mounter to
 * kinbox. Plain libc only: kinbox-exec links it statically without the
 * rest of lib/.
 */
#ifndef KB_FDPASS_H
#define KB_FDPASS_H

#include <stddef.h>
#include <sys/types.h>

/* at most this many descriptors a message */
#define KB_FDPASS_MAX 4

/* Sends len bytes of buf (at least 1) and nfds descriptors (none when 0;
 * at most KB_FDPASS_MAX), without SIGPIPE. The bytes sent, or -1 with
 * errno. */
ssize_t kb_fd_send(
    int sock, const void *buf, size_t len, const int *fds, size_t nfds);

/* Receives one message into buf (len bytes) and its descriptors (close
 * on exec) into fds, *nfds of them; more than maxfds (or a control part
 * cut short) are closed and the message refused with EBADMSG. The bytes
 * received (0 at end of file), or -1 with errno. */
ssize_t kb_fd_recv(
    int sock, void *buf, size_t len, int *fds, size_t maxfds, size_t *nfds);

#endif
