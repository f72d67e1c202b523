#!/bin/bash
# The demo: build harness/demo/demo.c (main -> a -> b -> c, no frame
# pointers, .sframe section), boot the guest once, profile it with
# `perf record -g` with the SFrame unwinder on and off, and show both
# `perf report`s side by side plus how many samples have the full chain.
#
#   harness/demo/demo.sh [ARCH]      (kernel and initramfs must be built:
#                                     `make demo` does all of it)
# Environment: DEMO_SECONDS (default 2).
set -euo pipefail
. "$(dirname "$0")/../config.sh"

ARCH=${1:-x86_64}
case "$ARCH" in
x86_64) CC=${CC:-gcc} ;;
*) echo "error: demo: unsupported ARCH '$ARCH' (supported: x86_64)" >&2; exit 2 ;;
esac
SECS=${DEMO_SECONDS:-2}
CFLAGS_DEMO="-O2 -fomit-frame-pointer -Wa,--gsframe"

D=$OUT/demo/$ARCH
rm -rf "$D"
mkdir -p "$D/share"
# shellcheck disable=SC2086
$CC $CFLAGS_DEMO -o "$D/share/demo" "$TOP/harness/demo/demo.c" ||
	die "cannot build the demo program"
readelf -S "$D/share/demo" | grep -q '\.sframe' ||
	die "the demo program has no .sframe section (assembler without --gsframe?)"
note "demo program: $CFLAGS_DEMO, .sframe present; booting the $ARCH guest"

start=$SECONDS
QUIET_STATUS=1 RUN_DIR=$D/run "$TOP/harness/qemu-run.sh" "$ARCH" "$D/share" \
	"sh /harness/perf-demo.sh /host/demo /host/perf 'on off' $SECS" ||
	die "the guest part of the demo failed (see above; console log: $D/run/console.log)"
note "guest run took $((SECONDS - start)) s"

P=$D/share/perf
read -r -a modes <"$P/modes"

# One summary line per mode, counted from `perf script`.
summary() {
	local mode=$1 samples leaf full leafonly top pct
	eval "$(awk -f "$TOP/harness/demo/chains.awk" -v comm=demo -v chain=c,b,a,main \
		"$P/script-$mode.txt" | sed -n 's/^\(samples\|leaf\|full\|leafonly\)=\([0-9]*\)$/\1=\2/p')"
	top=$(awk -f "$TOP/harness/demo/chains.awk" -v comm=demo -v chain=c,b,a,main \
		"$P/script-$mode.txt" | sed -n 's/^top=//p')
	pct=0
	[ "$samples" -gt 0 ] && pct=$((100 * full / samples))
	printf 'unwinder %-7s: %5d samples, %5d with the complete chain c<-b<-a<-main (%d%%), %5d leaf only; most common: %s\n' \
		"$mode" "$samples" "$full" "$pct" "$leafonly" "${top#* }"
}

# perf report's header lines start with '#'; keep the call graphs.
body() { grep -v '^#' "$P/report-$1.txt" | sed '/^$/N;/^\n$/D'; }

echo
if [ ${#modes[@]} -eq 2 ]; then
	printf '%-100s%s\n' "==== SFrame unwinder ON (unwind_user_sframe=1)" \
		"==== SFrame unwinder OFF (unwind_user_sframe=0)"
	pr -m -t -w 200 <(body "${modes[0]}") <(body "${modes[1]}")
else
	echo "==== perf report (${modes[0]}; this kernel has no unwind_user_sframe sysctl)"
	body "${modes[0]}"
fi
echo
echo "==== summary (from perf script; demo built $CFLAGS_DEMO)"
for m in "${modes[@]}"; do
	summary "$m"
done
