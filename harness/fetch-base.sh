#!/bin/bash
# Fetch the pinned base package (BASE_PKG=BASE_VERSION of harness/config.sh)
# from the Debian archive this machine's apt already uses, without touching
# the system's apt state: a private sources list with the configured URI
# and the suite that carries the version (BASE_SUITE), private package
# lists and cache under $OUT/base. The .deb is checked against BASE_SHA256
# and unpacked (not installed) into $OUT/base.
#
#   harness/fetch-base.sh          fetch and unpack unless already there
#
# When the pinned version has left the archive, apt says so here. Then pin
# the same 7.2.y from the other suite that carries it (sid or
# trixie-backports), or a newer 7.2.y: set BASE_VERSION, BASE_SUITE and
# BASE_SHA256 in harness/config.sh (the sha256 of the .deb this script
# downloads, which it prints when it does not match) and check that
# patches/ still applies (harness/base.sh).
set -euo pipefail
. "$(dirname "$0")/config.sh"

dir=$OUT/base
[ -f "$BASE_TARBALL" ] && [ -f "$dir/.sha256" ] &&
	[ "$(cat "$dir/.sha256")" = "$BASE_SHA256" ] && exit 0

# The URI of the Debian archive apt is configured with: the deb822 file
# debian.sources, else a one-line sources.list entry for bookworm.
uri=
for f in /etc/apt/sources.list.d/debian.sources; do
	[ -f "$f" ] && uri=$(awk '/^URIs:/ { print $2; exit }' "$f")
done
if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
	uri=$(awk '$1 == "deb" && $3 ~ /^bookworm/ { print $2; exit }' /etc/apt/sources.list)
fi
[ -n "$uri" ] || die "no Debian archive URI in apt's sources (debian.sources or sources.list)"

rm -rf "$dir"
mkdir -p "$dir/apt/lists/partial" "$dir/apt/archives/partial" "$dir/apt/cache"
echo "deb $uri $BASE_SUITE main" >"$dir/apt/sources.list"
apt_opts=(-q -o Dir::Etc::SourceList="$dir/apt/sources.list"
	-o Dir::Etc::SourceParts=/dev/null
	-o Dir::State::Lists="$dir/apt/lists"
	-o Dir::Cache="$dir/apt/cache" -o Dir::Cache::Archives="$dir/apt/archives"
	-o Debug::NoLocking=1 -o APT::Sandbox::User=root)
note "fetching $BASE_PKG $BASE_VERSION from $BASE_SUITE"
apt-get "${apt_opts[@]}" update >"$dir/apt/update.log" 2>&1 ||
	{ cat "$dir/apt/update.log" >&2; die "apt-get update of $BASE_SUITE failed"; }
(cd "$dir/apt" && apt-get "${apt_opts[@]}" download "$BASE_PKG=$BASE_VERSION") >&2 ||
	die "$BASE_PKG $BASE_VERSION is not in $BASE_SUITE any more: see the top of harness/fetch-base.sh"
deb=$(ls "$dir"/apt/"${BASE_PKG}"_*.deb)
sum=$(sha256sum "$deb" | cut -d' ' -f1)
[ "$sum" = "$BASE_SHA256" ] ||
	die "$(basename "$deb"): sha256 $sum, pinned $BASE_SHA256"
dpkg-deb -x "$deb" "$dir"
rm -f "$deb"
[ -f "$BASE_TARBALL" ] || die "$BASE_TARBALL not in the package"
echo "$BASE_SHA256" >"$dir/.sha256"
note "$BASE_PKG $BASE_VERSION unpacked in $dir"
