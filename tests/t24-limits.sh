#!/bin/sh
# tests/t24-limits.sh — the limits of a run, each checked from outside the
# sandbox with a positive control in the same test:
#   1. --timeout: the whole sandbox is stopped (SIGTERM, SIGKILL after
#      --kill-after), kinbox exits 124 with one line, and no process of it
#      is left in the host's process list;
#   2. --rlimit: nproc stops a bounded fork bomb (per user: root is exempt,
#      which the root pass says), fsize stops a large write (the host file
#      is no bigger than the limit), nofile reaches the command;
#   3. --setenv reaches the command after the scrub, and --dry-run names
#      the variable, never its value;
#   4. a project .kinbox.ini may only tighten a timeout or a limit.
#
# Run: sh tests/t24-limits.sh (TAP), or all suites: sh tests/run-integration.sh
# shellcheck disable=SC2317,SC2016,SC2164
# SC2317: the t_* bodies are called through run_test.
# SC2016: single-quoted $... is meant for the shell inside the sandbox.
# SC2164: lib.sh sets -e (test bodies run under set -e): a failed cd fails.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

# never the caller's stores
XDG_CONFIG_HOME=$KB_T/config
XDG_STATE_HOME=$KB_T/state
XDG_RUNTIME_DIR=$KB_T/run
mkdir -p "$XDG_CONFIG_HOME" "$XDG_STATE_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
export XDG_CONFIG_HOME XDG_STATE_HOME XDG_RUNTIME_DIR
unset KINBOX_SESSION KINBOX_JSON_FD GITHUB_TOKEN || true

if [ ! -x "$KINBOX" ]; then
	tap_not_ok "kinbox binary $KINBOX exists (build it: make all)"
	done_testing
fi
mkdir "$KB_T/preflight"
if ! (cd "$KB_T/preflight" && "$KINBOX" -- true) >"$KB_T/preflight.log" 2>&1; then
	diag "$(cat "$KB_T/preflight.log")"
	skip_all "kinbox cannot set up a sandbox on this host"
fi
diag "kinbox: $KINBOX; uid $(id -u); kernel $(uname -r)"

# a marker no other process on the host carries: sleep takes a fraction,
# so "sleep 100.<marker>" is a sleeper the host's process list can name
MARK=$$$(od -An -N3 -tu4 /dev/urandom | tr -d ' ')
# left: the host's processes whose command line holds PATTERN
left() {
	pgrep -f "$1" || true
}

# ============================================================================
# 1. --timeout
# ============================================================================

t_timeout() {
	ws=$(newdir timeout)
	cd "$ws"
	m="^sleep 100\.${MARK}"
	# three sleepers: the command's own, one in the background and one
	# in a new session (no shell's job any more); the marker file says
	# they were all started
	start=$(date +%s)
	"$KINBOX" --timeout 2s -- sh -c "sleep 100.${MARK}1 & setsid sleep 100.${MARK}2 & : >started; sleep 100.${MARK}3" \
		>"$KB_T/to.out" 2>"$KB_T/to.err" &
	kpid=$!
	bg_register "$kpid"
	poll_while_running "$kpid" "$ws/started" || fail "the command never started"
	sleep 0.3
	# positive control: while it runs, the host sees its sleepers
	n=$(left "$m" | wc -l)
	[ "$n" -eq 3 ] || fail "expected 3 sleepers of the run while it runs, saw $n"
	rc=0
	wait "$kpid" || rc=$?
	end=$(date +%s)
	[ "$rc" = 124 ] || { _show_file "$KB_T/to.err"; fail "exit $rc, expected 124"; }
	[ $((end - start)) -le 8 ] || fail "took $((end - start)) s for a 2 s timeout"
	assert_one_kinbox_line "$KB_T/to.err" 'ran out of its --timeout 2s and was stopped'
	assert_not_file_has_content "$KB_T/to.err" 'denied'
	# no process of the run is left on the host
	sleep 0.2
	[ -z "$(left "$m")" ] || fail "left running after the timeout: $(left "$m")"
}
run_test "--timeout 2s: a sleep 100 (and its background and setsid sleepers) ends in about 2 s with 124 and one kinbox line, no denial; no process of it is left on the host (control: all 3 were running before)" t_timeout

t_timeout_kill_after() {
	ws=$(newdir killafter)
	cd "$ws"
	m="^sleep 100\.${MARK}9"
	start=$(date +%s)
	kb_expect 124 --timeout 1s --kill-after 1s -- sh -c "trap '' TERM; : >started; sleep 100.${MARK}9"
	end=$(date +%s)
	assert_exists "$ws/started"
	# SIGTERM is ignored: the SIGKILL a second later ends it
	[ $((end - start)) -ge 2 ] || fail "ended after $((end - start)) s: before --kill-after"
	[ $((end - start)) -le 6 ] || fail "took $((end - start)) s (timeout 1s, kill-after 1s)"
	[ -z "$(left "$m")" ] || fail "left running after the SIGKILL: $(left "$m")"
	# control: a command that ends in time keeps its own status
	kb_expect 3 --timeout 30s -- sh -c 'exit 3'
}
run_test "--timeout 1s --kill-after 1s: a command that ignores SIGTERM is killed a second later, exit 124, nothing left; control: a command that ends in time keeps its status" t_timeout_kill_after

# ============================================================================
# 2. --rlimit
# ============================================================================

# the bounded bomb: forks up to $1 sleepers (each named kbbomb-MARK,
# sleeping 30 s), counts the forks that fail, prints "forked=N failed=M"
# to ./bomb, then exits (its sandbox ends the sleepers with it)
BOMB='my ($n, $ok, $bad) = ($ARGV[0], 0, 0);
for (1 .. $n) {
	my $p = fork();
	if (!defined $p) { $bad++; next; }
	if ($p == 0) { $0 = "kbbomb-'"$MARK"'"; sleep 30; exit 0; }
	$ok++;
}
open(my $f, ">", "bomb") or die; print $f "forked=$ok failed=$bad\n"; close $f;'

t_nproc() {
	require perl
	ws=$(newdir nproc)
	cd "$ws"
	# control: without a limit the bomb forks all it asks for
	kb_expect 0 --timeout 60s -- perl -e "$BOMB" 50
	assert_file_has_content bomb '^forked=50 failed=0$'
	n=300
	[ "$(id -u)" = 0 ] || n=2000
	kb --timeout 60s --rlimit nproc=100 -- perl -e "$BOMB" "$n"
	[ "$KB_RC" = 0 ] || { _show_file "$KB_ERR"; fail "exit $KB_RC"; }
	forked=$(sed -n 's/^forked=\([0-9]*\) .*/\1/p' bomb)
	failed=$(sed -n 's/.* failed=\([0-9]*\)$/\1/p' bomb)
	diag "nproc=100, $n forks asked: forked=$forked failed=$failed (uid $(id -u))"
	if [ "$(id -u)" = 0 ] && [ "$failed" = 0 ]; then
		skip_other_pass "as root RLIMIT_NPROC is not enforced (uid 0 and CAP_SYS_RESOURCE are exempt): nproc=100 let all $n forks through"
	fi
	[ "$failed" -gt 0 ] || fail "no fork failed under nproc=100"
	[ "$forked" -lt 100 ] || fail "$forked forks succeeded under nproc=100"
	sleep 0.2
	[ -z "$(left "kbbomb-$MARK")" ] || fail "sleepers of the bomb left: $(left "kbbomb-$MARK" | wc -l)"
}
run_test "--rlimit nproc=100: a bounded fork bomb (2000 sleepers) gets fewer than 100 and its forks fail, the machine stays up and nothing is left (control: 50 forks without it all succeed; as root RLIMIT_NPROC does not bind: said, and checked in the unprivileged pass)" t_nproc

t_fsize() {
	ws=$(newdir fsize)
	cd "$ws"
	# control: without a limit the whole megabyte lands
	kb_expect 0 -- sh -c 'head -c 1048576 /dev/zero >big'
	[ "$(wc -c <big)" -eq 1048576 ] || fail "control: big is $(wc -c <big) bytes"
	rm big
	kb --rlimit fsize=64k -- sh -c 'head -c 1048576 /dev/zero >big'
	[ "$KB_RC" != 0 ] || fail "the write past the limit succeeded"
	size=$(wc -c <big)
	[ "$size" -le 65536 ] || fail "big is $size bytes, over fsize=64k"
	[ "$size" -gt 0 ] || fail "nothing was written below the limit"
}
run_test "--rlimit fsize=64k: a 1 MiB write fails (SIGXFSZ) and the host file is at most 64 KiB (control: without it the whole MiB lands)" t_fsize

t_nofile_and_refusals() {
	ws=$(newdir nofile)
	cd "$ws"
	kb_expect 0 --rlimit nofile=64 --rlimit cpu=1m -- sh -c 'ulimit -n >n; ulimit -t >t'
	assert_file_has_content n '^64$'
	assert_file_has_content t '^60$'
	# refused before anything runs
	kb_expect 125 --rlimit nproc=unlimited -- sh -c ': >ran'
	assert_one_kinbox_line "$KB_ERR" 'only lowers a limit'
	kb_expect 125 --rlimit stack=1m -- sh -c ': >ran'
	assert_one_kinbox_line "$KB_ERR" 'NAME one of as, core, cpu'
	assert_not_exists ran
}
run_test "--rlimit nofile=64, cpu=1m reach the command (ulimit -n, -t); unlimited and an unknown name are refused with 125 and nothing runs" t_nofile_and_refusals

# ============================================================================
# 3. --setenv
# ============================================================================

t_setenv() {
	ws=$(newdir setenv)
	cd "$ws"
	v=kbval$MARK
	# control: the caller's token is scrubbed
	GITHUB_TOKEN=callersecret$MARK kb_expect 0 -- sh -c 'printf "[%s]\n" "${GITHUB_TOKEN-unset}" >plain'
	assert_file_has_content plain '^\[unset\]$'
	GITHUB_TOKEN=callersecret$MARK kb_expect 0 --setenv "GITHUB_TOKEN=$v" --setenv KB_T87=one --setenv KB_T87=two -- \
		sh -c 'printf "%s\n" "$GITHUB_TOKEN" "$KB_T87" >set; env >envdump'
	assert_file_has_content set "^$v\$"
	assert_file_has_content set '^two$'
	assert_not_file_has_content envdump "callersecret$MARK"
	[ "$(grep -c '^KB_T87=' envdump)" = 1 ] || fail "KB_T87 set more than once"
	# --dry-run names it, without its value
	GITHUB_TOKEN=callersecret$MARK kb_expect 0 --dry-run --setenv "GITHUB_TOKEN=$v" -- true
	assert_file_has_content "$KB_OUT" '^# env: set by --setenv .after the scrub.: GITHUB_TOKEN$'
	assert_not_file_has_content "$KB_OUT" "$v"
	kb_expect 125 --setenv KINBOX_ACTIVE=none -- true
	assert_one_kinbox_line "$KB_ERR" "kinbox's own variables"
}
run_test "--setenv GITHUB_TOKEN=v reaches the command while the caller's GITHUB_TOKEN does not (control: scrubbed without it); the last of a name wins; --dry-run names it, not its value; KINBOX_* refused" t_setenv

# ============================================================================
# 4. the project file may only tighten
# ============================================================================

t_project() {
	ws=$(newdir project)
	cd "$ws"
	printf '[sandbox]\ntimeout = 1s\nrlimit = nofile=32\n' >.kinbox.ini
	start=$(date +%s)
	kb_expect 124 --timeout 1h --rlimit nofile=64 -- sh -c 'ulimit -n >n; sleep 100'
	end=$(date +%s)
	assert_file_has_content n '^32$'
	[ $((end - start)) -le 6 ] || fail "the project's 1s timeout did not apply"
	# a project cannot loosen: a longer timeout, a higher limit are kept
	printf '[sandbox]\ntimeout = 1h\nrlimit = nofile=512\n' >.kinbox.ini
	start=$(date +%s)
	kb_expect 124 --timeout 1s --rlimit nofile=48 -- sh -c 'ulimit -n >n; sleep 100'
	end=$(date +%s)
	assert_file_has_content n '^48$'
	[ $((end - start)) -le 6 ] || fail "the project's 1h lengthened the typed 1s"
}
run_test "a project .kinbox.ini's timeout and rlimit tighten the typed ones (1s over 1h, nofile=32 over 64) and never loosen them (1h, 512 do not replace 1s, 48)" t_project

done_testing
