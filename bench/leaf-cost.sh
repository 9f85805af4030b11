#!/bin/sh
# SPDX-License-Identifier: MIT
# What -g's leaf patch (tools/record/rec-leaf.c) costs per sample, and
# what it changes, side by side with the kernel's walk alone
# (--call-graph fp,noleaf, perf's fp) and with perf record -g (bench/
# README.md, "-g's leaf patch"). The workload is Debian's xz (stripped,
# no frame pointers) on 1.2 MB of text, task-clock every 200 us.
#  1. Instructions of hwprof record itself (callgrind; the command is not
#     traced): the whole run (it varies with the wall time: record's poll
#     loop), a sample's handling (rec_on_sample() inclusive) and of that
#     the patch (rec_leaf_patch() inclusive of its CFI lookups) per sample
#     kept, the CFI lookups made (once per object and address) and
#     libdw's instructions per lookup, and the rest of the patch per
#     sample (the map lookup, the cache, the stack read). On
#     xz, and on a fork-heavy run (sh running ls 300 times: 302 processes
#     sharing their objects).
#  2. CPU (user + system) of the whole process tree, median of ROUNDS,
#     for the program alone, under each mode and under perf record -g.
#  3. The innermost edge (the sampled function's caller) of each sample,
#     against --call-graph dwarf's: the share where they agree.
# usage: bench/leaf-cost.sh BUILD [ROUNDS]
set -eu
build=$(cd "$1" && pwd)
rounds=${2:-5}
hw=$build/tools/hwprof
for t in perf xz valgrind callgrind_annotate /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "leaf-cost: $t is not installed (.ci/deps)"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -c 'import random; random.seed(1); print("\n".join(" ".join(random.choice(["alpha","beta","gamma","delta"]) + str(random.randint(0, 999)) for _ in range(12)) for _ in range(8000)))' > "$tmp/text"
work="xz -6 -T1 -c $tmp/text"
ev="-e task-clock -c 200000"

samples() { "$hw" report "$1" 2>/dev/null | awk '/^#   samples:/ { print $3; exit }'; }

echo "1. hwprof record's own instructions (callgrind)"
printf '%-6s %-10s %8s %12s %14s %13s %8s %10s %12s\n' work mode samples Ir sample/sample \
	patch/sample lookups Ir/lookup rest/sample
for w in xz fork; do
	case $w in
	xz) cmd=$work ;;
	fork) cmd="sh -c 'for i in \$(seq 300); do ls / >/dev/null; done'" ;;
	esac
	for mode in flat fp,noleaf g; do
		case $mode in
		flat) opt= ;;
		fp,noleaf) opt='--call-graph fp,noleaf' ;;
		g) opt=-g ;;
		esac
		eval "valgrind --tool=callgrind --callgrind-out-file='$tmp/cg' '$hw' record -q $opt \
			$ev -o '$tmp/d' -- $cmd" >/dev/null 2>"$tmp/vg"
		ir=$(awk '/Collected :/ { print $NF }' "$tmp/vg")
		n=$(samples "$tmp/d")
		callgrind_annotate --inclusive=yes --threshold=100 "$tmp/cg" > "$tmp/ann" 2>/dev/null
		hand=$(awk '/rec-maps.c:rec_on_sample / { gsub(",", "", $1); print $1; exit }' "$tmp/ann")
		patch=$(awk '/rec-leaf.c:rec_leaf_patch / { gsub(",", "", $1); print $1; exit }' "$tmp/ann")
		look=$(awk '/=> .*dwarf_cfi_addrframe \(/ { gsub(/[(x)]/, "", $NF); s += $NF }
			END { print s + 0 }' "$tmp/ann")
		# libdw's share: the lookups themselves and each object's CFI
		lir=$(awk '/=> .*:(dwarf_cfi_addrframe|dwarf_frame_cfa|dwarf_frame_info|dwarf_frame_register|dwarf_getcfi_elf) \(/ {
			gsub(",", "", $1); s += $1 } END { print s + 0 }' "$tmp/ann")
		awk -v w="$w" -v m="$mode" -v n="$n" -v ir="$ir" -v h="${hand:-0}" \
			-v p="${patch:-0}" -v l="$look" -v li="$lir" 'BEGIN {
			printf "%-6s %-10s %8d %12d %14.0f %13.0f %8d %10.0f %12.0f\n", w, m, n, ir,
				h / n, p / n, l, l ? li / l : 0, (p - li) / n }'
	done
done
echo
echo "2. CPU of the whole tree (s), median of $rounds"
cpu() {
	/usr/bin/time -f '%U %S' -o "$tmp/t" "$@" >/dev/null 2>&1 </dev/null || true
	awk '{ printf "%.3f\n", $1 + $2 }' "$tmp/t"
}
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
: > "$tmp/a"; : > "$tmp/n"; : > "$tmp/g"; : > "$tmp/p"
for r in $(seq "$rounds"); do
	# shellcheck disable=SC2086
	cpu $work >> "$tmp/a"
	# shellcheck disable=SC2086
	cpu "$hw" record -q --call-graph fp,noleaf $ev -o "$tmp/n.d" -- $work >> "$tmp/n"
	# shellcheck disable=SC2086
	cpu "$hw" record -q -g $ev -o "$tmp/g.d" -- $work >> "$tmp/g"
	# shellcheck disable=SC2086
	cpu perf record -q -g $ev -o "$tmp/p.perf" -- $work >> "$tmp/p"
done
a=$(med < "$tmp/a") n=$(med < "$tmp/n") g=$(med < "$tmp/g") p=$(med < "$tmp/p")
awk -v a="$a" -v n="$n" -v g="$g" -v p="$p" 'BEGIN {
	printf "%-24s %8s %8s\n", "", "cpu", "added"
	printf "%-24s %8.3f %8s\n", "xz alone", a, "-"
	printf "%-24s %8.3f %8.3f\n", "hwprof fp,noleaf", n, n - a
	printf "%-24s %8.3f %8.3f\n", "hwprof -g (leaf patch)", g, g - a
	printf "%-24s %8.3f %8.3f\n", "perf record -g", p, p - a
}'

echo
echo "3. the sampled function's caller: share of samples with each edge, and"
echo "   the share of samples whose edge --call-graph dwarf also gives"
# shellcheck disable=SC2086
"$hw" record -q --call-graph dwarf $ev -o "$tmp/w.d" -- $work >/dev/null
edges() {	# data file: "caller;function share" per edge, the path's root as (none)
	"$hw" report "$1" --format folded 2>/dev/null | awk '{
		n = split($1, f, ";"); k = n >= 2 ? f[n - 1] ";" f[n] : "(none);" f[n]
		s[k] += $2; t += $2 }
		END { for (k in s) printf "%s %.4f\n", k, s[k] / t }' | sort
}
edges "$tmp/w.d" > "$tmp/ew"
for m in n g; do
	edges "$tmp/$m.d" > "$tmp/e$m"
done
agree() {	# edge file: the summed min of its shares and dwarf's
	join "$1" "$tmp/ew" | awk '{ s += $2 < $3 ? $2 : $3 } END { printf "%.1f %%", 100 * s }'
}
printf '%-24s %s\n' "hwprof fp,noleaf" "$(agree "$tmp/en")"
printf '%-24s %s\n' "hwprof -g (leaf patch)" "$(agree "$tmp/eg")"
echo "top edges, -g:"
sort -k2 -rn "$tmp/eg" | head -4
echo "top edges, fp,noleaf:"
sort -k2 -rn "$tmp/en" | head -4
echo "top edges, dwarf:"
sort -k2 -rn "$tmp/ew" | head -4
