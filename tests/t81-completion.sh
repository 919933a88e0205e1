#!/bin/sh
# tests/t81-completion.sh — `kinbox completion bash|zsh` (kinbox(1),
# COMPLETION): the scripts are generated from the option table, so
#   1. bash: the script, sourced in bash with COMP_WORDS/COMP_CWORD set,
#      completes flags, directories for --write, the backends, the
#      --require words (after a comma too), the command after --;
#   2. the flags it offers are exactly those of kinbox --help (both
#      derived, then compared), for bash and for zsh;
#   3. zsh (when installed; skipped with the reason otherwise): zsh -n
#      accepts it, compinit registers _kinbox for kinbox from $fpath, and
#      its _arguments specs (read by running _kinbox with _arguments
#      stubbed) complete --write with directories;
#   4. usage: another shell, no shell, and `kinbox -- completion`, which
#      runs a program of that name (its effect checked from outside, in
#      the workspace; control: the same program writes there).
#
# Run: sh tests/t81-completion.sh (TAP), or all suites: sh tests/run-integration.sh
# shellcheck disable=SC2317,SC2016,SC2164
# SC2317: the t_* bodies are called through run_test.
# SC2016: single-quoted $... is meant for the inner shell.
# SC2164: lib.sh sets -e (test bodies run under set -e): a failed cd fails.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

XDG_CONFIG_HOME=$KB_T/config
XDG_STATE_HOME=$KB_T/state
XDG_RUNTIME_DIR=$KB_T/run
mkdir -p "$XDG_CONFIG_HOME" "$XDG_STATE_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
export XDG_CONFIG_HOME XDG_STATE_HOME XDG_RUNTIME_DIR
unset KINBOX_SESSION KINBOX_JSON_FD || true

if [ ! -x "$KINBOX" ]; then
	tap_not_ok "kinbox binary $KINBOX exists (build it: make all)"
	done_testing
fi
diag "kinbox: $KINBOX; uid $(id -u)"

# help_flags: the flags kinbox --help lists (a line's first column: "  -w,
# --write DIR" or "      --no-net"), sorted, one a line
help_flags() {
	"$KINBOX" --help >"$KB_T/help.txt" || fail "kinbox --help failed"
	grep -E '^( {2}-[a-zA-Z], | {6})--[a-z]' "$KB_T/help.txt" |
		sed -E 's/^ +//; s/,//; s/  .*//' | tr ' ' '\n' |
		grep '^-' | LC_ALL=C sort -u
}

# bash_complete WORD...: the script sourced in bash, COMP_WORDS set to
# WORDs (the last one the word under the cursor): COMPREPLY, one a line,
# sorted
bash_complete() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
		_kinbox
		[ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}"' sh "$KB_T/kinbox.bash" "$@" |
		LC_ALL=C sort -u
}

gen_bash() {
	require bash
	kb_expect 0 completion bash
	cp "$KB_OUT" "$KB_T/kinbox.bash"
	[ -s "$KB_T/kinbox.bash" ] || fail "kinbox completion bash printed nothing"
	[ ! -s "$KB_ERR" ] || fail "kinbox completion bash wrote to stderr"
	bash -n "$KB_T/kinbox.bash" || fail "bash -n refuses the script"
}

# want_lines WHAT EXPECTED... : $KB_T/got holds exactly these lines
want_lines() {
	_what=$1
	shift
	printf '%s\n' "$@" | LC_ALL=C sort -u >"$KB_T/want"
	if ! cmp -s "$KB_T/want" "$KB_T/got"; then
		diff -u "$KB_T/want" "$KB_T/got" >&2 || true
		fail "completion of $_what"
	fi
}

t_bash() {
	gen_bash
	d=$(newdir bashcomp)
	mkdir "$d/dir1" "$d/dir2"
	: >"$d/file1"
	cd "$d"
	bash_complete kinbox --wr >"$KB_T/got"
	want_lines "kinbox --wr" --write
	bash_complete kinbox --n >"$KB_T/got"
	want_lines "kinbox --n" --net --no-net
	bash_complete kinbox --backend '' >"$KB_T/got"
	want_lines "kinbox --backend ''" auto bwrap landlock seatbelt
	bash_complete kinbox --backend = la >"$KB_T/got"
	want_lines "kinbox --backend=la" landlock
	bash_complete kinbox --require pid >"$KB_T/got"
	want_lines "kinbox --require pid" pid-namespace
	bash_complete kinbox --require private-tmp,gi >"$KB_T/got"
	want_lines "kinbox --require private-tmp,gi" private-tmp,git-guard
	bash_complete kinbox --write '' >"$KB_T/got"
	want_lines "kinbox --write '' (directories only)" dir1 dir2
	bash_complete kinbox -q -C di >"$KB_T/got"
	want_lines "kinbox -q -C di" dir1 dir2
	bash_complete kinbox --allow-socket 'fi' >"$KB_T/got"
	want_lines "kinbox --allow-socket fi (files)" file1
	bash_complete kinbox --allow-host '' >"$KB_T/got"
	[ ! -s "$KB_T/got" ] || fail "--allow-host offers something: $(cat "$KB_T/got")"
	# after a value, flags again; after --, the command
	bash_complete kinbox --write dir1 --dry >"$KB_T/got"
	want_lines "kinbox --write dir1 --dry" --dry-run
	bash_complete kinbox --write = dir1 --dry >"$KB_T/got"
	want_lines "kinbox --write=dir1 --dry" --dry-run
	bash_complete kinbox -- ech >"$KB_T/got"
	grep -qx echo "$KB_T/got" || fail "kinbox -- ech does not offer echo"
	bash_complete kinbox --net ech >"$KB_T/got"
	grep -qx echo "$KB_T/got" || fail "kinbox --net ech does not offer echo"
	bash_complete kinbox -- --wr >"$KB_T/got"
	! grep -qx -- --write "$KB_T/got" || fail "after --, kinbox's flags are offered"
	bash_complete kinbox completion '' >"$KB_T/got"
	want_lines "kinbox completion ''" bash zsh
	bash_complete kinbox complet >"$KB_T/got"
	grep -qx completion "$KB_T/got" || fail "kinbox complet does not offer completion"
}
run_test "bash: kinbox --wr -> --write; --backend -> auto bwrap landlock seatbelt (also --backend=la); --require pid -> pid-namespace, after a comma too; --write and -C: directories; --allow-socket: files; --allow-host: nothing; after -- or the first word: commands; completion -> bash zsh" t_bash

t_bash_flags() {
	gen_bash
	help_flags >"$KB_T/help.flags"
	[ -s "$KB_T/help.flags" ] || fail "no flags read from kinbox --help"
	bash_complete kinbox - >"$KB_T/bash.flags"
	assert_files_equal "$KB_T/help.flags" "$KB_T/bash.flags"
	diag "$(wc -l <"$KB_T/help.flags") flags in both"
}
run_test "bash: the flags completed for 'kinbox -' are exactly the flags of kinbox --help" t_bash_flags

t_zsh() {
	have zsh || skip_test "zsh is not installed (apt-get install zsh): the zsh script is not checked"
	kb_expect 0 completion zsh
	zc=$(newdir zsh-fpath)
	cp "$KB_OUT" "$zc/_kinbox"
	zsh -n "$zc/_kinbox" || fail "zsh -n refuses the script"
	head -n 1 "$zc/_kinbox" | grep -qx '#compdef kinbox' ||
		fail "the first line is not #compdef kinbox"
	# compinit finds it in $fpath; _kinbox's specs, with _arguments
	# stubbed to print them (what zsh's completion system would get)
	ZDOTDIR=$zc zsh -f -c '
		fpath=("$1" $fpath)
		autoload -Uz compinit && compinit -u -D -d "$1/.zcompdump"
		print -r -- "comps: $_comps[kinbox]"
		autoload +X _kinbox
		_arguments() { print -rl -- "$@" }
		words=(kinbox --wr); CURRENT=2
		_kinbox' zsh "$zc" >"$KB_T/zsh.out" 2>"$KB_T/zsh.err" ||
		{ cat "$KB_T/zsh.err" >&2; fail "zsh could not load _kinbox"; }
	assert_file_has_content "$KB_T/zsh.out" '^comps: _kinbox$'
	# --write and -w: a directory, repeatable
	assert_file_has_content "$KB_T/zsh.out" '^\*--write=\[also make DIR writable.*\]:DIR:_files -/$'
	assert_file_has_content "$KB_T/zsh.out" '^\*-w\+\[.*\]:DIR:_files -/$'
	assert_file_has_content "$KB_T/zsh.out" '^\(--backend\)--backend=\[.*\]:NAME:\(auto bwrap landlock seatbelt\)$'
	assert_file_has_content "$KB_T/zsh.out" '^\*--require=\[.*\]:FEATURES:_sequence compadd - private-tmp pid-namespace '
	assert_file_has_content "$KB_T/zsh.out" '^\*::arguments:_normal$'
	# the flags of the specs, as those of --help
	help_flags >"$KB_T/help.flags"
	sed -n -E 's/^(\([^)]*\)|\*)?(-[a-zA-Z]|--[a-z-]+)[+=]?\[.*/\2/p' \
		"$KB_T/zsh.out" | LC_ALL=C sort -u >"$KB_T/zsh.flags"
	assert_files_equal "$KB_T/help.flags" "$KB_T/zsh.flags"
}
run_test "zsh: zsh -n accepts the script, compinit registers _kinbox for kinbox from \$fpath, its specs complete --write/-w with directories, --backend and --require with their words, the command with _normal; its flags are those of kinbox --help" t_zsh

t_usage() {
	kb_expect 125 completion fish
	assert_kinbox_said "$KB_ERR" "kinbox: completion fish: no completion for that shell; give bash or zsh"
	[ ! -s "$KB_OUT" ] || fail "stdout is not empty"
	for args in "completion" "completion bash zsh"; do
		# shellcheck disable=SC2086 # the words
		kb_expect 125 $args
		assert_kinbox_said "$KB_ERR" "kinbox: completion takes one shell, bash or zsh: kinbox completion bash (a command named completion: kinbox -- completion)"
	done
	# control: the same first word with a shell it knows
	kb_expect 0 completion zsh
	assert_file_has_content "$KB_OUT" '^#compdef kinbox$'
}
run_test "usage: kinbox completion fish, no shell, two shells: 125 with one line; control: completion zsh prints the script" t_usage

t_dashdash() {
	ws=$(newdir dd/ws)
	bin=$(newdir dd/bin)
	printf '#!/bin/sh\necho "ran $*" >ran-completion\n' >"$bin/completion"
	chmod 755 "$bin/completion"
	mkdir "$KB_T/dd/preflight"
	if ! (cd "$KB_T/dd/preflight" && "$KINBOX" -- true) >"$KB_T/pf.log" 2>&1; then
		cat "$KB_T/pf.log" >&2
		skip_test "kinbox cannot set up a sandbox on this host"
	fi
	KB_RC=0
	(cd "$ws" && PATH="$bin:$PATH" "$KINBOX" -- completion bash) \
		>"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	assert_streq "$KB_RC" 0 "kinbox -- completion bash"
	assert_file_has_content "$ws/ran-completion" '^ran bash$'
	assert_not_file_has_content "$KB_OUT" '_kinbox'
	# and after an option, too
	rm -f "$ws/ran-completion"
	KB_RC=0
	(cd "$ws" && PATH="$bin:$PATH" "$KINBOX" -q completion zsh) \
		>"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	assert_streq "$KB_RC" 0 "kinbox -q completion zsh"
	assert_file_has_content "$ws/ran-completion" '^ran zsh$'
}
run_test "kinbox -- completion bash (and -q completion zsh) runs the program named completion: its file lands in the workspace, no script printed" t_dashdash

done_testing
