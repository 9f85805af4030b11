#!/bin/sh
# SPDX-License-Identifier: MIT
# hwprof report on the ranks of an MPI job (hwprof(1)): rank files merged
# (several files, a directory), the refusals, --ranks in every format and
# its SVG, a job file of libhwprof-mpi, and files of versions 1 and 2. The files are written by
# tests/report/data-gen.c through tools/data.c, with samples at the
# addresses of real functions (hot and cold of tests/report/lines.c, and
# libc's) so that names resolve. Exact counts only.
# usage: test-ranks.sh CASE HWPROF DATA-GEN LINES
set -u
case_=$1 hw=$2 gen=$3 lines=$4
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$(dirname "$0")/tlib.sh"
hot=$(addr "$lines" hot) cold=$(addr "$lines" cold) lb=$(bid "$lines")
[ -n "$hot" ] && [ -n "$cold" ] && [ -n "$lb" ] || { echo "ERROR: no hot/cold in $lines"; exit 99; }
libc=$(ldd "$hw" | awk '$1 ~ /^libc\.so/ { print $3 }')
cb=$(bid "$libc")
# the address of a libc function (dynamic symbols: libc is stripped)
getpid=$(nm -D --defined-only "$libc" | awk '$3 ~ /^getpid(@|$)/ { print $1; exit }')
[ -n "$libc" ] && [ -n "$cb" ] && [ -n "$getpid" ] || { echo "ERROR: libc's getpid"; exit 99; }
N=7
# an MPI library: a copy of an object under the name hd_object_is_mpi() knows
mkdir "$tmp/mpi" && cp "$lines" "$tmp/mpi/libmpi.so.40" || exit 99
# rank_file OUT RANK SIZE [EXTRA LINES...]: rank r of a job of SIZE, with
# (r+1)*N samples in hot, 3 in cold, r in libc's getpid and 2r in an MPI
# library (libmpi.so.40, at an address no symbol covers)
rank_file() {
	out=$1 r=$2 size=$3
	shift 3
	{
		echo "command ./rp-lines --size $size"
		echo "host node$((r / 2))"
		echo "rank $r $size"
		echo "program $lb $lines"
		echo "event task-clock 1000000 $(((r + 1) * N + 3 + 3 * r)) 0 0 0 -"
		echo "process $((4000 + r)) 0 ./rp-lines --size $size"
		echo "thread $((4000 + r)) 0 rp-lines"
		echo "object $lb $lines"
		echo "object $cb $libc"
		echo "object - $tmp/mpi/libmpi.so.40"
		echo "s 0 0 0 $hot $(((r + 1) * N))"
		echo "s 0 0 0 $cold 3"
		[ "$r" -eq 0 ] || echo "s 0 0 1 $getpid $r"
		[ "$r" -eq 0 ] || echo "s 0 0 2 1000 $((2 * r))"
		for l in "$@"; do echo "$l"; done
	} | "$gen" "$out" || { echo "ERROR: data-gen"; exit 99; }
}
four() {	# DIR: ranks 0 to 3 of 4 as DIR/rank-R.data
	mkdir -p "$1"
	for r in 0 1 2 3; do rank_file "$1/rank-$r.data" $r 4; done
}

case $case_ in
merge)
	# 4 ranks, rank r with (r+1)*N samples in hot: 10N in the whole job
	four "$tmp/j"
	"$hw" report "$tmp/j/rank-0.data" "$tmp/j/rank-1.data" "$tmp/j/rank-2.data" \
		"$tmp/j/rank-3.data" > "$tmp/r" 2>"$tmp/e"
	check "status 0, no refusal" [ $? = 0 ]
	cat "$tmp/r"
	check "hot: 10N = $((10 * N)) samples" grep -Eq " $((10 * N))  hot +rp-lines$" "$tmp/r"
	check "cold: 4 x 3 = 12" grep -Eq " 12  cold +rp-lines$" "$tmp/r"
	check "getpid (libc): 1+2+3 = 6" grep -Eq " 6  _*getpid +libc\.so\.6$" "$tmp/r"
	check "4 processes, 4 threads" grep -q '^# processes: 4  threads: 4$' "$tmp/r"
	check "--merge: accepted, the same report" sh -c "'$hw' report --merge '$tmp'/j/rank-*.data | cmp -s - '$tmp/r'"
	# annotate merges as report does: files, or a directory
	"$hw" annotate hot "$tmp/j" > "$tmp/a" 2>"$tmp/e"
	check "annotate DIR: status 0" [ $? = 0 ]
	cat "$tmp/a" "$tmp/e"
	check "annotate DIR: hot's 10N samples of the 4 ranks" \
		grep -q "^# hot in $lines: $((10 * N)) samples of task-clock\$" "$tmp/a"
	check "annotate FILE FILE: rank 0 and 3, N + 4N" sh -c \
		"'$hw' annotate hot '$tmp/j/rank-0.data' '$tmp/j/rank-3.data' | grep -q '^# hot in .*: $((5 * N)) samples of task-clock\$'"
	err "nosuch: no such function in the sampled objects of the merged files" \
		"$hw" annotate nosuch "$tmp/j"
	"$hw" report --ranks "$tmp"/j/rank-*.data > "$tmp/k" 2>"$tmp/e"
	check "--ranks: status 0" [ $? = 0 ]
	cat "$tmp/k"
	# total min mean max max/mean max-rank stddev cv function object
	# (stddev over the ranks, those without samples at 0; cv = stddev/mean)
	check "--ranks hot: 10N, min N, mean 2.5N, max 4N, 1.60, rank 3, sd 7.83, cv 0.45" grep -Eq \
		"^ +$((10 * N)) +$N +$((25 * N / 10))\.50 +$((4 * N)) +1\.60 +3 +7\.83 +0\.45  hot +rp-lines$" "$tmp/k"
	check "--ranks cold: 12, 3, 3.00, 3, 1.00, rank 0 (lowest on ties), sd 0" grep -Eq \
		'^ +12 +3 +3\.00 +3 +1\.00 +0 +0\.00 +0\.00  cold +rp-lines$' "$tmp/k"
	check "--ranks getpid: rank 0 had none: min 0, max 3 at rank 3, sd 1.12, cv 0.75" grep -Eq \
		'^ +6 +0 +1\.50 +3 +2\.00 +3 +1\.12 +0\.75  _*getpid +libc\.so\.6$' "$tmp/k"
	check "header: 4 of 4 ranks" grep -q '^# ranks: 4 present of 4 (world size)$' "$tmp/k"
	# rank r: (r+1)N + 3 + r + 2r samples; N=7: 10, 20, 30, 40
	check "header: samples per rank 10 (rank 0), 25.00, 40 (rank 3)" grep -q \
		'^# samples per rank: min 10 (rank 0), mean 25.00, max 40 (rank 3)$' "$tmp/k"
	# in MPI: 0/10, 2/20, 4/30, 6/40 = 0, 10, 13.33, 15 %
	check "header: time in MPI 0.00% (rank 0), 9.58%, 15.00% (rank 3)" grep -q \
		'^# time in MPI per rank (samples in MPI objects): min 0.00% (rank 0), mean 9.58%, max 15.00% (rank 3)$' "$tmp/k"
	check "no warning" [ ! -s "$tmp/e" ]
	"$hw" report --ranks --format csv --stats "$tmp/s" "$tmp/j" > "$tmp/c"
	cat "$tmp/c" "$tmp/s"
	check "csv header with one column per rank" grep -qx \
		'total,min,mean,max,max_mean,max_rank,stddev,cv,function,object,rank_0,rank_1,rank_2,rank_3' "$tmp/c"
	check "csv hot: per rank N, 2N, 3N, 4N" grep -qx \
		"$((10 * N)),$N,17.50,$((4 * N)),1.60,3,7.83,0.4472,\"hot\",\"rp-lines\",$N,$((2 * N)),$((3 * N)),$((4 * N))" "$tmp/c"
	check "csv: one table" python3 -c "
import csv
r = list(csv.reader(open('$tmp/c')))
assert all(len(x) == len(r[0]) for x in r), r"
	check "--stats: the per-rank table, rank 2" grep -qx '2,"node1",4002,30,4,13.33' "$tmp/s"
	check "--stats: its header" sh -c "head -1 '$tmp/s' | grep -qx 'rank,host,pid,samples,mpi_samples,mpi_percent'"
	"$hw" report --ranks --format json "$tmp/j" > "$tmp/js"
	check "json: hot's counts, spread; per-rank table; ranks" python3 -c "
import json, sys
d = json.load(open('$tmp/js'))
r = {x['function'].lstrip('_'): x for x in d['rows']}
h = r['hot']
N = $N
assert h['counts'] == [N, 2 * N, 3 * N, 4 * N], h
assert (h['total'], h['min'], h['max'], h['max_rank']) == (10 * N, N, 4 * N, 3), h
assert abs(h['mean'] - 2.5 * N) < 1e-9 and abs(h['max_mean'] - 1.6) < 1e-9, h
assert abs(h['stddev'] - (1.25 ** 0.5) * N) < 1e-3 and abs(h['cv'] - 0.4472) < 1e-4, h
assert r['getpid']['counts'] == [0, 1, 2, 3] and r['getpid']['min'] == 0, r['getpid']
assert d['ranks'] == [0, 1, 2, 3] and d['world_size'] == 4 and d['ranks_present'] == 4, d
assert [p['samples'] for p in d['per_rank']] == [10, 20, 30, 40], d['per_rank']
assert [p['mpi_samples'] for p in d['per_rank']] == [0, 2, 4, 6], d['per_rank']
assert d['per_rank'][3]['host'] == 'node1' and d['per_rank'][3]['pid'] == 4003
assert d['samples_per_rank']['max_rank'] == 3 and d['samples_per_rank']['min'] == 10
assert d['mpi_percent_per_rank']['max'] == 15 and d['job_file'] is False
assert d['rows'][0]['function'] == 'hot'
"
	check "--ranks libmpi: 0, 2, 4, 6" grep -Eq '^ +12 +0 +3\.00 +6 +2\.00 +3 +2\.24 +0\.75  _init +libmpi\.so\.40$' "$tmp/k"
	# --sort imbalance: max - mean, then total (hot 40 - 25, libmpi's
	# _init 6 - 3, getpid 3 - 1.5, cold 0), not max/mean (which put
	# _init and getpid, 2.00, before hot, 1.60)
	"$hw" report --ranks --sort imbalance "$tmp/j" | awk '!NF { exit } !/^#/ { print $9 }' > "$tmp/o"
	check "--sort imbalance: hot, _init, getpid, cold" sh -c \
		"tr '\n' ' ' < '$tmp/o' | grep -Eqx 'function hot _init _*getpid cold '"
	check "--sort samples: hot, _init, cold, getpid" sh -c \
		"'$hw' report --ranks '$tmp/j' | awk '!NF { exit } !/^#/ { print \$9 }' | tr '\n' ' ' | grep -Eqx 'function hot _init cold _*getpid '"
	# a missing rank: rank 2 of 4 absent
	rm "$tmp/j/rank-2.data"
	"$hw" report --ranks "$tmp/j" > "$tmp/k" 2>"$tmp/e"
	cat "$tmp/e"
	check "missing rank: warned on stderr" grep -q \
		'^hwprof: warning: 3 of the 4 ranks of the job are present (the first missing: rank 2)' "$tmp/e"
	check "missing rank: and in the header" grep -q '^# warning: 3 of the 4 ranks' "$tmp/k"
	check "missing rank: mean over 3 ranks (N+2N+4N)/3" grep -Eq \
		"^ +$((7 * N)) +$N +16\.33 +$((4 * N)) +1\.71 +3 +8\.73 +0\.53  hot " "$tmp/k"
	;;
identity)
	# the same object (build-id) at two paths is one object; two build-ids
	# at one path are two
	cp "$libc" "$tmp/libc-copy.so.6"
	rank_file "$tmp/a.data" 0 2
	{
		echo "command ./rp-lines"; echo "rank 1 2"; echo "program $lb $lines"
		echo "event task-clock 1000000 10 0 0 0 -"
		echo "process 5 0 ./rp-lines"; echo "thread 5 0 x"
		echo "object $lb $lines"; echo "object $cb $tmp/libc-copy.so.6"
		echo "s 0 0 0 $hot 4"; echo "s 0 0 1 $getpid 5"
	} | "$gen" "$tmp/b.data" || exit 99
	"$hw" report --objects --format csv "$tmp/a.data" "$tmp/b.data" > "$tmp/o"
	cat "$tmp/o"
	check "libc at two paths, one build-id: one object, 5 samples" sh -c \
		"grep -c 'libc' '$tmp/o' | grep -qx 1 && grep -q ',5,\"libc.so.6\",\"$libc\"' '$tmp/o'"
	check "hot: 7 + 4 = 11 in one row" sh -c "'$hw' report '$tmp/a.data' '$tmp/b.data' | grep -Eq ' 11  hot +rp-lines$'"
	# rp-lines under one path with another build-id: another object
	{
		echo "command ./rp-lines"; echo "rank 1 2"; echo "program $lb $lines"
		echo "event task-clock 1000000 10 0 0 0 -"
		echo "process 5 0 ./rp-lines"; echo "thread 5 0 x"
		echo "object 0123456789abcdef0123456789abcdef01234567 $lines"
		echo "s 0 0 0 $hot 4"
	} | "$gen" "$tmp/c.data" || exit 99
	"$hw" report --objects --format csv "$tmp/a.data" "$tmp/c.data" > "$tmp/o" 2>"$tmp/e"
	cat "$tmp/o" "$tmp/e"
	check "one path, two build-ids: two objects (10 and 4)" sh -c \
		"grep -q '^[0-9.]*,10,\"rp-lines\",\"$lines\"' '$tmp/o' && grep -q '^[0-9.]*,4,\"rp-lines\",\"$lines\"' '$tmp/o'"
	check "the other build-id: said on stderr" grep -q 'rebuilt since the recording' "$tmp/e"
	# no build-id: one path and one size are one object; another size at
	# that path is another file, whose names the report says may be wrong
	sz=$(stat -c %s "$lines")
	for x in "d $sz 4" "e $sz 5" "f $((sz + 8)) 6"; do
		set -- $x
		{
			echo "command ./rp-lines"; echo "event task-clock 1000000 10 0 0 0 -"
			echo "process 5 0 ./rp-lines"; echo "thread 5 0 x"
			echo "sobject - $2 $lines"; echo "s 0 0 0 $hot $3"
		} | "$gen" "$tmp/$1.data" || exit 99
	done
	"$hw" report --objects --format csv "$tmp/d.data" "$tmp/e.data" > "$tmp/o" 2>"$tmp/e"
	cat "$tmp/o" "$tmp/e"
	check "no build-id, one path and size: one object (4 + 5)" sh -c \
		"grep -c 'rp-lines' '$tmp/o' | grep -qx 1 && grep -q '^[0-9.]*,9,\"rp-lines\",\"$lines\"' '$tmp/o'"
	check "no build-id, the file's size: no warning" [ ! -s "$tmp/e" ]
	"$hw" report --objects --format csv "$tmp/d.data" "$tmp/f.data" > "$tmp/o" 2>"$tmp/e"
	cat "$tmp/o" "$tmp/e"
	check "no build-id, one path, two sizes: two objects (4 and 6)" sh -c \
		"grep -q '^[0-9.]*,4,\"rp-lines\",\"$lines\"' '$tmp/o' && grep -q '^[0-9.]*,6,\"rp-lines\",\"$lines\"' '$tmp/o'"
	check "no build-id, another size: said on stderr" grep -q \
		"^hwprof: warning: .*rp-lines: changed since the recording (no build-id; $((sz + 8)) bytes then, $sz now): its names may be wrong$" "$tmp/e"
	"$hw" report "$tmp/d.data" "$tmp/f.data" > "$tmp/o" 2>/dev/null
	cat "$tmp/o"
	check "no build-id, another size: names still given (hot 6, hot 4: two files)" sh -c \
		"grep -Eq ' 6  hot +rp-lines\$' '$tmp/o' && grep -Eq ' 4  hot +rp-lines\$' '$tmp/o'"
	# a file naming one event twice: its two events are one in the merge
	# (tools/view.c sums its samples one by one there, not appended)
	rank_file "$tmp/m0.data" 0 3
	{
		echo "command ./rp-lines"; echo "rank 1 3"; echo "program $lb $lines"
		echo "event task-clock 1000000 10 0 0 0 -"
		echo "event task-clock 1000000 10 0 0 0 -"
		echo "process 5 0 ./rp-lines"; echo "thread 5 0 x"
		echo "object $lb $lines"
		echo "s 0 0 0 $hot 2"; echo "s 1 0 0 $hot 3"; echo "s 1 0 0 $cold 1"
	} | "$gen" "$tmp/m1.data" || exit 99
	rank_file "$tmp/m2.data" 2 3
	"$hw" report "$tmp/m0.data" "$tmp/m1.data" "$tmp/m2.data" > "$tmp/o"
	cat "$tmp/o"
	check "one event twice: hot 7 + 2 + 3 + 21 = 33" grep -Eq " 33  hot +rp-lines$" "$tmp/o"
	check "one event twice: cold 3 + 1 + 3 = 7" grep -Eq " 7  cold +rp-lines$" "$tmp/o"
	;;
refuse)
	four "$tmp/j"
	j=$tmp/j
	# another program: program lines differ
	{
		echo "command ./other"; echo "rank 1 4"; echo "program $cb /usr/bin/other"
		echo "event task-clock 1000000 1 0 0 0 -"
		echo "process 9 0 ./other"; echo "thread 9 0 other"
	} | "$gen" "$tmp/other.data" || exit 99
	err "$j/rank-0.data and $tmp/other.data are profiles of different programs \($lines build-id $lb, /usr/bin/other build-id $cb\)$" \
		"$hw" report "$j/rank-0.data" "$tmp/other.data"
	# no build-id: the program's path and size
	for x in "q1 1000" "q2 1008"; do
		set -- $x
		printf 'command ./a\nprogram - /opt/a\npsize %s\nevent task-clock 1 1 0 0 0 -\nprocess 1 0 ./a\nthread 1 0 a\n' \
			"$2" | "$gen" "$tmp/$1.data" || exit 99
	done
	err "q1.data and .*q2.data are profiles of different programs \(/opt/a \(1000 bytes\), /opt/a \(1008 bytes\)\)$" \
		"$hw" report "$tmp/q1.data" "$tmp/q2.data"
	printf 'command ./a\nprogram - /opt/a\nevent task-clock 1 1 0 0 0 -\nprocess 2 0 ./a\nthread 2 0 a\n' |
		"$gen" "$tmp/q3.data" || exit 99
	check "no build-id, one size unknown: the path decides" \
		sh -c "'$hw' report '$tmp/q1.data' '$tmp/q3.data' > /dev/null"
	# no program line (version 2 style): the command's first word
	printf 'command ./a x\nevent task-clock 1 1 0 0 0 -\nprocess 1 0 ./a x\nthread 1 0 a\n' |
		"$gen" "$tmp/p1.data"
	printf 'command ./b x\nevent task-clock 1 1 0 0 0 -\nprocess 2 0 ./b x\nthread 2 0 b\n' |
		"$gen" "$tmp/p2.data"
	err "p1.data and .*p2.data are profiles of different programs \(\./a, \./b\)$" \
		"$hw" report "$tmp/p1.data" "$tmp/p2.data"
	# other events
	rank_file "$tmp/ev.data" 1 4
	sed 's/ task-clock$/ page-faults/' "$tmp/ev.data" > "$tmp/ev2.data"
	err "rank-0.data and .*ev2.data have different events \(task-clock, page-faults\)$" \
		"$hw" report "$j/rank-0.data" "$tmp/ev2.data"
	# another world size
	rank_file "$tmp/size.data" 1 8
	err "rank-0.data and .*size.data have different MPI world sizes \(4, 8\)$" \
		"$hw" report "$j/rank-0.data" "$tmp/size.data"
	# a rank twice
	cp "$j/rank-2.data" "$tmp/again.data"
	err "rank-2.data and .*again.data both hold MPI rank 2$" \
		"$hw" report "$j" "$tmp/again.data"
	# a job file with anything
	printf 'command ./rp-lines\njob 4 0\nevent task-clock 1 1 0 0 0 -\nprocess 1 0 ./rp-lines\nprocrank 0 0\n' |
		"$gen" "$tmp/job.data"
	err "job.data is a job file \(libhwprof-mpi\): it is reported alone, not merged with .*rank-0.data$" \
		"$hw" report "$tmp/job.data" "$j/rank-0.data"
	err "job.data is a job file \(libhwprof-mpi\): it is reported alone, not merged with .*rank-0.data$" \
		"$hw" report "$j/rank-0.data" "$tmp/job.data"
	# --ranks on a file without ranks
	err "p1.data: no MPI rank in it \(not recorded under an MPI launcher\): --ranks needs ranks$" \
		"$hw" report --ranks "$tmp/p1.data"
	# a directory without data files (and one with only other files)
	mkdir "$tmp/empty" "$tmp/other"
	touch "$tmp/other/notes.txt"
	mkdir "$tmp/other/sub.data"
	err "empty: a directory with no data files \(\*\.data\) in it$" "$hw" report "$tmp/empty"
	err "other: a directory with no data files" "$hw" report --ranks "$tmp/other"
	uerr "--sort imbalance: only with --ranks" "$hw" report --sort imbalance "$j"
	;;
dir)
	# a directory: its *.data files sorted by name, nothing else, not
	# recursive; the same report as the files named one by one
	four "$tmp/j"
	echo "not data" > "$tmp/j/README"
	mkdir "$tmp/j/old.data" "$tmp/j/sub"
	cp "$tmp/j/rank-1.data" "$tmp/j/sub/rank-1.data"	# would be a rank twice
	"$hw" report --processes --format csv "$tmp/j" > "$tmp/d" 2>"$tmp/e"
	check "directory: status 0 (README, old.data/ and sub/ ignored)" [ $? = 0 ]
	cat "$tmp/d" "$tmp/e"
	"$hw" report --processes --format csv "$tmp"/j/rank-0.data "$tmp"/j/rank-1.data \
		"$tmp"/j/rank-2.data "$tmp"/j/rank-3.data > "$tmp/f"
	check "directory = its files by name" cmp -s "$tmp/d" "$tmp/f"
	check "4 processes" [ "$(grep -c ',"\./rp-lines --size 4",' "$tmp/d")" = 4 ]
	eq "--processes csv: the rank column, last" \
		"$(awk -F, 'NR == 1 { print $NF } NR > 1 { print $3 ":" $NF }' "$tmp/d" | sort | tr '\n' ' ')" \
		"4000:0 4001:1 4002:2 4003:3 rank "
	"$hw" report --threads "$tmp/j" 2>/dev/null >"$tmp/th"
	eq "--threads text: the rank after the pid" \
		"$(awk 'f { print $4 ":" $5 } /^ *percent/ { f = 1; print $5 }' "$tmp/th" | sort | tr '\n' ' ')" \
		"4000:0 4001:1 4002:2 4003:3 rank "
	# by name: rank-10 comes between rank-1 and rank-2
	mkdir "$tmp/k"
	for r in 0 1 2 10; do rank_file "$tmp/k/rank-$r.data" $r 11; done
	"$hw" report --ranks --format json "$tmp/k" > "$tmp/js" 2>"$tmp/e"
	check "ranks in rank order, 4 of 11 present, warned" python3 -c "
import json
d = json.load(open('$tmp/js'))
assert d['ranks'] == [0, 1, 2, 10] and d['world_size'] == 11, d['ranks']
assert any('4 of the 11 ranks' in w for w in d['warnings']), d['warnings']
"
	# files by name: rank-10.data before rank-2.data
	mkdir "$tmp/o"
	rank_file "$tmp/o/rank-2.data" 5 8
	rank_file "$tmp/o/rank-10.data" 5 8
	err "/o/rank-10.data and .*/o/rank-2.data both hold MPI rank 5$" "$hw" report "$tmp/o"
	;;
job)
	# a job file of libhwprof-mpi: 4 ranks, hot with (r+1)N in rank r
	# (per-rank counts kept), cold 3 each (spread only), and two functions
	# of the file at addresses in getpid, without counts: one row whose
	# sum is known and spread is not
	g2=$(printf %x $((0x$getpid + 2)))
	{
		echo "command mpirun -np 4 ./rp-lines"
		echo "host node0"
		echo "job 4 1"
		echo "program $lb $lines"
		echo "event task-clock 1000000 $((10 * N + 12 + 6)) 0 0 0 -"
		for r in 0 1 2 3; do
			echo "process $((4000 + r)) 0 ./rp-lines"
			echo "procrank $r $r"
			echo "prochost $r node$((r / 2))"
		done
		echo "object $lb $lines"
		echo "object $cb $libc"
		echo "s 0 - 0 $hot $((10 * N))"
		echo "s 0 - 0 $cold 12"
		echo "s 0 - 1 $getpid 4"
		echo "s 0 - 1 $g2 2"
		for r in 0 1 2 3; do echo "rt $r 0 $(((r + 1) * N + 3 + (r == 3 ? 6 : 0))) $r"; done
		echo "f 0 0 $hot $((10 * N)) $N $((4 * N)) 3 4"
		echo "f 0 0 $cold 12 3 3 0 4"
		echo "f 0 1 $getpid 4 0 4 3 1"
		echo "f 0 1 $g2 2 0 2 3 1"
		for r in 0 1 2 3; do echo "fr 0 $r $(((r + 1) * N))"; done
	} > "$tmp/job.spec"
	"$gen" "$tmp/job.data" < "$tmp/job.spec" || exit 99
	"$hw" report "$tmp/job.data" > "$tmp/r" 2>"$tmp/e"
	check "flat: status 0" [ $? = 0 ]
	cat "$tmp/r"
	check "flat: hot 10N from the summed samples" grep -Eq " $((10 * N))  hot +rp-lines$" "$tmp/r"
	check "flat: getpid 6 (two addresses)" grep -Eq ' 6  _*getpid +libc\.so\.6$' "$tmp/r"
	check "header: the job file's threads are not kept, said" grep -q \
		'^# processes: 4 (the ranks)  threads: not kept in a job file of libhwprof-mpi$' "$tmp/r"
	check "json: threads null" sh -c "'$hw' report '$tmp/job.data' --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d[\"threads\"] is None and d[\"processes\"] == 4, d'"
	"$hw" report --ranks "$tmp/job.data" > "$tmp/k" 2>"$tmp/e"
	check "--ranks: status 0" [ $? = 0 ]
	cat "$tmp/k" "$tmp/e"
	check "--ranks hot: 10N, N, 2.5N, 4N, 1.60, rank 3" grep -Eq \
		"^ +$((10 * N)) +$N +17\.50 +$((4 * N)) +1\.60 +3 +7\.83 +0\.45  hot +rp-lines$" "$tmp/k"
	# the per-rank counts of the job's top functions only: the stddev of
	# the others is not in a job file
	check "--ranks cold: from its spread: 12, 3, 3.00, 3, 1.00, 0, stddev unknown" grep -Eq \
		'^ +12 +3 +3\.00 +3 +1\.00 +0 +\? +\?  cold +rp-lines$' "$tmp/k"
	check "--ranks getpid: two functions of the file, spread unknown" grep -Eq \
		'^ +6 +\? +1\.50 +\? +\? +\? +\? +\?  _*getpid +libc\.so\.6$' "$tmp/k"
	check "--ranks: header from rtotals" grep -q \
		"^# samples per rank: min 10 (rank 0), mean 22.00, max 37 (rank 3)$" "$tmp/k"
	# rank r: r in MPI of 10, 17, 24, 37: 0, 5.88, 8.33, 8.11 %
	check "--ranks: MPI share from rtotals" grep -q \
		'^# time in MPI per rank (samples in MPI objects): min 0.00% (rank 0), mean 5.58%, max 8.33% (rank 2)$' "$tmp/k"
	"$hw" report --ranks --format json "$tmp/job.data" > "$tmp/js"
	check "json: counts for hot only, null where unknown" python3 -c "
import json
d = json.load(open('$tmp/js'))
r = {x['function'].lstrip('_'): x for x in d['rows']}
N = $N
assert r['hot']['counts'] == [N, 2 * N, 3 * N, 4 * N], r['hot']
assert r['cold']['counts'] is None and r['cold']['max'] == 3, r['cold']
assert r['getpid']['max'] is None and r['getpid']['total'] == 6, r['getpid']
assert d['job_file'] is True and d['world_size'] == 4
assert [p['host'] for p in d['per_rank']] == ['node0', 'node0', 'node1', 'node1']
"
	"$hw" report --ranks --format csv "$tmp/job.data" > "$tmp/c"
	check "csv: cold's per-rank cells empty" grep -qx '12,3,3.00,3,1.00,0,,,"cold","rp-lines",,,,' "$tmp/c"
	err "job.data: a job file \(libhwprof-mpi\) holds no per-thread samples: no --threads" \
		"$hw" report --threads "$tmp/job.data"
	"$hw" report --processes --format csv "$tmp/job.data" > "$tmp/p"
	cat "$tmp/p"
	check "--processes: the ranks from rtotals (rank 3: 4N+3+6 = 37)" grep -q \
		'^[0-9.]*,37,4003,0,"./rp-lines"' "$tmp/p"
	check "--processes: 4 rows" [ "$(grep -c '"./rp-lines"' "$tmp/p")" = 4 ]
	# rank 0's top: hot's 7 of its 10; what is left, 3, is all that cold
	# or getpid can have had there
	check "--processes: rank 0's top function, proved: hot, 7 of 10" sh -c \
		"'$hw' report --processes '$tmp/job.data' | grep -Eq '^ *11\.36% +10  4000 +0 +\./rp-lines +hot \(70\.00%\)$'"
	check "--processes csv: rank 3's top: hot, 28" grep -q '^[0-9.]*,37,4003,0,"./rp-lines","hot",28,3$' "$tmp/p"
	# rank 0 with 20 samples, cold's max 8: cold may have had 8 > 7 there
	sed -e "s/^f 0 0 $cold 12 3 3 0 4\$/f 0 0 $cold 12 0 8 0 2/" -e 's/^rt 0 0 10 0$/rt 0 0 20 0/' \
		"$tmp/job.spec" | "$gen" "$tmp/job2.data" || exit 99
	"$hw" report --processes "$tmp/job2.data" > "$tmp/p2"
	cat "$tmp/p2"
	check "--processes: rank 0's top not proved: no top function" \
		grep -Eq '^ *[0-9.]+% +20  4000 +0 +\./rp-lines +-$' "$tmp/p2"
	check "--processes: rank 1's still proved (14 > 3 left)" \
		grep -Eq '^ *[0-9.]+% +17  4001 +1 +\./rp-lines +hot \(82\.35%\)$' "$tmp/p2"
	;;
svg)
	# the SVG of --ranks: XML, one row per top function (at most 30)
	mkdir "$tmp/j"
	for r in 0 1 2 3 4 5; do rank_file "$tmp/j/r$r.data" $r 6; done
	"$hw" report --ranks --svg "$tmp/k.svg" "$tmp/j" > "$tmp/k"
	check "status 0" [ $? = 0 ]
	n=$(awk '!NF { exit } !/^#/' "$tmp/k" | wc -l)
	n=$((n - 1))	# the column heads
	check "SVG: XML, one g.func per function ($n), hot first with 6 cells" python3 -c "
import xml.etree.ElementTree as E
ns = {'s': 'http://www.w3.org/2000/svg'}
t = E.parse('$tmp/k.svg').getroot()
g = [x for x in t.iter('{http://www.w3.org/2000/svg}g') if x.get('class') == 'func']
assert len(g) == $n, (len(g), $n)
assert g[0].find('s:title', ns).text.startswith('hot (rp-lines): total $((21 * N))'), g[0].find('s:title', ns).text
cells = [r for r in g[0].findall('s:rect', ns) if r.find('s:title', ns) is not None]
assert len(cells) == 6, len(cells)
assert cells[5].find('s:title', ns).text == 'rank 5: count $((6 * N)).0, max $((6 * N))'
"
	# 320 ranks: binned into at most 300 cells (2 ranks a cell)
	mkdir "$tmp/big"
	r=0
	while [ $r -lt 320 ]; do
		printf 'command ./rp-lines\nrank %d 320\nprogram %s %s\nevent task-clock 1 1 0 0 0 -\nprocess %d 0 ./rp-lines\nthread %d 0 x\nobject %s %s\ns 0 0 0 %s %d\n' \
			$r "$lb" "$lines" $((r + 1)) $((r + 1)) "$lb" "$lines" "$hot" $((r + 1))
		r=$((r + 1))
	done | awk -v d="$tmp/big" '/^command/ { if (f) close(f); f = sprintf("%s/%04d.spec", d, n++) }
		{ print > f }'
	for s in "$tmp"/big/*.spec; do "$gen" "${s%.spec}.data" < "$s" || exit 99; done
	"$hw" report --ranks --svg "$tmp/b.svg" "$tmp/big" > /dev/null
	check "320 ranks: 160 cells of 2 ranks" python3 -c "
import xml.etree.ElementTree as E
ns = {'s': 'http://www.w3.org/2000/svg'}
t = E.parse('$tmp/b.svg').getroot()
g = [x for x in t.iter('{http://www.w3.org/2000/svg}g') if x.get('class') == 'func']
cells = [r for r in g[0].findall('s:rect', ns) if r.find('s:title', ns) is not None]
assert len(g) == 1 and len(cells) == 160, len(cells)
assert cells[0].find('s:title', ns).text == 'ranks 0-1: mean 1.5, max 2', cells[0].find('s:title', ns).text
"
	;;
mpi-paths)
	# time in MPI by call path (hwprof(1), "Time in MPI"): rank 0's 10
	# samples in libc under opal_progress (libopen-pal) and 4 under an
	# MPI_Barrier (a wrapper in an object that is not MPI's) count as
	# MPI, as do thread 1's 2 flat samples in libopen-pal (no paths);
	# 2 in libc called from main and 3 in main do not: 16 of 21. Rank 1:
	# the same without the waits: 0 of 5.
	mkdir "$tmp/mp"
	for r in 0 1; do
		{
			echo "hwprof-data 4"
			echo "rank $r 2"
			echo "command ./app"
			echo "event 0 1 $([ $r = 0 ] && echo 21 || echo 5) 0 0 0 - task-clock"
			echo "process 0 $((100 + r)) 0 $r exit 0 - ./app"
			echo "thread 0 0 $((100 + r)) app"
			echo "thread 1 0 $((200 + r)) app"
			echo "object 0 - 4096 /nonexistent/libc.so.6"
			echo "object 1 - 4096 /nonexistent/libopen-pal.so.40"
			echo "object 2 - 4096 /nonexistent/app"
			echo "object 3 - 4096 /nonexistent/libhwprof-mpi.so.0"
			if [ $r = 0 ]; then
				echo "s 0 0 0 100 14"
				echo "s 0 1 1 600 2"
			fi
			echo "s 0 0 0 300 2"
			echo "s 0 0 2 200 3"
			echo "paths 0 fp $([ $r = 0 ] && echo 19 || echo 5) 0"
			echo "n 0 - 2 1000"
			echo "n 1 0 1 500"
			echo "n 2 1 0 100"
			echo "n 3 0 0 300"
			echo "n 4 0 2 200"
			echo "n 5 0 3 850"
			echo "n 6 5 0 100"
			if [ $r = 0 ]; then
				echo "c 0 0 2 10"
				echo "c 0 0 6 4"
			fi
			echo "c 0 0 3 2"
			echo "c 0 0 4 3"
			echo "kept 3"
			echo "sym 3 800 900 MPI_Barrier"
			echo "end"
		} >"$tmp/mp/r$r.data"
	done
	# (their objects are not there: warnings that they have no names)
	"$hw" report --ranks --format csv --stats "$tmp/mp.csv" "$tmp/mp" >/dev/null 2>"$tmp/err"
	check "the hand-made files are read" [ $? = 0 ]
	eq "each rank's samples and samples in MPI, by path" \
		"$(awk -F, 'NR > 1 { print $1, $4, $5 }' "$tmp/mp.csv" | tr '\n' ' ')" "0 21 16 1 5 0 "
	"$hw" report --ranks "$tmp/mp" 2>/dev/null >"$tmp/mp.txt"
	check "the header says so" grep -q 'samples with MPI on their call path' "$tmp/mp.txt"
	# --sort total: the samples of the paths through each function, per
	# rank: main's frame (+0xfff, its call) has every path (19, 5),
	# MPI_Barrier rank 0's 4; thread 1's flat sample counts as itself
	"$hw" report --ranks --sort total --format csv "$tmp/mp" 2>/dev/null >"$tmp/mt.csv"
	eq "--sort total: the first row, main's frame, per rank" \
		"$(awk -F, '{ gsub(/"/, "") } NR == 2 { print $9, $10, $1, $11, $12 }' "$tmp/mt.csv")" \
		"+0xfff app 24 19 5"
	eq "--sort total: MPI_Barrier's row" \
		"$(awk -F, '{ gsub(/"/, "") } $9 == "MPI_Barrier" { print $1, $11, $12 }' "$tmp/mt.csv")" "4 4 0"
	eq "--sort total: the flat sample of a thread without paths" \
		"$(awk -F, '{ gsub(/"/, "") } $9 == "+0x600" { print $1, $11, $12 }' "$tmp/mt.csv")" "2 2 0"
	# --ranks --callers: libc's +0x100 is called from opal_progress (10,
	# rank 0) and from MPI_Barrier (4, rank 0)
	"$hw" report --ranks --callers +0x100 "$tmp/mp" 2>/dev/null >"$tmp/cl.txt"
	eq "--ranks --callers: its paths' samples per rank" \
		"$(sed -n 's/^# its paths.* rank: //p' "$tmp/cl.txt")" "0:14 1:0"
	eq "--ranks --callers: each caller's total, min, max, max-rank" \
		"$(awk '!/^#/ && $1 ~ /^[0-9]+$/ { print $1, $2, $4, $5, $6 }' "$tmp/cl.txt" | tr '\n' ';')" \
		"10 0 10 0 +0x4ff;4 0 4 0 MPI_Barrier;"
	# (the hand-made objects' warnings come first)
	"$hw" report --ranks --callers nothing "$tmp/mp" >"$tmp/out" 2>"$tmp/err"
	eq "--ranks --callers of no function: status 1, said, nothing printed" \
		"$?:$(grep -c '^hwprof: nothing: no function of that name took samples on a call path$' "$tmp/err"):$(wc -c <"$tmp/out")" \
		"1:1:0"
	four "$tmp/fl"
	err "needs call paths" "$hw" report --ranks --callers hot "$tmp/fl"
	uerr "--callers and --callees: text or json" "$hw" report --ranks --callees hot "$tmp/fl"
	;;
versions)
	# files of versions 1 and 2 (hwprof 0.1 and 0.2) merge with version 3
	# ones; a version 2 file with a rank line is a rank
	# version 1: a run-time range, 8-byte buckets: address start - base + 8K
	printf 'hwprof-data 1\ncommand ./rp-lines v1\npid 11\nbucket-bytes 8\nevent 0 1000000 5 0 0 5 0 0 0 1 task-clock\nobject 0 %x 1 0 %s 1 1 %s\n%d 5\nend\n' \
		$((0x$hot % 8)) "$lb" "$lines" $((0x$hot / 8)) > "$tmp/v1.data"
	printf 'hwprof-data 2\ncommand ./rp-lines v2\nevent 0 1000000 4 0 0 0 - task-clock\nprocess 0 12 0 -1 exit 0 - ./rp-lines v2\nthread 0 0 12 x\nobject 0 %s %s\ns 0 0 0 %s 4\nend\n' \
		"$lb" "$lines" "$hot" > "$tmp/v2.data"
	{
		echo "command ./rp-lines v3"; echo "event task-clock 1000000 3 0 0 0 -"
		echo "process 13 0 ./rp-lines v3"; echo "thread 13 0 x"
		echo "object $lb $lines"; echo "s 0 0 0 $hot 3"
	} | "$gen" "$tmp/v3.data" || exit 99
	"$hw" report "$tmp/v1.data" "$tmp/v2.data" "$tmp/v3.data" > "$tmp/r" 2>"$tmp/e"
	check "v1 + v2 + v3: status 0" [ $? = 0 ]
	cat "$tmp/r" "$tmp/e"
	check "v1 + v2 + v3: hot 5 + 4 + 3" grep -Eq '^ *100\.00% +12  hot +rp-lines$' "$tmp/r"
	check "v1 + v2 + v3: threads not listed (a version 1 file)" \
		grep -q '^# processes: 3  threads: not listed (version 1 file)$' "$tmp/r"
	printf 'hwprof-data 2\nrank 1 2\ncommand ./rp-lines\nevent 0 1000000 4 0 0 0 - task-clock\nprocess 0 12 0 1 exit 0 - ./rp-lines\nthread 0 0 12 x\nobject 0 %s %s\ns 0 0 0 %s 4\nend\n' \
		"$lb" "$lines" "$hot" > "$tmp/v2r.data"
	err "v1.data and .*v2r.data have different MPI world sizes \(none, 2\)$" \
		"$hw" report "$tmp/v1.data" "$tmp/v2r.data"
	rank_file "$tmp/v3r.data" 0 2
	"$hw" report --ranks --format csv "$tmp/v3r.data" "$tmp/v2r.data" > "$tmp/c" 2>"$tmp/e"
	cat "$tmp/c" "$tmp/e"
	check "--ranks of a version 2 rank file and a version 3 one: hot 7 and 4" \
		grep -q '^11,4,5.50,7,1.27,0,1.50,0.2727,"hot","rp-lines",7,4$' "$tmp/c"
	;;
*)
	echo "ERROR: no case $case_"; exit 99 ;;
esac
exit $fail
