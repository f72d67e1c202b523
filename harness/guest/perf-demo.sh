#!/bin/sh
# Guest side of the demo and of the perf check: profile PROGRAM with
# `perf record -g -e cpu-clock` once per unwinder mode and leave the
# results in OUTDIR (on the 9p share) for the host to show and count.
#
#   sh /harness/perf-demo.sh PROGRAM OUTDIR MODES [SECONDS [MIN_SAMPLES]]
#
# MODES: any of "on", "off": the value written to
# /proc/sys/kernel/unwind_user_sframe before the run (on a kernel without
# that sysctl, unpatched, they become one run named "default"); "dwarf":
# perf's own --call-graph dwarf (stack copies unwound by perf: the
# reference chain, independent of the kernel's unwinder); "defer": the
# kernel's chains deferred to the task's return to user space
# (--call-graph fp,defer, mainline's unwind_user(); the unwinder on);
# "defer-off": the same with the unwinder off.
# Per mode: report-MODE.txt (perf report), script-MODE.txt (perf script),
# record-MODE.txt (perf record's messages), secs-MODE (the run time of the
# kept recording). A recording with fewer than MIN_SAMPLES samples of
# PROGRAM (default 0) is made again with twice the run time, at most four
# recordings in all: a busy host gives the guest fewer timer ticks.
#
# perf is the tree's (harness/perf-build.sh). On arm64, perf -g also
# records the user link register and inserts the leaf function's caller
# after the leaf, because a frame-record walk never reports it; the
# series' tools/perf patch leaves it out when the kernel reported it
# (Debian's perf 6.1, /usr/bin/perf-debian, shows it twice:
# c <- b <- b <- a <- main).
prog=$1 outdir=$2 modes=$3 secs=${4:-2} min=${5:-0}
comm=$(basename "$prog" | cut -c1-15)
sysctl=/proc/sys/kernel/unwind_user_sframe
mkdir -p "$outdir"
if ! command -v perf >/dev/null 2>&1; then
	echo "error: no perf in this guest:" \
		"$(cat /etc/harness-no-perf 2>/dev/null || echo 'not on PATH')"
	exit 3
fi
if [ ! -e $sysctl ]; then
	new=
	for m in $modes; do
		case $m in
		on | off) case " $new " in *" default "*) ;; *) new="$new default" ;; esac ;;
		*) new="$new $m" ;;
		esac
	done
	new=${new# }
	[ "$new" = "$modes" ] ||
		echo "note: $sysctl does not exist (kernel without the SFrame" \
			"unwinder): one run with the kernel's default unwinder"
	modes=$new
fi
echo "$modes" >"$outdir/modes"
rc=0
for mode in $modes; do
	case $mode in
	on | defer) [ ! -e $sysctl ] || echo 1 >$sysctl || rc=1 ;;
	defer-off) [ ! -e $sysctl ] || echo 0 >$sysctl || rc=1 ;;
	off) echo 0 >$sysctl || rc=1 ;;
	esac
	ev="-g -e cpu-clock"
	[ $mode = dwarf ] && ev="--call-graph dwarf -e cpu-clock"
	case $mode in defer*) ev="--call-graph fp,defer -e cpu-clock" ;; esac
	data=/tmp/perf-$mode.data
	n=$secs try=1
	while :; do
		echo "== perf record $ev -F 1000 ($mode): $prog $n"
		prc=0
		perf record $ev -F 1000 -o $data "$prog" "$n" \
			>"$outdir/record-$mode.txt" 2>&1 || prc=1
		cat "$outdir/record-$mode.txt"
		perf script -i $data -F comm,tid,ip,sym,dso \
			>"$outdir/script-$mode.txt" 2>"$outdir/script-$mode.err" || rc=1
		got=$(awk -v c="$comm" '/^[^ \t]/ && $1 == c { n++ } END { print n + 0 }' \
			"$outdir/script-$mode.txt")
		[ $prc = 0 ] && [ "$got" -lt "$min" ] && [ $try -lt 4 ] || break
		echo "== $got samples of $comm, fewer than $min: once more, twice as long"
		n=$(awk "BEGIN { print $n * 2 }") try=$((try + 1))
	done
	[ $prc = 0 ] || rc=1
	echo "$n" >"$outdir/secs-$mode"
	perf report -i $data --stdio --no-children --sort symbol \
		--comms "$comm" --percent-limit 0.5 \
		>"$outdir/report-$mode.txt" 2>&1 || rc=1
done
[ -e $sysctl ] && echo 1 >$sysctl
exit $rc
