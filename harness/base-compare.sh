#!/bin/bash
# Frame-pointer chains with the series' tables switched off, against the
# unpatched base: the demo built with frame pointers (main -> a -> b -> c,
# -fno-omit-frame-pointer) under perf record -g and --call-graph fp,defer,
# in one guest of each kernel: the series' with kernel.unwind_user_sframe=0
# (modes off, defer-off of harness/guest/perf-demo.sh) and the pinned base
# without the series (UNPATCHED=1 harness/build-kernel.sh), synchronous and
# deferred. The chain the unpatched base gives most often (in its
# synchronous run, up to main) is the reference: prints, per kernel and
# mode, the samples whose leaf is its first function and how many of them
# show that whole chain; fails unless every kernel and mode has at least
# 100 such samples and 99.5% of them have it.
#
#   harness/base-compare.sh [ARCH]     x86_64 (default) or arm64
set -euo pipefail
. "$(dirname "$0")/config.sh"
ARCH=${1:-x86_64}
CC=$(arch_cc "$ARCH")
img=arch/arm64/boot/Image
[ "$ARCH" = x86_64 ] && img=arch/x86/boot/bzImage
D=$OUT/base-compare/$ARCH
rm -rf "$D"
mkdir -p "$D/share"
$CC -O2 -fno-omit-frame-pointer -o "$D/share/demo" "$TOP/harness/demo/demo.c" ||
	die "cannot build the demo program"
"$TOP/harness/build-kernel.sh" "$ARCH" >/dev/null
UNPATCHED=1 "$TOP/harness/build-kernel.sh" "$ARCH" >/dev/null
make -s -C "$TOP" initramfs ARCH="$ARCH" >/dev/null
run() { # NAME KERNEL MODES
	mkdir -p "$D/share/$1"
	KERNEL=$2 RUN_DIR=$D/run-$1 "$TOP/harness/qemu-run.sh" "$ARCH" "$D/share" \
		"sh /harness/perf-demo.sh /host/demo /host/$1 '$3' 2 1000" >"$D/$1.log" 2>&1 ||
		die "the $1 guest run failed ($D/$1.log)"
}
run series "$OUT/build/$ARCH/$img" "off defer-off"
run base "$OUT/build/$ARCH-unpatched/$img" "on defer"
# The reference chain: the base's most common synchronous one, up to main.
ref=$(awk -f "$TOP/harness/demo/chains.awk" -v comm=demo -v chain=c \
	"$D/share/base/script-$(head -n 1 "$D/share/base/modes" | cut -d' ' -f1).txt" |
	sed -n 's/^top=[0-9]* //p' | awk -F';' '{ for (i = 1; i <= NF; i++) { printf "%s%s", (i > 1 ? "," : ""), $i; if ($i == "main") break } }')
[ -n "$ref" ] || die "no chain in the base's recording ($D/share/base)"
echo "reference chain (the unpatched base's most common): ${ref//,/ <- }"
rc=0
for k in series base; do
	for m in $(cat "$D/share/$k/modes"); do
		samples=0 leaf=0 full=0
		eval "$(awk -f "$TOP/harness/demo/chains.awk" -v comm=demo -v chain="$ref" \
			"$D/share/$k/script-$m.txt" | grep -E '^(samples|leaf|full)=[0-9]+$')"
		kind=sync
		case $m in defer*) kind=deferred ;; esac
		printf '%-6s %-9s %-9s %5d of %5d samples with the reference chain\n' \
			"$k" "$m" "$kind" "$full" "$leaf"
		if [ "$leaf" -lt 100 ] || [ $((full * 1000)) -lt $((995 * leaf)) ]; then
			echo "not ok: $k $m: chains differ from the reference" >&2
			rc=1
		fi
	done
done
[ $rc = 0 ] && echo "ok: frame-pointer chains with the tables off are those of the unpatched base (sync and deferred)"
exit $rc
