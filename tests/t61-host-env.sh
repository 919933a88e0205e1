#!/bin/sh
# tests/t61-host-env.sh — issue 28, finding 1: what kinbox starts outside the
# sandbox (bwrap, kinbox-exec under landlock, the probes of --status and
# kinpolicy) runs with a fixed environment and / as its working directory,
# and kinbox itself drops the caller's loader variables; the command still
# gets every variable it was given.
#
# A library planted in the workspace (as an earlier run could have) records
# every process that loads it in $RAN, a file outside every workspace (and
# read-only inside: a load inside the sandbox cannot write there). The
# library is a libcap.so.2 with the one symbol bwrap takes from libcap
# (cap_from_name), so that LD_LIBRARY_PATH finds it for bwrap, and an audit
# module (la_version) for LD_AUDIT. Each test judges from outside: $RAN
# stays empty, and, as the positive control in the same call, the command
# ran and printed the variable it was given into the workspace.
#
# Run: sh tests/t61-host-env.sh (TAP), or all: sh tests/run-integration.sh
# shellcheck disable=SC2317,SC2016,SC2164
# SC2317: the t_* bodies are called through run_test.
# SC2016: single-quoted $... is meant for the shell inside the sandbox.
# SC2164: lib.sh sets -e (test bodies run under set -e): a failed cd fails.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

unset XDG_RUNTIME_DIR XDG_CONFIG_HOME KINBOX_SESSION LD_PRELOAD \
	LD_LIBRARY_PATH LD_AUDIT || true
HOME=$KB_T/home
XDG_STATE_HOME=$KB_T/state
mkdir -p "$HOME"
export HOME XDG_STATE_HOME
RAN=$KB_T/out/PLANTED-RAN
mkdir "$KB_T/out"
chmod 777 "$KB_T/out"

if [ ! -x "$KINBOX" ]; then
	tap_not_ok "kinbox binary $KINBOX exists (build it: make kinbox kinbox-exec kinpolicy)"
	done_testing
fi
mkdir "$KB_T/preflight"
if ! (cd "$KB_T/preflight" && timeout 30 "$KINBOX" -- true) >"$KB_T/preflight.log" 2>&1; then
	diag "$(cat "$KB_T/preflight.log")"
	skip_all "kinbox cannot set up a sandbox on this host"
fi
have cc || skip_all "no C compiler to build the planted library"
have timeout || skip_all "timeout (coreutils) is not installed"

# the planted library: its constructor appends "pid exe" to $RAN
cat >"$KB_T/plant.c" <<EOF
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
__attribute__((constructor)) static void planted(void)
{
	char exe[256] = "?", line[320];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int fd = open("$RAN", O_WRONLY | O_CREAT | O_APPEND, 0666);

	if (n > 0)
		exe[n] = '\0';
	if (fd >= 0) {
		int k = snprintf(line, sizeof(line), "%d %s\n", (int)getpid(), exe);
		if (write(fd, line, (size_t)k) < 0)
			k = 0;
		close(fd);
	}
}
int cap_from_name(const char *name, unsigned *v) { (void)name; *v = 0; return 0; }
unsigned la_version(unsigned v) { return v; }
EOF
if ! cc -shared -fPIC -o "$KB_T/plant.so" "$KB_T/plant.c" 2>"$KB_T/cc.log"; then
	diag "$(cat "$KB_T/cc.log")"
	skip_all "cannot build the planted library"
fi
diag "kinbox: $KINBOX; uid $(id -u); $(bwrap --version 2>/dev/null)"

# the backends that run here: bwrap (default) and landlock when it can
BACKENDS=bwrap
if [ "$KB_BACKEND" = landlock ]; then
	BACKENDS=landlock
elif (cd "$KB_T/preflight" && timeout 30 "$KINBOX" --backend landlock -- true) >/dev/null 2>&1; then
	BACKENDS="bwrap landlock"
fi

# workspace NAME: a repository holding the plant where an earlier run could
# have written it: build/lib/libcap.so.2, ./libcap.so.2 (the working
# directory: an empty LD_LIBRARY_PATH entry), x/evil.so
workspace() {
	w=$(newdir "$1")
	mkrepo "$w"
	mkdir -p "$w/build/lib" "$w/x"
	cp "$KB_T/plant.so" "$w/build/lib/libcap.so.2"
	cp "$KB_T/plant.so" "$w/libcap.so.2"
	cp "$KB_T/plant.so" "$w/x/evil.so"
	rm -f "$RAN"
}

# judge NAME VALUE: nothing loaded the plant on the host; the command ran
# and was given NAME=VALUE (its printenv went to ./seen)
judge() {
	if [ -s "$RAN" ]; then
		cat "$RAN"
		fail "the planted library ran outside the sandbox (lines above: pid, executable)"
	fi
	[ -f "$w/seen" ] || fail "the command did not run (no ./seen in the workspace)"
	assert_streq "$(cat "$w/seen")" "$2" "$1 as the command saw it"
}

# t_route BACKEND HOW NAME VALUE: the variable from the caller's environment
# (HOW=env) or from --setenv (HOW=setenv)
t_route() {
	workspace "ws-$1-$2-$3"
	cd "$w"
	v=$(printf '%s' "$4" | sed "s|@W@|$w|g")
	if [ "$2" = env ]; then
		timeout 60 env "$3=$v" "$KINBOX" --backend "$1" -- \
			sh -c 'printenv "$0" >seen' "$3" >"$KB_T/out.log" 2>&1 || true
	else
		timeout 60 "$KINBOX" --backend "$1" --setenv "$3=$v" -- \
			sh -c 'printenv "$0" >seen' "$3" >"$KB_T/out.log" 2>&1 || true
	fi
	cat "$KB_T/out.log"
	judge "$3" "$v"
}

for b in $BACKENDS; do
	for how in env setenv; do
		run_test "$b, $how: LD_PRELOAD naming a library in the workspace loads nothing on the host; the command gets it" \
			t_route "$b" "$how" LD_PRELOAD "@W@/x/evil.so"
		run_test "$b, $how: LD_LIBRARY_PATH (absolute) into the workspace loads nothing on the host" \
			t_route "$b" "$how" LD_LIBRARY_PATH "@W@/build/lib"
		run_test "$b, $how: LD_LIBRARY_PATH (relative) loads nothing on the host" \
			t_route "$b" "$how" LD_LIBRARY_PATH "build/lib"
		run_test "$b, $how: LD_LIBRARY_PATH with an empty entry (the working directory) loads nothing on the host" \
			t_route "$b" "$how" LD_LIBRARY_PATH ":/nonexistent"
		run_test "$b, $how: LD_AUDIT naming a library in the workspace loads nothing on the host" \
			t_route "$b" "$how" LD_AUDIT "@W@/x/evil.so"
	done
done

# the processes themselves, read from outside while the command runs:
# kinbox holds no loader variable, bwrap has exactly the fixed environment
# and / as its working directory; the command has its variables
t_procs() {
	workspace ws-procs
	cd "$w"
	# env execs kinbox: $! is kinbox's pid (also after it re-executes)
	env LD_LIBRARY_PATH=build/lib LD_PRELOAD= GCONV_PATH="$w" MALLOC_TRACE="$w/mt" \
		"$KINBOX" --timeout 60s -- sh -c 'printenv LD_LIBRARY_PATH >seen; : >started; sleep 30' \
		>"$KB_T/out.log" 2>&1 &
	k=$!
	bg_register "$k"
	poll_while_running "$k" "$w/started" 150 || {
		cat "$KB_T/out.log"
		fail "the command did not start"
	}
	# kinbox (re-executed: the same pid) and its one child, bwrap
	tr '\0' '\n' <"/proc/$k/environ" >"$KB_T/kinbox.env"
	if grep -E '^(LD_|GCONV_PATH=|MALLOC_)' "$KB_T/kinbox.env"; then
		fail "kinbox's own environment keeps the loader variables above"
	fi
	grep -q '^HOME=' "$KB_T/kinbox.env" || fail "kinbox's environment lost HOME (it should drop only loader variables)"
	bw=$(cat "/proc/$k/task/$k/children")
	bw=${bw%% *}
	[ -n "$bw" ] || fail "kinbox has no child"
	env_b=$(tr '\0' ' ' <"/proc/$bw/environ")
	assert_streq "$env_b" "PATH=/usr/sbin:/usr/bin:/sbin:/bin " "bwrap's environment"
	assert_streq "$(readlink "/proc/$bw/cwd")" / "bwrap's working directory"
	kill "$k" 2>/dev/null || true
	wait "$k" 2>/dev/null || true
	judge LD_LIBRARY_PATH build/lib
}
run_test "kinbox keeps no loader variable; bwrap runs with the fixed environment in /" t_procs

# kinbox --status and kinpolicy's probes: nothing loaded, and they still
# answer (the positive control: their own output)
t_status() {
	workspace ws-status
	cd "$w"
	timeout 60 env LD_LIBRARY_PATH=:build/lib LD_PRELOAD="$w/x/evil.so" \
		"$KINBOX" --status >"$KB_T/status.out" 2>&1 || true
	grep -q 'bwrap\|bubblewrap' "$KB_T/status.out" || {
		cat "$KB_T/status.out"
		fail "kinbox --status said nothing about bubblewrap"
	}
	rm -f "$KB_T/status.out"
	[ ! -s "$RAN" ] || {
		cat "$RAN"
		fail "kinbox --status loaded the planted library on the host"
	}
}
run_test "kinbox --status's probes load nothing planted in the working directory" t_status

t_kinpolicy() {
	[ -x "$KINPOLICY" ] || skip_test "no kinpolicy binary"
	workspace ws-kp
	cd "$w"
	timeout 60 env LD_LIBRARY_PATH=:build/lib \
		"$KINPOLICY" decide --mode auto --kind shell --command 'make test' \
		>"$KB_T/kp.out" 2>&1 || true
	grep -q -E '^(ALLOW|ASK|DENY|SANDBOX)' "$KB_T/kp.out" || {
		cat "$KB_T/kp.out"
		fail "kinpolicy decide gave no verdict"
	}
	# kinpolicy itself is the caller's program (dynamically linked, it
	# loads what its own environment says): only what it starts counts
	grep -v " $KINPOLICY\$" "$RAN" 2>/dev/null | grep . &&
		fail "a process kinpolicy started loaded the planted library"
	return 0
}
run_test "kinpolicy decide's bwrap probe loads nothing planted in the working directory" t_kinpolicy

done_testing
