/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim for <linux/limits.h>: the C library's limits. */
#ifndef _HOSTSHIM_LINUX_LIMITS_H
#define _HOSTSHIM_LINUX_LIMITS_H

#include <limits.h>
#include <stdint.h>

#ifndef U32_MAX
#define U32_MAX		UINT32_MAX
#endif

#endif /* _HOSTSHIM_LINUX_LIMITS_H */
