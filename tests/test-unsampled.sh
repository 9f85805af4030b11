#!/bin/sh
# SPDX-License-Identifier: MIT
# The share not sampled (hwprof(1), "The share not sampled"): hwprof record
# keeps each event's own count (hwprof-data(5), count), and the report
# states the share of it the profile does not hold: for task-clock, the
# kernel's. dd bs=1 spends most of its time in system calls (perf says
# 61-67 % in the kernel), a user-space loop (examples/demo) almost none.
# Kernel modifiers are refused in one line, exit 2. Run as nobody too when
# root (record's unprivileged path).
# usage: test-unsampled.sh HWPROF DEMO
set -u
hw=$1 demo=$2
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
check() {	# description, then a command that must succeed
	d=$1
	shift
	if "$@"; then echo "ok: $d"; else echo "FAIL: $d"; fail=1; fi
}
usage() {	# expected words, then the command: one line, exit status 2
	want=$1
	shift
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc != 2 ] || [ "$(wc -l < "$tmp/err")" -ne 1 ] ||
	   ! grep -q "^hwprof: .*$want" "$tmp/err" || [ -e "$tmp/k.hwp" ]; then
		echo "FAIL: '$*' exited $rc and said:"; cat "$tmp/err"; fail=1
	else
		echo "ok: 2: $(cat "$tmp/err")"
	fi
}
# the percent of the header's kernel line, of JSON and of CSV --stats
text_pct() {
	"$hw" report "$1" | sed -n 's/^#   \([0-9.]*\) % of task-clock time (.*) was spent in the kernel and is not in this profile$/\1/p'
}
json_pct() {
	"$hw" report --format json "$1" |
		sed -n 's/.*"count": {"scope": "all", "value": [0-9]*, "enabled": [0-9]*, "running": [0-9]*, "unsampled_percent": \([0-9.e+-]*\)}.*/\1/p' |
		head -n 1
}
csv_pct() {
	"$hw" report --format csv --stats "$tmp/stats.csv" "$1" >/dev/null &&
		python3 -c 'import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))
assert r[0]["count_scope"] == "all", r
print(r[0]["unsampled_percent"])' "$tmp/stats.csv"
}
above() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 > b + 0) }'; }
below() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }
# every form of the share, for file $1: above or below $3 %
shares() {
	t=$(text_pct "$1") j=$(json_pct "$1") c=$(csv_pct "$1")
	echo "  $2: text $t %, JSON $j %, CSV $c %"
	check "$2: the header states the kernel's share ($t %, $3 $4)" "$3" "${t:-x}" "$4"
	check "$2: JSON's unsampled_percent ($j, $3 $4)" "$3" "${j:-x}" "$4"
	check "$2: CSV --stats' unsampled_percent ($c, $3 $4)" "$3" "${c:-x}" "$4"
	check "$2: text and JSON agree to the rounding" \
		awk -v a="${t:-x}" -v b="${j:-y}" 'BEGIN { d = a - b; exit !(d < 0.06 && d > -0.06) }'
}

for who in root nobody; do
	run=
	if [ "$who" = nobody ]; then
		[ "$(id -u)" = 0 ] || break
		command -v setpriv >/dev/null ||
			{ echo "note: no setpriv: not checked as nobody"; break; }
		run="setpriv --reuid=65534 --regid=65534 --clear-groups"
		chmod 777 "$tmp"
		$run test -x "$hw" -a -x "$demo" ||
			{ echo "note: nobody cannot run the build tree: not checked as nobody"; break; }
	fi
	rm -f "$tmp"/*.hwp
	$run "$hw" record -e task-clock -o "$tmp/dd.hwp" -- \
		dd if=/dev/zero of=/dev/null bs=1 count=2000000 2>"$tmp/rec.err" ||
		{ echo "FAIL: $who: record dd"; cat "$tmp/rec.err"; fail=1; continue; }
	check "$who: the data file keeps task-clock's count, scope all" \
		grep -Eq '^count 0 all [1-9][0-9]* [0-9]+ [0-9]+$' "$tmp/dd.hwp"
	shares "$tmp/dd.hwp" "$who: dd bs=1" above 30
	$run "$hw" record -e task-clock -o "$tmp/demo.hwp" -- "$demo" >/dev/null 2>"$tmp/rec.err" ||
		{ echo "FAIL: $who: record demo"; cat "$tmp/rec.err"; fail=1; continue; }
	shares "$tmp/demo.hwp" "$who: demo (a user-space loop)" below 10
done

# the count is the time the task ran: a software event never multiplexes
check "task-clock: enabled = running = count" \
	awk '$1 == "count" { exit !($4 == $5 && $5 == $6 && $4 > 0) } ' "$tmp/dd.hwp"
# an event counted in user space only: scope user, its samples hold it all
# but each thread's unfinished period
"$hw" record -e page-faults -o "$tmp/pf.hwp" -- "$demo" >/dev/null 2>&1 ||
	{ echo "FAIL: record page-faults"; fail=1; }
check "page-faults: a count line of scope user" grep -Eq '^count 0 user [1-9]' "$tmp/pf.hwp"
check "page-faults: every fault sampled (period 1): 0.0 % not in the profile" \
	sh -c "'$hw' report '$tmp/pf.hwp' | grep -q '^#   0.0 % of the page-faults count in user space'"

# merged files: the counts summed; '-' once a file lacks its count
cp "$tmp/demo.hwp" "$tmp/demo2.hwp"
"$hw" report --format json "$tmp/demo.hwp" "$tmp/demo2.hwp" >"$tmp/m.json" 2>/dev/null ||
	{ echo "FAIL: merged report"; fail=1; }
one=$(awk '$1 == "count" { print $4 }' "$tmp/demo.hwp")
check "merged: the count is the sum ($one x 2)" \
	grep -q "\"count\": {\"scope\": \"all\", \"value\": $((one * 2))," "$tmp/m.json"
grep -v '^count ' "$tmp/demo.hwp" >"$tmp/old.hwp"
check "a file without a count line still reads, and says nothing of it" \
	sh -c "'$hw' report '$tmp/old.hwp' >'$tmp/old.txt' && ! grep -q 'in this profile' '$tmp/old.txt'"
check "JSON: count null without a count line" \
	sh -c "'$hw' report --format json '$tmp/old.hwp' | grep -q '\"count\": null'"
check "merged with a file without count: the header says count: -" \
	sh -c "'$hw' report '$tmp/demo.hwp' '$tmp/old.hwp' | grep -q '^#   count: - (not every merged file has one)'"
"$hw" report --format csv --stats "$tmp/ms.csv" "$tmp/demo.hwp" "$tmp/old.hwp" >/dev/null
check "merged with a file without count: CSV --stats gives -" \
	python3 -c 'import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))[0]
sys.exit(not (r["count"] == r["count_scope"] == r["unsampled_percent"] == "-"))' "$tmp/ms.csv"
sed 's/^count 0 all/count 0 kernel/' "$tmp/demo.hwp" >"$tmp/bad.hwp"
check "an unknown count scope is refused" sh -c "! '$hw' report '$tmp/bad.hwp' >/dev/null 2>&1"

# modifiers the engine cannot honour: one line, exit 2, no file
for e in task-clock:k task-clock:u:k task-clock:uk task-clock:h page-faults:k; do
	usage "$e: hwprof record samples user space only" \
		"$hw" record -e "$e" -o "$tmp/k.hwp" -- true
done
check "task-clock:u (the default) is accepted" \
	"$hw" record -e task-clock:u -o "$tmp/u.hwp" -- true
exit $fail
