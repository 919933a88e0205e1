#!/bin/sh
# tests/t25-devices.sh — --device PATH and --gpu (profile/devices.c): a
# character device the caller may open outside is bound read-write at the
# same path (a --dev-bind of kinbox's O_PATH descriptor of it), usable
# inside; without the grant it is absent (or, on the host's nodev binds,
# unusable); every block device, every character device that is a disk, a
# keyboard, a console or the machine's memory by another name (SCSI and
# NVMe generic, input, uinput, the consoles, /dev/mem, ...: issue 28), a
# path that is no device node, a node the caller cannot open and --gpu
# where no GPU node exists are refused with exit 125 and their reason,
# and nothing runs.
#
# No GPU was available where these tests were written: the nodes are ones
# this script makes (mknod, as root, in scratch directories: c 1 3 behaves
# as /dev/null, c 1 5 as /dev/zero), or the host's /dev/null class. --gpu's
# scan is tried on a fake NVIDIA/DRM layout through the test build
# (kinbox-test: KINBOX_TEST_DEV_ROOT names the directory it scans instead
# of /dev, and KINBOX_TEST_PROC_DEVICES the file it reads instead of
# /proc/devices for the drivers' load-time majors; the release build holds
# no word of either).
#
# Effects are judged from OUTSIDE: what the command wrote into the
# workspace (the bytes it read from the node, that its write succeeded),
# and every refusal has its positive control (the same command with a
# node that is granted ran and left its marker).
#
# As the unprivileged user (the second pass) no node can be made: the
# mknod cases skip there (skip_other_pass) and /dev/null, /dev/zero and the
# host's root-only nodes stand in.
#
# Run: make kinbox kinbox-test && sh tests/t25-devices.sh (TAP), or
# make integration KB_SUITES="t25-devices.sh".
# shellcheck disable=SC2317,SC2016,SC2164
# SC2317: the t_* bodies are called through run_test.
# SC2016: single-quoted $... is meant for the shell inside the sandbox.
# SC2164: lib.sh sets -e (test bodies run under set -e): a failed cd fails.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

unset XDG_RUNTIME_DIR XDG_CONFIG_HOME XDG_CACHE_HOME SSH_AUTH_SOCK \
	KINBOX_SESSION KINBOX_JSON_FD || true
HOME=$KB_T/home
XDG_STATE_HOME=$KB_T/state
XDG_CONFIG_HOME=$KB_T/config
mkdir -p "$HOME" "$XDG_STATE_HOME" "$XDG_CONFIG_HOME"
export HOME XDG_STATE_HOME XDG_CONFIG_HOME

: "${KINBOX_TEST:=$(dirname "$KINBOX")/kinbox-test}"

ROOT=false
[ "$(id -u)" = 0 ] && ROOT=true

# preflight: a sandbox can be set up here
mkdir -p "$KB_T/preflight"
if ! (cd "$KB_T/preflight" && "$KINBOX" -- true) >/dev/null 2>&1; then
	skip_all "kinbox cannot set up a sandbox here"
fi

# a scratch directory under the host's /tmp: the sandbox's /tmp is
# private, so a node there is absent inside unless it is granted
SCR=$(mktemp -d /tmp/kinbox-t25.XXXXXX)
chmod 755 "$SCR"
cleanup_add "rm -rf '$SCR'"

# new_ws NAME: a fresh workspace, its path in $ws
new_ws() {
	ws=$KB_T/$1
	mkdir -p "$ws"
	cd "$ws"
}

# need_root: the test makes device nodes
need_root() {
	$ROOT || skip_other_pass "mknod needs root"
}

# the command every test runs on a node ($1): the bytes it reads (hex)
# and whether its write succeeded, into $ws/out
probe() {
	printf 'head -c 4 %s | od -An -tx1 >%s/out; echo x >%s && echo wrote >>%s/out' \
		"$1" "$ws" "$1" "$ws"
}

t_granted_usable() {
	need_root
	new_ws granted
	mknod "$SCR/kbzero" c 1 5
	chmod 666 "$SCR/kbzero"
	kb_expect 0 --device "$SCR/kbzero" -- sh -c "$(probe "$SCR/kbzero")"
	assert_file_has_content "$ws/out" '^ *00 00 00 00$'
	assert_file_has_content "$ws/out" '^wrote$'
}

t_absent_without() {
	need_root
	new_ws absent
	mknod "$SCR/kbnull" c 1 3
	mknod "$KB_T/kbnull" c 1 3
	# the node in the private /tmp: absent; the one on the host's
	# read-only bind (nodev): there, and refused
	kb_expect 0 -- sh -c "
		if [ -e $SCR/kbnull ]; then echo present; else echo absent; fi >$ws/out
		if echo x >$KB_T/kbnull; then echo usable; else echo unusable; fi >>$ws/out"
	assert_file_has_content "$ws/out" '^absent$'
	assert_file_has_content "$ws/out" '^unusable$'
	# control: granted, both are usable
	kb_expect 0 --device "$SCR/kbnull" --device "$KB_T/kbnull" -- sh -c "
		echo x >$SCR/kbnull && echo x >$KB_T/kbnull && echo both >$ws/out"
	assert_file_has_content "$ws/out" '^both$'
}

t_dev_zero() {
	new_ws devzero
	kb_expect 0 --device /dev/zero -- sh -c "$(probe /dev/zero)"
	assert_file_has_content "$ws/out" '^ *00 00 00 00$'
	assert_file_has_content "$ws/out" '^wrote$'
	# the plan binds kinbox's descriptor of it, and names the grant
	kb_expect 0 --dry-run --device /dev/zero -- true
	assert_file_has_content "$KB_OUT" '^--dev-bind$'
	assert_file_has_content "$KB_OUT" '^/proc/self/fd/[0-9]+  # /dev/zero$'
	assert_file_has_content "$KB_OUT" \
		'^# device: /dev/zero \(1:5, read-write; granted by flag: --device\)$'
	kb_expect 0 --dry-run -- true
	assert_not_file_has_content "$KB_OUT" '^--dev-bind$'
}

# refuse_ok DESC REGEX ARG...: kinbox ARG... -- (a marker) exits 125 with
# one line matching REGEX, and the marker is not written
refuse_ok() {
	_re=$1
	shift
	kb_expect 125 "$@" -- sh -c "echo ran >$ws/ran"
	assert_one_kinbox_line "$KB_ERR" "$_re"
	assert_file_has_content "$KB_ERR" 'nothing was run'
	assert_not_exists "$ws/ran"
}

# a control: the same command with a node that is granted runs
control_ok() {
	kb_expect 0 --device "$1" -- sh -c "echo ran >$ws/ran"
	assert_file_has_content "$ws/ran" '^ran$'
	rm -f "$ws/ran"
}

t_block_refused() {
	new_ws block
	blk=$(find /dev -maxdepth 1 -type b 2>/dev/null | head -n 1)
	if $ROOT; then
		mknod "$SCR/kbloop" b 7 0
		blk=$SCR/kbloop
	fi
	[ -n "$blk" ] || skip_other_pass "no block device here to name as a user; the root pass names one it made with mknod"
	refuse_ok "--device $blk: a block device: kinbox refuses every block device" \
		--device "$blk"
	# with a granted node beside it: still refused, whoever asks
	refuse_ok 'a block device' --device /dev/null --device "$blk"
	control_ok /dev/null
}

t_block_in_dir_refused() {
	need_root
	new_ws blockdir
	mkdir "$SCR/mixed"
	mknod "$SCR/mixed/c" c 1 3
	mknod "$SCR/mixed/b" b 7 0
	refuse_ok "--device $SCR/mixed: it holds the block device b" \
		--device "$SCR/mixed"
	control_ok "$SCR/mixed/c"
}

t_directory() {
	need_root
	new_ws dir
	mkdir "$SCR/dri" "$SCR/dri/by-path"
	mknod "$SCR/dri/card0" c 1 3
	mknod "$SCR/dri/renderD128" c 1 5
	chmod 666 "$SCR/dri/card0" "$SCR/dri/renderD128"
	ln -s ../renderD128 "$SCR/dri/by-path/pci-render"
	ln -s card0 "$SCR/dri/link"
	echo text >"$SCR/dri/readme"
	kb_expect 0 --device "$SCR/dri" -- sh -c "
		echo x >$SCR/dri/card0 && echo card0 >$ws/out
		head -c 2 $SCR/dri/renderD128 | od -An -tx1 >>$ws/out
		for f in by-path link readme; do
			[ -e $SCR/dri/\$f ] && echo \"has \$f\" >>$ws/out
		done; true"
	assert_file_has_content "$ws/out" '^card0$'
	assert_file_has_content "$ws/out" '^ *00 00$'
	# one level of device nodes: the links and the file stay outside
	assert_not_file_has_content "$ws/out" '^has '
	# an empty directory (or one without nodes) is refused
	mkdir "$SCR/empty"
	refuse_ok "--device $SCR/empty: a directory, and it holds no character device" \
		--device "$SCR/empty"
}

t_not_a_device() {
	new_ws notdev
	echo text >"$ws/file"
	refuse_ok "--device $ws/file: a regular file, not a device node" \
		--device "$ws/file"
	refuse_ok "--device $ws/missing: No such file or directory" \
		--device "$ws/missing"
	if [ -c /dev/mem ]; then
		refuse_ok "--device /dev/mem: the machine's raw memory" \
			--device /dev/mem
	fi
	control_ok /dev/zero
}

t_cannot_open() {
	$ROOT && skip_other_pass "root can open every node"
	new_ws noopen
	node=
	# (not /dev/tty0 or /dev/console: they are refused whoever asks)
	for n in /dev/kmsg /dev/fuse /dev/kvm /dev/hwrng /dev/cpu_dma_latency; do
		if [ -c "$n" ] && ! { [ -r "$n" ] && [ -w "$n" ]; }; then
			node=$n
			break
		fi
	done
	[ -n "$node" ] || skip_test "no root-only character device here"
	refuse_ok "--device $node: the caller cannot open it for reading and writing" \
		--device "$node"
	control_ok /dev/null
}

t_project_cannot_add() {
	need_root
	new_ws project
	mknod "$SCR/kbproj" c 1 3
	chmod 666 "$SCR/kbproj"
	printf '[sandbox]\ndevices = %s\n' "$SCR/kbproj" >"$ws/.kinbox.ini"
	kb_expect 0 -- sh -c "[ -e $SCR/kbproj ] || echo absent >$ws/out"
	assert_file_has_content "$ws/out" '^absent$'
	assert_file_has_content "$KB_ERR" 'devices'
	# control: the global config may grant it
	rm "$ws/.kinbox.ini" "$ws/out"
	mkdir -p "$XDG_CONFIG_HOME/kinbox"
	printf '[sandbox]\ndevices = %s\n' "$SCR/kbproj" \
		>"$XDG_CONFIG_HOME/kinbox/config.ini"
	cleanup_add "rm -f '$XDG_CONFIG_HOME/kinbox/config.ini'"
	kb_expect 0 -- sh -c "echo x >$SCR/kbproj && echo wrote >$ws/out"
	rm -f "$XDG_CONFIG_HOME/kinbox/config.ini"
	assert_file_has_content "$ws/out" '^wrote$'
	# a configured device that is gone is dropped with a note, not an error
	printf '[sandbox]\ndevices = %s/gone\n' "$SCR" \
		>"$XDG_CONFIG_HOME/kinbox/config.ini"
	kb_expect 0 --dry-run -- true
	rm -f "$XDG_CONFIG_HOME/kinbox/config.ini"
	assert_file_has_content "$KB_OUT" \
		"^# config: device: the grant of $SCR/gone \\(global config\\) is not used: --device $SCR/gone: No such file"
}

t_gpu_none() {
	new_ws gpunone
	for n in /dev/nvidia0 /dev/nvidiactl /dev/dri /dev/kfd; do
		[ -e "$n" ] && skip_test "this host has $n: a GPU"
	done
	refuse_ok '^kinbox: --gpu: no GPU device nodes found \(/dev/nvidia\*, /dev/dri, /dev/kfd\)' \
		--gpu
	control_ok /dev/null
}

t_gpu_fake() {
	need_root
	[ -x "$KINBOX_TEST" ] || fail "the test build $KINBOX_TEST is missing (make kinbox-test)"
	new_ws gpufake
	f=$SCR/fake
	mkdir -p "$f/dri/by-path" "$f/nvidia-caps"
	mknod "$f/nvidia0" c 1 3
	mknod "$f/nvidiactl" c 1 3
	mknod "$f/nvidia-uvm" c 1 5
	mknod "$f/dri/renderD128" c 1 5
	mknod "$f/nvidia-caps/nvidia-cap1" c 1 3
	mknod "$f/sda" b 8 0 # not a GPU node: never looked at
	mknod "$f/other" c 1 3
	ln -s ../renderD128 "$f/dri/by-path/pci-render"
	KB_RC=0
	KINBOX_TEST_DEV_ROOT=$f "$KINBOX_TEST" --dry-run --gpu -- true \
		>"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	assert_streq "$KB_RC" 0 "kinbox-test --dry-run --gpu"
	for n in nvidia0 nvidiactl nvidia-uvm dri/renderD128 nvidia-caps/nvidia-cap1; do
		assert_file_has_content "$KB_OUT" \
			"^# device: /dev/$n from $f/$n \\([0-9]+:[0-9]+, read-write; found by --gpu, set by flag: --gpu\\)$"
	done
	assert_not_file_has_content "$KB_OUT" "$f/other|$f/sda|pci-render"
	KB_RC=0
	KINBOX_TEST_DEV_ROOT=$f "$KINBOX_TEST" --gpu -- sh -c "
		echo x >/dev/nvidia0 && echo x >/dev/nvidiactl && echo nv >$ws/out
		head -c 2 /dev/dri/renderD128 | od -An -tx1 >>$ws/out
		[ -e /dev/other ] || echo 'no other' >>$ws/out" \
		>"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
	assert_streq "$KB_RC" 0 "kinbox-test --gpu"
	assert_file_has_content "$ws/out" '^nv$'
	assert_file_has_content "$ws/out" '^ *00 00$'
	assert_file_has_content "$ws/out" '^no other$'
	# the release build scans /dev whatever the environment says
	if [ ! -e /dev/nvidia0 ] && [ ! -e /dev/dri ] && [ ! -e /dev/kfd ]; then
		KINBOX_TEST_DEV_ROOT=$f kb_expect 125 --gpu -- true
		assert_file_has_content "$KB_ERR" 'no GPU device nodes found'
	fi
}

# issue 28, finding 7: a character device that is a disk, a keyboard, a
# console or the machine's memory by another name is refused whoever asks,
# as a block device is, and the one line names its class. The host's own
# nodes first, in both passes (the class is told before whether the caller
# may open the node, so the unprivileged pass gets the same line).
t_class_host_nodes() {
	new_ws classhost
	found=0
	while IFS='|' read -r n re; do
		[ -c "$n" ] || continue
		found=$((found + 1))
		refuse_ok "^kinbox: --device $n: $re is refused whoever asks; drop it — nothing was run\$" \
			--device "$n"
		# beside a node that is granted: still refused
		refuse_ok "^kinbox: --device $n: .* is refused whoever asks" \
			--device /dev/null --device "$n"
	done <<'EOF'
/dev/tty0|a virtual console \(the console's keyboard and screen, 4:0\)
/dev/tty1|a virtual console \(the console's keyboard and screen, 4:1\)
/dev/console|the system console \(the console's keyboard and screen, 5:1\)
/dev/vcs|a virtual console's memory \(the console's screen, read and written, major 7\)
/dev/vcsa1|a virtual console's memory \(the console's screen, read and written, major 7\)
/dev/uinput|the uinput device \(a virtual keyboard, keystrokes injected, 10:223\)
/dev/uhid|the uhid device \(a virtual HID keyboard, keystrokes injected, 10:239\)
EOF
	for n in /dev/input/event* /dev/sg* /dev/ng*; do
		[ -c "$n" ] || continue
		found=$((found + 1))
		refuse_ok "^kinbox: --device $n: (an input device|a SCSI generic node|an NVMe generic node) \(.*\) is refused whoever asks" \
			--device "$n"
	done
	[ "$found" -gt 0 ] || skip_test "no console, input, SCSI or NVMe generic node here"
	# the controls: /dev/null, the caller's own terminal (5:0) and a new
	# pseudo-terminal's multiplexer (5:2) are of no refused class
	control_ok /dev/null
	control_ok /dev/tty
	control_ok /dev/ptmx
}

# the class by major (and minor), on nodes root makes; with its controls
t_class_mknod() {
	need_root
	new_ws classmk
	mkdir "$SCR/cls"
	while read -r name maj min re; do
		mknod "$SCR/cls/$name" c "$maj" "$min"
		chmod 666 "$SCR/cls/$name"
		refuse_ok "^kinbox: --device $SCR/cls/$name: $re is refused whoever asks; drop it — nothing was run\$" \
			--device "$SCR/cls/$name"
	done <<'EOF'
sg0 21 0 a SCSI generic node \(raw disk access, major 21\)
event3 13 67 an input device \(keyboard and mouse events, read and injected, major 13\)
uinput 10 223 the uinput device \(a virtual keyboard, keystrokes injected, 10:223\)
uhid 10 239 the uhid device \(a virtual HID keyboard, keystrokes injected, 10:239\)
psaux 10 1 a raw PS/2 port \(keyboard and mouse bytes, 10:1\)
tty5 4 5 a virtual console \(the console's keyboard and screen, 4:5\)
tty63 4 63 a virtual console \(the console's keyboard and screen, 4:63\)
console 5 1 the system console \(the console's keyboard and screen, 5:1\)
vcsa2 7 130 a virtual console's memory \(the console's screen, read and written, major 7\)
pts9 136 9 a pseudo-terminal \(another session's keyboard and screen, major 136\)
ttyp0 3 0 a legacy pseudo-terminal \(another session's keyboard and screen, major 3\)
st0 9 0 a SCSI tape \(raw tape access, major 9\)
sch0 86 0 a SCSI media changer \(raw storage access, major 86\)
mtd0 90 0 an MTD flash device \(raw flash access, major 90\)
raw1 162 1 a raw block device node \(raw disk access, major 162\)
mem 1 1 the machine's raw memory \(/dev/mem, /dev/kmem, 1:1\)
port 1 4 the machine's raw I/O ports \(/dev/port, 1:4\)
msr 202 0 a CPU's model-specific registers \(raw CPU control, major 202\)
nvram 10 144 the CMOS NVRAM \(the firmware's settings, 10:144\)
snapshot 10 231 the hibernation snapshot \(the machine's memory image, 10:231\)
watchdog 10 130 a hardware watchdog \(opening it can reboot the machine, 10:130\)
EOF
	# the controls, made the same way: a serial port (4:64), the other
	# minors of mem (null, zero, urandom), FUSE (10:229) and a DRM render
	# node (226:128) are bound
	while read -r name maj min; do
		mknod "$SCR/cls/ok-$name" c "$maj" "$min"
		chmod 666 "$SCR/cls/ok-$name"
		control_ok "$SCR/cls/ok-$name"
	done <<'EOF'
ttyS0 4 64
null 1 3
zero 1 5
urandom 1 9
fuse 10 229
renderD128 226 128
EOF
	# a directory that holds one is refused whole, as for a block device
	mkdir "$SCR/input"
	mknod "$SCR/input/event0" c 13 64
	mknod "$SCR/input/ok" c 1 3
	chmod 666 "$SCR/input/event0" "$SCR/input/ok"
	refuse_ok "^kinbox: --device $SCR/input: it holds event0, an input device \(keyboard and mouse events, read and injected, major 13\), which is refused whoever asks; name the character devices the command needs — nothing was run\$" \
		--device "$SCR/input"
	control_ok "$SCR/input/ok"
	# a grant (the global config) of one refuses the run as well, never
	# dropped with a note: whoever asks
	mkdir -p "$XDG_CONFIG_HOME/kinbox"
	cfg=$XDG_CONFIG_HOME/kinbox/config.ini
	cleanup_add "rm -f '$cfg'"
	printf '[sandbox]\ndevices = %s\n' "$SCR/cls/sg0" >"$cfg"
	refuse_ok "^kinbox: --device $SCR/cls/sg0: a SCSI generic node \(raw disk access, major 21\) is refused whoever asks; drop it \(set by $cfg:2\) — nothing was run\$"
	printf '[sandbox]\ndevices = %s\n' "$SCR/cls/ok-null" >"$cfg"
	kb_expect 0 -- sh -c "echo x >$SCR/cls/ok-null && echo ran >$ws/ran"
	rm -f "$cfg"
	assert_file_has_content "$ws/ran" '^ran$'
}

# kinbox-test with KINBOX_TEST_PROC_DEVICES=$1 and --device $2, the
# marker command; KB_RC, KB_OUT, KB_ERR as kb
kb_test_dev() {
	KB_RC=0
	KINBOX_TEST_PROC_DEVICES=$1 "$KINBOX_TEST" --device "$2" -- \
		sh -c "echo ran >$ws/ran" >"$KB_OUT" 2>"$KB_ERR" || KB_RC=$?
}

# a major a driver took at load time is told by the driver's name in
# /proc/devices: the test build's stand-in for it (KINBOX_TEST_PROC_DEVICES)
# names drivers this host has not loaded (NVMe), the release build reads
# the host's (its bsg)
t_class_dynamic() {
	need_root
	[ -x "$KINBOX_TEST" ] || fail "the test build $KINBOX_TEST is missing (make kinbox-test)"
	new_ws classdyn
	mkdir "$SCR/dyn"
	fake=$SCR/dyn/devices
	printf 'Character devices:\n  1 mem\n  4 tty\n240 nvme-generic\n241 nvme\n242 bsg\n243 dax\n244 ubi0\n245 watchdog\n246 fakegpu\n\nBlock devices:\n246 nvme\n259 blkext\n' >"$fake"
	while read -r name maj re; do
		mknod "$SCR/dyn/$name" c "$maj" 0
		chmod 666 "$SCR/dyn/$name"
		kb_test_dev "$fake" "$SCR/dyn/$name"
		assert_streq "$KB_RC" 125 "kinbox-test --device $name"
		assert_one_kinbox_line "$KB_ERR" "^kinbox: --device $SCR/dyn/$name: $re is refused whoever asks; drop it — nothing was run\$"
		assert_not_exists "$ws/ran"
	done <<'EOF'
ng0n1 240 an NVMe generic node \(raw disk access, major 240: nvme-generic\)
nvme0 241 an NVMe controller \(raw disk access and admin commands, major 241: nvme\)
bsg0 242 a block SCSI generic node \(raw disk access, major 242: bsg\)
dax0.0 243 a device-DAX node \(raw persistent memory, major 243: dax\)
ubi0_0 244 a UBI volume \(raw flash access, major 244: ubi0\)
watchdog0 245 a hardware watchdog \(opening it can reboot the machine, major 245: watchdog\)
EOF
	# the control: a driver of no refused class (character major 246;
	# the block section's 246, an nvme, is another device's)
	mknod "$SCR/dyn/ok246" c 246 0
	chmod 666 "$SCR/dyn/ok246"
	kb_test_dev "$fake" "$SCR/dyn/ok246"
	assert_streq "$KB_RC" 0 "kinbox-test --device ok246: $(cat "$KB_ERR")"
	assert_file_has_content "$ws/ran" '^ran$'
	rm -f "$ws/ran"
	# no /proc/devices to read: a load-time major's driver cannot be
	# told, so the node is refused
	kb_test_dev "$SCR/dyn/missing" "$SCR/dyn/ok246"
	assert_streq "$KB_RC" 125 "kinbox-test without its /proc/devices"
	assert_one_kinbox_line "$KB_ERR" "^kinbox: --device $SCR/dyn/ok246: a device whose major \(246\) its driver took at load time, and $SCR/dyn/missing cannot be read \(No such file or directory\) to tell which driver; mount /proc — nothing was run\$"
	assert_not_exists "$ws/ran"
	# the release build reads the host's /proc/devices whatever the
	# environment says: the host's bsg (when loaded) is refused, and so is
	# a load-time major no driver holds now
	bsg=$(awk '/^Character devices:/ {c = 1; next} /^$/ {c = 0} c && $2 == "bsg" {print $1}' /proc/devices)
	if [ -n "$bsg" ]; then
		mknod "$SCR/dyn/hostbsg" c "$bsg" 0
		chmod 666 "$SCR/dyn/hostbsg"
		KINBOX_TEST_PROC_DEVICES=$fake refuse_ok "^kinbox: --device $SCR/dyn/hostbsg: a block SCSI generic node \(raw disk access, major $bsg: bsg\) is refused whoever asks; drop it — nothing was run\$" \
			--device "$SCR/dyn/hostbsg"
	fi
	free=
	for m in 240 241 242 243 244 245 246 247 250 251 252 253 254; do
		if ! awk -v m="$m" '/^Character devices:/ {c = 1; next} /^$/ {c = 0} c && $1 == m {f = 1} END {exit !f}' /proc/devices; then
			free=$m
			break
		fi
	done
	if [ -n "$free" ]; then
		mknod "$SCR/dyn/free" c "$free" 0
		chmod 666 "$SCR/dyn/free"
		KINBOX_TEST_PROC_DEVICES=$fake refuse_ok "^kinbox: --device $SCR/dyn/free: a device whose major \($free\) no driver holds now, and a driver that loads later may take it; load its driver first, or drop it — nothing was run\$" \
			--device "$SCR/dyn/free"
	fi
	control_ok /dev/null
}

run_test "--device NODE: a granted character device is usable inside (read and write)" t_granted_usable
run_test "without --device a node is absent inside (private /tmp) or unusable (nodev)" t_absent_without
run_test "--device /dev/zero: bound read-write from kinbox's descriptor, named in --dry-run" t_dev_zero
run_test "a block device is refused with its reason (exit 125, nothing ran)" t_block_refused
run_test "a directory that holds a block device is refused" t_block_in_dir_refused
run_test "--device DIR: its character devices, one level, no links" t_directory
run_test "a path that is no device node is refused (exit 125)" t_not_a_device
run_test "a node the caller cannot open is refused (exit 125)" t_cannot_open
run_test "a project .kinbox.ini cannot add a device; the global config can" t_project_cannot_add
run_test "--gpu with no GPU here: exit 125 with its reason, no CPU fallback" t_gpu_none
run_test "--gpu (test build, fake layout): the vendor nodes found and bound at /dev" t_gpu_fake
run_test "issue 28: the host's consoles (and uinput, input, SCSI or NVMe generic nodes) are refused whoever asks, naming their class; /dev/null, /dev/tty and /dev/ptmx are bound" t_class_host_nodes
run_test "issue 28: SCSI generic, input, uinput, uhid, psaux, consoles, vcs, ptys, tapes, MTD, raw, mem, port, MSR, NVRAM, snapshot and watchdog nodes refused naming their class (a directory holding one, a config grant of one too); serial, null, zero, urandom, FUSE and DRM nodes bound" t_class_mknod
run_test "issue 28: load-time majors told by the driver's name in /proc/devices (NVMe generic, NVMe, bsg, DAX, UBI, watchdog through the test build's stand-in; the host's bsg); unreadable or unheld: refused; other drivers bound" t_class_dynamic
done_testing
