#!/bin/bash
# make check of harness/ehtest: oracle, malformed corpus, replay of
# regress/ and the seeds, and a short libFuzzer run if available. TAP.
set -u
export ASAN_OPTIONS=detect_leaks=0
fail=0
echo "# ehtest_oracle (readelf frames-interp)"
nice -n 19 "$OUT/ehtest_oracle" $FILES || fail=1
echo "# ehtest_malformed"
"$OUT/ehtest_malformed" || fail=1
echo "# replay of regress/ and seeds"
if "$OUT/ehtest_replay" "$ET/regress" "$OUT/corpus"; then
	echo "ok 1 - replay"
else
	echo "not ok 1 - replay"; fail=1
fi
if [ -e "$OUT/fuzz.skip" ]; then
	echo "ok 1 - fuzz # SKIP $(cat "$OUT/fuzz.skip")"
elif [ "${CHECK_FUZZ_TIME:-0}" -gt 0 ]; then
	mkdir -p "$OUT/fuzz-corpus"
	if nice -n 19 "$OUT/fuzz_eh_frame" -max_total_time="$CHECK_FUZZ_TIME" \
		-max_len=65536 -artifact_prefix="$OUT/" "$OUT/fuzz-corpus" \
		"$OUT/corpus" > "$OUT/fuzz.log" 2>&1; then
		echo "ok 1 - fuzz ${CHECK_FUZZ_TIME}s ($(grep -o 'Done [0-9]* runs' "$OUT/fuzz.log"))"
	else
		echo "not ok 1 - fuzz: see $OUT/fuzz.log (copy the crash to regress/)"
		fail=1
	fi
fi
exit $fail
