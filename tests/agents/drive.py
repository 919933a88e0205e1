#!/usr/bin/env python3
"""tests/agents/drive.py — runs one coding agent for one prompt against the
scripted model (fakemodel.py), in a network namespace that has only
loopback, with the agent configured as README.md's "Use with your agent"
says.

  drive.py AGENT OUT --project DIR --home DIR --scenario FILE [--cwd DIR]
           [--prompt TEXT] [--mode MODE] [--timeout S] [--env NAME=VALUE]...
           [--config readme|none] [--settings JSON] [--untrusted]
           [-- AGENT-ARGUMENT...]

AGENT is claude-code, codex or gemini (`drive.py selftest OUT` checks the
namespace alone: loopback only, the model server reached over it, kinbox
running a command in it; OUT/selftest says what it saw). OUT (made if
missing) receives:

  requests.jsonl  every request the model server received, and its answer
                  (fakemodel.py)
  agent.out, agent.err, agent.rc   the agent's output and exit status
                  (124: killed after --timeout seconds)
  hooks/          each `kinpolicy hook` call the agent made: N.args, N.env,
                  N.in (the event), N.out (the answer), N.err, N.rc
  argv            the agent's command line, one argument a line

The agent runs in --cwd (default: --project) with the prompt --prompt
(default "Run the commands. [scenario main]"); --mode is Claude Code's
--permission-mode (default bypassPermissions) or Gemini CLI's
--approval-mode (default yolo); Codex runs `codex exec` with its own
sandbox off (-s danger-full-access) unless the AGENT-ARGUMENTs name one,
and with --dangerously-bypass-hook-trust unless --untrusted.
--home is the agent's HOME (kept between runs: a resumed session finds its
files there); --config readme (the default) writes README.md's block for
the agent into it, merged with --settings (a JSON object: Claude Code's
permission rules, say) into the same file; --config install writes
--settings, then runs `kinpolicy hook install AGENT` as README.md tells
users to (for Claude Code it also sets the shell prefix, kinbox-sh beside
kinpolicy); --config none writes no hook configuration (only what points
the agent at the fake model). The
`kinpolicy` the hooks name is found on PATH: a wrapper that records the
call and runs OUT/libexec/kinpolicy, a copy of $KINPOLICY installed
beside OUT/libexec/kinbox, a link to $KINBOX (so the hook's rewrite names
the kinbox under test, as it names the one beside an installed kinpolicy).
Everything else the agent gets is fixed here: a minimal environment, fake
API keys, the opt-outs of the agents' telemetry and update checks.

The network namespace: as root `unshare --net`; as another user
`unshare --user --map-root-user --net`, then (loopback up) a nested user
namespace that maps the user back to itself, so that the agent, its hooks
and kinbox run as that user, unprivileged. Before the agent starts, the
driver checks that loopback is the namespace's only interface, and
refuses to run otherwise: nothing an agent tries can reach another host.

Environment: KINPOLICY and KINBOX (required), KB_AGENTS_MODULES (the
node_modules the agents are installed in; default: node_modules beside
this file), KB_README (default: README.md two directories up).
"""
import argparse
import fcntl
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import fakemodel  # noqa: E402

AGENTS = {
    # agent: (its program under node_modules/.bin, README paragraph start)
    "claude-code": ("claude", "Claude Code,"),
    "codex": ("codex", "Codex,"),
    "gemini": ("gemini", "Gemini CLI,"),
}
STAGE = "KB_AGENTS_NETNS_STAGE"


def die(msg):
    sys.stderr.write("drive.py: %s\n" % msg)
    sys.exit(2)


# --- the network namespace ---------------------------------------------------

def lo_up():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        ifr = struct.pack("16sH", b"lo", 0)
        flags = struct.unpack("16sH", fcntl.ioctl(s, 0x8913, ifr))[1]
        if not flags & 1:  # IFF_UP; SIOCSIFFLAGS
            fcntl.ioctl(s, 0x8914, struct.pack("16sH", b"lo", flags | 1))
    finally:
        s.close()


def only_loopback():
    names = sorted(n for _, n in socket.if_nameindex())
    if names != ["lo"]:
        die("refusing to run an agent: this network namespace has %s, "
            "not loopback alone" % names)


def enter_netns():
    """Re-runs this script inside a new network namespace (see above)."""
    stage = os.environ.get(STAGE)
    me = [sys.executable, os.path.abspath(__file__)] + sys.argv[1:]
    if stage == "final":
        if os.geteuid() == 0:
            lo_up()
        only_loopback()
        return
    if stage == "mapback":
        # root of a user namespace of our own: loopback up, then the user
        # again, in a nested user namespace, unprivileged
        lo_up()
        uid, gid = os.environ["KB_AGENTS_UID"], os.environ["KB_AGENTS_GID"]
        os.environ[STAGE] = "final"
        os.execvp("unshare", ["unshare", "--user", "--map-user=" + uid,
                              "--map-group=" + gid, "--"] + me)
    if os.geteuid() == 0:
        os.environ[STAGE] = "final"
        os.execvp("unshare", ["unshare", "--net", "--"] + me)
    os.environ[STAGE] = "mapback"
    os.environ["KB_AGENTS_UID"] = str(os.getuid())
    os.environ["KB_AGENTS_GID"] = str(os.getgid())
    os.execvp("unshare", ["unshare", "--user", "--map-root-user", "--net",
                          "--"] + me)


# --- README.md's blocks ------------------------------------------------------

def readme_blocks(path):
    """{first line of the paragraph before it: JSON} of the ```json blocks
    of README.md's section 'Use with your agent'."""
    out, para, block, inside, in_para = {}, "", None, False, False
    for line in open(path, encoding="utf-8"):
        if line.startswith("## "):
            inside = line.strip() == "## Use with your agent"
            continue
        if not inside:
            continue
        if block is not None:
            if line.startswith("```"):
                text = "".join(block).strip()
                # a fragment of the settings ("hooks": {...}) is the
                # members of the file's object
                if not text.startswith("{"):
                    text = "{" + text + "}"
                out[para] = json.loads(text)
                block = None
            else:
                block.append(line)
        elif line.startswith("```json"):
            block = []
        elif not line.strip():
            in_para = False
        elif not in_para:
            para, in_para = line.strip(), True
    return out


def readme_block(agent):
    """The block whose hook commands name this agent, with KP (what
    README writes for kinpolicy's absolute path) as kinpolicy, which PATH
    finds: the recording wrapper."""
    top = os.path.dirname(os.path.dirname(HERE))
    path = os.environ.get("KB_README", os.path.join(top, "README.md"))
    for para, obj in readme_blocks(path).items():
        text = json.dumps(obj)
        if ("KP hook %s\"" % agent) in text or \
           ("kinpolicy hook %s\"" % agent) in text:
            return json.loads(text.replace("KP hook ", "kinpolicy hook "))
    die("%s: no ```json block of %s's hook commands in 'Use with your "
        "agent'" % (path, agent))


def merge(a, b):
    """b over a: objects merged, lists of b appended, the rest b's."""
    if isinstance(a, dict) and isinstance(b, dict):
        r = dict(a)
        for k, v in b.items():
            r[k] = merge(a[k], v) if k in a else v
        return r
    if isinstance(a, list) and isinstance(b, list):
        return a + b
    return b


# --- the agents --------------------------------------------------------------

def hook_wrapper(path, real, logdir):
    q = lambda s: "'" + s.replace("'", "'\\''") + "'"  # noqa: E731
    with open(path, "w") as f:
        f.write("""#!/bin/sh
# kinpolicy, each hook call recorded (tests/agents/drive.py)
[ "$1" = hook ] || exec %(real)s "$@"
n=%(log)s/$(date +%%s%%N).$$
printf '%%s\\n' "$@" >"$n.args"
env >"$n.env"
cat >"$n.in"
rc=0
%(real)s "$@" <"$n.in" >"$n.out" 2>"$n.err" || rc=$?
echo "$rc" >"$n.rc"
cat "$n.out"
cat "$n.err" >&2
exit "$rc"
""" % {"real": q(real), "log": q(logdir)})
    os.chmod(path, 0o755)


def write_json(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, indent=2)
        f.write("\n")


def install(a, env):
    """`kinpolicy hook install AGENT`, as README.md tells users, run as
    the user of this home; then each hook command's absolute kinpolicy
    (the installed copy) is pointed at the recording wrapper on PATH, the
    same program behind it."""
    ienv = {"HOME": a.home, "PATH": "/usr/bin:/bin"}
    for k in ("CODEX_HOME",):
        if k in env:
            ienv[k] = env[k]
    r = subprocess.run([a.kinpolicy_real, "hook", "install", a.agent],
                       env=ienv, cwd=a.home, capture_output=True, text=True)
    with open(os.path.join(a.out_dir, "install.log"), "w") as f:
        f.write(r.stdout + r.stderr)
    if r.returncode != 0:
        die("kinpolicy hook install %s: exit %d: %s" %
            (a.agent, r.returncode, r.stderr.strip()))
    path = {"claude-code": os.path.join(a.home, ".claude", "settings.json"),
            "codex": os.path.join(env.get("CODEX_HOME", ""), "hooks.json"),
            "gemini": os.path.join(a.home, ".gemini", "settings.json")}[
                a.agent]
    text = open(path).read()
    if a.kinpolicy_real + " hook " not in text:
        die("%s: kinpolicy hook install wrote no hook of %s" % (path, a.kinpolicy_real))
    with open(path, "w") as f:
        f.write(text.replace(a.kinpolicy_real + " hook ", "kinpolicy hook "))


def configure(a, port, env):
    """The agent's files and environment; returns its argv."""
    base = "http://127.0.0.1:%d" % port
    home = a.home
    extra = json.loads(a.settings) if a.settings else {}
    prog = os.path.join(a.modules, ".bin", AGENTS[a.agent][0])
    if a.agent == "claude-code":
        hooks = readme_block(a.agent) if a.config == "readme" else {}
        write_json(os.path.join(home, ".claude", "settings.json"),
                   merge(hooks, extra))
        if a.config == "install":
            install(a, env)
        env.update({
            "ANTHROPIC_BASE_URL": base,
            "ANTHROPIC_API_KEY": "sk-ant-kinbox-test-fake",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_BUG_COMMAND": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "SHELL": "/bin/bash",
        })
        mode = a.mode or "bypassPermissions"
        if mode == "bypassPermissions" and os.geteuid() == 0:
            # Claude Code refuses bypassPermissions as root elsewhere
            env["IS_SANDBOX"] = "1"
        argv = [prog, "-p", a.prompt, "--output-format", "json",
                "--permission-mode", mode]
    elif a.agent == "codex":
        cdir = os.path.join(home, ".codex")
        os.makedirs(cdir, exist_ok=True)
        if a.config == "readme":
            write_json(os.path.join(cdir, "hooks.json"),
                       merge(readme_block(a.agent), extra))
        with open(os.path.join(cdir, "config.toml"), "w") as f:
            f.write("""# tests/agents/drive.py: the scripted model
model = "kinbox-fake"
model_provider = "kinboxfake"
check_for_update_on_startup = false

[model_providers.kinboxfake]
name = "kinbox fake model"
base_url = "%s/v1"
wire_api = "responses"
env_key = "KINBOX_FAKE_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[feedback]
enabled = false
""" % base)
        env.update({"KINBOX_FAKE_API_KEY": "sk-kinbox-test-fake",
                    "CODEX_HOME": cdir})
        if a.config == "install":
            install(a, env)
        # never Codex's own sandbox by default: kinbox is the sandbox
        # under test (a test may ask for Codex's with -s); the hooks run
        # untrusted (Codex skips them silently) only with --untrusted
        argv = [prog, "exec", "--color", "never", "--skip-git-repo-check"]
        if not a.untrusted:
            argv.insert(2, "--dangerously-bypass-hook-trust")
        if not any(x in ("-s", "--sandbox") or x.startswith("--sandbox=")
                   for x in a.rest):
            argv += ["-s", "danger-full-access"]
    else:
        hooks = readme_block(a.agent) if a.config == "readme" else {}
        own = {
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        }
        write_json(os.path.join(home, ".gemini", "settings.json"),
                   merge(merge(hooks, own), extra))
        if a.config == "install":
            install(a, env)
        env.update({"GEMINI_API_KEY": "kinbox-test-fake",
                    "GOOGLE_GEMINI_BASE_URL": base,
                    "GEMINI_TELEMETRY_ENABLED": "false",
                    "GEMINI_CLI_NO_RELAUNCH": "true"})
        argv = [prog, "--skip-trust", "--approval-mode", a.mode or "yolo",
                "-p", a.prompt]
    return argv + a.rest if a.agent != "codex" else argv + a.rest + \
        [a.prompt]


def selftest(out):
    """drive.py selftest OUT: the namespace without an agent. Loopback
    alone (enter_netns refuses anything else), the model server answers
    over it, and kinbox runs a command in it; OUT/selftest says so."""
    kb = os.environ.get("KINBOX")
    if not kb or not os.access(kb, os.X_OK):
        die("KINBOX: no kinbox to run (%r)" % kb)
    enter_netns()
    import urllib.request
    os.makedirs(out, exist_ok=True)
    lines = ["interfaces: %s" % " ".join(n for _, n in socket.if_nameindex())]
    srv = fakemodel.serve({"main": [{"text": "selftest"}]},
                          os.path.join(out, "requests.jsonl"))
    req = urllib.request.Request(
        "http://127.0.0.1:%d/v1/messages" % srv.server_port,
        data=json.dumps({"messages": [{"role": "user", "content": "hi"}],
                         "tools": [{"name": "Bash"}]}).encode(),
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        ans = json.load(r)
    lines.append("model: %s" % ans["content"][0]["text"])
    p = subprocess.run([kb, "--", "sh", "-c", 'echo "active=$KINBOX_ACTIVE"'],
                       cwd=out, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=60)
    lines.append("kinbox: exit %d: %s" % (p.returncode,
                                          p.stdout.decode().strip()))
    srv.shutdown()
    with open(os.path.join(out, "selftest"), "w") as f:
        f.write("".join(x + "\n" for x in lines))
    return 0


def main():
    if sys.argv[1:2] == ["selftest"] and len(sys.argv) == 3:
        return selftest(os.path.abspath(sys.argv[2]))
    p = argparse.ArgumentParser()
    p.add_argument("agent", choices=sorted(AGENTS))
    p.add_argument("out")
    p.add_argument("--project", required=True)
    p.add_argument("--cwd")
    p.add_argument("--home", required=True)
    p.add_argument("--scenario", required=True)
    p.add_argument("--prompt", default="Run the commands. [scenario main]")
    p.add_argument("--mode")
    p.add_argument("--timeout", type=float, default=60)
    p.add_argument("--env", action="append", default=[])
    p.add_argument("--config", choices=["readme", "install", "none"],
                   default="readme")
    p.add_argument("--settings")
    p.add_argument("--untrusted", action="store_true")
    argv = sys.argv[1:]
    rest = []
    if "--" in argv:
        rest = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    a = p.parse_args(argv)
    a.rest = rest
    a.modules = os.environ.get("KB_AGENTS_MODULES",
                               os.path.join(HERE, "node_modules"))
    kp = os.environ.get("KINPOLICY")
    if not kp or not os.access(kp, os.X_OK):
        die("KINPOLICY: no kinpolicy to run (%r)" % kp)
    kb = os.environ.get("KINBOX")
    if not kb or not os.access(kb, os.X_OK):
        die("KINBOX: no kinbox to run (%r)" % kb)
    if not os.access(os.path.join(a.modules, ".bin",
                                  AGENTS[a.agent][0]), os.X_OK):
        die("%s is not installed in %s (make agents)" % (a.agent, a.modules))
    enter_netns()

    out = os.path.abspath(a.out)
    os.makedirs(os.path.join(out, "hooks"), exist_ok=True)
    os.makedirs(a.home, exist_ok=True)
    # kinpolicy as installed: a copy, with the kinbox under test beside it
    # (the rewrite names the kinbox beside kinpolicy); on PATH, a wrapper
    # that records each hook call
    bindir = os.path.join(out, "bin")
    libexec = os.path.join(out, "libexec")
    for d in (bindir, libexec):
        os.makedirs(d, exist_ok=True)
    real = os.path.join(libexec, "kinpolicy")
    if not os.path.exists(real):
        shutil.copy(kp, real)
        os.symlink(os.path.abspath(kb), os.path.join(libexec, "kinbox"))
        # hook install names the kinbox-sh beside kinpolicy as Claude
        # Code's shell prefix: the one built beside the kinbox under test
        ksh = os.path.join(os.path.dirname(os.path.abspath(kb)), "kinbox-sh")
        if os.access(ksh, os.X_OK):
            os.symlink(ksh, os.path.join(libexec, "kinbox-sh"))
    a.kinpolicy_real = real
    a.out_dir = out
    hook_wrapper(os.path.join(bindir, "kinpolicy"), real,
                 os.path.join(out, "hooks"))
    scen = json.load(open(a.scenario))["scenarios"]
    srv = fakemodel.serve(scen, os.path.join(out, "requests.jsonl"))
    env = {
        "HOME": a.home,
        "PATH": bindir + ":/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "USER": os.environ.get("USER", "root"),
        "LOGNAME": os.environ.get("LOGNAME", "root"),
    }
    for k in ("XDG_RUNTIME_DIR",):
        if os.environ.get(k):
            env[k] = os.environ[k]
    argv = configure(a, srv.server_port, env)
    for kv in a.env:
        k, _, v = kv.partition("=")
        env[k] = v
    with open(os.path.join(out, "argv"), "w") as f:
        f.write("".join(x + "\n" for x in argv))
    t0 = time.time()
    with open(os.path.join(out, "agent.out"), "wb") as o, \
            open(os.path.join(out, "agent.err"), "wb") as e:
        proc = subprocess.Popen(argv, cwd=a.cwd or a.project, env=env,
                                stdin=subprocess.DEVNULL, stdout=o, stderr=e,
                                start_new_session=True)
        try:
            rc = proc.wait(timeout=a.timeout)
        except subprocess.TimeoutExpired:
            rc = 124
    # whatever it left running goes with it
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    if rc == 124:
        proc.wait()
    with open(os.path.join(out, "agent.rc"), "w") as f:
        f.write("%d\n" % rc)
    with open(os.path.join(out, "seconds"), "w") as f:
        f.write("%.1f\n" % (time.time() - t0))
    srv.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
