#!/bin/sh
# tests/t52-hook-install.sh — `kinpolicy hook install AGENT` and `kinpolicy
# hook uninstall AGENT` on real files, in a home directory of each test's
# own: the README's block written into an empty home for each agent
# (compared, as JSON, with the block this script builds from the README's
# events, matchers and timeouts) with kinpolicy's absolute path, so that
# the agent's PATH does not matter (the written command is run with an
# empty PATH); a user's settings (rules, permissions, other hooks, reals,
# UTF-8) kept, other hooks first and in order, the mode kept, the backup
# the file as it was; a second install changes nothing and says so; an
# older kinpolicy path updated, not duplicated; --dry-run writes nothing,
# and its diff, applied with patch(1), is what install then writes; files
# refused with exit status 125, one line, untouched (not JSON, another
# shape, a symlink out of the home directory, --project at the home
# directory); uninstall gives the original JSON back; end to end, the
# installed command (given the kinbox under test) answers a Claude Code
# Bash call with a rewrite whose write lands in the project, and one
# outside does not; --project writes the
# repository's file; a symlink inside the home directory is followed and
# kept; CODEX_HOME is where Codex's file goes. Each test has its positive
# control. JSON is compared with python3.
# shellcheck disable=SC2317,SC2164
# SC2317: the t_* bodies are called through run_test.
# SC2164: lib.sh sets -e (test bodies run under set -e): a failed cd fails.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

KP=$KINPOLICY
unset CLAUDE_CONFIG_DIR CODEX_HOME GEMINI_CLI_HOME XDG_CONFIG_HOME || true
PY=python3
if [ -x /usr/bin/python3 ]; then
	PY=/usr/bin/python3
fi
B=$KB_T/bin
mkdir "$B"

if [ ! -x "$KP" ]; then
	tap_not_ok "kinpolicy binary $KP exists (build it: make all)"
	done_testing
fi
if ! have "$PY"; then
	skip_all "python3 is needed to compare the JSON"
fi
# the path the hook command names: kinpolicy's own, resolved
KPREAL=$(readlink -f "$KP")
diag "kinpolicy: $KP ($KPREAL); uid $(id -u)"

# hi.py VERB ...: the JSON side of these tests
#   block AGENT CMD         the README's block for AGENT with command CMD
#   eq A B                  the JSON of files A and B is equal
#   pretty F                F is as kinpolicy writes JSON: 2-space indent,
#                           UTF-8 as it is, a final newline
#   kept ORIG NEW AGENT CMD NEW is ORIG with AGENT's block merged: every
#                           other key equal, every event's hooks of ORIG
#                           first and in order, then exactly kinpolicy's
#   count F                 handlers whose command runs "kinpolicy hook"
#   cmd F EVENT             the command of EVENT's kinpolicy handler
cat >"$B/hi.py" <<'EOF'
import json, sys

BLOCKS = {
    "claude-code": [("PreToolUse", "Bash|Edit|Write|MultiEdit|NotebookEdit", 30),
                    ("PostToolUseFailure", "Bash", None),
                    ("SessionStart", None, None)],
    "codex": [("PreToolUse", "^(Bash|apply_patch)$", 30),
              ("PostToolUse", "^Bash$", None),
              ("SessionStart", None, None)],
    "gemini": [("BeforeTool", "run_shell_command|write_file|replace", 30000),
               ("AfterTool", "run_shell_command", None),
               ("SessionStart", None, None)],
}

def prefix(cmd):
    # Claude Code's shell prefix: kinbox-sh beside kinpolicy, when there
    import os
    kp = cmd.split(" hook ")[0]
    sh = os.path.join(os.path.dirname(kp), "kinbox-sh")
    return sh + " --claude-code" if os.access(sh, os.X_OK) else None

def block(agent, cmd):
    if agent == "claude-code" and prefix(cmd) is not None:
        b = block("claude-code-hooks", cmd)
        b["env"] = {"CLAUDE_CODE_SHELL_PREFIX": prefix(cmd)}
        return b
    if agent == "claude-code-hooks":
        agent = "claude-code"
    if agent == "cursor":
        return {"version": 1,
                "hooks": {"beforeShellExecution": [{"command": cmd}]}}
    hooks = {}
    for ev, m, t in BLOCKS[agent]:
        h = {"type": "command", "command": cmd}
        if t is not None:
            h["timeout"] = t
        g = {}
        if m is not None:
            g["matcher"] = m
        g["hooks"] = [h]
        hooks[ev] = [g]
    return {"hooks": hooks}

def load(p):
    with open(p, encoding="utf-8") as f:
        return json.load(f)

def handlers(doc):
    for ev, arr in (doc.get("hooks") or {}).items():
        if not isinstance(arr, list):
            continue
        for g in arr:
            if not isinstance(g, dict):
                continue
            if "command" in g:
                yield ev, g
            for h in g.get("hooks") or []:
                if isinstance(h, dict):
                    yield ev, h

def ours(h):
    c = h.get("command")
    return isinstance(c, str) and " hook " in c and "kinpolicy" in c.split(" hook ")[0]

def main():
    v = sys.argv[1]
    if v == "block":
        print(json.dumps(block(sys.argv[2], sys.argv[3])))
    elif v == "eq":
        a, b = load(sys.argv[2]), load(sys.argv[3])
        if a != b:
            print("not equal:\n%s\n%s" % (json.dumps(a), json.dumps(b)), file=sys.stderr)
            sys.exit(1)
    elif v == "pretty":
        with open(sys.argv[2], encoding="utf-8") as f:
            t = f.read()
        want = json.dumps(json.loads(t), indent=2, ensure_ascii=False) + "\n"
        if t != want:
            print("not as kinpolicy writes it:\n%r\n%r" % (t, want), file=sys.stderr)
            sys.exit(1)
    elif v == "kept":
        orig, new, agent, cmd = load(sys.argv[2]), load(sys.argv[3]), sys.argv[4], sys.argv[5]
        for k in orig:
            if k == "env" and agent == "claude-code":
                # kept, with the shell prefix added at its end
                e = dict(new.get(k, {}))
                e.pop("CLAUDE_CODE_SHELL_PREFIX", None)
                if e != orig[k]:
                    sys.exit("key env changed")
                continue
            if k != "hooks" and orig[k] != new.get(k):
                sys.exit("key %s changed" % k)
        added = [k for k in block(agent, cmd) if k != "hooks" and k not in orig]
        if [k for k in new if k != "hooks"] != [k for k in orig if k != "hooks"] + added:
            sys.exit("the keys' order changed")
        want = block(agent, cmd)["hooks"]
        oh, nh = orig.get("hooks", {}), new["hooks"]
        for ev, arr in oh.items():
            if nh.get(ev, [])[:len(arr)] != arr:
                sys.exit("event %s: the original hooks are not kept first, in order" % ev)
        for ev, arr in nh.items():
            extra = arr[len(oh.get(ev, [])):]
            if extra != want.get(ev, []):
                sys.exit("event %s: added %s, expected %s" % (ev, json.dumps(extra), json.dumps(want.get(ev, []))))
        for ev in want:
            if ev not in nh:
                sys.exit("event %s missing" % ev)
    elif v == "count":
        print(sum(1 for _, h in handlers(load(sys.argv[2])) if ours(h)))
    elif v == "cmd":
        for ev, h in handlers(load(sys.argv[2])):
            if ev == sys.argv[3] and ours(h):
                print(h["command"])
                return
        sys.exit("no kinpolicy handler in %s" % sys.argv[3])

main()
EOF
hi() {
	"$PY" "$B/hi.py" "$@"
}

# fresh_home NAME: a new, empty home directory, exported as HOME
fresh_home() {
	HOME=$KB_T/$1
	mkdir -m 700 "$HOME"
	export HOME
}

# kp_run ARG...: kinpolicy; stdout, stderr, status in $KB_T/out, err, rc
kp_run() {
	_rc=0
	"$KP" "$@" >"$KB_T/out" 2>"$KB_T/err" || _rc=$?
	echo "$_rc" >"$KB_T/rc"
	cat "$KB_T/out" "$KB_T/err"
}

# a user's settings: rules, permissions, other hooks, a real, UTF-8, written
# as kinpolicy writes JSON (so that patch(1) applies the --dry-run diff)
user_claude() {
	"$PY" - "$1" <<'EOF'
import json, sys
doc = {
  "model": "opus",
  "permissions": {"allow": ["Bash(npm test)", "Read(~/src/**)"],
                  "deny": ["Read(./.env)"], "defaultMode": "acceptEdits"},
  "env": {"GREETING": "h\u00e9llo \U0001F600", "RATIO": 0.1, "N": 7},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/guard-one", "timeout": 5}]},
      {"matcher": "Write", "hooks": [{"type": "command", "command": "guard-two"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
  },
  "statusLine": {"type": "command", "command": "~/bin/status"}
}
with open(sys.argv[1], "w", encoding="utf-8") as f:
    f.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
EOF
}

# the file of AGENT in $HOME
file_of() {
	case $1 in
	claude-code) echo "$HOME/.claude/settings.json" ;;
	codex) echo "$HOME/.codex/hooks.json" ;;
	gemini) echo "$HOME/.gemini/settings.json" ;;
	cursor) echo "$HOME/.cursor/hooks.json" ;;
	esac
}

# --- install into an empty home ----------------------------------------------
t_empty_home() {
	fresh_home "home-empty"
	for a in claude-code codex gemini cursor; do
		f=$(file_of "$a")
		# control: nothing there before
		assert_not_exists "$f"
		kp_run hook install "$a"
		assert_streq "$(cat "$KB_T/rc")" 0 "hook install $a"
		assert_file_has_content "$KB_T/out" "^installed the $a hook in $f:"
		assert_file_has_content "$KB_T/out" "^command: $KPREAL hook $a \\(this kinpolicy's absolute path"
		hi block "$a" "$KPREAL hook $a" >"$KB_T/want.json"
		hi eq "$KB_T/want.json" "$f"
		hi pretty "$f"
		assert_streq "$(stat -c %a "$(dirname "$f")")" 700 \
			"the directory made for $a"
		assert_file_has_content "$KB_T/out" "^made $(dirname "$f") \\(mode 0700\\)$"
		assert_not_exists "$f.kinbox-bak"
	done
	# no temporary file left beside
	[ "$(find "$HOME" -name '*kinbox-tmp*' | wc -l)" -eq 0 ] ||
		fail "a temporary file was left"
}
run_test "install into an empty home: the README's block for each agent, kinpolicy's absolute path, directories 0700" t_empty_home

t_path_free() {
	fresh_home "home-path"
	kp_run hook install claude-code
	assert_streq "$(cat "$KB_T/rc")" 0
	cmd=$(hi cmd "$HOME/.claude/settings.json" PreToolUse)
	# control: the bare name is not found without a PATH
	rc=0
	env -i PATH=/nonexistent /bin/sh -c "kinpolicy hook claude-code" \
		</dev/null >/dev/null 2>&1 || rc=$?
	assert_streq "$rc" 127 "the bare kinpolicy is not found without PATH"
	# the written command runs kinpolicy's hook (an empty event: it
	# refuses, fail closed, exit 2, in Claude Code's schema)
	rc=0
	env -i PATH=/nonexistent HOME="$HOME" /bin/sh -c "$cmd" \
		</dev/null >"$KB_T/hook.out" 2>"$KB_T/hook.err" || rc=$?
	assert_streq "$rc" 2 "the written command ran kinpolicy hook"
	[ -s "$KB_T/hook.err" ] || fail "kinpolicy hook said nothing on stderr"
}
run_test "the written command runs kinpolicy's hook with no PATH at all" t_path_free

t_end_to_end() {
	fresh_home "home-e2e"
	repo=$KB_T/e2e
	mkrepo "$repo"
	mkdir "$KB_T/e2e-outside"
	# the suites' preflight (the stub kinbox answers it)
	mkdir -p "$KB_T/preflight"
	rc=0
	(cd "$KB_T/preflight" && "$KINBOX" -- true) >"$KB_T/pre.log" 2>&1 || rc=$?
	[ "$rc" = 0 ] || skip_test "kinbox cannot set up a sandbox here: $(head -1 "$KB_T/pre.log")"
	kp_run hook install claude-code
	assert_streq "$(cat "$KB_T/rc")" 0
	cmd=$(hi cmd "$HOME/.claude/settings.json" PreToolUse)
	for w in "$repo/made.txt" "$KB_T/e2e-outside/made.txt"; do
		"$PY" -c 'import json, sys; print(json.dumps({"session_id": "s1", "transcript_path": "/nonexistent/t.jsonl", "cwd": sys.argv[1], "permission_mode": "bypassPermissions", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "echo made-by-hook > " + sys.argv[2]}, "tool_use_id": "toolu_1"}))' \
			"$repo" "$w" >"$KB_T/event.json"
		# the command install wrote, pointed at the kinbox under test
		(cd "$repo" && sh -c "$cmd --kinbox \"\$1\"" sh "$KINBOX") \
			<"$KB_T/event.json" >"$KB_T/answer.json"
		"$PY" -c 'import json, sys; o = json.load(open(sys.argv[1]))["hookSpecificOutput"]; assert o["permissionDecision"] == "allow", o; print(o["updatedInput"]["command"])' \
			"$KB_T/answer.json" >"$KB_T/rewritten"
		# control: nothing ran yet
		assert_not_exists "$w"
		rc=0
		(cd "$repo" && bash -c "$(cat "$KB_T/rewritten")") >"$KB_T/run.log" 2>&1 || rc=$?
		if [ "$w" = "$repo/made.txt" ]; then
			assert_streq "$rc" 0 "the rewritten command ran: $(cat "$KB_T/run.log")"
			assert_file_has_content "$w" '^made-by-hook$'
		else
			assert_strne "$rc" 0 "a write outside the workspace fails"
			assert_not_exists "$w"
		fi
	done
}
run_test "end to end: the installed hook wraps a Claude Code Bash call in kinbox; its write lands in the project, one outside does not" t_end_to_end

# --- a user's settings ---------------------------------------------------------
t_user_settings() {
	fresh_home "home-user"
	f=$HOME/.claude/settings.json
	mkdir -m 700 "$HOME/.claude"
	user_claude "$f"
	chmod 640 "$f"
	cp "$f" "$KB_T/orig.json"
	# control: nothing of kinpolicy's in it yet
	assert_streq "$(hi count "$f")" 0
	kp_run hook install claude-code
	assert_streq "$(cat "$KB_T/rc")" 0
	hi kept "$KB_T/orig.json" "$f" claude-code "$KPREAL hook claude-code"
	hi pretty "$f"
	assert_streq "$(hi count "$f")" 3 "one handler for each of the 3 events"
	assert_streq "$(stat -c %a "$f")" 640 "the file's mode is kept"
	assert_files_equal "$KB_T/orig.json" "$f.kinbox-bak"
	assert_streq "$(stat -c %a "$f.kinbox-bak")" 640 "the backup's mode"
	assert_file_has_content "$KB_T/out" "^backup of the file as it was: $f.kinbox-bak$"
	assert_file_has_content "$KB_T/out" '^  PreToolUse +added'
	assert_file_has_content "$f" '"GREETING": "h.+llo .+"'
	assert_file_has_content "$f" '"RATIO": 0.1,'
}
run_test "install into a user's settings: rules, permissions and other hooks kept, in order; mode kept; the backup is the file as it was" t_user_settings

t_second_install() {
	fresh_home "home-again"
	f=$HOME/.claude/settings.json
	mkdir -m 700 "$HOME/.claude"
	user_claude "$f"
	kp_run hook install claude-code
	assert_streq "$(cat "$KB_T/rc")" 0
	# control: the first install changed the file
	if cmp -s "$f" "$f.kinbox-bak"; then
		fail "the first install did not change the file"
	fi
	cp "$f" "$KB_T/after1.json"
	cp "$f.kinbox-bak" "$KB_T/bak1.json"
	ino=$(stat -c %i "$f")
	kp_run hook install claude-code
	assert_streq "$(cat "$KB_T/rc")" 0
	assert_file_has_content "$KB_T/out" "^the claude-code hook is already installed in $f: nothing changed"
	assert_files_equal "$KB_T/after1.json" "$f"
	assert_streq "$(stat -c %i "$f")" "$ino" "the file was not rewritten"
	assert_files_equal "$KB_T/bak1.json" "$f.kinbox-bak"
}
run_test "a second install changes nothing and says so (file and backup untouched)" t_second_install

t_old_path() {
	fresh_home "home-old"
	f=$HOME/.codex/hooks.json
	mkdir -m 700 "$HOME/.codex"
	cat >"$f" <<'EOF'
{"hooks": {"PreToolUse": [
  {"matcher": "^Bash$", "hooks": [{"type": "command", "command": "/opt/old/bin/kinpolicy hook codex", "timeout": 30}]},
  {"matcher": "^Bash$", "hooks": [{"type": "command", "command": "audit-log"}]}
]}}
EOF
	# control: the old path is there
	assert_streq "$(hi cmd "$f" PreToolUse)" "/opt/old/bin/kinpolicy hook codex"
	kp_run hook install codex
	assert_streq "$(cat "$KB_T/rc")" 0
	assert_file_has_content "$KB_T/out" '^  PreToolUse +updated \(was: /opt/old/bin/kinpolicy hook codex\)'
	assert_streq "$(hi cmd "$f" PreToolUse)" "$KPREAL hook codex"
	assert_streq "$(hi count "$f")" 3 "PreToolUse updated, not duplicated; PostToolUse and SessionStart added"
	"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1]))["hooks"]["PreToolUse"]; sys.exit(0 if len(d)==2 and d[1]["hooks"][0]["command"]=="audit-log" else 1)' "$f" ||
		fail "the other PreToolUse hook moved or went"
}
run_test "an entry with an older kinpolicy path is updated in place, not duplicated" t_old_path

# --- --dry-run -------------------------------------------------------------------
t_dry_run() {
	require patch
	fresh_home "home-dry"
	f=$HOME/.claude/settings.json
	mkdir -m 700 "$HOME/.claude"
	user_claude "$f"
	cp "$f" "$KB_T/orig.json"
	kp_run hook install claude-code --dry-run
	assert_streq "$(cat "$KB_T/rc")" 0
	assert_files_equal "$KB_T/orig.json" "$f"
	assert_not_exists "$f.kinbox-bak"
	assert_file_has_content "$KB_T/out" '^would install the claude-code hook'
	assert_file_has_content "$KB_T/out" "^--- $f\$"
	assert_file_has_content "$KB_T/out" "^\\+\\+\\+ $f\$"
	assert_file_has_content "$KB_T/out" '^@@ -[0-9]+,[0-9]+ \+[0-9]+,[0-9]+ @@$'
	assert_file_has_content "$KB_T/out" "^\\+ +\"command\": \"$KPREAL hook claude-code\""
	# the diff, applied, is what install writes
	sed -n '/^--- /,$p' "$KB_T/out" >"$KB_T/change.diff"
	cp "$KB_T/orig.json" "$KB_T/patched.json"
	patch -s "$KB_T/patched.json" "$KB_T/change.diff"
	kp_run hook install claude-code
	assert_streq "$(cat "$KB_T/rc")" 0
	# control: the real install changed the file
	if cmp -s "$KB_T/orig.json" "$f"; then
		fail "install did not change the file"
	fi
	assert_files_equal "$KB_T/patched.json" "$f"
	# uninstall --dry-run: nothing written either
	cp "$f" "$KB_T/installed.json"
	kp_run hook uninstall claude-code --dry-run
	assert_streq "$(cat "$KB_T/rc")" 0
	assert_files_equal "$KB_T/installed.json" "$f"
	assert_file_has_content "$KB_T/out" "^-.*\"command\": \"$KPREAL hook claude-code\""
	# and in an empty home: no directory made
	fresh_home "home-dry-empty"
	kp_run hook install gemini --dry-run
	assert_streq "$(cat "$KB_T/rc")" 0
	assert_not_exists "$HOME/.gemini"
	assert_file_has_content "$KB_T/out" '^--- /dev/null$'
}
run_test "--dry-run writes nothing (no file, backup or directory) and prints the diff install then applies" t_dry_run

# --- refusals --------------------------------------------------------------------
# refused FILE ARG...: kinpolicy ARG... exits 125 with one line, and FILE
# (and its directory) are as they were
refused() {
	_f=$1
	shift
	ls -la "$(dirname "$_f")" >"$KB_T/dir.before" 2>&1 || true
	cp -P "$_f" "$KB_T/file.before" 2>/dev/null || true
	kp_run "$@"
	assert_streq "$(cat "$KB_T/rc")" 125 "kinpolicy $*"
	assert_streq "$(wc -l <"$KB_T/err")" 1 "one line on stderr"
	assert_file_has_content "$KB_T/err" '^kinpolicy: '
	[ ! -s "$KB_T/out" ] || fail "something on stdout"
	ls -la "$(dirname "$_f")" >"$KB_T/dir.after" 2>&1 || true
	assert_files_equal "$KB_T/dir.before" "$KB_T/dir.after"
	if [ -e "$KB_T/file.before" ] || [ -L "$KB_T/file.before" ]; then
		assert_files_equal "$KB_T/file.before" "$_f"
	fi
	rm -f "$KB_T/file.before"
}

t_refused() {
	fresh_home "home-bad"
	f=$HOME/.claude/settings.json
	mkdir -m 700 "$HOME/.claude"
	printf '{"hooks": {"PreToolUse": [}\n' >"$f"
	refused "$f" hook install claude-code
	assert_file_has_content "$KB_T/err" 'not valid JSON \(line 1, column [0-9]+'
	refused "$f" hook uninstall claude-code
	printf '{"permissions": {}, "hooks": []}\n' >"$f"
	refused "$f" hook install claude-code
	assert_file_has_content "$KB_T/err" '"hooks" is an array, not an object'
	printf '{"hooks": {"PreToolUse": [{"matcher": "x", "hooks": "guard"}]}}\n' >"$f"
	refused "$f" hook install claude-code
	assert_file_has_content "$KB_T/err" 'hooks.PreToolUse\[0\].hooks is a string, not an array'
	printf '{"a": 1, "a": 2}\n' >"$f"
	refused "$f" hook install claude-code --dry-run
	assert_file_has_content "$KB_T/err" 'duplicate object key'
	mkdir -m 700 "$HOME/.cursor"
	printf '{"version": 2, "hooks": {}}\n' >"$HOME/.cursor/hooks.json"
	refused "$HOME/.cursor/hooks.json" hook install cursor
	# control: the same file, fixed, is taken
	printf '{"permissions": {}, "hooks": {}}\n' >"$f"
	kp_run hook install claude-code
	assert_streq "$(cat "$KB_T/rc")" 0 "the fixed file is taken"
}
run_test "files that are not JSON or not of the agent's shape: exit 125, one line, nothing written" t_refused

t_symlinks() {
	fresh_home "home-link"
	outside=$KB_T/outside-settings.json
	printf '{"x": 1}\n' >"$outside"
	cp "$outside" "$KB_T/outside.orig"
	mkdir -m 700 "$HOME/.claude" "$HOME/dotfiles"
	ln -s "$outside" "$HOME/.claude/settings.json"
	refused "$HOME/.claude/settings.json" hook install claude-code
	assert_file_has_content "$KB_T/err" 'is a symbolic link to .*, outside your home directory'
	assert_files_equal "$KB_T/outside.orig" "$outside"
	# a directory on the way that leads out
	ln -s "$KB_T" "$HOME/.codex"
	refused "$HOME/.codex/hooks.json" hook install codex
	assert_not_exists "$KB_T/hooks.json"
	# control: a link inside the home directory is followed, and kept
	rm "$HOME/.claude/settings.json"
	printf '{"y": 2}\n' >"$HOME/dotfiles/claude.json"
	ln -s ../dotfiles/claude.json "$HOME/.claude/settings.json"
	kp_run hook install claude-code
	assert_streq "$(cat "$KB_T/rc")" 0
	[ -L "$HOME/.claude/settings.json" ] || fail "the link was replaced"
	assert_streq "$(hi count "$HOME/dotfiles/claude.json")" 3
	assert_exists "$HOME/dotfiles/claude.json.kinbox-bak"
	assert_file_has_content "$KB_T/out" "is a link to $HOME/dotfiles/claude.json: that file was written"
}
run_test "a symlink out of the home directory is refused; one inside is followed and kept" t_symlinks

# --- uninstall ------------------------------------------------------------------
t_uninstall() {
	fresh_home "home-un"
	mkdir -m 700 "$HOME/.claude" "$HOME/.codex" "$HOME/.gemini" "$HOME/.cursor"
	user_claude "$HOME/.claude/settings.json"
	cat >"$HOME/.codex/hooks.json" <<'EOF'
{"description": "team hooks", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify"}]}],
 "PreToolUse": [{"matcher": "^apply_patch$", "hooks": [{"type": "command", "command": "lint", "timeout": 9}]}]}}
EOF
	cat >"$HOME/.gemini/settings.json" <<'EOF'
{"general": {"vimMode": true}, "hooksConfig": {"enabled": true},
 "hooks": {"BeforeTool": [{"matcher": "write_file", "sequential": true, "hooks": [{"type": "command", "command": "fmt", "name": "fmt"}]}]}}
EOF
	cat >"$HOME/.cursor/hooks.json" <<'EOF'
{"version": 1, "hooks": {"afterFileEdit": [{"command": "./fmt.sh"}], "beforeShellExecution": [{"command": "./audit.sh"}]}}
EOF
	for a in claude-code codex gemini cursor; do
		f=$(file_of "$a")
		cp "$f" "$KB_T/orig-$a.json"
		kp_run hook install "$a"
		assert_streq "$(cat "$KB_T/rc")" 0 "install $a"
		# control: installed, the JSON is not the original's
		if hi eq "$KB_T/orig-$a.json" "$f" 2>/dev/null; then
			fail "$a: install changed nothing"
		fi
		kp_run hook uninstall "$a"
		assert_streq "$(cat "$KB_T/rc")" 0 "uninstall $a"
		assert_file_has_content "$KB_T/out" "^removed the $a hook from $f:"
		hi eq "$KB_T/orig-$a.json" "$f"
		assert_streq "$(hi count "$f")" 0
		# a second uninstall finds nothing
		kp_run hook uninstall "$a"
		assert_streq "$(cat "$KB_T/rc")" 0
		assert_file_has_content "$KB_T/out" "^no $a hook of kinpolicy in $f: nothing changed"
	done
	# a missing file: nothing to remove
	fresh_home "home-un-none"
	kp_run hook uninstall codex
	assert_streq "$(cat "$KB_T/rc")" 0
	assert_file_has_content "$KB_T/out" 'does not exist: no codex hook to remove'
	assert_not_exists "$HOME/.codex"
}
run_test "uninstall gives each agent's original JSON back; a second uninstall finds nothing" t_uninstall

# --- --project, CODEX_HOME -------------------------------------------------------
t_project() {
	fresh_home "home-proj"
	repo=$KB_T/proj
	mkrepo "$repo"
	mkdir -p "$repo/src/sub"
	(cd "$repo/src/sub" && kp_run hook install claude-code --project)
	assert_streq "$(cat "$KB_T/rc")" 0
	assert_exists "$repo/.claude/settings.json"
	assert_not_exists "$HOME/.claude"
	assert_file_has_content "$KB_T/out" "^installed the claude-code hook in $repo/.claude/settings.json:"
	(cd "$repo" && kp_run hook install codex --project)
	assert_streq "$(cat "$KB_T/rc")" 0
	assert_exists "$repo/.codex/hooks.json"
	assert_file_has_content "$KB_T/out" 'only in a project it trusts'
	(cd "$repo/src" && kp_run hook uninstall claude-code --project)
	assert_streq "$(cat "$KB_T/rc")" 0
	assert_streq "$(hi count "$repo/.claude/settings.json")" 0
	# not in a repository; a repository at the home directory
	mkdir "$KB_T/norepo"
	(cd "$KB_T/norepo" && refused "$KB_T/norepo/x" hook install claude-code --project)
	assert_file_has_content "$KB_T/err" 'no git repository around'
	git init -q "$HOME"
	mkdir "$HOME/notes"
	(cd "$HOME/notes" && refused "$HOME/.gemini/settings.json" hook install gemini --project)
	assert_file_has_content "$KB_T/err" 'has its top at .*, your home directory'
	assert_not_exists "$HOME/.gemini"
	# a project whose .claude leads out of it
	repo2=$KB_T/proj2
	mkrepo "$repo2"
	mkdir -m 700 "$HOME/.claude"
	ln -s "$HOME/.claude" "$repo2/.claude"
	(cd "$repo2" && refused "$HOME/.claude/settings.json" hook install claude-code --project)
	assert_file_has_content "$KB_T/err" 'outside the project'
	assert_not_exists "$HOME/.claude/settings.json"
}
run_test "--project writes the repository's file; refused outside a repository, at the home directory, through a link out of it" t_project

t_codex_home() {
	fresh_home "home-ch"
	mkdir "$KB_T/codex-home"
	CODEX_HOME=$KB_T/codex-home kp_run hook install codex
	assert_streq "$(cat "$KB_T/rc")" 0
	assert_exists "$KB_T/codex-home/hooks.json"
	assert_not_exists "$HOME/.codex"
	# control: without it, ~/.codex
	kp_run hook install codex
	assert_streq "$(cat "$KB_T/rc")" 0
	assert_exists "$HOME/.codex/hooks.json"
	# a config.toml that turns hooks off is warned about, not changed
	printf '[features]\nhooks = false\n' >"$KB_T/codex-home/config.toml"
	cp "$KB_T/codex-home/config.toml" "$KB_T/config.orig"
	CODEX_HOME=$KB_T/codex-home kp_run hook install codex
	assert_streq "$(cat "$KB_T/rc")" 0
	assert_file_has_content "$KB_T/err" "config.toml, line 2, turns Codex's hooks off"
	assert_files_equal "$KB_T/config.orig" "$KB_T/codex-home/config.toml"
}
run_test "CODEX_HOME is where Codex's hooks.json goes; a config.toml turning hooks off is warned about, untouched" t_codex_home

done_testing
