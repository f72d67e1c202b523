#!/bin/bash
# Checks that a maintainer runs on the series itself, as TAP lines:
#   - checkpatch.pl --strict on every patch: no errors, warnings or checks
#   - scripts/kernel-doc -Wall on every added .c/.h file: no warnings
#   - the MAINTAINERS entry the series ends with == MAINTAINERS.fragment
#   - no patch changes a line an earlier patch added, but to extend it
#     (harness/series-lines.py; the extensions are listed in
#     harness/series-lines.allow)
#   - the SFrame decoder builds in user space after every patch that
#     changes it (harness/series-lines.py --decoder)
#   - bisectability: git am the patches one by one onto the pinned base in
#     a separate worktree and build an x86_64 kernel after each (small
#     config, incremental; for a patch that changes headers of the base,
#     the series' own files are recompiled, not every other user of those
#     headers: SERIES_FULL_BUILDS=1 for that), then the arm64 guest kernel
#     (-Werror) at the end
#
#   harness/series-check.sh [--no-build] [--no-arm64]
#
# --no-arm64: without the arm64 build, for a caller that builds the arm64
# guest kernel itself (make check's arm64 group: the same build).
set -euo pipefail
. "$(dirname "$0")/config.sh"

BUILD=1 ARM64=1
for a in "$@"; do
	case "$a" in
	--no-build) BUILD= ;;
	--no-arm64) ARM64= ;;
	*) echo "usage: harness/series-check.sh [--no-build] [--no-arm64]" >&2; exit 2 ;;
	esac
done
C=$OUT/series-check
mkdir -p "$C"
N=0 FAIL=0
ok() { N=$((N + 1)); echo "ok $N - $*"; }
not_ok() { N=$((N + 1)); FAIL=$((FAIL + 1)); echo "not ok $N - $*"; }
comment() { sed 's/^/# /'; }

"$TOP/harness/base.sh" >/dev/null
# scripts/spdxcheck.py needs python3-ply: use Debian's python3.
export PATH=/usr/bin:$PATH

mapfile -t PATCHES < <(ls "$TOP"/patches/[0-9]*.patch | grep -v '/0000-')

# checkpatch asks of every patch that adds a file without touching
# MAINTAINERS whether MAINTAINERS needs updating (FILE_PATH_CHANGES); for a
# patch that adds files to a directory the entry already lists, the answer
# is no, and harness/maintainers.py covered checks that it is.
MQ='WARNING: added, moved or deleted file(s), does MAINTAINERS need updating?'
upto=()
for p in "${PATCHES[@]}"; do
	name=$(basename "$p" .patch)
	out=$C/checkpatch-$name.txt
	upto+=("$p")
	rm -f "$out.covered"
	(cd "$SRC" && scripts/checkpatch.pl --strict --no-summary --quiet "$p") >"$out" 2>&1 || true
	if ! grep -qE '^(ERROR|WARNING|CHECK):' "$out"; then
		ok "checkpatch --strict: $name"
	elif ! grep -E '^(ERROR|WARNING|CHECK):' "$out" | grep -qvxF "$MQ" &&
		python3 "$TOP/harness/maintainers.py" covered "${upto[@]}" >"$out.covered" 2>&1; then
		ok "checkpatch --strict: $name (asks whether MAINTAINERS needs updating: no, its new files are in the entry)"
	else
		not_ok "checkpatch --strict: $name"
		grep -E '^(ERROR|WARNING|CHECK):' "$out" | sort | uniq -c | comment
		[ ! -s "$out.covered" ] || comment <"$out.covered"
	fi
done

kdoc_out=$C/kernel-doc.txt
: >"$kdoc_out"
for f in $("$TOP/harness/series.sh" list); do
	case "$f" in
	*.c | *.h) ;;
	*) continue ;;
	esac
	case "$f" in tools/*) continue ;; esac
	(cd "$SRC" && scripts/kernel-doc -none -Wall "$f") >>"$kdoc_out" 2>&1 || true
done
if [ -s "$kdoc_out" ]; then
	not_ok "kernel-doc -Wall on the added files"
	comment <"$kdoc_out"
else
	ok "kernel-doc -Wall on the added files"
fi

if python3 "$TOP/harness/maintainers.py" check >"$C/maintainers.txt" 2>&1; then
	ok "MAINTAINERS entry of the series equals MAINTAINERS.fragment"
else
	not_ok "MAINTAINERS entry of the series equals MAINTAINERS.fragment"
	comment <"$C/maintainers.txt"
fi

# No patch changes a line that an earlier patch added, but to extend it.
if python3 "$TOP/harness/series-lines.py" "$SRC" "$TOP/patches" >"$C/series-lines.txt" 2>&1; then
	ok "no patch changes a line an earlier patch added, but to extend it (harness/series-lines.allow)"
else
	not_ok "no patch changes a line an earlier patch added, but to extend it (harness/series-lines.allow)"
fi
grep '^#' "$C/series-lines.txt" || comment <"$C/series-lines.txt"

# The decoder builds in user space after each patch that changes it,
# before any architecture compiles it in the kernel.
python3 "$TOP/harness/series-lines.py" --decoder "$SRC" "$TOP/patches" >"$C/series-decoder.txt" 2>&1 || true
while IFS= read -r l; do
	case "$l" in
	"ok "*) ok "${l#ok * - }" ;;
	"not ok "*) not_ok "${l#not ok * - }" ;;
	*) echo "$l" ;;
	esac
done <"$C/series-decoder.txt"

[ -n "$BUILD" ] || { echo "# builds skipped (--no-build)"; exit $((FAIL > 0)); }

# A worktree of the base for the patch-by-patch builds.
WT=$OUT/src/bisect
if [ ! -d "$WT/.git" ] && [ ! -f "$WT/.git" ]; then
	git -C "$SRC" worktree prune
	git -C "$SRC" worktree add -q --detach "$WT" base
fi
git -C "$WT" am --abort >/dev/null 2>&1 || true
git -C "$WT" checkout -q -f --detach base

small_config() {
	local arch=$1 o=$2 frag
	frag=$C/$arch-small.config
	shift 2
	printf '%s\n' "$@" >"$frag"
	make -s -C "$WT" O="$o" ARCH="$arch" tinyconfig >/dev/null
	"$WT/scripts/kconfig/merge_config.sh" -m -O "$o" "$o/.config" "$frag" >/dev/null
	make -s -C "$WT" O="$o" ARCH="$arch" olddefconfig >/dev/null
}

# ccache when it is there (NO_CCACHE=1: not), as for the guest kernels:
# paths relative to $OUT, so that another clone's builds hit too.
CC_CACHE=
if [ -z "${NO_CCACHE:-}" ] && command -v ccache >/dev/null; then
	CC_CACHE=ccache
	export CCACHE_BASEDIR=$OUT
fi

build() {
	local arch=$1 o=$2 log=$3
	make -C "$WT" O="$o" ARCH="$arch" \
		${CC_CACHE:+CC="$CC_CACHE gcc"} -j"$JOBS" KCFLAGS=-Werror \
		>"$log" 2>&1
}

# Does the patch on top of $WT change anything a kernel build reads? Not
# if it only touches Documentation/, tools/ (selftests) or MAINTAINERS.
builds_kernel() {
	git -C "$WT" diff --name-only HEAD~1 HEAD |
		grep -qvE '^(Documentation/|tools/|MAINTAINERS$)'
}

# Does it add or change a Kconfig file (then the configuration is redone)?
changes_kconfig() {
	git -C "$WT" diff --name-only HEAD~1 HEAD | grep -qE '(^|/)Kconfig[^/]*$'
}

# Headers of the base the patch on top of $WT changes.
base_headers_changed() {
	git -C "$WT" diff --name-only HEAD~1 HEAD -- '*.h' | while read -r f; do
		! git -C "$WT" cat-file -e "base:$f" 2>/dev/null || echo "$f"
	done
}

X86=$OUT/build/bisect-x86_64
COMMON=(CONFIG_PRINTK=y CONFIG_MULTIUSER=y CONFIG_FUTEX=y CONFIG_PERF_EVENTS=y
	CONFIG_PROC_FS=y CONFIG_PROC_SYSCTL=y CONFIG_BINFMT_ELF=y CONFIG_KUNIT=y
	CONFIG_USERSPACE_UNWINDER_SFRAME=y CONFIG_SFRAME_KUNIT_TEST=y
	CONFIG_UNWIND_USER_EH_FRAME=y CONFIG_UNWIND_USER_EH_FRAME_KUNIT_TEST=y)
i=0
for p in "${PATCHES[@]}"; do
	i=$((i + 1))
	name=$(basename "$p" .patch)
	if ! git -C "$WT" -c user.name=check -c user.email=check@localhost am -q "$p" \
		>"$C/am-$i.log" 2>&1; then
		not_ok "git am $name"
		comment <"$C/am-$i.log"
		exit 1
	fi
	if ! builds_kernel; then
		ok "x86_64 builds after $name (changes no file the kernel build reads: not rebuilt)"
		continue
	fi
	# Reconfigure when options may have appeared (and for the first build).
	if [ "$i" = 1 ] || changes_kconfig; then
		small_config x86_64 "$X86" CONFIG_64BIT=y "${COMMON[@]}"
	fi
	# A header of the base that the patch changes (mm_types.h, sched.h,
	# elf.h ...) would have make recompile most of the kernel, for every
	# such patch. Its users outside the series are not what this check is
	# about (the guest kernels build them all, at the tip): mark it as
	# old, and recompile the series' own files instead, which include it
	# or what includes it. SERIES_FULL_BUILDS=1: rebuild all of them.
	how=
	if [ "$i" != 1 ] && [ -z "${SERIES_FULL_BUILDS:-}" ]; then
		mapfile -t hdrs < <(base_headers_changed)
		if [ ${#hdrs[@]} -gt 0 ]; then
			for f in "${hdrs[@]}"; do touch -d '2000-01-01' "$WT/$f"; done
			git -C "$WT" diff --name-only base HEAD -- '*.c' '*.S' |
				while read -r f; do [ ! -e "$WT/$f" ] || touch "$WT/$f"; done
			how="; ${hdrs[*]##*/} changed: the series' files recompiled, their other users not"
		fi
	fi
	start=$(date +%s)
	if build x86_64 "$X86" "$C/build-x86_64-$i.log"; then
		ok "x86_64 builds after $name ($(($(date +%s) - start)) s$how)"
	else
		not_ok "x86_64 builds after $name"
		grep -E 'error|warning' "$C/build-x86_64-$i.log" | head -20 | comment
	fi
done

# arm64: the whole series, built as the arm64 guest kernel (with -Werror,
# pointer authentication and 32-bit compat tasks, see
# harness/kconfig/arm64.config), which make check then boots: one build
# serves both.
[ -n "$ARM64" ] || { echo "# arm64 build left to the caller (--no-arm64)"; exit $((FAIL > 0)); }
start=$(date +%s)
if "$TOP/harness/build-kernel.sh" arm64 >"$C/build-arm64.log" 2>&1; then
	ok "arm64 builds with the whole series ($(($(date +%s) - start)) s, guest kernel config, -Werror)"
else
	not_ok "arm64 builds with the whole series"
	grep -E 'error|warning' "$C/build-arm64.log" | head -20 | comment
fi
exit $((FAIL > 0))
