/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim for <linux/types.h>: the kernel's internal integer types on top
 * of the host's uapi header, for building kernel/unwind/sframe.c in user
 * space. Part of the host tests (harness/hosttest), not of the kernel.
 */
#ifndef _HOSTSHIM_LINUX_TYPES_H
#define _HOSTSHIM_LINUX_TYPES_H

/* The uapi header (__u8 ... __u64), so host headers that want it work. */
#include_next <linux/types.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t		u8;
typedef int8_t		s8;
typedef uint16_t	u16;
typedef int16_t		s16;
typedef uint32_t	u32;
typedef int32_t		s32;
typedef uint64_t	u64;
typedef int64_t		s64;

/* From <linux/compiler_types.h> / <linux/compiler_attributes.h>. */
#ifndef __user
#define __user
#endif
#ifndef __packed
#define __packed	__attribute__((__packed__))
#endif
#ifndef __must_check
#define __must_check	__attribute__((__warn_unused_result__))

#ifndef noinline
#define noinline	__attribute__((__noinline__))
#endif
#endif

#endif /* _HOSTSHIM_LINUX_TYPES_H */
