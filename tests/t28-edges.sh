#!/bin/sh
# tests/t28-edges.sh — the rough edges of issue 11, each checked from
# outside the sandbox with a positive control in the same test:
#   1. a command's exit status and message follow the shell's PATH rule: a
#      directory of PATH that cannot be read never turns "not found" (127)
#      into "Permission denied" (126); 126 only for a file found and
#      refused (or a path naming a directory);
#   2. the host's /tmp (however it is spelled) is never a write root or the
#      workspace; a root below /tmp is bound inside the private /tmp and
#      --dry-run says so;
#   3. -C DIR changes directory first (git, make), --workspace DIR keeps
#      the current directory, which must lie in it.
#
# Run: sh tests/t28-edges.sh (TAP), or all suites: sh tests/run-integration.sh
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

# ============================================================================
# 2. /tmp
# ============================================================================

TMPTAIL=": /tmp itself is never a write root (the bwrap backend's /tmp is private and writable, the landlock backend's TMPDIR a directory of the run); to share a host directory, grant a subdirectory, e.g."

# tmp_refused MARKER LINE CMD...: 125, exactly LINE, MARKER not created
tmp_refused() {
	_m=$1
	_line=$2
	shift 2
	_rc=0
	"$@" >"$KB_OUT" 2>"$KB_ERR" </dev/null || _rc=$?
	if [ "$_rc" != 125 ]; then
		_show_file "$KB_ERR"
		fail "exit status $_rc, expected 125: $*"
	fi
	assert_kinbox_said "$KB_ERR" "$_line"
	[ ! -s "$KB_OUT" ] || fail "stdout is not empty"
	assert_not_exists "$_m"
}

t_tmp_refused() {
	d=$(newdir tmp-refused)
	mkdir -p "$d/ws"
	ln -s /tmp "$d/tmplink"
	ln -s tmplink "$d/tmplink2"
	m=/tmp/kinbox-t28-ran.$(basename "$KB_T")
	cleanup_add "rm -f '$m'"
	cd "$d/ws"
	for w in /tmp /tmp/ /tmp/. //tmp /var/../tmp "$d/tmplink" "$d/tmplink2" ../tmplink; do
		if [ "$w" = /tmp ]; then
			line="kinbox: --write /tmp$TMPTAIL --write /tmp/NAME"
		else
			line="kinbox: --write $w: that is /tmp, and /tmp itself is never a write root (the bwrap backend's /tmp is private and writable, the landlock backend's TMPDIR a directory of the run); to share a host directory, grant a subdirectory, e.g. --write /tmp/NAME"
		fi
		tmp_refused "$m" "$line" "$KINBOX" --write "$w" -- touch "$m"
		tmp_refused "$m" "$line" "$KINBOX" -w "$w" --dry-run -- touch "$m"
	done
	# the global config's write_paths, and a session grant
	printf '[sandbox]\nwrite_paths = /tmp/.\n' >"$XDG_CONFIG_HOME/kinbox.ini.tmp"
	mkdir -p "$XDG_CONFIG_HOME/kinbox"
	mv "$XDG_CONFIG_HOME/kinbox.ini.tmp" "$XDG_CONFIG_HOME/kinbox/config.ini"
	tmp_refused "$m" "kinbox: $XDG_CONFIG_HOME/kinbox/config.ini:2: write_paths = /tmp/.: that is /tmp, and /tmp itself is never a write root (the bwrap backend's /tmp is private and writable, the landlock backend's TMPDIR a directory of the run); to share a host directory, grant a subdirectory, e.g. write_paths = /tmp/NAME" \
		"$KINBOX" -- touch "$m"
	rm "$XDG_CONFIG_HOME/kinbox/config.ini"
	if have "$KP"; then
		S=$("$KP" session new) || fail "kinpolicy session new failed"
		SF=$XDG_RUNTIME_DIR/kinbox/sessions/$S.ini
		printf '[grant]\nwrite_paths = /tmp\n' >>"$SF"
		tmp_refused "$m" "kinbox: $SF:2: write_paths = /tmp$TMPTAIL write_paths = /tmp/NAME" \
			env KINBOX_SESSION="$S" "$KINBOX" -- touch "$m"
	fi
	# the workspace: started in /tmp, -C /tmp, --workspace of a /tmp link
	wsline="kinbox: workspace /tmp: the sandbox's /tmp is private (empty, discarded), so the host's /tmp cannot be the workspace; work in a subdirectory, e.g. /tmp/NAME"
	(cd /tmp && tmp_refused "$m" "$wsline" "$KINBOX" -- touch "$m")
	tmp_refused "$m" "$wsline" "$KINBOX" -C /tmp -- touch "$m"
	tmp_refused "$m" "kinbox: workspace $d/tmplink: that is /tmp, and the sandbox's /tmp is private (empty, discarded), so the host's /tmp cannot be the workspace; work in a subdirectory, e.g. /tmp/NAME" \
		"$KINBOX" --workspace "$d/tmplink" -- touch "$m"
	# the positive control: a directory below /tmp is a fine write root
	sub=$(mktemp -d /tmp/kinbox-t28-ok.XXXXXX)
	cleanup_add "rm -rf '$sub'"
	kb_expect 0 --write "$d/tmplink/$(basename "$sub")" -- sh -c "echo ok >'$sub/f'; echo ran >ran"
	assert_file_has_content "$sub/f" '^ok$'
	assert_file_has_content "$d/ws/ran" '^ran$'
}
run_test "the host's /tmp as a write root (/tmp, /tmp/., //tmp, /var/../tmp, symlinks, relative; flag, global config, session grant) or as the workspace (cwd, -C, --workspace): 125 naming the fix; control: a directory below /tmp is granted" t_tmp_refused

t_tmp_below() {
	skip_on_landlock "no private /tmp (write roots below /tmp are the host's either way; t21-landlock.sh checks them)"
	d=$(newdir tmp-below)
	mkdir -p "$d/ws"
	top=$(mktemp -d /tmp/kinbox-t28-below.XXXXXX)
	cleanup_add "rm -rf '$top'"
	mkdir -p "$top/build" "$top/a/b/c" "$top/proj"
	echo host >"$top/a/sibling"
	hostfile=$(mktemp /tmp/kinbox-t28-host.XXXXXX)
	cleanup_add "rm -f '$hostfile'"
	inner=/tmp/kinbox-t28-inner.$(basename "$KB_T")
	cleanup_add "rm -f '$inner'"
	cd "$d/ws"
	kb_expect 0 --dry-run -w "$top/build" -w "$top/a/b/c" -- true
	assert_file_has_content "$KB_OUT" '^# tmp: private /tmp \(discarded\), empty but for the host directories below$'
	assert_file_has_content "$KB_OUT" "^# tmp: $top/build: the host's, writable \\(a write root\\), bound inside the private /tmp; what is written there stays\$"
	assert_file_has_content "$KB_OUT" "^# tmp: $top/a/b/c: the host's, writable \\(a write root\\), bound inside the private /tmp; what is written there stays\$"
	assert_not_file_has_content "$KB_OUT" '^# tmp: private /tmp \(empty, discarded\)$'
	assert_file_has_content "$KB_OUT" "^# write: $top/build \\(flag\\)\$"
	# the run: both roots land on the host; the rest of /tmp is private
	# (a host file is not seen, a write beside the roots stays inside)
	kb_expect 0 -w "$top/build" -w "$top/a/b/c" -- sh -c "
		echo b >'$top/build/out'; echo c >'$top/a/b/c/out'
		echo x >'$inner'
		if [ -e '$hostfile' ] || [ -e '$top/a/sibling' ]; then echo seen; else echo unseen; fi >seen
		echo y >'$top/a/new' || true"
	assert_file_has_content "$top/build/out" '^b$'
	assert_file_has_content "$top/a/b/c/out" '^c$'
	assert_file_has_content "$d/ws/seen" '^unseen$'
	assert_not_exists "$inner"
	assert_not_exists "$top/a/new"
	assert_file_has_content "$top/a/sibling" '^host$'
	# without a root below /tmp the plan says so as before
	kb_expect 0 --dry-run -- true
	assert_file_has_content "$KB_OUT" '^# tmp: private /tmp \(empty, discarded\)$'
	# a workspace below /tmp: the same, named as the workspace
	cd "$top/proj"
	kb_expect 0 --dry-run -- true
	assert_file_has_content "$KB_OUT" "^# tmp: $top/proj: the host's, writable \\(the workspace\\), bound inside the private /tmp; what is written there stays\$"
	kb_expect 0 -- sh -c 'echo w >f'
	assert_file_has_content "$top/proj/f" '^w$'
	# a config write_paths below /tmp
	mkdir -p "$XDG_CONFIG_HOME/kinbox"
	printf '[sandbox]\nwrite_paths = %s\n' "$top/build" >"$XDG_CONFIG_HOME/kinbox/config.ini"
	cleanup_add "rm -f '$XDG_CONFIG_HOME/kinbox/config.ini'"
	cd "$d/ws"
	kb_expect 0 -- sh -c "echo g >'$top/build/global'"
	rm -f "$XDG_CONFIG_HOME/kinbox/config.ini"
	assert_file_has_content "$top/build/global" '^g$'
}
run_test "write roots below /tmp (depth 1 and 3, a flag and write_paths) and a workspace there: --dry-run names each as the host's inside the private /tmp; the writes land on the host, the rest of /tmp stays private" t_tmp_below

t_tmp_grant_refused() {
	have "$KP" || skip_test "kinpolicy is not built"
	have python3 || skip_test "python3 is needed"
	d=$(newdir tmp-grant)
	mkdir -p "$d/ws" "$d/outside"
	cd "$d/ws"
	kb_expect 1 --json-fd 3 -- touch ran "$d/outside/f" 3>"$KB_T/tg.json"
	assert_exists "$d/ws/ran"
	assert_not_exists "$d/outside/f"
	id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$KB_T/tg.json")
	rc=0
	"$KP" grant "$id" --write /tmp/. --once >"$KB_T/tg.out" 2>"$KB_T/tg.err" </dev/null || rc=$?
	assert_streq "$rc" 125 "kinpolicy grant --write /tmp/."
	assert_kinbox_said "$KB_T/tg.err" "kinpolicy: --write /tmp/.: that is /tmp, and /tmp itself is never a write root (the bwrap backend's /tmp is private and writable, the landlock backend's TMPDIR a directory of the run); to share a host directory, grant a subdirectory, e.g. --write /tmp/NAME"
	# the control: the grant that fits works, and the retry writes
	rc=0
	"$KP" grant "$id" --write "$d/outside" --once >"$KB_T/tg.out" 2>"$KB_T/tg.err" </dev/null || rc=$?
	assert_streq "$rc" 0 "kinpolicy grant --write $d/outside"
	rm -f "$d/ws/ran"
	rc=0
	"$KP" retry "$id" >"$KB_T/tg.out" 2>"$KB_T/tg.err" </dev/null || rc=$?
	assert_streq "$rc" 0 "kinpolicy retry"
	assert_exists "$d/outside/f"
	assert_exists "$d/ws/ran"
}
run_test "kinpolicy grant --write /tmp/. is refused with the same fix; control: the fitting grant and its retry write on the host" t_tmp_grant_refused

# ============================================================================
# 3. -C DIR changes directory; --workspace DIR stays
# ============================================================================

t_C_chdir() {
	d=$(newdir C-chdir)
	mkdir -p "$d/proj/sub/deeper" "$d/other" "$d/shared"
	cd "$d"
	kb_expect 0 -C proj -- touch x
	assert_exists "$d/proj/x"
	assert_not_exists "$d/x"
	# composed like git's: -C a -C b is a/b; .. and absolute paths too
	kb_expect 0 -C proj -C sub -- sh -c 'pwd >where; touch y'
	assert_file_has_content "$d/proj/sub/where" "^$d/proj/sub\$"
	assert_exists "$d/proj/sub/y"
	kb_expect 0 -C proj/sub/deeper -C .. -C ../../other -- touch z
	assert_exists "$d/other/z"
	kb_expect 0 --directory "$d/proj/sub/deeper" -- touch w
	assert_exists "$d/proj/sub/deeper/w"
	# DIR is the workspace: its parent stays read-only
	kb -C proj/sub -- sh -c 'touch ../up; touch inside'
	assert_not_exists "$d/proj/up"
	assert_exists "$d/proj/sub/inside"
	kb_expect 0 --dry-run -C proj -C sub -- true
	assert_file_has_content "$KB_OUT" "^# workspace: $d/proj/sub \\(writable\\)\$"
	assert_file_has_content "$KB_OUT" "^# cwd: $d/proj/sub\$"
	# relative --write paths are taken from the last -C, wherever typed
	kb_expect 0 -w ../shared -C proj -- touch ../shared/s
	assert_exists "$d/shared/s"
	kb_expect 0 -w ../../shared -C proj/sub -- touch ../../shared/s2
	assert_exists "$d/shared/s2"
	# a missing directory: 125, nothing ran
	check=$d/proj/never
	rc=0
	"$KINBOX" -C proj -C nope -- touch "$check" >"$KB_OUT" 2>"$KB_ERR" || rc=$?
	assert_streq "$rc" 125 "-C into a missing directory"
	assert_kinbox_said "$KB_ERR" "kinbox: -C nope: No such file or directory; give a directory to run in"
	assert_not_exists "$check"
}
run_test "-C DIR changes directory first: from the parent -C proj -- touch x makes proj/x; -C a -C b is a/b (.., absolute, --directory); DIR is the workspace and the cwd, its parent read-only; relative --write from DIR; a missing DIR: 125" t_C_chdir

t_workspace_stays() {
	d=$(newdir ws-stays)
	mkdir -p "$d/proj/src/deep" "$d/other"
	cd "$d/proj/src"
	kb_expect 0 --workspace .. -- sh -c 'pwd >where; touch here ../up'
	assert_file_has_content "$d/proj/src/where" "^$d/proj/src\$"
	assert_exists "$d/proj/src/here"
	assert_exists "$d/proj/up"
	cd deep
	kb_expect 0 --workspace "$d/proj" -- touch here2
	assert_exists "$d/proj/src/deep/here2"
	kb_expect 0 --dry-run --workspace ../.. -- true
	assert_file_has_content "$KB_OUT" "^# workspace: $d/proj \\(writable\\)\$"
	assert_file_has_content "$KB_OUT" "^# cwd: $d/proj/src/deep\$"
	# -C then --workspace: the workspace is taken from DIR
	cd "$d"
	kb_expect 0 -C proj/src --workspace .. -- touch c1 ../c2
	assert_exists "$d/proj/src/c1"
	assert_exists "$d/proj/c2"
	# the current directory outside the workspace: refused, nothing ran
	cd "$d/other"
	rc=0
	"$KINBOX" --workspace "$d/proj" -- touch "$d/proj/never" >"$KB_OUT" 2>"$KB_ERR" || rc=$?
	assert_streq "$rc" 125 "--workspace with the cwd outside it"
	assert_kinbox_said "$KB_ERR" "kinbox: --workspace $d/proj: the current directory $d/other lies outside it, and the command runs in the current directory; cd into the workspace first, or give -C $d/proj to run in it"
	assert_not_exists "$d/proj/never"
	rc=0
	"$KINBOX" --workspace "$d/proj" --workspace "$d/proj" -- touch "$d/proj/never" >"$KB_OUT" 2>"$KB_ERR" || rc=$?
	assert_streq "$rc" 125 "--workspace twice"
	assert_kinbox_said "$KB_ERR" "kinbox: --workspace given twice; give one workspace"
	assert_not_exists "$d/proj/never"
}
run_test "--workspace DIR stays in the current directory (DIR its ancestor, relative or absolute; after -C, from DIR); the cwd outside it or a second --workspace: 125, nothing ran" t_workspace_stays

t_retry_in_cwd() {
	have "$KP" || skip_test "kinpolicy is not built"
	have python3 || skip_test "python3 is needed"
	d=$(newdir retry-cwd)
	mkdir -p "$d/proj/sub" "$d/outside"
	cd "$d"
	# from the parent with -C, and with --workspace from a subdirectory
	for how in C workspace; do
		rm -f "$d/outside/f" "$d/proj/sub/ran"
		if [ "$how" = C ]; then
			kb_expect 1 --json-fd 3 -C proj/sub -- touch ran "$d/outside/f" 3>"$KB_T/rc.json"
		else
			(cd proj/sub && kb_expect 1 --json-fd 3 --workspace .. -- touch ran "$d/outside/f" 3>"$KB_T/rc.json")
		fi
		assert_exists "$d/proj/sub/ran"
		assert_not_exists "$d/outside/f"
		rm "$d/proj/sub/ran"
		id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$KB_T/rc.json")
		"$KP" grant "$id" --write "$d/outside" --once >/dev/null 2>"$KB_T/rc.err" </dev/null ||
			fail "grant: $(cat "$KB_T/rc.err")"
		rc=0
		"$KP" retry "$id" >"$KB_T/rc.out" 2>"$KB_T/rc.err" </dev/null || rc=$?
		assert_streq "$rc" 0 "retry of the $how run: $(cat "$KB_T/rc.err")"
		assert_exists "$d/outside/f"
		assert_exists "$d/proj/sub/ran"
	done
}
run_test "kinpolicy retry of a run made with -C, and with --workspace from a subdirectory: the same cwd and workspace again (the relative marker lands in proj/sub), the granted write lands" t_retry_in_cwd

done_testing
