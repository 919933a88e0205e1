#!/bin/sh
# tests/t70-options.sh — the option vocabulary (issue 10): sources apply in
# rank order through one setter, messages name what the user typed or the
# file:line that said it, writers stay within the one INI reader's limits,
# and kinpolicy's --json never eats the judged command's words. Each test
# failed before the option table (the four bugs of issue 10) or pins a
# message; each checks an effect from outside, with a positive control.
#
# Run: sh tests/t70-options.sh (TAP), or all suites: sh tests/run-integration.sh

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
		"^kinpolicy: --write $deep: a path with ';', '#', a line break or surrounding blanks, or longer than 184 bytes, cannot be stored; use --once$"
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
	# the project's tightening wins over a typed --net (t40 pins that);
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
		--keep-env --keep-fd --unconfined --json-fd --dry-run --quiet \
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

done_testing
