#!/bin/bash
# Boot the guest kernel under QEMU (TCG), run one shell command in it, and
# exit with that command's exit status.
#
#   harness/qemu-run.sh ARCH DIR CMD
#
# DIR (may be "") is shared read-write over 9p and mounted at /host in the
# guest, which is also the command's working directory. CMD is passed
# verbatim through a file (/ctl/cmd.sh), so quotes, pipes and ';' are safe.
# Only the command's console output is shown (VERBOSE=1: the whole console).
#
# Environment:
#   KERNEL, INITRD   images (default: out/build/ARCH/..., out/initramfs/ARCH.cpio.gz)
#   RUN_DIR          run directory (default: a new out/run/ARCH.N); holds
#                    cmd.sh, console.log, dmesg.txt, exit-status
#   TIMEOUT          whole-run limit in seconds (default 900)
#   BOOT_TIMEOUT     limit until the command starts (default 180)
#   ICOUNT           if set, "-icount shift=$ICOUNT" (e.g. 0: guest time
#                    counts instructions, for repeatable cost comparisons)
#   QEMU_SMP (1), QEMU_MEM (1G), APPEND (extra kernel command line)
#   QEMU_PLUGIN      if set, "-plugin $QEMU_PLUGIN" (harness/bench/profile.sh)
set -euo pipefail
. "$(dirname "$0")/config.sh"

usage() {
	echo "usage: harness/qemu-run.sh ARCH DIR CMD   (ARCH: x86_64 or arm64)" >&2
	exit 2
}
[ $# -eq 3 ] || usage
ARCH=$1 DIR=$2 CMD=$3

case "$ARCH" in
x86_64)
	QEMU=(qemu-system-x86_64 -accel tcg -cpu max)
	CONSOLE=ttyS0
	KERNEL=${KERNEL:-$OUT/build/x86_64/arch/x86/boot/bzImage} ;;
arm64)
	QEMU=(qemu-system-aarch64 -M virt -accel tcg -cpu max)
	CONSOLE=ttyAMA0
	KERNEL=${KERNEL:-$OUT/build/arm64/arch/arm64/boot/Image} ;;
*)
	echo "error: unsupported ARCH '$ARCH'" >&2
	usage ;;
esac
INITRD=${INITRD:-$OUT/initramfs/$ARCH.cpio.gz}
[ -f "$KERNEL" ] || die "kernel image $KERNEL not found (build it: make kernel ARCH=$ARCH)"
[ -f "$INITRD" ] || die "initramfs $INITRD not found (make initramfs ARCH=$ARCH)"
TIMEOUT=${TIMEOUT:-900}
BOOT_TIMEOUT=${BOOT_TIMEOUT:-180}

if [ -z "${RUN_DIR:-}" ]; then
	mkdir -p "$OUT/run"
	# keep the 20 most recent run directories
	# (none yet: ls fails, which pipefail must not turn into an exit)
	{ ls -1dt "$OUT/run/$ARCH".???? 2>/dev/null || true; } | tail -n +20 | xargs -r rm -rf
	RUN_DIR=$(mktemp -d "$OUT/run/$ARCH.XXXX")
fi
mkdir -p "$RUN_DIR"
RUN_DIR=$(readlink -f "$RUN_DIR")
rm -f "$RUN_DIR"/{console.log,dmesg.txt,exit-status}
printf '%s\n' "$CMD" >"$RUN_DIR/cmd.sh"
if [ -z "$DIR" ]; then
	DIR=$RUN_DIR/host
	mkdir -p "$DIR"
fi
[ -d "$DIR" ] || die "shared directory '$DIR' does not exist"
DIR=$(readlink -f "$DIR")
LOG=$RUN_DIR/console.log

# QEMU option values: a ',' in a path must be doubled.
qpath() { printf '%s' "${1//,/,,}"; }

QEMU+=(-m "${QEMU_MEM:-1G}" -smp "${QEMU_SMP:-1}"
	-nodefaults -display none -monitor none -serial stdio -no-reboot
	-kernel "$KERNEL" -initrd "$INITRD"
	-append "console=$CONSOLE panic=-1 quiet ${APPEND:-}"
	-virtfs "local,path=$(qpath "$RUN_DIR"),mount_tag=ctl,security_model=none,id=ctl"
	-virtfs "local,path=$(qpath "$DIR"),mount_tag=host,security_model=none,id=host")
[ -n "${ICOUNT:-}" ] && QEMU+=(-icount "shift=$ICOUNT")
[ -n "${QEMU_PLUGIN:-}" ] && QEMU+=(-plugin "$QEMU_PLUGIN")

# QEMU runs in the background (stdin /dev/null: no raw terminal) writing the
# console to $LOG; `tail -f` streams the command's part of it meanwhile.
: >"$LOG"
start=$SECONDS
timeout -k 10 "$TIMEOUT" "${QEMU[@]}" </dev/null >"$LOG" 2>&1 &
qpid=$!
trap 'kill "$qpid" 2>/dev/null || true' EXIT
trap 'exit 130' INT TERM
tail -s 0.2 -n +1 -f --pid="$qpid" "$LOG" | tr -d '\r' |
	awk -v verbose="${VERBOSE:-}" '
		/@@GUEST-EXIT [0-9]+@@/ { on = 0; if (!verbose) next }
		verbose || on { print; fflush() }
		/^@@GUEST-START@@/ { on = 1 }' &
tpid=$!

# Watchdog for a guest that never gets to the command (bad kernel, hang
# during boot): no need to wait for the whole TIMEOUT.
boot_failed=
while kill -0 "$qpid" 2>/dev/null; do
	if [ $((SECONDS - start)) -ge "$BOOT_TIMEOUT" ] && ! grep -aq '^@@GUEST-START@@' "$LOG"; then
		boot_failed=1
		kill "$qpid" 2>/dev/null || true
		break
	fi
	sleep 0.5
done
qrc=0
wait "$qpid" || qrc=$?
wait "$tpid" || true
trap - EXIT

elapsed=$((SECONDS - start))
rc=$(tr -d '\r' <"$LOG" | grep -ao '@@GUEST-EXIT [0-9]*@@' | tail -n 1 | tr -dc 0-9 || true)
if [ -n "$rc" ]; then
	[ -n "${QUIET_STATUS:-}" ] ||
		note "guest ($ARCH) exited with status $rc after ${elapsed} s (console: $LOG, kernel log: $RUN_DIR/dmesg.txt)"
	exit "$rc"
fi

fail() {
	echo "---- last 40 console lines ($LOG) ----" >&2
	tr -d '\r' <"$LOG" | tail -n 40 >&2
	echo "error: $*" >&2
	exit 124
}
if [ -n "$boot_failed" ]; then
	fail "guest ($ARCH) did not start the command within BOOT_TIMEOUT=${BOOT_TIMEOUT}s (kernel did not boot?)"
elif [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	fail "guest ($ARCH) timed out after TIMEOUT=${TIMEOUT}s without reporting an exit status"
else
	fail "guest ($ARCH) stopped (qemu status $qrc) without reporting an exit status (kernel panic or qemu error?)"
fi
