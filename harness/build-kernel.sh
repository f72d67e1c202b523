#!/bin/bash
# Build the guest kernel for one architecture, out of tree, incrementally.
#
#   harness/build-kernel.sh ARCH        ARCH: x86_64 or arm64
#
# Source: $SRC (prepared by harness/base.sh: pinned base + patches/).
# Build dir: $OUT/build/ARCH. Prints the image path on stdout at the end.
#
# Environment:
#   SFRAME_CONFIG=none   leave out harness/kconfig/sframe.config (for the
#                        unpatched tree, where those options do not exist)
#   KCONFIG_EXTRA="f..." extra fragments to merge (paths), checked like the rest
#   JOBS                 parallel jobs (default: nproc)
#   NO_CCACHE=1          do not use ccache even if it is installed
#   WERROR=0             do not build with KCFLAGS=-Werror (the default
#                        for the guest kernels; variants never use it)
#   KERNEL_VARIANT=NAME  also merge harness/kconfig/NAME.config and build in
#                        $OUT/build/ARCH-NAME (e.g. debug: make check-debug)
#   UNPATCHED=1          build the pinned base without the series (a git
#                        worktree of the tree at tag base, $OUT/src/unpatched)
#                        in $OUT/build/ARCH-unpatched, without sframe.config:
#                        the bench's frame-pointer baseline (BENCH_BASE=1)
set -euo pipefail
. "$(dirname "$0")/config.sh"

usage() {
	echo "usage: harness/build-kernel.sh ARCH   (supported: x86_64 arm64)" >&2
	exit 2
}
[ $# -eq 1 ] || usage
ARCH=$1
case "$ARCH" in
x86_64)
	KARCH=x86_64 CROSS= TARGET=bzImage IMAGE=arch/x86/boot/bzImage ;;
arm64)
	KARCH=arm64 CROSS=aarch64-linux-gnu- TARGET=Image IMAGE=arch/arm64/boot/Image ;;
*)
	echo "error: unsupported ARCH '$ARCH'" >&2
	usage ;;
esac
KCONF=$TOP/harness/kconfig
[ -f "$KCONF/$ARCH.config" ] ||
	{ echo "error: no guest kernel config for $ARCH ($KCONF/$ARCH.config)" >&2; exit 2; }

# We may be called from make: do not let the caller's command-line variables
# (DIR=, CMD=, ARCH=...) leak into the kernel's make through MAKEFLAGS.
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL

"$TOP/harness/deps.sh" --check
"$TOP/harness/base.sh"

VARIANT=${KERNEL_VARIANT:-}
if [ "${UNPATCHED:-}" = 1 ]; then
	[ -z "$VARIANT" ] || die "UNPATCHED=1 and KERNEL_VARIANT do not go together"
	SFRAME_CONFIG=none
	if [ ! -d "$OUT/src/unpatched" ]; then
		note "checking out the unpatched base in $OUT/src/unpatched"
		git -C "$SRC" worktree prune
		git -C "$SRC" worktree add -q --detach "$OUT/src/unpatched" base
	fi
	SRC=$OUT/src/unpatched
	[ "$(git -C "$SRC" rev-parse HEAD)" = "$(git -C "$SRC" rev-parse base)" ] ||
		die "$SRC is not at tag base"
fi
if [ -n "$VARIANT" ] && [ ! -f "$KCONF/$VARIANT.config" ]; then
	echo "error: KERNEL_VARIANT=$VARIANT: no $KCONF/$VARIANT.config" >&2
	exit 2
fi
B=$OUT/build/$ARCH${VARIANT:+-$VARIANT}
[ "${UNPATCHED:-}" = 1 ] && B=$OUT/build/$ARCH-unpatched
mkdir -p "$B"
LOG=$B/build.log

KMAKE=(make -C "$SRC" O="$B" ARCH="$KARCH" KBUILD_BUILD_USER=harness KBUILD_BUILD_HOST=harness)
[ -n "$CROSS" ] && KMAKE+=(CROSS_COMPILE="$CROSS")
# Warnings are errors in the guest kernels (harness/series-check.sh counts
# the arm64 one as the arm64 build check of the series); not in variants
# such as debug, whose sanitizers add warnings of their own (frame sizes).
[ -z "$VARIANT" ] && [ "${WERROR:-1}" = 1 ] && KMAKE+=(KCFLAGS=-Werror)
if [ -z "${NO_CCACHE:-}" ] && command -v ccache >/dev/null; then
	KMAKE+=(CC="ccache ${CROSS}gcc")
	# Paths under $OUT are hashed relative to the build directory, so a
	# fresh clone elsewhere (as in CI) still hits the cache.
	export CCACHE_BASEDIR=$OUT
fi

# Run a kernel make step quietly into $LOG; on failure show its tail.
kmake() {
	if ! "${KMAKE[@]}" "$@" >>"$LOG" 2>&1; then
		echo "---- last 60 lines of $LOG ----" >&2
		tail -n 60 "$LOG" >&2
		echo "error: kernel make $* failed for $ARCH (full log: $LOG)" >&2
		exit 1
	fi
}

FRAGS=("$KCONF/$ARCH.config")
if [ "${SFRAME_CONFIG:-}" = none ]; then
	note "SFRAME_CONFIG=none: building without $KCONF/sframe.config"
else
	FRAGS+=("$KCONF/sframe.config")
fi
[ -n "$VARIANT" ] && FRAGS+=("$KCONF/$VARIANT.config")
for f in ${KCONFIG_EXTRA:-}; do
	[ -f "$f" ] || die "KCONFIG_EXTRA fragment $f not found"
	FRAGS+=("$(readlink -f "$f")")
done

# Reconfigure only when the fragments or the source tree (e.g. a patch that
# adds Kconfig options) changed. Rewriting .config does not force a full
# rebuild: Kbuild tracks each option separately.
stamp_id=$( { printf '%s\n' "${FRAGS[@]}" "${KMAKE[*]}"; cat "${FRAGS[@]}";
	git -C "$SRC" rev-parse HEAD; } | sha1sum | cut -c1-16)
STAMP=$B/.harness-config-stamp
if [ ! -f "$B/.config" ] || [ "$(cat "$STAMP" 2>/dev/null)" != "$stamp_id" ]; then
	note "configuring $ARCH kernel (tinyconfig + ${FRAGS[*]##*/})"
	rm -f "$STAMP"
	: >"$LOG"
	kmake tinyconfig
	(cd "$SRC" && scripts/kconfig/merge_config.sh -m -O "$B" "$B/.config" "${FRAGS[@]}") >>"$LOG" 2>&1 ||
		{ tail -n 30 "$LOG" >&2; die "merge_config.sh failed (log: $LOG)"; }
	kmake olddefconfig
	# olddefconfig silently drops what it cannot satisfy: every wanted =y
	# must be in the final .config.
	lost=$(grep -h '^CONFIG_[A-Za-z0-9_]*=y$' "${FRAGS[@]}" | sort -u | while read -r l; do
		grep -qx "$l" "$B/.config" || echo "${l%=y}"
	done)
	if [ -n "$lost" ]; then
		echo "error: these options of ${FRAGS[*]##*/} did not survive olddefconfig" \
			"(missing dependency, or not in this source tree):" >&2
		echo "$lost" | sed 's/^/    /' >&2
		if echo "$lost" | grep -q -e USERSPACE_UNWINDER_SFRAME -e SFRAME_KUNIT_TEST; then
			echo "       (the SFrame options exist only once the series is applied;" \
				"use SFRAME_CONFIG=none for the unpatched base)" >&2
		fi
		exit 1
	fi
	echo "$stamp_id" >"$STAMP"
fi

note "building $ARCH $TARGET in $B (-j$JOBS)"
start=$SECONDS
: >"$LOG"
kmake -j"$JOBS" "$TARGET"
note "$ARCH kernel built in $((SECONDS - start)) s: $B/$IMAGE"
echo "$B/$IMAGE"
