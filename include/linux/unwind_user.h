/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_UNWIND_USER_H
#define _LINUX_UNWIND_USER_H

#include <linux/sframe.h>
#include <linux/unwind_user_types.h>

struct pt_regs;
struct return_instance;

/* A hard bound on the number of frames one walk may produce. */
#define UNWIND_USER_MAX_DEPTH	512

/* struct unwind_user_state's @csr_at when it is not an address */
#define UNWIND_USER_CSR_IN_REGS	0UL
#define UNWIND_USER_CSR_UNKNOWN	(~0UL)

/**
 * struct unwind_user_state - state of one user space stack walk
 * @ip:		instruction pointer of the current frame
 * @sp:		stack pointer of the current frame
 * @fp:		frame pointer of the current frame
 * @csr_at:	where the current frame's value of the callee-saved register
 *		the walk follows is: %UNWIND_USER_CSR_IN_REGS (in @regs: no
 *		frame below changed it), the user address it is saved at, or
 *		%UNWIND_USER_CSR_UNKNOWN
 * @regs:	user registers the walk started from
 * @depth:	number of frames unwound so far
 * @scanned:	stack words scanned so far for callers of uncovered frames
 * @evals:	candidate callers of uncovered frames evaluated so far
 * @type:	how the current frame was reached
 * @uret:	the pending uretprobe whose trampoline was met last, or NULL
 * @lr:		with @signal, the link register the signal frame saved
 * @signal:	a signal interrupted the current frame: @ip is where, not a
 *		return address, and its registers are those the kernel saved
 * @at_func_entry: the innermost frame is known to be at a function's first
 *		instruction (a uprobe there), so its return address is at the
 *		stack pointer even without unwinding information
 * @sframe:	SFrame data is in play for the task (decided at the start)
 * @sp_low:	@sp is a lower bound only: the frame was reached through a
 *		frame record, which does not give the caller's stack pointer
 *		where a call does not push the return address (arm64)
 * @hint:	the SFrame section found last
 * @done:	the walk is over
 */
struct unwind_user_state {
	unsigned long		ip;
	unsigned long		sp;
	unsigned long		fp;
	unsigned long		csr_at;
	struct pt_regs		*regs;
	unsigned int		depth;
	unsigned int		scanned;
	unsigned int		evals;
	enum unwind_user_type	type;
	struct return_instance	*uret;
	unsigned long		lr;
	bool			signal;
	bool			at_func_entry;
	bool			sframe;
	bool			sp_low;
	bool			done;
	struct sframe_hint	hint;
};

#ifdef CONFIG_UNWIND_USER

int unwind_user_start(struct unwind_user_state *state, struct pt_regs *regs);
int unwind_user_next(struct unwind_user_state *state);
unsigned int unwind_user_entries(struct unwind_user_state *state,
				 unsigned long *entries, unsigned int max);
bool unwind_user_has_sframe(void);

#else /* !CONFIG_UNWIND_USER */

static inline int unwind_user_start(struct unwind_user_state *state,
				    struct pt_regs *regs)
{
	state->done = true;
	return -EINVAL;
}

static inline int unwind_user_next(struct unwind_user_state *state)
{
	return -EINVAL;
}

static inline unsigned int unwind_user_entries(struct unwind_user_state *state,
					       unsigned long *entries,
					       unsigned int max)
{
	return 0;
}

static inline bool unwind_user_has_sframe(void)
{
	return false;
}

#endif /* CONFIG_UNWIND_USER */

#endif /* _LINUX_UNWIND_USER_H */
