#!/bin/bash
# Run the SFrame libFuzzer target for a bounded time and print TAP.
#
#   fuzz-run.sh OUT SECONDS [JOBS]
#
# The working corpus is $OUT/fuzz-corpus, seeded from $OUT/corpus (the
# sections of the test programs, written by oracle_test --corpus). A crash,
# leak, timeout or out-of-memory input is copied to regress/ (next to this
# script; REGRESS_DIR= overrides), which the normal test replays: commit it
# with the fix.
set -u
OUT=$1
TIME=$2
JOBS=${3:-1}
HT=$(cd "$(dirname "$0")" && pwd)
REG=${REGRESS_DIR:-$HT/regress}
WORK=$OUT/fuzz-corpus
ART=$OUT/fuzz-artifacts
LOG=$OUT/fuzz.log

mkdir -p "$WORK" "$ART" "$REG"
rm -f "$ART"/*
# Seeds; "cp -n" keeps what earlier runs found.
cp -n "$OUT"/corpus/* "$WORK"/ 2>/dev/null || true
cp -n "$REG"/crash-* "$REG"/timeout-* "$REG"/leak-* "$REG"/oom-* "$WORK"/ 2>/dev/null || true

args=(-max_total_time="$TIME" -max_len=16384 -timeout=10 -rss_limit_mb=2048
      -print_final_stats=1 -artifact_prefix="$ART/")
if [ "$JOBS" -gt 1 ]; then
	args+=(-fork="$JOBS")
fi
start=$SECONDS
ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	"$OUT/fuzz_sframe" "${args[@]}" "$WORK" >"$LOG" 2>&1
rc=$?
elapsed=$((SECONDS - start))

execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$LOG" | tail -n1 | grep -o '[0-9]*$')
last=$(grep -E '^#[0-9]+' "$LOG" | tail -n1)
cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$last")
ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9]*[a-zA-Z]*\).*/\1/p' <<<"$last")
[ -z "$execs" ] && execs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$last")
echo "# fuzz: ${elapsed}s, ${execs:-?} executions, coverage: ${cov:-?} edges, ${ft:-?} features, corpus ${corp:-?} (log: $LOG)"

found=()
for f in "$ART"/crash-* "$ART"/leak-* "$ART"/timeout-* "$ART"/oom-* "$ART"/slow-unit-*; do
	[ -e "$f" ] || continue
	cp "$f" "$REG/"
	found+=("$REG/$(basename "$f")")
done
if [ "${#found[@]}" -gt 0 ] || [ "$rc" -ne 0 ]; then
	grep -E 'ERROR|INVARIANT|hostshim|runtime error|SUMMARY' "$LOG" | head -n 20 | sed 's/^/# /'
	echo "not ok - fuzz_sframe for ${TIME}s: exit $rc; saved: ${found[*]:-nothing}"
	exit 1
fi
echo "ok - fuzz_sframe for ${TIME}s: no crash, no out-of-section read, no sanitizer report"
