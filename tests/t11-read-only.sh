#!/bin/sh
# tests/t11-read-only.sh — kinbox --read-only and [sandbox] mode = read-only
# (issue 33): nothing of the host takes a write, the workspace neither, a
# --write root, a config's write root or the home neither; the private
# /tmp (the landlock backend: the run's own TMPDIR) takes writes and they
# are gone after the run; a refused write is named as refused because the
# run is read-only and suggests no --write; --write with --read-only is one
# line, exit 125; the project file may set it and no grant lifts it; git
# reads work and git commit is refused; a planning-mode shell call that
# writes is allowed read-only by kinpolicy's hook and changes nothing.
#
# Every effect is judged from outside (the files after the run), and every
# test has a positive control in the same run (the command printed what it
# read, or a run without --read-only wrote), so a kinbox that runs nothing
# fails each one. run-integration.sh runs it as root and as an
# unprivileged user, and again under the landlock backend.
#
# Run: sh tests/t11-read-only.sh (TAP), or all suites: sh tests/run-integration.sh
# shellcheck disable=SC2317,SC2164,SC2016
# SC2317: the t_* bodies are called through run_test.
# SC2164: lib.sh sets -e (test bodies run under set -e): a failed cd fails.
# SC2016: single-quoted $... is meant for the sandboxed shell.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

KP=$KINPOLICY
XDG_CONFIG_HOME=$KB_T/config
XDG_STATE_HOME=$KB_T/state
XDG_RUNTIME_DIR=$KB_T/run
mkdir -p "$XDG_CONFIG_HOME/kinbox" "$XDG_STATE_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
export XDG_CONFIG_HOME XDG_STATE_HOME XDG_RUNTIME_DIR
unset KINBOX_SESSION KINBOX_JSON_FD SSH_AUTH_SOCK SSH_AGENT_PID \
	CLAUDE_CODE_SHELL_PREFIX || true
GLOBAL=$XDG_CONFIG_HOME/kinbox/config.ini

if [ ! -x "$KINBOX" ] || [ ! -x "$KP" ]; then
	tap_not_ok "kinbox and kinpolicy exist ($KINBOX, $KP; build them: make all)"
	done_testing
fi
mkdir "$KB_T/preflight"
if ! (cd "$KB_T/preflight" && "$KINBOX" -- true) >"$KB_T/preflight.log" 2>&1; then
	diag "$(cat "$KB_T/preflight.log")"
	skip_all "kinbox cannot set up a sandbox on this host"
fi

# the denial line of a read-only run: names the mode, offers no --write
assert_read_only_denial() {
	# $1: the path refused, $2: what set the mode as the line gives it
	assert_file_has_content "$KB_ERR" \
		"^kinbox: denied write '$1' .*: this run is read-only \\($2\\), which no --write or grant lifts; run it without "
	assert_not_file_has_content "$KB_ERR" 'retry with --write'
	assert_not_file_has_content "$KB_ERR" 'retry with --unconfined'
}

# --- 1. the workspace, /tmp, the home ---------------------------------------

t_workspace() {
	ws=$(newdir ws1)
	echo before >"$ws/f"
	cd "$ws"
	kb --read-only -- sh -c 'cat f; echo after >f; echo new >g'
	[ "$KB_RC" -ne 0 ] || fail "the writes succeeded (exit 0)"
	assert_file_has_content "$KB_OUT" '^before$' # it ran, and read
	assert_file_has_content "$ws/f" '^before$'
	assert_not_exists "$ws/g"
	assert_read_only_denial "$ws/f" '--read-only'
	assert_file_has_content "$KB_ERR" 'run it without --read-only if it should write'
	# the control: the same command without --read-only writes
	kb_expect 0 -- sh -c 'echo after >f'
	assert_file_has_content "$ws/f" '^after$'
}
run_test "--read-only: a write in the workspace is refused, the file unchanged; the denial names the mode, no --write" t_workspace

t_tmp() {
	ws=$(newdir ws2)
	cd "$ws"
	# the landlock backend has no private /tmp: its TMPDIR is the run's
	kb_expect 0 --read-only -- sh -c \
		'd=${TMPDIR:-/tmp}; echo scratch >"$d/kb-ro-scratch" && cat "$d/kb-ro-scratch" && echo "$d/kb-ro-scratch"'
	assert_file_has_content "$KB_OUT" '^scratch$'
	p=$(tail -n 1 "$KB_OUT")
	case $p in /*) ;; *) fail "no path printed: $p" ;; esac
	assert_not_exists "$p"
	[ ! -s "$KB_ERR" ] || fail "stderr: $(cat "$KB_ERR")"
}
run_test "--read-only: the private /tmp (landlock: the run's TMPDIR) takes writes, and they are gone after the run" t_tmp

t_home() {
	ws=$(newdir ws3)
	cd "$ws"
	f=$HOME/.kb-ro-home-$$
	rm -f "$f"
	kb --read-only -- sh -c "echo ran; echo x >'$f'"
	[ "$KB_RC" -ne 0 ] || fail "the write succeeded"
	assert_file_has_content "$KB_OUT" '^ran$'
	assert_not_exists "$f"
	assert_read_only_denial "$f" '--read-only'
}
run_test "--read-only: a write in the home is refused and leaves nothing; the denial names the mode" t_home

# --- 2. roots: typed, configured, granted -----------------------------------

t_write_flag() {
	ws=$(newdir ws4)
	out=$(newdir out4)
	cd "$ws"
	kb_expect 125 --read-only --write "$out" -- sh -c "echo ran; touch '$out/ctl'"
	assert_one_kinbox_line "$KB_ERR" \
		"^kinbox: --write $out and --read-only: a read-only run writes nowhere but its private /tmp; drop one of the two\$"
	[ ! -s "$KB_OUT" ] || fail "the command ran: $(cat "$KB_OUT")"
	assert_not_exists "$out/ctl"
	kb_expect 125 --write "$out" --read-only -- true
	assert_one_kinbox_line "$KB_ERR" 'and --read-only: a read-only run writes nowhere'
	kb_expect 125 --read-only --unconfined -- sh -c "touch '$out/ctl'"
	assert_one_kinbox_line "$KB_ERR" \
		'^kinbox: --unconfined runs the command with no sandbox, which cannot keep it from writing, and --read-only makes the run read-only; use one of the two$'
	assert_not_exists "$out/ctl"
	# the control: --write alone writes there
	kb_expect 0 --write "$out" -- sh -c "touch '$out/ctl'"
	assert_exists "$out/ctl"
}
run_test "--write or --unconfined with --read-only: one line, exit 125, nothing runs (control: --write alone writes)" t_write_flag

t_config_root() {
	ws=$(newdir ws5)
	out=$(newdir out5)
	echo before >"$out/f"
	printf '[sandbox]\nwrite_paths = %s\n' "$out" >"$GLOBAL"
	cd "$ws"
	kb --read-only -- sh -c "cat '$out/f'; echo after >'$out/f'"
	[ "$KB_RC" -ne 0 ] || fail "the write succeeded"
	assert_file_has_content "$KB_OUT" '^before$'
	assert_file_has_content "$out/f" '^before$'
	assert_read_only_denial "$out/f" '--read-only'
	kb_expect 0 --read-only --dry-run -- true
	assert_file_has_content "$KB_OUT" \
		"^# config: write: $out \\(global config\\) is read-only here: this run is read-only \\(--read-only\\), which no config or grant widens\$"
	assert_not_file_has_content "$KB_OUT" "^# write: $out"
	# the control: without --read-only the config's root is writable
	kb_expect 0 -- sh -c "echo after >'$out/f'"
	assert_file_has_content "$out/f" '^after$'
	rm -f "$GLOBAL"
}
run_test "--read-only: a config's write root is read-only (noted by --dry-run), the file unchanged (control: writable without it)" t_config_root

t_project() {
	ws=$(newdir ws6)
	out=$(newdir out6)
	echo before >"$ws/f"
	printf '[sandbox]\nmode = read-only\n' >"$ws/.kinbox.ini"
	S=$("$KP" session new) || fail "kinpolicy session new failed"
	printf '[grant]\nwrite_paths = %s\n' "$ws" >>"$XDG_RUNTIME_DIR/kinbox/sessions/$S.ini"
	cd "$ws"
	KINBOX_SESSION=$S kb -- sh -c "cat f; echo after >f; touch '$out/ctl'"
	[ "$KB_RC" -ne 0 ] || fail "the writes succeeded"
	assert_file_has_content "$KB_OUT" '^before$'
	assert_file_has_content "$ws/f" '^before$'
	assert_not_exists "$out/ctl"
	assert_read_only_denial "$ws/f" "\\[sandbox\\] mode in $ws/.kinbox.ini:2"
	assert_file_has_content "$KB_ERR" 'run it without read-only \(remove that line\) if it should write'
	# a typed --write: refused, naming the file
	kb_expect 125 --write "$out" -- sh -c "touch '$out/ctl'"
	assert_one_kinbox_line "$KB_ERR" \
		"^kinbox: --write $out: this run is read-only \\(mode = read-only in $ws/.kinbox.ini:2, a project file's tightening, which no flag lifts\\), so nothing is writable; drop --write, or run without read-only \\(remove that line\\)\$"
	assert_not_exists "$out/ctl"
	# the project cannot lift a read-only it did not set
	printf '[sandbox]\nmode = workspace-write\n' >"$ws/.kinbox.ini"
	kb --read-only -- sh -c 'echo after >f'
	assert_file_has_content "$ws/f" '^before$'
	assert_file_has_content "$KB_ERR" \
		"^kinbox: $ws/.kinbox.ini:2: 'mode' ignored: a project file may make a run read-only, never lift it\$"
	# the control: that file alone leaves the workspace writable
	kb_expect 0 -- sh -c 'echo after >f'
	assert_file_has_content "$ws/f" '^after$'
}
run_test "a project's mode = read-only: the workspace and a session's granted root unwritable, --write refused naming the file; it cannot lift --read-only" t_project

# --- 3. what the run says ---------------------------------------------------

t_dry_run() {
	ws=$(newdir ws7)
	cd "$ws"
	kb_expect 0 --read-only --dry-run -- true
	assert_file_has_content "$KB_OUT" '^# mode: read-only \(set by --read-only\): nothing of the host takes a write'
	assert_file_has_content "$KB_OUT" "^# workspace: $ws \\(read-only\\)\$"
	kb_expect 0 --dry-run -- true
	assert_file_has_content "$KB_OUT" '^# mode: workspace-write \(the default\)'
	assert_file_has_content "$KB_OUT" "^# workspace: $ws \\(writable\\)\$"
	"$KINBOX" --status >"$KB_OUT" 2>&1 || true
	assert_file_has_content "$KB_OUT" '^modes  *read-only \(--read-only, mode = read-only\)'
}
run_test "--dry-run shows the mode (read-only, workspace-write) and the workspace's; --status lists the modes" t_dry_run

t_record() {
	require jq
	ws=$(newdir ws8)
	echo before >"$ws/f"
	cd "$ws"
	kb --read-only --json-fd 3 -- sh -c 'cat f; echo after >f' 3>"$KB_T/rec8.json"
	assert_file_has_content "$KB_OUT" '^before$'
	assert_file_has_content "$ws/f" '^before$'
	[ "$(jq -r .mode "$KB_T/rec8.json")" = read-only ] || fail "mode: $(cat "$KB_T/rec8.json")"
	[ "$(jq -r .mode_by "$KB_T/rec8.json")" = --read-only ] || fail "mode_by"
	[ "$(jq -r .read_only_by "$KB_T/rec8.json")" = --read-only ] || fail "read_only_by"
	[ "$(jq -r '.suggest.write_paths | length' "$KB_T/rec8.json")" = 0 ] ||
		fail "a write root suggested: $(jq -c .suggest "$KB_T/rec8.json")"
	[ "$(jq -r .policy.read_only "$KB_T/rec8.json")" = true ] || fail "policy.read_only"
	[ "$(jq -r .flags.read_only "$KB_T/rec8.json")" = true ] || fail "flags.read_only"
	id=$(jq -r .id "$KB_T/rec8.json")
	assert_exit 125 "$KP" grant "$id" --suggested --once
	assert_exit 125 "$KP" grant "$id" --write "$ws" --once
}
run_test "the record: mode read-only, mode_by, read_only_by, no write root suggested; kinpolicy grant refuses it" t_record

# --- 4. git in a read-only run ----------------------------------------------

t_git() {
	require git
	ws=$(newdir ws9)
	mkrepo "$ws"
	echo one >"$ws/a"
	git -C "$ws" add a
	git -C "$ws" commit -q -m one
	echo two >>"$ws/a"
	head=$(git -C "$ws" rev-parse HEAD)
	cd "$ws"
	kb_expect 0 --read-only -- sh -c 'git status --short; git diff --stat; git log -p --oneline | head -3'
	assert_file_has_content "$KB_OUT" '^ M a$'
	assert_file_has_content "$KB_OUT" 'a | 1 +'
	assert_not_file_has_content "$KB_ERR" '^kinbox: denied'
	kb --read-only -- git commit -q -am two
	[ "$KB_RC" -ne 0 ] || fail "git commit succeeded"
	[ "$(git -C "$ws" rev-parse HEAD)" = "$head" ] || fail "HEAD moved"
	assert_file_has_content "$KB_ERR" '^kinbox: denied write .*: this run is read-only \(--read-only\)'
	# the control: without --read-only it commits
	kb_expect 0 -- git commit -q -am two
	[ "$(git -C "$ws" rev-parse HEAD)" != "$head" ] || fail "HEAD did not move"
}
run_test "git status, diff and log -p work read-only; git commit is refused with a read-only denial, HEAD unchanged (control: it commits without)" t_git

# the work a planner does reads: make -n, grep -r, a test runner that
# only reads (pytest, or sh's own test script), each as without
# --read-only; a cache write is discarded, as in any run; control: the
# same make without -n builds without --read-only
t_reading_work() {
	ws=$(newdir ws10)
	mkrepo "$ws"
	cd "$ws"
	printf 'all: out.txt\nout.txt:\n\techo built >out.txt\n' >Makefile
	echo "needle in a file" >notes.txt
	mkdir -p tests "$HOME/.npm"
	cat >tests/test_read.py <<'EOF'
def test_reads():
    assert "needle" in open("notes.txt").read()
EOF
	kb_expect 0 --read-only -- sh -c 'make -n; grep -rn needle .'
	assert_file_has_content "$KB_OUT" '^echo built >out.txt$'
	assert_file_has_content "$KB_OUT" '^./notes.txt:1:needle in a file$'
	assert_not_exists "$ws/out.txt"
	if /usr/bin/python3 -c 'import pytest' 2>/dev/null; then
		kb_expect 0 --read-only -- /usr/bin/python3 -m pytest -q -p no:cacheprovider tests
		assert_file_has_content "$KB_OUT" '1 passed'
	else
		kb_expect 0 --read-only -- sh -c 'grep -q needle notes.txt && echo "1 passed"'
		assert_file_has_content "$KB_OUT" '1 passed'
	fi
	# a cache's writes are the run's alone (ephemeral): gone after it
	# (the landlock backend has no overlay: its caches are read-only)
	if [ "${KB_BACKEND:-}" != landlock ]; then
		kb_expect 0 --read-only -- sh -c 'echo c >"$HOME/.npm/ro-cache-write" && cat "$HOME/.npm/ro-cache-write"'
		assert_file_has_content "$KB_OUT" '^c$'
		assert_not_exists "$HOME/.npm/ro-cache-write"
	fi
	# the control: without --read-only the same make builds
	kb_expect 0 -- make -s
	assert_file_has_content "$ws/out.txt" '^built$'
}
run_test "--read-only: make -n, grep -r and a reading test runner work as without it, a cache write is discarded; control: make builds without --read-only" t_reading_work

# --- 5. planning: the hook runs a writing shell call read-only ---------------

t_plan_hook() {
	require jq
	ws=$(newdir ws10)
	mkrepo "$ws"
	echo before >"$ws/f"
	cd "$ws"
	for c in 'echo after >f; touch new' 'sed -i s/before/after/ f' \
		'git commit -q --allow-empty -m x' 'ls'; do
		jq -n --arg c "$c" --arg cwd "$ws" \
			'{session_id:"s1", cwd:$cwd, permission_mode:"plan", hook_event_name:"PreToolUse", tool_name:"Bash", tool_input:{command:$c}}' |
			CLAUDE_PROJECT_DIR=$ws "$KP" hook claude-code --kinbox "$KINBOX" >"$KB_T/ans" 2>"$KB_T/hookerr" ||
			fail "hook failed: $(cat "$KB_T/hookerr")"
		[ "$(jq -r .hookSpecificOutput.permissionDecision "$KB_T/ans")" = allow ] ||
			fail "not allowed: $(cat "$KB_T/ans")"
		cmd=$(jq -r .hookSpecificOutput.updatedInput.command "$KB_T/ans")
		case $cmd in *" --read-only --workspace "*) ;; *) fail "not the read-only rewrite: $cmd" ;; esac
		head=$(git rev-parse HEAD)
		KB_RC=0
		sh -c "$cmd" >"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
		assert_file_has_content "$ws/f" '^before$'
		assert_not_exists "$ws/new"
		[ "$(git rev-parse HEAD)" = "$head" ] || fail "HEAD moved: $c"
	done
	# the last one, ls, ran and printed (the control)
	assert_file_has_content "$KB_OUT" '^f$'
}
run_test "planning: the hook allows writing shell calls rewritten to --read-only, which change nothing; ls runs and prints" t_plan_hook

done_testing
