#!/bin/bash
# `make check`: every test of the project as one TAP stream.
#
#   harness/check.sh [ARCH]        ARCH: x86_64 or arm64; default: every
#                                  supported arch
#
# Groups, in order:
#   series     harness/series.sh verify (if that script exists), then in
#              the first arch's job harness/series-check.sh (checkpatch,
#              kernel-doc, MAINTAINERS, per-patch x86_64 builds; the arm64
#              build is the arm64 group's kernel build)
#   hosttest   make -C harness/hosttest check (if it has a Makefile), then
#              make -C harness/ehtest check
#   per ARCH   kernel build, selftest build (arm64: cross-built with
#              aarch64-linux-gnu-gcc), then one guest boot that runs the
#              selftests (per-test timeout), the perf test (skipped when the
#              guest has no perf), the consumers, the safety tests
#              (harness/guest/safety.sh: crafted files of
#              harness/safety/mkelf.py mapped by an unprivileged user,
#              overlayfs, one user's profile; judge_safety), and KUnit
#              (which ran at boot; read from the kernel log); then a
#              second boot on ALT_SMP CPUs that
#              runs the selftests again (1 CPU, then 2, by default)
#   readme     the README's commands as written (harness/readme-smoke.sh),
#              on the first ARCH, after its guest group (beside the other
#              arch's) and the host tests
# Each check is one line "ok N - name" / "not ok N - name"; details of a
# failure follow as "# " lines. Logs: out/check/. The last line is
# "N passed, N failed, N skipped"; the exit status is 1 if anything failed.
# A skip ("ok N - name # SKIP why") is counted apart, never as passed, and
# is only for what does not apply (unwind_pac on x86_64, the libFuzzer run
# with CHECK_FUZZ_TIME=0): what cannot run where it must (no perf in the
# guest, no clang for the fuzzer, a test program that does not build, no
# pointer authentication on arm64's -cpu max) fails.
#
# Environment: SFRAME_CONFIG=none (unpatched base: no SFrame options, no
# KUnit suite expected), CHECK_SERIES_BUILD=0 (the series checks without
# the per-patch builds: harness/series-check.sh --no-build), CHECK_README=0
# (without the README commands: harness/readme-smoke.sh), PERF_MIN_PERMILLE (default 995: 99.5%), KERNEL_VARIANT=NAME
# (guest groups only, on the kernel with harness/kconfig/NAME.config merged,
# e.g. debug: see harness/check-debug.sh; TIMEOUT_SCALE multiplies the
# per-selftest limit).
set -euo pipefail
. "$(dirname "$0")/config.sh"
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL

SUPPORTED=(x86_64 arm64)
if [ $# -gt 1 ]; then
	echo "usage: harness/check.sh [ARCH]   (supported: ${SUPPORTED[*]})" >&2
	exit 2
fi
if [ -n "${1:-}" ]; then
	case " ${SUPPORTED[*]} " in
	*" $1 "*) ARCHES=("$1") ;;
	*) echo "error: unsupported ARCH '$1' (supported: ${SUPPORTED[*]})" >&2; exit 2 ;;
	esac
else
	ARCHES=("${SUPPORTED[@]}")
fi
PERF_MIN_PERMILLE=${PERF_MIN_PERMILLE:-995}
# The selftests run on 1 CPU (QEMU_SMP, default 1) and again on ALT_SMP
# CPUs (default 2 when QEMU_SMP is 1; empty: no second run).
if [ -z "${ALT_SMP+set}" ]; then
	case "${QEMU_SMP:-1}" in
	1) ALT_SMP=2 ;;
	*) ALT_SMP= ;;
	esac
fi

C=$OUT/check
mkdir -p "$C"
N=0 PASS=0 FAIL=0 SKIP=0

ok() { N=$((N + 1)); PASS=$((PASS + 1)); echo "ok $N - $*"; }
not_ok() { N=$((N + 1)); FAIL=$((FAIL + 1)); echo "not ok $N - $*"; }
skip() { N=$((N + 1)); SKIP=$((SKIP + 1)); echo "ok $N - $1 # SKIP ${2:-}"; }
comment() { sed 's/^/# /'; }
# tap COND NAME: ok if the command COND succeeds
tap() { if eval "$1"; then ok "$2"; else not_ok "$2"; fi; }

# Skips that are choices, not missing pieces: the fuzz run turned off.
skip_allowed() {
	case "$1" in
	*CHECK_FUZZ_TIME=0*) return 0 ;;
	esac
	return 1
}

# retap PREFIX LOG [comments]: re-number the TAP lines of a sub-run into this
# stream, each named "PREFIX: ..."; with "comments", pass its # lines too.
retap() {
	local prefix=$1 log=$2 comments=${3:-} line
	while IFS= read -r line; do
		case "$line" in
		"not ok "[0-9]*) not_ok "$prefix: $(echo "$line" | sed -E 's/^not ok [0-9]+ *-? *//')" ;;
		"ok "[0-9]*"# SKIP"*)
			local name why
			name=$(echo "$line" | sed -E 's/^ok [0-9]+ *-? *//; s/ *# SKIP.*//')
			why=$(echo "$line" | sed -E 's/.*# SKIP *//')
			if skip_allowed "$why"; then
				skip "$prefix: ${name:-skipped}" "$why"
			else
				not_ok "$prefix: ${name:-$why} (cannot run here: $why)"
			fi
			;;
		"ok "[0-9]*) ok "$prefix: $(echo "$line" | sed -E 's/^ok [0-9]+ *-? *//')" ;;
		"#"*) [ -z "$comments" ] || echo "$line" ;;
		esac
	done <"$log"
}

# ---------------------------------------------------------------- series
group_series() {
	local log=$C/series-verify.log
	if [ ! -x "$TOP/harness/series.sh" ]; then
		skip "series: harness/series.sh verify" "(no harness/series.sh)"
		return
	fi
	if "$TOP/harness/series.sh" verify >"$log" 2>&1; then
		ok "series: mirror == series (harness/series.sh verify)"
	else
		not_ok "series: mirror == series (harness/series.sh verify)"
		tail -n 20 "$log" | comment
	fi
}

# ---------------------------------------------------------------- host tests
group_hosttest() {
	local log=$C/hosttest.log rc=0 any_fail=0 any=0
	if [ ! -f "$TOP/harness/hosttest/Makefile" ]; then
		skip "hosttest" "(no harness/hosttest/Makefile)"
		return
	fi
	make -C "$TOP/harness/hosttest" check OUT="$OUT/hosttest" >"$log" 2>&1 || rc=$?
	grep -qE '^(not )?ok [0-9]+' "$log" && any=1
	grep -qE '^not ok [0-9]+' "$log" && any_fail=1
	retap hosttest "$log"
	if [ "$rc" != 0 ] && [ "$any_fail" = 0 ]; then
		not_ok "hosttest: make -C harness/hosttest check (exit status $rc)"
		tail -n 30 "$log" | comment
	elif [ "$any" = 0 ]; then
		ok "hosttest: make -C harness/hosttest check"
	elif [ "$any_fail" = 1 ]; then
		echo "# hosttest log: $log"
	fi
	group_ehtest
}

# The .eh_frame converter's host tests (harness/ehtest).
group_ehtest() {
	local log=$C/ehtest.log rc=0
	make -C "$TOP/harness/ehtest" check OUT="$OUT/ehtest" >"$log" 2>&1 || rc=$?
	retap ehtest "$log"
	if [ "$rc" != 0 ] && ! grep -qE '^not ok [0-9]+' "$log"; then
		not_ok "ehtest: make -C harness/ehtest check (exit status $rc)"
		tail -n 30 "$log" | comment
	elif [ "$rc" != 0 ]; then
		echo "# ehtest log: $log"
	fi
}

# ---------------------------------------------------------------- guest
# Where the selftests come from: the project's copy (kept equal to the
# series by harness/series.sh), else the one in the patched tree.
selftest_dir() {
	local d
	for d in "$TOP/tools/testing/selftests/sframe" "$SRC/tools/testing/selftests/sframe"; do
		[ -f "$d/Makefile" ] && { echo "$d"; return; }
	done
}

# Names of the test programs a kselftest Makefile declares (works for the
# lib.mk and the standalone form): TEST_GEN_PROGS TEST_PROGS TEST_CUSTOM_PROGS.
selftest_names() {
	local dir=$1; shift
	make -s --no-print-directory -C "$dir" "$@" -f Makefile \
		-f <(printf 'harness-print-tests:\n\t@echo $(TEST_GEN_PROGS) $(TEST_PROGS) $(TEST_CUSTOM_PROGS)\n') \
		harness-print-tests | tr ' ' '\n' | sed '/^$/d; s|.*/||'
}

# The guest kernel image group_arch built (last line of its build log).
kernel_image() {
	tail -n 1 "$C/$1${KERNEL_VARIANT:+-$KERNEL_VARIANT}/kernel.log" 2>/dev/null
}

# The C compiler for the guest's user space.
guest_cc() {
	case "$1" in
	x86_64) echo gcc ;;
	arm64) echo aarch64-linux-gnu-gcc ;;
	esac
}

# v3_fixture LABEL DIR: the SFrame version 3 selftest (unwind_v3 and its
# library), which only binutils 2.46 can build, from the committed fixtures
# (harness/fixtures/sframe-v3/regen.sh) into DIR, unless the selftests'
# make built it (SFRAME_V3_BINUTILS). Fails when the fixtures are older than
# the sources they were built from.
v3_fixture() {
	local label=$1 dir=$2 fix=$TOP/harness/fixtures/sframe-v3
	[ -e "$dir/unwind_v3" ] && return 1
	if ! (cd "$TOP" && sha256sum --quiet -c "$fix/SOURCES") >/dev/null 2>&1; then
		not_ok "$label: SFrame v3 fixtures older than their sources (run harness/fixtures/sframe-v3/regen.sh)"
		return 1
	fi
	cp "$fix/$arch/unwind_v3" "$fix/$arch/libsf_v3.so" "$dir/" || return 1
}

# failed_cases OUT: the end of each failed case's output (its last 12
# lines, up to its "not ok" line; at most 4 cases), so that a cut log
# still names them; the end of the output if no case failed (a crash).
failed_cases() {
	if grep -q '^not ok ' "$1"; then
		awk '/^# +RUN / { n = 0 }
		     { b[n++ % 12] = $0 }
		     /^not ok / && shown++ < 4 {
			for (i = (n > 12 ? n - 12 : 0); i < n; i++) print b[i % 12]
		     }' "$1"
	else
		tail -n 25 "$1"
	fi
}

# judge_selftests LABEL SHARE LIMIT NAME...: one TAP line per selftest
# program, from the results a guest left in SHARE/results.
judge_selftests() {
	local label=$1 share=$2 limit=$3 t r rc secs oks skips fails
	shift 3
	for t in "$@"; do
		r=$share/results/$t
		if [ ! -f "$r.rc" ]; then
			not_ok "$label: selftest $t (did not run: the guest stopped before it)"
			continue
		fi
		rc=$(cat "$r.rc") secs=$(cat "$r.secs" 2>/dev/null || echo '?')
		oks=$(grep -c '^ok ' "$r.out" || true)
		skips=$(grep -c '^ok .*# [Ss][Kk][Ii][Pp]' "$r.out" || true)
		fails=$(grep -c '^not ok ' "$r.out" || true)
		# a kselftest_harness program whose cases all skipped exits with 0
		[ "$rc" = 0 ] && [ "$oks" -gt 0 ] && [ "$oks" = "$skips" ] && rc=4
		case "$rc" in
		0)
			if [ "$skips" -gt 0 ]; then
				ok "$label: selftest $t ($((oks - skips)) cases passed, ${secs}s)"
				skip "$label: selftest $t, $skips of its cases" \
					"($(grep '# SKIP' "$r.out" | sed -E 's/^ok [0-9]+ //; s/ *# SKIP */: /' | head -n 3 | tr '\n' ';'))"
			else
				ok "$label: selftest $t ($oks cases passed, ${secs}s)"
			fi
			;;
		4)
			# unwind_pac tests an arm64 feature; on arm64 (-cpu max
			# has it) it must run
			if [ "$t" = unwind_pac ] && [ "${label%%[-,]*}" = x86_64 ]; then
				skip "$label: selftest $t" "(arm64 only: $skips cases skipped)"
			else
				not_ok "$label: selftest $t (all $skips cases skipped)"
				grep '# SKIP' "$r.out" | head -n 5 | comment
			fi
			;;
		*)
			local why="exit status $rc"
			case "$rc" in
			124|137|143) [ "$secs" != '?' ] && [ "$secs" -ge "$limit" ] &&
				why="timed out after ${limit}s" ;;
			esac
			[ "$rc" -gt 128 ] && [ "$why" = "exit status $rc" ] &&
				why="killed by signal $((rc - 128))"
			not_ok "$label: selftest $t ($why; $fails of $((oks + fails)) cases failed)"
			failed_cases "$r.out" | comment
			;;
		esac
	done
}

# judge_kernel_log LABEL FILE: the kernel log of a whole guest run must be
# free of oopses and warnings.
judge_kernel_log() {
	local label=$1 kernel_log=$2 bad
	bad=$(grep -E 'BUG:|WARNING:|Oops|general protection|Kernel panic|Call Trace:|KASAN|UBSAN|KFENCE|DEBUG_LOCKS_WARN|detected stall|blocked for more than' \
		"$kernel_log" 2>/dev/null | head -n 20 || true)
	if [ ! -f "$kernel_log" ]; then
		not_ok "$label: kernel log clean (no kernel log: guest did not finish)"
	elif [ -n "$bad" ]; then
		not_ok "$label: kernel log clean (no BUG/WARNING/Oops/KASAN/lockdep/RCU splat)"
		echo "$bad" | comment
	else
		ok "$label: kernel log clean (no BUG/WARNING/Oops/KASAN/lockdep/RCU splat)"
	fi
}

# judge_safety LABEL SHARE: one TAP line per check of the safety tests
# (harness/safety/judge.sh, which harness/mutants-registry.sh uses too)
# (review findings F1-F4), from the figures harness/guest/safety.sh left
# in SHARE/safety/figures (key=value) and its perf script outputs; its
# summary.txt follows as comment lines.
judge_safety() {
	local cl
	while IFS= read -r cl; do
		case "$cl" in
		"ok - "*) ok "${cl#ok - }" ;;
		"not ok - "*) not_ok "${cl#not ok - }" ;;
		*) echo "$cl" ;;
		esac
	done < <("$TOP/harness/safety/judge.sh" "$1" "$2" 2>&1)
}

group_arch() {
	local arch=$1 label share kernel_log log cc start=$SECONDS kernel
	label=$arch${KERNEL_VARIANT:+-$KERNEL_VARIANT}
	local A=$C/$label
	share=$A/share
	cc=$(guest_cc "$arch")
	rm -rf "$A"
	mkdir -p "$share"
	echo "# ---- $label guest"

	# Kernel and initramfs.
	log=$A/kernel.log
	local kname="$label: kernel build" how=
	[ "${SFRAME_CONFIG:-}" = none ] && kname="$kname (SFRAME_CONFIG=none: without sframe.config)"
	[ -z "${KERNEL_VARIANT:-}" ] && [ "${WERROR:-1}" = 1 ] && how=", -Werror"
	if "$TOP/harness/build-kernel.sh" "$arch" >"$log" 2>&1; then
		ok "$kname ($((SECONDS - start)) s$how)"
		kernel=$(kernel_image "$arch")
	else
		not_ok "$kname"
		tail -n 40 "$log" | comment
		not_ok "$label: guest tests not run (no kernel)"
		return
	fi
	if make --no-print-directory -C "$TOP" initramfs ARCH="$arch" >"$A/initramfs.log" 2>&1; then
		ok "$label: initramfs"
	else
		not_ok "$label: initramfs"
		tail -n 20 "$A/initramfs.log" | comment
		not_ok "$label: guest tests not run (no initramfs)"
		return
	fi

	# Selftests, built on the host.
	local sdir names=() t limit=120
	sdir=$(selftest_dir)
	if [ -z "$sdir" ]; then
		skip "$label: selftests build" "(no tools/testing/selftests/sframe)"
	else
		local mk=(OUTPUT="$share/selftests" CC="$cc" KSFT_DIR="$SRC/tools/testing/selftests")
		mkdir -p "$share/selftests"
		if make -C "$sdir" "${mk[@]}" >"$A/selftests-build.log" 2>&1 &&
		   mapfile -t names < <(selftest_names "$sdir" "${mk[@]}") && [ ${#names[@]} -gt 0 ]; then
			ok "$label: selftests build ($sdir: ${#names[@]} programs, $cc)"
			v3_fixture "$label" "$share/selftests" && names+=(unwind_v3)
			# Scripts listed in TEST_PROGS live in the source directory.
			for t in "${names[@]}"; do
				[ -e "$share/selftests/$t" ] || [ ! -e "$sdir/$t" ] || cp "$sdir/$t" "$share/selftests/"
			done
			printf '%s\n' "${names[@]}" >"$share/selftests/list"
			limit=$(sed -n 's/^timeout=\([0-9]*\)$/\1/p' "$sdir/settings" 2>/dev/null || true)
			limit=$(( ${limit:-120} * ${TIMEOUT_SCALE:-1} ))
			echo "$limit" >"$share/selftests/timeout"
		else
			not_ok "$label: selftests build ($sdir)"
			tail -n 30 "$A/selftests-build.log" | comment
			names=()
		fi
	fi

	# The perf test's program.
	local have_demo=1
	"$cc" -O2 -fomit-frame-pointer -Wa,--gsframe -o "$share/demo" "$TOP/harness/demo/demo.c" \
		>"$A/demo-build.log" 2>&1 || have_demo=
	# The same without SFrame: its table comes from its .eh_frame.
	"$cc" -O2 -fomit-frame-pointer -o "$share/demo-eh" "$TOP/harness/demo/demo.c" \
		>>"$A/demo-build.log" 2>&1 || have_demo=

	# The safety tests (harness/guest/safety.sh): their helper, built as
	# the demo is, and the crafted files of harness/safety/mkelf.py.
	local have_safety=1
	mkdir -p "$share/safety"
	{ "$cc" -O2 -Wall -o "$share/safety/ehmap" "$TOP/harness/safety/ehmap.c" &&
	  python3 "$TOP/harness/safety/mkelf.py" "$arch" "$share/safety"; } \
		>"$A/safety-build.log" 2>&1 || { have_safety=; rm -f "$share/safety/ehmap"; }

	# The other consumers (harness/guest/consumers.sh): the tree's perf on a
	# system-call tracepoint; bpftrace from the share on x86_64.
	if [ -z "${KERNEL_VARIANT:-}" ]; then
		touch "$share/consumers.on"
		if [ "$arch" = x86_64 ] &&
		   ! "$TOP/harness/consumers/bpftrace-share.sh" "$share" >"$A/bpftrace-share.log" 2>&1; then
			not_ok "$label: bpftrace for the guest"
			comment <"$A/bpftrace-share.log"
		fi
	fi

	# One boot for everything. Whole-run limit: every test at its limit.
	local run=$A/run timeout=$(( ${#names[@]} * (limit + 10) + 1200 + 1500 )) gstart=$SECONDS
	echo "# booting the $arch guest (${#names[@]} selftests, perf test; limit ${timeout}s)"
	if KERNEL=$kernel QUIET_STATUS=1 RUN_DIR=$run TIMEOUT=$timeout "$TOP/harness/qemu-run.sh" "$arch" "$share" \
		'sh /harness/run-tests.sh /host' >"$A/guest.log" 2>&1; then
		ok "$label: guest boot and test run completed ($((SECONDS - gstart)) s)"
	else
		not_ok "$label: guest boot and test run completed"
		tail -n 40 "$A/guest.log" | comment
	fi
	kernel_log=$run/dmesg.txt

	# KUnit: top-level "ok N suite" / "not ok N suite" lines of the log.
	local ktap=$A/kunit.txt suites=0 s counts
	sed 's/^\[[ 0-9.]*\] //' "$kernel_log" 2>/dev/null >"$ktap" || : >"$ktap"
	while read -r line; do
		suites=$((suites + 1))
		s=$(echo "$line" | sed -E 's/^(not )?ok [0-9]+ //')
		# with the suite's own count line, "# NAME: pass:N fail:N skip:N total:N"
		counts=$(sed -n "s/^# $s: \(pass:.*\)/\1/p" "$ktap" | head -n 1)
		[ -n "$counts" ] && s="$s ($counts)"
		case "$line" in
		"ok "*)
			ok "$label: kunit suite $s"
			case "$counts" in
			*" skip:0 "*) ;;
			*" skip:"[0-9]*) skip "$label: kunit suite $s, skipped cases" \
				"($(grep -E '^[[:space:]]+ok .*# SKIP' "$ktap" | head -n 3 | tr -s ' \t' ' ' | tr '\n' ';'))" ;;
			esac
			;;
		*)
			not_ok "$label: kunit suite $s"
			grep -E '^[[:space:]]+not ok ' "$ktap" | head -n 20 | comment
			;;
		esac
	done < <(grep -E '^(not )?ok [0-9]+ [^ #]+' "$ktap" || true)
	if [ "${SFRAME_CONFIG:-}" != none ]; then
		for s in sframe eh_frame; do
			grep -qE "^(not )?ok [0-9]+ $s( |\$)" "$ktap" ||
				not_ok "$label: kunit suite $s ran (no result in the kernel log)"
		done
	elif [ "$suites" = 0 ]; then
		skip "$label: kunit" "(no KUnit suite configured)"
	fi

	# Selftests: one line per program.
	judge_selftests "$label" "$share" "$limit" "${names[@]}"

	# perf test: perf record on the demo (SFrame) and demo-eh (.eh_frame),
	# chains taken where perf samples (-g) and deferred to the return to
	# user space (--call-graph fp,defer); the samples whose leaf is c must
	# show exactly c <- b <- a <- main.
	local p prog mode samples leaf full psecs plabel
	for prog in demo demo-eh; do
		p=$share/perf${prog#demo}
		if [ -z "$have_demo" ]; then
			not_ok "$label: perf test (demo program does not build)"
			comment <"$A/demo-build.log"
			break
		elif [ -f "$share/perf/absent" ]; then
			not_ok "$label: perf test (no perf in the $arch guest: $(head -n 1 "$share/perf/absent"))"
			break
		elif [ ! -f "$p/modes" ]; then
			not_ok "$label: perf test of $prog (did not run)"
			continue
		fi
		for mode in $(cat "$p/modes"); do
			samples=0 leaf=0 full=0
			case $mode in
			defer) plabel="perf --call-graph fp,defer" ;;
			*) plabel="perf -g" ;;
			esac
			eval "$(awk -f "$TOP/harness/demo/chains.awk" -v comm="$prog" -v chain=c,b,a,main \
				"$p/script-$mode.txt" 2>/dev/null | grep -E '^(samples|leaf|full)=[0-9]+$' || true)"
			# perf-demo.sh recorded until it had 1000 samples (at most 4 tries)
			psecs=$(cat "$p/secs-$mode" 2>/dev/null || echo '?')
			if [ "$samples" -ge 1000 ]; then
				ok "$label: $prog, $plabel: cpu-clock sampling ($samples samples in a ${psecs} s run at 1000 Hz)"
			else
				not_ok "$label: $prog, $plabel: cpu-clock sampling ($samples samples in a ${psecs} s run at 1000 Hz; hrtimers not high-res?)"
				comment <"$p/record-$mode.txt"
			fi
			if [ "$leaf" -ge 100 ] && [ $((full * 1000)) -ge $((PERF_MIN_PERMILLE * leaf)) ]; then
				ok "$label: $prog, $plabel: chain c<-b<-a<-main in $full of $leaf samples with leaf c (>= ${PERF_MIN_PERMILLE}/1000, unwinder $mode)"
			else
				not_ok "$label: $prog, $plabel: chain c<-b<-a<-main in $full of $leaf samples with leaf c (need >= ${PERF_MIN_PERMILLE}/1000, unwinder $mode)"
				awk -f "$TOP/harness/demo/chains.awk" -v comm="$prog" -v chain=c,b,a,main \
					"$p/script-$mode.txt" 2>/dev/null | comment
			fi
		done
	done

	# The other consumers, judged from their output.
	if [ -f "$share/consumers.on" ]; then
		local cl
		if [ ! -d "$share/consumers" ]; then
			not_ok "$label: consumers (harness/guest/consumers.sh did not run)"
		else
			while IFS= read -r cl; do
				case "$cl" in
				"ok - "*) ok "${cl#ok - }" ;;
				"not ok - "*) not_ok "${cl#not ok - }" ;;
				*) echo "$cl" ;;
				esac
			done < <(python3 "$TOP/harness/consumers/judge.py" "$arch" "$share/consumers" \
				"$share/selftests/unwind_consumers" 2>&1)
		fi
	fi

	# The safety tests, judged from the figures they left.
	if [ -z "$have_safety" ]; then
		not_ok "$label: safety tests (helper or crafted files do not build)"
		tail -n 20 "$A/safety-build.log" | comment
	else
		judge_safety "$label" "$share"
	fi

	# The kernel log of the whole run must be free of oopses and warnings.
	judge_kernel_log "$label" "$kernel_log"
	echo "# $arch logs: $A (console: $run/console.log, kernel log: $kernel_log)"
	echo "# $arch: $((SECONDS - start)) s (kernel build, selftests build, guest run $((SECONDS - gstart)) s)"

	# The selftests again, on the other number of CPUs.
	if [ -n "$ALT_SMP" ] && [ ${#names[@]} -gt 0 ]; then
		local share2=$A/share-smp$ALT_SMP run2=$A/run-smp$ALT_SMP
		local label2="$label, $ALT_SMP CPUs"
		mkdir -p "$share2"
		cp -a "$share/selftests" "$share2/"
		gstart=$SECONDS
		echo "# booting the $arch guest again with $ALT_SMP CPUs (the ${#names[@]} selftests)"
		if QEMU_SMP=$ALT_SMP KERNEL=$kernel QUIET_STATUS=1 RUN_DIR=$run2 TIMEOUT=$timeout \
			"$TOP/harness/qemu-run.sh" "$arch" "$share2" 'sh /harness/run-tests.sh /host' \
			>"$A/guest-smp$ALT_SMP.log" 2>&1; then
			ok "$label2: guest boot and test run completed ($((SECONDS - gstart)) s)"
		else
			not_ok "$label2: guest boot and test run completed"
			tail -n 40 "$A/guest-smp$ALT_SMP.log" | comment
		fi
		judge_selftests "$label2" "$share2" "$limit" "${names[@]}"
		judge_kernel_log "$label2" "$run2/dmesg.txt"
	fi
}

# ---------------------------------------------------------------- cross-check
# Each sample's kernel chain against libdw's unwind of the same sample's
# user registers and stack (harness/xcheck/check-group.sh: one guest boot).
group_xcheck() {
	local arch=$1 label log rc=0
	label=$arch${KERNEL_VARIANT:+-$KERNEL_VARIANT}
	log=$C/$label/xcheck.log
	mkdir -p "$C/$label"
	if [ ! -x "$TOP/harness/xcheck/check-group.sh" ]; then
		skip "$label: xcheck" "(no harness/xcheck/check-group.sh)"
		return
	fi
	KERNEL=$(kernel_image "$arch") "$TOP/harness/xcheck/check-group.sh" "$arch" >"$log" 2>&1 || rc=$?
	retap "$label" "$log" comments
	if [ "$rc" != 0 ] && ! grep -q '^not ok' "$log"; then
		not_ok "$label: xcheck (exit status $rc)"
		tail -n 20 "$log" | comment
	fi
}

# ---------------------------------------------------------------- series checks
# checkpatch --strict per patch, kernel-doc, MAINTAINERS, per-patch builds.
group_series_check() {
	local log=$C/series-check.log rc=0
	local opt=()
	[ "${CHECK_SERIES_BUILD:-1}" = 0 ] && opt+=(--no-build)
	# the arm64 guest group builds the same kernel, with -Werror
	case " ${ARCHES[*]} " in *" arm64 "*) opt+=(--no-arm64) ;; esac
	"$TOP/harness/series-check.sh" "${opt[@]}" >"$log" 2>&1 || rc=$?
	retap series "$log" comments
	if [ "$rc" != 0 ] && ! grep -q '^not ok' "$log"; then
		not_ok "series: harness/series-check.sh (exit status $rc)"
		tail -n 20 "$log" | comment
	fi
}

# merge_tap LOG: the TAP lines of a group run apart, numbered into this
# stream as they are (ok, not ok, skip), with their comment lines.
merge_tap() {
	local line name
	while IFS= read -r line; do
		case "$line" in
		"not ok "[0-9]*) not_ok "$(echo "$line" | sed -E 's/^not ok [0-9]+ - //')" ;;
		"ok "[0-9]*"# SKIP"*)
			name=$(echo "$line" | sed -E 's/^ok [0-9]+ - //')
			skip "${name%% # SKIP*}" "${name#* # SKIP }"
			;;
		"ok "[0-9]*) ok "$(echo "$line" | sed -E 's/^ok [0-9]+ - //')" ;;
		*) echo "$line" ;;
		esac
	done <"$1"
}

# Each guest group runs one TCG guest at a time, on one host CPU most of
# the time: the groups of the two arches (and the host tests) run side by
# side, each into its own log, merged in order afterwards. CHECK_PARALLEL=0
# runs them one after the other.
# group_guest ARCH: the guest group of one arch and its cross-check.
group_guest() {
	group_arch "$1"
	group_xcheck "$1"
}

# The README's commands run in the first arch's job, after its guest
# group, beside the other arch's (longer) one; make fuzz builds where the
# host tests do, so they wait for those to finish (hosttest.done).
readme_wanted() {
	[ -z "${KERNEL_VARIANT:-}" ] && [ "${CHECK_README:-1}" != 0 ] &&
		[ "${SFRAME_CONFIG:-}" != none ]
}

group_guest_readme() {
	local waited=0
	group_guest "$1"
	while [ ! -e "$C/hosttest.done" ] && [ "$waited" -lt 7200 ]; do
		sleep 5
		waited=$((waited + 5))
	done
	if [ -e "$C/hosttest.done" ]; then
		timed group_readme "$1"
	else
		not_ok "README ($1): not run (the host tests did not end within $waited s)"
	fi
}

# The series checks (checkpatch, kernel-doc, the per-patch x86_64 builds)
# come first in the first arch's job: the arm64 job, the longest, starts
# at once with its own kernel build, which is also the series' arm64
# build check (harness/series-check.sh --no-arm64).
group_series_then() {
	timed group_series_check
	"$@"
}

group_hosttest_done() {
	group_hosttest
	touch "$C/hosttest.done"
}

run_groups() {
	local g logs=() jobs=() first=guest series=
	rm -f "$C/hosttest.done"
	if [ -z "${KERNEL_VARIANT:-}" ]; then
		! readme_wanted || first=guest_readme
		series="group_series_then "
	fi
	for arch in "${ARCHES[@]}"; do
		jobs+=("$arch${KERNEL_VARIANT:+-$KERNEL_VARIANT} $series""group_$first $arch")
		# the host tests right after the job with the series checks
		[ -z "$series" ] || jobs+=("hosttest group_hosttest_done")
		first=guest series=
	done
	for g in "${jobs[@]}"; do
		logs+=("$C/group-${g%% *}.tap")
		# shellcheck disable=SC2086 # "FUNCTION [ARCH]"
		if [ "${CHECK_PARALLEL:-1}" = 1 ]; then
			timed ${g#* } >"${logs[-1]}" 2>&1 &
		else
			timed ${g#* } >"${logs[-1]}" 2>&1
		fi
	done
	wait
	for g in "${logs[@]}"; do
		merge_tap "$g"
	done
}

# timed CMD...: run CMD, then a comment line with its wall time.
timed() {
	local t0=$SECONDS
	"$@"
	echo "# $* took $((SECONDS - t0)) s"
}

# ---------------------------------------------------------------- README
# The README's own commands, as written (harness/readme-smoke.sh), on the
# first arch (see group_guest_readme).
group_readme() {
	local log=$C/readme-smoke.log
	"$TOP/harness/readme-smoke.sh" "$1" >"$log" 2>&1
	retap "README ($1)" "$log" comments
	grep -qE '^(not )?ok ' "$log" ||
		{ not_ok "README ($1): harness/readme-smoke.sh printed no result"; tail -n 20 "$log" | comment; }
}

echo "TAP version 13"
# The kernel tree, once, before the jobs that build from it start.
if ! "$TOP/harness/base.sh" >"$C/base.log" 2>&1; then
	not_ok "kernel tree (harness/base.sh)"
	tail -n 20 "$C/base.log" | comment
fi
[ -n "${KERNEL_VARIANT:-}" ] || group_series
run_groups
echo "1..$N"
echo "$PASS passed, $FAIL failed, $SKIP skipped"
[ "$FAIL" = 0 ]
