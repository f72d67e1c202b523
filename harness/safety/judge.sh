#!/bin/bash
# Judge the safety tests of one guest run (harness/guest/safety.sh): one
# line "ok - NAME" or "not ok - NAME" per check, details as "# " lines.
# harness/check.sh numbers them into its TAP stream; harness/mutants-registry.sh
# reads them to see which check a mutant fails.
#
#   harness/safety/judge.sh LABEL SHARE
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; }
comment() { sed 's/^/# /'; }

declare label=$1 S=$2/safety f=$2/safety/figures
declare hb vb hv vv died ins rf va dm w mode samples leaf full frd vad
# fig KEY: the value of a figure ("" if the guest left none)
fig() { sed -n "s/^$1=//p" "$f" 2>/dev/null | head -n 1 || true; }
num() { case $1 in ''|*[!0-9]*) return 1 ;; esac; }
if [ ! -f "$f" ]; then
	not_ok "$label: safety tests (harness/guest/safety.sh did not run)"
	{ tail -n 20 "$S/run.txt" 2>/dev/null || true; } | comment
	exit 0
fi
# stats absent: every counter check below says "kernel lacks counter"
[ "$(fig stats)" = present ] ||
	not_ok "$label: safety: /sys/kernel/debug/unwind_user/sframe_stats (not in this kernel)"
[ "$(fig perf_a_collecting)" = 1 ] ||
	not_ok "$label: safety: perf record -a -g collecting before the mappings (files_read never grew)"

# F1: the work on a hostile .eh_frame (4,096 FDEs that each run to the
# end of the 4 MiB section) is bounded like that of a valid one.
hb=$(fig f1_hostile_bytes) vb=$(fig f1_valid_bytes)
declare f1
f1="F1 hostile .eh_frame: eh_frame_bytes of 3 mappings, hostile $hb <= 1.5 x valid $vb"
f1="$f1 (mmap ms: hostile $(fig f1_hostile_ms), valid $(fig f1_valid_ms))"
if [ "$hb" = absent ] || [ -z "$hb" ]; then
	not_ok "$label: safety: $f1: kernel lacks counter eh_frame_bytes"
elif num "$hb" && num "$vb" && [ "$vb" -gt 0 ] && [ $((hb * 2)) -le $((vb * 3)) ]; then
	ok "$label: safety: $f1"
else
	not_ok "$label: safety: $f1"
fi
hv=$(fig f1_hostile_validated) vv=$(fig f1_valid_validated)
if [ "$vv" = 3 ]; then
	ok "$label: safety: F1 valid .eh_frame of the same size: a table for each of 3 mappings (validated +$vv)"
else
	not_ok "$label: safety: F1 valid .eh_frame of the same size: a table for each of 3 mappings (validated +$vv)"
fi
dm=$(fig f1_hostile_dmesg)
if [ "$hv" = 0 ] && num "$dm" && [ "$dm" -gt 0 ]; then
	ok "$label: safety: F1 hostile .eh_frame gets no table (validated +0) and the kernel log names it ($dm lines)"
else
	not_ok "$label: safety: F1 hostile .eh_frame gets no table (validated +$hv of 3 mappings, need 0) and the kernel log names it ($dm lines)"
fi
[ -z "$(fig f1_hostile_dmesg_line)" ] || echo "# $(fig f1_hostile_dmesg_line)"
# SIGKILL during the conversion of a 60 MiB .eh_frame: the process
# must be gone within 1 s, as the review asks.
ins=$(fig f1_kill_in_syscall) died=$(fig f1_kill_died_ms)
declare f1k
f1k="F1 SIGKILL during the conversion of a 60 MiB .eh_frame: dead ${died:-?} ms after the kill (need <= 1000; killed $(fig f1_kill_waited_ms) ms into its mmap: $(fig f1_kill_why))"
if [ "$ins" = 1 ] && num "$died" && [ "$died" -le 1000 ]; then
	ok "$label: safety: $f1k"
else
	not_ok "$label: safety: $f1k"
	{ grep -E '^(syscall|wchan|stack)' "$S/f1-kill.txt" 2>/dev/null || true; } | head -n 20 | comment
fi

# F2: a program run from an overlayfs in a private mount namespace.
mode=$(awk '{ print $1 }' "$S/f2/modes" 2>/dev/null || true)
samples=0 leaf=0 full=0
eval "$(awk -f "$TOP/harness/demo/chains.awk" -v comm=demo-eh -v chain=c,b,a,main \
	"$S/f2/script-$mode.txt" 2>/dev/null | grep -E '^(samples|leaf|full)=[0-9]+$' || true)"
declare f2
f2="F2 demo-eh from overlayfs in a private mount namespace, perf -g: chain c<-b<-a<-main in $full of $leaf samples with leaf c ($samples samples; need >= 990/1000)"
if [ "$(fig f2_mount)" != ok ]; then
	not_ok "$label: safety: $f2: overlay mount failed: $(fig f2_mount_error) (overlay in /proc/filesystems: $(fig overlay_fs))"
elif [ "$leaf" -ge 100 ] && [ $((full * 1000)) -ge $((990 * leaf)) ]; then
	ok "$label: safety: $f2"
else
	not_ok "$label: safety: $f2"
	{ awk -f "$TOP/harness/demo/chains.awk" -v comm=demo-eh -v chain=c,b,a,main \
		"$S/f2/script-$mode.txt" 2>/dev/null || true; } | comment
fi

# F3: one user's profile reads no other user's files.
frd=$(fig f3_files_read_delta) vad=$(fig f3_validated_delta)
declare f3
f3="F3 uid 1000 profiles its program (paranoid 2): uid 1001's programs meanwhile: files_read +$frd, validated +$vad (need +0, +0)"
w=$(fig f3_demo_ticks_before)
if ! num "$w" || [ "$w" -lt 100 ]; then
	not_ok "$label: safety: $f3: uid 1000's perf record did not run (its program had $w ticks, need 100)"
	{ head -n 5 "$S/f3-record.txt" 2>/dev/null || true; } | comment
elif [ "$frd" = 0 ] && [ "$vad" = 0 ]; then
	ok "$label: safety: $f3"
else
	not_ok "$label: safety: $f3"
fi
samples=0 leaf=0 full=0
eval "$(awk -f "$TOP/harness/demo/chains.awk" -v comm=demo-eh -v chain=c,b,a,main \
	"$S/f3-script.txt" 2>/dev/null | grep -E '^(samples|leaf|full)=[0-9]+$' || true)"
declare f3c
f3c="F3 uid 1000's perf.data: chain c<-b<-a<-main in $full of $leaf samples with leaf c ($samples samples; need >= 990/1000)"
if [ "$leaf" -ge 100 ] && [ $((full * 1000)) -ge $((990 * leaf)) ]; then
	ok "$label: safety: $f3c"
else
	not_ok "$label: safety: $f3c"
	{ awk -f "$TOP/harness/demo/chains.awk" -v comm=demo-eh -v chain=c,b,a,main \
		"$S/f3-script.txt" 2>/dev/null; head -n 5 "$S/f3-script.err"; } 2>/dev/null | comment || true
fi

# F4: tables over the bounds are refused, with a message, no warning.
declare k what
for k in pcmask sframe; do
	case $k in
	pcmask) what="F4 SFrame section just under 64 MiB, one PCMASK function needing > 2^24 rows" ;;
	sframe) what="F4 SFrame section over 64 MiB" ;;
	esac
	rf=$(fig f4_${k}_refused) va=$(fig f4_${k}_validated) dm=$(fig f4_${k}_dmesg) w=$(fig f4_warnings)
	what="$what: refused +$rf, validated +$va, $dm kernel log lines name it, ${w:-?} new WARNING lines"
	what="$what (MemAvailable kB before $(fig f4_${k}_memavail_before_kb), lowest $(fig f4_${k}_memavail_min_kb), after $(fig f4_${k}_memavail_after_kb); mmap $(fig f4_${k}_mmap_ms) ms)"
	if [ "$rf" = absent ] || [ -z "$rf" ]; then
		not_ok "$label: safety: $what: kernel lacks counter refused"
	elif num "$rf" && [ "$rf" -gt 0 ] && [ "$va" = 0 ] && num "$dm" && [ "$dm" -gt 0 ] && [ "$w" = 0 ]; then
		ok "$label: safety: $what"
	else
		not_ok "$label: safety: $what"
	fi
	[ -z "$(fig f4_${k}_dmesg_line)" ] || echo "# $(fig f4_${k}_dmesg_line)"
done
echo "# safety figures ($S/summary.txt):"
comment <"$S/summary.txt" 2>/dev/null || true
