#!/bin/sh
# tests/t30-egress.sh — the egress allow-list (--allow-host HOST[:PORT]):
# the command keeps its private network namespace, and the only way out is
# kinbox's proxy outside the sandbox (mediate/proxy.h), which lets out
# plain-HTTP requests and CONNECT tunnels (with a TLS ClientHello whose SNI
# is the CONNECT host) to the listed hosts at addresses the host's resolver
# gave and the range check accepted.
#
# Every upstream here is on 127.0.0.1, which the release kinbox refuses as
# a destination. The tests therefore run the test build, ./kinbox-test
# (make kinbox-test; never installed), whose resolver override
# KINBOX_TEST_RESOLVE=NAME=IP,... takes those answers as public. The
# release build's refusal of loopback and its ignoring of the variable are
# tested with names that the host answers without sending a packet
# (/etc/hosts, in a mount namespace of the test's own, as root).
#
# Judged from OUTSIDE: each upstream (tests/helpers/kb-upstream.py) logs
# every TCP connection it accepts ("ACCEPT", before any TLS byte), every
# server name it is asked for ("SNI ...") and every request ("REQ ...");
# what the command received is written into the workspace. Each test that
# asserts a refusal carries a positive control in the same kinbox call (an
# allowed request that the upstream logged and the workspace holds).
#
# No test sends a packet to an address outside loopback: refused ranges
# are tested through the pure function (tests/unit/test-egress.c); the npm
# test talks to the npm registry only, and is skipped, loudly, when it is
# unreachable.
#
# Run: make kinbox-test && sh tests/t30-egress.sh, or all suites with
# sh tests/run-integration.sh. KINBOX=/path/to/kinbox picks the release
# binary; the test build is the kinbox-test beside it (or KINBOX_TEST).
# shellcheck disable=SC2317,SC2016,SC2164
# SC2317: the t_* bodies are called through run_test.
# SC2016: single-quoted $... is meant for the shell inside the sandbox.
# SC2164: lib.sh sets -e (test bodies run under set -e): a failed cd fails.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

unset XDG_RUNTIME_DIR XDG_CONFIG_HOME XDG_CACHE_HOME SSH_AUTH_SOCK \
	KINBOX_SESSION KINBOX_JSON_FD KINBOX_TEST_RESOLVE http_proxy \
	https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy \
	NO_PROXY JAVA_TOOL_OPTIONS || true
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
IS_ROOT=0
[ "$(id -u)" = 0 ] && IS_ROOT=1
B=$KB_T/bin
mkdir "$B"

# --- preflight ---------------------------------------------------------------
if [ ! -x "$KINBOX" ]; then
	tap_not_ok "kinbox binary $KINBOX exists (make kinbox kinbox-exec)"
	done_testing
fi
if [ "$KB_BACKEND" = landlock ]; then
	KINBOX_MUST_WORK='' tap_skip "all tests of $(basename "$0")" \
		"landlock backend: no network namespace of its own, so it refuses --allow-host (tested here under the default backend)"
	done_testing
fi
mkdir "$KB_T/preflight"
if ! (cd "$KB_T/preflight" && "$KINBOX" -- true) >"$KB_T/preflight.log" 2>&1; then
	diag "$(cat "$KB_T/preflight.log")"
	skip_all "kinbox cannot set up a sandbox on this host"
fi
if grep -q '^# backend: landlock' "$(cd "$KB_T/preflight" && "$KINBOX" --dry-run -- true >"$KB_T/preflight.plan" 2>&1; echo "$KB_T/preflight.plan")"; then
	skip_all "auto runs the landlock backend here, which refuses --allow-host"
fi
have "$PY" || skip_all "python3 is not installed"
have curl || skip_all "curl is not installed"
have openssl || skip_all "openssl is not installed"
UPSTREAM=$KB_TESTS_DIR/helpers/kb-upstream.py
if [ ! -r "$UPSTREAM" ]; then
	tap_not_ok "the upstream helper $UPSTREAM exists"
	done_testing
fi

# the names the upstreams answer to (varied: the proxy knows none of them)
N_HTTP=up.kinbox-egress.example
N_TLS=secure.kbx-tests.example
N_OTHER=elsewhere.kinbox-egress.example
N_THIRD=third.kbx-tests.example
N_GIT=git.kinbox-egress.example
N_PYPI=pypi.kbx-tests.example
KINBOX_TEST_RESOLVE="$N_HTTP=127.0.0.1,$N_TLS=127.0.0.1,$N_OTHER=127.0.0.1,$N_THIRD=127.0.0.1,$N_GIT=127.0.0.1,$N_PYPI=127.0.0.1"
export KINBOX_TEST_RESOLVE

# a self-signed certificate for the TLS upstream's names
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=$N_TLS" \
	-addext "subjectAltName=DNS:$N_TLS,DNS:$N_THIRD" \
	-keyout "$KB_T/tls.key" -out "$KB_T/tls.crt" >"$KB_T/openssl.log" 2>&1 ||
	skip_all "openssl cannot make a test certificate: $(tail -n 1 "$KB_T/openssl.log")"
chmod 644 "$KB_T/tls.key"

# start_upstream NAME [--tls]: an upstream on 127.0.0.1 with its log at
# $KB_T/NAME.log and its port in $KB_T/NAME.port; files under $KB_T/www
mkdir -p "$KB_T/www"
start_upstream() {
	_n=$1
	shift
	: >"$KB_T/$_n.log"
	if [ "${1:-}" = --tls ]; then
		set -- --tls "$KB_T/tls.crt" "$KB_T/tls.key"
	fi
	"$PY" "$UPSTREAM" --log "$KB_T/$_n.log" --port-file "$KB_T/$_n.port" \
		--root "$KB_T/www" "$@" >"$KB_T/$_n.out" 2>&1 &
	bg_register $!
	poll_for "$KB_T/$_n.port" 100 || skip_all "the upstream $_n did not start: $(cat "$KB_T/$_n.out")"
}
start_upstream http
start_upstream tls --tls
start_upstream httpka --ignore-close
HP=$(cat "$KB_T/http.port")
TP=$(cat "$KB_T/tls.port")
KP=$(cat "$KB_T/httpka.port")
[ -x "$KT" ] || {
	tap_not_ok "the test build $KT exists (make kinbox-test)"
	done_testing
}
diag "kinbox: $KINBOX; test build: $KT; uid $(id -u); upstreams: http 127.0.0.1:$HP, tls 127.0.0.1:$TP"

# upstream_has LOG REGEX / upstream_lacks LOG REGEX
upstream_has() {
	assert_file_has_content "$KB_T/$1.log" "$2"
}
upstream_lacks() {
	assert_not_file_has_content "$KB_T/$1.log" "$2"
}
# the count of lines of LOG matching REGEX
upstream_count() {
	grep -E -c -e "$2" "$KB_T/$1.log" || true
}

# kt ARG...: the test build, in the current directory (the workspace)
kt() {
	KB_RC=0
	"$KT" "$@" >"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
}

# --- the option and its boundary --------------------------------------------

t_http_allowed() {
	ws=$(newdir ws-http)
	cd "$ws"
	kt --allow-host "$N_HTTP:$HP" -- sh -c \
		'curl -sS -f "http://'"$N_HTTP:$HP"'/hello" -o out; curl -sS -f "http://'"$N_HTTP:$HP"'/headers" -o headers'
	[ "$KB_RC" = 0 ] || {
		_show_file "$KB_ERR"
		fail "kinbox exited $KB_RC"
	}
	assert_file_has_content "$ws/out" '^hello from upstream$'
	upstream_has http "^REQ GET /hello host=$N_HTTP:$HP\$"
	# the proxy set Host from the checked authority, asked for one
	# request per connection, and kept its own headers to itself
	assert_file_has_content "$ws/headers" "^Host: $N_HTTP:$HP\$"
	assert_file_has_content "$ws/headers" '^Connection: close$'
	assert_not_file_has_content "$ws/headers" '^Proxy-'
}
run_test "--allow-host: an allowed host over HTTP is reached through the proxy (Host set, Proxy-* dropped)" t_http_allowed

t_https_allowed() {
	ws=$(newdir ws-https)
	cd "$ws"
	kt --allow-host "$N_TLS:$TP" -- curl -sS -f --cacert "$KB_T/tls.crt" \
		"https://$N_TLS:$TP/hello" -o out
	[ "$KB_RC" = 0 ] || {
		_show_file "$KB_ERR"
		fail "kinbox exited $KB_RC"
	}
	assert_file_has_content "$ws/out" '^hello from upstream$'
	upstream_has tls "^SNI $N_TLS\$"
	upstream_has tls "^REQ GET /hello host=$N_TLS:$TP\$"
}
run_test "--allow-host: an allowed host over HTTPS (CONNECT, SNI checked, the server's own certificate)" t_https_allowed

t_post_body() {
	ws=$(newdir ws-post)
	cd "$ws"
	head -c 300000 /dev/zero | tr '\0' 'p' >"$ws/body"
	kt --allow-host "$N_HTTP:$HP" -- curl -sS -f --data-binary @body \
		"http://$N_HTTP:$HP/upload" -o out
	[ "$KB_RC" = 0 ] || fail "kinbox exited $KB_RC: $(cat "$KB_ERR")"
	assert_file_has_content "$ws/out" '^got 300000 bytes$'
	upstream_has http "^REQ POST /upload host=$N_HTTP:$HP body=300000\$"
}
run_test "--allow-host: a request body goes through whole" t_post_body

t_chunked_and_pipelined() {
	ws=$(newdir ws-chunked)
	cd "$ws"
	head -c 200000 /dev/zero | tr '\0' 'c' >"$ws/body"
	cat >"$ws/pipe.py" <<'EOF'
import socket, sys
host = sys.argv[1]
s = socket.create_connection(("127.0.0.1", 3128))
# one request with a chunked body, then a second one on the same
# connection, in one write: only the first may reach the upstream
s.sendall(("POST http://%s/chunked HTTP/1.1\r\nHost: %s\r\n"
           "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
           "GET http://%s/pipelined HTTP/1.1\r\nHost: %s\r\n\r\n"
           % (host, host, host, host)).encode())
s.settimeout(10)
data = b""
while b"\r\n\r\n" not in data:
    data += s.recv(65536)
head, _, body = data.partition(b"\r\n\r\n")
n = int([l.split(b":")[1] for l in head.split(b"\r\n")
         if l.lower().startswith(b"content-length:")][0])
while len(body) < n:
    body += s.recv(65536)
open("answer", "wb").write(body)
# what the upstream would do with a second request: a moment to do it
s.settimeout(1)
try:
    s.recv(65536)
except OSError:
    pass
EOF
	kt --allow-host "$N_HTTP:$HP" --allow-host "$N_HTTP:$KP" -- sh -c '
		curl -sS -f -H "Transfer-Encoding: chunked" --data-binary @body \
			"http://'"$N_HTTP:$HP"'/upload-chunked" -o out
		'"$PY"' pipe.py "'"$N_HTTP:$KP"'"'
	[ "$KB_RC" = 0 ] || fail "kinbox exited $KB_RC: $(cat "$KB_ERR")"
	assert_file_has_content "$ws/out" '^got 200000 bytes$'
	upstream_has http "^REQ POST /upload-chunked host=$N_HTTP:$HP body=200000\$"
	assert_file_has_content "$ws/answer" '^got 5 bytes'
	# an upstream that answers every request it reads, "Connection:
	# close" or not: the second request never reached it
	upstream_has httpka "^REQ POST /chunked host=$N_HTTP:$KP body=5\$"
	upstream_lacks httpka 'pipelined'
}
run_test "a chunked body goes through as framed; a request pipelined after it is not forwarded" t_chunked_and_pipelined

t_not_listed() {
	ws=$(newdir ws-notlisted)
	cd "$ws"
	kt --allow-host "$N_HTTP:$HP" --json-fd 3 -- sh -c '
		curl -sS -f "http://'"$N_HTTP:$HP"'/hello" -o ok
		curl -sS -D hdr -o body "http://'"$N_OTHER:$HP"'/hello"
		curl -sS -f "http://'"$N_OTHER:$HP"'/hello"' 3>"$ws/record.json"
	[ "$KB_RC" = 22 ] || fail "kinbox exited $KB_RC, expected curl's 22: $(cat "$KB_ERR")"
	assert_file_has_content "$ws/ok" '^hello from upstream$'
	assert_file_has_content "$ws/hdr" '^HTTP/1.1 403'
	assert_file_has_content "$ws/hdr" "^X-Kinbox-Denied: $N_OTHER:$HP: not on the allow-list"
	upstream_lacks http "host=$N_OTHER"
	# the exact denial: kinbox saw the host, and names the grant
	assert_file_has_content "$KB_ERR" "denied network to $N_OTHER:$HP"
	assert_file_has_content "$KB_ERR" "retry with --allow-host $N_OTHER:$HP"
	[ "$(grep -c 'denied network' "$KB_ERR")" = 1 ] || fail "not one denial for one host refused twice: $(cat "$KB_ERR")"
	# the journal has it, for kinpolicy (show, grant, retry)
	id=$(grep -o 'sbx_[0-9a-f]*' "$KB_ERR" | head -n 1)
	"$KINPOLICY" show "$id" >"$ws/show" || fail "kinpolicy show $id failed"
	assert_file_has_content "$ws/show" "^suggested: +--allow-host $N_OTHER:$HP\$"
	assert_file_has_content "$ws/show" "egress proxy"
	"$PY" - "$ws/record.json" "$N_OTHER:$HP" <<'EOF'
import json, sys
rec = json.loads(open(sys.argv[1]).read().splitlines()[0])
ds = rec["denials"] if "denials" in rec else [rec]
net = [d for d in ds if d.get("class") == "network"]
assert len(net) == 1, rec
d = net[0]
assert d["suggest"]["allowed_hosts"] == [sys.argv[2]], d
assert d.get("network", True) is not None
EOF
}
run_test "a host not on the list: 403 with a reason header, nothing upstream, one exact denial naming --allow-host HOST:PORT (stderr, --json-fd, the journal)" t_not_listed

t_several_refused() {
	ws=$(newdir ws-several)
	cd "$ws"
	tls_before=$(upstream_count tls ACCEPT)
	kt --allow-host "$N_HTTP:$HP" -- sh -c '
		curl -sS -f "http://'"$N_HTTP:$HP"'/hello" -o ok
		curl -s "http://'"$N_OTHER:$HP"'/a" -o /dev/null
		curl -s "http://'"$N_THIRD:$HP"'/b" -o /dev/null
		curl -s -p -x http://127.0.0.1:3128 "https://'"$N_THIRD:$TP"'/c" -o /dev/null
		exit 3'
	[ "$KB_RC" = 3 ] || fail "kinbox exited $KB_RC"
	assert_file_has_content "$ws/ok" '^hello from upstream$'
	assert_file_has_content "$KB_ERR" "denied network to $N_OTHER:$HP"
	assert_file_has_content "$KB_ERR" "denied network to $N_THIRD:$HP"
	assert_file_has_content "$KB_ERR" "denied network to $N_THIRD:$TP"
	[ "$(grep -c 'denied network' "$KB_ERR")" = 3 ] || fail "not one denial per host and port: $(cat "$KB_ERR")"
	[ "$(upstream_count http "$N_OTHER|$N_THIRD")" = 0 ] || fail "a refused request reached the upstream"
	[ "$(upstream_count tls ACCEPT)" = "$tls_before" ] || fail "a refused tunnel reached the upstream"
}
run_test "several refused hosts in one run: one exact denial each" t_several_refused

t_refused_success() {
	ws=$(newdir ws-success)
	cd "$ws"
	# curl without -f takes the 403 and exits 0: kinbox still says what
	# it refused (it saw it), and the exit status stays the command's
	kt --allow-host "$N_HTTP:$HP" --json-fd 3 -- sh -c '
		curl -sS "http://'"$N_HTTP:$HP"'/hello" -o ok
		curl -sS "http://'"$N_OTHER:$HP"'/quiet" -o refused' 3>"$ws/record.json"
	[ "$KB_RC" = 0 ] || fail "kinbox exited $KB_RC: $(cat "$KB_ERR")"
	assert_file_has_content "$ws/ok" '^hello from upstream$'
	assert_file_has_content "$ws/refused" 'not on the allow-list'
	assert_file_has_content "$KB_ERR" "denied network to $N_OTHER:$HP"
	assert_file_has_content "$ws/record.json" "\"allowed_hosts\": *\\[\"$N_OTHER:$HP\"\\]"
	upstream_lacks http '/quiet'
}
run_test "a refused request the command shrugs off (exit 0) is still reported, the exit status kept" t_refused_success

t_redirect() {
	ws=$(newdir ws-redirect)
	cd "$ws"
	kt --allow-host "$N_HTTP:$HP" -- sh -c '
		curl -sS -L -o out -w "%{http_code}" "http://'"$N_HTTP:$HP"'/redirect?to=http://'"$N_OTHER:$HP"'/hello" >code
		curl -sS -L -f -o same "http://'"$N_HTTP:$HP"'/redirect?to=/hello"
		exit 5'
	[ "$KB_RC" = 5 ] || fail "kinbox exited $KB_RC"
	assert_file_has_content "$ws/code" '^403$'
	assert_file_has_content "$ws/same" '^hello from upstream$'
	upstream_has http "^REQ GET /redirect\\?to=http://$N_OTHER:$HP/hello host=$N_HTTP:$HP\$"
	upstream_lacks http "host=$N_OTHER"
	assert_file_has_content "$KB_ERR" "denied network to $N_OTHER:$HP"
}
run_test "a redirect's next request is checked again (to another host: refused; to the same: followed)" t_redirect

# tunnel.sh HOST:PORT OUT ARG...: openssl s_client through the proxy,
# CONNECT HOST:PORT, with ARG... (the SNI it sends); its output in OUT
tunnel_script() {
	printf '%s\n' 'c=$1 o=$2; shift 2; openssl s_client -proxy 127.0.0.1:3128 -connect "$c" "$@" </dev/null >"$o" 2>&1 || true'
}

t_sni_mismatch() {
	ws=$(newdir ws-sni)
	cd "$ws"
	tunnel_script >"$ws/tunnel.sh"
	before=$(upstream_count tls ACCEPT)
	kt --allow-host "$N_TLS:$TP" -- sh -c '
		sh tunnel.sh "'"$N_TLS:$TP"'" bad.out -servername evil.kbx-elsewhere.example
		sh tunnel.sh "'"$N_TLS:$TP"'" none.out -noservername
		curl -sS -f --cacert "'"$KB_T/tls.crt"'" "https://'"$N_TLS:$TP"'/hello" -o ok
		exit 4'
	[ "$KB_RC" = 4 ] || fail "kinbox exited $KB_RC: $(cat "$KB_ERR")"
	assert_file_has_content "$ws/ok" '^hello from upstream$'
	# one connection reached the upstream: the control's, with its name
	[ "$(upstream_count tls ACCEPT)" = $((before + 1)) ] || {
		_show_file "$KB_T/tls.log"
		fail "a tunnel with another SNI, or none, reached the upstream"
	}
	upstream_lacks tls 'SNI evil'
	assert_file_has_content "$ws/bad.out" 'alert access denied|alert number 49'
	assert_file_has_content "$KB_ERR" "denied network to $N_TLS:$TP"
	assert_file_has_content "$KB_ERR" "evil.kbx-elsewhere.example"
	assert_file_has_content "$KB_ERR" 'no SNI'
}
run_test "CONNECT to an allowed host with another SNI, or none: refused before any byte (or connection) reaches the upstream" t_sni_mismatch

t_not_tls() {
	ws=$(newdir ws-nottls)
	cd "$ws"
	before=$(upstream_count tls ACCEPT)
	cat >"$ws/raw.py" <<'EOF'
import socket, sys
s = socket.create_connection(("127.0.0.1", 3128))
s.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (sys.argv[1], sys.argv[1])).encode())
r = s.recv(4096)
open("status", "wb").write(r)
s.sendall(b"SSH-2.0-OpenSSH_9.2\r\n")
s.settimeout(5)
try:
    open("after", "wb").write(s.recv(4096))
except OSError:
    pass
EOF
	kt --allow-host "$N_TLS:$TP" -- sh -c '
		'"$PY"' raw.py "'"$N_TLS:$TP"'"
		curl -s --socks5-hostname 127.0.0.1:3128 "http://'"$N_TLS:$TP"'/" -o /dev/null -w "%{http_code}" >socks || true
		curl -sS -f --cacert "'"$KB_T/tls.crt"'" "https://'"$N_TLS:$TP"'/hello" -o ok
		exit 6'
	[ "$KB_RC" = 6 ] || fail "kinbox exited $KB_RC: $(cat "$KB_ERR")"
	assert_file_has_content "$ws/ok" '^hello from upstream$'
	assert_file_has_content "$ws/status" '^HTTP/1.1 200'
	[ "$(upstream_count tls ACCEPT)" = $((before + 1)) ] || fail "a non-TLS tunnel or SOCKS reached the upstream"
	assert_file_has_content "$KB_ERR" 'not TLS'
}
run_test "a CONNECT tunnel carrying SSH, and a SOCKS request, are refused; the upstream sees neither" t_not_tls

t_addresses() {
	ws=$(newdir ws-addr)
	cd "$ws"
	kt --allow-host "$N_HTTP:$HP" -- sh -c '
		curl -sS -f "http://'"$N_HTTP:$HP"'/hello" -o ok
		curl -s -o /dev/null -w "%{http_code}" --noproxy "" -x http://127.0.0.1:3128 "http://127.0.0.1:'"$HP"'/hello" >lit4
		curl -s -o /dev/null -w "%{http_code}" --noproxy "" -x http://127.0.0.1:3128 "http://[::1]:'"$HP"'/hello" >lit6
		curl -s -o /dev/null -w "%{http_code}" --noproxy "" -x http://127.0.0.1:3128 "http://localhost:'"$HP"'/hello" >lh
		curl -s -o /dev/null -w "%{http_code}" --noproxy "" -x http://127.0.0.1:3128 "http://2130706433:'"$HP"'/hello" >dec
		exit 7'
	[ "$KB_RC" = 7 ] || fail "kinbox exited $KB_RC"
	assert_file_has_content "$ws/ok" '^hello from upstream$'
	for f in lit4 lit6 lh dec; do
		assert_file_has_content "$ws/$f" '^403$'
	done
	upstream_lacks http 'host=127|host=\[::1\]|host=localhost|host=2130706433'
	assert_file_has_content "$KB_ERR" 'not a DNS name'
	# an address is never suggested as a grant
	assert_not_file_has_content "$KB_ERR" 'allow-host 127\.0\.0\.1|allow-host \[::1\]'
}
run_test "IP literals and localhost through the proxy: refused without a lookup, no grant suggested" t_addresses

t_direct_fails() {
	ws=$(newdir ws-direct)
	cd "$ws"
	cat >"$ws/direct.py" <<'EOF'
import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3)
    print("connected")
except OSError as e:
    print("refused", e.errno)
EOF
	kt --allow-host "$N_HTTP:$HP" -- sh -c '
		'"$PY"' direct.py '"$HP"' >direct
		cat /proc/net/dev >dev
		cat /proc/net/route >route
		curl -sS -f "http://'"$N_HTTP:$HP"'/hello" -o ok'
	[ "$KB_RC" = 0 ] || fail "kinbox exited $KB_RC"
	assert_file_has_content "$ws/ok" '^hello from upstream$'
	assert_file_has_content "$ws/direct" '^refused'
	# only the loopback interface, and no route at all
	[ "$(grep -c ':' "$ws/dev")" = 1 ] || fail "interfaces other than lo: $(cat "$ws/dev")"
	assert_file_has_content "$ws/dev" '^ *lo:'
	[ "$(wc -l <"$ws/route")" -le 1 ] || fail "the sandbox has routes: $(cat "$ws/route")"
	[ "$(upstream_count http ACCEPT)" -ge 1 ]
}
run_test "direct sockets still fail: the host's 127.0.0.1 is out of reach, only lo, no route" t_direct_fails

t_env() {
	ws=$(newdir ws-env)
	cd "$ws"
	HTTPS_PROXY=http://proxy.caller.example:8080 kt --allow-host "$N_HTTP:$HP" -- sh -c '
		env >env
		'"$PY"' -m http.server --bind 127.0.0.1 8765 >/dev/null 2>&1 &
		i=0; while ! curl -s -o /dev/null http://127.0.0.1:8765/; do i=$((i+1)); [ $i -lt 50 ] || break; sleep 0.1; done
		curl -sS -f -o local http://127.0.0.1:8765/env
		curl -sS -f -o local2 http://localhost:8765/env
		kill $!'
	[ "$KB_RC" = 0 ] || fail "kinbox exited $KB_RC: $(cat "$KB_ERR")"
	for v in http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY \
		npm_config_proxy npm_config_https_proxy PIP_PROXY CARGO_HTTP_PROXY \
		YARN_HTTPS_PROXY; do
		assert_file_has_content "$ws/env" "^$v=http://127.0.0.1:3128\$"
	done
	assert_file_has_content "$ws/env" '^NO_PROXY=localhost,127.0.0.1,::1$'
	assert_file_has_content "$ws/env" '^no_proxy=localhost,127.0.0.1,::1$'
	assert_file_has_content "$ws/env" '^JAVA_TOOL_OPTIONS=.*-Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=3128'
	assert_not_file_has_content "$ws/env" 'proxy.caller.example'
	assert_not_file_has_content "$ws/env" '^npm_config_offline='
	# the sandbox's own loopback is not sent to the proxy
	assert_files_equal "$ws/env" "$ws/local"
	assert_files_equal "$ws/env" "$ws/local2"
}
run_test "the environment points tools at the proxy (replacing the caller's), loopback stays direct" t_env

t_no_outside_use() {
	ws=$(newdir ws-outside)
	ws2=$(newdir ws-outside2)
	cd "$ws"
	"$KT" --allow-host "$N_HTTP:$HP" -- sh -c '
		curl -sS -f "http://'"$N_HTTP:$HP"'/hello" -o ok
		: >ready; i=0; while [ ! -e done ] && [ $i -lt 100 ]; do i=$((i+1)); sleep 0.1; done' \
		>"$KB_T/outside.out" 2>&1 &
	bg=$!
	poll_while_running $bg "$ws/ready" 150 || fail "the first sandbox did not start: $(cat "$KB_T/outside.out")"
	# another sandbox, and the host itself, try the proxy's address
	(cd "$ws2" && "$KT" -- sh -c \
		'curl -s -o /dev/null -w "%{http_code}" -x http://127.0.0.1:3128 "http://'"$N_HTTP:$HP"'/from-sandbox-c" >code2; true') >/dev/null 2>&1 || true
	curl -s -o /dev/null --max-time 3 -x http://127.0.0.1:3128 "http://$N_HTTP:$HP/from-host" || true
	: >"$ws/done"
	wait $bg || fail "the first sandbox failed: $(cat "$KB_T/outside.out")"
	assert_file_has_content "$ws/ok" '^hello from upstream$'
	# the other sandbox has no proxy of its own, and A's is not on its
	# loopback; the host's 127.0.0.1 is another address space
	upstream_lacks http 'from-sandbox-c|from-host'
	assert_file_has_content "$ws2/code2" '^000$'
}
run_test "the proxy is the sandbox's alone: another sandbox and the host cannot use it" t_no_outside_use

t_release_ignores_override() {
	# the override is not compiled into the release binary at all
	if grep -q -a 'KINBOX_TEST_RESOLVE' "$KINBOX"; then
		fail "the release kinbox contains KINBOX_TEST_RESOLVE"
	fi
	grep -q -a 'KINBOX_TEST_RESOLVE' "$KT" || fail "the test build lacks the override"
	[ "$IS_ROOT" = 1 ] || skip_other_pass "the end-to-end half needs a mount namespace for /etc/hosts (root); the binary check above ran"
	have unshare || skip_test "unshare is not installed"
	ws=$(newdir ws-release)
	cd "$ws"
	{
		cat /etc/hosts
		printf '127.0.0.1 %s\n' "$N_HTTP" "loop.kbx-hosts.example"
	} >"$KB_T/hosts"
	# in a mount namespace of its own: the host's resolver answers these
	# names from this hosts file, without a packet
	unshare -m sh -c 'mount --bind "$1" /etc/hosts && shift && exec "$@"' sh "$KB_T/hosts" \
		"$KINBOX" --allow-host "$N_HTTP:$HP" -- sh -c '
		curl -s -D hdr -o /dev/null "http://'"$N_HTTP:$HP"'/release"
		: >ran; exit 9' >"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	[ "${KB_RC:-0}" = 9 ] || fail "kinbox exited ${KB_RC:-0}: $(cat "$KB_ERR")"
	assert_exists "$ws/ran"
	assert_file_has_content "$ws/hdr" '^HTTP/1.1 403'
	assert_file_has_content "$ws/hdr" 'loopback'
	upstream_lacks http '/release'
	assert_file_has_content "$KB_ERR" "denied network to $N_HTTP:$HP"
	# and the test build, on a name its override does not cover that the
	# host's resolver answers with 127.0.0.1: refused just the same
	KB_RC=0
	unshare -m sh -c 'mount --bind "$1" /etc/hosts && shift && exec "$@"' sh "$KB_T/hosts" \
		"$KT" --allow-host "loop.kbx-hosts.example:$HP" --allow-host "$N_HTTP:$HP" -- sh -c '
		curl -s -D hdr2 -o /dev/null "http://loop.kbx-hosts.example:'"$HP"'/uncovered"
		curl -sS -f "http://'"$N_HTTP:$HP"'/hello" -o ok; exit 9' >"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	[ "$KB_RC" = 9 ] || fail "kinbox-test exited $KB_RC: $(cat "$KB_ERR")"
	assert_file_has_content "$ws/ok" '^hello from upstream$'
	assert_file_has_content "$ws/hdr2" '^HTTP/1.1 403'
	upstream_lacks http '/uncovered'
}
run_test "the release kinbox ignores KINBOX_TEST_RESOLVE (not compiled in; a name answered 127.0.0.1 is refused)" t_release_ignores_override

t_landlock_refuses() {
	ws=$(newdir ws-ll)
	cd "$ws"
	kb --backend landlock --allow-host "$N_HTTP:$HP" -- sh -c ': >ran'
	[ "$KB_RC" = 125 ] || fail "kinbox exited $KB_RC"
	assert_not_exists "$ws/ran"
	assert_one_kinbox_line "$KB_ERR" 'allow-host.*landlock backend'
	# control: the same call under the bwrap backend runs
	kt --backend bwrap --allow-host "$N_HTTP:$HP" -- sh -c ': >ran'
	[ "$KB_RC" = 0 ] || fail "the bwrap run failed: $(cat "$KB_ERR")"
	assert_exists "$ws/ran"
}
run_test "the landlock backend refuses --allow-host (no network namespace of its own): exit 125, nothing ran" t_landlock_refuses

# --- tools through the proxy -------------------------------------------------

t_git() {
	require git
	ws=$(newdir ws-git)
	src=$KB_T/gitsrc
	rm -rf "$src" "$KB_T/www/repo.git"
	mkrepo "$src"
	echo egress >"$src/file"
	git -C "$src" add file
	git -C "$src" commit -q -m file
	git clone -q --bare "$src" "$KB_T/www/repo.git"
	git -C "$KB_T/www/repo.git" update-server-info
	cd "$ws"
	kt --allow-host "$N_GIT:$HP" -- git clone -q "http://$N_GIT:$HP/repo.git" clone
	[ "$KB_RC" = 0 ] || fail "git clone failed ($KB_RC): $(cat "$KB_ERR")"
	assert_file_has_content "$ws/clone/file" '^egress$'
	upstream_has http "^REQ GET /repo.git/info/refs.* host=$N_GIT:$HP\$"
}
run_test "git clones over HTTP through the proxy" t_git

t_pip() {
	pip_py=
	for c in /usr/bin/python3 "$PY"; do
		if "$c" -m pip --version >/dev/null 2>&1; then
			pip_py=$c
			break
		fi
	done
	[ -n "$pip_py" ] || skip_test "pip is not installed for $PY (python3-pip)"
	mkdir -p "$KB_T/www/simple/kbegress"
	"$PY" - "$KB_T/www/simple/kbegress/kbegress-1.0-py3-none-any.whl" <<'EOF'
import base64, hashlib, sys, zipfile
files = {"kbegress/__init__.py": b"VALUE = 'through the proxy'\n",
         "kbegress-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: kbegress\nVersion: 1.0\n",
         "kbegress-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: kinbox-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
rec = []
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for n, d in files.items():
        z.writestr(n, d)
        h = base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode()
        rec.append("%s,sha256=%s,%d" % (n, h, len(d)))
    rec.append("kbegress-1.0.dist-info/RECORD,,")
    z.writestr("kbegress-1.0.dist-info/RECORD", "\n".join(rec) + "\n")
EOF
	printf '<html><body><a href="kbegress-1.0-py3-none-any.whl">kbegress-1.0-py3-none-any.whl</a></body></html>\n' \
		>"$KB_T/www/simple/kbegress/index.html"
	ws=$(newdir ws-pip)
	cd "$ws"
	kt --allow-host "$N_PYPI:$HP" -- "$pip_py" -m pip install -q --no-cache-dir \
		--disable-pip-version-check --index-url "http://$N_PYPI:$HP/simple/" \
		--trusted-host "$N_PYPI" --target "$ws/site" kbegress
	[ "$KB_RC" = 0 ] || fail "pip install failed ($KB_RC): $(cat "$KB_ERR")"
	assert_file_has_content "$ws/site/kbegress/__init__.py" 'through the proxy'
	upstream_has http "^REQ GET /simple/kbegress/ host=$N_PYPI:$HP\$"
}
run_test "pip installs from an index through the proxy" t_pip

t_java() {
	require java
	ws=$(newdir ws-java)
	cd "$ws"
	cat >"$ws/Get.java" <<'EOF'
import java.io.*;
import java.net.*;
public class Get {
    public static void main(String[] a) throws Exception {
        HttpURLConnection c = (HttpURLConnection) new URL(a[0]).openConnection();
        try (InputStream in = c.getInputStream(); OutputStream out = new FileOutputStream(a[1])) {
            in.transferTo(out);
        }
    }
}
EOF
	kt --allow-host "$N_HTTP:$HP" -- java Get.java "http://$N_HTTP:$HP/hello" out
	[ "$KB_RC" = 0 ] || fail "java failed ($KB_RC): $(cat "$KB_ERR")"
	assert_file_has_content "$ws/out" '^hello from upstream$'
	upstream_has http "^REQ GET /hello host=$N_HTTP:$HP\$"
}
run_test "the JVM (HttpURLConnection) goes through the proxy (JAVA_TOOL_OPTIONS)" t_java

t_go() {
	require go
	ws=$(newdir ws-go)
	cd "$ws"
	cat >"$ws/get.go" <<'EOF'
package main

import (
	"io"
	"net/http"
	"os"
)

func main() {
	r, err := http.Get(os.Args[1])
	if err != nil {
		panic(err)
	}
	defer r.Body.Close()
	if r.StatusCode != 200 {
		os.Exit(3)
	}
	f, _ := os.Create(os.Args[2])
	io.Copy(f, r.Body)
	f.Close()
}
EOF
	# the build cache in the workspace: the test's home is read-only
	GOCACHE=$ws/.gocache GOPATH=$ws/.gopath GO111MODULE=off \
		kt --allow-host "$N_HTTP:$HP" -- go run get.go "http://$N_HTTP:$HP/hello" out
	[ "$KB_RC" = 0 ] || fail "go run failed ($KB_RC): $(tail -n 5 "$KB_ERR")"
	assert_file_has_content "$ws/out" '^hello from upstream$'
	upstream_has http "^REQ GET /hello host=$N_HTTP:$HP\$"
}
run_test "Go's net/http goes through the proxy (HTTP_PROXY)" t_go

t_npm() {
	require npm node
	# the registry, reached from the host first: skipped when it is not
	curl -s -o /dev/null --max-time 10 https://registry.npmjs.org/is-number ||
		skip_test "the npm registry is unreachable from this host"
	ws=$(newdir ws-npm)
	cd "$ws"
	printf '{"name":"kb-egress-npm","version":"1.0.0","private":true}\n' >package.json
	kb --allow-host registry.npmjs.org -- npm install --no-audit --no-fund \
		--cache "$ws/.npm-cache" is-number@7.0.0
	if [ "$KB_RC" != 0 ]; then
		# this host's resolver may answer the registry with an address
		# of a reserved range, which the release build refuses
		if grep -q 'resolves only to refused addresses' "$KB_ERR"; then
			diag "release kinbox: registry.npmjs.org resolves to a refused range here: $(grep 'denied network' "$KB_ERR" | head -n 1)"
			addr=$(getent ahostsv4 registry.npmjs.org | awk 'NR == 1 { print $1 }')
			[ -n "$addr" ] || fail "no address for registry.npmjs.org"
			diag "so the test build, with registry.npmjs.org=$addr taken as public"
			KINBOX_TEST_RESOLVE="registry.npmjs.org=$addr" kt --allow-host registry.npmjs.org -- \
				npm install --no-audit --no-fund --cache "$ws/.npm-cache" is-number@7.0.0
		fi
	fi
	[ "$KB_RC" = 0 ] || fail "npm install failed ($KB_RC): $(tail -n 5 "$KB_ERR")"
	assert_file_has_content "$ws/node_modules/is-number/package.json" '"version": "7.0.0"'
	# and without the grant npm cannot reach it: a denial names it
	rm -rf node_modules "$ws/.npm-cache"
	kb --allow-host "$N_HTTP:$HP" -- npm install --no-audit --no-fund \
		--cache "$ws/.npm-cache" --fetch-retries 0 is-number@7.0.0
	[ "$KB_RC" != 0 ] || fail "npm installed without a grant of the registry"
	assert_file_has_content "$KB_ERR" 'denied network to registry.npmjs.org:443'
	assert_not_exists "$ws/node_modules/is-number"
}
run_test "npm install through the proxy from the npm registry (and refused without the grant)" t_npm

done_testing
