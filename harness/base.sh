#!/bin/bash
# Prepare the kernel source tree: the pinned base as a git repository
# (tag "base") with patches/ applied by git am on top.
#
#   harness/base.sh          extract if needed, (re)apply the series if changed
#   harness/base.sh --check  only fetch the pinned base package (harness/fetch-base.sh)
set -euo pipefail
. "$(dirname "$0")/config.sh"

check_base() {
	"$TOP/harness/fetch-base.sh"
	[ -f "$BASE_TARBALL" ] || die "$BASE_TARBALL missing"
}

series_id() {
	# "|| true": with an empty patches/ both cat and grep fail (pipefail)
	{ cat "$TOP"/patches/[0-9]*.patch 2>/dev/null | grep -v '^0000' || true; } |
		sha1sum | cut -c1-12
}

extract() {
	note "extracting $BASE_TARBALL (pinned $BASE_VERSION)"
	rm -rf "$OUT/src.tmp"
	mkdir -p "$OUT/src.tmp"
	tar -C "$OUT/src.tmp" -xf "$BASE_TARBALL"
	mv "$OUT/src.tmp/$BASE_TOPDIR" "$OUT/src.tmp/linux"
	(
		cd "$OUT/src.tmp/linux"
		git init -q
		git config user.name "base"
		git config user.email "base@localhost"
		git config core.autocrlf false
		git add -A -f . >/dev/null
		git commit -q -m "Debian $BASE_PKG $BASE_VERSION"
		git tag base
	)
	mkdir -p "$OUT/src"
	rm -rf "$SRC"
	mv "$OUT/src.tmp/linux" "$SRC"
	rmdir "$OUT/src.tmp"
}

apply_series() {
	local id stamp
	id=$(series_id)
	stamp=$SRC/.git/series-stamp
	if [ -f "$stamp" ] && [ "$(cut -d' ' -f1 "$stamp")" = "$id" ] &&
	   [ "$(cut -d' ' -f2 "$stamp")" = "$(git -C "$SRC" rev-parse HEAD)" ]; then
		return 0
	fi
	if [ -f "$stamp" ] &&
	   [ "$(cut -d' ' -f2 "$stamp")" != "$(git -C "$SRC" rev-parse HEAD)" ]; then
		die "$SRC has commits that are not in patches/ (run harness/series.sh export, or reset the tree)"
	fi
	[ -z "$(git -C "$SRC" status --porcelain --untracked-files=no)" ] ||
		die "$SRC has uncommitted changes; commit and export them, or reset the tree"
	note "applying patches/ onto base"
	git -C "$SRC" am --abort >/dev/null 2>&1 || true
	git -C "$SRC" checkout -q -f base
	git -C "$SRC" checkout -q -B series
	local p
	for p in "$TOP"/patches/[0-9]*.patch; do
		[ -e "$p" ] || continue
		case "$(basename "$p")" in 0000-*) continue ;; esac
		git -C "$SRC" -c user.name="$(git -C "$TOP" config user.name || echo harness)" \
			-c user.email="$(git -C "$TOP" config user.email || echo harness@localhost)" \
			am -q --keep-cr "$p" || die "git am failed on $(basename "$p")"
	done
	# Commits made in the tree from now on are the series': the
	# repository's identity, not the base commit's.
	if git -C "$TOP" config user.name >/dev/null; then
		git -C "$SRC" config user.name "$(git -C "$TOP" config user.name)"
		git -C "$SRC" config user.email "$(git -C "$TOP" config user.email)"
	fi
	echo "$id $(git -C "$SRC" rev-parse HEAD)" >"$stamp"
}

check_base
[ "${1:-}" = "--check" ] && exit 0
[ -d "$SRC/.git" ] && git -C "$SRC" rev-parse -q --verify base >/dev/null || extract
apply_series
