#!/bin/sh
# tests/t50-kinpolicy.sh — grants and the configuration layers, end to end:
# a denial answered by a human (kinpolicy show, grant, decline, retry),
# session and workspace grants and their revocation, the project file that
# may only tighten, the global and system configs (errors, network, write
# roots, caches), and the command's inability to grant itself anything.
#
# Every effect is checked from outside the sandbox: the file the command
# wrote exists on the host (or does not), the bytes it wrote are compared,
# the store files are read, a TCP listener on the host's 127.0.0.1 is
# reached only with the host network.
#
# Run: sh tests/t50-kinpolicy.sh (TAP), or all suites: sh tests/run-integration.sh
# KINBOX=/path/to/kinbox picks the binary (default: the repo's ./kinbox);
# kinpolicy is taken from the same directory.
#
# Every test points XDG_CONFIG_HOME, XDG_STATE_HOME and XDG_RUNTIME_DIR (a
# private 0700 directory) at directories of its own; the caller's real
# ~/.config/kinbox and /etc/kinbox are never read or written, except that
# one test, as root and only when /etc/kinbox does not exist, creates
# /etc/kinbox/config.ini and removes /etc/kinbox again.
# shellcheck disable=SC2317,SC2016,SC2164,SC2030,SC2031
# SC2317: the t_* bodies are called through run_test.
# SC2016: single-quoted $... is meant for the shell inside the sandbox.
# SC2164: lib.sh sets -e (test bodies run under set -e): a failed cd fails.
# SC2030/SC2031: variables set in ( ... ) are meant to stay there.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

KP=$KINPOLICY
B=$KB_T/bin
mkdir "$B"

# never the caller's stores, also outside a test body
XDG_CONFIG_HOME=$KB_T/default-config
XDG_STATE_HOME=$KB_T/default-state
XDG_RUNTIME_DIR=$KB_T/default-run
mkdir -p "$XDG_CONFIG_HOME" "$XDG_STATE_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
export XDG_CONFIG_HOME XDG_STATE_HOME XDG_RUNTIME_DIR
unset KINBOX_SESSION KINBOX_JSON_FD SSH_AUTH_SOCK SSH_AGENT_PID \
	DOCKER_HOST DBUS_SESSION_BUS_ADDRESS || true

IS_ROOT=0
[ "$(id -u)" = 0 ] && IS_ROOT=1

# python3: the system one when there is one (a pyenv shim depends on HOME,
# which some tests replace)
PY=python3
if [ -x /usr/bin/python3 ]; then
	PY=/usr/bin/python3
fi

# --- preflight ---------------------------------------------------------------
if [ ! -x "$KINBOX" ]; then
	tap_not_ok "kinbox binary $KINBOX exists (build it: make all)"
	done_testing
fi
if [ ! -x "$KP" ]; then
	tap_not_ok "kinpolicy binary $KP exists next to kinbox (build it: make all)"
	done_testing
fi
if ! have "$PY"; then
	skip_all "python3 is needed (JSON records, a TCP listener)"
fi
mkdir "$KB_T/preflight"
if ! (cd "$KB_T/preflight" && "$KINBOX" -- true) >"$KB_T/preflight.log" 2>&1; then
	diag "$(cat "$KB_T/preflight.log")"
	skip_all "kinbox cannot set up a sandbox on this host"
fi
diag "kinbox: $KINBOX; kinpolicy: $KP; uid $(id -u); kernel $(uname -r)"

# --- helper programs (under $KB_T/bin: outside every workspace) -------------

# jget EXPR FILE: prints the Python expression over the JSON object d
cat >"$B/jget.py" <<'EOF'
import json, sys
with open(sys.argv[2], encoding="utf-8") as f:
    d = json.load(f)
r = eval(sys.argv[1], {"d": d})
print(r if isinstance(r, str) else json.dumps(r))
EOF

# listener.py PORTFILE: accepts (and closes) TCP connections on 127.0.0.1
# forever; writes its port to PORTFILE once listening
cat >"$B/listener.py" <<'EOF'
import os, socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(64)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % s.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    c, _ = s.accept()
    c.close()
EOF

# connect.py PORT: prints "connected" or "failed: <error>"; exits 0 either
# way (a failed connection must not become a denial line on stderr)
cat >"$B/connect.py" <<'EOF'
import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5).close()
    print("connected")
except OSError as e:
    print("failed: %s" % e)
EOF
chmod -R a+rX "$B"

# one listener for the whole script, on the host's loopback
"$PY" "$B/listener.py" "$KB_T/port" &
bg_register $!
if ! poll_for "$KB_T/port"; then
	tap_not_ok "a TCP listener on 127.0.0.1 starts"
	done_testing
fi
PORT=$(cat "$KB_T/port")

# --- shared helpers ---------------------------------------------------------

# newdir NAME: a fresh directory $KB_T/NAME, printed (canonical)
newdir() {
	mkdir -p "$KB_T/$1"
	(cd "$KB_T/$1" && pwd -P)
}

# stores DIR: this test's XDG_CONFIG_HOME, XDG_STATE_HOME and (0700)
# XDG_RUNTIME_DIR below DIR; no session
stores() {
	XDG_CONFIG_HOME=$1/config
	XDG_STATE_HOME=$1/state
	XDG_RUNTIME_DIR=$1/run
	mkdir -p "$XDG_CONFIG_HOME" "$XDG_STATE_HOME" "$XDG_RUNTIME_DIR"
	chmod 700 "$XDG_RUNTIME_DIR"
	export XDG_CONFIG_HOME XDG_STATE_HOME XDG_RUNTIME_DIR
	unset KINBOX_SESSION || true
	CFG=$XDG_CONFIG_HOME/kinbox/config.ini
}

# setup NAME: $d (the test's dir), $ws (its workspace, the cwd), $out (a
# directory outside the workspace the test user can write), the stores
setup() {
	d=$(newdir "$1")
	mkdir -p "$d/ws" "$d/out"
	ws=$d/ws
	out=$d/out
	stores "$d"
	cd "$ws"
}

# global_config TEXT: the user's config.ini is TEXT (printf format)
global_config() {
	mkdir -p "$XDG_CONFIG_HOME/kinbox"
	# shellcheck disable=SC2059 # the format is the argument
	printf "$@" >"$CFG"
}

jget() {
	"$PY" "$B/jget.py" "$@"
}

# denial PATH: `kinbox -- touch ran.denial PATH` from the cwd is a denial
# (exit 1, PATH absent outside; the positive control: ./ran.denial made by
# the same touch); ID is its id, taken from the --json-fd record
denial() {
	rm -f ran.denial
	kb_expect 1 --json-fd 3 -- touch ran.denial "$1" 3>"$KB_T/.lib/denial.json"
	assert_not_exists "$1"
	assert_touched ran.denial
	ID=$(jget 'd["id"]' "$KB_T/.lib/denial.json")
	printf '%s\n' "$ID" | grep -Eq '^sbx_[0-9a-f]{16}$' ||
		fail "no denial id in the --json-fd record for touch $1"
}

# kp ARG...: runs kinpolicy (stdin /dev/null: never a terminal); stdout →
# $KP_OUT, stderr → $KP_ERR, status → $KP_RC; never fails by itself
KP_OUT=$KB_T/.lib/kpout
KP_ERR=$KB_T/.lib/kperr
KP_RC=0
kp() {
	KP_RC=0
	"$KP" "$@" </dev/null >"$KP_OUT" 2>"$KP_ERR" || KP_RC=$?
}

# kp_expect CODE ARG...: kp, and the status must be CODE
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

# kp_refused LINE ARG...: kinpolicy ARG... exits 125, prints nothing on
# stdout and exactly the line "kinpolicy: LINE" on stderr
kp_refused() {
	_line=$1
	shift
	kp_expect 125 "$@"
	assert_empty "$KP_OUT"
	assert_file_is "$KP_ERR" "kinpolicy: $_line"
}

# assert_one_line FILE REGEX: FILE is exactly one line, matching REGEX
assert_one_line() {
	_lines=$(wc -l <"$1")
	if [ "$_lines" -ne 1 ]; then
		_show_file "$1"
		fail "$1: $_lines lines, expected exactly one"
	fi
	assert_file_has_content "$1" "$2"
}

assert_empty() {
	if [ -s "$1" ]; then
		_show_file "$1"
		fail "$1 is not empty"
	fi
}

# assert_file_is FILE TEXT: FILE holds exactly TEXT and a newline
assert_file_is() {
	printf '%s\n' "$2" >"$KB_T/.lib/want"
	assert_files_equal "$KB_T/.lib/want" "$1"
}

# assert_touched FILE: FILE is an empty regular file (the positive control
# a `touch` in the same kinbox call created)
assert_touched() {
	if [ ! -f "$1" ] || [ -L "$1" ] || [ -s "$1" ]; then
		fail "$1 is not the empty file the command's touch creates (the command did not run?)"
	fi
}

# re_escape STRING: STRING as a literal in grep -E (a copy of t40's)
re_escape() {
	printf '%s\n' "$1" | sed 's/[][\.*^$+?(){}|]/\\&/g'
}

# assert_has_line FILE LINE: FILE has LINE as one of its lines, exactly
assert_has_line() {
	if ! grep -Fqx -e "$2" "$1"; then
		_show_file "$1"
		fail "$1 has no line '$2'"
	fi
}

assert_no_line() {
	if grep -Fqx -e "$2" "$1"; then
		_show_file "$1"
		fail "$1 has the line '$2'"
	fi
}

# assert_has_text FILE TEXT: TEXT (fixed string) occurs in FILE
assert_has_text() {
	if ! grep -Fq -e "$2" "$1"; then
		_show_file "$1"
		fail "$1 does not contain '$2'"
	fi
}

assert_no_text() {
	if grep -Fq -e "$2" "$1"; then
		_show_file "$1"
		fail "$1 contains '$2'"
	fi
}

mode() {
	stat -c %a "$1"
}

# decision_file ID
decision_file() {
	printf '%s\n' "$XDG_STATE_HOME/kinbox/denials/$1.decision.json"
}

# net_probe [KINBOX ARG...]: runs connect.py to the host listener through
# kinbox; NET is "connected" or "failed: ..."
net_probe() {
	kb "$@" -- "$PY" "$B/connect.py" "$PORT"
	[ "$KB_RC" = 0 ] || fail "the probe exited $KB_RC: $(cat "$KB_ERR")"
	NET=$(cat "$KB_OUT")
}

# ============================================================================
# 1. A denial answered once: show, pending, grant --once, retry
# ============================================================================

t_once_flow() {
	setup once
	denial "$out/f"
	# show: the operation, the class, the suggestion, the warning
	kp_expect 0 show "$ID"
	cp "$KP_OUT" "$d/show.txt"
	assert_empty "$KP_ERR"
	assert_has_line "$KP_OUT" "denial:    $ID (pending)"
	assert_has_line "$KP_OUT" "command:   touch ran.denial $out/f"
	assert_has_line "$KP_OUT" "cwd:       $ws"
	assert_has_line "$KP_OUT" "class:     write (Read-only file system)"
	assert_has_line "$KP_OUT" "path:      $out/f"
	assert_has_line "$KP_OUT" "suggested: --write $out"
	assert_has_line "$KP_OUT" "warning:   the first attempt ran until it failed; part of it may already have happened"
	# show --json: the journal record, with its state
	kp_expect 0 show "$ID" --json
	cp "$KP_OUT" "$d/show.json"
	[ "$(jget 'd["id"]' "$d/show.json")" = "$ID" ] || fail "show --json: wrong id"
	[ "$(jget 'd["state"]' "$d/show.json")" = pending ] || fail "show --json: state is not pending"
	[ "$(jget 'd["argv"]' "$d/show.json")" = "[\"touch\", \"ran.denial\", \"$out/f\"]" ] ||
		fail "show --json: argv $(jget 'd["argv"]' "$d/show.json")"
	assert_has_line "$d/show.txt" "time:      $(jget 'd["time"]' "$d/show.json")"
	# pending lists it: id, time, class, path, cwd, command
	kp_expect 0 pending
	grep -Eq "^$ID  [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z  write   $(re_escape "$out/f")  in $(re_escape "$ws"): touch ran\.denial $(re_escape "$out/f")\$" "$KP_OUT" ||
		{ _show_file "$KP_OUT"; fail "pending does not list $ID"; }
	# retry before any decision: refused, nothing ran
	rm ran.denial
	kp_refused "$ID has no decision yet; a human grants it first (kinpolicy grant $ID ...)" retry "$ID"
	assert_not_exists "$out/f"
	assert_not_exists ran.denial
	assert_not_exists "$XDG_STATE_HOME/kinbox/denials/$ID.retried"
	# the grant
	kp_expect 0 grant "$ID" --write "$out" --once
	assert_file_is "$KP_OUT" "granted $ID (once)"
	assert_streq "$(jget 'd' "$(decision_file "$ID")")" \
		"{\"decision\": \"granted\", \"lifetime\": \"once\", \"write_paths\": [\"$out\"], \"network\": false, \"ssh_agent\": false, \"allow_sockets\": [], \"allowed_hosts\": [], \"devices\": [], \"gpu\": false, \"unconfined\": false}" \
		"the decision file"
	# a once grant is stored nowhere else
	assert_not_exists "$CFG"
	kp_expect 0 grants
	assert_empty "$KP_OUT"
	# the retry, from another directory: the effect lands outside
	cd /
	kp_expect 0 retry "$ID"
	assert_exists "$out/f"
	assert_touched "$ws/ran.denial"
	assert_empty "$KP_ERR"
	# consumed
	kp_refused "$ID was already retried; retry runs a granted denial once" retry "$ID"
	# a once grant is not remembered: the same command is denied again
	cd "$ws"
	kb_expect 1 -- touch ran.g "$out/g"
	assert_not_exists "$out/g"
	assert_touched "$ws/ran.g"
	assert_file_has_content "$KB_ERR" "^kinbox: denied write '$out/g'"
	# no longer pending; show says retried
	kp_expect 0 pending
	assert_not_file_has_content "$KP_OUT" "$ID"
	kp_expect 0 show "$ID"
	assert_has_line "$KP_OUT" "denial:    $ID (retried)"
	# a retried id cannot be granted again
	kp_refused "$ID was already retried; a new denial needs a new grant" grant "$ID" --write "$out" --once
}
run_test "once: touch ./ran.denial OUT/f denied → show (argv, cwd, class, suggestion, warning) → pending → grant --once → retry creates OUT/f outside; 2nd retry 125; rerun still denied; not pending" t_once_flow

t_once_argv() {
	setup argv
	mkdir "$ws/sub"
	cd "$ws/sub"
	a1="two  words"
	a2="it's \"quoted\" \$HOME \\back *.c"
	kb_expect 2 --json-fd 3 -- sh -c 'pwd >ran.argv; { pwd; printf "<%s>\n" "$@"; } >"$0/args"' \
		"$out" "$a1" "$a2" "" 3>"$d/j.json"
	assert_not_exists "$out/args"
	assert_file_is "$ws/sub/ran.argv" "$ws/sub"
	ID=$(jget 'd["id"]' "$d/j.json")
	kp_expect 0 grant "$ID" --write "$out" --once
	cd /
	kp_expect 0 retry "$ID"
	assert_exists "$out/args"
	printf '%s\n<%s>\n<%s>\n<>\n' "$ws/sub" "$a1" "$a2" >"$d/args.want"
	assert_files_equal "$d/args.want" "$out/args"
}
run_test "retry runs the exact journaled argv (spaces, quotes, \$, backslash, glob, empty arg) in the journaled cwd (a subdir), from elsewhere" t_once_argv

t_decline() {
	setup decline
	denial "$out/f"
	kp_expect 0 decline "$ID" --note "use ./cache"
	assert_file_is "$KP_OUT" "declined $ID"
	rm ran.denial
	kp_refused "$ID was declined: use ./cache" retry "$ID"
	assert_not_exists "$out/f"
	assert_not_exists ran.denial
	assert_not_exists "$XDG_STATE_HOME/kinbox/denials/$ID.retried"
	kp_expect 0 show "$ID"
	assert_has_line "$KP_OUT" "denial:    $ID (declined)"
	assert_has_line "$KP_OUT" "note:      use ./cache"
	kp_expect 0 pending
	assert_not_file_has_content "$KP_OUT" "$ID"
	# a decision is final
	kp_refused "$ID already has a decision; see kinpolicy show $ID" decline "$ID" --note "again"
	kp_refused "$ID already has a decision; see kinpolicy show $ID" grant "$ID" --write "$out" --once
	kp_refused "$ID was declined: use ./cache" retry "$ID"
	assert_not_exists "$out/f"
	assert_not_exists ran.denial
}
run_test "decline --note 'use ./cache': retry 125 naming the note, show prints the note, not pending, a second decision refused" t_decline

t_interactive() {
	require script
	setup interactive
	denial "$out/f"
	# on a terminal, without capability options: asked, answered "y", once
	printf 'y\no\n' | script -qec "'$KP' grant $ID" /dev/null >"$d/tty1" 2>&1 ||
		fail "interactive grant exited $?: $(cat "$d/tty1")"
	assert_has_text "$d/tty1" "grant --write $out? [y/N]"
	assert_has_text "$d/tty1" "granted $ID (once)"
	assert_streq "$(jget '[d["decision"], d["lifetime"], d["write_paths"]]' "$(decision_file "$ID")")" \
		"[\"granted\", \"once\", [\"$out\"]]" "the decision"
	kp_expect 0 retry "$ID"
	assert_exists "$out/f"
	# answered "n", then a decline with a note
	denial "$out/g"
	printf 'n\nd\nask me tomorrow\n' | script -qec "'$KP' grant $ID" /dev/null >"$d/tty2" 2>&1 ||
		fail "interactive decline exited $?: $(cat "$d/tty2")"
	assert_has_text "$d/tty2" "declined $ID"
	rm ran.denial
	kp_refused "$ID was declined: ask me tomorrow" retry "$ID"
	assert_not_exists "$out/g"
	assert_not_exists ran.denial
}
run_test "grant on a terminal without capability options asks: 'y' + once → retry works; 'n' + decline → the note" t_interactive

t_decided_store() {
	setup w2
	denial "$out/f"
	kp_expect 0 decline "$ID" --note "no"
	# refused (125) — and then nothing may have been stored either
	kp_refused "$ID already has a decision; see kinpolicy show $ID" grant "$ID" --write "$out" --workspace
	kp_expect 0 grants
	assert_empty "$KP_OUT"
	if [ -f "$CFG" ]; then
		assert_not_file_has_content "$CFG" 'workspace'
	fi
	kb_expect 1 -- touch ran.f "$out/f"
	assert_not_exists "$out/f"
	assert_touched "$ws/ran.f"
	# the same for a session grant over a granted (once) decision
	denial "$out/g"
	kp_expect 0 grant "$ID" --write "$out" --once
	KINBOX_SESSION=$("$KP" session new)
	export KINBOX_SESSION
	kp_refused "$ID already has a decision; see kinpolicy show $ID" grant "$ID" --write "$out" --session
	assert_empty "$XDG_RUNTIME_DIR/kinbox/sessions/$KINBOX_SESSION.ini"
	kb_expect 1 -- touch ran.g "$out/g"
	assert_not_exists "$out/g"
	assert_touched "$ws/ran.g"
}
run_test "a grant refused because the id already has a decision (declined / granted once) stores no workspace or session grant" t_decided_store

# ============================================================================
# 2. Session grants
# ============================================================================

t_session() {
	setup session
	kp_expect 0 session new
	S=$(cat "$KP_OUT")
	printf '%s\n' "$S" | grep -Eq '^ses_[0-9a-f]{16}$' || fail "session id '$S'"
	sf=$XDG_RUNTIME_DIR/kinbox/sessions/$S.ini
	assert_exists "$sf"
	assert_empty "$sf"
	assert_streq "$(mode "$sf")" 600 "session file mode"
	assert_streq "$(mode "$XDG_RUNTIME_DIR/kinbox/sessions")" 700 "sessions dir mode"
	assert_streq "$(mode "$XDG_RUNTIME_DIR/kinbox")" 700 "kinbox runtime dir mode"
	export KINBOX_SESSION="$S"
	denial "$out/f"
	kp_expect 0 grant "$ID" --write "$out" --session
	assert_file_is "$KP_OUT" "granted $ID (session)"
	assert_streq "$(mode "$sf")" 600 "session file mode after the grant"
	assert_has_line "$sf" "[grant]"
	assert_has_line "$sf" "from = $ID"
	assert_has_line "$sf" "write_paths = $out"
	# with the session: writable
	kb_expect 0 -- touch "$out/f"
	assert_exists "$out/f"
	kb_expect 0 --dry-run -- true
	assert_has_line "$KB_OUT" "# write: $out (session grant)"
	# without it (unset, or empty): not
	(
		unset KINBOX_SESSION
		kb_expect 1 -- touch ran.unset "$out/nosession"
		assert_not_exists "$out/nosession"
		assert_touched "$ws/ran.unset"
		KINBOX_SESSION=
		export KINBOX_SESSION
		kb_expect 1 -- touch ran.empty "$out/nosession"
		assert_not_exists "$out/nosession"
		assert_touched "$ws/ran.empty"
	)
	# listed, with where it came from
	kp_expect 0 grants
	assert_has_line "$KP_OUT" "1  session  [grant]  ($sf)"
	assert_has_line "$KP_OUT" "     from = $ID"
	assert_has_line "$KP_OUT" "     write_paths = $out"
	kp_expect 0 grants --json
	cp "$KP_OUT" "$d/grants.json"
	assert_streq "$(jget '[d["schema"]] + [(g["n"], g["lifetime"], g["file"], g["section"]) for g in d["grants"]]' "$d/grants.json")" \
		"[1, [1, \"session\", \"$sf\", \"[grant]\"]]" "grants --json"
	assert_has_text "$d/grants.json" "write_paths = $out\\n"
	# revoked: denied again (the JSON names it as grants numbered it)
	kp_expect 0 revoke 1 --json
	assert_file_is "$KP_OUT" '{"schema":1,"all":false,"n":1,"stopped":[]}'
	assert_not_file_has_content "$sf" 'write_paths'
	assert_streq "$(mode "$sf")" 600 "session file mode after revoke"
	kb_expect 1 -- touch ran.again "$out/again"
	assert_not_exists "$out/again"
	assert_touched "$ws/ran.again"
	kp_expect 0 grants
	assert_empty "$KP_OUT"
}
run_test "session: grant --session → runs WITH KINBOX_SESSION write OUT, without it not; grants lists it (from = ID); revoke 1 → denied; file 0600 in 0700" t_session

t_session_bad() {
	setup sessbad
	for s in bogus ../../x ses_UPPER000 ses_0000000000000000; do
		KINBOX_SESSION=$s
		export KINBOX_SESSION
		kb_expect 125 -- touch "$ws/marker"
		assert_not_exists "$ws/marker"
		assert_empty "$KB_OUT"
		if [ "$s" = ses_0000000000000000 ]; then
			assert_file_is "$KB_ERR" "kinbox: $XDG_RUNTIME_DIR/kinbox/sessions/ses_0000000000000000.ini: No such file or directory; fix the file or its permissions"
		else
			assert_file_is "$KB_ERR" "kinbox: KINBOX_SESSION=$s: not a session id; create one with kinpolicy session new"
		fi
	done
	# a session id without XDG_RUNTIME_DIR
	KINBOX_SESSION=$("$KP" session new)
	printf '%s\n' "$KINBOX_SESSION" | grep -Eqx 'ses_[0-9a-f]{16}' ||
		fail "kinpolicy session new printed '$KINBOX_SESSION'"
	(
		# without it, sessions live in the state store: this one
		# (made in the runtime directory) is not there
		unset XDG_RUNTIME_DIR
		kb_expect 125 -- touch "$ws/marker"
		grep -q "/kinbox/sessions/$KINBOX_SESSION.ini: No such file or directory" "$KB_ERR" ||
			fail "kinbox looked for the session elsewhere: $(cat "$KB_ERR")"
		assert_not_exists "$ws/marker"
		# one made there works (the positive control)
		KINBOX_SESSION=$("$KP" session new) || fail "kinpolicy session new without XDG_RUNTIME_DIR failed"
		export KINBOX_SESSION
		st=${XDG_STATE_HOME:-$HOME/.local/state}
		assert_exists "$st/kinbox/sessions/$KINBOX_SESSION.ini"
		kb_expect 0 -- touch "$ws/marker"
		assert_exists "$ws/marker"
		rm -f "$ws/marker"
	)
	# grant --session needs a session that exists
	unset KINBOX_SESSION
	denial "$out/f"
	kp_refused "--session needs KINBOX_SESSION; create one with kinpolicy session new" grant "$ID" --write "$out" --session
	assert_not_exists "$(decision_file "$ID")"
	KINBOX_SESSION=ses_0123456789abcdef
	export KINBOX_SESSION
	kp_refused "KINBOX_SESSION=ses_0123456789abcdef: no such session; create one with kinpolicy session new" grant "$ID" --write "$out" --session
	assert_not_exists "$(decision_file "$ID")"
	assert_not_exists "$XDG_RUNTIME_DIR/kinbox/sessions/ses_0123456789abcdef.ini"
}
run_test "KINBOX_SESSION=bogus / an unknown id / a path / no XDG_RUNTIME_DIR: kinbox exits 125, command not run; grant --session without a session: 125, no decision" t_session_bad

t_session_revoked_retry() {
	setup sessretry
	mkdir "$d/out2"
	KINBOX_SESSION=$("$KP" session new)
	export KINBOX_SESSION
	denial "$out/f"
	kp_expect 0 grant "$ID" --write "$out" --session
	# in the session: OUT writable, OUT2 not
	kb_expect 1 --json-fd 3 -- sh -c 'touch "$1/run-$(date +%s%N)"; touch "$2/f"' \
		sh "$out" "$d/out2" 3>"$d/j.json"
	ID2=$(jget 'd["id"]' "$d/j.json")
	assert_streq "$(find "$out" -name 'run-*' | wc -l)" 1 "files in OUT after the first run"
	# the session grant is revoked, then OUT2 is granted once
	kp_expect 0 revoke 1
	kp_expect 0 grant "$ID2" --write "$d/out2" --once
	kp_expect 0 retry "$ID2"
	assert_exists "$d/out2/f"
	# the retry must not have written OUT: that grant is gone
	if [ "$(find "$out" -name 'run-*' | wc -l)" != 1 ]; then
		ls -la "$out" >&2
		fail "the retry wrote $out, whose session grant had been revoked (the journaled policy was replayed as --write flags)"
	fi
}
run_test "retry after revoke: a revoked session grant is not brought back by retrying a denial recorded while it was in force" t_session_revoked_retry

# skip_unless_bwrap: the allow-list runs only under the bwrap backend (the
# landlock backend has no network namespace for the proxy to be the way
# out of); auto falls back to it where bubblewrap cannot work
skip_unless_bwrap() {
	kb_expect 0 --dry-run -- true
	if grep -q '^# backend: landlock' "$KB_OUT"; then
		skip_test "the landlock backend runs here (no --allow-host there)"
	fi
}

t_allow_host_grant() {
	setup hostgrant
	skip_unless_bwrap
	KINBOX_SESSION=$("$KP" session new)
	export KINBOX_SESSION
	sf=$XDG_RUNTIME_DIR/kinbox/sessions/$KINBOX_SESSION.ini
	denial "$out/f"
	# refused in kinbox's words; nothing stored, no decision made
	kp_refused "--allow-host localhost: a single-label name is local; give the host's full DNS name (host.domain)" \
		grant "$ID" --allow-host localhost --session
	kp_refused "--allow-host 127.1: an IP address; kinbox's proxy takes names only: give the host's DNS name" \
		grant "$ID" --allow-host 127.1 --session
	kp_refused "--allow-host https://github.com: a URL, not a host name; write the host name alone, e.g. github.com" \
		grant "$ID" --allow-host https://github.com --session
	kp_refused "--net gives the whole network and --allow-host only some hosts: grant one of the two" \
		grant "$ID" --allow-host github.com --net --session
	assert_empty "$sf"
	# stored canonical, one line each; the decision lists them
	kp_expect 0 grant "$ID" --allow-host GitHub.com. --allow-host registry.npmjs.org:8443 --session --json
	cp "$KP_OUT" "$d/dec.json"
	assert_streq "$(jget '[d["decision"], d["lifetime"], d["allowed_hosts"], d["network"]]' "$d/dec.json")" \
		'["granted", "session", ["github.com:443", "registry.npmjs.org:8443"], false]' "the decision"
	assert_has_line "$sf" "allowed_hosts = github.com:443"
	assert_has_line "$sf" "allowed_hosts = registry.npmjs.org:8443"
	# the session's runs: --dry-run shows each host with its origin
	kb_expect 0 --dry-run -- true
	assert_has_line "$KB_OUT" "# network: only through kinbox's proxy, to the allowed hosts below, and nothing else (loopback inside)"
	assert_file_has_content "$KB_OUT" "^# allowed host: github\\.com:443 \\(session grant: $(re_escape "$sf"):[0-9]+\\)$"
	assert_file_has_content "$KB_OUT" "^# allowed host: registry\\.npmjs\\.org:8443 \\(session grant: $(re_escape "$sf"):[0-9]+\\)$"
	assert_not_file_has_content "$KB_OUT" '^# network: off'
	# a typed one adds to them, with its own origin
	kb_expect 0 --dry-run --allow-host api.github.com -- true
	assert_has_line "$KB_OUT" "# allowed host: api.github.com:443 (flag: --allow-host)"
	assert_file_has_content "$KB_OUT" '^# allowed host: github\.com:443 \(session grant: '
	# a typed --net wins over them: not used, said so
	kb_expect 0 --dry-run --net -- true
	assert_has_line "$KB_OUT" "# network: on, host network (flag)"
	assert_not_file_has_content "$KB_OUT" '^# allowed host:'
	assert_file_has_content "$KB_OUT" "^# config: network: the allowed hosts github\\.com:443 \\($(re_escape "$sf"):[0-9]+\\), registry\\.npmjs\\.org:8443 \\($(re_escape "$sf"):[0-9]+\\) are not used: --net gives the whole network$"
	# without the session: none
	(
		unset KINBOX_SESSION
		kb_expect 0 --dry-run -- true
		assert_not_file_has_content "$KB_OUT" 'allowed host'
	)
	# listed, then revoked: gone
	kp_expect 0 grants
	assert_has_line "$KP_OUT" "     allowed_hosts = github.com:443"
	assert_has_line "$KP_OUT" "     allowed_hosts = registry.npmjs.org:8443"
	kp_expect 0 revoke 1
	assert_not_file_has_content "$sf" 'allowed_hosts'
	kb_expect 0 --dry-run -- true
	assert_not_file_has_content "$KB_OUT" 'allowed host'
	assert_has_line "$KB_OUT" "# network: off, loopback only (default)"
}
run_test "kinpolicy grant --allow-host --session: refused entries in kinbox's words, nothing stored; GitHub.com. stored as github.com:443; --dry-run lists each host with its origin (a typed one too, --net drops them with a note); grants lists them; revoke: gone" t_allow_host_grant

t_allow_host_workspace() {
	setup hostws
	skip_unless_bwrap
	denial "$out/f"
	kp_expect 0 grant "$ID" --allow-host pypi.org --workspace
	assert_has_line "$CFG" "path = $ws"
	assert_has_line "$CFG" "allowed_hosts = pypi.org:443"
	kb_expect 0 --dry-run -- true
	assert_file_has_content "$KB_OUT" "^# allowed host: pypi\\.org:443 \\(workspace grant: $(re_escape "$CFG"):[0-9]+\\)$"
	# another workspace: not granted
	mkdir "$d/ws2"
	(cd "$d/ws2" && kb_expect 0 --dry-run -- true &&
		assert_not_file_has_content "$KB_OUT" 'allowed host')
	kp_expect 0 revoke --all
	kb_expect 0 --dry-run -- true
	assert_not_file_has_content "$KB_OUT" 'allowed host'
}
run_test "kinpolicy grant --allow-host --workspace: [workspace] allowed_hosts = pypi.org:443 for this workspace only (--dry-run: workspace grant and file:line); revoke --all: gone" t_allow_host_workspace

t_allow_host_retry() {
	setup hostretry
	skip_unless_bwrap
	# a once grant rides on the retry: the retried run's own denial
	# record (the same write fails again) names the typed host
	denial "$out/f"
	kp_expect 0 grant "$ID" --allow-host github.com --once
	kp_expect 1 retry "$ID"
	kp_expect 0 pending --json
	cp "$KP_OUT" "$d/p1.json"
	assert_streq "$(jget '[r["flags"]["allowed_hosts"] for r in d["pending"]]' "$d/p1.json")" \
		'[["github.com:443"]]' "the retried run's flags"
	# a run with a typed --allow-host, answered by a --net grant: the
	# retry runs with --net and without the hosts (not refused as both)
	ID2=$(jget 'd["pending"][0]["id"]' "$d/p1.json")
	kp_expect 0 grant "$ID2" --net --once
	kp_expect 1 retry "$ID2"
	assert_not_file_has_content "$KP_ERR" 'use one of the two'
	kp_expect 0 pending --json
	cp "$KP_OUT" "$d/p2.json"
	assert_streq "$(jget '[(r["flags"]["allowed_hosts"], r["flags"]["network"]) for r in d["pending"]]' "$d/p2.json")" \
		'[[[], true]]' "the second retry's flags"
	assert_not_exists "$out/f"
}
run_test "kinpolicy retry: a once grant of --allow-host rides on the retry (its run's record: flags.allowed_hosts [github.com:443]); a --net grant for a run with a typed --allow-host retries with --net alone" t_allow_host_retry

# ============================================================================
# 3. Workspace grants
# ============================================================================

t_workspace() {
	setup w1
	mkdir "$ws/sub" "$d/ws2"
	ln -s ws "$d/wslink"
	denial "$out/f"
	kp_expect 0 grant "$ID" --write "$out" --workspace
	assert_file_is "$KP_OUT" "granted $ID (workspace)"
	# stored in the global config as a section for the canonical path
	assert_exists "$CFG"
	assert_has_line "$CFG" "[workspace]"
	assert_has_line "$CFG" "path = $ws"
	assert_has_line "$CFG" "from = $ID"
	assert_has_line "$CFG" "write_paths = $out"
	assert_streq "$(mode "$CFG")" 600 "config.ini mode"
	# a new run in the same workspace (also reached through a symlink)
	kb_expect 0 -- touch "$out/f"
	assert_exists "$out/f"
	(cd "$d/wslink" && kb_expect 0 -- touch "$out/vialink")
	assert_exists "$out/vialink"
	kb_expect 0 --dry-run -- true
	assert_has_line "$KB_OUT" "# write: $out (workspace grant)"
	# another workspace, and a subdirectory as the workspace: not granted
	# (each also touches a marker in its own workspace: it ran)
	(cd "$d/ws2" && kb_expect 1 -- touch ran.ws2 "$out/ws2")
	assert_not_exists "$out/ws2"
	assert_touched "$d/ws2/ran.ws2"
	kb_expect 1 -C "$ws/sub" -- touch "$ws/sub/ran.C" "$out/sub-C"
	assert_not_exists "$out/sub-C"
	assert_touched "$ws/sub/ran.C"
	(cd "$ws/sub" && kb_expect 1 -- touch ran.cwd "$out/sub-cwd")
	assert_not_exists "$out/sub-cwd"
	assert_touched "$ws/sub/ran.cwd"
	# listed
	kp_expect 0 grants
	assert_has_line "$KP_OUT" "1  workspace  [workspace]  ($CFG)"
	assert_has_line "$KP_OUT" "     path = $ws"
	assert_has_line "$KP_OUT" "     from = $ID"
	# revoke --all: the section is gone, denied again
	kp_expect 0 revoke --all
	assert_file_is "$KP_OUT" "revoked all grants"
	assert_not_file_has_content "$CFG" 'workspace|write_paths'
	kb_expect 1 -- touch ran.after "$out/after"
	assert_not_exists "$out/after"
	assert_touched "$ws/ran.after"
	kp_expect 0 grants
	assert_empty "$KP_OUT"
}
run_test "workspace: grant --workspace → [workspace] path = /canonical/ws in config.ini; same ws (also via symlink) writes OUT, another ws or a subdir (-C or cwd) not; revoke --all" t_workspace

t_workspace_caps() {
	setup w6
	denial "$out/f"
	# unconfined: at most a session
	kp_refused "--unconfined can be granted at most for a session; use --once or --session" grant "$ID" --unconfined --workspace
	# credential and config dirs below home: at most a session (a home
	# outside /var/tmp, which the caps exempt as scratch space)
	h=$(mktemp -d /tmp/kinbox-t50-home.XXXXXX)
	cleanup_add "rm -rf '$h'"
	mkdir "$h/.ssh" "$h/.config" "$h/.gnupg" "$h/.config/kinbox"
	for sub in .ssh .config .gnupg .config/kinbox; do
		(
			HOME=$h
			export HOME
			kp_refused "--write $h/$sub: a system or credential directory can be granted at most for a session; use --once or --session" grant "$ID" --write "$h/$sub" --workspace
		)
	done
	# /etc: as root (where it is writable) the cap; as a user, not writable
	if [ "$IS_ROOT" = 1 ]; then
		kp_refused "--write /etc: a system or credential directory can be granted at most for a session; use --once or --session" grant "$ID" --write /etc --workspace
		kp_refused "--write /usr/local: a system or credential directory can be granted at most for a session; use --once or --session" grant "$ID" --write /usr/local --workspace
	else
		kp_refused "--write /etc: not writable by you (Permission denied); grant a directory you can write" grant "$ID" --write /etc --workspace
	fi
	assert_not_exists "$CFG"
	assert_not_exists "$(decision_file "$ID")"
	# the same capabilities are fine for a session
	KINBOX_SESSION=$("$KP" session new)
	export KINBOX_SESSION
	(
		HOME=$h
		export HOME
		kp_expect 0 grant "$ID" --write "$h/.config" --session
	)
	assert_has_line "$XDG_RUNTIME_DIR/kinbox/sessions/$KINBOX_SESSION.ini" \
		"write_paths = $h/.config"
	assert_not_exists "$CFG"
}
run_test "workspace caps: grant --workspace of --unconfined, ~/.ssh, ~/.config, ~/.gnupg, /etc (root) → 125, nothing stored; ~/.config for --session is accepted" t_workspace_caps

t_workspace_unconfined_in_config() {
	setup w5
	global_config '[workspace]\npath = %s\nunconfined = on\n' "$ws"
	kb_expect 125 -- touch "$ws/marker"
	assert_not_exists "$ws/marker"
	assert_file_is "$KB_ERR" "kinbox: $CFG:3: unconfined cannot be a workspace grant (at most a session); remove the line"
}
run_test "a hand-written 'unconfined = on' in a [workspace] section: exit 125, config.ini:3, not run" t_workspace_unconfined_in_config

t_special_write_path() {
	setup w3
	mkdir "$d/a" "$d/a ;b"
	kb_expect 1 --json-fd 3 -- touch "$d/a ;b/x" 3>"$d/j.json"
	ID=$(jget 'd["id"]' "$d/j.json")
	assert_streq "$(jget 'd["suggest"]["write_paths"]' "$d/j.json")" "[\"$d/a ;b\"]" "the suggestion"
	# a stored grant cannot hold it exactly (INI reads ' ;' as a
	# comment): refused, nothing stored, neither directory writable
	kp_refused "--write $d/a ;b: a path with ';', '#', a control byte (a tab, a line break) or surrounding blanks, or longer than 184 bytes, cannot be stored; use --once" grant "$ID" --write "$d/a ;b" --workspace
	kb -- sh -c 'touch ran.sp; touch "$1/x"; touch "$2/y"' sh "$d/a ;b" "$d/a"
	assert_not_exists "$d/a/y"
	assert_not_exists "$d/a ;b/x"
	assert_touched "$ws/ran.sp"
	# a once grant carries it exactly
	kp_expect 0 grant "$ID" --write "$d/a ;b" --once
	kp_expect 0 retry "$ID"
	assert_exists "$d/a ;b/x"
	assert_not_exists "$d/a/y"
}
run_test "a write path containing ' ;' (an INI inline comment): refused as a stored grant, works as a once grant, never grants its prefix" t_special_write_path

t_special_workspace_path() {
	setup w4
	mkdir "$d/other" "$d/w ;x"
	(
		cd "$d/w ;x"
		kb_expect 1 --json-fd 3 -- touch "$out/f" 3>"$d/j.json"
		wsid=$(jget 'd["id"]' "$d/j.json")
		kp_refused "workspace $d/w ;x: a path with ';', '#', a control byte (a tab, a line break) or surrounding blanks, or longer than 191 bytes, cannot be stored in the config" grant "$wsid" --write "$out" --workspace
	)
	# refused, so nothing breaks the other runs, and nothing was granted
	(cd "$d/other" && kb_expect 0 -- touch ran.other)
	assert_touched "$d/other/ran.other"
	(cd "$d/w ;x" && kb_expect 1 -- touch ran.wx "$out/f")
	assert_not_exists "$out/f"
	assert_touched "$d/w ;x/ran.wx"
}
run_test "a workspace grant for a workspace named 'w ;x' is refused (it cannot be stored exactly) and every other run still works" t_special_workspace_path

# body_lines: grant 1's body as the one INI reader reads the stores back
# (kinpolicy grants --json), one "key = value" a line, into $d/body
body_lines() {
	kp_expect 0 grants --json
	jget 'd["grants"][0]["body"]' "$KP_OUT" >"$d/body"
}

# issue 28: what kinpolicy grant stores is read back as written, byte for
# byte, or refused (125, one line, nothing stored, no decision). The INI
# reader trims \f, \v and \r at a value's ends as blanks: a root stored as
# "$out/x\f" would come back as "$out/x", a directory nobody granted.
t_stored_exact() {
	setup exact
	KINBOX_SESSION=$("$KP" session new)
	export KINBOX_SESSION
	sf=$XDG_RUNTIME_DIR/kinbox/sessions/$KINBOX_SESSION.ini
	ff=$(printf 'x\f')
	mkdir "$out/$ff" "$out/x"
	denial "$out/$ff/y"
	for life in --session --workspace; do
		kp_refused "--write $out/x\\x0c: a path with ';', '#', a control byte (a tab, a line break) or surrounding blanks, or longer than 184 bytes, cannot be stored; use --once" \
			grant "$ID" --write "$out/$ff" "$life"
		assert_empty "$sf"
		assert_not_exists "$CFG"
		assert_not_exists "$(decision_file "$ID")"
	done
	# a socket whose name ends in \v: the same
	"$PY" -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$out/s$(printf '\v')"
	"$PY" -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$out/s.sock"
	kp_refused "--allow-socket $out/s\\x0b: a path with ';', '#', a control byte (a tab, a line break) or surrounding blanks, or longer than 182 bytes, cannot be stored; use --once" \
		grant "$ID" --allow-socket "$out/s$(printf '\v')" --session
	assert_empty "$sf"
	# a device node named with a tab (root makes one)
	if [ "$IS_ROOT" = 1 ]; then
		mknod "$out/n$(printf '\t')" c 1 3
		kp_refused "--device $out/n\\t: a path with ';', '#', a control byte (a tab, a line break) or surrounding blanks, or longer than 188 bytes, cannot be stored; use --once" \
			grant "$ID" --device "$out/n$(printf '\t')" --session
		assert_empty "$sf"
	fi
	assert_not_exists "$(decision_file "$ID")"
	# nothing was granted: neither directory is writable
	kb -- sh -c 'touch ran.x; touch "$1/y" "$2/y"' sh "$out/$ff" "$out/x"
	assert_touched "$ws/ran.x"
	assert_not_exists "$out/$ff/y"
	assert_not_exists "$out/x/y"
	# the control: a once grant carries the name exactly (JSON), and
	# grants that one and no other
	kp_expect 0 grant "$ID" --write "$out/$ff" --once
	kp_expect 0 retry "$ID"
	assert_exists "$out/$ff/y"
	assert_not_exists "$out/x/y"
	# ... and stored values come back byte for byte: the write root, the
	# socket, the device and the host of one session grant, as the reader
	# reads the session file
	denial "$out/x/z"
	kp_expect 0 grant "$ID" --write "$out/x" --allow-socket "$out/s.sock" \
		--device /dev/null --session
	body_lines
	assert_has_line "$d/body" "write_paths = $out/x"
	assert_has_line "$d/body" "allow_sockets = $out/s.sock"
	assert_has_line "$d/body" "devices = /dev/null"
	assert_has_line "$d/body" "from = $ID"
	kb_expect 0 -- touch "$out/x/z"
	assert_exists "$out/x/z"
	kp_expect 0 revoke --all
	denial "$out/x/w"
	kp_expect 0 grant "$ID" --allow-host GitHub.com. --session
	body_lines
	assert_has_line "$d/body" "allowed_hosts = github.com:443"
}
run_test "issue 28: a write root, socket or device whose name holds a control byte is refused as a stored grant (one line, 125, nothing stored); a once grant carries it exactly; stored values read back byte for byte" t_stored_exact

# issue 28: the workspace path of a [workspace] block, the same
t_stored_exact_workspace() {
	setup exactws
	w=$d/w$(printf '\v')
	mkdir "$w"
	(
		cd "$w"
		denial "$out/f"
		kp_refused "workspace $d/w\\x0b: a path with ';', '#', a control byte (a tab, a line break) or surrounding blanks, or longer than 191 bytes, cannot be stored in the config" \
			grant "$ID" --write "$out" --workspace
		assert_not_exists "$CFG"
		assert_not_exists "$(decision_file "$ID")"
		# nothing granted: still denied
		kb_expect 1 -- touch ran.w "$out/f"
		assert_touched "$w/ran.w"
		assert_not_exists "$out/f"
	)
	# the control: a plain workspace's path is stored and read back
	cd "$ws"
	denial "$out/f"
	kp_expect 0 grant "$ID" --write "$out" --workspace
	body_lines
	assert_has_line "$d/body" "path = $ws"
	assert_has_line "$d/body" "write_paths = $out"
	kb_expect 0 -- touch "$out/f"
	assert_exists "$out/f"
}
run_test "issue 28: a workspace whose path holds a control byte gets no [workspace] grant (125, one line, nothing stored); a plain one's path reads back as written" t_stored_exact_workspace

# issue 28, finding 7: kinpolicy grant --device refuses what no run would
# take (kinbox judges it again at every run and refuses it whoever asks):
# a device of a refused class, a directory that holds one; nothing stored
t_grant_device_class() {
	setup devclass
	KINBOX_SESSION=$("$KP" session new)
	export KINBOX_SESSION
	sf=$XDG_RUNTIME_DIR/kinbox/sessions/$KINBOX_SESSION.ini
	denial "$out/f"
	n=
	for c in /dev/tty0 /dev/console /dev/vcs; do
		if [ -c "$c" ]; then
			n=$c
			break
		fi
	done
	if [ -z "$n" ] && [ "$IS_ROOT" = 1 ]; then
		mknod "$d/sg0" c 21 0
		n=$d/sg0
	fi
	[ -n "$n" ] || skip_test "no console node here, and mknod needs root"
	kp_expect 125 grant "$ID" --device "$n" --session
	assert_empty "$KP_OUT"
	assert_one_line "$KP_ERR" "^kinpolicy: --device $n: (a virtual console|the system console|a virtual console's memory|a SCSI generic node) \(.*\), which is refused whoever asks; drop it\$"
	assert_empty "$sf"
	assert_not_exists "$(decision_file "$ID")"
	if [ "$IS_ROOT" = 1 ]; then
		mkdir "$d/inp"
		mknod "$d/inp/event0" c 13 64
		mknod "$d/inp/null" c 1 3
		kp_refused "--device $d/inp: it holds event0, an input device (keyboard and mouse events, read and injected, major 13), which is refused whoever asks; name the character devices the command needs" \
			grant "$ID" --device "$d/inp" --session
		assert_empty "$sf"
		assert_not_exists "$(decision_file "$ID")"
	fi
	# the control: /dev/null is granted and stored
	kp_expect 0 grant "$ID" --device /dev/null --session
	body_lines
	assert_has_line "$d/body" "devices = /dev/null"
}
run_test "issue 28: grant --device of a console (or SCSI generic) node, or of a directory holding an input device: refused naming the class (125, one line, nothing stored); /dev/null granted" t_grant_device_class

# issue 28: a decline's note is one line of text; as written in the
# decision file, show gives it back byte for byte
t_note_exact() {
	setup noteexact
	denial "$out/f"
	for note in "$(printf 'use\033[2J./cache')" "$(printf 'one\ntwo')" "$(printf 'tab\there')"; do
		kp_expect 125 decline "$ID" --note "$note"
		assert_empty "$KP_OUT"
		assert_one_line "$KP_ERR" '^kinpolicy: --note: a control byte \(0x(1b|0a|09)\) at byte [0-9]+; a note is one line of text: write it without$'
		assert_not_exists "$(decision_file "$ID")"
	done
	kp_expect 0 pending
	assert_has_text "$KP_OUT" "$ID"
	# the control: a note with blanks, quotes and UTF-8 reads back exactly
	note=' use "./cache" — später '
	kp_expect 0 decline "$ID" --note "$note"
	kp_expect 0 show "$ID" --json
	assert_streq "$(jget 'repr(d["decision"]["note"])' "$KP_OUT")" "$("$PY" -c 'import sys; print(repr(sys.argv[1]))' "$note")" "the note read back"
}
run_test "issue 28: decline --note with a control byte: 125, one line, no decision; a note with blanks and UTF-8 reads back byte for byte" t_note_exact

# issue 28: KINBOX_SESSION names a file below the sessions directory, and
# only a session id does: a path there (../x) would have kinpolicy read,
# list and rewrite another .ini file as a session's
t_session_id_path() {
	setup sesspath
	mkdir -p "$XDG_RUNTIME_DIR/kinbox/sessions"
	printf '[grant]\nwrite_paths = %s\n' "$out" >"$XDG_RUNTIME_DIR/kinbox/other.ini"
	cp "$XDG_RUNTIME_DIR/kinbox/other.ini" "$d/other.before"
	denial "$out/f"
	KINBOX_SESSION=../other
	export KINBOX_SESSION
	kp_refused "KINBOX_SESSION=../other: not a session id; create one with kinpolicy session new" grants
	kp_refused "KINBOX_SESSION=../other: not a session id; create one with kinpolicy session new" revoke --all
	kp_refused "KINBOX_SESSION=../other: not a session id; create one with kinpolicy session new" grant "$ID" --write "$out" --session
	assert_not_exists "$(decision_file "$ID")"
	kp_refused "--session ../other: not a session id; create one with kinpolicy session new" allow --session ../other --signature ls
	kp_refused "KINBOX_SESSION=../other: not a session id; create one with kinpolicy session new" decide --mode strict --kind shell --command ls
	kp_refused "--session ../other: not a session id; create one with kinpolicy session new" decide --mode strict --kind shell --command ls --session ../other
	assert_files_equal "$d/other.before" "$XDG_RUNTIME_DIR/kinbox/other.ini"
	# the control: a real session id works
	KINBOX_SESSION=$("$KP" session new)
	kp_expect 0 grant "$ID" --write "$out" --session
	kp_expect 0 grants
	assert_has_text "$KP_OUT" "write_paths = $out"
	kp_expect 0 revoke --all
}
run_test "issue 28: KINBOX_SESSION or --session ../other: grants, revoke, grant, allow and decide refuse it (125, one line), the other file untouched; a session id works" t_session_id_path

t_workspace_long() {
	# a workspace path of 80 characters: nothing unusual
	d=$(newdir "w7/a-project-directory-with-a-longer-name/src/github.com/example")
	stores "$d"
	mkdir -p "$d/ws" "$d/out"
	ws=$d/ws
	out=$d/out
	cd "$ws"
	denial "$out/f"
	kp_expect 0 grant "$ID" --write "$out" --workspace
	assert_has_line "$CFG" "path = $ws"
	kb -- touch "$out/f"
	if [ ! -e "$out/f" ]; then
		_show_file "$KB_ERR"
		fail "the workspace grant for $ws (${#ws} characters) is not applied"
	fi
	# a forbidden key there is still an error
	global_config '[workspace]\npath = %s\nunconfined = on\n' "$ws"
	kb_expect 125 -- touch "$ws/marker"
	assert_not_exists "$ws/marker"
	assert_file_is "$KB_ERR" "kinbox: $CFG:3: unconfined cannot be a workspace grant (at most a session); remove the line"
}
run_test "a workspace grant for a workspace path of 80+ characters applies (and a forbidden key in its section is still an error)" t_workspace_long

# ============================================================================
# 4. The project file .kinbox.ini: tightening only
# ============================================================================

t_project_net_on() {
	setup projneton
	printf '[sandbox]\nnetwork = on\n' >"$ws/.kinbox.ini"
	net_probe
	assert_file_has_content "$KB_OUT" '^failed: '
	assert_file_is "$KB_ERR" "kinbox: $ws/.kinbox.ini:2: 'network' ignored: a project file cannot turn the network on"
	kb_expect 0 --dry-run -- true
	assert_has_line "$KB_OUT" "# network: off, loopback only (default)"
	# the same probe with --net does connect (the listener is reachable)
	printf '[sandbox]\n' >"$ws/.kinbox.ini"
	net_probe --net
	assert_streq "$NET" connected "the probe with --net"
	assert_empty "$KB_ERR"
}
run_test "project: 'network = on' without --net → no network (127.0.0.1 listener unreachable), stderr exactly the warning FILE:2: 'network' ignored" t_project_net_on

t_project_net_off() {
	setup projnetoff
	printf '# the project works offline\n[sandbox]\nnetwork = off\n' >"$ws/.kinbox.ini"
	net_probe --net
	assert_file_has_content "$KB_OUT" '^failed: '
	assert_empty "$KB_ERR"
	kb_expect 0 --net --dry-run -- true
	assert_has_line "$KB_OUT" "# network: off, loopback only (project tightening)"
	# also over a global network = on
	global_config '[sandbox]\nnetwork = on\n'
	net_probe
	assert_file_has_content "$KB_OUT" '^failed: '
}
run_test "project: 'network = off' wins over --net and over a global network = on (listener unreachable; origin: project tightening)" t_project_net_off

t_project_mask_scrub() {
	setup projmask
	export HOME="$d/home"
	mkdir -p "$HOME"
	echo secret-content >"$HOME/somefile"
	echo visible >"$HOME/otherfile"
	printf '[sandbox]\nmask = ~/somefile\nscrub_env = MYVAR*\n' >"$ws/.kinbox.ini"
	export MYVAR1=one MYVAR=two MYVARX_2=three OTHERVAR=kept
	kb_expect 0 -- sh -c 'cat ~/somefile; echo "--"; cat ~/otherfile; env | grep -E "^(MY|OTHER)VAR" | sort'
	assert_empty "$KB_ERR"
	printf -- '--\nvisible\nOTHERVAR=kept\n' >"$d/want"
	assert_files_equal "$d/want" "$KB_OUT"
	# outside, unchanged
	assert_file_is "$HOME/somefile" secret-content
}
run_test "project: 'mask = ~/somefile' hides it (reads empty inside), 'scrub_env = MYVAR*' removes MYVAR1/MYVAR/MYVARX_2, OTHERVAR kept" t_project_mask_scrub

t_project_write_ignored() {
	setup projwrite
	printf '[sandbox]\nwrite_paths = %s\n' "$out" >"$ws/.kinbox.ini"
	kb_expect 1 -- touch ran.f "$out/f"
	assert_not_exists "$out/f"
	assert_touched "$ws/ran.f"
	assert_streq "$(sed -n 1p "$KB_ERR")" \
		"kinbox: $ws/.kinbox.ini:2: 'write_paths' ignored: a project file may only tighten (network = off, mode = read-only, mask, scrub_env, timeout, rlimit, memory)"
	assert_streq "$(grep -c "ignored" "$KB_ERR")" 1 "warning lines"
	assert_file_has_content "$KB_ERR" "^kinbox: denied write '$out/f'"
}
run_test "project: 'write_paths = OUT' is ignored (OUT/f absent outside) with one warning FILE:2: 'write_paths' ignored" t_project_write_ignored

t_project_loosening() {
	setup projloose
	export HOME="$d/home"
	mkdir -p "$HOME/.npm"
	cat >"$ws/.kinbox.ini" <<EOF
[sandbox]
keep_env = KB_T40_TOKEN
backend = bwrap
network = on
write_paths = $out
[caches]
npm = persisted
[workspace]
path = $ws
write_paths = $out
EOF
	export KB_T40_TOKEN=tok
	kb -- sh -c 'echo "token=${KB_T40_TOKEN:-}"; touch "$1/f"; touch ~/.npm/x; "$2" "$3" "$4"' \
		sh "$out" "$PY" "$B/connect.py" "$PORT"
	assert_not_exists "$out/f"
	assert_not_exists "$HOME/.npm/x"
	assert_has_line "$KB_OUT" "token="
	assert_file_has_content "$KB_OUT" '^failed: '
	for l in "2: 'keep_env'" "3: 'backend'" "4: 'network'" "5: 'write_paths'" \
		"7: 'npm'" "9: 'path'" "10: 'write_paths'"; do
		assert_streq "$(grep -c "^kinbox: $ws/\\.kinbox\\.ini:$l ignored: " "$KB_ERR")" 1 "warning for line $l"
	done
	assert_streq "$(grep -c ' ignored: ' "$KB_ERR")" 7 "warning lines"
}
run_test "project: every loosening key (keep_env, backend, network = on, write_paths, [caches], [workspace]) is ignored, one warning each with its line" t_project_loosening

t_project_error() {
	setup projerr
	printf '[sandbox]\nnetwork = perhaps\n' >"$ws/.kinbox.ini"
	kb_expect 125 -- touch "$ws/marker"
	assert_not_exists "$ws/marker"
	assert_file_is "$KB_ERR" "kinbox: $ws/.kinbox.ini:2: network = perhaps: not on or off; write on or off"
}
run_test "project: a bad value in .kinbox.ini is an error too (125, FILE:2:, not run)" t_project_error

# The project file is the command's (earlier runs wrote the workspace): it
# is opened without following a symlink and without blocking, judged on
# the descriptor (a regular file, at most 64 KiB) before it is read.
t_project_not_regular() {
	setup projtype
	mkfifo "$ws/.kinbox.ini"
	rc=0
	timeout 20 "$KINBOX" -- touch "$ws/ran" >"$KB_OUT" 2>"$KB_ERR" || rc=$?
	assert_streq "$rc" 125 "exit status with a FIFO .kinbox.ini (124: kinbox hung)"
	assert_not_exists "$ws/ran"
	assert_file_is "$KB_ERR" "kinbox: $ws/.kinbox.ini: a FIFO; a config file must be a regular file; remove it or replace it with one"
	rm "$ws/.kinbox.ini"
	# a symlink, even to a harmless file
	printf '[sandbox]\nnetwork = off\n' >"$d/elsewhere.ini"
	ln -s "$d/elsewhere.ini" "$ws/.kinbox.ini"
	kb_expect 125 -- touch "$ws/ran"
	assert_not_exists "$ws/ran"
	assert_file_is "$KB_ERR" "kinbox: $ws/.kinbox.ini: a symlink; a project file must be a regular file in the workspace (a link could point kinbox anywhere); replace it with the file itself"
	rm "$ws/.kinbox.ini"
	# a dangling symlink too (it would otherwise be "absent")
	ln -s "$d/nowhere.ini" "$ws/.kinbox.ini"
	kb_expect 125 -- touch "$ws/ran"
	assert_file_is "$KB_ERR" "kinbox: $ws/.kinbox.ini: a symlink; a project file must be a regular file in the workspace (a link could point kinbox anywhere); replace it with the file itself"
	assert_not_exists "$ws/ran"
	rm "$ws/.kinbox.ini"
	# a directory
	mkdir "$ws/.kinbox.ini"
	kb_expect 125 -- touch "$ws/ran"
	assert_file_is "$KB_ERR" "kinbox: $ws/.kinbox.ini: a directory; a config file must be a regular file; remove it or replace it with one"
	assert_not_exists "$ws/ran"
	rmdir "$ws/.kinbox.ini"
	# larger than 64 KiB (10 + 70000 + 1 bytes)
	{ printf '[sandbox]\n'; head -c 70000 /dev/zero | tr '\0' '#'; printf '\n'; } >"$ws/.kinbox.ini"
	kb_expect 125 -- touch "$ws/ran"
	assert_file_is "$KB_ERR" "kinbox: $ws/.kinbox.ini: 70011 bytes, more than the 64 KiB a project file may hold; shorten it"
	assert_not_exists "$ws/ran"
	# control: a regular file of the same content as the link's target
	cp "$d/elsewhere.ini" "$ws/.kinbox.ini"
	kb_expect 0 -- touch "$ws/ran"
	assert_exists "$ws/ran"
	assert_empty "$KB_ERR"
}
run_test "project: a FIFO .kinbox.ini returns at once (125, not a hang), a symlink (also dangling), a directory, > 64 KiB: 125 with one line, not run; a regular file works" t_project_not_regular

t_global_not_regular() {
	setup globtype
	mkdir -p "$XDG_CONFIG_HOME/kinbox"
	mkfifo "$CFG"
	rc=0
	timeout 20 "$KINBOX" -- touch "$ws/ran" >"$KB_OUT" 2>"$KB_ERR" || rc=$?
	assert_streq "$rc" 125 "exit status with a FIFO config.ini (124: kinbox hung)"
	assert_not_exists "$ws/ran"
	assert_file_is "$KB_ERR" "kinbox: $CFG: a FIFO; a config file must be a regular file; remove it or replace it with one"
	rm "$CFG"
	# the user's own config may be a symlink (a dotfiles checkout)
	printf '[sandbox]\nwrite_paths = %s\n' "$out" >"$d/dotfiles.ini"
	ln -s "$d/dotfiles.ini" "$CFG"
	kb_expect 0 -- touch "$out/f"
	assert_exists "$out/f"
}
run_test "global: a FIFO config.ini returns at once (125); a symlinked config.ini is followed (its write root applies)" t_global_not_regular

# A key the project file chose, with terminal controls in it, is quoted
# escaped in the warning: one line, no raw control. A C0 control byte (ESC,
# BEL) is no text at all: the reader refuses the file (issue 28: it never
# reads a line otherwise than written), in one escaped line, not run.
t_project_warning_escaped() {
	setup projesc
	printf '[sandbox]\n\302\233[8mhidden\342\200\256title = 1\n' >"$ws/.kinbox.ini"
	kb_expect 0 -- touch ran.c1
	assert_touched "$ws/ran.c1"
	assert_file_is "$KB_ERR" "kinbox: $ws/.kinbox.ini:2: '\\xc2\\x9b[8mhidden\\xe2\\x80\\xaetitle' ignored: a project file may only tighten (network = off, mode = read-only, mask, scrub_env, timeout, rlimit, memory)"
	printf '[sandbox]\n\033[8mhidden\033]0;title\007 = 1\n' >"$ws/.kinbox.ini"
	kb_expect 125 -- touch ran.esc
	assert_not_exists "$ws/ran.esc"
	assert_file_is "$KB_ERR" "kinbox: $ws/.kinbox.ini:2: a control byte (0x1b); a config file is text, remove it"
}
run_test "project: a key with C1 and bidi controls in it is printed escaped in the warning (one line); one with ESC and BEL is refused (125, one line, not run)" t_project_warning_escaped

# ============================================================================
# 5. The global (and system) config
# ============================================================================

# t_cfg_error NAME LINE-REGEX MESSAGE FORMAT: config.ini made of FORMAT →
# exit 125, the one kinbox line "…/config.ini:LINE: MESSAGE", not run
t_cfg_error() {
	setup "cfgerr-$1"
	global_config "$4"
	_re="^kinbox: $(re_escape "$CFG"):$2: $(re_escape "$3")\$"
	kb_expect 125 -- touch "$ws/marker"
	assert_not_exists "$ws/marker"
	assert_empty "$KB_OUT"
	assert_one_kinbox_line "$KB_ERR" "$_re"
	# --dry-run does not get past it either
	kb_expect 125 --dry-run -- true
	assert_empty "$KB_OUT"
	assert_one_kinbox_line "$KB_ERR" "$_re"
}
run_test "config error: unknown key → 125, one line config.ini:2:, not run" \
	t_cfg_error unknownkey 2 "unknown key 'bogus' in [sandbox]; see kinbox.conf(5)" '[sandbox]\nbogus = 1\n'
run_test "config error: network = maybe → 125, one line config.ini:3:, not run" \
	t_cfg_error badvalue 3 'network = maybe: not on or off; write on or off' '[sandbox]\n# a comment\nnetwork = maybe\n'
run_test "config error: '[sandbox' (a broken section line 1) → 125, one line naming config.ini:1:, not run" \
	t_cfg_error brokensection 1 'not an INI line (want [section] or key = value); fix it or see kinbox.conf(5)' '[sandbox\nnetwork = off\n'
run_test "config error: a line that is not INI → 125, config.ini:2: not an INI line" \
	t_cfg_error notini 2 'not an INI line (want [section] or key = value); fix it or see kinbox.conf(5)' '[sandbox]\nnetwork\n'
run_test "config error: unknown section [nosuch] → 125, config.ini:3 or 4 (its key), not run" \
	t_cfg_error unknownsection '[34]' 'unknown section [nosuch]; see kinbox.conf(5)' '[sandbox]\nnetwork = off\n[nosuch]\nkey = v\n'
run_test "config error: unknown cache name → 125, config.ini:2:" \
	t_cfg_error unknowncache 2 "unknown cache 'pip' in [caches]; known: cache, npm, cargo, gomod, gradle, maven" '[caches]\npip = persisted\n'
run_test "config error: bad cache mode → 125, config.ini:2:" \
	t_cfg_error badcache 2 'npm = sometimes: write ephemeral, empty, off or persisted' '[caches]\nnpm = sometimes\n'
run_test "config error: relative mask → 125, config.ini:2:" \
	t_cfg_error relmask 2 'mask = rel: not an absolute path; write /path or ~/path' '[sandbox]\nmask = rel\n'
run_test "config error: keep_env with a pattern → 125, config.ini:2:" \
	t_cfg_error keeppattern 2 'keep_env = A*: keep_env takes exact names, no patterns' '[sandbox]\nkeep_env = A*\n'
run_test "config error: write_paths of a missing directory → 125, config.ini:2:" \
	t_cfg_error missingwrite 2 'write_paths = /nonexistent-kinbox-t50: no such directory; create it first or fix the path' '[sandbox]\nwrite_paths = /nonexistent-kinbox-t50\n'
run_test "config error: unknown backend → 125, config.ini:2:" \
	t_cfg_error badbackend 2 'backend = firejail: unknown backend; use auto, bwrap, landlock or seatbelt' '[sandbox]\nbackend = firejail\n'

t_session_file_error() {
	setup sesserr
	KINBOX_SESSION=$("$KP" session new)
	export KINBOX_SESSION
	sf=$XDG_RUNTIME_DIR/kinbox/sessions/$KINBOX_SESSION.ini
	printf '[sandbox]\nnetwork = on\n' >"$sf"
	kb_expect 125 -- touch "$ws/marker"
	assert_not_exists "$ws/marker"
	assert_file_is "$KB_ERR" "kinbox: $sf:2: unknown section [sandbox] in a session file; only [grant] and [always]"
}
run_test "a session file may hold [grant] sections only: [sandbox] there → 125, FILE:2:" t_session_file_error

t_global_network() {
	setup globalnet
	global_config '[sandbox]\nnetwork = on\n'
	net_probe
	assert_streq "$NET" connected "global network = on"
	assert_empty "$KB_ERR"
	kb_expect 0 --dry-run -- true
	assert_has_line "$KB_OUT" "# network: on, host network (global config)"
	# the flag wins
	net_probe --no-net
	assert_file_has_content "$KB_OUT" '^failed: '
	kb_expect 0 --no-net --dry-run -- true
	assert_has_line "$KB_OUT" "# network: off, loopback only (flag)"
	# and the default is off
	global_config '[sandbox]\n'
	net_probe
	assert_file_has_content "$KB_OUT" '^failed: '
}
run_test "global 'network = on' gives the host network (listener reached); --no-net wins over it; the origins in --dry-run" t_global_network

t_global_write() {
	setup globalwrite
	export HOME="$d/home"
	mkdir -p "$HOME/cachedir"
	global_config '[sandbox]\nwrite_paths = %s\nwrite_paths = ~/cachedir\n' "$out"
	kb_expect 0 -- sh -c 'touch "$1/f" ~/cachedir/g' sh "$out"
	assert_exists "$out/f"
	assert_exists "$HOME/cachedir/g"
	kb_expect 0 --dry-run -- true
	assert_has_line "$KB_OUT" "# write: $out (global config)"
	assert_has_line "$KB_OUT" "# write: $HOME/cachedir (global config)"
	# given as a flag too, the flag is the origin
	kb_expect 0 --write "$out" --dry-run -- true
	assert_has_line "$KB_OUT" "# write: $out (flag)"
}
run_test "global 'write_paths = OUT' (and ~/dir) makes them writable (effect outside); --dry-run names the origin" t_global_write

t_global_env() {
	setup globalenv
	global_config '[sandbox]\nkeep_env = KB_T40_TOKEN\nscrub_env = PLAIN?\n'
	export KB_T40_TOKEN=tok OTHER_TOKEN=gone PLAIN1=x PLAIN=y
	kb_expect 0 -- sh -c 'env | grep -E "^(KB_T40_TOKEN|OTHER_TOKEN|PLAIN)" | sort'
	printf 'KB_T40_TOKEN=tok\nPLAIN=y\n' >"$d/want"
	assert_files_equal "$d/want" "$KB_OUT"
}
run_test "global keep_env keeps a secret-named variable; scrub_env PLAIN? removes PLAIN1 but not PLAIN" t_global_env

# t_cache MODE: [caches] npm = MODE (or no [caches] for "default")
t_cache() {
	setup "cache-$1"
	export HOME="$d/home"
	mkdir -p "$HOME/.npm"
	echo old >"$HOME/.npm/old"
	if [ "$1" != default ]; then
		global_config '[caches]\nnpm = %s\n' "$1"
	fi
	kb -- sh -c 'echo "list:$(ls -A ~/.npm | tr "\n" " ")"; echo new >~/.npm/new && echo wrote; cat ~/.npm/new'
	case $1 in
	default | ephemeral)
		assert_streq "$KB_RC" 0 "exit status"
		printf 'list:old \nwrote\nnew\n' >"$d/want"
		assert_files_equal "$d/want" "$KB_OUT"
		assert_not_exists "$HOME/.npm/new"
		assert_file_is "$HOME/.npm/old" old
		kb_expect 0 --dry-run -- true
		assert_has_line "$KB_OUT" "# cache npm: $HOME/.npm (ephemeral): a copy-on-write overlay, warm reads, writes discarded after the run"
		;;
	empty)
		assert_streq "$KB_RC" 0 "exit status"
		printf 'list:\nwrote\nnew\n' >"$d/want"
		assert_files_equal "$d/want" "$KB_OUT"
		assert_not_exists "$HOME/.npm/new"
		assert_file_is "$HOME/.npm/old" old
		kb_expect 0 --dry-run -- true
		assert_has_line "$KB_OUT" "# cache npm: $HOME/.npm (empty): empty and writable, writes discarded after the run"
		;;
	persisted)
		assert_streq "$KB_RC" 0 "exit status"
		printf 'list:old \nwrote\nnew\n' >"$d/want"
		assert_files_equal "$d/want" "$KB_OUT"
		assert_file_is "$HOME/.npm/new" new
		kb_expect 0 --dry-run -- true
		assert_has_line "$KB_OUT" "# cache npm: $HOME/.npm (persisted): the real directory, writable; what the command writes there stays"
		;;
	off)
		[ "$KB_RC" != 0 ] || fail "writing ~/.npm succeeded with npm = $1"
		assert_has_line "$KB_OUT" "list:old "
		assert_no_line "$KB_OUT" wrote
		assert_not_exists "$HOME/.npm/new"
		# a denial that names the cache and its setting
		kb_expect 2 -- sh -c 'echo new >~/.npm/new'
		assert_streq "$(tail -n 1 "$KB_ERR" | sed 's/  \[sbx_[0-9a-f]*\]$//')" \
			"kinbox: denied write '$HOME/.npm/new' (Read-only file system, read from the command's stderr): the npm cache $HOME/.npm is read-only ([caches] npm = off); set npm = ephemeral (writes discarded after the run) in [caches] of your config.ini (kinbox.conf(5))" \
			"the denial line"
		;;
	esac
}
run_test "caches: default (no [caches]) → ~/.npm an overlay: the old file there, the write succeeds inside and does not appear outside" t_cache default
run_test "caches: npm = ephemeral → as the default" t_cache ephemeral
run_test "caches: npm = empty → ~/.npm empty and writable inside, the write does not appear outside, the old file hidden" t_cache empty
run_test "caches: npm = persisted → the real ~/.npm, writable; the write appears outside" t_cache persisted
run_test "caches: npm = off → ~/.npm readable, a write fails and is a denial naming the cache and its setting" t_cache off

t_cache_missing() {
	setup cachemissing
	export HOME="$d/home"
	mkdir -p "$HOME"
	global_config '[caches]\nnpm = persisted\ncargo = ephemeral\n'
	kb -- sh -c 'mkdir ~/.npm || true; mkdir -p ~/.cargo/registry || true; touch ran.mk'
	assert_not_exists "$HOME/.npm"
	assert_not_exists "$HOME/.cargo"
	assert_touched "$ws/ran.mk"
	kb_expect 0 --dry-run -- true
	assert_has_line "$KB_OUT" "# cache npm: ~/.npm absent, nothing to mount (kinbox does not create it)"
	assert_has_line "$KB_OUT" "# cache cargo: ~/.cargo/registry absent, nothing to mount (kinbox does not create it)"
}
run_test "caches: a cache directory that does not exist is not created or made writable" t_cache_missing

t_system_config() {
	if [ "$IS_ROOT" != 1 ]; then
		skip_other_pass "needs root (writes /etc/kinbox/config.ini)"
	fi
	if [ -e /etc/kinbox ] || [ -L /etc/kinbox ]; then
		skip_test "/etc/kinbox exists on this host; it is left alone"
	fi
	setup sysconfig
	mkdir "$d/sysout"
	cleanup_add "rm -rf /etc/kinbox"
	mkdir /etc/kinbox
	printf '[sandbox]\nnetwork = on\nwrite_paths = %s\n' "$d/sysout" >/etc/kinbox/config.ini
	set +e
	(
		set -e
		kb_expect 0 --dry-run -- true
		assert_has_line "$KB_OUT" "# write: $d/sysout (system config)"
		assert_has_line "$KB_OUT" "# network: on, host network (system config)"
		kb_expect 0 -- touch "$d/sysout/f"
		assert_exists "$d/sysout/f"
		# the user's config comes after and wins
		global_config '[sandbox]\nnetwork = off\n'
		kb_expect 0 --dry-run -- true
		assert_has_line "$KB_OUT" "# network: off, loopback only (global config)"
		net_probe
		assert_file_has_content "$KB_OUT" '^failed: '
		# workspace grants live in the user's config only
		printf '[workspace]\npath = %s\nwrite_paths = %s\n' "$ws" "$out" >/etc/kinbox/config.ini
		kb_expect 125 -- touch "$ws/marker" "$out/f"
		assert_not_exists "$out/f"
		assert_not_exists "$ws/marker"
		assert_file_is "$KB_ERR" "kinbox: /etc/kinbox/config.ini:2: workspace grants live in the user's config only"
		# an error there stops every run
		printf '[sandbox]\nnetwork = sometimes\n' >/etc/kinbox/config.ini
		kb_expect 125 -- touch "$ws/marker"
		assert_not_exists "$ws/marker"
		assert_file_is "$KB_ERR" "kinbox: /etc/kinbox/config.ini:2: network = sometimes: not on or off; write on or off"
	)
	rc=$?
	rm -rf /etc/kinbox
	return "$rc"
}
run_test "system config /etc/kinbox/config.ini (root, only when absent): its write root and network apply (origin: system config), the user's config wins, no [workspace] there, errors are fatal" t_system_config

# ============================================================================
# 6. The command cannot grant itself anything
# ============================================================================

t_no_self_grant() {
	setup selfgrant
	global_config '[sandbox]\n# the user'"'"'s\n'
	cp "$CFG" "$d/cfg.before"
	KINBOX_SESSION=$("$KP" session new)
	export KINBOX_SESSION
	sf=$XDG_RUNTIME_DIR/kinbox/sessions/$KINBOX_SESSION.ini
	denial "$out/f"
	# from inside: append to the config, create files in the stores, plant
	# a session grant and a decision
	kb -- sh -c '
		printf "[sandbox]\nwrite_paths = %s\n" "$1" >>"$XDG_CONFIG_HOME/kinbox/config.ini"
		printf "[sandbox]\nwrite_paths = %s\n" "$1" >"$XDG_CONFIG_HOME/kinbox/new.ini"
		printf "[grant]\nwrite_paths = %s\n" "$1" >>"$XDG_RUNTIME_DIR/kinbox/sessions/$KINBOX_SESSION.ini"
		printf "[grant]\nwrite_paths = %s\n" "$1" >"$XDG_RUNTIME_DIR/kinbox/sessions/ses_feedfeedfeedfeed.ini"
		printf "{\"decision\":\"granted\",\"lifetime\":\"once\",\"write_paths\":[\"%s\"]}" "$1" >"$XDG_STATE_HOME/kinbox/denials/$2.decision.json"
		mkdir -p "$XDG_STATE_HOME/kinbox/denials" && : >"$XDG_STATE_HOME/kinbox/denials/$2.decision.json"
		echo ran >ran.inside' sh "$out" "$ID"
	# the positive control: the command ran to its end
	assert_file_is "$ws/ran.inside" ran
	assert_files_equal "$d/cfg.before" "$CFG"
	assert_not_exists "$XDG_CONFIG_HOME/kinbox/new.ini"
	assert_empty "$sf"
	assert_not_exists "$XDG_RUNTIME_DIR/kinbox/sessions/ses_feedfeedfeedfeed.ini"
	assert_not_exists "$(decision_file "$ID")"
	# kinpolicy inside kinbox: fails, decides nothing. It does run there
	# (its own line, the first, is the positive control): the journal is
	# hidden inside (kinbox may add a denial line after it)
	# a copy the sandbox shows (a build under /tmp is hidden by the
	# private /tmp)
	kpin=$d/kinpolicy-copy
	cp "$KP" "$kpin"
	kb -- "$kpin" grant "$ID" --write "$out" --once
	[ "$KB_RC" != 0 ] || fail "kinpolicy grant succeeded inside kinbox"
	nojournal="kinpolicy: no denial $ID in the journal (there is no journal yet); see kinpolicy pending"
	assert_streq "$(sed -n 1p "$KB_ERR")" "$nojournal" "kinpolicy grant's line inside"
	assert_not_exists "$(decision_file "$ID")"
	kb -- "$kpin" decline "$ID" --note "from inside"
	[ "$KB_RC" != 0 ] || fail "kinpolicy decline succeeded inside kinbox"
	assert_streq "$(sed -n 1p "$KB_ERR")" "$nojournal" "kinpolicy decline's line inside"
	# session new inside: a session in the sandbox's own runtime dir (as a
	# user) or refused there (as root); either way kinpolicy ran
	kb -- "$kpin" session new
	grep -Eqx 'ses_[0-9a-f]{16}' "$KB_OUT" ||
		sed -n 1p "$KB_ERR" | grep -Eq "^kinpolicy: $(re_escape "$XDG_RUNTIME_DIR")/kinbox/sessions/ses_[0-9a-f]{16}\.ini: " ||
		{ _show_file "$KB_OUT"; _show_file "$KB_ERR"; fail "kinpolicy session new did not run inside kinbox"; }
	assert_streq "$(find "$XDG_RUNTIME_DIR/kinbox/sessions" -type f | wc -l)" 1 "session files"
	# outside, the id is still undecided
	rm ran.denial
	kp_refused "$ID has no decision yet; a human grants it first (kinpolicy grant $ID ...)" retry "$ID"
	assert_not_exists "$out/f"
	assert_not_exists ran.denial
	kp_expect 0 show "$ID"
	assert_has_line "$KP_OUT" "denial:    $ID (pending)"
	# and the session still grants nothing
	kb_expect 1 -- touch ran.after "$out/f"
	assert_not_exists "$out/f"
	assert_touched "$ws/ran.after"
}
run_test "inside kinbox: config.ini, a new store file, the session file, a decision file and 'kinpolicy grant/decline/session new' all fail; retry outside → 125 no decision" t_no_self_grant

t_no_self_grant_written_parent() {
	setup selfgrant2
	global_config '[sandbox]\n'
	cp "$CFG" "$d/cfg.before"
	denial "$out/f"
	# the parents of the stores granted writable: refused before anything
	# runs (a mask over the store would not hold: the command could rename
	# the parent away and plant a config.ini the next run obeys)
	planter='
		printf "[sandbox]\nwrite_paths = %s\n" "$1" >>"$XDG_CONFIG_HOME/kinbox/config.ini"
		printf "{}" >"$XDG_STATE_HOME/kinbox/denials/$2.decision.json"
		rm -rf "$XDG_CONFIG_HOME/kinbox" "$XDG_STATE_HOME/kinbox"
		mv "$XDG_CONFIG_HOME/kinbox" "$XDG_CONFIG_HOME/kinbox.old"
		mv "$XDG_STATE_HOME/kinbox" "$XDG_STATE_HOME/kinbox.old"
		touch "$XDG_CONFIG_HOME/other-ok"
		true'
	kb_expect 125 --write "$XDG_CONFIG_HOME" --write "$XDG_STATE_HOME" -- sh -c "$planter" sh "$out" "$ID"
	assert_file_is "$KB_ERR" "kinbox: \$XDG_CONFIG_HOME/kinbox ($XDG_CONFIG_HOME/kinbox) lies inside the write root $XDG_CONFIG_HOME (flag): a command could write its own grants; move XDG_CONFIG_HOME out of that write root"
	kb_expect 125 --write "$XDG_STATE_HOME" -- sh -c "$planter" sh "$out" "$ID"
	assert_file_is "$KB_ERR" "kinbox: \$XDG_STATE_HOME/kinbox ($XDG_STATE_HOME/kinbox) lies inside the write root $XDG_STATE_HOME (flag): a command could forge the denial journal and the decisions kinpolicy retry obeys; move XDG_STATE_HOME out of that write root"
	assert_not_exists "$XDG_CONFIG_HOME/other-ok"
	assert_files_equal "$d/cfg.before" "$CFG"
	assert_not_exists "$XDG_CONFIG_HOME/kinbox.old"
	assert_not_exists "$XDG_STATE_HOME/kinbox.old"
	assert_exists "$XDG_STATE_HOME/kinbox/denials/$ID.json"
	assert_not_exists "$(decision_file "$ID")"
	kb_expect 1 -- touch ran.after "$out/f"
	assert_not_exists "$out/f"
	assert_touched "$ws/ran.after"
}
run_test "with --write \$XDG_CONFIG_HOME or \$XDG_STATE_HOME: 125, nothing runs (config.ini unchanged, no decision, not removed or renamed)" t_no_self_grant_written_parent

t_no_self_grant_absent_store() {
	setup selfgrant3
	# no kinbox directory in XDG_CONFIG_HOME yet (a first use)
	assert_not_exists "$XDG_CONFIG_HOME/kinbox"
	kb_expect 125 --write "$XDG_CONFIG_HOME" -- sh -c '
		mkdir -p "$XDG_CONFIG_HOME/kinbox" &&
		printf "[sandbox]\nnetwork = on\nwrite_paths = %s\n" "$1" >"$XDG_CONFIG_HOME/kinbox/config.ini"
		true' sh "$out"
	assert_file_is "$KB_ERR" "kinbox: \$XDG_CONFIG_HOME/kinbox ($XDG_CONFIG_HOME/kinbox) lies inside the write root $XDG_CONFIG_HOME (flag): a command could write its own grants; move XDG_CONFIG_HOME out of that write root"
	assert_not_exists "$XDG_CONFIG_HOME/kinbox"
	# the next run: denied, and it ran (ran.next)
	kb -- touch ran.next "$out/f"
	if [ -e "$out/f" ]; then
		fail "a command run with --write \$XDG_CONFIG_HOME created $CFG and the next run obeyed it: it granted itself write access to $out"
	fi
	assert_streq "$KB_RC" 1 "the next run's exit status"
	assert_touched "$ws/ran.next"
	assert_not_exists "$CFG"
}
run_test "with --write \$XDG_CONFIG_HOME and no kinbox dir there yet: 125, nothing run; the command cannot create kinbox/config.ini and grant the next run anything" t_no_self_grant_absent_store

# kinbox's stores inside a writable root of this run: refused (125) before
# anything runs, with one line naming the store, where it lies and the
# fix; the same command runs once the store is elsewhere.
# store_refused VAR DIR GAIN WHERE [KINBOX-ARG...]: VAR=DIR (inside a root)
# → 125, nothing run, stderr exactly the line "kinbox: $VAR/kinbox
# (DIR/kinbox) lies inside WHERE: a command could GAIN; move VAR out of
# ..." (WHERE: "ws" for the workspace, else the write root, a flag)
store_refused() {
	_var=$1 _dir=$2 _gain=$3 _where=$4
	shift 4
	if [ "$_where" = ws ]; then
		_in="the writable workspace $ws" _fix="the workspace"
	else
		_in="the write root $_where (flag)" _fix="that write root"
	fi
	rm -f "$ws/ran"
	kb_expect 125 "$@" -- touch "$ws/ran"
	assert_not_exists "$ws/ran"
	assert_file_is "$KB_ERR" "kinbox: \$$_var/kinbox ($_dir/kinbox) lies inside $_in: a command could $_gain; move $_var out of $_fix"
}

t_store_in_root() {
	setup storeroot
	good_cfg=$XDG_CONFIG_HOME good_run=$XDG_RUNTIME_DIR good_state=$XDG_STATE_HOME
	# the global config in the workspace: the exact line
	XDG_CONFIG_HOME=$ws/xdg-config
	kb_expect 125 -- touch "$ws/ran"
	assert_file_is "$KB_ERR" "kinbox: \$XDG_CONFIG_HOME/kinbox ($ws/xdg-config/kinbox) lies inside the writable workspace $ws: a command could write its own grants; move XDG_CONFIG_HOME out of the workspace"
	assert_not_exists "$ws/ran"
	assert_not_exists "$ws/xdg-config"
	# ... in a --write root, through a symlink, not yet existing
	XDG_CONFIG_HOME=$out/cfg
	store_refused XDG_CONFIG_HOME "$out/cfg" "write its own grants" "$out" --write "$out"
	mkdir -p "$ws/real-cfg"
	ln -s "$ws/real-cfg" "$d/cfg-link"
	XDG_CONFIG_HOME=$d/cfg-link
	store_refused XDG_CONFIG_HOME "$ws/real-cfg" "write its own grants" ws
	XDG_CONFIG_HOME=$good_cfg
	# the session store and the journal
	XDG_RUNTIME_DIR=$ws/run
	store_refused XDG_RUNTIME_DIR "$ws/run" "write its own session grants" ws
	XDG_RUNTIME_DIR=$good_run
	XDG_STATE_HOME=$ws/not/yet/state
	store_refused XDG_STATE_HOME "$ws/not/yet/state" "forge the denial journal and the decisions kinpolicy retry obeys" ws
	assert_not_exists "$ws/not"
	XDG_STATE_HOME=$good_state
	# a root inside a store: the session store granted writable
	mkdir -p "$XDG_RUNTIME_DIR/kinbox/sessions"
	kb_expect 125 --write "$XDG_RUNTIME_DIR/kinbox/sessions" -- touch "$ws/ran"
	assert_file_is "$KB_ERR" "kinbox: the write root $XDG_RUNTIME_DIR/kinbox/sessions (flag) lies inside kinbox's store \$XDG_RUNTIME_DIR/kinbox ($XDG_RUNTIME_DIR/kinbox): a command could write its own session grants; grant a directory outside it"
	assert_not_exists "$ws/ran"
	# --dry-run is refused alike
	XDG_CONFIG_HOME=$ws/xdg-config
	kb_expect 125 --dry-run -- true
	assert_empty "$KB_OUT"
	assert_file_is "$KB_ERR" "kinbox: \$XDG_CONFIG_HOME/kinbox ($ws/xdg-config/kinbox) lies inside the writable workspace $ws: a command could write its own grants; move XDG_CONFIG_HOME out of the workspace"
	XDG_CONFIG_HOME=$good_cfg
	# positive control: the stores elsewhere, the same command runs
	kb_expect 0 -- touch "$ws/ran"
	assert_exists "$ws/ran"
	kb_expect 0 --write "$out" -- touch "$out/ran"
	assert_exists "$out/ran"
}
run_test "a store in a writable root (\$XDG_CONFIG_HOME, \$XDG_RUNTIME_DIR, \$XDG_STATE_HOME in the workspace, a --write root, through a symlink, not yet made; a write root inside a store): 125, one line, nothing run; elsewhere it runs" t_store_in_root

# The attack itself: a session file with unconfined = on, a config.ini
# with write_paths, both planted where an earlier run could write them.
t_store_planted() {
	setup storeplant
	good_run=$XDG_RUNTIME_DIR
	KINBOX_SESSION=ses_0123456789abcdef
	export KINBOX_SESSION
	for run in "$ws/run" "$d/run-elsewhere"; do
		mkdir -p "$run/kinbox/sessions"
		chmod 700 "$run"
		printf '[grant]\nunconfined = on\n' >"$run/kinbox/sessions/$KINBOX_SESSION.ini"
	done
	XDG_RUNTIME_DIR=$ws/run
	kb_expect 125 -- touch "$ws/ran" "$out/pwned"
	assert_not_exists "$out/pwned"
	assert_not_exists "$ws/ran"
	assert_file_is "$KB_ERR" "kinbox: \$XDG_RUNTIME_DIR/kinbox ($ws/run/kinbox) lies inside the writable workspace $ws: a command could write its own session grants; move XDG_RUNTIME_DIR out of the workspace"
	# control: the same file where no run could have written it is
	# obeyed (a session grant a human made)
	XDG_RUNTIME_DIR=$d/run-elsewhere
	kb_expect 0 -q -- touch "$out/pwned"
	assert_exists "$out/pwned"
	rm "$out/pwned"
	unset KINBOX_SESSION
	XDG_RUNTIME_DIR=$good_run
	# a planted config.ini with write_paths and network
	XDG_CONFIG_HOME=$ws/cfg
	mkdir -p "$XDG_CONFIG_HOME/kinbox"
	printf '[sandbox]\nwrite_paths = %s\nnetwork = on\n' "$out" >"$XDG_CONFIG_HOME/kinbox/config.ini"
	kb_expect 125 -- touch "$ws/ran" "$out/pwned"
	assert_not_exists "$out/pwned"
	assert_not_exists "$ws/ran"
	assert_file_is "$KB_ERR" "kinbox: \$XDG_CONFIG_HOME/kinbox ($ws/cfg/kinbox) lies inside the writable workspace $ws: a command could write its own grants; move XDG_CONFIG_HOME out of the workspace"
}
run_test "planted stores are not obeyed: a session file (unconfined = on) and a config.ini (write_paths) under the workspace → 125, nothing written outside; the same session file elsewhere is obeyed" t_store_planted

# kinpolicy writes grants and decisions, and obeys them in retry and
# decide: it refuses a store that lies in the denial's workspace
t_kp_store_in_workspace() {
	setup kpstore
	good_cfg=$XDG_CONFIG_HOME good_run=$XDG_RUNTIME_DIR
	denial "$out/f"
	# a grant of a root that holds a store: every run with it would be
	# refused, so it is not stored (nor decided)
	kp_refused "\$XDG_STATE_HOME/kinbox ($XDG_STATE_HOME/kinbox) lies inside the write root $XDG_STATE_HOME (flag): a command could forge the denial journal and the decisions kinpolicy retry obeys; move XDG_STATE_HOME out of that write root" grant "$ID" --write "$XDG_STATE_HOME" --once
	assert_not_exists "$(decision_file "$ID")"
	XDG_CONFIG_HOME=$ws/cfg
	kp_refused "\$XDG_CONFIG_HOME/kinbox ($ws/cfg/kinbox) lies inside the writable workspace $ws: a command could write its own grants; move XDG_CONFIG_HOME out of the workspace" grant "$ID" --write "$out" --workspace
	assert_not_exists "$(decision_file "$ID")"
	assert_not_exists "$ws/cfg"
	XDG_CONFIG_HOME=$good_cfg
	kp_expect 0 grant "$ID" --write "$out" --once
	XDG_RUNTIME_DIR=$ws/run
	mkdir -p "$XDG_RUNTIME_DIR"
	chmod 700 "$XDG_RUNTIME_DIR"
	rm ran.denial
	kp_refused "\$XDG_RUNTIME_DIR/kinbox ($ws/run/kinbox) lies inside the writable workspace $ws: a command could write its own session grants; move XDG_RUNTIME_DIR out of the workspace" retry "$ID"
	assert_not_exists "$out/f"
	assert_not_exists ran.denial
	assert_not_exists "$XDG_STATE_HOME/kinbox/denials/$ID.retried"
	# decide with a session whose "always" answers lie in the workspace
	kp_expect 0 session new
	S=$(cat "$KP_OUT")
	kp_refused "\$XDG_RUNTIME_DIR/kinbox ($ws/run/kinbox) lies inside the writable workspace $ws: a command could write its own session grants; move XDG_RUNTIME_DIR out of the workspace" decide --mode auto --kind shell --command "rm -rf x" --session "$S"
	# control: the same with the stores elsewhere
	XDG_RUNTIME_DIR=$good_run
	kp_expect 0 retry "$ID"
	assert_exists "$out/f"
	assert_touched "$ws/ran.denial"
}
run_test "kinpolicy grant, retry and decide --session refuse a store that lies in the denial's workspace (125, nothing stored or run); elsewhere they work" t_kp_store_in_workspace

# no_raw_control FILE: no byte below 0x20 but the newline, no DEL
no_raw_control() {
	if LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]')" "$1"; then
		od -c "$1" | sed -n 1,40p >&2
		fail "$1 holds a raw control byte"
	fi
}

# A denial whose path has ESC in it and whose argv has ESC and a newline
# (dash prints both raw): kinbox's line, kinpolicy show and pending print
# them escaped, one line per field
t_kp_show_escaped() {
	setup kpesc
	bad=$(printf 'a\033[2Jb')
	mkdir "$out/$bad"
	zero=$(printf 'name\n\033[8m')
	kb_expect 2 -- sh -c 'echo ran > ran.esc; echo x > "$1"' "$zero" "$out/$bad/f"
	assert_not_exists "$out/$bad/f"
	assert_file_is "$ws/ran.esc" ran
	grep '^kinbox: ' "$KB_ERR" >"$d/kb.lines"
	no_raw_control "$d/kb.lines"
	assert_one_line "$d/kb.lines" "^kinbox: denied write '$out/a\\\\x1b\\[2Jb/f' "
	ID=$(sed -n 's/.*\[\(sbx_[0-9a-f]*\)\]$/\1/p' "$d/kb.lines")
	kp_expect 0 show "$ID"
	no_raw_control "$KP_OUT"
	assert_has_line "$KP_OUT" "command:   sh -c 'echo ran > ran.esc; echo x > \"\$1\"' \$'name\\n\\x1b[8m' \$'$out/a\\x1b[2Jb/f'"
	assert_has_line "$KP_OUT" "path:      $out/a\\x1b[2Jb/f"
	assert_has_line "$KP_OUT" "suggested: --write \$'$out/a\\x1b[2Jb'"
	assert_has_line "$KP_OUT" "source:    the command's stderr: the path, the evidence and so the suggestion are what it printed"
	assert_streq "$(grep -c '' "$KP_OUT")" 10 "show: one line per field"
	kp_expect 0 pending
	no_raw_control "$KP_OUT"
	kp_expect 0 show "$ID" --json
	t=$(jget 'd["time"]' "$KP_OUT")
	kp_expect 0 pending
	assert_has_line "$KP_OUT" "$ID  $t  write   $out/a\\x1b[2Jb/f  in $ws: sh -c 'echo ran > ran.esc; echo x > \"\$1\"' \$'name\\n\\x1b[8m' \$'$out/a\\x1b[2Jb/f'"
	# the JSON keeps the exact bytes (jansson escapes them as JSON does)
	kp_expect 0 show "$ID" --json
	assert_streq "$(jget 'd["path"]' "$KP_OUT")" "$out/$bad/f" "the path in the JSON"
}
run_test "a path with ESC and an argv with ESC and a newline: the denial line, kinpolicy show and pending print them escaped (\\x1b, \\n, \$'...'), one line per field; --json keeps the bytes" t_kp_show_escaped

t_default_locations() {
	setup w8
	out2=$d/out2
	mkdir "$out2"
	export HOME="$d/home"
	mkdir -p "$HOME/.config/kinbox"
	unset XDG_CONFIG_HOME XDG_STATE_HOME
	hcfg=$HOME/.config/kinbox/config.ini
	printf '[sandbox]\nwrite_paths = %s\n' "$out" >"$hcfg"
	cp "$hcfg" "$d/cfg.before"
	# the default config is read, and hidden inside
	kb_expect 0 -- sh -c 'touch "$1/f"; ls -A ~/.config/kinbox; cat ~/.config/kinbox/config.ini 2>/dev/null; echo x >>~/.config/kinbox/config.ini; true' sh "$out"
	assert_exists "$out/f"
	assert_empty "$KB_OUT"
	assert_files_equal "$d/cfg.before" "$hcfg"
	# the journal and the workspace grant at their defaults
	denial "$out2/g"
	assert_exists "$HOME/.local/state/kinbox/denials/$ID.json"
	kp_expect 0 grant "$ID" --write "$out2" --workspace
	assert_has_line "$hcfg" "path = $ws"
	kb_expect 0 -- sh -c 'touch "$1/g"; ls -A ~/.local/state/kinbox ~/.config/kinbox; echo x >~/.local/state/kinbox/planted; true' sh "$out2"
	assert_exists "$out2/g"
	printf '%s:\n\n%s:\n' "$HOME/.config/kinbox" "$HOME/.local/state/kinbox" | sort >"$d/want"
	sort "$KB_OUT" >"$d/got"
	assert_files_equal "$d/want" "$d/got"
	assert_not_exists "$HOME/.local/state/kinbox/planted"
}
run_test "without XDG_CONFIG_HOME/XDG_STATE_HOME: ~/.config/kinbox/config.ini is read, grants and the journal go to ~/.config and ~/.local/state, both appear empty and read-only inside" t_default_locations

# ============================================================================
# 7. grant --suggested, pending's time and cwd, forget and gc
# ============================================================================

# jset FILE KEY JSON-VALUE: sets one key of the JSON object in FILE (the
# test edits a journal record kinbox wrote, as only its owner can)
jset() {
	"$PY" - "$@" <<'EOF'
import json, sys
with open(sys.argv[1], encoding="utf-8") as f:
    d = json.load(f)
v = json.loads(sys.argv[3])
if v is None:
    d.pop(sys.argv[2], None)
else:
    d[sys.argv[2]] = v
with open(sys.argv[1], "w", encoding="utf-8") as f:
    json.dump(d, f)
EOF
}

# record ID: the journal record's file
record() {
	printf '%s\n' "$XDG_STATE_HOME/kinbox/denials/$1.json"
}

t_suggested() {
	setup suggested
	denial "$out/f"
	# the lifetime is still required, and nothing may be added to it
	kp_refused "grant $ID: give a lifetime: --once, --session or --workspace" grant "$ID" --suggested
	kp_refused "grant $ID: --suggested grants what the record suggests and nothing else; give either it or the capabilities" grant "$ID" --suggested --write "$out" --once
	kp_refused "grant $ID: --suggested grants what the record suggests and nothing else; give either it or the capabilities" grant "$ID" --net --suggested --once
	assert_not_exists "$(decision_file "$ID")"
	# exactly the suggestion, named in the output
	kp_expect 0 grant "$ID" --suggested --once
	assert_file_is "$KP_OUT" "granted $ID (once): --write $out"
	assert_streq "$(jget '[d["decision"], d["lifetime"], d["write_paths"], d["network"]]' "$(decision_file "$ID")")" \
		"[\"granted\", \"once\", [\"$out\"], false]" "the decision"
	cd /
	kp_expect 0 retry "$ID"
	assert_exists "$out/f"
	cd "$ws"
	# a session grant of it, in JSON; the run with the session writes
	out2=$d/out2
	mkdir "$out2"
	KINBOX_SESSION=$("$KP" session new)
	export KINBOX_SESSION
	denial "$out2/g"
	kp_expect 0 grant "$ID" --suggested --session --json
	assert_streq "$(jget '[d["schema"], d["decision"], d["lifetime"], d["write_paths"]]' "$KP_OUT")" \
		"[1, \"granted\", \"session\", [\"$out2\"]]" "grant --suggested --json"
	assert_has_line "$XDG_RUNTIME_DIR/kinbox/sessions/$KINBOX_SESSION.ini" "write_paths = $out2"
	kb_expect 0 -- touch "$out2/g"
	assert_exists "$out2/g"
}
run_test "grant ID --suggested --once grants the record's write root (retry writes OUT/f), --session stores it (the next run writes); a lifetime is required, no capability beside it" t_suggested

t_suggested_refused() {
	setup sugno
	# nothing suggested (a record whose suggest object is all off)
	denial "$out/f"
	jset "$(record "$ID")" suggest '{"write_paths": [], "network": false, "ssh_agent": false, "unconfined": false}'
	kp_refused "grant $ID --suggested: the record suggests nothing to grant; see kinpolicy show $ID" grant "$ID" --suggested --once
	# --unconfined suggested: never taken from a record
	jset "$(record "$ID")" suggest '{"write_paths": [], "network": false, "ssh_agent": false, "unconfined": true}'
	kp_refused "grant $ID --suggested: the record suggests --unconfined (no sandbox), which rests on nothing but the command's stderr; --suggested never grants it: give --unconfined yourself if you mean it" grant "$ID" --suggested --once
	assert_not_exists "$(decision_file "$ID")"
	# the suggested root is gone
	denial "$out/g"
	mv "$out" "$d/real-out"
	kp_refused "grant $ID --suggested: --write $out: no such directory; create it first or fix the path" grant "$ID" --suggested --once
	# ... or is a symlink to another directory now: not what was named
	ln -s "$d/real-out" "$out"
	kp_refused "grant $ID --suggested: the suggested root $out is $d/real-out now; grant --write $d/real-out yourself if that is meant" grant "$ID" --suggested --once
	assert_not_exists "$(decision_file "$ID")"
	# ... or a root kinbox refuses (the home directory)
	rm "$out"
	jset "$(record "$ID")" suggest "{\"write_paths\": [\"$HOME\"], \"network\": false, \"ssh_agent\": false, \"unconfined\": false}"
	kp grant "$ID" --suggested --once
	assert_streq "$KP_RC" 125 "a suggested home directory"
	assert_one_line "$KP_ERR" "^kinpolicy: grant $ID --suggested: --write "
	assert_not_exists "$(decision_file "$ID")"
	# the control: the same record with a good root is granted
	jset "$(record "$ID")" suggest "{\"write_paths\": [\"$d/real-out\"], \"network\": false, \"ssh_agent\": false, \"unconfined\": false}"
	kp_expect 0 grant "$ID" --suggested --once
	assert_file_is "$KP_OUT" "granted $ID (once): --write $d/real-out"
}
run_test "grant --suggested refused (125, nothing decided): a record that suggests nothing or --unconfined, a suggested root that is gone, a symlink elsewhere now, or the home directory" t_suggested_refused

t_pending_time_cwd() {
	setup pend
	mkdir "$ws/sub"
	cd "$ws/sub"
	denial "$out/a"
	ida=$ID
	cd "$ws"
	denial "$out/b"
	idb=$ID
	# oldest first, by the record's time
	jset "$(record "$ida")" time '"2099-01-01T00:00:00Z"'
	kp_expect 0 pending --json
	cp "$KP_OUT" "$d/p.json"
	assert_streq "$(jget '[d["schema"]] + [(r["id"], r["cwd"]) for r in d["pending"]]' "$d/p.json")" \
		"[1, [\"$idb\", \"$ws\"], [\"$ida\", \"$ws/sub\"]]" "pending --json"
	assert_streq "$(jget 'd["pending"][1]["time"]' "$d/p.json")" 2099-01-01T00:00:00Z "the time"
	kp_expect 0 pending
	assert_streq "$(sed -n 2p "$KP_OUT")" \
		"$ida  2099-01-01T00:00:00Z  write   $out/a  in $ws/sub: touch ran.denial $out/a" "pending, second line"
	jset "$(record "$ida")" time '"2001-01-01T00:00:00Z"'
	kp_expect 0 pending
	assert_streq "$(sed -n 1p "$KP_OUT")" \
		"$ida  2001-01-01T00:00:00Z  write   $out/a  in $ws/sub: touch ran.denial $out/a" "pending, first line"
	# a decided one is not pending
	kp_expect 0 decline "$ida" --note no --json
	assert_file_is "$KP_OUT" '{"schema":1,"decision":"declined","note":"no"}'
	kp_expect 0 pending --json
	assert_streq "$(jget '[r["id"] for r in d["pending"]]' "$KP_OUT")" "[\"$idb\"]" "pending after a decline"
	# no journal at all: nothing pending
	XDG_STATE_HOME=$d/nostate
	kp_expect 0 pending --json
	assert_file_is "$KP_OUT" '{"schema":1,"pending":[]}'
	assert_not_exists "$d/nostate"
}
run_test "pending shows each denial's time and cwd (text and --json, schema 1), oldest first; a declined one goes; no journal: empty, nothing created" t_pending_time_cwd

t_forget() {
	setup forget
	denial "$out/a"
	ida=$ID
	denial "$out/b"
	idb=$ID
	kp_expect 0 grant "$ida" --write "$out" --once
	assert_exists "$(decision_file "$ida")"
	kp_expect 0 forget "$ida"
	assert_file_is "$KP_OUT" "forgot $ida"
	assert_not_exists "$(record "$ida")"
	assert_not_exists "$(decision_file "$ida")"
	kp_refused "no denial $ida in the journal ($(record "$ida"): No such file or directory); see kinpolicy pending" show "$ida"
	kp_refused "no denial $ida in the journal ($(record "$ida"): No such file or directory); see kinpolicy pending" retry "$ida"
	assert_not_exists "$out/a"
	kp_refused "no denial $ida in the journal; see kinpolicy pending" forget "$ida"
	# the other one is untouched (the control)
	kp_expect 0 show "$idb"
	assert_has_line "$KP_OUT" "denial:    $idb (pending)"
	kp_expect 0 forget "$idb" --json
	assert_file_is "$KP_OUT" "{\"schema\":1,\"forgotten\":[\"$idb\"]}"
	kp_expect 0 pending
	assert_empty "$KP_OUT"
	# a symlink named like a record: never followed, never removed
	echo keep >"$d/target"
	S=sbx_5e5e5e5e5e5e5e5e
	ln -s "$d/target" "$XDG_STATE_HOME/kinbox/denials/$S.json"
	kp forget "$S"
	assert_streq "$KP_RC" 125 "forget of a symlink"
	assert_file_is "$KP_ERR" "kinpolicy: $XDG_STATE_HOME/kinbox/denials/$S.json: not a regular file, left alone"
	assert_file_is "$d/target" keep
	[ -L "$XDG_STATE_HOME/kinbox/denials/$S.json" ] || fail "the symlink was removed"
	kp_expect 0 pending
	assert_empty "$KP_OUT"
	kp show "$S"
	assert_streq "$KP_RC" 125 "show of a symlinked record"
	assert_not_file_has_content "$KP_OUT" keep
}
run_test "forget ID removes the record and its decision (show/retry then: no denial), the other denial stays; a symlink named like a record is neither followed nor removed" t_forget

t_gc() {
	setup gc
	# no journal yet: nothing to do, nothing created
	(
		XDG_STATE_HOME=$d/nostate
		kp_expect 0 gc --older-than 0s --json
		assert_file_is "$KP_OUT" '{"schema":1,"forgotten":[]}'
	)
	assert_not_exists "$d/nostate"
	old=$(date -u -d '10 days ago' +%Y-%m-%dT%H:%M:%SZ)
	denial "$out/a"
	OLDP=$ID
	jset "$(record "$ID")" time "\"$old\""
	denial "$out/b"
	NEWP=$ID
	denial "$out/c"
	OLDD=$ID
	jset "$(record "$ID")" time "\"$old\""
	kp_expect 0 decline "$ID" --note old
	denial "$out/d"
	NEWD=$ID
	kp_expect 0 grant "$ID" --write "$out" --once
	# a record without a time: its file's age counts
	denial "$out/e"
	NOTIME=$ID
	jset "$(record "$ID")" time null
	touch -d '10 days ago' "$(record "$ID")"
	# leftovers without a record
	O=sbx_0123012301230123
	printf '{}' >"$XDG_STATE_HOME/kinbox/denials/$O.decision.json"
	: >"$XDG_STATE_HOME/kinbox/denials/$O.retried"
	# a week: the three old ones go, pending or not
	kp_expect 0 gc --older-than 7d
	sort "$KP_OUT" >"$d/got"
	printf 'forgot %s\n' "$OLDP" "$OLDD" "$NOTIME" | sort >"$d/want"
	assert_files_equal "$d/want" "$d/got"
	for i in "$OLDP" "$OLDD" "$NOTIME"; do
		assert_not_exists "$(record "$i")"
	done
	assert_not_exists "$(decision_file "$OLDD")"
	assert_not_exists "$(decision_file "$O")"
	assert_not_exists "$XDG_STATE_HOME/kinbox/denials/$O.retried"
	for i in "$NEWP" "$NEWD"; do
		assert_exists "$(record "$i")"
	done
	# decided: the granted one, not the pending one
	kp_expect 0 gc --decided --json
	assert_file_is "$KP_OUT" "{\"schema\":1,\"forgotten\":[\"$NEWD\"]}"
	assert_not_exists "$(decision_file "$NEWD")"
	kp_expect 0 gc --decided --older-than 0s
	assert_empty "$KP_OUT"
	kp_expect 0 pending
	assert_file_has_content "$KP_OUT" "^$NEWP  "
	# an entry that is not a regular file: named, left, the rest done
	echo keep >"$d/target"
	S=sbx_5e5e5e5e5e5e5e5e
	ln -s "$d/target" "$XDG_STATE_HOME/kinbox/denials/$S.json"
	touch -h -d '10 days ago' "$XDG_STATE_HOME/kinbox/denials/$S.json"
	kp gc --older-than 0s
	assert_streq "$KP_RC" 125 "gc over a symlinked record"
	assert_file_is "$KP_OUT" "forgot $NEWP"
	assert_file_is "$KP_ERR" "kinpolicy: $XDG_STATE_HOME/kinbox/denials/$S.json: not a regular file, left alone"
	assert_file_is "$d/target" keep
	[ -L "$XDG_STATE_HOME/kinbox/denials/$S.json" ] || fail "the symlink was removed"
	assert_not_exists "$(record "$NEWP")"
}
run_test "gc --older-than 7d removes old records (by their time, else the file's), pending or decided, and leftovers; --decided the answered ones; a symlinked entry is named and left (125), the rest done" t_gc

# kinpolicy --help prints the verb table's usage lines; the man page's
# SYNOPSIS must say the same (the metavariables in lower case there)
t_kp_usage_man() {
	man=$KB_TESTS_DIR/../man/kinpolicy.1
	[ -f "$man" ] || skip_other_pass "the man page is not beside this copy of the tests"
	require groff
	d=$(newdir usage-man)
	kp_expect 0 --help
	sed -n 's/^  kinpolicy //p' "$KP_OUT" | tr 'A-Z' 'a-z' | sort >"$d/help"
	[ "$(wc -l <"$d/help")" -ge 15 ] || fail "kinpolicy --help lists $(wc -l <"$d/help") verbs"
	LC_ALL=C groff -man -Tascii -rLL=2000n -P-cbou "$man" 2>"$d/groff.err" |
		sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' | sed -n 's/^ *kinpolicy //p' |
		grep -v '^\[--help' | tr 'A-Z' 'a-z' |
		sed 's/  */ /g; s/ *$//' | sort >"$d/man"
	assert_files_equal "$d/help" "$d/man"
}
run_test "kinpolicy --help and the SYNOPSIS of kinpolicy(1) list the same verbs with the same options" t_kp_usage_man

# ============================================================================
# 8. kinpolicy's bad input
# ============================================================================

t_kp_bad_input() {
	setup kpbad
	denial "$out/f"
	kp_refused "no verb given; see kinpolicy --help"
	kp_refused "unknown verb 'nosuchverb'; see kinpolicy --help" nosuchverb
	kp_refused "'notanid' is not a denial id (sbx_ and 16 hex digits); see kinpolicy pending" show notanid
	kp_refused "'sbx_123' is not a denial id (sbx_ and 16 hex digits); see kinpolicy pending" show sbx_123
	kp_refused "'../x' is not a denial id (sbx_ and 16 hex digits); see kinpolicy pending" retry ../x
	nodenial="no denial sbx_0000000000000000 in the journal ($XDG_STATE_HOME/kinbox/denials/sbx_0000000000000000.json: No such file or directory); see kinpolicy pending"
	kp_refused "$nodenial" show sbx_0000000000000000
	kp_refused "$nodenial" retry sbx_0000000000000000
	notty="grant $ID: name the capabilities (--write DIR, --net, --ssh-agent, --allow-socket PATH, --allow-host HOST[:PORT], --unconfined) and a lifetime; a question is only asked on a terminal"
	kp_refused "$notty" grant "$ID"
	kp_refused "$notty" grant "$ID" --once
	kp_refused "grant $ID: give a lifetime: --once, --session or --workspace" grant "$ID" --write "$out"
	kp_refused "give one lifetime: --once, --session or --workspace" grant "$ID" --write "$out" --once --session
	kp_refused "grant: unknown option '--bogus'; see kinpolicy --help" grant "$ID" --bogus --once
	kp_refused "--write $d/missing: no such directory; create it first or fix the path" grant "$ID" --write "$d/missing" --once
	kp_refused "usage: kinpolicy grant ID [--write DIR]... [--net] [--ssh-agent] [--allow-socket PATH]... [--allow-host HOST[:PORT]]... [--device PATH]... [--gpu] [--unconfined] [--suggested] --once|--session|--workspace [--json]" grant
	kp_refused "usage: kinpolicy decline ID --note TEXT [--json]" decline "$ID"
	kp_refused "usage: kinpolicy decline ID --note TEXT [--json]" decline "$ID" --note
	kp_refused "usage: kinpolicy show ID [--json]" show
	kp_refused "usage: kinpolicy retry ID" retry
	kp_refused "usage: kinpolicy session new [--json]" session
	kp_refused "usage: kinpolicy session new [--json]" session old
	kp_refused "usage: kinpolicy pending [--json]" pending extra
	kp_refused "usage: kinpolicy grants [--json]" grants extra
	kp_refused "revoke 0: too small; give N from kinpolicy grants, or --all" revoke 0
	kp_refused "revoke x: invalid; give N from kinpolicy grants, or --all" revoke x
	kp_refused "revoke -1: too small; give N from kinpolicy grants, or --all" revoke -1
	kp_refused "no grant 1; see kinpolicy grants" revoke 1
	kp_refused "usage: kinpolicy revoke N|--all [--json]" revoke
	kp_refused "usage: kinpolicy forget ID [--json]" forget
	kp_refused "usage: kinpolicy forget ID [--json]" forget "$ID" extra
	kp_refused "'x' is not a denial id (sbx_ and 16 hex digits); see kinpolicy pending" forget x
	kp_refused "no denial sbx_0000000000000000 in the journal; see kinpolicy pending" forget sbx_0000000000000000
	kp_refused "gc: say what goes: --older-than DURATION, --decided or both" gc
	kp_refused "gc: unexpected argument 'x'; to remove one denial, kinpolicy forget ID" gc --decided x
	kp_refused "gc: unknown option '--bogus'; see kinpolicy --help" gc --bogus
	kp_refused "option --older-than needs a value; see kinpolicy --help" gc --older-than
	kp_refused "gc: give --older-than once" gc --older-than 1d --older-than 2d
	for dur in 7 7w 1h30m -1d 1.5h ' 7d' 7D d ''; do
		kp_refused "--older-than $dur: not a duration; give a number and one unit, s, m, h or d (30m, 12h, 7d)" gc --older-than "$dur"
	done
	kp_refused "--older-than 36501d: longer than 100 years; give a number and one unit, s, m, h or d (30m, 12h, 7d)" gc --older-than 36501d
	# the denial is still there, undecided
	assert_exists "$XDG_STATE_HOME/kinbox/denials/$ID.json"
	# none of it decided anything
	assert_not_exists "$(decision_file "$ID")"
	assert_not_exists "$CFG"
	kp_expect 0 --help
	assert_has_text "$KP_OUT" "kinpolicy grant ID"
}
run_test "kinpolicy bad input → 125 with its one line: no verb, unknown verb, show notanid/absent id, grant without lifetime (not a tty) or capabilities, revoke 0/x/-1/1, usage errors" t_kp_bad_input

done_testing
