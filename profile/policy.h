/*
 * profile/policy.h — the backend-neutral policy: what the command may write,
 * whether it has network, which fds it keeps, which git metadata is guarded.
 * Data flow: argv (+ config, later) → kb_policy_* setters (with origin) →
 * kb_policy_finalize() → a backend planner (backends/) reads it as const.
 */
#ifndef KB_POLICY_H
#define KB_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "../lib/util.h"

/* the hex digits of a grant block's id (kb_grant_id(), profile/config.h) */
#define KB_GRANT_ID_LEN 16

/* The knobs, one row each of the option table (profile/options.h): the
 * index of a policy's origin[] and where[]. */
enum kb_opt {
	KB_OPT_WRITE,
	KB_OPT_WORKSPACE,
	KB_OPT_CHDIR,     /* -C: kinbox's own (a chdir), not policy */
	KB_OPT_READ_ONLY, /* --read-only, [sandbox] mode = read-only */
	KB_OPT_NET,
	KB_OPT_BACKEND,
	KB_OPT_SSH_AGENT,
	KB_OPT_ALLOW_SOCKET,
	KB_OPT_ALLOW_HOST,
	KB_OPT_DEVICE,
	KB_OPT_GPU,
	KB_OPT_KEYCHAIN,
	KB_OPT_KEEP_ENV,
	KB_OPT_KEEP_FD,
	KB_OPT_UNCONFINED,
	KB_OPT_SCRUB_ENV,
	KB_OPT_MASK,
	KB_OPT_CACHE,
	KB_OPT_REQUIRE,
	KB_OPT_TIMEOUT,
	KB_OPT_KILL_AFTER,
	KB_OPT_RLIMIT,
	KB_OPT_MEMORY,
	KB_OPT_SETENV,
	/* kinbox's own switches: flags only, not policy */
	KB_OPT_JSON_FD,
	KB_OPT_DRY_RUN,
	KB_OPT_JSON,
	KB_OPT_QUIET,
	KB_OPT_VERBOSE,
	KB_OPT_STATUS,
	KB_OPT_HELP,
	KB_OPT_VERSION,
	KB_OPT__N
};

#define KB_MAX_WRITE   16 /* extra write roots (--write) */
#define KB_MAX_SOCKET  16 /* granted sockets (--allow-socket) */
#define KB_MAX_HOST    32 /* allowed egress hosts (--allow-host) */
#define KB_MAX_DEVICE  16 /* --device requests */
#define KB_MAX_DEVNODE 48 /* device nodes bound (a directory, --gpu: many) */
#define KB_MAX_KEEP_FD 16 /* --keep-fd */
#define KB_MAX_GUARD                                                           \
	1024             /* guarded git paths over all roots; past it the      \
			    rest is named as not guarded */
#define KB_MAX_REPOS 256 /* repositories looked into per root */
#define KB_MAX_MASK  96  /* masked and re-exposed paths */

/* Where a grant came from; printed by --dry-run. */
/* In rank order: a later source wins a scalar (profile/options.h). */
enum kb_origin {
	KB_ORIGIN_DEFAULT,
	KB_ORIGIN_SYSTEM,    /* /etc/kinbox/config.ini */
	KB_ORIGIN_GLOBAL,    /* ~/.config/kinbox/config.ini */
	KB_ORIGIN_WORKSPACE, /* a workspace grant in the global config */
	KB_ORIGIN_SESSION,   /* a session grant (KINBOX_SESSION) */
	KB_ORIGIN_FLAG,
	KB_ORIGIN_PROJECT, /* <workspace>/.kinbox.ini: tightening only */
	KB_ORIGIN_ENV,
};

/* How a toolchain cache in the home directory is treated. */
enum kb_cache_mode {
	KB_CACHE_OFF,       /* read-only like the rest of home */
	KB_CACHE_EPHEMERAL, /* the default: writable, warm, writes discarded
			       (an overlay where the kernel allows it, else
			       the cache's fallback in kb_cache_table) */
	KB_CACHE_EMPTY,     /* an empty writable tmpfs, discarded */
	KB_CACHE_PERSISTED, /* the real directory, writable */
};

enum kb_backend_kind {
	KB_BACKEND_AUTO,
	KB_BACKEND_BWRAP,
	KB_BACKEND_LANDLOCK, /* Landlock + seccomp, no namespaces */
	KB_BACKEND_SEATBELT, /* macOS: refused on Linux */
};
#define KB_BACKEND__N 4
/* --backend's word for kind i (auto, bwrap, landlock, seatbelt), or NULL
 * past the last */
const char *kb_backend_name(unsigned i);

/*
 * What a backend may lack (--require, config require =): a run that
 * needs one refuses, with exit 125, instead of running on a backend
 * without it (the landlock backend has none of the first six).
 */
enum kb_feature {
	KB_FEAT_PRIVATE_TMP = 1u << 0,  /* private-tmp */
	KB_FEAT_PID_NS = 1u << 1,       /* pid-namespace */
	KB_FEAT_NET_NS = 1u << 2,       /* net-namespace: a private loopback */
	KB_FEAT_IPC_NS = 1u << 3,       /* ipc-namespace: SysV IPC works */
	KB_FEAT_GIT_GUARD = 1u << 4,    /* git-guard: held during the run */
	KB_FEAT_UNIX_SOCKETS = 1u << 5, /* unix-sockets: the command's own */
	KB_FEAT_SIGNAL_SCOPE = 1u << 6, /* signal-scope: none sent outside */
	KB_FEAT_ATTR_GUARD = 1u << 7,   /* attr-guard: the mode, times and
					   xattrs of what lies outside the
					   writable roots unchangeable */
};
#define KB_FEAT__N 8
/* the name of bit i (--require's word), or NULL */
const char *kb_feature_name(unsigned i);
/* the bits of a comma-separated list; -1 on an unknown word (*bad is
 * then a new string naming it) */
int kb_feature_parse(const char *list, unsigned *bits, char **bad);

/*
 * --rlimit NAME=VALUE: the resource limits kinbox-exec sets on the
 * command just before it execs it (firejail's --rlimit-* names). Only
 * lowered: a value above the inherited hard limit keeps that limit.
 */
enum kb_rlim {
	KB_RLIM_AS,     /* address space, bytes */
	KB_RLIM_CORE,   /* core file size, bytes */
	KB_RLIM_CPU,    /* CPU time, seconds */
	KB_RLIM_FSIZE,  /* size of a file written, bytes */
	KB_RLIM_NOFILE, /* open descriptors */
	KB_RLIM_NPROC,  /* processes of the user: per user, not per sandbox */
};
#define KB_RLIM__N 6
/* the name of limit i ("as", ..., "nproc"), or NULL past the last */
const char *kb_rlim_name(unsigned i);

struct kb_root {
	char *path; /* canonical (realpath) */
	enum kb_origin origin;
	int fd; /* O_PATH, opened without following symlinks at finalize:
		   the bind source (-1 before) */
};

/*
 * A path a grant names, recorded by its setter as given, once per path,
 * with its origin and where it was said ("--allow-socket", "file:line" or
 * NULL): a unix socket the command may connect to (--allow-socket,
 * allow_sockets =), which kb_policy_finalize() judges on the host and
 * leaves only the granted ones, canonical; a device it may use (--device,
 * devices =), which kb_policy_finalize() judges by descriptor
 * (profile/devices.c) and turns, with --gpu, into p->dev.
 */
struct kb_pathgrant {
	char *path;
	enum kb_origin origin;
	char *where;
};

/*
 * A device node bound into the sandbox, read-write: judged on the host at
 * finalize and held open (O_PATH, never followed through a symlink), so
 * that what is mounted is the node that was judged.
 */
struct kb_devnode {
	char *path; /* where kinbox found it, canonical */
	char *dest; /* where the command finds it (path, or /dev/... for a
		       --gpu node of the test build's scan root) */
	int fd;     /* O_PATH on the node: the bind source */
	dev_t rdev;
	bool block;
	enum kb_origin origin;
	int by; /* KB_OPT_DEVICE or KB_OPT_GPU */
};

/*
 * A host the command may reach through kinbox's egress proxy
 * (--allow-host HOST[:PORT], [network] allowed_hosts =): a DNS name,
 * checked and canonical (lower case, no trailing dot) by the setter, and
 * a port (443 unless given). Exact: github.com does not allow
 * api.github.com.
 */
struct kb_hostgrant {
	char *name;
	unsigned port;
	enum kb_origin origin;
	char *where; /* "--allow-host", "file:line" or NULL */
};

/*
 * One guarded piece of git metadata. The sandbox must keep `path` from being
 * written, replaced, renamed or created (see gitguard/scan.c).
 */
enum kb_guard_kind {
	KB_GUARD_PIN_DIR, /* writable dir that must not be renamed away: .git */
	KB_GUARD_RO,      /* existing file or dir: read-only */
	KB_GUARD_RO_ABSENT_DIR, /* missing dir (hooks): must stay uncreatable */
	KB_GUARD_RO_ABSENT_FILE, /* missing file (config): must stay uncreatable
				  */
	KB_GUARD_WATCH_ABSENT,   /* missing file git would obey (commondir,
				    config.worktree): removed if planted */
	KB_GUARD_WATCH_LINK,     /* a symlink git follows (.git, hooks): a mount
				    cannot pin it, so it is restored after the run
				  */
	KB_GUARD_WATCH_NEWREPO,  /* no .git at a root: a repo the command
				    creates is disarmed after the run */
	KB_GUARD_WATCH_INDEX,    /* a checkout's index: when it changed, the
				    repositories it gitlinks are inspected */
};

/*
 * Every guard lies below one of the policy's writable roots (elsewhere the
 * host is read-only already) and is found again after the run by walking
 * `rel` from that root without following symlinks.
 */
struct kb_guard {
	char *path;       /* absolute: the mount point and the name shown */
	const char *root; /* the writable root it lies in (borrowed) */
	char *rel;        /* below root, "a/b/.git/hooks" */
	enum kb_guard_kind kind;
	int fd;    /* O_PATH on what was checked (PIN, RO): the bind
		      source, so that what is mounted is what was
		      checked; -1 otherwise */
	dev_t dev; /* identity at scan time */
	ino_t ino;
	mode_t type; /* S_IFMT bits at scan time, 0 when absent */
	struct timespec mtime, ctime; /* at scan time */
	char *link;   /* a symlink's target, restored after the run */
	bool include; /* on the way to a config file git includes (not a
			 git dir): what cannot be put back after the run
			 is moved aside, so that git reads nothing there */
};

/* What is hidden from the command, and what is shown again inside it. */
enum kb_mask_kind {
	KB_MASK_TREE, /* socket tree (/run): empty dir, before the roots */
	KB_MASK_DIR,  /* credential dir: empty, after the roots */
	KB_MASK_FILE, /* credential file or socket: empty, after the roots */
	KB_EXPOSE_RO, /* src shown read-only at path inside a mask */
	KB_EXPOSE_SOCKET, /* a granted socket (--ssh-agent, --allow-socket),
			     connectable */
	KB_CACHE_COW,     /* an ephemeral cache: the backend makes it a
			     copy-on-write overlay (or the fallback) */
	KB_CACHE_TMPFS,   /* an empty cache: empty, writable, discarded */
	KB_CACHE_BIND,    /* a persisted cache: the real directory, writable */
};

struct kb_mask {
	char *path;
	char *src; /* KB_EXPOSE_*: the host file; else NULL */
	enum kb_mask_kind kind;
	int cache; /* KB_CACHE_*: its index in kb_cache_table, else -1 */
	/* KB_EXPOSE_SOCKET: the socket's identity when it was judged (stat
	 * of the canonical path), so that what the command reaches can be
	 * told from a socket put in its place; 0 otherwise */
	dev_t dev;
	ino_t ino;
	int by; /* KB_EXPOSE_SOCKET: the grant, KB_OPT_SSH_AGENT or
		   KB_OPT_ALLOW_SOCKET; -1 otherwise */
};

/*
 * A grant block this run applied (a session file's [grant], the global
 * config's [workspace] for this workspace), as the one reader saw it:
 * the stores are read again against these when kinpolicy revoke asks
 * (profile/runs.h), and their ids name them in the run registry.
 */
struct kb_grant_used {
	char *file;    /* the store it lies in */
	char *section; /* "grant" or "workspace" */
	char *body;    /* its key = value lines (kb_grant_blocks' form) */
	char id[KB_GRANT_ID_LEN + 1]; /* kb_grant_id() */
	enum kb_origin origin;        /* KB_ORIGIN_SESSION, _WORKSPACE */
};

struct kb_policy {
	char *workspace; /* canonical */
	char *cwd;       /* canonical; where the command starts */
	char *home;      /* canonical home directory (may be NULL) */
	struct kb_root write[KB_MAX_WRITE];
	size_t nwrite;
	bool net;
	int workspace_fd, tmpdir_fd; /* O_PATH bind sources, as kb_root.fd */
	char *tmpdir; /* canonical writable $TMPDIR outside /tmp, or NULL */
	char *tmpdir_private; /* $TMPDIR under /tmp: made in the private /tmp */
	bool tmpdir_reset; /* $TMPDIR refused: the command gets TMPDIR=/tmp */
	int keep_fd[KB_MAX_KEEP_FD];
	size_t nkeep;
	bool ssh_agent; /* expose SSH_AUTH_SOCK and public ~/.ssh files */
	struct kb_pathgrant allow_socket[KB_MAX_SOCKET]; /* in rank order */
	size_t nallow_socket;
	/* the egress allow-list; used only while p->net is off (the two
	 * are exclusive: kb_options_validate) */
	struct kb_hostgrant allow_host[KB_MAX_HOST]; /* in rank order */
	size_t nallow_host;
	bool unconfined; /* the escape hatch: no sandbox, still scrubbed */
	/* --read-only, mode = read-only: nothing of the host is writable,
	 * the workspace neither; only the private /tmp and the caches
	 * (ephemeral) take writes, all discarded. kb_policy_roots() then
	 * names no root; where[KB_OPT_READ_ONLY] says who set it. */
	bool read_only;
	struct kb_pathgrant device[KB_MAX_DEVICE]; /* in rank order */
	size_t ndevice;
	bool gpu;      /* --gpu: the GPU nodes found at finalize */
	bool keychain; /* --keychain: seatbelt reaches the login keychain */
	const char *gpu_root;     /* where --gpu looks: NULL is /dev (the test
				     build's kb_test_dev_root() otherwise) */
	const char *proc_devices; /* where the drivers' majors are read: NULL
				     is /proc/devices (the test build's
				     kb_test_proc_devices() otherwise) */
	struct kb_devnode dev[KB_MAX_DEVNODE]; /* after finalize */
	size_t ndev;
	/* per knob of the option table (profile/options.h): who set the
	 * scalar last and where ("--net", "file:line"); what a switch's flag
	 * said (-1: not typed) */
	enum kb_origin origin[KB_OPT__N];
	char *where[KB_OPT__N];
	signed char typed[KB_OPT__N];
	struct kb_strv keep_env;  /* names kept despite the secret table */
	struct kb_strv scrub_env; /* extra names or fnmatch patterns scrubbed */
	struct kb_strv extra_mask;   /* extra paths to hide (config) */
	enum kb_cache_mode cache[8]; /* by index in kb_cache_table */
	struct kb_strv
	    notes; /* config warnings and origins, for -v/--dry-run */
	enum kb_backend_kind backend;
	unsigned require; /* enum kb_feature bits */
	struct kb_guard *guard;
	size_t nguard, capguard;
	struct kb_strv gitnotes; /* what the git scan could not guard, and
				    git dirs left read-only: for --dry-run */
	char *gitunsafe;         /* a config file git would read that the scan
				    cannot guard (gitguard/include.c): the run is
				    refused with this line */
	struct kb_mask mask[KB_MAX_MASK];
	size_t nmask;
	struct kb_grant_used *grants; /* in the order read */
	size_t ngrants;
	/* --timeout, --kill-after: seconds (timeout 0: none); the whole
	 * sandbox gets SIGTERM at the timeout, SIGKILL kill_after later */
	long long timeout, kill_after;
	/* --rlimit: limit i applies when rlim_set[i] (bytes, seconds or a
	 * count, as enum kb_rlim says) */
	bool rlim_set[KB_RLIM__N];
	unsigned long long rlim[KB_RLIM__N];
	/* --memory, memory =: the sandbox's memory budget in bytes from the
	 * flag or a config layer (0: the default, kb_memory_default), and
	 * the lowest a project file asked for (0: none) with where it did:
	 * the budget is lowered to it, never raised (kb_policy_memory) */
	unsigned long long memory, memory_cap;
	char *memory_cap_where;
	struct kb_strv setenv;   /* --setenv NAME=VALUE, in the order given */
	char **argv;             /* the command; borrowed from main's argv */
	struct timespec started; /* CLOCK_REALTIME_COARSE at finalize: files
				    changed since are the command's doing */
};

/*
 * The memory budget: every tmpfs the bwrap backend makes is sized so that
 * together they stay within it (backends/memory.c), and a cgroup, where
 * one can be had, gets it as memory.max. The default is a quarter of
 * MemTotal, at most 4 GiB and at least 16 MiB (the least --memory takes),
 * in whole MiB; 4 GiB when MemTotal is unknown (0).
 */
#define KB_MEMORY_MIN         (16ULL << 20)
#define KB_MEMORY_DEFAULT_MAX (4ULL << 30)
unsigned long long kb_memory_default(unsigned long long mem_total);

/* The run's budget: --memory or memory = (else the default for
 * `mem_total`), lowered to a project file's memory = when that is lower.
 * *by (may be NULL) gets what set it: "--memory", "FILE:LINE", or NULL for
 * the default. */
unsigned long long kb_policy_memory(
    const struct kb_policy *, unsigned long long mem_total, const char **by);

/* Initialises `p`; `home` may be NULL (then $HOME/passwd are looked up). */
void kb_policy_init(struct kb_policy *p);
void kb_policy_free(struct kb_policy *p);

/* Setters: return 0, or -1 with a one-line reason (problem; fix) in `e`. */
int kb_policy_set_workspace(
    struct kb_policy *, const char *dir, struct kb_err *e);
int kb_policy_add_write(
    struct kb_policy *, const char *dir, enum kb_origin, struct kb_err *e);
/* ... with `what` naming the source in messages ("--write", "write_paths =") */
int kb_policy_add_write_as(struct kb_policy *, const char *dir, enum kb_origin,
    const char *what, struct kb_err *e);
/* A socket grant: `path` (relative: to the current directory) recorded
 * as given, with its origin and `where` ("--allow-socket", "file:line",
 * copied; may be NULL), once per path (a later source in rank order
 * becomes its origin). Judged by kb_policy_finalize(), which knows the
 * writable roots. `what` names the source in messages ("--allow-socket",
 * "allow_sockets ="). 0, or -1 with `e` (more than KB_MAX_SOCKET). */
int kb_policy_add_socket(struct kb_policy *, const char *path, enum kb_origin,
    const char *where, const char *what, struct kb_err *e);
/* An egress host (profile/hosts.c): `entry` is one HOST[:PORT], judged
 * by kb_host_entry_parse() and recorded canonical with its origin and
 * `where` (copied; may be NULL), once per name and port (a later source
 * in rank order becomes its origin). `what` names the source in messages
 * ("--allow-host", "allowed_hosts ="). 0, or -1 with `e` ("--allow-host
 * localhost: a single-label name is local; ...", or more than
 * KB_MAX_HOST). */
int kb_policy_add_host(struct kb_policy *, const char *entry, enum kb_origin,
    const char *where, const char *what, struct kb_err *e);
/* A device request (--device PATH, devices =), as kb_policy_add_socket:
 * recorded as given, once per path, judged by kb_policy_finalize(). 0, or
 * -1 with `e` (more than KB_MAX_DEVICE). */
int kb_policy_add_device(struct kb_policy *, const char *path, enum kb_origin,
    const char *where, const char *what, struct kb_err *e);
int kb_policy_add_keep_fd(struct kb_policy *, const char *fd, struct kb_err *e);
int kb_policy_add_keep_env(
    struct kb_policy *, const char *name, struct kb_err *e);

/* The current directory and the default workspace (cwd); config loading
 * needs the workspace. Idempotent; kb_policy_finalize() calls it too. */
int kb_policy_resolve_workspace(struct kb_policy *, struct kb_err *e);

/* The writable roots (workspace, $TMPDIR, --write roots) into `out`, which
 * holds KB_MAX_ROOTS; returns how many: none in a read-only run. */
#define KB_MAX_ROOTS (KB_MAX_WRITE + 2)
size_t kb_policy_roots(const struct kb_policy *, const char **out);

/* true when a canonical path lies in the workspace, a write root or the
 * writable $TMPDIR (lexical: no I/O) */
bool kb_policy_within_roots(const struct kb_policy *, const char *canonical);

/* ... or in the private /tmp or a writable cache: everything the command
 * can write in the sandbox (lexical: no I/O) */
bool kb_policy_within_writable(const struct kb_policy *, const char *canonical);

/* The policy's write root that holds the canonical `landing`: the
 * workspace, the writable $TMPDIR or a --write root (kb_policy_roots()
 * order); NULL when none does. Lexical: no I/O. */
const char *kb_policy_root_of(const struct kb_policy *, const char *landing);

/* true when a write to the absolute `path` would land in one of the
 * policy's write roots (kb_resolve_write(), then kb_policy_root_of());
 * false when it cannot be resolved. */
bool kb_policy_writable(const struct kb_policy *, const char *path);

/* Fills defaults (workspace = cwd), resolves $TMPDIR. Call once, after
 * all setters; the git metadata of the workspace and every write root is
 * scanned after it (kb_gitguard_scan_roots, gitguard/gitguard.h). */
int kb_policy_finalize(struct kb_policy *, struct kb_err *e);

const char *kb_origin_name(enum kb_origin);

/* profile/config.c */

/* Calls `warn` with one line for each config key that was ignored. */
typedef void (*kb_warn_fn)(const char *line);

/*
 * The configuration layers in rank order: /etc/kinbox/config.ini, the
 * global config ($XDG_CONFIG_HOME/kinbox/config.ini) with its grant block
 * for this workspace, the session grants of KINBOX_SESSION
 * (kb_config_load_layers); the caller then applies its flags (which so
 * win over these); then the project's .kinbox.ini, which may only tighten
 * (kb_config_load_project). kb_config_load_all is both, for callers
 * without flags. Returns -1 with "file:line: reason; fix" in `e` on a bad
 * file. `etc` overrides /etc/kinbox (tests); NULL for the default. Needs
 * the workspace resolved (kb_policy_resolve_workspace).
 */
int kb_config_load_layers(
    struct kb_policy *, const char *etc, kb_warn_fn warn, struct kb_err *e);
int kb_config_load_project(
    struct kb_policy *, kb_warn_fn warn, struct kb_err *e);
int kb_config_load_all(
    struct kb_policy *, const char *etc, kb_warn_fn warn, struct kb_err *e);

/*
 * kinbox's stores must lie outside what the command may write: refuses
 * (-1, one line naming the problem and the fix in `e`) when the global
 * config ($XDG_CONFIG_HOME/kinbox, ~/.config/kinbox), the session store
 * ($XDG_RUNTIME_DIR/kinbox), the denial journal ($XDG_STATE_HOME/kinbox,
 * ~/.local/state/kinbox) or the system config (/etc/kinbox, or `etc`) lies
 * inside the workspace, a write root, the writable TMPDIR or a persisted
 * cache, lexically or at its real location (the nearest existing ancestor
 * resolved), or when one of those lies inside a store. A command could
 * otherwise plant grants the next run obeys. Judges the roots `p` holds:
 * call it after all config is loaded and again after kb_policy_finalize()
 * (which settles TMPDIR).
 */
int kb_config_check_stores(
    const struct kb_policy *, const char *etc, struct kb_err *e);

/* The store (its label, "~/.config/kinbox") the absolute `path` lies in,
 * lexically, or NULL. A static string. */
const char *kb_config_store_of(const struct kb_policy *, const char *path);
/* ... or the store that lies in the directory `dir` (which kinbox then
 * refuses as a write root), or NULL */
const char *kb_config_store_under(const struct kb_policy *, const char *dir);

/* Paths of the stores, new strings (NULL when unknown). */
char *kb_config_global_path(const char *home);
/* Where sessions live: $XDG_RUNTIME_DIR/kinbox/sessions, else (no
 * runtime directory: containers, ssh, CI) the state store's sessions/
 * ($XDG_STATE_HOME/kinbox or ~/.local/state/kinbox); NULL without either.
 * New strings. */
char *kb_config_session_dir(void);
char *kb_config_session_path(const char *session);

/* profile/env.c */

/* true when the variable name (len bytes) is a secret by the table and
 * none of its exceptions (profile/tables.h: CI run metadata; a region, a
 * profile or a CA certificate path without a secret word in the name) */
bool kb_env_is_secret(const char *name, size_t len);

/* Copies envp into out without the secrets (unless kept by --keep-env or,
 * for SSH_AUTH_SOCK, by --ssh-agent); the removed names go to `removed`
 * (names only, never values) when it is not NULL. */
void kb_env_scrub(const struct kb_policy *, char *const *envp,
    struct kb_strv *out, struct kb_strv *removed);

/* profile/masks.c */

/* Fills p->mask from the tables: only paths that exist are masked. Then
 * the granted sockets: the agent's (--ssh-agent) and each --allow-socket
 * that passes (see kinbox(1)); a typed one that does not is an error, a
 * configured or granted one is dropped with a note (p->notes). Returns
 * -1 with `e` set on a bad --ssh-agent or --allow-socket, or a full
 * table. */
int kb_masks_compute(struct kb_policy *p, struct kb_err *e);

/* profile/devices.c */

/*
 * Judges every --device request and, with --gpu, finds the GPU nodes
 * (below p->gpu_root, else /dev) into p->dev, each opened O_PATH without
 * following a symlink: a character device the caller may read and write
 * (faccessat AT_EACCESS; never opened: opening some devices has side
 * effects), or a directory of them (its device entries, one level; a
 * symlink in it is skipped). Every block device is refused: kinbox cannot
 * tell one that holds a filesystem from one that does not; so is every
 * character device of a refused class (kb_device_class), on the node as
 * found and again on the descriptor held, and a directory that holds
 * either. A typed
 * request that does not hold is an error; a configured or granted one is
 * dropped with a note. --gpu with no node found is an error. 0, or -1
 * with `e`.
 */
int kb_devices_compute(struct kb_policy *p, struct kb_err *e);

/*
 * Whether the character device `rdev` is of a class refused whoever asks,
 * as block devices are: a disk, a keyboard, a console or the machine's
 * memory by another name (SCSI, NVMe and block SCSI generic nodes, tapes,
 * raw flash, input devices, uinput and uhid, the virtual consoles and
 * their memory, the system console, other sessions' pseudo-terminals,
 * /dev/mem, /dev/kmem, /dev/port, CPU MSRs, the CMOS NVRAM, the
 * hibernation snapshot, device DAX, a hardware watchdog). A fixed major
 * is judged by number (and minor); a major the driver took at load time
 * by the driver's name in `proc_devices` (NULL: /proc/devices), read on a
 * descriptor, bounded. 1 with "a SCSI generic node (raw disk access,
 * major 21)" in `buf`; 0 when it is none; -1 when a load-time major's
 * driver cannot be told (/proc/devices unreadable, or no driver holds it
 * now), why in `buf`.
 */
int kb_device_class(
    dev_t rdev, const char *proc_devices, char *buf, size_t len);

/* profile/paths.c */

/* Canonicalises `in` (realpath) and applies the write-root acceptance rules:
 * exists, is a directory, writable by the caller, not "/", not /tmp (the
 * sandbox's /tmp is private; a directory below it is fine), not the home
 * directory or one of its ancestors, not under /proc, /sys or /dev.
 * `what` names the option for the message ("--write", "workspace").
 * Returns a new string (caller frees) or NULL with `e` set. */
char *kb_paths_accept_root(
    const char *in, const char *home, const char *what, struct kb_err *e);

/* true when a canonical path is a .git directory or lies inside one */
bool kb_paths_in_git_metadata(const char *real);

/* The caller's home from /etc/passwd, canonical; new string or NULL. */
char *kb_paths_passwd_home(void);

/* The caller's canonical home directory ($HOME, else passwd), new string or
 * NULL. */
char *kb_paths_home(void);

#endif
