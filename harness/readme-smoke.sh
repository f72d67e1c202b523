#!/bin/bash
# The commands README.md shows a user, run as they are written there (with
# their placeholders filled in), one TAP line each: `make run` with the
# README's perf example, `make xcheck`, `make table` and `make fuzz`. A
# command that the README no longer shows fails too: this script and the
# README must change together.
#
#   harness/readme-smoke.sh ARCH
#
# Not run here: make demo, make check and make check-debug (.ci/run runs
# them), make bench (minutes of its own; harness/bench/README.md).
# Environment: SMOKE_TIMEOUT (seconds per command, default 900).
set -uo pipefail
. "$(dirname "$0")/config.sh"
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL

[ $# -eq 1 ] || { echo "usage: harness/readme-smoke.sh ARCH" >&2; exit 2; }
ARCH=$1
case "$ARCH" in
x86_64) CC=gcc ;;
arm64) CC=aarch64-linux-gnu-gcc ;;
*) echo "error: unsupported ARCH '$ARCH' (supported: x86_64 arm64)" >&2; exit 2 ;;
esac
LIMIT=${SMOKE_TIMEOUT:-900}
N=0 FAILED=0
ok() { N=$((N + 1)); echo "ok $N - readme: $*"; }
not_ok() { N=$((N + 1)); FAILED=1; echo "not ok $N - readme: $*"; }
comment() { sed 's/^/# /'; }

W=$OUT/readme-smoke-$ARCH
rm -rf "$W"
mkdir -p "$W/dir"
# ./prog: the demo program, built as the README's users build theirs.
if ! "$CC" -O2 -fomit-frame-pointer -Wa,--gsframe -o "$W/dir/prog" \
	"$TOP/harness/demo/demo.c" >"$W/build.log" 2>&1; then
	not_ok "build of ./prog"
	comment <"$W/build.log"
	exit 1
fi

# readme_cmd PATTERN: the first README command (in a code block or a
# table's backquotes) that starts with PATTERN.
readme_cmd() {
	grep -o -- "$1[^\`]*" "$TOP/README.md" | head -n 1
}

# smoke NAME COMMAND CHECK: run COMMAND in the repository; ok if it exits 0
# within the limit and CHECK (a grep -E pattern) matches its output.
smoke() {
	local name=$1 cmd=$2 check=$3 log=$W/$1.log rc=0
	(cd "$TOP" && timeout "$LIMIT" bash -c "$cmd") >"$log" 2>&1 || rc=$?
	if [ "$rc" = 0 ] && grep -qE -- "$check" "$log"; then
		ok "$name: $cmd"
	else
		[ "$rc" = 124 ] && rc="timed out after $LIMIT s"
		not_ok "$name: $cmd (status $rc)"
		tail -n 15 "$log" | comment
	fi
}

# make run, with the README's perf example: perf must not wait for a pager.
cmd=$(readme_cmd "make run ARCH=x86_64 DIR=/path/to/dir CMD='perf record -g ./prog")
if [ -z "$cmd" ]; then
	not_ok "README.md shows no 'make run ... perf record -g ./prog' example"
else
	cmd=${cmd/ARCH=x86_64/ARCH=$ARCH}
	smoke run "${cmd/DIR=\/path\/to\/dir/DIR=$W/dir}" \
		'^[[:space:]|-]*(---)?main'
fi

cmd=$(readme_cmd "make xcheck ARCH=x86_64 DIR=d CMD='./prog args'")
if [ -z "$cmd" ]; then
	not_ok "README.md shows no 'make xcheck ... CMD=./prog args' command"
else
	cmd=${cmd/ARCH=x86_64/ARCH=$ARCH}
	cmd=${cmd/DIR=d/DIR=$W/dir}
	# judged by the xcheck group's gate (harness/xcheck/check-group.sh),
	# not the report's default bar (99.9%), which the known limits miss
	smoke xcheck "XCHECK_REPORT_OPTS='--threshold 98 --max-wrong 1 --max-table-wrong 0' ${cmd/.\/prog args/.\/prog 1}" '^PASS '
fi

cmd=$(readme_cmd "make table ARCH=")
if [ -z "$cmd" ]; then
	not_ok "README.md shows no 'make table ARCH=...' command"
else
	smoke table "make table ARCH=$ARCH" '^\| basic \| [a-z]+ \| [0-9]+/[0-9]+ \|'
fi

cmd=$(readme_cmd "make fuzz")
if [ -z "$cmd" ]; then
	not_ok "README.md shows no 'make fuzz' command"
else
	smoke fuzz "make fuzz FUZZ_TIME=5" '^ok - fuzz_sframe'
fi
echo "# not run here: make demo, make check, make check-debug (.ci/run" \
	"runs them), make bench (harness/bench/README.md)"
exit "$FAILED"
