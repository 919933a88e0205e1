#!/bin/sh
# tests/t27-start.sh — kinbox starts wherever it lives (issue 11): a build
# or copy under /tmp, which the sandbox's private /tmp would hide, runs its
# helper through a descriptor; a helper whose directory another mount
# covers inside the sandbox too. Effects checked from outside, with the
# command's own output as the positive control.
#
# Run: sh tests/t27-start.sh (TAP), or all suites: sh tests/run-integration.sh

. "$(dirname "$0")/lib.sh"

XDG_CONFIG_HOME=$KB_T/config
XDG_STATE_HOME=$KB_T/state
mkdir -p "$XDG_CONFIG_HOME" "$XDG_STATE_HOME"
export XDG_CONFIG_HOME XDG_STATE_HOME

mkdir "$KB_T/preflight"
if ! (cd "$KB_T/preflight" && "$KINBOX" -- true) >"$KB_T/preflight.log" 2>&1; then
	diag "$(cat "$KB_T/preflight.log")"
	skip_all "kinbox cannot set up a sandbox on this host"
fi
# the helper as kinbox's plan names it: beside a build's kinbox, below
# LIBEXECDIR for an installed one (a kinbox that names none fails here)
HELPER=$(cd "$KB_T/preflight" && "$KINBOX" --dry-run -- true 2>/dev/null |
	sed -n 's|^/proc/self/fd/[0-9]*  # \(/.*/kinbox-exec\)$|\1|p' | head -n 1)
if [ -z "$HELPER" ] || [ ! -x "$HELPER" ]; then
	tap_not_ok "kinbox --dry-run names its helper kinbox-exec (found: '$HELPER')"
	done_testing
fi

# copy_to DIR: kinbox and its helper, side by side in DIR
copy_to() {
	mkdir -p "$1"
	cp "$KINBOX" "$HELPER" "$1/"
	chmod 755 "$1" "$1/kinbox" "$1/kinbox-exec"
}

t_tmp_build() {
	b=$(mktemp -d /tmp/kinbox-t27.XXXXXX)
	cleanup_add "rm -rf '$b'"
	copy_to "$b/build/deep"
	ws=$(newdir ws1)
	(cd "$ws" && "$b/build/deep/kinbox" -- sh -c 'echo ran >out; ls -A /tmp >tmp.list') >"$KB_OUT" 2>"$KB_ERR" ||
		{ _show_file "$KB_ERR"; fail "kinbox under /tmp could not run a command"; }
	assert_file_has_content "$ws/out" '^ran$'
	# the private /tmp is still empty: nothing of the build shows there
	assert_streq "$(cat "$ws/tmp.list")" "" "the private /tmp is empty"
	(cd "$ws" && "$b/build/deep/kinbox" --dry-run -- true) >"$KB_OUT" 2>"$KB_ERR"
	assert_file_has_content "$KB_OUT" "^/proc/self/fd/[0-9]+  # $b/build/deep/kinbox-exec\$"
	# a workspace under /tmp too
	mkdir "$b/tws"
	(cd "$b/tws" && "$b/build/deep/kinbox" -- sh -c 'echo ran >out') >"$KB_OUT" 2>"$KB_ERR" ||
		{ _show_file "$KB_ERR"; fail "kinbox under /tmp, workspace under /tmp"; }
	assert_file_has_content "$b/tws/out" '^ran$'
}
run_test "a kinbox built or copied under /tmp runs commands (its helper by descriptor, not hidden by the private /tmp), also with a workspace under /tmp" t_tmp_build

t_helper_dir_covered() {
	# kinbox and its helper inside the workspace's .git/hooks (a tmpfs
	# inside) and in a directory masked by config: still found and run
	ws=$(newdir ws2)
	mkrepo "$ws"
	copy_to "$ws/.git/hooks/bin"
	(cd "$ws" && "$ws/.git/hooks/bin/kinbox" -- sh -c 'echo ran >out') >"$KB_OUT" 2>"$KB_ERR" ||
		{ _show_file "$KB_ERR"; fail "kinbox in .git/hooks (covered inside) could not run"; }
	assert_file_has_content "$ws/out" '^ran$'
	hid=$(newdir hidden)
	copy_to "$hid/bin"
	mkdir -p "$XDG_CONFIG_HOME/kinbox"
	printf '[sandbox]\nmask = %s\n' "$hid" >"$XDG_CONFIG_HOME/kinbox/config.ini"
	(cd "$ws" && "$hid/bin/kinbox" -- sh -c 'ls -A "$1" >hid.list; echo ran2 >out' sh "$hid") >"$KB_OUT" 2>"$KB_ERR" ||
		{ _show_file "$KB_ERR"; fail "kinbox in a masked directory could not run"; }
	assert_file_has_content "$ws/out" '^ran2$'
	assert_streq "$(cat "$ws/hid.list")" "" "the mask holds inside"
	rm -f "$XDG_CONFIG_HOME/kinbox/config.ini"
}
run_test "a helper whose directory a mount covers inside (.git/hooks, a configured mask) still runs; the mask holds" t_helper_dir_covered

done_testing
