#!/bin/sh
# SPDX-License-Identifier: MIT
# The drain's cost per sample (bench/README.md, "The drain's cost"):
# hwprof record run under callgrind on bench/cgwork, N page faults
# sampled at each fault, flat and with -g; the instructions executed in
# rec_read_drain (reading the rings, ordering the records, resolving each
# sample and its path into the data file) divided by the samples kept.
# The workload runs natively (callgrind follows no exec), the recorder
# under callgrind with rings of M pages, large enough that it loses
# nothing while slowed down.
# usage: bench/drain-cost.sh BUILD [N [M]]
set -eu
build=$(cd "$1" && pwd)
n=${2:-100000} m=${3:-4096}
hw=$build/tools/hwprof w=$build/bench/cgwork
command -v valgrind >/dev/null || { echo "valgrind is not installed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%-6s %10s %6s %14s %12s\n' mode samples lost instructions per_sample
for mode in flat -g; do
	g=; [ $mode = -g ] && g=-g
	valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" \
		--toggle-collect=rec_read_drain -q \
		"$hw" record -q -m "$m" $g -e page-faults -c 1 -o "$tmp/h.data" -- "$w" faults "$n"
	ir=$(awk '/^summary:|^totals:/ { print $2; exit }' "$tmp/cg")
	kept=$(awk '$1 == "event" { print $4; exit }' "$tmp/h.data")
	lost=$(awk '$1 == "event" { print $5; exit }' "$tmp/h.data")
	printf '%-6s %10s %6s %14s %12.0f\n' $mode "$kept" "$lost" "$ir" "$(echo "$ir / $kept" | bc -l)"
done
