#!/bin/sh
# tests/bench.sh — `make bench`: what kinbox costs on top of bubblewrap.
#
# In one run, from a throwaway git workspace under /var/tmp (so the git
# guards are part of the cost), it times
#   (a)  /bin/true on its own,
#   (b)  the bwrap argv that `kinbox --dry-run -- /bin/true` prints, run
#        directly, with the descriptors it names supplied: the seccomp
#        program from backends/seccomp.bpf (the build-time compile kinbox
#        embeds), the helper's status and stderr descriptors,
#   (c)  kinbox -- /bin/true (which relays the command's stderr),
# kinbox's own peak RSS on `kinbox --dry-run -- /bin/true`, and the relay's
# throughput: 1 GiB written to stderr through kinbox against the same
# sandboxed command piped through cat, and 1 GiB to stdout (untouched).
#
# Timer: hyperfine when installed (make deps installs it), else a
# posix_spawn loop in python3. It reports against the targets (median
# <= 1.15x raw bwrap, peak RSS <= 2 MiB) and does not fail on them: the exit
# status is non-zero only when something could not run.
#
# Knobs: KB_BENCH_RUNS (50), KB_BENCH_WARMUP (5), KB_BENCH_TIMER
# (auto | hyperfine | python).
set -u

top=$(cd "$(dirname "$0")/.." && pwd) || exit 1
if ! command -v python3 >/dev/null 2>&1; then
	echo "bench: python3 is needed (make deps installs it)" >&2
	exit 1
fi
if [ ! -x "$top/kinbox" ] || [ ! -x "$top/kinbox-exec" ]; then
	echo "bench: $top/kinbox or kinbox-exec is missing; run make first" >&2
	exit 1
fi
exec python3 - "$top" <<'EOF'
import fcntl
import json
import math
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TOP = sys.argv[1]
KINBOX = os.path.join(TOP, "kinbox")
RUNS = int(os.environ.get("KB_BENCH_RUNS", "50"))
WARMUP = int(os.environ.get("KB_BENCH_WARMUP", "5"))
TIMER = os.environ.get("KB_BENCH_TIMER", "auto")
RATIO_TARGET = 1.15
RELAY_RATIO_TARGET = 1.25
THROUGHPUT_TARGET = 0.9
GIB = 1 << 30
BPF = os.path.join(TOP, "backends", "seccomp.bpf")
RSS_TARGET_KIB = 2048
problems = []


def problem(msg):
    problems.append(msg)
    print("bench: " + msg, file=sys.stderr)


PASSED = {}  # bind sources passed as descriptors: fd -> path


def parse_plan(text):
    """The --dry-run plan: '# ' notes, then one shell-quoted word a line
    (a bind source passed as a descriptor: '/proc/self/fd/N  # path')."""
    notes, argv = [], []
    for line in text.splitlines():
        if line.startswith("# "):
            notes.append(line[2:])
            continue
        m = re.match(r"^/proc/self/fd/(\d+)  # (/.*)$", line)
        if m:
            PASSED[int(m.group(1))] = m.group(2)
            line = "/proc/self/fd/" + m.group(1)
        words = shlex.split(line)
        if len(words) != 1:
            raise ValueError("plan line is not one word: %r" % line)
        argv.append(words[0])
    return notes, argv


def spawn_actions(row):
    acts = [(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0)]
    for fd, kind, arg in row["fds"]:
        if kind == "read":
            acts.append((os.POSIX_SPAWN_OPEN, fd, arg, os.O_RDONLY, 0))
        elif kind == "null":
            acts.append((os.POSIX_SPAWN_OPEN, fd, "/dev/null",
                         os.O_WRONLY, 0))
        else:  # "stderr": a copy of fd 2
            acts.append((os.POSIX_SPAWN_DUP2, 2, fd))
    return acts


def spawn_once(row, ws):
    """Returns (wall seconds, wait status, rusage)."""
    cwd = os.getcwd()
    os.chdir(ws)
    try:
        t0 = time.perf_counter()
        pid = os.posix_spawn(row["argv"][0], row["argv"], os.environ,
                             file_actions=spawn_actions(row))
        _, status, ru = os.wait4(pid, 0)
        t1 = time.perf_counter()
    finally:
        os.chdir(cwd)
    return t1 - t0, status, ru


def shell_line(row):
    s = " ".join(shlex.quote(a) for a in row["argv"])
    for fd, kind, arg in row["fds"]:
        if kind == "read":
            s += " %d<%s" % (fd, shlex.quote(arg))
        elif kind == "null":
            s += " %d>/dev/null" % fd
        else:
            s += " %d>&2" % fd
    return s


def time_hyperfine(rows, ws, tmp):
    out = os.path.join(tmp, "hyperfine.json")
    # bash: the bind-source descriptors may have two digits (dash takes
    # one in a redirection)
    cmd = ["hyperfine", "--shell", "bash", "--style", "none", "--warmup",
           str(WARMUP),
           "--runs", str(RUNS), "--export-json", out]
    for row in rows:
        cmd += ["-n", row["key"], shell_line(row)]
    r = subprocess.run(cmd, cwd=ws, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if r.returncode != 0:
        problem("hyperfine failed: " + (r.stderr or r.stdout).strip())
        return None
    with open(out) as f:
        res = json.load(f)["results"]
    return {x["command"]: x["times"] for x in res}


def time_python(rows, ws):
    """Round-robin over the rows, so that a burst of load elsewhere on the
    machine lands on every row alike."""
    times = {row["key"]: [] for row in rows}
    for i in range(WARMUP + RUNS):
        for row in rows:
            if times.get(row["key"]) is None:
                continue
            dt, status, _ = spawn_once(row, ws)
            if status != 0:
                problem("%s exited with wait status %d" % (row["key"], status))
                times[row["key"]] = None
            elif i >= WARMUP:
                times[row["key"]].append(dt)
    return {k: v for k, v in times.items() if v}


def p90(xs):
    s = sorted(xs)
    return s[max(0, math.ceil(0.9 * len(s)) - 1)]


def hwm_blocked(cmd, ws):
    """Peak RSS (KiB) of the process that runs `cmd`, without GNU time:
    its stdout is a one-page pipe filled beforehand, so it blocks writing
    its output, and VmHWM of its own address space is read then. (The
    rusage of a child that python spawns also counts python's pages.)"""
    r, w = os.pipe()
    try:
        fcntl.fcntl(w, 1031, 4096)  # F_SETPIPE_SZ
        os.set_blocking(w, False)
        try:
            while True:
                os.write(w, b"x" * 4096)
        except BlockingIOError:
            pass
        os.set_blocking(w, True)
        cwd = os.getcwd()
        os.chdir(ws)
        try:
            pid = os.posix_spawn(cmd[0], cmd, os.environ, file_actions=[
                (os.POSIX_SPAWN_DUP2, w, 1)])
        finally:
            os.chdir(cwd)
        os.close(w)
        w = -1
        kib = None
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                with open("/proc/%d/wchan" % pid) as f:
                    wchan = f.read()
                with open("/proc/%d/status" % pid) as f:
                    status = f.read()
            except OSError:
                break
            if "pipe" in wchan and "\nState:\tS" in status:
                m = re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)
                kib = int(m.group(1)) if m else None
                break
            time.sleep(0.001)
        while os.read(r, 65536):
            pass
        _, st = os.waitpid(pid, 0)
        return kib if st == 0 else None
    finally:
        os.close(r)
        if w != -1:
            os.close(w)


def peak_rss(ws):
    """kinbox's own peak RSS (KiB), the largest of 5 dry runs."""
    cmd = [KINBOX, "--dry-run", "--", "/bin/true"]
    gnu = False
    if os.access("/usr/bin/time", os.X_OK):
        v = subprocess.run(["/usr/bin/time", "--version"], text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        gnu = "GNU" in v.stdout
    vals = []
    for _ in range(5):
        if gnu:
            with tempfile.NamedTemporaryFile("r", dir=ws) as f:
                r = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", f.name]
                                   + cmd, cwd=ws, stdout=subprocess.DEVNULL,
                                   stdin=subprocess.DEVNULL)
                if r.returncode != 0:
                    return None, "kinbox --dry-run failed under time"
                vals.append(int(f.read().split()[-1]))
        else:
            kib = hwm_blocked(cmd, ws)
            if kib is None:
                return None, ("GNU time is not installed (apt-get install "
                              "time) and VmHWM could not be read")
            vals.append(kib)
    how = ("GNU time -f %M" if gnu else "VmHWM from /proc (GNU time is not "
           "installed: apt-get install time)")
    return max(vals), how


def main(tmp):
    ws = os.path.join(tmp, "ws")
    os.mkdir(ws)
    if shutil.which("git") is None:
        problem("git is not installed: the workspace cannot be a git "
                "repository, so the git guards are not measured")
    else:
        subprocess.run(["git", "init", "-q", ws], check=True)

    r = subprocess.run([KINBOX, "--dry-run", "--", "/bin/true"], cwd=ws,
                       stdin=subprocess.DEVNULL, capture_output=True,
                       text=True)
    if r.returncode != 0:
        problem("kinbox --dry-run failed: " + r.stderr.strip())
        return
    notes, argv = parse_plan(r.stdout)
    m = next((re.match(r"backend: bwrap \((/[^)]*)\)", n) for n in notes
              if n.startswith("backend: ")), None)
    argv[0] = m.group(1) if m else (shutil.which("bwrap") or argv[0])
    end = argv.index("--")
    sec = argv.index("--seccomp")
    if sec > end:
        raise ValueError("--seccomp after the first --")
    seccomp_fd = int(argv[sec + 1])
    status_fd, stderr_fd = int(argv[end + 2]), int(argv[end + 3])
    helper_fds = [(status_fd, "null", None), (stderr_fd, "stderr", None)]
    # files bwrap fills from a descriptor (kinbox's masks: an empty memfd)
    data_fds = sorted({int(argv[i + 1]) for i in range(end)
                       if argv[i] in ("--file", "--bind-data",
                                      "--ro-bind-data")})
    helper_fds += [(fd, "read", "/dev/null") for fd in data_fds]
    # the checked bind sources: the same directories, opened by path
    helper_fds += [(fd, "read", path) for fd, path in sorted(PASSED.items())]
    supplied = ", ".join(["%d (status pipe: /dev/null)" % status_fd,
                          "%d (stderr: a copy of fd 2)" % stderr_fd] +
                         ["%d (data for empty files: /dev/null)" % fd
                          for fd in data_fds] +
                         ["%d (bind source %s)" % (fd, path)
                          for fd, path in sorted(PASSED.items())])

    if not os.path.exists(BPF):
        problem("%s is missing: run make first" % BPF)
        return
    raw_fds = [(seccomp_fd, "read", BPF)] + helper_fds
    rows = [
        {"key": "a", "label": "/bin/true", "argv": ["/bin/true"], "fds": []},
        {"key": "b", "label": "raw bwrap, kinbox's exact argv",
         "argv": argv, "fds": raw_fds},
        {"key": "c", "label": "kinbox -- /bin/true",
         "argv": [KINBOX, "--", "/bin/true"], "fds": []},
    ]

    # every row must work before it is timed
    for row in list(rows):
        _, status, _ = spawn_once(row, ws)
        if status != 0:
            problem("%s (%s) does not run: wait status %d"
                    % (row["key"], row["label"], status))
            rows.remove(row)

    notes = []
    hf = shutil.which("hyperfine")
    if TIMER == "hyperfine" and hf is None:
        problem("KB_BENCH_TIMER=hyperfine but hyperfine is not installed")
        return
    if hf is not None and TIMER != "python":
        v = subprocess.run([hf, "--version"], stdout=subprocess.PIPE,
                           text=True).stdout.strip()
        timer = v + ", every command via sh, sh's start-up subtracted"
        times = time_hyperfine(rows, ws, tmp)
        notes.append("(a) under hyperfine is what is left of /bin/true once"
                     " sh's own start-up is")
        notes.append("    subtracted (sh execs it in place): it can read"
                     " close to 0.")
    else:
        timer = ("python3 posix_spawn loop, wall time spawn to wait, rows "
                 "interleaved")
        times = time_python(rows, ws)
    if not times:
        return

    bw = subprocess.run([argv[0], "--version"], stdout=subprocess.PIPE,
                        text=True).stdout.strip()
    print("kinbox bench: %d runs per command after %d warm-up runs; timer: %s"
          % (RUNS, WARMUP, timer))
    print("host: Linux %s, %s, %d CPUs, load %.2f, uid %d"
          % (os.uname().release, bw, os.cpu_count() or 0,
             os.getloadavg()[0], os.getuid()))
    print("workspace: %s (a git repository: the git guards are in the plan)"
          % ws)
    print()
    print("The raw bwrap baseline (b) is the exact argv that `kinbox --dry-run"
          " -- /bin/true`")
    print("prints, run directly, with the descriptors it names supplied.")
    print("Descriptors: %d (the seccomp program, %s), %s."
          % (seccomp_fd, BPF, supplied))
    print("Ratios are against (b).")
    print()
    stats = {}
    for row in rows:
        t = times.get(row["key"])
        if t:
            stats[row["key"]] = (statistics.median(t) * 1e3, p90(t) * 1e3)
    base = stats.get("b", (None,))[0]
    fmt = "%-4s %-46s %9s %8s %12s"
    print(fmt % ("", "command", "median ms", "p90 ms", "vs raw bwrap"))
    for row in rows:
        if row["key"] not in stats:
            continue
        med, p = stats[row["key"]]
        ratio = "%.2fx" % (med / base) if base else "-"
        print(fmt % ("(%s)" % row["key"], row["label"], "%.2f" % med,
                     "%.2f" % p, ratio))
    for n in notes:
        print(n)
    print()

    if base and "c" in stats:
        ratio = stats["c"][0] / base
        print("target  kinbox median <= %.2fx raw bwrap (b):  %.2fx  %s"
              % (RATIO_TARGET, ratio,
                 "met" if ratio <= RATIO_TARGET else "NOT met"))
        print("target  kinbox with its stderr relay <= %.2fx (b):  %.2fx  %s"
              % (RELAY_RATIO_TARGET, ratio,
                 "met" if ratio <= RELAY_RATIO_TARGET else "NOT met"))
    else:
        problem("the kinbox/raw bwrap ratio could not be computed")
    rss, how = peak_rss(ws)
    if rss is None:
        problem("peak RSS not measured: " + how)
    else:
        print("target  kinbox peak RSS <= %d KiB (2 MiB):        %d KiB  %s"
              % (RSS_TARGET_KIB, rss,
                 "met" if rss <= RSS_TARGET_KIB else "NOT met"))
        print("        (kinbox --dry-run -- /bin/true, largest of 5, %s)"
              % how)
    print()
    throughput(ws, argv, raw_fds)


def timed_run(cmd, ws, **kw):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=ws, stdin=subprocess.DEVNULL, **kw)
    return time.perf_counter() - t0, r.returncode


def throughput(ws, argv, raw_fds):
    """1 GiB through stderr and through stdout, sandboxed both ways. The
    raw side is the same bwrap argv running the same writer, its stderr
    piped through cat (what a plain relay costs); kinbox's side is kinbox's
    own relay. Medians of KB_BENCH_IO_RUNS (5) runs each, interleaved."""
    runs = int(os.environ.get("KB_BENCH_IO_RUNS", "7"))
    # the plan's argv up to the command (bwrap ... -- kinbox-exec ... --)
    cmd_at = argv.index("--", argv.index("--") + 1) + 1
    writer = ["dd", "if=/dev/zero", "bs=1M", "count=%d" % (GIB >> 20),
              "status=none"]
    writer8 = ["dd", "if=/dev/zero", "bs=1M", "count=%d" % (8 * GIB >> 20),
               "status=none"]

    def raw(extra, redir):
        s = " ".join(shlex.quote(a) for a in argv[:cmd_at] + extra)
        # fd 2 first, so that the helper's stderr copy follows it
        s += " " + redir
        for fd, kind, arg in raw_fds:
            s += {"read": " %d<%s" % (fd, shlex.quote(arg or "")),
                  "null": " %d>/dev/null" % fd, "stderr": " %d>&2" % fd}[kind]
        return s

    cases = [
        ("stderr", "raw bwrap ... 2>&1 >/dev/null | cat >/dev/null",
         ["bash", "-c", raw(writer + ["of=/dev/stderr"], "2>&1 >/dev/null")
          + " | cat >/dev/null"]),
        ("stderr", "kinbox -- dd ... of=/dev/stderr 2>/dev/null",
         [KINBOX, "--"] + writer + ["of=/dev/stderr"]),
        # to /dev/null a GiB takes ~50 ms, close to the start-up cost:
        # 8 GiB keeps the comparison about the stream
        ("stdout", "raw bwrap ... >/dev/null (8 GiB)",
         ["bash", "-c", raw(writer8, ">/dev/null")]),
        ("stdout", "kinbox -- dd ... >/dev/null (8 GiB)",
         [KINBOX, "--"] + writer8),
    ]
    times = [[] for _ in cases]
    for _ in range(runs):
        for i, (_, _, cmd) in enumerate(cases):
            dt, rc = timed_run(cmd, ws, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
            if rc != 0:
                problem("throughput: %s exited %d" % (cases[i][1], rc))
                return
            times[i].append(dt)
    print("relay throughput, median of %d (MiB/s):" % runs)
    mibs = []
    for (stream, label, _), t in zip(cases, times):
        m = (8192 if "8 GiB" in label else 1024) / statistics.median(t)
        mibs.append(m)
        print("     %-7s %-48s %8.0f" % (stream, label, m))
    for name, k, raw_i in (("stderr", 1, 0), ("stdout", 3, 2)):
        ratio = mibs[k] / mibs[raw_i]
        target = THROUGHPUT_TARGET if name == "stderr" else 0.95
        print("target  %s through kinbox >= %.2fx the raw run:  %.2fx  %s"
              % (name, target, ratio, "met" if ratio >= target else
                 "NOT met"))


tmp = tempfile.mkdtemp(prefix="kinbox-bench.", dir="/var/tmp")
try:
    main(tmp)
except Exception as e:  # report, clean up, fail
    problem("%s: %s" % (type(e).__name__, e))
finally:
    shutil.rmtree(tmp, ignore_errors=True)
if problems:
    print("bench: %d problem(s); see above" % len(problems), file=sys.stderr)
    sys.exit(1)
EOF
