#!/bin/sh
# shellcheck shell=dash
# Guest side of harness/bench/bench.sh: runs every measurement in one boot,
# in the shared directory holding the programs, and appends key=value lines
# to results-KIND.txt there.
#
#   sh guest.sh KIND REPS ARCH [PARTS]
#
# KIND names the boot (icount or wall), REPS is the number of repetitions
# of each timed measurement (the host takes medians). PARTS (default
# "cost worst scale perf cold exec fork wake eh system") selects the
# measurements.
set -u
kind=$1 reps=$2 arch=$3
parts=${4:-cost worst scale perf cold exec fork wake eh system}
res=results-$kind.txt
S=/proc/sys/kernel/unwind_user_sframe
# The .eh_frame conversion (files mapped while it is 0 get no table from
# their .eh_frame). The parts that compare against programs without any
# table set it to 0 for those runs.
E=/proc/sys/kernel/unwind_user_eh_frame
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
	local before after label='' prev=''
	before=$(cache_counts)
	"$@" >>"$res" 2>&1 || { log "FAILED: $*"; status=1; }
	after=$(cache_counts)
	for a in "$@"; do
		[ "$prev" = -t ] && label=$a
		prev=$a
	done
	[ -z "$label" ] && return
	# shellcheck disable=SC2086 # two lists of numbers
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
# eh V: kernel.unwind_user_eh_frame=V, where the kernel has it.
eh() { [ ! -e "$E" ] || echo "$1" >"$E"; }
eh 1
# Part eh needs the conversion.
if has eh && [ ! -w "$E" ]; then
	log "FAILED: part eh: no $E (kernel without CONFIG_UNWIND_USER_EH_FRAME?)"
	status=1
	parts=$(echo " $parts " | sed 's/ eh / /')
fi
case $arch in
x86_64) LIBDIR=/usr/lib/x86_64-linux-gnu LDSO=/lib64/ld-linux-x86-64.so.2 ;;
*) LIBDIR=/usr/lib/aarch64-linux-gnu LDSO=/lib/ld-linux-aarch64.so.1 ;;
esac

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
	# pointer walk) and on with the .eh_frame conversion off (no table in
	# the task: the kernel's frame-pointer loop; with it on, the program,
	# its C library and ld.so have tables from their .eh_frame: part eh).
	echo 1 >$S; run ./ubench-sf -t sf -D 4,16,64,128 -C 1,64 -n "$N" -r "$reps" -g $G
	echo 0 >$S; run ./ubench-fp -t fp -D 4,16,64,128 -C 1,64 -n "$N" -r "$reps" -g $G
	echo 1 >$S; eh 0
	run ./ubench-fp -t fp-sfon -D 4,16,64,128 -C 1,64 -n "$N" -r "$reps" -g $G
	eh 1
	# Sanity: the SFrame build unwound with frame pointers only is broken.
	echo 0 >$S; run ./ubench-sf -t sf-off -N -D 16 -C 1 -n 100 -r 1
	echo 1 >$S
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

# Tables converted from .eh_frame. Cost per frame: the chain of the cost
# part built without SFrame and without frame pointers (ubench-eh: its
# table comes from its .eh_frame), and the frame-pointer build with the
# conversion on (a table walk); without the cost part, the SFrame build and
# the frame-pointer build with the conversion off are run here too.
# Sanity: ubench-eh with the conversion off is broken. Then the same chain
# in a program of 1,000,000 filler FDEs, and the conversion of files
# (ehmap: the first mapping of a file's text, a second one while the first
# exists, conversion off, all off; the table memory each adds).
if has eh; then
	mark eh
	echo 1 >$S
	if ! has cost; then
		eh 1; run ./ubench-sf -t sf -D 4,16,64,128 -C 1,64 -n "$N" -r "$reps" -g $G
		eh 0; run ./ubench-fp -t fp-sfon -D 4,16,64,128 -C 1,64 -n "$N" -r "$reps" -g $G
	fi
	eh 1
	run ./ubench-eh -t eh -D 4,16,64,128 -C 1,64 -n "$N" -r "$reps" -g $G
	run ./ubench-fp -t fp-eh -D 4,16,64,128 -C 1,64 -n "$N" -r "$reps" -g $G
	eh 0; run ./ubench-eh -t eh-off -N -D 16 -C 1 -n 100 -r 1
	eh 1
	run ./ubench-ehscale-1000000 -t eh-fde-1000000 -D 16 -C 1,256 -n "$N" -r "$reps" -g $G
	# its SFrame build (part scale), for comparison
	has scale ||
		run ./ubench-scale-1000000 -t fde-1000000 -D 16 -C 1,256 -n "$N" -r "$reps" -g $G
	mark eh-map
	# From the page cache of a tmpfs (the shared directory is 9p). The
	# SFrame builds of two of the programs, for comparison (their
	# sections validated into the same kind of table).
	cp ./ubench-ehscale-1000000 ./ubench-scale-1000000 ./ubench-eh ./ubench-sf /tmp/
	[ -f ./python3.11 ] && cp ./python3.11 /tmp/
	files=
	for f in $LIBDIR/libc.so.6 $LIBDIR/libstdc++.so.6 \
		$LDSO $LIBDIR/libm.so.6 $LIBDIR/libgcc_s.so.1 $LIBDIR/libz.so.1 \
		$LIBDIR/libdw.so.1 $LIBDIR/libglib-2.0.so.0 $LIBDIR/libbfd-2.40-system.so \
		$LIBDIR/libperl.so.5.36 $LIBDIR/libpython3.11.so.1.0 /tmp/python3.11 \
		/tmp/ubench-eh /tmp/ubench-sf; do
		[ -e "$f" ] && files="$files $f"
	done
	# shellcheck disable=SC2086
	run ./ehmap map "$reps" $files
	# one mapping each (and the one the "second" setting holds): about
	# 2.6 billion instructions a conversion on x86_64
	run ./ehmap map 1 /tmp/ubench-ehscale-1000000 /tmp/ubench-scale-1000000
	rm -f /tmp/ubench-ehscale-1000000 /tmp/ubench-scale-1000000 /tmp/ubench-eh /tmp/ubench-sf \
		/tmp/python3.11
	eh 1
fi

aslr_restore
# perf.data and the work per sample: perfwl (main -> w1 .. wD, spinning in
# wD) at each depth of PERF_DEPTHS, alone (base-BUILD-D: its loop's elapsed
# and thread CPU time) and under perf record: the SFrame and the
# frame-pointer build, each with -g (the chain taken in the sample's
# interrupt) and with --call-graph fp,defer (the user chain taken at the
# task's return to user space, as harness/guest/perf-demo.sh records it);
# --call-graph dwarf on the SFrame build at the first depth. Every
# recording: its size, the samples, and those of the loop (from the first
# to the last sample whose own IP is in wD). The first repetition's chains
# are checked against wD .. w1 main: every sample from 50% to 75% of the
# recording's time (all in the loop) must have the whole chain.
PERF_DEPTHS=${BENCH_PERF_DEPTHS:-16 64 128}
PERF_REPS=${BENCH_PERF_REPS:-$reps}
# perf_chain D: "wD,...,w1,main"
perf_chain() {
	local i=$1 c=''
	while [ "$i" -ge 1 ]; do
		c="$c${c:+,}w$i"
		i=$((i - 1))
	done
	echo "$c,main"
}
# perf_samples FILE COMM LEAF: "samples=N loop_samples=L leaf_ip=W" from
# perf script -G (one line per sample, its own IP's symbol last): samples
# of COMM, those from its first to its last sample in LEAF, those in LEAF
perf_samples() {
	perf script -G -i "$1" -F comm,ip,sym 2>/dev/null |
		awk -v comm="$2" -v leaf="$3" '$1 == comm {
			n++
			if ($NF == leaf) { w++; if (!first) first = n; last = n }
		}
		END { printf "samples=%d loop_samples=%d leaf_ip=%d\n", n, first ? last - first + 1 : 0, w }'
}
if has perf; then
	mark perf
	d0=${PERF_DEPTHS%% *}
	r=0
	while [ $r -lt "$PERF_REPS" ]; do
		for d in $PERF_DEPTHS; do
			chain=$(perf_chain "$d")
			run ./tmrun "base-sf-$d" ./perfwl-sf "$PERF_ITERS" "$d"
			run ./tmrun "base-fp-$d" ./perfwl-fp "$PERF_ITERS" "$d"
			for v in sf sfdefer fp fpdefer dwarf; do
				case $v in
				sf) opts="-e cpu-clock -g" prog=perfwl-sf ;;
				sfdefer) opts="--call-graph fp,defer -e cpu-clock" prog=perfwl-sf ;;
				fp) opts="-e cpu-clock -g" prog=perfwl-fp ;;
				fpdefer) opts="--call-graph fp,defer -e cpu-clock" prog=perfwl-fp ;;
				dwarf)
					[ "$d" = "$d0" ] || continue
					opts="-e cpu-clock --call-graph dwarf" prog=perfwl-sf ;;
				esac
				f=/tmp/perf-$v-$d
				rm -f "$f.data"
				# The frame-pointer build keeps the kernel's
				# frame-pointer loop: no tables from .eh_frame for
				# it (part eh has them).
				case $v in fp*) eh 0 ;; esac
				# shellcheck disable=SC2086
				run ./tmrun "rec-$v-$d" perf record -q -c "$PERF_PERIOD" $opts \
					-o "$f.data" ./$prog "$PERF_ITERS" "$d"
				eh 1
				if [ ! -s "$f.data" ]; then
					log "FAILED: part perf: perf record $opts of $prog at depth $d wrote no perf.data"
					status=1
					continue
				fi
				# the loop's figures, just written by perfwl
				pw=$(tail -n 2 "$res" | sed -n 's/^perfwl ns=/loop_ns=/p')
				log "perfsamples variant=$v depth=$d rep=$r bytes=$(wc -c <"$f.data") $(perf_samples "$f.data" "$prog" "w$d") $pw"
				if [ $r = 0 ]; then
					perf script --max-stack 512 --time 50%-75% -i "$f.data" \
						-F comm,tid,ip,sym,dso >"$f.txt" 2>"$f.err" || {
						log "FAILED: part perf: perf script of $v at depth $d: $(tail -n 1 "$f.err")"
						status=1
					}
					awk -f ./chains.awk -v comm="$prog" -v chain="$chain" "$f.txt" >"$f.chains"
					c=$(sed 's/^top=.*//' "$f.chains" | tr '\n' ' ')
					log "perfdata variant=$v depth=$d $c"
					sed -n "s/^top=/perftop variant=$v depth=$d top=/p" "$f.chains" >>"$res"
					# Every sample there spins in wD and must show
					# the whole chain (a deferred one too).
					samples=0 leaf=0 full=0
					eval "$(grep -E '^(samples|leaf|full)=[0-9]+$' "$f.chains")"
					if [ "$samples" -lt 100 ] || [ $((full * 100)) -lt $((samples * 99)) ]; then
						log "CHAIN-CHECK-FAILED: part perf: $v, depth $d ($opts, $prog): $full complete chains (w$d .. w1 main) of $samples samples from 50% to 75% of the recording ($leaf in w$d); most frequent: $(sed -n 's/^top=//p' "$f.chains")"
						status=1
					fi
				fi
				rm -f "$f.data" "$f.txt" "$f.err" "$f.chains"
			done
		done
		r=$((r + 1))
	done
fi

# execve() and dlopen() with SFrame discovery on and off: the sysctl also
# stops the kernel from reading the files for SFrame. The .eh_frame
# conversion is off here (part eh adds it).
EXEC_N=${BENCH_EXEC_N:-100}
EH_EXEC_N=${BENCH_EH_EXEC_N:-10}
# cpu-clock period (ns) of the system-wide perf record of part eh
EH_PERF_PERIOD=${BENCH_EH_PERF_PERIOD:-1000000}
PERL=$LIBDIR/libperl.so.5.36
X=/tmp/execloop.d
# exec_runs N SFRAME EH [-D]: the execve and dlopen loops once: programs
# with SFrame (execloop, execloop-big) and without (execloop-eh), an SFrame
# library (liblc.so) and Debian's libperl (with libcrypt and libm;
# .eh_frame only). From a tmpfs copy: -D drops the kernel's reclaimable
# caches before each operation, which must not throw away the programs'
# page cache (the shared directory is 9p).
exec_runs() {
	local n="$1" v="$2" e="$3" p
	shift 3
	mkdir -p $X
	cp ./execloop ./execloop-big ./execloop-eh ./liblc.so $X/
	echo "$v" >$S
	eh "$e"
	for p in $X/execloop $X/execloop-big $X/execloop-eh; do
		printf 'exec-run sframe=%s eh=%s ' "$v" "$e" >>"$res"
		run $X/execloop "$@" exec "$n" "$p"
	done
	printf 'exec-run sframe=%s eh=%s ' "$v" "$e" >>"$res"
	run $X/execloop "$@" dlopen "$n" $X/liblc.so
	if [ -e "$PERL" ]; then
		printf 'exec-run sframe=%s eh=%s ' "$v" "$e" >>"$res"
		run $X/execloop "$@" dlopen "$n" "$PERL"
	fi
	echo 1 >$S
	eh 1
	rm -rf $X
}
if has exec; then
	mark exec
	r=0
	while [ "$r" -lt "$reps" ]; do
		exec_runs "$EXEC_N" 1 0
		exec_runs "$EXEC_N" 0 0
		r=$((r + 1))
	done
fi

# The same with the conversion on (BENCH_EH_EXEC_N operations a loop), as
# the kernel runs (it may keep a file's table after its last mapping, for
# the next), and with the tables kept dropped before each operation (-D:
# every operation builds the tables of what it maps), with the conversion
# off and on; then the kernel memory the tables hold during a system-wide
# perf record -g of programs without SFrame (ehmap watch polls the
# counters), and how complete the chains of one of them (perfwl-eh) are.
if has eh; then
	mark eh-exec
	r=0
	while [ "$r" -lt "$reps" ]; do
		exec_runs "$EH_EXEC_N" 1 1
		exec_runs "$EH_EXEC_N" 1 0 -D
		exec_runs "$EH_EXEC_N" 1 1 -D
		r=$((r + 1))
	done
	mark eh-perf
	echo 1 >$S
	eh 1
	cp ./ubench-ehscale-1000000 /tmp/
	# no table kept from earlier parts
	echo 2 >/proc/sys/vm/drop_caches
	log "ehstats before $(tr ' \n' '= ' <"$STATS")"
	./ehmap watch 10 >/tmp/ehwatch.txt 2>&1 &
	wpid=$!
	rm -f /tmp/eha.data
	# shellcheck disable=SC2016
	run ./tmrun "rec-eh-a" perf record -q -a -g -e cpu-clock -c "$EH_PERF_PERIOD" \
		-o /tmp/eha.data sh -c '
		./perfwl-eh "$1" >/dev/null &
		/tmp/ubench-ehscale-1000000 -t eh-a -D 16 -C 1 -n 1000 -r 3 >/dev/null &
		./execloop exec 20 ./execloop-eh >/dev/null
		[ ! -e "$2" ] || ./execloop dlopen 10 "$2" >/dev/null
		wait' sh "$PERF_ITERS" "$PERL"
	kill -TERM "$wpid"
	wait "$wpid"
	cat /tmp/ehwatch.txt >>"$res"
	log "ehstats after $(tr ' \n' '= ' <"$STATS")"
	size=$(wc -c </tmp/eha.data)
	perf script -i /tmp/eha.data -F comm,tid,ip,sym,dso >/tmp/eha.txt 2>/tmp/eha.err ||
		{ log "FAILED: perf script eh-a"; status=1; }
	total=$(grep -c '^[^ 	]' /tmp/eha.txt)
	c=$(awk -f ./chains.awk -v comm=perfwl-eh \
		-v chain=w16,w15,w14,w13,w12,w11,w10,w9,w8,w7,w6,w5,w4,w3,w2,w1,main /tmp/eha.txt |
		tr '\n' ' ' | sed 's/top=.*//')
	log "ehperf bytes=$size total=$total $c"
	awk '/^[^ \t]/ { n[$1]++ } END { for (c in n) print "ehcomm comm=" c " samples=" n[c] }' \
		/tmp/eha.txt >>"$res"
	rm -f /tmp/eha.data /tmp/eha.txt /tmp/ubench-ehscale-1000000
fi

# fork() and exit of a process with BENCH_FORK_MAPS registered SFrame
# sections (distinct mappings of one library), against as many mappings
# of the same library built without SFrame.
if has fork; then
	mark fork
	r=0
	while [ "$r" -lt "$reps" ]; do
		for l in ./liblc.so ./liblc-fp.so; do
			# liblc-fp.so: mappings without a table (no SFrame; its
			# .eh_frame not converted)
			[ "$l" = ./liblc-fp.so ] && eh 0
			run ./forkbench "$l" "${BENCH_FORK_MAPS:-16000}" "${BENCH_FORK_N:-20}"
			eh 1
		done
		r=$((r + 1))
	done
fi

# Another task's wake-up delay while a large adversarial section is
# validated and its table built (3 rounds, worst one); then while a
# .eh_frame of overlapping records (review F1), and a valid one of the
# same size, are mapped (harness/safety/mkelf.py's files).
if has wake; then
	mark wake
	run ./wakebench 3
	[ -f safety/hostile.so ] && run ./wakebench 3 safety/hostile.so safety/valid.so
fi

if has cold; then
	mark cold
	echo 1 >$S
	run ./cold "$COLD_RUNS" 20000 300
fi

# A whole system: the Debian programs of system.txt (bench.sh packs them,
# with their libraries and python3's start-up modules, into
# system-root.tar, unpacked here over the root: busybox's applets of the
# same names are replaced, so this part comes last) started at once under
# perf record -a -g, each reading a FIFO that stays open, the kernel's
# defaults (SFrame and the .eh_frame conversion on). The counters before
# the programs start, while they all wait in read(), after a few of them
# (run again) compressed, sorted and hashed some data, after they exited
# and after perf did; the files every process maps executable, the RSS of
# the programs and of every process; the samples' user chains. Then the
# cost of an execve() of /usr/bin/true and of python3 -c pass with nothing
# kept (execloop -D) while perf record -a -g runs, the conversion on and
# off.
SYS=/tmp/system
SYS_EXEC_N=${BENCH_SYSTEM_EXEC_N:-5}
sys_stats() { log "sysstats at=$1 $(tr ' \n' '= ' <"$STATS")"; }
# sys_pids: every process (kernel threads included: they map nothing)
sys_pids() {
	local p
	for p in /proc/[0-9]*; do echo "${p#/proc/}"; done
}
# sys_maps SET PID...: the distinct files the processes map executable,
# to $SYS/maps-SET (a process that went meanwhile is skipped)
sys_maps() {
	local set=$1 f='' p
	shift
	for p in "$@"; do f="$f /proc/$p/maps"; done
	awk -v files="$f" 'BEGIN {
		n = split(files, F, " ")
		for (i = 1; i <= n; i++) {
			while ((getline l < F[i]) > 0) {
				k = split(l, a, " ")
				if (k == 6 && a[2] ~ /x/ && a[6] ~ /^\// && !seen[a[6]]++)
					print a[6]
			}
			close(F[i])
		}
	}' >"$SYS/maps-$set"
}
# sys_rss SET PID...: "sysrss set=SET processes=N vmrss_kb=.. rssfile_kb=..
# rssshmem_kb=.. pss_kb=.. xrss_kb=.. xpss_kb=.." (VmRSS, RssFile and
# RssShmem of /proc/PID/status: the root is a tmpfs, whose pages are
# shmem; Pss of every mapping, Rss and Pss of the executable ones, of
# /proc/PID/smaps), summed over the processes with a VmRSS
sys_rss() {
	local set=$1 f='' p
	shift
	for p in "$@"; do f="$f /proc/$p"; done
	awk -v dirs="$f" -v set="$set" 'BEGIN {
		n = split(dirs, D, " ")
		for (i = 1; i <= n; i++) {
			got = 0
			while ((getline l < (D[i] "/status")) > 0) {
				split(l, a, " ")
				if (a[1] == "VmRSS:") { r += a[2]; got = 1 }
				if (a[1] == "RssFile:") fr += a[2]
				if (a[1] == "RssShmem:") sr += a[2]
			}
			close(D[i] "/status")
			if (!got)
				continue
			procs++
			x = 0
			while ((getline l < (D[i] "/smaps")) > 0) {
				split(l, a, " ")
				if (a[1] ~ /^[0-9a-f]+-[0-9a-f]+$/)
					x = (a[2] ~ /x/)
				else if (a[1] == "Rss:" && x)
					xr += a[2]
				else if (a[1] == "Pss:") {
					ps += a[2]
					if (x)
						xp += a[2]
				}
			}
			close(D[i] "/smaps")
		}
		printf "sysrss set=%s processes=%d vmrss_kb=%d rssfile_kb=%d rssshmem_kb=%d pss_kb=%d xrss_kb=%d xpss_kb=%d\n",
			set, procs, r, fr, sr, ps, xr, xp
	}' >>"$res"
}
# sys_perf FILE: perf record -a -g in the background, its pid in $SYS_PERF,
# once its event exists (a collector: files mapped from then on get their
# tables at once); 1 if it does not start within 60 s
sys_perf() {
	local t=0
	perf record -q -a -g -e cpu-clock -c "$EH_PERF_PERIOD" -o "$1" \
		>"$1.log" 2>&1 &
	SYS_PERF=$!
	while [ $t -lt 300 ]; do
		# shellcheck disable=SC2010 # the links' targets, not names
		ls -l /proc/$SYS_PERF/fd 2>/dev/null | grep -q 'perf_event' && return 0
		[ -e /proc/$SYS_PERF ] || break
		sleep 0.2
		t=$((t + 1))
	done
	log "FAILED: part system: perf record -a -g did not start: $(head -c 300 "$1.log" | tr '\n' ' ')"
	status=1
	kill -TERM "$SYS_PERF" 2>/dev/null
	wait "$SYS_PERF"
	return 1
}
sys_perf_stop() {
	kill -TERM "$SYS_PERF"
	wait "$SYS_PERF"
}
# sys_blocked PID: 0 once one of the process's threads waits for input:
# in read(0, ...), or in poll(), ppoll(), select(), pselect6() (x86_64
# numbers; xz polls its standard input, zstd reads it in a thread of its
# own); without /proc/PID/syscall, once it sleeps in a program that is
# not busybox. 0 too if the process has exited.
sys_blocked() {
	local nr a0 rest st t
	read -r nr a0 st rest <"/proc/$1/stat" 2>/dev/null || return 0
	[ "$st" = Z ] && return 0
	if [ -r "/proc/$1/syscall" ]; then
		for t in /proc/"$1"/task/*; do
			read -r nr a0 rest <"$t/syscall" 2>/dev/null || continue
			case $nr in
			0) [ "$a0" = 0x0 ] && return 0 ;;
			7 | 23 | 270 | 271) return 0 ;;
			esac
		done
		return 1
	fi
	[ "$st" = S ] && ! [ "/proc/$1/exe" -ef /usr/bin/busybox ]
}
# sys_state PID: the process's state letter (Z: exited), empty if gone
sys_state() {
	local st
	read -r _ _ st _ <"/proc/$1/stat" 2>/dev/null && echo "$st"
}
sys_part() {
	local line f p n names='' pids='' exes t left d st
	if [ ! -f ./system-root.tar ]; then
		log "FAILED: part system: no system-root.tar (bench.sh packs it)"
		status=1
		return
	fi
	for f in $(busybox tar -tf ./system-root.tar); do
		[ -L "/$f" ] && [ "/$f" -ef /usr/bin/busybox ] && busybox rm -f "/$f"
	done
	busybox tar -xf ./system-root.tar -C / || {
		log "FAILED: part system: cannot unpack system-root.tar"
		status=1
		return
	}
	rm -rf $SYS
	mkdir -p $SYS
	mkfifo $SYS/fifo
	echo 1 >$S
	eh 1
	# no table kept from earlier parts
	echo 2 >/proc/sys/vm/drop_caches
	sys_perf $SYS/perf.data || return
	sys_stats before
	# shellcheck disable=SC2046
	sys_maps before $(sys_pids)
	# A writer that stays: the readers' open() does not wait, and they
	# see end of file when it goes.
	exec 3<>$SYS/fifo
	while read -r line; do
		case $line in '' | '#'*) continue ;; esac
		eval "set -- $line"
		# by its path: busybox's sh runs its own applets before
		# looking at PATH
		f=/usr/bin/$1
		if [ ! -x "$f" ] || [ "$f" -ef /usr/bin/busybox ]; then
			log "note: part system: no Debian $1 in the guest"
			continue
		fi
		names="$names $1"
		shift
		"$f" "$@" <$SYS/fifo >/dev/null 2>"$SYS/err.${names##* }" 3>&- &
		pids="$pids $!"
	done <./system.txt
	# until every one waits for input (at most 60 s)
	t=0
	while [ $t -lt 300 ]; do
		left=
		for p in $pids; do
			sys_blocked "$p" || left="$left $p"
		done
		[ -z "$left" ] && break
		sleep 0.2
		t=$((t + 1))
	done
	[ -z "$left" ] || log "note: part system: not waiting for input after 60 s: pids$left"
	# shellcheck disable=SC2086 # names, one word each
	set -- $names
	exes=
	for p in $pids; do
		n=$1
		shift
		st=$(sys_state "$p")
		if [ -z "$st" ] || [ "$st" = Z ]; then
			log "FAILED: part system: $n exited at its start: $(head -c 200 "$SYS/err.$n" | tr '\n' ' ')"
			status=1
			continue
		fi
		f=$(readlink "/proc/$p/exe")
		exes="$exes
$f"
		log "sysprog name=$n pid=$p exe=$f"
	done
	n=$(echo "$exes" | grep -c '^/')
	d=$(echo "$exes" | grep '^/' | sort -u | grep -c .)
	log "sysalive processes=$n distinct=$d"
	if [ "$d" -lt 40 ]; then
		log "FAILED: part system: $d distinct programs alive at once (40 wanted)"
		status=1
	fi
	sys_stats alive
	# shellcheck disable=SC2086
	sys_maps started $pids
	# shellcheck disable=SC2046
	sys_maps all $(sys_pids)
	# shellcheck disable=SC2046 # every process but the programs
	sys_maps others $(sys_pids | grep -vxF "$(echo "$pids" | tr ' ' '\n' | grep .)")
	# shellcheck disable=SC2086
	sys_rss started $pids
	# shellcheck disable=SC2046
	sys_rss all $(sys_pids)
	# Work that perf samples: some of the programs again, on 2 MB of text.
	mark system-work
	head -c 1500000 /usr/bin/python3 | base64 >$SYS/data
	# shellcheck disable=SC2016
	for line in 'gzip -6 -c' 'xz -1 -c' 'bzip2 -c' 'zstd -q -3 -c' 'sort' \
		'sha256sum' "sed 's/[aeiou]/x/g'" 'grep -c .' \
		"mawk '{ n += length(\$0) } END { print n }'" \
		"perl -ne '\$n += tr/a-z//; END { print \$n }'" \
		"python3 -c 'import sys; print(sum(len(l) for l in sys.stdin))'"; do
		eval "set -- $line"
		f=/usr/bin/$1
		shift
		"$f" "$@" <$SYS/data >/dev/null 2>>$SYS/work.err ||
			{ log "FAILED: part system: $line: $(tail -n 1 $SYS/work.err)"; status=1; }
	done
	sys_stats busy
	mark system-exit
	# end of file for every reader; at most 60 s
	exec 3>&-
	t=0
	while [ $t -lt 300 ]; do
		left=
		for p in $pids; do
			st=$(sys_state "$p")
			[ -n "$st" ] && [ "$st" != Z ] && left="$left $p"
		done
		[ -z "$left" ] && break
		sleep 0.2
		t=$((t + 1))
	done
	if [ -n "$left" ]; then
		log "FAILED: part system: still running 60 s after end of file, killed: pids$left"
		status=1
		# shellcheck disable=SC2086
		kill -KILL $left
	fi
	# shellcheck disable=SC2086
	wait $pids
	sys_stats exited
	sys_perf_stop
	sys_stats end
	perf script -i $SYS/perf.data -F comm,tid,ip >$SYS/perf.txt 2>$SYS/script.err ||
		{ log "FAILED: part system: perf script: $(tail -n 1 $SYS/script.err)"; status=1; }
	# samples, those with a user chain, those with more than 2 user entries
	awk 'function flush() {
		if (!in_s) return
		n++; c[comm]++
		if (u) { nu++; cu[comm]++ }
		if (u > 2) { nd++; cd[comm]++ }
		in_s = 0
	}
	/^[ \t]*$/ { flush(); next }
	/^[^ \t]/ { flush(); in_s = 1; comm = $1; u = 0; next }
	in_s && $1 !~ /^ffff/ { u++ }
	END {
		flush()
		printf "syssamples total=%d user=%d deep=%d\n", n, nu, nd
		for (k in c)
			printf "syscomm comm=%s samples=%d user=%d deep=%d\n", k, c[k], cu[k], cd[k]
	}' $SYS/perf.txt >>"$res"
	for f in before started all others; do
		sed "s|^|sysmap set=$f file=|" "$SYS/maps-$f" >>"$res"
	done
	# shellcheck disable=SC2046
	run ./ehmap sections $(sort -u $SYS/maps-before $SYS/maps-all)
	rm -f $SYS/perf.data $SYS/perf.txt $SYS/data

	# execve() with nothing kept, perf record -a -g running: the
	# conversion on (the program's tables built at each start) and off
	mark system-exec
	cp ./execloop $SYS/
	echo 2 >/proc/sys/vm/drop_caches
	sys_perf $SYS/exec.data || return
	for f in 1 0; do
		eh $f
		for line in /usr/bin/true '/usr/bin/python3 -c pass'; do
			printf 'sysexec eh=%s ' "$f" >>"$res"
			# shellcheck disable=SC2086
			run $SYS/execloop -D exec "$SYS_EXEC_N" $line
		done
	done
	eh 1
	sys_perf_stop
	rm -rf $SYS
}
if has system; then
	mark system
	sys_part
fi

mark end
log "guest-done status=$status"
exit $status
