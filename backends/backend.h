/*
 * backends/backend.h — the plan a backend makes from a policy, and the run.
 * policy (const) → kb_<backend>_plan() → struct kb_plan → kb_run() →
 * struct kb_run. Planning is pure (golden-testable through --dry-run); only
 * kb_run() and the probes touch the system.
 */
#ifndef KB_BACKEND_H
#define KB_BACKEND_H

#include <stdbool.h>
#include <sys/types.h>

#include "../host/host.h"
#include "../lib/util.h"
#include "../mediate/proxy.h"
#include "../mediate/unotify-meta.h"
#include "../mediate/unotify.h"
#include "../profile/policy.h"

/*
 * A tmpfs the bwrap backend makes, and its limits (backends/memory.c):
 * bwrap mounts it with --size, and kb_run()'s mounter (backends/mounts.c)
 * sets size= and nr_inodes= on it before the command starts (bwrap has no
 * nr_inodes, and no size for its --dev). A write past either fails with
 * ENOSPC.
 */
enum kb_tmpfs_kind {
	KB_TMPFS_TMP,   /* the private /tmp */
	KB_TMPFS_SHM,   /* /dev/shm */
	KB_TMPFS_CACHE, /* an empty cache, or the ephemeral caches' upper
			   layer (one tmpfs for all their overlays) */
	KB_TMPFS_DEV,   /* bwrap's /dev (--dev): device nodes and links */
	KB_TMPFS_MASK,  /* a mask: an empty directory in place of a host one */
	KB_TMPFS_RO,    /* an absent hooks directory, kept read-only */
};

struct kb_tmpfs {
	char *path; /* inside the sandbox; NULL: the upper layer */
	enum kb_tmpfs_kind kind;
	unsigned long long size, inodes;
	/* a later mount at the same path hides it whole: nothing reaches
	 * it, and the mounter leaves it as bwrap made it (--size still) */
	bool covered;
	/* the planner's: the argv index of its --size value (0: none) and
	 * where the mounts it holds start in argv */
	size_t size_arg, from;
};

struct kb_plan {
	enum kb_backend_kind backend;
	char *exe;            /* absolute path exec'd (bwrap); owned */
	struct kb_strv argv;  /* full argv, argv.v[0] is the program name */
	struct kb_strv envp;  /* the command's whole environment */
	struct kb_strv notes; /* posture lines for --dry-run / -v */
	/* Paths a mount covers inside the sandbox. The kernel drops a mount
	 * when the host unlinks or renames over its target, so kb_run()
	 * watches these and stops the sandbox if one is replaced. */
	struct kb_strv watch;
	/* those of them Landlock keeps unreadable when replaced: reported,
	 * the command goes on */
	struct kb_strv watch_report;
	/* Descriptor numbers the argv refers to; kb_run() puts the real
	 * descriptors there before exec. -1 when unused. */
	int seccomp_fd;
	int status_fd;
	int stderr_fd;
	int empty_fd; /* an empty memfd: the source of every empty file */
	int keep_fd[KB_MAX_KEEP_FD];
	size_t nkeep;
	/* Bind sources passed as descriptors: kinbox's pass_src[i] becomes
	 * pass_base + i in bwrap, named /proc/self/fd/<pass_base + i> in the
	 * argv, so that bwrap mounts what kinbox checked (bwrap 0.8 has no
	 * --bind-fd). pass_path[i] names it for --dry-run. kinbox-exec closes
	 * the range before the command starts. */
	int *pass_src;
	size_t npass;
	int pass_base;
	struct kb_strv pass_path;
	/* mount points kinbox-exec verifies before the command starts, in the
	 * order of its --check arguments (for the message when one fails) */
	struct kb_strv checks;
	/* Ephemeral caches (canonical paths, and their [caches] names) that
	 * kb_run() overlays inside the sandbox once bwrap has mounted the
	 * rest and before the command starts: bwrap 0.8 has no overlays. */
	struct kb_strv overlay;
	struct kb_strv overlay_name;
	/* kinbox-exec waits on this descriptor for kb_run()'s go ('G')
	 * after bwrap's setup (overlays to mount, the mount watch to arm);
	 * -1 when there is nothing to wait for */
	int go_fd;
	/* which of the seccomp programs (enum kb_seccomp_variant) */
	int seccomp_variant;
	/* The unix-socket supervisor (mediate/unotify.c): kinbox-exec
	 * loads the connect() filter from notify_fd and sends its listener
	 * over unotify_fd (-1 both when connects are not mediated), with the
	 * mount ids of `own` (mount points inside: the command's own, where
	 * its sockets connect). `granted` are the inodes --ssh-agent and
	 * --allow-socket grant. */
	int notify_fd, unotify_fd;
	/* the landlock backend: notify_fd and unotify_fd carry the metadata
	 * filter and its listener instead (mediate/unotify-meta.c) */
	bool meta;
	struct kb_strv own;
	struct kb_sockid *granted;
	size_t ngranted;
	/* with --net the network namespace, and so the abstract names, are
	 * the host's: the supervisor connects an abstract name only when a
	 * socket of the sandbox listens on it */
	bool check_abstract;
	/* The egress proxy (mediate/proxy.h): kinbox-exec sends the
	 * listener it made inside over proxy_fd (-1 when the network is not
	 * limited to `hosts`, borrowed from the policy) */
	int proxy_fd;
	/* The command's environment (envp), in a sealed memfd kb_run() puts
	 * here and kinbox-exec reads (--env FD): the backend process itself
	 * (bwrap, or kinbox-exec on the host) runs with kb_host_envp and /
	 * as its working directory. -1 where the backend has no kinbox-exec
	 * (seatbelt: sandbox-exec gets envp). */
	int env_fd;
	const struct kb_hostgrant *hosts;
	size_t nhosts;
	/* The seatbelt backend (backends/seatbelt.c): the SBPL profile,
	 * constant text that names every path through (param "KEY"), and
	 * its parameters, "KEY=VALUE" each, in the order of the -D
	 * arguments in argv. NULL and empty for the other backends. */
	char *profile;
	struct kb_strv params;
	/* --timeout, --kill-after (seconds; timeout 0: none): kb_run()
	 * stops the sandbox when the timeout expires */
	long long timeout, kill_after;
	/* The memory budget (kb_policy_memory) and what set it (borrowed
	 * from the policy; NULL: the default). The bwrap backend's tmpfs
	 * mounts, in argv order, whose limits kb_run()'s mounter sets, and
	 * the ephemeral caches' upper layer (size 0: no overlay). */
	unsigned long long memory;
	const char *memory_by;
	struct kb_tmpfs *tmpfs;
	size_t ntmpfs;
	struct kb_tmpfs upper;
};

/* Does kb_run() fork the mounter (backends/mounts.c): overlays to mount
 * or tmpfs limits to set? */
static inline bool
kb_plan_mounts(const struct kb_plan *pl)
{
	return pl->overlay.n > 0 || pl->ntmpfs > 0;
}

void kb_plan_free(struct kb_plan *);

/* The lowest descriptor number >= from that no --keep-fd uses (the plans
 * put their own descriptors there). */
int kb_plan_free_fd(const struct kb_policy *, int from);

/* The limits of a Linux plan: --timeout and --kill-after into the plan
 * (kb_run's), the --rlimit NAME=VALUE arguments of kinbox-exec onto
 * pl->argv (call it among kinbox-exec's options), a note each. */
void kb_plan_limits(const struct kb_policy *, struct kb_plan *);

/*
 * A backend's own words for the facts kb_plan_posture_common() states,
 * where its mechanism shows through them.
 */
struct kb_posture_words {
	const char *scratch;    /* a read-only run: what still takes writes
				   ("the private /tmp ...") */
	const char *network;    /* the network switch as the backend holds it,
				   with no allowed hosts ("off, loopback only") */
	const char *proxy;      /* with allowed hosts: the network line (NULL:
				   no proxy here, the hosts are not listed) */
	const char *no_sockets; /* socket grants are not used here: why
				   (NULL: they are) */
	/* a mask (not a cache) as the backend holds it, allocated: "hidden:
	 * empty file"; NULL: not listed */
	char *(*mask)(const struct kb_mask *);
};

/*
 * The posture lines (--dry-run, -v) that follow from the policy alone,
 * once for every backend: what set the backend, the mode and the
 * workspace, the cwd, the write roots with their origins, the memory
 * budget (pl->memory, when the backend has one), the network and its
 * allowed hosts, the SSH agent and the sockets granted, the devices, the
 * masks, the caches off or absent, the git scan's and the config's notes,
 * the descriptors kept. Each backend adds its own lines around them.
 */
void kb_plan_posture_common(const struct kb_policy *,
    const struct kb_posture_words *, struct kb_plan *);

/* backends/memory.c: the budget split over the bwrap backend's tmpfs
 * mounts. Each mount's share of the budget is its size plus its inodes
 * counted at KB_INODE_COST each (what the kernel spends on one). */
#define KB_INODE_COST 1024ULL
/* MemTotal in bytes (sysinfo), 0 when unknown: kb_host.mem_total */
unsigned long long kb_host_mem_total(void);
unsigned long long kb_memory_cost(
    unsigned long long size, unsigned long long inodes);
/* The limits of a small mount (KB_TMPFS_DEV, _MASK, _RO): fixed, plus an
 * inode for each directory or file bwrap makes in it for the `below`
 * mounts it holds. */
void kb_memory_small(enum kb_tmpfs_kind, unsigned long long below,
    unsigned long long *size, unsigned long long *inodes);
/* The shares of the budget: `reserve` for the small mounts (a 16th, or
 * what they take when that is more), then of the rest an 8th for
 * /dev/shm, a quarter for the caches (`cache` is each one's, of
 * `ncache`; none: nothing) and the rest for /tmp. -1 when less than
 * 4 MiB would be left for /tmp. */
struct kb_memsplit {
	unsigned long long reserve, tmp, shm, cache;
};
int kb_memory_split(unsigned long long budget, unsigned long long small,
    size_t ncache, struct kb_memsplit *out);
/* The limits of a mount with the share `share`: an inode for each 8 KiB
 * of it (and at least 64 more than the `below` it holds need), the rest
 * its size, in whole 4 KiB pages. */
void kb_memory_limits(unsigned long long share, unsigned long long below,
    unsigned long long *size, unsigned long long *inodes);

/* Writes the plan as --dry-run shows it: notes as "# " lines, then the argv
 * one shell-quoted element per line, both escaped (kb_buf_escape,
 * kb_buf_shquote_visible). Returns a new string; caller frees. */
char *kb_plan_render(const struct kb_plan *);

/* What the running kernel can enforce, probed once per start. */
struct kb_host {
	int landlock_abi; /* 0 when Landlock is unavailable */
	bool root;        /* kinbox runs as uid 0 */
	bool overlay;     /* overlayfs mounts in a user namespace (5.11) */
	/* why unix connects cannot be mediated here (kb_sup_unavailable),
	 * NULL when they can */
	const char *no_mediate;
	/* why the landlock backend cannot mediate metadata calls
	 * (kb_meta_unavailable), NULL when it can */
	const char *no_meta;
	/* kinbox itself runs under a seccomp filter (a kinbox sandbox
	 * around it, a container): an outer supervisor may make the
	 * command's connects outside its Landlock domain */
	bool seccomp_outer;
	/* MemTotal in bytes (sysinfo), 0 when unknown: the memory budget's
	 * default is a quarter of it (kb_memory_default) */
	unsigned long long mem_total;
};

/* backends/choose.c */

/* The backends a run tries, in order: the first that can set up runs;
 * only bubblewrap that cannot make its namespaces (under auto) gives way
 * to the next. `why` says why the first (the posture line). */
struct kb_candidates {
	enum kb_backend_kind v[2];
	size_t n;
	char why[1024];
	/* auto runs the landlock backend because bubblewrap is not
	 * installed: the cause, for the caller's one line; NULL otherwise */
	const char *fallback;
};

/*
 * The candidates for policy `p` in order, and why (Seatbelt when asked,
 * macOS: auto; else bubblewrap then the landlock backend; `dry_run`
 * probes bubblewrap instead of trying it). Fills `host` from the probes
 * (not for Seatbelt) and *bwrap with bubblewrap's path (allocated) when
 * it is installed and was looked for, else NULL. Returns 0, or -1 with `e` when
 * --backend bwrap was asked for and bubblewrap is not installed.
 */
int kb_backend_candidates(const struct kb_policy *p, bool dry_run,
    struct kb_host *host, char **bwrap, struct kb_candidates *c,
    struct kb_err *e);

/* backends/landlock.c */

/* The features of `require` (enum kb_feature bits) the landlock backend
 * cannot give on this host; 0 when it gives them all. */
unsigned kb_landlock_lacks(const struct kb_host *, unsigned require);

/*
 * Builds the landlock plan: kinbox-exec, exec'd directly by kb_run(),
 * applies the whole sandbox (backends/kinbox-exec.c). `helper` and
 * `helper_fd` as for kb_bwrap_plan (the helper is exec'd through its
 * descriptor); `rundir` the per-run temporary directory kinbox made
 * (TMPDIR inside; KB_LANDLOCK_RUNDIR_TEMPLATE for --dry-run) and
 * `rundir_fd` an O_PATH descriptor of it (-1 for --dry-run); `why` says
 * why this backend runs (the posture line). Refuses what this backend
 * cannot do safely (a credential inside a writable root, --ssh-agent).
 * Pure but for reading which device nodes exist.
 */
int kb_landlock_plan(const struct kb_policy *, const struct kb_host *,
    const char *helper, int helper_fd, const char *rundir, int rundir_fd,
    const char *why, char *const *envp, struct kb_plan *out, struct kb_err *e);

/* backends/seatbelt.c — macOS. Nothing of it has run under a real
 * sandbox-exec here (no macOS machine): the profile is checked by golden
 * files and the SBPL reader of the tests only. */

/* Where macOS ships it; kinbox never looks it up in $PATH. */
#define KB_SANDBOX_EXEC "/usr/bin/sandbox-exec"

/*
 * The host facts the seatbelt plan needs besides the policy, each a
 * canonical path (realpath: /private/tmp, not /tmp, on macOS); found by
 * kinbox.c (kb_seatbelt_host), fixed by the tests.
 */
struct kb_seatbelt_host {
	const char *tmp;      /* realpath("/tmp"): read-only unless --write */
	const char *var_tmp;  /* realpath("/var/tmp"), or NULL */
	const char *ssh_sock; /* realpath of SSH_AUTH_SOCK (--ssh-agent) */
	const char *run_tag;  /* the per-run message, "kinbox-<id>" */
	/* the run's own temporary directory (TMPDIR, TMUX_TMPDIR,
	 * java.io.tmpdir), made by kinbox and removed after the run;
	 * KB_LANDLOCK_RUNDIR_TEMPLATE for --dry-run */
	const char *run_tmp;
	/* confstr(_CS_DARWIN_USER_TEMP_DIR), canonical, or NULL (not macOS):
	 * named in the notes only, read-only like every other path */
	const char *user_tmp;
	/* the terminals on kinbox's fds 0-2 (canonical, no repeats): the
	 * command's own, readable and writable; every other one is not */
	const char *tty[3];
	size_t ntty;
};

/*
 * Builds the seatbelt plan: `sandbox_exec` (KB_SANDBOX_EXEC) -p PROFILE
 * -D KEY=VALUE ... -- argv. The profile text depends only on the shape
 * of the policy (how many write roots, masks, guards, ...), never on a
 * path: paths reach it as parameters. Refuses what Seatbelt cannot
 * express here. `envp` the caller's environment (borrowed). Pure but for
 * realpath(3) of the masks (Seatbelt matches resolved paths). 0, or -1
 * with `e` set and `out` empty.
 */
int kb_seatbelt_plan(const struct kb_policy *, const struct kb_seatbelt_host *,
    const char *sandbox_exec, char *const *envp, struct kb_plan *out,
    struct kb_err *e);

/*
 * Runs a seatbelt plan (backends/run-posix.c: sandbox-exec, POSIX
 * interfaces only) and fills `out` as kb_run() does, for the common
 * report: started, the exec's errno, sandbox-exec's own words when it
 * refused, the exit status, the stderr tail, and what the command left
 * running. The caller has made every descriptor but 0-2 and the kept ones
 * close on exec. 0, or -1 with `e` set when nothing could be started.
 */
struct kb_run;
int kb_seatbelt_run(
    const struct kb_plan *, struct kb_run *out, struct kb_err *e);

/* backends/plan.c: any plan as one JSON object (kinbox --dry-run --json):
 * backend, exe, argv, notes, fds (a bind source passed as a descriptor:
 * number -> path) and, for seatbelt, profile and params (an object, name
 * -> value). A new string ending in a newline; caller frees. */
char *kb_plan_json(const struct kb_plan *);

/* backends/bwrap.c */

/* Builds the bwrap plan. `bwrap` and `helper` are absolute paths (borrowed),
 * `helper_fd` an O_PATH descriptor of the helper that bwrap executes it
 * through (so that it runs wherever kinbox lives, /tmp included), or -1 to
 * exec it by path; `envp` the caller's environment (borrowed). Pure: no
 * system calls. */
int kb_bwrap_plan(const struct kb_policy *, const struct kb_host *,
    const char *bwrap, const char *helper, int helper_fd, char *const *envp,
    struct kb_plan *out, struct kb_err *e);

/* The command's environment for any backend (and --unconfined): the
 * caller's, scrubbed, plus what kinbox sets. `active` names the sandbox in
 * KINBOX_ACTIVE; NULL means no sandbox (TMPDIR is then left alone). Fills
 * pl->envp and adds the removed names to pl->notes. */
void kb_plan_env(const struct kb_policy *, char *const *envp,
    const char *active, struct kb_plan *pl);

/* The slot NAME=... of pl->envp, or NULL (borrowed). */
char **kb_plan_env_slot(struct kb_plan *, const char *name);
/* Sets NAME=value in pl->envp, in place of one there. */
void kb_plan_env_set(struct kb_plan *, const char *name, const char *value);
/* Appends `word``value` to NAME (after `sep`), or sets NAME=`word``value`
 * when pl->envp has none (JAVA_TOOL_OPTIONS=-Djava.io.tmpdir=DIR). */
void kb_plan_env_append(struct kb_plan *, const char *name, const char *sep,
    const char *word, const char *value);

/* backends/seccomp.c */

/* The filters, one per backend posture. Every landlock one refuses what
 * the bwrap one does and what the bwrap backend's namespaces kept out:
 * new user namespaces, the host's SysV IPC and POSIX message queues, and
 * unix sockets (Landlock cannot tell the host's apart). */
enum kb_seccomp_variant {
	KB_SECCOMP_BWRAP,          /* the bwrap backend's */
	KB_SECCOMP_LL_NET,         /* landlock backend, --net */
	KB_SECCOMP_LL_NONET,       /* landlock backend, network off, Landlock
				      ABI >= 4 handles TCP connect/bind */
	KB_SECCOMP_LL_NONET_ALL,   /* landlock backend, network off, ABI < 4:
				      no TCP either */
	KB_SECCOMP_BWRAP_MEDIATED, /* bwrap backend, unix connects mediated:
				      no unix datagram socket, no x86
				      socketcall */
	KB_SECCOMP_BWRAP_NOUNIX,   /* bwrap backend where mediation cannot
				      work: no socket(AF_UNIX) at all */
	KB_SECCOMP_NOTIFY,         /* not a sandbox of its own: connect()
				      as a user notification (kinbox-exec
				      loads it on top; mediate/unotify.c) */
	KB_SECCOMP_META,           /* not a sandbox of its own: the landlock
				      backend's metadata calls as user
				      notifications (mediate/unotify-meta.c) */
	KB_SECCOMP__N
};

/* The names of what each filter refuses, one line, for --dry-run's
 * "seccomp: refuses ..."; kb_seccomp_summary is the bwrap one's. */
extern const char *const kb_seccomp_summary_variant[KB_SECCOMP__N];
extern const char *const kb_seccomp_summary;

/* Compiles a filter with libseccomp and returns a memfd holding the BPF
 * program at offset 0 (close-on-exec), or -1 with `e` set. Used at build
 * time (seccomp-gen) and by the tests. kb_seccomp_build_fd is the bwrap
 * one. */
int kb_seccomp_build_fd_variant(enum kb_seccomp_variant, struct kb_err *e);
int kb_seccomp_build_fd(struct kb_err *e);

/* backends/seccomp-blob.c: the same programs, compiled at build time;
 * kb_seccomp_blob is the bwrap one. */
extern const unsigned char *const kb_seccomp_blob_variant[KB_SECCOMP__N];
extern const size_t kb_seccomp_blob_len_variant[KB_SECCOMP__N];
extern const unsigned char *const kb_seccomp_blob;
extern const size_t kb_seccomp_blob_len;
/* A memfd holding a build-time program at offset 0, or -1 with `e` set;
 * kb_seccomp_fd is the bwrap one. */
int kb_seccomp_fd_variant(enum kb_seccomp_variant, struct kb_err *e);
int kb_seccomp_fd(struct kb_err *e);

/* backends/mounts.c */

/* The mount points of a /proc/PID/mountinfo descriptor, unescaped, read
 * from its start into `points` (replaced). -1 with errno on failure. */
int kb_mountinfo_read(int fd, struct kb_strv *points);

/* The first path of pl->watch that `points` (a mount table) lacks and
 * Landlock does not keep unreadable, or NULL; the pl->watch_report ones
 * it lacks are appended to `replaced` (newline-separated, `len` bytes). */
const char *kb_watch_compare(const struct kb_plan *pl,
    const struct kb_strv *points, char *replaced, size_t len);

/* Forks the mounter. `go_w` is kinbox's end of the go socket
 * (kinbox-exec --wait; the caller closes its own copy): kinbox-exec
 * hands the mounter the sandbox there as soon as it starts, and the
 * mounter sets the limits of pl->tmpfs, checks the sandbox's mount table
 * against pl->watch (kb_watch_compare), mounts pl->overlay
 * (kb_plan_mounts) and writes the go. Returns kinbox's end of its own
 * socket (the child's pid in *child), -1 on failure. */
int kb_mounter_start(const struct kb_plan *pl, int go_w, pid_t *child);
/* Once the sandbox started: waits until the mounter is done. 0: the go
 * is given, *watchfd a /proc/PID/mountinfo descriptor of the sandbox's,
 * opened before the mounter's check (for kinbox's watch). 1: a watched
 * mount is gone, its path in `why`, no go. -1: the reason in `why`, no
 * go. */
int kb_mounter_wait(int sock, int *watchfd, char *why, size_t whylen);

/* backends/run.c */

struct kb_run {
	/* the backend that ran (the plan's): the classifier judges by its
	 * errors, the journal records it; the policy keeps what was asked */
	enum kb_backend_kind backend;
	int wstatus;           /* bwrap's wait status */
	bool started;          /* the command was exec'd (or exec was tried) */
	int exec_errno;        /* exec failed inside with this errno, else 0 */
	int confine_errno;     /* Landlock could not be applied: nothing ran */
	int check_failed;      /* 1 + the index in plan.checks of a mount that
				  was not where it was planned: nothing ran */
	char broken[4096];     /* a watched path the host replaced: the sandbox
				  was stopped (empty when none) */
	char setup_err[4096];  /* what bwrap printed before the start */
	char replaced[4096];   /* masked paths the host replaced while Landlock
				  kept them unreadable, one a line */
	char setup_fail[1024]; /* kinbox's own setup inside the started
				  sandbox failed (an overlay): why; nothing
				  ran */
	char revoked[1024];    /* a grant the run used was revoked: why; the
				  sandbox was stopped (empty when not) */
	struct kb_sup_report sock;      /* the unix connects kinbox refused */
	struct kb_meta_report meta;     /* the metadata calls it refused */
	struct kb_egress_report egress; /* what the egress proxy refused */
	int proxy_errno;  /* the proxy's listener could not be made inside:
			     nothing ran */
	int rlimit_errno; /* an --rlimit could not be set inside: nothing
			     ran */
	bool timed_out;   /* --timeout expired: the sandbox was stopped */
	int exit_code;    /* kinbox's exit status for this run */
	/* Seatbelt's run (no pid namespace, no subreaper on macOS): how many
	 * processes the command left running were killed, and why the
	 * process table could not be read (0: it could) */
	unsigned left_killed;
	int walk_errno;
	/* stdout was a pipe, socket or regular file: its tail is read too
	 * (a terminal or a device is left to the command) */
	bool stdout_read;
	size_t out_tail_len;
	unsigned long long stdout_bytes; /* relayed (or appended) in all */
	/* the last KB_TAIL bytes of the command's stderr, in order */
	char tail[KB_TAIL];
	size_t tail_len;
	unsigned long long stderr_bytes; /* relayed in all */
	/* the last KB_TAIL bytes of its stdout, when stdout_read */
	char out_tail[KB_TAIL];
};

/*
 * How a run is stopped from outside (kinpolicy revoke, profile/runs.h).
 * kb_run() reads `sig` with the signals it relays and calls arm() once
 * they are blocked, before the backend starts: a `sig` sent as soon as
 * arm() has registered the run is read, not lost, and arm()'s -1 (with
 * `e`) ends the run before anything started. Each `sig` that arrives
 * then calls revoked(): true, with one line in `why`, stops the sandbox
 * (every process of its pid namespace is dead when kb_run() returns) and
 * fills r->revoked. Between runs `sig` is ignored.
 */
struct kb_stopper {
	int sig;
	int (*arm)(void *ctx, struct kb_err *e);
	bool (*revoked)(void *ctx, char *why, size_t len);
	void *ctx;
};

/*
 * A descriptor the landlock backend's keeper holds until every process of
 * the run is dead (kinbox's lock on the run's git snapshot,
 * gitguard/snapstore.c), or -1. Borrowed: kb_run() neither closes it nor
 * passes it to the command.
 */
void kb_run_hold(int fd);

/*
 * A descriptor kb_run()'s loop polls for POLLIN while the run goes,
 * calling ready(ctx) each time it is readable (the git watch's fanotify
 * group, gitguard/watch.c, read on kinbox's own thread), or -1. Borrowed:
 * kb_run() neither closes it nor passes it to the command.
 */
void kb_run_follow(int fd, void (*ready)(void *ctx), void *ctx);

/* Runs the plan: forks, execs the backend, relays signals and the
 * command's stderr (through a pseudo-terminal when our stderr is a
 * terminal, else a pipe; byte for byte, keeping the last KB_TAIL bytes),
 * waits. `stop` may be NULL (nothing stops the run from outside). Returns
 * 0, or -1 with `e` set when nothing could be started. */
int kb_run(const struct kb_plan *, const struct kb_stopper *stop,
    struct kb_run *out, struct kb_err *e);

/* backends/outcome.c */

/*
 * What ended the run, in the order it is judged: each but the last is
 * kinbox's own failure, told in one line (kb_run_outcome_line), and the
 * command's exit status is then kinbox's.
 */
enum kb_outcome {
	KB_OUT_REVOKED,     /* kinpolicy revoke stopped it */
	KB_OUT_BROKEN,      /* a mount's target replaced on the host */
	KB_OUT_TIMED_OUT,   /* --timeout */
	KB_OUT_NOT_STARTED, /* the backend could not set up */
	KB_OUT_SETUP,       /* kinbox's side of the setup (mounter, watch) */
	KB_OUT_CHECK,       /* a guard not where it was mounted */
	KB_OUT_CONFINE,     /* Landlock inside the sandbox */
	KB_OUT_RLIMIT,      /* an --rlimit inside the sandbox */
	KB_OUT_PROXY,       /* the egress proxy's port inside the sandbox */
	KB_OUT_RAN,         /* the command ran: its status is the run's */
};

enum kb_outcome kb_run_outcome(const struct kb_run *run);

/* The one line of kinbox's own failure `out` for this run and plan
 * (allocated), and in *audit whether the git guards are audited before it
 * is said (a run that may have run the command); NULL for the outcomes
 * kinbox.c tells itself (KB_OUT_TIMED_OUT, KB_OUT_NOT_STARTED,
 * KB_OUT_RAN). */
char *kb_run_outcome_line(enum kb_outcome out, const struct kb_run *run,
    const struct kb_plan *plan, bool *audit);

/*
 * A failed command that points at a file it wrote where this run does not
 * keep it (a cache whose writes are discarded, the landlock backend's
 * per-run directory `rundir`, which may be NULL): one note that it is gone
 * and what keeps it (backends/outcome.c).
 */
void kb_run_note_lost_files(
    const struct kb_policy *, const struct kb_run *, const char *rundir);

/*
 * backends/keeper.c: the landlock backend's process tree.
 *
 * kb_keeper_fork() forks the keeper: 0 in the keeper (the run's subreaper,
 * in a process group of its own, *sock its end of the socket it shares
 * with kinbox), its pid in kinbox (*sock kinbox's end, non-blocking; only
 * kinbox holds it), -1 with errno. The keeper then spawns the command's
 * process and calls kb_keeper_run(sock, its pid or -1, a descriptor to
 * hold or -1), which never returns: it closes every other descriptor,
 * says 'C' + the pid, reaps what the tree re-parents to it, and when the
 * command ends or kinbox does (EOF on the socket) kills every process of
 * the run, then says 'W' + the command's wait status (a 5-byte message
 * each) and exits; 125 when it had none to say.
 */
pid_t kb_keeper_fork(int *sock);
void kb_keeper_run(int sock, pid_t cmd, int hold) __attribute__((noreturn));

/* One round: `sig` to every descendant of `top`, each pinned by a pidfd
 * and checked to be its parent's child. Returns how many were signalled. */
int kb_tree_signal(pid_t top, int sig);

/* SIGKILL to every descendant of `self` (the caller: a subreaper), round
 * after round, reaping what is re-parented to it, until none is left. */
void kb_tree_kill(pid_t self);

/* The parent pid of `pid` from /proc, -1 when it is gone. */
pid_t kb_parent_of(pid_t pid);

#endif
