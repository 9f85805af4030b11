#!/bin/sh
# SPDX-License-Identifier: MIT
# hwprof report on the rank files of an MPI job: N files (64 and 512 by
# default), each one rank of one program with 3 real objects (the hwprof
# binary, libc, libelf) and KEYS sample keys in each, at addresses inside
# their functions so every sample is symbolized. Times `hwprof report DIR`
# and `hwprof report --ranks DIR`: best of 3, wall clock.
# usage: bench/merge.sh BUILD [KEYS [N...]]   (BUILD: a meson build directory)
set -eu
b=$1
keys=${2:-1000}
shift $(($# < 2 ? $# : 2))
ns=${*:-64 512}
hw=$b/tools/hwprof gen=$b/tests/rp-data-gen
[ -x "$hw" ] && [ -x "$gen" ] || { echo "build $b first (tools and tests)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
libc=$(ldd "$hw" | awk '$1 ~ /^libc\.so/ { print $3 }')
libelf=$(ldd "$hw" | awk '$1 ~ /^libelf\.so/ { print $3 }')
bid() {
	readelf -n "$1" | awk '/Build ID/ { print $3; exit }'
}
# "OBJECT ADDR SIZE" of the functions of each object (symbols, else the
# dynamic ones)
i=0
for o in "$hw" "$libc" "$libelf"; do
	{ nm -S --defined-only "$o" 2>/dev/null | grep -q ' [Tt] ' &&
		nm -S --defined-only "$o" || nm -D -S --defined-only "$o"; } |
		awk -v i=$i '($3 == "T" || $3 == "t") && $2 !~ /^0+$/ { print i, $1, $2 }'
	i=$((i + 1))
done > "$tmp/funcs"
# one spec per rank: the same keys in every rank, counts that differ
mkspec() {	# rank size
	awk -v r="$1" -v size="$2" -v keys="$keys" -v hw="$hw" -v libc="$libc" \
	    -v libelf="$libelf" -v b0="$(bid "$hw")" -v b1="$(bid "$libc")" \
	    -v b2="$(bid "$libelf")" '
	function hex(h,    v, i) {
		v = 0
		for (i = 1; i <= length(h); i++)
			v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
		return v
	}
	{ n[$1]++; a[$1, n[$1]] = hex($2); s[$1, n[$1]] = hex($3) }
	END {
		print "command ./app"
		print "host node" int(r / 16)
		print "rank " r " " size
		print "program " b0 " " hw
		print "event task-clock 1000000 " keys * 3 " 0 0 0 -"
		print "process " 1000 + r " 0 ./app"
		print "thread " 1000 + r " 0 app"
		print "object " b0 " " hw
		print "object " b1 " " libc
		print "object " b2 " " libelf
		for (o = 0; o < 3; o++)
			for (k = 0; k < keys; k++) {
				j = (k * 7919) % n[o] + 1
				off = (k * 13) % s[o, j]
				printf "s 0 0 %d %x %d\n", o, a[o, j] + off,
					1 + (k * 31 + r * 17) % 50 + (k == 0 ? r : 0)
			}
	}' "$tmp/funcs"
}
best() {	# best wall time of 3 runs of the command, in seconds
	for t in 1 2 3; do
		/usr/bin/time -f "%e" "$@" 2>&1 >/dev/null | tail -1
	done | sort -n | head -1
}
echo "objects: $hw, $libc, $libelf; $keys sample keys each per rank"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs"
for n in $ns; do
	d=$tmp/r$n
	mkdir "$d"
	r=0
	while [ $r -lt "$n" ]; do
		mkspec $r "$n" > "$tmp/spec"
		"$gen" "$(printf '%s/rank%05d.data' "$d" $r)" < "$tmp/spec"
		r=$((r + 1))
	done
	echo "$n rank files, $(cat "$d"/*.data | wc -l) lines, $(du -sm "$d" | cut -f1) MB:"
	echo "  hwprof report DIR:         $(best "$hw" report "$d") s (best of 3)"
	echo "  hwprof report --ranks DIR: $(best "$hw" report --ranks "$d") s (best of 3)"
	rm -rf "$d"
done
