// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the SFrame decoder.
 *
 * Each test builds a section in kernel memory, copies it into a user
 * mapping of the test's own address space and runs the decoder on it, the
 * same way it runs on a task's .sframe section.
 */
#include <kunit/test.h>
#include <linux/mman.h>
#include <linux/sframe.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/unwind_user_types.h>

#include <asm/unwind_user.h>

#include "sframe.h"

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
	return b->version == SFRAME_VERSION_1 ? sizeof(struct sframe_fde_v1) :
						sizeof(struct sframe_fde_v2);
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

/* Copy @len bytes of @data to a fresh user mapping; return its address. */
static unsigned long sf_to_user(struct kunit *test, const void *data,
				size_t len)
{
	unsigned long uaddr;

	uaddr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			      MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, uaddr, 0, "no user mapping");
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)uaddr, data, len), 0);
	return uaddr;
}

/*
 * Build, copy to user memory and set up a table. Its text is the TEXT_SIZE
 * bytes below the section, so that 32-bit function offsets reach it; only
 * the section is ever read.
 */
static int sf_load(struct kunit *test, struct sf_builder *b,
		   struct sframe_table *tbl)
{
	size_t len = sf_finish(b);
	unsigned long uaddr = sf_to_user(test, b->buf, len);

	return sframe_table_init(tbl, b->buf, len, uaddr, len,
				 uaddr - TEXT_SIZE, uaddr, ARCH_SFRAME_ABI);
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

	h->preamble.version = 3;
	KUNIT_EXPECT_EQ(test, sframe_table_init(&tbl, h, len, 0x1000, len,
						TEXT_START, TEXT_END,
						ARCH_SFRAME_ABI), -EOPNOTSUPP);
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

	KUNIT_ASSERT_EQ_MSG(test, sframe_find(tbl, ip, &f), 0, "ip %#lx", ip);
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
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)tbl.sec_start, b->buf,
					   tbl.sec_end - tbl.sec_start), 0);

	KUNIT_EXPECT_EQ(test, sframe_table_validate(&tbl), 0);

	KUNIT_EXPECT_EQ(test, sframe_find(&tbl, tbl.text_start, &f), -ENOENT);
	KUNIT_EXPECT_EQ(test, sframe_find(&tbl, tbl.text_start + 0xf, &f), -ENOENT);
	expect_rule(test, &tbl, tbl.text_start + 0x10, false, 8, true, -8, false, 0);
	expect_rule(test, &tbl, tbl.text_start + 0x11, false, 16, true, -8, true, -16);
	expect_rule(test, &tbl, tbl.text_start + 0x13, false, 16, true, -8, true, -16);
	expect_rule(test, &tbl, tbl.text_start + 0x14, true, 16, true, -8, true, -16);
	expect_rule(test, &tbl, tbl.text_start + 0x2f, true, 16, true, -8, true, -16);
	/* Gap between the functions. */
	KUNIT_EXPECT_EQ(test, sframe_find(&tbl, tbl.text_start + 0x30, &f), -ENOENT);
	expect_rule(test, &tbl, tbl.text_start + 0x40, false, 8, true, -8, false, 0);
	expect_rule(test, &tbl, tbl.text_start + 0x23f, false, 8, true, -8, false, 0);
	expect_rule(test, &tbl, tbl.text_start + 0x240, false, 0x1234, true, -8,
		    true, -16);
	expect_rule(test, &tbl, tbl.text_start + 0x33f, false, 0x1234, true, -8,
		    true, -16);
	KUNIT_EXPECT_EQ(test, sframe_find(&tbl, tbl.text_start + 0x340, &f), -ENOENT);
	/* Outside the registered text. */
	KUNIT_EXPECT_EQ(test, sframe_find(&tbl, tbl.text_end, &f), -ENOENT);

	/* The function an address belongs to. */
	KUNIT_EXPECT_EQ(test, sframe_find_func(&tbl, tbl.text_start + 0x2f, &start), 0);
	KUNIT_EXPECT_EQ(test, start, tbl.text_start + 0x10);
	KUNIT_EXPECT_EQ(test, sframe_find_func(&tbl, tbl.text_start + 0x33f, &start), 0);
	KUNIT_EXPECT_EQ(test, start, tbl.text_start + 0x40);
	KUNIT_EXPECT_EQ(test, sframe_find_func(&tbl, tbl.text_start + 0x30, &start),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, sframe_find_func(&tbl, tbl.text_end, &start), -ENOENT);
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
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)tbl.sec_start, b->buf,
					   tbl.sec_end - tbl.sec_start), 0);

	KUNIT_EXPECT_EQ(test, sframe_table_validate(&tbl), 0);
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
		KUNIT_ASSERT_EQ(test,
				copy_to_user((void __user *)tbl.sec_start,
					     b->buf,
					     tbl.sec_end - tbl.sec_start), 0);
		KUNIT_EXPECT_EQ(test, sframe_table_validate(&tbl), 0);

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
		KUNIT_ASSERT_EQ(test,
				copy_to_user((void __user *)tbl.sec_start,
					     b->buf,
					     tbl.sec_end - tbl.sec_start), 0);
	}
	KUNIT_EXPECT_EQ(test, sframe_table_validate(&tbl), 0);

	/* Only a CFA offset: RA in the link register, FP untouched. */
	expect_rule(test, &tbl, tbl.text_start, false, 0, false, 0, false, 0);
	KUNIT_ASSERT_EQ(test, sframe_find(&tbl, tbl.text_start + 4, &f), 0);
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
		KUNIT_ASSERT_EQ(test,
				copy_to_user((void __user *)tbl.sec_start,
					     b->buf,
					     tbl.sec_end - tbl.sec_start), 0);

		if (c == 0) {
			KUNIT_EXPECT_EQ(test, sframe_table_validate(&tbl), 0);
			continue;
		}
		KUNIT_EXPECT_NE_MSG(test, sframe_table_validate(&tbl), 0,
				    "case %d", c);
		/* Lookups on the bad section still return, with any result. */
		sframe_find(&tbl, tbl.text_start + 0x100, &f);
		sframe_find(&tbl, tbl.text_start + 0x201, &f);
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
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)tbl.sec_start, b->buf,
					   tbl.sec_end - tbl.sec_start), 0);
	KUNIT_EXPECT_EQ(test, sframe_table_validate(&tbl), 0);

	KUNIT_ASSERT_EQ(test, sframe_find(&tbl, tbl.text_start + 3, &f), 0);
	KUNIT_EXPECT_TRUE(test, f.outermost);
	KUNIT_ASSERT_EQ(test, sframe_find(&tbl, tbl.text_start + 4, &f), 0);
	KUNIT_EXPECT_FALSE(test, f.outermost);
	KUNIT_EXPECT_EQ(test, f.cfa_off, 8);
}

/* A section whose user pages are gone: lookups fail with -EFAULT. */
static void sframe_test_unmapped(struct kunit *test)
{
	struct unwind_user_frame f;
	struct sframe_table tbl;
	struct sf_builder *b;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	build_two_funcs(b, NULL, SFRAME_VERSION_1, SFRAME_F_FDE_SORTED);
	KUNIT_ASSERT_EQ(test, sf_load(test, b, &tbl), 0);
	KUNIT_ASSERT_EQ(test, vm_munmap(tbl.sec_start, PAGE_SIZE), 0);

	KUNIT_EXPECT_EQ(test, sframe_find(&tbl, tbl.text_start + 0x10, &f),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, sframe_table_validate(&tbl), -EFAULT);
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
	KUNIT_CASE(sframe_test_unmapped),
	{}
};

static struct kunit_suite sframe_test_suite = {
	.name = "sframe",
	.test_cases = sframe_test_cases,
};

kunit_test_suite(sframe_test_suite);

MODULE_DESCRIPTION("KUnit tests for the SFrame decoder");
MODULE_LICENSE("GPL");
