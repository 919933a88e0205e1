/*
 * tests/unit/test-status.c — kinbox --status (host/status.c, its report
 * host/status-report.c): every machine it tells apart, built as fake
 * /proc, /sys and / trees under a temp dir with hand-set probes (the
 * Landlock ABI, bwrap and its probe, seccomp's user notification; the
 * machines are status-machine.h's): the user-namespace sysctls (with and
 * without root), containers, Landlock ABI 0 to 7 and the LSM list,
 * seccomp, Yama, bwrap missing, old or failing with its real messages,
 * what auto picks, KINBOX_SANDBOX, the exit status, the text and the
 * JSON (parsed with jansson). Last, the real probes on this machine.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "../../backends/backend.h"
#include "../../host/status.h"
#include "status-machine.h"
#include "tap.h"

/* inside an agent's sandbox: named in text and JSON; with nowhere to
 * make the run's directory, the landlock backend is unusable and says
 * why, and with bwrap failing too nothing is available */
static void
test_agent_sandbox(void)
{
	struct machine m;
	struct kb_status *st;
	_cleanup_free_ char *t = NULL;
	_cleanup_free_ char *j = NULL;

	m_new(&m);
	m.p.in_agent_sandbox = true;
	m.p.agent_sandbox = (struct kb_agent_sandbox){
	    "Claude Code's sandbox", "SANDBOX_RUNTIME is set", "turn it off"};
	st = m_run(&m);
	t = kb_status_text(st);
	ok(strstr(t, "\nagent sandbox     Claude Code's sandbox "
		     "(SANDBOX_RUNTIME is set)\n") != NULL &&
		strstr(t, "fix: turn it off") != NULL,
	    "the agent sandbox and its fix in the text");
	ok(st->landlock.usable, "a run directory can be made: landlock usable");
	m.p.rundir_error = xstrdup("cannot make the run's temporary "
				   "directory: tried /tmp (Read-only file "
				   "system)");
	m.p.bwrap_probe = KB_PROBE_FAILS;
	st = m_run(&m);
	ok(!st->landlock.usable && st->landlock.why != NULL &&
		strstr(st->landlock.why, "temporary directory") != NULL,
	    "no run directory: the landlock backend is unusable, and why");
	j = kb_status_json(st);
	ok(strstr(j, "\"agent_sandbox\":{\"name\":\"Claude Code's "
		     "sandbox\"") != NULL,
	    "the agent sandbox in the JSON");
	m_done(&m);
}

static void
test_ordinary(void)
{
	struct machine m;
	struct kb_status *st;
	_cleanup_free_ char *t = NULL;

	m_new(&m);
	st = m_run(&m);
	ok(st->bwrap.usable && st->bwrap.cause == NULL,
	    "ordinary: bwrap is usable");
	assert_cmpstr(st->pick, "bwrap", "ordinary: auto picks bwrap");
	assert_cmpint(kb_status_exit_code(st), 0, "ordinary: exit 0");
	assert_cmpstr(st->kernel, "6.8.0-45-generic", "the kernel release");
	assert_cmpstr(st->bwrap.version, "0.8.0", "bwrap's version");
	ok(st->container.name == NULL, "no container");
	ok(!st->root, "not root");
	for (size_t i = 0; i < KB_USERNS__N; i++)
		ok(!st->userns[i].blocks && st->userns[i].fix.n == 0,
		    "ordinary: %s blocks nothing", st->userns[i].name);
	assert_cmpint(st->userns[KB_USERNS_MAX].value, 15000,
	    "user.max_user_namespaces read");
	ok(!st->userns[KB_USERNS_CLONE].present &&
		st->userns[KB_USERNS_CLONE].value == -1,
	    "kernel.unprivileged_userns_clone absent");
	ok(st->landlock.usable && st->landlock.nlack == 0,
	    "Landlock ABI 7: usable, lacks nothing");
	ok(st->bwrap.fix.n == 0 && st->landlock.fix.n == 0 &&
		st->container.fix.n == 0 && st->seccomp.fix.n == 0,
	    "ordinary: no fix anywhere");
	t = kb_status_text(st);
	ok(strncmp(t,
	       "sandbox: available (bwrap /usr/bin/bwrap, Landlock ABI 7)\n",
	       58) == 0,
	    "the first line is the one kinbox --status always printed");
	ok(strstr(t, "\nbwrap probe       works") != NULL &&
		strstr(t, "\nauto              bwrap: bwrap works here\n") !=
		    NULL,
	    "facts are aligned in one column");
	ok(strstr(t, "fix:") == NULL, "no fix: line");
	ok(strstr(t, "landlock backend never") == NULL &&
		strstr(t, "lacks ABI") == NULL,
	    "what the unused landlock backend lacks is not listed");
	ok(text_has(st, "\ncontainer         none found\n"),
	    "container: none found");
	ok(text_has(st, "\nKINBOX_SANDBOX    unset: runs use auto (bwrap)\n"),
	    "KINBOX_SANDBOX unset");
	m_done(&m);
}

static void
test_userns_max(void)
{
	struct machine m;
	struct kb_status *st;

	for (int root = 0; root <= 1; root++) {
		m_new(&m);
		m.p.root = root;
		puts_at(&m, "proc/sys/user/max_user_namespaces", "0\n");
		m_fails(&m, "bwrap: " MSG_ENOSPC "\n");
		st = m_run(&m);
		assert_cmpstr(st->bwrap.cause, "max_user_namespaces",
		    "max=0 (%s): the cause", root ? "root" : "user");
		assert_cmpstr(st->bwrap.error, MSG_ENOSPC,
		    "bwrap's words, without 'bwrap: '");
		ok(st->userns[KB_USERNS_MAX].blocks, "max=0 blocks %s too",
		    root ? "root" : "a user");
		assert_cmpstr(st->userns[KB_USERNS_MAX].fix.n
				  ? st->userns[KB_USERNS_MAX].fix.v[0]
				  : NULL,
		    root ? "sysctl -w user.max_user_namespaces=15000"
			 : "sudo sysctl -w user.max_user_namespaces=15000",
		    "max=0: the sysctl fix (sudo for a user)");
		ok(fix_has(
		       &st->userns[KB_USERNS_MAX].fix, "--backend landlock"),
		    "max=0: the landlock backend is offered under it");
		ok(st->bwrap.fix.n == 0, "max=0: the fixes are under the "
					 "sysctl, not under bwrap");
		assert_cmpstr(st->pick, "landlock",
		    "max=0: auto picks "
		    "landlock");
		ok(text_has(st, "cause: user namespaces are disabled "
				"(user.max_user_namespaces = 0) (fix: below)"),
		    "max=0: the cause line points below");
		ok(text_has(st, "userns max        user.max_user_namespaces = "
				"0: user namespaces are disabled, for root "
				"too\n"),
		    "max=0: the sysctl line");
		m_done(&m);
	}
	/* absent: a kernel without user namespaces, not a blocker */
	m_new(&m);
	rm_at(&m, "proc/sys/user/max_user_namespaces");
	st = m_run(&m);
	ok(!st->userns[KB_USERNS_MAX].present &&
		!st->userns[KB_USERNS_MAX].blocks &&
		strstr(st->userns[KB_USERNS_MAX].says, "absent") != NULL,
	    "max absent: said, blocks nothing");
	m_done(&m);
}

static void
test_debian_clone(void)
{
	struct machine m;
	struct kb_status *st;

	m_new(&m);
	puts_at(&m, "proc/sys/kernel/unprivileged_userns_clone", "0\n");
	/* as kb_bwrap_probe words it */
	m_fails(&m,
	    "no sandbox: unprivileged user namespaces are disabled "
	    "(kernel.unprivileged_userns_clone = 0); enable them with "
	    "'sysctl -w kernel.unprivileged_userns_clone=1' [bwrap: " MSG_NOPERM
	    "] \xe2\x80\x94 nothing was run");
	st = m_run(&m);
	assert_cmpstr(st->bwrap.error, MSG_NOPERM,
	    "Debian: bwrap's words taken out of kb_bwrap_probe's message");
	assert_cmpstr(st->bwrap.cause, "unprivileged_userns_clone",
	    "Debian clone=0, a user: the cause");
	ok(st->userns[KB_USERNS_CLONE].blocks, "clone=0 blocks a user");
	ok(fix_has(&st->userns[KB_USERNS_CLONE].fix,
	       "sudo sysctl -w kernel.unprivileged_userns_clone=1"),
	    "clone=0: the sysctl fix");
	assert_cmpstr(st->pick, "landlock", "clone=0: auto picks landlock");
	assert_cmpint(kb_status_exit_code(st), 0,
	    "clone=0: exit 0 "
	    "(landlock works)");
	m_done(&m);

	/* root: the switch does not apply; bwrap works */
	m_new(&m);
	m.p.root = true;
	puts_at(&m, "proc/sys/kernel/unprivileged_userns_clone", "0\n");
	st = m_run(&m);
	ok(!st->userns[KB_USERNS_CLONE].blocks &&
		st->userns[KB_USERNS_CLONE].fix.n == 0,
	    "clone=0 as root: blocks nothing");
	ok(strstr(st->userns[KB_USERNS_CLONE].says, "kinbox runs as root"),
	    "clone=0 as root: says so");
	assert_cmpstr(st->pick, "bwrap", "clone=0 as root: bwrap");
	m_done(&m);

	/* 1: nothing to say */
	m_new(&m);
	puts_at(&m, "proc/sys/kernel/unprivileged_userns_clone", "1\n");
	st = m_run(&m);
	assert_cmpstr(st->userns[KB_USERNS_CLONE].says,
	    "kernel.unprivileged_userns_clone = 1", "clone=1: its value");
	m_done(&m);
}

#define AA         "proc/sys/kernel/apparmor_restrict_unprivileged_userns"
#define AA_PROFILE "bwrap-userns-restrict"

static void
test_apparmor(void)
{
	struct machine m;
	struct kb_status *st;
	struct kb_strv *fix;

	m_new(&m);
	puts_at(&m, AA, "1\n");
	m_fails(&m, "bwrap: " MSG_UIDMAP "\n");
	st = m_run(&m);
	fix = &st->userns[KB_USERNS_APPARMOR].fix;
	assert_cmpstr(st->bwrap.cause, "apparmor",
	    "AppArmor=1, a user: the "
	    "cause");
	assert_cmpstr(st->bwrap.error, MSG_UIDMAP, "bwrap's words");
	ok(st->userns[KB_USERNS_APPARMOR].blocks, "AppArmor=1 blocks a user");
	ok(fix->n == 4 &&
		strcmp(fix->v[0], "sudo apt-get install apparmor-profiles") ==
		    0 &&
		strcmp(fix->v[1],
		    "sudo install -m 0644 /usr/share/apparmor/extra-profiles/"
		    "bwrap-userns-restrict /etc/apparmor.d/ && sudo "
		    "apparmor_parser -r "
		    "/etc/apparmor.d/bwrap-userns-restrict") == 0 &&
		strcmp(fix->v[2], "or, for every program: sudo sysctl -w "
				  "kernel.apparmor_restrict_unprivileged_"
				  "userns=0") == 0 &&
		strstr(fix->v[3], "--backend landlock (Landlock ABI 7") != NULL,
	    "AppArmor: the package, the profile, the sysctl, landlock");
	ok(text_has(st, "\n                  fix: sudo apt-get install "
			"apparmor-profiles\n"),
	    "AppArmor: fix: lines in the value column");
	m_done(&m);

	/* the extra profile is there: no package to install */
	m_new(&m);
	puts_at(&m, AA, "1\n");
	puts_at(&m, "fs/usr/share/apparmor/extra-profiles/" AA_PROFILE, "#\n");
	m_fails(&m, MSG_UIDMAP);
	st = m_run(&m);
	fix = &st->userns[KB_USERNS_APPARMOR].fix;
	ok(!fix_has(fix, "apt-get") && fix_has(fix, "sudo install -m 0644"),
	    "AppArmor, apparmor-profiles installed: the profile only");
	m_done(&m);

	/* installed in /etc/apparmor.d, yet bwrap fails: load it */
	m_new(&m);
	puts_at(&m, AA, "1\n");
	puts_at(&m, "fs/etc/apparmor.d/" AA_PROFILE, "#\n");
	m_fails(&m, MSG_UIDMAP);
	st = m_run(&m);
	fix = &st->userns[KB_USERNS_APPARMOR].fix;
	ok(fix->n > 0 &&
		strcmp(fix->v[0], "sudo apparmor_parser -r /etc/apparmor.d/"
				  "bwrap-userns-restrict (it is installed, not "
				  "loaded)") == 0,
	    "AppArmor, profile in /etc/apparmor.d: load it");
	m_done(&m);

	/* another bwrap: the profile names /usr/bin/bwrap */
	m_new(&m);
	puts_at(&m, AA, "1\n");
	set(&m.p.bwrap, "/usr/local/bin/bwrap");
	m_fails(&m, MSG_UIDMAP);
	m.p.landlock_abi = 2;
	st = m_run(&m);
	fix = &st->userns[KB_USERNS_APPARMOR].fix;
	ok(fix_has(fix, "the profile is for /usr/bin/bwrap: this bwrap is "
			"/usr/local/bin/bwrap"),
	    "AppArmor, bwrap elsewhere: said");
	ok(!fix_has(fix, "--backend landlock"),
	    "AppArmor, ABI 2: no landlock offered");
	ok(st->pick == NULL && kb_status_exit_code(st) == 1,
	    "AppArmor, ABI 2: no backend, exit 1");
	m_done(&m);

	/* root: the restriction does not apply */
	m_new(&m);
	m.p.root = true;
	puts_at(&m, AA, "1\n");
	st = m_run(&m);
	ok(!st->userns[KB_USERNS_APPARMOR].blocks &&
		strstr(st->userns[KB_USERNS_APPARMOR].says,
		    "does not apply to root") != NULL,
	    "AppArmor=1 as root: blocks nothing, says why");
	assert_cmpstr(st->pick, "bwrap", "AppArmor=1 as root: bwrap");
	m_done(&m);

	/* root whose probe fails anyway (a container): not AppArmor */
	m_new(&m);
	m.p.root = true;
	puts_at(&m, AA, "1\n");
	m_fails(&m, MSG_UIDMAP);
	st = m_run(&m);
	assert_cmpstr(st->bwrap.cause, "userns",
	    "AppArmor=1, root, probe fails: not blamed on AppArmor");
	ok(fix_has(&st->bwrap.fix, "check the LSM policy") &&
		fix_has(&st->bwrap.fix, "/usr/bin/bwrap --unshare-user "
					"--unshare-pid --unshare-net"),
	    "an unknown refusal: what to check, the probe by hand");
	m_done(&m);

	/* a user whose bwrap has a profile: it works */
	m_new(&m);
	puts_at(&m, AA, "1\n");
	st = m_run(&m);
	ok(!st->userns[KB_USERNS_APPARMOR].blocks &&
		strstr(st->userns[KB_USERNS_APPARMOR].says, "let through"),
	    "AppArmor=1, bwrap works: let through, no block");
	m_done(&m);

	/* 0: its value */
	m_new(&m);
	puts_at(&m, AA, "0\n");
	st = m_run(&m);
	assert_cmpstr(st->userns[KB_USERNS_APPARMOR].says,
	    "kernel.apparmor_restrict_unprivileged_userns = 0",
	    "AppArmor=0: its value");
	m_done(&m);
}

static void
test_containers(void)
{
	static const struct {
		const char *file, *content, *name, *evidence;
	} hints[] = {
	    {"fs/.dockerenv", "", "docker", "/.dockerenv exists"},
	    {"fs/run/.containerenv", "engine=\"podman-4.9\"\n", "podman",
		"/run/.containerenv exists"},
	    {"fs/run/secrets/kubernetes.io/serviceaccount/token", "x",
		"kubernetes",
		"/run/secrets/kubernetes.io/serviceaccount exists"},
	    {"fs/run/systemd/container", "systemd-nspawn\n", "systemd-nspawn",
		"/run/systemd/container says systemd-nspawn"},
	    {"fs/run/systemd/container", "lxc\n", "lxc",
		"/run/systemd/container says lxc"},
	    {"fs/run/systemd/container", "acme-box\n", "other",
		"/run/systemd/container says acme-box"},
	    {"proc/1/cgroup", "12:pids:/docker/0123abcd\n", "docker",
		"/proc/1/cgroup names docker"},
	    {"proc/1/cgroup", "0::/kubepods/besteffort/pod1/c2\n", "kubernetes",
		"/proc/1/cgroup names kubepods"},
	    {"proc/1/cgroup", "0::/machine.slice/libpod-01.scope\n", "podman",
		"/proc/1/cgroup names libpod"},
	    {"proc/1/cgroup", "4:memory:/lxc/c1\n", "lxc",
		"/proc/1/cgroup names /lxc/"},
	    {"proc/1/cgroup", "0::/lxc.payload.c1/init.scope\n", "lxc",
		"/proc/1/cgroup names lxc.payload"},
	    {"proc/self/mountinfo",
		"1 0 0:1 / / rw - overlay overlay rw,lowerdir=/var/lib/"
		"docker/overlay2/l/A\n",
		"docker", "/proc/self/mountinfo names /var/lib/docker/"},
	    {"proc/self/mountinfo",
		"1 0 0:1 / / rw - overlay overlay rw,lowerdir=/home/u/.local/"
		"share/containers/storage/overlay/l/A\n",
		"podman", "/proc/self/mountinfo names /containers/storage/"},
	    {"proc/self/mountinfo",
		"1 0 0:1 / / rw - overlay overlay rw,lowerdir=/var/lib/"
		"containerd/io.containerd.snapshotter.v1.overlayfs/1/fs\n"
		"2 1 8:1 /var/lib/kubelet/pods/0f/etc-hosts /etc/hosts rw - "
		"ext4 /dev/sda1 rw\n",
		"kubernetes", "/proc/self/mountinfo names /kubelet/pods/"},
	    {"proc/self/mountinfo",
		"1 0 0:1 / / rw - overlay overlay rw,lowerdir=/var/lib/"
		"containerd/io.containerd.snapshotter.v1.overlayfs/1/fs\n",
		"containerd",
		"/proc/self/mountinfo names /var/lib/containerd/"},
	    {"proc/self/mountinfo",
		"1 0 0:1 / / rw - ext4 /dev/sda1 rw\n"
		"2 1 8:1 /lib/docker/containers/ab/hostname /etc/hostname rw "
		"- ext4 /dev/sda1 rw\n",
		"docker", "/proc/self/mountinfo names /docker/containers/"},
	};
	struct machine m;
	struct kb_status *st;

	for (size_t i = 0; i < nitems(hints); i++) {
		m_new(&m);
		puts_at(&m, hints[i].file, hints[i].content);
		st = m_run(&m);
		assert_cmpstr(st->container.name, hints[i].name,
		    "container from %s: %s", hints[i].file, hints[i].name);
		assert_cmpstr(
		    st->container.evidence, hints[i].evidence, "its evidence");
		assert_cmpstr(st->container.says, "bwrap works in it",
		    "bwrap works: said");
		m_done(&m);
	}
	/* a docker host sees its containers' overlays: not a container */
	m_new(&m);
	puts_at(&m, "proc/self/mountinfo",
	    "1 0 8:1 / / rw - ext4 /dev/sda1 rw\n"
	    "90 1 0:50 / /var/lib/docker/overlay2/ab/merged rw - overlay "
	    "overlay rw,lowerdir=/var/lib/docker/overlay2/l/A\n");
	st = m_run(&m);
	ok(st->container.name == NULL, "a docker host's mounts: no container");
	m_done(&m);
	/* pid 1's environment: NUL-separated */
	m_new(&m);
	put(&m, "proc/1/environ", "PATH=/bin\0container=lxc\0HOME=/\0", 31);
	st = m_run(&m);
	assert_cmpstr(st->container.name, "lxc",
	    "container= in "
	    "/proc/1/environ");
	assert_cmpstr(st->container.evidence,
	    "/proc/1/environ has container=lxc", "its evidence");
	m_done(&m);
	/* podman's file wins over docker's */
	m_new(&m);
	puts_at(&m, "fs/.dockerenv", "");
	puts_at(&m, "fs/run/.containerenv", "");
	st = m_run(&m);
	assert_cmpstr(st->container.name, "podman",
	    "both files: podman (it is the more specific)");
	m_done(&m);

	/* docker, root, user namespaces refused: the container is the
	 * cause */
	m_new(&m);
	m.p.root = true;
	puts_at(&m, "fs/.dockerenv", "");
	m_fails(&m, "bwrap: " MSG_NOPERM);
	st = m_run(&m);
	assert_cmpstr(st->bwrap.cause, "container", "docker: the cause");
	ok(strstr(st->container.says, "CAP_SYS_ADMIN") != NULL,
	    "docker: what its default seccomp profile does");
	ok(fix_has(&st->container.fix, "docker run --security-opt "
				       "seccomp=unconfined"),
	    "docker: how to start it with user namespaces");
	ok(fix_has(&st->container.fix, "--backend landlock"),
	    "docker, ABI 7: landlock offered");
	ok(!fix_has(&st->container.fix, "KINBOX_SANDBOX=container"),
	    "docker, landlock usable: KINBOX_SANDBOX=container not needed");
	assert_cmpstr(st->pick, "landlock", "docker, ABI 7: auto landlock");
	m.p.landlock_abi = 2;
	st = m_run(&m);
	ok(fix_has(&st->container.fix, "KINBOX_SANDBOX=container") &&
		!fix_has(&st->container.fix, "--backend landlock"),
	    "docker, ABI 2: KINBOX_SANDBOX=container offered, not landlock");
	ok(st->pick == NULL && kb_status_exit_code(st) == 1,
	    "docker, ABI 2: no backend, exit 1");
	ok(text_has(st, "sandbox: unavailable (bwrap fails its probe (this "
			"container does not allow user namespaces); Landlock "
			"ABI 2 < 3"),
	    "docker, ABI 2: the first line says why");
	m_done(&m);

	/* podman, a user, same refusal */
	m_new(&m);
	puts_at(&m, "fs/run/.containerenv", "");
	m_fails(&m, MSG_NOPERM);
	st = m_run(&m);
	assert_cmpstr(st->bwrap.cause, "container", "podman: the cause");
	ok(fix_has(&st->container.fix, "podman run --security-opt"),
	    "podman: its own run line");
	m_done(&m);

	/* lxc: no run line of its own */
	m_new(&m);
	puts_at(&m, "fs/run/systemd/container", "lxc\n");
	m_fails(&m, MSG_NOPERM);
	st = m_run(&m);
	ok(fix_has(&st->container.fix, "let the container create user "
				       "namespaces"),
	    "lxc: the generic fix");
	m_done(&m);

	/* in a container, bwrap missing: nothing said of the container */
	m_new(&m);
	puts_at(&m, "fs/.dockerenv", "");
	m_no_bwrap(&m);
	st = m_run(&m);
	ok(st->container.says == NULL && st->container.fix.n == 0,
	    "docker, no bwrap: no guess about the container");
	m_done(&m);
}

static void
test_landlock_abi(void)
{
	struct machine m;
	struct kb_status *st;

	for (int abi = 0; abi <= 7; abi++) {
		size_t want = 0;
		bool required = false;

		m_new(&m);
		m_no_bwrap(&m);
		m.p.landlock_abi = abi;
		st = m_run(&m);
		for (size_t i = 0; i < st->landlock.nlack; i++)
			required |= st->landlock.lack[i].required;
		/* the table: ABIs 1..7, with two bwrap rows (2 and 6) */
		for (int a = abi + 1; a <= 7; a++)
			want += (a == 2 || a == 6) ? 2 : 1;
		assert_cmpint(st->landlock.abi, abi, "ABI %d: read", abi);
		ok(st->landlock.usable == (abi >= 3),
		    "ABI %d: the landlock backend is %susable", abi,
		    abi >= 3 ? "" : "not ");
		assert_cmpint(st->landlock.nlack, want,
		    "ABI %d: lacks %zu features", abi, want);
		ok(required == (abi < 3), "ABI %d: %s required feature lacks",
		    abi, abi < 3 ? "a" : "no");
		ok(st->landlock.nlack == 0 ||
			st->landlock.lack[0].abi == abi + 1,
		    "ABI %d: the first lack is ABI %d", abi, abi + 1);
		assert_cmpstr(st->pick, abi >= 3 ? "landlock" : NULL,
		    "ABI %d, no bwrap: auto picks %s", abi,
		    abi >= 3 ? "landlock" : "none");
		assert_cmpint(kb_status_exit_code(st), abi >= 3 ? 0 : 1,
		    "ABI %d, no bwrap: exit %d", abi, abi >= 3 ? 0 : 1);
		if (abi >= 1 && abi < 3)
			ok(st->landlock.why != NULL &&
				strstr(st->landlock.why, "< 3") != NULL &&
				fix_has(
				    &st->landlock.fix, "Linux 6.2 or later"),
			    "ABI %d: why and the kernel to get", abi);
		m_done(&m);
	}

	/* what the selected backend lacks, in the text */
	m_new(&m);
	m_no_bwrap(&m);
	m.p.landlock_abi = 4;
	st = m_run(&m);
	ok(text_has(st, "landlock backend lacks ABI 5 (Linux 6.10): no "
			"IOCTL_DEV right") &&
		text_has(st, "landlock backend lacks ABI 6 (Linux 6.12): no "
			     "scopes: signals") &&
		text_has(st, "landlock backend lacks ABI 7 (Linux 6.15)") &&
		text_has(st, "landlock backend never: a private /tmp") &&
		text_has(st, "landlock backend never: SysV IPC (refused: "
			     "PostgreSQL's initdb fails)") &&
		text_has(st, "sandbox: available (landlock backend, Landlock "
			     "ABI 4)\n"),
	    "landlock picked at ABI 4: its lacks and what it never gives");
	{
		_cleanup_free_ char *t = kb_status_text(st);

		ok(strstr(t, "bwrap backend lacks") == NULL,
		    "landlock picked: bwrap's lacks not listed");
	}
	m_done(&m);

	m_new(&m);
	m.p.landlock_abi = 4;
	st = m_run(&m);
	{
		_cleanup_free_ char *t = kb_status_text(st);

		ok(strstr(t, "bwrap backend lacks ABI 6 (Linux 6.12): with "
			     "--net, the host's abstract unix sockets") &&
			strstr(t, "landlock backend lacks") == NULL &&
			strstr(t, "landlock backend never") == NULL,
		    "bwrap picked at ABI 4: its lack only");
	}
	/* ABI 1 with bwrap: the REFER lack of the bwrap backend */
	m.p.landlock_abi = 1;
	st = m_run(&m);
	ok(text_has(st, "bwrap backend lacks ABI 2 (Linux 5.19): masked "
			"credential paths"),
	    "bwrap picked at ABI 1: the masks' lack");
	ok(st->landlock.fix.n == 0, "bwrap works: no landlock fix");
	m_done(&m);
}

static void
test_lsm(void)
{
	struct machine m;
	struct kb_status *st;

	m_new(&m);
	m_no_bwrap(&m);
	m.p.landlock_abi = 0;
	puts_at(&m, "sys/kernel/security/lsm",
	    "capability,lockdown,yama,apparmor\n");
	st = m_run(&m);
	ok(st->landlock.lsm == KB_TRI_NO, "LSM list without landlock: no");
	assert_cmpstr(st->landlock.lsm_list,
	    "capability,lockdown,yama,apparmor", "the list");
	ok(st->landlock.why && strstr(st->landlock.why, "not enabled"),
	    "not enabled: why");
	assert_cmpstr(st->landlock.fix.n ? st->landlock.fix.v[0] : NULL,
	    "boot with lsm=lockdown,yama,apparmor,landlock (GRUB_CMDLINE_LINUX "
	    "in /etc/default/grub, then update-grub)",
	    "the boot parameter, capability left out");
	ok(text_has(st, "landlock lsm      not in the list (capability,"
			"lockdown,yama,apparmor)\n"),
	    "the lsm line");
	/* the kernel's config says it was never built */
	puts_at(&m, "fs/boot/config-6.8.0-45-generic",
	    "CONFIG_X=y\n# CONFIG_SECURITY_LANDLOCK is not set\n");
	st = m_run(&m);
	ok(st->landlock.built == KB_TRI_NO &&
		fix_has(&st->landlock.fix, "CONFIG_SECURITY_LANDLOCK=y"),
	    "not built: a kernel built with it");
	puts_at(&m, "fs/boot/config-6.8.0-45-generic",
	    "CONFIG_X=y\nCONFIG_SECURITY_LANDLOCK=y\n");
	st = m_run(&m);
	ok(st->landlock.built == KB_TRI_YES &&
		fix_has(&st->landlock.fix, "boot with lsm="),
	    "built, not enabled: the boot parameter");
	/* unreadable list */
	rm_at(&m, "sys/kernel/security/lsm");
	st = m_run(&m);
	ok(st->landlock.lsm == KB_TRI_UNKNOWN && st->landlock.lsm_list == NULL,
	    "no LSM list: not known");
	ok(text_has(st, "landlock lsm      not known"), "said so");
	m.p.landlock_abi = 5;
	st = m_run(&m);
	ok(text_has(st, "landlock lsm      enabled (ABI 5; "),
	    "no LSM list, ABI 5: enabled, from the ABI");
	m_done(&m);

	/* listed: enabled */
	m_new(&m);
	st = m_run(&m);
	ok(st->landlock.lsm == KB_TRI_YES, "listed: enabled");
	m_done(&m);
}

static void
test_seccomp(void)
{
	struct machine m;
	struct kb_status *st;

	m_new(&m);
	puts_at(&m, "proc/sys/kernel/seccomp/actions_avail",
	    "kill_process kill_thread trap errno trace log allow\n");
	m.p.user_notif = KB_TRI_UNKNOWN;
	st = m_run(&m);
	ok(st->seccomp.available == KB_TRI_YES && st->seccomp.actions.n == 7,
	    "actions_avail without user_notif: seccomp, 7 actions");
	ok(st->seccomp.user_notif == KB_TRI_NO &&
		st->seccomp.addfd == KB_TRI_NO,
	    "no user_notif listed, probe silent: no user notification");
	ok(text_has(st, "\nseccomp notify    no\n"), "seccomp notify: no");
	m.p.user_notif = KB_TRI_NO;
	st = m_run(&m);
	ok(st->seccomp.user_notif == KB_TRI_NO, "the probe says no: no");
	assert_cmpstr(st->pick, "bwrap",
	    "no user notification: bwrap "
	    "still works");
	m.p.user_notif = KB_TRI_YES;
	st = m_run(&m);
	ok(st->seccomp.user_notif == KB_TRI_YES,
	    "the probe (the system call) outweighs the file");
	m_done(&m);

	/* listed, probe unknown: from the file; ADDFD by the version */
	m_new(&m);
	m.p.user_notif = KB_TRI_UNKNOWN;
	st = m_run(&m);
	ok(st->seccomp.user_notif == KB_TRI_YES &&
		st->seccomp.addfd == KB_TRI_YES,
	    "user_notif listed: yes; Linux 6.8: ADDFD");
	ok(text_has(st, "seccomp notify    yes (SECCOMP_RET_USER_NOTIF; "
			"NOTIF_ADDFD too"),
	    "the notify line");
	puts_at(&m, "proc/sys/kernel/osrelease", "5.4.0-200-generic\n");
	st = m_run(&m);
	ok(st->seccomp.addfd == KB_TRI_NO, "Linux 5.4: no ADDFD");
	puts_at(&m, "proc/sys/kernel/osrelease", "5.9.0\n");
	st = m_run(&m);
	ok(st->seccomp.addfd == KB_TRI_YES, "Linux 5.9: ADDFD");
	rm_at(&m, "proc/sys/kernel/osrelease");
	st = m_run(&m);
	ok(st->seccomp.addfd == KB_TRI_UNKNOWN && st->kernel == NULL,
	    "no osrelease: ADDFD not known");
	m_done(&m);

	/* under a filter already */
	m_new(&m);
	puts_at(&m, "proc/self/status", "Name:\tkinbox\nSeccomp:\t2\n");
	st = m_run(&m);
	assert_cmpint(st->seccomp.mode, 2, "Seccomp: 2 read");
	ok(text_has(st, "kinbox itself runs under seccomp mode 2"),
	    "said in the text");
	m_done(&m);

	/* seccomp, no filters known: not known, nothing blocked */
	m_new(&m);
	rm_at(&m, "proc/sys/kernel/seccomp/actions_avail");
	m.p.user_notif = KB_TRI_UNKNOWN;
	st = m_run(&m);
	ok(st->seccomp.available == KB_TRI_UNKNOWN && st->bwrap.usable &&
		st->landlock.usable,
	    "no actions_avail, a Seccomp: line: not known, both usable");
	/* no seccomp at all: no backend */
	puts_at(&m, "proc/self/status", "Name:\tkinbox\n");
	st = m_run(&m);
	ok(st->seccomp.available == KB_TRI_NO, "no seccomp at all");
	assert_cmpstr(st->bwrap.cause, "no_seccomp", "bwrap: no seccomp");
	ok(!st->landlock.usable && st->landlock.why &&
		strstr(st->landlock.why, "seccomp"),
	    "landlock: no seccomp");
	ok(st->pick == NULL && kb_status_exit_code(st) == 1,
	    "no seccomp: no backend, exit 1");
	ok(fix_has(&st->seccomp.fix, "CONFIG_SECCOMP_FILTER=y"),
	    "the seccomp fix");
	ok(text_has(st, "\nseccomp           not available\n"
			"                  fix: a kernel built with "
			"CONFIG_SECCOMP_FILTER=y"),
	    "the fix under the seccomp line");
	m_done(&m);
}

static void
test_yama(void)
{
	static const char *const want[] = {
	    "classic", "restricted", "admin-only", "no attach"};
	struct machine m;
	struct kb_status *st;

	for (int v = 0; v <= 3; v++) {
		char val[16];
		_cleanup_free_ char *line = NULL;

		m_new(&m);
		snprintf(val, sizeof(val), "%d\n", v);
		puts_at(&m, "proc/sys/kernel/yama/ptrace_scope", val);
		st = m_run(&m);
		assert_cmpint(st->yama.ptrace_scope, v, "Yama %d read", v);
		ok(strncmp(st->yama.says, want[v], strlen(want[v])) == 0,
		    "Yama %d: %s", v, want[v]);
		line = xasprintf("\nyama ptrace       %d, %s", v, want[v]);
		ok(text_has(st, line), "Yama %d: the line", v);
		m_done(&m);
	}
	m_new(&m);
	rm_at(&m, "proc/sys/kernel/yama/ptrace_scope");
	st = m_run(&m);
	ok(st->yama.ptrace_scope == -1 && strstr(st->yama.says, "not loaded"),
	    "no Yama: not loaded");
	puts_at(&m, "proc/sys/kernel/yama/ptrace_scope", "9\n");
	st = m_run(&m);
	ok(st->yama.ptrace_scope == 9 && strstr(st->yama.says, "does not know"),
	    "Yama 9: not a value kinbox knows");
	m_done(&m);
}

/* the memory budget's default from /proc/meminfo's MemTotal */
static void
test_memory(void)
{
	static const struct {
		const char *meminfo;
		unsigned long long total, budget;
		const char *line;
	} cases[] = {
	    {"MemTotal:       24683772 kB\nMemFree: 1 kB\n",
		24683772ULL * 1024, 4ULL << 30,
		"\nmemory budget     4 GiB by default (a quarter of 23.5 GiB "
		"RAM, at most 4 GiB; "},
	    {"MemFree: 1 kB\nMemTotal:        8388608 kB\n",
		8ULL << 30, 2ULL << 30,
		"\nmemory budget     2 GiB by default (a quarter of 8 GiB "
		"RAM, at most 4 GiB; "},
	    {"MemTotal: 1000 kB\n", 1000ULL * 1024, 16ULL << 20,
		"\nmemory budget     16 MiB by default (a quarter of 1000 KiB "
		"RAM, at most 4 GiB; "},
	    {"MemTotal: lots\n", 0, 4ULL << 30,
		"\nmemory budget     4 GiB by default (a quarter of RAM, not "
		"known here:, at most 4 GiB; "},
	    {NULL, 0, 4ULL << 30,
		"\nmemory budget     4 GiB by default (a quarter of RAM, not "
		"known here:, at most 4 GiB; "},
	};
	struct machine m;
	struct kb_status *st;

	for (size_t i = 0; i < nitems(cases); i++) {
		_cleanup_free_ char *js = NULL, *want = NULL;

		m_new(&m);
		if (cases[i].meminfo != NULL)
			puts_at(&m, "proc/meminfo", cases[i].meminfo);
		st = m_run(&m);
		ok(st->memory.total == cases[i].total &&
		    st->memory.budget == cases[i].budget,
		    "meminfo %zu: MemTotal %llu, the default budget %llu (got "
		    "%llu, %llu)",
		    i, cases[i].total, cases[i].budget, st->memory.total,
		    st->memory.budget);
		ok(text_has(st, cases[i].line), "meminfo %zu: the line", i);
		ok(text_has(st, "\nmemory landlock   not bounded: "),
		    "meminfo %zu: the landlock backend bounds nothing", i);
		js = kb_status_json(st);
		want = cases[i].total > 0
			   ? xasprintf("\"memory\":{\"mem_total\":%llu,"
				       "\"default_budget\":%llu,",
				 cases[i].total, cases[i].budget)
			   : xasprintf("\"memory\":{\"mem_total\":null,"
				       "\"default_budget\":%llu,",
				 cases[i].budget);
		ok(strstr(js, want) != NULL, "meminfo %zu: the JSON (%s)", i,
		    want);
		m_done(&m);
	}
}

static void
test_bwrap_missing(void)
{
	static const struct {
		const char *os_release, *fix;
	} os[] = {
	    {"ID=debian\n", "sudo apt-get install bubblewrap"},
	    {"ID=ubuntu\nID_LIKE=debian\n", "sudo apt-get install bubblewrap"},
	    {"ID=fedora\n", "sudo dnf install bubblewrap"},
	    {"ID=\"almalinux\"\nID_LIKE=\"rhel centos fedora\"\n",
		"sudo dnf install bubblewrap"},
	    {"ID=arch\n", "sudo pacman -S bubblewrap"},
	    {"ID=opensuse-tumbleweed\nID_LIKE=\"opensuse suse\"\n",
		"sudo zypper install bubblewrap"},
	    {"ID=alpine\n", "sudo apk add bubblewrap"},
	    {"ID=plan9\n", "sudo apt-get install bubblewrap (Debian, Ubuntu)"},
	};
	struct machine m;
	struct kb_status *st;

	for (size_t i = 0; i < nitems(os); i++) {
		m_new(&m);
		m_no_bwrap(&m);
		puts_at(&m, "fs/etc/os-release", os[i].os_release);
		st = m_run(&m);
		assert_cmpstr(st->bwrap.fix.n ? st->bwrap.fix.v[0] : NULL,
		    os[i].fix, "no bwrap, %.*s: the install line",
		    (int)strcspn(os[i].os_release, "\n"), os[i].os_release);
		m_done(&m);
	}
	m_new(&m);
	m_no_bwrap(&m);
	m.p.root = true;
	rm_at(&m, "fs/etc/os-release");
	st = m_run(&m);
	ok(st->bwrap.fix.n >= 2 &&
		strcmp(st->bwrap.fix.v[0],
		    "apt-get install bubblewrap (Debian, Ubuntu)") == 0 &&
		strcmp(st->bwrap.fix.v[1],
		    "dnf install bubblewrap (Fedora, RHEL)") == 0,
	    "no bwrap, no os-release, root: both lines, no sudo");
	assert_cmpstr(st->bwrap.cause, "not_installed", "the cause");
	ok(st->bwrap.probe == KB_PROBE_NOT_RUN && st->bwrap.path == NULL,
	    "no probe, no path");
	assert_cmpstr(st->pick, "landlock", "no bwrap, ABI 7: landlock");
	ok(text_has(st, "\nbwrap             not found on PATH\n"
			"                  fix: apt-get install bubblewrap"),
	    "the bwrap line and its fix");
	ok(text_has(st, "\nauto              landlock: bwrap is not "
			"installed; Landlock ABI 7 >= 3\n"),
	    "the auto line");
	m_done(&m);
}

static void
test_bwrap_options(void)
{
	struct machine m;
	struct kb_status *st;

	m_new(&m);
	st = m_run(&m);
	ok(st->bwrap.disable_userns == KB_TRI_YES &&
		st->bwrap.bind_fd == KB_TRI_YES &&
		st->bwrap.overlay == KB_TRI_NO,
	    "Debian 12's 0.8.0 help: --disable-userns, --bind-fd (a "
	    "backport), no --overlay");
	assert_cmpstr(st->bwrap.features_from, "bwrap --help", "from --help");
	ok(text_has(st, "bwrap options     --disable-userns yes, --bind-fd "
			"yes, --overlay no (from bwrap --help)\n"),
	    "the options line");
	set(&m.p.bwrap_help, HELP_011);
	set(&m.p.bwrap_version, "bubblewrap 0.11.0");
	st = m_run(&m);
	ok(st->bwrap.overlay == KB_TRI_YES, "0.11.0's help: --overlay");
	m.p.bwrap_setuid = true;
	st = m_run(&m);
	ok(st->bwrap.overlay == KB_TRI_NO && st->bwrap.setuid,
	    "set-user-ID: no overlays");
	ok(text_has(st, "version 0.11.0, set-user-ID root\n"), "said");
	m.p.bwrap_setuid = false;
	/* no help: upstream's versions */
	set(&m.p.bwrap_help, NULL);
	set(&m.p.bwrap_version, "bubblewrap 0.11.1");
	st = m_run(&m);
	ok(st->bwrap.disable_userns == KB_TRI_YES &&
		st->bwrap.bind_fd == KB_TRI_YES &&
		st->bwrap.overlay == KB_TRI_YES &&
		strcmp(st->bwrap.features_from, "version") == 0,
	    "0.11.1, no help: all three, by version");
	set(&m.p.bwrap_version, "bubblewrap 0.9.0");
	st = m_run(&m);
	ok(st->bwrap.disable_userns == KB_TRI_YES &&
		st->bwrap.bind_fd == KB_TRI_UNKNOWN &&
		st->bwrap.overlay == KB_TRI_UNKNOWN,
	    "0.9.0, no help: --disable-userns; the others not known");
	set(&m.p.bwrap_version, "bubblewrap 0.6.2");
	st = m_run(&m);
	ok(st->bwrap.disable_userns == KB_TRI_UNKNOWN && st->bwrap.usable,
	    "0.6.2, no help: not known, not held against it");
	ok(text_has(st, "--disable-userns not known, --bind-fd not known"),
	    "not known is said");
	set(&m.p.bwrap_version, NULL);
	st = m_run(&m);
	ok(st->bwrap.features_from == NULL && st->bwrap.version == NULL,
	    "no help, no version: nothing known");
	ok(text_has(st, "/usr/bin/bwrap, version not known\n") &&
		text_has(st, "bwrap options     not known"),
	    "said so");
	/* a help without --disable-userns: runs would fail */
	set(&m.p.bwrap_help, HELP_07);
	set(&m.p.bwrap_version, "bubblewrap 0.7.0");
	st = m_run(&m);
	assert_cmpstr(st->bwrap.cause, "no_disable_userns",
	    "0.7.0: no --disable-userns, the probe notwithstanding");
	ok(!st->bwrap.usable && fix_has(&st->bwrap.fix, "bubblewrap 0.8.0 "
							"or later"),
	    "0.7.0: unusable, upgrade");
	assert_cmpstr(st->pick, "landlock", "0.7.0: auto picks landlock");
	ok(text_has(st, "auto              landlock: bwrap is older than "
			"0.8.0;"),
	    "0.7.0: the auto line");
	m_done(&m);
}

static void
test_probe_messages(void)
{
	struct machine m;
	struct kb_status *st;

	/* the two real messages, with nothing on the machine to blame */
	m_new(&m);
	m_fails(&m, "bwrap: " MSG_UIDMAP);
	st = m_run(&m);
	assert_cmpstr(st->bwrap.cause, "userns",
	    "'%s', nothing to blame: "
	    "a namespace refusal",
	    MSG_UIDMAP);
	ok(text_has(st, "bwrap probe       fails: " MSG_UIDMAP "\n"
			"                  cause: the kernel refused "
			"bubblewrap its namespaces\n"),
	    "the probe line and its cause");
	m_fails(&m, MSG_NOPERM);
	st = m_run(&m);
	assert_cmpstr(st->bwrap.cause, "userns",
	    "'No permissions to create new namespace': a namespace refusal");
	ok(fix_has(&st->bwrap.fix, "--backend landlock"),
	    "landlock offered under bwrap");
	assert_cmpstr(st->pick, "landlock", "auto: landlock");
	/* mounts: not a namespace matter */
	m_fails(&m, "bwrap: Can't find source path /nix: No such file or "
		    "directory");
	st = m_run(&m);
	assert_cmpstr(st->bwrap.cause, "setup", "a mount error: setup");
	ok(fix_has(&st->bwrap.fix, "bwrap's whole message"),
	    "setup: the probe to run by hand");
	/* a probe that failed without a word */
	m_fails(&m, NULL);
	st = m_run(&m);
	assert_cmpstr(st->bwrap.error, "no message", "no message: said");
	/* the explanation cut short (kb_err holds 512 bytes) */
	m_fails(&m, "no sandbox: x [bwrap: setting up uid map: Permis");
	st = m_run(&m);
	assert_cmpstr(st->bwrap.error, "setting up uid map: Permis",
	    "a cut message: what there is");
	m_done(&m);

	/* nested */
	m_new(&m);
	set(&m.p.kinbox_active, "bwrap");
	m_fails(&m, MSG_NOPERM);
	st = m_run(&m);
	assert_cmpstr(st->bwrap.cause, "nested", "KINBOX_ACTIVE: nested");
	ok(fix_has(&st->bwrap.fix, "run the command directly"),
	    "nested: run it directly");
	m_done(&m);

	/* the order: max_user_namespaces before the Debian switch */
	m_new(&m);
	puts_at(&m, "proc/sys/user/max_user_namespaces", "0\n");
	puts_at(&m, "proc/sys/kernel/unprivileged_userns_clone", "0\n");
	puts_at(&m, AA, "1\n");
	m_fails(&m, MSG_NOPERM);
	st = m_run(&m);
	assert_cmpstr(st->bwrap.cause, "max_user_namespaces",
	    "all three set: max_user_namespaces is the cause");
	ok(st->userns[KB_USERNS_MAX].blocks &&
		st->userns[KB_USERNS_CLONE].blocks &&
		st->userns[KB_USERNS_APPARMOR].blocks,
	    "all three block");
	ok(fix_has(&st->userns[KB_USERNS_MAX].fix, "--backend landlock") &&
		!fix_has(
		    &st->userns[KB_USERNS_CLONE].fix, "--backend landlock") &&
		!fix_has(
		    &st->userns[KB_USERNS_APPARMOR].fix, "--backend landlock"),
	    "the way around bwrap is offered once, under the cause");
	m_done(&m);

	/* bwrap missing: the sysctls that would block still say so */
	m_new(&m);
	m_no_bwrap(&m);
	puts_at(&m, AA, "1\n");
	st = m_run(&m);
	ok(st->userns[KB_USERNS_APPARMOR].blocks &&
		st->userns[KB_USERNS_APPARMOR].fix.n > 0,
	    "no bwrap, AppArmor=1: would block, with its fix");
	m_done(&m);
}

static void
test_mode(void)
{
	static const struct {
		const char *env, *says;
	} modes[] = {
	    {"", "unset: runs use auto (bwrap)"},
	    {"auto", "runs use auto (bwrap)"},
	    {"bwrap", "runs use bwrap"},
	    {"landlock", "runs use landlock"},
	    {"seatbelt", "seatbelt is macOS only: runs here exit 125"},
	    {"off", "runs are refused unless --unconfined is given"},
	    {"container", "runs are unconfined: the container is the "
			  "boundary"},
	    {"bwarp", "not a value kinbox knows: runs exit 125"},
	};
	struct machine m;
	struct kb_status *st;

	for (size_t i = 0; i < nitems(modes); i++) {
		m_new(&m);
		set(&m.p.sandbox_env, modes[i].env);
		st = m_run(&m);
		ok(strncmp(st->sandbox_effect, modes[i].says,
		       strlen(modes[i].says)) == 0,
		    "KINBOX_SANDBOX='%s': %s", modes[i].env, modes[i].says);
		if (strncmp(st->sandbox_effect, modes[i].says,
			strlen(modes[i].says)) != 0)
			printf("#   got '%s'\n", st->sandbox_effect);
		assert_cmpint(kb_status_exit_code(st), 0,
		    "the exit status is about the backends, not the mode");
		m_done(&m);
	}
	/* a backend named that does not work */
	m_new(&m);
	m.p.landlock_abi = 2;
	set(&m.p.sandbox_env, "landlock");
	st = m_run(&m);
	ok(strstr(st->sandbox_effect, "does not work here: they exit 125"),
	    "KINBOX_SANDBOX=landlock at ABI 2: runs exit 125");
	m_done(&m);
	/* landlock named while bwrap works: its lacks are listed */
	m_new(&m);
	m.p.landlock_abi = 5;
	set(&m.p.sandbox_env, "landlock");
	st = m_run(&m);
	ok(text_has(st, "landlock backend lacks ABI 6") &&
		text_has(st, "landlock backend never: a pid namespace") &&
		text_has(st, "\nKINBOX_SANDBOX    landlock: runs use "
			     "landlock\n"),
	    "KINBOX_SANDBOX=landlock: what it lacks and never gives");
	m_done(&m);
}

/* the keys of `o`, in order, are exactly `keys` */
static bool
keys_are(json_t *o, const char *const *keys, size_t n, const char *what)
{
	const char *k;
	json_t *v;
	size_t i = 0;
	bool same = json_is_object(o) && json_object_size(o) == n;

	json_object_foreach(o, k, v)
	{
		if (i >= n || strcmp(k, keys[i]) != 0)
			same = false;
		i++;
	}
	if (!same)
		printf("#   %s: keys differ\n", what);
	return same;
}

static void
test_json(void)
{
	static const char *const top[] = {"schema", "available", "auto",
	    "auto_reason", "sandbox_env", "sandbox_env_effect", "root",
	    "kernel", "bwrap", "userns", "agent_sandbox", "container",
	    "landlock", "seccomp", "yama", "memory", "new_repos", "modes"};
	static const char *const bwrap[] = {"path", "version", "setuid",
	    "probe", "error", "options", "options_from", "usable", "cause",
	    "why", "fix"};
	static const char *const options[] = {
	    "disable_userns", "bind_fd", "overlay"};
	static const char *const userns[] = {"max_user_namespaces",
	    "unprivileged_userns_clone",
	    "apparmor_restrict_unprivileged_userns"};
	static const char *const sysctl[] = {
	    "sysctl", "present", "value", "blocks", "says", "fix"};
	static const char *const container[] = {
	    "name", "evidence", "says", "fix"};
	static const char *const landlock[] = {
	    "abi", "lsm", "lsm_list", "usable", "why", "lacks", "never", "fix"};
	static const char *const lack[] = {
	    "abi", "linux", "backend", "required", "cost"};
	static const char *const seccomp[] = {"available", "actions",
	    "user_notif", "addfd", "unix_mediation", "unix_mediation_why",
	    "mode", "fix"};
	static const char *const yama[] = {"ptrace_scope", "says"};
	struct machine m;
	struct kb_status *st;
	_cleanup_free_ char *text = NULL;
	json_error_t err;
	json_t *o, *b, *u, *aa, *ll, *sc;
	bool all = true;

	/* Ubuntu 24.04 as a user, ABI 4, in docker */
	m_new(&m);
	puts_at(&m, AA, "1\n");
	puts_at(&m, "fs/.dockerenv", "");
	m_fails(&m, MSG_UIDMAP);
	m.p.landlock_abi = 4;
	st = m_run(&m);
	text = kb_status_json(st);
	ok(strncmp(text, "{\"schema\":1,", 12) == 0 &&
		strchr(text, '\n') == NULL,
	    "one line, \"schema\": 1 first");
	o = json_loads(text, 0, &err);
	ok(o != NULL, "the JSON parses (%s)", o ? "ok" : err.text);
	if (o == NULL)
		return;
	b = json_object_get(o, "bwrap");
	u = json_object_get(o, "userns");
	aa = json_object_get(u, "apparmor_restrict_unprivileged_userns");
	ll = json_object_get(o, "landlock");
	sc = json_object_get(o, "seccomp");
	ok(keys_are(o, top, nitems(top), "top"), "the top-level keys");
	ok(keys_are(b, bwrap, nitems(bwrap), "bwrap"), "bwrap's keys");
	ok(keys_are(json_object_get(b, "options"), options, nitems(options),
	       "options"),
	    "bwrap.options' keys");
	ok(keys_are(u, userns, nitems(userns), "userns"), "userns' keys");
	for (size_t i = 0; i < nitems(userns); i++)
		all &= keys_are(json_object_get(u, userns[i]), sysctl,
		    nitems(sysctl), userns[i]);
	ok(all, "each sysctl's keys");
	ok(keys_are(json_object_get(o, "container"), container,
	       nitems(container), "container"),
	    "container's keys");
	ok(keys_are(ll, landlock, nitems(landlock), "landlock"),
	    "landlock's keys");
	ok(json_array_size(json_object_get(ll, "lacks")) == 4 &&
		keys_are(json_array_get(json_object_get(ll, "lacks"), 0), lack,
		    nitems(lack), "lacks[0]"),
	    "landlock.lacks: 4 at ABI 4, each with its keys");
	ok(keys_are(sc, seccomp, nitems(seccomp), "seccomp"), "seccomp's keys");
	ok(keys_are(json_object_get(o, "yama"), yama, nitems(yama), "yama"),
	    "yama's keys");

	ok(json_is_true(json_object_get(o, "available")), "available: true");
	assert_cmpstr(json_string_value(json_object_get(o, "auto")), "landlock",
	    "auto: landlock");
	ok(json_is_null(json_object_get(o, "sandbox_env")),
	    "sandbox_env: null");
	ok(json_is_false(json_object_get(o, "root")), "root: false");
	assert_cmpstr(json_string_value(json_object_get(o, "kernel")),
	    "6.8.0-45-generic", "kernel");
	assert_cmpstr(json_string_value(json_object_get(b, "path")),
	    "/usr/bin/bwrap", "bwrap.path");
	assert_cmpstr(json_string_value(json_object_get(b, "version")), "0.8.0",
	    "bwrap.version");
	assert_cmpstr(json_string_value(json_object_get(b, "probe")), "fails",
	    "bwrap.probe");
	assert_cmpstr(json_string_value(json_object_get(b, "error")),
	    MSG_UIDMAP, "bwrap.error");
	assert_cmpstr(json_string_value(json_object_get(b, "cause")),
	    "apparmor", "bwrap.cause");
	ok(json_is_false(json_object_get(b, "usable")), "bwrap.usable: false");
	ok(json_is_true(
	       json_object_get(json_object_get(b, "options"), "bind_fd")),
	    "bwrap.options.bind_fd: true");
	assert_cmpint(json_integer_value(json_object_get(aa, "value")), 1,
	    "apparmor sysctl: 1");
	ok(json_is_true(json_object_get(aa, "blocks")), "it blocks");
	ok(json_array_size(json_object_get(aa, "fix")) == 4,
	    "with its four fixes");
	ok(json_is_null(json_object_get(
	       json_object_get(u, "unprivileged_userns_clone"), "value")),
	    "the absent Debian switch: null");
	assert_cmpstr(json_string_value(json_object_get(
			  json_object_get(o, "container"), "name")),
	    "docker", "container.name");
	assert_cmpint(
	    json_integer_value(json_object_get(ll, "abi")), 4, "landlock.abi");
	ok(json_is_true(json_object_get(ll, "lsm")), "landlock.lsm: true");
	ok(json_is_true(json_object_get(ll, "usable")), "landlock.usable");
	ok(json_is_null(json_object_get(ll, "why")), "landlock.why: null");
	ok(json_array_size(json_object_get(ll, "never")) == 9,
	    "landlock.never: nine");
	ok(json_is_true(json_object_get(sc, "user_notif")) &&
		json_array_size(json_object_get(sc, "actions")) == 8 &&
		json_integer_value(json_object_get(sc, "mode")) == 0,
	    "seccomp: user_notif, 8 actions, mode 0");
	assert_cmpint(json_integer_value(json_object_get(
			  json_object_get(o, "yama"), "ptrace_scope")),
	    1, "yama.ptrace_scope");
	json_decref(o);
	free(text);

	/* none works; bytes that are not UTF-8 */
	m_no_bwrap(&m);
	m.p.landlock_abi = 0;
	rm_at(&m, "proc/sys/kernel/yama/ptrace_scope");
	set(&m.p.sandbox_env, "landl\xffock");
	st = m_run(&m);
	text = kb_status_json(st);
	o = json_loads(text, 0, &err);
	ok(o != NULL, "the JSON of a broken machine parses");
	if (o == NULL)
		return;
	ok(json_is_false(json_object_get(o, "available")) &&
		json_is_null(json_object_get(o, "auto")),
	    "available: false, auto: null");
	assert_cmpstr(json_string_value(json_object_get(o, "sandbox_env")),
	    "landl?ock", "a byte that is not UTF-8 becomes '?'");
	b = json_object_get(o, "bwrap");
	ok(json_is_null(json_object_get(b, "path")) &&
		json_is_null(json_object_get(b, "version")),
	    "no bwrap: path and version null");
	assert_cmpstr(json_string_value(json_object_get(b, "probe")), "not_run",
	    "bwrap.probe: not_run");
	assert_cmpstr(json_string_value(json_object_get(b, "cause")),
	    "not_installed", "bwrap.cause: not_installed");
	ok(json_is_null(
	       json_object_get(json_object_get(b, "options"), "overlay")),
	    "options not known: null");
	ok(json_is_null(
	       json_object_get(json_object_get(o, "yama"), "ptrace_scope")),
	    "no Yama: null");
	ok(json_array_size(
	       json_object_get(json_object_get(o, "landlock"), "lacks")) == 9,
	    "ABI 0: every lack");
	json_decref(o);
	m_done(&m);
}

static void
test_text_escaped(void)
{
	struct machine m;
	struct kb_status *st;
	_cleanup_free_ char *t = NULL;

	m_new(&m);
	m_fails(&m, "bwrap: bad\x1b[8m\nkinbox: forged");
	st = m_run(&m);
	t = kb_status_text(st);
	ok(strstr(t, "fails: bad\\x1b[8m") != NULL &&
		strstr(t, "\nkinbox: forged") == NULL,
	    "bwrap's words stop at its first line, escaped");
	free(t);
	set(&m.p.bwrap, "/opt/b\nin/bwrap");
	set(&m.p.bwrap_error, NULL);
	m.p.bwrap_probe = KB_PROBE_WORKS;
	st = m_run(&m);
	t = kb_status_text(st);
	ok(strstr(t, "bwrap /opt/b\\nin/bwrap, Landlock") != NULL &&
		strstr(t, "/opt/b\nin") == NULL,
	    "a newline in bwrap's path is escaped, in the first line too");
	m_done(&m);
}

/* the real probes, on this machine */
static void
test_real(void)
{
	struct kb_status_roots r;
	struct kb_status_probes p;
	struct kb_status st;
	_cleanup_free_ char *text = NULL, *json = NULL;
	json_t *o;

	kb_status_roots_default(&r);
	assert_cmpstr(r.proc, "/proc", "default root: /proc");
	assert_cmpstr(r.sys, "/sys", "default root: /sys");
	assert_cmpstr(r.fs, "/", "default root: /");
	kb_status_probe(&p);
	assert_cmpint(p.landlock_abi, kb_landlock_abi(),
	    "the ABI is kb_landlock_abi()'s");
	ok(p.root == (geteuid() == 0), "root is geteuid()'s");
	ok((p.bwrap == NULL) == (p.bwrap_probe == KB_PROBE_NOT_RUN),
	    "a probe result iff bwrap is there (%s)",
	    p.bwrap ? p.bwrap : "none");
	kb_status_collect(&r, &p, &st);
	text = kb_status_text(&st);
	json = kb_status_json(&st);
	ok(text != NULL && strncmp(text, "sandbox: ", 9) == 0,
	    "this machine's report");
	o = json_loads(json, 0, NULL);
	ok(o != NULL, "this machine's JSON parses");
	json_decref(o);
	ok(kb_sandbox_available() == (kb_status_exit_code(&st) == 0),
	    "kb_sandbox_available() agrees with the exit status (%d)",
	    kb_status_exit_code(&st));
	/* what kinbox --status prints, and its exit status */
	for (int json_out = 0; json_out <= 1; json_out++) {
		FILE *f = tmpfile();
		char buf[65536];
		size_t n;
		int rc;

		if (f == NULL)
			break;
		rc = kb_status_print(f, json_out);
		rewind(f);
		n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		fclose(f);
		assert_cmpint(rc, kb_status_exit_code(&st),
		    "kb_status_print(%s): the exit status",
		    json_out ? "json" : "text");
		if (json_out) {
			o = json_loads(buf, 0, NULL);
			ok(o != NULL && n > 0 && buf[n - 1] == '\n' &&
				strchr(buf, '\n') == buf + n - 1,
			    "kb_status_print(json): one line that parses");
			ok(json_is_boolean(json_object_get(o, "available")) &&
				json_is_true(json_object_get(o, "available")) ==
				    (rc == 0),
			    "available agrees with the exit status");
			json_decref(o);
		} else {
			ok(strncmp(buf, "sandbox: ", 9) == 0 &&
				strstr(buf, "\nauto              ") != NULL,
			    "kb_status_print(text): the report");
		}
	}
	printf("# this machine:\n");
	for (char *l = text, *e; l != NULL && *l != '\0'; l = e + 1) {
		e = strchr(l, '\n');
		if (e == NULL)
			break;
		printf("#   %.*s\n", (int)(e - l), l);
	}
	kb_status_free(&st);
	kb_status_probes_free(&p);
}

int
main(void)
{
	char tmpl[] = "/tmp/kb-test-status.XXXXXX", real[PATH_MAX];

	if (mkdtemp(tmpl) == NULL || realpath(tmpl, real) == NULL ||
	    strlen(real) >= sizeof(base))
		return 1;
	memcpy(base, real, strlen(real) + 1);
	test_ordinary();
	test_userns_max();
	test_debian_clone();
	test_apparmor();
	test_containers();
	test_landlock_abi();
	test_lsm();
	test_seccomp();
	test_yama();
	test_memory();
	test_bwrap_missing();
	test_bwrap_options();
	test_probe_messages();
	test_mode();
	test_agent_sandbox();
	test_json();
	test_text_escaped();
	test_real();
	{
		_cleanup_free_ char *cmd = xasprintf("rm -rf '%s'", base);

		if (system(cmd) != 0)
			return 1;
	}
	return tap_done();
}
