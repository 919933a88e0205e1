#!/bin/sh
# tests/t80-edges.sh — the rough edges of issue 11, each checked from
# outside the sandbox with a positive control in the same test:
#   1. a command's exit status and message follow the shell's PATH rule: a
#      directory of PATH that cannot be read never turns "not found" (127)
#      into "Permission denied" (126); 126 only for a file found and
#      refused (or a path naming a directory).
#
# Run: sh tests/t80-edges.sh (TAP), or all suites: sh tests/run-integration.sh
# shellcheck disable=SC2317,SC2016,SC2164
# SC2317: the t_* bodies are called through run_test.
# SC2016: single-quoted $... is meant for the shell inside the sandbox.
# SC2164: lib.sh sets -e (test bodies run under set -e): a failed cd fails.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

KP=$KINPOLICY
# never the caller's stores
XDG_CONFIG_HOME=$KB_T/config
XDG_STATE_HOME=$KB_T/state
XDG_RUNTIME_DIR=$KB_T/run
mkdir -p "$XDG_CONFIG_HOME" "$XDG_STATE_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
export XDG_CONFIG_HOME XDG_STATE_HOME XDG_RUNTIME_DIR
unset KINBOX_SESSION KINBOX_JSON_FD || true

IS_ROOT=0
[ "$(id -u)" = 0 ] && IS_ROOT=1
SYSPATH=/usr/local/bin:/usr/bin:/bin

if [ ! -x "$KINBOX" ]; then
	tap_not_ok "kinbox binary $KINBOX exists (build it: make all)"
	done_testing
fi
mkdir "$KB_T/preflight"
if ! (cd "$KB_T/preflight" && "$KINBOX" -- true) >"$KB_T/preflight.log" 2>&1; then
	diag "$(cat "$KB_T/preflight.log")"
	skip_all "kinbox cannot set up a sandbox on this host"
fi
diag "kinbox: $KINBOX; uid $(id -u); kernel $(uname -r)"

# ============================================================================
# 1. 127 and 126 as a shell says them
# ============================================================================

# exec_tree DIR: the PATH directories of the exec tests, below DIR:
#   locked/              mode 000: unreadable (also to root in the sandbox,
#                        which has no capabilities)
#   l1/l2/               l2 mode 000 (an unreadable one deeper down)
#   hidden/kbx-hidden    an executable in a mode 000 directory
#   noexec/NAME          a script without execute permission (mode 644)
#   dirs/NAME/           a directory named like the command
#   bin/NAME             an executable: writes ./ran-NAME (in the cwd)
#   bin/kbx-noshebang    an executable without #!: run by /bin/sh
#   notadir              a file as a PATH element
# and DIR/ws, the workspace, holding a directory "subdir"
exec_tree() {
	mkdir -p "$1/locked/sub" "$1/l1/l2/bin" "$1/hidden" "$1/noexec" \
		"$1/bin" "$1/ws/subdir"
	for n in kbx-found kbx.dotted kbx_9-x; do
		printf '#!/bin/sh\necho noexec >"ran-%s"\n' "$n" >"$1/noexec/$n"
		chmod 644 "$1/noexec/$n"
		mkdir -p "$1/dirs/$n"
		printf '#!/bin/sh\necho "ran $0" >"ran-%s"\n' "$n" >"$1/bin/$n"
		chmod 755 "$1/bin/$n"
	done
	printf '#!/bin/sh\necho hidden >ran-hidden\n' >"$1/hidden/kbx-hidden"
	chmod 755 "$1/hidden/kbx-hidden"
	printf 'echo noshebang >ran-noshebang\n' >"$1/bin/kbx-noshebang"
	chmod 755 "$1/bin/kbx-noshebang"
	: >"$1/notadir"
	chmod 000 "$1/locked" "$1/l1/l2" "$1/hidden"
	cleanup_add "chmod -R u+rwX '$1'"
}

# xrun PATH [KINBOX-OPTION...] -- CMD: kinbox in $ws with PATH, status in
# $KB_RC, stderr in $KB_ERR
xrun() {
	_p=$1
	shift
	KB_RC=0
	(cd "$ws" && env PATH="$_p" "$KINBOX" "$@") >"$KB_OUT" 2>"$KB_ERR" \
		</dev/null || KB_RC=$?
}

# xcase RC LINE PATH [OPTION...] -- CMD: exits RC, stderr is exactly LINE,
# and no ran-* marker appeared in the workspace (nothing ran)
xcase() {
	_want=$1
	_line=$2
	shift 2
	_how="PATH and kinbox's arguments: $*"
	xrun "$@"
	if [ "$KB_RC" != "$_want" ]; then
		_show_file "$KB_ERR"
		fail "exit status $KB_RC, expected $_want ($_how)"
	fi
	assert_kinbox_said "$KB_ERR" "$_line"
	[ ! -s "$KB_OUT" ] || fail "stdout is not empty"
	for _f in "$ws"/ran-*; do
		if [ -e "$_f" ]; then
			ls -l "$ws" >&2
			fail "something ran ($_how)"
		fi
	done
}

# bash_agrees RC PATH CMD: bash, outside any sandbox, exits RC too (the
# unprivileged pass only: root outside the sandbox can read every
# directory, root inside cannot)
bash_agrees() {
	[ "$IS_ROOT" = 0 ] || return 0
	have bash || return 0
	_rc=0
	(cd "$ws" && env PATH="$2" bash -c "$3") </dev/null >/dev/null 2>&1 || _rc=$?
	assert_streq "$_rc" "$1" "bash's status for PATH=$2 $3"
	rm -f "$ws"/ran-*
}

t_exec_not_found() {
	d=$(newdir "exec-nf-$1")
	exec_tree "$d"
	ws=$d/ws
	opt=
	[ "$1" = unconfined ] && opt=--unconfined
	if [ "$1" = unconfined ] && [ "$IS_ROOT" = 1 ]; then
		# root outside a sandbox reads every directory: only the
		# missing names, never the hidden one
		hidden_ok=0
	else
		hidden_ok=1
	fi
	for name in kbx-missing kbx.missing.dotted kbx_MISSING-9; do
		for p in "$d/locked:$SYSPATH" \
			"$d/l1/l2/bin:$d/locked:$SYSPATH" \
			"$d/locked/sub:$d/notadir:$SYSPATH" \
			"$SYSPATH:$d/locked" \
			"$d/dirs:$d/locked:$d/l1/l2:$SYSPATH"; do
			xcase 127 "kinbox: $name: command not found" "$p" ${opt:+-q "$opt"} -- "$name"
			bash_agrees 127 "$p" "$name"
		done
	done
	# a directory named like the command is skipped, as bash does
	for name in kbx-found kbx.dotted kbx_9-x; do
		p="$d/dirs:$d/locked:$SYSPATH"
		xcase 127 "kinbox: $name: command not found" "$p" ${opt:+-q "$opt"} -- "$name"
		bash_agrees 127 "$p" "$name"
	done
	# an executable in an unreadable directory is not found
	if [ "$hidden_ok" = 1 ]; then
		xcase 127 "kinbox: kbx-hidden: command not found" "$d/hidden:$SYSPATH" ${opt:+-q "$opt"} -- kbx-hidden
		bash_agrees 127 "$d/hidden:$SYSPATH" kbx-hidden
	fi
	# the positive control: the same unreadable directories first, the
	# command found later runs (its marker is on the host), also one
	# without #! (execvp's /bin/sh fallback) and one in the cwd (an empty
	# PATH element)
	for name in kbx-found kbx.dotted kbx_9-x; do
		xrun "$d/locked:$d/l1/l2:$d/dirs:$d/bin:$SYSPATH" ${opt:+-q "$opt"} -- "$name"
		assert_streq "$KB_RC" 0 "$name found after the unreadable dirs"
		assert_file_has_content "$ws/ran-$name" "^ran $d/bin/$name\$"
	done
	xrun "$d/locked:$d/bin:$SYSPATH" ${opt:+-q "$opt"} -- kbx-noshebang
	assert_streq "$KB_RC" 0 "a script without #! runs"
	assert_file_has_content "$ws/ran-noshebang" '^noshebang$'
	cp "$d/bin/kbx-found" "$ws/kbx-here"
	xrun "$d/locked::$SYSPATH" ${opt:+-q "$opt"} -- kbx-here
	assert_streq "$KB_RC" 0 "an empty PATH element is the cwd"
	assert_file_has_content "$ws/ran-kbx-found" '^ran \./kbx-here$'
}
run_test "a missing command with unreadable dirs on PATH (mode 000, deeper, after the system dirs, a file and a same-named dir on PATH): 127 'command not found', as bash; control: found later, no #!, empty element run" t_exec_not_found sandboxed
run_test "the same without a sandbox (--unconfined): 127 'command not found'; control: found later runs" t_exec_not_found unconfined

t_exec_not_executable() {
	d=$(newdir "exec-nx-$1")
	exec_tree "$d"
	ws=$d/ws
	opt=
	[ "$1" = unconfined ] && opt=--unconfined
	for name in kbx-found kbx.dotted kbx_9-x; do
		# found, not executable: 126, also behind unreadable
		# directories
		for p in "$d/noexec:$SYSPATH" \
			"$d/locked:$d/noexec:$SYSPATH" \
			"$d/l1/l2:$d/locked/sub:$d/noexec:$d/dirs:$SYSPATH"; do
			xcase 126 "kinbox: $name: Permission denied" "$p" ${opt:+-q "$opt"} -- "$name"
			bash_agrees 126 "$p" "$name"
		done
		# a same-named directory before it: the first one found
		# decides, and a directory is not a command (bash)
		p="$d/dirs:$d/l1/l2:$d/noexec:$SYSPATH"
		xcase 127 "kinbox: $name: command not found" "$p" ${opt:+-q "$opt"} -- "$name"
		bash_agrees 127 "$p" "$name"
		# paths with a slash
		xcase 126 "kinbox: $d/noexec/$name: Permission denied" "$SYSPATH" ${opt:+-q "$opt"} -- "$d/noexec/$name"
		xcase 126 "kinbox: $d/dirs/$name: Is a directory" "$SYSPATH" ${opt:+-q "$opt"} -- "$d/dirs/$name"
		xcase 127 "kinbox: $d/nope/$name: No such file or directory" "$SYSPATH" ${opt:+-q "$opt"} -- "$d/nope/$name"
		xcase 127 "kinbox: ./$name: No such file or directory" "$SYSPATH" ${opt:+-q "$opt"} -- "./$name"
		bash_agrees 127 "$SYSPATH" "./$name"
		# control: a non-executable file first, an executable later:
		# the later one runs, as in bash
		xrun "$d/noexec:$d/locked:$d/bin:$SYSPATH" ${opt:+-q "$opt"} -- "$name"
		assert_streq "$KB_RC" 0 "$name: the executable after the non-executable one runs"
		assert_file_has_content "$ws/ran-$name" "^ran $d/bin/$name\$"
		rm -f "$ws/ran-$name"
	done
	xcase 126 "kinbox: ./subdir: Is a directory" "$SYSPATH" ${opt:+-q "$opt"} -- ./subdir
	bash_agrees 126 "$SYSPATH" ./subdir
	xcase 127 "kinbox: ../ws/a/b/c: No such file or directory" "$SYSPATH" ${opt:+-q "$opt"} -- ../ws/a/b/c
	# a command that exits 126 or 127 by itself keeps its status and
	# gets no kinbox line
	xrun "$SYSPATH" ${opt:+-q "$opt"} -- sh -c 'echo ran >ran-self; exit 126'
	assert_streq "$KB_RC" 126 "the command's own 126"
	assert_file_has_content "$ws/ran-self" '^ran$'
	[ ! -s "$KB_ERR" ] || fail "stderr: $(cat "$KB_ERR")"
}
run_test "found but not executable (mode 644 behind unreadable dirs, a path to one, a path to a dir): 126; behind a same-named dir, paths that do not exist: 127, as bash, with the shell's message; control: the executable after it runs" t_exec_not_executable sandboxed
run_test "the same without a sandbox (--unconfined)" t_exec_not_executable unconfined

done_testing
