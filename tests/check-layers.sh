#!/bin/sh
# SPDX-License-Identifier: MIT
# The layers of lib/ and tools/ (lib/meson.build): each folder includes
# only the folders below it, and the hwprof command does not carry the
# in-process engine. Arrows allowed, from the bottom up:
#   lib/perf, lib/hist      nothing of hwprof's (lib/hist: the public header)
#   lib/profile             lib/perf, lib/hist (sat.h)
#   lib/engine              lib/perf, lib/hist
#   lib/compat              lib/engine, lib/profile (outfile.h)
#   lib/mpi                 lib/engine, lib/profile
#   tools/                  lib/perf, lib/profile (never lib/engine)
# usage: check-layers.sh SRCDIR HWPROF (the command, as built)
set -u
src=$1 cmd=$2
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# the folders a folder's files reach with #include "..", by path or by the
# name of a header that lives in another folder of lib/
reach() {	# folder
	grep -hoE '^#include "[^"]*"' "$src/$1"/*.[ch] "$src/$1"/*/*.[ch] 2>/dev/null |
		sed -E 's/#include "(.*)"/\1/' | sort -u
}
check() {	# folder, allowed folders (regex of lib/ names)
	for h in $(reach "$1"); do
		case $h in
		../*) d=$(echo "$h" | sed -E 's|^(\.\./)+||; s|^lib/||; s|/[^/]*$||') ;;
		*/*) continue ;;	# a public header (include/)
		internal.h|engine.h) d=engine ;;
		perf.h|elfsym.h|sample.h) d=perf ;;
		hist.h|sat.h|cct.h|htab.h) d=hist ;;
		data.h|symbols.h|names.h|outfile.h) d=profile ;;
		*) continue ;;
		esac
		case $d in
		events|"$(basename "$1")") ;;
		*) echo "$d" | grep -qxE "$2" || bad "$1 includes $h (lib/$d)" ;;
		esac
	done
}
check lib/perf 'none'
check lib/hist 'none'
check lib/profile 'perf|hist'
check lib/engine 'perf|hist'
check lib/compat 'engine|profile|hist|perf'
check lib/mpi 'engine|profile|hist|perf'
check tools 'perf|profile|hist'
[ $fail = 0 ] && echo "ok: every include runs down the layers"

# the command: nothing of the engine, and the libc's pthread_create only
if ! nm "$cmd" > /dev/null 2>&1 || [ -z "$(nm "$cmd" 2>/dev/null | head -1)" ]; then
	echo "SKIP part: $cmd has no symbol table (stripped)"
else
	eng=$(nm --defined-only "$cmd" |
		awk '{ print $3 }' | grep -E '^(pthread_create|hwp_session_|hwp_drain|hwp_threads_attach|hwp_spawn_hook|hwp_follow_init|hwp_crings_|hwp_guard_|hwp_objects_|hwprof_)' | head -5)
	if [ -n "$eng" ]; then
		bad "the command defines engine symbols: $(echo $eng)"
	else
		echo "ok: the command defines no pthread_create and nothing of the engine"
	fi
	nm "$cmd" | grep -q ' U pthread_create' && echo "ok: its threads are libc's" ||
		echo "note: the command makes no threads"
fi
exit $fail
