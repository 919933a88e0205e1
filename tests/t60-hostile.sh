#!/bin/sh
# tests/t60-hostile.sh — issue 9: a hostile workspace must not widen the next
# run, steer kinbox's own host actions, hang it, or forge its lines.
#
# After a run every byte under a writable root was written by the command.
# Each test plants what a hostile command would, then judges kinbox from
# OUTSIDE, by effects only: a victim outside every writable root is
# unchanged (content, names, nothing moved aside or removed); a host-side git
# command run afterwards executes nothing planted (a planted program leaves
# $RAN, outside every workspace and read-only inside); kinbox returns within
# a bound (every call under timeout); what kinbox and kinpolicy print holds
# no raw control bytes or forged "kinbox:" lines; a store the command could
# write makes kinbox exit 125 and run nothing. Each test also checks that
# the allowed thing happened (the command ran and wrote in the workspace, a
# commit inside still works), so that a kinbox that runs nothing fails.
# Findings 1-10 of the issue are named in the test descriptions as [F1]..[F10];
# [F11] is issue 28's finding 2 (the config files git includes).
# [F12] is issue 35: repositories planted anywhere in a big workspace.
#
# Run: sh tests/t60-hostile.sh (TAP), or all suites: sh tests/run-integration.sh
# KINBOX=/path/to/kinbox picks the binary (default: the repo's ./kinbox).
# shellcheck disable=SC2317,SC2016,SC2164
# SC2317: the t_* bodies are called through run_test.
# SC2016: single-quoted $... is meant for the shell inside the sandbox.
# SC2164: lib.sh sets -e (test bodies run under set -e): a failed cd fails.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

B=$KB_T/bin
mkdir "$B"
KP=$KINPOLICY
PY=python3
if [ -x /usr/bin/python3 ]; then
	PY=/usr/bin/python3
fi
# host state that would change what kinbox reads or masks: each test sets
# what it needs. HOME is a directory of the script's own: the real home is
# never a victim (as root, kinbox also masks the passwd home).
unset XDG_RUNTIME_DIR XDG_CONFIG_HOME XDG_CACHE_HOME KINBOX_SESSION \
	KINBOX_JSON_FD GIT_PAGER PAGER GIT_EDITOR GIT_SSH GIT_SSH_COMMAND \
	GIT_ASKPASS SSH_AUTH_SOCK DOCKER_HOST DBUS_SESSION_BUS_ADDRESS || true
HOME=$KB_T/home
XDG_STATE_HOME=$KB_T/state
mkdir -p "$HOME"
export HOME XDG_STATE_HOME
RAN=$KB_T/PLANTED-RAN

# --- preflight ---------------------------------------------------------------
if [ ! -x "$KINBOX" ]; then
	tap_not_ok "kinbox binary $KINBOX exists (build it: make kinbox kinbox-exec kinpolicy)"
	done_testing
fi
mkdir "$KB_T/preflight"
if ! (cd "$KB_T/preflight" && timeout 30 "$KINBOX" -- true) >"$KB_T/preflight.log" 2>&1; then
	diag "$(cat "$KB_T/preflight.log")"
	skip_all "kinbox cannot set up a sandbox on this host"
fi
have timeout || skip_all "timeout (coreutils) is not installed"
have "$PY" || skip_all "python3 is not installed"
diag "kinbox: $KINBOX; uid $(id -u); kernel $(uname -r); $(bwrap --version 2>/dev/null)"

# --- planted programs (outside every workspace: read-only inside) ----------
# Each leaves a line in $RAN when anything runs it; evil-cat also passes its
# input through (a filter, a pager), evil-fail exits 1 (ssh, upload-pack).
for v in evil evil-cat evil-fail; do
	{
		echo '#!/bin/sh'
		echo "echo \"ran: \$0 \$*\" >>'$RAN' 2>/dev/null"
		case $v in
		evil-cat) echo 'exec cat' ;;
		evil-fail) echo 'exit 1' ;;
		*) echo 'exit 0' ;;
		esac
	} >"$B/$v"
	chmod 755 "$B/$v"
done
EVIL=$B/evil

# ctl.py MODE FILE...: prints each line holding a raw control byte (C0 but
# \n and \t, DEL, C1 as a code point or as a lone byte 0x80-0x9f) and exits
# 1. MODE all: every line; kinbox: only the lines kinbox or kinpolicy
# printed (they start with "kinbox", "kinpolicy" or "# ").
cat >"$B/ctl.py" <<'EOF'
import sys
mode, bad = sys.argv[1], 0
for path in sys.argv[2:]:
    for n, line in enumerate(open(path, "rb").read().split(b"\n"), 1):
        if mode == "kinbox" and not line.startswith((b"kinbox", b"kinpolicy", b"# ")):
            continue
        s = line.decode("utf-8", "surrogateescape")
        if any((ord(c) < 32 and c != "\t") or 0x7f <= ord(c) <= 0x9f or
               0xdc80 <= ord(c) <= 0xdc9f for c in s):
            print("%s:%d: %r" % (path, n, line))
            bad = 1
sys.exit(bad)
EOF

# swap.py SECONDS STOPFILE A B [A B...]: exchanges each A with its B
# (renameat2 RENAME_EXCHANGE) in a loop until STOPFILE exists, pausing 0 to
# 3 ms between rounds (a state that lasts about as long as kinbox's scan
# is what a racing run needs to meet). While ./pause exists it swaps
# nothing and ./paused exists (removed before it swaps again).
cat >"$B/swap.py" <<'EOF'
import ctypes, os, random, sys, time
libc = ctypes.CDLL(None, use_errno=True)
end, stop, args = time.time() + float(sys.argv[1]), sys.argv[2], sys.argv[3:]
pairs = [(a.encode(), b.encode()) for a, b in zip(args[::2], args[1::2])]
n = 0
open("swapping", "w").close()
while True:
    if os.path.exists("pause"):
        open("paused", "w").close()
        while os.path.exists("pause") and time.time() < end:
            time.sleep(0.001)
        os.remove("paused")
    for a, b in pairs:
        if libc.renameat2(-100, a, -100, b, 2) != 0:
            sys.exit("renameat2: errno %d" % ctypes.get_errno())
    n += 1
    time.sleep(random.uniform(0, 0.003))
    if n % 32 == 0 and (os.path.exists(stop) or time.time() > end):
        break
for a, b in pairs:
    if os.path.islink(a):
        libc.renameat2(-100, a, -100, b, 2)
print("swaps %d" % n)
EOF

# readloop.py OUT SECONDS CONTROL PATH...: a sandboxed job that wants a
# credential: copies CONTROL (readable), writes ./ready, then copies every
# non-empty read of each PATH into OUT, for SECONDS
cat >"$B/readloop.py" <<'EOF'
import sys, time
out, secs, control, paths = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4:]
o = open(out, "ab", buffering=0)
o.write(open(control, "rb").read())
open("ready", "w").close()
end = time.time() + secs
while time.time() < end:
    for p in paths:
        try:
            o.write(open(p, "rb").read())
        except OSError:
            pass
EOF

# ptyrun.py OUT CMD...: CMD on a terminal (stdin, stdout, stderr); what it
# printed goes to OUT
cat >"$B/ptyrun.py" <<'EOF'
import os, pty, sys
out = open(sys.argv[1], "wb", buffering=0)
def rd(fd):
    d = os.read(fd, 65536)
    out.write(d)
    return d
pty.spawn(sys.argv[2:], rd)
EOF

# --- shared helpers (newdir, mkrepo, poll_for are in lib.sh) ----------------
# kbt [ARG...]: kb (stdout → $KB_OUT, stderr → $KB_ERR, status → $KB_RC),
# bounded by $KB_TMO seconds: not returning in time fails. kbt_ok: and
# kinbox did not refuse (125). kbt_refused LINE: and it exited 125 with
# LINE as all of its stderr and nothing run (the commands given touch
# $ws/ran-refused).
KB_TMO=30
kbt() {
	KB_RC=0
	timeout -k 5 "$KB_TMO" "$KINBOX" "$@" </dev/null >"$KB_OUT" 2>"$KB_ERR" ||
		KB_RC=$?
	case $KB_RC in
	124 | 137)
		_show_file "$KB_ERR"
		fail "kinbox did not return within ${KB_TMO}s (it hangs): kinbox $*" ;;
	esac
}
kbt_ok() {
	kbt "$@"
	[ "$KB_RC" != 125 ] || { _show_file "$KB_ERR"; fail "kinbox refused to run (125): kinbox $*"; }
}
kbt_refused() {
	_line=$1
	shift
	kbt "$@"
	assert_not_exists "$ws/ran-refused"
	[ "$KB_RC" = 125 ] || { _show_file "$KB_ERR"; fail "kinbox exited $KB_RC, expected 125 (refuse, run nothing)"; }
	assert_file_is "$KB_ERR" "$_line"
}

# assert_file_is FILE TEXT: FILE holds exactly TEXT and a newline (a local
# copy of t50's helper; lib.sh has no exact-content assert)
assert_file_is() {
	printf '%s\n' "$2" >"$KB_T/.lib/want"
	assert_files_equal "$KB_T/.lib/want" "$1"
}

# store_line VAR STORE WHERE: the line kinbox refuses a run with when
# $VAR/kinbox (STORE) lies inside WHERE ("ws": the workspace $ws, else the
# write root WHERE given as a flag)
store_line() {
	case $1 in
	XDG_CONFIG_HOME) _gain="write its own grants" ;;
	XDG_RUNTIME_DIR) _gain="write its own session grants" ;;
	XDG_STATE_HOME) _gain="forge the denial journal and the decisions kinpolicy retry obeys" ;;
	esac
	if [ "$3" = ws ]; then
		printf 'kinbox: $%s/kinbox (%s) lies inside the writable workspace %s: a command could %s; move %s out of the workspace\n' \
			"$1" "$2" "$ws" "$_gain" "$1"
	else
		printf 'kinbox: $%s/kinbox (%s) lies inside the write root %s (flag): a command could %s; move %s out of that write root\n' \
			"$1" "$2" "$3" "$_gain" "$1"
	fi
}

# snap DIR: names, types, modes, link targets and contents below DIR
snap() {
	(cd "$1" && find . -printf '%y %m %p %l\n' | LC_ALL=C sort &&
		find . -type f -exec cksum {} + | LC_ALL=C sort)
}

# victim DIR: a directory outside every root, snapshotted to DIR.snap
victim() {
	mkdir -p "$1/sub"
	echo original >"$1/file"
	echo keep >"$1/keep"
	echo nested >"$1/sub/f"
	snap "$1" >"$1.snap"
}

# assert_victim DIR: unchanged since victim (or the last snap to DIR.snap)
assert_victim() {
	snap "$1" >"$1.now"
	if ! cmp -s "$1.snap" "$1.now"; then
		diff -u "$1.snap" "$1.now" >&2 || true
		fail "the victim $1 outside every writable root was changed"
	fi
}

# ws_at NAME [repo]: $d=$KB_T/NAME with an empty $d/other; the workspace
# $ws=$d/ws (a repository with one commit with "repo"), the current dir
ws_at() {
	d=$(newdir "$1")
	ws=$d/ws
	mkdir -p "$ws" "$d/other"
	[ "${2:-}" != repo ] || mkrepo "$ws"
	cd "$ws"
}

# hgit DIR ARG...: a host-side git command, bounded, its result ignored
hgit() {
	_d=$1 && shift
	timeout -k 2 20 git -C "$_d" "$@" </dev/null >/dev/null 2>&1 || true
}

# assert_git_runs_nothing DIR [GITCMD]: the host's next git commands in DIR
# (default: status, diff, log -p, commit) run nothing planted. GITCMD is one
# command line (split on spaces) to run instead.
assert_git_runs_nothing() {
	_dir=$1
	rm -f "$RAN"
	if [ $# -ge 2 ]; then
		# shellcheck disable=SC2086 # one command line, split on purpose
		hgit "$_dir" $2
	else
		hgit "$_dir" status
		hgit "$_dir" diff
		hgit "$_dir" log -p -2
		hgit "$_dir" commit -q --allow-empty -m outside-commit
	fi
	[ ! -e "$RAN" ] || fail "a program the command planted ran at the host's 'git ${2:-status/diff/log -p/commit}' in $_dir: $(cat "$RAN")"
}

# assert_clean_lines FILE... / assert_clean_kinbox_lines FILE...: no raw
# control bytes (in every line / in kinbox's own lines), no forged line
assert_clean_lines() {
	"$PY" "$B/ctl.py" all "$@" >&2 || fail "raw control bytes in $*"
}
assert_clean_kinbox_lines() {
	"$PY" "$B/ctl.py" kinbox "$@" >&2 || fail "raw control bytes in kinbox's lines in $*"
	if grep -q '^kinbox: FORGED' "$@"; then
		grep '^kinbox: FORGED' "$@" >&2
		fail "a name the command chose printed a line of its own as kinbox's"
	fi
}

# plan_binds DIR: the plan (kinbox --dry-run, in $KB_OUT) mounts something
# at or below DIR writable; the landlock backend's plan (kinbox-exec's
# argv) grants it writable: --write PATH, or --write-fd N, the descriptor's
# line naming the path ("N  # PATH")
plan_binds() {
	awk -v v="$1" '
		function hit(p) { return p == v || index(p, v "/") == 1 }
		n > 0 { if (hit($0)) bad = 1; n--; next }
		skip > 0 { skip--; if (skip == 0) n = 1; next }
		wfd > 0 { wfd = 0; sub(/^[0-9]+  # /, ""); if (hit($0)) bad = 1; next }
		/^--(dev-)?bind(-try)?$/ { n = 2; next }
		/^--bind-fd$/ { skip = 1; next }
		/^--write$/ { n = 1; next }
		/^--write-fd$/ { wfd = 1; next }
		END { exit !bad }' "$KB_OUT"
}

# assert_no_bind_of DIR [ROOT]: the plan mounts nothing at or below DIR
# writable; the positive control: it does bind ROOT (default: $ws)
assert_no_bind_of() {
	if plan_binds "$1"; then
		grep -n -B2 -F "$1" "$KB_OUT" | sed -n 1,20p >&2
		fail "the plan binds $1 writable"
	fi
	plan_binds "${2:-$ws}" || { _show_file "$KB_OUT"; fail "the plan does not bind ${2:-$ws} writable (no plan?)"; }
}

# ============================================================================
# [F1] planted worktree pointers do not make an outside directory writable
# ============================================================================

# t_pointer KIND: run 1 plants a .git file whose gitdir holds a commondir
# naming the victim (and a back-pointer agreeing); run 2 must not be able
# to write the victim, and its plan must not bind it
t_pointer() {
	ws_at "ptr-$1" repo
	V=$d/victim
	wr=
	case $1 in
	child-abs) # the issue's instance
		victim "$V"
		plant="mkdir -p child evilwg; echo 'gitdir: ../evilwg' > child/.git;
			echo '$V' > evilwg/commondir; echo '$ws/child/.git' > evilwg/gitdir" ;;
	child-rel) # everything relative, the git dir hidden
		victim "$V"
		plant="mkdir -p pkg-2 .cache/wt; echo 'gitdir: ../.cache/wt' > pkg-2/.git;
			echo ../../../victim > .cache/wt/commondir;
			echo ../../pkg-2/.git > .cache/wt/gitdir" ;;
	child-link) # commondir names a symlink in the workspace
		victim "$V"
		plant="mkdir -p lib wg; ln -s '$V' vlink; echo 'gitdir: $ws/wg' > lib/.git;
			echo ../vlink > wg/commondir; echo '$ws/lib/.git' > wg/gitdir" ;;
	home-bin) # the user's ~/.local/bin: a PATH hijack
		HOME=$d/home
		V=$HOME/.local/bin
		victim "$V"
		plant="mkdir -p tools/x .wt; echo 'gitdir: ../../.wt' > tools/x/.git;
			mkdir -p t2; echo 'gitdir: ../.wt' > t2/.git;
			echo '$V' > .wt/commondir; echo '$ws/t2/.git' > .wt/gitdir" ;;
	top) # a workspace that is not a repository yet
		rm -rf "$ws/.git"
		victim "$V"
		plant="mkdir .wg; echo 'gitdir: .wg' > .git; echo '$V' > .wg/commondir;
			echo '$ws/.git' > .wg/gitdir" ;;
	wroot) # in another write root, the worktree's git dir there too
		victim "$V"
		wr="-w $d/other"
		plant="mkdir -p '$d/other/mod' '$d/other/.g'; echo 'gitdir: ../.g' > '$d/other/mod/.git';
			echo ../../victim > '$d/other/.g/commondir'; echo '$d/other/mod/.git' > '$d/other/.g/gitdir'" ;;
	esac
	# shellcheck disable=SC2086 # $wr: zero or two words
	kbt_ok $wr -- sh -c "$plant; touch ran1"
	assert_exists "$ws/ran1"
	# shellcheck disable=SC2086
	kbt $wr -- sh -c "touch ran2; echo pwned > '$V/file'; echo x > '$V/new';
		rm -f '$V/keep'; mkdir '$V/hooks'; mv '$V/sub' '$V/sub2'"
	assert_exists "$ws/ran2"
	assert_victim "$V"
	# shellcheck disable=SC2086
	kbt_ok $wr --dry-run -- true
	assert_no_bind_of "$V"
	[ -z "$wr" ] || assert_no_bind_of "$V" "$d/other"
}
run_test "[F1] child/.git -> ../evilwg, commondir = /abs/victim, gitdir back-pointer agrees: the victim is not writable next run, not bound" t_pointer child-abs
run_test "[F1] pkg-2/.git -> ../.cache/wt, commondir and gitdir relative: victim not writable next run, not bound" t_pointer child-rel
run_test "[F1] lib/.git -> /abs/wg, commondir = ../vlink (a symlink to the victim): victim not writable next run" t_pointer child-link
run_test "[F1] two pointers (depth 1 and 2) sharing one git dir whose commondir is ~/.local/bin: not writable next run" t_pointer home-bin
run_test "[F1] a .git file planted at the top of a workspace that is no repository: the victim it names is not writable next run" t_pointer top
run_test "[F1] a pointer planted in a -w root (mod/.git -> ../.g, commondir ../../victim): victim not writable next run" t_pointer wroot

# ============================================================================
# [F2] the audit after the run does not act through planted symlinks
# ============================================================================

# git-dir-like victim: every name the audit moves aside, unlinks or removes
gitish_victim() {
	mkdir -p "$1/hooks"
	: >"$1/config"
	echo victim-commondir >"$1/commondir"
	echo victim-config-worktree >"$1/config.worktree"
	echo victim-index >"$1/index"
	echo victim-HEAD >"$1/HEAD"
	snap "$1" >"$1.snap"
}

# t_audit_link KIND: a guarded path's parent is renamed during the run and a
# symlink put in its place, so that the guarded names lead into a victim
t_audit_link() {
	ws_at "alink-$1"
	case $1 in
	child) # a child repo without hooks and config (kept uncreatable)
		kbt_ok -- sh -c 'git init -q child && rm -rf child/.git/hooks child/.git/config'
		V=$d/victim
		gitish_victim "$V"
		attack="mv child child.old && mkdir evil && ln -s '$V' evil/.git && mv evil child" ;;
	ssh) # the issue's instance: ~/.ssh, with a config
		HOME=$d/home
		V=$HOME/.ssh
		mkdir -p "$V"
		echo "Host kb-victim-config" >"$V/config"
		echo "kb-victim-key" >"$V/id_ed25519"
		echo "victim" >"$V/commondir"
		snap "$V" >"$V.snap"
		kbt_ok -- sh -c 'git init -q repo2 && rm -f repo2/.git/config'
		attack="mv repo2 r.old && mkdir -p fake && ln -s '$V' fake/.git && mv fake repo2" ;;
	modules) # the parent of a pinned submodule git dir
		mkrepo "$ws"
		mkrepo "$d/src"
		git submodule add -q "$d/src" sub >/dev/null 2>&1
		git commit -q -m sub
		V=$d/vparent/sub
		gitish_victim "$V"
		attack="mv .git/modules .git/modules.old && ln -s '$d/vparent' .git/modules" ;;
	worktrees) # the parent of a linked worktree's private git dir
		mkrepo "$ws"
		git worktree add -q "$d/wt" 2>/dev/null
		V=$d/vparent/wt
		gitish_victim "$V"
		attack="mv .git/worktrees .git/wt.old && ln -s '$d/vparent' .git/worktrees" ;;
	store) # kinbox's own store dir, created and removed by kinbox
		V=$d/vstore
		mkdir -p "$V/kinbox"
		echo keep >"$V/file"
		snap "$V" >"$V.snap"
		XDG_STATE_HOME=$ws/.state
		export XDG_STATE_HOME
		attack="mv .state .state.old && ln -s '$V' .state" ;;
	esac
	kbt -- sh -c "touch ran; $attack"
	if [ "$1" = store ] && [ "$KB_RC" = 125 ]; then
		# refusing a store the command could write is right too (F8),
		# with its one line
		assert_not_exists "$ws/ran"
		assert_file_is "$KB_ERR" "$(store_line XDG_STATE_HOME "$ws/.state/kinbox" ws)"
	else
		assert_exists "$ws/ran"
	fi
	assert_victim "$V"
	# the audit still ran: a guarded git dir replaced is reported
	[ "$1" = store ] || assert_file_has_content "$KB_ERR" '^kinbox: SECURITY'
}
run_test "[F2] child/ renamed, a symlink whose .git is a victim dir (config, hooks, commondir, config.worktree, index): victim untouched" t_audit_link child
run_test "[F2] repo2/ renamed, its .git replaced by a symlink to ~/.ssh: ~/.ssh/config is not moved aside, nothing removed" t_audit_link ssh
run_test "[F2] .git/modules renamed and symlinked to a dir whose sub/ is a victim: nothing moved aside there" t_audit_link modules
run_test "[F2] .git/worktrees renamed and symlinked to a dir whose wt/ is a victim: nothing moved aside there" t_audit_link worktrees
run_test "[F2] the parent of kinbox's own created store dir swapped for a symlink: no rmdir in the victim (or the run refused, F8, with its line)" t_audit_link store

# ============================================================================
# [F3] a FIFO does not hang kinbox; the later audit steps still run
# ============================================================================


# A kinbox that hangs costs the whole bound, so every FIFO case is prepared
# and started at once, here, and judged by the tests below (one wait for all).
FIFO=$KB_T/fifo
mkdir "$FIFO"

# fifo_bg NAME DIR ARG...: kinbox ARG... in DIR, in the background, bounded
# (20 s); its status goes to $FIFO/NAME.rc
fifo_bg() {
	_n=$1 _dir=$2
	shift 2
	(
		cd "$_dir" && _rc=0
		timeout -k 2 20 "$KINBOX" "$@" </dev/null >"$FIFO/$_n.out" 2>"$FIFO/$_n.err" || _rc=$?
		echo "$_rc" >"$FIFO/$_n.rc.tmp" && mv "$FIFO/$_n.rc.tmp" "$FIFO/$_n.rc"
	) &
	bg_register $!
}

# fifo_prep KIND: a-*: one run that leaves a FIFO where the audit reads
# first and plants a hook or config in a new repository (audited later);
# s-*: run 1 leaves a FIFO that run 2's scan or config reading opens
fifo_prep() {
	ws_at "fifo-$1"
	fifo='rm -f child/.git/index && mkfifo child/.git/index'
	hook="git init -q . && cp '$EVIL' .git/hooks/pre-commit && chmod 755 .git/hooks/pre-commit"
	case $1 in
	a-*)
		mkrepo "$ws/child"
		wr=
		case $1 in
		a-hook) plant=$hook ;; # the issue's instance
		a-config)
			plant="git init -q . && git config core.fsmonitor '$EVIL' && git config alias.st '!$EVIL'" ;;
		a-wroot) # the new repository at the top of a -w root
			wr="-w $d/other"
			plant="git init -q '$d/other' && cp '$EVIL' '$d/other/.git/hooks/post-commit' && chmod 755 '$d/other/.git/hooks/post-commit'" ;;
		a-modules) # FIFOs in a submodule's git dir too
			mkrepo "$d/src"
			git -C "$ws/child" submodule add -q "$d/src" s >/dev/null 2>&1
			fifo="mkfifo child/.git/modules/s/config.worktree && $fifo"
			plant=$hook ;;
		esac
		# shellcheck disable=SC2086 # $wr: zero or two words
		fifo_bg "$1" "$ws" $wr -- sh -c "$fifo; $plant; touch ran"
		return 0 ;;
	esac
	mkrepo "$ws"
	case $1 in
	s-commondir) plant="mkdir -p c2 wg2; echo 'gitdir: ../wg2' > c2/.git; mkfifo wg2/commondir" ;;
	s-gitdir) plant="mkdir -p c3 wg3; echo 'gitdir: ../wg3' > c3/.git; echo '$ws/.git' > wg3/commondir; mkfifo wg3/gitdir" ;;
	s-config) plant="mkdir -p c4 m4; echo 'gitdir: ../m4' > c4/.git; mkfifo m4/config" ;;
	s-gitmodules) plant="rm -f .gitmodules; mkfifo .gitmodules" ;;
	s-child-gitmodules) plant="git init -q c6 && mkfifo c6/.gitmodules" ;;
	s-kinbox-ini) plant="mkfifo .kinbox.ini" ;;
	s-dotgit) plant="mkdir c7; mkfifo c7/.git; mkdir c8; ln -s ../c7/.git c8/.git" ;;
	esac
	timeout -k 2 20 "$KINBOX" -- sh -c "$plant; touch ran1" </dev/null
	fifo_bg "$1" "$ws" -- sh -c 'touch ran2'
}

FIFO_KINDS="a-hook a-config a-wroot a-modules s-commondir s-gitdir s-config
s-gitmodules s-child-gitmodules s-kinbox-ini s-dotgit"
for k in $FIFO_KINDS; do
	(set -e && fifo_prep "$k") >"$FIFO/$k.log" 2>&1 || : >"$FIFO/$k.prepfail"
done

# fifo_wait KIND: the status of KIND's run (bounded), in $KB_RC, $KB_ERR;
# sets $d and $ws; a run that did not return in time fails
fifo_wait() {
	d=$KB_T/fifo-$1 ws=$KB_T/fifo-$1/ws
	[ ! -e "$FIFO/$1.prepfail" ] || fail "the preparation failed: $(cat "$FIFO/$1.log")"
	poll_for "$FIFO/$1.rc" 300 || fail "no status from the run under test"
	KB_RC=$(cat "$FIFO/$1.rc")
	cp "$FIFO/$1.err" "$KB_ERR"
	case $KB_RC in
	124 | 137) _show_file "$KB_ERR" && fail "kinbox did not return within 20 s (it hangs on the FIFO)" ;;
	esac
}

t_fifo_audit() {
	fifo_wait "$1"
	top=$ws
	[ "$1" != a-wroot ] || top=$d/other
	assert_exists "$ws/ran"
	assert_exists "$top/.git"
	assert_git_runs_nothing "$top"
	assert_git_runs_nothing "$top" st
}
run_test "[F3] child/.git/index a FIFO + a hook in a new top-level repo: kinbox returns within 20 s, the hook is disarmed" t_fifo_audit a-hook
run_test "[F3] child/.git/index a FIFO + core.fsmonitor and a ! alias in a new top-level repo: returns, nothing runs at git status" t_fifo_audit a-config
run_test "[F3] child/.git/index a FIFO + a hook in a new repo at the top of a -w root: returns, the hook is disarmed" t_fifo_audit a-wroot
run_test "[F3] a submodule's config.worktree and the index as FIFOs + a new top-level repo's hook: returns, hook disarmed" t_fifo_audit a-modules

# a FIFO .kinbox.ini is refused with its one line (as in t50); every other
# FIFO is passed over: the next run runs
t_fifo_scan() {
	fifo_wait "$1"
	assert_exists "$ws/ran1"
	if [ "$1" = s-kinbox-ini ]; then
		assert_streq "$KB_RC" 125 "kinbox's status with a FIFO .kinbox.ini"
		assert_not_exists "$ws/ran2"
		assert_file_is "$KB_ERR" "kinbox: $ws/.kinbox.ini: a FIFO; a config file must be a regular file; remove it or replace it with one"
	else
		assert_streq "$KB_RC" 0 "kinbox's status after the FIFO"
		assert_exists "$ws/ran2"
	fi
}
run_test "[F3] a FIFO as the commondir a planted .git file leads to: the next run returns within 20 s and runs" t_fifo_scan s-commondir
run_test "[F3] a FIFO as a worktree git dir's gitdir back-pointer: the next run returns within 20 s and runs" t_fifo_scan s-gitdir
run_test "[F3] a FIFO as the config of the git dir a .git file names: the next run returns within 20 s and runs" t_fifo_scan s-config
run_test "[F3] .gitmodules a FIFO: the next run returns within 20 s and runs" t_fifo_scan s-gitmodules
run_test "[F3] a child repo's .gitmodules a FIFO: the next run returns within 20 s and runs" t_fifo_scan s-child-gitmodules
run_test "[F3] .kinbox.ini a FIFO: the next run returns within 20 s, refused (125) with its one line, nothing run" t_fifo_scan s-kinbox-ini
run_test "[F3] a child's .git a FIFO (and a .git symlink to it): the next run returns within 20 s and runs" t_fifo_scan s-dotgit

# ============================================================================
# [F4] git directories git itself would use are found and guarded
# ============================================================================

# t_unguarded KIND: a git dir or hooks dir that the scan does not find; from
# inside, a commit there still works, then a hook and core.fsmonitor are
# planted; the host's next git commands run neither
t_unguarded() {
	ws_at "ung-$1" repo
	case $1 in
	sm-slash | sm-deep) # git names a submodule's git dir by its path
		R=vendor/lib
		[ "$1" = sm-slash ] || R=libs/a/b
		mkrepo "$d/src"
		git submodule add -q "$d/src" "$R" >/dev/null 2>&1
		git commit -q -m submodule
		G=.git/modules/$R ;;
	link2 | link3) # repos gitlinked two and three levels deep
		R=a/inner
		[ "$1" = link2 ] || R=x/y/deep
		mkrepo "$ws/$R"
		git add "$R"
		git commit -q -m gitlink
		G=$R/.git ;;
	husky) # core.hooksPath inside the worktree
		R=.
		G=.husky/_
		mkdir -p "$G"
		echo '*' >"$G/.gitignore"
		git config core.hooksPath .husky/_ ;;
	hooks-abs) # core.hooksPath an absolute directory in the workspace, with
		# an existing (benign) hook that the command rewrites
		R=.
		G=$ws/tools/hooks
		mkdir -p "$G"
		printf '#!/bin/sh\nexit 0\n' >"$G/pre-commit"
		chmod 755 "$G/pre-commit"
		git config core.hooksPath "$G" ;;
	esac
	case $1 in
	husky | hooks-abs)
		plant="cat '$EVIL' > '$G/pre-commit'; cp '$EVIL' '$G/post-commit'; chmod 755 '$G/pre-commit' '$G/post-commit'" ;;
	*)
		plant="cp '$EVIL' '$G/hooks/pre-commit'; cp '$EVIL' '$G/hooks/post-commit';
			chmod 755 '$G/hooks/pre-commit' '$G/hooks/post-commit';
			git -C '$R' config core.fsmonitor '$EVIL'" ;;
	esac
	kbt_ok -- sh -c "git -C '$R' commit -q --allow-empty -m inside-commit && touch ran; $plant"
	assert_exists "$ws/ran"
	assert_streq "$(git -C "$ws/$R" log -1 --format=%s)" inside-commit "the commit made inside"
	assert_git_runs_nothing "$ws/$R"
	assert_git_runs_nothing "$ws"
}
run_test "[F4] submodule vendor/lib (git dir .git/modules/vendor/lib): commit inside works; planted hook and fsmonitor run nothing outside" t_unguarded sm-slash
run_test "[F4] submodule libs/a/b (git dir .git/modules/libs/a/b): commit inside works; planted hook and fsmonitor run nothing outside" t_unguarded sm-deep
run_test "[F4] a repo gitlinked two levels deep (a/inner): commit inside works; planted hook and fsmonitor run nothing outside" t_unguarded link2
run_test "[F4] a repo gitlinked three levels deep (x/y/deep): commit inside works; planted hook and fsmonitor run nothing outside" t_unguarded link3
run_test "[F4] core.hooksPath = .husky/_ (husky): commit inside works; hooks planted there run nothing outside" t_unguarded husky
run_test "[F4] core.hooksPath = /abs/ws/tools/hooks with a hook: rewriting it from inside runs nothing outside" t_unguarded hooks-abs

# t_many N [M]: N child repos in the workspace (and M in a -w root): kinbox
# runs; a hook planted in each runs nothing outside, or kinbox said that
# the repository is not guarded
t_many() {
	ws_at "many-$1-${2:-0}"
	wr=
	[ -z "${2:-}" ] || wr="-w $d/other"
	repos=
	i=1
	while [ "$i" -le "$1" ]; do
		mkrepo "$ws/c$i"
		repos="$repos $ws/c$i"
		if [ "$i" -le "${2:-0}" ]; then
			mkrepo "$d/other/o$i"
			repos="$repos $d/other/o$i"
		fi
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	kbt $wr -- sh -c "git -C c1 commit -q --allow-empty -m inside-commit; touch ran
		for r in $repos; do cp '$EVIL' \$r/.git/hooks/pre-commit; chmod 755 \$r/.git/hooks/pre-commit; done"
	if [ "$KB_RC" = 125 ]; then
		_show_file "$KB_ERR"
		fail "kinbox refuses to run with $1 child repositories"
	fi
	assert_exists "$ws/ran"
	assert_streq "$(git -C "$ws/c1" log -1 --format=%s)" inside-commit
	for r in $repos; do
		rm -f "$RAN"
		hgit "$r" commit -q --allow-empty -m outside
		if [ -e "$RAN" ] && ! grep -q -F "$r" "$KB_ERR"; then
			fail "the hook planted in $r ran outside, and kinbox did not say that $r is not guarded"
		fi
	done
}
run_test "[F4] 40 child repositories: kinbox runs; a hook planted in each runs nothing outside (or kinbox names it unguarded)" t_many 40
run_test "[F4] 24 child repositories in the workspace and 24 in a -w root: kinbox runs; planted hooks run nothing outside" t_many 24 24

# ============================================================================
# [F5] a repository the command creates runs nothing at the host's git
# ============================================================================

# newcfg KEY: $setup (run inside a fresh repository with one commit) plants
# KEY; $trigger is the host-side git command that would run it
newcfg() {
	cfg='"$(git rev-parse --git-dir)/config"'
	case $1 in
	diffcmd) trigger="diff" \
		setup="echo a > f.txt && git add f.txt && git commit -q -m f && echo '*.txt diff=kb' > .gitattributes && git config diff.kb.command '$EVIL' && echo b >> f.txt" ;;
	mergedrv) trigger="merge -q --no-edit other" \
		setup="echo a > m.txt && echo '*.txt merge=kb' > .gitattributes && git add -A && git commit -q -m m && git checkout -q -b other && echo o > m.txt && git commit -q -am o && git checkout -q - && echo m > m.txt && git commit -q -am m && git config merge.kb.driver '$EVIL %O %A %B'" ;;
	filter-clean) trigger="add -A" \
		setup="echo '*.dat filter=kb' > .gitattributes && git config filter.kb.clean '$B/evil-cat' && echo data > x.dat" ;;
	filter-smudge) trigger="checkout -- x.dat" \
		setup="echo '*.dat filter=kb' > .gitattributes && echo data > x.dat && git add -A && git commit -q -m d && git config filter.kb.smudge '$B/evil-cat' && rm x.dat" ;;
	filter-process) trigger="add -A" \
		setup="echo '*.dat filter=kb' > .gitattributes && git config filter.kb.process '$EVIL' && echo data > x.dat" ;;
	alias-quoted) trigger="st" \
		setup="printf '[alias]\n\tst = \"!%s\"\n' '$EVIL' >> $cfg" ;;
	alias-tab) trigger="lg" \
		setup="printf '[alias]\n\tlg =\t!%s\n' '$EVIL' >> $cfg" ;;
	include) trigger="st" \
		setup="printf '[alias]\n\tst = !%s\n' '$EVIL' > kb.inc && printf '[include]\n\tpath = ../kb.inc\n' >> $cfg" ;;
	includeif) trigger="status" \
		setup="printf '[core]\n\tfsmonitor = %s\n' '$EVIL' > kb.inc && echo a > t && git add t && git commit -q -m t && printf '[includeIf \"gitdir:/\"]\n\tpath = ../kb.inc\n' >> $cfg" ;;
	fsmonitor) trigger="status" \
		setup="echo a > t && git add t && git commit -q -m t && printf '[Core]\n\tFsMonitor = %s\n' '$EVIL' >> $cfg" ;;
	sshcmd) trigger="fetch -q origin" \
		setup="git config core.sshCommand '$B/evil-fail' && git remote add origin ssh://kinbox.invalid/r.git" ;;
	uploadpack) trigger="fetch -q origin" \
		setup="git remote add origin \"\$PWD\" && git config remote.origin.uploadpack '$B/evil-fail'" ;;
	difftool) trigger="difftool -y" \
		setup="echo a > f && git add f && git commit -q -m f && git config diff.tool kb && git config difftool.kb.cmd '$EVIL' && echo b >> f" ;;
	pager) trigger="PTY" \
		setup="git config core.pager '$B/evil-cat'" ;;
	esac
}

# newcfg_script WHERE: the command's script; the repository is at $loc
# below the current directory
newcfg_script() {
	init="git init -q . && git commit -q --allow-empty -m base"
	case $1 in
	top) loc=. script="$init && $setup" ;;
	sepdir) loc=. script="git init -q --separate-git-dir=.g . && git commit -q --allow-empty -m base && $setup" ;;
	child) loc=newpkg script="mkdir newpkg && cd newpkg && $init && $setup" ;;
	deep) loc=a/b/pkg script="mkdir -p a/b/pkg && cd a/b/pkg && $init && $setup" ;;
	gitlink) loc=sub script="mkdir sub && (cd sub && $init && $setup) && git add sub" ;;
	esac
}

# newcfg_trigger DIR: the host's git command in DIR
newcfg_trigger() {
	rm -f "$RAN"
	if [ "$trigger" = PTY ]; then
		# PAGER=cat: the pager when no core.pager speaks (it comes
		# before PAGER), not less, which without a TERM (the
		# unprivileged pass, CI) waits on the terminal for a RETURN
		# until the timeout
		(cd "$1" && env PAGER=cat timeout -k 2 20 "$PY" "$B/ptyrun.py" "$KB_T/pty.out" git log) >/dev/null 2>&1 || true
	else
		# shellcheck disable=SC2086 # a command line, split on purpose
		hgit "$1" $trigger
	fi
}

t_newcfg() {
	newcfg "$1"
	newcfg_script "$2"
	ws_at "newcfg-$1-$2"
	mkdir "$d/control"
	case $2 in
	top | sepdir) ;;
	*) mkrepo "$ws" && mkrepo "$d/control" ;;
	esac
	# the control: the same script run on the host arms the trigger
	(cd "$d/control" && sh -c "$script") >/dev/null 2>&1 ||
		fail "the test's own setup failed on the host: $script"
	newcfg_trigger "$d/control/$loc"
	[ -e "$RAN" ] || fail "test bug: the host's 'git $trigger' does not run what $1 plants"
	kbt_ok -- sh -c "$script && touch '$ws/ran'"
	assert_exists "$ws/ran"
	# (a planted .git file may be moved aside: the git dir must stay)
	gd=$ws/$loc/.git
	[ "$2" != sepdir ] || gd=$ws/.g
	git --git-dir="$gd" rev-parse -q --verify HEAD >/dev/null ||
		fail "the repository the command made in $loc is gone"
	newcfg_trigger "$ws/$loc"
	[ ! -e "$RAN" ] || fail "the host's 'git $trigger' in the repository the command made ($2) ran: $(cat "$RAN")"
	assert_git_runs_nothing "$ws/$loc"
	[ "$2" != gitlink ] || assert_git_runs_nothing "$ws" status
}
run_test "[F5] a new top-level repo: diff.<drv>.command + .gitattributes runs nothing at git diff" t_newcfg diffcmd top
run_test "[F5] a new child repo: diff.<drv>.command + .gitattributes runs nothing at git diff" t_newcfg diffcmd child
run_test "[F5] a new top-level repo: merge.<drv>.driver runs nothing at git merge" t_newcfg mergedrv top
run_test "[F5] a new gitlinked repo: merge.<drv>.driver runs nothing at git merge" t_newcfg mergedrv gitlink
run_test "[F5] a new top-level repo: filter.<x>.clean runs nothing at git add" t_newcfg filter-clean top
run_test "[F5] a new child repo: filter.<x>.smudge runs nothing at git checkout" t_newcfg filter-smudge child
run_test "[F5] a new gitlinked repo: filter.<x>.process runs nothing at git add" t_newcfg filter-process gitlink
run_test "[F5] a new top-level repo: alias st = \"!prog\" (quoted) runs nothing at git st" t_newcfg alias-quoted top
run_test "[F5] a new repo three levels deep: alias st = \"!prog\" runs nothing at git st" t_newcfg alias-quoted deep
run_test "[F5] a new gitlinked repo: alias lg =<TAB>!prog runs nothing at git lg" t_newcfg alias-tab gitlink
run_test "[F5] a new top-level repo: include.path to a file with a ! alias runs nothing" t_newcfg include top
run_test "[F5] a new child repo: includeIf gitdir:/ to a file with core.fsmonitor runs nothing at git status" t_newcfg includeif child
run_test "[F5] a new child repo: [Core] FsMonitor runs nothing at git status" t_newcfg fsmonitor child
run_test "[F5] a new repo with a separate git dir (.git file): core.fsmonitor runs nothing at git status" t_newcfg fsmonitor sepdir
run_test "[F5] a new top-level repo: core.sshCommand runs nothing at git fetch" t_newcfg sshcmd top
run_test "[F5] a new top-level repo: remote.<r>.uploadpack runs nothing at git fetch" t_newcfg uploadpack top
run_test "[F5] a new child repo: difftool.<t>.cmd runs nothing at git difftool" t_newcfg difftool child
run_test "[F5] a new gitlinked repo: core.pager runs nothing at git log on a terminal" t_newcfg pager gitlink

# ============================================================================
# [F6] a masked credential the host replaces stays unreadable
# ============================================================================

# t_cred KIND TRIALS: a sandboxed loop reads the masked store and copies
# what it gets into the workspace while the host replaces the store the
# way git-credential-store, docker login and editors do (a new file renamed
# over it; for a directory, a whole new one moved into place)
t_cred() {
	ws_at "cred-$1"
	HOME=$d/home
	export HOME
	mkdir -p "$HOME/.docker" "$HOME/.aws"
	echo "# kb-visible-profile" >"$HOME/.profile"
	case $1 in
	netrc) f=$HOME/.netrc ;;
	gitcred) f=$HOME/.git-credentials ;;
	docker) f=$HOME/.docker/config.json ;;
	aws) f=$HOME/.aws/credentials ;;
	esac
	echo "kb-secret-$1-old" >"$f"
	n=1
	while [ "$n" -le "$2" ]; do
		rm -f ready copy
		timeout -k 2 20 "$KINBOX" -- "$PY" "$B/readloop.py" "$ws/copy" 1.5 \
			"$HOME/.profile" "$f" </dev/null >"$KB_OUT" 2>"$KB_ERR" &
		p=$!
		poll_while_running "$p" "$ws/ready" 100 || fail "trial $n: the sandboxed reader never got ready: $(cat "$KB_ERR")"
		sleep 0.2
		if [ "$1" = aws ]; then
			# odd trials: two renames; even: one atomic exchange
			mkdir "$HOME/.aws.new"
			echo "aws_secret_access_key = kb-secret-aws-new$n" >"$HOME/.aws.new/credentials"
			if [ $((n % 2)) = 1 ]; then
				mv "$HOME/.aws" "$HOME/.aws.old$n"
				mv "$HOME/.aws.new" "$HOME/.aws"
			else
				"$PY" -c 'import ctypes, sys; ctypes.CDLL(None).renameat2(-100, sys.argv[1].encode(), -100, sys.argv[2].encode(), 2)' \
					"$HOME/.aws.new" "$HOME/.aws"
				mv "$HOME/.aws.new" "$HOME/.aws.old$n"
			fi
		else
			echo "password kb-secret-$1-new$n" >"$f.tmp"
			mv "$f.tmp" "$f"
		fi
		rc=0
		wait "$p" || rc=$?
		case $rc in 124 | 137) fail "trial $n: kinbox did not return" ;; esac
		# the control: the reader ran and copied what it may read
		assert_file_has_content "$ws/copy" '^# kb-visible-profile$'
		! grep -q 'kb-secret-' "$ws/copy" ||
			fail "trial $n: the replaced $f was read inside: $(grep -o 'kb-secret-[a-z0-9-]*' "$ws/copy" | sort -u | tr '\n' ' ')"
		n=$((n + 1))
	done
}
run_test "[F6] ~/.netrc rewritten on the host (tmp + rename) while a sandboxed loop copies it: 5 trials, no secret copied" t_cred netrc 5
run_test "[F6] ~/.git-credentials rewritten on the host (tmp + rename): 3 trials, no secret copied" t_cred gitcred 3
run_test "[F6] ~/.docker/config.json rewritten on the host (tmp + rename): 3 trials, no secret copied" t_cred docker 3
run_test "[F6] ~/.aws replaced on the host by a whole new directory (mv away + mv in, or RENAME_EXCHANGE): 6 trials, no secret copied" t_cred aws 6

# ============================================================================
# [F7] concurrent runs: what is mounted is what was checked
# ============================================================================

# A sandboxed job exchanges two child repositories with symlinks to outside
# repositories (renameat2 RENAME_EXCHANGE, a tight loop) while up to 100
# runs (at most 60 s) try to write into the children's git dirs. Most runs
# that meet a swap are refused (125, nothing run), and on a busy machine all
# of them can be: the positive control is every 10th run, made with the
# swapper paused (in whichever state it stopped), which must run. A racing
# run's audit can replace a file the swapper's own sandbox guards, and
# kinbox then stops the swapper: it is started again (the race goes on).
t_race() {
	ws_at race repo
	mkrepo "$ws/child"
	mkrepo "$ws/pkg"
	for o in out1 out2; do
		mkrepo "$d/$o"
		echo original >"$d/$o/file"
		snap "$d/$o" >"$d/$o.snap"
	done
	ln -s "$d/out1" "$ws/lnk1"
	ln -s "$d/out2" "$ws/lnk2"
	starts=0
	swapper() {
		rm -f "$ws/swapping" "$ws/paused"
		timeout -k 2 90 "$KINBOX" -- "$PY" "$B/swap.py" 70 "$ws/stop" \
			child lnk1 pkg lnk2 </dev/null >>"$d/swap.out" 2>>"$d/swap.err" &
		sp=$!
		bg_register "$sp"
		starts=$((starts + 1))
		poll_while_running "$sp" "$ws/swapping" 100 || fail "the swapper did not start: $(cat "$d/swap.err")"
	}
	swapper
	i=0 ran=0 pran=0 start=$(date +%s)
	while [ "$i" -lt 100 ] && [ $(($(date +%s) - start)) -lt 60 ]; do
		i=$((i + 1)) rc=0 paused=0
		if [ $((i % 10)) = 0 ]; then
			# the swapper paused, or gone (nothing swaps either way)
			: >"$ws/pause"
			n=0
			while [ ! -e "$ws/paused" ] && kill -0 "$sp" 2>/dev/null; do
				n=$((n + 1))
				[ "$n" -le 100 ] || fail "the swapper did not pause"
				sleep 0.1
			done
			paused=1
		fi
		timeout -k 2 20 "$KINBOX" -- sh -c "touch ran.$i; for r in child pkg; do
			echo pwned > \$r/.git/PWNED; echo pwned >> \$r/.git/config; echo pwned > \$r/file
			cp '$EVIL' \$r/.git/hooks/pre-commit; done" </dev/null >/dev/null 2>"$d/run.err" || rc=$?
		cat "$d/run.err" >>"$d/runs.err"
		case $rc in 124 | 137) fail "run $i did not return" ;; esac
		if [ "$paused" = 1 ]; then
			[ -e "ran.$i" ] || fail "run $i, made with the swapper paused, did not run the command (exit $rc): $(cat "$d/run.err")"
			pran=$((pran + 1))
			rm -f "$ws/pause"
			if kill -0 "$sp" 2>/dev/null; then
				# resumed before the next run races it
				n=0
				while [ -e "$ws/paused" ] && kill -0 "$sp" 2>/dev/null; do
					n=$((n + 1))
					[ "$n" -le 100 ] || fail "the swapper did not resume"
					sleep 0.1
				done
			else
				wait "$sp" || true
				swapper
			fi
		elif [ -e "ran.$i" ]; then
			ran=$((ran + 1))
		fi
	done
	: >"$ws/stop"
	wait "$sp" || true
	diag "$i runs: $ran of the racing runs and $pran of those with the swapper paused ran the command; the swapper started $starts time(s), stopped by kinbox $(grep -c 'the command was stopped' "$d/swap.err") time(s); $(grep -h '^swaps' "$d/swap.out" | tr '\n' ' ')"
	! grep -q renameat2 "$d/swap.err" || fail "the swapper failed: $(grep renameat2 "$d/swap.err")"
	[ "$pran" -gt 0 ] || fail "no run was made with the swapper paused"
	assert_victim "$d/out1"
	assert_victim "$d/out2"
	assert_git_runs_nothing "$d/out1"
	assert_git_runs_nothing "$d/out2"
}
run_test "[F7] a parallel sandboxed job swaps child dirs with symlinks to outside repos (RENAME_EXCHANGE loop); 100 runs write there (every 10th, the swapper paused, must run): outside unchanged" t_race

# A concurrent process exchanges a child repository with a symlink to an
# outside one as fast as it can, so that at any moment one of the two names
# is the repository. The scan finds the children by name: read while they
# move, it could miss the repository under both names, and the run then
# had its hooks writable. Now a scan during which the root's entries
# changed is done again (and the run refused after four tries). No run may
# see a writable hooks directory under either name.
t_scan_race() {
	skip_on_landlock "git guards are not held during the run (a child repo's hooks are writable inside; kinbox puts them back after the run)"
	ws_at scanrace repo
	mkrepo "$ws/child"
	mkrepo "$d/out1"
	ln -s "$d/out1" "$ws/lnk1"
	cat >"$d/probe.sh" <<'EOF'
touch "ran.$1"
for n in child lnk1; do
	if [ -d "$n/.git/hooks" ] && [ ! -L "$n" ] &&
		touch "$n/.git/hooks/pw.$1" 2>/dev/null; then
		echo "WRITABLE $n"
	fi
done
EOF
	# the probe sees a writable hooks directory where there is one
	sh "$d/probe.sh" control >"$d/control.out"
	assert_file_has_content "$d/control.out" '^WRITABLE child$'
	rm -f "$ws/child/.git/hooks/pw.control" "$ws/ran.control"
	cat >"$d/tight.py" <<'EOF'
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
end = time.time() + float(sys.argv[1])
open("swapping", "w").close()
n = 0
while time.time() < end and not os.path.exists("stop"):
    libc.renameat2(-100, b"child", -100, b"lnk1", 2)
    n += 1
if os.path.islink("child"):
    libc.renameat2(-100, b"child", -100, b"lnk1", 2)
print("swaps %d" % n)
EOF
	(cd "$ws" && exec "$PY" "$d/tight.py" 60) >"$d/tight.out" 2>&1 &
	sp=$!
	bg_register "$sp"
	poll_for "$ws/swapping" 100 || fail "the swapper did not start"
	i=0 ran=0 start=$(date +%s)
	while [ "$i" -lt 60 ] && [ $(($(date +%s) - start)) -lt 40 ]; do
		i=$((i + 1))
		timeout -k 2 20 "$KINBOX" -- sh "$d/probe.sh" "$i" </dev/null \
			>>"$d/runs.out" 2>>"$d/runs.err" || true
		[ ! -e "$ws/ran.$i" ] || ran=$((ran + 1))
	done
	: >"$ws/stop"
	wait "$sp" || true
	diag "$i runs while swapping, $ran ran; $(cat "$d/tight.out")"
	assert_not_file_has_content "$d/runs.out" WRITABLE
	found=$(find "$ws" "$d/out1" -name 'pw.*' | head -3)
	[ -z "$found" ] || fail "hooks written: $found"
	# control: with the swapper gone the run works and the guard holds
	[ ! -L "$ws/child" ] || fail "the swapper left child a symlink"
	kb_expect 0 -- sh "$d/probe.sh" after
	assert_exists "$ws/ran.after"
	assert_not_file_has_content "$KB_OUT" WRITABLE
	assert_not_exists "$ws/child/.git/hooks/pw.after"
}
run_test "[F7] a host process exchanges a child repo with a symlink in a tight loop: no run sees a writable hooks dir under either name (control: the probe sees one outside, a run after works)" t_scan_race

# ============================================================================
# [F8] a config or session store the command could write is refused
# ============================================================================

# t_store KIND: the store lies in a writable root; the command plants a
# config or session file there (the store's parent renamed away); the next
# run must exit 125 and run nothing. The control: the same run with the
# store where the command cannot write it runs.
t_store() {
	ws_at "store-$1"
	V=$d/victim
	victim "$V"
	wr=
	case $1 in
	*-wroot) wr="-w $d/other" ;;
	esac
	S=ses_$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
	case $1 in
	config-ws) store=$ws content="[caches]\ncache = persisted\n[sandbox]\nwrite_paths = $V\n" ;;
	config-ws-deep) store=$ws/etc/cfg content="[sandbox]\nnetwork = on\n[workspace]\npath = $ws\nwrite_paths = $V\n" ;;
	config-ws-dot) store=$ws/.xdg content="[sandbox]\nwrite_paths = $V\n" ;;
	config-wroot) store=$d/other/cfg content="[sandbox]\nwrite_paths = $V\n" ;;
	session-ws) store=$ws/.run content="[grant]\nunconfined = on\n" ;;
	session-wroot) store=$d/other/run content="[grant]\nwrite_paths = $V\nnetwork = on\n" ;;
	esac
	where=ws
	[ -z "$wr" ] || where=$d/other
	case $1 in
	config-*)
		XDG_CONFIG_HOME=$store
		export XDG_CONFIG_HOME
		file=$store/kinbox/config.ini ;;
	session-*)
		XDG_RUNTIME_DIR=$store
		KINBOX_SESSION=$S
		export XDG_RUNTIME_DIR KINBOX_SESSION
		file=$store/kinbox/sessions/$S.ini
		mkdir -p "$store/kinbox/sessions"
		chmod 700 "$store/kinbox" "$store/kinbox/sessions"
		: >"$file" ;;
	esac
	# the attack (a kinbox that already refuses this run is right too)
	# shellcheck disable=SC2086
	kbt $wr -- sh -c "{ mv '$store' '$store.old' || mv '$store/kinbox' '$store/kinbox.old'; } 2>/dev/null
		mkdir -p '$(dirname "$file")' && printf '%b' '$content' > '$file'"
	# what the attack leaves, also when that run was refused or failed
	if ! grep -q -e "$V" -e unconfined "$file" 2>/dev/null; then
		mkdir -p "$(dirname "$file")"
		printf '%b' "$content" >"$file"
	fi
	case $1 in
	config-*) line=$(store_line XDG_CONFIG_HOME "$store/kinbox" "$where") ;;
	session-*) line=$(store_line XDG_RUNTIME_DIR "$store/kinbox" "$where") ;;
	esac
	# shellcheck disable=SC2086
	kbt_refused "$line" $wr -- sh -c "touch '$ws/ran-refused'; echo pwned > '$V/file'"
	assert_victim "$V"
	XDG_CONFIG_HOME=$d/safe
	XDG_RUNTIME_DIR=$d/safe
	mkdir -p "$d/safe/kinbox/sessions"
	: >"$d/safe/kinbox/config.ini"
	: >"$d/safe/kinbox/sessions/$S.ini"
	# shellcheck disable=SC2086
	kbt_ok $wr -- sh -c "touch '$ws/ran-control'"
	assert_exists "$ws/ran-control"
}
run_test "[F8] XDG_CONFIG_HOME = the workspace, a planted [caches] + write_paths: 125, nothing run, victim unchanged" t_store config-ws
run_test "[F8] XDG_CONFIG_HOME deep in the workspace, planted network = on + a [workspace] grant: 125, nothing run" t_store config-ws-deep
run_test "[F8] XDG_CONFIG_HOME = ws/.xdg, planted write_paths: 125, nothing run" t_store config-ws-dot
run_test "[F8] XDG_CONFIG_HOME in a -w root, planted write_paths: 125, nothing run" t_store config-wroot
run_test "[F8] XDG_RUNTIME_DIR in the workspace, a planted session file with unconfined = on: 125, nothing run" t_store session-ws
run_test "[F8] XDG_RUNTIME_DIR in a -w root, a planted session grant (write_paths, network): 125, nothing run" t_store session-wroot

# ============================================================================
# [F9] kinbox's own lines are kinbox's
# ============================================================================

ESC=$(printf '\033')

# t_names KIND: a name the command chose (a hook, a repository, a gitlink)
# reaches a SECURITY line; the line holds it escaped, and no line of its
# own ("kinbox: FORGED ...") comes out of it
t_names() {
	ws_at "names-$1"
	case $1 in
	hook-newline)
		kbt_ok -- sh -c "git init -q . && h=\$(printf '.git/hooks/post-commit\nkinbox: FORGED all clear, nothing was planted') &&
			cp '$EVIL' \"\$h\" && chmod 755 \"\$h\"; touch ran" ;;
	hook-esc)
		kbt_ok -- sh -c "git init -q . && h=\$(printf '.git/hooks/pre-push\033]0;owned\007\033[2K\033[1A') &&
			cp '$EVIL' \"\$h\" && chmod 755 \"\$h\"; touch ran" ;;
	hook-cr)
		kbt_ok -- sh -c "git init -q . && h=\$(printf '.git/hooks/x\rkinbox: FORGED nothing planted\033[K') &&
			cp '$EVIL' \"\$h\" && chmod 755 \"\$h\"; touch ran" ;;
	repo-esc) # a child repository named by run 1, reported by run 2
		mkrepo "$ws"
		kbt_ok -- sh -c "git init -q \"\$(printf 'pkg\033[31m\nkinbox: FORGED')\""
		kbt_ok -- sh -c "echo ../x > \"\$(printf 'pkg\033[31m\nkinbox: FORGED')/.git/commondir\"; touch ran" ;;
	gitlink-esc) # a gitlink path in the index the command wrote
		mkrepo "$ws"
		kbt_ok -- sh -c "git init -q sub && git -C sub commit -q --allow-empty -m s &&
			n=\$(printf 'x\033[8my') && mkdir \"\$n\" && echo 'gitdir: ../sub/.git' > \"\$n/.git\" &&
			git update-index --add --cacheinfo \"160000,\$(git -C sub rev-parse HEAD),\$n\"; touch ran" ;;
	esac
	assert_exists "$ws/ran"
	assert_file_has_content "$KB_ERR" '^kinbox: SECURITY'
	assert_clean_kinbox_lines "$KB_ERR"
	assert_clean_lines "$KB_ERR"
}
run_test "[F9] a hook named 'post-commit<LF>kinbox: FORGED ...': reported, and no forged kinbox line" t_names hook-newline
run_test "[F9] a hook named with OSC and CSI sequences: reported with no raw ESC" t_names hook-esc
run_test "[F9] a hook named with CR + 'kinbox: FORGED': reported with no raw CR" t_names hook-cr
run_test "[F9] a child repo named 'pkg<ESC>[31m<LF>kinbox: FORGED' with a planted commondir: reported, no raw ESC, no forged line" t_names repo-esc
run_test "[F9] a gitlink path 'x<ESC>[8my' in the index, its .git a planted pointer: reported with no raw ESC" t_names gitlink-esc

# kinpolicy, as t51-decide.sh runs it
KP_OUT=$KB_T/kp.out
KP_ERR=$KB_T/kp.err
kp() {
	KP_RC=0
	timeout -k 2 20 "$KP" "$@" </dev/null >"$KP_OUT" 2>"$KP_ERR" || KP_RC=$?
}

# a denial whose path and argv hold ESC sequences: kinbox's line, kinpolicy
# show and kinpolicy pending print them escaped
t_denial_esc() {
	ws_at denial-esc
	XDG_STATE_HOME=$d/state
	export XDG_STATE_HOME
	p="$d/other/kb${ESC}[2J${ESC}]0;t${ESC}\\x"
	kbt -- sh -c 'touch ran; printf "sh: 1: cannot create %s: Read-only file system\n" "$1" >&2; exit 2' \
		sh "$p" "arg${ESC}[5m"
	assert_exists "$ws/ran"
	assert_file_has_content "$KB_ERR" '^kinbox: .*sbx_[0-9a-f]{16}'
	assert_clean_kinbox_lines "$KB_ERR"
	id=$(grep '^kinbox: ' "$KB_ERR" | grep -o 'sbx_[0-9a-f]*' | tail -n 1)
	[ -n "$id" ] || fail "no denial id"
	kp show "$id"
	assert_streq "$KP_RC" 0 "kinpolicy show"
	assert_file_has_content "$KP_OUT" "$id"
	assert_clean_lines "$KP_OUT" "$KP_ERR"
	kp pending
	assert_file_has_content "$KP_OUT" "$id"
	assert_clean_lines "$KP_OUT" "$KP_ERR"
}
run_test "[F9] a denial of a path with ESC sequences, argv with ESC: kinbox's line, kinpolicy show and pending hold no raw ESC" t_denial_esc

# a command that leaves the terminal in SGR 8 (concealed) and mid-line:
# on a terminal, kinbox's own line comes after a reset, on a line of its own
t_sgr_tail() {
	ws_at sgr
	timeout -k 2 40 "$PY" "$B/ptyrun.py" "$d/pty.out" "$KINBOX" -- sh -c \
		"touch ran; echo x > '$d/other/f'; printf 'hidden\033[8m' >&2; exit 1" </dev/null ||
		fail "the terminal run did not finish"
	assert_exists "$ws/ran"
	"$PY" - "$d/pty.out" <<'EOF' >&2 || fail "kinbox's line is hidden by the command's SGR state or starts mid-line"
import re, sys
out = open(sys.argv[1], "rb").read()
print(repr(out[-400:]))
at = out.rfind(b"\x1b[8m")
k = out.find(b"kinbox: ", at)
if at < 0 or k < 0:
    sys.exit("no SGR 8 or no kinbox line after it")
if not re.search(rb"\x1b\[(0|28)?m", out[at + 4:k]) or out[k - 1:k] not in (b"\n", b"\r"):
    sys.exit(1)
EOF
}
run_test "[F9] a command ending in ESC[8m mid-line, on a terminal: kinbox resets SGR and starts its line afresh" t_sgr_tail

# t_fake_denial KIND: the command prints a denial it never met; a kinbox
# line that suggests a grant says it was read from the command's stderr
t_fake_denial() {
	ws_at "fake-$1"
	HOME=$d/home
	export HOME
	mkdir -p "$HOME"
	echo "machine x" >"$HOME/.netrc"
	case $1 in
	unshare) msg='unshare failed: Operation not permitted' ;;
	store) msg="sh: 1: cannot create $HOME/.netrc: Read-only file system" ;;
	net) msg='curl: (7) Failed to connect to example.com port 443 after 0 ms: Network is unreachable' ;;
	esac
	kbt -- sh -c "touch ran; echo '$msg' >&2; exit 7"
	assert_exists "$ws/ran"
	grep -q -F -e "$msg" "$KB_ERR" || fail "the command's stderr was not relayed"
	! grep '^kinbox:' "$KB_ERR" | grep -e 'unconfined' -e 'retry with' | grep -v -q 'stderr' ||
		fail "kinbox presents a suggestion read from the command's own stderr as its own (the line does not say 'stderr'): $(grep '^kinbox:' "$KB_ERR")"
}
run_test "[F9] a fake 'unshare failed' on stderr: a kinbox line suggesting --unconfined says it was read from the command's stderr" t_fake_denial unshare
run_test "[F9] a fake EROFS on ~/.netrc (masked) on stderr: a kinbox --unconfined suggestion says it came from stderr" t_fake_denial store
run_test "[F9] a fake 'Network is unreachable' on stderr: a kinbox --net suggestion says it came from stderr" t_fake_denial net

# ============================================================================
# [F10] the strict gate does not call configured-program git commands read-only
# ============================================================================

# a repository whose config runs programs, as a command could leave it
cls_repo() {
	r=$(newdir cls-repo)/r
	[ ! -d "$r" ] || return 0
	mkrepo "$r"
	cd "$r"
	echo a >f.txt
	echo '*.txt diff=kb' >.gitattributes
	git add -A && git commit -q -m one
	echo b >>f.txt && git commit -q -am two
	echo c >>f.txt
	git config core.fsmonitor "$EVIL"
	git config diff.kb.command "$EVIL"
	git config diff.kb.textconv "$B/evil-cat"
}

# t_classify OPTS GIT-ARG...: classify and decide --mode strict on `git
# GIT-ARG...`: "safe"/ALLOW only for a command rewritten with every option
# in OPTS (comma-separated); the bare command does run a planted program
t_classify() {
	opts=$1
	shift
	cls_repo
	# the control: plain reads stay safe
	kp classify -- ls -la
	assert_streq "$(head -n 1 "$KP_OUT")" safe "classify ls -la"
	kp classify -- cat f.txt
	assert_streq "$(head -n 1 "$KP_OUT")" safe "classify cat f.txt"
	# why: the bare command runs what the repository's config names
	rm -f "$RAN"
	hgit "$r" "$@"
	[ -e "$RAN" ] || fail "test bug: 'git $*' ran nothing planted in $r"
	kp classify -- git "$@"
	assert_streq "$KP_RC" 0 "kinpolicy classify"
	v1=$(head -n 1 "$KP_OUT")
	cp "$KP_OUT" "$KB_T/classify.out"
	kp decide --mode strict --kind shell --command "git $*"
	assert_streq "$KP_RC" 0 "kinpolicy decide"
	v2=$(head -n 1 "$KP_OUT")
	for o in $(echo "$opts" | tr ',' ' '); do
		if [ "$v1" = safe ] && ! grep -q -F -e "$o" "$KB_T/classify.out"; then
			_show_file "$KB_T/classify.out"
			fail "classify calls 'git $*' safe as it is (no rewrite with $o)"
		fi
		if [ "$v2" = ALLOW ] && ! grep -q -F -e "$o" "$KP_OUT"; then
			_show_file "$KP_OUT"
			fail "decide --mode strict allows 'git $*' as it is (no rewrite with $o)"
		fi
	done
}
run_test "[F10] classify/decide strict: git status (runs core.fsmonitor, writes the index) is not safe as is" t_classify core.fsmonitor= status
run_test "[F10] classify/decide strict: git status -s is not safe as is" t_classify core.fsmonitor= status -s
run_test "[F10] classify/decide strict: git diff (diff drivers, textconv) is not safe as is" t_classify --no-ext-diff,--no-textconv diff
run_test "[F10] classify/decide strict: git diff HEAD~1 is not safe as is" t_classify --no-ext-diff,--no-textconv diff HEAD~1
run_test "[F10] classify/decide strict: git log -p (textconv) is not safe as is" t_classify --no-textconv log -p
run_test "[F10] classify/decide strict: git log --patch -1 is not safe as is" t_classify --no-textconv log --patch -1
run_test "[F10] classify/decide strict: git show (textconv) is not safe as is" t_classify --no-textconv show
run_test "[F10] classify/decide strict: git show HEAD~1 is not safe as is" t_classify --no-textconv show HEAD~1
run_test "[F10] classify/decide strict: git blame f.txt (textconv) is not safe as is" t_classify --no-textconv blame f.txt

# ============================================================================
# [F11] every config file git reads is guarded like .git/config (issue 28,
# finding 2): what include.path and includeIf.<condition>.path name, for
# every condition (the command can switch the branch) and at any depth,
# in a repository's config (the top one, a submodule's, a gitlinked one's,
# a linked worktree's config.worktree) or in the global config
# ============================================================================

# the planted config: core.fsmonitor runs $EVIL at the host's git status
printf '[core]\n\tfsmonitor = %s\n' "$EVIL" >"$B/evil.cfg"

# plant_at FILE...: the command's script (run in the workspace) that writes
# evil.cfg into each FILE every way it can try: append, replace, rename
# the file or its directory (but .git) away and make a new one, make the
# missing directories; each may fail
plant_at() {
	for _t in "$@"; do
		_dir=$(dirname "$_t")
		printf '%s\n' "cat '$B/evil.cfg' >>'$_t' 2>/dev/null
			{ rm -f '$_t' && cat '$B/evil.cfg' >'$_t'; } 2>/dev/null
			{ mv '$_t' '$_t.old' && cat '$B/evil.cfg' >'$_t'; } 2>/dev/null
			{ mkdir -p '$_dir' && cat '$B/evil.cfg' >'$_t'; } 2>/dev/null"
		case $_dir in
		. | .git) ;;
		*) printf '%s\n' "{ mv '$_dir' '$_dir.old' && mkdir -p '$_dir' && cat '$B/evil.cfg' >'$_t'; } 2>/dev/null" ;;
		esac
	done
	echo true
}

# benign FILE: an existing include with a harmless setting
benign() {
	mkdir -p "$(dirname "$1")"
	printf '[user]\n\tname = kinbox-test\n' >"$1"
}

# inc_setup KIND DIR: DIR made a repository (a plain directory for
# "global") whose config includes T (and T2), relative to DIR; sets gd,
# where the host's git runs (relative to DIR), and `before`, a command
# the command runs first
inc_setup() {
	_r=$2
	gd=. T2='' before=:
	case $1 in
	global) mkdir -p "$_r" ;;
	*) mkrepo "$_r" ;;
	esac
	cfg=$_r/.git/config
	case $1 in
	rel) # a relative include: a file in a directory of the worktree
		T=conf/x.inc
		benign "$_r/$T"
		printf '[include]\n\tpath = ../conf/x.inc\n' >>"$cfg" ;;
	absent) # a file that does not exist yet; one two directories down
		T=.gitconfig.local T2=etc/sub/x.inc
		printf '[include]\n\tpath = ../.gitconfig.local\n\tpath = ../etc/sub/x.inc\n' >>"$cfg" ;;
	onbranch) # false at the scan: the command switches to that branch
		T=conf/branch.inc before="git checkout -q -b evil"
		benign "$_r/$T"
		printf '[includeIf "onbranch:evil"]\n\tpath = ../conf/branch.inc\n' >>"$cfg" ;;
	conds) # gitdir/i: (in capitals, an absolute path) and hasconfig:
		T=tools/ci.inc T2=h.inc
		printf '[includeIf "gitdir/i:%s/"]\n\tpath = %s/tools/ci.inc\n' \
			"$(printf '%s' "$_r" | tr '[:lower:]' '[:upper:]')" "$_r" >>"$cfg"
		printf '[remote "origin"]\n\turl = https://example.invalid/r.git\n[includeIf "hasconfig:remote.*.url:https://example.invalid/**"]\n\tpath = ../h.inc\n' >>"$cfg" ;;
	syntax) # [INCLUDE] PATH, a quoted value with an escaped quote and a
		# comment; a value continued on the next line
		T='q"x.inc' T2=conf/cont.inc
		printf '[INCLUDE]\n\tPath = "../q\\"x.inc" ; a comment\n[includeIf "gitdir:/"]\n\tpath = ../conf/\\\ncont.inc\n' >>"$cfg" ;;
	nested) # .git/config -> $_r/conf/a.inc -> $_r/lib/b.inc -> $_r/lib/c/d.inc
		T=lib/c/d.inc
		mkdir -p "$_r/conf" "$_r/lib"
		printf '[include]\n\tpath = ../lib/b.inc\n' >"$_r/conf/a.inc"
		printf '[include]\n\tpath = c/d.inc\n' >"$_r/lib/b.inc"
		printf '[include]\n\tpath = ../conf/a.inc\n' >>"$cfg" ;;
	ingit) # a relative include is relative to .git, which stays writable
		T=.git/extra.inc
		printf '[include]\n\tpath = extra.inc\n' >>"$cfg" ;;
	home) # ~/../ws/... in the repository's config; ~/.gitconfig (the
		# global config) with an include relative to ~
		T=conf/h.inc T2=dot/git.inc
		benign "$_r/$T"
		benign "$_r/$T2"
		printf '[include]\n\tpath = ~/../%s/conf/h.inc\n' "$(basename "$_r")" >>"$cfg"
		printf '[include]\n\tpath = ../%s/dot/git.inc\n' "$(basename "$_r")" >>"$HOME/.gitconfig" ;;
	global) # no repository in the workspace: the global config includes
		# a file in it, which the host's git reads in any repository
		T=tools/git.inc gd=$_r.other
		benign "$_r/$T"
		mkrepo "$_r.other"
		printf '[include]\n\tpath = %s/tools/git.inc\n' "$_r" >>"$HOME/.gitconfig" ;;
	submodule) # a submodule's config, an include by .. from its git dir
		# .git/modules/a/b/c/sm to the worktree's top
		T=conf/sm.inc gd=a/b/c/sm
		mkrepo "$_r.src"
		git -C "$_r" submodule add -q "$_r.src" a/b/c/sm >/dev/null 2>&1
		git -C "$_r" commit -q -m submodule
		printf '[include]\n\tpath = ../../../../../../conf/sm.inc\n' >>"$_r/.git/modules/a/b/c/sm/config" ;;
	gitlink) # a repository gitlinked at a/b/c/repo, a file of its worktree
		T=a/b/c/repo/inc/n.inc gd=a/b/c/repo
		mkrepo "$_r/a/b/c/repo"
		benign "$_r/$T"
		git -C "$_r" add a/b/c/repo
		git -C "$_r" commit -q -m gitlink
		printf '[include]\n\tpath = ../inc/n.inc\n' >>"$_r/a/b/c/repo/.git/config" ;;
	worktree) # a linked worktree's config.worktree
		T=conf/w.inc gd=wt
		git -C "$_r" worktree add -q "$_r/wt" 2>/dev/null
		git -C "$_r" config extensions.worktreeConfig true
		printf '[include]\n\tpath = ../../../conf/w.inc\n' >"$_r/.git/worktrees/wt/config.worktree" ;;
	esac
}

# t_include KIND: the include's file is written every way a command can;
# after the run the host's git status, diff, log and commit run nothing
# planted, the file is as it was, and the command's ordinary writes (in
# the workspace, in the include's directory) landed. The control: the
# same script run on the host arms the trigger.
t_include() {
	ws_at "inc-$1"
	HOME=$d/home
	GIT_CONFIG_GLOBAL=$HOME/.gitconfig
	mkdir -p "$HOME"
	: >"$GIT_CONFIG_GLOBAL"
	export HOME GIT_CONFIG_GLOBAL
	inc_setup "$1" "$d/control"
	plant=$(plant_at "$T" ${T2:+"$T2"})
	(cd "$d/control" && sh -c "$before; $plant") >/dev/null 2>&1 ||
		fail "the test's own plant failed on the host"
	case $gd in /*) g=$gd ;; *) g=$d/control/$gd ;; esac
	rm -f "$RAN"
	hgit "$g" status
	[ -e "$RAN" ] || fail "test bug: the host's git status in $g runs nothing the $1 plant writes"
	: >"$GIT_CONFIG_GLOBAL"
	inc_setup "$1" "$ws"
	for f in "$T" $T2; do
		[ ! -e "$ws/$f" ] || cp "$ws/$f" "$d/orig-$(echo "$f" | tr '/"' '__')"
	done
	kbt_ok -- sh -c "$before; echo ordinary >ordinary.txt; touch ran; $plant"
	assert_exists "$ws/ran"
	assert_file_has_content "$ws/ordinary.txt" '^ordinary$'
	case $gd in /*) g=$gd ;; *) g=$ws/$gd ;; esac
	assert_git_runs_nothing "$g"
	for f in "$T" $T2; do
		o=$d/orig-$(echo "$f" | tr '/"' '__')
		if [ -e "$o" ]; then
			assert_files_equal "$o" "$ws/$f"
		elif [ -e "$ws/$f" ] || [ -L "$ws/$f" ]; then
			fail "$ws/$f, absent before the run, is there after it"
		fi
	done
}
run_test "[F11] include.path ../conf/x.inc (exists): appended, replaced, its directory renamed away: nothing runs at the host's git" t_include rel
run_test "[F11] include.path of files that do not exist (../.gitconfig.local, ../etc/sub/x.inc): the command cannot create them" t_include absent
run_test "[F11] includeIf onbranch:evil (false at the scan): the command writes the file and checks out evil; nothing runs" t_include onbranch
run_test "[F11] includeIf gitdir/i: (an absolute path) and hasconfig:remote.*.url: files the command cannot create" t_include conds
run_test "[F11] [INCLUDE] PATH = \"../q\\\"x.inc\" ; comment, and a path continued on the next line: both guarded" t_include syntax
run_test "[F11] nested includes (.git/config -> conf/a.inc -> lib/b.inc -> lib/c/d.inc): the innermost is guarded" t_include nested
run_test "[F11] include.path extra.inc, in .git (which stays writable): the command cannot create .git/extra.inc" t_include ingit
run_test "[F11] include.path ~/../ws/conf/h.inc, and ~/.gitconfig including ../ws/dot/git.inc: both guarded" t_include home
run_test "[F11] the global config includes a file in a workspace with no repository: git in another repository runs nothing" t_include global
run_test "[F11] a submodule at a/b/c/sm whose config includes ../../../../../../conf/sm.inc: guarded" t_include submodule
run_test "[F11] a repository gitlinked at a/b/c/repo whose config includes its inc/n.inc: guarded" t_include gitlink
run_test "[F11] a linked worktree's config.worktree includes ../../../conf/w.inc: guarded" t_include worktree

# t_include_unsafe KIND: an include kinbox cannot hold: the run is refused
# (125, one line naming it), nothing runs, within the bound
t_include_unsafe() {
	ws_at "incu-$1" repo
	cfg=$ws/.git/config
	case $1 in
	symlink) # a symlink in the workspace, to a file in it
		benign "$ws/conf/real.inc"
		ln -s real.inc "$ws/conf/x.inc"
		printf '[include]\n\tpath = ../conf/x.inc\n' >>"$cfg"
		want="include path '../conf/x.inc' leads to $ws/conf/x.inc, a symbolic link in the writable directory $ws" ;;
	fifo) # a FIFO: never opened, never waited for
		mkdir -p "$ws/conf"
		mkfifo "$ws/conf/x.inc"
		printf '[includeIf "gitdir:/"]\n\tpath = ../conf/x.inc\n' >>"$cfg"
		want="include path '../conf/x.inc' leads to $ws/conf/x.inc, a FIFO in the writable directory $ws" ;;
	deep) # eleven includes deep: more than git follows
		i=1
		while [ "$i" -le 11 ]; do
			printf '[include]\n\tpath = d%d.inc\n' $((i + 1)) >"$ws/.git/d$i.inc"
			i=$((i + 1))
		done
		printf '[include]\n\tpath = d1.inc\n' >>"$cfg"
		want="include path 'd11.inc' leads to $ws/.git/d11.inc, nested more than 10 includes deep" ;;
	prefix) # %(prefix)/: where git is installed
		printf '[include]\n\tpath = %%(prefix)/etc/kb.inc\n' >>"$cfg"
		want="include path '%(prefix)/etc/kb.inc': git takes %(prefix) from where git itself is installed" ;;
	esac
	kbt -- sh -c "touch '$ws/ran-refused'"
	assert_not_exists "$ws/ran-refused"
	[ "$KB_RC" = 125 ] || { _show_file "$KB_ERR"; fail "kinbox exited $KB_RC, expected 125 (refuse, run nothing)"; }
	assert_one_kinbox_line "$KB_ERR"
	grep -q -F -e "$want" "$KB_ERR" || { _show_file "$KB_ERR"; fail "the line does not say: $want"; }
	assert_clean_kinbox_lines "$KB_ERR"
}
run_test "[F11] an include that is a symlink in the workspace: refused (125) with one line, nothing run" t_include_unsafe symlink
run_test "[F11] an includeIf that is a FIFO in the workspace: refused at once (125), nothing run" t_include_unsafe fifo
run_test "[F11] includes nested eleven deep: refused (125) with one line, nothing run" t_include_unsafe deep
run_test "[F11] include.path %(prefix)/...: refused (125) with one line, nothing run" t_include_unsafe prefix


# ============================================================================
# [F12] issue 35: a repository planted anywhere in a big workspace
# ============================================================================
# Workspaces of 1,000, 30,000 and 100,000 directories (tests/helpers/
# mktree.py: wide, node_modules/pP/dD, and deep, src/cP/l0/.../l39), each
# made once. In each the command plants a repository with a pre-commit hook
# and core.fsmonitor: at the deepest level, at a shallow one inside
# node_modules, by renaming a directory the test prepared before the run to
# .git, and as a .git file pointing to such a repository outside the
# workspace. Judged from outside: the host's git status, diff, log and
# commit there run nothing; the command ran; a run in the biggest prints
# nothing (no note that a part was not checked).
# KB_BIG_DIR (tests/run-integration.sh gives each user's bwrap and landlock
# passes one): where the workspaces are made, and found again by the next
# run of this script, which takes out what the run before planted
# (big_reuse) rather than making 131,000 directories again (and removing
# them: about 20 s a pass). Default: in $KB_T, made by each run.
BIG=${KB_BIG_DIR:-$KB_T/big}
DEEPEST=src/c0/$(i=0 && while [ $i -lt 40 ]; do printf 'l%d/' $i && i=$((i + 1)); done)

# big_reuse N: $d was made by another run of this script. Everything its
# tests plant is known (below, and the repository elsewhere, which each run
# makes anew): it goes, and the directories it was planted in are empty
# again, as mktree.py made them; the workspace's .git is the copy made with
# it. Then nothing in $d may be newer than its
# making ($d/.made); when anything is (or .made is missing: the making was
# cut short), $d goes whole and is made again.
big_reuse() {
	_ok=1
	if [ -f "$d/.made" ]; then
		rm -rf "$ws/$DEEPEST/r" "$ws/$DEEPEST/s" "$ws/node_modules/p1/d1/r" \
			"$ws/node_modules/p2/d2/prep" "$ws/node_modules/p3/d3/g" \
			"$ws/flood" "$ws"/ran-* "$BIG/prep-$1" "$d/elsewhere"
		# the host's git in a plant that is gone finds the workspace's
		# repository (and writes its index): it is put back as made
		rm -rf "$ws/.git" && cp -a "$d/git.made" "$ws/.git"
		for _p in "$DEEPEST" node_modules/p1/d1 node_modules/p2/d2 node_modules/p3/d3; do
			_in=$(find "$ws/$_p" -mindepth 1 -maxdepth 1 | head -n 5)
			if [ -n "$_in" ]; then
				echo "in $ws/$_p: $_in"
				_ok=0
			fi
			touch -r "$d/.made" "$ws/$_p"
		done
		_top=$(find "$ws" -mindepth 1 -maxdepth 1 -printf '%f\n' | LC_ALL=C sort | tr '\n' ' ')
		if [ "$_top" != ".git node_modules src " ]; then
			echo "in $ws: $_top"
			_ok=0
		fi
		touch -r "$d/.made" "$ws" "$d"
		_new=$(find "$d" -newer "$d/.made" ! -path "$d/.owner" | head -n 5)
		if [ -n "$_new" ]; then
			echo "newer than its making: $_new"
			_ok=0
		fi
	else
		_ok=0
	fi
	if [ "$_ok" = 1 ]; then
		echo "the $1-directory workspace of an earlier run, its plants taken out"
	else
		echo "the $1-directory workspace of an earlier run changed beyond its plants: made again"
		rm -rf "$d"
	fi
}

# big_ws N: $ws is a repository with about N directories below it
big_ws() {
	d=$BIG/$1 ws=$BIG/$1/ws
	if [ -e "$d" ] && [ "$(cat "$d/.owner" 2>/dev/null)" != "$KB_T" ]; then
		big_reuse "$1"
	fi
	if [ ! -d "$ws/node_modules" ]; then
		rm -rf "$d" && mkdir -p "$d" && mkrepo "$ws"
		"$PY" "$KB_TESTS_DIR/helpers/mktree.py" "$ws" "$1"
		cp -a "$ws/.git" "$d/git.made"
		: >"$d/.made"
	fi
	if [ ! -d "$d/elsewhere" ]; then
		# the repository a planted .git file points to, outside
		git init -q "$d/elsewhere"
		git -C "$d/elsewhere" config core.fsmonitor "$EVIL"
	fi
	echo "$KB_T" >"$d/.owner"
	cd "$ws"
}

# plant_sh DIR: the command line that makes DIR a repository whose hook
# and core.fsmonitor run $EVIL
plant_sh() {
	printf '%s' "git init -q '$1' && git -C '$1' config core.fsmonitor '$EVIL' && printf '#!/bin/sh\\n%s hook\\n' '$EVIL' >'$1/.git/hooks/pre-commit' && chmod 755 '$1/.git/hooks/pre-commit'"
}

# the positive controls, on the host: each plant arms git there
t_big_control() {
	c=$(newdir big-control)
	sh -c "$(plant_sh "$c/r")"
	mkdir "$c/g" && printf 'gitdir: %s\n' "$BIG/1000/elsewhere/.git" >"$c/g/.git"
	big_ws 1000
	for r in "$c/r" "$c/g"; do
		rm -f "$RAN"
		hgit "$r" status
		[ -e "$RAN" ] || fail "test bug: git status in $r does not run what was planted"
	done
	rm -f "$RAN"
	hgit "$c/r" commit -q --allow-empty -m x
	grep -q hook "$RAN" || fail "test bug: git commit in $c/r does not run the planted hook"
}
run_test "[F12] control: on the host, a planted repository (hook, core.fsmonitor) and a .git file run code at git status/commit" t_big_control

# t_big N KIND: the command plants KIND in a workspace of N directories
t_big() {
	big_ws "$1"
	case $2 in
	deep) loc=$DEEPEST/r script=$(plant_sh "$DEEPEST/r") ;;
	shallow) loc=node_modules/p1/d1/r script=$(plant_sh node_modules/p1/d1/r) ;;
	rename)
		# prepared before the run, named so that git ignores it
		loc=node_modules/p2/d2/prep
		mkdir -p "$BIG/prep-$1" && sh -c "$(plant_sh "$BIG/prep-$1/r")"
		mkdir "$ws/$loc" && mv "$BIG/prep-$1/r/.git" "$ws/$loc/notgit"
		script="mv $loc/notgit $loc/.git" ;;
	gitfile)
		loc=node_modules/p3/d3/g
		script="mkdir $loc && printf 'gitdir: %s\\n' '$d/elsewhere/.git' >$loc/.git" ;;
	esac
	kbt_ok -- sh -c "$script && touch '$ws/ran-$2'"
	assert_exists "$ws/ran-$2"
	[ "$2" = gitfile ] || [ -f "$ws/$loc/.git/HEAD" ] ||
		fail "the repository the command made in $loc is gone"
	if grep -q 'note:' "$KB_ERR"; then
		_show_file "$KB_ERR"
		fail "kinbox printed a note: a part of the workspace was not checked"
	fi
	assert_git_runs_nothing "$ws/$loc"
}
for n in 1000 30000 100000; do
	run_test "[F12] $n directories: a repository planted at the deepest level (41 down) runs nothing at the host's git" t_big $n deep
	run_test "[F12] $n directories: a repository planted in node_modules/p1/d1 runs nothing at the host's git" t_big $n shallow
	run_test "[F12] $n directories: a directory prepared before the run renamed to .git runs nothing at the host's git" t_big $n rename
	run_test "[F12] $n directories: a .git file pointing to a repository outside runs nothing at the host's git" t_big $n gitfile
done

# t_big_stalled: the watch's queue is the kernel's bounded one; kinbox's
# loop reads it as the run goes, and is held up while the caller does not
# read the command's stdout (relayed: a pipe). The command floods stdout,
# makes 40,000 files meanwhile (past the queue's 16,384 events) and plants
# a repository at the deepest level: the overflow makes the audit walk the
# workspace, which finds it.
t_big_stalled() {
	# the watch is root's (as a user the walk is the whole audit, and
	# the other runs here cover it); the landlock pass runs the same
	# watch
	if [ "$(id -u)" != 0 ] || [ "$KB_BACKEND" = landlock ]; then
		skip_other_pass "the fanotify watch runs as root; the root pass under bwrap checks its overflow"
		return
	fi
	big_ws 30000
	rm -rf "$ws/flood"
	{ timeout -k 5 "$KB_TMO" "$KINBOX" -- sh -c "mkdir flood && (cd flood && seq 1 40000 | xargs touch) & head -c 8000000 /dev/zero; wait; $(plant_sh "$DEEPEST/s") && touch '$ws/ran-stalled'" </dev/null 2>"$KB_ERR"; } |
		{ sleep 2; wc -c >"$KB_OUT"; }
	assert_streq "$(tr -d ' ' <"$KB_OUT")" 8000000 "the bytes the caller read"
	assert_exists "$ws/ran-stalled"
	[ "$(ls "$ws/flood" | wc -l)" -eq 40000 ] || fail "the command did not make its 40,000 files"
	[ -f "$ws/$DEEPEST/s/.git/HEAD" ] || fail "the repository the command made is gone"
	assert_git_runs_nothing "$ws/$DEEPEST/s"
	rm -rf "$ws/flood"
}
run_test "[F12] 30000 directories: a repository planted while the caller stops reading stdout (the watch's queue overflows) runs nothing at the host's git" t_big_stalled

t_big_quiet() {
	big_ws 100000
	kbt_ok -- sh -c "touch '$ws/ran-quiet'"
	assert_streq "$KB_RC" 0 "kinbox's status"
	assert_exists "$ws/ran-quiet"
	if [ -s "$KB_ERR" ]; then
		_show_file "$KB_ERR"
		fail "a run that plants nothing in 100,000 directories printed something"
	fi
}
run_test "[F12] 100000 directories: a run that plants nothing prints nothing (no note)" t_big_quiet

# plant_bare_sh DIR: the command line that makes DIR a bare repository
# (no .git: git finds DIR itself, safe.bareRepository being "all") whose
# core.sshCommand runs $EVIL at a fetch from its ssh remote
plant_bare_sh() {
	printf '%s' "git init -q --bare '$1' && git -C '$1' config core.sshCommand '$EVIL ssh' && git -C '$1' remote add origin ssh://kinbox-test.invalid/x"
}

# t_bare: a bare repository is a repository too. Planted in node_modules
# at once, and made in two runs (the first leaves HEAD, objects and an
# armed config but no refs, which is no repository yet; the second only
# makes refs): judged from outside by the host's git fetch in each, with
# the same plants made on the host as the positive control.
t_bare() {
	w=$(newdir bare) c=$(newdir bare-control)
	mkrepo "$w" && mkdir -p "$w/node_modules/p7/d7"
	sh -c "$(plant_bare_sh "$c/whole")"
	rm -f "$RAN"
	hgit "$c/whole" fetch -q origin
	[ -e "$RAN" ] || fail "test bug: git fetch in a planted bare repository does not run its core.sshCommand"
	cd "$w" || return
	kbt_ok -- sh -c "$(plant_bare_sh node_modules/p7/d7/evil.git) && touch '$w/ran-bare'"
	assert_exists "$w/ran-bare"
	assert_exists "$w/node_modules/p7/d7/evil.git/HEAD"
	assert_file_has_content "$KB_ERR" "SECURITY"
	assert_git_runs_nothing "$w/node_modules/p7/d7/evil.git" "fetch -q origin"
	kbt_ok -- sh -c "$(plant_bare_sh part) && mkdir keep && mv part/HEAD part/config part/objects keep/ && rm -rf part && mv keep part && touch '$w/ran-part'"
	assert_exists "$w/ran-part"
	kbt_ok -- sh -c "mkdir -p part/refs/heads && touch '$w/ran-refs'"
	assert_exists "$w/ran-refs"
	assert_exists "$w/part/refs/heads"
	assert_git_runs_nothing "$w/part" "fetch -q origin"
}
run_test "[F12] a bare repository planted in node_modules, and one completed by a second run (only refs/ made), run nothing at the host's git fetch" t_bare

# t_deeper: 300 levels down (deeper than a walk that holds descriptors
# per level would go): the plant is found, and nothing is noted
t_deeper() {
	w=$(newdir deeper)
	mkrepo "$w"
	rel=$("$PY" -c 'print("/".join("k%d" % i for i in range(300)))')
	(cd "$w" && mkdir -p "$rel") || { fail "test bug: mkdir -p of 300 levels"; return; }
	cd "$w" || return
	kbt_ok -- sh -c "$(plant_sh "$rel/r") && touch '$w/ran-deeper'"
	assert_exists "$w/ran-deeper"
	[ -f "$w/$rel/r/.git/HEAD" ] || fail "the repository the command made is gone"
	if grep -q 'note:' "$KB_ERR"; then
		_show_file "$KB_ERR"
		fail "kinbox printed a note: a part of the workspace was not checked"
	fi
	assert_git_runs_nothing "$w/$rel/r"
}
run_test "[F12] a repository planted 300 levels down runs nothing at the host's git, and nothing is noted" t_deeper

done_testing
