#!/bin/sh
# tests/t53-hooks.sh — `kinpolicy hook AGENT` end to end: recorded hook
# payloads of Claude Code, Codex, Gemini CLI and Cursor
# (tests/fixtures/hooks/AGENT-CASE.json, written from the agents'
# documented schemas, research17.md) against golden answers
# (tests/golden/hooks/AGENT-CASE.out and .rc, byte for byte); the
# rewritten commands run as an agent would run them, judged from outside;
# the classifier's adversarial command strings through the rewrite; every
# Codex answer against Codex's published JSON schemas
# (tests/fixtures/hooks/schema/codex); the fail-closed answers.
#
# Placeholders in the fixtures and goldens: @WS@ the project root (a git
# repository made here), @SUB@ the agent's cwd below it, @HOME@, @OUTSIDE@
# a directory outside the workspace, @KINBOX@ the kinbox under test,
# @ID@ the id of a denial a real kinbox run recorded first, @PAD2M@ 2 MiB
# of padding. Beside a fixture, AGENT-CASE.env (NAME=VALUE lines) is the
# hook's environment and AGENT-CASE.args (one a line) its options.
#
# KB_HOOK_GOLDEN_UPDATE=1 sh tests/t53-hooks.sh rewrites the goldens from
# what kinpolicy answers now (review the diff: the reasons are in them,
# and a golden that holds what kinpolicy should answer must not become the
# bug it catches).
# shellcheck disable=SC2317,SC2016,SC2164
# SC2317: the t_* bodies are called through run_test.
# SC2016: single-quoted $... is meant for the shell the hook's rewrite runs.
# SC2164: lib.sh sets -e (test bodies run under set -e): a failed cd fails.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

FIX=$KB_TESTS_DIR/fixtures/hooks
GOLD=$KB_TESTS_DIR/golden/hooks
CASES_H=$KB_TESTS_DIR/unit/readonly-cases.h
KP=$KINPOLICY
AGENTS="claude-code codex gemini cursor"

unset XDG_CONFIG_HOME XDG_STATE_HOME XDG_CACHE_HOME KINBOX_SESSION \
	KINBOX_JSON_FD CLAUDE_PROJECT_DIR CLAUDE_ENV_FILE CODEX_ENV_FILE \
	GEMINI_PROJECT_DIR || true
HOME=$KB_T/home
XDG_RUNTIME_DIR=$KB_T/run
mkdir -p "$HOME"
mkdir -m 700 "$XDG_RUNTIME_DIR"
export HOME XDG_RUNTIME_DIR

PY=python3
if [ -x /usr/bin/python3 ]; then
	PY=/usr/bin/python3
fi
B=$KB_T/bin
R=$KB_T/res
mkdir "$B" "$R"

# --- preflight ---------------------------------------------------------------
if [ ! -x "$KP" ]; then
	tap_not_ok "kinpolicy binary $KP exists (build it: make all)"
	done_testing
fi
if ! have "$PY"; then
	skip_all "python3 is needed to read the hooks' JSON"
fi
if [ ! -d "$FIX" ] || [ ! -d "$GOLD" ]; then
	tap_not_ok "the fixtures $FIX and goldens $GOLD are there"
	done_testing
fi
mkdir "$KB_T/preflight"
if ! (cd "$KB_T/preflight" && "$KINBOX" -- true) >"$KB_T/preflight.log" 2>&1; then
	diag "$(cat "$KB_T/preflight.log")"
	skip_all "kinbox cannot set up a sandbox on this host"
fi
diag "kinbox: $KINBOX; kinpolicy: $KP; uid $(id -u)"

# --- the places the fixtures name ---------------------------------------------
WS=$KB_T/ws
SUB=$WS/src/sub
OUTSIDE=$KB_T/outside
mkrepo "$WS"
mkdir -p "$SUB" "$OUTSIDE"
# a directory of the project that is really outside it (a symlink an earlier
# sandboxed command could have planted)
ln -s "$OUTSIDE" "$WS/src/link-out"
printf 'int x;\n' >"$SUB/main.c"
export KBH_WS="$WS" KBH_SUB="$SUB" KBH_HOME="$HOME" KBH_OUTSIDE="$OUTSIDE" \
	KBH_KINBOX="$KINBOX"

# --- helper programs (under $KB_T/bin: outside every workspace) -------------
# hk.py VERB ...: the JSON side of these tests
#   subst IN OUT        the placeholders of IN replaced (KBH_* variables)
#   unsubst IN OUT      the other way (for KB_HOOK_GOLDEN_UPDATE)
#   get FILE KEY...     a string inside the one JSON object of FILE
#   suffix FILE KEY P   the string KEY of FILE after its prefix P
#   codex FILE KIND     FILE against Codex's schema KIND (…input/…output)
#   struct AGENT IN OUT OUT is an answer AGENT's documented schema allows
#                       for the event IN (the structural check)
#   denies AGENT OUT    OUT is a deny in AGENT's schema
#   hostile H PRINTER   the adversarial cases of readonly-cases.h H
cat >"$B/hk.py" <<'EOF'
import json, os, re, subprocess, sys

def places():
    e = os.environ
    # longest first: @SUB@ lies inside @WS@
    p = [("@SUB@", e["KBH_SUB"]), ("@WS@", e["KBH_WS"]),
         ("@OUTSIDE@", e["KBH_OUTSIDE"]), ("@HOME@", e["KBH_HOME"]),
         ("@KINBOX@", e["KBH_KINBOX"])]
    if e.get("KBH_ID"):
        p.append(("@ID@", e["KBH_ID"]))
    return p

def subst(src, dst):
    t = open(src, "rb").read().decode()
    if "@ID@" in t and not os.environ.get("KBH_ID"):
        sys.exit("%s: needs the id of a recorded denial, and kinbox "
                 "recorded none" % src)
    t = t.replace("@PAD2M@", "a" * (2 * 1024 * 1024))
    for k, v in places():
        t = t.replace(k, v)
    open(dst, "wb").write(t.encode())

def unsubst(src, dst):
    t = open(src, "rb").read().decode()
    for k, v in sorted(places(), key=lambda kv: -len(kv[1])):
        t = t.replace(v, k)
    open(dst, "wb").write(nosession(t).encode())

def nosession(t):
    # the kinbox session a rewrite carries is made at the session's
    # start or first call: any id, @SES@ in a golden
    return re.sub(r"KINBOX_SESSION=ses_[0-9a-f]{16} ", "KINBOX_SESSION=@SES@ ", t)

def nosess(src, dst):
    open(dst, "wb").write(nosession(open(src, "rb").read().decode()).encode())

def load1(path):
    t = open(path).read()
    if t.count("\n") != 1 or not t.endswith("\n"):
        sys.exit("%s: not one line of JSON: %r" % (path, t[:200]))
    o = json.loads(t)
    if not isinstance(o, dict):
        sys.exit("%s: not a JSON object" % path)
    return o

def get(path, *keys):
    o = json.load(open(path))
    for k in keys:
        o = o[k]
    sys.stdout.write(o)

def suffix(path, key, prefix):
    s = load1(path)[key]
    if s.startswith(prefix):
        sys.stdout.write(s[len(prefix):])

def codex(path, kind):
    try:
        import jsonschema
    except ImportError:
        sys.exit(77)
    sch = json.load(open(os.path.join(os.environ["KBH_SCHEMA"],
                                      kind + ".schema.json")))
    o = load1(path) if kind.endswith("output") else json.load(open(path))
    errs = list(jsonschema.Draft7Validator(sch).iter_errors(o))
    for e in errs:
        print("%s: %s: %s at %s" % (path, kind, e.message,
                                    list(e.absolute_path)), file=sys.stderr)
    sys.exit(1 if errs else 0)

def codexall(fixdir, resdir, counts):
    """codex for every codex-*.json fixture's input (against the schema of
    its hook_event_name; none known: answered as a PreToolUse) and answer,
    in one process: prints "NAME: ANSWER" for each answer that does not
    validate (the reasons on stderr), then the totals; writes "IN OUT BAD"
    and the answers' kinds to COUNTS"""
    try:
        import jsonschema
    except ImportError:
        sys.exit(77)
    kinds = {"PreToolUse": "pre-tool-use", "PostToolUse": "post-tool-use",
             "SessionStart": "session-start"}
    schemas = {}
    def valid(path, kind):
        if kind not in schemas:
            schemas[kind] = jsonschema.Draft7Validator(json.load(open(
                os.path.join(os.environ["KBH_SCHEMA"], kind + ".schema.json"))))
        try:
            o = load1(path) if kind.endswith("output") else json.load(open(path))
        except (Exception, SystemExit) as e:
            print("%s: %s: %s" % (path, kind, e), file=sys.stderr)
            return False
        errs = list(schemas[kind].iter_errors(o))
        for e in errs:
            print("%s: %s: %s at %s" % (path, kind, e.message,
                                        list(e.absolute_path)), file=sys.stderr)
        return not errs
    def nonempty(path):
        return os.path.isfile(path) and os.path.getsize(path) > 0
    n_in = n_out = bad = 0
    seen = []
    names = sorted(f[:-5] for f in os.listdir(fixdir)
                   if f.startswith("codex-") and f.endswith(".json"))
    for n in names:
        inp, out = os.path.join(resdir, n + ".in"), os.path.join(resdir, n + ".out")
        if not nonempty(inp):
            continue
        try:
            k = kinds.get(json.load(open(inp))["hook_event_name"])
        except Exception:
            k = None
        if k:
            n_in += 1
            if not valid(inp, k + ".command.input"):
                bad += 1
        else:
            k = "pre-tool-use"  # a refused event is answered as a PreToolUse deny
        if not nonempty(out):
            continue
        n_out += 1
        seen.append(k)
        if not valid(out, k + ".command.output"):
            print("%s: %s" % (n, open(out, encoding="utf-8", errors="replace").read().rstrip("\n")))
            bad += 1
    print("codex: %d inputs, %d outputs validated, %d invalid" % (n_in, n_out, bad))
    open(counts, "w").write("%d %d %d\n%s\n" % (n_in, n_out, bad, " ".join(seen)))

# Claude Code, Gemini CLI and Cursor publish no JSON schema for their hook
# answers: the keys each documents (research17.md), nothing else.
UNIVERSAL = {"continue", "stopReason", "suppressOutput", "systemMessage"}
def check(cond, what):
    if not cond:
        sys.exit("structural check: " + what)

def struct(agent, inp, out):
    ev = None
    try:
        i = json.load(open(inp))
        ev = i.get("hook_event_name") if isinstance(i, dict) else None
    except ValueError:
        i = None
    o = load1(out)
    if agent == "claude-code":
        check(set(o) <= UNIVERSAL | {"hookSpecificOutput", "decision", "reason"},
              "top-level keys %s" % sorted(o))
        hs = o["hookSpecificOutput"]
        check(isinstance(hs, dict), "hookSpecificOutput is an object")
        name = hs.get("hookEventName")
        if "permissionDecision" in hs or name == "PreToolUse":
            check(name == "PreToolUse", "hookEventName %r" % name)
            check(set(hs) <= {"hookEventName", "permissionDecision",
                              "permissionDecisionReason", "updatedInput",
                              "additionalContext"}, "keys %s" % sorted(hs))
            check(hs["permissionDecision"] in ("allow", "deny", "ask", "defer"),
                  "permissionDecision")
            check(isinstance(hs.get("permissionDecisionReason", ""), str) and
                  len(hs.get("permissionDecisionReason", "")) <= 10000,
                  "permissionDecisionReason: a string of at most 10,000")
            if "updatedInput" in hs:
                # it replaces the whole input: every other field unchanged
                ui, ti = hs["updatedInput"], i["tool_input"]
                check(isinstance(ui["command"], str), "updatedInput.command")
                check({k: v for k, v in ui.items() if k != "command"} ==
                      {k: v for k, v in ti.items() if k != "command"},
                      "updatedInput keeps the other fields of tool_input")
                check(hs["permissionDecision"] in ("allow", "ask"),
                      "updatedInput only with allow or ask")
        else:
            check(name == ev and ev in ("PostToolUse", "PostToolUseFailure",
                                        "SessionStart"), "hookEventName %r" % name)
            check(set(hs) == {"hookEventName", "additionalContext"},
                  "keys %s" % sorted(hs))
            check(isinstance(hs["additionalContext"], str) and
                  len(hs["additionalContext"]) <= 10000, "additionalContext")
    elif agent == "gemini":
        check(set(o) <= UNIVERSAL | {"decision", "reason", "hookSpecificOutput"},
              "top-level keys %s" % sorted(o))
        if "decision" in o:
            check(o["decision"] in ("allow", "deny", "block", "ask", "approve"),
                  "decision %r" % o["decision"])
            check(isinstance(o.get("reason"), str), "reason")
        hs = o.get("hookSpecificOutput", {})
        check(set(hs) <= {"tool_input", "additionalContext"}, "keys %s" % sorted(hs))
        if "tool_input" in hs:
            # Gemini builds the call from it alone: every argument the
            # model gave comes back, only the command changed
            ui, ti = hs["tool_input"], i["tool_input"]
            check(isinstance(ui.get("command"), str), "tool_input.command")
            check({k: v for k, v in ui.items() if k != "command"} ==
                  {k: v for k, v in ti.items() if k != "command"},
                  "tool_input keeps the other arguments")
            check(o.get("decision") in ("allow", "ask"), "a rewrite with allow/ask")
        if "additionalContext" in hs:
            check(ev == "AfterTool", "additionalContext after a tool only")
    elif agent == "cursor":
        check(set(o) <= {"permission", "user_message", "agent_message",
                         "updated_input"}, "keys %s" % sorted(o))
        if ev == "preToolUse":
            # no ask there; updated_input echoes every key
            check(o["permission"] in ("allow", "deny"), "permission")
            if "updated_input" in o:
                ui, ti = o["updated_input"], i["tool_input"]
                check(isinstance(ui.get("command"), str), "updated_input.command")
                check({k: v for k, v in ui.items() if k != "command"} ==
                      {k: v for k, v in ti.items() if k != "command"},
                      "updated_input keeps the other keys")
                check(o["permission"] == "allow", "a rewrite with allow")
        else:
            check("updated_input" not in o, "no rewrite in beforeShellExecution")
            check(o["permission"] in ("allow", "deny", "ask"), "permission")
        check(all(isinstance(o.get(k, ""), str) for k in o if k != "updated_input"),
              "strings")
    else:
        sys.exit("no structural check for " + agent)

def denies(agent, out):
    o = load1(out)
    if agent in ("claude-code", "codex"):
        hs = o["hookSpecificOutput"]
        ok = (set(o) == {"hookSpecificOutput"} and
              hs.get("hookEventName") == "PreToolUse" and
              hs.get("permissionDecision") == "deny" and
              hs.get("permissionDecisionReason", "").strip() != "")
    elif agent == "gemini":
        ok = o.get("decision") == "deny" and o.get("reason", "").strip() != ""
    else:
        ok = o.get("permission") == "deny" and o.get("agent_message", "").strip()
    if not ok:
        sys.exit("%s: not a deny in %s's schema: %s" % (out, agent, o))

def c_strings(text):
    """The first string literal of each { "...", ... } row of cases[]."""
    body = text[text.index("} cases[] = {"):]
    body = body[:body.index("\n};")]
    out = []
    esc = {"n": 10, "t": 9, "r": 13, "\\": 92, '"': 34, "'": 39, "a": 7,
           "b": 8, "f": 12, "v": 11, "?": 63}
    for m in re.finditer(r'^\s*\{\s*((?:"(?:[^"\\]|\\.)*"\s*)+),', body, re.M):
        b = bytearray()
        for lit in re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1)):
            j = 0
            while j < len(lit):
                c = lit[j]
                if c != "\\":
                    b += c.encode()
                    j += 1
                    continue
                n = lit[j + 1]
                if n == "x":
                    h = re.match(r"[0-9a-fA-F]+", lit[j + 2:]).group(0)
                    b.append(int(h, 16) & 0xff)
                    j += 2 + len(h)
                elif n in "01234567":
                    o = re.match(r"[0-7]{1,3}", lit[j + 1:]).group(0)
                    b.append(int(o, 8) & 0xff)
                    j += 1 + len(o)
                else:
                    b.append(esc[n])
                    j += 2
        out.append(bytes(b))
    return out

def hostile(header, printer):
    kp, root, cwd = os.environ["KINPOLICY"], os.environ["KBH_WS"], os.environ["KBH_SUB"]
    argv_out = os.path.join(os.environ["KB_T"], "argv.bin")
    tried = same = 0
    bad = []

    # one case: None (not text, or denied outright: nothing runs, nothing
    # to compare), or (cmd, why) with why None when it ran byte for byte
    def case(i, raw):
        try:
            cmd = raw.decode("utf-8")  # JSON carries text only
        except UnicodeDecodeError:
            return None
        if "\0" in cmd:
            return None
        ev = {"session_id": "s", "transcript_path": "/dev/null", "cwd": cwd,
              "permission_mode": "bypassPermissions",
              "hook_event_name": "PreToolUse", "tool_name": "Bash",
              "tool_input": {"command": cmd}, "tool_use_id": "t"}
        p = subprocess.run([kp, "hook", "claude-code", "--kinbox", printer],
                           input=json.dumps(ev).encode(), capture_output=True,
                           cwd=cwd)
        if p.returncode != 0:
            return (cmd, "hook exited %d: %s" % (p.returncode, p.stderr))
        hs = json.loads(p.stdout)["hookSpecificOutput"]
        if "updatedInput" not in hs:
            return None
        rw = hs["updatedInput"]["command"]
        out = "%s.%d" % (argv_out, i)  # each case its own
        subprocess.run(["bash", "-c", rw], cwd=cwd, capture_output=True,
                       env=dict(os.environ, KBH_ARGV_OUT=out))
        try:
            got = open(out, "rb").read().split(b"\0")[:-1]
        except OSError:
            got = None
        want = [printer.encode(), b"--workspace", root.encode(), b"--",
                b"bash", b"-c", raw]
        return (cmd, None if got == want else "argv %r" % got)

    # the cases are independent processes: as many at once as there are
    # CPUs (the results in the cases' order)
    from concurrent.futures import ThreadPoolExecutor
    cases = c_strings(open(header, encoding="latin-1").read())
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as ex:
        results = list(ex.map(case, range(len(cases)), cases))
    for r in results:
        if r is None:
            continue
        cmd, why = r
        if why is not None and why.startswith("hook exited"):
            bad.append((cmd, why))
            continue
        tried += 1
        if why is None:
            same += 1
        else:
            bad.append((cmd, why))
    for cmd, why in bad[:10]:
        print("case %r: %s" % (cmd, why), file=sys.stderr)
    print("%d adversarial command strings rewritten, %d ran byte for byte, "
          "%d differ" % (tried, same, len(bad)))
    sys.exit(0 if not bad and same >= 40 else 1)

verb, args = sys.argv[1], sys.argv[2:]
{"subst": subst, "unsubst": unsubst, "nosess": nosess, "get": get, "suffix": suffix, "codex": codex, "codexall": codexall,
 "struct": struct, "denies": denies, "hostile": hostile}[verb](*args)
EOF

# argv-printer: a stand-in for kinbox that writes its argv, NUL after each,
# to $KBH_ARGV_OUT
cat >"$B/argv-printer" <<'EOF'
#!/bin/sh
printf '%s\0' "$0" "$@" >"$KBH_ARGV_OUT"
EOF
chmod +x "$B/argv-printer"

hk() {
	"$PY" "$B/hk.py" "$@"
}
export KINPOLICY KB_T
export KBH_SCHEMA="$FIX/schema/codex"

# --- a denial a real kinbox recorded (@ID@) ----------------------------------
(cd "$SUB" && "$KINBOX" -- touch "$OUTSIDE/x") >"$KB_T/denial.out" \
	2>"$KB_T/denial.err" || true
KBH_ID=$(sed -n 's/^kinbox: denied .*\[\(sbx_[0-9a-f]\{16\}\)\]$/\1/p' \
	"$KB_T/denial.err" | head -n 1)
export KBH_ID
diag "the denial recorded for @ID@: ${KBH_ID:-none}"

# --- every fixture through kinpolicy hook ------------------------------------
# run_fixture NAME: the hook's answer in $R/NAME.out, .err, .rc; the input
# (placeholders replaced) in $R/NAME.in. Run from @SUB@, as an agent does.
agent_of() {
	for _a in $AGENTS; do
		case $1 in
		"$_a"-*)
			printf '%s\n' "$_a"
			return 0
			;;
		esac
	done
	return 1
}

run_fixture() {
	_n=$1
	_a=$(agent_of "$_n")
	rm -f "$R/$_n.in" "$R/$_n.out" "$R/$_n.err" "$R/$_n.rc"
	if ! hk subst "$FIX/$_n.json" "$R/$_n.in" 2>"$R/$_n.err"; then
		echo fixture >"$R/$_n.rc"
		return 0
	fi
	set --
	if [ -f "$FIX/$_n.env" ]; then
		hk subst "$FIX/$_n.env" "$R/$_n.envs"
		while IFS= read -r _l; do
			set -- "$@" "$_l"
		done <"$R/$_n.envs"
	fi
	set -- "$@" "$KP" hook "$_a" --kinbox "$KINBOX"
	if [ -f "$FIX/$_n.args" ]; then
		while IFS= read -r _l; do
			set -- "$@" "$_l"
		done <"$FIX/$_n.args"
	fi
	_rc=0
	(cd "$SUB" && env "$@" <"$R/$_n.in" >"$R/$_n.out" 2>"$R/$_n.err") ||
		_rc=$?
	echo "$_rc" >"$R/$_n.rc"
}

for _f in "$FIX"/*.json; do
	_n=$(basename "$_f" .json)
	agent_of "$_n" >/dev/null || continue
	run_fixture "$_n"
done

if [ "${KB_HOOK_GOLDEN_UPDATE:-}" = 1 ]; then
	mkdir -p "$GOLD"
	for _f in "$FIX"/*.json; do
		_n=$(basename "$_f" .json)
		agent_of "$_n" >/dev/null || continue
		hk unsubst "$R/$_n.out" "$GOLD/$_n.out"
		cp "$R/$_n.rc" "$GOLD/$_n.rc"
	done
	diag "KB_HOOK_GOLDEN_UPDATE=1: the goldens in $GOLD were rewritten (review the diff)"
fi

# --- the goldens ---------------------------------------------------------------
t_golden() {
	_agent=$1
	_nf=0
	_bad=0
	for _f in "$FIX/$_agent"-*.json; do
		_n=$(basename "$_f" .json)
		[ "$(agent_of "$_n")" = "$_agent" ] || continue # codex-… ≠ claude-code-…
		_nf=$((_nf + 1))
		if [ ! -f "$GOLD/$_n.out" ] || [ ! -f "$GOLD/$_n.rc" ]; then
			echo "$_n: no golden (KB_HOOK_GOLDEN_UPDATE=1 makes one)"
			_bad=$((_bad + 1))
			continue
		fi
		if [ "$(cat "$R/$_n.rc")" = fixture ]; then
			echo "$_n: $(cat "$R/$_n.err")"
			_bad=$((_bad + 1))
			continue
		fi
		hk subst "$GOLD/$_n.out" "$R/$_n.want"
		hk nosess "$R/$_n.out" "$R/$_n.got"
		if ! cmp -s "$R/$_n.want" "$R/$_n.got"; then
			echo "$_n: the answer differs from its golden:"
			diff -u "$R/$_n.want" "$R/$_n.got" || true
			_bad=$((_bad + 1))
		fi
		if [ "$(cat "$R/$_n.rc")" != "$(cat "$GOLD/$_n.rc")" ]; then
			echo "$_n: exit status $(cat "$R/$_n.rc"), golden $(cat "$GOLD/$_n.rc")"
			_bad=$((_bad + 1))
		fi
		# a judged event says nothing on stderr; a refused one one line
		case $(cat "$R/$_n.rc") in
		0) [ ! -s "$R/$_n.err" ] || {
			echo "$_n: stderr: $(cat "$R/$_n.err")"
			_bad=$((_bad + 1))
		} ;;
		2) [ "$(wc -l <"$R/$_n.err")" -eq 1 ] || {
			echo "$_n: stderr is not one line: $(cat "$R/$_n.err")"
			_bad=$((_bad + 1))
		} ;;
		esac
	done
	echo "$_agent: $_nf fixtures, $_bad mismatches"
	[ "$_nf" -ge 10 ] || fail "only $_nf fixtures for $_agent"
	[ "$_bad" -eq 0 ] || fail "$_bad mismatches"
}
for _a in $AGENTS; do
	run_test "$_a: every fixture gets its golden answer and exit status, byte for byte" t_golden "$_a"
done

# --- the rewritten commands, run as the agent runs them ------------------------
# rewritten NAME: the command the answer to fixture NAME runs instead
# (Cursor cannot rewrite: its deny names the command to run, exactly)
rewritten() {
	case $1 in
	claude-code-* | codex-*) hk get "$R/$1.out" hookSpecificOutput updatedInput command ;;
	gemini-*) hk get "$R/$1.out" hookSpecificOutput tool_input command ;;
	cursor-*) hk suffix "$R/$1.out" agent_message 'kinbox: shell commands run under kinbox here; run it as: ' ;;
	esac
}

# original NAME: the command fixture NAME asked for (Cursor's at the top)
original() {
	case $1 in
	cursor-*) hk get "$R/$1.in" command ;;
	*) hk get "$R/$1.in" tool_input command ;;
	esac
}

t_run_rewrite() {
	_a=$1
	_cmd=$(original "$_a-bash-write")
	_rw=$(rewritten "$_a-bash-write")
	[ -n "$_rw" ] || fail "no rewritten command in $(cat "$R/$_a-bash-write.out")"
	case $_rw in
	# the agents without an env file: the session's KINBOX_SESSION first
	KINBOX_SESSION=ses_????????????????" $KINBOX --workspace $WS -- bash -c "*) ;;
	"$KINBOX --workspace $WS -- bash -c "* | "'$KINBOX' --workspace '$WS' -- bash -c "*) ;;
	*) fail "the rewrite does not run kinbox with the project root: $_rw" ;;
	esac
	# control: unwrapped, in a scratch directory, the command escapes
	_scratch=$(newdir "scratch-$_a")
	(cd "$_scratch" && bash -c "$_cmd") || true
	assert_exists "$OUTSIDE/escaped-$_a"
	assert_exists "$_scratch/hook-made-$_a"
	rm -f "$OUTSIDE/escaped-$_a" "$SUB/hook-made-$_a" "$SUB/hook-pwd-$_a"
	(cd "$SUB" && bash -c "$_rw") >"$KB_T/rw.out" 2>"$KB_T/rw.err" || true
	cat "$KB_T/rw.err"
	assert_file_has_content "$SUB/hook-made-$_a" '^made$'
	assert_streq "$(cat "$SUB/hook-pwd-$_a")" "$SUB" "pwd inside"
	assert_not_exists "$OUTSIDE/escaped-$_a"
	assert_file_has_content "$KB_T/rw.err" "^kinbox: denied write '$OUTSIDE/escaped-$_a'"
}
for _a in $AGENTS; do
	run_test "$_a: the rewrite runs the command under kinbox in the agent's directory (its write lands, the one outside does not)" t_run_rewrite "$_a"
done

t_run_hostile() {
	_a=$1
	_cmd=$(original "$_a-bash-hostile")
	_rw=$(rewritten "$_a-bash-hostile")
	[ -n "$_rw" ] || fail "no rewritten command in $(cat "$R/$_a-bash-hostile.out")"
	(cd "$SUB" && bash -c "$_cmd") >"$KB_T/plain.out" 2>&1
	(cd "$SUB" && bash -c "$_rw") >"$KB_T/rw.out" 2>&1
	assert_file_has_content "$KB_T/plain.out" "^it's$"
	assert_file_has_content "$KB_T/plain.out" "^x'y$"
	assert_files_equal "$KB_T/plain.out" "$KB_T/rw.out"
}
for _a in $AGENTS; do
	run_test "$_a: a command with hostile quoting prints under kinbox exactly what it prints unwrapped" t_run_hostile "$_a"
done

t_dir_path() {
	_rw=$(rewritten gemini-bash-dir-path)
	[ -n "$_rw" ] || fail "no rewrite: $(cat "$R/gemini-bash-dir-path.out")"
	# Gemini runs the tool in dir_path: the rewrite runs there, under kinbox
	(cd "$SUB" && bash -c "$_rw") >"$KB_T/pwd.out"
	assert_streq "$(cat "$KB_T/pwd.out")" "$SUB"
}
run_test "gemini: dir_path: the rewritten command runs in it, under kinbox" t_dir_path

# --- the adversarial command strings ----------------------------------------------
t_hostile_argv() {
	[ -f "$CASES_H" ] || fail "$CASES_H: the classifier's adversarial cases are not here"
	hk hostile "$CASES_H" "$B/argv-printer"
}
run_test "claude-code: the classifier's adversarial command strings reach bash -c byte for byte through the rewrite" t_hostile_argv

t_default_kinbox() {
	(cd "$SUB" && "$KP" hook claude-code <"$R/claude-code-bash-read.in") >"$KB_T/d.out"
	_rw=$(hk get "$KB_T/d.out" hookSpecificOutput updatedInput command)
	# the fixture's session id has a kinbox session (a SessionStart of an
	# earlier test): its KINBOX_SESSION comes first
	_rw=${_rw#KINBOX_SESSION=ses_????????????????' '}
	_want=$(dirname "$KP")/kinbox
	if [ ! -x "$_want" ]; then
		_want=kinbox
	fi
	case $_rw in
	"$_want --workspace $WS -- bash -c 'ls -la'" | "'$_want' --workspace '$WS' -- bash -c 'ls -la'") ;;
	*) fail "not the kinbox beside kinpolicy ($_want): $_rw" ;;
	esac
}
run_test "claude-code: without --kinbox the rewrite names the kinbox beside kinpolicy, absolutely" t_default_kinbox

# --- the agents' schemas ------------------------------------------------------------
t_codex_schema() {
	"$PY" -c 'import jsonschema' 2>/dev/null ||
		skip_test "python3's jsonschema module is missing (apt-get install python3-jsonschema, or make deps)"
	# every fixture's input (fixtures must be what Codex sends) and
	# answer against the schema of its event, in one python (hk codexall)
	hk codexall "$FIX" "$R" "$KB_T/codex.counts" || fail "hk codexall failed"
	{
		read -r _in _out _bad
		read -r _kinds || true
	} <"$KB_T/codex.counts"
	[ "$_out" -ge 10 ] || fail "only $_out outputs validated"
	[ "$_in" -ge 10 ] || fail "only $_in inputs validated"
	# the context after a call kinbox denied (@ID@, a real run's) is one
	case $_kinds in
	*post-tool-use*) ;;
	*) fail "no PostToolUse answer was validated (no denial context: did kinbox record one?)" ;;
	esac
	# control: the schema refuses what Codex refuses
	printf '%s\n' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"x"}}' >"$KB_T/ask.json"
	if hk codex "$KB_T/ask.json" pre-tool-use.command.output 2>/dev/null; then
		fail "the schema accepts an ask: it checks nothing"
	fi
	[ "$_bad" -eq 0 ] || fail "$_bad do not validate"
}
run_test "codex: every answer validates against Codex's published output schemas, every fixture against its input schemas" t_codex_schema

t_structural() {
	_n_ok=0
	_bad=0
	_names=
	for _a in claude-code gemini cursor; do
		for _f in "$FIX/$_a"-*.json; do
			_n=$(basename "$_f" .json)
			[ "$(agent_of "$_n")" = "$_a" ] || continue
			[ -s "$R/$_n.out" ] || continue
			_n_ok=$((_n_ok + 1))
			_names="$_names $_n"
			hk struct "$_a" "$R/$_n.in" "$R/$_n.out" || {
				echo "$_n: $(cat "$R/$_n.out")"
				_bad=$((_bad + 1))
			}
		done
	done
	echo "$_n_ok answers checked, $_bad invalid"
	[ "$_n_ok" -ge 30 ] || fail "too few answers checked"
	# the context after a call kinbox denied (@ID@, a real run's) is one
	case $_names in
	*claude-code-post-failure-denial*gemini-after-tool-denial*) ;;
	*) fail "the denial context answers were not checked (did kinbox record a denial?)" ;;
	esac
	# control: an unknown key is refused
	printf '%s\n' '{"permission":"allow","updated_command":"x"}' >"$KB_T/cu.json"
	if hk struct cursor "$R/cursor-bash-read.in" "$KB_T/cu.json" 2>/dev/null; then
		fail "the structural check accepts an unknown key"
	fi
	[ "$_bad" -eq 0 ] || fail "$_bad invalid"
}
run_test "claude-code, gemini, cursor: every answer has only the keys the agent documents (they publish no JSON schema)" t_structural

# --- fail closed -------------------------------------------------------------------
t_fail_closed() {
	_c=0
	for _a in $AGENTS; do
		for _case in malformed empty-stdin json-array huge-input unknown-event; do
			_n=$_a-$_case
			_c=$((_c + 1))
			assert_streq "$(cat "$R/$_n.rc")" 2 "$_n: exit status"
			hk denies "$_a" "$R/$_n.out"
			[ "$(wc -l <"$R/$_n.err")" -eq 1 ] ||
				fail "$_n: stderr is not one line: $(cat "$R/$_n.err")"
			assert_file_has_content "$R/$_n.err" '^kinpolicy hook could not judge this call, so it is refused: '
		done
	done
	[ "$_c" -eq 20 ]
	# control: a judged event exits 0 with nothing on stderr
	assert_streq "$(cat "$R/claude-code-bash-read.rc")" 0
	assert_not_exists "$R/claude-code-bash-read.err.nonempty"
	[ ! -s "$R/claude-code-bash-read.err" ]
	# no agent to answer as: exit 2, one line, no answer
	_rc=0
	"$KP" hook nosuchagent <"$R/claude-code-bash-read.in" >"$KB_T/na.out" 2>"$KB_T/na.err" || _rc=$?
	assert_streq "$_rc" 2
	[ ! -s "$KB_T/na.out" ] || fail "an answer for an unknown agent"
	[ "$(wc -l <"$KB_T/na.err")" -eq 1 ]
}
run_test "fail closed: malformed JSON, empty stdin, an array, 2 MiB, an unknown event: exit 2, a deny in the agent's schema, one stderr line" t_fail_closed

# --- Codex cannot ask ----------------------------------------------------------------
t_codex_ask() {
	_o=$R/codex-bash-write-strict.out
	assert_streq "$(hk get "$_o" hookSpecificOutput permissionDecision)" deny
	hk get "$_o" hookSpecificOutput permissionDecisionReason >"$KB_T/why"
	assert_file_has_content "$KB_T/why" "it needs a human's yes, which this agent cannot ask for"
	# control: the same command, mode and verdict asks where the agent can
	run_fixture claude-code-bash-write-nomode
	assert_streq "$(hk get "$R/claude-code-bash-write-nomode.out" hookSpecificOutput permissionDecision)" ask
	# and a read-only one is allowed, rewritten, under strict in Codex
	assert_streq "$(hk get "$R/codex-bash-read-strict.out" hookSpecificOutput permissionDecision)" allow
}
run_test "codex: an ask is a deny that says a human's yes is needed (strict, a writing command)" t_codex_ask

# --- a session ------------------------------------------------------------------------
# ss_event SOURCE SESSION_ID: a SessionStart event of $_a (the recorded one,
# its source and session_id replaced)
ss_event() {
	"$PY" -c 'import json,sys; e=json.load(open(sys.argv[1])); e["source"]=sys.argv[2]; e["session_id"]=sys.argv[3]; print(json.dumps(e))' \
		"$R/$_a-session-start.in" "$1" "$2"
}
# ss_run FILE SOURCE SESSION_ID: the hook on that event, the env file FILE
# (appended to); prints the KINBOX_SESSION it exported
ss_run() {
	rm -f "$1"
	printf 'export OTHER=1\n' >"$1"
	ss_event "$2" "$3" >"$KB_T/ss.json"
	(cd "$SUB" && env "$_var=$1" "$KP" hook "$_a" --kinbox "$KINBOX" \
		<"$KB_T/ss.json") >"$KB_T/s.out" || fail "SessionStart ($2) failed: $(cat "$KB_T/s.out")"
	[ ! -s "$KB_T/s.out" ] || fail "SessionStart answered: $(cat "$KB_T/s.out")"
	assert_streq "$(sed -n 1p "$1")" "export OTHER=1" "appended, not replaced"
	assert_streq "$(wc -l <"$1" | tr -d ' ')" 2
	sed -n 's/^export KINBOX_SESSION=\(ses_[0-9a-f]\{16\}\)$/\1/p' "$1"
}
t_session_start() {
	_a=$1
	_var=CLAUDE_ENV_FILE
	[ "$_a" = codex ] && _var=CODEX_ENV_FILE
	_file=$HOME/$_a-session.env
	_sid="$_a-$(date +%s%N)"
	_id=$(ss_run "$_file" startup "$_sid")
	[ -n "$_id" ] || fail "no KINBOX_SESSION line: $(cat "$_file")"
	find "$XDG_RUNTIME_DIR" -name "$_id.ini" >"$KB_T/sf"
	[ -s "$KB_T/sf" ] || fail "no session file for $_id under $XDG_RUNTIME_DIR"
	# a grant for the session, as a human would give it
	KINBOX_SESSION=$_id "$KP" grants >"$KB_T/g.out" 2>&1 ||
		fail "kinpolicy grants in the session: $(cat "$KB_T/g.out")"
	# the same agent session resumed, compacted, cleared: the same kinbox
	# session (its grants kept), no new one made
	find "$XDG_RUNTIME_DIR" -name 'ses_*' | sort >"$KB_T/before"
	for _src in resume compact clear startup; do
		assert_streq "$(ss_run "$_file" "$_src" "$_sid")" "$_id" "the session after $_src"
	done
	find "$XDG_RUNTIME_DIR" -name 'ses_*' | sort >"$KB_T/after"
	assert_files_equal "$KB_T/before" "$KB_T/after"
	# control: another agent session gets another kinbox session
	_other=$(ss_run "$_file" startup "$_sid-other")
	[ -n "$_other" ] && [ "$_other" != "$_id" ] ||
		fail "another agent session got '$_other' (the first: $_id)"
	# no XDG_RUNTIME_DIR (containers, ssh, CI): the state store holds it
	_other=$(unset XDG_RUNTIME_DIR; ss_run "$_file" startup "$_sid-noxdg")
	[ -n "$_other" ] || fail "no session without XDG_RUNTIME_DIR"
	_st=${XDG_STATE_HOME:-$HOME/.local/state}
	assert_exists "$_st/kinbox/sessions/$_other.ini"
	[ "$(stat -c %a "$_st/kinbox/sessions")" = 700 ] ||
		fail "$_st/kinbox/sessions is not 0700"
}
run_test "claude-code: SessionStart exports KINBOX_SESSION=ses_…, the same one on resume/compact/clear, another for another session, and works without XDG_RUNTIME_DIR" t_session_start claude-code
run_test "codex: SessionStart exports KINBOX_SESSION=ses_…, the same one on resume/compact/clear, another for another session, and works without XDG_RUNTIME_DIR" t_session_start codex

# the workspace is the project root set when the agent's session started:
# a later call whose directory lies elsewhere is judged against it
t_session_root() {
	_a=claude-code
	_var=CLAUDE_ENV_FILE
	_sid="root-$(date +%s%N)"
	ss_run "$HOME/root.env" startup "$_sid" >/dev/null
	for _dir in "$SUB" "$OUTSIDE"; do
		printf '{"session_id":"%s","transcript_path":"/t","cwd":"%s","permission_mode":"bypassPermissions","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"touch x"}}\n' "$_sid" "$_dir" >"$KB_T/ev.json"
		(cd "$_dir" && "$KP" hook "$_a" --kinbox "$KINBOX" <"$KB_T/ev.json") >"$KB_T/r.out"
		if [ "$_dir" = "$SUB" ]; then
			assert_streq "$(hk get "$KB_T/r.out" hookSpecificOutput permissionDecision)" allow
			hk get "$KB_T/r.out" hookSpecificOutput updatedInput command >"$KB_T/r.cmd"
			assert_file_has_content "$KB_T/r.cmd" "--workspace $WS "
		else
			# cd'd out of the project: not made the workspace
			assert_streq "$(hk get "$KB_T/r.out" hookSpecificOutput permissionDecision)" ask
			assert_not_file_has_content "$KB_T/r.out" updatedInput
		fi
	done
}
run_test "claude-code: the project root set at SessionStart stays the workspace; a call from outside it asks" t_session_root

# --- the user's own permission rules ------------------------------------------------
# Claude Code matches its rules against the rewrite, where they no longer
# fire: the hook keeps them in force on the model's command. A deny rule
# denies (also inside a compound line, a wrapper, bash -c), an allow rule
# answers strict mode's ask, an ask rule asks; a settings file that is not
# JSON asks. Controls: a command no rule names gets the gate's answer.
t_user_rules() {
	_cfg=$KB_T/claude-cfg
	mkdir -p "$_cfg" "$WS/.claude"
	cat >"$_cfg/settings.json" <<'JSON'
{"permissions": {"deny": ["Bash(git push:*)", "Read(./.env)"],
                 "allow": ["Bash(make test)"]},
 "env": {"X": "1"}}
JSON
	printf '{"permissions": {"ask": ["Bash(npm publish:*)"]}}\n' >"$WS/.claude/settings.local.json"
	# rc CMD: the permissionDecision for CMD, Claude Code's default mode
	_ask() {
		printf '{"session_id":"rules","transcript_path":"/t","cwd":"%s","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":%s}}\n' \
			"$SUB" "$("$PY" -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1")" >"$KB_T/ur.json"
		(cd "$SUB" && env CLAUDE_CONFIG_DIR="$_cfg" CLAUDE_PROJECT_DIR="$WS" \
			"$KP" hook claude-code --kinbox "$KINBOX" <"$KB_T/ur.json") >"$KB_T/ur.out"
		hk get "$KB_T/ur.out" hookSpecificOutput permissionDecision
	}
	for _c in "git push origin main" "ls && git push --force" \
		"GIT_TRACE=1 timeout 5 git push" "bash -c 'git push'"; do
		assert_streq "$(_ask "$_c")" deny "$_c"
		assert_file_has_content "$KB_T/ur.out" 'your permission rule Bash.git push:.. .*claude-cfg/settings.json'
		assert_not_file_has_content "$KB_T/ur.out" updatedInput
	done
	assert_streq "$(_ask "make test")" allow "make test (the user's allow rule)"
	assert_file_has_content "$KB_T/ur.out" "updatedInput"
	assert_streq "$(_ask "npm publish --dry-run")" ask "npm publish (the user's ask rule)"
	# controls: no rule names these
	assert_streq "$(_ask "make build")" ask "make build (strict mode's ask)"
	assert_streq "$(_ask "ls -la")" allow "ls -la (read-only)"
	# a settings file that is not JSON: the rules are unknown, so ask
	printf '{"permissions": {"deny": [' >"$WS/.claude/settings.json"
	assert_streq "$(_ask "ls -la")" ask "with an unreadable settings file"
	assert_file_has_content "$KB_T/ur.out" 'not a JSON object.*kinpolicy cannot read your permission rules'
	rm -rf "$WS/.claude"
}
run_test "claude-code: the user's deny rules still deny (compound lines, wrappers, bash -c), allow and ask rules still speak, an unreadable settings file asks" t_user_rules

# Codex's execpolicy rules and Gemini CLI's policy rules: judged on the
# model's command the same way (their engines see only the rewrite)
t_other_rules() {
	_h=$KB_T/rules-home
	rm -rf "$_h" "$WS/.codex"
	mkdir -p "$_h/.codex/rules" "$_h/.gemini/policies" "$WS/.codex/rules"
	cat >"$_h/.codex/rules/default.rules" <<'RULES'
# the user's rules
prefix_rule(
    pattern = ["git", ["push", "send-email"]],
    decision = "forbidden",
    justification = "no pushing",
    match = ["git push origin main"],
)
prefix_rule(pattern = ["npm", "publish"], decision = "prompt")
prefix_rule(pattern = ["make", "test"])
RULES
	# the project's files add deny rules, never an allow (the command may
	# write them)
	printf 'prefix_rule(pattern=["rm"], decision="forbidden")\nprefix_rule(pattern=["make", "build"])\n' \
		>"$WS/.codex/rules/project.rules"
	cat >"$_h/.gemini/policies/mine.toml" <<'TOML'
[[rule]]
toolName = "run_shell_command"
commandPrefix = ["git push", "rm -rf"]
decision = "deny"
priority = 500

[[rule]]
toolName = "run_shell_command"
commandPrefix = "npm publish"
decision = "ask_user"
TOML
	# _dec AGENT MODE CMD: the decision
	_dec() {
		case $1 in
		codex)
			printf '{"session_id":"rules-c","turn_id":"t","transcript_path":null,"cwd":"%s","hook_event_name":"PreToolUse","model":"m","permission_mode":"default","tool_name":"Bash","tool_use_id":"c1","tool_input":{"command":%s}}\n' \
				"$SUB" "$("$PY" -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$3")" >"$KB_T/or.json"
			(cd "$SUB" && env HOME="$_h" "$KP" hook codex --mode "$2" --kinbox "$KINBOX" <"$KB_T/or.json") >"$KB_T/or.out"
			hk get "$KB_T/or.out" hookSpecificOutput permissionDecision
			;;
		gemini)
			printf '{"session_id":"rules-g","transcript_path":"/t","cwd":"%s","hook_event_name":"BeforeTool","timestamp":"2026-01-01T00:00:00Z","tool_name":"run_shell_command","tool_input":{"command":%s}}\n' \
				"$SUB" "$("$PY" -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$3")" >"$KB_T/or.json"
			(cd "$SUB" && env HOME="$_h" "$KP" hook gemini --mode "$2" --kinbox "$KINBOX" <"$KB_T/or.json") >"$KB_T/or.out"
			hk get "$KB_T/or.out" decision
			;;
		esac
	}
	for _c in "git push origin main" "ls && git push --force" \
		"timeout 5 git send-email x" "bash -c 'git push'" "rm -rf build"; do
		assert_streq "$(_dec codex auto "$_c")" deny "codex: $_c"
		assert_file_has_content "$KB_T/or.out" "your execpolicy rule on '(git push|git send-email|rm)' .*\\.rules"
		assert_not_file_has_content "$KB_T/or.out" updatedInput
	done
	for _c in "git push origin main" "ls && git push --force" "rm -rf /tmp/x"; do
		assert_streq "$(_dec gemini auto "$_c")" deny "gemini: $_c"
		assert_file_has_content "$KB_T/or.out" "your policy rule on '(git push|rm -rf)' .*mine.toml"
	done
	# ask rules ask (Codex has no ask: deny, saying a human must)
	assert_streq "$(_dec codex auto "npm publish")" deny "codex: npm publish (prompt)"
	assert_file_has_content "$KB_T/or.out" "npm publish.*asks"
	assert_streq "$(_dec gemini auto "npm publish")" ask "gemini: npm publish (ask_user)"
	# an allow rule answers strict mode's ask; the project's does not
	assert_streq "$(_dec codex strict "make test")" allow "codex strict: make test (the user's allow rule)"
	assert_file_has_content "$KB_T/or.out" updatedInput
	assert_streq "$(_dec codex strict "make build")" deny "codex strict: make build (the project's allow rule is not applied)"
	# controls: no rule names these
	assert_streq "$(_dec codex auto "git pull")" allow "codex: git pull"
	assert_streq "$(_dec gemini auto "git status")" allow "gemini: git status"
	# a file that cannot be read whole: every call asked (Codex: denied)
	printf 'prefix_rule(pattern=["x"], decision="forbidden"\n' >"$_h/.codex/rules/broken.rules"
	assert_streq "$(_dec codex auto "ls")" deny "codex: ls with a broken rules file"
	assert_file_has_content "$KB_T/or.out" 'broken.rules .line [0-9]+: .*kinpolicy cannot read your permission rules'
	printf '[[rule]]\ntoolName = "run_shell_command"\ncommandRegex = "^git +push"\ndecision = "deny"\n' >"$_h/.gemini/policies/regex.toml"
	assert_streq "$(_dec gemini auto "ls")" ask "gemini: ls with a deny rule on a regex"
	assert_file_has_content "$KB_T/or.out" 'regex.toml .line [0-9]+: a deny rule with commandRegex'
	rm -rf "$_h" "$WS/.codex"
}
run_test "codex, gemini: the user's execpolicy and policy rules still deny (alternatives, compound lines, wrappers, bash -c), ask rules ask, user allow rules allow (never a project's), an unreadable rules file asks" t_other_rules

# with kinbox-sh --claude-code as Claude Code's shell prefix, every call
# runs under kinbox at execution: the hook answers for the command as the
# model wrote it, no rewrite, so the agent's own rules and prompts see it.
# Control: without the prefix, the same call is rewritten.
t_prefix_mode() {
	printf '{"session_id":"pfx","transcript_path":"/t","cwd":"%s","permission_mode":"bypassPermissions","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"make test"}}\n' "$SUB" >"$KB_T/pf.json"
	(cd "$SUB" && env CLAUDE_CODE_SHELL_PREFIX="/usr/local/bin/kinbox-sh --claude-code" \
		"$KP" hook claude-code --kinbox "$KINBOX" <"$KB_T/pf.json") >"$KB_T/pf.out"
	assert_streq "$(hk get "$KB_T/pf.out" hookSpecificOutput permissionDecision)" allow
	assert_not_file_has_content "$KB_T/pf.out" updatedInput
	(cd "$SUB" && env -u CLAUDE_CODE_SHELL_PREFIX \
		"$KP" hook claude-code --kinbox "$KINBOX" <"$KB_T/pf.json") >"$KB_T/pf2.out"
	assert_file_has_content "$KB_T/pf2.out" updatedInput
	# another prefix (a logger) is not kinbox's: rewritten still
	(cd "$SUB" && env CLAUDE_CODE_SHELL_PREFIX=/usr/local/bin/log-and-run \
		"$KP" hook claude-code --kinbox "$KINBOX" <"$KB_T/pf.json") >"$KB_T/pf3.out"
	assert_file_has_content "$KB_T/pf3.out" updatedInput
}
run_test "claude-code with kinbox-sh --claude-code as its shell prefix: allowed as written, no rewrite; control: rewritten without it, or with another prefix" t_prefix_mode

# --- no sandbox here ----------------------------------------------------------------
# Below kb-no-userns --no-landlock neither backend can run (bwrap has no
# user namespace, Landlock's calls fail with ENOSYS): the hook allows no
# command, unwrapped or wrapped; it asks (Codex: denies) with kinbox's cause,
# and gives no rewrite. Control: the same event, without the helper, is
# allowed and rewritten.
t_no_sandbox() {
	_h=$KB_TESTS_DIR/helpers/kb-no-userns
	[ -x "$_h" ] || fail "the helper $_h is missing (make helpers)"
	_ev=$KB_T/nosandbox.json
	for _a in claude-code codex; do
		printf '{"session_id":"s","transcript_path":"/t","cwd":"%s","permission_mode":"bypassPermissions","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"touch made-by-hook-%s"}}\n' "$SUB" "$_a" >"$_ev"
		_rc=0
		(cd "$SUB" && "$_h" --no-landlock -- "$KINPOLICY" hook "$_a" --kinbox "$KINBOX" <"$_ev") \
			>"$KB_T/ns.out" 2>"$KB_T/ns.err" || _rc=$?
		assert_streq "$_rc" 0
		[ ! -s "$KB_T/ns.err" ] || fail "stderr: $(cat "$KB_T/ns.err")"
		_want=ask
		[ "$_a" = codex ] && _want=deny
		assert_streq "$(hk get "$KB_T/ns.out" hookSpecificOutput permissionDecision)" "$_want"
		hk get "$KB_T/ns.out" hookSpecificOutput permissionDecisionReason >"$KB_T/ns.why"
		assert_file_has_content "$KB_T/ns.why" '^kinbox: no sandbox can be set up here \('
		assert_file_has_content "$KB_T/ns.why" 'kinbox --status says how to fix it'
		assert_not_file_has_content "$KB_T/ns.out" 'updatedInput'
		assert_not_exists "$SUB/made-by-hook-$_a"
		# control: a sandbox works here, and the same call is allowed,
		# rewritten; the rewrite, run as the agent would, makes the file
		# under kinbox
		(cd "$SUB" && "$KINPOLICY" hook "$_a" --kinbox "$KINBOX" <"$_ev") >"$KB_T/ok.out"
		assert_streq "$(hk get "$KB_T/ok.out" hookSpecificOutput permissionDecision)" allow
		_cmd=$(hk get "$KB_T/ok.out" hookSpecificOutput updatedInput command)
		(cd "$SUB" && bash -c "$_cmd")
		assert_exists "$SUB/made-by-hook-$_a"
		rm -f "$SUB/made-by-hook-$_a"
	done
}
run_test "no sandbox here (kb-no-userns --no-landlock): no command allowed, an ask (Codex: a deny) with kinbox's cause, no rewrite" t_no_sandbox

done_testing
