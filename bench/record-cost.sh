#!/bin/sh
# SPDX-License-Identifier: MIT
# What recording costs on real programs, hwprof record against perf record
# in one run (bench/README.md, "Recording cost on real programs"):
# CPython built with debug info (Debian's python3.11-dbg), xz and sqlite3
# (Debian's, stripped), each under task-clock flat, -g and --call-graph
# dwarf at 1 and 10 kHz. Rounds interleave the program alone, under
# hwprof record and under perf record; each figure is the CPU time (user +
# system) of the whole process tree (the tool and the program: /usr/bin/time
# counts every waited-for descendant), median over the rounds. "added" is
# that minus the program alone; the ratio is hwprof's added CPU over perf's
# (under 1: hwprof costs less).
# usage: bench/record-cost.sh BUILD [ROUNDS]
set -eu
build=$(cd "$1" && pwd)
rounds=${2:-3}
hw=$build/tools/hwprof
for t in perf python3.11-dbg xz sqlite3 /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "record-cost: $t is not installed (.ci/deps)"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the workloads: about 0.3-1 s of CPU each
cat > "$tmp/work.py" <<'EOF'
import json, re
def fib(n): return n if n < 2 else fib(n - 1) + fib(n - 2)
s = 0
for i in range(3000):
    d = {"a": [i, str(i), {"b": i * 2.5}], "c": "x" * i}
    s += len(json.dumps(d)) + len(re.findall(r"\d", str(d)))
print(fib(24), s)
EOF
python3 -c 'import random; random.seed(1); print("\n".join(" ".join(random.choice(["alpha","beta","gamma","delta"]) + str(random.randint(0, 999)) for _ in range(12)) for _ in range(8000)))' > "$tmp/text"
cat > "$tmp/q.sql" <<'EOF'
create table t(a integer, b text);
with recursive c(x) as (select 1 union all select x + 1 from c where x < 200000)
insert into t select x, hex(x * 7919) from c;
create index ti on t(b);
select count(*), sum(length(b)) from t where b like '%A%';
select a % 97, count(*) from t group by 1 order by 2 desc limit 3;
EOF

cpu() {	# command...: user + system seconds of its whole tree
	/usr/bin/time -f '%U %S' -o "$tmp/t" "$@" >/dev/null 2>&1 </dev/null || true
	awk '{ printf "%.3f\n", $1 + $2 }' "$tmp/t"
}
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
run_workload() {	# name: the workload's command line
	case $1 in
	python) echo "python3.11-dbg $tmp/work.py" ;;
	xz) echo "xz -6 -T1 -c $tmp/text" ;;
	sqlite3) echo "sqlite3 :memory: -init $tmp/q.sql .quit" ;;
	esac
}

printf '%-8s %-6s %6s %9s %9s %9s %9s %9s %7s\n' workload mode Hz alone hwprof perf \
	hw_added pf_added ratio
for w in python xz sqlite3; do
	cmd=$(run_workload "$w")
	for mode in flat g dwarf; do
		case $mode in
		flat) opt= ;;
		g) opt=-g ;;
		dwarf) opt='--call-graph dwarf' ;;
		esac
		for hz in 1000 10000; do
			: > "$tmp/a"; : > "$tmp/h"; : > "$tmp/p"
			for r in $(seq "$rounds"); do
				# shellcheck disable=SC2086
				cpu $cmd >> "$tmp/a"
				# shellcheck disable=SC2086
				cpu "$hw" record -q -e task-clock -F "$hz" $opt -o "$tmp/o.data" -- $cmd >> "$tmp/h"
				# shellcheck disable=SC2086
				cpu perf record -q -e task-clock -F "$hz" $opt -o "$tmp/o.perf" -- $cmd >> "$tmp/p"
			done
			a=$(med < "$tmp/a") h=$(med < "$tmp/h") p=$(med < "$tmp/p")
			awk -v w="$w" -v m="$mode" -v hz="$hz" -v a="$a" -v h="$h" -v p="$p" 'BEGIN {
				ha = h - a; pa = p - a
				r = pa > 0.001 ? sprintf("%7.2f", ha / pa) : "      -"
				printf "%-8s %-6s %6d %9.3f %9.3f %9.3f %9.3f %9.3f %s\n", w, m, hz, a, h, p, ha, pa, r
			}'
		done
	done
done
# python -c pass: the start of a recording, names included
: > "$tmp/a"; : > "$tmp/h"; : > "$tmp/p"
for r in $(seq "$rounds"); do
	cpu python3.11-dbg -c pass >> "$tmp/a"
	cpu "$hw" record -q -e task-clock -o "$tmp/o.data" -- python3.11-dbg -c pass >> "$tmp/h"
	cpu perf record -q -e task-clock -o "$tmp/o.perf" -- python3.11-dbg -c pass >> "$tmp/p"
done
a=$(med < "$tmp/a") h=$(med < "$tmp/h") p=$(med < "$tmp/p")
printf 'python3.11-dbg -c pass: alone %.3f s, hwprof record %.3f s, perf record %.3f s (CPU)\n' \
	"$a" "$h" "$p"
