// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for eh_frame_convert(). Input: struct fuzz_head, then
 * the .eh_frame_hdr bytes (hdr_size of them), then the .eh_frame bytes
 * (the rest). Both are copied into buffers of their exact size, so ASan
 * catches any read outside them. ehtest_malformed --seeds writes inputs
 * in this format from real files.
 */
#include <stdlib.h>
#include <string.h>

#include "eh_frame.h"
#include "fuzz_eh_frame.h"

int hostshim_fatal_countdown = -1;	/* shim/linux/sched.h */

struct fuzz_sink {
	u64 start, end, last;
	int in_fde;
};

static int f_func(void *ctx, u64 start, u64 end)
{
	struct fuzz_sink *s = ctx;

	/* Ranges in increasing order, inside the text, not empty. */
	if (start >= end || (s->in_fde && start < s->end))
		abort();
	s->start = start;
	s->end = end;
	s->in_fde = 1;
	s->last = 0;
	return 0;
}

static int f_row(void *ctx, u64 pc, const struct unwind_user_frame *frame)
{
	struct fuzz_sink *s = ctx;

	if (!s->in_fde || pc < s->start || pc >= s->end ||
	    (s->last && pc <= s->last))
		abort();
	s->last = pc;
	if (frame && frame->signal && (frame->cfa_off || frame->flags))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct eh_frame_input in;
	struct eh_frame_stats st;
	struct eh_frame_sink sink;
	struct fuzz_sink fs;
	struct fuzz_head h;
	u8 *hdr, *eh;
	size_t ehn;

	if (size < sizeof(h))
		return 0;
	memcpy(&h, data, sizeof(h));
	data += sizeof(h);
	size -= sizeof(h);
	if (h.hdr_size > size)
		return 0;
	ehn = size - h.hdr_size;
	hdr = malloc(h.hdr_size ? h.hdr_size : 1);
	eh = malloc(ehn ? ehn : 1);
	memcpy(hdr, data, h.hdr_size);
	memcpy(eh, data + h.hdr_size, ehn);
	memset(&in, 0, sizeof(in));
	in.hdr = hdr;
	in.hdr_size = h.hdr_size;
	in.hdr_addr = h.hdr_addr;
	in.eh = eh;
	in.eh_size = ehn;
	in.eh_addr = h.eh_addr;
	in.text_start = h.text_start;
	in.text_end = h.text_end;
	in.arch = h.arch;
	memset(&fs, 0, sizeof(fs));
	sink.func = f_func;
	sink.row = f_row;
	sink.ctx = &fs;
	eh_frame_convert(&in, &sink, &st);
	free(hdr);
	free(eh);
	return 0;
}
