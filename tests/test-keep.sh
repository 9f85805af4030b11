#!/bin/sh
# SPDX-License-Identifier: MIT
# Profiles a team keeps: the names a recording keeps (hwprof-data(5),
# "Names") name every sample after the program is rebuilt, replaced or
# removed; every warning of a report is in its output in every format;
# CSV is one table that sqlite3 and Python's csv module import, the
# statistics in the file --stats names; the vDSO is named. tests/cg-prog.c gives exact
# page-fault counts (leaf 400: mid_a 300, mid_b 100).
# usage: test-keep.sh CASE HWPROF CG-PROG OTHER-PROG
set -u
case_=$1 hw=$2 prog=$3 other=$4
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$(dirname "$0")/tlib.sh"

need_pf() {
	"$hw" list 2>/dev/null | grep -q '^  page-faults *yes' ||
		{ echo "SKIP: page-fault events cannot be sampled here"; exit 77; }
}
rows() {	# the text rows (no header) of a report
	"$hw" report "$@" 2>/dev/null | awk '!/^#/ && $1 ~ /%$/'
}

case $case_ in
rebuilt)
	need_pf
	# the program is a copy that is replaced, then removed
	cp "$prog" "$tmp/prog"
	"$hw" record -q -g -e page-faults -c 1 -o "$tmp/d" -- "$tmp/prog" paths ||
		{ echo "FAIL: record"; exit 1; }
	"$hw" record -q -g -e page-faults -c 1 -o "$tmp/d2" -- "$tmp/prog" paths 2 ||
		{ echo "FAIL: record"; exit 1; }
	check "the names are kept" sh -c "grep -q '^kept 0$' '$tmp/d' && grep -Eq '^sym 0 [0-9a-f]+ [0-9a-f]+ leaf$' '$tmp/d'"
	check "and the sampled lines" grep -Eq '^line 0 [0-9a-f]+ [0-9]+ [0-9]+ leaf$' "$tmp/d"
	rows "$tmp/d" > "$tmp/r0"
	rows "$tmp/d" --lines > "$tmp/l0"
	"$hw" report "$tmp/d" --callers leaf > "$tmp/c0" 2>/dev/null
	check "leaf 400 before" grep -Eq ' 400 +[0-9.]+% +400  leaf ' "$tmp/r0"
	for step in replaced removed; do
		if [ $step = replaced ]; then
			cp "$other" "$tmp/prog"
		else
			rm "$tmp/prog"
		fi
		"$hw" report "$tmp/d" > "$tmp/r" 2> "$tmp/e"
		awk '!/^#/ && $1 ~ /%$/' "$tmp/r" > "$tmp/r1"
		check "$step: the same rows" cmp -s "$tmp/r0" "$tmp/r1"
		check "$step: no warning about the program" sh -c "! grep -q 'prog:' '$tmp/e' '$tmp/r'"
		rows "$tmp/d" --lines > "$tmp/l1"
		check "$step: the same lines" cmp -s "$tmp/l0" "$tmp/l1"
		check "$step: leaf on its line" grep -Eq ' 400  cg-prog\.c:[0-9]+ +leaf ' "$tmp/l1"
		"$hw" report "$tmp/d" --callers leaf > "$tmp/c1" 2>/dev/null
		check "$step: the same callers" cmp -s "$tmp/c0" "$tmp/c1"
		"$hw" annotate leaf "$tmp/d" > "$tmp/a" 2>&1
		check "$step: annotate says where its names come from" \
			grep -q '^# the object is gone or not the one recorded: names and lines as kept' "$tmp/a"
		check "$step: annotate shows the source line with 400" \
			grep -Eq '^ +400 +100\.00% +[0-9]+ +pool\[used\] = 1;' "$tmp/a"
	done
	# two recordings merged, the program gone: named once, from both
	check "merged, the program gone: leaf 400 + 800" sh -c \
		"'$hw' report '$tmp/d' '$tmp/d2' 2>/dev/null | grep -Eq ' 1200 +[0-9.]+% +1200  leaf '"
	check "merged: callers mid_a 300 + 600" sh -c \
		"'$hw' report '$tmp/d' '$tmp/d2' --callers leaf 2>/dev/null | grep -Eq ' 900  mid_a$'"
	# a file of hwprof 0.2 (no kept names): named from the object as before
	cp "$prog" "$tmp/prog"
	grep -v '^kept \|^sym \|^line \|^src ' "$tmp/d" > "$tmp/old"
	check "without kept names: read from the object" sh -c \
		"'$hw' report '$tmp/old' 2>/dev/null | grep -Eq ' 400 +[0-9.]+% +400  leaf '"
	;;
warnings)
	need_pf
	"$hw" record -q -e page-faults -c 1 -o "$tmp/d" -- "$prog" paths ||
		{ echo "FAIL: record"; exit 1; }
	# what a recording finds wrong is kept with the names, and every
	# output says it
	sed 's/^kept 0$/kept 0 was not the file the program ran when recorded (rebuilt or replaced meanwhile): its names may be wrong/' \
		"$tmp/d" > "$tmp/w"
	w="warning: $prog: was not the file the program ran when recorded"
	"$hw" report "$tmp/w" > "$tmp/t" 2>/dev/null
	check "text: in the header" grep -q "^# $w" "$tmp/t"
	"$hw" report "$tmp/w" --format json 2>/dev/null | python3 -c "
import json, sys
d = json.load(sys.stdin)
assert any(x.startswith('$w') for x in d['warnings']), d['warnings']" &&
		echo "ok: json: in warnings" || { echo "FAIL: json warnings"; fail=1; }
	"$hw" report "$tmp/w" --format csv --stats "$tmp/s.csv" > "$tmp/p.csv" 2>/dev/null
	check "csv: in the statistics' warnings column" python3 -c "
import csv
r = list(csv.DictReader(open('$tmp/s.csv')))
assert len(r) == 1 and r[0]['warnings'].startswith('$w'), r"
	"$hw" report "$tmp/w" 2>&1 >/dev/null | grep -q "^hwprof: $w" &&
		echo "ok: stderr too" || { echo "FAIL: not on stderr"; fail=1; }
	# a warning found when naming (a file of 0.2, its object replaced)
	grep -v '^kept \|^sym \|^line \|^src ' "$tmp/d" | sed 's/^hwprof-data 4$/hwprof-data 3/' > "$tmp/old"
	cp "$prog" "$tmp/prog"
	sed "s|$prog\$|$tmp/prog|" "$tmp/old" > "$tmp/old2"
	cp "$other" "$tmp/prog"
	"$hw" report "$tmp/old2" --format json 2>/dev/null | python3 -c "
import json, sys
d = json.load(sys.stdin)
assert any('$tmp/prog: rebuilt since the recording' in x for x in d['warnings']), d['warnings']" &&
		echo "ok: json: the object's warning found when named" ||
		{ echo "FAIL: json lacks the rebuilt warning"; fail=1; }
	"$hw" report "$tmp/old2" 2>/dev/null | grep -q "^# warning: $tmp/prog: rebuilt since the recording" &&
		echo "ok: text: the same in the header" || { echo "FAIL: header lacks it"; fail=1; }
	;;
csv)
	need_pf
	"$hw" record -q -g -e page-faults -c 1 -o "$tmp/d" -- "$prog" paths ||
		{ echo "FAIL: record"; exit 1; }
	for v in "" --objects --lines --threads --processes; do
		"$hw" report "$tmp/d" $v --format csv --stats "$tmp/s.csv" > "$tmp/p.csv" 2>/dev/null
		rows=$(awk 'END { print NR - 1 }' "$tmp/p.csv")
		# sqlite3 takes the first line as the columns and every other
		# line as a row: one table, nothing else
		n=$(sqlite3 :memory: ".import --csv $tmp/p.csv p" "select count(*) from p")
		eq "csv${v:+ $v}: sqlite3 imports every row" "$n" "$rows"
		check "csv${v:+ $v}: python's csv reads one table" python3 -c "
import csv
r = list(csv.reader(open('$tmp/p.csv')))
assert len(r) > 1 and all(len(x) == len(r[0]) for x in r), r[:3]"
	done
	"$hw" report "$tmp/d" --format csv > "$tmp/p.csv" 2>/dev/null
	s=$(sqlite3 :memory: ".import --csv $tmp/p.csv p" "select samples, total_samples from p where function = 'leaf'")
	eq "sqlite3: leaf's samples and total" "$s" "400|400"
	n=$(sqlite3 :memory: ".import --csv $tmp/s.csv s" "select samples, lost, reported from s")
	check "--stats: the event's row ($n)" sh -c "echo '$n' | grep -Eq '^[0-9]+\|0\|1$'"
	uerr "--stats FILE: with --format csv" "$hw" report "$tmp/d" --stats "$tmp/x"
	err "--stats $tmp/d: that is the data file being reported" \
		"$hw" report "$tmp/d" --format csv --stats "$tmp/d"
	;;
vdso)
	# the vDSO is named from this process's image (the kernel's) when the
	# recorded build-id is this kernel's, under either name it goes by
	set -- $(python3 "$(dirname "$0")/vdso-sym.py")
	vb=$1 va=$2
	[ -n "$va" ] || { echo "SKIP: no vDSO with __vdso_clock_gettime here"; exit 77; }
	for name in '[vdso]' linux-vdso.so.1; do
		printf '%s\n' 'hwprof-data 3' 'command ./x' 'event 0 1000000 5 0 0 0 - task-clock' \
			'process 0 1 0 -1 exit 0 - ./x' 'thread 0 0 1 x' "object 0 $vb - $name" \
			"s 0 0 0 $va 5" end > "$tmp/v"
		"$hw" report "$tmp/v" > "$tmp/r" 2> "$tmp/e"
		cat "$tmp/r" "$tmp/e"
		check "$name: __vdso_clock_gettime" grep -Eq ' 5  __vdso_clock_gettime +(\[vdso\]|linux-vdso\.so\.1)$' "$tmp/r"
		check "$name: no warning" sh -c "! grep -q warning '$tmp/r' '$tmp/e'"
	done
	sed "s/^object 0 $vb /object 0 0000$(echo "$vb" | cut -c5-) /" "$tmp/v" > "$tmp/w"
	"$hw" report "$tmp/w" > "$tmp/r" 2>/dev/null
	cat "$tmp/r"
	check "another kernel's vDSO: no names" grep -Eq " 5  \+0x$va " "$tmp/r"
	check "and said in the header" grep -q "^# warning: linux-vdso.so.1: another kernel's (build-id differs)" "$tmp/r"
	;;
*)
	echo "unknown case $case_"; exit 99 ;;
esac
exit $fail
