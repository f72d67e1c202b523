/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim for <linux/unaligned.h> for kernel/unwind/eh_frame.c. */
#ifndef _EHTEST_LINUX_UNALIGNED_H
#define _EHTEST_LINUX_UNALIGNED_H

#include <stdint.h>

static inline void put_unaligned_le32(uint32_t v, void *p)
{
	uint8_t *b = p;

	b[0] = v;
	b[1] = v >> 8;
	b[2] = v >> 16;
	b[3] = v >> 24;
}

#endif /* _EHTEST_LINUX_UNALIGNED_H */
