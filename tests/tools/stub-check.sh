#!/bin/sh
# tests/tools/stub-check.sh — a self-test of the integration suites: runs every
# tests/t[0-9][0-9]-*.sh (as the caller only, no unprivileged pass) against
# a kinbox that runs nothing (tests/stub/kinbox-stub: one "kinbox:" line, exit
# 125) and the real kinpolicy. A test that still passes asserts nothing
# about kinbox, unless tests/stub-allow.txt lists it with the reason it
# legitimately passes without kinbox (it checks the host, or exercises only
# kinpolicy).
#
# Prints per suite "N tests, M failed against the stub, K passed (allowed:
# ...)". Exits 1 when a test passes that the allow list does not name, when
# an allow-list entry names a test that no longer exists or no longer
# passes (stale), when a suite fails no test at all (skipped whole), or
# when a suite dies or times out before its summary.
# Skips count as neither a pass nor a failure, and an allow-list entry
# whose test was skipped is not checked.
#
# sh tests/tools/stub-check.sh [SUITE...]: only these suites (t20-core.sh ...),
# and only their allow-list entries.
#
# Environment: KINBOX (default tests/stub/kinbox-stub), KINPOLICY (default
# ./kinpolicy), KB_STUB_ALLOW (default tests/stub-allow.txt),
# KB_STUB_TIMEOUT (seconds per suite, default 300), KB_VERBOSE=1 (show
# each suite's TAP output).
#
# Allow list: one test a line, SUITE<TAB>DESCRIPTION<TAB>WHY, SUITE the
# script's file name (t20-core.sh), DESCRIPTION exactly as in its "ok N -"
# line; "#" lines and empty lines are ignored.

set -u

# the suites' folder, tests/ (this script is in tests/tools/)
here=$(cd "$(dirname "$0")/.." && pwd)
top=$(cd "$here/.." && pwd)
: "${KINBOX:=$here/stub/kinbox-stub}"
: "${KINPOLICY:=$top/kinpolicy}"
: "${KB_STUB_ALLOW:=$here/stub-allow.txt}"
: "${KB_STUB_TIMEOUT:=300}"
case $KINBOX in /*) ;; *) KINBOX=$(pwd)/$KINBOX ;; esac
case $KINPOLICY in /*) ;; *) KINPOLICY=$(pwd)/$KINPOLICY ;; esac
export KINBOX KINPOLICY
unset KINBOX_MUST_WORK || true

[ -x "$KINBOX" ] || { echo "stub-check: $KINBOX is not executable"; exit 1; }
[ -x "$KINPOLICY" ] || { echo "stub-check: $KINPOLICY is not executable (make kinpolicy)"; exit 1; }
[ -r "$KB_STUB_ALLOW" ] || { echo "stub-check: no allow list $KB_STUB_ALLOW"; exit 1; }

work=$(mktemp -d /var/tmp/kinbox-stub.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM HUP

# the allow list without comments: SUITE<TAB>DESC<TAB>WHY
grep -v -e '^#' -e '^[[:space:]]*$' "$KB_STUB_ALLOW" >"$work/allow" || true
if awk -F '\t' 'NF < 3 || $1 == "" || $2 == "" || $3 == "" { bad = 1; print "stub-check: malformed allow-list line: " $0 } END { exit !bad }' "$work/allow"; then
	exit 1
fi

status=0
suites=
echo "# stub check: KINBOX=$KINBOX KINPOLICY=$KINPOLICY"
if [ $# -eq 0 ]; then
	set -- "$here"/t[0-9][0-9]-*.sh
	all=1
else
	all=0
fi
for t in "$@"; do
	case $t in
	*/*) ;;
	*) t=$here/$t ;;
	esac
	if [ ! -f "$t" ]; then
		echo "not ok $t: no such suite"
		status=1
		continue
	fi
	name=$(basename "$t")
	suites="$suites $name"
	log=$work/$name.log
	rc=0
	t0=$(date +%s)
	timeout "$KB_STUB_TIMEOUT" sh "$t" >"$log" 2>&1 </dev/null || rc=$?
	secs=$(($(date +%s) - t0))
	if [ "${KB_VERBOSE:-}" = 1 ]; then
		sed "s/^/# $name: /" "$log"
	fi
	# "ok N - DESC" (a pass; a skip is "ok N # SKIP ...") and "not ok N - DESC"
	sed -n 's/^ok [0-9][0-9]* - //p' "$log" | LC_ALL=C sort -u >"$work/pass"
	n=$(grep -c -E '^(not )?ok [0-9]+' "$log")
	m=$(grep -c -E '^not ok [0-9]+' "$log")
	k=$(wc -l <"$work/pass")
	s=$(grep -c -E '^ok [0-9]+ # SKIP' "$log")
	awk -F '\t' -v s="$name" '$1 == s { print $2 }' "$work/allow" |
		LC_ALL=C sort -u >"$work/allowed"
	LC_ALL=C comm -12 "$work/pass" "$work/allowed" >"$work/ok-allowed"
	LC_ALL=C comm -23 "$work/pass" "$work/allowed" >"$work/unexpected"
	LC_ALL=C comm -13 "$work/pass" "$work/allowed" >"$work/stale"
	allowed=$(awk '{ printf "%s\"%s\"", (NR > 1 ? "; " : ""), $0 }' "$work/ok-allowed")
	printf '%s: %d tests, %d failed against the stub, %d passed (allowed: %s)%s [%d s]\n' \
		"$name" "$n" "$m" "$k" "${allowed:-none}" \
		"$([ "$s" -gt 0 ] && printf ', %d skipped' "$s")" "$secs"
	if [ -s "$work/unexpected" ]; then
		status=1
		echo "not ok $name: these tests pass without kinbox running anything (make them check a positive effect, or allow them in $(basename "$KB_STUB_ALLOW") with the reason):"
		sed 's/^/    /' "$work/unexpected"
	fi
	while IFS= read -r desc; do
		# skipped here (an agent t82 drives is not installed): unchecked
		if grep -E '^ok [0-9]+ # SKIP ' "$log" |
			sed -E 's/^ok [0-9]+ # SKIP //' | grep -q -F -e "$desc: "; then
			echo "# $name: allow-list entry not checked, its test was skipped: $desc"
			continue
		fi
		status=1
		if grep -q -F -x -e "$desc" "$work/pass" ||
			grep -E '^(not )?ok [0-9]+ (- |# SKIP )' "$log" |
			sed -E 's/^(not )?ok [0-9]+ (- |# SKIP )//' |
			grep -q -F -e "$desc"; then
			echo "not ok $name: stale allow-list entry (the test no longer passes against the stub): $desc"
		else
			echo "not ok $name: stale allow-list entry (no such test): $desc"
		fi
	done <"$work/stale"
	if [ "$rc" -eq 124 ]; then
		status=1
		echo "not ok $name: did not finish within $KB_STUB_TIMEOUT s against the stub (a wait that does not notice that kinbox is gone?)"
	elif ! grep -q -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log"; then
		status=1
		echo "not ok $name: died without its summary line (exit status $rc) after $n tests:"
		tail -n 5 "$log" | sed 's/^/    /'
	elif [ "$m" -eq 0 ]; then
		status=1
		echo "not ok $name: no test failed against the stub (was the whole suite skipped?)"
	fi
done
# entries naming a suite that does not exist
[ "$all" = 1 ] || : >"$work/allow"
awk -F '\t' '{ print $1 }' "$work/allow" | LC_ALL=C sort -u |
	while IFS= read -r s; do
		case " $suites " in
		*" $s "*) ;;
		*) echo "not ok stale allow-list entries: no suite $s" ;;
		esac
	done >"$work/nosuite"
if [ -s "$work/nosuite" ]; then
	status=1
	cat "$work/nosuite"
fi
if [ "$status" -eq 0 ]; then
	echo "ok stub check: every test that passes against a kinbox that runs nothing is in $(basename "$KB_STUB_ALLOW")"
fi
exit "$status"
