#!/bin/sh
# tests/t51-decide.sh — the permission gate through the kinpolicy CLI:
# decide, classify, check-write and allow, as a harness calls them. The
# full mode x kind x planning table and the classifier's adversarial cases
# are unit tests (tests/unit/test-decide.c, test-readonly.c); this checks
# the verbs end to end: options, output, exit codes, sessions, real paths.
# shellcheck disable=SC2317,SC2164
# SC2317: the t_* bodies are called through run_test.
# SC2164: lib.sh sets -e (test bodies run under set -e): a failed cd fails.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

KP=$KINPOLICY
KP_OUT=$KB_T/kp.out
KP_ERR=$KB_T/kp.err
XDG_RUNTIME_DIR=$KB_T/run
export XDG_RUNTIME_DIR
mkdir -m 700 "$XDG_RUNTIME_DIR"
unset KINBOX_SESSION || true

kp() {
	KP_RC=0
	"$KP" "$@" </dev/null >"$KP_OUT" 2>"$KP_ERR" || KP_RC=$?
}

assert_empty_file() {
	if [ -s "$1" ]; then
		_show_file "$1"
		fail "$1 is not empty"
	fi
}

# decision VERB-ARGS...: the first line decide prints
decision() {
	kp decide "$@"
	[ "$KP_RC" = 0 ] || fail "decide exited $KP_RC: $(cat "$KP_ERR")"
	head -n 1 "$KP_OUT"
}

t_decide_table() {
	ws=$(newdir ws)
	cd "$ws"
	assert_streq "$(decision --mode auto --kind read)" ALLOW
	assert_streq "$(decision --mode strict --kind meta)" ALLOW
	assert_streq "$(decision --mode auto --kind network)" ALLOW
	assert_streq "$(decision --mode strict --kind publish)" ASK
	assert_streq "$(decision --mode auto --kind mcp --tool fetch)" ASK
	assert_streq "$(decision --mode strict --kind mcp --tool grep --read-only-hint)" ALLOW
	assert_streq "$(decision --mode auto --kind rm-rf)" ASK
	assert_file_has_content "$KP_OUT" '^rule: invalid-kind$'
	assert_streq "$(decision --mode auto --planning --kind edit --path x)" DENY
	assert_file_has_content "$KP_OUT" '^rule: planning-freeze$'
	assert_streq "$(decision --mode auto --planning --kind read)" ALLOW
}
run_test "decide: the mode table, unknown kinds ask, the planning freeze" t_decide_table

t_decide_shell() {
	ws=$(newdir ws)
	cd "$ws"
	# auto: SANDBOX, which is ALLOW under kinbox when the probe works
	if "$KINBOX" --status >/dev/null 2>&1; then
		assert_streq "$(decision --mode auto --kind shell --command 'rm -rf build')" ALLOW
		assert_file_has_content "$KP_OUT" '^rule: sandbox$'
	else
		assert_streq "$(decision --mode auto --kind shell --command 'rm -rf build')" ASK
	fi
	# strict: only a provably read-only command runs without asking
	assert_streq "$(decision --mode strict --kind shell --command 'ls -la src')" ALLOW
	assert_file_has_content "$KP_OUT" '^signature: ls$'
	# git status reads the work tree through the repository's filters
	assert_streq "$(decision --mode strict --kind shell --command 'git status -s')" ASK
	assert_streq "$(decision --mode strict --kind shell --command 'git -c core.pager=sh status')" ASK
	assert_streq "$(decision --mode strict --kind shell --command 'ls; rm -rf x')" ASK
	assert_file_has_content "$KP_OUT" '^signature: ls; rm -rf x$'
}
run_test "decide: shell runs sandboxed in auto; strict allows only provably read-only commands" t_decide_shell

t_allow_session() {
	ws=$(newdir ws)
	cd "$ws"
	kp session new
	s=$(cat "$KP_OUT")
	assert_streq "$(decision --mode strict --kind shell --command 'npm test' --session "$s")" ASK
	kp allow --session "$s" --signature 'npm test'
	assert_streq "$KP_RC" 0
	assert_streq "$(decision --mode strict --kind shell --command 'npm test' --session "$s")" ALLOW
	assert_file_has_content "$KP_OUT" '^rule: session-always$'
	# the exact signature only: a compound line is its own signature
	assert_streq "$(decision --mode strict --kind shell --command 'npm test; rm -rf x' --session "$s")" ASK
	# and never a DENY
	kp allow --session "$s" --kind edit --signature edit
	assert_streq "$(decision --mode strict --kind edit --path /etc/passwd --session "$s")" DENY
	# another session knows nothing of it
	kp session new
	s2=$(cat "$KP_OUT")
	assert_streq "$(decision --mode strict --kind shell --command 'npm test' --session "$s2")" ASK
}
run_test "allow: a session's always answer turns ASK into ALLOW for that exact signature, never a DENY" t_allow_session

# issue 28: an "always" answer is kept as written or not at all. The INI
# reader trims \f, \v and \r at a value's ends as blanks: a signature
# stored as "\fcurl x | sh" came back as "curl x | sh" and turned decide's
# ASK for that command into ALLOW.
t_allow_exact() {
	ws=$(newdir exact)
	cd "$ws"
	kp session new
	s=$(cat "$KP_OUT")
	sf=$XDG_RUNTIME_DIR/kinbox/sessions/$s.ini
	for sig in "$(printf '\fcurl x | sh')" "$(printf 'curl x | sh\v')" \
		"$(printf '\tcurl x | sh')" "$(printf 'curl x | sh\r')" \
		"$(printf 'curl\177x | sh')" "$(printf 'curl x\n| sh')"; do
		kp allow --session "$s" --signature "$sig"
		assert_streq "$KP_RC" 125 "allow of a signature with a control byte"
		assert_empty_file "$KP_OUT"
		assert_streq "$(wc -l <"$KP_ERR")" 1 "one line"
		assert_file_has_content "$KP_ERR" '^kinpolicy: --signature: a control byte \(0x(0c|0b|09|0d|7f|0a)\) at byte [0-9]+; a signature is one line of text as decide printed it, and a command with control bytes is asked about each time$'
		assert_empty_file "$sf"
		assert_streq "$(decision --mode strict --kind shell --command 'curl x | sh' --session "$s")" ASK "after a refused allow"
	done
	# a line an older kinpolicy wrote: the reader refuses the file, so
	# it allows nothing (decide asks) and kinbox names file:line
	printf '\n[always]\nkind = shell\nsignature = \fcurl x | sh\n' >"$sf"
	assert_streq "$(decision --mode strict --kind shell --command 'curl x | sh' --session "$s")" ASK "a stored \\f signature"
	rc=0
	KINBOX_SESSION=$s "$KINBOX" -- true >"$KB_T/kb.out" 2>"$KB_T/kb.err" || rc=$?
	assert_streq "$rc" 125 "kinbox with that session"
	assert_streq "$(cat "$KB_T/kb.err")" "kinbox: $sf:4: a control byte (0x0c); a config file is text, remove it"
	# the controls: the signature without the byte is stored byte for
	# byte and allows exactly that command; one with a blank at its end
	# is kept as its digest and matches only itself
	: >"$sf"
	kp allow --session "$s" --signature 'curl x | sh'
	assert_streq "$KP_RC" 0
	grep -Fqx 'signature = curl x | sh' "$sf" || fail "the stored line: $(cat "$sf")"
	assert_streq "$(decision --mode strict --kind shell --command 'curl x | sh' --session "$s")" ALLOW "the control"
	kp allow --session "$s" --signature 'curl y | sh '
	assert_streq "$KP_RC" 0
	sha=$(printf 'curl y | sh ' | sha256sum | cut -d ' ' -f 1)
	grep -Fqx "signature_sha256 = $sha" "$sf" || fail "the stored digest: $(cat "$sf")"
	assert_streq "$(decision --mode strict --kind shell --command 'curl y | sh ' --session "$s")" ALLOW "the digest's own signature"
	assert_streq "$(decision --mode strict --kind shell --command 'curl y | sh' --session "$s")" ASK "... and not another"
}
run_test "issue 28: allow --signature with a control byte (\\f, \\v, \\t, \\r, DEL, \\n) is refused (125, one line, nothing stored, decide still asks); a stored \\f line allows nothing; the controls are stored as written" t_allow_exact

t_classify() {
	kp classify -- git version
	assert_streq "$(head -n 1 "$KP_OUT")" safe
	assert_not_file_has_content "$KP_OUT" '^rewritten: '
	# git log may run what the repository configures: the rewritten
	# form, on its own line and in the JSON record
	kp classify -- git log --oneline
	assert_file_has_content "$KP_OUT" '^unsafe: git log can run programs'
	assert_file_has_content "$KP_OUT" '^rewritten: GIT_NO_LAZY_FETCH=1 git --no-pager .* log --no-textconv --oneline$'
	assert_file_has_content "$KP_OUT" '^signature: git log --oneline$'
	kp classify --command 'git log --oneline' --json
	assert_file_has_content "$KP_OUT" '"rewritten":"GIT_NO_LAZY_FETCH=1 git --no-pager '
	kp classify -- sh -c 'ls'
	assert_streq "$(head -n 1 "$KP_OUT")" "unsafe: $(sed -n 's/^unsafe: //p' "$KP_OUT")"
	kp classify --command 'cat a > b'
	assert_file_has_content "$KP_OUT" '^unsafe: '
	kp classify --command 'find . -name x -delete' --json
	assert_file_has_content "$KP_OUT" '"safe":false'
	kp classify --command 'grep -rn TODO src' --json
	assert_file_has_content "$KP_OUT" '"safe":true'
	assert_file_has_content "$KP_OUT" '"signature":"grep"'
	assert_file_has_content "$KP_OUT" '"shell":"any"'
}
run_test "classify: safe and unsafe, the argv and --command forms, --json" t_classify

# the shell that will run the line: without --shell, read-only in each
t_classify_shell() {
	kp classify --command 'ls "$HOME" $(pwd)'
	assert_streq "$(head -n 1 "$KP_OUT")" safe
	assert_file_has_content "$KP_OUT" '^shell: any$'
	# zsh's printf evaluates numeric arguments as arithmetic
	for sh in sh bash; do
		kp classify --shell "$sh" --command 'printf "%d\n" "$N"'
		assert_streq "$(head -n 1 "$KP_OUT")" safe "$sh"
		assert_file_has_content "$KP_OUT" "^shell: $sh\$"
	done
	for sh in zsh any; do
		kp classify --command 'printf "%d\n" "$N"' --shell "$sh" --json
		assert_file_has_content "$KP_OUT" '"safe":false'
		assert_file_has_content "$KP_OUT" "\"shell\":\"$sh\""
	done
	kp classify --shell bash -- test -v 'a[$(id)]'
	assert_file_has_content "$KP_OUT" '^unsafe: test -v '
	# an interactive zsh without interactive_comments reads # as a word
	kp classify --shell bash --command 'ls #; rm -rf x'
	assert_streq "$(head -n 1 "$KP_OUT")" safe
	kp classify --shell zsh --command 'ls #; rm -rf x'
	assert_file_has_content "$KP_OUT" '^unsafe: '
	# decide passes it on, and says which
	assert_streq "$(decision --mode strict --kind shell --shell bash --command 'printf "%d" "$N"')" ALLOW
	assert_file_has_content "$KP_OUT" '^shell: bash$'
	assert_streq "$(decision --mode strict --kind shell --command 'printf "%d" "$N"')" ASK
	kp decide --mode strict --kind shell --command '( ls; cat "$HOME/.profile" )' --json
	assert_file_has_content "$KP_OUT" '"decision":"ALLOW"'
	assert_file_has_content "$KP_OUT" '"shell":"any"'
	# these really are what they claim, in the real shells
	d=$(newdir shells)
	for sh in sh bash zsh; do
		have "$sh" || continue
		"$sh" -c "test -v 'options[\$(touch $d/v-$sh)]'" 2>/dev/null || true
		"$sh" -c "printf %d 'options[\$(touch $d/p-$sh)]'" \
			>/dev/null 2>&1 || true
	done
	if have bash; then assert_exists "$d/v-bash"; fi
	if have zsh; then
		assert_exists "$d/v-zsh"
		assert_exists "$d/p-zsh"
	fi
	if have bash; then assert_not_exists "$d/p-bash"; fi
	assert_not_exists "$d/p-sh"
}
run_test "classify, decide: --shell names the shell; without it a line must be read-only in sh, bash and zsh" t_classify_shell

# A repository whose config names a program for everything git can be
# made to run, each leaving a mark in $marks: core.fsmonitor, diff.external,
# diff.<drv>.command, a textconv driver and a clean/smudge filter picked by
# .gitattributes, core.pager and pager.<cmd>, gpg.program with
# log.showSignature and a signed commit, a post-index-change hook. It is
# checked from outside: the mark file.
hostile_repo() {
	_r=$1
	_bin=$KB_T/hostile-bin
	marks=$KB_T/marks
	mkdir -p "$_bin" "$_r"
	for _p in fsmonitor external diffcmd textconv clean smudge pager \
		gpg hook; do
		{
			printf '#!/bin/sh\n'
			printf 'echo %s >>"%s"\n' "$_p" "$marks"
			# shellcheck disable=SC2016 # the script's own $1
			case $_p in
			textconv) printf 'cat "$1"\n' ;;
			clean | smudge | pager) printf 'cat\n' ;;
			fsmonitor | gpg) printf 'exit 1\n' ;;
			esac
		} >"$_bin/$_p"
		chmod +x "$_bin/$_p"
	done
	git init -q "$_r"
	(
		cd "$_r"
		printf '*.tc diff=tc\n*.drv diff=drv\n*.flt filter=flt\n' \
			>.gitattributes
		for _f in t.tc d.drv c.flt plain; do echo one >"$_f"; done
		git add -A
		git commit -qm one
		for _f in t.tc d.drv c.flt plain; do echo two >"$_f"; done
		git commit -qam two
		# a signed commit on top (the signature need not verify: gpg
		# runs to find out), same tree
		_t=$(git rev-parse 'HEAD^{tree}')
		_c=$(printf 'tree %s\nparent %s\nauthor t <t@t> 1 +0000\ncommitter t <t@t> 1 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n AAAA\n -----END PGP SIGNATURE-----\n\nsigned\n' \
			"$_t" "$(git rev-parse HEAD)" |
			git hash-object -t commit -w --stdin)
		git update-ref HEAD "$_c"
		git tag v1 HEAD~1
		echo three >plain
		git add plain
		# same size, older mtime: git must read it, through the filter
		echo TWO >c.flt
		touch -d '2001-01-01' c.flt
		mkdir hooks
		cp "$_bin/hook" hooks/post-index-change
		git config core.fsmonitor "$_bin/fsmonitor"
		git config diff.external "$_bin/external"
		git config diff.drv.command "$_bin/diffcmd"
		git config diff.tc.textconv "$_bin/textconv"
		git config filter.flt.clean "$_bin/clean"
		git config filter.flt.smudge "$_bin/smudge"
		git config core.pager "$_bin/pager"
		for _c in status diff log show blame grep config clean; do
			git config "pager.$_c" "$_bin/pager"
		done
		git config gpg.program "$_bin/gpg"
		git config log.showSignature true
		git config core.hooksPath "$_r/hooks"
	)
	rm -f "$marks"
}

# in_repo CMD: runs the shell line CMD in $repo, output in $KB_T/git.out
in_repo() {
	(cd "$repo" && sh -c "$1") </dev/null >"$KB_T/git.out" 2>&1 || true
}

# on_tty CMD: the same on a terminal (util-linux script), so that git pages
on_tty() {
	(cd "$repo" && TERM=dumb script -qec "$1" /dev/null) </dev/null \
		>"$KB_T/git.out" 2>&1 || true
}

t_git_hostile() {
	repo=$KB_T/hostile
	hostile_repo "$repo"
	# positive controls: the bare commands do run what the config names
	in_repo 'git status --short'
	assert_file_has_content "$marks" '^fsmonitor$'
	assert_file_has_content "$marks" '^clean$'
	assert_file_has_content "$marks" '^hook$'
	rm -f "$marks"
	in_repo 'git diff --cached'
	assert_file_has_content "$marks" '^external$'
	rm -f "$marks"
	in_repo 'git log -p'
	assert_file_has_content "$marks" '^textconv$'
	assert_file_has_content "$marks" '^gpg$'
	rm -f "$marks"
	in_repo 'git diff HEAD~2 HEAD~1'
	assert_file_has_content "$marks" '^diffcmd$'
	rm -f "$marks"
	in_repo 'git blame HEAD -- t.tc'
	assert_file_has_content "$marks" '^textconv$'
	rm -f "$marks"
	if have script; then
		on_tty 'git log -1 --oneline'
		assert_file_has_content "$marks" '^pager$'
		rm -f "$marks"
		on_tty 'git config --list'
		assert_file_has_content "$marks" '^pager$'
		rm -f "$marks"
	fi
	in_repo 'git clean -n'
	assert_file_has_content "$marks" '^fsmonitor$'
	rm -f "$marks"
	# git add -n hashes the files through the clean filters and writes
	# the index: never read-only
	in_repo 'git add -n c.flt'
	assert_file_has_content "$marks" '^clean$'
	rm -f "$marks"
	kp classify --command 'git add -n c.flt'
	assert_file_has_content "$KP_OUT" '^unsafe: '
	assert_not_file_has_content "$KP_OUT" '^rewritten: '
	# cat-file has no --text or --filter: git takes them for --textconv
	# and --filters, which run the smudge filter (seen here), even in
	# the rewritten form
	in_repo 'git cat-file --filter HEAD:c.flt'
	assert_file_has_content "$marks" '^smudge$'
	rm -f "$marks"
	for c in 'git cat-file --filter HEAD:c.flt' 'git cat-file --text HEAD:t.tc' \
		"GIT_NO_LAZY_FETCH=1 git --no-pager -c core.fsmonitor=false cat-file --filter --path=c.flt HEAD:c.flt"; do
		kp classify --command "$c"
		assert_file_has_content "$KP_OUT" '^unsafe: '
		assert_not_file_has_content "$KP_OUT" '^rewritten: '
	done

	# what reads the work tree through the filters: ASK, no rewrite
	for c in 'git status' 'git status --short' 'git diff' 'git diff HEAD' \
		'git blame t.tc' 'git diff --no-index plain c.flt'; do
		kp classify --command "$c"
		assert_file_has_content "$KP_OUT" '^unsafe: .*clean and process filters'
		assert_not_file_has_content "$KP_OUT" '^rewritten: '
		assert_streq "$(decision --mode strict --kind shell --command "$c")" ASK "$c"
		assert_not_file_has_content "$KP_OUT" '^rewritten: '
	done
	# the user's -c and --exec-path are never trusted
	for c in 'git -c core.fsmonitor=evil status' "git -c alias.x='!sh' x" \
		'git --exec-path=/tmp/x status' 'git -c core.fsmonitor=evil log'; do
		kp classify --command "$c"
		assert_file_has_content "$KP_OUT" '^unsafe: '
		assert_not_file_has_content "$KP_OUT" '^rewritten: '
	done

	# the rest: ASK with a rewritten form, which decide allows, and
	# which runs nothing in the hostile repository (run twice: a pipe,
	# and a terminal where git pages); CMD|PATTERN its output must show
	n=0
	while IFS='|' read -r c want; do
		kp classify --command "$c"
		assert_file_has_content "$KP_OUT" '^unsafe: .*can run programs'
		rw=$(sed -n 's/^rewritten: //p' "$KP_OUT")
		[ -n "$rw" ] || fail "no rewritten form for: $c"
		kp classify --command "$rw"
		assert_streq "$(head -n 1 "$KP_OUT")" safe "$rw"
		assert_streq "$(decision --mode strict --kind shell --command "$c")" ASK "$c"
		assert_file_has_content "$KP_OUT" '^rewritten: '
		assert_streq "$(decision --mode strict --kind shell --command "$rw")" ALLOW "$rw"
		kp decide --mode strict --kind shell --command "$c" --json
		assert_file_has_content "$KP_OUT" '"rewritten":"GIT_NO_LAZY_FETCH=1 git '
		in_repo "$rw"
		assert_not_exists "$marks"
		assert_file_has_content "$KB_T/git.out" "$want"
		if have script; then
			on_tty "$rw"
			assert_not_exists "$marks"
			assert_file_has_content "$KB_T/git.out" "$want"
		fi
		n=$((n + 1))
	done <<'LIST'
git log -p|^\+two
git log -1 --stat|signed
git show HEAD~1|^\+two
git show HEAD~1 -- t.tc|^\+two
git diff --cached|^\+three
git diff HEAD~2 HEAD~1|^-one
git diff HEAD~2..HEAD~1 -- d.drv|^\+two
git blame HEAD -- t.tc|two
git blame HEAD -- c.flt|two
git grep -n TWO|c.flt:1:TWO
git ls-files -s|c.flt
git cat-file -p HEAD~1:t.tc|^two
git rev-parse :plain|^[0-9a-f]{40}
git branch -v|signed
git tag -l|^v1
git shortlog HEAD|signed
git clean -nd|Would remove hooks/
LIST
	assert_streq "$n" 17
	# git config reads; only the pager can run
	kp classify --command 'git config --get core.hooksPath'
	rw=$(sed -n 's/^rewritten: //p' "$KP_OUT")
	assert_streq "$rw" 'git --no-pager config --get core.hooksPath'
	assert_streq "$(decision --mode strict --kind shell --command "$rw")" ALLOW
	if have script; then
		on_tty "$rw"
		assert_not_exists "$marks"
		assert_file_has_content "$KB_T/git.out" 'hooks'
	fi
	# `git config NAME --get` sets NAME to "--get"
	assert_streq "$(decision --mode strict --kind shell --command 'git config x.y --get')" ASK
	assert_not_file_has_content "$KP_OUT" '^rewritten: '
}
run_test "git: a hostile repository's configured programs; what reads the work tree asks, the rest is allowed rewritten and runs nothing" t_git_hostile

# A partial clone whose promisor remote is reached through an alias
# (alias.remote-<name>): any object it lacks makes git fetch, and the
# alias runs. protocol.*.allow cannot stop an alias; GIT_NO_LAZY_FETCH can.
t_git_lazy_fetch() {
	repo=$KB_T/partial
	marks=$KB_T/marks
	rm -f "$marks"
	mkrepo "$repo"
	(
		cd "$repo"
		echo hello >f
		git add f
		git commit -qm f
		_b=$(git rev-parse HEAD:f)
		rm -f ".git/objects/$(echo "$_b" | cut -c1-2)/$(echo "$_b" | cut -c3-)"
		git config core.repositoryformatversion 1
		git config extensions.partialClone origin
		git config remote.origin.url evil::x
		git config remote.origin.promisor true
		git config protocol.evil.allow always
		git config alias.remote-evil "!echo lazy >>'$marks'; false"
	)
	in_repo 'git show HEAD:f'
	assert_file_has_content "$marks" '^lazy$'
	rm -f "$marks"
	kp classify --command 'git show HEAD:f'
	assert_file_has_content "$KP_OUT" '^unsafe: .*lazy fetch'
	rw=$(sed -n 's/^rewritten: //p' "$KP_OUT")
	assert_streq "$(decision --mode strict --kind shell --command "$rw")" ALLOW
	in_repo "$rw"
	if [ -e "$marks" ]; then
		fail "$(git --version) ignores GIT_NO_LAZY_FETCH (it needs 2.39.4, 2.40.2, 2.41.1, 2.42.2, 2.43.4, 2.44.1 or 2.45)"
	fi
	assert_file_has_content "$KB_T/git.out" 'lazy fetching disabled'
}
run_test "git: a partial clone's lazy fetch does not run in the rewritten form" t_git_lazy_fetch

t_check_write() {
	ws=$(newdir ws)
	out=$(newdir outside)
	cd "$ws"
	mkdir -p .git sub
	ln -s "$out" escape
	kp check-write src/new.c
	assert_streq "$(head -n 1 "$KP_OUT")" ALLOW
	kp check-write src/new.c --mode strict
	assert_streq "$(head -n 1 "$KP_OUT")" ASK
	kp check-write escape/f
	assert_streq "$(head -n 1 "$KP_OUT")" DENY
	kp check-write sub/../../outside/f
	assert_streq "$(head -n 1 "$KP_OUT")" DENY
	kp check-write .env.local
	assert_streq "$(head -n 1 "$KP_OUT")" DENY
	kp check-write .git/config
	assert_streq "$(head -n 1 "$KP_OUT")" ASK
	kp check-write package-lock.json --json
	assert_file_has_content "$KP_OUT" '"decision":"ASK"'
	kp check-write "$out/f" --write "$out"
	assert_streq "$(head -n 1 "$KP_OUT")" ALLOW
	# a hard link to a file outside: writing it writes that file
	echo secret >"$out/victim"
	ln "$out/victim" "$ws/innocent.txt"
	kp check-write innocent.txt
	assert_streq "$(head -n 1 "$KP_OUT")" ASK
	assert_file_has_content "$KP_OUT" '^rule: hardlink$'
	# and so does decide, for an edit of it, in auto mode too (it said
	# ALLOW: only a protected path raised an edit's verdict)
	assert_streq "$(decision --mode auto --kind edit --path innocent.txt)" ASK
	assert_file_has_content "$KP_OUT" '^rule: hardlink$'
	# the control: a file of one name is allowed
	echo mine >"$ws/mine.txt"
	assert_streq "$(decision --mode auto --kind edit --path mine.txt)" ALLOW
	assert_file_has_content "$KP_OUT" '^rule: mode-table$'
}
run_test "check-write: symlinks and .. judged at the real location, secrets DENY, protected ASK, extra roots" t_check_write

# --exit-status: the verdict as the status, for a shell hook; 125 stays
# bad input. The control: without it every verdict exits 0.
t_exit_status() {
	ws=$(newdir ws)
	cd "$ws"
	mkdir -p .git
	# VERB-ARGS|STATUS with --exit-status (without it: 0, same first line)
	while IFS='|' read -r args want first; do
		# shellcheck disable=SC2086 # the words of the list
		kp $args
		assert_streq "$KP_RC" 0 "kinpolicy $args (no --exit-status)"
		assert_streq "$(head -n 1 "$KP_OUT")" "$first" "kinpolicy $args"
		cp "$KP_OUT" "$KB_T/plain.out"
		# shellcheck disable=SC2086
		kp $args --exit-status
		assert_streq "$KP_RC" "$want" "kinpolicy $args --exit-status"
		assert_files_equal "$KB_T/plain.out" "$KP_OUT"
		assert_empty_file "$KP_ERR"
		# shellcheck disable=SC2086
		kp $args --exit-status --json
		assert_streq "$KP_RC" "$want" "kinpolicy $args --exit-status --json"
		assert_file_has_content "$KP_OUT" '^\{"schema":1,'
	done <<'EOF'
decide --mode auto --kind read|0|ALLOW
decide --mode strict --kind publish|10|ASK
decide --mode auto --planning --kind edit --path x|11|DENY
decide --mode auto --kind edit --path .env|11|DENY
decide --mode auto --kind edit --path .git/config|10|ASK
check-write new.c|0|ALLOW
check-write new.c --mode strict|10|ASK
check-write .git/config|10|ASK
check-write .env|11|DENY
check-write /etc/passwd|11|DENY
EOF
	# classify: 0 read-only, 10 not provably read-only, never 11; the
	# flag comes before the command (after -- it is the command's word)
	kp classify --exit-status -- ls -la
	assert_streq "$KP_RC" 0 "classify ls"
	assert_streq "$(head -n 1 "$KP_OUT")" safe
	kp classify --exit-status --command 'rm -rf x'
	assert_streq "$KP_RC" 10 "classify rm"
	kp classify --command 'rm -rf x'
	assert_streq "$KP_RC" 0 "classify rm, no --exit-status"
	kp classify --exit-status --json -- git log
	assert_streq "$KP_RC" 10 "classify git log (rewritten)"
	assert_file_has_content "$KP_OUT" '"rewritten":'
	kp classify -- rm --exit-status
	assert_streq "$KP_RC" 0 "classify -- rm --exit-status: the flag is rm's"
	assert_file_has_content "$KP_OUT" '^signature: rm --exit-status$'
	# a hook that runs only on 0: bad input never runs (125)
	kp decide --mode strict --exit-status
	assert_streq "$KP_RC" 125 "decide without --kind"
	kp check-write "" --exit-status
	assert_streq "$KP_RC" 125 "check-write of an empty path"
	assert_file_has_content "$KP_ERR" '^kinpolicy: check-write: empty path'
}
run_test "--exit-status: decide and check-write exit 0 ALLOW, 10 ASK, 11 DENY, classify 0 safe / 10 unsafe; without it 0; bad input 125" t_exit_status

# The same rule has the same name in decide and check-write, and every
# JSON object starts with "schema":1
t_json_names() {
	ws=$(newdir ws)
	out=$(newdir outside)
	cd "$ws"
	mkdir -p .git
	echo x >"$out/victim"
	ln "$out/victim" hard.txt
	for p in .env .git/config hard.txt "$out/f" package-lock.json; do
		kp check-write "$p" --json
		cw=$(sed -n 's/.*"rule":"\([^"]*\)".*/\1/p' "$KP_OUT")
		assert_file_has_content "$KP_OUT" '^\{"schema":1,"decision":"[A-Z]*","rule":"[a-z-]*","reason":".*","path":"/'
		kp decide --mode auto --kind edit --path "$p" --json
		assert_file_has_content "$KP_OUT" '^\{"schema":1,"decision":"[A-Z]*","rule":"[a-z-]*","reason":'
		dr=$(sed -n 's/.*"rule":"\([^"]*\)".*/\1/p' "$KP_OUT")
		assert_streq "$dr" "$cw" "the rule for $p"
	done
	assert_streq "$cw" protected-path "the last one, a lockfile"
	assert_not_file_has_content "$KP_OUT" '"step"'
	kp decide --mode auto --kind read
	assert_file_has_content "$KP_OUT" '^rule: mode-table$'
	kp classify --json --command 'ls'
	assert_file_has_content "$KP_OUT" '^\{"schema":1,"safe":true,"reason":"","shell":"any","signature":"ls"\}$'
	kp session new --json
	assert_file_has_content "$KP_OUT" '^\{"schema":1,"session":"ses_[0-9a-f]{16}"\}$'
	s=$(sed 's/.*"\(ses_[0-9a-f]*\)".*/\1/' "$KP_OUT")
	kp allow --session "$s" --signature 'npm test' --json
	assert_file_has_content "$KP_OUT" "^\{\"schema\":1,\"session\":\"$s\",\"kind\":\"shell\",\"signature\":\"npm test\"\}\$"
	# bytes that are not UTF-8 still make the object (as '?'), never an
	# empty answer
	bad=$(printf 'f\377.txt')
	kp check-write "$bad" --json
	assert_streq "$KP_RC" 0 "check-write of a non-UTF-8 name"
	assert_file_has_content "$KP_OUT" '"path":"/.*/f\?\.txt"\}$'
	kp decide --mode strict --kind shell --command "cat $bad" --json
	assert_streq "$KP_RC" 0 "decide of a non-UTF-8 command"
	assert_file_has_content "$KP_OUT" '^\{"schema":1,"decision":"ASK","rule":"classifier",'
	assert_not_file_has_content "$KP_OUT" '"signature"'
}
run_test "JSON: schema 1 first in decide, classify, check-write, session, allow; decide and check-write name the rule the same (rule, protected-path, hardlink); not-UTF-8 bytes as ?" t_json_names

t_bad_input() {
	# ARGS|THE LINE kinpolicy prints (and nothing on stdout)
	while IFS='|' read -r args want; do
		# shellcheck disable=SC2086
		kp $args
		assert_streq "$KP_RC" 125 "kinpolicy $args"
		[ ! -s "$KP_OUT" ] || fail "kinpolicy $args printed on stdout: $(cat "$KP_OUT")"
		assert_streq "$(cat "$KP_ERR")" "kinpolicy: $want" "kinpolicy $args"
		assert_streq "$(wc -l <"$KP_ERR")" 1 "one line: kinpolicy $args"
	done <<'EOF'
decide --kind shell|decide: --mode auto|strict is required
decide --mode auto|decide: --kind is required (read, edit, shell, meta, mcp, network, rig, outpost, publish)
decide --mode nope --kind read|--mode nope: unknown mode; use auto or strict
decide --mode auto --kind read --session ses_nosuchsession|--session ses_nosuchsession: the session file cannot be read; create one with kinpolicy session new
classify|usage: kinpolicy classify [--shell any|sh|bash|zsh] [--json] [--exit-status] {-- COMMAND [ARG...] | --command STRING}
classify --exit-status|usage: kinpolicy classify [--shell any|sh|bash|zsh] [--json] [--exit-status] {-- COMMAND [ARG...] | --command STRING}
check-write|usage: kinpolicy check-write PATH [--workspace DIR] [--write DIR]... [--mode auto|strict] [--json] [--exit-status]
check-write x --exit-status extra|check-write: unexpected argument 'extra'; give one PATH, first
decide --mode nope --kind read --exit-status|--mode nope: unknown mode; use auto or strict
decide --mode auto --exit-status|decide: --kind is required (read, edit, shell, meta, mcp, network, rig, outpost, publish)
decide --mode auto --kind read --bogus|decide: unknown option '--bogus'; see kinpolicy --help
allow --session x|usage: kinpolicy allow --session ID --signature SIG [--kind KIND] [--json]
allow --session ../../x --signature ls|--session ../../x: not a session id; create one with kinpolicy session new
allow --session ses_0123456789abcdef --signature|usage: kinpolicy allow --session ID --signature SIG [--kind KIND] [--json]
classify --shell fish -- ls|--shell fish: unknown shell; use any, sh, bash or zsh
classify --shell bash --shell zsh -- ls|usage: kinpolicy classify [--shell any|sh|bash|zsh] [--json] [--exit-status] {-- COMMAND [ARG...] | --command STRING}
decide --mode strict --kind shell --shell csh|--shell csh: unknown shell; use any, sh, bash or zsh
EOF
}
run_test "bad input: usage errors exit 125 with their one line" t_bad_input

done_testing
