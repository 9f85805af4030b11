#!/bin/sh
# SPDX-License-Identifier: MIT
# No file is written through what another user put at its name
# (hwprof(1) -o, --svg, --stats; hwprof(7), "Files the library writes";
# PAPI_hl_region_begin(3hwprof)); the PAPI high-level output is named and
# kept as PAPI 7.0 does.
#   planted   as root: nobody plants symbolic links to a root-owned 0600
#             file (and a FIFO) in a 0777 and a 1777 directory nobody
#             owns, and in a 1777 directory root owns (/tmp's case);
#             record -o, a checkpoint, report --svg and --stats, diff
#             --svg, gmon.out and the PAPI high-level output each refuse
#             with one line or replace the link with a file of their own
#             (record: also a directory on -o's path replaced meanwhile),
#             as their pages say; the victim keeps its contents and mode
#   setuid-hl a set-user-ID-root program run by nobody with
#             PAPI_OUTPUT_DIRECTORY naming a root-only directory writes
#             nothing there
#   hl-names  rank_NNNNNN.json: the MPI rank or the pid; an earlier
#             papi_hl_output renamed aside; a name taken gives the next
#             number, the old file untouched; a link or a file at
#             papi_hl_output refused
# (libhwprof-mpi's HWPROF_OUTPUT: tests/test-mpi.sh, pmpi-planted.)
# usage: test-outfile.sh CASE HWPROF WRITER CG-PROG
set -u
case_=$1 hw=$2 writer=$3 prog=$4
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$(dirname "$0")/tlib.sh"

# hl: one PAPI high-level region, counted on the task clock
hl() {
	PAPI_EVENTS=perf::TASK-CLOCK "$@" "$writer" hl
}
# one line on stderr that matches $1 (grep -E), from the command after it,
# which exits $2
said() {
	want=$1 st=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	n=$(wc -l < "$tmp/err")
	if [ $rc -ne "$st" ] || [ "$n" -ne 1 ] || ! grep -Eq "$want" "$tmp/err"; then
		echo "FAIL: '$*' (status $rc) said:"; cat "$tmp/err"; fail=1
	else
		echo "ok: $(cat "$tmp/err")"
	fi
}

need_root() {
	[ "$(id -u)" = 0 ] || { echo "SKIP: planting files as another user (nobody) needs root"; exit 77; }
	command -v setpriv >/dev/null || { echo "SKIP: root, and no setpriv to become nobody"; exit 77; }
	nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
	chmod 711 "$tmp" || exit 99
	# root's: the victims, in a directory only root can enter
	mkdir -m 700 "$tmp/root" || exit 99
	for v in secret rank_000007.json; do
		printf "root's data\n" > "$tmp/root/$v" && chmod 600 "$tmp/root/$v" || exit 99
	done
	victim=$tmp/root/secret
}
# the victims as they were: contents, mode, owner; nothing new beside them
victims_ok() {
	for v in secret rank_000007.json; do
		f=$tmp/root/$v
		[ "$(cat "$f")" = "root's data" ] && [ "$(stat -c %a:%u "$f")" = 600:0 ] ||
			{ echo "FAIL: $1: $f was changed: $(stat -c %a:%u:%s "$f")"; fail=1; return; }
	done
	[ "$(ls -A "$tmp/root" | wc -l)" = 2 ] ||
		{ echo "FAIL: $1: a file appeared in root's directory: $(ls -A "$tmp/root")"; fail=1; return; }
	echo "ok: $1: the victims are unchanged"
}
plant() {	# nobody's symbolic link $1 -> $2 (default: the victim)
	$nobody ln -s "${2:-$victim}" "$1" || { echo "ERROR: nobody cannot plant $1"; exit 99; }
}
still_link() {	# the planted link $1 is still there, nobody's
	check "$2: the link is left as it is" [ -L "$1" ] &&
		[ "$(stat -c %u "$1")" = 65534 ]
}
own_file() {	# $1 is a regular file of root's, not the victim
	check "$2: replaced by a file of its own" sh -c \
		"[ -f '$1' ] && [ ! -L '$1' ] && [ \"\$(stat -c %u:%i '$1')\" != \"\$(stat -c %u:%i '$victim')\" ] && [ \"\$(stat -c %u '$1')\" = 0 ]"
}

case $case_ in
planted)
	need_root
	need_pf
	# a profile with call paths, for report and diff
	"$hw" record -q -g -e page-faults -c 1 -o "$tmp/g.data" -- "$prog" paths ||
		{ echo "ERROR: record"; exit 99; }
	mkdir "$tmp/d0777" "$tmp/d1777" "$tmp/r1777" || exit 99
	chown 65534:65534 "$tmp/d0777" "$tmp/d1777" && chmod 0777 "$tmp/d0777" &&
		chmod 1777 "$tmp/d1777" "$tmp/r1777" || exit 99
	dirs="$tmp/d0777 $tmp/d1777"
	# the kernel's own guard would refuse root the links in root's 1777
	# directory (not in nobody's, whose owner owns the links): that leg
	# tests hwprof only where the guard is off
	if [ "$(cat /proc/sys/fs/protected_symlinks 2>/dev/null)" = 0 ]; then
		dirs="$dirs $tmp/r1777"
	else
		echo "note: fs.protected_symlinks is on: the root-owned 1777 directory is left out"
	fi
	for D in $dirs; do
		w=$(basename "$D")
		echo "--- $w ($(stat -c %A:%U "$D"))"
		# record -o: a link is refused before anything runs
		plant "$D/rec.data"
		err "rec.data: a symbolic link; hwprof record writes only regular files" \
			"$hw" record -q -e task-clock -o "$D/rec.data" -- true
		still_link "$D/rec.data" "$w record -o"
		victims_ok "$w record -o"
		# a link planted while record runs is replaced by a checkpoint,
		# and again by the final write (nobody swaps it back where the
		# directory lets it)
		"$hw" record -q -e task-clock --checkpoint 1 -o "$D/ck.data" -- sh -c "
			$nobody ln -s '$victim' '$D/ck.data' || exit 5
			i=0
			while [ -L '$D/ck.data' ] && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i + 1)); done
			[ -f '$D/ck.data' ] && [ ! -L '$D/ck.data' ] && : > '$tmp/ck-$w'
			$nobody sh -c \"rm -f '$D/ck.data' && ln -s '$victim' '$D/ck.data'\" 2>/dev/null
			exit 0"
		rc=$?
		check "$w checkpoint: record exits 0 (got $rc)" [ $rc = 0 ]
		check "$w checkpoint: the checkpoint replaced the link" [ -e "$tmp/ck-$w" ]
		own_file "$D/ck.data" "$w record's final write"
		check "$w: it holds the profile" grep -q '^hwprof-data ' "$D/ck.data"
		victims_ok "$w checkpoint"
		# -o in nobody's directory there, which nobody moves aside and
		# replaces with a link to root's directory while record runs:
		# the file is not written through the new path
		$nobody mkdir "$D/nd" || exit 99
		said "nd/secret: its directory is not the one checked when record started" 1 \
			"$hw" record -q -e task-clock -o "$D/nd/secret" -- \
			$nobody sh -c "mv '$D/nd' '$D/nd.old' && ln -s '$tmp/root' '$D/nd'"
		check "$w directory swapped: nothing in the old one" [ -z "$(ls -A "$D/nd.old")" ]
		victims_ok "$w directory swapped"
		# the same for report --svg and diff --svg, swapped while they
		# wait for their input (a FIFO) after the check
		for c in report diff; do
			rm -rf "$D/nd" "$D/nd.old" "$tmp/in"
			$nobody mkdir "$D/nd" && mkfifo "$tmp/in" || exit 99
			if [ $c = report ]; then
				set -- report "$tmp/in"
			else
				set -- diff "$tmp/in" "$tmp/g.data"
			fi
			timeout 60 "$hw" "$@" --svg "$D/nd/secret" >/dev/null 2>"$tmp/err" &
			pid=$!
			# once it opens the FIFO (its check is done): swap, then feed it
			python3 -c 'import os, sys, time, subprocess
while True:
    try:
        fd = os.open(sys.argv[1], os.O_WRONLY | os.O_NONBLOCK)
        break
    except OSError:
        time.sleep(0.01)
subprocess.run(sys.argv[3:], check=True)
os.set_blocking(fd, True)
os.write(fd, open(sys.argv[2], "rb").read())' "$tmp/in" "$tmp/g.data" \
				$nobody sh -c "mv '$D/nd' '$D/nd.old' && ln -s '$tmp/root' '$D/nd'" ||
				{ echo "ERROR: swap"; exit 99; }
			wait $pid
			rc=$?
			check "$w $c --svg, directory swapped: exit 1 (got $rc)" [ $rc = 1 ]
			check "$w $c --svg, directory swapped: said" grep -q \
				"^hwprof: --svg $D/nd/secret: its directory is not the one checked before the report was made" "$tmp/err"
			victims_ok "$w $c --svg, directory swapped"
		done
		# report --svg and --stats, diff --svg: a link or a FIFO refused
		plant "$D/r.svg"
		err "\-\-svg .*r.svg: a symbolic link; hwprof writes only regular files" \
			"$hw" report "$tmp/g.data" --svg "$D/r.svg"
		still_link "$D/r.svg" "$w report --svg"
		plant "$D/s.csv"
		err "\-\-stats .*s.csv: a symbolic link" \
			"$hw" report "$tmp/g.data" --format csv --stats "$D/s.csv"
		still_link "$D/s.csv" "$w report --stats"
		plant "$D/d.svg"
		err "\-\-svg .*d.svg: a symbolic link" \
			"$hw" diff "$tmp/g.data" "$tmp/g.data" --svg "$D/d.svg"
		still_link "$D/d.svg" "$w diff --svg"
		$nobody mkfifo "$D/f.svg" || exit 99
		err "\-\-svg .*f.svg: a FIFO" timeout 20 "$hw" report "$tmp/g.data" --svg "$D/f.svg"
		check "$w report --svg: the FIFO is left as it is" [ -p "$D/f.svg" ]
		victims_ok "$w report and diff"
		# gmon.out: a link is not followed (ELOOP, as glibc's gmon)
		plant "$D/gmon.out"
		said "^monitor: $D/gmon.out: Too many levels of symbolic links\$" 1 \
			env HWPROF_GMON_OUT="$D/gmon.out" "$writer" gmon
		still_link "$D/gmon.out" "$w gmon.out"
		victims_ok "$w gmon.out"
		# PAPI high-level output: papi_hl_output a link to root's directory
		mkdir "$D/hl1" && chmod 777 "$D/hl1" || exit 99
		plant "$D/hl1/papi_hl_output" "$tmp/root"
		said "^PAPI-HL: $D/hl1/papi_hl_output: a symbolic link: no output written\$" 0 \
			hl env PAPI_OUTPUT_DIRECTORY="$D/hl1" OMPI_COMM_WORLD_RANK=7
		still_link "$D/hl1/papi_hl_output" "$w papi_hl_output"
		# ... or nobody's directory with a link at the rank's name
		mkdir "$D/hl2" && chmod 777 "$D/hl2" || exit 99
		$nobody mkdir -m 777 "$D/hl2/papi_hl_output" || exit 99
		plant "$D/hl2/papi_hl_output/rank_000007.json" "$tmp/root/rank_000007.json"
		said "^PAPI-HL: $D/hl2/papi_hl_output: owned by uid 65534, not by this user \(uid 0\): no output written\$" 0 \
			hl env PAPI_OUTPUT_DIRECTORY="$D/hl2" OMPI_COMM_WORLD_RANK=7
		still_link "$D/hl2/papi_hl_output/rank_000007.json" "$w rank_000007.json"
		victims_ok "$w PAPI high-level output"
		# a hard link to root's file (root's own: protected_hardlinks keeps
		# nobody from making one) is replaced, not written through
		for f in rec.data h.svg gmon.out; do
			rm -f "$D/$f" && ln "$victim" "$D/$f" || exit 99
		done
		check "$w record -o HARDLINK" "$hw" record -q -e task-clock -o "$D/rec.data" -- true
		own_file "$D/rec.data" "$w record -o HARDLINK"
		check "$w report --svg HARDLINK" "$hw" report "$tmp/g.data" --svg "$D/h.svg"
		own_file "$D/h.svg" "$w report --svg HARDLINK"
		check "$w gmon.out HARDLINK" env HWPROF_GMON_OUT="$D/gmon.out" "$writer" gmon
		own_file "$D/gmon.out" "$w gmon.out HARDLINK"
		victims_ok "$w hard links"
		check "$w: no temp file left" sh -c "! ls -A '$D' | grep -q '^\\.'"
	done
	;;
setuid-hl)
	need_root
	mkdir -m 777 "$tmp/pub" || exit 99
	cp "$writer" "$tmp/pub/w" && chown 0:0 "$tmp/pub/w" && chmod 4755 "$tmp/pub/w" || exit 99
	(cd "$tmp/pub" && PAPI_EVENTS=perf::TASK-CLOCK PAPI_OUTPUT_DIRECTORY="$tmp/root" \
		SETUID_ROOT=1 OMPI_COMM_WORLD_RANK=7 $nobody ./w hl) >"$tmp/out" 2>"$tmp/err"
	rc=$?
	cat "$tmp/err"
	if [ $rc = 3 ]; then
		echo "SKIP: the set-user-ID bit has no effect in $tmp (a nosuid mount)"
		exit 77
	fi
	check "the set-user-ID program ran (status $rc)" [ $rc = 0 ]
	victims_ok "PAPI_OUTPUT_DIRECTORY in a set-user-ID program"
	check "its output went to its working directory instead" \
		[ -f "$tmp/pub/papi_hl_output/rank_000007.json" ]
	;;
hl-names)
	mkdir "$tmp/a" || exit 99
	# no launcher: the pid; a launcher's rank: the rank, six digits
	env -u OMPI_COMM_WORLD_RANK -u ALPS_APP_PE -u PMI_RANK -u SLURM_PROCID \
		PAPI_EVENTS=perf::TASK-CLOCK PAPI_OUTPUT_DIRECTORY="$tmp/a" "$writer" hl &
	pid=$!
	wait $pid
	check "no launcher: rank_<pid>.json" [ -f "$tmp/a/papi_hl_output/$(printf rank_%06d.json "$pid")" ]
	check "the directory is 0700" [ "$(stat -c %a "$tmp/a/papi_hl_output")" = 700 ]
	check "the region is in it" grep -q '"work"' "$tmp/a/papi_hl_output/$(printf rank_%06d.json "$pid")"
	rm -rf "$tmp/a/papi_hl_output"
	for v in OMPI_COMM_WORLD_RANK ALPS_APP_PE PMI_RANK SLURM_PROCID; do
		mkdir "$tmp/$v" || exit 99
		env -u OMPI_COMM_WORLD_RANK -u ALPS_APP_PE -u PMI_RANK -u SLURM_PROCID "$v=12" \
			PAPI_EVENTS=perf::TASK-CLOCK PAPI_OUTPUT_DIRECTORY="$tmp/$v" "$writer" hl
		check "$v=12: rank_000012.json" [ -f "$tmp/$v/papi_hl_output/rank_000012.json" ]
	done
	# PAPI 7.0's order: Open MPI's before Slurm's
	mkdir "$tmp/both" || exit 99
	OMPI_COMM_WORLD_RANK=3 SLURM_PROCID=9 PAPI_EVENTS=perf::TASK-CLOCK \
		PAPI_OUTPUT_DIRECTORY="$tmp/both" "$writer" hl
	check "OMPI_COMM_WORLD_RANK before SLURM_PROCID" [ -f "$tmp/both/papi_hl_output/rank_000003.json" ]
	# PAPI_OUTPUT_DIRECTORY's missing parts are made
	hl env PAPI_OUTPUT_DIRECTORY="$tmp/new/sub" OMPI_COMM_WORLD_RANK=1
	check "missing directories made" [ -f "$tmp/new/sub/papi_hl_output/rank_000001.json" ]
	# an earlier run's directory is renamed aside with its time of the
	# run; a name taken in one written this second gives the next number
	mkdir "$tmp/b" "$tmp/b/papi_hl_output" || exit 99
	echo old > "$tmp/b/papi_hl_output/rank_000005.json"
	touch -d '2001-02-03 04:05:06' "$tmp/b/papi_hl_output"
	hl env PAPI_OUTPUT_DIRECTORY="$tmp/b" OMPI_COMM_WORLD_RANK=5
	check "the old directory renamed aside" sh -c \
		"ls '$tmp/b' | grep -Eq '^papi_hl_output-[0-9]{8}-[0-9]{6}\$'"
	old=$(ls -d "$tmp"/b/papi_hl_output-* 2>/dev/null | head -1)
	eq "its file untouched" "$(cat "$old/rank_000005.json" 2>/dev/null)" old
	check "a new directory with the new file" grep -q '"work"' "$tmp/b/papi_hl_output/rank_000005.json"
	touch -d '+1 hour' "$tmp/b/papi_hl_output"	# "made this second by another rank"
	hl env PAPI_OUTPUT_DIRECTORY="$tmp/b" OMPI_COMM_WORLD_RANK=5
	check "a taken name: the next number" grep -q '"work"' "$tmp/b/papi_hl_output/rank_000006.json"
	eq "directories renamed aside (not the one changed this second)" \
		"$(ls -d "$tmp"/b/papi_hl_output-* | wc -l)" 1
	# refused: a link or a file at papi_hl_output (the user's own)
	mkdir "$tmp/c" "$tmp/target" || exit 99
	ln -s "$tmp/target" "$tmp/c/papi_hl_output"
	said "^PAPI-HL: $tmp/c/papi_hl_output: a symbolic link: no output written\$" 0 \
		hl env PAPI_OUTPUT_DIRECTORY="$tmp/c" OMPI_COMM_WORLD_RANK=1
	check "nothing written where the link points" [ -z "$(ls -A "$tmp/target")" ]
	rm "$tmp/c/papi_hl_output" && : > "$tmp/c/papi_hl_output"
	said "^PAPI-HL: $tmp/c/papi_hl_output: a regular file: no output written\$" 0 \
		hl env PAPI_OUTPUT_DIRECTORY="$tmp/c" OMPI_COMM_WORLD_RANK=1
	;;
*)
	echo "unknown case $case_"
	exit 99
	;;
esac
exit $fail
