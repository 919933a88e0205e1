#!/bin/sh
# tests/t40-denials.sh — denial reports: the one "kinbox: denied ..." line,
# the --json-fd record, the journal, the stderr relay they are built from,
# and kinpolicy fingerprint agreeing with kinbox. Each effect is checked
# from outside (the file is absent on the host, the journal file and its
# mode, the relayed bytes), with exact content where it is known.
#
# Run: sh tests/t40-denials.sh (TAP), or all suites: sh tests/run-integration.sh
# KINBOX=/path/to/kinbox picks the binary (default: the repo's ./kinbox);
# kinpolicy is taken from the same directory.
#
# As root, a write to /etc or /usr is a denial (root could write there
# without the sandbox); as an unprivileged user it is an ordinary failure
# (the user could not write there anyway), so there must be no denial line.
# The cases that must be denials for everybody write to a directory the
# test user owns ($KB_T/...), outside the workspace.
#
# The network is never reached: without --net the sandbox has no route, and
# curl fails at name resolution without sending anything.
# shellcheck disable=SC2317,SC2016,SC2164
# SC2317: the t_* bodies are called through run_test.
# SC2016: single-quoted $... is meant for the shell inside the sandbox or
#         for python.
# SC2164: lib.sh sets -e (test bodies run under set -e): a failed cd fails.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

KP=$KINPOLICY
B=$KB_T/bin
mkdir "$B"
# every test sets its own; never the caller's real journal
XDG_STATE_HOME=$KB_T/state-default
export XDG_STATE_HOME
unset KINBOX_JSON_FD SSH_AUTH_SOCK SSH_AGENT_PID || true

IS_ROOT=0
[ "$(id -u)" = 0 ] && IS_ROOT=1

# --- preflight ---------------------------------------------------------------
if [ ! -x "$KINBOX" ]; then
	tap_not_ok "kinbox binary $KINBOX exists (build it: make all)"
	done_testing
fi
if [ ! -x "$KP" ]; then
	tap_not_ok "kinpolicy binary $KP exists next to kinbox (build it: make all)"
	done_testing
fi
if ! have python3; then
	skip_all "python3 is needed to read the JSON records"
fi
mkdir "$KB_T/preflight"
if ! (cd "$KB_T/preflight" && "$KINBOX" -- true) >"$KB_T/preflight.log" 2>&1; then
	diag "$(cat "$KB_T/preflight.log")"
	skip_all "kinbox cannot set up a sandbox on this host"
fi
diag "kinbox: $KINBOX; kinpolicy: $KP; uid $(id -u); kernel $(uname -r)"

# --- helper programs (under $KB_T/bin: outside every workspace) -------------
# j.py EXPR FILE... [-- ARG...]: loads each FILE as one JSON object (d0, d1,
# ...; d is d0), the ARGs as the list a; EXPR is evaluated. A bool result is
# the exit status (false: the objects are printed on stderr); anything else
# is printed (strings as they are, the rest as JSON).
cat >"$B/j.py" <<'EOF'
import datetime, json, re, sys
expr = sys.argv[1]
rest = sys.argv[2:]
files, a = rest, []
if "--" in rest:
    i = rest.index("--")
    files, a = rest[:i], rest[i + 1:]
env = {"a": a, "re": re, "datetime": datetime, "json": json}
for n, f in enumerate(files):
    with open(f, encoding="utf-8") as fh:
        env["d%d" % n] = json.loads(fh.read())
env["d"] = env.get("d0")
r = eval(expr, env)
if isinstance(r, bool):
    if not r:
        sys.stderr.write("false: %s\n" % expr)
        for n, f in enumerate(files):
            sys.stderr.write("d%d (%s) = %s\n" % (n, f, json.dumps(env["d%d" % n], indent=1)))
        if a:
            sys.stderr.write("a = %r\n" % (a,))
    sys.exit(0 if r else 1)
print(r if isinstance(r, str) else json.dumps(r))
EOF

# oneline.py FILE: FILE is exactly one line, ending in a newline, that
# parses as a JSON object
cat >"$B/oneline.py" <<'EOF'
import json, sys
data = open(sys.argv[1], "rb").read()
if data.count(b"\n") != 1 or not data.endswith(b"\n"):
    sys.exit("%s: not exactly one line: %r" % (sys.argv[1], data[:300]))
if not isinstance(json.loads(data.decode("utf-8")), dict):
    sys.exit("%s: not a JSON object" % sys.argv[1])
EOF

# freeport.py: a TCP port on 127.0.0.1 with nothing listening (just closed)
cat >"$B/freeport.py" <<'EOF'
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()
EOF

# tty-inner.sh: run inside the sandbox under a terminal
cat >"$B/tty-inner.sh" <<'EOF'
test -t 2 && echo TTY2-OK >&2
printf '\033[31mred\033[0m\n' >&2
EOF

# --- shared helpers (newdir is in lib.sh) -----------------------------------
# jcheck EXPR FILE... [-- ARG...]: the Python expression holds
jcheck() {
	python3 "$B/j.py" "$@" || fail "JSON check failed: $1"
}

# jget EXPR FILE...: prints the value
jget() {
	python3 "$B/j.py" "$@"
}

# assert_json_line FILE: exactly one JSON object line
assert_json_line() {
	python3 "$B/oneline.py" "$1" || fail "$1 is not one JSON object line"
}

# state NAME: a fresh XDG_STATE_HOME for this test, printed (not created)
state() {
	printf '%s\n' "$KB_T/$1-state"
}

# last_id FILE: the sbx_ id in brackets at the end of FILE's last line
last_id() {
	tail -n 1 "$1" | sed -n 's/.*  \[\(sbx_[0-9a-f]*\)\]$/\1/p'
}

# kinbox_lines FILE: the number of lines that mention "kinbox:" anywhere
kinbox_lines() {
	grep -c 'kinbox:' "$1" || true
}

# assert_denial FILE EXPECTED: the last line of FILE (stderr) is exactly
# "EXPECTED  [sbx_<16 hex>]", and it is the only kinbox line
assert_denial() {
	_id=$(last_id "$1")
	if ! printf '%s\n' "$_id" | grep -Eq '^sbx_[0-9a-f]{16}$'; then
		_show_file "$1"
		fail "$1: the last line ends in no [sbx_<16 hex>] id"
	fi
	_last=$(tail -n 1 "$1")
	if [ "$_last" != "$2  [$_id]" ]; then
		_show_file "$1"
		fail "last line of $1 is
  '$_last'; expected
  '$2  [$_id]'"
	fi
	_n=$(kinbox_lines "$1")
	if [ "$_n" != 1 ]; then
		_show_file "$1"
		fail "$1: $_n lines mention kinbox:, expected the denial line only"
	fi
}

# assert_no_denial FILE: no kinbox line at all (in particular no denial)
assert_no_denial() {
	if grep -q 'kinbox:' "$1"; then
		_show_file "$1"
		fail "$1 has a kinbox line; this failure is not the sandbox's"
	fi
}

# assert_file_is FILE TEXT: FILE holds exactly TEXT and a newline (a local
# copy of t50's helper; lib.sh has no exact-content assert)
assert_file_is() {
	printf '%s\n' "$2" >"$KB_T/.lib/want"
	assert_files_equal "$KB_T/.lib/want" "$1"
}

# assert_touched FILE: FILE is an empty regular file (the positive control
# a `touch` in the same kinbox call created in the workspace)
assert_touched() {
	if [ ! -f "$1" ] || [ -L "$1" ] || [ -s "$1" ]; then
		fail "$1 is not the empty file the command's touch creates (the command did not run?)"
	fi
}

# assert_empty FILE
assert_empty() {
	if [ -s "$1" ]; then
		_show_file "$1"
		fail "$1 is not empty"
	fi
}

# journal_file STATE ID: the journal record's path
journal_file() {
	printf '%s\n' "$1/kinbox/denials/$2.json"
}

# mode FILE: octal permission bits
mode() {
	stat -c %a "$1"
}

# re_escape STRING: STRING as a literal in grep -E
re_escape() {
	printf '%s\n' "$1" | sed 's/[][\.*^$+?(){}|]/\\&/g'
}

# agree ERR JSON STATUS [FLAG...]: kinpolicy fingerprint, fed ERR (kinbox's
# stderr) without its last line (kinbox's own), from the current directory
# with FLAGs, says what kinbox's record JSON says: class, evidence, reason,
# path, host and suggest, and nothing else; in text form, the same line.
agree() {
	_e=$1
	_j=$2
	_s=$3
	shift 3
	sed '$d' "$_e" >"$KB_T/fp.in"
	_rc=0
	"$KP" fingerprint --status "$_s" --json "$@" <"$KB_T/fp.in" \
		>"$KB_T/fp.json" 2>"$KB_T/fp.err" || _rc=$?
	[ "$_rc" = 0 ] || fail "kinpolicy fingerprint exited $_rc: $(cat "$KB_T/fp.err")"
	assert_empty "$KB_T/fp.err"
	assert_json_line "$KB_T/fp.json"
	jcheck 'd0 == {k: d1[k] for k in ("schema", "class", "evidence", "reason", "path", "host", "guard", "suggest", "denials") if k in d1}' \
		"$KB_T/fp.json" "$_j"
	# the human form: kinbox's line with the id replaced by "no id"
	_rc=0
	"$KP" fingerprint --status "$_s" "$@" <"$KB_T/fp.in" \
		>"$KB_T/fp.txt" 2>"$KB_T/fp.err" || _rc=$?
	[ "$_rc" = 0 ] || fail "kinpolicy fingerprint (text) exited $_rc"
	_kl=$(tail -n 1 "$_e" | sed 's/^kinbox: //; s/  \[sbx_[0-9a-f]*\]$/  [no id]/')
	assert_streq "$(sed -n 1p "$KB_T/fp.txt")" "$_kl" "kinpolicy's line vs kinbox's"
	assert_streq "$(sed -n 2p "$KB_T/fp.txt")" "evidence: $(jget 'd["evidence"]' "$_j")" \
		"kinpolicy's evidence line"
	assert_streq "$(wc -l <"$KB_T/fp.txt")" 2 "kinpolicy text: two lines"
}

# The exact key sets of a record
KEYS_COMMON='"schema","id","class","evidence","reason","suggest","denials","argv","argv_exact","cwd","exit_status","partial","time","backend","mode","policy","flags"'
# jkeys FILE EXTRA...: the record has exactly the common keys and EXTRA
# (e.g. '"path"'), suggest and policy exactly theirs
jkeys() {
	_f=$1
	shift
	_extra=
	for _k in "$@"; do
		_extra="$_extra,$_k"
	done
	jcheck "sorted(d) == sorted([$KEYS_COMMON$_extra]) and sorted(d['suggest']) == sorted(['write_paths','network','ssh_agent','allow_sockets','allowed_hosts','devices','gpu','unconfined']) and sorted(d['policy']) == sorted(['workspace','read_only','write_paths','network','ssh_agent','allow_sockets','allowed_hosts','devices','gpu','keep_env']) and sorted(d['flags']) == sorted(['read_only','write_paths','network','ssh_agent','allow_sockets','allowed_hosts','devices','gpu','keep_env'])" "$_f"
}

# ============================================================================
# 1. A write outside the writable set
# ============================================================================

t_etc() {
	ws=$(newdir etc)
	cd "$ws"
	XDG_STATE_HOME=$(state etc)
	assert_not_exists /etc/kinbox-t40
	if [ "$IS_ROOT" = 1 ]; then
		cleanup_add "rm -f /etc/kinbox-t40"
	fi
	# the positive control: the same touch creates ok in the workspace
	kb_expect 1 -- touch "$ws/ok" /etc/kinbox-t40
	assert_not_exists /etc/kinbox-t40
	assert_touched "$ws/ok"
	assert_empty "$KB_OUT"
	assert_file_has_content "$KB_ERR" "^touch: cannot touch '/etc/kinbox-t40': "
	if [ "$IS_ROOT" = 1 ]; then
		# the command's own message first, kinbox's line last
		assert_streq "$(sed -n 1p "$KB_ERR")" \
			"touch: cannot touch '/etc/kinbox-t40': Read-only file system"
		assert_streq "$(wc -l <"$KB_ERR")" 2 "stderr lines"
		tail -n 1 "$KB_ERR" >"$KB_T/etc.last"
		# /etc is no write root (kinbox's /etc/kinbox would lie in it)
		assert_file_has_content "$KB_T/etc.last" \
			'^kinbox: denied write '\''/etc/kinbox-t40'\'' \(Read-only file system, read from the command'\''s stderr\); no --write root fits \(/, your home, or a directory that holds one of kinbox'\''s stores\); only --unconfined would allow it, and nothing but the command'\''s stderr says that it is needed  \[sbx_[0-9a-f]{16}\]$'
		assert_denial "$KB_ERR" \
			"kinbox: denied write '/etc/kinbox-t40' (Read-only file system, read from the command's stderr); no --write root fits (/, your home, or a directory that holds one of kinbox's stores); only --unconfined would allow it, and nothing but the command's stderr says that it is needed"
		assert_exists "$(journal_file "$XDG_STATE_HOME" "$(last_id "$KB_ERR")")"
	else
		# the user cannot write /etc without the sandbox either
		assert_no_denial "$KB_ERR"
		assert_not_exists "$XDG_STATE_HOME/kinbox"
	fi
}
run_test "touch ./ok /etc/kinbox-t40: exit 1, ./ok made, /etc/kinbox-t40 absent on the host; denial line last (root) / no denial (user: not writable anyway)" t_etc

# ============================================================================
# 2. Write denials: the path and the smallest --write root
# ============================================================================

t_usr_python() {
	ws=$(newdir usr)
	cd "$ws"
	XDG_STATE_HOME=$(state usr)
	j=$KB_T/usr.json
	kb_expect 1 --json-fd 3 -- python3 -c "open('ok','w').write('ran\n'); open('/usr/kinbox-t40','w')" 3>"$j"
	assert_not_exists /usr/kinbox-t40
	assert_file_is "$ws/ok" ran
	assert_file_has_content "$KB_ERR" "Errno 30\] Read-only file system: '/usr/kinbox-t40'"
	if [ "$IS_ROOT" = 1 ]; then
		assert_denial "$KB_ERR" \
			"kinbox: denied write '/usr/kinbox-t40' (Read-only file system, read from the command's stderr); retry with --write /usr"
		assert_json_line "$j"
		jcheck 'd["class"] == "write" and d["path"] == "/usr/kinbox-t40" and d["reason"] == "Read-only file system"' "$j"
		jcheck 'd["suggest"] == {"write_paths": ["/usr"], "network": False, "ssh_agent": False, "allow_sockets": [], "allowed_hosts": [], "devices": [], "gpu": False, "unconfined": False}' "$j"
		jcheck 'd["evidence"] == "OSError: [Errno 30] Read-only file system: '"'"'/usr/kinbox-t40'"'"'"' "$j"
	else
		assert_no_denial "$KB_ERR"
		assert_empty "$j"
	fi
}
run_test "python3 open('./ok') then open('/usr/kinbox-t40','w'): ./ok written; write denial with path /usr/kinbox-t40 in the JSON (root) / none (user)" t_usr_python

t_outside_dir() {
	d=$(newdir outdir)
	mkdir "$d/ws" "$d/outside"
	cd "$d/ws"
	XDG_STATE_HOME=$(state outdir)
	j=$KB_T/outdir.json
	kb_expect 1 --json-fd 3 -- touch "$d/ws/ok" "$d/outside/f" 3>"$j"
	assert_not_exists "$d/outside/f"
	assert_touched "$d/ws/ok"
	assert_streq "$(sed -n 1p "$KB_ERR")" \
		"touch: cannot touch '$d/outside/f': Read-only file system"
	assert_denial "$KB_ERR" \
		"kinbox: denied write '$d/outside/f' (Read-only file system, read from the command's stderr); retry with --write $d/outside"
	assert_json_line "$j"
	jcheck 'd["class"] == "write" and d["path"] == a[0] + "/outside/f"' "$j" -- "$d"
	jcheck 'd["suggest"] == {"write_paths": [a[0] + "/outside"], "network": False, "ssh_agent": False, "allow_sockets": [], "allowed_hosts": [], "devices": [], "gpu": False, "unconfined": False}' "$j" -- "$d"
	# the suggestion works: granted, the same command succeeds
	kb_expect 0 --write "$d/outside" -- touch "$d/outside/f"
	assert_exists "$d/outside/f"
	assert_empty "$KB_ERR"
}
run_test "touch in a user-owned dir outside the workspace: denial suggesting --write DIR; granting it works" t_outside_dir

t_fake_home() {
	d=$(newdir fhome)
	mkdir -p "$d/ws" "$d/home/.local/share"
	cd "$d/ws"
	export HOME="$d/home"
	XDG_STATE_HOME=$(state fhome)
	j=$KB_T/fhome.json
	# a file directly in an existing directory below home
	kb_expect 1 --json-fd 3 -- touch "$d/ws/ok1" "$HOME/.local/share/x" 3>"$j"
	assert_not_exists "$HOME/.local/share/x"
	assert_touched "$d/ws/ok1"
	assert_denial "$KB_ERR" \
		"kinbox: denied write '$HOME/.local/share/x' (Read-only file system, read from the command's stderr); retry with --write $HOME/.local/share"
	jcheck 'd["path"] == a[0] + "/.local/share/x" and d["suggest"]["write_paths"] == [a[0] + "/.local/share"] and not d["suggest"]["unconfined"]' "$j" -- "$HOME"
	# a deeper path that does not exist yet: the nearest existing dir
	kb_expect 1 --json-fd 3 -- mkdir -p "$d/ws/ok2" "$HOME/.local/share/tool/v1" 3>"$j"
	assert_not_exists "$HOME/.local/share/tool"
	[ -d "$d/ws/ok2" ] || fail "mkdir -p did not make ok2 in the workspace"
	assert_denial "$KB_ERR" \
		"kinbox: denied write '$HOME/.local/share/tool' (Read-only file system, read from the command's stderr); retry with --write $HOME/.local/share"
	jcheck 'd["suggest"]["write_paths"] == [a[0] + "/.local/share"]' "$j" -- "$HOME"
	# home itself: no --write root fits
	kb_expect 1 --json-fd 3 -- touch "$d/ws/ok3" "$HOME/.bashrc" 3>"$j"
	assert_not_exists "$HOME/.bashrc"
	assert_touched "$d/ws/ok3"
	assert_denial "$KB_ERR" \
		"kinbox: denied write '$HOME/.bashrc' (Read-only file system, read from the command's stderr); no --write root fits (/, your home, or a directory that holds one of kinbox's stores); only --unconfined would allow it, and nothing but the command's stderr says that it is needed"
	assert_file_has_content "$KB_ERR" 'no --write root fits'
	jcheck 'd["class"] == "write" and d["path"] == a[0] + "/.bashrc" and d["suggest"] == {"write_paths": [], "network": False, "ssh_agent": False, "allow_sockets": [], "allowed_hosts": [], "devices": [], "gpu": False, "unconfined": True}' "$j" -- "$HOME"
}
run_test "fake HOME: \$HOME/.local/share/x suggests --write \$HOME/.local/share (nearest dir, not home; ~/.cache is a writable cache now); \$HOME/.bashrc: no --write root fits" t_fake_home

t_relative_path() {
	d=$(newdir relpath)
	mkdir "$d/ws" "$d/outside"
	cd "$d/ws"
	XDG_STATE_HOME=$(state relpath)
	j=$KB_T/relpath.json
	# dash: "sh: 1: cannot create ../outside/rel: Read-only file system", 2
	kb_expect 2 --json-fd 3 -- sh -c 'echo ran > ok; echo x > ../outside/rel' 3>"$j"
	assert_not_exists "$d/outside/rel"
	assert_file_is "$d/ws/ok" ran
	assert_denial "$KB_ERR" \
		"kinbox: denied write '$d/outside/rel' (Read-only file system, read from the command's stderr); retry with --write $d/outside"
	jcheck 'd["path"] == a[0] + "/outside/rel"' "$j" -- "$d"
}
run_test "a relative path (echo x > ../outside/rel) is reported absolute, against the cwd" t_relative_path

t_exit_kept() {
	d=$(newdir exitkept)
	mkdir "$d/ws" "$d/outside"
	cd "$d/ws"
	XDG_STATE_HOME=$(state exitkept)
	j=$KB_T/exitkept.json
	kb_expect 7 --json-fd 3 -- sh -c 'touch "$1"; exit 7' sh "$d/outside/f" 3>"$j"
	assert_denial "$KB_ERR" \
		"kinbox: denied write '$d/outside/f' (Read-only file system, read from the command's stderr); retry with --write $d/outside"
	jcheck 'd["exit_status"] == 7' "$j"
	kb_expect 200 -- sh -c 'touch "$1"; exit 200' sh "$d/outside/f"
	assert_file_has_content "$KB_ERR" '^kinbox: denied write'
}
run_test "the exit status is the command's own (7, 200) with a denial reported" t_exit_kept

t_own_line() {
	d=$(newdir ownline)
	mkdir "$d/ws" "$d/outside"
	cd "$d/ws"
	XDG_STATE_HOME=$(state ownline)
	# the command's last output has no newline (a progress counter)
	kb_expect 1 -- sh -c 'touch "$1"; printf "50%%" >&2; exit 1' sh "$d/outside/f"
	printf "touch: cannot touch '%s': Read-only file system\n50%%" "$d/outside/f" >"$KB_T/ownline.cmd"
	head -c "$(wc -c <"$KB_T/ownline.cmd")" "$KB_ERR" >"$KB_T/ownline.got"
	assert_files_equal "$KB_T/ownline.cmd" "$KB_T/ownline.got"
	assert_denial "$KB_ERR" \
		"kinbox: denied write '$d/outside/f' (Read-only file system, read from the command's stderr); retry with --write $d/outside"
}
run_test "the denial line starts a line of its own when the command's stderr did not end in a newline" t_own_line

# ============================================================================
# 3. Network
# ============================================================================

t_network() {
	require curl
	ws=$(newdir net)
	cd "$ws"
	XDG_STATE_HOME=$(state net)
	j=$KB_T/net.json
	kb_expect 6 --json-fd 3 -- curl -sS -m 20 http://example.com/ 3>"$j"
	assert_empty "$KB_OUT"
	assert_streq "$(sed -n 1p "$KB_ERR")" "curl: (6) Could not resolve host: example.com"
	# the narrowest grant that helps: that host, at the port of the
	# command's http:// URL, through kinbox's proxy
	assert_denial "$KB_ERR" \
		"kinbox: denied network to example.com (no network, read from the command's stderr); retry with --allow-host example.com:80 (that host only, through kinbox's proxy; --net if the tool ignores HTTPS_PROXY)"
	assert_json_line "$j"
	jkeys "$j" '"host"'
	jcheck 'd["class"] == "network" and d["host"] == "example.com" and d["reason"] == "no network"' "$j"
	jcheck 'd["suggest"] == {"write_paths": [], "network": False, "ssh_agent": False, "allow_sockets": [], "allowed_hosts": ["example.com:80"], "devices": [], "gpu": False, "unconfined": False}' "$j"
	jcheck 'd["evidence"] == "curl: (6) Could not resolve host: example.com"' "$j"
	jcheck 'd["policy"]["network"] is False' "$j"
}
run_test "curl http://example.com/ without --net: network denial, host example.com, suggest --allow-host example.com:80 (not --net)" t_network

t_network_granted() {
	require curl
	ws=$(newdir netgranted)
	cd "$ws"
	XDG_STATE_HOME=$(state netgranted)
	j=$KB_T/netgranted.json
	kb --net --json-fd 3 -- curl -sS -m 20 http://example.com/ 3>"$j"
	if [ "$KB_RC" = 0 ]; then
		skip_test "this host reaches example.com with --net; the offline half cannot be checked"
	fi
	assert_no_denial "$KB_ERR"
	assert_empty "$j"
	assert_not_exists "$XDG_STATE_HOME/kinbox"
}
run_test "the same curl with --net on an offline host fails, but is not a denial (no line, no record)" t_network_granted

# ============================================================================
# 4. SSH
# ============================================================================

t_ssh() {
	require ssh-add
	ws=$(newdir ssh)
	cd "$ws"
	XDG_STATE_HOME=$(state ssh)
	j=$KB_T/ssh.json
	kb_expect 2 --net --json-fd 3 -- ssh-add -l 3>"$j"
	assert_denial "$KB_ERR" \
		"kinbox: denied ssh (no SSH agent, read from the command's stderr); retry with --ssh-agent --net"
	assert_json_line "$j"
	jkeys "$j"
	jcheck 'd["class"] == "ssh" and d["reason"] == "no SSH agent"' "$j"
	jcheck 'd["suggest"] == {"write_paths": [], "network": True, "ssh_agent": True, "allow_sockets": [], "allowed_hosts": [], "devices": [], "gpu": False, "unconfined": False}' "$j"
	jcheck 'd["policy"]["network"] is True and d["policy"]["ssh_agent"] is False' "$j"
}
run_test "ssh-add -l with --net, without --ssh-agent: ssh denial, suggest ssh_agent and network" t_ssh

# ============================================================================
# 5. The JSON record and the journal
# ============================================================================

t_record() {
	d=$(newdir record)
	mkdir -p "$d/ws/sub" "$d/outside" "$d/granted"
	ln -s ws "$d/wslink"
	# the logical cwd goes through a symlink; the record has the real one
	cd "$d/wslink/sub"
	XDG_STATE_HOME=$(state record)
	j=$KB_T/record.json
	set -- "with space" "it's \"quoted\"" "tab	and
newline" 'back\slash $HOME' "café ✓" ""
	# the positive control: ./ok (in the cwd, ws/sub) is written first
	py='import sys; open("ok", "w").write("ran\n"); open(sys.argv[1], "w")'
	kb --json-fd 3 --workspace "$d/wslink" -w "$d/granted" --keep-env KB_T30_TOKEN -- \
		python3 -c "$py" "$d/outside/f" "$@" 3>"$j"
	[ "$KB_RC" != 0 ] || fail "the command succeeded"
	assert_not_exists "$d/outside/f"
	assert_file_is "$d/ws/sub/ok" ran
	id=$(last_id "$KB_ERR")
	assert_denial "$KB_ERR" \
		"kinbox: denied write '$d/outside/f' (Read-only file system, read from the command's stderr); retry with --write $d/outside"
	assert_json_line "$j"
	jkeys "$j" '"path"'
	jcheck 'd["id"] == a[0]' "$j" -- "$id"
	jcheck 'd["class"] == "write" and d["path"] == a[0] and d["reason"] == "Read-only file system"' "$j" -- "$d/outside/f"
	ev=$(grep 'Errno 30' "$KB_ERR")
	jcheck 'd["evidence"] == a[0]' "$j" -- "$ev"
	jcheck 'd["argv"] == a and d["argv_exact"] is True' "$j" -- \
		python3 -c "$py" "$d/outside/f" "$@"
	jcheck 'd["cwd"] == a[0]' "$j" -- "$d/ws/sub"
	jcheck 'd["exit_status"] == int(a[0]) and d["partial"] is True' "$j" -- "$KB_RC"
	jcheck 'd["policy"] == {"workspace": a[0], "read_only": False, "write_paths": [a[1]], "network": False, "ssh_agent": False, "allow_sockets": [], "allowed_hosts": [], "devices": [], "gpu": False, "keep_env": ["KB_T30_TOKEN"]}' "$j" -- "$d/ws" "$d/granted"
	jcheck 're.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", d["time"]) is not None and abs((datetime.datetime.strptime(d["time"], "%Y-%m-%dT%H:%M:%SZ") - datetime.datetime.utcnow()).total_seconds()) < 300' "$j"

	# the journal: <id>.json, 0600, in a 0700 dir, the same record
	jf=$(journal_file "$XDG_STATE_HOME" "$id")
	assert_exists "$jf"
	assert_streq "$(mode "$jf")" 600 "journal file mode"
	assert_streq "$(mode "$XDG_STATE_HOME/kinbox/denials")" 700 "journal dir mode"
	assert_streq "$(mode "$XDG_STATE_HOME/kinbox")" 700 "kinbox state dir mode"
	assert_streq "$(stat -c %u "$jf")" "$(id -u)" "journal file owner"
	assert_streq "$(find "$XDG_STATE_HOME/kinbox/denials" -type f | wc -l)" 1 "one record"
	jcheck 'd0["id"] == d1["id"] and d0["class"] == d1["class"] and d0["argv"] == d1["argv"]' "$jf" "$j"
	assert_files_equal "$j" "$jf"
}
run_test "the JSON record: exact keys, id = the line's id, exact argv, canonical cwd, exit status, policy; journal <id>.json 0600 in 0700, same record" t_record

t_record_env_fd() {
	d=$(newdir envfd)
	mkdir "$d/ws" "$d/outside"
	cd "$d/ws"
	XDG_STATE_HOME=$(state envfd)
	j=$KB_T/envfd.json
	export KINBOX_JSON_FD=3
	kb_expect 1 -- touch "$d/outside/f" 3>"$j"
	assert_json_line "$j"
	id=$(last_id "$KB_ERR")
	jcheck 'd["id"] == a[0] and d["class"] == "write" and d["argv"] == ["touch", a[1]]' "$j" -- "$id" "$d/outside/f"
	assert_files_equal "$j" "$(journal_file "$XDG_STATE_HOME" "$id")"
	# --json-fd wins over the environment
	KINBOX_JSON_FD=4
	kb_expect 1 --json-fd 3 -- touch "$d/outside/f" 3>"$j" 4>"$KB_T/envfd4.json"
	assert_json_line "$j"
	assert_empty "$KB_T/envfd4.json"
	jcheck 'd["id"] == a[0]' "$j" -- "$(last_id "$KB_ERR")"
	# an empty KINBOX_JSON_FD is unset
	KINBOX_JSON_FD=
	kb_expect 1 -- touch "$d/outside/f"
	assert_file_has_content "$KB_ERR" '^kinbox: denied write'
}
run_test "KINBOX_JSON_FD=3 works like --json-fd 3 (which wins when both are given)" t_record_env_fd

t_json_fd_closed() {
	ws=$(newdir fdclosed)
	cd "$ws"
	XDG_STATE_HOME=$(state fdclosed)
	for how in flag env; do
		rc=0
		if [ "$how" = flag ]; then
			"$KINBOX" --json-fd 9 -- touch "$ws/ran" >"$KB_OUT" 2>"$KB_ERR" 9>&- || rc=$?
		else
			KINBOX_JSON_FD=9 "$KINBOX" -- touch "$ws/ran" >"$KB_OUT" 2>"$KB_ERR" 9>&- || rc=$?
		fi
		assert_streq "$rc" 125 "exit status ($how)"
		what="--json-fd 9"
		[ "$how" = flag ] || what="KINBOX_JSON_FD 9"
		assert_file_is "$KB_ERR" "kinbox: $what: descriptor is not open; open it in the calling shell first (e.g. 3>denial.json)"
		assert_empty "$KB_OUT"
		assert_not_exists "$ws/ran"
	done
	for bad in x 0 -1; do
		kb_expect 125 --json-fd "$bad" -- touch "$ws/ran"
		assert_file_is "$KB_ERR" "kinbox: --json-fd $bad: not a descriptor number; give an open descriptor, e.g. --json-fd 3 3>denial.json"
		assert_empty "$KB_OUT"
		assert_not_exists "$ws/ran"
	done
}
run_test "--json-fd 9 (and KINBOX_JSON_FD=9) when 9 is not open: exit 125, the command is not run; --json-fd x/0/-1 too" t_json_fd_closed

t_two_ids() {
	d=$(newdir twoids)
	mkdir "$d/ws" "$d/outside"
	cd "$d/ws"
	XDG_STATE_HOME=$(state twoids)
	kb_expect 1 -- touch "$d/outside/f"
	id1=$(last_id "$KB_ERR")
	kb_expect 1 -- touch "$d/outside/f"
	id2=$(last_id "$KB_ERR")
	if [ -z "$id1" ] || [ -z "$id2" ]; then
		fail "no ids: '$id1' '$id2'"
	fi
	assert_strne "$id1" "$id2" "two denials, two ids"
	assert_exists "$(journal_file "$XDG_STATE_HOME" "$id1")"
	assert_exists "$(journal_file "$XDG_STATE_HOME" "$id2")"
	assert_streq "$(find "$XDG_STATE_HOME/kinbox/denials" -type f | wc -l)" 2 "two records"
}
run_test "two denials get different ids and two journal records" t_two_ids

t_argv_not_utf8() {
	d=$(newdir argvx)
	mkdir "$d/ws" "$d/outside"
	cd "$d/ws"
	XDG_STATE_HOME=$(state argvx)
	j=$KB_T/argvx.json
	bad=$(printf 'caf\351')
	kb_expect 1 --json-fd 3 -- touch "$d/outside/f" "$bad" 3>"$j"
	assert_json_line "$j"
	jcheck 'd["argv_exact"] is False and len(d["argv"]) == 3 and d["argv"][:2] == ["touch", a[0]]' "$j" -- "$d/outside/f"
}
run_test "an argument that is not UTF-8: the record says argv_exact false" t_argv_not_utf8

t_json_fd_not_inside() {
	d=$(newdir fdinside)
	mkdir "$d/ws" "$d/outside"
	cd "$d/ws"
	XDG_STATE_HOME=$(state fdinside)
	j=$KB_T/fdinside.json
	# FOR""GED: the argv in the record does not spell FORGED
	kb_expect 1 --json-fd 3 -- sh -c 'echo "{\"class\":\"FOR""GED\"}" >&3; echo FOR""GED >&3; touch ok "$1"' sh "$d/outside/f" 3>"$j"
	assert_json_line "$j"
	assert_not_file_has_content "$j" FORGED
	# the positive control: the command ran past its attempts (touch ok)
	assert_touched "$d/ws/ok"
	jcheck 'd["class"] == "write"' "$j"
}
run_test "the command cannot write to the --json-fd descriptor (no forged record)" t_json_fd_not_inside

# --json-fd is the channel an agent can trust because the command cannot
# write to it: a descriptor the command also has (0, 1, 2, a --keep-fd,
# or the same pipe or file as one of them) is refused, nothing run
t_json_fd_shared() {
	d=$(newdir fdshared)
	mkdir "$d/ws" "$d/outside"
	cd "$d/ws"
	XDG_STATE_HOME=$(state fdshared)
	j=$KB_T/fdshared.json
	kb_expect 125 --json-fd 3 --keep-fd 3 -- touch "$d/ws/ran" 3>"$j"
	assert_one_kinbox_line "$KB_ERR" "^kinbox: --json-fd 3 and --keep-fd 3: a kept descriptor is the command's to write, so it could forge the record; give --json-fd a descriptor of its own$"
	kb_expect 125 --keep-fd 3 --json-fd 3 -- touch "$d/ws/ran" 3>"$j"
	assert_file_is "$KB_ERR" "kinbox: --json-fd 3 and --keep-fd 3: a kept descriptor is the command's to write, so it could forge the record; give --json-fd a descriptor of its own"
	for fd in 1 2; do
		kb_expect 125 --json-fd "$fd" -- touch "$d/ws/ran"
		assert_file_is "$KB_ERR" "kinbox: --json-fd $fd: the command writes to descriptor $fd too, so it could forge a record there; give a descriptor of its own, e.g. --json-fd 3 3>denial.json"
	done
	# the line names what the user set: the environment variable
	(KINBOX_JSON_FD=2; export KINBOX_JSON_FD; kb_expect 125 -- touch "$d/ws/ran")
	assert_one_kinbox_line "$KB_ERR" '^kinbox: KINBOX_JSON_FD 2: the command writes to descriptor 2 too, so it could forge a record there; give a descriptor of its own, e\.g\. --json-fd 3 3>denial\.json$'
	# the same file as stdout, and a duplicate of a kept descriptor
	kb_expect 125 --json-fd 3 -- touch "$d/ws/ran" 3>>"$KB_OUT"
	assert_file_is "$KB_ERR" "kinbox: --json-fd 3 is the same pipe, socket or file as descriptor 1, which the command inherits, so it could forge a record; give it one of its own"
	kb_expect 125 --keep-fd 4 --json-fd 3 -- touch "$d/ws/ran" 3>"$j" 4>>"$j"
	assert_file_is "$KB_ERR" "kinbox: --json-fd 3 is the same pipe, socket or file as --keep-fd 4, which the command may write to, so it could forge a record; give it one of its own"
	assert_not_exists "$d/ws/ran"
	assert_empty "$j"
	# a descriptor of its own works, and /dev/null twice is no sharing
	kb_expect 1 --json-fd 3 -- touch "$d/outside/f" 3>"$j"
	assert_json_line "$j"
	"$KINBOX" --json-fd 3 -- touch "$d/ws/ran-own" 3>/dev/null >/dev/null 2>"$KB_ERR" ||
		fail "--json-fd 3 3>/dev/null with stdout /dev/null refused"
	assert_touched "$d/ws/ran-own"
}
run_test "--json-fd shared with the command (with --keep-fd of it, 1, 2, the same file as stdout, a dup of a kept fd): 125, not run; its own descriptor works" t_json_fd_shared

t_default_journal() {
	d=$(newdir defjournal)
	mkdir -p "$d/ws" "$d/outside" "$d/home"
	cd "$d/ws"
	export HOME="$d/home"
	unset XDG_STATE_HOME
	kb_expect 1 -- touch "$d/outside/f"
	id=$(last_id "$KB_ERR")
	jf=$HOME/.local/state/kinbox/denials/$id.json
	assert_exists "$jf"
	assert_streq "$(mode "$jf")" 600 "journal file mode"
	assert_streq "$(mode "$HOME/.local/state/kinbox/denials")" 700 "journal dir mode"
	jcheck 'd["id"] == a[0]' "$jf" -- "$id"
	# a relative XDG_STATE_HOME is ignored (XDG base directory spec)
	export XDG_STATE_HOME=rel-state
	kb_expect 1 -- touch "$d/outside/f"
	assert_not_exists "$d/ws/rel-state"
	assert_exists "$HOME/.local/state/kinbox/denials/$(last_id "$KB_ERR").json"
}
run_test "without XDG_STATE_HOME (or a relative one) the journal is ~/.local/state/kinbox/denials" t_default_journal

# ============================================================================
# 6. The journal cannot be written
# ============================================================================

t_journal_fails() {
	d=$(newdir jfail)
	mkdir -p "$d/ws" "$d/outside" "$d/st1" "$d/st2/kinbox"
	: >"$d/st1/kinbox"
	: >"$d/st2/kinbox/denials"
	cd "$d/ws"
	j=$KB_T/jfail.json
	for st in "$d/st1" "$d/st2"; do
		XDG_STATE_HOME=$st
		kb_expect 1 --json-fd 3 -- touch "$d/outside/f" 3>"$j"
		assert_streq "$(wc -l <"$KB_ERR")" 3 "stderr lines (touch, denial, journal)"
		assert_streq "$(sed -n 1p "$KB_ERR")" \
			"touch: cannot touch '$d/outside/f': Read-only file system"
		sed -n 2p "$KB_ERR" >"$KB_T/jfail.2"
		id=$(last_id "$KB_T/jfail.2")
		assert_streq "$(cat "$KB_T/jfail.2")" \
			"kinbox: denied write '$d/outside/f' (Read-only file system, read from the command's stderr); retry with --write $d/outside  [$id]"
		sed -n 3p "$KB_ERR" >"$KB_T/jfail.3"
		assert_file_has_content "$KB_T/jfail.3" '^kinbox: .*journal'
		assert_streq "$(kinbox_lines "$KB_ERR")" 2 "kinbox lines"
		# the record still reaches --json-fd
		jcheck 'd["id"] == a[0]' "$j" -- "$id"
		[ -f "$st/kinbox" ] || [ -f "$st/kinbox/denials" ] || fail "the planted file is gone"
	done
	XDG_STATE_HOME=$d/st1
	kb_expect 9 -- sh -c 'touch "$1"; exit 9' sh "$d/outside/f"
	assert_file_has_content "$KB_ERR" '^kinbox: .*journal'
}
run_test "journal not writable (a file at \$XDG_STATE_HOME/kinbox or .../denials): denial line, one journal line, exit status kept" t_journal_fails

# ============================================================================
# 7. The journal is read-only inside
# ============================================================================

t_journal_ro() {
	d=$(newdir jro)
	mkdir -p "$d/ws" "$d/outside"
	cd "$d/ws"
	XDG_STATE_HOME=$(state jro)
	kb_expect 1 -- touch "$d/outside/f"
	id=$(last_id "$KB_ERR")
	jd=$XDG_STATE_HOME/kinbox/denials
	cp "$jd/$id.json" "$KB_T/jro.before"
	# each run also writes ./okN in the workspace: the positive control
	kb -- sh -c 'echo ran > ok1; echo x > "$XDG_STATE_HOME/kinbox/denials/planted.json"'
	[ "$KB_RC" != 0 ] || fail "planting a record succeeded inside"
	assert_not_exists "$jd/planted.json"
	assert_file_is "$d/ws/ok1" ran
	kb -- sh -c 'echo ran > ok2; echo x >> "$XDG_STATE_HOME/kinbox/denials/$1.json"; rm -f "$XDG_STATE_HOME/kinbox/denials/$1.json"; mv "$XDG_STATE_HOME/kinbox/denials" "$XDG_STATE_HOME/kinbox/d2"' sh "$id"
	assert_files_equal "$KB_T/jro.before" "$jd/$id.json"
	assert_not_exists "$XDG_STATE_HOME/kinbox/d2"
	assert_file_is "$d/ws/ok2" ran
	# the default location, under a (fake) home
	mkdir "$d/home"
	export HOME="$d/home"
	unset XDG_STATE_HOME
	kb_expect 1 -- touch "$d/outside/f"
	hd=$HOME/.local/state/kinbox/denials
	assert_exists "$hd/$(last_id "$KB_ERR").json"
	kb -- sh -c 'echo ran > ok3; echo x > "$HOME/.local/state/kinbox/denials/planted.json"'
	[ "$KB_RC" != 0 ] || fail "planting a record under ~/.local/state succeeded inside"
	assert_not_exists "$hd/planted.json"
	assert_file_is "$d/ws/ok3" ran
}
run_test "the journal is read-only inside (\$XDG_STATE_HOME outside the workspace, and ~/.local/state): planted.json absent outside" t_journal_ro

t_journal_redirect() {
	d=$(newdir jredir)
	mkdir -p "$d/ws" "$d/outside" "$d/target" "$d/home/.local"
	cd "$d/ws"
	export HOME="$d/home"
	unset XDG_STATE_HOME
	# ~/.local granted writable: the command could reach the journal's
	# parent and point kinbox's journal write (done outside the sandbox,
	# as the caller) at another directory, or plant decisions that
	# kinpolicy retry obeys. Such a run is refused before anything runs.
	kb_expect 125 --write "$HOME/.local" -- sh -c 'touch "$2"; mkdir -p "$HOME/.local/state/kinbox";
		ln -s "$1" "$HOME/.local/state/kinbox/denials"' sh "$d/target" "$d/outside/f"
	assert_one_kinbox_line "$KB_ERR" \
		"^kinbox: ~/\\.local/state/kinbox \\($HOME/\\.local/state/kinbox\\) lies inside the write root $HOME/\\.local \\(flag\\): a command could forge the denial journal and the decisions kinpolicy retry obeys; grant a narrower write root than $HOME/\\.local$"
	assert_not_exists "$d/home/.local/state"
	# XDG_STATE_HOME elsewhere: the same grant runs, the journal is kept
	# outside it
	XDG_STATE_HOME=$d/state-elsewhere
	export XDG_STATE_HOME
	kb_expect 1 --write "$HOME/.local" -- touch "$HOME/.local/ok" "$d/outside/f"
	assert_touched "$HOME/.local/ok"
	assert_file_has_content "$KB_ERR" '^kinbox: denied write'
	assert_exists "$d/state-elsewhere/kinbox/denials/$(last_id "$KB_ERR").json"
	if [ -n "$(ls -A "$d/target")" ]; then
		ls -la "$d/target" >&2
		fail "kinbox wrote its journal record through a symlink planted by the command into $d/target (outside every writable root)"
	fi
}
run_test "a journal path reachable from inside (~/.local granted): 125, nothing run (no planted denials -> DIR symlink, nothing in DIR); with XDG_STATE_HOME elsewhere it runs" t_journal_redirect

# ============================================================================
# 8. The stderr relay
# ============================================================================

t_relay_blob() {
	ws=$(newdir relay)
	cd "$ws"
	XDG_STATE_HOME=$(state relay)
	head -c 200000 /dev/urandom >"$ws/blob"
	head -c 150001 /dev/urandom >"$ws/blob-out"
	kb_expect 0 -- sh -c 'cat blob >&2; cat blob-out'
	assert_files_equal "$ws/blob" "$KB_ERR"
	assert_files_equal "$ws/blob-out" "$KB_OUT"
	# stdout is the caller's descriptor itself, not a relay
	kb_expect 0 -- sh -c 'stat -L -c %d:%i /dev/stdout'
	assert_streq "$(cat "$KB_OUT")" "$(stat -c %d:%i "$KB_OUT")" "stdout's file inside"
}
run_test "relay: a 200000-byte binary blob on stderr arrives byte for byte; stdout untouched (the caller's own fd)" t_relay_blob

t_relay_order() {
	ws=$(newdir order)
	cd "$ws"
	kb_expect 0 -- sh -c 'echo a >&2; echo b >&2; echo c >&2'
	printf 'a\nb\nc\n' >"$KB_T/order.want"
	assert_files_equal "$KB_T/order.want" "$KB_ERR"
	assert_empty "$KB_OUT"
	kb_expect 0 -- sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do echo "e$i" >&2; sleep 0.01; done'
	seq 1 10 | sed 's/^/e/' >"$KB_T/order.want"
	assert_files_equal "$KB_T/order.want" "$KB_ERR"
}
run_test "relay: echo a; echo b; echo c to stderr arrive as exactly a, b, c" t_relay_order

t_relay_large() {
	ws=$(newdir large)
	cd "$ws"
	XDG_STATE_HOME=$(state large)
	head -c 52428800 /dev/urandom >"$KB_T/large.src"
	want=$(sha256sum <"$KB_T/large.src")
	if [ -x /usr/bin/time ] && /usr/bin/time -f %M -o "$KB_T/large.time" true 2>/dev/null; then
		rc=0
		/usr/bin/time -f %M -o "$KB_T/large.time" \
			"$KINBOX" -- sh -c 'cat "$1" >&2' sh "$KB_T/large.src" \
			>"$KB_OUT" 2>"$KB_ERR" || rc=$?
		assert_streq "$rc" 0 "exit status"
		rss=$(tail -n 1 "$KB_T/large.time")
		diag "kinbox max RSS with 50 MiB of stderr: $rss KiB"
		[ "$rss" -lt 8192 ] || fail "kinbox's max RSS was $rss KiB (>= 8 MiB) relaying 50 MiB"
	else
		echo "GNU time is not installed: RSS not checked" >&2
		kb_expect 0 -- sh -c 'cat "$1" >&2' sh "$KB_T/large.src"
	fi
	assert_streq "$(wc -c <"$KB_ERR")" 52428800 "bytes relayed"
	assert_streq "$(sha256sum <"$KB_ERR")" "$want" "sha256"
	# failing, through a slow reader (a pipe that fills up)
	{ "$KINBOX" -- sh -c 'cat "$1" >&2; exit 4' sh "$KB_T/large.src" 2>&1 >/dev/null || echo "rc=$?" >"$KB_T/large.rc"; } |
		{ sleep 1; sha256sum; } >"$KB_T/large.sum"
	assert_streq "$(cat "$KB_T/large.rc")" "rc=4" "exit status"
	assert_streq "$(cat "$KB_T/large.sum")" "$want" "sha256 through a pipe"
	rm -f "$KB_T/large.src"
}
run_test "relay: 50 MiB on stderr passes completely (size, sha256; also through a slow pipe); kinbox's RSS < 8 MiB" t_relay_large

t_relay_tail() {
	d=$(newdir tail)
	mkdir "$d/ws" "$d/outside"
	cd "$d/ws"
	XDG_STATE_HOME=$(state tail)
	j=$KB_T/tail.json
	# 1 MiB + 3 of noise first: the 64 KiB ring wraps mid-stream
	kb_expect 1 --json-fd 3 -- sh -c 'head -c 1048579 /dev/zero | tr "\0" y >&2; echo >&2; touch "$1"' sh "$d/outside/f" 3>"$j"
	assert_denial "$KB_ERR" \
		"kinbox: denied write '$d/outside/f' (Read-only file system, read from the command's stderr); retry with --write $d/outside"
	jcheck 'd["evidence"] == "touch: cannot touch '"'"'" + a[0] + "'"'"': Read-only file system"' "$j" -- "$d/outside/f"
	assert_streq "$(head -n 1 "$KB_ERR" | tr -d y | wc -c)" 1 "noise line"
	assert_streq "$(head -n 1 "$KB_ERR" | wc -c)" 1048580 "noise line length"
	cp "$KB_ERR" "$KB_T/tail.err"
	cp "$j" "$KB_T/tail.rec"
	agree "$KB_T/tail.err" "$KB_T/tail.rec" 1
}
run_test "relay: a denial after 1 MiB of other stderr is found in the 64 KiB tail (kinpolicy agrees)" t_relay_tail

# ============================================================================
# 9. A terminal
# ============================================================================

t_tty() {
	require script
	d=$(newdir tty)
	mkdir "$d/ws" "$d/outside"
	cd "$d/ws"
	XDG_STATE_HOME=$(state tty)
	rc=0
	script -qec "$KINBOX -- sh $B/tty-inner.sh" /dev/null </dev/null >"$KB_T/tty.out" 2>"$KB_T/tty.err" || rc=$?
	assert_streq "$rc" 0 "exit status"
	assert_file_has_content "$KB_T/tty.out" 'TTY2-OK'
	esc=$(printf '\033[31mred\033[0m')
	grep -qF -- "$esc" "$KB_T/tty.out" || {
		od -c "$KB_T/tty.out" >&2
		fail "the escape sequence did not arrive unchanged"
	}
	# a denial under a terminal: the line arrives, the status is kept
	rc=0
	script -qec "$KINBOX -- sh -c 'touch $d/ws/ok $d/outside/f; exit 5'" /dev/null </dev/null >"$KB_T/tty2.out" 2>"$KB_T/tty2.err" || rc=$?
	assert_streq "$rc" 5 "exit status under a terminal"
	# kinbox's line starts with an SGR reset, G0 = ASCII and SI (on a
	# terminal only): whatever state the command left does not apply
	reset=$(printf '\033[0m\033(B\017')
	tr -d '\r' <"$KB_T/tty2.out" >"$KB_T/tty2.raw"
	grep -qF -- "${reset}kinbox: denied" "$KB_T/tty2.raw" || {
		od -c "$KB_T/tty2.raw" >&2
		fail "no SGR reset before kinbox's line on a terminal"
	}
	sed "s/^$(printf '\033\\[0m\033(B\017')//" "$KB_T/tty2.raw" >"$KB_T/tty2.txt"
	assert_denial "$KB_T/tty2.txt" \
		"kinbox: denied write '$d/outside/f' (Read-only file system, read from the command's stderr); retry with --write $d/outside"
	assert_not_exists "$d/outside/f"
	assert_touched "$d/ws/ok"
}
run_test "terminal: the command's stderr is a tty, escape bytes arrive unchanged; a denial is reported under a tty, after an SGR reset" t_tty

# A command that leaves the terminal concealed (\e[8m), in red, in the
# line-drawing set, without a final newline: kinbox's own line still
# starts at column 0 after a full reset, and holds no raw control byte
# even for a path with ESC in it (kinbox prints the path escaped).
t_tty_hostile() {
	require script
	d=$(newdir ttyhostile)
	mkdir "$d/ws" "$d/outside"
	cd "$d/ws"
	XDG_STATE_HOME=$(state ttyhostile)
	bad=$(printf 'a\033[2Jb')
	mkdir "$d/outside/$bad"
	cat >"$KB_T/ttyh.sh" <<'EOF2'
printf 'sh: 1: cannot create %s/f: Read-only file system\n' "$1" >&2
printf '\033[31m\033(0\033[8mhidden' >&2
exit 2
EOF2
	rc=0
	script -qec "$KINBOX -- sh $KB_T/ttyh.sh '$d/outside/$bad'" /dev/null </dev/null >"$KB_T/ttyh.out" 2>"$KB_T/ttyh.err" || rc=$?
	assert_streq "$rc" 2 "exit status under a terminal"
	tr -d '\r' <"$KB_T/ttyh.out" >"$KB_T/ttyh.raw"
	reset=$(printf '\033[0m\033(B\017')
	# the reset, then a newline (the command's last line was unfinished),
	# then kinbox's line
	grep -qF -- "hidden$reset" "$KB_T/ttyh.raw" || {
		od -c "$KB_T/ttyh.raw" >&2
		fail "no reset right after the command's unfinished line"
	}
	grep -q '^kinbox: denied write' "$KB_T/ttyh.raw" || {
		od -c "$KB_T/ttyh.raw" >&2
		fail "kinbox's line does not start a line of its own"
	}
	grep '^kinbox: ' "$KB_T/ttyh.raw" >"$KB_T/ttyh.kb"
	if LC_ALL=C grep -q "$(printf '[\001-\037\177]')" "$KB_T/ttyh.kb"; then
		od -c "$KB_T/ttyh.kb" >&2
		fail "a raw control byte in kinbox's line"
	fi
	assert_file_has_content "$KB_T/ttyh.kb" \
		"^kinbox: denied write '$d/outside/a\\\\x1b\\[2Jb/f' \\(Read-only file system, read from the command's stderr\\); retry with --write \\$'$d/outside/a\\\\x1b\\[2Jb'  \\[sbx_[0-9a-f]{16}\\]$"
}
run_test "terminal: after \\e[8m, colour and \\e(0 without a newline the kinbox line starts fresh after a reset; a path with ESC in it is printed escaped" t_tty_hostile

# ============================================================================
# 10. kinpolicy fingerprint agrees with kinbox
# ============================================================================

t_agree() {
	d=$(newdir "agree-$1")
	mkdir -p "$d/ws" "$d/outside" "$d/cwd" "$d/home/.local/share"
	cd "$d/ws"
	XDG_STATE_HOME=$(state "agree-$1")
	j=$KB_T/agree.json
	flags=
	case $1 in
	etc)
		kb_expect 1 --json-fd 3 -- touch "$d/ws/ok" /etc/kinbox-t40 3>"$j"
		assert_touched "$d/ws/ok"
		if [ "$IS_ROOT" != 1 ]; then
			# no denial for the user: kinpolicy must say none too
			assert_no_denial "$KB_ERR"
			"$KP" fingerprint --status 1 --json <"$KB_ERR" >"$KB_T/fp.json"
			jcheck 'd["class"] == "none"' "$KB_T/fp.json"
			return 0
		fi ;;
	outside)
		kb_expect 1 --json-fd 3 -- touch "$d/outside/f" 3>"$j" ;;
	write-root)
		mkdir "$d/granted"
		kb_expect 1 --json-fd 3 -w "$d/granted" -- sh -c 'touch "$1/granted/ok" && touch "$1/outside/f"' sh "$d" 3>"$j"
		flags="--write $d/granted" ;;
	workspace)
		# the cwd below the workspace: a relative name is taken
		# from the cwd
		mkdir -p "$d/ws/sub/deeper"
		cd "$d/ws/sub/deeper"
		kb_expect 1 --json-fd 3 --workspace ../.. -- touch ok ../../../outside/rel 3>"$j"
		assert_touched "$d/ws/sub/deeper/ok"
		flags="--workspace $d/ws" ;;
	chdir)
		# -C from the parent: relative names are taken from DIR,
		# for kinbox and for kinpolicy fingerprint -C alike
		mkdir -p "$d/ws/sub"
		cd "$d"
		kb_expect 1 --json-fd 3 -C ws -C sub -- touch ok ../../outside/rel 3>"$j"
		assert_touched "$d/ws/sub/ok"
		flags="-C ws/sub" ;;
	home)
		export HOME="$d/home"
		kb_expect 1 --json-fd 3 -- mkdir -p "$HOME/.local/share/tool/v1" 3>"$j" ;;
	bashrc)
		export HOME="$d/home"
		kb_expect 1 --json-fd 3 -- touch "$HOME/.bashrc" 3>"$j" ;;
	network)
		require curl
		kb_expect 6 --json-fd 3 -- curl -sS -m 20 http://example.com/ 3>"$j"
		# the command too: its http:// URL names the port to suggest
		flags="-- curl -sS -m 20 http://example.com/" ;;
	ssh)
		require ssh-add
		kb_expect 2 --json-fd 3 --net -- ssh-add -l 3>"$j"
		flags=--net ;;
	*)
		assert_not_reached "unknown case $1" ;;
	esac
	assert_file_has_content "$KB_ERR" '^kinbox: denied'
	assert_json_line "$j"
	cp "$KB_ERR" "$KB_T/agree.err"
	# shellcheck disable=SC2086 # flags: words by design (no spaces in $KB_T)
	agree "$KB_T/agree.err" "$j" "$KB_RC" $flags
}
run_test "kinpolicy agrees with kinbox: write to /etc (root: write; user: none for both)" t_agree etc
run_test "kinpolicy agrees with kinbox: write to a user dir outside" t_agree outside
run_test "kinpolicy agrees with kinbox: write outside a --write root (--write)" t_agree write-root
run_test "kinpolicy agrees with kinbox: relative write from a cwd below the workspace (--workspace ../..)" t_agree workspace
run_test "kinpolicy agrees with kinbox: relative write after -C ws -C sub (fingerprint -C ws/sub)" t_agree chdir
run_test "kinpolicy agrees with kinbox: mkdir -p under a fake HOME's .local/share" t_agree home
run_test "kinpolicy agrees with kinbox: \$HOME/.bashrc (no --write root fits)" t_agree bashrc
run_test "kinpolicy agrees with kinbox: network (curl example.com)" t_agree network
run_test "kinpolicy agrees with kinbox: ssh (ssh-add -l, --net)" t_agree ssh

t_kinpolicy_flags_matter() {
	d=$(newdir kpflags)
	mkdir -p "$d/ws" "$d/granted"
	cd "$d/ws"
	printf "touch: cannot touch '%s/granted/f': Read-only file system\n" "$d" >"$KB_T/kpflags.in"
	"$KP" fingerprint --status 1 --json <"$KB_T/kpflags.in" >"$KB_T/kpflags.json"
	jcheck 'd["class"] == "write" and d["suggest"]["write_paths"] == [a[0]]' "$KB_T/kpflags.json" -- "$d/granted"
	# granted: the same text is the command's own failure
	"$KP" fingerprint --status 1 --write "$d/granted" --json <"$KB_T/kpflags.in" >"$KB_T/kpflags.json"
	jcheck 'd["class"] == "none"' "$KB_T/kpflags.json"
	# status 0 is never a denial
	"$KP" fingerprint --status 0 --json <"$KB_T/kpflags.in" >"$KB_T/kpflags.json"
	jcheck 'd["class"] == "none"' "$KB_T/kpflags.json"
	# network text with --net: none
	echo 'curl: (6) Could not resolve host: example.com' >"$KB_T/kpflags.net"
	"$KP" fingerprint --status 6 --net --json <"$KB_T/kpflags.net" >"$KB_T/kpflags.json"
	jcheck 'd["class"] == "none"' "$KB_T/kpflags.json"
	"$KP" fingerprint --status 6 --json <"$KB_T/kpflags.net" >"$KB_T/kpflags.json"
	jcheck 'd["class"] == "network" and d["host"] == "example.com"' "$KB_T/kpflags.json"
}
run_test "kinpolicy: --write, --net and --status 0 change the verdict as they would for kinbox" t_kinpolicy_flags_matter

t_kinpolicy_none() {
	ws=$(newdir kpnone)
	cd "$ws"
	XDG_STATE_HOME=$(state kpnone)
	kb_expect 1 -- cat missing
	# cat's own line and nothing else: cat ran, and no denial was added
	assert_file_is "$KB_ERR" "cat: missing: No such file or directory"
	rc=0
	"$KP" fingerprint --status 1 --json <"$KB_ERR" >"$KB_T/kpnone.json" || rc=$?
	assert_streq "$rc" 0 "kinpolicy exit status"
	assert_json_line "$KB_T/kpnone.json"
	jcheck 'd["class"] == "none" and "path" not in d and "host" not in d and d["suggest"] == {"write_paths": [], "network": False, "ssh_agent": False, "allow_sockets": [], "allowed_hosts": [], "devices": [], "gpu": False, "unconfined": False}' "$KB_T/kpnone.json"
	"$KP" fingerprint --status 1 <"$KB_ERR" >"$KB_T/kpnone.txt"
	assert_streq "$(wc -l <"$KB_T/kpnone.txt")" 1 "one line"
	assert_file_has_content "$KB_T/kpnone.txt" '^none: '
}
run_test "kinpolicy: an ordinary failure (cat missing) is class none / 'none: ...'" t_kinpolicy_none

t_kinpolicy_usage() {
	ws=$(newdir kpusage)
	cd "$ws"
	# ARGS|THE LINE kinpolicy prints
	while IFS='|' read -r args want; do
		rc=0
		# shellcheck disable=SC2086 # args: words by design
		"$KP" $args </dev/null >"$KB_OUT" 2>"$KB_ERR" || rc=$?
		[ "$rc" = 125 ] || {
			_show_file "$KB_ERR"
			fail "kinpolicy $args: exit $rc, expected 125"
		}
		assert_empty "$KB_OUT"
		assert_file_is "$KB_ERR" "kinpolicy: $want"
	done <<EOF
fingerprint|fingerprint: --status N is required (the command's exit status)
nosuchverb|unknown verb 'nosuchverb'; see kinpolicy --help
|no verb given; see kinpolicy --help
fingerprint --status 256|--status 256: too large; give the exit status, 0-255
fingerprint --status -1|--status -1: too small; give the exit status, 0-255
fingerprint --status x|--status x: invalid; give the exit status, 0-255
fingerprint --status 1 --ssh-agent|--ssh-agent needs --net, as in kinbox
fingerprint --status 1 --bogus|fingerprint: unknown option '--bogus'; see kinpolicy --help
fingerprint --status 1 extra|fingerprint: unexpected argument 'extra'; the stderr text goes on stdin, the command after --
fingerprint --status|option --status needs a value; see kinpolicy --help
fingerprint --status 1 --write $ws/missing|--write $ws/missing: no such directory; create it first or fix the path
EOF
	rc=0
	"$KP" --help >"$KB_OUT" 2>"$KB_ERR" || rc=$?
	assert_streq "$rc" 0 "kinpolicy --help"
	assert_empty "$KB_ERR"
	assert_streq "$(sed -n 1p "$KB_OUT")" "usage: kinpolicy VERB [OPTIONS]" "--help, line 1"
	grep -Fqx '  kinpolicy fingerprint --status N [-C DIR]... [--cwd DIR] [--workspace DIR] [--write DIR]... [--net] [--ssh-agent] [--backend bwrap|landlock] [--json] [-- COMMAND [ARG...]] < STDERR_FILE' "$KB_OUT" ||
		{ _show_file "$KB_OUT"; fail "--help does not show fingerprint's usage"; }
}
run_test "kinpolicy bad usage exits 125 with its one line: no --status, nosuchverb, no verb, bad status, --ssh-agent w/o --net, ..." t_kinpolicy_usage

# ============================================================================
# 11. Ordinary failures: no denial line, the exit status kept
# ============================================================================

# ordinary CODE ARG...: kinbox ARG... exits CODE with no kinbox line, no
# --json-fd record and no journal entry
ordinary() {
	_want=$1
	shift
	XDG_STATE_HOME=$KB_T/ord-state.$$
	rm -rf "$XDG_STATE_HOME"
	kb_expect "$_want" --json-fd 3 "$@" 3>"$KB_T/ord.json"
	assert_no_denial "$KB_ERR"
	assert_no_denial "$KB_OUT"
	assert_empty "$KB_T/ord.json"
	assert_not_exists "$XDG_STATE_HOME"
}

t_ordinary() {
	d=$(newdir "ord-$1")
	mkdir -p "$d/ws"
	cd "$d/ws"
	# each case shows that the command ran: a marker it wrote in the
	# workspace (./ok), or its own message on stderr
	case $1 in
	exit3)
		ordinary 3 -- sh -c 'echo ran > ok; exit 3'
		assert_file_is "$d/ws/ok" ran ;;
	false)
		ordinary 1 -- sh -c 'echo ran > ok; exec false'
		assert_file_is "$d/ws/ok" ran ;;
	cat)
		ordinary 1 -- cat missing-file
		assert_file_is "$KB_ERR" "cat: missing-file: No such file or directory" ;;
	python)
		ordinary 1 -- python3 -c 'assert 1 == 2, "kinbox-t40 boom"'
		assert_file_has_content "$KB_ERR" 'AssertionError: kinbox-t40 boom' ;;
	chmod000)
		echo old >"$d/ws/f000"
		chmod 000 "$d/ws/f000"
		ordinary 2 -- sh -c 'echo ran > ok; echo new > f000'
		assert_file_has_content "$KB_ERR" 'Permission denied'
		assert_file_is "$d/ws/ok" ran
		chmod 600 "$d/ws/f000"
		assert_streq "$(cat "$d/ws/f000")" old "f000 content" ;;
	curl-local)
		require curl
		port=$(python3 "$B/freeport.py")
		ordinary 7 --net -- curl -sS -m 20 "http://127.0.0.1:$port/"
		assert_file_has_content "$KB_ERR" "Couldn't connect to server" ;;
	success)
		ordinary 0 -- sh -c 'echo ran > ok; echo "touch: cannot touch /etc/x: Read-only file system" >&2'
		assert_file_is "$d/ws/ok" ran
		assert_file_is "$KB_ERR" "touch: cannot touch /etc/x: Read-only file system" ;;
	*)
		assert_not_reached "unknown case $1" ;;
	esac
}
run_test "ordinary: sh -c 'echo ran > ok; exit 3' keeps 3 (./ok written), no denial" t_ordinary exit3
run_test "ordinary: false (exec'd by sh after it wrote ./ok), no denial" t_ordinary false
run_test "ordinary: cat missing-file, no denial" t_ordinary cat
run_test "ordinary: a failing python assert, no denial" t_ordinary python
run_test "ordinary: writing a chmod 000 file in the workspace fails (uid $(id -u)), no denial" t_ordinary chmod000
run_test "ordinary: curl to a closed 127.0.0.1 port WITH --net, no denial" t_ordinary curl-local
run_test "ordinary: a successful command that prints a denial-like message, no denial" t_ordinary success

# ============================================================================
# 12. kinbox's own lines are kinbox's
# ============================================================================

# no_raw_control FILE: no byte below 0x20 but the newline, no DEL
no_raw_control() {
	if LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]')" "$1"; then
		od -c "$1" | sed -n 1,40p >&2
		fail "$1 holds a raw control byte"
	fi
}

t_own_lines() {
	d=$(newdir ownlines)
	mkdir "$d/ws" "$d/outside"
	cd "$d/ws"
	XDG_STATE_HOME=$(state ownlines)
	# a path with ESC, DEL and a C1 CSI (as UTF-8) in a denial line, no tty
	bad=$(printf 'a\033[2J\177\302\233b')
	mkdir "$d/outside/$bad"
	kb_expect 2 -- sh -c 'printf "sh: 1: cannot create %s/f: Read-only file system\n" "$1" >&2; printf "no newline" >&2; exit 2' sh "$d/outside/$bad"
	grep '^kinbox: ' "$KB_ERR" >"$d/kb.lines"
	no_raw_control "$d/kb.lines"
	assert_denial "$KB_ERR" \
		"kinbox: denied write '$d/outside/a\\x1b[2J\\x7f\\xc2\\x9bb/f' (Read-only file system, read from the command's stderr); retry with --write \$'$d/outside/a\\x1b[2J\\x7f\\xc2\\x9bb'"
	assert_streq "$(tail -n 2 "$KB_ERR" | head -n 1)" "no newline" "the command's unfinished line ends before kinbox's"
	# an argv[0] with a newline and ESC: the exec error is one line
	zero=$(printf 'no\nkinbox: SECURITY: forged\033[8m')
	kb_expect 127 -- "$zero"
	assert_one_kinbox_line "$KB_ERR" '^kinbox: no\\nkinbox: SECURITY: forged\\x1b\[8m: command not found$'
	# a hook named with a newline: the audit's line stays one line
	require git
	mkdir "$d/newrepo-ws"
	cd "$d/newrepo-ws"
	kb -- sh -c 'git init -q . && h=".git/hooks/$(printf "pre-commit\nkinbox: SECURITY: forged \033[8m")" && printf "#!/bin/sh\n" >"$h" && chmod +x "$h"'
	grep '^kinbox: ' "$KB_ERR" >"$d/kb.lines" || true
	no_raw_control "$KB_ERR"
	# the positive control: the repository the command made is there
	git --git-dir="$d/newrepo-ws/.git" rev-parse -q --git-dir >/dev/null ||
		fail "the command's git init left no repository"
	assert_streq "$(grep -c '^kinbox: SECURITY: forged' "$KB_ERR" || true)" 0 "forged kinbox lines"
	assert_file_has_content "$KB_ERR" '^kinbox: SECURITY: .*pre-commit\\nkinbox: SECURITY: forged \\x1b\[8m'
}
run_test "kinbox's lines escape what the command chose: a path with ESC/DEL/C1 in a denial line, argv[0] with a newline in the exec error, a hook name with a newline in the audit; no raw control byte, no forged line" t_own_lines

# ============================================================================
# Every denial of a run; guarded paths; a directory to make first; how
# kinpolicy fingerprint resolves what it is given
# ============================================================================

t_every_denial() {
	d=$(newdir every)
	mkdir "$d/ws" "$d/out1" "$d/out2"
	cd "$d/ws"
	XDG_STATE_HOME=$(state every)
	j=$KB_T/every.json
	kb_expect 1 --json-fd 3 -- sh -c 'touch ../out1/a; mkdir ../out2/b; echo ran > ok; exit 1' 3>"$j"
	assert_file_is "$d/ws/ok" ran
	assert_not_exists "$d/out1/a"
	assert_not_exists "$d/out2/b"
	# one line each, the same id, in the order of the command's stderr
	assert_streq "$(kinbox_lines "$KB_ERR")" 2 "kinbox lines"
	grep '^kinbox: ' "$KB_ERR" >"$KB_T/every.lines"
	assert_streq "$(sed -n 1p "$KB_T/every.lines" | sed 's/  \[sbx_[0-9a-f]*\]$//')" \
		"kinbox: denied write '$d/out1/a' (Read-only file system, read from the command's stderr); retry with --write $d/out1" \
		"first line"
	assert_streq "$(sed -n 2p "$KB_T/every.lines" | sed 's/  \[sbx_[0-9a-f]*\]$//')" \
		"kinbox: denied write '$d/out2/b' (Read-only file system, read from the command's stderr); retry with --write $d/out2" \
		"second line"
	assert_streq "$(sed -n 's/.*  \[\(sbx_[0-9a-f]*\)\]$/\1/p' "$KB_T/every.lines" | sort -u | wc -l)" 1 "ids"
	assert_json_line "$j"
	jcheck 'd["schema"] == 1 and len(d["denials"]) == 2 and [x["path"] for x in d["denials"]] == [a[0] + "/out1/a", a[0] + "/out2/b"]' "$j" -- "$d"
	# one grant and one retry for both
	jcheck 'd["suggest"]["write_paths"] == [a[0] + "/out1", a[0] + "/out2"] and d["denials"][1]["suggest"]["write_paths"] == [a[0] + "/out2"]' "$j" -- "$d"
	kb_expect 0 --write "$d/out1" --write "$d/out2" -- sh -c 'touch ../out1/a; mkdir ../out2/b'
	assert_exists "$d/out1/a"
	assert_exists "$d/out2/b"
}
run_test "two refused writes in one run: two lines with one id, denials[] of two, suggest holds both roots; granting both works" t_every_denial

t_guarded_hook() {
	require git
	d=$(newdir guarded)
	mkdir "$d/ws"
	mkrepo "$d/ws"
	cd "$d/ws"
	XDG_STATE_HOME=$(state guarded)
	j=$KB_T/guarded.json
	kb_expect 1 --json-fd 3 -- sh -c 'echo ran > ok; cp ok .git/hooks/pre-commit' 3>"$j"
	assert_file_is "$d/ws/ok" ran
	assert_not_exists "$d/ws/.git/hooks/pre-commit"
	assert_denial "$KB_ERR" \
		"kinbox: refused write '$d/ws/.git/hooks/pre-commit' (Read-only file system, read from the command's stderr): guarded by kinbox's git guard (hooks run outside the sandbox, as you); no grant lifts it, by design, so do not ask for one"
	jcheck 'd["class"] == "guarded" and d["path"] == a[0] + "/ws/.git/hooks/pre-commit" and d["suggest"] == {"write_paths": [], "network": False, "ssh_agent": False, "allow_sockets": [], "allowed_hosts": [], "devices": [], "gpu": False, "unconfined": False}' "$j" -- "$d"
	# and git config's rename onto the guarded .git/config (EBUSY)
	kb_expect 4 --json-fd 3 -- git config core.hooksPath hooks 3>"$j"
	assert_file_has_content "$KB_ERR" 'Device or resource busy'
	jcheck 'd["class"] == "guarded" and d["path"] == a[0] + "/ws/.git/config"' "$j" -- "$d"
	assert_not_file_has_content "$d/ws/.git/config" hooksPath
}
run_test "guarded: a hook and .git/config in the workspace are refused by design: class guarded, nothing suggested, nothing written" t_guarded_hook

t_guarded_store() {
	d=$(newdir gstore)
	mkdir "$d/ws"
	cd "$d/ws"
	XDG_STATE_HOME=$(state gstore)
	mkdir -p "$XDG_STATE_HOME/kinbox/denials"
	j=$KB_T/gstore.json
	kb_expect 1 --json-fd 3 -- sh -c 'echo ran > ok; touch "$1"' sh "$XDG_STATE_HOME/kinbox/denials/sbx_0000000000000000.json" 3>"$j"
	assert_file_is "$d/ws/ok" ran
	assert_not_exists "$XDG_STATE_HOME/kinbox/denials/sbx_0000000000000000.json"
	jcheck 'd["class"] == "guarded" and "store" in d["guard"] and not any(d["suggest"][k] for k in ("network", "ssh_agent", "unconfined")) and d["suggest"]["write_paths"] == []' "$j"
	assert_file_has_content "$KB_ERR" "^kinbox: refused write '.*/kinbox/denials/sbx_0000000000000000.json' .*: guarded by kinbox's own store"
}
run_test "guarded: kinbox's own journal is hidden from the sandbox; a write there is class guarded, not a grant" t_guarded_store

t_make_first() {
	d=$(newdir makefirst)
	mkdir "$d/ws"
	cd "$d/ws"
	XDG_STATE_HOME=$(state makefirst)
	j=$KB_T/makefirst.json
	new="$HOME/.kbt40-new-$$"
	kb_expect 1 --json-fd 3 -- mkdir -p "$new/data" 3>"$j"
	assert_not_exists "$new"
	assert_denial "$KB_ERR" \
		"kinbox: denied write '$new' (Read-only file system, read from the command's stderr): $new does not exist, and kinbox grants only existing directories; create it outside the sandbox (mkdir -p $new), then retry with --write $new"
	jcheck 'd["suggest"]["write_paths"] == [a[0]] and d["suggest"]["create"] == [a[0]] and d["suggest"]["unconfined"] is False' "$j" -- "$new"
	# the advice works
	mkdir "$new"
	cleanup_add "rm -rf '$new'"
	kb_expect 0 --write "$new" -- mkdir -p "$new/data"
	assert_exists "$new/data"
}
run_test "a missing directory in \$HOME: make it outside, then --write it (not --unconfined); following the advice works" t_make_first

t_ssh_nonet() {
	require ssh
	d=$(newdir sshnonet)
	mkdir "$d/ws"
	cd "$d/ws"
	XDG_STATE_HOME=$(state sshnonet)
	j=$KB_T/sshnonet.json
	port=$(python3 "$B/freeport.py")
	kb_expect 255 --json-fd 3 -- ssh -o BatchMode=yes -p "$port" 127.0.0.1 true 3>"$j"
	# it ran: ssh's own message, then kinbox's
	assert_file_has_content "$KB_ERR" "^ssh: connect to host 127.0.0.1 port $port: "
	# --net alone would only reach "Host key verification failed"
	# (~/.ssh is hidden): the advice is both
	assert_denial "$KB_ERR" \
		"kinbox: denied ssh (no network (the host's loopback is not shared), read from the command's stderr); retry with --ssh-agent --net"
	jcheck 'd["class"] == "ssh" and d["suggest"]["ssh_agent"] is True and d["suggest"]["network"] is True' "$j"
}
run_test "ssh without the network: class ssh, --ssh-agent --net (not --net alone)" t_ssh_nonet

t_fingerprint_paths() {
	d=$(newdir fppaths)
	mkdir -p "$d/ws/sub" "$d/out"
	# from elsewhere: relative names are the command's, from the workspace
	cd /
	printf "touch: cannot touch '../out/x': Read-only file system\n" >"$KB_T/fp1"
	"$KP" fingerprint --status 1 --workspace "$d/ws" --json <"$KB_T/fp1" >"$KB_T/fp1.json"
	jcheck 'd["class"] == "write" and d["path"] == a[0] + "/out/x" and d["suggest"]["write_paths"] == [a[0] + "/out"]' "$KB_T/fp1.json" -- "$d"
	# --cwd: the command ran in ws/sub
	printf "touch: cannot touch '../../out/y': Read-only file system\n" >"$KB_T/fp2"
	"$KP" fingerprint --status 1 --workspace "$d/ws" --cwd "$d/ws/sub" --json <"$KB_T/fp2" >"$KB_T/fp2.json"
	jcheck 'd["path"] == a[0] + "/out/y"' "$KB_T/fp2.json" -- "$d"
	# EACCES inside the workspace is the file's own mode: none
	printf "touch: cannot touch 'sub/z': Permission denied\n" >"$KB_T/fp3"
	"$KP" fingerprint --status 1 --workspace "$d/ws" --json <"$KB_T/fp3" >"$KB_T/fp3.json"
	jcheck 'd["class"] == "none" and d["denials"] == []' "$KB_T/fp3.json"
	# Landlock refuses with EACCES, bwrap's mounts with EROFS
	printf "open %s/out/w: permission denied\n" "$d" >"$KB_T/fp4"
	"$KP" fingerprint --status 1 --workspace "$d/ws" --json <"$KB_T/fp4" >"$KB_T/fp4.json"
	"$KP" fingerprint --status 1 --workspace "$d/ws" --backend landlock --json <"$KB_T/fp4" >"$KB_T/fp4l.json"
	jcheck 'd0["class"] == "none" and d1["class"] == "write" and d1["suggest"]["write_paths"] == [a[0] + "/out"]' "$KB_T/fp4.json" "$KB_T/fp4l.json" -- "$d"
	# a message with no path: the command after -- names it
	printf "X.java:1: error: error while writing X: could not create parent directories\n" >"$KB_T/fp5"
	"$KP" fingerprint --status 1 --workspace "$d/ws" --json -- javac -d ../out/classes X.java <"$KB_T/fp5" >"$KB_T/fp5.json"
	jcheck 'd["class"] == "write" and d["path"] == a[0] + "/out/classes"' "$KB_T/fp5.json" -- "$d"
	"$KP" fingerprint --status 1 --workspace "$d/ws" --json <"$KB_T/fp5" >"$KB_T/fp5n.json"
	jcheck 'd["class"] == "none"' "$KB_T/fp5n.json"
}
run_test "kinpolicy fingerprint: relative names from the workspace (or --cwd), EACCES inside is none, --backend landlock, the command after --" t_fingerprint_paths

# ============================================================================
# The landlock backend: its refusals are EACCES of system calls
# ============================================================================
# A server of the test's own, on 127.0.0.1 or a unix socket under $KB_T,
# outside the sandbox: the positive controls reach it.

# llsrv.py tcp PORTFILE | unix PATH: answers "ok" to each connection; the
# port file (or the socket) appears once it listens
cat >"$B/llsrv.py" <<'EOF'
import os, socket, sys
kind, where = sys.argv[1], sys.argv[2]
if kind == "tcp":
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
else:
    s = socket.socket(socket.AF_UNIX)
    s.bind(where)
s.listen(8)
if kind == "tcp":
    with open(where + ".tmp", "w") as f:
        f.write("%d\n" % s.getsockname()[1])
    os.rename(where + ".tmp", where)
while True:
    c, _ = s.accept()
    c.sendall(b"ok\n")
    c.close()
EOF

# landlock_or_skip: the landlock backend runs here (Landlock ABI >= 3)
landlock_or_skip() {
	require python3
	mkdir -p "$KB_T/llprobe"
	if ! (cd "$KB_T/llprobe" && "$KINBOX" --backend landlock -- true) \
		>"$KB_T/llprobe.log" 2>&1; then
		skip_test "the landlock backend cannot run here: $(head -n 1 "$KB_T/llprobe.log")"
	fi
}

# wait_for PATH: up to 10 s for PATH to appear
wait_for() {
	_n=0
	while [ ! -e "$1" ]; do
		_n=$((_n + 1))
		[ "$_n" -le 100 ] || fail "$1 did not appear"
		sleep 0.1
	done
}

t_landlock_network() {
	landlock_or_skip
	ws=$(newdir llnet)
	cd "$ws"
	XDG_STATE_HOME=$(state llnet)
	python3 "$B/llsrv.py" tcp "$KB_T/llnet.port" &
	bg_register $!
	wait_for "$KB_T/llnet.port"
	port=$(cat "$KB_T/llnet.port")
	get='import socket, sys; print(socket.create_connection(("127.0.0.1", int(sys.argv[1]))).recv(8).decode().strip())'
	# the network is off: Landlock refuses the connect (EACCES), and the
	# traceback's socket.py is no refused write
	j=$KB_T/llnet.json
	kb_expect 1 --backend landlock --json-fd 3 -- python3 -c "$get" "$port" 3>"$j"
	assert_empty "$KB_OUT"
	grep -Fqx 'PermissionError: [Errno 13] Permission denied' "$KB_ERR" ||
		fail "python3 did not fail with EACCES"
	assert_denial "$KB_ERR" \
		"kinbox: denied network (no network (landlock backend), read from the command's stderr); retry with --net"
	assert_json_line "$j"
	jkeys "$j"
	jcheck 'd["class"] == "network" and d["backend"] == "landlock" and d["denials"][0]["backend"] == "landlock" and d["reason"] == "no network (landlock backend)" and d["evidence"] == "PermissionError: [Errno 13] Permission denied" and len(d["denials"]) == 1' "$j"
	jcheck 'd["suggest"] == {"write_paths": [], "network": True, "ssh_agent": False, "allow_sockets": [], "allowed_hosts": [], "devices": [], "gpu": False, "unconfined": False}' "$j"
	jcheck 'd["policy"]["network"] is False' "$j"
	# the positive control: --net, as suggested, reaches the same server
	j2=$KB_T/llnet2.json
	kb_expect 0 --backend landlock --net --json-fd 3 -- python3 -c "$get" "$port" 3>"$j2"
	assert_streq "$(cat "$KB_OUT")" "ok"
	assert_no_denial "$KB_ERR"
	assert_empty "$j2"
}
run_test "landlock backend, network off: python's connect to a 127.0.0.1 server fails with EACCES: a network denial (no write of socket.py), JSON backend landlock, suggest.network; with --net it answers" t_landlock_network

t_landlock_unix_tmp() {
	landlock_or_skip
	ws=$(newdir llunix)
	cd "$ws"
	XDG_STATE_HOME=$(state llunix)
	sock=$KB_T/ll.sock
	python3 "$B/llsrv.py" unix "$sock" &
	bg_register $!
	wait_for "$sock"
	conn='import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(s.recv(8).decode().strip())'
	# the positive control: outside the sandbox the socket answers
	assert_streq "$(python3 -c "$conn" "$sock")" "ok"
	# socket(AF_UNIX) is refused, with --net too: no grant lifts it here
	j=$KB_T/llunix.json
	kb_expect 1 --backend landlock --net --json-fd 3 -- python3 -c "$conn" "$sock" 3>"$j"
	assert_empty "$KB_OUT"
	assert_denial "$KB_ERR" \
		"kinbox: denied by the sandbox (unix socket refused (landlock backend), read from the command's stderr): the landlock backend refuses every unix socket, with or without --net (Landlock cannot tell one from another), whatever the grant, and the bwrap backend allows it (kinbox --status says whether it runs here); else only --unconfined would allow it, and nothing but the command's stderr says that it is needed"
	assert_json_line "$j"
	jkeys "$j"
	jcheck 'd["class"] == "other" and d["backend"] == "landlock" and d["reason"] == "unix socket refused (landlock backend)" and "path" not in d' "$j"
	jcheck 'd["suggest"] == {"write_paths": [], "network": False, "ssh_agent": False, "allow_sockets": [], "allowed_hosts": [], "devices": [], "gpu": False, "unconfined": True}' "$j"
	# /tmp is the host's, read-only; what helps is $TMPDIR, not a grant
	f=/tmp/kinbox-t40-ll.$$
	rm -f "$f"
	j3=$KB_T/lltmp.json
	kb_expect 2 --backend landlock --json-fd 3 -- sh -c 'echo x > "$1"' sh "$f" 3>"$j3"
	assert_not_exists "$f"
	assert_denial "$KB_ERR" \
		"kinbox: denied write '$f' (Permission denied, read from the command's stderr): the landlock backend has no private /tmp (the host's is read-only); write to \$TMPDIR instead, or run where bubblewrap works (kinbox --status)"
	jcheck 'd["class"] == "write" and d["path"] == a[0] and d["backend"] == "landlock" and d["suggest"] == {"write_paths": [], "network": False, "ssh_agent": False, "allow_sockets": [], "allowed_hosts": [], "devices": [], "gpu": False, "unconfined": False}' "$j3" -- "$f"
	# the positive control: $TMPDIR (the run's own directory) is writable
	kb_expect 0 --backend landlock -- sh -c 'echo x > "$TMPDIR/ok" && cat "$TMPDIR/ok"'
	assert_streq "$(cat "$KB_OUT")" "x"
	assert_no_denial "$KB_ERR"
}
run_test "landlock backend: AF_UNIX to a socket served outside is class other even with --net (it answers outside); a /tmp write says \$TMPDIR, suggests no --write, the file is absent; \$TMPDIR works" t_landlock_unix_tmp

done_testing
