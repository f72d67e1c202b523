/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ASM_ARM64_UNWIND_USER_H
#define _ASM_ARM64_UNWIND_USER_H

#include <linux/elf-em.h>
#include <linux/signal.h>
#include <linux/unwind_user_types.h>
#include <linux/uaccess.h>
#include <asm/compiler.h>
#include <asm/insn.h>
#include <asm/ptrace.h>
#include <asm/ucontext.h>

#ifdef CONFIG_UNWIND_USER

/* AArch32 compat tasks are not unwound: their frames differ. */
static inline int unwind_user_word_size(struct pt_regs *regs)
{
	return compat_user_mode(regs) ? 0 : 8;
}

#endif /* CONFIG_UNWIND_USER */

#ifdef CONFIG_HAVE_UNWIND_USER_FP

/*
 * A frame record { x29, x30 } at x29: the caller's x29 at [x29], the return
 * address above it, signed when the code uses pointer authentication.
 * @ws is 8: AArch32 tasks are not unwound.
 */
#define ARCH_INIT_USER_FP_FRAME(ws)			\
	.cfa_off	= 2 * (ws),			\
	.ra_off		= -8,				\
	.fp_off		= -16,				\
	.use_fp		= true,				\
	.ra_saved	= true,				\
	.fp_saved	= true,				\
	.ra_signed	= true,

/* At a function's first instruction the return address is in x30. */
#define ARCH_INIT_USER_FP_ENTRY_FRAME(ws)		\
	.cfa_off	= 0 * (ws),			\
	.use_fp		= false,

/*
 * A call leaves the return address in x30; the callee saves it anywhere
 * in its frame. The stack pointer stays 16-byte aligned.
 */
#define ARCH_UNWIND_USER_CALL_PUSHES_RA	0

/* DWARF register numbers of SP and x29 */
#define ARCH_UNWIND_USER_DWARF_SP	31
#define ARCH_UNWIND_USER_DWARF_FP	29

#ifdef CONFIG_CPU_BIG_ENDIAN
#define ARCH_SFRAME_ABI			SFRAME_ABI_AARCH64_ENDIAN_BIG
#else
#define ARCH_SFRAME_ABI			SFRAME_ABI_AARCH64_ENDIAN_LITTLE
#endif
#define ARCH_SFRAME_ELF_MACHINE		EM_AARCH64

/* The innermost frame's return address may still be in the link register. */
static inline bool arch_unwind_user_link_register(struct pt_regs *regs,
						  unsigned long *ra)
{
	*ra = procedure_link_pointer(regs);
	return true;
}

/*
 * The value of DWARF register @reg (0-30: x0-x30) at the sample: for the
 * innermost frame's SFrame v3 flexible rules.
 */
static inline bool arch_unwind_user_reg(struct pt_regs *regs,
					unsigned int reg, unsigned long *val)
{
	if (reg > 30)
		return false;
	*val = regs->regs[reg];
	return true;
}

/* Remove the pointer authentication code of a signed return address. */
static inline unsigned long arch_unwind_user_strip_ra(unsigned long ra)
{
	return ptrauth_strip_user_insn_pac(ra);
}

/*
 * Is @ip the signal trampoline a handler returns to (the vDSO's
 * __kernel_rt_sigreturn, or a restorer of the same code: "mov x8,
 * #__NR_rt_sigreturn; svc #0"), @sp the stack pointer the handler was
 * entered with, which points at the kernel's rt_sigframe, a siginfo then
 * a ucontext? Then *@r are the registers of the interrupted code, from
 * the signal frame.
 */
static inline bool arch_unwind_user_sigframe(unsigned long ip, unsigned long sp,
					     struct unwind_user_sigregs *r)
{
	unsigned long sc = sp + sizeof(struct siginfo) +
			   offsetof(struct ucontext, uc_mcontext);
	__le32 insn[2];
	u64 regs[4];

	if (copy_from_user_nofault(insn, (const void __user *)ip, sizeof(insn)) ||
	    le32_to_cpu(insn[0]) != 0xd2801168 ||	/* mov x8, #139 */
	    le32_to_cpu(insn[1]) != 0xd4000001)		/* svc #0 */
		return false;
	/* x29, x30, sp and pc follow each other in struct sigcontext. */
	BUILD_BUG_ON(offsetof(struct sigcontext, pc) -
		     offsetof(struct sigcontext, regs[29]) != 3 * sizeof(u64));
	if (copy_from_user_nofault(regs, (const void __user *)(sc +
				   offsetof(struct sigcontext, regs[29])),
				   sizeof(regs)))
		return false;
	r->fp = regs[0];
	r->lr = regs[1];
	r->sp = regs[2];
	r->ip = regs[3];
	return true;
}

/* The user instruction that ends at @ra, read without faulting. */
static inline bool arch_unwind_user_insn_before(unsigned long ra, u32 *op)
{
	__le32 insn;

	if ((ra & 3) || ra < sizeof(insn) ||
	    copy_from_user_nofault(&insn,
				   (const void __user *)(ra - sizeof(insn)),
				   sizeof(insn)))
		return false;
	*op = le32_to_cpu(insn);
	return true;
}

/* Is the user instruction before @ra a BL, BLR or BLRA*? */
static inline bool arch_unwind_user_after_call(unsigned long ra)
{
	u32 op;

	return arch_unwind_user_insn_before(ra, &op) &&
	       (aarch64_insn_is_bl(op) || aarch64_insn_is_blr(op) ||
		aarch64_insn_is_blr_auth(op));
}

#endif /* CONFIG_HAVE_UNWIND_USER_FP */

#endif /* _ASM_ARM64_UNWIND_USER_H */
