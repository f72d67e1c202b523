// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the conversion of .eh_frame into unwinding rows:
 * hand-built CIEs and FDEs whose rows follow from DWARF's definition of
 * their instructions, for both architectures, and malformed sections that
 * must be refused or give only rows that end a walk.
 */
#include <kunit/test.h>
#include <linux/string.h>
#include <linux/unwind_user_types.h>

#include "eh_frame.h"

#define HDR_ADDR	0x1000ULL
#define EH_ADDR		0x2000ULL
#define TEXT_LO		0x10000ULL
#define TEXT_HI		0x20000ULL

#define EB_BYTES	256
#define EB_FDES		8
#define GOT_ROWS	16

/* A .eh_frame and its .eh_frame_hdr, built piece by piece. */
struct eb {
	u8	eh[EB_BYTES];
	u8	hdr[EB_BYTES];
	u32	ehn;
	u32	hdrn;
	u32	fde_off[EB_FDES];
	u64	fde_start[EB_FDES];
	int	nfde;
	u16	arch;
};

static void eb_put(u8 *b, u32 *n, const void *p, u32 len)
{
	if (len)
		memcpy(b + *n, p, len);
	*n += len;
}

static void eb_put32(u8 *b, u32 *n, u32 v)
{
	__le32 x = cpu_to_le32(v);

	eb_put(b, n, &x, sizeof(x));
}

static void eb_set32(u8 *b, u32 at, u32 v)
{
	eb_put32(b, &at, v);
}

static struct eb *eb_new(struct kunit *test)
{
	struct eb *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, e);
	return e;
}

static void eb_init(struct eb *e, u16 arch)
{
	memset(e, 0, sizeof(*e));
	e->arch = arch;
}

/* A CIE with augmentation @aug ("zR..." data @augdata) and @ins. */
static u32 eb_cie(struct eb *e, const char *aug, const u8 *augdata, u8 augn,
		  const u8 *ins, u32 n)
{
	bool arm = e->arch == EH_FRAME_ARCH_ARM64;
	/* version 1; code factor; data factor -8; RA column */
	const u8 factors[] = { arm ? 4 : 1, 0x78, arm ? 30 : 16 };
	const u8 version = 1;
	u32 off = e->ehn, body;

	eb_put32(e->eh, &e->ehn, 0);		/* length, set below */
	body = e->ehn;
	eb_put32(e->eh, &e->ehn, 0);		/* CIE id */
	eb_put(e->eh, &e->ehn, &version, 1);
	eb_put(e->eh, &e->ehn, aug, strlen(aug) + 1);
	eb_put(e->eh, &e->ehn, factors, sizeof(factors));
	eb_put(e->eh, &e->ehn, &augn, 1);
	eb_put(e->eh, &e->ehn, augdata, augn);
	eb_put(e->eh, &e->ehn, ins, n);
	while ((e->ehn - body) % 4)
		e->eh[e->ehn++] = 0;		/* DW_CFA_nop */
	eb_set32(e->eh, off, e->ehn - body);
	return off;
}

/* The usual CIE: "zR", pcrel sdata4 FDE addresses, the entry rule. */
static u32 eb_cie_std(struct eb *e, const char *aug)
{
	static const u8 x86[] = { 0x0c, 7, 8, 0x90, 1 };  /* rsp+8; ra c-8 */
	static const u8 arm[] = { 0x0c, 31, 0 };	   /* sp+0 */
	static const u8 enc[] = { 0x1b };

	if (e->arch == EH_FRAME_ARCH_ARM64)
		return eb_cie(e, aug, enc, 1, arm, sizeof(arm));
	return eb_cie(e, aug, enc, 1, x86, sizeof(x86));
}

static u32 eb_fde(struct eb *e, u32 cie, u64 start, u32 range,
		  const u8 *ins, u32 n)
{
	u32 off = e->ehn, body;

	eb_put32(e->eh, &e->ehn, 0);
	body = e->ehn;
	eb_put32(e->eh, &e->ehn, body - cie);
	eb_put32(e->eh, &e->ehn, (u32)(start - (EH_ADDR + e->ehn)));
	eb_put32(e->eh, &e->ehn, range);
	e->eh[e->ehn++] = 0;			/* augmentation data length */
	eb_put(e->eh, &e->ehn, ins, n);
	while ((e->ehn - body) % 4)
		e->eh[e->ehn++] = 0;
	eb_set32(e->eh, off, e->ehn - body);
	e->fde_off[e->nfde] = off;
	e->fde_start[e->nfde++] = start;
	return off;
}

/* .eh_frame_hdr: version 1, pcrel eh_frame_ptr, a datarel table. */
static void eb_hdr(struct eb *e)
{
	static const u8 h[] = { 1, 0x1b, 0x03, 0x3b };
	int i;

	e->hdrn = 0;
	eb_put(e->hdr, &e->hdrn, h, sizeof(h));
	eb_put32(e->hdr, &e->hdrn, (u32)(EH_ADDR - (HDR_ADDR + 4)));
	eb_put32(e->hdr, &e->hdrn, e->nfde);
	for (i = 0; i < e->nfde; i++) {
		eb_put32(e->hdr, &e->hdrn, (u32)(e->fde_start[i] - HDR_ADDR));
		eb_put32(e->hdr, &e->hdrn,
			 (u32)(EH_ADDR + e->fde_off[i] - HDR_ADDR));
	}
}

/* What the sink was given. */
struct got {
	int				funcs;
	int				rows;
	int				nulls;
	u64				func_end[EB_FDES];
	u64				pc[GOT_ROWS];
	bool				has[GOT_ROWS];
	struct unwind_user_frame	f[GOT_ROWS];
	int				fail_at;
};

static struct got *got_new(struct kunit *test)
{
	struct got *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, g);
	return g;
}

static int got_func(void *ctx, u64 start, u64 end)
{
	struct got *g = ctx;

	if (g->funcs < EB_FDES)
		g->func_end[g->funcs] = end;
	g->funcs++;
	return 0;
}

static int got_row(void *ctx, u64 pc, const struct unwind_user_frame *frame)
{
	struct got *g = ctx;

	if (g->fail_at && g->rows + 1 == g->fail_at)
		return -ENOSPC;
	if (g->rows < GOT_ROWS) {
		g->pc[g->rows] = pc;
		g->has[g->rows] = frame;
		if (frame)
			g->f[g->rows] = *frame;
	}
	g->rows++;
	g->nulls += !frame;
	return 0;
}

/*
 * Convert copies of the first @ehn and @hdrn bytes, each in a buffer of
 * exactly that size so that a read past the end is KASAN's to report.
 */
static int eb_run(struct kunit *test, const struct eb *e, u32 ehn, u32 hdrn,
		  struct got *g, struct eh_frame_stats *st)
{
	struct eh_frame_sink sink = { got_func, got_row, g };
	struct eh_frame_input in = {
		.hdr_size = hdrn,
		.hdr_addr = HDR_ADDR,
		.eh_size = ehn,
		.eh_addr = EH_ADDR,
		.text_start = TEXT_LO,
		.text_end = TEXT_HI,
		.arch = e->arch,
	};
	struct eh_frame_stats st0;
	int fail_at = g->fail_at;
	u8 *eh, *hdr;

	eh = kunit_kmalloc(test, ehn ?: 1, GFP_KERNEL);
	hdr = kunit_kmalloc(test, hdrn ?: 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, eh);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, hdr);
	memcpy(eh, e->eh, ehn);
	memcpy(hdr, e->hdr, hdrn);
	in.eh = eh;
	in.hdr = hdr;
	memset(g, 0, sizeof(*g));
	g->fail_at = fail_at;
	return eh_frame_convert(&in, &sink, st ?: &st0);
}

/*
 * Convert a section of one FDE of 16 bytes at @start with @ins, under a
 * CIE of the architecture @arch with augmentation @aug.
 */
static int eb_run_one(struct kunit *test, struct eb *e, struct got *g,
		      u16 arch, const char *aug, u64 start, const u8 *ins,
		      u32 n)
{
	u32 cie;

	eb_init(e, arch);
	cie = eb_cie_std(e, aug);
	eb_fde(e, cie, start, 0x10, ins, n);
	eb_hdr(e);
	return eb_run(test, e, e->ehn, e->hdrn, g, NULL);
}

/* Row @i is at @pc with this rule, which is neither outermost nor signal. */
static void expect_row(struct kunit *test, const struct got *g, int i, u64 pc,
		       s32 cfa_off, bool use_fp, bool ra_saved, s32 ra_off,
		       bool fp_saved, s32 fp_off, bool ra_signed)
{
	const struct unwind_user_frame *f = &g->f[i];

	KUNIT_ASSERT_LT(test, i, min(g->rows, GOT_ROWS));
	KUNIT_ASSERT_TRUE_MSG(test, g->has[i], "row %d has no rule", i);
	KUNIT_EXPECT_EQ_MSG(test, g->pc[i], pc, "row %d", i);
	KUNIT_EXPECT_EQ_MSG(test, f->cfa_off, cfa_off, "row %d", i);
	KUNIT_EXPECT_EQ_MSG(test, f->use_fp, use_fp, "row %d", i);
	KUNIT_EXPECT_EQ_MSG(test, f->ra_saved, ra_saved, "row %d", i);
	if (ra_saved)
		KUNIT_EXPECT_EQ_MSG(test, f->ra_off, ra_off, "row %d", i);
	KUNIT_EXPECT_EQ_MSG(test, f->fp_saved, fp_saved, "row %d", i);
	if (fp_saved)
		KUNIT_EXPECT_EQ_MSG(test, f->fp_off, fp_off, "row %d", i);
	KUNIT_EXPECT_EQ_MSG(test, f->ra_signed, ra_signed, "row %d", i);
	KUNIT_EXPECT_EQ_MSG(test, f->flags, 0, "row %d", i);
	KUNIT_EXPECT_FALSE_MSG(test, f->outermost, "row %d", i);
	KUNIT_EXPECT_FALSE_MSG(test, f->signal, "row %d", i);
}

/* x86_64: push %rbp; mov %rsp,%rbp; then a function without a frame. */
static void eb_x86_prologue(struct eb *e)
{
	static const u8 ins[] = {
		0x41, 0x0e, 16, 0x86, 2,	/* adv 1; CFA rsp+16; rbp c-16 */
		0x43, 0x0d, 6,			/* adv 3; CFA on rbp */
	};
	u32 cie;

	eb_init(e, EH_FRAME_ARCH_X86_64);
	cie = eb_cie_std(e, "zR");
	eb_fde(e, cie, TEXT_LO, 0x40, ins, sizeof(ins));
	eb_fde(e, cie, TEXT_LO + 0x40, 0x10, NULL, 0);
	eb_hdr(e);
}

static void eh_frame_test_x86_prologue(struct kunit *test)
{
	struct eh_frame_stats st;
	struct got *g = got_new(test);
	struct eb *e = eb_new(test);

	eb_x86_prologue(e);
	KUNIT_ASSERT_EQ(test, eb_run(test, e, e->ehn, e->hdrn, g, &st), 0);
	KUNIT_EXPECT_EQ(test, g->funcs, 2);
	KUNIT_EXPECT_EQ(test, g->func_end[0], TEXT_LO + 0x40);
	KUNIT_EXPECT_EQ(test, g->func_end[1], TEXT_LO + 0x50);
	KUNIT_ASSERT_EQ(test, g->rows, 4);
	KUNIT_EXPECT_EQ(test, g->nulls, 0);
	KUNIT_EXPECT_EQ(test, st.fdes, 2);
	KUNIT_EXPECT_EQ(test, st.rows, 4);
	expect_row(test, g, 0, TEXT_LO, 8, false, true, -8, false, 0, false);
	expect_row(test, g, 1, TEXT_LO + 1, 16, false, true, -8, true, -16,
		   false);
	expect_row(test, g, 2, TEXT_LO + 4, 16, true, true, -8, true, -16,
		   false);
	expect_row(test, g, 3, TEXT_LO + 0x40, 8, false, true, -8, false, 0,
		   false);
}

/* remember_state/restore_state, nested twice. */
static void eh_frame_test_remember(struct kunit *test)
{
	static const u8 ins[] = {
		0x0e, 16, 0x0a,			/* CFA+16; remember */
		0x41, 0x0e, 32, 0x0a,		/* adv 1; CFA+32; remember */
		0x41, 0x0e, 48,			/* adv 1; CFA+48 */
		0x41, 0x0b,			/* adv 1; restore: 32 */
		0x41, 0x0b,			/* adv 1; restore: 16 */
		0x41,				/* adv 1 */
	};
	static const s32 want[] = { 16, 32, 48, 32, 16, 16 };
	struct got *g = got_new(test);
	struct eb *e = eb_new(test);
	int i;

	KUNIT_ASSERT_EQ(test, eb_run_one(test, e, g, EH_FRAME_ARCH_X86_64,
					 "zR", TEXT_LO, ins, sizeof(ins)), 0);
	KUNIT_ASSERT_EQ(test, g->rows, ARRAY_SIZE(want));
	for (i = 0; i < ARRAY_SIZE(want); i++)
		expect_row(test, g, i, TEXT_LO + i, want[i], false, true, -8,
			   false, 0, false);
}

/* The x86_64 .plt CFA expression, from an entry's middle on. */
static void eh_frame_test_plt(struct kunit *test)
{
	static const u8 ins[] = {
		/* def_cfa_expression: breg7 8; breg16 0; lit15; and; lit11; ge; lit3; shl; plus */
		0x0f, 11, 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b,
		0x2a, 0x33, 0x24, 0x22,
	};
	static const u64 pcs[] = { 8, 11, 16, 27, 32, 43 };
	struct eh_frame_stats st;
	struct got *g = got_new(test);
	struct eb *e = eb_new(test);
	u32 cie;
	int i;

	eb_init(e, EH_FRAME_ARCH_X86_64);
	cie = eb_cie_std(e, "zR");
	eb_fde(e, cie, TEXT_LO + 8, 0x30 - 8, ins, sizeof(ins));
	eb_hdr(e);
	KUNIT_ASSERT_EQ(test, eb_run(test, e, e->ehn, e->hdrn, g, &st), 0);
	KUNIT_ASSERT_EQ(test, g->rows, ARRAY_SIZE(pcs));
	KUNIT_EXPECT_EQ(test, st.plt_rows, ARRAY_SIZE(pcs));
	for (i = 0; i < ARRAY_SIZE(pcs); i++)
		expect_row(test, g, i, TEXT_LO + pcs[i],
			   (pcs[i] & 15) < 11 ? 8 : 16, false, true, -8, false,
			   0, false);
}

/*
 * arm64: the return address in the link register at entry; paciasp
 * (negate_ra_state), stp x29, x30, [sp, #-16]!; remember; autiasp;
 * restore. The code alignment factor is 4.
 */
static void eh_frame_test_arm64(struct kunit *test)
{
	static const u8 ins[] = {
		0x2d, 0x41, 0x0e, 16, 0x9d, 2, 0x9e, 1,
		0x41, 0x0a, 0x2d, 0x41, 0x0b,
	};
	struct got *g = got_new(test);
	struct eb *e = eb_new(test);

	KUNIT_ASSERT_EQ(test, eb_run_one(test, e, g, EH_FRAME_ARCH_ARM64, "zR",
					 TEXT_LO, ins, sizeof(ins)), 0);
	KUNIT_ASSERT_EQ(test, g->rows, 4);
	expect_row(test, g, 0, TEXT_LO, 0, false, false, 0, false, 0, true);
	expect_row(test, g, 1, TEXT_LO + 4, 16, false, true, -8, true, -16,
		   true);
	expect_row(test, g, 2, TEXT_LO + 8, 16, false, true, -8, true, -16,
		   false);
	expect_row(test, g, 3, TEXT_LO + 12, 16, false, true, -8, true, -16,
		   true);
}

/*
 * DW_CFA_undefined on the return address makes the function outermost,
 * from its first instruction on; a signal frame CIE ("S") gives one row
 * that says so.
 */
static void eh_frame_test_outermost_signal(struct kunit *test)
{
	static const u8 undef[] = { 0x41, 0x07, 16 };	/* adv 1; undef ra */
	struct eh_frame_stats st;
	struct got *g = got_new(test);
	struct eb *e = eb_new(test);
	u32 cie, sig;

	eb_init(e, EH_FRAME_ARCH_X86_64);
	cie = eb_cie_std(e, "zR");
	sig = eb_cie_std(e, "zRS");
	eb_fde(e, cie, TEXT_LO, 0x10, undef, sizeof(undef));
	eb_fde(e, sig, TEXT_LO + 0x10, 0x10, NULL, 0);
	eb_hdr(e);
	KUNIT_ASSERT_EQ(test, eb_run(test, e, e->ehn, e->hdrn, g, &st), 0);
	KUNIT_ASSERT_EQ(test, g->rows, 2);
	KUNIT_EXPECT_EQ(test, st.signal_fdes, 1);
	KUNIT_ASSERT_TRUE(test, g->has[0]);
	KUNIT_EXPECT_EQ(test, g->pc[0], TEXT_LO);
	KUNIT_EXPECT_TRUE(test, g->f[0].outermost);
	KUNIT_EXPECT_FALSE(test, g->f[0].signal);
	KUNIT_ASSERT_TRUE(test, g->has[1]);
	KUNIT_EXPECT_EQ(test, g->pc[1], TEXT_LO + 0x10);
	KUNIT_EXPECT_TRUE(test, g->f[1].signal);
	KUNIT_EXPECT_FALSE(test, g->f[1].outermost);
}

/*
 * Rules no struct unwind_user_frame holds: a row without rule, counted. A
 * stack pointer rule other than the CFA (glibc's longjmp: rsp in r8) is
 * one of them, until a restore of the column.
 */
static void eh_frame_test_inexpressible(struct kunit *test)
{
	static const u8 val[] = { 0x14, 16, 1 };	/* val_offset ra */
	static const u8 fpx[] = { 0x10, 6, 1, 0x70 };	/* expression rbp */
	static const u8 big[] = { 0x0e, 0x80, 0x80, 0x80, 0x80, 0x08 };
	static const u8 op2d[] = { 0x2d };		/* arm64's, on x86 */
	static const u8 xmm[] = { 0x0c, 17, 16 };	/* CFA on xmm0 */
	static const u8 spr[] = { 0x09, 7, 8, 0x41, 0xc7 }; /* rsp in r8 */
	struct eh_frame_stats st;
	struct got *g = got_new(test);
	struct eb *e = eb_new(test);
	u32 cie;

	eb_init(e, EH_FRAME_ARCH_X86_64);
	cie = eb_cie_std(e, "zR");
	eb_fde(e, cie, TEXT_LO, 0x10, val, sizeof(val));
	eb_fde(e, cie, TEXT_LO + 0x10, 0x10, fpx, sizeof(fpx));
	eb_fde(e, cie, TEXT_LO + 0x20, 0x10, big, sizeof(big));
	eb_fde(e, cie, TEXT_LO + 0x30, 0x10, op2d, sizeof(op2d));
	eb_fde(e, cie, TEXT_LO + 0x40, 0x10, xmm, sizeof(xmm));
	eb_fde(e, cie, TEXT_LO + 0x50, 0x10, spr, sizeof(spr));
	eb_hdr(e);
	KUNIT_ASSERT_EQ(test, eb_run(test, e, e->ehn, e->hdrn, g, &st), 0);
	KUNIT_EXPECT_EQ(test, g->funcs, 6);
	KUNIT_ASSERT_EQ(test, g->rows, 7);
	KUNIT_EXPECT_EQ(test, g->nulls, 6);
	KUNIT_EXPECT_EQ(test, st.bad_rows, 6);
	KUNIT_EXPECT_EQ(test, st.bad[EH_FRAME_BAD_RA], 1);
	KUNIT_EXPECT_EQ(test, st.bad[EH_FRAME_BAD_FP], 1);
	KUNIT_EXPECT_EQ(test, st.bad[EH_FRAME_BAD_OFFSET], 1);
	KUNIT_EXPECT_EQ(test, st.bad[EH_FRAME_BAD_FDE], 1);
	KUNIT_EXPECT_EQ(test, st.bad[EH_FRAME_BAD_CFA_REG], 1);
	KUNIT_EXPECT_EQ(test, st.bad[EH_FRAME_BAD_SP], 1);
	KUNIT_EXPECT_EQ(test, g->pc[5], TEXT_LO + 0x50);
	KUNIT_EXPECT_FALSE(test, g->has[5]);
	expect_row(test, g, 6, TEXT_LO + 0x51, 8, false, true, -8, false, 0,
		   false);
}

/*
 * The callee-saved register a walk follows (x86_64: RBX): kept until
 * saved, lost under a rule of another kind (the row stays), kept again
 * after a restore; arm64 follows none.
 */
static void eh_frame_test_csr(struct kunit *test)
{
	static const u8 ins[] = {
		0x41, 0x0e, 16, 0x83, 2,	/* adv 1; cfa+16; rbx at c-16 */
		0x41, 0x09, 3, 12,		/* adv 1; rbx in r12 */
		0x41, 0xc3,			/* adv 1; restore rbx */
	};
	static const u8 csr[] = {
		UNWIND_USER_CSR_SAME, UNWIND_USER_CSR_SAVED,
		UNWIND_USER_CSR_LOST, UNWIND_USER_CSR_SAME,
	};
	struct got *g = got_new(test);
	struct eb *e = eb_new(test);
	int i;

	KUNIT_ASSERT_EQ(test, eb_run_one(test, e, g, EH_FRAME_ARCH_X86_64,
					 "zR", TEXT_LO, ins, sizeof(ins)), 0);
	KUNIT_ASSERT_EQ(test, g->rows, 4);
	for (i = 0; i < 4; i++) {
		expect_row(test, g, i, TEXT_LO + i, i ? 16 : 8, false, true,
			   -8, false, 0, false);
		KUNIT_EXPECT_EQ_MSG(test, g->f[i].csr, csr[i], "row %d", i);
		KUNIT_EXPECT_EQ_MSG(test, g->f[i].csr_off, i == 1 ? -16 : 0,
				    "row %d", i);
	}

	g = got_new(test);
	e = eb_new(test);
	KUNIT_ASSERT_EQ(test, eb_run_one(test, e, g, EH_FRAME_ARCH_ARM64, "zR",
					 TEXT_LO, ins, 5), 0);
	KUNIT_ASSERT_EQ(test, g->rows, 2);
	KUNIT_EXPECT_EQ(test, g->f[1].csr, UNWIND_USER_CSR_LOST);
}

/* A failing sink stops the conversion with its error. */
static void eh_frame_test_sink_error(struct kunit *test)
{
	struct got *g = got_new(test);
	struct eb *e = eb_new(test);

	eb_x86_prologue(e);
	g->fail_at = 3;
	KUNIT_EXPECT_EQ(test, eb_run(test, e, e->ehn, e->hdrn, g, NULL),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, g->rows, 2);
}

/* A change to the prologue sections: @len bytes of @val at @off. */
struct eb_patch {
	const char	*what;
	bool		hdr;	/* in .eh_frame_hdr, else in .eh_frame */
	int		fde;	/* @off from this FDE's start; -1: section's */
	u32		off;
	u32		val;
	u32		len;	/* 4 or 1 */
};

static const struct eb_patch eb_patches[] = {
	{ "64-bit length", false, 0, 0, 0xffffffff, 4 },
	{ "FDE length past the section", false, 0, 0, 0xfffffff0, 4 },
	{ "CIE pointer to the FDE itself", false, 0, 4, 4, 4 },
	{ "FDEs overlapping", false, 0, 12, 0x48, 4 },
	{ "hdr version 2", true, -1, 0, 2, 1 },
	{ "hdr count * 8 wrapping", true, -1, 8, 0x20000001, 4 },
};

/* Malformed sections, each refused. */
static void eh_frame_test_malformed(struct kunit *test)
{
	static const u8 deep[EH_FRAME_REMEMBER_MAX + 1] = {
		[0 ... EH_FRAME_REMEMBER_MAX] = 0x0a,
	};
	static const u8 restore[] = { 0x41, 0x0b };
	static const u8 leb11[] = { 0x0e, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
				    0x80, 0x80, 0x80, 0x80, 0x01 };
	static const u8 setloc[] = { 0x41, 0x01, 0, 0, 0, 0 };
	struct got *g = got_new(test);
	struct eb *b = eb_new(test), *e = eb_new(test);
	const u16 x86 = EH_FRAME_ARCH_X86_64;
	const struct eb_patch *p;
	u32 cie, at;

	eb_x86_prologue(b);
	KUNIT_EXPECT_LT_MSG(test, eb_run(test, b, 10, b->hdrn, g, NULL), 0,
			    "truncated CIE");
	for (p = eb_patches; p < eb_patches + ARRAY_SIZE(eb_patches); p++) {
		u8 *buf;

		*e = *b;
		buf = p->hdr ? e->hdr : e->eh;
		at = (p->fde < 0 ? 0 : e->fde_off[p->fde]) + p->off;
		if (p->len == 4)
			eb_set32(buf, at, p->val);
		else
			buf[at] = p->val;
		KUNIT_EXPECT_LT_MSG(test,
				    eb_run(test, e, e->ehn, e->hdrn, g, NULL),
				    0, "%s", p->what);
	}
	*e = *b;
	eb_set32(e->hdr, 16, (u32)(EH_ADDR + e->fde_off[0] + 2 - HDR_ADDR));
	KUNIT_EXPECT_LT_MSG(test, eb_run(test, e, e->ehn, e->hdrn, g, NULL), 0,
			    "hdr entry inside an FDE");

	eb_init(e, EH_FRAME_ARCH_X86_64);
	cie = eb_cie_std(e, "zR");
	eb_fde(e, cie, TEXT_LO + 0x40, 0x10, NULL, 0);
	eb_fde(e, cie, TEXT_LO, 0x10, NULL, 0);
	eb_hdr(e);
	KUNIT_EXPECT_LT_MSG(test, eb_run(test, e, e->ehn, e->hdrn, g, NULL), 0,
			    "hdr table unsorted");

	KUNIT_EXPECT_LT_MSG(test, eb_run_one(test, e, g, x86, "zR",
					     TEXT_LO - 0x10, NULL, 0), 0,
			    "FDE before the text");
	KUNIT_EXPECT_LT_MSG(test, eb_run_one(test, e, g, x86, "zRX", TEXT_LO,
					     NULL, 0), 0, "unknown augmentation");
	KUNIT_EXPECT_LT_MSG(test, eb_run_one(test, e, g, x86, "zR", TEXT_LO,
					     restore, sizeof(restore)), 0,
			    "unbalanced restore_state");
	KUNIT_EXPECT_LT_MSG(test, eb_run_one(test, e, g, x86, "zR", TEXT_LO,
					     leb11, sizeof(leb11)), 0,
			    "ULEB128 of 11 bytes");
	KUNIT_EXPECT_LT_MSG(test, eb_run_one(test, e, g, x86, "zR", TEXT_LO,
					     setloc, sizeof(setloc)), 0,
			    "set_loc backwards");

	/* Too deep a nesting is no error: the FDE's one row ends walks. */
	KUNIT_EXPECT_EQ(test, eb_run_one(test, e, g, x86, "zR", TEXT_LO, deep,
					 sizeof(deep)), 0);
	KUNIT_EXPECT_EQ(test, g->rows, 1);
	KUNIT_EXPECT_EQ(test, g->nulls, 1);
}

/* Every truncation of either section is refused or gives no usable row. */
static void eh_frame_test_truncated(struct kunit *test)
{
	struct got *g = got_new(test);
	struct eb *b = eb_new(test);
	u32 i;

	eb_x86_prologue(b);
	for (i = 0; i < b->ehn; i++) {
		int ret = eb_run(test, b, i, b->hdrn, g, NULL);

		KUNIT_EXPECT_TRUE_MSG(test, ret < 0 || g->nulls == g->rows,
				      ".eh_frame cut at %u: %d, %d rows", i,
				      ret, g->rows);
	}
	for (i = 0; i < b->hdrn; i++) {
		int ret = eb_run(test, b, b->ehn, i, g, NULL);

		KUNIT_EXPECT_TRUE_MSG(test, ret < 0 || !g->rows,
				      ".eh_frame_hdr cut at %u: %d, %d rows",
				      i, ret, g->rows);
	}
}

static struct kunit_case eh_frame_test_cases[] = {
	KUNIT_CASE(eh_frame_test_x86_prologue),
	KUNIT_CASE(eh_frame_test_remember),
	KUNIT_CASE(eh_frame_test_plt),
	KUNIT_CASE(eh_frame_test_arm64),
	KUNIT_CASE(eh_frame_test_outermost_signal),
	KUNIT_CASE(eh_frame_test_inexpressible),
	KUNIT_CASE(eh_frame_test_csr),
	KUNIT_CASE(eh_frame_test_sink_error),
	KUNIT_CASE(eh_frame_test_malformed),
	KUNIT_CASE(eh_frame_test_truncated),
	{}
};

static struct kunit_suite eh_frame_test_suite = {
	.name = "eh_frame",
	.test_cases = eh_frame_test_cases,
};

kunit_test_suite(eh_frame_test_suite);

MODULE_DESCRIPTION("KUnit tests for the conversion of .eh_frame");
MODULE_LICENSE("GPL");
