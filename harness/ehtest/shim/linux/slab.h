/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim for <linux/slab.h> for kernel/unwind/eh_frame.c: kzalloc(),
 * kzalloc_obj(), kfree(), kvmalloc() and kvfree() on the C library's heap
 * (under ASan in the tests).
 */
#ifndef _EHTEST_LINUX_SLAB_H
#define _EHTEST_LINUX_SLAB_H

#include <stdlib.h>

#define GFP_KERNEL	0
#define GFP_KERNEL_ACCOUNT	0
#define __GFP_NOWARN	0

static inline void *kzalloc(size_t size, int gfp)
{
	(void)gfp;
	return calloc(1, size);
}

#define kzalloc_obj(p, gfp)	kzalloc(sizeof(p), gfp)

static inline void kfree(const void *p)
{
	free((void *)p);
}

static inline void *kvmalloc(size_t size, int gfp)
{
	(void)gfp;
	return malloc(size);
}

static inline void kvfree(const void *p)
{
	free((void *)p);
}

#endif /* _EHTEST_LINUX_SLAB_H */
