#!/bin/sh
# tests/t82-agents.sh — `kinpolicy hook AGENT` against the agents
# themselves: Claude Code, Codex and Gemini CLI, installed at pinned
# versions by `make agents` (tests/agents/package-lock.json), each run by
# tests/agents/drive.py for one prompt against a scripted model server
# (tests/agents/fakemodel.py) in a network namespace that has only
# loopback, configured as README.md's "Use with your agent" says (its JSON
# blocks, read from README.md). The model makes the agent call its real
# shell tool with commands chosen here; every check is made from outside:
# the files the calls wrote or did not write, the requests the model server
# received next (what the agent told the model: the tool's output, the
# hook's context), the hook calls, the agent's exit status.
#
# An agent that is not installed (make agents failed: no npm registry, no
# node) has its tests skipped, saying why; such a skip is not turned into a
# failure by KINBOX_MUST_WORK (skip_unavailable) and never counts as a
# pass. A check of what the hook does not do yet is run_test_todo, with the
# diagnosis: "not ok ... # TODO WHY" (tests/agents/README lists them).
#
# Environment (besides lib.sh's): KB_AGENTS_MODULES, where the agents are
# installed (default tests/agents/node_modules); KB_AGENTS_TIMEOUT, seconds
# one agent run may take (default 60).
# shellcheck disable=SC2317,SC2016
# SC2317: the t_* bodies are called through run_test.
# SC2016: single-quoted $... is for the shell the agent's tool runs.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

AG=$KB_TESTS_DIR/agents
: "${KB_AGENTS_MODULES:=$AG/node_modules}"
: "${KB_AGENTS_TIMEOUT:=60}"
export KB_AGENTS_MODULES

unset XDG_CONFIG_HOME XDG_STATE_HOME XDG_CACHE_HOME KINBOX_SESSION \
	KINBOX_JSON_FD CLAUDE_PROJECT_DIR CLAUDE_ENV_FILE CODEX_ENV_FILE \
	GEMINI_PROJECT_DIR CODEX_HOME || true
HOME=$KB_T/home
XDG_RUNTIME_DIR=$KB_T/run
mkdir -p "$HOME"
mkdir -m 700 "$XDG_RUNTIME_DIR"
export HOME XDG_RUNTIME_DIR

PY=python3
if [ -x /usr/bin/python3 ]; then
	PY=/usr/bin/python3
fi
RUNS=$KB_T/runs
OUTSIDE=$KB_T/outside
mkdir -p "$RUNS" "$OUTSIDE"

# --- preflight ---------------------------------------------------------------
if [ ! -x "$KINPOLICY" ]; then
	tap_not_ok "kinpolicy binary $KINPOLICY exists (build it: make all)"
	done_testing
fi
if ! have "$PY"; then
	skip_all "python3 runs the model server and the driver"
fi
mkdir "$KB_T/preflight"
if ! (cd "$KB_T/preflight" && "$KINBOX" -- true) >"$KB_T/preflight.log" 2>&1; then
	diag "$(cat "$KB_T/preflight.log")"
	skip_all "kinbox cannot set up a sandbox on this host"
fi
# the agents run in a network namespace of their own (drive.py)
if [ "$(id -u)" -eq 0 ]; then
	set -- unshare --net true
else
	set -- unshare --user --map-root-user --net true
fi
if ! "$@" 2>"$KB_T/preflight.log"; then
	diag "$(cat "$KB_T/preflight.log")"
	skip_all "no network namespace can be made here ($*), and no agent runs outside one"
fi

# --- the agents ----------------------------------------------------------------
# prog AGENT: its program in node_modules/.bin
prog() {
	case $1 in
	claude-code) echo claude ;;
	*) echo "$1" ;;
	esac
}
# why_not AGENT: why it cannot run here (nothing: it can)
why_not() {
	if [ ! -x "$KB_AGENTS_MODULES/.bin/$(prog "$1")" ]; then
		echo "$1 is not installed in $KB_AGENTS_MODULES, or not readable by uid $(id -u) (make agents installs the pinned versions from the npm registry)"
	elif [ "$(cat "$KB_AGENTS_MODULES/.kinbox-agents" 2>/dev/null)" != \
		"$(sha256sum "$AG/package-lock.json" | cut -d' ' -f1)" ]; then
		echo "$KB_AGENTS_MODULES was not installed from tests/agents/package-lock.json (run make agents)"
	fi
}
pin() {
	case $1 in
	claude-code) _p=@anthropic-ai/claude-code ;;
	codex) _p=@openai/codex ;;
	gemini) _p=@google/gemini-cli ;;
	esac
	sed -n "s|.*\"$_p\": \"\\([^\"]*\\)\".*|$_p@\\1|p" "$AG/package.json"
}
for a in claude-code codex gemini; do
	w=$(why_not "$a")
	if [ -n "$w" ]; then
		diag "*** $a: NOT RUN: $w; every $a test below is skipped"
	else
		diag "$a: $(pin "$a") from $KB_AGENTS_MODULES"
	fi
done
diag "Cursor: no CLI of it is on the npm registry; its hook rests on tests/fixtures/hooks alone (t53-hooks.sh)"
diag "kinbox: $KINBOX; kinpolicy: $KINPOLICY; uid $(id -u)"

# need AGENT: skip the current test when AGENT cannot run
need() {
	_w=$(why_not "$1")
	[ -z "$_w" ] || skip_unavailable "$_w"
}

# proj AGENT: the agent's project, a git repository with a subdirectory
proj() {
	_d=$KB_T/proj-$1
	if [ ! -d "$_d" ]; then
		mkrepo "$_d"
		mkdir "$_d/sub"
	fi
	printf '%s\n' "$_d"
}

# drive NAME AGENT SCENARIO [DRIVE-OPTION...] [-- AGENT-ARGUMENT...]: one
# run of AGENT (tests/agents/drive.py), in $RUNS/NAME, with a home of its
# own ($RUNS/NAME.home unless --home says another); SCENARIO is a file or
# the JSON itself. Fails the test when the driver itself failed.
drive() {
	_n=$1
	_a=$2
	_s=$3
	shift 3
	need "$_a"
	case $_s in
	'{'*)
		printf '%s\n' "$_s" >"$RUNS/$_n.json"
		_s=$RUNS/$_n.json
		;;
	esac
	rm -rf "${RUNS:?}/$_n"
	_rc=0
	"$PY" "$AG/drive.py" "$_a" "$RUNS/$_n" --project "$(proj "$_a")" \
		--home "$RUNS/$_n.home" --scenario "$_s" \
		--timeout "$KB_AGENTS_TIMEOUT" "$@" >"$RUNS/$_n.log" 2>&1 || _rc=$?
	if [ "$_rc" -ne 0 ]; then
		cat "$RUNS/$_n.log"
		fail "drive.py $_a exited $_rc"
	fi
	echo "$_a run $_n: exit $(cat "$RUNS/$_n/agent.rc") in $(cat "$RUNS/$_n/seconds") s; hooks:"
	"$PY" "$AG/runlog.py" hooks "$RUNS/$_n" | sed 's/^/  /'
}

# ran AGENT NAME: the run NAME of AGENT happened (a test before made it);
# skip as it did when AGENT cannot run
ran() {
	need "$1"
	[ -f "$RUNS/$2/agent.rc" ] || fail "the run $2 did not happen (its test above failed)"
}

# root_pass: skip in the unprivileged pass a check of the agent's own
# behaviour, which is the same for every user (the root pass makes it)
root_pass() {
	[ "$(id -u)" -eq 0 ] ||
		skip_other_pass "the agent's own behaviour, the same for every user"
}

# exited0 NAME: the agent's own exit was clean
exited0() {
	_rc=$(cat "$RUNS/$1/agent.rc")
	if [ "$_rc" != 0 ]; then
		tail -n 20 "$RUNS/$1/agent.err" >&2
		fail "the agent exited $_rc (124: killed after $KB_AGENTS_TIMEOUT s)"
	fi
}

# said NAME TURN NEEDLE...: the model was told each NEEDLE at TURN of the
# run NAME (tests/agents/runlog.py said: "re:REGEX" is a regex)
said() {
	_n=$1
	shift
	"$PY" "$AG/runlog.py" said "$RUNS/$_n" "$@" || fail "the model was not told that"
}
turns() {
	"$PY" "$AG/runlog.py" turns "$RUNS/$1"
}

# --- the namespace the agents run in -------------------------------------------
t_selftest() {
	"$PY" "$AG/drive.py" selftest "$RUNS/selftest" || fail "drive.py selftest failed"
	cat "$RUNS/selftest/selftest"
	assert_file_has_content "$RUNS/selftest/selftest" '^interfaces: lo$'
	assert_file_has_content "$RUNS/selftest/selftest" '^model: selftest$'
	assert_file_has_content "$RUNS/selftest/selftest" '^kinbox: exit 0: active=(bwrap|landlock)$'
}
run_test "the agents' network namespace: loopback alone, the model server answers over it, kinbox runs in it" t_selftest

# --- the scenario: one run with the hook, one without (the control) ----------
# Each agent gets one prompt whose turns exercise everything below; the
# control run plays the same turns with no hook configured, so that what a
# check expects is shown to be the agent's own behaviour. Turn K's result
# is what the model is told at turn K+1:
#   0 a write in the project, and the output the model must see
#   1 a write outside the project (the control's lands, in the test's
#     directory: its own name)
#   2 a command left running in the background (each agent's argument)
#   3 waiting for it to finish
#   4 git push (the user's deny rule: Claude Code's permissions.deny
#     Bash(git push:*), Codex's forbidden prefix_rule in ~/.codex/rules,
#     Gemini CLI's policy deny rule in ~/.gemini/policies)
#   5 (6) the directory: Claude Code cd sub, then pwd; Codex workdir,
#     Gemini dir_path sub
# then the final answer.
T_INSIDE=0
T_OUTSIDE=1
T_BG=2
T_PUSH=4

scenario() { # scenario AGENT SUFFIX
	# the poll waits up to 30 s, and has no $(...) or $((...)): Gemini CLI
	# refuses a command with either ("Command injection detected"), and a
	# refused poll let the agent end before its background job wrote
	_bgf=bg-$1$2.txt
	_poll="timeout 30 sh -c 'while [ ! -s $_bgf ]; do sleep 0.25; done'; cat $_bgf"
	case $1 in
	claude-code)
		_bg='"input": {"run_in_background": true}'
		_dir='{"shell": "cd sub"}, {"shell": "pwd >where.txt"}'
		;;
	codex)
		_bg='"input": {"yield_time_ms": 250}'
		_dir='{"shell": "pwd >where.txt", "input": {"workdir": "sub"}}'
		;;
	gemini)
		_bg='"input": {"is_background": true}'
		_dir='{"shell": "pwd >where.txt", "input": {"dir_path": "sub"}}'
		;;
	esac
	cat <<EOF
{"scenarios": {"main": [
 {"shell": "echo \"active=\$KINBOX_ACTIVE session=\$KINBOX_SESSION\" >inside.txt; echo \"said=\$KINBOX_ACTIVE\""},
 {"shell": "touch $OUTSIDE/$1$2-x"},
 {"shell": "sleep 1; echo \"bg=\$KINBOX_ACTIVE\" >$_bgf", $_bg},
 {"shell": "$_poll"},
 {"shell": "git push origin HEAD:refs/heads/kinbox-test; touch pushed-marker"},
 $_dir,
 {"text": "all done"}]}}
EOF
}

# deny_rules AGENT HOME: the user's rule on git push, where AGENT reads it
deny_rules() {
	case $1 in
	codex)
		mkdir -p "$2/.codex/rules"
		cat >"$2/.codex/rules/default.rules" <<'EOF'
prefix_rule(pattern = ["git", "push"], decision = "forbidden", justification = "kinbox test: no pushing")
EOF
		;;
	gemini)
		mkdir -p "$2/.gemini/policies"
		cat >"$2/.gemini/policies/kinbox-test.toml" <<'EOF'
[[rule]]
toolName = "run_shell_command"
commandPrefix = "git push"
decision = "deny"
priority = 500
EOF
		;;
	esac
}

# t_run AGENT SUFFIX [DRIVE-OPTION...]: the run AGENT$SUFFIX; the files its
# calls wrote in the project are moved to $RUNS/AGENT$SUFFIX/files
t_run() {
	_a=$1
	_x=$2
	shift 2
	_p=$(proj "$_a")
	(cd "$_p" && rm -f inside.txt bg.txt "bg-$_a$_x.txt" pushed-marker where.txt sub/where.txt)
	deny_rules "$_a" "$RUNS/$_a$_x.home"
	if [ "$_a" = claude-code ]; then
		set -- "$@" --settings '{"permissions": {"deny": ["Bash(git push:*)"]}}'
	fi
	drive "$_a$_x" "$_a" "$(scenario "$_a" "$_x")" "$@"
	_f=$RUNS/$_a$_x/files
	mkdir -p "$_f/sub"
	for f in inside.txt bg.txt pushed-marker where.txt sub/where.txt; do
		if [ -f "$_p/$f" ]; then
			mv "$_p/$f" "$_f/$f"
		fi
	done
	# the background job's file has the run's name: a late write of an
	# earlier run's job cannot pass for this one's
	if [ -f "$_p/bg-$_a$_x.txt" ]; then
		mv "$_p/bg-$_a$_x.txt" "$_f/bg.txt"
	fi
	exited0 "$_a$_x"
	if [ "$_a" = claude-code ]; then
		_want="0 1 2 3 4 5 6 7"
	else
		_want="0 1 2 3 4 5 6"
	fi
	assert_streq "$(turns "$_a$_x")" "$_want" "the turns the model played"
	grep -q "all done" "$RUNS/$_a$_x/agent.out" ||
		fail "the agent did not print the model's final answer"
}

for a in claude-code codex gemini; do
	run_test "$a control: the scenario without the hook (no kinbox): the agent plays every turn and exits 0" t_run "$a" -nohook --config none
	run_test "$a: with the hook as README installs it (kinpolicy hook install $a) the agent plays every turn of the scenario against the fake model and exits 0" t_run "$a" "" --config install
done
# Claude Code with the hook alone (README's block, no shell prefix: a user
# whose settings name another prefix): every call is rewritten
run_test "claude-code (the rewrite: README's hook block, no shell prefix): the agent plays every turn of the scenario and exits 0" t_run claude-code -rw --config readme

# --- 1. a shell call runs under kinbox; a denial reaches the model ------------
t_kinbox() {
	ran "$1" "$1"
	assert_file_has_content "$RUNS/$1/files/inside.txt" '^active=(bwrap|landlock) '
	_b=$(sed -n 's/^active=\([a-z]*\) .*/\1/p' "$RUNS/$1/files/inside.txt")
	# the hook answered allow with the rewrite, and the model saw the output
	"$PY" "$AG/runlog.py" hooks "$RUNS/$1" >"$KB_T/hooks.txt"
	assert_file_has_content "$KB_T/hooks.txt" '^(PreToolUse|BeforeTool) (Bash|run_shell_command) 0 allow$'
	said "$1" $((T_INSIDE + 1)) "said=$_b"
}

t_outside() {
	ran "$1" "$1"
	assert_not_exists "$OUTSIDE/$1-x"
	said "$1" $((T_OUTSIDE + 1)) "kinbox: denied write '$OUTSIDE/$1-x'"
}

t_context() {
	ran "$1" "$1"
	_id=$("$PY" "$AG/runlog.py" denial "$RUNS/$1" $((T_OUTSIDE + 1))) ||
		fail "no denial id"
	said "$1" $((T_OUTSIDE + 1)) "kinpolicy grant $_id --suggested --once && kinpolicy retry $_id"
	# a denial kinbox recorded, in the journal of the agent's home
	HOME=$RUNS/$1.home "$KINPOLICY" show "$_id" >"$KB_T/show.txt" ||
		fail "kinpolicy show $_id: not in the agent's journal"
	assert_file_has_content "$KB_T/show.txt" "^path: +$OUTSIDE/$1-x\$"
}

t_session() {
	ran "$1" "$1"
	assert_file_has_content "$RUNS/$1/files/inside.txt" ' session=ses_[0-9a-f]+$'
}

for a in claude-code codex gemini; do
	run_test "$a: the shell call ran under kinbox (the hook's rewrite): its write in the project landed with KINBOX_ACTIVE set, and the model saw its output" t_kinbox "$a"
	run_test "$a: a write outside the project did not land, and the model was told kinbox's denial line" t_outside "$a"
	run_test "$a: the denial reached the model as the hook's context: the grant and retry of the denial kinbox recorded" t_context "$a"
done
run_test "claude-code: the shell calls run in the kinbox session SessionStart made (KINBOX_SESSION through CLAUDE_ENV_FILE)" t_session claude-code
run_test "codex: the shell calls run in the kinbox session of Codex's session (KINBOX_SESSION in the rewrite: Codex gives its hooks no env file)" t_session codex
run_test "gemini: the shell calls run in the kinbox session of Gemini CLI's session (KINBOX_SESSION in the rewrite: Gemini CLI has no env file for hooks)" t_session gemini

# --- 2. the shell tool's other arguments keep their meaning ------------------
# the background call returned before the command ended, in each agent's
# words, and the command went on under kinbox (the control: at all)
t_bg() {
	ran "$1" "$1$2"
	case $1 in
	claude-code) _w="Command running in background" ;;
	codex) _w="Process running with session ID" ;;
	gemini) _w="Command moved to background" ;;
	esac
	if [ "$2" != -nohook ]; then
		assert_file_has_content "$RUNS/$1$2/files/bg.txt" '^bg=(bwrap|landlock)$'
	else
		assert_file_has_content "$RUNS/$1$2/files/bg.txt" '^bg=$'
	fi
	said "$1$2" $((T_BG + 1)) "$_w"
	# and the next call, which waited for the job, was told what it wrote
	if [ "$2" != -nohook ]; then
		said "$1$2" $((T_BG + 2)) "re:bg=(bwrap|landlock)"
	else
		said "$1$2" $((T_BG + 2)) "re:bg=(?!\\w)"
	fi
}

# the directory the call named (Codex workdir, Gemini dir_path) or the one
# an earlier call moved to (Claude Code: cd) is the one the command ran in
t_dir() {
	ran "$1" "$1$2"
	_f=$RUNS/$1$2/files
	if [ ! -f "$_f/sub/where.txt" ]; then
		[ ! -f "$_f/where.txt" ] ||
			echo "where.txt was written in the project root instead: $(cat "$_f/where.txt")"
		fail "no where.txt in sub/"
	fi
	assert_file_has_content "$_f/sub/where.txt" "^$(proj "$1")/sub\$"
}

run_test "claude-code control: run_in_background returns at once, the command goes on (no kinbox)" t_bg claude-code -nohook
run_test "claude-code: run_in_background keeps its meaning through the rewrite, and the command runs under kinbox" t_bg claude-code ""
run_test "claude-code control: a cd in one call holds for the next (no kinbox)" t_dir claude-code -nohook
run_test "claude-code: a cd in one call holds for the next (kinbox-sh as the shell prefix)" t_dir claude-code ""
run_test "claude-code (the rewrite): run_in_background keeps its meaning, and the command runs under kinbox" t_bg claude-code -rw
run_test_todo "under the rewrite the cd runs inside kinbox's bash -c, and Claude Code reads the directory back with its own 'pwd -P >| \$TMPDIR/claude-XXXX-cwd' after the rewritten command, outside kinbox: the next call starts in the old directory (hook install's shell prefix keeps it)" \
	"claude-code (the rewrite): a cd in one call holds for the next" t_dir claude-code -rw
run_test "codex control: yield_time_ms returns while the command goes on (no kinbox)" t_bg codex -nohook
run_test "codex: yield_time_ms keeps its meaning through the rewrite, and the command runs under kinbox" t_bg codex ""
run_test "codex control: workdir is where the command runs (no kinbox)" t_dir codex -nohook
run_test "codex: workdir is where the command runs through the rewrite (Codex's hook input is the command alone, its other arguments stay)" t_dir codex ""
run_test "gemini control: is_background moves the command to the background (no kinbox)" t_bg gemini -nohook
run_test "gemini: is_background keeps its meaning through the rewrite" t_bg gemini ""
run_test "gemini control: dir_path is where the command runs (no kinbox)" t_dir gemini -nohook
run_test "gemini: dir_path is where the command runs through the rewrite" t_dir gemini ""

# --- 3. the user's own deny rule on git push still blocks ---------------------
# the agent's own refusal reaches the model, and the command (which would
# leave pushed-marker) does not run
t_deny() {
	ran "$1" "$1$2"
	if [ -e "$RUNS/$1$2/files/pushed-marker" ]; then
		echo "the command ran (it wrote pushed-marker); the model was told:"
		"$PY" "$AG/runlog.py" told "$RUNS/$1$2" $((T_PUSH + 1))
		fail "the push was not blocked"
	fi
	case $1$2 in
	claude-code-nohook) said "$1$2" $((T_PUSH + 1)) "Permission to use Bash with command git push" ;;
	# with the hook, its deny names the user's rule (the rewrite would
	# have dodged it): kinpolicy judges the model's command first
	claude-code-rw) said "$1$2" $((T_PUSH + 1)) "your permission rule Bash(git push:*)" ;;
	# with kinbox-sh as the shell prefix Claude Code's own rule sees the
	# command (the hook judges it too: whichever speaks first)
	claude-code) said "$1$2" $((T_PUSH + 1)) "re:your permission rule Bash\(git push:\*\)|Permission to use Bash with command git push" ;;
	codex-nohook) said "$1$2" $((T_PUSH + 1)) "rejected: kinbox test: no pushing" ;;
	gemini-nohook) said "$1$2" $((T_PUSH + 1)) "denied by policy" ;;
	codex) said "$1$2" $((T_PUSH + 1)) "your execpolicy rule on 'git push' (" "/.codex/rules/default.rules) denies this command" ;;
	gemini) said "$1$2" $((T_PUSH + 1)) "your policy rule on 'git push' (" "/.gemini/policies/kinbox-test.toml) denies this command" ;;
	esac
}

for a in claude-code codex gemini; do
	run_test "$a control: the user's deny rule on git push blocks the call (no hook)" t_deny "$a" -nohook
done
run_test "claude-code: the user's deny rule on git push still blocks the call (kinbox-sh as the shell prefix: no rewrite)" \
	t_deny claude-code ""
run_test "claude-code (the rewrite): the user's deny rule on git push still blocks the call (kinpolicy judges Claude Code's rules on the model's command before the rewrite)" \
	t_deny claude-code -rw
run_test "codex: the user's forbidden rule on git push still blocks the call (kinpolicy judges Codex's execpolicy rules on the model's command before the rewrite)" \
	t_deny codex ""
run_test "gemini: the user's policy deny rule on git push still blocks the call (kinpolicy judges Gemini CLI's policy rules on the model's command before the rewrite)" \
	t_deny gemini ""

# why the deny rules no longer match (the agents' own rule matching; the
# same for every user: the root pass)
t_rule_allow_only() {
	root_pass
	_p=$(proj claude-code)
	rm -f "$_p/pushed-marker"
	cat >"$KB_T/allow-hook" <<'EOF'
#!/bin/sh
cat >/dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"kinbox test: allow, no rewrite"}}'
EOF
	chmod +x "$KB_T/allow-hook"
	drive claude-rule-allow claude-code "$PUSH_SCENARIO" --config none \
		--settings "{\"permissions\": {\"deny\": [\"Bash(git push:*)\"]}, \"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"$KB_T/allow-hook\"}]}]}}"
	exited0 claude-rule-allow
	said claude-rule-allow 1 "Permission to use Bash with command git push"
	assert_not_exists "$_p/pushed-marker"
}
t_rule_rewrite() {
	root_pass
	_p=$(proj claude-code)
	rm -f "$_p/pushed-marker"
	_k=$RUNS/claude-rule-kinbox/libexec/kinbox
	drive claude-rule-kinbox claude-code "$PUSH_SCENARIO" \
		--settings "{\"permissions\": {\"deny\": [\"Bash($_k:*)\"]}}"
	exited0 claude-rule-kinbox
	said claude-rule-kinbox 1 "Permission to use Bash with command $_k --workspace "
	assert_not_exists "$_p/pushed-marker"
}
t_codex_untrusted() {
	root_pass
	_p=$(proj codex)
	rm -f "$_p/untrusted.txt"
	drive codex-untrusted codex '{"scenarios": {"main": [{"shell": "echo \"active=$KINBOX_ACTIVE\" >untrusted.txt"}, {"text": "all done"}]}}' \
		--untrusted
	exited0 codex-untrusted
	assert_file_has_content "$_p/untrusted.txt" '^active=$'
	[ -z "$(ls "$RUNS/codex-untrusted/hooks")" ] || fail "a hook ran"
	if grep -i hook "$RUNS/codex-untrusted/agent.err"; then
		fail "Codex said something about hooks (above)"
	fi
}
PUSH_SCENARIO='{"scenarios": {"main": [{"shell": "git push origin HEAD:refs/heads/kinbox-test; touch pushed-marker"}, {"text": "all done"}]}}'
run_test "claude-code rules: a hook that answers allow without updatedInput leaves the deny rule Bash(git push:*) in force" t_rule_allow_only
run_test "claude-code rules: a deny rule naming the rewrite's kinbox (Bash(…/kinbox:*)) blocks the rewritten call: the rules are matched on updatedInput" t_rule_rewrite
run_test "codex: README's hooks without trust (no --dangerously-bypass-hook-trust, /hooks never run) are skipped with no word, and the call runs outside any sandbox" t_codex_untrusted

# --- 4. a resumed session keeps its grants ------------------------------------
# t_resume AGENT: a first run's write outside is denied; the human grants
# it for the session, as the hook's context says; the resumed agent
# session (Claude Code --resume ID, Codex exec resume ID, Gemini CLI
# --resume ID) runs in the same kinbox session, and the write lands
t_resume() {
	_a=$1
	_p=$(proj "$_a")
	_r=$_a-resume
	[ "$_a" != claude-code ] || _r=resume
	_o=$OUTSIDE/$_a-resume
	rm -f "$_p/sess1.txt" "$_p/sess2.txt" "$_o"
	cat >"$RUNS/$_r.json" <<EOF
{"scenarios": {
 "first": [{"shell": "echo \"\$KINBOX_SESSION\" >sess1.txt; touch $_o"}, {"text": "one"}],
 "second": [{"shell": "echo \"\$KINBOX_SESSION\" >sess2.txt; touch $_o"}, {"text": "two"}]}}
EOF
	drive "$_a-resume1" "$_a" "$RUNS/$_r.json" \
		--home "$RUNS/$_r.home" --prompt "First. [scenario first]"
	exited0 "$_a-resume1"
	if [ "$_a" = claude-code ]; then
		_sid=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["session_id"])' \
			"$RUNS/$_a-resume1/agent.out")
	else
		_sid=$("$PY" "$AG/runlog.py" hook-input "$RUNS/$_a-resume1" SessionStart session_id | tr -d '"')
	fi
	_id=$("$PY" "$AG/runlog.py" denial "$RUNS/$_a-resume1" 1) || fail "no denial"
	_ses=$(cat "$_p/sess1.txt")
	echo "$_sid" >"$RUNS/$_r.sid"
	echo "$_ses" >"$RUNS/$_r.ses"
	echo "$_a session $_sid, kinbox session '$_ses', denial $_id"
	case $_ses in ses_*) ;; *) fail "the first run had no kinbox session" ;; esac
	assert_not_exists "$_o"
	# the human grants it for the session, as the hook's context says
	HOME=$RUNS/$_r.home KINBOX_SESSION=$_ses "$KINPOLICY" grant "$_id" \
		--suggested --session
	case $_a in
	claude-code) set -- --resume "$_sid" ;;
	codex) set -- resume "$_sid" ;;
	gemini) set -- --resume "$_sid" ;;
	esac
	drive "$_a-resume2" "$_a" "$RUNS/$_r.json" \
		--home "$RUNS/$_r.home" --prompt "Again. [scenario second]" \
		-- "$@"
	exited0 "$_a-resume2"
	echo "resumed: kinbox session '$(cat "$_p/sess2.txt" 2>/dev/null)'"
	"$PY" "$AG/runlog.py" hook-input "$RUNS/$_a-resume2" SessionStart source
	assert_streq "$(cat "$_p/sess2.txt" 2>/dev/null)" "$_ses" "the resumed session's kinbox session"
	assert_exists "$_o"
}
for a in claude-code codex gemini; do
	run_test "$a: a session grant still holds after the session is resumed" t_resume "$a"
done

# /compact fires SessionStart too (source "compact"): the calls after it
# must stay in the session of the calls before it
t_compact() {
	[ -s "$RUNS/resume.sid" ] || fail "no session from the resume test above"
	drive claude-compact claude-code "$RUNS/resume.json" \
		--home "$RUNS/resume.home" --prompt "/compact" \
		-- --resume "$(cat "$RUNS/resume.sid")"
	exited0 claude-compact
	"$PY" "$AG/runlog.py" hook-input "$RUNS/claude-compact" SessionStart source
	_f=$(ls "$RUNS"/resume.home/.claude/session-env/*/sessionstart-hook-*.sh)
	echo "the session's env file, $_f:"
	cat "$_f"
	assert_streq "$(sed -n 's/^export KINBOX_SESSION=//p' "$_f" | tail -n 1)" \
		"$(cat "$RUNS/resume.ses")" "the session the next call gets"
}
run_test "claude-code: a compaction keeps the kinbox session (its grants)" t_compact

# --- 5. Claude Code's default mode: strict ------------------------------------
t_default() {
	_p=$(proj claude-code)
	rm -f "$_p/default-write.txt"
	drive claude-default claude-code '{"scenarios": {"main": [{"shell": "echo \"said=$KINBOX_ACTIVE\""}, {"shell": "echo x >default-write.txt"}, {"text": "all done"}]}}' \
		--mode default
	exited0 claude-default
	"$PY" "$AG/runlog.py" hook-input "$RUNS/claude-default" PreToolUse permission_mode
	said claude-default 1 "re:said=(bwrap|landlock)"
	# the write is not provably read-only: ask, which -p answers no
	assert_not_exists "$_p/default-write.txt"
	said claude-default 2 "not provably read-only: redirection to a file"
}
run_test "claude-code: default mode (strict): a read-only call runs under kinbox; a write is asked for, and with no one to answer it does not run" t_default

# --- 6. Codex under its own sandbox -------------------------------------------
t_codex_sandbox() {
	_p=$(proj codex)
	rm -f "$_p/inside-sb.txt"
	drive codex-sandbox codex '{"scenarios": {"main": [{"shell": "echo \"active=$KINBOX_ACTIVE\" >inside-sb.txt"}, {"text": "all done"}]}}' \
		-- -s workspace-write
	exited0 codex-sandbox
	assert_file_has_content "$_p/inside-sb.txt" '^active=(bwrap|landlock)$'
	echo "kinbox's backend under Codex's workspace-write sandbox: $(cat "$_p/inside-sb.txt")"
}
run_test "codex: under Codex's own workspace-write sandbox the rewritten call still runs under kinbox" t_codex_sandbox

# --- 7. Claude Code: CLAUDE_CODE_SHELL_PREFIX (for a prefix integration) -----
# tests/agents/README, "CLAUDE_CODE_SHELL_PREFIX", says what these show.
# How Claude Code calls its prefix does not depend on the user: the root
# pass checks it (root_pass), the other one saves the time.
t_prefix_argv() {
	root_pass
	rm -f "$KB_T/prefix.jsonl"
	drive claude-prefix claude-code '{"scenarios": {"main": [{"shell": "echo one"}, {"text": "all done"}]}}' \
		--env "CLAUDE_CODE_SHELL_PREFIX=$AG/prefix-log" \
		--env "KB_PREFIX_LOG=$KB_T/prefix.jsonl"
	exited0 claude-prefix
	"$PY" - "$KB_T/prefix.jsonl" "$RUNS/claude-prefix" <<'EOF'
import json, re, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
hooks = [r for r in recs if r["argv"][1:] == ["kinpolicy hook claude-code"]]
tools = [r for r in recs if r not in hooks]
assert all(len(r["argv"]) == 2 for r in recs), [r["argv"] for r in recs]
assert len(tools) == 1, [r["argv"] for r in tools]
s = tools[0]["argv"][1]
print("the script:", s)
assert re.match(r"source \S+/shell-snapshots/snapshot-bash-\S+\.sh 2>/dev/null \|\| true && ", s), "no snapshot"
m = re.search(r" && eval '(.*)' < /dev/null && pwd -P >\| (/tmp/claude-[0-9a-f]{4}-cwd)$", s)
assert m, "no eval and pwd -P"
assert "/kinbox --workspace " in m.group(1) and m.group(1).endswith("bash -c '\"'\"'echo one'\"'\"'"), m.group(1)
assert tools[0]["env"].get("SHELL") == "/bin/bash"
assert "claude" in tools[0]["parent"][0], tools[0]["parent"]
assert hooks, "the hooks did not run through the prefix"
print("hooks through the prefix: %d, parent %s" % (len(hooks), hooks[0]["parent"][:3]))
assert hooks[0]["parent"][:2] == ["/bin/sh", "-c"], hooks[0]["parent"]
print("KINBOX_SESSION in the prefix's environment:", tools[0]["env"].get("KINBOX_SESSION"))
EOF
}
run_test "claude-code prefix: CLAUDE_CODE_SHELL_PREFIX gets one argument, a script for \$SHELL that evals the (rewritten) command and writes pwd -P to /tmp/claude-XXXX-cwd; the hook commands go through it too" t_prefix_argv

t_prefix_deny() {
	root_pass
	_p=$(proj claude-code)
	rm -f "$_p/pushed-marker" "$KB_T/prefix.jsonl"
	drive claude-prefix-deny claude-code '{"scenarios": {"main": [{"shell": "git push origin HEAD:refs/heads/kinbox-test; touch pushed-marker"}, {"text": "all done"}]}}' \
		--config none --settings '{"permissions": {"deny": ["Bash(git push:*)"]}}' \
		--env "CLAUDE_CODE_SHELL_PREFIX=$AG/prefix-log" \
		--env "KB_PREFIX_LOG=$KB_T/prefix.jsonl"
	exited0 claude-prefix-deny
	said claude-prefix-deny 1 "Permission to use Bash with command git push"
	assert_not_exists "$_p/pushed-marker"
	assert_not_exists "$KB_T/prefix.jsonl"
}
run_test "claude-code prefix: the deny rules still apply with a prefix set (matched on the model's command; the prefix is never called)" t_prefix_deny

# kinbox as the prefix: where Claude Code's cwd file lands decides whether
# a cd holds
t_prefix_kinbox() {
	root_pass
	_p=$(proj claude-code)
	rm -f "$_p/where.txt" "$_p/sub/where.txt"
	cat >"$KB_T/prefix-kinbox" <<EOF
#!/bin/sh
exec '$KINBOX' -- "\$SHELL" -c "\$1"
EOF
	chmod +x "$KB_T/prefix-kinbox"
	_n=claude-prefix-$1
	set -- --config none --env "CLAUDE_CODE_SHELL_PREFIX=$KB_T/prefix-kinbox"
	if [ "$_n" = claude-prefix-tmpdir ]; then
		mkdir -p "$KB_T/claude-tmp"
		set -- "$@" --env "TMPDIR=$KB_T/claude-tmp"
	fi
	drive "$_n" claude-code '{"scenarios": {"main": [{"shell": "cd sub"}, {"shell": "pwd >where.txt; echo \"said=$KINBOX_ACTIVE\""}, {"text": "all done"}]}}' "$@"
	exited0 "$_n"
	said "$_n" 2 "re:said=(bwrap|landlock)"
}
t_prefix_kinbox_tmp() {
	t_prefix_kinbox tmp
	_p=$(proj claude-code)
	assert_exists "$_p/where.txt"
	assert_not_exists "$_p/sub/where.txt"
}
t_prefix_kinbox_tmpdir() {
	t_prefix_kinbox tmpdir
	assert_file_has_content "$(proj claude-code)/sub/where.txt" "/sub\$"
}
run_test "claude-code prefix: under 'kinbox -- \$SHELL -c SCRIPT' the calls run in kinbox, and a cd is lost: the cwd file goes to kinbox's private /tmp" t_prefix_kinbox_tmp
run_test "claude-code prefix: with TMPDIR outside /tmp (kinbox keeps \$TMPDIR writable) the cwd file reaches Claude Code and a cd holds" t_prefix_kinbox_tmpdir

# kinbox-sh --claude-code, the prefix kinpolicy hook install sets, with the
# README's hooks: every call runs under kinbox through the prefix, the hook
# answers without a rewrite (no updatedInput), a cd holds (the cwd file
# reaches Claude Code through kinbox-sh), and the user's deny rule blocks
# git push
t_prefix_kinbox_sh() {
	root_pass
	# kinbox-sh runs the kinbox beside it: a copy beside $KINBOX's link
	# (the stub's, under make stub-check)
	_src=$(dirname "$KINBOX")/kinbox-sh
	[ -x "$_src" ] || _src=$KB_TESTS_DIR/../kinbox-sh
	mkdir -p "$KB_T/kshbin"
	cp "$_src" "$KB_T/kshbin/kinbox-sh"
	ln -sf "$KINBOX" "$KB_T/kshbin/kinbox"
	_ksh=$KB_T/kshbin/kinbox-sh
	_p=$(proj claude-code)
	rm -f "$_p/where.txt" "$_p/sub/where.txt" "$_p/pushed-marker"
	drive claude-ksh claude-code '{"scenarios": {"main": [{"shell": "cd sub"}, {"shell": "pwd >where.txt; echo \"said=$KINBOX_ACTIVE\""}, {"shell": "git push origin HEAD:refs/heads/kinbox-test; touch pushed-marker"}, {"text": "all done"}]}}' \
		--env "CLAUDE_CODE_SHELL_PREFIX=$_ksh --claude-code" \
		--settings '{"permissions": {"deny": ["Bash(git push:*)"]}}'
	exited0 claude-ksh
	said claude-ksh 2 "re:said=(bwrap|landlock)"
	assert_file_has_content "$_p/sub/where.txt" "/sub\$"
	assert_not_exists "$_p/where.txt"
	# the user's rule blocks it: kinpolicy's hook names it first (it
	# judges Claude Code's rules too), else Claude Code would
	said claude-ksh 3 're:(your permission rule Bash\(git push:\*\)|Permission to use Bash with command git push)'
	assert_not_exists "$_p/pushed-marker"
	# the hook answered without a rewrite
	if grep -l updatedInput "$RUNS/claude-ksh/hooks/"*.out 2>/dev/null | grep -q .; then
		fail "the hook rewrote a command although the prefix runs it under kinbox"
	fi
}
run_test "claude-code with kinbox-sh --claude-code as its prefix (what hook install sets): calls run under kinbox, no rewrite, a cd holds, the user's deny rule blocks git push" t_prefix_kinbox_sh

done_testing
