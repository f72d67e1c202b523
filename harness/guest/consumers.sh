#!/bin/sh
# Guest side of the consumer checks of `make check`: the tree's perf tool
# on a system-call tracepoint and, where the share holds it (x86_64),
# Debian's bpftrace (tracepoint and profile probes with ustack), each with
# the SFrame unwinder on and off. Results are judged on the host
# (harness/consumers/judge.py).
#
#   sh /harness/consumers.sh SHARE
#
# SHARE/selftests/unwind_consumers   the workload (writer:N, spin:MS)
# SHARE/bpftrace/{bpftrace,lib,include}   bpftrace with its libraries and
#                                         the UAPI headers its parser needs
# Results: SHARE/consumers/NAME-MODE.{txt,maps,rc}
share=$1
prog=$share/selftests/unwind_consumers
out=$share/consumers
sysctl=/proc/sys/kernel/unwind_user_sframe
eh_frame=/proc/sys/kernel/unwind_user_eh_frame
mkdir -p "$out"
[ -x "$prog" ] || { echo "no $prog" >"$out/absent"; exit 0; }
mount -t debugfs none /sys/kernel/debug 2>/dev/null
mount -t tracefs none /sys/kernel/tracing 2>/dev/null
bt=$share/bpftrace

# run NAME MODE CMD...: CMD's output to NAME-MODE.txt, its status to .rc
run() {
	name=$1-$2
	shift 2
	timeout -s KILL 300 "$@" >"$out/$name.txt" 2>&1
	echo $? >"$out/$name.rc"
}

for mode in on off; do
	case $mode in on) echo 1 >$sysctl ;; off) echo 0 >$sysctl ;; esac
	# perf: every write of the workload, 1000 from each of its two paths
	run perf-record-sys $mode perf record -q -g -e syscalls:sys_enter_write \
		-o /tmp/sys.data -- "$prog" --workload writer:1000
	run perf-sys $mode perf script -i /tmp/sys.data -F comm,ip,sym,dso
	rm -f /tmp/sys.data
	[ -x "$bt/bpftrace" ] || continue
	# bpftrace prints bare addresses here; the workload leaves its maps
	export LD_LIBRARY_PATH=$bt/lib
	export WL_MAPS=$out/bt-sys-$mode.maps
	run bt-sys $mode "$bt/bpftrace" -I "$bt/include" \
		-c "$prog --workload writer:1000:wait" -e \
		'tracepoint:syscalls:sys_enter_write /pid == cpid/ {
			@[ustack] = count(); @n++; if (@n >= 2001) { exit(); } }'
	export WL_MAPS=$out/bt-prof-$mode.maps
	# Without the .eh_frame conversion: bpftrace's own text (libLLVM,
	# libclang) is looked at once its profile probe collects stacks, and
	# converting their .eh_frame takes seconds under TCG, during which
	# the child it forked waits unexecuted and takes every sample. The
	# spin workload has SFrame data; libc's frames are not in its chain.
	echo 0 >$eh_frame
	run bt-prof $mode "$bt/bpftrace" \
		-c "$prog --workload spin:600000" -e \
		'profile:hz:999 /pid == cpid/ {
			@[ustack] = count(); @n++; if (@n >= 1500) { exit(); } }'
	echo 1 >$eh_frame
	unset LD_LIBRARY_PATH WL_MAPS
done
echo 1 >$sysctl
exit 0
