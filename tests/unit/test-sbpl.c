/*
 * tests/unit/test-sbpl.c — the SBPL checker (sbpl-check.h) that stands in
 * for sandbox-exec on a project without macOS: profiles in the style of
 * Codex's base policy pass; each broken one fails with its own message
 * and line; the golden profiles (tests/golden/seatbelt-*.sb, each with
 * its .params) pass; and truncated or mutated input never crashes the
 * reader (run under ASan and valgrind by make unit-san, unit-valgrind).
 *
 *   KB_GOLDEN_DIR=dir   where the golden files are (default tests/golden)
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbpl-check.h"
#include "tap.h"

#include "seatbelt-cases.h"

static char err[512];

/* clang-format off */
static const char base[] =
	"(version 1)\n"
	"; closed by default, as Codex's seatbelt_base_policy.sbpl\n"
	"(deny default)\n"
	"(allow process-exec process-fork)\n"
	"(allow signal (target same-sandbox))\n"
	"(allow process-info* (target same-sandbox))\n"
	"(allow user-preference-read)\n"
	"(allow sysctl-read\n"
	"  (sysctl-name \"hw.ncpu\")\n"
	"  (sysctl-name-prefix \"hw.perflevel\"))\n"
	"(allow file-read*)\n"
	"(allow file-write-data\n"
	"  (require-all (literal \"/dev/null\") (vnode-type CHARACTER-DEVICE)))\n"
	"#| the write roots,\n   one rule each |#\n"
	"(allow file-read* file-write* (subpath (param \"ROOT_0\")))\n"
	"(allow file-ioctl (regex #\"^/dev/ttys[0-9]+\"))\n"
	"(allow mach-lookup\n"
	"  (global-name \"com.apple.system.opendirectoryd.libinfo\"))\n"
	"(allow pseudo-tty)\n";

static const char proxied[] =
	"(version 1)\n"
	"(deny default (with message (param \"RUN_TAG\")))\n"
	"(allow process-exec* process-fork)\n"
	"(allow file-read* file-test-existence)\n"
	"(allow file-write* (subpath (param \"TMP\")))\n"
	"(allow network-outbound (remote ip \"localhost:8877\"))\n"
	"(allow network-outbound\n"
	"  (remote unix-socket (path-literal (param \"SSH_SOCK\"))))\n"
	"(allow network-inbound (local tcp \"localhost:9229\"))\n"
	"(allow system-socket (require-all (socket-domain AF_SYSTEM)\n"
	"                                  (socket-protocol 2)))\n"
	"(deny mach-lookup (global-name-prefix \"com.docker.\"))\n"
	"(deny ipc-posix-shm* (ipc-posix-name-prefix \"docker\"))\n";

static const char masks[] =
	"(version 1)\n"
	"(deny default)\n"
	"(allow file-read*)\n"
	"(allow file-write* (subpath (param \"ROOT_0\")) (subpath (param \"ROOT_1\")))\n"
	";; the masks: read and write both, after the grants (the last rule wins)\n"
	"(deny file-read* file-write*\n"
	"  (subpath (string-append (param \"HOME\") \"/.ssh\"))\n"
	"  (literal (string-append (param \"HOME\") \"/.netrc\")))\n"
	"(deny file-write* (with no-log)\n"
	"  (require-any (literal (param \"GUARD_0\"))\n"
	"               (require-all (subpath (param \"ROOT_0\"))\n"
	"                            (require-not (vnode-type DIRECTORY)))))\n"
	"(deny file-write-setugid file-write-mode)\n"
	"(allow file-read* file-write-data (literal \"/dev/\\x6eull\"))\n"
	"(allow (with report) sysctl-read)\n";
/* clang-format on */

static const char *const base_params[] = {"ROOT_0=/work/repo", NULL};
static const char *const base_roots[] = {"/work/repo", NULL};
static const char *const proxied_params[] = {"RUN_TAG=kinbox-4242",
    "TMP=/private/tmp/kb", "SSH_SOCK=/private/tmp/ssh-x/agent.1", NULL};
static const char *const masks_params[] = {"ROOT_0=/work/a b",
    "ROOT_1=/work/\"q\"", "HOME=/Users/u", "GUARD_0=/work/a b/.git/config",
    NULL};
static const char *const masks_roots[] = {
    "/work/a b", "/work/\"q\"", "/Users/u", NULL};

static void
test_valid(void)
{
	const char *const one[] = {"K=v", NULL};
	const char *const r[] = {"R=/r", NULL};
	const char *p = "(version 1)\n(deny default)\n";
	const char *lit = "(version 1)(deny default)"
			  "(allow file-read* (subpath (param \"R\")))"
			  "(allow file-read* (literal \"/r/x\"))";

	ok(sbpl_check(base, base_params, base_roots, err, sizeof(err)) == 0,
	    "Codex-style base profile, one write root: %s", err);
	ok(sbpl_check(proxied, proxied_params, NULL, err, sizeof(err)) == 0,
	    "proxied network, unix socket by (path-literal (param)): %s", err);
	ok(sbpl_check(masks, masks_params, masks_roots, err, sizeof(err)) == 0,
	    "masks through (string-append (param) ...), nested filters: %s",
	    err);
	ok(sbpl_check(
	       "(version 1)(deny default)"
	       "(allow file-read* (subpath \"/\") (subpath (param \"R\")))"
	       "(allow signal (target self children))"
	       "(allow file-read* (vnode-type FIFO SOCKET TTY))",
	       (const char *const[]){"R=/", NULL}, NULL, err, sizeof(err)) == 0,
	    "(subpath \"/\"), several targets and vnode types: %s", err);
	ok(sbpl_check(
	       "(version 1)(deny default)", NULL, NULL, err, sizeof(err)) == 0,
	    "the smallest profile, no parameters, no newline: %s", err);
	ok(sbpl_check_ex(
	       p, strlen(p), one, NULL, SBPL_UNUSED_OK, err, sizeof(err)) == 0,
	    "SBPL_UNUSED_OK lets a parameter go unused: %s", err);
	ok(sbpl_check(lit, r, NULL, err, sizeof(err)) == -1 &&
		strstr(err, "holds the value of parameter R") != NULL,
	    "without SBPL_VALUES_OK a parameter's path is no literal: %s", err);
	ok(sbpl_check_ex(lit, strlen(lit), r, NULL, SBPL_VALUES_OK, err,
	       sizeof(err)) == 0,
	    "SBPL_VALUES_OK lets a parameter's path be a literal: %s", err);
}

#define V1 "(version 1)\n"
#define DD "(deny default)\n"

/* clang-format off */
static const struct {
	const char *what, *profile;
	const char *const *params, *const *forbidden;
	int line; /* 0: the message has no line */
	const char *want;
} bad[] = {
	{ "unbalanced: a '(' never closed", V1 DD "(allow file-read*\n",
	  NULL, NULL, 3, "'(' is not closed by ')'" },
	{ "unbalanced: a ')' too many", V1 DD "(allow file-read*))\n",
	  NULL, NULL, 3, "')' without a '(' to close" },
	{ "unterminated string", V1 DD "(allow file-read* (literal \"/dev/null))\n",
	  NULL, NULL, 3, "a string is not closed by \"" },
	{ "a policy path pasted as a literal",
	  V1 DD "(allow file-write* (subpath \"/work/repo/src\"))\n",
	  NULL, base_roots, 3,
	  "the string \"/work/repo/src\" holds the policy path \"/work/repo\"" },
	{ "a policy path spelt with an escape",
	  V1 DD "(allow file-write* (subpath \"/work/\\x72epo\"))\n",
	  NULL, base_roots, 3, "holds the policy path \"/work/repo\"" },
	{ "a policy path in a comment",
	  V1 DD "; the root is /work/repo\n", NULL, base_roots, 3,
	  "the profile text holds the policy path \"/work/repo\" (in a comment?)" },
	{ "a parameter's value pasted as a literal",
	  V1 DD "(allow file-read* (subpath (param \"ROOT_0\")))\n"
	  "(allow file-write* (literal \"/work/repo/.git\"))\n",
	  base_params, NULL, 4,
	  "holds the value of parameter ROOT_0: use (param \"ROOT_0\")" },
	{ "an undefined parameter",
	  V1 DD "(allow file-read* (subpath (param \"NOPE\")))\n",
	  base_params, NULL, 3,
	  "(param \"NOPE\") is not defined: no -D NOPE=VALUE is given" },
	{ "an unused parameter",
	  V1 DD "(allow file-read* (subpath (param \"ROOT_0\")))\n",
	  (const char *const[]){ "ROOT_0=/a", "EXTRA=/b", NULL }, NULL, 0,
	  "parameter EXTRA is given (-D) but the profile never uses it" },
	{ "an unknown operation", V1 DD "(allow file-wrte* (literal \"/x\"))\n",
	  NULL, NULL, 3, "unknown operation file-wrte*" },
	{ "an unknown filter", V1 DD "(allow file-read* (subpth \"/x\"))\n",
	  NULL, NULL, 3, "unknown filter (subpth ...)" },
	{ "(param) with two arguments",
	  V1 DD "(allow file-read* (subpath (param \"A\" \"B\")))\n",
	  (const char *const[]){ "A=/a", "B=/b", NULL }, NULL, 3,
	  "(param) takes one string, the parameter's name" },
	{ "(param) with a name, not a string",
	  V1 DD "(allow file-read* (subpath (param A)))\n", NULL, NULL, 3,
	  "(param) takes one string" },
	{ "(param) as a filter",
	  V1 DD "(allow file-read* (param \"A\"))\n",
	  (const char *const[]){ "A=/a", NULL }, NULL, 3,
	  "(param) stands for a value, not a filter" },
	{ "a (param) inside a regex",
	  V1 DD "(allow file-read* (regex (string-append \"^\" (param \"A\"))))\n",
	  (const char *const[]){ "A=/a", NULL }, NULL, 3,
	  "a (param) inside a regex filter: its value is not escaped" },
	{ "a bare name as a path", V1 DD "(allow file-read* (subpath /etc))\n",
	  NULL, NULL, 3, "/etc where a string or (param \"KEY\") belongs" },
	{ "a top-level form that is not allow, deny or version",
	  V1 DD "(trace \"/tmp/t.sb\")\n", NULL, NULL, 3,
	  "(trace ...) at top level: only (version 1), (allow ...) and "
	  "(deny ...) are" },
	{ "(import)", V1 "(import \"system.sb\")\n" DD, NULL, NULL, 2,
	  "(import ...): a kinbox profile is whole, it imports nothing" },
	{ "(define)", V1 "(define home (param \"HOME\"))\n" DD,
	  (const char *const[]){ "HOME=/h", NULL }, NULL, 2,
	  "(define ...): a kinbox profile defines nothing" },
	{ "no (version 1)", DD "(allow file-read*)\n", NULL, NULL, 1,
	  "the first form must be (version 1)" },
	{ "(version 2)", "(version 2)\n" DD, NULL, NULL, 1,
	  "the first form must be (version 1)" },
	{ "(version 1) not first", DD V1, NULL, NULL, 1,
	  "the first form must be (version 1)" },
	{ "an empty profile", "; nothing\n", NULL, NULL, 2,
	  "the first form must be (version 1)" },
	{ "a second (version)", V1 DD V1, NULL, NULL, 3, "a second (version)" },
	{ "text after the last form", V1 DD "(allow file-read*)\ngarbage\n",
	  NULL, NULL, 4, "garbage outside any form" },
	{ "a string after the last form", V1 DD "\"/dev/null\"\n",
	  NULL, NULL, 3, "a string outside any form" },
	{ "(allow default)", V1 "(allow default)\n", NULL, NULL, 2,
	  "(allow default): a kinbox profile denies by default" },
	{ "(allow (with report) default)", V1 DD "(allow (with report) default)\n",
	  NULL, NULL, 3, "(allow default)" },
	{ "no (deny default)", V1 "(allow file-read*)\n", NULL, NULL, 0,
	  "no (deny default)" },
	{ "(deny default) with a filter", V1 "(deny default (literal \"/x\"))\n",
	  NULL, NULL, 2, "(deny default) takes no other operation and no filter" },
	{ "a rule without an operation", V1 DD "(allow (literal \"/x\"))\n",
	  NULL, NULL, 3, "(allow) without an operation" },
	{ "an operation after a filter",
	  V1 DD "(allow file-read* (literal \"/x\") file-write*)\n", NULL, NULL,
	  3, "operation file-write* after a filter" },
	{ "a number for an operation", V1 DD "(allow 5)\n", NULL, NULL, 3,
	  "(allow) takes operations and filters, not a number" },
	{ "an unknown process target", V1 DD "(allow signal (target selff))\n",
	  NULL, NULL, 3, "(target selff): not a process target" },
	{ "an unknown vnode type",
	  V1 DD "(allow file-read* (vnode-type CHARDEV))\n", NULL, NULL, 3,
	  "(vnode-type CHARDEV): not a vnode type" },
	{ "a socket without its kind",
	  V1 DD "(allow network-outbound (remote \"localhost:80\"))\n", NULL,
	  NULL, 3, "(remote) starts with a socket kind" },
	{ "(require-not) of two filters",
	  V1 DD "(allow file-read* (require-not (literal \"/a\") (literal \"/b\")))\n",
	  NULL, NULL, 3, "(require-not) with 2 arguments" },
	{ "(require-all) of a string",
	  V1 DD "(allow file-read* (require-all \"/a\"))\n", NULL, NULL, 3,
	  "(require-all) takes filters" },
	{ "an unknown modifier", V1 "(deny default (with nolog))\n", NULL, NULL,
	  2, "(with nolog ...) is not a modifier" },
	{ "an unknown escape", V1 DD "(allow file-read* (literal \"/a\\q\"))\n",
	  NULL, NULL, 3, "an escape \\q in a string that SBPL does not know" },
	{ "a \\x00 escape", V1 DD "(allow file-read* (literal \"/a\\x00\"))\n",
	  NULL, NULL, 3, "a NUL byte in a string" },
	{ "an unclosed block comment", V1 DD "#| never\nclosed\n", NULL, NULL,
	  3, "a #| comment is not closed by |#" },
	{ "unknown # syntax", V1 DD "(allow file-read* #x41)\n", NULL, NULL, 3,
	  "unknown # syntax #x41" },
	{ "a quote", V1 DD "(allow 'file-read*)\n", NULL, NULL, 3,
	  "a quote (')" },
	{ "a non-ASCII byte outside a string", V1 DD "(allow file-read\xc3\xa9)\n",
	  NULL, NULL, 3, "a control or non-ASCII byte 0xc3 outside a string" },
	{ "an empty form", V1 DD "()\n", NULL, NULL, 3,
	  "a top-level form must start with allow or deny" },
	{ "a (subpath) ending with a slash",
	  V1 DD "(allow file-read* (subpath \"/usr/lib/\"))\n", NULL, NULL, 3,
	  "(subpath \"/usr/lib/\") is empty or ends with a slash" },
	{ "an empty (subpath)", V1 DD "(allow file-read* (subpath \"\"))\n",
	  NULL, NULL, 3, "(subpath \"\") is empty" },
	{ "a (subpath) parameter ending with a slash",
	  V1 DD "(allow file-read* (subpath (param \"R\")))\n",
	  (const char *const[]){ "R=/w/r/", NULL }, NULL, 3,
	  "(subpath (param \"R\")): its value \"/w/r/\" is empty or ends" },
	{ "a (subpath (string-append ...)) ending with a slash",
	  V1 DD "(allow file-read* (subpath (string-append (param \"R\") \"/\")))\n",
	  (const char *const[]){ "R=/w/r", NULL }, NULL, 3,
	  "(subpath \"/\") is empty or ends with a slash" },
	{ "(target parent), which SBPL has not",
	  V1 DD "(allow signal (target parent))\n", NULL, NULL, 3,
	  "(target parent): not a process target" },
	{ "a parameter without '='", V1 DD, (const char *const[]){ "ROOT", NULL },
	  NULL, 0, "parameter 1 \"ROOT\" is not KEY=VALUE" },
	{ "a parameter with a blank in its key", V1 DD,
	  (const char *const[]){ "A B=/x", NULL }, NULL, 0,
	  "parameter 1 \"A B=/x\" is not KEY=VALUE" },
	{ "a parameter given twice",
	  V1 DD "(allow file-read* (subpath (param \"A\")))\n",
	  (const char *const[]){ "A=/x", "A=/y", NULL }, NULL, 0,
	  "parameter A is given twice" },
};
/* clang-format on */

static void
test_invalid(void)
{
	char want[600];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = sbpl_check(bad[i].profile, bad[i].params,
		    bad[i].forbidden, err, sizeof(err));
		if (bad[i].line > 0)
			snprintf(want, sizeof(want), "line %d: ", bad[i].line);
		else
			want[0] = '\0';
		ok(rc == -1 && strncmp(err, want, strlen(want)) == 0 &&
			(bad[i].line > 0 || strncmp(err, "line ", 5) != 0) &&
			strstr(err, bad[i].want) != NULL &&
			strchr(err, '\n') == NULL,
		    "refused: %s", bad[i].what);
		if (rc != -1 || strstr(err, bad[i].want) == NULL ||
		    strncmp(err, want, strlen(want)) != 0)
			printf("#   got %d '%s', want '%s%s'\n", rc, err, want,
			    bad[i].want);
	}
}

/* the edges of the interface: NUL bytes, nesting, small buffers */
static void
test_edges(void)
{
	char deep[2 * SBPL_MAX_DEPTH + 64], small[12];
	size_t n = 0, i;

	ok(sbpl_check_ex(V1 DD "\0(x)", sizeof(V1 DD) + 3, NULL, NULL, 0, err,
	       sizeof(err)) == -1 &&
		strcmp(err, "line 3: a NUL byte in the profile") == 0,
	    "a NUL byte in the text is refused: %s", err);
	n = (size_t)snprintf(deep, sizeof(deep), V1 DD "(allow file-read* ");
	for (i = 0; i < SBPL_MAX_DEPTH + 4; i++)
		deep[n++] = '(';
	ok(sbpl_check_ex(deep, n, NULL, NULL, 0, err, sizeof(err)) == -1 &&
		strstr(err, "forms nested deeper than 32") != NULL,
	    "nesting is bounded: %s", err);
	ok(sbpl_check("(allow default)", NULL, NULL, small, sizeof(small)) ==
		    -1 &&
		strlen(small) == sizeof(small) - 1,
	    "a small error buffer is filled, not overrun: '%s'", small);
	ok(sbpl_check("(allow default)", NULL, NULL, NULL, 0) == -1,
	    "no error buffer at all");
	ok(sbpl_check(V1 DD "(allow file-read* (literal \"/dev/null\"))", NULL,
	       (const char *const[]){"", NULL}, err, sizeof(err)) == 0,
	    "an empty forbidden string forbids nothing: %s", err);
	ok(sbpl_check(V1 DD "(allow file-write* (subpath (param \"R\")))",
	       (const char *const[]){"R=/work/repo", NULL}, base_roots, err,
	       sizeof(err)) == 0,
	    "a parameter's value may be a policy path: %s", err);
}

/* --- the golden profiles ------------------------------------------------- */

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	size_t cap = 0, n = 0, r;

	if (f == NULL)
		return NULL;
	do {
		if (n + 4096 > cap) {
			char *nb = realloc(b, cap = cap * 2 + 4096);
			if (nb == NULL) {
				free(b);
				fclose(f);
				return NULL;
			}
			b = nb;
		}
		r = fread(b + n, 1, cap - n - 1, f);
		n += r;
	} while (r > 0);
	fclose(f);
	b[n] = '\0';
	*len = n;
	return b;
}

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the .params file's KEY=VALUE lines (blank lines skipped), in place */
static const char **
split_params(char *text)
{
	size_t n = 0, cap = 8;
	const char **v = malloc(cap * sizeof(*v));
	char *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); v != NULL && line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		if (n + 2 > cap) {
			const char **nv = realloc(v, (cap *= 2) * sizeof(*v));
			if (nv == NULL) {
				free(v);
				return NULL;
			}
			v = nv;
		}
		v[n++] = line;
	}
	if (v != NULL)
		v[n] = NULL;
	return v;
}

static void
test_goldens(void)
{
	const char *gd = getenv("KB_GOLDEN_DIR");
	DIR *d = opendir(gd != NULL ? gd : "tests/golden");
	struct dirent *e;
	char **names = NULL, path[4096];
	size_t n = 0, cap = 0, i, nsb = 0, bad_pairs = 0;

	if (gd == NULL)
		gd = "tests/golden";
	if (d == NULL) {
		ok(0,
		    "open %s: %s (run from the source tree, or set "
		    "KB_GOLDEN_DIR)",
		    gd, strerror(errno));
		return;
	}
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);
		if (strncmp(e->d_name, "seatbelt-", 9) != 0 ||
		    !((l > 3 && strcmp(e->d_name + l - 3, ".sb") == 0) ||
			(l > 7 && strcmp(e->d_name + l - 7, ".params") == 0)))
			continue;
		if (n == cap) {
			char **nn = realloc(
			    names, (cap = cap * 2 + 16) * sizeof(*names));
			if (nn == NULL)
				break;
			names = nn;
		}
		if ((names[n] = strdup(e->d_name)) != NULL)
			n++;
	}
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof(*names), cmpstr);
	for (i = 0; i < n; i++) {
		size_t l = strlen(names[i]), len = 0, plen = 0;
		bool sb = strcmp(names[i] + l - 3, ".sb") == 0;
		char *profile, *ptext;
		const char **params;

		snprintf(path, sizeof(path), "%s/%.*s.%s", gd,
		    (int)(l - (sb ? 3 : 7)), names[i], sb ? "params" : "sb");
		if (access(path, F_OK) != 0) {
			ok(0, "%s has no %s partner", names[i],
			    sb ? ".params" : ".sb");
			bad_pairs++;
			continue;
		}
		if (!sb)
			continue;
		nsb++;
		ptext = slurp(path, &plen);
		snprintf(path, sizeof(path), "%s/%s", gd, names[i]);
		profile = slurp(path, &len);
		params = ptext != NULL ? split_params(ptext) : NULL;
		err[0] = '\0';
		ok(profile != NULL && params != NULL &&
			sbpl_check_ex(profile, len, params, NULL, 0, err,
			    sizeof(err)) == 0,
		    "golden %s: %s", names[i],
		    profile == NULL || params == NULL ? "unreadable" : err);
		free(params);
		free(ptext);
		free(profile);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (nsb == 0 && bad_pairs == 0)
		tap_skip("no seatbelt goldens yet (%s/seatbelt-*.sb)", gd);
	else
		ok(bad_pairs == 0,
		    "%zu seatbelt goldens, each with its .params", nsb);
}

/* --- the generator's hostile-name cases ---------------------------------- */

/*
 * Runs one plan's profile through the checker; `roots` the policy's paths
 * (NULL-terminated), none of which may appear in the text.
 */
__attribute__((unused)) static void
check_generated(const char *what, const char *profile,
    const char *const *params, const char *const *roots)
{
	ok(profile != NULL &&
		sbpl_check(profile, params, roots, err, sizeof(err)) == 0,
	    "generated %s: %s", what, profile == NULL ? "no profile" : err);
}

static void
test_generated(void)
{
	/* the generator's own plans (seatbelt-cases.h), for every hostile
	 * name as the workspace and as a write root, and a path near
	 * PATH_MAX: each profile passes the checker with the policy's paths
	 * forbidden in its literals */
	_cleanup_free_ char *plain = NULL;
	struct kb_plan pl;
	struct kb_err e;

	if (!sbc_init() || (plain = sbc_dir("plain-ws")) == NULL) {
		ok(0, "the hostile-name tree could not be made");
		return;
	}
	for (size_t i = 0; i < nitems(sbc_names); i++) {
		_cleanup_free_ char *rel =
		    xasprintf("n%zu/%s", i, sbc_names[i].name);
		_cleanup_free_ char *d = sbc_dir(rel);
		const char *w[1] = {d};
		const char *roots[3] = {d, plain, NULL};
		_cleanup_free_ char *as_ws =
		    xasprintf("%s, as the workspace", sbc_names[i].label);
		_cleanup_free_ char *as_w =
		    xasprintf("%s, as a write root", sbc_names[i].label);

		if (d == NULL || sbc_plan(d, NULL, 0, &pl, &e) == -1) {
			ok(0, "%s: %s", as_ws, d == NULL ? "no dir" : e.msg);
		} else {
			check_generated(as_ws, pl.profile,
			    (const char *const *)pl.params.v, roots);
			ok(sbc_param(&pl, "WORKSPACE") != NULL &&
				strcmp(sbc_param(&pl, "WORKSPACE"), d) == 0,
			    "%s: the WORKSPACE parameter is the path, byte for "
			    "byte",
			    as_ws);
			kb_plan_free(&pl);
		}
		if (d == NULL || sbc_plan(plain, w, 1, &pl, &e) == -1) {
			ok(0, "%s: %s", as_w, d == NULL ? "no dir" : e.msg);
		} else {
			check_generated(as_w, pl.profile,
			    (const char *const *)pl.params.v, roots);
			kb_plan_free(&pl);
		}
	}
	{
		_cleanup_free_ char *rel = sbc_deep_rel("deep", PATH_MAX - 64);
		_cleanup_free_ char *d = sbc_dir(rel);
		const char *roots[2] = {d, NULL};

		if (d == NULL || sbc_plan(d, NULL, 0, &pl, &e) == -1) {
			ok(0, "a path near PATH_MAX: %s",
			    d == NULL ? "no dir" : e.msg);
		} else {
			check_generated(
			    "a path near PATH_MAX, as the workspace",
			    pl.profile, (const char *const *)pl.params.v,
			    roots);
			kb_plan_free(&pl);
		}
	}
	sbc_cleanup();
}


/* --- the findings of issue 34, decided ------------------------------------ */

static const struct kb_plan *dec_plan;

/* what the profile of dec_plan decides for OP on PATH (or NAME) */
static int
dec(const char *op, const char *path, const char *name, const char *ext,
    const char *ioctl)
{
	struct sbpl_req q = {op, path, name, ext, ioctl};
	int line = 0;

	return sbpl_decide(dec_plan->profile,
	    (const char *const *)dec_plan->params.v, &q, &line, err,
	    sizeof(err));
}

#define DENIED(op, path) (dec(op, path, NULL, NULL, NULL) == SBPL_DENY)
#define ALLOWED(op, path) (dec(op, path, NULL, NULL, NULL) == SBPL_ALLOW)

static void
mkfile(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f != NULL) {
		fputs(text, f);
		fclose(f);
	}
}

static bool
made(const char *rel)
{
	_cleanup_free_ char *d = sbc_dir(rel);

	return d != NULL;
}

static void
test_findings(void)
{
	_cleanup_free_ char *ws = NULL, *home = NULL, *ttmp = NULL;
	_cleanup_free_ char *git = NULL, *p1 = NULL, *p2 = NULL;
	struct kb_seatbelt_host h = sbc_host;
	struct kb_plan pl, kc;
	struct kb_err e;
	const char *run;

	if (!sbc_init() || (ws = sbc_dir("find/ws")) == NULL ||
	    !made("find/ws/.git/objects") || !made("find/ws/.git/refs/heads") ||
	    !made("find/ws/.git/hooks") ||
	    (ttmp = sbc_dir("find/callertmp")) == NULL) {
		ok(0, "the findings' tree could not be made");
		return;
	}
	git = xasprintf("%s/.git", ws);
	p1 = xasprintf("%s/HEAD", git);
	mkfile(p1, "ref: refs/heads/main\n");
	free(p1);
	p1 = xasprintf("%s/config", git);
	mkfile(p1, "[core]\n\trepositoryformatversion = 0\n");
	home = xstrdup(getenv("HOME"));
	setenv("TMPDIR", ttmp, 1);
	h.tty[0] = "/dev/ttys004";
	h.ntty = 1;
	sbc_keychain = false;
	if (sbc_plan_host(ws, NULL, 0, &h, &pl, &e) == -1) {
		ok(0, "the findings' plan: %s", e.msg);
		sbc_cleanup();
		return;
	}
	sbc_keychain = true;
	if (sbc_plan_host(ws, NULL, 0, &h, &kc, &e) == -1) {
		ok(0, "the --keychain plan: %s", e.msg);
		kb_plan_free(&pl);
		sbc_cleanup();
		return;
	}
	sbc_keychain = false;
	ok(sbpl_check(pl.profile, (const char *const *)pl.params.v, NULL, err,
	       sizeof(err)) == 0 &&
		sbpl_check(kc.profile, (const char *const *)kc.params.v, NULL,
		    err, sizeof(err)) == 0,
	    "findings: both profiles pass the checker: %s", err);
	/* none of the broad rules of the review is left */
	ok(strstr(pl.profile, "(allow sysctl-read)") == NULL &&
		strstr(pl.profile, "(allow file-read*)\n") == NULL &&
		strstr(pl.profile, "com.apple.SecurityServer") == NULL &&
		strstr(pl.profile, "(param \"TMP\")") == NULL &&
		strstr(pl.profile, "(allow file-ioctl (regex") == NULL,
	    "findings: no (allow sysctl-read), no unfiltered file-read*, no "
	    "securityd, no shared /tmp, no ioctl on every tty");
	dec_plan = &pl;

	/* 1, 7: the git guards and the pinned .git */
	free(p1);
	p1 = xasprintf("%s/commondir", git);
	p2 = xasprintf("%s/config.worktree", git);
	ok(DENIED("file-write-create", p1) && DENIED("file-write-data", p1) &&
		DENIED("file-write-create", p2),
	    "1: .git/commondir and .git/config.worktree cannot be planted "
	    "(the profile, not only the audit): %s",
	    err);
	ok(DENIED("file-write-unlink", git) &&
		DENIED("file-write-create", git) &&
		DENIED("file-write-mode", git) &&
		DENIED("file-write-flags", git),
	    "7: the pinned .git itself: no unlink, no create over it (a "
	    "rename-swap), no chmod, no chflags");
	free(p1);
	free(p2);
	p1 = xasprintf("%s/objects/ab", git);
	p2 = xasprintf("%s/main.c", ws);
	ok(ALLOWED("file-write-create", p1) && ALLOWED("file-write-data", p2),
	    "1, 7: below the pinned .git and in the workspace, writes work");
	free(p1);
	p1 = xasprintf("%s/config", git);
	ok(DENIED("file-write-data", p1), "1: .git/config stays read-only");

	/* 2, 6: the keychain and the stores */
	free(p1);
	free(p2);
	p1 = xasprintf("%s/Library/Keychains/login.keychain-db", home);
	ok(dec("mach-lookup", NULL, "com.apple.SecurityServer", NULL, NULL) ==
		    SBPL_DENY &&
		DENIED("file-read-data", p1),
	    "2: securityd and ~/Library/Keychains refused without --keychain");
	dec_plan = &kc;
	ok(dec("mach-lookup", NULL, "com.apple.SecurityServer", NULL, NULL) ==
		    SBPL_ALLOW &&
		ALLOWED("file-read-data", p1),
	    "2: --keychain grants both");
	p2 = xasprintf("%s/Library/Cookies/Cookies.binarycookies", home);
	ok(DENIED("file-read-data", p2),
	    "2: --keychain leaves the other stores masked");
	dec_plan = &pl;
	{
		static const char *const stores[] = {
		    "Library/Cookies/Cookies.binarycookies",
		    "Library/Safari/History.db",
		    "Library/Application Support/Google/Chrome/Default/Login "
		    "Data",
		    "Library/Application Support/Firefox/Profiles/x/"
		    "logins.json",
		    "Library/Group Containers/2BUA8C4S2C.com.1password/t/x",
		    "Library/Application Support/Bitwarden/data.json",
		};
		size_t open_stores = 0;

		for (size_t i = 0; i < nitems(stores); i++) {
			_cleanup_free_ char *sp =
			    xasprintf("%s/%s", home, stores[i]);

			open_stores += !DENIED("file-read-data", sp) ||
			       !DENIED("file-write-data", sp);
		}
		ok(open_stores == 0,
		    "6: cookies, Safari, Chrome, Firefox, 1Password, Bitwarden "
		    "neither read nor written (none of them exists here)");
	}

	/* 3: devices */
	ok(DENIED("file-read-data", "/dev/ttys009") &&
		DENIED("file-write-data", "/dev/ttys009") &&
		DENIED("file-ioctl", "/dev/ttys009"),
	    "3: another terminal is neither read, written nor ioctl'd");
	ok(dec("file-read-data", "/dev/ttys009", NULL,
	       "com.apple.sandbox.pty", NULL) == SBPL_ALLOW,
	    "3: a pty opened inside (its extension) is read");
	ok(ALLOWED("file-read-data", "/dev/ttys004") &&
		ALLOWED("file-write-data", "/dev/ttys004") &&
		ALLOWED("file-ioctl", "/dev/ttys004"),
	    "3: the terminal the command was started on is its own");
	ok(dec("file-ioctl", "/dev/ttys004", NULL, NULL, "TIOCSTI") ==
		SBPL_DENY,
	    "3: TIOCSTI refused on its own terminal too (the deny wins)");
	ok(ALLOWED("file-read-data", "/dev/null") &&
		ALLOWED("file-read-data", "/dev/urandom") &&
		ALLOWED("file-read-data", "/dev/fd/3") &&
		ALLOWED("file-read-data", "/dev/tty") &&
		ALLOWED("file-read-metadata", "/dev"),
	    "3: the listed nodes are read");
	ok(DENIED("file-read-data", "/dev/disk0") &&
		DENIED("file-read-data", "/dev/rdisk0") &&
		DENIED("file-read-data", "/dev/bpf0") &&
		DENIED("file-read-data", "/dev/cu.usbserial") &&
		DENIED("file-read-data", "/dev/klog"),
	    "3: any other node is not");
	ok(ALLOWED("file-read-data", "/etc/passwd") &&
		ALLOWED("file-read-data", "/usr/bin/cc"),
	    "3: reads outside /dev stay open");

	/* 4: sysctl */
	ok(dec("sysctl-read", NULL, "kern.procargs2", NULL, NULL) ==
		    SBPL_DENY &&
		dec("sysctl-read", NULL, "kern.procargs", NULL, NULL) ==
		    SBPL_DENY &&
		dec("sysctl-read", NULL, "kern.proc.all", NULL, NULL) ==
		    SBPL_DENY &&
		dec("sysctl-read", NULL, "kern.proc.uid.501", NULL, NULL) ==
		    SBPL_DENY,
	    "4: kern.procargs2, kern.procargs, kern.proc.all, kern.proc.uid "
	    "refused");
	ok(dec("sysctl-read", NULL, "hw.ncpu", NULL, NULL) == SBPL_ALLOW &&
		dec("sysctl-read", NULL, "hw.memsize", NULL, NULL) ==
		    SBPL_ALLOW &&
		dec("sysctl-read", NULL, "kern.osversion", NULL, NULL) ==
		    SBPL_ALLOW &&
		dec("sysctl-read", NULL, "hw.optional.arm.FEAT_AES", NULL,
		    NULL) == SBPL_ALLOW &&
		dec("sysctl-read", NULL, "kern.proc.pid.4242", NULL, NULL) ==
		    SBPL_ALLOW,
	    "4: hw.ncpu, hw.memsize, kern.osversion, hw.optional.*, "
	    "kern.proc.pid.N read");

	/* 5: temporary directories */
	run = sbc_param(&pl, "RUNTMP");
	free(p1);
	p1 = xasprintf("%s/x", run != NULL ? run : "/nonexistent");
	free(p2);
	p2 = xasprintf("%s/x", ttmp);
	ok(run != NULL && strcmp(run, sbc_host.run_tmp) == 0 &&
		ALLOWED("file-write-create", p1) &&
		DENIED("file-write-create", "/private/tmp/x") &&
		DENIED("file-write-unlink", "/private/tmp/tmux-501/default") &&
		DENIED("file-write-create", p2),
	    "5: the run's directory is written; /private/tmp and the "
	    "caller's TMPDIR are not");
	{
		bool tmpdir = false, tmux = false, java = false;

		for (size_t i = 0; i < pl.envp.n; i++) {
			_cleanup_free_ char *want =
			    xasprintf("TMPDIR=%s", sbc_host.run_tmp);

			tmpdir |= strcmp(pl.envp.v[i], want) == 0;
			tmux |= strncmp(pl.envp.v[i], "TMUX_TMPDIR=", 12) == 0;
			java |= strstr(pl.envp.v[i], "-Djava.io.tmpdir=") !=
				NULL;
		}
		ok(tmpdir && tmux && java,
		    "5: TMPDIR, TMUX_TMPDIR and java.io.tmpdir name the run's "
		    "directory");
	}
	kb_plan_free(&pl);
	kb_plan_free(&kc);
	setenv("TMPDIR", "/tmp", 1);
	sbc_cleanup();
}

/* --- robustness ---------------------------------------------------------- */

/* is buf[0..n) balanced, by a scan that shares nothing with the reader? */
static bool
balanced(const char *s, size_t n)
{
	size_t i;
	int depth = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == ';') {
			while (i < n && s[i] != '\n')
				i++;
			if (i == n)
				return depth == 0;
		} else if (s[i] == '#' && i + 1 < n && s[i + 1] == '|') {
			for (i += 2;
			     i + 1 < n && !(s[i] == '|' && s[i + 1] == '#');)
				i++;
			if (i + 1 >= n)
				return false;
			i++;
		} else if (s[i] == '"') {
			for (i++; i < n && s[i] != '"'; i++)
				i += s[i] == '\\';
			if (i >= n)
				return false;
		} else if (s[i] == '(') {
			depth++;
		} else if (s[i] == ')' && --depth < 0) {
			return false;
		}
	}
	return depth == 0;
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static void
test_robust(void)
{
	static const char alphabet[] = "()\";#|\\ \nx/\x01\xff";
	size_t len = strlen(masks), n, cut, unbal = 0, unbal_ok = 0, bal = 0;
	size_t weird = 0, rejected = 0, i;
	char *b, *exact;

	/* every prefix, in a buffer of exactly its length (ASan sees past) */
	for (n = 0; n < len; n++) {
		int rc;
		if ((b = malloc(n ? n : 1)) == NULL)
			break;
		memcpy(b, masks, n);
		err[0] = '\0';
		rc = sbpl_check_ex(
		    b, n, masks_params, masks_roots, 0, err, sizeof(err));
		if (!balanced(b, n)) {
			unbal++;
			unbal_ok += rc == -1;
		} else {
			bal++;
		}
		weird += (rc != 0 && rc != -1) || (rc == -1 && err[0] == 0) ||
			 strchr(err, '\n') != NULL;
		free(b);
	}
	ok(unbal_ok == unbal && weird == 0,
	    "%zu truncations: each of the %zu unbalanced refused (%zu "
	    "balanced)",
	    len, unbal, bal);

	/* random edits: a byte changed, removed or inserted, 1 to 4 times */
	for (i = 0; i < 4000; i++) {
		size_t edits = 1 + rnd() % 4, j;
		int rc;
		if ((b = malloc(len + 4)) == NULL)
			break;
		memcpy(b, masks, len);
		n = len;
		for (j = 0; j < edits && n > 0; j++) {
			cut = rnd() % n;
			char c = rnd() % 3
				     ? alphabet[rnd() % (sizeof(alphabet) - 1)]
				     : (char)rnd();
			switch (rnd() % 3) {
			case 0:
				b[cut] = c;
				break;
			case 1:
				memmove(b + cut, b + cut + 1, n - cut - 1);
				n--;
				break;
			default:
				memmove(b + cut + 1, b + cut, n - cut);
				b[cut] = c;
				n++;
				break;
			}
		}
		/* in a buffer of exactly its length (ASan sees past) */
		if ((exact = malloc(n ? n : 1)) == NULL) {
			free(b);
			break;
		}
		memcpy(exact, b, n);
		free(b);
		b = exact;
		err[0] = '\0';
		rc = sbpl_check_ex(
		    b, n, masks_params, masks_roots, 0, err, sizeof(err));
		weird += (rc != 0 && rc != -1) || (rc == -1 && err[0] == 0) ||
			 strchr(err, '\n') != NULL ||
			 (!balanced(b, n) && rc != -1);
		rejected += rc == -1;
		free(b);
	}
	ok(weird == 0,
	    "4000 random edits: no crash, one line each, every unbalanced "
	    "refused (%zu refused)",
	    rejected);
}

int
main(void)
{
	test_valid();
	test_invalid();
	test_edges();
	test_goldens();
	test_generated();
	test_findings();
	test_robust();
	return tap_done();
}
