#!/bin/bash
# `make mutants`: one mutation run over the decoder and the registry.
#
#   harness/mutants.sh
#
# 1. the decoder (kernel/unwind/sframe.c) and the .eh_frame converter
#    (kernel/unwind/eh_frame.c) judged by the host tests:
#    harness/hosttest/mutants.sh, seconds per mutant;
# 2. the registry and the unwinder loop (kernel/unwind/sframe_mm.c, user.c,
#    their mm hooks) judged by the selftests in an x86_64 guest:
#    harness/mutants-registry.sh, 1-2 minutes per mutant (build and boot).
# The guest kernel and the selftests are built first if need be. Prints
# both reports and one line "mutants: N killed of M (decoder K of L,
# registry K of L)"; exits non-zero if any mutant survived.
set -euo pipefail
. "$(dirname "$0")/config.sh"
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL

M=$OUT/mutants
mkdir -p "$M"
"$TOP/harness/build-kernel.sh" x86_64 >"$M/kernel.log" 2>&1 ||
	{ tail -n 20 "$M/kernel.log" >&2; die "the x86_64 guest kernel does not build"; }
ST=$M/selftests
mkdir -p "$ST"
make -C "$TOP/tools/testing/selftests/sframe" OUTPUT="$ST" CC=gcc \
	KSFT_DIR="$SRC/tools/testing/selftests" >"$M/selftests.log" 2>&1 ||
	{ tail -n 20 "$M/selftests.log" >&2; die "the selftests do not build"; }

note "decoder mutants (host tests)"
rm -rf "$M/decoder"
"$TOP/harness/hosttest/mutants.sh" "$M/decoder" | tee "$M/decoder.log" || true
note "registry mutants (guest selftests)"
SELFTESTS=$ST "$TOP/harness/mutants-registry.sh" | tee "$M/registry.log" || true

d_killed=$(grep -c ': KILLED' "$M/decoder.log" || true)
d_all=$(grep -cE ': (KILLED|SURVIVED)' "$M/decoder.log" || true)
r_killed=$(grep -c '^ok ' "$M/registry.log" || true)
r_all=$(grep -cE '^(not )?ok ' "$M/registry.log" || true)
# a decoder mutant whose text is no longer in the code tests nothing
d_na=$(grep -cE ': (not applicable|BUILD FAILED)' "$M/decoder.log" || true)
echo "mutants: $((d_killed + r_killed)) killed of $((d_all + r_all))" \
	"(decoder $d_killed of $d_all, registry $r_killed of $r_all);" \
	"$d_na decoder mutants not applicable or not building"
[ "$d_all" -gt 0 ] && [ "$r_all" -gt 0 ] && [ "$d_na" = 0 ] &&
	[ "$d_killed" = "$d_all" ] && [ "$r_killed" = "$r_all" ]
