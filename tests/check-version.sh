#!/bin/sh
# SPDX-License-Identifier: MIT
# One version number: meson's project version (VERSION, MAJOR.MINOR.PATCH)
# is the one <hwprof.h>'s HWPROF_VERSION_MAJOR/MINOR/PATCH say, the newest
# HWPROF_ node of the version map is HWPROF_MAJOR.MINOR, `hwprof --version`
# prints it, and every page in man/ says "hwprof VERSION" in its .TH line
# (hwprof(7), VERSIONS). Run by the build (a failure stops it) and as the
# test "version".
# usage: check-version.sh VERSION SRCDIR MAP [HWPROF]
set -u
ver=$1 src=$2 map=$3 hw=${4:-}
rc=0
fail() { echo "FAIL: $*"; rc=1; }

case $ver in
[0-9]*.[0-9]*.[0-9]*) ;;
*) echo "FAIL: project version '$ver' is not MAJOR.MINOR.PATCH"; exit 1 ;;
esac
major=${ver%%.*} rest=${ver#*.}
minor=${rest%%.*} patch=${rest#*.}

for f in MAJOR:$major MINOR:$minor PATCH:$patch; do
	name=HWPROF_VERSION_${f%%:*} want=${f#*:}
	got=$(sed -n "s/^#define $name[[:space:]]\{1,\}\([0-9]\{1,\}\)[[:space:]]*$/\1/p" \
		"$src/include/hwprof.h")
	[ "$got" = "$want" ] ||
		fail "include/hwprof.h: $name is '$got', the project's version $ver says $want"
done

# nodes are "HWPROF_X.Y {" lines; the newest is the last one
node=$(sed -n 's/^\(HWPROF_[0-9][0-9.]*\)[[:space:]]*{.*/\1/p' "$map" | tail -n 1)
[ "$node" = "HWPROF_$major.$minor" ] ||
	fail "$map: the newest node is '$node', the project's version $ver says HWPROF_$major.$minor"

if [ -n "$hw" ]; then
	got=$("$hw" --version 2>&1)
	[ "$got" = "hwprof $ver" ] || fail "'hwprof --version' says '$got', want 'hwprof $ver'"
fi

n=0
for p in "$src"/man/*.[0-9]; do
	th=$(grep -m 1 '^\.TH ' "$p") || continue	# a .so page has none
	n=$((n + 1))
	case $th in
	*" \"hwprof $ver\" "*) ;;
	*) fail "$(basename "$p"): '$th' does not say \"hwprof $ver\"" ;;
	esac
done
[ "$n" -gt 0 ] || fail "no .TH line in $src/man"
[ $rc = 0 ] && echo "version: $ver in meson.build, hwprof.h, $node${hw:+, hwprof --version} and $n pages"
exit $rc
