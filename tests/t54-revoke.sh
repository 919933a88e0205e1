#!/bin/sh
# tests/t54-revoke.sh — revocation reaches running sandboxes: a run that
# applied a session or workspace grant is registered while it runs
# ($XDG_RUNTIME_DIR/kinbox/runs, else the state store's kinbox/runs),
# kinpolicy grants lists it under its grant, and kinpolicy revoke stops it:
# exit 125, one line naming the grant, nothing of the command left. Runs
# without that grant go on and end with their own status; an entry that
# is not a live kinbox run's (a plain process, a stale pid) is never
# signalled.
#
# Everything is checked from outside the sandbox: the registry files, the
# processes (by a unique `sleep` argument), the exit statuses.
#
# Run: sh tests/t54-revoke.sh (TAP), or all suites: sh tests/run-integration.sh
# KINBOX=/path/to/kinbox picks the binary; kinpolicy is taken from KINPOLICY
# or the same directory.
# shellcheck disable=SC2317,SC2016,SC2164,SC2030,SC2031,SC2153
# SC2317: the t_* bodies are called through run_test.
# SC2016: single-quoted $... is meant for the shell inside the sandbox.
# SC2164: lib.sh sets -e (test bodies run under set -e): a failed cd fails.
# SC2030/SC2031: variables set in ( ... ) are meant to stay there.
# SC2153: KB_ERR and friends come from lib.sh.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

KP=${KINPOLICY:-$(dirname "$KINBOX")/kinpolicy}

# never the caller's stores, also outside a test body
XDG_CONFIG_HOME=$KB_T/default-config
XDG_STATE_HOME=$KB_T/default-state
XDG_RUNTIME_DIR=$KB_T/default-run
mkdir -p "$XDG_CONFIG_HOME" "$XDG_STATE_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
export XDG_CONFIG_HOME XDG_STATE_HOME XDG_RUNTIME_DIR
unset KINBOX_SESSION KINBOX_JSON_FD || true

# --- preflight ---------------------------------------------------------------
if [ ! -x "$KINBOX" ] || [ ! -x "$KP" ]; then
	tap_not_ok "kinbox and kinpolicy binaries exist ($KINBOX, $KP; make all)"
	done_testing
fi
if ! have pgrep; then
	skip_all "pgrep (procps) is needed to find the command's processes"
fi
mkdir "$KB_T/preflight"
if ! (cd "$KB_T/preflight" && "$KINBOX" -- true) >"$KB_T/preflight.log" 2>&1; then
	diag "$(cat "$KB_T/preflight.log")"
	skip_all "kinbox cannot set up a sandbox on this host"
fi
diag "kinbox: $KINBOX; kinpolicy: $KP; uid $(id -u); kernel $(uname -r)"

# --- helpers -----------------------------------------------------------------

# setup NAME: $d (canonical), $ws (the cwd), $out, this test's stores
setup() {
	mkdir -p "$KB_T/$1"
	d=$(cd "$KB_T/$1" && pwd -P)
	mkdir -p "$d/ws" "$d/out" "$d/config" "$d/state" "$d/run"
	chmod 700 "$d/run"
	ws=$d/ws
	out=$d/out
	XDG_CONFIG_HOME=$d/config
	XDG_STATE_HOME=$d/state
	XDG_RUNTIME_DIR=$d/run
	export XDG_CONFIG_HOME XDG_STATE_HOME XDG_RUNTIME_DIR
	unset KINBOX_SESSION || true
	CFG=$XDG_CONFIG_HOME/kinbox/config.ini
	RUNS=$XDG_RUNTIME_DIR/kinbox/runs
	cd "$ws"
}

# kp ARG...: kinpolicy, stdout → $KP_OUT, stderr → $KP_ERR, status → $KP_RC
KP_OUT=$KB_T/.lib/kpout
KP_ERR=$KB_T/.lib/kperr
kp() {
	KP_RC=0
	"$KP" "$@" </dev/null >"$KP_OUT" 2>"$KP_ERR" || KP_RC=$?
}

kp_expect() {
	_want=$1
	shift
	kp "$@"
	if [ "$KP_RC" != "$_want" ]; then
		_show_file "$KP_OUT"
		_show_file "$KP_ERR"
		fail "kinpolicy exited $KP_RC, expected $_want: kinpolicy $*"
	fi
}

assert_file_is() {
	printf '%s\n' "$2" >"$KB_T/.lib/want"
	assert_files_equal "$KB_T/.lib/want" "$1"
}

assert_has_line() {
	if ! grep -Fqx -e "$2" "$1"; then
		_show_file "$1"
		fail "$1 has no line '$2'"
	fi
}

assert_empty() {
	if [ -s "$1" ]; then
		_show_file "$1"
		fail "$1 is not empty"
	fi
}

# grant_denied_write DIR: `touch DIR/f` from the cwd is denied, and the
# denial is granted for the workspace (kinpolicy grant ... --workspace);
# ID is the denial's id
grant_denied_write() {
	kb_expect 1 -- touch "$1/f"
	ID=$(sed -n 's/.*\[\(sbx_[0-9a-f]\{16\}\)\]$/\1/p' "$KB_ERR")
	[ -n "$ID" ] || { _show_file "$KB_ERR"; fail "no denial id"; }
	kp_expect 0 grant "$ID" --write "$1" --workspace
	assert_file_is "$KP_OUT" "granted $ID (workspace)"
}

# start_bg TAG [KINBOX ARG...]: a background kinbox whose command writes
# $out/TAG.started (or the file START names), then sleeps (a `sleep`
# child with the unique argument SLEEP_ARG, 600.NNN) and writes TAG.after;
# KPID is kinbox's pid, its stderr goes to $d/TAG.err
start_bg() {
	_tag=$1
	shift
	SLEEP_ARG=600.$$$(date +%N | cut -c1-4)
	"$KINBOX" "$@" -- sh -c "echo started >'${START:-$out/$_tag.started}'; sleep $SLEEP_ARG; echo after >'$out/$_tag.after'" \
		2>"$d/$_tag.err" &
	KPID=$!
	bg_register "$KPID"
	if ! poll_while_running "$KPID" "${START:-$out/$_tag.started}" 200; then
		_show_file "$d/$_tag.err"
		fail "the background run $_tag did not start"
	fi
}

# wait_bg PID: its exit status in $BG_RC
wait_bg() {
	BG_RC=0
	wait "$1" || BG_RC=$?
}

# sleeping ARG: a process `sleep ARG` exists (the command's child)
sleeping() {
	pgrep -f "^sleep $1\$" >/dev/null 2>&1
}

# the registry entry of PID in DIR (default $RUNS), printed; fails when
# there is none
entry_of() {
	_e=
	for _f in "${2:-$RUNS}/$1"-*.run; do
		[ -f "$_f" ] && _e=$_f
	done
	[ -n "$_e" ] || return 1
	printf '%s\n' "$_e"
}

# field 22 of /proc/PID/stat (the start time), as the registry names it
start_of() {
	sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f20
}

# ============================================================================

t_revoke_workspace() {
	setup wsgrant
	mkdir "$d/ws3" "$d/out3" "$d/ws2"
	grant_denied_write "$out"
	A_ID=$ID
	(cd "$d/ws3" && grant_denied_write "$d/out3")
	# the run with grant 1 (a), one with grant 2 (c), one with none (b)
	start_bg a
	apid=$KPID
	sleep_a=$SLEEP_ARG
	cd "$d/ws3"
	START=$d/out3/c.started start_bg c
	cpid=$KPID
	sleep_c=$SLEEP_ARG
	cd "$d/ws2"
	"$KINBOX" -- sh -c 'echo started > b.started; while [ ! -e go ]; do sleep 0.1; done; exit 7' 2>"$d/b.err" &
	bpid=$!
	bg_register "$bpid"
	poll_while_running "$bpid" "$d/ws2/b.started" 200 || fail "run b did not start"
	cd "$ws"

	# registered, seen from outside: pid, start time, the grant's id
	e=$(entry_of "$apid") || { ls -la "$RUNS" >&2; fail "run a is not registered"; }
	assert_streq "$(stat -c %a "$e")" 600 "entry mode"
	assert_streq "$(stat -c %a "$RUNS")" 700 "registry mode"
	assert_streq "$e" "$RUNS/$apid-$(start_of "$apid").run" "entry name"
	assert_has_line "$e" "pid $apid"
	assert_has_line "$e" "start $(start_of "$apid")"
	assert_has_line "$e" "workspace $ws"
	assert_has_line "$e" "argv0 sh"
	entry_of "$cpid" >/dev/null || fail "run c (another grant) is not registered"
	if entry_of "$bpid" >/dev/null; then
		fail "run b, which uses no grant, is registered"
	fi
	# listed under its grant, and only there
	kp_expect 0 grants
	assert_has_line "$KP_OUT" "1  workspace  [workspace]  ($CFG)"
	assert_streq "$(sed -n '/^1  /,/^2  /p' "$KP_OUT" | grep -c "^     running: pid $apid (sh, in $ws) since ")" 1 \
		"run a listed under grant 1"
	assert_streq "$(sed -n '/^2  /,$p' "$KP_OUT" | grep -c "^     running: pid $cpid (sh, in $d/ws3) since ")" 1 \
		"run c listed under grant 2"
	assert_streq "$(grep -c 'running:' "$KP_OUT")" 2 "two running lines"
	kp_expect 0 grants --json
	id=$(sed -n 's/^grant //p' "$e")
	grep -F "\"id\":\"$id\"" "$KP_OUT" >/dev/null || fail "grants --json has no id $id"
	grep -F "\"runs\":[{\"pid\":$apid," "$KP_OUT" >/dev/null ||
		{ _show_file "$KP_OUT"; fail "grants --json does not list run a"; }

	# revoke grant 1: run a is stopped
	kp_expect 0 revoke 1
	assert_file_is "$KP_OUT" "revoked 1
stopped 1 running sandbox: pid $apid (sh, in $ws)"
	assert_empty "$KP_ERR"
	wait_bg "$apid"
	assert_streq "$BG_RC" 125 "the stopped run's exit status"
	assert_kinbox_said "$d/a.err" "kinbox: the workspace grant write_paths = $out (from $A_ID, in $CFG) was revoked; the command was stopped"
	if sleeping "$sleep_a"; then
		fail "the stopped run's sleep is still running"
	fi
	assert_not_exists "$out/a.after"
	assert_not_exists "$e"

	# the other runs go on, and end as they would have
	kb_running "$bpid" || fail "run b (no grant) was stopped"
	kb_running "$cpid" || fail "run c (another grant) was stopped"
	sleeping "$sleep_c" || fail "run c's sleep is gone"
	entry_of "$cpid" >/dev/null || fail "run c's entry is gone"
	: >"$d/ws2/go"
	wait_bg "$bpid"
	assert_streq "$BG_RC" 7 "run b's own status"
	assert_empty "$d/b.err"
	kp_expect 0 grants
	assert_streq "$(grep -c 'running:' "$KP_OUT")" 1 "one running line left"
	# SIGTERM to kinbox reaches the command; kinbox removes its entry
	kill -TERM "$cpid"
	wait_bg "$cpid"
	assert_streq "$BG_RC" 143 "run c, sent SIGTERM, ends with the command's 128+15"
	assert_empty "$d/c.err"
	if entry_of "$cpid" >/dev/null; then
		fail "run c's entry is left after it ended"
	fi
	if sleeping "$sleep_c"; then
		fail "run c's sleep is still running"
	fi
}
run_test "revoke a workspace grant: its running sandbox (registered: pid, start time, grant id; listed by grants) exits 125 with one line naming the grant, its sleep gone, its entry removed; a run without the grant and one with another grant go on and end with their own status" t_revoke_workspace

# workspace_grant DIR: a [workspace] block for the cwd granting DIR, as
# kinpolicy grant writes it (from = FROM, default a made-up denial id)
workspace_grant() {
	mkdir -p "$XDG_CONFIG_HOME/kinbox"
	printf '[workspace]\npath = %s\nfrom = %s\ngranted = 2026-01-01T00:00:00Z\nwrite_paths = %s\n' \
		"$(pwd -P)" "${FROM:-sbx_00000000000000aa}" "$1" >>"$CFG"
}

t_revoke_session() {
	setup session
	KINBOX_SESSION=$("$KP" session new)
	export KINBOX_SESSION
	sf=$XDG_RUNTIME_DIR/kinbox/sessions/$KINBOX_SESSION.ini
	kb_expect 1 -- touch "$out/f"
	ID=$(sed -n 's/.*\[\(sbx_[0-9a-f]\{16\}\)\]$/\1/p' "$KB_ERR")
	kp_expect 0 grant "$ID" --write "$out" --session
	start_bg s
	spid=$KPID
	sleep_s=$SLEEP_ARG
	entry_of "$spid" >/dev/null || fail "the session run is not registered"
	kp_expect 0 grants
	assert_has_line "$KP_OUT" "1  session  [grant]  ($sf)"
	grep -q "^     running: pid $spid (sh, in $ws) since " "$KP_OUT" ||
		{ _show_file "$KP_OUT"; fail "grants does not list the run"; }
	kp_expect 0 revoke --all --json
	assert_file_is "$KP_OUT" "{\"schema\":1,\"all\":true,\"stopped\":[$spid]}"
	wait_bg "$spid"
	assert_streq "$BG_RC" 125 "exit status"
	assert_kinbox_said "$d/s.err" "kinbox: the session grant write_paths = $out (from $ID, in $sf) was revoked; the command was stopped"
	if sleeping "$sleep_s"; then
		fail "the sleep is still running"
	fi
	if entry_of "$spid" >/dev/null; then
		fail "the entry is left"
	fi
}
run_test "revoke --all --json of a session grant: the session's running sandbox exits 125 naming the session grant; {\"stopped\":[pid]}" t_revoke_session

t_forged() {
	setup forged
	workspace_grant "$out"
	start_bg a
	apid=$KPID
	sleep_a=$SLEEP_ARG
	e=$(entry_of "$apid") || fail "run a is not registered"
	id=$(sed -n 's/^grant //p' "$e")
	# a plain process (not kinbox), its entry with the right start time
	# and the grant's id, as a forger would write it
	sleep "700.$$" &
	fpid=$!
	bg_register "$fpid"
	fst=$(start_of "$fpid")
	printf 'kinbox-run 1\npid %s\nstart %s\nworkspace %s\nargv0 sh\ngrant %s\n' \
		"$fpid" "$fst" "$ws" "$id" >"$RUNS/$fpid-$fst.run"
	chmod 600 "$RUNS/$fpid-$fst.run"
	# the same process under a wrong start time, and a pid that is gone
	printf 'kinbox-run 1\npid %s\nstart 1\ngrant %s\n' "$fpid" "$id" >"$RUNS/$fpid-1.run"
	sh -c 'exit 0' &
	gpid=$!
	wait "$gpid" || true
	printf 'kinbox-run 1\npid %s\nstart 2\ngrant %s\n' "$gpid" "$id" >"$RUNS/$gpid-2.run"
	kp_expect 0 revoke 1
	assert_file_is "$KP_OUT" "revoked 1
stopped 1 running sandbox: pid $apid (sh, in $ws)"
	assert_file_is "$KP_ERR" "kinpolicy: note: $RUNS/$fpid-$fst.run: pid $fpid does not hold this entry, so it is not the kinbox run that registered it; ignored (not signalled)"
	wait_bg "$apid"
	assert_streq "$BG_RC" 125 "the real run's exit status"
	kill -0 "$fpid" || fail "the process of the forged entry was signalled"
	kb_running "$fpid" || fail "the process of the forged entry is not running"
	assert_exists "$RUNS/$fpid-$fst.run"
	assert_not_exists "$RUNS/$fpid-1.run"
	assert_not_exists "$RUNS/$gpid-2.run"
	kill "$fpid"
}
run_test "a forged registry entry (a plain sleep, its right start time, the revoked grant's id) is not signalled: the sleep lives, one note says why; entries with a wrong start time or a pid that is gone are removed; the real run is stopped" t_forged

t_fallback_state() {
	setup state
	workspace_grant "$out"
	(
		unset XDG_RUNTIME_DIR
		start_bg f
		echo "$KPID $SLEEP_ARG" >"$d/f.pid"
		# hand the run to the test body: it is reaped by init
		wait "$KPID" || echo "$?" >"$d/f.rc"
	) &
	sub=$!
	poll_while_running "$sub" "$d/f.pid" 200 || fail "the run did not start"
	read -r fpid fsleep <"$d/f.pid"
	entry_of "$fpid" "$XDG_STATE_HOME/kinbox/runs" >/dev/null ||
		fail "no entry in \$XDG_STATE_HOME/kinbox/runs"
	assert_streq "$(stat -c %a "$XDG_STATE_HOME/kinbox/runs")" 700 "mode"
	# kinpolicy with an XDG_RUNTIME_DIR of its own still finds it
	kp_expect 0 revoke 1
	assert_file_is "$KP_OUT" "revoked 1
stopped 1 running sandbox: pid $fpid (sh, in $ws)"
	wait "$sub" || true
	assert_file_is "$d/f.rc" 125
	assert_one_kinbox_line "$d/f.err" ' was revoked; the command was stopped$'
	if sleeping "$fsleep"; then
		fail "the sleep is still running"
	fi
	if entry_of "$fpid" "$XDG_STATE_HOME/kinbox/runs" >/dev/null; then
		fail "the entry is left"
	fi
}
run_test "no XDG_RUNTIME_DIR: the run registers in \$XDG_STATE_HOME/kinbox/runs (0700); kinpolicy (with an XDG_RUNTIME_DIR) finds and stops it" t_fallback_state

t_unsafe_runtime() {
	setup unsafe
	workspace_grant "$out"
	chmod 755 "$XDG_RUNTIME_DIR"
	kb_expect 125 -- touch ran
	assert_kinbox_said "$KB_ERR" "kinbox: XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR is not a private directory of yours (owner uid $(id -u), mode 755); a run that uses a grant is registered there, so that kinpolicy revoke can stop it: make it a 0700 directory you own, or unset XDG_RUNTIME_DIR"
	assert_not_exists ran
	XDG_RUNTIME_DIR=$d/missing
	kb_expect 125 -- touch ran
	assert_kinbox_said "$KB_ERR" "kinbox: XDG_RUNTIME_DIR=$d/missing: No such file or directory; a run that uses a grant is registered there, so that kinpolicy revoke can stop it: create it as a 0700 directory of yours, or unset XDG_RUNTIME_DIR"
	assert_not_exists ran
	# a run that uses no grant needs no registry
	mkdir "$d/other"
	cd "$d/other"
	kb_expect 0 -- touch ran
	assert_exists "$d/other/ran"
}
run_test "a run that uses a grant and cannot register (XDG_RUNTIME_DIR 0755, or missing) is refused: 125, the fix, nothing run; a run without a grant runs" t_unsafe_runtime

t_hidden() {
	setup hidden
	workspace_grant "$out"
	# the registry of this very run, from inside: not there, not writable
	kb_expect 0 -- sh -c "ls '$RUNS' >'$out/ls' 2>&1 || echo hidden >'$out/ls'
		{ echo forged >'$RUNS/x.run'; } 2>/dev/null || echo refused >'$out/w'"
	assert_file_has_content "$out/ls" '^hidden$'
	assert_file_has_content "$out/w" '^refused$'
	assert_not_exists "$RUNS/x.run"
	[ -d "$RUNS" ] || fail "the registry was not made"
	if [ -n "$(ls -A "$RUNS")" ]; then
		ls -la "$RUNS" >&2
		fail "the run left its entry"
	fi
	# the same for the state store's registry
	(
		unset XDG_RUNTIME_DIR
		kb_expect 0 -- sh -c "ls '$XDG_STATE_HOME/kinbox/runs' >/dev/null 2>&1 && echo seen >'$out/ls2' || echo hidden >'$out/ls2'"
	)
	assert_file_has_content "$out/ls2" '^hidden$'
}
run_test "the registry is hidden from the command and it cannot write there (also the state store's); a run that ends removes its entry" t_hidden

t_sigkill_stale() {
	setup stale
	workspace_grant "$out"
	start_bg k
	kpid=$KPID
	sleep_k=$SLEEP_ARG
	e=$(entry_of "$kpid") || fail "not registered"
	kill -KILL "$kpid"
	wait_bg "$kpid"
	assert_streq "$BG_RC" 137 "kinbox killed"
	assert_exists "$e"
	# the sandbox dies with kinbox (--die-with-parent)
	_i=0
	while sleeping "$sleep_k"; do
		_i=$((_i + 1))
		[ "$_i" -le 100 ] || fail "the sleep outlived kinbox"
		sleep 0.1
	done
	kp_expect 0 grants
	if grep -q running: "$KP_OUT"; then
		_show_file "$KP_OUT"
		fail "a stale entry is listed"
	fi
	assert_empty "$KP_ERR"
	assert_not_exists "$e"
	# an ordinary end: the command's status, the entry removed
	kb_expect 3 -- sh -c 'exit 3'
	if [ -n "$(ls -A "$RUNS")" ]; then
		ls -la "$RUNS" >&2
		fail "an entry is left"
	fi
}
run_test "kinbox killed by SIGKILL leaves a stale entry: not listed by grants, removed; a run that exits by itself removes its entry" t_sigkill_stale

t_identical() {
	setup identical
	workspace_grant "$out"
	workspace_grant "$out"
	start_bg i
	ipid=$KPID
	sleep_i=$SLEEP_ARG
	# grant 1 goes, an identical block stays: the run holds that one
	kp_expect 0 revoke 1
	assert_file_is "$KP_OUT" "revoked 1"
	assert_file_is "$KP_ERR" "kinpolicy: note: pid $ipid (sh, in $ws) keeps running: an identical grant remains in its store (see kinpolicy grants)"
	kb_running "$ipid" || fail "the run was stopped, though its grant remains"
	sleeping "$sleep_i" || fail "its sleep is gone"
	kp_expect 0 grants
	assert_streq "$(grep -c "^     running: pid $ipid " "$KP_OUT")" 1 "listed under the remaining grant"
	# the last copy goes: now it stops
	kp_expect 0 revoke 1
	assert_file_is "$KP_OUT" "revoked 1
stopped 1 running sandbox: pid $ipid (sh, in $ws)"
	wait_bg "$ipid"
	assert_streq "$BG_RC" 125 "exit status"
	# it had applied both
	assert_kinbox_said "$d/i.err" "kinbox: the workspace grant write_paths = $out (from sbx_00000000000000aa, in $CFG) and 1 more of this run's grants were revoked; the command was stopped"
}
run_test "two identical grant blocks: revoking one leaves the run running (a note says why), revoking the other stops it" t_identical

done_testing
