/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim for <linux/string.h>: the C library's memcpy() and friends. */
#ifndef _HOSTSHIM_LINUX_STRING_H
#define _HOSTSHIM_LINUX_STRING_H

#include <stddef.h>
#include <string.h>

/*
 * The decoder's reads of its section (sframe_copy(), see shim/kconfig.h):
 * copy_from_user() of the shim, 0 or -EFAULT.
 */
int hostshim_sframe_copy(void *dst, unsigned long addr, size_t len);

#endif /* _HOSTSHIM_LINUX_STRING_H */
