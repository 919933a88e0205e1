/*
 * mediate/unotify-meta.h — the landlock backend's metadata supervisor:
 * every chmod, chown, utime and xattr change of the sandboxed command is a
 * seccomp user notification that kinbox answers by judging the file the
 * call names and, when it lies beneath a write root, changing it itself
 * (mediate/unotify-meta.c). Landlock has no right for a file's metadata.
 */
#ifndef KB_UNOTIFY_META_H
#define KB_UNOTIFY_META_H

#include <stddef.h>
#include <stdint.h>

#define KB_META_MAX_ROOT   64
#define KB_META_MAX_DENIAL 8

/* what kinbox-exec sends with the listener: the write roots its Landlock
 * rules were made on (the inodes, as fstat gave them before the command
 * ran) */
struct kb_meta_hello {
	uint32_t magic; /* KB_META_MAGIC */
	uint32_t nroot;
	struct {
		uint64_t dev, ino;
	} root[KB_META_MAX_ROOT];
};
#define KB_META_MAGIC 0x6b626d64U /* "kbmd" */

/* one refused call: the file as kinbox resolved it, how often */
struct kb_meta_denial {
	char path[4096];
	char call[16]; /* "chmod", "chown", "utimes", "setxattr", ... */
	unsigned count;
};

struct kb_meta_report {
	unsigned long long served;  /* done on the command's behalf */
	unsigned long long refused; /* outside the write roots: EROFS */
	unsigned long long failed;  /* could not be mediated (the command's
				       memory or /proc out of reach): EPERM */
	size_t ndenial;
	struct kb_meta_denial denial[KB_META_MAX_DENIAL];
};

struct kb_meta;

/* Starts serving `listener` (taken over) on a thread of its own, with the
 * roots of `hello`. NULL with errno when it cannot (the caller must then
 * stop the sandbox: its calls would wait forever). */
struct kb_meta *kb_meta_start(int listener, const struct kb_meta_hello *);

/* Stops serving (the sandbox is gone) and copies what was refused. */
void kb_meta_stop(struct kb_meta *, struct kb_meta_report *out);

/* Receives the listener and the hello from kinbox-exec on `sock`: the
 * listener, or -1 (EPROTO: malformed; ENODATA: kinbox-exec ended first). */
int kb_meta_recv(int sock, struct kb_meta_hello *);

/* Can this host mediate metadata calls? NULL when it can, else why not (a
 * static string): user notifications, reading the command's memory
 * (Yama's ptrace_scope), openat2, not inside a kinbox sandbox already
 * (whose filter refuses a second listener). */
const char *kb_meta_unavailable(void);

/*
 * The pure part, for the unit test and the fuzzer: the call `nr` of the
 * native architecture (x32's bit cleared) with arguments `a`, decoded.
 * 0 and *out filled, or -1 when `nr` is not one of the metadata calls.
 */
enum kb_meta_op {
	KB_META_CHMOD,
	KB_META_CHOWN,
	KB_META_UTIMES, /* times: NULL, utimbuf, timeval[2] or timespec[2] */
	KB_META_SETXATTR,
	KB_META_REMOVEXATTR,
};
enum kb_meta_times {
	KB_META_T_NONE,     /* not a times call */
	KB_META_T_UTIMBUF,  /* struct utimbuf */
	KB_META_T_TIMEVAL,  /* struct timeval[2] */
	KB_META_T_TIMESPEC, /* struct timespec[2] */
};
struct kb_meta_call {
	const char *name;
	enum kb_meta_op op;
	int dirfd;         /* AT_FDCWD, or the descriptor the path is from */
	uint64_t path;     /* the path's address; 0: the call takes none */
	int follow;        /* follow a last symlink */
	int empty_ok;      /* AT_EMPTY_PATH (or a NULL path for utimensat) */
	int fd_form;       /* no path: dirfd is the file itself */
	uint64_t mode;     /* chmod */
	uint32_t uid, gid; /* chown */
	uint64_t times;    /* the times' address, 0: now */
	enum kb_meta_times tkind;  /* utimes */
	uint64_t name_addr, value; /* xattrs */
	uint64_t size;
	int xflags;
};
int kb_meta_decode(
    int nr, const uint64_t a[6], struct kb_meta_call *out, int *err);

#endif
