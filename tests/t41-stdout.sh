#!/bin/sh
# tests/t41-stdout.sh — a denial is seen wherever the tool reports it:
# test runners and hook managers print theirs on stdout, and when stdout
# is a pipe or a file (an agent's, a CI log) kinbox reads its tail too.
# Real tools (go test, pytest, zip, pre-commit, cargo test where it is
# installed, npm offline) each write outside the workspace or into
# .git/hooks; each is judged from outside (the file is absent, the kinbox
# line, the --json-fd record), with a positive control in the same test
# (the same run granted: the file lands). The relay itself: exact bytes on
# both streams, SIGPIPE as without kinbox, a terminal left to the command.
# The narrowest grant: a network denial naming a host suggests
# --allow-host HOST. A tool's log in a cache this run discards: one note.
#
# Run: sh tests/t41-stdout.sh (TAP), or all suites: make integration.
# shellcheck disable=SC2317,SC2016,SC2164
# SC2317: the t_* bodies are called through run_test.
# SC2016: single-quoted $... is for the shell inside the sandbox.
# SC2164: lib.sh sets -e (test bodies run under set -e): a failed cd fails.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

unset XDG_RUNTIME_DIR XDG_CONFIG_HOME KINBOX_SESSION KINBOX_JSON_FD || true
# the caller's own toolchains (rustup keeps its own under the home)
REAL_HOME=${KB_REAL_HOME:-$HOME}
HOME=$KB_T/home
XDG_STATE_HOME=$KB_T/state
mkdir -p "$HOME/.cache" "$HOME/.npm"
export HOME XDG_STATE_HOME
OUT=$KB_T/outside
mkdir "$OUT"
chmod 777 "$OUT"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

if [ ! -x "$KINBOX" ]; then
	tap_not_ok "kinbox binary $KINBOX exists (build it: make all)"
	done_testing
fi
mkdir "$KB_T/preflight"
if ! (cd "$KB_T/preflight" && "$KINBOX" -- true) >"$KB_T/preflight.log" 2>&1; then
	diag "$(cat "$KB_T/preflight.log")"
	skip_all "kinbox cannot set up a sandbox on this host"
fi
diag "kinbox: $KINBOX; uid $(id -u)"

# run_tool NAME FILE -- ARGV: the tool under kinbox with stdout on a pipe
# (through cat, as an agent reads it): $KB_T/NAME.out (stdout), .err,
# .json (--json-fd), .rc (the tool's status through kinbox)
run_tool() {
	_n=$1
	shift
	_rc=0
	{ "$KINBOX" --json-fd 3 "$@" 3>"$KB_T/$_n.json" 2>"$KB_T/$_n.err" ||
		echo $? >"$KB_T/$_n.rc"; } | cat >"$KB_T/$_n.out"
	[ -f "$KB_T/$_n.rc" ] || echo 0 >"$KB_T/$_n.rc"
}

# said_on_stdout NAME PATH: the tool failed, printed its error on stdout
# (not stderr), and kinbox named PATH as a denial read from stdout, in the
# line and the record
said_on_stdout() {
	if [ "$(cat "$KB_T/$1.rc")" = 0 ]; then
		_show_file "$KB_T/$1.out"
		fail "$1 succeeded under kinbox"
	fi
	assert_file_has_content "$KB_T/$1.err" "^kinbox: (denied|refused) write '$2' .*read from the command's stdout"
	"$PY" - "$KB_T/$1.json" "$2" <<'EOF' || fail "the record does not say stdout"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["stream"] == "stdout", d
assert d["path"] == sys.argv[2], d
EOF
}

# --- the tools -----------------------------------------------------------------
t_go() {
	require go
	ws=$(newdir go)
	cd "$ws"
	git init -q .
	printf 'module example.com/w\n\ngo 1.18\n' >go.mod
	cat >w_test.go <<'EOF'
package w

import (
	"os"
	"testing"
)

func TestWrite(t *testing.T) {
	if err := os.WriteFile(os.Getenv("T31_OUT"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}
EOF
	# GOCACHE in the private /tmp: the home's is read-only
	set -- env GOCACHE=/tmp/gocache GOFLAGS=-mod=mod GOTOOLCHAIN=local T31_OUT="$OUT/go.txt" go test ./...
	run_tool go -- "$@"
	assert_not_exists "$OUT/go.txt"
	assert_file_has_content "$KB_T/go.out" "read-only file system"
	said_on_stdout go "$OUT/go.txt"
	# control: granted, the same test passes and its file lands
	run_tool go-ok --write "$OUT" -- "$@"
	assert_streq "$(cat "$KB_T/go-ok.rc")" 0 "go test granted"
	assert_exists "$OUT/go.txt"
	assert_not_file_has_content "$KB_T/go-ok.err" '^kinbox: denied'
}
run_test "go test: a test's write outside fails on stdout; kinbox names it (read from stdout, stream stdout in the record); control: granted, it lands" t_go

t_pytest() {
	"$PY" -c 'import pytest' 2>/dev/null ||
		skip_unavailable "pytest is not installed (make deps installs python3-pytest)"
	ws=$(newdir pytest)
	cd "$ws"
	cat >test_w.py <<'EOF'
import os


def test_write():
    with open(os.environ["T31_OUT"], "w") as f:
        f.write("x")
EOF
	set -- env T31_OUT="$OUT/py.txt" "$PY" -m pytest -q -p no:cacheprovider test_w.py
	run_tool py -- "$@"
	assert_not_exists "$OUT/py.txt"
	assert_file_has_content "$KB_T/py.out" "Read-only file system"
	said_on_stdout py "$OUT/py.txt"
	run_tool py-ok --write "$OUT" -- "$@"
	assert_streq "$(cat "$KB_T/py-ok.rc")" 0 "pytest granted"
	assert_exists "$OUT/py.txt"
}
run_test "pytest: a test's write outside is reported on stdout; kinbox names it; control: granted, it lands" t_pytest

t_zip() {
	require zip
	ws=$(newdir zip)
	cd "$ws"
	echo data >f.txt
	run_tool zip -- zip -q "$OUT/a.zip" f.txt
	assert_not_exists "$OUT/a.zip"
	said_on_stdout zip "$OUT/a.zip"
	run_tool zip-ok --write "$OUT" -- zip -q "$OUT/a.zip" f.txt
	assert_streq "$(cat "$KB_T/zip-ok.rc")" 0 "zip granted"
	assert_exists "$OUT/a.zip"
}
run_test "zip: an archive outside, refused, reported on stdout; kinbox names it; control: granted, it lands" t_zip

t_precommit() {
	require pre-commit git
	ws=$(newdir precommit)
	mkrepo "$ws"
	cd "$ws"
	run_tool pc -- pre-commit install
	assert_not_exists "$ws/.git/hooks/pre-commit"
	assert_file_has_content "$KB_T/pc.out" "Read-only file system: '.git/hooks/pre-commit'"
	assert_file_has_content "$KB_T/pc.err" "^kinbox: refused write '$ws/.git/hooks/pre-commit' .*read from the command's stdout.*git guard"
	# its log is in a cache this run does not keep: said once
	assert_file_has_content "$KB_T/pc.err" "^kinbox: note: $HOME/.cache/pre-commit/pre-commit.log lies in $HOME/.cache \(\[caches\] cache\)"
	# control: the same command unconfined installs the hook
	run_tool pc-ok --unconfined -- pre-commit install
	assert_streq "$(cat "$KB_T/pc-ok.rc")" 0 "pre-commit install unconfined"
	assert_exists "$ws/.git/hooks/pre-commit"
}
run_test "pre-commit install: .git/hooks refused, reported on stdout; kinbox names the guard and notes its log is gone; control: unconfined it installs" t_precommit

t_cargo() {
	# rustup's toolchains live in the caller's home, not the test's
	RUSTUP_HOME=${RUSTUP_HOME:-$REAL_HOME/.rustup}
	CARGO_HOME=${CARGO_HOME:-$REAL_HOME/.cargo}
	export RUSTUP_HOME CARGO_HOME
	[ ! -d "$CARGO_HOME/bin" ] || PATH=$PATH:$CARGO_HOME/bin
	have cargo && cargo --version >/dev/null 2>&1 ||
		skip_unavailable "cargo is not installed here, or not usable by uid $(id -u) (rustup or Debian's cargo)"
	ws=$(newdir cargo)
	cd "$ws"
	mkdir src
	printf '[package]\nname = "w"\nversion = "0.1.0"\nedition = "2021"\n' >Cargo.toml
	cat >src/lib.rs <<'EOF'
#[test]
fn write() {
    std::fs::write(std::env::var("T31_OUT").unwrap(), "x").unwrap();
}
EOF
	set -- env CARGO_TARGET_DIR=/tmp/target T31_OUT="$OUT/rs.txt" cargo test --offline -q
	run_tool rs -- "$@"
	assert_not_exists "$OUT/rs.txt"
	said_on_stdout rs "$OUT/rs.txt"
	run_tool rs-ok --write "$OUT" -- "$@"
	assert_streq "$(cat "$KB_T/rs-ok.rc")" 0 "cargo test granted"
	assert_exists "$OUT/rs.txt"
}
run_test "cargo test: a test's write outside, in its captured output on stdout; kinbox names it; control: granted, it lands" t_cargo

# stdout a regular file (a CI log): its tail is read back after the run,
# and the file holds exactly what the command printed
t_file() {
	ws=$(newdir file)
	cd "$ws"
	printf 'before\n' >"$KB_T/log.txt"
	_rc=0
	"$KINBOX" -- sh -c 'echo "open $1/f.txt: read-only file system"; touch "$1/f.txt" 2>/dev/null' sh "$OUT" \
		>>"$KB_T/log.txt" 2>"$KB_T/file.err" || _rc=$?
	assert_streq "$_rc" 1 "the command's status"
	assert_not_exists "$OUT/f.txt"
	assert_streq "$(cat "$KB_T/log.txt")" "before
open $OUT/f.txt: read-only file system" "the log file"
	assert_file_has_content "$KB_T/file.err" "^kinbox: denied write '$OUT/f.txt' .*read from the command's stdout"
	# control: the text alone, with no refused write, is no denial
	"$KINBOX" -- sh -c 'echo "open /nonexistent/f.txt: read-only file system"; exit 0' \
		>>"$KB_T/log.txt" 2>"$KB_T/file2.err"
	assert_not_file_has_content "$KB_T/file2.err" '^kinbox:'
}
run_test "stdout a file: the denial is read back from its tail, the file holds exactly the command's output; control: a success says nothing" t_file

# a terminal is left to the command: it still sees one, and only stderr
# is read
t_tty() {
	require script
	ws=$(newdir tty)
	cd "$ws"
	script -qec "$KINBOX -- sh -c 'test -t 1 && echo STDOUT-IS-A-TTY; test -t 2 && echo STDERR-IS-A-TTY'" /dev/null >"$KB_T/tty.out" 2>&1 || true
	assert_file_has_content "$KB_T/tty.out" STDOUT-IS-A-TTY
	assert_file_has_content "$KB_T/tty.out" STDERR-IS-A-TTY
	# control: through a pipe it is not one
	"$KINBOX" -- sh -c 'test -t 1 && echo STDOUT-IS-A-TTY; echo piped' | cat >"$KB_T/tty2.out"
	assert_streq "$(cat "$KB_T/tty2.out")" piped
}
run_test "stdout a terminal: the command still sees a terminal (no relay); control: through a pipe it does not" t_tty

# the relay: every byte, in order, on both streams at once; binary data
t_bytes() {
	ws=$(newdir bytes)
	cd "$ws"
	head -c 20000000 /dev/urandom >"$KB_T/blob"
	# both streams interleaved, in chunks of odd sizes
	cat >"$KB_T/both.sh" <<'EOF'
i=0
while [ $i -lt 40 ]; do
	dd if="$1" bs=499979 skip=$i count=1 status=none
	dd if="$1" bs=499979 skip=$i count=1 status=none >&2
	i=$((i + 1))
done
EOF
	"$KINBOX" -- sh "$KB_T/both.sh" "$KB_T/blob" 2>"$KB_T/b.err" | cat >"$KB_T/b.out"
	sh "$KB_T/both.sh" "$KB_T/blob" 2>"$KB_T/r.err" | cat >"$KB_T/r.out"
	assert_streq "$(sha256sum <"$KB_T/b.out")" "$(sha256sum <"$KB_T/r.out")" "stdout, byte for byte"
	assert_streq "$(sha256sum <"$KB_T/b.err")" "$(sha256sum <"$KB_T/r.err")" "stderr, byte for byte"
	assert_streq "$(wc -c <"$KB_T/b.out")" 19999160 "stdout's size (40 chunks of 499979)"
	# a command that closes stdout early and goes on with stderr
	"$KINBOX" -- sh -c 'echo one; exec 1>&-; sleep 0.2; echo two >&2' 2>"$KB_T/c.err" | cat >"$KB_T/c.out"
	assert_streq "$(cat "$KB_T/c.out")" one
	assert_streq "$(cat "$KB_T/c.err")" two
}
run_test "the stdout relay: 20 MB of binary on both streams interleaved arrive exactly (same hashes as the raw run), an early close of stdout" t_bytes

# a reader that goes away: the command gets SIGPIPE, as without kinbox
t_sigpipe() {
	ws=$(newdir sigpipe)
	cd "$ws"
	# shellcheck disable=SC2034
	raw=$(sh -c 'yes | head -n 3 >/dev/null; echo ${PIPESTATUS:-x}' 2>/dev/null)
	_st=$(bash -c "\"$KINBOX\" -- yes | head -n 3 >/dev/null; echo \${PIPESTATUS[0]}")
	_raw=$(bash -c 'yes | head -n 3 >/dev/null; echo ${PIPESTATUS[0]}')
	assert_streq "$_st" "$_raw" "kinbox -- yes | head: the status as without kinbox"
	assert_streq "$_raw" 141 "the raw run's status (SIGPIPE)"
	# and a command that ignores SIGPIPE sees EPIPE
	bash -c "\"$KINBOX\" -- $PY -c 'import signal,sys,time
signal.signal(signal.SIGPIPE, signal.SIG_IGN)
try:
    while True:
        sys.stdout.write(\"x\" * 65536); sys.stdout.flush()
except BrokenPipeError:
    open(\"epipe\", \"w\").write(\"yes\")
' | head -c 10 >/dev/null"
	assert_streq "$(cat epipe)" yes "EPIPE seen by a command that ignores SIGPIPE"
}
run_test "a reader that goes away: kinbox -- yes | head exits 141 as the raw run does; a command ignoring SIGPIPE gets EPIPE" t_sigpipe

# --- the narrowest grant -------------------------------------------------------
t_npm_host() {
	have npm || skip_unavailable "npm is not installed here"
	ws=$(newdir npm)
	cd "$ws"
	printf '{"name": "w", "version": "1.0.0"}\n' >package.json
	# the network is off: npm fails at once, offline, asking nobody
	run_tool npm -- npm install --no-audit --no-fund left-pad
	[ "$(cat "$KB_T/npm.rc")" != 0 ] || fail "npm install succeeded offline"
	assert_file_has_content "$KB_T/npm.err" "^kinbox: denied network to registry.npmjs.org .*retry with --allow-host registry.npmjs.org "
	"$PY" - "$KB_T/npm.json" <<'EOF' || fail "the record's suggestion is not the host"
import json, sys
s = json.load(open(sys.argv[1]))["suggest"]
assert s["allowed_hosts"] == ["registry.npmjs.org"], s
assert s["network"] is False, s
EOF
	# its log is in the npm cache, which this run discards: said
	assert_file_has_content "$KB_T/npm.err" "^kinbox: note: $HOME/.npm/_logs/[^ ]*\.log lies in $HOME/.npm \(\[caches\] npm\), whose writes this run discards"
	# control: kinpolicy's grant of the suggestion is that host alone
	_id=$(sed -n 's/.*\[\(sbx_[0-9a-f]*\)\]$/\1/p' "$KB_T/npm.err" | head -n 1)
	"$KINPOLICY" grant "$_id" --suggested --once >"$KB_T/grant.out" 2>&1 ||
		{ cat "$KB_T/grant.out"; fail "kinpolicy grant --suggested failed"; }
	assert_file_has_content "$KB_T/grant.out" "allow-host registry.npmjs.org"
	assert_not_file_has_content "$KB_T/grant.out" '[-]-net' 
}
run_test "npm install offline: the suggestion is --allow-host registry.npmjs.org, not --net (line, record, kinpolicy grant --suggested); its discarded log is noted" t_npm_host

done_testing
