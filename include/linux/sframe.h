/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_SFRAME_H
#define _LINUX_SFRAME_H

#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/types.h>
#include <linux/unwind_user_types.h>

/* SFrame ABI/architecture identifiers, as in the section header. */
#define SFRAME_ABI_AARCH64_ENDIAN_BIG		1
#define SFRAME_ABI_AARCH64_ENDIAN_LITTLE	2
#define SFRAME_ABI_AMD64_ENDIAN_LITTLE		3

struct file;
struct mm_struct;
struct task_struct;

/* Rows of a function from one mark to the next (struct sframe_row_mark). */
#define SFRAME_ROWS_PER_MARK			32

/**
 * struct sframe_row_mark - a place to start reading a long function's rows
 * @fde:	index of the function descriptor
 * @start:	start address of the row, from the function's start
 * @off:	offset of the row from the start of the frame row entries
 * @row:	number of the row in the function: a multiple of
 *		%SFRAME_ROWS_PER_MARK, not 0
 *
 * The rows of a function have different sizes and can only be read in
 * order: the validation, which reads them all, marks every
 * %SFRAME_ROWS_PER_MARK-th row of each function, so that a lookup reads
 * at most that many rows (and one more) of a function of any length.
 * Marks describe the section's layout, not where it is mapped.
 */
struct sframe_row_mark {
	u32	fde;
	u32	start;
	u32	off;
	u32	row;
};

/*
 * Entries of a function index at most (struct sframe_table): every
 * function's start, or every 2nd, 4th, ... of a section with more.
 */
#define SFRAME_INDEX_MAX			16384

/*
 * Rows of a section's row table at most (struct sframe_row): a section
 * with more is looked up in user memory only.
 */
#define SFRAME_ROWS_MAX				BIT(18)
/* Text bytes per entry of the row table's block index, at least. */
#define SFRAME_ROW_BLOCK_MIN_SHIFT		4

/* struct sframe_row flags */
#define SFRAME_ROW_NONE				BIT(0)	/* no function: -ENOENT */
#define SFRAME_ROW_USER				BIT(1)	/* read the section */
#define SFRAME_ROW_USE_FP			BIT(2)
#define SFRAME_ROW_RA_SAVED			BIT(3)
#define SFRAME_ROW_FP_SAVED			BIT(4)
#define SFRAME_ROW_RA_SIGNED			BIT(5)
#define SFRAME_ROW_OUTERMOST			BIT(6)
#define SFRAME_ROW_SIGNAL			BIT(7)

/**
 * struct sframe_row - the rule of a range of text, decoded
 * @pc:		start of the range, from the table's text start; the range
 *		ends where the next row starts
 * @cfa_off:	as struct unwind_user_frame's
 * @ra_off:	as struct unwind_user_frame's
 * @fp_off:	as struct unwind_user_frame's
 * @flags:	SFRAME_ROW_* flags
 * @pad:	zero
 *
 * The validation, which decodes every row of a section, can leave them
 * in a table of these, sorted by @pc, with a row without function
 * (%SFRAME_ROW_NONE) where text has no descriptor. A lookup then reads
 * kernel memory only; rules that do not fit here (PCMASK functions,
 * version 3 rules through registers, large offsets) are marked
 * %SFRAME_ROW_USER and are looked up in the section.
 */
struct sframe_row {
	u32	pc;
	s32	cfa_off;
	s16	ra_off;
	s16	fp_off;
	u16	flags;
	u16	pad;
};

/**
 * struct sframe_table - one user space .sframe section, as registered
 * @sec_start:	user address of the section
 * @sec_end:	end of the section (exclusive)
 * @fdes_start:	user address of the function descriptor table
 * @fres_start:	user address of the frame row entry sub-section
 * @fres_end:	end of the frame row entries (exclusive)
 * @text_start:	first text address the section may describe
 * @text_end:	end of the text it may describe (exclusive)
 * @num_fdes:	number of function descriptors
 * @num_fres:	number of frame row entries of all functions together
 * @version:	format version (1, 2 or 3)
 * @flags:	header flags
 * @abi:	ABI/architecture identifier
 * @fde_size:	size of one function descriptor for @version
 * @fixed_fp_off: FP save slot relative to the CFA for every frame, or 0
 * @fixed_ra_off: RA save slot relative to the CFA for every frame, or 0
 * @marks:	marks left by the validation, sorted by function and start,
 *		or NULL
 * @nr_marks:	number of @marks
 * @index:	function index left by the validation, or NULL: the start of
 *		every 2^@index_shift-th function descriptor, from @sec_start
 * @nr_index:	number of @index entries
 * @index_shift: see @index
 * @rows:	row table left by the validation, or NULL (struct sframe_row)
 * @nr_rows:	number of @rows
 * @blocks:	block index of @rows: entry b counts the rows that start at
 *		or below text offset b << @block_shift
 * @nr_blocks:	number of @blocks, at least 1 if there are @rows
 * @block_shift: see @blocks
 *
 * Every value is computed from the section header once; the header itself
 * and everything behind it stays in user memory and is read on demand.
 * The marks and the index are the kernel's own, made by the validation:
 * a lookup searches the index in kernel memory and the function
 * descriptors in user memory only between two of its entries.
 */
struct sframe_table {
	unsigned long	sec_start;
	unsigned long	sec_end;
	unsigned long	fdes_start;
	unsigned long	fres_start;
	unsigned long	fres_end;
	unsigned long	text_start;
	unsigned long	text_end;
	u32		num_fdes;
	u32		num_fres;
	u8		version;
	u8		flags;
	u8		abi;
	u8		fde_size;
	s8		fixed_fp_off;
	s8		fixed_ra_off;
	const struct sframe_row_mark *marks;
	u32		nr_marks;
	const s32	*index;
	u32		nr_index;
	u8		index_shift;
	const struct sframe_row *rows;
	u32		nr_rows;
	const u32	*blocks;
	u32		nr_blocks;
	u8		block_shift;
};

/**
 * struct sframe_validation - progress of a section's validation
 * @next_fde:	the next function descriptor to check
 * @prev_start:	start address of the last descriptor checked
 * @fres:	rows of the descriptors checked so far
 * @marks:	where to put the marks of long functions, or NULL
 * @nr_marks:	marks put there so far
 * @max_marks:	room at @marks
 * @index:	where to put the function index, sframe_index_size()
 *		entries, or NULL
 * @index_bad:	a function start is too far from the section for @index
 * @rows:	where to put the row table, sframe_max_rows() entries, or
 *		NULL
 * @nr_rows:	rows put there so far
 * @rows_end:	end of the last function put there, from the text start
 * @rows_bad:	functions overlap: @rows cannot describe the section
 */
struct sframe_validation {
	u32		next_fde;
	unsigned long	prev_start;
	u64		fres;
	struct sframe_row_mark *marks;
	u32		nr_marks;
	u32		max_marks;
	s32		*index;
	bool		index_bad;
	struct sframe_row *rows;
	u32		nr_rows;
	u32		rows_end;
	bool		rows_bad;
};

/**
 * sframe_max_marks() - room for the marks of any valid section
 * @tbl:	a table set up by sframe_table_init()
 *
 * Return: the most marks the validation of @tbl can leave.
 */
static inline u32 sframe_max_marks(const struct sframe_table *tbl)
{
	return tbl->num_fres / SFRAME_ROWS_PER_MARK;
}

/**
 * sframe_index_shift() - spacing of the function index of a section
 * @tbl:	a table set up by sframe_table_init()
 *
 * Return: the smallest shift that keeps the index of @tbl within
 * %SFRAME_INDEX_MAX entries.
 */
static inline u8 sframe_index_shift(const struct sframe_table *tbl)
{
	u8 shift = 0;

	while ((tbl->num_fdes - 1) >> shift >= SFRAME_INDEX_MAX)
		shift++;
	return shift;
}

/**
 * sframe_index_size() - entries of the function index of a section
 * @tbl:	a table set up by sframe_table_init()
 *
 * Return: the number of entries sframe_table_validate_resume() puts in
 * @v->index for @tbl (0 for a section without function descriptors).
 */
static inline u32 sframe_index_size(const struct sframe_table *tbl)
{
	if (!tbl->num_fdes)
		return 0;
	return ((tbl->num_fdes - 1) >> sframe_index_shift(tbl)) + 1;
}

/**
 * sframe_max_rows() - room for the row table of a section
 * @tbl:	a table set up by sframe_table_init()
 *
 * A row per frame row entry, and at most two more per function (a start
 * without a row, a gap behind it).
 *
 * Return: the most rows the validation of @tbl can leave, or 0 if @tbl
 * gets no row table: it would have more than %SFRAME_ROWS_MAX rows, or
 * its text is too large for the rows' offsets.
 */
static inline u32 sframe_max_rows(const struct sframe_table *tbl)
{
	u64 max = tbl->num_fres + 2ULL * tbl->num_fdes + 1;

	if (max > SFRAME_ROWS_MAX || tbl->text_end - tbl->text_start > U32_MAX)
		return 0;
	return max;
}

/**
 * sframe_row_unpack() - the rule of a row
 * @row:	a row that holds a rule (neither %SFRAME_ROW_NONE nor
 *		%SFRAME_ROW_USER)
 * @frame:	filled with its rule
 */
static __always_inline void sframe_row_unpack(const struct sframe_row *row,
					      struct unwind_user_frame *frame)
{
	u16 flags = row->flags;

	/* Field by field: cheaper than clearing the whole frame first. */
	frame->cfa_off = row->cfa_off;
	frame->ra_off = row->ra_off;
	frame->fp_off = row->fp_off;
	frame->use_fp = flags & SFRAME_ROW_USE_FP;
	frame->ra_saved = flags & SFRAME_ROW_RA_SAVED;
	frame->fp_saved = flags & SFRAME_ROW_FP_SAVED;
	frame->ra_signed = flags & SFRAME_ROW_RA_SIGNED;
	frame->outermost = flags & SFRAME_ROW_OUTERMOST;
	frame->signal = flags & SFRAME_ROW_SIGNAL;
	frame->flags = 0;
	frame->cfa_reg = 0;
	frame->ra_reg = 0;
	frame->fp_reg = 0;
}

bool sframe_row_pack(const struct unwind_user_frame *frame,
		     struct sframe_row *row);
u32 sframe_row_blocks(const struct sframe_row *rows, u32 nr_rows, u8 *shift);
void sframe_row_index(const struct sframe_row *rows, u32 nr_rows,
		      u32 *blocks, u32 nr_blocks, u8 shift);
int sframe_table_init(struct sframe_table *tbl, const void *hdr,
		      size_t hdr_len, unsigned long sec_start,
		      unsigned long sec_size, unsigned long text_start,
		      unsigned long text_end, u8 abi);
int sframe_table_validate(const struct sframe_table *tbl);
int sframe_table_validate_resume(const struct sframe_table *tbl,
				 struct sframe_validation *v);
int sframe_find_row(const struct sframe_table *tbl, unsigned long ip,
		    const struct sframe_row **rowp);
int sframe_find(const struct sframe_table *tbl, unsigned long ip,
		struct unwind_user_frame *frame);
int sframe_find_func(const struct sframe_table *tbl, unsigned long ip,
		     unsigned long *start);

#ifdef CONFIG_USERSPACE_UNWINDER_SFRAME

void sframe_mm_init(struct mm_struct *mm);
void sframe_mm_dup(struct mm_struct *mm, struct mm_struct *oldmm);
void sframe_mm_free(struct mm_struct *mm);
void sframe_mmap_file(struct file *file, unsigned long addr,
		      unsigned long len, unsigned long pgoff);
void sframe_mmap_data(struct file *file, unsigned long addr,
		      unsigned long len);
void sframe_munmap(struct mm_struct *mm, unsigned long start,
		   unsigned long end);
void sframe_task_init(struct task_struct *p);
bool sframe_enabled(void);
int sframe_find_user(unsigned long ip, struct unwind_user_frame *frame,
		     bool *hit);
bool sframe_possible_user(void);
bool sframe_text_user(unsigned long ip);
int sframe_func_start_user(unsigned long ip, unsigned long *start);
void sframe_collector_get(void);
void sframe_collector_put(void);

#else /* !CONFIG_USERSPACE_UNWINDER_SFRAME */

static inline void sframe_mm_init(struct mm_struct *mm) {}
static inline void sframe_mm_dup(struct mm_struct *mm,
				 struct mm_struct *oldmm) {}
static inline void sframe_mm_free(struct mm_struct *mm) {}
static inline void sframe_mmap_file(struct file *file, unsigned long addr,
				    unsigned long len, unsigned long pgoff) {}
static inline void sframe_mmap_data(struct file *file, unsigned long addr,
				    unsigned long len) {}
static inline void sframe_munmap(struct mm_struct *mm, unsigned long start,
				 unsigned long end) {}
static inline void sframe_task_init(struct task_struct *p) {}
static inline bool sframe_enabled(void)
{
	return false;
}
static inline int sframe_find_user(unsigned long ip,
				   struct unwind_user_frame *frame,
				   bool *hit)
{
	return -ENOENT;
}

static inline bool sframe_possible_user(void)
{
	return false;
}

static inline bool sframe_text_user(unsigned long ip)
{
	return false;
}

static inline int sframe_func_start_user(unsigned long ip,
					 unsigned long *start)
{
	return -ENOENT;
}

static inline void sframe_collector_get(void) {}
static inline void sframe_collector_put(void) {}

#endif /* CONFIG_USERSPACE_UNWINDER_SFRAME */

#endif /* _LINUX_SFRAME_H */
