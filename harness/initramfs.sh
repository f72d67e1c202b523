#!/bin/bash
# Build the guest initramfs (gzip'ed newc cpio) for one architecture.
#
#   harness/initramfs.sh ARCH OUTPUT.cpio.gz        ARCH: x86_64 or arm64
#
# Contents: busybox-static (applets as symlinks), the perf tool of the
# patched tree (harness/perf-build.sh) as /usr/bin/perf and Debian's perf as
# /usr/bin/perf-debian, each with every library it needs and the dynamic
# loader, addr2line (perf report needs it), the base C runtime libraries for
# dynamic test programs, /init and the guest-side scripts of harness/guest/
# (in /harness).
#
# x86_64: the host's own busybox, perf and addr2line (ldd lists the
# libraries). arm64: Debian's arm64 packages, fetched by harness/debs.sh
# (apt-get download + dpkg-deb -x into out/debs/arm64, never installed),
# their libraries resolved from DT_NEEDED; the C runtime comes from the
# cross toolchain's /usr/aarch64-linux-gnu/lib (libc6-arm64-cross), as for
# the test programs built with aarch64-linux-gnu-gcc. If arm64 perf cannot
# be had, the initramfs is built without it and /etc/harness-no-perf says
# why (the guest's perf test then skips).
#
# Environment: INITRAMFS_EXTRA_BINS="path..." more binaries (+ libs), of the
# guest's architecture; GUEST_PERF=no leaves the tree's perf out (and
# Debian's on arm64).
set -euo pipefail
. "$(dirname "$0")/config.sh"

[ $# -eq 2 ] || { echo "usage: harness/initramfs.sh ARCH OUTPUT.cpio.gz" >&2; exit 2; }
ARCH=$1 OUTPUT=$2
case "$ARCH" in
x86_64 | arm64) ;;
*) echo "error: initramfs for ARCH '$ARCH' is not supported (supported: x86_64 arm64)" >&2; exit 2 ;;
esac

ROOT=$(mktemp -d "$OUT/initramfs.XXXXXX")
trap 'rm -rf "$ROOT"' EXIT

# Busybox applets as symlinks at their usual places; never over a real file.
# $1: a busybox that runs here (for the list), $2: the guest path of busybox.
# (The arm64 busybox-static is the same Debian version as the host's, so
# the host's list is the guest's.)
install_applets() {
	local applet
	"$1" --list-full | while read -r applet; do
		[ -e "$ROOT/$applet" ] || [ -L "$ROOT/$applet" ] && continue
		mkdir -p "$ROOT/$(dirname "$applet")"
		ln -s "$2" "$ROOT/$applet"
	done
}

# ---------------------------------------------------------------- x86_64
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

# A binary and every library (+ loader) that ldd lists for it; with a
# second argument, the binary goes to that guest path.
install_with_libs() {
	local bin=$1 lib
	if [ -n "${2:-}" ]; then
		mkdir -p "$ROOT$(dirname "$2")"
		cp "$bin" "$ROOT$2"
	else
		install_file "$bin"
	fi
	# ldd lines: "libx.so.1 => /path (0x..)" or "/lib64/ld-linux... (0x..)"
	for lib in $(ldd "$bin" 2>/dev/null | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }'); do
		install_file "$lib"
	done
}

guest_x86_64() {
	local BUSYBOX=/bin/busybox f multiarch l d b
	for f in "$BUSYBOX" /usr/bin/perf /usr/bin/addr2line; do
		[ -x "$f" ] || die "$f missing (run harness/deps.sh)"
	done

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

	install_file "$BUSYBOX"
	install_applets "$BUSYBOX" "$BUSYBOX"

	[ -z "$TREE_PERF" ] || install_with_libs "$TREE_PERF" "/usr/bin/$PERF_TREE_NAME"
	install_with_libs /usr/bin/perf "/usr/bin/$PERF_DEBIAN_NAME"
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
}

# ---------------------------------------------------------------- arm64
TRIPLET=aarch64-linux-gnu
LOADER=ld-linux-aarch64.so.1
CROSS_LIBDIR=/usr/$TRIPLET/lib

# A file of the staging tree $DROOT (or any host file), symlinks followed
# inside the staging tree: its absolute links point into it, not the host.
staged_real() {
	local f=$1 t n=0
	while [ -L "$f" ] && [ $n -lt 20 ]; do
		t=$(readlink "$f")
		case "$t" in
		/*) f=${DROOT:-}$t ;;
		*) f=$(dirname "$f")/$t ;;
		esac
		n=$((n + 1))
	done
	echo "$f"
}

find_lib() {
	local d
	for d in "$CROSS_LIBDIR" ${DROOT:+"$DROOT/usr/lib/$TRIPLET" "$DROOT/lib/$TRIPLET" "$DROOT/usr/lib"} \
		 "/usr/lib/$TRIPLET" "/lib/$TRIPLET"; do
		if [ -e "$d/$1" ] || [ -L "$d/$1" ]; then
			staged_real "$d/$1"
			return 0
		fi
	done
	return 1
}

# Copy an aarch64 ELF file to guest path $2, and every library it needs
# (DT_NEEDED, recursively) to /usr/lib/$TRIPLET/SONAME (the loader to
# /usr/lib/$LOADER, which is /lib/$LOADER, the programs' PT_INTERP).
# Fails, listing them, if some library is not found.
declare -A DONE=()
install_elf() {
	local src dest=$2 lib path missing=()
	src=$(staged_real "$1")
	[ -f "$src" ] || { echo "$1 not found"; return 1; }
	mkdir -p "$ROOT$(dirname "$dest")"
	cp "$src" "$ROOT$dest"
	for lib in $(readelf -d "$src" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
		[ -n "${DONE[$lib]:-}" ] && continue
		if ! path=$(find_lib "$lib"); then
			missing+=("$lib")
			continue
		fi
		DONE[$lib]=1
		if [ "$lib" = "$LOADER" ]; then
			install_elf "$path" "/usr/lib/$LOADER" || return 1
		else
			install_elf "$path" "/usr/lib/$TRIPLET/$lib" || return 1
		fi
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "$1: libraries not found: ${missing[*]}"
		return 1
	fi
}

guest_arm64() {
	local bbroot proot why= log=$OUT/debs/arm64-perf.log l
	# Debian's arm64 layout: merged /usr, multiarch library directory.
	mkdir -p "$ROOT/usr/bin" "$ROOT/usr/sbin" "$ROOT/usr/lib/$TRIPLET"
	ln -s usr/bin "$ROOT/bin"
	ln -s usr/sbin "$ROOT/sbin"
	ln -s usr/lib "$ROOT/lib"

	[ -x /bin/busybox ] || die "/bin/busybox missing (run harness/deps.sh)"
	bbroot=$("$TOP/harness/debs.sh" arm64 busybox-static) ||
		die "cannot fetch busybox-static:arm64 (run harness/deps.sh)"
	cp "$bbroot/bin/busybox" "$ROOT/usr/bin/busybox"
	install_applets /bin/busybox /usr/bin/busybox

	# C runtime for dynamically linked test programs (and the loader).
	for l in $LOADER libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1 libgcc_s.so.1; do
		[ -e "$CROSS_LIBDIR/$l" ] || die "$CROSS_LIBDIR/$l missing (libc6-dev-arm64-cross; run harness/deps.sh)"
		if [ "$l" = "$LOADER" ]; then
			install_elf "$CROSS_LIBDIR/$l" "/usr/lib/$l" >/dev/null
		else
			install_elf "$CROSS_LIBDIR/$l" "/usr/lib/$TRIPLET/$l" >/dev/null
		fi
		DONE[$l]=1
	done

	# perf (and addr2line, which perf report runs) from Debian's arm64
	# packages with their library packages.
	mkdir -p "$(dirname "$log")"
	if [ "${GUEST_PERF:-}" = no ]; then
		why="GUEST_PERF=no"
	elif ! proot=$("$TOP/harness/debs.sh" --libs arm64 linux-perf binutils-aarch64-linux-gnu 2>"$log"); then
		why="cannot fetch linux-perf:arm64 and its libraries: $(tail -n 1 "$log")"
	else
		DROOT=$proot
		if ! why=$(install_elf "$proot/usr/bin/perf" "/usr/bin/$PERF_DEBIAN_NAME"); then
			rm -f "$ROOT/usr/bin/$PERF_DEBIAN_NAME"
			why="linux-perf:arm64 unusable: $why"
		elif ! l=$(install_elf "$proot/usr/bin/$TRIPLET-addr2line" /usr/bin/addr2line); then
			rm -f "$ROOT/usr/bin/addr2line"
			note "arm64 guest without addr2line ($l)"
		fi
		DROOT=
	fi
	if [ -n "$why" ]; then
		note "arm64 guest without Debian's perf: $why"
	fi
	# The tree's perf, with libraries from the multiarch -dev packages.
	if [ "${GUEST_PERF:-}" != no ] &&
	   ! why=$(install_elf "$TREE_PERF" "/usr/bin/$PERF_TREE_NAME"); then
		die "the tree's arm64 perf: $why"
	fi
	[ -e "$ROOT/usr/bin/perf" ] || echo "${why:-GUEST_PERF=no}" >"$ROOT/etc/harness-no-perf"
	for l in ${INITRAMFS_EXTRA_BINS:-}; do
		install_elf "$l" "/usr/bin/$(basename "$l")" >&2 || die "cannot install $l"
	done
}

PERF_TREE_NAME=perf PERF_DEBIAN_NAME=perf-debian
TREE_PERF=
if [ "${GUEST_PERF:-}" != no ]; then
	TREE_PERF=$("$TOP/harness/perf-build.sh" "$ARCH") || die "cannot build the tree's perf for $ARCH"
fi

mkdir -p "$ROOT"/{proc,sys,dev,tmp,host,ctl,etc,root,harness}
guest_"$ARCH"

cp "$TOP/harness/guest/init" "$ROOT/init"
chmod 755 "$ROOT/init"
for f in "$TOP"/harness/guest/*; do
	[ "$(basename "$f")" = init ] && continue
	cp "$f" "$ROOT/harness/"
done
chmod 755 "$ROOT"/harness/* 2>/dev/null || true
# Two unprivileged users for harness/guest/safety.sh (busybox su -s /bin/sh
# uNNNN -c CMD as root; their home directories are made by safety.sh).
cat >"$ROOT/etc/passwd" <<'EOF'
root:x:0:0:root:/tmp:/bin/sh
u1000:x:1000:1000:u1000:/tmp/u1000:/bin/sh
u1001:x:1001:1001:u1001:/tmp/u1001:/bin/sh
EOF
cat >"$ROOT/etc/group" <<'EOF'
root:x:0:
u1000:x:1000:
u1001:x:1001:
EOF

mkdir -p "$(dirname "$OUTPUT")"
# /dev/console comes from the kernel's built-in initramfs, which is
# unpacked first; this archive is unpacked over it.
(cd "$ROOT" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	gzip -6 >"$OUTPUT.tmp"
mv "$OUTPUT.tmp" "$OUTPUT"
note "initramfs $OUTPUT: $(du -h "$OUTPUT" | cut -f1)"
