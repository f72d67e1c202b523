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
# BENCH_PERF_ITERS, BENCH_PERF_PERIOD (perf.data workload), BENCH_COLD_RUNS,
# BENCH_EXEC_N (execve/dlopen loop length: 100), BENCH_EH_EXEC_N (the
# same with the .eh_frame conversion on: 10), BENCH_EH_PERF_PERIOD
# (cpu-clock period of part eh's perf record -a, ns: 1000000),
# BENCH_FORK_MAPS (16000) and BENCH_FORK_N (forks timed: 20), BENCH_PARTS
# ("cost worst scale perf cold exec fork wake eh"), BENCH_BOOTS ("icount wall",
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
parts=${BENCH_PARTS:-cost worst scale perf cold exec fork wake eh}
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
	case $p in cost | worst | scale | perf | cold | exec | fork | wake | eh) ;; *) die "unknown BENCH_PARTS entry '$p' (cost worst scale perf cold exec fork wake eh)" ;; esac
done

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
cp "$TOP/harness/bench/guest.sh" "$TOP/harness/demo/chains.awk" "$B/"
# A report shows what this run measured: no results of an earlier one.
rm -f "$B"/results-*.txt
rm -f "$B/host.txt"

perf_iters=${BENCH_PERF_ITERS:-50000000}
perf_period=${BENCH_PERF_PERIOD:-100000}
cold_runs=${BENCH_COLD_RUNS:-10}
exec_n=${BENCH_EXEC_N:-100}
eh_exec_n=${BENCH_EH_EXEC_N:-10}
eh_perf_period=${BENCH_EH_PERF_PERIOD:-1000000}
for v in "$perf_iters" "$perf_period" "$cold_runs" "$exec_n" "$eh_exec_n" "$eh_perf_period" "${BENCH_N:-1}" "${BENCH_N_WALL:-1}"; do
	case $v in '' | *[!0-9]* | 0) die "BENCH_* settings must be positive integers" ;; esac
done
boot() {
	local kind=$1 reps=$2 n=$3 rc=0 t=$SECONDS
	note "guest boot ($kind): $parts"
	TIMEOUT=${BENCH_TIMEOUT:-1500} QUIET_STATUS=1 "$TOP/harness/qemu-run.sh" "$arch" "$B" \
		"BENCH_FORK_MAPS=${BENCH_FORK_MAPS:-16000} BENCH_FORK_N=${BENCH_FORK_N:-20} BENCH_N=$n BENCH_PERF_ITERS=$perf_iters BENCH_PERF_PERIOD=$perf_period BENCH_COLD_RUNS=$cold_runs BENCH_EXEC_N=$exec_n BENCH_EH_EXEC_N=$eh_exec_n BENCH_EH_PERF_PERIOD=$eh_perf_period sh guest.sh $kind $reps $arch '$parts'" \
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
	echo "eh_perf_period=$eh_perf_period"
	echo "eh_exec_n=$eh_exec_n"
	echo "exec_n=$exec_n"
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
