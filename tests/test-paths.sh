#!/bin/sh
# SPDX-License-Identifier: MIT
# Call paths end to end: hwprof record -g of tests/cg-prog.c (known paths
# with exact page-fault counts), then every call-path view of hwprof
# report: totals, callers, callees, both trees, folded stacks, pprof
# (checked with go tool pprof), the flame graph (in Chromium), merging,
# paths cut at the kernel's depth limit, a file's size against its
# samples, and the refusals. Exact counts only.
# usage: test-paths.sh CASE HWPROF CG-PROG CG-PROG-NOFP [REC-PROG (remap)]
set -u
case_=$1 hw=$2 prog=$3 nofp=${4:-}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$(dirname "$0")/tlib.sh"

rec() {	# output, then cg-prog's arguments
	o=$1
	shift
	"$hw" record -q -g -e page-faults -c 1 -o "$o" -- "$prog" "$@" ||
		{ echo "FAIL: hwprof record -g $prog $*"; exit 1; }
}
# the samples column of FUNC's line in a --callers/--callees listing
edge() {	# listing file, function
	awk -v f="$2" '!/^#/ && $3 == f { print $2 }' "$1"
}

case $case_ in
fp)
	need_pf
	rec "$tmp/d" paths
	check "version 4, with the event's paths line" sh -c \
		"head -1 '$tmp/d' | grep -qx 'hwprof-data 4' && grep -q '^paths 0 fp ' '$tmp/d'"
	"$hw" report "$tmp/d" > "$tmp/r" 2>/dev/null
	sed -n '1,12p' "$tmp/r"
	check "header: the call paths" grep -q '^#   call paths (frame pointers): [0-9]* samples with one' "$tmp/r"
	check "leaf: self 400, total 400" grep -Eq '^ *[0-9.]+% +400 +[0-9.]+% +400  leaf ' "$tmp/r"
	check "top: self 0, total 400" grep -Eq '^ *0\.00% +0 +[0-9.]+% +400  top ' "$tmp/r"
	check "main: total 400 at least" sh -c \
		"awk '\$5 == \"main\" && \$4 >= 400 { ok = 1 } END { exit !ok }' '$tmp/r'"
	"$hw" report "$tmp/d" --sort total 2>/dev/null | awk '!/^#/ && $1 ~ /%$/' > "$tmp/t"
	check "--sort total: totals never grow down the list" sh -c \
		"awk 'NR > 1 && \$4 > prev { bad = 1 } { prev = \$4 } END { exit bad }' '$tmp/t'"
	"$hw" report "$tmp/d" --callers leaf > "$tmp/c" 2>/dev/null
	cat "$tmp/c"
	check "callers of leaf: mid_a 300" [ "$(edge "$tmp/c" mid_a)" = 300 ]
	check "callers of leaf: mid_b 100" [ "$(edge "$tmp/c" mid_b)" = 100 ]
	check "callers of leaf: no other" [ "$(awk '!/^#/ && $1 ~ /%$/' "$tmp/c" | wc -l)" = 2 ]
	"$hw" report "$tmp/d" --callees top > "$tmp/e" 2>/dev/null
	cat "$tmp/e"
	check "callees of top: mid_a 300" [ "$(edge "$tmp/e" mid_a)" = 300 ]
	check "callees of top: mid_b 100" [ "$(edge "$tmp/e" mid_b)" = 100 ]
	"$hw" report "$tmp/d" --callees leaf > "$tmp/s" 2>/dev/null
	check "callees of leaf: its own 400" grep -Eq '^ *100\.00% +400  \[self' "$tmp/s"
	"$hw" report "$tmp/d" --tree top-down > "$tmp/td" 2>/dev/null
	grep -E ' (main|top|mid_a|mid_b|leaf) ' "$tmp/td"
	check "top-down: main > top > mid_a > leaf, 300 deep" sh -c \
		"grep -A3 -E '^ *[0-9.]+% +[0-9.]+% +  main ' '$tmp/td' | grep -A2 ' top ' | grep -A1 ' mid_a ' | grep -q '      leaf '"
	"$hw" report "$tmp/d" --tree bottom-up --min 0 > "$tmp/bu" 2>/dev/null
	check "bottom-up: leaf at the root, mid_a its first caller" sh -c \
		"grep -A1 -E '^ *[0-9.]+% leaf ' '$tmp/bu' | tail -1 | grep -Eq '^ *[0-9.]+%   mid_a '"
	"$hw" report "$tmp/d" --format folded > "$tmp/f" 2>/dev/null
	grep leaf "$tmp/f"
	check "folded: ...;main;top;mid_a;leaf 300" grep -Eq '(^|;)main;top;mid_a;leaf 300$' "$tmp/f"
	check "folded: ...;main;top;mid_b;leaf 100" grep -Eq '(^|;)main;top;mid_b;leaf 100$' "$tmp/f"
	check "folded: its counts add up to the samples" sh -c \
		"[ \"\$(awk '{ n += \$NF } END { print n }' '$tmp/f')\" = \"\$(awk '\$1 == \"paths\" { print \$4 }' '$tmp/d')\" ]"
	"$hw" report "$tmp/d" --format json > "$tmp/j" 2>/dev/null
	check "json: the event's call paths" grep -q '"call_paths": {"mode": "fp", "samples": ' "$tmp/j"
	check "json: top's total" grep -q '"samples": 0, "total_percent": [0-9.]*, "total_samples": 400, "function": "top"' "$tmp/j"
	"$hw" report "$tmp/d" --format csv > "$tmp/v" 2>/dev/null
	check "csv: total columns" sh -c "head -1 '$tmp/v' | grep -qx 'percent,samples,function,object,total_percent,total_samples'"
	check "csv: leaf" grep -Eq '^[0-9.]+,400,"leaf","cg-prog",[0-9.]+,400$' "$tmp/v"
	for v in --threads --processes --objects --lines; do
		check "$v of a file with paths" sh -c "'$hw' report '$tmp/d' $v >/dev/null 2>&1"
	done
	;;
merge)
	need_pf
	rec "$tmp/a" paths
	rec "$tmp/b" paths 2
	"$hw" report "$tmp/a" "$tmp/b" --callers leaf > "$tmp/c" 2>/dev/null
	cat "$tmp/c"
	check "merged callers of leaf: mid_a 300 + 600" [ "$(edge "$tmp/c" mid_a)" = 900 ]
	check "merged callers of leaf: mid_b 100 + 200" [ "$(edge "$tmp/c" mid_b)" = 300 ]
	"$hw" report "$tmp/a" "$tmp/b" --format folded 2>/dev/null > "$tmp/f"
	check "merged: one folded line per path" grep -Eq '(^|;)main;top;mid_a;leaf 900$' "$tmp/f"
	# a file recorded without paths merged with one with them: its
	# samples are kept, each as its own frame alone
	"$hw" record -q -e page-faults -c 1 -o "$tmp/flat" -- "$prog" paths || exit 1
	"$hw" report "$tmp/a" "$tmp/flat" --format folded 2>/dev/null > "$tmp/g"
	check "merged with a flat file: its 400 as 'leaf 400'" grep -qx 'leaf 400' "$tmp/g"
	check "merged with a flat file: the paths too" grep -Eq '(^|;)main;top;mid_a;leaf 300$' "$tmp/g"
	"$hw" report "$tmp/a" "$tmp/flat" --callers leaf > "$tmp/c2" 2>/dev/null
	cat "$tmp/c2"
	check "merged with a flat file: its 400 in leaf have no caller" \
		grep -Eq '^ *[0-9.]+% +400  \[no caller' "$tmp/c2"
	;;
deep)
	# 200 frames of recursion: beyond the kernel's limit (at most 127)
	need_pf
	rec "$tmp/d" deep 200
	cut=$(awk '$1 == "paths" { print $5 }' "$tmp/d")
	check "paths cut at the depth limit counted: 10 or more (got $cut)" [ "${cut:-0}" -ge 10 ]
	"$hw" report "$tmp/d" > "$tmp/r" 2>"$tmp/err"
	check "the warning in the header" grep -q '^# warning: [0-9]* of [0-9]* call paths .* were cut short when recorded' "$tmp/r"
	check "and on stderr" grep -q 'were cut short when recorded' "$tmp/err"
	"$hw" report "$tmp/d" --format json 2>/dev/null | grep -q '"warnings": \["warning: [0-9]* of [0-9]* call paths' 
	check "and in the JSON warnings" [ $? = 0 ]
	"$hw" report "$tmp/d" --callers leaf > "$tmp/c" 2>/dev/null
	check "the cut paths still end in leaf, called by deep" [ "$(edge "$tmp/c" deep)" = 10 ]
	# the cut paths have their warning: the frame-pointer advice counts
	# only the other paths that end short of a thread's entry
	all=$("$hw" report "$tmp/d" --format folded 2>/dev/null | awk '
		{ split($0, f, ";"); sub(/@.*/, "", f[1]); sub(/ [0-9]+$/, "", f[1]) }
		f[1] !~ /^(_start|__libc_start_main|__libc_start_call_main|__libc_start_main_impl|start_thread|clone|clone3|__clone|__clone3|__clone_internal|thread_start|start)$/ {
			n += $NF }
		END { print n + 0 }')
	short=$(sed -n 's/^# warning: \([0-9]*\) of [0-9]* samples .* ends short of a thread.s entry.*/\1/p' "$tmp/r")
	check "short of an entry: the $all short less the $cut cut (got ${short:-0})" \
		[ "${short:-0}" = $((all - cut)) ]
	if [ "$all" = "$cut" ]; then
		check "only cut paths: no frame-pointer advice" sh -c "! grep -q fno-omit-frame-pointer '$tmp/r'"
	else
		check "the advice says the cut ones are not counted" grep -q 'entry (.*) and was not cut short: ' "$tmp/r"
	fi
	;;
size)
	# a file grows with distinct paths, not with samples: 10 times the
	# samples on the same paths, at most 1.2 times the size
	need_pf
	rec "$tmp/a" paths 1
	rec "$tmp/b" paths 10
	sa=$(wc -c < "$tmp/a") sb=$(wc -c < "$tmp/b")
	echo "400 faults: $sa bytes; 4000 faults: $sb bytes"
	check "size of 10x the samples <= 1.2 x ($sb vs $sa)" [ $((sb * 10)) -le $((sa * 12)) ]
	;;
pprof)
	# go tool pprof reads what --format pprof writes, and its -top agrees
	# with hwprof report function by function (self = flat, total = cum),
	# with call paths and without
	need_pf
	go=$(command -v go) || { echo "SKIP: no go (Debian's golang-go) for go tool pprof"; exit 77; }
	export HOME="$tmp" GOCACHE="$tmp/gocache" GOFLAGS=
	rec "$tmp/g" paths
	"$hw" record -q -e page-faults -c 1 -o "$tmp/flat" -- "$prog" paths || exit 1
	for f in g flat; do
		"$hw" report "$tmp/$f" --format pprof > "$tmp/$f.pb.gz" 2>/dev/null
		check "$f: gzip" sh -c "gzip -t '$tmp/$f.pb.gz'"
		"$go" tool pprof -top -nodefraction=0 -nodecount=100000 "$tmp/$f.pb.gz" \
			> "$tmp/$f.top" 2> "$tmp/$f.err" || { cat "$tmp/$f.err"; fail=1; }
		# name flat cum, summed by name (pprof merges functions by name)
		awk 'go && NF >= 6 { n = $6; for (i = 7; i <= NF; i++) n = n " " $i
			f[n] += $1; c[n] += $4 }
			$1 == "flat" { go = 1 }
			END { for (n in f) if (n ~ /^[A-Za-z0-9_.@+]+$/) print n "\t" f[n] "\t" c[n] }' \
			"$tmp/$f.top" | sort > "$tmp/$f.go"
		# CSV: percent,samples,"function","object"[,total_percent,total_samples]
		if [ $f = g ]; then
			"$hw" report "$tmp/$f" --format csv 2>/dev/null | awk -F'","' 'NR > 1 {
				split($1, h, ","); fn = substr($1, index($1, "\"") + 1)
				split($2, t, ","); print fn "\t" h[2] "\t" t[3] }' > "$tmp/$f.hw0"
		else
			"$hw" report "$tmp/$f" --format csv 2>/dev/null | awk -F'","' 'NR > 1 && NF > 1 {
				split($1, h, ","); fn = substr($1, index($1, "\"") + 1)
				print fn "\t" h[2] "\t" h[2] }' > "$tmp/$f.hw0"
		fi
		# C names only: pprof shortens C++ names (a sanitizer's runtime)
		awk -F'\t' '$2 + $3 > 0 && $1 ~ /^[A-Za-z0-9_.@+]+$/ { f[$1] += $2; c[$1] += $3 }
			END { for (n in f) print n "\t" f[n] "\t" c[n] }' "$tmp/$f.hw0" | sort > "$tmp/$f.hw"
		head -3 "$tmp/$f.hw"
		check "$f: go tool pprof -top = hwprof report, function by function ($(wc -l < "$tmp/$f.hw") functions)" \
			cmp -s "$tmp/$f.go" "$tmp/$f.hw"
		diff "$tmp/$f.go" "$tmp/$f.hw" | head -10
	done
	check "pprof: leaf 400 flat, 400 cum" grep -q "^leaf	400	400$" "$tmp/g.go"
	check "pprof: top 0 flat, 400 cum" grep -q "^top	0	400$" "$tmp/g.go"
	"$go" tool pprof -traces "$tmp/g.pb.gz" 2>/dev/null > "$tmp/tr"
	check "pprof: thread and pid labels" sh -c "grep -q ' thread: ' '$tmp/tr' && grep -q ' pid: ' '$tmp/tr'"
	;;
svg)
	# a flame graph: each path's functions stacked, as wide as their
	# samples, well-formed; then in Chromium, headless: the DOM holds the
	# frames, #zoom= and #search= run the script (a click and a search do
	# the same), and the screenshot has colour
	need_pf
	rec "$tmp/d" paths
	"$hw" report "$tmp/d" --svg "$tmp/f.svg" > /dev/null 2>&1
	check "svg written" [ -s "$tmp/f.svg" ]
	check "well-formed, with a script and 'leaf' 400 wide as 'mid_a' 300 + 'mid_b' 100" python3 -c "
import xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
r = ET.parse('$tmp/f.svg').getroot()
assert r.find(ns + 'script') is not None
w = {}
for g in r.iter(ns + 'g'):
    n = g.get('data-n'); s = int(g.get('data-s'))
    w.setdefault(n, []).append((s, float(g.get('data-w')), int(g.get('data-d'))))
leaf = sorted(w['leaf']); ma = w['mid_a']; mb = w['mid_b']
assert [x[0] for x in leaf] == [100, 300], leaf
assert ma[0][0] == 300 and mb[0][0] == 100
# data-w is written to 0.01: three times a rounded width is off by 0.02 at most
assert abs(leaf[1][1] - 3 * leaf[0][1]) <= 0.021 and leaf[1][2] == ma[0][2] + 1
# (a sanitizer's runtime may fault under top and main too)
assert w['top'][0][0] >= 400 and w['main'][0][0] >= 400
"
	br=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
	[ -n "$br" ] || { echo "SKIP part: no chromium here to run the flame graph"; exit $fail; }
	prof=$(mktemp -d)
	set -- --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$prof" --virtual-time-budget=3000
	timeout 120 "$br" "$@" --dump-dom "file://$tmp/f.svg" > "$tmp/dom" 2>/dev/null
	timeout 120 "$br" "$@" --dump-dom "file://$tmp/f.svg#zoom=mid_a" > "$tmp/zoom" 2>/dev/null
	timeout 120 "$br" "$@" --dump-dom "file://$tmp/f.svg#search=%5Emid_" > "$tmp/search" 2>/dev/null
	h=$(sed -n 's/.*<svg[^>]* height="\([0-9]*\)".*/\1/p' "$tmp/f.svg" | head -1)
	timeout 120 "$br" "$@" --screenshot="$tmp/shot.png" --window-size=1220,"$h" \
		"file://$tmp/f.svg" >/dev/null 2>&1
	rm -rf "$prof"
	check "chromium: the frames in the DOM" sh -c "grep -q '<title>leaf (cg-prog): 300 samples' '$tmp/dom' && grep -q '<title>mid_b (cg-prog): 100 samples' '$tmp/dom'"
	check "chromium: #zoom=mid_a stretches mid_a over the width" sh -c \
		"grep -o 'data-n=\"mid_a\"[^<]*<title>[^<]*</title><rect[^>]*>' '$tmp/zoom' | grep -q ' width=\"1180\"'"
	check "chromium: and says so" grep -q 'zoomed into mid_a' "$tmp/zoom"
	check "chromium: and hides mid_b" sh -c "grep -o '<g class=\"f\"[^>]*data-n=\"mid_b\"[^>]*>' '$tmp/zoom' | grep -q 'display: none'"
	# the share the script reports: the matched boxes' samples (none
	# nested in another here) over the roots', rounded half up as
	# JavaScript's toFixed(2) does; in the plain builds that is 400 of the
	# paths line's samples (under a sanitizer its runtime's faults add
	# boxes, some merged into wider ones)
	pct=$(python3 -c "
import xml.etree.ElementTree as ET
from decimal import Decimal, ROUND_HALF_UP
ns = '{http://www.w3.org/2000/svg}'
gs = [g for g in ET.parse('$tmp/f.svg').getroot().iter(ns + 'g') if g.get('data-n') is not None]
al = sum(int(g.get('data-s')) for g in gs if g.get('data-d') == '0')
cov = sum(int(g.get('data-s')) for g in gs if g.get('data-n').startswith('mid_'))
print(Decimal(100 * cov / al).quantize(Decimal('0.01'), ROUND_HALF_UP))")
	plain=$(awk '$1 == "paths" { printf "%.2f", 40000 / $4 }' "$tmp/d")
	check "flame graph: mid_ boxes hold 400 samples of the paths line's ($plain%)" python3 -c "
import xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
gs = [g for g in ET.parse('$tmp/f.svg').getroot().iter(ns + 'g') if g.get('data-n', '').startswith('mid_')]
assert sum(int(g.get('data-s')) for g in gs) == 400, [(g.get('data-n'), g.get('data-s')) for g in gs]"
	check "chromium: #search=^mid_ matches $pct% of the samples" grep -q "matched ^mid_: $pct% of the samples" "$tmp/search"
	check "chromium: screenshot with colour" python3 "$(dirname "$0")/png-colours.py" "$tmp/shot.png" 4 120
	;;
svg-real)
	# a real program's flame graph (hwprof(1), --svg): g++ compiling a
	# small C++ file (cc1plus, a few seconds) unwound with the call-frame
	# information. Bounded (at most 1 MB and 5000 boxes), no box narrower
	# than a pixel, each box under its caller, the roots at the top, the
	# functions of one object told apart by colour; Chromium draws it in
	# well under 10 s (the first paint is timed and printed). Its
	# icicle by source line (--lines): the same merging
	cxx=$(command -v g++ || command -v c++ || true)
	[ -n "$cxx" ] || { echo "SKIP: no g++ here to profile"; exit 77; }
	"$hw" list 2>/dev/null | grep -q '^  task-clock *yes' ||
		{ echo "SKIP: task-clock cannot be sampled here"; exit 77; }
	cat > "$tmp/t.cc" <<-'EOF'
	#include <iostream>
	#include <map>
	#include <regex>
	#include <vector>
	int main(int argc, char **argv)
	{
		std::map<std::string, std::vector<int>> m;
		std::regex re("([a-z]+)=([0-9]+)");
		for (int i = 1; i < argc; i++) {
			std::cmatch r;
			if (std::regex_match(argv[i], r, re))
				m[r[1]].push_back(std::stoi(r[2]));
		}
		for (auto &kv : m)
			std::cout << kv.first << ' ' << kv.second.size() << '\n';
		return 0;
	}
	EOF
	"$hw" record -q --call-graph dwarf -F 2000 -o "$tmp/g" -- \
		"$cxx" -O2 -c "$tmp/t.cc" -o "$tmp/t.o" ||
		{ echo "FAIL: hwprof record --call-graph dwarf $cxx"; exit 1; }
	"$hw" report "$tmp/g" --svg "$tmp/g.svg" > /dev/null 2>&1
	check "svg written" [ -s "$tmp/g.svg" ]
	sz=$(wc -c < "$tmp/g.svg")
	check "at most 1 MB (got $sz bytes)" [ "$sz" -le 1000000 ]
	check "bounded, a pixel wide or more, nested, roots on top, shades" python3 -c "
import collections, re, xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
r = ET.parse('$tmp/g.svg').getroot()
assert r.find(ns + 'script') is not None
bs = []
for g in r.iter(ns + 'g'):
    if g.get('class') != 'f':
        continue
    q = g.find(ns + 'rect')
    bs.append((int(g.get('data-d')), float(q.get('x')), float(q.get('width')),
               float(q.get('y')), int(g.get('data-s')), q.get('fill'),
               g.find(ns + 'title').text))
print('boxes:', len(bs), 'levels:', max(b[0] for b in bs) + 1)
assert 50 <= len(bs) <= 5000, len(bs)
assert min(b[2] for b in bs) >= 0.995, min(b[2] for b in bs)
lv = collections.defaultdict(list)
for b in bs:
    lv[b[0]].append(b)
for d, xs in lv.items():
    if d:
        for b in xs:
            assert any(p[1] - 0.02 <= b[1] and b[1] + b[2] <= p[1] + p[2] + 0.02
                       and b[4] <= p[4] for p in lv[d - 1]), ('not under a caller', b)
    # one level, one row
    assert len(set(b[3] for b in xs)) == 1, d
# the roots on the first screen, the widest of them over most of the width
assert all(b[3] < 120 for b in lv[0]), lv[0]
assert max(b[2] for b in lv[0]) > 600, lv[0]
assert any(b[0] > 0 and b[3] > lv[0][0][3] for b in bs), 'callees not below'
# cc1plus's functions: one hue, many shades
fills = set(b[5] for b in bs if '(cc1plus)' in b[6])
hues = set(re.match(r'hsl\((\d+),', f).group(1) for f in fills)
print('cc1plus: %d boxes in %d fills' % (sum('(cc1plus)' in b[6] for b in bs), len(fills)))
assert len(hues) == 1 and len(fills) >= 20, (hues, len(fills))
# callees too narrow: merged into a box per caller
assert any(re.match(r'\(\d+ more\)', b[6]) for b in bs), 'nothing merged'
"
	# the same profile's icicle by source line: the same rule
	"$hw" report "$tmp/g" --lines --svg "$tmp/l.svg" > /dev/null 2>&1
	check "--lines --svg: boxes a pixel wide or more, nested, merged" python3 -c "
import xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
r = ET.parse('$tmp/l.svg').getroot()
lv = {}
for g in r.iter(ns + 'g'):
    q = g.find(ns + 'rect')
    lv.setdefault(g.get('class'), []).append((float(q.get('x')), float(q.get('width')),
                                             g.find(ns + 'title').text))
print('icicle boxes:', sum(len(v) for v in lv.values()))
assert min(b[1] for v in lv.values() for b in v) >= 0.995
for d in range(1, 4):
    for x, w, t in lv['l%d' % d]:
        assert any(px - 0.02 <= x and x + w <= px + pw + 0.02
                   for px, pw, _ in lv['l%d' % (d - 1)]), (d, x, w, t)
assert any(t.startswith('(') and ' more) (' in t for v in lv.values() for _, _, t in v)
"
	br=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
	[ -n "$br" ] || { echo "SKIP part: no chromium here to draw the flame graph"; exit $fail; }
	prof=$(mktemp -d)
	echo '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>' > "$tmp/e.svg"
	shot() {	# file, png: milliseconds to its screenshot
		t0=$(date +%s%N)
		timeout 60 "$br" --headless --no-sandbox --disable-gpu --no-first-run \
			--disable-background-networking --disable-component-update \
			--disable-sync --user-data-dir="$prof" --window-size=1220,900 \
			--screenshot="$2" "file://$1" >/dev/null 2>&1
		echo $(( ($(date +%s%N) - t0) / 1000000 ))
	}
	e=$(shot "$tmp/e.svg" "$tmp/e.png")
	t=$(shot "$tmp/g.svg" "$tmp/g.png")
	rm -rf "$prof"
	echo "chromium: an empty SVG in $e ms, the flame graph in $t ms"
	# the browser's own start (the empty SVG) varies with the load: the
	# flame graph's share of the time is what is held (before the
	# merging: about 50 s for g++)
	check "chromium: the flame graph drawn in under 10 s more than an empty SVG ($t ms)" \
		[ $((t - e)) -lt 10000 ]
	check "chromium: its first screen in colour" python3 "$(dirname "$0")/png-colours.py" "$tmp/g.png" 30
	[ -n "${HWPROF_KEEP_SHOT:-}" ] && cp "$tmp/g.png" "$HWPROF_KEEP_SHOT"
	;;
dwarf)
	# a program without frame pointers: --call-graph dwarf unwinds its
	# stack copies with the call-frame information, exactly; a copy too
	# small is counted cut and warned with the cure
	need_pf
	"$hw" record -q --call-graph dwarf -e page-faults -c 1 -o "$tmp/d" -- "$nofp" paths ||
		{ echo "FAIL: hwprof record --call-graph dwarf"; exit 1; }
	check "paths line: dwarf" grep -q '^paths 0 dwarf ' "$tmp/d"
	"$hw" report "$tmp/d" --callers leaf > "$tmp/c" 2>/dev/null
	cat "$tmp/c"
	# a burst of 8 KiB samples may fill the rings where record is slow (a
	# sanitizer's build): then what was kept is exact and the rest is lost
	lost=$(awk '$1 == "event" { print $5; exit }' "$tmp/d")
	a=$(edge "$tmp/c" mid_a) b=$(edge "$tmp/c" mid_b)
	if [ "$lost" = 0 ]; then
		check "callers of leaf: mid_a 300" [ "${a:-0}" = 300 ]
		check "callers of leaf: mid_b 100" [ "${b:-0}" = 100 ]
	else
		echo "note: $lost samples lost (counted): the kept ones are checked"
		check "callers of leaf: mid_a + mid_b <= 400 <= + lost" \
			[ $((${a:-0} + ${b:-0})) -le 400 -a $((${a:-0} + ${b:-0} + lost)) -ge 400 ]
	fi
	"$hw" report "$tmp/d" --format folded 2>/dev/null > "$tmp/f"
	grep leaf "$tmp/f"
	if [ "${a:-0}" -gt 0 ]; then
		check "folded: from _start to leaf, through libc's start" grep -Eq \
			"^_start;__libc_start_main[^;]*;__libc_start_call_main;main;top;mid_a;leaf ${a:-0}\$" "$tmp/f"
	fi
	"$hw" report "$tmp/d" 2>/dev/null > "$tmp/r"
	check "header: dwarf" grep -q '^#   call paths (dwarf): ' "$tmp/r"
	short=$(sed -n 's/^# warning: \([0-9]*\) of [0-9]* samples .* ends short of a thread.s entry.*/\1/p' "$tmp/r")
	check "paths short of a thread's entry: not leaf's 400 (got ${short:-0})" [ "${short:-0}" -lt 100 ]
	"$hw" record -q --call-graph dwarf,64 -e page-faults -c 1 -o "$tmp/s" -- "$nofp" paths || exit 1
	cut=$(awk '$1 == "paths" { print $5 }' "$tmp/s")
	check "64-byte copies: 400 or more paths cut (got $cut)" [ "${cut:-0}" -ge 400 ]
	"$hw" report "$tmp/s" > "$tmp/r" 2>/dev/null
	check "the warning names the cure" grep -q 'cut short when recorded (the end of the stack copy.*--call-graph dwarf,SIZE)' "$tmp/r"
	uerr "the stack copy is whole 8-byte words" "$hw" record --call-graph dwarf,7 -- true
	uerr "too large .at most 65528." "$hw" record --call-graph dwarf,70000 -- true
	;;
dwarf-burst)
	# 20 000 faults in a few milliseconds, each sample with 8 KiB of its
	# stack: the rings are read by a thread apart from the unwinding;
	# whatever is not kept is counted lost (the kernel's drops, or
	# record's own past its queue's bound), and the books balance:
	# kept + lost is the kernel's count, every kept path exact
	need_pf
	"$hw" record -q --call-graph dwarf -e page-faults -c 1 -o "$tmp/d" -- "$nofp" paths 50 \
		2> "$tmp/err" || { echo "FAIL: hwprof record --call-graph dwarf"; exit 1; }
	cat "$tmp/err"
	check "no warning that the books do not balance" sh -c "! grep -q 'the kernel counted' '$tmp/err'"
	kept=$(awk '$1 == "event" { print $4; exit }' "$tmp/d")
	lost=$(awk '$1 == "event" { print $5; exit }' "$tmp/d")
	echo "kept $kept, lost $lost"
	check "kept + lost: the 20 000 faults and the start's" [ $((kept + lost)) -ge 20000 ]
	"$hw" report "$tmp/d" --callers leaf > "$tmp/c" 2>/dev/null
	a=$(edge "$tmp/c" mid_a) b=$(edge "$tmp/c" mid_b)
	check "callers of leaf: mid_a ${a:-0} + mid_b ${b:-0} <= 20000 <= + lost" \
		[ $((${a:-0} + ${b:-0})) -le 20000 -a $((${a:-0} + ${b:-0} + lost)) -ge 20000 ]
	check "callers of leaf: no other" [ "$(awk '!/^#/ && $1 ~ /%$/' "$tmp/c" | wc -l)" -le 2 ]
	# on one CPU (taskset): the reader has no other CPU to keep to, and
	# shares this one with the unwinding and the command; the books
	# still balance
	if command -v taskset > /dev/null; then
		cpu=$(awk '$1 == "Cpus_allowed_list:" { print $2 }' /proc/self/status |
			cut -d, -f1 | cut -d- -f1)
		taskset -c "$cpu" "$hw" record -q --call-graph dwarf -e page-faults -c 1 -o "$tmp/d1" -- \
			"$nofp" paths 50 2> "$tmp/err" ||
			{ cat "$tmp/err"; echo "FAIL: hwprof record under taskset"; exit 1; }
		cat "$tmp/err"
		check "one CPU: no warning that the books do not balance" \
			sh -c "! grep -q 'the kernel counted' '$tmp/err'"
		kept=$(awk '$1 == "event" { print $4; exit }' "$tmp/d1")
		lost=$(awk '$1 == "event" { print $5; exit }' "$tmp/d1")
		echo "one CPU: kept $kept, lost $lost"
		check "one CPU: kept + lost: the 20 000 faults and the start's" \
			[ $((kept + lost)) -ge 20000 ]
	fi
	;;
dwarf-spool)
	# the records read and not yet unwound wait in an unnamed file of
	# TMPDIR (O_TMPFILE: nothing there to see or to plant), a memfd where
	# that cannot be (no such directory; as root, a tmpfs too small for
	# what may wait); the recording is the same either way
	need_pf
	mkdir "$tmp/spool"
	fds() {	# TMPDIR, output: record's fds, as its command sees them
		TMPDIR=$1 "$hw" record -q --call-graph dwarf -e page-faults -c 1 -o "$2" -- \
			sh -c 'sleep 0.3; ls -l /proc/$PPID/fd; '"$nofp"' paths 1' > "$tmp/fds" ||
			{ echo "FAIL: hwprof record --call-graph dwarf, TMPDIR=$1"; exit 1; }
		cat "$tmp/fds"
	}
	books() {	# data file, TMPDIR's name: kept + lost, the callers of leaf
		kept=$(awk '$1 == "event" { print $4; exit }' "$1")
		lost=$(awk '$1 == "event" { print $5; exit }' "$1")
		check "$2: kept $kept + lost $lost: the 400 faults and the start's" \
			[ $((kept + lost)) -ge 400 ]
		"$hw" report "$1" --callers leaf > "$tmp/c" 2>/dev/null
		a=$(edge "$tmp/c" mid_a) b=$(edge "$tmp/c" mid_b)
		check "$2: callers of leaf: mid_a ${a:-0} + mid_b ${b:-0} + lost >= 400" \
			[ $((${a:-0} + ${b:-0} + lost)) -ge 400 ]
	}
	fds "$tmp/spool" "$tmp/d1"
	check "TMPDIR: an unnamed file there" grep -q " -> $tmp/spool/#[0-9]* (deleted)" "$tmp/fds"
	check "TMPDIR: nothing left there" [ -z "$(ls -A "$tmp/spool")" ]
	books "$tmp/d1" TMPDIR
	fds /nonexistent "$tmp/d2"
	check "no such TMPDIR: a memfd" grep -q ' -> /memfd:hwprof-spool (deleted)' "$tmp/fds"
	books "$tmp/d2" "no such TMPDIR"
	# a file size limit: the spool is as large as it allows (12 MiB
	# here), written round. A burst of 24 000 faults (about 150 MB of
	# records) fills it, and what it cannot take waits in the rings
	# (dropped by the kernel, counted); then 20 bursts of 400 faults
	# 50 ms apart (about 50 MB) go round it: kept, as the main thread
	# reads back and gives the spool back between them
	sh -c "ulimit -f 24576 && exec '$hw' record -q -m 1024 --call-graph dwarf -e page-faults \
		-c 1 -o '$tmp/d4' -- sh -c '\"$prog\" paths 60; sleep 0.5; \"$nofp\" paced 20'" ||
		{ echo "FAIL: hwprof record --call-graph dwarf under ulimit -f"; exit 1; }
	"$hw" report "$tmp/d4" > "$tmp/r" 2>/dev/null
	burst=$(awk -v o="$(basename "$prog")" '$5 == "leaf" && $6 == o { print $4 }' "$tmp/r")
	paced=$(awk -v o="$(basename "$nofp")" '$5 == "leaf" && $6 == o { print $4 }' "$tmp/r")
	echo "ulimit -f: leaf's samples: the burst's ${burst:-0} of 24 000, the paced ${paced:-0} of 8 000"
	check "ulimit -f: the burst kept in part (${burst:-0})" [ "${burst:-0}" -gt 0 ]
	check "ulimit -f: the paced bursts after it kept (${paced:-0} of 8 000; more than the spool holds)" \
		[ "${paced:-0}" -ge 6000 ]
	"$hw" report "$tmp/d4" --callers leaf > "$tmp/c" 2>/dev/null
	check "ulimit -f: callers of leaf: mid_a and mid_b only" \
		[ "$(awk '!/^#/ && $1 ~ /%$/ && $3 != "mid_a" && $3 != "mid_b"' "$tmp/c" | wc -l)" = 0 ]
	# the command never holds the spool (made after the fork, CLOEXEC)
	"$hw" record -q --call-graph dwarf -o "$tmp/d6" -- sh -c 'ls -l /proc/self/fd/' > "$tmp/fds"
	check "the command holds no spool" sh -c "! grep -Eq 'hwprof-spool|/#[0-9]+ ' '$tmp/fds'"
	sh -c "ulimit -f 8192 && exec '$hw' record -q --call-graph dwarf -o '$tmp/d5' -- true" \
		2> "$tmp/err"
	rc=$?
	cat "$tmp/err"
	check "ulimit -f 4 MiB: refused (got $rc)" [ "$rc" = 1 ]
	check "ulimit -f 4 MiB: one line says the limit" grep -q 'file size limit (ulimit -f)' "$tmp/err"
	if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
		unshare -m sh -c "mount -t tmpfs -o size=8m none '$tmp/spool' &&
			TMPDIR='$tmp/spool' '$hw' record -q --call-graph dwarf -o '$tmp/d3' -- \
			sh -c 'sleep 0.3; ls -l /proc/\$PPID/fd'" > "$tmp/fds" ||
			{ echo "FAIL: hwprof record --call-graph dwarf, an 8 MiB TMPDIR"; exit 1; }
		check "a TMPDIR of 8 MiB: a memfd" grep -q ' -> /memfd:hwprof-spool (deleted)' "$tmp/fds"
	else
		echo "note: not root, or no mount namespace: the small TMPDIR is not tried"
	fi
	;;
remap)
	# the same call chain (the same pcs, the same return addresses) in
	# two copies of a library, the second mapped where the first was
	# after a dlclose: record's chain cache (rec-chains.c) resolves it
	# again once the maps change, so each copy keeps its own samples,
	# flat and on the paths
	need_pf
	rprog=$5
	lib=$(dirname "$rprog")/libreclib.so
	mkdir "$tmp/a" "$tmp/b"
	cp "$lib" "$tmp/a/" && cp "$lib" "$tmp/b/" || exit 99
	"$hw" record -q -g -e page-faults -c 1 -o "$tmp/d" -- "$rprog" dlopen2 "$tmp/a" \
		"$tmp/b" libreclib.so 300 2> "$tmp/err" || { echo "FAIL: hwprof record -g"; exit 1; }
	grep -q 'same address' "$tmp/err" ||
		echo "note: the copies were not mapped at one address: nothing to tell apart"
	for c in a b; do
		o=$(awk -v p="$tmp/$c/libreclib.so" '$1 == "object" && $5 == p { print $2 }' "$tmp/d")
		n=$(awk -v o="$o" '$1 == "s" && $4 == o { n += $6 } END { print n + 0 }' "$tmp/d")
		check "flat: 300 or more samples in the copy in $c (got $n)" [ "$n" -ge 300 ]
		n=$(awk -v o="$o" '$1 == "n" { obj[$2] = $4 } $1 == "c" && obj[$4] == o { n += $5 }
			END { print n + 0 }' "$tmp/d")
		check "paths: 300 or more ending in the copy in $c (got $n)" [ "$n" -ge 300 ]
	done
	;;
many)
	# 1500 functions on paths (addresses of an object that cannot be
	# read: a row each): the views that look rows up after the table was
	# sorted (the flame graph) finish, and count every sample
	{
		echo "hwprof-data 4"; echo "command x"
		echo "event 0 1 1500 0 0 0 - page-faults"
		echo "process 0 1 0 -1 exit 0 - x"; echo "thread 0 0 1 x"
		echo "object 0 - - /nonexistent/lib.so"
		awk 'BEGIN { for (i = 0; i < 1500; i++) printf "s 0 0 0 %x 1\n", 4096 + 16 * i }'
		echo "paths 0 fp 1500 0"
		awk 'BEGIN { for (i = 0; i < 1500; i++) printf "n %d - 0 %x\n", i, 4096 + 16 * i
			for (i = 0; i < 1500; i++) printf "c 0 0 %d 1\n", i }'
		echo "end"
	} > "$tmp/m"
	check "report --svg finishes" timeout 60 "$hw" report "$tmp/m" --svg "$tmp/m.svg"
	# each under a pixel: one box of all 1500 (hwprof(1), --svg)
	check "the flame graph holds the 1500 functions in one box" sh -c \
		"[ \$(grep -c '<g class=\"f\"' '$tmp/m.svg') = 1 ] && grep -q 'data-n=\"(1500 more)\" data-s=\"1500\"' '$tmp/m.svg'"
	# 1000 paths 8 deep, 1 to 4 samples (0.47 to 1.89 pixels wide): over
	# 4000 boxes a pixel wide or more, more than a flame graph draws; the
	# width raised till they fit
	{
		echo "hwprof-data 4"; echo "command x"
		echo "event 0 1 2500 0 0 0 - page-faults"
		echo "process 0 1 0 -1 exit 0 - x"; echo "thread 0 0 1 x"
		echo "object 0 - - /nonexistent/lib.so"
		awk 'BEGIN { for (i = 0; i < 1000; i++)
				printf "s 0 0 0 %x %d\n", 4096 + 16 * (8 * i + 7), 1 + i % 4 }'
		echo "paths 0 fp 2500 0"
		awk 'BEGIN { for (i = 0; i < 8000; i++)
				printf "n %d %s 0 %x\n", i, i % 8 ? i - 1 : "-", 4096 + 16 * i
			for (i = 0; i < 1000; i++) printf "c 0 0 %d %d\n", 8 * i + 7, 1 + i % 4 }'
		echo "end"
	} > "$tmp/w"
	check "report --svg of 8000 paths' boxes finishes" timeout 60 "$hw" report "$tmp/w" --svg "$tmp/w.svg"
	check "at most 4000 boxes, each as wide as the legend says, all samples" python3 -c "
import re, xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
r = ET.parse('$tmp/w.svg').getroot()
bs = [g for g in r.iter(ns + 'g') if g.get('class') == 'f']
m = [float(x) for t in r.iter(ns + 'text')
     for x in re.findall(r'callees under ([0-9.]+) pixels', t.text or '')]
print('boxes:', len(bs), 'width at least', m)
assert 1000 <= len(bs) <= 4000 and len(m) == 1 and m[0] > 1, (len(bs), m)
assert all(float(g.get('data-w')) >= m[0] - 0.01 for g in bs)
assert sum(int(g.get('data-s')) for g in bs if g.get('data-d') == '0') == 2500
"
	check "--tree finishes" timeout 60 "$hw" report "$tmp/m" --tree top-down --min 0
	check "folded: 1500 lines of 1" sh -c \
		"[ \$(timeout 60 '$hw' report '$tmp/m' --format folded 2>/dev/null | awk '\$NF == 1' | wc -l) = 1500 ]"
	;;
refusals)
	need_pf
	"$hw" record -q -e page-faults -c 1 -o "$tmp/flat" -- "$prog" paths || exit 1
	rec "$tmp/d" paths
	err "no call paths .record with hwprof record -g." "$hw" report "$tmp/flat" --callers leaf
	err "no call paths" "$hw" report "$tmp/flat" --tree top-down
	uerr "--sort total: the file has no call paths" "$hw" report "$tmp/flat" --sort total
	"$hw" report "$tmp/flat" --format folded > "$tmp/f" 2>/dev/null
	check "folded without paths: the innermost frame alone" grep -qx 'leaf 400' "$tmp/f"
	uerr "--tree sideways: top-down or bottom-up" "$hw" report "$tmp/d" --tree sideways
	uerr "one at a time" "$hw" report "$tmp/d" --callers leaf --callees top
	uerr "text or json, without --ranks" "$hw" report "$tmp/d" --callers leaf --format csv
	uerr "--min 200: a percentage" "$hw" report "$tmp/d" --tree top-down --min 200
	uerr "--call-graph lbr: the call-graph modes are fp\[,noleaf\] and dwarf" "$hw" record --call-graph lbr -- true
	err "nosuchfunction: no function of that name" "$hw" report "$tmp/d" --callers nosuchfunction
	"$hw" report "$tmp/d" --callers mid_ > "$tmp/o" 2> "$tmp/e"
	rc=$?
	cat "$tmp/e"
	check "an ambiguous name: exit 1" [ $rc = 1 ]
	check "the candidates listed" sh -c "grep -q '2 functions match' '$tmp/e' && grep -q '  mid_a (cg-prog)' '$tmp/e' && grep -q '  mid_b (cg-prog)' '$tmp/e'"
	;;
*)
	echo "unknown case $case_"; exit 99 ;;
esac
[ $fail = 0 ] && echo "$case_: all checks passed"
exit $fail
