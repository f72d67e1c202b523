/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ASM_X86_UNWIND_USER_H
#define _ASM_X86_UNWIND_USER_H

#include <linux/elf-em.h>
#include <linux/mm_types.h>
#include <linux/uaccess.h>
#include <linux/unwind_user_types.h>
#include <asm/ptrace.h>
#include <asm/sigframe.h>
#include <asm/vdso.h>

/* push %rbp; mov %rsp, %rbp: the caller's RBP at [RBP], the RA above it */
#define ARCH_INIT_USER_FP_FRAME {					\
	.cfa_off	= 2 * sizeof(long),				\
	.ra_off		= -1 * (int)sizeof(long),			\
	.fp_off		= -2 * (int)sizeof(long),			\
	.use_fp		= true,						\
	.ra_saved	= true,						\
	.fp_saved	= true,						\
}

/* At a function's first instruction the return address is at RSP. */
#define ARCH_INIT_USER_FP_ENTRY_FRAME {				\
	.cfa_off	= sizeof(long),					\
	.ra_off		= -1 * (int)sizeof(long),			\
	.use_fp		= false,					\
	.ra_saved	= true,						\
	.fp_saved	= false,					\
}

/* A call pushes the return address: the caller's SP is right above it. */
#define ARCH_UNWIND_USER_CALL_PUSHES_RA	1
#define ARCH_UNWIND_USER_SP_ALIGN	sizeof(long)

/* DWARF register numbers of RSP and RBP */
#define ARCH_UNWIND_USER_DWARF_SP	7
#define ARCH_UNWIND_USER_DWARF_FP	6
/*
 * The callee-saved register a walk follows through .eh_frame frames: RBX,
 * the CFA base of glibc's lazy binding trampoline (_dl_runtime_resolve_*)
 */
#define ARCH_UNWIND_USER_DWARF_CSR	3

#define ARCH_SFRAME_ABI			SFRAME_ABI_AMD64_ENDIAN_LITTLE
#define ARCH_SFRAME_ELF_MACHINE		EM_X86_64

/* Only 64-bit tasks; compat tasks keep their own frame pointer walk. */
static inline bool arch_unwind_user_supported(struct pt_regs *regs)
{
	return user_64bit_mode(regs);
}

/* The 64-bit vDSO's image, whose .eh_frame is converted once at boot. */
static inline void arch_unwind_user_vdso_image(const void **image,
					       size_t *size)
{
	*image = vdso_image_64.data;
	*size = vdso_image_64.size;
}

/* Where @mm has that vDSO's text, if it has it (not a compat vDSO). */
static inline bool arch_unwind_user_vdso_base(struct mm_struct *mm,
					      unsigned long *base)
{
	if (READ_ONCE(mm->context.vdso_image) != &vdso_image_64)
		return false;
	*base = (unsigned long)READ_ONCE(mm->context.vdso);
	return true;
}

#define arch_unwind_user_vdso_base arch_unwind_user_vdso_base

/* The return address is never in a register at a sample on x86. */
static inline bool arch_unwind_user_link_register(struct pt_regs *regs,
						  unsigned long *ra)
{
	return false;
}

/*
 * The value of DWARF register @reg (0-15: RAX, RDX, RCX, RBX, RSI, RDI,
 * RBP, RSP, R8-R15) at the sample: for the innermost frame's SFrame v3
 * flexible rules.
 */
static inline bool arch_unwind_user_reg(struct pt_regs *regs,
					unsigned int reg, unsigned long *val)
{
	static const u8 offs[] = {
		offsetof(struct pt_regs, ax), offsetof(struct pt_regs, dx),
		offsetof(struct pt_regs, cx), offsetof(struct pt_regs, bx),
		offsetof(struct pt_regs, si), offsetof(struct pt_regs, di),
		offsetof(struct pt_regs, bp), offsetof(struct pt_regs, sp),
		offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
		offsetof(struct pt_regs, r10), offsetof(struct pt_regs, r11),
		offsetof(struct pt_regs, r12), offsetof(struct pt_regs, r13),
		offsetof(struct pt_regs, r14), offsetof(struct pt_regs, r15),
	};

	if (reg >= ARRAY_SIZE(offs))
		return false;
	*val = *(unsigned long *)((void *)regs + offs[reg]);
	return true;
}

static inline unsigned long arch_unwind_user_strip_ra(unsigned long ra)
{
	return ra;
}

/*
 * Is @ip the signal trampoline a handler returns to (the restorer the C
 * library passes to sigaction(), glibc's and musl's __restore_rt:
 * "mov $__NR_rt_sigreturn, %rax; syscall"), @sp the stack pointer after
 * the handler's return popped rt_sigframe.pretcode? Then *@r are the
 * registers of the interrupted code, from the signal frame.
 */
static inline bool arch_unwind_user_sigframe(unsigned long ip, unsigned long sp,
					     struct unwind_user_sigregs *r)
{
	static const u8 restore_rt[] = {
		0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00,	/* mov $15, %rax */
		0x0f, 0x05,					/* syscall */
	};
	unsigned long sc = sp - sizeof(long) +
			   offsetof(struct rt_sigframe, uc.uc_mcontext);
	u8 insn[sizeof(restore_rt)];

	if (copy_from_user_nofault(insn, (const void __user *)ip, sizeof(insn)) ||
	    memcmp(insn, restore_rt, sizeof(insn)))
		return false;
	if (copy_from_user_nofault(&r->ip, (const void __user *)(sc +
				   offsetof(struct sigcontext, ip)), sizeof(long)) ||
	    copy_from_user_nofault(&r->sp, (const void __user *)(sc +
				   offsetof(struct sigcontext, sp)), sizeof(long)) ||
	    copy_from_user_nofault(&r->fp, (const void __user *)(sc +
				   offsetof(struct sigcontext, bp)), sizeof(long)))
		return false;
	r->lr = 0;
	return true;
}

/*
 * Does the user text before @ra end with a call instruction: a direct
 * call, or an indirect one (FF /2) through a register or memory operand,
 * with a REX prefix or not?
 */
static inline bool arch_unwind_user_after_call(unsigned long ra)
{
	u8 b[7];

	if (ra < sizeof(b) ||
	    copy_from_user_nofault(b, (const void __user *)(ra - sizeof(b)),
				   sizeof(b)))
		return false;

	/* b[7 - n] is the first byte of an n-byte instruction ending at ra */
	if (b[2] == 0xe8)					/* rel32 */
		return true;
	if (b[5] == 0xff && ((b[6] & 0xf8) == 0xd0 ||		/* %reg */
			     ((b[6] & 0xf8) == 0x10 &&		/* (%reg) */
			      (b[6] & 7) != 4 && (b[6] & 7) != 5)))
		return true;
	if (b[4] == 0xff && (((b[5] & 0xf8) == 0x50 &&		/* d8(%reg) */
			      (b[5] & 7) != 4) || b[5] == 0x14))/* (sib) */
		return true;
	if (b[3] == 0xff && b[4] == 0x54)			/* d8(sib) */
		return true;
	if (b[1] == 0xff && (((b[2] & 0xf8) == 0x90 &&		/* d32(%reg) */
			      (b[2] & 7) != 4) || b[2] == 0x15))/* d32(%rip) */
		return true;
	return b[0] == 0xff && b[1] == 0x94;			/* d32(sib) */
}

/*
 * The target of a direct call (E8 rel32) that ends at @ra; through a PLT
 * entry (jmp *GOT(%rip), with or without endbr64 and bnd prefixes), the
 * address the GOT entry holds.
 */
static inline bool arch_unwind_user_call_target(unsigned long ra,
						unsigned long *target)
{
	static const u8 endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	unsigned long got, t;
	unsigned int i = 0;
	u8 b[11];
	s32 rel;

	if (ra < 5 ||
	    copy_from_user_nofault(b, (const void __user *)(ra - 5), 5) ||
	    b[0] != 0xe8)
		return false;
	memcpy(&rel, &b[1], sizeof(rel));
	t = ra + rel;

	if (copy_from_user_nofault(b, (const void __user *)t, sizeof(b)))
		return false;
	if (!memcmp(b, endbr64, sizeof(endbr64)))
		i = sizeof(endbr64);
	if (b[i] == 0xf2)
		i++;
	if (b[i] == 0xff && b[i + 1] == 0x25) {
		memcpy(&rel, &b[i + 2], sizeof(rel));
		got = t + i + 6 + rel;
		if (copy_from_user_nofault(&t, (const void __user *)got,
					   sizeof(t)))
			return false;
	}
	*target = t;
	return true;
}

/*
 * Is @target, where a PLT entry's GOT slot points, still its lazy binding
 * stub ([endbr64] push $index), which goes to the dynamic linker?
 */
static inline bool arch_unwind_user_lazy_stub(unsigned long target)
{
	u8 b[5];

	if (copy_from_user_nofault(b, (const void __user *)target, sizeof(b)))
		return false;
	return b[0] == 0x68 ||
	       (b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && b[3] == 0xfa &&
		b[4] == 0x68);
}

#endif /* _ASM_X86_UNWIND_USER_H */
