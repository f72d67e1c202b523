/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ASM_X86_UNWIND_USER_H
#define _ASM_X86_UNWIND_USER_H

#include <linux/elf-em.h>
#include <linux/unwind_user_types.h>
#include <asm/ptrace.h>

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
#define ARCH_INIT_USER_ENTRY_FRAME {					\
	.cfa_off	= sizeof(long),					\
	.ra_off		= -1 * (int)sizeof(long),			\
	.use_fp		= false,					\
	.ra_saved	= true,						\
	.fp_saved	= false,					\
}

#define ARCH_SFRAME_ABI			SFRAME_ABI_AMD64_ENDIAN_LITTLE
#define ARCH_SFRAME_ELF_MACHINE		EM_X86_64

/* Only 64-bit tasks; compat tasks keep their own frame pointer walk. */
static inline bool arch_unwind_user_supported(struct pt_regs *regs)
{
	return user_64bit_mode(regs);
}

/* The return address is never in a register at a sample on x86. */
static inline bool arch_unwind_user_link_register(struct pt_regs *regs,
						  unsigned long *ra)
{
	return false;
}

static inline unsigned long arch_unwind_user_strip_ra(unsigned long ra)
{
	return ra;
}

#endif /* _ASM_X86_UNWIND_USER_H */
