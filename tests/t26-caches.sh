#!/bin/sh
# tests/t26-caches.sh — toolchain caches work by default and persist nothing
# (issue 11): every [caches] mode checked from outside (what the host's
# cache holds after the run) with a positive control in the same call (the
# command read the warm cache, its write succeeded inside, its output
# landed in the workspace); then the real tools of the issue — npm (a local
# tarball offline, the registry with --net), go build/test, cargo (a warm
# git dependency offline, a new one with --net), pip into a venv,
# pre-commit with its hooks installed — each leaving the host's cache as it
# was. The offline environment kinbox sets with the network off, too.
# Not here: mvn and gradle offline builds. They need a warm ~/.m2 or Gradle
# cache, and Maven Central is not reachable from this machine to warm one;
# the overlay over ~/.m2/repository and ~/.gradle/caches is checked with
# plain files in the first test.
#
# Run: sh tests/t26-caches.sh (TAP), or all suites: sh tests/run-integration.sh

. "$(dirname "$0")/lib.sh"

XDG_CONFIG_HOME=$KB_T/config
XDG_STATE_HOME=$KB_T/state
mkdir -p "$XDG_CONFIG_HOME/kinbox" "$XDG_STATE_HOME"
export XDG_CONFIG_HOME XDG_STATE_HOME
# a home of the test's own: the caches kinbox overlays are $HOME's
# (the caller's own: make integration runs the suites with a home of their
# own, tests/tools/isolated.sh, and says where the real one is)
REAL_HOME=${KB_REAL_HOME:-$HOME}
HOME=$KB_T/home
mkdir -p "$HOME"
export HOME

mkdir "$KB_T/preflight"
if ! (cd "$KB_T/preflight" && "$KINBOX" -- true) >"$KB_T/preflight.log" 2>&1; then
	diag "$(cat "$KB_T/preflight.log")"
	skip_all "kinbox cannot set up a sandbox on this host"
fi
OVERLAY=0
mkdir -p "$HOME/.npm"
if (cd "$KB_T/preflight" && "$KINBOX" --dry-run -- true) |
	grep -q 'copy-on-write overlay'; then
	OVERLAY=1
fi

CACHE_DIRS=".cache .npm .cargo/registry .cargo/git go/pkg/mod .gradle/caches .m2/repository"

# config TEXT: the caller's config.ini ([caches] ...)
config() {
	printf '%s\n' "$1" >"$XDG_CONFIG_HOME/kinbox/config.ini"
}

# tree_sum DIR: one line naming every entry of DIR with its content's hash
tree_sum() {
	if [ ! -e "$1" ]; then
		echo absent
		return
	fi
	(cd "$1" && find . -printf '%p %y %m\n' | LC_ALL=C sort &&
		find . -type f -exec md5sum {} + | LC_ALL=C sort) | md5sum
}

# fresh_home: an empty home with each cache holding one warm file
fresh_home() {
	chmod -R u+rwX "$HOME" 2>/dev/null || true
	rm -rf "$HOME"
	mkdir -p "$HOME"
	for d in $CACHE_DIRS; do
		mkdir -p "$HOME/$d"
		echo host >"$HOME/$d/warm"
	done
	config ""
}

need_overlay() {
	[ "$OVERLAY" = 1 ] || skip_test "this kernel cannot mount overlayfs in a user namespace: the caches get their fallbacks (checked in the golden plan old-kernel)"
}

# --- 1. each mode -----------------------------------------------------------

t_default_overlay_each() {
	need_overlay
	fresh_home
	ws=$(newdir ws1)
	for d in $CACHE_DIRS; do
		tree_sum "$HOME/$d" >"$KB_T/before.$(echo "$d" | tr / _)"
	done
	(cd "$ws" && kb --dry-run -- true)
	for d in $CACHE_DIRS; do
		assert_file_has_content "$KB_OUT" "^# cache [a-z]+: $HOME/$d \\(ephemeral\\): a copy-on-write overlay"
	done
	# inside: the warm file reads as the host's, a rewrite, a new file and
	# a new directory all succeed, and read back
	(cd "$ws" && kb_expect 0 -- sh -c '
		for d in '"$CACHE_DIRS"'; do
			printf "%s=%s\n" "$d" "$(cat "$HOME/$d/warm")"
			echo sandbox >"$HOME/$d/warm"
			echo new >"$HOME/$d/new"
			mkdir "$HOME/$d/sub" && touch "$HOME/$d/sub/f"
			rm "$HOME/$d/new"; echo again >"$HOME/$d/new"
			printf "%s:%s:%s\n" "$d" "$(cat "$HOME/$d/warm")" "$(cat "$HOME/$d/new")"
		done >out')
	for d in $CACHE_DIRS; do
		assert_file_has_content "$ws/out" "^$d=host\$"
		assert_file_has_content "$ws/out" "^$d:sandbox:again\$"
		# from outside: the host's cache as it was
		assert_streq "$(cat "$HOME/$d/warm")" host "$d/warm on the host"
		assert_not_exists "$HOME/$d/new"
		assert_not_exists "$HOME/$d/sub"
		assert_streq "$(tree_sum "$HOME/$d")" \
			"$(cat "$KB_T/before.$(echo "$d" | tr / _)")" "$d unchanged"
	done
}
run_test "default: every cache is a copy-on-write overlay — warm reads, writes succeed inside, the host's cache unchanged" t_default_overlay_each

t_overlay_owner_mode() {
	need_overlay
	fresh_home
	chmod 700 "$HOME/.npm"
	chmod 751 "$HOME/.cache"
	ws=$(newdir ws2)
	(cd "$ws" && kb_expect 0 -- sh -c 'stat -c "%a %u %g" "$HOME/.npm" "$HOME/.cache" >out; touch "$HOME/.npm/x" && stat -c "%u" "$HOME/.npm/x" >>out')
	assert_streq "$(sed -n 1p "$ws/out")" "700 $(id -u) $(id -g)"
	assert_streq "$(sed -n 2p "$ws/out")" "751 $(id -u) $(id -g)"
	assert_streq "$(sed -n 3p "$ws/out")" "$(id -u)"
	assert_not_exists "$HOME/.npm/x"
}
run_test "an overlaid cache keeps its owner and mode inside; a new file is the caller's" t_overlay_owner_mode

t_missing_cache_not_created() {
	chmod -R u+rwX "$HOME" 2>/dev/null || true
	rm -rf "$HOME"
	mkdir -p "$HOME"
	config ""
	ws=$(newdir ws3)
	(cd "$ws" && kb --dry-run -- true)
	assert_file_has_content "$KB_OUT" '^# cache npm: ~/.npm absent, nothing to mount \(kinbox does not create it\)'
	cd "$ws"
	kb -- sh -c 'echo control >ctl; mkdir -p "$HOME/.npm/_cacache"'
	cd "$KB_T"
	[ "$KB_RC" -ne 0 ] || fail "a write into the missing cache's place succeeded"
	assert_file_has_content "$ws/ctl" '^control$'
	assert_file_has_content "$KB_ERR" "the cache directory $HOME/.npm \\(\\[caches\\] npm\\) does not exist, so kinbox could not make it writable \\(it creates nothing in your home\\); create it \\(mkdir -p $HOME/.npm\\)"
	assert_streq "$(ls -A "$HOME")" "" "nothing new in HOME"
	# the advice works: made by the user, it is an overlay next time
	mkdir "$HOME/.npm"
	(cd "$ws" && kb_expect 0 -- sh -c 'mkdir -p "$HOME/.npm/_cacache" && echo ok >out')
	assert_file_has_content "$ws/out" '^ok$'
	assert_streq "$(ls -A "$HOME/.npm")" "" "... and the write stayed inside"
}
run_test "a missing cache is not created (kinbox writes nothing in HOME); a write there is denied naming the cache and the mkdir that helps, which then works" t_missing_cache_not_created

t_mode_empty() {
	fresh_home
	config "[caches]
npm = empty"
	ws=$(newdir ws4)
	(cd "$ws" && kb --dry-run -- true)
	assert_file_has_content "$KB_OUT" "^# cache npm: $HOME/.npm \\(empty\\): empty and writable"
	(cd "$ws" && kb_expect 0 -- sh -c 'ls -A "$HOME/.npm" >out; echo w >"$HOME/.npm/f" && cat "$HOME/.npm/f" >>out')
	assert_streq "$(cat "$ws/out")" "w" "an empty cache, writable"
	assert_streq "$(cat "$HOME/.npm/warm")" host
	assert_not_exists "$HOME/.npm/f"
}
run_test "[caches] npm = empty: an empty writable tmpfs, the host's cache unchanged" t_mode_empty

t_mode_off_denial() {
	fresh_home
	config "[caches]
npm = off
cargo = off"
	ws=$(newdir ws5)
	for target in .npm/_cacache/tmp/deep/f .cargo/registry/index/x; do
		cd "$ws"
		kb -- sh -c 'echo control >ctl; cat "$HOME/.npm/warm" >>ctl; mkdir -p "$(dirname "$HOME/'"$target"'")" && echo x >"$HOME/'"$target"'"'
		cd "$KB_T"
		[ "$KB_RC" -ne 0 ] || fail "a write into an off cache succeeded"
		assert_file_has_content "$ws/ctl" '^control$'
		assert_file_has_content "$ws/ctl" '^host$'
		name=$(case $target in .npm*) echo npm ;; *) echo cargo ;; esac)
		assert_file_has_content "$KB_ERR" "^kinbox: denied write .*: the $name cache $HOME/[^ ]+ is read-only \\(\\[caches\\] $name = off\\); set $name = ephemeral"
		assert_not_file_has_content "$KB_ERR" 'retry with --write'
	done
	assert_not_exists "$HOME/.npm/_cacache"
	assert_not_exists "$HOME/.cargo/registry/index"
}
run_test "[caches] NAME = off: the write is denied, and the denial names the cache and its setting, not a --write on a subdirectory" t_mode_off_denial

t_mode_persisted() {
	fresh_home
	config "[caches]
npm = persisted"
	ws=$(newdir ws6)
	(cd "$ws" && kb_expect 0 -- sh -c 'echo kept >"$HOME/.npm/kept"; echo ok >out')
	assert_file_has_content "$ws/out" '^ok$'
	assert_streq "$(cat "$HOME/.npm/kept")" kept "a persisted cache keeps the write"
}
run_test "[caches] npm = persisted: the write lands in the host's cache (the explicit opt-in)" t_mode_persisted

t_write_root_inside_cache() {
	need_overlay
	fresh_home
	mkdir -p "$HOME/.npm/keep"
	ws=$(newdir ws7)
	(cd "$ws" && kb_expect 0 --write "$HOME/.npm/keep" -- sh -c 'echo a >"$HOME/.npm/keep/a"; echo b >"$HOME/.npm/b"; cat "$HOME/.npm/keep/a" "$HOME/.npm/b" >out')
	assert_streq "$(cat "$ws/out" | tr '\n' ' ')" "a b "
	assert_streq "$(cat "$HOME/.npm/keep/a")" a "the --write root inside the cache keeps its write"
	assert_not_exists "$HOME/.npm/b"
}
run_test "a --write root inside an overlaid cache stays a write root (its mount is carried over the overlay); the rest of the cache discards" t_write_root_inside_cache

t_cache_link_through_root() {
	# ~/.cargo is a link into the workspace; an earlier run there made
	# registry a link to a directory outside: a persisted cache must not
	# make that directory writable (nor an ephemeral one cover it)
	fresh_home
	ws=$(newdir ws15)
	victim=$(newdir victim15)
	rm -rf "$HOME/.cargo"
	mkdir "$ws/c"
	ln -s "$ws/c" "$HOME/.cargo"
	ln -s "$victim" "$ws/c/registry"
	for mode in persisted ephemeral; do
		config "[caches]
cargo = $mode"
		(cd "$ws" && kb --dry-run -- true)
		assert_not_file_has_content "$KB_OUT" "cache cargo: $victim"
		assert_not_file_has_content "$KB_OUT" "$victim\$"
		cd "$ws"
		kb -- sh -c 'echo control >ctl; echo x >"$HOME/.cargo/registry/planted"'
		cd "$KB_T"
		assert_file_has_content "$ws/ctl" '^control$'
		assert_not_exists "$victim/planted"
	done
}
run_test "a cache whose directory lies in a write root (through a link) is left alone: a registry swapped for a link outside is not made writable, persisted or not" t_cache_link_through_root

t_offline_env() {
	ws=$(newdir ws8)
	(cd "$ws" && kb_expect 0 -- sh -c 'echo "$UV_NO_SYNC $UV_OFFLINE $npm_config_offline $CARGO_NET_OFFLINE $PIP_RETRIES" >out')
	assert_streq "$(cat "$ws/out")" "1 1 true true 0" "network off"
	(cd "$ws" && kb_expect 0 --net -- sh -c 'echo "${UV_NO_SYNC-unset} ${npm_config_offline-unset}" >out')
	assert_streq "$(cat "$ws/out")" "unset unset" "network on"
	(cd "$ws" && UV_NO_SYNC=0 kb_expect 0 -- sh -c 'echo "$UV_NO_SYNC $UV_OFFLINE" >out')
	assert_streq "$(cat "$ws/out")" "0 1" "the caller's own value wins"
	(cd "$ws" && kb --dry-run -- true)
	assert_file_has_content "$KB_OUT" '^# env: network off, so tools use what is there.*UV_NO_SYNC=1'
}
run_test "network off: UV_NO_SYNC, UV_OFFLINE, npm_config_offline, CARGO_NET_OFFLINE, PIP_RETRIES set unless the caller set them; none with --net" t_offline_env

# --- 2. the real tools -----------------------------------------------------

t_npm_offline_tarball() {
	require npm
	need_overlay
	fresh_home
	pkg=$(newdir npmpkg)
	printf '{"name":"kbfix-local","version":"1.2.3","main":"i.js"}\n' >"$pkg/package.json"
	echo 'module.exports = 42;' >"$pkg/i.js"
	(cd "$pkg" && npm pack --silent >/dev/null 2>&1) || fail "npm pack failed"
	ws=$(newdir ws9)
	printf '{"name":"ws9","version":"1.0.0"}\n' >"$ws/package.json"
	before=$(tree_sum "$HOME/.npm")
	(cd "$ws" && kb_expect 0 -- npm install --no-audit --no-fund "$pkg/kbfix-local-1.2.3.tgz")
	assert_file_has_content "$ws/node_modules/kbfix-local/package.json" '"version":"1.2.3"'
	assert_file_has_content "$ws/package.json" 'kbfix-local'
	assert_streq "$(tree_sum "$HOME/.npm")" "$before" "the host's ~/.npm unchanged"
}
run_test "npm install of a local tarball, network off: installed in the workspace, the host's ~/.npm unchanged" t_npm_offline_tarball

t_npm_registry() {
	require npm
	need_overlay
	fresh_home
	if ! timeout 20 npm ping >/dev/null 2>&1; then
		skip_test "SKIPPED LOUDLY: the npm registry is not reachable from here (npm ping failed): the real npm install was not tried"
	fi
	ws=$(newdir ws10)
	printf '{"name":"ws10","version":"1.0.0"}\n' >"$ws/package.json"
	before=$(tree_sum "$HOME/.npm")
	(cd "$ws" && kb_expect 0 --net -- npm install --no-audit --no-fund is-number)
	assert_file_has_content "$ws/node_modules/is-number/package.json" '"name": "is-number"'
	assert_streq "$(tree_sum "$HOME/.npm")" "$before" "the host's ~/.npm unchanged"
	# npm ci from the lock file it wrote, again with the default caches
	rm -rf "$ws/node_modules"
	(cd "$ws" && kb_expect 0 --net -- npm ci --no-audit --no-fund)
	assert_exists "$ws/node_modules/is-number/index.js"
	assert_streq "$(tree_sum "$HOME/.npm")" "$before" "... also after npm ci"
}
run_test "npm install / npm ci from the registry with --net and no other flag: installed, the host's ~/.npm unchanged" t_npm_registry

t_go_build_test() {
	require go
	need_overlay
	fresh_home
	rm -rf "$HOME/.cache"
	mkdir "$HOME/.cache"
	ws=$(newdir ws11)
	printf 'module example.com/kbfix\n\ngo 1.19\n' >"$ws/go.mod"
	printf 'package main\n\nimport "fmt"\n\nfunc Add(a, b int) int { return a + b }\n\nfunc main() { fmt.Println(Add(2, 3)) }\n' >"$ws/main.go"
	printf 'package main\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal("no")\n\t}\n}\n' >"$ws/main_test.go"
	(cd "$ws" && env -u GOCACHE -u GOPATH -u GOFLAGS "$KINBOX" -- sh -c 'go build -o prog . && go test ./... >test.out 2>&1 && go env GOCACHE >gocache') >"$KB_OUT" 2>"$KB_ERR" ||
		{ _show_file "$KB_ERR"; _show_file "$ws/test.out"; fail "go build/test failed under kinbox"; }
	assert_streq "$("$ws/prog")" 5
	assert_file_has_content "$ws/test.out" '^ok'
	assert_streq "$(cat "$ws/gocache")" "$HOME/.cache/go-build" "GOCACHE under ~/.cache"
	assert_streq "$(ls -A "$HOME/.cache")" "" "nothing of go's build cache on the host"
}
run_test "go build / go test with GOCACHE under ~/.cache: built and tested, nothing left in the host's ~/.cache" t_go_build_test

t_cargo() {
	require git
	if [ "$(id -u)" != 0 ] && ! have cargo; then
		skip_other_pass "cargo here is rustup's, under root's home"
	fi
	require cargo
	# rustup's proxies find their toolchains through RUSTUP_HOME
	rh=${RUSTUP_HOME:-$REAL_HOME/.rustup}
	[ -d "$rh" ] || skip_test "no rustup home at $rh: not tried"
	need_overlay
	fresh_home
	rm -rf "$HOME/.cargo/git/"* "$HOME/.cargo/registry/"*
	dep=$(newdir cargodep)
	(cd "$dep" && RUSTUP_HOME=$rh CARGO_HOME=$HOME/.cargo cargo init -q --lib --vcs git --name kbdep && git add -A && git commit -qm dep) ||
		fail "cannot make the dependency"
	app=$(newdir cargoapp)
	(cd "$app" && RUSTUP_HOME=$rh CARGO_HOME=$HOME/.cargo cargo init -q --bin --vcs none --name kbapp) || fail "cannot make the app"
	printf 'kbdep = { git = "file://%s" }\n' "$dep" >>"$app/Cargo.toml"
	# a dependency not fetched yet, with --net: fetched into the overlay
	(cd "$app" && RUSTUP_HOME=$rh CARGO_HOME=$HOME/.cargo kb_expect 0 --net -- cargo build -q)
	assert_exists "$app/target/debug/kbapp"
	assert_not_exists "$HOME/.cargo/git/db"
	# warm on the host now; offline (no --net: CARGO_NET_OFFLINE) it builds
	(cd "$app" && RUSTUP_HOME=$rh CARGO_HOME=$HOME/.cargo cargo fetch -q) || fail "cargo fetch on the host failed"
	rm -rf "$app/target"
	before=$(tree_sum "$HOME/.cargo")
	(cd "$app" && RUSTUP_HOME=$rh CARGO_HOME=$HOME/.cargo kb_expect 0 -- cargo build -q)
	assert_exists "$app/target/debug/kbapp"
	assert_streq "$(tree_sum "$HOME/.cargo")" "$before" "the host's ~/.cargo unchanged"
}
run_test "cargo: a new git dependency fetched with --net, then a warm one offline; both build, the host's ~/.cargo unchanged" t_cargo

t_absent_cache_denial() {
	fresh_home
	rm -rf "$HOME/.cargo"
	ws=$(newdir ws14)
	cd "$ws"
	kb -- sh -c 'echo control >ctl; mkdir -p "$HOME/.cargo/git/db"'
	cd "$KB_T"
	[ "$KB_RC" -ne 0 ] || fail "a write into an absent cache's place succeeded"
	assert_file_has_content "$ws/ctl" '^control$'
	assert_file_has_content "$KB_ERR" "the cache directory $HOME/.cargo/registry \\(\\[caches\\] cargo\\) does not exist, so kinbox could not make it writable \\(it creates nothing in your home\\); create it \\(mkdir -p $HOME/.cargo/registry\\)"
	assert_not_exists "$HOME/.cargo"
}
run_test "a cache whose parent is absent too: a write on the way to it is denied naming the cache and the mkdir that helps" t_absent_cache_denial

t_pip_venv() {
	[ -x /usr/bin/python3 ] || skip_test "no /usr/bin/python3"
	/usr/bin/python3 -c 'import ensurepip, venv' 2>/dev/null || skip_test "python3-venv is not installed"
	need_overlay
	fresh_home
	ws=$(newdir ws12)
	mkdir -p "$ws/lp/kbfixpkg"
	echo 'VALUE = 7' >"$ws/lp/kbfixpkg/__init__.py"
	printf 'from setuptools import setup\nsetup(name="kbfixpkg", version="0.1", packages=["kbfixpkg"])\n' >"$ws/lp/setup.py"
	before=$(tree_sum "$HOME/.cache")
	(cd "$ws" && kb_expect 0 -- sh -c '/usr/bin/python3 -m venv .venv && .venv/bin/pip install -q --no-index --no-build-isolation ./lp && .venv/bin/python -c "import kbfixpkg; print(kbfixpkg.VALUE)" >out')
	assert_streq "$(cat "$ws/out")" 7
	assert_exists "$ws/.venv/bin/python"
	assert_streq "$(tree_sum "$HOME/.cache")" "$before" "the host's ~/.cache unchanged"
}
run_test "pip install into a workspace venv: installed and importable, the host's ~/.cache unchanged" t_pip_venv

t_pre_commit() {
	require pre-commit git
	need_overlay
	fresh_home
	ws=$(newdir ws13)
	mkrepo "$ws"
	cat >"$ws/.pre-commit-config.yaml" <<'EOF'
repos:
  - repo: local
    hooks:
      - id: kbfix
        name: kbfix
        entry: sh -c 'echo hook-ran >hook.out'
        language: system
        pass_filenames: false
        always_run: true
EOF
	git -C "$ws" add .pre-commit-config.yaml
	# installed on the host first: its store in ~/.cache/pre-commit
	(cd "$ws" && pre-commit run --all-files >/dev/null 2>&1) || fail "pre-commit on the host failed"
	rm -f "$ws/hook.out"
	before=$(tree_sum "$HOME/.cache")
	(cd "$ws" && kb_expect 0 -- pre-commit run --all-files)
	assert_file_has_content "$ws/hook.out" '^hook-ran$'
	assert_streq "$(tree_sum "$HOME/.cache")" "$before" "the host's pre-commit store unchanged"
}
run_test "pre-commit run with its hooks installed: the hook runs, the host's store unchanged" t_pre_commit

done_testing
