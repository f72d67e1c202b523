/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The table of rules the SFrame decoder builds from a section, its lookups,
 * and the decoder's interface.
 */
#ifndef _KERNEL_UNWIND_SFRAME_TABLE_H
#define _KERNEL_UNWIND_SFRAME_TABLE_H

#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/sframe.h>
#include <linux/types.h>
#include <linux/unwind_user_types.h>

/*
 * A row's rule is an index into the table's rules, with
 * %SFRAME_RULE_GENERAL set unless the rule is the usual one (the return
 * address saved at an offset from a CFA based on the stack or frame
 * pointer, and the frame pointer too or not at all, both within
 * %SFRAME_SLOT_REACH of the CFA, no UNWIND_USER_F_* flags, neither the
 * outermost frame nor a signal trampoline), or %SFRAME_RULE_NONE for text
 * that no function describes. Rules of one table at most: libraries have a few hundred.
 */
#define SFRAME_RULE_GENERAL			0x8000
#define SFRAME_RULE_NONE			0xffff
#define SFRAME_RULES_MAX			0x7fff

/*
 * The usual rule's return address and frame pointer slots lie less than
 * this many bytes from the CFA: a walk checks that range once for both.
 */
#define SFRAME_SLOT_REACH			2048

/* Text bytes per entry of a table's block index, at least. */
#define SFRAME_BLOCK_MIN_SHIFT			4

/*
 * A table keeps the low 16 bits of its rows' starts: a lookup compares
 * those of rows in the window of text of the offset it looks up, 64 KiB
 * aligned, which a block of the index never crosses. Every window that
 * some row lies in or above starts with a row.
 */
#define SFRAME_WINDOW_SHIFT			16
#define SFRAME_WINDOW				BIT(SFRAME_WINDOW_SHIFT)

/* Rows per entry of a table's block index, about, at least. */
#define SFRAME_BLOCK_ROWS			2U

/**
 * struct sframe_row - a row of a table: text from where it starts to where
 * the next row starts has its rule
 * @pc:		its start, from the text start, less one: the low 16 bits
 *		(see %SFRAME_WINDOW_SHIFT)
 * @rule:	its rule: an index into the table's rules, marked with
 *		%SFRAME_RULE_GENERAL unless the rule is the usual one, or
 *		%SFRAME_RULE_NONE for text without a function
 */
struct sframe_row {
	u16	pc;
	u16	rule;
};

/**
 * struct sframe_rules - the rules of a section, decoded: its lookup table
 * @text_size:	size of the text the rows describe, from the text start,
 *		at most @nr_blocks << @block_shift; 0 if there are no rows
 * @nr_rows:	number of rows, with those that start windows (the first
 *		row starts at offset 0)
 * @nr_rules:	number of distinct rules
 * @nr_blocks:	number of @blocks entries, at least 1 if there are rows
 * @block_shift: see @blocks; at most %SFRAME_WINDOW_SHIFT
 * @fp_only:	the rules are of code that keeps frame pointers (converted
 *		from .eh_frame): at a call, the frame pointer walk's rule
 * @csr:	some rule says where the callee-saved register a walk follows
 *		is (a struct unwind_user_frame's @csr): the walk tracks it
 * @rows:	the rows, sorted; a row ends where the next one starts; one
 *		more, whose @pc is 0xffff, ends the last row
 * @rules:	the distinct rules
 * @blocks:	block index of the rows: entry b counts the rows that start
 *		at or below text offset b << @block_shift, with
 *		%SFRAME_BLOCK_SEARCH set if more than %SFRAME_ROW_SCAN rows
 *		start in the block; one more entry, @nr_rows, ends the last
 *		block
 *
 * The shape of the kernel's ORC tables (orc_unwind_ip[], orc_unwind[],
 * orc_lookup[]): a lookup reads kernel memory only, a bounded number of
 * entries. Built once per section from a copy of its data, and then
 * independent of it and of where the text is mapped.
 */
struct sframe_rules {
	u32				text_size;
	u32				nr_rows;
	u32				nr_rules;
	u32				nr_blocks;
	u8				block_shift;
	bool				fp_only;
	bool				csr;
	const struct sframe_row		*rows;
	const struct unwind_user_frame	*rules;
	const u32			*blocks;
};

/* Rows of a block of a table scanned, not searched, at most. */
#define SFRAME_ROW_SCAN				4

/*
 * In a block index entry: the block starts more than %SFRAME_ROW_SCAN
 * rows, which a lookup searches. A table has fewer rows than this.
 */
#define SFRAME_BLOCK_SEARCH			BIT(31)

/**
 * sframe_rows_lookup() - the rule of the row a text offset is in
 * @rows:	the table's @rows
 * @blocks:	its @blocks
 * @shift:	its @block_shift
 * @off:	offset in the table's text, below its @text_size
 *
 * sframe_rules_row() from the table's arrays, which a walk keeps at hand:
 * the rows of the block of @off are scanned, or searched first if they
 * are too many.
 *
 * The rows a lookup compares start above the start of the block of @off,
 * which counts those at or below it, and at most at the next row above
 * @off: the first row of the next window, if no row of the window of @off
 * is above it, or the end entry. Rows of the window of @off start above
 * the window's start: their @pc is (start - 1) less the window's start,
 * below the low 16 bits of @off exactly where they start at or below it.
 * The @pc of the first row of the next window, and of the end entry, is
 * 0xffff, which no offset is above.
 *
 * Context: any context, including NMI; the caller keeps the table alive.
 * Return: the @rule of the last row that starts at or below @off
 * (%SFRAME_RULE_NONE for text without a function).
 */
static __always_inline u16 sframe_rows_lookup(const struct sframe_row *rows,
					      const u32 *blocks, u8 shift,
					      u32 off)
{
	unsigned long lo = blocks[off >> shift], hi;
	const struct sframe_row *row;
	u16 at = off;

	if (unlikely(lo & SFRAME_BLOCK_SEARCH)) {
		lo &= ~SFRAME_BLOCK_SEARCH;
		hi = blocks[(off >> shift) + 1] & ~SFRAME_BLOCK_SEARCH;
		/* The number of rows at or below @off is in [lo, hi]. */
		while (hi - lo > SFRAME_ROW_SCAN) {
			unsigned long mid = hi - (hi - lo) / 2;

			if (rows[mid - 1].pc < at)
				lo = mid;
			else
				hi = mid - 1;
		}
	}
	/*
	 * At most %SFRAME_ROW_SCAN rows from @lo on start at or below @off:
	 * those of its block. The next one starts above it (a row of the
	 * next block, or the end entry). A row starts at offset 0, which
	 * every block counts: @lo is at least 1.
	 */
	for (row = rows + lo; row->pc < at; row++)
		;
	return row[-1].rule;
}

/**
 * sframe_rules_row() - the rule of the row a text offset is in
 * @r:		a table
 * @off:	offset in the table's text, below @r->text_size
 *
 * The rule of the last row that starts at or below @off, among the rows
 * of its block of text: by a scan if they are few, else by binary search.
 * Inline: a walk makes one lookup per frame.
 *
 * Context: any context, including NMI; the caller keeps @r alive.
 * Return: the row's rule (%SFRAME_RULE_NONE for text without a
 * function).
 */
static __always_inline u16 sframe_rules_row(const struct sframe_rules *r,
					    unsigned long off)
{
	return sframe_rows_lookup(r->rows, r->blocks, r->block_shift,
				  off);
}

/**
 * sframe_rules_lookup() - the rule for a text offset
 * @r:		a table
 * @off:	offset in the table's text
 *
 * Context: any context, including NMI; the caller keeps @r alive.
 * Return: the rule, in @r, or NULL if no function describes @off.
 */
static __always_inline const struct unwind_user_frame *
sframe_rules_lookup(const struct sframe_rules *r, unsigned long off)
{
	u16 idx;

	if (off >= r->text_size)
		return NULL;
	idx = sframe_rules_row(r, off);
	if (idx == SFRAME_RULE_NONE)
		return NULL;
	return &r->rules[idx & ~SFRAME_RULE_GENERAL];
}

/*
 * The rule for @ip in the range @hint holds, which covers it: 0 and
 * *@frame, -ENOENT if no function describes @ip, -ENOMEM if the section
 * has no table.
 */
static __always_inline int
sframe_hint_lookup(const struct sframe_hint *hint, unsigned long ip,
		   const struct unwind_user_frame **frame)
{
	if (unlikely(!hint->rules))
		return hint->err;
	*frame = sframe_rules_lookup(hint->rules, ip - hint->base);
	return *frame ? 0 : -ENOENT;
}

/**
 * struct sframe_table - one .sframe section, as the decoder reads it
 * @sec_start:	address of the section
 * @sec_end:	end of the section (exclusive)
 * @fdes_start:	address of the function descriptor table
 * @fres_start:	address of the frame row entry sub-section
 * @fres_end:	end of the frame row entries (exclusive)
 * @text_start:	first text address the section may describe, in the
 *		section's address space
 * @text_end:	end of the text it may describe (exclusive)
 * @num_fdes:	number of function descriptors
 * @num_fres:	number of frame row entries of all functions together
 * @version:	format version (1, 2 or 3)
 * @flags:	header flags
 * @abi:	ABI/architecture identifier
 * @fde_size:	size of one function descriptor for @version
 * @fixed_fp_off: FP save slot relative to the CFA for every frame, or 0
 * @fixed_ra_off: RA save slot relative to the CFA for every frame, or 0
 *
 * Every value is computed from the section header once. The section is a
 * copy in memory (the kernel reads it from the page cache), and addresses
 * are in that copy's address space: the text is placed relative to the
 * copy as the ELF file places it relative to the section.
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
};

/**
 * struct sframe_build - a section's validation, and the table it builds
 * @next_fde:	the next function descriptor to check
 * @fres:	rows of the descriptors checked so far
 * @asked:	rows put in the table so far, merged ones included
 * @pc:		where to put the rows' starts, @max_rows of them, or NULL:
 *		validate only
 * @rule:	where to put the rows' rule indexes, @max_rows of them
 * @nr_rows:	rows put there so far
 * @max_rows:	room at @pc and @rule: sframe_table_rows(), at most
 *		sframe_max_rows()
 * @rules:	where to put the distinct rules, as many as @max_rows but at
 *		most %SFRAME_RULES_MAX
 * @nr_rules:	distinct rules put there so far
 * @hash:	a hash table of @rules, 1 << @hash_bits entries, zeroed
 * @hash_bits:	see @hash, sframe_hash_bits() of @max_rows
 * @funcs:	where to put the function starts, num_fdes of them
 *		(@max_funcs with sframe_build_func())
 * @nr_funcs:	function starts put there so far
 * @max_funcs:	room at @funcs, for sframe_build_func()
 * @rows_end:	end of the last function, from the text start
 * @fp_only:	the rules are of code that keeps frame pointers (see
 *		struct sframe_rules)
 */
struct sframe_build {
	u32		next_fde;
	u64		fres;
	u64		asked;
	u32		*pc;
	u16		*rule;
	u32		nr_rows;
	u32		max_rows;
	struct unwind_user_frame *rules;
	u32		nr_rules;
	u16		*hash;
	u8		hash_bits;
	u32		*funcs;
	u32		nr_funcs;
	u32		max_funcs;
	u32		rows_end;
	bool		fp_only;
};

u32 sframe_max_rows(const struct sframe_table *tbl);
u8 sframe_hash_bits(u32 rows);
int sframe_table_init(struct sframe_table *tbl, const void *hdr,
		      size_t hdr_len, unsigned long sec_start,
		      unsigned long sec_size, unsigned long text_start,
		      unsigned long text_end, u8 abi);
int sframe_table_rows(const struct sframe_table *tbl, u32 *rows);
int sframe_table_build(const struct sframe_table *tbl,
		       struct sframe_build *b);
int sframe_table_validate(const struct sframe_table *tbl);
size_t sframe_rules_size(const struct sframe_build *b, u32 *nr_blocks,
			 u8 *block_shift);
void sframe_rules_fill(struct sframe_rules *r, void *mem, u64 text_size,
		       const struct sframe_build *b, u32 nr_blocks,
		       u8 block_shift);
int sframe_build_func(struct sframe_build *b, u32 start, u32 end);
int sframe_build_row(struct sframe_build *b, u32 pc,
		     const struct unwind_user_frame *frame);
int sframe_build_end(struct sframe_build *b);
void sframe_build_rehash(struct sframe_build *b);
bool sframe_build_no_rule(const struct sframe_build *b, u32 start, u32 end);
int sframe_build_merge(struct sframe_build *m, const struct sframe_build *a,
		       const struct sframe_build *b);

#ifdef CONFIG_USERSPACE_UNWINDER_SFRAME

bool sframe_enabled(void);
bool sframe_eh_frame_enabled(void);
int sframe_hint_user(unsigned long ip, struct sframe_hint *hint);
bool sframe_possible_user(void);

/**
 * sframe_find_user() - look up the SFrame rule for a user address
 * @ip:		user instruction pointer of the current task
 * @frame:	set to the rule on success, valid as long as @hint
 * @hint:	the section the walk found last, updated: zeroed at the
 *		start of the walk
 *
 * Looks @ip up in the table of the section in @hint when @ip is in its
 * range, else in that of the section the task's registrations have for
 * it (sframe_hint_user()). Reads kernel memory only.
 *
 * Context: any context, including NMI, under rcu_read_lock() held since
 * @hint was zeroed. Takes no locks and does not fault.
 * Return: 0 on success; -ENOENT if no section describes @ip; -ENOMEM if
 * the section describing @ip has no table.
 * -EAGAIN if the task's text was not looked at yet (it is before the task
 * returns to user space).
 */
static __always_inline int
sframe_find_user(unsigned long ip, const struct unwind_user_frame **frame,
		 struct sframe_hint *hint)
{
	if (unlikely(ip - hint->start >= hint->size)) {
		int ret = sframe_hint_user(ip, hint);

		if (ret)
			return ret;
	}
	return sframe_hint_lookup(hint, ip, frame);
}

#else /* !CONFIG_USERSPACE_UNWINDER_SFRAME */

static inline bool sframe_enabled(void)
{
	return false;
}

static inline int sframe_find_user(unsigned long ip,
				   const struct unwind_user_frame **frame,
				   struct sframe_hint *hint)
{
	return -ENOENT;
}

static inline bool sframe_possible_user(void)
{
	return false;
}

#endif /* CONFIG_USERSPACE_UNWINDER_SFRAME */

#endif /* _KERNEL_UNWIND_SFRAME_TABLE_H */
