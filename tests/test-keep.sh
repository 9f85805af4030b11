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
	# merged with a file that kept them: the object is named from its
	# file, so the old file's addresses are named too
	check "merged with a file of 0.2: leaf 400 + 400" sh -c \
		"'$hw' report '$tmp/old' '$tmp/d' 2>/dev/null | grep -Eq ' 800 +[0-9.]+% +800  leaf '"
	# the program gone: the kept names name the samples (the other
	# file's too, at the same addresses of the same build)
	rm "$tmp/prog"
	check "merged with a file of 0.2, the program gone: leaf still named, 800" sh -c \
		"'$hw' report '$tmp/old' '$tmp/d' 2>/dev/null | grep -Eq ' 800 +[0-9.]+% +800  leaf '"
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
	grep -v '^kept \|^sym \|^line \|^src \|^count ' "$tmp/d" | sed 's/^hwprof-data 4$/hwprof-data 3/' > "$tmp/old"
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
diff)
	# hwprof diff: the same workload twice shows no significant change;
	# rec_touch doubled shows exactly that one (tests/rec-prog.c two A B)
	need_pf
	for f in a b; do
		"$hw" record -q -e page-faults -c 1 -o "$tmp/$f" -- "$other" two 300 300 ||
			{ echo "FAIL: record"; exit 1; }
	done
	"$hw" record -q -e page-faults -c 1 -o "$tmp/c" -- "$other" two 600 300 ||
		{ echo "FAIL: record"; exit 1; }
	"$hw" diff "$tmp/a" "$tmp/b" > "$tmp/ab" 2>&1
	check "same workload: status 0" [ $? = 0 ]
	head -8 "$tmp/ab"
	check "same workload: no change marked" sh -c \
		"! awk '!/^#/ && \$6 ~ /^\\*/' '$tmp/ab' | grep -q ."
	check "same workload: rec_touch 300 and 300" grep -Eq ' 300 +300 +rec_touch ' "$tmp/ab"
	"$hw" diff "$tmp/a" "$tmp/c" > "$tmp/ac" 2>&1
	head -8 "$tmp/ac"
	# (rows of rec-prog only: in a sanitizer's build its runtime's own
	# shadow faults double too, in its library)
	check "doubled: rec-prog's first row is rec_touch, 300 -> 600, marked **" \
		sh -c "awk '!/^#/ && / rec-prog\$/' '$tmp/ac' | sed -n 1p | grep -Eq '^ +[0-9.]+% +[0-9.]+% +\\+[0-9.]+ +300 +600  \\*\\*  rec_touch '"
	check "doubled: exactly one row of rec-prog marked" sh -c \
		"[ \"\$(awk '!/^#/ && / rec-prog\$/ && /  \\*/' '$tmp/ac' | wc -l)\" = 1 ]"
	"$hw" diff "$tmp/a" "$tmp/c" --format json > "$tmp/j"
	check "json: exactly rec_touch significant, z 10" python3 -c "
import json
d = json.load(open('$tmp/j'))
sig = [r for r in d['rows'] if r['significant'] and r['object'] == 'rec-prog']
assert [r['function'] for r in sig] == ['rec_touch'], sig
assert abs(sig[0]['z'] - 300 / 900 ** 0.5) < 1e-3 and sig[0]['base_samples'] == 300 and sig[0]['new_samples'] == 600, sig
b = [r for r in d['rows'] if r['function'] == 'rec_touch_b'][0]
assert b['base_samples'] == 300 and b['new_samples'] == 300 and not b['significant'], b"
	"$hw" diff "$tmp/a" "$tmp/c" --format csv > "$tmp/v"
	check "csv: one table that sqlite3 imports" sh -c \
		"[ \"\$(sqlite3 :memory: '.import --csv $tmp/v d' \"select function, significant from d where significant = 1 and object = 'rec-prog'\")\" = 'rec_touch|1' ]"
	# --normalize: base scaled to new's total (runs of different lengths)
	"$hw" diff "$tmp/a" "$tmp/c" --normalize --format json > "$tmp/n"
	check "--normalize: rec_touch still significant, rec_touch_b now less" python3 -c "
import json
d = json.load(open('$tmp/n'))
r = {x['function']: x for x in d['rows']}
assert r['rec_touch']['significant'] and r['rec_touch']['z'] > 0, r['rec_touch']
assert r['rec_touch_b']['z'] < 0, r['rec_touch_b']"
	"$hw" diff "$tmp/a" "$tmp/c" --lines > "$tmp/l" 2>&1
	check "--lines: rec_touch's line, 300 -> 600" grep -Eq ' 300 +600  \*\*  rec-prog\.c:[0-9]+ +rec_touch ' "$tmp/l"
	# a differential flame graph, with call paths
	"$hw" record -q -g -e page-faults -c 1 -o "$tmp/ga" -- "$other" two 300 300 &&
	"$hw" record -q -g -e page-faults -c 1 -o "$tmp/gc" -- "$other" two 600 300 ||
		{ echo "FAIL: record -g"; exit 1; }
	"$hw" diff "$tmp/ga" "$tmp/gc" --svg "$tmp/d.svg" > /dev/null
	check "--svg: written" test -s "$tmp/d.svg"
	# (the first call of each takes a path of its own: 299 of 300 share one)
	check "--svg: rec_touch red (gained about 300)" grep -Eq 'data-n="rec_touch" data-s="[0-9]+"><title>[^<]*change \+(29[0-9]|300) [^<]*</title><rect [^>]*fill="hsl\(0,[1-9]' "$tmp/d.svg"
	check "--svg: rec_touch_b grey (equal)" grep -Eq 'data-n="rec_touch_b" data-s="(29[0-9]|300)"><title>[^<]*change \+0 [^<]*</title><rect [^>]*fill="hsl\(0,0%,82%\)"' "$tmp/d.svg"
	check "--svg: python's XML parser reads it" python3 -c "import xml.dom.minidom; xml.dom.minidom.parse('$tmp/d.svg')"
	err "--svg: .*: no call paths" "$hw" diff "$tmp/a" "$tmp/c" --svg "$tmp/x.svg"
	# never over an input, of either side, a directory's files included
	mkdir "$tmp/dir" && cp "$tmp/gc" "$tmp/dir/r.data"
	err "--svg $tmp/dir/r.data: that is the data file being reported" \
		"$hw" diff "$tmp/ga" "$tmp/dir" --svg "$tmp/dir/r.data"
	check "the input is whole" cmp -s "$tmp/gc" "$tmp/dir/r.data"
	uerr "diff needs BASE and NEW" "$hw" diff "$tmp/a"
	uerr "--format xml: text, csv or json" "$hw" diff "$tmp/a" "$tmp/c" --format xml
	printf '%s\n' 'hwprof-data 3' 'command x' 'event 0 1 1 0 0 0 - task-clock' end > "$tmp/t"
	err "has no event page-faults" "$hw" diff "$tmp/a" "$tmp/t"
	;;
debugcache)
	# the debug cache (hwprof(1), "Debug cache"): libc's compressed debug
	# file (libc6-dbg) copied uncompressed, by build-id, silently; an
	# unusable cache costs one line, never a name; racing recordings
	# leave one whole copy
	need_pf
	libc=$(ldd /bin/dd | awk '/libc\.so/ { print $3; exit }')
	lb=$(bid "$libc")
	dbg=/usr/lib/debug/.build-id/$(echo "$lb" | cut -c1-2)/$(echo "$lb" | cut -c3-).debug
	[ -r "$dbg" ] || { echo "SKIP: no debug file for $libc (libc6-dbg)"; exit 77; }
	# dd's start faults in libc (malloc, its tunables, locale)
	rec() {	# cache dir, data file
		HWPROF_CACHE_DIR=$1 "$hw" record -q -e page-faults -c 1 -o "$2" -- \
			dd if=/dev/zero of=/dev/null bs=8M count=2 status=none
	}
	libc_lines() {	# data file: its kept lines of libc
		o=$(awk '$1 == "object" && $5 ~ /\/libc\.so\.6$/ { print $2; exit }' "$1")
		[ -n "$o" ] && grep -Eq "^line $o [0-9a-f]+ [0-9]+ [0-9]+" "$1"
	}
	rec "$tmp/c" "$tmp/d1" 2> "$tmp/e1"
	check "libc's lines kept" libc_lines "$tmp/d1"
	check "silent while it works" test ! -s "$tmp/e1"
	copy=$tmp/c/$(bid "$dbg").debug
	check "the copy, by the debug file's build-id" test -f "$copy"
	check "the user's, 0600" sh -c "[ \"\$(stat -c '%u %a' '$copy')\" = '$(id -u) 600' ]"
	check "uncompressed" sh -c "! readelf -S -W '$copy' | grep -Eq '\.debug_info .* C '"
	check "the debug file itself is compressed" sh -c "readelf -S -W '$dbg' | grep -Eq '\.debug_info .* C '"
	rec "$tmp/c" "$tmp/d2" 2> "$tmp/e2"
	check "read back: libc's lines kept" libc_lines "$tmp/d2"
	check "read back: silent" test ! -s "$tmp/e2"
	# off: nothing written
	rec "" "$tmp/d3" 2> "$tmp/e3"
	check "off: libc's lines kept" libc_lines "$tmp/d3"
	check "off: silent" test ! -s "$tmp/e3"
	# a directory others can write: not used, one line
	mkdir -m 777 "$tmp/open"
	chmod 777 "$tmp/open"
	rec "$tmp/open" "$tmp/d4" 2> "$tmp/e4"
	check "others' directory: libc's lines kept" libc_lines "$tmp/d4"
	eq "others' directory: lines on stderr" "$(wc -l < "$tmp/e4")" 1
	check "others' directory: says why" grep -q "debug cache: $tmp/open: not a directory of this user's" "$tmp/e4"
	check "others' directory: nothing written there" sh -c "[ -z \"\$(ls -A '$tmp/open')\" ]"
	# a damaged copy: one line, written again whole (the name cache
	# emptied: with it the recording would not open the DWARF at all)
	size=$(stat -c %s "$copy")
	truncate -s 4096 "$copy"
	rm -f "$tmp"/c/*.names
	rec "$tmp/c" "$tmp/d5" 2> "$tmp/e5"
	check "damaged: libc's lines kept" libc_lines "$tmp/d5"
	eq "damaged: lines on stderr" "$(wc -l < "$tmp/e5")" 1
	eq "damaged: written again, size" "$(stat -c %s "$copy")" "$size"
	# four recordings at once into an empty cache
	for i in 1 2 3 4; do rec "$tmp/r" "$tmp/p$i" 2> "$tmp/pe$i" & done
	wait
	for i in 1 2 3 4; do
		check "racing $i: libc's lines kept" libc_lines "$tmp/p$i"
		check "racing $i: silent" test ! -s "$tmp/pe$i"
	done
	check "racing: libc's copy there" test -f "$tmp/r/$(bid "$dbg").debug"
	# (the name cache's files are beside the copies: hwprof(1), "Name cache")
	eq "racing: temp files left" "$(ls -A "$tmp/r" | grep -Ev '^[0-9a-f]*\.(debug|names|lock)$')" ""
	eq "racing: the copy whole" "$(stat -c %s "$tmp/r/$(bid "$dbg").debug")" "$size"
	;;
namecache)
	# the name cache (hwprof(1), "Name cache"): silent unless -v; the
	# next recording takes the program's lines from it and keeps the same
	# ones; nobody, whose cache directory would be root's, gets the same
	# names and no line about the name cache (one with -v; the debug
	# cache says its own where libc's debug file is compressed)
	need_pf
	rec() {	# cache dir, data file, options...
		c=$1 f=$2
		shift 2
		HWPROF_CACHE_DIR=$c "$hw" record -q "$@" -e page-faults -c 1 -o "$f" -- "$prog" paths
	}
	prog_lines() {	# data file: cg-prog's kept lines, "ADDR FILE LINE FUNC"
		awk -v p="$prog" '$1 == "object" && $5 == p { o = $2 } $1 == "src" { s[$2] = $3 }
			$1 == "line" && $2 == o { print $3, s[$4], $5, $6 == "" ? "-" : $6 }' "$1" |
			sort
	}
	same_lines() {	# two prog_lines outputs: the same at every address of both,
		# leaf's among them (which addresses fault may vary a little)
		join "$1" "$2" > "$tmp/j"
		grep -q ' leaf$' "$tmp/j" &&
			awk '$2 != $5 || $3 != $6 || $4 != $7 { bad = 1 } END { exit bad }' "$tmp/j"
	}
	chmod 711 "$tmp" && mkdir -m 700 "$tmp/c" && mkdir -m 777 "$tmp/nb" || exit 99
	rec "" "$tmp/d0" || { echo "FAIL: record"; exit 1; }
	prog_lines "$tmp/d0" > "$tmp/l0"
	check "cg-prog's lines kept" grep -q ' leaf$' "$tmp/l0"
	rec "$tmp/c" "$tmp/d1" 2> "$tmp/e1"
	check "filling it: silent" test ! -s "$tmp/e1"
	check "a file by the program's build-id" test -f "$tmp/c/$(bid "$prog").names"
	rec "$tmp/c" "$tmp/d2" -v 2> "$tmp/e2"
	eq "-v: one line" "$(wc -l < "$tmp/e2")" 1
	check "-v: addresses from the cache" \
		grep -Eq "^hwprof: name cache $tmp/c: [1-9][0-9]* of [0-9]+ addresses" "$tmp/e2"
	prog_lines "$tmp/d2" > "$tmp/l2"
	check "from the cache: the same lines" same_lines "$tmp/l0" "$tmp/l2"
	rec "$tmp/c" "$tmp/d3" --verbose 2> "$tmp/e3"
	check "--verbose: the same line" grep -q "^hwprof: name cache $tmp/c: " "$tmp/e3"
	err_rc=2 err_status "--verbose takes no value" "$hw" record --verbose=1 -- true
	if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
		nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
		if $nobody test -x "$prog"; then
			HWPROF_CACHE_DIR=$tmp/c $nobody "$hw" record -q -e page-faults -c 1 \
				-o "$tmp/nb/d" -- "$prog" paths 2> "$tmp/e4"
			check "nobody, root's directory: nothing said of it" \
				sh -c "! grep -q 'name cache' '$tmp/e4'"
			prog_lines "$tmp/nb/d" > "$tmp/l4"
			check "nobody: the same lines" same_lines "$tmp/l0" "$tmp/l4"
			HWPROF_CACHE_DIR=$tmp/c $nobody "$hw" record -q -v -e page-faults -c 1 \
				-o "$tmp/nb/d" -- "$prog" paths 2> "$tmp/e5"
			eq "nobody -v: one line of it" "$(grep -c 'name cache' "$tmp/e5")" 1
			check "nobody -v: says why" \
				grep -q "name cache: $tmp/c: not a directory of this user's" "$tmp/e5"
		else
			echo "nobody cannot run $prog: the nobody steps are not run"
		fi
	fi
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
