#!/bin/sh
# SPDX-License-Identifier: MIT
# --call-graph dwarf in a burst, hwprof record against perf record in one
# run (bench/README.md, "--call-graph dwarf in a burst"): bench/cgwork
# takes N page faults in a few tens of milliseconds, each sampled with
# its registers and 8 KiB of its stack (-e page-faults -c 1), both
# recorders with rings of M pages, rounds interleaved. Prints per round
# the samples each kept and reported lost (hwprof: its data file's event
# line; perf: perf report --stats) and the CPU time (user + system, s) of
# the recorder with its command, then the mean of each.
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

# the children's CPU so far (user + system, s): the shell's times builtin
# (in this shell: a command substitution's shell has no children)
cpu() {
	times > "$tmp/times"
	awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, "m");
		s += a[1] * 60 + a[2] } printf "%.3f\n", s }' "$tmp/times"
}
hw() {	# NAME BUILD
	cpu > "$tmp/c0"
	"$2/tools/hwprof" record -q -m "$m" --call-graph dwarf -e page-faults -c 1 \
		-o "$tmp/h.data" -- "$w" faults "$n" 2>/dev/null || true
	cpu > "$tmp/c1"
	awk -v t="$1" -v c="$(cat "$tmp/c1" "$tmp/c0" | paste -sd- | bc)" \
		'$1 == "event" { print t, $4, $5, c; exit }' "$tmp/h.data"
}
pf() {
	cpu > "$tmp/c0"
	perf record -q -m "$m" --call-graph dwarf -e page-faults -c 1 -o "$tmp/p.data" \
		-- "$w" faults "$n" >/dev/null 2>&1 || true
	cpu > "$tmp/c1"
	perf report -f -i "$tmp/p.data" --stats 2>/dev/null |
		awk -v c="$(cat "$tmp/c1" "$tmp/c0" | paste -sd- | bc)" \
		    '$1 == "SAMPLE" && !k { k = $3 } $1 == "LOST_SAMPLES" && NF == 3 { l = $3 }
		     END { print "perf", k + 0, l + 0, c }'
}
echo "tool kept lost cpu_s ($n faults, rings of $m pages, $rounds rounds)"
for i in $(seq "$rounds"); do
	hw hwprof "$build"
	pf
	[ -z "$other" ] || hw other "$other"
done | tee "$tmp/rounds"
awk -v want="$n" '{ k[$1] += $2; u[$1] += $4; c[$1]++; r[$1] += $3 > 0 }
	END { for (t in k) printf "%-7s kept %.0f on average (%.1f%% of %d), %d of %d rounds lost some, %.3f s of CPU\n",
				   t, k[t] / c[t], 100 * k[t] / c[t] / want, want, r[t], c[t], u[t] / c[t] }' \
	"$tmp/rounds"
