// SPDX-License-Identifier: GPL-2.0
/*
 * Generic user space stack unwinder.
 *
 * Walks a user stack frame by frame, using the task's SFrame data when it
 * describes the instruction pointer and the frame pointer otherwise. It runs
 * in the context of the sampled task, possibly in IRQ or NMI context: it
 * never sleeps, never takes mmap_lock and reads user memory only through
 * the non-faulting user access helpers.
 */
#include <linux/sched.h>
#include <linux/sframe.h>
#include <linux/sysctl.h>
#include <linux/uaccess.h>
#include <linux/uprobes.h>
#include <linux/unwind_user.h>

#include <asm/ptrace.h>
#include <asm/unwind_user.h>

static const struct unwind_user_frame fp_frame = ARCH_INIT_USER_FP_FRAME;
static const struct unwind_user_frame entry_frame = ARCH_INIT_USER_ENTRY_FRAME;

#ifdef CONFIG_USERSPACE_UNWINDER_SFRAME

static int sysctl_unwind_user_sframe __read_mostly = 1;

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

static int unwind_user_sframe(unsigned long ip, struct unwind_user_frame *frame)
{
	if (!sframe_enabled())
		return -ENOENT;
	return sframe_find_user(ip, frame);
}

#else /* !CONFIG_USERSPACE_UNWINDER_SFRAME */

static inline int unwind_user_sframe(unsigned long ip,
				     struct unwind_user_frame *frame)
{
	return -ENOENT;
}

#endif /* CONFIG_USERSPACE_UNWINDER_SFRAME */

static int unwind_user_read(unsigned long addr, unsigned long *val)
{
	if (copy_from_user_nofault(val, (const void __user *)addr,
				   sizeof(*val)))
		return -EFAULT;
	return 0;
}

/*
 * A uretprobe replaced the return address on the stack (or in the link
 * register) with its trampoline, and keeps the original in the task's list
 * of pending return instances, newest first: the trampolines a walk meets
 * are those instances in order. A chained instance (a probed function
 * tail-called from another one) shares its slot with the next one.
 */
static unsigned long unwind_user_uretprobe(struct unwind_user_state *state,
					   unsigned long ra)
{
#ifdef CONFIG_UPROBES
	struct uprobe_task *utask = current->utask;
	struct return_instance *ri;

	if (likely(!utask || !utask->return_instances))
		return ra;
	if (ra != uprobe_get_trampoline_vaddr())
		return ra;

	ri = state->uret ? state->uret->next : utask->return_instances;
	if (!ri)
		return 0;
	ra = ri->orig_ret_vaddr;
	while (ri->chained && ri->next)
		ri = ri->next;
	state->uret = ri;
#endif
	return ra;
}

/**
 * unwind_user_next() - unwind one user frame
 * @state:	state set up by unwind_user_start()
 *
 * On success @state describes the caller: its instruction pointer (a return
 * address; the one a uretprobe saved where its trampoline took the place of
 * the return address), stack pointer and frame pointer. The walk ends when
 * a frame cannot be read, when the task's SFrame data describes the frame
 * but cannot be used now, when the caller's frame would not be above the
 * current one on the stack, at a return address that is zero or not a user
 * address, or after %UNWIND_USER_MAX_DEPTH frames.
 *
 * Context: any context in which the task's user memory may be accessed
 * without faulting, including NMI.
 * Return: 0 if @state moved to the caller, a negative error when done.
 */
int unwind_user_next(struct unwind_user_state *state)
{
	struct unwind_user_frame frame;
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
	 */
	ret = unwind_user_sframe(first ? state->ip : state->ip - 1, &frame);
	if (!ret) {
		if (frame.outermost)
			goto done;
		type = UNWIND_USER_TYPE_SFRAME;
	} else if (ret != -ENOENT) {
		/*
		 * The text has SFrame data that cannot answer now (not
		 * validated yet, not resident, changed): the code was built
		 * for it, so the frame pointer is likely not one. Stop here
		 * rather than report what it points at.
		 */
		goto done;
	} else if (first && state->at_func_entry) {
		frame = entry_frame;
		type = UNWIND_USER_TYPE_ENTRY;
	} else {
		frame = fp_frame;
		type = UNWIND_USER_TYPE_FP;
	}

	cfa = (frame.use_fp ? state->fp : state->sp) + frame.cfa_off;

	/*
	 * The stack grows down: the caller's frame must be above this one.
	 * Only a frame whose return address is still in a register may share
	 * its CFA with the stack pointer, and only the innermost one.
	 */
	if (frame.ra_saved) {
		if (cfa <= state->sp)
			goto done;
		if (unwind_user_read(cfa + frame.ra_off, &ra))
			goto done;
	} else {
		if (!first || cfa < state->sp)
			goto done;
		if (!arch_unwind_user_link_register(state->regs, &ra))
			goto done;
	}

	if (frame.ra_signed)
		ra = arch_unwind_user_strip_ra(ra);
	ra = unwind_user_uretprobe(state, ra);
	/* A return address is user text: a stack word that is not ends it. */
	if (!ra || !access_ok((const void __user *)ra, 1))
		goto done;

	if (frame.fp_saved && unwind_user_read(cfa + frame.fp_off, &fp))
		goto done;

	state->ip = ra;
	state->sp = cfa;
	state->fp = fp;
	state->type = type;
	state->depth++;
	return 0;

done:
	state->done = true;
	return -ENOENT;
}

/**
 * unwind_user_start() - start a walk of the current task's user stack
 * @state:	state to initialize
 * @regs:	the task's user registers
 *
 * The innermost frame is @regs' instruction pointer; call unwind_user_next()
 * to move to each caller in turn.
 *
 * Context: any context; the walk is always of the current task.
 * Return: 0 on success, -EINVAL if the registers cannot be unwound here
 * (kernel thread, kernel mode, or a task mode the architecture does not
 * unwind, such as 32-bit compat); @state is then marked done.
 */
int unwind_user_start(struct unwind_user_state *state, struct pt_regs *regs)
{
	memset(state, 0, sizeof(*state));

	if (!regs || !user_mode(regs) || !current->mm ||
	    (current->flags & PF_KTHREAD) ||
	    !arch_unwind_user_supported(regs)) {
		state->done = true;
		return -EINVAL;
	}

	state->regs = regs;
	state->ip = instruction_pointer(regs);
	state->sp = user_stack_pointer(regs);
	state->fp = frame_pointer(regs);
	return 0;
}
