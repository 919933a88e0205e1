/*
 * tests/unit/status-machine.h — the fake machines of test-status.c: a
 * struct machine is fake /proc, /sys and / trees below a temp dir (base,
 * set by main) with hand-set probes, an ordinary machine to start from
 * (m_new) and the changes the tests make to it; bwrap's real messages and
 * --help texts; and what the tests ask of a collected status (fix_has,
 * text_has).
 *
 * Static functions, like config-fixture.h: one test program includes it.
 */
#ifndef KB_STATUS_MACHINE_H
#define KB_STATUS_MACHINE_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../host/status.h"
#include "../../lib/util.h"

/* short, so that every path below it fits */
static char base[256];

/* the messages bwrap prints where the kernel refuses it namespaces */
#define MSG_UIDMAP "setting up uid map: Permission denied"
#define MSG_NOPERM                                                             \
	"No permissions to create new namespace, likely because the "          \
	"kernel does not allow non-privileged user namespaces. See "           \
	"<https://deb.li/bubblewrap> or "                                      \
	"<file:///usr/share/doc/bubblewrap/README.Debian.gz>."
#define MSG_ENOSPC "Creating new namespace failed: No space left on device"

#define HELP_08                                                                \
	"usage: bwrap [OPTIONS...] [--] COMMAND [ARGS...]\n"                   \
	"    --unshare-user               Create new user namespace\n"         \
	"    --disable-userns             Disable further use of user "        \
	"namespaces inside sandbox\n"                                          \
	"    --bind-fd FD DEST            Bind open directory or path "        \
	"fd on DEST\n"
#define HELP_011                                                               \
	HELP_08 "    --overlay-src SRC            Read files "                 \
		"from SRC in the following overlay\n"                          \
		"    --tmp-overlay DEST           Mount "                      \
		"overlayfs on DEST\n"
#define HELP_07                                                                \
	"usage: bwrap [OPTIONS...] [--] COMMAND [ARGS...]\n"                   \
	"    --unshare-user               Create new user namespace\n"

struct machine {
	char dir[PATH_MAX], proc[PATH_MAX + 8], sys[PATH_MAX + 8],
	    fs[PATH_MAX + 8];
	struct kb_status_roots r;
	struct kb_status_probes p;
	struct kb_status st;
	bool collected;
};

/* writes dir/rel (its directories made first) */
static void
put(struct machine *m, const char *rel, const char *content, size_t len)
{
	_cleanup_free_ char *path = xasprintf("%s/%s", m->dir, rel);
	int fd;

	for (char *s = path + strlen(m->dir) + 1; *s != '\0'; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(path, 0755);
			*s = '/';
		}
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
	if (fd == -1 || write(fd, content, len) != (ssize_t)len)
		printf("# cannot write %s: %s\n", path, strerror(errno));
	if (fd != -1)
		close(fd);
}

static void
puts_at(struct machine *m, const char *rel, const char *content)
{
	put(m, rel, content, strlen(content));
}

static void
rm_at(struct machine *m, const char *rel)
{
	_cleanup_free_ char *path = xasprintf("%s/%s", m->dir, rel);

	if (unlink(path) == -1)
		printf("# cannot remove %s: %s\n", path, strerror(errno));
}

static void
set(char **field, const char *v)
{
	free(*field);
	*field = v != NULL ? xstrdup(v) : NULL;
}

/*
 * An ordinary machine: Ubuntu's files without its restriction, a user,
 * bwrap 0.8.0 that works, Landlock ABI 7, seccomp with user notification,
 * Yama 1, no container.
 */
static void
m_new(struct machine *m)
{
	static int n;

	memset(m, 0, sizeof(*m));
	snprintf(m->dir, sizeof(m->dir), "%s/m%d", base, ++n);
	mkdir(m->dir, 0755);
	snprintf(m->proc, sizeof(m->proc), "%s/proc", m->dir);
	snprintf(m->sys, sizeof(m->sys), "%s/sys", m->dir);
	snprintf(m->fs, sizeof(m->fs), "%s/fs", m->dir);
	m->r.proc = m->proc;
	m->r.sys = m->sys;
	m->r.fs = m->fs;
	puts_at(m, "proc/sys/user/max_user_namespaces", "15000\n");
	puts_at(m, "proc/sys/kernel/osrelease", "6.8.0-45-generic\n");
	puts_at(m, "proc/sys/kernel/seccomp/actions_avail",
	    "kill_process kill_thread trap errno user_notif trace log "
	    "allow\n");
	puts_at(m, "proc/sys/kernel/yama/ptrace_scope", "1\n");
	puts_at(m, "proc/self/status",
	    "Name:\tkinbox\nSeccomp:\t0\n"
	    "Seccomp_filters:\t0\n");
	puts_at(m, "proc/1/cgroup", "0::/init.scope\n");
	puts_at(m, "proc/self/mountinfo",
	    "22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n");
	puts_at(m, "sys/kernel/security/lsm",
	    "capability,lockdown,landlock,yama,apparmor\n");
	puts_at(m, "fs/etc/os-release",
	    "PRETTY_NAME=\"Ubuntu 24.04 LTS\"\nID=ubuntu\nID_LIKE=debian\n");
	m->p.bwrap = xstrdup("/usr/bin/bwrap");
	m->p.bwrap_version = xstrdup("bubblewrap 0.8.0");
	m->p.bwrap_help = xstrdup(HELP_08);
	m->p.bwrap_probe = KB_PROBE_WORKS;
	m->p.landlock_abi = 7;
	m->p.user_notif = KB_TRI_YES;
}

/* bwrap's probe fails with `msg` */
static void
m_fails(struct machine *m, const char *msg)
{
	m->p.bwrap_probe = KB_PROBE_FAILS;
	set(&m->p.bwrap_error, msg);
}

static void
m_no_bwrap(struct machine *m)
{
	set(&m->p.bwrap, NULL);
	set(&m->p.bwrap_version, NULL);
	set(&m->p.bwrap_help, NULL);
	m->p.bwrap_probe = KB_PROBE_NOT_RUN;
}

static struct kb_status *
m_run(struct machine *m)
{
	if (m->collected)
		kb_status_free(&m->st);
	kb_status_collect(&m->r, &m->p, &m->st);
	m->collected = true;
	return &m->st;
}

static void
m_done(struct machine *m)
{
	if (m->collected)
		kb_status_free(&m->st);
	kb_status_probes_free(&m->p);
}

/* does one of the fixes contain `s`? */
static bool
fix_has(const struct kb_strv *fix, const char *s)
{
	for (size_t i = 0; i < fix->n; i++)
		if (strstr(fix->v[i], s) != NULL)
			return true;
	return false;
}

/* does the text report hold the line `label` + value (as printed)? */
static bool
text_has(const struct kb_status *st, const char *s)
{
	_cleanup_free_ char *t = kb_status_text(st);
	bool yes = strstr(t, s) != NULL;

	if (!yes)
		printf("# not in the text: '%s'\n%s", s, t);
	return yes;
}

#endif
