/*
 * backends/relay.c — the relays of the command's stderr and stdout, for
 * backends/run.c: a pseudo-terminal or a pipe for stderr, a pipe (tee'd
 * when it can be) for stdout to a pipe or a socket, the bytes passed on
 * unchanged and the last KB_TAIL bytes of each kept for the classifier; a
 * regular file as stdout has its tail read back after the run.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "relay.h"

#define RELAY_CHUNK     (128 * 1024)
#define RELAY_PIPE_SIZE (1024 * 1024)

static void
write_all(struct kb_relay *rl, const char *buf, size_t n)
{
	while (n > 0 && !rl->out_dead) {
		ssize_t w = write(rl->out, buf, n);

		if (w > 0) {
			buf += w;
			n -= (size_t)w;
		} else if (w == -1 && errno == EINTR) {
			continue;
		} else if (w == -1 && errno == EAGAIN) {
			struct pollfd p = {.fd = rl->out, .events = POLLOUT};

			poll(&p, 1, -1);
		} else {
			rl->out_dead = true;
		}
	}
}

/* the last KB_TAIL bytes, kept in a ring (lib/ring.c), linearised at the
 * end where struct kb_run holds them */
void
kb_relay_finish(struct kb_relay *rl)
{
	if (rl->ring.buf == NULL)
		return;
	*rl->ring_len = kb_ring_finish(&rl->ring);
}

void
kb_relay_close(struct kb_relay *rl)
{
	if (rl->fd != -1)
		close(rl->fd);
	rl->fd = -1;
	if (rl->devnull != -1)
		close(rl->devnull);
	rl->devnull = -1;
}

/* Our stdout's reader went away: the command's pipe is closed too, so
 * that its next write gets SIGPIPE or EPIPE, as it would without kinbox
 * (stderr instead keeps draining: a closed stderr must not kill it). */
static bool
relay_dead(struct kb_relay *rl)
{
	if (!rl->out_dead || rl->out != 1)
		return false;
	kb_relay_close(rl);
	return true;
}

/* stdout to a pipe: tee to it, keep the tail, splice the rest away */
static int
relay_tee(struct kb_relay *rl)
{
	static char buf[KB_TAIL];
	ssize_t t = tee(rl->fd, rl->out, RELAY_PIPE_SIZE, SPLICE_F_NONBLOCK);

	if (t == -1 && errno == EAGAIN) {
		/* the command's pipe is empty, or ours is full */
		struct pollfd p[2] = {{.fd = rl->fd, .events = POLLIN},
		    {.fd = rl->out, .events = POLLOUT}};

		if (poll(p, 2, 0) > 0 && (p[0].revents & POLLIN) &&
		    !(p[1].revents & (POLLOUT | POLLERR))) {
			poll(&p[1], 1, -1);
			return 1;
		}
		if (p[1].revents & POLLERR) {
			rl->out_dead = true;
			return 1;
		}
		return 0;
	}
	if (t == -1 && errno == EINTR)
		return 1;
	if (t == -1) {
		/* EPIPE: our reader is gone; anything else: not teeable */
		if (errno == EPIPE)
			rl->out_dead = true;
		else
			rl->tee = false;
		return 1;
	}
	if (t == 0) {
		/* EOF, or a writer gone with nothing left */
		char c;
		ssize_t n = read(rl->fd, &c, 1);

		if (n == 1) { /* raced: a byte after all */
			write_all(rl, &c, 1);
			kb_ring_add(&rl->ring, &c, 1);
			*rl->bytes += 1;
			return 1;
		}
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			return 0;
		kb_relay_close(rl);
		return 0;
	}
	*rl->bytes += (unsigned long long)t;
	if ((size_t)t > KB_TAIL) {
		size_t skip = (size_t)t - KB_TAIL;

		while (skip > 0) {
			ssize_t k =
			    splice(rl->fd, NULL, rl->devnull, NULL, skip, 0);

			if (k <= 0 && errno != EINTR)
				return -1;
			if (k > 0)
				skip -= (size_t)k;
		}
		t = KB_TAIL;
	}
	for (size_t got = 0; got < (size_t)t;) {
		ssize_t k = read(rl->fd, buf + got, (size_t)t - got);

		if (k <= 0 && errno != EINTR)
			return -1;
		if (k > 0)
			got += (size_t)k;
	}
	kb_ring_add(&rl->ring, buf, (size_t)t);
	return 1;
}

/* Moves what is there now; closes the relay at end of stream. A bounded
 * number of rounds, so that signals are still seen under a flood. */
void
kb_relay_some(struct kb_relay *rl)
{
	static char buf[RELAY_CHUNK];

	for (int round = 0; round < 64 && rl->fd != -1; round++) {
		ssize_t n;

		if (relay_dead(rl))
			return;
		if (rl->tee && !rl->out_dead) {
			int k = relay_tee(rl);

			if (k == -1) {
				kb_relay_close(rl);
				return;
			}
			if (k == 0)
				return;
			continue;
		}
		n = read(rl->fd, buf, sizeof(buf));
		if (n > 0) {
			write_all(rl, buf, (size_t)n);
			kb_ring_add(&rl->ring, buf, (size_t)n);
			*rl->bytes += (unsigned long long)n;
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return;
		/* 0: every writer is gone; EIO: a pty whose slave closed */
		kb_relay_close(rl);
	}
}

/*
 * The command's fd 1, when our stdout is a pipe or a socket (an agent's,
 * a CI log's): a pipe, relayed byte for byte and its tail kept, so that a
 * denial a tool reports on stdout is seen. A terminal is left to the
 * command (a pipe would change what it prints), and so are a regular file
 * (its tail is read back after the run: rl->fd stays -1 and *file_at is
 * where the run's output starts) and a device (/dev/null). -1 for none.
 */
int
kb_relay_open_out(struct kb_relay *rl, struct kb_run *r, off_t *file_at)
{
	struct stat st;
	int p[2];

	rl->fd = rl->devnull = -1;
	rl->out = 1;
	rl->ring.buf = r->out_tail;
	rl->ring_len = &r->out_tail_len;
	rl->bytes = &r->stdout_bytes;
	*file_at = -1;
	if (fstat(1, &st) == -1 || isatty(1))
		return -1;
	if (S_ISREG(st.st_mode)) {
		*file_at = lseek(1, 0, SEEK_CUR);
		r->stdout_read = *file_at != -1;
		return -1;
	}
	if (!S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode))
		return -1;
	if (pipe2(p, O_CLOEXEC) == -1)
		return -1;
	fcntl(p[0], F_SETPIPE_SZ, RELAY_PIPE_SIZE);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	rl->fd = p[0];
	if (S_ISFIFO(st.st_mode) &&
	    (rl->devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) != -1) {
		rl->tee = true;
		/* a tee moves at most what our pipe holds: a larger one keeps
		 * the tail's copy a small part of the stream (the size the
		 * reader sees grows; nothing else changes for it) */
		if (fcntl(1, F_GETPIPE_SZ) < RELAY_PIPE_SIZE)
			fcntl(1, F_SETPIPE_SZ, RELAY_PIPE_SIZE);
	}
	r->stdout_read = true;
	return p[1];
}

/* A regular file as stdout: the tail of what the run appended, read back
 * (the file is ours to read: we opened it for the command) */
void
kb_relay_file_tail(struct kb_run *r, off_t from)
{
	off_t end = lseek(1, 0, SEEK_CUR), at;
	struct stat st, st1;
	ssize_t n;
	int fd;

	if (from < 0 || end <= from)
		return;
	r->stdout_bytes = (unsigned long long)(end - from);
	at = end - from > (off_t)KB_TAIL ? end - (off_t)KB_TAIL : from;
	/* fd 1 is write-only as a shell opens it: the same file again, for
	 * reading (when its mode lets us) */
	if ((fd = open("/proc/self/fd/1",
		 O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)) == -1)
		return;
	if (fstat(fd, &st) == 0 && fstat(1, &st1) == 0 &&
	    st.st_dev == st1.st_dev && st.st_ino == st1.st_ino) {
		n = pread(fd, r->out_tail, (size_t)(end - at), at);
		r->out_tail_len = n > 0 ? (size_t)n : 0;
	}
	close(fd);
}

/*
 * The command's fd 2. A pseudo-terminal when our stderr is a terminal (so
 * colours and progress bars still see one), with output post-processing
 * off so that its bytes reach the real terminal unchanged; a pipe
 * otherwise, enlarged to cut the number of wake-ups.
 */
int
kb_relay_open_err(struct kb_relay *rl, struct kb_run *r, int *child_end)
{
	int p[2];

	rl->fd = rl->devnull = -1;
	rl->out = 2;
	rl->ring.buf = r->tail;
	rl->ring_len = &r->tail_len;
	rl->bytes = &r->stderr_bytes;
	if (isatty(2)) {
		char name[128];
		struct termios t;
		struct winsize ws;
		int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC), sl;

		if (m == -1 || grantpt(m) == -1 || unlockpt(m) == -1 ||
		    ptsname_r(m, name, sizeof(name)) != 0 ||
		    (sl = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)) == -1) {
			if (m != -1)
				close(m);
			return -1;
		}
		if (tcgetattr(2, &t) == 0) {
			t.c_oflag &= ~(tcflag_t)OPOST;
			tcsetattr(sl, TCSANOW, &t);
		}
		if (ioctl(2, TIOCGWINSZ, &ws) == 0)
			ioctl(sl, TIOCSWINSZ, &ws);
		rl->fd = m;
		rl->pty = true;
		*child_end = sl;
	} else {
		if (pipe2(p, O_CLOEXEC) == -1)
			return -1;
		fcntl(p[0], F_SETPIPE_SZ, RELAY_PIPE_SIZE);
		rl->fd = p[0];
		*child_end = p[1];
	}
	fcntl(rl->fd, F_SETFL, O_NONBLOCK);
	return 0;
}
