#!/bin/sh
# SPDX-License-Identifier: MIT
# papi-side.c built against real PAPI and against hwprof: every call must
# return the same code, except where hwprof fixes PAPI (PAPI_profil(3hwprof),
# NOTES; listed here, each printed).
# usage: test-papi-side.sh REAL HWPROF
set -u
real=$1 ours=$2
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
"$real" > "$tmp/real" 2>&1 || { echo "SKIP: real PAPI failed here:"; cat "$tmp/real"; exit 77; }
# Real PAPI names perf::TASK-CLOCK only through its perf_event component,
# which it disables where libpfm4 finds no PMU of this CPU ("no default
# PMU"): then every code after it is an error and there is nothing to
# compare with.
if ! grep -Eq '^name_to_code\(TASK-CLOCK\) +0$' "$tmp/real"; then
	got=$(grep '^name_to_code(TASK-CLOCK)' "$tmp/real" | tr -s ' ')
	echo "SKIP: real PAPI cannot use perf::TASK-CLOCK on this machine ($got;" \
		"its perf_event component is off where libpfm4 does not know the CPU)"
	exit 77
fi
"$ours" > "$tmp/ours" 2>&1 || { echo "FAIL: hwprof's run failed"; cat "$tmp/ours"; exit 1; }
# PAPI_PROFIL_RANDOM works (PAPI on perf_event: PAPI_ENOSUPP)
allowed='^profil\(RANDOM\) '
paste -d'|' "$tmp/real" "$tmp/ours" | while IFS='|' read -r a b; do
	if [ "$a" = "$b" ]; then
		echo "same:     $a"
	elif echo "$a" | grep -Eq "$allowed"; then
		echo "allowed:  PAPI '$a', hwprof '$b' (PAPI_profil(3hwprof): RANDOM is supported)"
	else
		echo "DIFFERS:  PAPI '$a', hwprof '$b'"
	fi
done > "$tmp/cmp"
cat "$tmp/cmp"
n=$(wc -l < "$tmp/real")
[ "$n" -gt 20 ] || { echo "FAIL: only $n lines from real PAPI"; exit 1; }
if grep -q '^DIFFERS' "$tmp/cmp"; then
	echo "FAIL: return codes differ from PAPI 7"
	exit 1
fi
echo "papi-side: $n calls compared, same codes as PAPI 7"
