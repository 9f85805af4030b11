#!/bin/sh
# SPDX-License-Identifier: MIT
# Per-sample overhead of hwprof on a CPU-bound loop, side by side in one
# run with the kernel floor (one bare sampling fd, ring read at the end),
# perf record -c and PAPI_profil (when libpapi-dev was there at build time),
# at task-clock periods 1 ms, 100 us and 10 us. Runs are interleaved over
# ROUNDS rounds; each figure is a median. Overhead per sample = (median
# wall time with the profiler - median wall time without) / median samples.
# The workload is sized per period so that each run has thousands of
# samples (about 2 s of work at 1 ms, 0.5 s at 100 us, 0.05 s at 10 us:
# at 10 us a sample costs about as much as the period on this VM).
# usage: bench/run-overhead.sh [BUILDDIR] [ROUNDS]
set -eu
b=${1:-build}
rounds=${2:-5}
iters_for() {
	case $1 in
	1000000) echo 1200000000 ;;
	100000) echo 300000000 ;;
	*) echo 30000000 ;;
	esac
}
ov=$b/bench/overhead
[ -x "$ov" ] || { echo "run-overhead: $ov not built" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
tools="none floor hwprof"
"$ov" papi 1000000 1000 >/dev/null 2>&1 && tools="$tools papi"
# the same PAPI_profil client built against hwprof's <papi.h>
[ -x "$b/bench/overhead-hwprof-papi" ] && tools="$tools hwprof-papi"
command -v perf >/dev/null && perf record -q -o "$out/p" -e task-clock:u -c 1000000 true 2>/dev/null &&
	tools="$tools perf"

for p in 1000000 100000 10000; do
	iters=$(iters_for "$p")
	for r in $(seq "$rounds"); do
		for t in $tools; do
			if [ "$t" = perf ]; then
				line=$(perf record -q -o "$out/p.data" -e task-clock:u -c "$p" -- \
					"$ov" none "$p" "$iters" 2>/dev/null)
				n=$(perf report -i "$out/p.data" --stats 2>/dev/null |
					awk '/SAMPLE events:/ { print $3; exit }')
				lost=$(perf report -i "$out/p.data" --stats 2>/dev/null |
					awk '/LOST_SAMPLES events:/ { print $3; exit }')
				echo "perf $(echo "$line" | awk '{ print $2 }') ${n:-0} ${lost:-0}"
			elif [ "$t" = hwprof-papi ]; then
				"$b/bench/overhead-hwprof-papi" papi "$p" "$iters" | sed 's/^papi /hwprof-papi /'
			else
				"$ov" "$t" "$p" "$iters"
			fi
		done
	done > "$out/$p"
done

python3 - "$out" <<'PY'
import statistics, sys
out = sys.argv[1]
periods = (1000000, 100000, 10000)
name = lambda p: "%g ms" % (p / 1e6) if p >= 1e6 else "%g us" % (p / 1e3)
us = {}
print("%-8s %-7s %10s %9s %6s %13s" % ("period", "tool", "wall (s)", "samples", "lost", "us/sample"))
for p in periods:
    rows = [l.split() for l in open("%s/%d" % (out, p)) if l.strip()]
    by = {}
    for r in rows:
        by.setdefault(r[0], []).append((float(r[1]), int(r[2]), int(r[3])))
    base = statistics.median(w for w, _, _ in by["none"])
    for t in ("floor", "hwprof", "papi", "hwprof-papi", "perf"):
        if t not in by:
            continue
        w = statistics.median(x[0] for x in by[t])
        n = statistics.median(x[1] for x in by[t])
        lost = max(x[2] for x in by[t])
        us[p, t] = (w - base) / n * 1e6 if n else float("nan")
        print("%-8s %-7s %10.3f %9d %6d %13.2f" % (name(p), t, w, n, lost, us[p, t]))
    print("%-8s %-7s %10.3f" % (name(p), "none", base))
print()
print("hwprof's per-sample overhead as a ratio of the others' (lower is better):")
for p in periods:
    line = "  %-7s" % name(p)
    for t in ("floor", "papi", "perf"):
        if (p, t) in us and us[p, t] > 0:
            line += "  hwprof/%s %.2f" % (t, us[p, "hwprof"] / us[p, t])
    if (p, "hwprof-papi") in us and (p, "papi") in us and us[p, "papi"] > 0:
        line += "  PAPI_profil: hwprof/PAPI %.2f" % (us[p, "hwprof-papi"] / us[p, "papi"])
        if us[p, "floor"] > 0:
            line += ", hwprof/floor %.2f" % (us[p, "hwprof-papi"] / us[p, "floor"])
    print(line)
PY
"$b/bench/startstop"
