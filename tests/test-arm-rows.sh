#!/bin/sh
# SPDX-License-Identifier: MIT
# The Arm rows of events/presets.h checked on any machine: every
# arm_n1:: event a preset names is an event of the Neoverse N1 PMU, as
# libpfm4 4.13 lists it (tests/arm-n1-events.txt). event-presets-arm
# encodes them where libpfm4 has its Arm tables (an Arm machine); an x86
# libpfm4 has none, so this is what x86 CI can hold them to.
# usage: test-arm-rows.sh PRESETS.H EVENTS.TXT
set -u
presets=$1 events=$2
used=$(grep -o 'arm_n1::[A-Za-z0-9_]*' "$presets" | sed 's/^arm_n1:://' | sort -u)
[ -n "$used" ] || { echo "FAIL: no arm_n1 row in $presets"; exit 1; }
fail=0 n=0
for e in $used; do
	n=$((n + 1))
	if awk -v e="$e" '!/^#/ && $1 == e { found = 1 } END { exit !found }' "$events"; then
		echo "ok: arm_n1::$e ($(awk -v e="$e" '$1 == e { print $2 }' "$events"))"
	else
		echo "FAIL: arm_n1::$e is no event of the Neoverse N1 PMU"
		fail=1
	fi
done
echo "$n arm_n1 events named by the presets"
# any other Arm PMU a row names has no table here: say so, do not pass it
other=$(grep -o '"arm_[a-z0-9]*::' "$presets" | grep -v '"arm_n1::' | sort -u)
[ -z "$other" ] || { echo "FAIL: rows of Arm PMUs this test has no events for: $other"; fail=1; }
exit $fail
