/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SFrame on-disk format, versions 1, 2 and 3, as written by GNU as --gsframe.
 *
 * All fields are in the target's byte order and are not naturally aligned:
 * the structures below are packed and only ever filled by copying bytes out
 * of (untrusted) user memory.
 */
#ifndef _KERNEL_UNWIND_SFRAME_H
#define _KERNEL_UNWIND_SFRAME_H

#include <linux/types.h>

#define SFRAME_MAGIC				0xdee2

#define SFRAME_VERSION_1			1
#define SFRAME_VERSION_2			2
#define SFRAME_VERSION_3			3

#define SFRAME_F_FDE_SORTED			0x1
#define SFRAME_F_FRAME_POINTER			0x2
#define SFRAME_F_FDE_FUNC_START_PCREL		0x4
#define SFRAME_F_ALL				(SFRAME_F_FDE_SORTED | \
						 SFRAME_F_FRAME_POINTER | \
						 SFRAME_F_FDE_FUNC_START_PCREL)
/* Version 3 drops SFRAME_F_FRAME_POINTER. */
#define SFRAME_V3_F_ALL				(SFRAME_F_FDE_SORTED | \
						 SFRAME_F_FDE_FUNC_START_PCREL)

/* SFrame ABI/architecture identifiers, as in the section header. */
#define SFRAME_ABI_AARCH64_ENDIAN_BIG		1
#define SFRAME_ABI_AARCH64_ENDIAN_LITTLE	2
#define SFRAME_ABI_AMD64_ENDIAN_LITTLE		3

struct sframe_preamble {
	u16	magic;
	u8	version;
	u8	flags;
} __packed;

struct sframe_header {
	struct sframe_preamble preamble;
	u8	abi_arch;
	s8	cfa_fixed_fp_offset;
	s8	cfa_fixed_ra_offset;
	u8	auxhdr_len;
	u32	num_fdes;
	u32	num_fres;
	u32	fre_len;
	u32	fdes_off;
	u32	fres_off;
} __packed;

/* Function descriptor entry, version 1. */
struct sframe_fde_v1 {
	s32	start_addr;
	u32	func_size;
	u32	fres_off;
	u32	fres_num;
	u8	info;
} __packed;

/* Version 2 adds the repetition block size of PCMASK functions. */
struct sframe_fde_v2 {
	s32	start_addr;
	u32	func_size;
	u32	fres_off;
	u32	fres_num;
	u8	info;
	u8	rep_size;
	u16	padding;
} __packed;

/*
 * Version 3 splits a function descriptor in two: an index entry, which the
 * lookup searches, and an attribute record at the head of the function's
 * rows in the FRE sub-section, which its frame row entries follow. The
 * function start is relative to the index entry's own start field.
 */
struct sframe_fde_v3 {
	s64	start_off;
	u32	func_size;
	u32	attr_off;
} __packed;

struct sframe_fda_v3 {
	u16	fres_num;
	u8	info;
	u8	info2;
	u8	rep_size;
} __packed;

/* sframe_fde.info */
#define SFRAME_FUNC_FRE_TYPE(info)		((info) & 0xf)
#define SFRAME_FUNC_FDE_TYPE(info)		(((info) >> 4) & 0x1)
#define SFRAME_FUNC_PAUTH_KEY(info)		(((info) >> 5) & 0x1)
/* Version 3: the function is a signal trampoline. */
#define SFRAME_V3_FUNC_SIGNAL_P(info)		(((info) >> 7) & 0x1)
#define SFRAME_V3_FUNC_INFO_RESERVED		0x40

/* sframe_fda_v3.info2: how the data words of the function's rows read */
#define SFRAME_V3_FDE_TYPE(info2)		((info2) & 0x1f)
#define SFRAME_V3_FDE_TYPE_DEFAULT		0
#define SFRAME_V3_FDE_TYPE_FLEX			1
#define SFRAME_V3_INFO2_RESERVED		0xe0

#define SFRAME_FRE_TYPE_ADDR1			0
#define SFRAME_FRE_TYPE_ADDR2			1
#define SFRAME_FRE_TYPE_ADDR4			2

#define SFRAME_FDE_TYPE_PCINC			0
#define SFRAME_FDE_TYPE_PCMASK			1

/*
 * A version 1 PCMASK function has no block size. The only producer is the
 * x86-64 linker for .plt, whose entries are 16 bytes.
 */
#define SFRAME_V1_PCMASK_REP_SIZE		16

/* Frame row entry info byte, following the FRE start address. */
#define SFRAME_FRE_CFA_BASE_REG_ID(info)	((info) & 0x1)
#define SFRAME_FRE_OFFSET_COUNT(info)		(((info) >> 1) & 0xf)
#define SFRAME_FRE_OFFSET_SIZE(info)		(((info) >> 5) & 0x3)
#define SFRAME_FRE_MANGLED_RA_P(info)		(((info) >> 7) & 0x1)

#define SFRAME_BASE_REG_FP			0
#define SFRAME_BASE_REG_SP			1

#define SFRAME_FRE_OFFSET_1B			0
#define SFRAME_FRE_OFFSET_2B			1
#define SFRAME_FRE_OFFSET_4B			2

/* CFA, RA and FP: more offsets are not defined for the supported ABIs. */
#define SFRAME_FRE_MAX_OFFSETS			3

/*
 * Rows of a version 3 flexible (FLEX) function: a (control, offset) word
 * pair for the CFA, then for the RA and the FP, each of which may instead
 * be a single zero word (no rule: the default) or absent. The control word
 * names a DWARF register as the base (else the CFA) and whether the value
 * is loaded from base + offset or is that sum.
 */
#define SFRAME_V3_FLEX_MAX_WORDS		6
#define SFRAME_V3_FLEX_REG_P(ctl)		((ctl) & 0x1)
#define SFRAME_V3_FLEX_DEREF_P(ctl)		(((ctl) >> 1) & 0x1)
#define SFRAME_V3_FLEX_RESERVED			0x4
#define SFRAME_V3_FLEX_REGNUM(ctl)		((ctl) >> 3)
/* Register numbers beyond this name no register of a supported ABI. */
#define SFRAME_V3_FLEX_MAX_REG			0xff

/* DWARF numbers of the stack and frame pointers. */
#define SFRAME_AMD64_DWARF_SP			7
#define SFRAME_AMD64_DWARF_FP			6
#define SFRAME_AARCH64_DWARF_SP			31
#define SFRAME_AARCH64_DWARF_FP			29

#endif /* _KERNEL_UNWIND_SFRAME_H */
