#!/bin/sh
# SPDX-License-Identifier: MIT
# hwprof report's speed on N distinct rows no symbol covers (it once was
# quadratic): a data file from tests/report/data-gen.c, then report 5 times
# (wall, user, sys: the median run), and the instructions from callgrind.
# usage: bench/run-report.sh BUILD [N]   (BUILD: a meson build directory)
set -eu
b=$1 n=${2:-1000000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$b/tests/rp-data-gen" --big "$n" "$tmp/d"
echo "data file: $n sample lines, $(wc -c < "$tmp/d") bytes; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in 1 2 3 4 5; do
	/usr/bin/time -f "%e %U %S %M" "$b/tools/hwprof" report "$tmp/d" \
		> "$tmp/out" 2> "$tmp/t"
	tail -1 "$tmp/t"
done | sort -n | sed -n 3p | awk '{ printf "report, median of 5: %.2f s wall, %.2f s user, %.2f s sys, %d MiB\n", $1, $2, $3, $4 / 1024 }'
echo "rows printed: $(grep -c '%' "$tmp/out")"
if command -v valgrind >/dev/null; then
	valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$b/tools/hwprof" report \
		"$tmp/d" > /dev/null 2> "$tmp/vg"
	awk '/Collected/ { printf "instructions (callgrind): %.0f million, %.0f per row\n", $4 / 1e6, $4 / '"$n"' }' "$tmp/vg"
fi
