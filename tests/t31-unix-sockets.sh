#!/bin/sh
# tests/t31-unix-sockets.sh — unix sockets under the bwrap backend: every
# connect() of the command is a seccomp user notification that kinbox
# answers on its behalf (mediate/unotify.c). A pathname connect succeeds
# only to a socket on one of the command's own mounts (the workspace, a
# --write root, the private /tmp, ...) or to a granted one (--ssh-agent,
# --allow-socket); any other gets EACCES. Abstract, unnamed and inet
# connects are made by kinbox on the copied address. Unix datagram sockets
# and socketpairs are refused in the filter; where mediation cannot work
# (no pidfd_getfd) every socket(AF_UNIX) is.
#
# Every test judges from OUTSIDE, by effects: a listener this script runs
# on the host logs every connection it accepts (its log stays empty for a
# refused connect, and holds exactly the command's line for an allowed
# one), checked after the host's own connection to it was logged (anything
# from the sandbox would have come before). Each test also has a positive
# control in the same kinbox call (the command reaches a server of its own,
# and that server's log, kept in the workspace, shows it; or it writes a
# marker in the workspace), so that a kinbox that runs nothing fails it.
# Tools are tried as they are (python3, socat, curl, node, perl, tmux,
# ssh-agent, gpg-agent, PostgreSQL); a missing one skips its test, loudly.
#
# Traffic goes to loopback and to unix sockets only, to servers this script
# (or the sandboxed command) starts.
#
# Two helpers of tests/helpers (make helpers): kb-connect-race flips a
# connect's address between an own and a host socket while it connects,
# kb-no-pidfd-getfd takes pidfd_getfd away (as a container's seccomp
# profile can) for kinbox's fallback.
#
# The landlock backend refuses every unix socket (t21-landlock.sh tests
# that): under KB_BACKEND=landlock this suite skips itself whole.
# --allow-socket tests are skipped, with that reason, while kinbox --help
# does not mention the option.
#
# Run: make helpers && sh tests/t31-unix-sockets.sh (TAP), or all suites:
# sh tests/run-integration.sh. KINBOX=/path/to/kinbox picks the binary.
# shellcheck disable=SC2317,SC2016,SC2164
# SC2317: the t_* bodies are called through run_test.
# SC2016: single-quoted $... is meant for the shell inside the sandbox.
# SC2164: lib.sh sets -e (test bodies run under set -e): a failed cd fails.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

# host state that would change what kinbox masks or grants: each test sets
# what it needs
unset XDG_RUNTIME_DIR XDG_CONFIG_HOME XDG_CACHE_HOME SSH_AUTH_SOCK \
	SSH_AGENT_PID GNUPGHOME DBUS_SESSION_BUS_ADDRESS DOCKER_HOST TMUX \
	KINBOX_SESSION KINBOX_JSON_FD || true
# a home of the script's own (as root kinbox also masks the passwd home,
# which is never touched here)
HOME=$KB_T/home
XDG_STATE_HOME=$KB_T/state
mkdir -p "$HOME" "$XDG_STATE_HOME"
export HOME XDG_STATE_HOME

B=$KB_T/bin
mkdir "$B"
# python3: the system one when there is one (a pyenv shim depends on the
# caller's home, which kinbox masks as root)
PY=python3
if [ -x /usr/bin/python3 ]; then
	PY=/usr/bin/python3
fi
# abstract socket names are host-wide: unique to this run
RUN_ID=$(basename "$KB_T")
# run inside the sandbox: a copy beside the scripts (the tree may lie
# under /tmp, which is private inside)
RACE=$B/kb-connect-race
if [ -x "$KB_TESTS_DIR/helpers/kb-connect-race" ]; then
	cp "$KB_TESTS_DIR/helpers/kb-connect-race" "$RACE"
fi
NO_PIDFD_GETFD=$KB_TESTS_DIR/helpers/kb-no-pidfd-getfd
IS_ROOT=0
[ "$(id -u)" = 0 ] && IS_ROOT=1

# --- preflight ---------------------------------------------------------------
if [ ! -x "$KINBOX" ]; then
	tap_not_ok "kinbox binary $KINBOX exists (build it: make kinbox kinbox-exec)"
	done_testing
fi
if [ "$KB_BACKEND" = landlock ]; then
	# a limitation of that backend, not a sandbox that cannot be set up:
	# not turned into a failure by KINBOX_MUST_WORK (as skip_on_landlock)
	diag "skipping all: the landlock backend refuses every socket(AF_UNIX); t21-landlock.sh tests that"
	KINBOX_MUST_WORK='' tap_skip "all tests of $(basename "$0")" \
		"landlock backend: every socket(AF_UNIX) is refused (no connect to mediate); this suite tests the bwrap backend's mediation, t21-landlock.sh the landlock backend"
	done_testing
fi
mkdir "$KB_T/preflight"
if ! (cd "$KB_T/preflight" && "$KINBOX" -- true) >"$KB_T/preflight.log" 2>&1; then
	diag "$(cat "$KB_T/preflight.log")"
	skip_all "kinbox cannot set up a sandbox on this host"
fi
have "$PY" || skip_all "python3 is not installed"
# the plan of this host: the backend auto picks, the unix-socket posture
PLAN=$KB_T/preflight.plan
PLAN_NET=$KB_T/preflight-net.plan
(cd "$KB_T/preflight" && "$KINBOX" --dry-run -- true) >"$PLAN" 2>"$KB_T/preflight.err" || true
(cd "$KB_T/preflight" && "$KINBOX" --dry-run --net -- true) >"$PLAN_NET" 2>>"$KB_T/preflight.err" || true
if grep -q '^# backend: landlock' "$PLAN"; then
	skip_all "auto runs the landlock backend here (bubblewrap cannot make its namespaces): every unix socket is refused, t21-landlock.sh tests that"
fi
diag "kinbox: $KINBOX; uid $(id -u); kernel $(uname -r); $(grep '^# unix sockets: ' "$PLAN" | head -n 1)"

# need_mediation: the test is about kinbox answering connects. Fails when
# kinbox gave no plan; skips (with kinbox's own reason) where kinbox says it
# cannot mediate on this host
need_mediation() {
	if [ ! -s "$PLAN" ]; then
		_show_file "$KB_T/preflight.err"
		fail "kinbox --dry-run -- true printed no plan"
	fi
	if grep -q '^# unix sockets: every socket(AF_UNIX) refused' "$PLAN"; then
		skip_test "kinbox cannot mediate unix connects on this host: $(sed -n 's/^# unix sockets: every socket(AF_UNIX) refused.*: kinbox cannot mediate connects here (\(.*\))$/\1/p' "$PLAN")"
	fi
	grep -q '^# unix sockets: every connect() answered by kinbox' "$PLAN" ||
		fail "the plan says nothing of unix connects: $(grep '^# unix' "$PLAN" || true)"
}

# have_allow_socket: this build has --allow-socket (another branch adds it)
have_allow_socket() {
	"$KINBOX" --help 2>/dev/null | grep -q -e '--allow-socket'
}

# abstract_checked: with --net (the host's network namespace, and so its
# abstract names) kinbox connects an abstract name only when a socket of
# the sandbox listens on it, and says so in the plan
abstract_checked() {
	grep -q '^# unix sockets: with --net an abstract name is connected only when a socket of the sandbox listens on it' "$PLAN_NET"
}

# --- helper programs (outside every workspace: read-only inside) -----------

# srv.py KIND ADDR LOG READY: a listener. KIND line or http: a unix
# stream socket on ADDR (a path, an existing file there replaced, or @NAME:
# the abstract socket NAME); tcp: TCP on ADDR (a loopback address), a free
# port; dgram: a unix datagram socket on the path ADDR. For every
# connection it accepts it reads the first line (at most 2 s), logs
# "CONN <line>" to LOG, then answers: "pong <line>" (line, tcp), or an
# HTTP/1.0 response whose body is "pong-http <request path>" (http); dgram
# logs "CONN <datagram>" for each one. READY gets the port (tcp) or the
# pid once it listens.
cat >"$B/srv.py" <<'EOF'
import os, socket, sys
kind, addr, log, ready = sys.argv[1:5]
if kind == "tcp":
    s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, 0))
else:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM if kind == "dgram"
                      else socket.SOCK_STREAM)
    if addr.startswith("@"):
        s.bind("\0" + addr[1:])
    else:
        try:
            os.unlink(addr)
        except FileNotFoundError:
            pass
        s.bind(addr)
        os.chmod(addr, 0o777)
if kind != "dgram":
    s.listen(64)
open(log, "ab").close()
with open(ready + ".tmp", "w") as f:
    f.write("%d\n" % (s.getsockname()[1] if kind == "tcp" else os.getpid()))
os.rename(ready + ".tmp", ready)
while kind == "dgram":
    data = s.recv(4096)
    with open(log, "ab") as f:
        f.write(b"CONN " + data.strip() + b"\n")
while True:
    c, _ = s.accept()
    c.settimeout(2)
    data = b""
    try:
        while b"\n" not in data and len(data) < 4096:
            chunk = c.recv(4096)
            if not chunk:
                break
            data += chunk
        if kind == "http":
            while b"\r\n\r\n" not in data and len(data) < 16384:
                chunk = c.recv(4096)
                if not chunk:
                    break
                data += chunk
    except OSError:
        pass
    line = data.split(b"\n")[0].strip()
    with open(log, "ab") as f:
        f.write(b"CONN " + line + b"\n")
    try:
        if kind == "http":
            parts = line.split()
            body = b"pong-http " + (parts[1] if len(parts) > 1 else b"?") + b"\n"
            c.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n"
                      b"Content-Length: %d\r\n\r\n" % len(body) + body)
        else:
            c.sendall(b"pong " + line + b"\n")
    except OSError:
        pass
    c.close()
EOF

# cli.py ADDR TAG [HOW]: one connect to ADDR (a unix socket path, @NAME:
# the abstract socket NAME, tcp:HOST:PORT), sends TAG, reads the answer.
# HOW: path (default), rel (chdir to ADDR's directory, connect to its last
# component), opath (connect to /proc/self/fd/N of an O_PATH descriptor
# of ADDR), nonblock (a non-blocking connect: prints "connect_ex <ERRNO>",
# then waits for it to complete), dgram (one datagram sent to the unix
# path ADDR: prints "SENT"). Prints "CONNECTED <answer>" or
# "REFUSED errno=<NAME>"
cat >"$B/cli.py" <<'EOF'
import errno, os, select, socket, sys
addr, tag = sys.argv[1], sys.argv[2]
how = sys.argv[3] if len(sys.argv) > 3 else "path"
def name(n):
    return errno.errorcode.get(n, str(n))
try:
    if addr.startswith("tcp:"):
        host, port = addr[4:].rsplit(":", 1)
        c = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        target = (host.strip("[]"), int(port))
    else:
        c = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM if how == "dgram"
                          else socket.SOCK_STREAM)
        target = addr
        if addr.startswith("@"):
            target = "\0" + addr[1:]
        elif how == "rel":
            os.chdir(os.path.dirname(addr))
            target = os.path.basename(addr)
        elif how == "opath":
            target = "/proc/self/fd/%d" % os.open(addr, os.O_PATH)
    if how == "dgram":
        c.sendto(tag.encode() + b"\n", target)
        print("SENT")
        sys.exit(0)
    if how == "nonblock":
        c.setblocking(False)
        print("connect_ex %s" % name(c.connect_ex(target)))
        sys.stdout.flush()
        select.select([], [c], [], 5)
        err = c.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if err:
            raise OSError(err, os.strerror(err))
        c.setblocking(True)
    else:
        c.settimeout(5)
        c.connect(target)
    c.settimeout(5)
    c.sendall(tag.encode() + b"\n")
    answer = b""
    while not answer.endswith(b"\n"):
        chunk = c.recv(200)
        if not chunk:
            break
        answer += chunk
    print("CONNECTED " + answer.decode().strip())
except OSError as e:
    print("REFUSED errno=%s" % name(e.errno))
sys.stdout.flush()
EOF

# own.sh KIND ADDR LOG CMD...: inside the sandbox, the command's own
# server (srv.py KIND ADDR LOG) listening before CMD runs, stopped after
# it; exits with CMD's status (98: the server never listened)
cat >"$B/own.sh" <<EOF
kind=\$1 addr=\$2 log=\$3
shift 3
ready=\$(mktemp -u /tmp/own-ready.XXXXXX)
"$PY" "$B/srv.py" "\$kind" "\$addr" "\$log" "\$ready" &
pid=\$!
i=0
while [ ! -e "\$ready" ]; do
	i=\$((i + 1))
	if [ \$i -gt 100 ]; then
		echo "OWN-SERVER-NOT-READY \$addr"
		kill \$pid 2>/dev/null
		exit 98
	fi
	sleep 0.1
done
rc=0
"\$@" || rc=\$?
kill \$pid 2>/dev/null
wait \$pid 2>/dev/null
exit \$rc
EOF

# --- shared helpers ------------------------------------------------------------

# setup NAME: a directory for the test (d), its workspace (ws), cd there
setup() {
	d=$(newdir "$1")
	ws=$d/ws
	mkdir -p "$ws"
	cd "$ws"
}

# start_listener ADDR LOG [KIND]: srv.py on the host (killed at exit)
start_listener() {
	rm -f "$2.ready"
	"$PY" "$B/srv.py" "${3:-line}" "$1" "$2" "$2.ready" >"$2.out" 2>&1 &
	bg_register $!
	poll_for "$2.ready" 100 || fail "the listener at $1 did not start: $(cat "$2.out")"
}

# host_sync ADDR LOG [dgram]: the host connects to its own listener (sends
# it a datagram), with a tag of its own ("host-sync-..."), and waits until
# that is logged: whatever the sandbox got through was logged before
host_sync() {
	_tag=host-sync-$$-$(date +%s%N)
	_r=$("$PY" "$B/cli.py" "$1" "$_tag" "${3:-path}")
	case $_r in
	CONNECTED* | SENT) ;;
	*) fail "the host cannot reach its own listener at $1: $_r" ;;
	esac
	_i=0
	while ! grep -q -x "CONN $_tag" "$2"; do
		_i=$((_i + 1))
		[ "$_i" -le 100 ] || fail "the listener at $1 did not log the host's connection"
		sleep 0.1
	done
}

# others LOG: how many connections LOG shows besides the host's syncs
others() {
	grep -v -c -e '^CONN host-sync-' "$1" || true
}

# assert_listener_untouched ADDR LOG [dgram]: the host's own connections are
# the only ones LOG shows
assert_listener_untouched() {
	host_sync "$1" "$2" "${3:-path}"
	if [ "$(others "$2")" != 0 ]; then
		_show_file "$2"
		fail "the listener at $1 accepted a connection from the sandbox"
	fi
}

# assert_listener_took ADDR LOG LINE: besides the host's own, LOG shows
# exactly one connection, LINE
assert_listener_took() {
	host_sync "$1" "$2"
	if [ "$(others "$2")" != 1 ] ||
		! grep -q -x -F -e "CONN $3" "$2"; then
		_show_file "$2"
		fail "the listener at $1 did not log exactly one connection, '$3'"
	fi
}

# assert_has_line FILE LINE: FILE holds LINE exactly (fixed string)
assert_has_line() {
	if ! grep -F -x -q -e "$2" "$1" 2>/dev/null; then
		_show_file "$1"
		fail "$1 has no line '$2'"
	fi
}

# ms: a monotonic-enough clock in milliseconds (date +%s%N)
ms() {
	echo $(($(date +%s%N) / 1000000))
}

# ============================================================================
# Host sockets the command does not own: refused, whatever the way to them
# ============================================================================

# t_refused CASE: a host listener where CASE puts it, reached the way CASE
# says; in the same run the command reaches its own server in /tmp (the
# control, by the same way where it applies). The host's connect gets
# EACCES (the cache overlay's: the kernel's ECONNREFUSED), and its
# listener accepts nothing.
t_refused() {
	need_mediation
	setup "refused-$1"
	mkdir "$d/host"
	sock=$d/host/ctl.sock
	addr=
	how=path
	own=/tmp/own.sock
	own_how=path
	want='^REFUSED errno=EACCES$'
	case $1 in
	home-config)
		mkdir -p "$HOME/.config/someapp-$$"
		sock=$HOME/.config/someapp-$$/ctl.sock ;;
	home-deep)
		mkdir -p "$HOME/.local/share/someapp-$$/run/sub"
		sock=$HOME/.local/share/someapp-$$/run/sub/ctl.sock ;;
	var-tmp)
		vt=$(mktemp -d /var/tmp/kb-t31-sock.XXXXXX)
		cleanup_add "rm -rf '$vt'"
		sock=$vt/ctl.sock ;;
	symlink)
		ln -s "$sock" "$ws/link.sock"
		addr=$ws/link.sock
		# the control: a link in the workspace to the own socket
		ln -s /tmp/own.sock "$ws/own-link.sock"
		own=$ws/own-link.sock ;;
	symlink-relative)
		ln -s ../host/ctl.sock "$ws/link.sock"
		addr=$ws/link.sock ;;
	symlink-dir)
		ln -s "$d/host" "$ws/hostdir"
		addr=$ws/hostdir/ctl.sock ;;
	dotdot)
		addr=$ws/../host/ctl.sock ;;
	relative)
		how=rel
		own_how=rel ;;
	opath)
		how=opath ;;
	proc-root)
		addr=/proc/self/root$sock ;;
	cache-overlay)
		mkdir -p "$HOME/.cache/someapp-$$"
		sock=$HOME/.cache/someapp-$$/ctl.sock
		"$KINBOX" --dry-run -- true >"$d/plan"
		assert_file_has_content "$d/plan" "^# cache cache: $HOME/.cache \\(ephemeral\\): a copy-on-write overlay"
		# the overlay's inode is not the socket's: the kernel's own
		# ECONNREFUSED (kinbox's EACCES would do as well)
		want='^REFUSED errno=(ECONNREFUSED|EACCES)$' ;;
	*)
		assert_not_reached "unknown case $1" ;;
	esac
	[ -n "$addr" ] || addr=$sock
	start_listener "$sock" "$d/host.log"
	kb_expect 0 -- sh "$B/own.sh" line /tmp/own.sock "$ws/own.log" \
		sh -c '"$1" "$2" "$3" own-control "$4"; "$1" "$2" "$5" from-sandbox "$6"' \
		sh "$PY" "$B/cli.py" "$own" "$own_how" "$addr" "$how"
	assert_has_line "$KB_OUT" "CONNECTED pong own-control"
	assert_has_line "$ws/own.log" "CONN own-control"
	assert_file_has_content "$KB_OUT" "$want"
	assert_listener_untouched "$sock" "$d/host.log"
}
run_test "refused: a host socket under \$HOME in a directory kinbox does not know (~/.config/someapp-N/ctl.sock): EACCES, the listener accepts nothing (the own /tmp server answers)" t_refused home-config
run_test "refused: a host socket deeper under \$HOME (~/.local/share/someapp-N/run/sub/ctl.sock): EACCES, nothing accepted" t_refused home-deep
run_test "refused: a host socket under /var/tmp: EACCES, nothing accepted" t_refused var-tmp
run_test "refused: a host socket through an absolute symlink planted in the workspace: EACCES, nothing accepted (a link to the own socket connects)" t_refused symlink
run_test "refused: a host socket through a relative symlink in the workspace (../host/ctl.sock): EACCES, nothing accepted" t_refused symlink-relative
run_test "refused: a host socket through a symlinked directory in the workspace: EACCES, nothing accepted" t_refused symlink-dir
run_test "refused: a host socket by WORKSPACE/../host/ctl.sock: EACCES, nothing accepted" t_refused dotdot
run_test "refused: a host socket by a relative path (cd to its directory, connect(\"ctl.sock\")): EACCES, nothing accepted (the own one by a relative path connects)" t_refused relative
run_test "refused: a host socket by /proc/self/fd/N of an O_PATH descriptor: EACCES, nothing accepted" t_refused opath
run_test "refused: a host socket by /proc/self/root/PATH: EACCES, nothing accepted" t_refused proc-root
run_test "refused: a host socket under the ~/.cache overlay (seen through the lower layer): not connectable (ECONNREFUSED), nothing accepted" t_refused cache-overlay

# The rule's other side: a socket on one of the command's own mounts is
# reachable, also a host process's (the command could have made it): in the
# workspace and in a --write root
t_own_mounts_host() {
	need_mediation
	setup own-mounts-host
	mkdir "$d/wr"
	start_listener "$ws/daemon.sock" "$d/ws.log"
	start_listener "$d/wr/daemon.sock" "$d/wr.log"
	mkdir "$d/ro"
	start_listener "$d/ro/daemon.sock" "$d/ro.log"
	kb_expect 0 --write "$d/wr" -- sh -c '"$1" "$2" "$3/daemon.sock" from-ws; "$1" "$2" "$4/wr/daemon.sock" from-wr; "$1" "$2" "$4/ro/daemon.sock" from-ro' \
		sh "$PY" "$B/cli.py" "$ws" "$d"
	assert_has_line "$KB_OUT" "CONNECTED pong from-ws"
	assert_has_line "$KB_OUT" "CONNECTED pong from-wr"
	assert_has_line "$KB_OUT" "REFUSED errno=EACCES"
	assert_listener_took "$ws/daemon.sock" "$d/ws.log" from-ws
	assert_listener_took "$d/wr/daemon.sock" "$d/wr.log" from-wr
	assert_listener_untouched "$d/ro/daemon.sock" "$d/ro.log"
}
run_test "own mounts: a host listener in the workspace and one in a --write root each take exactly the command's connection; one beside them outside the roots accepts nothing" t_own_mounts_host

# ============================================================================
# The same refusal through other tools
# ============================================================================

# tool_run NAME KIND TEXT [ARG0]: the sh -c TEXT ($0 ARG0; $OWN and $HOST
# set) in one run beside the command's own server on /tmp/own.sock (srv.py
# KIND) and a host listener (KIND too) on $sock; sets d, ws, sock
tool_run() {
	need_mediation
	setup "tool-$1"
	mkdir -p "$HOME/.config/tool-$1-$$"
	sock=$HOME/.config/tool-$1-$$/ctl.sock
	start_listener "$sock" "$d/host.log" "$2"
	kb_expect 0 -- env OWN=/tmp/own.sock HOST="$sock" \
		sh "$B/own.sh" "$2" /tmp/own.sock "$ws/own.log" sh -c "$3" "${4:-sh}"
}

t_tool_socat() {
	require socat
	tool_run socat line '
		printf "own-socat\n" | socat -t 3 - UNIX-CONNECT:"$OWN"; echo "own-rc $?"
		printf "from-sandbox\n" | socat -t 3 - UNIX-CONNECT:"$HOST"; echo "host-rc $?"'
	assert_has_line "$KB_OUT" "pong own-socat"
	assert_has_line "$KB_OUT" "own-rc 0"
	assert_has_line "$ws/own.log" "CONN own-socat"
	assert_not_file_has_content "$KB_OUT" '^host-rc 0$'
	assert_file_has_content "$KB_ERR" "socat.*$sock.*Permission denied"
	assert_listener_untouched "$sock" "$d/host.log"
}
run_test "socat UNIX-CONNECT: the own socket answers, the host's is refused (Permission denied), nothing accepted" t_tool_socat

t_tool_curl() {
	require curl
	tool_run curl http '
		curl -sS --max-time 5 --unix-socket "$OWN" http://localhost/own; echo "own-rc $?"
		curl -sS --max-time 5 --unix-socket "$HOST" http://localhost/from-sandbox; echo "host-rc $?"'
	assert_has_line "$KB_OUT" "pong-http /own"
	assert_has_line "$KB_OUT" "own-rc 0"
	assert_has_line "$ws/own.log" "CONN GET /own HTTP/1.1"
	assert_has_line "$KB_OUT" "host-rc 7"
	assert_not_file_has_content "$KB_OUT" 'pong-http /from-sandbox'
	assert_listener_untouched "$sock" "$d/host.log"
}
run_test "curl --unix-socket: HTTP to the own socket answers, to the host's fails (exit 7), nothing accepted" t_tool_curl

t_tool_node() {
	require node
	cat >"$B/cli.js" <<'EOF'
const net = require("net");
const [path, tag] = process.argv.slice(2);
const c = net.connect({ path });
c.setTimeout(5000, () => { console.log("TIMEOUT"); c.destroy(); });
c.on("connect", () => c.write(tag + "\n"));
let got = "";
c.on("data", (d) => { got += d; if (got.endsWith("\n")) { console.log("CONNECTED " + got.trim()); c.end(); } });
c.on("error", (e) => console.log("REFUSED " + e.code));
EOF
	tool_run node line 'node "$0" "$OWN" own-node; node "$0" "$HOST" from-sandbox' "$B/cli.js"
	assert_has_line "$KB_OUT" "CONNECTED pong own-node"
	assert_has_line "$ws/own.log" "CONN own-node"
	assert_has_line "$KB_OUT" "REFUSED EACCES"
	assert_listener_untouched "$sock" "$d/host.log"
}
run_test "node net.connect({path}): the own socket answers, the host's fails with EACCES, nothing accepted" t_tool_node

t_tool_perl() {
	require perl
	perl -MIO::Socket::UNIX -e 1 2>/dev/null || skip_test "perl has no IO::Socket::UNIX"
	cat >"$B/cli.pl" <<'EOF'
use IO::Socket::UNIX;
my ($path, $tag) = @ARGV;
my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => $path);
if (!$s) { print "REFUSED $!\n"; exit 0; }
print $s "$tag\n";
my $line = <$s>;
chomp $line;
print "CONNECTED $line\n";
EOF
	tool_run perl line 'perl "$0" "$OWN" own-perl; perl "$0" "$HOST" from-sandbox' "$B/cli.pl"
	assert_has_line "$KB_OUT" "CONNECTED pong own-perl"
	assert_has_line "$ws/own.log" "CONN own-perl"
	assert_has_line "$KB_OUT" "REFUSED Permission denied"
	assert_listener_untouched "$sock" "$d/host.log"
}
run_test "perl IO::Socket::UNIX: the own socket answers, the host's fails (Permission denied), nothing accepted" t_tool_perl

# ============================================================================
# The command's own sockets connect
# ============================================================================

# servers the command starts in the workspace, in /tmp and in a --write
# root, network off and on: each client gets its server's answer, and each
# server's log (in the workspace) shows the client
t_own_python() {
	need_mediation
	setup own-python
	mkdir "$d/wr"
	for net in --no-net --net; do
		rm -f "$ws"/*.log
		kb_expect 0 "$net" --write "$d/wr" -- sh -c '
			for a in "$3/own.sock:ws" "/tmp/own.sock:tmp" "$4/own.sock:wr"; do
				sh "$5" line "${a%:*}" "$3/${a##*:}.log" "$1" "$2" "${a%:*}" "${a##*:}$6"
			done' sh "$PY" "$B/cli.py" "$ws" "$d/wr" "$B/own.sh" "$net"
		for w in ws tmp wr; do
			assert_has_line "$KB_OUT" "CONNECTED pong $w$net"
			assert_has_line "$ws/$w.log" "CONN $w$net"
		done
	done
}
run_test "own sockets: python servers the command starts in the workspace, /tmp and a --write root answer its clients (network off and with --net)" t_own_python

t_own_tmux() {
	need_mediation
	require tmux
	setup own-tmux
	kb_expect 0 -- sh -c '
		tmux -S /tmp/t.sock new -d -s kbtest "sleep 60"; echo "new-rc $?"
		tmux -S /tmp/t.sock ls; echo "ls-rc $?"
		tmux -S /tmp/t.sock kill-server; echo "kill-rc $?"'
	assert_has_line "$KB_OUT" "new-rc 0"
	assert_file_has_content "$KB_OUT" '^kbtest: 1 windows'
	assert_has_line "$KB_OUT" "ls-rc 0"
	assert_has_line "$KB_OUT" "kill-rc 0"
}
run_test "own sockets: tmux -S /tmp/t.sock new -d, then tmux ls through that socket lists the session" t_own_tmux

t_own_ssh_agent() {
	need_mediation
	require ssh-agent ssh-add
	setup own-ssh-agent
	kb_expect 0 -- sh -c '
		ssh-agent -D -a /tmp/agent.sock >/dev/null 2>&1 &
		i=0; while [ ! -S /tmp/agent.sock ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.1; done
		SSH_AUTH_SOCK=/tmp/agent.sock ssh-add -l; echo "ssh-add-rc $?"
		kill $!'
	# 1: connected, and the agent holds no key (2 would be: no agent)
	assert_has_line "$KB_OUT" "ssh-add-rc 1"
	assert_has_line "$KB_OUT" "The agent has no identities."
}
run_test "own sockets: ssh-agent -a /tmp/agent.sock started inside; ssh-add -l connects (exit 1, no identities)" t_own_ssh_agent

t_own_gpg_agent() {
	need_mediation
	require gpgconf gpg-connect-agent gpg-agent
	setup own-gpg-agent
	mkdir -m 700 "$ws/gnupg"
	kb_expect 0 -- env GNUPGHOME="$ws/gnupg" sh -c '
		gpgconf --list-dirs agent-socket
		gpgconf --launch gpg-agent; echo "launch-rc $?"
		gpg-connect-agent "GETINFO version" /bye; echo "connect-rc $?"
		gpgconf --kill gpg-agent'
	assert_has_line "$KB_OUT" "$ws/gnupg/S.gpg-agent"
	assert_has_line "$KB_OUT" "launch-rc 0"
	assert_file_has_content "$KB_OUT" '^D [0-9]+\.[0-9]+'
	assert_has_line "$KB_OUT" "connect-rc 0"
}
run_test "own sockets: gpg-agent launched with GNUPGHOME in the workspace; gpg-connect-agent gets its version" t_own_gpg_agent

t_own_multiprocessing() {
	need_mediation
	setup own-mp
	kb_expect 0 -- "$PY" -c '
import multiprocessing.managers, sys
m = multiprocessing.managers.SyncManager()
m.start()
d = m.dict()
d["k"] = "round-trip"
print("MANAGER", d["k"], m.address)
m.shutdown()
with open(sys.argv[1], "w") as f:
    f.write("done\n")' "$ws/ctl"
	assert_file_has_content "$KB_OUT" '^MANAGER round-trip /tmp/'
	assert_file_has_content "$ws/ctl" '^done$'
}
run_test "own sockets: python multiprocessing.Manager() (its socket in /tmp) round trip" t_own_multiprocessing

t_own_postgres() {
	need_mediation
	pg=$(command -v postgres 2>/dev/null || true)
	[ -n "$pg" ] || skip_test "PostgreSQL is not installed (no postgres on PATH)"
	bin=$(dirname "$(readlink -f "$pg")")
	for p in initdb pg_ctl psql; do
		[ -x "$bin/$p" ] || skip_test "PostgreSQL's $p is not in $bin"
	done
	[ "$IS_ROOT" = 0 ] ||
		skip_other_pass "PostgreSQL refuses to run as root"
	setup own-postgres
	kb_expect 0 -- sh -c '
		bin=$1 ws=$2
		"$bin/initdb" -D "$ws/pgdata" -A trust -U kb --no-sync >"$ws/initdb.log" 2>&1; echo "initdb-rc $?"
		"$bin/pg_ctl" -D "$ws/pgdata" -l "$ws/pg.log" -w -t 30 \
			-o "-k /tmp -c listen_addresses= -c fsync=off" start >/dev/null; echo "start-rc $?"
		"$bin/psql" -h /tmp -U kb -d postgres -Atc "select 40 + 2"; echo "psql-rc $?"
		"$bin/pg_ctl" -D "$ws/pgdata" -m immediate stop >/dev/null' sh "$bin" "$ws"
	assert_has_line "$KB_OUT" "initdb-rc 0"
	assert_has_line "$KB_OUT" "start-rc 0"
	assert_has_line "$KB_OUT" "42"
	assert_has_line "$KB_OUT" "psql-rc 0"
	assert_file_has_content "$ws/pg.log" 'listening on Unix socket "/tmp/.s.PGSQL.5432"'
}
run_test "own sockets: PostgreSQL started inside (socket in /tmp); psql -h /tmp answers select 40 + 2" t_own_postgres

# ============================================================================
# Granted sockets: --ssh-agent, --allow-socket
# ============================================================================

# start_agent DIR: a real ssh-agent outside, no key, its socket
# DIR/agent.sock (outside the workspace); sets agent
start_agent() {
	mkdir -p "$1"
	agent=$1/agent.sock
	ssh-agent -D -a "$agent" >"$1/agent.out" 2>&1 &
	bg_register $!
	_i=0
	while [ ! -S "$agent" ]; do
		_i=$((_i + 1))
		[ "$_i" -le 100 ] || fail "ssh-agent did not start: $(cat "$1/agent.out")"
		sleep 0.1
	done
	_rc=0
	SSH_AUTH_SOCK=$agent ssh-add -l >/dev/null 2>&1 || _rc=$?
	[ "$_rc" = 1 ] || fail "the host's ssh-add -l exited $_rc (1 expected: no identities)"
}

t_ssh_agent_granted() {
	need_mediation
	require ssh-agent ssh-add
	setup ssh-agent
	start_agent "$d/agent"
	# beside the agent, a socket the grant does not name
	start_listener "$d/agent/other.sock" "$d/other.log"
	SSH_AUTH_SOCK=$agent
	export SSH_AUTH_SOCK
	kb_expect 0 --ssh-agent --net -- sh -c '
		echo ran > ran
		ssh-add -l; echo "ssh-add-rc $?"
		"$1" "$2" "$3" from-sandbox' sh "$PY" "$B/cli.py" "$d/agent/other.sock"
	assert_file_has_content "$ws/ran" '^ran$'
	assert_has_line "$KB_OUT" "ssh-add-rc 1"
	assert_has_line "$KB_OUT" "The agent has no identities."
	assert_has_line "$KB_OUT" "REFUSED errno=EACCES"
	assert_listener_untouched "$d/agent/other.sock" "$d/other.log"
}
run_test "--ssh-agent --net: ssh-add -l reaches the host's agent (exit 1, no identities); another socket in the agent's directory stays refused" t_ssh_agent_granted

t_ssh_agent_not_granted() {
	need_mediation
	require ssh-agent ssh-add
	setup ssh-agent-not
	start_agent "$d/agent"
	# kinbox does not know of the agent (SSH_AUTH_SOCK unset outside: no
	# mask hides its socket), the command names it: the connect itself
	# is refused
	unset SSH_AUTH_SOCK
	for net in --no-net --net; do
		rm -f "$ws/ran"
		kb_expect 0 "$net" -- sh -c '
			echo ran > ran
			SSH_AUTH_SOCK=$1 ssh-add -l; echo "ssh-add-rc $?"' sh "$agent"
		assert_file_has_content "$ws/ran" '^ran$'
		# 2: could not connect
		assert_has_line "$KB_OUT" "ssh-add-rc 2"
		assert_has_line "$KB_ERR" "Error connecting to agent: Permission denied"
	done
	# SSH_AUTH_SOCK set outside (kinbox hides that socket): no connection
	# either
	SSH_AUTH_SOCK=$agent
	export SSH_AUTH_SOCK
	kb_expect 0 --net -- sh -c 'echo ran2 > ran; ssh-add -l; echo "ssh-add-rc $?"'
	assert_file_has_content "$ws/ran" '^ran2$'
	assert_has_line "$KB_OUT" "ssh-add-rc 2"
	# the agent still answers the host
	_rc=0
	ssh-add -l >/dev/null 2>&1 || _rc=$?
	assert_streq "$_rc" 1 "the host's ssh-add -l after the runs"
}
run_test "no --ssh-agent: ssh-add -l with SSH_AUTH_SOCK given only inside cannot connect (exit 2, Permission denied), network off and on; nor with it set outside" t_ssh_agent_not_granted

t_allow_socket() {
	need_mediation
	have_allow_socket || skip_test "--allow-socket not in this build"
	setup allow-socket
	mkdir -p "$HOME/.config/grantedapp-$$"
	sock=$HOME/.config/grantedapp-$$/ctl.sock
	other=$HOME/.config/grantedapp-$$/other.sock
	start_listener "$sock" "$d/host.log"
	start_listener "$other" "$d/other.log"
	kb_expect 0 --allow-socket "$sock" -- sh -c '"$1" "$2" "$3" granted; "$1" "$2" "$4" from-sandbox' \
		sh "$PY" "$B/cli.py" "$sock" "$other"
	assert_has_line "$KB_OUT" "CONNECTED pong granted"
	# refused, or not shown at all (kinbox(1): nothing else of the
	# granted socket's directory is shown)
	assert_file_has_content "$KB_OUT" '^REFUSED errno=(EACCES|ENOENT)$'
	assert_listener_took "$sock" "$d/host.log" granted
	assert_listener_untouched "$other" "$d/other.log"
}
run_test "--allow-socket HOSTSOCK: the host listener takes exactly the command's connection and it gets the answer; the socket beside it stays refused" t_allow_socket

t_allow_socket_not_granted() {
	need_mediation
	have_allow_socket || skip_test "--allow-socket not in this build"
	setup allow-socket-not
	mkdir -p "$HOME/.config/grantedapp-not-$$"
	sock=$HOME/.config/grantedapp-not-$$/ctl.sock
	start_listener "$sock" "$d/host.log"
	kb_expect 0 -- sh -c 'echo ran > ran; "$1" "$2" "$3" from-sandbox' \
		sh "$PY" "$B/cli.py" "$sock"
	assert_file_has_content "$ws/ran" '^ran$'
	assert_has_line "$KB_OUT" "REFUSED errno=EACCES"
	assert_listener_untouched "$sock" "$d/host.log"
	# the control: the grant reaches it
	kb_expect 0 --allow-socket "$sock" -- "$PY" "$B/cli.py" "$sock" granted
	assert_has_line "$KB_OUT" "CONNECTED pong granted"
	assert_listener_took "$sock" "$d/host.log" granted
}
run_test "without --allow-socket the same host socket is refused (EACCES), nothing accepted; with it, it connects" t_allow_socket_not_granted

# ============================================================================
# The address is read once: races, threads, a command killed mid-connect
# ============================================================================

# kb-connect-race flips the shared address between its own socket and the
# host's while it connects: a supervisor that looked at the address twice
# would let some through. Outside any sandbox (the control that the race
# reaches the host socket at all) the host listener takes some; under
# kinbox none, while the own socket takes many.
t_race() {
	need_mediation
	[ -x "$RACE" ] || fail "$RACE is not built (make helpers)"
	setup race
	mkdir "$d/host"
	start_listener "$d/host/h.sock" "$d/host.log"
	# outside, 1000 connects take a millisecond or two: where the two
	# threads share a CPU the address may not change in that time, so
	# the control is tried up to 10 times
	outside=0
	_try=0
	while [ "$outside" = 0 ] && [ "$_try" -lt 10 ]; do
		_try=$((_try + 1))
		"$RACE" "$d/own-outside.sock" "$d/host/h.sock" 1000 >"$d/outside.out"
		host_sync "$d/host/h.sock" "$d/host.log"
		outside=$(others "$d/host.log")
	done
	diag "outside the sandbox ($_try tries): $(cat "$d/outside.out"); the host listener took $outside"
	[ "$outside" -gt 0 ] ||
		fail "outside any sandbox the race never reached the host socket: this test would prove nothing"
	kb_expect 0 -- "$RACE" /tmp/race-own.sock "$d/host/h.sock" 5000
	diag "under kinbox: $(cat "$KB_OUT")"
	line=$(cat "$KB_OUT")
	# shellcheck disable=SC2086 # the counts, one word each
	set -- $line
	[ "$1 $3 $5" = "connects ok eacces" ] || fail "unexpected output: $line"
	assert_streq "$2" 5000 "connects made"
	[ "$4" -gt 0 ] || fail "no connect to the own socket succeeded: $line"
	[ "${14}" -gt 0 ] || fail "the own socket accepted nothing: $line"
	[ "$6" -gt 0 ] || fail "no connect was refused (did the flipper run?): $line"
	host_sync "$d/host/h.sock" "$d/host.log"
	after=$(others "$d/host.log")
	assert_streq "$after" "$outside" "the host listener's connections besides the control's (the sandbox's would be more)"
}
run_test "race: a thread flips sun_path between the own and a host socket during 5000 connects: the host listener takes none (it takes some outside the sandbox), the own socket many" t_race

# threads.py OWN HOST ROUNDS: the command's own server on OWN; 8 threads at
# once (a barrier), per round: the even ones connect to OWN (and expect its
# answer), the odd ones to HOST (and expect EACCES). Prints the counts.
cat >"$B/threads.py" <<'EOF'
import errno, socket, sys, threading
own, host, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
srv = socket.socket(socket.AF_UNIX)
srv.bind(own)
srv.listen(64)
def serve():
    while True:
        c, _ = srv.accept()
        c.sendall(b"own-answer\n")
        c.close()
threading.Thread(target=serve, daemon=True).start()
barrier = threading.Barrier(8)
counts = {"own-ok": 0, "own-bad": 0, "host-refused": 0, "host-other": 0}
lock = threading.Lock()
def worker(i):
    for _ in range(rounds):
        barrier.wait()
        to_own = i % 2 == 0
        c = socket.socket(socket.AF_UNIX)
        c.settimeout(5)
        try:
            c.connect(own if to_own else host)
            got = c.recv(100)
            key = "own-ok" if to_own and got == b"own-answer\n" else (
                "own-bad" if to_own else "host-other")
        except OSError as e:
            key = "own-bad" if to_own else (
                "host-refused" if e.errno == errno.EACCES else "host-other")
        c.close()
        with lock:
            counts[key] += 1
ts = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
for t in ts:
    t.start()
for t in ts:
    t.join()
print(" ".join("%s %d" % kv for kv in sorted(counts.items())))
EOF

t_threads() {
	need_mediation
	setup threads
	mkdir "$d/host"
	start_listener "$d/host/h.sock" "$d/host.log"
	kb_expect 0 -- "$PY" "$B/threads.py" /tmp/own.sock "$d/host/h.sock" 25
	assert_has_line "$KB_OUT" "host-other 0 host-refused 100 own-bad 0 own-ok 100"
	assert_listener_untouched "$d/host/h.sock" "$d/host.log"
}
run_test "8 threads connecting at once (25 rounds, half to the own socket, half to a host one): every own connect answered, every host one EACCES, nothing accepted" t_threads

# full.py PORTFILE: a TCP listener on 127.0.0.1 whose accept queue is full
# (listen(0), filled by its own connects, never accepted): a blocking
# connect to it waits for the kernel's SYN retries (about two minutes)
cat >"$B/full.py" <<'EOF'
import os, socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(0)
port = s.getsockname()[1]
fill = []
for _ in range(4):
    c = socket.socket()
    c.setblocking(False)
    c.connect_ex(("127.0.0.1", port))
    fill.append(c)
time.sleep(0.2)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % port)
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(3600)
EOF

# block.py KIND ADDR N MARK: N threads make a blocking connect each, to the
# TCP port ADDR of 127.0.0.1 (KIND tcp) or to the unix socket ADDR (KIND
# unix: the command's own listener there first, listen(0), never
# accepting, its queue filled); MARK is written once they are started
cat >"$B/block.py" <<'EOF'
import socket, sys, threading, time
kind, addr, n, mark = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
if kind == "unix":
    srv = socket.socket(socket.AF_UNIX)
    srv.bind(addr)
    srv.listen(0)
    filler = socket.socket(socket.AF_UNIX)
    filler.connect(addr)
    target, fam = addr, socket.AF_UNIX
else:
    target, fam = ("127.0.0.1", int(addr)), socket.AF_INET
def one():
    c = socket.socket(fam)
    try:
        c.connect(target)
        print("CONNECTED (the queue was not full)")
    except OSError as e:
        print("error", e)
ts = [threading.Thread(target=one, daemon=True) for _ in range(n)]
for t in ts:
    t.start()
time.sleep(0.3)
open(mark, "w").write("blocking\n")
for t in ts:
    t.join()
EOF

# t_killed KIND THREADS: the command blocks in THREADS connects (kinbox
# makes them, on its threads) and is SIGKILLed by timeout -s KILL 1
# inside: kinbox returns at once with 137 (well under 10 s: the SYN
# retries go on for two minutes); a second run right after works. A
# kinbox still there after 15 s is killed (the test has failed by then).
t_killed() {
	need_mediation
	setup "killed-$1-$2"
	net=
	addr=/tmp/full.sock
	if [ "$1" = tcp ]; then
		"$PY" "$B/full.py" "$d/port" >"$d/full.out" 2>&1 &
		bg_register $!
		poll_for "$d/port" 100 || fail "the full listener did not start: $(cat "$d/full.out")"
		addr=$(cat "$d/port")
		# the control: the host's own connect to it does not complete
		_r=$("$PY" -c 'import socket, sys
c = socket.socket(); c.settimeout(1)
try:
    c.connect(("127.0.0.1", int(sys.argv[1]))); print("CONNECTED")
except OSError as e:
    print("BLOCKED", e)' "$addr")
		case $_r in
		BLOCKED*) ;;
		*) fail "the listener's queue is not full: the host's connect says $_r" ;;
		esac
		net=--net
	fi
	t0=$(ms)
	KB_RC=0
	timeout -s KILL 15 "$KINBOX" ${net:+"$net"} -- \
		timeout -s KILL 1 "$PY" "$B/block.py" "$1" "$addr" "$2" "$ws/blocking" \
		>"$KB_OUT" 2>"$KB_ERR" </dev/null || KB_RC=$?
	t1=$(ms)
	diag "kinbox returned after $((t1 - t0)) ms with $KB_RC"
	assert_file_has_content "$ws/blocking" '^blocking$'
	assert_not_file_has_content "$KB_OUT" 'CONNECTED'
	assert_streq "$KB_RC" 137 "kinbox's status (the command's: SIGKILL)"
	[ $((t1 - t0)) -lt 10000 ] ||
		fail "kinbox took $((t1 - t0)) ms to return after its command was killed"
	# the control: the next run works
	kb_expect 0 -- sh -c 'echo second > second'
	assert_file_has_content "$ws/second" '^second$'
}
run_test "killed mid-connect: a blocking TCP connect (--net) to a loopback listener with a full queue, the command SIGKILLed: kinbox exits 137 at once; the next run works" t_killed tcp 1
run_test "killed mid-connect: a blocking connect to the command's own unix listener with a full queue, SIGKILLed: kinbox exits 137 at once; the next run works" t_killed unix 1
run_test "killed mid-connect: 70 threads in blocking TCP connects (--net; each waits for its handshake in kinbox's table, no thread of its own) to a full loopback listener, SIGKILLed: kinbox exits 137 at once" t_killed tcp 70

# t_signalled SIG: the command (Python: it handles SIGINT, and here a
# SIGALRM too) blocks in a TCP connect to a full queue; SIG from outside
# (timeout -s SIG 2, as a Ctrl-C or a supervisor's stop would) ends it at
# once, as it would without kinbox: kinbox tells a caller with a signal
# waiting EINTR while the connect goes on. The control: the command's own
# SIGALRM handler ran first, and the next run works.
cat >"$B/sigconn.py" <<'EOF'
import signal, socket, sys
signal.signal(signal.SIGALRM, lambda *a: print("ALARM", flush=True))
signal.alarm(1)
c = socket.socket()
try:
    c.connect(("127.0.0.1", int(sys.argv[1])))
    print("CONNECTED (the queue was not full)")
except OSError as e:
    print("error", e)
EOF
t_signalled() {
	need_mediation
	setup "signalled-$1"
	"$PY" "$B/full.py" "$d/port" >"$d/full.out" 2>&1 &
	bg_register $!
	poll_for "$d/port" 100 || fail "the full listener did not start: $(cat "$d/full.out")"
	t0=$(ms)
	KB_RC=0
	timeout -s KILL 20 timeout -s "$1" 2 "$KINBOX" --net -- \
		"$PY" -u "$B/sigconn.py" "$(cat "$d/port")" \
		>"$KB_OUT" 2>"$KB_ERR" </dev/null || KB_RC=$?
	t1=$(ms)
	diag "kinbox returned after $((t1 - t0)) ms with $KB_RC"
	assert_has_line "$KB_OUT" ALARM
	assert_not_file_has_content "$KB_OUT" 'CONNECTED'
	assert_streq "$KB_RC" 124 "timeout's status (it sent $1)"
	[ $((t1 - t0)) -lt 6000 ] ||
		fail "the command took $((t1 - t0)) ms to end after SIG$1"
	kb_expect 0 -- sh -c 'echo second > second'
	assert_file_has_content "$ws/second" '^second$'
}
run_test "signalled mid-connect: SIGINT to a Python command in a blocking TCP connect to a full queue (--net) ends it at once, after its own SIGALRM handler ran" t_signalled INT
run_test "signalled mid-connect: SIGTERM behind a handled SIGALRM ends a command in a blocking TCP connect at once" t_signalled TERM

# storm.py N WS: the command's own unix listener /tmp/full.sock with a full
# backlog (listen(0), one connection queued, not accepted), N threads each
# in a blocking connect to it; right behind them a connect to its own
# listener /tmp/ok.sock (which logs "CONN <line>" to WS/ok.log and answers
# "ok"), timed; 0.5 s later (the storm all in) one to a third listener
# /tmp/slow.sock, also full, that accepts 0.3 s after, timed (given up
# after 5 s). Then it writes WS/storm and waits (at most 10 s) for WS/go
# before the full listener accepts, and prints what the storm's connects
# got; exits 3.
cat >"$B/storm.py" <<'EOF'
import errno, os, socket, sys, threading, time
n, ws = int(sys.argv[1]), sys.argv[2]
U = socket.AF_UNIX
def ms():
    return int(time.monotonic() * 1000)
def name(e):
    return errno.errorcode.get(e.errno, str(e.errno))
def full_listener(path):
    s = socket.socket(U)
    s.bind(path)
    s.listen(0)
    filler = socket.socket(U)
    filler.connect(path)
    return s, filler
full, f1 = full_listener("/tmp/full.sock")
slow, f2 = full_listener("/tmp/slow.sock")
okl = socket.socket(U)
okl.bind("/tmp/ok.sock")
okl.listen(64)
def serve_ok():
    while True:
        c, _ = okl.accept()
        line = c.recv(100)
        with open(ws + "/ok.log", "ab") as f:
            f.write(b"CONN " + line)
        c.sendall(b"ok\n")
        c.close()
threading.Thread(target=serve_ok, daemon=True).start()
results = {}
lock = threading.Lock()
def storm():
    c = socket.socket(U)
    try:
        c.connect("/tmp/full.sock")
        k = "connected"
    except OSError as e:
        k = name(e)
    with lock:
        results[k] = results.get(k, 0) + 1
    c.close()
ts = [threading.Thread(target=storm, daemon=True) for _ in range(n)]
for t in ts:
    t.start()
t0 = ms()
c = socket.socket(U)
try:
    c.connect("/tmp/ok.sock")
    c.sendall(b"unrelated\n")
    r = c.recv(10).decode().strip()
except OSError as e:
    r = "error " + name(e)
print("unrelated %s %d ms" % (r, ms() - t0), flush=True)
time.sleep(0.5)
waited = {}
def wait_one():
    t1 = ms()
    c2 = socket.socket(U)
    try:
        c2.connect("/tmp/slow.sock")
        waited["r"] = "connected %d ms" % (ms() - t1)
    except OSError as e:
        waited["r"] = "error " + name(e)
w = threading.Thread(target=wait_one, daemon=True)
w.start()
time.sleep(0.3)
slow.settimeout(5)
try:
    slow.accept()
    slow.accept()
except OSError:
    pass
w.join(5)
print("waited %s" % waited.get("r", "nothing after 5 s"), flush=True)
open(ws + "/storm", "w").close()
for _ in range(1000):
    if os.path.exists(ws + "/go"):
        break
    time.sleep(0.01)
full.setblocking(False)
deadline = time.monotonic() + 20
while time.monotonic() < deadline and any(t.is_alive() for t in ts):
    try:
        full.accept()[0].close()
    except BlockingIOError:
        time.sleep(0.001)
print("storm " + " ".join("%s=%d" % kv for kv in sorted(results.items())), flush=True)
sys.exit(3)
EOF

# The supervisor serves a hostile command fairly: STORM threads in blocking
# connects to the command's own full listener hold up nothing else. Of
# them KB_SUP_MAX_PER_PEER (128, kinbox(1)) wait for it, the rest fail
# EAGAIN at once; a connect to another of its listeners right behind them
# is answered at once, and one to a third full listener still gets a place
# to wait and connects when that listener accepts. Judged from outside:
# kinbox's own descriptors during the storm (/proc/PID/fd: two for each
# connect that waits, however many threads wait), the own listener's log.
t_fair() {
	need_mediation
	setup fair
	storm=400
	KB_RC=0
	"$KINBOX" -- "$PY" "$B/storm.py" "$storm" "$ws" >"$KB_OUT" 2>"$KB_ERR" </dev/null &
	kbpid=$!
	bg_register "$kbpid"
	if poll_while_running "$kbpid" "$ws/storm" 300; then
		nfd=$(ls "/proc/$kbpid/fd" | wc -l)
	else
		nfd=
	fi
	: >"$ws/go"
	# a kinbox that never answers is stopped (after 30 s)
	_i=0
	while kb_running "$kbpid"; do
		_i=$((_i + 1))
		if [ "$_i" -gt 300 ]; then
			kill -KILL "$kbpid"
			break
		fi
		sleep 0.1
	done
	wait "$kbpid" || KB_RC=$?
	[ -n "$nfd" ] || fail "the command never wrote its storm marker"
	assert_streq "$KB_RC" 3 "kinbox's status (the command's)"
	diag "kinbox held $nfd descriptors during the storm of $storm; $(tr '\n' ';' <"$KB_OUT")"
	# 128 wait, fewer under a hard RLIMIT_NOFILE too low for kinbox's
	# table (kinbox(1))
	c=$(sed -n 's/^storm EAGAIN=[0-9]* connected=\([0-9]*\)$/\1/p' "$KB_OUT")
	[ -n "$c" ] || fail "the storm's connects got other answers"
	assert_has_line "$KB_OUT" "storm EAGAIN=$((storm - c)) connected=$c"
	hard=$(ulimit -Hn)
	if [ "$hard" = unlimited ] || [ "$hard" -ge 4096 ]; then
		assert_streq "$c" 128 "the storm's connects that waited"
	else
		diag "RLIMIT_NOFILE's hard limit is $hard: kinbox's table is smaller"
		[ "$c" -ge 1 ] && [ "$c" -le 128 ] ||
			fail "$c of the storm's connects waited"
	fi
	[ "$nfd" -le $((2 * c + 64)) ] ||
		fail "kinbox held $nfd descriptors during the storm (at most $((2 * c + 64)): two for each of the $c waiting connects, and its own)"
	# the run failed: kinbox says why those connects failed
	assert_file_has_content "$KB_ERR" "^kinbox: $((storm - c)) blocking unix-socket or TCP connects failed with EAGAIN: kinbox lets at most [0-9]+ connects of a run wait at once, $c of them for one address"
	assert_file_has_content "$KB_OUT" '^unrelated ok [0-9]+ ms$'
	ms1=$(sed -n 's/^unrelated ok \([0-9]*\) ms$/\1/p' "$KB_OUT")
	[ "$ms1" -lt 2000 ] || fail "the unrelated connect took $ms1 ms"
	assert_has_line "$ws/ok.log" "CONN unrelated"
	assert_file_has_content "$KB_OUT" '^waited connected [0-9]+ ms$'
	ms2=$(sed -n 's/^waited connected \([0-9]*\) ms$/\1/p' "$KB_OUT")
	[ "$ms2" -lt 2000 ] || fail "the connect that waited 0.3 s for its listener took $ms2 ms"
}
run_test "fairness: 400 threads in blocking connects to the command's own full listener: 128 wait, 272 fail EAGAIN at once (and kinbox says so), kinbox holds at most 320 descriptors; a connect to another listener right behind them is answered at once, one to a third full listener connects when it accepts (0.3 s)" t_fair

# ============================================================================
# Abstract, datagram, TCP
# ============================================================================

t_abstract_own() {
	need_mediation
	setup abstract-own
	for net in --no-net --net; do
		name=@kb-own-$RUN_ID$net
		rm -f "$ws/abs.log"
		kb_expect 0 "$net" -- sh "$B/own.sh" line "$name" "$ws/abs.log" \
			"$PY" "$B/cli.py" "$name" "abstract$net"
		assert_has_line "$KB_OUT" "CONNECTED pong abstract$net"
		assert_has_line "$ws/abs.log" "CONN abstract$net"
	done
}
run_test "abstract: the command's own abstract server answers its client (network off and with --net)" t_abstract_own

t_abstract_host() {
	need_mediation
	setup abstract-host
	name=@kb-host-$RUN_ID
	start_listener "$name" "$d/host.log"
	own=@kb-own2-$RUN_ID
	# without --net: the private network namespace has its own names
	kb_expect 0 -- sh "$B/own.sh" line "$own" "$ws/own.log" sh -c \
		'"$1" "$2" "$3" own-nonet; "$1" "$2" "$4" from-sandbox-nonet' \
		sh "$PY" "$B/cli.py" "$own" "$name"
	assert_has_line "$KB_OUT" "CONNECTED pong own-nonet"
	assert_has_line "$KB_OUT" "REFUSED errno=ECONNREFUSED"
	if abstract_checked; then
		kb_expect 0 --net -- sh "$B/own.sh" line "$own-net" "$ws/own.log" sh -c \
			'"$1" "$2" "$3" own-net; "$1" "$2" "$4" from-sandbox-net' \
			sh "$PY" "$B/cli.py" "$own-net" "$name"
		assert_has_line "$KB_OUT" "CONNECTED pong own-net"
		assert_has_line "$KB_OUT" "REFUSED errno=EPERM"
	fi
	assert_has_line "$ws/own.log" "CONN own-nonet"
	assert_listener_untouched "$name" "$d/host.log"
	abstract_checked ||
		fail "kinbox --dry-run --net lacks the abstract-name line: with --net the host's abstract sockets would not be checked"
}
run_test "abstract: a host abstract socket is refused without --net (network namespace) and with --net (kinbox connects only names the sandbox listens on: EPERM); nothing accepted; the own one answers" t_abstract_host

# Abstract names are bytes: the kernel tells two names apart by every byte
# and by their length (addrlen), and looks one up among the sockets of the
# connecting socket's type. /proc/net/unix prints a NUL as '@' and the rest
# as it is, so a check read from it let the command's own "kbx\0svc" stand
# for the host's "kbx@svc" (and a name holding a space or a newline forge
# a shorter one). Each case: the sandbox listens on OWN (type OTYPE) and
# connects to it (the control: its own server answers), then connects a
# SOCK_STREAM socket to the host's name HOST, which a listener of this
# script holds: EPERM, and the host's listener logs nothing.
#   CASE OWN-HEX OTYPE HOST-HEX
abs_cases() {
	_r=$(printf %s "$RUN_ID" | od -An -tx1 | tr -d ' \n')
	# NUL for '@' and back; a space and a newline ending the text form;
	# a prefix; a trailing NUL (addrlen one longer) both ways; bytes that
	# are not UTF-8; the same name of another socket type
	cat <<EOF
nul-at 6b6278${_r}00737663 stream 6b6278${_r}40737663
at-nul 6b6278${_r}40726576 stream 6b6278${_r}00726576
space 6b6278${_r}2073706163652d737663 stream 6b6278${_r}
newline 6b6278${_r}2d6e6c0a737663 stream 6b6278${_r}2d6e6c
prefix 6b6278${_r}2d707265666978 stream 6b6278${_r}2d707265
trailing-nul 6b6278${_r}2d7472616900 stream 6b6278${_r}2d7472616940
trailing-extra 6b6278${_r}2d657874 stream 6b6278${_r}2d65787400
not-utf8 6b6278${_r}2dff80fe stream 6b6278${_r}2dff80
type 6b6278${_r}2d74797065 seqpacket 6b6278${_r}2d74797065
EOF
}

# abshost.py LOG READY HEX...: host listeners on the abstract names (hex),
# SOCK_STREAM; logs "CONN HEX LINE" for each connection (its first line)
cat >"$B/abshost.py" <<'EOF'
import os, select, socket, sys
log, ready = sys.argv[1], sys.argv[2]
socks = {}
for h in sys.argv[3:]:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(b"\0" + bytes.fromhex(h))
    s.listen(16)
    socks[s] = h
open(log, "ab").close()
open(ready + ".tmp", "w").close()
os.rename(ready + ".tmp", ready)
while True:
    r, _, _ = select.select(list(socks), [], [])
    for s in r:
        c, _ = s.accept()
        c.settimeout(1)
        data = b""
        try:
            while b"\n" not in data and len(data) < 200:
                chunk = c.recv(200)
                if not chunk:
                    break
                data += chunk
        except OSError:
            pass
        with open(log, "ab") as f:
            f.write(b"CONN " + socks[s].encode() + b" " +
                    data.split(b"\n")[0] + b"\n")
        c.close()
EOF

# absbytes.py [CASE OWN-HEX OTYPE HOST-HEX]...: per case the command's own
# listener on OWN (type OTYPE) and a connect to it (its server accepts and
# answers "own"), then a SOCK_STREAM connect to HOST (that sends a line).
# Prints "CASE own=OK|ERRNO host=OK|ERRNO"
cat >"$B/absbytes.py" <<'EOF'
import errno, socket, sys
U = socket.AF_UNIX
T = {"stream": socket.SOCK_STREAM, "seqpacket": socket.SOCK_SEQPACKET}
args = sys.argv[1:]
keep = []
for i in range(0, len(args), 4):
    case, own, otype, host = args[i:i + 4]
    own, host = b"\0" + bytes.fromhex(own), b"\0" + bytes.fromhex(host)
    srv = socket.socket(U, T[otype])
    srv.bind(own)
    srv.listen(4)
    keep.append(srv)
    c = socket.socket(U, T[otype])
    c.settimeout(5)
    try:
        c.connect(own)
        a, _ = srv.accept()
        a.send(b"own")
        r1 = "OK" if c.recv(3) == b"own" else "BAD"
    except OSError as e:
        r1 = errno.errorcode.get(e.errno, str(e.errno))
    h = socket.socket(U, socket.SOCK_STREAM)
    h.settimeout(5)
    try:
        h.connect(host)
        h.sendall(b"from-sandbox-" + case.encode() + b"\n")
        r2 = "OK"
    except OSError as e:
        r2 = errno.errorcode.get(e.errno, str(e.errno))
    print("%s own=%s host=%s" % (case, r1, r2), flush=True)
EOF

t_abstract_bytes() {
	need_mediation
	abstract_checked || fail "kinbox --dry-run --net lacks the abstract-name line"
	setup abstract-bytes
	abs_cases >"$d/cases"
	# shellcheck disable=SC2046 # the host names, one word each
	set -- $(awk '{print $4}' "$d/cases")
	"$PY" "$B/abshost.py" "$d/host.log" "$d/host.ready" "$@" >"$d/host.out" 2>&1 &
	bg_register $!
	poll_for "$d/host.ready" 100 || fail "the host listeners did not start: $(cat "$d/host.out")"
	# shellcheck disable=SC2046 # the cases' words
	kb_expect 0 --net -- "$PY" "$B/absbytes.py" $(cat "$d/cases")
	while read -r name _ _ _; do
		assert_has_line "$KB_OUT" "$name own=OK host=EPERM"
	done <"$d/cases"
	# the host's own connect to each name is logged: whatever the sandbox
	# sent came before
	for h in "$@"; do
		"$PY" -c 'import socket, sys
c = socket.socket(socket.AF_UNIX); c.connect(b"\0" + bytes.fromhex(sys.argv[1]))
c.sendall(b"host-sync\n")' "$h"
	done
	_i=0
	while [ "$(grep -c ' host-sync$' "$d/host.log")" != "$#" ]; do
		_i=$((_i + 1))
		[ "$_i" -le 100 ] || fail "the host listeners did not log the host's own connects"
		sleep 0.1
	done
	if grep -v -q ' host-sync$' "$d/host.log"; then
		_show_file "$d/host.log"
		fail "a host listener accepted a connection from the sandbox"
	fi
}
run_test "abstract names are bytes (--net): the sandbox's own names (with a NUL, '@', a space, a newline, a trailing NUL, bytes that are not UTF-8, a seqpacket one) connect; the host's look-alikes (NUL read as '@' and back, the name before the space or newline, a prefix, one byte longer or shorter, a stream socket of the same name) are EPERM and accept nothing" t_abstract_bytes

# A refused abstract name is reported escaped: a NUL as \x00, and a newline
# that cannot start a line of its own
t_abstract_report() {
	need_mediation
	abstract_checked || fail "kinbox --dry-run --net lacks the abstract-name line"
	setup abstract-report
	kb_expect 3 --net -- "$PY" -c 'import errno, socket, sys
c = socket.socket(socket.AF_UNIX)
try:
    c.connect(b"\0kbx-" + sys.argv[1].encode() + b"\0x\nkinbox: forged line")
    print("CONNECTED")
except OSError as e:
    print("REFUSED", errno.errorcode[e.errno])
open("ran", "w").write("ran\n")
sys.exit(3)' "$RUN_ID"
	assert_file_has_content "$ws/ran" '^ran$'
	assert_has_line "$KB_OUT" "REFUSED EPERM"
	assert_not_file_has_content "$KB_ERR" '^kinbox: forged line'
	assert_file_has_content "$KB_ERR" "^kinbox: denied connect to the unix socket '@kbx-$RUN_ID\\\\\\\\x00x\\\\\\\\nkinbox: forged line' \\(EPERM; kinbox refused it"
}
run_test "abstract names in the report: a refused name holding a NUL and a newline is shown escaped on one line (\\x00, \\n), no forged line" t_abstract_report

# A connect that waits (the sandbox's own abstract listener, its backlog
# full) is judged again on each try, as the kernel looks the name up again:
# the sandbox closes that listener and the host takes the name meanwhile;
# the waiting connect is refused (EPERM, or the kernel's ECONNREFUSED), and
# the host's listener, which starts only then, accepts nothing. The control:
# the same connect, before the listener closes, is still waiting.
cat >"$B/absswap.py" <<'EOF'
import errno, os, socket, sys, threading, time
name, ws = b"\0" + sys.argv[1].encode(), sys.argv[2]
s = socket.socket(socket.AF_UNIX)
s.bind(name)
s.listen(0)
f = socket.socket(socket.AF_UNIX)
f.connect(name)
res = {}
def one():
    c = socket.socket(socket.AF_UNIX)
    try:
        c.connect(name)
        c.sendall(b"from-sandbox\n")
        res["r"] = "connected"
    except OSError as e:
        res["r"] = errno.errorcode[e.errno]
t = threading.Thread(target=one, daemon=True)
t.start()
time.sleep(0.3)
print("before close: %s" % res.get("r", "waiting"), flush=True)
s.close()
f.close()
open(ws + "/closed", "w").close()
for _ in range(200):
    if os.path.exists(ws + "/hostup"):
        break
    time.sleep(0.05)
t.join(5)
print("after: %s" % res.get("r", "still waiting"), flush=True)
EOF

t_abstract_swap() {
	need_mediation
	abstract_checked || fail "kinbox --dry-run --net lacks the abstract-name line"
	setup abstract-swap
	name=kbx-swap-$RUN_ID
	# the host's listener, once the sandbox's is closed
	"$PY" -c 'import os, socket, sys, time
name, ws, log = b"\0" + sys.argv[1].encode(), sys.argv[2], sys.argv[3]
open(log, "w").close()
while not os.path.exists(ws + "/closed"):
    time.sleep(0.01)
h = socket.socket(socket.AF_UNIX); h.bind(name); h.listen(8)
open(ws + "/hostup", "w").close()
while True:
    c, _ = h.accept()
    with open(log, "a") as f:
        f.write("CONN %s\n" % c.recv(100).decode().strip())
    c.close()' "$name" "$ws" "$d/host.log" >"$d/host.out" 2>&1 &
	bg_register $!
	kb_expect 0 --net -- "$PY" "$B/absswap.py" "$name" "$ws"
	assert_has_line "$KB_OUT" "before close: waiting"
	assert_file_has_content "$KB_OUT" '^after: (EPERM|ECONNREFUSED)$'
	assert_exists "$ws/hostup"
	# the host's own connect is logged: the sandbox's would be before it
	"$PY" -c 'import socket, sys
c = socket.socket(socket.AF_UNIX); c.connect(b"\0" + sys.argv[1].encode())
c.sendall(b"host-sync\n")' "$name"
	poll_for_line() {
		_i=0
		while ! grep -q -x "$2" "$1"; do
			_i=$((_i + 1))
			[ "$_i" -le 100 ] || return 1
			sleep 0.1
		done
	}
	poll_for_line "$d/host.log" "CONN host-sync" ||
		fail "the host's listener did not log the host's own connect"
	if grep -v -q -x 'CONN host-sync' "$d/host.log"; then
		_show_file "$d/host.log"
		fail "the host's listener accepted a connection from the sandbox"
	fi
}
run_test "abstract names (--net): a connect waiting for the sandbox's own full listener is judged again on each try: the listener closed and its name taken by the host meanwhile, it is refused and the host's listener accepts nothing" t_abstract_swap

# dgram.py HOSTDGRAM: the unix socket types the filter refuses and those
# it keeps; one datagram to the host's datagram listener
cat >"$B/dgram.py" <<'EOF'
import errno, os, socket, sys
host = sys.argv[1]
def attempt(label, f):
    try:
        r = f()
        print(label, "OK" + (" " + r if r else ""))
    except OSError as e:
        print(label, "errno=" + errno.errorcode.get(e.errno, str(e.errno)))
U = socket.AF_UNIX
attempt("socket-dgram", lambda: socket.socket(U, socket.SOCK_DGRAM).close())
attempt("socket-dgram-flags", lambda: socket.socket(
    U, socket.SOCK_DGRAM | socket.SOCK_NONBLOCK | socket.SOCK_CLOEXEC).close())
attempt("socket-raw", lambda: socket.socket(U, socket.SOCK_RAW).close())
attempt("socketpair-dgram", lambda: socket.socketpair(U, socket.SOCK_DGRAM))
def pair(t):
    a, b = socket.socketpair(U, t)
    a.send(b"pair")
    return b.recv(4).decode()
attempt("socketpair-stream", lambda: pair(socket.SOCK_STREAM))
attempt("socketpair-seqpacket", lambda: pair(socket.SOCK_SEQPACKET))
def seqpacket():
    path = "/tmp/seq.sock"
    srv = socket.socket(U, socket.SOCK_SEQPACKET)
    srv.bind(path)
    srv.listen(1)
    c = socket.socket(U, socket.SOCK_SEQPACKET)
    c.connect(path)
    a, _ = srv.accept()
    c.send(b"seq")
    return a.recv(3).decode()
attempt("seqpacket-own", seqpacket)
def sendto():
    s = socket.socket(U, socket.SOCK_DGRAM)
    s.sendto(b"from-sandbox\n", host)
attempt("sendto-host", sendto)
EOF

t_dgram() {
	need_mediation
	setup dgram
	mkdir "$d/host"
	start_listener "$d/host/d.sock" "$d/host.log" dgram
	kb_expect 0 -- "$PY" "$B/dgram.py" "$d/host/d.sock"
	for l in "socket-dgram errno=EACCES" "socket-dgram-flags errno=EACCES" \
		"socket-raw errno=EACCES" "socketpair-dgram errno=EACCES" \
		"socketpair-stream OK pair" "socketpair-seqpacket OK pair" \
		"seqpacket-own OK seq" "sendto-host errno=EACCES"; do
		assert_has_line "$KB_OUT" "$l"
	done
	assert_listener_untouched "$d/host/d.sock" "$d/host.log" dgram
}
run_test "datagram: socket(AF_UNIX, SOCK_DGRAM) (also with flags, SOCK_RAW) and socketpair(AF_UNIX, SOCK_DGRAM) fail with EACCES, the host's datagram listener gets nothing; stream and seqpacket pairs, an own seqpacket server work" t_dgram

# tcp.sh: inside, the command's own TCP servers on 127.0.0.1 (and ::1 when
# the sandbox's loopback has it), a blocking and a non-blocking client to
# each; a closed port refused both ways
cat >"$B/tcp.sh" <<EOF
for a in 127.0.0.1 ::1; do
	ready=\$(mktemp -u /tmp/tcp-ready.XXXXXX)
	"$PY" "$B/srv.py" tcp "\$a" "\$1/tcp-\$a.log" "\$ready" 2>/dev/null &
	pid=\$!
	i=0
	while [ ! -e "\$ready" ] && kill -0 \$pid 2>/dev/null && [ \$i -lt 100 ]; do
		i=\$((i + 1)); sleep 0.1
	done
	if [ ! -e "\$ready" ]; then
		echo "\$a no-listener"
		continue
	fi
	port=\$(cat "\$ready")
	case \$a in *:*) t="tcp:[\$a]:\$port" ;; *) t="tcp:\$a:\$port" ;; esac
	echo "\$a blocking \$("$PY" "$B/cli.py" "\$t" "blocking-\$a")"
	"$PY" "$B/cli.py" "\$t" "nonblocking-\$a" nonblock | sed "s/^/\$a nonblocking /"
	kill \$pid
	wait \$pid 2>/dev/null
	# the same port, nobody listening any more
	echo "\$a closed-blocking \$("$PY" "$B/cli.py" "\$t" x)"
	"$PY" "$B/cli.py" "\$t" x nonblock | sed "s/^/\$a closed-nonblocking /"
done
EOF

t_tcp_loopback() {
	need_mediation
	setup tcp-loopback
	kb_expect 0 -- sh "$B/tcp.sh" "$ws"
	for l in "127.0.0.1 blocking CONNECTED pong blocking-127.0.0.1" \
		"127.0.0.1 nonblocking connect_ex EINPROGRESS" \
		"127.0.0.1 nonblocking CONNECTED pong nonblocking-127.0.0.1" \
		"127.0.0.1 closed-blocking REFUSED errno=ECONNREFUSED" \
		"127.0.0.1 closed-nonblocking connect_ex EINPROGRESS" \
		"127.0.0.1 closed-nonblocking REFUSED errno=ECONNREFUSED"; do
		assert_has_line "$KB_OUT" "$l"
	done
	assert_has_line "$ws/tcp-127.0.0.1.log" "CONN blocking-127.0.0.1"
	assert_has_line "$ws/tcp-127.0.0.1.log" "CONN nonblocking-127.0.0.1"
	if grep -q -x '::1 no-listener' "$KB_OUT"; then
		diag "the sandbox's loopback has no ::1: IPv6 not checked"
	else
		assert_has_line "$KB_OUT" "::1 blocking CONNECTED pong blocking-::1"
		assert_has_line "$KB_OUT" "::1 nonblocking connect_ex EINPROGRESS"
		assert_has_line "$KB_OUT" "::1 nonblocking CONNECTED pong nonblocking-::1"
	fi
}
run_test "TCP on the sandbox's loopback: a server the command starts answers a blocking and a non-blocking client (EINPROGRESS, then connected); a closed port is ECONNREFUSED both ways" t_tcp_loopback

t_tcp_net() {
	need_mediation
	setup tcp-net
	start_listener 127.0.0.1 "$d/host.log" tcp
	port=$(cat "$d/host.log.ready")
	# without --net the host's loopback is another one
	kb_expect 0 -- sh -c 'echo ran > ran; "$1" "$2" "$3" from-sandbox-nonet' \
		sh "$PY" "$B/cli.py" "tcp:127.0.0.1:$port"
	assert_file_has_content "$ws/ran" '^ran$'
	assert_has_line "$KB_OUT" "REFUSED errno=ECONNREFUSED"
	kb_expect 0 --net -- sh -c '"$1" "$2" "$3" blocking-net; "$1" "$2" "$3" nonblocking-net nonblock' \
		sh "$PY" "$B/cli.py" "tcp:127.0.0.1:$port"
	assert_has_line "$KB_OUT" "CONNECTED pong blocking-net"
	assert_has_line "$KB_OUT" "connect_ex EINPROGRESS"
	assert_has_line "$KB_OUT" "CONNECTED pong nonblocking-net"
	host_sync "tcp:127.0.0.1:$port" "$d/host.log"
	assert_streq "$(others "$d/host.log")" 2 \
		"the host listener's connections from the sandbox"
	assert_has_line "$d/host.log" "CONN blocking-net"
	assert_has_line "$d/host.log" "CONN nonblocking-net"
}
run_test "TCP with --net: a host loopback listener takes exactly the command's blocking and non-blocking connections (without --net it is not there: ECONNREFUSED)" t_tcp_net

# ============================================================================
# What a connect answers: as the kernel would, also to a process without
# capabilities
# ============================================================================

# errs.py BASE: connects that fail, each named; BASE a writable directory
# of the caller's (it makes its sockets and files there)
cat >"$B/errs.py" <<'EOF'
import ctypes, errno, os, socket, sys
base = sys.argv[1]
libc = ctypes.CDLL(None, use_errno=True)
def name(n):
    return errno.errorcode.get(n, str(n))
def attempt(label, f):
    try:
        f()
        print(label, "OK")
    except OSError as e:
        print(label, "errno=" + name(e.errno))
def raw(label, fd, addr, length):
    r = libc.connect(fd, addr, length)
    print(label, "OK" if r == 0 else "errno=" + name(ctypes.get_errno()))
U = socket.AF_UNIX
lst = socket.socket(U); lst.bind(base + "/l.sock"); lst.listen(8)
bound = socket.socket(U); bound.bind(base + "/b.sock")
open(base + "/file", "w").close()
os.mkdir(base + "/dir")
def to(path):
    return lambda: socket.socket(U).connect(path)
attempt("listening", to(base + "/l.sock"))
attempt("bound-not-listening", to(base + "/b.sock"))
attempt("regular-file", to(base + "/file"))
attempt("directory", to(base + "/dir"))
attempt("missing", to(base + "/missing.sock"))
attempt("missing-dir", to(base + "/nodir/x.sock"))
attempt("trailing-slash", to(base + "/l.sock/"))
attempt("file-as-dir", to(base + "/file/x.sock"))
attempt("abstract-missing", to("\0kb-t31-nobody-%d" % os.getpid()))
def again():
    c = socket.socket(U); c.connect(base + "/l.sock"); c.connect(base + "/l.sock")
attempt("connected-again", again)
def listening_connect():
    s = socket.socket(U); s.bind(base + "/l2.sock"); s.listen(1); s.connect(base + "/l.sock")
attempt("connect-on-listener", listening_connect)
s = socket.socket(U)
sa = b"\x01\x00" + (base + "/l.sock").encode() + b"\0"
raw("len-too-big", s.fileno(), sa, 200)
raw("len-family-only", s.fileno(), sa, 2)
raw("len-zero", s.fileno(), sa, 0)
inet = b"\x02\x00\x00\x50\x7f\x00\x00\x01" + b"\0" * 8
raw("inet-on-unix", s.fileno(), inet, 16)
raw("bad-pointer", s.fileno(), ctypes.c_void_p(8), 20)
f = os.open(base + "/file", os.O_RDONLY)
raw("not-a-socket", f, sa, len(sa))
raw("bad-fd", 1000, sa, len(sa))
sys.stdout.flush()
EOF

t_errors_as_kernel() {
	need_mediation
	setup errors
	mkdir "$d/outside"
	"$PY" "$B/errs.py" "$d/outside" >"$d/outside.out"
	assert_has_line "$d/outside.out" "listening OK"
	kb_expect 0 -- sh -c 'mkdir "$1/inside" && exec "$2" "$3" "$1/inside"' sh "$ws" "$PY" "$B/errs.py"
	assert_has_line "$KB_OUT" "listening OK"
	if ! cmp -s "$d/outside.out" "$KB_OUT"; then
		diff -u "$d/outside.out" "$KB_OUT" >&2 || true
		fail "connect answers differently inside (+) than on the host (-)"
	fi
	# the same in /tmp
	kb_expect 0 -- sh -c 'mkdir /tmp/inside && exec "$1" "$2" /tmp/inside' sh "$PY" "$B/errs.py"
	assert_files_equal "$d/outside.out" "$KB_OUT"
}
run_test "errors: connects that fail (not listening, a file, a directory, missing, trailing slash, connected again, bad lengths, a wrong family, a bad pointer, not a socket, a bad fd) answer inside as on the host" t_errors_as_kernel

# a socket without write permission: the kernel refuses a process without
# CAP_DAC_OVERRIDE (the command has none, root or not); kinbox's connect
# on its behalf must not have more rights than it
t_socket_mode() {
	need_mediation
	setup socket-mode
	kb_expect 0 -- "$PY" -c '
import errno, os, socket, sys
for mode in (0o777, 0o555):
    p = "%s/m%o.sock" % (sys.argv[1], mode)
    s = socket.socket(socket.AF_UNIX); s.bind(p); s.listen(4); os.chmod(p, mode)
    for blocking in (True, False):
        c = socket.socket(socket.AF_UNIX)
        c.setblocking(blocking)
        how = "blocking" if blocking else "nonblocking"
        try:
            c.connect(p); print("%o %s OK" % (mode, how))
        except OSError as e:
            print("%o %s errno=%s" % (mode, how, errno.errorcode[e.errno]))' "$ws"
	assert_has_line "$KB_OUT" "777 blocking OK"
	assert_has_line "$KB_OUT" "777 nonblocking OK"
	assert_has_line "$KB_OUT" "555 blocking errno=EACCES"
	assert_has_line "$KB_OUT" "555 nonblocking errno=EACCES"
}
run_test "an own socket without write permission (0555) is refused EACCES (blocking and non-blocking connects), as the kernel refuses a process without capabilities; 0777 connects" t_socket_mode

# the server sees the client's credentials (SO_PEERCRED), as inside
t_peercred() {
	need_mediation
	setup peercred
	kb_expect 0 -- "$PY" -c '
import os, socket, struct, threading
p = "/tmp/cred.sock"
s = socket.socket(socket.AF_UNIX); s.bind(p); s.listen(1)
c = socket.socket(socket.AF_UNIX); c.connect(p)
a, _ = s.accept()
pid, uid, gid = struct.unpack("3i", a.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
print("peer uid %d gid %d" % (uid, gid))
print("self uid %d gid %d" % (os.getuid(), os.getgid()))
print("peer pid %d self pid %d" % (pid, os.getpid()))'
	diag "$(grep '^peer pid' "$KB_OUT")"
	self=$(sed -n 's/^self //p' "$KB_OUT")
	[ -n "$self" ] || fail "no output from the command"
	assert_has_line "$KB_OUT" "peer $self"
}
run_test "SO_PEERCRED: the command's own server sees the client's uid and gid" t_peercred

# ============================================================================
# The plan, and where mediation cannot work
# ============================================================================

t_dry_run() {
	need_mediation
	setup dry-run
	kb_expect 0 --dry-run -- touch "$ws/ran"
	assert_not_exists "$ws/ran"
	assert_file_has_content "$KB_OUT" '^# unix sockets: every connect\(\) answered by kinbox \(seccomp user notification\): the command.s own sockets \([^)]*\) and the granted ones connect, any other pathname socket is refused \(EACCES\); unix datagram sockets are refused$'
	assert_not_file_has_content "$KB_OUT" 'not enforced: a pathname unix socket'
	assert_file_has_content "$KB_OUT" '^# seccomp: refuses .*unix datagram sockets and socketpairs, x86 socketcall \(EACCES\)$'
	assert_file_has_content "$KB_OUT" '^--unotify$'
	assert_file_has_content "$KB_OUT" "^--own\$"
	kb_expect 0 --dry-run --net -- touch "$ws/ran"
	assert_not_exists "$ws/ran"
	assert_file_has_content "$KB_OUT" '^# unix sockets: every connect\(\) answered by kinbox'
	assert_not_file_has_content "$KB_OUT" 'not enforced: a pathname unix socket'
	assert_file_has_content "$KB_OUT" '^# unix sockets: with --net an abstract name is connected only when a socket of the sandbox listens on it \(the host.s are refused, EPERM\)$'
}
run_test "--dry-run: the posture line 'unix sockets: every connect() answered by kinbox', no 'not enforced: a pathname unix socket' line (network off and --net); nothing run" t_dry_run

# The supervisor must not cost the command anything else: with --net and
# without, a rename and a hard link across directories of the workspace
# work (a Landlock domain around kinbox once made both EXDEV, which broke
# cargo and rustc), and so do mkdir, symlinks and a fifo.
t_no_side_effects() {
	need_mediation
	setup side-effects
	for net in --no-net --net; do
		rm -rf "$ws/a" "$ws/b"
		kb_expect 0 "$net" -- sh -c 'mkdir a b && echo x >a/f &&
			mv a/f b/f && ln b/f a/hard && ln -s ../b/f a/soft &&
			mkfifo b/fifo && cat a/soft'
		assert_has_line "$KB_OUT" x
		assert_file_has_content "$ws/b/f" '^x$'
		assert_file_has_content "$ws/a/hard" '^x$'
		assert_not_exists "$ws/a/f"
	done
}
run_test "no side effects: renames and hard links across workspace directories, symlinks and fifos work with and without --net" t_no_side_effects

t_fallback_dry() {
	[ -x "$NO_PIDFD_GETFD" ] || fail "$NO_PIDFD_GETFD is not built (make helpers)"
	setup fallback-dry
	KB_RC=0
	"$NO_PIDFD_GETFD" -- "$KINBOX" --dry-run -- touch "$ws/ran" \
		>"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	assert_streq "$KB_RC" 0
	assert_not_exists "$ws/ran"
	assert_file_has_content "$KB_OUT" '^# backend: bwrap'
	assert_file_has_content "$KB_OUT" '^# unix sockets: every socket\(AF_UNIX\) refused \(EACCES\), the command.s own too: kinbox cannot mediate connects here \(pidfd_getfd is unavailable'
	assert_file_has_content "$KB_OUT" '^# seccomp: refuses .*every socket\(AF_UNIX\), datagram socketpairs'
	assert_not_file_has_content "$KB_OUT" 'every connect\(\) answered by kinbox'
	assert_not_file_has_content "$KB_OUT" '^--unotify$'
}
run_test "no pidfd_getfd (kb-no-pidfd-getfd): --dry-run says every socket(AF_UNIX) is refused and why; nothing run" t_fallback_dry

t_fallback_run() {
	[ -x "$NO_PIDFD_GETFD" ] || fail "$NO_PIDFD_GETFD is not built (make helpers)"
	setup fallback-run
	# the helper does what it says: pidfd_getfd EPERM, pidfd_open works
	"$NO_PIDFD_GETFD" -- "$PY" -c '
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
p = os.pidfd_open(os.getpid())
r = libc.syscall(438, p, 0, 0)
print("pidfd_getfd", r, errno.errorcode.get(ctypes.get_errno()) if r == -1 else "")' >"$d/helper.out"
	assert_has_line "$d/helper.out" "pidfd_getfd -1 EPERM"
	mkdir "$d/host"
	start_listener "$d/host/h.sock" "$d/host.log"
	KB_RC=0
	"$NO_PIDFD_GETFD" -- "$KINBOX" -- sh -c '
		echo ran > ran
		"$1" "$2" /tmp/own.sock own; "$1" "$2" "$3" from-sandbox
		"$1" -c "import socket
a, b = socket.socketpair(); a.send(b\"pair\"); print(\"socketpair\", b.recv(4).decode())"' \
		sh "$PY" "$B/cli.py" "$d/host/h.sock" >"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	assert_streq "$KB_RC" 0
	assert_file_has_content "$ws/ran" '^ran$'
	assert_streq "$(grep -c -x 'REFUSED errno=EACCES' "$KB_OUT")" 2 \
		"EACCES at socket(AF_UNIX), for the own socket and the host's"
	assert_has_line "$KB_OUT" "socketpair pair"
	assert_listener_untouched "$d/host/h.sock" "$d/host.log"
}
run_test "no pidfd_getfd: the command's own socket(AF_UNIX) fails with EACCES, a host listener accepts nothing; its workspace write and a stream socketpair work" t_fallback_run

done_testing
