// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame decoder for user space stack unwinding.
 *
 * A .sframe section is untrusted: it can be malformed in any way. The
 * decoder reads a copy of it (the kernel makes one from the page cache
 * when a file is mapped) and never dereferences it directly: every access
 * goes through sframe_read(), which bounds-checks the range against the
 * section. The validation checks every descriptor and row, in task
 * context, and builds the section's lookup table (struct sframe_rules):
 * sorted row starts, each with an index into an array of the distinct
 * rules, and a block index on top. Lookups, which run in any context
 * including NMI, read that table only.
 *
 * This file can also be built in user space, for tests and fuzzing, with
 * small stand-ins for the few kernel headers it includes: keep it free of
 * other kernel dependencies.
 */

#include <linux/array_size.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/types.h>

#include "sframe.h"
#include "sframe_table.h"

/* A function with more rows than this is rejected by the validation. */
#define SFRAME_MAX_FRES_PER_FDE		8192
/* Descriptors or rows validated between checks for a fatal signal. */
#define SFRAME_VALIDATE_BATCH		1024
/*
 * Rows the repetitions of PCMASK functions (.plt) add to a table, at most:
 * one per byte of the section, and room for a large .plt in any case.
 */
#define SFRAME_PCMASK_ROWS_MIN		65536

/*
 * Copy @len bytes of the section at @addr, a range the caller checked.
 * The kernel reads its own copy of the section; the user space build of
 * this file provides a copy that checks and can fail.
 */
#ifndef sframe_copy
#define sframe_copy(dst, addr, len)					\
	({ memcpy((dst), (const void *)(addr), (len)); 0; })
#endif

/* Copy @len bytes of the section at @addr to @dst, if they are in it. */
static int sframe_read(const struct sframe_table *tbl, void *dst,
		       unsigned long addr, size_t len)
{
	if (addr < tbl->sec_start || addr >= tbl->sec_end ||
	    len > tbl->sec_end - addr)
		return -EINVAL;
	return sframe_copy(dst, addr, len);
}

/**
 * sframe_table_init() - check an SFrame header and describe its section
 * @tbl:	table to fill in
 * @hdr:	a copy of the first @hdr_len bytes of the section
 * @hdr_len:	number of bytes at @hdr
 * @sec_start:	address of the section
 * @sec_size:	size of the section in bytes
 * @text_start:	first text address the section may describe, placed
 *		relative to @sec_start as the ELF file places them
 * @text_end:	end of that text (exclusive)
 * @abi:	the SFRAME_ABI_* value the task's architecture requires
 *
 * Checks the magic, the version, the flags, the ABI and that the function
 * descriptor table and the frame row entries lie inside the section.
 *
 * Return: 0 on success, -EINVAL if the header is not acceptable.
 */
int sframe_table_init(struct sframe_table *tbl, const void *hdr,
		      size_t hdr_len, unsigned long sec_start,
		      unsigned long sec_size, unsigned long text_start,
		      unsigned long text_end, u8 abi)
{
	const struct sframe_header *h = hdr;
	unsigned long hdr_size, data_size, fdes_size;

	if (hdr_len < sizeof(*h) || sec_size < sizeof(*h))
		return -EINVAL;
	if (sec_start + sec_size < sec_start || text_start >= text_end)
		return -EINVAL;
	if (h->preamble.magic != SFRAME_MAGIC)
		return -EINVAL;
	if (h->abi_arch != abi)
		return -EINVAL;
	if (h->preamble.flags & ~SFRAME_F_ALL)
		return -EINVAL;
	/* Binary search needs sorted descriptors. */
	if (!(h->preamble.flags & SFRAME_F_FDE_SORTED))
		return -EINVAL;

	switch (h->preamble.version) {
	case SFRAME_VERSION_1:
		if (h->preamble.flags & SFRAME_F_FDE_FUNC_START_PCREL)
			return -EINVAL;
		tbl->fde_size = sizeof(struct sframe_fde_v1);
		break;
	case SFRAME_VERSION_2:
		tbl->fde_size = sizeof(struct sframe_fde_v2);
		break;
	case SFRAME_VERSION_3:
		/*
		 * Function starts relative to their index entry, and the index
		 * right after the header, as gas and ld always write them: the
		 * readings of the specification that differ for an index
		 * elsewhere are not needed.
		 */
		if (h->preamble.flags & ~SFRAME_V3_F_ALL ||
		    !(h->preamble.flags & SFRAME_F_FDE_FUNC_START_PCREL) ||
		    h->fdes_off)
			return -EINVAL;
		tbl->fde_size = sizeof(struct sframe_fde_v3);
		break;
	default:
		/* A format this kernel does not know, not a malformed one. */
		return -EOPNOTSUPP;
	}

	hdr_size = sizeof(*h) + h->auxhdr_len;
	if (hdr_size > sec_size)
		return -EINVAL;
	data_size = sec_size - hdr_size;

	fdes_size = (unsigned long)h->num_fdes * tbl->fde_size;
	if (h->fdes_off > data_size || fdes_size > data_size - h->fdes_off)
		return -EINVAL;
	if (h->fres_off > data_size || h->fre_len > data_size - h->fres_off)
		return -EINVAL;
	/* Version 3 rows follow the index, as attribute records and rows. */
	if (h->preamble.version == SFRAME_VERSION_3 &&
	    (h->fres_off < fdes_size ||
	     h->fre_len / sizeof(struct sframe_fda_v3) < h->num_fdes))
		return -EINVAL;
	/* An FRE takes at least two bytes: a start address and its info. */
	if (h->num_fres > h->fre_len / 2)
		return -EINVAL;

	tbl->sec_start = sec_start;
	tbl->sec_end = sec_start + sec_size;
	tbl->fdes_start = sec_start + hdr_size + h->fdes_off;
	tbl->fres_start = sec_start + hdr_size + h->fres_off;
	tbl->fres_end = tbl->fres_start + h->fre_len;
	tbl->text_start = text_start;
	tbl->text_end = text_end;
	tbl->num_fdes = h->num_fdes;
	tbl->num_fres = h->num_fres;
	tbl->version = h->preamble.version;
	tbl->flags = h->preamble.flags;
	tbl->abi = h->abi_arch;
	tbl->fixed_fp_off = h->cfa_fixed_fp_offset;
	tbl->fixed_ra_off = h->cfa_fixed_ra_offset;
	return 0;
}

/* A function descriptor, decoded. */
struct sframe_fde {
	unsigned long	func_start;
	u32		func_size;
	u32		fres_off;	/* first row, from the FRE sub-section */
	u32		fres_num;
	u8		info;
	u8		info2;		/* version 3 only, else 0 (DEFAULT) */
	u8		rep_size;
};

static __always_inline unsigned long
sframe_fde_addr(const struct sframe_table *tbl, u32 idx)
{
	return tbl->fdes_start + (unsigned long)idx * tbl->fde_size;
}

/* The function start stored at @fde_addr, as a user text address. */
static __always_inline unsigned long
sframe_func_start(const struct sframe_table *tbl, unsigned long fde_addr,
		  s32 start_addr)
{
	unsigned long base = tbl->sec_start;

	if (tbl->flags & SFRAME_F_FDE_FUNC_START_PCREL)
		base = fde_addr;
	return base + (long)start_addr;
}

/*
 * Frame row entries are small (2 to 17 bytes) and read in sequence: they
 * are read through a window, a copy of up to SFRAME_WINDOW_SIZE bytes of the
 * row sub-section. The validation reads exactly what it checks, so that it
 * never touches rows beyond those it has accounted for.
 */
#define SFRAME_WINDOW_SIZE		64

struct sframe_window {
	unsigned long	start;		/* address of buf[0] */
	unsigned int	len;		/* bytes copied to buf */
	u8		buf[SFRAME_WINDOW_SIZE];
};

static inline void sframe_window_init(struct sframe_window *w)
{
	w->start = 0;
	w->len = 0;
}

/*
 * Make @len bytes of the row sub-section at @addr available at *@p, copying
 * a new window from @addr on if the current one does not hold them.
 */
static int sframe_window_get(const struct sframe_table *tbl,
			     struct sframe_window *w, unsigned long addr,
			     unsigned int len, const u8 **p)
{
	int ret;

	if (addr < tbl->fres_start || addr >= tbl->fres_end ||
	    len > tbl->fres_end - addr || len > SFRAME_WINDOW_SIZE)
		return -EINVAL;

	if (addr < w->start || addr - w->start > w->len ||
	    len > w->len - (addr - w->start)) {
		ret = sframe_read(tbl, w->buf, addr, len);
		if (ret)
			return ret;
		w->start = addr;
		w->len = len;
	}
	*p = w->buf + (addr - w->start);
	return 0;
}

/*
 * The attribute record of a version 3 function, at @fde->fres_off until
 * it is read, with the function's rows right behind it.
 */
static int sframe_read_attrs(const struct sframe_table *tbl,
			     struct sframe_fde *fde, struct sframe_window *w)
{
	struct sframe_fda_v3 attr;
	const u8 *buf;
	int ret;

	if (tbl->version != SFRAME_VERSION_3)
		return 0;
	ret = sframe_window_get(tbl, w, tbl->fres_start + fde->fres_off,
				sizeof(attr), &buf);
	if (ret)
		return ret;
	memcpy(&attr, buf, sizeof(attr));
	fde->fres_off += sizeof(attr);
	fde->fres_num = attr.fres_num;
	fde->info = attr.info;
	fde->info2 = attr.info2;
	fde->rep_size = attr.rep_size;
	return 0;
}

/* The bytes of one descriptor, of any version, as read from the section. */
union sframe_fde_raw {
	struct sframe_fde_v1	v1;
	struct sframe_fde_v2	v2;
	struct sframe_fde_v3	v3;
};

/*
 * Decode the descriptor @idx from its bytes @r.
 * Of version 3, @r is its index entry: sframe_read_attrs() reads the rest.
 */
static void sframe_decode_fde(const struct sframe_table *tbl, u32 idx,
			      const union sframe_fde_raw *r,
			      struct sframe_fde *fde)
{
	unsigned long addr = sframe_fde_addr(tbl, idx);
	struct sframe_fde_v2 raw = {};

	if (tbl->version == SFRAME_VERSION_3) {
		fde->func_start = addr + r->v3.start_off;
		fde->func_size = r->v3.func_size;
		fde->fres_off = r->v3.attr_off;
		fde->fres_num = 0;
		fde->info = 0;
		fde->info2 = 0;
		fde->rep_size = 0;
		return;
	}

	/* A v1 descriptor is the first 17 bytes of a v2 one. */
	memcpy(&raw, r, tbl->fde_size);
	fde->func_start = sframe_func_start(tbl, addr, raw.start_addr);
	fde->func_size = raw.func_size;
	fde->fres_off = raw.fres_off;
	fde->fres_num = raw.fres_num;
	fde->info = raw.info;
	fde->info2 = SFRAME_V3_FDE_TYPE_DEFAULT;
	if (tbl->version == SFRAME_VERSION_1)
		fde->rep_size = SFRAME_V1_PCMASK_REP_SIZE;
	else
		fde->rep_size = raw.rep_size;
}

/* Read and decode the descriptor @idx. */
static int sframe_read_fde(const struct sframe_table *tbl, u32 idx,
			   struct sframe_fde *fde)
{
	union sframe_fde_raw r;
	int ret;

	ret = sframe_read(tbl, &r, sframe_fde_addr(tbl, idx), tbl->fde_size);
	if (ret)
		return ret;
	sframe_decode_fde(tbl, idx, &r, fde);
	return 0;
}

static inline unsigned int sframe_addr_size(u8 fre_type)
{
	switch (fre_type) {
	case SFRAME_FRE_TYPE_ADDR1:
		return 1;
	case SFRAME_FRE_TYPE_ADDR2:
		return 2;
	case SFRAME_FRE_TYPE_ADDR4:
		return 4;
	}
	return 0;
}

static inline unsigned int sframe_offset_size(u8 fre_info)
{
	switch (SFRAME_FRE_OFFSET_SIZE(fre_info)) {
	case SFRAME_FRE_OFFSET_1B:
		return 1;
	case SFRAME_FRE_OFFSET_2B:
		return 2;
	case SFRAME_FRE_OFFSET_4B:
		return 4;
	}
	return 0;
}

/* One frame row entry, as the scan sees it. */
struct sframe_fre {
	unsigned long	addr;		/* address of the entry */
	u32		start;		/* start offset in the function */
	u8		info;
	unsigned int	size;		/* total size in bytes */
};

/* Read and check the start address and info byte of the FRE at @addr. */
static int sframe_read_fre(const struct sframe_table *tbl,
			   struct sframe_window *w, unsigned long addr,
			   unsigned int addr_size, unsigned int max_words,
			   struct sframe_fre *fre)
{
	unsigned int count, off_size;
	const u8 *buf;
	int ret;

	ret = sframe_window_get(tbl, w, addr, addr_size + 1, &buf);
	if (ret)
		return ret;

	switch (addr_size) {
	case 1:
		fre->start = buf[0];
		break;
	case 2: {
		u16 start;

		memcpy(&start, buf, sizeof(start));
		fre->start = start;
		break;
	}
	default:
		memcpy(&fre->start, buf, sizeof(fre->start));
		break;
	}
	fre->info = buf[addr_size];
	fre->addr = addr;

	/* No offset at all marks the outermost frame (SFrame v2 erratum). */
	count = SFRAME_FRE_OFFSET_COUNT(fre->info);
	off_size = sframe_offset_size(fre->info);
	if (count > max_words || !off_size)
		return -EINVAL;

	fre->size = addr_size + 1 + count * off_size;
	if (addr + fre->size > tbl->fres_end || addr + fre->size < addr)
		return -EINVAL;
	return 0;
}

/* A data word of @size bytes (1, 2 or 4), unsigned: a control word. */
static u32 sframe_word(const u8 *p, unsigned int size)
{
	u16 w16;
	u32 w32;

	switch (size) {
	case 1:
		return *p;
	case 2:
		memcpy(&w16, p, sizeof(w16));
		return w16;
	default:
		memcpy(&w32, p, sizeof(w32));
		return w32;
	}
}

/* The same word, signed: an offset. */
static s32 sframe_offset(const u8 *p, unsigned int size)
{
	u32 w = sframe_word(p, size);

	return size == 1 ? (s8)w : size == 2 ? (s16)w : (s32)w;
}

/* The DWARF numbers of the stack and frame pointers of @abi. */
static void sframe_abi_regs(u8 abi, unsigned int *sp, unsigned int *fp)
{
	if (abi == SFRAME_ABI_AMD64_ENDIAN_LITTLE) {
		*sp = SFRAME_AMD64_DWARF_SP;
		*fp = SFRAME_AMD64_DWARF_FP;
	} else {
		*sp = SFRAME_AARCH64_DWARF_SP;
		*fp = SFRAME_AARCH64_DWARF_FP;
	}
}

/*
 * The RA or FP rule of a flexible row, from the data word at *@i on: none
 * (a zero word, or no word left: the default rule), a slot at an offset
 * from the CFA, or a rule through a register (%UNWIND_USER_F_RA_REG or
 * %UNWIND_USER_F_FP_REG in @reg_flag). The CFA plus an offset, without a
 * load, cannot be a saved return address or frame pointer.
 *
 * Return: 1 if a rule was read, 0 for the default, -EINVAL if malformed.
 */
static int sframe_flex_rule(const u8 *buf, unsigned int size,
			    unsigned int count, unsigned int *i,
			    struct unwind_user_frame *frame, u8 reg_flag,
			    u8 *reg, bool *saved, s32 *off)
{
	u32 ctl;

	if (*i >= count)
		return 0;
	ctl = sframe_word(buf + *i * size, size);
	if (!ctl) {
		(*i)++;
		return 0;
	}
	if (*i + 1 >= count || (ctl & SFRAME_V3_FLEX_RESERVED) ||
	    SFRAME_V3_FLEX_REGNUM(ctl) > SFRAME_V3_FLEX_MAX_REG)
		return -EINVAL;
	*off = sframe_offset(buf + (*i + 1) * size, size);
	*i += 2;
	*saved = SFRAME_V3_FLEX_DEREF_P(ctl);
	if (!SFRAME_V3_FLEX_REG_P(ctl))
		return *saved ? 1 : -EINVAL;
	frame->flags |= reg_flag;
	*reg = SFRAME_V3_FLEX_REGNUM(ctl);
	return 1;
}

/*
 * The data words of a flexible row: CFA pair, then the RA and the FP rule
 * (see sframe_flex_rule()), and nothing more. The CFA is based on a
 * register; on the stack or frame pointer it is the usual rule.
 */
static int sframe_flex_to_frame(const struct sframe_table *tbl,
				const u8 *buf, unsigned int size,
				unsigned int count,
				struct unwind_user_frame *frame)
{
	unsigned int i = 2, sp, fp, reg;
	u32 ctl;
	int ret;

	if (count < 2)
		return -EINVAL;
	ctl = sframe_word(buf, size);
	reg = SFRAME_V3_FLEX_REGNUM(ctl);
	if (!SFRAME_V3_FLEX_REG_P(ctl) || (ctl & SFRAME_V3_FLEX_RESERVED) ||
	    reg > SFRAME_V3_FLEX_MAX_REG)
		return -EINVAL;
	frame->cfa_off = sframe_offset(buf + size, size);
	if (SFRAME_V3_FLEX_DEREF_P(ctl))
		frame->flags |= UNWIND_USER_F_CFA_DEREF;
	sframe_abi_regs(tbl->abi, &sp, &fp);
	if (reg == fp) {
		frame->use_fp = true;
	} else if (reg != sp) {
		frame->flags |= UNWIND_USER_F_CFA_REG;
		frame->cfa_reg = reg;
	}

	ret = sframe_flex_rule(buf, size, count, &i, frame,
			       UNWIND_USER_F_RA_REG, &frame->ra_reg,
			       &frame->ra_saved, &frame->ra_off);
	if (ret < 0)
		return ret;
	if (!ret && tbl->fixed_ra_off) {
		frame->ra_saved = true;
		frame->ra_off = tbl->fixed_ra_off;
	}

	ret = sframe_flex_rule(buf, size, count, &i, frame,
			       UNWIND_USER_F_FP_REG, &frame->fp_reg,
			       &frame->fp_saved, &frame->fp_off);
	if (ret < 0)
		return ret;
	if (!ret && tbl->fixed_fp_off) {
		frame->fp_saved = true;
		frame->fp_off = tbl->fixed_fp_off;
	}
	return i == count ? 0 : -EINVAL;
}

/*
 * Turn the offsets of @fre into an unwinding rule.
 * @fde_type is the version 3 FDE type of its function.
 */
static int sframe_fre_to_frame(const struct sframe_table *tbl,
			       struct sframe_window *w,
			       const struct sframe_fre *fre,
			       unsigned int addr_size, u8 fde_type,
			       struct unwind_user_frame *frame)
{
	unsigned int count = SFRAME_FRE_OFFSET_COUNT(fre->info);
	unsigned int size = sframe_offset_size(fre->info);
	unsigned int i = 1;
	const u8 *buf;
	int ret;

	memset(frame, 0, sizeof(*frame));
	if (!count) {
		frame->outermost = true;
		return 0;
	}

	ret = sframe_window_get(tbl, w, fre->addr + addr_size + 1,
				count * size, &buf);
	if (ret)
		return ret;

	frame->ra_signed = SFRAME_FRE_MANGLED_RA_P(fre->info);
	if (fde_type == SFRAME_V3_FDE_TYPE_FLEX)
		return sframe_flex_to_frame(tbl, buf, size, count, frame);

	frame->cfa_off = sframe_offset(buf, size);
	frame->use_fp = SFRAME_FRE_CFA_BASE_REG_ID(fre->info) ==
			SFRAME_BASE_REG_FP;

	if (tbl->fixed_ra_off) {
		frame->ra_saved = true;
		frame->ra_off = tbl->fixed_ra_off;
	} else if (count > i) {
		frame->ra_saved = true;
		frame->ra_off = sframe_offset(buf + i * size, size);
		i++;
	} else {
		frame->ra_saved = false;
		frame->ra_off = 0;
	}

	if (tbl->fixed_fp_off) {
		frame->fp_saved = true;
		frame->fp_off = tbl->fixed_fp_off;
	} else if (count > i) {
		frame->fp_saved = true;
		frame->fp_off = sframe_offset(buf + i * size, size);
	} else {
		frame->fp_saved = false;
		frame->fp_off = 0;
	}
	return 0;
}

/*
 * Check what the descriptor says about its rows: the size of their start
 * addresses (*@addr_size), the most data words one may have (*@max_words),
 * a bounded number of them, and no attribute this decoder does not know.
 */
static int sframe_fde_rows(const struct sframe_table *tbl,
			   const struct sframe_fde *fde,
			   unsigned int *addr_size, unsigned int *max_words)
{
	*addr_size = sframe_addr_size(SFRAME_FUNC_FRE_TYPE(fde->info));
	if (!*addr_size || fde->fres_num > SFRAME_MAX_FRES_PER_FDE)
		return -EINVAL;
	*max_words = SFRAME_FRE_MAX_OFFSETS;
	if (tbl->version != SFRAME_VERSION_3)
		return 0;
	if ((fde->info & SFRAME_V3_FUNC_INFO_RESERVED) ||
	    (fde->info2 & SFRAME_V3_INFO2_RESERVED))
		return -EINVAL;
	switch (SFRAME_V3_FDE_TYPE(fde->info2)) {
	case SFRAME_V3_FDE_TYPE_DEFAULT:
		return 0;
	case SFRAME_V3_FDE_TYPE_FLEX:
		*max_words = SFRAME_V3_FLEX_MAX_WORDS;
		return 0;
	}
	return -EINVAL;
}

/* Rows the repetitions of PCMASK functions may add to a table, at most. */
static u64 sframe_pcmask_rows(const struct sframe_table *tbl)
{
	return max_t(u64, tbl->sec_end - tbl->sec_start,
		     SFRAME_PCMASK_ROWS_MIN);
}

/**
 * sframe_max_rows() - room for the rows of a section's table
 * @tbl:	a table set up by sframe_table_init()
 *
 * A row per frame row entry, at most two more per function (a start
 * without a row, a gap behind it), one behind the last function, and the
 * rows that repeat those of PCMASK functions: proportional to the section,
 * whose size is bounded.
 *
 * Return: the most rows sframe_table_build() may put in the table of
 * @tbl, or 0 if @tbl gets no table: its text is too large for the rows'
 * 32-bit starts, or the rows too many for the block index.
 */
u32 sframe_max_rows(const struct sframe_table *tbl)
{
	u64 max = tbl->num_fres + 2ULL * tbl->num_fdes + 1 +
		  sframe_pcmask_rows(tbl);

	/* With a row at each window's start. */
	if (max + (U32_MAX >> SFRAME_WINDOW_SHIFT) >= SFRAME_BLOCK_SEARCH ||
	    tbl->text_end - tbl->text_start > U32_MAX)
		return 0;
	return max;
}

/**
 * sframe_table_rows() - the rows a section's table needs, at most
 * @tbl:	a table set up by sframe_table_init()
 * @rows:	set to that number
 *
 * Reads the function descriptors only: a row per frame row entry, two per
 * function, the repetitions of PCMASK functions, and one behind the last
 * function.
 * Of version 3 functions, it reads the attribute records too.
 *
 * Context: task context; may sleep.
 * Return: 0; -E2BIG if that is more than sframe_max_rows() (a malformed
 * section's error of sframe_table_validate() instead); -EINTR on a fatal
 * signal; another negative error if a descriptor cannot be read.
 */
int sframe_table_rows(const struct sframe_table *tbl, u32 *rows)
{
	u64 need = 1, max = sframe_max_rows(tbl), fres = 0;
	struct sframe_window w;
	struct sframe_fde fde;
	u32 i;
	int ret;

	if (!max)
		return -E2BIG;
	for (i = 0; i < tbl->num_fdes; i++) {
		if (i && !(i % SFRAME_VALIDATE_BATCH)) {
			if (fatal_signal_pending(current))
				return -EINTR;
			cond_resched();
		}
		sframe_window_init(&w);
		ret = sframe_read_fde(tbl, i, &fde) ?:
		      sframe_read_attrs(tbl, &fde, &w);
		if (ret)
			return ret;
		/* What the validation rejects first, it rejects here too. */
		fres += fde.fres_num;
		if (fde.fres_num > SFRAME_MAX_FRES_PER_FDE || fres > tbl->num_fres)
			return -EINVAL;
		need += 2ULL + fde.fres_num;
		if (SFRAME_FUNC_FDE_TYPE(fde.info) == SFRAME_FDE_TYPE_PCMASK &&
		    fde.rep_size)
			need += ((u64)fde.func_size + fde.rep_size - 1) /
				fde.rep_size * (fde.fres_num + 1ULL);
		/* Too many rows, unless the section is malformed. */
		if (need > max)
			return sframe_table_validate(tbl) ?: -E2BIG;
	}
	*rows = need;
	return 0;
}

/**
 * sframe_hash_bits() - size of the hash table of a table's rules
 * @rows:	the rows the table may have
 *
 * Return: the shift of a hash table at most half full with the most rules
 * a table of @rows rows may have (no more than its rows, nor than
 * %SFRAME_RULES_MAX).
 */
u8 sframe_hash_bits(u32 rows)
{
	u64 max = min_t(u32, rows, SFRAME_RULES_MAX);
	u8 bits = 4;

	while ((1ULL << bits) < 2 * max)
		bits++;
	return bits;
}

/* A hash of a rule: a mix of its words. */
static u32 sframe_rule_hash(const struct unwind_user_frame *frame)
{
	u32 w[sizeof(*frame) / sizeof(u32)], h = 0;
	unsigned int i;

	memcpy(w, frame, sizeof(w));
	for (i = 0; i < ARRAY_SIZE(w); i++)
		h = (h ^ w[i]) * 0x9e3779b1;
	return h ^ (h >> 16);
}

/*
 * The index of @frame in the rules of the table @b builds: of the same
 * rule already there, or of @frame added. Rules are compared as bytes:
 * every rule is made from a zeroed frame.
 */
static int sframe_rule_index(struct sframe_build *b,
			     const struct unwind_user_frame *frame, u16 *idx)
{
	u32 mask = (1U << b->hash_bits) - 1;
	u32 h = sframe_rule_hash(frame) & mask;

	while (b->hash[h]) {
		u16 i = b->hash[h] - 1;

		if (!memcmp(&b->rules[i], frame, sizeof(*frame))) {
			*idx = i;
			return 0;
		}
		h = (h + 1) & mask;
	}
	/* Half of the hash table is enough for the most rules. */
	if (b->nr_rules >= SFRAME_RULES_MAX ||
	    2ULL * (b->nr_rules + 1) > 1ULL << b->hash_bits)
		return -E2BIG;
	b->rules[b->nr_rules] = *frame;
	*idx = b->nr_rules++;
	b->hash[h] = *idx + 1;
	return 0;
}

/**
 * sframe_build_rehash() - put the rules of a build in its hash table
 * @b:		a build whose @hash was just replaced by a zeroed one
 */
void sframe_build_rehash(struct sframe_build *b)
{
	u32 mask = (1U << b->hash_bits) - 1;
	u32 i, h;

	for (i = 0; i < b->nr_rules; i++) {
		h = sframe_rule_hash(&b->rules[i]) & mask;
		while (b->hash[h])
			h = (h + 1) & mask;
		b->hash[h] = i + 1;
	}
}

/*
 * Put a row at text offset @pc, with the rule @rule, in the table @b
 * builds. A row with the rule of the row before it is that row going on.
 * Every row asked for counts against the room, merged or not, so that the
 * work is bounded as the table is.
 */
static int sframe_row_add(struct sframe_build *b, u32 pc, u16 rule)
{
	u32 last = b->nr_rows - 1;

	if (b->asked >= b->max_rows)
		return -E2BIG;
	b->asked++;
	if (b->nr_rows && b->rule[last] == rule)
		return 0;
	if (b->nr_rows && b->pc[last] == pc) {
		b->rule[last] = rule;
		return 0;
	}
	b->pc[b->nr_rows] = pc;
	b->rule[b->nr_rows++] = rule;
	return 0;
}

/* A row with the rule @frame. */
static int sframe_row_add_rule(struct sframe_build *b, u32 pc,
			       const struct unwind_user_frame *frame)
{
	u16 idx;
	int ret;

	/* Most rows go on with the rule of the row before: no hash then. */
	if (b->nr_rows && b->rule[b->nr_rows - 1] != SFRAME_RULE_NONE &&
	    !memcmp(&b->rules[b->rule[b->nr_rows - 1]], frame, sizeof(*frame)))
		return sframe_row_add(b, pc, b->rule[b->nr_rows - 1]);
	ret = sframe_rule_index(b, frame, &idx);
	return ret ?: sframe_row_add(b, pc, idx);
}

/*
 * Put the rows of one block of @fde's rows in the table: those that start
 * below @limit, at @pc plus their start. Text before the first row, or
 * without a row below @limit, has no rule.
 */
static int sframe_rows_put(const struct sframe_table *tbl,
			   struct sframe_build *b, const struct sframe_fde *fde,
			   unsigned int addr_size, unsigned int max_words,
			   u32 pc, u32 limit)
{
	struct unwind_user_frame frame;
	unsigned long addr = tbl->fres_start + fde->fres_off;
	u8 fde_type = SFRAME_V3_FDE_TYPE(fde->info2);
	struct sframe_window w;
	struct sframe_fre fre;
	unsigned int i;
	int ret;

	/* No rule until the first row: a row at @pc replaces this one. */
	ret = sframe_row_add(b, pc, SFRAME_RULE_NONE);
	if (ret)
		return ret;
	sframe_window_init(&w);
	for (i = 0; i < fde->fres_num; i++) {
		ret = sframe_read_fre(tbl, &w, addr, addr_size, max_words,
				      &fre);
		if (ret)
			return ret;
		if (fre.start >= limit)
			break;
		ret = sframe_fre_to_frame(tbl, &w, &fre, addr_size, fde_type,
					  &frame) ?:
		      sframe_row_add_rule(b, pc + fre.start, &frame);
		if (ret)
			return ret;
		addr += fre.size;
	}
	return 0;
}

/*
 * Put the rows of the checked function @fde in the table @b builds: a row
 * without function over the gap behind the function before, a PCMASK
 * function's rows repeated over the whole function.
 * A version 3 signal trampoline, or function without rows, is one row.
 */
static int sframe_rows_func(const struct sframe_table *tbl,
			    struct sframe_build *b,
			    const struct sframe_fde *fde,
			    unsigned int addr_size, unsigned int max_words)
{
	u32 start = fde->func_start - tbl->text_start;
	struct unwind_user_frame frame;
	u32 rep, off;
	int ret;

	if (b->nr_funcs && start > b->rows_end) {
		ret = sframe_row_add(b, b->rows_end, SFRAME_RULE_NONE);
		if (ret)
			return ret;
	}
	b->rows_end = start + fde->func_size;
	if (!fde->func_size)
		return 0;
	b->funcs[b->nr_funcs++] = start;

	/*
	 * Version 3: a signal trampoline's caller is in the signal frame,
	 * whatever its rows say; a function without rows is the outermost.
	 */
	if ((tbl->version == SFRAME_VERSION_3 &&
	     SFRAME_V3_FUNC_SIGNAL_P(fde->info)) || !fde->fres_num) {
		memset(&frame, 0, sizeof(frame));
		frame.signal = tbl->version == SFRAME_VERSION_3 &&
			       SFRAME_V3_FUNC_SIGNAL_P(fde->info);
		frame.outermost = !frame.signal;
		return sframe_row_add_rule(b, start, &frame);
	}

	if (SFRAME_FUNC_FDE_TYPE(fde->info) != SFRAME_FDE_TYPE_PCMASK)
		return sframe_rows_put(tbl, b, fde, addr_size, max_words,
				       start, fde->func_size);

	/* The rows of every repetition block, each as long as the block. */
	rep = fde->rep_size;
	for (off = 0; off < fde->func_size; off += rep) {
		if (off && !((off / rep) % SFRAME_VALIDATE_BATCH)) {
			if (fatal_signal_pending(current))
				return -EINTR;
			cond_resched();
		}
		ret = sframe_rows_put(tbl, b, fde, addr_size, max_words,
				      start + off,
				      min(rep, fde->func_size - off));
		if (ret)
			return ret;
		if (fde->func_size - off <= rep)
			break;
	}
	return 0;
}

/*
 * Check one function, @b->next_fde: inside the text, its attributes, and
 * its rows, at most @fres_left of them (see sframe_table_build()). Then,
 * if @b builds a table, put the function's rows in it.
 * The attribute record of a version 3 function is read into @fde first.
 */
static int sframe_validate_fde(const struct sframe_table *tbl,
			       struct sframe_build *b,
			       struct sframe_fde *fde, u64 fres_left)
{
	unsigned int addr_size, max_words, i;
	struct unwind_user_frame frame;
	struct sframe_window w;
	struct sframe_fre fre;
	unsigned long addr;
	u32 limit;
	u8 fde_type;
	int ret;

	if (fde->func_start < tbl->text_start ||
	    fde->func_start >= tbl->text_end ||
	    fde->func_size > tbl->text_end - fde->func_start)
		return -EINVAL;

	sframe_window_init(&w);
	ret = sframe_read_attrs(tbl, fde, &w);
	if (ret)
		return ret;
	ret = sframe_fde_rows(tbl, fde, &addr_size, &max_words);
	if (ret)
		return ret;
	if (fde->fres_num > fres_left)
		return -EINVAL;
	fde_type = SFRAME_V3_FDE_TYPE(fde->info2);
	/* Only a version 3 DEFAULT function may have no rows: outermost. */
	if (!fde->fres_num &&
	    (tbl->version != SFRAME_VERSION_3 ||
	     fde_type != SFRAME_V3_FDE_TYPE_DEFAULT))
		return -EINVAL;

	/* Row starts are below the function size. */
	limit = fde->func_size;
	/* Version 3 allows one at the very end, as libsframe (no code there). */
	if (tbl->version == SFRAME_VERSION_3)
		limit++;
	if (SFRAME_FUNC_FDE_TYPE(fde->info) == SFRAME_FDE_TYPE_PCMASK) {
		if (!fde->rep_size)
			return -EINVAL;
		limit = fde->rep_size;
	}

	addr = tbl->fres_start + fde->fres_off;
	if (fde->fres_num && fde->fres_off >= tbl->fres_end - tbl->fres_start)
		return -EINVAL;

	fre.start = 0;
	for (i = 0; i < fde->fres_num; i++) {
		u32 prev = fre.start;

		if (i && !(i % SFRAME_VALIDATE_BATCH)) {
			if (fatal_signal_pending(current))
				return -EINTR;
			cond_resched();
		}
		ret = sframe_read_fre(tbl, &w, addr, addr_size, max_words,
				      &fre);
		if (ret)
			return ret;
		if (fre.start >= limit || (i && fre.start <= prev))
			return -EINVAL;
		/* Flexible rows can be malformed in more ways: decode them. */
		if (fde_type == SFRAME_V3_FDE_TYPE_FLEX) {
			ret = sframe_fre_to_frame(tbl, &w, &fre, addr_size,
						  fde_type, &frame);
			if (ret)
				return ret;
		}
		addr += fre.size;
	}
	if (!b->pc)
		return 0;
	return sframe_rows_func(tbl, b, fde, addr_size, max_words);
}

/**
 * sframe_table_build() - check a whole section and build its table
 * @tbl:	a table set up by sframe_table_init()
 * @b:		zeroed, but for the room for the table (see struct
 *		sframe_build), or all zeroed to validate only
 *
 * Checks every function descriptor (sorted, not overlapping, inside the
 * text, a known type) and every frame row entry (inside the row
 * sub-section, start addresses increasing and inside the function, a known
 * offset encoding). The functions together may not have more rows than the
 * header counts, which the header's own checks bound by the size of the
 * section; a table has at most sframe_max_rows() rows, and making them
 * reads each row twice more (the rows of a PCMASK function for each
 * repetition). So the work is bounded by the size of the section.
 *
 * Checks for a fatal signal, and reschedules, at least every
 * SFRAME_VALIDATE_BATCH descriptors or rows.
 *
 * Context: task context; may sleep.
 * Return: 0 if the section is usable (and @b holds its table); -EINTR on
 * a fatal signal; -E2BIG if its table would have more rows or rules than
 * it may; -EINVAL if the section is malformed, or another negative error
 * of the section's copy.
 */
int sframe_table_build(const struct sframe_table *tbl,
		       struct sframe_build *b)
{
	struct sframe_fde fde;
	unsigned long prev_end = 0;
	u64 checked = 0;
	int ret;

	if (b->pc && !b->max_rows)
		return -E2BIG;
	for (; b->next_fde < tbl->num_fdes; b->next_fde++) {
		/* Every batch of descriptors, or of rows of small functions. */
		if (!(b->next_fde % SFRAME_VALIDATE_BATCH) ||
		    b->fres - checked >= SFRAME_VALIDATE_BATCH) {
			checked = b->fres;
			if (fatal_signal_pending(current))
				return -EINTR;
			cond_resched();
		}
		ret = sframe_read_fde(tbl, b->next_fde, &fde);
		if (ret)
			return ret;
		/*
		 * Sorted, and no function starts inside another: assemblers
		 * and linkers write none, and a table cannot describe it.
		 */
		if (b->next_fde && fde.func_start < prev_end)
			return -EINVAL;
		ret = sframe_validate_fde(tbl, b, &fde, tbl->num_fres - b->fres);
		if (ret)
			return ret;
		b->fres += fde.fres_num;
		prev_end = fde.func_start + fde.func_size;
	}
	/* No function behind the last one. */
	if (b->pc && b->nr_funcs)
		return sframe_row_add(b, b->rows_end, SFRAME_RULE_NONE);
	return 0;
}

/**
 * sframe_build_func() - start a function of a table built from rows
 * @b:		the build, with room for its rows and functions
 * @start:	the function's first text offset
 * @end:	the text offset after it, above @start
 *
 * For tables converted from other unwinding data than a .sframe section:
 * functions come in increasing order and do not overlap, and the rows of
 * each (sframe_build_row()) follow it. Text between two functions has no
 * rule.
 *
 * Return: 0, or -E2BIG if the build has no room left.
 */
int sframe_build_func(struct sframe_build *b, u32 start, u32 end)
{
	int ret;

	if (b->nr_funcs >= b->max_funcs)
		return -E2BIG;
	if (b->nr_funcs && start > b->rows_end) {
		ret = sframe_row_add(b, b->rows_end, SFRAME_RULE_NONE);
		if (ret)
			return ret;
	}
	b->rows_end = end;
	b->funcs[b->nr_funcs++] = start;
	return 0;
}

/**
 * sframe_build_row() - put a row of the current function in a table
 * @b:		the build
 * @pc:		the row's first text offset, in the function started last
 * @frame:	the row's rule, made from a zeroed struct
 *
 * Return: 0, -E2BIG if the build has no room left for the row or its rule.
 */
int sframe_build_row(struct sframe_build *b, u32 pc,
		     const struct unwind_user_frame *frame)
{
	return sframe_row_add_rule(b, pc, frame);
}

/**
 * sframe_build_end() - end a table built with sframe_build_func()
 * @b:		the build
 *
 * Return: 0, or -E2BIG if the build has no room left.
 */
int sframe_build_end(struct sframe_build *b)
{
	if (!b->nr_funcs)
		return 0;
	return sframe_row_add(b, b->rows_end, SFRAME_RULE_NONE);
}

/* The number of rows of the finished build @b that start at or below @off. */
static u32 sframe_build_rows_to(const struct sframe_build *b, u32 off)
{
	u32 lo = 0, hi = b->nr_rows;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (b->pc[mid] <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/**
 * sframe_build_no_rule() - does a table leave a range of text without rule?
 * @b:		a finished build
 * @start:	first text offset of the range
 * @end:	text offset after it, above @start
 *
 * Return: true if no row of @b gives a rule for any of [@start, @end).
 */
bool sframe_build_no_rule(const struct sframe_build *b, u32 start, u32 end)
{
	u32 n = sframe_build_rows_to(b, start);

	if (n && b->rule[n - 1] != SFRAME_RULE_NONE)
		return false;
	/* A row without rule is followed by one with a rule, or by none. */
	return n == b->nr_rows || b->pc[n] >= end;
}

/**
 * sframe_build_merge() - one table of two, the second filling the first
 * @m:		a build with room for the rows and the functions of both
 * @a:		a finished build
 * @b:		a finished build of the same text
 *
 * Text that a row of @a gives a rule keeps it; other text takes the rule
 * of @b, if any. The functions of @b that start where @a has no rule join
 * those of @a. Both are read once, in order: the work is bounded by their
 * rows and functions.
 *
 * Return: 0, or -E2BIG if @m has no room left.
 */
int sframe_build_merge(struct sframe_build *m, const struct sframe_build *a,
		       const struct sframe_build *b)
{
	u32 i = 0, j = 0;
	int ret;

	/* At each start of a row of either, the rule of the text there. */
	while (i < a->nr_rows || j < b->nr_rows) {
		u16 ra, rb;
		u32 pc;

		if (j == b->nr_rows || (i < a->nr_rows && a->pc[i] <= b->pc[j]))
			pc = a->pc[i];
		else
			pc = b->pc[j];
		while (i < a->nr_rows && a->pc[i] <= pc)
			i++;
		while (j < b->nr_rows && b->pc[j] <= pc)
			j++;
		ra = i ? a->rule[i - 1] : SFRAME_RULE_NONE;
		rb = j ? b->rule[j - 1] : SFRAME_RULE_NONE;
		if (ra != SFRAME_RULE_NONE)
			ret = sframe_row_add_rule(m, pc, &a->rules[ra]);
		else if (rb != SFRAME_RULE_NONE)
			ret = sframe_row_add_rule(m, pc, &b->rules[rb]);
		else
			ret = sframe_row_add(m, pc, SFRAME_RULE_NONE);
		if (ret)
			return ret;
	}

	i = 0;
	j = 0;
	while (i < a->nr_funcs || j < b->nr_funcs) {
		u32 f;

		if (j == b->nr_funcs ||
		    (i < a->nr_funcs && a->funcs[i] <= b->funcs[j])) {
			f = a->funcs[i++];
		} else {
			f = b->funcs[j++];
			if (!sframe_build_no_rule(a, f, f + 1))
				continue;
		}
		if (m->nr_funcs >= m->max_funcs)
			return -E2BIG;
		m->funcs[m->nr_funcs++] = f;
	}
	return 0;
}

/**
 * sframe_table_validate() - check a whole section
 * @tbl:	a table set up by sframe_table_init()
 *
 * sframe_table_build() without a table.
 *
 * Context: task context; may sleep.
 * Return: 0 if the section is usable, a negative error otherwise.
 */
int sframe_table_validate(const struct sframe_table *tbl)
{
	struct sframe_build b = {};

	return sframe_table_build(tbl, &b);
}

/*
 * The rows a table of the build @b adds to its own: one at the start of
 * each window up to its last row where no row starts, the text start
 * included.
 */
static u32 sframe_window_rows(const struct sframe_build *b)
{
	u64 w = 0;
	u32 i, n = 0;

	for (i = 0; i < b->nr_rows; i++) {
		for (; w < b->pc[i]; w += SFRAME_WINDOW)
			n++;
		if (w == b->pc[i])
			w += SFRAME_WINDOW;
	}
	return n;
}

/**
 * sframe_rules_size() - size of the table a build left
 * @b:		a successful sframe_table_build() with a table
 * @nr_blocks:	set to the number of entries of its block index
 * @block_shift: set to the block shift: blocks of at least
 *		2^%SFRAME_BLOCK_MIN_SHIFT bytes of text, at most a window,
 *		as small as keeps the block index no longer than a
 *		%SFRAME_BLOCK_ROWS th of the rows, or the functions
 *		(neighbouring functions of one rule share a row: the text of
 *		a million such functions has a few rows, and its other
 *		functions keep blocks of a few rows each)
 *
 * Return: the bytes sframe_rules_fill() needs for the arrays of the table.
 */
size_t sframe_rules_size(const struct sframe_build *b, u32 *nr_blocks,
			 u8 *block_shift)
{
	u32 rows = b->nr_rows + sframe_window_rows(b);
	u32 room = max(DIV_ROUND_UP(rows, SFRAME_BLOCK_ROWS), b->nr_funcs);
	u8 s = SFRAME_BLOCK_MIN_SHIFT;
	u64 last;

	*nr_blocks = 0;
	*block_shift = s;
	if (b->nr_rows) {
		last = b->pc[b->nr_rows - 1];
		while ((last >> s) >= room && s < SFRAME_WINDOW_SHIFT)
			s++;
		*block_shift = s;
		*nr_blocks = (last >> s) + 1;
	}
	return ((size_t)*nr_blocks + 1) * sizeof(u32) +
	       (size_t)b->nr_rules * sizeof(struct unwind_user_frame) +
	       ((size_t)rows + 1) * sizeof(struct sframe_row);
}

/*
 * The usual rule: the return address saved at an offset from a CFA based
 * on the stack or frame pointer, with nothing else to it, and the saved
 * words near the CFA.
 */
static bool sframe_slot_near(s32 off)
{
	return off >= -SFRAME_SLOT_REACH &&
	       off <= SFRAME_SLOT_REACH - (s32)sizeof(unsigned long);
}

static bool sframe_rule_usual(const struct unwind_user_frame *frame)
{
	return frame->ra_saved && !frame->outermost &&
	       sframe_slot_near(frame->ra_off) &&
	       (!frame->fp_saved || sframe_slot_near(frame->fp_off)) &&
	       !frame->flags && !frame->signal;
}

/* A row's entry in a table's @rule for the build's rule index @idx. */
static u16 sframe_rule_mark(const struct sframe_build *b, u16 idx)
{
	if (idx != SFRAME_RULE_NONE && !sframe_rule_usual(&b->rules[idx]))
		idx |= SFRAME_RULE_GENERAL;
	return idx;
}

/* A table being filled: its arrays, and the rows and blocks put so far. */
struct sframe_fill {
	struct sframe_row *rows;
	u32	*blocks;
	u32	nr_rows;
	u32	nr_blocks;
	u32	block;
	u8	shift;
};

/*
 * Put a row at @start with the entry @rule, after those put so far, and
 * the blocks that start below it: they count the rows before it.
 */
static void sframe_fill_row(struct sframe_fill *f, u32 start, u16 rule)
{
	while (f->block < f->nr_blocks && ((u64)f->block << f->shift) < start)
		f->blocks[f->block++] = f->nr_rows;
	f->rows[f->nr_rows].pc = start - 1;
	f->rows[f->nr_rows++].rule = rule;
}

/**
 * sframe_rules_fill() - copy the table a build left to its final place
 * @r:		the table to set up
 * @mem:	sframe_rules_size() bytes, 4-byte aligned
 * @text_size:	size of the text the table describes, from its start
 * @b:		a successful sframe_table_build() with a table, or a build
 *		ended by sframe_build_end()
 * @nr_blocks:	from sframe_rules_size()
 * @block_shift: from sframe_rules_size()
 *
 * The rows of the build, and one at the start of each window up to the
 * last row where none starts, which goes on with the rule of the row
 * before it (no rule at the text start).
 */
void sframe_rules_fill(struct sframe_rules *r, void *mem, u64 text_size,
		       const struct sframe_build *b, u32 nr_blocks,
		       u8 block_shift)
{
	u32 *blocks = mem, rows = b->nr_rows + sframe_window_rows(b);
	struct unwind_user_frame *rules = (void *)(blocks + nr_blocks + 1);
	struct sframe_fill f = {
		.rows		= (void *)(rules + b->nr_rules),
		.blocks		= blocks,
		.nr_blocks	= nr_blocks,
		.shift		= block_shift,
	};
	u16 idx = SFRAME_RULE_NONE;
	u64 w = 0;
	u32 i;

	for (i = 0; i < b->nr_rows; i++) {
		for (; w < b->pc[i]; w += SFRAME_WINDOW)
			sframe_fill_row(&f, w, idx);
		if (w == b->pc[i])
			w += SFRAME_WINDOW;
		idx = sframe_rule_mark(b, b->rule[i]);
		sframe_fill_row(&f, b->pc[i], idx);
	}
	while (f.block < nr_blocks)
		blocks[f.block++] = rows;
	blocks[nr_blocks] = rows;
	f.rows[rows].pc = 0xffff;
	f.rows[rows].rule = SFRAME_RULE_NONE;
	memcpy(rules, b->rules, b->nr_rules * sizeof(*rules));
	r->csr = false;
	for (i = 0; i < b->nr_rules; i++)
		r->csr |= rules[i].csr != UNWIND_USER_CSR_LOST;
	/* Blocks that start too many rows to scan are searched. */
	for (i = 0; i < nr_blocks; i++)
		if (blocks[i + 1] - blocks[i] > SFRAME_ROW_SCAN)
			blocks[i] |= SFRAME_BLOCK_SEARCH;
	/*
	 * The last row has no rule (sframe_table_build()): text above the
	 * last block has none either, and a lookup needs no other bound.
	 */
	r->text_size = min_t(u64, text_size, (u64)nr_blocks << block_shift);
	r->nr_rows = rows;
	r->nr_rules = b->nr_rules;
	r->nr_blocks = nr_blocks;
	r->block_shift = block_shift;
	r->rows = f.rows;
	r->rules = rules;
	r->blocks = blocks;
}
