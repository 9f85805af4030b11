#!/bin/sh
# SPDX-License-Identifier: MIT
# hwprof record -g's leaf patch (tools/record/rec-leaf.c) on
# tests/leaf-prog.c, built with gcc -O1 -fno-omit-frame-pointer, with
# exact page-fault counts:
#   leaf    leaf() has no frame (objdump: no push of BP): its callers come
#           out mid_a 200 : mid_b 100, and the paths main > top > mid_a >
#           leaf. The kernel's frame-pointer walk alone (what perf record
#           -g gives) says top 300: checked in noleaf.
#   edge    faults in a prologue (after push BP) and in an epilogue (after
#           pop BP) of edge(): mid_a 400 : mid_b 200 (x86-64)
#   ptr     leaf's callers called interleaved through one pointer in top:
#           every sample has the same kernel chain, and still mid_a 200 :
#           mid_b 100 (record's chain cache tells them apart by the word
#           the patch reads)
#   nobody  leaf, recorded as nobody (when run as root)
#   noleaf  --call-graph fp,noleaf, the walk alone: top is the caller of
#           all 300 leaf() faults and all 600 edge() faults
# usage: test-leaf.sh CASE HWPROF LEAF-PROG
set -u
case_=$1 hw=$2 prog=$3
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$(dirname "$0")/tlib.sh"

rec() {	# output, record's call-graph option, then leaf-prog's arguments
	o=$1 g=$2
	shift 2
	"$hw" record -q $g -e page-faults -c 1 -o "$o" -- "$prog" "$@" ||
		{ echo "FAIL: hwprof record $g $prog $*"; exit 1; }
}
# the samples column of FUNC's line in a --callers/--callees listing
edge() {	# listing file, function
	awk -v f="$2" '!/^#/ && $3 == f { print $2 }' "$1"
}
rows() {	# listing file: its function rows
	awk '!/^#/ && $1 ~ /%$/' "$1" | wc -l
}
# leaf's callers in a -g file of "leaf-prog leaf" or "ptr": mid_a 200,
# mid_b 100, and the paths under top
callers_of_leaf() {	# data file
	"$hw" report "$1" --callers leaf > "$tmp/c" 2>/dev/null
	cat "$tmp/c"
	eq "callers of leaf: mid_a" "$(edge "$tmp/c" mid_a)" 200
	eq "callers of leaf: mid_b" "$(edge "$tmp/c" mid_b)" 100
	eq "callers of leaf: no other" "$(rows "$tmp/c")" 2
	"$hw" report "$1" --format folded > "$tmp/f" 2>/dev/null
	check "folded: main;top;mid_a;leaf 200" grep -Eq '(^|;)main;top;mid_a;leaf 200$' "$tmp/f"
	check "folded: main;top;mid_b;leaf 100" grep -Eq '(^|;)main;top;mid_b;leaf 100$' "$tmp/f"
}

need_pf
case $(uname -m) in
x86_64) ;;
*) echo "SKIP: the leaf patch is x86-64 only"; exit 77 ;;
esac

case $case_ in
leaf)
	# the premise: leaf() sets up no frame pointer, its callers do
	objdump -d --no-show-raw-insn "$prog" > "$tmp/dis"
	sed -n '/<leaf>:$/,/^$/p' "$tmp/dis" > "$tmp/leaf.s"
	sed -n '/<mid_a>:$/,/^$/p' "$tmp/dis" > "$tmp/mid_a.s"
	cat "$tmp/leaf.s"
	check "objdump: leaf() has code" grep -q 'ret' "$tmp/leaf.s"
	check "objdump: leaf() pushes no BP and calls nothing" \
		sh -c "! grep -Eq 'push +%rbp|call' '$tmp/leaf.s'"
	check "objdump: mid_a() pushes BP" grep -Eq 'push +%rbp' "$tmp/mid_a.s"
	rec "$tmp/d" -g leaf
	callers_of_leaf "$tmp/d"
	"$hw" report "$tmp/d" --callees top > "$tmp/e" 2>/dev/null
	eq "callees of top: mid_a" "$(edge "$tmp/e" mid_a)" 200
	eq "callees of top: mid_b" "$(edge "$tmp/e" mid_b)" 100
	;;
ptr)
	# the premise: the walk alone gives every sample the same chain
	rec "$tmp/w" "--call-graph fp,noleaf" ptr
	"$hw" report "$tmp/w" --callers leaf > "$tmp/c" 2>/dev/null
	eq "fp,noleaf: callers of leaf: top" "$(edge "$tmp/c" top)" 300
	rec "$tmp/d" -g ptr
	callers_of_leaf "$tmp/d"
	;;
edge)
	rec "$tmp/d" -g edge
	"$hw" report "$tmp/d" --callers edge > "$tmp/c" 2>/dev/null
	cat "$tmp/c"
	eq "callers of edge: mid_a" "$(edge "$tmp/c" mid_a)" 400
	eq "callers of edge: mid_b" "$(edge "$tmp/c" mid_b)" 200
	eq "callers of edge: no other" "$(rows "$tmp/c")" 2
	;;
nobody)
	# unprivileged (perf_event_paranoid 2 allows user registers and
	# stack copies of one's own process)
	run=
	if [ "$(id -u)" = 0 ]; then
		command -v setpriv >/dev/null ||
			{ echo "SKIP: root, and no setpriv to drop to nobody"; exit 77; }
		run="setpriv --reuid=65534 --regid=65534 --clear-groups"
		chmod 777 "$tmp"
		$run test -x "$prog" -a -x "$hw" ||
			{ echo "SKIP: nobody cannot run the build tree"; exit 77; }
	fi
	check "record -g as $(${run:-env} id -un)" $run "$hw" record -q -g -e page-faults -c 1 \
		-o "$tmp/d" -- "$prog" leaf
	"$hw" report "$tmp/d" --callers leaf > "$tmp/c" 2>/dev/null
	eq "callers of leaf: mid_a" "$(edge "$tmp/c" mid_a)" 200
	eq "callers of leaf: mid_b" "$(edge "$tmp/c" mid_b)" 100
	;;
noleaf)
	# the walk alone, as perf record -g: the caller's caller in its place
	rec "$tmp/d" "--call-graph fp,noleaf" leaf
	"$hw" report "$tmp/d" --callers leaf > "$tmp/c" 2>/dev/null
	cat "$tmp/c"
	eq "fp,noleaf: callers of leaf: top" "$(edge "$tmp/c" top)" 300
	eq "fp,noleaf: callers of leaf: no other" "$(rows "$tmp/c")" 1
	rec "$tmp/e" "--call-graph fp,noleaf" edge
	"$hw" report "$tmp/e" --callers edge > "$tmp/c" 2>/dev/null
	eq "fp,noleaf: callers of edge: top" "$(edge "$tmp/c" top)" 600
	eq "fp,noleaf: callers of edge: no other" "$(rows "$tmp/c")" 1
	uerr "fp\[,noleaf\] and dwarf" "$hw" record --call-graph fp,leaf -- true
	;;
*)
	echo "unknown case $case_"
	exit 99
	;;
esac
exit $fail
