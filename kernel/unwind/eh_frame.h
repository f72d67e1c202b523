/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Conversion of a user space file's .eh_frame (found through its
 * .eh_frame_hdr, or indexed by eh_frame_index() where a file has none)
 * into per-PC unwinding rules, for files without .sframe.
 * Internal to kernel/unwind; also built in user space by harness/ehtest.
 */
#ifndef _KERNEL_UNWIND_EH_FRAME_H
#define _KERNEL_UNWIND_EH_FRAME_H

#include <linux/bits.h>
#include <linux/elf-em.h>
#include <linux/types.h>
#include <linux/unwind_user_types.h>

/* Register conventions of the file: its ELF e_machine. */
#define EH_FRAME_ARCH_X86_64		EM_X86_64
#define EH_FRAME_ARCH_ARM64		EM_AARCH64

/*
 * The deepest DW_CFA_remember_state nesting converted; a deeper FDE is
 * given as one inexpressible row (Debian 12 never nests deeper than 1).
 */
#define EH_FRAME_REMEMBER_MAX		8
/* CIE initial instructions longer than this reject the file (-E2BIG). */
#define EH_FRAME_CIE_INSNS_MAX		256
/*
 * A .plt expression row longer than this is not expanded (inexpressible),
 * nor are such rows beyond this much text in all a file's FDEs.
 */
#define EH_FRAME_PLT_MAX_BYTES		BIT(20)

/**
 * struct eh_frame_input - the sections of one ELF file
 * @hdr:	copy of .eh_frame_hdr
 * @hdr_size:	its size in bytes
 * @hdr_addr:	its address (ELF virtual address, or where it is mapped)
 * @eh:		copy of .eh_frame
 * @eh_size:	its size in bytes
 * @eh_addr:	its address, in the same address space as @hdr_addr
 * @text_start:	first address an FDE may describe
 * @text_end:	end (exclusive) of the addresses FDEs may describe
 * @arch:	EH_FRAME_ARCH_X86_64 or EH_FRAME_ARCH_ARM64
 */
struct eh_frame_input {
	const u8	*hdr;
	u32		hdr_size;
	u64		hdr_addr;
	const u8	*eh;
	u32		eh_size;
	u64		eh_addr;
	u64		text_start;
	u64		text_end;
	u16		arch;
};

/* What a sink's @func returns for an FDE whose rows it does not want. */
#define EH_FRAME_SKIP	1

/**
 * struct eh_frame_sink - where eh_frame_convert() puts its result
 * @func:	called once per FDE with a non-empty range [@start, @end), in
 *		increasing address order, before the rows of that FDE;
 *		returns %EH_FRAME_SKIP to have none of its rows
 * @row:	a row from @pc (inclusive) to the next row or the end of the
 *		FDE; @frame NULL: no struct unwind_user_frame expresses the
 *		rule exactly, a walk must end there. Rows of an FDE come in
 *		increasing @pc order, the first at the FDE's start.
 * @ctx:	passed to both
 *
 * A negative return of @func or @row stops the conversion, which then
 * returns that value.
 */
struct eh_frame_sink {
	int	(*func)(void *ctx, u64 start, u64 end);
	int	(*row)(void *ctx, u64 pc, const struct unwind_user_frame *frame);
	void	*ctx;
};

/**
 * enum eh_frame_reason - why a row has no struct unwind_user_frame
 * @EH_FRAME_BAD_CFA_EXPR:	CFA by an expression other than
 *				"bregN off; deref" and the x86_64 .plt one
 * @EH_FRAME_BAD_CFA_REG:	CFA on a register that is no general one,
 *				or no CFA rule at all
 * @EH_FRAME_BAD_RA:		return address by an expression, a value
 *				rule, an unusable register, unspecified or
 *				same value on x86_64, or a CIE whose return
 *				address column is not the architecture's
 * @EH_FRAME_BAD_FP:		frame pointer by an expression, a value
 *				rule, an unusable register, or undefined
 * @EH_FRAME_BAD_OFFSET:	an offset that does not fit in s32
 * @EH_FRAME_BAD_FDE:		the whole FDE: remember_state nested deeper
 *				than EH_FRAME_REMEMBER_MAX, or an opcode
 *				with no meaning on the architecture
 * @EH_FRAME_BAD_PLT:		.plt expression over more than
 *				EH_FRAME_PLT_MAX_BYTES of text, in one FDE
 *				or in all of them
 * @EH_FRAME_BAD_SP:		a rule for the stack pointer other than
 *				"the CFA" (the caller's stack pointer is
 *				elsewhere)
 * @EH_FRAME_BAD_NR:		number of reasons
 */
enum eh_frame_reason {
	EH_FRAME_BAD_CFA_EXPR,
	EH_FRAME_BAD_CFA_REG,
	EH_FRAME_BAD_RA,
	EH_FRAME_BAD_FP,
	EH_FRAME_BAD_OFFSET,
	EH_FRAME_BAD_FDE,
	EH_FRAME_BAD_PLT,
	EH_FRAME_BAD_SP,
	EH_FRAME_BAD_NR,
};

/**
 * struct eh_frame_stats - counts of one conversion
 * @fdes:	FDEs whose rows were given to the sink (non-empty ranges)
 * @skipped_fdes: FDEs the sink skipped
 * @empty_fdes:	FDEs of the table with an empty range (skipped)
 * @rows:	rows given to the sink, inexpressible ones included
 * @plt_rows:	of those, rows expanded from the x86_64 .plt expression
 * @signal_fdes: FDEs of a signal frame CIE ("S")
 * @bad_rows:	rows given with a NULL frame
 * @bad:	@bad_rows by enum eh_frame_reason
 * @bytes:	bytes of FDE and CIE records interpreted (a CIE each time
 *		it is parsed), the measure of the conversion's work
 */
struct eh_frame_stats {
	u32	fdes;
	u32	skipped_fdes;
	u32	empty_fdes;
	u32	rows;
	u32	plt_rows;
	u32	signal_fdes;
	u32	bad_rows;
	u32	bad[EH_FRAME_BAD_NR];
	u64	bytes;
};

int eh_frame_convert(const struct eh_frame_input *in,
		     const struct eh_frame_sink *sink,
		     struct eh_frame_stats *stats);
int eh_frame_index(struct eh_frame_input *in);

#endif /* _KERNEL_UNWIND_EH_FRAME_H */
