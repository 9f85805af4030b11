#!/bin/sh
# SPDX-License-Identifier: MIT
# Fold throughput of the histogram core, every region count and bucket
# width, both sample streams: instructions per sample from callgrind
# (counted inside hwprof_hist_fold only; deterministic) and millions of
# samples per second on this machine (noisy; a VM).
# usage: bench/run-fold.sh [BUILDDIR]
set -eu
b=${1:-build}
fold=$b/bench/fold
[ -x "$fold" ] || { echo "run-fold: $fold not built (meson compile -C $b)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "run-fold: valgrind is needed" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
n=200000

printf '%-8s %-6s %-8s %14s %14s\n' regions width stream 'instr/sample' 'Msamples/s'
for r in 1 16 1024 65536; do
	for w in 16 32 64; do
		for p in runs uniform; do
			valgrind --tool=callgrind --toggle-collect=hwprof_hist_fold \
				--callgrind-out-file="$out/cg" "$fold" $r $w $p $n \
				>/dev/null 2>"$out/err" || { cat "$out/err" >&2; exit 1; }
			ir=$(awk '/^(summary|totals):/ { print $2; exit }' "$out/cg")
			rate=$("$fold" $r $w $p 1000000 20 | sed 's/.*: \([0-9.]*\) Msamples.*/\1/')
			printf '%-8s %-6s %-8s %14s %14s\n' $r $w $p \
				"$(awk -v a="$ir" -v n=$n 'BEGIN { printf "%.1f", a / n }')" "$rate"
		done
	done
done
