#!/bin/sh
# SPDX-License-Identifier: MIT
# The two routes of profiling an MPI job against the job alone
# (bench/README.md, "The record route against the preload route"):
# bench/mpi-stencil (-O2 -g, computes for a few seconds) at NP ranks,
# rounds interleaving the job alone, with libhwprof-mpi preloaded (the
# preload route: one job file) and under `mpirun hwprof record -o
# DIR/%r.data` (the record route: a file a rank), both with their
# defaults (task-clock, 1 ms), the name cache cold (HWPROF_CACHE_DIR a
# fresh directory each run) and warm (one directory kept, filled by a
# recording of each route before the rounds). Prints the median wall time
# of mpirun and CPU (user + system of the whole tree) of each, and the
# ratios of the wall times. Then the recorders' own share, rank by rank
# (each hwprof record and its command timed apart, /usr/bin/time): the
# CPU the 8 recorders took beyond their commands', and how long the
# slowest one lasted past its command (naming, writing).
# usage: bench/mpi-record.sh BUILDDIR [ROUNDS [NP [ARGS...]]]
#   ARGS: mpi-stencil's N SWEEPS CG (default its own)
#   BASE=OTHERBUILD: also the record route with that build's hwprof (an
#   older commit's), in the same rounds: rows record-cold-base and
#   record-warm-base
#   ONLY=own: the recorders' own share alone (no wall-time rounds)
set -eu
b=$1
rounds=${2:-3}
np=${3:-8}
if [ $# -gt 3 ]; then shift 3; else set --; fi
app=$b/bench/mpi-stencil
hw=$b/tools/hwprof
lib=$b/lib/mpi/libhwprof-mpi.so
for f in "$app" "$hw" "$lib"; do
	[ -e "$f" ] || { echo "mpi-record.sh: no $f (built without MPI?)" >&2; exit 1; }
done
flags="--oversubscribe --bind-to none"
[ "$(id -u)" = 0 ] && flags="$flags --allow-run-as-root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/warm" "$tmp/warmb"
BASE=${BASE:-}

# run KIND NAME CACHEDIR [ARGS...]: one job, "wall_ms cpu_s" appended to $tmp/NAME
run() {
	k=$1 n=$2 c=$3
	shift 3
	rm -rf "$tmp/out" && mkdir "$tmp/out"
	t0=$(date +%s%N)
	case $k in
	alone)
		# shellcheck disable=SC2086
		/usr/bin/time -f '%U %S' -o "$tmp/cpu" mpirun $flags -np "$np" \
			"$app" "$@" >/dev/null ;;
	preload)
		# shellcheck disable=SC2086
		/usr/bin/time -f '%U %S' -o "$tmp/cpu" mpirun $flags -np "$np" \
			-x HWPROF_CACHE_DIR="$c" -x LD_PRELOAD="$lib" \
			-x HWPROF_OUTPUT="$tmp/out/job.data" "$app" "$@" >/dev/null 2>&1 ;;
	record | base)
		h=$hw
		[ "$k" = base ] && h=$BASE/tools/hwprof
		# shellcheck disable=SC2086
		/usr/bin/time -f '%U %S' -o "$tmp/cpu" mpirun $flags -np "$np" \
			-x HWPROF_CACHE_DIR="$c" "$h" record -q -o "$tmp/out/%r.data" \
			-- "$app" "$@" >/dev/null ;;
	esac
	t=$((($(date +%s%N) - t0) / 1000000))
	echo "$t $(awk '{ print $1 + $2 }' "$tmp/cpu")" >>"$tmp/$n"
}
ONLY=${ONLY:-}
echo "mpi-stencil at $np ranks on $(nproc) CPUs ($([ "$np" -gt "$(nproc)" ] && echo oversubscribed || echo not oversubscribed)), $rounds rounds"
# warm: one recording of each route fills the cache the warm runs keep
[ "$ONLY" = own ] && rounds0=$rounds rounds=0
[ "$ONLY" = own ] || run preload fill "$tmp/warm" "$@"
[ "$ONLY" = own ] || run record fill "$tmp/warm" "$@"
if [ -n "$BASE" ] && [ "$ONLY" != own ]; then
	run preload fill "$tmp/warmb" "$@"
	run base fill "$tmp/warmb" "$@"
fi
i=0
while [ "$i" -lt "$rounds" ]; do
	i=$((i + 1))
	run alone alone "" "$@"
	rm -rf "$tmp/cold" && mkdir "$tmp/cold"
	run preload preload-cold "$tmp/cold" "$@"
	rm -rf "$tmp/cold" && mkdir "$tmp/cold"
	run record record-cold "$tmp/cold" "$@"
	run preload preload-warm "$tmp/warm" "$@"
	run record record-warm "$tmp/warm" "$@"
	if [ -n "$BASE" ]; then
		rm -rf "$tmp/cold" && mkdir "$tmp/cold"
		run base record-cold-base "$tmp/cold" "$@"
		run base record-warm-base "$tmp/warmb" "$@"
	fi
	ls "$tmp/out"/*.data >/dev/null	# the last one left its rank files
done
# median of column C of file F
med() {
	sort -n -k"$2" "$tmp/$1" | awk -v c="$2" '{ v[NR] = $c }
		END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
if [ "$ONLY" != own ]; then
printf '%-13s %8s %8s   %s\n' run wall_ms cpu_s "walls of the rounds (ms)"
rows="alone preload-cold record-cold preload-warm record-warm"
[ -n "$BASE" ] && rows="$rows record-cold-base record-warm-base"
for n in $rows; do
	printf '%-13s %8s %8s   %s\n' "$n" "$(med "$n" 1)" "$(med "$n" 2)" \
		"$(awk '{ printf "%s ", $1 }' "$tmp/$n")"
done
a=$(med alone 1)
for c in cold warm; do
	p=$(med "preload-$c" 1) r=$(med "record-$c" 1)
	# and the median of each round's own record/preload (the two ran
	# one after the other: less of the machine's drift between them)
	paste "$tmp/record-$c" "$tmp/preload-$c" | awk '{ print $1 / $3 }' >"$tmp/q-$c"
	if [ -n "$BASE" ]; then
		q=$(med "record-$c-base" 1)
		echo "cache $c, BASE: record/alone $(echo "scale=3; $q / $a" | bc)  record/preload $(echo "scale=3; $q / $p" | bc)"
	fi
	echo "cache $c: record/alone $(echo "scale=3; $r / $a" | bc)  preload/alone $(echo "scale=3; $p / $a" | bc)  record/preload $(echo "scale=3; $r / $p" | bc)  (median of the rounds' own: $(med "q-$c" 1))"
done
fi
[ "$ONLY" = own ] && rounds=$rounds0

# own NAME HWPROF CACHEDIR [ARGS...]: "cpu_s tail_ms" appended to $tmp/NAME
own() {
	n=$1 h=$2 c=$3
	shift 3
	rm -rf "$tmp/out" "$tmp/t" && mkdir "$tmp/out" "$tmp/t"
	# shellcheck disable=SC2086,SC2016
	mpirun $flags -np "$np" -x HWPROF_CACHE_DIR="$c" sh -c '
		r=$OMPI_COMM_WORLD_RANK t=$1 h=$2
		shift 2
		exec /usr/bin/time -o "$t/r.$r" -f "%e %U %S" "$h" record -q \
			-o "$t/../out/$r.data" -- /usr/bin/time -o "$t/a.$r" -f "%e %U %S" "$@"' \
		sh "$tmp/t" "$h" "$app" "$@" >/dev/null
	for r in $(seq 0 $((np - 1))); do
		echo "$(cat "$tmp/t/r.$r") $(cat "$tmp/t/a.$r")"
	done | awk '{ cpu += $2 + $3 - $5 - $6; t = ($1 - $4) * 1000; if (t > tail) tail = t }
		END { printf "%.3f %d\n", cpu, tail }' >>"$tmp/$n"
}
echo "== the recorders' own: CPU of the $np beyond their commands' (s), the last one's time past its command (ms)"
builds="new:$hw"
[ -n "$BASE" ] && builds="$builds base:$BASE/tools/hwprof"
for bh in $builds; do
	rm -rf "$tmp/w-${bh%%:*}" && mkdir "$tmp/w-${bh%%:*}"
	own fill "${bh#*:}" "$tmp/w-${bh%%:*}" "$@"
done
i=0
while [ "$i" -lt "$rounds" ]; do
	i=$((i + 1))
	for bh in $builds; do
		rm -rf "$tmp/cold" && mkdir "$tmp/cold"
		own "own-cold-${bh%%:*}" "${bh#*:}" "$tmp/cold" "$@"
		own "own-warm-${bh%%:*}" "${bh#*:}" "$tmp/w-${bh%%:*}" "$@"
	done
done
printf '%-16s %8s %8s   %s\n' run cpu_s tail_ms "rounds (cpu_s/tail_ms)"
for bh in $builds; do
	for c in cold warm; do
		n=own-$c-${bh%%:*}
		printf '%-16s %8s %8s   %s\n' "$n" "$(med "$n" 1)" "$(med "$n" 2)" \
			"$(awk '{ printf "%s/%s ", $1, $2 }' "$tmp/$n")"
	done
done
