#!/bin/sh
# SPDX-License-Identifier: MIT
# The library exports exactly the functions the headers declare as API,
# each listed in the version map and documented by a page in man/; the
# functions it binds in place of glibc's carry the default version node
# of the host's libc (the nodes meson.build picks per architecture).
# usage: check-abi.sh SRCDIR LIBHWPROF.so MAP (the build's lib/hwprof.map)
set -u
src=$1 lib=$2 map=$3
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

nm -D --defined-only "$lib" | awk '$2 ~ /^[TtWiDdBb]$/ { print $3 }' |
	sed 's/@.*//' | grep -v '^HWPROF_' | sort -u > "$tmp/exports"
# API nodes are HWPROF_*; GLIBC_* nodes hold interposers (pthread_create),
# exported on purpose, declared by libc's headers, documented in man/.
awk '/^HWPROF_/ { api = 1 } /^GLIBC_/ { api = 0 } api' "$map" |
	grep -oE '^[[:space:]]+[A-Za-z_][A-Za-z0-9_]*;' | tr -d ' \t;' |
	sort -u > "$tmp/map"
awk '/^GLIBC_/ { ip = 1 } /^HWPROF_/ { ip = 0 } ip' "$map" |
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
	echo "FAIL: exports differ from $map (< exported, > map):"
	diff "$tmp/exports" "$tmp/all" | grep '^[<>]'
	rc=1
fi
if ! cmp -s "$tmp/api" "$tmp/map"; then
	echo "FAIL: HWPROF_API prototypes differ from $map (< headers, > map):"
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
# glibc's nodes: NAME@@NODE in the host's libc (its default, the one a
# program links against) and the same in ours
libc=$(ldd "$lib" | awk '$1 == "libc.so.6" { print $3 }')
[ -r "$libc" ] || { echo "FAIL: no libc.so.6 in 'ldd $lib'"; exit 1; }
nm -D --defined-only "$libc" | awk '{ print $NF }' > "$tmp/libc"
nm -D --defined-only "$lib" | awk '{ print $NF }' > "$tmp/ours"
awk '/^GLIBC_[0-9.]+ *{/ { node = $1 } /^}/ { node = "" }
     node && /^[[:space:]]+[A-Za-z_][A-Za-z0-9_]*;/ { sub(/;/, ""); print $1 "@@" node }' \
	"$map" > "$tmp/glibc"
[ -s "$tmp/glibc" ] || { echo "FAIL: no GLIBC_ node in $map"; rc=1; }
while read -r v; do
	grep -qxF "$v" "$tmp/libc" ||
		{ echo "FAIL: $v: $libc's default version of ${v%%@*} is $(grep "^${v%%@*}@@" "$tmp/libc")"; rc=1; }
	grep -qxF "$v" "$tmp/ours" || { echo "FAIL: $lib does not export $v"; rc=1; }
done < "$tmp/glibc"
n=$(wc -l < "$tmp/exports")
[ "$n" -gt 0 ] || { echo "FAIL: no exports found in $lib"; exit 1; }
[ $rc = 0 ] && echo "abi: $n exports match the map, the headers and man/;" $(tr '\n' ' ' < "$tmp/glibc") "as in $libc"
exit $rc
