#!/bin/sh
# SPDX-License-Identifier: MIT
# Call paths, hwprof against perf in one run (bench/README.md, "Call
# paths"), on bench/cgwork.c (16 distinct paths, frame pointers):
#  1. record N page faults with their paths (-g, -e page-faults -c 1) by
#     each tool: samples kept and lost, and the size of each file;
#  2. report each file (hwprof report; perf report -g --stdio, which
#     computes children as hwprof computes totals): wall time, median of 3;
#  3. --call-graph dwarf on D faults: the sizes of the two files;
#  4. record overhead at 1 kHz (task-clock, -g): the workload spins for
#     S ms of CPU alone, under hwprof record -g and under perf record -g,
#     interleaved rounds: median wall time of each, and its overhead.
# usage: bench/callgraph.sh BUILD [N [D [S [ROUNDS]]]]
set -eu
build=$(cd "$1" && pwd)
n=${2:-1000000} dw=${3:-20000} spin=${4:-3000} rounds=${5:-3}
hw=$build/tools/hwprof w=$build/bench/cgwork
command -v perf >/dev/null || { echo "perf is not installed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
wall() {	# command...: its wall time in seconds
	t0=$(now); "$@" >/dev/null 2>&1; t1=$(now)
	echo "$t1 - $t0" | bc -l
}

echo "== 1. recording $n page faults with call paths"
"$hw" record -q -g -e page-faults -c 1 -o "$tmp/h.data" -- "$w" faults "$n"
perf record -q -g -e page-faults -c 1 -o "$tmp/p.data" -- "$w" faults "$n" >/dev/null 2>&1
hk=$(awk '$1 == "event" { print $4 } $1 == "event" { exit }' "$tmp/h.data")
hl=$(awk '$1 == "event" { print $5; exit }' "$tmp/h.data")
pk=$(perf report -f -i "$tmp/p.data" --stats 2>/dev/null | awk '$1 == "SAMPLE" { print $3; exit }')
pl=$(perf report -f -i "$tmp/p.data" --stats 2>/dev/null | awk '/LOST_SAMPLES|LOST / { n += $NF } END { print n + 0 }')
printf '%-8s %12s %10s %14s\n' tool samples lost file_bytes
printf '%-8s %12s %10s %14s\n' hwprof "$hk" "$hl" "$(wc -c < "$tmp/h.data")"
printf '%-8s %12s %10s %14s\n' perf "${pk:-?}" "$pl" "$(wc -c < "$tmp/p.data")"

echo "== 2. reporting those files (median of 3 wall times, seconds)"
ht=$(for i in 1 2 3; do wall "$hw" report "$tmp/h.data"; done | med)
pt=$(for i in 1 2 3; do wall perf report -f -i "$tmp/p.data" --stdio -g; done | med)
printf 'hwprof report      %8.3f\nperf report -g     %8.3f\nratio hwprof/perf  %8.3f\n' \
	"$ht" "$pt" "$(echo "$ht / $pt" | bc -l)"

echo "== 3. --call-graph dwarf, $dw page faults: file sizes"
"$hw" record -q --call-graph dwarf -e page-faults -c 1 -o "$tmp/hd.data" -- "$w" faults "$dw"
perf record -q --call-graph dwarf -e page-faults -c 1 -o "$tmp/pd.data" -- "$w" faults "$dw" \
	>/dev/null 2>&1
hs=$(wc -c < "$tmp/hd.data") ps=$(wc -c < "$tmp/pd.data")
hk=$(awk '$1 == "event" { print $4; exit }' "$tmp/hd.data")
hl=$(awk '$1 == "event" { print $5; exit }' "$tmp/hd.data")
pk=$(perf report -f -i "$tmp/pd.data" --stats 2>/dev/null | awk '$1 == "SAMPLE" { print $3; exit }')
pl=$(perf report -f -i "$tmp/pd.data" --stats 2>/dev/null | awk '$1 == "LOST_SAMPLES" && NF == 3 { print $3 }')
printf 'hwprof %12s bytes, %s samples kept, %s lost\nperf   %12s bytes, %s samples kept, %s lost (%.0f times larger)\n' \
	"$hs" "$hk" "$hl" "$ps" "${pk:-?}" "${pl:-0}" "$(echo "$ps / $hs" | bc -l)"
rm -f "$tmp/pd.data" "$tmp/p.data"

echo "== 4. record overhead, task-clock at 1 kHz with -g, $spin ms of CPU, $rounds rounds"
: > "$tmp/base"; : > "$tmp/hw"; : > "$tmp/perf"
for r in $(seq "$rounds"); do
	wall "$w" spin "$spin" >> "$tmp/base"
	wall "$hw" record -q -g -e task-clock -F 1000 -o "$tmp/o.data" -- "$w" spin "$spin" >> "$tmp/hw"
	wall perf record -q -g -e task-clock -F 1000 -o "$tmp/o.perf" -- "$w" spin "$spin" >> "$tmp/perf"
done
b=$(med < "$tmp/base") h=$(med < "$tmp/hw") p=$(med < "$tmp/perf")
printf 'alone              %8.3f s\nhwprof record -g   %8.3f s  overhead %6.3f s\nperf record -g     %8.3f s  overhead %6.3f s\n' \
	"$b" "$h" "$(echo "$h - $b" | bc -l)" "$p" "$(echo "$p - $b" | bc -l)"
