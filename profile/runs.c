/*
 * profile/runs.c — the registry of running sandboxes that use a grant (see
 * runs.h): kinbox's side (open the directory, write and remove its entry,
 * read its grants' stores again) and kinpolicy's (list the entries and
 * prove each one is a live kinbox run before anything is signalled).
 *
 * A registry entry is data, not authority: it only decides which processes
 * kinpolicy nudges. The nudged kinbox judges its own grants against the
 * stores. So a forged entry can at worst get a kinbox run to re-read its
 * stores; it can never get another process signalled, because kinpolicy
 * signals only a process that holds the entry open and started when the
 * entry says, checked on a pidfd.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "config.h"
#include "runs.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

#define ENTRY_MAX (16 * 1024) /* an entry: a few short lines */

enum registry {
	REG_RUNTIME,
	REG_STATE
};

int
kb_proc_start(pid_t pid, unsigned long long *start)
{
	char path[64], buf[1024], *p, *end;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			errno = ESRCH;
		return -1;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0) {
		errno = ESRCH; /* it went away between the open and the read */
		return -1;
	}
	buf[n] = '\0';
	/* comm (field 2) may hold spaces and parens: field 3 follows the
	 * last ')' and a space; the start time is field 22 */
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ') {
		errno = EINVAL;
		return -1;
	}
	p += 2;
	for (int field = 3; field < 22; field++) {
		if ((p = strchr(p, ' ')) == NULL) {
			errno = EINVAL;
			return -1;
		}
		p++;
	}
	errno = 0;
	*start = strtoull(p, &end, 10);
	if (end == p || errno != 0 || (*end != ' ' && *end != '\n')) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* --- the directory ------------------------------------------------------- */

/*
 * Walks `below` from `fd` (consumed), creating each component when
 * `create` (0700 from `first_ours` on, 0755 before: .local and state are
 * the user's ordinary directories), never through a symlink. kinbox/ and
 * runs/ must be the caller's, and are made 0700. Returns the last
 * directory's descriptor, -2 when one is missing and `create` is false,
 * -1 with `e`.
 */
static int
walk(int fd, const char *base, const char *const *below, size_t n,
    size_t first_ours, bool create, struct kb_err *e)
{
	for (size_t i = 0; i < n; i++) {
		bool ours = i >= first_ours;
		struct stat st;
		int next, errsv;

		if (create && mkdirat(fd, below[i], ours ? 0700 : 0755) == -1 &&
		    errno != EEXIST) {
			errsv = errno;
			close(fd);
			return kb_err_set(e, "%s/.../%s: %s", base, below[i],
			    strerror(errsv));
		}
		next = openat(fd, below[i],
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		errsv = errno;
		close(fd);
		if (next == -1 && errsv == ENOENT && !create)
			return -2;
		if (next == -1)
			return kb_err_set(e,
			    "%s/.../%s: %s (a symlink is refused here)", base,
			    below[i], strerror(errsv));
		if (ours && (fstat(next, &st) == -1 || st.st_uid != geteuid() ||
				((st.st_mode & 077) != 0 &&
				    fchmod(next, 0700) == -1))) {
			close(next);
			return kb_err_set(e,
			    "%s/.../%s: not a private directory of yours; "
			    "remove it (kinbox makes it again)",
			    base, below[i]);
		}
		fd = next;
	}
	return fd;
}

/*
 * XDG_RUNTIME_DIR as the registry's base: an existing directory of the
 * caller's, mode 0700 (what pam_systemd makes). Anything else is refused
 * rather than replaced by another place: kinpolicy looks where the
 * variable says.
 */
static int
runtime_base(const char *x, char **real, struct kb_err *e)
{
	struct stat st;
	int fd;

	if ((*real = realpath(x, NULL)) == NULL)
		return kb_err_set(e,
		    "XDG_RUNTIME_DIR=%s: %s; a run that uses a grant is "
		    "registered there, so that kinpolicy revoke can stop it: "
		    "create it as a 0700 directory of yours, or unset "
		    "XDG_RUNTIME_DIR",
		    x, strerror(errno));
	fd = open(*real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1 || fstat(fd, &st) == -1 || st.st_uid != geteuid() ||
	    (st.st_mode & 077) != 0) {
		int errsv = errno;

		if (fd == -1)
			return kb_err_set(
			    e, "XDG_RUNTIME_DIR=%s: %s", x, strerror(errsv));
		close(fd);
		return kb_err_set(e,
		    "XDG_RUNTIME_DIR=%s is not a private directory of yours "
		    "(owner uid %u, mode %03o); a run that uses a grant is "
		    "registered there, so that kinpolicy revoke can stop it: "
		    "make it a 0700 directory you own, or unset "
		    "XDG_RUNTIME_DIR",
		    x, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
	}
	return fd;
}

/* Opens registry `which`: its descriptor (its path in *path, a new
 * string), -2 when it is not there (or has no base), -1 with `e`. */
static int
state_dir(enum registry which, const char *home, const char *leaf, bool create,
    char **path, struct kb_err *e)
{
	const char *below[4];
	size_t n = 0, first_ours = 0;
	_cleanup_free_ char *base = NULL;
	const char *v;
	int fd = -1;

	*path = NULL;
	if (which == REG_RUNTIME) {
		v = getenv("XDG_RUNTIME_DIR");
		if (v == NULL || v[0] != '/')
			return -2;
		if ((fd = runtime_base(v, &base, e)) == -1)
			return -1;
	} else {
		v = getenv("XDG_STATE_HOME");
		if (v != NULL && v[0] == '/') {
			if (create && mkdir(v, 0700) == -1 && errno != EEXIST)
				return kb_err_set(
				    e, "%s: %s", v, strerror(errno));
			base = realpath(v, NULL);
		} else if (home != NULL) {
			base = realpath(home, NULL);
			below[n++] = ".local";
			below[n++] = "state";
			first_ours = 2;
		}
		if (base == NULL)
			return create ? kb_err_set(e,
					    "no state directory for the run "
					    "registry (no XDG_RUNTIME_DIR, "
					    "XDG_STATE_HOME or home)")
				      : -2;
		fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd == -1)
			return create ? kb_err_set(
					    e, "%s: %s", base, strerror(errno))
				      : -2;
	}
	below[n++] = "kinbox";
	below[n++] = leaf;
	fd = walk(fd, base, below, n, first_ours, create, e);
	if (fd >= 0)
		*path = n == 4
			    ? xasprintf("%s/.local/state/kinbox/%s", base, leaf)
			    : xasprintf("%s/kinbox/%s", base, leaf);
	return fd;
}

static int
registry_dir(enum registry which, const char *home, bool create, char **path,
    struct kb_err *e)
{
	return state_dir(which, home, "runs", create, path, e);
}

int
kb_state_subdir(const char *home, const char *leaf, bool create, char **path,
    struct kb_err *e)
{
	return state_dir(REG_STATE, home, leaf, create, path, e);
}

int
kb_runs_open(struct kb_registration *r, const char *home, struct kb_err *e)
{
	const char *x = getenv("XDG_RUNTIME_DIR");
	int fd;

	r->dirfd = r->fd = -1;
	r->pid = getpid();
	r->name[0] = '\0';
	r->dir = NULL;
	fd = registry_dir(x != NULL && x[0] == '/' ? REG_RUNTIME : REG_STATE,
	    home, true, &r->dir, e);
	if (fd == -2)
		return kb_err_set(e, "no place for the run registry");
	if (fd == -1)
		return -1;
	r->dirfd = fd;
	return 0;
}

/* --- kinbox's entry ------------------------------------------------------ */

static int
write_all(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, s, n);

		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * The entry under `name`, complete before the name exists: an O_TMPFILE
 * linked into place (linkat fails on an existing name), else a dot-name
 * renamed without replacing anything. The descriptor stays open: holding
 * it is what proves the entry is a live run's. -1 with errno.
 */
static int
write_entry(int dirfd, const char *name, const char *text, int *out)
{
	size_t len = strlen(text);
	char link[64];
	int fd, errsv;

	fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd != -1) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		if (write_all(fd, text, len) == -1 ||
		    linkat(AT_FDCWD, link, dirfd, name, AT_SYMLINK_FOLLOW) ==
			-1) {
			errsv = errno;
			close(fd);
			errno = errsv;
			return -1;
		}
		*out = fd;
		return 0;
	}
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return -1;
	{
		_cleanup_free_ char *tmp = xasprintf(".%s", name);

		fd = openat(dirfd, tmp,
		    O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd == -1)
			return -1;
		if (write_all(fd, text, len) == -1 ||
		    syscall(SYS_renameat2, dirfd, tmp, dirfd, name,
			RENAME_NOREPLACE) == -1) {
			errsv = errno;
			unlinkat(dirfd, tmp, 0);
			close(fd);
			errno = errsv;
			return -1;
		}
	}
	*out = fd;
	return 0;
}

int
kb_runs_register(
    struct kb_registration *r, const struct kb_policy *p, struct kb_err *e)
{
	unsigned long long start;
	struct kb_buf b = {0};
	_cleanup_free_ char *ws = kb_escape(p->workspace ? p->workspace : "");
	_cleanup_free_ char *a0 =
	    kb_escape(p->argv != NULL && p->argv[0] != NULL ? p->argv[0] : "");
	int rc;

	if (r->dirfd == -1)
		return kb_err_set(e, "the run registry is not open");
	if (kb_proc_start(r->pid, &start) == -1)
		return kb_err_set(e,
		    "/proc/self/stat: %s (the run registry needs /proc)",
		    strerror(errno));
	snprintf(r->name, sizeof(r->name), "%d-%llu.run", (int)r->pid, start);
	kb_buf_printf(
	    &b, "kinbox-run 1\npid %d\nstart %llu\n", (int)r->pid, start);
	kb_buf_printf(&b, "workspace %s\nargv0 %s\n", ws, a0);
	for (size_t i = 0; i < p->ngrants; i++)
		kb_buf_printf(&b, "grant %s\n", p->grants[i].id);
	rc = write_entry(r->dirfd, r->name, b.s, &r->fd);
	/* our pid and start time: an entry by that name is from a boot
	 * before this one, and stale */
	if (rc == -1 && errno == EEXIST && unlinkat(r->dirfd, r->name, 0) == 0)
		rc = write_entry(r->dirfd, r->name, b.s, &r->fd);
	kb_buf_free(&b);
	if (rc == -1) {
		int errsv = errno;

		r->name[0] = '\0';
		return kb_err_set(e,
		    "%s: cannot register the run (%s); a run that uses a "
		    "grant must be reachable by kinpolicy revoke",
		    r->dir, strerror(errsv));
	}
	return 0;
}

void
kb_runs_unregister(struct kb_registration *r)
{
	struct stat a, b;

	/* a forked child (the overlays' mounter) leaves it to kinbox */
	if (r->pid != getpid())
		return;
	if (r->fd != -1 && r->dirfd != -1 && r->name[0] != '\0' &&
	    fstat(r->fd, &a) == 0 &&
	    fstatat(r->dirfd, r->name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		unlinkat(r->dirfd, r->name, 0);
	if (r->fd != -1)
		close(r->fd);
	if (r->dirfd != -1)
		close(r->dirfd);
	r->fd = r->dirfd = -1;
	r->name[0] = '\0';
	free(r->dir);
	r->dir = NULL;
}

/* --- is a grant still there? ------------------------------------------- */

struct find {
	const struct kb_grant_used *g;
	bool found;
};

static void
find_block(const struct kb_grant_block *b, void *ctx)
{
	struct find *f = ctx;

	if (strcmp(b->section, f->g->section) == 0 &&
	    strcmp(b->body, f->g->body) == 0)
		f->found = true;
}

/* "the workspace grant write_paths = /x, network = on (from sbx_..., in
 * FILE)": the capabilities of the body, its denial, its store */
static void
describe(const struct kb_grant_used *g, struct kb_buf *out)
{
	_cleanup_free_ char *body = xstrdup(g->body);
	_cleanup_free_ char *from = NULL;
	struct kb_buf caps = {0};
	char *line, *save = NULL;

	for (line = strtok_r(body, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t k = strcspn(line, " ");

		if (strncmp(line, "from = ", 7) == 0) {
			free(from);
			from = xstrdup(line + 7);
			continue;
		}
		if ((k == 4 && strncmp(line, "path", 4) == 0) ||
		    (k == 7 && strncmp(line, "granted", 7) == 0))
			continue;
		kb_buf_printf(&caps, "%s%s", caps.len ? ", " : "", line);
	}
	kb_buf_printf(out, "the %s grant %s (from %s, in %s)",
	    g->origin == KB_ORIGIN_SESSION ? "session" : "workspace",
	    caps.s != NULL ? caps.s : "(no capability)",
	    from != NULL ? from : "-", g->file);
	kb_buf_free(&caps);
}

size_t
kb_runs_revoked(const struct kb_policy *p, char *why, size_t len)
{
	size_t gone = 0, first = 0;

	for (size_t i = 0; i < p->ngrants; i++) {
		struct find f = {&p->grants[i], false};
		struct kb_err e;

		kb_grant_blocks(p->grants[i].file, find_block, &f, &e);
		if (!f.found && gone++ == 0)
			first = i;
	}
	if (gone > 0 && why != NULL) {
		struct kb_buf b = {0};

		describe(&p->grants[first], &b);
		if (gone == 1)
			kb_buf_puts(&b, " was revoked");
		else
			kb_buf_printf(&b,
			    " and %zu more of this run's grants were revoked",
			    gone - 1);
		snprintf(why, len, "%s", b.s);
		kb_buf_free(&b);
	}
	return gone;
}

/* --- kinpolicy's side ---------------------------------------------------- */

/* "<pid>-<start>.run": the digits and nothing else */
static bool
parse_name(const char *name, pid_t *pid, unsigned long long *start)
{
	const char *p = name;
	char *end;
	long v;

	if (*p < '1' || *p > '9')
		return false;
	errno = 0;
	v = strtol(p, &end, 10);
	if (errno != 0 || *end != '-' || v <= 0 || v > INT_MAX)
		return false;
	*pid = (pid_t)v;
	p = end + 1;
	if (*p < '0' || *p > '9')
		return false;
	*start = strtoull(p, &end, 10);
	return errno == 0 && strcmp(end, ".run") == 0;
}

/* A value as kinbox wrote it (kb_escape'd) is kept; anything else that
 * kb_escape would change is escaped now: the entry is the user's file,
 * but its text is printed for people. */
static char *
shown(const char *v)
{
	char *esc = kb_escape(v);
	size_t bs = 0;

	for (const char *s = v; *s; s++)
		bs += *s == '\\';
	if (strlen(esc) == strlen(v) + bs) {
		free(esc);
		return xstrdup(v);
	}
	return esc;
}

static bool
is_id(const char *s)
{
	if (strlen(s) != KB_GRANT_ID_LEN)
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return true;
}

/* Parses an entry into `r` (which the name's pid and start fill): true
 * when it is one and agrees with its name. */
static bool
parse_entry(char *text, struct kb_run_entry *r)
{
	char *line, *save = NULL;
	bool head = false, pid = false, start = false;

	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char *v = strchr(line, ' ');

		if (v == NULL)
			return false;
		*v++ = '\0';
		if (!head) {
			if (strcmp(line, "kinbox-run") != 0 ||
			    strcmp(v, "1") != 0)
				return false;
			head = true;
		} else if (strcmp(line, "pid") == 0) {
			pid = strtol(v, NULL, 10) == (long)r->pid;
		} else if (strcmp(line, "start") == 0) {
			start = strtoull(v, NULL, 10) == r->start;
		} else if (strcmp(line, "workspace") == 0) {
			free(r->workspace);
			r->workspace = shown(v);
		} else if (strcmp(line, "argv0") == 0) {
			free(r->argv0);
			r->argv0 = shown(v);
		} else if (strcmp(line, "grant") == 0) {
			if (!is_id(v))
				return false;
			kb_strv_push(&r->grants, v);
		}
	}
	return head && pid && start;
}

/* Does process `pid` hold a descriptor of the file `st` names? (Its
 * /proc/PID/fd is readable to the same user.) *err: why it could not be
 * told, 0 when it could. */
static bool
holds(pid_t pid, const struct stat *st, int *err)
{
	char path[64];
	struct dirent *de;
	bool found = false;
	DIR *d;

	*err = 0;
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	if ((d = opendir(path)) == NULL) {
		*err = errno == ENOENT ? 0 : errno; /* gone: not held */
		return false;
	}
	while (!found && (de = readdir(d)) != NULL) {
		struct stat fst;

		if (de->d_name[0] == '.')
			continue;
		if (fstatat(dirfd(d), de->d_name, &fst, 0) == 0 &&
		    fst.st_dev == st->st_dev && fst.st_ino == st->st_ino)
			found = true;
	}
	closedir(d);
	return found;
}

static time_t
boot_time(void)
{
	_cleanup_free_ char *s = kb_read_small_file("/proc/stat", 1 << 20);
	char *p = s != NULL ? strstr(s, "\nbtime ") : NULL;

	return p != NULL ? (time_t)strtoll(p + 7, NULL, 10) : 0;
}

static void
entry_free(struct kb_run_entry *r)
{
	free(r->workspace);
	free(r->argv0);
	free(r->file);
	kb_strv_free(&r->grants);
	if (r->pidfd != -1)
		close(r->pidfd);
}

struct list {
	struct kb_run_entry *v;
	size_t n;
	struct kb_strv *notes;
	size_t *unverified;
	time_t btime;
	long ticks;
};

/*
 * One entry of the directory `dfd` (at `dir`): stale ones are removed,
 * live kinbox runs appended to `l`. The order of the checks matters: the
 * pidfd first, then what /proc says of the pid (start time, the entry held
 * open), then the pidfd still alive. A pid that was reused after the
 * pidfd was opened fails the last check (the pinned process is gone), so
 * every /proc fact used was true of the process the pidfd pins, and the
 * only process ever signalled is that one.
 */
static void
one_entry(int dfd, const char *dir, const char *name, struct list *l)
{
	struct kb_run_entry r = {.pidfd = -1};
	bool tmp = name[0] == '.';
	unsigned long long now;
	_cleanup_free_ char *text = NULL;
	struct stat st;
	int fd, held_err;

	if (!parse_name(tmp ? name + 1 : name, &r.pid, &r.start))
		return;
	r.pidfd = (int)syscall(SYS_pidfd_open, r.pid, 0);
	if (r.pidfd == -1) {
		if (errno == ESRCH) { /* gone: stale */
			unlinkat(dfd, name, 0);
			return;
		}
		/* no pidfd (Linux before 5.3, or a tool that does not know
		 * the call): nothing can be proved, nothing is signalled */
		kb_strv_pushf(l->notes,
		    "%s/%s: pid %d cannot be checked (pidfd_open: %s; Linux "
		    "5.3 or later is needed); not signalled",
		    dir, name, (int)r.pid, strerror(errno));
		(*l->unverified)++;
		return;
	}
	if (kb_proc_start(r.pid, &now) == -1) {
		if (errno == ESRCH)
			unlinkat(dfd, name, 0);
		goto out;
	}
	if (now != r.start) { /* the pid names another process now */
		unlinkat(dfd, name, 0);
		goto out;
	}
	if (tmp) /* still being written (no O_TMPFILE there) */
		goto out;
	r.file = xasprintf("%s/%s", dir, name);
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd == -1 || fstat(fd, &st) == -1 || st.st_uid != geteuid() ||
	    (text = kb_read_fd(fd, ENTRY_MAX, NULL)) == NULL ||
	    !parse_entry(text, &r)) {
		if (fd != -1)
			close(fd);
		kb_strv_pushf(l->notes,
		    "%s: not a run registry entry of yours; ignored", r.file);
		goto out;
	}
	close(fd);
	if (!holds(r.pid, &st, &held_err)) {
		if (held_err != 0) {
			kb_strv_pushf(l->notes,
			    "%s: pid %d cannot be checked (/proc/%d/fd: %s); "
			    "not signalled",
			    r.file, (int)r.pid, (int)r.pid, strerror(held_err));
			(*l->unverified)++;
			goto out;
		}
		kb_strv_pushf(l->notes,
		    "%s: pid %d does not hold this entry, so it is not the "
		    "kinbox run that registered it; ignored (not signalled)",
		    r.file, (int)r.pid);
		goto out;
	}
	if (syscall(SYS_pidfd_send_signal, r.pidfd, 0, NULL, 0) == -1)
		goto out; /* ended during the checks: it removes its entry */
	if (l->ticks > 0)
		r.started =
		    l->btime + (time_t)(r.start / (unsigned long)l->ticks);
	l->v = xreallocarray(l->v, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = r;
	return;
out:
	entry_free(&r);
}

size_t
kb_runs_list(const char *home, struct kb_run_entry **out, struct kb_strv *notes,
    size_t *unverified)
{
	struct list l = {
	    NULL, 0, notes, unverified, boot_time(), sysconf(_SC_CLK_TCK)};
	struct stat seen[2];
	size_t nseen = 0;

	*unverified = 0;
	for (int which = REG_RUNTIME; which <= REG_STATE; which++) {
		_cleanup_free_ char *dir = NULL;
		struct dirent *de;
		struct stat st;
		struct kb_err e;
		bool dup = false;
		DIR *d;
		int fd = registry_dir(which, home, false, &dir, &e);

		/* a registry kinbox would refuse (an unsafe XDG_RUNTIME_DIR)
		 * holds no entry of a run */
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0) {
			for (size_t i = 0; i < nseen; i++)
				dup |= seen[i].st_dev == st.st_dev &&
				       seen[i].st_ino == st.st_ino;
			seen[nseen++] = st;
		}
		if (dup || (d = fdopendir(fd)) == NULL) {
			close(fd);
			continue;
		}
		while ((de = readdir(d)) != NULL)
			one_entry(dirfd(d), dir, de->d_name, &l);
		closedir(d);
	}
	*out = l.v;
	return l.n;
}

void
kb_runs_free(struct kb_run_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		entry_free(&v[i]);
	free(v);
}

bool
kb_run_uses(const struct kb_run_entry *r, const char *id)
{
	return kb_strv_has(&r->grants, id);
}

int
kb_run_signal(const struct kb_run_entry *r, int sig)
{
	return (int)syscall(SYS_pidfd_send_signal, r->pidfd, sig, NULL, 0);
}
