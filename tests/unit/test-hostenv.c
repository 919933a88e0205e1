/*
 * tests/unit/test-hostenv.c — lib/hostenv.c and lib/envfd.c: which
 * variables are the loader's, and an environment through its sealed memfd
 * read back byte for byte (empty values, '=' in values, bytes above 0x7f,
 * an empty environment), the memfd sealed against change, and what is not
 * such a memfd refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/hostenv.h"
#include "../../lib/util.h"
#include "tap.h"

static const struct {
	const char *kv;
	bool loader;
} cases[] = {
    {"LD_PRELOAD=/x.so", true},
    {"LD_LIBRARY_PATH=", true},
    {"LD_AUDIT=a.so", true},
    {"LD_DEBUG_OUTPUT=/tmp/x", true},
    {"LD_ORIGIN_PATH=x", true},
    {"LD_PROFILE=x", true},
    {"MALLOC_TRACE=/tmp/m", true},
    {"MALLOC_ARENA_MAX=2", true},
    {"GCONV_PATH=.", true},
    {"GLIBC_TUNABLES=glibc.malloc.check=3", true},
    {"LOCPATH=/w", true},
    {"NLSPATH=/w/%N", true},
    {"HOSTALIASES=/w/h", true},
    {"RES_OPTIONS=ndots:9", true},
    {"LOCALDOMAIN=x", true},
    {"TZDIR=/w", true},
    {"GETCONF_DIR=/w", true},
    {"NIS_PATH=x", true},
    {"RESOLV_HOST_CONF=/w", true},
    {"GCONV_PATH", true},
    {"PATH=/usr/bin", false},
    {"HOME=/root", false},
    {"TMPDIR=/tmp", false},
    {"LANG=C.UTF-8", false},
    {"LDFLAGS=-L.", false},
    {"OLD_PRELOAD=x", false},
    {"GCONV_PATHS=x", false},
    {"ld_preload=x", false},
    {"TZ=UTC", false},
};

static void
round_trip(char *const *envp, size_t n, const char *what)
{
	int fd = kb_env_memfd(envp);
	char **back;
	size_t k = 0;
	bool same = true;

	ok(fd != -1, "%s: memfd made", what);
	if (fd == -1)
		return;
	ok(write(fd, "X", 1) == -1 && errno == EPERM,
	    "%s: the memfd is sealed against writes", what);
	back = kb_env_read(fd);
	ok(back != NULL, "%s: read back", what);
	for (; back != NULL && back[k] != NULL; k++)
		same &= k < n && strcmp(back[k], envp[k]) == 0;
	ok(same && k == n, "%s: %zu entries back as written", what, n);
	if (back != NULL) {
		if (back[0] != NULL)
			free(back[0]); /* the one buffer behind them all */
		free(back);
	}
	close(fd);
}

int
main(void)
{
	char *plain[] = {(char *)"PATH=/bin",
	    (char *)"EMPTY=", (char *)"EQ=a=b==c",
	    (char *)"HI=\xc3\xa9\xff\x80", (char *)"LD_PRELOAD=/w/x.so",
	    (char *)"SP= a b ", NULL};
	char *none[] = {NULL};
	int p[2];

	for (size_t i = 0; i < nitems(cases); i++)
		ok(kb_env_loader_var(cases[i].kv) == cases[i].loader,
		    "%s is %s", cases[i].kv,
		    cases[i].loader ? "a loader variable" : "not one");
	ok(kb_host_envp[0] != NULL &&
		strcmp(kb_host_envp[0], "PATH=/usr/sbin:/usr/bin:/sbin:/bin") ==
		    0 &&
		kb_host_envp[1] == NULL,
	    "the host environment is PATH alone");
	round_trip(plain, nitems(plain) - 1, "six entries");
	round_trip(none, 0, "an empty environment");
	ok(pipe(p) == 0, "pipe");
	errno = 0;
	ok(kb_env_read(p[0]) == NULL && errno == EINVAL,
	    "a pipe is not an environment memfd (EINVAL)");
	close(p[0]);
	close(p[1]);
	return tap_done();
}
