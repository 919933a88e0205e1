#!/bin/sh
# tests/tools/check-layers.sh — `make check-layers`: the stages stay layered.
#
# The stages, their sources and the programs' link lists are read from the
# Makefile (STAGES, each stage's STAGE_SRCS, KINBOX_OBJS, KINBOX_LIBS,
# KINPOLICY_OBJS, KINPOLICY_LIBS); what each may use is the rule below
# (allowed), which must name every stage the Makefile has:
#   lib < profile < gitguard < host < mediate < backends
#   profile < classify;   classify, host, gitguard < sidecar
# and the programs above them: kinbox (kinbox.c) links classify, backends,
# mediate, host, gitguard, profile and lib, never sidecar/; kinpolicy
# (kinpolicy.c and sidecar/kinpolicy-*.c) links sidecar, classify, host,
# gitguard, profile and lib, never backends/ or mediate/; kinbox-sh
# (kinbox-sh.c) none.
#
#  (a) includes: every #include "..." in the stage folders and the
#      top-level .c/.h files, resolved against the including file's
#      folder; a folder may include its own headers and those of the
#      stages it may use. The folder -> folder graph is printed either way.
#      Inside a folder, the files (a.c with a.h) use each other one way
#      only: no a.c/a.h including b.h while b.c/b.h includes a.h, nor a
#      longer ring of them.
#  (b) symbols, with nm: a stage library refers to no symbol that another
#      stage's library defines unless it may use that stage (the linker's
#      view of (a): classify/ calling into backends/ fails here even
#      without an include); a stage's headers declare only functions its
#      own folder defines; a program holds no symbol of a stage it may not
#      use (kinbox none of sidecar/libkb-sidecar.a's, kinpolicy none of
#      backends/ and mediate/: the lists come from nm, not from this file).
#  (c) link lists: each program's libraries are stages it may use, in link
#      order (a library before the ones it uses); printed with the objects
#      and which members the linker took from each.
#  (d) names: each .c and .h file's first comment names its own path
#      ("/*" then " * lib/util.c — ..."), in the stage folders, at the top
#      and under tests/; and every .c file of a stage folder is built
#      (a stage's source, a program's object, or one of the build-time
#      files named below); and every path of this tree that a comment of
#      a .c, .h or .sh file, README.md, HACKING.md, SECURITY.md or a man
#      page names exists.
#
# Exit status 0 when every check holds, 1 otherwise. KB_LAYERS_KINBOX
# names another kinbox binary to hold against the stages kinbox may not
# use (a test of the test: kinpolicy must fail it).
set -u

top=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
cd "$top" || exit 1

failed=0 # the number of checks that failed
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-layers.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP

not_ok() {
	echo "not ok - $*"
	failed=$((failed + 1))
}

# --- the Makefile's lists ----------------------------------------------------
# a rule of our own appended to the Makefile prints its variables as shell
# assignments (a stage's sources as SRCS_<stage>)
printf '%s\n' 'kb-layers-vars:' \
	'	@echo "STAGES='"'"'$(STAGES)'"'"'"' \
	'	@echo "KINBOX_OBJS='"'"'$(KINBOX_OBJS)'"'"'"' \
	'	@echo "KINBOX_LIBS='"'"'$(KINBOX_LIBS)'"'"'"' \
	'	@echo "KINPOLICY_OBJS='"'"'$(KINPOLICY_OBJS)'"'"'"' \
	'	@echo "KINPOLICY_LIBS='"'"'$(KINPOLICY_LIBS)'"'"'"' \
	'	@echo "$(foreach s,$(STAGES),SRCS_$(s)='"'"'$($(s)_SRCS)'"'"';)"' \
	>"$tmp/vars.mk"
if ! MAKEFLAGS= MAKELEVEL= ${MAKE:-make} -s --no-print-directory \
	-f Makefile -f "$tmp/vars.mk" kb-layers-vars >"$tmp/vars" 2>"$tmp/vars.err"; then
	cat "$tmp/vars.err"
	echo "check-layers: cannot read the stage lists from the Makefile"
	exit 1
fi
. "$tmp/vars"
if [ -z "$STAGES" ] || [ -z "$KINBOX_LIBS" ] || [ -z "$KINPOLICY_LIBS" ]; then
	echo "check-layers: the Makefile names no STAGES, KINBOX_LIBS or KINPOLICY_LIBS"
	exit 1
fi
srcs_of() { eval "echo \"\${SRCS_$1:-}\""; }

# the stages (and programs) a node may use, itself included
allowed() {
	case $1 in
	lib) echo "lib" ;;
	profile) echo "profile lib" ;;
	gitguard) echo "gitguard profile lib" ;;
	host) echo "host gitguard profile lib" ;;
	mediate) echo "mediate host profile lib" ;;
	backends) echo "backends mediate host gitguard profile lib" ;;
	classify) echo "classify profile lib" ;;
	sidecar) echo "sidecar classify host gitguard profile lib" ;;
	kinbox) echo "kinbox classify backends mediate host gitguard profile lib" ;;
	kinpolicy) echo "kinpolicy sidecar classify host gitguard profile lib" ;;
	kinbox-sh) echo "kinbox-sh" ;; # libc only
	*) echo "" ;;
	esac
}

may_use() { # FROM TO
	for a in $(allowed "$1"); do
		[ "$a" = "$2" ] && return 0
	done
	return 1
}

for s in $STAGES; do
	[ -n "$(allowed "$s")" ] ||
		not_ok "the Makefile's stage $s/ has no rule here (allowed)"
done

# the node a file belongs to: its stage folder, or the program of a
# top-level file
node_of() {
	case $1 in
	*/*) echo "${1%%/*}" ;;
	kinbox.*) echo kinbox ;;
	kinbox-sh.*) echo kinbox-sh ;;
	kinpolicy.*) echo kinpolicy ;;
	*) echo "?" ;;
	esac
}

# --- (a) includes ------------------------------------------------------------
echo "# (a) includes"
files=$(ls $(for s in $STAGES; do echo "$s/*.c $s/*.h"; done) *.c *.h \
	2>/dev/null)
: >"$tmp/edges"
for f in $files; do
	from=$(node_of "$f")
	dir=$(dirname "$f")
	# the quoted includes, one a line (no comment or string holds one)
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' \
		"$f" | while IFS= read -r inc; do
		target=$(realpath -m --relative-to="$top" "$dir/$inc")
		case $target in
		../*)
			echo "$f $from $inc ?" >>"$tmp/edges"
			continue
			;;
		esac
		echo "$f $from $target $(node_of "$target")" >>"$tmp/edges"
	done
done
echo "# folder -> folder (number of #include lines):"
awk '$2 != $4 { print $2 " -> " $4 }' "$tmp/edges" | sort | uniq -c |
	awk '{ printf "#   %-10s -> %-9s (%d)\n", $2, $4, $1 }'
while read -r f from target to; do
	if [ "$to" = "?" ]; then
		not_ok "$f includes \"$target\", outside the stage folders"
	elif ! may_use "$from" "$to"; then
		not_ok "$f ($from) includes $target: $from may use only $(allowed "$from" | sed 's/^[^ ]* *//')"
	fi
done <"$tmp/edges"
[ "$failed" = 0 ] &&
	echo "ok - every include goes to the folder itself or a stage below it"

# No circles between the files of one folder: a file is a.c with a.h
# (and a-int.h, what a's halves share: mediate/unotify-int.h); a uses b
# when a.c or a.h includes b.h of the same folder (a call needs the
# declaration, so calls follow the includes). Where a uses b, b must not
# use a, directly or through other files of the folder: one file of the
# two then sits below the other.
before=$failed
awk '{ n = split($1, f, "/"); m = split($3, t, "/") }
	n == 2 && m == 2 && f[1] == t[1] && $3 ~ /\.h$/ {
		a = f[2]; sub(/\.[ch]$/, "", a); sub(/-int$/, "", a)
		b = t[2]; sub(/\.h$/, "", b); sub(/-int$/, "", b)
		if (a != b) print f[1], a, b, $1, $3
	}' "$tmp/edges" | sort -u >"$tmp/uses"
awk '{ dir[$1] = 1; node[$1 SUBSEP $2] = 1; node[$1 SUBSEP $3] = 1
	r[$1 SUBSEP $2 SUBSEP $3] = 1
	how[$1 SUBSEP $2 SUBSEP $3] = how[$1 SUBSEP $2 SUBSEP $3] \
		(how[$1 SUBSEP $2 SUBSEP $3] == "" ? "" : ", ") $4 " includes " $5 }
END {
	for (d in dir) {
		k = 0
		for (x in node) {
			split(x, p, SUBSEP)
			if (p[1] == d) v[++k] = p[2]
		}
		# the transitive closure (Warshall), then every pair both ways
		for (i = 1; i <= k; i++)
			for (a = 1; a <= k; a++)
				if (r[d SUBSEP v[a] SUBSEP v[i]])
					for (b = 1; b <= k; b++)
						if (r[d SUBSEP v[i] SUBSEP v[b]])
							r[d SUBSEP v[a] SUBSEP v[b]] = 1
		for (a = 1; a <= k; a++)
			for (b = 1; b <= k; b++)
				if (v[a] < v[b] && r[d SUBSEP v[a] SUBSEP v[b]] &&
				    r[d SUBSEP v[b] SUBSEP v[a]]) {
					ab = how[d SUBSEP v[a] SUBSEP v[b]]
					ba = how[d SUBSEP v[b] SUBSEP v[a]]
					printf "%s/: %s and %s use each other (%s; %s)\n", d,
					    v[a], v[b],
					    ab == "" ? v[a] " through other files" : ab,
					    ba == "" ? v[b] " through other files" : ba
				}
		delete v
	}
}' "$tmp/uses" | sort >"$tmp/circles"
while IFS= read -r c; do
	not_ok "a circle: $c"
done <"$tmp/circles"
[ "$failed" = "$before" ] &&
	echo "ok - no two files of a folder include each other, directly or in a ring ($(wc -l <"$tmp/uses") file -> file uses)"

# --- (b) symbols -------------------------------------------------------------
echo "# (b) symbols"
for s in $STAGES; do
	if [ ! -f "$s/libkb-$s.a" ]; then
		not_ok "$s/libkb-$s.a is not built (make all first)"
		exit 1
	fi
	nm -g --defined-only "$s/libkb-$s.a" 2>/dev/null |
		awk 'NF == 3 { print $3 }' | sort -u >"$tmp/def.$s"
	nm -g --undefined-only "$s/libkb-$s.a" 2>/dev/null |
		awk 'NF == 2 { print $2 }' | sort -u >"$tmp/undef.$s"
done
before=$failed
: >"$tmp/calls"
for s in $STAGES; do
	for t in $STAGES; do
		[ "$s" = "$t" ] && continue
		comm -12 "$tmp/undef.$s" "$tmp/def.$t" >"$tmp/uses"
		n=$(wc -l <"$tmp/uses")
		[ "$n" -eq 0 ] && continue
		echo "$s $t $n" >>"$tmp/calls"
		if ! may_use "$s" "$t"; then
			not_ok "$s/libkb-$s.a refers to $n symbol(s) of $t/: $(tr '\n' ' ' <"$tmp/uses")"
		fi
	done
done
echo "# stage -> stage (number of symbols one library takes from another):"
awk '{ printf "#   %-10s -> %-9s (%d)\n", $1, $2, $3 }' "$tmp/calls"
[ "$failed" = "$before" ] &&
	echo "ok - every library refers only to its own stage and those below it"

# The functions a stage's headers declare (a line at column 0 naming a
# kb_ function after its type) are defined in that stage's folder (the
# name at column 0, the return type on the line before: the house style).
# Sources, not the library: backends/seccomp.c is build-time code, kept
# out of libkb-backends.a.
for s in $STAGES; do
	cat "$s"/*.c 2>/dev/null | sed -n 's/^\(kb_[a-z0-9_]*\)(.*/\1/p' |
		sort -u >"$tmp/src.$s"
done
for s in $STAGES; do
	for h in "$s"/*.h; do
		[ -f "$h" ] || continue
		sed -n 's/^[a-z][a-z0-9_ ]*[ *]\(kb_[a-z0-9_]*\)(.*/\1/p' "$h" |
			sort -u | while read -r fn; do
			grep -qx "$fn" "$tmp/src.$s" && continue
			where=""
			for t in $STAGES; do
				grep -qx "$fn" "$tmp/src.$t" &&
					where=" (defined in $t/)"
			done
			echo "not ok - $h declares $fn, which no $s/*.c defines$where"
		done
	done
done >"$tmp/decl"
if [ -s "$tmp/decl" ]; then
	cat "$tmp/decl"
	failed=$((failed + $(wc -l <"$tmp/decl")))
else
	echo "ok - each stage's headers declare only functions of its own folder"
fi

# a program holds no symbol of a stage it may not use
# prog_holds PROGRAM NODE: its defined symbols against those stages'
prog_holds() {
	if [ ! -f "$1" ]; then
		not_ok "$1 is not built (make all first)"
		return
	fi
	if ! nm --defined-only "$1" >"$tmp/prog.nm" 2>/dev/null ||
		[ ! -s "$tmp/prog.nm" ]; then
		not_ok "nm $1: no symbol table (stripped?)"
		return
	fi
	awk 'NF == 3 { print $3 }' "$tmp/prog.nm" | sort -u >"$tmp/prog.all"
	for t in $STAGES; do
		may_use "$2" "$t" && continue
		comm -12 "$tmp/prog.all" "$tmp/def.$t" >"$tmp/leak"
		if [ -s "$tmp/leak" ]; then
			not_ok "$1 holds $(wc -l <"$tmp/leak") of $t's symbols: $(head -n 20 "$tmp/leak" | tr '\n' ' ')"
		else
			echo "ok - $1 holds none of the $(wc -l <"$tmp/def.$t") symbols $t/libkb-$t.a defines"
		fi
	done
}
prog_holds "${KB_LAYERS_KINBOX:-kinbox}" kinbox
prog_holds kinpolicy kinpolicy

# --- (c) link lists ----------------------------------------------------------
echo "# (c) link lists"
# link_order PROGRAM "LIBS": each library a stage the program may use, no
# library after one that uses it
link_order() {
	before=$failed
	seen=""
	for lib in $2; do
		s=${lib%%/*}
		case " $STAGES " in
		*" $s "*) ;;
		*) not_ok "$1's link list names $lib, no stage's library" ;;
		esac
		if [ "$lib" != "$s/libkb-$s.a" ]; then
			not_ok "$1's link list names $lib, not $s/libkb-$s.a"
		fi
		may_use "$1" "$s" ||
			not_ok "$1's link list names $lib: $1 may use only $(allowed "$1" | sed 's/^[^ ]* *//')"
		for e in $seen; do
			[ "$e" != "$s" ] && may_use "$s" "$e" &&
				not_ok "$1's link list names $lib after $e/, which $s/ uses"
		done
		seen="$seen $s"
	done
	[ "$failed" = "$before" ] &&
		echo "ok - $1 links only stages it may use, in link order: $2"
}
link_order kinbox "$KINBOX_LIBS"
link_order kinpolicy "$KINPOLICY_LIBS"

# link_list PROGRAM "OBJS" "LIBS": the objects, then per library the
# members whose global symbols the program holds
link_list() {
	prog=$1
	echo "# $prog: $2 $3"
	if ! nm --defined-only "$prog" 2>/dev/null |
		awk 'NF == 3 { print $3 }' | sort -u >"$tmp/prog.def"; then
		not_ok "nm $prog"
		return
	fi
	for lib in $3; do
		nm -g --defined-only "$lib" 2>/dev/null | awk '
			/:$/ { sub(/:$/, ""); m = $0; next }
			NF == 3 { print m, $3 }' >"$tmp/members"
		took=$(awk 'NR == FNR { have[$1] = 1; next }
			($2 in have) && !($1 in seen) { seen[$1] = 1; printf "%s ", $1 }' \
			"$tmp/prog.def" "$tmp/members")
		left=$(awk 'NR == FNR { have[$1] = 1; next }
			{ all[$1] = 1; if ($2 in have) used[$1] = 1 }
			END { for (m in all) if (!(m in used)) printf "%s ", m }' \
			"$tmp/prog.def" "$tmp/members")
		echo "#   $lib: ${took:-(nothing)}${left:+ [not taken: $left]}"
	done
}
for p in kinbox kinpolicy; do
	[ -f "$p" ] || not_ok "$p is not built (make all first)"
done
[ -f kinbox ] && link_list kinbox "$KINBOX_OBJS" "$KINBOX_LIBS"
[ -f kinpolicy ] && link_list kinpolicy "$KINPOLICY_OBJS" "$KINPOLICY_LIBS"

# --- (d) names ---------------------------------------------------------------
echo "# (d) names"
before=$failed
n=0
for f in $(ls $(for s in $STAGES; do echo "$s/*.c $s/*.h"; done) *.c *.h \
	tests/*.c tests/*.h tests/*/*.c tests/*/*.h 2>/dev/null); do
	case $f in
	backends/seccomp-bpf.h) continue ;; # generated by seccomp-gen
	tests/agents/*) continue ;;         # npm's
	esac
	n=$((n + 1))
	l1=$(sed -n 1p "$f")
	l2=$(sed -n 2p "$f")
	case "$l1|$l2" in
	"/*| * $f "* | "/* $f "*) ;;
	*) not_ok "$f: its first comment does not name its path (\"/*\" then \" * $f — ...\"): $l1${l2:+ $l2}" ;;
	esac
done
[ "$failed" = "$before" ] &&
	echo "ok - the first comment of each of the $n .c and .h files names its own path"

# every .c file of a stage folder is built: a stage's source, a program's
# object, or a build-time file (the seccomp filter's generator, the static
# kinbox-exec)
before=$failed
built=" $KINBOX_OBJS $KINPOLICY_OBJS "
for s in $STAGES; do
	built="$built $(srcs_of "$s" | sed 's/\.c\>/.o/g') "
done
for f in $(ls $(for s in $STAGES; do echo "$s/*.c"; done) 2>/dev/null); do
	case $f in
	backends/seccomp.c | backends/seccomp-gen.c) continue ;;
	backends/kinbox-exec.c | backends/exec-landlock.c) continue ;;
	esac
	case "$built" in
	*" ${f%.c}.o "*) ;;
	*) not_ok "$f is in no stage's source list and no program's objects (Makefile)" ;;
	esac
done
[ "$failed" = "$before" ] &&
	echo "ok - every .c file of a stage folder is a stage's source or a program's object"

# Every repo-relative path named in a comment of a .c, .h or .sh file (and
# .ci/run), or anywhere in README.md, HACKING.md, SECURITY.md and man/*.[1-9],
# exists: a word that starts with one of the tree's top-level folders
# (lib/, profile/, tests/ ...; not after "/", "~", "." or "$", so /usr/lib/x,
# ~/.config/x and "$ws/lib/x" are not this tree's). A word with *, ?, [],
# <...> or {...} is a pattern: something must match it; NN stands for two
# digits (tests/tNN-*.sh) and, where the word names no file as written, a
# word in capitals for any name (tests/fixtures/hooks/AGENT-CASE.json).
# What the build makes counts: a file that is there (check-layers runs
# after make all), that git ignores, or that the Makefile names.
before=$failed
tops="[.]ci"
for d in ./*/; do
	d=${d#./}
	tops="$tops|${d%/}"
done
names=0
for f in $(find . \( -path ./.git -o -path ./tests/agents/node_modules \) \
	-prune -o -type f \( -name '*.c' -o -name '*.h' -o -name '*.sh' \) \
	-print | sed 's|^\./||' | sort) .ci/run README.md HACKING.md SECURITY.md \
	man/*.[1-9]; do
	case $f in
	*.c | *.h) kind="c" ;;
	*.sh | .ci/run) kind="sh" ;;
	*) kind="text" ;;
	esac
	awk -v kind="$kind" -v tops="$tops" -v file="$f" '
	function scan(s,    re, w, pre) {
		re = "(^|[^A-Za-z0-9_./~$@-])(" tops ")/[][A-Za-z0-9_.*?/+<>{},-]*"
		while (match(s, re)) {
			w = substr(s, RSTART, RLENGTH)
			s = substr(s, RSTART + RLENGTH)
			if (w !~ /^(\.ci|[a-z])/) w = substr(w, 2)
			sub(/[.,:;]+$/, "", w)
			if (w ~ /[<{]$/) continue # <case> and the like cut short
			if (w ~ /\.\.\./) continue
			print file ":" FNR " " w
		}
	}
	kind == "text" { scan($0); next }
	kind == "sh" {
		if (match($0, /(^|[ \t])#/)) scan(substr($0, RSTART))
		next
	}
	{	# C: the text of /* */ and // comments
		line = $0; out = ""
		while (line != "") {
			if (incom) {
				if ((i = index(line, "*/")) == 0) { out = out " " line; line = "" }
				else { out = out " " substr(line, 1, i - 1); line = substr(line, i + 2); incom = 0 }
			} else {
				a = index(line, "/*"); b = index(line, "//")
				if (b && (!a || b < a)) { out = out " " substr(line, b + 2); line = "" }
				else if (a) { line = substr(line, a + 2); incom = 1 }
				else line = ""
			}
		}
		if (out != "") scan(out)
	}' "$f"
done >"$tmp/named"
# built_or_there WORD: the file is there, git ignores it, or the Makefile
# names it (a helper that make integration builds)
built_or_there() {
	[ -e "$1" ] ||
		git check-ignore -q --no-index "$1" 2>/dev/null ||
		grep -qE "(^|[[:space:]=])$1([[:space:]]|\$)" Makefile
}
while read -r at w; do
	names=$((names + 1))
	built_or_there "$w" && continue
	pat=$(printf '%s\n' "$w" | sed -e 's/NN/[0-9][0-9]/g' \
		-e 's/<[^>]*>/*/g' -e 's/{[^}]*}/*/g')
	case $pat in
	*[A-Z][A-Z]*) pat=$(printf '%s\n' "$pat" |
		sed 's/[A-Z][A-Z][A-Z_]*/*/g') ;;
	esac
	case $pat in
	*[][*?]*)
		# shellcheck disable=SC2086 # the pattern is meant to expand
		set -- $pat
		[ -e "$1" ] || not_ok "$at names $w, which matches nothing in the tree"
		;;
	*) not_ok "$at names $w, which is not in the tree" ;;
	esac
done <"$tmp/named"
[ "$failed" = "$before" ] &&
	echo "ok - the $names repo paths the comments and documents name exist"

if [ "$failed" = 0 ]; then
	echo "check-layers: ok"
	exit 0
fi
echo "check-layers: $failed check(s) failed"
exit 1
