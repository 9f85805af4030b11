#!/bin/sh
# SPDX-License-Identifier: MIT
# Threads and call paths of a hybrid MPI + OpenMP job through both routes
# (libhwprof-mpi(7), "Threads" and "Call paths"): 2 ranks of mpi-omp, each
# with 2 OpenMP threads, the worker touching 2N fresh pages in omp_work
# and the main thread N, called as omp_phase -> omp_work. The job file of
# libhwprof-mpi (HWPROF_MPI_PATHS=1) gives each rank's worker thread its
# 2N page faults (the threads are made before MPI_Init, where it starts),
# the rank files of hwprof record -g the worker's 2N in omp_work, and
# both the same caller chain; HWPROF_MPI_THREADS=1 keeps one thread a
# rank and a row of the rest.
# usage: test-mpi-threads.sh HWPROF LIBHWPROF-MPI MPI-OMP
set -u
hw=$1 lib=$2 app=$3
N=200
if [ "$app" = none ]; then
	echo "SKIP: meson found no MPI or no OpenMP when hwprof was configured"
	exit 77
fi
if ! command -v mpirun >/dev/null 2>&1; then
	echo "SKIP: no mpirun in PATH"
	exit 77
fi
case "${MPI_TEST_SANITIZE:-none}" in
*thread*)
	# as in test-mpi.sh: TSan's runtime cannot come in after an
	# instrumented libhwprof-mpi in an uninstrumented program
	echo "SKIP: an instrumented libhwprof-mpi in an uninstrumented MPI program: TSan cannot run that"
	exit 77
	;;
esac
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$(dirname "$0")/tlib.sh"
flags="--oversubscribe --bind-to none"
[ "$(id -u)" = 0 ] && flags="$flags --allow-run-as-root"
run() {
	np=$1
	shift
	# shellcheck disable=SC2086
	mpirun $flags -np "$np" -x ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0 "$@"
}
pf() {	# page faults can be sampled here (the test's numbers are theirs)
	"$hw" record -q -e page-faults -c 1 -o "$tmp/probe.data" -- true 2>/dev/null
}
if ! pf; then
	echo "SKIP: page faults cannot be sampled here"
	exit 77
fi

# each rank's worker: "rank samples" of the thread that is not the
# rank's main thread (tid = pid) with most samples, from --threads CSV
# (percent,samples,tid,pid,comm,top_function,top_samples,rank)
workers() {
	"$hw" report --threads --format csv "$1" 2>/dev/null |
		awk -F, 'NR > 1 && $3 != $4 && $3 != "-" { gsub(/"/, ""); if ($2 > w[$8]) w[$8] = $2 }
			END { for (r in w) print r, w[r] }' | sort -n | tr '\n' ' '
}
mains() {	# each rank's main thread: "rank samples"
	"$hw" report --threads --format csv "$1" 2>/dev/null |
		awk -F, 'NR > 1 && $3 == $4 { print $8, $2 }' | sort -n | tr '\n' ' '
}

# --- libhwprof-mpi: a job file with threads and paths
check "mpirun of mpi-omp, libhwprof-mpi preloaded, HWPROF_MPI_PATHS=1" run 2 \
	-x LD_PRELOAD="$lib" -x HWPROF_EVENT=page-faults -x HWPROF_PERIOD=1 \
	-x HWPROF_MPI_PATHS=1 -x HWPROF_OUTPUT="$tmp/job.data" "$app" $N
job=$tmp/job.data
eq "job file: each rank's worker (tt line) has its 2N page faults" "$(workers "$job")" \
	"0 $((2 * N)) 1 $((2 * N)) "
for r in 0 1; do
	pid=$(awk -v r=$r '$1 == "process" && $5 == r { print $3 }' "$job")
	m=$(mains "$job" | awk -v r=$r '{ for (i = 1; i < NF; i += 2) if ($i == r) print $(i + 1) }')
	check "job file: rank $r's main thread ($pid) has at least its N faults ($m)" \
		[ "${m:-0}" -ge $N ]
	# thread I PROC TID COMM; tt THREAD EVENT SAMPLES; rt PROC EVENT SAMPLES MPI
	eq "job file: rank $r's threads add up to its samples (rt)" \
		"$(awk -v r=$r '$1 == "thread" && $3 == r { t[$2] = 1 } $1 == "tt" && ($2 in t) { s += $4 } END { print s + 0 }' "$job")" \
		"$(awk -v r=$r '$1 == "rt" && $2 == r { print $4 }' "$job")"
done
check "job file: a paths line" grep -q '^paths 0 fp ' "$job"
eq "job file: its c lines (thread -) add up to the paths line's samples" \
	"$(awk '$1 == "c" && $3 == "-" { s += $5 } END { print s + 0 }' "$job")" \
	"$(awk '$1 == "paths" { print $4 }' "$job")"
"$hw" report --callers omp_work "$job" >"$tmp/jc.txt" 2>/dev/null
eq "job file: --callers omp_work: omp_phase, with all 6N samples" \
	"$(awk '$3 == "omp_phase" { print $2 }' "$tmp/jc.txt")" "$((6 * N))"
# the region's outlined function: main._omp_fn.0 (gcc), .omp_outlined.*
# (clang)
region='_omp_fn|omp_outlined'
"$hw" report --callers omp_phase "$job" >"$tmp/jc2.txt" 2>/dev/null
eq "job file: --callers omp_phase: the OpenMP region's function" \
	"$(awk -v f="$region" '$3 ~ f { s += $2 } END { print s + 0 }' "$tmp/jc2.txt")" "$((6 * N))"
"$hw" report --tree top-down "$job" 2>/dev/null |
	awk '{ print $3 }' | grep -B1 -A1 '^omp_phase$' | head -3 | tr '\n' ' ' >"$tmp/tree"
eq "job file: --tree: the region's function -> omp_phase -> omp_work" \
	"$(sed -E 's/[^ ]*(_omp_fn|omp_outlined)[^ ]*/F/' "$tmp/tree")" "F omp_phase omp_work "
"$hw" report --processes "$job" 2>/dev/null >"$tmp/p.txt"
check "job file: --processes has a rank column" grep -q '^ *percent *samples *pid *rank ' "$tmp/p.txt"
"$hw" report --threads "$job" 2>/dev/null >"$tmp/t.txt"
check "job file: --threads has a rank column" grep -q '^ *percent *samples *tid *pid *rank ' "$tmp/t.txt"

# --- hwprof record -g under mpirun: a rank file each
mkdir "$tmp/rec"
check "mpirun hwprof record -g of mpi-omp" run 2 "$hw" record -q -e page-faults -c 1 -g \
	-o "$tmp/rec/r%r.data" -- "$app" $N
# the worker's samples in omp_work are its 2N; its thread has more, of
# before MPI_Init (hwprof record samples a thread from its creation,
# libhwprof-mpi from MPI_Init)
"$hw" report --threads --format csv "$tmp/rec" >"$tmp/rt.csv" 2>/dev/null
recw=$(awk -F, 'NR > 1 && $3 != $4 { gsub(/"/, ""); if ($6 == "omp_work") print $8, $7 }' "$tmp/rt.csv" |
	sort -n | tr '\n' ' ')
eq "record: each rank's worker: omp_work its top function, with 2N" "$recw" \
	"0 $((2 * N)) 1 $((2 * N)) "
eq "each rank's worker: the same in both routes (job file: the thread; record: its omp_work)" \
	"$(workers "$job")" "$recw"
rw=$(workers "$tmp/rec")
check "record: each rank's worker thread has its 2N and more (before MPI_Init: $rw)" \
	sh -c "echo '$rw' | awk -v w=$((2 * N)) '{ for (i = 2; i <= NF; i += 2) if (\$i <= w) exit 1 }'"
"$hw" report --callers omp_work "$tmp/rec" >"$tmp/rc.txt" 2>/dev/null
eq "record: --callers omp_work: omp_phase, with all 6N samples" \
	"$(awk '$3 == "omp_phase" { print $2 }' "$tmp/rc.txt")" "$((6 * N))"
"$hw" report --callers omp_phase "$tmp/rec" >"$tmp/rc2.txt" 2>/dev/null
eq "both routes: the callers of omp_phase" "$(awk 'NR > 2' "$tmp/rc2.txt")" \
	"$(awk 'NR > 2' "$tmp/jc2.txt")"
"$hw" report --threads "$tmp/rec" 2>/dev/null >"$tmp/rt.txt"
check "record: --threads has a rank column" grep -q '^ *percent *samples *tid *pid *rank ' "$tmp/rt.txt"

# --- the bound: one thread kept a rank, the rest in a row of tid 0
check "mpirun of mpi-omp, HWPROF_MPI_THREADS=1, no paths" run 2 \
	-x LD_PRELOAD="$lib" -x HWPROF_EVENT=page-faults -x HWPROF_PERIOD=1 \
	-x HWPROF_MPI_THREADS=1 -x HWPROF_OUTPUT="$tmp/one.data" "$app" $N
one=$tmp/one.data
eq "HWPROF_MPI_THREADS=1: per rank, one thread and the others' row" \
	"$(awk '$1 == "thread" { print $3 ":" ($4 == 0 ? "rest" : "kept") }' "$one" | sort | tr '\n' ' ')" \
	"0:kept 0:rest 1:kept 1:rest "
for r in 0 1; do
	eq "HWPROF_MPI_THREADS=1: rank $r's rows add up to its samples" \
		"$(awk -v r=$r '$1 == "thread" && $3 == r { t[$2] = 1 } $1 == "tt" && ($2 in t) { s += $4 } END { print s + 0 }' "$one")" \
		"$(awk -v r=$r '$1 == "rt" && $2 == r { print $4 }' "$one")"
done
check "no HWPROF_MPI_PATHS: no call paths" sh -c "! grep -q '^\(paths\|n\|c\) ' '$one'"
"$hw" report --threads --format csv "$one" >"$tmp/one.csv" 2>/dev/null
eq "--threads: the others' row has tid -" "$(awk -F, '$3 == "-" { n++ } END { print n + 0 }' "$tmp/one.csv")" 2
exit $fail
