#!/bin/sh
# SPDX-License-Identifier: MIT
# hwprof record never loses a profile: whatever ends the command (exit,
# _exit, a fatal signal, SIGKILL, a signal to record or to the whole
# process group), one data file holds every process of the tree, with its
# status, and exact page-fault counts where the work is known. Checked
# with tests/data-dump (tools/data.c), not with hwprof report.
# usage: test-record.sh CASE HWPROF DATA-DUMP REC-PROG [REC-PROG-STATIC]
set -u
case_=$1 hw=$2 dump=$3 prog=$4 static=${5:-}
tmp=$(mktemp -d) || exit 99
bg=
cleanup() {
	for p in $bg; do kill -KILL "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
fail=0
check() {	# description, then a command that must succeed
	d=$1
	shift
	if "$@"; then echo "ok: $d"; else echo "FAIL: $d"; fail=1; fi
}
# one line, starting "hwprof: ", and a non-zero exit
err() {	# expected words, then the command
	want=$1
	shift
	if "$@" >"$tmp/out" 2>"$tmp/err"; then
		echo "FAIL: '$*' succeeded"; fail=1; return
	fi
	n=$(wc -l < "$tmp/err")
	if [ "$n" -ne 1 ] || ! grep -q "^hwprof: .*$want" "$tmp/err"; then
		echo "FAIL: '$*' said:"; cat "$tmp/err"; fail=1
	else
		echo "ok: $(cat "$tmp/err")"
	fi
}
# a usage error: one line, starting "hwprof: ", and exit status 2
usage() {	# expected words, then the command
	want=$1
	shift
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	n=$(wc -l < "$tmp/err")
	if [ $rc != 2 ] || [ "$n" -ne 1 ] || ! grep -q "^hwprof: .*$want" "$tmp/err"; then
		echo "FAIL: '$*' exited $rc and said:"; cat "$tmp/err"; fail=1
	else
		echo "ok: 2: $(cat "$tmp/err")"
	fi
}
need() {	# a raw probe of the event, bypassing hwprof
	"$prog" probe "$1" || exit $?
}
in_func() {	# data file, function: the samples in it
	"$dump" "$1" func "$2" | awk '$1 == "total" { print $2 }'
}
proc_line() {	# data file, pid: its process line
	"$dump" "$1" | awk -v p="$2" '$1 == "process" && $2 == p'
}
root_line() {	# data file: the first process (ppid 0)
	"$dump" "$1" | awk '$1 == "process" { print; exit }'
}
waitfile() {	# up to 10 s for a file to appear
	i=0
	while [ ! -e "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -e "$1" ]
}
said() {	# file, words: up to 20 s for a line with them in the file
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
	grep -q "$2" "$1"
}
child_of() {	# the first child of a pid
	cat "/proc/$1/task/$1/children" 2>/dev/null | awk '{ print $1 }'
}
no_hwprof() {	# data file: no sample in hwprof's own objects
	! "$dump" "$1" | awk '$1 == "sample" && ($5 ~ /libhwprof/ || $5 ~ /\/hwprof$/)' | grep -q .
}

# A signal to the group (or to record alone) while the command spins: the
# file must be there with the command's samples, and record must exit as
# the command did.
signal_case() {	# signal name, number, "group" or "record", record's options
	need task-clock
	rm -f "$tmp/ready"
	"$prog" pgrp "$hw" record ${4:-} -e task-clock -c 1000000 -o "$tmp/s.data" -- \
		"$prog" spin "$tmp/ready" 2 &
	rpid=$!
	bg="$bg $rpid"
	check "the command started" waitfile "$tmp/ready"
	sleep 0.5
	if [ "$3" = group ]; then kill -s "$1" -- "-$rpid"; else kill -s "$1" "$rpid"; fi
	wait "$rpid"
	rc=$?
	check "record exits 128+$2 (got $rc)" [ "$rc" = $((128 + $2)) ]
	check "the file is written" test -s "$tmp/s.data"
	check "the command is recorded as killed by signal $2" \
		sh -c "'$dump' '$tmp/s.data' | awk '\$1 == \"process\" && \$3 == 0' | grep -q ' signal $2 '"
	n=$(in_func "$tmp/s.data" rec_spin)
	check "samples in rec_spin ($n)" [ "${n:-0}" -gt 50 ]
	check "no temp file left" [ "$(ls -A "$tmp" | grep -c '^\.s\.data')" = 0 ]
}

case $case_ in
exact)
	# exactly N samples where the program faults, and none
	# of hwprof's making
	need page-faults
	check "record" "$hw" record -e page-faults -c 1 -o "$tmp/d" -- "$prog" faults 50
	n=$(in_func "$tmp/d" rec_touch)
	check "exactly 50 samples in rec_touch (got $n)" [ "$n" = 50 ]
	check "no sample in hwprof's objects" no_hwprof "$tmp/d"
	check "one process, exited 0" sh -c "[ \"\$('$dump' '$tmp/d' | grep -c '^process')\" = 1 ]"
	check "its status" sh -c "'$dump' '$tmp/d' | grep -q '^process [0-9]* 0 exit 0 '"
	;;
regions)
	# --delay and --control: samples only inside the region, exactly
	need page-faults
	# --delay: 200 faults at once (before the delay ends), 2 s of sleep,
	# 200 more: only those
	"$hw" record -q -e page-faults -c 1 --delay 700 -o "$tmp/t" -- "$prog" timed 2500 200
	check "--delay: record exit 0" [ $? = 0 ]
	check "--delay: none of the first phase" [ "$(in_func "$tmp/t" rec_touch)" = 0 ]
	check "--delay: exactly the 200 after it (got $(in_func "$tmp/t" rec_touch_b))" \
		[ "$(in_func "$tmp/t" rec_touch_b)" = 200 ]
	# --control: off at the start (--delay -1), on for phase b, off for c
	mkfifo "$tmp/ctl" "$tmp/ack" || exit 99
	mkdir "$tmp/s"
	"$hw" record -q -e page-faults -c 1 --delay -1 --control "fifo:$tmp/ctl,$tmp/ack" \
		-o "$tmp/c" -- "$prog" phases "$tmp/s" 300 2> "$tmp/err" &
	rpid=$!
	bg="$bg $rpid"
	check "phase a done" waitfile "$tmp/s/a"
	echo enable > "$tmp/ctl"
	check "enable: ack" sh -c "[ \"\$(timeout 20 head -n 1 '$tmp/ack')\" = ack ]"
	touch "$tmp/s/b"
	check "phase b done" waitfile "$tmp/s/c"
	echo disable > "$tmp/ctl"
	check "disable: ack" sh -c "[ \"\$(timeout 20 head -n 1 '$tmp/ack')\" = ack ]"
	echo frob > "$tmp/ctl"
	check "an unknown command: err" sh -c "[ \"\$(timeout 20 head -n 1 '$tmp/ack')\" = err ]"
	# a line longer than record's buffer, whose tail says disable: dropped
	# whole (err), and the next line obeyed
	{ printf '%400s' '' | tr ' ' x; printf 'disable\nping\n'; } > "$tmp/ctl"
	check "a line too long: err, then ping: ack" sh -c \
		"[ \"\$(timeout 20 head -n 2 '$tmp/ack' | tr '\n' ' ')\" = 'err ack ' ]"
	touch "$tmp/s/d"
	wait "$rpid"
	check "--control: record exit 0" [ $? = 0 ]
	cat "$tmp/err"
	check "--control: the unknown command warned" grep -q "^hwprof: warning: --control: unknown command frob" "$tmp/err"
	check "--control: nothing before enable" [ "$(in_func "$tmp/c" rec_touch)" = 0 ]
	check "--control: exactly phase b's 300 (got $(in_func "$tmp/c" rec_touch_b))" \
		[ "$(in_func "$tmp/c" rec_touch_b)" = 300 ]
	check "--control: nothing after disable" [ "$(in_func "$tmp/c" rec_touch_c)" = 0 ]
	check "--control: kept + lost = the event's count" sh -c "! grep -q 'disagree' '$tmp/err'"
	usage "--delay -1: nothing would ever turn the events on without --control" \
		"$hw" record --delay -1 -- true
	usage "--control fifo:: fifo:CTL" "$hw" record --control fifo: -- true
	usage "CTL and ACK are two FIFOs" "$hw" record --control "fifo:$tmp/ctl,$tmp/ctl" -- true
	err "--control: $tmp/s/a: not a FIFO" "$hw" record --control "fifo:$tmp/s/a" -- true
	# a link to a FIFO is followed; to anything else it is refused before
	# what it leads to is opened for reading and writing: as nobody, a
	# link to root's 0600 file is "not a FIFO", never "Permission denied"
	mkfifo "$tmp/cf" && ln -s "$tmp/cf" "$tmp/cfl" || exit 99
	"$hw" record -q --control "fifo:$tmp/cfl" -o "$tmp/cfd" -- sh -c "echo ping > '$tmp/cf'"
	rc=$?
	check "--control: a link to a FIFO is followed (exit $rc)" [ $rc = 0 ]
	if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
		setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$hw"; then
		printf 'x\n' > "$tmp/rootonly" && chmod 600 "$tmp/rootonly" &&
			ln -s "$tmp/rootonly" "$tmp/rol" && chmod 755 "$tmp" &&
			mkdir -m 777 "$tmp/nw" || exit 99
		err "--control: $tmp/rol: not a FIFO" \
			setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$hw" record --control "fifo:$tmp/rol" -o "$tmp/nw/x" -- true
	else
		echo "note: not root, or nobody cannot run $hw: the link to another user's file is left out"
	fi
	;;
status)
	need page-faults
	"$hw" record -q -o "$tmp/a" -- sh -c 'exit 3'
	rc=$?
	check "sh -c 'exit 3' -> 3 (got $rc)" [ $rc = 3 ]
	check "recorded as exit 3" sh -c "'$dump' '$tmp/a' | grep -q '^process [0-9]* 0 exit 3 '"
	"$hw" record -q -e page-faults -c 1 -o "$tmp/b" -- "$prog" segv 20
	rc=$?
	check "SIGSEGV -> 139 (got $rc)" [ $rc = 139 ]
	check "recorded as signal 11" sh -c "'$dump' '$tmp/b' | grep -q '^process [0-9]* 0 signal 11 '"
	n=$(in_func "$tmp/b" rec_touch)
	check "its 20 faults kept (got $n)" [ "$n" = 20 ]
	"$hw" record -q -e page-faults -c 1 -o "$tmp/c" -- "$prog" _exit 5 30
	rc=$?
	check "_exit(5) -> 5 (got $rc)" [ $rc = 5 ]
	n=$(in_func "$tmp/c" rec_touch)
	check "_exit keeps its 30 faults (got $n)" [ "$n" = 30 ]
	"$hw" record -q -e page-faults -c 1 -o "$tmp/e" -- "$prog" exit 7 10
	rc=$?
	check "exit(7) -> 7 (got $rc)" [ $rc = 7 ]
	;;
sigint-group)
	signal_case INT 2 group ;;
sigterm-group)
	signal_case TERM 15 group ;;
sigterm-record)
	signal_case TERM 15 record ;;
sighup-record)
	signal_case HUP 1 record ;;
sigterm-dwarf)
	# --call-graph dwarf reads the rings in a thread of its own: signals
	# to record are still handled by record, the file still written
	[ "$(uname -m)" = x86_64 ] || { echo "SKIP: --call-graph dwarf is x86-64 only"; exit 77; }
	signal_case TERM 15 record "--call-graph dwarf" ;;
sigkill-command)
	need task-clock
	"$hw" record -e task-clock -o "$tmp/k" -- "$prog" spin "$tmp/ready" &
	rpid=$!
	bg="$bg $rpid"
	check "the command started" waitfile "$tmp/ready"
	sleep 0.5
	c=$(child_of "$rpid")
	check "the command's pid ($c)" [ -n "$c" ]
	kill -KILL "$c"
	wait "$rpid"
	rc=$?
	check "record exits 137 (got $rc)" [ $rc = 137 ]
	check "recorded as signal 9" sh -c "'$dump' '$tmp/k' | grep -q '^process $c 0 signal 9 '"
	n=$(in_func "$tmp/k" rec_spin)
	check "samples in rec_spin ($n)" [ "${n:-0}" -gt 50 ]
	;;
shell-loop)
	# 200 commands under dash: one file, every process in it
	need task-clock
	check "record" "$hw" record -q -o "$tmp/l" -- sh -c \
		'i=0; while [ $i -lt 200 ]; do /bin/true; i=$((i+1)); done'
	check "one file in the directory" [ "$(ls -A "$tmp" | wc -l)" = 1 ]
	n=$("$dump" "$tmp/l" | grep -c '^process')
	check "201 processes (got $n)" [ "$n" = 201 ]
	n=$("$dump" "$tmp/l" | awk '$1 == "process" && $3 != 0 && $6 ~ /true/' | wc -l)
	check "200 of them ran true (got $n)" [ "$n" = 200 ]
	;;
workers)
	# forked workers that end by _exit, as a process pool's do
	need page-faults
	check "record" "$hw" record -q -e page-faults -c 1 -o "$tmp/w" -- "$prog" workers 8 25
	"$dump" "$tmp/w" func rec_touch > "$tmp/per"
	cat "$tmp/per"
	n=$(awk '$1 != "total" && $3 == 25' "$tmp/per" | wc -l)
	check "8 workers with exactly 25 samples each (got $n)" [ "$n" = 8 ]
	check "total 200" grep -qx 'total 200' "$tmp/per"
	n=$("$dump" "$tmp/w" | grep -c '^process')
	check "9 processes (got $n)" [ "$n" = 9 ]
	;;
python-pool)
	need task-clock
	command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
	# a multi-line python3 -c: the newlines must survive
	check "record" "$hw" record -q -e task-clock -c 1000000 -o "$tmp/p" -- python3 -c '
import multiprocessing as mp
def burn(n):
    x = 0
    for i in range(n):
        x += i * i
    return x
if __name__ == "__main__":
    with mp.Pool(4) as p:
        print(sum(p.map(burn, [3000000] * 8)))'
	"$dump" "$tmp/p" > "$tmp/pd"
	check "the file reads back" [ -s "$tmp/pd" ]
	np=$(grep -c '^process' "$tmp/pd")
	check "at least 5 processes (got $np)" [ "$np" -ge 5 ]
	nw=$(awk '$1 == "sample" { n[$3] += $7 } END { for (p in n) if (n[p] > 20) k++; print k + 0 }' "$tmp/pd")
	check "at least 4 processes with samples (got $nw)" [ "$nw" -ge 4 ]
	tot=$(awk '$1 == "sample" { t += $7 } END { print t + 0 }' "$tmp/pd")
	root=$(awk '$1 == "process" { print $2; exit }' "$tmp/pd")
	inroot=$(awk -v r="$root" '$1 == "sample" && $3 == r { t += $7 } END { print t + 0 }' "$tmp/pd")
	check "the workers hold most samples ($inroot of $tot in the parent)" \
		[ $((inroot * 2)) -lt "$tot" ]
	check "the command line kept its newlines" grep -q 'import multiprocessing' "$tmp/p"
	;;
static)
	need page-faults
	[ -n "$static" ] || { echo "SKIP: no static build of rec-prog (sanitizers)"; exit 77; }
	check "record a static program" "$hw" record -q -e page-faults -c 1 -o "$tmp/s" -- "$static" faults 40
	n=$(in_func "$tmp/s" rec_touch)
	check "exactly 40 samples in rec_touch (got $n)" [ "$n" = 40 ]
	;;
threads)
	# 1024 threads as an unprivileged user, every one covered
	need page-faults
	run=""
	if [ "$(id -u)" = 0 ]; then
		command -v setpriv >/dev/null || { echo "SKIP: root, and no setpriv to drop to nobody"; exit 77; }
		run="setpriv --reuid=65534 --regid=65534 --clear-groups"
		chmod 777 "$tmp"
		$run test -x "$prog" -a -x "$hw" || { echo "SKIP: nobody cannot run the build tree"; exit 77; }
	fi
	check "record 1024 threads" $run "$hw" record -q -e page-faults -c 1 -o "$tmp/t" -- \
		"$prog" threads 1024 4
	"$dump" "$tmp/t" func rec_touch > "$tmp/per"
	n=$(awk '$1 != "total" && $3 == 4' "$tmp/per" | wc -l)
	check "1024 threads with exactly 4 samples each (got $n)" [ "$n" = 1024 ]
	check "total 4096" grep -qx 'total 4096' "$tmp/per"
	check "no thread missed" sh -c "'$dump' '$tmp/t' | grep -q '^event page-faults 1 [0-9]* [0-9]* 0\$'"
	;;
fsize)
	# the program's RLIMIT_FSIZE is not record's
	need page-faults
	"$hw" record -q -e page-faults -c 1 -o "$tmp/f" -- "$prog" fsize 10
	rc=$?
	check "exit 0 (got $rc)" [ $rc = 0 ]
	n=$(in_func "$tmp/f" rec_touch)
	check "10 samples written (got $n)" [ "$n" = 10 ]
	check "no temp file left" [ "$(ls -A "$tmp")" = f ]
	;;
output)
	# never replace what is not a regular file (hwprof(1), -o)
	need task-clock
	err "/dev/null: a character device" "$hw" record -o /dev/null -- true
	check "/dev/null is still a device" test -c /dev/null
	err "/proc/version:" "$hw" record -o /proc/version -- true
	mkfifo "$tmp/fifo"
	err "fifo: a FIFO" "$hw" record -o "$tmp/fifo" -- true
	check "the FIFO is still there" test -p "$tmp/fifo"
	mkdir "$tmp/dir"
	err "dir: a directory" "$hw" record -o "$tmp/dir" -- true
	err "cannot create a file beside it" "$hw" record -o "$tmp/nodir/x" -- true
	# a relative -o is where record started, whatever the program does
	mkdir "$tmp/a" "$tmp/b"
	(cd "$tmp/a" && "$hw" record -q -e page-faults -c 1 -o rel.data -- "$prog" chdir "$tmp/b" 3)
	check "relative -o written where record started" test -s "$tmp/a/rel.data"
	check "not where the program went" test ! -e "$tmp/b/rel.data"
	# a symbolic link is refused, dangling or not; nothing is changed
	: > "$tmp/target"
	ln -s target "$tmp/link"
	ln -s nowhere "$tmp/dangling"
	err "link: a symbolic link; hwprof record writes only regular files" \
		"$hw" record -q -o "$tmp/link" -- true
	check "the link is kept" test -L "$tmp/link"
	check "its target is untouched" test ! -s "$tmp/target"
	err "dangling: a symbolic link; hwprof record writes only regular files" \
		"$hw" record -q -o "$tmp/dangling" -- true
	check "the dangling link is kept" test -L "$tmp/dangling"
	check "nothing made where it points" test ! -e "$tmp/nowhere"
	# a regular file is replaced, never more open than it was
	: > "$tmp/old"
	chmod 600 "$tmp/old"
	check "record -o OLD" "$hw" record -q -o "$tmp/old" -- true
	check "OLD holds the data" grep -q '^hwprof-data 4' "$tmp/old"
	check "OLD is still 0600 (got $(stat -c %a "$tmp/old"))" [ "$(stat -c %a "$tmp/old")" = 600 ]
	;;
attach)
	need task-clock
	"$prog" spin "$tmp/ready" 3 &
	tpid=$!
	bg="$bg $tpid"
	check "the target started" waitfile "$tmp/ready"
	"$hw" record -e task-clock -o "$tmp/p1" -p "$tpid" 2> "$tmp/said" &
	rpid=$!
	bg="$bg $rpid"
	check "record attached" said "$tmp/said" recording
	sleep 1
	kill -INT "$rpid"
	wait "$rpid"
	rc=$?
	check "record -p exits 0 on SIGINT (got $rc)" [ $rc = 0 ]
	check "the target still runs" kill -0 "$tpid"
	"$dump" "$tmp/p1" func rec_spin > "$tmp/per"
	cat "$tmp/per"
	n=$(awk -v p="$tpid" '$1 == p && $3 > 20' "$tmp/per" | wc -l)
	check "3 threads with samples in rec_spin (got $n)" [ "$n" = 3 ]
	# its PPID is its real parent, this shell (hwprof-data(5))
	check "-p: PPID is the real parent, $$" sh -c "'$dump' '$tmp/p1' | grep -q '^process $tpid $$ '"
	# until the target ends
	"$hw" record -e task-clock -o "$tmp/p2" -p "$tpid" 2> "$tmp/said2" &
	rpid=$!
	bg="$bg $rpid"
	check "record attached" said "$tmp/said2" recording
	sleep 0.5
	kill -KILL "$tpid"
	i=0
	while kill -0 "$rpid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	check "record -p ends with its target" sh -c "! kill -0 $rpid 2>/dev/null"
	wait "$rpid"
	check "its file is written" test -s "$tmp/p2"
	check "the target is recorded as ended" sh -c "'$dump' '$tmp/p2' | grep -q '^process $tpid [0-9]* ended '"
	err "-p 2147483647: no such process" "$hw" record -p 2147483647
	;;
attach-thread)
	# -p of a thread that is not its process's leader records the
	# process, said in one line: one process, every sample named, and
	# the threads' names (from /proc at the attach)
	need task-clock
	"$prog" spin "$tmp/ready" 3 &
	tpid=$!
	bg="$bg $tpid"
	check "the target started" waitfile "$tmp/ready"
	tid=$(ls "/proc/$tpid/task" | grep -vx "$tpid" | head -1)
	check "a second thread ($tid)" [ -n "$tid" ]
	"$hw" record -e task-clock -o "$tmp/t" -p "$tid" 2> "$tmp/said" &
	rpid=$!
	bg="$bg $rpid"
	check "record attached" said "$tmp/said" recording
	sleep 1
	kill -INT "$rpid"
	wait "$rpid"
	rc=$?
	cat "$tmp/said"
	check "exit 0 (got $rc)" [ $rc = 0 ]
	check "said: a thread of process $tpid" \
		grep -q "^hwprof: -p $tid is a thread of process $tpid: recording process $tpid" "$tmp/said"
	n=$("$dump" "$tmp/t" | grep -c '^process')
	check "one process in the file (got $n)" [ "$n" = 1 ]
	check "it is $tpid" sh -c "'$dump' '$tmp/t' | grep -q '^process $tpid '"
	"$dump" "$tmp/t" func rec_spin > "$tmp/per"
	n=$(awk -v p="$tpid" '$1 == p && $3 > 20' "$tmp/per" | wc -l)
	check "3 threads with samples in rec_spin (got $n)" [ "$n" = 3 ]
	n=$("$dump" "$tmp/t" | awk '$1 == "sample" && $5 == "-" { n += $7 } END { print n + 0 }')
	check "no sample outside an object (got $n)" [ "$n" = 0 ]
	check "the main thread named rec-prog" grep -q "^thread [0-9]* 0 $tpid rec-prog\$" "$tmp/t"
	n=$(grep -c '^thread [0-9]* 0 [0-9]* rec-spin$' "$tmp/t")
	check "the 2 others named rec-spin (got $n)" [ "$n" = 2 ]
	;;
lost)
	# samples the kernel could not write (record stopped while the
	# command faults 5000 pages into 2-page rings) are said when the
	# file is written, with their count and the cure
	need page-faults
	mkdir "$tmp/g"
	"$hw" record -m 2 -e page-faults -c 1 --checkpoint 1 -o "$tmp/l" -- \
		"$prog" gated "$tmp/g" 5000 2> "$tmp/said" &
	rpid=$!
	bg="$bg $rpid"
	check "the command started" waitfile "$tmp/g/ready"
	kill -STOP "$rpid"
	: > "$tmp/g/go"
	check "the command faulted" waitfile "$tmp/g/done"
	kill -CONT "$rpid"
	# the kernel's count of lost samples comes with the next sample it
	# can write (the command faults on): until a checkpoint holds it
	i=0
	until [ "$("$dump" "$tmp/l" 2>/dev/null | awk '$1 == "event" { print $5 }')" -gt 0 ] \
		2>/dev/null || [ $i -ge 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	: > "$tmp/g/stop"
	wait "$rpid"
	rc=$?
	cat "$tmp/said"
	check "exit 0 (got $rc)" [ $rc = 0 ]
	lost=$("$dump" "$tmp/l" | awk '$1 == "event" { print $5 }')
	n=$(in_func "$tmp/l" rec_touch)
	check "most of the 5000 lost (lost $lost, kept $n in rec_touch)" [ "${lost:-0}" -gt 2500 ]
	check "kept + lost cover the 5000" [ $((${n:-0} + ${lost:-0})) -ge 5000 ]
	check "said: the count, the event and the cure" grep -qx \
		"hwprof: warning: lost $lost samples of page-faults (rings full): use -m PAGES for bigger rings (these had 2 pages), or a longer period" \
		"$tmp/said"
	"$hw" record -q -m 64 -e page-faults -c 1 -o "$tmp/q" -- "$prog" faults 10 2> "$tmp/said"
	check "no loss, nothing said" [ ! -s "$tmp/said" ]
	usage "-m 3: not a power of two" "$hw" record -m 3 -- true
	usage "-m 1: not a power of two" "$hw" record -m 1 -- true
	usage "-m 0: not a positive" "$hw" record -m 0 -- true
	usage "--mmap-pages x: not a positive" "$hw" record --mmap-pages x -- true
	usage "--mmap-pages needs a value" "$hw" record --mmap-pages
	usage "-m 2097152: too large" "$hw" record -m 2097152 -- true
	;;
sideband)
	# side-band records the kernel dropped (record stopped while the
	# command maps and unmaps an executable page 4 x 5000 times into
	# 8-page side-band rings: -m 16's sixteenth, raised to the least) are
	# counted in the file and in every report; the 20 children whose exit
	# records were dropped with them are marked unseen, not running
	need page-faults
	mkdir "$tmp/g"
	"$hw" record -m 16 -e page-faults -c 1 --checkpoint 1 -o "$tmp/l" -- \
		"$prog" sideband "$tmp/g" 20 5000 2> "$tmp/said" &
	rpid=$!
	bg="$bg $rpid"
	check "the command started" waitfile "$tmp/g/ready"
	kill -STOP "$rpid"
	: > "$tmp/g/go"
	check "the command mapped, its children ended" waitfile "$tmp/g/done"
	kill -CONT "$rpid"
	# the kernel reports a ring's drops with the next record it can
	# write there (the command maps a page on every CPU every 10 ms):
	# until a checkpoint holds them
	i=0
	until [ "$("$dump" "$tmp/l" 2>/dev/null | awk '$1 == "sideband-lost" { print $2 }')" \
		-gt 0 ] 2>/dev/null || [ $i -ge 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	check "a checkpoint says it is one" sh -c "'$dump' '$tmp/l' | grep -qx checkpoint"
	: > "$tmp/g/stop"
	wait "$rpid"
	rc=$?
	cat "$tmp/said"
	check "exit 0 (got $rc)" [ $rc = 0 ]
	n=$("$dump" "$tmp/l" | awk '$1 == "sideband-lost" { print $2 }')
	check "the file counts the dropped side-band records ($n)" [ "${n:-0}" -gt 0 ]
	check "the last write is no checkpoint" sh -c "! '$dump' '$tmp/l' | grep -qx checkpoint"
	check "record said the same count" grep -q \
		"^hwprof: warning: the kernel dropped $n mmap/comm/fork/exit records" "$tmp/said"
	root=$(root_line "$tmp/l" | awk '{ print $2 }')
	"$dump" "$tmp/l" | awk -v r="$root" '$1 == "process" && $3 == r' > "$tmp/kids"
	check "the 20 children are in the file" [ "$(wc -l < "$tmp/kids")" = 20 ]
	check "all 20 unseen, none running" [ "$(grep -c ' unseen ' "$tmp/kids")" = 20 ]
	check "record said so" grep -q \
		"^hwprof: warning: 20 processes ended unseen (the kernel dropped exit records)" \
		"$tmp/said"
	"$hw" report "$tmp/l" > "$tmp/text" 2> "$tmp/err"
	check "report's header: the count" grep -q \
		"^# side-band records lost: $n (mmap, comm, fork, exit)  processes whose end was not seen: 20\$" \
		"$tmp/text"
	check "report's header: the warnings" sh -c "grep -q '^# warning: the kernel dropped $n side-band records' '$tmp/text' &&
		grep -q '^# warning: 20 processes ended unseen' '$tmp/text'"
	check "and on stderr" grep -q "^hwprof: warning: the kernel dropped $n side-band records" \
		"$tmp/err"
	check "json: the numbers and the warnings" sh -c "'$hw' report '$tmp/l' --format json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d[\"sideband_lost\"] == $n and d[\"end_not_seen\"] == 20 and d[\"checkpoint\"] is False, d
assert any(\"dropped $n side-band records\" in w for w in d[\"warnings\"]), d[\"warnings\"]
assert any(\"20 processes ended unseen\" in w for w in d[\"warnings\"]), d[\"warnings\"]
'"
	"$hw" report "$tmp/l" --format csv --stats "$tmp/stats.csv" > /dev/null 2>&1
	check "csv --stats: the columns and the warnings" python3 -c "
import csv
r = list(csv.DictReader(open('$tmp/stats.csv')))[0]
assert r['sideband_lost'] == '$n' and r['end_not_seen'] == '20' and r['checkpoint'] == '0', r
assert 'dropped $n side-band records' in r['warnings'], r['warnings']
"
	"$hw" record -q -e page-faults -c 1 -o "$tmp/q" -- "$prog" workers 4 10 2> "$tmp/said"
	check "no loss: nothing said" [ ! -s "$tmp/said" ]
	check "no loss: no sideband-lost line, no unseen process" sh -c \
		"! grep -q '^sideband-lost\|^process .* unseen ' '$tmp/q'"
	check "no loss: its workers ended" [ "$("$dump" "$tmp/q" | grep -c '^process .* ended ')" = 4 ]
	;;
setid)
	# what the kernel refuses an unprivileged user is said for what it
	# is: another user's process (-p) fails its ptrace access check,
	# which perf_event_paranoid does not govern; a set-user-ID command
	# is not monitored past its exec (it is not dumpable)
	need page-faults
	[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (a set-user-ID root program, a root process)"; exit 77; }
	command -v setpriv >/dev/null || { echo "SKIP: root, and no setpriv to drop to nobody"; exit 77; }
	run="setpriv --reuid=65534 --regid=65534 --clear-groups"
	chmod 755 "$tmp"
	mkdir -m 777 "$tmp/n"
	$run test -x "$prog" -a -x "$hw" || { echo "SKIP: nobody cannot run the build tree"; exit 77; }
	"$prog" spin "$tmp/ready" &
	tpid=$!
	bg="$bg $tpid"
	check "root's target started" waitfile "$tmp/ready"
	err "ptrace access check refuses it: process $tpid is another user's (uid 0); perf_event_paranoid does not matter: run as its user, or with CAP_PERFMON or CAP_SYS_PTRACE" \
		$run "$hw" record -e page-faults -o "$tmp/n/p" -p "$tpid"
	check "not told to lower perf_event_paranoid" sh -c "! grep -q 'sysctl' '$tmp/err'"
	check "no file" test ! -e "$tmp/n/p"
	# the cure it names: nobody with CAP_PERFMON attaches
	if $run --inh-caps +perfmon --ambient-caps +perfmon true 2>/dev/null; then
		$run --inh-caps +perfmon --ambient-caps +perfmon "$hw" record -q -e page-faults \
			-o "$tmp/n/p" -p "$tpid" 2> "$tmp/said" &
		rpid=$!
		bg="$bg $rpid"
		sleep 1
		kill -INT "$rpid"
		wait "$rpid"
		rc=$?
		check "nobody with CAP_PERFMON: attached and wrote the file (exit $rc)" \
			sh -c "[ $rc = 0 ] && '$dump' '$tmp/n/p' | grep -q '^process $tpid '"
	else
		echo "SKIP part: setpriv cannot give CAP_PERFMON here"
	fi
	kill "$tpid"
	cp "$prog" "$tmp/suid" && chmod 4755 "$tmp/suid" || exit 99
	if findmnt -n -o OPTIONS -T "$tmp" | grep -qw nosuid; then
		echo "SKIP: $tmp is on a nosuid mount"; exit 77
	fi
	(cd "$tmp/n" && $run "$hw" record -e page-faults -c 1 -o "$tmp/n/s" -- "$tmp/suid" faults 50) \
		2> "$tmp/said"
	rc=$?
	cat "$tmp/said"
	check "the set-user-ID command ran: exit 0 (got $rc)" [ $rc = 0 ]
	check "no samples of it" [ "$(in_func "$tmp/n/s" rec_touch)" = 0 ]
	check "one line says why" [ "$(grep -c "^hwprof: warning: $tmp/n/s holds no samples of $tmp/suid after its exec: it is set-user-ID: its exec changes the process's user, so the kernel stops monitoring it (it is not dumpable)" "$tmp/said")" = 1 ]
	# root runs it as root (no change of user): monitored, nothing said
	"$hw" record -q -e page-faults -c 1 -o "$tmp/r" -- "$tmp/suid" faults 50 2> "$tmp/said"
	check "root: its 50 samples" [ "$(in_func "$tmp/r" rec_touch)" = 50 ]
	check "root: nothing said" [ ! -s "$tmp/said" ]
	# nobody's own process: no such line, the samples are there
	(cd "$tmp/n" && $run "$hw" record -q -e page-faults -c 1 -o "$tmp/n/o" -- "$prog" faults 50) \
		2> "$tmp/said"
	check "nobody's own command: its 50 samples" [ "$(in_func "$tmp/n/o" rec_touch)" = 50 ]
	check "nobody's own command: nothing said" [ ! -s "$tmp/said" ]
	;;
seccomp)
	# a seccomp filter that denies perf_event_open is named, not blamed
	# on perf_event_paranoid; nothing runs, no file
	need task-clock
	out=$("$prog" seccomp true) || { echo "$out"; exit 77; }
	err "perf_event_open is denied by a seccomp filter" \
		"$prog" seccomp "$hw" record -e task-clock -o "$tmp/s" -- sh -c ": > '$tmp/ran'"
	check "no sysctl advice" sh -c "! grep -q sysctl '$tmp/err'"
	check "the command did not run" test ! -e "$tmp/ran"
	check "no file written" test ! -e "$tmp/s"
	;;
write-fails)
	# a file that cannot be written: exit 1 and one line that names it
	# (RLIMIT_FSIZE's SIGXFSZ must not kill record; its stderr goes
	# through a pipe, which the limit does not cover)
	need task-clock
	if grep -qa __tsan_init "$hw"; then
		echo "SKIP: ThreadSanitizer's runtime writes /tmp/tsan.rodata.PID before main, so ulimit -f 0 kills this build of hwprof first"
		exit 77
	fi
	{ sh -c "ulimit -f 0; exec '$hw' record -q -e task-clock -o '$tmp/fz' -- true"
	  echo $? > "$tmp/rc"; } 2>&1 | cat > "$tmp/said"
	rc=$(cat "$tmp/rc")
	cat "$tmp/said"
	check "ulimit -f 0: exit 1 (got $rc)" [ "$rc" = 1 ]
	check "one line: the file and EFBIG" grep -qx "hwprof: $tmp/fz: File too large" "$tmp/said"
	check "nothing else said" [ "$(wc -l < "$tmp/said")" = 1 ]
	check "no file, no temp file left" [ -z "$(ls -A "$tmp" | grep fz)" ]
	# a limit that lets the profile through but not its names: the first
	# write stands, and the line says so (hwprof(1) EXIT STATUS)
	"$hw" record -q -e page-faults -c 1 -o "$tmp/full" -- "$prog" faults 50 ||
		{ echo "FAIL: record without a limit"; fail=1; }
	found=0 k=1
	while [ $k -le 16 ] && [ $found = 0 ]; do
		rm -f "$tmp/fn"
		{ sh -c "ulimit -f $k; exec '$hw' record -q -e page-faults -c 1 -o '$tmp/fn' -- '$prog' faults 50"
		  echo $? > "$tmp/rc"; } 2>&1 | cat > "$tmp/said"
		# the first write: the profile with its count line, no names
		if [ -e "$tmp/fn" ] && ! grep -q '^kept ' "$tmp/fn"; then
			found=1
			cat "$tmp/said"
			check "names cut: exit 1" [ "$(cat "$tmp/rc")" = 1 ]
			check "names cut: one line that says the file is kept without names" \
				grep -qx "hwprof: $tmp/fn: File too large: the file is kept without the names (report reads them from the objects)" "$tmp/said"
			check "names cut: nothing else said" [ "$(wc -l < "$tmp/said")" = 1 ]
			check "names cut: the file is whole" [ "$(tail -n 1 "$tmp/fn")" = end ]
			# hwprof(1) EXIT STATUS: the same version, less the names
			check "names cut: the version of the whole file" \
				[ "$(head -n 1 "$tmp/fn")" = "$(head -n 1 "$tmp/full")" ]
			check "names cut: no name line" sh -c "! grep -Eq '^(sym|src|line) ' '$tmp/fn'"
			check "names cut: the full file has them" grep -Eq '^sym ' "$tmp/full"
			check "names cut: the profile is all there (the 50 faults at least)" \
				[ "$("$dump" "$tmp/fn" | awk '/^sample / { n += $NF } END { print n + 0 }')" -ge 50 ]
		fi
		k=$((k + 1))
	done
	check "some ulimit -f keeps the profile without its names" [ $found = 1 ]
	;;
anon)
	# JIT code: anonymous executable memory is in no object (object -,
	# the pc itself: hwprof-data(5)); report shows it in [anon], with no
	# warning about a file it cannot read (hwprof(1))
	need page-faults
	"$prog" anon 1 >/dev/null || exit $?	# 77: not x86-64
	check "record anon 64" "$hw" record -q -e page-faults -c 1 -o "$tmp/an" -- "$prog" anon 64
	check "no object for //anon" sh -c "! grep -q '^object .*anon' '$tmp/an'"
	check "64 samples at one pc in no object" sh -c \
		"grep -Eq '^s 0 0 - [0-9a-f]+ 64\$' '$tmp/an'"
	"$hw" report "$tmp/an" --format csv > "$tmp/csv" 2> "$tmp/said"
	cat "$tmp/said"
	check "report: the row in [anon], named by its address" \
		grep -Eq '^[0-9.]+,64,"0x[0-9a-f]+","\[anon\]"$' "$tmp/csv"
	check "report: no warning" [ ! -s "$tmp/said" ]
	check "report text: no warning line" sh -c "! '$hw' report '$tmp/an' | grep -q warning"
	;;
exit-status)
	need task-clock
	# usage errors, unknown options and bad values alike: 2
	usage "unknown option --frob" "$hw" record --frob -- true
	usage "-c x: not a positive whole number" "$hw" record -c x -- true
	usage "-c 0: not a positive whole number" "$hw" record -c 0 -- true
	usage "-c 9223372036854775808: too large" "$hw" record -c 9223372036854775808 -- true
	usage "-F 2000000000: above the kernel's limit" "$hw" record -F 2000000000 -- true
	usage "-p x: not a positive whole number" "$hw" record -p x
	usage "--checkpoint 90000: too large" "$hw" record --checkpoint 90000 -- true
	usage "--checkpoint needs a value" "$hw" record --checkpoint
	usage "give -c or -F, not both" "$hw" record -c 1 -F 5 -- true
	usage "give -p PID or a command, not both" "$hw" record -p 1 -- true
	usage "-F needs a clock or cycles event" "$hw" record -e page-faults -F 99 -- true
	usage "mem:foo: only execute breakpoints" "$hw" record -e mem:foo -- true
	usage "mem:0x1000:r: only execute breakpoints" "$hw" record -e mem:0x1000:r -- true
	usage "mem:0x1000: only execute breakpoints" "$hw" record -e mem:0x1000 -- true
	usage "mem:0xzz:x: bad hex address" "$hw" record -e mem:0xzz:x -- true
	# --opt=VALUE and -XVALUE as getopt_long takes them (hwprof(1))
	usage "--count x: not a positive whole number" "$hw" record --count=x -- true
	usage "-c x: not a positive whole number" "$hw" record -cx -- true
	usage "--quiet takes no value" "$hw" record --quiet=1 -- true
	check "--event=task-clock --count=1000000 --output=FILE" \
		"$hw" record -q --event=task-clock --count=1000000 --output="$tmp/eq" -- true
	check "-etask-clock -c1000000 -oFILE" \
		"$hw" record -q -etask-clock -c1000000 -o"$tmp/eq2" -- true
	check "--output=FILE wrote FILE" [ -s "$tmp/eq" ] && check "-oFILE wrote FILE" [ -s "$tmp/eq2" ]
	# one sample is "1 sample" (main runs once: an execute breakpoint)
	if "$hw" list 2>/dev/null | grep -q '^  mem:ADDR:x, mem:FUNC:x *yes'; then
		"$hw" record -e mem:main:x -o "$tmp/one" -- "$prog" faults 1 2> "$tmp/said"
		check "one sample: (1 sample, 1 process)" \
			grep -q "^hwprof: wrote $tmp/one (1 sample, 1 process); " "$tmp/said"
	else
		echo "SKIP part: execute breakpoints do not fire here (1 sample)"
	fi
	usage "-e: an empty event name" "$hw" record -e '' -- true
	usage "-o $tmp/a%x: %x is not one of" "$hw" record -o "$tmp/a%x" -- true
	usage "-o $tmp/: not a file name" "$hw" record -o "$tmp/" -- true
	"$hw" record > /dev/null 2>&1
	rc=$?
	check "no command: 2 (got $rc)" [ $rc = 2 ]
	# an error of the run, not of the usage: 1
	"$hw" record -e no-such-event -- true 2> /dev/null
	rc=$?
	check "an unknown event: 1 (got $rc)" [ $rc = 1 ]
	# the period line says "its default" only of a period no option chose
	# (the kernel lowers its rate limit when sampling costs it too much)
	f=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
	[ "$f" -gt 100000 ] && f=100000
	"$hw" record -F "$f" -o "$tmp/m" -- true 2> "$tmp/msg"
	cat "$tmp/msg"
	check "-F $f: at $f Hz" grep -q "every [0-9]* ns ([0-9.]* [mun]*s, $f Hz)" "$tmp/msg"
	check "-F $f: not its default" sh -c "! grep -q 'its default' '$tmp/msg'"
	"$hw" record -F 100 -e task-clock -o "$tmp/m" -- true 2> "$tmp/msg"
	check "-F 100 -e task-clock: not its default" sh -c "! grep -q 'its default' '$tmp/msg'"
	"$hw" record -o "$tmp/m" -- true 2> "$tmp/msg"
	check "no option: 1 ms, its default" grep -q '(1 ms, 1000 Hz, its default)' "$tmp/msg"
	;;
full-disk)
	# a full file system: exit 1, one line, the old file kept whole
	need task-clock
	[ "$(id -u)" = 0 ] && command -v unshare >/dev/null ||
		{ echo "SKIP: a full file system needs root and unshare to mount one"; exit 77; }
	mkdir "$tmp/full"
	unshare -m sh -c "mount -t tmpfs -o size=4k hwprof-full '$tmp/full'" 2> /dev/null ||
		{ echo "SKIP: cannot mount a tmpfs here"; exit 77; }
	unshare -m sh -c "mount -t tmpfs -o size=8k hwprof-full '$tmp/full' &&
		echo old > '$tmp/full/f' &&
		{ head -c 8192 /dev/zero > '$tmp/full/fill'; true; } 2> /dev/null &&
		'$hw' record -q -e task-clock -o '$tmp/full/f' -- true 2> '$tmp/said'
		echo \$? > '$tmp/rc'; cat '$tmp/full/f' > '$tmp/after'; ls -A '$tmp/full' > '$tmp/ls'"
	rc=$(cat "$tmp/rc")
	cat "$tmp/said"
	check "full disk: exit 1 (got $rc)" [ "$rc" = 1 ]
	check "one line: the file and ENOSPC" \
		grep -qx "hwprof: $tmp/full/f: No space left on device" "$tmp/said"
	check "the old file kept whole" grep -qx old "$tmp/after"
	check "no temp file left" [ "$(cat "$tmp/ls" | tr '\n' ' ')" = "f fill " ]
	;;
uncovered)
	# every file in which an event or a thread was not covered is said
	# when record writes it: three events under ulimit -n 9..20 (the
	# command's own exit status stays record's), never a file that lacks
	# an event's samples without a warning
	need page-faults
	# (enough for all: the three and the side-band event on every CPU)
	top=$(($(nproc --all 2>/dev/null || echo 64) * 4 + 16))
	warned=0 none=0 clean=0 n=9
	while [ $n -le 20 ] || [ $n = $top ]; do
		rm -f "$tmp/u"
		sh -c "ulimit -n $n; exec '$hw' record -q -e task-clock -e page-faults -e cpu-clock \
			-o '$tmp/u' -- '$prog' exit 3 10" 2> "$tmp/said"
		rc=$?
		[ $rc = 3 ] || { echo "FAIL: ulimit -n $n: exit $rc, not the command's 3"; fail=1; }
		for ev in task-clock page-faults cpu-clock; do
			m=$("$dump" "$tmp/u" | awk -v e=$ev '$1 == "event" && $2 == e { print $6 }')
			w=$(grep -c "^hwprof: warning: $ev[: ].*out-of-file-descriptors" "$tmp/said")
			if [ "${m:-x}" != 0 ] && [ "$w" != 1 ]; then
				echo "FAIL: ulimit -n $n: $ev missed ${m:-?} threads, $w warnings:"
				cat "$tmp/said"; fail=1
			fi
			[ "${m:-x}" = 0 ] && [ "$w" != 0 ] &&
				{ echo "FAIL: ulimit -n $n: a warning for covered $ev"; fail=1; }
		done
		grep -q 'opened on no thread' "$tmp/said" && none=$((none + 1))
		grep -q warning "$tmp/said" && warned=$((warned + 1))
		[ -s "$tmp/said" ] || clean=$((clean + 1))
		n=$((n + 1))
		[ $n = 21 ] && [ $top -gt 20 ] && n=$top
	done
	echo "ulimit -n 9..20 and $top: $warned with warnings, $none with an event on no thread, $clean clean"
	check "some limits warned" [ $warned -gt 0 ]
	check "some left an event on no thread, said" [ $none -gt 0 ]
	check "at $top fds nothing is said" [ ! -s "$tmp/said" ]
	# nothing covered at all: an error before anything is sampled
	"$prog" spin "$tmp/ready" 2 &
	tpid=$!
	bg="$bg $tpid"
	check "the target started" waitfile "$tmp/ready"
	err "no event could be opened on the process" \
		timeout -s INT 20 sh -c "ulimit -n 6; exec '$hw' record -q -e task-clock -o '$tmp/n' -p $tpid"
	check "no file written" test ! -e "$tmp/n"
	;;
daemon)
	# a process of the command still running when record writes its
	# file (a daemon): a warning that names it
	need task-clock
	"$hw" record -e task-clock -o "$tmp/d" -- "$prog" daemon "$tmp/pid" 2> "$tmp/said"
	rc=$?
	dpid=$(cat "$tmp/pid" 2>/dev/null)
	bg="$bg $dpid"
	cat "$tmp/said"
	check "exit 0 (got $rc)" [ $rc = 0 ]
	check "the daemon runs ($dpid)" kill -0 "$dpid"
	check "said: 1 process still runs, pid $dpid" \
		grep -q "^hwprof: warning: 1 process of the command still runs (pid $dpid)" "$tmp/said"
	check "the file has it, running" \
		sh -c "'$dump' '$tmp/d' | grep -q '^process $dpid [0-9]* running '"
	kill "$dpid"
	"$hw" record -q -e task-clock -o "$tmp/e" -- "$prog" exit 0 1 2> "$tmp/said"
	check "no warning when every process ended" [ ! -s "$tmp/said" ]
	;;
missed)
	# a thread that could not be covered is
	# counted, with why, not silently left out
	need task-clock
	"$prog" spin "$tmp/ready" 60 &
	tpid=$!
	bg="$bg $tpid"
	check "the target started" waitfile "$tmp/ready"
	sleep 0.3
	sh -c "ulimit -n 48 && exec '$hw' record -e task-clock -o '$tmp/m' -p $tpid" 2> "$tmp/said" &
	rpid=$!
	bg="$bg $rpid"
	check "record attached" said "$tmp/said" recording
	sleep 0.5
	kill -INT "$rpid"
	wait "$rpid"
	rc=$?
	check "record -p with 48 fds for 60 threads: exit 0 (got $rc)" [ $rc = 0 ]
	"$dump" "$tmp/m" | grep '^event' > "$tmp/ev"
	cat "$tmp/ev"
	n=$(awk '{ print $6 }' "$tmp/ev")
	check "threads not covered counted ($n)" [ "${n:-0}" -gt 0 ]
	check "and why" grep -q 'out-of-file-descriptors' "$tmp/m"
	;;
dlclose)
	# a relative dlopen from a program that chdirs, closed before exit:
	# the samples keep the library's absolute path
	need page-faults
	lib=$(dirname "$prog")/libreclib.so
	[ -e "$lib" ] || { echo "ERROR: no $lib"; exit 99; }
	mkdir "$tmp/run"
	(cd "$tmp" && "$hw" record -q -e page-faults -c 1 -o rel.data -- \
		"$prog" dlopen "$(dirname "$lib")" libreclib.so 30)
	check "written where record started" test -s "$tmp/rel.data"
	n=$(in_func "$tmp/rel.data" rec_lib_touch)
	check "30 samples in the closed library's rec_lib_touch (got $n)" [ "$n" = 30 ]
	n=$(in_func "$tmp/rel.data" rec_touch)
	check "30 in the program after it (got $n)" [ "$n" = 30 ]
	real=$(cd "$(dirname "$lib")" && pwd -P)/libreclib.so
	check "the library named by its absolute path, with its size" \
		grep -q "^object [0-9]* [0-9a-f-]* $(stat -c %s "$real") $real\$" "$tmp/rel.data"
	;;
cli)
	need task-clock
	"$hw" record --help > "$tmp/help"
	rc=$?
	check "--help exits 0" [ $rc = 0 ]
	for o in -e --event -c --count -F --freq -o --output -p --pid --checkpoint -m --mmap-pages \
		-q --quiet -v --verbose -h --help; do
		check "--help lists $o" grep -q -- "$o[ ,]" "$tmp/help"
	done
	"$hw" record -o "$tmp/m" -- true 2> "$tmp/msg"
	check "the real period is said" grep -q 'every 1000000 ns (1 ms' "$tmp/msg"
	"$hw" record -c 250000 -o "$tmp/m" -e task-clock -- true 2> "$tmp/msg"
	check "a given period is said" grep -q 'task-clock every 250000 ns (250 us)' "$tmp/msg"
	check "never every 0" sh -c "! grep -q 'every 0' '$tmp/msg'"
	err "-c 18446744073709551615: too large" "$hw" record -c 18446744073709551615 -- true
	err "-c 9223372036854775808: too large" "$hw" record -c 9223372036854775808 -- true
	err "-F 2000000000: above the kernel's limit" "$hw" record -F 2000000000 -- true
	err "-c 0: not a positive" "$hw" record -c 0 -- true
	err "no-such-event: no such event" "$hw" record -e no-such-event -- true
	# a missing function fails at once, before the command runs
	err "mem:no_such_function:x: no function 'no_such_function'" \
		"$hw" record -e mem:no_such_function:x -- sh -c ": > '$tmp/ran'"
	check "the command did not run" test ! -e "$tmp/ran"
	err "cannot run it" "$hw" record -- /nonexistent/prog
	err "not found in PATH" "$hw" record -- no-such-command-xyz
	err "unknown option --frob" "$hw" record --frob -- true
	# executable but not runnable: one line, 127, no file
	printf 'not a program\n' > "$tmp/noexec"
	chmod +x "$tmp/noexec"
	"$hw" record -o "$tmp/ne" -- "$tmp/noexec" 2> "$tmp/err"
	rc=$?
	check "an exec that fails: 127 (got $rc)" [ $rc = 127 ]
	check "said in one line" grep -q "^hwprof: .*noexec: cannot run it: Exec format error" "$tmp/err"
	check "and no file written" test ! -e "$tmp/ne"
	# --checkpoint: SIGKILL of record loses at most the last interval
	"$hw" record -o "$tmp/ck" --checkpoint 1 -q -- "$prog" spin "$tmp/ready2" &
	rpid=$!
	bg="$bg $rpid"
	check "the command started" waitfile "$tmp/ready2"
	c=$(child_of "$rpid")
	bg="$bg $c"
	sleep 2.5
	kill -KILL "$rpid"
	wait "$rpid" 2>/dev/null
	check "--checkpoint: the file is there after SIGKILL of record" test -s "$tmp/ck"
	n=$(in_func "$tmp/ck" rec_spin)
	check "--checkpoint: it holds the command's samples ($n)" [ "${n:-0}" -gt 100 ]
	check "--checkpoint: it says it is one" sh -c "'$dump' '$tmp/ck' | grep -qx checkpoint"
	"$hw" report "$tmp/ck" > "$tmp/text" 2> "$tmp/err"
	check "--checkpoint: report warns the profile is partial" sh -c \
		"grep -q '^# warning: the profile is partial: this file is a checkpoint' '$tmp/text' &&
		 grep -q '^hwprof: warning: the profile is partial' '$tmp/err'"
	check "--checkpoint: json says so" sh -c "'$hw' report '$tmp/ck' --format json 2>/dev/null |
		python3 -c 'import json, sys; d = json.load(sys.stdin); assert d[\"checkpoint\"] is True and any(\"partial\" in w for w in d[\"warnings\"])'"
	# the file written at once on SIGTERM, while the command (which
	# ignores it) runs on, is partial: a checkpoint; the last is not
	"$hw" record -q -o "$tmp/tc" -- sh -c "trap '' TERM; : > '$tmp/ready4'
		while [ ! -e '$tmp/stop4' ]; do sleep 0.05; done" &
	rpid=$!
	bg="$bg $rpid"
	check "the command started" waitfile "$tmp/ready4"
	kill -TERM "$rpid"
	check "SIGTERM: a file at once" waitfile "$tmp/tc"
	check "SIGTERM: that file is a checkpoint" sh -c "'$dump' '$tmp/tc' | grep -qx checkpoint"
	: > "$tmp/stop4"
	wait "$rpid"
	check "the command's end: the last file is no checkpoint" sh -c \
		"! '$dump' '$tmp/tc' | grep -qx checkpoint && ! grep -q '^checkpoint' '$tmp/tc'"
	# nohup's SIGHUP ignored reaches the command through record
	"$prog" pgrp "$hw" record -q -o "$tmp/nh" -- nohup "$prog" spin "$tmp/ready3" \
		> /dev/null 2>&1 &
	rpid=$!
	bg="$bg $rpid"
	check "the command started" waitfile "$tmp/ready3"
	kill -s HUP -- "-$rpid"
	sleep 0.5
	check "SIGHUP to the group under nohup: the command runs on" kill -0 "$rpid"
	kill -s INT -- "-$rpid"
	wait "$rpid"
	rc=$?
	check "then SIGINT ends it: 130 (got $rc)" [ $rc = 130 ]
	;;
*)
	echo "unknown case $case_"; exit 99 ;;
esac
[ $fail = 0 ] && echo "record $case_: all checks passed"
exit $fail
