#!/bin/bash
# Install (or only check) the Debian packages the harness needs.
#
#   harness/deps.sh           install whatever is missing (apt-get), else no-op
#   harness/deps.sh --check   only check; list what is missing and exit 1
#
# Idempotent: `dpkg-query` is asked first, and apt-get runs only when
# something is missing or the pinned base version is not the installed one.
#
# The arm64 guest's userland (busybox-static, linux-perf and its libraries)
# comes from Debian's arm64 packages, fetched by harness/debs.sh with
# apt-get download and never installed: dpkg must know the arm64
# architecture (dpkg --add-architecture arm64) and apt its package lists.
set -euo pipefail
. "$(dirname "$0")/config.sh"

# "name" or "name=version" (exact pin). Optional packages are installed when
# possible, but their absence is not an error.
REQUIRED=(
	# kernel build
	build-essential flex bison bc libelf-dev libssl-dev cpio git xz-utils
	# guest: emulator, userland, perf (+ libraries perf links against)
	qemu-system-x86 busybox-static linux-perf binutils-dev libdw-dev elfutils
	# arm64 guest: cross compiler and C library, emulator (its userland: harness/debs.sh)
	gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu libc6-dev-arm64-cross
	qemu-system-arm
	# the tree's perf for the guests (harness/perf-build.sh): x86_64 native,
	# arm64 cross-built against Debian's arm64 -dev packages (multiarch)
	libtraceevent-dev libelf-dev:arm64 libdw-dev:arm64 zlib1g-dev:arm64
	liblzma-dev:arm64 libtraceevent-dev:arm64
	# BPF consumer test in the x86_64 guest (run from the shared folder)
	bpftrace
	# checkpatch.pl's SPDX check, python3 (Debian's)
	python3 python3-ply python3-git
	# host tests: libFuzzer with ASan/UBSan (make fuzz), llvm-cov
	clang libclang-rt-14-dev llvm
)
OPTIONAL=(ccache)

# Print the entries of "$@" that are not installed (with the right version).
missing() {
	local spec name want have
	for spec in "$@"; do
		name=${spec%%=*}
		want=
		[ "$name" != "$spec" ] && want=${spec#*=}
		have=$(dpkg-query -W -f='${db:Status-Status} ${Version}' "$name" 2>/dev/null || true)
		case "$have" in
		"installed "*)
			[ -z "$want" ] || [ "${have#installed }" = "$want" ] || echo "$spec"
			;;
		*) echo "$spec" ;;
		esac
	done
}

FOREIGN_ARCHES=(arm64)

# Print the foreign architectures dpkg does not know, or whose package
# lists apt has not fetched yet.
missing_arches() {
	local a
	for a in "${FOREIGN_ARCHES[@]}"; do
		if ! dpkg --print-foreign-architectures | grep -qx "$a" ||
		   ! compgen -G "/var/lib/apt/lists/*_binary-${a}_Packages*" >/dev/null; then
			echo "$a"
		fi
	done
}

mapfile -t miss < <(missing "${REQUIRED[@]}")
mapfile -t miss_opt < <(missing "${OPTIONAL[@]}")
mapfile -t miss_arch < <(missing_arches)

if [ "${1:-}" = "--check" ]; then
	if [ ${#miss[@]} -gt 0 ] || [ ${#miss_arch[@]} -gt 0 ]; then
		[ ${#miss[@]} -eq 0 ] || echo "error: missing Debian packages: ${miss[*]}" >&2
		[ ${#miss_arch[@]} -eq 0 ] ||
			echo "error: foreign architecture not set up (dpkg --add-architecture, apt-get update): ${miss_arch[*]}" >&2
		echo "       run: harness/deps.sh   (as root, or with sudo)" >&2
		exit 1
	fi
	exit 0
fi
[ -z "${1:-}" ] || die "usage: harness/deps.sh [--check]"

[ ${#miss[@]} -eq 0 ] && [ ${#miss_opt[@]} -eq 0 ] && [ ${#miss_arch[@]} -eq 0 ] && exit 0

SUDO=()
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null ||
		die "need root to install: ${miss[*]} ${miss_opt[*]} (no sudo available)"
	SUDO=(sudo -n)
fi
export DEBIAN_FRONTEND=noninteractive
for a in "${miss_arch[@]}"; do
	dpkg --print-foreign-architectures | grep -qx "$a" || {
		note "dpkg --add-architecture $a"
		"${SUDO[@]}" dpkg --add-architecture "$a" || die "dpkg --add-architecture $a failed"
	}
done
note "installing: ${miss[*]} ${miss_opt[*]}${miss_arch[*]:+ (and the package lists of ${miss_arch[*]})}"
"${SUDO[@]}" apt-get update -q ||
	die "apt-get update failed"
if [ ${#miss[@]} -gt 0 ]; then
	"${SUDO[@]}" apt-get install -y -q --no-install-recommends "${miss[@]}" ||
		die "apt-get install failed for: ${miss[*]}"
fi
if [ ${#miss_opt[@]} -gt 0 ]; then
	"${SUDO[@]}" apt-get install -y -q --no-install-recommends "${miss_opt[@]}" ||
		note "optional packages not installed: ${miss_opt[*]} (continuing)"
fi
mapfile -t miss < <(missing "${REQUIRED[@]}")
[ ${#miss[@]} -eq 0 ] || die "still missing after apt-get install: ${miss[*]}"
mapfile -t miss_arch < <(missing_arches)
[ ${#miss_arch[@]} -eq 0 ] || die "no package lists for ${miss_arch[*]} after apt-get update"
note "all packages installed"
