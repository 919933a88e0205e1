#!/usr/bin/env python3
"""tests/agents/runlog.py — reads what drive.py left in a run's directory
OUT, for tests/t82-agents.sh to judge from outside.

  turns OUT            the turns the model server played, in order (the
                       main loop's requests; "0 1 2")
  said OUT TURN NEEDLE...
                       every NEEDLE is in what the model was given at TURN
                       since its last answer (the tool's result, the hooks'
                       context: `told`); exit 1 and show it otherwise. A
                       NEEDLE "re:REGEX" is a regular expression (Python's
                       re.search)
  unsaid OUT TURN NEEDLE
                       NEEDLE is in none of them
  told OUT TURN        what the model was given at TURN since its last
                       answer (tool results, hooks' context)
  denial OUT TURN      the id of the first kinbox denial line
                       ("kinbox: denied ... [sbx_…]") in what the model
                       was given at TURN
  hooks OUT            one line per hook call: EVENT TOOL RC DECISION
  hook-input OUT EVENT KEY...
                       the value at KEY... of the first EVENT's input
                       (JSON)
"""
import glob
import json
import os
import re
import sys


def requests(out):
    recs = []
    for line in open(os.path.join(out, "requests.jsonl")):
        r = json.loads(line)
        if r.get("main"):
            recs.append(r)
    return recs


# the keys whose values are a message's structure, not its text
STRUCTURE = {"type", "role", "id", "tool_use_id", "call_id", "name",
             "cache_control", "citations", "thoughtSignature", "is_error"}


def strings(v, acc):
    """The text strings inside a request's JSON value."""
    if isinstance(v, str):
        acc.append(v)
    elif isinstance(v, dict):
        for k, x in v.items():
            if k not in STRUCTURE:
                strings(x, acc)
    elif isinstance(v, list):
        for x in v:
            strings(x, acc)
    return acc


def at(out, turn):
    for r in requests(out):
        if r.get("turn") == turn:
            return r
    sys.exit("no request of the main loop at turn %d in %s (turns: %s)" %
             (turn, out, " ".join(str(r["turn"]) for r in requests(out))))


def told(r):
    """The strings the model was given since its last answer: the tool's
    result, the hooks' context."""
    b = r["body"]
    items = b.get("messages") or b.get("input") or b.get("contents") or []
    last = -1
    for i, it in enumerate(items):
        if it.get("role") in ("assistant", "model") or \
                str(it.get("type", "")).endswith("function_call"):
            last = i
    return strings(items[last + 1:], [])


def tail(r):
    """told(r) to show, each string cut to 700 characters"""
    return "\n".join("  | " + (s if len(s) <= 700 else s[:700] + " [...]")
                     .replace("\n", "\n  | ") for s in told(r))


def hook_calls(out):
    calls = []
    for f in sorted(glob.glob(os.path.join(out, "hooks", "*.in"))):
        base = f[:-3]
        try:
            ev = json.load(open(f))
        except ValueError:
            ev = {}
        try:
            ans = json.loads(open(base + ".out").read() or "{}")
        except ValueError:
            ans = {}
        hs = ans.get("hookSpecificOutput") or {}
        dec = hs.get("permissionDecision") or ans.get("decision") or "-"
        rc = open(base + ".rc").read().strip() if \
            os.path.exists(base + ".rc") else "?"
        calls.append((ev, ans, rc, dec))
    return calls


def main():
    verb, args = sys.argv[1], sys.argv[2:]
    if verb == "turns":
        print(" ".join(str(r["turn"]) for r in requests(args[0])))
    elif verb in ("said", "unsaid"):
        r = at(args[0], int(args[1]))
        text = "\n".join(told(r))

        def has(n):
            if n.startswith("re:"):
                return re.search(n[3:], text) is not None
            return n in text
        bad = [n for n in args[2:] if has(n) != (verb == "said")]
        if bad:
            print("%s: %s at turn %s: %s" %
                  (args[0], "missing" if verb == "said" else "present",
                   args[1], bad), file=sys.stderr)
            print("told at turn %s:\n%s" % (args[1], tail(r)),
                  file=sys.stderr)
            sys.exit(1)
    elif verb == "told":
        print(tail(at(args[0], int(args[1]))))
    elif verb == "denial":
        r = at(args[0], int(args[1]))
        for s in told(r):
            for line in s.splitlines():
                m = re.search(r"^kinbox: denied .*\[(sbx_[0-9a-f]{16})\]",
                              line)
                if m:
                    print(m.group(1))
                    return
        print("no kinbox denial line at turn %s:" % args[1], file=sys.stderr)
        print(tail(r), file=sys.stderr)
        sys.exit(1)
    elif verb == "hooks":
        for ev, ans, rc, dec in hook_calls(args[0]):
            print(ev.get("hook_event_name", "?"), ev.get("tool_name", "-"),
                  rc, dec)
    elif verb == "hook-input":
        for ev, ans, rc, dec in hook_calls(args[0]):
            if ev.get("hook_event_name") == args[1]:
                v = ev
                for k in args[2:]:
                    v = v.get(k) if isinstance(v, dict) else None
                print(json.dumps(v))
                return
        sys.exit("no %s hook call in %s" % (args[1], args[0]))
    else:
        sys.exit("inspect.py: unknown verb %s" % verb)


if __name__ == "__main__":
    main()
