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
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../classify/denial.h"
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

/* one denial a fixture must yield */
struct want {
	char cls[16], path[PATH_MAX], suggest[PATH_MAX], host[256];
	char cache[16]; /* the cache the denial names ([caches] NAME) */
	bool has_host, create;
};

struct label {
	int status, net, ssh;
	struct want w[KB_MAX_DENIALS]; /* w[0]: the plain keys; w[k]:
					  denialK+1.* */
	int nw;
	bool caches_off; /* captured with every [caches] NAME = off */
	bool net_project; /* net_origin=project: a project file said off */
	bool landlock;    /* backend=landlock */
	bool seatbelt;    /* backend=seatbelt */
	bool fixuser;     /* user=fixuser: captured as that user */
	char todo[256];   /* todo=WHY: a known miss, reported as TODO */
	char cwd[PATH_MAX];
	char *env[4]; /* kinbox_env=NAME=VALUE: kinbox's own environment */
	int nenv;
	char *store[4]; /* store=DIR: a kinbox store that existed */
	int nstore;
	char *exists[4]; /* exists=PATH: a host path that was there at
			    capture, outside what the test can make */
	int nexists;
	char *write[8];
	int nwrite;
	char *cmd;
};

/* the denial a key belongs to: "denial3.path" is w[2], "path" is w[0] */
static struct want *
want_of(struct label *l, char **key)
{
	int k = 0;

	if (strncmp(*key, "denial", 6) == 0 && strchr(*key, '.') != NULL) {
		k = atoi(*key + 6) - 1;
		*key = strchr(*key, '.') + 1;
		if (k < 0 || k >= KB_MAX_DENIALS)
			return NULL;
	}
	if (k + 1 > l->nw)
		l->nw = k + 1;
	return &l->w[k];
}

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
		{
			char *key = line;
			struct want *w;

			if (strcmp(key, "status") == 0)
				l->status = atoi(val);
			else if (strcmp(key, "net") == 0)
				l->net = atoi(val);
			else if (strcmp(key, "ssh_agent") == 0)
				l->ssh = atoi(val);
			else if (strcmp(key, "caches") == 0)
				l->caches_off = strcmp(val, "off") == 0;
			else if (strcmp(key, "net_origin") == 0)
				l->net_project = strcmp(val, "project") == 0;
			else if (strcmp(key, "backend") == 0)
				l->landlock = strcmp(val, "landlock") == 0,
				l->seatbelt = strcmp(val, "seatbelt") == 0;
			else if (strcmp(key, "todo") == 0)
				snprintf(l->todo, sizeof(l->todo), "%s", val);
			else if (strcmp(key, "user") == 0)
				l->fixuser = strcmp(val, "fixuser") == 0;
			else if (strcmp(key, "cwd") == 0)
				snprintf(l->cwd, sizeof(l->cwd), "%s", val);
			else if (strcmp(key, "kinbox_env") == 0 &&
				 l->nenv < 4) {
				l->env[l->nenv++] = val;
				continue;
			} else if (strcmp(key, "store") == 0 &&
				   l->nstore < 4) {
				l->store[l->nstore++] = val;
				continue;
			} else if (strcmp(key, "exists") == 0 &&
				   l->nexists < 4) {
				l->exists[l->nexists++] = val;
				continue;
			} else if (strcmp(key, "write") == 0 && l->nwrite < 8) {
				l->write[l->nwrite++] = val;
				continue;
			} else if (strcmp(key, "cmd") == 0) {
				l->cmd = val;
				continue;
			} else if ((strcmp(key, "class") == 0 ||
				       strncmp(key, "denial", 6) == 0 ||
				       strcmp(key, "path") == 0 ||
				       strcmp(key, "suggest") == 0 ||
				       strcmp(key, "host") == 0 ||
				       strcmp(key, "cache") == 0 ||
				       strcmp(key, "create") == 0) &&
				   (w = want_of(l, &key)) != NULL) {
				if (strcmp(key, "class") == 0)
					snprintf(w->cls, sizeof(w->cls), "%s",
					    val);
				else if (strcmp(key, "path") == 0)
					snprintf(w->path, sizeof(w->path),
					    "%s", val);
				else if (strcmp(key, "suggest") == 0)
					snprintf(w->suggest,
					    sizeof(w->suggest), "%s", val);
				else if (strcmp(key, "cache") == 0)
					snprintf(w->cache, sizeof(w->cache),
					    "%s", val);
				else if (strcmp(key, "create") == 0)
					w->create = atoi(val) != 0;
				else if (strcmp(key, "host") == 0) {
					snprintf(w->host, sizeof(w->host),
					    "%s", val);
					w->has_host = true;
				}
			}
		}
		free(val);
	}
	fclose(f);
	return true;
}

enum { NCLASS = KB_CLASS_GUARDED + 1 };

/* the host as it was at capture: the filesystem, and the exists= paths */
static const struct label *cur;
static bool
exists_then(const char *path, void *ctx)
{
	for (int i = 0; cur != NULL && i < cur->nexists; i++)
		if (strcmp(path, cur->exists[i]) == 0)
			return true;
	return kb_host_oracle_template.exists(path, ctx);
}

static int
class_of(const char *name)
{
	for (int c = 0; c < NCLASS; c++)
		if (strcmp(kb_class_name((enum kb_class)c), name) == 0)
			return c;
	return -1;
}

/* Splits a shell-quoted command in place ('...', "...", backslashes):
 * the words go to argv; returns how many. */
static int
shell_split(char *s, char **argv, int max)
{
	int ac = 0;
	char *out = s;

	while (*s != '\0' && ac < max) {
		char q = 0;

		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0')
			break;
		argv[ac++] = out;
		for (; *s != '\0'; s++) {
			if (q == 0 && (*s == ' ' || *s == '\t'))
				break;
			if (q == 0 && (*s == '\'' || *s == '"')) {
				q = *s;
			} else if (q != 0 && *s == q) {
				q = 0;
			} else if (*s == '\\' && q != '\'' && s[1] != '\0') {
				*out++ = *++s;
			} else {
				*out++ = *s;
			}
		}
		if (*s != '\0')
			s++;
		*out++ = '\0';
	}
	return ac;
}

/* the host's permissions as the capture user saw them: fixuser could
 * write only its home, its workspace and outside directory, /tmp; root
 * anything (the oracle's permission checks are off otherwise) */
static bool fixuser;
static bool
writable_then(const char *path, void *ctx)
{
	char own[PATH_MAX + 32];

	(void)ctx;
	if (!fixuser)
		return true;
	snprintf(own, sizeof(own), "%s/outside-fixuser", root);
	return kb_path_within(path, home) || kb_path_within(path, ws) ||
	       kb_path_within(path, own) || kb_path_within(path, "/tmp");
}

/* d is what w asks for: class, and the path and grant, the host */
static bool
matches(const struct kb_denial *d, const struct want *w)
{
	if (strcmp(kb_class_name(d->cls), w->cls) != 0)
		return false;
	switch (d->cls) {
	case KB_CLASS_WRITE:
		return strcmp(d->path, w->path) == 0 &&
		       strcmp(d->suggest_write, w->suggest) == 0 &&
		       strcmp(d->cache, w->cache) == 0 &&
		       d->suggest_create == w->create;
	case KB_CLASS_GUARDED:
	case KB_CLASS_SOCKET: /* never from stderr: kinbox's supervisor */
		return strcmp(d->path, w->path) == 0;
	case KB_CLASS_NETWORK:
		return strcmp(d->host, w->has_host ? w->host : "") == 0;
	case KB_CLASS_NONE:
	case KB_CLASS_SSH:
	case KB_CLASS_OTHER:
		break;
	}
	return true;
}

int
main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "tests/fixtures/denials";
	struct kb_host_oracle_ctx ctx = { .check_access = false };
	struct kb_oracle oracle = kb_host_oracle_template;
	struct dirent **names;
	int n, denials = 0, ordinary = 0, fixtures_right = 0, nfix = 0;
	int tp[NCLASS] = { 0 }, fp[NCLASS] = { 0 }, fn[NCLASS] = { 0 };
	int classes_right = 0, nentries = 0, tn = 0;
	char tmpl[] = "/var/tmp/kb-test-classify.XXXXXX";
	static struct kb_denial d[KB_MAX_DENIALS];

	if (mkdtemp(tmpl) == NULL || realpath(tmpl, base) == NULL)
		return 1;
	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0) {
		printf("not ok 1 - cannot read %s: %s\n", dir, strerror(errno));
		return 1;
	}
	oracle.ctx = &ctx;
	oracle.exists = exists_then;
	oracle.host_writable = writable_then;
	for (int i = 0; i < n; i++) {
		char *name = names[i]->d_name, *dot = strrchr(name, '.');
		char file[PATH_MAX + 300], *text, *raw;
		static struct label l;
		struct kb_policy p;
		struct kb_err e;
		size_t got;
		int nwant;
		bool right = true;

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
		nfix++;
		/* what existed at capture time: the suggested roots (not one
		 * to be created first) and the command's cwd */
		for (int k = 0; k < l.nw; k++)
			if (l.w[k].suggest[0] != '\0' && !l.w[k].create &&
			    kb_path_within(l.w[k].suggest, base))
				mkdirs(l.w[k].suggest);
		if (l.cwd[0] != '\0' && kb_path_within(l.cwd, base))
			mkdirs(l.cwd);
		for (int k = 0; k < l.nstore; k++)
			if (kb_path_within(l.store[k], base))
				mkdirs(l.store[k]);
		cur = &l;
		fixuser = l.fixuser;
		/* exists= paths in the capture tree are made (as files) */
		for (int k = 0; k < l.nexists; k++)
			if (kb_path_within(l.exists[k], base) &&
			    l.exists[k][strlen(l.exists[k]) - 1] == '/') {
				mkdirs(l.exists[k]); /* a directory */
			} else if (kb_path_within(l.exists[k], base)) {
				char *sl = strrchr(l.exists[k], '/');
				int fd;

				*sl = '\0';
				mkdirs(l.exists[k]);
				*sl = '/';
				fd = open(l.exists[k], O_CREAT | O_WRONLY, 0600);
				if (fd >= 0)
					close(fd);
			}
		/* kinbox's environment at capture (a socket variable); the
		 * stores follow HOME, never this test's XDG_* */
		unsetenv("XDG_CONFIG_HOME");
		unsetenv("XDG_STATE_HOME");
		unsetenv("XDG_RUNTIME_DIR");
		for (int k = 0; k < l.nenv; k++) {
			char *eq = strchr(l.env[k], '=');

			if (eq != NULL) {
				*eq = '\0';
				setenv(l.env[k], eq + 1, 1);
				*eq = '=';
			}
		}
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
		p.cwd = xstrdup(l.cwd[0] != '\0' ? l.cwd : ws);
		p.net = l.net && !l.net_project;
		if (l.net_project) {
			p.origin[KB_OPT_NET] = KB_ORIGIN_PROJECT;
			p.where[KB_OPT_NET] = xasprintf("%s/.kinbox.ini", ws);
		}
		if (l.landlock)
			p.backend = KB_BACKEND_LANDLOCK;
		if (l.seatbelt)
			p.backend = KB_BACKEND_SEATBELT;
		if (l.caches_off)
			for (size_t c = 0; c < nitems(p.cache); c++)
				p.cache[c] = KB_CACHE_OFF;
		/* the masks kinbox would have had here (/run, hidden
		 * sockets); the fake home holds no credential store */
		if (kb_masks_compute(&p, &e) == -1)
			printf("# %s: %s\n", name, e.msg);
		p.ssh_agent = l.ssh;
		/* argv: the label's shell-quoted command, split as sh would */
		char *argvv[64] = { NULL };
		if (l.cmd != NULL)
			shell_split(l.cmd, argvv, 63);
		p.argv = argvv;
		for (int w = 0; w < l.nwrite; w++) {
			mkdirs(l.write[w]);
			if (kb_policy_add_write(&p, l.write[w], KB_ORIGIN_FLAG,
				&e) == -1)
				printf("# %s: %s\n", name, e.msg);
			free(l.write[w]);
		}
		ctx.home = home;
		got = kb_classify_all(l.status, text, strlen(text), &p, &oracle,
		    d, KB_MAX_DENIALS);

		/* class=none is no denial at all */
		nwant = l.nw > 0 && strcmp(l.w[0].cls, "none") == 0 ? 0 : l.nw;
		if (nwant == 0)
			ordinary++;
		else
			denials++;
		if (nwant == 0 && got == 0)
			tn++;
		/* pair the denials in the order the stderr shows them */
		for (int k = 0; k < nwant || k < (int)got; k++) {
			int wc = k < nwant ? class_of(l.w[k].cls) : -1;
			int gc = k < (int)got ? (int)d[k].cls : -1;

			if (k < nwant) {
				nentries++;
				if (gc == wc)
					classes_right++;
			}
			if (wc >= 0 && gc == wc && matches(&d[k], &l.w[k])) {
				tp[wc]++;
				continue;
			}
			right = false;
			if (gc >= 0)
				fp[gc]++; /* a denial where there is none, or
					     the wrong one */
			if (wc >= 0)
				fn[wc]++;
			if (k < nwant && wc < 0)
				printf("# %s: unknown class '%s'\n", name,
				    l.w[k].cls);
		}
		if (right)
			fixtures_right++;
		/* a known miss still counts in the figures below */
		if (l.todo[0] != '\0')
			tap_todo_ok(right, l.todo, "%s: %s%s", name,
			    nwant ? l.w[0].cls : "none",
			    nwant > 1 ? " (and more)" : "");
		else
			ok(right, "%s: %s%s", name,
			    nwant ? l.w[0].cls : "none",
			    nwant > 1 ? " (and more)" : "");
		for (int k = 0; !right && (k < nwant || k < (int)got); k++) {
			if (k < (int)got)
				printf("#   got[%d] class=%s path='%s' "
				       "suggest='%s'%s host='%s' cache='%s' "
				       "evidence='%s'\n",
				    k, kb_class_name(d[k].cls), d[k].path,
				    d[k].suggest_write,
				    d[k].suggest_create ? " (create)" : "",
				    d[k].host, d[k].cache, d[k].evidence);
			if (k < nwant)
				printf("#   want[%d] class=%s path='%s' "
				       "suggest='%s'%s host='%s' cache='%s'\n",
				    k, l.w[k].cls, l.w[k].path, l.w[k].suggest,
				    l.w[k].create ? " (create)" : "",
				    l.w[k].host, l.w[k].cache);
		}
		free(text);
		free(l.cmd);
		for (int k = 0; k < l.nenv; k++) {
			char *eq = strchr(l.env[k], '=');

			if (eq != NULL) {
				*eq = '\0';
				unsetenv(l.env[k]);
			}
			free(l.env[k]);
		}
		for (int k = 0; k < l.nstore; k++)
			free(l.store[k]);
		for (int k = 0; k < l.nexists; k++)
			free(l.exists[k]);
		cur = NULL;
		memset(&l, 0, sizeof(l));
		kb_policy_free(&p);
		free(names[i]);
	}
	free(names);
	ok(denials >= 40, "at least 40 denial fixtures (%d)", denials);
	ok(ordinary >= 20, "at least 20 ordinary failures (%d)", ordinary);
	printf("# classifier: %d fixtures, %d with denials, %d ordinary "
	       "failures; %d right (%.1f%%)\n",
	    nfix, denials, ordinary, fixtures_right,
	    nfix ? 100.0 * fixtures_right / nfix : 0.0);
	printf("# class right for %d of %d expected denials (%.1f%%); %d "
	       "ordinary failures judged none\n",
	    classes_right, nentries,
	    nentries ? 100.0 * classes_right / nentries : 100.0, tn);
	/* per class: a hit is the right class with the right path, grant
	 * or host; precision over what was reported, recall over what the
	 * labels ask for */
	for (int c = KB_CLASS_WRITE; c < NCLASS; c++)
		printf("# %-8s precision %5.1f%% (%d/%d)  recall %5.1f%% "
		       "(%d/%d)\n",
		    kb_class_name((enum kb_class)c),
		    tp[c] + fp[c] ? 100.0 * tp[c] / (tp[c] + fp[c]) : 100.0,
		    tp[c], tp[c] + fp[c],
		    tp[c] + fn[c] ? 100.0 * tp[c] / (tp[c] + fn[c]) : 100.0,
		    tp[c], tp[c] + fn[c]);
	{
		char *cmd = xasprintf("rm -rf '%s'", base);
		if (system(cmd) != 0)
			return 1;
		free(cmd);
	}
	return tap_done();
}
