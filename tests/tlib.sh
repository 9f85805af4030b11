# SPDX-License-Identifier: MIT
# Shell helpers of the CLI tests (tests/test-report.sh, test-ranks.sh,
# test-mpi.sh, test-burst.sh, test-paths.sh, test-keep.sh), sourced after
# they set $tmp and fail=0 (and $hw for need_pf).

check() {	# description, then a command that must succeed
	d=$1
	shift
	if "$@"; then echo "ok: $d"; else echo "FAIL: $d"; fail=1; fi
}
eq() {	# description, got, want
	if [ "$2" = "$3" ]; then echo "ok: $1 = $3"; else echo "FAIL: $1: got '$2', want '$3'"; fail=1; fi
}
# one line on stderr, starting "hwprof: ", exit status 1, nothing on stdout
err() {	# expected words (grep -E), then the command: exit 1 and one line
	err_rc=1 err_status "$@"
}
uerr() {	# the same for a usage error: exit 2 and one line
	err_rc=2 err_status "$@"
}
err_status() {
	want=$1
	shift
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	n=$(wc -l < "$tmp/err")
	if [ $rc -ne "$err_rc" ] || [ "$n" -ne 1 ] || ! grep -Eq "^hwprof: .*$want" "$tmp/err"; then
		echo "FAIL: '$*' (status $rc) said:"; cat "$tmp/err"; fail=1
	elif [ -s "$tmp/out" ]; then
		echo "FAIL: '$*' printed a report:"; head -5 "$tmp/out"; fail=1
	else
		echo "ok: $(cat "$tmp/err")"
	fi
}
addr() {	# the address of symbol $2 in $1
	nm "$1" | awk -v s="$2" '$3 == s { print $1; exit }'
}
bid() {	# the GNU build-id of $1
	readelf -n "$1" | awk '/Build ID/ { print $3; exit }'
}
need_pf() {	# page faults can be sampled here (hwprof list), else SKIP
	"$hw" list 2>/dev/null | grep -q '^  page-faults *yes' ||
		{ echo "SKIP: page-fault events cannot be sampled here"; exit 77; }
}
