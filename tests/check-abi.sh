#!/bin/sh
# SPDX-License-Identifier: MIT
# The library exports exactly the functions the headers declare as API,
# each listed in lib/hwprof.map and documented by a page in man/.
# usage: check-abi.sh SRCDIR LIBHWPROF.so
set -u
src=$1 lib=$2
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

nm -D --defined-only "$lib" | awk '$2 ~ /^[TtWiDdBb]$/ { print $3 }' |
	sed 's/@.*//' | grep -v '^HWPROF_' | sort -u > "$tmp/exports"
# API nodes are HWPROF_*; GLIBC_* nodes hold interposers (pthread_create),
# exported on purpose, declared by libc's headers, documented in man/.
awk '/^HWPROF_/ { api = 1 } /^GLIBC_/ { api = 0 } api' "$src/lib/hwprof.map" |
	grep -oE '^[[:space:]]+[A-Za-z_][A-Za-z0-9_]*;' | tr -d ' \t;' |
	sort -u > "$tmp/map"
awk '/^GLIBC_/ { ip = 1 } /^HWPROF_/ { ip = 0 } ip' "$src/lib/hwprof.map" |
	grep -oE '^[[:space:]]+[A-Za-z_][A-Za-z0-9_]*;' | tr -d ' \t;' |
	sort -u > "$tmp/interposed"
sort -u "$tmp/map" "$tmp/interposed" > "$tmp/all"
cat "$src"/include/*.h "$src"/include/*/*.h "$src"/include/*/*/*.h 2>/dev/null |
	grep -v '^[[:space:]]*#' | tr '\n' ' ' > "$tmp/hdr"
grep -oE 'HWPROF_API [^;(]*\(' "$tmp/hdr" |
	sed -E 's/.*[ *]([A-Za-z_][A-Za-z0-9_]*)\($/\1/' | sort -u > "$tmp/fn"
# data: HWPROF_API extern TYPE NAME;
grep -oE 'HWPROF_API extern [^;(]*;' "$tmp/hdr" |
	sed -E 's/.*[ *]([A-Za-z_][A-Za-z0-9_]*);$/\1/' | sort -u > "$tmp/data"
sort -u "$tmp/fn" "$tmp/data" > "$tmp/api"

rc=0
if ! cmp -s "$tmp/exports" "$tmp/all"; then
	echo "FAIL: exports differ from lib/hwprof.map (< exported, > map):"
	diff "$tmp/exports" "$tmp/all" | grep '^[<>]'
	rc=1
fi
if ! cmp -s "$tmp/api" "$tmp/map"; then
	echo "FAIL: HWPROF_API prototypes differ from lib/hwprof.map (< headers, > map):"
	diff "$tmp/api" "$tmp/map" | grep '^[<>]'
	rc=1
fi
while read -r f; do
	if grep -qx "$f" "$tmp/data"; then	# a variable: named in a page
		grep -qw -- "$f" "$src"/man/*.[37] ||
			{ echo "FAIL: variable $f is documented in no page"; rc=1; }
	elif ! ls "$src"/man/"$f".3* >/dev/null 2>&1; then
		echo "FAIL: $f has no page man/$f.3"
		rc=1
	fi
done < "$tmp/map"
while read -r f; do
	grep -qw "$f" "$src"/man/*.[37] ||
		{ echo "FAIL: interposed $f is documented in no page"; rc=1; }
done < "$tmp/interposed"
n=$(wc -l < "$tmp/exports")
[ "$n" -gt 0 ] || { echo "FAIL: no exports found in $lib"; exit 1; }
[ $rc = 0 ] && echo "abi: $n exports match the map, the headers and man/"
exit $rc
