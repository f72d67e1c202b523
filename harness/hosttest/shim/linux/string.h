/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim for <linux/string.h>: the C library's memcpy() and friends. */
#ifndef _HOSTSHIM_LINUX_STRING_H
#define _HOSTSHIM_LINUX_STRING_H

#include <string.h>

#endif /* _HOSTSHIM_LINUX_STRING_H */
