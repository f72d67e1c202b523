# Shared settings for the harness scripts (sourced, not executed).
# The pinned base: Debian's linux-source-7.2 package, this exact version,
# fetched (not installed) by harness/fetch-base.sh from the Debian archive
# apt is configured with, suite BASE_SUITE.
BASE_PKG=linux-source-7.2
BASE_VERSION=7.2.12-1~bpo13+1
BASE_SUITE=trixie-backports
BASE_SHA256=73ca6c22599ba411ab3179642d33501ca2c90174e13c3c8d86e996ea1cbf2a8f
BASE_TOPDIR=linux-source-7.2

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${OUT:-$TOP/out}
SRC=$OUT/src/linux
JOBS=${JOBS:-$(nproc)}
# The package's tarball, as harness/fetch-base.sh leaves it.
BASE_TARBALL=$OUT/base/usr/src/$BASE_PKG.tar.xz

die() { echo "error: $*" >&2; exit 1; }
note() { echo "==> $*" >&2; }

# arch_cc ARCH: the C compiler for the user space of a guest architecture.
arch_cc() {
	case "$1" in
	x86_64) echo gcc ;;
	arm64) echo aarch64-linux-gnu-gcc ;;
	*) die "unsupported ARCH '$1' (x86_64 or arm64)" ;;
	esac
}
