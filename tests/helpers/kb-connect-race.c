/*
 * tests/helpers/kb-connect-race.c — a test helper:
 * kb-connect-race OWN HOST N
 *
 * Races the address of a unix-socket connect(2) against the check made on
 * it, as a hostile command would against a supervisor that reads the
 * address twice (once to decide, once to connect). It listens on the
 * pathname socket OWN itself (replacing a file there) and accepts on a
 * thread of its own; a second thread rewrites the sun_path bytes of one
 * shared struct sockaddr_un, without pause, between OWN and HOST; the
 * main thread makes N connects of a fresh stream socket each to that
 * address, passing the whole structure's size.
 *
 * Under kinbox OWN is the command's own socket (in the private /tmp) and
 * HOST a socket of the host that kinbox refuses: a connect that reaches
 * HOST is a supervisor that used the address after it decided. Whether one
 * did is judged outside, by HOST's listener (it logs every accept), never
 * by this program's counts, which only say that the race ran and that
 * connects to OWN went through.
 *
 * Prints one line:
 *   connects N ok A eacces B enoent C econnrefused D other E accepted F
 * (ok: connect returned 0, to OWN or HOST alike; accepted: connections
 * OWN's listener took). Exit status 0 when all N connects were made, 1
 * when a socket could not be made or OWN could not be listened on (one
 * line on stderr), 2 for a usage error.
 *
 * Static and libc-only (threads are in glibc's libc), like the other
 * helpers; built by make helpers.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static struct sockaddr_un addr; /* the shared address, rewritten */
static char own_path[sizeof(addr.sun_path)], host_path[sizeof(addr.sun_path)];
static atomic_int stop;
static atomic_long accepted;
static int lsock = -1;

/* byte by byte through a volatile pointer: the compiler keeps every store,
 * and the connects see the address half-way as often as not */
static void
put_path(const char *p)
{
	volatile char *d = addr.sun_path;

	for (size_t i = 0; i < sizeof(addr.sun_path); i++)
		d[i] = p[i];
}

/* each address stays whole for a while, so that a connect sees one or the
 * other as often as a torn one, also when the threads share a CPU */
static void
dwell(void)
{
	for (volatile int i = 0; i < 2000; i++)
		;
}

static void *
flipper(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		put_path(own_path);
		dwell();
		put_path(host_path);
		dwell();
	}
	put_path(own_path);
	return NULL;
}

static void *
acceptor(void *arg)
{
	(void)arg;
	for (;;) {
		int c = accept(lsock, NULL, NULL);

		if (c == -1) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return NULL; /* shut down */
		}
		atomic_fetch_add(&accepted, 1);
		close(c);
	}
}

int
main(int argc, char *argv[])
{
	struct sockaddr_un own = {.sun_family = AF_UNIX};
	unsigned long ok = 0, eacces = 0, enoent = 0, refused = 0, other = 0;
	pthread_t ft, at;
	char *end;
	long n;

	if (argc != 4 || strlen(argv[1]) >= sizeof(own_path) ||
	    strlen(argv[2]) >= sizeof(host_path)) {
		fprintf(stderr,
		    "usage: kb-connect-race OWN HOST N (paths "
		    "shorter than %zu bytes)\n",
		    sizeof(own_path));
		return 2;
	}
	n = strtol(argv[3], &end, 10);
	if (*end != '\0' || n < 1 || n > 10000000) {
		fprintf(stderr, "kb-connect-race: N: a count from 1\n");
		return 2;
	}
	memcpy(own_path, argv[1], strlen(argv[1]));
	memcpy(host_path, argv[2], strlen(argv[2]));
	memcpy(own.sun_path, own_path, sizeof(own.sun_path));
	unlink(own_path);
	if ((lsock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1 ||
	    bind(lsock, (struct sockaddr *)&own, sizeof(own)) == -1 ||
	    listen(lsock, 4096) == -1) {
		fprintf(stderr, "kb-connect-race: listening on %s: %s\n",
		    own_path, strerror(errno));
		return 1;
	}
	addr.sun_family = AF_UNIX;
	put_path(own_path);
	if (pthread_create(&at, NULL, acceptor, NULL) != 0 ||
	    pthread_create(&ft, NULL, flipper, NULL) != 0) {
		fprintf(stderr, "kb-connect-race: pthread_create failed\n");
		return 1;
	}
	for (long i = 0; i < n; i++) {
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (s == -1) {
			fprintf(stderr, "kb-connect-race: socket: %s\n",
			    strerror(errno));
			return 1;
		}
		if (connect(s, (struct sockaddr *)&addr, sizeof(addr)) == 0)
			ok++;
		else if (errno == EACCES)
			eacces++;
		else if (errno == ENOENT)
			enoent++;
		else if (errno == ECONNREFUSED)
			refused++;
		else
			other++;
		close(s);
	}
	atomic_store(&stop, 1);
	pthread_join(ft, NULL);
	/* the connections still queued are taken before the count is read */
	for (int i = 0; i < 100 && atomic_load(&accepted) < (long)ok; i++)
		usleep(10000);
	shutdown(lsock, SHUT_RDWR);
	printf("connects %ld ok %lu eacces %lu enoent %lu econnrefused %lu "
	       "other %lu accepted %ld\n",
	    n, ok, eacces, enoent, refused, other, atomic_load(&accepted));
	unlink(own_path);
	return 0;
}
