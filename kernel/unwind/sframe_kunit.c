// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the SFrame decoder.
 *
 * Each test builds a section in kernel memory, copies it into a buffer of
 * its own and runs the decoder on it, validating it and building its
 * table as for a file's .sframe section, and looks rules up in the table.
 */
#include <kunit/test.h>
#include <linux/string.h>
#include <linux/unwind_user_types.h>

#include <linux/unwind_user.h>

#include "sframe.h"
#include "sframe_table.h"

/* Text range for the header checks; loaded tables get one near them. */
#define TEXT_START	0x400000UL
#define TEXT_END	0x500000UL
#define TEXT_SIZE	0x100000UL
#define BUF_SIZE	512

/* A section under construction: header, FDE table, then the FREs. */
struct sf_builder {
	u8	buf[BUF_SIZE];
	u8	version;
	u8	flags;
	s8	fixed_ra;
	s8	fixed_fp;
	u32	num_fdes;
	u32	num_fres;
	u32	fre_len;
	u8	fres[BUF_SIZE];
	u8	fdes[BUF_SIZE];
	size_t	fde_len;
};

static void sf_init(struct sf_builder *b, u8 version, u8 flags, s8 ra, s8 fp)
{
	memset(b, 0, sizeof(*b));
	b->version = version;
	b->flags = flags;
	b->fixed_ra = ra;
	b->fixed_fp = fp;
}

static size_t sf_fde_size(const struct sf_builder *b)
{
	if (b->version == SFRAME_VERSION_3)
		return sizeof(struct sframe_fde_v3);
	return b->version == SFRAME_VERSION_1 ? sizeof(struct sframe_fde_v1) :
						sizeof(struct sframe_fde_v2);
}

/*
 * Add a version 3 function: its index entry (@start: the text address it
 * starts at, once the section's address is known, else 0) and attribute
 * record, which its rows must follow (sf_add_fre() right after).
 */
static void sf_add_fde3(struct sf_builder *b, const struct sframe_table *t,
			unsigned long start, u32 size, u16 fres_num, u8 info,
			u8 info2, u8 rep_size)
{
	struct sframe_fda_v3 attr = {
		.fres_num	= fres_num,
		.info		= info,
		.info2		= info2,
		.rep_size	= rep_size,
	};
	struct sframe_fde_v3 fde = {
		.func_size	= size,
		.attr_off	= b->fre_len,
	};

	if (t)
		fde.start_off = start - (t->fdes_start + b->fde_len);
	memcpy(b->fdes + b->fde_len, &fde, sizeof(fde));
	b->fde_len += sizeof(fde);
	b->num_fdes++;
	memcpy(b->fres + b->fre_len, &attr, sizeof(attr));
	b->fre_len += sizeof(attr);
}

/* Add a function; @start_addr is stored as is (section or FDE relative). */
static void sf_add_fde(struct sf_builder *b, s32 start_addr, u32 size,
		       u32 fres_off, u32 fres_num, u8 info, u8 rep_size)
{
	struct sframe_fde_v2 fde = {
		.start_addr	= start_addr,
		.func_size	= size,
		.fres_off	= fres_off,
		.fres_num	= fres_num,
		.info		= info,
		.rep_size	= rep_size,
	};

	memcpy(b->fdes + b->fde_len, &fde, sf_fde_size(b));
	b->fde_len += sf_fde_size(b);
	b->num_fdes++;
}

/* Add one FRE with 1-byte start and offsets of @off_size bytes. */
static u32 sf_add_fre(struct sf_builder *b, unsigned int addr_size, u32 start,
		      u8 info, const s32 *offs, unsigned int n,
		      unsigned int off_size)
{
	u32 pos = b->fre_len;
	unsigned int i;

	b->num_fres++;
	memcpy(b->fres + b->fre_len, &start, addr_size);
	b->fre_len += addr_size;
	b->fres[b->fre_len++] = info;
	for (i = 0; i < n; i++) {
		memcpy(b->fres + b->fre_len, &offs[i], off_size);
		b->fre_len += off_size;
	}
	return pos;
}

static u8 fre_info(bool sp_base, unsigned int count, unsigned int size_code,
		   bool mangled)
{
	return (sp_base ? 1 : 0) | count << 1 | size_code << 5 |
	       (mangled ? 0x80 : 0);
}

/* Lay the section out in b->buf and return its size. */
static size_t sf_finish(struct sf_builder *b)
{
	struct sframe_header h = {
		.preamble.magic		= SFRAME_MAGIC,
		.preamble.version	= b->version,
		.preamble.flags		= b->flags,
		.abi_arch		= ARCH_SFRAME_ABI,
		.cfa_fixed_fp_offset	= b->fixed_fp,
		.cfa_fixed_ra_offset	= b->fixed_ra,
		.num_fdes		= b->num_fdes,
		.num_fres		= b->num_fres,
		.fre_len		= b->fre_len,
		.fdes_off		= 0,
		.fres_off		= b->fde_len,
	};

	memcpy(b->buf, &h, sizeof(h));
	memcpy(b->buf + sizeof(h), b->fdes, b->fde_len);
	memcpy(b->buf + sizeof(h) + b->fde_len, b->fres, b->fre_len);
	return sizeof(h) + b->fde_len + b->fre_len;
}

/* Copy @len bytes of @data to a fresh buffer; return its address. */
static unsigned long sf_to_kernel(struct kunit *test, const void *data,
				  size_t len)
{
	void *buf = kunit_kzalloc(test, BUF_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	memcpy(buf, data, len);
	return (unsigned long)buf;
}

/*
 * Build, copy and set up a table. Its text is the TEXT_SIZE bytes below
 * the section, so that 32-bit function offsets reach it; only the section
 * is ever read.
 */
static int sf_load(struct kunit *test, struct sf_builder *b,
		   struct sframe_table *tbl)
{
	size_t len = sf_finish(b);
	unsigned long addr = sf_to_kernel(test, b->buf, len);

	return sframe_table_init(tbl, b->buf, len, addr, len,
				 addr - TEXT_SIZE, addr, ARCH_SFRAME_ABI);
}

/* Copy the section built again, now that its addresses are known. */
static void sf_copy(struct sframe_table *tbl, struct sf_builder *b)
{
	memcpy((void *)tbl->sec_start, b->buf, tbl->sec_end - tbl->sec_start);
}

/* The table and function starts of the build sf_validate() did last. */
struct sf_funcs {
	const struct sframe_rules	*rules;
	const u32			*funcs;
	u32				nr;
};

/*
 * Validate @tbl and build its table, as the kernel does for a file's
 * section; the table and the build's function starts go to @test->priv,
 * for sf_find(). Return: the build's result.
 */
static int sf_validate(struct kunit *test, struct sframe_table *tbl)
{
	struct sframe_build b = {};
	struct sframe_rules *r;
	struct sf_funcs *funcs;
	u32 nr_blocks;
	void *mem;
	u8 shift;
	int ret;

	funcs = kunit_kzalloc(test, sizeof(*funcs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, funcs);
	test->priv = funcs;
	ret = sframe_table_rows(tbl, &b.max_rows);
	if (ret)
		return ret;
	b.hash_bits = sframe_hash_bits(b.max_rows);
	b.pc = kunit_kcalloc(test, b.max_rows, sizeof(*b.pc), GFP_KERNEL);
	b.rule = kunit_kcalloc(test, b.max_rows, sizeof(*b.rule), GFP_KERNEL);
	b.rules = kunit_kcalloc(test, b.max_rows, sizeof(*b.rules),
				GFP_KERNEL);
	b.hash = kunit_kcalloc(test, 1U << b.hash_bits, sizeof(*b.hash),
			       GFP_KERNEL);
	b.funcs = kunit_kcalloc(test, tbl->num_fdes + 1, sizeof(*b.funcs),
				GFP_KERNEL);
	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, b.pc && b.rule && b.rules && b.hash &&
			  b.funcs && r);
	ret = sframe_table_build(tbl, &b);
	if (ret)
		return ret;
	mem = kunit_kzalloc(test, sframe_rules_size(&b, &nr_blocks, &shift) + 4,
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mem);
	sframe_rules_fill(r, mem, tbl->text_end - tbl->text_start, &b,
			  nr_blocks, shift);
	funcs->rules = r;
	funcs->funcs = b.funcs;
	funcs->nr = b.nr_funcs;
	return 0;
}

/* The table sf_validate() built last, or NULL. */
static const struct sframe_rules *sf_rules(struct kunit *test)
{
	const struct sf_funcs *f = test->priv;

	return f ? f->rules : NULL;
}

/*
 * Look up @ip, an address in @tbl's text, in the table sf_validate()
 * built for @tbl, with the walk's lookup (sframe_rules_lookup()).
 * Return: 0 and the rule in @frame, or -ENOENT.
 */
static int sf_find(struct kunit *test, const struct sframe_table *tbl,
		   unsigned long ip, struct unwind_user_frame *frame)
{
	const struct sframe_rules *r = sf_rules(test);
	const struct unwind_user_frame *rule;

	if (!r || ip < tbl->text_start)
		return -ENOENT;
	rule = sframe_rules_lookup(r, ip - tbl->text_start);
	if (!rule)
		return -ENOENT;
	*frame = *rule;
	return 0;
}

/*
 * The start of the function @ip is in, by the function starts the build
 * of @tbl found (sf_validate()).
 */
static int sf_find_func(struct kunit *test, const struct sframe_table *tbl,
			unsigned long ip, unsigned long *start)
{
	const struct sf_funcs *f = test->priv;
	unsigned long off = ip - tbl->text_start;
	struct unwind_user_frame frame;
	u32 lo = 0, hi;

	if (sf_find(test, tbl, ip, &frame))
		return -ENOENT;
	hi = f->nr;
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (f->funcs[mid] <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -ENOENT;
	*start = tbl->text_start + f->funcs[lo - 1];
	return 0;
}

/* Start address of a function at @text_addr, relative to the section. */
static s32 sf_rel(const struct sframe_table *tbl, unsigned long text_addr)
{
	return (s32)(text_addr - tbl->sec_start);
}

static void sframe_test_header(struct kunit *test)
{
	struct sframe_header *h;
	struct sframe_table tbl;
	struct sf_builder *b;
	size_t len;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	sf_init(b, SFRAME_VERSION_1, SFRAME_F_FDE_SORTED, 0, 0);
	len = sf_finish(b);
	h = (struct sframe_header *)b->buf;

	KUNIT_EXPECT_EQ(test, sframe_table_init(&tbl, h, len, 0x1000, len,
						TEXT_START, TEXT_END,
						ARCH_SFRAME_ABI), 0);
	/* Shorter than a header. */
	KUNIT_EXPECT_EQ(test, sframe_table_init(&tbl, h, len, 0x1000,
						sizeof(*h) - 1, TEXT_START,
						TEXT_END, ARCH_SFRAME_ABI),
			-EINVAL);
	/* Another ABI. */
	KUNIT_EXPECT_EQ(test, sframe_table_init(&tbl, h, len, 0x1000, len,
						TEXT_START, TEXT_END,
						ARCH_SFRAME_ABI + 1), -EINVAL);

	h->preamble.magic = 0xe2de;
	KUNIT_EXPECT_EQ(test, sframe_table_init(&tbl, h, len, 0x1000, len,
						TEXT_START, TEXT_END,
						ARCH_SFRAME_ABI), -EINVAL);
	h->preamble.magic = SFRAME_MAGIC;

	h->preamble.version = SFRAME_VERSION_3 + 1;
	KUNIT_EXPECT_EQ(test, sframe_table_init(&tbl, h, len, 0x1000, len,
						TEXT_START, TEXT_END,
						ARCH_SFRAME_ABI), -EOPNOTSUPP);
	/* Version 3 needs PC-relative function starts, and no other flag. */
	h->preamble.version = SFRAME_VERSION_3;
	KUNIT_EXPECT_EQ(test, sframe_table_init(&tbl, h, len, 0x1000, len,
						TEXT_START, TEXT_END,
						ARCH_SFRAME_ABI), -EINVAL);
	h->preamble.flags = SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL;
	KUNIT_EXPECT_EQ(test, sframe_table_init(&tbl, h, len, 0x1000, len,
						TEXT_START, TEXT_END,
						ARCH_SFRAME_ABI), 0);
	h->preamble.flags |= SFRAME_F_FRAME_POINTER;
	KUNIT_EXPECT_EQ(test, sframe_table_init(&tbl, h, len, 0x1000, len,
						TEXT_START, TEXT_END,
						ARCH_SFRAME_ABI), -EINVAL);
	h->preamble.flags = SFRAME_F_FDE_SORTED;
	h->preamble.version = SFRAME_VERSION_1;

	h->preamble.flags = 0;
	KUNIT_EXPECT_EQ(test, sframe_table_init(&tbl, h, len, 0x1000, len,
						TEXT_START, TEXT_END,
						ARCH_SFRAME_ABI), -EINVAL);
	h->preamble.flags = SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL;
	KUNIT_EXPECT_EQ(test, sframe_table_init(&tbl, h, len, 0x1000, len,
						TEXT_START, TEXT_END,
						ARCH_SFRAME_ABI), -EINVAL);
	h->preamble.flags = SFRAME_F_FDE_SORTED;

	/* FDEs and FREs must fit in the section. */
	h->num_fdes = 1;
	KUNIT_EXPECT_EQ(test, sframe_table_init(&tbl, h, len, 0x1000, len,
						TEXT_START, TEXT_END,
						ARCH_SFRAME_ABI), -EINVAL);
	h->num_fdes = 0x10000000;
	KUNIT_EXPECT_EQ(test, sframe_table_init(&tbl, h, len, 0x1000, len,
						TEXT_START, TEXT_END,
						ARCH_SFRAME_ABI), -EINVAL);
	h->num_fdes = 0;
	h->fre_len = 1;
	KUNIT_EXPECT_EQ(test, sframe_table_init(&tbl, h, len, 0x1000, len,
						TEXT_START, TEXT_END,
						ARCH_SFRAME_ABI), -EINVAL);
	h->fre_len = 0;
	h->auxhdr_len = 1;
	KUNIT_EXPECT_EQ(test, sframe_table_init(&tbl, h, len, 0x1000, len,
						TEXT_START, TEXT_END,
						ARCH_SFRAME_ABI), -EINVAL);
}

/* Expect the rule found for @ip to be CFA = base + @cfa, RA, FP. */
static void expect_rule(struct kunit *test, const struct sframe_table *tbl,
			unsigned long ip, bool use_fp, s32 cfa, bool ra_saved,
			s32 ra, bool fp_saved, s32 fp)
{
	struct unwind_user_frame f;

	KUNIT_ASSERT_EQ_MSG(test, sf_find(test, tbl, ip, &f), 0, "ip %#lx", ip);
	KUNIT_EXPECT_EQ_MSG(test, f.use_fp, use_fp, "ip %#lx", ip);
	KUNIT_EXPECT_EQ_MSG(test, f.cfa_off, cfa, "ip %#lx", ip);
	KUNIT_EXPECT_EQ_MSG(test, f.ra_saved, ra_saved, "ip %#lx", ip);
	if (ra_saved)
		KUNIT_EXPECT_EQ_MSG(test, f.ra_off, ra, "ip %#lx", ip);
	KUNIT_EXPECT_EQ_MSG(test, f.fp_saved, fp_saved, "ip %#lx", ip);
	if (fp_saved)
		KUNIT_EXPECT_EQ_MSG(test, f.fp_off, fp, "ip %#lx", ip);
}

/*
 * Two functions with the amd64 layout: RA fixed at CFA-8, FP in the FRE.
 * f1 at text + 0x10, 0x20 bytes: push %rbp at 0, frame at 1 and 4.
 * f2 at text + 0x40, 0x300 bytes, 2-byte FRE addresses.
 */
static void build_two_funcs(struct sf_builder *b, const struct sframe_table *t,
			    u8 version, u8 flags)
{
	s32 o8[] = { 8 }, o16[] = { 16, -16 }, ofp[] = { 16, -16 };
	s32 big[] = { 0x1234, -16 };
	u32 f1, f2;

	sf_init(b, version, flags, -8, 0);
	f1 = sf_add_fre(b, 1, 0, fre_info(true, 1, 0, false), o8, 1, 1);
	sf_add_fre(b, 1, 1, fre_info(true, 2, 0, false), o16, 2, 1);
	sf_add_fre(b, 1, 4, fre_info(false, 2, 0, false), ofp, 2, 1);
	f2 = sf_add_fre(b, 2, 0, fre_info(true, 1, 1, false), o8, 1, 2);
	sf_add_fre(b, 2, 0x200, fre_info(true, 2, 2, false), big, 2, 4);

	sf_add_fde(b, t ? sf_rel(t, t->text_start + 0x10) : 0, 0x20, f1, 3,
		   SFRAME_FRE_TYPE_ADDR1, 0);
	sf_add_fde(b, t ? sf_rel(t, t->text_start + 0x40) : 0, 0x300, f2, 2,
		   SFRAME_FRE_TYPE_ADDR2, 0);
}

static void sframe_test_find(struct kunit *test, u8 version)
{
	struct unwind_user_frame f;
	struct sframe_table tbl;
	struct sf_builder *b;
	unsigned long start;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);

	/* Load once to learn the section address, then fill in the FDEs. */
	build_two_funcs(b, NULL, version, SFRAME_F_FDE_SORTED);
	KUNIT_ASSERT_EQ(test, sf_load(test, b, &tbl), 0);
	build_two_funcs(b, &tbl, version, SFRAME_F_FDE_SORTED);
	sf_finish(b);
	sf_copy(&tbl, b);

	KUNIT_EXPECT_EQ(test, sf_validate(test, &tbl), 0);

	KUNIT_EXPECT_EQ(test, sf_find(test, &tbl, tbl.text_start, &f), -ENOENT);
	KUNIT_EXPECT_EQ(test, sf_find(test, &tbl,
				      tbl.text_start + 0xf, &f), -ENOENT);
	expect_rule(test, &tbl, tbl.text_start + 0x10, false, 8, true, -8, false, 0);
	expect_rule(test, &tbl, tbl.text_start + 0x11, false, 16, true, -8, true, -16);
	expect_rule(test, &tbl, tbl.text_start + 0x13, false, 16, true, -8, true, -16);
	expect_rule(test, &tbl, tbl.text_start + 0x14, true, 16, true, -8, true, -16);
	expect_rule(test, &tbl, tbl.text_start + 0x2f, true, 16, true, -8, true, -16);
	/* Gap between the functions. */
	KUNIT_EXPECT_EQ(test, sf_find(test, &tbl,
				      tbl.text_start + 0x30, &f), -ENOENT);
	expect_rule(test, &tbl, tbl.text_start + 0x40, false, 8, true, -8, false, 0);
	expect_rule(test, &tbl, tbl.text_start + 0x23f, false, 8, true, -8, false, 0);
	expect_rule(test, &tbl, tbl.text_start + 0x240, false, 0x1234, true, -8,
		    true, -16);
	expect_rule(test, &tbl, tbl.text_start + 0x33f, false, 0x1234, true, -8,
		    true, -16);
	KUNIT_EXPECT_EQ(test, sf_find(test, &tbl,
				      tbl.text_start + 0x340, &f), -ENOENT);
	/* Outside the registered text. */
	KUNIT_EXPECT_EQ(test, sf_find(test, &tbl, tbl.text_end, &f), -ENOENT);

	/* The function an address belongs to. */
	KUNIT_EXPECT_EQ(test, sf_find_func(test, &tbl, tbl.text_start + 0x2f, &start), 0);
	KUNIT_EXPECT_EQ(test, start, tbl.text_start + 0x10);
	KUNIT_EXPECT_EQ(test, sf_find_func(test, &tbl, tbl.text_start + 0x33f, &start), 0);
	KUNIT_EXPECT_EQ(test, start, tbl.text_start + 0x40);
	KUNIT_EXPECT_EQ(test, sf_find_func(test, &tbl, tbl.text_start + 0x30, &start),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, sf_find_func(test, &tbl, tbl.text_end, &start), -ENOENT);
}

static void sframe_test_find_v1(struct kunit *test)
{
	sframe_test_find(test, SFRAME_VERSION_1);
}

static void sframe_test_find_v2(struct kunit *test)
{
	sframe_test_find(test, SFRAME_VERSION_2);
}

/* v2 with function starts relative to the FDE field itself. */
static void sframe_test_find_pcrel(struct kunit *test)
{
	struct sframe_table tbl;
	struct sf_builder *b;
	s32 o8[] = { 8 }, o16[] = { 16 };
	unsigned long fde;
	u32 fre;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	sf_init(b, SFRAME_VERSION_2,
		SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL, -8, 0);
	fre = sf_add_fre(b, 1, 0, fre_info(true, 1, 0, false), o8, 1, 1);
	sf_add_fre(b, 1, 1, fre_info(true, 1, 0, false), o16, 1, 1);
	sf_add_fde(b, 0, 0x10, fre, 2, SFRAME_FRE_TYPE_ADDR1, 0);
	KUNIT_ASSERT_EQ(test, sf_load(test, b, &tbl), 0);

	fde = tbl.fdes_start;
	sf_init(b, SFRAME_VERSION_2,
		SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL, -8, 0);
	fre = sf_add_fre(b, 1, 0, fre_info(true, 1, 0, false), o8, 1, 1);
	sf_add_fre(b, 1, 1, fre_info(true, 1, 0, false), o16, 1, 1);
	sf_add_fde(b, (s32)(tbl.text_start + 0x100 - fde), 0x10, fre, 2,
		   SFRAME_FRE_TYPE_ADDR1, 0);
	sf_finish(b);
	sf_copy(&tbl, b);

	KUNIT_EXPECT_EQ(test, sf_validate(test, &tbl), 0);
	expect_rule(test, &tbl, tbl.text_start + 0x100, false, 8, true, -8, false, 0);
	expect_rule(test, &tbl, tbl.text_start + 0x101, false, 16, true, -8, false, 0);
}

/* A PLT-like function: the rule repeats every rep_size bytes. */
static void sframe_test_find_pcmask(struct kunit *test)
{
	s32 o8[] = { 8 }, o16[] = { 16 };
	struct sframe_table tbl;
	struct sf_builder *b;
	unsigned long ip;
	u32 fre;
	int v;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);

	for (v = SFRAME_VERSION_1; v <= SFRAME_VERSION_2; v++) {
		sf_init(b, v, SFRAME_F_FDE_SORTED, -8, 0);
		fre = sf_add_fre(b, 1, 0, fre_info(true, 1, 0, false), o8, 1, 1);
		sf_add_fre(b, 1, 11, fre_info(true, 1, 0, false), o16, 1, 1);
		sf_add_fde(b, 0, 0x40, fre, 2,
			   SFRAME_FRE_TYPE_ADDR1 | SFRAME_FDE_TYPE_PCMASK << 4,
			   16);
		KUNIT_ASSERT_EQ(test, sf_load(test, b, &tbl), 0);
		sf_init(b, v, SFRAME_F_FDE_SORTED, -8, 0);
		fre = sf_add_fre(b, 1, 0, fre_info(true, 1, 0, false), o8, 1, 1);
		sf_add_fre(b, 1, 11, fre_info(true, 1, 0, false), o16, 1, 1);
		sf_add_fde(b, sf_rel(&tbl, tbl.text_start + 0x800), 0x40, fre, 2,
			   SFRAME_FRE_TYPE_ADDR1 | SFRAME_FDE_TYPE_PCMASK << 4,
			   16);
		sf_finish(b);
		sf_copy(&tbl, b);
		KUNIT_EXPECT_EQ(test, sf_validate(test, &tbl), 0);

		for (ip = tbl.text_start + 0x800; ip < tbl.text_start + 0x840; ip++)
			expect_rule(test, &tbl, ip, false,
				    (ip & 0xf) >= 11 ? 16 : 8, true, -8, false,
				    0);
	}
}

/* aarch64-style rows: RA and FP in the FRE, RA possibly signed. */
static void sframe_test_find_ra_fp(struct kunit *test)
{
	s32 o0[] = { 0 }, o3[] = { 32, -8, -16 }, o2[] = { 16, -8 };
	struct sframe_table tbl;
	struct sf_builder *b;
	struct unwind_user_frame f;
	u32 fre;
	int pass;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);

	for (pass = 0; pass < 2; pass++) {
		sf_init(b, SFRAME_VERSION_1, SFRAME_F_FDE_SORTED, 0, 0);
		fre = sf_add_fre(b, 4, 0, fre_info(true, 1, 0, false), o0, 1, 1);
		sf_add_fre(b, 4, 4, fre_info(true, 3, 0, true), o3, 3, 1);
		sf_add_fre(b, 4, 8, fre_info(false, 2, 1, true), o2, 2, 2);
		sf_add_fde(b, pass ? sf_rel(&tbl, tbl.text_start) : 0, 0x100, fre,
			   3, SFRAME_FRE_TYPE_ADDR4, 0);
		if (!pass) {
			KUNIT_ASSERT_EQ(test, sf_load(test, b, &tbl), 0);
			continue;
		}
		sf_finish(b);
		sf_copy(&tbl, b);
	}
	KUNIT_EXPECT_EQ(test, sf_validate(test, &tbl), 0);

	/* Only a CFA offset: RA in the link register, FP untouched. */
	expect_rule(test, &tbl, tbl.text_start, false, 0, false, 0, false, 0);
	KUNIT_ASSERT_EQ(test, sf_find(test, &tbl, tbl.text_start + 4, &f), 0);
	KUNIT_EXPECT_TRUE(test, f.ra_signed);
	expect_rule(test, &tbl, tbl.text_start + 4, false, 32, true, -8, true, -16);
	expect_rule(test, &tbl, tbl.text_start + 8, true, 16, true, -8, false, 0);
}

/* Malformed data: rejected by the validation, never a crash. */
static void sframe_test_malformed(struct kunit *test)
{
	s32 o8[] = { 8 }, o16[] = { 16 };
	struct unwind_user_frame f;
	struct sframe_table tbl;
	struct sf_builder *b;
	int c;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);

	for (c = 0; c < 8; c++) {
		u32 fre, fre2, fres_off, fres_num;
		int pass;

		for (pass = 0; pass < 2; pass++) {
			s32 s1 = pass ? sf_rel(&tbl, tbl.text_start + 0x100) : 0;
			s32 s2 = pass ? sf_rel(&tbl, tbl.text_start + 0x200) : 0;

			sf_init(b, SFRAME_VERSION_1, SFRAME_F_FDE_SORTED, -8, 0);
			fre = sf_add_fre(b, 1, 0, fre_info(true, 1, 0, false),
					 o8, 1, 1);
			/* 1: second FRE starts before the first */
			sf_add_fre(b, 1, c == 1 ? 0 : 1,
				   fre_info(true, 1, 0, false), o16, 1, 1);
			fre2 = sf_add_fre(b, 1, 0, fre_info(true, 1, 0, false),
					  o8, 1, 1);
			fres_off = fre2;
			fres_num = 1;
			/* 4: FREs past the end of the section */
			if (c == 4)
				fres_off = 0x1000;
			/* 5: more FREs than there are */
			if (c == 5)
				fres_num = 5;
			/* 7: FREs shared, more in all than the header has */
			if (c == 7) {
				fres_off = fre;
				fres_num = 2;
			}
			/* 2: unsorted functions */
			sf_add_fde(b, c == 2 ? s2 : s1, 0x10, fre, 2,
				   SFRAME_FRE_TYPE_ADDR1, 0);
			sf_add_fde(b, c == 2 ? s1 : s2,
				   /* 3: function runs past the text */
				   c == 3 ? 0x200000 : 0x10, fres_off, fres_num,
				   /* 6: an unknown FRE address size */
				   c == 6 ? 3 : SFRAME_FRE_TYPE_ADDR1, 0);
			if (!pass)
				KUNIT_ASSERT_EQ(test, sf_load(test, b, &tbl), 0);
		}
		sf_finish(b);
		sf_copy(&tbl, b);

		if (c == 0) {
			KUNIT_EXPECT_EQ(test, sf_validate(test, &tbl), 0);
			continue;
		}
		KUNIT_EXPECT_NE_MSG(test, sf_validate(test, &tbl), 0,
				    "case %d", c);
		/* Lookups on the bad section still return, with any result. */
		sf_find(test, &tbl, tbl.text_start + 0x100, &f);
		sf_find(test, &tbl, tbl.text_start + 0x201, &f);
	}
}

/* An FRE without offsets marks the outermost frame (v2 erratum). */
static void sframe_test_outermost(struct kunit *test)
{
	s32 o8[] = { 8 };
	struct unwind_user_frame f;
	struct sframe_table tbl;
	struct sf_builder *b;
	int pass;
	u32 fre;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);

	for (pass = 0; pass < 2; pass++) {
		sf_init(b, SFRAME_VERSION_2, SFRAME_F_FDE_SORTED, -8, 0);
		fre = sf_add_fre(b, 1, 0, fre_info(true, 0, 0, false), NULL, 0,
				 1);
		sf_add_fre(b, 1, 4, fre_info(true, 1, 0, false), o8, 1, 1);
		sf_add_fde(b, pass ? sf_rel(&tbl, tbl.text_start) : 0, 0x10,
			   fre, 2, SFRAME_FRE_TYPE_ADDR1, 0);
		if (!pass)
			KUNIT_ASSERT_EQ(test, sf_load(test, b, &tbl), 0);
	}
	sf_finish(b);
	sf_copy(&tbl, b);
	KUNIT_EXPECT_EQ(test, sf_validate(test, &tbl), 0);

	KUNIT_ASSERT_EQ(test, sf_find(test, &tbl, tbl.text_start + 3, &f), 0);
	KUNIT_EXPECT_TRUE(test, f.outermost);
	KUNIT_ASSERT_EQ(test, sf_find(test, &tbl, tbl.text_start + 4, &f), 0);
	KUNIT_EXPECT_FALSE(test, f.outermost);
	KUNIT_EXPECT_EQ(test, f.cfa_off, 8);
}

#define V3_FLAGS	(SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL)
#define FLEX		SFRAME_V3_FDE_TYPE_FLEX

/* A flexible row's control word: DWARF register @reg (or -1: the CFA). */
static s32 flex_ctl(int reg, bool deref)
{
	return (reg < 0 ? 0 : reg << 3 | 1) | (deref ? 2 : 0);
}

/*
 * Version 3, written the way binutils 2.46 writes it for the running ABI:
 * f1 a DEFAULT function as in build_two_funcs(), f2 a FLEX one (a
 * realigned stack: CFA loaded through FP, FP through FP; then the RA in a
 * register; then RA undefined), f3 a DEFAULT function without rows (the
 * outermost frame), f4 a PLT-like PCMASK one, f5 a signal trampoline
 * without rows.
 */
static void build_v3(struct sf_builder *b, const struct sframe_table *t)
{
	const int sp = ARCH_UNWIND_USER_DWARF_SP, fp = ARCH_UNWIND_USER_DWARF_FP;
	s32 o8[] = { 8 }, o16[] = { 16, -16 };
	s32 x0[] = { flex_ctl(sp, false), 8 };
	s32 x1[] = { flex_ctl(fp, true), -8, 0, flex_ctl(fp, true), 0 };
	s32 x2[] = { flex_ctl(fp, false), 16, flex_ctl(3, false), 0,
		     flex_ctl(-1, true), -16 };
	unsigned long text = t ? t->text_start : 0;

	sf_init(b, SFRAME_VERSION_3, V3_FLAGS, -8, 0);
	sf_add_fde3(b, t, text + 0x10, 0x20, 3, SFRAME_FRE_TYPE_ADDR1, 0, 0);
	sf_add_fre(b, 1, 0, fre_info(true, 1, 0, false), o8, 1, 1);
	sf_add_fre(b, 1, 1, fre_info(true, 2, 0, false), o16, 2, 1);
	sf_add_fre(b, 1, 4, fre_info(false, 2, 0, false), o16, 2, 1);
	sf_add_fde3(b, t, text + 0x40, 0x100, 4, SFRAME_FRE_TYPE_ADDR1, FLEX,
		    0);
	sf_add_fre(b, 1, 0, fre_info(false, 2, 0, false), x0, 2, 1);
	sf_add_fre(b, 1, 8, fre_info(false, 5, 0, false), x1, 5, 1);
	sf_add_fre(b, 1, 0x40, fre_info(false, 6, 1, false), x2, 6, 2);
	sf_add_fre(b, 1, 0x80, 0, NULL, 0, 1);
	sf_add_fde3(b, t, text + 0x140, 0x10, 0, SFRAME_FRE_TYPE_ADDR1, 0, 0);
	sf_add_fde3(b, t, text + 0x200, 0x40, 2,
		    SFRAME_FRE_TYPE_ADDR1 | SFRAME_FDE_TYPE_PCMASK << 4, 0, 16);
	sf_add_fre(b, 1, 0, fre_info(true, 1, 0, false), o8, 1, 1);
	sf_add_fre(b, 1, 11, fre_info(true, 1, 0, false), o16, 1, 1);
	sf_add_fde3(b, t, text + 0x300, 0x10, 0, SFRAME_FRE_TYPE_ADDR1 | 0x80,
		    0, 0);
}

/* Build with build(), load, and build again now that addresses are known. */
static void sf_load2(struct kunit *test, struct sf_builder *b,
		     struct sframe_table *tbl,
		     void (*build)(struct sf_builder *b,
				   const struct sframe_table *t))
{
	build(b, NULL);
	KUNIT_ASSERT_EQ(test, sf_load(test, b, tbl), 0);
	build(b, tbl);
	sf_finish(b);
	sf_copy(tbl, b);
}

static void sframe_test_v3(struct kunit *test)
{
	const struct sframe_rules *r;
	struct unwind_user_frame f;
	struct sframe_table tbl;
	struct sf_builder *b;
	unsigned long ip, start;
	unsigned int nr[2] = {};
	bool usual;
	u32 i;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	sf_load2(test, b, &tbl, build_v3);
	KUNIT_EXPECT_EQ(test, sf_validate(test, &tbl), 0);

	/* DEFAULT rows, as in version 1 and 2. */
	KUNIT_EXPECT_EQ(test, sf_find(test, &tbl,
				      tbl.text_start + 0xf, &f), -ENOENT);
	expect_rule(test, &tbl, tbl.text_start + 0x10, false, 8, true, -8, false, 0);
	expect_rule(test, &tbl, tbl.text_start + 0x11, false, 16, true, -8, true, -16);
	expect_rule(test, &tbl, tbl.text_start + 0x2f, true, 16, true, -8, true, -16);
	KUNIT_EXPECT_EQ(test, sf_find(test, &tbl,
				      tbl.text_start + 0x30, &f), -ENOENT);
	KUNIT_EXPECT_EQ(test, sf_find_func(test, &tbl, tbl.text_start + 0x2f, &start), 0);
	KUNIT_EXPECT_EQ(test, start, tbl.text_start + 0x10);

	/* FLEX: a plain rule first, RA at its fixed offset. */
	expect_rule(test, &tbl, tbl.text_start + 0x47, false, 8, true, -8, false, 0);
	KUNIT_ASSERT_EQ(test, sf_find(test, &tbl,
				      tbl.text_start + 0x47, &f), 0);
	KUNIT_EXPECT_EQ(test, f.flags, 0);
	/* CFA = *(FP - 8); RA padding; FP = *(FP + 0). */
	KUNIT_ASSERT_EQ(test, sf_find(test, &tbl,
				      tbl.text_start + 0x48, &f), 0);
	KUNIT_EXPECT_EQ(test, f.flags, UNWIND_USER_F_CFA_DEREF | UNWIND_USER_F_FP_REG);
	KUNIT_EXPECT_TRUE(test, f.use_fp);
	KUNIT_EXPECT_EQ(test, f.cfa_off, -8);
	KUNIT_EXPECT_TRUE(test, f.ra_saved);
	KUNIT_EXPECT_EQ(test, f.ra_off, -8);
	KUNIT_EXPECT_TRUE(test, f.fp_saved);
	KUNIT_EXPECT_EQ(test, f.fp_reg, ARCH_UNWIND_USER_DWARF_FP);
	KUNIT_EXPECT_EQ(test, f.fp_off, 0);
	/* CFA = FP + 16; RA = register 3 (a value, not saved); FP at CFA-16. */
	KUNIT_ASSERT_EQ(test, sf_find(test, &tbl,
				      tbl.text_start + 0xbf, &f), 0);
	KUNIT_EXPECT_EQ(test, f.flags, UNWIND_USER_F_RA_REG);
	KUNIT_EXPECT_TRUE(test, f.use_fp);
	KUNIT_EXPECT_EQ(test, f.cfa_off, 16);
	KUNIT_EXPECT_FALSE(test, f.ra_saved);
	KUNIT_EXPECT_EQ(test, f.ra_reg, 3);
	KUNIT_EXPECT_TRUE(test, f.fp_saved);
	KUNIT_EXPECT_EQ(test, f.fp_off, -16);
	/* RA undefined: the outermost frame. */
	KUNIT_ASSERT_EQ(test, sf_find(test, &tbl,
				      tbl.text_start + 0xc0, &f), 0);
	KUNIT_EXPECT_TRUE(test, f.outermost);

	/* A DEFAULT function without rows is the outermost frame. */
	KUNIT_ASSERT_EQ(test, sf_find(test, &tbl,
				      tbl.text_start + 0x145, &f), 0);
	KUNIT_EXPECT_TRUE(test, f.outermost);

	/* PCMASK: the rule repeats every rep_size bytes. */
	for (ip = tbl.text_start + 0x200; ip < tbl.text_start + 0x240; ip++)
		expect_rule(test, &tbl, ip, false, (ip & 0xf) >= 11 ? 16 : 8,
			    true, -8, false, 0);

	/* A signal trampoline: its caller is in the signal frame. */
	KUNIT_ASSERT_EQ(test, sf_find(test, &tbl,
				      tbl.text_start + 0x300, &f), 0);
	KUNIT_EXPECT_TRUE(test, f.signal);
	KUNIT_EXPECT_FALSE(test, f.outermost);

	/* Rows of the usual rule, and only they, are not marked general. */
	r = sf_rules(test);
	KUNIT_ASSERT_NOT_NULL(test, r);
	for (i = 0; i < r->nr_rows; i++) {
		u16 idx = r->rows[i].rule;
		const struct unwind_user_frame *rule;

		if (idx == SFRAME_RULE_NONE)
			continue;
		rule = &r->rules[idx & ~SFRAME_RULE_GENERAL];
		usual = rule->ra_saved && !rule->flags && !rule->outermost &&
			!rule->signal;
		KUNIT_EXPECT_EQ_MSG(test, !(idx & SFRAME_RULE_GENERAL), usual,
				    "row %u", i);
		nr[usual]++;
	}
	KUNIT_EXPECT_GT(test, nr[0], 0);
	KUNIT_EXPECT_GT(test, nr[1], 0);
}

/*
 * Malformed version 3 functions, each rejected by the validation: an
 * unknown FDE type, a reserved attribute bit, a FLEX CFA not based on a
 * register, a reserved bit in a control word, a word left over, a FLEX
 * function without rows, an attribute record past the rows.
 */
static int v3_bad_case;

static void build_v3_bad(struct sf_builder *b, const struct sframe_table *t)
{
	const int sp = ARCH_UNWIND_USER_DWARF_SP;
	s32 ok[] = { flex_ctl(sp, false), 16, flex_ctl(-1, true), -8 };
	s32 cfa_not_reg[] = { flex_ctl(-1, false), 16 };
	s32 reserved[] = { flex_ctl(sp, false) | 4, 16 };
	s32 leftover[] = { flex_ctl(sp, false), 16, flex_ctl(-1, true), -8, 0,
			   0, 0 };
	unsigned long text = t ? t->text_start : 0;
	u8 info2 = FLEX;
	const s32 *w = ok;
	unsigned int n = 4;
	u16 nr = 1;

	switch (v3_bad_case) {
	case 1:
		info2 = 2;
		break;
	case 2:
		info2 = FLEX | 0x20;
		break;
	case 3:
		w = cfa_not_reg;
		n = 2;
		break;
	case 4:
		w = reserved;
		n = 2;
		break;
	case 5:
		w = leftover;
		n = 7;
		break;
	case 6:
		nr = 0;
		break;
	}
	sf_init(b, SFRAME_VERSION_3, V3_FLAGS, -8, 0);
	sf_add_fde3(b, t, text + 0x10, 0x20, nr, SFRAME_FRE_TYPE_ADDR1, info2,
		    0);
	if (nr)
		sf_add_fre(b, 1, 0, fre_info(false, n, 0, false), w, n, 1);
	if (v3_bad_case == 7)
		memcpy(b->fdes + 12, &b->fre_len, sizeof(u32));
}

static void sframe_test_v3_malformed(struct kunit *test)
{
	struct unwind_user_frame f;
	struct sframe_table tbl;
	struct sf_builder *b;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	for (v3_bad_case = 0; v3_bad_case <= 7; v3_bad_case++) {
		sf_load2(test, b, &tbl, build_v3_bad);
		if (!v3_bad_case) {
			KUNIT_EXPECT_EQ(test, sf_validate(test, &tbl), 0);
			KUNIT_EXPECT_EQ(test, sf_find(test, &tbl,
						      tbl.text_start + 0x10,
						      &f), 0);
			continue;
		}
		KUNIT_EXPECT_NE_MSG(test, sf_validate(test, &tbl), 0,
				    "case %d", v3_bad_case);
		/* Lookups still return, with any result. */
		sf_find(test, &tbl, tbl.text_start + 0x10, &f);
	}
}

static bool rows_overlap;

/*
 * f0 at 0x100, three rows; a gap; f1 at 0x180, its first row at 8, the
 * second with a frame pointer slot too far for a row of the row table;
 * f2 at 0x200, PCMASK. Version 2, no fixed offsets.
 */
static void build_rows(struct sf_builder *b, const struct sframe_table *t)
{
	s32 o8[] = { 8, -8 }, o16[] = { 16, -8 }, ofp[] = { 16, -8, -16 };
	s32 far[] = { 32, -8, 0x10000 };
	unsigned long text = t ? t->text_start : 0;
	u32 f1, f2;

	sf_init(b, SFRAME_VERSION_2, SFRAME_F_FDE_SORTED, 0, 0);
	sf_add_fre(b, 1, 0, fre_info(true, 2, 0, false), o8, 2, 1);
	sf_add_fre(b, 1, 4, fre_info(true, 2, 0, false), o16, 2, 1);
	sf_add_fre(b, 1, 0x20, fre_info(false, 3, 0, false), ofp, 3, 1);
	f1 = sf_add_fre(b, 1, 8, fre_info(true, 2, 0, false), o8, 2, 1);
	sf_add_fre(b, 1, 0x10, fre_info(true, 3, 2, false), far, 3, 4);
	f2 = sf_add_fre(b, 1, 0, fre_info(true, 2, 0, false), o8, 2, 1);
	sf_add_fre(b, 1, 6, fre_info(true, 2, 0, false), o16, 2, 1);
	sf_add_fde(b, t ? sf_rel(t, text + 0x100) : 0, 0x40, 0, 3,
		   SFRAME_FRE_TYPE_ADDR1, 0);
	sf_add_fde(b, t ? sf_rel(t, text + (rows_overlap ? 0x120 : 0x180)) : 0,
		   0x40, f1, 2, SFRAME_FRE_TYPE_ADDR1, 0);
	sf_add_fde(b, t ? sf_rel(t, text + 0x200) : 0, 0x40, f2, 2,
		   SFRAME_FRE_TYPE_ADDR1 | SFRAME_FDE_TYPE_PCMASK << 4, 16);
}

/*
 * The table of build_rows(): the rows of every function, a row without
 * function over each gap and behind the last function, a PCMASK
 * function's rows repeated over the function, rows merged where the rule
 * goes on, each distinct rule once (the far FP offset is one too), the
 * function starts, and the block index. Overlapping functions are
 * rejected: a table cannot describe them.
 */
static void sframe_test_rows(struct kunit *test)
{
	static const u32 pcs[] = { 0, 0x100, 0x104, 0x120, 0x140, 0x188,
				   0x190, 0x1c0, 0x200, 0x206, 0x210, 0x216,
				   0x220, 0x226, 0x230, 0x236, 0x240 };
	static const u32 funcs[] = { 0x100, 0x180, 0x200 };
	const struct sf_funcs *fs;
	const struct sframe_rules *r;
	struct unwind_user_frame f;
	struct sframe_table tbl;
	struct sf_builder *b;
	unsigned long ip, start;
	u32 i, j;
	u16 idx;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	rows_overlap = false;
	sf_load2(test, b, &tbl, build_rows);
	KUNIT_ASSERT_EQ(test, sf_validate(test, &tbl), 0);
	r = sf_rules(test);
	KUNIT_ASSERT_EQ(test, r->nr_rows, ARRAY_SIZE(pcs));
	KUNIT_EXPECT_EQ(test, r->nr_rules, 4);
	/* Each row's start less one, in its 64 KiB window, and the end. */
	for (i = 0; i < r->nr_rows; i++)
		KUNIT_EXPECT_EQ_MSG(test, r->rows[i].pc, (u16)(pcs[i] - 1),
				    "row %u", i);
	KUNIT_EXPECT_EQ(test, r->rows[r->nr_rows].pc, 0xffff);
	/* Rows without function at 0 (the text start), 0x140, 0x1c0, 0x240. */
	KUNIT_EXPECT_EQ(test, r->rows[0].rule, SFRAME_RULE_NONE);
	KUNIT_EXPECT_EQ(test, r->rows[4].rule, SFRAME_RULE_NONE);
	KUNIT_EXPECT_EQ(test, r->rows[7].rule, SFRAME_RULE_NONE);
	KUNIT_EXPECT_EQ(test, r->rows[16].rule, SFRAME_RULE_NONE);
	/* Each repetition of the PCMASK function has the same two rules. */
	for (i = 10; i < 16; i++)
		KUNIT_EXPECT_EQ_MSG(test, r->rows[i].rule, r->rows[i - 2].rule,
				    "row %u", i);
	fs = test->priv;
	KUNIT_ASSERT_EQ(test, fs->nr, ARRAY_SIZE(funcs));
	for (i = 0; i < fs->nr; i++)
		KUNIT_EXPECT_EQ(test, fs->funcs[i], funcs[i]);

	/*
	 * Blocks of 128 bytes, fewer than half the rows: entry b counts the
	 * rows at or below b * 128.
	 */
	KUNIT_ASSERT_EQ(test, r->block_shift, 7);
	KUNIT_ASSERT_EQ(test, r->nr_blocks, 0x240 / 128 + 1);
	for (i = 0; i < r->nr_blocks; i++) {
		for (j = 0; j < r->nr_rows && pcs[j] <= i << r->block_shift; j++)
			;
		KUNIT_EXPECT_EQ_MSG(test, r->blocks[i] & ~SFRAME_BLOCK_SEARCH,
				    j, "block %u", i);
	}
	/* Blocks of more than SFRAME_ROW_SCAN rows are searched. */
	for (i = 0; i < r->nr_blocks; i++) {
		j = (r->blocks[i + 1] & ~SFRAME_BLOCK_SEARCH) -
		    (r->blocks[i] & ~SFRAME_BLOCK_SEARCH);
		KUNIT_EXPECT_EQ_MSG(test, !!(r->blocks[i] & SFRAME_BLOCK_SEARCH),
				    j > SFRAME_ROW_SCAN, "block %u", i);
	}

	/* No lookup reads past the last block. */
	KUNIT_EXPECT_LE(test, r->text_size, r->nr_blocks << r->block_shift);

	/* Every address: the rule of the last row at or below it. */
	for (ip = tbl.text_start; ip < tbl.text_start + 0x280; ip++) {
		u32 off = ip - tbl.text_start;
		int want = -ENOENT;

		for (j = 0; j < ARRAY_SIZE(pcs) && pcs[j] <= off; j++)
			;
		if (j && r->rows[j - 1].rule != SFRAME_RULE_NONE)
			want = 0;
		KUNIT_ASSERT_EQ_MSG(test, sf_find(test, &tbl, ip, &f), want,
				    "ip %#lx", ip);
		if (want)
			continue;
		idx = r->rows[j - 1].rule & ~SFRAME_RULE_GENERAL;
		KUNIT_EXPECT_EQ_MSG(test, memcmp(&f, &r->rules[idx], sizeof(f)),
				    0, "ip %#lx", ip);
	}
	expect_rule(test, &tbl, tbl.text_start + 0x190, false, 32, true, -8,
		    true, 0x10000);
	expect_rule(test, &tbl, tbl.text_start + 0x21f, false, 16, true, -8,
		    false, 0);
	KUNIT_EXPECT_EQ(test, sf_find_func(test, &tbl, tbl.text_start + 0x1bf,
					   &start), 0);
	KUNIT_EXPECT_EQ(test, start, tbl.text_start + 0x180);
	KUNIT_EXPECT_EQ(test, sf_find_func(test, &tbl, tbl.text_start + 0x1c0,
					   &start), -ENOENT);

	/* f1 inside f0. */
	rows_overlap = true;
	sf_load2(test, b, &tbl, build_rows);
	KUNIT_EXPECT_EQ(test, sf_validate(test, &tbl), -EINVAL);
}

/*
 * A table of rows up to twelve 64 KiB windows apart: each window below
 * the last row starts with a row, which goes on with the rule of the row
 * before it, and every offset has the rule of the last row at or below
 * it, by a scan or a search of its block, whatever window that row is in.
 * The block index would be longer than half the rows with blocks of a
 * window, and its blocks still are no larger.
 */
static void sframe_test_windows(struct kunit *test)
{
	static const u32 pcs[] = { 0x10, 0xfff0, 0x10000, 0x10008, 0x10010,
				   0x10018, 0x10020, 0x10028, 0x2fff0,
				   0xf0004, 0xf0010 };
	static const u16 rules[] = { 0, 1, 0, 1, 0, 1, 0, 1, 0, 1,
				     SFRAME_RULE_NONE };
	/* The text start, and the starts of the windows 0x20000 to 0xf0000. */
	const u32 nr_rows = ARRAY_SIZE(pcs) + 15;
	struct unwind_user_frame frames[2] = {
		{ .cfa_off = 8, .ra_off = -8, .ra_saved = true },
		{ .cfa_off = 16, .ra_off = -8, .ra_saved = true },
	};
	struct sframe_build b = {
		.pc		= (u32 *)pcs,
		.rule		= (u16 *)rules,
		.nr_rows	= ARRAY_SIZE(pcs),
		.rules		= frames,
		.nr_rules	= ARRAY_SIZE(frames),
	};
	const struct unwind_user_frame *want, *got;
	struct sframe_rules *r;
	u32 nr_blocks, off, j = 0;
	void *mem;
	u8 shift;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	mem = kunit_kzalloc(test, sframe_rules_size(&b, &nr_blocks, &shift),
			    GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, r && mem);
	sframe_rules_fill(r, mem, 0x100000, &b, nr_blocks, shift);
	KUNIT_ASSERT_EQ(test, r->nr_rows, nr_rows);
	KUNIT_EXPECT_EQ(test, r->rows[nr_rows].pc, 0xffff);
	/* No block crosses a window: blocks of 64 KiB, at most. */
	KUNIT_EXPECT_EQ(test, r->block_shift, SFRAME_WINDOW_SHIFT);
	KUNIT_EXPECT_EQ(test, r->text_size, 0x100000);
	KUNIT_EXPECT_TRUE(test, r->blocks[1] & SFRAME_BLOCK_SEARCH);

	for (off = 0; off < r->text_size; off++) {
		while (j < ARRAY_SIZE(pcs) && pcs[j] <= off)
			j++;
		want = j && rules[j - 1] != SFRAME_RULE_NONE ?
		       &r->rules[rules[j - 1]] : NULL;
		got = sframe_rules_lookup(r, off);
		if (got != want)
			KUNIT_FAIL(test, "offset %#x: rule %td, want %td", off,
				   got ? got - r->rules : -1,
				   want ? want - r->rules : -1);
	}
}

/*
 * A walk's state is set field by field, not zeroed: every field a walk
 * reads before it writes it is set, whatever the state held before (a
 * kernel thread's walk is refused after that).
 */
static void sframe_test_walk_start(struct kunit *test)
{
	struct unwind_user_state state;

	memset(&state, 0xa5, sizeof(state));
	KUNIT_EXPECT_EQ(test, unwind_user_start_regs(&state, NULL), -EINVAL);
	KUNIT_EXPECT_TRUE(test, state.done);
	KUNIT_EXPECT_EQ(test, state.current_type, UNWIND_USER_TYPE_NONE);
	KUNIT_EXPECT_EQ(test, state.available_types, 0U);
	KUNIT_EXPECT_FALSE(test, state.topmost);
	KUNIT_EXPECT_FALSE(test, state.nofault);
	KUNIT_EXPECT_FALSE(test, state.signal);
	KUNIT_EXPECT_FALSE(test, state.sp_low);
	KUNIT_EXPECT_EQ(test, state.depth, 0U);
	KUNIT_EXPECT_EQ(test, state.lr, 0UL);
	KUNIT_EXPECT_PTR_EQ(test, state.uret, NULL);
	/* No section yet: the first lookup finds one. */
	KUNIT_EXPECT_PTR_EQ(test, state.hint.rules, NULL);
	KUNIT_EXPECT_EQ(test, state.hint.size, 0UL);
}

static struct kunit_case sframe_test_cases[] = {
	KUNIT_CASE(sframe_test_header),
	KUNIT_CASE(sframe_test_find_v1),
	KUNIT_CASE(sframe_test_find_v2),
	KUNIT_CASE(sframe_test_find_pcrel),
	KUNIT_CASE(sframe_test_find_pcmask),
	KUNIT_CASE(sframe_test_find_ra_fp),
	KUNIT_CASE(sframe_test_malformed),
	KUNIT_CASE(sframe_test_outermost),
	KUNIT_CASE(sframe_test_v3),
	KUNIT_CASE(sframe_test_v3_malformed),
	KUNIT_CASE(sframe_test_rows),
	KUNIT_CASE(sframe_test_windows),
	KUNIT_CASE(sframe_test_walk_start),
	{}
};

static struct kunit_suite sframe_test_suite = {
	.name = "sframe",
	.test_cases = sframe_test_cases,
};

kunit_test_suite(sframe_test_suite);

MODULE_DESCRIPTION("KUnit tests for the SFrame decoder");
MODULE_LICENSE("GPL");
