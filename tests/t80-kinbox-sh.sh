#!/bin/sh
# tests/t80-kinbox-sh.sh — kinbox-sh, the sh-compatible shim (kinbox-sh(1)):
# -c CMD and its arguments, sh's -e/-x/-u/-l, a script, stdin, make
# SHELL=kinbox-sh, KINBOX_SH_FLAGS, the refusals (125, nothing ran) and
# finding kinbox (beside it, on PATH, 127, 126). Each effect is checked
# from outside the sandbox, with a positive control in the same test: a
# write in the workspace lands, one outside it does not.
#
# kinbox-sh runs the kinbox beside itself: the tests run a copy of it in a
# directory of their own, beside a link to $KINBOX, so that it runs the
# kinbox under test (the stub, under make stub-check).
#
# Run: sh tests/t80-kinbox-sh.sh (TAP), or all suites: sh tests/run-integration.sh
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
unset KINBOX_SESSION KINBOX_JSON_FD KINBOX_SH_FLAGS || true
SYSPATH=/usr/local/bin:/usr/bin:/bin

if [ ! -x "$KINBOX" ]; then
	tap_not_ok "kinbox binary $KINBOX exists (build it: make all)"
	done_testing
fi
# the kinbox-sh under test: beside $KINBOX (an install, the unprivileged
# pass's stage), else the build tree's
KSH_SRC=$(dirname "$KINBOX")/kinbox-sh
[ -x "$KSH_SRC" ] || KSH_SRC=$KB_TESTS_DIR/../kinbox-sh
if [ ! -x "$KSH_SRC" ]; then
	tap_not_ok "kinbox-sh binary exists beside $KINBOX or in the tree (build it: make all)"
	done_testing
fi
mkdir "$KB_T/shbin"
cp "$KSH_SRC" "$KB_T/shbin/kinbox-sh"
ln -s "$KINBOX" "$KB_T/shbin/kinbox"
KSH=$KB_T/shbin/kinbox-sh

mkdir "$KB_T/preflight"
if ! (cd "$KB_T/preflight" && "$KINBOX" -- true) >"$KB_T/preflight.log" 2>&1; then
	diag "$(cat "$KB_T/preflight.log")"
	skip_all "kinbox cannot set up a sandbox on this host"
fi
diag "kinbox: $KINBOX; kinbox-sh: $KSH_SRC; uid $(id -u); kernel $(uname -r)"

# ksh [ARG...]: kinbox-sh from the workspace $ws, stdin /dev/null; stdout
# → $KB_OUT, stderr → $KB_ERR, status → $KB_RC
ksh() {
	KB_RC=0
	(cd "$ws" && "$KSH" "$@") </dev/null >"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
}

# setup NAME: a workspace $ws and a directory $out outside it, both
# writable on the host
setup() {
	ws=$(newdir "$1/ws")
	out=$(newdir "$1/out")
	[ -w "$out" ] || fail "control: $out is writable outside the sandbox"
}

# want_rc CODE WHAT
want_rc() {
	if [ "$KB_RC" != "$1" ]; then
		_show_file "$KB_OUT"
		_show_file "$KB_ERR"
		fail "exit status $KB_RC, expected $1 ($2)"
	fi
}

t_c() {
	setup c
	ksh -c 'echo hi >f; touch "$1/x"; touch /etc/kbsh-x-$$' sh "$out"
	want_rc 1 "touch's status, as sh gives it"
	assert_file_has_content "$ws/f" '^hi$'
	assert_not_exists "$out/x"
	assert_file_has_content "$KB_ERR" 'touch: cannot touch'
	for f in /etc/kbsh-x-*; do
		assert_not_exists "$f"
	done
	# control: the same command outside kinbox-sh writes there
	sh -c 'touch "$1/x"' sh "$out"
	assert_exists "$out/x"
}
run_test "kinbox-sh -c CMD runs CMD sandboxed: the workspace file is written, a directory outside it and /etc are not, exit status touch's 1; control: outside, the write lands" t_c

t_status() {
	setup status
	for n in 0 1 7 42 125 126 127; do
		ksh -c "echo ran-$n >f$n; exit $n"
		want_rc "$n" "exit $n"
		assert_file_has_content "$ws/f$n" "^ran-$n\$"
	done
	# killed by a signal: 128+N, as sh and kinbox say it
	ksh -c 'echo ran >fk; kill -TERM $$'
	want_rc 143 "kill -TERM \$\$"
	assert_file_has_content "$ws/fk" '^ran$'
}
run_test "the exit status passes through (exit 0, 1, 7, 42, 125, 126, 127; SIGTERM 143); control: each wrote its file" t_status

t_args() {
	setup args
	ksh -c 'echo "$0 $1" >f' a0 a1
	want_rc 0 "args"
	assert_streq "$(cat "$ws/f")" "a0 a1"
	# no word is quoted or split again on the way
	ksh -c 'printf "[%s]\n" "$0" "$@" >g; printf "%s" "$#" >n' \
		'zero x' 'a b' '$HOME' "'q'" '"d"' '' '*' ';echo hacked >h'
	want_rc 0 "args with blanks and shell syntax"
	printf '[%s]\n' 'zero x' 'a b' '$HOME' "'q'" '"d"' '' '*' \
		';echo hacked >h' >"$KB_T/args.want"
	assert_files_equal "$KB_T/args.want" "$ws/g"
	assert_streq "$(cat "$ws/n")" 7
	assert_not_exists "$ws/h"
	# -c without a $0: sh's own
	ksh -c 'echo "$#" >m'
	assert_file_has_content "$ws/m" '^0$'
}
run_test "kinbox-sh -c 'echo \"\$0 \$1\" >f' a0 a1: f holds 'a0 a1'; words with blanks, quotes, \$, * and ; arrive as they were" t_args

t_shopts() {
	setup shopts
	# control: without -e the command goes on after false
	ksh -c 'false; echo went-on >f0'
	want_rc 0 "no -e"
	assert_file_has_content "$ws/f0" '^went-on$'
	for o in "-e -c" "-ec" "-ce" "-le -c" "-e -lc"; do
		n=$(printf '%s' "$o" | tr -d ' -')
		# shellcheck disable=SC2086 # the option words
		ksh $o "echo before >b$n; false; echo went-on >f$n"
		want_rc 1 "$o: false stops the shell"
		assert_file_has_content "$ws/b$n" '^before$'
		assert_not_exists "$ws/f$n"
	done
	ksh -xc 'echo traced >fx'
	want_rc 0 "-xc"
	assert_file_has_content "$ws/fx" '^traced$'
	assert_file_has_content "$KB_ERR" '^\+ echo traced'
	ksh -u -c 'echo "$kb_unset_var" >fu; echo no >fu2'
	assert_strne "$KB_RC" 0 "-u: an unset variable is an error"
	assert_not_exists "$ws/fu2"
	ksh -lc 'echo login >fl'
	want_rc 0 "-lc"
	assert_file_has_content "$ws/fl" '^login$'
	# a command string that starts with -, after --
	ksh -c -- '-kbx-nosuch 2>/dev/null; echo dashed >fd'
	want_rc 0 "-c -- -CMD"
	assert_file_has_content "$ws/fd" '^dashed$'
}
run_test "sh's options: -e -c, -ec, -ce, -le -c, -e -lc stop at false; -xc traces; -u refuses an unset variable; -lc runs (not a login shell); -c -- -CMD; control: without -e it goes on" t_shopts

t_script() {
	setup script
	printf 'echo "$0:$1" >f\necho x >"$2/y"\necho after >g\n' >"$ws/s.sh"
	ksh s.sh arg1 "$out"
	want_rc 0 "the script's last status"
	assert_file_has_content "$ws/f" '^s\.sh:arg1$'
	assert_file_has_content "$ws/g" '^after$'
	assert_not_exists "$out/y"
	printf 'echo one >f1\nfalse\necho two >f2\n' >"$ws/e.sh"
	ksh -e e.sh
	want_rc 1 "-e SCRIPT"
	assert_file_has_content "$ws/f1" '^one$'
	assert_not_exists "$ws/f2"
	# a script read from stdin (not a terminal: no -i)
	KB_RC=0
	(cd "$ws" && printf 'echo piped >p\necho x >"%s/z"\necho $? >p2\n' \
		"$out" | "$KSH") >"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	want_rc 0 "stdin: the last command's status"
	assert_file_has_content "$ws/p" '^piped$'
	assert_file_has_content "$ws/p2" '^[1-9]'
	assert_not_exists "$out/z"
}
run_test "kinbox-sh SCRIPT ARGS, -e SCRIPT and commands on stdin run sandboxed: workspace files written, a directory outside not" t_script

t_make() {
	require make
	setup make
	cat >"$ws/Makefile" <<EOF
all: inside outside
inside:
	echo in >made-in
	echo "\$\$0" >shell-name
outside:
	echo out >$out/made-out
EOF
	KB_RC=0
	(cd "$ws" && make -s SHELL="$KSH" inside) </dev/null >"$KB_OUT" \
		2>"$KB_ERR" || KB_RC=$?
	want_rc 0 "make inside"
	assert_file_has_content "$ws/made-in" '^in$'
	assert_file_has_content "$ws/shell-name" '^/bin/sh$'
	KB_RC=0
	(cd "$ws" && make -s SHELL="$KSH" outside) </dev/null >"$KB_OUT" \
		2>"$KB_ERR" || KB_RC=$?
	want_rc 2 "make outside: the recipe failed"
	assert_not_exists "$out/made-out"
	# control: make with its own shell writes there
	(cd "$ws" && make -s outside) </dev/null >/dev/null 2>&1
	assert_file_has_content "$out/made-out" '^out$'
}
run_test "make SHELL=kinbox-sh: a recipe writes in the workspace (run by /bin/sh), one writing outside fails (make exits 2) and wrote nothing; control: plain make writes there" t_make

t_refused() {
	setup refused
	u="kinbox-sh takes sh's -c CMD (and -e, -x, -u)"
	for o in -Z -i -o +e -cZ -eZc; do
		case $o in
		+e) bad=+e ;;
		*) bad=-$(printf '%s' "$o" | sed 's/^-[cel]*//' | cut -c1) ;;
		esac
		ksh "$o" -c 'echo ran >f' pipefail
		want_rc 125 "$o"
		assert_kinbox_sh_said "$bad: unsupported option; $u"
		assert_not_exists "$ws/f"
	done
	ksh -c
	want_rc 125 "-c without a command string"
	assert_kinbox_sh_said "-c: a command string is needed; $u"
	KB_RC=0
	(cd "$ws" && KINBOX_SH_FLAGS="--net $ws/evil" "$KSH" -c 'echo ran >f') \
		</dev/null >"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	want_rc 125 "KINBOX_SH_FLAGS with a word that is not an option"
	assert_kinbox_sh_said "KINBOX_SH_FLAGS: '$ws/evil' is not an option; give kinbox options only, a value joined to its option (--write=/x)"
	assert_not_exists "$ws/f"
	KB_RC=0
	(cd "$ws" && KINBOX_SH_FLAGS="-- true" "$KSH" -c 'echo ran >f') \
		</dev/null >"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	want_rc 125 "KINBOX_SH_FLAGS=--"
	assert_kinbox_sh_said "KINBOX_SH_FLAGS: '--' would end kinbox's options there; give kinbox options only"
	assert_not_exists "$ws/f"
	# control: the same command, the options taken, runs
	ksh -ec 'echo ran >f'
	want_rc 0 "-ec"
	assert_file_has_content "$ws/f" '^ran$'
}
# assert_kinbox_sh_said LINE: $KB_ERR is exactly LINE after "kinbox-sh: "
assert_kinbox_sh_said() {
	if [ "$(wc -l <"$KB_ERR")" -ne 1 ] ||
		[ "$(cat "$KB_ERR")" != "kinbox-sh: $1" ]; then
		_show_file "$KB_ERR"
		fail "stderr is not exactly the one line 'kinbox-sh: $1'"
	fi
	[ ! -s "$KB_OUT" ] || fail "stdout is not empty"
}
run_test "refused: -Z, -i, -o, +e, -cZ, -eZc, -c alone, KINBOX_SH_FLAGS with a non-option word or --: 125, one line, nothing ran; control: -ec runs" t_refused

t_flags() {
	setup flags
	KB_RC=0
	(cd "$ws" && KINBOX_SH_FLAGS="--net --dry-run" "$KSH" -c 'echo ran >f') \
		</dev/null >"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	want_rc 0 "--dry-run"
	assert_file_has_content "$KB_OUT" '^# network: on'
	assert_file_has_content "$KB_OUT" '^# network set by: --net$'
	# the command, last in the plan: /bin/sh -c CMD
	tail -n 3 "$KB_OUT" >"$KB_T/flags.tail"
	printf '%s\n' /bin/sh -c "'echo ran >f'" >"$KB_T/flags.want"
	assert_files_equal "$KB_T/flags.want" "$KB_T/flags.tail"
	assert_not_exists "$ws/f"
	KB_RC=0
	(cd "$ws" && KINBOX_SH_FLAGS=" --dry-run	" "$KSH" -c 'echo ran >f') \
		</dev/null >"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	want_rc 0 "--dry-run alone"
	assert_file_has_content "$KB_OUT" '^# network: off'
	# --write=DIR: the write outside the workspace lands there
	ksh -c 'echo x >"$1/w"' sh "$out"
	assert_strne "$KB_RC" 0 "without --write"
	assert_not_exists "$out/w"
	KB_RC=0
	(cd "$ws" && KINBOX_SH_FLAGS="--write=$out -q" "$KSH" -c \
		'echo granted >"$1/w"' sh "$out") </dev/null >"$KB_OUT" \
		2>"$KB_ERR" || KB_RC=$?
	want_rc 0 "KINBOX_SH_FLAGS=--write=DIR"
	assert_file_has_content "$out/w" '^granted$'
}
run_test "KINBOX_SH_FLAGS: --net --dry-run prints a plan with 'network: on' and /bin/sh -c CMD last, runs nothing; --write=DIR makes DIR writable (control: denied without)" t_flags

t_tty() {
	require script
	setup tty
	# stdin a terminal, no operand: sh -i
	(cd "$ws" && script -qec "env KINBOX_SH_FLAGS=--dry-run $KSH" /dev/null) \
		</dev/null >"$KB_T/tty.out" 2>&1 || true
	tr -d '\r' <"$KB_T/tty.out" | tail -n 2 >"$KB_T/tty.tail"
	printf '%s\n' /bin/sh -i >"$KB_T/tty.want"
	assert_files_equal "$KB_T/tty.want" "$KB_T/tty.tail"
	# not a terminal: plain sh
	KB_RC=0
	(cd "$ws" && KINBOX_SH_FLAGS=--dry-run "$KSH") </dev/null \
		>"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	want_rc 0 "no terminal"
	assert_streq "$(tail -n 2 "$KB_OUT" | tr '\n' ' ')" "-- /bin/sh "
}
run_test "no operand: /bin/sh -i on a terminal (script(1)), plain /bin/sh reading stdin otherwise (the plans)" t_tty

t_find() {
	setup find
	lone=$(newdir find/lone)
	cp "$KSH" "$lone/kinbox-sh"
	pathdir=$(newdir find/path)
	ln -s "$KINBOX" "$pathdir/kinbox"
	# no kinbox beside it: the one on PATH
	KB_RC=0
	(cd "$ws" && PATH="$pathdir:$SYSPATH" "$lone/kinbox-sh" -c \
		'echo path >f; echo x >"$1/o"' sh "$out") </dev/null \
		>"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	assert_strne "$KB_RC" 0 "the write outside fails"
	assert_file_has_content "$ws/f" '^path$'
	assert_not_exists "$out/o"
	# neither: 127
	KB_RC=0
	(cd "$ws" && PATH="$out" "$lone/kinbox-sh" -c 'echo ran >g') \
		</dev/null >"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	want_rc 127 "no kinbox"
	assert_kinbox_sh_said "kinbox: not found beside kinbox-sh nor on PATH; install kinbox (make install) or put it on PATH"
	assert_not_exists "$ws/g"
	# one beside it that cannot be executed: 126 (not the one on PATH)
	: >"$lone/kinbox"
	chmod 644 "$lone/kinbox"
	KB_RC=0
	(cd "$ws" && PATH="$pathdir:$SYSPATH" "$lone/kinbox-sh" -c 'echo ran >g') \
		</dev/null >"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	want_rc 126 "kinbox beside it not executable"
	assert_kinbox_sh_said "cannot run $lone/kinbox: Permission denied; reinstall kinbox (make install)"
	assert_not_exists "$ws/g"
}
run_test "which kinbox: beside kinbox-sh first, else PATH's (it runs: workspace written, outside not); neither: 127; one beside that is not executable: 126; one line each, nothing ran" t_find

# --claude-code SCRIPT: Claude Code's shell prefix. The script as Claude
# Code builds it (the snapshot sourced, the command in eval, then pwd -P
# into its cwd file) runs under kinbox with $SHELL: a write in the
# workspace lands, one outside does not; the cwd file on the host holds
# the directory the command ended in (the private /tmp would swallow it);
# the status is the command's. kinpolicy's hook command runs beside the
# agent (outside: it reads its stores), anything else under kinbox.
t_claude_prefix() {
	setup claude
	mkdir -p "$ws/sub"
	_cf=/tmp/claude-$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')-cwd
	rm -f "$_cf"
	cleanup_add rm -f "$_cf"
	: >"$KB_T/snap.sh"
	_s="source $KB_T/snap.sh && eval 'cd sub && echo in >made.txt && touch $out/x; exit 4' < /dev/null && pwd -P >| $_cf"
	KB_RC=0
	(cd "$ws" && SHELL=/bin/bash "$KSH" --claude-code "$_s") </dev/null >"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	want_rc 4 "the command's exit 4"
	assert_file_has_content "$ws/sub/made.txt" '^in$'
	assert_not_exists "$out/x"
	assert_not_exists "$_cf" # exit 4: pwd never ran
	_s="source $KB_T/snap.sh && eval 'cd sub && echo \$KINBOX_ACTIVE >active.txt' < /dev/null && pwd -P >| $_cf"
	KB_RC=0
	(cd "$ws" && SHELL=/bin/bash "$KSH" --claude-code "$_s") </dev/null >"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	want_rc 0 "a command that ends well"
	assert_file_has_content "$ws/sub/active.txt" '^(bwrap|landlock)$'
	assert_streq "$(cat "$_cf")" "$(cd "$ws/sub" && pwd -P)" "the cwd file on the host"
	# kinpolicy's own hook command: outside the sandbox (it answers; a
	# stand-in named kinpolicy writes where the sandbox could not)
	mkdir -p "$KB_T/kpbin"
	printf '#!/bin/sh\necho "$@" >%s/hook-ran\n' "$out" >"$KB_T/kpbin/kinpolicy"
	chmod +x "$KB_T/kpbin/kinpolicy"
	ksh --claude-code "$KB_T/kpbin/kinpolicy hook claude-code"
	want_rc 0 "the hook command"
	assert_file_has_content "$out/hook-ran" '^hook claude-code$'
	# control: anything else is sandboxed, even naming kinpolicy
	rm -f "$out/hook-ran"
	ksh --claude-code "$KB_T/kpbin/kinpolicy hook claude-code; true"
	assert_not_exists "$out/hook-ran"
	ksh --claude-code "eval '$KB_T/kpbin/kinpolicy hook claude-code'"
	assert_not_exists "$out/hook-ran"
	# the session Claude Code pasted from the env file, before the
	# command, is kinbox's (an unknown one: 125 naming it); one the
	# command itself exports inside the eval is not
	ksh --claude-code "export KINBOX_SESSION=ses_00000000000000aa && eval 'touch s1' < /dev/null && pwd -P >| $_cf"
	want_rc 125 "an unknown session pasted before the command"
	assert_file_has_content "$KB_ERR" 'ses_00000000000000aa'
	assert_not_exists "$ws/s1"
	ksh --claude-code "eval 'export KINBOX_SESSION=ses_00000000000000aa; touch s2' < /dev/null && pwd -P >| $_cf"
	want_rc 0 "a session exported by the command itself"
	assert_exists "$ws/s2"
	# one argument only
	ksh --claude-code a b
	want_rc 125 "two arguments"
	assert_file_has_content "$KB_ERR" 'takes one argument'
}
run_test "kinbox-sh --claude-code (Claude Code's shell prefix): the script runs sandboxed with its status, the cwd file reaches the host, kinpolicy's hook command alone runs outside" t_claude_prefix

done_testing
