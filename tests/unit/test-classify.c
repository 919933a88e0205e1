/*
 * tests/unit/test-classify.c — the classifier against real messages:
 * every tests/fixtures/denials/NAME.txt was captured from a real tool run
 * under kinbox; NAME.label says what it must be classified as. Prints one
 * TAP line per fixture and the precision and recall over the set.
 *
 * Fixtures use @WS@ and @HOME@ for machine-specific paths, and were captured
 * with the workspace at /var/tmp/kbfix/ws (so "../outside" is
 * /var/tmp/kbfix/outside). This test relocates that tree: for each fixture
 * it makes a fresh root under /var/tmp (not /tmp: /tmp is writable in the
 * sandbox), with ws/ and home/ in it, and substitutes all three. The oracle
 * skips permission checks (the captures were made as root and as a user):
 * what is judged is the message, the path and the policy.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../denial/denial.h"
#include "tap.h"

#define CAPROOT "/var/tmp/kbfix"

static char base[PATH_MAX], root[PATH_MAX], ws[PATH_MAX], home[PATH_MAX];

/* replaces @WS@, @HOME@ and the capture root; returns a new string */
static char *
subst(const char *in)
{
	struct kb_buf b = { 0 };

	kb_buf_puts(&b, "");
	while (*in != '\0') {
		if (strncmp(in, "@WS@", 4) == 0) {
			kb_buf_puts(&b, ws);
			in += 4;
		} else if (strncmp(in, "@HOME@", 6) == 0) {
			kb_buf_puts(&b, home);
			in += 6;
		} else if (strncmp(in, CAPROOT, strlen(CAPROOT)) == 0) {
			kb_buf_puts(&b, root);
			in += strlen(CAPROOT);
		} else {
			kb_buf_add(&b, in, 1);
			in++;
		}
	}
	return b.s;
}

static void
mkdirs(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	}
	mkdir(buf, 0755);
}

struct label {
	int status, net, ssh;
	char cls[16], path[PATH_MAX], suggest[PATH_MAX], host[256];
	char cache[16]; /* the cache the denial names ([caches] NAME) */
	bool caches_off; /* captured with every [caches] NAME = off */
	char *write[8];
	int nwrite;
	char *cmd;
	bool has_host;
};

static bool
read_label(const char *file, struct label *l)
{
	char line[PATH_MAX + 64];
	FILE *f = fopen(file, "r");

	memset(l, 0, sizeof(*l));
	if (f == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *v = strchr(line, '='), *val;

		line[strcspn(line, "\n")] = '\0';
		if (v == NULL)
			continue;
		*v++ = '\0';
		val = subst(v);
		if (strcmp(line, "status") == 0)
			l->status = atoi(val);
		else if (strcmp(line, "net") == 0)
			l->net = atoi(val);
		else if (strcmp(line, "ssh_agent") == 0)
			l->ssh = atoi(val);
		else if (strcmp(line, "class") == 0)
			snprintf(l->cls, sizeof(l->cls), "%s", val);
		else if (strcmp(line, "path") == 0)
			snprintf(l->path, sizeof(l->path), "%s", val);
		else if (strcmp(line, "cache") == 0)
			snprintf(l->cache, sizeof(l->cache), "%s", val);
		else if (strcmp(line, "caches") == 0)
			l->caches_off = strcmp(val, "off") == 0;
		else if (strcmp(line, "suggest") == 0)
			snprintf(l->suggest, sizeof(l->suggest), "%s", val);
		else if (strcmp(line, "host") == 0) {
			snprintf(l->host, sizeof(l->host), "%s", val);
			l->has_host = true;
		} else if (strcmp(line, "write") == 0 && l->nwrite < 8) {
			l->write[l->nwrite++] = val;
			continue;
		} else if (strcmp(line, "cmd") == 0) {
			l->cmd = val;
			continue;
		}
		free(val);
	}
	fclose(f);
	return true;
}

int
main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "tests/fixtures/denials";
	struct kb_host_oracle_ctx ctx = { .check_access = false };
	struct kb_oracle oracle = kb_host_oracle_template;
	struct dirent **names;
	int n, tp = 0, fp = 0, fn = 0, tn = 0, denials = 0, ordinary = 0;
	char tmpl[] = "/var/tmp/kb-test-classify.XXXXXX";

	if (mkdtemp(tmpl) == NULL || realpath(tmpl, base) == NULL)
		return 1;
	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0) {
		printf("not ok 1 - cannot read %s: %s\n", dir, strerror(errno));
		return 1;
	}
	oracle.ctx = &ctx;
	for (int i = 0; i < n; i++) {
		char *name = names[i]->d_name, *dot = strrchr(name, '.');
		char file[PATH_MAX + 300], *text, *raw;
		struct label l;
		struct kb_policy p;
		struct kb_denial d;
		struct kb_err e;
		bool want, got, right;

		if (dot == NULL || strcmp(dot, ".label") != 0) {
			free(names[i]);
			continue;
		}
		*dot = '\0';
		/* home is not inside the capture root: there it would make
		 * the root an ancestor of home, which is never a write root */
		if (snprintf(root, sizeof(root), "%s/%s/cap", base, name) < 0 ||
		    snprintf(ws, sizeof(ws), "%s/%s/cap/ws", base, name) < 0 ||
		    snprintf(home, sizeof(home), "%s/%s/home", base, name) < 0)
			return 1;
		mkdirs(ws);
		mkdirs(home);
		snprintf(file, sizeof(file), "%s/%s.label", dir, name);
		if (!read_label(file, &l)) {
			ok(0, "%s: no label", name);
			free(names[i]);
			continue;
		}
		if (l.suggest[0] != '\0' && kb_path_within(l.suggest, base))
			mkdirs(l.suggest);
		snprintf(file, sizeof(file), "%s/%s.txt", dir, name);
		raw = kb_read_small_file(file, 1 << 20);
		if (raw == NULL) {
			ok(0, "%s: no .txt", name);
			free(names[i]);
			continue;
		}
		text = subst(raw);
		free(raw);

		kb_policy_init(&p);
		p.home = xstrdup(home);
		p.workspace = xstrdup(ws);
		p.cwd = xstrdup(ws);
		p.net = l.net;
		if (l.caches_off)
			for (size_t c = 0; c < nitems(p.cache); c++)
				p.cache[c] = KB_CACHE_OFF;
		/* the masks kinbox would have had here (/run, hidden
		 * sockets); the fake home holds no credential store */
		if (kb_masks_compute(&p, &e) == -1)
			printf("# %s: %s\n", name, e.msg);
		p.ssh_agent = l.ssh;
		/* argv, split on blanks: enough for tar/make/git -C */
		char *argvv[64] = { NULL }, *save = NULL, *tok;
		int ac = 0;
		for (tok = l.cmd ? strtok_r(l.cmd, " ", &save) : NULL;
		     tok != NULL && ac < 63; tok = strtok_r(NULL, " ", &save))
			argvv[ac++] = tok;
		p.argv = argvv;
		for (int w = 0; w < l.nwrite; w++) {
			mkdirs(l.write[w]);
			if (kb_policy_add_write(&p, l.write[w], KB_ORIGIN_FLAG,
				&e) == -1)
				printf("# %s: %s\n", name, e.msg);
			free(l.write[w]);
		}
		ctx.home = home;
		kb_classify(l.status, text, strlen(text), &p, &oracle, &d);

		want = strcmp(l.cls, "none") != 0;
		got = d.cls != KB_CLASS_NONE;
		right = strcmp(kb_class_name(d.cls), l.cls) == 0;
		if (right && d.cls == KB_CLASS_WRITE)
			right = strcmp(d.path, l.path) == 0 &&
			    strcmp(d.suggest_write, l.suggest) == 0 &&
			    strcmp(d.cache, l.cache) == 0;
		if (right && d.cls == KB_CLASS_NETWORK)
			right = strcmp(d.host, l.has_host ? l.host : "") == 0;
		if (want)
			denials++;
		else
			ordinary++;
		if (want && got && right)
			tp++;
		else if (!want && !got)
			tn++;
		else if (got)
			fp++; /* a denial where there is none, or the wrong one */
		if (want && !got)
			fn++;
		ok((want == got) && right, "%s: %s", name, l.cls);
		if (!((want == got) && right))
			printf("#   got class=%s path='%s' suggest='%s' host='%s' "
			       "cache='%s' evidence='%s'\n#   want path='%s' "
			       "suggest='%s' host='%s' cache='%s'\n",
			    kb_class_name(d.cls), d.path, d.suggest_write,
			    d.host, d.cache, d.evidence, l.path, l.suggest,
			    l.host, l.cache);
		free(text);
		free(l.cmd);
		kb_policy_free(&p);
		free(names[i]);
	}
	free(names);
	ok(denials >= 40, "at least 40 denial fixtures (%d)", denials);
	ok(ordinary >= 20, "at least 20 ordinary failures (%d)", ordinary);
	printf("# classifier: %d denials, %d ordinary failures\n", denials,
	    ordinary);
	printf("# precision %.1f%% (%d/%d), recall %.1f%% (%d/%d)\n",
	    tp + fp ? 100.0 * tp / (tp + fp) : 100.0, tp, tp + fp,
	    tp + fn ? 100.0 * tp / (tp + fn) : 100.0, tp, tp + fn);
	(void)tn;
	{
		char *cmd = xasprintf("rm -rf '%s'", base);
		if (system(cmd) != 0)
			return 1;
		free(cmd);
	}
	return tap_done();
}
