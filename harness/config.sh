# Shared settings for the harness scripts (sourced, not executed).
# The pinned base: Debian's linux-source-6.12 package, this exact version.
BASE_PKG=linux-source-6.12
BASE_VERSION=6.12.117-1~deb12u1
BASE_TARBALL=/usr/src/linux-source-6.12.tar.xz
BASE_TOPDIR=linux-source-6.12

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${OUT:-$TOP/out}
SRC=$OUT/src/linux
JOBS=${JOBS:-$(nproc)}

die() { echo "error: $*" >&2; exit 1; }
note() { echo "==> $*" >&2; }
