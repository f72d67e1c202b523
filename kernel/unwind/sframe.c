// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame decoder for user space stack unwinding.
 *
 * A .sframe section lives in user memory and is untrusted: it can be
 * malformed, and it can change or disappear while it is read. The decoder
 * therefore never dereferences it directly. Every access goes through
 * sframe_read(), which bounds-checks the range against the registered
 * section and copies it with the user access helpers. Lookups run in
 * interrupt and NMI context and read without faulting; the full validation
 * runs in task context and may fault.
 *
 * This file can also be built in user space, for tests and fuzzing, with
 * small stand-ins for the few kernel headers it includes: keep it free of
 * other kernel dependencies.
 */

#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/sched.h>
#include <linux/sframe.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/uaccess.h>

#include <asm/tlb.h>

#include "sframe.h"

/* A function with more rows than this is rejected by the validation. */
#define SFRAME_MAX_FRES_PER_FDE		8192
/* Rows of a block of the row table scanned, not searched, at most. */
#define SFRAME_ROW_SCAN			4
/* Descriptors or rows validated between checks for a fatal signal. */
#define SFRAME_VALIDATE_BATCH		1024

/*
 * Copy @len bytes at user address @src to @dst without faulting, in words:
 * a lookup copies a few dozen bytes at a time, for which the loads cost
 * less than a copy_from_user_nofault(). The last word may overlap the one
 * before it; only a copy shorter than a word is made of bytes. The caller
 * has checked nmi_uaccess_okay() for its lookup.
 */
static int sframe_copy_nofault(void *dst, unsigned long src, size_t len)
{
	const u8 __user *p = (const u8 __user *)src;
	u8 *d = dst;
	size_t i;
	u64 word;

	pagefault_disable();
	if (!user_read_access_begin(p, len))
		goto fault;
	if (len < sizeof(word)) {
		for (i = 0; i < len; i++)
			unsafe_get_user(d[i], p + i, fault_end);
	} else {
		for (i = 0; i < len; i += sizeof(word)) {
			if (i + sizeof(word) > len)
				i = len - sizeof(word);
			unsafe_get_user(word, (const u64 __user *)(p + i),
					fault_end);
			memcpy(d + i, &word, sizeof(word));
		}
	}
	user_read_access_end();
	pagefault_enable();
	return 0;

fault_end:
	user_read_access_end();
fault:
	pagefault_enable();
	return -EFAULT;
}

/*
 * Copy @len bytes of the section at @addr to @dst. Without @may_fault, only
 * in a lookup, after its nmi_uaccess_okay() check.
 */
static int sframe_read(const struct sframe_table *tbl, void *dst,
		       unsigned long addr, size_t len, bool may_fault)
{
	if (addr < tbl->sec_start || addr >= tbl->sec_end ||
	    len > tbl->sec_end - addr)
		return -EINVAL;

	if (may_fault)
		return copy_from_user(dst, (const void __user *)addr, len) ?
		       -EFAULT : 0;

	return sframe_copy_nofault(dst, addr, len);
}

/**
 * sframe_table_init() - check an SFrame header and describe its section
 * @tbl:	table to fill in
 * @hdr:	a kernel copy of the first @hdr_len bytes of the section
 * @hdr_len:	number of bytes at @hdr
 * @sec_start:	user address of the section
 * @sec_size:	size of the section in bytes
 * @text_start:	first user text address the section may describe
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
	tbl->marks = NULL;
	tbl->nr_marks = 0;
	tbl->index = NULL;
	tbl->nr_index = 0;
	tbl->index_shift = 0;
	tbl->rows = NULL;
	tbl->nr_rows = 0;
	tbl->blocks = NULL;
	tbl->nr_blocks = 0;
	tbl->block_shift = 0;
	return 0;
}

/* A function descriptor reduced to what the lookup needs. */
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
 * row sub-section, so that a lookup usually reads a function's rows with
 * one user copy.
 */
#define SFRAME_WINDOW_SIZE		64

struct sframe_window {
	unsigned long	start;		/* user address of buf[0] */
	unsigned long	limit;		/* no need to copy from here on */
	unsigned int	len;		/* bytes copied to buf */
	bool		may_fault;
	u8		buf[SFRAME_WINDOW_SIZE];
};

static inline void sframe_window_init(struct sframe_window *w, bool may_fault)
{
	w->start = 0;
	w->limit = ULONG_MAX;
	w->len = 0;
	w->may_fault = may_fault;
}

/*
 * Make @len bytes of the row sub-section at @addr available at *@p, copying
 * a new window from @addr on if the current one does not hold them.
 */
static int sframe_window_get(const struct sframe_table *tbl,
			     struct sframe_window *w, unsigned long addr,
			     unsigned int len, const u8 **p)
{
	unsigned long size;
	int ret;

	if (addr < tbl->fres_start || addr >= tbl->fres_end ||
	    len > tbl->fres_end - addr || len > SFRAME_WINDOW_SIZE)
		return -EINVAL;

	if (addr < w->start || addr - w->start > w->len ||
	    len > w->len - (addr - w->start)) {
		/*
		 * The validation reads exactly what it checks, so that it
		 * never touches rows beyond those it has accounted for; a
		 * lookup reads ahead, up to the end of the rows it may need.
		 */
		size = w->may_fault ? len : tbl->fres_end - addr;
		if (!w->may_fault && w->limit > addr && size > w->limit - addr)
			size = w->limit - addr;
		if (size < len)
			size = len;
		if (size > SFRAME_WINDOW_SIZE)
			size = SFRAME_WINDOW_SIZE;
		ret = sframe_read(tbl, w->buf, addr, size, w->may_fault);
		if (ret)
			return ret;
		w->start = addr;
		w->len = size;
	}
	*p = w->buf + (addr - w->start);
	return 0;
}

/*
 * The attribute record of a version 3 function, at @fde->fres_off until
 * it is read, with the function's rows right behind it: read through @w,
 * so that a lookup usually reads the rows with the same copy.
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
	u32			words[sizeof(struct sframe_fde_v2) / sizeof(u32)];
};

/*
 * Decode the descriptor @idx from its bytes @r (of version 3: its index
 * entry; the rest is read by sframe_read_attrs()).
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
			   struct sframe_fde *fde, bool may_fault)
{
	union sframe_fde_raw r;
	int ret;

	ret = sframe_read(tbl, &r, sframe_fde_addr(tbl, idx), tbl->fde_size,
			  may_fault);
	if (ret)
		return ret;
	sframe_decode_fde(tbl, idx, &r, fde);
	return 0;
}

/*
 * The descriptors the function index of @tbl leaves to search for @ip:
 * [*@lo, *@hi), whose first one starts at or below @ip by the index.
 * Without an index, all of them, none known to start at or below @ip.
 *
 * Return: true if the index says the first one starts at or below @ip;
 * false if there is no index, or no descriptor can.
 */
static bool sframe_index_find(const struct sframe_table *tbl,
			      unsigned long ip, u32 *lo, u32 *hi)
{
	long off = ip - tbl->sec_start;
	u32 l = 0, h = tbl->nr_index;

	*lo = 0;
	*hi = tbl->num_fdes;
	if (!tbl->index)
		return false;
	while (l < h) {
		u32 mid = l + (h - l) / 2;

		if (tbl->index[mid] <= off)
			l = mid + 1;
		else
			h = mid;
	}
	if (!l) {
		*hi = 0;
		return false;
	}
	*lo = (l - 1) << tbl->index_shift;
	if (*hi - *lo > 1U << tbl->index_shift)
		*hi = *lo + (1U << tbl->index_shift);
	return true;
}

/*
 * Find the index of the last descriptor whose function starts at or below
 * @ip, and read that descriptor into *@fde. The search reads one start
 * address per probe, and then the descriptor found, all inside one user
 * access window over the descriptor table (whose bounds were checked
 * against the section by sframe_table_init()), so that a probe costs a
 * load rather than a copy_from_user_nofault() of its own. With a function
 * index, only the descriptors between two of its entries are searched.
 */
static int sframe_search_fdes(const struct sframe_table *tbl,
			      unsigned long ip, u32 *idx,
			      struct sframe_fde *fde)
{
	union sframe_fde_raw r;
	const u8 __user *src;
	unsigned int i;
	unsigned long size = (unsigned long)tbl->num_fdes * tbl->fde_size;
	const void __user *fdes = (const void __user *)tbl->fdes_start;
	unsigned long func;
	bool found;
	s64 start64;
	s32 start;
	u32 lo, hi;

	found = sframe_index_find(tbl, ip, &lo, &hi);
	if (found)
		*idx = lo++;
	else if (!hi)
		return -ENOENT;
	/* User memory is not the task's now (switch_mm): nothing is missing. */
	if (!nmi_uaccess_okay())
		return -EBUSY;

	pagefault_disable();
	if (!user_read_access_begin(fdes, size))
		goto fault;
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;
		unsigned long addr = sframe_fde_addr(tbl, mid);

		/* The function start is the first field of every version. */
		if (tbl->version == SFRAME_VERSION_3) {
			unsafe_get_user(start64, (const s64 __user *)addr,
					fault_end);
			func = addr + start64;
		} else {
			unsafe_get_user(start, (const s32 __user *)addr,
					fault_end);
			func = sframe_func_start(tbl, addr, start);
		}
		if (func <= ip) {
			*idx = mid;
			found = true;
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (found) {
		/* In words, and the byte a version 1 descriptor has more. */
		src = (const u8 __user *)sframe_fde_addr(tbl, *idx);
		for (i = 0; i + sizeof(u32) <= tbl->fde_size; i += sizeof(u32))
			unsafe_get_user(r.words[i / sizeof(u32)],
					(const u32 __user *)(src + i), fault_end);
		if (i < tbl->fde_size)
			unsafe_get_user(((u8 *)&r)[i], src + i, fault_end);
	}
	user_read_access_end();
	pagefault_enable();
	if (!found)
		return -ENOENT;
	sframe_decode_fde(tbl, *idx, &r, fde);
	return 0;

fault_end:
	user_read_access_end();
fault:
	pagefault_enable();
	return -EFAULT;
}

/* The descriptor of the function that contains @ip, and its index. */
static int sframe_find_fde(const struct sframe_table *tbl, unsigned long ip,
			   struct sframe_fde *fde, u32 *idx)
{
	int ret;

	if (ip < tbl->text_start || ip >= tbl->text_end)
		return -ENOENT;
	ret = sframe_search_fdes(tbl, ip, idx, fde);
	if (ret)
		return ret;
	if (ip < fde->func_start || ip - fde->func_start >= fde->func_size)
		return -ENOENT;
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
	unsigned long	addr;		/* user address of the entry */
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
 * Turn the offsets of @fre, a row of a function of FDE type @fde_type,
 * into an unwinding rule.
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

/*
 * Where to start reading the rows of function @idx for @pc_off: at the last
 * mark the validation left at or below it (*@row and *@addr move there), if
 * any; the rows before it start lower. Marks are sorted by function, then
 * by start, and are the kernel's own: only the rows they point at are user
 * data, and are read with the usual checks.
 */
static void sframe_mark_find(const struct sframe_table *tbl, u32 idx,
			     u32 pc_off, u32 *row, unsigned long *addr)
{
	const struct sframe_row_mark *m;
	u32 lo = 0, hi = tbl->nr_marks;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		m = &tbl->marks[mid];
		if (m->fde < idx || (m->fde == idx && m->start <= pc_off))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || tbl->marks[lo - 1].fde != idx)
		return;
	m = &tbl->marks[lo - 1];
	*row = m->row;
	*addr = tbl->fres_start + m->off;
}

/**
 * sframe_find_row() - look up the rule for a user instruction pointer in
 *		       the row table
 * @tbl:	a table set up by sframe_table_init(), with a row table
 * @ip:		user instruction pointer
 * @rowp:	set to the row of the rule on success, a row of the table
 *
 * Finds the last row that starts at or below @ip among the rows of its
 * block of text: by a scan if they are few, else by binary search. Reads
 * kernel memory only.
 *
 * Context: any context; the caller keeps the table alive.
 * Return: 0 on success; -ENOENT if @ip is not described by the table; 1 if
 * the rule is to be read from the section (sframe_find()): the row for @ip
 * cannot hold it.
 */
int sframe_find_row(const struct sframe_table *tbl, unsigned long ip,
		    const struct sframe_row **rowp)
{
	unsigned long off = ip - tbl->text_start;
	const struct sframe_row *row;
	u32 b, lo, hi;

	if (ip < tbl->text_start || ip >= tbl->text_end)
		return -ENOENT;
	b = tbl->nr_blocks - 1;
	if (off >> tbl->block_shift < b)
		b = off >> tbl->block_shift;
	lo = tbl->blocks[b];
	hi = b + 1 < tbl->nr_blocks ? tbl->blocks[b + 1] : tbl->nr_rows;
	/* The number of rows at or below @off is in [lo, hi]. */
	while (hi - lo > SFRAME_ROW_SCAN) {
		u32 mid = hi - (hi - lo) / 2;

		if (tbl->rows[mid - 1].pc <= off)
			lo = mid;
		else
			hi = mid - 1;
	}
	while (lo < hi && tbl->rows[lo].pc <= off)
		lo++;
	if (!lo)
		return -ENOENT;
	row = &tbl->rows[lo - 1];
	if (row->flags & SFRAME_ROW_NONE)
		return -ENOENT;
	if (row->flags & SFRAME_ROW_USER)
		return 1;
	*rowp = row;
	return 0;
}

/* sframe_find() in the section itself. */
static int sframe_find_section(const struct sframe_table *tbl,
			       unsigned long ip,
			       struct unwind_user_frame *frame)
{
	struct sframe_fre fre, found;
	struct sframe_window w;
	unsigned int addr_size, max_words;
	struct sframe_fde fde;
	unsigned long addr;
	u32 idx, pc_off, i;
	int ret;

	ret = sframe_find_fde(tbl, ip, &fde, &idx);
	if (ret)
		return ret;
	sframe_window_init(&w, false);
	ret = sframe_read_attrs(tbl, &fde, &w);
	if (ret)
		return ret;
	ret = sframe_fde_rows(tbl, &fde, &addr_size, &max_words);
	if (ret)
		return ret;
	/*
	 * Version 3: a signal trampoline's caller is in the signal frame,
	 * whatever its rows say; a DEFAULT function without rows is the
	 * outermost frame.
	 */
	if (tbl->version == SFRAME_VERSION_3 &&
	    (SFRAME_V3_FUNC_SIGNAL_P(fde.info) || !fde.fres_num)) {
		if (!SFRAME_V3_FUNC_SIGNAL_P(fde.info) &&
		    fde.info2 != SFRAME_V3_FDE_TYPE_DEFAULT)
			return -ENOENT;
		memset(frame, 0, sizeof(*frame));
		frame->signal = SFRAME_V3_FUNC_SIGNAL_P(fde.info);
		frame->outermost = !frame->signal;
		return 0;
	}
	if (!fde.fres_num)
		return -ENOENT;

	pc_off = ip - fde.func_start;
	if (SFRAME_FUNC_FDE_TYPE(fde.info) == SFRAME_FDE_TYPE_PCMASK) {
		if (!fde.rep_size)
			return -EINVAL;
		pc_off %= fde.rep_size;
	}

	addr = tbl->fres_start + fde.fres_off;
	if (addr < tbl->fres_start)
		return -EINVAL;
	i = 0;
	if (fde.fres_num > SFRAME_ROWS_PER_MARK)
		sframe_mark_find(tbl, idx, pc_off, &i, &addr);
	/* The rows left are at most this long: copy no more of them. */
	w.limit = addr + (unsigned long)(fde.fres_num - i) *
			 (addr_size + 1 + max_words * sizeof(u32));

	found.size = 0;
	for (; i < fde.fres_num; i++) {
		ret = sframe_read_fre(tbl, &w, addr, addr_size, max_words,
				      &fre);
		if (ret)
			return ret;
		if (fre.start > pc_off)
			break;
		found = fre;
		addr += fre.size;
	}
	if (!found.size)
		return -ENOENT;

	return sframe_fre_to_frame(tbl, &w, &found, addr_size,
				   SFRAME_V3_FDE_TYPE(fde.info2), frame);
}

/**
 * sframe_find() - look up the unwinding rule for a user instruction pointer
 * @tbl:	a table set up by sframe_table_init()
 * @ip:		user instruction pointer
 * @frame:	filled with the rule on success
 *
 * In the row table of @tbl, if the validation left one, and only for the
 * rules that are not in it: binary search over the function descriptors,
 * then a scan of the function's frame row entries: of at most
 * %SFRAME_ROWS_PER_MARK + 1 of them if the validation left marks in @tbl.
 * Reads user memory without faulting, so it is safe in any context,
 * including NMI, provided user access is allowed.
 *
 * Return: 0 on success, -ENOENT if @ip is not described by the table,
 * -EFAULT if the section could not be read without faulting, -EINVAL if
 * the data read is malformed.
 */
int sframe_find(const struct sframe_table *tbl, unsigned long ip,
		struct unwind_user_frame *frame)
{
	const struct sframe_row *row;
	int ret;

	if (tbl->rows) {
		ret = sframe_find_row(tbl, ip, &row);
		if (!ret)
			sframe_row_unpack(row, frame);
		if (ret <= 0)
			return ret;
	}
	return sframe_find_section(tbl, ip, frame);
}

/**
 * sframe_find_func() - find the function a text address belongs to
 * @tbl:	registered section
 * @ip:		user text address
 * @start:	set to the start address of the function descriptor that
 *		covers @ip
 *
 * Context: any context; reads user memory without faulting.
 * Return: 0 on success, -ENOENT if no descriptor covers @ip, -EFAULT or
 * -EINVAL if the section cannot be read or is malformed.
 */
int sframe_find_func(const struct sframe_table *tbl, unsigned long ip,
		     unsigned long *start)
{
	struct sframe_fde fde;
	u32 idx;
	int ret;

	ret = sframe_find_fde(tbl, ip, &fde, &idx);
	if (!ret)
		*start = fde.func_start;
	return ret;
}

/**
 * sframe_row_pack() - put a rule in a row
 * @frame:	the rule
 * @row:	its flags and offsets are set to the rule; @row->pc is kept
 *
 * Return: true if the row holds the rule; false if it cannot: version 3
 * rules through a register, or RA or FP offsets beyond 16 bits.
 */
bool sframe_row_pack(const struct unwind_user_frame *frame,
		     struct sframe_row *row)
{
	if (frame->flags || frame->ra_off != (s16)frame->ra_off ||
	    frame->fp_off != (s16)frame->fp_off)
		return false;
	row->cfa_off = frame->cfa_off;
	row->ra_off = frame->ra_off;
	row->fp_off = frame->fp_off;
	row->flags = (frame->use_fp ? SFRAME_ROW_USE_FP : 0) |
		     (frame->ra_saved ? SFRAME_ROW_RA_SAVED : 0) |
		     (frame->fp_saved ? SFRAME_ROW_FP_SAVED : 0) |
		     (frame->ra_signed ? SFRAME_ROW_RA_SIGNED : 0) |
		     (frame->outermost ? SFRAME_ROW_OUTERMOST : 0) |
		     (frame->signal ? SFRAME_ROW_SIGNAL : 0);
	row->pad = 0;
	return true;
}

/*
 * Put a row at text offset @pc in the row table of @v: with @flags, or
 * with the rule @frame if given. A rule a row cannot hold is left to the
 * lookup in user memory. More rows than sframe_max_rows() allows leave
 * the section without row table.
 */
static void sframe_row_add(const struct sframe_table *tbl,
			   struct sframe_validation *v, u32 pc, u16 flags,
			   const struct unwind_user_frame *frame)
{
	struct sframe_row *row;

	if (!v->rows || v->rows_bad)
		return;
	if (v->nr_rows >= sframe_max_rows(tbl)) {
		v->rows_bad = true;
		return;
	}
	row = &v->rows[v->nr_rows++];
	memset(row, 0, sizeof(*row));
	row->pc = pc;
	row->flags = flags;
	if (frame && !sframe_row_pack(frame, row))
		row->flags = SFRAME_ROW_USER;
}

/*
 * Open function @fde in the row table of @v: a row without function over
 * the text between the last function's end and its start. Functions that
 * overlap (gas and ld write none) leave the section without row table.
 */
static void sframe_rows_func(const struct sframe_table *tbl,
			     struct sframe_validation *v,
			     const struct sframe_fde *fde)
{
	u32 start = fde->func_start - tbl->text_start;

	if (!v->rows || v->rows_bad)
		return;
	if (v->next_fde && start < v->rows_end) {
		v->rows_bad = true;
		return;
	}
	if (v->next_fde && start > v->rows_end)
		sframe_row_add(tbl, v, v->rows_end, SFRAME_ROW_NONE, NULL);
	v->rows_end = start + fde->func_size;
}

/**
 * sframe_row_blocks() - size the block index of a row table
 * @rows:	the rows, sorted by start
 * @nr_rows:	number of @rows, not 0
 * @shift:	set to the block shift
 *
 * Blocks of at least 2^%SFRAME_ROW_BLOCK_MIN_SHIFT bytes of text, as small
 * as keeps the block index no longer than the table.
 *
 * Return: the number of entries of the block index.
 */
u32 sframe_row_blocks(const struct sframe_row *rows, u32 nr_rows, u8 *shift)
{
	u64 last = rows[nr_rows - 1].pc;
	u8 s = SFRAME_ROW_BLOCK_MIN_SHIFT;

	while ((last >> s) >= nr_rows)
		s++;
	*shift = s;
	return (last >> s) + 1;
}

/**
 * sframe_row_index() - fill the block index of a row table
 * @rows:	the rows, sorted by start
 * @nr_rows:	number of @rows
 * @blocks:	the block index to fill: entry b counts the rows that start
 *		at or below b << @shift
 * @nr_blocks:	number of @blocks, from sframe_row_blocks()
 * @shift:	the block shift, from sframe_row_blocks()
 */
void sframe_row_index(const struct sframe_row *rows, u32 nr_rows,
		      u32 *blocks, u32 nr_blocks, u8 shift)
{
	u32 b, n = 0;

	for (b = 0; b < nr_blocks; b++) {
		while (n < nr_rows && rows[n].pc <= (u64)b << shift)
			n++;
		blocks[b] = n;
	}
}

/*
 * Check one function, @v->next_fde: inside the text, its attributes, and
 * its rows, at most @fres_left of them (see sframe_table_validate_resume()),
 * and leave a mark at every %SFRAME_ROWS_PER_MARK-th row in @v->marks, if
 * given, and its rows in @v->rows, if given. Reads the attribute record of
 * a version 3 function into @fde.
 */
static int sframe_validate_fde(const struct sframe_table *tbl,
			       struct sframe_validation *v,
			       struct sframe_fde *fde, u64 fres_left)
{
	unsigned int addr_size, max_words, i;
	struct unwind_user_frame frame;
	struct sframe_window w;
	struct sframe_fre fre;
	unsigned long addr;
	u32 limit, start;
	u16 whole = 0;
	u8 fde_type;
	int ret;

	if (fde->func_start < tbl->text_start ||
	    fde->func_start >= tbl->text_end ||
	    fde->func_size > tbl->text_end - fde->func_start)
		return -EINVAL;

	sframe_window_init(&w, true);
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

	/*
	 * In the row table, as sframe_find() reads the function: a signal
	 * trampoline or a function without rows is one row, and so is a
	 * PCMASK function, which the lookup reads from the section.
	 */
	sframe_rows_func(tbl, v, fde);
	start = fde->func_start - tbl->text_start;
	if (tbl->version == SFRAME_VERSION_3 &&
	    SFRAME_V3_FUNC_SIGNAL_P(fde->info))
		whole = SFRAME_ROW_SIGNAL;
	else if (!fde->fres_num)
		whole = SFRAME_ROW_OUTERMOST;
	else if (SFRAME_FUNC_FDE_TYPE(fde->info) == SFRAME_FDE_TYPE_PCMASK)
		whole = SFRAME_ROW_USER;
	if (whole && fde->func_size)
		sframe_row_add(tbl, v, start, whole, NULL);
	if (!fde->fres_num)
		return 0;

	/*
	 * Row starts are below the function size (version 3 also allows
	 * one at the very end, which no instruction uses, as libsframe).
	 */
	limit = fde->func_size;
	if (tbl->version == SFRAME_VERSION_3)
		limit++;
	if (SFRAME_FUNC_FDE_TYPE(fde->info) == SFRAME_FDE_TYPE_PCMASK) {
		if (!fde->rep_size)
			return -EINVAL;
		limit = fde->rep_size;
	}

	addr = tbl->fres_start + fde->fres_off;
	if (fde->fres_off >= tbl->fres_end - tbl->fres_start)
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
		if (v->marks && i && !(i % SFRAME_ROWS_PER_MARK)) {
			/* Not more than the rows the header counts allow. */
			if (v->nr_marks >= v->max_marks)
				return -EINVAL;
			v->marks[v->nr_marks++] = (struct sframe_row_mark) {
				.fde	= v->next_fde,
				.start	= fre.start,
				.off	= addr - tbl->fres_start,
				.row	= i,
			};
		}
		/*
		 * Flexible rows can be malformed in more ways: decode them,
		 * and the rows that go in the row table.
		 */
		if (fde_type == SFRAME_V3_FDE_TYPE_FLEX ||
		    (v->rows && !v->rows_bad && !whole &&
		     fre.start < fde->func_size)) {
			ret = sframe_fre_to_frame(tbl, &w, &fre, addr_size,
						  fde_type, &frame);
			if (ret)
				return ret;
			if (!whole && fre.start < fde->func_size) {
				/* Before the first row, no rule. */
				if (!i && fre.start)
					sframe_row_add(tbl, v, start,
						       SFRAME_ROW_NONE, NULL);
				sframe_row_add(tbl, v, start + fre.start, 0,
					       &frame);
			}
		}
		addr += fre.size;
	}
	return 0;
}

/**
 * sframe_table_validate_resume() - check a whole section, in steps if need be
 * @tbl:	a table set up by sframe_table_init()
 * @v:		progress of the validation; zeroed before the first call
 *
 * Re-reads the header from user memory and checks that it still matches,
 * then checks every function descriptor (sorted, inside the text, a known
 * type) and every frame row entry (inside the row sub-section, start
 * addresses increasing and inside the function, a known offset encoding).
 * The functions together may not have more rows than the header counts,
 * which bounds the work by the size of the section. If @v->marks is set,
 * it is filled with the marks sframe_find() may use once they are in the
 * table (see struct sframe_row_mark), @v->max_marks of them at most:
 * sframe_max_marks() is enough for any section the validation accepts.
 * If @v->index is set, it is filled with the function index (see struct
 * sframe_table), of sframe_index_size() entries; @v->index_bad is set if
 * a function start is too far from the section for it.
 *
 * The validation stops when the task has a fatal signal pending (-EINTR),
 * which it checks at least every SFRAME_VALIDATE_BATCH descriptors or rows,
 * or when a page of the section cannot be read (-EFAULT); @v then records
 * the descriptors checked so far, and the next call goes on from there
 * instead of reading them again.
 *
 * May fault and sleep: call it from task context only, without mmap_lock.
 *
 * Return: 0 if the section is usable; -EINTR or -EFAULT if the validation
 * stopped early and may be resumed; another negative error if the section
 * is not usable.
 */
int sframe_table_validate_resume(const struct sframe_table *tbl,
				 struct sframe_validation *v)
{
	struct sframe_header hdr;
	struct sframe_table copy;
	u8 shift = sframe_index_shift(tbl);
	struct sframe_fde fde;
	u32 marks, rows, rows_end;
	u64 checked;
	int ret;

	ret = sframe_read(tbl, &hdr, tbl->sec_start, sizeof(hdr), true);
	if (ret)
		return ret;
	ret = sframe_table_init(&copy, &hdr, sizeof(hdr), tbl->sec_start,
				tbl->sec_end - tbl->sec_start, tbl->text_start,
				tbl->text_end, tbl->abi);
	if (ret)
		return ret;
	if (copy.num_fdes != tbl->num_fdes || copy.version != tbl->version ||
	    copy.flags != tbl->flags || copy.fdes_start != tbl->fdes_start ||
	    copy.fres_start != tbl->fres_start ||
	    copy.fres_end != tbl->fres_end ||
	    copy.fixed_fp_off != tbl->fixed_fp_off ||
	    copy.fixed_ra_off != tbl->fixed_ra_off ||
	    copy.num_fres != tbl->num_fres)
		return -EINVAL;

	for (checked = v->fres; v->next_fde < tbl->num_fdes; v->next_fde++) {
		/* Every batch of descriptors, or of rows of small functions. */
		if (!(v->next_fde % SFRAME_VALIDATE_BATCH) ||
		    v->fres - checked >= SFRAME_VALIDATE_BATCH) {
			checked = v->fres;
			if (fatal_signal_pending(current))
				return -EINTR;
			cond_resched();
		}
		ret = sframe_read_fde(tbl, v->next_fde, &fde, true);
		if (ret)
			return ret;
		if (v->next_fde && fde.func_start < v->prev_start)
			return -EINVAL;
		marks = v->nr_marks;
		rows = v->nr_rows;
		rows_end = v->rows_end;
		ret = sframe_validate_fde(tbl, v, &fde,
					  tbl->num_fres - v->fres);
		if (ret) {
			/* The function is checked again from its first row. */
			v->nr_marks = marks;
			v->nr_rows = rows;
			v->rows_end = rows_end;
			return ret;
		}
		if (v->index && !(v->next_fde & ((1U << shift) - 1))) {
			long off = fde.func_start - tbl->sec_start;

			if (off != (s32)off)
				v->index_bad = true;
			v->index[v->next_fde >> shift] = off;
		}
		v->fres += fde.fres_num;
		v->prev_start = fde.func_start;
	}
	/* No function behind the last one. */
	if (tbl->num_fdes)
		sframe_row_add(tbl, v, v->rows_end, SFRAME_ROW_NONE, NULL);
	return 0;
}

/**
 * sframe_table_validate() - check a whole section before it is used
 * @tbl:	a table set up by sframe_table_init()
 *
 * sframe_table_validate_resume() in one go.
 * May fault and sleep: call it from task context only, without mmap_lock.
 *
 * Return: 0 if the section is usable, a negative error otherwise.
 */
int sframe_table_validate(const struct sframe_table *tbl)
{
	struct sframe_validation v = {};

	return sframe_table_validate_resume(tbl, &v);
}
