# SFrame user-space unwinding for perf: build, boot and test harness.
#
#   make run ARCH=x86_64|arm64 DIR=<host dir> CMD='<shell command>'
#   make demo [ARCH=x86_64|arm64]
#   make check [ARCH=x86_64|arm64]  (default: every supported arch)
#   make table [ARCH=x86_64|arm64]
#   make bench [ARCH=x86_64|arm64]
#   make xcheck ARCH=<arch> DIR=<host dir> CMD='<program and args>'
#   make fuzz [FUZZ_TIME=seconds]
#   make mutants
#   make check-debug [ARCH=x86_64]
#   make kernel | initramfs | deps | clean | distclean
#
# Everything is written under out/ (or $OUT). Builds are incremental.
# SFRAME_CONFIG=none builds the unpatched base (no SFrame Kconfig options).

SHELL := /bin/bash
.DEFAULT_GOAL := help
.SUFFIXES:

ARCHES := x86_64 arm64
OUT ?= $(CURDIR)/out
export OUT

# ARCH for run/demo/table/kernel (default x86_64); check takes "all" when unset.
A := $(or $(ARCH),x86_64)

# DIR and CMD reach the scripts through the environment, unexpanded:
# $(value ...) keeps "$" and quotes exactly as the user typed them.
export HARNESS_DIR := $(value DIR)
export HARNESS_CMD := $(value CMD)

define USAGE
usage:
  make run ARCH=<arch> DIR=<host dir> CMD='<shell command>'
        boot the guest, DIR at /host (read-write, the working directory),
        run CMD there (perf is on PATH); fails if CMD fails (its status
        is printed; harness/qemu-run.sh exits with it exactly)
  make demo        perf record -g of harness/demo/demo.c, SFrame on vs off
  make check       all tests (TAP); ARCH=<arch> limits the guest part
                   to that arch (default: every supported arch)
  make table       selftest complete-chain counts, SFrame on and off,
                   one boot (harness/table.sh; writes out/table-ARCH.md)
  make bench       unwind cost, scaling, perf.data size, cold start
                   (harness/bench/bench.sh; writes out/bench/bench-ARCH.md)
  make xcheck ARCH=<arch> DIR=<host dir> CMD='<program and args>'
                   sample CMD in the guest (kernel chain + user regs and
                   stack) and compare each chain with libdw's unwind
  make fuzz        libFuzzer run of the SFrame decoder (FUZZ_TIME=60 s)
  make mutants     mutation run: decoder mutants judged by the host tests,
                   registry and unwinder mutants by the x86_64 guest's
                   selftests (harness/mutants.sh; about an hour)
  make check-debug guest tests on a debug kernel (KASAN, lockdep,
                   PROVE_RCU, DEBUG_ATOMIC_SLEEP, DEBUG_VM, KFENCE)
  make kernel | initramfs | deps | clean | distclean
supported ARCH values: $(ARCHES)
endef
export USAGE

# Shell snippet: fail with the usage text unless $(A) is supported.
arch_ok = case " $(ARCHES) " in *" $(A) "*) ;; \
	*) echo "error: unsupported ARCH '$(A)'" >&2; echo "$$USAGE" >&2; exit 2 ;; esac

INITRD = $(OUT)/initramfs/$(A).cpio.gz

.PHONY: help deps kernel initramfs run demo check table bench xcheck fuzz mutants check-debug clean distclean

help:
	@echo "$$USAGE"

deps:
	@harness/deps.sh

kernel:
	@$(arch_ok)
	@harness/build-kernel.sh $(A) >/dev/null

initramfs:
	@$(arch_ok)
	@$(MAKE) -s --no-print-directory $(INITRD)

$(OUT)/initramfs/%.cpio.gz: harness/initramfs.sh harness/debs.sh harness/config.sh $(wildcard harness/guest/*) \
		$(wildcard /usr/bin/perf /bin/busybox) $(OUT)/perf/%/perf
	@harness/initramfs.sh $* $@

# The perf tool of the patched tree (rebuilt by make when the tree changed;
# its mtime stays when nothing did).
$(OUT)/perf/%/perf: FORCE
	@harness/perf-build.sh $* >/dev/null

.PHONY: FORCE
FORCE:

run:
	@$(arch_ok)
	@if [ -z "$$HARNESS_DIR" ] || [ -z "$$HARNESS_CMD" ]; then \
		echo "error: make run needs DIR=<host dir> and CMD='<shell command>'" >&2; \
		echo "$$USAGE" >&2; exit 2; fi
	@[ -d "$$HARNESS_DIR" ] || { echo "error: DIR '$$HARNESS_DIR' is not a directory" >&2; exit 2; }
	@$(MAKE) --no-print-directory kernel initramfs
	@harness/qemu-run.sh $(A) "$$HARNESS_DIR" "$$HARNESS_CMD"

demo:
	@$(arch_ok)
	@harness/deps.sh
	@$(MAKE) --no-print-directory kernel initramfs
	@harness/demo/demo.sh $(A)

check:
	@$(if $(ARCH),$(arch_ok))
	@harness/check.sh $(ARCH)

table:
	@$(arch_ok)
	@harness/table.sh $(A)

bench:
	@$(arch_ok)
	@harness/bench/bench.sh $(A)

xcheck:
	@$(arch_ok)
	@if [ -z "$$HARNESS_DIR" ] || [ -z "$$HARNESS_CMD" ]; then \
		echo "error: make xcheck needs DIR=<host dir> and CMD='<program and args>'" >&2; \
		echo "$$USAGE" >&2; exit 2; fi
	@harness/xcheck/xcheck.sh $(A) "$$HARNESS_DIR" "$$HARNESS_CMD"

fuzz:
	@$(MAKE) --no-print-directory -C harness/hosttest fuzz OUT=$(OUT)/hosttest \
		$(if $(FUZZ_TIME),FUZZ_TIME=$(FUZZ_TIME))

mutants:
	@harness/mutants.sh

check-debug:
	@$(if $(ARCH),$(arch_ok))
	@harness/check-debug.sh $(ARCH)

clean:
	rm -rf $(OUT)/run $(OUT)/demo $(OUT)/check $(OUT)/initramfs $(OUT)/table

distclean:
	rm -rf $(OUT)
