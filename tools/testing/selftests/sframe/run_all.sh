#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run every SFrame unwinding selftest with a per-test timeout and print one
# TAP stream.  Usable without the kselftest runner (e.g. from a minimal
# guest with busybox):
#
#   ./run_all.sh [test ...]
#
# Environment: TIMEOUT (seconds per test, default 120), and the UNWIND_*
# variables described in sampler.h.

cd "$(dirname "$0")" || exit 1

if [ $# -eq 0 ]; then
	set -- unwind_basic unwind_static unwind_pie_dso unwind_fork
	set -- "$@" unwind_threads unwind_exec unwind_nosframe unwind_switch_off
	set -- "$@" unwind_pac
	set -- "$@" unwind_dlopen unwind_registry unwind_coldstart
	set -- "$@" unwind_discovery
	set -- "$@" unwind_hostile
	set -- "$@" unwind_uretprobe unwind_libc unwind_signal unwind_eh_frame
	set -- "$@" unwind_consumers
	# built only with an assembler that writes SFrame version 3 (see Makefile)
	[ -x ./unwind_v3 ] && set -- "$@" unwind_v3
fi
TESTS=$*
TIMEOUT=${TIMEOUT:-120}
rcfile=${TMPDIR:-/tmp}/sframe-selftest.$$.rc
logfile=${TMPDIR:-/tmp}/sframe-selftest.$$.log

count=0
for t in $TESTS; do
	count=$((count + 1))
done

echo "TAP version 13"
echo "1..$count"

n=0
fail=0
for t in $TESTS; do
	n=$((n + 1))
	echo "# selftests: sframe: $t"
	if [ ! -x "./$t" ]; then
		echo "not ok $n selftests: sframe: $t # missing"
		fail=1
		continue
	fi
	if command -v timeout >/dev/null 2>&1; then
		run="timeout $TIMEOUT"
	else
		run=
	fi
	{ $run "./$t" 2>&1; echo $? >"$rcfile"; } | tee "$logfile" |
		sed -e 's/^/# /'
	rc=$(cat "$rcfile" 2>/dev/null)
	# a harness binary whose test cases all skipped exits with 0
	oks=$(grep -c '^ok ' "$logfile")
	skips=$(grep -c '^ok .*# SKIP' "$logfile")
	rm -f "$rcfile" "$logfile"
	if [ "$rc" = 0 ] && [ "$oks" -gt 0 ] && [ "$oks" = "$skips" ]; then
		rc=4
	fi
	case "$rc" in
	0)
		echo "ok $n selftests: sframe: $t"
		;;
	4)
		echo "ok $n selftests: sframe: $t # SKIP"
		;;
	124)
		echo "not ok $n selftests: sframe: $t # TIMEOUT $TIMEOUT seconds"
		fail=1
		;;
	*)
		echo "not ok $n selftests: sframe: $t # exit=$rc"
		fail=1
		;;
	esac
done
exit $fail
