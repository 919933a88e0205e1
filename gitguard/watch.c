/*
 * gitguard/watch.c — which directories of the writable roots the run
 * changed, as the kernel reports them (fanotify), so that the audit after
 * the run looks there for the repositories the command made instead of
 * walking every directory of the roots (audit.c).
 *
 * A filesystem mark (FAN_MARK_FILESYSTEM) on each root's filesystem with
 * FAN_REPORT_DFID_NAME: every entry created, renamed in, written or
 * chmod'ed (FAN_CREATE, FAN_MOVED_TO, FAN_MODIFY, FAN_ATTRIB, FAN_ONDIR)
 * is reported with the handle of the directory that holds it and its
 * name. The events are queued when the call is made, before it returns
 * to the command, and a rename keeps a directory's handle: a repository
 * made anywhere and moved into place, at any depth, is reported by the
 * directory it was made in, which the handle then finds where it lies
 * now. Nothing reads a name out of the command's memory (a seccomp
 * notification would: the kernel reads it again after the decision).
 *
 * kinbox's own thread reads the events during the run (its run loop
 * polls the group: kb_gitwatch_fd, kb_gitwatch_read) and keeps each
 * directory once (with whether an entry named .git appeared in it, or
 * was changed); kb_gitwatch_stop() drains the queue once every process
 * of the run is dead. The cost follows what the run (and the rest of
 * the host, on the same filesystem) changed, not what the roots hold.
 *
 * Filesystem marks need CAP_SYS_ADMIN in the initial user namespace (an
 * unprivileged user may mark only a filesystem its own user namespace
 * mounted; a mount mark reports no directory entries): root's runs are
 * watched, a user's are audited by the walk, and kinbox --status and
 * --dry-run say which. A root whose filesystem cannot be marked (no file
 * handles, a weak fsid: btrfs subvolumes, some FUSE) is walked; so are
 * all of them when the watch lost an event (the kernel's queue
 * overflowed while kinbox's loop was held up, or more than
 * KB_GITWATCH_MAX_DIRS directories changed).
 */
#include <errno.h>

#include "gitguard.h"

#ifdef __linux__
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../lib/closelater.h"
#include "../lib/fsat.h"

#define WATCH_MASK                                                             \
	(FAN_CREATE | FAN_MOVED_TO | FAN_MODIFY | FAN_ATTRIB | FAN_ONDIR)
#define KEY_MAX (sizeof(uint64_t) + sizeof(int) + MAX_HANDLE_SZ)

struct dir_ent {
	uint64_t hash;
	uint32_t off; /* the key in the arena: fsid, handle type, bytes */
	uint16_t len;
	uint8_t flags; /* KB_GITWATCH_DOTGIT, _APPEARED */
};

struct kb_gitwatch {
	int fan; /* the fanotify group */
	bool running;
	/* the roots (borrowed from the policy) and, per root, the
	 * descriptor open_by_handle_at() resolves through (-1: walked) */
	const char *roots[KB_MAX_ROOTS];
	int rootfd[KB_MAX_ROOTS];
	uint64_t fsid[KB_MAX_ROOTS];
	size_t nroots;
	/* the directories, an open-addressed table over a key arena */
	struct dir_ent *tab;
	size_t cap, n;
	unsigned char *arena;
	size_t arena_len, arena_cap;
	bool lost; /* an event could not be kept: walk every root */
	unsigned long long events;
};

static uint64_t
fnv(const unsigned char *p, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	while (n-- > 0)
		h = (h ^ *p++) * 1099511628211ULL;
	return h;
}

static bool
grow(struct kb_gitwatch *w)
{
	size_t ncap = w->cap ? w->cap * 2 : 1024;
	struct dir_ent *nt = calloc(ncap, sizeof(*nt));

	if (nt == NULL)
		return false;
	for (size_t i = 0; i < w->cap; i++) {
		size_t j;

		if (w->tab[i].len == 0)
			continue;
		for (j = w->tab[i].hash & (ncap - 1); nt[j].len != 0;
		     j = (j + 1) & (ncap - 1))
			;
		nt[j] = w->tab[i];
	}
	free(w->tab);
	w->tab = nt;
	w->cap = ncap;
	return true;
}

/* the directory `key` once, its flags or'ed in */
static void
record(
    struct kb_gitwatch *w, const unsigned char *key, size_t len, uint8_t flags)
{
	uint64_t h = fnv(key, len);
	size_t j;

	if (w->n >= KB_GITWATCH_MAX_DIRS) {
		w->lost = true;
		return;
	}
	if ((w->n + 1) * 2 > w->cap && !grow(w)) {
		w->lost = true;
		return;
	}
	for (j = h & (w->cap - 1); w->tab[j].len != 0;
	     j = (j + 1) & (w->cap - 1)) {
		struct dir_ent *e = &w->tab[j];

		if (e->hash == h && e->len == len &&
		    memcmp(w->arena + e->off, key, len) == 0) {
			e->flags |= flags;
			return;
		}
	}
	if (w->arena_len + len > w->arena_cap) {
		size_t ncap = w->arena_cap ? w->arena_cap * 2 : 65536;
		unsigned char *na =
		    ncap <= UINT32_MAX ? realloc(w->arena, ncap) : NULL;

		if (na == NULL) {
			w->lost = true;
			return;
		}
		w->arena = na;
		w->arena_cap = ncap;
	}
	memcpy(w->arena + w->arena_len, key, len);
	w->tab[j] = (struct dir_ent){.hash = h,
	    .off = (uint32_t)w->arena_len,
	    .len = (uint16_t)len,
	    .flags = flags};
	w->arena_len += len;
	w->n++;
}

/* One buffer of events: each directory handle with its flags. The kernel
 * aligns every event (FAN_EVENT_NEXT steps by event_len, a multiple of
 * 8) and the buffer is the event read's own, aligned for the metadata:
 * -Wcast-align (clang's fuzz build) is off for this function alone. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wcast-align"
static void
take(struct kb_gitwatch *w, const char *buf, ssize_t len)
{
	const struct fanotify_event_metadata *m = (const void *)buf;

	for (; FAN_EVENT_OK(m, len); m = FAN_EVENT_NEXT(m, len)) {
		const char *at = (const char *)(m + 1);
		const char *end = (const char *)m + m->event_len;

		w->events++;
		if (m->fd >= 0)
			close(m->fd);
		if (m->vers != FANOTIFY_METADATA_VERSION ||
		    (m->mask & FAN_Q_OVERFLOW)) {
			w->lost = true;
			continue;
		}
		while (at + sizeof(struct fanotify_event_info_header) <= end) {
			const struct fanotify_event_info_header *h =
			    (const void *)at;
			const struct fanotify_event_info_fid *fid;
			const struct file_handle *fh;
			unsigned char key[KEY_MAX];
			const char *name = NULL;
			uint8_t flags = 0;
			size_t klen;

			if (h->len < sizeof(*h) || at + h->len > end)
				break;
			at += h->len;
			if (h->info_type != FAN_EVENT_INFO_TYPE_DFID_NAME &&
			    h->info_type != FAN_EVENT_INFO_TYPE_DFID)
				continue;
			fid = (const void *)h;
			fh = (const void *)fid->handle;
			if ((const char *)fh + sizeof(*fh) > at ||
			    fh->handle_bytes > MAX_HANDLE_SZ ||
			    (const char *)fh->f_handle + fh->handle_bytes >
				at) {
				w->lost = true;
				continue;
			}
			if (h->info_type == FAN_EVENT_INFO_TYPE_DFID_NAME)
				name = (const char *)fh->f_handle +
				       fh->handle_bytes;
			/* case-insensitively: .GIT is .git in a casefolded
			 * directory */
			if (name != NULL && strcasecmp(name, ".git") == 0) {
				flags |= KB_GITWATCH_DOTGIT;
				if (m->mask & (FAN_CREATE | FAN_MOVED_TO))
					flags |= KB_GITWATCH_APPEARED;
			}
			memcpy(key, &fid->fsid, sizeof(uint64_t));
			memcpy(key + sizeof(uint64_t), &fh->handle_type,
			    sizeof(int));
			memcpy(key + sizeof(uint64_t) + sizeof(int),
			    fh->f_handle, fh->handle_bytes);
			klen =
			    sizeof(uint64_t) + sizeof(int) + fh->handle_bytes;
			record(w, key, klen, flags);
		}
	}
}
#pragma GCC diagnostic pop

/* reads what is queued now; false when the group failed */
static bool
drain(struct kb_gitwatch *w)
{
	char buf[65536] __attribute__((aligned(8)));

	for (;;) {
		ssize_t n = read(w->fan, buf, sizeof(buf));

		if (n > 0) {
			take(w, buf, n);
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		return n == -1 && errno == EAGAIN;
	}
}

static uint64_t
fsid_of(int fd)
{
	struct statfs sf;
	uint64_t id = 0;

	if (fstatfs(fd, &sf) == 0)
		memcpy(&id, &sf.f_fsid, sizeof(id));
	return id;
}

static int
open_group(void)
{
	/* the kernel's bounded queue (fs.fanotify.max_queued_events): the
	 * command cannot grow it past that while kinbox's loop is held up
	 * (a caller that stopped reading the command's stdout); an
	 * overflow makes the audit walk every root */
	return fanotify_init(
	    FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME | FAN_CLOEXEC | FAN_NONBLOCK,
	    O_RDONLY | O_CLOEXEC | O_LARGEFILE);
}

int
kb_gitwatch_probe(const char *dir)
{
	int fan = open_group();
	int err = 0;

	if (fan == -1)
		return errno;
	if (fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, WATCH_MASK,
		AT_FDCWD, dir) == -1)
		err = errno;
	close(fan);
	return err;
}

struct kb_gitwatch *
kb_gitwatch_start(const struct kb_policy *p, int *err)
{
	struct kb_gitwatch *w = xcalloc(1, sizeof(*w));
	size_t marked = 0;

	w->nroots = kb_policy_roots(p, w->roots);
	for (size_t i = 0; i < w->nroots; i++)
		w->rootfd[i] = -1;
	if ((w->fan = open_group()) == -1) {
		*err = errno;
		free(w);
		return NULL;
	}
	*err = 0;
	for (size_t i = 0; i < w->nroots; i++) {
		/* fanotify_mark() and open_by_handle_at() take no O_PATH
		 * descriptor */
		int pfd = kb_open_dir_nofollow(w->roots[i]);
		int fd = pfd != -1 ? kb_openat_beneath(
					 pfd, ".", O_RDONLY | O_DIRECTORY)
				   : -1;

		if (pfd != -1)
			close(pfd);
		if (fd == -1)
			continue;
		/* a filesystem marked twice is one mark */
		if (fanotify_mark(w->fan, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
			WATCH_MASK, fd, NULL) == -1) {
			*err = errno;
			close(fd);
			continue;
		}
		w->rootfd[i] = fd;
		w->fsid[i] = fsid_of(fd);
		marked++;
	}
	if (marked == 0) {
		if (*err == 0)
			*err = ENOENT;
		kb_gitwatch_free(w);
		return NULL;
	}
	w->running = true;
	return w;
}

int
kb_gitwatch_fd(const struct kb_gitwatch *w)
{
	return w == NULL || !w->running ? -1 : w->fan;
}

void
kb_gitwatch_read(struct kb_gitwatch *w)
{
	if (w != NULL && w->running && !drain(w))
		w->lost = true;
}

void
kb_gitwatch_stop(struct kb_gitwatch *w)
{
	if (w == NULL || !w->running)
		return;
	/* every process of the run is dead: each of its changes was
	 * queued when its call was made */
	kb_gitwatch_read(w);
	w->running = false;
	/* the marks go now (nothing more to report while the audit runs);
	 * the group's last close is kb_close_later()'s */
	(void)fanotify_mark(
	    w->fan, FAN_MARK_FLUSH | FAN_MARK_FILESYSTEM, 0, AT_FDCWD, NULL);
}

bool
kb_gitwatch_covers(const struct kb_gitwatch *w, const char *root)
{
	if (w == NULL || w->running || w->lost)
		return false;
	for (size_t i = 0; i < w->nroots; i++)
		if (w->roots[i] == root || strcmp(w->roots[i], root) == 0)
			return w->rootfd[i] != -1;
	return false;
}

void
kb_gitwatch_each(const struct kb_gitwatch *w,
    void (*fn)(int dirfd, unsigned flags, void *ctx), void *ctx)
{
	union {
		struct file_handle fh;
		unsigned char bytes[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} u;

	if (w == NULL || w->running)
		return;
	for (size_t i = 0; i < w->cap; i++) {
		const struct dir_ent *e = &w->tab[i];
		const unsigned char *key = w->arena + e->off;
		uint64_t fsid;
		int mfd = -1, fd;

		if (e->len == 0)
			continue;
		memcpy(&fsid, key, sizeof(fsid));
		for (size_t r = 0; r < w->nroots && mfd == -1; r++)
			if (w->rootfd[r] != -1 && w->fsid[r] == fsid)
				mfd = w->rootfd[r];
		if (mfd == -1)
			continue; /* another filesystem (not marked here) */
		memcpy(&u.fh.handle_type, key + sizeof(fsid), sizeof(int));
		u.fh.handle_bytes =
		    (unsigned)(e->len - sizeof(fsid) - sizeof(int));
		memcpy(u.fh.f_handle, key + sizeof(fsid) + sizeof(int),
		    u.fh.handle_bytes);
		/* ESTALE: removed since; EACCES/EPERM: needs
		 * CAP_DAC_READ_SEARCH, which the mark needed more of */
		fd = open_by_handle_at(mfd, &u.fh, O_PATH | O_CLOEXEC);
		if (fd == -1)
			continue;
		fn(fd, e->flags, ctx);
		close(fd);
	}
}

size_t
kb_gitwatch_ndirs(const struct kb_gitwatch *w)
{
	return w == NULL ? 0 : w->n;
}

void
kb_gitwatch_free(struct kb_gitwatch *w)
{
	if (w == NULL)
		return;
	kb_gitwatch_stop(w);
	/* the last close of a group that had a filesystem mark waits for
	 * an SRCU grace period (5 to 15 ms measured here, more than the
	 * whole audit and than many a command): made after kinbox's
	 * caller stopped waiting (lib/closelater.h) */
	kb_close_later(w->fan);
	for (size_t i = 0; i < w->nroots; i++)
		if (w->rootfd[i] != -1)
			close(w->rootfd[i]);
	free(w->tab);
	free(w->arena);
	free(w);
}

#else /* no fanotify: every root is walked */

int
kb_gitwatch_probe(const char *dir)
{
	(void)dir;
	return ENOSYS;
}

struct kb_gitwatch *
kb_gitwatch_start(const struct kb_policy *p, int *err)
{
	(void)p;
	*err = ENOSYS;
	return NULL;
}

int
kb_gitwatch_fd(const struct kb_gitwatch *w)
{
	(void)w;
	return -1;
}

void
kb_gitwatch_read(struct kb_gitwatch *w)
{
	(void)w;
}

void
kb_gitwatch_stop(struct kb_gitwatch *w)
{
	(void)w;
}

bool
kb_gitwatch_covers(const struct kb_gitwatch *w, const char *root)
{
	(void)w;
	(void)root;
	return false;
}

void
kb_gitwatch_each(const struct kb_gitwatch *w,
    void (*fn)(int dirfd, unsigned flags, void *ctx), void *ctx)
{
	(void)w;
	(void)fn;
	(void)ctx;
}

size_t
kb_gitwatch_ndirs(const struct kb_gitwatch *w)
{
	(void)w;
	return 0;
}

void
kb_gitwatch_free(struct kb_gitwatch *w)
{
	(void)w;
}
#endif
