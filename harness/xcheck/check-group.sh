#!/bin/bash
# The cross-check as a test group: build a few programs with SFrame and
# without frame pointers, take two Debian programs as they are, record each
# in ONE boot of the ARCH guest with xcheck-record, compare each on the host
# with xcheck-report, and print one TAP line per program ("ok N - xcheck:
# demo: ..."; the architecture and the kernel's sysctls are in the first
# "# " line), then the program's frames by source and its mismatch classes
# as "# " lines. Exit status 1 if any line is "not ok".
#
#   harness/xcheck/check-group.sh ARCH
#
# Programs: harness/demo/demo.c (built as harness/check.sh builds it),
# progs/dso_main.c with the SFrame shared library progs/dso_lib.c, and
# progs/threads.c (4 threads + main), progs/deep.c (recursion deeper than
# the kernel's chain limit and than the stack copy, recorded with 8 KiB),
# progs/dlopen_main.c (four dlopen/dlclose rounds of the same library),
# progs/libc_hot.c (its hot paths in libc and in assembly without SFrame
# data), dtc (scripts/dtc of the kernel tree, a program not written for
# this check, built with SFrame: see below), dtc-static (the same dtc
# linked static without SFrame: its .eh_frame has no .eh_frame_hdr and no
# PT_GNU_EH_FRAME, and the group fails if the build has either, or
# SFrame); and Debian's own gzip and perl
# binaries (the host's on x86_64, the arm64 packages fetched by
# harness/debs.sh on arm64), which have no SFrame and no frame pointers:
# the kernel unwinds them with their .eh_frame. gzip compresses and tests
# a generated text (progs/gen-text.py), perl runs progs/work.pl; dtc,
# dtc-static and gzip run their rounds under progs/rounds.c, so that no
# shell is in the recording. Each program must have at least 200 samples
# judged (the SFrame programs: 200 of them with the sampled PC in
# SFrame-described code),
# no wrong frame unwound with a table, 99.9% of the samples agreeing frame
# by frame, at most 0.01% of the compared frames wrong (frame pointer
# steps) and the first sample of every process complete;
# XCHECK_REPORT_OPTS may change that. Work
# files: out/xcheck/group-ARCH/.
#
# Environment: KERNEL, INITRD (harness/qemu-run.sh), XCHECK_SFRAME=0|1
# (kernel.unwind_user_sframe for the run, default 1), XCHECK_EH_FRAME=0|1
# (kernel.unwind_user_eh_frame; default: the kernel's), XCHECK_REPORT_OPTS
# (e.g. "--threshold 99.5"), XCHECK_SECONDS (run time of each program;
# default 1.5, 3 on arm64, whose TCG guest runs slower), XCHECK_SAMPLES
# (default 2000) and XCHECK_TRIES (default 4): a program whose recording
# holds fewer samples than XCHECK_SAMPLES is recorded again with twice the
# run time (dtc, dtc-static, gzip: twice the rounds), up to XCHECK_TRIES
# recordings, so that a busy host costs time, not samples; the tries are
# listed when there was more than one. XCHECK_ONLY: the programs to build
# and record, separated by spaces or commas (e.g. "dtc-static,gzip";
# default all of them).
set -uo pipefail
XDIR=$(cd "$(dirname "$0")" && pwd)
. "$XDIR/../config.sh"
. "$XDIR/lib.sh"

if [ $# -ne 1 ] || ! xc_arch_ok "$1"; then
	echo "usage: harness/xcheck/check-group.sh ARCH   (x86_64 or arm64)" >&2
	exit 2
fi
ARCH=$1
export XCHECK_SFRAME=${XCHECK_SFRAME:-1}
SECS=${XCHECK_SECONDS:-$([ "$ARCH" = arm64 ] && echo 3 || echo 1.5)}
NEED=${XCHECK_SAMPLES:-2000}
TRIES=${XCHECK_TRIES:-4}
case "$NEED$TRIES" in *[!0-9]*) echo "error: XCHECK_SAMPLES and XCHECK_TRIES must be numbers" >&2; exit 2 ;; esac
xc_check_switches || exit 2

# XCHECK_ONLY: the programs to build and record (all when empty)
ALL_PROGS="demo dso threads deep dlopen libc_hot dtc dtc-static gzip perl"
ONLY=$(echo "${XCHECK_ONLY:-}" | tr ',' ' ')
for p in $ONLY; do
	case " $ALL_PROGS " in
	*" $p "*) ;;
	*) echo "error: XCHECK_ONLY: no program '$p' (programs: $ALL_PROGS)" >&2; exit 2 ;;
	esac
done
wanted() { [ -z "$ONLY" ] || case " $ONLY " in *" $1 "*) true ;; *) false ;; esac; }

N=0 FAILED=0
ok() { N=$((N + 1)); echo "ok $N - xcheck: $*"; }
not_ok() { N=$((N + 1)); FAILED=1; echo "not ok $N - xcheck: $*"; }
comment() { sed 's/^/# /'; }
# samples_in_full REPORT: the samples the report lists in full
samples_in_full() { sed -n '/^  sample [0-9]*, pid/,/^  samples  /p' "$1" | sed '$d'; }
START=$SECONDS

G=$OUT/xcheck/group-$ARCH
SHARE=$G/share
rm -rf "$G"
mkdir -p "$SHARE"

if ! xc_build "$ARCH" >"$G/tools-build.log" 2>&1; then
	not_ok "build of xcheck-record and xcheck-report"
	tail -n 20 "$G/tools-build.log" | comment
	exit 1
fi
cp "$XC_RECORD" "$SHARE/xcheck-record"

# Test programs: SFrame, no frame pointers.
CC=$(xc_cc "$ARCH")
# shellcheck disable=SC2054 # -Wa,--gsframe is one argument
SF=(-O2 -fomit-frame-pointer -Wa,--gsframe)
PROGS=()
build() {
	local name=$1; shift
	if "$@" >>"$G/$name-build.log" 2>&1; then
		return 0
	fi
	not_ok "$name: build"
	tail -n 20 "$G/$name-build.log" | comment
	return 1
}
wanted demo && build demo "$CC" "${SF[@]}" -o "$SHARE/demo" "$TOP/harness/demo/demo.c" &&
	PROGS+=(demo)
# the SFrame library of dso, which dlopen opens too
{ wanted dso || wanted dlopen; } &&
	build dso "$CC" "${SF[@]}" -fPIC -shared -o "$SHARE/libxcdso.so" "$XDIR/progs/dso_lib.c"
wanted dso && [ -f "$SHARE/libxcdso.so" ] &&
	build dso "$CC" "${SF[@]}" -o "$SHARE/dso" "$XDIR/progs/dso_main.c" \
		-L"$SHARE" -lxcdso -Wl,-rpath,"\$ORIGIN" && PROGS+=(dso)
wanted threads &&
	build threads "$CC" "${SF[@]}" -pthread -o "$SHARE/threads" "$XDIR/progs/threads.c" &&
	PROGS+=(threads)
wanted deep && build deep "$CC" "${SF[@]}" -o "$SHARE/deep" "$XDIR/progs/deep.c" && PROGS+=(deep)
wanted dlopen && [ -f "$SHARE/libxcdso.so" ] &&
	build dlopen "$CC" "${SF[@]}" -o "$SHARE/dlopen" "$XDIR/progs/dlopen_main.c" -ldl &&
	PROGS+=(dlopen)
# libc_hot: its time in libc (no SFrame) and in an assembly routine with
# CFI but no SFrame data (assembled on its own, without --gsframe).
wanted libc_hot &&
	build libc_hot "$CC" -c -o "$G/libc_hot_asm.o" "$XDIR/progs/libc_hot_asm.S" &&
	build libc_hot "$CC" "${SF[@]}" -o "$SHARE/libc_hot" "$XDIR/progs/libc_hot.c" \
		"$G/libc_hot_asm.o" && PROGS+=(libc_hot)
# dtc: a real program this project did not write, the device tree compiler
# in the kernel tree (scripts/dtc, 11 C files, its lexer and parser made by
# flex and bison), built with SFrame; it compiles a generated source of
# 1,000 devices to a blob and back, DTC_ROUNDS times (default 3).
DTC=$SRC/scripts/dtc
DTC_C=("$DTC"/{dtc,flattree,fstree,data,livetree,treesource,srcpos,checks,util}.c
	"$G/dtc-lexer.lex.c" "$G/dtc-parser.tab.c")
# rounds: the driver of dtc's and gzip's rounds; bound at load time, so
# that its children's first samples are in the program they exec, not in
# the lazy binding of execv()
{ wanted dtc || wanted dtc-static || wanted gzip; } &&
	{ build rounds "$CC" "${SF[@]}" -Wl,-z,now -o "$SHARE/rounds" "$XDIR/progs/rounds.c" ||
		ROUNDS_FAILED=1; }
# dtc's lexer, parser and input, for dtc and dtc-static
[ -z "${ROUNDS_FAILED:-}" ] && { wanted dtc || wanted dtc-static; } &&
	build dtc-src flex -o "$G/dtc-lexer.lex.c" "$DTC/dtc-lexer.l" &&
	build dtc-src bison -d -o "$G/dtc-parser.tab.c" "$DTC/dtc-parser.y" &&
	build dtc-src python3 "$XDIR/progs/gen-dts.py" 4 250 "$SHARE/big.dts" && DTC_SRC=1
[ -n "${DTC_SRC:-}" ] && wanted dtc &&
	build dtc "$CC" "${SF[@]}" -DNO_YAML -I"$DTC" -I"$DTC/libfdt" -I"$G" \
		-o "$SHARE/dtc" "${DTC_C[@]}" && PROGS+=(dtc)
# dtc-static: the same sources linked static, as gcc links a static
# program, and without SFrame: its .eh_frame has no .eh_frame_hdr and no
# PT_GNU_EH_FRAME (gcc asks the linker for them only for dynamic links),
# so the kernel has to find the .eh_frame of the file by itself. A build
# with either, or with SFrame, no longer tests that: it fails.
# shellcheck disable=SC2317 # run through build
static_only_eh_frame() {
	local phdrs sections
	phdrs=$(readelf -lW "$1") && sections=$(readelf -SW "$1") || return 1
	if grep -qE '^ *(GNU_EH_FRAME|GNU_SFRAME|0x6474e554) ' <<<"$phdrs" ||
	   grep -qE ' \.(eh_frame_hdr|sframe) ' <<<"$sections" ||
	   ! grep -q ' \.eh_frame ' <<<"$sections" || grep -q '^ *INTERP ' <<<"$phdrs"; then
		echo "error: $1 is not a static program with .eh_frame only (no PT_GNU_EH_FRAME," \
			".eh_frame_hdr, SFrame or PT_INTERP): it no longer tests what it should"
		grep -E '^ *(INTERP|GNU_EH_FRAME|GNU_SFRAME|0x6474e554) ' <<<"$phdrs"
		grep -E ' \.(eh_frame|eh_frame_hdr|sframe) ' <<<"$sections"
		return 1
	fi
}
[ -n "${DTC_SRC:-}" ] && wanted dtc-static &&
	build dtc-static "$CC" -static -O2 -fomit-frame-pointer -DNO_YAML -I"$DTC" \
		-I"$DTC/libfdt" -I"$G" -o "$SHARE/dtc-static" "${DTC_C[@]}" &&
	build dtc-static static_only_eh_frame "$SHARE/dtc-static" && PROGS+=(dtc-static)

# Debian's gzip and perl, not rebuilt: no SFrame, no frame pointers. On
# x86_64 the host's (the guest's C runtime is the host's too); on arm64
# the arm64 packages, unpacked by harness/debs.sh. perl's libcrypt goes to
# lib/ in the shared directory (LD_LIBRARY_PATH), so that the guest runs
# the very file the report reads.
# shellcheck disable=SC2317 # run through build
debian_bins() {
	local root
	case $ARCH in
	x86_64)
		cp /usr/bin/gzip /usr/bin/perl "$SHARE/" &&
			cp -L /lib/x86_64-linux-gnu/libcrypt.so.1 "$SHARE/lib/" ;;
	arm64)
		root=$("$TOP/harness/debs.sh" arm64 gzip perl-base libcrypt1) &&
			cp "$root/bin/gzip" "$root/usr/bin/perl" "$SHARE/" &&
			cp -L "$root/lib/aarch64-linux-gnu/libcrypt.so.1" "$SHARE/lib/" ;;
	esac
}
mkdir -p "$SHARE/lib"
if { wanted gzip || wanted perl; } && build debian debian_bins; then
	[ -z "${ROUNDS_FAILED:-}" ] && wanted gzip &&
		build gzip python3 "$XDIR/progs/gen-text.py" 262144 "$SHARE/text.txt" &&
		build gzip gzip -6 -k "$SHARE/text.txt" && PROGS+=(gzip)
	wanted perl && cp "$XDIR/progs/work.pl" "$SHARE/work.pl" && PROGS+=(perl)
fi
[ ${#PROGS[@]} -gt 0 ] || exit 1

# One boot records every program.
{
	xc_guest_sysctls sysctl.txt
	# record PROG OPT CMD N [VAR=VALUE]: record CMD (its @N@ replaced by
	# N, the run time or the rounds; VAR=VALUE in its environment), and while the recording holds fewer than
	# $NEED samples (a busy host gives the guest fewer timer ticks),
	# record it again with N doubled, at most $TRIES times in all.
	echo "NEED=$NEED TRIES=$TRIES"
	cat <<-'EOS'
	record() {
		p=$1 opt=$2 cmd=$3 n=$4 vars=${5:-} try=1
		while :; do
			env $vars ./xcheck-record -o $p.data $opt -- $(echo "$cmd" | sed "s/@N@/$n/g") >$p.log 2>&1
			rc=$?
			got=$(sed -n 's/.*: \([0-9]*\) samples, .*/\1/p' $p.log | tail -n 1)
			echo "$p: try $try with $n: status $rc, ${got:-no} samples" >>tries.log
			[ "$rc" = 0 ] && [ "${got:-0}" -lt "$NEED" ] && [ "$try" -lt "$TRIES" ] || break
			try=$((try + 1))
			n=$(awk "BEGIN { print $n * 2 }")
		done
		echo $rc >$p.rc
	}
	EOS
	for p in "${PROGS[@]}"; do
		case $p in
		# deep: an 8 KiB stack copy, smaller than its deepest stacks
		deep) echo "record deep '-s 8192' './deep @N@' $SECS" ;;
		dtc|dtc-static) echo "record $p '' './rounds @N@ ./$p -q -o big.dtb big.dts ;" \
			"./$p -q -I dtb -O dts -o back.dts big.dtb' ${DTC_ROUNDS:-3}" ;;
		gzip) echo "record gzip '' './rounds @N@ ./gzip -6 -c text.txt ;" \
			"./gzip -t text.txt.gz' ${GZIP_ROUNDS:-2}" ;;
		perl) echo "record perl '' './perl work.pl @N@' $SECS LD_LIBRARY_PATH=/host/lib" ;;
		*) echo "record $p '' './$p @N@' $SECS" ;;
		esac
	done
} >"$SHARE/run.sh"
echo "# xcheck on $ARCH"
rc=0
# A hang bound, not a time limit: the recordings retry until they have
# their samples. TIMEOUT_SCALE (make check-debug: 4) scales it, as it does
# the selftests': on the debug kernel with other work beside it the
# recording of the seven programs took more than 900 s.
QUIET_STATUS=1 RUN_DIR=$G/run TIMEOUT=${TIMEOUT:-$((900 * ${TIMEOUT_SCALE:-1}))} \
	"$TOP/harness/qemu-run.sh" "$ARCH" "$SHARE" 'sh /host/run.sh' >"$G/guest.log" 2>&1 || rc=$?
GUEST_END=$SECONDS
if [ "$rc" != 0 ]; then
	not_ok "guest boot and recording (status $rc)"
	tail -n 30 "$G/guest.log" | comment
fi
# the kernel's sysctls, as the guest read them, for the reports
[ -f "$SHARE/sysctl.txt" ] && echo "# kernel: $(tr '\n' ' ' <"$SHARE/sysctl.txt")"

mapfile -t maps < <(xc_maps "$ARCH" "$SHARE" "$G/run")
mapfile -t sysctls < <(xc_sysctl_opts "$SHARE/sysctl.txt")
for p in "${PROGS[@]}"; do
	if [ ! -f "$SHARE/$p.rc" ]; then
		not_ok "$p: not recorded (the guest stopped before it)"
		continue
	fi
	prc=$(cat "$SHARE/$p.rc")
	if [ "$prc" != 0 ]; then
		not_ok "$p: recording failed (status $prc)"
		tail -n 20 "$SHARE/$p.log" | comment
		continue
	fi
	rrc=0
	# the SFrame programs must exercise SFrame: 200 samples in its text;
	# libc_hot spends most of its time in libc, dtc-static, gzip and perl
	# have none
	mins=(--min-samples 200 --min-sframe 200)
	case $p in libc_hot|dtc-static|gzip|perl) mins=(--min-samples 200) ;; esac
	# The gate: no wrong frame from a table, and the report's own bar:
	# 99.9% of the samples agree, at most 0.01% of the frames are wrong.
	gate=(--threshold 99.9 --max-wrong 0.01 --max-table-wrong 0)
	# shellcheck disable=SC2086
	"$XC_REPORT" --label "$p" "${mins[@]}" "${gate[@]}" "${maps[@]}" "${sysctls[@]}" \
		${XCHECK_REPORT_OPTS:-} "$SHARE/$p.data" \
		>"$G/$p.report" 2>&1 || rrc=$?
	# the tries when one recording was not enough
	t=$(grep -c "^$p: " "$SHARE/tries.log" 2>/dev/null)
	[ "${t:-0}" -le 1 ] || grep "^$p: " "$SHARE/tries.log" | comment
	result=$(grep -E '^(PASS|FAIL) ' "$G/$p.report" | tail -n 1 | sed -E "s/^(PASS|FAIL) $p: //")
	[ -n "$result" ] || result="xcheck-report failed (status $rrc)"
	if [ "$rrc" = 0 ]; then
		ok "$p: $result"
	else
		not_ok "$p: $result"
	fi
	# frames by source, mismatch classes, unjudged samples, first samples;
	# on failure also the first samples that differ
	{
		sed -n '/^  frames by the source/,/^    all /p' "$G/$p.report"
		sed -n '/^  mismatch classes/,/^  [a-z]/p' "$G/$p.report" | sed '$d'
		sed -n '/^  unjudged beyond/,/^  [a-z]/p' "$G/$p.report" | sed '$d'
		grep '^  first sample per process' -A20 "$G/$p.report" | grep -E '^  first|^      pid'
		if [ "$rrc" != 0 ]; then
			# the samples with a wrong frame first: they fail the gate
			samples_in_full "$G/$p.report" | awk '/^  sample / { w = / wrong frame, / }
				w' | head -n 30
			samples_in_full "$G/$p.report" | head -n 40
			echo "(full report: $G/$p.report)"
		fi
	} | comment
done
echo "# xcheck on $ARCH took $((SECONDS - START)) s (guest $((GUEST_END - START)) s," \
	"reports $((SECONDS - GUEST_END)) s)"
exit "$FAILED"
