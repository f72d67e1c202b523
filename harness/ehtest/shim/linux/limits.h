/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim for <linux/limits.h> for kernel/unwind/eh_frame.c: the
 * hosttest shim's, plus the signed limits it lacks.
 */
#ifndef _EHTEST_LINUX_LIMITS_H
#define _EHTEST_LINUX_LIMITS_H

#include_next <linux/limits.h>

#ifndef S32_MAX
#define S32_MAX		INT32_MAX
#endif
#ifndef S32_MIN
#define S32_MIN		INT32_MIN
#endif

#endif /* _EHTEST_LINUX_LIMITS_H */
