/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim for <linux/array_size.h>. */
#ifndef _HOSTSHIM_LINUX_ARRAY_SIZE_H
#define _HOSTSHIM_LINUX_ARRAY_SIZE_H

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#endif /* _HOSTSHIM_LINUX_ARRAY_SIZE_H */
