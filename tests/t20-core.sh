#!/bin/sh
# tests/t20-core.sh — kinbox's core promises, each checked from OUTSIDE the
# sandbox (the file outside is unchanged, the hook did not run, nothing was
# left behind), never by an exit status alone.
#
# Run: sh tests/t20-core.sh (TAP), or all suites: sh tests/run-integration.sh
# KINBOX=/path/to/kinbox picks the binary (default: the repo's ./kinbox).
# shellcheck disable=SC2317,SC2016,SC2164
# SC2317: the t_* bodies are called through run_test.
# SC2016: single-quoted $... is meant for the shell inside the sandbox.
# SC2164: lib.sh sets -e (test bodies run under set -e): a failed cd fails.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

B=$KB_T/bin
mkdir "$B"

# --- preflight ---------------------------------------------------------------
if [ ! -x "$KINBOX" ]; then
	tap_not_ok "kinbox binary $KINBOX exists (build it: make kinbox kinbox-exec)"
	done_testing
fi
mkdir "$KB_T/preflight"
if ! (cd "$KB_T/preflight" && "$KINBOX" -- true) >"$KB_T/preflight.log" 2>&1; then
	diag "$(cat "$KB_T/preflight.log")"
	skip_all "kinbox cannot set up a sandbox on this host"
fi
diag "kinbox: $KINBOX; uid $(id -u); kernel $(uname -r)"

# --- helper programs (outside every workspace: read-only inside) -----------
# A hook that, if git ever runs it, leaves a marker outside any workspace.
cat >"$B/evil-hook" <<EOF
#!/bin/sh
echo "\$0 \$*" >>"$KB_T/HOOK-RAN"
exit 0
EOF
chmod 755 "$B/evil-hook"
EVIL=$B/evil-hook

# sig.py: writes ./ready, then on SIGTERM/SIGINT writes ./marker-N from the
# handler and exits 40+N.
cat >"$B/sig.py" <<'EOF'
import os, signal, sys, time
def handler(n, frame):
    with open("marker-%d" % n, "w") as f:
        f.write("handled %d\n" % n)
    sys.exit(40 + n)
signal.signal(signal.SIGTERM, handler)
signal.signal(signal.SIGINT, handler)
with open("ready.tmp", "w") as f:
    f.write("%d\n" % os.getpid())
os.rename("ready.tmp", "ready")
for _ in range(600):
    time.sleep(0.05)
sys.exit(99)
EOF

# listener.py PORTFILE LOG: a TCP listener on 127.0.0.1 (free port), logs
# "CONN <first line>" per connection.
cat >"$B/listener.py" <<'EOF'
import os, socket, sys
portfile, log = sys.argv[1], sys.argv[2]
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(16)
with open(portfile + ".tmp", "w") as f:
    f.write("%d\n" % s.getsockname()[1])
os.rename(portfile + ".tmp", portfile)
while True:
    c, _ = s.accept()
    c.settimeout(2)
    try:
        data = c.recv(200)
    except OSError:
        data = b""
    with open(log, "ab") as f:
        f.write(b"CONN " + data.strip() + b"\n")
    c.close()
EOF

# probe.py PORT TAG: connect to 127.0.0.1:PORT, send TAG
cat >"$B/probe.py" <<'EOF'
import socket, sys
try:
    c = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 3)
    c.sendall(sys.argv[2].encode() + b"\n")
    c.close()
    print("CONNECTED")
except OSError as e:
    print("REFUSED errno=%s" % e.errno)
EOF

# sysc.py OP...: raw system calls, prints "<op> ok <ret>" or
# "<op> errno=<NAME>"
cat >"$B/sysc.py" <<'EOF'
import ctypes, errno, os, platform, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
NR = {
    "x86_64": {"add_key": 248, "request_key": 249, "keyctl": 250},
    "aarch64": {"add_key": 217, "request_key": 218, "keyctl": 219},
}
GENERIC = {"io_uring_setup": 425, "openat2": 437}
arch = platform.machine()
def call(op, *args):
    nr = NR.get(arch, {}).get(op, GENERIC.get(op))
    if nr is None:
        print("%s unsupported-arch" % op)
        return
    r = libc.syscall(ctypes.c_long(nr), *args)
    if r == -1:
        e = ctypes.get_errno()
        print("%s errno=%s" % (op, errno.errorcode.get(e, str(e))))
    else:
        print("%s ok %d" % (op, r))
KEY_SPEC_SESSION_KEYRING = ctypes.c_long(-3)
for op in sys.argv[1:]:
    if op.startswith("add_key="):
        desc = op.split("=", 1)[1].encode()
        call("add_key", ctypes.c_char_p(b"user"), ctypes.c_char_p(desc),
             ctypes.c_char_p(b"kinbox"), ctypes.c_size_t(6),
             KEY_SPEC_SESSION_KEYRING)
    elif op.startswith("request_key="):
        desc = op.split("=", 1)[1].encode()
        call("request_key", ctypes.c_char_p(b"user"), ctypes.c_char_p(desc),
             ctypes.c_char_p(None), ctypes.c_long(0))
    elif op.startswith("search="):
        desc = op.split("=", 1)[1].encode()
        # KEYCTL_SEARCH = 10
        call("keyctl", ctypes.c_long(10), KEY_SPEC_SESSION_KEYRING,
             ctypes.c_char_p(b"user"), ctypes.c_char_p(desc), ctypes.c_long(0))
    elif op == "keyctl":
        # KEYCTL_GET_KEYRING_ID = 0 of the session keyring
        call("keyctl", ctypes.c_long(0), KEY_SPEC_SESSION_KEYRING,
             ctypes.c_long(0))
    elif op == "io_uring_setup":
        params = ctypes.create_string_buffer(120)
        call("io_uring_setup", ctypes.c_long(1), params)
    elif op == "openat2":
        how = ctypes.create_string_buffer(24)
        call("openat2", ctypes.c_long(-100), ctypes.c_char_p(b"/"), how,
             ctypes.c_size_t(24))
EOF

cat >"$B/tiocsti.py" <<'EOF'
import fcntl, termios
try:
    fcntl.ioctl(0, termios.TIOCSTI, b"#")
except PermissionError:
    print("TIOCSTI-EPERM")
except OSError as e:
    print("TIOCSTI-ERRNO-%d" % e.errno)
else:
    print("TIOCSTI-ALLOWED")
EOF

# ttycheck.sh: the terminal's device outside and what `tty` says inside
cat >"$B/ttycheck.sh" <<'EOF'
printf 'OUT=%s\n' "$(stat -L -c %t:%T /dev/stdin)"
"$KINBOX" -- sh -c 't=$(tty) && printf "TTY=%s\n" "$t" && printf "IN=%s\n" "$(stat -L -c %t:%T "$t")"'
EOF

# --- shared helpers (newdir is in lib.sh) -----------------------------------
# hook_ran_after_git DIR: the user's next `git commit` and `git status`,
# outside the sandbox; true when code planted by the command ran.
hook_ran_after_git() {
	rm -f "$KB_T/HOOK-RAN"
	(
		cd "$1" &&
			git commit -q --allow-empty -m "outside commit" &&
			git status
	) >/dev/null 2>&1 || true
	[ -e "$KB_T/HOOK-RAN" ]
}

# assert_no_planted_code_runs DIR...: the end-to-end property
assert_no_planted_code_runs() {
	for _d in "$@"; do
		if hook_ran_after_git "$_d"; then
			cat "$KB_T/HOOK-RAN" >&2
			fail "code planted by the sandboxed command ran outside" \
				"at the next git commit/status in $_d"
		fi
	done
}

# assert_disarmed_and_reported DIR: the end-to-end property first, then the
# SECURITY line kinbox owes the user for what it found
assert_disarmed_and_reported() {
	if ! grep -q '^kinbox: SECURITY' "$KB_ERR"; then
		echo "note: kinbox printed no SECURITY line" >&2
	fi
	assert_no_planted_code_runs "$1"
	assert_file_has_content "$KB_ERR" '^kinbox: SECURITY'
}

# listing DIR: what find sees (type, mode, path), sorted
listing() {
	(cd "$1" && find . -printf '%y %m %p\n' | LC_ALL=C sort)
}

# ============================================================================
# Filesystem confinement
# ============================================================================

t_outside_write() {
	d=$(newdir fs-out)
	mkdir "$d/ws" "$d/outside"
	echo old >"$d/outside/f"
	cd "$d/ws"
	kb -- sh -c "echo new > '$d/outside/f'; echo x > '$d/outside/new'; echo ran > ctl"
	assert_file_has_content "$d/ws/ctl" '^ran$'
	assert_streq "$(cat "$d/outside/f")" old "outside file content"
	assert_not_exists "$d/outside/new"
}
run_test "a write outside the workspace fails; the outside file keeps its content" t_outside_write

t_inside_write() {
	ws=$(newdir fs-in)
	cd "$ws"
	kb_expect 0 -- sh -c 'echo new > f && mkdir -p d/e && echo deep > d/e/g'
	assert_streq "$(cat "$ws/f")" new
	assert_streq "$(cat "$ws/d/e/g")" deep
}
run_test "writes inside the workspace land on the host" t_inside_write

# A clone under /tmp (the README's quick start works from one): the helper
# kinbox-exec sits in a directory the private /tmp hides.
t_build_under_tmp() {
	skip_on_landlock "no private /tmp (this test's write to /tmp/inner fails; t21-landlock.sh runs kinbox from /tmp)"
	bin=$(mktemp -d /tmp/kinbox-bin.XXXXXX)
	cleanup_add "rm -rf '$bin'"
	cp "$KINBOX" "$bin/kinbox"
	cp "$(dirname "$KINBOX")/kinbox-exec" "$bin/kinbox-exec"
	chmod 755 "$bin"
	ws=$(newdir fs-tmpbin)
	cd "$ws"
	KB_RC=0
	"$bin/kinbox" -- sh -c 'echo from-tmp > f; echo x > /tmp/inner' \
		>"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	assert_streq "$KB_RC" 0 "kinbox from /tmp runs the command"
	assert_streq "$(cat "$ws/f")" from-tmp
	assert_not_exists /tmp/inner
}
run_test "kinbox and kinbox-exec installed under /tmp still run (the helper is shown again inside the private /tmp)" t_build_under_tmp

t_write_root() {
	d=$(newdir fs-w)
	mkdir "$d/ws" "$d/granted" "$d/sibling"
	cd "$d/ws"
	kb -w "$d/granted" -- sh -c "echo g > '$d/granted/f'; echo s > '$d/sibling/f'"
	assert_streq "$(cat "$d/granted/f")" g "the --write root is writable"
	assert_not_exists "$d/sibling/f"
}
run_test "-w DIR makes DIR writable (seen outside); a sibling stays read-only" t_write_root

t_workspace_C() {
	d=$(newdir fs-C)
	mkdir "$d/ws" "$d/cwd"
	cd "$d/cwd"
	kb_expect 0 -C "$d/ws" -- sh -c "echo w > f; echo c > '$d/cwd/f' || true"
	assert_streq "$(cat "$d/ws/f")" w
	assert_not_exists "$d/cwd/f"
}
run_test "-C DIR: the command runs in DIR, the workspace; the directory kinbox was started in stays read-only" t_workspace_C

t_symlink_out() {
	d=$(newdir fs-link)
	mkdir "$d/ws" "$d/outside"
	echo old >"$d/outside/f"
	ln -s "$d/outside/f" "$d/ws/link"
	ln -s "$d/outside" "$d/ws/dirlink"
	cd "$d/ws"
	kb -- sh -c 'echo evil > link; echo evil > dirlink/new; echo evil >> link; echo ran > ctl'
	assert_file_has_content "$d/ws/ctl" '^ran$'
	assert_streq "$(cat "$d/outside/f")" old "symlink target content"
	assert_not_exists "$d/outside/new"
}
run_test "a symlink in the workspace pointing outside: writing through it fails, target unchanged" t_symlink_out

t_dotdot() {
	d=$(newdir fs-dotdot)
	mkdir "$d/ws" "$d/outside"
	echo old >"$d/outside/f"
	cd "$d/ws"
	kb -- sh -c 'echo x > ../outside/f; echo x > ../outside/new; mkdir ../outside/d; echo ran > ctl'
	assert_file_has_content "$d/ws/ctl" '^ran$'
	assert_streq "$(cat "$d/outside/f")" old
	assert_not_exists "$d/outside/new"
	assert_not_exists "$d/outside/d"
}
run_test ".. escapes (echo x > ../outside/f) fail" t_dotdot

t_tmp_private() {
	skip_on_landlock "no private /tmp (/tmp is the host's, read-only)"
	ws=$(newdir fs-tmp)
	hostfile=$(mktemp /tmp/kinbox-test-host.XXXXXX)
	cleanup_add "rm -f '$hostfile'"
	inside=/tmp/kinbox-test-inside.$(basename "$KB_T")
	cleanup_add "rm -f '$inside'"
	cd "$ws"
	kb_expect 0 -- sh -c "if test -e '$hostfile'; then echo VISIBLE; else echo HIDDEN; fi; echo in > '$inside' && echo WROTE"
	assert_file_has_content "$KB_OUT" '^HIDDEN$'
	assert_file_has_content "$KB_OUT" '^WROTE$'
	assert_not_exists "$inside"
}
run_test "/tmp inside is private: host /tmp files invisible, /tmp writes stay inside" t_tmp_private

t_tmpdir_under_tmp() {
	skip_on_landlock "no private /tmp (TMPDIR is the run's /tmp/kinbox-run.XXXXXX)"
	ws=$(newdir fs-tmpdir1)
	td=/tmp/kinbox-test-tmpdir.$(basename "$KB_T")
	mkdir -p "$td"
	cleanup_add "rm -rf '$td'"
	cd "$ws"
	export TMPDIR="$td"
	kb_expect 0 -- sh -c 'printf "%s\n" "$TMPDIR"; echo x > "$TMPDIR/f" && echo WROTE'
	assert_file_has_content "$KB_OUT" "^$td\$"
	assert_file_has_content "$KB_OUT" '^WROTE$'
	assert_not_exists "$td/f"
}
run_test "TMPDIR under /tmp is created inside the private /tmp, nothing reaches the host" t_tmpdir_under_tmp

t_tmpdir_outside() {
	skip_on_landlock "the caller's TMPDIR is not granted (the run's /tmp/kinbox-run.XXXXXX replaces it)"
	d=$(newdir fs-tmpdir2)
	mkdir "$d/ws" "$d/td"
	cd "$d/ws"
	export TMPDIR="$d/td"
	kb_expect 0 -- sh -c 'echo x > "$TMPDIR/f"'
	assert_streq "$(cat "$d/td/f")" x
}
run_test "TMPDIR outside home and /tmp is writable" t_tmpdir_outside

t_tmpdir_home() {
	skip_on_landlock "TMPDIR is the run's /tmp/kinbox-run.XXXXXX, never /tmp"
	d=$(newdir fs-tmpdir3)
	mkdir -p "$d/ws" "$d/home"
	cd "$d/ws"
	export HOME="$d/home" TMPDIR="$d/home"
	kb -- sh -c 'printf "TMPDIR=%s\n" "$TMPDIR"; echo x > "$HOME/f"; echo ran > ctl'
	assert_file_has_content "$d/ws/ctl" '^ran$'
	assert_not_exists "$d/home/f"
	assert_file_has_content "$KB_OUT" '^TMPDIR=/tmp$'
}
run_test "TMPDIR=\$HOME is refused: the command gets TMPDIR=/tmp" t_tmpdir_home

t_tmpdir_missing() {
	skip_on_landlock "TMPDIR is the run's /tmp/kinbox-run.XXXXXX, never /tmp"
	ws=$(newdir fs-tmpdir5)
	cd "$ws"
	export TMPDIR="$KB_T/no-such-tmpdir"
	kb_expect 0 -- sh -c 'printf "TMPDIR=%s\n" "$TMPDIR"; echo x > "$TMPDIR/f" && echo WROTE'
	assert_file_has_content "$KB_OUT" '^TMPDIR=/tmp$'
	assert_file_has_content "$KB_OUT" '^WROTE$'
	assert_not_exists "$KB_T/no-such-tmpdir"
}
run_test "a missing TMPDIR is replaced by TMPDIR=/tmp (writable, private)" t_tmpdir_missing

t_tmpdir_below_home() {
	skip_on_landlock "TMPDIR is the run's /tmp/kinbox-run.XXXXXX, never /tmp"
	d=$(newdir fs-tmpdir4)
	mkdir -p "$d/ws" "$d/home/tmp"
	cd "$d/ws"
	export HOME="$d/home" TMPDIR="$d/home/tmp"
	kb -- sh -c 'printf "TMPDIR=%s\n" "$TMPDIR"; echo x > "$HOME/tmp/f"; echo ran > ctl'
	assert_file_has_content "$d/ws/ctl" '^ran$'
	assert_not_exists "$d/home/tmp/f"
	assert_file_has_content "$KB_OUT" '^TMPDIR=/tmp$'
}
run_test "TMPDIR below \$HOME (not outside home) is refused: TMPDIR=/tmp, home stays read-only" t_tmpdir_below_home

# ============================================================================
# Git guards
# ============================================================================

t_e2e_control() {
	r=$(newdir git-control)
	mkrepo "$r"
	cp "$EVIL" "$r/.git/hooks/pre-commit"
	hook_ran_after_git "$r" || fail "the end-to-end check does not detect a planted hook"
}
run_test "control: the end-to-end check sees a hook planted outside the sandbox" t_e2e_control

t_git_hook_create() {
	ws=$(newdir git-hook)
	mkrepo "$ws"
	cd "$ws"
	kb -- sh -c "cp '$EVIL' .git/hooks/pre-commit; chmod 755 .git/hooks/pre-commit; cp '$EVIL' .git/hooks/post-commit; echo ran > ctl"
	assert_file_has_content "$ws/ctl" '^ran$'
	assert_not_exists "$ws/.git/hooks/pre-commit"
	assert_not_exists "$ws/.git/hooks/post-commit"
	assert_no_planted_code_runs "$ws"
}
run_test "git: .git/hooks/pre-commit cannot be created (absent on the host); no hook runs outside" t_git_hook_create

t_git_config() {
	ws=$(newdir git-config)
	mkrepo "$ws"
	cp "$ws/.git/config" "$KB_T/git-config.before"
	cd "$ws"
	kb -- sh -c "mkdir hk && cp '$EVIL' hk/pre-commit;
		git config core.hooksPath '$ws/hk';
		printf '[core]\n\thooksPath = $ws/hk\n\tfsmonitor = $EVIL\n' >> .git/config;
		cp .git/config c && echo '[alias] x = !true' >> c && mv c .git/config;
		echo ran > ctl"
	assert_file_has_content "$ws/ctl" '^ran$'
	assert_exists "$ws/hk/pre-commit"
	assert_files_equal "$KB_T/git-config.before" "$ws/.git/config"
	assert_no_planted_code_runs "$ws"
}
run_test "git: .git/config unchanged byte for byte (git config, append, rename over)" t_git_config

t_git_commit_inside() {
	ws=$(newdir git-commit)
	mkrepo "$ws"
	cd "$ws"
	echo content >file
	kb_expect 0 -- sh -c 'git add file && git commit -q -m inside-commit'
	assert_streq "$(git -C "$ws" log -1 --format=%s)" inside-commit
	assert_streq "$(git -C "$ws" show HEAD:file)" content
	assert_streq "$(git -C "$ws" status --porcelain)" ""
}
run_test "git: git add + git commit work inside; the commit is visible outside" t_git_commit_inside

t_git_mv_dotgit() {
	ws=$(newdir git-mv)
	mkrepo "$ws"
	head=$(git -C "$ws" rev-parse HEAD)
	cd "$ws"
	kb -- sh -c "echo ran > ctl; mv .git .git2 || { rm -rf .git2; exit 1; }; git init -q . && cp '$EVIL' .git/hooks/pre-commit"
	assert_file_has_content "$ws/ctl" '^ran$'
	assert_not_exists "$ws/.git2"
	[ -d "$ws/.git" ] || fail ".git is not a directory any more"
	assert_streq "$(git -C "$ws" rev-parse HEAD)" "$head" ".git intact"
	assert_not_exists "$ws/.git/hooks/pre-commit"
	assert_no_planted_code_runs "$ws"
}
run_test "git: mv .git .git2 fails and .git is intact" t_git_mv_dotgit

t_git_swap_hooks() {
	skip_on_landlock "git guards are not held during the run (the swap succeeds inside; kinbox puts .git/hooks back after it and moves the planted one aside: t21-landlock.sh)"
	ws=$(newdir git-swap)
	mkrepo "$ws"
	ls -la "$ws/.git/hooks" >"$KB_T/hooks.before"
	cd "$ws"
	kb -- sh -c "mv .git/hooks .git/h2; mkdir -p .git/hooks; cp '$EVIL' .git/hooks/pre-commit; echo ran > ctl"
	assert_file_has_content "$ws/ctl" '^ran$'
	assert_not_exists "$ws/.git/h2"
	assert_not_exists "$ws/.git/hooks/pre-commit"
	ls -la "$ws/.git/hooks" >"$KB_T/hooks.after"
	assert_files_equal "$KB_T/hooks.before" "$KB_T/hooks.after"
	assert_no_planted_code_runs "$ws"
}
run_test "git: swapping .git/hooks (mv .git/hooks .git/h2; mkdir .git/hooks) fails" t_git_swap_hooks

t_git_commondir() {
	ws=$(newdir git-commondir)
	mkrepo "$ws"
	cd "$ws"
	# a complete common dir of the attacker's, with a hook: git obeys
	# .git/commondir for objects, refs, config and hooks
	kb -- sh -c "mkdir evil && cp -r .git/objects .git/refs .git/config .git/HEAD evil/ &&
		mkdir evil/hooks && cp '$EVIL' evil/hooks/pre-commit &&
		echo ../evil > .git/commondir; echo ran > ctl"
	assert_file_has_content "$ws/ctl" '^ran$'
	assert_exists "$ws/evil/hooks/pre-commit"
	assert_not_exists "$ws/.git/commondir"
	assert_file_has_content "$KB_ERR" '^kinbox: SECURITY'
	assert_no_planted_code_runs "$ws"
}
run_test "git: a planted .git/commondir is moved aside after the run, with a SECURITY line" t_git_commondir

t_git_config_worktree() {
	ws=$(newdir git-cfgwt)
	mkrepo "$ws"
	cd "$ws"
	kb -- sh -c "git config extensions.worktreeConfig true;
		mkdir hk && cp '$EVIL' hk/pre-commit;
		printf '[core]\n\thooksPath = $ws/hk\n' > .git/config.worktree; echo ran > ctl"
	assert_file_has_content "$ws/ctl" '^ran$'
	assert_exists "$ws/hk/pre-commit"
	assert_not_exists "$ws/.git/config.worktree"
	assert_file_has_content "$KB_ERR" '^kinbox: SECURITY'
	assert_no_planted_code_runs "$ws"
}
run_test "git: a planted .git/config.worktree is moved aside after the run, with a SECURITY line" t_git_config_worktree

t_git_hooks_missing() {
	skip_on_landlock "git guards are not held during the run (a hook can be created inside; kinbox removes the planted .git/hooks after it: t21-landlock.sh)"
	ws=$(newdir git-nohooks)
	mkrepo "$ws"
	rm -rf "$ws/.git/hooks"
	cd "$ws"
	kb -- sh -c "mkdir -p .git/hooks; cp '$EVIL' .git/hooks/pre-commit && echo CREATED || echo REFUSED"
	assert_file_has_content "$KB_OUT" '^REFUSED$'
	assert_not_exists "$ws/.git/hooks"
	assert_no_planted_code_runs "$ws"
}
run_test "git: with .git/hooks deleted, a hook cannot be created, and no placeholder is left" t_git_hooks_missing

t_git_status_same() {
	ws=$(newdir git-status)
	mkrepo "$ws"
	cd "$ws"
	echo a >tracked
	echo i >ignored.o
	echo '*.o' >.gitignore
	git add tracked .gitignore
	git commit -q -m files
	echo b >>tracked
	echo u >untracked
	git status --porcelain --ignored -uall >"$KB_T/status.before"
	kb_expect 0 -- git status
	assert_file_has_content "$KB_OUT" '^On branch main$'
	kb_expect 0 -- echo ran
	assert_streq "$(cat "$KB_OUT")" ran "the command's output"
	git status --porcelain --ignored -uall >"$KB_T/status.after"
	assert_files_equal "$KB_T/status.before" "$KB_T/status.after"
}
run_test "git: git status --porcelain is identical before and after a run" t_git_status_same

t_git_worktree() {
	main=$(newdir git-wt-main)
	mkrepo "$main"
	git -C "$main" worktree add -q "$KB_T/git-wt-linked" 2>/dev/null
	wt=$KB_T/git-wt-linked
	cp "$wt/.git" "$KB_T/wt-dotgit.before"
	cp "$main/.git/config" "$KB_T/wt-config.before"
	cd "$wt"
	echo a >a
	# the main repository lies outside the workspace: the worktree's
	# pointers never make it writable (a command could plant them) ...
	head_before=$(git -C "$main" rev-parse HEAD)
	kb -- sh -c 'git add a && git commit -q -m wt-denied; echo ran > ctl1'
	assert_file_has_content "$wt/ctl1" '^ran$'
	assert_streq "$(git -C "$main" rev-parse HEAD)" "$head_before"
	[ "$(git -C "$wt" log -1 --format=%s)" != wt-denied ] || fail "the commit landed without --write"
	# ... a human's --write of it does, control files still read-only
	kb_expect 0 -w "$main" -- sh -c 'git add a && git commit -q -m wt-commit'
	assert_streq "$(git -C "$wt" log -1 --format=%s)" wt-commit
	kb -w "$main" -- sh -c "echo 'gitdir: $wt/evil' > .git; printf 'gitdir: /x\n' >> .git; rm -f .git; mv .git g2; echo ran > ctl2"
	assert_file_has_content "$wt/ctl2" '^ran$'
	assert_files_equal "$KB_T/wt-dotgit.before" "$wt/.git"
	assert_not_exists "$wt/g2"
	kb -w "$main" -- sh -c "cp '$EVIL' '$main/.git/hooks/pre-commit'; echo '[core] hooksPath = /x' >> '$main/.git/config'; echo ran > '$main/ctl3'"
	assert_file_has_content "$main/ctl3" '^ran$'
	assert_not_exists "$main/.git/hooks/pre-commit"
	assert_files_equal "$KB_T/wt-config.before" "$main/.git/config"
	assert_no_planted_code_runs "$wt" "$main"
}
run_test "git worktree as workspace: commit needs --write of the main repo (never granted by pointers); with it commit works, .git file and main .git/hooks stay read-only" t_git_worktree

t_git_submodule() {
	src=$(newdir git-sm-src)
	mkrepo "$src"
	sup=$(newdir git-sm-super)
	mkrepo "$sup"
	git -C "$sup" submodule add -q "$src" sub >/dev/null 2>&1
	git -C "$sup" commit -q -m "add submodule"
	cp "$sup/sub/.git" "$KB_T/sm-dotgit.before"
	cd "$sup"
	kb -- sh -c "cp '$EVIL' .git/modules/sub/hooks/pre-commit;
		echo '[core] hooksPath = /x' >> .git/modules/sub/config;
		echo 'gitdir: ../evil' > sub/.git; echo ran > ctl"
	assert_file_has_content "$sup/ctl" '^ran$'
	assert_not_exists "$sup/.git/modules/sub/hooks/pre-commit"
	assert_not_file_has_content "$sup/.git/modules/sub/config" 'hooksPath'
	assert_files_equal "$KB_T/sm-dotgit.before" "$sup/sub/.git"
	assert_no_planted_code_runs "$sup" "$sup/sub"
}
run_test "git submodule: .git/modules/*/hooks, config and the sub/.git file stay read-only" t_git_submodule

t_newrepo_hook() {
	ws=$(newdir git-new1)
	cd "$ws"
	kb -- sh -c "git init -q . && cp '$EVIL' .git/hooks/pre-commit && chmod 755 .git/hooks/pre-commit"
	[ -f "$ws/.git/hooks/pre-commit" ] || fail "setup: the hook was not written"
	[ ! -x "$ws/.git/hooks/pre-commit" ] || fail "the planted hook is still executable"
	assert_file_has_content "$KB_ERR" '^kinbox: SECURITY'
	assert_no_planted_code_runs "$ws"
}
run_test "git: a repo created by the command has its executable hooks disarmed, with a SECURITY line" t_newrepo_hook

# git runs a hook that is a symlink to an executable: disarming only regular
# files misses it
t_newrepo_symlink_hook() {
	ws=$(newdir git-new2)
	cd "$ws"
	kb -- sh -c "git init -q . && cp '$EVIL' payload.sh && chmod 755 payload.sh && ln -s ../../payload.sh .git/hooks/pre-commit"
	assert_exists "$ws/payload.sh"
	assert_disarmed_and_reported "$ws"
}
run_test "git: a repo created by the command with a hook that is a symlink to an executable is disarmed" t_newrepo_symlink_hook

# a repo the command creates need not be a .git directory: a .git file naming
# a git dir elsewhere in the workspace is obeyed the same way
t_newrepo_gitfile() {
	ws=$(newdir git-new3)
	cd "$ws"
	kb -- sh -c "git init -q --separate-git-dir=.hidden . && cp '$EVIL' .hidden/hooks/pre-commit && chmod 755 .hidden/hooks/pre-commit"
	assert_exists "$ws/.hidden/hooks/pre-commit"
	assert_disarmed_and_reported "$ws"
}
run_test "git: a repo created by the command as a .git file + separate git dir has its hooks disarmed" t_newrepo_gitfile

# hooks need not live in .git/hooks: core.hooksPath in the new repo's own
# config points git at any directory (beyond the letter of kinbox's promise,
# which names .git/hooks; the same end-to-end property)
t_newrepo_hookspath() {
	ws=$(newdir git-new4)
	cd "$ws"
	kb -- sh -c "git init -q . && mkdir hk && cp '$EVIL' hk/pre-commit && git config core.hooksPath hk; echo ran > ctl"
	assert_file_has_content "$ws/ctl" '^ran$'
	assert_exists "$ws/hk/pre-commit"
	assert_no_planted_code_runs "$ws"
}
run_test "git: a repo created by the command with core.hooksPath runs no planted hook outside" t_newrepo_hookspath

# a symlinked .git cannot be pinned by a mount (the mount lands on its
# target): the link itself can be removed and replaced
t_symlinked_dotgit() {
	d=$(newdir git-symlink)
	mkdir "$d/ws"
	git init -q --separate-git-dir="$d/gitdir" "$d/ws"
	git -C "$d/ws" commit -q --allow-empty -m init
	rm "$d/ws/.git"
	ln -s ../gitdir "$d/ws/.git"
	cd "$d/ws"
	kb -- sh -c "rm .git && mkdir .git && cp -r ../gitdir/objects ../gitdir/refs ../gitdir/HEAD .git/ &&
		mkdir .git/hooks && cp '$EVIL' .git/hooks/pre-commit; echo ran > ctl"
	assert_file_has_content "$d/ws/ctl" '^ran$'
	if [ -L "$d/ws/.git" ] &&
		[ "$(readlink "$d/ws/.git")" = ../gitdir ]; then
		assert_no_planted_code_runs "$d/ws"
	else
		echo "note: .git is no longer the symlink to ../gitdir" >&2
		assert_disarmed_and_reported "$d/ws"
	fi
}
run_test "git: a symlinked .git cannot be swapped for a repo with an armed hook" t_symlinked_dotgit

# t_symlinked_hooks replace|repoint: .git/hooks is a symlink to a tracked
# directory (a common setup); it must stay read-only like a real hooks dir
t_symlinked_hooks() {
	ws=$(newdir "git-hooklink-$1")
	mkrepo "$ws"
	mv "$ws/.git/hooks" "$ws/githooks"
	ln -s ../githooks "$ws/.git/hooks"
	cd "$ws"
	case $1 in
	replace)
		kb -- sh -c "rm .git/hooks && mkdir .git/hooks && cp '$EVIL' .git/hooks/pre-commit; echo ran > ctl" ;;
	repoint)
		kb -- sh -c "mkdir evilhooks && cp '$EVIL' evilhooks/pre-commit && ln -sfn ../evilhooks .git/hooks; echo ran > ctl" ;;
	esac
	assert_file_has_content "$ws/ctl" '^ran$'
	if [ -L "$ws/.git/hooks" ] &&
		[ "$(readlink "$ws/.git/hooks")" = ../githooks ]; then
		assert_no_planted_code_runs "$ws"
	else
		echo "note: .git/hooks is no longer the symlink to ../githooks" >&2
		assert_disarmed_and_reported "$ws"
	fi
}
run_test "git: a symlinked .git/hooks cannot be replaced by a directory with a hook" t_symlinked_hooks replace
run_test "git: a symlinked .git/hooks cannot be repointed to the command's hooks" t_symlinked_hooks repoint

# A .git file is an ordinary file in a writable tree: one planted in a run
# must not make the git dir it names writable in the next run.
t_planted_gitfile_next_run() {
	d=$(newdir git-pointer)
	mkrepo "$d/victim"
	listing "$d/victim/.git" >"$KB_T/victim.before"
	mkdir "$d/ws"
	cd "$d/ws"
	kb -- sh -c "echo 'gitdir: $d/victim/.git' > .git; mkdir sub && echo 'gitdir: $d/victim/.git' > sub/.git; echo ran > ctl0"
	assert_file_has_content "$d/ws/ctl0" '^ran$'
	for w in "$d/ws" "$d/ws/sub"; do
		[ -d "$w" ] || continue
		(cd "$w" && kb -- sh -c "echo x > '$d/victim/.git/PWNED'; cp '$EVIL' '$d/victim/.git/hooks/pre-commit'; echo y > '$d/victim/.git/HEAD'; echo ran > ctl")
		assert_file_has_content "$w/ctl" '^ran$'
	done
	assert_not_exists "$d/victim/.git/PWNED"
	assert_not_exists "$d/victim/.git/hooks/pre-commit"
	listing "$d/victim/.git" >"$KB_T/victim.after"
	assert_files_equal "$KB_T/victim.before" "$KB_T/victim.after"
	assert_streq "$(git -C "$d/victim" log -1 --format=%s)" init
	assert_no_planted_code_runs "$d/victim"
}
run_test "git: a .git file planted in one run does not make its target writable in the next" t_planted_gitfile_next_run

# `git status` in the superproject runs `git status` in every gitlinked
# submodule, which obeys that repo's own config (core.fsmonitor). Beyond the
# letter of kinbox's promise (existing submodules only); the same end-to-end
# property.
t_embedded_repo() {
	ws=$(newdir git-embedded)
	mkrepo "$ws"
	cd "$ws"
	kb -- sh -c "git init -q sub && git -C sub config core.fsmonitor '$EVIL' &&
		git -C sub commit -q --allow-empty -m s && git add sub; echo ran > ctl"
	assert_file_has_content "$ws/ctl" '^ran$'
	assert_no_planted_code_runs "$ws"
}
run_test "git: an embedded repo planted with core.fsmonitor runs nothing at the next git status" t_embedded_repo

# ============================================================================
# Network
# ============================================================================

LISTENER_PORT=
if have python3; then
	python3 "$B/listener.py" "$KB_T/port" "$KB_T/listener.log" \
		>"$KB_T/listener.out" 2>&1 &
	bg_register $!
	if poll_for "$KB_T/port" 100; then
		LISTENER_PORT=$(cat "$KB_T/port")
		: >>"$KB_T/listener.log"
	fi
fi

# wait_listener TAG: bounded wait until the listener logged TAG
wait_listener() {
	_i=0
	while ! grep -q "^CONN $1\$" "$KB_T/listener.log"; do
		_i=$((_i + 1))
		[ "$_i" -le 100 ] || return 1
		sleep 0.1
	done
}

t_net_off() {
	require python3
	[ -n "$LISTENER_PORT" ] || skip_test "the host listener did not start"
	ws=$(newdir net-off)
	cd "$ws"
	kb_expect 0 -- python3 "$B/probe.py" "$LISTENER_PORT" from-sandbox-nonet
	assert_file_has_content "$KB_OUT" '^REFUSED'
	# a connection from the host afterwards: once it is logged, anything
	# the sandbox had sent would have been logged before it
	python3 "$B/probe.py" "$LISTENER_PORT" host-sync >/dev/null
	wait_listener host-sync || fail "the host listener does not answer the host"
	assert_not_file_has_content "$KB_T/listener.log" 'from-sandbox-nonet'
}
run_test "network off by default: a host 127.0.0.1 listener receives nothing" t_net_off

t_net_on() {
	require python3
	[ -n "$LISTENER_PORT" ] || skip_test "the host listener did not start"
	ws=$(newdir net-on)
	cd "$ws"
	kb_expect 0 --net -- python3 "$B/probe.py" "$LISTENER_PORT" from-sandbox-net
	assert_file_has_content "$KB_OUT" '^CONNECTED'
	wait_listener from-sandbox-net || fail "the host listener did not see the sandbox's connection"
}
run_test "--net: the host 127.0.0.1 listener is reachable and sees the connection" t_net_on

# ============================================================================
# Exit status
# ============================================================================

# t_exit NAME CODE CHECK CMD...: kinbox -- CMD exits CODE; CHECK is what
# only a run produces: "ctl" (the command wrote ./ctl before its exit) or
# the exact line kinbox prints once the sandbox failed to exec CMD
t_exit() {
	ws=$(newdir "exit-$1")
	cd "$ws"
	_want=$2
	_check=$3
	shift 3
	kb "$@"
	if [ "$KB_RC" != "$_want" ]; then
		_show_file "$KB_ERR"
		fail "exit status $KB_RC, expected $_want: kinbox $*"
	fi
	if [ "$_check" = ctl ]; then
		assert_file_has_content "$ws/ctl" '^ran$'
	else
		assert_kinbox_said "$KB_ERR" "$_check"
	fi
}
run_test "exit status: sh -c 'exit 3' -> 3" t_exit 3 3 ctl -- sh -c 'echo ran > ctl; exit 3'
run_test "exit status: sh -c 'kill -TERM \$\$' -> 143" t_exit 143 143 ctl -- sh -c 'echo ran > ctl; kill -TERM $$'
run_test "exit status: a command that does not exist -> 127 ('command not found')" t_exit 127 127 \
	"kinbox: kinbox-no-such-command-xyz: command not found" -- kinbox-no-such-command-xyz
run_test "exit status: /etc/passwd as the command (not executable) -> 126 ('Permission denied')" t_exit 126 126 \
	"kinbox: /etc/passwd: Permission denied" -- /etc/passwd

# ============================================================================
# Signals
# ============================================================================

# t_signal NAME NUMBER: kill -NAME kinbox's pid; the command's handler runs
t_signal() {
	require python3
	ws=$(newdir "sig-$1")
	cd "$ws"
	"$KINBOX" -- python3 "$B/sig.py" >"$KB_OUT" 2>"$KB_ERR" &
	p=$!
	if ! poll_while_running "$p" "$ws/ready" 100; then
		kill -KILL "$p" 2>/dev/null || true
		_show_file "$KB_ERR"
		fail "the command never got ready"
	fi
	kill -s "$1" "$p"
	if ! poll_for "$ws/marker-$2" 100; then
		kill -KILL "$p" 2>/dev/null || true
		wait "$p" || true
		fail "SIG$1 sent to kinbox did not reach the command's handler"
	fi
	rc=0
	wait "$p" || rc=$?
	assert_file_has_content "$ws/marker-$2" "^handled $2\$"
	assert_streq "$rc" "$((40 + $2))" "kinbox's exit status is the command's"
}
run_test "SIGTERM sent to kinbox reaches the command's handler; exit status is the command's" t_signal TERM 15
run_test "SIGINT sent to kinbox reaches the command's handler; exit status is the command's" t_signal INT 2

t_signal_default() {
	require python3
	ws=$(newdir sig-hup)
	cd "$ws"
	"$KINBOX" -- python3 "$B/sig.py" >"$KB_OUT" 2>"$KB_ERR" &
	p=$!
	if ! poll_while_running "$p" "$ws/ready" 100; then
		kill -KILL "$p" 2>/dev/null || true
		_show_file "$KB_ERR"
		fail "the command never got ready"
	fi
	kill -s HUP "$p"
	rc=0
	wait "$p" || rc=$?
	assert_streq "$rc" 129 "died of SIGHUP: 128+1"
}
run_test "SIGHUP sent to kinbox kills the command (default action): exit 129" t_signal_default

# ============================================================================
# Descriptors
# ============================================================================

t_stdin() {
	ws=$(newdir stdin)
	cd "$ws"
	echo abc | "$KINBOX" -- cat >"$KB_OUT"
	assert_streq "$(cat "$KB_OUT")" abc
}
run_test "stdin passes through (echo abc | kinbox -- cat)" t_stdin

t_fd_closed() {
	d=$(newdir fd-closed)
	mkdir "$d/ws" "$d/outside"
	echo old >"$d/outside/f"
	cd "$d/ws"
	exec 7>>"$d/outside/f"
	kb -- sh -c 'echo x >&7; rc=$?; echo ran > ctl; exit $rc'
	exec 7>&-
	assert_file_has_content "$d/ws/ctl" '^ran$'
	assert_strne "$KB_RC" 0 "writing to fd 7 must fail"
	assert_streq "$(cat "$d/outside/f")" old
}
run_test "an inherited fd 7 on an outside file is closed in the command; the file is unchanged" t_fd_closed

t_fd_keep() {
	d=$(newdir fd-keep)
	mkdir "$d/ws" "$d/outside"
	echo old >"$d/outside/f"
	cd "$d/ws"
	exec 7>>"$d/outside/f"
	kb_expect 0 --keep-fd 7 -- sh -c 'echo kept >&7'
	exec 7>&-
	assert_streq "$(cat "$d/outside/f")" "$(printf 'old\nkept')"
}
run_test "--keep-fd 7 keeps fd 7: the write through it lands" t_fd_keep

# ============================================================================
# Seccomp
# ============================================================================

t_setuid_control() {
	d=$(newdir suid-control)
	cp /bin/true "$d/t"
	chmod u+s "$d/t"
	[ -u "$d/t" ] || skip_test "this filesystem does not keep setuid bits"
}
run_test "control: outside the sandbox chmod u+s works on the test filesystem" t_setuid_control

t_setuid_chmod() {
	ws=$(newdir suid-chmod)
	cd "$ws"
	kb -- sh -c 'cp /bin/true t && chmod u+s t; chmod g+s t; chmod 6755 t'
	assert_exists "$ws/t"
	[ ! -u "$ws/t" ] || fail "$ws/t is setuid"
	[ ! -g "$ws/t" ] || fail "$ws/t is setgid"
}
run_test "setuid: chmod u+s / g+s / 6755 inside fail; no setuid/setgid bit outside" t_setuid_chmod

t_setuid_install() {
	ws=$(newdir suid-install)
	cd "$ws"
	# the control in the same run: install -m 755 works
	kb -- sh -c 'install -m 4755 /bin/true t2; install -m 755 /bin/true ok2'
	[ -f "$ws/ok2" ] || fail "install -m 755 did not create $ws/ok2"
	[ -x "$ws/ok2" ] || fail "install -m 755 did not make $ws/ok2 executable"
	if [ -e "$ws/t2" ]; then
		[ ! -u "$ws/t2" ] || fail "$ws/t2 is setuid"
	fi
	kb -- sh -c 'install -m 2755 /bin/true t3; install -m 755 /bin/true ok3'
	[ -f "$ws/ok3" ] || fail "install -m 755 did not create $ws/ok3"
	[ -x "$ws/ok3" ] || fail "install -m 755 did not make $ws/ok3 executable"
	if [ -e "$ws/t3" ]; then
		[ ! -g "$ws/t3" ] || fail "$ws/t3 is setgid"
	fi
}
run_test "setuid: install -m 4755 / 2755 inside leaves no setuid/setgid file" t_setuid_install

t_setuid_open() {
	require python3
	ws=$(newdir suid-open)
	cd "$ws"
	kb -- python3 -c '
import os
for name, mode in (("t3", 0o4755), ("t4", 0o2755)):
    try:
        os.close(os.open(name, os.O_CREAT | os.O_WRONLY, mode))
        print(name, "CREATED")
    except PermissionError:
        print(name, "EPERM")
try:
    os.mknod("t5", 0o104755)
    print("t5 CREATED")
except PermissionError:
    print("t5 EPERM")
'
	assert_file_has_content "$KB_OUT" '^t3 EPERM$'
	assert_file_has_content "$KB_OUT" '^t4 EPERM$'
	for f in t3 t4 t5; do
		if [ -e "$ws/$f" ]; then
			if [ -u "$ws/$f" ] || [ -g "$ws/$f" ]; then
				fail "$ws/$f is setuid/setgid"
			fi
		fi
	done
}
run_test "setuid: open(O_CREAT, 04755/02755) and mknod 04755 refused (EPERM); no such file outside" t_setuid_open

t_keyctl() {
	require python3
	case $(uname -m) in
	x86_64 | aarch64) ;;
	*) skip_test "no syscall numbers for $(uname -m)" ;;
	esac
	ws=$(newdir keyctl)
	cd "$ws"
	desc=kinbox-test-$(basename "$KB_T")
	kb_expect 0 -- python3 "$B/sysc.py" keyctl "add_key=$desc" "request_key=$desc"
	assert_file_has_content "$KB_OUT" '^keyctl errno=EPERM$'
	assert_file_has_content "$KB_OUT" '^add_key errno=EPERM$'
	assert_file_has_content "$KB_OUT" '^request_key errno=EPERM$'
	# outside: the session keyring the sandbox shares holds no such key
	python3 "$B/sysc.py" "search=$desc" >"$KB_T/keysearch"
	assert_not_file_has_content "$KB_T/keysearch" '^keyctl ok'
}
run_test "keyctl/add_key/request_key refused with EPERM; no key reached the session keyring" t_keyctl

t_iouring_openat2() {
	require python3
	ws=$(newdir iouring)
	cd "$ws"
	kb_expect 0 -- python3 "$B/sysc.py" io_uring_setup openat2
	assert_file_has_content "$KB_OUT" '^io_uring_setup errno=EPERM$'
	assert_file_has_content "$KB_OUT" '^openat2 errno=ENOSYS$'
}
run_test "io_uring_setup refused (EPERM), openat2 -> ENOSYS" t_iouring_openat2

t_tiocsti() {
	require python3 script
	ws=$(newdir tiocsti)
	cd "$ws"
	script -qec "$KINBOX -- python3 $B/tiocsti.py" /dev/null </dev/null >"$KB_OUT" 2>"$KB_ERR" || true
	assert_file_has_content "$KB_OUT" 'TIOCSTI-EPERM'
}
run_test "TIOCSTI on the terminal is refused (EPERM)" t_tiocsti

# ============================================================================
# Terminal
# ============================================================================

t_tty() {
	require script
	ws=$(newdir tty)
	cd "$ws"
	script -qec "$KINBOX -- sh -c 'test -t 0 && test -t 1 && test -t 2 && echo TTY-OK'" /dev/null </dev/null >"$KB_OUT" 2>"$KB_ERR" || true
	assert_file_has_content "$KB_OUT" 'TTY-OK'
}
run_test "an interactive program keeps its terminal (stdin, stdout, stderr are ttys)" t_tty

t_tty_name() {
	require script
	ws=$(newdir ttyname)
	cd "$ws"
	script -qec "sh $B/ttycheck.sh" /dev/null </dev/null >"$KB_OUT" 2>"$KB_ERR" || true
	tr -d '\r' <"$KB_OUT" >"$KB_T/tty.out"
	assert_file_has_content "$KB_T/tty.out" '^TTY=/dev/'
	diag "tty inside: $(sed -n 's/^TTY=//p' "$KB_T/tty.out")"
	out=$(sed -n 's/^OUT=//p' "$KB_T/tty.out")
	in=$(sed -n 's/^IN=//p' "$KB_T/tty.out")
	assert_streq "$in" "$out" "the device tty names inside is the caller's terminal"
}
run_test "tty inside names a device that is the caller's terminal" t_tty_name

# ============================================================================
# Kernel surfaces (meaningful as root; the same must hold unprivileged)
# ============================================================================

t_capeff() {
	ws=$(newdir caps)
	cd "$ws"
	kb_expect 0 -- cat /proc/self/status
	assert_file_has_content "$KB_OUT" '^CapEff:[[:space:]]+0000000000000000$'
	assert_file_has_content "$KB_OUT" '^CapPrm:[[:space:]]+0000000000000000$'
	assert_file_has_content "$KB_OUT" '^CapAmb:[[:space:]]+0000000000000000$'
}
run_test "no capabilities inside: CapEff, CapPrm, CapAmb all zero (uid $(id -u))" t_capeff

# As root the write would land in the sandbox's own UTS namespace (the host
# name is asserted unchanged first); the write itself must fail too: it
# shows whether /proc/sys is read-only (see t_sysctl_global for why that
# matters).
t_hostname() {
	ws=$(newdir hostname)
	before=$(cat /proc/sys/kernel/hostname)
	cd "$ws"
	kb -- sh -c 'if echo kinbox-evil > /proc/sys/kernel/hostname; then echo WROTE; else echo REFUSED; fi'
	assert_streq "$(cat /proc/sys/kernel/hostname)" "$before" "host hostname"
	assert_file_has_content "$KB_OUT" '^REFUSED$'
}
run_test "writing /proc/sys/kernel/hostname fails (uid $(id -u))" t_hostname

# Root inside maps to the host's uid 0, and sysctl files check the uid, not
# capabilities: unless /proc/sys is read-only, host-wide sysctls (up to
# kernel.core_pattern) are writable. The value is restored at once.
t_sysctl_global() {
	f=/proc/sys/kernel/printk_ratelimit_burst
	[ -r "$f" ] || skip_test "$f is not readable here"
	ws=$(newdir sysctl)
	old=$(cat "$f")
	new=$((old + 1))
	if [ "$(id -u)" = 0 ]; then
		cleanup_add "[ \"\$(cat $f)\" = $old ] || echo $old > $f"
	fi
	cd "$ws"
	kb -- sh -c "echo $new > $f && echo WROTE || echo REFUSED"
	after=$(cat "$f")
	if [ "$after" != "$old" ]; then
		if [ "$(id -u)" = 0 ]; then
			echo "$old" >"$f"
		fi
		fail "the command changed the HOST's kernel.printk_ratelimit_burst ($old -> $after): /proc/sys is writable (kernel.core_pattern too)"
	fi
	# the control: the command ran up to its attempt
	assert_file_has_content "$KB_OUT" '^(WROTE|REFUSED)$'
}
run_test "a global sysctl (kernel.printk_ratelimit_burst) cannot be changed from inside (uid $(id -u))" t_sysctl_global

t_sysrq() {
	ws=$(newdir sysrq)
	[ -e /proc/sysrq-trigger ] || diag "/proc/sysrq-trigger does not exist on this kernel"
	cd "$ws"
	# 'h' only prints the sysrq help: harmless even if it went through
	kb -- sh -c 'if printf h > /proc/sysrq-trigger; then echo WROTE; else echo REFUSED; fi'
	assert_file_has_content "$KB_OUT" '^REFUSED$'
}
run_test "writing /proc/sysrq-trigger fails" t_sysrq

t_dev() {
	skip_on_landlock "no /dev of its own (the host's /dev is shown; t21-landlock.sh checks its block devices cannot be opened)"
	ws=$(newdir dev)
	cd "$ws"
	kb_expect 0 -- sh -c 'ls -1 /dev; find /dev -type b | sed "s/^/BLOCK /"'
	assert_not_file_has_content "$KB_OUT" '^BLOCK '
	assert_not_file_has_content "$KB_OUT" '^(sd[a-z]|vd[a-z]|xvd[a-z]|hd[a-z]|nvme|mmcblk|loop|dm-|mem$|kmem$|port$)'
	assert_file_has_content "$KB_OUT" '^null$'
	diag "host block devices: $(find /dev -maxdepth 1 -type b 2>/dev/null | wc -l)"
}
run_test "/dev inside has no block devices (no sda/vda/nvme/loop) nor mem/kmem" t_dev

t_pidns() {
	skip_on_landlock "no pid namespace (host processes are visible)"
	ws=$(newdir pidns)
	cd "$ws"
	host_n=$(find /proc -maxdepth 1 -name '[0-9]*' | wc -l)
	host_start=$(cut -d' ' -f22 /proc/1/stat)
	kb_expect 0 -- sh -c 'kill -0 1 && echo KILL0-OK; echo "N=$(find /proc -maxdepth 1 -name "[0-9]*" | wc -l)"; echo "START=$(cut -d" " -f22 /proc/1/stat)"'
	assert_file_has_content "$KB_OUT" '^KILL0-OK$'
	in_n=$(sed -n 's/^N=//p' "$KB_OUT")
	in_start=$(sed -n 's/^START=//p' "$KB_OUT")
	[ "$in_n" -lt 10 ] || fail "$in_n processes visible inside"
	[ "$host_n" -gt "$in_n" ] || fail "host shows $host_n processes, the sandbox $in_n"
	assert_strne "$in_start" "$host_start" "pid 1 inside must not be the host's pid 1"
}
run_test "own PID namespace: pid 1 inside is the sandbox's init, only a few processes visible" t_pidns

# ============================================================================
# Bad input: 125, one "kinbox: " line, nothing run
# ============================================================================

# check_refused MARKER LINE CMD...: CMD exits 125, its stderr is exactly
# the line LINE ("kinbox: ..."), nothing on stdout, and MARKER was not
# created
check_refused() {
	_m=$1
	_line=$2
	shift 2
	_rc=0
	"$@" >"$KB_OUT" 2>"$KB_ERR" </dev/null || _rc=$?
	if [ "$_rc" != 125 ]; then
		_show_file "$KB_ERR"
		fail "exit status $_rc, expected 125"
	fi
	assert_kinbox_said "$KB_ERR" "$_line"
	[ ! -s "$KB_OUT" ] || fail "stdout is not empty"
	assert_not_exists "$_m"
}

# check_refused_re MARKER REGEX CMD...: the same, the one line matching
# REGEX (anchored: the whole message) where a part of it varies
check_refused_re() {
	_m=$1
	_re=$2
	shift 2
	_rc=0
	"$@" >"$KB_OUT" 2>"$KB_ERR" </dev/null || _rc=$?
	if [ "$_rc" != 125 ]; then
		_show_file "$KB_ERR"
		fail "exit status $_rc, expected 125"
	fi
	assert_one_kinbox_line "$KB_ERR" "$_re"
	[ ! -s "$KB_OUT" ] || fail "stdout is not empty"
	assert_not_exists "$_m"
}

# the ends of kinbox's messages about a refused directory
HOME_IS=" is your home directory; grant a project directory below it instead"
HOME_IN=" contains your home directory; grant a project directory below it instead"
ROOT_DIR=": the root directory cannot be writable; grant a narrower directory"
KSTATE=" is kernel state, not a workspace; grant a directory outside /proc, /sys and /dev"
NO_CMD="kinbox: no command given; usage: kinbox [OPTIONS] -- COMMAND [ARG...]"

t_refused() {
	d=$(newdir "refused-$1")
	mkdir -p "$d/ws"
	dp=$(cd "$d" && pwd -P)
	cd "$d/ws"
	m=$d/ws/ran
	case $1 in
	unknown-long)
		check_refused "$m" "kinbox: unknown option '--bogus'; see kinbox --help" \
			"$KINBOX" --bogus -- touch "$m" ;;
	unknown-short)
		check_refused "$m" "kinbox: unknown option '-Z'; see kinbox --help" \
			"$KINBOX" -Z -- touch "$m" ;;
	missing-value)
		check_refused "$m" "kinbox: option -w needs a value; see kinbox --help" \
			"$KINBOX" -w ;;
	w-root)
		check_refused "$m" "kinbox: --write /$ROOT_DIR" \
			"$KINBOX" -w / -- touch "$m" ;;
	w-home)
		[ -d "$HOME" ] || skip_test "\$HOME ($HOME) does not exist"
		hp=$(cd "$HOME" && pwd -P)
		check_refused "$m" "kinbox: --write $HOME: $hp$HOME_IS" \
			"$KINBOX" -w "$HOME" -- touch "$m"
		check_refused "$m" "kinbox: --write $HOME/: $hp$HOME_IS" \
			"$KINBOX" -w "$HOME/" -- touch "$m" ;;
	w-home-ancestor)
		[ -d "$HOME" ] || skip_test "\$HOME ($HOME) does not exist"
		p=$(dirname "$(cd "$HOME" && pwd -P)")
		diag "parent of \$HOME: $p"
		if [ "$p" = / ]; then
			want="kinbox: --write /$ROOT_DIR"
		else
			want="kinbox: --write $p: $p$HOME_IN"
		fi
		check_refused "$m" "$want" "$KINBOX" -w "$p" -- touch "$m" ;;
	w-fakehome-ancestor)
		mkdir -p "$d/fh/home"
		check_refused "$m" "kinbox: --write $d/fh: $dp/fh$HOME_IN" \
			env HOME="$d/fh/home" "$KINBOX" -w "$d/fh" -- touch "$m"
		check_refused "$m" "kinbox: --write $d/fh/home: $dp/fh/home$HOME_IS" \
			env HOME="$d/fh/home" "$KINBOX" -w "$d/fh/home" -- touch "$m" ;;
	w-proc)
		# /proc/self is resolved: kinbox's own /proc/PID
		check_refused_re "$m" "^kinbox: --write /proc/self: /proc/[0-9]+$KSTATE\$" \
			"$KINBOX" -w /proc/self -- touch "$m" ;;
	w-dev)
		check_refused "$m" "kinbox: --write /dev: /dev$KSTATE" \
			"$KINBOX" -w /dev -- touch "$m" ;;
	w-sys)
		check_refused "$m" "kinbox: --write /sys/kernel: /sys/kernel$KSTATE" \
			"$KINBOX" -w /sys/kernel -- touch "$m" ;;
	w-missing)
		check_refused "$m" "kinbox: --write $d/does-not-exist: no such directory; create it first or fix the path" \
			"$KINBOX" -w "$d/does-not-exist" -- touch "$m" ;;
	w-notwritable)
		# a directory the caller cannot write (root writes everything)
		[ "$(id -u)" != 0 ] || skip_other_pass "root can write every directory"
		mkdir -m 0555 "$d/ro"
		check_refused "$m" "kinbox: --write $d/ro: not writable by you (Permission denied); grant a directory you can write" \
			"$KINBOX" -w "$d/ro" -- touch "$m"
		check_refused "$m" "kinbox: --write /etc: not writable by you (Permission denied); grant a directory you can write" \
			"$KINBOX" -w /etc -- touch "$m"
		assert_file_has_content "$KB_ERR" 'not writable by you' ;;
	w-file)
		echo x >"$d/afile"
		check_refused "$m" "kinbox: --write $d/afile: not a directory; name the directory that should be writable" \
			"$KINBOX" -w "$d/afile" -- touch "$m" ;;
	w-17)
		set --
		for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17; do
			mkdir "$d/r$i"
			set -- "$@" -w "$d/r$i"
		done
		check_refused "$m" "kinbox: --write $d/r17: too many write roots (at most 16); grant a common parent directory instead" \
			"$KINBOX" "$@" -- touch "$m"
		# control: 16 distinct roots (and a repeat) are fine
		shift 2
		kb_expect 0 "$@" -w "$d/r2" -- sh -c "touch '$d/r17/ok' '$m'"
		assert_exists "$d/r17/ok"
		rm -f "$m" ;;
	workspace-twice)
		check_refused "$m" "kinbox: --workspace given twice; give one workspace" \
			"$KINBOX" --workspace "$d/ws" --workspace "$d/ws" -- touch "$m" ;;
	no-command)
		check_refused "$m" "$NO_CMD" "$KINBOX"
		check_refused "$m" "$NO_CMD" "$KINBOX" --
		check_refused "$m" "$NO_CMD" "$KINBOX" -w "$d/ws" -- ;;
	sandbox-off)
		check_refused "$m" "kinbox: KINBOX_SANDBOX=off is refused: nothing runs unconfined unless --unconfined is given; unset KINBOX_SANDBOX" \
			env KINBOX_SANDBOX=off "$KINBOX" -- touch "$m" ;;
	sandbox-bogus)
		check_refused "$m" "kinbox: KINBOX_SANDBOX=bogus: unknown value; use auto, bwrap, landlock, seatbelt, container or off, or unset it" \
			env KINBOX_SANDBOX=bogus "$KINBOX" -- touch "$m" ;;
	keep-fd-closed)
		check_refused "$m" "kinbox: --keep-fd 99: descriptor is not open; open it in the calling shell first (e.g. 3>file)" \
			"$KINBOX" --keep-fd 99 -- touch "$m"
		check_refused "$m" "kinbox: --keep-fd 2: too small; give a descriptor number of 3 or more" \
			"$KINBOX" --keep-fd 2 -- touch "$m"
		check_refused "$m" "kinbox: --keep-fd x: invalid; give a descriptor number of 3 or more" \
			"$KINBOX" --keep-fd x -- touch "$m" ;;
	ws-home)
		[ -d "$HOME" ] || skip_test "\$HOME ($HOME) does not exist"
		hp=$(cd "$HOME" && pwd -P)
		hm=$HOME/.kinbox-test-ran.$(basename "$KB_T")
		cleanup_add "rm -f '$hm'"
		(cd "$HOME" && check_refused "$hm" "kinbox: workspace $hp: $hp$HOME_IS" \
			"$KINBOX" -- touch "$hm")
		check_refused "$hm" "kinbox: workspace $HOME: $hp$HOME_IS" \
			"$KINBOX" --workspace "$HOME" -- touch "$hm"
		check_refused "$hm" "kinbox: workspace $hp: $hp$HOME_IS" \
			"$KINBOX" -C "$HOME" -- touch "$hm" ;;
	ws-root-proc)
		(cd / && check_refused "$m" "kinbox: workspace /$ROOT_DIR" \
			"$KINBOX" -- touch "$m")
		(cd /proc && check_refused "$m" "kinbox: workspace /proc: /proc$KSTATE" \
			"$KINBOX" -- touch "$m")
		check_refused "$m" "kinbox: workspace /dev: /dev$KSTATE" \
			"$KINBOX" -C /dev -- touch "$m" ;;
	ws-fakehome)
		mkdir -p "$d/fh/home"
		(cd "$d/fh/home" && check_refused "$d/fh/home/ran" \
			"kinbox: workspace $dp/fh/home: $dp/fh/home$HOME_IS" \
			env HOME="$d/fh/home" "$KINBOX" -- touch "$d/fh/home/ran")
		(cd "$d/fh" && check_refused "$d/fh/ran" \
			"kinbox: workspace $dp/fh: $dp/fh$HOME_IN" \
			env HOME="$d/fh/home" "$KINBOX" -- touch "$d/fh/ran") ;;
	*)
		assert_not_reached "unknown case $1" ;;
	esac
}
run_test "refused: unknown option --bogus" t_refused unknown-long
run_test "refused: unknown option -Z" t_refused unknown-short
run_test "refused: -w without a value" t_refused missing-value
run_test "refused: -w /" t_refused w-root
run_test "refused: -w \$HOME (and \$HOME/)" t_refused w-home
run_test "refused: -w the parent of \$HOME" t_refused w-home-ancestor
run_test "refused: -w an ancestor of \$HOME (HOME set to a test dir)" t_refused w-fakehome-ancestor
run_test "refused: -w /proc/self" t_refused w-proc
run_test "refused: -w /dev" t_refused w-dev
run_test "refused: -w /sys/kernel" t_refused w-sys
run_test "refused: -w a missing directory" t_refused w-missing
run_test "refused: -w a file" t_refused w-file
run_test "refused: -w a directory the caller cannot write (unprivileged)" t_refused w-notwritable
run_test "refused: a 17th distinct write root (16 are fine)" t_refused w-17
run_test "refused: --workspace given twice" t_refused workspace-twice
run_test "refused: no command (kinbox; kinbox --)" t_refused no-command
run_test "refused: KINBOX_SANDBOX=off" t_refused sandbox-off
run_test "refused: KINBOX_SANDBOX=bogus" t_refused sandbox-bogus
run_test "refused: --keep-fd 99 (not open), --keep-fd 2, --keep-fd x" t_refused keep-fd-closed
run_test "refused: workspace = \$HOME (cd \$HOME; --workspace \$HOME; -C \$HOME)" t_refused ws-home
run_test "refused: workspace = \$HOME or its parent (HOME set to a test dir)" t_refused ws-fakehome
run_test "refused: workspace = /, /proc, /dev" t_refused ws-root-proc

# ============================================================================
# Fail closed
# ============================================================================

# the kernel's Landlock ABI, as the landlock backend's plan names it (0
# when it has none)
landlock_abi() {
	"$KINBOX" --backend landlock --dry-run -- true 2>/dev/null |
		sed -n 's/^# backend: landlock (Landlock ABI \([0-9]*\).*/\1/p' |
		grep . || echo 0
}

t_no_bwrap() {
	skip_on_landlock "a test of choosing the backend (KB_BACKEND=landlock sets KINBOX_SANDBOX=landlock, which wins over --backend and auto; t21-landlock.sh covers the choice)"
	ws=$(newdir fc-nobwrap)
	cd "$ws"
	check_refused "$ws/marker" \
		"kinbox: no sandbox: bubblewrap (bwrap) is not installed; install it (apt-get install bubblewrap) — nothing was run" \
		env PATH=/nonexistent-dir "$KINBOX" --backend bwrap -- /bin/touch marker
	assert_file_has_content "$KB_ERR" 'bubblewrap'
	assert_file_has_content "$KB_ERR" 'apt-get install bubblewrap'
}
run_test "fail closed: --backend bwrap, bwrap not in PATH -> 125, names bubblewrap, nothing run" t_no_bwrap

# auto without bwrap: the landlock backend, said in one line
t_no_bwrap_auto() {
	skip_on_landlock "a test of choosing the backend (KB_BACKEND=landlock sets KINBOX_SANDBOX=landlock, which wins over --backend and auto; t21-landlock.sh covers the choice)"
	ws=$(newdir fc-nobwrap-auto)
	out=$(newdir fc-nobwrap-auto-out)
	cd "$ws"
	if [ "$(landlock_abi)" -lt 3 ]; then
		skip_test "Landlock ABI $(landlock_abi) < 3: no landlock backend here"
	fi
	kb_rc=0
	env PATH=/nonexistent-dir "$KINBOX" -- /bin/sh -c '/bin/touch marker; /bin/touch "$1/x"' sh "$out" \
		>"$KB_OUT" 2>"$KB_ERR" || kb_rc=$?
	assert_exists "$ws/marker"
	assert_not_exists "$out/x"
	assert_file_has_content "$KB_ERR" '^kinbox: bubblewrap \(bwrap\) is not installed \(apt-get install bubblewrap\); running under the landlock backend'
}
run_test "auto, bwrap not in PATH -> the landlock backend runs it, says so; the workspace write lands, one outside does not" t_no_bwrap_auto

t_fake_bwrap() {
	skip_on_landlock "a test of choosing the backend (KB_BACKEND=landlock sets KINBOX_SANDBOX=landlock, which wins over --backend and auto; t21-landlock.sh covers the choice)"
	d=$(newdir fc-fakebwrap)
	mkdir "$d/bin" "$d/ws"
	printf '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n' >"$d/bin/bwrap"
	chmod 755 "$d/bin/bwrap"
	cd "$d/ws"
	# the cause kinbox names depends on the host (container, sysctls)
	check_refused_re "$d/ws/marker" \
		'^kinbox: no sandbox: [^[]+ \[bwrap: setting up uid map: Permission denied\](; --backend auto or landlock would run it under Landlock instead \(weaker: kinbox --status\))? — nothing was run$' \
		env PATH="$d/bin:$PATH" "$KINBOX" --backend bwrap -- touch "$d/ws/marker"
	assert_file_has_content "$KB_ERR" '^kinbox: no sandbox:'
}
run_test "fail closed: --backend bwrap, bwrap cannot set up (uid map refused) -> 125, one 'no sandbox' line, nothing run" t_fake_bwrap

# auto: the same failure (nothing ran) is retried under the landlock
# backend, which says so; the write lands, a write outside does not
t_fake_bwrap_auto() {
	skip_on_landlock "a test of choosing the backend (KB_BACKEND=landlock sets KINBOX_SANDBOX=landlock, which wins over --backend and auto; t21-landlock.sh covers the choice)"
	d=$(newdir fc-fakebwrap-auto)
	mkdir "$d/bin" "$d/ws" "$d/out"
	printf '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n' >"$d/bin/bwrap"
	chmod 755 "$d/bin/bwrap"
	cd "$d/ws"
	if [ "$(landlock_abi)" -lt 3 ]; then
		skip_test "Landlock ABI $(landlock_abi) < 3: no landlock backend here"
	fi
	kb_rc=0
	env PATH="$d/bin:$PATH" "$KINBOX" -- sh -c 'touch marker; touch "$1/x"' sh "$d/out" \
		>"$KB_OUT" 2>"$KB_ERR" || kb_rc=$?
	assert_exists "$d/ws/marker"
	assert_not_exists "$d/out/x"
	assert_file_has_content "$KB_ERR" '^kinbox: bubblewrap cannot make its namespaces here \(bwrap: setting up uid map: Permission denied\); running under the landlock backend'
}
run_test "auto: bwrap cannot set up (uid map refused) -> the landlock backend runs it, says so; the workspace write lands, one outside does not" t_fake_bwrap_auto

t_nested() {
	skip_on_landlock "a test of choosing the backend (KB_BACKEND=landlock sets KINBOX_SANDBOX=landlock, which wins over --backend and auto; t21-landlock.sh covers the choice)"
	ws=$(newdir fc-nested)
	# the inner kinbox from a place the sandbox shows (a build under /tmp
	# is hidden by the private /tmp)
	nbin=$(newdir fc-nested-bin)
	cp "$KINBOX" "$(dirname "$KINBOX")/kinbox-exec" "$nbin/"
	cd "$ws"
	KINBOX_INNER=$nbin/kinbox kb -- sh -c '"$KINBOX_INNER" --backend bwrap -- touch ran; echo "inner-rc=$?"'
	assert_file_has_content "$KB_OUT" '^inner-rc=125$'
	assert_file_has_content "$KB_ERR" '^kinbox: .*already inside a kinbox sandbox'
	# the inner kinbox's line is all the outer one passed on (bwrap's own
	# words, in the brackets, depend on the kernel)
	assert_one_kinbox_line "$KB_ERR" \
		'^kinbox: no sandbox: already inside a kinbox sandbox, which forbids nested user namespaces; run the command directly \[bwrap: [^]]+\](; --backend auto or landlock would run it under Landlock instead \(weaker: kinbox --status\))? — nothing was run$'
	assert_not_exists "$ws/ran"
}
run_test "fail closed: kinbox --backend bwrap inside kinbox -> 125, 'already inside a kinbox sandbox', nothing run" t_nested

# auto inside kinbox: the inner one runs under the landlock backend (which
# stacks on the outer sandbox): its write lands, a write the outer one
# allows but the inner does not (the outer's private /tmp) does not
t_nested_auto() {
	skip_on_landlock "a test of choosing the backend (KB_BACKEND=landlock sets KINBOX_SANDBOX=landlock, which wins over --backend and auto; t21-landlock.sh covers the choice)"
	ws=$(newdir fc-nested-auto)
	nbin=$(newdir fc-nested-auto-bin)
	cp "$KINBOX" "$(dirname "$KINBOX")/kinbox-exec" "$nbin/"
	cd "$ws"
	if [ "$(landlock_abi)" -lt 3 ]; then
		skip_test "Landlock ABI $(landlock_abi) < 3: no landlock backend here"
	fi
	KINBOX_INNER=$nbin/kinbox kb -- sh -c '"$KINBOX_INNER" -- sh -c "touch ran; touch /tmp/inner-x"; echo "inner-rc=$?"; [ -e /tmp/inner-x ] && echo inner-tmp-written; touch /tmp/outer-x && echo outer-tmp-ok'
	assert_file_has_content "$KB_OUT" '^inner-rc=1$'
	assert_file_has_content "$KB_OUT" '^outer-tmp-ok$'
	assert_not_file_has_content "$KB_OUT" 'inner-tmp-written'
	assert_exists "$ws/ran"
	assert_file_has_content "$KB_ERR" 'running under the landlock backend'
}
run_test "auto: kinbox inside kinbox runs under the landlock backend (stacked): its workspace write lands, the outer's private /tmp is not its" t_nested_auto

# ============================================================================
# KINBOX_SANDBOX=container, --dry-run
# ============================================================================

t_container() {
	ws=$(newdir container)
	cd "$ws"
	export KINBOX_SANDBOX=container
	kb_expect 0 -- touch "$ws/ran"
	assert_exists "$ws/ran"
	assert_one_kinbox_line "$KB_ERR" '^kinbox: no sandbox'
	rm "$ws/ran"
	kb_expect 0 -q -- touch "$ws/ran"
	assert_exists "$ws/ran"
	[ ! -s "$KB_ERR" ] || fail "-q still prints: $(cat "$KB_ERR")"
}
run_test "KINBOX_SANDBOX=container runs the command with a 'no sandbox' line; -q silences it" t_container

t_dry_run() {
	skip_on_landlock "the plan is kinbox-exec's argv, not bwrap's (no --unshare-net; t21-landlock.sh checks the landlock plan)"
	ws=$(newdir dryrun)
	cd "$ws"
	kb_expect 0 --dry-run -- touch "$ws/ran"
	assert_not_exists "$ws/ran"
	assert_file_has_content "$KB_OUT" '^# '
	assert_file_has_content "$KB_OUT" '^--unshare-net$'
	assert_file_has_content "$KB_OUT" "^$ws\$"
	assert_file_has_content "$KB_OUT" "^# workspace: $ws "
	cp "$KB_OUT" "$KB_T/dry.default"
	kb_expect 0 --dry-run --net -- touch "$ws/ran"
	assert_not_exists "$ws/ran"
	assert_not_file_has_content "$KB_OUT" '^--unshare-net$'
	assert_file_has_content "$KB_OUT" "^$ws\$"
}
run_test "--dry-run runs nothing; --unshare-net by default, not with --net; names the workspace" t_dry_run

# ============================================================================
# Nothing left behind
# ============================================================================

t_nothing_left() {
	d=$(newdir left)
	mkdir -p "$d/plain/sub"
	echo a >"$d/plain/sub/f"
	mkrepo "$d/git"
	mkrepo "$d/bare"
	rm -rf "$d/bare/.git/hooks" "$d/bare/.git/config"
	for w in plain git bare; do
		listing "$d/$w" >"$KB_T/list.before"
		(cd "$d/$w" && kb_expect 0 -- sh -c 'ls -la >/dev/null; git status >/dev/null 2>&1 || true; echo ran' &&
			assert_streq "$(cat "$KB_OUT")" ran "the command's output")
		listing "$d/$w" >"$KB_T/list.after"
		assert_files_equal "$KB_T/list.before" "$KB_T/list.after"
	done
}
run_test "kinbox leaves nothing behind (plain dir, git repo, repo without hooks/ and config)" t_nothing_left

# kinbox's own state: the config it reads, the journal it writes after a
# denial, a runtime or cache dir. A run that was not denied (and --dry-run,
# which runs nothing) must leave none of them behind. HOME lies under
# /var/tmp (outside /tmp, which is private inside): a write there would be
# seen. (An issue report had --dry-run create $XDG_CONFIG_HOME/kinbox.)
t_no_host_state() {
	d=$(newdir host-state)
	mkdir "$d/ws" "$d/home" "$d/config" "$d/state" "$d/runtime" "$d/cache"
	chmod 700 "$d/runtime"
	HOME=$d/home XDG_CONFIG_HOME=$d/config XDG_STATE_HOME=$d/state
	XDG_RUNTIME_DIR=$d/runtime XDG_CACHE_HOME=$d/cache
	export HOME XDG_CONFIG_HOME XDG_STATE_HOME XDG_RUNTIME_DIR XDG_CACHE_HOME
	for x in home config state runtime cache; do
		listing "$d/$x" | sed "s|^|$x |"
	done >"$KB_T/host-state.before"
	cd "$d/ws"
	kb_expect 0 --dry-run -- true
	assert_file_has_content "$KB_OUT" "^# workspace: $d/ws "
	for x in home config state runtime cache; do
		listing "$d/$x" | sed "s|^|$x |"
	done >"$KB_T/host-state.dry"
	assert_files_equal "$KB_T/host-state.before" "$KB_T/host-state.dry"
	kb_expect 0 -- true
	kb_expect 0 -- sh -c 'echo ran > ctl'
	assert_file_has_content "$d/ws/ctl" '^ran$'
	for x in home config state runtime cache; do
		listing "$d/$x" | sed "s|^|$x |"
	done >"$KB_T/host-state.after"
	assert_files_equal "$KB_T/host-state.before" "$KB_T/host-state.after"
	# the same with the XDG variables unset: their defaults below HOME
	unset XDG_CONFIG_HOME XDG_STATE_HOME XDG_RUNTIME_DIR XDG_CACHE_HOME
	rm "$d/ws/ctl"
	kb_expect 0 --dry-run -- true
	assert_file_has_content "$KB_OUT" "^# workspace: $d/ws "
	kb_expect 0 -- sh -c 'echo ran > ctl'
	assert_file_has_content "$d/ws/ctl" '^ran$'
	for x in home config state runtime cache; do
		listing "$d/$x" | sed "s|^|$x |"
	done >"$KB_T/host-state.after"
	assert_files_equal "$KB_T/host-state.before" "$KB_T/host-state.after"
}
run_test "--dry-run and a real run leave nothing new in HOME, XDG_CONFIG_HOME, XDG_STATE_HOME, XDG_RUNTIME_DIR, XDG_CACHE_HOME (fresh empty dirs; then with the XDG ones unset)" t_no_host_state

done_testing
