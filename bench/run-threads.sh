#!/bin/sh
# SPDX-License-Identifier: MIT
# The engine at thread scale, as an unprivileged user (bench/README.md):
# 1, 16, 256 and 1024 spinning threads under a process-wide task-clock
# session at 1 kHz and 10 kHz a thread.
# usage: bench/run-threads.sh BUILDDIR [SECONDS] [MODE...]  (bench/threads.c)
set -eu
b=${1:-build}
secs=${2:-3}
shift 2 || shift $#
modes=${*:-parked late spin}
run=
if [ "$(id -u)" = 0 ]; then
	run="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all"
fi
printf '%-7s %-8s %-7s %-6s %-5s %-10s %-5s %-9s %-8s %-8s %-6s %-6s %s\n' mode threads period uid pages locked_KiB fds start_ms stop_ms samples lost missed drain_ns/sample
for m in $modes; do
	for n in 1 16 256 1024; do
		for p in 1000000 100000; do
			$run "$b/bench/threads" "$n" "$p" "$secs" "$m" |
				awk '{ printf "%-7s %-8s %-7s %-6s %-5s %-10s %-5s %-9s %-8s %-8s %-6s %-6s %s\n", $13, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12 }'
		done
	done
done
