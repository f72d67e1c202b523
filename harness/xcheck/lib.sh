# shellcheck shell=bash
# Shared by xcheck.sh and check-group.sh (sourced after harness/config.sh).

XC_SRC=$TOP/harness/xcheck
XC_OUT=$OUT/xcheck
XC_REPORT=$XC_OUT/xcheck-report
XC_CFLAGS=(-O2 -g -Wall -Wextra)

xc_arch_ok() {
	case "$1" in
	x86_64|arm64) return 0 ;;
	*) echo "error: unsupported ARCH '$1'" >&2; return 1 ;;
	esac
}

# The C compiler for the guest's user space.
xc_cc() {
	case "$1" in
	x86_64) echo gcc ;;
	arm64) echo aarch64-linux-gnu-gcc ;;
	esac
}

# xc_build ARCH: build xcheck-record for ARCH (static) and xcheck-report for
# the host when their sources changed; sets XC_RECORD.
xc_build() {
	local arch=$1 cc
	cc=$(xc_cc "$arch")
	XC_RECORD=$XC_OUT/$arch/xcheck-record
	mkdir -p "$XC_OUT/$arch"
	command -v "$cc" >/dev/null || { echo "error: $cc not found" >&2; return 1; }
	if [ ! -x "$XC_RECORD" ] || [ "$XC_SRC/record.c" -nt "$XC_RECORD" ] ||
	   [ "$XC_SRC/xcheck.h" -nt "$XC_RECORD" ]; then
		"$cc" "${XC_CFLAGS[@]}" -static -o "$XC_RECORD.tmp" "$XC_SRC/record.c" &&
			mv "$XC_RECORD.tmp" "$XC_RECORD" || return 1
	fi
	if [ ! -x "$XC_REPORT" ] || [ "$XC_SRC/report.c" -nt "$XC_REPORT" ] ||
	   [ "$XC_SRC/xcheck.h" -nt "$XC_REPORT" ]; then
		[ -f /usr/include/elfutils/libdwfl.h ] && [ -f /usr/include/sframe-api.h ] ||
			{ echo "error: libdw-dev or binutils-dev (libsframe) is not installed" >&2; return 1; }
		gcc "${XC_CFLAGS[@]}" -o "$XC_REPORT.tmp.$$" "$XC_SRC/report.c" -ldw -lelf -lsframe &&
			mv "$XC_REPORT.tmp.$$" "$XC_REPORT" || return 1
	fi
}

# xc_maps ARCH HOSTDIR RUNDIR: xcheck-report's --map options, one argument
# per line (read them with mapfile -t): the shared
# directories, and on arm64 the guest's C runtime, which comes from the
# cross toolchain (harness/initramfs.sh). On x86_64 the guest's libraries
# are the host's own files, at the same paths.
xc_maps() {
	local arch=$1 hostdir=$2 run=$3 x=/usr/aarch64-linux-gnu/lib
	printf -- '--map\n%s\n' "/host=$hostdir" "/ctl=$run"
	if [ "$arch" = arm64 ]; then
		printf -- '--map\n%s\n' "/usr/lib/aarch64-linux-gnu=$x" \
			"/lib/aarch64-linux-gnu=$x" \
			"/usr/lib/ld-linux-aarch64.so.1=$x/ld-linux-aarch64.so.1" \
			"/lib/ld-linux-aarch64.so.1=$x/ld-linux-aarch64.so.1"
	fi
}
