/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim for <linux/minmax.h>: min_t() and max_t(). */
#ifndef _HOSTSHIM_LINUX_MINMAX_H
#define _HOSTSHIM_LINUX_MINMAX_H

#define min_t(type, a, b)	((type)(a) < (type)(b) ? (type)(a) : (type)(b))
#define max_t(type, a, b)	((type)(a) > (type)(b) ? (type)(a) : (type)(b))
#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))

#endif /* _HOSTSHIM_LINUX_MINMAX_H */
