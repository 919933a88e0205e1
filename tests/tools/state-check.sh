#!/bin/sh
# tests/tools/state-check.sh — `make state-check`: make demo and an integration
# run leave the caller's kinbox state exactly as it was. Lists (names,
# types, modes, sizes, times) the caller's kinbox config
# ($XDG_CONFIG_HOME/kinbox), denial journal ($XDG_STATE_HOME/kinbox) and
# session store ($XDG_RUNTIME_DIR/kinbox) — as root also those of the test
# user's home — before and after, and compares. The positive control: the
# same runs did write denial records, into the state directory
# tests/tools/isolated.sh gave them.
#
# Environment: MAKE (default make), KB_STATE_SUITES (the integration
# suites to run, default t20-core.sh, which leaves records in the default
# journal), KB_TEST_USER (default kinbox-test).
# Exit status 0 when nothing changed and the control holds, 1 otherwise.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
cd "$top" || exit 1
MAKE=${MAKE:-make}
suites=${KB_STATE_SUITES:-t20-core.sh}
user=${KB_TEST_USER:-kinbox-test}
fails=0

tmp=$(mktemp -d /var/tmp/kinbox-state.XXXXXX) || exit 1
trap 'chmod -R u+rwX "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

not_ok() {
	echo "not ok - $*"
	fails=$((fails + 1))
}

# the stores, as the caller's environment names them now
set -- "${XDG_CONFIG_HOME:-$HOME/.config}/kinbox" \
	"${XDG_STATE_HOME:-$HOME/.local/state}/kinbox"
if [ -n "${XDG_RUNTIME_DIR:-}" ]; then
	set -- "$@" "$XDG_RUNTIME_DIR/kinbox"
fi
if [ "$(id -u)" -eq 0 ] && uhome=$(getent passwd "$user" | cut -d: -f6) &&
	[ -n "$uhome" ]; then
	set -- "$@" "$uhome/.config/kinbox" "$uhome/.local/state/kinbox"
fi

snapshot() {
	for d in "$@"; do
		if [ -e "$d" ] || [ -L "$d" ]; then
			find "$d" -printf '%p %y %m %s %T@\n' | LC_ALL=C sort
		else
			echo "absent: $d"
		fi
	done
}

snapshot "$@" >"$tmp/before"
iso=$tmp/iso
if ! KB_ISOLATED_DIR=$iso $MAKE -s --no-print-directory demo \
	>"$tmp/demo.log" 2>&1; then
	tail -n 30 "$tmp/demo.log"
	not_ok "make demo failed"
fi
if ! KB_ISOLATED_DIR=$iso KB_SUITES=$suites \
	$MAKE -s --no-print-directory integration >"$tmp/it.log" 2>&1; then
	grep -E '^(not ok|# )' "$tmp/it.log" | tail -n 30
	not_ok "make integration (KB_SUITES=$suites) failed"
fi
snapshot "$@" >"$tmp/after"
if ! diff "$tmp/before" "$tmp/after" >"$tmp/diff"; then
	grep '^[<>]' "$tmp/diff" | head -n 20
	not_ok "make demo and make integration changed the caller's kinbox state ($(grep -c '^[<>]' "$tmp/diff") entries, the first above)"
fi
n=$(find "$iso/home/.local/state/kinbox/denials" -name 'sbx_*.json' \
	2>/dev/null | wc -l)
if [ "$n" -eq 0 ]; then
	not_ok "control: no denial record in the runs' own journal $iso/home/.local/state/kinbox (did they run?)"
fi
if [ "$fails" -ne 0 ]; then
	echo "state-check: $fails check(s) failed"
	exit 1
fi
echo "ok state-check: make demo and make integration ($suites) left $* as they were; their $n denial records went to their own state dir"
