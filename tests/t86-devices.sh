#!/bin/sh
# tests/t86-devices.sh — --device PATH and --gpu (policy/devices.c): a
# character device the caller may open outside is bound read-write at the
# same path (a --dev-bind of kinbox's O_PATH descriptor of it), usable
# inside; without the grant it is absent (or, on the host's nodev binds,
# unusable); every block device, a path that is no device node, a node
# the caller cannot open and --gpu where no GPU node exists are refused
# with exit 125 and their reason, and nothing runs.
#
# No GPU was available where these tests were written: the nodes are ones
# this script makes (mknod, as root, in scratch directories: c 1 3 behaves
# as /dev/null, c 1 5 as /dev/zero), or the host's /dev/null class. --gpu's
# scan is tried on a fake NVIDIA/DRM layout through the test build
# (kinbox-test: KINBOX_TEST_DEV_ROOT names the directory it scans instead
# of /dev; the release build holds no word of it).
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
# Run: make kinbox kinbox-test && sh tests/t86-devices.sh (TAP), or
# make integration KB_SUITES="t86-devices.sh".
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
SCR=$(mktemp -d /tmp/kinbox-t86.XXXXXX)
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
	for n in /dev/kmsg /dev/tty0 /dev/console /dev/fuse /dev/kvm; do
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
done_testing
