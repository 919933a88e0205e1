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

#include "../../denial/denial.h"
#include "../../denial/report.h"

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
	static char *argv[] = { a0, a1, a2, NULL };
	struct kb_oracle o = { .host_writable = always, .suggest_root = parent,
		.exists = always };
	struct kb_policy p;
	struct kb_denial d;

	memset(&p, 0, sizeof(p));
	p.workspace = ws;
	p.home = home;
	p.cwd = cwd;
	p.argv = argv;
	for (int net = 0; net < 2; net++) {
		p.net = net;
		if (kb_classify(1, (const char *)data, size, &p, &o, &d)) {
			char *line = kb_report_line(&d, "sbx_0000000000000000");
			char *json = kb_report_fingerprint_json(&d);

			free(line);
			free(json);
		}
	}
	return 0;
}
