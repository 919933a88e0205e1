/*
 * tests/unit/test-resolve.c — where a write lands (profile/resolve.c), on a
 * real tree under a temp dir: symlink chains, dangling links (the last
 * component too), ".." through a symlink, a symlinked directory that
 * points out of the workspace, relative paths, loops; the lexical form;
 * which root of a policy holds a landing; the classifier's oracle, which
 * asks the same resolver.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../classify/denial.h"
#include "../../profile/resolve.h"
#include "tap.h"
#include "tree.h"


/* kb_resolve_write(path, cwd, flags) lands at base/want */
static void
lands(const char *path, const char *cwd, unsigned flags, const char *want,
    const char *desc)
{
	char out[PATH_MAX];
	int rc = kb_resolve_write(path, cwd, flags, out, sizeof(out));

	if (rc == -1) {
		ok(0, "%s: resolved (%s)", desc, strerror(errno));
		return;
	}
	assert_cmpstr(out, at(want), "%s", desc);
}

/* kb_resolve_write fails with errno `want` */
static void
fails(const char *path, const char *cwd, size_t outlen, int want,
    const char *desc)
{
	char out[PATH_MAX];
	int rc;

	errno = 0;
	rc = kb_resolve_write(path, cwd, 0, out, outlen);
	ok(rc == -1 && errno == want, "%s: -1, %s", desc, strerror(want));
	if (rc != -1)
		printf("#   got '%s'\n", out);
	else if (errno != want)
		printf("#   got errno %s\n", strerror(errno));
}

static void
lexical(const char *in, const char *want)
{
	char out[PATH_MAX];

	if (kb_resolve_lexical(in, out, sizeof(out)) == -1) {
		ok(0, "lexical %s: %s", in, strerror(errno));
		return;
	}
	assert_cmpstr(out, want, "lexical %s is %s", in, want);
}

static void
fixture(void)
{
	mkdirs("ws/sub/deep");
	mkdirs("outside/dir");
	mkdirs("chain/c");
	touch("ws/file");
	touch("outside/file");
	/* a chain of links to a directory: a -> b -> c */
	link_to("b", "chain/a");
	link_to("c", "chain/b");
	/* a symlinked directory in the workspace pointing out of it */
	link_to(at("outside"), "ws/out");
	/* the same, relative */
	link_to("../outside", "ws/rel-out");
	/* a link to a directory below the workspace's sibling */
	link_to(at("outside/dir"), "ws/dirlink");
	/* an existing final link to a file */
	link_to(at("outside/file"), "ws/filelink");
	/* dangling: the last component, and a chain of two */
	link_to(at("outside/new"), "ws/dangling");
	link_to("dangling2", "ws/dangling1");
	link_to(at("outside/dir/made"), "ws/dangling2");
	/* dangling into a directory that does not exist yet */
	link_to(at("outside/not/yet"), "ws/deeplink");
	/* a link from outside into the workspace */
	link_to(at("ws/sub"), "outside/in");
	/* a loop */
	link_to("loop2", "ws/loop1");
	link_to("loop1", "ws/loop2");
}

static int
rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(p);
}

static void
test_plain(void)
{
	lands(at("ws/file"), NULL, 0, "ws/file", "an existing file is itself");
	lands(at("ws/sub"), NULL, 0, "ws/sub", "an existing directory");
	lands(at("ws/new"), NULL, 0, "ws/new",
	    "a file not created yet: its directory plus the name");
	lands(at("ws/a/b/c"), NULL, 0, "ws/a/b/c",
	    "a missing tail of three components is text");
	lands(at("ws//sub/./deep/"), NULL, 0, "ws/sub/deep",
	    "'//', '.' and a trailing slash go");
	lands(at("ws/file/x"), NULL, 0, "ws/file/x",
	    "below a file (ENOTDIR): text from there on");
}

static void
test_symlinks(void)
{
	lands(at("chain/a/x"), NULL, 0, "chain/c/x",
	    "a chain of links (a -> b -> c) is followed to its end");
	lands(at("chain/a"), NULL, 0, "chain/c",
	    "a chain as the last component");
	lands(at("ws/out/f"), NULL, 0, "outside/f",
	    "a path inside a symlinked dir lands where the link points "
	    "(outside)");
	lands(at("ws/rel-out/dir/x"), NULL, 0, "outside/dir/x",
	    "a relative link target is taken from the link's directory");
	lands(at("ws/filelink"), NULL, 0, "outside/file",
	    "an existing last-component link is followed (O_CREAT "
	    "follows it)");
	lands(at("ws/filelink"), NULL, KB_RESOLVE_NOFOLLOW, "ws/filelink",
	    "... and not with KB_RESOLVE_NOFOLLOW: the entry itself");
	lands(at("ws/dangling"), NULL, 0, "outside/new",
	    "a dangling last-component link lands at its target");
	lands(at("ws/dangling"), NULL, KB_RESOLVE_NOFOLLOW, "ws/dangling",
	    "... its entry with KB_RESOLVE_NOFOLLOW");
	lands(at("ws/dangling1"), NULL, 0, "outside/dir/made",
	    "a chain of two dangling links");
	lands(at("ws/deeplink/f"), NULL, 0, "outside/not/yet/f",
	    "a dangling link in the middle: its target, then the rest");
	lands(at("ws/out/"), NULL, KB_RESOLVE_NOFOLLOW, "outside",
	    "'link/' is followed even with KB_RESOLVE_NOFOLLOW");
	lands(at("ws/out/in/f"), NULL, 0, "ws/sub/f",
	    "out and back in through two links");
	fails(at("ws/loop1"), NULL, PATH_MAX, ELOOP, "a symlink loop");
	fails(at("ws/loop1/x"), NULL, PATH_MAX, ELOOP,
	    "a symlink loop in the middle");
}

static void
test_dotdot(void)
{
	char out[PATH_MAX];

	lands(at("ws/dirlink/../x"), NULL, 0, "outside/x",
	    "'..' after a link is the parent of the link's target");
	lands(at("ws/out/../ws/file"), NULL, 0, "ws/file",
	    "'..' through a link and back");
	lands(at("ws/sub/deep/../../file"), NULL, 0, "ws/file",
	    "'..' on real directories");
	lands(at("ws/missing/../out/f"), NULL, 0, "outside/f",
	    "'..' takes back a missing component; the link after it counts");
	lands(at("ws/dangling/../x"), NULL, 0, "outside/x",
	    "'..' after a dangling link: the parent of its target");
	ok(kb_resolve_write("/../../..", NULL, 0, out, sizeof(out)) == 0 &&
	    strcmp(out, "/") == 0, "'..' above / stays at /");
}

static void
test_relative(void)
{
	lands("file", at("ws"), 0, "ws/file", "a relative name against cwd");
	lands("sub/new", at("ws"), 0, "ws/sub/new",
	    "a relative missing file against cwd");
	lands("../outside/f", at("ws"), 0, "outside/f",
	    "'..' in a relative path");
	lands("out/f", at("ws"), 0, "outside/f",
	    "a relative path through a link");
	lands("f", at("ws/out"), 0, "outside/f",
	    "a cwd that is itself a link");
	lands(at("ws/file"), "relative/cwd", 0, "ws/file",
	    "an absolute path ignores cwd");
	fails("file", NULL, PATH_MAX, EINVAL, "relative, no cwd");
	fails("file", "relative/cwd", PATH_MAX, EINVAL,
	    "relative, relative cwd");
	fails("", at("ws"), PATH_MAX, ENOENT, "the empty path");
	fails(at("ws/file"), NULL, 8, ENAMETOOLONG,
	    "a landing longer than the buffer");
}

static void
test_lexical(void)
{
	char out[PATH_MAX];

	lexical("/a/./b/../c//", "/a/c");
	lexical("/..", "/");
	lexical("/a/b/../../..", "/");
	lexical("//", "/");
	lexical("/a/link/../x", "/a/x");
	ok(kb_resolve_lexical("a/b", out, sizeof(out)) == -1 &&
	    errno == EINVAL, "lexical: a relative path is refused");
	ok(kb_resolve_lexical("/abcdef", out, 4) == -1 &&
	    errno == ENAMETOOLONG, "lexical: too long for the buffer");
}

static void
test_roots(void)
{
	const char *roots[] = { NULL, at("outside/dir"), at("ws") };
	struct kb_policy p;

	assert_cmpstr(kb_resolve_root(at("ws/sub/f"), roots, 3), at("ws"),
	    "the root holding a landing");
	assert_cmpstr(kb_resolve_root(at("outside/dir"), roots, 3),
	    at("outside/dir"), "a root holds itself");
	ok(kb_resolve_root(at("outside/f"), roots, 3) == NULL,
	    "no root holds a landing beside them");
	ok(kb_resolve_root(at("wsx"), roots, 3) == NULL,
	    "a name that only starts like a root is not in it");
	ok(kb_resolve_root(at("ws"), roots, 0) == NULL, "no roots, no root");

	kb_policy_init(&p);
	p.workspace = xstrdup(at("ws"));
	p.write[0].path = xstrdup(at("outside/dir"));
	p.nwrite = 1;
	assert_cmpstr(kb_policy_root_of(&p, at("ws/sub")), at("ws"),
	    "policy: the workspace");
	assert_cmpstr(kb_policy_root_of(&p, at("outside/dir/x")),
	    at("outside/dir"), "policy: a --write root");
	ok(kb_policy_root_of(&p, at("outside/x")) == NULL,
	    "policy: outside every root");
	ok(kb_policy_within_roots(&p, at("ws/x")) &&
	    !kb_policy_within_roots(&p, at("outside/x")),
	    "kb_policy_within_roots agrees");

	ok(kb_policy_writable(&p, at("ws/sub/new")),
	    "writable: a new file in the workspace");
	ok(!kb_policy_writable(&p, at("ws/out/f")),
	    "not writable: in the workspace by name, outside through a link");
	ok(kb_policy_writable(&p, at("outside/in/new")),
	    "writable: outside by name, in the workspace through a link");
	ok(!kb_policy_writable(&p, at("ws/dangling")),
	    "not writable: a dangling link in the workspace pointing out");
	ok(kb_policy_writable(&p, at("ws/dangling2")),
	    "writable: a dangling link into a --write root");
	ok(!kb_policy_writable(&p, at("ws/dirlink/../x")),
	    "not writable: '..' after a link that leads out");
	ok(!kb_policy_writable(&p, at("ws/loop1")),
	    "not writable: what cannot be resolved");
	kb_policy_free(&p);
}

/* the classifier's host oracle and kb_classify() judge where a write
 * landed; the denial names the path as the tool did */
static void
test_oracle(void)
{
	struct kb_host_oracle_ctx ctx = { .check_access = false };
	struct kb_oracle o = kb_host_oracle_template;
	struct kb_policy p;
	struct kb_denial d;
	char out[PATH_MAX], msg[PATH_MAX + 64];

	o.ctx = &ctx;
	ok(o.canonical(at("ws/filelink"), out, sizeof(out), o.ctx) &&
	    strcmp(out, at("outside/file")) == 0,
	    "oracle: a write through a last-component link lands at its "
	    "target");
	ok(o.entry(at("ws/filelink"), out, sizeof(out), o.ctx) &&
	    strcmp(out, at("ws/filelink")) == 0,
	    "oracle: the entry is the link itself");
	ok(o.canonical(at("ws/dirlink/../new"), out, sizeof(out), o.ctx) &&
	    strcmp(out, at("outside/new")) == 0,
	    "oracle: '..' after the link's target");

	kb_policy_init(&p);
	p.workspace = xstrdup(at("ws"));
	p.cwd = xstrdup(at("ws"));
	snprintf(msg, sizeof(msg), "sh: 1: cannot create %s: Read-only file "
	    "system\n", at("ws/filelink"));
	ok(kb_classify(2, msg, strlen(msg), &p, &o, &d) &&
	    d.cls == KB_CLASS_WRITE, "classify: a write through a workspace "
	    "link that points out is a denial");
	assert_cmpstr(d.path, at("ws/filelink"), "classify: named as the "
	    "tool named it");
	assert_cmpstr(d.suggest_write, at("outside"), "classify: the grant "
	    "is where the write lands");
	snprintf(msg, sizeof(msg), "sh: 1: cannot create %s: Read-only file "
	    "system\n", "dirlink/../new");
	ok(kb_classify(2, msg, strlen(msg), &p, &o, &d) &&
	    d.cls == KB_CLASS_WRITE, "classify: a relative path with '..' "
	    "after a link is judged beside the link's target");
	assert_cmpstr(d.suggest_write, at("outside"), "classify: ... and "
	    "the grant is there");
	snprintf(msg, sizeof(msg), "sh: 1: cannot create %s: Read-only file "
	    "system\n", at("outside/in/new"));
	ok(!kb_classify(2, msg, strlen(msg), &p, &o, &d),
	    "classify: a link from outside into the workspace lands inside: "
	    "the command's own failure");
	kb_policy_free(&p);
}

int
main(void)
{
	char tmpl[] = "/var/tmp/kb-test-resolve.XXXXXX", real[PATH_MAX];

	if (mkdtemp(tmpl) == NULL || realpath(tmpl, real) == NULL ||
	    strlen(real) >= sizeof(base)) {
		printf("not ok 1 - temp dir: %s\n", strerror(errno));
		return 1;
	}
	strcpy(base, real);
	fixture();
	test_plain();
	test_symlinks();
	test_dotdot();
	test_relative();
	test_lexical();
	test_roots();
	test_oracle();
	nftw(base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return tap_done();
}
