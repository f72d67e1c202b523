#!/bin/bash
# The results table of the closing note and the README: for every selftest
# program, the samples taken in the leaf with the complete expected chain,
# with the SFrame unwinder on and then off, from ONE boot of the guest.
#
#   harness/table.sh [ARCH]      (x86_64, the default, or arm64; make table [ARCH=..])
#
# Builds the kernel and the selftests if needed; prints a Markdown table
# and writes it to out/table-ARCH.md.
set -euo pipefail
. "$(dirname "$0")/config.sh"

arch=${1:-x86_64}
case "$arch" in
x86_64) cc=gcc ;;
arm64) cc=aarch64-linux-gnu-gcc ;;
*) die "unsupported ARCH '$arch' (x86_64, arm64)" ;;
esac

share=$OUT/table/$arch
rm -rf "$share"
mkdir -p "$share"
"$TOP/harness/base.sh" >/dev/null
make -s -C "$TOP/tools/testing/selftests/sframe" OUTPUT="$share" CC="$cc" \
	KSFT_DIR="$SRC/tools/testing/selftests" >"$share/build.log" 2>&1 ||
	{ tail -20 "$share/build.log"; die "selftests build failed"; }

# The switch_off test toggles the sysctl itself; leave it out of both runs.
tests="unwind_basic unwind_static unwind_pie_dso unwind_dlopen unwind_fork unwind_threads unwind_exec unwind_nosframe unwind_pac"
# Each phase collects until it has TABLE_MIN_LEAF leaf samples (default 1000).
min=${TABLE_MIN_LEAF:-1000}
case "$min" in *[!0-9]*|'') die "TABLE_MIN_LEAF must be a number" ;; esac
cmd="export UNWIND_MIN_LEAF=$min;
echo 1 > /proc/sys/kernel/unwind_user_sframe && ./run_all.sh $tests > on.tap 2>&1;
echo 0 > /proc/sys/kernel/unwind_user_sframe && ./run_all.sh $tests > off.tap 2>&1;
echo 1 > /proc/sys/kernel/unwind_user_sframe; uname -r > kernel.txt; true"
make --no-print-directory -C "$TOP" run ARCH="$arch" DIR="$share" CMD="$cmd" >"$share/run.log" 2>&1 ||
	{ tail -30 "$share/run.log"; die "guest run failed"; }

# "# <name>: <complete>/<leaf> complete (<pct>%) [...]" lines, per test.
counts() {
	awk '
	/^# selftests: sframe: / { t = $4; sub(/^unwind_/, "", t) }
	/: [0-9]+\/[0-9]+ complete \(/ {
		for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\/[0-9]+$/) c = $i
		name = $0; sub(/^#* *#* */, "", name); sub(/: [0-9]+\/[0-9]+ complete.*/, "", name)
		print t "\t" name "\t" c
	}' "$1"
}
counts "$share/on.tap" >"$share/on.txt"
counts "$share/off.tap" >"$share/off.txt"

{
	echo "| test | check | SFrame on: complete/leaf samples | SFrame off: complete/leaf samples |"
	echo "|---|---|---|---|"
	paste "$share/on.txt" "$share/off.txt" |
		awk -F'\t' '{ printf "| %s | %s | %s | %s |\n", $1, $2, $3, $6 }'
	echo
	echo "kernel $(cat "$share/kernel.txt"), $arch guest (QEMU TCG), one boot, $(date -u +%Y-%m-%d), phases until $min leaf samples; command: make table ARCH=$arch"
} | tee "$OUT/table-$arch.md"
