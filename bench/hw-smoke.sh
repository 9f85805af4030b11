#!/bin/sh
# SPDX-License-Identifier: MIT
# Hardware smoke test, for a machine with a PMU: what hwprof lists, PAPI_profil
# on PAPI_TOT_CYC, PAPI_L2_TCM and PAPI_TLB_DM (bench/hw-smoke.c), and
# hwprof record -e cycles against perf stat and perf record on the same
# binary. Prints what it found; exits 77 where no hardware PMU is present,
# 1 when a step that should work on a PMU failed.
# usage: bench/hw-smoke.sh BUILD
set -u
build=${1:?usage: bench/hw-smoke.sh BUILD}
hw=$build/tools/hwprof
smoke=$build/bench/hw-smoke
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

cyc=$("$hw" list 2>&1 | grep -E '^  cycles ')
if ! printf '%s\n' "$cyc" | grep -qE '^  cycles +yes'; then
	echo "hw-smoke: no hardware PMU here (hwprof list: ${cyc#  })"
	echo "hw-smoke: devices: $(ls /sys/bus/event_source/devices 2>/dev/null | tr '\n' ' ')"
	exit 77
fi
echo "== hwprof list (hardware lines)"
"$hw" list 2>&1 | grep -E '^  (cycles|instructions|PAPI_TOT_CYC|PAPI_TOT_INS|PAPI_L2_TCM|PAPI_TLB_DM|PAPI_L1_DCM|PAPI_L3_TCM) '

for p in PAPI_TOT_CYC PAPI_L2_TCM PAPI_TLB_DM; do
	echo "== PAPI_profil $p"
	"$smoke" profil $p || { echo "hw-smoke: $p failed"; fail=1; }
done

echo "== hwprof record -e cycles vs perf (period 100000, user space)"
"$hw" record -e cycles -c 100000 -o "$tmp/h.data" -- "$smoke" work 2>"$tmp/h.err"
hs=$(sed -n 's/.*wrote .* (\([0-9]*\) samples.*/\1/p' "$tmp/h.err")
echo "hwprof record: ${hs:-?} samples ($(grep -m1 recording "$tmp/h.err"))"
[ -n "$hs" ] && [ "$hs" -gt 0 ] || { echo "hw-smoke: hwprof record took no samples"; fail=1; }
"$hw" report "$tmp/h.data" 2>&1 | head -8
if command -v perf >/dev/null; then
	perf stat -x, -e cycles:u -o "$tmp/s.csv" -- "$smoke" work
	pc=$(grep -m1 'cycles' "$tmp/s.csv" | cut -d, -f1)
	echo "perf stat: $pc cycles:u (hwprof's samples x period: $(( ${hs:-0} * 100000 )))"
	perf record -q -e cycles:u -c 100000 -o "$tmp/p.data" -- "$smoke" work 2>/dev/null
	ps=$(perf report -i "$tmp/p.data" --stdio -F overhead 2>/dev/null |
	     sed -n 's/^# Samples: \([0-9kKM]*\).*/\1/p' | head -1)
	echo "perf record: $ps samples"
	perf report -i "$tmp/p.data" --stdio 2>/dev/null | grep -v '^#' | grep . | head -5
else
	echo "perf is not installed: no comparison"
fi
exit $fail
