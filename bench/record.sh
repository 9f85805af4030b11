#!/bin/sh
# SPDX-License-Identifier: MIT
# hwprof record + hwprof report against perf record + perf report, on the
# bundled demo and on a CPython workload, in one run, rounds interleaved:
# the wall time of the recorded run (overhead over the plain run), the time
# from the command's end to the recorder's exit (draining + writing), the
# time to report, and the file size. Same event and period for both:
# task-clock, user space only, every 1 ms.
# usage: bench/record.sh BUILD [ROUNDS]
# HWPROF_REPORT=PATH reports with another hwprof binary (one that reads
# version 2 files, when this tree's report does not yet).
set -eu
build=$1
rounds=${2:-5}
hw=$build/tools/hwprof
hwr=${HWPROF_REPORT:-$hw}
demo=$build/examples/demo
command -v perf >/dev/null || { echo "perf is not installed"; exit 1; }
py=$(python3 -c 'import sys; print(sys.executable)')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/work.py" <<'EOF'
def inner(n):
    x = 0
    for i in range(n):
        x += i * i
    return x
print(sum(inner(200000) for _ in range(30)))
EOF

ns() { date +%s%N; }
# the command, then the time it ended, written by a tiny date process
wrap() { sh -c '"$@"; date +%s%N > "$0"' "$tmp/end" "$@"; }

one() {	# workload name, then the command
	name=$1
	shift
	t0=$(ns); wrap "$@" >/dev/null; t1=$(ns)
	echo "$name plain $(((t1 - t0) / 1000))" >> "$tmp/r"

	t0=$(ns)
	"$hw" record -q -e task-clock -c 1000000 -o "$tmp/h.data" -- \
		sh -c '"$@"; date +%s%N > "$0"' "$tmp/end" "$@" >/dev/null
	t1=$(ns)
	e=$(cat "$tmp/end")
	echo "$name hw-run $(((t1 - t0) / 1000))" >> "$tmp/r"
	echo "$name hw-write $(((t1 - e) / 1000))" >> "$tmp/r"
	t0=$(ns); "$hwr" report "$tmp/h.data" >/dev/null; t1=$(ns)
	echo "$name hw-report $(((t1 - t0) / 1000))" >> "$tmp/r"
	echo "$name hw-size $(stat -c %s "$tmp/h.data")" >> "$tmp/r"

	t0=$(ns)
	perf record -q -e task-clock:u -c 1000000 -o "$tmp/p.data" -- \
		sh -c '"$@"; date +%s%N > "$0"' "$tmp/end" "$@" >/dev/null 2>&1
	t1=$(ns)
	e=$(cat "$tmp/end")
	echo "$name perf-run $(((t1 - t0) / 1000))" >> "$tmp/r"
	echo "$name perf-write $(((t1 - e) / 1000))" >> "$tmp/r"
	t0=$(ns); perf report -i "$tmp/p.data" --stdio >/dev/null 2>&1; t1=$(ns)
	echo "$name perf-report $(((t1 - t0) / 1000))" >> "$tmp/r"
	echo "$name perf-size $(stat -c %s "$tmp/p.data")" >> "$tmp/r"
}

: > "$tmp/r"
for i in $(seq "$rounds"); do
	one demo "$demo"
	one python "$py" "$tmp/work.py"
done

med() {	# workload, key: the median
	awk -v w="$1" -v k="$2" '$1 == w && $2 == k { print $3 }' "$tmp/r" | sort -n |
		awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "medians of $rounds rounds; times in ms, sizes in KiB"
printf '%-7s %8s %8s %8s %9s %9s %9s %9s %9s %9s\n' workload plain \
	hw-run perf-run hw-write perf-wr hw-report perf-rep hw-KiB perf-KiB
for w in demo python; do
	printf '%-7s %8.1f %8.1f %8.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n' "$w" \
		"$(echo "$(med $w plain) / 1000" | bc -l)" \
		"$(echo "$(med $w hw-run) / 1000" | bc -l)" \
		"$(echo "$(med $w perf-run) / 1000" | bc -l)" \
		"$(echo "$(med $w hw-write) / 1000" | bc -l)" \
		"$(echo "$(med $w perf-write) / 1000" | bc -l)" \
		"$(echo "$(med $w hw-report) / 1000" | bc -l)" \
		"$(echo "$(med $w perf-report) / 1000" | bc -l)" \
		"$(echo "$(med $w hw-size) / 1024" | bc -l)" \
		"$(echo "$(med $w perf-size) / 1024" | bc -l)"
done
echo
echo "ratios hwprof / perf (below 1: hwprof better)"
for w in demo python; do
	p=$(med $w plain)
	printf '%-7s overhead %s  write %s  report %s  size %s\n' "$w" \
		"$(echo "($(med $w hw-run) - $p) / ($(med $w perf-run) - $p)" | bc -l | cut -c1-5)" \
		"$(echo "$(med $w hw-write) / $(med $w perf-write)" | bc -l | cut -c1-5)" \
		"$(echo "$(med $w hw-report) / $(med $w perf-report)" | bc -l | cut -c1-5)" \
		"$(echo "$(med $w hw-size) / $(med $w perf-size)" | bc -l | cut -c1-5)"
done
