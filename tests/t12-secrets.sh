#!/bin/sh
# tests/t12-secrets.sh — what kinbox keeps from the command: secrets in the
# environment, credential stores in the home directory, the host's sockets
# and the SSH agent (unless granted), kinbox's own config and journal.
#
# Every property is checked against the planted value: a canary that must
# not appear in what the command saw (captured outside), a listener outside
# that must not log a connection, a file outside that must stay unchanged —
# never by an exit status alone. Each test uses a fake HOME (a directory of
# its own under the script's temporary directory); workspaces lie outside
# both the fake HOME and the caller's passwd home, except where a test puts
# one below the fake HOME on purpose.
#
# Run: sh tests/t12-secrets.sh (TAP), or all suites: sh tests/run-integration.sh
# KINBOX=/path/to/kinbox picks the binary (default: the repo's ./kinbox).
# shellcheck disable=SC2317,SC2016,SC2164
# SC2317: the t_* bodies are called through run_test.
# SC2016: single-quoted $... is meant for the shell inside the sandbox.
# SC2164: lib.sh sets -e (test bodies run under set -e): a failed cd fails.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

B=$KB_T/bin
mkdir "$B"

# Host state that would change what kinbox masks or exposes: every test sets
# what it needs itself.
unset XDG_RUNTIME_DIR DOCKER_HOST SSH_AUTH_SOCK SSH_AGENT_PID \
	DBUS_SESSION_BUS_ADDRESS GPG_AGENT_INFO VSCODE_IPC_HOOK_CLI \
	VSCODE_IPC_HOOK XAUTHORITY KRB5CCNAME XDG_STATE_HOME \
	XDG_CONFIG_HOME KINBOX_JSON_FD || true

# python3: the system one when there is one (a pyenv shim in PATH works too,
# but is slower and depends on the caller's HOME)
PY=python3
if [ -x /usr/bin/python3 ]; then
	PY=/usr/bin/python3
fi
# a name unique to this run (abstract socket names are host-wide)
RUN_ID=$(basename "$KB_T")

# --- preflight ---------------------------------------------------------------
if [ ! -x "$KINBOX" ]; then
	tap_not_ok "kinbox binary $KINBOX exists (build it: make kinbox kinbox-exec)"
	done_testing
fi
mkdir "$KB_T/preflight"
if ! (cd "$KB_T/preflight" && "$KINBOX" -- true) >"$KB_T/preflight.log" 2>&1; then
	diag "$(cat "$KB_T/preflight.log")"
	skip_all "kinbox cannot set up a sandbox on this host"
fi
diag "kinbox: $KINBOX; uid $(id -u); kernel $(uname -r)"

# --- helper programs (outside every workspace: read-only inside) -----------

# userv.py ADDR LOG READY [dgram]: a unix stream (or datagram) listener.
# ADDR is a path, or @NAME for the abstract socket NAME. An existing file at
# the path is replaced (as daemons do when they restart). Logs
# "CONN <first line>" per accepted connection (datagram) to LOG, writes
# READY once listening.
cat >"$B/userv.py" <<'EOF'
import os, socket, sys
addr, log, ready = sys.argv[1], sys.argv[2], sys.argv[3]
dgram = len(sys.argv) > 4 and sys.argv[4] == "dgram"
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM if dgram else socket.SOCK_STREAM)
if addr.startswith("@"):
    s.bind("\0" + addr[1:])
else:
    try:
        os.unlink(addr)
    except FileNotFoundError:
        pass
    s.bind(addr)
    os.chmod(addr, 0o777)
open(log, "ab").close()
if dgram:
    with open(ready + ".tmp", "w") as f:
        f.write("%d\n" % os.getpid())
    os.rename(ready + ".tmp", ready)
    while True:
        data = s.recv(200)
        with open(log, "ab") as f:
            f.write(b"CONN " + data.strip() + b"\n")
s.listen(16)
with open(ready + ".tmp", "w") as f:
    f.write("%d\n" % os.getpid())
os.rename(ready + ".tmp", ready)
while True:
    c, _ = s.accept()
    c.settimeout(2)
    try:
        data = c.recv(200)
    except OSError:
        data = b""
    with open(log, "ab") as f:
        f.write(b"CONN " + data.strip() + b"\n")
    c.close()
EOF

# uprobe.py ADDR TAG [dgram]: connect to the unix socket ADDR (@NAME:
# abstract), send TAG (dgram: one datagram with sendto); prints "CONNECTED"
# or "REFUSED errno=<NAME>"
cat >"$B/uprobe.py" <<'EOF'
import errno, socket, sys
addr, tag = sys.argv[1], sys.argv[2]
dgram = len(sys.argv) > 3 and sys.argv[3] == "dgram"
if addr.startswith("@"):
    addr = "\0" + addr[1:]
try:
    # a sandbox may refuse the socket itself (the landlock backend)
    c = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM if dgram else socket.SOCK_STREAM)
    c.settimeout(3)
    if dgram:
        c.sendto(tag.encode() + b"\n", addr)
    else:
        c.connect(addr)
        c.sendall(tag.encode() + b"\n")
    c.close()
    print("CONNECTED")
except OSError as e:
    print("REFUSED errno=%s" % errno.errorcode.get(e.errno, str(e.errno)))
EOF

# uself.py PATH NAME: a server the command starts itself, on the pathname
# socket PATH and the abstract socket NAME; a child connects to each and
# sends a line. Prints "SELF-PATH <line>" and "SELF-ABSTRACT <line>", or
# the error.
cat >"$B/uself.py" <<'EOF'
import os, socket, sys
def roundtrip(addr, label):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.bind(addr)
        s.listen(1)
    except OSError as e:
        print("%s bind-failed errno=%d" % (label, e.errno))
        return
    pid = os.fork()
    if pid == 0:
        try:
            c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            c.connect(addr)
            c.sendall(b"hello-from-child\n")
            c.close()
        except OSError as e:
            print("%s connect-failed errno=%d" % (label, e.errno), flush=True)
        os._exit(0)
    s.settimeout(5)
    try:
        conn, _ = s.accept()
        print("%s %s" % (label, conn.recv(100).decode().strip()))
    except OSError as e:
        print("%s accept-failed %s" % (label, e))
    os.waitpid(pid, 0)
roundtrip(sys.argv[1], "SELF-PATH")
roundtrip("\0" + sys.argv[2], "SELF-ABSTRACT")
EOF

# envscan.py PID: the environment of every process below PID (not PID
# itself), as seen from the host: "ENV <pid> <comm> <VAR=value>" lines, or
# "DENIED <pid> <comm>" when it cannot be read
cat >"$B/envscan.py" <<'EOF'
import os, sys
root = int(sys.argv[1])
children = {}
comm = {}
for d in os.listdir("/proc"):
    if not d.isdigit():
        continue
    try:
        with open("/proc/%s/stat" % d) as f:
            st = f.read()
    except OSError:
        continue
    name = st[st.index("(") + 1:st.rindex(")")]
    ppid = int(st[st.rindex(")") + 2:].split()[1])
    children.setdefault(ppid, []).append(int(d))
    comm[int(d)] = name
todo, seen = [root], []
while todo:
    p = todo.pop()
    for c in children.get(p, []):
        seen.append(c)
        todo.append(c)
for p in sorted(seen):
    try:
        with open("/proc/%d/environ" % p, "rb") as f:
            env = f.read()
    except OSError:
        print("DENIED %d %s" % (p, comm[p]))
        continue
    for kv in env.split(b"\0"):
        if kv:
            print("ENV %d %s %s" % (p, comm[p], kv.decode(errors="replace")))
EOF

# wait-go.sh: the command's side of a handshake with the host: ./ready,
# then (bounded) wait for ./go
cat >"$B/wait-go.sh" <<'EOF'
: >ready
i=0
while [ ! -e go ] && [ "$i" -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
EOF

# --- shared helpers (newdir is in lib.sh) -----------------------------------
# setup NAME: $d=$KB_T/NAME, the workspace $ws=$d/ws (current directory),
# the fake home $H=$d/home (exported as HOME)
setup() {
	d=$(newdir "$1")
	ws=$d/ws
	H=$d/home
	mkdir -p "$ws" "$H"
	HOME=$H
	# denial records kinbox itself writes after a failed run go here, not
	# into the fake home that some tests compare before and after
	XDG_STATE_HOME=$d/state
	export HOME XDG_STATE_HOME
	cd "$ws"
}

# The planted secrets: the value of every one contains "kb-canary-". The
# kb-keep-* variables look similar but match no rule: they must survive.
export_canaries() {
	AWS_SECRET_ACCESS_KEY=kb-canary-01
	GITHUB_TOKEN=kb-canary-02
	MY_SERVICE_TOKEN=kb-canary-03
	DB_PASSWORD=kb-canary-04
	OPENAI_API_KEY=kb-canary-05
	GOOGLE_APPLICATION_CREDENTIALS=/var/tmp/kb-canary-06.json
	ci_auth=kb-canary-07
	GH_ENTERPRISE_TOKEN=kb-canary-08
	azure_client_id=kb-canary-09
	TOKEN=kb-canary-10
	SECRET=kb-canary-11
	PASSWORD=kb-canary-12
	API_KEY=kb-canary-13
	SSH_AGENT_PID=kb-canary-14
	app_secrets=kb-canary-15
	SMTP_Passwd=kb-canary-16
	REGISTRY_CREDENTIAL=kb-canary-17
	GCP_CREDENTIALS=kb-canary-18
	GITHUB_PAT=kb-canary-19
	aws_session_token=kb-canary-20
	export AWS_SECRET_ACCESS_KEY GITHUB_TOKEN MY_SERVICE_TOKEN DB_PASSWORD \
		OPENAI_API_KEY GOOGLE_APPLICATION_CREDENTIALS ci_auth \
		GH_ENTERPRISE_TOKEN azure_client_id TOKEN SECRET PASSWORD API_KEY \
		SSH_AGENT_PID app_secrets SMTP_Passwd REGISTRY_CREDENTIAL \
		GCP_CREDENTIALS GITHUB_PAT aws_session_token
	GITHUB_WORKSPACE=$ws
	GITHUB_SHA=0123456789abcdef0123456789abcdef01234567
	GITHUB_ACTIONS=true
	MONKEY=kb-keep-1
	TOKENIZERS_PARALLELISM=kb-keep-2
	KEYBOARD_LAYOUT=kb-keep-3
	export GITHUB_WORKSPACE GITHUB_SHA GITHUB_ACTIONS MONKEY \
		TOKENIZERS_PARALLELISM KEYBOARD_LAYOUT
}
CANARY_NAMES="AWS_SECRET_ACCESS_KEY GITHUB_TOKEN MY_SERVICE_TOKEN DB_PASSWORD
OPENAI_API_KEY GOOGLE_APPLICATION_CREDENTIALS ci_auth GH_ENTERPRISE_TOKEN
azure_client_id TOKEN SECRET PASSWORD API_KEY SSH_AGENT_PID app_secrets
SMTP_Passwd REGISTRY_CREDENTIAL GCP_CREDENTIALS GITHUB_PAT aws_session_token"

# assert_no_canary FILE: no planted secret value in FILE, and no planted
# secret name as a variable either
assert_no_canary() {
	assert_not_file_has_content "$1" 'kb-canary-'
	for _n in $CANARY_NAMES; do
		assert_not_file_has_content "$1" "^$_n="
	done
}

# assert_env_kept FILE: the variables that must survive, with their values
assert_env_kept() {
	assert_has_line "$1" "PATH=$PATH"
	assert_file_has_content "$1" "^GITHUB_WORKSPACE=$ws\$"
	assert_file_has_content "$1" "^GITHUB_SHA=$GITHUB_SHA\$"
	assert_file_has_content "$1" '^GITHUB_ACTIONS=true$'
	assert_file_has_content "$1" '^MONKEY=kb-keep-1$'
	assert_file_has_content "$1" '^TOKENIZERS_PARALLELISM=kb-keep-2$'
	assert_file_has_content "$1" '^KEYBOARD_LAYOUT=kb-keep-3$'
}

# assert_no_key_material FILE KEY: no line of the private key KEY in FILE
assert_no_key_material() {
	if grep -F -q -f "$2" "$1" 2>/dev/null; then
		_show_file "$1"
		fail "$1 holds lines of the private key $2"
	fi
	assert_not_file_has_content "$1" 'PRIVATE KEY'
}

# start_listener ADDR LOG [dgram]: userv.py at ADDR in the background
# (killed at exit), waits until it listens
start_listener() {
	rm -f "$2.ready"
	"$PY" "$B/userv.py" "$1" "$2" "$2.ready" "${3:-stream}" >"$2.out" 2>&1 &
	bg_register $!
	poll_for "$2.ready" 100 || fail "the listener at $1 did not start: $(cat "$2.out")"
}

# assert_listener_untouched ADDR LOG [dgram]: a connection from the host
# (the control: the listener is alive and logs) is the only one LOG shows;
# anything the sandbox had sent would have been logged before it
assert_listener_untouched() {
	_tag=host-sync-$$
	_r=$("$PY" "$B/uprobe.py" "$1" "$_tag" "${3:-stream}")
	[ "$_r" = CONNECTED ] || fail "the host cannot reach its own listener at $1: $_r"
	_i=0
	while ! grep -q "^CONN $_tag\$" "$2"; do
		_i=$((_i + 1))
		[ "$_i" -le 100 ] || fail "the listener at $1 did not log the host's connection"
		sleep 0.1
	done
	if grep -v -q -x "CONN $_tag" "$2"; then
		_show_file "$2"
		fail "the listener at $1 saw a connection from the sandbox"
	fi
}

# poll_for_line FILE LINE: bounded wait until FILE holds LINE
poll_for_line() {
	_i=0
	while ! grep -q -x "$2" "$1"; do
		_i=$((_i + 1))
		[ "$_i" -le 100 ] || fail "$1 never got the line '$2'"
		sleep 0.1
	done
}

# assert_has_line FILE LINE: FILE holds LINE exactly (fixed string)
assert_has_line() {
	if ! grep -F -x -q -e "$2" "$1" 2>/dev/null; then
		_show_file "$1"
		fail "$1 has no line '$2'"
	fi
}

# assert_has_fixed FILE STRING / assert_not_has_fixed FILE STRING
assert_has_fixed() {
	if ! grep -F -q -e "$2" "$1" 2>/dev/null; then
		_show_file "$1"
		fail "$1 does not contain '$2'"
	fi
}

assert_not_has_fixed() {
	if grep -F -q -e "$2" "$1" 2>/dev/null; then
		_show_file "$1"
		fail "$1 contains '$2'"
	fi
}

# landlock_scoped: the plan says the host's abstract sockets are refused
landlock_scoped() {
	"$KINBOX" --dry-run --net -- true 2>/dev/null |
		grep -q '^# landlock: abstract unix sockets of the host refused'
}

# ============================================================================
# Environment scrub
# ============================================================================

# what the command sees, from every angle: env, its own /proc environ, pid
# 1's (bwrap's init) and every process's it can see
cat >"$B/envdump.sh" <<'EOF'
env >env.out
tr '\0' '\n' </proc/self/environ >self-environ.out
tr '\0' '\n' 2>init-environ.err </proc/1/environ >init-environ.out || true
for p in /proc/[0-9]*; do
	tr '\0' '\n' 2>/dev/null <"$p/environ" || true
done >all-environ.out
EOF

t_env_scrub() {
	setup env-scrub
	export_canaries
	kb_expect 0 -- sh "$B/envdump.sh"
	assert_env_kept "$ws/env.out"
	assert_env_kept "$ws/self-environ.out"
	assert_env_kept "$ws/all-environ.out"
	for f in env self-environ init-environ all-environ; do
		assert_no_canary "$ws/$f.out"
	done
	assert_no_canary "$KB_OUT"
	assert_no_canary "$KB_ERR"
}
run_test "env: 20 secret variables (suffix, prefix, exact, any case) absent from env, /proc/self/environ, /proc/1/environ, every /proc/*/environ; PATH, GITHUB_WORKSPACE/SHA and look-alikes kept" t_env_scrub

# from the host: the environment of every process of the sandbox (bwrap,
# its init = pid 1 inside, the command), read through the host's /proc
t_env_scrub_host_view() {
	require "$PY"
	setup env-host
	export_canaries
	"$KINBOX" -- sh -c ". '$B/wait-go.sh'; sleep 0.2" >"$KB_OUT" 2>"$KB_ERR" &
	p=$!
	if ! poll_while_running "$p" "$ws/ready" 100; then
		kill "$p" 2>/dev/null || true
		_show_file "$KB_ERR"
		fail "the command never got ready"
	fi
	"$PY" "$B/envscan.py" "$p" >"$KB_T/envscan.out"
	: >"$ws/go"
	wait "$p" || fail "kinbox exited $?"
	diag "processes below kinbox: $(awk '{print $1, $2, $3}' "$KB_T/envscan.out" | sort -u | tr '\n' ';')"
	if grep -q '^DENIED' "$KB_T/envscan.out"; then
		diag "not readable from the host: $(grep '^DENIED' "$KB_T/envscan.out" | tr '\n' ';')"
	fi
	# the control: at least the command's environment was read
	assert_file_has_content "$KB_T/envscan.out" "^ENV [0-9]+ [^ ]+ GITHUB_WORKSPACE=$ws\$"
	assert_not_file_has_content "$KB_T/envscan.out" 'kb-canary-'
}
run_test "env: seen from the host, no process of the sandbox (bwrap, pid 1, the command) holds a secret" t_env_scrub_host_view

t_env_keep() {
	setup env-keep
	export_canaries
	kb_expect 0 --keep-env MY_SERVICE_TOKEN -- env
	assert_file_has_content "$KB_OUT" '^MY_SERVICE_TOKEN=kb-canary-03$'
	n=$(grep -c 'kb-canary-' "$KB_OUT" || true)
	if [ "$n" != 1 ]; then
		_show_file "$KB_OUT"
		fail "$n secret values reached the command, expected only MY_SERVICE_TOKEN's"
	fi
	assert_env_kept "$KB_OUT"
	# the name is exact and case-sensitive
	kb_expect 0 --keep-env my_service_token -- env
	assert_env_kept "$KB_OUT"
	assert_no_canary "$KB_OUT"
}
run_test "env: --keep-env MY_SERVICE_TOKEN keeps exactly that one; --keep-env my_service_token keeps none" t_env_keep

# The names the secret table matches but that hold no secret: a region, a
# profile's name, a CA certificate path. Beside them real secrets of the
# same family and names that end the same way but hold a secret word,
# which must still go (the positive control that the scrub ran).
t_env_benign() {
	setup env-benign
	AWS_REGION=eu-west-1
	AWS_DEFAULT_REGION=eu-central-1
	AWS_PROFILE=kb-dev
	aws_default_profile=kb-other
	AWS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
	AZURE_CA_FILE=/etc/ssl/certs/azure.pem
	AWS_SECRET_ACCESS_KEY=kb-canary-b1
	AWS_SESSION_TOKEN=kb-canary-b2
	AWS_TOKEN_REGION=kb-canary-b3
	AWS_SECRET_CA_BUNDLE=kb-canary-b4
	AWS_CONFIG_FILE=/var/tmp/kb-canary-b5
	export AWS_REGION AWS_DEFAULT_REGION AWS_PROFILE aws_default_profile \
		AWS_CA_BUNDLE AZURE_CA_FILE AWS_SECRET_ACCESS_KEY \
		AWS_SESSION_TOKEN AWS_TOKEN_REGION AWS_SECRET_CA_BUNDLE \
		AWS_CONFIG_FILE
	kb_expect 0 -- env
	assert_has_line "$KB_OUT" "AWS_REGION=eu-west-1"
	assert_has_line "$KB_OUT" "AWS_DEFAULT_REGION=eu-central-1"
	assert_has_line "$KB_OUT" "AWS_PROFILE=kb-dev"
	assert_has_line "$KB_OUT" "aws_default_profile=kb-other"
	assert_has_line "$KB_OUT" "AWS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt"
	assert_has_line "$KB_OUT" "AZURE_CA_FILE=/etc/ssl/certs/azure.pem"
	assert_not_file_has_content "$KB_OUT" 'kb-canary-'
	for n in AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN AWS_TOKEN_REGION \
		AWS_SECRET_CA_BUNDLE AWS_CONFIG_FILE; do
		assert_not_file_has_content "$KB_OUT" "^$n="
	done
	# the control: the secrets were in the environment kinbox was given
	env >"$d/host.env"
	assert_has_line "$d/host.env" "AWS_SESSION_TOKEN=kb-canary-b2"
	assert_has_line "$d/host.env" "AWS_TOKEN_REGION=kb-canary-b3"
	# a scrub_env pattern the user wrote still removes them
	mkdir -p "$H/.config/kinbox"
	printf '[sandbox]\nscrub_env = AWS_*\n' >"$H/.config/kinbox/config.ini"
	kb_expect 0 -- env
	assert_not_file_has_content "$KB_OUT" '^AWS_'
	assert_has_line "$KB_OUT" "AZURE_CA_FILE=/etc/ssl/certs/azure.pem"
}
run_test "env: AWS_REGION, AWS_DEFAULT_REGION, AWS_PROFILE, AWS_CA_BUNDLE, *_CA_FILE kept; AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_TOKEN_REGION, AWS_SECRET_CA_BUNDLE, AWS_CONFIG_FILE beside them scrubbed; scrub_env = AWS_* still removes them" t_env_benign

t_env_dry_run() {
	setup env-dry
	export_canaries
	kb_expect 0 --dry-run -- touch "$ws/ran"
	assert_not_exists "$ws/ran"
	line=$(grep '^# env: secrets removed:' "$KB_OUT") ||
		fail "no '# env: secrets removed:' line in the plan"
	for n in $CANARY_NAMES; do
		case " ${line#*:*:} " in
		*" $n "*) ;;
		*) fail "'$n' is not in: $line" ;;
		esac
	done
	for n in GITHUB_WORKSPACE GITHUB_SHA MONKEY PATH; do
		case " ${line#*:*:} " in
		*" $n "*) fail "'$n' is listed as removed: $line" ;;
		esac
	done
	assert_not_file_has_content "$KB_OUT" 'kb-canary-'
	assert_not_file_has_content "$KB_ERR" 'kb-canary-'
	# without a sandbox too
	kb_expect 0 --dry-run --unconfined -- touch "$ws/ran"
	assert_not_exists "$ws/ran"
	assert_file_has_content "$KB_OUT" '^# env: secrets removed:.* GITHUB_TOKEN( |$)'
	assert_not_file_has_content "$KB_OUT" 'kb-canary-'
}
run_test "env: --dry-run lists every removed name (never a value), nothing kept is listed, nothing runs" t_env_dry_run

# what kinbox itself prints or records: the -v plan, a denial line, the
# JSON record (--json-fd) and the journal, which later commands can read
t_env_reports() {
	setup env-reports
	export_canaries
	kb -v --keep-env MY_SERVICE_TOKEN --json-fd 3 -- sh -c "echo ran > ctl; echo x > '$d/outside'" 3>"$d/denial.json"
	assert_file_has_content "$ws/ctl" '^ran$'
	assert_strne "$KB_RC" 0 "the write outside must fail"
	assert_not_exists "$d/outside"
	assert_file_has_content "$KB_ERR" '^# env: secrets removed:'
	assert_file_has_content "$d/denial.json" '"keep_env"'
	assert_not_file_has_content "$KB_ERR" 'kb-canary-'
	assert_not_file_has_content "$d/denial.json" 'kb-canary-'
	ls "$d/state/kinbox/denials/"*.json >/dev/null 2>&1 ||
		fail "no journal record in $d/state/kinbox/denials"
	cat "$d/state/kinbox/denials/"*.json >"$d/journal.all"
	assert_not_file_has_content "$d/journal.all" 'kb-canary-'
}
run_test "env: the -v plan, the denial line, the --json-fd record and the journal hold no secret value" t_env_reports

# ============================================================================
# Without a sandbox: --unconfined, KINBOX_SANDBOX=container
# ============================================================================

t_unconfined_scrub() {
	setup unconf-env
	export_canaries
	kb_expect 0 --unconfined -- sh "$B/envdump.sh"
	assert_env_kept "$ws/env.out"
	assert_no_canary "$ws/env.out"
	assert_no_canary "$ws/self-environ.out"
	assert_one_kinbox_line "$KB_ERR" '^kinbox: no sandbox: --unconfined'
	rm -f "$ws"/*.out
	kb_expect 0 -q --unconfined -- env
	[ ! -s "$KB_ERR" ] || fail "-q still prints: $(cat "$KB_ERR")"
	assert_env_kept "$KB_OUT"
	assert_no_canary "$KB_OUT"
}
run_test "--unconfined: secrets still scrubbed; exactly one 'kinbox: no sandbox:' line, none with -q" t_unconfined_scrub

t_unconfined_fd() {
	setup unconf-fd
	mkdir "$d/outside"
	echo old >"$d/outside/f"
	exec 7>>"$d/outside/f"
	kb --unconfined -- sh -c 'echo x >&7; rc=$?; echo ran > ctl; exit $rc'
	rc1=$KB_RC
	assert_file_has_content "$ws/ctl" '^ran$'
	# the control: the same write with --keep-fd 7 goes through
	kb --unconfined --keep-fd 7 -- sh -c 'echo kept >&7'
	rc2=$KB_RC
	exec 7>&-
	assert_strne "$rc1" 0 "writing to fd 7 must fail"
	assert_streq "$rc2" 0 "--keep-fd 7"
	assert_streq "$(cat "$d/outside/f")" "$(printf 'old\nkept')"
}
run_test "--unconfined closes an inherited fd 7 (the file outside is unchanged); --keep-fd 7 keeps it" t_unconfined_fd

t_unconfined_home() {
	setup unconf-home
	export_canaries
	m=$d/marker
	cd "$H"
	hp=$(pwd -P)
	kb -- touch "$m"
	assert_streq "$KB_RC" 125 "a sandboxed run from \$HOME"
	assert_one_kinbox_line "$KB_ERR"
	assert_kinbox_said "$KB_ERR" "kinbox: workspace $hp: $hp is your home directory; grant a project directory below it instead"
	assert_not_exists "$m"
	kb_expect 0 --unconfined -- sh -c "touch '$m'; env"
	assert_exists "$m"
	assert_no_canary "$KB_OUT"
	assert_one_kinbox_line "$KB_ERR" '^kinbox: no sandbox:'
}
run_test "--unconfined works from \$HOME (a sandboxed run there is refused: 125, nothing run); still scrubbed" t_unconfined_home

t_container_scrub() {
	setup container-env
	export_canaries
	KINBOX_SANDBOX=container
	export KINBOX_SANDBOX
	kb_expect 0 -- env
	assert_env_kept "$KB_OUT"
	assert_no_canary "$KB_OUT"
	assert_one_kinbox_line "$KB_ERR" '^kinbox: no sandbox'
}
run_test "KINBOX_SANDBOX=container: secrets still scrubbed" t_container_scrub

# ============================================================================
# Credential stores in the home directory
# ============================================================================

# plant_stores: a fake credential store of each kind, each with its own
# canary; a private key made by ssh-keygen; and a file that is not a store
# (~/.profile), which must stay readable (the control)
plant_stores() {
	mkdir -p "$H/.aws" "$H/.ssh" "$H/.docker" "$H/.kube" "$H/.config/gh" \
		"$H/.gnupg" "$H/.config/git"
	echo "aws_secret_access_key = kb-cred-aws" >"$H/.aws/credentials"
	ssh-keygen -q -t ed25519 -N '' -C kb-cred-sshkey -f "$H/.ssh/id_ed25519"
	echo "machine example.invalid password kb-cred-netrc" >"$H/.netrc"
	echo "https://u:kb-cred-gitcred@example.invalid" >"$H/.git-credentials"
	echo '{"auths":{"x":{"auth":"kb-cred-docker"}}}' >"$H/.docker/config.json"
	echo "token: kb-cred-kube" >"$H/.kube/config"
	echo "oauth_token: kb-cred-gh" >"$H/.config/gh/hosts.yml"
	echo "//registry.invalid/:_authToken=kb-cred-npm" >"$H/.npmrc"
	echo "kb-cred-gnupg" >"$H/.gnupg/x"
	echo "https://u:kb-cred-gitconfcred@example.invalid" >"$H/.config/git/credentials"
	echo "kb-cred-vault" >"$H/.vault-token"
	echo "# kb-visible-profile" >"$H/.profile"
	chmod 700 "$H/.gnupg"
}
STORE_FILES=".aws/credentials .ssh/id_ed25519 .netrc .git-credentials
.docker/config.json .kube/config .config/gh/hosts.yml .npmrc .gnupg/x
.config/git/credentials .vault-token"
FILE_MASKS=".netrc .git-credentials .docker/config.json .npmrc
.config/git/credentials .vault-token"
DIR_MASKS=".aws .ssh .kube .config/gh .gnupg"

# creds-read.sh HOME: what the command sees of each store
cat >"$B/creds-read.sh" <<'EOF'
h=$1
for f in .aws/credentials .ssh/id_ed25519 .netrc .git-credentials \
	.docker/config.json .kube/config .config/gh/hosts.yml .npmrc .gnupg/x \
	.config/git/credentials .vault-token .profile; do
	echo "== $f"
	cat "$h/$f" 2>&1
	echo "cat-rc $f $?"
done
for f in .netrc .git-credentials .docker/config.json .npmrc \
	.config/git/credentials .vault-token; do
	if [ -f "$h/$f" ] && [ ! -s "$h/$f" ]; then
		echo "empty-file $f"
	fi
done
for dir in .aws .ssh .kube .config/gh .gnupg; do
	out=$(ls -A "$h/$dir" 2>&1)
	rc=$?
	echo "ls $dir: [$(printf '%s' "$out" | tr '\n' ' ')] rc=$rc"
done
EOF

t_creds_read() {
	require ssh-keygen
	setup creds
	plant_stores
	# the control: the canaries are there on the host
	for f in $STORE_FILES; do
		assert_file_has_content "$H/$f" 'kb-cred-|PRIVATE KEY'
	done
	kb_expect 0 -- sh "$B/creds-read.sh" "$H"
	# the control: HOME is the fake home and reads work
	assert_file_has_content "$KB_OUT" '^# kb-visible-profile$'
	assert_not_file_has_content "$KB_OUT" 'kb-cred-'
	assert_no_key_material "$KB_OUT" "$H/.ssh/id_ed25519"
	if [ "$KB_BACKEND" = landlock ]; then
		# the landlock backend: a masked file cannot be read (EACCES)
		# and a masked directory's names can be listed (its --dry-run
		# says "unreadable"); nothing of them is read
		for f in $FILE_MASKS; do
			assert_file_has_content "$KB_OUT" "^cat-rc $f [1-9]"
		done
		return 0
	fi
	for f in $FILE_MASKS; do
		# a masked file reads as empty, successfully
		assert_file_has_content "$KB_OUT" "^cat-rc $f 0\$"
		assert_file_has_content "$KB_OUT" "^empty-file $f\$"
	done
	for dir in $DIR_MASKS; do
		assert_file_has_content "$KB_OUT" "^ls $dir: \\[\\] rc=0\$"
	done
}
run_test "credential stores: 11 planted stores show no canary inside (no key material); file masks read empty with status 0, directory masks list empty" t_creds_read

# creds-write.sh HOME: tries to change or add to each store
cat >"$B/creds-write.sh" <<'EOF'
h=$1
for f in .aws/new .aws/credentials .ssh/authorized_keys .ssh/id_ed25519 \
	.kube/config .config/gh/hosts.yml .gnupg/new .netrc \
	.git-credentials .docker/config.json .npmrc .config/git/credentials; do
	if echo "kb-written" >>"$h/$f"; then echo "WROTE $f"; else echo "REFUSED $f"; fi
done
mkdir "$h/.aws/newdir" && echo "WROTE .aws/newdir"
rm -f "$h/.netrc" "$h/.aws/credentials" && echo "REMOVED"
echo ran >ctl && echo "CONTROL-WS-WROTE"
# last: where ~/.config is read-only this redirection ends the script (":"
# is a special built-in)
: >"$h/.config/written" && echo "CONTROL-WROTE"
EOF

# snapshot DIR: every file below DIR with its content, sorted
snapshot() {
	(cd "$1" && find . -print | LC_ALL=C sort | while IFS= read -r _f; do
		if [ -f "$_f" ]; then
			printf '%s: %s\n' "$_f" "$(cksum <"$_f")"
		else
			printf '%s\n' "$_f"
		fi
	done)
}

t_creds_write() {
	require ssh-keygen
	setup creds-write
	plant_stores
	snapshot "$H" >"$KB_T/creds-write.before"
	kb -- sh "$B/creds-write.sh" "$H"
	snapshot "$H" >"$KB_T/creds-write.after"
	# the control: the script ran to its end, its write in the workspace landed
	assert_file_has_content "$KB_OUT" '^CONTROL-WS-WROTE$'
	assert_file_has_content "$ws/ctl" '^ran$'
	rm "$ws/ctl"
	assert_files_equal "$KB_T/creds-write.before" "$KB_T/creds-write.after"
	assert_not_file_has_content "$KB_OUT" '^WROTE'
	assert_not_file_has_content "$KB_OUT" '^REMOVED'
	# a write root that holds stores (.config/gh, .config/git/credentials):
	# the stores stay masked and unwritable, the rest is writable.
	# (~/.config holds kinbox's own config unless XDG_CONFIG_HOME moves
	# it: such a write root is refused, see t_kinbox_config)
	XDG_CONFIG_HOME=$d/xdg-config
	export XDG_CONFIG_HOME
	kb -w "$H/.config" -- sh -c "sh '$B/creds-read.sh' '$H'; sh '$B/creds-write.sh' '$H'"
	unset XDG_CONFIG_HOME
	if [ "$KB_BACKEND" = landlock ]; then
		# Landlock cannot hide a store inside a write root (its rules
		# only add rights): the landlock backend refuses, nothing runs
		assert_streq "$KB_RC" 125
		assert_one_kinbox_line "$KB_ERR" \
			"^kinbox: $H/\\.config/[^ ]+ lies in a writable root, and the landlock backend cannot hide a credential there"
		assert_not_exists "$ws/ctl"
		snapshot "$H" >"$KB_T/creds-write.after"
		assert_files_equal "$KB_T/creds-write.before" "$KB_T/creds-write.after"
		return 0
	fi
	assert_file_has_content "$KB_OUT" '^CONTROL-WROTE$'
	assert_file_has_content "$KB_OUT" '^CONTROL-WS-WROTE$'
	assert_file_has_content "$ws/ctl" '^ran$'
	assert_exists "$H/.config/written"
	rm "$H/.config/written"
	assert_not_file_has_content "$KB_OUT" 'kb-cred-'
	assert_not_file_has_content "$KB_OUT" '^WROTE'
	snapshot "$H" >"$KB_T/creds-write.after"
	assert_files_equal "$KB_T/creds-write.before" "$KB_T/creds-write.after"
}
run_test "credential stores: writes into masked stores fail and change nothing on the host, also inside a write root (-w ~/.config)" t_creds_write

t_creds_symlink() {
	setup creds-link
	mkdir -p "$H/real-aws" "$d/dotfiles/config/gh" "$d/dotfiles/ssh"
	echo "kb-cred-linked-aws" >"$H/real-aws/credentials"
	ln -s real-aws "$H/.aws"
	echo "kb-cred-linked-netrc" >"$d/dotfiles/netrc"
	ln -s ../dotfiles/netrc "$H/.netrc"
	# an intermediate symlink: ~/.config -> a dotfiles checkout
	echo "kb-cred-linked-gh" >"$d/dotfiles/config/gh/hosts.yml"
	ln -s ../dotfiles/config "$H/.config"
	echo "kb-cred-linked-ssh" >"$d/dotfiles/ssh/id_rsa"
	ln -s ../dotfiles/ssh "$H/.ssh"
	echo "# kb-visible-profile" >"$H/.profile"
	kb -- sh -c "cat '$H/.aws/credentials'; ls -A '$H/.aws';
		cat '$H/.netrc'; cat '$H/.config/gh/hosts.yml'; ls -A '$H/.config/gh';
		cat '$H/.ssh/id_rsa'; ls -A '$H/.ssh'; cat '$H/.profile'"
	# the control: the fake home is readable where nothing is masked
	assert_file_has_content "$KB_OUT" '^# kb-visible-profile$'
	assert_not_file_has_content "$KB_OUT" 'kb-cred-'
	# the landlock backend shows a masked directory's names (not what
	# they hold)
	[ "$KB_BACKEND" != landlock ] || return 0
	assert_not_file_has_content "$KB_OUT" '^credentials$'
	assert_not_file_has_content "$KB_OUT" '^hosts.yml$'
	assert_not_file_has_content "$KB_OUT" '^id_rsa$'
}
run_test "credential stores: symlinked stores (~/.aws -> real-aws, ~/.netrc, ~/.ssh, ~/.config -> dotfiles) are masked through their ~ path" t_creds_symlink

t_creds_workspace() {
	skip_on_landlock "no store can be hidden inside a writable root (Landlock rules only add rights: kinbox refuses such a run, t21-landlock.sh checks the refusal)"
	setup creds-ws
	mkdir -p "$H/.config/gh"
	echo "oauth_token: kb-cred-gh" >"$H/.config/gh/hosts.yml"
	# the workspace is ~/.config (below home: accepted when kinbox's own
	# config lives elsewhere); the store inside stays masked
	XDG_CONFIG_HOME=$d/xdg-config
	export XDG_CONFIG_HOME
	cd "$H/.config"
	kb_expect 0 -- sh -c "cat gh/hosts.yml; ls -A gh; echo x > gh/new; echo x > ok && echo CONTROL-WROTE"
	assert_file_has_content "$KB_OUT" '^CONTROL-WROTE$'
	assert_file_has_content "$H/.config/ok" '^x$'
	assert_not_file_has_content "$KB_OUT" 'kb-cred-'
	assert_not_exists "$H/.config/gh/new"
	# the workspace is the store itself: refused, naming the store (inside
	# it would be an empty directory nothing can be written to)
	cd "$H/.config/gh"
	kb_expect 125 -- sh -c "cat hosts.yml; cat '$H/.config/gh/hosts.yml'; ls -A; echo x > new; echo CONTROL-RAN"
	assert_kinbox_said "$KB_ERR" "kinbox: workspace $H/.config/gh: it lies in $H/.config/gh, which kinbox hides in every sandbox (a credential store): the command would find it empty and could write nothing there; pick a directory outside it"
	assert_not_file_has_content "$KB_OUT" 'kb-cred-'
	assert_not_exists "$H/.config/gh/new"
	unset XDG_CONFIG_HOME
}
run_test "credential stores: a store inside the workspace stays masked; the store itself as the workspace is refused, naming it" t_creds_workspace

# The host rewrites a credential file while the command runs, the way
# docker login, gh auth, npm login and editors do: a new file renamed over
# the old one. The command must still not read it.
t_creds_replaced() {
	setup creds-replace
	mkdir -p "$H/.docker" "$H/.config/gh"
	echo "old-netrc" >"$H/.netrc"
	echo '{"auths":{}}' >"$H/.docker/config.json"
	echo "old-gh" >"$H/.config/gh/hosts.yml"
	"$KINBOX" -- sh -c "cat '$H/.netrc' '$H/.docker/config.json'; ls -A '$H/.config/gh'
		. '$B/wait-go.sh'
		echo AFTER; cat '$H/.netrc' '$H/.docker/config.json' '$H/.config/gh/hosts.yml'; ls -A '$H/.config/gh'" \
		>"$KB_OUT" 2>"$KB_ERR" &
	p=$!
	if ! poll_while_running "$p" "$ws/ready" 100; then
		kill "$p" 2>/dev/null || true
		_show_file "$KB_ERR"
		fail "the command never got ready"
	fi
	echo "machine example.invalid password kb-cred-new-netrc" >"$H/.netrc.tmp"
	mv "$H/.netrc.tmp" "$H/.netrc"
	echo '{"auths":{"x":{"auth":"kb-cred-new-docker"}}}' >"$H/.docker/config.json.tmp"
	mv "$H/.docker/config.json.tmp" "$H/.docker/config.json"
	echo "oauth_token: kb-cred-new-gh" >"$H/.config/gh/hosts.yml.tmp"
	mv "$H/.config/gh/hosts.yml.tmp" "$H/.config/gh/hosts.yml"
	: >"$ws/go"
	rc=0
	wait "$p" || rc=$?
	# The kernel drops a mount whose target the host replaces. Where
	# Landlock keeps the masked inodes unreadable the command goes on and
	# kinbox reports the replacement; elsewhere kinbox stops the sandbox.
	# Either way nothing new is read.
	assert_not_file_has_content "$KB_OUT" 'old-|kb-cred-'
	if [ "$KB_BACKEND" = landlock ]; then
		# no mounts to drop: the masks are Landlock's, and the
		# replacements have no rule either
		assert_streq "$rc" 0 "the command goes on"
		assert_file_has_content "$KB_OUT" '^AFTER$'
		assert_file_has_content "$KB_ERR" "$H/.netrc: Permission denied"
	elif "$KINBOX" --dry-run -- true | grep -q 'stay unreadable even if the host replaces'; then
		assert_file_has_content "$KB_OUT" '^AFTER$'
		assert_file_has_content "$KB_ERR" "^kinbox: note: $H/.netrc was replaced on the host during the run"
		assert_file_has_content "$KB_ERR" "^kinbox: note: $H/.docker/config.json was replaced on the host"
		assert_file_has_content "$KB_ERR" "$H/.netrc: Permission denied"
	else
		echo "# no Landlock here: the stop is the defence"
		assert_streq "$rc" 125 "kinbox stops the sandbox (exit 125)"
		assert_file_has_content "$KB_ERR" '^kinbox: SECURITY: .* was replaced on the host during the run'
		assert_file_has_content "$KB_ERR" "^kinbox: SECURITY: $H/(\\.netrc|\\.docker/config\\.json|\\.config/gh/hosts\\.yml) was replaced on the host during the run, which drops the sandbox's mount over it; the command was stopped \\(run it again\\)\$"
		assert_not_file_has_content "$KB_OUT" '^AFTER$'
	fi
}
run_test "credential stores: a store file the host replaces (rename over) during the run: nothing new is read (Landlock keeps the replacement unreadable and the command goes on; without Landlock the sandbox is stopped)" t_creds_replaced

# t_creds_env KIND: a credential file named by the environment reads empty
t_creds_env() {
	setup "creds-env-$1"
	mkdir "$d/k"
	f=$d/k/$1
	echo "kb-cred-$1" >"$f"
	case $1 in
	xauthority)
		XAUTHORITY=$f
		export XAUTHORITY ;;
	krb5-file)
		KRB5CCNAME=FILE:$f
		export KRB5CCNAME ;;
	krb5-plain)
		# no type prefix: krb5 takes it as FILE: (krb5 ccache docs)
		KRB5CCNAME=$f
		export KRB5CCNAME ;;
	esac
	kb -- sh -c "cat '$f'; echo \"rc=\$?\""
	assert_not_file_has_content "$KB_OUT" 'kb-cred-'
	if [ "$KB_BACKEND" = landlock ]; then
		# the landlock backend: unreadable (EACCES), not empty
		assert_file_has_content "$KB_OUT" '^rc=[1-9]'
	else
		assert_file_has_content "$KB_OUT" '^rc=0$'
	fi
}
run_test "credential file named by XAUTHORITY reads empty" t_creds_env xauthority
run_test "credential file named by KRB5CCNAME=FILE:path reads empty" t_creds_env krb5-file
# beyond the letter of the man page (which says "after FILE:"): a ccache
# name without a type is a FILE ccache, the same ticket file
run_test "credential file named by KRB5CCNAME=path (no type prefix: FILE) reads empty" t_creds_env krb5-plain

# ============================================================================
# Host sockets
# ============================================================================

# probe_both ADDR TAG: from inside, without and with --net, connect to ADDR;
# both must fail
probe_both() {
	kb_expect 0 -- "$PY" "$B/uprobe.py" "$1" "$2-nonet"
	assert_file_has_content "$KB_OUT" '^REFUSED'
	kb_expect 0 --net -- "$PY" "$B/uprobe.py" "$1" "$2-net"
	assert_file_has_content "$KB_OUT" '^REFUSED'
}

# the control for every socket test: the probe reaches a host socket it
# is granted (--allow-socket) and its listener logs the connection, so a
# REFUSED below is kinbox's doing, not a broken probe; the same socket
# without the grant is refused by kinbox's supervisor (EACCES), which holds
# where no mask covers (a read-only mount does not stop connect)
t_sock_control() {
	skip_on_landlock "no unix sockets (socket(AF_UNIX) is refused, whatever the path; socketpair works)"
	require "$PY"
	setup sock-control
	mkdir "$d/plain"
	start_listener "$d/plain/s.sock" "$d/plain.log"
	kb_expect 0 --allow-socket "$d/plain/s.sock" -- \
		"$PY" "$B/uprobe.py" "$d/plain/s.sock" from-sandbox
	assert_file_has_content "$KB_OUT" '^CONNECTED$'
	poll_for_line "$d/plain.log" 'CONN from-sandbox'
	kb_expect 0 -- "$PY" "$B/uprobe.py" "$d/plain/s.sock" ungranted
	assert_file_has_content "$KB_OUT" '^REFUSED errno=EACCES$'
	assert_not_file_has_content "$d/plain.log" 'CONN ungranted'
}

run_test "control: a host socket outside the masked places is reached only with --allow-socket (its listener logs that one connection); without it EACCES" t_sock_control

# t_hostsock KIND: a listener where KIND puts it, the variable that names
# it set; unreachable from inside with and without --net
t_hostsock() {
	require "$PY"
	setup "sock-$1"
	case $1 in
	xdg)
		mkdir -m 700 "$d/xdg"
		XDG_RUNTIME_DIR=$d/xdg
		export XDG_RUNTIME_DIR
		sock=$d/xdg/bus ;;
	xdg-deep)
		mkdir -p "$d/xdg/docker"
		chmod 700 "$d/xdg"
		XDG_RUNTIME_DIR=$d/xdg
		export XDG_RUNTIME_DIR
		sock=$d/xdg/docker/docker.sock ;;
	docker-host)
		mkdir "$d/dock"
		DOCKER_HOST=unix://$d/dock/docker.sock
		export DOCKER_HOST
		sock=$d/dock/docker.sock ;;
	home-docker)
		mkdir -p "$H/.docker/run"
		sock=$H/.docker/run/docker.sock ;;
	home-colima)
		mkdir -p "$H/.colima/default"
		sock=$H/.colima/default/docker.sock ;;
	home-podman)
		mkdir -p "$H/.local/share/containers/podman/machine"
		sock=$H/.local/share/containers/podman/machine/podman.sock ;;
	dbus)
		mkdir "$d/dbus"
		DBUS_SESSION_BUS_ADDRESS=unix:path=$d/dbus/bus,guid=0123456789abcdef
		export DBUS_SESSION_BUS_ADDRESS
		sock=$d/dbus/bus ;;
	gpg)
		mkdir "$d/gpg"
		GPG_AGENT_INFO=$d/gpg/S.gpg-agent:0:1
		export GPG_AGENT_INFO
		sock=$d/gpg/S.gpg-agent ;;
	vscode)
		mkdir "$d/vsc"
		VSCODE_IPC_HOOK_CLI=$d/vsc/vscode-ipc.sock
		export VSCODE_IPC_HOOK_CLI
		sock=$d/vsc/vscode-ipc.sock ;;
	xdg-link)
		mkdir "$d/xdg"
		ln -s xdg "$d/xdg-link"
		XDG_RUNTIME_DIR=$d/xdg-link
		export XDG_RUNTIME_DIR
		sock=$d/xdg/bus ;;
	docker-host-link)
		mkdir "$d/dock" "$d/real"
		ln -s ../real/docker.sock "$d/dock/docker.sock"
		DOCKER_HOST=unix://$d/dock/docker.sock
		export DOCKER_HOST
		sock=$d/real/docker.sock ;;
	dbus-list)
		# D-Bus address lists: "a;b", tried in order
		mkdir "$d/dbus"
		start_listener "$d/dbus/first" "$d/first.log"
		DBUS_SESSION_BUS_ADDRESS="unix:path=$d/dbus/first;unix:path=$d/dbus/second"
		export DBUS_SESSION_BUS_ADDRESS
		sock=$d/dbus/second ;;
	ssh-auth-sock)
		mkdir "$d/agent"
		SSH_AUTH_SOCK=$d/agent/agent.sock
		export SSH_AUTH_SOCK
		sock=$d/agent/agent.sock ;;
	*)
		assert_not_reached "unknown case $1" ;;
	esac
	start_listener "$sock" "$d/listener.log"
	probe_both "$sock" from-sandbox
	assert_listener_untouched "$sock" "$d/listener.log"
	if [ "$1" = dbus-list ]; then
		probe_both "$d/dbus/first" from-sandbox
		assert_listener_untouched "$d/dbus/first" "$d/first.log"
	fi
}
run_test "host socket: \$XDG_RUNTIME_DIR/bus (XDG_RUNTIME_DIR under /var/tmp) unreachable, with and without --net" t_hostsock xdg
run_test "host socket: \$XDG_RUNTIME_DIR/docker/docker.sock unreachable" t_hostsock xdg-deep
run_test "host socket: DOCKER_HOST=unix:///var/tmp/.../docker.sock unreachable" t_hostsock docker-host
run_test "host socket: ~/.docker/run/docker.sock unreachable" t_hostsock home-docker
run_test "host socket: ~/.colima/default/docker.sock unreachable" t_hostsock home-colima
run_test "host socket: ~/.local/share/containers/podman/... unreachable" t_hostsock home-podman
run_test "host socket: DBUS_SESSION_BUS_ADDRESS=unix:path=... unreachable" t_hostsock dbus
run_test "host socket: GPG_AGENT_INFO's socket unreachable" t_hostsock gpg
run_test "host socket: VSCODE_IPC_HOOK_CLI's socket unreachable" t_hostsock vscode
run_test "host socket: SSH_AUTH_SOCK's socket unreachable without --ssh-agent" t_hostsock ssh-auth-sock
run_test "host socket: XDG_RUNTIME_DIR a symlink: the socket in its target unreachable" t_hostsock xdg-link
run_test "host socket: DOCKER_HOST naming a symlink: the socket it points to unreachable" t_hostsock docker-host-link
# beyond the letter of the man page ("after path="): every socket the
# variable names
run_test "host socket: DBUS_SESSION_BUS_ADDRESS=unix:path=A;unix:path=B: B unreachable too" t_hostsock dbus-list

# The service restarts during the run (unlink, bind again), as docker and
# agents do: the new socket at the masked path must stay out of reach.
t_hostsock_restart() {
	require "$PY"
	setup sock-restart
	mkdir "$d/dock"
	sock=$d/dock/docker.sock
	DOCKER_HOST=unix://$sock
	export DOCKER_HOST
	start_listener "$sock" "$d/listener1.log"
	"$KINBOX" --net -- sh -c "'$PY' '$B/uprobe.py' '$sock' before-restart
		. '$B/wait-go.sh'
		'$PY' '$B/uprobe.py' '$sock' after-restart" >"$KB_OUT" 2>"$KB_ERR" &
	p=$!
	if ! poll_while_running "$p" "$ws/ready" 100; then
		kill "$p" 2>/dev/null || true
		_show_file "$KB_ERR"
		fail "the command never got ready"
	fi
	kill "$(cat "$d/listener1.log.ready")"
	sleep 0.2
	start_listener "$sock" "$d/listener2.log"
	: >"$ws/go"
	wait "$p" || true
	assert_listener_untouched "$sock" "$d/listener2.log"
	assert_not_file_has_content "$d/listener1.log" 'restart'
	assert_not_file_has_content "$KB_OUT" '^CONNECTED'
	# the control: both probes ran (and failed)
	assert_streq "$(grep -c '^REFUSED' "$KB_OUT")" 2 "REFUSED lines of the two probes"
}
run_test "host socket: DOCKER_HOST's socket recreated by the host during the run stays unreachable" t_hostsock_restart

t_abstract() {
	require "$PY"
	setup sock-abstract
	name=@kinbox-test-$RUN_ID
	start_listener "$name" "$d/listener.log"
	# without --net: the private network namespace
	kb_expect 0 -- "$PY" "$B/uprobe.py" "$name" from-sandbox-nonet
	assert_file_has_content "$KB_OUT" '^REFUSED'
	if [ "$KB_BACKEND" = landlock ]; then
		# refused at socket(AF_UNIX) (seccomp), before any scope
		kb_expect 0 --net -- "$PY" "$B/uprobe.py" "$name" from-sandbox-net
		assert_file_has_content "$KB_OUT" '^REFUSED'
	elif landlock_scoped; then
		kb_expect 0 --net -- "$PY" "$B/uprobe.py" "$name" from-sandbox-net
		assert_file_has_content "$KB_OUT" '^REFUSED errno=EPERM$'
	else
		diag "Landlock scoping is not available: --net is not checked"
	fi
	assert_listener_untouched "$name" "$d/listener.log"
	[ "$KB_BACKEND" = landlock ] || landlock_scoped ||
		skip_test "no Landlock abstract-socket scoping (ABI < 6)"
}
run_test "host abstract socket (@kinbox-test-...): unreachable without --net (netns) and with --net (Landlock, EPERM)" t_abstract

t_abstract_dgram() {
	require "$PY"
	setup sock-abstract-dgram
	name=@kinbox-test-dgram-$RUN_ID
	start_listener "$name" "$d/listener.log" dgram
	kb_expect 0 -- "$PY" "$B/uprobe.py" "$name" from-sandbox-nonet dgram
	assert_file_has_content "$KB_OUT" '^REFUSED'
	if [ "$KB_BACKEND" = landlock ]; then
		# refused at socket(AF_UNIX) (seccomp), before any scope
		kb_expect 0 --net -- "$PY" "$B/uprobe.py" "$name" from-sandbox-net dgram
		assert_file_has_content "$KB_OUT" '^REFUSED'
	else
		# unix datagram sockets are refused (kinbox cannot mediate a
		# sendto): EACCES at socket(), with or without the scope
		kb_expect 0 --net -- "$PY" "$B/uprobe.py" "$name" from-sandbox-net dgram
		assert_file_has_content "$KB_OUT" '^REFUSED errno=EACCES$'
	fi
	assert_listener_untouched "$name" "$d/listener.log" dgram
}
run_test "host abstract datagram socket: sendto fails without --net (netns) and with --net (no unix datagram socket: EACCES)" t_abstract_dgram

t_self_sockets() {
	skip_on_landlock "no unix sockets (socket(AF_UNIX) is refused, also for the command's own; socketpair works)"
	require "$PY"
	setup sock-self
	for net in --no-net --net; do
		rm -f "$ws/self.sock"
		kb_expect 0 "$net" -- "$PY" "$B/uself.py" "$ws/self.sock" "kinbox-self-$RUN_ID"
		assert_file_has_content "$KB_OUT" '^SELF-PATH hello-from-child$'
		assert_file_has_content "$KB_OUT" '^SELF-ABSTRACT hello-from-child$'
	done
}
run_test "control: sockets the command creates itself (in the workspace, abstract) work, with and without --net" t_self_sockets

t_run_empty() {
	setup run-empty
	[ -n "$(ls -A /run 2>/dev/null)" ] || skip_test "the host's /run is empty"
	resolv=$(realpath /etc/resolv.conf 2>/dev/null || echo /etc/resolv.conf)
	if [ "$KB_BACKEND" = landlock ]; then
		# the landlock backend shows the names of /run (not what they
		# hold; find meets directories it cannot read): the listener
		# below is what counts
		kb_expect 0 -- sh -c 'find /run -mindepth 1 >/dev/null 2>&1; echo ran > ctl'
		: >"$KB_OUT"
	else
		kb_expect 0 -- sh -c 'find /run -mindepth 1 && echo ran > ctl'
	fi
	assert_file_has_content "$ws/ctl" '^ran$'
	# only resolv.conf (and the directories leading to it) may be shown
	while IFS= read -r f; do
		case $resolv in
		"$f" | "$f"/*) ;;
		*) fail "/run inside shows $f" ;;
		esac
	done <"$KB_OUT"
	if [ "$(id -u)" = 0 ]; then
		require "$PY"
		sock=/run/kinbox-test-$RUN_ID.sock
		cleanup_add "rm -f '$sock'"
		start_listener "$sock" "$d/listener.log"
		probe_both "$sock" from-sandbox
		probe_both "/var/run/${sock#/run/}" from-sandbox-varrun
		assert_listener_untouched "$sock" "$d/listener.log"
	fi
}
run_test "/run inside is empty (resolv.conf at most); as root, a listener in /run is unreachable" t_run_empty

# ============================================================================
# --ssh-agent
# ============================================================================

# start_agent DIR: an ssh-agent with its socket DIR/agent.sock (killed at
# exit) holding the fake home's ~/.ssh/id_ed25519; sets $sock and $fp
# (the key's fingerprint)
start_agent() {
	mkdir -p "$1"
	sock=$1/agent.sock
	ssh-agent -D -a "$sock" >"$1/agent.out" 2>&1 &
	bg_register $!
	poll_for "$sock" 100 || fail "ssh-agent did not start: $(cat "$1/agent.out")"
	SSH_AUTH_SOCK=$sock ssh-add "$H/.ssh/id_ed25519" >/dev/null 2>&1 ||
		fail "ssh-add refused the test key"
	fp=$(ssh-keygen -lf "$H/.ssh/id_ed25519.pub" | awk '{print $2}')
	case $fp in
	SHA256:*) ;;
	*) fail "no fingerprint for the test key: $fp" ;;
	esac
	# the control: the agent answers outside with the key
	SSH_AUTH_SOCK=$sock ssh-add -l >"$1/list.out" 2>&1 || true
	grep -q -F "$fp" "$1/list.out" || fail "the agent does not list the key: $(cat "$1/list.out")"
}

# plant_ssh: a key pair, config, known_hosts and a *.pub link to the
# private key in the fake home's ~/.ssh
plant_ssh() {
	mkdir -p "$H/.ssh"
	chmod 700 "$H/.ssh"
	ssh-keygen -q -t ed25519 -N '' -C kb-ssh-test-key -f "$H/.ssh/id_ed25519"
	printf 'Host kb-config-marker\n\tUser nobody\n' >"$H/.ssh/config"
	echo "kb-known-hosts-marker ssh-ed25519 AAAA" >"$H/.ssh/known_hosts"
	ln -s id_ed25519 "$H/.ssh/evil.pub"
}

cat >"$B/ssh-inside.sh" <<'EOF'
h=$1
echo "SOCK=$SSH_AUTH_SOCK"
ssh-add -l
echo "ssh-add-rc $?"
echo "== listing"
ls -A "$h/.ssh" | sed 's/^/LS /'
echo "== pub"
cat "$h/.ssh/id_ed25519.pub"
echo "== config"
cat "$h/.ssh/config"
echo "== known_hosts"
cat "$h/.ssh/known_hosts"
echo "== private"
cat "$h/.ssh/id_ed25519" 2>&1
cat "$h/.ssh/evil.pub" 2>&1
echo "== write"
echo x >>"$h/.ssh/known_hosts" && echo WROTE-known_hosts
echo x >>"$h/.ssh/authorized_keys" && echo WROTE-authorized_keys
exit 0
EOF

t_ssh_agent() {
	skip_on_landlock "no --ssh-agent (every unix socket is refused; kinbox refuses --ssh-agent, t21-landlock.sh checks that)"
	require ssh-agent ssh-add ssh-keygen
	setup ssh-agent
	plant_ssh
	start_agent "$d/agent"
	SSH_AUTH_SOCK=$sock
	export SSH_AUTH_SOCK
	snapshot "$H" >"$KB_T/ssh.before"
	kb_expect 0 --net --ssh-agent -- sh "$B/ssh-inside.sh" "$H"
	snapshot "$H" >"$KB_T/ssh.after"
	# the agent works inside and lists the key
	assert_file_has_content "$KB_OUT" "^SOCK=$sock\$"
	assert_has_fixed "$KB_OUT" "$fp kb-ssh-test-key"
	assert_file_has_content "$KB_OUT" '^ssh-add-rc 0$'
	# exactly the public files are visible, with their content
	assert_streq "$(sed -n 's/^LS //p' "$KB_OUT" | LC_ALL=C sort | tr '\n' ' ')" \
		"config id_ed25519.pub known_hosts " "the listing of ~/.ssh inside"
	assert_has_line "$KB_OUT" "$(cat "$H/.ssh/id_ed25519.pub")"
	assert_file_has_content "$KB_OUT" '^Host kb-config-marker$'
	assert_file_has_content "$KB_OUT" '^kb-known-hosts-marker '
	# private keys (also through the *.pub link) invisible
	assert_no_key_material "$KB_OUT" "$H/.ssh/id_ed25519"
	assert_not_file_has_content "$KB_OUT" '^WROTE'
	assert_files_equal "$KB_T/ssh.before" "$KB_T/ssh.after"
}
run_test "--ssh-agent: the agent lists the key inside; ~/.ssh shows only config, known_hosts, id_ed25519.pub (read-only); the private key and a *.pub link to it stay hidden" t_ssh_agent

t_ssh_agent_not_granted() {
	require ssh-agent ssh-add ssh-keygen
	setup ssh-nogrant
	plant_ssh
	start_agent "$d/agent"
	SSH_AUTH_SOCK=$sock
	export SSH_AUTH_SOCK
	for net in --net --no-net; do
		kb "$net" -- sh -c "echo \"SOCK=\${SSH_AUTH_SOCK-unset}\"; SSH_AUTH_SOCK='$sock' ssh-add -l; echo \"ssh-add-rc \$?\"; ls -A '$H/.ssh'; cat '$H/.ssh/id_ed25519.pub'"
		assert_file_has_content "$KB_OUT" '^SOCK=unset$'
		assert_not_has_fixed "$KB_OUT" "$fp"
		assert_not_file_has_content "$KB_OUT" '^ssh-add-rc (0|1)$'
		assert_file_has_content "$KB_OUT" '^ssh-add-rc [0-9]+$'
		assert_not_file_has_content "$KB_OUT" 'kb-ssh-test-key'
		# the landlock backend shows ~/.ssh's names (not what they hold)
		[ "$KB_BACKEND" = landlock ] ||
			assert_not_file_has_content "$KB_OUT" '^(id_ed25519|config|known_hosts)'
	done
}
run_test "no --ssh-agent (with or without --net): ssh-add -l with SSH_AUTH_SOCK given inside cannot reach the agent; ~/.ssh is empty" t_ssh_agent_not_granted

t_ssh_agent_needs_net() {
	require ssh-agent ssh-add ssh-keygen
	setup ssh-nonet
	plant_ssh
	start_agent "$d/agent"
	SSH_AUTH_SOCK=$sock
	export SSH_AUTH_SOCK
	kb --ssh-agent -- sh -c "touch '$ws/ran'; ssh-add -l"
	assert_streq "$KB_RC" 125 "exit status"
	assert_one_kinbox_line "$KB_ERR"
	assert_kinbox_said "$KB_ERR" "kinbox: --ssh-agent needs --net: the agent is only useful to reach a remote host; add --net"
	[ ! -s "$KB_OUT" ] || fail "stdout is not empty: $(cat "$KB_OUT")"
	assert_not_exists "$ws/ran"
}
run_test "--ssh-agent without --net: 125, one kinbox line, nothing run" t_ssh_agent_needs_net

t_ssh_agent_bad_sock() {
	require ssh-keygen
	setup ssh-badsock
	plant_ssh
	echo not-a-socket >"$d/file"
	for v in unset "$d/file" "$d/missing"; do
		if [ "$v" = unset ]; then
			unset SSH_AUTH_SOCK
		else
			SSH_AUTH_SOCK=$v
			export SSH_AUTH_SOCK
		fi
		kb --net --ssh-agent -- sh -c "touch '$ws/ran'; cat '$H/.ssh/id_ed25519.pub'"
		assert_streq "$KB_RC" 125 "exit status (SSH_AUTH_SOCK $v)"
		assert_one_kinbox_line "$KB_ERR"
		if [ "$v" = unset ]; then
			assert_kinbox_said "$KB_ERR" 'kinbox: --ssh-agent: SSH_AUTH_SOCK is not set; start an agent and add a key (eval "$(ssh-agent)"; ssh-add)'
		else
			assert_kinbox_said "$KB_ERR" "kinbox: --ssh-agent: SSH_AUTH_SOCK=$v is not a socket; restart the agent"
		fi
		assert_not_exists "$ws/ran"
	done
}
run_test "--ssh-agent with SSH_AUTH_SOCK unset, a regular file or missing: 125, one kinbox line, nothing run" t_ssh_agent_bad_sock

# t_ssh_agent_sock_at KIND: the agent socket where KIND says; --ssh-agent
# makes it usable through SSH_AUTH_SOCK, without the grant it is not
t_ssh_agent_sock_at() {
	skip_on_landlock "no --ssh-agent (every unix socket is refused; kinbox refuses --ssh-agent, t21-landlock.sh checks that)"
	require ssh-agent ssh-add ssh-keygen
	setup "ssh-at-$1"
	plant_ssh
	case $1 in
	1password)
		# 1Password's agent: ~/.1password/agent.sock (a masked socket dir)
		start_agent "$H/.1password"
		agent_path=$sock ;;
	in-ssh)
		start_agent "$H/.ssh/agent"
		agent_path=$sock ;;
	link-in-ssh)
		# the tmux/screen idiom: a stable link to the current agent
		start_agent "$d/agent"
		ln -s "$sock" "$H/.ssh/agent_sock"
		agent_path=$H/.ssh/agent_sock ;;
	link-in-tmp)
		start_agent "$d/agent"
		td=$(mktemp -d /tmp/kinbox-test-ssh.XXXXXX)
		cleanup_add "rm -rf '$td'"
		ln -s "$sock" "$td/agent.link"
		agent_path=$td/agent.link ;;
	esac
	SSH_AUTH_SOCK=$agent_path
	export SSH_AUTH_SOCK
	kb --net --ssh-agent -- sh -c 'ssh-add -l; echo "ssh-add-rc $?"'
	assert_has_fixed "$KB_OUT" "$fp"
	assert_file_has_content "$KB_OUT" '^ssh-add-rc 0$'
	kb --net -- sh -c "SSH_AUTH_SOCK='$agent_path' ssh-add -l; echo \"ssh-add-rc \$?\"; SSH_AUTH_SOCK='$sock' ssh-add -l; echo \"ssh-add-rc \$?\""
	assert_not_has_fixed "$KB_OUT" "$fp"
	# the control: both ssh-add ran, and could not reach the agent
	assert_streq "$(grep -c -E '^ssh-add-rc [0-9]+$' "$KB_OUT")" 2 "ssh-add-rc lines"
	assert_not_file_has_content "$KB_OUT" '^ssh-add-rc (0|1)$'
}
run_test "--ssh-agent with the agent socket in ~/.1password (masked dir): usable with the grant, not without" t_ssh_agent_sock_at 1password
run_test "--ssh-agent with the agent socket inside ~/.ssh: usable with the grant, not without" t_ssh_agent_sock_at in-ssh
run_test "--ssh-agent with SSH_AUTH_SOCK a symlink in ~/.ssh (tmux idiom): usable with the grant, not without" t_ssh_agent_sock_at link-in-ssh
run_test "--ssh-agent with SSH_AUTH_SOCK a symlink under /tmp: usable with the grant, not without" t_ssh_agent_sock_at link-in-tmp

# the usual place of an agent socket: /tmp/ssh-XXXX/agent.N (private /tmp
# inside: without --ssh-agent it is simply not there)
t_ssh_agent_tmp() {
	skip_on_landlock "no --ssh-agent (every unix socket is refused; kinbox refuses --ssh-agent, t21-landlock.sh checks that)"
	require ssh-agent ssh-add ssh-keygen
	setup ssh-tmp
	plant_ssh
	td=$(mktemp -d /tmp/kinbox-test-ssh.XXXXXX)
	cleanup_add "rm -rf '$td'"
	start_agent "$td"
	SSH_AUTH_SOCK=$sock
	export SSH_AUTH_SOCK
	kb_expect 0 --net --ssh-agent -- ssh-add -l
	assert_has_fixed "$KB_OUT" "$fp"
	kb --net -- sh -c "SSH_AUTH_SOCK='$sock' ssh-add -l; echo \"ssh-add-rc \$?\""
	assert_not_has_fixed "$KB_OUT" "$fp"
	# the control: ssh-add ran, and could not reach the agent
	assert_file_has_content "$KB_OUT" '^ssh-add-rc [0-9]+$'
	assert_not_file_has_content "$KB_OUT" '^ssh-add-rc (0|1)$'
}
run_test "--ssh-agent with the agent socket under /tmp: reachable with the grant, not without" t_ssh_agent_tmp

t_ssh_agent_linked_dir() {
	skip_on_landlock "no --ssh-agent (every unix socket is refused; kinbox refuses --ssh-agent, t21-landlock.sh checks that)"
	require ssh-agent ssh-add ssh-keygen
	setup ssh-linked
	mkdir -p "$d/dotfiles"
	H0=$H
	H=$d/dotfiles
	plant_ssh
	H=$H0
	ln -s ../dotfiles/.ssh "$H/.ssh"
	start_agent "$d/agent"
	SSH_AUTH_SOCK=$sock
	export SSH_AUTH_SOCK
	kb_expect 0 --net --ssh-agent -- sh "$B/ssh-inside.sh" "$H"
	assert_has_fixed "$KB_OUT" "$fp"
	assert_streq "$(sed -n 's/^LS //p' "$KB_OUT" | LC_ALL=C sort | tr '\n' ' ')" \
		"config id_ed25519.pub known_hosts " "the listing of ~/.ssh inside"
	assert_file_has_content "$KB_OUT" '^Host kb-config-marker$'
	assert_no_key_material "$KB_OUT" "$d/dotfiles/.ssh/id_ed25519"
	assert_not_exists "$d/dotfiles/.ssh/authorized_keys"
}
run_test "--ssh-agent with ~/.ssh a symlink (dotfiles): public files shown, private key hidden" t_ssh_agent_linked_dir

# ============================================================================
# kinbox's own configuration and journal
# ============================================================================

t_kinbox_config() {
	setup kb-config
	mkdir -p "$H/.config/kinbox"
	hp=$(cd "$H" && pwd -P)
	echo "grant: kb-cred-kinbox-policy" >"$H/.config/kinbox/policy"
	snapshot "$H" >"$KB_T/kbconf.before"
	inside="cat '$H/.config/kinbox/policy'; echo \"ls:[\$(ls -A '$H/.config/kinbox')]\";
		echo x > '$H/.config/kinbox/policy' && echo WROTE;
		echo x > '$H/.config/kinbox/grants' && echo WROTE;
		mkdir '$H/.config/kinbox/d' && echo WROTE"
	kb -- sh -c "$inside"
	if [ "$KB_BACKEND" = landlock ]; then
		# the landlock backend shows the store's names (not what
		# they hold)
		assert_file_has_content "$KB_OUT" '^ls:\[policy\]$'
	else
		assert_file_has_content "$KB_OUT" '^ls:\[\]$'
	fi
	assert_not_file_has_content "$KB_OUT" 'kb-cred-|^WROTE'
	# a write root or a workspace that holds ~/.config/kinbox is
	# refused: a command could rename the store's parent away and plant
	# a config the next run obeys (nothing runs)
	kb_expect 125 -w "$H/.config" -- sh -c "touch '$ws/ran'; $inside"
	assert_one_kinbox_line "$KB_ERR" \
		"^kinbox: ~/\\.config/kinbox \\($H/\\.config/kinbox\\) lies inside the write root $H/\\.config \\(flag\\): a command could write its own grants; grant a narrower write root than $H/\\.config$"
	assert_not_exists "$ws/ran"
	(cd "$H/.config" && kb_expect 125 -- touch "$ws/ran" &&
		assert_kinbox_said "$KB_ERR" "kinbox: ~/.config/kinbox ($hp/.config/kinbox) lies inside the writable workspace $hp/.config: a command could write its own grants; run kinbox in a workspace that does not hold it")
	assert_not_exists "$ws/ran"
	# positive control: the same with kinbox's config elsewhere runs
	(XDG_CONFIG_HOME=$d/xdg-config; export XDG_CONFIG_HOME
	 kb -w "$H/.config" -- sh -c "touch '$ws/ran'; $inside")
	if [ "$KB_BACKEND" = landlock ]; then
		# ~/.config/kinbox is masked wherever kinbox's config is, and
		# the landlock backend cannot hide it in a write root: refused
		assert_streq "$KB_RC" 125
		assert_one_kinbox_line "$KB_ERR" "^kinbox: $H/\\.config/kinbox lies in a writable root, and the landlock backend cannot hide a credential there"
		assert_not_exists "$ws/ran"
	else
		assert_exists "$ws/ran"
	fi
	snapshot "$H" >"$KB_T/kbconf.after"
	assert_files_equal "$KB_T/kbconf.before" "$KB_T/kbconf.after"
}
run_test "kinbox's config dir ~/.config/kinbox appears empty and cannot be written; a write root or workspace holding it (-w ~/.config) is refused (125, nothing run); unchanged on the host" t_kinbox_config

t_journal() {
	setup journal
	unset XDG_STATE_HOME
	j=$H/.local/state/kinbox/denials
	mkdir -p "$j"
	chmod 700 "$H/.local/state/kinbox" "$j"
	kb -- sh -c "echo '{\"class\":\"forged\"}' > '$j/x.json' && echo WROTE; mkdir -p '$j/d' && echo WROTE; echo ran > ctl"
	assert_file_has_content "$ws/ctl" '^ran$'
	assert_not_file_has_content "$KB_OUT" '^WROTE'
	assert_not_exists "$j/x.json"
	assert_not_exists "$j/d"
	# XDG_STATE_HOME names the journal's place: the same there
	mkdir -p "$d/state2/kinbox/denials"
	XDG_STATE_HOME=$d/state2
	export XDG_STATE_HOME
	rm "$ws/ctl"
	kb -- sh -c "echo '{}' > '$d/state2/kinbox/denials/x.json' && echo WROTE; echo ran > ctl"
	assert_file_has_content "$ws/ctl" '^ran$'
	assert_not_file_has_content "$KB_OUT" '^WROTE'
	assert_not_exists "$d/state2/kinbox/denials/x.json"
}
run_test "the denial journal (~/.local/state/kinbox/denials, \$XDG_STATE_HOME) cannot be written from inside" t_journal

done_testing
