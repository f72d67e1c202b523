#!/bin/sh
# Guest side of `make check`: run every test of one guest boot and leave
# the raw results on the 9p share for harness/check.sh to judge.
#
#   sh /harness/run-tests.sh SHARE
#
# SHARE/selftests/list      test program names, one a line (may be absent)
# SHARE/selftests/timeout   per-test limit in seconds (default 120)
# SHARE/demo                the demo program, for the perf test
# SHARE/consumers.on        run harness/guest/consumers.sh as well
# SHARE/safety/ehmap        run harness/guest/safety.sh (results in SHARE/safety/)
# Results: SHARE/results/NAME.{rc,out,secs}, SHARE/perf/ (perf-demo.sh,
# or SHARE/perf/absent: the reason why this guest has no perf),
# SHARE/consumers/ (consumers.sh).
# A test that hangs is stopped by `timeout` (TERM, then KILL 5 s later);
# one that crashes just leaves its exit status: the run goes on either way.
# Processes a test leaves behind are killed with its process group.
share=$1
res=$share/results
mkdir -p "$res"
st=$share/selftests
limit=$(cat "$st/timeout" 2>/dev/null || echo 120)

uptime_s() { cut -d. -f1 /proc/uptime; }

if [ -f "$st/list" ]; then
	for t in $(cat "$st/list"); do
		echo "== selftest $t (limit ${limit}s)"
		start=$(uptime_s)
		# own session (process group), so that whatever the test leaves
		# behind can be killed before the next test
		(cd "$st" && exec setsid timeout -s TERM -k 5 "$limit" "./$t") \
			>"$res/$t.out" 2>&1 </dev/null &
		pid=$!
		wait $pid
		rc=$?
		kill -KILL -- -$pid 2>/dev/null
		echo $(( $(uptime_s) - start )) >"$res/$t.secs"
		echo $rc >"$res/$t.rc"
		echo "   exit status $rc"
	done
fi

# The perf test: the demo with the SFrame unwinder on (if this kernel has
# the switch), its chains taken where perf samples (-g) and deferred to the
# return to user space (--call-graph fp,defer), counted on the host; the
# same for the demo built without SFrame (demo-eh: its .eh_frame gives its
# table). A guest without perf (the initramfs says why in
# /etc/harness-no-perf) leaves SHARE/perf/absent instead.
if [ -x "$share/demo" ] && ! command -v perf >/dev/null 2>&1; then
	mkdir -p "$share/perf"
	cat /etc/harness-no-perf >"$share/perf/absent" 2>/dev/null ||
		echo "perf is not on PATH" >"$share/perf/absent"
	echo "== perf test: no perf in this guest"
elif [ -x "$share/demo" ]; then
	sh /harness/perf-demo.sh "$share/demo" "$share/perf" "on defer" 2 1000 >/dev/null 2>&1
	echo $? >"$share/perf/rc"
	if [ -x "$share/demo-eh" ]; then
		sh /harness/perf-demo.sh "$share/demo-eh" "$share/perf-eh" "on defer" 2 1000 >/dev/null 2>&1
		echo $? >"$share/perf-eh/rc"
	fi
	echo "== perf test: done"
fi
if [ -f "$share/consumers.on" ]; then
	sh /harness/consumers.sh "$share" >/dev/null 2>&1
	echo "== consumers: done"
fi
# The safety tests (harness/guest/safety.sh), last: they leave tables
# kept and users' files behind. SHARE/safety/ehmap: harness/check.sh
# built the helper and the crafted files.
if [ -x "$share/safety/ehmap" ]; then
	sh /harness/safety.sh "$share" >"$share/safety/run.txt" 2>&1
	echo "== safety: done"
fi
exit 0
