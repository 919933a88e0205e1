# shellcheck shell=sh
#
# tests/lib.sh — sourced by the shell integration tests (tests/tNN-*.sh).
# In the spirit of bubblewrap's libtest-core.sh: `set -eu` friendly
# asserts, TAP output, one temporary directory per script removed on exit.
#
#   . "$(dirname "$0")/lib.sh"
#   t_write_inside() { ...; assert_file_has_content "$ws/f" '^new$'; }
#   run_test "a write inside the workspace lands on the host" t_write_inside
#   ...
#   done_testing
#
# Each test body runs in a subshell with `set -e`; an assert that does not
# hold prints why and exits that subshell, which makes the test `not ok`.
# A body calls skip_test REASON to skip itself. Output of a test body is
# kept and shown (as "# " lines) only when it fails, or always with
# KB_VERBOSE=1.
#
# Environment:
#   KINBOX            the kinbox binary (default: ../kinbox from this file)
#   KINPOLICY         the kinpolicy binary (default: beside $KINBOX)
#   KINBOX_MUST_WORK  1: a skip counts as a failure (CI that must sandbox)
#   KB_VERBOSE        1: show every test body's output
#   KB_SLOW           seconds: a test taking at least this long is followed
#                     by "# N took S s" (default 5)
#   KB_BACKEND        landlock: every kinbox call runs under the landlock
#                     backend (KINBOX_SANDBOX=landlock is exported, which
#                     wins over --backend and the config); unset or empty:
#                     the default backend (KINBOX_SANDBOX is unset). A test
#                     of what the landlock backend documents it lacks calls
#                     skip_on_landlock REASON
#
# Summary: `1..N` (TAP plan, at the end), then the plain line
# "N passed, N failed, N skipped" (a failed run_test_todo is among the
# skipped); the script exits 1 when any failed.

set -eu

KB_TESTS_DIR=$(cd "$(dirname "$0")" && pwd)
if [ -z "${KINBOX:-}" ]; then
	KINBOX=$(cd "$KB_TESTS_DIR/.." && pwd)/kinbox
fi
case $KINBOX in
/*) ;;
*) KINBOX=$(pwd)/$KINBOX ;;
esac
export KINBOX
# kinpolicy: KINPOLICY, else the one beside kinbox
if [ -z "${KINPOLICY:-}" ]; then
	KINPOLICY=$(dirname "$KINBOX")/kinpolicy
fi
case $KINPOLICY in
/*) ;;
*) KINPOLICY=$(pwd)/$KINPOLICY ;;
esac
export KINPOLICY
KINBOX_MUST_WORK=${KINBOX_MUST_WORK:-}
KB_VERBOSE=${KB_VERBOSE:-}
KB_SLOW=${KB_SLOW:-5}
KB_BACKEND=${KB_BACKEND:-}
case $KB_BACKEND in
'' | landlock) ;;
*)
	echo "lib.sh: KB_BACKEND=$KB_BACKEND: use landlock, or leave it unset for the default backend" >&2
	exit 2
	;;
esac
export KB_BACKEND

# --- a predictable environment ------------------------------------------
# $TMPDIR outside /tmp is made writable by kinbox: a TMPDIR=/var/tmp in the
# caller's environment would make every "outside" directory here writable.
unset TMPDIR KINBOX_SANDBOX KINBOX_ACTIVE GIT_DIR GIT_WORK_TREE \
	GIT_INDEX_FILE GIT_COMMON_DIR GIT_CEILING_DIRECTORIES CDPATH || true
if [ "$KB_BACKEND" = landlock ]; then
	KINBOX_SANDBOX=landlock
	export KINBOX_SANDBOX
fi
LC_ALL=C
export LC_ALL
# git: no system/global config, a fixed identity, quiet defaults. These are
# "command line" config entries; the tests never rely on them for guards.
GIT_CONFIG_NOSYSTEM=1
GIT_CONFIG_GLOBAL=/dev/null
GIT_AUTHOR_NAME=kinbox-test
GIT_AUTHOR_EMAIL=kinbox-test@example.invalid
GIT_COMMITTER_NAME=kinbox-test
GIT_COMMITTER_EMAIL=kinbox-test@example.invalid
GIT_CONFIG_COUNT=4
GIT_CONFIG_KEY_0=init.defaultBranch
GIT_CONFIG_VALUE_0=main
GIT_CONFIG_KEY_1=advice.ignoredHook
GIT_CONFIG_VALUE_1=false
GIT_CONFIG_KEY_2=protocol.file.allow
GIT_CONFIG_VALUE_2=always
GIT_CONFIG_KEY_3=advice.addEmbeddedRepo
GIT_CONFIG_VALUE_3=false
export GIT_CONFIG_NOSYSTEM GIT_CONFIG_GLOBAL GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL \
	GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_CONFIG_COUNT \
	GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0 GIT_CONFIG_KEY_1 GIT_CONFIG_VALUE_1 \
	GIT_CONFIG_KEY_2 GIT_CONFIG_VALUE_2 GIT_CONFIG_KEY_3 GIT_CONFIG_VALUE_3

# --- the per-script temporary directory ----------------------------------
# Under /var/tmp, not /tmp: /tmp is private inside the sandbox, and the test
# workspaces must also exercise the ordinary (non-/tmp) write path.
KB_T=$(mktemp -d /var/tmp/kinbox-test.XXXXXX)
chmod 755 "$KB_T"
mkdir "$KB_T/.lib"
: >"$KB_T/.lib/bgpids"
: >"$KB_T/.lib/cleanup"

# cleanup_add CMD: run CMD (eval'd) at exit, also when added from a test.
cleanup_add() {
	printf '%s\n' "$*" >>"$KB_T/.lib/cleanup"
}

# bg_register PID: kill PID at exit.
bg_register() {
	printf '%s\n' "$1" >>"$KB_T/.lib/bgpids"
}

cleanup() {
	_rc=$?
	trap - EXIT
	set +e
	if [ -s "$KB_T/.lib/cleanup" ]; then
		while IFS= read -r _c; do
			eval "$_c" >/dev/null 2>&1
		done <"$KB_T/.lib/cleanup"
	fi
	if [ -s "$KB_T/.lib/bgpids" ]; then
		while IFS= read -r _p; do
			kill "$_p" 2>/dev/null
		done <"$KB_T/.lib/bgpids"
	fi
	chmod -R u+rwX "$KB_T" 2>/dev/null
	rm -rf "$KB_T"
	exit "$_rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
cd "$KB_T"

# --- TAP -------------------------------------------------------------------
KB_N=0
KB_PASS=0
KB_FAIL=0
KB_SKIP=0

tap_ok() {
	KB_N=$((KB_N + 1))
	KB_PASS=$((KB_PASS + 1))
	printf 'ok %d - %s\n' "$KB_N" "$*"
}

tap_not_ok() {
	KB_N=$((KB_N + 1))
	KB_FAIL=$((KB_FAIL + 1))
	printf 'not ok %d - %s\n' "$KB_N" "$*"
}

# tap_skip DESC REASON: a skip is never a pass; with KINBOX_MUST_WORK=1 it
# is a failure.
tap_skip() {
	if [ "$KINBOX_MUST_WORK" = 1 ]; then
		tap_not_ok "$1 (skipped: $2; KINBOX_MUST_WORK=1 forbids skips)"
		return 0
	fi
	KB_N=$((KB_N + 1))
	KB_SKIP=$((KB_SKIP + 1))
	printf 'ok %d # SKIP %s: %s\n' "$KB_N" "$1" "$2"
}

diag() {
	printf '# %s\n' "$*"
}

# --- asserts (inside a test body: print why, exit the body) -------------
fail() {
	printf 'FAIL: %s\n' "$*" >&2
	exit 1
}

assert_not_reached() {
	fail "${*:-reached code that must not be reached}"
}

assert_streq() {
	[ "$1" = "$2" ] || fail "'$1' != '$2'${3:+ ($3)}"
}

assert_strne() {
	[ "$1" != "$2" ] || fail "both are '$1'${3:+ ($3)}"
}

_show_file() {
	if [ -f "$1" ]; then
		printf -- '--- %s:\n' "$1" >&2
		sed -n '1,40p' "$1" >&2
		printf -- '---\n' >&2
	fi
}

# assert_file_has_content FILE REGEX (grep -E)
assert_file_has_content() {
	if ! grep -E -q -e "$2" "$1" 2>/dev/null; then
		_show_file "$1"
		fail "$1 does not match /$2/"
	fi
}

assert_not_file_has_content() {
	if grep -E -q -e "$2" "$1" 2>/dev/null; then
		_show_file "$1"
		fail "$1 matches /$2/"
	fi
}

assert_exists() {
	[ -e "$1" ] || [ -L "$1" ] || fail "$1 does not exist"
}

assert_not_exists() {
	if [ -e "$1" ] || [ -L "$1" ]; then
		ls -ld "$1" >&2 || true
		fail "$1 exists"
	fi
}

# assert_files_equal A B: byte for byte
assert_files_equal() {
	if ! cmp -s "$1" "$2"; then
		diff -u "$1" "$2" >&2 || true
		fail "$1 and $2 differ"
	fi
}

# assert_exit CODE CMD [ARG...]: CMD exits with CODE
assert_exit() {
	_want=$1
	shift
	_got=0
	"$@" || _got=$?
	[ "$_got" = "$_want" ] || fail "exit status $_got, expected $_want: $*"
}

# assert_one_kinbox_line FILE [REGEX]: FILE (stderr) is exactly one line,
# starting "kinbox: " (and matching REGEX)
assert_one_kinbox_line() {
	_lines=$(wc -l <"$1")
	if [ "$_lines" -ne 1 ]; then
		_show_file "$1"
		fail "$1: $_lines lines, expected exactly one"
	fi
	assert_file_has_content "$1" '^kinbox: '
	if [ $# -ge 2 ]; then
		assert_file_has_content "$1" "$2"
	fi
}

# --- running kinbox --------------------------------------------------------
# kb [ARG...]: runs kinbox, stdout → $KB_OUT, stderr → $KB_ERR, status →
# $KB_RC; never fails by itself.
KB_OUT=$KB_T/.lib/out
KB_ERR=$KB_T/.lib/err
KB_RC=0
kb() {
	KB_RC=0
	"$KINBOX" "$@" >"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
}

# kb_expect CODE [ARG...]: kb, and the status must be CODE
kb_expect() {
	_want=$1
	shift
	kb "$@"
	if [ "$KB_RC" != "$_want" ]; then
		_show_file "$KB_OUT"
		_show_file "$KB_ERR"
		fail "kinbox exited $KB_RC, expected $_want: kinbox $*"
	fi
}

# --- test cases ------------------------------------------------------------
skip_test() {
	printf '%s\n' "$*" >"$KB_T/.lib/skip"
	exit 77
}

# skip_other_pass REASON: the test is about root (or about an unprivileged
# user) and this is the other pass; run-integration.sh runs every script as
# root and as an unprivileged user, so it is checked there. Not turned into
# a failure by KINBOX_MUST_WORK (which is about sandboxes that cannot be
# set up), still never counted as a pass.
skip_other_pass() {
	: >"$KB_T/.lib/rootonly"
	skip_test "$@"
}

# skip_on_landlock REASON: under KB_BACKEND=landlock, skip a test of what
# the landlock backend documents it does not provide (its --dry-run's "not
# provided (landlock)" line: a private /tmp, a pid namespace, a private
# loopback, SysV IPC, unix sockets, git guards held during the run, EROFS
# as the error, mounts such as the cache overlays); REASON says which.
# Under the default backend it does nothing. Like skip_other_pass, not
# turned into a failure by KINBOX_MUST_WORK (the sandbox was set up; the
# backend chosen lacks this by design), still never counted as a pass.
skip_on_landlock() {
	[ "$KB_BACKEND" = landlock ] || return 0
	: >"$KB_T/.lib/limitation"
	skip_test "landlock backend: $*"
}

# skip_unavailable REASON: a program the test drives is not installed here
# and could not be (tests/t82-agents.sh: an agent from the npm registry).
# Like skip_other_pass, not turned into a failure by KINBOX_MUST_WORK
# (which is about sandboxes that cannot be set up), still never counted as
# a pass; REASON should say how to install it.
skip_unavailable() {
	: >"$KB_T/.lib/limitation"
	skip_test "$@"
}

# run_test_todo WHY DESC FUNCTION [ARG...]: run_test for what is known not
# to hold yet, WHY the diagnosis. When the body fails: TAP's
# "not ok N - DESC # TODO WHY", its output shown, counted with the skipped
# (never a pass, and not a failure: a known bug is not a regression). When
# it holds: "ok N - DESC # TODO WHY" and a note that the mark can go.
run_test_todo() {
	KB_TODO_WHY=$1
	shift
	run_test "$@"
	KB_TODO_WHY=
}
KB_TODO_WHY=

# run_test DESC FUNCTION [ARG...]
run_test() {
	_desc=$1
	shift
	rm -f "$KB_T/.lib/skip" "$KB_T/.lib/rootonly" "$KB_T/.lib/limitation"
	_rc=0
	_t0=$(date +%s%N)
	set +e
	(
		set -e
		cd "$KB_T"
		"$@"
	) >"$KB_T/.lib/log" 2>&1
	_rc=$?
	set -e
	_t0=$((($(date +%s%N) - _t0) / 1000000))
	if [ "$_rc" -eq 77 ] && [ -f "$KB_T/.lib/skip" ]; then
		if [ -f "$KB_T/.lib/rootonly" ]; then
			KINBOX_MUST_WORK= tap_skip "$_desc" \
				"$(cat "$KB_T/.lib/skip") (checked in the other pass)"
		elif [ -f "$KB_T/.lib/limitation" ]; then
			KINBOX_MUST_WORK='' tap_skip "$_desc" "$(cat "$KB_T/.lib/skip")"
		else
			tap_skip "$_desc" "$(cat "$KB_T/.lib/skip")"
		fi
		return 0
	fi
	if [ -n "$KB_TODO_WHY" ]; then
		KB_N=$((KB_N + 1))
		if [ "$_rc" -eq 0 ]; then
			KB_PASS=$((KB_PASS + 1))
			printf 'ok %d - %s # TODO %s\n' "$KB_N" "$_desc" "$KB_TODO_WHY"
			diag "TODO test passes now: drop its TODO mark"
		else
			KB_SKIP=$((KB_SKIP + 1))
			printf 'not ok %d - %s # TODO %s\n' "$KB_N" "$_desc" "$KB_TODO_WHY"
		fi
	elif [ "$_rc" -eq 0 ]; then
		tap_ok "$_desc"
	else
		tap_not_ok "$_desc"
	fi
	if [ "$_rc" -ne 0 ] || [ "$KB_VERBOSE" = 1 ]; then
		sed 's/^/#   /' "$KB_T/.lib/log"
	fi
	# where a suite's time goes (the CI log): the slow tests
	if [ "$_t0" -ge $((KB_SLOW * 1000)) ]; then
		diag "$KB_N took $((_t0 / 1000)).$((_t0 % 1000 / 100)) s"
	fi
	return 0
}

# skip_all REASON: the rest of the script cannot run
skip_all() {
	diag "skipping all: $*"
	tap_skip "all tests of $(basename "$0")" "$*"
	done_testing
}

done_testing() {
	printf '1..%d\n' "$KB_N"
	printf '%d passed, %d failed, %d skipped\n' "$KB_PASS" "$KB_FAIL" \
		"$KB_SKIP"
	if [ "$KB_FAIL" -ne 0 ]; then
		exit 1
	fi
	exit 0
}

# --- helpers shared by the tests -------------------------------------------
# newdir REL: makes $KB_T/REL and prints it
newdir() {
	mkdir -p "$KB_T/$1"
	printf '%s\n' "$KB_T/$1"
}

have() {
	command -v "$1" >/dev/null 2>&1
}

# require CMD...: skip the current test when a tool is missing
require() {
	for _c in "$@"; do
		have "$_c" || skip_test "$_c is not installed"
	done
}

# mkrepo DIR: a git repository with one commit
mkrepo() {
	git init -q "$1"
	git -C "$1" commit -q --allow-empty -m init
}

# poll_for FILE [TENTHS]: wait (bounded, default 10 s) until FILE exists
poll_for() {
	_i=0
	while [ ! -e "$1" ]; do
		_i=$((_i + 1))
		[ "$_i" -le "${2:-100}" ] || return 1
		sleep 0.1
	done
	return 0
}

# assert_kinbox_said FILE LINE: FILE (stderr) is exactly one line, LINE
# (compared as a string: a refusal's whole message, paths and all)
assert_kinbox_said() {
	_lines=$(wc -l <"$1")
	if [ "$_lines" -ne 1 ] || [ "$(cat "$1")" != "$2" ]; then
		_show_file "$1"
		fail "$1 is not exactly the one line '$2'"
	fi
}

# kb_running PID: PID has not exited yet (an exited child that was not
# reaped yet, a zombie, counts as exited)
kb_running() {
	_st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
	case $_st in
	'' | Z* | X*) return 1 ;;
	esac
	return 0
}

# poll_while_running PID FILE [TENTHS]: poll_for FILE, but give up as soon
# as PID (the background kinbox whose command should create FILE) has
# exited without creating it
poll_while_running() {
	_i=0
	while [ ! -e "$2" ]; do
		if ! kb_running "$1"; then
			[ -e "$2" ]
			return
		fi
		_i=$((_i + 1))
		[ "$_i" -le "${3:-100}" ] || return 1
		sleep 0.1
	done
	return 0
}
