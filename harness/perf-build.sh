#!/bin/bash
# Build the perf tool of the patched tree for a guest architecture.
#
#   harness/perf-build.sh ARCH        ARCH: x86_64 or arm64
#
# Output: out/perf/ARCH/perf (and its objects). Source: $SRC, the pinned
# base with patches/ applied (harness/base.sh), so the guests run the perf
# of the kernel they boot, with the series' tools/perf patch. x86_64 is
# built natively; arm64 with aarch64-linux-gnu-gcc against Debian's arm64
# -dev packages, installed multiarch by harness/deps.sh. Features: libelf
# and libdw (symbols; DWARF unwinding for --call-graph dwarf and the arm64
# leaf caller), libtraceevent (tracepoint events), zlib, lzma; nothing
# else. Incremental: make rebuilds what the tree changed, and the binary is
# left alone (same mtime) when nothing did.
set -euo pipefail
. "$(dirname "$0")/config.sh"

[ $# -eq 1 ] || { echo "usage: harness/perf-build.sh ARCH" >&2; exit 2; }
ARCH=$1
PERF_OUT=$OUT/perf/$ARCH
# NO_DEMANGLE: with libstdc++ present, perf hands every symbol to
# __cxa_demangle(), which reads a C function named c, b or a as an Itanium
# type code and reports "char", "bool", "signed char". The guests' programs
# are C.
MK=(NO_DEMANGLE=1 NO_LIBPYTHON=1 NO_LIBPERL=1 NO_SLANG=1 NO_GTK2=1 NO_JVMTI=1 NO_LIBCRYPTO=1
    NO_LIBNUMA=1 NO_LIBUNWIND=1 NO_LIBBABELTRACE=1 NO_LIBCAP=1 NO_SDT=1
    NO_LIBPFM4=1 NO_LIBLLVM=1 NO_LLVM=1 NO_RUST=1 BUILD_BPF_SKEL=0)
case "$ARCH" in
x86_64) ;;
arm64)
	MK+=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
	export PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig
	[ -e /usr/lib/aarch64-linux-gnu/libtraceevent.so ] ||
		die "arm64 libtraceevent missing (run harness/deps.sh)" ;;
*) echo "error: perf for ARCH '$ARCH' is not supported (supported: x86_64 arm64)" >&2; exit 2 ;;
esac

"$TOP/harness/base.sh" >/dev/null
mkdir -p "$PERF_OUT"
LOG=$PERF_OUT/build.log
if ! make -C "$SRC/tools/perf" O="$PERF_OUT" "${MK[@]}" -j"$JOBS" >"$LOG" 2>&1; then
	tail -n 30 "$LOG" >&2
	die "perf build for $ARCH failed (log: $LOG)"
fi
# The features the guest tests need must have been found.
for f in libelf libdw libtraceevent; do
	grep -qx "feature-$f=1" "$PERF_OUT/FEATURE-DUMP" ||
		die "perf for $ARCH built without $f (log: $LOG)"
done
echo "$PERF_OUT/perf"
