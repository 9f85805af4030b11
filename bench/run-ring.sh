#!/bin/sh
# SPDX-License-Identifier: MIT
# The engine's ring reader (bench/ring.c): instructions per sample from
# callgrind (counted inside hwp_ring_read_ips, or hwp_ring_read_chains
# with a depth, and what they call; the fill of the fake ring excluded;
# deterministic) and millions of samples per second on this machine
# (noisy; a VM), for sample_type IP and IP | CALLCHAIN at a few depths.
# usage: bench/run-ring.sh [BUILDDIR]
set -eu
b=${1:-build}
ring=$b/bench/ring
[ -x "$ring" ] || { echo "run-ring: $ring not built (meson compile -C $b)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "run-ring: valgrind is needed" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

printf '%-6s %10s %14s %14s\n' depth samples 'instr/sample' 'Msamples/s'
for d in 0 1 8 32; do
	f=hwp_ring_read_chains; [ $d = 0 ] && f=hwp_ring_read_ips
	valgrind --tool=callgrind --toggle-collect=$f \
		--callgrind-out-file="$out/cg" "$ring" $d 4 >"$out/o" 2>"$out/err" ||
		{ cat "$out/err" >&2; exit 1; }
	ir=$(awk '/^(summary|totals):/ { print $2; exit }' "$out/cg")
	n=$(sed 's/^depth [0-9]*: \([0-9]*\) samples.*/\1/' "$out/o")
	rate=$("$ring" $d 200 | sed 's/.*, \([0-9.]*\) Msamples.*/\1/')
	printf '%-6s %10s %14s %14s\n' $d "$n" \
		"$(awk -v a="$ir" -v n="$n" 'BEGIN { printf "%.1f", a / n }')" "$rate"
done
