#!/bin/sh
# SPDX-License-Identifier: MIT
# Every page in man/ renders without a groff warning, has a NAME section
# lexgrog can parse, and names in SEE ALSO only pages that exist (in man/
# or on this system).
# usage: check-man.sh SRCDIR
set -u
src=$1
rc=0 n=0
bad=$(mktemp) || exit 99
trap 'rm -f "$bad"' EXIT
for p in "$src"/man/*.[0-9]*; do
	n=$((n + 1))
	b=$(basename "$p")
	if head -n 1 "$p" | grep -q '^\.so '; then
		t=$(head -n 1 "$p" | sed 's/^\.so //; s/hwprof$//')
		[ -f "$src/man/$(basename "$t")" ] ||
			{ echo "FAIL: $b: .so target $t missing"; rc=1; }
		continue
	fi
	w=$(groff -man -ww -z "$p" 2>&1)
	[ -z "$w" ] || { echo "FAIL: $b: groff: $w"; rc=1; }
	lexgrog "$p" >/dev/null 2>&1 || { echo "FAIL: $b: lexgrog cannot parse NAME"; rc=1; }
	for sec in NAME SYNOPSIS DESCRIPTION "SEE ALSO"; do
		case "$b" in *.1|*.5|*.7) [ "$sec" = SYNOPSIS ] && continue ;; esac
		grep -q "^\.SH \"\{0,1\}$sec\"\{0,1\}\$" "$p" ||
			{ echo "FAIL: $b: no $sec section"; rc=1; }
	done
	# SEE ALSO entries: .BR name (sec)
	sed -n '/^\.SH "\{0,1\}SEE ALSO/,/^\.SH/p' "$p" | grep '^\.BR ' |
	while read -r _ name sec _; do
		name=$(printf '%s' "$name" | sed 's/\\-/-/g')
		s=$(echo "$sec" | tr -d '(),')
		[ -f "$src/man/$name.$s" ] && continue
		[ -f "$src/man/$name.${s%hwprof}" ] && continue	# installed as .3hwprof
		man -w "$s" "$name" >/dev/null 2>&1 && continue
		echo "FAIL: $b: SEE ALSO $name($s) not found" | tee -a "$bad"
	done
done
[ -s "$bad" ] && rc=1
[ "$n" -gt 0 ] || { echo "FAIL: no pages in man/"; exit 1; }
[ $rc = 0 ] && echo "man: $n pages clean"
exit $rc
