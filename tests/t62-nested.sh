#!/bin/sh
# tests/t62-nested.sh — issue 29, finding 2: kinbox inside an agent's own
# sandbox (sandbox-runtime's, Codex's), where /tmp is read-only and bwrap
# may not mount /proc: the landlock backend still runs, its per-run
# temporary directory made where the outer sandbox lets it write
# (/dev/shm, else the workspace); where nothing is writable kinbox refuses
# with one line naming the agent's setting; kinbox --status inside says
# so. The outer sandbox is a bwrap of the test's own (/tmp, /dev/shm
# read-only, the workspace writable, SANDBOX_RUNTIME=1 as sandbox-runtime
# sets it); the effects are judged from outside it.
#
# Run: sh tests/t62-nested.sh (TAP), or all: sh tests/run-integration.sh
# shellcheck disable=SC2317,SC2016,SC2164
# SC2317: the t_* bodies are called through run_test.
# SC2016: single-quoted $... is meant for the shell inside the sandbox.
# SC2164: lib.sh sets -e (test bodies run under set -e): a failed cd fails.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

unset XDG_RUNTIME_DIR KINBOX_SESSION TMPDIR || true
HOME=$KB_T/home
XDG_STATE_HOME=$KB_T/state
mkdir -p "$HOME"
export HOME XDG_STATE_HOME

if [ ! -x "$KINBOX" ]; then
	tap_not_ok "kinbox binary $KINBOX exists (build it: make kinbox kinbox-exec kinpolicy)"
	done_testing
fi
have bwrap || skip_all "bwrap is not installed (the outer sandbox is one)"
mkdir "$KB_T/preflight"
if ! bwrap --dev-bind / / --ro-bind /tmp /tmp -- true 2>"$KB_T/pre.err"; then
	diag "$(cat "$KB_T/pre.err")"
	skip_all "bwrap cannot make the outer sandbox here"
fi
if ! (cd "$KB_T/preflight" && timeout 30 "$KINBOX" -- true) >"$KB_T/preflight.log" 2>&1; then
	diag "$(cat "$KB_T/preflight.log")"
	skip_all "kinbox cannot set up a sandbox on this host"
fi
# the landlock backend, which the tests need, by kinbox's own word (a
# kinbox that cannot say, the stub's, meets the tests)
if "$KINBOX" --status --json >"$KB_T/status.json" 2>/dev/null &&
	! python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["landlock"]["usable"] else 1)' "$KB_T/status.json"; then
	skip_all "the landlock backend cannot run here (kinbox --status)"
fi
diag "kinbox: $KINBOX; uid $(id -u)"

# outer [--shm-ro] [--ws-ro] [--no-agent] -- CMD...: CMD inside the
# stand-in of an agent's sandbox: the host read-only but /dev and the
# workspace $w, /tmp and (with --shm-ro) /dev/shm read-only
outer() {
	_shm=--bind
	_ws=--bind
	_agent="--setenv SANDBOX_RUNTIME 1"
	while [ "$1" != -- ]; do
		case $1 in
		--shm-ro) _shm=--ro-bind ;;
		--ws-ro) _ws=--ro-bind ;;
		--no-agent) _agent="--unsetenv SANDBOX_RUNTIME" ;;
		esac
		shift
	done
	shift
	mkdir -p "$KB_T/shm"
	# shellcheck disable=SC2086 # _agent is two or three words
	bwrap --ro-bind / / --dev /dev "$_shm" "$KB_T/shm" /dev/shm \
		--ro-bind /tmp /tmp --proc /proc "$_ws" "$w" "$w" \
		--bind "$KB_T/state" "$KB_T/state" $_agent --chdir "$w" -- "$@"
}

newws() {
	w=$(newdir "$1")
	mkrepo "$w"
	mkdir -p "$KB_T/state" "$KB_T/outside"
}

# /tmp read-only: the run's directory goes to /dev/shm; the command's
# write lands, one outside does not, its TMPDIR works
t_shm() {
	newws ws-shm
	outer -- "$KINBOX" --backend landlock -- sh -c \
		'echo in >inside.txt; printf "%s\n" "$TMPDIR" >tmpdir.txt; echo t >"$TMPDIR/t" && echo ok >tmpok.txt; touch '"$KB_T/outside/x"' 2>/dev/null; true' \
		>"$KB_T/out.log" 2>&1 || {
		cat "$KB_T/out.log"
		fail "kinbox failed inside the outer sandbox"
	}
	assert_streq "$(cat "$w/inside.txt")" in "the command's write"
	assert_exists "$w/tmpok.txt"
	case $(cat "$w/tmpdir.txt") in
	/dev/shm/kinbox-*/run.*) ;;
	*) fail "TMPDIR inside was $(cat "$w/tmpdir.txt"), not under /dev/shm" ;;
	esac
	assert_not_exists "$KB_T/outside/x"
	# removed after the run
	[ -z "$(ls "$KB_T/shm")" ] || fail "left in /dev/shm: $(ls "$KB_T/shm")"
}
run_test "inside an agent's sandbox (/tmp read-only): the landlock run's TMPDIR is under /dev/shm, writes land, nothing outside" t_shm

# /tmp and /dev/shm read-only: a hidden directory of the workspace, gone
# after the run
t_workspace_rundir() {
	newws ws-wsdir
	outer --shm-ro -- "$KINBOX" --backend landlock -- sh -c \
		'echo in >inside.txt; printf "%s\n" "$TMPDIR" >tmpdir.txt; echo t >"$TMPDIR/t" && echo ok >tmpok.txt' \
		>"$KB_T/out.log" 2>&1 || {
		cat "$KB_T/out.log"
		fail "kinbox failed inside the outer sandbox"
	}
	assert_exists "$w/inside.txt"
	assert_exists "$w/tmpok.txt"
	case $(cat "$w/tmpdir.txt") in
	"$w"/.kinbox-run.*) ;;
	*) fail "TMPDIR inside was $(cat "$w/tmpdir.txt"), not in the workspace" ;;
	esac
	if ls -d "$w"/.kinbox-run.* 2>/dev/null; then
		fail "the run's directory was left in the workspace"
	fi
}
run_test "inside an agent's sandbox (/tmp and /dev/shm read-only): the run's directory is a hidden one of the workspace, removed after" t_workspace_rundir

# nothing writable: one line naming the agent's setting, exit 125, nothing
# runs; without the agent's variable, the same refusal without the hint
t_refused() {
	newws ws-ro
	_rc=0
	outer --shm-ro --ws-ro -- "$KINBOX" --backend landlock -- touch ran.txt \
		>"$KB_T/out.log" 2>&1 || _rc=$?
	assert_streq "$_rc" 125 "exit status"
	assert_not_exists "$w/ran.txt"
	[ "$(wc -l <"$KB_T/out.log")" -eq 1 ] || fail "not one line: $(cat "$KB_T/out.log")"
	grep -q 'kinbox runs inside Claude Code.s sandbox (sandbox-runtime)' "$KB_T/out.log" ||
		fail "the agent's sandbox is not named: $(cat "$KB_T/out.log")"
	grep -q '"sandbox": {"enabled": false}' "$KB_T/out.log" ||
		fail "the setting is not named: $(cat "$KB_T/out.log")"
	# control: no agent sandbox seen, no hint
	_rc=0
	outer --shm-ro --ws-ro --no-agent -- "$KINBOX" --backend landlock -- touch ran.txt \
		>"$KB_T/out2.log" 2>&1 || _rc=$?
	assert_streq "$_rc" 125
	assert_not_file_has_content "$KB_T/out2.log" "kinbox runs inside"
}
run_test "inside an agent's sandbox with nothing writable: exit 125, one line naming the agent's setting; without it, no hint" t_refused

# --status inside names the agent sandbox, and says the landlock backend
# is unusable when no run directory can be made
t_status() {
	newws ws-status
	outer -- "$KINBOX" --status >"$KB_T/st.out" 2>&1 || true
	grep -q '^agent sandbox  *Claude Code.s sandbox' "$KB_T/st.out" || {
		cat "$KB_T/st.out"
		fail "--status does not name the agent sandbox"
	}
	outer --shm-ro --ws-ro -- "$KINBOX" --status --json >"$KB_T/st.json" 2>&1 || true
	python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); ll=s["landlock"]; a=s["agent_sandbox"]
assert a and "sandbox-runtime" in a["name"], a
assert ll["usable"] is False and "temporary directory" in ll["why"], ll' "$KB_T/st.json" ||
		fail "--status --json inside: $(cat "$KB_T/st.json")"
	# control: outside the stand-in, no agent sandbox
	(cd "$w" && "$KINBOX" --status --json) >"$KB_T/st2.json" 2>&1 || true
	python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["agent_sandbox"] is None' "$KB_T/st2.json" ||
		fail "--status --json outside names an agent sandbox"
}
run_test "kinbox --status inside an agent's sandbox names it, and the landlock backend unusable when nowhere is writable" t_status

done_testing
