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
		if [ ! -f /usr/include/elfutils/libdwfl.h ] || [ ! -f /usr/include/sframe-api.h ]; then
			echo "error: libdw-dev or binutils-dev (libsframe) is not installed" >&2
			return 1
		fi
		gcc "${XC_CFLAGS[@]}" -o "$XC_REPORT.tmp.$$" "$XC_SRC/report.c" -ldw -lelf -lsframe &&
			mv "$XC_REPORT.tmp.$$" "$XC_REPORT" || return 1
	fi
}

# xc_maps ARCH HOSTDIR RUNDIR: xcheck-report's --map options, one argument
# per line (read them with mapfile -t): the shared directories, and on
# arm64 the guest's C runtime, which comes from the cross toolchain, then
# the Debian arm64 packages harness/debs.sh unpacked into out/debs/arm64/root
# (busybox, the libraries of perf), as harness/initramfs.sh installs them
# (the report takes the first file with the recorded build ID). On x86_64
# the guest's files are the host's own, at the same paths.
xc_maps() {
	local arch=$1 hostdir=$2 run=$3 x=/usr/aarch64-linux-gnu/lib d=$OUT/debs/arm64/root
	local t=aarch64-linux-gnu
	printf -- '--map\n%s\n' "/host=$hostdir" "/ctl=$run"
	if [ "$arch" = arm64 ]; then
		printf -- '--map\n%s\n' "/usr/lib/$t=$x" "/lib/$t=$x" \
			"/usr/lib/ld-linux-aarch64.so.1=$x/ld-linux-aarch64.so.1" \
			"/lib/ld-linux-aarch64.so.1=$x/ld-linux-aarch64.so.1"
		[ -d "$d" ] && printf -- '--map\n%s\n' "/usr/lib/$t=$d/usr/lib/$t" \
			"/usr/lib/$t=$d/lib/$t" "/usr/bin/busybox=$d/bin/busybox"
	fi
	return 0
}

# The sysctls of the series that xcheck-report needs to know.
XC_SYSCTLS="unwind_user_sframe unwind_user_eh_frame"

# xc_guest_sysctls FILE: guest shell lines that set the sysctls asked for
# (XCHECK_SFRAME, XCHECK_EH_FRAME: 0 or 1), then print
# every one as "xcheck: kernel.NAME=VALUE" and write it as NAME=VALUE
# (VALUE "absent" without the series) to FILE, a guest path.
xc_guest_sysctls() {
	local n v
	for n in $XC_SYSCTLS; do
		case $n in
		unwind_user_sframe) v=${XCHECK_SFRAME:-} ;;
		unwind_user_eh_frame) v=${XCHECK_EH_FRAME:-} ;;
		esac
		[ -z "$v" ] ||
			echo "echo $v >/proc/sys/kernel/$n || echo 'xcheck: cannot set kernel.$n' >&2"
	done
	echo "for n in $XC_SYSCTLS; do"
	# shellcheck disable=SC2016 # expanded in the guest
	echo '	echo "$n=$(cat /proc/sys/kernel/$n 2>/dev/null || echo absent)"'
	echo "done >$1"
	echo "sed 's/^/xcheck: kernel./' $1"
}

# xc_sysctl_opts FILE: xcheck-report's --sysctl options for the values in
# FILE (written by the lines of xc_guest_sysctls), one argument per line.
xc_sysctl_opts() {
	local line
	[ -f "$1" ] || return 0
	while IFS= read -r line; do
		case $line in
		unwind_user_*=*) printf -- '--sysctl\n%s\n' "$line" ;;
		esac
	done <"$1"
}

# xc_check_switches: are XCHECK_SFRAME, XCHECK_EH_FRAME, XCHECK_RECOVER
# empty, 0 or 1?
xc_check_switches() {
	local v
	for v in "${XCHECK_SFRAME:-}" "${XCHECK_EH_FRAME:-}" "${XCHECK_RECOVER:-}"; do
		case "$v" in
		''|0|1) ;;
		*) echo "error: XCHECK_SFRAME, XCHECK_EH_FRAME and XCHECK_RECOVER must be 0 or 1" >&2
		   return 1 ;;
		esac
	done
}
