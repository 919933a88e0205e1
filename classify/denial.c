/*
 * classify/denial.c — from a failed command's stderr to a denial record.
 * Judged by policy and path, not by errno alone: EROFS on a path inside the
 * workspace is the git guard doing its job (nothing to grant), the same
 * message on /usr is a write the sandbox refused. No I/O of its own: the
 * host questions go through the struct kb_oracle.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../profile/hosts.h"
#include "../profile/resolve.h"
#include "../profile/tables.h"
#include "denial-int.h"

#define LOOKBACK 4 /* lines searched above a message that names no path */

const char *
kb_class_name(enum kb_class c)
{
	switch (c) {
	case KB_CLASS_NONE:
		return "none";
	case KB_CLASS_WRITE:
		return "write";
	case KB_CLASS_NETWORK:
		return "network";
	case KB_CLASS_SSH:
		return "ssh";
	case KB_CLASS_OTHER:
		return "other";
	case KB_CLASS_GUARDED:
		return "guarded";
	case KB_CLASS_SOCKET:
		return "socket";
	}
	return "none";
}

/* Returns the first phrase of `tab` found in the line, or NULL. */
static const struct kb_phrase *
match(const struct line *l, const struct kb_phrase *tab, size_t cnt, size_t *at)
{
	for (size_t i = 0; i < cnt; i++) {
		const char *p =
		    memmem(l->s, l->n, tab[i].text, strlen(tab[i].text));

		if (p != NULL && tab[i].also != NULL &&
		    memmem(l->s, l->n, tab[i].also, strlen(tab[i].also)) ==
			NULL)
			continue;
		if (p != NULL) {
			if (at != NULL)
				*at = (size_t)(p - l->s);
			return &tab[i];
		}
	}
	return NULL;
}

static bool checked(const struct kb_phrase *, const struct line *, size_t,
    const char *, const struct kb_policy *, const struct kb_oracle *);

/* The first phrase of `tab` in the line whose condition holds */
static const struct kb_phrase *
match_ok(const struct line *l, const struct kb_phrase *tab, size_t cnt,
    size_t *at, const char *base, const struct kb_policy *p,
    const struct kb_oracle *o)
{
	for (size_t i = 0; i < cnt; i++) {
		const struct kb_phrase *ph = match(l, tab + i, 1, at);

		if (ph != NULL && checked(ph, l, *at, base, p, o))
			return ph;
	}
	return NULL;
}

static bool
has_verb(const struct line *l)
{
	for (size_t i = 0; i < kb_write_verb_count; i++)
		if (memmem(l->s, l->n, kb_write_verbs[i],
			strlen(kb_write_verbs[i])) != NULL)
			return true;
	return false;
}

/* Lexical normalisation (kb_resolve_lexical): drops "." and resolves ".."
 * in place, in a buffer of PATH_MAX bytes. */
static void
normalize(char *path)
{
	char buf[PATH_MAX];

	if (kb_resolve_lexical(path, buf, sizeof(buf)) == 0)
		strcpy(path, buf);
}

/* Absolute form of a path a tool printed: ~ is the home directory,
 * relative paths are relative to where the command ran. Lexical only; the
 * oracle judges the real location. */
static bool
absolute(const struct kb_policy *p, const char *base, const char *in, char *out,
    size_t outlen)
{
	int n;

	if (in[0] == '~' && in[1] == '/' && p->home != NULL)
		n = snprintf(out, outlen, "%s/%s", p->home, in + 2);
	else if (in[0] == '/')
		n = snprintf(out, outlen, "%s", in);
	else
		n = snprintf(out, outlen, "%s/%s", base, in);
	return n > 0 && (size_t)n < outlen;
}

static const char *
basename_of(const char *w)
{
	const char *sl = strrchr(w, '/');

	return sl != NULL ? sl + 1 : w;
}

/* The words of the command: argv, and for "sh -c SCRIPT" (bash, dash,
 * zsh) the script's words too, split on blanks with quotes dropped:
 * enough to find "tar -C DIR" in "sh -c 'cd x; tar -C DIR xf a.tar'"
 * and the paths a script names. */
static void
command_words(const struct kb_policy *p, struct kb_strv *w)
{
	static const char *const shells[] = {"sh", "bash", "dash", "zsh"};
	bool shell = false;

	if (p->argv == NULL)
		return;
	for (char **a = p->argv; *a != NULL; a++)
		kb_strv_push(w, *a);
	if (p->argv[0] == NULL)
		return;
	for (size_t i = 0; i < nitems(shells); i++)
		shell =
		    shell || strcmp(basename_of(p->argv[0]), shells[i]) == 0;
	for (char **a = p->argv + 1; shell && *a != NULL; a++) {
		char buf[4096], *save = NULL, *tok;

		if ((*a)[0] != '-' || strchr(*a, 'c') == NULL || a[1] == NULL)
			continue;
		snprintf(buf, sizeof(buf), "%s", a[1]);
		for (char *c = buf; *c; c++)
			if (*c == '\'' || *c == '"')
				*c = ' ';
			else if (*c == ';' || *c == '|' || *c == '&' ||
				 *c == '\n' || *c == '<' || *c == '>')
				*c = ';'; /* a word of its own below */
		for (tok = strtok_r(buf, " \t", &save); tok != NULL;
		     tok = strtok_r(NULL, " \t", &save)) {
			char *semi;

			while ((semi = strchr(tok, ';')) != NULL) {
				*semi = '\0';
				if (*tok != '\0')
					kb_strv_push(w, tok);
				kb_strv_push(w, ";");
				tok = semi + 1;
			}
			if (*tok != '\0')
				kb_strv_push(w, tok);
		}
		break;
	}
}

/* Where relative paths in the messages start: the cwd, or the directory
 * given with -C to tar, make or git (-D to cpio, -d to unzip; relative to
 * the cwd), in argv or in a shell's script. */
static void
argv_base(const struct kb_policy *p, char *out, size_t outlen)
{
	const char *cwd = p->cwd != NULL ? p->cwd : "/";
	const char *dir = NULL;
	struct kb_strv w = {0};

	snprintf(out, outlen, "%s", cwd);
	command_words(p, &w);
	for (size_t k = 0; k < w.n; k++) {
		const char *tool = basename_of(w.v[k]);

		for (size_t i = 0; i < kb_chdir_flag_count; i++) {
			const char *flag = kb_chdir_flags[i].flag;
			size_t fl = strlen(flag);

			if (strcmp(tool, kb_chdir_flags[i].tool) != 0)
				continue;
			for (size_t j = k + 1;
			     j < w.n && strcmp(w.v[j], ";") != 0; j++) {
				const char *a = w.v[j];

				if (strcmp(a, flag) == 0 && j + 1 < w.n)
					dir = w.v[j + 1];
				else if (strncmp(a, flag, fl) == 0 &&
					 (a[fl] == '=' ||
					     (fl == 2 && a[fl] != '\0')))
					dir = a + fl + (a[fl] == '=');
			}
		}
	}
	if (dir != NULL) {
		if (dir[0] == '/')
			snprintf(out, outlen, "%s", dir);
		else if (snprintf(out, outlen, "%s/%s", cwd, dir) < 0)
			out[0] = '\0';
		normalize(out);
	}
	kb_strv_free(&w);
}

/* `name` is a word of the command before its chdir flag ("tar cf
 * ../x.tar -C dir .": the archive is relative to the cwd) */
static bool
before_chdir(const struct kb_policy *p, const char *name)
{
	struct kb_strv w = {0};
	bool seen = false, flag = false;

	command_words(p, &w);
	for (size_t k = 0; k < w.n && !flag; k++) {
		for (size_t i = 0; i < kb_chdir_flag_count && !flag; i++)
			flag = strncmp(w.v[k], kb_chdir_flags[i].flag,
				   strlen(kb_chdir_flags[i].flag)) == 0 &&
			       strcmp(basename_of(w.v[0]),
				   kb_chdir_flags[i].tool) == 0;
		if (!flag && strcmp(w.v[k], name) == 0)
			seen = true;
	}
	kb_strv_free(&w);
	return seen && flag;
}

/* make's "Entering directory 'X'": relative paths after it are under X */
static bool
entering(const struct line *l, char *base, size_t baselen)
{
	static const char tag[] = "Entering directory ";
	const char *t = memmem(l->s, l->n, tag, sizeof(tag) - 1);
	char raw[PATH_MAX];
	struct line rest;

	if (t == NULL)
		return false;
	rest.s = t;
	rest.n = l->n - (size_t)(t - l->s);
	if (!kb_dn_extract_path(&rest, rest.n, raw, sizeof(raw)) ||
	    raw[0] != '/')
		return false;
	snprintf(base, baselen, "%s", raw);
	normalize(base);
	return true;
}

/* Inside what the command may write: then a failure is its own. */
static bool
writable(const struct kb_policy *p, const char *path)
{
	return kb_policy_within_writable(p, path) ||
	       kb_path_within(path, "/dev");
}

static bool
masked(const struct kb_policy *p, const char *path)
{
	for (size_t i = 0; i < p->nmask; i++)
		if ((p->mask[i].kind == KB_MASK_DIR ||
			p->mask[i].kind == KB_MASK_FILE) &&
		    kb_path_within(path, p->mask[i].path))
			return true;
	return false;
}

static void
set_evidence(struct kb_denial *d, const struct line *l, const char *reason)
{
	size_t n =
	    l->n < sizeof(d->evidence) - 1 ? l->n : sizeof(d->evidence) - 1;

	memcpy(d->evidence, l->s, n);
	d->evidence[n] = '\0';
	/* keep the evidence printable on one line */
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)d->evidence[i] < 0x20)
			d->evidence[i] = ' ';
	snprintf(d->reason, sizeof(d->reason), "%s", reason);
}

/* In a toolchain cache of kb_cache_table (read-only here, or the write
 * would have landed)? Names it in `d`. */
static bool
in_cache(const struct kb_policy *p, const struct kb_oracle *o, const char *real,
    struct kb_denial *d)
{
	for (size_t i = 0; i < kb_cache_count && p->home != NULL; i++)
		for (size_t j = 0; j < nitems(kb_cache_table[i].path); j++) {
			char dir[PATH_MAX];

			if (kb_cache_table[i].path[j] == NULL)
				continue;
			snprintf(dir, sizeof(dir), "%s/%s", p->home,
			    kb_cache_table[i].path[j]);
			/* in it, or on the way to it from home (a missing
			 * ~/.cargo before ~/.cargo/git) when it is absent */
			if (!kb_path_within(real, dir) &&
			    !(kb_path_within(dir, real) &&
				kb_path_within(real, p->home) &&
				strcmp(real, p->home) != 0 &&
				!o->exists(dir, o->ctx)))
				continue;
			snprintf(d->cache, sizeof(d->cache), "%s",
			    kb_cache_table[i].name);
			snprintf(d->cache_dir, sizeof(d->cache_dir), "%s", dir);
			d->cache_off = p->cache[i] == KB_CACHE_OFF;
			d->cache_absent = !o->exists(dir, o->ctx);
			return true;
		}
	return false;
}

/* Git metadata the guards keep read-only inside a writable root: the
 * hooks and config of a repository (.git/hooks/..., .git/config, and the
 * same under .git/modules/NAME and .git/worktrees/NAME), and what the scan
 * guarded (p->guard). Returns what guards it, or NULL. */
static const char *
guarded_git(const struct kb_policy *p, const char *real)
{
	for (const char *g = real; (g = strstr(g, "/.git")) != NULL; g += 5) {
		const char *r = g + 5;

		if (*r != '/')
			continue;
		for (r++;;) {
			if (strncmp(r, "hooks", 5) == 0 &&
			    (r[5] == '\0' || r[5] == '/'))
				return "kinbox's git guard (hooks run outside "
				       "the sandbox, as you)";
			if (strcmp(r, "config") == 0)
				return "kinbox's git guard (git config names "
				       "programs that run outside the "
				       "sandbox)";
			if (strncmp(r, "modules/", 8) == 0 ||
			    strncmp(r, "worktrees/", 10) == 0) {
				const char *n = strchr(strchr(r, '/') + 1, '/');

				if (n == NULL)
					break;
				r = n + 1;
				continue;
			}
			break;
		}
	}
	for (size_t i = 0; i < p->nguard; i++) {
		const struct kb_guard *g = &p->guard[i];

		if ((g->kind == KB_GUARD_RO ||
			g->kind == KB_GUARD_RO_ABSENT_DIR ||
			g->kind == KB_GUARD_RO_ABSENT_FILE) &&
		    kb_path_within(real, g->path))
			return "kinbox's git guard (git runs hooks and config "
			       "outside the sandbox)";
		if (g->kind == KB_GUARD_PIN_DIR && strcmp(real, g->path) == 0)
			return "kinbox's git guard (the repository may not be "
			       "renamed away)";
	}
	return NULL;
}

/* In a credential store of the table (~/.ssh, ~/.gnupg, ...), there or
 * not: hidden when it is there, and never a write root */
static bool
credential(const struct kb_policy *p, const char *real)
{
	for (size_t i = 0; i < kb_credential_count && p->home != NULL; i++) {
		char dir[PATH_MAX];

		snprintf(
		    dir, sizeof(dir), "%s/%s", p->home, kb_credential_table[i]);
		if (kb_path_within(real, dir))
			return true;
	}
	return false;
}

static bool
words_near(
    const struct line *lines, size_t i, const char *const *words, size_t nwords)
{
	for (size_t k = 0; k <= LOOKBACK && k <= i; k++)
		for (size_t w = 0; w < nwords; w++)
			if (memmem(lines[i - k].s, lines[i - k].n, words[w],
				strlen(words[w])) != NULL)
				return true;
	return false;
}

/* The name to report for a refused write to `abs`: a temporary name the
 * tool made up (the message says so, and it is not there) stands for its
 * directory; a lock file ("x.lock", git's) for the file it locks. */
static void
blocked_name(const char *abs, const struct line *lines, size_t i,
    const struct kb_oracle *o, char *out, size_t outlen)
{
	size_t n = strlen(abs);

	snprintf(out, outlen, "%s", abs);
	if (words_near(lines, i, kb_temp_words, kb_temp_word_count) &&
	    !o->exists(abs, o->ctx)) {
		char *sl = strrchr(out, '/');

		if (sl != NULL && sl != out)
			*sl = '\0';
		return;
	}
	if (n > 5 && strcmp(abs + n - 5, ".lock") == 0 && abs[n - 6] != '/')
		out[n - 5] = '\0';
}

/* A missing directory the write needed, where no existing directory
 * fits as --write (your home or /): the first missing one below the
 * nearest existing ancestor, when the path shows it is a directory (a
 * deeper path is below it, or the message makes a directory). It can be
 * made outside and then granted. */
static bool
missing_dir(const struct kb_policy *p, const struct kb_oracle *o,
    const char *real, bool mkdir_said, char *out, size_t outlen)
{
	char buf[PATH_MAX];
	size_t n;

	snprintf(buf, sizeof(buf), "%s", real);
	if (o->exists(buf, o->ctx))
		return false;
	for (;;) {
		char *slash = strrchr(buf, '/');
		char up[PATH_MAX];

		if (slash == NULL)
			return false;
		if (slash == buf)
			snprintf(up, sizeof(up), "/");
		else
			snprintf(
			    up, sizeof(up), "%.*s", (int)(slash - buf), buf);
		if (o->exists(up, o->ctx))
			break;
		*slash = '\0';
	}
	/* buf: the first missing directory (or the leaf itself) */
	n = strlen(buf);
	if (!((real[n] == '/' && real[n + 1] != '\0') ||
		(real[n] == '\0' && mkdir_said)))
		return false;
	if (strstr(buf, "/.git") != NULL || masked(p, buf) ||
	    credential(p, buf) || kb_config_store_of(p, buf) != NULL ||
	    kb_config_store_under(p, buf) != NULL)
		return false;
	snprintf(out, outlen, "%s", buf);
	return true;
}

/* Was the missing leaf a directory to make? The message says mkdir, or
 * it does not say it made a file (touch, a redirection, open) and the
 * name has no dot at all ("venvs", "lib"; "x.conf" and ".zshrc" are
 * taken as files: advice to mkdir a file's name would do harm) */
static bool
leaf_is_dir(const struct line *lines, size_t i, const char *real)
{
	const char *base = strrchr(real, '/');

	if (words_near(lines, i, kb_mkdir_words, kb_mkdir_word_count))
		return true;
	if (words_near(lines, i, kb_file_words, kb_file_word_count))
		return false;
	base = base != NULL ? base + 1 : real;
	return base[0] != '\0' && strchr(base, '.') == NULL;
}

enum refusal {
	REFUSED_ROFS,   /* EROFS: a read-only mount */
	REFUSED_PERM,   /* EACCES/EPERM: the file's mode, or Landlock */
	REFUSED_BUSY,   /* EBUSY: a mount point */
	REFUSED_UNSAID, /* no errno given: judged as EROFS */
};

/* Judges one name a message gave for a refused write: a denial (write or
 * guarded) in `d`, or false when the sandbox is not why it failed. */
static bool
judge_path(const char *raw, const struct line *lines, size_t nlines, size_t i,
    enum refusal how, bool lsm, const char *base, const struct kb_policy *p,
    const struct kb_oracle *o, struct kb_denial *d)
{
	char abs[PATH_MAX], real[PATH_MAX], ent[PATH_MAX];
	const char *why;
	bool hidden_link, landlock = p->backend == KB_BACKEND_LANDLOCK;

	(void)nlines;
	/* git names its own files (".git/config", ".git/index.lock") from
	 * the top of the repository, wherever the command ran in it */
	if (strncmp(raw, ".git/", 5) == 0 || strcmp(raw, ".git") == 0) {
		char top[PATH_MAX], probe[PATH_MAX + 8];

		snprintf(top, sizeof(top), "%s", base);
		for (;;) {
			char *sl;

			snprintf(probe, sizeof(probe), "%s/.git", top);
			if (o->exists(probe, o->ctx)) {
				base = top;
				break;
			}
			sl = strrchr(top, '/');
			if (sl == NULL || sl == top)
				break;
			*sl = '\0';
		}
		if (!absolute(p, base, raw, abs, sizeof(abs)))
			return false;
	} else if (!absolute(p, base, raw, abs, sizeof(abs)))
		return false;
	/* judged where the write landed: symlinks first, then ".." (a
	 * symlinked ~/.ssh is the mask's target, ws/link/../x is beside the
	 * link's target); reported as the tool named it */
	if (o->canonical == NULL ||
	    !o->canonical(abs, real, sizeof(real), o->ctx)) {
		snprintf(real, sizeof(real), "%s", abs);
		normalize(real);
	}
	if (o->entry == NULL || !o->entry(abs, ent, sizeof(ent), o->ctx))
		snprintf(ent, sizeof(ent), "%s", real);
	normalize(abs);
	/* a link in a credential store is hidden with it: the write never
	 * reached the link's target */
	hidden_link = masked(p, ent) && !writable(p, ent);
	if (writable(p, real) && !hidden_link) {
		/* inside what the command may write, only a guard refuses:
		 * a read-only mount (EROFS), a mount point (EBUSY), or
		 * the kernel policy's own word (lsm: Landlock's EACCES,
		 * Seatbelt's EPERM); anything else is the file's own mode
		 * or the command's own failure */
		if (how == REFUSED_PERM && !lsm)
			return false;
		if ((why = guarded_git(p, real)) == NULL &&
		    (why = guarded_git(p, ent)) == NULL)
			return false;
		d->cls = KB_CLASS_GUARDED;
		snprintf(d->path, sizeof(d->path), "%s", abs);
		snprintf(d->guard, sizeof(d->guard), "%s", why);
		return true;
	}
	if (how == REFUSED_BUSY)
		return false; /* a mount point outside: not a refused write */
	if (!(how == REFUSED_ROFS || how == REFUSED_UNSAID || lsm) &&
	    !has_verb(&lines[i]))
		return false;
	/* git's hooks and config outside the writable set: a grant of the
	 * repository would not lift it, since kinbox guards them in every
	 * write root */
	if ((why = guarded_git(p, real)) != NULL &&
	    o->host_writable(real, o->ctx)) {
		d->cls = KB_CLASS_GUARDED;
		snprintf(d->path, sizeof(d->path), "%s", abs);
		snprintf(d->guard, sizeof(d->guard), "%s", why);
		return true;
	}
	/* kinbox's own stores: never writable from a sandbox */
	if ((why = kb_config_store_of(p, real)) != NULL) {
		d->cls = KB_CLASS_GUARDED;
		snprintf(d->path, sizeof(d->path), "%s", abs);
		snprintf(d->guard, sizeof(d->guard),
		    "kinbox's own store %s (a sandbox that could write it "
		    "would grant itself more)",
		    why);
		return true;
	}
	/* It could not write there without the sandbox either: an ordinary
	 * failure (inside, a read-only mount answers EROFS before the
	 * permission check, so EROFS alone proves nothing). */
	if (!o->host_writable(real, o->ctx))
		return false;
	d->cls = KB_CLASS_WRITE;
	blocked_name(abs, lines, i, o, d->path, sizeof(d->path));
	if (masked(p, real) || hidden_link || credential(p, real)) {
		/* a credential store: no --write lifts a mask */
		d->cls = KB_CLASS_OTHER;
		d->suggest_unconfined = true;
		snprintf(d->guard, sizeof(d->guard), "a credential store");
		return true;
	}
	if (in_cache(p, o, real, d))
		return true;
	/* kinbox refuses --write /tmp itself (a subdirectory of it it
	 * takes) */
	if (o->suggest_root(
		real, d->suggest_write, sizeof(d->suggest_write), o->ctx) &&
	    kb_config_store_under(p, d->suggest_write) == NULL &&
	    strcmp(d->suggest_write, "/tmp") != 0)
		return true;
	d->suggest_write[0] = '\0';
	/* the landlock backend's /tmp is the host's, read-only: no root to
	 * make and grant, the run's $TMPDIR is what helps (the report says
	 * so) */
	if (landlock && kb_path_within(real, "/tmp"))
		return true;
	if (missing_dir(p, o, real, leaf_is_dir(lines, i, real),
		d->suggest_write, sizeof(d->suggest_write))) {
		d->suggest_create = true;
		return true;
	}
	d->suggest_unconfined = true; /* only / or $HOME would do */
	return true;
}

/* The paths the command's words name (argv, a shell's script): a whole
 * word, the value after '=' ("--prefix=/opt/x", "-Dx.y=/opt/x") or after
 * a short option ("-o/opt/x"), a quoted string in a word (python -c
 * 'open("/opt/x", "w")'). Only those whose base name is `name`, when
 * given. A name that does not exist stands for its first missing
 * directory, which is what a "mkdir -p" was refused. */
static size_t
argv_paths(const struct kb_policy *p, const struct kb_oracle *o,
    const char *base, const char *name, char (*out)[PATH_MAX], size_t max)
{
	struct kb_strv w = {0};
	size_t k = 0;

	command_words(p, &w);
	for (size_t j = 1; j < w.n && k < max; j++) {
		const char *v = w.v[j], *eq = strchr(v, '=');
		char found[8][PATH_MAX];
		struct line l;
		size_t nf;

		if (eq != NULL)
			v = eq + 1;
		else if (v[0] == '-' && v[1] != '\0' && v[1] != '-' &&
			 v[2] == '/')
			v += 2;
		l.s = v;
		l.n = strlen(v);
		nf = kb_dn_all_paths(&l, found, nitems(found));
		/* a bare relative word with a slash ("out/x") */
		if (nf == 0 && strchr(v, '/') != NULL && v[0] != '-' &&
		    strstr(v, "://") == NULL && kb_dn_pathish(v, l.n, true))
			snprintf(found[nf++], PATH_MAX, "%s", v);
		for (size_t f = 0; f < nf && k < max; f++) {
			char abs[PATH_MAX];

			if (name != NULL &&
			    strcmp(basename_of(found[f]), name) != 0)
				continue;
			{
				size_t fl = strnlen(found[f], PATH_MAX - 1);

				memcpy(out[k], found[f], fl);
				out[k][fl] = '\0';
			}
			/* the first missing directory, for a name not there */
			if (absolute(p, base, found[f], abs, sizeof(abs)) &&
			    !o->exists(abs, o->ctx) && name == NULL) {
				char up[PATH_MAX];

				normalize(abs);
				snprintf(up, sizeof(up), "%s", abs);
				for (;;) {
					char *sl = strrchr(up, '/');

					if (sl == NULL || sl == up)
						break;
					*sl = '\0';
					if (o->exists(up, o->ctx))
						break;
					snprintf(abs, sizeof(abs), "%s", up);
				}
				snprintf(out[k], PATH_MAX, "%s", abs);
			}
			k++;
		}
	}
	kb_strv_free(&w);
	return k;
}

/* A write denial on line `i`: the path from the line, else from the few
 * lines above it (cargo's "Caused by", npm's "npm ERR! path"). When the
 * name it gives is not refused, the line's other names are judged (a
 * source printed before the blocked destination). */
static bool
judge_write(const struct line *lines, size_t nlines, size_t i, size_t at,
    enum refusal how, const struct kb_phrase *ph, const char *base,
    const struct kb_policy *p, const struct kb_oracle *o, struct kb_denial *d)
{
	/* the phrase is how this backend's kernel policy refuses a write
	 * outside the writable set: Landlock answers EACCES, Seatbelt EPERM
	 * ("Operation not permitted", which under bubblewrap is the seccomp
	 * filter's or a file's own) */
	bool lsm = (p->backend == KB_BACKEND_LANDLOCK &&
		       ph->check == KB_CHECK_EACCES) ||
		   (p->backend == KB_BACKEND_SEATBELT && how == REFUSED_PERM &&
		       ph->check != KB_CHECK_EACCES);
	/* a code ("EROFS", "errno -30") rather than a message */
	bool ahead =
	    strncmp(ph->text, "errno", 5) != 0 &&
	    strspn(ph->text, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != strlen(ph->text);
	char raw[PATH_MAX], others[8][PATH_MAX], cwdbase[PATH_MAX];
	bool own = kb_dn_extract_path(&lines[i], at, raw, sizeof(raw)),
	     found = own;
	/* EROFS (or no errno) on a name that is not on a read-only mount:
	 * the message's name is not the whole path; the command's words
	 * may hold it. EACCES on it is the file's own mode: never. */
	bool argv_ok =
	    (how == REFUSED_ROFS || how == REFUSED_UNSAID || lsm) && ahead;
	size_t n;

	if (own && strcmp(raw, ph->text) == 0)
		own = found = false; /* "code: 'EROFS'": the code, no name */
	snprintf(cwdbase, sizeof(cwdbase), "%s", p->cwd ? p->cwd : "/");
	/* a line near it that names a path (not a bare word, not a
	 * traceback's code) */
	for (size_t k = 1; !found && k <= LOOKBACK && k <= i; k++)
		found = !kb_dn_code_frame(&lines[i - k]) &&
			kb_dn_extract_path(
			    &lines[i - k], lines[i - k].n, raw, sizeof(raw)) &&
			strchr("/~.", raw[0]) != NULL;
	/* CMake and gpg name the path on a line after the message; not
	 * after a bare code ("npm error code EROFS"), whose message
	 * follows with names of its own */
	for (size_t k = 1; !found && ahead && k <= 2 && i + k < nlines; k++)
		found = !kb_dn_code_frame(&lines[i + k]) &&
			kb_dn_extract_path(
			    &lines[i + k], lines[i + k].n, raw, sizeof(raw)) &&
			strchr("/~.", raw[0]) != NULL;
	/* a bare code whose path is on a line of its own below it ("npm
	 * error code EACCES" ... "npm error path /x"), when no message
	 * line says it */
	for (size_t k = 1; !found && !ahead && k <= 4 && i + k < nlines; k++)
		for (size_t f = 0; !found && f < kb_path_line_prefix_count;
		     f++) {
			const struct line *l = &lines[i + k];
			size_t pl = strlen(kb_path_line_prefixes[f]);

			if (l->n <= pl || l->n - pl >= sizeof(raw) ||
			    memcmp(l->s, kb_path_line_prefixes[f], pl) != 0 ||
			    strchr("/~", l->s[pl]) == NULL)
				continue;
			memcpy(raw, l->s + pl, l->n - pl);
			raw[l->n - pl] = '\0';
			found = true;
		}
	if (found) {
		/* a name the command gave before tar's -C is not under it */
		const char *b = before_chdir(p, raw) ? cwdbase : base;

		if (judge_path(raw, lines, nlines, i, how, lsm, b, p, o, d))
			return true;
		n = own ? kb_dn_all_paths(&lines[i], others, nitems(others))
			: 0;
		for (size_t k = 0; k < n; k++) {
			if (strcmp(others[k], raw) == 0)
				continue;
			memset(d, 0, sizeof(*d));
			if (judge_path(others[k], lines, nlines, i, how, lsm,
				base, p, o, d))
				return true;
		}
	}
	if (!argv_ok) {
		memset(d, 0, sizeof(*d));
		return false;
	}
	/* the message names only a file's base name ("audit.log: ..."),
	 * or no path ("could not create parent directories"): the path the
	 * command was given */
	for (int pass = own ? 0 : 1; pass < 2; pass++) {
		n = argv_paths(p, o, cwdbase,
		    pass == 0 ? basename_of(raw) : NULL, others,
		    nitems(others));
		for (size_t k = 0; k < n; k++) {
			memset(d, 0, sizeof(*d));
			if (judge_path(others[k], lines, nlines, i, how, lsm,
				cwdbase, p, o, d))
				return true;
		}
	}
	memset(d, 0, sizeof(*d));
	return false;
}

/* under a mask: /run, a credential store, a hidden socket */
static bool
hidden(const struct kb_policy *p, const char *path)
{
	for (size_t i = 0; i < p->nmask; i++)
		if ((p->mask[i].kind == KB_MASK_TREE ||
			p->mask[i].kind == KB_MASK_DIR ||
			p->mask[i].kind == KB_MASK_FILE) &&
		    kb_path_within(path, p->mask[i].path))
			return true;
	return false;
}

static bool
line_abs_path(const struct line *l, size_t at, const char *base,
    const struct kb_policy *p, char *abs, size_t abslen)
{
	char raw[PATH_MAX];

	if (!kb_dn_extract_path(l, at, raw, sizeof(raw)) ||
	    !absolute(p, base, raw, abs, abslen))
		return false;
	normalize(abs);
	return true;
}

/* EPERM from chmod on a file the caller may change: the filter's doing */
static bool
line_path_owned(const struct line *l, size_t at, const char *base,
    const struct kb_policy *p, const struct kb_oracle *o)
{
	char abs[PATH_MAX];

	return line_abs_path(l, at, base, p, abs, sizeof(abs)) &&
	       o->host_writable(abs, o->ctx);
}

static bool
line_path_hidden(const struct line *l, size_t at, const char *base,
    const struct kb_policy *p)
{
	char abs[PATH_MAX];

	return line_abs_path(l, at, base, p, abs, sizeof(abs)) &&
	       hidden(p, abs);
}

/* A path in kinbox's own stores, which the sandbox hides: whatever the
 * command tried there, it is refused by design */
static bool
line_path_store(const struct line *l, size_t at, const char *base,
    const struct kb_policy *p, struct kb_denial *d)
{
	char abs[PATH_MAX];
	const char *st;

	if (!line_abs_path(l, at, base, p, abs, sizeof(abs)) ||
	    (st = kb_config_store_of(p, abs)) == NULL)
		return false;
	d->cls = KB_CLASS_GUARDED;
	snprintf(d->path, sizeof(d->path), "%s", abs);
	snprintf(d->guard, sizeof(d->guard),
	    "kinbox's own store %s (hidden from every sandbox: one that could "
	    "write it would grant itself more)",
	    st);
	return true;
}

/* a host path from a phrase's list; $XDG_RUNTIME_DIR is expanded from
 * the environment kinbox (or kinpolicy) runs in */
static bool
host_has(const char *list, const struct kb_oracle *o)
{
	char buf[1024], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ":", &save); tok != NULL;
	     tok = strtok_r(NULL, ":", &save)) {
		char path[PATH_MAX];
		const char *x = getenv("XDG_RUNTIME_DIR");

		if (strncmp(tok, "$XDG_RUNTIME_DIR", 16) == 0) {
			if (x == NULL || x[0] != '/')
				continue;
			snprintf(path, sizeof(path), "%s%s", x, tok + 16);
		} else {
			snprintf(path, sizeof(path), "%s", tok);
		}
		if (o->exists(path, o->ctx))
			return true;
	}
	return false;
}

/* "... at unix:///var/run/docker.sock. Is ...": that socket is hidden
 * by the sandbox, and it is there on the host */
static bool
socket_hidden(
    const struct line *l, const struct kb_policy *p, const struct kb_oracle *o)
{
	const char *u = memmem(l->s, l->n, "unix://", 7);
	char path[PATH_MAX], real[PATH_MAX];
	size_t n = 0;

	if (u == NULL)
		return false;
	u += 7;
	while (u + n < l->s + l->n && u[n] != ' ' && u[n] != '\t' &&
	       u[n] != '"' && u[n] != '\'' && n + 1 < sizeof(path))
		n++;
	while (n > 0 && strchr(".,:;)", u[n - 1]) != NULL)
		n--;
	memcpy(path, u, n);
	path[n] = '\0';
	if (path[0] != '/')
		return false;
	if (o->canonical == NULL ||
	    !o->canonical(path, real, sizeof(real), o->ctx))
		snprintf(real, sizeof(real), "%s", path);
	return (hidden(p, path) || hidden(p, real)) && o->exists(path, o->ctx);
}

static bool
checked(const struct kb_phrase *ph, const struct line *l, size_t at,
    const char *base, const struct kb_policy *p, const struct kb_oracle *o)
{
	switch (ph->check) {
	case KB_CHECK_NONE:
	case KB_CHECK_EACCES:
		return true;
	case KB_CHECK_INET:
		return kb_dn_inet_named(l);
	case KB_CHECK_SOCKET:
		return socket_hidden(l, p, o);
	case KB_CHECK_OWNED:
		return line_path_owned(l, at, base, p, o);
	case KB_CHECK_HOST:
		return ph->paths != NULL && host_has(ph->paths, o);
	}
	return false;
}

/*
 * A command given a hidden path in its arguments (curl --unix-socket
 * /run/x.sock, socat UNIX-CONNECT:/run/x) whose stderr says a connection
 * or a file failed, without naming the path.
 */
static bool
argv_names_hidden(const struct line *lines, size_t nlines,
    const struct kb_policy *p, struct kb_denial *d)
{
	const struct line *fail = NULL;

	for (size_t i = 0; i < nlines && fail == NULL; i++)
		if (match(&lines[i], kb_fail_phrases, kb_fail_count, NULL))
			fail = &lines[i];
	if (fail == NULL || p->argv == NULL)
		return false;
	for (char **a = p->argv + 1; *a != NULL; a++) {
		const char *v = strchr(*a, '/');

		/* the path starts the argument, or follows '=' or ':' */
		if (v == NULL || (v != *a && v[-1] != '=' && v[-1] != ':'))
			continue;
		if (hidden(p, v)) {
			d->cls = KB_CLASS_OTHER;
			d->suggest_unconfined = true;
			set_evidence(d, fail, "hidden by the sandbox");
			return true;
		}
	}
	return false;
}

/* Same denial as one already found? (then it is not reported twice; a
 * network denial that names no host joins one that does) */
static bool
same_denial(struct kb_denial *have, const struct kb_denial *d)
{
	if (have->cls != d->cls)
		return false;
	switch (d->cls) {
	case KB_CLASS_WRITE:
	case KB_CLASS_GUARDED:
	case KB_CLASS_SOCKET:
		return strcmp(have->path, d->path) == 0;
	case KB_CLASS_NETWORK:
		if (have->host[0] == '\0' && d->host[0] != '\0') {
			snprintf(have->host, sizeof(have->host), "%s", d->host);
			return true;
		}
		return d->host[0] == '\0' || strcmp(have->host, d->host) == 0;
	case KB_CLASS_SSH:
		return true;
	case KB_CLASS_OTHER:
		return strcmp(have->reason, d->reason) == 0;
	case KB_CLASS_NONE:
		break;
	}
	return true;
}

/* The socket line i says was refused was a unix one: that line, the lines
 * above it (the few just above, and further up only inside an indented
 * traceback), or the command's words (curl --unix-socket, socat
 * UNIX-CONNECT:, python -c '...AF_UNIX...') say so */
static bool
unix_socket(const struct line *lines, size_t i, const struct kb_policy *p)
{
	struct kb_strv w = {0};
	bool yes = false;

	for (size_t k = 0; !yes && k <= 30 && k <= i; k++) {
		const struct line *l = &lines[i - k];

		if (k > LOOKBACK && l->n > 0 && l->s[0] != ' ' &&
		    l->s[0] != '\t')
			break; /* the top of the traceback, or before it */
		yes = kb_dn_words_in(
		    l, kb_unix_socket_words, kb_unix_socket_word_count);
	}
	command_words(p, &w);
	for (size_t k = 0; !yes && k < w.n; k++) {
		struct line l = {w.v[k], strlen(w.v[k])};

		yes = kb_dn_words_in(
		    &l, kb_unix_socket_words, kb_unix_socket_word_count);
	}
	kb_strv_free(&w);
	return yes;
}

/* A network denial that names a host kinbox's proxy can reach: the
 * narrowest grant that helps is --allow-host HOST[:PORT], not the whole
 * network (a tool that ignores HTTP(S)_PROXY still needs --net: the line
 * says both). Not under the landlock backend, which has no proxy, nor
 * Seatbelt's, which refuses --allow-host at run time. */
static void
narrow_host(struct kb_denial *d, const struct kb_policy *p)
{
	char name[KB_HOST_NAME_MAX + 1];
	unsigned port;
	const char *why;

	struct kb_strv w = {0};

	if (d->host[0] == '\0' || p->backend == KB_BACKEND_LANDLOCK ||
	    p->backend == KB_BACKEND_SEATBELT ||
	    kb_host_entry_parse(d->host, name, sizeof(name), &port, &why) != 0)
		return;
	/* no port named: the command's own http://NAME[:PORT] URL says
	 * which (the proxy's default is 443) */
	command_words(p, &w);
	for (size_t k = 0; k < w.n && strchr(d->host, ':') == NULL &&
			   d->suggest_host[0] == '\0';
	     k++) {
		const char *u = strstr(w.v[k], "http://");
		size_t nl = strlen(name);
		unsigned long up = 80;

		if (u == NULL || strncasecmp(u + 7, name, nl) != 0)
			continue;
		if (u[7 + nl] == ':' && isdigit((unsigned char)u[8 + nl]))
			up = strtoul(u + 8 + nl, NULL, 10);
		else if (u[7 + nl] != '\0' && u[7 + nl] != '/')
			continue;
		if (up == 0 || up > 65535)
			break;
		snprintf(d->suggest_host, sizeof(d->suggest_host), "%s:%lu",
		    name, up);
	}
	kb_strv_free(&w);
	if (d->suggest_host[0] == '\0' && strchr(d->host, ':') != NULL)
		snprintf(d->suggest_host, sizeof(d->suggest_host), "%s:%u",
		    name, port);
	else if (d->suggest_host[0] == '\0')
		snprintf(d->suggest_host, sizeof(d->suggest_host), "%s", name);
	d->suggest_net = false;
}

/* A network denial on line i; an SSH connection needs the agent and
 * known_hosts too (~/.ssh is hidden without --ssh-agent): --net alone
 * would only get as far as "Host key verification failed". The landlock
 * backend refuses --ssh-agent (every unix socket), so it is not
 * suggested there. */
static void
net_denial(const struct line *lines, size_t nlines, size_t i,
    const char *reason, const struct kb_policy *p, struct kb_denial *d)
{
	d->cls = KB_CLASS_NETWORK;
	d->suggest_net = true;
	set_evidence(d, &lines[i], reason);
	kb_dn_find_host(lines, nlines, i, d);
	if (!p->ssh_agent &&
	    ((lines[i].n >= 5 && memcmp(lines[i].s, "ssh: ", 5) == 0) ||
		memmem(lines[i].s, lines[i].n, "ssh://", 6) != NULL)) {
		d->cls = KB_CLASS_SSH;
		d->suggest_ssh_agent = p->backend != KB_BACKEND_LANDLOCK;
		d->host[0] = '\0';
		return;
	}
	narrow_host(d, p);
}

/*
 * What only the landlock backend refuses, said as errors of system calls
 * rather than of paths: a socket call's EACCES (the network when it is
 * off, Landlock's TCP rules and seccomp's refused families; a unix socket
 * whatever the network, which no grant of this backend allows) and SysV
 * IPC or POSIX message queues (EPERM). Judged before the write phrases:
 * "could not create socket: Permission denied" is no refused write.
 */
static bool
landlock_refusal(const struct line *lines, size_t nlines, size_t i,
    const struct kb_policy *p, struct kb_denial *d)
{
	const struct kb_phrase *ph;
	char others[8][PATH_MAX];
	bool call, named = false;

	if ((ph = match(&lines[i], kb_landlock_ipc_phrases,
		 kb_landlock_ipc_count, NULL)) != NULL) {
		d->cls = KB_CLASS_OTHER;
		d->suggest_unconfined = true;
		set_evidence(d, &lines[i], ph->reason);
		return true;
	}
	if ((ph = match(&lines[i], kb_perm_phrases, kb_perm_count, NULL)) ==
		NULL ||
	    ph->check != KB_CHECK_EACCES)
		return false;
	call = kb_dn_words_in(
	    &lines[i], kb_socket_call_words, kb_socket_call_word_count);
	/* the lines just above it, when it names no path of its own (the
	 * last line of a traceback: "PermissionError: [Errno 13] Permission
	 * denied" under "sock.connect(sa)") */
	for (size_t k = 1;
	     !call && k <= LOOKBACK && k <= i &&
	     kb_dn_all_paths(&lines[i], others, nitems(others)) == 0;
	     k++)
		call = kb_dn_words_in(&lines[i - k], kb_socket_call_words,
		    kb_socket_call_word_count);
	/* a URL it failed to open, on a line that names no file */
	if (!call &&
	    kb_dn_words_in(&lines[i], kb_url_schemes, kb_url_scheme_count)) {
		bool file = false;

		for (size_t k = 0, n = kb_dn_all_paths(
				       &lines[i], others, nitems(others));
		     k < n && !file; k++)
			file = others[k][0] == '/' && others[k][1] != '\0';
		if (file)
			return false;
		call = true;
	}
	if (!call)
		return false;
	/* an absolute path named on the socket call's own line is the
	 * socket's */
	if (kb_dn_words_in(
		&lines[i], kb_socket_call_words, kb_socket_call_word_count))
		for (size_t k = 0, n = kb_dn_all_paths(
				       &lines[i], others, nitems(others));
		     k < n && !named; k++)
			named = others[k][0] == '/' && others[k][1] != '\0';
	if (named || unix_socket(lines, i, p)) {
		d->cls = KB_CLASS_OTHER;
		d->suggest_unconfined = true;
		set_evidence(
		    d, &lines[i], "unix socket refused (landlock backend)");
		return true;
	}
	if (p->net)
		return false; /* TCP is the command's: its own EACCES (a port
				 below 1024) */
	net_denial(lines, nlines, i, "no network (landlock backend)", p, d);
	return true;
}

/* The denial a sandbox log line names, if it is one kinbox can judge. */
static bool
judge_sandbox_log(const struct line *lines, size_t nlines, size_t i,
    const char *base, const struct kb_policy *p, const struct kb_oracle *o,
    struct kb_denial *d)
{
	char op[64], arg[PATH_MAX];

	if (!kb_dn_sandbox_log_line(
		&lines[i], op, sizeof(op), arg, sizeof(arg)))
		return false;
	if (strncmp(op, "file-write", 10) == 0 && arg[0] == '/') {
		/* refused by the profile: judged as Seatbelt's EPERM is */
		if (!judge_path(arg, lines, nlines, i, REFUSED_PERM, true, base,
			p, o, d))
			return false;
		set_evidence(d, &lines[i], "refused by the Seatbelt profile");
		return true;
	}
	if (strncmp(op, "network", 7) == 0 && !p->net) {
		net_denial(
		    lines, nlines, i, "no network (Seatbelt profile)", p, d);
		return true;
	}
	if (strncmp(op, "file-read", 9) == 0 && arg[0] == '/' &&
	    (masked(p, arg) || credential(p, arg))) {
		d->cls = KB_CLASS_OTHER;
		d->suggest_unconfined = true;
		snprintf(d->path, sizeof(d->path), "%s", arg);
		snprintf(d->guard, sizeof(d->guard), "%s",
		    credential(p, arg) ? "a credential store"
				       : "a hidden host path");
		set_evidence(d, &lines[i], "hidden by the Seatbelt profile");
		return true;
	}
	/* another operation (a mach service, a sysctl write): the profile
	 * refused it; no grant of kinbox's names it */
	d->cls = KB_CLASS_OTHER;
	d->suggest_unconfined = true;
	set_evidence(d, &lines[i], "refused by the Seatbelt profile");
	return true;
}

/* The denial on line i, if any, into d (zeroed first). */
static bool
judge_line(const struct line *lines, size_t nlines, size_t i, const char *base,
    const struct kb_policy *p, const struct kb_oracle *o, struct kb_denial *d)
{
	const struct kb_phrase *ph;
	size_t at = 0;
	bool landlock = p->backend == KB_BACKEND_LANDLOCK;

	memset(d, 0, sizeof(*d));
	for (size_t b = 0; b < kb_benign_count; b++)
		if (memmem(lines[i].s, lines[i].n, kb_benign_phrases[b],
			strlen(kb_benign_phrases[b])) != NULL)
			return false;
	if (!p->ssh_agent && (ph = match(&lines[i], kb_ssh_phrases,
				  kb_ssh_count, NULL)) != NULL) {
		d->cls = KB_CLASS_SSH;
		/* the landlock backend refuses --ssh-agent (unix sockets) */
		d->suggest_ssh_agent = d->suggest_net = !landlock;
		set_evidence(d, &lines[i], ph->reason);
		return true;
	}
	if (landlock && landlock_refusal(lines, nlines, i, p, d))
		return true;
	if (judge_sandbox_log(lines, nlines, i, base, p, o, d))
		return true;
	memset(d, 0, sizeof(*d));
	if ((ph = match(&lines[i], kb_rofs_phrases, kb_rofs_count, &at)) !=
	    NULL) {
		if (judge_write(lines, nlines, i, at, REFUSED_ROFS, ph, base, p,
			o, d)) {
			set_evidence(d, &lines[i], ph->reason);
			return true;
		}
	} else if ((ph = match(&lines[i], kb_perm_phrases, kb_perm_count,
			&at)) != NULL) {
		if (judge_write(lines, nlines, i, at, REFUSED_PERM, ph, base, p,
			o, d)) {
			set_evidence(d, &lines[i], ph->reason);
			return true;
		}
	} else if ((ph = match(&lines[i], kb_unsaid_phrases, kb_unsaid_count,
			&at)) != NULL) {
		if (judge_write(lines, nlines, i, at, REFUSED_UNSAID, ph, base,
			p, o, d)) {
			set_evidence(d, &lines[i], ph->reason);
			return true;
		}
	} else if ((ph = match(&lines[i], kb_busy_phrases, kb_busy_count,
			&at)) != NULL) {
		if (judge_write(lines, nlines, i, at, REFUSED_BUSY, ph, base, p,
			o, d)) {
			set_evidence(d, &lines[i], ph->reason);
			return true;
		}
	}
	if ((!p->net || landlock) &&
	    (ph = match_ok(&lines[i], kb_net_phrases, kb_net_count, &at, base,
		 p, o)) != NULL) {
		/* curl --unix-socket says "localhost port 80": under the
		 * landlock backend the unix socket is what was refused, with
		 * or without --net */
		if (landlock && unix_socket(lines, i, p)) {
			d->cls = KB_CLASS_OTHER;
			d->suggest_unconfined = true;
			set_evidence(d, &lines[i],
			    "unix socket refused (landlock backend)");
			return true;
		}
		if (!p->net) {
			net_denial(lines, nlines, i, ph->reason, p, d);
			return true;
		}
	}
	if ((ph = match_ok(&lines[i], kb_other_phrases, kb_other_count, &at,
		 base, p, o)) != NULL) {
		d->cls = KB_CLASS_OTHER;
		d->suggest_unconfined = true;
		set_evidence(d, &lines[i], ph->reason);
		return true;
	}
	if ((ph = match(&lines[i], kb_fail_phrases, kb_fail_count, &at)) !=
		NULL &&
	    line_path_store(&lines[i], at, base, p, d)) {
		set_evidence(d, &lines[i], "kinbox's store is hidden");
		return true;
	}
	if ((ph = match(&lines[i], kb_fail_phrases, kb_fail_count, &at)) !=
		NULL &&
	    line_path_hidden(&lines[i], at, base, p)) {
		d->cls = KB_CLASS_OTHER;
		d->suggest_unconfined = true;
		set_evidence(d, &lines[i], "hidden by the sandbox");
		if (line_abs_path(
			&lines[i], at, base, p, d->path, sizeof(d->path)))
			snprintf(d->guard, sizeof(d->guard), "%s",
			    credential(p, d->path) ? "a credential store"
						   : "a hidden host path");
		return true;
	}
	return false;
}

/* Nothing but blanks on stderr */
static bool
blank_tail(const struct line *lines, size_t nlines)
{
	for (size_t i = 0; i < nlines; i++)
		for (size_t k = 0; k < lines[i].n; k++)
			if (!isspace((unsigned char)lines[i].s[k]))
				return false;
	return true;
}

/* A tool that said nothing (curl -s, wget -q) and whose exit status is
 * its network failure, with the network off */
static bool
net_exit_status(int status, const struct kb_policy *p, struct kb_denial *d)
{
	char ev[64];

	if (p->net || p->argv == NULL || p->argv[0] == NULL)
		return false;
	for (size_t i = 0; i < kb_net_exit_status_count; i++) {
		if (kb_net_exit_statuses[i].status != status ||
		    strcmp(basename_of(p->argv[0]),
			kb_net_exit_statuses[i].tool) != 0)
			continue;
		memset(d, 0, sizeof(*d));
		d->cls = KB_CLASS_NETWORK;
		d->suggest_net = true;
		d->from_status = true;
		snprintf(ev, sizeof(ev), "(nothing on stderr; exit status %d)",
		    status);
		snprintf(d->evidence, sizeof(d->evidence), "%s", ev);
		snprintf(d->reason, sizeof(d->reason), "%s",
		    kb_net_exit_statuses[i].reason);
		return true;
	}
	return false;
}

size_t
kb_classify_all(int status, const char *tail, size_t len,
    const struct kb_policy *p, const struct kb_oracle *o, struct kb_denial *out,
    size_t max)
{
	struct line *lines = NULL;
	size_t nlines = 0, cap = 0, nd = 0;
	char base[PATH_MAX], argbase[PATH_MAX];
	struct kb_denial *d = xcalloc(1, sizeof(*d));

	if (max > 0)
		memset(out, 0, sizeof(*out));
	if (status == 0 || max == 0) {
		free(d);
		return 0;
	}
	if (tail == NULL)
		len = 0;
	for (size_t s = 0; s < len;) {
		size_t e = s;

		while (e < len && tail[e] != '\n' && tail[e] != '\r' &&
		       tail[e] != '\0')
			e++;
		if (e > s) {
			if (nlines == cap) {
				cap = cap ? cap * 2 : 256;
				lines =
				    xreallocarray(lines, cap, sizeof(*lines));
			}
			lines[nlines].s = tail + s;
			lines[nlines].n = e - s;
			nlines++;
		}
		s = e + 1;
	}
	argv_base(p, argbase, sizeof(argbase));
	snprintf(base, sizeof(base), "%s", argbase);
	for (size_t i = 0; i < nlines && nd < max; i++) {
		bool dup = false;

		if (entering(&lines[i], base, sizeof(base)))
			continue;
		if (memmem(lines[i].s, lines[i].n, "Leaving directory ", 18))
			snprintf(base, sizeof(base), "%s", argbase);
		if (!judge_line(lines, nlines, i, base, p, o, d))
			continue;
		for (size_t k = 0; k < nd && !dup; k++)
			dup = same_denial(&out[k], d);
		if (!dup)
			out[nd++] = *d;
	}
	if (nd == 0 && argv_names_hidden(lines, nlines, p, d))
		out[nd++] = *d;
	if (nd == 0 && blank_tail(lines, nlines) &&
	    net_exit_status(status, p, d))
		out[nd++] = *d;
	free(lines);
	free(d);
	/* a network the project file turned off: --net would be refused
	 * (a flag does not lift a project's tightening), so suggesting it
	 * would send the agent round in a loop */
	for (size_t k = 0; k < nd; k++)
		if ((out[k].cls == KB_CLASS_NETWORK ||
			out[k].cls == KB_CLASS_SSH) &&
		    !p->net && p->origin[KB_OPT_NET] == KB_ORIGIN_PROJECT) {
			out[k].suggest_net = out[k].suggest_ssh_agent = false;
			snprintf(out[k].net_blocked_by,
			    sizeof(out[k].net_blocked_by), "%s",
			    p->where[KB_OPT_NET] != NULL ? p->where[KB_OPT_NET]
							 : ".kinbox.ini");
		}
	/* a read-only run: a write no --write or grant can lift (kinbox
	 * refuses --write with --read-only, and drops the granted roots),
	 * so none is suggested; the report names the mode instead. A
	 * cache keeps its own advice (its setting is what helps), and so
	 * does the landlock backend's /tmp (the run's TMPDIR is). */
	for (size_t k = 0; k < nd && p->read_only; k++) {
		struct kb_denial *w = &out[k];

		if (w->cls != KB_CLASS_WRITE || w->cache[0] != '\0' ||
		    (p->backend == KB_BACKEND_LANDLOCK &&
			kb_path_within(w->path, "/tmp")))
			continue;
		snprintf(w->read_only_by, sizeof(w->read_only_by), "%s",
		    p->where[KB_OPT_READ_ONLY] != NULL
			? p->where[KB_OPT_READ_ONLY]
			: "--read-only");
		w->ro_root_fits = w->suggest_write[0] != '\0';
		w->suggest_write[0] = '\0';
		w->suggest_create = w->suggest_unconfined = false;
	}
	for (size_t k = 0; k < nd; k++)
		out[k].landlock = p->backend == KB_BACKEND_LANDLOCK;
	return nd;
}

bool
kb_classify(int status, const char *tail, size_t len, const struct kb_policy *p,
    const struct kb_oracle *o, struct kb_denial *d)
{
	return kb_classify_all(status, tail, len, p, o, d, 1) == 1;
}
