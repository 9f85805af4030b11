#!/bin/sh
# SPDX-License-Identifier: MIT
# What the name cache saves (hwprof(1), "Name cache"; bench/README.md):
# CPython built with debug info (Debian's python3.11-dbg) under hwprof
# record, task-clock at 10 kHz flat and -g, and `python3.11-dbg -c pass`,
# with the caches off, with the name cache empty (the debug cache's
# uncompressed copies already there: what a first recording pays once
# they are), after one recording of the same program ("one"), and warm
# (after three recordings before the rounds and each round's). Rounds
# interleave the four; each figure is the CPU time (user + system) of
# the whole process tree, median over the rounds, and the kept lines of
# the files are counted. The -v line of one more warm recording follows;
# then the naming alone (below).
# usage: bench/namecache.sh BUILD [ROUNDS]
set -eu
build=$(cd "$1" && pwd)
rounds=${2:-5}
hw=$build/tools/hwprof
for t in python3.11-dbg /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "namecache: $t is not installed (.ci/deps)"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/work.py" <<'EOF'
import json, re
def fib(n): return n if n < 2 else fib(n - 1) + fib(n - 2)
s = 0
for i in range(3000):
    d = {"a": [i, str(i), {"b": i * 2.5}], "c": "x" * i}
    s += len(json.dumps(d)) + len(re.findall(r"\d", str(d)))
print(fib(24), s)
EOF

cpu() {	# command...: user + system seconds of its whole tree
	/usr/bin/time -f '%U %S' -o "$tmp/t" "$@" >/dev/null 2>&1 </dev/null || true
	awk '{ printf "%.3f\n", $1 + $2 }' "$tmp/t"
}
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
lines() { grep -c '^line ' "$1" || true; }

printf '%-12s %7s %7s %7s %7s %7s %9s  %s\n' run alone off cold one warm cold-warm \
	"lines off/cold/one/warm"
for w in flat g pass; do
	case $w in
	flat) opt='-F 10000' cmd="python3.11-dbg $tmp/work.py" ;;
	g) opt='-F 10000 -g' cmd="python3.11-dbg $tmp/work.py" ;;
	pass) opt= cmd='python3.11-dbg -c pass' ;;
	esac
	: > "$tmp/a"; : > "$tmp/off"; : > "$tmp/cold"; : > "$tmp/one"; : > "$tmp/warm"
	rm -rf "$tmp/c" "$tmp/w"
	for r in 1 2 3; do
		# shellcheck disable=SC2086
		HWPROF_CACHE_DIR=$tmp/w "$hw" record -q -e task-clock $opt -o "$tmp/w.data" -- $cmd \
			>/dev/null 2>&1 </dev/null || true
	done
	for r in $(seq "$rounds"); do
		# shellcheck disable=SC2086
		cpu $cmd >> "$tmp/a"
		# shellcheck disable=SC2086
		HWPROF_CACHE_DIR= cpu "$hw" record -q -e task-clock $opt -o "$tmp/off.data" -- $cmd >> "$tmp/off"
		rm -f "$tmp"/c/*.names
		# shellcheck disable=SC2086
		HWPROF_CACHE_DIR=$tmp/c cpu "$hw" record -q -e task-clock $opt -o "$tmp/cold.data" -- $cmd >> "$tmp/cold"
		# shellcheck disable=SC2086
		HWPROF_CACHE_DIR=$tmp/c cpu "$hw" record -q -e task-clock $opt -o "$tmp/one.data" -- $cmd >> "$tmp/one"
		# shellcheck disable=SC2086
		HWPROF_CACHE_DIR=$tmp/w cpu "$hw" record -q -e task-clock $opt -o "$tmp/warm.data" -- $cmd >> "$tmp/warm"
	done
	a=$(med < "$tmp/a") off=$(med < "$tmp/off") cold=$(med < "$tmp/cold") one=$(med < "$tmp/one")
	warm=$(med < "$tmp/warm")
	# shellcheck disable=SC2086
	HWPROF_CACHE_DIR=$tmp/w "$hw" record -v -q -e task-clock $opt -o "$tmp/v.data" -- $cmd \
		2> "$tmp/v" >/dev/null </dev/null || true
	printf '%-12s %7.3f %7.3f %7.3f %7.3f %7.3f %9.3f  %s/%s/%s/%s\n' "python $w" "$a" "$off" \
		"$cold" "$one" "$warm" "$(awk -v a="$cold" -v b="$warm" 'BEGIN { print a - b }')" \
		"$(lines "$tmp/off.data")" "$(lines "$tmp/cold.data")" "$(lines "$tmp/one.data")" \
		"$(lines "$tmp/warm.data")"
	sed 's/^/    /' "$tmp/v"
done

# The naming alone (bench/names-cost.c: sym_keep_names() on recorded
# files, CPU of that call only): four recordings of the flat 10 kHz run;
# off, cold (no .names, the debug copies there), warm (the same file
# named again) and unseen (the cache filled from the first three, the
# fourth named: addresses not named before, found in the units kept).
nc=$build/bench/names-cost
for k in 1 2 3 4; do
	HWPROF_CACHE_DIR= "$hw" record -q -e task-clock -F 10000 -o "$tmp/n$k.data" -- \
		python3.11-dbg "$tmp/work.py" >/dev/null 2>&1 </dev/null || true
done
rm -rf "$tmp/n"
HWPROF_CACHE_DIR=$tmp/n "$nc" "$tmp/n1.data" >/dev/null	# the debug copies
: > "$tmp/off"; : > "$tmp/cold"; : > "$tmp/warm"; : > "$tmp/unseen"
for r in $(seq "$rounds"); do
	HWPROF_CACHE_DIR= "$nc" "$tmp/n1.data" | cut -d' ' -f1 >> "$tmp/off"
	rm -f "$tmp"/n/*.names
	HWPROF_CACHE_DIR=$tmp/n "$nc" "$tmp/n1.data" | cut -d' ' -f1 >> "$tmp/cold"
	HWPROF_CACHE_DIR=$tmp/n "$nc" "$tmp/n1.data" | cut -d' ' -f1 >> "$tmp/warm"
	HWPROF_CACHE_DIR=$tmp/n "$nc" "$tmp/n2.data" "$tmp/n3.data" >/dev/null
	HWPROF_CACHE_DIR=$tmp/n "$nc" "$tmp/n4.data" | cut -d' ' -f1 >> "$tmp/unseen"
done
printf 'naming alone (s of CPU): off %.4f, cold %.4f, warm %.4f, unseen %.4f\n' \
	"$(med < "$tmp/off")" "$(med < "$tmp/cold")" "$(med < "$tmp/warm")" "$(med < "$tmp/unseen")"
rm -f "$tmp"/n/*.names
HWPROF_CACHE_DIR=$tmp/n "$nc" "$tmp/n1.data" "$tmp/n2.data" "$tmp/n3.data" >/dev/null
HWPROF_CACHE_DIR=$tmp/n "$nc" -v "$tmp/n4.data" 2>&1 >/dev/null | sed 's/^/    unseen: /'
du -sh "$tmp"/n/*.names | sed 's/^/    /'
