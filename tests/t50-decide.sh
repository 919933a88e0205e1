#!/bin/sh
# tests/t50-decide.sh — the permission gate through the kinpolicy CLI:
# decide, classify, check-write and allow, as a harness calls them. The
# full mode x kind x planning table and the classifier's adversarial cases
# are unit tests (tests/unit/test-decide.c, test-readonly.c); this checks
# the verbs end to end: options, output, exit codes, sessions, real paths.
# shellcheck disable=SC2317,SC2164
# SC2317: the t_* bodies are called through run_test.
# SC2164: lib.sh sets -e (test bodies run under set -e): a failed cd fails.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

KP=$(dirname "$KINBOX")/kinpolicy
KP_OUT=$KB_T/kp.out
KP_ERR=$KB_T/kp.err
XDG_RUNTIME_DIR=$KB_T/run
export XDG_RUNTIME_DIR
mkdir -m 700 "$XDG_RUNTIME_DIR"
unset KINBOX_SESSION || true

kp() {
	KP_RC=0
	"$KP" "$@" </dev/null >"$KP_OUT" 2>"$KP_ERR" || KP_RC=$?
}

# decision VERB-ARGS...: the first line decide prints
decision() {
	kp decide "$@"
	[ "$KP_RC" = 0 ] || fail "decide exited $KP_RC: $(cat "$KP_ERR")"
	head -n 1 "$KP_OUT"
}

t_decide_table() {
	ws=$(newdir ws)
	cd "$ws"
	assert_streq "$(decision --mode auto --kind read)" ALLOW
	assert_streq "$(decision --mode strict --kind meta)" ALLOW
	assert_streq "$(decision --mode auto --kind network)" ALLOW
	assert_streq "$(decision --mode strict --kind publish)" ASK
	assert_streq "$(decision --mode auto --kind mcp --tool fetch)" ASK
	assert_streq "$(decision --mode strict --kind mcp --tool grep --read-only-hint)" ALLOW
	assert_streq "$(decision --mode auto --kind rm-rf)" ASK
	assert_file_has_content "$KP_OUT" '^step: invalid-kind$'
	assert_streq "$(decision --mode auto --planning --kind edit --path x)" DENY
	assert_file_has_content "$KP_OUT" '^step: planning-freeze$'
	assert_streq "$(decision --mode auto --planning --kind read)" ALLOW
}
run_test "decide: the mode table, unknown kinds ask, the planning freeze" t_decide_table

t_decide_shell() {
	ws=$(newdir ws)
	cd "$ws"
	# auto: SANDBOX, which is ALLOW under kinbox when the probe works
	if "$KINBOX" --status >/dev/null 2>&1; then
		assert_streq "$(decision --mode auto --kind shell --command 'rm -rf build')" ALLOW
		assert_file_has_content "$KP_OUT" '^step: sandbox$'
	else
		assert_streq "$(decision --mode auto --kind shell --command 'rm -rf build')" ASK
	fi
	# strict: only a provably read-only command runs without asking
	assert_streq "$(decision --mode strict --kind shell --command 'ls -la src')" ALLOW
	assert_file_has_content "$KP_OUT" '^signature: ls$'
	# git status reads the work tree through the repository's filters
	assert_streq "$(decision --mode strict --kind shell --command 'git status -s')" ASK
	assert_streq "$(decision --mode strict --kind shell --command 'git -c core.pager=sh status')" ASK
	assert_streq "$(decision --mode strict --kind shell --command 'ls; rm -rf x')" ASK
	assert_file_has_content "$KP_OUT" '^signature: ls; rm -rf x$'
}
run_test "decide: shell runs sandboxed in auto; strict allows only provably read-only commands" t_decide_shell

t_allow_session() {
	ws=$(newdir ws)
	cd "$ws"
	kp session new
	s=$(cat "$KP_OUT")
	assert_streq "$(decision --mode strict --kind shell --command 'npm test' --session "$s")" ASK
	kp allow --session "$s" --signature 'npm test'
	assert_streq "$KP_RC" 0
	assert_streq "$(decision --mode strict --kind shell --command 'npm test' --session "$s")" ALLOW
	assert_file_has_content "$KP_OUT" '^step: session-always$'
	# the exact signature only: a compound line is its own signature
	assert_streq "$(decision --mode strict --kind shell --command 'npm test; rm -rf x' --session "$s")" ASK
	# and never a DENY
	kp allow --session "$s" --kind edit --signature edit
	assert_streq "$(decision --mode strict --kind edit --path /etc/passwd --session "$s")" DENY
	# another session knows nothing of it
	kp session new
	s2=$(cat "$KP_OUT")
	assert_streq "$(decision --mode strict --kind shell --command 'npm test' --session "$s2")" ASK
}
run_test "allow: a session's always answer turns ASK into ALLOW for that exact signature, never a DENY" t_allow_session

t_classify() {
	kp classify -- git version
	assert_streq "$(head -n 1 "$KP_OUT")" safe
	kp classify -- sh -c 'ls'
	assert_streq "$(head -n 1 "$KP_OUT")" "unsafe: $(sed -n 's/^unsafe: //p' "$KP_OUT")"
	kp classify --command 'cat a > b'
	assert_file_has_content "$KP_OUT" '^unsafe: '
	kp classify --command 'find . -name x -delete' --json
	assert_file_has_content "$KP_OUT" '"safe":false'
	kp classify --command 'grep -rn TODO src' --json
	assert_file_has_content "$KP_OUT" '"safe":true'
	assert_file_has_content "$KP_OUT" '"signature":"grep"'
}
run_test "classify: safe and unsafe, the argv and --command forms, --json" t_classify

t_check_write() {
	ws=$(newdir ws)
	out=$(newdir outside)
	cd "$ws"
	mkdir -p .git sub
	ln -s "$out" escape
	kp check-write src/new.c
	assert_streq "$(head -n 1 "$KP_OUT")" ALLOW
	kp check-write src/new.c --mode strict
	assert_streq "$(head -n 1 "$KP_OUT")" ASK
	kp check-write escape/f
	assert_streq "$(head -n 1 "$KP_OUT")" DENY
	kp check-write sub/../../outside/f
	assert_streq "$(head -n 1 "$KP_OUT")" DENY
	kp check-write .env.local
	assert_streq "$(head -n 1 "$KP_OUT")" DENY
	kp check-write .git/config
	assert_streq "$(head -n 1 "$KP_OUT")" ASK
	kp check-write package-lock.json --json
	assert_file_has_content "$KP_OUT" '"decision":"ASK"'
	kp check-write "$out/f" --write "$out"
	assert_streq "$(head -n 1 "$KP_OUT")" ALLOW
	# a hard link to a file outside: writing it writes that file
	echo secret >"$out/victim"
	ln "$out/victim" "$ws/innocent.txt"
	kp check-write innocent.txt
	assert_streq "$(head -n 1 "$KP_OUT")" ASK
	assert_file_has_content "$KP_OUT" '^rule: hardlink$'
}
run_test "check-write: symlinks and .. judged at the real location, secrets DENY, protected ASK, extra roots" t_check_write

t_bad_input() {
	for args in "decide --kind shell" "decide --mode auto" \
		"decide --mode nope --kind read" \
		"decide --mode auto --kind read --session ses_nosuchsession" \
		"classify" "check-write" "allow --session x"; do
		# shellcheck disable=SC2086
		kp $args
		assert_streq "$KP_RC" 125 "kinpolicy $args"
		assert_streq "$(wc -l <"$KP_ERR")" 1 "one line: kinpolicy $args"
		assert_file_has_content "$KP_ERR" '^kinpolicy: '
	done
}
run_test "bad input: usage errors exit 125 with one line" t_bad_input

done_testing
