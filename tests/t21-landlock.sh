#!/bin/sh
# tests/t21-landlock.sh — the landlock backend (--backend landlock,
# KINBOX_SANDBOX=landlock, and auto's fallback when bubblewrap is missing or
# cannot make its namespaces): Landlock + seccomp, no namespaces.
#
# Every test judges kinbox from OUTSIDE, by effects: a file the command was
# to write exists on the host, one it must not write is absent or unchanged,
# a host process the test started is alive and unchanged, a server the test
# runs on loopback logged nothing from the command, nothing is left in /tmp.
# Each test also checks that the allowed thing happened in the same run (the
# command wrote in the workspace, its own child was killed, --net reaches
# the server), so that a kinbox that runs nothing fails it.
#
# Auto's fallback is made real with the helpers of tests/helpers (make
# helpers): kb-no-userns (no CLONE_NEWUSER, as Docker's default seccomp
# profile) and kb-no-procwrite (no writes under /proc: bwrap's uid map write
# fails as on Ubuntu 24.04).
#
# The landlock backend says what it does not provide (kinbox --backend
# landlock --dry-run, "not provided (landlock)"): a test of one of those
# things is skipped with that reason, never passed.
#
# Traffic goes to loopback only, to servers this script starts.
#
# Run: make helpers && sh tests/t21-landlock.sh (TAP), or all suites:
# sh tests/run-integration.sh. KINBOX=/path/to/kinbox picks the binary.
# KB_BACKEND does not apply: each test picks its backend.
# shellcheck disable=SC2317,SC2016,SC2164
# SC2317: the t_* bodies are called through run_test.
# SC2016: single-quoted $... is meant for the shell inside the sandbox.
# SC2164: lib.sh sets -e (test bodies run under set -e): a failed cd fails.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

# each call names its backend; auto is the default, as for a user
unset KINBOX_SANDBOX XDG_RUNTIME_DIR XDG_CONFIG_HOME XDG_CACHE_HOME \
	KINBOX_SESSION KINBOX_JSON_FD SSH_AUTH_SOCK || true
# a home of the script's own (credentials are planted in per-test homes);
# as root kinbox also masks the passwd home, which is never touched here
HOME=$KB_T/home
XDG_STATE_HOME=$KB_T/state
mkdir -p "$HOME" "$XDG_STATE_HOME"
export HOME XDG_STATE_HOME

B=$KB_T/bin
mkdir "$B"
PY=python3
if [ -x /usr/bin/python3 ]; then
	PY=/usr/bin/python3
fi
NO_USERNS=$KB_TESTS_DIR/helpers/kb-no-userns
NO_PROCWRITE=$KB_TESTS_DIR/helpers/kb-no-procwrite
USERNS_WORDS='No permissions to create new namespace'
PROCWRITE_WORDS='setting up uid map: Permission denied'
IS_ROOT=0
[ "$(id -u)" = 0 ] && IS_ROOT=1

# --- preflight ---------------------------------------------------------------
if [ ! -x "$KINBOX" ]; then
	tap_not_ok "kinbox binary $KINBOX exists (build it: make kinbox kinbox-exec)"
	done_testing
fi
mkdir "$KB_T/preflight"
# (the one preflight form tests/stub/kinbox-stub answers: "-- true")
if ! (cd "$KB_T/preflight" && KINBOX_SANDBOX=landlock "$KINBOX" -- true) \
	>"$KB_T/preflight.log" 2>&1; then
	diag "$(cat "$KB_T/preflight.log")"
	skip_all "the landlock backend cannot run on this host"
fi
have "$PY" || skip_all "python3 is not installed"
ABI=$(cd "$KB_T/preflight" && "$KINBOX" --backend landlock --dry-run -- true |
	sed -n 's/^# backend: landlock (Landlock ABI \([0-9]*\) .*/\1/p')
[ -n "$ABI" ] || ABI=0
# bubblewrap works here (outside the helpers): auto then picks it
BWRAP_OK=0
if (cd "$KB_T/preflight" && "$KINBOX" --backend bwrap -- true) >/dev/null 2>&1; then
	BWRAP_OK=1
fi
diag "kinbox: $KINBOX; uid $(id -u); kernel $(uname -r); Landlock ABI $ABI; bwrap works: $BWRAP_OK"

# --- helper programs (outside every workspace: read-only inside) -----------

# serve.py KIND READY LOG [ADDR]: a server on loopback or a unix socket;
# READY gets its address (the port, or ADDR) once it listens; LOG gets
# "CONN <first line>" per connection or datagram. KIND: tcp, udp (127.0.0.1,
# a free port), unix, unixdgram (the path ADDR), abstract (the abstract
# name ADDR).
cat >"$B/serve.py" <<'EOF'
import os, socket, sys
kind, ready, log = sys.argv[1], sys.argv[2], sys.argv[3]
addr = sys.argv[4] if len(sys.argv) > 4 else None
dgram = kind in ("udp", "unixdgram")
if kind in ("tcp", "udp"):
    s = socket.socket(socket.AF_INET,
                      socket.SOCK_DGRAM if dgram else socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    addr = str(s.getsockname()[1])
else:
    s = socket.socket(socket.AF_UNIX,
                      socket.SOCK_DGRAM if dgram else socket.SOCK_STREAM)
    s.bind("\0" + addr if kind == "abstract" else addr)
if not dgram:
    s.listen(16)
with open(ready + ".tmp", "w") as f:
    f.write(addr + "\n")
os.rename(ready + ".tmp", ready)
def logit(data):
    with open(log, "ab") as f:
        f.write(b"CONN " + data.strip() + b"\n")
while True:
    if dgram:
        data, _ = s.recvfrom(4096)
        logit(data)
        continue
    c, _ = s.accept()
    c.settimeout(2)
    data = b""
    try:
        while not data.endswith(b"\n"):
            chunk = c.recv(200)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    logit(data)
    c.close()
EOF

# net.py MODE ADDR TAG: one attempt; prints "<MODE> CONNECTED|SENT" or
# "<MODE> REFUSED errno=<NAME>". ADDR: a port, a path or an abstract name.
cat >"$B/net.py" <<'EOF'
import errno, socket, sys, time
mode, addr, tag = sys.argv[1], sys.argv[2], sys.argv[3].encode() + b"\n"
def port():
    return ("127.0.0.1", int(addr))
def attempt():
    if mode == "tcp":
        c = socket.create_connection(port(), 3)
        c.sendall(tag); c.close(); return "CONNECTED"
    if mode == "tfo":
        # TCP Fast Open: sendto(MSG_FASTOPEN) connects without connect(2)
        c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        c.sendto(tag, socket.MSG_FASTOPEN, port())
        time.sleep(0.2); c.close(); return "SENT"
    if mode == "mptcp":
        c = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)
        c.settimeout(3)
        c.connect(port()); c.sendall(tag); c.close(); return "CONNECTED"
    if mode == "udp":
        c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        c.sendto(tag, port()); c.close(); return "SENT"
    if mode in ("unix", "abstract"):
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.settimeout(3)
        c.connect("\0" + addr if mode == "abstract" else addr)
        c.sendall(tag); c.close(); return "CONNECTED"
    if mode == "unixdgram":
        c = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        c.sendto(tag, addr); c.close(); return "SENT"
    if mode in ("pair-sendto", "pair-sendto-abstract"):
        # a socketpair is allowed; its datagram socket may still name a
        # destination
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        a.sendto(tag, "\0" + addr if mode.endswith("abstract") else addr)
        return "SENT"
    if mode == "pair-connect":
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        a.connect(addr); a.send(tag); return "SENT"
    if mode == "socketpair":
        a, b = socket.socketpair()
        a.sendall(b"pair"); return "WORKS " + b.recv(4).decode()
    return "BAD-MODE"
try:
    print(mode, attempt())
except OSError as e:
    print(mode, "REFUSED errno=%s" % errno.errorcode.get(e.errno, e.errno))
sys.stdout.flush()
EOF

# sysc.py OP...: raw system calls, "<op> ok <ret>" or "<op> errno=<NAME>"
cat >"$B/sysc.py" <<'EOF'
import ctypes, errno, platform, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
NR = {
    "x86_64": {"add_key": 248, "request_key": 249, "keyctl": 250, "ptrace": 101},
    "aarch64": {"add_key": 217, "request_key": 218, "keyctl": 219, "ptrace": 117},
}.get(platform.machine(), {})
def call(op, nr, *args):
    r = libc.syscall(ctypes.c_long(nr), *args)
    if r == -1:
        e = ctypes.get_errno()
        print("%s errno=%s" % (op, errno.errorcode.get(e, str(e))))
    else:
        print("%s ok %d" % (op, r))
SESSION = ctypes.c_long(-3)
for op in sys.argv[1:]:
    name, _, arg = op.partition("=")
    if name not in NR:
        print("%s unsupported-arch" % name)
    elif name == "add_key":
        call(name, NR[name], ctypes.c_char_p(b"user"), ctypes.c_char_p(arg.encode()),
             ctypes.c_char_p(b"kinbox"), ctypes.c_size_t(6), SESSION)
    elif name == "request_key":
        call(name, NR[name], ctypes.c_char_p(b"user"), ctypes.c_char_p(arg.encode()),
             ctypes.c_char_p(None), ctypes.c_long(0))
    elif name == "keyctl" and arg:
        # KEYCTL_SEARCH = 10
        call(name, NR[name], ctypes.c_long(10), SESSION, ctypes.c_char_p(b"user"),
             ctypes.c_char_p(arg.encode()), ctypes.c_long(0))
    elif name == "keyctl":
        # KEYCTL_GET_KEYRING_ID = 0
        call(name, NR[name], ctypes.c_long(0), SESSION, ctypes.c_long(0))
    elif name == "ptrace":
        # PTRACE_ATTACH = 16, then PTRACE_DETACH = 17 if it worked
        pid = ctypes.c_long(int(arg))
        call(name, NR[name], ctypes.c_long(16), pid, ctypes.c_long(0), ctypes.c_long(0))
        libc.syscall(ctypes.c_long(NR[name]), ctypes.c_long(17), pid, ctypes.c_long(0), ctypes.c_long(0))
EOF

cat >"$B/tiocsti.py" <<'EOF'
import fcntl, os, sys, termios
def inject(fd, what):
    try:
        fcntl.ioctl(fd, termios.TIOCSTI, b"#")
    except PermissionError:
        print("%s TIOCSTI-EPERM" % what)
    except OSError as e:
        print("%s TIOCSTI-ERRNO-%d" % (what, e.errno))
    else:
        print("%s TIOCSTI-ALLOWED" % what)
inject(0, "terminal")
try:
    m, s = os.openpty()
except PermissionError:
    # the landlock backend grants the command's own terminal only: a new
    # pty's slave cannot be opened (documented)
    print("own-pty OPENPTY-EACCES")
else:
    inject(s, "own-pty")
EOF

# --- shared helpers ------------------------------------------------------------
# kbl ARG...: kb with --backend landlock
kbl() {
	kb --backend landlock "$@"
}

# kb_bg ARG...: kinbox in the background, stdout/stderr to $KB_OUT/$KB_ERR,
# its pid in KB_PID; kb_wait: its status in KB_RC
kb_bg() {
	"$KINBOX" "$@" >"$KB_OUT" 2>"$KB_ERR" </dev/null &
	KB_PID=$!
}
kb_wait() {
	KB_RC=0
	wait "$KB_PID" || KB_RC=$?
}

# await FILE: the background kinbox's command made FILE (else it is
# killed, and the test fails)
await() {
	if ! poll_while_running "$KB_PID" "$1" 150; then
		kill -KILL "$KB_PID" 2>/dev/null || true
		_show_file "$KB_OUT"
		_show_file "$KB_ERR"
		fail "the command never made $1"
	fi
}

# WAITGO: the sandboxed shell's wait for the file $GO (exported by the
# test), bounded (120 s, then exit 99: a concurrent run that searches the
# whole filesystem for the other's file, t_rundir_private, took 25 to 33 s
# on a machine with a few big trees)
WAITGO='_i=0; while [ ! -e "$GO" ]; do _i=$((_i + 1)); [ $_i -le 1200 ] || exit 99; sleep 0.1; done'

# start_server KIND [ADDR]: serve.py in the background; sets SRV (its
# address) and SRVLOG
start_server() {
	_n=$(mktemp -u "$KB_T/srv.XXXXXX")
	SRVLOG=$_n.log
	"$PY" "$B/serve.py" "$1" "$_n.ready" "$SRVLOG" ${2:+"$2"} \
		>"$_n.out" 2>&1 &
	bg_register $!
	if ! poll_for "$_n.ready" 100; then
		_show_file "$_n.out"
		fail "the $1 server did not start"
	fi
	SRV=$(cat "$_n.ready")
	: >>"$SRVLOG"
}

# srv_sync MODE: the host reaches the server (MODE of net.py) and waits
# until it is logged: anything the sandbox had got through would have been
# logged before it
srv_sync() {
	"$PY" "$B/net.py" "$1" "$SRV" host-sync >"$KB_T/sync.out"
	assert_file_has_content "$KB_T/sync.out" 'CONNECTED|SENT'
	_i=0
	while ! grep -q '^CONN host-sync$' "$SRVLOG"; do
		_i=$((_i + 1))
		[ "$_i" -le 100 ] || fail "the server did not log the host's own $1 attempt"
		sleep 0.1
	done
}

# host_sleeper MARK: a host process (sleep) with KB_T97_MARK=MARK in its
# environment, outside any sandbox; sets HP
host_sleeper() {
	env KB_T97_MARK="$1" sleep 300 &
	HP=$!
	bg_register "$HP"
	kb_running "$HP" || fail "the host sleep did not start"
}

# the per-run directories left in /tmp, one a line
# (their parent is mode 0300, unlistable even to its owner: opened for
# the listing, as the test is that owner, and closed again)
rundirs() {
	_rp=/tmp/kinbox-$(id -u)
	if [ -d "$_rp" ]; then
		chmod 700 "$_rp"
		find "$_rp" -mindepth 1 -maxdepth 1 -name 'run.*' 2>/dev/null |
			LC_ALL=C sort
		chmod 300 "$_rp"
	fi
}

# ============================================================================
# The backend chosen: auto's fallback, --backend, KINBOX_SANDBOX
# ============================================================================

# t_fallback HELPER WORDS: under HELPER bubblewrap cannot make its
# namespaces; auto runs the command under the landlock backend and says so
# in one line
t_fallback() {
	[ -x "$1" ] || fail "$1 is not built (make helpers)"
	d=$(newdir "fb-$(basename "$1")")
	mkdir "$d/ws" "$d/outside"
	cd "$d/ws"
	KB_RC=0
	"$1" -- "$KINBOX" -- sh -c 'echo in > f; echo out > "$1/f"; echo "TMPDIR=$TMPDIR"' \
		sh "$d/outside" >"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	assert_streq "$KB_RC" 0 "kinbox's status (the command's)"
	assert_streq "$(cat "$d/ws/f")" in "the workspace write landed"
	assert_not_exists "$d/outside/f"
	assert_file_has_content "$KB_OUT" '^TMPDIR=/tmp/kinbox-[0-9]+/run\.[0-9a-f]{32}$'
	assert_streq "$(grep -c '^kinbox: ' "$KB_ERR")" 1 "kinbox lines on stderr"
	assert_file_has_content "$KB_ERR" "^kinbox: bubblewrap cannot make its namespaces here \\(bwrap: $2.*\\); running under the landlock backend"
}
run_test "auto under kb-no-userns: the landlock backend runs the command (workspace written, outside not), one line says so" \
	t_fallback "$NO_USERNS" "$USERNS_WORDS"
run_test "auto under kb-no-procwrite: the landlock backend runs the command (workspace written, outside not), one line says so" \
	t_fallback "$NO_PROCWRITE" "$PROCWRITE_WORDS"

# t_fallback_dry HELPER WORDS: --dry-run names the choice and bwrap's words
t_fallback_dry() {
	[ -x "$1" ] || fail "$1 is not built (make helpers)"
	ws=$(newdir "fbdry-$(basename "$1")")
	cd "$ws"
	KB_RC=0
	"$1" -- "$KINBOX" --dry-run -- touch "$ws/ran" >"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	assert_streq "$KB_RC" 0
	assert_not_exists "$ws/ran"
	assert_file_has_content "$KB_OUT" "^# backend: landlock \\(Landlock ABI $ABI \\+ seccomp, no namespaces\\), chosen by auto: bubblewrap cannot make its namespaces here \\(bwrap: $2.*\\)\$"
	sed -n 1p "$KB_OUT" | grep -q '^# backend: landlock' || fail "the plan's first line is not the backend's"
	assert_file_has_content "$KB_OUT" "^# workspace: $ws \\(writable\\)\$"
	assert_file_has_content "$KB_OUT" '^--landlock$'
}
run_test "--dry-run under kb-no-userns: 'backend: landlock ... chosen by auto' with bwrap's words, nothing run" \
	t_fallback_dry "$NO_USERNS" "$USERNS_WORDS"
run_test "--dry-run under kb-no-procwrite: 'backend: landlock ... chosen by auto' with bwrap's words, nothing run" \
	t_fallback_dry "$NO_PROCWRITE" "$PROCWRITE_WORDS"

# t_bwrap_forced HELPER WORDS: --backend bwrap never falls back
t_bwrap_forced() {
	[ -x "$1" ] || fail "$1 is not built (make helpers)"
	ws=$(newdir "fbforced-$(basename "$1")")
	cd "$ws"
	KB_RC=0
	"$1" -- "$KINBOX" --backend bwrap -- touch "$ws/ran" >"$KB_OUT" 2>"$KB_ERR" </dev/null || KB_RC=$?
	assert_streq "$KB_RC" 125
	assert_not_exists "$ws/ran"
	[ ! -s "$KB_OUT" ] || fail "stdout is not empty"
	assert_one_kinbox_line "$KB_ERR" "^kinbox: no sandbox: .*\\[bwrap: $2.*\\].*--backend auto or landlock .*Landlock"
	assert_file_has_content "$KB_ERR" 'nothing was run'
	# the control: the same helper, the landlock backend asked for
	KB_RC=0
	"$1" -- "$KINBOX" --backend landlock -- touch "$ws/ran2" >"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	assert_streq "$KB_RC" 0
	assert_exists "$ws/ran2"
	[ ! -s "$KB_ERR" ] || fail "--backend landlock printed: $(cat "$KB_ERR")"
}
run_test "--backend bwrap under kb-no-userns: 125, one line pointing at landlock, nothing run (--backend landlock runs)" \
	t_bwrap_forced "$NO_USERNS" "$USERNS_WORDS"
run_test "--backend bwrap under kb-no-procwrite: 125, one line pointing at landlock, nothing run (--backend landlock runs)" \
	t_bwrap_forced "$NO_PROCWRITE" "$PROCWRITE_WORDS"

# bwrap missing from PATH: auto falls back too, and says so in one line
t_no_bwrap_run() {
	ws=$(newdir nobwrap-run)
	cd "$ws"
	KB_RC=0
	env PATH=/nonexistent-dir "$KINBOX" -- /bin/sh -c 'echo in > f; echo "TMPDIR=$TMPDIR"' \
		>"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	assert_streq "$KB_RC" 0
	assert_streq "$(cat "$ws/f")" in
	assert_file_has_content "$KB_OUT" '^TMPDIR=/tmp/kinbox-[0-9]+/run\.[0-9a-f]{32}$'
	assert_one_kinbox_line "$KB_ERR" 'bubblewrap.*not installed.*landlock|landlock.*bubblewrap.*not installed'
}
run_test "auto with no bwrap on PATH: the landlock backend runs the command, and one stderr line says so" t_no_bwrap_run

t_no_bwrap_dry() {
	ws=$(newdir nobwrap-dry)
	cd "$ws"
	KB_RC=0
	env PATH=/nonexistent-dir "$KINBOX" --dry-run -- /bin/touch "$ws/ran" >"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	assert_streq "$KB_RC" 0
	assert_not_exists "$ws/ran"
	assert_streq "$(sed -n 1p "$KB_OUT")" \
		"# backend: landlock (Landlock ABI $ABI + seccomp, no namespaces), chosen by auto: bubblewrap is not installed (install it for the stronger backend: apt-get install bubblewrap)"
	# --backend bwrap with no bwrap: 125, nothing run
	KB_RC=0
	env PATH=/nonexistent-dir "$KINBOX" --backend bwrap -- /bin/touch "$ws/ran" >"$KB_OUT" 2>"$KB_ERR" </dev/null || KB_RC=$?
	assert_streq "$KB_RC" 125
	assert_kinbox_said "$KB_ERR" \
		"kinbox: no sandbox: bubblewrap (bwrap) is not installed; install it (apt-get install bubblewrap) — nothing was run"
	assert_not_exists "$ws/ran"
}
run_test "no bwrap on PATH: --dry-run says 'chosen by auto: bubblewrap is not installed'; --backend bwrap -> 125, nothing run" t_no_bwrap_dry

# t_sandbox_env VALUE: KINBOX_SANDBOX=VALUE picks the backend (it wins over
# --backend); the run tells the backends apart from outside: under bwrap a
# write to /tmp lands in the private /tmp, under landlock it fails
t_sandbox_env() {
	ws=$(newdir "env-$1")
	cd "$ws"
	tmpx=/tmp/kinbox-t21-env.$(basename "$KB_T").$1
	cleanup_add "rm -f '$tmpx'"
	export KINBOX_SANDBOX="$1"
	case $1 in
	landlock | bwrap | auto)
		want=$1
		if [ "$1" = auto ]; then
			want=landlock
			[ "$BWRAP_OK" = 0 ] || want=bwrap
		fi
		if [ "$want" = bwrap ] && [ "$BWRAP_OK" = 0 ]; then
			skip_test "bubblewrap cannot run here"
		fi
		kb_expect 0 --dry-run --backend bwrap -- true
		assert_file_has_content "$KB_OUT" "^# backend: $want "
		assert_file_has_content "$KB_OUT" '^# backend set by: KINBOX_SANDBOX$'
		kb_expect 0 --backend bwrap -- sh -c 'echo ran > ctl; if echo x > "$1"; then echo TMP-WROTE; else echo TMP-REFUSED; fi; echo "TMPDIR=${TMPDIR:-}"' sh "$tmpx"
		assert_file_has_content "$ws/ctl" '^ran$'
		assert_not_exists "$tmpx"
		if [ "$want" = landlock ]; then
			assert_file_has_content "$KB_OUT" '^TMP-REFUSED$'
			assert_file_has_content "$KB_OUT" '^TMPDIR=/tmp/kinbox-[0-9]+/run\.[0-9a-f]{32}$'
		else
			assert_file_has_content "$KB_OUT" '^TMP-WROTE$'
		fi
		;;
	*)
		KB_RC=0
		"$KINBOX" -- touch "$ws/ran" >"$KB_OUT" 2>"$KB_ERR" </dev/null || KB_RC=$?
		assert_streq "$KB_RC" 125
		assert_not_exists "$ws/ran"
		[ ! -s "$KB_OUT" ] || fail "stdout is not empty"
		if [ "$1" = seatbelt ]; then
			assert_one_kinbox_line "$KB_ERR" "Seatbelt is macOS's sandbox \\(sandbox-exec\\); on Linux use auto, bwrap or landlock\$"
		else
			assert_kinbox_said "$KB_ERR" \
				"kinbox: KINBOX_SANDBOX=$1: unknown value; use auto, bwrap, landlock, seatbelt, container or off, or unset it"
		fi
		# the control: the same command under KINBOX_SANDBOX=landlock
		export KINBOX_SANDBOX=landlock
		kb_expect 0 -- touch "$ws/ran"
		assert_exists "$ws/ran"
		;;
	esac
}
for _v in landlock bwrap auto seatbelt bogus; do
	case $_v in
	landlock | bwrap) _what="picks $_v (over --backend bwrap), seen in the plan and in where a /tmp write goes" ;;
	auto) _what="picks bwrap where it works, else landlock (over --backend bwrap), seen in the plan and in where a /tmp write goes" ;;
	*) _what="-> 125, one line, nothing run" ;;
	esac
	run_test "KINBOX_SANDBOX=$_v $_what" t_sandbox_env "$_v"
done

# The plan of auto where bubblewrap works must not say that bubblewrap is
# the only backend (auto falls back to landlock now)
t_auto_words() {
	[ "$BWRAP_OK" = 1 ] || skip_test "bubblewrap cannot run here"
	ws=$(newdir auto-words)
	cd "$ws"
	kb_expect 0 --dry-run -- touch "$ws/ran"
	assert_not_exists "$ws/ran"
	assert_file_has_content "$KB_OUT" '^# backend: bwrap .*chosen by auto'
	assert_not_file_has_content "$KB_OUT" 'the only backend on Linux|fails closed when bubblewrap cannot run'
}
run_test "--dry-run under auto with a working bwrap does not call bwrap the only backend (auto falls back to landlock)" t_auto_words

# ============================================================================
# Writes
# ============================================================================

t_writes() {
	d=$(newdir writes)
	mkdir "$d/ws" "$d/granted" "$d/outside"
	echo old >"$d/outside/f"
	tmpx=/tmp/kinbox-t21-writes.$(basename "$KB_T")
	cleanup_add "rm -rf '$tmpx'"
	export GO="$d/go"
	cd "$d/ws"
	kb_bg --backend landlock -w "$d/granted" -- sh -c '
		echo ws > f; mkdir -p sub/deep && echo deep > sub/deep/g
		echo g > "$1/granted/f"
		echo x > "$1/outside/f"; echo x >> "$1/outside/f"
		truncate -s 0 "$1/outside/f"; echo x > "$1/outside/new"
		mkdir "$1/outside/dir"; rm -f "$1/outside/f"
		mkdir "$2"; echo x > "$2.f"
		echo t > "$TMPDIR/t" && mkdir "$TMPDIR/d"
		printf "%s\n" "$TMPDIR" > tmpdir.tmp && mv tmpdir.tmp tmpdir
		'"$WAITGO"'
		echo done > done' sh "$d" "$tmpx"
	await "$d/ws/tmpdir"
	rd=$(cat "$d/ws/tmpdir")
	case $rd in
	/tmp/kinbox-"$(id -u)"/run.????????????????????????????????) ;;
	*) fail "TMPDIR inside is '$rd', not a /tmp/kinbox-$(id -u)/run.HEX" ;;
	esac
	# from outside, during the run: the per-run directory, 0700, the
	# caller's, holding what the command wrote there
	assert_streq "$(stat -c %a:%u "$rd")" "700:$(id -u)" "the per-run directory's mode and owner"
	assert_streq "$(cat "$rd/t")" t
	[ -d "$rd/d" ] || fail "$rd/d was not made"
	: >"$GO"
	kb_wait
	assert_streq "$KB_RC" 0 "the command's status"
	assert_file_has_content "$d/ws/done" '^done$'
	assert_streq "$(cat "$d/ws/f")" ws
	assert_streq "$(cat "$d/ws/sub/deep/g")" deep
	assert_streq "$(cat "$d/granted/f")" g "the --write root is writable"
	assert_streq "$(cat "$d/outside/f")" old "outside file content"
	assert_not_exists "$d/outside/new"
	assert_not_exists "$d/outside/dir"
	assert_not_exists "$tmpx"
	assert_not_exists "$tmpx.f"
	assert_not_exists "$rd"
}
run_test "writes: workspace and --write root land; outside dir, /tmp/x refused; \$TMPDIR is a 0700 per-run dir (seen during the run), gone after it" t_writes

# What the command leaves in the per-run directory cannot keep it on the
# host nor steer its removal: a chmod 000 subtree, a symlink to a host file
# and to a host directory, a FIFO, a file the command made unreadable
t_rundir_leftovers() {
	d=$(newdir rundir)
	mkdir "$d/ws" "$d/vdir"
	echo keep >"$d/victim"
	chmod 644 "$d/victim"
	echo keep >"$d/vdir/keep"
	export GO="$d/go"
	cd "$d/ws"
	kb_bg --backend landlock -- sh -c '
		cd "$TMPDIR"
		mkdir -p a/b/c && echo x > a/b/c/f && chmod 000 a/b/c a/b a
		ln -s "$1/victim" link && ln -s "$1/vdir" dirlink
		mkfifo fifo
		mkdir ro && echo y > ro/f && chmod 000 ro/f && chmod 500 ro
		echo z > zero && chmod 000 zero
		printf "%s\n" "$TMPDIR" > "$2/tmpdir.tmp" && mv "$2/tmpdir.tmp" "$2/tmpdir"
		'"$WAITGO"'
		echo done > "$2/done"' sh "$d" "$d/ws"
	await "$d/ws/tmpdir"
	rd=$(cat "$d/ws/tmpdir")
	# the leftovers are there, seen from outside
	[ -L "$rd/link" ] || fail "no symlink $rd/link"
	[ -L "$rd/dirlink" ] || fail "no symlink $rd/dirlink"
	[ -p "$rd/fifo" ] || fail "no fifo $rd/fifo"
	assert_streq "$(stat -c %a "$rd/a")" 0 "mode of $rd/a"
	: >"$GO"
	kb_wait
	assert_streq "$KB_RC" 0
	assert_file_has_content "$d/ws/done" '^done$'
	assert_not_exists "$rd"
	assert_streq "$(cat "$d/victim")" keep "the symlinked host file"
	assert_streq "$(stat -c %a "$d/victim")" 644 "the symlinked host file's mode"
	assert_streq "$(cat "$d/vdir/keep")" keep "the symlinked host directory"
	assert_not_file_has_content "$KB_ERR" 'remove it by hand'
}
run_test "the per-run dir is removed even holding a chmod 000 tree, symlinks to a host file and dir (untouched), a FIFO" t_rundir_leftovers

# A run's temporary directory is private to it: a concurrent run of the
# same user can neither list its parent nor reach the directory, nor make
# the parent listable; the index naming it is unreadable there. A run
# killed by SIGKILL leaves its directory, and the next run sweeps it.
# Control: each run writes and reads its own, seen from outside.
t_rundir_private() {
	d=$(newdir rdpriv)
	mkdir "$d/a" "$d/b"
	# a user whose state store is there (the first denial or git
	# snapshot makes it): runs record their directories in it
	mkdir -p "$XDG_STATE_HOME/kinbox"
	chmod 700 "$XDG_STATE_HOME/kinbox"
	export GO="$d/go"
	cd "$d/a"
	# a token found nowhere else on the machine
	tok=rdpriv-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
	kb_bg --backend landlock -- sh -c '
		echo "$1" > "$TMPDIR/s"
		printf "%s\n" "$TMPDIR" > tmpdir.tmp && mv tmpdir.tmp tmpdir
		'"$WAITGO"'
		cat "$TMPDIR/s" > read-back' sh "$tok"
	await "$d/a/tmpdir"
	rda=$(cat "$d/a/tmpdir")
	assert_streq "$(cat "$rda/s")" "$tok" "run A's own file, seen from outside"
	# control: the index names it, seen from outside
	grep -qx "$rda" "$XDG_STATE_HOME"/kinbox/rundirs/run.* ||
		fail "no index entry holds $rda"
	# run B, concurrent: every way to A's directory it can try
	(cd "$d/b" && "$KINBOX" --backend landlock -- sh -c '
		p=$(dirname "$TMPDIR")
		echo "own=$TMPDIR" > out
		ls "$p" >> out 2>&1 && echo LISTED >> out
		chmod 700 "$p" >> out 2>&1 && echo CHMODDED >> out
		ls "$p" >> out 2>&1 && echo LISTED >> out
		for i in "${XDG_STATE_HOME:-$HOME/.local/state}"/kinbox/rundirs/*; do
			cat "$i" >> out 2>&1 && echo INDEX >> out
		done
		find / -xdev -path "*/run.*" -name s 2>/dev/null | grep -q . && echo FOUND >> out
		grep -rl "$1" /tmp /dev/shm 2>/dev/null | grep -q . && echo FOUND >> out
		echo mine > "$TMPDIR/m" && cat "$TMPDIR/m" >> out' sh "$tok") >"$KB_T/b.log" 2>&1 ||
		{ cat "$KB_T/b.log"; fail "run B failed"; }
	cat "$d/b/out"
	assert_file_has_content "$d/b/out" '^mine$'
	assert_not_file_has_content "$d/b/out" '^(LISTED|CHMODDED|INDEX|FOUND)$'
	# nothing run B could see names A's directory (its name is the key)
	assert_not_file_has_content "$d/b/out" "$(basename "$rda")"
	assert_streq "$(stat -c %a "$(dirname "$rda")")" 300 "the parent's mode after run B"
	: >"$GO"
	kb_wait
	assert_streq "$KB_RC" 0 "run A's status"
	assert_streq "$(cat "$d/a/read-back")" "$tok" "run A read its own file back"
	assert_not_exists "$rda"
	# a run killed before its clean-up leaves its directory; the next
	# landlock run removes it, and never a live run's
	rm -f "$GO" "$d/a/tmpdir"
	kb_bg --backend landlock -- sh -c '
		printf "%s\n" "$TMPDIR" > tmpdir.tmp && mv tmpdir.tmp tmpdir
		touch "$TMPDIR/left"; '"$WAITGO"
	await "$d/a/tmpdir"
	rdk=$(cat "$d/a/tmpdir")
	kill -KILL "$KB_PID"
	kb_wait
	: >"$GO"
	sleep 0.5
	assert_exists "$rdk/left"
	rm -f "$GO" "$d/b/tmpdir"
	cd "$d/b"
	kb_bg --backend landlock -- sh -c '
		printf "%s\n" "$TMPDIR" > tmpdir.tmp && mv tmpdir.tmp tmpdir; '"$WAITGO"
	await "$d/b/tmpdir"
	rdl=$(cat "$d/b/tmpdir")
	assert_not_exists "$rdk"
	(cd "$d/a" && "$KINBOX" --backend landlock -- true) ||
		fail "a third run failed"
	assert_exists "$rdl"
	: >"$GO"
	kb_wait
	assert_not_exists "$rdl"
}
run_test "the per-run dir is private: a concurrent run cannot list its parent (0300), chmod it, read the index or find A's file anywhere; a killed run's dir is swept by the next run, a live run's never" t_rundir_private

# A deep tree (300 nested directories) in the per-run
# directory: removed too, without a note
t_rundir_deep() {
	ws=$(newdir rundir-deep)
	cd "$ws"
	kbl -- sh -c 'printf "%s\n" "$TMPDIR" > tmpdir; cd "$TMPDIR"; i=0
		while [ $i -lt 300 ]; do mkdir d && cd d || exit 9; i=$((i + 1)); done
		echo leaf > f; echo ran > "$1/ctl"' sh "$ws"
	rd=$(cat "$ws/tmpdir")
	cleanup_add "[ ! -d '$rd' ] || rm -rf '$rd'"
	assert_streq "$KB_RC" 0
	assert_file_has_content "$ws/ctl" '^ran$'
	assert_not_exists "$rd"
	assert_not_file_has_content "$KB_ERR" 'remove it by hand'
}
run_test "the per-run dir holding a 300-level deep tree is removed after the run, with no note" t_rundir_deep

# Links and renames out of the writable set
t_links() {
	d=$(newdir links)
	mkdir "$d/ws" "$d/outside"
	echo old >"$d/outside/f"
	cd "$d/ws"
	kbl -- sh -c '
		ln "$1/outside/f" hard; echo evil >> hard
		mv "$1/outside/f" moved
		echo a > a && mv a "$1/outside/a"
		ln a b 2>/dev/null; echo a > a2 && ln a2 b2 && echo linked > ctl' sh "$d"
	assert_file_has_content "$d/ws/ctl" '^linked$'
	assert_exists "$d/ws/b2"
	assert_streq "$(cat "$d/outside/f")" old "the outside file"
	assert_streq "$(stat -c %h "$d/outside/f")" 1 "links of the outside file"
	assert_not_exists "$d/ws/moved"
	assert_not_exists "$d/outside/a"
}
run_test "a hard link to, or a rename of, an outside file is refused; links inside the workspace work" t_links

# kinbox installed under /tmp, and write roots and a workspace below /tmp:
# no private /tmp hides them, the rest of /tmp stays read-only
t_tmp_roots() {
	bin=$(mktemp -d /tmp/kinbox-t21-bin.XXXXXX)
	top=$(mktemp -d /tmp/kinbox-t21-below.XXXXXX)
	cleanup_add "rm -rf '$bin' '$top'"
	cp "$KINBOX" "$(dirname "$KINBOX")/kinbox-exec" "$bin/"
	chmod 755 "$bin" "$top"
	mkdir -p "$top/build" "$top/a/b/c" "$top/proj"
	echo host >"$top/a/sibling"
	ws=$(newdir tmp-roots)
	cd "$ws"
	KB_RC=0
	"$bin/kinbox" --backend landlock -w "$top/build" -w "$top/a/b/c" -- sh -c "
		echo ws > f; echo b > '$top/build/out'; echo c > '$top/a/b/c/out'
		echo y > '$top/a/new'; echo z >> '$top/a/sibling'; echo ran > ctl" \
		>"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	assert_streq "$KB_RC" 0
	assert_file_has_content "$ws/ctl" '^ran$'
	assert_file_has_content "$ws/f" '^ws$'
	assert_file_has_content "$top/build/out" '^b$'
	assert_file_has_content "$top/a/b/c/out" '^c$'
	assert_not_exists "$top/a/new"
	assert_streq "$(cat "$top/a/sibling")" host
	# a workspace below /tmp
	cd "$top/proj"
	KB_RC=0
	"$bin/kinbox" --backend landlock -- sh -c "echo x > '$top/beside'; echo w > f" >"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	assert_streq "$KB_RC" 0
	assert_file_has_content "$top/proj/f" '^w$'
	assert_not_exists "$top/beside"
}
run_test "kinbox installed under /tmp runs; write roots below /tmp (depth 1 and 3) and a workspace there land on the host; their siblings stay read-only" t_tmp_roots

# As root, a block device is the filesystem without the masks (a raw read
# of the disk finds every credential): none may be opened. Shown with a
# read-only loop device over a file in a masked directory.
t_blockdev() {
	[ "$IS_ROOT" = 1 ] || skip_other_pass "block devices are root's; an unprivileged user cannot open them anyway"
	devs=$(find /dev -maxdepth 1 -type b 2>/dev/null | LC_ALL=C sort | tr '\n' ' ')
	[ -n "$devs" ] || skip_test "no block device in /dev"
	d=$(newdir blockdev)
	mkdir -p "$d/ws" "$d/home/.aws"
	export HOME="$d/home"
	loop=
	if have losetup; then
		{ echo 'aws_secret_access_key = BLOCKDEV-T97-SECRET'; head -c 65536 /dev/zero; } >"$HOME/.aws/disk.img"
		loop=$(losetup -f --show -r "$HOME/.aws/disk.img" 2>/dev/null) || loop=
		[ -z "$loop" ] || cleanup_add "losetup -d '$loop'"
	fi
	cd "$d/ws"
	# shellcheck disable=SC2086 # the device list, split
	kbl -- "$PY" -c '
import os, sys
for b in sys.argv[1:]:
    try:
        fd = os.open(b, os.O_RDONLY)
    except OSError as e:
        print("REFUSED", b, e.errno)
        continue
    data = os.read(fd, 4096)
    os.close(fd)
    print("OPENED", b, "SECRET" if b"BLOCKDEV-T97-SECRET" in data else "")
print("ran")' $devs ${loop:+"$loop"} "$HOME/.aws/disk.img"
	[ -z "$loop" ] || losetup -d "$loop" 2>/dev/null || true
	assert_file_has_content "$KB_OUT" '^ran$'
	# the control: the masked image itself is refused
	assert_file_has_content "$KB_OUT" "^REFUSED $HOME/.aws/disk.img "
	assert_not_file_has_content "$KB_OUT" 'SECRET'
	assert_not_file_has_content "$KB_OUT" '^OPENED '
}
run_test "root: no block device can be opened (a read-only loop device over a masked file does not give it away)" t_blockdev

# --device under landlock: the node's rule is made on the descriptor kinbox
# judged (kinbox-exec --dev-fd, as the bwrap backend binds the descriptor),
# not on the path opened again later; the granted node reads and writes,
# the same node ungranted does not (the control)
t_device_fd() {
	[ "$IS_ROOT" = 1 ] || skip_other_pass "mknod needs root"
	d=$(newdir devfd)
	mkdir "$d/ws"
	mknod "$d/kbzero" c 1 5
	chmod 666 "$d/kbzero"
	cd "$d/ws"
	"$KINBOX" --backend landlock --dry-run --device "$d/kbzero" -- true >"$KB_T/dev.plan" 2>&1
	assert_file_has_content "$KB_T/dev.plan" '^--dev-fd$'
	assert_not_file_has_content "$KB_T/dev.plan" "^$d/kbzero\$"
	kbl --device "$d/kbzero" -- sh -c "head -c 2 '$d/kbzero' | od -An -tx1 >out; echo x >'$d/kbzero' && echo wrote >>out"
	assert_file_has_content "$d/ws/out" '^ *00 00$'
	assert_file_has_content "$d/ws/out" '^wrote$'
	kbl -- sh -c "echo x >'$d/kbzero' && echo wrote >out2; echo ran >>out2"
	assert_file_has_content "$d/ws/out2" '^ran$'
	assert_not_file_has_content "$d/ws/out2" '^wrote$'
}
run_test "--device under landlock: granted by the descriptor kinbox judged (--dev-fd in the plan); the node reads and writes, ungranted it is refused" t_device_fd

# chmod, chown, utimes, extended attributes and ACLs on a file, a directory
# and a symlink outside the writable set (owned by the caller, root
# included) are refused with EROFS, as the read-only mounts of bwrap refuse
# them, through every form: a path, a symlink to it, *at with a directory
# descriptor, AT_EMPTY_PATH on an O_PATH descriptor, /proc/self/fd/N, and
# the f* calls on an O_RDONLY descriptor (which Landlock never checks for
# writing). The same calls on the same tree inside the workspace work (the
# control, in the same run). Judged from outside: mode, owner, times and
# xattrs of the outside tree unchanged, those inside changed.
cat >"$B/meta-probe.py" <<'EOF'
import ctypes, errno, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
def sc(r):
    if r != 0:
        raise OSError(ctypes.get_errno(), "syscall")
t = sys.argv[1]
f, d, l = t + "/f", t + "/d", t + "/l"
uid, gid = os.getuid(), os.getgid()
def tr(name, fn):
    try:
        fn()
        print(name, "ok")
    except OSError as e:
        print(name, "err", errno.errorcode.get(e.errno, e.errno))
dfd = os.open(t, os.O_RDONLY | os.O_DIRECTORY)
rfd = os.open(f, os.O_RDONLY)
pfd = os.open(f, os.O_PATH)
ddfd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
T = (1000000000, 1000000000)
tr("chmod", lambda: os.chmod(f, 0o640))
tr("chmod-dir", lambda: os.chmod(d, 0o750))
tr("chmod-via-symlink", lambda: os.chmod(l, 0o641))
tr("fchmod-rdonly-fd", lambda: os.fchmod(rfd, 0o642))
tr("fchmod-dir-fd", lambda: os.fchmod(ddfd, 0o751))
tr("fchmodat-dirfd", lambda: os.chmod("f", 0o643, dir_fd=dfd))
tr("fchmodat2-nofollow", lambda: sc(libc.syscall(452, dfd, b"f", 0o644, 0x100)))
tr("fchmodat2-empty-opath", lambda: sc(libc.syscall(452, pfd, b"", 0o645, 0x1000)))
tr("chmod-proc-self-fd", lambda: os.chmod("/proc/self/fd/%d" % rfd, 0o646))
tr("chown", lambda: os.chown(f, uid, gid))
tr("lchown-symlink", lambda: os.lchown(l, uid, gid))
tr("fchown-rdonly-fd", lambda: os.fchown(rfd, uid, gid))
tr("fchownat-dirfd", lambda: os.chown("f", uid, gid, dir_fd=dfd))
tr("fchownat-empty-opath", lambda: sc(libc.fchownat(pfd, b"", uid, gid, 0x1000)))
tr("utime", lambda: os.utime(f, T))
tr("utime-now", lambda: os.utime(f))
tr("utime-dir", lambda: os.utime(d, T))
tr("utimes", lambda: sc(libc.utimes(f.encode(), None)))
tr("futimens-rdonly-fd", lambda: os.utime(rfd, T))
tr("utimensat-dirfd", lambda: os.utime("f", T, dir_fd=dfd))
tr("utimensat-nofollow-symlink", lambda: os.utime("l", T, dir_fd=dfd, follow_symlinks=False))
tr("setxattr", lambda: os.setxattr(f, "user.kb", b"1"))
tr("lsetxattr-dir", lambda: os.setxattr(d, "user.kb3", b"3", follow_symlinks=False))
tr("fsetxattr-rdonly-fd", lambda: os.setxattr(rfd, "user.kb2", b"2"))
tr("removexattr", lambda: os.removexattr(f, "user.old"))
tr("fremovexattr-rdonly-fd", lambda: os.removexattr(rfd, "user.old2"))
# an ACL naming a user (setfacl -m u:UID:r): not one the mode can hold
acl = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in (
    (0x01, 6, 0xffffffff), (0x02, 4, uid), (0x04, 4, 0xffffffff),
    (0x10, 4, 0xffffffff), (0x20, 4, 0xffffffff)))
tr("setfacl-acl", lambda: os.setxattr(f, "system.posix_acl_access", acl))
print("ran")
EOF
# meta_tree DIR: f (0644, two xattrs), d (0755), l -> f, all dated 2001
meta_tree() {
	mkdir -p "$1/d"
	echo keep >"$1/f"
	ln -s f "$1/l"
	chmod 644 "$1/f"
	chmod 755 "$1/d"
	touch -h -d 2001-01-01 "$1/f" "$1/d" "$1/l"
	"$PY" -c 'import os, sys
os.setxattr(sys.argv[1], "user.old", b"0")
os.setxattr(sys.argv[1], "user.old2", b"0")' "$1/f"
}
# meta_state DIR: modes, owners, times and xattrs of the tree
meta_state() {
	stat -c '%n %a %u %g %Y' "$1/f" "$1/d"
	stat -c '%n %Y' "$1/l"
	"$PY" -c 'import os, sys
for p in sys.argv[1:]:
    print(p, sorted(os.listxattr(p)))' "$1/f" "$1/d"
}
t_metadata() {
	d=$(newdir meta)
	mkdir "$d/ws"
	meta_tree "$d/outside"
	meta_tree "$d/ws/in"
	meta_state "$d/outside" >"$d/before"
	cd "$d/ws"
	kbl -- sh -c "$PY '$B/meta-probe.py' '$d/outside' >out.txt; $PY '$B/meta-probe.py' '$d/ws/in' >in.txt"
	assert_streq "$KB_RC" 0
	meta_state "$d/outside" >"$d/after"
	if ! cmp -s "$d/before" "$d/after"; then
		_show_file "$d/before"
		_show_file "$d/after"
		fail "a metadata call changed the tree outside the roots"
	fi
	# the control and the verdicts: every call inside works, every one
	# outside is refused with EROFS
	assert_file_has_content "$d/ws/out.txt" '^ran$'
	assert_file_has_content "$d/ws/in.txt" '^ran$'
	_calls=$(grep -c . "$d/ws/in.txt")
	[ "$_calls" -ge 28 ] || fail "only $_calls calls probed"
	if grep -v -e '^ran$' -e ' err EROFS$' "$d/ws/out.txt" >"$d/odd"; then
		_show_file "$d/odd"
		fail "a metadata call outside was not refused with EROFS"
	fi
	if grep -v -e '^ran$' -e ' ok$' "$d/ws/in.txt" >"$d/odd"; then
		_show_file "$d/odd"
		fail "a metadata call in the workspace failed"
	fi
	# seen from outside: the changes inside landed
	assert_streq "$(stat -c %a "$d/ws/in/d")" 751
	assert_streq "$(stat -c %Y "$d/ws/in/f")" 1000000000
	assert_streq "$(stat -c %Y "$d/ws/in/l")" 1000000000 "the symlink's own time"
	"$PY" -c 'import os, sys
assert sorted(os.listxattr(sys.argv[1])) == ["system.posix_acl_access", "user.kb", "user.kb2"], os.listxattr(sys.argv[1])
assert os.listxattr(sys.argv[2]) == ["user.kb3"]' "$d/ws/in/f" "$d/ws/in/d" ||
		fail "the xattrs set inside did not land"
}
run_test "metadata: chmod, chown, utimes, xattrs and ACLs outside the roots refused (EROFS; path, symlink, dirfd, AT_EMPTY_PATH, /proc/self/fd, O_RDONLY fd), all unchanged; the same calls in the workspace land" t_metadata

# the plan says so; --require attr-guard now runs; the denial line names
# the file; as root, a file of the system (/etc/hostname) keeps its mode
t_metadata_plan() {
	d=$(newdir meta-plan)
	mkdir "$d/ws" "$d/outside"
	echo keep >"$d/outside/victim"
	chmod 644 "$d/outside/victim"
	cd "$d/ws"
	"$KINBOX" --backend landlock --dry-run -- true >"$KB_T/meta.plan" 2>&1
	assert_file_has_content "$KB_T/meta.plan" '^# metadata: chmod, chown, utimes and extended attributes \(ACLs\) are handed to kinbox'
	assert_not_file_has_content "$KB_T/meta.plan" '^# not enforced: the mode, times'
	kbl --require attr-guard -- sh -c "echo ran >ctl; chmod 666 '$d/outside/victim'"
	assert_streq "$KB_RC" 1
	assert_file_has_content "$d/ws/ctl" '^ran$'
	assert_streq "$(stat -c %a "$d/outside/victim")" 644
	assert_file_has_content "$KB_ERR" "^kinbox: denied write '$d/outside/victim' \\(Read-only file system"
	if [ "$IS_ROOT" = 1 ]; then
		_m=$(stat -c %a /etc/hostname)
		_t=$(stat -c %Y /etc/hostname)
		kbl -- sh -c 'chmod 600 /etc/hostname; touch -d 2001-01-01 /etc/hostname; echo ran >ctl2'
		assert_file_has_content "$d/ws/ctl2" '^ran$'
		assert_streq "$(stat -c '%a %Y' /etc/hostname)" "$_m $_t" "root cannot chmod or touch /etc/hostname"
	fi
}
run_test "metadata: the plan says kinbox mediates it, --require attr-guard runs, a chmod outside gets kinbox's denial line; root cannot chmod /etc/hostname" t_metadata_plan

# what real work does with metadata keeps working under landlock: git clone
# and checkout, tar -xp (modes and mtimes), cp -p, install -m 755, touch and
# chmod in the workspace and in the run's TMPDIR, npm's bin links (when
# npm is installed); judged from outside
t_metadata_work() {
	d=$(newdir meta-work)
	mkdir -p "$d/src/repo" "$d/ws" "$d/pkg/bin"
	(
		cd "$d/src/repo"
		git init -q .
		echo '#!/bin/sh' >tool
		chmod 755 tool
		git add tool
		git -c user.email=t@e -c user.name=t commit -qm x
		touch -d 2001-01-01 tool
		tar -cf "$d/src/t.tar" tool
	)
	printf '{"name":"kbpkg","version":"1.0.0","bin":{"kbpkg":"bin/cli.js"}}' >"$d/pkg/package.json"
	printf '#!/usr/bin/env node\nconsole.log("hi")\n' >"$d/pkg/bin/cli.js"
	chmod 644 "$d/pkg/bin/cli.js"
	echo '{"name":"p","version":"1.0.0"}' >"$d/ws/package.json"
	cd "$d/ws"
	kbl -- sh -c "set -e
		git clone -q '$d/src/repo' clone
		git -C clone checkout -q -b other
		mkdir x && tar -xpf '$d/src/t.tar' -C x
		cp -p '$d/src/repo/tool' cp-p
		install -m 755 '$d/src/repo/tool' inst
		touch t1 && chmod 600 t1 && touch -d 2002-02-02 t1
		echo t >\"\$TMPDIR/f\" && chmod 600 \"\$TMPDIR/f\" && touch -d 2003-03-03 \"\$TMPDIR/f\"
		stat -c '%a %Y' \"\$TMPDIR/f\" >tmpstat
		if command -v npm >/dev/null 2>&1; then
			npm install --offline --no-audit --no-fund --install-links '$d/pkg' >npm.log 2>&1
			./node_modules/.bin/kbpkg >npm.out
		fi
		echo ran >ctl"
	assert_streq "$KB_RC" 0
	assert_file_has_content "$d/ws/ctl" '^ran$'
	assert_streq "$(stat -c %a "$d/ws/clone/tool")" 755 "git checkout's mode"
	assert_streq "$(stat -c '%a %Y' "$d/ws/x/tool")" "755 $(date -d 2001-01-01 +%s)" "tar -xp's mode and mtime"
	assert_streq "$(stat -c '%a %Y' "$d/ws/cp-p")" "755 $(date -d 2001-01-01 +%s)" "cp -p's mode and mtime"
	assert_streq "$(stat -c %a "$d/ws/inst")" 755 "install -m 755"
	assert_streq "$(stat -c '%a %Y' "$d/ws/t1")" "600 $(date -d 2002-02-02 +%s)" "chmod and touch -d in the workspace"
	assert_streq "$(cat "$d/ws/tmpstat")" "600 $(date -d 2003-03-03 +%s)" "chmod and touch -d in the run's TMPDIR"
	if have npm; then
		assert_file_has_content "$d/ws/npm.out" '^hi$'
		assert_streq "$(stat -c %a "$d/ws/node_modules/kbpkg/bin/cli.js")" 755 "npm's bin link target made executable"
	fi
}
run_test "metadata under landlock, real work: git clone/checkout, tar -xp, cp -p, install -m 755, touch/chmod in the workspace and TMPDIR, npm bin links" t_metadata_work

# ============================================================================
# Exit status
# ============================================================================

# t_exit CODE CHECK CMD...: as t20-core.sh's, under --backend landlock
t_exit() {
	ws=$(newdir "exit-$1-$(date +%s%N)")
	cd "$ws"
	_want=$1
	_check=$2
	shift 2
	kbl "$@"
	if [ "$KB_RC" != "$_want" ]; then
		_show_file "$KB_ERR"
		fail "exit status $KB_RC, expected $_want: kinbox $*"
	fi
	if [ "$_check" = ctl ]; then
		assert_file_has_content "$ws/ctl" '^ran$'
	else
		assert_kinbox_said "$KB_ERR" "$_check"
	fi
}
run_test "exit status: sh -c 'exit 3' -> 3" t_exit 3 ctl -- sh -c 'echo ran > ctl; exit 3'
run_test "exit status: sh -c 'kill -TERM \$\$' -> 143 (128+15)" t_exit 143 ctl -- sh -c 'echo ran > ctl; kill -TERM $$'
run_test "exit status: sh -c 'kill -KILL \$\$' -> 137 (128+9)" t_exit 137 ctl -- sh -c 'echo ran > ctl; kill -KILL $$'
run_test "exit status: a command that does not exist -> 127 ('command not found')" t_exit 127 \
	"kinbox: kinbox-no-such-command-xyz: command not found" -- kinbox-no-such-command-xyz
run_test "exit status: /etc/passwd as the command (not executable) -> 126 ('Permission denied')" t_exit 126 \
	"kinbox: /etc/passwd: Permission denied" -- /etc/passwd

# ============================================================================
# Credentials
# ============================================================================

# plant_home DIR: a home with credentials and ordinary dotfiles
plant_home() {
	mkdir -p "$1/.aws" "$1/.ssh" "$1/.config/gh"
	echo 'aws_secret_access_key = AWS-T97-SECRET' >"$1/.aws/credentials"
	echo 'machine example.invalid password NETRC-T97-SECRET' >"$1/.netrc"
	echo 'SSH-T97-SECRET' >"$1/.ssh/id_ed25519"
	echo 'https://u:GITCRED-T97-SECRET@example.invalid' >"$1/.git-credentials"
	echo 'oauth_token: GH-T97-SECRET' >"$1/.config/gh/hosts.yml"
	echo 'PROFILE-T97-VISIBLE' >"$1/.profile"
	echo 'BASHRC-T97-VISIBLE' >"$1/.bashrc"
	chmod 600 "$1/.netrc" "$1/.ssh/id_ed25519" "$1/.aws/credentials"
}

t_creds() {
	d=$(newdir creds)
	mkdir "$d/ws"
	plant_home "$d/home"
	export HOME="$d/home"
	cd "$d/ws"
	kbl -- sh -c '
		for f in .aws/credentials .netrc .ssh/id_ed25519 .git-credentials .config/gh/hosts.yml .profile .bashrc; do
			cat "$HOME/$f"
		done
		cp "$HOME/.netrc" netrc.copy
		ln -s "$HOME/.netrc" netrc.link; cat netrc.link
		ln "$HOME/.netrc" netrc.hard
		tar -cf home.tar -C "$HOME" . 2>/dev/null
		echo ran > ctl'
	assert_file_has_content "$d/ws/ctl" '^ran$'
	assert_file_has_content "$KB_OUT" '^PROFILE-T97-VISIBLE$'
	assert_file_has_content "$KB_OUT" '^BASHRC-T97-VISIBLE$'
	assert_not_file_has_content "$KB_OUT" 'T97-SECRET'
	for f in netrc.copy netrc.hard; do
		if [ -e "$d/ws/$f" ]; then
			assert_not_file_has_content "$d/ws/$f" 'T97-SECRET'
		fi
	done
	if [ -e "$d/ws/home.tar" ]; then
		if grep -a -q 'T97-SECRET' "$d/ws/home.tar"; then
			fail "a credential was copied into home.tar"
		fi
	fi
}
run_test "credentials in a fake home (.aws, .netrc, .ssh, .git-credentials, gh) unreadable (cat, cp, symlink, link, tar); .profile/.bashrc readable" t_creds

# The host replaces masked credentials while the command runs (write a
# temporary file, rename it over the old one; a whole directory swapped):
# the new contents stay unreadable
t_creds_replaced() {
	d=$(newdir creds-repl)
	mkdir "$d/ws"
	plant_home "$d/home"
	export HOME="$d/home" GO="$d/go"
	cd "$d/ws"
	kb_bg --backend landlock -- sh -c '
		echo ready > ready
		'"$WAITGO"'
		cat "$HOME/.netrc" "$HOME/.aws/credentials" "$HOME/.ssh/id_ed25519" "$HOME/.profile"
		ls "$HOME/.aws" > aws.list 2>&1
		echo ran > ctl'
	await "$d/ws/ready"
	echo 'machine example.invalid password NETRC-T97-NEW' >"$HOME/.netrc.tmp"
	mv -f "$HOME/.netrc.tmp" "$HOME/.netrc"
	echo 'aws_secret_access_key = AWS-T97-NEW' >"$HOME/.aws/credentials.tmp"
	mv -f "$HOME/.aws/credentials.tmp" "$HOME/.aws/credentials"
	mkdir "$HOME/.ssh.new"
	echo 'SSH-T97-NEW' >"$HOME/.ssh.new/id_ed25519"
	mv "$HOME/.ssh" "$HOME/.ssh.old"
	mv "$HOME/.ssh.new" "$HOME/.ssh"
	: >"$GO"
	kb_wait
	assert_file_has_content "$d/ws/ctl" '^ran$'
	assert_file_has_content "$KB_OUT" '^PROFILE-T97-VISIBLE$'
	assert_not_file_has_content "$KB_OUT" 'T97-(NEW|SECRET)'
}
run_test "credentials the host replaces during the run (tmp + rename, a directory swapped) stay unreadable; .profile still readable" t_creds_replaced

# A store reached through a symlinked directory on its way (~/.config ->
# a dotfiles checkout) is masked where it really is
t_creds_symlinked_dir() {
	d=$(newdir creds-link)
	mkdir -p "$d/ws" "$d/home" "$d/dotfiles/config/gh" "$d/dotfiles/docker" "$d/real-aws"
	echo 'oauth_token: GH-T97-SECRET' >"$d/dotfiles/config/gh/hosts.yml"
	echo '{"auths":{"x":{"auth":"DOCKER-T97-SECRET"}}}' >"$d/dotfiles/docker/config.json"
	echo 'aws_secret_access_key = AWS-T97-SECRET' >"$d/real-aws/credentials"
	echo 'CONFIG-T97-VISIBLE' >"$d/dotfiles/config/other"
	ln -s ../dotfiles/config "$d/home/.config"
	ln -s ../dotfiles/docker "$d/home/.docker"
	ln -s ../real-aws "$d/home/.aws"
	export HOME="$d/home"
	cd "$d/ws"
	kbl -- sh -c '
		cat "$HOME/.config/gh/hosts.yml" "$HOME/.docker/config.json" "$HOME/.aws/credentials"
		cat "$1/dotfiles/config/gh/hosts.yml" "$1/dotfiles/docker/config.json"
		cat "$HOME/.config/other"; echo ran > ctl' sh "$d"
	assert_file_has_content "$d/ws/ctl" '^ran$'
	assert_file_has_content "$KB_OUT" '^CONFIG-T97-VISIBLE$'
	assert_not_file_has_content "$KB_OUT" 'T97-SECRET'
}
run_test "credentials behind a symlinked directory (~/.config -> dotfiles/config: gh; ~/.docker -> dotfiles/docker) stay unreadable, by either path" t_creds_symlinked_dir

# Reading a masked credential fails with EACCES under landlock (bwrap shows
# an empty file): kinbox's line about it is no write denial
t_creds_read_denial() {
	d=$(newdir creds-denial)
	mkdir "$d/ws"
	plant_home "$d/home"
	export HOME="$d/home"
	cd "$d/ws"
	kbl -- sh -c 'echo ran > ctl; cat "$HOME/.netrc"'
	assert_file_has_content "$d/ws/ctl" '^ran$'
	assert_streq "$KB_RC" 1
	assert_file_has_content "$KB_ERR" "^cat: $HOME/.netrc: Permission denied\$"
	assert_not_file_has_content "$KB_OUT" 'T97-SECRET'
	assert_not_file_has_content "$KB_ERR" "^kinbox: denied write '$HOME/\\.netrc'"
}
run_test "cat of a masked credential under landlock: EACCES, and kinbox does not report it as a denied write" t_creds_read_denial

# A credential inside a writable root cannot be hidden by Landlock (its
# rules only add rights): the landlock backend refuses instead
t_mask_in_root() {
	d=$(newdir mask-root)
	mkdir -p "$d/ws" "$d/home/.docker" "$d/home/.other"
	echo '{"auths":{"x":{"auth":"DOCKER-T97-SECRET"}}}' >"$d/home/.docker/config.json"
	export HOME="$d/home"
	cd "$d/ws"
	KB_RC=0
	"$KINBOX" --backend landlock --write "$HOME/.docker" -- touch "$HOME/.docker/ran" \
		>"$KB_OUT" 2>"$KB_ERR" </dev/null || KB_RC=$?
	assert_streq "$KB_RC" 125
	assert_kinbox_said "$KB_ERR" \
		"kinbox: $HOME/.docker/config.json lies in a writable root, and the landlock backend cannot hide a credential there (its rules only add rights); give a narrower --write or use the bwrap backend — nothing was run"
	assert_not_exists "$HOME/.docker/ran"
	# the control: a root below home that holds no credential
	kbl --write "$HOME/.other" -- touch "$HOME/.other/ran"
	assert_streq "$KB_RC" 0
	assert_exists "$HOME/.other/ran"
}
run_test "a credential inside a --write root (~/.docker/config.json): 125, one line, nothing run (a root holding none runs)" t_mask_in_root

t_ssh_agent() {
	d=$(newdir sshagent)
	mkdir "$d/ws"
	start_server unix "$d/agent.sock"
	export SSH_AUTH_SOCK="$d/agent.sock"
	cd "$d/ws"
	KB_RC=0
	"$KINBOX" --backend landlock --net --ssh-agent -- touch "$d/ws/ran" \
		>"$KB_OUT" 2>"$KB_ERR" </dev/null || KB_RC=$?
	assert_streq "$KB_RC" 125
	assert_kinbox_said "$KB_ERR" \
		"kinbox: --ssh-agent: the landlock backend refuses every unix socket (Landlock on this kernel cannot tell the agent's from the host's other sockets); use the bwrap backend, or run git over https — nothing was run"
	assert_not_exists "$d/ws/ran"
	kbl --net -- touch "$d/ws/ran"
	assert_streq "$KB_RC" 0
	assert_exists "$d/ws/ran"
}
run_test "--ssh-agent under landlock: 125, one line, nothing run (without it the command runs)" t_ssh_agent

# ============================================================================
# Network (loopback servers of this script only)
# ============================================================================

# t_net MODE SERVER: with the network off, MODE (net.py) does not reach a
# SERVER the test runs on loopback; with --net it does
t_net() {
	[ "$ABI" -ge 4 ] || skip_test "Landlock ABI $ABI < 4: every inet socket is refused (another path)"
	ws=$(newdir "net-$1")
	cd "$ws"
	start_server "$2"
	tag=t21-$1-off
	kbl -- "$PY" "$B/net.py" "$1" "$SRV" "$tag"
	assert_streq "$KB_RC" 0
	assert_file_has_content "$KB_OUT" "^$1 (REFUSED|SENT|CONNECTED)"
	srv_sync "$(case $2 in udp) echo udp ;; *) echo tcp ;; esac)"
	assert_not_file_has_content "$SRVLOG" "$tag"
	assert_file_has_content "$KB_OUT" "^$1 REFUSED"
	# the control: --net reaches it
	kbl --net -- "$PY" "$B/net.py" "$1" "$SRV" "t21-$1-on"
	assert_file_has_content "$KB_OUT" "^$1 (CONNECTED|SENT)\$"
	_i=0
	while ! grep -q "^CONN t21-$1-on\$" "$SRVLOG"; do
		_i=$((_i + 1))
		[ "$_i" -le 100 ] || fail "with --net the server did not see the command"
		sleep 0.1
	done
}
run_test "network off: a loopback TCP server is not reachable; with --net it is" t_net tcp tcp
run_test "network off: TCP Fast Open (sendto MSG_FASTOPEN, no connect) does not reach a loopback TCP server; with --net it does" t_net tfo tcp
run_test "network off: UDP to a loopback listener is refused, nothing arrives; with --net it arrives" t_net udp udp

# t_listen_autobind: listen(2) on a socket never bound takes an ephemeral
# port on every address (no bind(2), which Landlock checks); with the
# network off nothing may connect to it, from the host or beyond
cat >"$B/listen.py" <<'EOF2'
import os, socket, sys
portfile = sys.argv[1]
s = socket.socket()
try:
    s.listen(4)
except OSError as e:
    print("listen REFUSED", e.errno)
    open(portfile + ".tmp", "w").write("none\n")
    os.rename(portfile + ".tmp", portfile)
    sys.exit(0)
open(portfile + ".tmp", "w").write("%d\n" % s.getsockname()[1])
os.rename(portfile + ".tmp", portfile)
s.settimeout(5)
try:
    c, _ = s.accept()
    print("ACCEPTED", c.recv(100).decode().strip())
except OSError as e:
    print("nothing accepted", e)
EOF2

t_listen_autobind() {
	[ "$ABI" -ge 4 ] || skip_test "Landlock ABI $ABI < 4: every inet socket is refused (another path)"
	ws=$(newdir listen)
	cd "$ws"
	for net in --no-net --net; do
		rm -f "$ws/port"
		kb_bg --backend landlock "$net" -- "$PY" "$B/listen.py" "$ws/port"
		await "$ws/port"
		port=$(cat "$ws/port")
		host=none
		if [ "$port" != none ]; then
			host=$("$PY" "$B/net.py" tcp "$port" "t21-listen$net")
		fi
		kb_wait
		echo "$net: inside: $(cat "$KB_OUT"); host: $host"
		if [ "$net" = --net ]; then
			# the control: with the network on, the host reaches it
			assert_streq "$host" "tcp CONNECTED" "the host's connection with --net"
			assert_file_has_content "$KB_OUT" "^ACCEPTED t21-listen--net\$"
		else
			assert_not_file_has_content "$KB_OUT" '^ACCEPTED'
			assert_strne "$host" "tcp CONNECTED" "the host's connection with the network off"
		fi
	done
}
run_test "network off: a socket that listens without bind (an ephemeral port on every address) accepts nothing from the host; with --net it does" t_listen_autobind

t_mptcp() {
	"$PY" -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262).close()' 2>/dev/null ||
		skip_test "MPTCP is not available on this host (net.mptcp.enabled=0 or no kernel support)"
	t_net mptcp tcp
}
run_test "network off: MPTCP (IPPROTO 262) to a loopback TCP server is refused, nothing arrives; with --net it arrives" t_mptcp

# ============================================================================
# Unix sockets
# ============================================================================

t_unix_path() {
	d=$(newdir unix-path)
	mkdir "$d/ws"
	start_server unix "$d/s.sock"
	cd "$d/ws"
	for net in --no-net --net; do
		kbl "$net" -- sh -c '"$1" "$2" unix "$3" "t21-unix$4"; "$1" "$2" socketpair x x' \
			sh "$PY" "$B/net.py" "$SRV" "$net"
		assert_file_has_content "$KB_OUT" '^socketpair WORKS pair$'
		assert_file_has_content "$KB_OUT" '^unix REFUSED'
	done
	srv_sync unix
	assert_not_file_has_content "$SRVLOG" 't21-unix'
}
run_test "unix: a pathname socket served outside is not connectable (network off and --net); socketpair works" t_unix_path

t_unix_dgram() {
	d=$(newdir unix-dgram)
	mkdir "$d/ws"
	start_server unixdgram "$d/d.sock"
	cd "$d/ws"
	kbl -- sh -c 'for m in unixdgram pair-sendto pair-connect socketpair; do "$1" "$2" $m "$3" "t21-dgram-$m"; done' \
		sh "$PY" "$B/net.py" "$SRV"
	assert_file_has_content "$KB_OUT" '^socketpair WORKS pair$'
	srv_sync unixdgram
	assert_not_file_has_content "$SRVLOG" 't21-dgram'
}
run_test "unix: a datagram socket served outside gets nothing (socket+sendto, a socketpair's sendto and connect)" t_unix_dgram

t_unix_abstract() {
	[ "$ABI" -ge 6 ] || skip_test "Landlock ABI $ABI < 6: no abstract-socket scope (the plan says so)"
	d=$(newdir unix-abstract)
	mkdir "$d/ws"
	start_server abstract "kinbox-t21-$(basename "$KB_T")"
	cd "$d/ws"
	for net in --no-net --net; do
		kbl "$net" -- sh -c 'for m in abstract pair-sendto-abstract socketpair; do "$1" "$2" $m "$3" "t21-abs-$m"; done' \
			sh "$PY" "$B/net.py" "$SRV"
		assert_file_has_content "$KB_OUT" '^socketpair WORKS pair$'
		assert_file_has_content "$KB_OUT" '^abstract REFUSED'
	done
	srv_sync abstract
	assert_not_file_has_content "$SRVLOG" 't21-abs'
}
run_test "unix: an abstract socket served outside is not connectable nor sent to (network off and --net); socketpair works" t_unix_abstract

# ============================================================================
# Host processes: signals, /proc, limits; what the command leaves running
# ============================================================================

t_signals() {
	[ "$ABI" -ge 6 ] || skip_test "Landlock ABI $ABI < 6: no signal scope (the plan says so)"
	d=$(newdir signals)
	mkdir "$d/ws"
	host_sleeper signals
	cd "$d/ws"
	kbl -- sh -c '
		kill -TERM "$1"; echo "host-term=$?"
		kill -KILL "$1"; echo "host-kill=$?"
		kill -TERM "$PPID"; echo "parent=$?"
		"$2" -c "
import fcntl, os, sys, time
r, w = os.pipe()
fcntl.fcntl(r, fcntl.F_SETOWN, int(sys.argv[1]))
fcntl.fcntl(r, getattr(fcntl, \"F_SETSIG\", 10), 9)
fcntl.fcntl(r, fcntl.F_SETFL, fcntl.fcntl(r, fcntl.F_GETFL) | os.O_ASYNC)
os.write(w, b\"x\"); time.sleep(0.2); print(\"sigio tried\")" "$1"
		sleep 100 & c=$!
		kill -TERM $c; wait $c; echo "child=$?"' sh "$HP" "$PY"
	assert_file_has_content "$KB_OUT" '^child=143$'
	assert_file_has_content "$KB_OUT" '^sigio tried$'
	assert_file_has_content "$KB_OUT" '^host-term=[1-9]'
	assert_file_has_content "$KB_OUT" '^host-kill=[1-9]'
	assert_file_has_content "$KB_OUT" '^parent=[1-9]'
	kb_running "$HP" || fail "the host process $HP was killed from inside"
	assert_streq "$KB_RC" 0 "kinbox's status (kinbox itself was not signalled)"
}
run_test "signals: a host sleep and kinbox itself cannot be signalled (kill, F_SETOWN SIGIO); the command kills its own child" t_signals

t_proc() {
	d=$(newdir proc)
	mkdir "$d/ws"
	host_sleeper HOSTMARK-T97
	cd "$d/ws"
	export AWS_SECRET_ACCESS_KEY=KINBOXENV-T97-SECRET
	kbl -- sh -c '
		cat "/proc/$1/environ"; echo "host-environ=$?"
		cat "/proc/$PPID/environ"; echo "parent-environ=$?"
		readlink "/proc/$1/fd/1"; echo "host-fd=$?"
		readlink "/proc/$PPID/fd/1"; echo "parent-fd=$?"
		ls "/proc/$1/cwd/" >/dev/null; echo "host-cwd=$?"
		"$2" -c "import sys; open(sys.argv[1], \"rb\"); print(\"host-mem OPENED\")" "/proc/$1/mem"
		"$2" "$3" "ptrace=$1"
		cat /proc/self/environ | tr "\0" "\n" | grep -q "^PATH=" && echo self-ok
		env KB_T97_OWN=OWNCHILD-T97 sleep 30 & c=$!; sleep 0.2
		cat "/proc/$c/environ" | tr "\0" "\n" | grep KB_T97_OWN; kill $c' \
		sh "$HP" "$PY" "$B/sysc.py"
	assert_file_has_content "$KB_OUT" '^self-ok$'
	assert_file_has_content "$KB_OUT" '^KB_T97_OWN=OWNCHILD-T97$'
	assert_not_file_has_content "$KB_OUT" 'HOSTMARK-T97|KINBOXENV-T97'
	assert_file_has_content "$KB_OUT" '^host-environ=[1-9]'
	assert_file_has_content "$KB_OUT" '^parent-environ=[1-9]'
	assert_not_file_has_content "$KB_OUT" '^ptrace ok'
	assert_file_has_content "$KB_OUT" '^ptrace errno=E(PERM|ACCES)$'
	assert_file_has_content "$KB_OUT" '^host-cwd=[1-9]'
	assert_file_has_content "$KB_OUT" '^host-fd=[1-9]'
	assert_file_has_content "$KB_OUT" '^parent-fd=[1-9]'
	assert_not_file_has_content "$KB_OUT" 'host-mem OPENED'
	kb_running "$HP" || fail "the host process died"
}
run_test "/proc of a host process (environ, fd, cwd, mem, ptrace) and of kinbox itself unreadable; /proc/self and the own child's readable" t_proc

# prlimit(2) on a host process of the same user changes its limits without
# a signal (RLIMIT_NOFILE breaks a daemon, RLIMIT_CPU kills a busy one)
t_prlimit() {
	d=$(newdir prlimit)
	mkdir "$d/ws"
	host_sleeper prlimit
	before=$(grep -E '^Max (open files|cpu time|processes)' "/proc/$HP/limits")
	cd "$d/ws"
	kbl -- "$PY" -c '
import resource, subprocess, sys
hp = int(sys.argv[1])
for name, r in (("nofile", resource.RLIMIT_NOFILE), ("cpu", resource.RLIMIT_CPU), ("nproc", resource.RLIMIT_NPROC)):
    try:
        resource.prlimit(hp, r, (3, 3)); print("host", name, "CHANGED")
    except OSError as e:
        print("host", name, "REFUSED", e.errno)
# its own limits (pid 0: setrlimit, ulimit), inherited by its child;
# prlimit of another pid is refused whole (seccomp cannot tell its
# own children from the processes of the host)
resource.setrlimit(resource.RLIMIT_NOFILE, (7, 7))
c = subprocess.Popen(["sleep", "30"], close_fds=True)
print("own child", open("/proc/%d/limits" % c.pid).read().count(" 7 "))
c.kill()' "$HP"
	assert_file_has_content "$KB_OUT" '^own child [1-9]'
	assert_streq "$(grep -E '^Max (open files|cpu time|processes)' "/proc/$HP/limits")" "$before" "the host process's limits"
	assert_not_file_has_content "$KB_OUT" 'CHANGED'
}
run_test "prlimit on a host process is refused, its limits unchanged (the command's own limits, set with pid 0, reach its child)" t_prlimit

# The user's other processes cannot be reniced, made SCHED_IDLE, pinned
# or I/O-idled from inside, by pid, process group or user (seen from
# outside with /proc); the command does each to itself (pid 0)
t_other_procs() {
	d=$(newdir otherprocs)
	mkdir "$d/ws"
	host_sleeper otherprocs
	before=$(awk '{print $19, $41}' "/proc/$HP/stat")
	aff=$(grep Cpus_allowed_list "/proc/$HP/status")
	cd "$d/ws"
	kbl -- "$PY" -c '
import ctypes, os, sys
hp = int(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
def tryit(name, f):
    try:
        f(); print(name, "CHANGED")
    except OSError as e:
        print(name, "REFUSED", e.errno)
tryit("setpriority pid", lambda: os.setpriority(os.PRIO_PROCESS, hp, 19))
tryit("setpriority user", lambda: os.setpriority(os.PRIO_USER, 0, 19))
tryit("setpriority pgrp", lambda: os.setpriority(os.PRIO_PGRP, os.getpgid(hp), 19))
tryit("sched_setscheduler", lambda: os.sched_setscheduler(hp, os.SCHED_IDLE, os.sched_param(0)))
tryit("sched_setaffinity", lambda: os.sched_setaffinity(hp, {0}))
def ioprio(which, who):
    if libc.syscall(251, which, who, (3 << 13)) != 0:   # ioprio_set, IOPRIO_CLASS_IDLE
        raise OSError(ctypes.get_errno(), "ioprio_set")
tryit("ioprio_set pid", lambda: ioprio(1, hp))
tryit("ioprio_set user", lambda: ioprio(3, os.getuid()))
# itself: pid 0
os.setpriority(os.PRIO_PROCESS, 0, 5); print("self nice", os.getpriority(os.PRIO_PROCESS, 0))
os.sched_setaffinity(0, {0}); print("self affinity", sorted(os.sched_getaffinity(0)))
ioprio(1, 0); print("self ioprio ok")' "$HP"
	assert_file_has_content "$KB_OUT" '^self nice 5$'
	assert_file_has_content "$KB_OUT" '^self affinity \[0\]$'
	assert_file_has_content "$KB_OUT" '^self ioprio ok$'
	assert_not_file_has_content "$KB_OUT" 'CHANGED'
	[ "$(grep -c REFUSED "$KB_OUT")" -eq 7 ] || fail "not 7 refusals: $(cat "$KB_OUT")"
	assert_streq "$(awk '{print $19, $41}' "/proc/$HP/stat")" "$before" "the host process's nice and policy"
	assert_streq "$(grep Cpus_allowed_list "/proc/$HP/status")" "$aff" "the host process's affinity"
}
run_test "a host process cannot be reniced, made SCHED_IDLE, pinned or I/O-idled (by pid, group, user); the command does each to itself" t_other_procs

# What the command leaves running is killed when it ends: a plain
# background job and a double-forked setsid daemon; both wrote their pid
t_leftover_procs() {
	d=$(newdir leftover)
	mkdir "$d/ws"
	cd "$d/ws"
	kbl -- sh -c '
		sleep 1000 & echo $! > bg.pid
		setsid sh -c "sleep 1001 & echo \$! > daemon.pid.tmp; mv daemon.pid.tmp daemon.pid" &
		i=0; while [ ! -e daemon.pid ] && [ $i -lt 100 ]; do i=$((i+1)); sleep 0.1; done
		echo ran > ctl'
	assert_streq "$KB_RC" 0
	assert_file_has_content "$d/ws/ctl" '^ran$'
	for f in bg.pid daemon.pid; do
		assert_exists "$d/ws/$f"
		p=$(cat "$d/ws/$f")
		[ -n "$p" ] || fail "$f is empty"
		if kb_running "$p" && tr '\0' ' ' <"/proc/$p/cmdline" | grep -q '^sleep 100[01] '; then
			kill -KILL "$p" 2>/dev/null || true
			fail "the command's $f process ($p) outlived the run"
		fi
	done
}
run_test "what the command leaves running (sleep &, a setsid double-fork daemon) is dead when kinbox returns; their pid files exist" t_leftover_procs

# ============================================================================
# Kernel surfaces
# ============================================================================

t_tiocsti() {
	require script
	ws=$(newdir tiocsti)
	cd "$ws"
	script -qec "$KINBOX --backend landlock -- $PY $B/tiocsti.py; echo rc=\$?" /dev/null \
		</dev/null >"$KB_OUT" 2>"$KB_ERR" || true
	tr -d '\r' <"$KB_OUT" >"$KB_T/tiocsti.out"
	assert_file_has_content "$KB_T/tiocsti.out" '^terminal TIOCSTI-'
	assert_file_has_content "$KB_T/tiocsti.out" '^own-pty (TIOCSTI-|OPENPTY-EACCES$)'
	assert_not_file_has_content "$KB_T/tiocsti.out" 'ALLOWED'
	assert_file_has_content "$KB_T/tiocsti.out" '^terminal TIOCSTI-EPERM$'
}
run_test "TIOCSTI on the terminal (script's pty) is refused; a pty the command makes is refused TIOCSTI, or not opened at all (only the command's own terminal is granted)" t_tiocsti

# Another terminal of the caller's (a pty the test opens outside, not the
# command's terminal): bwrap's /dev has a devpts of its own
t_other_tty() {
	d=$(newdir othertty)
	mkdir "$d/ws"
	cd "$d/ws"
	"$PY" - "$KINBOX" "$d/ws" >"$KB_T/othertty.out" 2>&1 <<'EOF' || true
import os, pty, subprocess, sys, time
kinbox, ws = sys.argv[1], sys.argv[2]
m, s = pty.openpty()
name = os.ttyname(s)
r = subprocess.run([kinbox, "--backend", "landlock", "--", "sh", "-c",
    'printf T97-INJECTED > "$1" && echo wrote; stty -F "$1" -echo && echo stty; '
    'timeout 1 head -c 1 "$1" >/dev/null && echo read; echo ran > ctl', "sh", name],
    stdin=subprocess.DEVNULL, capture_output=True, text=True, cwd=ws)
print("inside:", r.stdout.replace("\n", " "))
os.set_blocking(m, False)
try:
    got = os.read(m, 100)
except OSError:
    got = b""
print("master got:", got)
import termios
print("echo:", "on" if termios.tcgetattr(s)[3] & termios.ECHO else "off")
EOF
	cat "$KB_T/othertty.out"
	assert_file_has_content "$d/ws/ctl" '^ran$'
	assert_file_has_content "$KB_T/othertty.out" '^echo: on$'
	assert_not_file_has_content "$KB_T/othertty.out" 'T97-INJECTED'
	assert_not_file_has_content "$KB_T/othertty.out" 'inside:.*(wrote|stty|read)'
}
run_test "another terminal of the caller's (a pty opened outside) cannot be written, read or reconfigured from inside" t_other_tty

t_keyctl() {
	case $(uname -m) in
	x86_64 | aarch64) ;;
	*) skip_test "no syscall numbers for $(uname -m)" ;;
	esac
	ws=$(newdir keyctl)
	cd "$ws"
	desc=kinbox-t21-$(basename "$KB_T")
	kbl -- "$PY" "$B/sysc.py" keyctl "add_key=$desc" "request_key=$desc"
	assert_file_has_content "$KB_OUT" '^keyctl errno=EPERM$'
	assert_file_has_content "$KB_OUT" '^add_key errno=EPERM$'
	assert_file_has_content "$KB_OUT" '^request_key errno=EPERM$'
	"$PY" "$B/sysc.py" "keyctl=$desc" >"$KB_T/keysearch"
	assert_not_file_has_content "$KB_T/keysearch" '^keyctl ok'
}
run_test "keyctl/add_key/request_key refused with EPERM; no key reached the session keyring" t_keyctl

t_setuid() {
	ws=$(newdir setuid)
	cd "$ws"
	cp /bin/true "$ws/ctl-t"
	chmod u+s "$ws/ctl-t"
	[ -u "$ws/ctl-t" ] || skip_test "this filesystem does not keep setuid bits"
	kbl -- sh -c 'cp /bin/true t && chmod u+s t; chmod g+s t; chmod 6755 t; cp /bin/true ok && chmod 755 ok && echo ran > ctl'
	assert_file_has_content "$ws/ctl" '^ran$'
	assert_streq "$(stat -c %a "$ws/ok")" 755 "chmod 755 inside"
	assert_exists "$ws/t"
	[ ! -u "$ws/t" ] || fail "$ws/t is setuid"
	[ ! -g "$ws/t" ] || fail "$ws/t is setgid"
}
run_test "chmod u+s / g+s / 6755 refused, chmod 755 works (modes seen outside)" t_setuid

t_unshare() {
	require unshare
	ws=$(newdir unshare)
	cd "$ws"
	unshare -U true 2>/dev/null ||
		skip_test "unshare -U fails here even outside kinbox: the test would prove nothing"
	kbl -- sh -c 'unshare -U sh -c "echo inner > inner"; echo "unshare=$?"; unshare -Ur true; echo "unshare-r=$?"; echo ran > ctl'
	assert_file_has_content "$ws/ctl" '^ran$'
	assert_not_exists "$ws/inner"
	assert_file_has_content "$KB_OUT" '^unshare=[1-9]'
	assert_file_has_content "$KB_OUT" '^unshare-r=[1-9]'
}
run_test "unshare -U (a user namespace) is refused inside (it works outside)" t_unshare

# SysV IPC: nothing may be created in the host's IPC namespace (the test
# removes whatever the run created, also when it fails)
t_sysv() {
	require ipcmk ipcs ipcrm
	ws=$(newdir sysv)
	cd "$ws"
	ipcs_ids() {
		ipcs "$1" 2>/dev/null | awk 'NR > 3 && $2 ~ /^[0-9]+$/ { print $2 }' | LC_ALL=C sort
	}
	for k in -m -q -s; do ipcs_ids "$k" >"$KB_T/ipc$k.before"; done
	kbl -- sh -c 'ipcmk -M 4096; echo "shm=$?"; ipcmk -Q; echo "msg=$?"; ipcmk -S 1; echo "sem=$?"; echo ran > ctl'
	for k in -m -q -s; do
		ipcs_ids "$k" >"$KB_T/ipc$k.after"
		for id in $(LC_ALL=C comm -13 "$KB_T/ipc$k.before" "$KB_T/ipc$k.after"); do
			ipcrm "$k" "$id" 2>/dev/null || true
			echo "created: ipc $k id $id" >>"$KB_T/ipc.created"
		done
	done
	assert_file_has_content "$ws/ctl" '^ran$'
	if [ -s "$KB_T/ipc.created" ]; then
		cat "$KB_T/ipc.created" >&2
		fail "the command created SysV IPC objects on the host (removed now)"
	fi
	assert_file_has_content "$KB_OUT" '^shm=[1-9]'
	assert_file_has_content "$KB_OUT" '^msg=[1-9]'
	assert_file_has_content "$KB_OUT" '^sem=[1-9]'
}
run_test "SysV IPC refused: ipcmk -M 4096 / -Q / -S 1 fail and nothing appears in the host's ipcs" t_sysv

t_caps() {
	[ "$IS_ROOT" = 1 ] || skip_other_pass "an unprivileged user has no capabilities to drop"
	grep -q '^CapBnd:[[:space:]]*0*[1-9a-f]' /proc/self/status ||
		skip_test "the bounding set is empty even outside: the test would prove nothing"
	ws=$(newdir caps)
	cd "$ws"
	kb_expect 0 --backend landlock -- sh -c 'cat /proc/self/status; echo ran > ctl'
	assert_file_has_content "$ws/ctl" '^ran$'
	for c in CapInh CapPrm CapEff CapBnd CapAmb; do
		assert_file_has_content "$KB_OUT" "^$c:[[:space:]]+0000000000000000\$"
	done
	assert_file_has_content "$KB_OUT" '^NoNewPrivs:[[:space:]]+1$'
	assert_file_has_content "$KB_OUT" '^Seccomp:[[:space:]]+2$'
}
run_test "root: no capabilities inside (CapInh/Prm/Eff/Bnd/Amb zero), no_new_privs, seccomp" t_caps

# root without capabilities (a container run with every capability
# dropped): nothing left to drop, the landlock backend still runs
t_root_nocaps() {
	[ "$IS_ROOT" = 1 ] || skip_other_pass "about root without capabilities"
	require setpriv
	ws=$(newdir root-nocaps)
	cd "$ws"
	setpriv --bounding-set=-all --inh-caps=-all -- sh -c 'grep "^CapEff:" /proc/self/status' >"$KB_T/nocaps.status"
	assert_file_has_content "$KB_T/nocaps.status" '^CapEff:[[:space:]]+0000000000000000$'
	KB_RC=0
	setpriv --bounding-set=-all --inh-caps=-all -- "$KINBOX" --backend landlock -- \
		sh -c 'echo ran > ctl; echo x > "$1/outside-f"' sh "$KB_T/.lib" \
		>"$KB_OUT" 2>"$KB_ERR" </dev/null || KB_RC=$?
	[ "$KB_RC" = 0 ] || [ "$KB_RC" = 2 ] || { _show_file "$KB_ERR"; fail "kinbox exited $KB_RC"; }
	assert_file_has_content "$ws/ctl" '^ran$'
	assert_not_exists "$KB_T/.lib/outside-f"
}
run_test "root without capabilities (setpriv --bounding-set=-all, as a container with every capability dropped): the landlock backend runs, confined" t_root_nocaps

# Host-wide knobs root owns: read first, put back at once if anything got
# through (also from the cleanup), judged after
t_sysctl() {
	[ "$IS_ROOT" = 1 ] || skip_other_pass "an unprivileged user cannot write sysctls anyway"
	ws=$(newdir sysctl)
	cd "$ws"
	hn=/proc/sys/kernel/hostname
	pb=/proc/sys/kernel/printk_ratelimit_burst
	old_hn=$(cat "$hn")
	old_pb=$(cat "$pb")
	cleanup_add "[ \"\$(cat $hn)\" = '$old_hn' ] || echo '$old_hn' > $hn"
	cleanup_add "[ \"\$(cat $pb)\" = '$old_pb' ] || echo '$old_pb' > $pb"
	kbl -- sh -c '
		if echo kinbox-t21-evil > "$1"; then echo hn=WROTE; else echo hn=REFUSED; fi
		if echo "$3" > "$2"; then echo pb=WROTE; else echo pb=REFUSED; fi
		if printf h > /proc/sysrq-trigger; then echo sysrq=WROTE; else echo sysrq=REFUSED; fi
		echo ran > ctl' sh "$hn" "$pb" "$((old_pb + 1))"
	new_hn=$(cat "$hn")
	new_pb=$(cat "$pb")
	[ "$new_hn" = "$old_hn" ] || echo "$old_hn" >"$hn"
	[ "$new_pb" = "$old_pb" ] || echo "$old_pb" >"$pb"
	assert_file_has_content "$ws/ctl" '^ran$'
	assert_streq "$new_hn" "$old_hn" "the host's hostname (put back)"
	assert_streq "$new_pb" "$old_pb" "the host's kernel.printk_ratelimit_burst (put back)"
	assert_file_has_content "$KB_OUT" '^hn=REFUSED$'
	assert_file_has_content "$KB_OUT" '^pb=REFUSED$'
	assert_file_has_content "$KB_OUT" '^sysrq=REFUSED$'
}
run_test "root: writing /proc/sys/kernel/hostname, a global sysctl and /proc/sysrq-trigger fails; the host's values unchanged" t_sysctl

# ============================================================================
# --require, denials
# ============================================================================

t_require() {
	ws=$(newdir require)
	cd "$ws"
	check() {
		KB_RC=0
		"$@" >"$KB_OUT" 2>"$KB_ERR" </dev/null || KB_RC=$?
		assert_streq "$KB_RC" 125
		assert_not_exists "$ws/ran"
		[ ! -s "$KB_OUT" ] || fail "stdout is not empty"
	}
	check "$KINBOX" --backend landlock --require private-tmp -- touch "$ws/ran"
	assert_kinbox_said "$KB_ERR" \
		"kinbox: no sandbox: the landlock backend has no private-tmp, which --require (or require =) asks for; nothing was run"
	check "$KINBOX" --backend landlock --require pid-namespace,net-namespace,ipc-namespace,git-guard,unix-sockets -- touch "$ws/ran"
	assert_kinbox_said "$KB_ERR" \
		"kinbox: no sandbox: the landlock backend has no pid-namespace, net-namespace, ipc-namespace, git-guard, unix-sockets, which --require (or require =) asks for; nothing was run"
	# the control: what the backend has
	if [ "$ABI" -ge 6 ]; then
		kbl --require signal-scope -- touch "$ws/ran"
		assert_streq "$KB_RC" 0
		assert_exists "$ws/ran"
	else
		kbl -- touch "$ws/ran"
		assert_exists "$ws/ran"
	fi
}
run_test "--require private-tmp (and the other namespaces, git-guard, unix-sockets) under landlock: 125, one line, nothing run; signal-scope runs" t_require

# auto falls back to landlock, which lacks what --require asks: one line,
# the refusal (not also "running under the landlock backend")
t_require_fallback() {
	[ -x "$NO_USERNS" ] || fail "$NO_USERNS is not built (make helpers)"
	ws=$(newdir require-fb)
	cd "$ws"
	KB_RC=0
	"$NO_USERNS" -- "$KINBOX" --require private-tmp -- touch "$ws/ran" >"$KB_OUT" 2>"$KB_ERR" </dev/null || KB_RC=$?
	assert_streq "$KB_RC" 125
	assert_not_exists "$ws/ran"
	assert_file_has_content "$KB_ERR" \
		"^kinbox: no sandbox: the landlock backend has no private-tmp, which --require \\(or require =\\) asks for \\(chosen by auto: bubblewrap cannot make its namespaces here \\(bwrap: $USERNS_WORDS.*\\)\\); nothing was run\$"
	assert_one_kinbox_line "$KB_ERR"
	# the control: without --require the fallback runs it
	KB_RC=0
	"$NO_USERNS" -- "$KINBOX" -q -- touch "$ws/ran" >"$KB_OUT" 2>"$KB_ERR" </dev/null || KB_RC=$?
	assert_streq "$KB_RC" 0
	assert_exists "$ws/ran"
}
run_test "--require private-tmp under auto's fallback (kb-no-userns): 125 and exactly one line, the refusal; nothing run" t_require_fallback

t_denial() {
	d=$(newdir denial)
	mkdir "$d/ws" "$d/outside"
	cd "$d/ws"
	kbl -- touch "$d/ws/ok" "$d/outside/f"
	assert_streq "$KB_RC" 1
	assert_exists "$d/ws/ok"
	assert_not_exists "$d/outside/f"
	assert_streq "$(sed -n 1p "$KB_ERR")" \
		"touch: cannot touch '$d/outside/f': Permission denied"
	assert_streq "$(sed -n '2s/  \[sbx_[0-9a-f]\{16\}\]$//p' "$KB_ERR")" \
		"kinbox: denied write '$d/outside/f' (Permission denied, read from the command's stderr); retry with --write $d/outside"
	assert_streq "$(wc -l <"$KB_ERR")" 2 "stderr lines"
	# the suggestion works
	kbl --write "$d/outside" -- touch "$d/outside/f"
	assert_streq "$KB_RC" 0
	assert_exists "$d/outside/f"
}
run_test "a denied write under landlock: 'kinbox: denied write PATH (Permission denied, ...); retry with --write DIR'; the retry works" t_denial

# ============================================================================
# Git guards (not held during a landlock run: put back after it)
# ============================================================================

# a program that, if git ever runs it, leaves a line in $RAN (outside
# every workspace)
RAN=$KB_T/PLANTED-RAN
printf '#!/bin/sh\necho "ran: $0 $*" >>"%s"\nexit 0\n' "$RAN" >"$B/evil"
chmod 755 "$B/evil"

# t_git_guard KIND: the command plants code git would run (KIND says how);
# after the run the host's next git commit/status runs nothing planted,
# kinbox said SECURITY, and a commit made inside is kept
git_planted_runs() {
	rm -f "$RAN"
	(
		cd "$1" && git commit -q --allow-empty -m outside && git status && git st
	) >/dev/null 2>&1 || true
	[ -e "$RAN" ]
}
t_git_guard() {
	r=$(newdir "git-guard-$1")
	mkrepo "$r"
	echo x >"$r/file"
	[ "$1" != hooks-absent ] || rm -rf "$r/.git/hooks"
	cp "$r/.git/config" "$KB_T/git-guard-$1.config"
	ls -A "$r/.git/hooks" >"$KB_T/git-guard-$1.hooks" 2>/dev/null || true
	git_planted_runs "$r" && fail "the repository runs planted code before the run"
	case $1 in
	hook-config) plant='cp "$1" .git/hooks/pre-commit; chmod 755 .git/hooks/pre-commit
		git config core.fsmonitor "$1"; git config alias.st "!$1"' ;;
	hooks-swap) plant='mv .git/hooks .git/h2 && mkdir .git/hooks && cp "$1" .git/hooks/pre-commit && chmod 755 .git/hooks/pre-commit' ;;
	hooks-absent) plant='mkdir -p .git/hooks && cp "$1" .git/hooks/pre-commit && chmod 755 .git/hooks/pre-commit' ;;
	config-rename) plant='{ cat .git/config; printf "[core]\n\tfsmonitor = %s\n[alias]\n\tst = !%s\n" "$1" "$1"; } > .git/config.new && mv .git/config.new .git/config' ;;
	dotgit-swap) plant='mv .git .git2 && git init -q . && cp "$1" .git/hooks/pre-commit && chmod 755 .git/hooks/pre-commit && git config core.fsmonitor "$1"' ;;
	esac
	cd "$r"
	kbl -- sh -c '
		git add file && git commit -q -m inside-commit && echo committed > committed
		'"$plant"'
		echo ran > ctl' sh "$B/evil"
	assert_file_has_content "$r/ctl" '^ran$'
	assert_file_has_content "$r/committed" '^committed$'
	git -C "$r" log --format=%s | grep -q '^inside-commit$' ||
		fail "the commit made inside is not in the repository"
	assert_file_has_content "$KB_ERR" '^kinbox: SECURITY: '
	if git_planted_runs "$r"; then
		cat "$RAN" >&2
		fail "code planted under landlock ran at the next git commit/status outside"
	fi
	assert_files_equal "$KB_T/git-guard-$1.config" "$r/.git/config"
	case $1 in
	hooks-absent) assert_not_exists "$r/.git/hooks" ;;
	*)
		assert_not_exists "$r/.git/hooks/pre-commit"
		# what the command planted may stay, moved aside under a name
		# git never runs
		# shellcheck disable=SC2010 # the names git would see, one a line
		ls -A "$r/.git/hooks" | grep -v '\.kinbox-quarantine\.' >"$KB_T/git-guard-$1.hooks.after" || true
		assert_files_equal "$KB_T/git-guard-$1.hooks" "$KB_T/git-guard-$1.hooks.after"
		;;
	esac
}
run_test "git: a hook, core.fsmonitor and an alias planted under landlock are undone after the run (SECURITY); the commit made inside stays; nothing runs outside" t_git_guard hook-config
run_test "git: .git/hooks swapped for a planted one is put back after the run; nothing runs outside" t_git_guard hooks-swap
run_test "git: with .git/hooks absent, one the command creates is removed after the run; nothing runs outside" t_git_guard hooks-absent
run_test "git: .git/config replaced by rename is restored byte for byte after the run; nothing runs outside" t_git_guard config-rename
run_test "git: .git moved away and a new repository with a hook put in its place: the git dir comes back; nothing runs outside" t_git_guard dotgit-swap

# ============================================================================
# kinbox killed mid-run: the keeper ends the tree, the next run restores
# ============================================================================

# t_killed SIG MOMENT: a landlock run whose command (which first resets its
# own PR_SET_PDEATHSIG and re-execs) starts three planters: one through
# setsid, one through a double fork, one through setsid + a PDEATHSIG reset
# + a re-exec. Each writes its pid, ticks for 3 s, then plants a pre-commit
# hook and core.fsmonitor. kinbox gets SIG at MOMENT: "before-plant" (the
# planters still tick) or "after-plant" (the command planted the same
# itself before it started them). Judged from outside: every process of
# the run (the planters, the command, the keeper) is gone within 2 s, no
# planter ever plants, the host's next git commit runs nothing, and the
# next kinbox run (auto: bubblewrap where it works) restores and reports
# what the killed run left. The control: each process ran under kinbox and
# was alive just before the signal.
t_killed() {
	sig=$1 moment=$2
	r=$(newdir "killed-$sig-$moment")
	mkrepo "$r"
	cp "$r/.git/config" "$KB_T/killed.config"
	rm -f "$RAN" "$r/.git/hooks/pre-commit"
	plant='cp "$0" .git/hooks/pre-commit; chmod 755 .git/hooks/pre-commit; git config core.fsmonitor "$0"'
	planter='echo $$ > planter$1.pid; i=0; while [ $i -lt 30 ]; do i=$((i+1)); sleep 0.1; done; '"$plant"'; echo planted > planted$1'
	now=':'
	[ "$moment" = after-plant ] && now=$plant
	cat >"$r/run.sh" <<EOS
echo \$\$ > cmd.pid
sh -c '$now' "\$1"
( setsid sh -c '$planter' "\$1" 1 & )
( ( sh -c '$planter' "\$1" 2 & ) & )
( setsid $PY -c 'import ctypes, os, sys; ctypes.CDLL(None).prctl(1, 0, 0, 0, 0); os.execvp("sh", ["sh", "-c", sys.argv[1], sys.argv[2], "3"])' '$planter' "\$1" & )
while [ ! -e planter1.pid ] || [ ! -e planter2.pid ] || [ ! -e planter3.pid ]; do sleep 0.05; done
echo started > started
sleep 60
EOS
	cd "$r"
	"$KINBOX" --backend landlock -- "$PY" -c 'import ctypes, os, sys; ctypes.CDLL(None).prctl(1, 0, 0, 0, 0); os.execvp("sh", ["sh", "run.sh", sys.argv[1]])' "$B/evil" \
		>"$KB_OUT" 2>"$KB_ERR" &
	kpid=$!
	bg_register "$kpid"
	poll_while_running "$kpid" "$r/started" 100 || {
		_show_file "$KB_ERR"
		fail "the command did not start its planters"
	}
	pids=""
	for f in cmd planter1 planter2 planter3; do
		p=$(cat "$r/$f.pid")
		kb_running "$p" || fail "$f ($p) is not running under kinbox (the control)"
		pids="$pids $p"
	done
	keeper=$(sed 's/.*) //' "/proc/$(cat "$r/cmd.pid")/stat" | cut -d' ' -f2)
	kb_running "$keeper" || fail "the command's parent ($keeper) is not running"
	pids="$pids $keeper"
	if [ "$moment" = after-plant ]; then
		assert_exists "$r/.git/hooks/pre-commit"
	fi
	kill "-$sig" "$kpid"
	rc=0
	wait "$kpid" || rc=$?
	case $sig in
	KILL) assert_streq "$rc" 137 "kinbox's status after SIGKILL" ;;
	TERM) assert_streq "$rc" 143 "kinbox's status after SIGTERM (forwarded to the command)" ;;
	esac
	i=0
	for p in $pids; do
		while kb_running "$p" && [ $i -lt 20 ]; do
			i=$((i + 1))
			sleep 0.1
		done
		if kb_running "$p"; then
			kill -KILL "$p" 2>/dev/null || true
			fail "process $p of the run outlived kinbox's SIG$sig by 2 s"
		fi
	done
	# the planters' time to plant is over
	sleep 3
	for n in 1 2 3; do
		assert_not_exists "$r/planted$n"
	done
	if [ "$sig" = TERM ] || [ "$moment" = before-plant ]; then
		# kinbox restored after itself (TERM), or nothing was planted
		assert_not_exists "$r/.git/hooks/pre-commit"
		assert_files_equal "$KB_T/killed.config" "$r/.git/config"
		if git_planted_runs "$r"; then
			fail "a plant ran at the host's next git commit"
		fi
		if [ "$sig" = TERM ] && [ "$moment" = after-plant ]; then
			assert_file_has_content "$KB_ERR" '^kinbox: SECURITY: '
		fi
	else
		# what the run planted before SIGKILL is there until the next
		# kinbox start in the workspace
		assert_exists "$r/.git/hooks/pre-commit"
	fi
	# the next run, any backend: restores first, says so in one line
	next=landlock
	[ "$BWRAP_OK" = 1 ] && next=bwrap
	kb_expect 0 --backend "$next" -- sh -c 'echo next > next'
	assert_file_has_content "$r/next" '^next$'
	if [ "$sig" = KILL ] && [ "$moment" = after-plant ]; then
		assert_one_kinbox_line "$KB_ERR" "^kinbox: SECURITY: a kinbox run in $r ended before its git guards were put back \\(killed\\?\\); undone now: .*pre-commit.*config"
	else
		assert_not_file_has_content "$KB_ERR" 'SECURITY'
	fi
	assert_not_exists "$r/.git/hooks/pre-commit"
	assert_files_equal "$KB_T/killed.config" "$r/.git/config"
	if git_planted_runs "$r"; then
		cat "$RAN" >&2
		fail "a plant ran at the host's next git commit after the next run"
	fi
	# nothing of the dead run is left in the store
	[ -z "$(ls -A "$XDG_STATE_HOME/kinbox/gitsnap" 2>/dev/null)" ] ||
		fail "a snapshot is left in the store: $(ls -A "$XDG_STATE_HOME/kinbox/gitsnap")"
}
run_test "SIGKILL to kinbox while setsid, double-fork and PDEATHSIG-reset planters wait: all gone within 2 s, none plants, the next git runs nothing" t_killed KILL before-plant
run_test "SIGKILL to kinbox after the command planted a hook and core.fsmonitor: the tree is gone within 2 s; the next kinbox run restores and reports it in one line; git then runs nothing" t_killed KILL after-plant
run_test "SIGTERM to kinbox while the planters wait: forwarded, kinbox exits 143, all gone within 2 s, none plants" t_killed TERM before-plant
run_test "SIGTERM to kinbox after the command planted: kinbox restores after itself (SECURITY), all gone within 2 s, the next run finds nothing" t_killed TERM after-plant

# t_killed_store: the snapshot a killed run left lies in kinbox's state
# store, which the sandbox can neither write nor (a second run in the same
# workspace) take while its run's keeper holds it; kinpolicy gc removes it
# once its workspace is gone
t_killed_store() {
	r=$(newdir killed-store)
	mkrepo "$r"
	S=$XDG_STATE_HOME/kinbox/gitsnap
	cd "$r"
	"$KINBOX" --backend landlock -- sh -c '
		ls "$1" > listed 2>&1 || echo refused > list-refused
		echo x > "$1/planted" 2>/dev/null || echo refused > write-refused
		echo ran > ctl; sleep 60' sh "$S" >"$KB_OUT" 2>"$KB_ERR" &
	kpid=$!
	bg_register "$kpid"
	poll_while_running "$kpid" "$r/ctl" 100 || fail "the command did not run"
	# the run's own snapshot is there, written before the command started
	[ -n "$(ls -A "$S")" ] || fail "no snapshot in $S during the run"
	assert_file_has_content "$r/write-refused" '^refused$'
	assert_not_exists "$S/planted"
	# a second run in the workspace leaves a live run's snapshot alone
	kb_expect 0 --backend landlock -- true
	assert_not_file_has_content "$KB_ERR" 'SECURITY'
	[ "$(ls -A "$S" | wc -l)" = 1 ] || fail "the live run's snapshot is gone: $(ls -A "$S")"
	kill -KILL "$kpid"
	wait "$kpid" || true
	sleep 1
	# the workspace is there: gc keeps its snapshot
	"$KINPOLICY" gc --decided >"$KB_OUT" 2>"$KB_ERR" || fail "kinpolicy gc failed: $(cat "$KB_ERR")"
	[ -n "$(ls -A "$S")" ] || fail "gc removed the snapshot of a workspace that exists"
	cd "$KB_T"
	rm -rf "$r"
	: >"$KB_OUT"
	i=0
	while [ $i -lt 20 ] && [ -n "$(ls -A "$S")" ]; do
		i=$((i + 1))
		"$KINPOLICY" gc --decided >>"$KB_OUT" 2>"$KB_ERR" || fail "kinpolicy gc failed: $(cat "$KB_ERR")"
		sleep 0.1
	done
	assert_file_has_content "$KB_OUT" "^removed $S/.* \\(a git snapshot whose workspace is gone\\)\$"
	[ -z "$(ls -A "$S")" ] || fail "gc left $(ls -A "$S")"
}
run_test "the git snapshot lies in kinbox's state store: not writable inside, a live run's left alone by a second run, removed by kinpolicy gc once its workspace is gone" t_killed_store

done_testing
