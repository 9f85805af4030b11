#!/bin/sh
# SPDX-License-Identifier: MIT
# MPI jobs (libhwprof-mpi(7), hwprof(1)): 4 ranks of mpi-app,
# rank r calling mpi_work() (r+1)*N times with one fresh page each, give
# exactly 10N page-fault samples in mpi_work after the merge, N, 2N, 3N,
# 4N per rank, max/mean 1.6 - by the hwprof record route (one file a
# rank) and by the PMPI route (libhwprof-mpi, preloaded or linked: one job
# file reduced with MPI). The job file is checked line by line, not only
# through hwprof report.
# usage: test-mpi.sh CASE HWPROF LIBHWPROF-MPI MPI-APP MPI-APP-OTHER MPI-APP-LINKED
#                    MPI-FAPP MPI-FAPP08 MPI-WAIT
set -u
case_=$1 hw=$2 lib=$3 app=$4 other=$5 linked=$6 fapp=$7 fapp08=$8 wait=$9
N=50
if [ "$app" = none ]; then
	echo "SKIP: meson found no MPI when hwprof was configured"
	exit 77
fi
if ! command -v mpirun >/dev/null 2>&1; then
	echo "SKIP: no mpirun in PATH"
	exit 77
fi
case "$case_:${MPI_TEST_SANITIZE:-none}" in
pmpi-*:*thread* | fortran:*thread* | one-lacks:*thread* | pcontrol:*thread* | wait-*:*thread*)
	# the programs are not instrumented (a sanitizer's shadow memory
	# would fault in mpi_work); ThreadSanitizer's runtime cannot come in
	# after an instrumented libhwprof-mpi that starts threads
	echo "SKIP: an instrumented libhwprof-mpi in an uninstrumented MPI program: TSan cannot run that"
	exit 77
	;;
esac
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$(dirname "$0")/tlib.sh"
# Open MPI refuses root without the flag; a 2-CPU machine runs 4 ranks
# only oversubscribed; a preloaded ASan library is not first in line
flags="--oversubscribe --bind-to none"
[ "$(id -u)" = 0 ] && flags="$flags --allow-run-as-root"
# hwprof record under the launcher preloads this build's libhwprof-mpi to
# time MPI calls (none under TSan: see above)
HWPROF_MPI_LIB=$lib
case "${MPI_TEST_SANITIZE:-none}" in *thread*) HWPROF_MPI_LIB= ;; esac
export HWPROF_MPI_LIB
run() {
	np=$1
	shift
	# shellcheck disable=SC2086
	mpirun $flags -np "$np" -x ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0 \
		-x HWPROF_MPI_LIB "$@"
}
# the raw probe: page faults can be sampled here
"$app" probe || exit $?
fn_addr=$(nm "$app" | awk '$3 == "mpi_work" { sub(/^0+/, "", $1); print $1 }')
[ -n "$fn_addr" ] || { echo "ERROR: no mpi_work in $app"; exit 99; }
# the samples fall in mpi_work's buckets: [start, start + size)
fn_size=$(nm -S "$app" | awk '$4 == "mpi_work" { print $2 }')
fn_lo=$((0x$fn_addr))
fn_hi=$((fn_lo + 0x$fn_size))
# the samples of s lines (thread -, object $2) inside mpi_work
in_fn() {
	n=0
	grep "^s 0 - $2 " "$1" >"$tmp/s" || true
	while read -r _ _ _ _ a c; do
		v=$((0x$a))
		[ "$v" -ge "$fn_lo" ] && [ "$v" -lt "$fn_hi" ] && n=$((n + c))
	done <"$tmp/s"
	echo "$n"
}

# hwprof report --ranks of the job (a job file or rank files): mpi_work's
# total min mean max max/mean max-rank and its count on each rank
ranks_checks() {
	"$hw" report --ranks --format csv --stats "$tmp/rstats.csv" "$@" >"$tmp/ranks.csv" \
		2>"$tmp/ranks.err"
	eq "--ranks: mpi_work's total min mean max max/mean max-rank" \
		"$(awk -F, '{ gsub(/"/, "") } $9 == "mpi_work" { print $1, $2, $3, $4, $5, $6 }' "$tmp/ranks.csv")" \
		"$((10 * N)) $N $(printf '%d.%02d' $((10 * N * 25 / 100)) $((10 * N * 25 % 100))) $((4 * N)) 1.60 3"
	eq "--ranks: mpi_work on each rank" \
		"$(awk -F, '{ gsub(/"/, "") } $9 == "mpi_work" { print $11, $12, $13, $14 }' "$tmp/ranks.csv")" \
		"$N $((2 * N)) $((3 * N)) $((4 * N))"
	# the text's table of ranks (mpiP's task table, up to the blank line
	# before the time per MPI call): the CSV's numbers
	"$hw" report --ranks "$@" 2>/dev/null | awk 'f && !NF { exit } f { print $1, $4, $5 } /^ *rank +host/ { f = 1 }' >"$tmp/rt.txt"
	awk -F, 'NR > 1 { print $1, $4, $5 }' "$tmp/rstats.csv" >"$tmp/rt.csv"
	eq "--ranks text: a row per rank" "$(wc -l < "$tmp/rt.txt")" 4
	check "--ranks text: each rank's samples and in-MPI samples as in the CSV" cmp -s "$tmp/rt.txt" "$tmp/rt.csv"
}

# The job file's checks: the function's spread line and per-rank counts.
# f I EVENT OBJECT ADDR SUM MIN MAX MAXRANK RANKS; fr F PROC COUNT
job_checks() {
	f=$1 prog=$2
	sz=$(stat -c %s "$prog")
	obj=$(awk -v p="$prog" -v s="$sz" '$1 == "object" && $4 == s && $5 == p { print $2; exit }' "$f")
	check "$prog is an object of the job file, with its size" [ -n "$obj" ]
	check "the job file names the program (build-id, size, path)" \
		grep -q "^program [0-9a-f]* $sz $prog\$" "$f"
	fl=$(awk -v o="$obj" -v a="$fn_addr" '$1 == "f" && $4 == o && $5 == a' "$f")
	eq "mpi_work's sum min max maxrank ranks" "$(echo "$fl" | cut -d' ' -f6-)" \
		"$((10 * N)) $N $((4 * N)) 3 4"
	fi_=$(echo "$fl" | cut -d' ' -f2)
	eq "mpi_work's per-rank counts" \
		"$(awk -v i="$fi_" '$1 == "fr" && $2 == i { print $3 ":" $4 }' "$f" | sort | tr '\n' ' ')" \
		"0:$N 1:$((2 * N)) 2:$((3 * N)) 3:$((4 * N)) "
	eq "job line (4 ranks)" "$(awk '$1 == "job" { print $2 }' "$f")" 4
	eq "rank lines" "$(awk '$1 == "process" { print $5 }' "$f" | tr '\n' ' ')" "0 1 2 3 "
	eq "per-rank totals add up to the event's samples" \
		"$(awk '$1 == "rt" { s += $4 } END { print s }' "$f")" \
		"$(awk '$1 == "event" { print $4 }' "$f")"
	eq "the summed samples in mpi_work's buckets" "$(in_fn "$f" "$obj")" "$((10 * N))"
	"$hw" report --format csv "$f" >"$tmp/flat.csv" 2>"$tmp/flat.err"
	eq "hwprof report: mpi_work's row" \
		"$(awk -F, '{ gsub(/"/, "") } $3 == "mpi_work" { print $2 }' "$tmp/flat.csv")" "$((10 * N))"
	ranks_checks "$f"
}

case $case_ in
record)
	mkdir "$tmp/rec"
	check "mpirun hwprof record" run 4 "$hw" record -q -e page-faults -c 1 \
		-o "$tmp/rec/r%r.data" -- "$app" $N
	for r in 0 1 2 3; do
		eq "rank file $r's rank line" "$(grep '^rank ' "$tmp/rec/r$r.data")" "rank $r 4"
		check "rank file $r names the program (build-id, size, path)" \
			grep -q "^program [0-9a-f]* $(stat -c %s "$app") $app\$" "$tmp/rec/r$r.data"
		check "rank file $r names the host" grep -q "^host $(hostname)\$" "$tmp/rec/r$r.data"
	done
	"$hw" report --format csv "$tmp/rec" >"$tmp/flat.csv" 2>"$tmp/err"
	eq "merged: mpi_work's samples" \
		"$(awk -F, '{ gsub(/"/, "") } $3 == "mpi_work" { print $2 }' "$tmp/flat.csv")" "$((10 * N))"
	ranks_checks "$tmp/rec"
	# a program not linked with the MPI libhwprof-mpi was built for gets
	# no preload (another MPI's handles are not its handles): samples
	# only, said once, by rank 0
	if [ -n "$HWPROF_MPI_LIB" ]; then
		mkdir "$tmp/plain"
		run 2 "$hw" record -e page-faults -c 1 -o "$tmp/plain/%r.data" -- \
			"$(command -v true)" >/dev/null 2>"$tmp/perr"
		eq "not an MPI program: lines saying so" \
			"$(grep -c 'is not linked with libmpi.*no wall clock in MPI' "$tmp/perr")" 1
		check "not an MPI program: no time in MPI kept" \
			sh -c "! grep -q '^mt ' '$tmp/plain/0.data' '$tmp/plain/1.data'"
		check "an MPI program: its time in MPI kept" grep -q '^mt ' "$tmp/rec/r0.data"
	fi
	;;
default-name)
	(cd "$tmp" && run 2 "$hw" record -q -e page-faults -c 1 -- "$app" 5 >/dev/null)
	check "rank 0 wrote hwprof.0.data" [ -f "$tmp/hwprof.0.data" ]
	check "rank 1 wrote hwprof.1.data" [ -f "$tmp/hwprof.1.data" ]
	check "no hwprof.data overwritten by both" [ ! -e "$tmp/hwprof.data" ]
	# Slurm: srun's step (SLURM_STEP_ID) has ranks; a batch script's own
	# shell (task 0 of its job, no step id) does not
	mkdir "$tmp/s"
	(cd "$tmp/s" && env -u OMPI_COMM_WORLD_RANK -u PMIX_RANK -u PMI_RANK SLURM_PROCID=0 \
		SLURM_NTASKS=4 "$hw" record -q -e page-faults -c 1 -- "$app" probe)
	check "a batch script's hwprof record writes hwprof.data" [ -f "$tmp/s/hwprof.data" ]
	(cd "$tmp/s" && env -u OMPI_COMM_WORLD_RANK -u PMIX_RANK -u PMI_RANK SLURM_STEP_ID=0 \
		SLURM_PROCID=2 SLURM_NTASKS=4 "$hw" record -q -e page-faults -c 1 -- "$app" probe)
	eq "srun's rank 2 writes hwprof.2.data, rank 2 of 4" "$(grep '^rank ' "$tmp/s/hwprof.2.data")" "rank 2 4"
	;;
pmpi-preload)
	run 4 -x LD_PRELOAD="$lib" -x HWPROF_EVENT=page-faults -x HWPROF_PERIOD=1 \
		-x HWPROF_OUTPUT="$tmp/job.data" "$app" $N > "$tmp/out" 2>&1
	rc=$?
	cat "$tmp/out"
	check "mpirun with LD_PRELOAD=libhwprof-mpi.so" [ $rc = 0 ]
	# no object the job could not name is said in its output
	check "no 'cannot read' in the job's output" sh -c "! grep -q 'cannot read' '$tmp/out'"
	check "the job file keeps the names (kept lines)" grep -q '^kept ' "$tmp/job.data"
	job_checks "$tmp/job.data" "$app"
	;;
pcontrol)
	# MPI_Pcontrol(0) ... MPI_Pcontrol(1) around stores in mpi_outside on
	# every rank, before and after mpi_work's: the job holds mpi_work's
	# 10N and none of mpi_outside's
	check "mpirun of mpi-app with MPI_Pcontrol" run 4 -x LD_PRELOAD="$lib" \
		-x HWPROF_EVENT=page-faults -x HWPROF_PERIOD=1 -x MPI_APP_PCONTROL=1 \
		-x HWPROF_OUTPUT="$tmp/job.data" "$app" $N
	"$hw" report --format csv "$tmp/job.data" >"$tmp/flat.csv" 2>/dev/null
	eq "mpi_work's row: 10N inside the region" \
		"$(awk -F, '{ gsub(/"/, "") } $3 == "mpi_work" { print $2 }' "$tmp/flat.csv")" "$((10 * N))"
	eq "no sample of mpi_outside (outside it)" "$(grep -c mpi_outside "$tmp/flat.csv")" 0
	# the wall clock pauses too, on both routes: mpi-wait's first
	# barrier, between MPI_Pcontrol(0) and (1), is not timed
	if [ "$wait" != none ]; then
		check "mpirun of mpi-wait with MPI_Pcontrol, libhwprof-mpi preloaded" run 4 \
			-x LD_PRELOAD="$lib" -x MPI_WAIT_PCONTROL=1 -x HWPROF_OUTPUT="$tmp/w.data" \
			"$wait" 2 20
		eq "job file: each rank's timed calls, the paused barrier left out" \
			"$(awk '$1 == "mt" { print $2 ":" $5 }' "$tmp/w.data" | tr '\n' ' ')" \
			"0:2 1:2 2:2 3:2 "
		eq "job file: one site left" "$(grep -c '^ms ' "$tmp/w.data")" 1
		mkdir "$tmp/wr"
		check "mpirun hwprof record of mpi-wait with MPI_Pcontrol" run 4 \
			-x MPI_WAIT_PCONTROL=1 "$hw" record -q -e page-faults -c 1 \
			-o "$tmp/wr/r%r.data" -- "$wait" 2 20
		eq "record: each rank file's timed calls" \
			"$(cat "$tmp/wr/"r?.data | awk '$1 == "mt" { print $5 }' | tr '\n' ' ')" "2 2 2 2 "
	fi
	"$hw" report --ranks --format csv "$tmp/job.data" >"$tmp/ranks.csv" 2>/dev/null
	eq "--ranks: mpi_work on each rank" \
		"$(awk -F, '{ gsub(/"/, "") } $9 == "mpi_work" { print $11, $12, $13, $14 }' "$tmp/ranks.csv")" \
		"$N $((2 * N)) $((3 * N)) $((4 * N))"
	;;
pmpi-odd)
	# a function 3 bytes into an 8-byte bucket, after a 3-byte one: the
	# job file names the bucket after the function that covers most of it
	addr "$app" mpi_odd | grep -q . ||
		{ echo "SKIP: mpi-app has no mpi_odd (x86-64 only)"; exit 77; }
	check "mpirun of mpi-app storing from mpi_odd" run 2 -x LD_PRELOAD="$lib" \
		-x HWPROF_EVENT=page-faults -x HWPROF_PERIOD=1 -x MPI_APP_ODD=1 \
		-x HWPROF_OUTPUT="$tmp/job.data" "$app" $N
	"$hw" report --format csv "$tmp/job.data" >"$tmp/flat.csv" 2>/dev/null
	eq "mpi_odd's row (N + 2N)" \
		"$(awk -F, '{ gsub(/"/, "") } $3 == "mpi_odd" { print $2 }' "$tmp/flat.csv")" "$((3 * N))"
	eq "no row for mpi_pad" "$(grep -c mpi_pad "$tmp/flat.csv")" 0
	"$hw" report --ranks --format csv "$tmp/job.data" >"$tmp/ranks.csv" 2>/dev/null
	eq "--ranks: mpi_odd's total, min, max" \
		"$(awk -F, '{ gsub(/"/, "") } $9 == "mpi_odd" { print $1, $2, $4 }' "$tmp/ranks.csv")" \
		"$((3 * N)) $N $((2 * N))"
	;;
pmpi-linked)
	# linked with -lhwprof-mpi, started by MPI_Init_thread
	check "mpirun of a program linked with libhwprof-mpi" run 4 -x MPI_APP_THREAD=1 \
		-x HWPROF_EVENT=page-faults -x HWPROF_PERIOD=1 -x HWPROF_OUTPUT="$tmp/job.data" \
		"$linked" $N
	job_checks "$tmp/job.data" "$linked"
	;;
pmpi-noprofile)
	# a bad event: every rank says so, and the job file says that no rank
	# was covered instead of showing an empty profile as if it were one
	run 2 -x LD_PRELOAD="$lib" -x HWPROF_EVENT=no-such-event \
		-x HWPROF_OUTPUT="$tmp/job.data" "$app" 5 >"$tmp/out" 2>"$tmp/err"
	eq "ranks that said why" "$(grep -c '^hwprof-mpi: rank [01]: no profile: HWPROF_EVENT=no-such-event' "$tmp/err")" 2
	eq "the event's threads not covered" "$(awk '$1 == "event" { print $7 }' "$tmp/job.data")" 2
	check "the reason names the rank" grep -q '^event 0 .* rank\\x200\\x20has\\x20no\\x20profile' "$tmp/job.data"
	"$hw" report "$tmp/job.data" >/dev/null 2>"$tmp/rep.err"
	check "hwprof report warns" grep -q "^hwprof: warning: 2 threads were not covered (rank 0 has no profile" "$tmp/rep.err"
	;;
pmpi-output)
	# HWPROF_OUTPUT: only a regular file is replaced; a FIFO or a
	# symbolic link there is left as it is, with one line
	mkfifo "$tmp/fifo"
	run 2 -x LD_PRELOAD="$lib" -x HWPROF_EVENT=page-faults \
		-x HWPROF_OUTPUT="$tmp/fifo" "$app" 5 >/dev/null 2>"$tmp/err"
	check "a FIFO is left a FIFO" [ -p "$tmp/fifo" ]
	eq "what rank 0 said" "$(grep -c "^hwprof-mpi: $tmp/fifo: a FIFO, not a regular file, left as it is: no profile written\$" "$tmp/err")" 1
	echo old >"$tmp/target"
	ln -s target "$tmp/link"
	run 2 -x LD_PRELOAD="$lib" -x HWPROF_EVENT=page-faults \
		-x HWPROF_OUTPUT="$tmp/link" "$app" 5 >/dev/null 2>"$tmp/err"
	check "the link stays a link" [ -L "$tmp/link" ]
	eq "its target is untouched" "$(cat "$tmp/target")" old
	eq "what rank 0 said" "$(grep -c "^hwprof-mpi: $tmp/link: a symbolic link, not a regular file, left as it is: no profile written\$" "$tmp/err")" 1
	echo old >"$tmp/job.data"
	chmod 600 "$tmp/job.data"
	check "a regular file is replaced" run 2 -x LD_PRELOAD="$lib" -x HWPROF_EVENT=page-faults \
		-x HWPROF_OUTPUT="$tmp/job.data" "$app" 5
	check "it holds the job file" grep -q '^job 2 ' "$tmp/job.data"
	eq "still 0600" "$(stat -c %a "$tmp/job.data")" 600
	;;
pmpi-planted)
	# as root, HWPROF_OUTPUT at a link nobody planted to a root-owned
	# 0600 file, in a 0777 and a 1777 directory nobody owns (and a 1777
	# one root owns where fs.protected_symlinks is off): left as it is
	# with one line, the file unchanged; a hard link (root's own:
	# protected_hardlinks keeps nobody from one) is replaced, not written
	# through (libhwprof-mpi(7), HWPROF_OUTPUT)
	[ "$(id -u)" = 0 ] || { echo "SKIP: planting files as another user (nobody) needs root"; exit 77; }
	command -v setpriv >/dev/null || { echo "SKIP: root, and no setpriv to become nobody"; exit 77; }
	nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
	chmod 711 "$tmp" && mkdir -m 700 "$tmp/root" || exit 99
	victim=$tmp/root/secret
	printf "root's data\n" > "$victim" && chmod 600 "$victim" || exit 99
	mkdir "$tmp/d0777" "$tmp/d1777" "$tmp/r1777" &&
		chown 65534:65534 "$tmp/d0777" "$tmp/d1777" && chmod 0777 "$tmp/d0777" &&
		chmod 1777 "$tmp/d1777" "$tmp/r1777" || exit 99
	dirs="$tmp/d0777 $tmp/d1777"
	if [ "$(cat /proc/sys/fs/protected_symlinks 2>/dev/null)" = 0 ]; then
		dirs="$dirs $tmp/r1777"
	else
		echo "note: fs.protected_symlinks is on: the root-owned 1777 directory is left out"
	fi
	for D in $dirs; do
		w=$(basename "$D")
		$nobody ln -s "$victim" "$D/job.data" || exit 99
		run 2 -x LD_PRELOAD="$lib" -x HWPROF_EVENT=page-faults \
			-x HWPROF_OUTPUT="$D/job.data" "$app" 5 >/dev/null 2>"$tmp/err"
		eq "$w: what rank 0 said" "$(grep -c "^hwprof-mpi: $D/job.data: a symbolic link, not a regular file, left as it is: no profile written\$" "$tmp/err")" 1
		check "$w: the link is left as it is" [ -L "$D/job.data" ]
		eq "$w: the victim's contents" "$(cat "$victim")" "root's data"
		eq "$w: the victim's mode and owner" "$(stat -c %a:%u "$victim")" 600:0
		rm -f "$D/job.data" && ln "$victim" "$D/job.data" || exit 99
		check "$w: over a hard link" run 2 -x LD_PRELOAD="$lib" -x HWPROF_EVENT=page-faults \
			-x HWPROF_OUTPUT="$D/job.data" "$app" 5
		check "$w: a job file of its own there" grep -q '^job 2 ' "$D/job.data"
		eq "$w: the victim's contents" "$(cat "$victim")" "root's data"
		eq "$w: the victim's mode and owner" "$(stat -c %a:%u:%h "$victim")" 600:0:1
	done
	;;
refuse)
	mkdir "$tmp/a" "$tmp/b"
	run 2 "$hw" record -q -e page-faults -c 1 -o "$tmp/a/%r.data" -- "$app" 5 >/dev/null
	run 2 "$hw" record -q -e page-faults -c 1 -o "$tmp/b/%r.data" -- "$other" 5 >/dev/null
	if "$hw" report "$tmp/a/0.data" "$tmp/b/1.data" >"$tmp/out" 2>"$tmp/err"; then
		echo "FAIL: a merge of two programs' files was accepted"
		fail=1
	else
		eq "lines said" "$(wc -l < "$tmp/err")" 1
		check "it names both files" grep -q "^hwprof: .*$tmp/[ab]/[01].data.*$tmp/[ab]/[01].data" "$tmp/err"
		check "it says the programs differ" grep -q "program" "$tmp/err"
		cat "$tmp/err"
	fi
	;;
walltime)
	# the batch system's SIGTERM to mpirun at the walltime: every rank's
	# hwprof record still writes its whole profile
	mkdir "$tmp/rec" "$tmp/ready"
	# (mpirun itself in the background, with run()'s options: the
	# SIGTERM is for it)
	# shellcheck disable=SC2086
	MPI_APP_READY=$tmp/ready mpirun $flags -np 4 \
		-x ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0 -x HWPROF_MPI_LIB \
		-x MPI_APP_READY "$hw" record -q \
		-e page-faults -c 1 -o "$tmp/rec/%r.data" -- "$app" $N >/dev/null 2>"$tmp/err" &
	job=$!
	i=0
	while [ "$(ls "$tmp/ready" | wc -l)" -lt 4 ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	eq "ranks that did their work" "$(ls "$tmp/ready" | wc -l)" 4
	kill -TERM "$job"
	wait "$job"
	for r in 0 1 2 3; do
		f=$tmp/rec/$r.data
		check "rank $r's file is whole" grep -q '^end$' "$f"
		eq "rank $r's process ended by SIGTERM" "$(awk '$1 == "process" && $2 == 0 { print $6 " " $7 }' "$f")" "signal 15"
	done
	"$hw" report --format csv "$tmp/rec" >"$tmp/flat.csv" 2>/dev/null
	eq "merged: mpi_work's samples" \
		"$(awk -F, '{ gsub(/"/, "") } $3 == "mpi_work" { print $2 }' "$tmp/flat.csv")" "$((10 * N))"
	;;
abi)
	# libhwprof-mpi exports the MPI calls it wraps and pthread_create,
	# nothing of the engine inside it
	src=$(cd "$(dirname "$0")/.." && pwd)
	nm -D --defined-only "$lib" | awk '$2 ~ /^[TtWiDdBb]$/ { print $3 }' | sed 's/@.*//' |
		sort -u >"$tmp/exports"
	grep -oE '^[[:space:]]+[A-Za-z_][A-Za-z0-9_]*;' "$src/lib/mpi/hwprof-mpi.map" |
		tr -d ' \t;' | sort -u >"$tmp/map"
	check "exports = lib/mpi/hwprof-mpi.map" cmp -s "$tmp/exports" "$tmp/map"
	diff "$tmp/map" "$tmp/exports"
	check "the map holds the C calls" grep -qx MPI_Init_thread "$tmp/map"
	check "pkg-config names it" grep -q 'Libs:.*-lhwprof-mpi' "$(dirname "$lib")/../../meson-private/hwprof-mpi.pc"
	;;
reduce)
	# the tree against a brute force, at sizes that are not powers of two
	for np in 1 3 5 6; do
		check "reduction on $np ranks" run $np "$(dirname "$app")/mpi-reduce-check"
	done
	;;
one-lacks)
	# 3 ranks, rank 1 without a profile: mpi_work has N and 3N, min 0,
	# max 3N on rank 2, 2 ranks; the job file says which rank had none
	check "mpirun, rank 1 without a profile" run 3 -x LD_PRELOAD="$lib" \
		-x MPI_APP_NOPROF_RANK=1 -x HWPROF_EVENT=page-faults -x HWPROF_PERIOD=1 \
		-x HWPROF_OUTPUT="$tmp/job.data" "$app" $N
	f=$tmp/job.data
	obj=$(awk -v p="$app" '$1 == "object" && $5 == p { print $2; exit }' "$f")
	eq "mpi_work's sum min max maxrank ranks" \
		"$(awk -v o="$obj" -v a="$fn_addr" '$1 == "f" && $4 == o && $5 == a { print $6, $7, $8, $9, $10 }' "$f")" \
		"$((4 * N)) 0 $((3 * N)) 2 2"
	eq "the event's threads not covered" "$(awk '$1 == "event" { print $7 }' "$f")" 1
	check "the reason names rank 1" grep -qF ' rank\x201\x20has\x20no\x20profile' "$f"
	eq "rank 1's total" "$(awk '$1 == "rt" && $2 == 1 { print $4 }' "$f")" 0
	"$hw" report --ranks --format csv "$f" >"$tmp/ranks.csv" 2>/dev/null
	eq "--ranks: mpi_work on each rank" \
		"$(awk -F, '{ gsub(/"/, "") } $9 == "mpi_work" { print $2, $4, $6, $11, $12, $13 }' "$tmp/ranks.csv")" \
		"0 $((3 * N)) 2 $N 0 $((3 * N))"
	;;
fortran)
	if [ "$fapp" = none ]; then
		echo "SKIP: no Fortran compiler or no Fortran binding of the MPI when configured"
		exit 77
	fi
	for prog in "$fapp" "$fapp08"; do	# mpif.h, then the mpi_f08 module
		if [ "$prog" = none ]; then
			echo "note: no mpi_f08 program (no mpifort when configured)"
			continue
		fi
		rm -f "$tmp/job.data"
		check "mpirun of $prog, libhwprof-mpi preloaded" run 2 -x LD_PRELOAD="$lib" \
			-x HWPROF_OUTPUT="$tmp/job.data" "$prog"
		eq "job line (2 ranks)" "$(awk '$1 == "job" { print $2 }' "$tmp/job.data")" 2
		"$hw" report --format csv "$tmp/job.data" >"$tmp/flat.csv" 2>/dev/null
		n=$(awk -F, '{ gsub(/"/, "") } $3 == "MAIN__" { print $2 }' "$tmp/flat.csv")
		check "the main program's loop has clock samples ($n)" [ "${n:-0}" -gt 10 ]
		# its row of --ranks: min (field 2) above 0 is both ranks'
		"$hw" report --ranks --format csv "$tmp/job.data" >"$tmp/ranks.csv" 2>/dev/null
		m=$(awk -F, '{ gsub(/"/, "") } $9 == "MAIN__" { print $2 }' "$tmp/ranks.csv")
		check "both ranks sampled it (min over the ranks: $m)" [ "${m:-0}" -gt 0 ]
		# its one MPI_Barrier, timed through the Fortran binding: one
		# site in the program, one call on each rank
		sz=$(stat -c %s "$prog")
		obj=$(awk -v p="$prog" -v s="$sz" '$1 == "object" && $4 == s && $5 == p { print $2; exit }' "$tmp/job.data")
		site=$(awk -v o="$obj" '$1 == "ms" && $3 == o && $5 == "MPI_Barrier" { print $2 }' "$tmp/job.data")
		eq "one MPI_Barrier site in $prog" "$(echo "$site" | wc -w)" 1
		eq "its calls on each rank" \
			"$(awk -v s="$site" '$1 == "msr" && $2 == s { print $3 ":" $4 }' "$tmp/job.data" | sort | tr '\n' ' ')" \
			"0:1 1:1 "
	done
	;;
wait-default | wait-busy)
	# rank 2 does 3x the work of the others, who wait in MPI_Barrier:
	# the wall clock in MPI (libhwprof-mpi(7), "Time in MPI"), with
	# Open MPI's default progress (it yields when oversubscribed) and
	# with busy polling
	[ "$wait" != none ] || { echo "SKIP: no mpi-wait"; exit 77; }
	it=4 ms=120 pg=50	# tests/mpi-wait.c's PAGES
	mca=
	[ "$case_" = wait-busy ] && mca="--mca mpi_yield_when_idle 0"
	f=$tmp/job.data
	# rank 2's share is the latency of the barrier once it arrives: on
	# a machine loaded far beyond its CPUs the spinning ranks may not be
	# scheduled for tens of milliseconds; such a run is made again once
	for try in 1 2; do
		# shellcheck disable=SC2086
		check "mpirun of mpi-wait, libhwprof-mpi preloaded" run 4 $mca \
			-x LD_PRELOAD="$lib" -x HWPROF_EVENT=page-faults -x HWPROF_PERIOD=1 \
			-x HWPROF_OUTPUT="$f" "$wait" $it $ms
		awk '$1 == "mt" && $2 == 2 && 100 * $4 > 10 * $3 { exit 1 }' "$f" && break
		[ $try = 1 ] && echo "note: rank 2 above 10% in MPI (uptime: $(uptime)); once more"
	done
	# mt PROC APP_NS MPI_NS CALLS: exact counts, times within bounds
	eq "each rank's timed calls (mt): ITERS + 1 barriers" \
		"$(awk '$1 == "mt" { print $2 ":" $5 }' "$f" | tr '\n' ' ')" \
		"0:$((it + 1)) 1:$((it + 1)) 2:$((it + 1)) 3:$((it + 1)) "
	# every rank lives at least rank 2's work, 3 * ITERS * MS
	eq "each rank's MPI_Init..MPI_Finalize covers rank 2's work, under a minute" \
		"$(awk -v lo=$((3 * it * ms * 1000000)) '$1 == "mt" && $3 >= lo && $3 < 60e9 && $4 <= $3 { n++ } END { print n }' "$f")" 4
	awk '$1 == "mt" { printf "note: rank %d: %.1f%% of %.3f s in MPI\n", $2, 100 * $4 / $3, $3 / 1e9 }' "$f"
	eq "ranks 0, 1 and 3: at least 45% of their time in MPI" \
		"$(awk '$1 == "mt" && $2 != 2 && 100 * $4 >= 45 * $3 { n++ } END { print n }' "$f")" 3
	# busy polling: 4 spinning ranks on 2 CPUs make each barrier wait for
	# a rank to be scheduled (libhwprof-mpi(7)): 3 to 5% of rank 2's time
	# on this 2-CPU machine at load 8 to 14, 11 to 15% at load 25 to 45;
	# the run is made again once above 10%, as with default progress
	lim=10
	eq "rank 2: at most $lim% in MPI" \
		"$(awk -v l=$lim '$1 == "mt" && $2 == 2 && 100 * $4 <= l * $3 { n++ } END { print n }' "$f")" 1
	eq "rank 2's time in MPI under a third of each other rank's" \
		"$(awk '$1 == "mt" { m[$2] = $4 } END { for (r = 0; r < 4; r++) if (r != 2 && 3 * m[2] < m[r]) n++; print n }' "$f")" 3
	# the call sites: two MPI_Barrier calls in main, the loop's ITERS
	# times on each rank, the other once
	sz=$(stat -c %s "$wait")
	obj=$(awk -v p="$wait" -v s="$sz" '$1 == "object" && $4 == s && $5 == p { print $2; exit }' "$f")
	eq "two MPI_Barrier sites in mpi-wait" \
		"$(awk -v o="$obj" '$1 == "ms" && $3 == o && $5 == "MPI_Barrier"' "$f" | wc -l)" 2
	eq "the sites' calls per rank, summed" \
		"$(awk '$1 == "msr" { c[$3] += $4 } END { for (r = 0; r < 4; r++) printf "%d ", c[r] }' "$f")" \
		"$((it + 1)) $((it + 1)) $((it + 1)) $((it + 1)) "
	eq "the sites' time on a rank is its time in MPI" \
		"$(awk '$1 == "msr" { t[$3] += $5 } $1 == "mt" { m[$2] = $4 } END { for (r = 0; r < 4; r++) printf "%d ", t[r] == m[r] }' "$f")" \
		"1 1 1 1 "
	# the report: the last percentage of each rank's row is its share
	"$hw" report --ranks "$f" >"$tmp/r.txt" 2>/dev/null
	awk 'f && NF { print $1, $NF } /^ *rank +host/ { f = 1 } f && !NF { exit }' "$tmp/r.txt" >"$tmp/rt"
	awk '$1 == "mt" { printf "%d %.2f%%\n", $2, 100 * $4 / $3 }' "$f" >"$tmp/mt"
	check "--ranks text: each rank's last percentage is its time in MPI" cmp -s "$tmp/rt" "$tmp/mt"
	"$hw" report --ranks --format json "$f" 2>/dev/null >"$tmp/r.json"
	eq "--ranks json: each rank's timed calls and seconds in MPI as in the file" \
		"$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%d:%d:%d" % (p["rank"], p["mpi_calls"], round(p["mpi_seconds"] * 1e9))
               for p in d["per_rank"]))' "$tmp/r.json")" \
		"$(awk '$1 == "mt" { printf "%d:%d:%d ", $2, $5, $4 }' "$f" | sed 's/ $//')"
	check "--ranks text: the call-site table names main in mpi-wait" \
		grep -Eq '^ +[0-9]+ MPI_Barrier .* main \(mpi-wait\+0x' "$tmp/r.txt"
	# compute_kernel: exact faults, rank 2 has 2 * ITERS * PAGES more
	"$hw" report --ranks --sort imbalance --format csv "$f" >"$tmp/ranks.csv" 2>/dev/null
	eq "--sort imbalance: compute_kernel first" \
		"$(awk -F, '{ gsub(/"/, "") } NR == 2 { print $9 }' "$tmp/ranks.csv")" compute_kernel
	eq "compute_kernel: max - min, the rank of the max" \
		"$(awk -F, '{ gsub(/"/, "") } $9 == "compute_kernel" { print $4 - $2, $6 }' "$tmp/ranks.csv")" \
		"$((2 * it * pg)) 2"
	"$hw" report --ranks --outliers "$f" >"$tmp/o.txt" 2>/dev/null
	eq "--outliers: the ranks beyond noise" \
		"$(awk '/^# --outliers/ { f = 1; next } f && /^rank / { print $2 }' "$tmp/o.txt" | tr '\n' ' ')" "2: "
	check "--outliers: rank 2 with compute_kernel" grep -q '^rank 2: .*compute_kernel' "$tmp/o.txt"
	# the other route: hwprof record in each rank, libhwprof-mpi preloaded
	# by it for the clock only; the same numbers from the merged files
	mkdir "$tmp/rec" "$tmp/t"
	for try in 1 2; do
		rm -f "$tmp/rec/"*
		# shellcheck disable=SC2086
		check "mpirun hwprof record of mpi-wait" run 4 $mca -x TMPDIR="$tmp/t" "$hw" record \
			-q -e page-faults -c 1 -o "$tmp/rec/r%r.data" -- "$wait" $it $ms
		"$hw" report --ranks --format csv --stats "$tmp/rs.csv" "$tmp/rec" \
			>"$tmp/ranks.csv" 2>/dev/null
		awk -F, 'NR > 1 && $1 == 2 && $9 > 10 { exit 1 }' "$tmp/rs.csv" && break
		[ $try = 1 ] && echo "note: rank 2 above 10% in MPI (uptime: $(uptime)); once more"
	done
	eq "record's private directories for the times, all removed" "$(ls -A "$tmp/t")" ""
	for r in 0 1 2 3; do
		eq "rank file $r: its clock (mt) and ITERS + 1 timed calls" \
			"$(awk '$1 == "mt" { print $5 }' "$tmp/rec/r$r.data")" $((it + 1))
	done
	awk -F, 'NR > 1 { printf "note: record: rank %d: %s%% of %s s in MPI\n", $1, $9, $7 }' "$tmp/rs.csv"
	eq "record: ranks 0, 1 and 3 at least 45% in MPI" \
		"$(awk -F, 'NR > 1 && $1 != 2 && $9 >= 45 { n++ } END { print n }' "$tmp/rs.csv")" 3
	eq "record: rank 2 at most $lim% in MPI" \
		"$(awk -F, -v l=$lim 'NR > 1 && $1 == 2 && $9 <= l { n++ } END { print n }' "$tmp/rs.csv")" 1
	eq "record: compute_kernel first by imbalance, rank 2 exactly 2*ITERS*PAGES above" \
		"$("$hw" report --ranks --sort imbalance --format csv "$tmp/rec" 2>/dev/null |
		   awk -F, '{ gsub(/"/, "") } NR == 2 { print $9, $4 - $2, $6 }')" \
		"compute_kernel $((2 * it * pg)) 2"
	"$hw" report --ranks --outliers "$tmp/rec" >"$tmp/o.txt" 2>/dev/null
	eq "record: --outliers: rank 2 alone" \
		"$(awk '/^# --outliers/ { f = 1; next } f && /^rank / { print $2 }' "$tmp/o.txt" | tr '\n' ' ')" "2: "
	check "record: the call-site table, merged over the rank files" \
		grep -Eq '^ +[0-9]+ MPI_Barrier +'$((4 * it))' .* main \(mpi-wait\+0x' "$tmp/o.txt"
	;;
*)
	echo "unknown case $case_"
	exit 99
	;;
esac
exit $fail
