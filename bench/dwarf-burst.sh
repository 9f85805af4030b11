#!/bin/sh
# SPDX-License-Identifier: MIT
# --call-graph dwarf in a burst, hwprof record against perf record in one
# run (bench/README.md, "--call-graph dwarf in a burst"): bench/cgwork
# takes N page faults in a few tens of milliseconds, each sampled with
# its registers and 8 KiB of its stack (-e page-faults -c 1), both
# recorders with rings of M pages, rounds interleaved. Prints per round
# the samples each kept and reported lost (hwprof: its data file's event
# line; perf: perf report --stats), then the mean kept of each.
# A second hwprof build (OTHER) may be given to compare with, in the same
# rounds.
# usage: bench/dwarf-burst.sh BUILD [ROUNDS [M [N [OTHER]]]]
set -eu
build=$(cd "$1" && pwd)
rounds=${2:-6} m=${3:-1024} n=${4:-20000}
other=${5:+$(cd "$5" && pwd)}
w=$build/bench/cgwork
command -v perf >/dev/null || { echo "perf is not installed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

hw() {	# NAME BUILD
	"$2/tools/hwprof" record -q -m "$m" --call-graph dwarf -e page-faults -c 1 \
		-o "$tmp/h.data" -- "$w" faults "$n" 2>/dev/null || true
	awk -v t="$1" '$1 == "event" { print t, $4, $5; exit }' "$tmp/h.data"
}
pf() {
	perf record -q -m "$m" --call-graph dwarf -e page-faults -c 1 -o "$tmp/p.data" \
		-- "$w" faults "$n" >/dev/null 2>&1 || true
	perf report -f -i "$tmp/p.data" --stats 2>/dev/null |
		awk '$1 == "SAMPLE" { k = $3 } $1 == "LOST_SAMPLES" && NF == 3 { l = $3 }
		     END { print "perf", k + 0, l + 0 }'
}
echo "tool kept lost ($n faults, rings of $m pages, $rounds rounds)"
for i in $(seq "$rounds"); do
	hw hwprof "$build"
	pf
	[ -z "$other" ] || hw other "$other"
done | tee "$tmp/rounds"
awk -v want="$n" '{ k[$1] += $2; c[$1]++ }
	END { for (t in k) printf "%-7s kept %.0f on average (%.1f%% of %d)\n", t, k[t] / c[t],
				   100 * k[t] / c[t] / want, want }' "$tmp/rounds"
