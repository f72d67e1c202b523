#!/bin/bash
# Put Debian's bpftrace, the libraries it needs (ldd) and the UAPI headers
# its tracepoint parser includes into DIR/bpftrace, for the x86_64 guest
# to run from the shared folder (about 200 MB: too large for the initramfs).
#
#   harness/consumers/bpftrace-share.sh DIR
set -euo pipefail
. "$(dirname "$0")/../config.sh"
[ $# -eq 1 ] || { echo "usage: harness/consumers/bpftrace-share.sh DIR" >&2; exit 2; }
BT=/usr/bin/bpftrace
[ -x "$BT" ] || die "$BT missing (run harness/deps.sh)"
D=$1/bpftrace
rm -rf "$D"
mkdir -p "$D/lib" "$D/include"
cp "$BT" "$D/"
for l in $(ldd "$BT" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }'); do
	cp -L "$l" "$D/lib/"
done
cp -r /usr/include/linux /usr/include/asm-generic "$D/include/"
cp -r "/usr/include/$(gcc -print-multiarch)/asm" "$D/include/asm"
