#!/bin/sh
# tests/agents/install.sh — `make agents`: installs the coding agents that
# tests/t82-agents.sh drives, at the versions package-lock.json pins, into
# tests/agents/node_modules (ignored by git), from the npm registry.
#
#   npm ci --ignore-scripts   the exact versions and integrity hashes of
#                             package-lock.json; no package's install script
#                             runs (Gemini CLI's optional native modules,
#                             keytar and node-pty, are left unbuilt: its
#                             prebuilt @lydell/node-pty is used)
#   Claude Code's install.cjs its own postinstall, run by hand and offline
#                             (in a network namespace where we can make
#                             one): it copies the native binary of the
#                             platform package npm already installed over
#                             the placeholder bin/claude.exe
#   each agent's --version    offline, compared with the pin
#
# Installed once: node_modules/.kinbox-agents holds the digest of the lock
# it was installed from, and a second run with the same lock does nothing.
# Exits non-zero, saying why, when npm or the registry is missing or an
# agent does not run; tests/t82-agents.sh then skips that agent's tests,
# saying so (make deps runs this and goes on when it fails).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
stamp=node_modules/.kinbox-agents
want=$(sha256sum package-lock.json | cut -d' ' -f1)

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	echo "agents: installed in $here/node_modules ($(sed -n 's/.*"\(@[^"]*\)": "\([0-9.]*\)".*/\1@\2/p' package.json | paste -s -d' '))"
	exit 0
fi
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
	echo "agents: not installed: node and npm are needed (they install the agents from the npm registry)" >&2
	exit 1
fi

# offline CMD...: CMD in a network namespace with no interface up, where
# one can be made (root: --net; others: a user namespace of their own)
offline() {
	if [ "$(id -u)" -eq 0 ] && unshare --net true 2>/dev/null; then
		unshare --net -- "$@"
	elif unshare --user --map-root-user --net true 2>/dev/null; then
		unshare --user --map-root-user --net -- "$@"
	else
		"$@"
	fi
}

rm -f "$stamp"
echo "agents: npm ci (the versions of tests/agents/package-lock.json)"
if ! npm ci --no-audit --no-fund --ignore-scripts --loglevel=error; then
	echo "agents: not installed: npm ci failed (is the npm registry reachable?)" >&2
	exit 1
fi
echo "agents: Claude Code's install.cjs (offline)"
if ! (cd node_modules/@anthropic-ai/claude-code && offline node install.cjs); then
	echo "agents: not installed: Claude Code's install.cjs failed" >&2
	exit 1
fi

# each agent's version, offline, with a home of its own
h=$(mktemp -d /var/tmp/kinbox-agents-home.XXXXXX)
trap 'rm -rf "$h"' EXIT
bad=0
check() { # check PROGRAM PACKAGE
	pin=$(sed -n "s|.*\"$2\": \"\\([^\"]*\\)\".*|\\1|p" package.json)
	got=$(offline env -i HOME="$h" PATH=/usr/local/bin:/usr/bin:/bin \
		"node_modules/.bin/$1" --version 2>/dev/null | tail -n 1) || got=
	case $got in
	*"$pin"*) echo "agents: $1 $got" ;;
	*)
		echo "agents: $1 --version says '$got', not $pin" >&2
		bad=1
		;;
	esac
}
check claude @anthropic-ai/claude-code
check codex @openai/codex
check gemini @google/gemini-cli
if [ "$bad" -ne 0 ]; then
	echo "agents: not installed: an agent does not run" >&2
	exit 1
fi
echo "$want" >"$stamp"
echo "agents: installed in $here/node_modules"
