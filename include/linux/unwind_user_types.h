/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_UNWIND_USER_TYPES_H
#define _LINUX_UNWIND_USER_TYPES_H

#include <linux/bits.h>
#include <linux/types.h>

/**
 * enum unwind_user_type - how a user space frame was unwound
 * @UNWIND_USER_TYPE_NONE:	not unwound (yet)
 * @UNWIND_USER_TYPE_FP:	frame pointer
 * @UNWIND_USER_TYPE_ENTRY:	at function entry, return address at the SP
 * @UNWIND_USER_TYPE_SFRAME:	SFrame rule for the instruction pointer
 * @UNWIND_USER_TYPE_SIGNAL:	code a signal interrupted, from the registers
 *				the kernel saved in the signal frame
 * @UNWIND_USER_TYPE_RECOVERED:	caller of a frame without SFrame data, found
 *				and validated by other means
 *
 * The types are bits, as in mainline, so that a set of them is a mask.
 */
enum unwind_user_type {
	UNWIND_USER_TYPE_NONE		= 0,
	UNWIND_USER_TYPE_FP		= BIT(0),
	UNWIND_USER_TYPE_ENTRY		= BIT(1),
	UNWIND_USER_TYPE_SFRAME		= BIT(2),
	UNWIND_USER_TYPE_SIGNAL		= BIT(3),
	UNWIND_USER_TYPE_RECOVERED	= BIT(4),
};

/**
 * struct unwind_user_frame - how to find the caller of one user frame
 * @cfa_off:	CFA (the caller's stack pointer) relative to the base register
 * @ra_off:	where the return address is saved, relative to the CFA
 * @fp_off:	where the caller's frame pointer is saved, relative to the CFA
 * @use_fp:	the base register is the frame pointer, not the stack pointer
 * @ra_saved:	@ra_off is valid; otherwise the return address is still in
 *		the link register, which is only meaningful for the innermost
 *		frame
 * @fp_saved:	@fp_off is valid; otherwise the frame pointer is unchanged
 * @ra_signed:	the saved return address carries a pointer authentication
 *		code that must be removed before use
 * @outermost:	this is the outermost frame: it has no caller
 * @signal:	the function is a signal trampoline (SFrame v3): its caller
 *		is found in the kernel's signal frame, not by the rule
 * @flags:	UNWIND_USER_F_* rules that only SFrame v3 flexible rows
 *		express; 0 for every other frame
 * @cfa_reg:	with UNWIND_USER_F_CFA_REG, the DWARF register the CFA is
 *		based on (neither the stack nor the frame pointer)
 * @ra_reg:	with UNWIND_USER_F_RA_REG, the DWARF register the return
 *		address is found through: saved at @ra_off from it if
 *		@ra_saved, else its value plus @ra_off
 * @fp_reg:	with UNWIND_USER_F_FP_REG, likewise for the frame pointer
 * @csr_off:	with @csr %UNWIND_USER_CSR_SAVED, where the caller's value of
 *		the callee-saved register a walk follows
 *		(ARCH_UNWIND_USER_DWARF_CSR) is saved, relative to the CFA
 * @csr:	what the rule says of that register: %UNWIND_USER_CSR_LOST
 *		(nothing, as SFrame and frame pointer rules), ..._SAME (the
 *		caller's value is this frame's) or ..._SAVED (at @csr_off)
 *
 * A register other than the stack and frame pointers is known in the
 * innermost frame only: a rule that needs one ends the walk deeper down.
 * The followed callee-saved register is the exception: it is known as
 * long as the rules of the frames below say where it is.
 */
struct unwind_user_frame {
	s32	cfa_off;
	s32	ra_off;
	s32	fp_off;
	bool	use_fp;
	bool	ra_saved;
	bool	fp_saved;
	bool	ra_signed;
	bool	outermost;
	bool	signal;
	u8	flags;
	u8	cfa_reg;
	u8	ra_reg;
	u8	fp_reg;
	s32	csr_off;
	u8	csr;
};

/**
 * struct unwind_user_sigregs - registers of code a signal interrupted
 * @ip:	instruction pointer
 * @sp:	stack pointer
 * @fp:	frame pointer
 * @lr:	link register, where there is one (else 0)
 */
struct unwind_user_sigregs {
	unsigned long	ip;
	unsigned long	sp;
	unsigned long	fp;
	unsigned long	lr;
};

/* The CFA is based on @cfa_reg, not on the stack or frame pointer. */
#define UNWIND_USER_F_CFA_REG		0x1
/* The CFA is the word stored at base + @cfa_off (a realigned stack). */
#define UNWIND_USER_F_CFA_DEREF		0x2
/* The return address is found through @ra_reg, not the CFA. */
#define UNWIND_USER_F_RA_REG		0x4
/* The caller's frame pointer is found through @fp_reg, not the CFA. */
#define UNWIND_USER_F_FP_REG		0x8

/* What a rule says of the callee-saved register a walk follows: @csr. */
#define UNWIND_USER_CSR_LOST		0
#define UNWIND_USER_CSR_SAME		1
#define UNWIND_USER_CSR_SAVED		2

#endif /* _LINUX_UNWIND_USER_TYPES_H */
