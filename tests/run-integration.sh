#!/bin/sh
# tests/run-integration.sh — runs every tests/t[0-9][0-9]-*.sh (TAP) and
# prints one final "N passed, N failed, N skipped" line; exits non-zero when
# any test failed (or a script died without its summary).
#
# As root the suites run twice: once as root, then as the unprivileged user
# kinbox-test (created with useradd when missing) from a copy of the
# binaries (kinbox, kinbox-exec, kinbox-sh, kinpolicy) and the tests under
# /var/tmp that this user can read, with a home of its own under the same
# temporary directory (never the user's real one: its journal and config
# stay as they are; make integration gives the first pass one,
# tests/tools/isolated.sh).
#
# The agents tests/t82-agents.sh drives are not copied: the second pass
# reads them where make agents installed them (KB_AGENTS_MODULES, default
# tests/agents/node_modules), which must be readable by that user.
#
# Environment: KINBOX (binary for the first pass; default ./kinbox),
# KINPOLICY (default: beside KINBOX), KINBOX_TEST (the test build
# t30-egress.sh runs; default: beside KINBOX),
# KINBOX_MUST_WORK=1 (skips fail), KB_VERBOSE=1, KB_TEST_USER (default
# kinbox-test), KB_NO_UNPRIVILEGED=1 (root: skip the second pass),
# KB_SUITES="t20-core.sh t28-edges.sh" (only these scripts),
# KB_BIG_DIR (where t60-hostile.sh makes its big workspaces for the first
# pass and its landlock pass; default: one in the run's temporary
# directory, and another for the unprivileged passes).
#
# Each pass then runs the confinement suites (KB_LANDLOCK_SUITES, default
# t11-read-only.sh t12-secrets.sh t20-core.sh t28-edges.sh t60-hostile.sh;
# those of them in KB_SUITES when it is set) a second time under the
# landlock backend (KB_BACKEND=landlock, tests/lib.sh), labelled
# landlock/LABEL/SCRIPT;
# KB_NO_LANDLOCK=1 skips that. tests/t21-landlock.sh tests the landlock
# backend itself in the ordinary run; tests/t31-unix-sockets.sh, the bwrap
# backend's unix-socket mediation, is not among the confinement suites (the
# landlock backend refuses every unix socket: under it that suite skips
# itself whole).

set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
user=${KB_TEST_USER:-kinbox-test}

total_pass=0
total_fail=0
total_skip=0
work=$(mktemp -d /var/tmp/kinbox-it.XXXXXX) || exit 1
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM HUP

# add_summary LOG RC NAME: fold one script's summary into the totals
add_summary() {
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$1" |
		tail -n 1)
	if [ -z "$line" ]; then
		echo "# $3: no summary line (exit status $2): counted as a failure"
		total_fail=$((total_fail + 1))
		return
	fi
	# shellcheck disable=SC2086 # split "N passed, N failed, N skipped"
	set -- "$1" "$2" "$3" $line
	# $4 passed, $6 failed, $8 skipped
	total_pass=$((total_pass + $4))
	total_fail=$((total_fail + $6))
	total_skip=$((total_skip + $8))
	if [ "$2" -ne 0 ] && [ "$6" -eq 0 ]; then
		echo "# $3: exit status $2 with no failed test: counted as a failure"
		total_fail=$((total_fail + 1))
	fi
}

# run_suites LABEL DIR RUNNER...: runs DIR/t[0-9][0-9]-*.sh through RUNNER
# (only those named in $only too, when it is set)
only=
run_suites() {
	label=$1
	dir=$2
	shift 2
	found=0
	for t in "$dir"/t[0-9][0-9]-*.sh; do
		[ -f "$t" ] || continue
		if [ -n "${KB_SUITES:-}" ]; then
			case " $KB_SUITES " in
			*" $(basename "$t") "*) ;;
			*) continue ;;
			esac
		fi
		if [ -n "$only" ]; then
			case " $only " in
			*" $(basename "$t") "*) ;;
			*) continue ;;
			esac
		fi
		found=1
		name="$label/$(basename "$t")"
		echo "# === $name"
		log=$work/log.$$.$(basename "$t").$(printf '%s' "$label" | tr / -)
		rcfile=$work/rc
		_ts=$(date +%s)
		{
			"$@" sh "$t"
			echo $? >"$rcfile"
		} 2>&1 | tee "$log"
		rc=$(cat "$rcfile" 2>/dev/null || echo 1)
		# where the time goes, in the CI log
		echo "# $name: $(($(date +%s) - _ts)) s"
		add_summary "$log" "$rc" "$name"
	done
	if [ "$found" -eq 0 ]; then
		echo "# $label: no test scripts in $dir"
		total_fail=$((total_fail + 1))
	fi
}

# landlock_suites LABEL DIR RUNNER...: the confinement suites again under
# the landlock backend (RUNNER passes KB_BACKEND=landlock on), when any of
# them is selected
: "${KB_LANDLOCK_SUITES:=t11-read-only.sh t12-secrets.sh t20-core.sh t28-edges.sh t60-hostile.sh}"
landlock_suites() {
	[ "${KB_NO_LANDLOCK:-}" != 1 ] || return 0
	_any=0
	for _s in $KB_LANDLOCK_SUITES; do
		case " ${KB_SUITES:-$_s} " in
		*" $_s "*) [ -f "$2/$_s" ] && _any=1 ;;
		esac
	done
	[ "$_any" = 1 ] || return 0
	only=$KB_LANDLOCK_SUITES
	_t0=$(date +%s)
	run_suites "$@"
	echo "# $1: $(($(date +%s) - _t0)) s"
	only=
}

# --- pass 1: the caller (root or not) ---------------------------------------
: "${KINBOX:=$top/kinbox}"
: "${KINPOLICY:=$(dirname "$KINBOX")/kinpolicy}"
export KINBOX KINPOLICY
if [ "$(id -u)" -eq 0 ]; then
	label=root
else
	label=$(id -un 2>/dev/null || id -u)
fi
# t60-hostile.sh's big workspaces (131,000 directories): made once for the
# caller's two passes, its landlock pass takes out what the first planted
export KB_BIG_DIR="${KB_BIG_DIR:-$work/big-$label}"
mkdir -p "$KB_BIG_DIR"
_tp=$(date +%s)
run_suites "$label" "$here" env KB_BACKEND=
echo "# $label: $(($(date +%s) - _tp)) s"
landlock_suites "landlock/$label" "$here" env KB_BACKEND=landlock

# --- pass 2: as root, again as an unprivileged user -------------------------
unprivileged_skip() {
	echo "# unprivileged pass skipped: $*"
	if [ "${KINBOX_MUST_WORK:-}" = 1 ]; then
		total_fail=$((total_fail + 1))
	else
		total_skip=$((total_skip + 1))
	fi
}

if [ "$(id -u)" -eq 0 ] && [ "${KB_NO_UNPRIVILEGED:-}" != 1 ]; then
	if ! id "$user" >/dev/null 2>&1; then
		useradd --create-home --shell /bin/sh \
			--comment "kinbox integration tests" "$user" >/dev/null 2>&1 ||
			true
	fi
	if ! id "$user" >/dev/null 2>&1; then
		unprivileged_skip "cannot create the user $user (useradd)"
	elif ! command -v setpriv >/dev/null 2>&1; then
		unprivileged_skip "setpriv (util-linux) is not installed"
	else
		# a home of its own: the tests leave denials in the default
		# journal (~/.local/state/kinbox), and tools (git, npm) want one
		uhome=$work/home-$user
		mkdir -p "$uhome" && chown "$user:" "$uhome" && chmod 700 "$uhome"
		# the user's own big workspaces (t60-hostile.sh), for both passes
		ubig=$work/big-$user
		mkdir -p "$ubig" && chown "$user:" "$ubig" && chmod 700 "$ubig"
		stage=$work/stage
		mkdir -p "$stage/tests"
		cp "$KINBOX" "$stage/kinbox"
		[ -x "$KINPOLICY" ] && cp "$KINPOLICY" "$stage/kinpolicy"
		for b in kinbox-exec kinbox-sh; do
			if [ -x "$(dirname "$KINBOX")/$b" ]; then
				cp "$(dirname "$KINBOX")/$b" "$stage/"
			fi
		done
		# the test build (t30-egress.sh), beside the copy of kinbox
		kt=${KINBOX_TEST:-$(dirname "$KINBOX")/kinbox-test}
		if [ -x "$kt" ]; then
			cp "$kt" "$stage/kinbox-test"
		fi
		cp "$here/lib.sh" "$stage/tests/"
		for t in "$here"/t[0-9][0-9]-*.sh; do
			[ -f "$t" ] && cp "$t" "$stage/tests/"
		done
		# the helpers that make bwrap fail (t21-landlock.sh), that take
		# pidfd_getfd away and race a connect's address
		# (t31-unix-sockets.sh), the egress tests' upstream
		# (t30-egress.sh), the big workspaces' maker (t60-hostile.sh)
		mkdir -p "$stage/tests/helpers"
		for h in kb-no-userns kb-no-procwrite kb-no-pidfd-getfd kb-connect-race kb-upstream.py mktree.py; do
			if [ -x "$here/helpers/$h" ]; then
				cp "$here/helpers/$h" "$stage/tests/helpers/"
			fi
		done
		# the hook payloads, their goldens and schemas, and the
		# classifier's adversarial cases (t53-hooks.sh)
		mkdir -p "$stage/tests/fixtures" "$stage/tests/golden" "$stage/tests/unit"
		cp -R "$here/fixtures/hooks" "$stage/tests/fixtures/"
		cp -R "$here/golden/hooks" "$stage/tests/golden/"
		cp "$here/unit/readonly-cases.h" "$stage/tests/unit/"
		# the agents' driver, model server and pins (t82-agents.sh),
		# and README.md, whose hook blocks it configures them with;
		# the agents themselves are read where make agents put them
		mkdir -p "$stage/tests/agents"
		for f in "$here"/agents/*.py "$here"/agents/prefix-log \
			"$here"/agents/package.json "$here"/agents/package-lock.json; do
			[ -f "$f" ] && cp "$f" "$stage/tests/agents/"
		done
		cp "$top/README.md" "$stage/"
		chmod -R a+rX "$stage"
		chmod a+rx "$work"
		cd "$stage" || exit 1
		echo "# unprivileged pass as $user ($(id -u "$user")), from $stage"
		# the runner of this pass (KB_BACKEND follows it)
		set -- setpriv --reuid="$user" --regid="$user" --init-groups \
			env -i HOME="$uhome" USER="$user" LOGNAME="$user" \
			PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
			KINBOX="$stage/kinbox" KINPOLICY="$stage/kinpolicy" \
			KINBOX_MUST_WORK="${KINBOX_MUST_WORK:-}" \
			KB_VERBOSE="${KB_VERBOSE:-}" KB_BIG_DIR="$ubig" \
			KB_AGENTS_MODULES="${KB_AGENTS_MODULES:-$here/agents/node_modules}"
		_tp=$(date +%s)
		run_suites "$user" "$stage/tests" "$@" KB_BACKEND=
		echo "# $user: $(($(date +%s) - _tp)) s"
		landlock_suites "landlock/$user" "$stage/tests" "$@" KB_BACKEND=landlock
	fi
fi

echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
