#!/bin/sh
# SPDX-License-Identifier: MIT
# libhwprof-mpi at 2, 4 and 8 ranks on this machine (bench/README.md,
# "MPI jobs"): the reduction alone on synthetic profiles (mpi-reduce), and
# a whole job with and without the library preloaded (wall time of
# mpirun, best of 3).
# usage: bench/mpi.sh BUILDDIR
set -eu
b=$1
flags="--oversubscribe --bind-to none"
[ "$(id -u)" = 0 ] && flags="$flags --allow-run-as-root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "== reduction of synthetic profiles (20000 addresses, 2000 functions a rank)"
for np in 2 4 8; do
	# shellcheck disable=SC2086
	mpirun $flags -np $np "$b/bench/mpi-reduce" 20000 2000 0
done
echo "== the same, 10 % of each rank's keys its own (no other rank has them)"
for np in 2 4 8; do
	# shellcheck disable=SC2086
	mpirun $flags -np $np "$b/bench/mpi-reduce" 20000 2000 10
done
best() {	# best wall time of 3 runs of the command, in ms
	m=
	for _ in 1 2 3; do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1
		t=$((($(date +%s%N) - t0) / 1000000))
		[ -z "$m" ] || [ "$t" -lt "$m" ] && m=$t
	done
	echo "$m"
}
echo "== a job of mpi-app (page faults), mpirun wall time, best of 3"
for np in 2 4 8; do
	# shellcheck disable=SC2086
	plain=$(best mpirun $flags -np $np "$b/tests/mpi-app" 2000)
	# shellcheck disable=SC2086
	prof=$(best mpirun $flags -np $np -x LD_PRELOAD="$b/lib/mpi/libhwprof-mpi.so" \
		-x HWPROF_EVENT=page-faults -x HWPROF_PERIOD=1 -x HWPROF_OUTPUT="$tmp/job.data" \
		"$b/tests/mpi-app" 2000)
	echo "ranks $np  plain ${plain} ms  libhwprof-mpi ${prof} ms  ratio $(echo "scale=2; $prof / $plain" | bc)"
done
