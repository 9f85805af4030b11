#!/bin/sh
# SPDX-License-Identifier: MIT
# Frames and the call-path outputs around them (tests/test-paths.sh has
# the views themselves):
#   garbage   a real Debian program without frame pointers (sqlite3 -g):
#             the frames that cannot be code are dropped and counted
#             (header, JSON, CSV --stats, the data file), never ranked
#   exact     cg-prog's paths, recorded after its start: 0 dropped
#   old       a version-4 file without the count reads as 0 dropped
#   callers   --callers/--callees state their denominator; --once sums
#             to 100 %, under recursion too (text and JSON)
#   comm      --format folded --comm: the command as the first frame, on
#             sh running cg-prog
#   pprof     the comm label, through go tool pprof -tags and -tagfocus
# usage: test-frames.sh CASE HWPROF CG-PROG SRCDIR
set -u
case_=$1 hw=$2 prog=$3 src=$4
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$(dirname "$0")/tlib.sh"

# the function-column values of a JSON report's rows, one a line
json_funcs() {
	python3 -c 'import json, sys
for r in json.load(sys.stdin)["rows"]: print(r["function"])'
}
# event 0's call_paths.frames_dropped of a JSON report
json_dropped() {
	python3 -c 'import json, sys
print(json.load(sys.stdin)["events"][0]["call_paths"]["frames_dropped"])'
}
# the CSV --stats column frames_dropped of event 0
csv_dropped() {
	python3 -c 'import csv, sys
print(next(csv.DictReader(open(sys.argv[1])))["frames_dropped"])' "$1"
}
# the count in the header line of the call paths
head_dropped() {
	sed -n 's/^#   call paths .*, \([0-9]*\) frames dropped (not code.*/\1/p' "$1"
}

case $case_ in
garbage)
	sq=$(command -v sqlite3) || { echo "SKIP: no sqlite3 (Debian's sqlite3)"; exit 77; }
	# Debian builds libsqlite3 without frame pointers: the kernel's walk
	# through it reads data words as return addresses
	"$hw" record -q -g -o "$tmp/d" -- "$sq" :memory: \
		"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000)
		 SELECT sum(x) FROM c;" > "$tmp/out" || { echo "FAIL: hwprof record -g sqlite3"; exit 1; }
	eq "sqlite3's answer" "$(cat "$tmp/out")" 4500001500000
	grep '^paths' "$tmp/d"
	"$hw" report "$tmp/d" > "$tmp/r" 2>/dev/null
	sed -n '/call paths/p' "$tmp/r"
	n=$(head_dropped "$tmp/r")
	check "header: frames dropped > 0 ($n)" [ "${n:-0}" -gt 0 ]
	eq "data file: the paths line's DROPPED" "$(awk '$1 == "paths" && $2 == 0 { print $6 }' "$tmp/d")" "$n"
	"$hw" report "$tmp/d" --format json 2>/dev/null > "$tmp/j"
	eq "JSON: call_paths.frames_dropped" "$(json_dropped < "$tmp/j")" "$n"
	"$hw" report "$tmp/d" --format csv --stats "$tmp/s.csv" > /dev/null 2>&1
	eq "CSV --stats: frames_dropped" "$(csv_dropped "$tmp/s.csv")" "$n"
	# every function that took samples or is on a path has a row
	json_funcs < "$tmp/j" > "$tmp/f"
	check "rows: the paths' functions are there ($(wc -l < "$tmp/f") rows)" \
		grep -qx sqlite3VdbeExec "$tmp/f"
	check "rows: none named 0 or 0x..." sh -c "! grep -Eq '^(0|0x[0-9a-f]+)$' '$tmp/f'"
	check "rows: none in no object" sh -c "python3 -c 'import json, sys
sys.exit(any(r[\"object\"] == \"[anon]\" for r in json.load(sys.stdin)[\"rows\"]))' < '$tmp/j'"
	"$hw" report "$tmp/d" --format folded 2>/dev/null > "$tmp/fo"
	check "folded: no frame 0 or 0x..." sh -c \
		"! tr ';' '\n' < '$tmp/fo' | sed 's/ [0-9]*$//' | grep -Eq '^(0|0x[0-9a-f]+)$'"
	;;
exact)
	need_pf
	# -D: after the dynamic loader and libc's start, whose code has no
	# frame pointers; cg-prog late then exits by the system call itself
	"$hw" record -q -g -e page-faults -c 1 -D 300 -o "$tmp/d" -- "$prog" late 2 ||
		{ echo "FAIL: hwprof record -g cg-prog late"; exit 1; }
	grep '^paths' "$tmp/d"
	check "data file: no DROPPED field" grep -qx 'paths 0 fp 800 0' "$tmp/d"
	"$hw" report "$tmp/d" > "$tmp/r" 2>/dev/null
	eq "header: frames dropped" "$(head_dropped "$tmp/r")" 0
	eq "JSON: frames_dropped" "$("$hw" report "$tmp/d" --format json 2>/dev/null | json_dropped)" 0
	"$hw" report "$tmp/d" --format folded 2>/dev/null > "$tmp/f"
	cat "$tmp/f"
	check "folded: main;top;mid_a;leaf 600" grep -Eq '(^|;)main;top;mid_a;leaf 600$' "$tmp/f"
	check "folded: main;top;mid_b;leaf 200" grep -Eq '(^|;)main;top;mid_b;leaf 200$' "$tmp/f"
	;;
old)
	# a file written before the count: read as 0; a count of 0 written
	# out is not the format (the field is absent then)
	f=$src/tests/fuzz/corpus/data/v4-paths
	"$hw" report "$f" > "$tmp/r" 2>/dev/null
	eq "v4-paths: frames dropped" "$(head_dropped "$tmp/r")" 0
	"$hw" report "$src/tests/fuzz/corpus/data/v4-dropped" > "$tmp/r" 2>/dev/null
	eq "v4-dropped: frames dropped" "$(head_dropped "$tmp/r")" 3
	sed 's/^paths 0 fp 7 2$/paths 0 fp 7 2 0/' "$f" > "$tmp/zero"
	err "line 9: malformed line: paths" "$hw" report "$tmp/zero"
	sed 's/^paths 0 fp 7 2$/paths 0 fp 7 2 3 4/' "$f" > "$tmp/more"
	err "line 9: malformed line: paths" "$hw" report "$tmp/more"
	;;
callers)
	need_pf
	"$hw" record -q -g -e page-faults -c 1 -o "$tmp/d" -- "$prog" deep 5 || exit 1
	"$hw" report "$tmp/d" --callers deep > "$tmp/c" 2>/dev/null
	cat "$tmp/c"
	check "header: the denominator" grep -q \
		'^# callers of deep: shares of its total, the 10 samples on call paths through it (.*% of the [0-9]* on call paths); a path counts once for each caller, so under recursion the shares may sum past 100% (--once: to 100%)$' "$tmp/c"
	check "recursion: main 100%" grep -Eq '^ *100\.00% +10  main$' "$tmp/c"
	check "recursion: deep 100%" grep -Eq '^ *100\.00% +10  deep$' "$tmp/c"
	"$hw" report "$tmp/d" --callers deep --once > "$tmp/o" 2>/dev/null
	cat "$tmp/o"
	check "--once header: sums to 100%" grep -q \
		"^# callers of deep: shares of its total, the 10 samples .*; each path counts once, at the function's outermost frame on it: the shares sum to 100%$" "$tmp/o"
	check "--once: main 100%, the one row" sh -c \
		"grep -Eq '^ *100\.00% +10  main$' '$tmp/o' && [ \$(grep -c '%' '$tmp/o') = 2 ]"
	"$hw" report "$tmp/d" --callees deep --once > "$tmp/e" 2>/dev/null
	check "--callees --once: leaf 100% (what the recursion called out to)" sh -c \
		"grep -Eq '^ *100\.00% +10  leaf$' '$tmp/e' && [ \$(grep -c '%' '$tmp/e') = 2 ]"
	"$hw" report "$tmp/d" --callers deep --format json 2>/dev/null > "$tmp/j"
	cat "$tmp/j"
	check "JSON: denominator, total, counting, rows summing past 100" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
ok = (j["view"] == "callers" and j["function"] == "deep" and
      j["denominator"] == "function_total" and j["total"] == 10 and
      j["counting"] == "each" and j["sums_to_100"] is False and
      sorted((r["caller"], r["samples"]) for r in j["rows"]) == [("deep", 10), ("main", 10)] and
      abs(sum(r["percent"] for r in j["rows"]) - 200) < 1e-9)
sys.exit(not ok)' "$tmp/j"
	# a real program's many callers: the shares of --once add up
	rec2() { "$hw" record -q -g -e page-faults -c 1 -o "$tmp/p" -- "$prog" paths; }
	rec2 || exit 1
	for f in leaf malloc _dl_map_object; do
		"$hw" report "$tmp/p" --callers "$f" --once --format json 2>/dev/null > "$tmp/k" || continue
		check "--callers $f --once, JSON: shares sum to 100, samples to the total" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(not (j["sums_to_100"] and j["counting"] == "outermost" and
              abs(sum(r["percent"] for r in j["rows"]) - 100) < 1e-9 and
              sum(r["samples"] for r in j["rows"]) == j["total"]))' "$tmp/k"
	done
	uerr "--once: with --callers or --callees" "$hw" report "$tmp/d" --once
	uerr "--callers and --callees: text or json" "$hw" report "$tmp/d" --callers deep --format csv
	;;
comm)
	need_pf
	"$hw" record -q -g -e page-faults -c 1 -o "$tmp/d" -- sh -c "'$prog' paths; true" ||
		exit 1
	"$hw" report "$tmp/d" --format folded --comm 2>/dev/null > "$tmp/f"
	"$hw" report "$tmp/d" --format folded 2>/dev/null > "$tmp/plain"
	grep leaf "$tmp/f"
	check "--comm: cg-prog;...main;top;mid_a;leaf 300" grep -Eq '^cg-prog;(.*;)?main;top;mid_a;leaf 300$' "$tmp/f"
	check "--comm: cg-prog;...main;top;mid_b;leaf 100" grep -Eq '^cg-prog;(.*;)?main;top;mid_b;leaf 100$' "$tmp/f"
	check "--comm: sh's own samples under sh" grep -q '^sh;' "$tmp/f"
	check "--comm: every line under sh or cg-prog" sh -c "! grep -Ev '^(sh|cg-prog);' '$tmp/f'"
	eq "--comm: the same samples" "$(awk '{ n += $NF } END { print n }' "$tmp/f")" \
		"$(awk '{ n += $NF } END { print n }' "$tmp/plain")"
	check "without --comm: no command frame" sh -c "! grep -Eq '^(sh|cg-prog);' '$tmp/plain'"
	uerr "--comm: with --format folded" "$hw" report "$tmp/d" --comm
	;;
pprof)
	need_pf
	go=$(command -v go) || { echo "SKIP: no go (Debian's golang-go) for go tool pprof"; exit 77; }
	export HOME="$tmp" GOCACHE="$tmp/gocache" GOFLAGS=
	"$hw" record -q -g -e page-faults -c 1 -o "$tmp/d" -- sh -c "'$prog' paths; true" ||
		exit 1
	"$hw" report "$tmp/d" --format pprof > "$tmp/p.pb.gz" 2>/dev/null
	"$go" tool pprof -tags "$tmp/p.pb.gz" 2>/dev/null > "$tmp/t"
	cat "$tmp/t"
	all=$("$hw" report "$tmp/d" --format folded 2>/dev/null | awk '{ n += $NF } END { print n }')
	check "-tags: a comm label of $all samples" grep -Eq "^ *comm: Total $all(\.0)?$" "$tmp/t"
	check "-tags: cg-prog" grep -Eq '^ *[0-9.]+ \( *[0-9.]+%\): cg-prog$' "$tmp/t"
	check "-tags: sh" grep -Eq '^ *[0-9.]+ \( *[0-9.]+%\): sh$' "$tmp/t"
	"$go" tool pprof -top -nodefraction=0 -tagfocus=comm=cg-prog "$tmp/p.pb.gz" 2>/dev/null > "$tmp/c"
	check "-tagfocus=comm=cg-prog: leaf 400" grep -Eq '^ +400 .* leaf$' "$tmp/c"
	"$go" tool pprof -top -nodefraction=0 -tagfocus=comm=sh "$tmp/p.pb.gz" 2>/dev/null > "$tmp/s"
	check "-tagfocus=comm=sh: no leaf" sh -c "! grep -q ' leaf$' '$tmp/s'"
	;;
*)
	echo "unknown case $case_"
	exit 99
	;;
esac
exit $fail
