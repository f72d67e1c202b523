/* SPDX-License-Identifier: GPL-2.0 */
/* Input format of the fuzz target (fuzz_eh_frame.c). */
#ifndef _EHTEST_FUZZ_H
#define _EHTEST_FUZZ_H

#include <linux/types.h>

struct fuzz_head {
	u64	hdr_addr;
	u64	eh_addr;
	u64	text_start;
	u64	text_end;
	u32	hdr_size;
	u32	arch;
};

#endif
