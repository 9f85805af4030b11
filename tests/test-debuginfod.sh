#!/bin/sh
# SPDX-License-Identifier: MIT
# Names and lines from a debuginfod server (hwprof(1), ENVIRONMENT): a
# stripped copy of tests/cg-prog.c (leaf: 400 page faults) is recorded
# while Debian's debuginfod serves the unstripped one. debuginfod 0.188
# listens on every interface: the server and the recordings run in a
# network namespace of their own whose only interface is loopback; the
# server is bounded in time and stopped on exit.
# usage: test-debuginfod.sh HWPROF CG-PROG
set -u
hw=$1 prog=$2
. "$(dirname "$0")/tlib.sh"

if [ -z "${HWPROF_TEST_NETNS:-}" ]; then
	command -v debuginfod > /dev/null ||
		{ echo "SKIP: debuginfod (the server) is not installed (Debian: debuginfod)"; exit 77; }
	command -v ip > /dev/null ||
		{ echo "SKIP: no ip(8) to bring up loopback (Debian: iproute2)"; exit 77; }
	need_pf
	readelf -S "$prog" | grep -q '\.debug_info' ||
		{ echo "SKIP: $prog was built without -g"; exit 77; }
	if [ "$(id -u)" = 0 ]; then ns="unshare -n"; else ns="unshare -rn"; export HWPROF_TEST_USERNS=1; fi
	$ns true 2> /dev/null ||
		{ echo "SKIP: no network namespace of our own (unshare -n): debuginfod would listen on every interface"; exit 77; }
	HWPROF_TEST_NETNS=1 exec $ns sh "$0" "$@"
fi

tmp=$(mktemp -d) || exit 99
srv=
stop() {
	[ -n "$srv" ] && kill "$srv" 2> /dev/null && wait "$srv"
	rm -rf "$tmp"
}
trap stop EXIT
trap 'exit 1' INT TERM
fail=0
ip link set lo up || { echo "FAIL: loopback up"; exit 1; }

mkdir "$tmp/srv"
# served with its DWARF compressed, as distributions ship debug files
objcopy --compress-debug-sections=zlib "$prog" "$tmp/srv/cg-prog" ||
	{ echo "FAIL: objcopy"; exit 1; }
cp "$prog" "$tmp/prog"
strip "$tmp/prog"
id=$(bid "$tmp/prog")
check "the stripped copy keeps its build-id" test -n "$id" -a "$id" = "$(bid "$prog")"
check "and has neither .symtab nor DWARF" sh -c \
	"! readelf -S '$tmp/prog' | grep -Eq '\\.symtab|\\.debug_info'"

# the only interface is loopback: a fixed port is free. The server runs
# without DEBUGINFOD_URLS: with it, it would ask itself (federation) for
# every build-id it lacks, until the client's timeout
port=8002
url=http://127.0.0.1:$port
timeout 100 env -u DEBUGINFOD_URLS debuginfod -F -p $port -d "$tmp/db" -t 0 -g 0 -c 1 "$tmp/srv" \
	> "$tmp/srv.log" 2>&1 &
srv=$!
# ready when it serves the build-id (at most 20 s)
i=0
until python3 -c "import urllib.request, sys
urllib.request.urlopen('$url/buildid/$id/debuginfo', timeout=2).read()" 2> /dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "FAIL: debuginfod did not serve $id in 20 s"; cat "$tmp/srv.log"; exit 1; }
	kill -0 $srv 2> /dev/null || { echo "FAIL: debuginfod ended"; cat "$tmp/srv.log"; exit 1; }
	sleep 0.2
done

rows() {	# the text rows (no header) of a report
	"$hw" report "$@" 2> /dev/null | awk '!/^#/ && $1 ~ /%$/'
}
# without DEBUGINFOD_URLS: no network, no names, no lines, and --lines says so
env -u DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH="$tmp/cache0" \
	"$hw" record -q -e page-faults -c 1 -o "$tmp/d0" -- "$tmp/prog" paths ||
	{ echo "FAIL: record"; exit 1; }
check "unset: nothing asked of the server (no client cache)" test ! -e "$tmp/cache0"
check "unset: leaf is not named" sh -c "! grep -Eq '^sym 0 .* leaf$' '$tmp/d0'"
check "unset: 400 samples on one unnamed function" sh -c \
	"env -u DEBUGINFOD_URLS '$hw' report '$tmp/d0' 2>/dev/null | grep -Eq ' 400  prog\\+0x[0-9a-f]+ +prog\$'"
env -u DEBUGINFOD_URLS "$hw" report --lines "$tmp/d0" > "$tmp/l0" 2> "$tmp/e0"
check "unset: --lines rows are ??" grep -Eq ' 400  \?\? ' "$tmp/l0"
# (a sanitizer build lists its runtime's objects too)
check "unset: --lines says prog has no lines, and the cure" grep -Eq \
	"^hwprof: warning: --lines: prog[ ,].* no line information \([0-9]+ samples.*set DEBUGINFOD_URLS" "$tmp/e0"
check "unset: and its header says it" grep -Eq '^# warning: --lines: prog[ ,].* no line' "$tmp/l0"

# with it: the names and lines a recording keeps come from the server
export DEBUGINFOD_URLS="$url" DEBUGINFOD_CACHE_PATH="$tmp/cache" DEBUGINFOD_TIMEOUT=60
HWPROF_CACHE_DIR="$tmp/hc" \
	"$hw" record -q -e page-faults -c 1 -o "$tmp/d" -- "$tmp/prog" paths ||
	{ echo "FAIL: record"; exit 1; }
check "record fetched the debug file into libdebuginfod's cache" \
	test -s "$tmp/cache/$id/debuginfo"
check "and, its DWARF compressed, the debug cache holds a copy" \
	test -s "$tmp/hc/$id.debug"
check "the recording keeps leaf's name" grep -Eq '^sym 0 [0-9a-f]+ [0-9a-f]+ leaf$' "$tmp/d"
check "and its line" grep -Eq '^line 0 [0-9a-f]+ [0-9]+ [0-9]+ leaf$' "$tmp/d"
kill $srv && wait $srv
srv=
rm -rf "$tmp/cache"
# the server and its files gone: the recording names leaf on its line
rows "$tmp/d" > "$tmp/r"
check "report: leaf 400" grep -Eq ' 400  leaf +prog$' "$tmp/r"
"$hw" report --lines "$tmp/d" > "$tmp/l" 2> "$tmp/e"
check "report --lines: cg-prog.c:N leaf" grep -Eq ' 400  cg-prog\.c:[0-9]+ +leaf +prog$' "$tmp/l"
check "report --lines: no warning about prog's lines" sh -c \
	"! grep -Eq 'warning: --lines: ([^ ]+, )*prog[ ,]' '$tmp/e'"

# at report: a recording that kept no names (an older file) is named
# from the server when report reads the object from disk, and annotate
# (the file first) shows leaf's source lines
sed '/^kept \|^sym \|^line /d' "$tmp/d0" > "$tmp/d0n"
timeout 100 env -u DEBUGINFOD_URLS debuginfod -F -p $port -d "$tmp/db" -t 0 -g 0 -c 1 "$tmp/srv" \
	> "$tmp/srv.log" 2>&1 &
srv=$!
i=0
until python3 -c "import urllib.request
urllib.request.urlopen('$url/buildid/$id/debuginfo', timeout=2).read()" 2> /dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "FAIL: debuginfod did not serve $id again in 20 s"; exit 1; }
	sleep 0.2
done
"$hw" report --lines "$tmp/d0n" > "$tmp/ln" 2> /dev/null
check "report, names from disk: cg-prog.c:N leaf" \
	grep -Eq ' 400  cg-prog\.c:[0-9]+ +leaf +prog$' "$tmp/ln"
"$hw" annotate leaf "$tmp/d0n" > "$tmp/a" 2>&1
check "annotate: the source line with 400" \
	grep -Eq '^ +400 +100\.00% +[0-9]+ +pool\[used\] = 1;' "$tmp/a"
kill $srv && wait $srv
srv=

# a server that refuses (nothing on port 1): asked, it costs one warning
env DEBUGINFOD_URLS=http://127.0.0.1:1 DEBUGINFOD_CACHE_PATH="$tmp/c1" \
	"$hw" report "$tmp/d0n" > /dev/null 2> "$tmp/e1"
check "a refusing server: one warning" sh -c \
	"[ \$(grep -c '^hwprof: warning: debuginfod: Connection refused' '$tmp/e1') = 1 ]"
# never in a set-user-ID program (AT_SECURE): a copy of hwprof set-user-ID
# to nobody, run by root, asks nothing; the file its --svg writes belongs
# to nobody, which shows the bit took effect
if [ "$(id -u)" = 0 ] && [ -z "${HWPROF_TEST_USERNS:-}" ]; then
	mkdir "$tmp/suid" && chmod 777 "$tmp/suid" && chmod 755 "$tmp"
	cp "$hw" "$tmp/suid/hwprof" && chown 65534 "$tmp/suid/hwprof" &&
		chmod 4755 "$tmp/suid/hwprof" && cp "$tmp/d0n" "$tmp/suid/d" && chmod 644 "$tmp/suid/d"
	env DEBUGINFOD_URLS=http://127.0.0.1:1 DEBUGINFOD_CACHE_PATH="$tmp/suid/c" \
		"$tmp/suid/hwprof" report "$tmp/suid/d" --svg "$tmp/suid/f.svg" > /dev/null 2> "$tmp/e2"
	if [ "$(stat -c %u "$tmp/suid/f.svg" 2> /dev/null)" = 65534 ]; then
		check "set-user-ID: no warning (nothing asked)" sh -c "! grep -q debuginfod '$tmp/e2'"
		check "set-user-ID: no client cache" test ! -e "$tmp/suid/c"
	else
		echo "note: set-user-ID not effective here (nosuid, or a sanitizer build): not checked"
	fi
fi
exit $fail
