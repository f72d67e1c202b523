#!/bin/sh
# Guest side of the safety tests (review findings F1-F4): crafted files
# mapped by an unprivileged user, a program run from an overlayfs in a
# private mount namespace, and one user's profile beside another user's
# programs. Results go to SHARE/safety/ for harness/check.sh to judge
# (judge_safety); nothing is judged here.
#
#   sh /harness/safety.sh SHARE
#
# Inputs (from the host, harness/check.sh): SHARE/safety/ehmap
# (harness/safety/ehmap.c), the files of harness/safety/mkelf.py
# (hostile.so valid.so ehbig.so pcmask.so sframe-big.so), SHARE/demo-eh.
# Outputs in SHARE/safety/: figures (key=value lines, read by check.sh),
# summary.txt (every figure, for people), the raw output of each step
# (f1-*.txt, f2/, f3-*.txt, f4-*.txt), dmesg.txt.
# Every wait is bounded; no step judges by a fixed sampling time.
share=$1
S=$share/safety
EHMAP=$S/ehmap
FIG=$S/figures
STATS=/sys/kernel/debug/unwind_user/sframe_stats
T=/tmp/safety
mkdir -p "$S" "$T"
: >"$FIG"
fig() { echo "$1=$2" >>"$FIG"; }
# sstat NAME: the counter's value, empty if the kernel has no such line
sstat() { awk -v n="$1" '$1 == n { print $2 }' "$STATS" 2>/dev/null; }
# figure of an ehmap output: stat delta of NAME ("absent" if no such line)
delta() { awk -v n="$2" '$1 == "stat" && $2 == n { d = $5 } END { print d == "" ? "absent" : d }' "$1"; }
val() { sed -n "s/^$2=//p" "$1" | head -n 1; }
# wait_gone PID SECONDS: until the process is gone (or a zombie)
wait_gone() {
	i=0
	while [ -d "/proc/$1" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt $(($2 * 10)) ] && return 1
		sleep 0.1
	done
	return 0
}
# cpu_ticks PID: user + system time of a process, in clock ticks
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $12 + $13 }'; }

[ -e "$STATS" ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
if [ -r "$STATS" ]; then
	fig stats present
	cp "$STATS" "$S/sframe_stats-start.txt"
else
	fig stats absent
fi
fig overlay_fs "$(grep -c overlay /proc/filesystems)"

# Users 1000 and 1001 (harness/initramfs.sh puts them in /etc/passwd),
# each with a home directory of its own.
for u in 1000 1001; do
	mkdir -p /tmp/u$u
	chown $u:$u /tmp/u$u
done

# map_clean OUT OPTS SRC TAG [sparse]: map a fresh copy of SRC as uid 1000
# (ehmap map -s STATS OPTS) until the deltas are the mapping's own:
# files_read grew by exactly 1 during it. Otherwise another process's
# files were read meanwhile (a process that started before perf -a has
# its files read at its first sample), and it tries again, at most 3
# times. Each try maps a new copy in $T (NAME-TAG-TRY.so, on tmpfs, so
# that no kept table is reused and the kernel reads it from the page
# cache, not through 9p); "sparse": SRC is zeros beyond its first 8 KiB
# (mkelf.py's SFrame files), copied as that head and a hole. OUT: the
# output of the last try (of the others: OUT.tryN). Prints the number of
# tries.
map_clean() {
	mc_out=$1 mc_opts=$2 mc_src=$3 mc_tag=$4 mc_try=0
	while [ $mc_try -lt 3 ]; do
		mc_try=$((mc_try + 1))
		mc_f=$T/$(basename "$mc_src" .so)-$mc_tag-$mc_try.so
		if [ "${5:-}" = sparse ]; then
			dd if="$mc_src" of="$mc_f" bs=8192 count=1 2>/dev/null
			truncate -s "$(stat -c %s "$mc_src")" "$mc_f"
		else
			cp "$mc_src" "$mc_f"
		fi
		# shellcheck disable=SC2086 # options
		timeout -s KILL 900 "$EHMAP" map -u 1000 -s "$STATS" $mc_opts "$mc_f" \
			>"$mc_out" 2>&1
		rm -f "$mc_f"
		[ "$(delta "$mc_out" files_read)" = 1 ] && break
		cp "$mc_out" "$mc_out.try$mc_try"
	done
	echo $mc_try
}

# ---------------------------------------------------------------- perf -a
# A system-wide collector of call chains: files are read and their tables
# built at mmap, in the mapping task (the deltas below are of the mmap).
perf record -a -g -e cpu-clock -F 100 -o $T/perf-a.data >"$S/perf-a.txt" 2>&1 &
pa=$!
# It collects once a new program's mapping is read: at most 60 s.
fr0=$(sstat files_read) i=0 collecting=0
while [ -n "$fr0" ] && [ $i -lt 600 ] && [ -d /proc/$pa ]; do
	/bin/true
	[ "$(sstat files_read)" -gt "$fr0" ] && { collecting=1; break; }
	i=$((i + 1))
	sleep 0.1
done
fig perf_a_collecting $collecting

# ---------------------------------------------------------------- F1
# Hostile and valid .eh_frame of the same size, each mapped three times by
# uid 1000, a fresh copy each time (a table kept for a file is reused on
# its next mapping).
hb=0 vb=0 hv=0 vv=0 hms='' vms='' absent='' tries=''
for i in 1 2 3; do
	for k in valid hostile; do
		n=$(map_clean "$S/f1-$k-$i.txt" "" "$S/$k.so" $i)
		tries="$tries $n"
		b=$(delta "$S/f1-$k-$i.txt" eh_frame_bytes)
		v=$(delta "$S/f1-$k-$i.txt" validated)
		ms=$(val "$S/f1-$k-$i.txt" mmap_ms)
		[ "$b" = absent ] && { absent=1; b=0; }
		[ "$v" = absent ] && v=0
		if [ $k = valid ]; then
			vb=$((vb + b)) vv=$((vv + v)) vms="$vms ${ms:-?}"
		else
			hb=$((hb + b)) hv=$((hv + v)) hms="$hms ${ms:-?}"
		fi
	done
done
fig f1_tries "${tries# }"
if [ -n "$absent" ]; then
	fig f1_hostile_bytes absent
	fig f1_valid_bytes absent
else
	fig f1_hostile_bytes $hb
	fig f1_valid_bytes $vb
fi
fig f1_maps 3
fig f1_hostile_validated $hv
fig f1_valid_validated $vv
fig f1_hostile_ms "${hms# }"
fig f1_valid_ms "${vms# }"
dmesg >"$S/dmesg-f1.txt"
fig f1_hostile_dmesg "$(grep -c 'hostile-[0-9]' "$S/dmesg-f1.txt")"
fig f1_hostile_dmesg_line "$(grep 'hostile-[0-9]' "$S/dmesg-f1.txt" | head -n 1 | sed 's/^\[[ 0-9.]*\] //')"

# SIGKILL in the middle of a long conversion: a 60 MiB .eh_frame, mapped
# by uid 1000; ehmap kill waits until its stack is in the conversion (or
# the mmap), kills it, and times its death. The read of the file before
# the conversion takes tens of seconds under a debug kernel (KASAN) on a
# busy host: hence the generous limit.
# (A copy on tmpfs: the kernel reads it faster than through 9p.)
cp "$S/ehbig.so" $T/ehbig.so
"$EHMAP" map -u 1000 -s "$STATS" $T/ehbig.so >"$S/f1-kill-map.txt" 2>&1 &
tp=$!
"$EHMAP" kill $tp "$S/f1-kill-map.txt" \
	'eh_frame_convert|sframe_eh_convert|sframe_build|sframe_rules|sframe_shared_new' 600 \
	>"$S/f1-kill.txt" 2>&1
wait_gone $tp 300
wait $tp 2>/dev/null
rm -f $T/ehbig.so
fig f1_kill_in_syscall "$(val "$S/f1-kill.txt" in_syscall)"
fig f1_kill_why "$(val "$S/f1-kill.txt" why)"
fig f1_kill_waited_ms "$(val "$S/f1-kill.txt" waited_ms)"
fig f1_kill_died_ms "$(val "$S/f1-kill.txt" died_ms)"
fig f1_kill_syscall "$(val "$S/f1-kill.txt" syscall)"
fig f1_kill_stack "$(sed -n 's/^stack: //p' "$S/f1-kill.txt" | sed 's/^\[<[0-9a-f]*>\] //; s/+0x.*//' | head -n 12 | tr '\n' ' ')"

# ---------------------------------------------------------------- F4
# A PT_GNU_SFRAME section just under 64 MiB whose one PCMASK function
# needs more than 2^24 rows, then a section over 64 MiB: both refused.
dmesg >"$S/dmesg-f4-before.txt"
for f in pcmask sframe; do
	src=$S/$f.so
	[ $f = sframe ] && src=$S/sframe-big.so
	fig f4_${f}_tries "$(map_clean "$S/f4-$f.txt" -m "$src" 1 sparse)"
	fig f4_${f}_refused "$(delta "$S/f4-$f.txt" refused)"
	fig f4_${f}_validated "$(delta "$S/f4-$f.txt" validated)"
	for m in mmap_ms mmap_rc memavail_before_kb memavail_min_kb memavail_after_kb; do
		fig f4_${f}_$m "$(val "$S/f4-$f.txt" $m)"
	done
done
dmesg >"$S/dmesg-f4.txt"
fig f4_pcmask_dmesg "$(grep -c 'pcmask-1-[0-9]\.so' "$S/dmesg-f4.txt")"
fig f4_pcmask_dmesg_line "$(grep 'pcmask-1-[0-9]\.so' "$S/dmesg-f4.txt" | head -n 1 | sed 's/^\[[ 0-9.]*\] //')"
fig f4_sframe_dmesg "$(grep -c 'sframe-big-1-[0-9]\.so' "$S/dmesg-f4.txt")"
fig f4_sframe_dmesg_line "$(grep 'sframe-big-1-[0-9]\.so' "$S/dmesg-f4.txt" | head -n 1 | sed 's/^\[[ 0-9.]*\] //')"
# WARNING lines the F4 mappings added to the kernel log
fig f4_warnings "$(( $(grep -c 'WARNING:' "$S/dmesg-f4.txt") - $(grep -c 'WARNING:' "$S/dmesg-f4-before.txt") ))"

kill -INT $pa 2>/dev/null
wait_gone $pa 120 || kill -KILL $pa 2>/dev/null
wait $pa 2>/dev/null
rm -f $T/perf-a.data

# ---------------------------------------------------------------- F2
# demo-eh run from an overlayfs (lower, upper and work dirs on tmpfs)
# mounted in a private mount namespace, under perf record -g
# (harness/guest/perf-demo.sh: at least 1000 samples, at most 4 tries).
O=$T/ovl
mkdir -p $O/lower $O/upper $O/work $O/merged
cp "$share/demo-eh" $O/lower/demo-eh
unshare -m sh -c "
	mount -t overlay overlay -o lowerdir=$O/lower,upperdir=$O/upper,workdir=$O/work $O/merged ||
		exit 1
	echo mounted: \$(grep ' $O/merged ' /proc/mounts)
	exec sh /harness/perf-demo.sh $O/merged/demo-eh '$S/f2' on 2 1000
" >"$S/f2.txt" 2>&1
fig f2_rc $?
fig f2_mount "$(grep -q '^mounted: ' "$S/f2.txt" && echo ok || echo failed)"
fig f2_mount_error "$(grep -q '^mounted: ' "$S/f2.txt" || head -n 1 "$S/f2.txt")"
# not in the namespace any more: nothing mounted out here
fig f2_outside "$(grep -c " $O/merged " /proc/mounts)"

# ---------------------------------------------------------------- F3
# At perf_event_paranoid=2, uid 1000 profiles its own program; meanwhile
# uid 1001 starts programs that were not run before: only uid 1000's
# program may have its files read.
old_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
echo 2 >/proc/sys/kernel/perf_event_paranoid
cp "$share/demo-eh" /tmp/u1000/demo-eh
cp "$share/demo-eh" /tmp/u1001/demo-other
chown 1000:1000 /tmp/u1000/demo-eh
chown 1001:1001 /tmp/u1001/demo-other
rm -f /tmp/u1000/perf.data
su -s /bin/sh u1000 -c 'cd /tmp/u1000 && exec perf record -N -g --user-callchains -e cpu-clock:u -F 1000 \
	-o /tmp/u1000/perf.data -- ./demo-eh 300' >"$S/f3-record.txt" 2>&1 &
rp=$!
# its program, once it has run 1 s (about 1000 samples): at most 120 s
dp='' i=0 t=0
while [ $i -lt 1200 ] && [ -d /proc/$rp ]; do
	[ -n "$dp" ] || dp=$(pidof demo-eh | awk '{ print $1 }')
	[ -n "$dp" ] && t=$(cpu_ticks "$dp")
	[ -n "$dp" ] && [ "${t:-0}" -ge 100 ] && break
	i=$((i + 1))
	sleep 0.1
done
fig f3_demo_ticks_before "${t:-0}"
cp "$STATS" "$S/f3-stats-1.txt" 2>/dev/null
fr1=$(sstat files_read) va1=$(sstat validated)
su -s /bin/sh u1001 -c '/tmp/u1001/demo-other 0.2; perf-debian --version; addr2line --version | head -n 1;
	perf --version' >"$S/f3-u1001.txt" 2>&1
fig f3_u1001_rc $?
cp "$STATS" "$S/f3-stats-2.txt" 2>/dev/null
fr2=$(sstat files_read) va2=$(sstat validated)
if [ -n "$fr1" ] && [ -n "$fr2" ]; then
	fig f3_files_read_delta $((fr2 - fr1))
	fig f3_validated_delta $((va2 - va1))
else
	fig f3_files_read_delta absent
	fig f3_validated_delta absent
fi
# uid 1000's program on to at least 2 s of its own time (at most 120 s),
# then ended: perf record writes its data when it exits
i=0
while [ -n "$dp" ] && [ $i -lt 1200 ] && [ -d /proc/$dp ]; do
	t=$(cpu_ticks "$dp")
	[ "${t:-0}" -ge 200 ] && break
	i=$((i + 1))
	sleep 0.1
done
fig f3_demo_ticks "${t:-0}"
[ -n "$dp" ] && kill -TERM $dp 2>/dev/null
wait_gone $rp 120 || kill -INT $rp 2>/dev/null
wait_gone $rp 30 || kill -KILL $rp 2>/dev/null
wait $rp 2>/dev/null
su -s /bin/sh u1000 -c 'perf script -i /tmp/u1000/perf.data -F comm,tid,ip,sym,dso' \
	>"$S/f3-script.txt" 2>"$S/f3-script.err"
fig f3_script_rc $?
echo "$old_paranoid" >/proc/sys/kernel/perf_event_paranoid

# ---------------------------------------------------------------- summary
[ -r "$STATS" ] && cp "$STATS" "$S/sframe_stats-end.txt"
dmesg >"$S/dmesg.txt"
{
	echo "safety tests ($(uname -r), $(uname -m))"
	echo "sframe_stats: $(val "$FIG" stats); overlay in /proc/filesystems: $(val "$FIG" overlay_fs)"
	echo "perf -a collecting before the mappings: $(val "$FIG" perf_a_collecting)"
	echo "F1 eh_frame_bytes over $(val "$FIG" f1_maps) mappings: hostile $(val "$FIG" f1_hostile_bytes), valid $(val "$FIG" f1_valid_bytes)"
	echo "F1 validated deltas: hostile $(val "$FIG" f1_hostile_validated), valid $(val "$FIG" f1_valid_validated)"
	echo "F1 tries per mapping (valid hostile, 3 times): $(val "$FIG" f1_tries)"
	echo "F1 mmap ms: hostile $(val "$FIG" f1_hostile_ms); valid $(val "$FIG" f1_valid_ms)"
	echo "F1 kernel log lines naming the hostile copies: $(val "$FIG" f1_hostile_dmesg): $(val "$FIG" f1_hostile_dmesg_line)"
	echo "F1 SIGKILL: in the system call $(val "$FIG" f1_kill_in_syscall) ($(val "$FIG" f1_kill_why)), after $(val "$FIG" f1_kill_waited_ms) ms; died $(val "$FIG" f1_kill_died_ms) ms after the kill"
	echo "F1 SIGKILL: syscall $(val "$FIG" f1_kill_syscall); stack $(val "$FIG" f1_kill_stack)"
	for f in pcmask sframe; do
		echo "F4 $f: refused delta $(val "$FIG" f4_${f}_refused), validated delta $(val "$FIG" f4_${f}_validated), mmap $(val "$FIG" f4_${f}_mmap_ms) ms (rc $(val "$FIG" f4_${f}_mmap_rc)), MemAvailable kB before $(val "$FIG" f4_${f}_memavail_before_kb) lowest $(val "$FIG" f4_${f}_memavail_min_kb) after $(val "$FIG" f4_${f}_memavail_after_kb)"
		echo "F4 $f: kernel log lines naming it: $(val "$FIG" f4_${f}_dmesg): $(val "$FIG" f4_${f}_dmesg_line)"
	done
	echo "F4 new WARNING: lines: $(val "$FIG" f4_warnings)"
	echo "F2 overlay mount: $(val "$FIG" f2_mount) $(val "$FIG" f2_mount_error) (perf-demo.sh status $(val "$FIG" f2_rc); mounted outside the namespace afterwards: $(val "$FIG" f2_outside))"
	echo "F3 uid 1000's program: $(val "$FIG" f3_demo_ticks_before) ticks before uid 1001's programs, $(val "$FIG" f3_demo_ticks) in all"
	echo "F3 deltas during uid 1001's programs: files_read $(val "$FIG" f3_files_read_delta), validated $(val "$FIG" f3_validated_delta) (their status $(val "$FIG" f3_u1001_rc))"
} >"$S/summary.txt"
echo "== safety: done"
exit 0
