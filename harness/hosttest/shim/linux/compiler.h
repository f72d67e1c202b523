/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim for <linux/compiler.h>: what the series' headers use of it.
 * Part of the host tests (harness/hosttest), not of the kernel.
 */
#ifndef _HOSTSHIM_LINUX_COMPILER_H
#define _HOSTSHIM_LINUX_COMPILER_H

#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif
#ifndef __always_inline
#define __always_inline	inline __attribute__((__always_inline__))
#endif

#endif /* _HOSTSHIM_LINUX_COMPILER_H */
