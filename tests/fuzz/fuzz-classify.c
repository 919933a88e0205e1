/*
 * tests/fuzz/fuzz-classify.c — libFuzzer target: the denial classifier on
 * arbitrary stderr bytes (NULs, invalid UTF-8, endless lines, hostile
 * quoting), under a fixed policy. The oracle answers without touching the
 * filesystem so that runs are fast and repeatable. Seeds:
 * the texts in tests/fixtures/denials.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../classify/denial.h"
#include "../../classify/report.h"

static bool
always(const char *path, void *ctx)
{
	(void)path;
	(void)ctx;
	return true;
}

static bool
parent(const char *path, char *out, size_t outlen, void *ctx)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash != NULL ? (size_t)(slash - path) : 0;

	(void)ctx;
	if (n == 0 || n >= outlen)
		return false;
	memcpy(out, path, n);
	out[n] = '\0';
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char ws[] = "/work/ws", home[] = "/home/u", cwd[] = "/work/ws/sub";
	static char a0[] = "tar", a1[] = "-C", a2[] = "../out";
	static char s0[] = "sh", s1[] = "-c",
		    s2[] = "cd x && tar -C /opt xf 'a b.tar'; javac -d ../c X";
	static char *argv[] = { a0, a1, a2, NULL };
	static char *shargv[] = { s0, s1, s2, NULL };
	struct kb_oracle o = { .host_writable = always, .suggest_root = parent,
		.exists = always };
	struct kb_policy p;
	static struct kb_denial d[KB_MAX_DENIALS];

	memset(&p, 0, sizeof(p));
	p.workspace = ws;
	p.home = home;
	p.cwd = cwd;
	for (int run = 0; run < 4; run++) {
		size_t n;

		p.net = run & 1;
		p.argv = run & 2 ? shargv : argv;
		p.backend = run & 2 ? KB_BACKEND_LANDLOCK : KB_BACKEND_BWRAP;
		n = kb_classify_all(1, (const char *)data, size, &p, &o, d,
		    KB_MAX_DENIALS);
		for (size_t i = 0; i < n; i++) {
			char *line = kb_report_line(&d[i], "sbx_0000000000000000");

			free(line);
		}
		free(kb_report_fingerprint_json(d, n));
	}
	return 0;
}
