#!/bin/bash
# Cross-check the kernel's user call chains against DWARF (libdw) for one
# program, sample by sample.
#
#   harness/xcheck/xcheck.sh ARCH HOSTDIR 'PROGRAM ARGS...'
#   (make xcheck ARCH=<arch> DIR=<host dir> CMD='<program and args>')
#
# Builds xcheck-record (for ARCH) and xcheck-report (host) into out/xcheck/,
# boots the guest with HOSTDIR at /host (the working directory) and runs
#   xcheck-record -o /ctl/xcheck.data -- PROGRAM ARGS...
# there, then xcheck-report on the host, told the guest's
# kernel.unwind_user_* sysctls; prints the report and exits with its status
# (0: the criteria are met). PROGRAM ARGS are split by the guest's shell.
# The recorder and the recording live in the run directory
# (out/xcheck/run-ARCH, /ctl in the guest), not in HOSTDIR.
#
# Environment:
#   KERNEL, INITRD        guest images (see harness/qemu-run.sh)
#   XCHECK_SFRAME=0|1     set kernel.unwind_user_sframe before recording
#   XCHECK_EH_FRAME=0|1   set kernel.unwind_user_eh_frame before recording
#   XCHECK_RECORD_OPTS    more xcheck-record options (-p NS, -s BYTES)
#   XCHECK_REPORT_OPTS    more xcheck-report options (--threshold PCT,
#                         --max-wrong PCT, --min-samples N, --list N,
#                         --classes N, -v, --map)
set -euo pipefail
XDIR=$(cd "$(dirname "$0")" && pwd)
. "$XDIR/../config.sh"
. "$XDIR/lib.sh"

usage() {
	echo "usage: harness/xcheck/xcheck.sh ARCH HOSTDIR 'PROGRAM ARGS...'   (ARCH: x86_64 or arm64)" >&2
	exit 2
}
[ $# -eq 3 ] || usage
ARCH=$1 HOSTDIR=$2 CMD=$3
xc_arch_ok "$ARCH" || usage
[ -d "$HOSTDIR" ] || die "HOSTDIR '$HOSTDIR' is not a directory"
HOSTDIR=$(readlink -f "$HOSTDIR")
[ -n "${CMD//[[:space:]]/}" ] || die "no program given"
xc_check_switches || exit 2

xc_build "$ARCH" || die "cannot build the xcheck tools (see above)"

RUN=$OUT/xcheck/run-$ARCH
rm -rf "$RUN"
mkdir -p "$RUN"
cp "$XC_RECORD" "$RUN/xcheck-record"
{
	echo 'set -u'
	xc_guest_sysctls /ctl/sysctl.txt
	echo "/ctl/xcheck-record -o /ctl/xcheck.data ${XCHECK_RECORD_OPTS:-} -- $CMD"
} >"$RUN/guest.sh"

note "recording in the $ARCH guest: $CMD"
rc=0
RUN_DIR=$RUN "$TOP/harness/qemu-run.sh" "$ARCH" "$HOSTDIR" 'sh /ctl/guest.sh' || rc=$?
if [ ! -s "$RUN/xcheck.data" ]; then
	die "no recording (guest status $rc; console: $RUN/console.log)"
fi
case "$rc" in
0) ;;
127) die "the program could not be started in the guest (status 127)" ;;
*) note "the program (or the recorder) exited with status $rc; reporting what was recorded" ;;
esac

mapfile -t maps < <(xc_maps "$ARCH" "$HOSTDIR" "$RUN")
mapfile -t sysctls < <(xc_sysctl_opts "$RUN/sysctl.txt")
# shellcheck disable=SC2086
exec "$XC_REPORT" --label "$CMD" "${maps[@]}" "${sysctls[@]}" ${XCHECK_REPORT_OPTS:-} \
	"$RUN/xcheck.data"
