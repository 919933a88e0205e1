/*
 * tests/unit/sbpl-check.h — a checker for the Seatbelt profiles (SBPL, the
 * Scheme of /usr/bin/sandbox-exec) that backends/seatbelt.c writes, for a
 * project with no macOS machine: a small s-expression reader, then the
 * shape kinbox's profiles keep (version 1 first, allow and deny rules
 * only, known operations and filters, every path through a defined
 * (param "KEY"), no policy path pasted as a literal). Static functions;
 * the tests are test-sbpl.c's.
 */
#ifndef KB_SBPL_CHECK_H
#define KB_SBPL_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <regex.h>
#include <string.h>

/* flags of sbpl_check_ex */
#define SBPL_UNUSED_OK 0x1 /* a parameter the profile never names is fine */
#define SBPL_VALUES_OK 0x2 /* a parameter's path may appear as a literal */

#define SBPL_MAX_DEPTH 32 /* kinbox's rules nest 4 deep; a bound for fuzz */

enum sbpl_kind {
	SBPL_LIST,
	SBPL_SYM,
	SBPL_NUM,
	SBPL_STR,
	SBPL_RE,
	SBPL_BOOL
};

struct sbpl_node {
	enum sbpl_kind kind;
	int line;
	int first, next; /* a list's first child, the next sibling; -1 ends */
	char *text;      /* atoms: the token; strings: the decoded bytes */
};

struct sbpl_ck {
	const char *s;
	size_t i, n;
	int line;
	struct sbpl_node *v; /* v[0] holds the top-level forms */
	size_t nv, cap;
	const char *const *params;
	size_t nparams;
	bool *used;
	const char *const *forbidden;
	unsigned flags;
	bool deny_default;
	char *err;
	size_t errlen;
};

/*
 * The operations: those the researched profiles use (Codex's
 * seatbelt_base/network/platform_defaults .sbpl, Gemini CLI's
 * sandbox-macos-{strict,restrictive}-proxied.sb, Chromium's sandbox/policy/mac/
 * profiles, Apple's /System/Library/Sandbox/Profiles as quoted) and the rest of
 * each family as Apple's profiles and the SBPL vim syntax file name them. A
 * name outside it is a typo sandbox-exec would refuse on the user's machine,
 * not here.
 */
static const char *const sbpl_ops[] = {"default", "appleevent-send",
    "distributed-notification-post", "dynamic-code-generation", "job-creation",
    "lsopen", "pseudo-tty", "signal", "file*", "file-chroot", "file-clone",
    "file-ioctl", "file-issue-extension", "file-link", "file-map-executable",
    "file-mknod", "file-read*", "file-read-data", "file-read-metadata",
    "file-read-xattr", "file-revoke", "file-test-existence", "file-write*",
    "file-write-create", "file-write-data", "file-write-flags",
    "file-write-mode", "file-write-mount", "file-write-owner",
    "file-write-setugid", "file-write-times", "file-write-unlink",
    "file-write-unmount", "file-write-xattr", "iokit-open",
    "iokit-get-properties", "iokit-set-properties", "ipc*", "ipc-posix*",
    "ipc-posix-sem", "ipc-posix-shm", "ipc-posix-shm*", "ipc-posix-shm-read*",
    "ipc-posix-shm-read-data", "ipc-posix-shm-read-metadata",
    "ipc-posix-shm-write*", "ipc-posix-shm-write-create",
    "ipc-posix-shm-write-data", "ipc-posix-shm-write-unlink", "ipc-sysv*",
    "ipc-sysv-msg", "ipc-sysv-sem", "ipc-sysv-shm", "mach*", "mach-bootstrap",
    "mach-cross-domain-lookup", "mach-host*", "mach-lookup",
    "mach-per-user-lookup", "mach-priv*", "mach-priv-host-port",
    "mach-priv-task-port", "mach-register", "mach-task-name", "network*",
    "network-bind", "network-inbound", "network-outbound", "nvram*",
    "nvram-delete", "nvram-get", "nvram-set", "process*", "process-exec",
    "process-exec*", "process-fork", "process-info*",
    "process-info-codesignature", "process-info-dirtycontrol",
    "process-info-listpids", "process-info-pidfdinfo",
    "process-info-pidfileportinfo", "process-info-pidinfo",
    "process-info-rusage", "process-info-setcontrol", "sysctl*", "sysctl-read",
    "sysctl-write", "system*", "system-acct", "system-audit", "system-fsctl",
    "system-lcid", "system-mac-label", "system-mac-syscall", "system-nfssvc",
    "system-reboot", "system-sched", "system-set-time", "system-socket",
    "system-swap", "system-write-bootstrap", "user-preference-read",
    "user-preference-write", "user-preference*", "file-mount", "file-unmount",
    "file-search", "iokit*", "process-exec-interpreter", "system-info",
    "system-privilege", "system-debug", "system-kext*", "system-kext-load",
    "system-kext-unload", "system-suspend-resume", "load-unsigned-code",
    "hid-control", "device*", "device-camera", "device-microphone",
    "generic-issue-extension", "iokit-issue-extension",
    "ipc-posix-issue-extension", "mach-issue-extension",
    "authorization-right-obtain", NULL};

/* what a filter takes */
enum sbpl_arg {
	SBPL_A_VALUE,   /* strings, (param), (string-append) */
	SBPL_A_REGEX,   /* strings or #"..." only: a parameter is no regex */
	SBPL_A_FILTERS, /* filters (require-all, require-any) */
	SBPL_A_NOT,     /* one filter */
	SBPL_A_TARGET,  /* one of sbpl_targets */
	SBPL_A_VNODE,   /* one of sbpl_vnodes */
	SBPL_A_NET,     /* a socket kind, then an address or (path-literal) */
	SBPL_A_CONST,   /* names, numbers, strings: AF_SYSTEM, FIOCLEX, 67 */
	SBPL_A_NONE,
};

/* clang-format off */
static const struct { const char *name; enum sbpl_arg arg; } sbpl_filters[] = {
	{ "literal", SBPL_A_VALUE }, { "path", SBPL_A_VALUE },
	{ "subpath", SBPL_A_VALUE }, { "prefix", SBPL_A_VALUE },
	{ "path-ancestors", SBPL_A_VALUE }, { "path-literal", SBPL_A_VALUE },
	{ "regex", SBPL_A_REGEX },
	{ "global-name", SBPL_A_VALUE }, { "global-name-prefix", SBPL_A_VALUE },
	{ "global-name-regex", SBPL_A_REGEX },
	{ "local-name", SBPL_A_VALUE }, { "local-name-prefix", SBPL_A_VALUE },
	{ "local-name-regex", SBPL_A_REGEX },
	{ "xpc-service-name", SBPL_A_VALUE },
	{ "xpc-service-name-prefix", SBPL_A_VALUE },
	{ "sysctl-name", SBPL_A_VALUE }, { "sysctl-name-prefix", SBPL_A_VALUE },
	{ "sysctl-name-regex", SBPL_A_REGEX },
	{ "ipc-posix-name", SBPL_A_VALUE },
	{ "ipc-posix-name-prefix", SBPL_A_VALUE },
	{ "ipc-posix-name-regex", SBPL_A_REGEX },
	{ "iokit-registry-entry-class", SBPL_A_VALUE },
	{ "iokit-user-client-class", SBPL_A_VALUE },
	{ "iokit-connection", SBPL_A_VALUE },
	{ "preference-domain", SBPL_A_VALUE },
	{ "extension", SBPL_A_VALUE }, { "extension-class", SBPL_A_VALUE },
	{ "signing-identifier", SBPL_A_VALUE },
	{ "mac-policy-name", SBPL_A_VALUE },
	{ "require-all", SBPL_A_FILTERS }, { "require-any", SBPL_A_FILTERS },
	{ "require-not", SBPL_A_NOT },
	{ "target", SBPL_A_TARGET }, { "vnode-type", SBPL_A_VNODE },
	{ "local", SBPL_A_NET }, { "remote", SBPL_A_NET },
	{ "ioctl-command", SBPL_A_CONST }, { "fsctl-command", SBPL_A_CONST },
	{ "socket-domain", SBPL_A_CONST }, { "socket-type", SBPL_A_CONST },
	{ "socket-protocol", SBPL_A_CONST },
	{ "mac-syscall-number", SBPL_A_CONST }, { "file-mode", SBPL_A_CONST },
	{ "xattr", SBPL_A_VALUE }, { "xattr-regex", SBPL_A_REGEX },
	{ "iokit-property", SBPL_A_VALUE }, { "kext-bundle-id", SBPL_A_VALUE },
	{ "appleevent-destination", SBPL_A_VALUE },
	{ "right-name", SBPL_A_VALUE }, { "control-name", SBPL_A_VALUE },
	{ "device-major", SBPL_A_CONST }, { "device-minor", SBPL_A_CONST },
	{ "semaphore-owner", SBPL_A_TARGET },
	{ "debug-mode", SBPL_A_NONE },
	{ NULL, SBPL_A_NONE }
};
/* clang-format on */

static const char *const sbpl_targets[] = {
    "self", "same-sandbox", "others", "children", "pgrp", NULL};
static const char *const sbpl_vnodes[] = {"REGULAR-FILE", "DIRECTORY",
    "SYMLINK", "FIFO", "SOCKET", "CHARACTER-DEVICE", "BLOCK-DEVICE", "TTY",
    NULL};
static const char *const sbpl_socks[] = {"ip", "ip4", "ip6", "tcp", "tcp4",
    "tcp6", "udp", "udp4", "udp6", "unix", "unix-socket", NULL};

static bool
sbpl_in(const char *const *set, const char *s)
{
	for (; *set != NULL; set++)
		if (strcmp(*set, s) == 0)
			return true;
	return false;
}

/* the first error wins; line 0: the parameters, not a place in the text */
__attribute__((format(printf, 3, 4))) static int
sbpl_fail(struct sbpl_ck *k, int line, const char *fmt, ...)
{
	va_list ap;
	int off = 0;

	if (k->err == NULL || k->errlen == 0 || k->err[0] != '\0')
		return -1;
	if (line > 0)
		off = snprintf(k->err, k->errlen, "line %d: ", line);
	if (off >= 0 && (size_t)off < k->errlen) {
		va_start(ap, fmt);
		vsnprintf(k->err + off, k->errlen - off, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* `s` shown in a one-line message: escaped, at most 48 bytes of it */
static const char *
sbpl_vis(const char *s, char out[80])
{
	size_t o = 0;

	for (; *s != '\0' && o < 48; s++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"')
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, 6, "\\x%02x", c);
	}
	if (*s != '\0')
		o += (size_t)snprintf(out + o, 4, "...");
	out[o] = '\0';
	return out;
}

static int
sbpl_new(struct sbpl_ck *k, enum sbpl_kind kind, char *text)
{
	if (k->nv == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 64;
		struct sbpl_node *v = realloc(k->v, cap * sizeof(*v));
		if (v == NULL) {
			free(text);
			return sbpl_fail(k, k->line, "out of memory");
		}
		k->v = v;
		k->cap = cap;
	}
	k->v[k->nv] = (struct sbpl_node){kind, k->line, -1, -1, text};
	return (int)k->nv++;
}

/* --- the reader ---------------------------------------------------------- */

static bool
sbpl_delim(char c)
{
	return c == '(' || c == ')' || c == '"' || c == ';' || c == ' ' ||
	       c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* blanks, ; comments to the end of the line, #| block comments |# */
static int
sbpl_skip(struct sbpl_ck *k)
{
	while (k->i < k->n) {
		char c = k->s[k->i];
		int open = k->line;

		if (c == '\n') {
			k->line++;
			k->i++;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' ||
			   c == '\v') {
			k->i++;
		} else if (c == ';') {
			while (k->i < k->n && k->s[k->i] != '\n')
				k->i++;
		} else if (c == '#' && k->i + 1 < k->n &&
			   k->s[k->i + 1] == '|') {
			for (k->i += 2;; k->i++) {
				if (k->i + 1 >= k->n)
					return sbpl_fail(k, open,
					    "a #| comment is not closed by |#");
				if (k->s[k->i] == '|' && k->s[k->i + 1] == '#')
					break;
				if (k->s[k->i] == '\n')
					k->line++;
			}
			k->i += 2;
		} else {
			break;
		}
	}
	return 0;
}

static int
sbpl_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
		return (c | 0x20) - 'a' + 10;
	return -1;
}

/*
 * A string at k->i ("..." with \" \\ \n \t \r \xHH) or, `re`, a regex
 * literal #"...", whose backslashes stay as written (\" does not end it).
 */
static int
sbpl_string(struct sbpl_ck *k, bool re)
{
	int open = k->line;
	size_t len = 0;
	char *b = malloc(k->n - k->i + 1), e;

	if (b == NULL)
		return sbpl_fail(k, open, "out of memory");
	for (k->i += re ? 2 : 1;;) {
		if (k->i >= k->n) {
			free(b);
			return sbpl_fail(
			    k, open, "a string is not closed by \"");
		}
		char c = k->s[k->i++];
		if (c == '"')
			break;
		if (c == '\n')
			k->line++;
		if (c != '\\' || k->i >= k->n) {
			b[len++] = c;
			continue;
		}
		e = k->s[k->i++];
		if (re) {
			b[len++] = c;
			b[len++] = e;
			k->line += e == '\n';
			continue;
		}
		if (e == 'x' && k->i < k->n && sbpl_hex(k->s[k->i]) >= 0) {
			int h = sbpl_hex(k->s[k->i++]);
			if (k->i < k->n && sbpl_hex(k->s[k->i]) >= 0)
				h = h * 16 + sbpl_hex(k->s[k->i++]);
			c = (char)h;
		} else if (e == '"' || e == '\\') {
			c = e;
		} else if (e == 'n' || e == 't' || e == 'r') {
			c = e == 'n' ? '\n' : e == 't' ? '\t' : '\r';
		} else {
			free(b);
			return sbpl_fail(k, k->line,
			    "an escape \\%c in a string that SBPL does not "
			    "know",
			    e >= 0x21 && e < 0x7f ? e : '?');
		}
		if (c == '\0') {
			free(b);
			return sbpl_fail(k, k->line, "a NUL byte in a string");
		}
		b[len++] = c;
	}
	b[len] = '\0';
	return sbpl_new(k, re ? SBPL_RE : SBPL_STR, b);
}

static int
sbpl_atom(struct sbpl_ck *k)
{
	size_t st = k->i, j;
	bool num = true, dot = false, digit = false;
	char *t;

	for (; k->i < k->n && !sbpl_delim(k->s[k->i]); k->i++) {
		unsigned char c = (unsigned char)k->s[k->i];
		if (c < 0x21 || c >= 0x7f)
			return sbpl_fail(k, k->line,
			    "a control or non-ASCII byte 0x%02x outside a "
			    "string",
			    c);
		if (c == '\'' || c == '`' || c == ',')
			return sbpl_fail(k, k->line,
			    "a quote (%c): kinbox profiles are data, not "
			    "Scheme",
			    c);
	}
	for (j = st + (k->s[st] == '-' && k->i - st > 1); j < k->i; j++) {
		if (k->s[j] == '.' && !dot)
			dot = true;
		else if (k->s[j] < '0' || k->s[j] > '9')
			num = false;
		else
			digit = true;
	}
	num = num && digit;
	if ((t = strndup(k->s + st, k->i - st)) == NULL)
		return sbpl_fail(k, k->line, "out of memory");
	if (t[0] == '#' && strcmp(t, "#t") != 0 && strcmp(t, "#f") != 0) {
		char vis[80];
		sbpl_fail(k, k->line, "unknown # syntax %s", sbpl_vis(t, vis));
		free(t);
		return -1;
	}
	return sbpl_new(k,
	    t[0] == '#' ? SBPL_BOOL
	    : num       ? SBPL_NUM
			: SBPL_SYM,
	    t);
}

static int
sbpl_read(struct sbpl_ck *k, int depth)
{
	int list, last = -1, child, open = k->line;
	char c = k->s[k->i];

	if (c == ')')
		return sbpl_fail(k, k->line, "')' without a '(' to close");
	if (c == '"' || (c == '#' && k->i + 1 < k->n && k->s[k->i + 1] == '"'))
		return sbpl_string(k, c == '#');
	if (c != '(')
		return sbpl_atom(k);
	if (depth >= SBPL_MAX_DEPTH)
		return sbpl_fail(
		    k, open, "forms nested deeper than %d", SBPL_MAX_DEPTH);
	if ((list = sbpl_new(k, SBPL_LIST, NULL)) < 0)
		return -1;
	for (k->i++;;) {
		if (sbpl_skip(k) < 0)
			return -1;
		if (k->i >= k->n)
			return sbpl_fail(k, open, "'(' is not closed by ')'");
		if (k->s[k->i] == ')') {
			k->i++;
			return list;
		}
		if ((child = sbpl_read(k, depth + 1)) < 0)
			return -1;
		if (last < 0)
			k->v[list].first = child;
		else
			k->v[last].next = child;
		last = child;
	}
}

/* --- the checks ---------------------------------------------------------- */

/* a string literal: no policy path, no parameter's path pasted in */
static int
sbpl_literal(struct sbpl_ck *k, int x)
{
	const char *t = k->v[x].text;
	char a[80], b[80];
	size_t j;

	for (j = 0; k->forbidden != NULL && k->forbidden[j] != NULL; j++)
		if (k->forbidden[j][0] != '\0' && strstr(t, k->forbidden[j]))
			return sbpl_fail(k, k->v[x].line,
			    "the string \"%s\" holds the policy path \"%s\": "
			    "paths enter only through (param \"KEY\")",
			    sbpl_vis(t, a), sbpl_vis(k->forbidden[j], b));
	for (j = 0; j < k->nparams && !(k->flags & SBPL_VALUES_OK); j++) {
		const char *val = strchr(k->params[j], '=') + 1;
		if (val[0] == '/' && val[1] != '\0' && strstr(t, val))
			return sbpl_fail(k, k->v[x].line,
			    "the string \"%s\" holds the value of parameter "
			    "%.*s: use (param \"%.*s\")",
			    sbpl_vis(t, a), (int)(val - k->params[j] - 1),
			    k->params[j], (int)(val - k->params[j] - 1),
			    k->params[j]);
	}
	return 0;
}

static int
sbpl_nargs(struct sbpl_ck *k, int list)
{
	int n = 0, x = k->v[list].first;

	for (x = x >= 0 ? k->v[x].next : -1; x >= 0; x = k->v[x].next)
		n++;
	return n;
}

/* the head of a list, when it is a name */
static const char *
sbpl_head(struct sbpl_ck *k, int list)
{
	int h = k->v[list].first;

	return h >= 0 && k->v[h].kind == SBPL_SYM ? k->v[h].text : NULL;
}

static int
sbpl_param(struct sbpl_ck *k, int x)
{
	int a = k->v[k->v[x].first].next;
	size_t j, kl;
	char vis[80];

	if (sbpl_nargs(k, x) != 1 || k->v[a].kind != SBPL_STR)
		return sbpl_fail(k, k->v[x].line,
		    "(param) takes one string, the parameter's name: "
		    "(param \"KEY\")");
	for (j = 0, kl = strlen(k->v[a].text); j < k->nparams; j++)
		if (strncmp(k->params[j], k->v[a].text, kl) == 0 &&
		    k->params[j][kl] == '=') {
			k->used[j] = true;
			return 0;
		}
	return sbpl_fail(k, k->v[x].line,
	    "(param \"%s\") is not defined: no -D %s=VALUE is given",
	    sbpl_vis(k->v[a].text, vis), vis);
}

/* a value: a string, (param "KEY") or (string-append VALUE...) */
static int
sbpl_value(struct sbpl_ck *k, int x, bool re)
{
	const char *h;
	int a;

	if (k->v[x].kind == SBPL_STR || (re && k->v[x].kind == SBPL_RE))
		return sbpl_literal(k, x);
	if (k->v[x].kind != SBPL_LIST)
		return sbpl_fail(k, k->v[x].line,
		    "%s where a string or (param \"KEY\") belongs",
		    k->v[x].kind == SBPL_RE ? "a #\"regex\"" : k->v[x].text);
	h = sbpl_head(k, x);
	if (h != NULL && strcmp(h, "param") == 0)
		return re ? sbpl_fail(k, k->v[x].line,
				"a (param) inside a regex filter: its value "
				"is not escaped as a regular expression")
			  : sbpl_param(k, x);
	if (h == NULL || strcmp(h, "string-append") != 0 ||
	    sbpl_nargs(k, x) == 0)
		return sbpl_fail(k, k->v[x].line,
		    "(%s ...) where a string or (param \"KEY\") belongs",
		    h != NULL ? h : "");
	for (a = k->v[k->v[x].first].next; a >= 0; a = k->v[a].next)
		if (sbpl_value(k, a, re) < 0)
			return -1;
	return 0;
}

/* the value of the parameter KEY (which sbpl_param found given) */
static const char *
sbpl_param_value(struct sbpl_ck *k, const char *key)
{
	size_t j, kl = strlen(key);

	for (j = 0; j < k->nparams; j++)
		if (strncmp(k->params[j], key, kl) == 0 &&
		    k->params[j][kl] == '=')
			return k->params[j] + kl + 1;
	return "";
}

/*
 * A (subpath) argument, already a valid value: Apple's SBPL prelude
 * refuses an empty one and one longer than "/" that ends with a slash;
 * of a (string-append), its last piece decides.
 */
static int
sbpl_subpath(struct sbpl_ck *k, int x)
{
	const char *t = "", *h;
	int a, last = -1;
	size_t l;
	bool app = false; /* a piece of a (string-append) */
	char vis[80];

	while (k->v[x].kind == SBPL_LIST) {
		h = sbpl_head(k, x);
		for (a = k->v[k->v[x].first].next; a >= 0; a = k->v[a].next)
			last = a;
		if (strcmp(h, "param") == 0) {
			t = sbpl_param_value(k, k->v[last].text);
			l = strlen(t);
			if (app ? l > 0 && t[l - 1] == '/'
				: l == 0 || (l > 1 && t[l - 1] == '/'))
				return sbpl_fail(k, k->v[x].line,
				    "(subpath (param \"%s\")): its value "
				    "\"%s\" is empty or ends with a slash, "
				    "which (subpath) refuses",
				    k->v[last].text, sbpl_vis(t, vis));
			return 0;
		}
		x = last;
		app = true;
	}
	t = k->v[x].text;
	l = strlen(t);
	if (app ? l > 0 && t[l - 1] == '/'
		: l == 0 || (l > 1 && t[l - 1] == '/'))
		return sbpl_fail(k, k->v[x].line,
		    "(subpath \"%s\") is empty or ends with a slash, which "
		    "(subpath) refuses",
		    sbpl_vis(t, vis));
	return 0;
}

static int
sbpl_filter(struct sbpl_ck *k, int x)
{
	const char *h = sbpl_head(k, x);
	int line = k->v[x].line, n = sbpl_nargs(k, x), a, j;
	enum sbpl_arg arg;
	char vis[80];

	if (h == NULL)
		return sbpl_fail(k, line, "a filter must start with its name");
	for (j = 0; sbpl_filters[j].name && strcmp(sbpl_filters[j].name, h);)
		j++;
	if (sbpl_filters[j].name == NULL)
		return sbpl_fail(k, line,
		    strcmp(h, "param") == 0 || strcmp(h, "string-append") == 0
			? "(%s) stands for a value, not a filter: wrap it, "
			  "e.g. (subpath (param \"ROOT\"))"
			: "unknown filter (%s ...)",
		    sbpl_vis(h, vis));
	arg = sbpl_filters[j].arg;
	a = k->v[k->v[x].first].next;
	if ((arg == SBPL_A_NONE) != (n == 0) || (arg == SBPL_A_NOT && n != 1) ||
	    (arg == SBPL_A_NET && n > 2))
		return sbpl_fail(k, line, "(%s) with %d argument%s", h, n,
		    n == 1 ? "" : "s");
	switch (arg) {
	case SBPL_A_VALUE:
	case SBPL_A_REGEX:
		for (; a >= 0; a = k->v[a].next)
			if (sbpl_value(k, a, arg == SBPL_A_REGEX) < 0 ||
			    (strcmp(h, "subpath") == 0 &&
				sbpl_subpath(k, a) < 0))
				return -1;
		return 0;
	case SBPL_A_FILTERS:
	case SBPL_A_NOT:
		for (; a >= 0; a = k->v[a].next)
			if (k->v[a].kind != SBPL_LIST)
				return sbpl_fail(
				    k, k->v[a].line, "(%s) takes filters", h);
			else if (sbpl_filter(k, a) < 0)
				return -1;
		return 0;
	case SBPL_A_TARGET:
	case SBPL_A_VNODE:
		for (; a >= 0; a = k->v[a].next)
			if (k->v[a].kind != SBPL_SYM ||
			    !sbpl_in(arg == SBPL_A_TARGET ? sbpl_targets
							  : sbpl_vnodes,
				k->v[a].text))
				return sbpl_fail(k, line, "(%s %s): not a %s",
				    h,
				    k->v[a].kind == SBPL_SYM ? k->v[a].text
							     : "...",
				    arg == SBPL_A_TARGET ? "process target"
							 : "vnode type");
		return 0;
	case SBPL_A_NET:
		if (k->v[a].kind != SBPL_SYM ||
		    !sbpl_in(sbpl_socks, k->v[a].text))
			return sbpl_fail(k, line,
			    "(%s) starts with a socket kind: ip, tcp, udp, "
			    "unix-socket...",
			    h);
		a = k->v[a].next;
		if (a < 0)
			return 0;
		h = k->v[a].kind == SBPL_LIST ? sbpl_head(k, a) : NULL;
		/* a unix socket is named by a path filter: (path-literal
		 * ...), as Apple's profiles do, or (subpath ...), (literal
		 * ...), (regex ...), as Codex and sandbox-runtime do */
		return h != NULL && (strcmp(h, "path-literal") == 0 ||
					strcmp(h, "subpath") == 0 ||
					strcmp(h, "literal") == 0 ||
					strcmp(h, "prefix") == 0 ||
					strcmp(h, "regex") == 0)
			   ? sbpl_filter(k, a)
			   : sbpl_value(k, a, false);
	case SBPL_A_CONST:
		for (; a >= 0; a = k->v[a].next)
			if (k->v[a].kind == SBPL_STR) {
				if (sbpl_literal(k, a) < 0)
					return -1;
			} else if (k->v[a].kind != SBPL_SYM &&
				   k->v[a].kind != SBPL_NUM) {
				return sbpl_fail(
				    k, line, "(%s) takes names or numbers", h);
			}
		return 0;
	case SBPL_A_NONE:
		return 0;
	}
	return sbpl_fail(k, line, "(%s): no check for it", h);
}

/* (with message "..."), (with no-log), (with report), (with send-signal S) */
static int
sbpl_with(struct sbpl_ck *k, int x)
{
	int m = k->v[k->v[x].first].next, n = sbpl_nargs(k, x), a;
	const char *t = m >= 0 && k->v[m].kind == SBPL_SYM ? k->v[m].text : "";
	char vis[80];

	a = m >= 0 ? k->v[m].next : -1;
	if (strcmp(t, "message") == 0 && n == 2)
		return sbpl_value(k, a, false);
	if ((strcmp(t, "no-log") == 0 || strcmp(t, "report") == 0 ||
		strcmp(t, "no-report") == 0) &&
	    n == 1)
		return 0;
	if (strcmp(t, "send-signal") == 0 && n == 2 &&
	    (k->v[a].kind == SBPL_NUM ||
		(k->v[a].kind == SBPL_SYM &&
		    strncmp(k->v[a].text, "SIG", 3) == 0)))
		return 0;
	return sbpl_fail(k, k->v[x].line,
	    "(with %s ...) is not a modifier: message STRING, no-log, report, "
	    "no-report or send-signal SIGNAL",
	    sbpl_vis(t, vis));
}

/* (allow OP... FILTER...) or (deny OP... FILTER...), (with ...) anywhere */
static int
sbpl_rule(struct sbpl_ck *k, int x, const char *verb)
{
	int a, nops = 0, nfilters = 0, line = k->v[x].line;
	bool dflt = false;
	char vis[80];

	for (a = k->v[k->v[x].first].next; a >= 0; a = k->v[a].next) {
		const char *h =
		    k->v[a].kind == SBPL_LIST ? sbpl_head(k, a) : NULL;
		if (k->v[a].kind == SBPL_SYM) {
			if (nfilters > 0)
				return sbpl_fail(k, k->v[a].line,
				    "operation %s after a filter: the "
				    "operations come first",
				    sbpl_vis(k->v[a].text, vis));
			if (!sbpl_in(sbpl_ops, k->v[a].text))
				return sbpl_fail(k, k->v[a].line,
				    "unknown operation %s",
				    sbpl_vis(k->v[a].text, vis));
			dflt |= strcmp(k->v[a].text, "default") == 0;
			nops++;
		} else if (h != NULL && strcmp(h, "with") == 0) {
			if (sbpl_with(k, a) < 0)
				return -1;
		} else if (k->v[a].kind == SBPL_LIST) {
			if (sbpl_filter(k, a) < 0)
				return -1;
			nfilters++;
		} else {
			return sbpl_fail(k, k->v[a].line,
			    "(%s) takes operations and filters, not a %s", verb,
			    k->v[a].kind == SBPL_NUM ? "number" : "literal");
		}
	}
	if (nops == 0)
		return sbpl_fail(k, line, "(%s) without an operation", verb);
	if (dflt && verb[0] == 'a')
		return sbpl_fail(k, line,
		    "(allow default): a kinbox profile denies by default and "
		    "allows only what the policy grants");
	if (dflt && (nops > 1 || nfilters > 0))
		return sbpl_fail(k, line,
		    "(deny default) takes no other operation and no filter");
	k->deny_default |= dflt;
	return 0;
}

static int
sbpl_top(struct sbpl_ck *k)
{
	int x = k->v[0].first, a = -1;
	const char *h = NULL;
	char vis[80];

	if (x >= 0 && k->v[x].kind == SBPL_LIST &&
	    (h = sbpl_head(k, x)) != NULL && sbpl_nargs(k, x) == 1)
		a = k->v[k->v[x].first].next;
	if (a < 0 || strcmp(h, "version") != 0 || k->v[a].kind != SBPL_NUM ||
	    strcmp(k->v[a].text, "1") != 0)
		return sbpl_fail(k, x < 0 ? k->line : k->v[x].line,
		    "the first form must be (version 1)");
	for (x = k->v[x].next; x >= 0; x = k->v[x].next) {
		if (k->v[x].kind != SBPL_LIST)
			return sbpl_fail(k, k->v[x].line,
			    "%s outside any form: every top-level form is a "
			    "list",
			    k->v[x].kind == SBPL_STR || k->v[x].kind == SBPL_RE
				? "a string"
				: sbpl_vis(k->v[x].text, vis));
		if ((a = k->v[x].first) < 0 || k->v[a].kind != SBPL_SYM)
			return sbpl_fail(k, k->v[x].line,
			    "a top-level form must start with allow or deny");
		h = k->v[a].text;
		if (strcmp(h, "allow") == 0 || strcmp(h, "deny") == 0) {
			if (sbpl_rule(k, x, h) < 0)
				return -1;
		} else {
			return sbpl_fail(k, k->v[x].line,
			    strcmp(h, "version") == 0 ? "a second (%s)"
			    : strcmp(h, "import") == 0
				? "(%s ...): a kinbox profile is whole, it "
				  "imports nothing"
			    : strcmp(h, "define") == 0
				? "(%s ...): a kinbox profile defines nothing, "
				  "every rule is an allow or a deny"
				: "(%s ...) at top level: only (version 1), "
				  "(allow ...) and (deny ...) are",
			    sbpl_vis(h, vis));
		}
	}
	if (!k->deny_default)
		return sbpl_fail(k, 0,
		    "no (deny default): a kinbox profile denies what it does "
		    "not allow");
	return 0;
}

/* the parameters: KEY=VALUE each, KEY of [A-Za-z0-9_.-], given once */
static int
sbpl_params(struct sbpl_ck *k)
{
	size_t j, l, kl;
	char vis[80];

	for (j = 0; j < k->nparams; j++) {
		const char *p = k->params[j], *eq = strchr(p, '=');
		kl = eq != NULL ? (size_t)(eq - p) : 0;
		if (kl == 0 ||
		    strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijkl"
			      "mnopqrstuvwxyz0123456789_.-") != kl)
			return sbpl_fail(k, 0,
			    "parameter %zu \"%s\" is not KEY=VALUE with a KEY "
			    "of letters, digits, '_', '.' and '-'",
			    j + 1, sbpl_vis(p, vis));
		for (l = 0; l < j; l++)
			if (strncmp(k->params[l], p, kl + 1) == 0)
				return sbpl_fail(k, 0,
				    "parameter %.*s is given twice", (int)kl,
				    p);
	}
	return 0;
}

/*
 * Checks the profile buf[0..len) (no NUL needed after it) against the
 * shape above. `params` "KEY=VALUE" strings, NULL-terminated (or NULL):
 * every (param "KEY") must name one, and each must be used (unless
 * SBPL_UNUSED_OK). `forbidden` strings (NULL-terminated, or NULL; the
 * policy's paths) must appear in no string literal nor anywhere in the
 * text, comments included; nor may a parameter's absolute value (unless
 * SBPL_VALUES_OK). Returns 0, or -1 with one line in `err` naming the
 * first problem and, where it has one, its line.
 */
static inline int
sbpl_check_ex(const char *buf, size_t len, const char *const *params,
    const char *const *forbidden, unsigned flags, char *err, size_t errlen)
{
	struct sbpl_ck k = {.s = buf,
	    .n = len,
	    .line = 1,
	    .params = params,
	    .forbidden = forbidden,
	    .flags = flags,
	    .err = err,
	    .errlen = errlen};
	const char *nul;
	int rc = -1, x, last = 0;
	size_t j;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	while (params != NULL && params[k.nparams] != NULL)
		k.nparams++;
	if ((k.used = calloc(k.nparams + 1, sizeof(*k.used))) == NULL)
		return sbpl_fail(&k, 0, "out of memory");
	if (sbpl_params(&k) < 0 || sbpl_new(&k, SBPL_LIST, NULL) < 0)
		goto out;
	if ((nul = memchr(buf, '\0', len)) != NULL) {
		for (j = 0; buf + j < nul; j++)
			k.line += buf[j] == '\n';
		sbpl_fail(&k, k.line, "a NUL byte in the profile");
		goto out;
	}
	for (;;) {
		if (sbpl_skip(&k) < 0)
			goto out;
		if (k.i >= k.n)
			break;
		if ((x = sbpl_read(&k, 0)) < 0)
			goto out;
		if (last == 0)
			k.v[0].first = x;
		else
			k.v[last].next = x;
		last = x;
	}
	if (sbpl_top(&k) < 0)
		goto out;
	for (j = 0; j < k.nparams && !(flags & SBPL_UNUSED_OK); j++)
		if (!k.used[j]) {
			sbpl_fail(&k, 0,
			    "parameter %.*s is given (-D) but the profile "
			    "never "
			    "uses it",
			    (int)(strchr(params[j], '=') - params[j]),
			    params[j]);
			goto out;
		}
	for (j = 0; forbidden != NULL && forbidden[j] != NULL; j++) {
		const char *p =
		    forbidden[j][0] != '\0'
			? memmem(buf, len, forbidden[j], strlen(forbidden[j]))
			: NULL;
		char vis[80];
		if (p != NULL) {
			for (k.line = 1; buf < p; buf++)
				k.line += *buf == '\n';
			sbpl_fail(&k, k.line,
			    "the profile text holds the policy path \"%s\" "
			    "(in a comment?): the text must not depend on a "
			    "path",
			    sbpl_vis(forbidden[j], vis));
			goto out;
		}
	}
	rc = 0;
out:
	for (j = 0; j < k.nv; j++)
		free(k.v[j].text);
	free(k.v);
	free(k.used);
	return rc;
}

/* sbpl_check_ex of a NUL-terminated profile with no flags */
static inline int
sbpl_check(const char *profile, const char *const *params,
    const char *const *forbidden, char *err, size_t errlen)
{
	return sbpl_check_ex(
	    profile, strlen(profile), params, forbidden, 0, err, errlen);
}

/* --- deciding a request -------------------------------------------------- */

/*
 * What sandbox-exec would decide for one request, read from the profile as
 * SBPL reads it (Apple's reference is not public; this is the rule the
 * researched profiles and write-ups agree on): every rule whose operation
 * covers the request's ("file-read*" covers "file-read-data", "default"
 * covers all) and one of whose filters matches (several filters in a rule
 * are alternatives; a rule without filters matches) is a candidate, and
 * the last candidate decides. Filters it cannot judge here (network
 * addresses, vnode types, process targets) never match. Nothing of this is
 * sandbox-exec: a profile it decides a way may still be decided otherwise
 * on a Mac.
 */
struct sbpl_req {
	const char *op;        /* "file-read-data", "sysctl-read", ... */
	const char *path;      /* the path of a file operation */
	const char *name;      /* a sysctl's or a Mach service's name */
	const char *extension; /* a sandbox extension the process holds */
	const char *ioctl;     /* an ioctl's name (TIOCSTI) */
};

#define SBPL_DENY  0
#define SBPL_ALLOW 1

static bool sbpl_match(struct sbpl_ck *k, int x, const struct sbpl_req *q);

/* a value's text: a string, a parameter's value, a (string-append); a
 * new string, or NULL */
static char *
sbpl_text(struct sbpl_ck *k, int x)
{
	const char *h;
	char *out, *piece;
	size_t len = 0;
	int a;

	if (k->v[x].kind == SBPL_STR || k->v[x].kind == SBPL_RE)
		return strdup(k->v[x].text);
	if (k->v[x].kind != SBPL_LIST || (h = sbpl_head(k, x)) == NULL)
		return NULL;
	a = k->v[k->v[x].first].next;
	if (strcmp(h, "param") == 0)
		return a >= 0 ? strdup(sbpl_param_value(k, k->v[a].text))
			      : NULL;
	if (strcmp(h, "string-append") != 0 || (out = strdup("")) == NULL)
		return NULL;
	for (; a >= 0; a = k->v[a].next) {
		char *grown;

		if ((piece = sbpl_text(k, a)) == NULL ||
		    (grown = realloc(out, len + strlen(piece) + 1)) == NULL) {
			free(piece);
			free(out);
			return NULL;
		}
		out = grown;
		memcpy(out + len, piece, strlen(piece) + 1);
		len += strlen(piece);
		free(piece);
	}
	return out;
}

static bool
sbpl_match_value(const char *h, const char *v, const struct sbpl_req *q)
{
	const char *path = q->path, *name = q->name;
	size_t n = strlen(v);

	if (strcmp(h, "literal") == 0 || strcmp(h, "path") == 0 ||
	    strcmp(h, "path-literal") == 0)
		return path != NULL && strcmp(path, v) == 0;
	if (strcmp(h, "subpath") == 0)
		return path != NULL &&
		       (strcmp(v, "/") == 0 ||
			   (strncmp(path, v, n) == 0 &&
			       (path[n] == '\0' || path[n] == '/')));
	if (strcmp(h, "prefix") == 0)
		return path != NULL && strncmp(path, v, n) == 0;
	if (strcmp(h, "sysctl-name") == 0 || strcmp(h, "global-name") == 0)
		return name != NULL && strcmp(name, v) == 0;
	if (strcmp(h, "sysctl-name-prefix") == 0 ||
	    strcmp(h, "global-name-prefix") == 0)
		return name != NULL && strncmp(name, v, n) == 0;
	if (strcmp(h, "extension") == 0)
		return q->extension != NULL && strcmp(q->extension, v) == 0;
	return false;
}

/* a POSIX extended regular expression: what SBPL's regex syntax is for
 * the patterns kinbox writes (anchors, classes, +) */
static bool
sbpl_match_regex(const char *re, const char *s)
{
	regex_t r;
	bool m;

	if (s == NULL || regcomp(&r, re, REG_EXTENDED | REG_NOSUB) != 0)
		return false;
	m = regexec(&r, s, 0, NULL, 0) == 0;
	regfree(&r);
	return m;
}

static bool
sbpl_match(struct sbpl_ck *k, int x, const struct sbpl_req *q)
{
	const char *h = sbpl_head(k, x);
	int a;

	if (h == NULL)
		return false;
	a = k->v[k->v[x].first].next;
	if (strcmp(h, "require-all") == 0) {
		for (; a >= 0; a = k->v[a].next)
			if (!sbpl_match(k, a, q))
				return false;
		return true;
	}
	if (strcmp(h, "require-any") == 0) {
		for (; a >= 0; a = k->v[a].next)
			if (sbpl_match(k, a, q))
				return true;
		return false;
	}
	if (strcmp(h, "require-not") == 0)
		return a >= 0 && !sbpl_match(k, a, q);
	if (strcmp(h, "ioctl-command") == 0)
		return a >= 0 && q->ioctl != NULL &&
		       strcmp(k->v[a].text, q->ioctl) == 0;
	if (strcmp(h, "regex") == 0 || strcmp(h, "sysctl-name-regex") == 0 ||
	    strcmp(h, "global-name-regex") == 0) {
		const char *s = h[0] == 'r' ? q->path : q->name;

		for (; a >= 0; a = k->v[a].next)
			if (k->v[a].kind == SBPL_RE || k->v[a].kind == SBPL_STR)
				if (sbpl_match_regex(k->v[a].text, s))
					return true;
		return false;
	}
	for (; a >= 0; a = k->v[a].next) {
		char *v = sbpl_text(k, a);
		bool m = v != NULL && sbpl_match_value(h, v, q);

		free(v);
		if (m)
			return true;
	}
	return false;
}

/* does the rule's operation `o` cover the request's `r`? */
static bool
sbpl_op_covers(const char *o, const char *r)
{
	size_t n = strlen(o);

	if (strcmp(o, "default") == 0 || strcmp(o, r) == 0)
		return true;
	return n > 0 && o[n - 1] == '*' && strncmp(o, r, n - 1) == 0;
}

/*
 * The decision for `q`: SBPL_ALLOW or SBPL_DENY, with the line of the rule
 * that decided in *line; -1 with `err` set when the profile cannot be read
 * (check it with sbpl_check first). `params` as sbpl_check takes them.
 */
static inline int
sbpl_decide(const char *buf, const char *const *params,
    const struct sbpl_req *q, int *line, char *err, size_t errlen)
{
	struct sbpl_ck k = {.s = buf,
	    .n = strlen(buf),
	    .line = 1,
	    .params = params,
	    .flags = SBPL_UNUSED_OK | SBPL_VALUES_OK,
	    .err = err,
	    .errlen = errlen};
	int x, last = 0, verdict = -1;
	size_t j;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	while (params != NULL && params[k.nparams] != NULL)
		k.nparams++;
	if ((k.used = calloc(k.nparams + 1, sizeof(*k.used))) == NULL ||
	    sbpl_new(&k, SBPL_LIST, NULL) < 0)
		goto out;
	for (;;) {
		if (sbpl_skip(&k) < 0)
			goto out;
		if (k.i >= k.n)
			break;
		if ((x = sbpl_read(&k, 0)) < 0)
			goto out;
		if (last == 0)
			k.v[0].first = x;
		else
			k.v[last].next = x;
		last = x;
	}
	for (x = k.v[0].first; x >= 0; x = k.v[x].next) {
		const char *verb = sbpl_head(&k, x);
		bool op = false, any = false, hit = false;
		int a;

		if (verb == NULL ||
		    (strcmp(verb, "allow") != 0 && strcmp(verb, "deny") != 0))
			continue;
		for (a = k.v[k.v[x].first].next; a >= 0; a = k.v[a].next) {
			const char *h = k.v[a].kind == SBPL_LIST
					    ? sbpl_head(&k, a)
					    : NULL;

			if (k.v[a].kind == SBPL_SYM) {
				op = op || sbpl_op_covers(k.v[a].text, q->op);
			} else if (h != NULL && strcmp(h, "with") == 0) {
				continue;
			} else if (k.v[a].kind == SBPL_LIST) {
				any = true;
				hit = hit || sbpl_match(&k, a, q);
			}
		}
		if (op && (!any || hit)) {
			verdict = verb[0] == 'a' ? SBPL_ALLOW : SBPL_DENY;
			if (line != NULL)
				*line = k.v[x].line;
		}
	}
	if (verdict == -1)
		sbpl_fail(&k, 0, "no rule decides %s (no (deny default)?)",
		    q->op);
out:
	for (j = 0; j < k.nv; j++)
		free(k.v[j].text);
	free(k.v);
	free(k.used);
	return verdict;
}

#endif
