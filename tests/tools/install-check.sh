#!/bin/sh
# tests/tools/install-check.sh — `make install-check`: what README's Install
# section says. make install into a temporary PREFIX puts the programs,
# the helper and the man pages there; the installed kinbox runs a real
# command with the installed kinbox-exec (its plan names that one, not the
# build tree's) and the effect is checked from outside; a DESTDIR staging
# holds the same files below DESTDIR with the PREFIX compiled in, and runs
# too; make uninstall removes the files. Each install builds kinbox for its
# PREFIX: the Makefile target rebuilds the tree for its own afterwards.
#
# Environment: MAKE (default make). Exit status 0 when every check holds.
# shellcheck disable=SC2016 # single-quoted $1 is the inner shell's
set -u

top=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
cd "$top" || exit 1
MAKE=${MAKE:-make}
fails=0

tmp=$(mktemp -d /var/tmp/kinbox-install.XXXXXX) || exit 1
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ok() {
	echo "ok - $*"
}
not_ok() {
	echo "not ok - $*"
	fails=$((fails + 1))
}

# inst DESTDIR PREFIX [TARGET]: make install (or TARGET) with every
# directory given, so that nothing from the caller's make line (a
# LIBEXECDIR=/usr/lib/...) sends a file elsewhere
inst() {
	$MAKE -s --no-print-directory "${3:-install}" DESTDIR="$1" \
		PREFIX="$2" BINDIR="$2/bin" LIBEXECDIR="$2/libexec/kinbox" \
		MANDIR="$2/share/man" DATADIR="$2/share" >"$tmp/make.log" 2>&1
}

FILES="bin/kinbox:755 bin/kinpolicy:755 bin/kinbox-sh:755
libexec/kinbox/kinbox-exec:755
share/man/man1/kinbox.1:644 share/man/man1/kinpolicy.1:644
share/man/man1/kinbox-sh.1:644
share/bash-completion/completions/kinbox:644
share/zsh/site-functions/_kinbox:644
share/man/man5/kinbox.conf.5:644"

# files ROOT: every installed file is there with its mode
files() {
	for fm in $FILES; do
		f=${fm%:*}
		m=${fm#*:}
		if [ ! -f "$1/$f" ]; then
			not_ok "$1/$f is installed"
		elif [ "$(stat -c %a "$1/$f")" != "$m" ]; then
			not_ok "$1/$f has mode $m (it has $(stat -c %a "$1/$f"))"
		fi
	done
}

# runs BIN WS LABEL: the installed kinbox runs a command: a file written in
# the workspace is there, one outside it is not, and the helper it used is
# HELPER (from its --dry-run plan)
runs() {
	mkdir -p "$2"
	echo before >"$tmp/outside"
	rc=0
	(cd "$2" && "$1" -- sh -c 'echo installed >f; echo after >"$1"' sh \
		"$tmp/outside") >"$tmp/run.out" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ] || [ "$(cat "$2/f" 2>/dev/null)" != installed ] ||
		[ "$(cat "$tmp/outside")" != before ]; then
		sed 's/^/#   /' "$tmp/run.out"
		not_ok "$3: the installed kinbox wrote in its workspace and not outside it (exit $rc)"
	else
		ok "$3: the installed kinbox ran the command: $2/f written, $tmp/outside unchanged"
	fi
	(cd "$2" && "$1" --dry-run -- true) >"$tmp/plan" 2>&1 || true
	# the argv line is the path, or a descriptor "  # " the path
	if awk -v h="$4" '$0 == h ||
		substr($0, length($0) - length(h) - 1) == "# " h { f = 1 }
		END { exit !f }' "$tmp/plan"; then
		ok "$3: its plan runs the installed helper $4"
	else
		grep kinbox-exec "$tmp/plan" | sed 's/^/#   /'
		not_ok "$3: its plan runs the installed helper $4"
	fi
}

# runs_sh BIN WS LABEL HELPER: the installed kinbox-sh runs a command under
# the kinbox beside it: the workspace file is there, the one outside is
# not, the refused write's $? is not 0, and the plan of that kinbox runs
# HELPER
runs_sh() {
	mkdir -p "$2"
	echo before >"$tmp/outside-sh"
	rc=0
	# stdout and stderr apart: sh writes its redirection error in pieces
	# on stderr (relayed by kinbox) while $? goes straight to stdout, so
	# in one file the two can interleave
	(cd "$2" && "$1" -c 'echo ok >inws; echo x >"$1" 2>/dev/null; echo $?' \
		sh "$tmp/outside-sh") >"$tmp/run.out" 2>"$tmp/run.err" || rc=$?
	if [ "$rc" -ne 0 ] || [ "$(cat "$2/inws" 2>/dev/null)" != ok ] ||
		[ "$(cat "$tmp/outside-sh")" != before ] ||
		! grep -q '^[1-9][0-9]*$' "$tmp/run.out"; then
		sed 's/^/#   /' "$tmp/run.out" "$tmp/run.err"
		not_ok "$3: the installed kinbox-sh wrote in its workspace and not outside it (exit $rc)"
	else
		ok "$3: the installed kinbox-sh ran sh -c: $2/inws written, $tmp/outside-sh unchanged"
	fi
	# the kinbox it ran is the one beside it: its plan names HELPER
	(cd "$2" && KINBOX_SH_FLAGS=--dry-run "$1" -c true) >"$tmp/plan" 2>&1 ||
		true
	if awk -v h="$4" '$0 == h ||
		substr($0, length($0) - length(h) - 1) == "# " h { f = 1 }
		END { exit !f }' "$tmp/plan"; then
		ok "$3: kinbox-sh runs the kinbox beside it (its plan runs $4)"
	else
		grep kinbox-exec "$tmp/plan" | sed 's/^/#   /'
		not_ok "$3: kinbox-sh runs the kinbox beside it (its plan runs $4)"
	fi
}

# --- make install PREFIX=... ------------------------------------------------
p=$tmp/prefix
if inst "" "$p"; then
	files "$p"
	runs "$p/bin/kinbox" "$tmp/ws" "PREFIX=$p" \
		"$p/libexec/kinbox/kinbox-exec"
	runs_sh "$p/bin/kinbox-sh" "$tmp/ws-sh" "PREFIX=$p" \
		"$p/libexec/kinbox/kinbox-exec"
	# the installed bash completion completes from the option table
	if command -v bash >/dev/null 2>&1; then
		got=$(bash -c '. "$1"; COMP_WORDS=(kinbox --wr); COMP_CWORD=1
			_kinbox; printf "%s\n" "${COMPREPLY[@]}"' sh \
			"$p/share/bash-completion/completions/kinbox" 2>&1)
		if [ "$got" = --write ]; then
			ok "PREFIX=$p: the installed bash completion completes kinbox --wr to --write"
		else
			not_ok "PREFIX=$p: the installed bash completion completes kinbox --wr to --write (got: $got)"
		fi
	fi
	if "$p/bin/kinpolicy" --version >"$tmp/kp" 2>&1 &&
		grep -q '^kinpolicy ' "$tmp/kp"; then
		ok "PREFIX=$p: the installed kinpolicy runs"
	else
		not_ok "PREFIX=$p: the installed kinpolicy runs"
	fi
	if man -l "$p/share/man/man1/kinbox.1" 2>/dev/null | grep -q 'kinbox'; then
		ok "PREFIX=$p: man -l renders the installed kinbox(1)"
	elif ! command -v man >/dev/null 2>&1; then
		ok "PREFIX=$p: man is not installed (the page is checked by make man-check)"
	else
		not_ok "PREFIX=$p: man -l renders the installed kinbox(1)"
	fi
else
	sed 's/^/#   /' "$tmp/make.log"
	not_ok "make install PREFIX=$p"
fi

# --- make install DESTDIR=... PREFIX=/opt/... (a package's staging) ---------
d=$tmp/stage
o=/opt/kinbox-install-check
if inst "$d" "$o"; then
	files "$d$o"
	if [ -e "$o" ]; then
		not_ok "DESTDIR=$d: nothing is installed outside DESTDIR ($o exists)"
	fi
	if grep -q "$o/libexec/kinbox" "$d$o/bin/kinbox"; then
		ok "DESTDIR=$d PREFIX=$o: kinbox was built for $o (its helper path)"
	else
		not_ok "DESTDIR=$d PREFIX=$o: kinbox was built for $o (its helper path)"
	fi
	# moved away from PREFIX, it still finds its own helper
	runs "$d$o/bin/kinbox" "$tmp/ws2" "DESTDIR=$d" \
		"$d$o/libexec/kinbox/kinbox-exec"
	runs_sh "$d$o/bin/kinbox-sh" "$tmp/ws2-sh" "DESTDIR=$d" \
		"$d$o/libexec/kinbox/kinbox-exec"
else
	sed 's/^/#   /' "$tmp/make.log"
	not_ok "make install DESTDIR=$d PREFIX=$o"
fi

# --- make uninstall ------------------------------------------------------------
if inst "" "$p" uninstall; then
	left=$(cd "$p" && find . -type f | sort)
	if [ -n "$left" ]; then
		not_ok "make uninstall PREFIX=$p removed every file (left: $left)"
	else
		ok "make uninstall PREFIX=$p removed every installed file"
	fi
else
	sed 's/^/#   /' "$tmp/make.log"
	not_ok "make uninstall PREFIX=$p"
fi

if [ "$fails" -ne 0 ]; then
	echo "install-check: $fails check(s) failed"
	exit 1
fi
echo "ok install-check: make install (PREFIX, DESTDIR) and make uninstall"
