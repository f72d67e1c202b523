#!/bin/bash
# `make check-debug`: the guest part of `make check` (kernel build, selftests
# including the hostile-section ones, the perf test, KUnit, the kernel log
# check) on the debug variant of the guest kernel: harness/kconfig/debug.config
# (KASAN, KFENCE, lockdep with PROVE_RCU, DEBUG_ATOMIC_SLEEP, DEBUG_VM, SMP
# and full preemption), booted with two CPUs and pci=noacpi: under TCG the
# debug kernel's ACPI interpreter runs the PCI routing method (_PRT) into
# AML loop timeouts, and the guest then does not reach user space in
# 8 minutes; with the routing from the PIRQ table it boots in about 30 s.
# And with panic_on_warn=1: a WARN anywhere ends the run (the guest
# reports no exit status), as it would on a machine set up that way.
# On x86_64 also with no5lvl: QEMU's "max" CPU has LA57, and with 5-level
# paging 7.2's debug kernel can report a wild access at boot that is not
# one. identify_cpu() clears boot_cpu_data's capability bits while
# interrupts are on and before the alternatives are applied, so an
# interrupt in that window reads pgtable_l5_enabled() as false; KASAN's
# outline check then takes the 4-level bound of the shadow, and the
# interrupt's first access to the direct map (rcu_is_watching()'s per-CPU
# counter, at 0xff11...) has "no metadata": a KASAN report, which
# panic_on_warn turns into a panic before user space (seen in one boot of
# a make check-debug run). With 4-level paging the bound does not change.
#
#   harness/check-debug.sh [ARCH]     default: x86_64
#
# The debug kernel is built in out/build/ARCH-debug. Environment: QEMU_SMP
# (default 2), QEMU_MEM (default 2G), APPEND (default panic_on_warn=1, and
# pci=noacpi no5lvl on x86_64),
# BOOT_TIMEOUT (default 400), TIMEOUT_SCALE (default 4: the debug kernel
# runs the tests several times slower under TCG).
set -euo pipefail
. "$(dirname "$0")/config.sh"

[ $# -le 1 ] || { echo "usage: harness/check-debug.sh [ARCH]" >&2; exit 2; }
ARCH=${1:-x86_64}
case "$ARCH" in
x86_64 | arm64) ;;
*) echo "error: unsupported ARCH '$ARCH' (supported: x86_64 arm64)" >&2; exit 2 ;;
esac

export KERNEL_VARIANT=debug
export QEMU_SMP=${QEMU_SMP:-2} QEMU_MEM=${QEMU_MEM:-2G}
APPEND=${APPEND-panic_on_warn=1}
[ "$ARCH" = x86_64 ] && APPEND="$APPEND pci=noacpi no5lvl"
export APPEND
export BOOT_TIMEOUT=${BOOT_TIMEOUT:-400}
export TIMEOUT_SCALE=${TIMEOUT_SCALE:-4}
exec "$TOP/harness/check.sh" "$ARCH"
