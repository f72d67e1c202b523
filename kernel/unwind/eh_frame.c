// SPDX-License-Identifier: GPL-2.0
/*
 * .eh_frame to unwinding rules, for user space files without .sframe.
 *
 * The sections are untrusted: the converter reads a copy of them through
 * bounds-checked cursors only, never recurses, allocates one working area
 * of fixed size (a small CIE cache, a fixed remember_state stack and room
 * for a few rows) and does work proportional to the bytes present,
 * whatever the records say. It walks the FDEs through the binary search
 * table of .eh_frame_hdr, which must be sorted and describe
 * non-overlapping ranges inside the text, and runs each FDE's call frame
 * instructions once to validate them, holding their rows; only the rows
 * of an FDE with more than EH_FRAME_ROWS_HELD of them (or the .plt
 * expression) are given to the sink by a second run. The records the
 * table points at must not overlap either: their lengths together may not
 * exceed the section, so that no byte is interpreted more than twice by
 * one conversion, whatever the table lists (a CIE, at most
 * EH_FRAME_CIE_INSNS_MAX bytes of instructions, may be parsed once per
 * FDE). It checks for a fatal signal, and reschedules, every
 * EH_FRAME_CHECK_OPS bytes of instructions, records or .plt rows.
 *
 * Of each row it tracks the CFA, the return address, the frame pointer
 * and the stack pointer only (the caller's stack pointer must be the
 * CFA), and converts them to struct unwind_user_frame where that
 * struct expresses the rule exactly; any other row is given as NULL, so
 * that a walk ends there rather than guess.
 *
 * Malformed data (truncation, bad lengths or pointers, overlong LEB128,
 * unbalanced restore_state, unknown encodings...) rejects the whole file
 * with a negative errno.
 *
 * This file can also be built in user space, for tests and fuzzing, with
 * small stand-ins for the few kernel headers it includes: keep it free of
 * other kernel dependencies.
 */

#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/unaligned.h>

#include "eh_frame.h"

/*
 * Bytes of instructions, records and .plt rows between checks for a fatal
 * signal.
 */
#define EH_FRAME_CHECK_OPS		4096
/*
 * Rows of an FDE held until its instructions are all known to be valid,
 * to give them to the sink without a second run of the instructions.
 */
#define EH_FRAME_ROWS_HELD		48
/* CIEs remembered during one conversion. */
#define EH_FRAME_CIE_CACHE		4
/* Longest augmentation string accepted ("zPLRSB" and a little room). */
#define EH_FRAME_AUG_MAX		8
/* An offset no rule can use: larger than any s32. */
#define EH_FRAME_HUGE			((s64)1 << 40)

/* DW_EH_PE_* pointer encodings. */
#define DW_EH_PE_absptr		0x00
#define DW_EH_PE_uleb128	0x01
#define DW_EH_PE_udata2		0x02
#define DW_EH_PE_udata4		0x03
#define DW_EH_PE_udata8		0x04
#define DW_EH_PE_sleb128	0x09
#define DW_EH_PE_sdata2		0x0a
#define DW_EH_PE_sdata4		0x0b
#define DW_EH_PE_sdata8		0x0c
#define DW_EH_PE_pcrel		0x10
#define DW_EH_PE_datarel	0x30
#define DW_EH_PE_indirect	0x80
#define DW_EH_PE_omit		0xff

/* DW_CFA_* call frame instructions. */
#define DW_CFA_advance_loc		0x40
#define DW_CFA_offset			0x80
#define DW_CFA_restore			0xc0
#define DW_CFA_nop			0x00
#define DW_CFA_set_loc			0x01
#define DW_CFA_advance_loc1		0x02
#define DW_CFA_advance_loc2		0x03
#define DW_CFA_advance_loc4		0x04
#define DW_CFA_offset_extended		0x05
#define DW_CFA_restore_extended		0x06
#define DW_CFA_undefined		0x07
#define DW_CFA_same_value		0x08
#define DW_CFA_register			0x09
#define DW_CFA_remember_state		0x0a
#define DW_CFA_restore_state		0x0b
#define DW_CFA_def_cfa			0x0c
#define DW_CFA_def_cfa_register		0x0d
#define DW_CFA_def_cfa_offset		0x0e
#define DW_CFA_def_cfa_expression	0x0f
#define DW_CFA_expression		0x10
#define DW_CFA_offset_extended_sf	0x11
#define DW_CFA_def_cfa_sf		0x12
#define DW_CFA_def_cfa_offset_sf	0x13
#define DW_CFA_val_offset		0x14
#define DW_CFA_val_offset_sf		0x15
#define DW_CFA_val_expression		0x16
#define DW_CFA_AARCH64_negate_ra_state	0x2d
#define DW_CFA_GNU_args_size		0x2e
#define DW_CFA_GNU_negative_offset_extended 0x2f

#define DW_OP_deref			0x06
#define DW_OP_breg0			0x70
#define DW_OP_breg31			0x8f

/*
 * The CFA of x86_64 .plt entries after the first (binutils' lazy PLT):
 * rsp + 8 + ((rip & 15) >= 11 ? 8 : 0), the push before the jump to PLT0.
 * breg7 +8; breg16 +0; lit15; and; lit11; ge; lit3; shl; plus
 */
static const u8 eh_plt_expr[] = {
	0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22,
};

/* A bounds-checked reader of [pos, end) of a section copy. */
struct eh_cursor {
	const u8	*buf;
	u64		addr;	/* address of buf[0] */
	u32		pos;
	u32		end;
};

/* Register conventions of an architecture (DWARF numbers). */
struct eh_arch {
	u32	sp;
	u32	fp;
	u32	ra;
	u32	csr;		/* the callee-saved register followed, or -1 */
	u32	max_gpr;	/* highest register a rule may be based on */
	bool	lr;		/* the return address may stay in @ra */
	bool	plt;		/* the x86_64 .plt expression */
};

static const struct eh_arch eh_arch_x86_64 = {
	.sp = 7, .fp = 6, .ra = 16, .max_gpr = 15, .lr = false, .plt = true,
	.csr = 3,
};

static const struct eh_arch eh_arch_arm64 = {
	.sp = 31, .fp = 29, .ra = 30, .max_gpr = 31, .lr = true, .plt = false,
	.csr = U32_MAX,
};

/* How a register is found (DWARF register rules). */
enum eh_how {
	EH_UNSPEC,	/* no rule: the CIE's initial rules gave none */
	EH_UNDEF,
	EH_SAME,
	EH_OFFSET,	/* saved at CFA + off */
	EH_VAL_OFFSET,
	EH_REG,		/* in register reg */
	EH_EXPR,
	EH_VAL_EXPR,
};

struct eh_rule {
	u8	how;
	u32	reg;
	s64	off;
};

/*
 * The tracked part of a row: CFA, return address, frame pointer, and the
 * stack pointer, whose value in the caller is the CFA unless a rule says
 * otherwise (glibc's longjmp moves it to another register).
 * Also the callee-saved register the walk follows, if any (x86_64: RBX).
 */
struct eh_state {
	bool		cfa_set;
	bool		cfa_expr;	/* CFA by the expression below */
	bool		ra_signed;
	u32		cfa_reg;
	s64		cfa_off;
	u32		expr;		/* offset of the expression in .eh_frame */
	u32		expr_len;
	struct eh_rule	ra;
	struct eh_rule	fp;
	struct eh_rule	sp;
	struct eh_rule	csr;
};

struct eh_cie {
	u32		off;		/* of the CIE record in .eh_frame */
	u32		insn;		/* initial instructions [insn, end) */
	u32		end;
	u64		caf;		/* code alignment factor */
	s64		daf;		/* data alignment factor */
	u64		ra_col;
	u8		fde_enc;
	bool		aug_z;
	bool		signal;
	struct eh_state	init;		/* after the initial instructions */
};

struct eh_fde {
	u32	off;
	u32	insn;
	u32	end;
	u64	start;
	u64	range;
};

/* A row held until its FDE is known to convert (struct eh_interp). */
struct eh_row {
	u64				pc;
	struct unwind_user_frame	frame;
	u8				why;	/* EH_ROW_FRAME: @frame */
};

/* eh_row.why of a row with a frame. */
#define EH_ROW_FRAME		0xff

/* Where eh_emit() puts the rows of the current state. */
enum eh_emit_to {
	EH_EMIT_NONE,		/* nowhere: validation only */
	EH_EMIT_HOLD,		/* held in eh_interp.rows */
	EH_EMIT_SINK,		/* given to the sink */
};

/*
 * One run of instructions (of a CIE, or an FDE after its CIE). The
 * remember_state stack is the FDEs' only: a CIE may not use it.
 */
struct eh_interp {
	const struct eh_frame_input	*in;
	const struct eh_arch		*arch;
	const struct eh_frame_sink	*sink;
	struct eh_frame_stats		*stats;
	const struct eh_cie		*cie;
	bool				in_cie;	/* running CIE instructions */
	u8				emit;	/* enum eh_emit_to */
	bool				done;	/* reached the FDE's end */
	bool				ra_undef; /* the FDE's RA undefined */
	bool				overflow; /* rows not all held */
	bool				memo;	/* @memo_frame is @cur's */
	u32				ops;	/* since the last check */
	u32				nrows;	/* rows held */
	u64				loc;
	u64				end;
	unsigned int			depth;
	struct eh_state			cur;
	struct eh_state			*stack;	/* EH_FRAME_REMEMBER_MAX */
	struct eh_row			*rows;	/* EH_FRAME_ROWS_HELD */
	/* the frame of @cur, but for its CFA offset, while @memo */
	struct unwind_user_frame	memo_frame;
};

/* The FDE cannot be converted (not malformed): one inexpressible row. */
#define EH_UNSUPPORTED	1

/*
 * Count one record or .plt row (eh_run() counts the bytes of
 * instructions): every EH_FRAME_CHECK_OPS of them, stop on a fatal signal
 * and let others run, whatever the records say.
 */
static int eh_check(struct eh_interp *ip)
{
	if (++ip->ops < EH_FRAME_CHECK_OPS)
		return 0;
	ip->ops = 0;
	if (fatal_signal_pending(current))
		return -EINTR;
	cond_resched();
	return 0;
}

static int eh_u8(struct eh_cursor *c, u8 *v)
{
	if (c->pos >= c->end)
		return -EINVAL;
	*v = c->buf[c->pos++];
	return 0;
}

/* The @n (1, 2, 4 or 8) bytes at @p, little endian. */
static __always_inline u64 eh_le(const u8 *p, unsigned int n)
{
	u64 lo = p[0];

	if (n >= 2)
		lo |= (u32)p[1] << 8;
	if (n >= 4)
		lo |= (u32)p[2] << 16 | (u32)p[3] << 24;
	if (n >= 8)
		lo |= (u64)(p[4] | (u32)p[5] << 8 | (u32)p[6] << 16 |
			    (u32)p[7] << 24) << 32;
	return lo;
}

/* Read @n (1, 2, 4 or 8) bytes, little endian. */
static inline int eh_uint(struct eh_cursor *c, unsigned int n, u64 *v)
{
	if (n > c->end - c->pos)
		return -EINVAL;
	*v = eh_le(c->buf + c->pos, n);
	c->pos += n;
	return 0;
}

static int eh_skip(struct eh_cursor *c, u64 n)
{
	if (n > c->end - c->pos)
		return -EINVAL;
	c->pos += n;
	return 0;
}

/* ULEB128 of at most 10 bytes whose value fits in 64 bits. */
static int eh_uleb_long(struct eh_cursor *c, u64 *v)
{
	unsigned int i, shift = 0;
	u64 r = 0;
	u8 b;

	for (i = 0; i < 10; i++, shift += 7) {
		if (eh_u8(c, &b))
			return -EINVAL;
		if (shift == 63 && (b & 0x7e))
			return -EINVAL;
		r |= (u64)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			return 0;
		}
	}
	return -EINVAL;
}

/* As eh_uleb_long(), the one-byte form (most operands) inline. */
static __always_inline int eh_uleb(struct eh_cursor *c, u64 *v)
{
	if (likely(c->pos < c->end && !(c->buf[c->pos] & 0x80))) {
		*v = c->buf[c->pos++];
		return 0;
	}
	return eh_uleb_long(c, v);
}

/* SLEB128 of at most 10 bytes whose value fits in 64 bits. */
static int eh_sleb_long(struct eh_cursor *c, s64 *v)
{
	unsigned int i, shift = 0;
	u64 r = 0;
	u8 b;

	for (i = 0; i < 10; i++, shift += 7) {
		if (eh_u8(c, &b))
			return -EINVAL;
		if (shift == 63) {
			/* Bit 63, and the rest only its sign extension. */
			if ((b & 0x7f) != 0 && (b & 0x7f) != 0x7f)
				return -EINVAL;
			if (b & 0x80)
				return -EINVAL;
			*v = (s64)(r | ((u64)(b & 1) << 63));
			return 0;
		}
		r |= (u64)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			if (b & 0x40)
				r |= ~(u64)0 << (shift + 7);
			*v = (s64)r;
			return 0;
		}
	}
	return -EINVAL;
}

/* As eh_sleb_long(), the one-byte form inline. */
static __always_inline int eh_sleb(struct eh_cursor *c, s64 *v)
{
	u8 b;

	if (likely(c->pos < c->end && !(c->buf[c->pos] & 0x80))) {
		b = c->buf[c->pos++];
		*v = b & 0x40 ? (s64)b - 0x80 : b;
		return 0;
	}
	return eh_sleb_long(c, v);
}

/* Size of an encoded pointer's value: 0 for LEB128, -1 if unknown. */
static int eh_enc_size(u8 enc)
{
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		return 8;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		return 2;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		return 4;
	case DW_EH_PE_uleb128:
	case DW_EH_PE_sleb128:
		return 0;
	}
	return -1;
}

/* A 4-byte signed value, sign-extended. */
static inline int eh_sdata4(struct eh_cursor *c, u64 *v)
{
	if (eh_uint(c, 4, v))
		return -EINVAL;
	*v = (u64)(s64)(s32)(u32)*v;
	return 0;
}

/*
 * Read the value of a pointer of encoding @enc, without applying its base
 * (what pc_range and the personality pointer need).
 */
static int eh_enc_value(struct eh_cursor *c, u8 enc, u64 *v)
{
	s64 s;

	switch (enc & 0x0f) {
	case DW_EH_PE_sdata4:
		return eh_sdata4(c, v);
	case DW_EH_PE_udata4:
		return eh_uint(c, 4, v);
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		return eh_uint(c, 8, v);
	case DW_EH_PE_udata2:
		return eh_uint(c, 2, v);
	case DW_EH_PE_sdata2:
		if (eh_uint(c, 2, v))
			return -EINVAL;
		*v = (u64)(s64)(s16)(u16)*v;
		return 0;
	case DW_EH_PE_uleb128:
		return eh_uleb(c, v);
	case DW_EH_PE_sleb128:
		if (eh_sleb(c, &s))
			return -EINVAL;
		*v = (u64)s;
		return 0;
	}
	return -EINVAL;
}

/*
 * Read a code address of encoding @enc: absolute or pc-relative, not
 * indirect (the only forms a file's FDEs use for their ranges).
 */
static int eh_enc_addr(struct eh_cursor *c, u8 enc, u64 *v)
{
	u64 here = c->addr + c->pos;

	if (enc & DW_EH_PE_indirect)
		return -EINVAL;
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
		return eh_enc_value(c, enc, v);
	case DW_EH_PE_pcrel:
		if (eh_enc_value(c, enc, v))
			return -EINVAL;
		*v += here;
		return 0;
	}
	return -EINVAL;
}

/*
 * Start a cursor on the record (CIE or FDE) at offset @off of .eh_frame:
 * [@off + 4, end of record), the 32-bit length form only.
 */
static int eh_record(const struct eh_frame_input *in, u32 off,
		     struct eh_cursor *c)
{
	u64 len;

	c->buf = in->eh;
	c->addr = in->eh_addr;
	c->pos = off;
	c->end = in->eh_size;
	if (off >= in->eh_size || eh_uint(c, 4, &len))
		return -EINVAL;
	/* 0: terminator; 0xffffffff: 64-bit length, not used by ELF files. */
	if (len < 4 || len == 0xffffffff || len > c->end - c->pos)
		return -EINVAL;
	c->end = c->pos + len;
	return 0;
}

static s64 eh_mul(s64 a, s64 b)
{
	if (a > S32_MAX || a < S32_MIN || b > S32_MAX || b < S32_MIN)
		return EH_FRAME_HUGE;
	return a * b;
}

static s64 eh_factored(u64 v, s64 daf)
{
	return v > S32_MAX ? EH_FRAME_HUGE : eh_mul((s64)v, daf);
}

static bool eh_s32(s64 v)
{
	return v >= S32_MIN && v <= S32_MAX;
}

static struct eh_rule *eh_col(struct eh_interp *ip, struct eh_state *st,
			      u64 col)
{
	if (col == ip->cie->ra_col)
		return &st->ra;
	if (col == ip->arch->fp)
		return &st->fp;
	if (col == ip->arch->sp)
		return &st->sp;
	if (col == ip->arch->csr)
		return &st->csr;
	return NULL;
}

static void eh_set(struct eh_interp *ip, u64 col, u8 how, u64 reg, s64 off)
{
	struct eh_rule *r = eh_col(ip, &ip->cur, col);

	if (!r)
		return;
	ip->memo = false;
	if (r == &ip->cur.ra && how == EH_UNDEF)
		ip->ra_undef = true;
	r->how = how;
	r->reg = reg > U32_MAX ? U32_MAX : reg;
	r->off = off;
}

/*
 * The rule @r of the return address or the frame pointer: left in register
 * @keep (if @keep_ok: also unspecified or the same value), saved at the
 * CFA plus an offset (*@saved, *@off), or in another general register
 * (@flag in @frame's flags, *@reg). Return 0, or -1 with *@why set (@bad
 * for a rule no struct unwind_user_frame holds).
 */
static int eh_reg_rule(const struct eh_arch *a, const struct eh_rule *r,
		       u64 keep, bool keep_ok, u8 flag,
		       enum eh_frame_reason bad,
		       struct unwind_user_frame *frame, bool *saved, s32 *off,
		       u8 *reg, enum eh_frame_reason *why)
{
	switch (r->how) {
	case EH_UNSPEC:
	case EH_SAME:
		if (keep_ok)
			return 0;
		break;
	case EH_OFFSET:
		if (!eh_s32(r->off)) {
			*why = EH_FRAME_BAD_OFFSET;
			return -1;
		}
		*saved = true;
		*off = r->off;
		return 0;
	case EH_REG:
		if (keep_ok && r->reg == keep)
			return 0;
		if (r->reg > a->max_gpr || r->reg == keep)
			break;
		frame->flags |= flag;
		*reg = r->reg;
		return 0;
	default:
		break;
	}
	*why = bad;
	return -1;
}

/*
 * Convert @st. Return 0 with *@frame set, 1 for the .plt expression (the
 * return address and frame pointer rules set in *@frame), or -1 with
 * *@why set.
 */
static int eh_to_frame(const struct eh_interp *ip, const struct eh_state *st,
		       struct unwind_user_frame *frame,
		       enum eh_frame_reason *why)
{
	const struct eh_arch *a = ip->arch;
	const struct eh_frame_input *in = ip->in;
	bool plt = false;
	u32 base;

	memset(frame, 0, sizeof(*frame));
	if (ip->cie->signal) {
		frame->signal = true;
		return 0;
	}
	if (ip->cie->ra_col != a->ra) {
		*why = EH_FRAME_BAD_RA;
		return -1;
	}
	if (st->ra.how == EH_UNDEF) {
		frame->outermost = true;
		return 0;
	}

	/* CFA */
	if (!st->cfa_set) {
		*why = EH_FRAME_BAD_CFA_REG;
		return -1;
	}
	if (st->cfa_expr) {
		const u8 *e = in->eh + st->expr;
		struct eh_cursor c = {
			.buf = in->eh, .addr = in->eh_addr,
			.pos = st->expr, .end = st->expr + st->expr_len,
		};
		s64 off;
		u8 op;

		if (a->plt && st->expr_len == sizeof(eh_plt_expr) &&
		    !memcmp(e, eh_plt_expr, sizeof(eh_plt_expr))) {
			plt = true;
			base = a->sp;
			off = 8;
		} else {
			/* bregN off; deref: the CFA loaded from a register + off */
			if (eh_u8(&c, &op) || op < DW_OP_breg0 ||
			    op > DW_OP_breg31 || eh_sleb(&c, &off) ||
			    eh_u8(&c, &op) || op != DW_OP_deref ||
			    c.pos != c.end) {
				*why = EH_FRAME_BAD_CFA_EXPR;
				return -1;
			}
			base = e[0] - DW_OP_breg0;
			frame->flags |= UNWIND_USER_F_CFA_DEREF;
		}
		if (!eh_s32(off)) {
			*why = EH_FRAME_BAD_OFFSET;
			return -1;
		}
		frame->cfa_off = off;
	} else {
		base = st->cfa_reg;
		if (!eh_s32(st->cfa_off)) {
			*why = EH_FRAME_BAD_OFFSET;
			return -1;
		}
		frame->cfa_off = st->cfa_off;
	}
	if (base == a->fp) {
		frame->use_fp = true;
	} else if (base != a->sp) {
		if (base > a->max_gpr) {
			*why = EH_FRAME_BAD_CFA_REG;
			return -1;
		}
		frame->flags |= UNWIND_USER_F_CFA_REG;
		frame->cfa_reg = base;
	}

	/* The caller's stack pointer: the CFA (or a rule that says so). */
	if (st->sp.how != EH_UNSPEC &&
	    !(st->sp.how == EH_VAL_OFFSET && !st->sp.off)) {
		*why = EH_FRAME_BAD_SP;
		return -1;
	}

	/* Return address: on arm64 it may still be in the link register. */
	if (eh_reg_rule(a, &st->ra, a->ra, a->lr, UNWIND_USER_F_RA_REG,
			EH_FRAME_BAD_RA, frame, &frame->ra_saved,
			&frame->ra_off, &frame->ra_reg, why))
		return -1;
	frame->ra_signed = st->ra_signed;

	/* Frame pointer: unchanged unless saved or moved. */
	if (eh_reg_rule(a, &st->fp, a->fp, true, UNWIND_USER_F_FP_REG,
			EH_FRAME_BAD_FP, frame, &frame->fp_saved,
			&frame->fp_off, &frame->fp_reg, why))
		return -1;

	/*
	 * The followed callee-saved register: kept, or saved at an offset
	 * from the CFA; any other rule loses it (the row stays).
	 */
	if (a->csr != U32_MAX) {
		const struct eh_rule *r = &st->csr;

		if (r->how == EH_UNSPEC || r->how == EH_SAME ||
		    (r->how == EH_REG && r->reg == a->csr)) {
			frame->csr = UNWIND_USER_CSR_SAME;
		} else if (r->how == EH_OFFSET && eh_s32(r->off)) {
			frame->csr = UNWIND_USER_CSR_SAVED;
			frame->csr_off = r->off;
		}
	}
	return plt ? 1 : 0;
}

/*
 * A new frame for the current state (eh_to_frame()). Most rows change
 * the CFA offset only: while no other part of the state changes, the
 * frame made for a CFA on a register is @ip->memo_frame, that of the
 * state but for that offset (eh_frame_of()).
 */
static int eh_frame_new(struct eh_interp *ip, struct unwind_user_frame *frame,
			enum eh_frame_reason *why)
{
	int ret;

	ret = eh_to_frame(ip, &ip->cur, frame, why);
	if (!ret && !ip->cur.cfa_expr && !frame->outermost &&
	    !frame->signal) {
		ip->memo_frame = *frame;
		ip->memo = true;
	}
	return ret;
}

/* eh_to_frame() of the current state. */
static __always_inline int eh_frame_of(struct eh_interp *ip,
				       struct unwind_user_frame *frame,
				       enum eh_frame_reason *why)
{
	if (likely(ip->memo && eh_s32(ip->cur.cfa_off))) {
		*frame = ip->memo_frame;
		frame->cfa_off = ip->cur.cfa_off;
		return 0;
	}
	return eh_frame_new(ip, frame, why);
}

static int eh_sink_row(struct eh_interp *ip, u64 pc,
		       const struct unwind_user_frame *frame,
		       enum eh_frame_reason why)
{
	ip->stats->rows++;
	if (!frame) {
		ip->stats->bad_rows++;
		ip->stats->bad[why]++;
	}
	return ip->sink->row(ip->sink->ctx, pc, frame);
}

/*
 * Hold the row from @pc of the current state, or if there is no room,
 * or it is the .plt expression, give up holding the FDE's rows.
 */
static __always_inline void eh_hold(struct eh_interp *ip, u64 pc)
{
	enum eh_frame_reason why = EH_FRAME_BAD_CFA_EXPR;
	struct eh_row *row;
	int ret;

	if (ip->nrows >= EH_FRAME_ROWS_HELD)
		goto overflow;
	row = &ip->rows[ip->nrows];
	ret = eh_frame_of(ip, &row->frame, &why);
	if (ret > 0)
		goto overflow;
	row->pc = pc;
	row->why = ret < 0 ? why : EH_ROW_FRAME;
	ip->nrows++;
	return;
overflow:
	ip->overflow = true;
	ip->emit = EH_EMIT_NONE;
}

/* Give the row [@pc, @next) of the current state to the sink. */
static int eh_emit_sink(struct eh_interp *ip, u64 pc, u64 next)
{
	struct unwind_user_frame frame;
	enum eh_frame_reason why = EH_FRAME_BAD_CFA_EXPR;
	int ret;

	ret = eh_frame_of(ip, &frame, &why);
	if (ret < 0)
		return eh_sink_row(ip, pc, NULL, why);
	if (!ret)
		return eh_sink_row(ip, pc, &frame, why);

	/*
	 * The .plt expression: 16-byte entries, CFA + 8 from byte 11 on.
	 * Two rows per entry, for at most EH_FRAME_PLT_MAX_BYTES of text in
	 * the whole file: FDEs with few bytes may cover much text.
	 */
	if (next - pc > EH_FRAME_PLT_MAX_BYTES ||
	    ip->stats->plt_rows + (next - pc) / 8 + 2 >
	    EH_FRAME_PLT_MAX_BYTES / 8)
		return eh_sink_row(ip, pc, NULL, EH_FRAME_BAD_PLT);
	while (pc < next) {
		u64 phase = pc & 15;

		frame.cfa_off = phase < 11 ? 8 : 16;
		ip->stats->plt_rows++;
		ret = eh_check(ip) ?: eh_sink_row(ip, pc, &frame, why);
		if (ret)
			return ret;
		pc = (pc & ~(u64)15) + (phase < 11 ? 11 : 16);
	}
	return 0;
}

/* Move to @loc (not before the current location), ending the row. */
static __always_inline int eh_advance(struct eh_interp *ip, u64 loc)
{
	u64 pc = ip->loc;

	if (ip->in_cie)
		return -EINVAL;
	if (loc >= ip->end) {
		loc = ip->end;
		ip->done = true;
	}
	ip->loc = loc;
	if (ip->emit == EH_EMIT_NONE || loc <= pc)
		return 0;
	if (ip->emit == EH_EMIT_HOLD) {
		eh_hold(ip, pc);
		return 0;
	}
	return eh_emit_sink(ip, pc, loc);
}

static __always_inline int eh_advance_by(struct eh_interp *ip, u64 delta)
{
	u64 caf = ip->cie->caf;

	if (!caf || ip->loc >= ip->end)
		return eh_advance(ip, ip->loc);
	/* x86_64's code alignment factor: no division */
	if (caf == 1)
		return eh_advance(ip, delta > ip->end - ip->loc ? ip->end :
				  ip->loc + delta);
	if (delta > (ip->end - ip->loc) / caf)
		return eh_advance(ip, ip->end);
	return eh_advance(ip, ip->loc + delta * caf);
}

/*
 * The operand readers of eh_run(), on a pointer @*p before @e: they
 * advance @*p past the operand, or return false if it is malformed.
 */
static const u8 *eh_uleb_at(const u8 *p, const u8 *e, u64 *v)
{
	struct eh_cursor c = { .buf = p, .pos = 0, .end = e - p };

	return eh_uleb_long(&c, v) ? NULL : p + c.pos;
}

static const u8 *eh_sleb_at(const u8 *p, const u8 *e, s64 *v)
{
	struct eh_cursor c = { .buf = p, .pos = 0, .end = e - p };

	return eh_sleb_long(&c, v) ? NULL : p + c.pos;
}

static __always_inline bool eh_op_uleb(const u8 **p, const u8 *e, u64 *v)
{
	u64 t;

	if (likely(*p < e && !(**p & 0x80))) {
		*v = *(*p)++;
		return true;
	}
	*p = eh_uleb_at(*p, e, &t);
	if (!*p)
		return false;
	*v = t;
	return true;
}

static __always_inline bool eh_op_sleb(const u8 **p, const u8 *e, s64 *v)
{
	s64 t;
	u8 b;

	if (likely(*p < e && !(**p & 0x80))) {
		b = *(*p)++;
		*v = b & 0x40 ? (s64)b - 0x80 : b;
		return true;
	}
	*p = eh_sleb_at(*p, e, &t);
	if (!*p)
		return false;
	*v = t;
	return true;
}

/* A DWARF expression block, skipped: where it is in .eh_frame. */
static __always_inline bool eh_op_block(const u8 **p, const u8 *e,
					const u8 *buf, u32 *pos, u32 *len)
{
	u64 n;

	if (!eh_op_uleb(p, e, &n) || n > (size_t)(e - *p))
		return false;
	*pos = *p - buf;
	*len = n;
	*p += n;
	return true;
}

/*
 * The instructions from *@pp that start before @lim, of those [*@pp, @e)
 * of .eh_frame, or up to the end of the FDE: eh_run() without checks.
 * Return as eh_run(), *@pp after the last instruction run if not negative.
 */
static __always_inline int eh_ops(struct eh_interp *ip, const u8 **pp,
				  const u8 *lim, const u8 *e)
{
	const struct eh_cie *cie = ip->cie;
	const u8 *buf = ip->in->eh;
	const u8 *p = *pp;
	struct eh_cursor c;
	u64 reg, v, reg2;
	u32 xpos, xlen, n;
	struct eh_rule *r;
	s64 s;
	u8 op;
	int ret;

	while (p < lim) {
		op = *p++;
		/* The opcodes with an operand in their low 6 bits first. */
		if (op >= DW_CFA_advance_loc) {
			if (op < DW_CFA_offset) {
				ret = eh_advance_by(ip, op & 0x3f);
				goto advanced;
			}
			reg = op & 0x3f;
			if (op >= DW_CFA_restore)
				goto restore;
			if (!eh_op_uleb(&p, e, &v))
				return -EINVAL;
			eh_set(ip, reg, EH_OFFSET, 0, eh_factored(v, cie->daf));
			continue;
		}

		switch (op) {
		case DW_CFA_nop:
			break;
		case DW_CFA_set_loc:
			c.buf = buf;
			c.addr = ip->in->eh_addr;
			c.pos = p - buf;
			c.end = e - buf;
			if (eh_enc_addr(&c, cie->fde_enc, &v))
				return -EINVAL;
			p = buf + c.pos;
			if (v < ip->loc)
				return -EINVAL;
			ret = eh_advance(ip, v);
			goto advanced;
		case DW_CFA_advance_loc1:
		case DW_CFA_advance_loc2:
		case DW_CFA_advance_loc4:
			n = 1 << (op - DW_CFA_advance_loc1);
			if (n > e - p)
				return -EINVAL;
			v = eh_le(p, n);
			p += n;
			ret = eh_advance_by(ip, v);
			goto advanced;
		case DW_CFA_offset_extended:
		case DW_CFA_val_offset:
			if (!eh_op_uleb(&p, e, &reg) || !eh_op_uleb(&p, e, &v))
				return -EINVAL;
			eh_set(ip, reg, op == DW_CFA_offset_extended ?
			       EH_OFFSET : EH_VAL_OFFSET, 0,
			       eh_factored(v, cie->daf));
			break;
		case DW_CFA_offset_extended_sf:
		case DW_CFA_val_offset_sf:
			if (!eh_op_uleb(&p, e, &reg) || !eh_op_sleb(&p, e, &s))
				return -EINVAL;
			eh_set(ip, reg, op == DW_CFA_offset_extended_sf ?
			       EH_OFFSET : EH_VAL_OFFSET, 0,
			       eh_mul(s, cie->daf));
			break;
		case DW_CFA_GNU_negative_offset_extended:
			if (!eh_op_uleb(&p, e, &reg) || !eh_op_uleb(&p, e, &v))
				return -EINVAL;
			eh_set(ip, reg, EH_OFFSET, 0,
			       -eh_factored(v, cie->daf));
			break;
		case DW_CFA_restore_extended:
			if (!eh_op_uleb(&p, e, &reg))
				return -EINVAL;
			goto restore;
		case DW_CFA_undefined:
		case DW_CFA_same_value:
			if (!eh_op_uleb(&p, e, &reg))
				return -EINVAL;
			eh_set(ip, reg, op == DW_CFA_undefined ?
			       EH_UNDEF : EH_SAME, 0, 0);
			break;
		case DW_CFA_register:
			if (!eh_op_uleb(&p, e, &reg) || !eh_op_uleb(&p, e, &reg2))
				return -EINVAL;
			eh_set(ip, reg, EH_REG, reg2, 0);
			break;
		case DW_CFA_remember_state:
			if (ip->in_cie)
				return -EINVAL;
			if (ip->depth >= EH_FRAME_REMEMBER_MAX)
				goto unsupported;
			ip->stack[ip->depth++] = ip->cur;
			break;
		case DW_CFA_restore_state:
			if (ip->in_cie || !ip->depth)
				return -EINVAL;
			ip->cur = ip->stack[--ip->depth];
			ip->memo = false;
			break;
		case DW_CFA_def_cfa:
		case DW_CFA_def_cfa_sf:
			if (!eh_op_uleb(&p, e, &reg))
				return -EINVAL;
			if (op == DW_CFA_def_cfa) {
				if (!eh_op_uleb(&p, e, &v))
					return -EINVAL;
				s = v > S32_MAX ? EH_FRAME_HUGE : (s64)v;
			} else {
				if (!eh_op_sleb(&p, e, &s))
					return -EINVAL;
				s = eh_mul(s, cie->daf);
			}
			ip->cur.cfa_set = true;
			ip->cur.cfa_expr = false;
			ip->cur.cfa_reg = reg > U32_MAX ? U32_MAX : reg;
			ip->memo = false;
			ip->cur.cfa_off = s;
			break;
		case DW_CFA_def_cfa_register:
			if (!eh_op_uleb(&p, e, &reg))
				return -EINVAL;
			/* Keeps the offset (of a register rule). */
			ip->cur.cfa_set = true;
			ip->cur.cfa_expr = false;
			ip->cur.cfa_reg = reg > U32_MAX ? U32_MAX : reg;
			ip->memo = false;
			break;
		case DW_CFA_def_cfa_offset:
			if (!eh_op_uleb(&p, e, &v))
				return -EINVAL;
			/* Keeps the register, and an expression rule. */
			ip->cur.cfa_off = v > S32_MAX ? EH_FRAME_HUGE : (s64)v;
			break;
		case DW_CFA_def_cfa_offset_sf:
			if (!eh_op_sleb(&p, e, &s))
				return -EINVAL;
			ip->cur.cfa_off = eh_mul(s, cie->daf);
			break;
		case DW_CFA_def_cfa_expression:
			if (!eh_op_block(&p, e, buf, &xpos, &xlen))
				return -EINVAL;
			ip->cur.cfa_set = true;
			ip->cur.cfa_expr = true;
			ip->memo = false;
			ip->cur.expr = xpos;
			ip->cur.expr_len = xlen;
			break;
		case DW_CFA_expression:
		case DW_CFA_val_expression:
			if (!eh_op_uleb(&p, e, &reg) ||
			    !eh_op_block(&p, e, buf, &xpos, &xlen))
				return -EINVAL;
			eh_set(ip, reg, op == DW_CFA_expression ?
			       EH_EXPR : EH_VAL_EXPR, 0, 0);
			break;
		case DW_CFA_GNU_args_size:
			/* Only matters to exception handling. */
			if (!eh_op_uleb(&p, e, &v))
				return -EINVAL;
			break;
		case DW_CFA_AARCH64_negate_ra_state:
			/* DW_CFA_GNU_window_save elsewhere (SPARC). */
			if (!ip->arch->lr)
				goto unsupported;
			ip->cur.ra_signed = !ip->cur.ra_signed;
			ip->memo = false;
			break;
		default:
			/* Unknown: its operands cannot be skipped. */
			goto unsupported;
		}
		continue;
advanced:
		if (ret)
			return ret;
		if (ip->done)
			goto out;
		continue;
restore:
		if (ip->in_cie)
			return -EINVAL;
		r = eh_col(ip, &ip->cur, reg);
		if (r)
			ip->memo = false;
		if (r == &ip->cur.ra)
			*r = cie->init.ra;
		else if (r == &ip->cur.fp)
			*r = cie->init.fp;
		else if (r == &ip->cur.sp)
			*r = cie->init.sp;
		else if (r == &ip->cur.csr)
			*r = cie->init.csr;
	}
out:
	*pp = p;
	return 0;
unsupported:
	*pp = p;
	return EH_UNSUPPORTED;
}

/*
 * Run the instructions [@pos, @end) of .eh_frame. Return 0, a negative
 * errno if they are malformed (or the sink failed), EH_UNSUPPORTED if the
 * FDE cannot be converted.
 */
static int eh_run(struct eh_interp *ip, u32 pos, u32 end)
{
	const u8 *p = ip->in->eh + pos, *e = ip->in->eh + end, *from, *lim;
	u32 n;
	int ret;

	while (p < e && !ip->done) {
		/* Checked every EH_FRAME_CHECK_OPS bytes of instructions. */
		ret = eh_check(ip);
		if (ret)
			return ret;
		from = p;
		n = EH_FRAME_CHECK_OPS - ip->ops;
		lim = e - p > n ? p + n : e;
		ret = eh_ops(ip, &p, lim, e);
		if (ret < 0)
			return ret;
		/* Up to the next check, whatever the last instruction's size. */
		ip->ops += p - from < n ? p - from : n - 1;
		if (ret)
			return ret;
	}
	return 0;
}

/* Parse the CIE at offset @off of .eh_frame and run its instructions. */
static int eh_parse_cie(const struct eh_frame_input *in,
			const struct eh_arch *arch, u32 off,
			struct eh_cie *cie)
{
	char aug[EH_FRAME_AUG_MAX];
	struct eh_interp ip;
	struct eh_cursor c;
	unsigned int n, i;
	u64 v, id, auglen;
	u32 augend, recend;
	u8 version, enc;
	int ret;

	if (eh_record(in, off, &c) || eh_uint(&c, 4, &id) || id ||
	    eh_u8(&c, &version) || (version != 1 && version != 3))
		return -EINVAL;
	memset(cie, 0, sizeof(*cie));
	cie->off = off;
	cie->fde_enc = DW_EH_PE_absptr;
	for (n = 0; ; n++) {
		u8 ch;

		if (eh_u8(&c, &ch))
			return -EINVAL;
		if (!ch)
			break;
		if (n >= EH_FRAME_AUG_MAX)
			return -EINVAL;
		aug[n] = ch;
	}
	if (n && aug[0] != 'z')
		return -EINVAL;
	cie->aug_z = n;
	if (eh_uleb(&c, &cie->caf) || eh_sleb(&c, &cie->daf))
		return -EINVAL;
	if (version == 1) {
		u8 col;

		if (eh_u8(&c, &col))
			return -EINVAL;
		cie->ra_col = col;
	} else if (eh_uleb(&c, &cie->ra_col)) {
		return -EINVAL;
	}
	if (cie->aug_z) {
		if (eh_uleb(&c, &auglen) || auglen > c.end - c.pos)
			return -EINVAL;
		augend = c.pos + auglen;
		recend = c.end;
		c.end = augend;
		for (i = 1; i < n; i++) {
			switch (aug[i]) {
			case 'R':
				if (eh_u8(&c, &cie->fde_enc))
					return -EINVAL;
				break;
			case 'P':
				if (eh_u8(&c, &enc) ||
				    eh_enc_value(&c, enc, &v))
					return -EINVAL;
				break;
			case 'L':
				if (eh_u8(&c, &enc))
					return -EINVAL;
				break;
			case 'S':
				cie->signal = true;
				break;
			case 'B':
				/* AArch64 B key: stripping is the same. */
				if (!arch->lr)
					return -EINVAL;
				break;
			default:
				return -EINVAL;
			}
		}
		c.pos = augend;
		c.end = recend;
	}
	/* The FDE pointer encodings that FDEs' ranges can use. */
	enc = cie->fde_enc;
	if ((enc & 0x70) > DW_EH_PE_pcrel || (enc & DW_EH_PE_indirect) ||
	    eh_enc_size(enc) < 0)
		return -EINVAL;
	cie->insn = c.pos;
	cie->end = c.end;
	if (cie->end - cie->insn > EH_FRAME_CIE_INSNS_MAX)
		return -E2BIG;

	memset(&ip, 0, sizeof(ip));
	ip.in = in;
	ip.arch = arch;
	ip.cie = cie;
	ip.in_cie = true;
	ret = eh_run(&ip, cie->insn, cie->end);
	if (ret)
		return ret < 0 ? ret : -EINVAL;
	cie->init = ip.cur;
	return 0;
}

/* Parse the FDE at offset @off of .eh_frame; *@cie_off: its CIE. */
static int eh_parse_fde(const struct eh_frame_input *in, u32 off,
			struct eh_fde *fde, u32 *cie_off)
{
	struct eh_cursor c;
	u64 ptr;

	if (eh_record(in, off, &c) || eh_uint(&c, 4, &ptr) || !ptr ||
	    ptr > c.pos - 4)
		return -EINVAL;
	*cie_off = c.pos - 4 - ptr;
	fde->off = off;
	fde->insn = c.pos;	/* where pc_begin is, for now */
	fde->end = c.end;
	return 0;
}

/* The rest of the FDE, with its CIE known. */
static int eh_parse_fde_body(const struct eh_frame_input *in,
			     const struct eh_cie *cie, struct eh_fde *fde)
{
	struct eh_cursor c = {
		.buf = in->eh, .addr = in->eh_addr,
		.pos = fde->insn, .end = fde->end,
	};
	u64 len;

	/* What compilers use: pc-relative sdata4 */
	if (cie->fde_enc == (DW_EH_PE_pcrel | DW_EH_PE_sdata4) &&
	    c.end - c.pos >= 8) {
		fde->start = c.addr + c.pos +
			     (u64)(s64)(s32)(u32)eh_le(c.buf + c.pos, 4);
		fde->range = (u64)(s64)(s32)(u32)eh_le(c.buf + c.pos + 4, 4);
		c.pos += 8;
	} else if (eh_enc_addr(&c, cie->fde_enc, &fde->start) ||
		   eh_enc_value(&c, cie->fde_enc & 0x0f, &fde->range)) {
		return -EINVAL;
	}
	if (cie->aug_z && (eh_uleb(&c, &len) || eh_skip(&c, len)))
		return -EINVAL;
	fde->insn = c.pos;
	return 0;
}

struct eh_cie_cache {
	unsigned int	n;
	unsigned int	next;
	unsigned int	last;	/* the entry found last, if @n */
	struct eh_cie	cie[EH_FRAME_CIE_CACHE];
};

static int eh_get_cie(const struct eh_frame_input *in,
		      const struct eh_arch *arch, struct eh_cie_cache *cache,
		      u32 off, const struct eh_cie **cie,
		      struct eh_frame_stats *stats)
{
	struct eh_cie *slot;
	unsigned int i;
	int ret;

	/* FDEs mostly share the CIE of the FDE before them. */
	if (cache->n && cache->cie[cache->last].off == off) {
		*cie = &cache->cie[cache->last];
		return 0;
	}
	for (i = 0; i < cache->n; i++) {
		if (cache->cie[i].off == off) {
			cache->last = i;
			*cie = &cache->cie[i];
			return 0;
		}
	}
	cache->last = cache->next;
	slot = &cache->cie[cache->next];
	ret = eh_parse_cie(in, arch, off, slot);
	if (ret) {
		/* Don't leave a half-parsed entry behind. */
		slot->off = U32_MAX;
		return ret;
	}
	stats->bytes += slot->end - off;
	cache->next = (cache->next + 1) % EH_FRAME_CIE_CACHE;
	if (cache->n < EH_FRAME_CIE_CACHE)
		cache->n++;
	*cie = slot;
	return 0;
}

/* Give the rows held to the sink. */
static int eh_flush(struct eh_interp *ip)
{
	const struct eh_row *row;
	unsigned int i;
	int ret;

	for (i = 0; i < ip->nrows; i++) {
		row = &ip->rows[i];
		ret = row->why == EH_ROW_FRAME ?
		      eh_sink_row(ip, row->pc, &row->frame, 0) :
		      eh_sink_row(ip, row->pc, NULL, row->why);
		if (ret)
			return ret;
	}
	return 0;
}

/* Start a run of the FDE's instructions, its rows going to @emit. */
static void eh_fde_start(struct eh_interp *ip, const struct eh_fde *fde,
			 enum eh_emit_to emit)
{
	ip->emit = emit;
	ip->done = false;
	ip->overflow = false;
	ip->nrows = 0;
	ip->loc = fde->start;
	ip->end = fde->start + fde->range;
	ip->depth = 0;
	ip->cur = ip->cie->init;
	ip->memo = false;
}

/*
 * Validate, then convert, the instructions of one FDE. The first run
 * validates them, holding their first EH_FRAME_ROWS_HELD rows: only an
 * FDE with more rows (or the .plt expression) is run a second time.
 */
static int eh_convert_fde(struct eh_interp *ip, const struct eh_fde *fde)
{
	struct unwind_user_frame frame;
	bool hold;
	int ret;

	ip->ra_undef = ip->cie->init.ra.how == EH_UNDEF;
	/* Rows of neither a signal frame nor an outermost one are kept. */
	hold = !ip->cie->signal && !ip->ra_undef;
	eh_fde_start(ip, fde, hold ? EH_EMIT_HOLD : EH_EMIT_NONE);
	ret = eh_run(ip, fde->insn, fde->end);
	if (ret < 0)
		return ret;
	if (ret == EH_UNSUPPORTED)
		return eh_sink_row(ip, fde->start, NULL, EH_FRAME_BAD_FDE);
	if (ip->cie->signal) {
		/* Only the signal frame matters, not its rules. */
		memset(&frame, 0, sizeof(frame));
		frame.signal = true;
		ip->stats->signal_fdes++;
		return eh_sink_row(ip, fde->start, &frame, 0);
	}
	/*
	 * A function that leaves its return address undefined is where a
	 * program or thread starts (_start, clone's child): it has no
	 * caller, also at the instructions before it says so (arm64's
	 * _start begins with "bti c").
	 */
	if (ip->ra_undef) {
		memset(&frame, 0, sizeof(frame));
		frame.outermost = true;
		return eh_sink_row(ip, fde->start, &frame, 0);
	}
	if (!ip->overflow) {
		/* The rows up to the last row's, then that one. */
		ret = eh_flush(ip);
		if (ret)
			return ret;
		ip->emit = EH_EMIT_SINK;
		return eh_advance(ip, ip->end);
	}
	eh_fde_start(ip, fde, EH_EMIT_SINK);
	ret = eh_run(ip, fde->insn, fde->end);
	if (ret < 0)
		return ret;
	if (ret == EH_UNSUPPORTED)
		return eh_sink_row(ip, fde->start, NULL, EH_FRAME_BAD_FDE);
	return eh_advance(ip, ip->end);
}

/* The working state of a conversion, too large for the stack. */
struct eh_work {
	struct eh_interp	ip;
	struct eh_state		stack[EH_FRAME_REMEMBER_MAX];
	struct eh_cie_cache	cache;
	struct eh_row		rows[EH_FRAME_ROWS_HELD];
};

/* The working state for @in's architecture, counting in @stats. */
static int eh_work_new(const struct eh_frame_input *in,
		       struct eh_frame_stats *stats, struct eh_work **wp)
{
	const struct eh_arch *arch;
	struct eh_work *w;

	if (in->arch == EH_FRAME_ARCH_X86_64)
		arch = &eh_arch_x86_64;
	else if (in->arch == EH_FRAME_ARCH_ARM64)
		arch = &eh_arch_arm64;
	else
		return -EINVAL;
	w = kzalloc_obj(*w, GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	w->ip.in = in;
	w->ip.arch = arch;
	w->ip.stats = stats;
	w->ip.stack = w->stack;
	w->ip.rows = w->rows;
	*wp = w;
	return 0;
}

/* Convert the @count FDEs of the search table at @c (datarel sdata4). */
static int eh_convert_fdes(struct eh_work *w, struct eh_cursor *c,
			   u64 count)
{
	const struct eh_frame_input *in = w->ip.in;
	const struct eh_frame_sink *sink = w->ip.sink;
	struct eh_frame_stats *stats = w->ip.stats;
	u64 i, loc, faddr, prev_start = 0, prev_end = 0, fde_bytes = 0;
	u32 cie_off;
	int ret;

	for (i = 0; i < count; i++) {
		struct eh_fde fde;
		s64 s;

		ret = eh_check(&w->ip);
		if (ret)
			return ret;
		/* datarel sdata4: relative to .eh_frame_hdr */
		if (eh_sdata4(c, &loc) || eh_sdata4(c, &faddr))
			return -EINVAL;
		loc += in->hdr_addr;
		faddr += in->hdr_addr;
		if (i && loc <= prev_start)
			return -EINVAL;
		if (faddr < in->eh_addr || faddr - in->eh_addr >= in->eh_size)
			return -EINVAL;
		ret = eh_parse_fde(in, faddr - in->eh_addr, &fde, &cie_off);
		if (ret)
			return ret;
		/*
		 * Records that overlap (each FDE running to the end of the
		 * section, say) would have the same bytes interpreted again
		 * and again: the FDEs' records together fit in the section.
		 */
		fde_bytes += fde.end - fde.off;
		if (fde_bytes > in->eh_size)
			return -EINVAL;
		stats->bytes += fde.end - fde.off;
		ret = eh_get_cie(in, w->ip.arch, &w->cache, cie_off, &w->ip.cie,
				 stats);
		if (ret)
			return ret;
		ret = eh_parse_fde_body(in, w->ip.cie, &fde);
		if (ret)
			return ret;
		s = (s64)fde.range;
		if (fde.start != loc || fde.range > in->text_end - fde.start ||
		    s < 0 || fde.start < in->text_start ||
		    fde.start >= in->text_end ||
		    (i && fde.start < prev_end))
			return -EINVAL;
		prev_start = fde.start;
		prev_end = fde.start + fde.range;
		if (!fde.range) {
			stats->empty_fdes++;
			continue;
		}
		ret = sink->func(sink->ctx, fde.start, prev_end);
		if (ret < 0)
			return ret;
		if (ret) {
			stats->skipped_fdes++;
			continue;
		}
		stats->fdes++;
		ret = eh_convert_fde(&w->ip, &fde);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * eh_frame_convert() - convert a file's .eh_frame into unwinding rows
 * @in:		the file's .eh_frame_hdr and .eh_frame, and its text range
 * @sink:	receives each FDE's range and its rows, in address order
 * @stats:	counts of the conversion (zeroed first)
 *
 * Walks the FDEs of the binary search table of .eh_frame_hdr (version 1,
 * eh_frame_ptr pc-relative sdata4, count udata4, table datarel sdata4),
 * which must be sorted, point at FDEs in .eh_frame whose ranges match the
 * table, do not overlap and lie in [@in->text_start, @in->text_end).
 * Each FDE with a non-empty range is given to @sink->func, then, unless
 * @sink->func skips it, its rows to @sink->row, from its start to its
 * end. A row that no struct unwind_user_frame expresses exactly is given
 * with a NULL frame.
 *
 * The FDE records the table points at may not overlap: their lengths
 * together may not exceed .eh_frame's size. The work is then proportional
 * to the sections' sizes, whatever they hold; it checks for a fatal
 * signal, and reschedules, every EH_FRAME_CHECK_OPS records or bytes of
 * instructions. Allocates its working state (about 3.7 KiB) for the call:
 * process context.
 *
 * Return: 0 on success; -EINVAL if the sections are malformed (records
 * that overlap included) or use an
 * encoding this converter does not know; -E2BIG if a CIE's initial
 * instructions are longer than EH_FRAME_CIE_INSNS_MAX; -EINTR on a fatal
 * signal; -ENOMEM; or the first negative return of @sink's callbacks.
 */
int eh_frame_convert(const struct eh_frame_input *in,
		     const struct eh_frame_sink *sink,
		     struct eh_frame_stats *stats)
{
	struct eh_work *w;
	struct eh_cursor c;
	u64 ptr, count;
	u8 h[4];
	int ret;

	memset(stats, 0, sizeof(*stats));
	if (!in->hdr || !in->eh || in->hdr_size < 12 ||
	    in->text_start >= in->text_end)
		return -EINVAL;

	memcpy(h, in->hdr, 4);
	if (h[0] != 1 || h[1] != (DW_EH_PE_pcrel | DW_EH_PE_sdata4) ||
	    h[2] != DW_EH_PE_udata4 ||
	    h[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		return -EINVAL;
	c.buf = in->hdr;
	c.addr = in->hdr_addr;
	c.pos = 4;
	c.end = in->hdr_size;
	if (eh_enc_addr(&c, h[1], &ptr) || ptr != in->eh_addr ||
	    eh_uint(&c, 4, &count) || count > (c.end - c.pos) / 8)
		return -EINVAL;

	ret = eh_work_new(in, stats, &w);
	if (ret)
		return ret;
	w->ip.sink = sink;
	ret = eh_convert_fdes(w, &c, count);
	kfree(w);
	return ret;
}

/* An entry of the search table eh_frame_index() builds, in host order. */
struct eh_index_entry {
	s32	loc;
	s32	fde;
};

static int eh_index_cmp(const void *a, const void *b)
{
	const struct eh_index_entry *x = a, *y = b;

	return x->loc < y->loc ? -1 : x->loc > y->loc;
}

/*
 * Read the records of .eh_frame in order; with @table, put an entry for
 * each FDE of the text there. Return the number of such FDEs.
 */
static s64 eh_index_scan(struct eh_work *w, struct eh_index_entry *table,
			 u32 max)
{
	const struct eh_frame_input *in = w->ip.in;
	struct eh_cursor c;
	struct eh_fde fde;
	u32 off = 0, cie_off;
	u64 id;
	s64 n = 0;
	int ret;

	while (off + 4 <= in->eh_size) {
		ret = eh_check(&w->ip);
		if (ret)
			return ret;
		/* A zero length ends the section (crtend.o's terminator). */
		if (!in->eh[off] && !in->eh[off + 1] && !in->eh[off + 2] &&
		    !in->eh[off + 3])
			break;
		if (eh_record(in, off, &c) || eh_uint(&c, 4, &id))
			return -EINVAL;
		if (id) {
			ret = eh_parse_fde(in, off, &fde, &cie_off) ?:
			      eh_get_cie(in, w->ip.arch, &w->cache, cie_off,
					 &w->ip.cie, w->ip.stats) ?:
			      eh_parse_fde_body(in, w->ip.cie, &fde);
			if (ret)
				return ret;
			/* Left by the link of discarded code: not in the text. */
			if (fde.range && fde.start >= in->text_start &&
			    fde.start < in->text_end) {
				if (table) {
					if (n >= max)
						return -EINVAL;
					table[n].loc = fde.start - in->eh_addr;
					table[n].fde = off;
				}
				n++;
			}
		}
		off = c.end;
	}
	return n;
}

/**
 * eh_frame_index() - a search table for a .eh_frame without .eh_frame_hdr
 * @in:		the file's .eh_frame, text range and architecture; its
 *		@hdr, @hdr_size and @hdr_addr are set to the table made
 *
 * Static programs are linked without .eh_frame_hdr. Reads the records of
 * .eh_frame in order, to its end or a record of length 0, and makes the
 * .eh_frame_hdr that eh_frame_convert() walks: its FDEs of a non-empty
 * range that starts in the text, sorted by address. Each record is read
 * once, and its CIE parsed where the small cache does not hold it.
 * Checks for a fatal signal, and reschedules, as eh_frame_convert() does.
 * The caller frees the table with kvfree().
 *
 * Return: 0 on success; -EINVAL if a record is malformed or an address
 * is more than 2 GiB from .eh_frame; -EINTR on a fatal signal; -ENOMEM.
 */
int eh_frame_index(struct eh_frame_input *in)
{
	struct eh_index_entry *table;
	struct eh_frame_stats stats = {};
	struct eh_work *w;
	u8 *hdr = NULL;
	s64 n;
	u32 i;

	/* Entries are 32-bit offsets from .eh_frame. */
	if (!in->eh || in->eh_size > S32_MAX ||
	    in->text_start >= in->text_end ||
	    (in->eh_addr > in->text_start &&
	     in->eh_addr - in->text_start > S32_MAX) ||
	    (in->text_end > in->eh_addr &&
	     in->text_end - in->eh_addr > S32_MAX))
		return -EINVAL;

	n = eh_work_new(in, &stats, &w);
	if (n)
		return n;
	n = eh_index_scan(w, NULL, 0);
	if (n < 0)
		goto out;
	/* A record takes more than 8 bytes: the table fits in a u32. */
	hdr = kvmalloc(12 + n * sizeof(*table),
		       GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!hdr) {
		n = -ENOMEM;
		goto out;
	}
	table = (struct eh_index_entry *)(hdr + 12);
	memset(&w->cache, 0, sizeof(w->cache));
	if (eh_index_scan(w, table, n) != n) {
		n = -EINVAL;
		goto out;
	}
	sort(table, n, sizeof(*table), eh_index_cmp, NULL);

	/* version 1, eh_frame_ptr pcrel sdata4, count udata4, datarel sdata4 */
	hdr[0] = 1;
	hdr[1] = DW_EH_PE_pcrel | DW_EH_PE_sdata4;
	hdr[2] = DW_EH_PE_udata4;
	hdr[3] = DW_EH_PE_datarel | DW_EH_PE_sdata4;
	/* The table's address is .eh_frame's: eh_frame_ptr is -4. */
	put_unaligned_le32(-4, hdr + 4);
	put_unaligned_le32(n, hdr + 8);
	for (i = 0; i < n; i++) {
		struct eh_index_entry e = table[i];

		put_unaligned_le32(e.loc, &table[i].loc);
		put_unaligned_le32(e.fde, &table[i].fde);
	}
	in->hdr = hdr;
	in->hdr_size = 12 + n * sizeof(*table);
	in->hdr_addr = in->eh_addr;
	hdr = NULL;
	n = 0;
out:
	kvfree(hdr);
	kfree(w);
	return n;
}
