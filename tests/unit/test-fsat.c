/*
 * tests/unit/test-fsat.c — the descriptor-based file access (lib/fsat.c)
 * and the git config reader (gitguard/gitconfig.c): what a hostile tree can
 * plant must not steer, hang or widen them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/fsat.h"
#include "../../gitguard/gitconfig.h"
#include "tap.h"

static char base[] = "/tmp/kb-test-fsat.XXXXXX";

static void
put(const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", base, rel);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			printf("# write failed\n");
		close(fd);
	}
	free(p);
}

static void
test_beneath(void)
{
	int root = kb_open_dir_nofollow(base), fd;
	char *s, *outside = xasprintf("%s/../", base);
	const char *name;

	ok(root >= 0, "the root opens without following symlinks");
	put("d/f", "hello");
	s = kb_read_beneath(root, "d/f", 64);
	assert_cmpstr(s, "hello", "a regular file below the root is read");
	free(s);
	errno = 0;
	ok(kb_read_beneath(root, "d/f", 3) == NULL && errno == EFBIG,
	    "a file over the bound is refused (EFBIG)");
	ok(kb_read_beneath(root, "link/f", 64) == NULL && errno == ELOOP,
	    "a symlinked directory on the way is refused (ELOOP)");
	ok(kb_read_beneath(root, "flink", 64) == NULL && errno == ELOOP,
	    "a symlinked file is refused (ELOOP)");
	ok(kb_read_beneath(root, "../etc/passwd", 64) == NULL &&
	    errno == EXDEV, "'..' out of the root is refused (EXDEV)");
	ok(kb_read_beneath(root, "/etc/passwd", 64) == NULL && errno == EXDEV,
	    "an absolute path is refused (EXDEV)");
	ok(kb_read_beneath(root, "fifo", 64) == NULL && errno == EINVAL,
	    "a FIFO is refused at once, not waited on (EINVAL)");
	ok(kb_read_beneath(root, "d", 64) == NULL && errno == EISDIR,
	    "a directory is not read as a file");
	fd = kb_open_parent_beneath(root, "d/f", &name);
	ok(fd >= 0 && strcmp(name, "f") == 0, "the parent of d/f is d");
	if (fd >= 0) {
		char *path = kb_fd_path_at(fd, name);
		char *want = xasprintf("%s/d/f", base);

		assert_cmpstr(path, want, "the name printed is the kernel's");
		free(path);
		free(want);
		close(fd);
	}
	ok(kb_open_parent_beneath(root, "link/f", &name) == -1 &&
	    errno == ELOOP, "no parent through a symlink");
	{
		char *lpath = xasprintf("%s/link", base);

		ok(kb_open_dir_nofollow(lpath) == -1 && errno == ELOOP,
		    "kb_open_dir_nofollow refuses a symlink");
		free(lpath);
	}
	{
		char *q;
		struct stat st;

		put("d/planted", "x");
		fd = kb_open_parent_beneath(root, "d/planted", &name);
		q = fd >= 0 ? kb_quarantine_at(fd, name) : NULL;
		ok(q != NULL && fstatat(fd, q, &st, 0) == 0 &&
		    fstatat(fd, "planted", &st, 0) == -1,
		    "quarantine renames in the verified directory");
		put("d/planted", "y");
		ok(kb_quarantine_at(fd, "planted") == NULL,
		    "quarantine never replaces an earlier one");
		free(q);
		if (fd >= 0)
			close(fd);
	}
	free(outside);
	close(root);
}

static void
test_rel_join(void)
{
	char *s;

	s = kb_rel_join("a/b", "../c");
	assert_cmpstr(s, "a/c", "a/b + ../c");
	free(s);
	s = kb_rel_join(".", "x/./y//z");
	assert_cmpstr(s, "x/y/z", "dots and doubled slashes");
	free(s);
	ok(kb_rel_join("a", "../../x") == NULL, "above the root: NULL");
	ok(kb_rel_join("a", "/etc") == NULL, "absolute: NULL");
	s = kb_rel_join("a", "..");
	assert_cmpstr(s, ".", "back to the root");
	free(s);
}

static void
test_gitconfig(void)
{
	static const char init[] = "[core]\n\trepositoryformatversion = 0\n"
				   "\tfilemode = true\n\tbare = false\n"
				   "\tlogallrefupdates = true\n";
	static const char *const hostile[] = {
		"[core]\n\tfsmonitor = touch /tmp/x\n",
		"[core]\n\thooksPath = /tmp/h\n",
		"[core] sshCommand = evil\n",
		"[diff \"ev\"]\n\tcommand = evil\n",
		"[diff \"ev\"]\n\ttextconv = evil\n",
		"[merge \"ev\"]\n\tdriver = evil %A\n",
		"[filter \"ev\"]\n\tclean = evil\n\tsmudge = evil\n",
		"[filter \"lfs\"]\n\tprocess = evil\n",
		"[alias]\n\tst = \"!evil\"\n",
		"[alias]\n\tst = !evil\n",
		"[include]\n\tpath = /tmp/evil.inc\n",
		"[includeIf \"gitdir:/\"]\n\tpath = /tmp/evil.inc\n",
		"[core]\n\tpager = evil\n",
		"[pager]\n\tlog = evil\n",
		"[credential]\n\thelper = !evil\n",
		"[remote \"o\"]\n\turl = ext::sh -c evil\n",
		"[remote \"o\"]\n\tuploadpack = evil\n",
		"[remote \"o\"]\n\turl = --upload-pack=evil\n",
		"[core]\n\teditor = evil\n",
		"[sequence]\n\teditor = evil\n",
		"[gpg]\n\tprogram = evil\n",
		"[CORE]\n\tFSMONITOR = evil\n",
		"[core.x]\n\tfsmonitor = evil\n",
		"[core]\n\tfsmonitor = \\\n evil\n",
	};
	char *n, *v;

	n = kb_gitcfg_neutral(init);
	assert_cmpstr(n, init, "git init's own config is kept byte for byte");
	free(n);
	for (size_t i = 0; i < nitems(hostile); i++) {
		char *in = xasprintf("%s%s", init, hostile[i]);

		n = kb_gitcfg_neutral(in);
		assert_cmpstr(n, init, "neutral drops: %.*s", (int)strcspn(
		    hostile[i] + 1, "\n"), hostile[i] + 1);
		free(n);
		free(in);
	}
	n = kb_gitcfg_neutral("[core]\nrepositoryformatversion = 1\n"
			      "[extensions]\nobjectformat = sha256\n"
			      "[remote \"origin\"]\n\turl = https://h/r.git\n"
			      "\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
			      "[branch \"main\"]\n\tremote = origin\n"
			      "\tmerge = refs/heads/main\n");
	ok(n != NULL && strstr(n, "objectformat = sha256") &&
	    strstr(n, "url = https://h/r.git") &&
	    strstr(n, "[branch \"main\"]\n\tremote = origin\n"),
	    "what git clone writes is kept");
	free(n);
	v = kb_gitcfg_get("[core]\n\thooksPath = .husky/_\n[core]\n"
			  "\thookspath = \"x y\"\n", "core", "hookspath");
	assert_cmpstr(v, "x y", "core.hooksPath: the last one, unquoted");
	free(v);
	v = kb_gitcfg_get("[Core] HooksPath = h ; comment\n", "core",
	    "hookspath");
	assert_cmpstr(v, "h", "sections and keys are case-insensitive");
	free(v);
}

int
main(void)
{
	char *p;

	if (mkdtemp(base) == NULL)
		return 1;
	p = xasprintf("%s/d", base);
	mkdir(p, 0755);
	free(p);
	p = xasprintf("%s/link", base);
	if (symlink("d", p) == -1)
		printf("# symlink failed\n");
	free(p);
	p = xasprintf("%s/flink", base);
	if (symlink("d/f", p) == -1)
		printf("# symlink failed\n");
	free(p);
	p = xasprintf("%s/fifo", base);
	mkfifo(p, 0644);
	free(p);
	test_beneath();
	test_rel_join();
	test_gitconfig();
	p = xasprintf("rm -rf '%s'", base);
	if (system(p) != 0)
		printf("# cleanup failed\n");
	free(p);
	return tap_done();
}
