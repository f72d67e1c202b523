/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim for <linux/sort.h> for kernel/unwind/eh_frame.c: qsort(). */
#ifndef _EHTEST_LINUX_SORT_H
#define _EHTEST_LINUX_SORT_H

#include <stdlib.h>

static inline void sort(void *base, size_t num, size_t size,
			int (*cmp)(const void *, const void *), void *swap)
{
	(void)swap;
	qsort(base, num, size, cmp);
}

#endif /* _EHTEST_LINUX_SORT_H */
