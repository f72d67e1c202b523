#!/bin/bash
# Unwind benchmark: per-sample cost of SFrame vs frame-pointer unwinding,
# scaling with FDEs and libraries, perf.data size, cold start, tables
# converted from .eh_frame (cost, conversion time, memory), and a host
# micro-benchmark of the decoder. See harness/bench/README.md.
#
#   harness/bench/bench.sh [ARCH]     (x86_64, the default, or arm64; make bench [ARCH=..])
#
# Builds the programs on the host (out/bench/ARCH/), boots the guest twice:
# once with -icount shift=0 (instruction counts), once without (wall-clock
# medians); runs the host micro-benchmark; prints Markdown tables and
# writes them to out/bench/bench-ARCH.md.
#
# Environment: KERNEL, INITRD (guest images; default: build them with
# make kernel initramfs), REPS_ICOUNT (5), REPS_WALL (7), BENCH_N and
# BENCH_N_WALL (ubench iterations per timed loop: 1000, 2000),
# BENCH_PERF_ITERS, BENCH_PERF_PERIOD (perf.data workload), BENCH_PERF_DEPTHS
# (its call depths: "16 64 128"; --call-graph dwarf at the first),
# BENCH_PERF_REPS (repetitions of part perf: REPS_ICOUNT/REPS_WALL, at
# most 3), BENCH_COLD_RUNS,
# BENCH_EXEC_N (execve/dlopen loop length: 100), BENCH_EH_EXEC_N (the
# same with the .eh_frame conversion on: 10), BENCH_EH_PERF_PERIOD
# (cpu-clock period of part eh's perf record -a, ns: 1000000),
# BENCH_FORK_MAPS (16000) and BENCH_FORK_N (forks timed: 20), BENCH_PARTS
# ("cost worst scale perf cold exec fork wake eh system"; system is
# x86_64 only: it copies the host's Debian programs of
# harness/bench/system.txt into the guest), BENCH_SYSTEM_EXEC_N (execs per
# loop of part system: 5), BENCH_BOOTS ("icount wall",
# and "base" if asked: a boot left out has no results in the report;
# "base" boots the pinned base without the series, built with UNPATCHED=1
# harness/build-kernel.sh, with -icount, for the frame-pointer cost of
# table 1 on a kernel without any of it), BASE_KERNEL (the unpatched image
# to boot as "base", instead of building it), BENCH_TAG (suffix of the
# output names: out/bench/ARCH-TAG/, out/bench/bench-ARCH-TAG.md).
set -euo pipefail
. "$(dirname "$0")/../config.sh"

start=$SECONDS
arch=${1:-x86_64}
case "$arch" in
x86_64) cc=gcc qemu=qemu-system-x86_64 ;;
arm64) cc=aarch64-linux-gnu-gcc qemu=qemu-system-aarch64 ;;
*) echo "error: unsupported ARCH '$arch' (x86_64, arm64)" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "usage: harness/bench/bench.sh [x86_64|arm64]" >&2; exit 2; }
for t in "$cc" gcc python3 "$qemu" make sha256sum; do
	command -v "$t" >/dev/null || die "$t not found (make deps installs the tools)"
done
echo 'int main(void){return 0;}' | "$cc" -Wa,--gsframe -x c - -o /dev/null 2>/dev/null ||
	die "$cc cannot assemble with --gsframe (binutils >= 2.40 needed)"
printf '#include <gelf.h>\nint main(void){return elf_version(EV_CURRENT) == EV_NONE;}\n' |
	gcc -x c - -lelf -o /dev/null 2>/dev/null || die "libelf not found (libelf-dev)"

# The library scaling part copies a 1 MB library 1,000 times to the guest's
# /tmp (a tmpfs of half its memory).
export QEMU_MEM=${QEMU_MEM:-3G}
reps_icount=${REPS_ICOUNT:-5}
reps_wall=${REPS_WALL:-7}
parts=${BENCH_PARTS:-cost worst scale perf cold exec fork wake eh system}
for v in "$reps_icount" "$reps_wall"; do
	case $v in '' | *[!0-9]* | 0) die "REPS_ICOUNT/REPS_WALL must be positive integers" ;; esac
	[ "$v" -le 99 ] || die "REPS_ICOUNT/REPS_WALL must be <= 99"
done
boots=${BENCH_BOOTS:-icount wall}
for p in $boots; do
	case $p in icount | wall | base) ;; *) die "unknown BENCH_BOOTS entry '$p' (icount wall base)" ;; esac
done
[ -n "${boots// /}" ] || die "BENCH_BOOTS is empty"
for p in $parts; do
	case $p in cost | worst | scale | perf | cold | exec | fork | wake | eh | system) ;; *) die "unknown BENCH_PARTS entry '$p' (cost worst scale perf cold exec fork wake eh system)" ;; esac
done
if [ "$arch" != x86_64 ]; then
	case " $parts " in *" system "*)
		[ -z "${BENCH_PARTS:-}" ] ||
			die "part system is x86_64 only (it copies the host's Debian programs into the guest)"
		note "part system left out: x86_64 only"
		parts=${parts% system} ;;
	esac
fi
case " $parts " in *" system "*)
	for t in ldd tar cpio gzip; do
		command -v "$t" >/dev/null || die "$t not found (part system needs it)"
	done ;;
esac

# Guest images: given, or built (incrementally) by the top-level Makefile.
if [ -z "${KERNEL:-}" ] || [ -z "${INITRD:-}" ]; then
	note "building the $arch kernel and initramfs (make kernel initramfs)"
	make -s -C "$TOP" --no-print-directory kernel initramfs ARCH="$arch" >&2
fi
case $arch in
x86_64) KERNEL=${KERNEL:-$OUT/build/x86_64/arch/x86/boot/bzImage} ;;
arm64) KERNEL=${KERNEL:-$OUT/build/arm64/arch/arm64/boot/Image} ;;
esac
INITRD=${INITRD:-$OUT/initramfs/$arch.cpio.gz}
[ -f "$KERNEL" ] || die "kernel image $KERNEL not found"
[ -f "$INITRD" ] || die "initramfs $INITRD not found"
export KERNEL INITRD

# sampler.c (cold start) needs kselftest.h from the kernel tree.
ksft=$SRC/tools/testing/selftests
[ -f "$ksft/kselftest.h" ] || "$TOP/harness/base.sh" >/dev/null
tag=${BENCH_TAG:+-$BENCH_TAG}
case $tag in *[!A-Za-z0-9_.-]*) die "BENCH_TAG may only hold letters, digits, '.', '_' and '-'" ;; esac
B=$OUT/bench/$arch$tag
mkdir -p "$B"
note "building the benchmark programs in $B"
t0=$SECONDS
make -j1 -s -C "$TOP/harness/bench" --no-print-directory ARCH="$arch" B="$B" \
	KSFT_DIR="$ksft" HOST=1 >"$B/build.log" 2>&1 ||
	{ tail -20 "$B/build.log" >&2; die "build failed (log: $B/build.log)"; }
note "built in $((SECONDS - t0)) s"
cp "$TOP/harness/bench/guest.sh" "$TOP/harness/demo/chains.awk" "$TOP/harness/bench/system.txt" "$B/"
# Part eh: the python interpreter's own text (Debian links libpython into
# it), a large program without SFrame, for its table (x86_64: the host's).
rm -f "$B/python3.11"
[ "$arch" = x86_64 ] && [ -f /usr/bin/python3.11 ] && cp /usr/bin/python3.11 "$B/"
# A report shows what this run measured: no results of an earlier one.
rm -f "$B"/results-*.txt
rm -f "$B/host.txt" "$B/system-root.tar"

# Part system: the Debian programs of system.txt, and `true` (its exec
# loop), from the host's /usr/bin (x86_64: the guest's initramfs holds
# the host's own files), each with the libraries ldd lists, and the
# modules python3 imports at start-up, in $B/system-root.tar; files the
# initramfs has already are left out, but for busybox's applets, which
# guest.sh replaces. A path and every symlink on the way to its file.
system_paths() {
	local p=$1 t n=0
	while [ $n -lt 10 ]; do
		p=$(readlink -f "$(dirname "$p")")/$(basename "$p")
		echo "${p#/}"
		[ -L "$p" ] || return 0
		t=$(readlink "$p")
		case $t in /*) p=$t ;; *) p=$(dirname "$p")/$t ;; esac
		n=$((n + 1))
	done
}
system_root() {
	local list=$B/system-files.txt have=$B/system-initramfs.txt name rest f l n=0 missing=
	gzip -dc "$INITRD" | cpio -tv --quiet 2>/dev/null |
		awk '$(NF - 1) == "->" && $NF ~ /\/busybox$/ { next }
		     { print ($(NF - 1) == "->") ? $(NF - 2) : $NF }' | LC_ALL=C sort -u >"$have"
	[ -s "$have" ] || die "part system: cannot list $INITRD"
	{
		while read -r name rest; do
			case $name in '' | '#'*) continue ;; esac
			f=/usr/bin/$name
			if [ ! -x "$f" ]; then
				missing="$missing $name"
				continue
			fi
			n=$((n + 1))
			system_paths "$f"
			for l in $(ldd "$f" 2>/dev/null | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }'); do
				system_paths "$l"
			done
		done <"$TOP/harness/bench/system.txt"
		[ -x /usr/bin/true ] && system_paths /usr/bin/true
		if [ -x /usr/bin/python3 ]; then
			# the modules a start imports (frozen ones have no file);
			# lib-dynload, empty, tells python its exec prefix
			env -i /usr/bin/python3 -c '
import os, sys
lib = os.path.join(sys.prefix, "lib", "python%d.%d" % sys.version_info[:2])
print(os.path.join(lib, "lib-dynload")[1:])
for m in list(sys.modules.values()):
    f = getattr(m, "__file__", None)
    if not f or not os.path.realpath(f).startswith(lib + "/"):
        continue
    print(f[1:])
    c = getattr(m, "__cached__", None)
    if c and os.path.exists(c):
        print(c[1:])' || die "part system: the host's /usr/bin/python3 does not start"
		fi
	} >"$list.all"
	LC_ALL=C sort -u "$list.all" | LC_ALL=C comm -23 - "$have" >"$list"
	[ -z "$missing" ] || note "part system: not on this host, left out:$missing"
	[ "$n" -ge 40 ] ||
		die "part system: only $n of the programs of harness/bench/system.txt are in the host's /usr/bin (40 needed)"
	tar -cf "$B/system-root.tar" -C / --no-recursion -T "$list" ||
		die "part system: cannot write $B/system-root.tar"
	note "part system: $n programs, $(wc -l <"$list") files, $(($(wc -c <"$B/system-root.tar") / 1048576)) MiB in $B/system-root.tar"
}
case " $parts " in *" system "*) system_root ;; esac

perf_iters=${BENCH_PERF_ITERS:-50000000}
perf_period=${BENCH_PERF_PERIOD:-100000}
perf_depths=${BENCH_PERF_DEPTHS:-16 64 128}
read -ra pd <<<"$perf_depths"
[ ${#pd[@]} -gt 0 ] || die "BENCH_PERF_DEPTHS is empty"
for v in "${pd[@]}"; do
	case $v in *[!0-9]* | 0*) die "BENCH_PERF_DEPTHS must hold depths 1..128" ;; esac
	[ "$v" -le 128 ] || die "BENCH_PERF_DEPTHS must hold depths 1..128"
done
perf_depths=${pd[*]}
# part perf: at most 3 repetitions unless asked (each: 6 runs alone, 13 recordings)
perf_reps() {
	local r=${BENCH_PERF_REPS:-$1}
	[ -n "${BENCH_PERF_REPS:-}" ] || [ "$r" -le 3 ] || r=3
	echo "$r"
}
cold_runs=${BENCH_COLD_RUNS:-10}
exec_n=${BENCH_EXEC_N:-100}
eh_exec_n=${BENCH_EH_EXEC_N:-10}
eh_perf_period=${BENCH_EH_PERF_PERIOD:-1000000}
sys_exec_n=${BENCH_SYSTEM_EXEC_N:-5}
for v in "$perf_iters" "$perf_period" "${BENCH_PERF_REPS:-1}" "$cold_runs" "$exec_n" "$eh_exec_n" "$eh_perf_period" "$sys_exec_n" "${BENCH_N:-1}" "${BENCH_N_WALL:-1}"; do
	case $v in '' | *[!0-9]* | 0) die "BENCH_* settings must be positive integers" ;; esac
done
boot() {
	local kind=$1 reps=$2 n=$3 rc=0 t=$SECONDS
	note "guest boot ($kind): $parts"
	TIMEOUT=${BENCH_TIMEOUT:-1500} QUIET_STATUS=1 "$TOP/harness/qemu-run.sh" "$arch" "$B" \
		"BENCH_FORK_MAPS=${BENCH_FORK_MAPS:-16000} BENCH_FORK_N=${BENCH_FORK_N:-20} BENCH_N=$n BENCH_PERF_ITERS=$perf_iters BENCH_PERF_PERIOD=$perf_period BENCH_PERF_DEPTHS='$perf_depths' BENCH_PERF_REPS=$(perf_reps "$reps") BENCH_COLD_RUNS=$cold_runs BENCH_EXEC_N=$exec_n BENCH_EH_EXEC_N=$eh_exec_n BENCH_EH_PERF_PERIOD=$eh_perf_period BENCH_SYSTEM_EXEC_N=$sys_exec_n sh guest.sh $kind $reps $arch '$parts'" \
		>"$B/boot-$kind.log" 2>&1 || rc=$?
	note "guest boot ($kind) took $((SECONDS - t)) s"
	echo "boot_$kind=$((SECONDS - t))" >>"$B/boots.txt"
	[ -s "$B/results-$kind.txt" ] ||
		{ tail -30 "$B/boot-$kind.log" >&2; die "guest boot ($kind) produced no results"; }
	return $rc
}
status=0
rm -f "$B/boots.txt"
case " $boots " in *" icount "*)
	ICOUNT=0 boot icount "$reps_icount" "${BENCH_N:-1000}" || status=1 ;;
esac
case " $boots " in *" base "*)
	# The unpatched base: only the frame-pointer walk exists there.
	if [ -n "${BASE_KERNEL:-}" ]; then
		[ -f "$BASE_KERNEL" ] || die "BASE_KERNEL $BASE_KERNEL not found"
		base_kernel=$BASE_KERNEL
	else
		note "building the unpatched $arch kernel (UNPATCHED=1 harness/build-kernel.sh $arch)"
		base_kernel=$(UNPATCHED=1 "$TOP/harness/build-kernel.sh" "$arch" | tail -n 1) ||
			die "the unpatched $arch kernel does not build"
	fi
	KERNEL=$base_kernel ICOUNT=0 boot base "$reps_icount" "${BENCH_N:-1000}" || status=1 ;;
esac
case " $boots " in *" wall "*)
	# An ICOUNT from the caller's environment must not reach this boot.
	ICOUNT= boot wall "$reps_wall" "${BENCH_N_WALL:-2000}" || status=1 ;;
esac

note "host micro-benchmark"
scale=$(for n in 10 100 1000 10000 100000 1000000; do echo "$B/ubench-scale-$n"; done)
# shellcheck disable=SC2086
"$B/hostbench" -r 5 "$B/ubench-sf" "$B/cold" "$B/perfwl-sf" "$B/liblc.so" $scale \
	>"$B/host.txt" 2>"$B/host.err" || { cat "$B/host.err" >&2; status=1; }

# What was measured with what.
# (the series' kernel: not the base's, whose results file sorts first)
kver=$({ cat "$B"/results-icount.txt "$B"/results-wall.txt 2>/dev/null || true; } |
	sed -n 's/^kernel release=\([^ ]*\) version=/\1 /p' | head -1)
case $arch in
x86_64) cfg=$OUT/build/x86_64/.config ;;
arm64) cfg=$OUT/build/arm64/.config ;;
esac
cfg=${KCONFIG:-$cfg}
if [ -f "$cfg" ]; then
	cfgdesc="$cfg (sha256 $(sha256sum "$cfg" | cut -c1-12); tinyconfig + harness/kconfig/$arch.config + harness/kconfig/sframe.config): $(grep -E '^CONFIG_(UNWIND_USER|UNWIND_USER_EH_FRAME|USERSPACE_UNWINDER_SFRAME|HZ|PREEMPT[A-Z_]*|PERF_EVENTS|ADVISE_SYSCALLS)=' "$cfg" | tr '\n' ' ')"
else
	cfgdesc="not found next to the image (set KCONFIG=<.config>); fragments harness/kconfig/$arch.config + sframe.config"
fi
qv=$("$qemu" --version | head -1)
{
	echo "arch=$arch"
	echo "command=make bench ARCH=$arch (harness/bench/bench.sh $arch)${BENCH_PARTS:+, BENCH_PARTS='$parts'}${BENCH_BOOTS:+, BENCH_BOOTS='$boots'}${BENCH_TAG:+, BENCH_TAG=$BENCH_TAG}"
	echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "elapsed=$((SECONDS - start))"
	echo "kernel=${kver//_/ }"
	echo "image=$KERNEL (sha256 $(sha256sum "$KERNEL" | cut -c1-12)), initramfs $INITRD"
	echo "config=$cfgdesc"
	echo "guest=$qv, TCG, -cpu max, 1 vCPU, $QEMU_MEM; boots: -icount shift=0 ($reps_icount repetitions), no icount ($reps_wall repetitions); programs built with $("$cc" --version | head -1)"
	echo "host=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs (shared, not isolated)"
	echo "perf_iters=$perf_iters"
	echo "perf_period=$perf_period"
	echo "perf_depths=$perf_depths"
	echo "perf_reps_icount=$(perf_reps "$reps_icount")"
	echo "perf_reps_wall=$(perf_reps "$reps_wall")"
	echo "eh_perf_period=$eh_perf_period"
	echo "eh_exec_n=$eh_exec_n"
	echo "exec_n=$exec_n"
	echo "sys_exec_n=$sys_exec_n"
	cat "$B/boots.txt"
} >"$B/meta.txt"
md=$OUT/bench/bench-$arch$tag.md
python3 "$TOP/harness/bench/report.py" "$B" "$B/meta.txt" >"$md"
cat "$md"
note "written to $md ($((SECONDS - start)) s)"
if grep -q '^CHAIN-CHECK-FAILED\|^FAILED' "$B"/results-*.txt; then
	note "some measurements failed or their chains were not the expected ones (see Failures)"
	status=1
fi
exit $status
