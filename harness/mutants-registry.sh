#!/bin/bash
# Mutants of the SFrame registry (kernel/unwind/sframe_mm.c, its mm hooks)
# and of the unwinder loop (kernel/unwind/user.c), judged by the guest
# selftests: each mutant is built into an x86_64 guest kernel and the
# tests named for it must fail. Not part of `make check` (about 1-2 min of
# build and boot per mutant on 2 cores, more for a mutated header).
#
#   harness/mutants-registry.sh [NAME ...]     default: every mutant
#
# Needs the guest kernel (make kernel ARCH=x86_64) and the selftests built
# by make check (out/check/x86_64/share/selftests) or SELFTESTS=dir.
# Prints one TAP line per mutant: ok = killed.
set -euo pipefail
. "$(dirname "$0")/config.sh"

WT=$OUT/src/mutants
B=$OUT/build/mutants-x86_64
ST=${SELFTESTS:-$OUT/check/x86_64/share/selftests}
[ -f "$OUT/build/x86_64/.config" ] || die "no x86_64 guest kernel (make kernel ARCH=x86_64)"
[ -x "$ST/unwind_registry" ] || die "no selftests in $ST (make check ARCH=x86_64, or SELFTESTS=dir)"
# The perf test's program and its counter, beside the selftests; the
# safety tests' programs and crafted files (as harness/check.sh makes them).
gcc -O2 -fomit-frame-pointer -Wa,--gsframe -o "$ST/demo" "$TOP/harness/demo/demo.c" ||
	die "cannot build the demo program"
gcc -O2 -fomit-frame-pointer -o "$ST/demo-eh" "$TOP/harness/demo/demo.c" ||
	die "cannot build the demo program without SFrame"
cp "$TOP/harness/demo/chains.awk" "$ST/"
mkdir -p "$ST/safety"
gcc -O2 -Wall -o "$ST/safety/ehmap" "$TOP/harness/safety/ehmap.c" &&
	python3 "$TOP/harness/safety/mkelf.py" x86_64 "$ST/safety" >/dev/null ||
	die "cannot build the safety tests' files"

# name@file@python-literal old@python-literal new@tests that must fail
#
# Not mutated: the order of sframe_munmap()'s move to the next generation
# before sframe_put() (a walk that reads the old generation after the put
# may use a table freed under it: a window no test can hit), nor the move
# at its end for text without a registration (the vDSO unmapped and code
# mapped there: its lookup cached as the vDSO's). gen-never-bumps and
# cache-ignores-gen stand for them (unwind_registry's
# cached_lookup_unmapped).
#
# Not mutated: the innermost frame of code that keeps frame pointers taking
# the rule of its row rather than the frame pointer rule. Where the frame
# pointer rule is wrong there (a function's first instructions), the
# frame pointer is its caller's: in the tests' programs it points at no
# frame record above the stack pointer, so that the step fails and the
# general step takes the row's rule all the same. Nor the count of such
# tables per mm (mm->sframe_nr_fp): where every table of a process is one
# of them, perf's own frame pointer loop and the table walk give the same
# chains in the tests' programs, at different costs only.
#
# Not mutated: __GFP_NOFAIL on the erase in sframe_munmap(). It stores NULL
# over exactly the range of an entry, which the maple tree does in place,
# without allocating; unwind_registry's failslab sweep shows that no
# injected failure reaches it (without __GFP_NOFAIL: no failure, nothing
# observable). The flag keeps the code right should that ever change.
#
# Not mutated: unwind_user_apply()'s choice of the general rule
# (unwind_user_apply_rule()). On x86_64, the only arch this script builds,
# the rules it alone applies are a return address or frame pointer through
# a register (SFrame v3), which no x86 test builds: the usual path reads a
# CFA_DEREF rule right too, and the mutant survives unwind_v3. The rule it
# matters for is arm64's return address in the link register.
#
# Not mutated in the step for the usual SFrame frame (unwind_user_next()'s
# fast path): its refusal of a frame a signal interrupted. A lookup one
# byte early differs only at the first byte of a row: no test builds one,
# and such a mutant survives. Nor the bound of a section's hint to the
# text its table's rows describe (sframe_hint_set()): without it, an
# address in the section's range past its last row reads the block index
# past its end, but no test samples there (the text after a program's
# last function is crt and .fini code), and the mutant survives.
#
# The walk's section hint (hint-no-range, gap-hint-no-range), the table's
# marks of the rules the fast path may take (no-general-mark: KUnit), the fast
# path's restore of the frame pointer (fast-fp-not-restored), its check of
# the last return address of a run of steps (fast-last-ra-unchecked:
# unwind_hostile's ra_kernel) and the
# sharing of tables
# (no-shared-tables, tables-never-freed, shared-despite-change) and the
# tables kept after their last mapping (kept-not-reused, kept-not-shrunk,
# kept-list-not-allocated: a table built in a cgroup's task),
# the callee-saved register the walk follows (csr-not-followed) and the
# .eh_frame rows that fill an SFrame table's gaps (eh-fill-off) and the
# x86-64 vDSO's table (vdso-no-table) have
# their
# own mutants; the decoder's table building is judged by the host tests
# (harness/hosttest/mutants.sh).
MUTANTS=(
"munmap-exec-only@mm/vma.c@'\tsframe_munmap(mm, vms->start, vms->end);'@'\tif (vms->exec_vm)\n\t\tsframe_munmap(mm, vms->start, vms->end);'@unwind_registry"
"munmap-noop@kernel/unwind/sframe_mm.c@'if (start >= end || mtree_empty(&mm->sframe_mt))'@'if (1)'@unwind_registry"
"dup-dontfork@kernel/unwind/sframe_mm.c@'if (vma->vm_flags & VM_DONTCOPY)'@'if (0)'@unwind_registry"
"dup-no-ref@kernel/unwind/sframe_mm.c@'\t\tmas_for_each(&mas, sec, ULONG_MAX)\n\t\t\trefcount_inc(&sec->ref);'@'\t\tmas_for_each(&mas, sec, ULONG_MAX)\n\t\t\t;'@unwind_fork unwind_registry"
"no-merge@kernel/unwind/sframe_mm.c@'if (left && sframe_same(left, sec))'@'if (0)'@unwind_registry"
"free-in-rcu@kernel/unwind/sframe_mm.c@'\tmt_clear_in_rcu(&mm->sframe_mt);\n'@''@unwind_registry"
"base-of-mapped-segment@kernel/unwind/sframe_mm.c@'sec->base = bias + lo;'@'sec->base = bias + text->p_vaddr;'@unwind_registry"
"fp-after-eagain@kernel/unwind/user.c@'\t\treturn ret == -ENOENT ? -ENOENT : -EINVAL;'@'\t\treturn -ENOENT;'@unwind_fork unwind_discovery unwind_coldstart"
"no-uretprobe-translation@kernel/unwind/user.c@'\tra = unwind_user_uretprobe(state, ra);\n'@''@unwind_uretprobe"
"no-memcg-accounting@kernel/unwind/sframe_mm.c@'sec = kzalloc_obj(*sec, GFP_KERNEL_ACCOUNT);'@'sec = kzalloc_obj(*sec, GFP_KERNEL);'@unwind_registry"
"read-without-collector@kernel/unwind/sframe_mm.c@'if (!sframe_enabled() || (!atomic_read(&sframe_collectors) &&\n\t\t\t\t  !test_bit(SFRAME_MM_COLLECTED,\n\t\t\t\t\t    &mm->sframe_flags))) {'@'if (!sframe_enabled()) {'@unwind_discovery"
"read-with-access-event@kernel/unwind/sframe_mm.c@'\tif (pos < 0 || len > size || pos > size - len)\n\t\treturn -EIO;\n'@'\tif (pos < 0 || len > size || pos > size - len)\n\t\treturn -EIO;\n\t{ char c; loff_t p = pos; (void)kernel_read(file, &c, 1, &p); }\n'@unwind_discovery"
"no-on-demand-discovery@kernel/unwind/sframe_mm.c@'\t\tsframe_discover(curr->mm);'@'\t\t;'@unwind_discovery"
"no-shared-tables@kernel/unwind/sframe_mm.c@'\tvoid *data;\n\tint ret;\n\n\tt = sframe_shared_find(key);'@'\tvoid *data;\n\tint ret;\n\n\tt = NULL;'@unwind_discovery"
"tables-never-freed@kernel/unwind/sframe_mm.c@'if (!t || !refcount_dec_and_lock(&t->ref, &sframe_tables_lock))'@'if (1)'@unwind_discovery"
"shared-despite-change@kernel/unwind/sframe_mm.c@'\tkey->ctime_sec = st.ctime.tv_sec;\n\tkey->ctime_nsec = st.ctime.tv_nsec;\n\tif (st.result_mask & STATX_CHANGE_COOKIE)\n\t\tkey->cookie = st.change_cookie;\n'@''@unwind_discovery"
"read-words-fp-at-ra@kernel/unwind/user.c@'unsafe_get_user(*vb, (const unsigned long __user *)b, out_end);'@'unsafe_get_user(*vb, (const unsigned long __user *)a, out_end);'@unwind_nosframe unwind_dlopen"
"hint-no-range@kernel/unwind/sframe_table.h@'\tif (unlikely(ip - hint->start >= hint->size)) {\n'@'\tif (unlikely(!hint->size)) {\n'@unwind_pie_dso unwind_dlopen"
"fast-fp-not-restored@kernel/unwind/user.c@'\tif (frame->fp_saved)\n\t\tunsafe_get_user(next_fp,'@'\tif (0)\n\t\tunsafe_get_user(next_fp,'@unwind_basic"
"apply-equal-cfa@kernel/unwind/user.c@'\tif (cfa == state->sp && ((!first && !state->signal) || ra_on_stack))'@'\tif (0)'@unwind_hostile"
"fast-no-range@kernel/unwind/user.c@'\tif (*pc - h->start >= h->size)\n\t\treturn false;\n'@''@unwind_nosframe unwind_dlopen"
"fast-last-ra-unchecked@kernel/unwind/user.c@'\tif (!unwind_user_ra_ok(e[-1])) {'@'\tif (0) {'@unwind_hostile"
"no-general-mark@kernel/unwind/sframe.c@'\t\t\trule[i] |= SFRAME_RULE_GENERAL;'@'\t\t\t;'@unwind_v3"
"gap-hint-no-range@kernel/unwind/sframe_mm.c@'\t\tsframe_hint_set(hint, NULL, 0, first, last, -ENOENT);\n'@'\t\tsframe_hint_set(hint, NULL, 0, first, last, -ENOENT);\n\t\thint->size = ULONG_MAX;\n'@unwind_signal"
"eh-frame-never@kernel/unwind/sframe_mm.c@'\tif (!sframe_eh_frame_enabled()) {\n\t\thave_eh = false;'@'\tif (1) {\n\t\thave_eh = false;'@unwind_eh_frame"
"static-no-eh-frame@kernel/unwind/sframe_mm.c@'\t\thave_eh = !sframe_eh_section(file, &ehdr, &src);'@'\t\thave_eh = !sframe_eh_section(file, &ehdr, &src) && 0;'@unwind_static"
"eh-frame-no-bias@kernel/unwind/sframe_mm.c@'\t       sframe_build_func(p->b, start - p->lo, end - p->lo);'@'\t       sframe_build_func(p->b, start, end);'@unwind_eh_frame"
"eh-room-fixed@kernel/unwind/sframe_mm.c@'\tif (b->asked + 2 <= b->max_rows)\n\t\treturn 0;'@'\treturn 0;'@unwind_eh_frame"
"csr-table-unmarked@kernel/unwind/sframe.c@'\t\tr->csr |= rules[i].csr != UNWIND_USER_CSR_LOST;'@'\t\t;'@unwind_eh_frame"
"perf-leaf-lost@kernel/events/callchain.c@'\tif (perf_callchain_store(entry, state.ip) ||\n'@'\tif (\n'@unwind_basic"
"defer-innermost-only@kernel/unwind/user.c@'\ttrace->nr += unwind_user_entries(&state, trace->entries + 1,\n\t\t\t\t\t max_entries - 1);'@'\t;'@perf-defer"
"kept-not-reused@kernel/unwind/sframe_mm.c@'\t\tif (!memcmp(&t->key, key, sizeof(*key))) {\n\t\t\tsframe_shared_get_locked(t);'@'\t\tif (!memcmp(&t->key, key, sizeof(*key)) && refcount_read(&t->ref)) {\n\t\t\tsframe_shared_get_locked(t);'@unwind_registry"
"kept-not-shrunk@kernel/unwind/sframe_mm.c@'\treturn list_lru_shrink_walk(&sframe_kept, sc, sframe_kept_isolate,\n\t\t\t\t    NULL);'@'\treturn 0;'@unwind_registry"
"csr-not-followed@kernel/unwind/user.c@'\telse if (frame->csr == UNWIND_USER_CSR_SAVED)'@'\telse if (0)'@unwind_eh_frame"
"gen-never-bumps@kernel/unwind/sframe_mm.c@'\tsmp_store_release(&mm->sframe_gen, gen);'@'\t(void)gen;'@unwind_registry"
"start-hint-not-emptied@kernel/unwind/user.c@'\tstate->hint.size = 0;\n'@''@unwind_basic"
"cache-copy-no-base@kernel/unwind/sframe_mm.c@'\thint->base = c->hint.base;\n'@''@unwind_basic"
"cache-ignores-gen@kernel/unwind/sframe_mm.c@'\tif (c->gen != gen || ip - c->hint.start >= c->hint.size)'@'\tif (ip - c->hint.start >= c->hint.size)'@unwind_registry"
"eh-fill-off@kernel/unwind/sframe_mm.c@'\tif (!ret && eh && sframe_eh_fill(eh, &b) == -EINTR)'@'\tif (0)'@unwind_eh_frame"
"kept-list-not-allocated@kernel/unwind/sframe_mm.c@'\tt = kmem_cache_alloc_lru(sframe_shared_cache, &sframe_kept,\n\t\t\t\t GFP_KERNEL_ACCOUNT);'@'\tt = kmem_cache_alloc(sframe_shared_cache, GFP_KERNEL_ACCOUNT);'@unwind_registry"
"vdso-no-table@kernel/unwind/sframe_mm.c@'\t\tif (r) {\n\t\t\tsframe_hint_set(hint, r, base, first, last, -ENOENT);\n\t\t\treturn 0;\n\t\t}\n'@''@unwind_eh_frame"
"defer-without-tables@kernel/unwind/user.c@'\tif (state->ws == sizeof(long) && unwind_user_has_sframe()) {'@'\tif (0) {'@perf-defer"
"gate-global@kernel/events/core.c@'\t\t\tif (task && !perfmon_capable()) {'@'\t\t\tif (0) {'@safety-f3"
"read-overlay-file@kernel/unwind/sframe_mm.c@'\t       get_file(vma->vm_file) : NULL;\n\tmmap_read_unlock(mm);\n\tif (!file)\n\t\treturn;\n\tsframe_register'@'\t       get_file(file) : NULL;\n\tmmap_read_unlock(mm);\n\tif (!file)\n\t\treturn;\n\tsframe_register'@safety-f2"
"no-row-cap@kernel/unwind/sframe_mm.c@'\tif (max_rows > SFRAME_MAX_ROWS || max_funcs > SFRAME_MAX_ROWS)\n\t\treturn -E2BIG;\n'@''@safety-f4"
"eh-fp-never@kernel/unwind/sframe_mm.c@'\tif (!ret && !base && b->nr_funcs && !pass.not_fp) {'@'\tif (0) {'@unwind_registry"
"eh-fp-any-rule@kernel/unwind/sframe_mm.c@'\tif (!frame || !sframe_eh_fp_kept(frame))\n\t\tp->not_fp = true;'@'\tif (!frame)\n\t\tp->not_fp = true;'@unwind_registry"
"eh-fp-sp-unbounded@kernel/unwind/sframe_mm.c@'\treturn f->cfa_off > 0 && f->cfa_off <= 3 * (s32)sizeof(long);'@'\treturn f->cfa_off > 0;'@unwind_registry"
"fp-innermost-lost@kernel/unwind/user.c@'\t\te += state->topmost;'@'\t\t;'@unwind_dlopen unwind_eh_frame"
"ftrace-no-collector@kernel/trace/trace.c@'\t\tif (enabled)\n\t\t\tsframe_collector_get();\n\t\telse\n\t\t\tsframe_collector_put();'@'\t\t;'@unwind_consumers"
)

if [ ! -e "$WT/.git" ]; then
	git -C "$SRC" worktree prune
	git -C "$SRC" worktree add -q --detach "$WT" HEAD
fi
git -C "$WT" checkout -q -f --detach "$(git -C "$SRC" rev-parse HEAD)"
mkdir -p "$B"
cp "$OUT/build/x86_64/.config" "$B/.config"
KMAKE=(make -C "$WT" O="$B" ARCH=x86_64 -j"$JOBS")
command -v ccache >/dev/null && KMAKE+=(CC="ccache gcc")
note "building the unmutated kernel in $B"
"${KMAKE[@]}" olddefconfig bzImage >"$B/build.log" 2>&1 || die "build failed ($B/build.log)"

# guest_tests "TESTS" LOG: run the selftests TESTS in a guest on the kernel
# in $B; non-zero if any failed, if the KUnit suite that ran at boot failed
# (its lines in the kernel log), or if the guest did not finish.
# A test named perf-MODE is the perf test of make check in that mode
# (harness/guest/perf-demo.sh on the SFrame demo): it fails unless 99.5% of
# the samples whose leaf is c show c <- b <- a <- main. One named
# safety-fN is check FN of the safety tests (harness/guest/safety.sh, run
# once for all of them, judged by harness/safety/judge.sh): it fails if a
# line of that check is "not ok".
guest_tests() {
	local cmd="cd /host; rc=0; for t in $1; do case \$t in safety-*) [ -f /tmp/safety.done ] || sh /harness/safety.sh /host >/dev/null 2>&1; touch /tmp/safety.done; continue ;; perf-*) m=\${t#perf-}; sh /harness/perf-demo.sh ./demo /tmp/perf \$m 2 1000 >/dev/null 2>&1; awk -f ./chains.awk -v comm=demo -v chain=c,b,a,main /tmp/perf/script-\$m.txt >/tmp/\$t.out; cat /tmp/\$t.out; awk -F= '\$1==\"leaf\"{l=\$2} \$1==\"full\"{f=\$2} END{exit !(l >= 100 && f * 1000 >= 995 * l)}' /tmp/\$t.out || { echo \"\$t failed\"; rc=1; }; continue ;; esac; [ -x ./\$t ] || { echo missing \$t; exit 3; }; timeout 300 ./\$t >/tmp/\$t.out 2>&1 || { echo \"\$t failed\"; grep -E '^not ok|FAIL ' /tmp/\$t.out | head -5; rc=1; }; done; exit \$rc"
	local rc=0 dmesg
	KERNEL=$B/arch/x86/boot/bzImage timeout 1200 "$TOP/harness/qemu-run.sh" x86_64 "$ST" "$cmd" >"$2" 2>&1 || rc=$?
	dmesg=$(sed -n 's/.*kernel log: \(.*dmesg\.txt\)).*/\1/p' "$2" | tail -1)
	if [ -n "$dmesg" ] && grep -qE '^ *not ok [0-9]+ sframe' "$dmesg"; then
		echo "KUnit failed: $(grep -E '^ *not ok [0-9]+ sframe_test' "$dmesg" | head -1 | sed 's/^ *//')" >>"$2"
		rc=1
	fi
	local t n
	for t in $1; do
		case $t in safety-f[1-4]) ;; *) continue ;; esac
		n=$(echo "${t#safety-}" | tr f F)
		"$TOP/harness/safety/judge.sh" x86_64 "$ST" >"$2.$t" 2>&1
		if grep -q "^not ok - x86_64: safety: $n " "$2.$t" ||
		   ! grep -q "^ok - x86_64: safety: $n " "$2.$t"; then
			echo "$t failed: $(grep -m1 "^not ok - x86_64: safety: $n " "$2.$t" | cut -c1-160)" >>"$2"
			rc=1
		fi
	done
	rm -rf "$ST/safety/figures"
	return $rc
}

# The tests must pass on the unmutated kernel, or no kill means anything.
all_tests=$(for m in "${MUTANTS[@]}"; do echo "${m##*@}"; done | tr ' ' '\n' | sort -u | tr '\n' ' ')
note "baseline: $all_tests on the unmutated kernel"
guest_tests "$all_tests" "$B/run-baseline.log" ||
	die "the tests fail on the unmutated kernel ($B/run-baseline.log)"

want=("$@")
n=0 killed=0
echo "TAP version 13"
for m in "${MUTANTS[@]}"; do
	IFS='@' read -r name file old new tests <<<"$m"
	if [ ${#want[@]} -gt 0 ] && ! printf '%s\n' "${want[@]}" | grep -qx "$name"; then
		continue
	fi
	n=$((n + 1))
	git -C "$WT" checkout -q -f -- .
	if ! python3 - "$WT/$file" "$old" "$new" <<'PY'
import ast, sys
path, old, new = sys.argv[1], ast.literal_eval(sys.argv[2]), ast.literal_eval(sys.argv[3])
s = open(path).read()
if s.count(old) != 1:
    sys.exit("mutation site found %d times" % s.count(old))
open(path, 'w').write(s.replace(old, new))
PY
	then
		echo "not ok $n $name # mutation site not found in $file"
		continue
	fi
	if ! "${KMAKE[@]}" bzImage >"$B/build-$name.log" 2>&1; then
		echo "not ok $n $name # does not build ($B/build-$name.log)"
		continue
	fi
	rc=0
	guest_tests "$tests" "$B/run-$name.log" || rc=$?
	if [ "$rc" != 0 ]; then
		killed=$((killed + 1))
		echo "ok $n $name # killed by $(grep -E 'failed|panic|stopped' "$B/run-$name.log" | head -1)"
	else
		echo "not ok $n $name # survived $tests"
	fi
done
git -C "$WT" checkout -q -f -- .
echo "1..$n"
echo "# $killed of $n mutants killed"
[ "$killed" = "$n" ]
