#!/bin/bash
# Build the guest initramfs (gzip'ed newc cpio) for one architecture.
#
#   harness/initramfs.sh ARCH OUTPUT.cpio.gz
#
# Contents: busybox-static (applets as symlinks), Debian's perf with every
# library ldd lists and the dynamic loader, addr2line (perf report needs it),
# the base C runtime libraries for dynamic test programs, /init and the
# guest-side scripts of harness/guest/ (in /harness).
#
# Environment: INITRAMFS_EXTRA_BINS="path..." more host binaries (+ libs).
set -euo pipefail
. "$(dirname "$0")/config.sh"

[ $# -eq 2 ] || { echo "usage: harness/initramfs.sh ARCH OUTPUT.cpio.gz" >&2; exit 2; }
ARCH=$1 OUTPUT=$2
case "$ARCH" in
x86_64) ;;
*) echo "error: initramfs for ARCH '$ARCH' is not supported (supported: x86_64)" >&2; exit 2 ;;
esac

BUSYBOX=/bin/busybox
for f in "$BUSYBOX" /usr/bin/perf /usr/bin/addr2line; do
	[ -x "$f" ] || die "$f missing (run harness/deps.sh)"
done

ROOT=$(mktemp -d "$OUT/initramfs.XXXXXX")
trap 'rm -rf "$ROOT"' EXIT

# Mirror the host's merged-/usr layout (/bin -> usr/bin, /lib64 -> usr/lib64
# ...), so the paths ldd prints and the paths perf records are the same in
# the guest as on the host.
mkdir -p "$ROOT/usr/bin" "$ROOT/usr/sbin" "$ROOT/usr/lib"
for d in bin sbin lib lib32 lib64 libx32; do
	if [ -L "/$d" ]; then
		ln -s "$(readlink "/$d")" "$ROOT/$d"
		mkdir -p "$ROOT/$(readlink -f "/$d")"
	elif [ -d "/$d" ]; then
		mkdir -p "$ROOT/$d"
	fi
done
mkdir -p "$ROOT"/{proc,sys,dev,tmp,host,ctl,etc,root,harness}

# Copy one host file to the same path in the guest. If the path goes
# through a symlink (libfoo.so.1 -> libfoo-1.2.so), copy the target and
# recreate the link.
install_file() {
	local src=$1 real dir
	real=$(readlink -f "$src")
	mkdir -p "$ROOT$(dirname "$real")"
	[ -e "$ROOT$real" ] || cp "$real" "$ROOT$real"
	dir=$(readlink -f "$(dirname "$src")")
	if [ "$dir/$(basename "$src")" != "$real" ] && [ ! -e "$ROOT$dir/$(basename "$src")" ]; then
		mkdir -p "$ROOT$dir"
		ln -s "$real" "$ROOT$dir/$(basename "$src")"
	fi
}

# A binary and every library (+ loader) that ldd lists for it.
install_with_libs() {
	local bin=$1 lib
	install_file "$bin"
	# ldd lines: "libx.so.1 => /path (0x..)" or "/lib64/ld-linux... (0x..)"
	for lib in $(ldd "$bin" 2>/dev/null | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }'); do
		install_file "$lib"
	done
}

install_file "$BUSYBOX"
# Applets as symlinks at their usual places; never over a real file.
"$BUSYBOX" --list-full | while read -r applet; do
	[ -e "$ROOT/$applet" ] || [ -L "$ROOT/$applet" ] && continue
	mkdir -p "$ROOT/$(dirname "$applet")"
	ln -s "$BUSYBOX" "$ROOT/$applet"
done

install_with_libs /usr/bin/perf
install_with_libs /usr/bin/addr2line
for b in ${INITRAMFS_EXTRA_BINS:-}; do
	install_with_libs "$b"
done
# C runtime for dynamically linked test programs (most come with perf).
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
for l in libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1 libgcc_s.so.1; do
	for d in /lib/$multiarch /usr/lib/$multiarch; do
		if [ -e "$d/$l" ]; then install_file "$d/$l"; break; fi
	done
done

cp "$TOP/harness/guest/init" "$ROOT/init"
chmod 755 "$ROOT/init"
for f in "$TOP"/harness/guest/*; do
	[ "$(basename "$f")" = init ] && continue
	cp "$f" "$ROOT/harness/"
done
chmod 755 "$ROOT"/harness/* 2>/dev/null || true
echo 'root:x:0:0:root:/tmp:/bin/sh' >"$ROOT/etc/passwd"
echo 'root:x:0:' >"$ROOT/etc/group"

mkdir -p "$(dirname "$OUTPUT")"
# /dev/console comes from the kernel's built-in initramfs, which is
# unpacked first; this archive is unpacked over it.
(cd "$ROOT" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	gzip -6 >"$OUTPUT.tmp"
mv "$OUTPUT.tmp" "$OUTPUT"
note "initramfs $OUTPUT: $(du -h "$OUTPUT" | cut -f1)"
