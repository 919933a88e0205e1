/*
 * tests/unit/ro-check.h — the checks every read-only classifier case gets
 * (test-readonly.c, test-readonly-git.c).
 */
#ifndef KB_RO_CHECK_H
#define KB_RO_CHECK_H

#include <stdlib.h>
#include <string.h>

#include "../../classify/readonly.h"
#include "tap.h"

#define SAFE   1
#define UNSAFE 0

/* the words a git command needs so that no program the repository's
 * configuration names can run (classify/readonly-rules-git.c), as the
 * classifier's rewrite inserts them */
#define NG "GIT_NO_LAZY_FETCH=1 git --no-pager -c core.fsmonitor=false"
#define NSIG                                                                   \
	" -c gpg.program=false -c gpg.ssh.program=false "                      \
	"-c gpg.x509.program=false"
#define NLOG  NG NSIG " -c diff.submodule=short"
#define NDIFF NG " -c diff.submodule=short"

/* reasons may go into JSON: they must be valid UTF-8 */
static inline int
valid_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int n;

	while (*p != 0) {
		if (*p < 0x80)
			n = 0;
		else if (*p >= 0xc2 && *p <= 0xdf)
			n = 1;
		else if (*p >= 0xe0 && *p <= 0xef)
			n = 2;
		else if (*p >= 0xf0 && *p <= 0xf4)
			n = 3;
		else
			return 0;
		for (p++; n > 0; n--, p++)
			if ((*p & 0xc0) != 0x80)
				return 0;
	}
	return 1;
}

/* the verdict on `cmd` for `shell`, and what every verdict must carry */
static inline void
check_as(const char *cmd, size_t len, enum kb_ro_shell shell, int safe,
    const char *sig, const char *what)
{
	struct kb_ro_verdict v;
	char *want;
	size_t i, n;

	assert_cmpint(kb_readonly_classify_as(cmd, len, shell, &v), 0,
	    "%s: returns 0", what);
	ok(v.safe == (safe != 0), "%s is %s (%s)", what,
	    safe ? "safe" : "unsafe", v.safe ? "safe" : v.reason);
	if (v.signature == NULL) {
		ok(0, "%s: has a signature", what);
		return;
	}
	if (!v.safe) {
		ok(v.reason[0] != '\0' && valid_utf8(v.reason),
		    "%s: unsafe has a reason", what);
		/* the exact input, NUL written as C0 80 */
		want = malloc(len * 2 + 1);
		for (i = n = 0; i < len; i++) {
			if (cmd[i] == '\0') {
				want[n++] = (char)0xc0;
				want[n++] = (char)0x80;
			} else
				want[n++] = cmd[i];
		}
		want[n] = '\0';
		ok(strcmp(v.signature, want) == 0,
		    "%s: signature is the exact input", what);
		free(want);
	} else {
		ok(v.reason[0] == '\0', "%s: safe has no reason", what);
		ok(v.rewritten == NULL, "%s: safe has no rewrite", what);
		if (sig != NULL)
			assert_cmpstr(v.signature, sig, "%s: signature", what);
	}
	kb_ro_verdict_free(&v);
	ok(v.signature == NULL, "%s: freed", what);
}

/* check_as() for a caller that does not know the shell */
static inline void
check(const char *cmd, size_t len, int safe, const char *sig, const char *what)
{
	check_as(cmd, len, KB_RO_SHELL_ANY, safe, sig, what);
}

#endif
