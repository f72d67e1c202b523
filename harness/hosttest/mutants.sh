#!/bin/bash
# Prove the host tests can fail: build deliberately broken copies of the
# decoder (in a scratch directory, never in the repository) and check that
# "make check" fails for each of them.
#
#   harness/hosttest/mutants.sh [SCRATCH_DIR] [FUZZ_SECONDS]
#   MUTANTS_ONLY="name ..." harness/hosttest/mutants.sh ...   (a subset)
#
# SCRATCH_DIR defaults to a new directory under /tmp. FUZZ_SECONDS (default
# 0: skipped) is the CHECK_FUZZ_TIME of each check; fuzzer crashes of a
# mutant go to SCRATCH_DIR/regress, not to regress/. A mutant whose text no
# longer matches the decoder is reported as "not applicable", one that does
# not compile as "BUILD FAILED". Exits non-zero if a mutant survives.
set -u
HT=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HT/../.." && pwd)
SCRATCH=${1:-$(mktemp -d /tmp/sframe-mutants.XXXXXX)}
FUZZ=${2:-0}
SRC=$REPO/kernel/unwind/sframe.c
BIN=$SCRATCH/bin
mkdir -p "$SCRATCH"
# Crashes the fuzzer finds in a mutant are not regressions of the decoder.
export REGRESS_DIR=$SCRATCH/regress
command -v python3 >/dev/null || { echo "mutants.sh needs python3" >&2; exit 2; }

# name~old text~new text[~h|~e]   (\n = newline, \t = tab; exact match, once;
# ~h: in kernel/unwind/sframe_table.h, the table lookup, instead of sframe.c;
# ~e: in kernel/unwind/eh_frame.c, the .eh_frame converter, judged by
# harness/ehtest's check instead)
# (sframe_read()'s range check and the row window's own check are not
# mutated: the callers check their ranges first, so removing either changes
# nothing observable; they stay as the last lines of defence.)
MUTANTS=$(cat <<'LIST'
pcrel-ignored~\t\tbase = fde_addr;~\t\tbase = fde_addr - fde_addr + tbl->sec_start;
v2-rep-size-ignored~\t\tfde->rep_size = raw.rep_size;~\t\tfde->rep_size = SFRAME_V1_PCMASK_REP_SIZE;
overlap-accepted~\t\tif (b->next_fde && fde.func_start < prev_end)~\t\tif (b->next_fde && fde.func_start < prev_end && 0)
unsorted-accepted~\t\tprev_end = fde.func_start + fde.func_size;~\t\tprev_end = fde.func_size;
fixed-ra-ignored~\tif (tbl->fixed_ra_off) {~\tif (0) {
window-stale-tail~\t    len > w->len - (addr - w->start)) {~\t    len > w->len + 8 - (addr - w->start)) {
fre-order-unchecked~\t\tif (fre.start >= limit || (i && fre.start <= prev))~\t\tif (fre.start >= limit || (i && fre.start < prev))
fre-end-unchecked~\tif (addr + fre->size > tbl->fres_end || addr + fre->size < addr)\n\t\treturn -EINVAL;~
fde-table-size-unchecked~\tif (h->fdes_off > data_size || fdes_size > data_size - h->fdes_off)~\tif (h->fdes_off > data_size || (fdes_size > data_size - h->fdes_off && 0))
offset-sign-lost~\treturn size == 1 ? (s8)w : size == 2 ? (s16)w : (s32)w;~\treturn size == 1 ? (s32)(u8)w : size == 2 ? (s16)w : (s32)w;
ra-offset-index~\t\tframe->ra_off = sframe_offset(buf + i * size, size);~\t\tframe->ra_off = sframe_offset(buf, size);
fres-num-cap-dropped~\tif (!*addr_size || fde->fres_num > SFRAME_MAX_FRES_PER_FDE)~\tif (!*addr_size)
num-fres-sum-unchecked~\tif (fde->fres_num > fres_left)\n\t\treturn -EINVAL;~\t(void)fres_left;
num-fres-init-unchecked~\tif (h->num_fres > h->fre_len / 2)\n\t\treturn -EINVAL;~
num-fres-init-off-by-one~\tif (h->num_fres > h->fre_len / 2)~\tif (h->num_fres >= h->fre_len / 2)
num-fres-init-3-bytes~\tif (h->num_fres > h->fre_len / 2)~\tif (h->num_fres > h->fre_len / 3)
outermost-rejected~\tif (count > max_words || !off_size)~\tif (!count || count > max_words || !off_size)
outermost-flag-lost~\t\tframe->outermost = true;\n~
frame-not-cleared~\tmemset(frame, 0, sizeof(*frame));\n~
fatal-signal-ignored-fdes~\t\t\tchecked = b->fres;\n\t\t\tif (fatal_signal_pending(current))\n\t\t\t\treturn -EINTR;~\t\t\tchecked = b->fres;
fatal-signal-no-row-budget~\t\t    b->fres - checked >= SFRAME_VALIDATE_BATCH) {~\t\t    b->fres - checked == ~0ULL) {
fatal-signal-ignored-rows~\t\tif (i && !(i % SFRAME_VALIDATE_BATCH)) {\n\t\t\tif (fatal_signal_pending(current))\n\t\t\t\treturn -EINTR;~\t\tif (i && !(i % SFRAME_VALIDATE_BATCH)) {
table-pcmask-once~\t\tif (fde->func_size - off <= rep)\n\t\t\tbreak;~\t\tbreak;
table-pcmask-block-unbounded~\t\t\t\t      min(rep, fde->func_size - off));~\t\t\t\t      fde->func_size - off);
blocks-by-rows-only~	u32 room = max(DIV_ROUND_UP(rows, SFRAME_BLOCK_ROWS), b->nr_funcs);~	u32 room = DIV_ROUND_UP(rows, SFRAME_BLOCK_ROWS);
table-gap-row-dropped~\tif (b->nr_funcs && start > b->rows_end) {~\tif (0) {
table-trailing-row-dropped~\t\treturn sframe_row_add(b, b->rows_end, SFRAME_RULE_NONE);~\t\treturn 0;
table-no-rule-before-first-row~\t/* No rule until the first row: a row at @pc replaces this one. */\n\tret = sframe_row_add(b, pc, SFRAME_RULE_NONE);\n\tif (ret)\n\t\treturn ret;\n~
table-merge-any~\tif (b->nr_rows && b->rule[last] == rule)\n\t\treturn 0;~\tif (b->nr_rows && b->rule[last] != SFRAME_RULE_NONE)\n\t\treturn 0;
table-dedup-cfa-only~\t\tif (!memcmp(&b->rules[i], frame, sizeof(*frame))) {~\t\tif (!memcmp(&b->rules[i], frame, sizeof(frame->cfa_off))) {
table-row-past-function~\t\tif (fre.start >= limit)\n\t\t\tbreak;~\t\tif (fre.start > limit)\n\t\t\tbreak;
table-func-starts-lost~\tb->funcs[b->nr_funcs++] = start;~\tb->nr_funcs++;
table-text-size-span~\tr->text_size = min_t(u64, text_size, (u64)nr_blocks << block_shift);~\tr->text_size = text_size;
merge-second-first~\t\tif (ra != SFRAME_RULE_NONE)\n\t\t\tret = sframe_row_add_rule(m, pc, &a->rules[ra]);~\t\tif (ra != SFRAME_RULE_NONE && rb == SFRAME_RULE_NONE)\n\t\t\tret = sframe_row_add_rule(m, pc, &a->rules[ra]);
merge-second-funcs-all~\t\t\tif (!sframe_build_no_rule(a, f, f + 1))\n\t\t\t\tcontinue;\n~
no-rule-row-inside~\treturn n == b->nr_rows || b->pc[n] >= end;~\treturn n == b->nr_rows || b->pc[n] >= end - end + start;
lookup-search-lo-past~\t\t\t\tlo = mid;~\t\t\t\tlo = mid + 1;~h
lookup-scan-inclusive~\tfor (row = rows + lo; row->pc < at; row++)~\tfor (row = rows + lo; row->pc <= at; row++)~h
lookup-search-inclusive~\t\t\tif (rows[mid - 1].pc < at)~\t\t\tif (rows[mid - 1].pc <= at)~h
no-window-rows~#define SFRAME_WINDOW\t\t\t\tBIT(SFRAME_WINDOW_SHIFT)~#define SFRAME_WINDOW\t\t\t\tBIT(SFRAME_WINDOW_SHIFT + 16)~h
no-row-at-start~\tu16 idx = SFRAME_RULE_NONE;\n\tu64 w = 0;~\tu16 idx = SFRAME_RULE_NONE;\n\tu64 w = SFRAME_WINDOW;
block-past-window~\t\twhile ((last >> s) >= room && s < SFRAME_WINDOW_SHIFT)~\t\twhile ((last >> s) >= room)
lookup-search-skipped~\tif (unlikely(lo & SFRAME_BLOCK_SEARCH)) {~\tif (unlikely(lo & SFRAME_BLOCK_SEARCH & 0)) {~h
table-search-mark-lost~\t\t\tblocks[i] |= SFRAME_BLOCK_SEARCH;~\t\t\tblocks[i] |= 0;
table-usual-far-slots~\treturn off >= -SFRAME_SLOT_REACH &&\n\t       off <= SFRAME_SLOT_REACH - (s32)sizeof(unsigned long);~\treturn off || true;
lookup-none-ignored~\tif (idx == SFRAME_RULE_NONE)\n\t\treturn NULL;\n~~h
lookup-text-unbounded~\tif (off >= r->text_size)\n\t\treturn NULL;\n~~h
eh-overlap-accepted~\t\tif (fde_bytes > in->eh_size)~\t\tif (fde_bytes > (u64)in->eh_size << 32)~e
eh-no-check-in-fde~\t\tret = eh_check(ip);\n\t\tif (ret)\n\t\t\treturn ret;\n\t\tif (eh_u8(&c, &op))~\t\tif (eh_u8(&c, &op))~e
eh-index-unsorted~\tsort(table, n, sizeof(*table), eh_index_cmp, NULL);~\t(void)eh_index_cmp;~e
eh-index-keeps-outside~\t\t\tif (fde.range && fde.start >= in->text_start &&~\t\t\tif (fde.range &&~e
LIST
)

# Shared test programs, built once.
make -s -C "$HT" OUT="$SCRATCH/base" BIN="$BIN" "$SCRATCH/base/progs.list" >/dev/null || exit 2

killed=0 survived=0 na=0
while IFS='~' read -r name old new where; do
	[ -z "$name" ] && continue
	# MUTANTS_ONLY="name ...": only these
	case " ${MUTANTS_ONLY:-$name} " in *" $name "*) ;; *) continue ;; esac
	dir=$SCRATCH/m-$name
	mkdir -p "$dir"
	cp "$SRC" "$REPO/kernel/unwind/sframe.h" "$REPO/kernel/unwind/sframe_table.h" \
		"$REPO/kernel/unwind/eh_frame.c" "$REPO/kernel/unwind/eh_frame.h" "$dir/"
	target=$dir/sframe.c
	[ "$where" = h ] && target=$dir/sframe_table.h
	[ "$where" = e ] && target=$dir/eh_frame.c
	if ! python3 - "$target" "$old" "$new" <<'PY'
import sys
path, old, new = sys.argv[1:]
dec = lambda s: s.replace('\\n', '\n').replace('\\t', '\t')
old, new = dec(old), dec(new)
src = open(path).read()
if src.count(old) != 1:
    sys.exit(1)
open(path, 'w').write(src.replace(old, new))
PY
	then
		echo "mutant $name: not applicable (text not found once in ${target##*/})"
		na=$((na + 1))
		continue
	fi
	if [ "$where" = e ]; then
		make -s -C "$REPO/harness/ehtest" OUT="$dir/out" CONV="$dir/eh_frame.c" \
			CHECK_FUZZ_TIME="$FUZZ" check >"$dir/check.log" 2>&1
	else
		make -s -C "$HT" OUT="$dir/out" BIN="$BIN" DECODER="$dir/sframe.c" \
			CHECK_FUZZ_TIME="$FUZZ" check >"$dir/check.log" 2>&1
	fi
	rc=$?
	fails=$(grep -c '^not ok' "$dir/check.log")
	if [ "$rc" -ne 0 ] && [ "$fails" -eq 0 ]; then
		echo "mutant $name: BUILD FAILED, fix the mutant (log: $dir/check.log)"
		tail -n 5 "$dir/check.log" | sed 's/^/    /'
		na=$((na + 1))
	elif [ "$rc" -ne 0 ]; then
		killed=$((killed + 1))
		echo "mutant $name: KILLED ($fails failing tests, make exit $rc)"
		grep '^not ok' "$dir/check.log" | head -n 4 | sed 's/^/    /'
	else
		survived=$((survived + 1))
		echo "mutant $name: SURVIVED (log: $dir/check.log)"
	fi
done <<<"$MUTANTS"
echo "mutants: $killed killed, $survived survived, $na not applicable or not building (scratch: $SCRATCH)"
[ "$survived" -eq 0 ]
