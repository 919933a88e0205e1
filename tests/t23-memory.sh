#!/bin/sh
# tests/t23-memory.sh — the sandbox's memory is bounded by one budget
# (issue 28): every tmpfs of a bwrap sandbox (/tmp, /dev/shm, /dev, the
# masks, the ephemeral caches' overlays) is sized and inode-limited within
# --memory, so a write past it fails with ENOSPC inside instead of taking
# the host's memory. Each checked from outside with a positive control in
# the same test:
#   1. with --memory 64M the command fills /tmp, /dev/shm and an ephemeral
#      cache until ENOSPC and holds the data while the test reads the
#      host's /proc/meminfo: Shmem rose by about what it holds (control:
#      the measurement sees it) and by no more than the budget, MemAvailable
#      fell by no more than the budget and some slack; a small write before
#      succeeded;
#   2. empty files in /tmp and /dev/shm until ENOSPC (the inode limits),
#      and writes into /dev and a mask (/run) stop at 64 KiB;
#   3. --dry-run, memory = in the config, a project's memory = (lowers,
#      never raises), bad values (exit 125, one line, nothing runs), and
#      --status's default.
# The landlock backend makes no tmpfs (kinbox(1)): this suite is the bwrap
# backend's, and skips itself where kinbox runs the landlock backend.
#
# Run: sh tests/t23-memory.sh (TAP), or all suites: sh tests/run-integration.sh
# shellcheck disable=SC2317,SC2016,SC2164
# SC2317: the t_* bodies are called through run_test.
# SC2016: single-quoted $... is meant for the shell inside the sandbox.
# SC2164: lib.sh sets -e (test bodies run under set -e): a failed cd fails.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

# never the caller's stores; a home of the test's own (its ~/.npm is the
# ephemeral cache written below)
XDG_CONFIG_HOME=$KB_T/config
XDG_STATE_HOME=$KB_T/state
XDG_RUNTIME_DIR=$KB_T/run
mkdir -p "$XDG_CONFIG_HOME/kinbox" "$XDG_STATE_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
export XDG_CONFIG_HOME XDG_STATE_HOME XDG_RUNTIME_DIR
HOME=$KB_T/home
mkdir -p "$HOME/.npm"
echo host >"$HOME/.npm/warm"
export HOME
unset KINBOX_SESSION KINBOX_JSON_FD || true

if [ ! -x "$KINBOX" ]; then
	tap_not_ok "kinbox binary $KINBOX exists (build it: make all)"
	done_testing
fi
mkdir "$KB_T/preflight"
if ! (cd "$KB_T/preflight" && "$KINBOX" -- true) >"$KB_T/preflight.log" 2>&1; then
	diag "$(cat "$KB_T/preflight.log")"
	skip_all "kinbox cannot set up a sandbox on this host"
fi
if [ "$KB_BACKEND" = landlock ] ||
	(cd "$KB_T/preflight" && "$KINBOX" --dry-run -- true) 2>/dev/null |
	grep -q '^# backend: landlock'; then
	skip_all "kinbox runs the landlock backend here, which makes no tmpfs to bound (kinbox(1), --memory)"
fi
OVERLAY=0
if (cd "$KB_T/preflight" && "$KINBOX" --dry-run -- true) |
	grep -q 'copy-on-write overlay'; then
	OVERLAY=1
fi
diag "kinbox: $KINBOX; uid $(id -u); kernel $(uname -r); overlay $OVERLAY"

MiB=1048576
# meminfo FIELD: the host's /proc/meminfo FIELD in bytes
meminfo() {
	echo $(($(awk -v f="$1:" '$1 == f { print $2 }' /proc/meminfo) * 1024))
}

# ============================================================================
# 1. the data: /tmp, /dev/shm, an ephemeral cache, filled and held
# ============================================================================

# the command: a small write first (the control), then 128 MiB into each
# place, each until ENOSPC; the sizes reached and dd's words go to the
# workspace, then it holds the data until the test says release
FILL='set -u
head -c 65536 /dev/zero >/tmp/small && echo small=ok >result
for d in /tmp /dev/shm $CACHE; do
	rc=0
	dd if=/dev/zero of="$d/fill" bs=1M count=128 2>>dd.err || rc=$?
	echo "$d rc=$rc size=$(stat -c %s "$d/fill")" >>result
done
: >held
i=0
while [ ! -e release ] && [ "$i" -lt 600 ]; do sleep 0.05; i=$((i + 1)); done'

t_fill_held() {
	ws=$(newdir fill)
	cd "$ws"
	cache=
	[ "$OVERLAY" = 1 ] && cache=$HOME/.npm
	budget=$((64 * MiB))
	avail0=$(meminfo MemAvailable)
	shmem0=$(meminfo Shmem)
	CACHE=$cache "$KINBOX" --memory 64M --keep-env CACHE -- sh -c "$FILL" \
		>"$KB_T/fill.out" 2>"$KB_T/fill.err" &
	kpid=$!
	bg_register "$kpid"
	if ! poll_while_running "$kpid" "$ws/held" 300; then
		_show_file "$KB_T/fill.err"
		fail "the command never held its data"
	fi
	# the data is there now, in the sandbox's tmpfs mounts: the host's
	# view, five times in half a second, the least change kept (other
	# processes of the host come and go)
	best_avail=
	best_shmem=
	for _ in 1 2 3 4 5; do
		a=$((avail0 - $(meminfo MemAvailable)))
		s=$(($(meminfo Shmem) - shmem0))
		if [ -z "$best_avail" ] || [ "$a" -lt "$best_avail" ]; then best_avail=$a; fi
		if [ -z "$best_shmem" ] || [ "$s" -lt "$best_shmem" ]; then best_shmem=$s; fi
		sleep 0.1
	done
	: >"$ws/release"
	rc=0
	wait "$kpid" || rc=$?
	[ "$rc" = 0 ] || { _show_file "$KB_T/fill.err"; fail "kinbox exited $rc"; }
	cat "$ws/result"
	diag "MemAvailable fell by $((best_avail / MiB)) MiB, Shmem rose by $((best_shmem / MiB)) MiB; budget $((budget / MiB)) MiB"
	# the control: the small write, and what each fill reached
	assert_file_has_content "$ws/result" '^small=ok$'
	held=0
	nplaces=0
	for d in /tmp /dev/shm $cache; do
		nplaces=$((nplaces + 1))
		line=$(grep "^$d rc=" "$ws/result") || fail "no result for $d"
		size=${line##*size=}
		case $line in
		*" rc=0 "*) fail "$d: 128 MiB went in whole (no bound): $line" ;;
		esac
		[ "$size" -gt $((MiB / 2)) ] || fail "$d: only $size bytes went in"
		held=$((held + size))
	done
	[ "$(grep -c 'No space left on device' "$ws/dd.err")" -eq "$nplaces" ] ||
		{ _show_file "$ws/dd.err"; fail "not every fill ended with ENOSPC"; }
	[ "$held" -le "$budget" ] || fail "the sandbox held $held bytes, more than the budget $budget"
	[ "$(grep '^/tmp ' "$ws/result" | sed 's/.*size=//')" -ge $((20 * MiB)) ] ||
		fail "/tmp held less than 20 MiB of a 64 MiB budget"
	# the control of the measurement: the host sees the data as Shmem
	[ "$best_shmem" -ge $((held - 8 * MiB)) ] ||
		fail "Shmem rose by $best_shmem bytes only, for $held held: the measurement does not see the sandbox's tmpfs"
	[ "$best_shmem" -le $((budget + 16 * MiB)) ] ||
		fail "Shmem rose by $best_shmem bytes, more than the budget (+16 MiB)"
	[ "$best_avail" -le $((budget + 128 * MiB)) ] ||
		fail "MemAvailable fell by $best_avail bytes, more than the budget (+128 MiB)"
	# nothing of it outlived the run: the host's cache as it was
	assert_streq "$(cat "$HOME/.npm/warm")" host
	assert_not_exists "$HOME/.npm/fill"
}
run_test "--memory 64M: /tmp, /dev/shm and an ephemeral cache each filled until ENOSPC; while the sandbox holds the data the host's Shmem rose by what it holds (control) and no more than the budget, MemAvailable fell by no more than the budget + 128 MiB; a small write before succeeded" t_fill_held

# ============================================================================
# 2. inodes, /dev, a mask
# ============================================================================

# empty files in $1 until one fails (at most $2): "N <error>"
FILES='mkdir -p "$1/d"
i=0
while [ "$i" -lt "$2" ]; do
	if ! err=$( { true >"$1/d/f$i"; } 2>&1); then
		echo "$i $err"
		exit 0
	fi
	i=$((i + 1))
done
echo "$i none"'

t_inodes() {
	ws=$(newdir inodes)
	cd "$ws"
	for d in /tmp /dev/shm; do
		kb_expect 0 --memory 64M -- sh -c "$FILES" sh "$d" 40000
		n=$(cut -d' ' -f1 "$KB_OUT")
		diag "$d: $(cat "$KB_OUT")"
		assert_file_has_content "$KB_OUT" 'No space left on device'
		# the control: files were made, up to the limit --dry-run names
		[ "$n" -ge 500 ] || fail "$d: only $n empty files"
		[ "$n" -lt 40000 ] || fail "$d: 40000 empty files and no limit"
	done
	kb_expect 0 --dry-run --memory 64M -- true
	assert_file_has_content "$KB_OUT" '^# memory: every tmpfs of the sandbox is sized within the budget .*/tmp [0-9.]+ MiB and [0-9]+ inodes'
}
run_test "--memory 64M: empty files in /tmp and in /dev/shm until ENOSPC, a few thousand (control: more than 500 were made), never 40000" t_inodes

t_dev_and_masks() {
	ws=$(newdir devmask)
	cd "$ws"
	[ -d /run ] || skip_test "no /run here: no mask to fill"
	kb_expect 0 --memory 64M -- sh -c '
		for f in /dev/fill /run/fill; do
			rc=0
			dd if=/dev/zero of=$f bs=64K count=16 2>>dd.err || rc=$?
			echo "$f rc=$rc size=$(stat -c %s $f)"
		done'
	cat "$KB_OUT"
	for f in /dev/fill /run/fill; do
		line=$(grep "^$f rc=" "$KB_OUT") || fail "no result for $f"
		case $line in
		*" rc=0 "*) fail "$f: 1 MiB went in whole: $line" ;;
		esac
		size=${line##*size=}
		[ "$size" -le 65536 ] || fail "$f: $size bytes, more than 64 KiB"
	done
	[ "$(grep -c 'No space left on device' "$ws/dd.err")" -eq 2 ] ||
		{ _show_file "$ws/dd.err"; fail "not both ended with ENOSPC"; }
	# the control: /dev is writable, a small file goes in
	kb_expect 0 --memory 64M -- sh -c 'echo x >/dev/small && cat /dev/small && echo y >/run/small && cat /run/small'
	assert_file_has_content "$KB_OUT" '^x$'
	assert_file_has_content "$KB_OUT" '^y$'
}
run_test "--memory 64M: a write into /dev and into the /run mask stops at 64 KiB with ENOSPC (control: a small file goes into each)" t_dev_and_masks

# ============================================================================
# 3. where the budget comes from
# ============================================================================

t_sources() {
	ws=$(newdir sources)
	cd "$ws"
	kb_expect 0 --dry-run -- true
	assert_file_has_content "$KB_OUT" '^# memory: budget [0-9.]+ [MG]iB \(the default: a quarter of RAM, at most 4 GiB\)$'
	kb_expect 0 --dry-run --memory 512M -- true
	assert_file_has_content "$KB_OUT" '^# memory: budget 512 MiB \(set by --memory\)$'
	assert_file_has_content "$KB_OUT" '^--size$'
	printf '[sandbox]\nmemory = 48M\n' >"$XDG_CONFIG_HOME/kinbox/config.ini"
	kb_expect 0 --dry-run -- true
	assert_file_has_content "$KB_OUT" "^# memory: budget 48 MiB \\(set by $XDG_CONFIG_HOME/kinbox/config.ini:2\\)\$"
	# the project file lowers it, and it holds in the run
	printf '[sandbox]\nmemory = 32M\n' >"$ws/.kinbox.ini"
	kb_expect 0 --dry-run --memory 512M -- true
	assert_file_has_content "$KB_OUT" "^# memory: budget 32 MiB \\(set by $ws/.kinbox.ini:2\\)\$"
	kb_expect 0 --memory 512M -- sh -c 'dd if=/dev/zero of=/tmp/f bs=1M count=64 2>/dev/null; stat -c %s /tmp/f'
	[ "$(cat "$KB_OUT")" -lt $((32 * MiB)) ] || fail "/tmp held $(cat "$KB_OUT") bytes under a 32 MiB budget"
	# never raises it
	printf '[sandbox]\nmemory = 8G\n' >"$ws/.kinbox.ini"
	kb_expect 0 --dry-run --memory 64M -- true
	assert_file_has_content "$KB_OUT" '^# memory: budget 64 MiB \(set by --memory\)$'
	assert_file_has_content "$KB_OUT" "^# memory: $ws/.kinbox.ini:2 asks for 8 GiB, more than the budget: not raised \\(a project file may only lower it\\)\$"
	kb_expect 0 --memory 64M -- sh -c 'dd if=/dev/zero of=/tmp/f bs=1M count=128 2>/dev/null; stat -c %s /tmp/f'
	[ "$(cat "$KB_OUT")" -lt $((64 * MiB)) ] || fail "/tmp held $(cat "$KB_OUT") bytes: the project raised the budget"
	rm -f "$ws/.kinbox.ini" "$XDG_CONFIG_HOME/kinbox/config.ini"
}
run_test "the budget: the default on --dry-run, --memory, memory = in the config, a project's memory = lowers it (and the run holds it) but never raises it (noted)" t_sources

t_bad_values() {
	ws=$(newdir bad)
	cd "$ws"
	for v in 1x 8M 2GB 1.5G '' 99999999999G -1G; do
		kb_expect 125 --memory "$v" -- touch ran
		assert_one_kinbox_line "$KB_ERR" "^kinbox: --memory $v: (not a size|less than 16M|too large); write a size with K, M or G \\(1024-based\\), at least 16M: 512M, 2G\$"
		assert_not_exists "$ws/ran"
	done
	printf '[sandbox]\nmemory = lots\n' >"$XDG_CONFIG_HOME/kinbox/config.ini"
	kb_expect 125 -- touch ran
	assert_one_kinbox_line "$KB_ERR" "^kinbox: $XDG_CONFIG_HOME/kinbox/config.ini:2: memory = lots: not a size; write a size"
	assert_not_exists "$ws/ran"
	rm -f "$XDG_CONFIG_HOME/kinbox/config.ini"
	kb_expect 125 --memory 1G --unconfined -- touch ran
	assert_one_kinbox_line "$KB_ERR" '^kinbox: --memory: kinbox execs the command unsandboxed \(--unconfined\)'
	assert_not_exists "$ws/ran"
	# a budget too small for the sandbox's small mounts: 70 masks
	{
		echo '[sandbox]'
		for i in $(seq 1 70); do
			mkdir -p "$KB_T/masks/d$i"
			echo "mask = $KB_T/masks/d$i"
		done
	} >"$XDG_CONFIG_HOME/kinbox/config.ini"
	kb_expect 125 --memory 16M -- touch ran
	assert_one_kinbox_line "$KB_ERR" '^kinbox: the memory budget 16 MiB \(--memory\) is too small for this sandbox: its [0-9]+ small mounts \(/dev, the masks, absent hooks directories\) take [0-9.]+ MiB, which leaves less than 4 MiB for /tmp; give a larger --memory$'
	assert_not_exists "$ws/ran"
	kb_expect 0 --memory 64M -- touch ran
	assert_exists "$ws/ran"
	rm -f "$ws/ran" "$XDG_CONFIG_HOME/kinbox/config.ini"
	# the control: a good value runs
	kb_expect 0 --memory 1G -- touch ran
	assert_exists "$ws/ran"
}
run_test "bad values of --memory and memory = (1x, 8M, 2GB, 1.5G, '', too large, -1G, lots), --memory with --unconfined, --memory 16M with 70 masks: exit 125, one line naming the fix, nothing runs (control: --memory 64M and 1G run)" t_bad_values

t_status() {
	total=$(meminfo MemTotal)
	want=$((total / 4 / MiB * MiB))
	[ "$want" -le $((4096 * MiB)) ] || want=$((4096 * MiB))
	[ "$want" -ge $((16 * MiB)) ] || want=$((16 * MiB))
	kb_expect 0 --status --json
	assert_file_has_content "$KB_OUT" "\"memory\":\\{\"mem_total\":$total,\"default_budget\":$want,"
	kb_expect 0 --status
	assert_file_has_content "$KB_OUT" '^memory budget +[0-9.]+ [MG]iB by default \(a quarter of [0-9.]+ GiB RAM, at most 4 GiB'
	assert_file_has_content "$KB_OUT" '^memory landlock +not bounded'
}
run_test "--status: the default budget, a quarter of MemTotal at most 4 GiB, and what bounds what" t_status

done_testing
