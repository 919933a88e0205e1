/*
 * profile/tables.c — what kinbox hides, as data. Extend here; nothing else
 * needs to change. Each entry is cheap: only paths that exist are masked,
 * and no directory is scanned (startup cost is a benchmark figure).
 */
#include "../lib/util.h"
#include "policy.h"
#include "tables.h"

/* clang-format off */
const struct kb_env_pattern kb_secret_env_table[] = {
	{ "_KEY",          KB_MATCH_SUFFIX },  /* also *_API_KEY */
	{ "_TOKEN",        KB_MATCH_SUFFIX },  /* also NPM_TOKEN */
	{ "_SECRET",       KB_MATCH_SUFFIX },
	{ "_SECRETS",      KB_MATCH_SUFFIX },
	{ "_PASSWORD",     KB_MATCH_SUFFIX },
	{ "_PASSWD",       KB_MATCH_SUFFIX },
	{ "_CREDENTIAL",   KB_MATCH_SUFFIX },
	{ "_CREDENTIALS",  KB_MATCH_SUFFIX },
	{ "_AUTH",         KB_MATCH_SUFFIX },
	{ "AWS_",          KB_MATCH_PREFIX },
	{ "GH_",           KB_MATCH_PREFIX },
	{ "GITHUB_",       KB_MATCH_PREFIX },
	{ "AZURE_",        KB_MATCH_PREFIX },
	{ "GOOGLE_APPLICATION_CREDENTIALS", KB_MATCH_EXACT },
	{ "SSH_AUTH_SOCK", KB_MATCH_EXACT },   /* kept by --ssh-agent */
	{ "SSH_AGENT_PID", KB_MATCH_EXACT },
	{ "TOKEN",         KB_MATCH_EXACT },
	{ "SECRET",        KB_MATCH_EXACT },
	{ "PASSWORD",      KB_MATCH_EXACT },
	{ "API_KEY",       KB_MATCH_EXACT },
};
const size_t kb_secret_env_count = nitems(kb_secret_env_table);

/* GitHub Actions run metadata: names and ids, no credentials. GITHUB_TOKEN
 * and everything else under GITHUB_ stays scrubbed. */
const char *const kb_secret_env_allow[] = {
	"GITHUB_ACTIONS", "GITHUB_WORKSPACE", "GITHUB_SHA", "GITHUB_REF",
	"GITHUB_REF_NAME", "GITHUB_REPOSITORY", "GITHUB_RUN_ID",
	"GITHUB_RUN_NUMBER", "GITHUB_EVENT_NAME", "GITHUB_SERVER_URL",
	"GITHUB_JOB", "GITHUB_WORKFLOW", "GITHUB_HEAD_REF", "GITHUB_BASE_REF",
};
const size_t kb_secret_env_allow_count = nitems(kb_secret_env_allow);

/* Where and as whom, and which public certificates to trust: the AWS_
 * prefix matches AWS_REGION as it matches AWS_SECRET_ACCESS_KEY. A file
 * that may hold credentials is not here (AWS_CONFIG_FILE can name one
 * with aws_secret_access_key in it; --keep-env keeps it). */
const char *const kb_env_benign_suffix[] = {
	"_REGION",    /* AWS_REGION, AWS_DEFAULT_REGION */
	"_PROFILE",   /* AWS_PROFILE: a section name of ~/.aws/config */
	"_CA_BUNDLE", /* AWS_CA_BUNDLE: a path to CA certificates */
	"_CA_FILE",
};
const size_t kb_env_benign_suffix_count = nitems(kb_env_benign_suffix);

/* Anywhere in a name, these keep it scrubbed whatever it ends in: the
 * words of the table's own suffixes (PASS covers PASSWORD and PASSWD). */
const char *const kb_secret_env_words[] = {
	"KEY", "TOKEN", "SECRET", "PASS", "CREDENTIAL", "AUTH",
};
const size_t kb_secret_env_words_count = nitems(kb_secret_env_words);

const char *const kb_credential_table[] = {
	".aws",
	".azure",
	".config/gcloud",
	".config/gh",
	".config/hub",
	".docker/config.json",
	".kube",
	".gnupg",
	".password-store",
	".netrc",
	".git-credentials",
	".config/git/credentials",
	".npmrc",
	".yarnrc.yml",
	".pypirc",
	".cargo/credentials",
	".cargo/credentials.toml",
	".gem/credentials",
	".terraform.d/credentials.tfrc.json",
	".vault-token",
	".config/op",
	".local/share/keyrings",
	".ssh",               /* --ssh-agent re-exposes the public files */
	".config/kinbox",     /* policy and grants: never the command's */
};
const size_t kb_credential_count = nitems(kb_credential_table);

/* Each store names the app's own location (Apple's sandbox containers,
 * the vendors' group containers); the team-ID prefixes of the group
 * containers are the vendors' published ones, not checked on a Mac. */
const char *const kb_macos_store_table[] = {
	"Library/Keychains",          /* KB_MACOS_KEYCHAINS: login keychain */
	"Library/Cookies",            /* every WebKit app's cookie jar */
	"Library/Safari",             /* history, LocalStorage */
	"Library/Containers/com.apple.Safari",
	"Library/Application Support/Google/Chrome",
	"Library/Application Support/Chromium",
	"Library/Application Support/BraveSoftware",
	"Library/Application Support/Microsoft Edge",
	"Library/Application Support/Arc",
	"Library/Application Support/Firefox",
	"Library/Group Containers/2BUA8C4S2C.com.1password",  /* 1Password 8 */
	"Library/Group Containers/2BUA8C4S2C.com.agilebits", /* 1Password 7 */
	"Library/Application Support/1Password",
	"Library/Application Support/Bitwarden",
	"Library/Containers/com.bitwarden.desktop",
	"Library/Group Containers/LTZ2PFU5D6.com.bitwarden.desktop",
};
const size_t kb_macos_store_count = nitems(kb_macos_store_table);

const struct kb_socket_path kb_socket_table[] = {
	/* /run holds the system D-Bus, docker, podman, containerd, systemd
	 * and every user's /run/user/UID (session bus, gpg-agent, pulse,
	 * wayland). /var/run is its alias on current systems. */
	{ "/run",                             0 },
	{ "/var/run",                         0 },
	/* Docker Desktop, colima, lima, Rancher Desktop, OrbStack, podman
	 * machine and 1Password keep their sockets in the home directory. */
	{ ".docker/run",                      1 },
	{ ".docker/desktop",                  1 },
	{ ".colima",                          1 },
	{ ".lima",                            1 },
	{ ".rd",                              1 },
	{ ".orbstack",                        1 },
	{ ".local/share/containers/podman",   1 },
	{ ".1password",                       1 },
	{ ".dbus",                            1 },
};
const size_t kb_socket_count = nitems(kb_socket_table);

const struct kb_env_path kb_env_path_table[] = {
	{ "SSH_AUTH_SOCK",            NULL },      /* unless --ssh-agent */
	{ "DOCKER_HOST",              "unix://" },
	{ "DBUS_SESSION_BUS_ADDRESS", "path=" },
	{ "GPG_AGENT_INFO",           NULL },      /* path:pid:1 */
	{ "VSCODE_IPC_HOOK_CLI",      NULL },
	{ "VSCODE_IPC_HOOK",          NULL },
	{ "XAUTHORITY",               NULL },      /* the X11 cookie */
	{ "KRB5CCNAME",               "FILE:" },   /* Kerberos tickets */
};
const size_t kb_env_path_count = nitems(kb_env_path_table);

const char *const kb_ssh_public_table[] = {
	"known_hosts*",
	"config",
	"*.pub",
};
const size_t kb_ssh_public_count = nitems(kb_ssh_public_table);
/* At most 8 (struct kb_policy's cache[] array). See README "Caches" for
 * what each holds, why nothing written there may outlive the run, and why
 * each fallback is the one that keeps the common commands working. */
const struct kb_cache kb_cache_table[] = {
	{ "cache",  { ".cache", NULL }, KB_CACHE_OFF,
	  "read-only: pre-commit runs its installed hooks and pip skips a "
	  "cache it cannot write; go needs [caches] cache = empty" },
	{ "npm",    { ".npm", NULL }, KB_CACHE_EMPTY,
	  "empty: npm writes its cache on every install and refetches "
	  "what it lacks" },
	{ "cargo",  { ".cargo/registry", ".cargo/git" }, KB_CACHE_OFF,
	  "read-only: an offline build reads the registry; fetching a new "
	  "crate needs [caches] cargo = empty" },
	{ "gomod",  { "go/pkg/mod", NULL }, KB_CACHE_OFF,
	  "read-only: builds read the module tree; a download needs "
	  "[caches] gomod = empty" },
	{ "gradle", { ".gradle/caches", NULL }, KB_CACHE_EMPTY,
	  "empty: gradle writes locks and transforms there even offline" },
	{ "maven",  { ".m2/repository", NULL }, KB_CACHE_OFF,
	  "read-only: an offline build only reads the repository" },
};
const size_t kb_cache_count = nitems(kb_cache_table);

const struct kb_offline_env kb_offline_env_table[] = {
	/* uv run syncs the project's .venv first (a lookup that dies on the
	 * missing resolver); uvx and uv pip resolve against the index */
	{ "UV_NO_SYNC",         "1",    "uv run: the .venv as it is" },
	{ "UV_OFFLINE",         "1",    "uv/uvx: the cache only" },
	/* npm retries a failed fetch for about a minute before it gives up */
	{ "npm_config_offline", "true", "npm: the cache only" },
	/* cargo retries too, and updates the index before a build */
	{ "CARGO_NET_OFFLINE",  "true", "cargo: the registry as it is" },
	/* pip retries an unreachable index five times with a backoff; with
	 * none it fails at once (what it then reports is a network denial) */
	{ "PIP_RETRIES",        "0",    "pip: no retries" },
};
const size_t kb_offline_env_count = nitems(kb_offline_env_table);
/* clang-format on */
