#!/bin/sh
# tests/check-layers.sh — `make check-layers`: the stages stay layered.
#
# The stages, lowest first (see the top of the Makefile):
#   lib < profile < gitguard < host < mediate < backends
#   profile < classify;   classify, host, gitguard < sidecar
# and the programs above them: kinbox (kinbox.c) uses every stage but
# sidecar; kinpolicy (kinpolicy.c and sidecar/kinpolicy-*.c) every stage
# but backends and mediate; kinbox-sh (kinbox-sh.c) none.
#
#  (a) includes: every #include "..." in the stage folders and the
#      top-level .c/.h files, resolved against the including file's
#      folder; a folder may include its own headers and those of the
#      stages it may use. The folder -> folder graph is printed either way.
#  (b) symbols, with nm: a stage library refers to no symbol that another
#      stage's library defines unless it may use that stage (the linker's
#      view of (a): classify/ calling into backends/ fails here even
#      without an include); a stage's headers declare only functions its
#      own folder defines; kinbox holds no symbol that
#      sidecar/libkb-sidecar.a defines (the list comes from nm, not from
#      this file).
#  (c) prints each program's link list: the objects and stage libraries
#      it is linked from, and which members the linker took from each.
#
# Environment (make check-layers sets them from the Makefile):
#   KINBOX_LIBS, KINPOLICY_LIBS   the stage libraries, in link order
#   KINBOX_OBJS, KINPOLICY_OBJS   the programs' own objects
# Exit status 0 when every check holds, 1 otherwise. KB_LAYERS_KINBOX
# names another kinbox binary to hold against sidecar's symbols (a test of
# the test: kinpolicy must fail it).
set -u

top=$(cd "$(dirname "$0")/.." && pwd) || exit 1
cd "$top" || exit 1

STAGES="lib profile gitguard host mediate backends classify sidecar"
KINBOX_OBJS=${KINBOX_OBJS:-kinbox.o}
KINPOLICY_OBJS=${KINPOLICY_OBJS:-kinpolicy.o sidecar/kinpolicy-grants.o sidecar/kinpolicy-gate.o sidecar/kinpolicy-journal.o sidecar/kinpolicy-gc.o sidecar/kinpolicy-hook.o sidecar/kinpolicy-install.o}
KINBOX_LIBS=${KINBOX_LIBS:-classify/libkb-classify.a backends/libkb-backends.a mediate/libkb-mediate.a host/libkb-host.a gitguard/libkb-gitguard.a profile/libkb-profile.a lib/libkb-lib.a}
KINPOLICY_LIBS=${KINPOLICY_LIBS:-sidecar/libkb-sidecar.a classify/libkb-classify.a host/libkb-host.a gitguard/libkb-gitguard.a profile/libkb-profile.a lib/libkb-lib.a}

failed=0 # the number of checks that failed
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-layers.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP

not_ok() {
	echo "not ok - $*"
	failed=$((failed + 1))
}

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

sidecar_syms=$(wc -l <"$tmp/def.sidecar")
kinbox=${KB_LAYERS_KINBOX:-kinbox}
if [ ! -f "$kinbox" ]; then
	not_ok "$kinbox is not built (make all first)"
elif ! nm --defined-only "$kinbox" >"$tmp/kinbox.nm" 2>/dev/null ||
	[ ! -s "$tmp/kinbox.nm" ]; then
	not_ok "nm $kinbox: no symbol table (stripped?)"
else
	awk 'NF == 3 { print $3 }' "$tmp/kinbox.nm" | sort -u >"$tmp/kinbox.def"
	comm -12 "$tmp/kinbox.def" "$tmp/def.sidecar" >"$tmp/leak"
	if [ -s "$tmp/leak" ]; then
		not_ok "$kinbox holds $(wc -l <"$tmp/leak") of sidecar's symbols: $(head -n 20 "$tmp/leak" | tr '\n' ' ')"
	else
		echo "ok - $kinbox holds none of the $sidecar_syms symbols sidecar/libkb-sidecar.a defines"
	fi
fi
case " $KINBOX_LIBS " in
*sidecar/*) not_ok "kinbox's link list names sidecar/: $KINBOX_LIBS" ;;
esac
case " $KINPOLICY_LIBS " in
*backends/* | *mediate/*) not_ok "kinpolicy's link list names backends/ or mediate/: $KINPOLICY_LIBS" ;;
esac

# --- (c) link lists ----------------------------------------------------------
echo "# (c) link lists"
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

if [ "$failed" = 0 ]; then
	echo "check-layers: ok"
	exit 0
fi
echo "check-layers: $failed check(s) failed"
exit 1
