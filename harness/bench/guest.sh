#!/bin/sh
# Guest side of harness/bench/bench.sh: runs every measurement in one boot,
# in the shared directory holding the programs, and appends key=value lines
# to results-KIND.txt there.
#
#   sh guest.sh KIND REPS ARCH [PARTS]
#
# KIND names the boot (icount or wall), REPS is the number of repetitions
# of each timed measurement (the host takes medians). PARTS (default
# "cost worst scale perf cold exec") selects the measurements.
set -u
kind=$1 reps=$2 arch=$3
parts=${4:-cost worst scale perf cold exec fork}
res=results-$kind.txt
S=/proc/sys/kernel/unwind_user_sframe
R=/proc/sys/kernel/unwind_user_recover
: >"$res"
status=0

# Iterations of one timed loop of ubench (one sample each).
N=${BENCH_N:-1000}
# FDE-count scaling sizes (the programs ubench-scale-N).
SIZES="10 100 1000 10000 100000 1000000"
LIBS="1 10 100 1000"
# dlopen()ed and dlclose()d before each repetition: new SFrame registrations,
# so a per-IP lookup cache starts afresh (in a new layout) every repetition.
G=./liblc.so
# perf.data comparison: workload iterations, cpu-clock period (ns).
PERF_ITERS=${BENCH_PERF_ITERS:-50000000}
PERF_PERIOD=${BENCH_PERF_PERIOD:-100000}
# Cold start: runs, period (ns), run time (ms).
COLD_RUNS=${BENCH_COLD_RUNS:-10}

log() { echo "$*" >>"$res"; }
# The lookup counters (debugfs unwind_user/sframe_stats): "HITS MISSES ROWS" (per-CPU
# cache hits and misses, answers of a row table before the cache).
STATS=/sys/kernel/debug/unwind_user/sframe_stats
[ -r "$STATS" ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
cache_counts() {
	awk '$1 == "cache_hits" { h = $2 } $1 == "cache_misses" { m = $2 }
	     $1 == "row_table_hits" { r = $2 }
	     END { print (h == "" ? "-" : h), (m == "" ? "-" : m), (r == "" ? 0 : r) }' "$STATS" 2>/dev/null ||
		echo "- - 0"
}
# run CMD...: its output to the results; for a ubench run (-t LABEL) also
# the lookup counters before and after ("cache label=... hits=... misses=...
# rows=...").
run() {
	local before after label= prev=
	before=$(cache_counts)
	"$@" >>"$res" 2>&1 || { log "FAILED: $*"; status=1; }
	after=$(cache_counts)
	for a in "$@"; do
		[ "$prev" = -t ] && label=$a
		prev=$a
	done
	[ -z "$label" ] && return
	set -- $before $after
	[ "$1" = - ] || [ "$4" = - ] ||
		log "cache label=$label hits=$(($4 - $1)) misses=$(($5 - $2)) rows=$(($6 - $3))"
}
mark() { log "part $1 uptime=$(cut -d' ' -f1 /proc/uptime)"; }
has() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }

echo 512 >/proc/sys/kernel/perf_event_max_stack ||
	{ log "FAILED: cannot raise kernel.perf_event_max_stack"; exit 1; }
log "kernel release=$(uname -r) version=$(uname -v | tr ' ' '_')"

# The unpatched base (kind base): the frame-pointer build's cost only, as
# the cost part measures it on the series' kernel with the sysctl at 0.
if [ "$kind" = base ]; then
	[ -e "$S" ] && { log "FAILED: kind base on a kernel with $S"; exit 1; }
	echo 0 >/proc/sys/kernel/randomize_va_space 2>/dev/null ||
		log "note: cannot turn off address space randomisation"
	mark cost
	run ./ubench-fp -t fp-base -D 4,16,64,128 -C 1,64 -n "$N" -r "$reps" -g $G
	mark end
	log "guest-done status=$status"
	exit $status
fi
[ -w "$S" ] || { log "FAILED: no $S (kernel without the SFrame unwinder?)"; exit 1; }

# Cost and scaling: the same addresses in every run (an IP cache indexed by
# address may otherwise hit or collide differently per run). perf.data and
# cold start: randomisation as configured (it also decides how much stack
# --call-graph dwarf copies: up to 8 KiB, at most to TASK_SIZE).
aslr=$(cat /proc/sys/kernel/randomize_va_space 2>/dev/null || echo n/a)
aslr_off() {
	echo 0 >/proc/sys/kernel/randomize_va_space 2>/dev/null ||
		log "note: cannot turn off address space randomisation"
}
aslr_restore() {
	[ "$aslr" = n/a ] || echo "$aslr" >/proc/sys/kernel/randomize_va_space
}
log "aslr randomize_va_space=$aslr"

aslr_off
if has cost; then
	mark cost
	# SFrame build, SFrame on; frame-pointer build, SFrame off (pure frame
	# pointer walk) and on (lookup misses, then frame pointers).
	echo 1 >$S; run ./ubench-sf -t sf -D 4,16,64,128 -C 1,64 -n "$N" -r "$reps" -g $G
	echo 0 >$S; run ./ubench-fp -t fp -D 4,16,64,128 -C 1,64 -n "$N" -r "$reps" -g $G
	echo 1 >$S; run ./ubench-fp -t fp-sfon -D 4,16,64,128 -C 1,64 -n "$N" -r "$reps" -g $G
	# Sanity: the SFrame build unwound with frame pointers only is broken.
	echo 0 >$S; run ./ubench-sf -t sf-off -N -D 16 -C 1 -n 100 -r 1
	echo 1 >$S
	# One frame of the 16 without SFrame (level 8, or the leaf): the cost
	# of recovering its caller (turned on for these runs; off by
	# default); broken with the recovery off.
	if [ -w $R ]; then
		echo 1 >$R
		run ./ubench-rcmid -t rc-mid -D 16 -C 1,64 -n "$N" -r "$reps" -g $G
		run ./ubench-rcleaf -t rc-leaf -D 16 -C 1,64 -n "$N" -r "$reps" -g $G
		echo 0 >$R; run ./ubench-rcmid -t rc-off -N -D 16 -C 1 -n 100 -r 1
	fi
fi

# The worst case of a lookup on a valid section: functions of 8,001 rows
# whose call sites are in their last row, with the lookup cache defeated
# before every sample (-c: map and unmap an SFrame file); the same chain
# built with frame pointers, walked with SFrame off; and, for the record,
# the SFrame chain without the churn (cached lookups).
if has worst; then
	mark worst
	WN=${BENCH_WORST_N:-200}
	echo 1 >$S; run ./ubench-adv -t adv-sf -D 16,64,128 -C 1 -n "$WN" -r "$reps" -c $G
	echo 0 >$S; run ./ubench-adv-fp -t adv-fp -D 16,64,128 -C 1 -n "$WN" -r "$reps" -c $G
	echo 1 >$S; run ./ubench-adv -t adv-sf-cached -D 16,64,128 -C 1 -n "$WN" -r "$reps"
	# The recovery on a stack built to defeat it: level 8 without SFrame
	# data fills 256 words of its frame with its callers' return
	# addresses (turned on for this run; off by default). Its chains may
	# end early or be wrong: reported, not failed (-N).
	if [ -w $R ]; then
		echo 1 >$R
		run ./ubench-rchost -t rc-hostile -N -D 16 -C 1,64 -n "$N" -r "$reps" -g $G
		echo 0 >$R
	fi
fi

if has scale; then
	mark scale
	for n in $SIZES; do
		run ./ubench-scale-"$n" -t "fde-$n" -D 16 -C 1,256 -n "$N" -r "$reps" -g $G
	done
	for l in $LIBS; do
		run ./ubench-sf -t "libs-$l" -D 64 -C 1,64 -n "$N" -r "$reps" -l "$l" -L ./liblc.so -g $G
		run ./ubench-sf -t "libchain-$l" -D 16 -C 1,256 -n "$N" -r "$reps" -l "$l" -L ./liblc.so -x -g $G
	done
fi

aslr_restore
if has perf; then
	mark perf
	PG="-e cpu-clock -g"
	chain=w16,w15,w14,w13,w12,w11,w10,w9,w8,w7,w6,w5,w4,w3,w2,w1,main
	r=0
	while [ $r -lt "$reps" ]; do
		run ./tmrun "base-sf" ./perfwl-sf "$PERF_ITERS"
		run ./tmrun "base-fp" ./perfwl-fp "$PERF_ITERS"
		for v in sf fp dwarf; do
			case $v in
			sf) opts=$PG prog=perfwl-sf ;;
			fp) opts=$PG prog=perfwl-fp ;;
			dwarf) opts="-e cpu-clock --call-graph dwarf" prog=perfwl-sf ;;
			esac
			rm -f /tmp/$v.data
			# shellcheck disable=SC2086
			run ./tmrun "rec-$v" perf record -q -c "$PERF_PERIOD" $opts \
				-o /tmp/$v.data ./$prog "$PERF_ITERS"
			if [ $r = 0 ]; then
				size=$(wc -c </tmp/$v.data)
				perf script -i /tmp/$v.data -F comm,tid,ip,sym,dso \
					>/tmp/$v.txt 2>/tmp/$v.err || { log "FAILED: perf script $v"; status=1; }
				total=$(grep -c '^[^ 	]' /tmp/$v.txt)
				c=$(awk -f ./chains.awk -v comm=$prog -v chain=$chain /tmp/$v.txt |
					tr '\n' ' ' | sed 's/top=.*//')
				log "perfdata variant=$v bytes=$size samples=$total $c"
				awk -f ./chains.awk -v comm=$prog -v chain=$chain /tmp/$v.txt |
					sed -n "s/^top=/perftop variant=$v top=/p" >>"$res"
			fi
			rm -f /tmp/$v.data /tmp/$v.txt
		done
		r=$((r + 1))
	done
fi

# execve() and dlopen() with SFrame discovery on and off: the sysctl also
# stops the kernel from reading the files for SFrame.
if has exec; then
	mark exec
	EXEC_N=${BENCH_EXEC_N:-1000}
	r=0
	while [ "$r" -lt "$reps" ]; do
		for v in 1 0; do
			echo $v >$S
			for p in ./execloop ./execloop-big; do
				printf 'exec-run sframe=%s ' "$v" >>"$res"
				run ./execloop exec "$EXEC_N" "$p"
			done
			printf 'exec-run sframe=%s ' "$v" >>"$res"
			run ./execloop dlopen "$EXEC_N" "$G"
		done
		r=$((r + 1))
	done
	echo 1 >$S
fi

# fork() and exit of a process with BENCH_FORK_MAPS registered SFrame
# sections (distinct mappings of one library), against as many mappings
# of the same library built without SFrame.
if has fork; then
	mark fork
	r=0
	while [ "$r" -lt "$reps" ]; do
		for l in ./liblc.so ./liblc-fp.so; do
			run ./forkbench "$l" "${BENCH_FORK_MAPS:-16000}" "${BENCH_FORK_N:-20}"
		done
		r=$((r + 1))
	done
fi

# Another task's wake-up delay while a large adversarial section is
# validated and its table built (3 rounds, worst one).
if has fork; then
	mark wake
	run ./wakebench 3
fi

if has cold; then
	mark cold
	echo 1 >$S
	run ./cold "$COLD_RUNS" 20000 300
fi

mark end
log "guest-done status=$status"
exit $status
