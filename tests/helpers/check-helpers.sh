#!/bin/sh
# tests/helpers/check-helpers.sh — a self-test of the two helpers that make
# bubblewrap fail as it does on hosts that refuse it namespaces:
#
#   kb-no-userns     seccomp: no CLONE_NEWUSER (Docker's default profile)
#                    bwrap: No permissions to create new namespace, ...
#   kb-no-procwrite  Landlock: nothing under /proc writable (what Ubuntu
#                    24.04's AppArmor userns restriction leads to)
#                    bwrap: setting up uid map: Permission denied
#
# For each helper and each of two bwrap command lines (the smallest, and
# kinbox's probe, host/bwrap-probe.c), one run of the helper starts a
# shell that writes a file, runs bwrap, records its status and writes
# another file: checked from outside, the shell ran (the positive control)
# and bwrap failed with exactly the expected message. Then ordinary work
# under each helper (files in /tmp, $HOME and /var/tmp, renames and hard
# links between directories, /dev/null, fork, threads), the mechanism
# itself (unshare -U refused; /proc/self/comm not writable) and the usage
# error.
#
# Run: make helpers && sh tests/helpers/check-helpers.sh (TAP). As root it
# runs again as an unprivileged user from a copy under /var/tmp, as
# tests/run-integration.sh does (KB_TEST_USER, default kinbox-test, made
# with useradd when missing; KB_NO_UNPRIVILEGED=1 skips that pass).
# KB_HELPERS_DIR: where the helpers are (default: beside this script).
# The ordinary-work test writes one file in $HOME (another top-level tree
# than /var/tmp, as for a real user) and removes it.
# shellcheck disable=SC2317,SC2016
# SC2317: the t_* bodies are called through run_test.
# SC2016: single-quoted $... is meant for the shell the helper starts.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

H=${KB_HELPERS_DIR:-$KB_TESTS_DIR}
NO_USERNS=$H/kb-no-userns
NO_PROCWRITE=$H/kb-no-procwrite
for _h in "$NO_USERNS" "$NO_PROCWRITE"; do
	if [ ! -x "$_h" ]; then
		tap_not_ok "$_h is built (make helpers)"
		done_testing
	fi
done

SMALL="--unshare-user --ro-bind / / -- /bin/true"
PROBE="--unshare-user --unshare-pid --unshare-net --ro-bind / / --dev /dev --proc /proc -- /bin/true"
USERNS_RE='^bwrap: No permissions to create new namespace'
PROCWRITE_LINE='bwrap: setting up uid map: Permission denied'

have bwrap || skip_all "bwrap is not installed"
for _a in "$SMALL" "$PROBE"; do
	# shellcheck disable=SC2086 # the command line, split
	if ! bwrap $_a >"$KB_T/baseline.err" 2>&1; then
		diag "bwrap $_a: $(head -n 1 "$KB_T/baseline.err")"
		skip_all "bwrap fails here even without a helper"
	fi
done
diag "as $(id -un 2>/dev/null || id -u) ($(id -u)), $(bwrap --version)"

# bwrap_under HELPER ARGS: one helper run; the shell it starts writes
# $d/before, runs bwrap ARGS (stderr to $d/err, status to $d/rc) and writes
# $d/after. Sets d.
bwrap_under() {
	d=$(mktemp -d "$KB_T/run.XXXXXX")
	# shellcheck disable=SC2086 # ARGS: words by design
	"$1" -- sh -c 'd=$0; echo ok >"$d/before"
		bwrap "$@" 2>"$d/err"; echo $? >"$d/rc"
		echo ok >"$d/after"' "$d" $2 ||
		fail "$1 exited $?"
	assert_file_has_content "$d/before" '^ok$'
	assert_file_has_content "$d/after" '^ok$'
	[ "$(cat "$d/rc")" != 0 ] || fail "bwrap succeeded under $1"
	diag "bwrap $2 under $(basename "$1") (exit $(cat "$d/rc")): $(head -n 1 "$d/err")"
}

t_userns() {
	bwrap_under "$NO_USERNS" "$1"
	assert_streq "$(wc -l <"$d/err")" 1 "bwrap's stderr is one line"
	assert_file_has_content "$d/err" "$USERNS_RE"
}
run_test "kb-no-userns: the shell runs, bwrap (smallest sandbox) says No permissions to create new namespace" t_userns "$SMALL"
run_test "kb-no-userns: the shell runs, bwrap (kinbox's probe) says No permissions to create new namespace" t_userns "$PROBE"

t_procwrite() {
	bwrap_under "$NO_PROCWRITE" "$1"
	assert_streq "$(cat "$d/err")" "$PROCWRITE_LINE" "bwrap's whole stderr"
}
run_test "kb-no-procwrite: the shell runs, bwrap (smallest sandbox) says setting up uid map: Permission denied" t_procwrite "$SMALL"
run_test "kb-no-procwrite: the shell runs, bwrap (kinbox's probe) says setting up uid map: Permission denied" t_procwrite "$PROBE"

# ordinary work under HELPER: every step leaves a file checked from outside
t_ordinary() {
	d=$(newdir "work-$(basename "$1")")
	mkdir "$d/a" "$d/b"
	hf=$HOME/.kb-helpers-check.$$
	tf=/tmp/kb-helpers-check.$$
	cleanup_add "rm -f '$hf' '$hf.mv' '$hf.g' '$tf'"
	"$1" -- sh -c 'set -e
		d=$1 hf=$2 tf=$3
		echo tmp >"$tf"
		echo home >"$hf"
		mv "$hf" "$hf.mv"
		echo x >/dev/null
		echo f >"$d/a/f"
		mv "$d/a/f" "$d/b/f"
		echo g >"$d/g"; mv "$d/g" "$hf.g"
		ln "$d/b/f" "$d/a/link"
		mkdir "$d/c"; mkfifo "$d/c/p"; ln -s f "$d/b/sym"
		: >"$d/b/f"
		(echo child >"$d/child") & wait
		echo done >"$d/done"' sh "$d" "$hf" "$tf" ||
		fail "the shell under $1 failed"
	assert_file_has_content "$d/done" '^done$'
	assert_file_has_content "$tf" '^tmp$'
	assert_file_has_content "$hf.mv" '^home$'
	assert_file_has_content "$hf.g" '^g$'
	assert_not_exists "$d/a/f"
	assert_exists "$d/b/f"
	assert_exists "$d/a/link"
	[ -p "$d/c/p" ] || fail "no fifo $d/c/p"
	[ -L "$d/b/sym" ] || fail "no symlink $d/b/sym"
	[ ! -s "$d/b/f" ] || fail "$d/b/f was not truncated"
	assert_file_has_content "$d/child" '^child$'
	if have python3; then
		"$1" -- python3 -c 'import sys, threading
t = threading.Thread(target=lambda: open(sys.argv[1], "w").write("thread\n"))
t.start(); t.join()' "$d/thread" || fail "python3 under $1"
		assert_file_has_content "$d/thread" '^thread$'
	fi
}
run_test "kb-no-userns: ordinary work (/tmp, \$HOME, /var/tmp, renames and links between directories, fork, threads)" t_ordinary "$NO_USERNS"
run_test "kb-no-procwrite: ordinary work (/tmp, \$HOME, /var/tmp, renames and links between directories, fork, threads)" t_ordinary "$NO_PROCWRITE"

t_mechanism_userns() {
	require unshare
	unshare -U true || skip_test "unshare -U fails here even without the helper"
	_rc=0
	"$NO_USERNS" -- unshare -U true 2>"$KB_T/unshare.err" || _rc=$?
	[ "$_rc" != 0 ] || fail "unshare -U succeeded under kb-no-userns"
	assert_file_has_content "$KB_T/unshare.err" 'Operation not permitted'
	# the helper alone: the other namespaces are not its business
	"$NO_USERNS" -- sh -c 'echo ran >"$1"' sh "$KB_T/ran"
	assert_file_has_content "$KB_T/ran" '^ran$'
}
run_test "kb-no-userns: unshare(CLONE_NEWUSER) fails with EPERM" t_mechanism_userns

t_mechanism_procwrite() {
	sh -c 'echo kbself >/proc/self/comm' ||
		skip_test "/proc/self/comm is not writable even without the helper"
	_rc=0
	"$NO_PROCWRITE" -- sh -c 'echo kbself >/proc/self/comm' \
		2>"$KB_T/comm.err" || _rc=$?
	[ "$_rc" != 0 ] || fail "/proc/self/comm was writable under kb-no-procwrite"
	assert_file_has_content "$KB_T/comm.err" 'Permission denied'
	# and a user namespace can still be made: only its map is out of reach
	if have unshare && unshare -U true 2>/dev/null; then
		"$NO_PROCWRITE" -- unshare -U sh -c 'echo ran >"$1"' sh "$KB_T/ns"
		assert_file_has_content "$KB_T/ns" '^ran$'
	fi
}
run_test "kb-no-procwrite: /proc/self/comm cannot be written (EACCES); unshare -U still works" t_mechanism_procwrite

# --no-landlock: landlock_create_ruleset fails with ENOSYS (python's
# syscall(), libc only); without the option it does not
t_mechanism_nolandlock() {
	require python3
	_probe='import ctypes,sys; l=ctypes.CDLL(None, use_errno=True); r=l.syscall(444, None, 0, 1); print(r, ctypes.get_errno())'
	_plain=$(python3 -c "$_probe")
	case $_plain in
	"-1 38") skip_test "Landlock is not available here even without the helper" ;;
	esac
	_got=$("$NO_USERNS" --no-landlock -- python3 -c "$_probe")
	assert_streq "$_got" "-1 38" "landlock_create_ruleset under --no-landlock"
	_got=$("$NO_USERNS" -- python3 -c "$_probe")
	assert_streq "$_got" "$_plain" "landlock_create_ruleset without --no-landlock"
}
run_test "kb-no-userns --no-landlock: the Landlock calls fail with ENOSYS" t_mechanism_nolandlock

# assert_usage_line FILE NAME: FILE is NAME's one usage line
assert_usage_line() {
	case $2 in
	kb-no-userns) _u="usage: $2 [--no-landlock] -- CMD [ARG...]" ;;
	*) _u="usage: $2 -- CMD [ARG...]" ;;
	esac
	assert_streq "$(cat "$1")" "$_u" "the usage line"
}

t_usage() {
	for _h in "$NO_USERNS" "$NO_PROCWRITE"; do
		assert_exit 125 "$_h" 2>"$KB_T/usage.err"
		assert_usage_line "$KB_T/usage.err" "$(basename "$_h")"
		assert_exit 125 "$_h" true 2>"$KB_T/usage.err"
		assert_usage_line "$KB_T/usage.err" "$(basename "$_h")"
		assert_exit 127 "$_h" -- /nonexistent/kb 2>/dev/null
	done
}
run_test "both: a usage error exits 125 with one line; a missing command 127" t_usage

# --- as root, again as an unprivileged user ---------------------------------
unprivileged_pass() {
	user=${KB_TEST_USER:-kinbox-test}
	if ! id "$user" >/dev/null 2>&1; then
		useradd --create-home --shell /bin/sh \
			--comment "kinbox integration tests" "$user" \
			>/dev/null 2>&1 || true
	fi
	if ! id "$user" >/dev/null 2>&1 || ! have setpriv; then
		tap_skip "the unprivileged pass" "no user $user or no setpriv"
		return 0
	fi
	stage=$KB_T/stage
	mkdir -p "$stage/tests/helpers" "$stage/home"
	cp "$KB_TESTS_DIR/../lib.sh" "$stage/tests/"
	cp "$KB_TESTS_DIR/check-helpers.sh" "$NO_USERNS" "$NO_PROCWRITE" \
		"$stage/tests/helpers/"
	chmod -R a+rX "$stage"
	chown "$user:" "$stage/home"
	# its own home when it has one (a file is written there and removed):
	# another top-level tree than /var/tmp, as for a real user
	uhome=$(getent passwd "$user" | cut -d: -f6)
	if [ -z "$uhome" ] || [ ! -d "$uhome" ] ||
		[ "$(stat -c %u "$uhome")" != "$(id -u "$user")" ]; then
		uhome=$stage/home
	fi
	diag "unprivileged pass as $user ($(id -u "$user")), from $stage"
	_rc=0
	(cd "$stage" && setpriv --reuid="$user" --regid="$user" --init-groups \
		env -i HOME="$uhome" USER="$user" LOGNAME="$user" \
		PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
		KB_VERBOSE="$KB_VERBOSE" KINBOX_MUST_WORK="$KINBOX_MUST_WORK" \
		sh tests/helpers/check-helpers.sh) >"$KB_T/unpriv.log" 2>&1 ||
		_rc=$?
	sed 's/^/# '"$user"': /' "$KB_T/unpriv.log"
	if [ "$_rc" -eq 0 ]; then
		tap_ok "the unprivileged pass as $user: $(tail -n 1 "$KB_T/unpriv.log")"
	else
		tap_not_ok "the unprivileged pass as $user: $(tail -n 1 "$KB_T/unpriv.log")"
	fi
}
if [ "$(id -u)" -eq 0 ] && [ "${KB_NO_UNPRIVILEGED:-}" != 1 ]; then
	unprivileged_pass
fi

done_testing
