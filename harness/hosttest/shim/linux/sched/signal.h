/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim for <linux/sched/signal.h>: see <linux/sched.h>. */
#ifndef _HOSTSHIM_LINUX_SCHED_SIGNAL_H
#define _HOSTSHIM_LINUX_SCHED_SIGNAL_H

#include <linux/sched.h>

#endif /* _HOSTSHIM_LINUX_SCHED_SIGNAL_H */
