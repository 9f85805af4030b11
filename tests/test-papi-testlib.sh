#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs hwprof into a scratch root, then builds a PAPI-style test
# library (tests/papi-testlib) and programs on it as a PAPI user would:
# `cc $(pkg-config --cflags --libs hwprof-papi)`, with implicit
# declarations as errors, and runs each program.
# usage: test-papi-testlib.sh SRCDIR BUILDDIR CC
set -u
src=$1 build=$2 cc=$3
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet >/dev/null ||
	{ echo "ERROR: meson install failed"; exit 99; }
pcdir=$(dirname "$(find "$tmp/root" -name hwprof-papi.pc | head -n 1)")
[ -d "$pcdir" ] || { echo "ERROR: no hwprof-papi.pc installed"; exit 99; }
mkdir "$tmp/pc"
for f in "$pcdir"/hwprof*.pc; do	# the scratch root is the prefix
	sed "s|^prefix=|prefix=$tmp/root|" "$f" > "$tmp/pc/$(basename "$f")"
done
flags=$(PKG_CONFIG_PATH=$tmp/pc pkg-config --cflags --libs hwprof-papi) ||
	{ echo "FAIL: pkg-config hwprof-papi"; exit 1; }
libdir=$(PKG_CONFIG_PATH=$tmp/pc pkg-config --variable=libdir hwprof)
t=$src/tests/papi-testlib
cflags="-Wall -Werror=implicit-function-declaration -Werror=incompatible-pointer-types"
$cc $cflags -c "$t/papi_tlib.c" -o "$tmp/papi_tlib.o" $flags ||
	{ echo "FAIL: the test library does not compile"; exit 1; }
rc=0
for p in tl-describe tl-overflow-read tl-profile; do
	if ! $cc $cflags "$t/$p.c" "$tmp/papi_tlib.o" -o "$tmp/$p" $flags \
		-Wl,-rpath,"$libdir"; then
		echo "FAIL: $p does not build"
		rc=1
		continue
	fi
	"$tmp/$p"
	r=$?
	[ $r = 0 ] || { echo "FAIL: $p exited $r"; rc=1; }
done
exit $rc
