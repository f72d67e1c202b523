/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim for <linux/errno.h>: the uapi error numbers (EINVAL, ENOENT,
 * EFAULT, ...) are the kernel's. glibc's <errno.h> also includes
 * <linux/errno.h>, so this must stay a thin forwarder.
 */
#ifndef _HOSTSHIM_LINUX_ERRNO_H
#define _HOSTSHIM_LINUX_ERRNO_H

#include_next <linux/errno.h>

#endif /* _HOSTSHIM_LINUX_ERRNO_H */
