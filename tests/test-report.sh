#!/bin/sh
# SPDX-License-Identifier: MIT
# hwprof report and annotate on data files with known samples (written by
# tests/report/data-gen.c through lib/profile/data-write.c) at addresses taken from
# small programs: names, PLT stubs, C++ names, source lines, inlined code,
# a rebuilt object, thread and process views, merging, the header and its
# warnings, bad input, speed, the SVG, and the help. Exact counts only.
# usage: test-report.sh CASE HWPROF DATA-GEN LINES LINES-REBUILT PLT CXX|- PLT-IBT|-
set -u
case_=$1 hw=$2 gen=$3 lines=$4 rebuilt=$5 plt=$6 cxx=$7 pltibt=${8:--}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$(dirname "$0")/tlib.sh"
# An address whose line (the last line-table row at it, before the next
# address) is line $3 of file $2 in program $1.
line_addr() {
	objdump --dwarf=decodedline "$1" | awk -v f="$2" -v l="$3" '
		{ n = split($1, part, "/") }
		part[n] == f && $3 ~ /^0x/ {
			if (have && $3 != a && last == l) { print a; found = 1; exit }
			a = $3; last = $2; have = 1
		}
		END { if (!found && have && last == l) print a }' | sed 's/^0x//'
}
line_of() {	# the line of $1 holding the marker $2
	grep -nF "/* $2 */" "$1" | head -1 | cut -d: -f1
}
fde_start() {	# the start (hex, no 0x) of the FDE of ELF file $1 that covers $2
	readelf --debug-dump=frames "$1" 2>/dev/null |
		sed -n 's/.* FDE .*pc=\([0-9a-f]*\)\.\.\([0-9a-f]*\).*/\1 \2/p' |
		while read -r lo hi; do
			[ $((0x$lo)) -le $((0x$2)) ] && [ $((0x$2)) -lt $((0x$hi)) ] &&
				printf '%x\n' $((0x$lo))
		done | head -1
}
rows() {	# the text rows (no header) of a report
	"$hw" report "$@" | awk '!/^#/ && $1 ~ /%$/'
}
# a file with one process, one thread, event task-clock and the given
# object and sample lines ($1: object line, rest: sample lines)
one() {
	out=$1
	shift
	{
		echo "command ./prog"
		echo "event task-clock 1000000 10 0 0 0 -"
		echo "process 4242 0 ./prog"
		echo "thread 4242 0 prog"
		for l in "$@"; do echo "$l"; done
	} | "$gen" "$out" || { echo "ERROR: data-gen"; exit 99; }
}
src=$(dirname "$0")/report/lines.c
# a real profile of a program, where this machine and build allow one
live() {	# output file, then the command
	if [ -n "${HWPROF_TEST_SANITIZED:-}" ]; then
		echo "SKIP part: record preloads libhwprof, not a sanitizer build"; return 1
	fi
	if ! "$hw" list 2>/dev/null | grep -q '^  task-clock *yes'; then
		echo "SKIP part: task-clock cannot be sampled here"; return 1
	fi
	o=$1
	shift
	"$hw" record -e task-clock -c 200000 -o "$o" -- "$@" >/dev/null 2>&1 ||
		{ echo "FAIL: hwprof record $*"; fail=1; return 1; }
}

case $case_ in
names)
	# functions of an ELF file by virtual address, exactly
	h=$(addr "$lines" hot) c=$(addr "$lines" cold) m=$(addr "$lines" main)
	one "$tmp/d" "object $(bid "$lines") $lines" "s 0 0 0 $h 5" \
		"s 0 0 0 $(printf %x $((0x$h + 3))) 2" "s 0 0 0 $c 3" "s 0 0 0 $m 1" \
		"s 0 0 - ffffffffff600000 1"
	rows "$tmp/d" > "$tmp/r"
	cat "$tmp/r"
	check "hot: 7 samples, first" sh -c "head -1 '$tmp/r' | grep -Eq '^ *58\.33% +7  hot +rp-lines$'"
	check "cold: 3" grep -Eq '^ *25\.00% +3  cold +rp-lines$' "$tmp/r"
	check "main: 1" grep -Eq ' 1  main +rp-lines$' "$tmp/r"
	check "a pc in no object: its address" grep -Eq ' 1  0xffffffffff600000 +\[anon\]$' "$tmp/r"
	check "--sort symbol" sh -c "'$hw' report '$tmp/d' --sort symbol | awk '!/^#/ && \$1 ~ /%\$/ { print \$3 }' | LC_ALL=C sort -c"
	# an address of the object no symbol covers: +offset
	one "$tmp/e" "object - $lines" "s 0 0 0 1 4"
	check "no symbol: +0x1" sh -c "'$hw' report '$tmp/e' | grep -Eq ' 4  \+0x1 +rp-lines$'"
	;;
plt)
	for prog in "$plt" "$pltibt"; do
	[ "$prog" != - ] || { echo "SKIP part: no IBT (.plt.sec) build here"; continue; }
	name=$(basename "$prog")
	echo "== $name"
	# samples in the PLT stub of sincos: sincos@plt, not _init
	p=$(objdump -d "$prog" | awk '/<sincos@plt>:/ { print $1; exit }')
	[ -n "$p" ] || { echo "ERROR: no sincos@plt in $prog"; exit 99; }
	one "$tmp/d" "object $(bid "$prog") $prog" "s 0 0 0 $p 6" \
		"s 0 0 0 $(printf %x $((0x$p + 6))) 4"
	rows "$tmp/d" > "$tmp/r"
	cat "$tmp/r"
	check "$name: sincos@plt: 10 samples" grep -Eq "^ *100\.00% +10  sincos@plt +$name\$" "$tmp/r"
	check "$name: not _init" sh -c "! grep -q _init '$tmp/r'"
	# every stub objdump names (.plt, .plt.sec, .plt.got) is named alike
	objdump -d "$prog" | awk '/^[0-9a-f]+ <.*@plt>:/ { gsub(/[<>:]/, "", $2); print $1, $2 }' \
		> "$tmp/stubs"
	n=0
	: > "$tmp/spec"
	while read -r a sname; do
		echo "s 0 0 0 $a 1" >> "$tmp/spec"
		n=$((n + 1))
	done < "$tmp/stubs"
	{
		echo "command x"; echo "event task-clock 1 1 0 0 0 -"; echo "process 1 0 x"
		echo "thread 1 0 x"; echo "object - $prog"; cat "$tmp/spec"
	} | "$gen" "$tmp/all"
	rows "$tmp/all" | awk '{ print $3 }' | sort > "$tmp/got"
	awk '{ print $2 }' "$tmp/stubs" | sort > "$tmp/want"
	check "$name: all $n stubs named as objdump names them" cmp -s "$tmp/got" "$tmp/want"
	diff "$tmp/want" "$tmp/got"
	# a real profile: stub samples are named, none go to _init
	if live "$tmp/live" "$prog" 5000000; then
		rows "$tmp/live" > "$tmp/r"
		head -5 "$tmp/r"
		# the real _init runs once, at start: one clock sample may land
		# in it; stub samples charged to it would be many
		check "$name live: nothing charged to _init" sh -c \
			"! awk '\$3 == \"_init\" && \$2 > 1 { bad = 1 } END { exit !bad }' '$tmp/r'"
		grep -q ' sincos@plt ' "$tmp/r" || echo "note: no sample landed in the stub this run"
	fi
	done
	;;
cxx)
	[ "$cxx" != - ] || { echo "SKIP: no C++ compiler"; exit 77; }
	raw=_ZN6shapes6WidgetImE4spinEl
	a=$(addr "$cxx" $raw)
	[ -n "$a" ] || { echo "ERROR: no $raw in $cxx"; exit 99; }
	one "$tmp/d" "object $(bid "$cxx") $cxx" "s 0 0 0 $a 9"
	want='shapes::Widget<unsigned long>::spin(long)'
	"$hw" report "$tmp/d" | tee "$tmp/r"
	check "text: demangled" grep -Fq " 9  $want " "$tmp/r"
	check "csv: demangled" sh -c "'$hw' report '$tmp/d' --format csv | grep -Fq '\"$want\"'"
	check "json: demangled" sh -c "'$hw' report '$tmp/d' --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d[\"rows\"][0][\"function\"] == \"$want\", d[\"rows\"]'"
	check "svg: demangled" sh -c "'$hw' report '$tmp/d' --svg '$tmp/s.svg' >/dev/null && grep -Fq 'shapes::Widget&lt;unsigned long&gt;::spin(long)' '$tmp/s.svg'"
	check "--threads: top function demangled" sh -c "'$hw' report '$tmp/d' --threads | grep -Fq '$want'"
	check "--no-demangle: raw" sh -c "'$hw' report '$tmp/d' --no-demangle | grep -Eq ' 9  $raw '"
	# --width: shortened in text only, as far as needed (test-names.c)
	check "--width 40: parameters, template arguments and the start elided" sh -c \
		"'$hw' report '$tmp/d' --width 40 | grep -Fq ' 9  ...::Widget<...>::spin() '"
	check "--width 40: csv keeps the full name" sh -c \
		"'$hw' report '$tmp/d' --width 40 --format csv | grep -Fq '\"$want\"'"
	check "--width 0: no limit" sh -c "'$hw' report '$tmp/d' --width 0 | grep -Fq ' 9  $want '"
	# --width N: no row wider than N, once the fixed columns leave room for
	# a name of 24 (the narrowest a name is cut to); the widths from a
	# dozen under the widest row (the name whole) to one over it
	for v in "" --lines --threads --processes "--tree top-down" "--tree bottom-up"; do
		# shellcheck disable=SC2086
		full=$("$hw" report "$tmp/d" $v --width 0 2>&1 | grep -v '^#' |
			awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
		lo=$((full - 12)) hi=$((full + 1))
		[ $lo -ge 40 ] || lo=40
		lmin=1000000 w=$lo
		while [ $w -le $hi ]; do
			# shellcheck disable=SC2086
			"$hw" report "$tmp/d" $v --width $w 2>&1 | grep -v '^#' |
				awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' \
				> "$tmp/w$w"
			l=$(cat "$tmp/w$w")
			[ "$l" -lt "$lmin" ] && lmin=$l
			w=$((w + 1))
		done
		w=$lo
		while [ $w -le $hi ]; do
			l=$(cat "$tmp/w$w")
			[ "$l" -le "$w" ] || [ "$l" -eq "$lmin" ] ||
				{ echo "FAIL: report $v --width $w: a row of $l columns"; fail=1; }
			w=$((w + 1))
		done
	done
	check "--no-demangle csv: raw" sh -c "'$hw' report '$tmp/d' --no-demangle --format csv | grep -Fq '\"$raw\"'"
	if live "$tmp/live" "$cxx" 100000000; then
		rows "$tmp/live" | head -3
		check "live: the C++ member first, demangled" sh -c "'$hw' report '$tmp/live' | awk '!/^#/ && \$1 ~ /%\$/' | head -1 | grep -Fq ' $want '"
	fi
	check "annotate by demangled name" sh -c "'$hw' annotate 'shapes::Widget<unsigned long>::spin' '$tmp/d' | grep -Eq '^ +9 +100\.00%'"
	check "annotate without template arguments and parameters" sh -c \
		"'$hw' annotate 'shapes::Widget::spin' '$tmp/d' | grep -Eq '^ +9 +100\.00%'"
	check "annotate by a part of the name" sh -c "'$hw' annotate 'spin' '$tmp/d' | grep -Eq '^ +9 +100\.00%'"
	check "annotate by the raw name" sh -c "'$hw' annotate '$raw' '$tmp/d' | grep -Eq '^ +9 +100\.00%'"
	# (uerr sets want: last)
	uerr "--width 12: 0 \\(no limit\\) or 40 to 100000 columns" "$hw" report "$tmp/d" --width 12
	;;
lines)
	hot=$(line_of "$src" HOT) mix=$(line_of "$src" MIX)
	ha=$(line_addr "$lines" lines.c "$hot") ma=$(line_addr "$lines" lines.c "$mix")
	[ -n "$ha" ] && [ -n "$ma" ] || { echo "ERROR: no address for lines $hot/$mix"; exit 99; }
	one "$tmp/d" "object $(bid "$lines") $lines" "s 0 0 0 $ha 5" "s 0 0 0 $ma 3" \
		"s 0 0 0 $(addr "$lines" cold) 2"
	rows "$tmp/d" --lines | tee "$tmp/r"
	check "hot line $hot: 5 samples in hot" grep -Eq "^ *50\.00% +5  lines\.c:$hot +hot +rp-lines$" "$tmp/r"
	check "inlined mix: line $mix, named mix" grep -Eq "^ *30\.00% +3  lines\.c:$mix +mix +rp-lines$" "$tmp/r"
	check "cold: its line" grep -Eq " 2  lines\.c:[0-9]+ +cold +rp-lines$" "$tmp/r"
	check "json lines" sh -c "'$hw' report '$tmp/d' --lines --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
r = d[\"rows\"][0]
assert r[\"file\"].endswith(\"lines.c\") and r[\"line\"] == $hot and r[\"function\"] == \"hot\", r'"
	check "csv lines" sh -c "'$hw' report '$tmp/d' --lines --format csv | grep -Eq '^50\.000000,5,\".*lines\.c\",$hot,\"hot\",'"
	# no .debug_aranges (clang writes none): units found by their ranges
	cp "$lines" "$tmp/noaranges"
	objcopy --remove-section .debug_aranges "$tmp/noaranges"
	one "$tmp/n" "object - $tmp/noaranges" "s 0 0 0 $ha 5"
	check "no .debug_aranges: still line $hot" sh -c "'$hw' report '$tmp/n' --lines | grep -Eq ' 5  lines\.c:$hot +hot +noaranges$'"
	# without debug info: the function's row, said as such
	cp "$lines" "$tmp/stripped"
	strip -g "$tmp/stripped"
	one "$tmp/s" "object - $tmp/stripped" "s 0 0 0 $ha 5"
	check "no line info: ?? and the function" sh -c "'$hw' report '$tmp/s' --lines | grep -Eq ' 5  \?\? +hot +stripped$'"
	# a real profile: the hot loop's lines come first
	if live "$tmp/live" "$lines" 200000000; then
		top=$(rows "$tmp/live" --lines | head -1)
		echo "live top: $top"
		check "live: the top line is in hot" sh -c "echo '$top' | grep -Eq 'lines\.c:($hot|$mix) +(hot|mix) '"
	fi
	;;
annotate)
	hot=$(line_of "$src" HOT) mix=$(line_of "$src" MIX)
	ha=$(line_addr "$lines" lines.c "$hot") ma=$(line_addr "$lines" lines.c "$mix")
	one "$tmp/d" "object $(bid "$lines") $lines" "s 0 0 0 $ha 5" "s 0 0 0 $ma 3"
	"$hw" annotate hot "$tmp/d" | tee "$tmp/a"
	check "header: 8 samples" grep -q '^# hot in .*rp-lines: 8 samples of task-clock' "$tmp/a"
	check "the HOT line: 5, with its text" grep -Eq "^ +5 +62\.50% +$hot  .*/\* HOT \*/" "$tmp/a"
	check "the inlined line $mix: 3, with its text" grep -Eq "^ +3 +37\.50% +$mix  .*/\* MIX \*/" "$tmp/a"
	check "the function's first line shown" grep -Eq "^ +[0-9]+  __attribute__\(\(noinline\)\) uint64_t hot\(uint64_t n\)$" "$tmp/a"
	check "source found from another directory" sh -c "cd / && '$hw' annotate hot '$tmp/d' | grep -q 'HOT'"
	# without line information: objdump's instructions, each with its samples
	"$hw" annotate hot "$tmp/d" --asm | tee "$tmp/b"
	check "asm: 5 at $ha" grep -Eq "^ +5 +62\.50%  $ha:" "$tmp/b"
	check "asm: 3 at $ma" grep -Eq "^ +3 +37\.50%  $ma:" "$tmp/b"
	check "asm: ends with ret" grep -Eq 'ret' "$tmp/b"
	# an object without line information: the disassembly by itself
	cp "$lines" "$tmp/stripped"
	strip -g "$tmp/stripped"
	one "$tmp/s" "object - $tmp/stripped" "s 0 0 0 $ha 5"
	"$hw" annotate hot "$tmp/s" > "$tmp/c"
	check "no debug info: disassembly, said" grep -q '^# disassembly of .*stripped (objdump; no line information)$' "$tmp/c"
	check "no debug info: 5 at $ha" grep -Eq "^ +5 +100\.00%  $ha:" "$tmp/c"
	err "nosuch: no such function" "$hw" annotate nosuch "$tmp/d"
	# what the user means: a unique part of a name; several: listed
	one "$tmp/m" "object $(bid "$lines") $lines" "s 0 0 0 $ha 5" "s 0 0 0 $(addr "$lines" cold) 2"
	check "a unique part of the name: ho -> hot" sh -c \
		"'$hw' annotate ho '$tmp/m' | grep -q '^# hot in .*: 5 samples'"
	"$hw" annotate o "$tmp/m" > "$tmp/o" 2> "$tmp/e"
	rc=$?
	cat "$tmp/e"
	check "several match: exit 1, nothing on stdout" sh -c "[ $rc = 1 ] && [ ! -s '$tmp/o' ]"
	check "several match: listed with their samples, most first" sh -c \
		"grep -q '^hwprof: o: 2 functions match' '$tmp/e' && sed -n 2p '$tmp/e' | grep -Eq '^hwprof: +5  hot \\(rp-lines\\)$' && sed -n 3p '$tmp/e' | grep -Eq '^hwprof: +2  cold \\(rp-lines\\)$'"
	# stripped: the function is the .eh_frame FDE that covers the address,
	# named OBJECT+0xSTART, and annotated as one
	cp "$lines" "$tmp/fdeonly"
	strip --strip-all "$tmp/fdeonly"
	fs=$(fde_start "$tmp/fdeonly" "$ha")
	[ -n "$fs" ] || { echo "ERROR: no FDE covers $ha"; exit 99; }
	one "$tmp/f" "object - $tmp/fdeonly" "s 0 0 0 $ha 5"
	check "stripped: the row of the FDE's function fdeonly+0x$fs" sh -c \
		"'$hw' report '$tmp/f' | grep -Eq ' 5  fdeonly\\+0x$fs +fdeonly$'"
	"$hw" annotate "fdeonly+0x$fs" "$tmp/f" > "$tmp/u" 2>&1
	cat "$tmp/u"
	check "annotate fdeonly+0x$fs: said" grep -q "^# fdeonly+0x$fs in .*fdeonly: 5 samples" "$tmp/u"
	check "annotate fdeonly+0x$fs: its instruction with 5" grep -Eq "^ +5 +100\.00%  $ha:" "$tmp/u"
	# an address neither a symbol nor call-frame information covers:
	# +0xADDR or OBJECT+0xADDR, disassembled
	cp "$lines" "$tmp/nosym"
	strip --strip-all "$tmp/nosym"
	objcopy --remove-section .eh_frame_hdr --remove-section .eh_frame "$tmp/nosym"
	one "$tmp/n" "object - $tmp/nosym" "s 0 0 0 $ha 5"
	check "no symbol: the report's +0x row" sh -c "'$hw' report '$tmp/n' | grep -Eq ' 5  \\+0x$ha +nosym$'"
	for f in "+0x$ha" "nosym+0x$ha"; do
		"$hw" annotate "$f" "$tmp/n" > "$tmp/u" 2>&1
		cat "$tmp/u"
		check "annotate $f: said" grep -q "^# +0x$ha (no symbol covers it: the code around it) in .*nosym: 5 samples" "$tmp/u"
		check "annotate $f: its instruction with 5" grep -Eq "^ +5 +100\.00%  $ha:" "$tmp/u"
	done
	err "other\\+0x$ha: no such function" "$hw" annotate "other+0x$ha" "$tmp/n"
	# the source gone: the disassembly instead
	if command -v cc >/dev/null; then
		printf '%s\n' 'int gone(int x) { return x * 3 + 1; }' 'int main(int c, char **v) { (void)v; return gone(c); }' > "$tmp/gone.c"
		cc -g -O1 -o "$tmp/gone" "$tmp/gone.c" && rm "$tmp/gone.c"
		one "$tmp/g" "object - $tmp/gone" "s 0 0 0 $(addr "$tmp/gone" gone) 4"
		"$hw" annotate gone "$tmp/g" > "$tmp/u" 2>&1
		cat "$tmp/u"
		check "source gone: said" grep -q '^# source: .*gone\.c: not readable here: the disassembly instead$' "$tmp/u"
		check "source gone: the disassembly, 4 at gone's start" grep -Eq "^ +4 +100\.00%  $(addr "$tmp/gone" gone | sed 's/^0*//'):" "$tmp/u"
	else
		echo "SKIP part: no C compiler for the source-gone check"
	fi
	uerr "annotate needs a function" "$hw" annotate
	err "--event 3: .* has events 0 to 0" "$hw" annotate hot "$tmp/d" --event 3
	;;
rebuilt)
	# recorded from one build, the file on disk is another
	cp "$lines" "$tmp/prog"
	b=$(bid "$lines")
	h=$(addr "$lines" hot)
	check "the rebuild moved hot" [ "$(addr "$rebuilt" hot)" != "$h" ]
	one "$tmp/d" "object $b $tmp/prog" "s 0 0 0 $h 5"
	check "before: hot" sh -c "'$hw' report '$tmp/d' | grep -q ' 5  hot '"
	cp "$rebuilt" "$tmp/prog"
	"$hw" report "$tmp/d" > "$tmp/r" 2> "$tmp/e"
	cat "$tmp/e" "$tmp/r"
	check "a warning: rebuilt, names may be wrong" \
		grep -q "^hwprof: warning: $tmp/prog: rebuilt since the recording (build-id differs) and no debug file has the recorded one: its names may be wrong$" "$tmp/e"
	# with a debug file of the recorded build: the right names, and said
	mkdir -p "$tmp/dbg/.build-id/$(echo "$b" | cut -c1-2)"
	objcopy --only-keep-debug "$lines" "$tmp/dbg/.build-id/$(echo "$b" | cut -c1-2)/$(echo "$b" | cut -c3-).debug"
	"$hw" report "$tmp/d" --debug-dir "$tmp/dbg" > "$tmp/r" 2> "$tmp/e"
	cat "$tmp/e" "$tmp/r"
	check "warning names the debug file" grep -q "^hwprof: warning: $tmp/prog: rebuilt since the recording (build-id differs): names from $tmp/dbg/.build-id/.*\.debug$" "$tmp/e"
	check "names from the debug file: hot" sh -c "awk '!/^#/' '$tmp/r' | grep -Eq ' 5  hot +prog$'"
	check "lines from the debug file" sh -c "'$hw' report '$tmp/d' --debug-dir '$tmp/dbg' --lines 2>/dev/null | grep -Eq ' 5  lines\.c:[0-9]+ +(hot|mix) '"
	# the object gone, its debug file still there
	rm "$tmp/prog"
	check "object gone, debug file: hot" sh -c "'$hw' report '$tmp/d' --debug-dir '$tmp/dbg' 2>/dev/null | grep -Eq ' 5  hot +prog$'"
	"$hw" report "$tmp/d" > "$tmp/r" 2> "$tmp/e"
	check "object gone, no debug file: said" grep -q "^hwprof: warning: $tmp/prog: cannot read it: its samples have no names$" "$tmp/e"
	;;
views)
	h=$(addr "$lines" hot) c=$(addr "$lines" cold) m=$(addr "$lines" main)
	b=$(bid "$lines")
	"$gen" "$tmp/d" <<-EOF || exit 99
	command mpirun -n 2 ./prog
	event task-clock 1000000 20 0 0 0 -
	process 100 0 ./prog rank0
	process 200 100 ./prog rank1
	thread 100 0 prog
	thread 101 0 worker\x01
	thread 200 1 prog
	object $b $lines
	s 0 0 0 $h 4
	s 0 0 0 $c 1
	s 0 1 0 $c 6
	s 0 1 0 $h 2
	s 0 2 0 $m 7
	EOF
	rows "$tmp/d" --threads | tee "$tmp/t"
	check "thread 200: 7, main (100%)" grep -Eq '^ *35\.00% +7  200 +200 +prog +main \(100\.00%\)$' "$tmp/t"
	check "thread 101: 8, cold (75%), comm escaped" grep -Eq '^ *40\.00% +8  101 +100 +worker\\x01 +cold \(75\.00%\)$' "$tmp/t"
	check "thread 100: 5, hot (80%)" grep -Eq '^ *25\.00% +5  100 +100 +prog +hot \(80\.00%\)$' "$tmp/t"
	rows "$tmp/d" --processes | tee "$tmp/p"
	check "process 100: 13, cold (53.85%)" grep -Eq '^ *65\.00% +13  100 +\./prog rank0 +cold \(53\.85%\)$' "$tmp/p"
	check "process 200: 7, main" grep -Eq '^ *35\.00% +7  200 +\./prog rank1 +main \(100\.00%\)$' "$tmp/p"
	check "header: 2 processes, 3 threads" sh -c "'$hw' report '$tmp/d' | grep -q '^# processes: 2  threads: 3$'"
	check "json threads" sh -c "'$hw' report '$tmp/d' --threads --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
r = {x[\"tid\"]: x for x in d[\"rows\"]}
assert r[101][\"samples\"] == 8 and r[101][\"top_function\"] == \"cold\" and r[101][\"top_samples\"] == 6, r
assert r[101][\"comm\"] == \"worker\\x01\" and r[200][\"pid\"] == 200, r'"
	check "csv processes" sh -c "'$hw' report '$tmp/d' --processes --format csv | grep -qx '65.000000,13,100,0,\"./prog rank0\",\"cold\",7'"
	uerr "one at a time" "$hw" report "$tmp/d" --threads --lines
	# --width N, short names beside a long object: the function column
	# (40, 32 beside a line) narrows so that no row is wider than N, down
	# to the 24 a name keeps (hwprof(1), --width); diff's rows as well
	long=an-object-with-a-rather-long-name.so	# 36 columns
	cp "$lines" "$tmp/$long"
	{
		echo "command ./prog"
		echo "event task-clock 1000000 5 0 0 0 -"
		echo "process 100 0 ./prog"
		echo "thread 100 0 prog"
		echo "object $b $tmp/$long"
		echo "s 0 0 0 $h 4"
		echo "s 0 0 0 $c 1"
	} | "$gen" "$tmp/w" || exit 99
	# the widest row: the fixed columns, the name column, the object
	for v in "report 21 40" "report --lines 54 32" "diff 55 40"; do
		# shellcheck disable=SC2086
		set -- $v
		cmd=$1 opt=
		if [ "$2" = --lines ]; then
			opt=--lines
			shift
		fi
		fixed=$2 col=$3
		for w in 0 60 $((fixed + 24 + 1 + 36 + 3)) 200; do
			want=$((fixed + col + 1 + 36))
			[ "$w" -gt 0 ] && [ "$w" -lt "$want" ] && want=$w
			[ "$want" -lt $((fixed + 24 + 1 + 36)) ] && want=$((fixed + 24 + 1 + 36))
			if [ "$cmd" = diff ]; then
				got=$("$hw" diff "$tmp/w" "$tmp/w" --width "$w" 2>/dev/null)
			else
				# shellcheck disable=SC2086
				got=$("$hw" report "$tmp/w" $opt --width "$w" 2>/dev/null)
			fi
			eq "$cmd $opt --width $w: the widest row" "$(printf '%s\n' "$got" |
				grep -v '^#' | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')" "$want"
			check "$cmd $opt --width $w: hot whole, then its object" sh -c \
				"printf '%s\n' \"\$1\" | grep -Eq ' hot +$long\$'" - "$got"
		done
	done
	# 7001 rows of one sample each: CSV's and JSON's percentages (six
	# decimals) sum to 100 within 0.01 (two decimals would give 70.01)
	{
		echo "command ./many"
		echo "event task-clock 1000000 7001 0 0 0 -"
		echo "process 300 0 ./many"
		echo "thread 300 0 many"
		echo "object - /nonexistent/libmany.so"
		awk 'BEGIN { for (i = 0; i < 7001; i++) printf "s 0 0 0 %x 1\n", 4096 + 16 * i }'
	} | "$gen" "$tmp/many" || exit 99
	eq "csv: rows" "$("$hw" report "$tmp/many" --format csv 2>/dev/null | tail -n +2 | wc -l)" 7001
	check "csv: the percentages sum to 100 within 0.01" sh -c "'$hw' report '$tmp/many' --format csv 2>/dev/null |
		awk -F, 'NR > 1 { s += \$1 } END { exit !(s > 99.99 && s < 100.01) }'"
	check "json: the percentages sum to 100 within 0.01" sh -c "'$hw' report '$tmp/many' --format json 2>/dev/null |
		python3 -c 'import json, sys; s = sum(r[\"percent\"] for r in json.load(sys.stdin)[\"rows\"]); assert abs(s - 100) < 0.01, s'"
	;;
merge)
	h=$(addr "$lines" hot)
	b=$(bid "$lines")
	cp "$lines" "$tmp/copy"
	one "$tmp/c" "object $b $lines" "s 0 0 0 $h 5"
	"$gen" "$tmp/a" <<-EOF || exit 99
	command ./prog
	event task-clock 1000000 10 0 0 0 -
	event page-faults 1 0 0 0 0 -
	process 4242 0 ./prog
	thread 4242 0 prog
	object $b $lines
	s 0 0 0 $h 5
	EOF
	# the same object under another path, the events in another order
	"$gen" "$tmp/b" <<-EOF || exit 99
	command ./prog 2
	event page-faults 1 3 1 0 2 mlock\x20budget
	event task-clock 1000000 10 0 0 0 -
	process 4343 0 ./prog 2
	thread 4343 0 prog
	object $b $tmp/copy
	s 1 0 0 $h 7
	s 0 0 0 $h 3
	EOF
	# several files are merged without --merge (still accepted), if their
	# events are the same (tests/test-ranks.sh has every refusal)
	err "$tmp/c and $tmp/b have different events \(task-clock, page-faults,task-clock\)" \
		"$hw" report "$tmp/c" "$tmp/b"
	check "merged without --merge: the same" sh -c "'$hw' report '$tmp/a' '$tmp/b' | grep -Eq '^ *100\.00% +12  hot +rp-lines$'"
	rows "$tmp/a" "$tmp/b" --merge | tee "$tmp/r"
	check "merged: hot 12 (5 + 7), one object by build-id" grep -Eq '^ *100\.00% +12  hot +rp-lines$' "$tmp/r"
	check "merged: one row" [ "$(wc -l < "$tmp/r")" = 1 ]
	"$hw" report "$tmp/a" "$tmp/b" --merge > "$tmp/h" 2>/dev/null
	check "merged: 2 processes, 2 threads" grep -q '^# processes: 2  threads: 2$' "$tmp/h"
	check "merged: page-faults is event 1" grep -q '^# event 1: page-faults' "$tmp/h"
	check "merged page-faults: 3" sh -c "'$hw' report '$tmp/a' '$tmp/b' --merge --event 1 2>/dev/null | grep -Eq ' 3  hot '"
	check "merged: missed summed into the header" grep -q 'threads not covered: 2 (mlock budget)' "$tmp/h"
	# one file given twice, by the same name, through a directory or a
	# symbolic link (same device and inode): counted once, with a line
	"$hw" report "$tmp/a" "$tmp/a" > "$tmp/r" 2> "$tmp/e"
	check "same file twice: exit 0" [ $? = 0 ]
	check "same file twice: counted once (hot 5)" grep -Eq '^ *100\.00% +5  hot +rp-lines$' "$tmp/r"
	check "same file twice: one line says so" grep -qx "hwprof: $tmp/a given twice: counted once" "$tmp/e"
	mkdir "$tmp/dir" && cp "$tmp/a" "$tmp/dir/a.data" && cp "$tmp/b" "$tmp/dir/b.data" &&
		ln -s "$tmp/dir/a.data" "$tmp/link" || exit 99
	"$hw" report "$tmp/dir" "$tmp/dir/b.data" "$tmp/link" > "$tmp/r" 2> "$tmp/e"
	cat "$tmp/e"
	check "directory and a file in it: counted once (hot 12)" grep -Eq '^ *100\.00% +12  hot +rp-lines$' "$tmp/r"
	check "directory and a file in it: one line" grep -qx "hwprof: $tmp/dir/b.data given twice: counted once" "$tmp/e"
	check "a link to a file given: one line naming both" grep -qx "hwprof: $tmp/link and $tmp/dir/a.data are one file: counted once" "$tmp/e"
	check "no other line" [ "$(wc -l < "$tmp/e")" = 2 ]
	check "annotate: same file twice counted once" sh -c "'$hw' annotate hot '$tmp/a' '$tmp/a' 2>/dev/null | grep -q '^# hot in .*: 5 samples of task-clock$'"
	;;
header)
	h=$(addr "$lines" hot)
	{
		echo "command ./prog"
		for i in 0 1 2 3 4 5 6 7 8 9; do
			echo "event ev$i $((i + 1)) $((i * 10)) $i 0 0 -"
		done
		echo "event task-clock 1000000 50 4 2 3 mlock-budget"
		echo "process 1 0 ./prog"; echo "thread 1 0 p"
		echo "object - $lines"
		for i in 0 1 2 3 4 5 6 7 8 9 10; do echo "s $i 0 0 $h $((i + 1))"; done
	} | "$gen" "$tmp/d" || exit 99
	"$hw" report "$tmp/d" --event 10 > "$tmp/r" 2> "$tmp/e"
	cat "$tmp/e" "$tmp/r"
	check "11 events in the header" [ "$(grep -c '^# event [0-9]*' "$tmp/r")" = 11 ]
	check "event 10 is reported" grep -q '^# event 10 (this report): task-clock, one sample every 1000000 ns$' "$tmp/r"
	check "its statistics" grep -q '^#   samples: 50  lost: 4  throttled: 2  threads not covered: 3 (mlock-budget)$' "$tmp/r"
	check "warning on stderr" grep -q '^hwprof: warning: 3 threads were not covered (mlock-budget): the profile misses them$' "$tmp/e"
	check "warning in the header" grep -q '^# warning: 3 threads were not covered (mlock-budget): the profile misses them$' "$tmp/r"
	check "event 10: 11 samples of hot" grep -Eq '^ *100\.00% +11  hot ' "$tmp/r"
	check "user space only, said" grep -q '^# user space only: time in the kernel' "$tmp/r"
	# a period of 0 (hwprof-data(5)) says why there is none
	per0() {	# output, then the event line's period and missed, then more lines
		o=$1 p=$2 m=$3
		shift 3
		{
			echo "command ./prog"
			echo "event task-clock $p 0 0 0 $m -"
			for l in "$@"; do echo "$l"; done
		} | "$gen" "$o" || exit 99
	}
	per0 "$tmp/p0" 0 0 "process 1 0 ./prog" "thread 1 0 p"
	check "period 0 in one file: the kernel's rate" sh -c "'$hw' report '$tmp/p0' 2>/dev/null |
		grep -qx '# event 0 (this report): task-clock, the kernel adjusted the period to a rate (hwprof record -F)'"
	per0 "$tmp/p1" 1000000 0 "process 1 0 ./prog" "thread 1 0 p"
	per0 "$tmp/p2" 2000000 0 "process 2 0 ./prog" "thread 2 0 p"
	check "two periods merged" sh -c "'$hw' report '$tmp/p1' '$tmp/p2' 2>/dev/null |
		grep -qx '# event 0 (this report): task-clock, periods differ between the merged files'"
	per0 "$tmp/pj" 0 2 "job 2 64" "process 10 0 ./app" "procrank 0 0" "process 11 0 ./app" \
		"procrank 1 1"
	check "a job file in which no rank had a profile" sh -c "'$hw' report '$tmp/pj' 2>/dev/null |
		grep -qx '# event 0 (this report): task-clock, no period: no rank had a profile'"
	check "event 9 (past 8): 10 samples" sh -c "'$hw' report '$tmp/d' --event 9 2>/dev/null | grep -Eq ' 10  hot '"
	check "json: per event, warnings" sh -c "'$hw' report '$tmp/d' --event 10 --format json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert len(d[\"events\"]) == 11 and d[\"event\"] == \"task-clock\", d[\"events\"]
assert d[\"not_covered\"] == 3 and d[\"not_covered_why\"] == \"mlock-budget\" and d[\"lost\"] == 4
assert any(\"3 threads were not covered (mlock-budget)\" in w for w in d[\"warnings\"]), d[\"warnings\"]
assert d[\"user_space_only\"] is True'"
	check "csv --stats: the events table" sh -c "'$hw' report '$tmp/d' --event 10 --format csv --stats '$tmp/st' >/dev/null 2>&1 && grep -q '^10,\"task-clock\",1000000,50,4,2,3,\"mlock-budget\",1,1,1,0,0,0,,-,-,-,\"warning: 3 threads were not covered (mlock-budget): the profile misses them; warning: 4 samples were lost' '$tmp/st'"
	check "svg: the statistics" sh -c "'$hw' report '$tmp/d' --event 10 --svg '$tmp/s.svg' >/dev/null 2>&1 && grep -q 'threads not covered 3' '$tmp/s.svg'"
	;;
badinput)
	h=$(addr "$lines" hot)
	one "$tmp/d" "object - $lines" "s 0 0 0 $h 1"
	for v in -1 -100000 x 1x '' 99999999999999999999; do
		err "--event $v: not an event number" "$hw" report "$tmp/d" --event "$v"
	done
	err "--event 1: .* has events 0 to 0" "$hw" report "$tmp/d" --event 1
	uerr "--event needs a value" "$hw" report "$tmp/d" --event
	uerr "unknown option --frob" "$hw" report "$tmp/d" --frob
	# usage errors exit 2, as every --help says; a bad file exits 1
	for u in "report $tmp/d --frob" "report $tmp/d --format xml" "report $tmp/d --sort foo" \
		 "report $tmp/d --event" "annotate" "annotate hot $tmp/d --frob" "list x"; do
		"$hw" $u >/dev/null 2>&1
		rc=$?
		check "hwprof $u: exit 2 (got $rc)" [ $rc = 2 ]
	done
	"$hw" report "$tmp/no.data" >/dev/null 2>&1
	rc=$?
	check "a missing file: exit 1 (got $rc)" [ $rc = 1 ]
	# counts that would wrap saturate; shares stay within 100%
	"$gen" "$tmp/big" <<-EOF || exit 99
	command x
	event task-clock 1 18446744073709551615 0 0 0 -
	process 1 0 x
	thread 1 0 x
	thread 2 0 y
	object - $lines
	s 0 0 0 $h 18446744073709551615
	s 0 1 0 $h 18446744073709551615
	s 0 0 0 $(addr "$lines" cold) 1
	EOF
	rows "$tmp/big" | tee "$tmp/r"
	check "saturated, 100%" grep -Eq '^ *100\.00% +18446744073709551615  hot ' "$tmp/r"
	check "no share above 100%" sh -c "! awk '{ sub(/%/, \"\", \$1); if (\$1 + 0 > 100) exit 0; exit 1 }' '$tmp/r'"
	# call-path counts: saturated ones that agree with the paths line
	# are reported (not "out of memory", no share above 100 %); ones
	# above it, or above the event's samples, are refused in one line
	mkpaths() {	# samples, s counts (2), chains, c counts (2)
		printf 'hwprof-data 4\ncommand x\nevent 0 1 %s 0 0 0 - page-faults\n' "$1"
		printf 'process 0 1 0 -1 exit 0 - x\nthread 0 0 1 x\nobject 0 - - /nonexistent/lib.so\n'
		printf 's 0 0 0 1000 %s\ns 0 0 0 1010 %s\npaths 0 fp %s 0\n' "$2" "$3" "$4"
		printf 'n 0 - 0 1000\nn 1 - 0 1010\nc 0 0 0 %s\nc 0 0 1 %s\nend\n' "$5" "$6"
	}
	max=18446744073709551615
	mkpaths $max $max 5 $max $max 5 > "$tmp/sat"
	for v in "" "--tree top-down" "--callers +0x1000" "--format json" "--format folded"; do
		# shellcheck disable=SC2086
		"$hw" report "$tmp/sat" $v > "$tmp/r" 2> "$tmp/e"
		rc=$?
		check "saturated paths, report $v: exit 0 (got $rc)" [ $rc = 0 ]
		check "saturated paths, report $v: not out of memory" sh -c "! grep -q 'out of memory' '$tmp/e'"
		check "saturated paths, report $v: no share above 100%" sh -c \
			"! grep -Eoh '[0-9]+\.[0-9]+%' '$tmp/r' '$tmp/e' | awk '{ sub(/%/, \"\"); if (\$1 + 0 > 100) exit 0; exit 1 }'"
	done
	"$hw" report "$tmp/sat" > "$tmp/r" 2> /dev/null
	check "saturated paths: the short paths said, 100%" grep -q \
		"^# warning: $max of $max samples (100.00%) have a call path that ends short" "$tmp/r"
	mkpaths 5 $max 5 5 $max 5 > "$tmp/p1"
	err "p1: event 0: its call-path samples \(c lines: $max\) exceed the samples with a path of its paths line \(5\)" \
		"$hw" report "$tmp/p1"
	mkpaths 1374 13425577928464010 1 1 13425577928464010 1 > "$tmp/p2"
	err "p2: event 0: its call-path samples \(c lines: 13425577928464011\) exceed the samples with a path of its paths line \(1\)" \
		"$hw" report "$tmp/p2"
	mkpaths 10 3 3 10 5 5 > "$tmp/p3"
	err "p3: event 0: its call-path samples \(c lines: 10\) exceed its samples \(s lines: 6\)" \
		"$hw" report "$tmp/p3"
	# names and paths with quotes, commas and control bytes
	mkdir -p "$tmp/we\"ird,dir"
	cp "$lines" "$tmp/we\"ird,dir/p\"q"
	"$gen" "$tmp/q" <<-EOF || exit 99
	command ./a\x1b[31mRED\x07 "quoted"
	event task-clock 1 1 0 0 0 -
	process 1 0 ./a\x1b]0;title\x07
	thread 1 0 c\x0dd
	object - $tmp/we"ird,dir/p"q
	s 0 0 0 1 1
	EOF
	"$hw" report "$tmp/q" > "$tmp/t"
	"$hw" report "$tmp/q" --processes >> "$tmp/t"
	"$hw" report "$tmp/q" --threads >> "$tmp/t"
	"$hw" report "$tmp/q" --objects >> "$tmp/t"
	cat "$tmp/t"
	check "text: no control byte but newlines" sh -c "! tr -d '\n' < '$tmp/t' | LC_ALL=C grep -q '[[:cntrl:]]'"
	check "text: escaped as \\x1b" grep -Fq './a\x1b[31mRED\x07 "quoted"' "$tmp/t"
	"$hw" report "$tmp/q" --format csv --objects > "$tmp/c"
	cat "$tmp/c"
	check "csv: RFC 4180 quotes" python3 -c "
import csv, sys
rows = list(csv.reader(open('$tmp/c', newline='')))
assert rows[0] == ['percent', 'samples', 'object', 'path'], rows[0]
assert rows[1][2] == 'p\"q' and rows[1][3] == '$tmp/we\"ird,dir/p\"q', rows[1]
"
	check "json: valid, no raw control byte" sh -c "'$hw' report '$tmp/q' --threads --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d[\"command\"].startswith(\"./a\\x1b[31m\"), d[\"command\"]
assert d[\"rows\"][0][\"comm\"] == \"c\\rd\"'"
	# an object path that names a FIFO: no hang
	mkfifo "$tmp/fifo"
	one "$tmp/f" "object - $tmp/fifo" "s 0 0 0 10 1"
	timeout 10 "$hw" report "$tmp/f" > "$tmp/r" 2> "$tmp/e"
	rc=$?
	check "FIFO object: no hang (status $rc)" [ $rc = 0 ]
	check "FIFO object: said unreadable" grep -q "warning: $tmp/fifo: cannot read it" "$tmp/e"
	check "FIFO annotate: no hang" sh -c "timeout 10 '$hw' annotate x '$tmp/f' 2>/dev/null; [ \$? = 1 ]"
	# --svg onto the data file (or a link to it: never written through,
	# hwprof(1)) is refused; the file stays
	cp "$tmp/d" "$tmp/keep"
	err "--svg $tmp/d: that is the data file being reported" "$hw" report "$tmp/d" --svg "$tmp/d"
	ln -s d "$tmp/link"
	err "link: a symbolic link; hwprof writes only regular files" "$hw" report "$tmp/d" --svg "$tmp/link"
	check "data file unchanged" cmp -s "$tmp/d" "$tmp/keep"
	mkfifo "$tmp/fifo2"
	check "--svg to a FIFO: no hang" sh -c "timeout 10 '$hw' report '$tmp/d' --svg '$tmp/fifo2' >/dev/null 2>&1; [ \$? = 1 ]"
	# a data file that is a FIFO: hd_read blocks on it like cat would;
	# bad data files: one line each
	printf 'hwprof-data 2\ns 0 0 - 10 1\nend\n' > "$tmp/bad"
	err "line 2: malformed line" "$hw" report "$tmp/bad"
	err "no\.data: No such file" "$hw" report "$tmp/no.data"
	;;
speed)
	# 1 million distinct rows no symbol covers: linear, about a second on a
	# quiet machine (bench/README.md); 20 s here (the suite runs beside
	# others) still catches a quadratic report, which took 8 s for 80000
	"$gen" --big 1000000 "$tmp/big" || exit 99
	s=$(date +%s.%N)
	"$hw" report "$tmp/big" > "$tmp/r" 2>/dev/null
	rc=$?
	e=$(date +%s.%N)
	t=$(echo "$e - $s" | bc)
	echo "1000000 rows: ${t} s"
	check "status 0" [ $rc = 0 ]
	check "1000000 rows" [ "$(awk '!/^#/ && $1 ~ /%$/' "$tmp/r" | wc -l)" = 1000000 ]
	if [ -n "${HWPROF_TEST_SANITIZED:-}" ]; then
		echo "SKIP part: no time limit under sanitizers"
	else
		check "under 20 s (${t} s)" [ "$(echo "$t < 20" | bc)" = 1 ]
	fi
	;;
svg)
	h=$(addr "$lines" hot) c=$(addr "$lines" cold)
	hot=$(line_of "$src" HOT) mix=$(line_of "$src" MIX)
	ha=$(line_addr "$lines" lines.c "$hot") ma=$(line_addr "$lines" lines.c "$mix")
	long=$(printf 'very_long_function_name_%.0s' 1 2 3 4 5 6 7 8)
	"$gen" "$tmp/d" <<-EOF || exit 99
	command ./prog <&>
	event task-clock 1000000 21 0 0 0 -
	process 1 0 ./prog
	thread 1 0 p
	object $(bid "$lines") $lines
	object - /opt/x/lib$long.so
	s 0 0 0 $ha 10
	s 0 0 0 $ma 6
	s 0 0 0 $c 4
	s 0 0 1 10 1
	EOF
	"$hw" report "$tmp/d" --lines --svg "$tmp/p.svg" >/dev/null 2>&1
	check "svg written" [ -s "$tmp/p.svg" ]
	check "svg: XML, every name in a title, long names cut" python3 -c "
import xml.etree.ElementTree as E
ns = '{http://www.w3.org/2000/svg}'
r = E.parse('$tmp/p.svg').getroot()
assert r.tag == ns + 'svg', r.tag
titles = [t.text for t in r.iter(ns + 'title')]
texts = [t.text or '' for t in r.iter(ns + 'text')]
for want in ['rp-lines', 'hot', 'mix', 'cold', 'lines.c:$hot', 'lines.c:$mix',
             'lib$long.so', '+0x10']:
    assert any(want in t for t in titles), (want, titles)
assert any('./prog <&>' in t for t in texts), texts
for g in r.iter(ns + 'g'):
    t = g.find(ns + 'title').text
    x = g.find(ns + 'text')
    w = float(g.find(ns + 'rect').get('width'))
    if x is not None:
        assert len(x.text) * 7.3 <= w, (x.text, w)
        lab = x.text.rsplit(' ', 1)[0] if x.text.endswith('%') else x.text
        assert t.startswith(lab) or lab.endswith('\u2026'), (x.text, t)
assert any((x.text or '').endswith('\u2026') for x in r.iter(ns + 'text')), 'no name cut'
# an icicle: every box lies inside a box of the level above
boxes = {}
for g in r.iter(ns + 'g'):
    q = g.find(ns + 'rect')
    boxes.setdefault(g.get('class'), []).append((float(q.get('x')), float(q.get('width'))))
for lv in range(1, 4):
    for x, w in boxes.get('l%d' % lv, []):
        assert any(px - 0.01 <= x and x + w <= px + pw + 0.01
                   for px, pw in boxes['l%d' % (lv - 1)]), (lv, x, w)
assert len(boxes['l3']) == 4, boxes['l3']
print('titles:', len(titles))
"
	;;
svg-browser)
	# the icicle in a real browser engine: Chromium, headless
	br=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
	[ -n "$br" ] || { echo "SKIP: no chromium here to render the SVG"; exit 77; }
	h=$(addr "$lines" hot) c=$(addr "$lines" cold)
	hot=$(line_of "$src" HOT) mix=$(line_of "$src" MIX)
	ha=$(line_addr "$lines" lines.c "$hot") ma=$(line_addr "$lines" lines.c "$mix")
	"$gen" "$tmp/d" <<-EOF || exit 99
	command ./prog <&>
	event task-clock 1000000 21 0 0 0 -
	process 1 0 ./prog
	thread 1 0 p
	object $(bid "$lines") $lines
	object - /opt/x/lib$(printf 'very_long_function_name_%.0s' 1 2 3 4 5 6 7 8).so
	s 0 0 0 $ha 10
	s 0 0 0 $ma 6
	s 0 0 0 $c 4
	s 0 0 1 10 1
	EOF
	"$hw" report "$tmp/d" --lines --svg "$tmp/p.svg" >/dev/null 2>&1
	check "svg written" [ -s "$tmp/p.svg" ]
	prof=$(mktemp -d)
	set -- --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$prof"
	timeout 120 "$br" "$@" --dump-dom "file://$tmp/p.svg" > "$tmp/dom" 2>/dev/null
	timeout 120 "$br" "$@" --screenshot="$tmp/shot.png" --window-size=1220,220 \
		"file://$tmp/p.svg" >/dev/null 2>&1
	rm -rf "$prof"
	check "chromium: the DOM holds the icicle" sh -c "grep -q '<svg' '$tmp/dom' && [ \$(grep -o '<rect' '$tmp/dom' | wc -l) -ge 11 ]"
	check "chromium: the names in the DOM" sh -c "grep -q 'lines.c:$hot' '$tmp/dom' && grep -q '<title>hot (rp-lines)' '$tmp/dom'"
	check "chromium: no parse error" sh -c "! grep -qi 'error on line' '$tmp/dom'"
	check "chromium: screenshot with colour" python3 "$(dirname "$0")/png-colours.py" "$tmp/shot.png" 5
	[ -n "${HWPROF_KEEP_SHOT:-}" ] && cp "$tmp/shot.png" "$HWPROF_KEEP_SHOT"
	;;
help)
	v=$("$hw" --version)
	check "--version: $v" sh -c "echo '$v' | grep -Eq '^hwprof [0-9]+\.[0-9]+\.[0-9]+$'"
	man=$(dirname "$0")/../man/hwprof.1
	for c in report annotate diff list; do
		"$hw" help $c > "$tmp/h1"
		check "help $c: status 0" [ $? = 0 ]
		"$hw" $c --help > "$tmp/h2"
		check "$c --help = help $c" cmp -s "$tmp/h1" "$tmp/h2"
		for o in $(grep -Eo -- '--[a-z][a-z-]*' "$tmp/h1" | sort -u); do
			check "$c $o in hwprof(1)" grep -q -- "$(echo "$o" | sed 's/-/\\\\-/g')" "$man"
		done
	done
	# every option hwprof(1) gives report is in its help
	sed -n '/^\.SS report/,/^\.SS annotate/p' "$man" | grep -Eo '^\.BI? \\\-\\\-[a-z\\-]*' |
		sed 's/^\.BI\{0,1\} //; s/\\//g' | sort -u > "$tmp/manopts"
	for o in $(cat "$tmp/manopts"); do
		check "hwprof(1) report $o in report --help" grep -q -- "$o" "$("$hw" help report > "$tmp/h3"; echo "$tmp/h3")"
	done
	check "hwprof(1) lists report options" [ -s "$tmp/manopts" ]
	"$hw" help nosuch 2>"$tmp/e"
	check "help nosuch: status 2" [ $? = 2 ]
	"$hw" 2>/dev/null
	check "no command: status 2" [ $? = 2 ]
	check "--help: every command" sh -c "'$hw' --help | grep -q annotate"
	;;
*)
	echo "unknown case $case_"; exit 99 ;;
esac
[ $fail = 0 ] && echo "report $case_: all checks passed"
exit $fail
