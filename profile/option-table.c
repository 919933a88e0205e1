/*
 * profile/option-table.c — the option table itself, kb_options[]
 * (options.h): one row per knob, its flag, INI key, JSON key, setter
 * (profile/options.c, through options-int.h), widest grant lifetime,
 * project rule, completion kind, JSON encoding, whether retry replays it,
 * and its --help text. Data only.
 */
#include <stddef.h>

#include "options-int.h"
#include "policy.h"

/* clang-format off */
const struct kb_option kb_options[KB_OPT__N] = {
	[KB_OPT_WRITE] = {
		.id = KB_OPT_WRITE, .flag = "write", .shortopt = 'w',
		.negflag = NULL, .metavar = "DIR",
		.sections = KB_IN_SANDBOX | KB_IN_GRANT, .key = "write_paths", .json = "write_paths",
		.max_life = KB_LIFE_WORKSPACE, .project = KB_PROJECT_NO, .type = KB_T_LIST,
		.set = kb_optset_write,
		.complete = KB_COMPLETE_DIR, .json_enc = KB_JSON_ROOTS,
		.field = offsetof(struct kb_policy, write), .count = offsetof(struct kb_policy, nwrite),
		.retry = KB_RETRY_YES,
		.help = "also make DIR writable (repeatable, at most 16)",
		.neghelp = NULL,
	},
	[KB_OPT_WORKSPACE] = {
		.id = KB_OPT_WORKSPACE, .flag = "workspace", .shortopt = 0,
		.negflag = NULL, .metavar = "DIR",
		.sections = 0, .key = NULL, .json = "workspace",
		.max_life = KB_LIFE_NEVER, .project = KB_PROJECT_NO, .type = KB_T_VALUE,
		.set = kb_optset_workspace,
		/* retry passes the record's workspace itself */
		.complete = KB_COMPLETE_DIR, .json_enc = KB_JSON_STRING,
		.field = offsetof(struct kb_policy, workspace),
		.retry = KB_RETRY_NO,
		.help = "DIR is the workspace (default: the current\n"
		    "directory), which holds the current directory;\n"
		    "the command runs in the current directory",
		.neghelp = NULL,
	},
	[KB_OPT_CHDIR] = {
		.id = KB_OPT_CHDIR, .flag = "directory", .shortopt = 'C',
		.negflag = NULL, .metavar = "DIR",
		.sections = 0, .key = NULL, .json = NULL,
		.max_life = KB_LIFE_NEVER, .project = KB_PROJECT_NO, .type = KB_T_CLI,
		.set = NULL,
		.complete = KB_COMPLETE_DIR, .json_enc = KB_JSON_NONE,
		.retry = KB_RETRY_NO,
		.help = "change to DIR first (as git -C, make -C), which\n"
		    "is then the workspace and the command's\n"
		    "directory; -C a -C b is a/b",
		.neghelp = NULL,
	},
	[KB_OPT_READ_ONLY] = {
		.id = KB_OPT_READ_ONLY, .flag = "read-only", .shortopt = 0,
		.negflag = NULL, .metavar = NULL,
		/* a project file may set it: it only tightens; never a
		 * grant (a grant permits, and read-only permits less) */
		.sections = KB_IN_SANDBOX, .key = "mode", .json = "read_only",
		.max_life = KB_LIFE_NEVER, .project = KB_PROJECT_ON_ONLY, .type = KB_T_SWITCH,
		.set = kb_optset_mode,
		.complete = KB_COMPLETE_NONE, .json_enc = KB_JSON_SWITCH,
		.field = offsetof(struct kb_policy, read_only),
		.retry = KB_RETRY_YES,
		.help = "write nothing: the workspace and every root\n"
		    "read-only; only the private /tmp and the caches\n"
		    "take writes, all discarded (not with --write)",
		.neghelp = NULL,
	},
	[KB_OPT_NET] = {
		.id = KB_OPT_NET, .flag = "net", .shortopt = 0,
		.negflag = "no-net", .metavar = NULL,
		.sections = KB_IN_SANDBOX | KB_IN_GRANT, .key = "network", .json = "network",
		.max_life = KB_LIFE_WORKSPACE, .project = KB_PROJECT_OFF_ONLY, .type = KB_T_SWITCH,
		.set = kb_optset_bool,
		.complete = KB_COMPLETE_NONE, .json_enc = KB_JSON_SWITCH,
		.field = offsetof(struct kb_policy, net),
		.retry = KB_RETRY_YES,
		.help = "give the command the host network",
		.neghelp = "no network, loopback only (the default)",
	},
	[KB_OPT_BACKEND] = {
		.id = KB_OPT_BACKEND, .flag = "backend", .shortopt = 0,
		.negflag = NULL, .metavar = "NAME",
		.sections = KB_IN_SANDBOX, .key = "backend", .json = NULL,
		.max_life = KB_LIFE_NEVER, .project = KB_PROJECT_NO, .type = KB_T_VALUE,
		.set = kb_optset_backend,
		.complete = KB_COMPLETE_BACKEND, .json_enc = KB_JSON_NONE,
		.retry = KB_RETRY_NO,
		.help = "auto (default: bwrap, else landlock where\n"
		    "bwrap cannot make its namespaces), bwrap or\n"
		    "landlock; each fails closed (seatbelt: macOS)",
		.neghelp = NULL,
	},
	[KB_OPT_SSH_AGENT] = {
		.id = KB_OPT_SSH_AGENT, .flag = "ssh-agent", .shortopt = 0,
		.negflag = NULL, .metavar = NULL,
		.sections = KB_IN_GRANT, .key = "ssh_agent", .json = "ssh_agent",
		.max_life = KB_LIFE_WORKSPACE, .project = KB_PROJECT_NO, .type = KB_T_SWITCH,
		.set = kb_optset_bool,
		.complete = KB_COMPLETE_NONE, .json_enc = KB_JSON_SWITCH,
		.field = offsetof(struct kb_policy, ssh_agent),
		.retry = KB_RETRY_YES,
		.help = "expose the SSH agent socket and public ~/.ssh\n"
		    "files (needs --net); private keys stay hidden",
		.neghelp = NULL,
	},
	[KB_OPT_ALLOW_SOCKET] = {
		.id = KB_OPT_ALLOW_SOCKET, .flag = "allow-socket", .shortopt = 0,
		.negflag = NULL, .metavar = "PATH",
		.sections = KB_IN_SANDBOX | KB_IN_GRANT, .key = "allow_sockets", .json = "allow_sockets",
		/* never from the project file: the command writes it */
		.max_life = KB_LIFE_WORKSPACE, .project = KB_PROJECT_NO, .type = KB_T_LIST,
		.set = kb_optset_allow_socket,
		.complete = KB_COMPLETE_FILE, .json_enc = KB_JSON_PATHS,
		.field = offsetof(struct kb_policy, allow_socket), .count = offsetof(struct kb_policy, nallow_socket),
		.retry = KB_RETRY_YES,
		.help = "also let the command connect to the unix socket\n"
		    "PATH (repeatable; the command's own sockets in\n"
		    "writable roots need none)",
		.neghelp = NULL,
	},
	[KB_OPT_ALLOW_HOST] = {
		.id = KB_OPT_ALLOW_HOST, .flag = "allow-host", .shortopt = 0,
		.negflag = NULL, .metavar = "HOST[:PORT]",
		.sections = KB_IN_NETWORK | KB_IN_GRANT, .key = "allowed_hosts", .json = "allowed_hosts",
		/* never from the project file: the command writes it, and a
		 * host it reaches is a way out for what it read */
		.max_life = KB_LIFE_WORKSPACE, .project = KB_PROJECT_NO, .type = KB_T_LIST,
		.set = kb_optset_allow_host,
		/* a name kinbox cannot guess: nothing to complete */
		.complete = KB_COMPLETE_NONE, .json_enc = KB_JSON_HOSTS,
		.field = offsetof(struct kb_policy, allow_host), .count = offsetof(struct kb_policy, nallow_host),
		.retry = KB_RETRY_YES,
		.help = "let the command reach HOST (port 443 unless\n"
		    "given) through kinbox's proxy, and no other\n"
		    "host (repeatable; exclusive with --net)",
		.neghelp = NULL,
	},
	[KB_OPT_DEVICE] = {
		.id = KB_OPT_DEVICE, .flag = "device", .shortopt = 0,
		.negflag = NULL, .metavar = "PATH",
		.sections = KB_IN_SANDBOX | KB_IN_GRANT, .key = "devices", .json = "devices",
		/* never from the project file: a device is a way past every
		 * file rule (a GPU's memory, a disk) */
		.max_life = KB_LIFE_WORKSPACE, .project = KB_PROJECT_NO, .type = KB_T_LIST,
		.set = kb_optset_device,
		.complete = KB_COMPLETE_FILE, .json_enc = KB_JSON_PATHS,
		.field = offsetof(struct kb_policy, device), .count = offsetof(struct kb_policy, ndevice),
		.retry = KB_RETRY_YES,
		.help = "bind the character device PATH (or a directory\n"
		    "of them, /dev/dri) read-write at the same path\n"
		    "(repeatable; block devices are refused)",
		.neghelp = NULL,
	},
	[KB_OPT_GPU] = {
		.id = KB_OPT_GPU, .flag = "gpu", .shortopt = 0,
		.negflag = NULL, .metavar = NULL,
		.sections = KB_IN_SANDBOX | KB_IN_GRANT, .key = "gpu", .json = "gpu",
		.max_life = KB_LIFE_WORKSPACE, .project = KB_PROJECT_NO, .type = KB_T_SWITCH,
		.set = kb_optset_bool,
		.complete = KB_COMPLETE_NONE, .json_enc = KB_JSON_SWITCH,
		.field = offsetof(struct kb_policy, gpu),
		.retry = KB_RETRY_YES,
		.help = "bind the GPU device nodes found at run time\n"
		    "(NVIDIA, /dev/dri, /dev/kfd); none found: refused",
		.neghelp = NULL,
	},
	[KB_OPT_KEYCHAIN] = {
		.id = KB_OPT_KEYCHAIN, .flag = "keychain", .shortopt = 0,
		.negflag = NULL, .metavar = NULL,
		/* the caller's own choice: never granted, never the project's */
		.sections = KB_IN_SANDBOX, .key = "keychain", .json = NULL,
		.max_life = KB_LIFE_NEVER, .project = KB_PROJECT_NO, .type = KB_T_SWITCH,
		.set = kb_optset_bool,
		.complete = KB_COMPLETE_NONE, .json_enc = KB_JSON_NONE,
		.retry = KB_RETRY_NO,
		.help = "seatbelt (macOS): let the command reach the login\n"
		    "keychain (securityd, ~/Library/Keychains)",
		.neghelp = NULL,
	},
	[KB_OPT_KEEP_ENV] = {
		.id = KB_OPT_KEEP_ENV, .flag = "keep-env", .shortopt = 0,
		.negflag = NULL, .metavar = "NAME",
		.sections = KB_IN_SANDBOX, .key = "keep_env", .json = "keep_env",
		.max_life = KB_LIFE_NEVER, .project = KB_PROJECT_NO, .type = KB_T_LIST,
		.set = kb_optset_env_name,
		.complete = KB_COMPLETE_ENV, .json_enc = KB_JSON_NAMES,
		.field = offsetof(struct kb_policy, keep_env),
		.retry = KB_RETRY_YES,
		.help = "keep variable NAME despite the secret scrub",
		.neghelp = NULL,
	},
	[KB_OPT_KEEP_FD] = {
		.id = KB_OPT_KEEP_FD, .flag = "keep-fd", .shortopt = 0,
		.negflag = NULL, .metavar = "N",
		.sections = 0, .key = NULL, .json = NULL,
		.max_life = KB_LIFE_NEVER, .project = KB_PROJECT_NO, .type = KB_T_LIST,
		.set = kb_optset_keep_fd,
		.complete = KB_COMPLETE_NONE, .json_enc = KB_JSON_NONE,
		.retry = KB_RETRY_NO,
		.help = "keep descriptor N open in the command",
		.neghelp = NULL,
	},
	[KB_OPT_UNCONFINED] = {
		.id = KB_OPT_UNCONFINED, .flag = "unconfined", .shortopt = 0,
		.negflag = NULL, .metavar = NULL,
		.sections = KB_IN_GRANT, .key = "unconfined", .json = "unconfined",
		.max_life = KB_LIFE_SESSION, .project = KB_PROJECT_NO, .type = KB_T_SWITCH,
		.set = kb_optset_bool,
		.complete = KB_COMPLETE_NONE, .json_enc = KB_JSON_SWITCH,
		.field = offsetof(struct kb_policy, unconfined),
		.retry = KB_RETRY_YES,
		.help = "no sandbox (the escape hatch); secrets are\n"
		    "still scrubbed and descriptors closed",
		.neghelp = NULL,
	},
	[KB_OPT_SCRUB_ENV] = {
		.id = KB_OPT_SCRUB_ENV, .flag = NULL, .shortopt = 0,
		.negflag = NULL, .metavar = NULL,
		.sections = KB_IN_SANDBOX, .key = "scrub_env", .json = NULL,
		.max_life = KB_LIFE_NEVER, .project = KB_PROJECT_ADD, .type = KB_T_LIST,
		.set = kb_optset_env_name,
		.complete = KB_COMPLETE_NONE, .json_enc = KB_JSON_NONE,
		.retry = KB_RETRY_NO,
		.help = NULL,
		.neghelp = NULL,
	},
	[KB_OPT_MASK] = {
		.id = KB_OPT_MASK, .flag = NULL, .shortopt = 0,
		.negflag = NULL, .metavar = NULL,
		.sections = KB_IN_SANDBOX, .key = "mask", .json = NULL,
		.max_life = KB_LIFE_NEVER, .project = KB_PROJECT_ADD, .type = KB_T_LIST,
		.set = kb_optset_mask,
		.complete = KB_COMPLETE_NONE, .json_enc = KB_JSON_NONE,
		.retry = KB_RETRY_NO,
		.help = NULL,
		.neghelp = NULL,
	},
	[KB_OPT_REQUIRE] = {
		.id = KB_OPT_REQUIRE, .flag = "require", .shortopt = 0,
		.negflag = NULL, .metavar = "FEATURES",
		.sections = KB_IN_SANDBOX, .key = "require", .json = NULL,
		.max_life = KB_LIFE_NEVER, .project = KB_PROJECT_ADD, .type = KB_T_LIST,
		.set = kb_optset_require,
		.complete = KB_COMPLETE_FEATURES, .json_enc = KB_JSON_NONE,
		.retry = KB_RETRY_NO,
		.help = "refuse to run on a backend that lacks one of\n"
		    "FEATURES (comma-separated: private-tmp,\n"
		    "pid-namespace, net-namespace, ipc-namespace,\n"
		    "git-guard, unix-sockets, signal-scope,\n"
		    "attr-guard)",
		.neghelp = NULL,
	},
	[KB_OPT_TIMEOUT] = {
		.id = KB_OPT_TIMEOUT, .flag = "timeout", .shortopt = 0,
		.negflag = NULL, .metavar = "DURATION",
		.sections = KB_IN_SANDBOX, .key = "timeout", .json = NULL,
		/* a project file may set it: a timeout only tightens (the
		 * setter keeps the shorter one) */
		.max_life = KB_LIFE_NEVER, .project = KB_PROJECT_ADD, .type = KB_T_VALUE,
		.set = kb_optset_duration,
		.complete = KB_COMPLETE_NONE, .json_enc = KB_JSON_NONE,
		.retry = KB_RETRY_NO,
		.help = "stop the whole sandbox after DURATION (30s,\n"
		    "10m, 1h): SIGTERM, SIGKILL after --kill-after;\n"
		    "exit 124",
		.neghelp = NULL,
	},
	[KB_OPT_KILL_AFTER] = {
		.id = KB_OPT_KILL_AFTER, .flag = "kill-after", .shortopt = 0,
		.negflag = NULL, .metavar = "DURATION",
		.sections = 0, .key = NULL, .json = NULL,
		.max_life = KB_LIFE_NEVER, .project = KB_PROJECT_NO, .type = KB_T_VALUE,
		.set = kb_optset_duration,
		.complete = KB_COMPLETE_NONE, .json_enc = KB_JSON_NONE,
		.retry = KB_RETRY_NO,
		.help = "after --timeout's SIGTERM, SIGKILL what is left\n"
		    "after DURATION (default 5s)",
		.neghelp = NULL,
	},
	[KB_OPT_RLIMIT] = {
		.id = KB_OPT_RLIMIT, .flag = "rlimit", .shortopt = 0,
		.negflag = NULL, .metavar = "NAME=VALUE",
		.sections = KB_IN_SANDBOX, .key = "rlimit", .json = NULL,
		/* a project file may set it: a limit is only lowered (the
		 * setter keeps the lower one) */
		.max_life = KB_LIFE_NEVER, .project = KB_PROJECT_ADD, .type = KB_T_LIST,
		.set = kb_optset_rlimit,
		.complete = KB_COMPLETE_NONE, .json_enc = KB_JSON_NONE,
		.retry = KB_RETRY_NO,
		.help = "limit the command (repeatable): as, core, fsize\n"
		    "(bytes, k/m/g), cpu (seconds), nofile, nproc\n"
		    "(per user, not per sandbox)",
		.neghelp = NULL,
	},
	[KB_OPT_MEMORY] = {
		.id = KB_OPT_MEMORY, .flag = "memory", .shortopt = 0,
		.negflag = NULL, .metavar = "SIZE",
		.sections = KB_IN_SANDBOX, .key = "memory", .json = NULL,
		/* a project file may set it: a budget only tightens (the
		 * lower one is kept, never a higher: kb_policy_memory) */
		.max_life = KB_LIFE_NEVER, .project = KB_PROJECT_ADD, .type = KB_T_VALUE,
		.set = kb_optset_memory,
		.complete = KB_COMPLETE_NONE, .json_enc = KB_JSON_NONE,
		.retry = KB_RETRY_NO,
		.help = "bound the sandbox's memory to SIZE (K, M, G):\n"
		    "its tmpfs mounts (/tmp, /dev/shm, ...) together,\n"
		    "and a cgroup where one can be had (default: a\n"
		    "quarter of RAM, at most 4G)",
		.neghelp = NULL,
	},
	[KB_OPT_SETENV] = {
		.id = KB_OPT_SETENV, .flag = "setenv", .shortopt = 0,
		.negflag = NULL, .metavar = "NAME=VALUE",
		/* flags only: from a project file it would be a way in
		 * (LD_PRELOAD), not a tightening */
		.sections = 0, .key = NULL, .json = NULL,
		.max_life = KB_LIFE_NEVER, .project = KB_PROJECT_NO, .type = KB_T_LIST,
		.set = kb_optset_setenv,
		.complete = KB_COMPLETE_NONE, .json_enc = KB_JSON_NONE,
		.retry = KB_RETRY_NO,
		.help = "set NAME in the command's environment, after\n"
		    "the secret scrub (repeatable)",
		.neghelp = NULL,
	},
	[KB_OPT_CACHE] = {
		.id = KB_OPT_CACHE, .flag = NULL, .shortopt = 0,
		.negflag = NULL, .metavar = NULL,
		.sections = KB_IN_CACHES, .key = NULL, .json = NULL,
		.max_life = KB_LIFE_NEVER, .project = KB_PROJECT_NO, .type = KB_T_VALUE,
		.set = kb_optset_cache,
		.complete = KB_COMPLETE_NONE, .json_enc = KB_JSON_NONE,
		.retry = KB_RETRY_NO,
		.help = NULL,
		.neghelp = NULL,
	},
	[KB_OPT_JSON_FD] = {
		.id = KB_OPT_JSON_FD, .flag = "json-fd", .shortopt = 0,
		.negflag = NULL, .metavar = "N",
		.sections = 0, .key = NULL, .json = NULL,
		.max_life = KB_LIFE_NEVER, .project = KB_PROJECT_NO, .type = KB_T_CLI,
		.set = NULL,
		.complete = KB_COMPLETE_NONE, .json_enc = KB_JSON_NONE,
		.retry = KB_RETRY_NO,
		.help = "write a denial's JSON record to descriptor N\n"
		    "(also KINBOX_JSON_FD)",
		.neghelp = NULL,
	},
	[KB_OPT_DRY_RUN] = {
		.id = KB_OPT_DRY_RUN, .flag = "dry-run", .shortopt = 0,
		.negflag = NULL, .metavar = NULL,
		.sections = 0, .key = NULL, .json = NULL,
		.max_life = KB_LIFE_NEVER, .project = KB_PROJECT_NO, .type = KB_T_CLI,
		.set = NULL,
		.complete = KB_COMPLETE_NONE, .json_enc = KB_JSON_NONE,
		.retry = KB_RETRY_NO,
		.help = "print the plan, with each grant's origin,\n"
		    "and run nothing",
		.neghelp = NULL,
	},
	[KB_OPT_JSON] = {
		.id = KB_OPT_JSON, .flag = "json", .shortopt = 0,
		.negflag = NULL, .metavar = NULL,
		.sections = 0, .key = NULL, .json = NULL,
		.max_life = KB_LIFE_NEVER, .project = KB_PROJECT_NO, .type = KB_T_CLI,
		.set = NULL,
		.complete = KB_COMPLETE_NONE, .json_enc = KB_JSON_NONE,
		.retry = KB_RETRY_NO,
		.help = "with --dry-run: the plan as one JSON object\n"
		    "(backend, argv, notes; seatbelt: profile,\n"
		    "params)",
		.neghelp = NULL,
	},
	[KB_OPT_QUIET] = {
		.id = KB_OPT_QUIET, .flag = "quiet", .shortopt = 'q',
		.negflag = NULL, .metavar = NULL,
		.sections = 0, .key = NULL, .json = NULL,
		.max_life = KB_LIFE_NEVER, .project = KB_PROJECT_NO, .type = KB_T_CLI,
		.set = NULL,
		.complete = KB_COMPLETE_NONE, .json_enc = KB_JSON_NONE,
		.retry = KB_RETRY_NO,
		.help = "no posture line when running unsandboxed",
		.neghelp = NULL,
	},
	[KB_OPT_VERBOSE] = {
		.id = KB_OPT_VERBOSE, .flag = "verbose", .shortopt = 'v',
		.negflag = NULL, .metavar = NULL,
		.sections = 0, .key = NULL, .json = NULL,
		.max_life = KB_LIFE_NEVER, .project = KB_PROJECT_NO, .type = KB_T_CLI,
		.set = NULL,
		.complete = KB_COMPLETE_NONE, .json_enc = KB_JSON_NONE,
		.retry = KB_RETRY_NO,
		.help = "print the plan's summary before running",
		.neghelp = NULL,
	},
	[KB_OPT_STATUS] = {
		.id = KB_OPT_STATUS, .flag = "status", .shortopt = 0,
		.negflag = NULL, .metavar = NULL,
		.sections = 0, .key = NULL, .json = NULL,
		.max_life = KB_LIFE_NEVER, .project = KB_PROJECT_NO, .type = KB_T_CLI,
		.set = NULL,
		.complete = KB_COMPLETE_NONE, .json_enc = KB_JSON_NONE,
		.retry = KB_RETRY_NO,
		.help = "diagnose this machine: the backend auto uses,\n"
		    "what blocks the other, the fixes; --json after\n"
		    "it for JSON; exit 0, or 1 when none works",
		.neghelp = NULL,
	},
	[KB_OPT_HELP] = {
		.id = KB_OPT_HELP, .flag = "help", .shortopt = 'h',
		.negflag = NULL, .metavar = NULL,
		.sections = 0, .key = NULL, .json = NULL,
		.max_life = KB_LIFE_NEVER, .project = KB_PROJECT_NO, .type = KB_T_CLI,
		.set = NULL,
		.complete = KB_COMPLETE_NONE, .json_enc = KB_JSON_NONE,
		.retry = KB_RETRY_NO,
		.help = "this text",
		.neghelp = NULL,
	},
	[KB_OPT_VERSION] = {
		.id = KB_OPT_VERSION, .flag = "version", .shortopt = 0,
		.negflag = NULL, .metavar = NULL,
		.sections = 0, .key = NULL, .json = NULL,
		.max_life = KB_LIFE_NEVER, .project = KB_PROJECT_NO, .type = KB_T_CLI,
		.set = NULL,
		.complete = KB_COMPLETE_NONE, .json_enc = KB_JSON_NONE,
		.retry = KB_RETRY_NO,
		.help = "print the version",
		.neghelp = NULL,
	},
};
/* clang-format on */
