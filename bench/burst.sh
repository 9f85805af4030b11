#!/bin/sh
# SPDX-License-Identifier: MIT
# Samples lost in a burst, hwprof record against perf record in one run:
# 1024 threads (all alive at once) each store into 50 fresh pages, 51 200
# page faults in one function, sampled at every fault (-e page-faults -c 1)
# as nobody (perf_event_paranoid, perf_event_mlock_kb and RLIMIT_MEMLOCK
# as users have them), each recorder with its default ring size, rounds
# interleaved, on a quiet machine and with two CPU hogs running. Prints
# per round: samples kept in the function and samples reported lost by
# each (hwprof: tests/data-dump of the file; perf: perf report's sample
# count and the "lost" line of perf report --stats), and the ratio of
# kept samples to the 51 200 faults.
# usage: bench/burst.sh BUILD [ROUNDS]
set -eu
build=$(cd "$1" && pwd)
rounds=${2:-3}
hw=$build/tools/hwprof
dump=$build/tests/data-dump
prog=$build/tests/rec-prog
command -v perf >/dev/null || { echo "perf is not installed"; exit 1; }
tmp=$(mktemp -d)
chmod 777 "$tmp"
hogs=
trap 'for p in $hogs; do kill $p 2>/dev/null; done; rm -rf "$tmp"' EXIT
run=
[ "$(id -u)" = 0 ] && run="setpriv --reuid=65534 --regid=65534 --clear-groups"
T=1024 P=50

hwprof_round() {
	$run "$hw" record -q -e page-faults -c 1 -o "$tmp/h.data" -- "$prog" threads $T $P
	kept=$("$dump" "$tmp/h.data" func rec_touch | awk '$1 == "total" { print $2 }')
	lost=$("$dump" "$tmp/h.data" | awk '$1 == "event" { print $5 }')
	echo "$1 hwprof kept $kept lost $lost"
}
perf_round() {
	$run perf record -q -e page-faults -c 1 -o "$tmp/p.data" -- "$prog" threads $T $P \
		>/dev/null 2>"$tmp/p.err" || true
	kept=$(perf report -f -i "$tmp/p.data" --stdio -F overhead,sample,sym 2>/dev/null |
		awk '/rec_touch/ { print $2; exit }')
	lost=$(perf report -f -i "$tmp/p.data" --stats 2>/dev/null |
		awk '/LOST_SAMPLES|LOST / { n += $NF } END { print n + 0 }')
	echo "$1 perf kept ${kept:-0} lost $lost"
}
for load in quiet loaded; do
	if [ $load = loaded ]; then
		for i in 1 2; do
			timeout 600 sh -c 'while :; do :; done' >/dev/null 2>&1 &
			hogs="$hogs $!"
		done
	fi
	for i in $(seq "$rounds"); do
		hwprof_round $load
		perf_round $load
	done
done > "$tmp/rounds"
awk -v want=$((T * P)) '
	{ print; k[$1" "$2] += $4; l[$1" "$2] += $6; n[$1" "$2]++ }
	END {
		for (x in k)
			printf "%s: kept %.1f%% of %d faults on average, %d lost in %d rounds\n",
				x, 100 * k[x] / n[x] / want, want, l[x], n[x]
	}' "$tmp/rounds"
