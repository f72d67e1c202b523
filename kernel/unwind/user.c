// SPDX-License-Identifier: GPL-2.0
/*
 * Generic user space stack unwinder.
 *
 * Walks a user stack frame by frame, following the frame pointer. It runs
 * in the context of the sampled task, possibly in IRQ or NMI context: it
 * never sleeps, never takes mmap_lock and reads user memory only through
 * the non-faulting user access helpers.
 *
 * A frame that the task's SFrame data describes is unwound with the rule
 * SFrame gives for its instruction pointer instead.
 */
#include <linux/sched.h>
#include <linux/security.h>
#include <linux/sysctl.h>
#include <linux/uaccess.h>
#include <linux/uprobes.h>
#include <linux/unwind_user.h>

#include <asm/ptrace.h>
#include <asm/tlb.h>
#include <asm/unwind_user.h>

#include "sframe_table.h"

static const struct unwind_user_frame fp_frame = ARCH_INIT_USER_FP_FRAME;
static const struct unwind_user_frame entry_frame =
	ARCH_INIT_USER_FP_ENTRY_FRAME;

/*
 * Read the word at user address @a into *@va and, if @read_b, the word at
 * @b into *@vb, without faulting: in one user access window, with page
 * faults disabled by the caller. A walk reads one or two words per frame,
 * which costs a fraction of a copy_from_user_nofault() per word.
 */
static __always_inline int
__unwind_user_get_words(unsigned long a, unsigned long *va,
			unsigned long b, unsigned long *vb, bool read_b)
{
	if (read_b && !access_ok((const void __user *)b, sizeof(*vb)))
		return -EFAULT;
	if (!user_read_access_begin((const void __user *)a, sizeof(*va)))
		return -EFAULT;
	unsafe_get_user(*va, (const unsigned long __user *)a, out_end);
	if (read_b)
		unsafe_get_user(*vb, (const unsigned long __user *)b, out_end);
	user_read_access_end();
	return 0;
out_end:
	user_read_access_end();
	return -EFAULT;
}

/*
 * __unwind_user_get_words() with page faults disabled around it, the word
 * at @b read if @vb is not NULL.
 */
static int unwind_user_read_words(unsigned long a, unsigned long *va,
				  unsigned long b, unsigned long *vb)
{
	int ret;

	pagefault_disable();
	ret = __unwind_user_get_words(a, va, b, vb, vb);
	pagefault_enable();
	return ret;
}

static int unwind_user_read(unsigned long addr, unsigned long *val)
{
	return unwind_user_read_words(addr, val, 0, NULL);
}

#ifdef CONFIG_USERSPACE_UNWINDER_SFRAME

static int sysctl_unwind_user_sframe __read_mostly = 1;
static int sysctl_unwind_user_recover __read_mostly;
static int sysctl_unwind_user_eh_frame __read_mostly = 1;

static struct ctl_table unwind_user_sysctls[] = {
	{
		.procname	= "unwind_user_sframe",
		.data		= &sysctl_unwind_user_sframe,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
	{
		.procname	= "unwind_user_recover",
		.data		= &sysctl_unwind_user_recover,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
#ifdef CONFIG_UNWIND_USER_EH_FRAME
	{
		.procname	= "unwind_user_eh_frame",
		.data		= &sysctl_unwind_user_eh_frame,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
#endif
};

static int __init unwind_user_sysctl_init(void)
{
	register_sysctl_init("kernel", unwind_user_sysctls);
	return 0;
}
late_initcall(unwind_user_sysctl_init);

/**
 * sframe_enabled() - may user stacks be unwound with SFrame data?
 *
 * The value of sysctl kernel.unwind_user_sframe. While it is 0, no SFrame
 * data is used, and none is looked for in files mapped meanwhile.
 *
 * Return: true if SFrame unwinding is enabled.
 */
bool sframe_enabled(void)
{
	return READ_ONCE(sysctl_unwind_user_sframe);
}

/**
 * sframe_eh_frame_enabled() - may files without SFrame data get a table
 * converted from their .eh_frame?
 *
 * The value of sysctl kernel.unwind_user_eh_frame. While it is 0, files
 * mapped meanwhile are not converted.
 *
 * Return: true if .eh_frame is converted.
 */
bool sframe_eh_frame_enabled(void)
{
	return IS_ENABLED(CONFIG_UNWIND_USER_EH_FRAME) &&
	       READ_ONCE(sysctl_unwind_user_eh_frame);
}

static int unwind_user_find(struct unwind_user_state *state, unsigned long ip,
			    const struct unwind_user_frame **frame)
{
	return sframe_find_user(ip, frame, &state->hint);
}

static int unwind_user_func_start(struct unwind_user_state *state,
				  unsigned long ip, unsigned long *start)
{
	return sframe_func_start_user(ip, start);
}

static int unwind_user_sframe(struct unwind_user_state *state,
			      unsigned long ip,
			      const struct unwind_user_frame **frame)
{
	if (!state->sframe)
		return -ENOENT;
	return unwind_user_find(state, ip, frame);
}

/*
 * Recovery of the callers of frames that SFrame does not describe.
 *
 * Code without SFrame data (a C library built without it, hand-written
 * assembly) has no reliable frame pointer in a program built without them
 * either. Where the caller of such a frame is text with SFrame data, its
 * return address is somewhere above the stack pointer: in the link
 * register or at the stack pointer while the code has not touched the
 * stack (a leaf), in a frame record if the code keeps them, else further
 * up. Candidates are tried in that order, the stack scanned last (a
 * bounded number of words), and one is accepted only if it validates: it
 * follows a call instruction; in SFrame text it has a function descriptor
 * and its frame leads on to another return address that follows a call
 * instruction (or is the outermost frame); in frame pointer text the next
 * record is above it and holds a call site too. When nothing validates,
 * the walk ends at the uncovered frame.
 *
 * The scan skips the frames between the uncovered one and the recovered
 * caller that have no SFrame data. It must not take a stale return
 * address, left in an uninitialised part of a live frame by a call that
 * has returned, for a live one: the chain of such dead frames leads on
 * like a live one and merges into it. So a scanned candidate must also fit
 * the calls around it: its own call, if direct, went into code without
 * SFrame data (the frames skipped); its caller's call, if direct, went to
 * the candidate's function; and no other candidate below the caller's
 * frame leads to that same frame. Where the caller's stack pointer has to
 * be guessed (arm64), each guess must fit its caller's call the same way.
 */

/* Words scanned for the caller of one frame, and in one walk at most. */
#define UNWIND_USER_SCAN_WORDS		256
#define UNWIND_USER_SCAN_BUDGET		1024

/*
 * Candidate evaluations of one walk at most: a return address found in
 * SFrame text (in the link register, a frame record or a scanned word),
 * or one guess of its caller's stack pointer. An evaluation reads at most
 * UNWIND_USER_FP_CHECK + 4 stack words and makes as many SFrame lookups,
 * so with UNWIND_USER_SCAN_BUDGET words scanned (one text check each) the
 * recovery's work per walk is bounded by a constant, whatever the stack
 * holds.
 */
#define UNWIND_USER_RECOVER_EVALS	256

static bool unwind_user_eval(struct unwind_user_state *state)
{
	if (state->evals >= UNWIND_USER_RECOVER_EVALS)
		return false;
	state->evals++;
	return true;
}

/* Bytes above a saved return address searched for the caller's CFA. */
#define UNWIND_USER_SP_SEARCH		(64 * sizeof(long))

/*
 * Recover the callers of uncovered frames? Only while sysctl
 * kernel.unwind_user_recover and SFrame unwinding itself are enabled, and
 * for a task with SFrame data: others keep their frame pointer walk.
 */
static bool unwind_user_recover_enabled(struct unwind_user_state *state)
{
	return state->sframe && READ_ONCE(sysctl_unwind_user_recover);
}

/*
 * Does the SFrame rule @frame of a function, with its stack pointer at @sp
 * and its frame pointer @fp, lead to a caller whose return address follows
 * a call instruction (and is not @not_ra: where the stack pointer is
 * guessed, a guess too low reads the callee's copy of the same address)?
 * *@cfap is the frame's CFA (0 if outermost), *@nextp that return address.
 */
static bool unwind_user_frame_leads_on(const struct unwind_user_frame *frame,
				       unsigned long sp, unsigned long fp,
				       unsigned long not_ra, unsigned long *cfap,
				       unsigned long *nextp)
{
	unsigned long cfa, next;

	*cfap = 0;
	*nextp = 0;
	if (frame->outermost)
		return true;
	/*
	 * It made a call: its own return address is saved. The rules of
	 * SFrame v3 flexible rows are not tried on guessed registers.
	 */
	if (!frame->ra_saved || frame->flags)
		return false;
	cfa = (frame->use_fp ? fp : sp) + frame->cfa_off;
	if (cfa <= sp || unwind_user_read(cfa + frame->ra_off, &next))
		return false;
	*cfap = cfa;
	if (frame->ra_signed)
		next = arch_unwind_user_strip_ra(next);
	*nextp = next;
	return next && next != not_ra &&
	       access_ok((const void __user *)next, 1) &&
	       arch_unwind_user_after_call(next);
}

/*
 * The call before @next, if direct, went to the function @ra is in (a call
 * through a PLT entry: to where the entry's GOT slot points). Used where a
 * frame was guessed: a tail call in between fails a live frame too, and
 * the walk then ends there.
 */
static bool unwind_user_caller_fits(struct unwind_user_state *state,
				    unsigned long ra, unsigned long next)
{
	unsigned long target, start;

	if (!next || !arch_unwind_user_call_target(next, &target))
		return true;
	return !unwind_user_func_start(state, ra - 1, &start) &&
	       start == target;
}

/*
 * A scanned candidate @ra fits the calls around it: its own call went into
 * the frames the scan skips, which have no SFrame data, so a direct call
 * to a function that has some does not fit (a stale return address of a
 * call that returned), unless through a PLT entry not bound yet (the
 * skipped frames are the dynamic linker's); and its caller's call, at
 * @next, fits.
 */
static bool unwind_user_calls_fit(struct unwind_user_state *state,
				  unsigned long ra, unsigned long next)
{
	unsigned long target, start;

	if (arch_unwind_user_call_target(ra, &target) &&
	    sframe_text_user(target) && !arch_unwind_user_lazy_stub(target) &&
	    !unwind_user_func_start(state, target, &start))
		return false;
	return unwind_user_caller_fits(state, ra, next);
}

/*
 * Does the rule of @next, a return address into SFrame text, lead on from
 * the CFA @cfa of its callee @frame, whose frame pointer was @fp?
 */
static bool unwind_user_next_leads_on(struct unwind_user_state *state,
				      const struct unwind_user_frame *frame,
				      unsigned long cfa, unsigned long fp,
				      unsigned long next)
{
	const struct unwind_user_frame *up;
	unsigned long ucfa, unext;

	if (frame->fp_saved && unwind_user_read(cfa + frame->fp_off, &fp))
		return false;
	return !unwind_user_find(state, next - 1, &up) &&
	       unwind_user_frame_leads_on(up, cfa, fp, 0, &ucfa, &unext);
}

/*
 * A guessed stack pointer gave @frame the CFA @cfa and the return address
 * @next: one more step must work out. Into SFrame text, @next's own rule
 * must lead on from @cfa; elsewhere, if @frame restores the frame pointer,
 * that must point at a record above @cfa that holds a call site. If it
 * does not, nothing can be checked: a guess for a @scanned return address
 * is then refused.
 */
static bool unwind_user_guess_leads_on(struct unwind_user_state *state,
				       const struct unwind_user_frame *frame,
				       unsigned long cfa, unsigned long fp,
				       unsigned long next, bool scanned)
{
	unsigned long unext;

	if (!cfa)
		return true;
	if (sframe_text_user(next))
		return unwind_user_next_leads_on(state, frame, cfa, fp, next);
	if (!frame->fp_saved)
		return !scanned;
	if (unwind_user_read(cfa + frame->fp_off, &fp) || fp < cfa ||
	    unwind_user_read(fp + fp_frame.cfa_off + fp_frame.ra_off, &unext))
		return false;
	if (fp_frame.ra_signed)
		unext = arch_unwind_user_strip_ra(unext);
	return unext && access_ok((const void __user *)unext, 1) &&
	       arch_unwind_user_after_call(unext);
}

/* Frames followed to check a frame pointer candidate, at most. */
#define UNWIND_USER_FP_CHECK		8

/*
 * Is @slot where one of the frames above a frame whose CFA is @cfa, and
 * which returns to @next, keeps its return address (UNWIND_USER_FP_CHECK
 * frames at most, as far as their rules depend on the stack pointer
 * alone)? A guess of a stack pointer too far up can read the return
 * address of such a live frame further up, and seem to lead on too.
 */
static bool unwind_user_slot_above(struct unwind_user_state *state,
				   unsigned long cfa, unsigned long next,
				   unsigned long slot)
{
	const struct unwind_user_frame *up;
	unsigned int i;

	for (i = 0; i < UNWIND_USER_FP_CHECK && cfa && next; i++) {
		if (!sframe_text_user(next) ||
		    unwind_user_find(state, next - 1, &up) ||
		    up->outermost || !up->ra_saved || up->use_fp || up->flags)
			return false;
		cfa += up->cfa_off;
		if (cfa + up->ra_off == slot)
			return true;
		if (unwind_user_read(cfa + up->ra_off, &next))
			return false;
		if (up->ra_signed)
			next = arch_unwind_user_strip_ra(next);
	}
	return false;
}

/*
 * Is @ra, read from @slot (0: from the link register), the return address
 * of a call from SFrame text, whose frame pointer then was @fp? On success
 * *@caller_sp is the caller's stack pointer: above @slot on architectures
 * whose call instruction pushes the return address; else found by trying
 * the caller's rule at each aligned stack pointer above @slot (a guess
 * that must fit the caller's call and lead on one more step, and be the
 * only one that leads where it leads), or @state's if @ra was in the link
 * register. A @scanned return address may be a stale one, in a dead part
 * of the stack, and the caller's real stack pointer then beyond the
 * guesses: each guess must be checked by its next step. *@caller_cfa is
 * the caller's own CFA (0 for an outermost caller), *@next the return
 * address its frame holds.
 */
static bool unwind_user_sframe_caller(struct unwind_user_state *state,
				      unsigned long ra, unsigned long slot,
				      unsigned long fp, bool scanned,
				      unsigned long *caller_sp,
				      unsigned long *caller_cfa,
				      unsigned long *next)
{
	const struct unwind_user_frame *frame;
	unsigned long sp, end, cfa, cnext;
	bool found = false;

	if (!ra || !sframe_text_user(ra) || !unwind_user_eval(state) ||
	    !arch_unwind_user_after_call(ra) ||
	    unwind_user_find(state, ra - 1, &frame))
		return false;

	if (slot && ARCH_UNWIND_USER_CALL_PUSHES_RA) {
		sp = slot + sizeof(long);
		if (!unwind_user_frame_leads_on(frame, sp, fp, 0,
						caller_cfa, next))
			return false;
		/*
		 * A stale return address (found by the scan, or through a
		 * frame pointer that is a general register) has a stale
		 * frame above it, which seldom leads on twice: into SFrame
		 * text, the caller's rule must lead on too.
		 */
		if (*caller_cfa && sframe_text_user(*next) &&
		    !unwind_user_next_leads_on(state, frame, *caller_cfa, fp,
					       *next))
			return false;
		*caller_sp = sp;
		return true;
	}
	if (!slot) {
		sp = state->sp;
		if (!unwind_user_frame_leads_on(frame, sp, fp, ra,
						caller_cfa, next))
			return false;
		*caller_sp = sp;
		return true;
	}

	/*
	 * Every guess is tried: a stale return address in the frames above
	 * can make a wrong one work out too, and two guesses that lead to
	 * different callers leave the caller unknown; unless the higher one
	 * only read the return address of a frame the lower one leads to.
	 */
	end = slot + UNWIND_USER_SP_SEARCH;
	for (sp = ALIGN(slot + sizeof(long), ARCH_UNWIND_USER_SP_ALIGN);
	     sp < end; sp += ARCH_UNWIND_USER_SP_ALIGN) {
		if (!unwind_user_eval(state))
			return false;
		if (unwind_user_frame_leads_on(frame, sp, fp, ra, &cfa,
					       &cnext) &&
		    unwind_user_caller_fits(state, ra, cnext) &&
		    unwind_user_guess_leads_on(state, frame, cfa, fp,
					       cnext, scanned)) {
			if (found && (cfa != *caller_cfa || cnext != *next) &&
			    !unwind_user_slot_above(state, *caller_cfa, *next,
						    cfa + frame->ra_off))
				return false;
			if (!found) {
				*caller_sp = sp;
				*caller_cfa = cfa;
				*next = cnext;
				found = true;
			}
		}
		/* The rule does not depend on the stack pointer. */
		if (frame->use_fp || frame->outermost)
			break;
	}
	return found;
}

/*
 * A frame record in text without SFrame data, in a task that has some: the
 * code may keep frame records, or use the frame pointer as a general
 * register (x86 C libraries), where what it points at can look like a
 * record. The records from @fp on must each be above the one before and
 * hold a call site, and within UNWIND_USER_FP_CHECK of them one must
 * return into SFrame text: the chain leads back to the code that has
 * SFrame data, as the chain of code it called does.
 */
static bool unwind_user_fp_chain_ok(unsigned long cfa, unsigned long fp)
{
	unsigned long ra;
	unsigned int i;

	for (i = 0; i < UNWIND_USER_FP_CHECK; i++) {
		if (fp < cfa ||
		    unwind_user_read(fp + fp_frame.cfa_off + fp_frame.ra_off,
				     &ra))
			return false;
		if (fp_frame.ra_signed)
			ra = arch_unwind_user_strip_ra(ra);
		if (!ra || !access_ok((const void __user *)ra, 1) ||
		    !arch_unwind_user_after_call(ra))
			return false;
		if (sframe_text_user(ra))
			return true;
		cfa = fp + fp_frame.cfa_off;
		if (unwind_user_read(fp + fp_frame.cfa_off + fp_frame.fp_off,
				     &fp))
			return false;
	}
	return false;
}

/*
 * The frame record the frame pointer points at, if it is above the stack
 * pointer and its return address follows a call instruction (and, into
 * SFrame text, leads on).
 */
static bool unwind_user_fp_caller(struct unwind_user_state *state,
				  unsigned long *ra, unsigned long *sp,
				  unsigned long *fp)
{
	unsigned long cfa = state->fp + fp_frame.cfa_off, next_ra;

	if (state->fp < state->sp || cfa <= state->sp ||
	    unwind_user_read_words(cfa + fp_frame.ra_off, ra,
				   cfa + fp_frame.fp_off, fp))
		return false;
	if (fp_frame.ra_signed)
		*ra = arch_unwind_user_strip_ra(*ra);
	if (!*ra || !access_ok((const void __user *)*ra, 1) ||
	    !arch_unwind_user_after_call(*ra))
		return false;
	/*
	 * Into SFrame text: the caller's stack pointer and rule as for any
	 * saved return address (on arm64 the record is at the bottom of the
	 * callee's frame, not at the caller's stack pointer).
	 */
	if (sframe_text_user(*ra))
		return unwind_user_sframe_caller(state, *ra,
						 cfa + fp_frame.ra_off, *fp,
						 false, sp, &cfa, &next_ra);
	*sp = cfa;
	return unwind_user_fp_chain_ok(cfa, *fp);
}

/*
 * Scan the stack from @addr for a return address into SFrame text, at most
 * @n words (and what is left of the walk's budget). A stale return address
 * in a dead part of a live frame (an uninitialised buffer of the code
 * without SFrame) names a call that has returned, and its frame, stale
 * too, often leads on into the live frames above. The first candidate is
 * taken only if nothing contradicts it: the words up to the frame it
 * leads to are scanned too, and another return address that leads on from
 * inside that frame (other than its caller's) makes the caller unknown;
 * so does a frame below it that leads on over its slot but does not fit
 * its calls (a live frame of a tail call, or a stale one: one of the two
 * is wrong).
 */
static bool unwind_user_scan(struct unwind_user_state *state,
			     unsigned long addr, unsigned int n,
			     unsigned long *ra, unsigned long *sp)
{
	unsigned long words[8], cand, csp, cfa, next, found_cfa = 0;
	unsigned long found_next = 0, over_cfa = 0, over_next = 0;
	bool found = false;
	unsigned int i, nr;

	for (;;) {
		if (found)
			n = UNWIND_USER_SCAN_BUDGET;
		n = min(n, UNWIND_USER_SCAN_BUDGET - state->scanned);
		if (!n)
			return false;
		nr = min_t(unsigned int, n, ARRAY_SIZE(words));
		if (copy_from_user_nofault(words, (const void __user *)addr,
					   nr * sizeof(long)))
			return false;
		state->scanned += nr;
		n -= nr;
		for (i = 0; i < nr; i++, addr += sizeof(long)) {
			/* Past the frame the candidate leads to: take it. */
			if (found && addr >= found_cfa)
				return true;
			cand = arch_unwind_user_strip_ra(words[i]);
			if (!unwind_user_sframe_caller(state, cand, addr,
						       state->fp, true, &csp,
						       &cfa, &next))
				continue;
			if (found) {
				if (cand != *ra && cand != found_next)
					return false;
				continue;
			}
			if (!unwind_user_calls_fit(state, cand, next)) {
				if (cfa > over_cfa) {
					over_cfa = cfa;
					over_next = next;
				}
				continue;
			}
			if (addr < over_cfa && cand != over_next)
				return false;
			*ra = cand;
			*sp = csp;
			/* An outermost caller leads nowhere to compare. */
			if (!cfa)
				return true;
			found = true;
			found_cfa = cfa;
			found_next = next;
		}
	}
}

/*
 * Find the caller of @state's frame, which SFrame does not describe, and
 * move @state to it. Return: true if a caller validated.
 */
static bool unwind_user_recover(struct unwind_user_state *state)
{
	unsigned long ra, sp, fp, cfa, next, slot = 0;

	/* A leaf: the return address is where the call left it. */
	if (!state->depth) {
		if (!arch_unwind_user_link_register(state->regs, &ra)) {
			slot = state->sp;
			if (unwind_user_read(slot, &ra))
				return false;
		}
		ra = arch_unwind_user_strip_ra(ra);
		if (unwind_user_sframe_caller(state, ra, slot, state->fp,
					      false, &sp, &cfa, &next))
			goto found;
	}

	fp = state->fp;
	if (unwind_user_fp_caller(state, &ra, &sp, &fp)) {
		state->fp = fp;
		goto found;
	}

	if (!unwind_user_scan(state, state->sp, UNWIND_USER_SCAN_WORDS,
			      &ra, &sp))
		return false;

found:
	if (sp < state->sp || (sp == state->sp && state->depth))
		return false;
	state->ip = ra;
	state->sp = sp;
	state->csr_at = UNWIND_USER_CSR_UNKNOWN;
	state->sp_low = false;
	state->type = UNWIND_USER_TYPE_RECOVERED;
	state->depth++;
	return true;
}

#else /* !CONFIG_USERSPACE_UNWINDER_SFRAME */

static inline int unwind_user_sframe(struct unwind_user_state *state,
				     unsigned long ip,
				     const struct unwind_user_frame **frame)
{
	return -ENOENT;
}

static inline bool
unwind_user_recover_enabled(struct unwind_user_state *state)
{
	return false;
}

static inline bool unwind_user_recover(struct unwind_user_state *state)
{
	return false;
}

#endif /* CONFIG_USERSPACE_UNWINDER_SFRAME */

/*
 * A uretprobe replaced the return address on the stack (or in the link
 * register) with its trampoline, and keeps the original in the task's list
 * of pending return instances, newest first: the trampolines a walk meets
 * are those instances in order. A chained instance (a probed function
 * tail-called from another one) shares its slot with the next one.
 */
/* Has the task return addresses that uretprobe trampolines took over? */
static __always_inline bool unwind_user_uretprobe_pending(void)
{
#ifdef CONFIG_UPROBES
	return unlikely(current->utask && current->utask->return_instances);
#else
	return false;
#endif
}

static unsigned long unwind_user_uretprobe(struct unwind_user_state *state,
					   unsigned long ra)
{
#ifdef CONFIG_UPROBES
	struct return_instance *ri;

	if (likely(!unwind_user_uretprobe_pending()))
		return ra;
	if (ra != uprobe_get_trampoline_vaddr())
		return ra;

	ri = state->uret ? state->uret->next : current->utask->return_instances;
	if (!ri)
		return 0;
	ra = ri->orig_ret_vaddr;
	while (ri->chained && ri->next)
		ri = ri->next;
	state->uret = ri;
#endif
	return ra;
}

#ifndef ARCH_UNWIND_USER_DWARF_CSR
/* No callee-saved register is followed: no DWARF register has this number. */
#define ARCH_UNWIND_USER_DWARF_CSR	UINT_MAX
#endif

/*
 * After a step with the rule @frame and the CFA @cfa, where the caller's
 * value of the followed callee-saved register is (see @csr_at of struct
 * unwind_user_state). Rules that say nothing of it, as SFrame's, lose it.
 */
static __always_inline void unwind_user_csr_step(unsigned long *csr_at,
						 const struct unwind_user_frame *frame,
						 unsigned long cfa)
{
	if (frame->csr == UNWIND_USER_CSR_SAVED)
		*csr_at = cfa + frame->csr_off;
	else if (frame->csr != UNWIND_USER_CSR_SAME)
		*csr_at = UNWIND_USER_CSR_UNKNOWN;
}

/*
 * The value of DWARF register @reg in @state's frame: the stack and frame
 * pointers are known in every frame, the other registers in the innermost
 * one only.
 * So is the callee-saved register the walk follows, where the rules of the
 * frames below say where it is.
 */
static int unwind_user_reg(struct unwind_user_state *state, bool first,
			   unsigned int reg, unsigned long *val)
{
	if (reg == ARCH_UNWIND_USER_DWARF_SP) {
		*val = state->sp;
		return 0;
	}
	if (reg == ARCH_UNWIND_USER_DWARF_FP) {
		*val = state->fp;
		return 0;
	}
	if (reg == ARCH_UNWIND_USER_DWARF_CSR) {
		if (state->csr_at == UNWIND_USER_CSR_UNKNOWN)
			return -EINVAL;
		if (state->csr_at != UNWIND_USER_CSR_IN_REGS)
			return unwind_user_read(state->csr_at, val);
		return arch_unwind_user_reg(state->regs, reg, val) ? 0 : -EINVAL;
	}
	if (!first || !arch_unwind_user_reg(state->regs, reg, val))
		return -EINVAL;
	return 0;
}

/*
 * The return address or the caller's frame pointer, by a rule through a
 * register (@in_reg: @reg, loaded from @reg + @off if @saved, else that
 * sum) or at @off from the CFA (if @saved; else *@val stays as it is).
 */
static int unwind_user_value(struct unwind_user_state *state, bool first,
			     bool in_reg, unsigned int reg, bool saved,
			     s32 off, unsigned long cfa, unsigned long *val)
{
	unsigned long base = cfa;

	if (in_reg) {
		if (unwind_user_reg(state, first, reg, &base))
			return -EINVAL;
		if (!saved) {
			*val = base + off;
			return 0;
		}
	}
	return saved ? unwind_user_read(base + off, val) : 0;
}

/*
 * Apply the rule @frame that unwind_user_apply() does not: the return
 * address in the link register, or a rule through a register other than
 * the stack and frame pointers (SFrame v3 flexible rows), with the CFA
 * @cfa.
 */
static int unwind_user_apply_rule(struct unwind_user_state *state,
				  const struct unwind_user_frame *frame,
				  bool first, unsigned long cfa,
				  unsigned long *ra, unsigned long *fp)
{
	if (frame->ra_saved || (frame->flags & UNWIND_USER_F_RA_REG)) {
		if (unwind_user_value(state, first,
				      frame->flags & UNWIND_USER_F_RA_REG,
				      frame->ra_reg, frame->ra_saved,
				      frame->ra_off, cfa, ra))
			return -EFAULT;
	} else if (state->signal) {
		*ra = state->lr;
	} else if (!first || !arch_unwind_user_link_register(state->regs, ra)) {
		return -EINVAL;
	}
	if (frame->ra_signed)
		*ra = arch_unwind_user_strip_ra(*ra);

	return unwind_user_value(state, first,
				 frame->flags & UNWIND_USER_F_FP_REG,
				 frame->fp_reg, frame->fp_saved, frame->fp_off,
				 cfa, fp) ? -EFAULT : 0;
}

/*
 * Apply @frame to @state's frame (@first: the innermost one): the CFA,
 * which is the caller's stack pointer, the return address and the
 * caller's frame pointer (*@fp: this frame's on entry).
 *
 * The stack grows down: the caller's frame must be above this one. Only
 * the innermost frame may share its CFA with the stack pointer, when its
 * return address is not on the stack at the CFA.
 * So may a frame a signal interrupted.
 */
static int unwind_user_apply(struct unwind_user_state *state,
			     const struct unwind_user_frame *frame, bool first,
			     unsigned long *cfap, unsigned long *ra,
			     unsigned long *fp)
{
	bool ra_on_stack = frame->ra_saved;
	unsigned long cfa;
	int ret;

	cfa = frame->use_fp ? state->fp : state->sp;
	if ((frame->flags & UNWIND_USER_F_CFA_REG) &&
	    unwind_user_reg(state, first, frame->cfa_reg, &cfa))
		return -EINVAL;
	cfa += frame->cfa_off;
	if ((frame->flags & UNWIND_USER_F_CFA_DEREF) &&
	    unwind_user_read(cfa, &cfa))
		return -EFAULT;
	if (frame->flags & UNWIND_USER_F_RA_REG)
		ra_on_stack = false;

	if (cfa < state->sp)
		return -EINVAL;
	if (cfa == state->sp && ((!first && !state->signal) || ra_on_stack))
		return -EINVAL;

	if (!frame->ra_saved || frame->flags) {
		ret = unwind_user_apply_rule(state, frame, first, cfa, ra, fp);
		if (ret)
			return ret;
		*cfap = cfa;
		return 0;
	}

	/* The usual frame: both words saved at offsets from the CFA. */
	if (unwind_user_read_words(cfa + frame->ra_off, ra,
				   cfa + frame->fp_off,
				   frame->fp_saved ? fp : NULL))
		return -EFAULT;
	if (frame->ra_signed)
		*ra = arch_unwind_user_strip_ra(*ra);
	*cfap = cfa;
	return 0;
}

/*
 * @state's frame is the signal trampoline a signal handler returned to,
 * and its stack pointer is where the kernel put the signal frame: move to
 * the code the signal interrupted, with the registers saved there.
 */
static bool unwind_user_signal(struct unwind_user_state *state)
{
	struct unwind_user_sigregs r;

	if (!arch_unwind_user_sigframe(state->ip, state->sp, &r) ||
	    !r.ip || !access_ok((const void __user *)r.ip, 1))
		return false;
	state->ip = r.ip;
	state->sp = r.sp;
	state->fp = r.fp;
	state->csr_at = UNWIND_USER_CSR_UNKNOWN;
	state->lr = arch_unwind_user_strip_ra(r.lr);
	state->signal = true;
	state->sp_low = false;
	state->type = UNWIND_USER_TYPE_SIGNAL;
	state->depth++;
	return true;
}

#ifdef CONFIG_USERSPACE_UNWINDER_SFRAME
/*
 * The usual step of a walk with SFrame data: from a frame that a signal
 * did not interrupt, whose rule is the one for @pc (*@ip, or the call
 * before it in a caller) in the text of the section @hint holds, which
 * has a table, and is the usual rule (see %SFRAME_RULE_GENERAL): *@ip,
 * *@sp and *@fp move to the caller, or stay as they are. The caller
 * disabled page faults, and passes the lowest return address the walk
 * takes as @ra_min: mmap_min_addr, at least 1. The general step does the
 * same for such a frame; this one spares it its setup, and lets a walk
 * keep its state in registers. Anything else, and any failure, is left to
 * the general step.
 * *@csr_at follows the callee-saved register (unwind_user_csr_step()).
 *
 * Return: true if the frame moved to its caller.
 */
static __always_inline bool unwind_user_sframe_step(const struct sframe_hint *hint,
						    unsigned long ra_min,
						    unsigned long pc,
						    unsigned long *ip,
						    unsigned long *sp,
						    unsigned long *fp,
						    unsigned long *csr_at)
{
	const struct unwind_user_frame *frame;
	unsigned long cfa, ra, next_fp = *fp;
	u16 idx;

	if (pc - hint->start >= hint->size)
		return false;
	idx = sframe_rules_row(hint->rules, pc - hint->base);
	if (idx & SFRAME_RULE_GENERAL)
		return false;
	frame = &hint->rules->rules[idx];
	cfa = (frame->use_fp ? *fp : *sp) + frame->cfa_off;
	if (cfa <= *sp ||
	    __unwind_user_get_words(cfa + frame->ra_off, &ra,
				    cfa + frame->fp_off, &next_fp,
				    frame->fp_saved))
		return false;
	if (frame->ra_signed)
		ra = arch_unwind_user_strip_ra(ra);
	if (ra < ra_min || !access_ok((const void __user *)ra, 1))
		return false;
	unwind_user_csr_step(csr_at, frame, cfa);
	*ip = ra;
	*sp = cfa;
	*fp = next_fp;
	return true;
}

/*
 * May @state take unwind_user_sframe_step()s? The task has SFrame data,
 * the frame is not one a signal interrupted, nor one reached through a
 * frame record whose stack pointer is not known, and no uretprobe took
 * over a return address of the task. The innermost frame has the section
 * of its instruction pointer looked up first.
 */
static __always_inline bool unwind_user_sframe_steps(struct unwind_user_state *state)
{
	if (!state->sframe || state->signal || state->sp_low || state->done ||
	    unwind_user_uretprobe_pending())
		return false;
	if (!state->depth && sframe_hint_user(state->ip, &state->hint))
		return false;
	return state->hint.rules;
}

/*
 * unwind_user_sframe_step()s from @state while they apply, at most @max:
 * the callers' instruction pointers go to @entries. Returns their number.
 */
static unsigned int unwind_user_sframe_run(struct unwind_user_state *state,
					   unsigned long *entries,
					   unsigned int max)
{
	unsigned long ip = state->ip, sp = state->sp, fp = state->fp;
	unsigned long csr_at = state->csr_at;
	unsigned long ra_min = max(mmap_min_addr, 1UL), pc;
	unsigned long *e = entries, *end;
	struct sframe_hint hint;
	unsigned int n;

	if (!unwind_user_sframe_steps(state))
		return 0;
	hint = state->hint;
	/* The innermost frame's instruction pointer is exact. */
	pc = state->depth ? ip - 1 : ip;
	end = entries + min(max, UNWIND_USER_MAX_DEPTH - state->depth);
	pagefault_disable();
	while (e < end &&
	       unwind_user_sframe_step(&hint, ra_min, pc, &ip, &sp, &fp,
				       &csr_at)) {
		*e++ = ip;
		pc = ip - 1;
	}
	pagefault_enable();
	n = e - entries;
	if (n) {
		state->ip = ip;
		state->sp = sp;
		state->fp = fp;
		state->csr_at = csr_at;
		state->type = UNWIND_USER_TYPE_SFRAME;
		state->depth += n;
	}
	return n;
}
#else
static inline unsigned int unwind_user_sframe_run(struct unwind_user_state *state,
						  unsigned long *entries,
						  unsigned int max)
{
	return 0;
}
#endif

/* One step of any kind: see unwind_user_next(). */
static noinline int unwind_user_next_frame(struct unwind_user_state *state)
{
	const struct unwind_user_frame *frame;
	unsigned long cfa, ra, fp = state->fp;
	bool first = !state->depth;
	enum unwind_user_type type;
	int ret;

	if (state->done)
		return -ENOENT;
	if (state->depth >= UNWIND_USER_MAX_DEPTH)
		goto done;

	/*
	 * A return address may point past the end of its function (a call
	 * to a noreturn function): look up the call instruction instead.
	 * Where a signal interrupted the code, the address is exact.
	 */
	ret = unwind_user_sframe(state, first || state->signal ? state->ip :
				 state->ip - 1, &frame);
	/*
	 * A signal handler returns to the signal trampoline, which has no
	 * SFrame data, or data that says it is one (version 3). Tasks
	 * without SFrame data keep their frame pointer walk as it was.
	 */
	if (!first && ((ret == -ENOENT && state->sframe) ||
		       (!ret && frame->signal))) {
		if (unwind_user_signal(state))
			return 0;
		if (!ret)
			goto done;
	}
	if (!ret) {
		/*
		 * Reached through a frame record on arm64, the frame's stack
		 * pointer is not known: only a rule based on the frame
		 * pointer applies.
		 */
		if (frame->outermost ||
		    (state->sp_low && (!frame->use_fp ||
				       (frame->flags & UNWIND_USER_F_CFA_REG))))
			goto done;
		type = UNWIND_USER_TYPE_SFRAME;
	} else if (ret != -ENOENT) {
		/*
		 * The text may have SFrame data that cannot answer (not
		 * looked at yet, or a section without a table): the code
		 * was built for it, so the frame pointer is likely not one.
		 * Stop here rather than report what it points at.
		 */
		goto done;
	} else if (first && state->at_func_entry) {
		frame = &entry_frame;
		type = UNWIND_USER_TYPE_ENTRY;
	} else if (unwind_user_recover_enabled(state)) {
		if (unwind_user_recover(state))
			return 0;
		goto done;
	} else {
		frame = &fp_frame;
		type = UNWIND_USER_TYPE_FP;
	}

	if (unwind_user_apply(state, frame, first, &cfa, &ra, &fp))
		goto done;

	ra = unwind_user_uretprobe(state, ra);
	/*
	 * A return address is user text: a stack word that is not ends it,
	 * and so does one below mmap_min_addr, where only a privileged task
	 * may map anything.
	 *
	 * SFrame before version 3 cannot mark the outermost frame: a
	 * program's own _start then has a rule that reads argc as its
	 * return address.
	 */
	if (!ra || ra < mmap_min_addr ||
	    !access_ok((const void __user *)ra, 1))
		goto done;
	/*
	 * In a task with SFrame data, code without it may not keep frame
	 * pointers at all: a frame record counts only if its return address
	 * follows a call instruction.
	 */
	if (type == UNWIND_USER_TYPE_FP && state->sframe &&
	    !arch_unwind_user_after_call(ra))
		goto done;

	unwind_user_csr_step(&state->csr_at, frame, cfa);
	state->ip = ra;
	state->sp = cfa;
	state->fp = fp;
	state->type = type;
	state->signal = false;
	state->sp_low = type == UNWIND_USER_TYPE_FP &&
			!ARCH_UNWIND_USER_CALL_PUSHES_RA;
	state->depth++;
	return 0;

done:
	state->done = true;
	return -ENOENT;
}

/**
 * unwind_user_next() - unwind one user frame
 * @state:	state set up by unwind_user_start()
 *
 * On success @state describes the caller: its instruction pointer (a return
 * address), stack pointer and frame pointer. The walk ends when a frame
 * cannot be read, when the caller's frame would not be above the current
 * one on the stack, at a return address that is zero, below mmap_min_addr
 * or not a user address, or after %UNWIND_USER_MAX_DEPTH frames.
 *
 * Where a uretprobe's trampoline took the place of a return address, the
 * instruction pointer is the return address the uretprobe saved.
 *
 * The walk also ends where the task's SFrame data describes the frame but
 * cannot be used (its text not looked at yet, or a section without a
 * table). @state keeps the SFrame section it found last, which the
 * rcu_read_lock() keeps alive.
 *
 * Context: any context in which the task's user memory may be accessed
 * without faulting, including NMI, with rcu_read_lock() held since
 * unwind_user_start().
 * Return: 0 if @state moved to the caller, a negative error when done.
 */
int unwind_user_next(struct unwind_user_state *state)
{
	unsigned long ip;

	if (likely(unwind_user_sframe_run(state, &ip, 1)))
		return 0;
	return unwind_user_next_frame(state);
}

/**
 * unwind_user_entries() - store the instruction pointers of the callers
 * @state:	state set up by unwind_user_start()
 * @entries:	where to store them
 * @max:	room at @entries
 *
 * What storing @state->ip after each successful unwind_user_next(), until
 * one fails or @max are stored, does.
 * The usual SFrame steps keep the walk's state in registers meanwhile.
 *
 * Context: as unwind_user_next().
 * Return: the number of entries stored.
 */
unsigned int unwind_user_entries(struct unwind_user_state *state,
				 unsigned long *entries, unsigned int max)
{
	unsigned int n = 0;

	while (n < max) {
		n += unwind_user_sframe_run(state, entries + n, max - n);
		if (n >= max || unwind_user_next_frame(state))
			break;
		entries[n++] = state->ip;
	}
	return n;
}

/**
 * unwind_user_has_sframe() - is SFrame data in play for the current task?
 *
 * SFrame unwinding is enabled, and the task has a registered section or
 * text that was not looked at yet (its first lookup has it looked at).
 * Consumers ask it once per walk and keep their own frame pointer walk
 * for other tasks: a program built with frame pointers costs what it
 * cost without this unwinder, and its chains keep their meaning (a walk
 * through a stack switch is not cut there).
 *
 * Context: any context, including NMI.
 * Return: true if the walk should use unwind_user_start().
 */
bool unwind_user_has_sframe(void)
{
	return sframe_enabled() && sframe_possible_user();
}

/**
 * unwind_user_start() - start a walk of the current task's user stack
 * @state:	state to initialize
 * @regs:	the task's user registers
 *
 * The innermost frame is @regs' instruction pointer; call unwind_user_next()
 * to move to each caller in turn.
 *
 * Context: any context, with rcu_read_lock() held until the last
 * unwind_user_next() of the walk; the walk is always of the current task.
 * Return: 0 on success, -EINVAL if the registers cannot be unwound here
 * (kernel thread, kernel mode, a task mode the architecture does not
 * unwind, such as 32-bit compat, or an NMI in which user memory cannot be
 * read); @state is then marked done.
 */
int unwind_user_start(struct unwind_user_state *state, struct pt_regs *regs)
{
	memset(state, 0, sizeof(*state));

	/*
	 * User memory is read without faulting, and not at all in an NMI
	 * that interrupted a switch of the CPU's page tables.
	 */
	if (!regs || !user_mode(regs) || !current->mm ||
	    (current->flags & PF_KTHREAD) || !nmi_uaccess_okay() ||
	    !arch_unwind_user_supported(regs)) {
		state->done = true;
		return -EINVAL;
	}

	state->regs = regs;
	state->ip = instruction_pointer(regs);
	state->sp = user_stack_pointer(regs);
	state->fp = frame_pointer(regs);
	state->sframe = unwind_user_has_sframe();
	return 0;
}
