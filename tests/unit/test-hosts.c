/*
 * tests/unit/test-hosts.c — the egress allow-list (profile/hosts.c): the
 * form of one --allow-host entry (every refusal class, with varied
 * examples, and the edges of the label and name lengths), the setter
 * through the option table (messages, duplicates, the cap, a file's
 * list), the network mode settled by kb_options_validate (typed
 * conflicts, ranks, grants that only widen, the project's tightening,
 * the SSH agent, --unconfined), the grant check's canonical form, and the
 * denial line and record of a request kinbox's proxy refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../../classify/report.h"
#include "../../profile/hosts.h"
#include "../../profile/options.h"
#include "../../profile/policy.h"
#include "../../sidecar/grants.h"
#include "tap.h"

/* the refusal messages, as hosts.c words them (a change there is a
 * change of what users read: pinned here) */
#define E_EMPTY "empty; give a host name, e.g. github.com"
#define E_URL                                                               \
	"a URL, not a host name; write the host name alone, e.g. github.com"
#define E_PATH                                                              \
	"a path is not part of a host name; write the host name alone, "    \
	"e.g. github.com"
#define E_WILD "a wildcard; each name is exact: list every host"
#define E_USER                                                              \
	"user information (user@) is not part of a host name; write the "   \
	"host name alone, e.g. github.com"
#define E_MANY                                                              \
	"more than one host, or a blank; give one host per --allow-host "   \
	"(repeat it)"
#define E_IP                                                                \
	"an IP address; kinbox's proxy takes names only: give the host's "  \
	"DNS name"
#define E_NUM                                                               \
	"it ends in a number, so it reads as an IP address; give the "      \
	"host's DNS name"
#define E_PORT_EMPTY                                                        \
	"no port after ':'; write HOST:PORT, or HOST alone for port 443"
#define E_PORT_NAN                                                          \
	"the port is not a number; write HOST:PORT with a PORT of 1-65535"
#define E_PORT_RANGE "the port is out of range; give 1-65535"
#define E_NONAME                                                            \
	"no host name before ':'; write HOST:PORT, e.g. github.com:8443"
#define E_LONG                                                              \
	"longer than 253 characters, which no DNS name is; check the name"
#define E_CHAR                                                              \
	"a character other than a letter, a digit, '-' or '.'; write the "  \
	"DNS name (an international one in its xn-- form)"
#define E_EMPTY_LABEL                                                       \
	"an empty label (a leading dot, or two in a row); check the name"
#define E_LONG_LABEL                                                        \
	"a label longer than 63 characters, which no DNS name has; check "  \
	"the name"
#define E_HYPHEN "a label starts or ends with '-'; check the name"
#define E_SINGLE                                                            \
	"a single-label name is local; give the host's full DNS name "      \
	"(host.domain)"
#define E_RESERVED                                                          \
	"a private or reserved name, which kinbox's proxy never reaches; "  \
	"give a public name (--net gives the whole network instead)"

/* clang-format off */
static const struct {
	const char *in, *why;
} refused[] = {
	{ "", E_EMPTY },
	{ ".", E_EMPTY },
	{ "https://github.com", E_URL },
	{ "http://github.com:80/", E_URL },
	{ "git+ssh://git@github.com", E_URL },
	{ "github.com/x", E_PATH },
	{ "github.com/", E_PATH },
	{ "/etc/hosts", E_PATH },
	{ "*.github.com", E_WILD },
	{ "*", E_WILD },
	{ "api.*.com", E_WILD },
	{ "a@b.com", E_USER },
	{ "user:pw@github.com", E_USER },
	{ "github.com,gitlab.com", E_MANY },
	{ "github.com gitlab.com", E_MANY },
	{ "github.com\t", E_MANY },
	{ "127.0.0.1", E_IP },
	{ "127.1", E_IP },
	{ "0x7f.1", E_IP },
	{ "0x7f000001", E_IP },
	{ "2130706433", E_IP },
	{ "017700000001", E_IP },
	{ "10.0.0.1:8080", E_IP },
	{ "169.254.169.254", E_IP },
	{ "[::1]", E_IP },
	{ "[::1]:443", E_IP },
	{ "::1", E_IP },
	{ "fe80::1%eth0", E_IP },
	{ "::ffff:127.0.0.1", E_IP },
	{ "1.2.3.999", E_NUM },
	{ "1.2.3.4.5", E_NUM },
	{ "example.0x10", E_NUM },
	{ "foo.123", E_NUM },
	{ "github.com:", E_PORT_EMPTY },
	{ "github.com:44a", E_PORT_NAN },
	{ "github.com:-1", E_PORT_NAN },
	{ "github.com:+443", E_PORT_NAN },
	{ "github.com:443:1", E_PORT_NAN },
	{ "github.com:0", E_PORT_RANGE },
	{ "github.com:65536", E_PORT_RANGE },
	{ "github.com:99999999999999999999", E_PORT_RANGE },
	{ ":443", E_NONAME },
	{ "git_hub.com", E_CHAR },
	{ "b\xc3\xbc" "cher.example", E_CHAR },
	{ "github.com\\", E_CHAR },
	{ "a..b.com", E_EMPTY_LABEL },
	{ ".github.com", E_EMPTY_LABEL },
	{ "github.com..", E_EMPTY_LABEL },
	{ "-a.com", E_HYPHEN },
	{ "a-.com", E_HYPHEN },
	{ "a.-b.com", E_HYPHEN },
	{ "github.com-", E_HYPHEN },
	{ "foo", E_SINGLE },
	{ "localhost", E_SINGLE },
	{ "intranet", E_SINGLE },
	{ "localhost.", E_SINGLE },
	{ "foo.localhost", E_RESERVED },
	{ "printer.local", E_RESERVED },
	{ "Printer.LOCAL.", E_RESERVED },
	{ "metadata.google.internal", E_RESERVED },
	{ "x.home.arpa", E_RESERVED },
	{ "1.0.0.127.in-addr.arpa", E_RESERVED },
	{ "nas.lan", E_RESERVED },
	{ "db.localdomain", E_RESERVED },
	{ "wiki.intranet", E_RESERVED },
	{ "mail.corp", E_RESERVED },
	{ "router.home", E_RESERVED },
	{ "x.private", E_RESERVED },
	{ "nothing.invalid", E_RESERVED },
	{ "duckduckgogg42xjoc72x3sjasowoarfbgcmvfimaftt6twagswzczad.onion",
	  E_RESERVED },
};

static const struct {
	const char *in, *name;
	unsigned port;
} accepted[] = {
	{ "github.com", "github.com", 443 },
	{ "GitHub.com.", "github.com", 443 },
	{ "registry.npmjs.org:8443", "registry.npmjs.org", 8443 },
	{ "xn--bcher-kva.example", "xn--bcher-kva.example", 443 },
	{ "a-b.c0m", "a-b.c0m", 443 },
	{ "API.GitHub.COM:1", "api.github.com", 1 },
	{ "proxy.test:65535", "proxy.test", 65535 },
	{ "github.com.:0443", "github.com", 443 },
	{ "1password.com", "1password.com", 443 },
	{ "a.b", "a.b", 443 },
	{ "localhost.example", "localhost.example", 443 },
	{ "local.github.io", "local.github.io", 443 },
};
/* clang-format on */

static void
test_parse_table(void)
{
	char name[KB_HOST_NAME_MAX + 1];
	unsigned port;
	const char *why;

	for (size_t i = 0; i < nitems(refused); i++) {
		_cleanup_free_ char *shown = kb_escape(refused[i].in);
		int rc;

		why = NULL;
		rc = kb_host_entry_parse(refused[i].in, name, sizeof(name),
		    &port, &why);
		ok(rc == -1 && why != NULL && strcmp(why, refused[i].why) == 0,
		    "'%s' refused: %s", shown, why ? why : "(accepted)");
		if (rc == -1 && why != NULL && strcmp(why, refused[i].why) != 0)
			printf("#   want: %s\n", refused[i].why);
	}
	for (size_t i = 0; i < nitems(accepted); i++) {
		int rc = kb_host_entry_parse(accepted[i].in, name, sizeof(name),
		    &port, &why);

		ok(rc == 0 && strcmp(name, accepted[i].name) == 0 &&
			port == accepted[i].port,
		    "'%s' is %s:%u", accepted[i].in, accepted[i].name,
		    accepted[i].port);
		if (rc == -1)
			printf("#   refused: %s\n", why);
	}
}

/* the edges: a label of 63 and 64, a name of 253 and 254 */
static void
test_parse_lengths(void)
{
	char name[KB_HOST_NAME_MAX + 1], v[400], small[16];
	unsigned port;
	const char *why = NULL;

	memset(v, 'a', 63);
	strcpy(v + 63, ".com");
	ok(kb_host_entry_parse(v, name, sizeof(name), &port, &why) == 0 &&
		strlen(name) == 67,
	    "a label of 63 characters is taken");
	memset(v, 'a', 64);
	strcpy(v + 64, ".com");
	ok(kb_host_entry_parse(v, name, sizeof(name), &port, &why) == -1 &&
		strcmp(why, E_LONG_LABEL) == 0,
	    "a label of 64 is refused: %s", why);
	/* 63 + 1 + 63 + 1 + 63 + 1 + 61 = 253 */
	memset(v, 'a', 253);
	v[63] = v[127] = v[191] = '.';
	v[253] = '\0';
	ok(kb_host_entry_parse(v, name, sizeof(name), &port, &why) == 0 &&
		strlen(name) == 253,
	    "a name of 253 characters is taken");
	strcpy(v + 253, ".");
	ok(kb_host_entry_parse(v, name, sizeof(name), &port, &why) == 0 &&
		strlen(name) == 253,
	    "... with its trailing dot too (254 as typed)");
	strcpy(v + 253, ":8443");
	ok(kb_host_entry_parse(v, name, sizeof(name), &port, &why) == 0 &&
		strlen(name) == 253 && port == 8443,
	    "... and with a port");
	memset(v, 'a', 254);
	v[63] = v[127] = v[191] = '.';
	v[254] = '\0';
	ok(kb_host_entry_parse(v, name, sizeof(name), &port, &why) == -1 &&
		strcmp(why, E_LONG) == 0,
	    "a name of 254 is refused: %s", why);
	ok(kb_host_entry_parse("github.com", small, sizeof(small), &port,
	       &why) == -1,
	    "a buffer smaller than the longest name is refused, not overrun");
}

static void
set_ok(struct kb_policy *p, enum kb_opt id, const char *v, int origin,
    const char *where)
{
	struct kb_src s = { origin, where };
	struct kb_err e;

	if (kb_option_set(p, id, v, &s, &e) == -1)
		printf("# %s: %s\n", v, e.msg);
}

static int
set_err(struct kb_policy *p, enum kb_opt id, const char *v, int origin,
    const char *where, struct kb_err *e)
{
	struct kb_src s = { origin, where };

	e->msg[0] = '\0';
	return kb_option_set(p, id, v, &s, e);
}

static bool
has_note(const struct kb_policy *p, const char *want)
{
	for (size_t i = 0; i < p->notes.n; i++)
		if (strcmp(p->notes.v[i], want) == 0)
			return true;
	for (size_t i = 0; i < p->notes.n; i++)
		printf("#   note: %s\n", p->notes.v[i]);
	printf("#   want: %s\n", want);
	return false;
}

static void
test_row_and_setter(void)
{
	const struct kb_option *o = kb_option_by_flag("allow-host");
	struct kb_policy p;
	struct kb_err e;

	ok(o != NULL && o->id == KB_OPT_ALLOW_HOST &&
		o == &kb_options[KB_OPT_ALLOW_SOCKET + 1] &&
		strcmp(o->metavar, "HOST[:PORT]") == 0 &&
		o->sections == (KB_IN_NETWORK | KB_IN_GRANT) &&
		strcmp(o->key, "allowed_hosts") == 0 &&
		strcmp(o->json, "allowed_hosts") == 0 &&
		o->max_life == KB_LIFE_WORKSPACE &&
		o->project == KB_PROJECT_NO && o->type == KB_T_LIST &&
		kb_option_by_key("allowed_hosts") == o,
	    "--allow-host HOST[:PORT]: the row after --allow-socket, a list "
	    "of [network] and [grant], a workspace grant at most, never from "
	    "a project file");

	kb_policy_init(&p);
	ok(set_err(&p, KB_OPT_ALLOW_HOST, "localhost", KB_ORIGIN_FLAG,
	       "--allow-host", &e) == -1 &&
		strcmp(e.msg, "--allow-host localhost: " E_SINGLE) == 0,
	    "a flag's refusal names the flag and the entry: %s", e.msg);
	ok(set_err(&p, KB_OPT_ALLOW_HOST, "", KB_ORIGIN_FLAG, "--allow-host",
	       &e) == -1 &&
		strcmp(e.msg, "--allow-host '': " E_EMPTY) == 0,
	    "an empty flag: %s", e.msg);
	ok(set_err(&p, KB_OPT_ALLOW_HOST, "a.com,b.com", KB_ORIGIN_FLAG,
	       "--allow-host", &e) == -1 &&
		strcmp(e.msg, "--allow-host a.com,b.com: " E_MANY) == 0,
	    "a flag names one host: %s", e.msg);
	ok(set_err(&p, KB_OPT_ALLOW_HOST, "a.com, 127.1", KB_ORIGIN_GLOBAL,
	       "/c/config.ini:4", &e) == -1 &&
		strcmp(e.msg, "/c/config.ini:4: allowed_hosts = 127.1: " E_IP) ==
		    0,
	    "a file's refusal names file:line, the key and the entry: %s",
	    e.msg);
	ok(p.nallow_host == 0, "a line with a bad entry records none of it");
	ok(set_err(&p, KB_OPT_ALLOW_HOST, "", KB_ORIGIN_GLOBAL,
	       "/c/config.ini:5", &e) == -1 &&
		strcmp(e.msg, "/c/config.ini:5: allowed_hosts = '': " E_EMPTY) ==
		    0,
	    "an empty line: %s", e.msg);
	ok(set_err(&p, KB_OPT_ALLOW_HOST, " , ,", KB_ORIGIN_GLOBAL,
	       "/c/config.ini:6", &e) == -1,
	    "... and one of separators only");

	set_ok(&p, KB_OPT_ALLOW_HOST, "github.com, registry.npmjs.org:8443\t"
	    "GitHub.com.", KB_ORIGIN_GLOBAL, "/c/config.ini:2");
	ok(p.nallow_host == 2 && strcmp(p.allow_host[0].name, "github.com") ==
		0 && p.allow_host[0].port == 443 &&
		strcmp(p.allow_host[1].name, "registry.npmjs.org") == 0 &&
		p.allow_host[1].port == 8443 &&
		p.allow_host[0].origin == KB_ORIGIN_GLOBAL &&
		strcmp(p.allow_host[0].where, "/c/config.ini:2") == 0,
	    "a file's line lists several, by commas or blanks, canonical, "
	    "once each, with file:line");
	set_ok(&p, KB_OPT_ALLOW_HOST, "github.com:443", KB_ORIGIN_FLAG,
	    "--allow-host");
	set_ok(&p, KB_OPT_ALLOW_HOST, "github.com:8443", KB_ORIGIN_FLAG,
	    "--allow-host");
	ok(p.nallow_host == 3 && p.allow_host[0].origin == KB_ORIGIN_FLAG &&
		strcmp(p.allow_host[0].where, "--allow-host") == 0 &&
		p.allow_host[2].port == 8443,
	    "named again by a flag: the flag's; another port is another "
	    "host");
	ok(p.origin[KB_OPT_ALLOW_HOST] == KB_ORIGIN_DEFAULT &&
		p.where[KB_OPT_ALLOW_HOST] == NULL,
	    "a list keeps its origins per value");
	for (int i = 3; i < KB_MAX_HOST; i++) {
		_cleanup_free_ char *v = xasprintf("h%d.example.com", i);

		set_ok(&p, KB_OPT_ALLOW_HOST, v, KB_ORIGIN_FLAG,
		    "--allow-host");
	}
	ok(p.nallow_host == KB_MAX_HOST &&
		set_err(&p, KB_OPT_ALLOW_HOST, "one-more.example.com",
		    KB_ORIGIN_FLAG, "--allow-host", &e) == -1 &&
		strcmp(e.msg, "--allow-host one-more.example.com: too many "
			      "allowed hosts (at most 32); allow only those "
			      "the command needs") == 0,
	    "the 33rd host is refused, naming the cap: %s", e.msg);
	ok(set_err(&p, KB_OPT_ALLOW_HOST, "H5.example.com", KB_ORIGIN_FLAG,
	       "--allow-host", &e) == 0 &&
		p.nallow_host == KB_MAX_HOST,
	    "a 33rd mention of one of the 32 is no 33rd host");
	kb_policy_free(&p);
}

/* the network mode after every source */
static void
test_combinations(void)
{
	struct kb_policy p;
	struct kb_err e;

	/* typed both: an error, in either order */
	kb_policy_init(&p);
	set_ok(&p, KB_OPT_ALLOW_HOST, "x.com", KB_ORIGIN_FLAG, "--allow-host");
	set_ok(&p, KB_OPT_NET, "on", KB_ORIGIN_FLAG, "--net");
	ok(kb_options_validate(&p, &e) == -1 &&
		strcmp(e.msg, "--net gives the whole network and --allow-host "
			      "only some hosts: use one of the two") == 0,
	    "--allow-host --net: %s", e.msg);
	kb_policy_free(&p);
	kb_policy_init(&p);
	set_ok(&p, KB_OPT_NET, "on", KB_ORIGIN_FLAG, "--net");
	set_ok(&p, KB_OPT_ALLOW_HOST, "x.com", KB_ORIGIN_FLAG, "--allow-host");
	ok(kb_options_validate(&p, &e) == -1, "--net --allow-host: the same");
	kb_policy_free(&p);

	/* a typed --allow-host beats a workspace grant's network */
	kb_policy_init(&p);
	set_ok(&p, KB_OPT_NET, "on", KB_ORIGIN_WORKSPACE, "/c/config.ini:9");
	set_ok(&p, KB_OPT_ALLOW_HOST, "github.com", KB_ORIGIN_FLAG,
	    "--allow-host");
	ok(kb_options_validate(&p, &e) == 0 && !p.net && p.nallow_host == 1 &&
		has_note(&p, "network: the grant of /c/config.ini:9 is not "
			     "used: --allow-host limits the network to "
			     "github.com:443 (--allow-host)"),
	    "--allow-host over a workspace grant of the network: the grant "
	    "is not used, with a note");
	kb_policy_free(&p);

	/* ... and a config's network = on */
	kb_policy_init(&p);
	set_ok(&p, KB_OPT_NET, "on", KB_ORIGIN_GLOBAL, "/c/config.ini:2");
	set_ok(&p, KB_OPT_ALLOW_HOST, "github.com", KB_ORIGIN_FLAG,
	    "--allow-host");
	ok(kb_options_validate(&p, &e) == 0 && !p.net && p.nallow_host == 1 &&
		has_note(&p, "network: network = on of /c/config.ini:2 is not "
			     "used: --allow-host limits the network to "
			     "github.com:443 (--allow-host)"),
	    "--allow-host over a config's network = on");
	kb_policy_free(&p);

	/* typed --net beats a config's and a grant's hosts */
	kb_policy_init(&p);
	set_ok(&p, KB_OPT_ALLOW_HOST, "a.com, b.org:8443", KB_ORIGIN_GLOBAL,
	    "/c/config.ini:3");
	set_ok(&p, KB_OPT_ALLOW_HOST, "c.net", KB_ORIGIN_SESSION, "/r/s.ini:2");
	set_ok(&p, KB_OPT_NET, "on", KB_ORIGIN_FLAG, "--net");
	ok(kb_options_validate(&p, &e) == 0 && p.net && p.nallow_host == 0 &&
		has_note(&p, "network: the allowed hosts a.com:443 "
			     "(/c/config.ini:3), b.org:8443 (/c/config.ini:3), "
			     "c.net:443 (/r/s.ini:2) are not used: --net gives "
			     "the whole network"),
	    "--net over allowed hosts of the config and a grant: dropped, "
	    "one note");
	kb_policy_free(&p);

	/* typed --no-net beats the configured hosts, not typed ones */
	kb_policy_init(&p);
	set_ok(&p, KB_OPT_ALLOW_HOST, "a.com", KB_ORIGIN_SESSION, "/r/s.ini:2");
	set_ok(&p, KB_OPT_NET, "off", KB_ORIGIN_FLAG, "--no-net");
	ok(kb_options_validate(&p, &e) == 0 && !p.net && p.nallow_host == 0 &&
		has_note(&p, "network: the allowed host a.com:443 (/r/s.ini:2) "
			     "is not used: --no-net turns the network off"),
	    "--no-net over a grant's hosts");
	kb_policy_free(&p);
	kb_policy_init(&p);
	set_ok(&p, KB_OPT_ALLOW_HOST, "a.com", KB_ORIGIN_SESSION, "/r/s.ini:2");
	set_ok(&p, KB_OPT_NET, "off", KB_ORIGIN_FLAG, "--no-net");
	set_ok(&p, KB_OPT_ALLOW_HOST, "b.com", KB_ORIGIN_FLAG, "--allow-host");
	ok(kb_options_validate(&p, &e) == 0 && !p.net && p.nallow_host == 2,
	    "--no-net --allow-host: the hosts, all of them");
	kb_policy_free(&p);

	/* one config file with both: an error naming it */
	kb_policy_init(&p);
	set_ok(&p, KB_OPT_NET, "on", KB_ORIGIN_GLOBAL, "/c/config.ini:2");
	set_ok(&p, KB_OPT_ALLOW_HOST, "a.com", KB_ORIGIN_GLOBAL,
	    "/c/config.ini:5");
	ok(kb_options_validate(&p, &e) == -1 &&
		strcmp(e.msg, "/c/config.ini:2: network = on gives the whole "
			      "network and allowed_hosts (/c/config.ini:5) "
			      "only some hosts: keep one of the two") == 0,
	    "network = on and allowed_hosts in one file: %s", e.msg);
	kb_policy_free(&p);

	/* network = off beside allowed_hosts: the hosts */
	kb_policy_init(&p);
	set_ok(&p, KB_OPT_NET, "off", KB_ORIGIN_SYSTEM, "/etc/kinbox/c.ini:2");
	set_ok(&p, KB_OPT_ALLOW_HOST, "a.com", KB_ORIGIN_SYSTEM,
	    "/etc/kinbox/c.ini:4");
	ok(kb_options_validate(&p, &e) == 0 && !p.net && p.nallow_host == 1 &&
		p.notes.n == 0,
	    "network = off beside allowed_hosts in one file: the hosts");
	kb_policy_free(&p);

	/* the config files by rank */
	kb_policy_init(&p);
	set_ok(&p, KB_OPT_NET, "on", KB_ORIGIN_SYSTEM, "/etc/kinbox/c.ini:2");
	set_ok(&p, KB_OPT_ALLOW_HOST, "a.com", KB_ORIGIN_GLOBAL,
	    "/c/config.ini:3");
	ok(kb_options_validate(&p, &e) == 0 && !p.net && p.nallow_host == 1 &&
		has_note(&p, "network: network = on of /etc/kinbox/c.ini:2 is "
			     "not used: allowed_hosts of /c/config.ini:3 "
			     "limits the network to a.com:443 "
			     "(/c/config.ini:3)"),
	    "the global config's hosts over the system's network = on");
	kb_policy_free(&p);
	kb_policy_init(&p);
	set_ok(&p, KB_OPT_ALLOW_HOST, "a.com", KB_ORIGIN_SYSTEM,
	    "/etc/kinbox/c.ini:3");
	set_ok(&p, KB_OPT_NET, "on", KB_ORIGIN_GLOBAL, "/c/config.ini:2");
	ok(kb_options_validate(&p, &e) == 0 && p.net && p.nallow_host == 0 &&
		has_note(&p, "network: the allowed host a.com:443 "
			     "(/etc/kinbox/c.ini:3) is not used: network = on "
			     "of /c/config.ini:2 gives the whole network"),
	    "the global config's network = on over the system's hosts");
	kb_policy_free(&p);
	kb_policy_init(&p);
	set_ok(&p, KB_OPT_ALLOW_HOST, "a.com", KB_ORIGIN_SYSTEM,
	    "/etc/kinbox/c.ini:3");
	set_ok(&p, KB_OPT_NET, "off", KB_ORIGIN_GLOBAL, "/c/config.ini:2");
	set_ok(&p, KB_OPT_ALLOW_HOST, "g.com", KB_ORIGIN_WORKSPACE,
	    "/c/config.ini:9");
	ok(kb_options_validate(&p, &e) == 0 && !p.net && p.nallow_host == 1 &&
		strcmp(p.allow_host[0].name, "g.com") == 0 &&
		has_note(&p, "network: the allowed host a.com:443 "
			     "(/etc/kinbox/c.ini:3) is not used: network = off "
			     "of /c/config.ini:2 turns the network off"),
	    "the global config's network = off over the system's hosts; a "
	    "grant's hosts stay");
	kb_policy_free(&p);

	/* a grant only widens */
	kb_policy_init(&p);
	set_ok(&p, KB_OPT_ALLOW_HOST, "a.com", KB_ORIGIN_GLOBAL,
	    "/c/config.ini:3");
	set_ok(&p, KB_OPT_ALLOW_HOST, "b.com", KB_ORIGIN_WORKSPACE,
	    "/c/config.ini:12");
	set_ok(&p, KB_OPT_NET, "on", KB_ORIGIN_SESSION, "/r/s.ini:3");
	ok(kb_options_validate(&p, &e) == 0 && p.net && p.nallow_host == 0 &&
		has_note(&p, "network: the allowed hosts a.com:443 "
			     "(/c/config.ini:3), b.com:443 (/c/config.ini:12) "
			     "are not used: the grant of /r/s.ini:3 gives the "
			     "whole network"),
	    "a session grant of the network over allowed hosts");
	kb_policy_free(&p);
	kb_policy_init(&p);
	set_ok(&p, KB_OPT_NET, "on", KB_ORIGIN_WORKSPACE, "/c/config.ini:8");
	set_ok(&p, KB_OPT_ALLOW_HOST, "b.com", KB_ORIGIN_SESSION, "/r/s.ini:3");
	ok(kb_options_validate(&p, &e) == 0 && p.net && p.nallow_host == 0,
	    "a workspace grant of the network and a session grant of a host: "
	    "the whole network (no error: both only permit)");
	kb_policy_free(&p);
	kb_policy_init(&p);
	set_ok(&p, KB_OPT_NET, "on", KB_ORIGIN_GLOBAL, "/c/config.ini:2");
	set_ok(&p, KB_OPT_ALLOW_HOST, "b.com", KB_ORIGIN_SESSION, "/r/s.ini:3");
	ok(kb_options_validate(&p, &e) == 0 && p.net && p.nallow_host == 0 &&
		has_note(&p, "network: the allowed host b.com:443 (/r/s.ini:3) "
			     "is not used: network = on of /c/config.ini:2 "
			     "gives the whole network"),
	    "a config's network = on stays over a grant's host");
	kb_policy_free(&p);
	kb_policy_init(&p);
	set_ok(&p, KB_OPT_ALLOW_HOST, "b.com", KB_ORIGIN_SESSION, "/r/s.ini:3");
	ok(kb_options_validate(&p, &e) == 0 && !p.net && p.nallow_host == 1 &&
		p.notes.n == 0,
	    "a grant's host where the network is off: the host");
	kb_policy_free(&p);

	/* the project's network = off clears them, typed ones too */
	kb_policy_init(&p);
	set_ok(&p, KB_OPT_ALLOW_HOST, "a.com", KB_ORIGIN_FLAG, "--allow-host");
	set_ok(&p, KB_OPT_NET, "off", KB_ORIGIN_PROJECT, "/w/.kinbox.ini:2");
	ok(kb_options_validate(&p, &e) == 0 && !p.net && p.nallow_host == 0 &&
		has_note(&p, "network: the allowed host a.com:443 "
			     "(--allow-host) is not used: off by "
			     "/w/.kinbox.ini:2 (network = off; a project file "
			     "may only tighten)"),
	    "a project's network = off clears typed hosts, with a note");
	kb_policy_free(&p);
	kb_policy_init(&p);
	set_ok(&p, KB_OPT_ALLOW_HOST, "a.com", KB_ORIGIN_FLAG, "--allow-host");
	set_ok(&p, KB_OPT_NET, "on", KB_ORIGIN_FLAG, "--net");
	set_ok(&p, KB_OPT_NET, "off", KB_ORIGIN_PROJECT, "/w/.kinbox.ini:2");
	ok(kb_options_validate(&p, &e) == -1,
	    "typed --net --allow-host is an error even where the project "
	    "turns the network off");
	kb_policy_free(&p);
}

static void
test_agent_and_unconfined(void)
{
	struct kb_policy p;
	struct kb_err e;

	kb_policy_init(&p);
	set_ok(&p, KB_OPT_SSH_AGENT, "on", KB_ORIGIN_FLAG, "--ssh-agent");
	set_ok(&p, KB_OPT_ALLOW_HOST, "github.com", KB_ORIGIN_FLAG,
	    "--allow-host");
	ok(kb_options_validate(&p, &e) == -1 &&
		strcmp(e.msg, "--ssh-agent needs the whole network (--net), "
			      "and --allow-host gives only some hosts, through "
			      "kinbox's proxy, which ssh does not use; drop "
			      "one of the two") == 0,
	    "--ssh-agent --allow-host: %s", e.msg);
	kb_policy_free(&p);

	kb_policy_init(&p);
	set_ok(&p, KB_OPT_SSH_AGENT, "on", KB_ORIGIN_FLAG, "--ssh-agent");
	set_ok(&p, KB_OPT_ALLOW_HOST, "github.com", KB_ORIGIN_GLOBAL,
	    "/c/config.ini:3");
	ok(kb_options_validate(&p, &e) == -1 &&
		strcmp(e.msg, "--ssh-agent needs --net: the agent is only "
			      "useful to reach a remote host; add --net") == 0,
	    "--ssh-agent with configured hosts: add --net (which then wins "
	    "over them)");
	kb_policy_free(&p);

	/* a session's agent grant brings the network; a typed --allow-host
	 * takes both away, with a note each */
	kb_policy_init(&p);
	set_ok(&p, KB_OPT_SSH_AGENT, "on", KB_ORIGIN_SESSION, "/r/s.ini:3");
	set_ok(&p, KB_OPT_ALLOW_HOST, "github.com", KB_ORIGIN_FLAG,
	    "--allow-host");
	ok(kb_options_validate(&p, &e) == 0 && !p.net && !p.ssh_agent &&
		p.nallow_host == 1 &&
		has_note(&p, "network: the grant of /r/s.ini:3 is not used: "
			     "--allow-host limits the network to "
			     "github.com:443 (--allow-host)") &&
		has_note(&p, "ssh agent: the grant of /r/s.ini:3 is not used: "
			     "the network is only the allowed hosts, through "
			     "kinbox's proxy, and ssh needs the whole network"),
	    "an agent grant under --allow-host: not used, two notes");
	kb_policy_free(&p);

	kb_policy_init(&p);
	set_ok(&p, KB_OPT_UNCONFINED, "on", KB_ORIGIN_FLAG, "--unconfined");
	set_ok(&p, KB_OPT_ALLOW_HOST, "github.com", KB_ORIGIN_FLAG,
	    "--allow-host");
	ok(kb_options_validate(&p, &e) == -1 &&
		strcmp(e.msg, "--unconfined gives the whole network (no "
			      "sandbox at all) and --allow-host only some "
			      "hosts: use one of the two") == 0,
	    "--unconfined --allow-host: %s", e.msg);
	kb_policy_free(&p);
	kb_policy_init(&p);
	set_ok(&p, KB_OPT_UNCONFINED, "on", KB_ORIGIN_FLAG, "--unconfined");
	set_ok(&p, KB_OPT_SSH_AGENT, "on", KB_ORIGIN_FLAG, "--ssh-agent");
	ok(kb_options_validate(&p, &e) == 0,
	    "--unconfined alone is judged by nothing else (as before)");
	kb_policy_free(&p);
}

/* kinpolicy's grant: canonical, refused with the same words, not with
 * the whole network */
static void
test_grant_check(void)
{
	struct kb_grant g = { .life = KB_LIFE_SESSION };
	struct kb_err e = { 0 };

	kb_strv_push(&g.allowed_hosts, "GitHub.com.");
	kb_strv_push(&g.allowed_hosts, "registry.npmjs.org:8443");
	ok(kb_grant_check(&g, "/nonexistent-home", NULL, 0, &e) == 0 &&
		strcmp(g.allowed_hosts.v[0], "github.com:443") == 0 &&
		strcmp(g.allowed_hosts.v[1], "registry.npmjs.org:8443") == 0,
	    "granted hosts are stored canonical, name:port: %s", e.msg);
	g.on[KB_OPT_NET] = true;
	ok(kb_grant_check(&g, NULL, NULL, 0, &e) == -1 &&
		strcmp(e.msg, "--net gives the whole network and --allow-host "
			      "only some hosts: grant one of the two") == 0,
	    "not with --net: %s", e.msg);
	g.on[KB_OPT_NET] = false;
	g.on[KB_OPT_SSH_AGENT] = true;
	ok(kb_grant_check(&g, NULL, NULL, 0, &e) == -1 &&
		strstr(e.msg, "--ssh-agent needs the whole network") == e.msg,
	    "not with --ssh-agent: %s", e.msg);
	g.on[KB_OPT_SSH_AGENT] = false;
	kb_strv_push(&g.allowed_hosts, "metadata.google.internal");
	ok(kb_grant_check(&g, NULL, NULL, 0, &e) == -1 &&
		strcmp(e.msg, "--allow-host metadata.google.internal: "
			E_RESERVED) == 0,
	    "a refused entry, in kinbox's words: %s", e.msg);
	kb_grant_free(&g);
}

/* what kinbox says of a request its proxy refused, and the record */
static void
test_denial(void)
{
	static struct kb_denial d;
	struct kb_policy p;
	char *line, *json;
	json_t *r;

	memset(&d, 0, sizeof(d));
	d.cls = KB_CLASS_NETWORK;
	d.exact = true;
	snprintf(d.host, sizeof(d.host), "api.github.com:443");
	snprintf(d.reason, sizeof(d.reason), "not an allowed host");
	snprintf(d.suggest_host, sizeof(d.suggest_host), "api.github.com:443");
	line = kb_report_line(&d, "sbx_0123456789abcdef");
	assert_cmpstr(line, "denied network to api.github.com:443 (not an "
	    "allowed host; kinbox's proxy refused it, not a guess); if the "
	    "command should reach it, retry with --allow-host "
	    "api.github.com:443  [sbx_0123456789abcdef]",
	    "the proxy's denial: exact, the --allow-host that fits");
	free(line);
	snprintf(d.host, sizeof(d.host), "10.0.0.1\033[8m:80");
	snprintf(d.reason, sizeof(d.reason), "refused destination");
	/* the proxy's whole reason: the evidence (the command's words) */
	snprintf(d.evidence, sizeof(d.evidence), "an address\n");
	d.suggest_host[0] = '\0';
	line = kb_report_line(&d, "sbx_0123456789abcdef");
	assert_cmpstr(line, "denied network to 10.0.0.1\\x1b[8m:80 (an "
	    "address\\n; kinbox's proxy refused it, not a guess); no "
	    "--allow-host lifts that (a private or reserved destination, an "
	    "address, or a tunnel that is not TLS to that very host); only "
	    "--net, the whole network, would let it out  "
	    "[sbx_0123456789abcdef]",
	    "none fits: said so; the host and reason escaped");
	free(line);

	kb_policy_init(&p);
	set_ok(&p, KB_OPT_ALLOW_HOST, "github.com", KB_ORIGIN_FLAG,
	    "--allow-host");
	set_ok(&p, KB_OPT_ALLOW_HOST, "b.org:8443", KB_ORIGIN_SESSION,
	    "/r/s.ini:2");
	snprintf(d.suggest_host, sizeof(d.suggest_host), "api.github.com:443");
	json = kb_report_json(
	    &d, 1, "sbx_0123456789abcdef", &p, KB_BACKEND_BWRAP, 1);
	r = json_loads(json, 0, NULL);
	{
		json_t *sug = json_object_get(r, "suggest");
		json_t *pol = json_object_get(r, "policy");
		json_t *fl = json_object_get(r, "flags");
		json_t *a = json_object_get(sug, "allowed_hosts");

		ok(json_is_array(a) && json_array_size(a) == 1 &&
			strcmp(json_string_value(json_array_get(a, 0)),
			    "api.github.com:443") == 0,
		    "the record suggests allowed_hosts [host:port]");
		ok(json_is_true(json_object_get(r, "exact")),
		    "... and says the proxy saw it (exact)");
		a = json_object_get(pol, "allowed_hosts");
		ok(json_array_size(a) == 2 &&
			strcmp(json_string_value(json_array_get(a, 1)),
			    "b.org:8443") == 0,
		    "policy.allowed_hosts: what held, name:port");
		a = json_object_get(fl, "allowed_hosts");
		ok(json_array_size(a) == 1 &&
			strcmp(json_string_value(json_array_get(a, 0)),
			    "github.com:443") == 0,
		    "flags.allowed_hosts: what was typed (kinpolicy retry "
		    "replays it)");
	}
	json_decref(r);
	free(json);
	kb_policy_free(&p);
}

int
main(void)
{
	test_parse_table();
	test_parse_lengths();
	test_row_and_setter();
	test_combinations();
	test_agent_and_unconfined();
	test_grant_check();
	test_denial();
	return tap_done();
}
