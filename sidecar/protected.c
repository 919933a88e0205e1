/*
 * sidecar/protected.c — which writes of the agent's own edit tool need a
 * human (protected) and which are never made (secret files), as data.
 * Extend here; sidecar/checkwrite.c holds the code that reads the tables.
 */
#include "checkwrite.h"

/* clang-format off */
const struct kb_protected kb_protected_table[] = {
	/* git metadata: hooks and config run code outside any sandbox */
	{ ".git",                    KB_PROTECT_COMPONENT },

	/* lockfiles: a changed pin is a supply-chain change */
	{ "uv.lock",                 KB_PROTECT_BASENAME },
	{ "package-lock.json",       KB_PROTECT_BASENAME },
	{ "yarn.lock",               KB_PROTECT_BASENAME },
	{ "pnpm-lock.yaml",          KB_PROTECT_BASENAME },
	{ "Cargo.lock",              KB_PROTECT_BASENAME },
	{ "poetry.lock",             KB_PROTECT_BASENAME },
	{ "Gemfile.lock",            KB_PROTECT_BASENAME },
	{ "go.sum",                  KB_PROTECT_BASENAME },

	/* package manager config: registries, tokens, install scripts */
	{ ".npmrc",                  KB_PROTECT_BASENAME },
	{ ".yarnrc",                 KB_PROTECT_BASENAME },
	{ ".yarnrc.yml",             KB_PROTECT_BASENAME },

	/* harness config: what the agent may run, and kinbox's own policy */
	{ ".mcp.json",               KB_PROTECT_BASENAME },
	{ ".claude.json",            KB_PROTECT_BASENAME },
	{ ".pre-commit-config.yaml", KB_PROTECT_BASENAME },
	{ "lefthook.yml",            KB_PROTECT_BASENAME },
	{ "pyrightconfig.json",      KB_PROTECT_BASENAME },
	{ ".kinbox.ini",             KB_PROTECT_BASENAME },
	{ ".config/kinbox",          KB_PROTECT_HOME },
	{ "$XDG_CONFIG_HOME/kinbox", KB_PROTECT_PREFIX },

	/* shell rc and env files: run by the next shell, unsandboxed */
	{ ".bashrc",                 KB_PROTECT_BASENAME },
	{ ".zshrc",                  KB_PROTECT_BASENAME },
	{ ".bash_profile",           KB_PROTECT_BASENAME },
	{ ".profile",                KB_PROTECT_BASENAME },
	{ ".envrc",                  KB_PROTECT_BASENAME },

	/* ProxyCommand and Match exec run commands */
	{ ".ssh/config",             KB_PROTECT_HOME },
};
const size_t kb_protected_count = nitems(kb_protected_table);

const struct kb_protected kb_secret_file_table[] = {
	{ ".env",                    KB_PROTECT_BASENAME },
	{ ".env.",                   KB_PROTECT_NAME_PREFIX },  /* .env.local */
	{ ".pem",                    KB_PROTECT_SUFFIX },
	{ ".key",                    KB_PROTECT_SUFFIX },
};
const size_t kb_secret_file_count = nitems(kb_secret_file_table);
/* clang-format on */
