/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim for <linux/sched.h>: the decoder only yields the CPU, and
 * checks for a fatal signal, during its full validation. Part of the host
 * tests, not of the kernel.
 */
#ifndef _HOSTSHIM_LINUX_SCHED_H
#define _HOSTSHIM_LINUX_SCHED_H

#include <stdbool.h>

struct task_struct;
#define current ((struct task_struct *)0)

/*
 * For the tests of the validation's stop on a fatal signal: below 0 no
 * signal; else the number of calls of fatal_signal_pending() that still
 * answer false before the signal is "pending".
 */
extern int hostshim_fatal_countdown;

static inline void cond_resched(void)
{
}

static inline bool fatal_signal_pending(struct task_struct *p)
{
	(void)p;
	if (hostshim_fatal_countdown < 0)
		return false;
	if (!hostshim_fatal_countdown)
		return true;
	hostshim_fatal_countdown--;
	return false;
}

#endif /* _HOSTSHIM_LINUX_SCHED_H */
