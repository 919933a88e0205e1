/*
 * host/status.h — kinbox --status, a doctor: what on this machine lets
 * a sandbox be set up and what blocks one (bubblewrap and its probe, the
 * user-namespace sysctls, the container kinbox runs in, Landlock, seccomp,
 * Yama), the fix for each blocker, and the backend auto picks.
 *
 * Two inputs, so that a test can build any machine: every file it reads
 * comes from below one of the roots, and what is not a file (the Landlock
 * ABI, bwrap and its probe, seccomp's user notification) comes from the
 * probes, which kb_status_probe() fills and a caller may set instead.
 * kb_status_collect() is then pure: it reads the roots, never the host.
 */
#ifndef KB_STATUS_H
#define KB_STATUS_H

#include <stdbool.h>
#include <stdio.h>

#include "../lib/util.h"
#include "host.h"

/* Where the files are: "/proc", "/sys" and "/" (for /.dockerenv,
 * /run/.containerenv, /etc/os-release, /etc/apparmor.d, /boot). Borrowed. */
struct kb_status_roots {
	const char *proc;
	const char *sys;
	const char *fs;
};

void kb_status_roots_default(struct kb_status_roots *);

/* a yes or no that may not be known */
enum kb_tri {
	KB_TRI_UNKNOWN = -1,
	KB_TRI_NO = 0,
	KB_TRI_YES = 1,
};

enum kb_probe_result {
	KB_PROBE_NOT_RUN, /* no bwrap to probe */
	KB_PROBE_WORKS,
	KB_PROBE_FAILS,
};

/*
 * What cannot be read from a file. Strings are owned (NULL: none) and
 * freed by kb_status_probes_free(); a test sets them with xstrdup().
 */
struct kb_status_probes {
	bool root;           /* geteuid() == 0 */
	char *kinbox_active; /* $KINBOX_ACTIVE: inside a kinbox sandbox */
	char *sandbox_env;   /* $KINBOX_SANDBOX as set (also when empty) */
	char *bwrap;         /* bwrap on PATH (kb_bwrap_find) */
	bool bwrap_setuid;   /* it is set-user-ID root */
	char *bwrap_version; /* the first line of bwrap --version */
	char *bwrap_help;    /* what bwrap --help printed */
	enum kb_probe_result bwrap_probe; /* kb_bwrap_probe() */
	/* when it fails: kb_bwrap_probe's message, whose "[bwrap: ...]"
	 * holds bwrap's words, or bwrap's words alone */
	char *bwrap_error;
	int landlock_abi; /* kb_landlock_abi() */
	/* seccomp(SECCOMP_GET_ACTION_AVAIL) for SECCOMP_RET_USER_NOTIF;
	 * unknown: /proc/sys/kernel/seccomp/actions_avail decides */
	enum kb_tri user_notif;
	/* kb_sup_unavailable(): why unix connects cannot be mediated, NULL
	 * when they can (a static string) */
	const char *no_mediate;
	/* why the landlock backend's per-run temporary directory cannot be
	 * made anywhere (kb_landlock_rundir, tried with the working
	 * directory as the workspace), NULL when it can */
	char *rundir_error;
	/* the agent sandbox kinbox runs inside (kb_agent_sandbox) */
	bool in_agent_sandbox;
	struct kb_agent_sandbox agent_sandbox;
	/* kb_gitwatch_probe() of the working directory: 0 when a run's new
	 * repositories are watched (fanotify), else its errno */
	int gitwatch_err;
};

/* Fills every probe from this process and this machine: runs bwrap three
 * times (--version, --help, kb_bwrap_probe) when it is on PATH. */
void kb_status_probe(struct kb_status_probes *);
void kb_status_probes_free(struct kb_status_probes *);

/* the three user-namespace sysctls, in kb_status.userns[] */
enum kb_userns_knob {
	KB_USERNS_MAX,      /* user.max_user_namespaces */
	KB_USERNS_CLONE,    /* kernel.unprivileged_userns_clone (Debian) */
	KB_USERNS_APPARMOR, /* kernel.apparmor_restrict_unprivileged_userns */
	KB_USERNS__N,
};

struct kb_status_sysctl {
	const char *name; /* "user.max_user_namespaces" */
	bool present;     /* the file exists (readable or not) */
	long value;       /* -1 when absent or unreadable */
	bool blocks;      /* keeps bwrap from its namespaces here */
	char *says;       /* one line: the value and what it means */
	struct kb_strv fix;
};

/* a Landlock ABI the kernel lacks and what that costs which backend */
struct kb_status_lack {
	int abi;
	const char *linux_version; /* the first Linux with it */
	const char *backend;       /* "landlock" or "bwrap" */
	bool required;             /* the landlock backend is unusable */
	const char *cost;
};

#define KB_STATUS_MAX_LACK 12

/* The diagnosis: kb_status_collect() fills it, kb_status_free() frees the
 * strings. "why" and "says" strings are one line each, unescaped. */
struct kb_status {
	bool root;
	char *kernel;      /* /proc/sys/kernel/osrelease */
	char *sandbox_env; /* KINBOX_SANDBOX, NULL when unset */
	char *sandbox_effect;
	struct {
		char *path;    /* NULL: not on PATH */
		char *version; /* "0.8.0" */
		bool setuid;
		enum kb_probe_result probe;
		char *error; /* bwrap's words when the probe fails */
		/* the options kinbox cares about, from bwrap --help (else
		 * from the version, upstream's: distributions backport) */
		enum kb_tri disable_userns, bind_fd, overlay;
		const char *features_from; /* "bwrap --help", "version" */
		/* why it cannot be used: not_installed, no_disable_userns,
		 * no_seccomp, or the probe's: nested, max_user_namespaces,
		 * unprivileged_userns_clone, apparmor, container, userns,
		 * setup; NULL when usable */
		const char *cause;
		char *why; /* that cause in words */
		bool usable;
		struct kb_strv fix;
	} bwrap;
	struct kb_status_sysctl userns[KB_USERNS__N];
	/* the agent sandbox kinbox runs inside: name NULL when none */
	struct kb_agent_sandbox agent_sandbox;
	struct {
		const char *name; /* docker, podman, kubernetes, lxc, ... */
		char *evidence;   /* the file and what it says */
		char *says;       /* what it means for kinbox */
		struct kb_strv fix;
	} container;
	struct {
		int abi;
		enum kb_tri lsm; /* /sys/kernel/security/lsm lists it */
		char *lsm_list;
		enum kb_tri built; /* CONFIG_SECURITY_LANDLOCK in /boot */
		bool usable;       /* the landlock backend: ABI >= 3, seccomp */
		char *why;         /* why it is not, NULL when usable */
		struct kb_status_lack lack[KB_STATUS_MAX_LACK];
		size_t nlack;
		struct kb_strv fix;
	} landlock;
	struct {
		enum kb_tri available;  /* seccomp filters */
		struct kb_strv actions; /* actions_avail */
		enum kb_tri user_notif;
		enum kb_tri addfd; /* SECCOMP_IOCTL_NOTIF_ADDFD, by version */
		const char *no_mediate; /* the probe's: NULL when kinbox
					   mediates unix connects */
		int mode; /* this process's (Seccomp: in status), -1 unknown */
		struct kb_strv fix;
	} seccomp;
	struct {
		long ptrace_scope; /* -1 when Yama is not loaded */
		const char *says;
	} yama;
	/* the memory budget's default here (kb_memory_default of MemTotal,
	 * /proc/meminfo) and what bounds what on each backend */
	struct {
		unsigned long long total; /* bytes, 0 when unknown */
		unsigned long long budget;
		const char *bwrap, *landlock, *cgroup;
	} memory;
	/* how a run's new repositories are found: watched (gitwatch_err
	 * 0) or walked, and why */
	struct {
		bool watched;
		char *says;
	} new_repos;
	const char *pick; /* what auto picks: "bwrap", "landlock", NULL */
	char *pick_why;
};

/* The first Landlock ABI the landlock backend works with (Linux 6.2). */
#define KB_LANDLOCK_ABI_BACKEND KB_LANDLOCK_ABI_MIN

/* Diagnoses the machine the roots and the probes describe. */
void kb_status_collect(const struct kb_status_roots *,
    const struct kb_status_probes *, struct kb_status *);
void kb_status_free(struct kb_status *);

/* The report for people: short aligned lines, "fix:" lines under what
 * blocks; fields escaped (kb_buf_escape). A new string. */
char *kb_status_text(const struct kb_status *);
/* The report as one JSON object on one line ("schema": 1 first; the keys
 * are kinbox(1)'s, STATUS). A new string. */
char *kb_status_json(const struct kb_status *);
/* 0 when some backend works here, 1 when none does. */
int kb_status_exit_code(const struct kb_status *);

/* kinbox --status [--json]: probes, prints the report on `out` and
 * returns the exit status (kb_status_exit_code). */
int kb_status_print(FILE *out, bool json);

/*
 * Could kinbox sandbox a command here: bwrap works (its probe, with what
 * kinbox's runs need) or the landlock backend is usable. Cheap first: no
 * bwrap is run when Landlock suffices. For kinpolicy decide.
 */
bool kb_sandbox_available(void);

/* NULL when kb_sandbox_available(), else the one line saying why not and
 * where the fix is (a new string). For kinpolicy hook. */
char *kb_sandbox_why_not(void);

#endif
