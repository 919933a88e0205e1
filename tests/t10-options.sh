#!/bin/sh
# tests/t10-options.sh — the option vocabulary (issue 10): sources apply in
# rank order through one setter, messages name what the user typed or the
# file:line that said it, writers stay within the one INI reader's limits,
# and kinpolicy's --json never eats the judged command's words. Each test
# failed before the option table (the four bugs of issue 10) or pins a
# message; each checks an effect from outside, with a positive control.
#
# --allow-socket (section 6) is plumbed the same way, end to end: flag,
# config, grant store, --dry-run, the mount, the refusals.
#
# Run: sh tests/t10-options.sh (TAP), or all suites: sh tests/run-integration.sh

. "$(dirname "$0")/lib.sh"

KP=$KINPOLICY
XDG_CONFIG_HOME=$KB_T/config
XDG_STATE_HOME=$KB_T/state
XDG_RUNTIME_DIR=$KB_T/run
mkdir -p "$XDG_CONFIG_HOME" "$XDG_STATE_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
export XDG_CONFIG_HOME XDG_STATE_HOME XDG_RUNTIME_DIR
unset KINBOX_SESSION KINBOX_JSON_FD SSH_AUTH_SOCK SSH_AGENT_PID || true

if [ ! -x "$KINBOX" ] || [ ! -x "$KP" ]; then
	tap_not_ok "kinbox and kinpolicy exist ($KINBOX, $KP; build them: make all)"
	done_testing
fi
mkdir "$KB_T/preflight"
if ! (cd "$KB_T/preflight" && "$KINBOX" -- true) >"$KB_T/preflight.log" 2>&1; then
	diag "$(cat "$KB_T/preflight.log")"
	skip_all "kinbox cannot set up a sandbox on this host"
fi

# new_session: a fresh session id in $S, its file in $SF
new_session() {
	S=$("$KP" session new) || fail "kinpolicy session new failed"
	SF=$XDG_RUNTIME_DIR/kinbox/sessions/$S.ini
	[ -f "$SF" ] || fail "no session file $SF"
}

# --- 1. a grant permits, a flag asks ----------------------------------------

t_ssh_grant_no_net() {
	ws=$(newdir ws1)
	new_session
	printf '[grant]\nssh_agent = on\n' >>"$SF"
	cd "$ws"
	KINBOX_SESSION=$S kb_expect 0 --no-net -- sh -c \
		'echo ran >ctl; echo "${SSH_AUTH_SOCK:-none}" >sock'
	assert_file_has_content "$ws/ctl" '^ran$'
	assert_file_has_content "$ws/sock" '^none$'
	assert_not_file_has_content "$KB_ERR" 'ssh-agent'
	KINBOX_SESSION=$S kb_expect 0 --no-net --dry-run -- true
	assert_file_has_content "$KB_OUT" \
		"^# config: ssh agent: the grant of $SF:2 is not used: the network is off \\(--no-net\\)$"
	assert_file_has_content "$KB_OUT" '^# network: off, loopback only \(flag\)$'
	assert_file_has_content "$KB_OUT" '^# network set by: --no-net$'
}
run_test "a session grant ssh_agent = on with --no-net: runs, no agent, no message naming --ssh-agent; --dry-run says why" t_ssh_grant_no_net

t_ssh_grant_no_agent() {
	ws=$(newdir ws2)
	new_session
	printf '[grant]\nssh_agent = on\n' >>"$SF"
	cd "$ws"
	KINBOX_SESSION=$S kb_expect 0 -- sh -c 'echo ran >ctl'
	assert_file_has_content "$ws/ctl" '^ran$'
	[ ! -s "$KB_ERR" ] || fail "stderr: $(cat "$KB_ERR")"
}
run_test "a session grant ssh_agent = on and no agent running: runs (the grant only permits)" t_ssh_grant_no_agent

t_ssh_flag_no_net() {
	ws=$(newdir ws3)
	cd "$ws"
	kb_expect 125 --ssh-agent --no-net -- sh -c 'echo ran >ctl'
	assert_one_kinbox_line "$KB_ERR" \
		'^kinbox: --ssh-agent needs the network, and --no-net turns it off; drop one of the two$'
	assert_not_exists "$ws/ctl"
	kb_expect 125 --ssh-agent -- sh -c 'echo ran >ctl'
	assert_one_kinbox_line "$KB_ERR" \
		'^kinbox: --ssh-agent needs --net: the agent is only useful to reach a remote host; add --net$'
	assert_not_exists "$ws/ctl"
	kb_expect 0 --net -- sh -c 'echo ran >ctl'
	assert_file_has_content "$ws/ctl" '^ran$'
}
run_test "--ssh-agent --no-net: 125 naming both flags; --ssh-agent alone: add --net; nothing ran (control: --net runs)" t_ssh_flag_no_net

# --- 2. writers within the reader's limits ----------------------------------

t_long_always() {
	ws=$(newdir ws4)
	new_session
	long="git log --format=$(printf '%0300d' 0 | tr 0 x)"
	semi="cat a.txt ; pwd # $(printf '%0250d' 0 | tr 0 y)"
	blank="  ls -l  "
	for sig in "$long" "$semi" "$blank"; do
		"$KP" allow --session "$S" --signature "$sig" >"$KB_T/allow.out" ||
			fail "kinpolicy allow failed: $(cat "$KB_T/allow.out")"
	done
	while IFS= read -r line; do
		[ ${#line} -le 198 ] || fail "a session file line of ${#line} bytes: $line"
	done <"$SF"
	cd "$ws"
	KINBOX_SESSION=$S kb_expect 0 -- sh -c 'echo ran >ctl'
	assert_file_has_content "$ws/ctl" '^ran$'
	KINBOX_SESSION=$S "$KP" decide --mode strict --kind shell \
		--command "$long" >"$KB_T/d1" || fail "decide failed"
	assert_file_has_content "$KB_T/d1" '^ALLOW$'
	assert_file_has_content "$KB_T/d1" '^rule: session-always$'
	# the same prefix, another tail: not covered
	KINBOX_SESSION=$S "$KP" decide --mode strict --kind shell \
		--command "${long}z" >"$KB_T/d2" || fail "decide failed"
	assert_file_has_content "$KB_T/d2" '^ASK$'
	"$KP" grants >"$KB_T/grants" || fail "kinpolicy grants failed"
}
run_test "kinpolicy allow with 300-byte, ';'/'#' and blank-padded signatures: every line fits the reader, kinbox still runs, the exact answer allows, a longer one asks" t_long_always

t_long_write_grant() {
	ws=$(newdir ws5)
	deep=$KB_T/$(printf '%0190d' 0 | tr 0 d)
	mkdir -p "$deep"
	cd "$ws"
	kb_expect 2 --json-fd 3 -- sh -c "echo ran >ctl; echo x >'$deep/f'" 3>"$KB_T/rec.json"
	assert_file_has_content "$ws/ctl" '^ran$'
	id=$(sed -n 's/.*"id":"\(sbx_[0-9a-f]*\)".*/\1/p' "$KB_T/rec.json")
	[ -n "$id" ] || fail "no denial record: $(cat "$KB_ERR")"
	new_session
	KINBOX_SESSION=$S "$KP" grant "$id" --write "$deep" --session \
		>"$KB_T/g.out" 2>"$KB_T/g.err" && fail "a grant no reader could read back was stored"
	assert_file_has_content "$KB_T/g.err" \
		"^kinpolicy: --write $deep: a path with ';', '#', a control byte \\(a tab, a line break\\) or surrounding blanks, or longer than 184 bytes, cannot be stored; use --once$"
	KINBOX_SESSION=$S kb_expect 0 -- sh -c 'echo again >ctl'
	assert_file_has_content "$ws/ctl" '^again$'
}
run_test "kinpolicy grant --session of a root too long for a store line: refused naming the limit, the session still works" t_long_write_grant

# --- 3. kinpolicy's --json never eats the command's words -------------------

t_classify_json_after_dashdash() {
	"$KP" classify -- grep --json foo >"$KB_T/c1" || fail "classify failed"
	assert_not_file_has_content "$KB_T/c1" '^{'
	assert_file_has_content "$KB_T/c1" '^signature: '
	"$KP" classify --json -- grep --json foo >"$KB_T/c2" || fail "classify failed"
	assert_file_has_content "$KB_T/c2" '^{"schema":1,"safe":'
	# the judged command is the one given: rm --json is not made "rm"
	"$KP" classify -- echo --json >"$KB_T/c3" || fail "classify failed"
	"$KP" classify --command 'echo --json' >"$KB_T/c4" || fail "classify failed"
	assert_files_equal "$KB_T/c3" "$KB_T/c4"
	"$KP" decline sbx_0123456789abcdef --note --json >"$KB_T/c5" 2>&1 || true
	assert_file_has_content "$KB_T/c5" '^kinpolicy: no denial sbx_0123456789abcdef in the journal'
}
run_test "kinpolicy classify -- grep --json foo judges that command in text form; --json before -- still works; --note --json is a note" t_classify_json_after_dashdash

# --- 4. a project's network = off and --net ---------------------------------

t_project_off_net() {
	ws=$(newdir ws6)
	printf '[sandbox]\nnetwork = off\n' >"$ws/.kinbox.ini"
	cd "$ws"
	# the project's tightening wins over a typed --net (t50 pins that);
	# --dry-run says so
	kb_expect 0 --net --dry-run -- true
	assert_file_has_content "$KB_OUT" '^# network: off, loopback only \(project tightening\)$'
	assert_file_has_content "$KB_OUT" \
		"^# config: network: off by $ws/.kinbox.ini:2 \\(network = off\\); --net does not lift a project file's tightening$"
	kb_expect 7 --net --json-fd 3 -- sh -c 'echo ran >ctl
		echo "curl: (7) Failed to connect to example.com port 443: Network is unreachable" >&2
		exit 7' 3>"$KB_T/rec.json"
	assert_file_has_content "$ws/ctl" '^ran$'
	assert_not_file_has_content "$KB_ERR" 'retry with --net'
	assert_file_has_content "$KB_ERR" \
		"^kinbox: denied network to example.com \\(no network, read from the command's stderr\\); the network is off by $ws/.kinbox.ini:2 \\(network = off in the project file\\), which no flag or grant lifts  \\[sbx_[0-9a-f]*\\]$"
	python3 - "$KB_T/rec.json" <<'EOF' || fail "record: $(cat "$KB_T/rec.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["flags"]["network"] is True, r["flags"]    # what was typed
assert r["policy"]["network"] is False, r["policy"] # what held
assert r["suggest"]["network"] is False, r["suggest"]
EOF
	assert_file_has_content "$KB_T/rec.json" "\"network_off_by\":\"$ws/.kinbox.ini:2\""
	id=$(sed -n 's/.*"id":"\(sbx_[0-9a-f]*\)".*/\1/p' "$KB_T/rec.json")
	"$KP" grant "$id" --net --once >"$KB_T/g.out" 2>"$KB_T/g.err" &&
		fail "a --net grant that cannot help was recorded"
	assert_file_has_content "$KB_T/g.err" \
		"^kinpolicy: grant $id: the network of that run is off by $ws/.kinbox.ini:2 \\(network = off in the project file\\), which no grant lifts; remove that line from the project file instead$"
}
run_test "project network = off + --net: off (--dry-run names the file:line); a network denial there suggests no --net, the record keeps flags.network true, and kinpolicy grant --net is refused (no dead-end loop)" t_project_off_net

t_flags_record_typed() {
	ws=$(newdir ws-typed)
	out=$(newdir out-typed)
	cd "$ws"
	# a real write outside the workspace, refused by the sandbox
	kb_expect 1 --net --json-fd 3 -- sh -c 'echo ran >ctl; touch "$1/f"' \
		sh "$out" 3>"$KB_T/rec.json"
	assert_file_has_content "$ws/ctl" '^ran$'
	assert_not_exists "$out/f"
	python3 - "$KB_T/rec.json" <<'EOF' || fail "record: $(cat "$KB_T/rec.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["flags"]["network"] is True, r["flags"]
assert r["policy"]["network"] is True, r["policy"]
assert r["flags"]["ssh_agent"] is False, r["flags"]
EOF
}
run_test "the JSON record's flags say what was typed (--net: flags.network true), policy what held" t_flags_record_typed

# --- 5. messages name the source ---------------------------------------------

t_config_error_names_line() {
	ws=$(newdir ws8)
	mkdir -p "$XDG_CONFIG_HOME/kinbox"
	printf '[sandbox]\nnetwork = maybe\n' >"$XDG_CONFIG_HOME/kinbox/config.ini"
	cd "$ws"
	kb_expect 125 -- sh -c 'echo ran >ctl'
	assert_one_kinbox_line "$KB_ERR" \
		"^kinbox: $XDG_CONFIG_HOME/kinbox/config.ini:2: network = maybe: not on or off; write on or off$"
	assert_not_exists "$ws/ctl"
	printf '[sandbox]\nwrite_paths = relative/dir\n' >"$XDG_CONFIG_HOME/kinbox/config.ini"
	kb_expect 125 -- sh -c 'echo ran >ctl'
	assert_one_kinbox_line "$KB_ERR" \
		"^kinbox: $XDG_CONFIG_HOME/kinbox/config.ini:2: write_paths = relative/dir: not an absolute path; write /path or ~/path$"
	assert_not_exists "$ws/ctl"
	rm "$XDG_CONFIG_HOME/kinbox/config.ini"
	kb_expect 0 -- sh -c 'echo ran >ctl'
	assert_file_has_content "$ws/ctl" '^ran$'
}
run_test "a bad config value names file:line and the key as written (not a flag); without it the run works" t_config_error_names_line

t_help_from_table() {
	kb_expect 0 --help
	cp "$KB_OUT" "$KB_T/help"
	for f in --write --workspace --directory --net --no-net --backend --ssh-agent \
		--allow-socket --allow-host --keep-env --keep-fd --unconfined --json-fd --dry-run --quiet \
		--verbose --status --help --version; do
		grep -q -- "$f" "$KB_T/help" || fail "--help does not list $f"
		kb "$f" 2>/dev/null </dev/null || true
		assert_not_file_has_content "$KB_ERR" "unknown option"
	done
	kb_expect 125 --wrte x -- true
	assert_one_kinbox_line "$KB_ERR" "^kinbox: unknown option '--wrte'; see kinbox --help$"
	kb_expect 125 --workspace . --workspace . -- true
	assert_one_kinbox_line "$KB_ERR" '^kinbox: --workspace given twice; give one workspace$'
}
run_test "--help lists every flag of the table and each is accepted; a misspelt flag and a repeated --workspace are refused by name" t_help_from_table

t_root_in_mask() {
	ws=$(newdir ws11)
	h=$(newdir home11)
	mkdir -p "$h/.config/gh/proj" "$h/.aws"
	echo token >"$h/.config/gh/hosts.yml"
	cd "$h/.config/gh/proj"
	HOME=$h kb_expect 125 -- sh -c 'echo ran >ctl'
	assert_kinbox_said "$KB_ERR" "kinbox: workspace $h/.config/gh/proj: it lies in $h/.config/gh, which kinbox hides in every sandbox (a credential store): the command would find it empty and could write nothing there; pick a directory outside it"
	assert_not_exists "$h/.config/gh/proj/ctl"
	cd "$ws"
	HOME=$h kb_expect 125 -w "$h/.aws" -- sh -c 'echo ran >ctl'
	assert_kinbox_said "$KB_ERR" "kinbox: --write $h/.aws: it lies in $h/.aws, which kinbox hides in every sandbox (a credential store): the command would find it empty and could write nothing there; pick a directory outside it"
	assert_not_exists "$ws/ctl"
	HOME=$h kb_expect 0 -- sh -c 'echo ran >ctl'
	assert_file_has_content "$ws/ctl" '^ran$'
}
run_test "a workspace or --write root inside a hidden credential store (~/.config/gh, ~/.aws): 125 naming the store, nothing ran (control: elsewhere it runs)" t_root_in_mask

# --- 6. --allow-socket: a grant of one host socket ---------------------------

# python3: the system one when there is one (a pyenv shim depends on HOME)
PY=python3
if [ -x /usr/bin/python3 ]; then
	PY=/usr/bin/python3
fi
mkdir -p "$KB_T/bin"
# sockserve.py SOCK LOG: a unix socket server; each client's first words
# are appended to LOG (written outside every sandbox: the proof that a
# connection reached it), answered with "pong"
cat >"$KB_T/bin/sockserve.py" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(8)
while True:
    c, _ = s.accept()
    with open(sys.argv[2], "ab") as f:
        f.write(c.recv(100) + b"\n")
    c.sendall(b"pong\n")
    c.close()
EOF
# sockping.py SOCK WORD: connects, sends WORD, prints the answer
cat >"$KB_T/bin/sockping.py" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(sys.argv[2].encode())
print(s.recv(100).decode().strip())
EOF
chmod -R a+rX "$KB_T/bin"

# sock_server SOCK LOG: sockserve.py in the background until the script ends
sock_server() {
	have "$PY" || skip_test "python3 is not installed"
	"$PY" "$KB_T/bin/sockserve.py" "$1" "$2" &
	bg_register $!
	poll_for "$1" || fail "the socket server did not start at $1"
}

# sock_file SOCK: a socket nobody listens on (bound, closed)
sock_file() {
	"$PY" -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$1"
}

t_allow_socket_refused() {
	have "$PY" || skip_test "python3 is not installed"
	ws=$(newdir ws-as1)
	svc=$(newdir svc-as1)
	echo plain >"$svc/plain"
	mkdir -p "$ws/run/deep"
	sock_file "$svc/s"
	sock_file "$ws/run/deep/own.sock"
	# a link in the workspace to a host socket, as the command could
	# have planted it; and a human's link outside that passes it
	ln -s "$svc/s" "$ws/out-link"
	ln -s "$ws/out-link" "$svc/via-ws"
	cd "$ws"
	kb_expect 125 --allow-socket /nonexistent/kb.sock -- sh -c 'echo ran >ctl'
	assert_kinbox_said "$KB_ERR" "kinbox: --allow-socket /nonexistent/kb.sock: no such socket; start the service first, or drop --allow-socket"
	kb_expect 125 --allow-socket "$svc/plain" -- sh -c 'echo ran >ctl'
	assert_kinbox_said "$KB_ERR" "kinbox: --allow-socket $svc/plain: not a socket (a regular file); give the path of a unix socket, or drop --allow-socket"
	kb_expect 125 --allow-socket run/deep/own.sock -- sh -c 'echo ran >ctl'
	assert_kinbox_said "$KB_ERR" "kinbox: --allow-socket run/deep/own.sock: inside a writable root; the command's own sockets need no grant — drop it"
	kb_expect 125 --allow-socket out-link -- sh -c 'echo ran >ctl'
	assert_kinbox_said "$KB_ERR" "kinbox: --allow-socket out-link: inside a writable root; the command's own sockets need no grant — drop it"
	kb_expect 125 --allow-socket "$svc/via-ws" -- sh -c 'echo ran >ctl'
	assert_kinbox_said "$KB_ERR" "kinbox: --allow-socket $svc/via-ws: the symbolic link $ws/out-link on its way lies inside a writable root, where the command could have planted it; give the socket's own path"
	kb_expect 125 -w "$svc" --allow-socket "$svc/s" -- sh -c 'echo ran >ctl'
	assert_kinbox_said "$KB_ERR" "kinbox: --allow-socket $svc/s: inside a writable root; the command's own sockets need no grant — drop it"
	assert_not_exists "$ws/ctl"
	# the 17th
	set --
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17; do
		set -- "$@" --allow-socket "$svc/s$i"
	done
	kb_expect 125 "$@" -- sh -c 'echo ran >ctl'
	assert_kinbox_said "$KB_ERR" "kinbox: --allow-socket $svc/s17: too many granted sockets (at most 16); grant only those the command needs"
	assert_not_exists "$ws/ctl"
	# control: the host socket by its own path runs
	kb_expect 0 --allow-socket "$svc/s" -- sh -c 'echo ran >ctl'
	assert_file_has_content "$ws/ctl" '^ran$'
}
run_test "--allow-socket of a missing path, a regular file, the command's own socket, a link in the workspace (also reached through a link outside), a socket in a --write root, a 17th: 125, one line each, nothing ran (control: a host socket runs)" t_allow_socket_refused

t_allow_socket_granted() {
	ws=$(newdir ws-as2)
	svc=$XDG_RUNTIME_DIR/svc-as2 # the runtime dir is hidden inside
	mkdir -p "$svc"
	sock_server "$svc/s" "$KB_T/as2.log"
	ln -s s "$svc/current"
	cd "$ws"
	kb_expect 0 --dry-run --allow-socket "$svc/current" -- true
	assert_file_has_content "$KB_OUT" "^# mask: $XDG_RUNTIME_DIR \\(hidden: empty directory \\(host sockets\\)\\)$"
	assert_file_has_content "$KB_OUT" "^# mask: $svc/s \\(granted socket \\(--allow-socket\\)\\)$"
	assert_file_has_content "$KB_OUT" "^# socket: $svc/s \\(granted by flag\\)$"
	assert_file_has_content "$KB_OUT" '^# socket set by: --allow-socket$'
	tr '\n' ' ' <"$KB_OUT" | grep -q -- "--bind $svc/s $svc/s " ||
		fail "no --bind of the socket in the plan: $(cat "$KB_OUT")"
	# granted: the command reaches it (the server says so, outside)
	kb_expect 0 --allow-socket "$svc/current" -- sh -c \
		'echo ran >ctl; "$1" "$2" "$3" granted >got' sh "$PY" \
		"$KB_T/bin/sockping.py" "$svc/s"
	assert_file_has_content "$ws/ctl" '^ran$'
	assert_file_has_content "$ws/got" '^pong$'
	assert_file_has_content "$KB_T/as2.log" '^granted$'
	# not granted: hidden with the runtime dir, never reached
	rm -f "$ws/got"
	kb_expect 1 -- sh -c '"$1" "$2" "$3" ungranted >got' sh "$PY" \
		"$KB_T/bin/sockping.py" "$svc/s"
	assert_not_file_has_content "$KB_T/as2.log" 'ungranted'
	assert_not_file_has_content "$ws/got" 'pong'
}
run_test "--allow-socket of a host socket in the hidden runtime dir (named by a link): --dry-run shows the mask, the bind and its origin; the command reaches it (the server logs it, outside); without the grant it does not" t_allow_socket_granted

t_allow_socket_config() {
	have "$PY" || skip_test "python3 is not installed"
	ws=$(newdir ws-as3)
	mkdir -p "$XDG_CONFIG_HOME/kinbox" "$ws/sub"
	sock_file "$ws/sub/own.sock"
	printf '[sandbox]\nallow_sockets = %s/nonexistent.sock\nallow_sockets = %s/sub/own.sock\n' \
		"$KB_T" "$ws" >"$XDG_CONFIG_HOME/kinbox/config.ini"
	# the project file is the command's: it cannot grant a socket
	printf '[sandbox]\nallow_sockets = /run/docker.sock\n' >"$ws/.kinbox.ini"
	cd "$ws"
	kb_expect 0 -- sh -c 'echo ran >ctl'
	assert_file_has_content "$ws/ctl" '^ran$'
	assert_one_kinbox_line "$KB_ERR" \
		"^kinbox: $ws/.kinbox.ini:2: 'allow_sockets' ignored: a project file may only tighten \\(network = off, mode = read-only, mask, scrub_env, timeout, rlimit, memory\\)$"
	kb_expect 0 --dry-run -- true
	assert_file_has_content "$KB_OUT" \
		"^# config: socket: the grant of $KB_T/nonexistent.sock \\($XDG_CONFIG_HOME/kinbox/config.ini:2\\) is not used: no such socket$"
	assert_file_has_content "$KB_OUT" \
		"^# config: socket: the grant of $ws/sub/own.sock \\($XDG_CONFIG_HOME/kinbox/config.ini:3\\) is not used: inside a writable root$"
	assert_not_file_has_content "$KB_OUT" '^# socket: '
	assert_not_file_has_content "$KB_OUT" 'docker.sock'
	rm "$XDG_CONFIG_HOME/kinbox/config.ini"
}
run_test "allow_sockets in the config: a missing socket and the command's own are not used (the run goes on; --dry-run says why); a project's allow_sockets is ignored with one line" t_allow_socket_config

t_allow_socket_landlock() {
	have "$PY" || skip_test "python3 is not installed"
	ws=$(newdir ws-as4)
	svc=$(newdir svc-as4)
	sock_file "$svc/s"
	cd "$ws"
	kb --backend landlock -- sh -c 'echo ran >ctl'
	[ "$KB_RC" = 0 ] || skip_test "the landlock backend cannot run here: $(cat "$KB_ERR")"
	assert_file_has_content "$ws/ctl" '^ran$'
	rm "$ws/ctl"
	kb_expect 125 --backend landlock --allow-socket "$svc/s" -- sh -c 'echo ran >ctl'
	assert_kinbox_said "$KB_ERR" "kinbox: --allow-socket $svc/s: the landlock backend refuses every unix socket (Landlock on this kernel cannot tell a granted socket from the host's others); use the bwrap backend — nothing was run"
	assert_not_exists "$ws/ctl"
}
run_test "--allow-socket under the landlock backend: 125, one line, nothing ran (control: the backend runs without it)" t_allow_socket_landlock

t_allow_socket_kinpolicy() {
	ws=$(newdir ws-as5)
	out=$(newdir out-as5)
	svc=$XDG_RUNTIME_DIR/svc-as5
	mkdir -p "$svc" "$ws/in"
	sock_server "$svc/s" "$KB_T/as5.log"
	sock_file "$ws/in/own.sock"
	cd "$ws"
	# a denial to answer: a write outside
	kb_expect 1 --json-fd 3 -- sh -c 'echo ran >ctl; touch "$1/f"' sh "$out" 3>"$KB_T/as5.json"
	id=$(sed -n 's/.*"id":"\(sbx_[0-9a-f]*\)".*/\1/p' "$KB_T/as5.json")
	[ -n "$id" ] || fail "no denial record: $(cat "$KB_ERR")"
	new_session
	KINBOX_SESSION=$S "$KP" grant "$id" --allow-socket in/own.sock --session \
		>"$KB_T/g.out" 2>"$KB_T/g.err" && fail "the command's own socket was granted"
	assert_file_has_content "$KB_T/g.err" \
		"^kinpolicy: --allow-socket in/own.sock: inside a writable root of that run; the command's own sockets need no grant — drop it$"
	assert_not_file_has_content "$SF" 'allow_sockets'
	KINBOX_SESSION=$S "$KP" grant "$id" --allow-socket "$svc/s" --session \
		--json >"$KB_T/g.out" 2>"$KB_T/g.err" ||
		fail "kinpolicy grant --allow-socket failed: $(cat "$KB_T/g.err")"
	"$PY" - "$KB_T/g.out" "$svc/s" <<'EOF' || fail "decision: $(cat "$KB_T/g.out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["allow_sockets"] == [sys.argv[2]] and d["write_paths"] == [], d
EOF
	assert_file_has_content "$SF" "^allow_sockets = $svc/s$"
	# the session's runs reach the socket; runs without it do not
	KINBOX_SESSION=$S kb_expect 0 -- sh -c '"$1" "$2" "$3" session >got' sh \
		"$PY" "$KB_T/bin/sockping.py" "$svc/s"
	assert_file_has_content "$ws/got" '^pong$'
	assert_file_has_content "$KB_T/as5.log" '^session$'
	kb_expect 1 -- sh -c '"$1" "$2" "$3" nosession >got' sh "$PY" \
		"$KB_T/bin/sockping.py" "$svc/s"
	assert_not_file_has_content "$KB_T/as5.log" 'nosession'
	KINBOX_SESSION=$S kb_expect 0 --dry-run -- true
	assert_file_has_content "$KB_OUT" "^# socket: $svc/s \\(granted by session grant\\)$"
	assert_file_has_content "$KB_OUT" "^# socket set by: $SF:[0-9]+$"
}
run_test "kinpolicy grant --allow-socket --session: the command's own socket refused; a host socket stored canonical, its decision JSON lists it; the session's runs reach it, others do not" t_allow_socket_kinpolicy

t_allow_socket_retry() {
	ws=$(newdir ws-as6)
	out=$(newdir out-as6)
	svc=$XDG_RUNTIME_DIR/svc-as6
	mkdir -p "$svc"
	sock_server "$svc/s" "$KB_T/as6.log"
	cd "$ws"
	# the socket is hidden, the write refused: one denial for both
	kb_expect 1 --json-fd 3 -- sh -c '"$1" "$2" "$3" try >got; touch "$4/f"' \
		sh "$PY" "$KB_T/bin/sockping.py" "$svc/s" "$out" 3>"$KB_T/as6.json"
	assert_not_exists "$out/f"
	assert_not_file_has_content "$KB_T/as6.log" 'try'
	id=$(sed -n 's/.*"id":"\(sbx_[0-9a-f]*\)".*/\1/p' "$KB_T/as6.json")
	[ -n "$id" ] || fail "no denial record: $(cat "$KB_ERR")"
	"$KP" grant "$id" --write "$out" --allow-socket "$svc/s" --once \
		>"$KB_T/g.out" 2>"$KB_T/g.err" ||
		fail "kinpolicy grant failed: $(cat "$KB_T/g.err")"
	assert_file_has_content "$KB_T/g.out" "^granted $id \\(once\\)$"
	# the retry runs the journaled argv with the once grant's flags
	"$KP" retry "$id" >"$KB_T/r.out" 2>"$KB_T/r.err" ||
		fail "kinpolicy retry failed: $(cat "$KB_T/r.err")"
	assert_exists "$out/f"
	assert_file_has_content "$ws/got" '^pong$'
	assert_file_has_content "$KB_T/as6.log" '^try$'
}
run_test "kinpolicy grant --write DIR --allow-socket PATH --once, then retry: the journaled command reaches the socket and writes DIR (both seen outside); before it did neither" t_allow_socket_retry

# --- 7. --allow-host: the allow-list's vocabulary ---------------------------
# (the proxy that makes it a way out is not judged here: --dry-run shows
# what the policy holds, and a refused entry runs nothing)

# skip_unless_bwrap: the allow-list is the bwrap backend's (auto falls back
# to the landlock backend where bubblewrap cannot work)
skip_unless_bwrap() {
	kb_expect 0 --dry-run -- true
	if grep -q '^# backend: landlock' "$KB_OUT"; then
		skip_test "the landlock backend runs here (no --allow-host there)"
	fi
}

t_allow_host_refused() {
	ws=$(newdir ws-ah1)
	cd "$ws"
	# each refused entry: 125, its one line, and the command never ran
	for bad in \
		"localhost|a single-label name is local; give the host's full DNS name (host.domain)" \
		"127.1|an IP address; kinbox's proxy takes names only: give the host's DNS name" \
		"0x7f000001|an IP address; kinbox's proxy takes names only: give the host's DNS name" \
		"[::1]|an IP address; kinbox's proxy takes names only: give the host's DNS name" \
		"*.github.com|a wildcard; each name is exact: list every host" \
		"https://github.com|a URL, not a host name; write the host name alone, e.g. github.com" \
		"github.com:0|the port is out of range; give 1-65535" \
		"github.com:|no port after ':'; write HOST:PORT, or HOST alone for port 443" \
		"metadata.google.internal|a private or reserved name, which kinbox's proxy never reaches; give a public name (--net gives the whole network instead)"; do
		entry=${bad%%|*}
		why=${bad#*|}
		kb_expect 125 --allow-host "$entry" -- sh -c 'echo ran >ctl'
		assert_kinbox_said "$KB_ERR" "kinbox: --allow-host $entry: $why"
		assert_not_exists "$ws/ctl"
	done
	kb_expect 125 --allow-host a.com,b.com -- sh -c 'echo ran >ctl'
	assert_kinbox_said "$KB_ERR" "kinbox: --allow-host a.com,b.com: more than one host, or a blank; give one host per --allow-host (repeat it)"
	assert_not_exists "$ws/ctl"
	# the combinations that cannot hold, in either order
	kb_expect 125 --net --allow-host x.com -- sh -c 'echo ran >ctl'
	assert_kinbox_said "$KB_ERR" "kinbox: --net gives the whole network and --allow-host only some hosts: use one of the two"
	assert_not_exists "$ws/ctl"
	kb_expect 125 --allow-host x.com --net -- sh -c 'echo ran >ctl'
	assert_kinbox_said "$KB_ERR" "kinbox: --net gives the whole network and --allow-host only some hosts: use one of the two"
	kb_expect 125 --unconfined --allow-host x.com -- sh -c 'echo ran >ctl'
	assert_kinbox_said "$KB_ERR" "kinbox: --unconfined gives the whole network (no sandbox at all) and --allow-host only some hosts: use one of the two"
	assert_not_exists "$ws/ctl"
	kb_expect 125 --ssh-agent --allow-host github.com -- sh -c 'echo ran >ctl'
	assert_kinbox_said "$KB_ERR" "kinbox: --ssh-agent needs the whole network (--net), and --allow-host gives only some hosts, through kinbox's proxy, which ssh does not use; drop one of the two"
	assert_not_exists "$ws/ctl"
	kb_expect 125 --allow-host x.com --dry-run --net -- true
	assert_kinbox_said "$KB_ERR" "kinbox: --net gives the whole network and --allow-host only some hosts: use one of the two"
	# control: the same command runs, and a good entry is taken
	kb_expect 0 -- sh -c 'echo ran >ctl'
	assert_file_has_content "$ws/ctl" '^ran$'
	rm "$ws/ctl"
	skip_unless_bwrap
	kb_expect 0 --dry-run --allow-host GitHub.com. --allow-host registry.npmjs.org:8443 -- sh -c 'echo ran >ctl'
	assert_not_exists "$ws/ctl"
	assert_file_has_content "$KB_OUT" "^# network: only through kinbox's proxy, to the allowed hosts below, and nothing else \\(loopback inside\\)$"
	assert_file_has_content "$KB_OUT" '^# allowed host: github\.com:443 \(flag: --allow-host\)$'
	assert_file_has_content "$KB_OUT" '^# allowed host: registry\.npmjs\.org:8443 \(flag: --allow-host\)$'
}
run_test "--allow-host localhost, 127.1, 0x7f000001, [::1], *.github.com, a URL, port 0, an empty port, a .internal name, a list; --net/--unconfined/--ssh-agent with it: 125, one line each, nothing ran (control: the command runs; --dry-run takes GitHub.com. as github.com:443)" t_allow_host_refused

t_allow_host_config() {
	ws=$(newdir ws-ah2)
	cfg=$XDG_CONFIG_HOME/kinbox/config.ini
	mkdir -p "$XDG_CONFIG_HOME/kinbox"
	cd "$ws"
	# a bad entry: 125 naming file:line, the key and the entry
	printf '[network]\nallowed_hosts = github.com, printer.local\n' >"$cfg"
	kb_expect 125 -- sh -c 'echo ran >ctl'
	assert_kinbox_said "$KB_ERR" "kinbox: $cfg:2: allowed_hosts = printer.local: a private or reserved name, which kinbox's proxy never reaches; give a public name (--net gives the whole network instead)"
	assert_not_exists "$ws/ctl"
	printf '[sandbox]\nallowed_hosts = github.com\n' >"$cfg"
	kb_expect 125 -- sh -c 'echo ran >ctl'
	assert_kinbox_said "$KB_ERR" "kinbox: $cfg:2: 'allowed_hosts' belongs in [network], not [sandbox]; move the line"
	assert_not_exists "$ws/ctl"
	# one file with network = on and allowed_hosts: refused, naming it
	printf '[sandbox]\nnetwork = on\n[network]\nallowed_hosts = github.com\n' >"$cfg"
	kb_expect 125 -- sh -c 'echo ran >ctl'
	assert_kinbox_said "$KB_ERR" "kinbox: $cfg:2: network = on gives the whole network and allowed_hosts ($cfg:4) only some hosts: keep one of the two"
	assert_not_exists "$ws/ctl"
	rm "$cfg"
	skip_unless_bwrap
	# the list applies, with its origin; a project file cannot add to it
	printf '[network]\nallowed_hosts = github.com, api.github.com:8443\n' >"$cfg"
	printf '[network]\nallowed_hosts = evil.example.com\n' >"$ws/.kinbox.ini"
	kb_expect 0 --dry-run -- true
	assert_file_has_content "$KB_OUT" "^# allowed host: github\\.com:443 \\(global config: $cfg:2\\)$"
	assert_file_has_content "$KB_OUT" "^# allowed host: api\\.github\\.com:8443 \\(global config: $cfg:2\\)$"
	assert_not_file_has_content "$KB_OUT" 'evil\.example'
	assert_one_kinbox_line "$KB_ERR" \
		"^kinbox: $ws/.kinbox.ini:2: 'allowed_hosts' ignored: a project file may only tighten \\(network = off, mode = read-only, mask, scrub_env, timeout, rlimit, memory\\)$"
	# a typed --net wins over the list; a typed --allow-host adds to it
	rm "$ws/.kinbox.ini"
	kb_expect 0 --dry-run --net -- true
	assert_file_has_content "$KB_OUT" '^# network: on, host network \(flag\)$'
	assert_file_has_content "$KB_OUT" "^# config: network: the allowed hosts github\\.com:443 \\($cfg:2\\), api\\.github\\.com:8443 \\($cfg:2\\) are not used: --net gives the whole network$"
	kb_expect 0 --dry-run --allow-host gitlab.com -- true
	assert_file_has_content "$KB_OUT" '^# allowed host: gitlab\.com:443 \(flag: --allow-host\)$'
	assert_file_has_content "$KB_OUT" '^# allowed host: github\.com:443 \(global config: '
	# a project's network = off clears it, the typed host too
	printf '[sandbox]\nnetwork = off\n' >"$ws/.kinbox.ini"
	kb_expect 0 --dry-run --allow-host gitlab.com -- true
	assert_not_file_has_content "$KB_OUT" '^# allowed host:'
	assert_file_has_content "$KB_OUT" '^# network: off, loopback only \(project tightening\)$'
	assert_file_has_content "$KB_OUT" "^# config: network: the allowed hosts github\\.com:443 \\($cfg:2\\), api\\.github\\.com:8443 \\($cfg:2\\), gitlab\\.com:443 \\(--allow-host\\) are not used: off by $ws/\\.kinbox\\.ini:2 \\(network = off; a project file may only tighten\\)$"
	# a typed --allow-host over the config's network = on
	rm "$ws/.kinbox.ini"
	printf '[sandbox]\nnetwork = on\n' >"$cfg"
	kb_expect 0 --dry-run --allow-host gitlab.com -- true
	assert_file_has_content "$KB_OUT" "^# config: network: network = on of $cfg:2 is not used: --allow-host limits the network to gitlab\\.com:443 \\(--allow-host\\)$"
	assert_not_file_has_content "$KB_OUT" '^# network: on, host network'
	rm "$cfg"
}
run_test "[network] allowed_hosts: a bad entry or the key in [sandbox] or beside network = on: 125 naming file:line, nothing ran; applied with its origin; a project's ignored with one line; --net drops it, --allow-host adds, a project's network = off clears both (--dry-run says so); --allow-host over network = on" t_allow_host_config

done_testing
