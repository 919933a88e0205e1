/*
 * classify/patterns.c — the message shapes that mean "the sandbox said no",
 * as data: read this file as policy. Phrases are substrings (fast, no
 * regex) matched on one line of stderr; the path or host is then extracted
 * from that line (classify/denial.c). Add a tool here, not in the code.
 */
#include "denial.h"

/* a phrase with no second condition */
#define P(text, reason)                                                        \
	{                                                                      \
		text, reason, NULL, KB_CHECK_NONE, NULL                        \
	}

/* clang-format off */

/* A write outside the writable set: everything there is a read-only mount,
 * so the kernel answers EROFS. */
const struct kb_phrase kb_rofs_phrases[] = {
	P("Read-only file system",     "Read-only file system"), /* libc, Rust */
	P("read-only file system",     "Read-only file system"), /* Node, Go */
	P("EROFS",                     "Read-only file system"),
	P("[Errno 30]",                "Read-only file system"), /* Python */
	P("os error 30",               "Read-only file system"), /* Rust */
	P("errno -30",                 "Read-only file system"), /* npm */
	P("attempt to write a readonly database", "Read-only file system"),
	/* Node's recursive mkdirSync reports the EROFS of a parent as ENOENT
	 * of the leaf; outside the writable set, on a path the caller could
	 * create, that is the sandbox. */
	P("ENOENT: no such file or directory, mkdir", "Read-only file system"),
};
const size_t kb_rofs_count = nitems(kb_rofs_phrases);

/* EACCES/EPERM: a denial only on a path outside the writable set that the
 * caller could write without the sandbox, and with a write verb. */
#define EACCES_P(text)                                                         \
	{                                                                      \
		text, "Permission denied", NULL, KB_CHECK_EACCES, NULL         \
	}
const struct kb_phrase kb_perm_phrases[] = {
	EACCES_P("Permission denied"),
	EACCES_P("permission denied"),
	EACCES_P("EACCES"),
	EACCES_P("[Errno 13]"),
	EACCES_P("os error 13"),
	EACCES_P("AccessDeniedException"),                      /* Java NIO */
	P("Operation not permitted",   "Operation not permitted"),
	P("EPERM",                     "Operation not permitted"),
	P("[Errno 1]",                 "Operation not permitted"),
	P("Unable to (re)create",      "cannot create"),        /* CMake */
	P("isn't writable",            "not writable"),         /* pyenv */
	P("is not writable",           "not writable"),
};
const size_t kb_perm_count = nitems(kb_perm_phrases);

/* Writes that failed, said without an errno: judged as EROFS is (where the
 * path lands decides), and when the message names no path, the path the
 * command was given is judged */
const struct kb_phrase kb_unsaid_phrases[] = {
	P("unable to open database",   "cannot create the database"),
	P("file cannot create directory", "cannot create"),       /* CMake */
	P("could not create leading directories", "cannot create"), /* git */
	P("could not create parent directories", "cannot create"), /* javac */
	P("unable to create temporary object directory", "cannot create"),
	P("Could not create local repository", "cannot create"),  /* Maven */
	P("no writable keyring found", "not writable"),           /* gpg */
	P("trustdb not writable",      "not writable"),           /* gpg */
	P("Failure writing output to destination", "cannot write"), /* curl */
};
const size_t kb_unsaid_count = nitems(kb_unsaid_phrases);

/* EBUSY: renaming onto or removing a mount point, which is how a guarded
 * file (.git/config) answers a rename over it */
const struct kb_phrase kb_busy_phrases[] = {
	P("Device or resource busy",   "a mount point: guarded"),
	P("EBUSY",                     "a mount point: guarded"),
	P("[Errno 16]",                "a mount point: guarded"),
	P("os error 16",               "a mount point: guarded"),
};
const size_t kb_busy_count = nitems(kb_busy_phrases);

/* Words near a message that say the path was a directory being made
 * (so that, when it is missing, it can be made outside and granted) */
const char *const kb_mkdir_words[] = {
	"mkdir", "makedirs", "create directory", "createDirector",
	"MkdirAll", "mkpath", "make_path", "create_dir", "cannot make",
	"mkdir_p",
};
const size_t kb_mkdir_word_count = nitems(kb_mkdir_words);

/* ... and words that say it was a file */
const char *const kb_file_words[] = {
	"touch", "regular file", "cannot create /", "cannot create '",
	"open(", "open '", "fopen", "rb_sysopen", "Failed to open stream",
	"file_put_contents", "writeFile", "open ",
};
const size_t kb_file_word_count = nitems(kb_file_words);

const char *const kb_write_verbs[] = {
	"cannot touch", "cannot create", "cannot make", "cannot remove",
	"cannot move", "cannot overwrite", "failed to create", "cannot mkdir",
	"could not create", "could not lock", "could not write",
	"cannot open output", "opening output", "unable to create",
	"unable to open database", "mkdir", "open '", "rename", "unlink",
	"rmdir", "copyfile", "symlink", "Could not install", "write",
	"(re)create", "isn't writable", "is not writable", "can't create",
	"Failed to open stream", "Cannot open", "Cannot create",
	"administrative privileges", "leading directories",
	"parent directories", "temporary object directory",
	"local repository", "writable keyring", "open(", "mkstemp",
};
const size_t kb_write_verb_count = nitems(kb_write_verbs);

/* Name resolution and routing fail in the private network namespace. */
const struct kb_phrase kb_net_phrases[] = {
	P("Could not resolve host",              "no network"), /* curl, git */
	P("Could not resolve hostname",          "no network"), /* ssh */
	P("Couldn't resolve host",               "no network"), /* cargo */
	P("Temporary failure in name resolution", "no network"),
	P("Name or service not known",           "no network"),
	P("Network is unreachable",              "no network"),
	P("ENETUNREACH",                         "no network"),
	P("[Errno 101]",                         "no network"),
	P("getaddrinfo ENOTFOUND",               "no network"), /* node */
	P("getaddrinfo EAI_AGAIN",               "no network"),
	P("EAI_AGAIN",                           "no network"),
	P("ENOTFOUND",                           "no network"),
	P("NewConnectionError",                  "no network"), /* pip */
	P("unable to resolve host address",      "no network"), /* wget */
	P("failed to lookup address information", "no network"), /* Rust */
	P("no such host",                        "no network"), /* Go */
	P("Resolving timed out",                 "no network"),
	P("nodename nor servname",               "no network"),
	P("No address associated with hostname", "no network"),
	P("Failed to establish a new connection", "no network"),
	/* curl to an address: no route, or a server on the host's loopback,
	 * which the private network namespace does not share */
	P("Couldn't connect to server",          "no network"),
	P("network is unreachable",              "no network"), /* Go */
	P("Bad hostname",                        "no network"), /* Perl */
	P("bad address",                         "no network"), /* BusyBox */
	P("java.net.ConnectException",           "no network"),
	P("java.net.UnknownHostException",       "no network"),
	P("java.net.NoRouteToHostException",     "no network"),
	P("Cannot connect to the Docker daemon at tcp://", "no network"),
	/* pip, when the index cannot be reached and it does not retry */
	P("(from versions: none)",               "no network"),
	P("you are in the offline mode",         "no network (cargo offline)"),
	/* refused on loopback: without the network the sandbox has a
	 * loopback of its own, where the host's servers are not; only when
	 * the line names an address or port (not a unix socket) */
	{ "Connection refused", "no network (the host's loopback is not "
	  "shared)", NULL, KB_CHECK_INET, NULL },
	{ "connection refused", "no network (the host's loopback is not "
	  "shared)", NULL, KB_CHECK_INET, NULL },
	{ "ECONNREFUSED", "no network (the host's loopback is not shared)",
	  NULL, KB_CHECK_INET, NULL },
	/* the offline modes kinbox sets when the network is off
	 * (kb_offline_env_table): what they say when the cache lacks it */
	P("cache mode is 'only-if-cached'",      "no network (npm offline)"),
	P("--offline was specified",             "no network (cargo offline)"),
	P("Network connectivity is disabled",    "no network (uv offline)"),
};
const size_t kb_net_count = nitems(kb_net_phrases);

/* The agent socket and ~/.ssh are hidden without --ssh-agent. */
const struct kb_phrase kb_ssh_phrases[] = {
	P("Permission denied (publickey",        "no SSH agent"),
	P("Could not open a connection to your authentication agent",
	                                         "no SSH agent"),
	P("Error connecting to agent",           "no SSH agent"),
	P("Host key verification failed",        "no known_hosts"),
	P("no such identity",                    "no SSH key"),
	P("agent refused operation",             "no SSH agent"),
	P("sign_and_send_pubkey: signing failed", "no SSH agent"),
	P("unknown SSH host key",                "no known_hosts"), /* cargo */
	P("is not known and cannot be validated", "no known_hosts"),
};
const size_t kb_ssh_count = nitems(kb_ssh_phrases);

/* Denials no granular grant lifts: hidden host sockets (docker, D-Bus),
 * nested namespaces, refused system calls. */
const struct kb_phrase kb_other_phrases[] = {
	{ "Cannot connect to the Docker daemon at unix://",
	  "host socket hidden", NULL, KB_CHECK_SOCKET, NULL },
	{ "Failed to connect to bus",            "host socket hidden", NULL,
	  KB_CHECK_HOST, "/run/dbus/system_bus_socket:$XDG_RUNTIME_DIR/bus" },
	P("Creating new namespace failed",       "nested sandbox refused"),
	P("unshare failed",                      "nested sandbox refused"),
	P("newuidmap",                           "nested sandbox refused"),
	P("io_uring_setup",                      "system call refused"),
	/* ids outside the user namespace's map: only root outside could */
	{ "changing ownership",  "user or group not mapped in the sandbox",
	  "Invalid argument", KB_CHECK_NONE, NULL },
	/* the seccomp filter refuses setuid/setgid modes; the owner of a
	 * file may otherwise always chmod it */
	{ "changing permissions", "setuid/setgid modes refused",
	  "Operation not permitted", KB_CHECK_OWNED, NULL },
	/* Landlock: an abstract unix socket of the host */
	{ "connect(",            "host socket refused",
	  "Operation not permitted", KB_CHECK_NONE, NULL },
};
const size_t kb_other_count = nitems(kb_other_phrases);

/* Failures that, on a path the sandbox hides (/run, a credential store),
 * are the hiding's doing. */
const struct kb_phrase kb_fail_phrases[] = {
	P("No such file or directory", "a hidden path"),
	P("Connection refused",        "a hidden path"),
	P("Couldn't connect",          "a hidden path"),
	P("Permission denied",         "a hidden path"),
	P("Operation not permitted",   "a hidden path"),
	P("Not a directory",           "a hidden path"),
};
const size_t kb_fail_count = nitems(kb_fail_phrases);

/* Lines that report a consequence, not a failure: a tool that carries on
 * without its cache or its log is not stopped by it */
const char *const kb_benign_phrases[] = {
	"The cache has been disabled",              /* pip */
	"Log files were not written due to an error", /* npm */
};
const size_t kb_benign_count = nitems(kb_benign_phrases);

/* Words that say a name is a temporary one the tool made up (mkstemp):
 * what was refused is its directory */
const char *const kb_temp_words[] = {
	"temporary", "mkstemp", "temp name", "tempfile", "TemporaryFile",
	"mkdtemp", "tmpfile",
	"via template", /* mktemp: "failed to create file via template" */
};
const size_t kb_temp_word_count = nitems(kb_temp_words);

/* Tools whose relative paths are relative to a directory given in argv
 * ("tar -C /etc", "make -C dir", "git -C dir"); make also announces it
 * ("Entering directory"). */
const struct kb_chdir_flag kb_chdir_flags[] = {
	{ "tar",  "-C" }, { "tar",  "--directory" },
	{ "make", "-C" }, { "make", "--directory" },
	{ "git",  "-C" },
	{ "cpio", "-D" }, { "cpio", "--directory" },
};
const size_t kb_chdir_flag_count = nitems(kb_chdir_flags);

/* Words that end a verb phrase, never a file name ("tar: x: Cannot open"). */
const char *const kb_not_a_name[] = {
	"open", "mkdir", "create", "write", "remove", "touch", "stat", "link",
	"unlink", "rename", "chmod", "chown", "utime", "read", "directory",
	"file", "access", "lock",
	/* labels tools put before a message ("gpg: Note: ...") */
	"note", "warning", "error", "fatal", "hint", "info", "notice",
	"failed", "denied", "refused",
};
const size_t kb_not_a_name_count = nitems(kb_not_a_name);

/*
 * The landlock backend (no namespaces). With the network off Landlock
 * refuses every TCP connect and bind, and seccomp every socket() of
 * another family (UDP, MPTCP, ...), so that no name lookup can leave;
 * socket(AF_UNIX) is refused with the network on too. All of them answer
 * EACCES, which here is a socket call's, not a file's: these words, on the
 * line of the permission phrase (or, when it names no path, in the few
 * lines above it: a Python traceback), say a socket call failed.
 */
const char *const kb_socket_call_words[] = {
	"connect(", "connect:", "connect to ", "Connecting to ",
	"connecting to ", "connection to ", "Connection to ",
	"can't connect", "trying to connect", "tcp connect",
	"connect EACCES", "TCP connection", "bind(", "bind:", "listen tcp",
	"listen EACCES", "socket(", "socket:", "socket.__init__",
	"could not create socket", "dial tcp", "dial udp", "dial unix",
	"IO::Socket", "java.net.BindException", "java.net.SocketException",
	"java.net.ConnectException", "NewConnectionError", "urlopen error",
};
const size_t kb_socket_call_word_count = nitems(kb_socket_call_words);

/* ... and so does a URL on a line that names no file ("file_get_contents(
 * http://127.0.0.1/): Failed to open stream: Permission denied") */
const char *const kb_url_schemes[] = {
	"http://", "https://", "ftp://", "ws://", "wss://",
};
const size_t kb_url_scheme_count = nitems(kb_url_schemes);

/* ... and these, on those lines, up the traceback, or in the command's
 * words, that the socket was a unix one (which no grant of this backend
 * allows: Landlock cannot tell one unix socket from another); so does a
 * path on the socket call's own line ("on socket \"/run/x/.s.PGSQL\"",
 * "connect EACCES /tmp/x.sock") */
const char *const kb_unix_socket_words[] = {
	"AF_UNIX", "AF_LOCAL", "AF=1 ", "socket(1,", "dial unix", "unix://",
	"UNIX-CONNECT", "UNIX-LISTEN", "UNIX-CLIENT", "UNIX-SENDTO",
	"--unix-socket", "unix socket", "Unix socket", "UNIX socket",
	"UNIXSocket", "multiprocessing",
};
const size_t kb_unix_socket_word_count = nitems(kb_unix_socket_words);

/* SysV IPC and POSIX message queues: refused by the landlock backend's
 * seccomp filter (EPERM), since there is no IPC namespace to make them
 * private; only judged under that backend */
#define LL_IPC(text, reason)                                                   \
	{                                                                      \
		text, reason, "Operation not permitted", KB_CHECK_NONE, NULL   \
	}
const struct kb_phrase kb_landlock_ipc_phrases[] = {
	LL_IPC("shared memory segment",  "SysV IPC refused (landlock backend)"),
	LL_IPC("create share memory",    "SysV IPC refused (landlock backend)"),
	LL_IPC("create semaphore",       "SysV IPC refused (landlock backend)"),
	LL_IPC("create message queue",   "SysV IPC refused (landlock backend)"),
	LL_IPC("shmget",                 "SysV IPC refused (landlock backend)"),
	LL_IPC("semget",                 "SysV IPC refused (landlock backend)"),
	LL_IPC("msgget",                 "SysV IPC refused (landlock backend)"),
	LL_IPC("mq_open",   "POSIX message queue refused (landlock backend)"),
};
const size_t kb_landlock_ipc_count = nitems(kb_landlock_ipc_phrases);

/* A failure said by the exit status alone (nothing on stderr: curl -s,
 * wget -q): with the network off, the network is what failed */
const struct kb_exit_status kb_net_exit_statuses[] = {
	{ "curl", 6, "no network (curl: could not resolve the host)" },
	{ "curl", 7, "no network (curl: could not connect)" },
	{ "wget", 4, "no network (wget: network failure)" },
};
const size_t kb_net_exit_status_count = nitems(kb_net_exit_statuses);

/* Lines that name the path of the error coded above them ("npm error
 * code EACCES", then "npm error path /x") */
const char *const kb_path_line_prefixes[] = {
	"npm error path ", "npm ERR! path ",
};
const size_t kb_path_line_prefix_count = nitems(kb_path_line_prefixes);

/* Where tools name the host; the last group that matched is the host. Tried
 * in order, on the refusal's line and then (unless true) on the whole tail. */
const struct kb_host_re kb_host_res[] = {
	{ "Could not resolve host(name)?:? ([A-Za-z0-9.-]+)", false },
	{ "connect to host ([A-Za-z0-9.:-]+) port", false },
	{ "[Bb]ad (hostname|address) '([A-Za-z0-9.-]+)", false },
	{ "getaddrinfo for ([A-Za-z0-9.-]+)", false },
	{ "(connection|connect) to '?([A-Za-z0-9.-]+):[0-9]", false },
	{ "(ECONNREFUSED|EACCES) ([0-9.]+):", false },  /* node: "connect EACCES" */
	{ "connect ([A-Za-z0-9.-]+):[0-9]+:", false },
	{ "Failed to connect to ([A-Za-z0-9.:-]+) port", false },
	{ "getaddrinfo (ENOTFOUND|EAI_AGAIN) ([A-Za-z0-9.-]+)", false },
	{ "host='([A-Za-z0-9.-]+)'", false },
	{ "unable to resolve host address [^A-Za-z0-9]*([A-Za-z0-9.-]+)", false },
	{ "lookup ([A-Za-z0-9.-]+)", false },
	{ "Connecting to ([A-Za-z0-9.-]+)", false },           /* wget */
	{ "AF=2 ([0-9.]+):", false },                         /* socat */
	{ "remote host \\(([A-Za-z0-9.-]+)\\)", false },      /* BusyBox nc */
	{ "Resolving ([A-Za-z0-9.-]+)", false },
	{ "[a-z+]+://[^@/ ]+@([A-Za-z0-9.-]+)", false },
	{ "[a-z+]+://([A-Za-z0-9.-]+)", false },
	{ "@([A-Za-z0-9.-]+):", false },
	/* an address the refusal's own line gives any other way ("server at
	 * \"127.0.0.1\"", "listen EACCES: permission denied 127.0.0.1:80",
	 * rsync's "failed to connect to 127.0.0.1 (127.0.0.1)") */
	{ "(^|[^0-9.])([0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3})[^0-9.]",
	  true },
	{ "(^|[^0-9.])([0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3})$", true },
};
const size_t kb_host_re_count = nitems(kb_host_res);
/* clang-format on */
