/*
 * classify/denial.h — was a failed command stopped by the sandbox, and
 * which grant would have helped? Input: the exit status, the tail of its
 * stderr and the policy in force. Output: a struct kb_denial.
 *
 * kb_classify() is pure apart from the questions it puts to a struct
 * kb_oracle (could the caller write this path without the sandbox? which
 * write root would kinbox accept for it?), so that tests can answer them.
 */
#ifndef KB_DENIAL_H
#define KB_DENIAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "../profile/policy.h"
#include "../profile/refusal.h"

enum kb_class {
	KB_CLASS_NONE,
	KB_CLASS_WRITE,
	KB_CLASS_NETWORK,
	KB_CLASS_SSH,
	KB_CLASS_OTHER,
	KB_CLASS_GUARDED, /* refused by design: the git guards, kinbox's own
			     stores; no grant lifts it */
	KB_CLASS_SOCKET,  /* a unix-socket connect kinbox's supervisor
			     refused: seen, not read from stderr */
};

/* distinct denials reported for one run, at most */
#define KB_MAX_DENIALS 8

struct kb_denial {
	enum kb_class cls;
	char path[PATH_MAX]; /* write: absolute path as the tool named it */
	char host[256];      /* network: the host, when named */
	char evidence[512];  /* the matched line */
	char reason[64];     /* "Read-only file system", "no network", ... */
	/* the smallest grant that would help */
	char suggest_write[PATH_MAX]; /* "" when no --write root fits */
	bool suggest_net, suggest_ssh_agent, suggest_unconfined;
	/* suggest_write does not exist yet: kinbox grants only existing
	 * directories, so it is to be created outside the sandbox first */
	bool suggest_create;
	/* guarded: what guards the path and why no grant lifts it */
	char guard[128];
	/* the network is off by a project file's tightening, which no grant
	 * lifts: its file:line, and nothing is suggested */
	char net_blocked_by[PATH_MAX + 16];
	/* write: the run is read-only (--read-only, mode = read-only), which
	 * no --write or grant lifts: what set it ("--read-only" or
	 * "FILE:LINE"), and nothing is suggested; ro_root_fits: outside
	 * read-only a --write root would have helped */
	char read_only_by[PATH_MAX + 16];
	bool ro_root_fits;
	/* write: the toolchain cache ([caches] NAME) the path lies in, which
	 * is read-only in this run; then its directory. The setting, not a
	 * --write on some subdirectory of it, is what helps. */
	char cache[16];
	char cache_dir[PATH_MAX];
	bool cache_off;    /* [caches] says off (else: no overlay here) */
	bool cache_absent; /* it does not exist: nothing was mounted */
	/* judged for the landlock backend: no private /tmp, no overlays */
	bool landlock;
	/* judged from the exit status alone (nothing on stderr: curl -s) */
	bool from_status;
	/* read from the command's stdout (a test runner's, a hook
	 * manager's report), not its stderr */
	bool from_stdout;
	/* socket: the grant that would allow it (--allow-socket), "" when
	 * none fits; `path` is the socket as kinbox resolved it */
	char suggest_socket[PATH_MAX];
	/* network, seen by kinbox's egress proxy (not read from stderr):
	 * the grant that would allow it, "HOST:PORT" for --allow-host, ""
	 * when none fits (an IP literal, a refused name or address) */
	bool exact;
	char suggest_host[300];
};

struct kb_oracle {
	/* true when the caller could write (or create) `path` on the host,
	 * without the sandbox */
	bool (*host_writable)(const char *path, void *ctx);
	/* the nearest existing ancestor directory of `path` that kinbox
	 * accepts as --write, into out; false when none (only / or $HOME) */
	bool (*suggest_root)(
	    const char *path, char *out, size_t outlen, void *ctx);
	/* true when `path` exists on the host (no symlink followed last) */
	bool (*exists)(const char *path, void *ctx);
	/* where a write to `path` lands (kb_resolve_write(): symlinks,
	 * the last one too, then ".."); false to keep it as is. May be
	 * NULL. */
	bool (*canonical)(
	    const char *path, char *out, size_t outlen, void *ctx);
	/* where the directory entry `path` is: as canonical, but a symlink
	 * as the last component is not followed (a mask over its directory
	 * hides the link inside the sandbox). May be NULL. */
	bool (*entry)(const char *path, char *out, size_t outlen, void *ctx);
	void *ctx;
};

/* The real oracle (classify/oracle.c): asks the host filesystem. With
 * check_access false, permission checks are skipped (for tests). */
struct kb_host_oracle_ctx {
	const char *home;
	bool check_access;
};
extern const struct kb_oracle kb_host_oracle_template;

/*
 * Every distinct denial of a finished command, in the order its stderr
 * shows them: fills out[0..max) and returns how many (0 for an ordinary
 * failure or success). A denial is distinct by class and path (write,
 * guarded), host (network) or reason (other).
 */
size_t kb_classify_all(int exit_status, const char *tail, size_t len,
    const struct kb_policy *, const struct kb_oracle *, struct kb_denial *out,
    size_t max);

/*
 * A finished run, as the classifier takes it whole (classify/evidence.c):
 * the backend that ran it (the policy names what was asked, auto
 * included), the command's exit status, the tail of its stderr and, when
 * kinbox read its stdout, of that; what the services outside the sandbox
 * refused it (the unix-socket supervisor's connects, the egress proxy's
 * destinations), which are exact and come first. Borrowed pointers.
 */
struct kb_evidence {
	enum kb_backend_kind backend;
	int exit_status;
	const char *err_tail;
	size_t err_len;
	const char *out_tail; /* NULL when stdout was not read */
	size_t out_len;
	const struct kb_refused_socket *sockets;
	size_t nsockets;
	const struct kb_refused_host *hosts;
	size_t nhosts;
};

/*
 * Every distinct denial of the run, merged: the refused connects, the
 * refused destinations, then what stderr tells and what stdout tells
 * that stderr did not (a command's own complaint about a refused socket
 * or destination is the exact one already; a line a tool writes on both
 * streams is one denial). Fills out[0..max) and returns how many; a
 * caller that gives one more than it shows learns that there were more.
 */
size_t kb_classify_run(const struct kb_evidence *, const struct kb_policy *,
    const struct kb_oracle *, struct kb_denial *out, size_t max);

/*
 * The first denial only (kb_classify_all with max 1). `tail` holds the last
 * `len` bytes of its stderr (need not be NUL-terminated). Returns true and
 * fills `out` when the failure was caused by the sandbox; false (out->cls =
 * KB_CLASS_NONE) for an ordinary failure or success.
 */
bool kb_classify(int exit_status, const char *tail, size_t len,
    const struct kb_policy *, const struct kb_oracle *, struct kb_denial *out);

const char *kb_class_name(enum kb_class);

/* classify/patterns.c: the message shapes, as data */
enum kb_phrase_check {
	KB_CHECK_NONE,
	KB_CHECK_OWNED,  /* only on a path the caller could write outside:
			    there, EPERM can only be the sandbox's filter */
	KB_CHECK_HOST,   /* only when one of `paths` exists on the host (the
			    socket the sandbox hid is really there) */
	KB_CHECK_EACCES, /* a permission phrase that is EACCES: how Landlock
			    refuses a write outside the writable set */
	KB_CHECK_INET,   /* only when the line names an address or port */
	KB_CHECK_SOCKET, /* only when the unix:// socket the line names is
			    hidden by the sandbox and there on the host */
};

struct kb_phrase {
	const char *text;   /* substring, matched case-sensitively */
	const char *reason; /* what it means, for the report */
	const char *also;   /* a second substring the line must hold, or NULL */
	enum kb_phrase_check check;
	const char *paths; /* KB_CHECK_HOST: ':'-separated host paths */
};
struct kb_host_re {
	const char *re; /* POSIX ERE; the last group that matched is the host */
	bool line_only; /* only on the refusal's own line, not the tail */
};
extern const struct kb_phrase kb_rofs_phrases[], kb_perm_phrases[],
    kb_busy_phrases[], kb_unsaid_phrases[], kb_net_phrases[], kb_ssh_phrases[],
    kb_other_phrases[];
extern const size_t kb_rofs_count, kb_perm_count, kb_busy_count,
    kb_unsaid_count, kb_net_count, kb_ssh_count, kb_other_count;
extern const char *const kb_benign_phrases[], *const kb_temp_words[];
extern const size_t kb_benign_count, kb_temp_word_count;
extern const char *const kb_mkdir_words[], *const kb_file_words[];
extern const size_t kb_mkdir_word_count, kb_file_word_count;
extern const char *const kb_write_verbs[];
extern const size_t kb_write_verb_count;
struct kb_chdir_flag {
	const char *tool, *flag;
};
extern const struct kb_phrase kb_fail_phrases[];
extern const size_t kb_fail_count;
extern const struct kb_chdir_flag kb_chdir_flags[];
extern const size_t kb_chdir_flag_count;
extern const char *const kb_not_a_name[];
extern const size_t kb_not_a_name_count;
extern const struct kb_host_re kb_host_res[];
extern const size_t kb_host_re_count;
/* the landlock backend's refusals: socket calls, unix sockets, IPC */
extern const char *const kb_socket_call_words[], *const kb_unix_socket_words[];
extern const size_t kb_socket_call_word_count, kb_unix_socket_word_count;
extern const char *const kb_url_schemes[];
extern const size_t kb_url_scheme_count;
extern const struct kb_phrase kb_landlock_ipc_phrases[];
extern const size_t kb_landlock_ipc_count;
struct kb_exit_status {
	const char *tool; /* argv[0]'s base name */
	int status;
	const char *reason;
};
extern const struct kb_exit_status kb_net_exit_statuses[];
extern const size_t kb_net_exit_status_count;
extern const char *const kb_path_line_prefixes[];
extern const size_t kb_path_line_prefix_count;

#endif
