/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim for <linux/sched.h>: the decoder only yields the CPU during
 * its full validation. Part of the host tests, not of the kernel.
 */
#ifndef _HOSTSHIM_LINUX_SCHED_H
#define _HOSTSHIM_LINUX_SCHED_H

static inline void cond_resched(void)
{
}

#endif /* _HOSTSHIM_LINUX_SCHED_H */
