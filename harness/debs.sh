#!/bin/bash
# Fetch Debian packages of a foreign architecture for the guest's userland,
# without installing them: `apt-get download` into out/debs/ARCH, then
# `dpkg-deb -x` into out/debs/ARCH/root (a staging tree, not a system).
#
#   harness/debs.sh ARCH PKG...            fetch PKG:ARCH only
#   harness/debs.sh --libs ARCH PKG...     PKG:ARCH and the library packages
#                                          they depend on, recursively
#
# Prints the staging root on stdout. With --libs, "library packages" are the
# lib* (and zlib*) packages of ARCH in the recursive Depends/Pre-Depends, less the C
# library itself (libc6: the guest's comes from the cross toolchain's
# /usr/<triplet>/lib) and the -minimal/-stdlib/-common parts of interpreters
# (Python or Perl modules, configuration files): only shared objects are
# taken from the staging tree, and only those that some binary needs
# (harness/initramfs.sh resolves DT_NEEDED itself).
#
# Cached: packages whose candidate version is already in out/debs/ARCH are
# not fetched again. Needs `dpkg --add-architecture ARCH` and apt-get update
# (harness/deps.sh does both for arm64).
set -euo pipefail
. "$(dirname "$0")/config.sh"

libs=
if [ "${1:-}" = --libs ]; then
	libs=1
	shift
fi
[ $# -ge 2 ] || { echo "usage: harness/debs.sh [--libs] ARCH PKG..." >&2; exit 2; }
ARCH=$1
shift

dpkg --print-foreign-architectures | grep -qx "$ARCH" ||
	die "dpkg does not know the foreign architecture $ARCH (run harness/deps.sh)"

D=$OUT/debs/$ARCH
ROOT=$D/root
mkdir -p "$D" "$ROOT"

pkgs=("$@")
if [ -n "$libs" ]; then
	mapfile -t pkgs < <(
		{
			printf '%s\n' "$@"
			apt-cache depends --recurse --no-recommends --no-suggests \
				--no-conflicts --no-breaks --no-replaces --no-enhances \
				"${@/%/:$ARCH}" 2>/dev/null |
				sed -n "s/^\(z*lib[a-z0-9.+-]*\):$ARCH\$/\1/p" |
				grep -Ev -e '^libc6$' -e '-(minimal|stdlib|common)$' || true
		} | sort -u)
fi

# Each package: the candidate version's file, downloaded unless present.
# (One apt-cache call for all: each call reads the whole cache.)
declare -A cand=()
while read -r p v; do
	cand[$p]=$v
done < <(apt-cache policy "${pkgs[@]/%/:$ARCH}" 2>/dev/null |
	awk -v arch=":$ARCH" '/^[^ ]/ { p = $1; sub(/:$/, "", p); sub(arch "$", "", p) }
		/^  Candidate:/ { print p, $2 }')
cd "$D"
fetch=()
files=()
for p in "${pkgs[@]}"; do
	v=${cand[$p]:-}
	[ -n "$v" ] && [ "$v" != "(none)" ] ||
		die "no candidate for $p:$ARCH (apt-get update after dpkg --add-architecture $ARCH?)"
	f=${p}_${v//:/%3a}_$ARCH.deb
	[ -f "$f" ] || fetch+=("$p:$ARCH=$v")
	files+=("$f")
done
if [ ${#fetch[@]} -gt 0 ]; then
	note "apt-get download (${#fetch[@]} $ARCH packages): ${fetch[*]%%=*}"
	apt-get download -q "${fetch[@]}" >"$D/download.log" 2>&1 ||
		{ tail -n 20 "$D/download.log" >&2; die "apt-get download failed for $ARCH packages"; }
fi
for f in "${files[@]}"; do
	[ -f "$f" ] || die "apt-get download did not leave $D/$f"
	stamp=$ROOT/.x.$f
	[ -f "$stamp" ] && continue
	dpkg-deb -x "$f" "$ROOT"
	: >"$stamp"
done
echo "$ROOT"
