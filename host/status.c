/*
 * host/status.c — kinbox --status: the doctor (status.h). The probes
 * (kb_status_probe) touch the host; kb_status_collect() reads files below
 * the roots only, and the two renderers (host/status-report.c) print what
 * it found.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../gitguard/gitguard.h"
#include "../profile/policy.h"
#include "host.h"
#include "status.h"

/* linux/seccomp.h, spelled out (the operation and the action) */
#define KB_SECCOMP_GET_ACTION_AVAIL 2
#define KB_SECCOMP_RET_USER_NOTIF   0x7fc00000U

/* --- reading below a root ------------------------------------------------- */

static char *
at_root(const char *root, const char *path)
{
	if (root == NULL || *root == '\0' || strcmp(root, "/") == 0)
		return xstrdup(path);
	return xasprintf("%s%s", root, path);
}

static char *
read_at(const char *root, const char *path, size_t max)
{
	_cleanup_free_ char *p = at_root(root, path);

	return kb_read_small_file(p, max);
}

static bool
exists_at(const char *root, const char *path)
{
	_cleanup_free_ char *p = at_root(root, path);
	struct stat st;

	return lstat(p, &st) == 0;
}

/* `s` cut at its first newline (in place); NULL stays NULL */
static char *
first_line(char *s)
{
	if (s != NULL)
		s[strcspn(s, "\n")] = '\0';
	return s;
}

/* a sysctl: its value, or -1 when absent or not a number (*present says
 * whether the file is there) */
static long
read_sysctl(const char *proc, const char *path, bool *present)
{
	_cleanup_free_ char *s = read_at(proc, path, 64);
	char *end;
	long v;

	*present = s != NULL || errno != ENOENT;
	if (s == NULL)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || v < 0)
		return -1;
	return v;
}

/* does the list `s` (words separated by any of `sep`) hold `word`? */
static bool
has_word(const char *s, const char *sep, const char *word)
{
	size_t n = strlen(word);

	while (s != NULL && *s != '\0') {
		size_t len = strcspn(s, sep);

		if (len == n && strncmp(s, word, n) == 0)
			return true;
		s += len;
		s += strspn(s, sep);
	}
	return false;
}

/* "6.18.44-x" → 6018 (major * 1000 + minor), -1 when not a version */
static long
version_code(const char *v)
{
	long major, minor = 0;
	char *end;

	if (v == NULL)
		return -1;
	major = strtol(v, &end, 10);
	if (end == v || major < 0)
		return -1;
	if (*end == '.')
		minor = strtol(end + 1, NULL, 10);
	return major * 1000 + minor;
}

/* "0.8.0" → 800 (x.y.z as x*10000 + y*100 + z), -1 when not a version */
static long
bwrap_version_code(const char *v)
{
	long x, y = 0, z = 0;
	char *end;

	if (v == NULL)
		return -1;
	x = strtol(v, &end, 10);
	if (end == v)
		return -1;
	if (*end == '.') {
		y = strtol(end + 1, &end, 10);
		if (*end == '.')
			z = strtol(end + 1, NULL, 10);
	}
	return x * 10000 + y * 100 + z;
}

/* --- the probes ----------------------------------------------------------- */

void
kb_status_roots_default(struct kb_status_roots *r)
{
	r->proc = "/proc";
	r->sys = "/sys";
	r->fs = "/";
}

/* Runs `exe arg` with an empty environment and stdin on /dev/null: what
 * it printed (stdout and stderr, at most `max` bytes) when it exited 0 and
 * printed something, else NULL. */
static char *
capture(const char *exe, const char *arg, size_t max)
{
	char *const argv[] = {(char *)exe, (char *)arg, NULL};
	char *const envp[] = {NULL};
	struct kb_buf b = {0};
	char chunk[4096];
	ssize_t n;
	int p[2], st = -1;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) == -1)
		return NULL;
	pid = fork();
	if (pid == -1) {
		close(p[0]);
		close(p[1]);
		return NULL;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (devnull == -1 || dup2(devnull, 0) == -1 ||
		    dup2(p[1], 1) == -1 || dup2(p[1], 2) == -1)
			_exit(127);
		if (chdir("/") == -1)
			_exit(127);
		execve(exe, argv, envp);
		_exit(127);
	}
	close(p[1]);
	kb_buf_add(&b, "", 0);
	/* read to the end: a child that fills the pipe must not block */
	while ((n = read(p[0], chunk, sizeof(chunk))) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (b.len + (size_t)n <= max)
			kb_buf_add(&b, chunk, (size_t)n);
	}
	close(p[0]);
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || b.len == 0) {
		kb_buf_free(&b);
		return NULL;
	}
	return b.s;
}

static enum kb_tri
probe_user_notif(void)
{
#ifdef SYS_seccomp
	unsigned int action = KB_SECCOMP_RET_USER_NOTIF;

	if (syscall(SYS_seccomp, KB_SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0)
		return KB_TRI_YES;
	if (errno == EOPNOTSUPP)
		return KB_TRI_NO;
#endif
	return KB_TRI_UNKNOWN; /* ENOSYS, EINVAL: a kernel older than 4.14 */
}

/* what needs no bwrap */
static void
probe_host(struct kb_status_probes *p)
{
	const char *v;

	p->root = geteuid() == 0;
	if ((v = getenv("KINBOX_ACTIVE")) != NULL && *v != '\0')
		p->kinbox_active = xstrdup(v);
	if ((v = getenv("KINBOX_SANDBOX")) != NULL)
		p->sandbox_env = xstrdup(v);
	p->landlock_abi = kb_landlock_abi();
	p->user_notif = probe_user_notif();
	p->no_mediate = kb_sup_unavailable();
	p->in_agent_sandbox = kb_agent_sandbox(&p->agent_sandbox);
	p->gitwatch_err = kb_gitwatch_probe(".");
	{
		/* the run directory as a run would make it: an agent's own
		 * sandbox can leave no place for it */
		char dir[PATH_MAX];
		_cleanup_free_ char *cwd = getcwd(NULL, 0);
		struct kb_err e;
		int fd = kb_landlock_rundir(cwd, -1, dir, sizeof(dir), &e);

		if (fd == -1) {
			p->rundir_error = xstrdup(e.msg);
		} else {
			close(fd);
			if (rmdir(dir) == 0)
				kb_landlock_rundir_forget(dir);
		}
	}
}

static void
probe_bwrap(struct kb_status_probes *p)
{
	struct kb_err e;
	struct stat st;

	p->bwrap_probe = KB_PROBE_NOT_RUN;
	if ((p->bwrap = kb_bwrap_find(&e)) == NULL)
		return;
	p->bwrap_setuid = stat(p->bwrap, &st) == 0 &&
			  (st.st_mode & S_ISUID) != 0 && st.st_uid == 0;
	p->bwrap_version = first_line(capture(p->bwrap, "--version", 4096));
	p->bwrap_help = capture(p->bwrap, "--help", 64 * 1024);
	if (kb_bwrap_probe(p->bwrap, &e) == 0) {
		p->bwrap_probe = KB_PROBE_WORKS;
	} else {
		p->bwrap_probe = KB_PROBE_FAILS;
		p->bwrap_error = xstrdup(e.msg);
	}
}

void
kb_status_probe(struct kb_status_probes *p)
{
	memset(p, 0, sizeof(*p));
	probe_host(p);
	probe_bwrap(p);
}

void
kb_status_probes_free(struct kb_status_probes *p)
{
	free(p->kinbox_active);
	free(p->sandbox_env);
	free(p->bwrap);
	free(p->bwrap_version);
	free(p->bwrap_help);
	free(p->bwrap_error);
	free(p->rundir_error);
	memset(p, 0, sizeof(*p));
}

/* --- the diagnosis -------------------------------------------------------- */

/* "sudo " for a fix that needs root, when not root */
static const char *
sudo(const struct kb_status *st)
{
	return st->root ? "" : "sudo ";
}

/* bwrap's words in kb_bwrap_probe's message ("no sandbox: CAUSE [bwrap:
 * WORDS] — nothing was run"), or the message itself without "bwrap: " */
static char *
bwrap_words(const char *msg)
{
	const char *s = strstr(msg, "[bwrap: "), *end;

	if (s != NULL) {
		s += strlen("[bwrap: ");
		end = strrchr(s, ']');
		if (end == NULL)
			end = s + strlen(s);
		return xasprintf("%.*s", (int)(end - s), s);
	}
	if (strncmp(msg, "bwrap: ", 7) == 0)
		msg += 7;
	return xasprintf("%.*s", (int)strcspn(msg, "\n"), msg);
}

static void
collect_seccomp(const struct kb_status_roots *r,
    const struct kb_status_probes *p, struct kb_status *st)
{
	_cleanup_free_ char *avail =
	    read_at(r->proc, "/sys/kernel/seccomp/actions_avail", 4096);
	_cleanup_free_ char *status = read_at(r->proc, "/self/status", 65536);
	const char *m = NULL;
	long kv = version_code(st->kernel);

	st->seccomp.mode = -1;
	if (status != NULL && (m = strstr(status, "\nSeccomp:")) != NULL)
		st->seccomp.mode =
		    (int)strtol(m + strlen("\nSeccomp:"), NULL, 10);
	if (avail != NULL) {
		char *save = NULL;

		st->seccomp.available = KB_TRI_YES;
		for (char *w = strtok_r(avail, " \t\n", &save); w != NULL;
		     w = strtok_r(NULL, " \t\n", &save))
			kb_strv_push(&st->seccomp.actions, w);
	} else {
		/* seccomp without filters has no actions_avail; a kernel
		 * without seccomp has no Seccomp: line either */
		st->seccomp.available = m != NULL ? KB_TRI_UNKNOWN : KB_TRI_NO;
	}
	st->seccomp.user_notif = p->user_notif;
	st->seccomp.no_mediate = p->no_mediate;
	if (st->seccomp.user_notif == KB_TRI_UNKNOWN && avail != NULL)
		st->seccomp.user_notif =
		    kb_strv_has(&st->seccomp.actions, "user_notif") ? KB_TRI_YES
								    : KB_TRI_NO;
	if (st->seccomp.available == KB_TRI_NO)
		st->seccomp.user_notif = KB_TRI_NO;
	if (st->seccomp.user_notif == KB_TRI_NO)
		st->seccomp.addfd = KB_TRI_NO;
	else if (kv < 0)
		st->seccomp.addfd = KB_TRI_UNKNOWN;
	else
		st->seccomp.addfd = kv >= 5009 ? KB_TRI_YES : KB_TRI_NO;
	if (st->seccomp.available == KB_TRI_NO)
		kb_strv_push(&st->seccomp.fix,
		    "a kernel built with CONFIG_SECCOMP_FILTER=y: every "
		    "kinbox run loads a seccomp filter");
}

/* a container manager's name as systemd spells it, or "other" */
static const char *
container_kind(const char *v)
{
	static const char *const known[] = {"docker", "podman", "lxc",
	    "lxc-libvirt", "systemd-nspawn", "containerd", "openvz", "proot",
	    "rkt", "wsl"};

	for (size_t i = 0; i < nitems(known); i++)
		if (strcmp(v, known[i]) == 0)
			return known[i];
	return "other";
}

struct hint {
	const char *word, *name;
};

/* pid 1's cgroup path (v1, or v2 without a cgroup namespace) */
static const struct hint cgroup_hints[] = {
    {"kubepods", "kubernetes"},
    {"libpod", "podman"},
    {"docker", "docker"},
    {"lxc.payload", "lxc"},
    {"/lxc/", "lxc"},
    {"machine.slice/systemd-nspawn", "systemd-nspawn"},
};

/* where the files a container manager writes for the container come
 * from (a host sees its containers' overlays too, never these) */
static const struct hint hostfile_hints[] = {
    {"/kubelet/pods/", "kubernetes"},
    {"/docker/containers/", "docker"},
    {"/containers/storage/", "podman"},
    {"/libpod/", "podman"},
};

/* the root mount's layers */
static const struct hint rootfs_hints[] = {
    {"/var/lib/docker/", "docker"},
    {"/containers/storage/", "podman"},
    {"/var/lib/containerd/", "containerd"},
};

/* a hint in /proc/self/mountinfo: what /etc/hosts (or hostname, or
 * resolv.conf) is mounted from, else what / is made of; NULL for none */
static const struct hint *
mountinfo_hint(char *mi)
{
	const struct hint *root = NULL;
	char *save = NULL;

	for (char *l = strtok_r(mi, "\n", &save); l != NULL;
	     l = strtok_r(NULL, "\n", &save)) {
		char src[4096], point[4096];

		/* id parent major:minor root mount-point ... */
		if (sscanf(l, "%*s %*s %*s %4095s %4095s", src, point) != 2)
			continue;
		if (strcmp(point, "/etc/hosts") == 0 ||
		    strcmp(point, "/etc/hostname") == 0 ||
		    strcmp(point, "/etc/resolv.conf") == 0) {
			for (size_t i = 0; i < nitems(hostfile_hints); i++)
				if (strstr(src, hostfile_hints[i].word))
					return &hostfile_hints[i];
		}
		for (size_t i = 0; root == NULL && strcmp(point, "/") == 0 &&
				   i < nitems(rootfs_hints);
		     i++)
			if (strstr(l, rootfs_hints[i].word))
				root = &rootfs_hints[i];
	}
	return root;
}

/* the container hints, most specific first */
static void
collect_container(const struct kb_status_roots *r, struct kb_status *st)
{
	const struct hint *h;
	_cleanup_free_ char *sd = NULL, *env = NULL, *cg = NULL, *mi = NULL;
	size_t envlen = 0;

	if (exists_at(r->fs, "/run/.containerenv")) {
		st->container.name = "podman";
		st->container.evidence = xstrdup("/run/.containerenv exists");
		return;
	}
	if (exists_at(r->fs, "/.dockerenv")) {
		st->container.name = "docker";
		st->container.evidence = xstrdup("/.dockerenv exists");
		return;
	}
	if (exists_at(r->fs, "/run/secrets/kubernetes.io/serviceaccount")) {
		st->container.name = "kubernetes";
		st->container.evidence =
		    xstrdup("/run/secrets/kubernetes.io/serviceaccount exists");
		return;
	}
	/* systemd's own answer, written by the container manager */
	sd = first_line(read_at(r->fs, "/run/systemd/container", 256));
	if (sd != NULL && *sd != '\0') {
		st->container.name = container_kind(sd);
		st->container.evidence =
		    xasprintf("/run/systemd/container says %s", sd);
		return;
	}
	/* pid 1's container= (lxc, systemd-nspawn, podman, oci, ...),
	 * readable as root or as pid 1's owner */
	{
		_cleanup_free_ char *path = at_root(r->proc, "/1/environ");
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

		if (fd != -1) {
			env = kb_read_fd(fd, 1 << 20, &envlen);
			close(fd);
		}
	}
	for (size_t off = 0; env != NULL && off < envlen;
	     off += strlen(env + off) + 1) {
		const char *v = env + off;

		if (strncmp(v, "container=", 10) != 0 || v[10] == '\0')
			continue;
		v += 10;
		st->container.name = container_kind(v);
		st->container.evidence =
		    xasprintf("/proc/1/environ has container=%s", v);
		return;
	}
	cg = read_at(r->proc, "/1/cgroup", 1 << 16);
	for (size_t i = 0; cg != NULL && i < nitems(cgroup_hints); i++)
		if (strstr(cg, cgroup_hints[i].word) != NULL) {
			st->container.name = cgroup_hints[i].name;
			st->container.evidence = xasprintf(
			    "/proc/1/cgroup names %s", cgroup_hints[i].word);
			return;
		}
	mi = read_at(r->proc, "/self/mountinfo", 1 << 22);
	if (mi != NULL && (h = mountinfo_hint(mi)) != NULL) {
		st->container.name = h->name;
		st->container.evidence =
		    xasprintf("/proc/self/mountinfo names %s", h->word);
	}
}

static void
collect_userns(const struct kb_status_roots *r, struct kb_status *st)
{
	static const char *const names[KB_USERNS__N] = {
	    [KB_USERNS_MAX] = "user.max_user_namespaces",
	    [KB_USERNS_CLONE] = "kernel.unprivileged_userns_clone",
	    [KB_USERNS_APPARMOR] =
		"kernel.apparmor_restrict_unprivileged_userns",
	};

	for (size_t i = 0; i < KB_USERNS__N; i++) {
		struct kb_status_sysctl *s = &st->userns[i];
		_cleanup_free_ char *path = xasprintf("/sys/%s", names[i]);

		for (char *c = path + 5; *c != '\0'; c++)
			if (*c == '.')
				*c = '/';
		s->name = names[i];
		s->value = read_sysctl(r->proc, path, &s->present);
	}
}

static const char *const cause_words[][2] = {
    {"not_installed", "bubblewrap (bwrap) is not installed"},
    {"no_disable_userns", "this bwrap has no --disable-userns, which "
			  "every kinbox run passes (bubblewrap 0.8.0)"},
    {"no_seccomp", "seccomp filters are not available, and every kinbox "
		   "run loads one"},
    {"nested", "already inside a kinbox sandbox (KINBOX_ACTIVE is set), "
	       "which forbids nested user namespaces"},
    {"max_user_namespaces", "user namespaces are disabled "
			    "(user.max_user_namespaces = 0)"},
    {"unprivileged_userns_clone", "unprivileged user namespaces are disabled "
				  "(kernel.unprivileged_userns_clone = 0)"},
    {"apparmor", "AppArmor restricts unprivileged user namespaces "
		 "(kernel.apparmor_restrict_unprivileged_userns = 1)"},
    {"container", "this container does not allow user namespaces"},
    {"userns", "the kernel refused bubblewrap its namespaces"},
    {"setup", "bubblewrap could not set up the sandbox"},
};

static const char *
cause_text(const char *cause)
{
	for (size_t i = 0; i < nitems(cause_words); i++)
		if (strcmp(cause_words[i][0], cause) == 0)
			return cause_words[i][1];
	return cause;
}

/* why the probe failed, from bwrap's words and the machine, in the order
 * kb_bwrap_explain_failure() checks */
static const char *
probe_cause(const struct kb_status_probes *p, const struct kb_status *st)
{
	if (!kb_bwrap_userns_failure(st->bwrap.error))
		return "setup";
	if (p->kinbox_active != NULL)
		return "nested";
	if (st->userns[KB_USERNS_MAX].value == 0)
		return "max_user_namespaces";
	if (!p->root && st->userns[KB_USERNS_CLONE].value == 0)
		return "unprivileged_userns_clone";
	if (!p->root && st->userns[KB_USERNS_APPARMOR].value == 1)
		return "apparmor";
	if (st->container.name != NULL)
		return "container";
	return "userns";
}

static void
collect_bwrap(const struct kb_status_probes *p, struct kb_status *st)
{
	long v;

	st->bwrap.probe = p->bwrap == NULL ? KB_PROBE_NOT_RUN : p->bwrap_probe;
	st->bwrap.disable_userns = st->bwrap.bind_fd = st->bwrap.overlay =
	    KB_TRI_UNKNOWN;
	if (p->bwrap == NULL) {
		st->bwrap.cause = "not_installed";
		return;
	}
	st->bwrap.path = xstrdup(p->bwrap);
	st->bwrap.setuid = p->bwrap_setuid;
	if (p->bwrap_version != NULL) {
		const char *s = p->bwrap_version;

		if (strncmp(s, "bubblewrap ", 11) == 0)
			s += 11;
		st->bwrap.version =
		    xasprintf("%.*s", (int)strcspn(s, " \n"), s);
	}
	if (st->bwrap.probe == KB_PROBE_FAILS)
		st->bwrap.error = bwrap_words(
		    p->bwrap_error != NULL ? p->bwrap_error : "no message");
	if (p->bwrap_help != NULL) {
		/* what this bwrap says it takes: distributions backport
		 * (Debian 12's 0.8.0 has --bind-fd) */
		st->bwrap.features_from = "bwrap --help";
		st->bwrap.disable_userns =
		    strstr(p->bwrap_help, "--disable-userns") ? KB_TRI_YES
							      : KB_TRI_NO;
		st->bwrap.bind_fd =
		    strstr(p->bwrap_help, "--bind-fd") ? KB_TRI_YES : KB_TRI_NO;
		st->bwrap.overlay =
		    strstr(p->bwrap_help, "--overlay-src") ||
			    strstr(p->bwrap_help, "--tmp-overlay")
			? KB_TRI_YES
			: KB_TRI_NO;
	} else if ((v = bwrap_version_code(st->bwrap.version)) >= 0) {
		/* upstream's first versions: 0.8.0, 0.10.0, 0.11.0; older
		 * ones are not known (a backport may have it) */
		st->bwrap.features_from = "version";
		if (v >= 800)
			st->bwrap.disable_userns = KB_TRI_YES;
		if (v >= 1000)
			st->bwrap.bind_fd = KB_TRI_YES;
		if (v >= 1100)
			st->bwrap.overlay = KB_TRI_YES;
	}
	/* overlays are refused to a set-user-ID bwrap */
	if (st->bwrap.setuid)
		st->bwrap.overlay = KB_TRI_NO;
	if (st->bwrap.probe == KB_PROBE_FAILS)
		st->bwrap.cause = probe_cause(p, st);
	else if (st->bwrap.disable_userns == KB_TRI_NO)
		st->bwrap.cause = "no_disable_userns";
	else if (st->seccomp.available == KB_TRI_NO)
		st->bwrap.cause = "no_seccomp";
	st->bwrap.usable = st->bwrap.cause == NULL;
}

/* the Landlock ABIs the backends miss, and what each costs */
static const struct kb_status_lack lack_table[] = {
    {1, "5.13", "landlock", true,
	"no Landlock: the landlock backend cannot confine anything"},
    {2, "5.19", "landlock", true,
	"no REFER right: every rename or link across directories would fail "
	"(EXDEV)"},
    {2, "5.19", "bwrap", false,
	"masked credential paths are not kept unreadable when the host "
	"replaces them during a run"},
    {3, "6.2", "landlock", true,
	"no TRUNCATE right: truncate(2) of any file you own would be "
	"unconfined"},
    {4, "6.7", "landlock", false,
	"no TCP rules: with the network off, every IPv4 and IPv6 socket is "
	"refused (by seccomp)"},
    {5, "6.10", "landlock", false,
	"no IOCTL_DEV right: ioctl on device files is not confined"},
    {6, "6.12", "landlock", false,
	"no scopes: signals to your processes outside the sandbox are not "
	"refused (abstract unix sockets stay closed: seccomp refuses "
	"socket(AF_UNIX))"},
    {6, "6.12", "bwrap", false,
	"with --net, the host's abstract unix sockets (X11, others) are "
	"reachable"},
    {7, "6.15", "landlock", false,
	"denials are not written to the audit log (informational)"},
};

static void
collect_landlock(const struct kb_status_roots *r,
    const struct kb_status_probes *p, struct kb_status *st)
{
	_cleanup_free_ char *lsm =
	    first_line(read_at(r->sys, "/kernel/security/lsm", 4096));
	int abi = p->landlock_abi < 0 ? 0 : p->landlock_abi;

	st->landlock.abi = abi;
	st->landlock.lsm = KB_TRI_UNKNOWN;
	if (lsm != NULL) {
		st->landlock.lsm_list = xstrdup(lsm);
		st->landlock.lsm =
		    has_word(lsm, ",", "landlock") ? KB_TRI_YES : KB_TRI_NO;
	}
	st->landlock.built = abi > 0 ? KB_TRI_YES : KB_TRI_UNKNOWN;
	if (abi == 0 && st->kernel != NULL) {
		_cleanup_free_ char *path =
		    xasprintf("/boot/config-%s", st->kernel);
		_cleanup_free_ char *config = read_at(r->fs, path, 1 << 22);

		if (config != NULL)
			st->landlock.built =
			    strstr(config, "\nCONFIG_SECURITY_LANDLOCK=y")
				? KB_TRI_YES
				: KB_TRI_NO;
	}
	for (size_t i = 0; i < nitems(lack_table); i++)
		if (lack_table[i].abi > abi &&
		    st->landlock.nlack < KB_STATUS_MAX_LACK)
			st->landlock.lack[st->landlock.nlack++] = lack_table[i];
	if (abi == 0 && st->landlock.lsm == KB_TRI_NO &&
	    st->landlock.built != KB_TRI_NO)
		st->landlock.why = xasprintf(
		    "Landlock is not enabled (the LSM list is %s)", lsm);
	else if (abi == 0 && st->landlock.built == KB_TRI_NO)
		st->landlock.why =
		    xstrdup("this kernel is built without "
			    "Landlock (CONFIG_SECURITY_LANDLOCK)");
	else if (abi == 0)
		st->landlock.why = xstrdup("Landlock is not available here "
					   "(ABI 0)");
	else if (abi < KB_LANDLOCK_ABI_BACKEND)
		st->landlock.why = xasprintf(
		    "Landlock ABI %d < %d: the landlock backend needs Linux "
		    "6.2 or later",
		    abi, KB_LANDLOCK_ABI_BACKEND);
	else if (st->seccomp.available == KB_TRI_NO)
		st->landlock.why = xstrdup("seccomp filters are not available, "
					   "and the landlock backend needs "
					   "one");
	else if (p->rundir_error != NULL)
		st->landlock.why = xstrdup(p->rundir_error);
	st->landlock.usable = st->landlock.why == NULL;
}

static void
collect_yama(const struct kb_status_roots *r, struct kb_status *st)
{
	static const char *const says[] = {
	    "classic: a process may ptrace any process of its user",
	    "restricted: a process may ptrace only its descendants (strace "
	    "and gdb on a child work)",
	    "admin-only: ptrace needs CAP_SYS_PTRACE, which no sandboxed "
	    "command has",
	    "no attach: no process may ptrace, until the next boot",
	};
	bool present;

	st->yama.ptrace_scope =
	    read_sysctl(r->proc, "/sys/kernel/yama/ptrace_scope", &present);
	if (st->yama.ptrace_scope < 0)
		st->yama.says = present ? "unreadable"
					: "Yama is not loaded: ptrace follows "
					  "the kernel's own rules (same user)";
	else if ((size_t)st->yama.ptrace_scope < nitems(says))
		st->yama.says = says[st->yama.ptrace_scope];
	else
		st->yama.says = "a value this kinbox does not know";
}

/* the package manager's line for bubblewrap, from /etc/os-release */
static void
install_fix(const struct kb_status_roots *r, struct kb_status *st)
{
	static const struct {
		const char *id, *cmd;
	} pm[] = {
	    {"debian", "apt-get install bubblewrap"},
	    {"ubuntu", "apt-get install bubblewrap"},
	    {"fedora", "dnf install bubblewrap"},
	    {"rhel", "dnf install bubblewrap"},
	    {"centos", "dnf install bubblewrap"},
	    {"arch", "pacman -S bubblewrap"},
	    {"suse", "zypper install bubblewrap"},
	    {"opensuse", "zypper install bubblewrap"},
	    {"alpine", "apk add bubblewrap"},
	};
	_cleanup_free_ char *osr = read_at(r->fs, "/etc/os-release", 16384);
	char ids[512] = "";

	for (const char *l = osr; l != NULL && *l != '\0';) {
		size_t len = strcspn(l, "\n");

		if (strncmp(l, "ID=", 3) == 0 ||
		    strncmp(l, "ID_LIKE=", 8) == 0) {
			const char *v = strchr(l, '=') + 1;
			size_t vl = len - (size_t)(v - l);

			snprintf(ids + strlen(ids), sizeof(ids) - strlen(ids),
			    " %.*s", (int)vl, v);
		}
		l += len;
		l += *l == '\n';
	}
	for (char *c = ids; *c != '\0'; c++)
		if (*c == '"' || *c == '\'')
			*c = ' ';
	for (size_t i = 0; i < nitems(pm); i++)
		if (has_word(ids, " ", pm[i].id)) {
			kb_strv_pushf(
			    &st->bwrap.fix, "%s%s", sudo(st), pm[i].cmd);
			return;
		}
	kb_strv_pushf(&st->bwrap.fix,
	    "%sapt-get install bubblewrap (Debian, Ubuntu)", sudo(st));
	kb_strv_pushf(&st->bwrap.fix, "%sdnf install bubblewrap (Fedora, RHEL)",
	    sudo(st));
}

/* the fixes that do without bwrap's namespaces, under each blocker */
static void
push_alternatives(struct kb_strv *fix, const struct kb_status *st)
{
	if (st->landlock.usable)
		kb_strv_pushf(fix,
		    "or no namespaces: --backend landlock (Landlock ABI %d; "
		    "auto uses it when bwrap fails)",
		    st->landlock.abi);
	else if (st->container.name != NULL)
		kb_strv_push(fix, "or KINBOX_SANDBOX=container, when this "
				  "container is the disposable boundary (runs "
				  "are then unconfined in it)");
}

/* the bwrap cause each sysctl is */
static const char *const userns_cause[KB_USERNS__N] = {
    [KB_USERNS_MAX] = "max_user_namespaces",
    [KB_USERNS_CLONE] = "unprivileged_userns_clone",
    [KB_USERNS_APPARMOR] = "apparmor",
};

#define UBUNTU_PROFILE "bwrap-userns-restrict"
#define EXTRA_PROFILES "/usr/share/apparmor/extra-profiles/"

/* what each sysctl says, and the fixes of those that block */
static void
judge_userns(const struct kb_status_roots *r, struct kb_status *st)
{
	struct kb_status_sysctl *max = &st->userns[KB_USERNS_MAX];
	struct kb_status_sysctl *clone = &st->userns[KB_USERNS_CLONE];
	struct kb_status_sysctl *aa = &st->userns[KB_USERNS_APPARMOR];
	bool works = st->bwrap.probe == KB_PROBE_WORKS;
	const char *s = sudo(st);

	max->blocks = max->value == 0 && !works;
	clone->blocks = clone->value == 0 && !st->root && !works;
	aa->blocks = aa->value == 1 && !st->root && !works;
	for (size_t i = 0; i < KB_USERNS__N; i++) {
		static const char *const absent[KB_USERNS__N] = {
		    [KB_USERNS_MAX] = "a kernel without user namespaces?",
		    [KB_USERNS_CLONE] = "Debian's switch, not in this kernel",
		    [KB_USERNS_APPARMOR] = ("Ubuntu's switch, not in this "
					    "kernel"),
		};
		struct kb_status_sysctl *k = &st->userns[i];

		if (k->value < 0 && k->present)
			k->says = xasprintf("%s: unreadable", k->name);
		else if (k->value < 0)
			k->says =
			    xasprintf("%s: absent (%s)", k->name, absent[i]);
	}
	if (max->value == 0)
		max->says = xstrdup("user.max_user_namespaces = 0: user "
				    "namespaces are disabled, for root too");
	else if (max->value > 0)
		max->says =
		    xasprintf("user.max_user_namespaces = %ld", max->value);
	if (clone->value == 0)
		clone->says = xasprintf("kernel.unprivileged_userns_clone = 0: "
					"%s",
		    st->root ? "only root may create user namespaces (kinbox "
			       "runs as root)"
			     : "only root may create user namespaces");
	else if (clone->value > 0)
		clone->says = xasprintf(
		    "kernel.unprivileged_userns_clone = %ld", clone->value);
	if (aa->value == 1)
		aa->says = xasprintf("kernel.apparmor_restrict_unprivileged_"
				     "userns = 1: %s",
		    st->root ? "does not apply to root"
		    : works  ? "bwrap is let through (an AppArmor profile "
			       "allows it userns)"
			     : "only programs whose AppArmor profile allows "
			       "userns may create user namespaces");
	else if (aa->value >= 0)
		aa->says = xasprintf(
		    "kernel.apparmor_restrict_unprivileged_userns = %ld",
		    aa->value);
	if (max->blocks)
		kb_strv_pushf(
		    &max->fix, "%ssysctl -w user.max_user_namespaces=15000", s);
	if (clone->blocks)
		kb_strv_pushf(&clone->fix,
		    "%ssysctl -w kernel.unprivileged_userns_clone=1", s);
	if (aa->blocks) {
		if (exists_at(r->fs, "/etc/apparmor.d/" UBUNTU_PROFILE)) {
			kb_strv_pushf(&aa->fix,
			    "%sapparmor_parser -r "
			    "/etc/apparmor.d/" UBUNTU_PROFILE
			    " (it is installed, not loaded)",
			    s);
		} else {
			if (!exists_at(r->fs, EXTRA_PROFILES UBUNTU_PROFILE))
				kb_strv_pushf(&aa->fix,
				    "%sapt-get install apparmor-profiles", s);
			kb_strv_pushf(&aa->fix,
			    "%sinstall -m 0644 " EXTRA_PROFILES UBUNTU_PROFILE
			    " /etc/apparmor.d/ && %sapparmor_parser -r "
			    "/etc/apparmor.d/" UBUNTU_PROFILE,
			    s, s);
		}
		if (st->bwrap.path != NULL &&
		    strcmp(st->bwrap.path, "/usr/bin/bwrap") != 0)
			kb_strv_pushf(&aa->fix,
			    "the profile is for /usr/bin/bwrap: this bwrap is "
			    "%s",
			    st->bwrap.path);
		kb_strv_pushf(&aa->fix,
		    "or, for every program: %ssysctl -w "
		    "kernel.apparmor_restrict_unprivileged_userns=0",
		    s);
	}
	/* the ways around bwrap, under the blocker that is its cause */
	for (size_t i = 0; i < KB_USERNS__N; i++)
		if (st->bwrap.cause != NULL &&
		    strcmp(st->bwrap.cause, userns_cause[i]) == 0)
			push_alternatives(&st->userns[i].fix, st);
}

static void
judge_bwrap(const struct kb_status_roots *r, struct kb_status *st)
{
	const char *c = st->bwrap.cause;

	if (c == NULL)
		return;
	st->bwrap.why = xstrdup(cause_text(c));
	if (strcmp(c, "not_installed") == 0) {
		install_fix(r, st);
	} else if (strcmp(c, "no_disable_userns") == 0) {
		kb_strv_push(&st->bwrap.fix, "bubblewrap 0.8.0 or later");
	} else if (strcmp(c, "nested") == 0) {
		kb_strv_push(&st->bwrap.fix, "run the command directly: it is "
					     "in a kinbox sandbox already");
	} else if (strcmp(c, "userns") == 0) {
		kb_strv_push(&st->bwrap.fix, "check the LSM policy (SELinux, "
					     "AppArmor) and seccomp profile "
					     "that apply to bwrap");
	}
	if (strcmp(c, "setup") == 0 || strcmp(c, "userns") == 0)
		kb_strv_pushf(&st->bwrap.fix,
		    "see bwrap's whole message: %s --unshare-user "
		    "--unshare-pid "
		    "--unshare-net --ro-bind / / --dev /dev --proc /proc -- "
		    "/bin/true",
		    st->bwrap.path);
	/* the ways around bwrap; a sysctl or the container that is the
	 * cause carries them */
	if (strcmp(c, "max_user_namespaces") != 0 &&
	    strcmp(c, "unprivileged_userns_clone") != 0 &&
	    strcmp(c, "apparmor") != 0 && strcmp(c, "container") != 0)
		push_alternatives(&st->bwrap.fix, st);
}

static void
judge_container(struct kb_status *st)
{
	const char *n = st->container.name;

	if (n == NULL)
		return;
	if (st->bwrap.usable) {
		st->container.says = xstrdup("bwrap works in it");
		return;
	}
	if (st->bwrap.cause == NULL ||
	    strcmp(st->bwrap.cause, "container") != 0)
		return; /* bwrap fails for another reason, said above */
	st->container.says = xstrdup(
	    strcmp(n, "docker") == 0
		? "it refuses user namespaces (Docker's default seccomp "
		  "profile allows them only with CAP_SYS_ADMIN)"
		: "it refuses user namespaces");
	if (strcmp(n, "docker") == 0 || strcmp(n, "podman") == 0)
		kb_strv_pushf(&st->container.fix,
		    "start it with user namespaces allowed: %s run "
		    "--security-opt seccomp=unconfined --security-opt "
		    "apparmor=unconfined (a weaker container)",
		    n);
	else
		kb_strv_push(&st->container.fix,
		    "let the container create user namespaces (its seccomp "
		    "and LSM profiles)");
	push_alternatives(&st->container.fix, st);
}

static void
judge_landlock(struct kb_status *st)
{
	const char *list = st->landlock.lsm_list;

	/* a fix only when it matters: bwrap is not there to use */
	if (st->landlock.usable || st->bwrap.usable ||
	    st->seccomp.available == KB_TRI_NO)
		return;
	if (st->landlock.abi == 0 && st->landlock.lsm == KB_TRI_NO &&
	    st->landlock.built != KB_TRI_NO) {
		struct kb_buf b = {0};
		char *save = NULL;
		_cleanup_free_ char *copy = xstrdup(list);

		/* capability is always first and never named */
		for (char *w = strtok_r(copy, ",", &save); w != NULL;
		     w = strtok_r(NULL, ",", &save))
			if (strcmp(w, "capability") != 0)
				kb_buf_printf(&b, "%s,", w);
		kb_strv_pushf(&st->landlock.fix,
		    "boot with lsm=%slandlock (GRUB_CMDLINE_LINUX in "
		    "/etc/default/grub, then update-grub)",
		    b.s != NULL ? b.s : "");
		kb_buf_free(&b);
	} else if (st->landlock.abi == 0 && st->landlock.built == KB_TRI_NO) {
		kb_strv_push(&st->landlock.fix,
		    "a kernel built with CONFIG_SECURITY_LANDLOCK=y, Linux "
		    "6.2 or later");
	} else {
		kb_strv_push(&st->landlock.fix,
		    "Linux 6.2 or later (Landlock ABI 3) with Landlock "
		    "enabled");
	}
}

static void
judge_mode(struct kb_status *st)
{
	const char *m = st->sandbox_env;
	const char *pick = st->pick != NULL ? st->pick : "none";

	if (m == NULL || *m == '\0')
		st->sandbox_effect =
		    xasprintf("unset: runs use auto (%s)", pick);
	else if (strcmp(m, "auto") == 0)
		st->sandbox_effect = xasprintf("runs use auto (%s)", pick);
	else if (strcmp(m, "bwrap") == 0 || strcmp(m, "landlock") == 0)
		st->sandbox_effect = xasprintf("runs use %s%s", m,
		    (strcmp(m, "bwrap") == 0 ? st->bwrap.usable
					     : st->landlock.usable)
			? ""
			: ", which does not work here: they exit 125");
	else if (strcmp(m, "seatbelt") == 0)
		st->sandbox_effect =
		    xstrdup("seatbelt is macOS only: runs here exit 125");
	else if (strcmp(m, "off") == 0)
		st->sandbox_effect = xstrdup("runs are refused unless "
					     "--unconfined is given");
	else if (strcmp(m, "container") == 0)
		st->sandbox_effect = xstrdup("runs are unconfined: the "
					     "container is the boundary");
	else
		st->sandbox_effect = xstrdup(
		    "not a value kinbox knows: runs exit 125 (auto, bwrap, "
		    "landlock, seatbelt, off or container)");
}

/* bwrap's reason in a few words, for the auto line */
static char *
bwrap_short(const struct kb_status *st)
{
	const char *c = st->bwrap.cause;

	if (strcmp(c, "not_installed") == 0)
		return xstrdup("bwrap is not installed");
	if (strcmp(c, "no_disable_userns") == 0)
		return xstrdup("bwrap is older than 0.8.0");
	if (strcmp(c, "no_seccomp") == 0)
		return xstrdup("no seccomp filters");
	return xasprintf("bwrap fails its probe (%s)", cause_text(c));
}

/* MemTotal (/proc/meminfo, kB) and the budget's default it makes */
static void
collect_memory(const struct kb_status_roots *r, struct kb_status *st)
{
	_cleanup_free_ char *mi = read_at(r->proc, "/meminfo", 16384);
	const char *at = mi != NULL ? strstr(mi, "MemTotal:") : NULL;
	unsigned long long kb = 0;

	if (at != NULL && sscanf(at, "MemTotal: %llu kB", &kb) == 1 &&
	    kb < (1ULL << 50))
		st->memory.total = kb * 1024;
	st->memory.budget = kb_memory_default(st->memory.total);
	st->memory.bwrap =
	    "every tmpfs of the sandbox (/tmp, /dev/shm, /dev, the masks, "
	    "the caches) sized and inode-limited within it: a write past "
	    "fails with ENOSPC";
	st->memory.landlock =
	    "not bounded: the backend makes no tmpfs, writes go to the "
	    "host's /tmp (this run's directory there) and /dev/shm; "
	    "--rlimit fsize bounds each file";
	st->memory.cgroup =
	    "none: kinbox puts a run in no cgroup of its own; the "
	    "command's processes are the OOM killer's to find";
}

void
kb_status_collect(const struct kb_status_roots *r,
    const struct kb_status_probes *p, struct kb_status *st)
{
	memset(st, 0, sizeof(*st));
	st->root = p->root;
	st->kernel = first_line(read_at(r->proc, "/sys/kernel/osrelease", 256));
	if (p->sandbox_env != NULL)
		st->sandbox_env = xstrdup(p->sandbox_env);
	collect_seccomp(r, p, st);
	collect_container(r, st);
	if (p->in_agent_sandbox)
		st->agent_sandbox = p->agent_sandbox;
	collect_userns(r, st);
	collect_bwrap(p, st);
	collect_landlock(r, p, st);
	collect_yama(r, st);
	collect_memory(r, st);
	st->new_repos.watched = p->gitwatch_err == 0;
	st->new_repos.says =
	    p->gitwatch_err == 0
		? xstrdup("watched (fanotify): after a run kinbox looks for "
			  "the repositories the command made only where the "
			  "run changed something; the cost does not grow "
			  "with the workspace")
		: xasprintf("walked: after every run each directory below "
			    "the writable roots is read, so the cost grows "
			    "with the workspace (fanotify: %s; its "
			    "filesystem marks need root)",
		      strerror(p->gitwatch_err));
	/* the fixes, now that every backend's state is known */
	judge_userns(r, st);
	judge_bwrap(r, st);
	judge_container(st);
	judge_landlock(st);
	if (st->bwrap.usable) {
		st->pick = "bwrap";
		st->pick_why = xstrdup("bwrap works here");
	} else {
		_cleanup_free_ char *b = bwrap_short(st);

		if (st->landlock.usable) {
			st->pick = "landlock";
			st->pick_why = xasprintf("%s; Landlock ABI %d >= %d", b,
			    st->landlock.abi, KB_LANDLOCK_ABI_BACKEND);
		} else {
			st->pick_why = xasprintf("%s; %s", b, st->landlock.why);
		}
	}
	judge_mode(st);
}

void
kb_status_free(struct kb_status *st)
{
	free(st->kernel);
	free(st->new_repos.says);
	free(st->sandbox_env);
	free(st->sandbox_effect);
	free(st->bwrap.path);
	free(st->bwrap.version);
	free(st->bwrap.error);
	free(st->bwrap.why);
	kb_strv_free(&st->bwrap.fix);
	for (size_t i = 0; i < KB_USERNS__N; i++) {
		free(st->userns[i].says);
		kb_strv_free(&st->userns[i].fix);
	}
	free(st->container.evidence);
	free(st->container.says);
	kb_strv_free(&st->container.fix);
	free(st->landlock.lsm_list);
	free(st->landlock.why);
	kb_strv_free(&st->landlock.fix);
	kb_strv_free(&st->seccomp.actions);
	kb_strv_free(&st->seccomp.fix);
	free(st->pick_why);
	memset(st, 0, sizeof(*st));
}

int
kb_status_exit_code(const struct kb_status *st)
{
	return st->pick != NULL ? 0 : 1;
}

/* --- the entry points ----------------------------------------------------- */

int
kb_status_print(FILE *out, bool json)
{
	struct kb_status_roots r;
	struct kb_status_probes p;
	struct kb_status st;
	char *text;
	int rc;

	kb_status_roots_default(&r);
	kb_status_probe(&p);
	kb_status_collect(&r, &p, &st);
	if (json) {
		text = kb_status_json(&st);
		fprintf(out, "%s\n", text);
		free(text);
	} else {
		text = kb_status_text(&st);
		fputs(text, out);
		free(text);
	}
	rc = kb_status_exit_code(&st);
	kb_status_free(&st);
	kb_status_probes_free(&p);
	return rc;
}

char *
kb_sandbox_why_not(void)
{
	struct kb_status_roots r;
	struct kb_status_probes p;
	struct kb_status st;
	char *why = NULL;

	if (kb_sandbox_available())
		return NULL;
	kb_status_roots_default(&r);
	memset(&p, 0, sizeof(p));
	probe_host(&p);
	probe_bwrap(&p);
	kb_status_collect(&r, &p, &st);
	if (st.pick == NULL)
		why = xasprintf("no sandbox can be set up here (%s); kinbox "
				"--status says how to fix it",
		    st.pick_why != NULL ? st.pick_why : "no backend works");
	kb_status_free(&st);
	kb_status_probes_free(&p);
	return why;
}

bool
kb_sandbox_available(void)
{
	struct kb_status_roots r;
	struct kb_status_probes p;
	struct kb_status st;
	bool ok;

	kb_status_roots_default(&r);
	memset(&p, 0, sizeof(p));
	probe_host(&p);
	/* Landlock first: a system call and a few files, no bwrap run */
	kb_status_collect(&r, &p, &st);
	ok = st.landlock.usable;
	kb_status_free(&st);
	if (!ok) {
		probe_bwrap(&p);
		kb_status_collect(&r, &p, &st);
		ok = st.bwrap.usable;
		kb_status_free(&st);
	}
	kb_status_probes_free(&p);
	return ok;
}
