/*
 * classify/patterns.c — the message shapes that mean "the sandbox said no",
 * as data: read this file as policy. Phrases are substrings (fast, no
 * regex) matched on one line of stderr; the path or host is then extracted
 * from that line (classify/denial.c). Add a tool here, not in the code.
 */
#include "denial.h"

/* clang-format off */

/* A write outside the writable set: everything there is a read-only mount,
 * so the kernel answers EROFS. */
const struct kb_phrase kb_rofs_phrases[] = {
	{ "Read-only file system",     "Read-only file system" }, /* libc, Rust */
	{ "read-only file system",     "Read-only file system" }, /* Node, Go */
	{ "EROFS",                     "Read-only file system" },
	{ "[Errno 30]",                "Read-only file system" }, /* Python */
	{ "os error 30",               "Read-only file system" }, /* Rust */
	{ "errno -30",                 "Read-only file system" }, /* npm */
	{ "attempt to write a readonly database", "Read-only file system" },
	/* Node's recursive mkdirSync reports the EROFS of a parent as ENOENT
	 * of the leaf; outside the writable set, on a path the caller could
	 * create, that is the sandbox. */
	{ "ENOENT: no such file or directory, mkdir", "Read-only file system" },
};
const size_t kb_rofs_count = nitems(kb_rofs_phrases);

/* EACCES/EPERM: a denial only on a path outside the writable set that the
 * caller could write without the sandbox, and with a write verb. */
const struct kb_phrase kb_perm_phrases[] = {
	{ "Permission denied",         "Permission denied" },
	{ "permission denied",         "Permission denied" },
	{ "EACCES",                    "Permission denied" },
	{ "[Errno 13]",                "Permission denied" },
	{ "os error 13",               "Permission denied" },
	{ "Operation not permitted",   "Operation not permitted" },
	{ "EPERM",                     "Operation not permitted" },
	{ "[Errno 1]",                 "Operation not permitted" },
	{ "unable to open database",   "cannot create the database" },
	{ "Unable to (re)create",      "cannot create" },        /* CMake */
};
const size_t kb_perm_count = nitems(kb_perm_phrases);

const char *const kb_write_verbs[] = {
	"cannot touch", "cannot create", "cannot make", "cannot remove",
	"cannot move", "cannot overwrite", "failed to create", "cannot mkdir",
	"could not create", "could not lock", "could not write",
	"cannot open output", "opening output", "unable to create",
	"unable to open database", "mkdir", "open '", "rename", "unlink",
	"rmdir", "copyfile", "symlink", "Could not install", "write",
	"(re)create",
};
const size_t kb_write_verb_count = nitems(kb_write_verbs);

/* Name resolution and routing fail in the private network namespace. */
const struct kb_phrase kb_net_phrases[] = {
	{ "Could not resolve host",              "no network" }, /* curl, git */
	{ "Could not resolve hostname",          "no network" }, /* ssh */
	{ "Couldn't resolve host",               "no network" }, /* cargo */
	{ "Temporary failure in name resolution", "no network" },
	{ "Name or service not known",           "no network" },
	{ "Network is unreachable",              "no network" },
	{ "ENETUNREACH",                         "no network" },
	{ "[Errno 101]",                         "no network" },
	{ "getaddrinfo ENOTFOUND",               "no network" }, /* node */
	{ "getaddrinfo EAI_AGAIN",               "no network" },
	{ "EAI_AGAIN",                           "no network" },
	{ "ENOTFOUND",                           "no network" },
	{ "NewConnectionError",                  "no network" }, /* pip */
	{ "unable to resolve host address",      "no network" }, /* wget */
	{ "failed to lookup address information", "no network" }, /* Rust */
	{ "no such host",                        "no network" }, /* Go */
	{ "Resolving timed out",                 "no network" },
	{ "nodename nor servname",               "no network" },
	{ "No address associated with hostname", "no network" },
	{ "Failed to establish a new connection", "no network" },
	/* curl to an address: no route, or a server on the host's loopback,
	 * which the private network namespace does not share */
	{ "Couldn't connect to server",          "no network" },
};
const size_t kb_net_count = nitems(kb_net_phrases);

/* The agent socket and ~/.ssh are hidden without --ssh-agent. */
const struct kb_phrase kb_ssh_phrases[] = {
	{ "Permission denied (publickey",        "no SSH agent" },
	{ "Could not open a connection to your authentication agent",
	                                         "no SSH agent" },
	{ "Error connecting to agent",           "no SSH agent" },
	{ "Host key verification failed",        "no known_hosts" },
	{ "no such identity",                    "no SSH key" },
	{ "agent refused operation",             "no SSH agent" },
	{ "sign_and_send_pubkey: signing failed", "no SSH agent" },
};
const size_t kb_ssh_count = nitems(kb_ssh_phrases);

/* Denials no granular grant lifts: hidden host sockets (docker, D-Bus),
 * nested namespaces, refused system calls. */
const struct kb_phrase kb_other_phrases[] = {
	{ "Cannot connect to the Docker daemon", "host socket hidden" },
	{ "Failed to connect to bus",            "host socket hidden" },
	{ "Creating new namespace failed",       "nested sandbox refused" },
	{ "unshare failed",                      "nested sandbox refused" },
	{ "newuidmap",                           "nested sandbox refused" },
	{ "io_uring_setup",                      "system call refused" },
};
const size_t kb_other_count = nitems(kb_other_phrases);

/* Tools whose relative paths are relative to a directory given in argv
 * ("tar -C /etc", "make -C dir", "git -C dir"); make also announces it
 * ("Entering directory"). */
const struct kb_chdir_flag kb_chdir_flags[] = {
	{ "tar",  "-C" }, { "tar",  "--directory" },
	{ "make", "-C" }, { "make", "--directory" },
	{ "git",  "-C" },
};
const size_t kb_chdir_flag_count = nitems(kb_chdir_flags);

/* Words that end a verb phrase, never a file name ("tar: x: Cannot open"). */
const char *const kb_not_a_name[] = {
	"open", "mkdir", "create", "write", "remove", "touch", "stat", "link",
	"unlink", "rename", "chmod", "chown", "utime", "read", "directory",
	"file", "access", "lock",
};
const size_t kb_not_a_name_count = nitems(kb_not_a_name);

/* Where tools name the host; group 1 is the host. Tried in order. */
const struct kb_host_re kb_host_res[] = {
	{ "Could not resolve host(name)?:? ([A-Za-z0-9.-]+)" },
	{ "Failed to connect to ([A-Za-z0-9.:-]+) port" },
	{ "getaddrinfo (ENOTFOUND|EAI_AGAIN) ([A-Za-z0-9.-]+)" },
	{ "host='([A-Za-z0-9.-]+)'" },
	{ "unable to resolve host address [^A-Za-z0-9]*([A-Za-z0-9.-]+)" },
	{ "lookup ([A-Za-z0-9.-]+)" },
	{ "Resolving ([A-Za-z0-9.-]+)" },
	{ "[a-z+]+://([A-Za-z0-9.-]+)" },
	{ "@([A-Za-z0-9.-]+):" },
};
const size_t kb_host_re_count = nitems(kb_host_res);
/* clang-format on */
