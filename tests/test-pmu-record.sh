#!/bin/sh
# SPDX-License-Identifier: MIT
# hwprof record -e cycles as real CPUs answer it, on a machine with no PMU:
# the seam under perf_event_open (HWPROF_TEST_PMU, lib/perf/sys.c) answers each
# precise_ip level as Intel, AMD with IBS and a PMU-less machine would.
# usage: test-pmu-record.sh HWPROF
hw=$1
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$(dirname "$0")/tlib.sh"

# a command that runs for a while: the stand-in samples every 1 ms
busy='i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'

# SEQUENCE LEVEL: opens, samples, and says the level it opened at
at() {
	HWPROF_TEST_PMU=$1 "$hw" record -e cycles -c 1000000 -o "$tmp/d" -- sh -c "$busy" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	eq "$1: exit status" "$rc" 0
	check "$1: says precise_ip $2" grep -q "^hwprof: recording cycles .*(precise_ip $2)\$" "$tmp/err"
	check "$1: samples written" grep -Eq "^hwprof: wrote .* \\([1-9][0-9]* samples" "$tmp/err"
	[ $fail = 0 ] || cat "$tmp/err"
}

at 'EINVAL,ok,ok,ok' 2				# Intel: level 3 not for this event
at 'EOPNOTSUPP,ENOENT,ENOENT,ok' 0		# AMD with IBS
at 'ok,ok,ok,ok' 3				# a PMU that takes any level
# a hybrid CPU (a fake sysfs): one line says where cycles samples
mkdir -p "$tmp/sys/bus/event_source/devices/cpu_core" "$tmp/sys/bus/event_source/devices/cpu_atom"
echo 4 > "$tmp/sys/bus/event_source/devices/cpu_core/type"
echo 10 > "$tmp/sys/bus/event_source/devices/cpu_atom/type"
HWPROF_TEST_SYSFS=$tmp HWPROF_TEST_PMU='ok,ok,ok,ok' "$hw" record -q -e cycles -e page-faults \
	-o "$tmp/d" -- true >"$tmp/out" 2>"$tmp/err"
eq "hybrid: exit status" $? 0
eq "hybrid: the line" "$(grep -c hybrid "$tmp/err")" 1
check "hybrid: names cycles on cpu_core only" grep -q "^hwprof: hybrid CPU: each event samples on one kind of core (cycles on cpu_core): a thread's time on the other kind is not sampled\$" "$tmp/err"

# a kernel that refuses the open (EACCES at every level): one line that
# says why in the library's words (hwp_attr_why(), lib/perf/attr.c), the
# reason hwprof list gives for cycles, and no advice to try task-clock
export HWPROF_TEST_PMU='EACCES,EACCES,EACCES,EACCES'
why=$("$hw" list | sed -n 's/^  cycles  *no  .* -- //p')
check "EACCES: hwprof list says why cycles is not available" [ -n "$why" ]
err "cycles: " "$hw" record -e cycles -o "$tmp/denied" -- true
eq "EACCES: record's line is the library's" "$(cat "$tmp/err")" "hwprof: cycles: $why"
check "EACCES: no file" test ! -e "$tmp/denied"

# no PMU: one line, exit status 1
export HWPROF_TEST_PMU='ENOENT,ENOENT,ENOENT,ENOENT'
err "cycles: event not supported by this machine's PMU" "$hw" record -e cycles -o "$tmp/d" -- true
unset HWPROF_TEST_PMU
exit $fail
