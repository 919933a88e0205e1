#!/usr/bin/env python3
"""tests/agents/fakemodel.py — a scripted model server for the agents' APIs.

One HTTP server (python3's standard library only) that speaks the three
model APIs the coding agents of tests/t82-agents.sh use, well enough for
each agent to run a turn loop against it:

  anthropic  POST /v1/messages            Claude Code (ANTHROPIC_BASE_URL)
  responses  POST /v1/responses           Codex (a model_providers entry
                                          with wire_api = "responses")
  gemini     POST /v1beta/models/M:streamGenerateContent (and
             :generateContent)            Gemini CLI (GOOGLE_GEMINI_BASE_URL)

A scenario is a list of turns, each one model answer:

  {"shell": "CMD"}          call the agent's shell tool with the command CMD
                            ("input": {...} adds fields to the tool's input,
                            e.g. {"run_in_background": true})
  {"tool": NAME, "input": {...}}
                            call any tool with exactly this input
  {"text": "..."}           a final answer (ends the agent's turn)

A scenario file is JSON: {"scenarios": {"NAME": [turn, ...], ...}}. The
scenario of a request is named in the user's prompt as "[scenario NAME]"
("main" when none is). Which turn a request gets is counted, not kept: the
number of tool results in the conversation after the user's last prompt.
So a retried request gets the same answer, a resumed session continues,
and a second prompt in one session starts its own scenario from its first
turn. Past the last turn the answer is the text "done".

Only requests that offer the agent's shell tool play the scenario (the
main loop); the agents' side requests (titles, summaries, routing, token
counts) get a short text answer. Every request is appended to the log as
one JSON line: {"i", "api", "method", "path", "main", "scenario", "turn",
"body"}, and each answer follows as {"i", "answer"}: the tests read what
the model was told (a tool's result, a hook's context) from there.

Listens on 127.0.0.1 only.
"""
import json
import os
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

SHELL_TOOLS = {
    # the shell tool each API's agent offers, first found wins
    "anthropic": ["Bash"],
    "responses": ["shell_command", "shell", "exec_command", "local_shell"],
    "gemini": ["run_shell_command"],
}
MARK = re.compile(r"\[scenario ([A-Za-z0-9_.-]+)\]")


class Model:
    """The scenarios and the request log (thread-safe)."""

    def __init__(self, scenarios, log_path):
        self.scenarios = scenarios
        self.log_path = log_path
        self.lock = threading.Lock()
        self.n = 0
        self.calls = 0
        self.ids = 0
        # in every id: a resumed conversation holds the ids of an earlier
        # server's answers, and an agent takes a repeated id for the old
        # call (Claude Code: "[Tool use interrupted]")
        self.tag = os.urandom(4).hex()

    def log(self, rec):
        with self.lock:
            with open(self.log_path, "a") as f:
                f.write(json.dumps(rec) + "\n")

    def next_index(self):
        with self.lock:
            self.n += 1
            return self.n

    def answer_id(self):
        with self.lock:
            self.ids += 1
            return self.ids

    def call_id(self):
        with self.lock:
            self.calls += 1
            return self.calls

    def turn(self, prompt, done):
        m = MARK.search(prompt or "")
        name = m.group(1) if m else "main"
        turns = self.scenarios.get(name, [])
        if done < len(turns):
            return name, turns[done]
        return name, {"text": "done"}


# --- what a request says -----------------------------------------------------

def texts(content):
    """The text of a message's content (a string or a list of blocks)."""
    if isinstance(content, str):
        return content
    out = []
    for b in content or []:
        if isinstance(b, dict):
            for k in ("text",):
                if isinstance(b.get(k), str):
                    out.append(b[k])
        elif isinstance(b, str):
            out.append(b)
    return "\n".join(out)


def prompt_index(items, is_user, text_of):
    """The index of the user's last prompt in a conversation: the last
    user message that names a scenario, else the last user message (what
    an agent adds as a user message on its own, a reminder or a
    background task's notice, is no prompt); -1: none."""
    last = marked = -1
    for i, it in enumerate(items):
        if isinstance(it, dict) and is_user(it):
            last = i
            if MARK.search(text_of(it) or ""):
                marked = i
    return marked if marked >= 0 else last


def anthropic_state(body):
    """(prompt, tool results since it) of a Messages request."""
    msgs = body.get("messages") or []
    last = prompt_index(msgs, lambda m: m.get("role") == "user" and not (
        isinstance(m.get("content"), list) and
        any(isinstance(b, dict) and b.get("type") == "tool_result"
            for b in m["content"])), lambda m: texts(m.get("content")))
    prompt = texts(msgs[last].get("content")) if last >= 0 else ""
    done = 0
    for m in msgs[last + 1:]:
        c = m.get("content")
        if m.get("role") == "user" and isinstance(c, list):
            done += sum(1 for b in c if isinstance(b, dict) and
                        b.get("type") == "tool_result")
    return prompt, done


def responses_state(body):
    items = body.get("input") or []
    if isinstance(items, str):
        return items, 0
    last = prompt_index(items, lambda it: it.get("type", "message") ==
                        "message" and it.get("role") == "user",
                        lambda it: texts(it.get("content")))
    prompt = texts(items[last].get("content")) if last >= 0 else ""
    done = sum(1 for it in items[last + 1:]
               if str(it.get("type", "")).endswith("call_output"))
    return prompt, done


def gemini_state(body):
    cs = body.get("contents") or []
    last = prompt_index(cs, lambda c: c.get("role", "user") == "user" and
                        not any("functionResponse" in p
                                for p in c.get("parts") or []) and
                        any("text" in p for p in c.get("parts") or []),
                        lambda c: "\n".join(p.get("text", "") for p in
                                            c.get("parts") or []))
    prompt = "\n".join(p.get("text", "") for p in
                       (cs[last].get("parts") or [])) if last >= 0 else ""
    done = 0
    for c in cs[last + 1:]:
        done += sum(1 for p in c.get("parts") or [] if "functionResponse" in p)
    return prompt, done


def tool_names(api, body):
    names = []
    for t in body.get("tools") or []:
        if not isinstance(t, dict):
            continue
        if api == "gemini":
            for d in t.get("functionDeclarations") or []:
                names.append(d.get("name"))
        elif api == "responses":
            names.append(t.get("name") or t.get("type"))
        else:
            names.append(t.get("name"))
    return names


# --- the answers -------------------------------------------------------------

def sse(events):
    out = []
    for name, data in events:
        if name is not None:
            out.append("event: %s\n" % name)
        out.append("data: %s\n\n" % json.dumps(data))
    return "".join(out).encode()


def anthropic_answer(model, body, turn, shell):
    """A Messages answer: (content blocks, stop_reason)."""
    if "text" in turn:
        return [{"type": "text", "text": turn["text"]}], "end_turn"
    if "shell" in turn:
        name, inp = shell, {"command": turn["shell"],
                            "description": "scripted by the test"}
    else:
        name, inp = turn["tool"], {}
    inp.update(turn.get("input") or {})
    tid = "toolu_kb%s%04d" % (model.tag, model.call_id())
    return [{"type": "tool_use", "id": tid,
             "name": name, "input": inp}], "tool_use"


def anthropic_reply(model, body, blocks, stop):
    usage = {"input_tokens": 10, "output_tokens": 5,
             "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    mid = "msg_kb%s%04d" % (model.tag, model.answer_id())
    msg = {"id": mid, "type": "message",
           "role": "assistant", "model": body.get("model", "fake"),
           "content": blocks, "stop_reason": stop, "stop_sequence": None,
           "usage": usage}
    if not body.get("stream"):
        return "application/json", json.dumps(msg).encode()
    start = dict(msg, content=[], stop_reason=None)
    ev = [("message_start", {"type": "message_start", "message": start})]
    for i, b in enumerate(blocks):
        if b["type"] == "text":
            ev.append(("content_block_start", {
                "type": "content_block_start", "index": i,
                "content_block": {"type": "text", "text": ""}}))
            ev.append(("content_block_delta", {
                "type": "content_block_delta", "index": i,
                "delta": {"type": "text_delta", "text": b["text"]}}))
        else:
            ev.append(("content_block_start", {
                "type": "content_block_start", "index": i,
                "content_block": dict(b, input={})}))
            ev.append(("content_block_delta", {
                "type": "content_block_delta", "index": i,
                "delta": {"type": "input_json_delta",
                          "partial_json": json.dumps(b["input"])}}))
        ev.append(("content_block_stop",
                   {"type": "content_block_stop", "index": i}))
    ev.append(("message_delta", {
        "type": "message_delta",
        "delta": {"stop_reason": stop, "stop_sequence": None},
        "usage": {"output_tokens": 5}}))
    ev.append(("message_stop", {"type": "message_stop"}))
    return "text/event-stream", sse(ev)


def responses_reply(model, body, turn, shell):
    rid = "resp_kb%s%04d" % (model.tag, model.answer_id())
    if "text" in turn:
        item = {"type": "message", "role": "assistant",
                "id": "msg_" + rid,
                "content": [{"type": "output_text", "text": turn["text"],
                             "annotations": []}]}
    else:
        if "shell" in turn:
            name = shell
            if shell == "shell":
                args = {"command": ["bash", "-lc", turn["shell"]]}
            elif shell == "exec_command":
                args = {"cmd": turn["shell"]}
            else:
                args = {"command": turn["shell"]}
        else:
            name, args = turn["tool"], {}
        args.update(turn.get("input") or {})
        cid = "call_kb%s%04d" % (model.tag, model.call_id())
        item = {"type": "function_call", "id": "fc_" + cid, "call_id": cid,
                "name": name, "arguments": json.dumps(args)}
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": 5,
             "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": 15}
    ev = [("response.created", {"type": "response.created",
                                "response": {"id": rid}}),
          ("response.output_item.done", {"type": "response.output_item.done",
                                         "output_index": 0, "item": item}),
          ("response.completed", {"type": "response.completed",
                                  "response": {"id": rid, "usage": usage,
                                               "output": [item]}})]
    return "text/event-stream", sse(ev), item


def instance(schema, depth=0):
    """A minimal value of a JSON schema (a side request that wants JSON)."""
    if not isinstance(schema, dict) or depth > 8:
        return None
    if schema.get("enum"):
        return schema["enum"][0]
    t = str(schema.get("type", "object")).lower()
    if t == "object":
        props = schema.get("properties") or {}
        return {k: instance(props.get(k), depth + 1)
                for k in schema.get("required") or props}
    if t == "array":
        return []
    if t in ("integer", "number"):
        return 1
    if t == "boolean":
        return False
    return "ok"


def gemini_reply(model, body, turn, shell, stream):
    gc = body.get("generationConfig") or {}
    want = gc.get("responseJsonSchema") or gc.get("responseSchema")
    if "text" in turn and want is not None and shell is None:
        parts = [{"text": json.dumps(instance(want))}]
    elif "text" in turn:
        parts = [{"text": turn["text"]}]
    else:
        if "shell" in turn:
            name, args = shell, {"command": turn["shell"],
                                 "description": "scripted by the test"}
        else:
            name, args = turn["tool"], {}
        args.update(turn.get("input") or {})
        parts = [{"functionCall": {"name": name, "args": args}}]
    obj = {"candidates": [{"content": {"role": "model", "parts": parts},
                           "finishReason": "STOP", "index": 0}],
           "usageMetadata": {"promptTokenCount": 10,
                             "candidatesTokenCount": 5,
                             "totalTokenCount": 15},
           "modelVersion": "fake"}
    if stream:
        return "text/event-stream", sse([(None, obj)]), parts
    return "application/json", json.dumps(obj).encode(), parts


# --- the server --------------------------------------------------------------

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "kinbox-fakemodel/1"

    def log_message(self, fmt, *args):  # quiet: the request log says it all
        pass

    def send(self, code, ctype, data):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        m = self.server.model
        i = m.next_index()
        m.log({"i": i, "api": None, "method": "GET", "path": self.path,
               "main": False})
        path = urlsplit(self.path).path
        if path.endswith("/models"):
            self.send(200, "application/json",
                      json.dumps({"object": "list", "data": [],
                                  "models": []}).encode())
        else:
            self.send(404, "application/json", b'{"error":"not found"}')

    def do_HEAD(self):
        self.send(200, "text/plain", b"")

    def do_POST(self):
        m = self.server.model
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        path = urlsplit(self.path).path
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        if path.endswith("/messages/count_tokens"):
            api = "anthropic-count"
        elif path.endswith("/messages"):
            api = "anthropic"
        elif path.endswith("/responses"):
            api = "responses"
        elif ":streamGenerateContent" in path or \
                ":generateContent" in path:
            api = "gemini"
        elif ":countTokens" in path:
            api = "gemini-count"
        else:
            api = None
        shell = None
        if api in SHELL_TOOLS:
            names = tool_names(api, body)
            for s in SHELL_TOOLS[api]:
                if s in names:
                    shell = s
                    break
        rec = {"i": m.next_index(), "api": api, "method": "POST",
               "path": self.path, "main": shell is not None, "body": body}
        if shell is not None:
            state = {"anthropic": anthropic_state,
                     "responses": responses_state,
                     "gemini": gemini_state}[api](body)
            rec["scenario"], turn = m.turn(*state)
            rec["turn"] = state[1]
        else:
            turn = {"text": "ok"}
        m.log(rec)
        if api == "anthropic":
            blocks, stop = anthropic_answer(m, body, turn, shell)
            ctype, data = anthropic_reply(m, body, blocks, stop)
            answer = blocks
        elif api == "anthropic-count":
            ctype, data = "application/json", b'{"input_tokens": 10}'
            answer = None
        elif api == "responses":
            ctype, data, answer = responses_reply(m, body, turn, shell)
        elif api == "gemini":
            ctype, data, answer = gemini_reply(
                m, body, turn, shell, ":streamGenerateContent" in path)
        elif api == "gemini-count":
            ctype, data = "application/json", b'{"totalTokens": 10}'
            answer = None
        else:
            self.send(404, "application/json", b'{"error":"not found"}')
            m.log({"i": rec["i"], "answer": 404})
            return
        m.log({"i": rec["i"], "answer": answer})
        self.send(200, ctype, data)


def serve(scenarios, log_path, port=0):
    """Starts the server in a thread; returns it (server.server_port)."""
    srv = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    srv.daemon_threads = True
    srv.model = Model(scenarios, log_path)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    return srv


def main():
    # fakemodel.py SCENARIO-FILE LOG PORT-FILE: serve until killed
    scen = json.load(open(sys.argv[1]))["scenarios"]
    srv = serve(scen, sys.argv[2])
    with open(sys.argv[3], "w") as f:
        f.write("%d\n" % srv.server_port)
    threading.Event().wait()


if __name__ == "__main__":
    main()
