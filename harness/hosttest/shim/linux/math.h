/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim for <linux/math.h>: DIV_ROUND_UP(). */
#ifndef _HOSTSHIM_LINUX_MATH_H
#define _HOSTSHIM_LINUX_MATH_H

#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))

#endif /* _HOSTSHIM_LINUX_MATH_H */
