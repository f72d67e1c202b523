// SPDX-License-Identifier: GPL-2.0
/*
 * Crafted and malformed .eh_frame_hdr/.eh_frame for eh_frame_convert():
 * a few exact conversions of hand-built FDEs (rules whose result follows
 * from DWARF's definition), then mutations of a valid section that must
 * give an error (or only inexpressible rows), never a crash or a read
 * outside the buffers (which are malloc'ed at their exact size and the
 * test is built with ASan/UBSan).
 *
 * Usage: ehtest_malformed                      (TAP)
 *        ehtest_malformed --seeds DIR FILE...  (fuzz seeds from ELF files)
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <errno.h>

#include "eh_frame.h"
#include "fuzz_eh_frame.h"

int hostshim_fatal_countdown = -1;	/* shim/linux/sched.h */

#define HDR_ADDR	0x1000ULL
#define EH_ADDR		0x2000ULL
#define TEXT_LO		0x10000ULL
#define TEXT_HI		0x20000ULL

/* ---- builder of small sections -------------------------------------- */

struct eb {
	u8 eh[8192], hdr[8192];
	u32 ehn, hdrn;
	u32 fde_off[64];
	u64 fde_start[64];
	int nfde;
	u8 arch;
};

static void put(u8 *b, u32 *n, const void *p, u32 len)
{
	if (!len)
		return;
	memcpy(b + *n, p, len);
	*n += len;
}

static void put32(u8 *b, u32 *n, u32 v)
{
	u8 x[4] = { v, v >> 8, v >> 16, v >> 24 };

	put(b, n, x, 4);
}

static void set32(u8 *b, u32 at, u32 v)
{
	u32 n = at;

	put32(b, &n, v);
}

/* A CIE "zR" (fde_enc pcrel|sdata4) with @ins as initial instructions. */
static u32 eb_cie(struct eb *e, const char *aug, const u8 *augdata,
		  u32 augn, const u8 *ins, u32 n)
{
	u32 off = e->ehn, body;
	u8 arm = e->arch == EH_FRAME_ARCH_ARM64;
	u8 fixed[] = { 1 };	/* version */
	u8 factors[] = { arm ? 4 : 1, 0x78, arm ? 30 : 16 };
	u8 al = augn;

	put32(e->eh, &e->ehn, 0);	/* length, below */
	body = e->ehn;
	put32(e->eh, &e->ehn, 0);	/* CIE id */
	put(e->eh, &e->ehn, fixed, 1);
	put(e->eh, &e->ehn, aug, strlen(aug) + 1);
	put(e->eh, &e->ehn, factors, 3);
	if (aug[0] == 'z') {
		put(e->eh, &e->ehn, &al, 1);
		put(e->eh, &e->ehn, augdata, augn);
	}
	put(e->eh, &e->ehn, ins, n);
	while ((e->ehn - body) % 4)
		e->eh[e->ehn++] = 0;	/* DW_CFA_nop */
	set32(e->eh, off, e->ehn - body);
	return off;
}

static u32 eb_cie_std(struct eb *e)
{
	static const u8 x86[] = { 0x0c, 7, 8, 0x90, 1 };
	static const u8 arm[] = { 0x0c, 31, 0 };
	static const u8 r[] = { 0x1b };

	if (e->arch == EH_FRAME_ARCH_ARM64)
		return eb_cie(e, "zR", r, 1, arm, sizeof(arm));
	return eb_cie(e, "zR", r, 1, x86, sizeof(x86));
}

static u32 eb_fde(struct eb *e, u32 cie, u64 start, u32 range,
		  const u8 *ins, u32 n)
{
	u32 off = e->ehn, body;

	put32(e->eh, &e->ehn, 0);
	body = e->ehn;
	put32(e->eh, &e->ehn, body - cie);
	put32(e->eh, &e->ehn, (u32)(start - (EH_ADDR + e->ehn)));
	put32(e->eh, &e->ehn, range);
	e->eh[e->ehn++] = 0;		/* augmentation data length */
	put(e->eh, &e->ehn, ins, n);
	while ((e->ehn - body) % 4)
		e->eh[e->ehn++] = 0;
	set32(e->eh, off, e->ehn - body);
	e->fde_off[e->nfde] = off;
	e->fde_start[e->nfde++] = start;
	return off;
}

/* The .eh_frame_hdr with the FDEs in the order they were added. */
static void eb_hdr(struct eb *e)
{
	u8 h[] = { 1, 0x1b, 0x03, 0x3b };
	int i;

	e->hdrn = 0;
	put(e->hdr, &e->hdrn, h, 4);
	put32(e->hdr, &e->hdrn, (u32)(EH_ADDR - (HDR_ADDR + 4)));
	put32(e->hdr, &e->hdrn, e->nfde);
	for (i = 0; i < e->nfde; i++) {
		put32(e->hdr, &e->hdrn, (u32)(e->fde_start[i] - HDR_ADDR));
		put32(e->hdr, &e->hdrn,
		      (u32)(EH_ADDR + e->fde_off[i] - HDR_ADDR));
	}
}

static void eb_init(struct eb *e, u8 arch)
{
	memset(e, 0, sizeof(*e));
	e->arch = arch;
}

/* ---- running it ------------------------------------------------------ */

struct got {
	int fdes, rows, nulls;
	u64 pc[64];
	int has[64];
	struct unwind_user_frame f[64];
};

static int g_func(void *ctx, u64 start, u64 end)
{
	struct got *g = ctx;

	(void)start;
	(void)end;
	g->fdes++;
	return 0;
}

static int g_row(void *ctx, u64 pc, const struct unwind_user_frame *frame)
{
	struct got *g = ctx;

	if (g->rows < 64) {
		g->pc[g->rows] = pc;
		g->has[g->rows] = !!frame;
		if (frame)
			g->f[g->rows] = *frame;
	}
	g->rows++;
	g->nulls += !frame;
	return 0;
}

/* The input of @eh (@ehn bytes) and @hdr (@hdrn), at this file's addresses. */
static void input_of(struct eh_frame_input *in, const u8 *eh, u32 ehn,
		     const u8 *hdr, u32 hdrn, u8 arch)
{
	memset(in, 0, sizeof(*in));
	in->hdr = hdr;
	in->hdr_size = hdrn;
	in->hdr_addr = hdr ? HDR_ADDR : 0;
	in->eh = eh;
	in->eh_size = ehn;
	in->eh_addr = EH_ADDR;
	in->text_start = TEXT_LO;
	in->text_end = TEXT_HI;
	in->arch = arch;
}

/* Convert copies of exactly @ehn and @hdrn bytes. */
static int run(const struct eb *e, u32 ehn, u32 hdrn, struct got *g,
	       struct eh_frame_stats *st)
{
	struct eh_frame_input in;
	struct eh_frame_sink sink = { g_func, g_row, g };
	struct eh_frame_stats st0;
	u8 *eh = malloc(ehn ? ehn : 1), *hdr = malloc(hdrn ? hdrn : 1);
	int ret;

	memcpy(eh, e->eh, ehn);
	memcpy(hdr, e->hdr, hdrn);
	memset(g, 0, sizeof(*g));
	input_of(&in, eh, ehn, hdr, hdrn, e->arch);
	ret = eh_frame_convert(&in, &sink, st ? st : &st0);
	free(eh);
	free(hdr);
	return ret;
}

/* A section of one FDE of 16 bytes at TEXT_LO with @ins, converted. */
static int run_one_fde(struct eb *e, u8 arch, const u8 *ins, u32 len,
		       struct got *g)
{
	u32 cie;

	eb_init(e, arch);
	cie = eb_cie_std(e);
	eb_fde(e, cie, TEXT_LO, 0x10, ins, len);
	eb_hdr(e);
	return run(e, e->ehn, e->hdrn, g, NULL);
}

static int tap, failed;

static void report(int ok, const char *name, const char *fmt, int a, int b)
{
	char extra[128];

	snprintf(extra, sizeof(extra), fmt, a, b);
	printf("%sok %d - %s%s\n", ok ? "" : "not ", ++tap, name, extra);
	if (!ok)
		failed++;
}

/* Expected outcomes of a malformed case. */
enum { ERR, NULLONLY };

static void expect_bad(const char *name, const struct eb *e, u32 ehn,
		       u32 hdrn, int want)
{
	struct got g;
	int ret = run(e, ehn, hdrn, &g, NULL);
	int ok = want == ERR ? ret < 0 :
		 (ret < 0 || (g.rows > 0 && g.nulls == g.rows));

	report(ok, name, ": ret %d, null rows %d", ret, g.nulls);
}

static int frame_is(const struct got *g, int i, u64 pc, s32 cfa, bool use_fp,
		    u8 flags, bool ra_saved, s32 ra_off, bool fp_saved,
		    s32 fp_off, bool ra_signed)
{
	const struct unwind_user_frame *f = &g->f[i];

	return i < g->rows && g->has[i] && g->pc[i] == pc &&
	       f->cfa_off == cfa && f->use_fp == use_fp && f->flags == flags &&
	       f->ra_saved == ra_saved && (!ra_saved || f->ra_off == ra_off) &&
	       f->fp_saved == fp_saved && (!fp_saved || f->fp_off == fp_off) &&
	       f->ra_signed == ra_signed && !f->outermost && !f->signal;
}

/* ---- exact conversions -------------------------------------------- */

/* x86_64: push rbp; mov rsp,rbp; ... */
static void base_fde(struct eb *e)
{
	static const u8 ins[] = {
		0x41, 0x0e, 16, 0x86, 2,	/* adv 1; cfa+16; rbp c-16 */
		0x43, 0x0d, 6,			/* adv 3; cfa on rbp */
	};
	u32 cie;

	eb_init(e, EH_FRAME_ARCH_X86_64);
	cie = eb_cie_std(e);
	eb_fde(e, cie, TEXT_LO, 0x40, ins, sizeof(ins));
	eb_fde(e, cie, TEXT_LO + 0x40, 0x10, NULL, 0);
	eb_hdr(e);
}

static void test_exact(void)
{
	struct eh_frame_stats st;
	struct got g;
	struct eb e;
	int ret, ok, i;

	base_fde(&e);
	ret = run(&e, e.ehn, e.hdrn, &g, &st);
	ok = !ret && g.fdes == 2 && g.rows == 4 &&
	     frame_is(&g, 0, TEXT_LO, 8, 0, 0, 1, -8, 0, 0, 0) &&
	     frame_is(&g, 1, TEXT_LO + 1, 16, 0, 0, 1, -8, 1, -16, 0) &&
	     frame_is(&g, 2, TEXT_LO + 4, 16, 1, 0, 1, -8, 1, -16, 0) &&
	     frame_is(&g, 3, TEXT_LO + 0x40, 8, 0, 0, 1, -8, 0, 0, 0);
	report(ok, "baseline: push rbp; mov rsp,rbp", ": ret %d rows %d",
	       ret, g.rows);

	/* remember/restore nested 2 deep */
	{
		static const u8 ins[] = {
			0x0e, 16, 0x0a, 0x41, 0x0e, 32, 0x0a, 0x41, 0x0e, 48,
			0x41, 0x0b, 0x41, 0x0b, 0x41,
		};
		ret = run_one_fde(&e, EH_FRAME_ARCH_X86_64, ins, sizeof(ins), &g);
		ok = !ret && g.rows == 6;
		for (i = 0; i < 6 && ok; i++) {
			static const s32 want[] = { 16, 32, 48, 32, 16, 16 };

			ok = frame_is(&g, i, TEXT_LO + i, want[i], 0, 0, 1, -8,
				      0, 0, 0);
		}
		report(ok, "remember_state/restore_state nested 2",
		       ": ret %d rows %d", ret, g.rows);
	}

	/* .plt expression from an unaligned start */
	{
		static const u8 ins[] = {
			0x0f, 11, 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b,
			0x2a, 0x33, 0x24, 0x22,
		};
		static const u64 pcs[] = { 8, 11, 16, 27, 32, 43 };
		u32 cie;

		eb_init(&e, EH_FRAME_ARCH_X86_64);
		cie = eb_cie_std(&e);
		eb_fde(&e, cie, TEXT_LO + 8, 0x30 - 8, ins, sizeof(ins));
		eb_hdr(&e);
		ret = run(&e, e.ehn, e.hdrn, &g, &st);
		ok = !ret && g.rows == 6 && st.plt_rows == 6;
		for (i = 0; i < 6 && ok; i++)
			ok = frame_is(&g, i, TEXT_LO + pcs[i],
				      (pcs[i] & 15) < 11 ? 8 : 16, 0, 0, 1, -8,
				      0, 0, 0);
		report(ok, ".plt expression expanded per 16-byte entry",
		       ": ret %d rows %d", ret, g.rows);
	}

	/* CFA = *(rbp - 8), DW_OP_breg6 -8; DW_OP_deref */
	{
		static const u8 ins[] = { 0x0f, 3, 0x76, 0x78, 0x06 };
		static const u8 ins2[] = { 0x0f, 4, 0x76, 0x78, 0x06, 0x06 };
		u32 cie;

		eb_init(&e, EH_FRAME_ARCH_X86_64);
		cie = eb_cie_std(&e);
		eb_fde(&e, cie, TEXT_LO, 0x10, ins, sizeof(ins));
		eb_fde(&e, cie, TEXT_LO + 0x10, 0x10, ins2, sizeof(ins2));
		eb_hdr(&e);
		ret = run(&e, e.ehn, e.hdrn, &g, &st);
		ok = !ret && g.rows == 2 &&
		     frame_is(&g, 0, TEXT_LO, -8, 1, UNWIND_USER_F_CFA_DEREF,
			      1, -8, 0, 0, 0) &&
		     !g.has[1] && st.bad[EH_FRAME_BAD_CFA_EXPR] == 1;
		report(ok, "breg6 -8; deref, and with a trailing op",
		       ": ret %d rows %d", ret, g.rows);
	}

	/* inexpressible rules, each with its reason */
	{
		static const u8 val[] = { 0x14, 16, 1 };	/* val_offset ra */
		static const u8 fpx[] = { 0x10, 6, 1, 0x70 };	/* expr rbp */
		static const u8 big[] = { 0x0e, 0x80, 0x80, 0x80, 0x80, 0x08 };
		static const u8 sparc[] = { 0x2d };
		static const u8 spr[] = { 0x09, 7, 8, 0x41, 0xc7 }; /* rsp in r8 */
		u32 cie;

		eb_init(&e, EH_FRAME_ARCH_X86_64);
		cie = eb_cie_std(&e);
		eb_fde(&e, cie, TEXT_LO, 0x10, val, sizeof(val));
		eb_fde(&e, cie, TEXT_LO + 0x10, 0x10, fpx, sizeof(fpx));
		eb_fde(&e, cie, TEXT_LO + 0x20, 0x10, big, sizeof(big));
		eb_fde(&e, cie, TEXT_LO + 0x30, 0x10, sparc, sizeof(sparc));
		eb_fde(&e, cie, TEXT_LO + 0x40, 0x10, spr, sizeof(spr));
		eb_hdr(&e);
		ret = run(&e, e.ehn, e.hdrn, &g, &st);
		ok = !ret && g.rows == 6 && g.nulls == 5 &&
		     st.bad[EH_FRAME_BAD_RA] == 1 &&
		     st.bad[EH_FRAME_BAD_FP] == 1 &&
		     st.bad[EH_FRAME_BAD_OFFSET] == 1 &&
		     st.bad[EH_FRAME_BAD_FDE] == 1 &&
		     st.bad[EH_FRAME_BAD_SP] == 1 && !g.has[4] &&
		     frame_is(&g, 5, TEXT_LO + 0x41, 8, 0, 0, 1, -8, 0, 0, 0);
		report(ok, "val_offset RA, expression FP, CFA offset 2^31, "
		       "0x2d on x86_64, rsp in a register (until restored): "
		       "inexpressible", ": ret %d nulls %d", ret, g.nulls);
	}

	/* arm64: paciasp (negate_ra_state), stp x29, x30, [sp, -16]! */
	{
		static const u8 ins[] = {
			0x2d, 0x41, 0x0e, 16, 0x9d, 2, 0x9e, 1,
			0x41, 0x0a, 0x2d, 0x41, 0x0b,
		};
		ret = run_one_fde(&e, EH_FRAME_ARCH_ARM64, ins, sizeof(ins), &g);
		ok = !ret && g.rows == 4 &&
		     frame_is(&g, 0, TEXT_LO, 0, 0, 0, 0, 0, 0, 0, 1) &&
		     frame_is(&g, 1, TEXT_LO + 4, 16, 0, 0, 1, -8, 1, -16, 1) &&
		     frame_is(&g, 2, TEXT_LO + 8, 16, 0, 0, 1, -8, 1, -16, 0) &&
		     frame_is(&g, 3, TEXT_LO + 12, 16, 0, 0, 1, -8, 1, -16, 1);
		report(ok, "arm64 negate_ra_state toggles ra_signed, "
		       "restored by restore_state", ": ret %d rows %d",
		       ret, g.rows);
	}
}

/* ---- malformed ----------------------------------------------------- */

static void one_fde(struct eb *e, const u8 *ins, u32 n)
{
	u32 cie;

	eb_init(e, EH_FRAME_ARCH_X86_64);
	cie = eb_cie_std(e);
	eb_fde(e, cie, TEXT_LO, 0x20, ins, n);
	eb_hdr(e);
}

static void test_malformed(void)
{
	static const u8 nop[] = { 0 };
	struct eb e, b;
	u8 deep[32];
	u32 i, cie;

	base_fde(&b);
	/* Every mutation starts from the baseline, which converts. */
	e = b;
	expect_bad("truncated CIE", &e, 10, e.hdrn, ERR);
	expect_bad("truncated FDE", &e, e.fde_off[0] + 12, e.hdrn, ERR);
	expect_bad("empty .eh_frame", &e, 0, e.hdrn, ERR);

	e = b;
	set32(e.eh, e.fde_off[0], 0);
	expect_bad("FDE length 0 (terminator)", &e, e.ehn, e.hdrn, ERR);
	e = b;
	set32(e.eh, e.fde_off[0], 0xffffffff);
	expect_bad("FDE 64-bit length form", &e, e.ehn, e.hdrn, ERR);
	e = b;
	set32(e.eh, e.fde_off[0], 0xfffffff0);
	expect_bad("FDE length past the section", &e, e.ehn, e.hdrn, ERR);
	e = b;
	set32(e.eh, 0, 0xfffffffc);
	expect_bad("CIE length wrapping", &e, e.ehn, e.hdrn, ERR);
	e = b;
	set32(e.eh, e.fde_off[0] + 4, e.fde_off[0] + 4 + 64);
	expect_bad("CIE pointer before the section", &e, e.ehn, e.hdrn, ERR);
	e = b;
	set32(e.eh, e.fde_off[0] + 4, 4);
	expect_bad("CIE pointer to the FDE itself", &e, e.ehn, e.hdrn, ERR);
	e = b;
	set32(e.eh, e.fde_off[0] + 4, e.fde_off[0] + 4 - e.fde_off[1]);
	expect_bad("CIE pointer to another FDE", &e, e.ehn, e.hdrn, ERR);

	{
		static const u8 ad[] = { 0x1b };

		eb_init(&e, EH_FRAME_ARCH_X86_64);
		cie = eb_cie(&e, "zR", ad, 1, nop, 1);
		e.eh[cie + 4 + 4 + 1 + 3 + 3] = 0x7f;	/* aug length */
		eb_fde(&e, cie, TEXT_LO, 0x10, NULL, 0);
		eb_hdr(&e);
		expect_bad("augmentation length past the CIE", &e, e.ehn,
			   e.hdrn, ERR);
		eb_init(&e, EH_FRAME_ARCH_X86_64);
		cie = eb_cie(&e, "zRX", ad, 1, nop, 1);
		eb_fde(&e, cie, TEXT_LO, 0x10, NULL, 0);
		eb_hdr(&e);
		expect_bad("unknown augmentation 'X'", &e, e.ehn, e.hdrn, ERR);
		eb_init(&e, EH_FRAME_ARCH_X86_64);
		cie = eb_cie(&e, "zR", (const u8[]){ 0x3b }, 1, nop, 1);
		eb_fde(&e, cie, TEXT_LO, 0x10, NULL, 0);
		eb_hdr(&e);
		expect_bad("FDE encoding datarel", &e, e.ehn, e.hdrn, ERR);
		eb_init(&e, EH_FRAME_ARCH_X86_64);
		cie = eb_cie(&e, "zR", (const u8[]){ 0x1b }, 1,
			     (const u8[]){ 0x0a }, 1);
		eb_fde(&e, cie, TEXT_LO, 0x10, NULL, 0);
		eb_hdr(&e);
		expect_bad("remember_state in a CIE", &e, e.ehn, e.hdrn, ERR);
	}

	for (i = 0; i <= EH_FRAME_REMEMBER_MAX; i++)
		deep[i] = 0x0a;
	one_fde(&e, deep, EH_FRAME_REMEMBER_MAX + 1);
	expect_bad("remember_state nested over the limit", &e, e.ehn, e.hdrn,
		   NULLONLY);
	one_fde(&e, (const u8[]){ 0x41, 0x0b }, 2);
	expect_bad("unbalanced restore_state", &e, e.ehn, e.hdrn, ERR);
	one_fde(&e, (const u8[]){ 0x0e, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
			0x80, 0x80, 0x80, 0x80, 0x01 }, 12);
	expect_bad("ULEB128 of 11 bytes", &e, e.ehn, e.hdrn, ERR);
	one_fde(&e, (const u8[]){ 0x0e, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			0xff, 0xff, 0xff, 0x7f }, 11);
	expect_bad("ULEB128 over 64 bits", &e, e.ehn, e.hdrn, ERR);
	one_fde(&e, (const u8[]){ 0x13, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
			0x80, 0x80, 0x80, 0x40 }, 11);
	expect_bad("SLEB128 over 64 bits", &e, e.ehn, e.hdrn, ERR);
	one_fde(&e, (const u8[]){ 0x0e, 0x80 }, 2);
	e.ehn -= 2;	/* the LEB128 runs into the end of the section */
	set32(e.eh, e.fde_off[0], e.ehn - e.fde_off[0] - 4);
	e.ehn = e.fde_off[0] + 4 + (e.ehn - e.fde_off[0] - 4);
	expect_bad("ULEB128 cut by the end of the FDE", &e, e.ehn, e.hdrn,
		   ERR);
	one_fde(&e, (const u8[]){ 0x0f, 50, 0x77, 0x08 }, 4);
	expect_bad("def_cfa_expression truncated", &e, e.ehn, e.hdrn, ERR);
	one_fde(&e, (const u8[]){ 0x10, 6, 40, 0x70 }, 4);
	expect_bad("expression truncated", &e, e.ehn, e.hdrn, ERR);
	one_fde(&e, (const u8[]){ 0x16, 16, 0xff, 0xff, 0x03 }, 5);
	expect_bad("val_expression longer than the section", &e, e.ehn,
		   e.hdrn, ERR);
	one_fde(&e, (const u8[]){ 0x20, 0x41 }, 2);
	expect_bad("unknown opcode 0x20", &e, e.ehn, e.hdrn, NULLONLY);
	one_fde(&e, (const u8[]){ 0x41, 0x01, 0, 0, 0, 0 }, 6);
	expect_bad("set_loc backwards", &e, e.ehn, e.hdrn, ERR);

	e = b;
	set32(e.eh, e.fde_off[0] + 12, 0xffffffff);
	expect_bad("pc_range negative (sdata4 -1)", &e, e.ehn, e.hdrn, ERR);
	e = b;
	set32(e.eh, e.fde_off[0] + 12, 0x7fffffff);
	expect_bad("pc_range past the text", &e, e.ehn, e.hdrn, ERR);
	e = b;
	set32(e.eh, e.fde_off[0] + 12, 0x48);
	expect_bad("FDEs overlapping", &e, e.ehn, e.hdrn, ERR);

	/* the hdr */
	e = b;
	e.hdr[0] = 2;
	expect_bad("hdr version 2", &e, e.ehn, e.hdrn, ERR);
	e = b;
	e.hdr[3] = 0x03;
	expect_bad("hdr table encoding udata4", &e, e.ehn, e.hdrn, ERR);
	e = b;
	set32(e.hdr, 4, 0x100);
	expect_bad("hdr eh_frame_ptr elsewhere", &e, e.ehn, e.hdrn, ERR);
	e = b;
	set32(e.hdr, 8, 3);
	expect_bad("hdr count larger than the table", &e, e.ehn, e.hdrn, ERR);
	e = b;
	set32(e.hdr, 8, 0x20000001);
	expect_bad("hdr count * 8 wrapping", &e, e.ehn, e.hdrn, ERR);
	expect_bad("hdr truncated", &e, e.ehn, 7, ERR);
	eb_init(&e, EH_FRAME_ARCH_X86_64);
	cie = eb_cie_std(&e);
	eb_fde(&e, cie, TEXT_LO + 0x40, 0x10, NULL, 0);
	eb_fde(&e, cie, TEXT_LO, 0x10, NULL, 0);
	eb_hdr(&e);
	expect_bad("hdr table unsorted", &e, e.ehn, e.hdrn, ERR);
	e = b;
	set32(e.hdr, 12, (u32)(TEXT_LO + 4 - HDR_ADDR));
	expect_bad("hdr start not the FDE's", &e, e.ehn, e.hdrn, ERR);
	e = b;
	set32(e.hdr, 16, (u32)(EH_ADDR + 0 - HDR_ADDR));
	expect_bad("hdr entry pointing at a CIE", &e, e.ehn, e.hdrn, ERR);
	e = b;
	set32(e.hdr, 16, (u32)(EH_ADDR + e.ehn - HDR_ADDR));
	expect_bad("hdr entry past .eh_frame", &e, e.ehn, e.hdrn, ERR);
	e = b;
	set32(e.hdr, 16, (u32)(EH_ADDR + e.fde_off[0] + 2 - HDR_ADDR));
	expect_bad("hdr entry inside an FDE", &e, e.ehn, e.hdrn, ERR);
	eb_init(&e, EH_FRAME_ARCH_X86_64);
	cie = eb_cie_std(&e);
	eb_fde(&e, cie, TEXT_LO - 0x10, 0x10, NULL, 0);
	eb_hdr(&e);
	expect_bad("FDE before the text", &e, e.ehn, e.hdrn, ERR);

	/* Every truncation of the baseline's .eh_frame and hdr. */
	{
		int bad = 0;
		struct got g;

		for (i = 0; i < b.ehn; i++)
			bad += run(&b, i, b.hdrn, &g, NULL) >= 0 &&
			       g.nulls != g.rows;
		for (i = 0; i < b.hdrn; i++)
			bad += run(&b, b.ehn, i, &g, NULL) >= 0 && g.rows;
		report(!bad, "every truncation of the baseline fails",
		       ": %d of %d converted", bad, b.ehn + b.hdrn);
	}
}

/* ---- work bounded by the bytes present ------------------------------ */

/*
 * Review F1's section, @size bytes: a CIE, then @n FDEs of 16 bytes of
 * text each, listed by the table at increasing addresses. With @overlap,
 * each FDE's length runs to the end of the section, so that its record
 * holds all the later ones (a DW_CFA_expression block skips to a tail of
 * DW_CFA_nop); without, the FDEs are disjoint and the last one holds the
 * tail. Converted with the work counted in @st.
 */
static int big_run(u32 size, u32 n, int overlap, struct eh_frame_stats *st,
		   int countdown)
{
	static const u8 x86[] = { 0x0c, 7, 8, 0x90, 1 };
	struct eh_frame_input in;
	struct eh_frame_sink sink;
	struct got g;
	u8 *eh = calloc(1, size), *hdr = calloc(1, 12 + 8 * n);
	u32 ehn = 0, hdrn = 0, cie, i, body, end;
	int ret;

	/* CIE "zR", pcrel sdata4 */
	put32(eh, &ehn, 0);
	body = ehn;
	put32(eh, &ehn, 0);
	put(eh, &ehn, "\1zR\0\1\x78\x10\1\x1b", 9);
	put(eh, &ehn, x86, sizeof(x86));
	while ((ehn - body) % 4)
		eh[ehn++] = 0;
	set32(eh, 0, ehn - body);
	cie = 0;
	put(hdr, &hdrn, "\1\x1b\x03\x3b", 4);
	put32(hdr, &hdrn, (u32)(EH_ADDR - (HDR_ADDR + 4)));
	put32(hdr, &hdrn, n);
	for (i = 0; i < n; i++) {
		u32 off = ehn;

		put32(eh, &ehn, 0);
		body = ehn;
		put32(eh, &ehn, body - cie);
		put32(eh, &ehn, (u32)(TEXT_LO + 16 * i - (EH_ADDR + ehn)));
		put32(eh, &ehn, 16);
		eh[ehn++] = 0;			/* augmentation length */
		end = overlap || i == n - 1 ? size : ehn + 12;
		/* DW_CFA_expression r0, a block to the start of the nops */
		eh[ehn++] = 0x10;
		eh[ehn++] = 0;
		eh[ehn++] = overlap ? 1 : 0;	/* ULEB length */
		if (overlap)
			eh[ehn++] = 0;		/* the block */
		while (ehn < off + 16)
			eh[ehn++] = 0;
		set32(eh, off, end - body);
		if (!overlap)
			ehn = end;
		put32(hdr, &hdrn, (u32)(TEXT_LO + 16 * i - HDR_ADDR));
		put32(hdr, &hdrn, (u32)(EH_ADDR + off - HDR_ADDR));
	}
	input_of(&in, eh, size, hdr, hdrn, EH_FRAME_ARCH_X86_64);
	memset(&g, 0, sizeof(g));
	sink.func = g_func;
	sink.row = g_row;
	sink.ctx = &g;
	hostshim_fatal_countdown = countdown;
	ret = eh_frame_convert(&in, &sink, st);
	hostshim_fatal_countdown = -1;
	free(eh);
	free(hdr);
	return ret;
}

static void test_bounds(void)
{
	const u32 size = 1 << 20;
	struct eh_frame_stats ho, va;
	int ret, ret2;

	/* 1,024 records that each run to the end of a 1 MiB section */
	ret = big_run(size, 1024, 1, &ho, -1);
	ret2 = big_run(size, 1024, 0, &va, -1);
	report(ret == -EINVAL && ho.bytes <= size,
	       "overlapping records refused, work within the section",
	       ": ret %d, KiB interpreted %d", ret, (int)(ho.bytes >> 10));
	report(!ret2 && va.bytes <= 2 * (u64)size && va.fdes == 1024,
	       "the same records disjoint: converted, each byte twice at most",
	       ": ret %d, KiB interpreted %d", ret2, (int)(va.bytes >> 10));
	/*
	 * A fatal signal is seen inside one long FDE, not only between
	 * FDEs: the last FDE's 1 MiB of DW_CFA_nop.
	 */
	ret = big_run(size, 2, 0, &va, 8);
	report(ret == -EINTR, "fatal signal seen inside one long FDE",
	       ": ret %d (rows %d)", ret, va.rows);
}

/*
 * eh_frame_index(): records out of address order, one of an empty range,
 * one left outside the text by the link of discarded code, then the
 * terminator; the table has the two others, sorted.
 */
static void test_index(void)
{
	struct eh_frame_input in;
	struct eh_frame_sink sink = { g_func, g_row, NULL };
	struct eh_frame_stats st;
	struct got g;
	struct eb e;
	u32 cie;
	int ret, ret2 = -1;

	eb_init(&e, EH_FRAME_ARCH_X86_64);
	cie = eb_cie_std(&e);
	eb_fde(&e, cie, TEXT_LO + 0x20, 0x10, NULL, 0);
	eb_fde(&e, cie, TEXT_LO, 0x10, NULL, 0);
	eb_fde(&e, cie, 0, 0x10, NULL, 0);
	eb_fde(&e, cie, TEXT_LO + 0x40, 0, NULL, 0);
	put32(e.eh, &e.ehn, 0);
	input_of(&in, e.eh, e.ehn, NULL, 0, EH_FRAME_ARCH_X86_64);
	memset(&g, 0, sizeof(g));
	sink.ctx = &g;
	ret = eh_frame_index(&in);
	if (!ret) {
		ret2 = eh_frame_convert(&in, &sink, &st);
		free((void *)in.hdr);
	}
	report(!ret && !ret2 && g.fdes == 2 && g.rows == 2 &&
	       g.pc[0] == TEXT_LO && g.pc[1] == TEXT_LO + 0x20,
	       "eh_frame_index(): FDEs of the text only, sorted",
	       ": ret %d, %d FDEs converted", ret ? ret : ret2, g.fdes);
	in.eh_size = 6;
	report(eh_frame_index(&in) == -EINVAL,
	       "eh_frame_index(): a truncated record", "", 0, 0);
}

/* ---- seeds for the fuzzer ---------------------------------------------- */

static int write_seed(const char *dir, const char *path)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t shs;
	struct fuzz_head h;
	Elf_Data *hd = NULL, *ed = NULL;
	char out[4096];
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	FILE *f;

	if (fd < 0)
		return 0;
	memset(&h, 0, sizeof(h));
	h.text_start = ~0ULL;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shs))
		return -1;
	h.arch = eh.e_machine == EM_AARCH64 ? EH_FRAME_ARCH_ARM64 :
		 EH_FRAME_ARCH_X86_64;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		gelf_getshdr(scn, &sh);
		name = elf_strptr(elf, shs, sh.sh_name);
		if (sh.sh_flags & SHF_EXECINSTR) {
			if (sh.sh_addr < h.text_start)
				h.text_start = sh.sh_addr;
			if (sh.sh_addr + sh.sh_size > h.text_end)
				h.text_end = sh.sh_addr + sh.sh_size;
		}
		if (name && !strcmp(name, ".eh_frame_hdr")) {
			hd = elf_getdata(scn, NULL);
			h.hdr_addr = sh.sh_addr;
		} else if (name && !strcmp(name, ".eh_frame")) {
			ed = elf_getdata(scn, NULL);
			h.eh_addr = sh.sh_addr;
		}
	}
	if (!hd || !ed)
		return -1;
	h.hdr_size = hd->d_size;
	snprintf(out, sizeof(out), "%s/%s-%u", dir, base, h.arch);
	f = fopen(out, "wb");
	if (!f)
		return -1;
	fwrite(&h, sizeof(h), 1, f);
	fwrite(hd->d_buf, 1, hd->d_size, f);
	fwrite(ed->d_buf, 1, ed->d_size, f);
	fclose(f);
	elf_end(elf);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "--seeds")) {
		struct eb b;
		struct fuzz_head h = {
			HDR_ADDR, EH_ADDR, TEXT_LO, TEXT_HI, 0,
			EH_FRAME_ARCH_X86_64,
		};
		char out[4096];
		FILE *f;
		int i;

		elf_version(EV_CURRENT);
		for (i = 3; i < argc; i++)
			write_seed(argv[2], argv[i]);
		/* and the crafted baseline */
		base_fde(&b);
		h.hdr_size = b.hdrn;
		snprintf(out, sizeof(out), "%s/crafted-base", argv[2]);
		f = fopen(out, "wb");
		if (f) {
			fwrite(&h, sizeof(h), 1, f);
			fwrite(b.hdr, 1, b.hdrn, f);
			fwrite(b.eh, 1, b.ehn, f);
			fclose(f);
		}
		return 0;
	}
	test_exact();
	test_malformed();
	test_bounds();
	test_index();
	printf("1..%d\n", tap);
	return failed ? 1 : 0;
}
