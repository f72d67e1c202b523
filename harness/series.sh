#!/bin/bash
# The patch series is the source of truth; this keeps the rest in step.
#
#   harness/series.sh export   out/src/linux (base..HEAD) -> patches/ and the
#                              mirror of the files the series adds
#   harness/series.sh verify   apply patches/ to the pinned base (in a
#                              scratch index) and check that every file the
#                              series adds equals its mirror copy, and that
#                              the mirror holds nothing else
#   harness/series.sh list     the files the series adds
set -euo pipefail
. "$(dirname "$0")/config.sh"

# Top-level folders of the repository that mirror the kernel tree.
MIRROR_DIRS="arch Documentation include kernel tools"

cover_letter() {
	# Subject and body come from harness/cover-letter.txt (first line is
	# the subject); shortlog and diffstat are generated.
	local tmpl=$TOP/harness/cover-letter.txt
	[ -f "$tmpl" ] || die "missing $tmpl"
	python3 - "$tmpl" "$TOP/patches/0000-cover-letter.patch" <<'PY'
import sys
tmpl, path = sys.argv[1], sys.argv[2]
lines = open(tmpl).read().split('\n')
subject, body = lines[0], '\n'.join(lines[1:]).strip('\n')
s = open(path).read()
s = s.replace('*** SUBJECT HERE ***', subject, 1)
s = s.replace('*** BLURB HERE ***', body, 1)
open(path, 'w').write(s)
PY
}

added_files() {
	git -C "$SRC" diff --name-only --diff-filter=A base HEAD
}

do_export() {
	[ -d "$SRC/.git" ] || die "no kernel tree at $SRC (run harness/base.sh)"
	[ -z "$(git -C "$SRC" status --porcelain --untracked-files=no)" ] ||
		die "$SRC has uncommitted changes"
	rm -f "$TOP"/patches/*.patch
	git -C "$SRC" format-patch -q --zero-commit --cover-letter \
		--subject-prefix=PATCH -o "$TOP/patches" base..HEAD
	cover_letter
	local f
	# Copy only: files other people are working on in the mirror folders
	# are never deleted here; verify reports anything stray.
	for f in $(added_files); do
		mkdir -p "$TOP/$(dirname "$f")"
		cp "$SRC/$f" "$TOP/$f"
	done
	# The tree now matches the series: mark it so harness/base.sh agrees.
	echo "$(series_id) $(git -C "$SRC" rev-parse HEAD)" >"$SRC/.git/series-stamp"
	note "exported $(ls "$TOP"/patches/[0-9]*.patch | wc -l) files to patches/"
}

series_id() {
	cat "$TOP"/patches/[0-9]*.patch 2>/dev/null | grep -v '^0000' | sha1sum | cut -c1-12
}

do_verify() {
	[ -d "$SRC/.git" ] || "$TOP/harness/base.sh" >/dev/null
	local idx tmp bad=0 p f
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	idx=$tmp/index
	export GIT_INDEX_FILE=$idx
	git -C "$SRC" read-tree base
	for p in "$TOP"/patches/[0-9]*.patch; do
		case "$(basename "$p")" in 0000-*) continue ;; esac
		git -C "$SRC" apply --cached "$p" ||
			{ echo "not ok - $(basename "$p") does not apply"; return 1; }
	done
	# Files the series adds: in the patched index, not in base.
	git -C "$SRC" diff-index --cached --name-only --diff-filter=A base >"$tmp/added"
	while read -r f; do
		if [ ! -f "$TOP/$f" ]; then
			echo "# missing from the mirror: $f"
			bad=1
		elif ! git -C "$SRC" show ":$f" | cmp -s - "$TOP/$f"; then
			echo "# mirror differs from the series: $f"
			bad=1
		fi
	done <"$tmp/added"
	(cd "$TOP" && for d in $MIRROR_DIRS; do [ -d "$d" ] && find "$d" -type f; done) |
		sort >"$tmp/mirror"
	sort "$tmp/added" >"$tmp/added.sorted"
	while read -r f; do
		echo "# in the mirror but not added by the series: $f"
		bad=1
	done < <(comm -23 "$tmp/mirror" "$tmp/added.sorted")
	unset GIT_INDEX_FILE
	echo "# $(wc -l <"$tmp/added") files added by $(ls "$TOP"/patches/[0-9]*.patch | grep -vc '/0000-') patches"
	return $bad
}

case "${1:-}" in
export) do_export ;;
verify)
	if do_verify; then
		echo "ok - mirror and series agree"
	else
		echo "not ok - mirror and series disagree"
		exit 1
	fi
	;;
list) added_files ;;
*) echo "usage: $0 export|verify|list" >&2; exit 2 ;;
esac
