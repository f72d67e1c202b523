#!/bin/bash
# Run the SFrame decoder host tests and print one TAP stream.
#
# Called by "make -C harness/hosttest check" with OUT, HT and
# CHECK_FUZZ_TIME in the environment, after everything is built. The test
# programs print unnumbered "ok - ..." / "not ok - ..." lines and "#"
# diagnostics; this script numbers them, turns a crash or a non-zero exit
# into a "not ok" line, and exits non-zero on any failure.
set -u
: "${OUT:?}" "${HT:?}"
CHECK_FUZZ_TIME=${CHECK_FUZZ_TIME:-20}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

n=0
failed=0
skipped=0

emit() {	# emit ok|not-ok "description"
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n - $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2"
	fi
}

# step NAME COMMAND...: run, renumber its TAP lines, check its exit code.
step() {
	local name=$1 err="$OUT/check-$1.err" line rc nok=0 lines=0
	shift
	exec 3< <("$@" 2>"$err"; echo "@@EXIT $?")
	while IFS= read -r line <&3; do
		case "$line" in
		"@@EXIT "*)
			rc=${line#@@EXIT }
			;;
		"ok - # SKIP "*)
			n=$((n + 1)); skipped=$((skipped + 1))
			echo "ok $n # SKIP ${line#ok - # SKIP }"
			lines=$((lines + 1))
			;;
		"ok - "*)
			emit ok "${line#ok - }"; lines=$((lines + 1))
			;;
		"not ok - "*)
			emit not-ok "${line#not ok - }"; nok=$((nok + 1))
			lines=$((lines + 1))
			;;
		*)
			echo "$line"
			;;
		esac
	done
	exec 3<&-
	if [ "${rc:-1}" -ne 0 ] && [ "$nok" -eq 0 ]; then
		tail -n 15 "$err" | sed 's/^/# /'
		emit not-ok "$name: exited with status $rc after $lines results (stderr: $err)"
	elif [ "$lines" -eq 0 ]; then
		emit not-ok "$name: printed no result"
	fi
}

echo "# SFrame decoder host tests ($OUT)"
for o in sframe.o sframe-O0.o sframe-clang.o; do
	[ -e "$OUT/$o" ] && built="${built:-} $o"
done
emit ok "kernel/unwind/sframe.c builds with the shim, -Wall -Wextra -Werror:${built:-}"

while IFS= read -r why; do
	[ -z "$why" ] && continue
	n=$((n + 1)); skipped=$((skipped + 1))
	echo "ok $n # SKIP $why"
done < <(cat "$OUT/progs.skip" 2>/dev/null)

step oracle "$OUT/oracle_test" $(cat "$OUT/progs.list")
step malformed "$OUT/malformed_test" $(cat "$OUT/progs.list")
# SFrame v3: files linked by binutils 2.46, against its readelf's dumps.
v3=()
for f in "$HT"/../fixtures/sframe-v3/*/*.sframe.txt; do
	[ -e "$f" ] && v3+=("${f%.sframe.txt}=$f")
done
step v3 "$OUT/v3_test" "${v3[@]}"
step replay "$OUT/replay" "$HT/regress" "$OUT/corpus"

if [ -e "$OUT/fuzz.skip" ]; then
	n=$((n + 1)); skipped=$((skipped + 1))
	echo "ok $n # SKIP libFuzzer run: $(cat "$OUT/fuzz.skip")"
elif [ "$CHECK_FUZZ_TIME" -le 0 ]; then
	n=$((n + 1)); skipped=$((skipped + 1))
	echo "ok $n # SKIP libFuzzer run: CHECK_FUZZ_TIME=$CHECK_FUZZ_TIME"
else
	step fuzz "$HT/fuzz-run.sh" "$OUT" "$CHECK_FUZZ_TIME" 1
fi

echo "1..$n"
echo "hosttest: $((n - failed - skipped)) passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
