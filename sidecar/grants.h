/*
 * sidecar/grants.h — the grant stores and denial decisions, written only by
 * kinpolicy (kinbox reads the stores through profile/config.c).
 *
 *   session grants    $XDG_RUNTIME_DIR/kinbox/sessions/<session>.ini  [grant]
 *   workspace grants  the global config, [workspace] path = /canonical
 *   decisions         <journal>/<id>.decision.json (granted | declined)
 *   retries           <journal>/<id>.retried (created once: consumes the id)
 */
#ifndef KB_GRANTS_H
#define KB_GRANTS_H

#include "../profile/config.h"
#include "../profile/options.h"
#include "../profile/policy.h"

/* A grant: the grantable rows of the option table (profile/options.h,
 * max_life above KB_LIFE_NEVER) with their values, and a lifetime. */
struct kb_grant {
	struct kb_strv write_paths;   /* canonical */
	struct kb_strv allow_sockets; /* canonical */
	struct kb_strv allowed_hosts; /* canonical "name:port" */
	struct kb_strv devices;       /* canonical */
	bool on[KB_OPT__N];           /* the switches granted: net, ssh_agent,
					 unconfined */
	enum kb_lifetime life;
};

/* The values of a grantable list row of the table (KB_OPT_WRITE:
 * write_paths, KB_OPT_ALLOW_SOCKET: allow_sockets, KB_OPT_ALLOW_HOST:
 * allowed_hosts, KB_OPT_DEVICE: devices), borrowed from the grant; NULL for any
 * other row. */
struct kb_strv *kb_grant_list(struct kb_grant *, enum kb_opt);
const struct kb_strv *kb_grant_list_const(const struct kb_grant *, enum kb_opt);

/* true when the grant names nothing */
bool kb_grant_empty(const struct kb_grant *);

/* Frees the grant's lists (the struct itself is the caller's). */
void kb_grant_free(struct kb_grant *);

/* Checks a grant against the caps: write roots pass the write-root rules
 * (canonicalised in place) and hold none of kinbox's stores (nor lie in
 * one: kb_config_check_stores); unconfined and sensitive system or
 * credential roots are allowed at most for a session. A granted socket
 * exists, is a socket (canonicalised in place) and lies, as given and
 * where it resolves, in none of `roots` (`nroots` canonical paths: the
 * writable roots of the run the grant answers, whose command could have
 * planted it there). An allowed host passes kb_host_entry_parse() and is
 * stored canonical, "name:port"; it is not granted with --net, --ssh-agent
 * (which needs the whole network) or --unconfined, which kinbox would
 * refuse together on a retry. 0, or -1 with `e`. */
int kb_grant_check(struct kb_grant *, const char *home,
    const char *const *roots, size_t nroots, struct kb_err *e);

/* A new session: writes an empty session file, returns the id (new
 * string) or NULL with `e`. */
char *kb_session_new(struct kb_err *e);

/* Appends the grant as a block to the session file or the global config.
 * `from` is the denial id it answers. 0, or -1 with `e`. */
int kb_grant_store(const struct kb_grant *, const char *home,
    const char *session, const char *workspace, const char *from,
    struct kb_err *e);

/* One stored grant block, for `kinpolicy grants` and `revoke`. */
struct kb_stored_grant {
	char *file;                   /* where it lives */
	char *header;                 /* "[grant]" or "[workspace \"/path\"]" */
	char *body;                   /* its key = value lines */
	const char *lifetime;         /* "session" or "workspace" */
	char id[KB_GRANT_ID_LEN + 1]; /* kb_grant_id(): the run registry's
					 name for it */
};

/* Lists the grant blocks of the session (when set) and the global config.
 * Returns the count; *out is a new array (free with kb_stored_free). */
size_t kb_grants_list(
    const char *home, const char *session, struct kb_stored_grant **out);
void kb_stored_free(struct kb_stored_grant *, size_t);

/* Removes block `index` (0-based, as listed) or all when index < 0,
 * rewriting the files atomically. 0, or -1 with `e`. */
int kb_grants_revoke(
    const char *home, const char *session, long index, struct kb_err *e);

#endif
