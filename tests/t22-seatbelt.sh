#!/bin/sh
# tests/t22-seatbelt.sh — the seatbelt backend (macOS) as far as Linux can
# test it. There is no macOS machine here: nothing in this file runs a
# command under a real sandbox-exec, and nothing here shows that the
# profile confines anything. What is tested:
#
#  - `--backend seatbelt --dry-run` (text and --json) on Linux: the profile
#    and sandbox-exec's argv, the paths only in the -D parameters (also for
#    hostile workspace names), the same profile text for the same shape;
#  - a real run on Linux is refused (exit 125, nothing runs), and the
#    release build ignores the test build's stand-in variable;
#  - the run path kinbox would take on macOS (kinbox.c's run_seatbelt,
#    backends/run-posix.c, the classifier, the report), driven through the
#    test build (make kinbox-test) with a stand-in for sandbox-exec
#    (KINBOX_TEST_SANDBOX_EXEC): a shell script that logs its argv and
#    runs what follows "--", enforcing nothing. Effects are judged from
#    outside: files the command made, the stand-in's log, kinbox's exit
#    status and lines.
#
# The checks of the profile itself are the unit tests' (tests/unit/
# test-seatbelt.c, test-sbpl.c, the golden files tests/golden/seatbelt-*).
#
# Run: make kinbox kinbox-test && sh tests/t22-seatbelt.sh, or all suites
# with sh tests/run-integration.sh.
# shellcheck disable=SC2317,SC2016,SC2164
# SC2317: the t_* bodies are called through run_test.
# SC2016: single-quoted $... is meant for the shell the stand-in runs.
# SC2164: lib.sh sets -e (test bodies run under set -e): a failed cd fails.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

# KINBOX_SANDBOX (the landlock pass's) would win over --backend seatbelt
unset KINBOX_SANDBOX XDG_CONFIG_HOME XDG_RUNTIME_DIR SSH_AUTH_SOCK \
	KINBOX_SESSION KINBOX_JSON_FD KINBOX_TEST_SANDBOX_EXEC || true
HOME=$KB_T/home
XDG_STATE_HOME=$KB_T/state
mkdir -p "$HOME" "$XDG_STATE_HOME"
export HOME XDG_STATE_HOME

: "${KINBOX_TEST:=$(dirname "$KINBOX")/kinbox-test}"
KT=$KINBOX_TEST
PY=python3
if [ -x /usr/bin/python3 ]; then
	PY=/usr/bin/python3
fi

if [ ! -x "$KINBOX" ]; then
	tap_not_ok "kinbox binary $KINBOX exists (make kinbox)"
	done_testing
fi
if [ ! -x "$KT" ]; then
	tap_not_ok "the test build $KT exists (make kinbox-test)"
	done_testing
fi
have "$PY" || skip_all "python3 is not installed"
diag "no macOS here: sandbox-exec is never run; the run path is driven through a stand-in that enforces nothing"

# The stand-in: logs its argv (one element a line, then "END"), then runs
# what follows "--". SB_MODE=refuse makes it answer as sandbox-exec does
# for a profile it rejects (and run nothing).
SB=$KB_T/sandbox-exec-standin
cat >"$SB" <<'EOF'
#!/bin/sh
log=${0%/*}/standin.log
: >"$log"
for a in "$@"; do printf '%s\n' "$a" >>"$log"; done
echo END >>"$log"
if [ -e "${0%/*}/standin.refuse" ]; then
	echo "sandbox-exec: syntax error in profile near line 3" >&2
	exit 65
fi
while [ $# -gt 0 ]; do
	if [ "$1" = -- ]; then
		shift
		exec "$@"
	fi
	shift
done
echo "stand-in: no -- in argv" >&2
exit 64
EOF
chmod 755 "$SB"

# kbt [ARG...]: the test build with the stand-in, as kb does
kbt() {
	KB_RC=0
	KINBOX_TEST_SANDBOX_EXEC=$SB "$KT" "$@" >"$KB_OUT" 2>"$KB_ERR" ||
		KB_RC=$?
}

# json_get FILE EXPR: a Python expression over the plan `d`
json_get() {
	"$PY" -c 'import json,sys
d = json.load(open(sys.argv[1]))
v = eval(sys.argv[2])
sys.stdout.buffer.write(v.encode("utf-8", "surrogateescape") if isinstance(v, str) else repr(v).encode())' "$1" "$2"
}

t_dry_run_text() {
	ws=$(newdir ws-text)
	cd "$ws"
	kb_expect 0 --backend seatbelt --dry-run -- make test
	assert_file_has_content "$KB_OUT" '^# backend: seatbelt'
	assert_file_has_content "$KB_OUT" '^# --- the profile \(sandbox-exec -p\) ---$'
	assert_file_has_content "$KB_OUT" '^\(version 1\)$'
	assert_file_has_content "$KB_OUT" '^\(deny default'
	assert_file_has_content "$KB_OUT" '^/usr/bin/sandbox-exec$'
	assert_file_has_content "$KB_OUT" '^-p$'
	# the workspace is a parameter, after the profile, never inside it
	sed -n '/^# --- the profile/,/^# --- end of the profile/p' "$KB_OUT" >"$KB_T/prof.txt"
	[ -s "$KB_T/prof.txt" ] || fail "no profile block"
	assert_not_file_has_content "$KB_T/prof.txt" "$ws"
	# keystrokes pushed into the caller's terminal: refused, as seccomp
	# refuses them on Linux
	assert_file_has_content "$KB_T/prof.txt" '^\(deny file-ioctl \(ioctl-command TIOCSTI\)'
	# issue 34: no broad rule of the review is left, the keychain is
	# opt-in and named
	assert_not_file_has_content "$KB_T/prof.txt" '^\(allow sysctl-read\)$'
	assert_not_file_has_content "$KB_T/prof.txt" '^\(allow file-read\*\)$'
	assert_not_file_has_content "$KB_T/prof.txt" 'com.apple.SecurityServer'
	assert_file_has_content "$KB_OUT" '^# keychain: not granted'
	assert_file_has_content "$KB_OUT" '^-DSTORE_0=.*/Library/Keychains$'
	kb_expect 0 --backend seatbelt --keychain --net --dry-run -- make test
	assert_file_has_content "$KB_OUT" '^# keychain: granted'
	assert_file_has_content "$KB_OUT" '^\(allow mach-lookup \(global-name "com.apple.SecurityServer"\)\)$'
	assert_not_file_has_content "$KB_OUT" '/Library/Keychains$'
	sed '1,/^# --- end of the profile/d' "$KB_OUT" >"$KB_T/argv.txt"
	assert_file_has_content "$KB_T/argv.txt" "WORKSPACE=$ws"
	assert_file_has_content "$KB_T/argv.txt" '^--$'
	assert_file_has_content "$KB_T/argv.txt" '^make$'
}

t_dry_run_json() {
	ws=$(newdir ws-json)
	cd "$ws"
	kb_expect 0 --backend seatbelt --dry-run --json -- make test
	[ "$(wc -l <"$KB_OUT")" -eq 1 ] || fail "the JSON plan is not one line"
	assert_streq "$(json_get "$KB_OUT" 'd["backend"]')" seatbelt
	assert_streq "$(json_get "$KB_OUT" 'd["argv"][0]')" /usr/bin/sandbox-exec
	assert_streq "$(json_get "$KB_OUT" 'd["exe"]')" /usr/bin/sandbox-exec
	assert_streq "$(json_get "$KB_OUT" 'd["params"]["WORKSPACE"]')" "$ws"
	assert_streq "$(json_get "$KB_OUT" 'd["argv"][-3:]')" "['--', 'make', 'test']"
	assert_streq "$(WS=$ws json_get "$KB_OUT" '__import__("os").environ["WS"] not in d["profile"] and "(deny default" in d["profile"]')" True
	# every -D in argv is a param, in order, and the profile's -p
	assert_streq "$(json_get "$KB_OUT" '[a[2:] for a in d["argv"] if a.startswith("-D")] == ["%s=%s" % kv for kv in d["params"].items()]')" True
	assert_streq "$(json_get "$KB_OUT" 'd["argv"][d["argv"].index("-p") + 1] == d["profile"]')" True
	assert_streq "$(json_get "$KB_OUT" 'isinstance(d["notes"], list) and len(d["notes"]) > 3')" True
}

t_json_any_backend() {
	ws=$(newdir ws-json-any)
	cd "$ws"
	kb_expect 0 --dry-run --json -- true
	json_get "$KB_OUT" 'd["backend"] in ("bwrap", "landlock") and isinstance(d["argv"], list) and isinstance(d["notes"], list)' >"$KB_T/j"
	assert_streq "$(cat "$KB_T/j")" True
	kb_expect 0 --unconfined --dry-run --json -- echo hi
	assert_streq "$(json_get "$KB_OUT" 'd["backend"]')" none
	assert_streq "$(json_get "$KB_OUT" 'd["argv"]')" "['echo', 'hi']"
	# --json alone: refused, nothing runs
	kb_expect 125 --json -- sh -c ': >ran'
	assert_one_kinbox_line "$KB_ERR" 'goes with --dry-run'
	assert_not_exists "$ws/ran"
}

# the profile of a workspace with a hostile name is the plain one's,
# byte for byte; the name is the WORKSPACE parameter, byte for byte
t_hostile_names() {
	plain=$(newdir hostile/plain)
	(cd "$plain" && "$KINBOX" --backend seatbelt --dry-run --json -- true) >"$KB_T/plain.json"
	nl='
'
	n=0
	for name in 'a")(allow default)(' 'back\slash' "new${nl}line" \
		"$(printf 'bytes\377\376')" 'sp ace;(x)"#|' \
		"$(printf '%0200d' 0)" '%s%n$HOME`id`'; do
		n=$((n + 1))
		d=$KB_T/hostile/$n-$name
		mkdir -p "$d"
		(cd "$d" && "$KINBOX" --backend seatbelt --dry-run --json -- true) >"$KB_T/h$n.json" ||
			fail "dry-run in hostile dir $n failed"
		WS=$d "$PY" - "$KB_T/plain.json" "$KB_T/h$n.json" <<'EOF' || fail "hostile name $n: profile or parameter differs"
import json, os, sys
a = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
ws = os.environb[b"WS"]
assert a["profile"] == b["profile"], "profile changed"
assert b["params"]["WORKSPACE"].encode("utf-8", "surrogateescape") == ws, "WORKSPACE differs"
assert ws.decode("utf-8", "surrogateescape") not in b["profile"]
EOF
	done
	[ "$n" -eq 7 ] || fail "ran $n names"
}

t_shape() {
	ws=$(newdir ws-shape)
	w2=$(newdir shape-extra)
	cd "$ws"
	kb_expect 0 --backend seatbelt --dry-run --json -- true
	cp "$KB_OUT" "$KB_T/shape0.json"
	kb_expect 0 --backend seatbelt --dry-run --json --write "$w2" --net -- true
	assert_streq "$(json_get "$KB_OUT" '[v for k, v in d["params"].items() if k.startswith("WRITE_")]')" "['$w2']"
	WS=$ws "$PY" - "$KB_T/shape0.json" "$KB_OUT" <<'EOF' || fail "the shapes' profiles"
import json, sys
a = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
assert a["profile"] != b["profile"], "--write --net did not change the profile"
assert "network" in b["profile"]
EOF
}

t_refused_on_linux() {
	ws=$(newdir ws-refused)
	cd "$ws"
	kb_expect 125 --backend seatbelt -- sh -c ': >ran'
	assert_one_kinbox_line "$KB_ERR" "Seatbelt is macOS's sandbox \\(sandbox-exec\\); on Linux use auto, bwrap or landlock\$"
	assert_not_exists "$ws/ran"
	KINBOX_SANDBOX=seatbelt kb_expect 125 -- sh -c ': >ran'
	unset KINBOX_SANDBOX
	assert_one_kinbox_line "$KB_ERR" 'KINBOX_SANDBOX=seatbelt'
	assert_not_exists "$ws/ran"
	# the release build holds no word of the test build's variable, the
	# test build does (a positive control of the grep)
	if grep -q -a KINBOX_TEST_SANDBOX_EXEC "$KINBOX"; then
		fail "$KINBOX holds KINBOX_TEST_SANDBOX_EXEC"
	fi
	grep -q -a KINBOX_TEST_SANDBOX_EXEC "$KT" || fail "$KT lacks KINBOX_TEST_SANDBOX_EXEC"
	# the release build ignores the test build's variable
	rm -f "$KB_T/standin.log"
	KINBOX_TEST_SANDBOX_EXEC=$SB kb_expect 125 --backend seatbelt -- sh -c ': >ran'
	assert_not_exists "$KB_T/standin.log"
	assert_not_exists "$ws/ran"
	# positive control: the default backend runs it
	kb_expect 0 -- sh -c ': >ran'
	assert_exists "$ws/ran"
}

t_standin_runs() {
	ws=$(newdir ws-run)
	out=$(newdir run-outside)
	cd "$ws"
	AWS_SECRET_ACCESS_KEY=kb-secret-value KB_PLAIN=kb-plain-value \
		kbt --backend seatbelt -- sh -c 'env >env.txt; : >made; exit 7'
	[ "$KB_RC" = 7 ] || fail "exit $KB_RC, expected 7 (the command's own): $(cat "$KB_ERR")"
	assert_exists "$ws/made"
	assert_file_has_content "$ws/env.txt" '^KB_PLAIN=kb-plain-value$'
	assert_not_file_has_content "$ws/env.txt" 'kb-secret-value'
	assert_file_has_content "$ws/env.txt" '^KINBOX_ACTIVE=seatbelt$'
	assert_file_has_content "$KB_ERR" 'stands in for sandbox-exec and enforces nothing'
	# what sandbox-exec would have been given
	assert_streq "$(sed -n 1p "$KB_T/standin.log")" -p
	assert_file_has_content "$KB_T/standin.log" "^-DWORKSPACE=$ws\$"
	assert_file_has_content "$KB_T/standin.log" '^\(deny default'
	assert_file_has_content "$KB_T/standin.log" '^--$'
	[ "$(grep -c "$ws" "$KB_T/standin.log")" -ge 1 ] || fail "no workspace in argv"
	# the profile in argv names no path of the policy
	sed -n '2,/^-D/p' "$KB_T/standin.log" | sed '$d' >"$KB_T/argprof.txt"
	assert_not_file_has_content "$KB_T/argprof.txt" "$ws"
	assert_not_exists "$out/x"
}

t_standin_exit_codes() {
	ws=$(newdir ws-codes)
	cd "$ws"
	kbt --backend seatbelt -- true
	assert_streq "$KB_RC" 0
	kbt --backend seatbelt -- sh -c 'kill -TERM $$'
	assert_streq "$KB_RC" 143
	kbt --backend seatbelt -- sh -c 'kill -KILL $$'
	assert_streq "$KB_RC" 137
	kbt --backend seatbelt -- kb-no-such-command-here
	assert_streq "$KB_RC" 127
	kbt --backend seatbelt -- sh -c ': >ok; exit 3'
	assert_streq "$KB_RC" 3
	assert_exists "$ws/ok"
}

t_standin_refuses_profile() {
	ws=$(newdir ws-refuse)
	cd "$ws"
	: >"$KB_T/standin.refuse"
	kbt --backend seatbelt -- sh -c ': >ran'
	rm -f "$KB_T/standin.refuse"
	[ "$KB_RC" = 125 ] || fail "exit $KB_RC, expected 125: $(cat "$KB_ERR")"
	assert_not_exists "$ws/ran"
	assert_file_has_content "$KB_ERR" "^kinbox: .*sandbox-exec.*syntax error in profile"
	assert_file_has_content "$KB_ERR" 'nothing was run'
	# its words were not relayed as the command's
	assert_not_file_has_content "$KB_ERR" '^sandbox-exec: syntax error'
	# positive control: the same call without the refusal runs
	kbt --backend seatbelt -- sh -c ': >ran'
	assert_streq "$KB_RC" 0
	assert_exists "$ws/ran"
}

t_standin_denial() {
	ws=$(newdir ws-denial)
	out=$(newdir denial-outside)
	cd "$ws"
	KB_OUTSIDE=$out kbt --backend seatbelt --json-fd 3 -- \
		sh -c ': >before; echo "touch: $KB_OUTSIDE/x.txt: Operation not permitted" >&2; exit 1' 3>"$KB_T/denial.json"
	[ "$KB_RC" = 1 ] || fail "exit $KB_RC, expected 1: $(cat "$KB_ERR")"
	assert_exists "$ws/before"
	assert_file_has_content "$KB_ERR" "^touch: $out/x.txt: Operation not permitted\$"
	assert_file_has_content "$KB_ERR" "^kinbox: denied write '$out/x.txt' .*retry with --write $out "
	assert_streq "$(json_get "$KB_T/denial.json" 'd["denials"][0]["class"] if "denials" in d else d["class"]')" write
	# the sandbox's log line form
	KB_OUTSIDE=$out kbt --backend seatbelt -- \
		sh -c 'echo "Sandbox: touch(4242) deny(1) file-write-create $KB_OUTSIDE/y.txt" >&2; exit 1'
	[ "$KB_RC" = 1 ] || fail "exit $KB_RC, expected 1"
	assert_file_has_content "$KB_ERR" "^kinbox: .*--write $out"
	# an ordinary failure is no denial
	kbt --backend seatbelt -- sh -c 'echo "make: *** [all] Error 2" >&2; exit 2'
	assert_streq "$KB_RC" 2
	assert_file_has_content "$KB_ERR" '^make: \*\*\* \[all\] Error 2$'
	assert_streq "$(grep -c '^kinbox: ' "$KB_ERR")" 1
	assert_file_has_content "$KB_ERR" '^kinbox: test build: '
}

t_standin_refusals() {
	ws=$(newdir ws-refusals)
	cd "$ws"
	kbt --backend seatbelt --allow-host example.com -- sh -c ': >ran'
	assert_streq "$KB_RC" 125
	assert_file_has_content "$KB_ERR" 'egress proxy runs only under the Linux backends'
	kbt --backend seatbelt --require private-tmp -- sh -c ': >ran'
	assert_streq "$KB_RC" 125
	assert_file_has_content "$KB_ERR" 'seatbelt backend has no private-tmp'
	kb_expect 125 --backend seatbelt --require pid-namespace --dry-run -- true
	assert_not_exists "$ws/ran"
	# positive control
	kbt --backend seatbelt --require git-guard -- sh -c ': >ran'
	assert_streq "$KB_RC" 0
	assert_exists "$ws/ran"
}

t_standin_fds() {
	ws=$(newdir ws-fds)
	cd "$ws"
	kbt --backend seatbelt --keep-fd 4 -- sh -c 'ls /proc/self/fd >fds.txt' 4</dev/null 5</dev/null 7</dev/null
	assert_streq "$KB_RC" 0
	# the stand-in's shell and the command share the descriptors: 0-2, 4
	# (kept), ls's own directory descriptor; never 5 or 7
	assert_file_has_content "$ws/fds.txt" '^4$'
	assert_not_file_has_content "$ws/fds.txt" '^(5|7)$'
}

t_standin_reaps() {
	ws=$(newdir ws-reap)
	cd "$ws"
	# fork, setsid, fork: the subshell exits at once, the setsid'd
	# middle and its child outlive the command
	cat >spawn.sh <<'EOF'
( setsid sh -c 'sleep 300 & echo $! >left.pid; echo $$ >mid.pid; wait' & )
while [ ! -s left.pid ] || [ ! -s mid.pid ]; do sleep 0.05; done
exit 0
EOF
	kbt --backend seatbelt -- sh spawn.sh
	assert_streq "$KB_RC" 0
	left=$(cat left.pid)
	mid=$(cat mid.pid)
	[ -n "$left" ] && [ -n "$mid" ] || fail "no pids written"
	# judged from outside, once kinbox has returned
	if kill -0 "$left" 2>/dev/null || kill -0 "$mid" 2>/dev/null; then
		kill -KILL "$left" "$mid" 2>/dev/null || true
		fail "a process the command left ($mid, $left) still runs after kinbox returned"
	fi
	assert_file_has_content "$KB_ERR" 'note: killed [0-9]+ process(es)? the command left running'
	# a command that leaves nothing: no note
	kbt --backend seatbelt -- true
	assert_not_file_has_content "$KB_ERR" 'left running'
}

t_standin_tmpdir() {
	ws=$(newdir ws-tmp)
	cd "$ws"
	kbt --backend seatbelt -- sh -c 'printf %s "$TMPDIR" >tmpdir.txt; : >"$TMPDIR/x"; ls "$TMPDIR" >ls.txt'
	assert_streq "$KB_RC" 0
	d=$(cat tmpdir.txt)
	case $d in
	/tmp/kinbox-*/run.*) ;;
	*) fail "TMPDIR is $d, not the run's own directory" ;;
	esac
	assert_file_has_content ls.txt '^x$'
	# removed with what the command left in it
	assert_not_exists "$d"
	assert_file_has_content "$KB_T/standin.log" "^-DRUNTMP=$d\$"
}

run_test "seatbelt --dry-run: the profile and sandbox-exec's argv, paths as parameters" t_dry_run_text
run_test "seatbelt --dry-run --json: backend, exe, argv, notes, profile, params" t_dry_run_json
run_test "--dry-run --json for the Linux backends and --unconfined; --json alone refused" t_json_any_backend
run_test "hostile workspace names leave the profile unchanged and are one parameter each" t_hostile_names
run_test "--write and --net change the profile's shape and the parameters" t_shape
run_test "a seatbelt run on Linux is refused, nothing runs (release build, also with the stand-in set)" t_refused_on_linux
run_test "the macOS run path with a stand-in: the command runs in the workspace, scrubbed, with the profile in argv" t_standin_runs
run_test "the macOS run path: exit codes, signals, command not found" t_standin_exit_codes
run_test "the macOS run path: a profile sandbox-exec rejects is exit 125, nothing runs" t_standin_refuses_profile
run_test "the macOS run path: Seatbelt's wording and log lines become denial reports" t_standin_denial
run_test "the macOS run path: --allow-host and --require of what Seatbelt lacks refused" t_standin_refusals
run_test "the macOS run path: only 0-2 and the kept descriptors reach the command" t_standin_fds
run_test "the macOS run path: a double fork with setsid leaves nothing running after kinbox returns" t_standin_reaps
run_test "the macOS run path: TMPDIR is the run's own directory, removed after it" t_standin_tmpdir
done_testing
