/*
 * tests/unit/seatbelt-cases.h — seatbelt plans for hostile directory
 * names: a temp tree, the names (quotes that would close an SBPL string,
 * parentheses, backslashes, a newline, bytes that are not UTF-8, a
 * 200-byte component, a path near PATH_MAX), and a policy built on them
 * as kinbox.c builds one (setters, finalize, the git scan) planned for a
 * fixed macOS host. Static functions, shared by test-seatbelt.c and the
 * SBPL checker that reads the same plans.
 */
#ifndef KB_SEATBELT_CASES_H
#define KB_SEATBELT_CASES_H

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../backends/backend.h"
#include "../../gitguard/gitguard.h"

extern char **environ;

static char sbc_base[PATH_MAX];
static char sbc_cmd0[] = "make", sbc_cmd1[] = "test";
static char *sbc_argv[] = {sbc_cmd0, sbc_cmd1, NULL};

/* the next plan's --keychain (sbc_plan_host applies it) */
static bool sbc_keychain;

/* macOS's canonical /tmp and /var/tmp, a fixed tag */
static const struct kb_seatbelt_host sbc_host = {
    .tmp = "/private/tmp",
    .var_tmp = "/private/var/tmp",
    .ssh_sock = NULL,
    .run_tag = "kinbox-sbcases",
	.run_tmp = "/private/tmp/kinbox-501/run.sbcases",
};

/* clang-format off */
static const struct {
	const char *label;
	const char *name;
} sbc_names[] = {
	{ "plain", "plain" },
	{ "an SBPL string closed and reopened", "a\")(allow default)(" },
	{ "parentheses", "(deny default))(" },
	{ "backslashes", "back\\slash\\\\\"" },
	{ "a newline", "new\nline (allow file-write* (subpath \"/\"))" },
	{ "bytes that are not UTF-8", "\xff\xfe\x80" },
	{ "a semicolon (an SBPL comment)", "x; (allow default)" },
	{ "a #\" regex opener", "#\"^/\"" },
};
/* clang-format on */

/* Makes the temp tree (outside /tmp) and the environment every plan
 * starts from; false when it cannot. */
static bool
sbc_init(void)
{
	char tmpl[] = "/var/tmp/kb-sbcases.XXXXXX";
	_cleanup_free_ char *home = NULL;

	if (mkdtemp(tmpl) == NULL || realpath(tmpl, sbc_base) == NULL)
		return false;
	home = xasprintf("%s/home", sbc_base);
	if (kb_mkdirs(home, 0755, NULL) == -1)
		return false;
	clearenv();
	setenv("PATH", "/usr/bin:/bin", 1);
	setenv("HOME", home, 1);
	setenv("TMPDIR", "/tmp", 1);
	setenv("XDG_CONFIG_HOME", home, 1);
	return true;
}

/* rm -rf the tree */
static void
sbc_cleanup(void)
{
	_cleanup_free_ char *cmd = NULL;

	if (sbc_base[0] == '\0' || chdir("/") != 0)
		return;
	cmd = xasprintf("rm -rf '%s'", sbc_base);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", sbc_base);
}

/* base/<rel> made (mkdir -p); its canonical path (a new string) or NULL */
static char *
sbc_dir(const char *rel)
{
	_cleanup_free_ char *p = xasprintf("%s/%s", sbc_base, rel);

	if (kb_mkdirs(p, 0755, NULL) == -1) {
		printf("# mkdir %s: %s\n", p, strerror(errno));
		return NULL;
	}
	return realpath(p, NULL);
}

/* a component of `n` bytes of `c` (a new string) */
static char *
sbc_component(size_t n, char c)
{
	char *s = xmalloc(n + 1);

	memset(s, c, n);
	s[n] = '\0';
	return s;
}

/* `rel` below base, made of 200-byte components, `len` bytes long in all
 * (absolute): a path near PATH_MAX when len is. A new string. */
static char *
sbc_deep_rel(const char *top, size_t len)
{
	struct kb_buf b = {0};
	size_t have = strlen(sbc_base) + 1 + strlen(top);
	char c = 'a';

	kb_buf_puts(&b, top);
	while (have + 1 < len) {
		size_t n = len - have - 1 > 200 ? 200 : len - have - 1;
		_cleanup_free_ char *comp = sbc_component(n, c++);

		kb_buf_printf(&b, "/%s", comp);
		have += 1 + n;
	}
	return b.s;
}

/*
 * The seatbelt plan of a policy whose workspace is `ws` (canonical) with
 * the write roots `w` (canonical, nw of them), for `host` (NULL:
 * sbc_host): 0, or -1 with `e` set. The policy is freed before return;
 * the plan is the caller's (kb_plan_free).
 */
static int
sbc_plan_host(const char *ws, const char *const *w, size_t nw,
    const struct kb_seatbelt_host *host, struct kb_plan *pl, struct kb_err *e)
{
	struct kb_policy p;
	int rc = -1;

	memset(pl, 0, sizeof(*pl));
	kb_policy_init(&p);
	p.argv = sbc_argv;
	if (chdir(ws) == -1) {
		kb_err_set(e, "cd %s: %s", ws, strerror(errno));
		goto out;
	}
	if (kb_policy_set_workspace(&p, ws, e) == -1)
		goto out;
	for (size_t i = 0; i < nw; i++)
		if (kb_policy_add_write(&p, w[i], KB_ORIGIN_FLAG, e) == -1)
			goto out;
	p.keychain = sbc_keychain;
	if (kb_policy_resolve_workspace(&p, e) == -1 ||
	    kb_policy_finalize(&p, e) == -1 ||
	    kb_gitguard_scan_roots(&p, e) == -1)
		goto out;
	rc = kb_seatbelt_plan(&p, host != NULL ? host : &sbc_host,
	    KB_SANDBOX_EXEC, environ, pl, e);
out:
	kb_policy_free(&p);
	return rc;
}

static int
sbc_plan(const char *ws, const char *const *w, size_t nw, struct kb_plan *pl,
    struct kb_err *e)
{
	return sbc_plan_host(ws, w, nw, NULL, pl, e);
}

/* the value of parameter `key` in the plan, or NULL */
static const char *
sbc_param(const struct kb_plan *pl, const char *key)
{
	size_t n = strlen(key);

	for (size_t i = 0; i < pl->params.n; i++)
		if (strncmp(pl->params.v[i], key, n) == 0 &&
		    pl->params.v[i][n] == '=')
			return pl->params.v[i] + n + 1;
	return NULL;
}

#endif
