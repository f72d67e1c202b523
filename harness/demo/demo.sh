#!/bin/bash
# The demo: build harness/demo/demo.c (main -> a -> b -> c, no frame
# pointers, .sframe section), boot the guest once, profile it with
# `perf record -g` with the SFrame unwinder on and off, and show both
# `perf report`s side by side plus how many samples have the full chain.
#
#   harness/demo/demo.sh [ARCH]      ARCH: x86_64 (default) or arm64
#                                    (kernel and initramfs must be built:
#                                     `make demo` does all of it)
# Environment: DEMO_SECONDS (default 2), DEMO_MIN_SAMPLES (default 1000: a
# recording with fewer samples of the demo is made again for twice as long).
set -euo pipefail
. "$(dirname "$0")/../config.sh"

ARCH=${1:-x86_64}
case "$ARCH" in
x86_64) CC=${CC:-gcc} ;;
arm64) CC=${CC:-aarch64-linux-gnu-gcc} ;;
*) echo "error: demo: unsupported ARCH '$ARCH' (supported: x86_64 arm64)" >&2; exit 2 ;;
esac
SECS=${DEMO_SECONDS:-2}
# fewer samples than this: perf-demo.sh records again for twice as long
MIN_SAMPLES=${DEMO_MIN_SAMPLES:-1000}
CFLAGS_DEMO="-O2 -fomit-frame-pointer -Wa,--gsframe"

D=$OUT/demo/$ARCH
rm -rf "$D"
mkdir -p "$D/share"
# shellcheck disable=SC2086
$CC $CFLAGS_DEMO -o "$D/share/demo" "$TOP/harness/demo/demo.c" ||
	die "cannot build the demo program"
# (no "readelf | grep -q": grep's early exit would fail the pipe under pipefail)
grep -q '\.sframe' <(readelf -S "$D/share/demo") ||
	die "the demo program has no .sframe section (assembler without --gsframe?)"
note "demo program: $CFLAGS_DEMO, .sframe present; booting the $ARCH guest"

start=$SECONDS
QUIET_STATUS=1 RUN_DIR=$D/run "$TOP/harness/qemu-run.sh" "$ARCH" "$D/share" \
	"sh /harness/perf-demo.sh /host/demo /host/perf 'on off dwarf' $SECS $MIN_SAMPLES" ||
	die "the guest part of the demo failed (see above; console log: $D/run/console.log)"
note "guest run took $((SECONDS - start)) s"

P=$D/share/perf
read -r -a modes <"$P/modes"

# One summary line per mode, counted from `perf script`.
summary() {
	local mode=$1 label=$2 samples=0 leaf=0 full=0 leafonly=0 top pct=0 out
	out=$(awk -f "$TOP/harness/demo/chains.awk" -v comm=demo -v chain=c,b,a,main "$P/script-$mode.txt")
	eval "$(echo "$out" | grep -E '^(samples|leaf|full|leafonly)=[0-9]+$')"
	top=$(echo "$out" | sed -n 's/^top=[0-9]* //p')
	[ "$samples" -gt 0 ] && pct=$((100 * full / samples))
	printf '%-34s %5d samples, %5d (%3d%%) with the complete chain c<-b<-a<-main, %5d leaf only; most common: %s\n' \
		"$label:" "$samples" "$full" "$pct" "$leafonly" "$top"
}

# perf report without its '#' header lines, the IPC columns perf 6.1 adds,
# and runs of blank lines.
body() {
	grep -v '^#' "$P/report-$1.txt" | expand | sed -e 's/ *-  *- *$//' -e 's/ *$//' | cat -s
}

label() {
	case $1 in
	on) echo "SFrame unwinder ON (unwind_user_sframe=1)" ;;
	off) echo "SFrame unwinder OFF (unwind_user_sframe=0)" ;;
	default) echo "kernel without the SFrame unwinder (no unwind_user_sframe)" ;;
	dwarf) echo "reference: perf --call-graph dwarf" ;;
	esac
}

kmodes=()
for m in "${modes[@]}"; do
	[ "$m" = dwarf ] || kmodes+=("$m")
done
echo
rec="perf record -g -e cpu-clock"
echo "$rec -F 1000 ./demo $(cat "$P/secs-${kmodes[0]}" 2>/dev/null || echo "$SECS"); perf report --stdio --no-children --sort symbol"
if [ ${#kmodes[@]} -eq 2 ]; then
	printf '%-100s%s\n' "==== $(label "${kmodes[0]}")" "==== $(label "${kmodes[1]}")"
	pr -m -t -w 200 <(body "${kmodes[0]}") <(body "${kmodes[1]}")
else
	echo "==== $(label "${kmodes[0]}")"
	body "${kmodes[0]}"
fi
echo "==== summary (counted from perf script; demo built $CFLAGS_DEMO)"
for m in "${modes[@]}"; do
	summary "$m" "$(label "$m" | sed 's/ (.*//')"
done
