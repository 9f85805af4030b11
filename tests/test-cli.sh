#!/bin/sh
# SPDX-License-Identifier: MIT
# The hwprof command end to end on examples/demo: record + report, exact
# counts with page faults (and with a breakpoint where they fire), threads,
# fork, dlopen, JSON and SVG output, and every error with one readable line
# and a non-zero exit (where this machine can make the error: pmu-missing,
# paranoid).
# usage: test-cli.sh CASE HWPROF DEMO DEMOLIB STATIC BPPROBE
set -u
case_=$1 hw=$2 demo=$3 lib=$4 static=$5 bpprobe=$6
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
check() {	# description, then a command that must succeed
	d=$1
	shift
	if "$@"; then :; else echo "FAIL: $d"; fail=1; fi
}
first() {	# the first function of a text report
	"$hw" report "$@" | awk '!/^#/ && $1 ~ /%$/ { print $3; exit }'
}
# one line, starting "hwprof: ", and a non-zero exit
err() {	# expected words, then the command
	want=$1
	shift
	if "$@" >"$tmp/out" 2>"$tmp/err"; then
		echo "FAIL: '$*' succeeded"; fail=1; return
	fi
	n=$(wc -l < "$tmp/err")
	if [ "$n" -ne 1 ] || ! grep -q "^hwprof: .*$want" "$tmp/err"; then
		echo "FAIL: '$*' said:"; cat "$tmp/err"; fail=1
	else
		echo "ok: $(cat "$tmp/err")"
	fi
}

task_clock_ok() {	# a raw probe, through the command's own list
	"$hw" list | grep -q '^  task-clock *yes'
}

case $case_ in
demo)
	task_clock_ok || { echo "SKIP: task-clock cannot be sampled here"; exit 77; }
	check "record" "$hw" record -e task-clock -c 200000 -o "$tmp/d" -- "$demo"
	"$hw" report "$tmp/d"
	check "hot_loop first" [ "$(first "$tmp/d")" = hot_loop ]
	check "warm_loop listed" grep -q warm_loop "$("$hw" report "$tmp/d" > "$tmp/r"; echo "$tmp/r")"
	"$hw" report "$tmp/d" --sort symbol | awk '!/^#/ && $1 ~ /%$/ { print $3 }' > "$tmp/names"
	check "--sort symbol: rows in name order" sh -c "LC_ALL=C sort -c '$tmp/names'"
	check "--sort symbol: hot_loop listed" grep -qx hot_loop "$tmp/names"
	check "--objects" sh -c "'$hw' report '$tmp/d' --objects | grep -q ' demo */.*/demo$'"
	# defaults: the event it chose is said, and the run still works
	check "default record" "$hw" record -o "$tmp/e" -- "$demo"
	check "default hot" [ "$(first "$tmp/e")" = hot_loop ]
	;;
exact)
	"$bpprobe" page-faults || exit $?	# the raw probe: 77 with its reason
	check "record page faults" "$hw" record -e page-faults -c 1 -o "$tmp/p" -- \
		"$demo" faults 500 threads 3
	"$hw" report "$tmp/p"
	# fault_pages writes to 500 fresh pages in main and in each of 3
	# threads: one fault each, 2000 samples
	n=$("$hw" report "$tmp/p" --format csv | awk -F, '$3 == "\"fault_pages\"" { print $2 }')
	check "exactly 2000 samples in fault_pages (got '$n')" [ "$n" = 2000 ]
	check "4 threads" sh -c "'$hw' report '$tmp/p' | grep -q 'threads: 4'"
	# record's events are per CPU (hwprof(1), NOTES), each with its own
	# count to the next sample: a thread that moves to another CPU in
	# the loop splits its faults over two counts, and fault_pages gets
	# 299 or 301 (a full run on a busy 2-CPU machine saw 299). Pinned to
	# one CPU (the first this test may use), the loop's faults are
	# consecutive in one count. (taskset: util-linux, essential.)
	cpu=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')
	check "record page faults, threshold 10, on CPU $cpu" taskset -c "$cpu" \
		"$hw" record -e page-faults -c 10 -o "$tmp/q" -- "$demo" faults 3000
	# one sample every 10 faults: 3000 consecutive ones in fault_pages
	# hold exactly 300 of them, wherever the count started
	n=$("$hw" report "$tmp/q" --format csv | awk -F, '$3 == "\"fault_pages\"" { print $2 }')
	check "exactly 300 samples in fault_pages at -c 10 (got '$n')" [ "$n" = 300 ]
	;;
bp-exact)
	"$bpprobe" || exit $?	# 77 with its reason where breakpoints do not fire
	check "record bp" "$hw" record -e mem:hot_loop:x -c 1 -o "$tmp/b" -- "$demo" threads 3
	"$hw" report "$tmp/b"
	# hot_loop runs once in main and once in each of 3 threads: 4 samples
	n=$("$hw" report "$tmp/b" --format csv | awk -F, '$3 == "\"hot_loop\"" { print $2 }')
	check "exactly 4 samples in hot_loop (got '$n')" [ "$n" = 4 ]
	;;
threads)
	task_clock_ok || { echo "SKIP: task-clock cannot be sampled here"; exit 77; }
	check "record" "$hw" record -e task-clock -c 200000 -o "$tmp/t" -- "$demo" threads 3
	"$hw" report "$tmp/t"
	check "thread_loop appears" sh -c "'$hw' report '$tmp/t' | grep -q thread_loop"
	check "4 threads" sh -c "'$hw' report '$tmp/t' | grep -q 'threads: 4'"
	;;
fork)
	task_clock_ok || { echo "SKIP: task-clock cannot be sampled here"; exit 77; }
	check "record" "$hw" record -e task-clock -c 200000 -o "$tmp/f" -- "$demo" fork
	# one file for both processes (hwprof-data(5) process lines)
	check "no file per child" [ "$(ls "$tmp" | wc -l)" = 1 ]
	check "two processes in the file" [ "$(grep -c '^process ' "$tmp/f")" = 2 ]
	"$hw" report "$tmp/f" > "$tmp/r"
	check "the child's warm_loop listed" grep -q warm_loop "$tmp/r"
	check "the parent's hot_loop listed" grep -q hot_loop "$tmp/r"
	;;
dlopen)
	task_clock_ok || { echo "SKIP: task-clock cannot be sampled here"; exit 77; }
	check "record" "$hw" record -e task-clock -c 200000 -o "$tmp/l" -- "$demo" dlopen "$lib"
	"$hw" report "$tmp/l"
	check "lib_loop symbolized in libdemolib.so" sh -c \
		"'$hw' report '$tmp/l' | grep -E 'lib_loop +libdemolib.so' >/dev/null"
	;;
formats)
	task_clock_ok || { echo "SKIP: task-clock cannot be sampled here"; exit 77; }
	check "record" "$hw" record -e task-clock -c 200000 -o "$tmp/j" -- "$demo"
	check "json" sh -c "'$hw' report '$tmp/j' --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d[\"event\"] == \"task-clock\", d[\"event\"]
assert d[\"samples\"] > 0 and d[\"lost\"] == 0
assert d[\"rows\"][0][\"function\"] == \"hot_loop\", d[\"rows\"][0]
assert abs(sum(r[\"percent\"] for r in d[\"rows\"]) - 100) < 0.5
'"
	check "csv" sh -c "'$hw' report '$tmp/j' --format csv | head -1 | grep -q '^percent,samples,function,object$'"
	check "svg" "$hw" report "$tmp/j" --svg "$tmp/p.svg"
	check "svg is well-formed XML with bars" python3 -c "
import xml.etree.ElementTree as E
r = E.parse('$tmp/p.svg').getroot()
assert r.tag.endswith('svg')
assert any(e.tag.endswith('rect') for e in r.iter())
assert any('hot_loop' in (e.text or '') for e in r.iter())
"
	;;
errors)
	err "no-such-event: no such event" "$hw" record -e no-such-event -- "$demo"
	err "cannot run it" "$hw" record -- /nonexistent/prog
	err "not found in PATH" "$hw" record -- no-such-command-xyz
	check "a static program is recorded" "$hw" record -o "$tmp/st" -- "$static"
	err "nope.data: No such file" "$hw" report "$tmp/nope.data"
	printf 'not hwprof\n' > "$tmp/foreign"
	err "not an hwprof data file" "$hw" report "$tmp/foreign"
	printf 'hwprof-data 9\n' > "$tmp/v9"
	err "version 9" "$hw" report "$tmp/v9"
	printf 'hwprof-data 1\nevent 0 1 2 3\n' > "$tmp/bad"
	err "malformed line" "$hw" report "$tmp/bad"
	printf 'hwprof-data 1\n' > "$tmp/trunc"
	err "truncated" "$hw" report "$tmp/trunc"
	err "--format xml: text, csv, json, folded or pprof" "$hw" report "$tmp/trunc" --format xml
	err "unknown command" "$hw" frobnicate
	err "-c 0: not a positive" "$hw" record -c 0 -- "$demo"
	err "-F needs a clock or cycles event" "$hw" record -e page-faults -F 99 -- "$demo"
	;;
pmu-missing)
	if "$hw" list | grep -q '^  cycles *yes'; then
		echo "SKIP: this machine can sample cycles: no missing-PMU error to check"
		exit 77
	fi
	err "cycles: event not supported by this machine's PMU; try -e task-clock" \
		"$hw" record -e cycles -- "$demo"
	;;
paranoid)
	# record asks for user-space samples of its own command only (hwprof(1)):
	# perf_event_paranoid 2 or lower lets every user have them, so only a
	# kernel that refuses all unprivileged use (value 3, a patch Debian and
	# Android carry) denies record; checked as an ordinary user (nobody)
	par=$(cat /proc/sys/kernel/perf_event_paranoid) || exit 99
	nobody=
	if [ "$(id -u)" = 0 ]; then
		command -v setpriv >/dev/null ||
			{ echo "SKIP: root, and no setpriv to become nobody"; exit 77; }
		nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
	fi
	if [ "$par" -le 2 ]; then
		echo "SKIP: perf_event_paranoid is $par: it lets an ordinary user record its own program, so no denial to check"
		exit 77
	fi
	chmod 711 "$tmp" && mkdir -m 777 "$tmp/nobody" || exit 99
	$nobody test -x "$demo" || { echo "SKIP: nobody cannot run $demo"; exit 77; }
	err "task-clock: perf_event_paranoid forbids it \\(value $par; sysctl kernel.perf_event_paranoid=2 allows it" \
		$nobody "$hw" record -e task-clock -o "$tmp/nobody/d" -- "$demo"
	;;
*)
	echo "unknown case $case_"; exit 99 ;;
esac
[ $fail = 0 ] && echo "cli $case_: all checks passed"
exit $fail
