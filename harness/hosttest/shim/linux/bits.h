/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim for <linux/bits.h>. */
#ifndef _HOSTSHIM_LINUX_BITS_H
#define _HOSTSHIM_LINUX_BITS_H

#define BIT(nr)		(1UL << (nr))

#endif /* _HOSTSHIM_LINUX_BITS_H */
