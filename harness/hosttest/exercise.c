// SPDX-License-Identifier: GPL-2.0
/* Invariants of the decoder on arbitrary input; see exercise.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/unwind_user_types.h>

#include "exercise.h"
#include "shim/hostshim.h"
#include "sframe_table.h"

#define MAX_PCS		4096

struct exercise_stats exercise_stats;
unsigned int exercise_max_pcs = MAX_PCS;
#define MAX_MODEL_FDES	100000

static uint32_t rd32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The parts of the header both helpers below need, loosely checked. */
struct rawhdr {
	unsigned int version, flags, fde_size;
	int8_t fixed_fp, fixed_ra;
	uint64_t hdr_size, num_fdes, num_fres, fre_len, fdeoff, freoff;
};

static bool raw_header(const uint8_t *d, size_t size, struct rawhdr *h)
{
	if (size < 28 || d[0] != 0xe2 || d[1] != 0xde)
		return false;
	h->version = d[2];
	h->flags = d[3];
	h->fde_size = h->version == 1 ? 17 : h->version == 3 ? 16 : 20;
	h->fixed_fp = (int8_t)d[5];
	h->fixed_ra = (int8_t)d[6];
	h->hdr_size = 28 + d[7];
	h->num_fdes = rd32(d + 8);
	h->num_fres = rd32(d + 12);
	h->fre_len = rd32(d + 16);
	h->fdeoff = rd32(d + 20);
	h->freoff = rd32(d + 24);
	return true;
}

/* Offset of FDE @i in the section, or 0 if it is not inside. */
static uint64_t raw_fde_at(const struct rawhdr *h, size_t size, uint64_t i)
{
	uint64_t at = h->hdr_size + h->fdeoff + i * h->fde_size;

	if (at + h->fde_size > size)
		return 0;
	return at;
}

static uint64_t raw_fde_start(const uint8_t *d, const struct rawhdr *h,
			      uint64_t sec, uint64_t at)
{
	int32_t rel = (int32_t)rd32(d + at);
	uint64_t base = (h->flags & 0x4) && h->version == 2 ? sec + at : sec;

	/* v3: a 64-bit start, relative to the field (PCREL is required) */
	if (h->version == 3)
		return sec + at + (rd32(d + at) | (uint64_t)rd32(d + at + 4) << 32);
	return base + (int64_t)rel;
}

/*
 * What a descriptor says about its rows: in v1/v2 in the FDE, in v3 in the
 * attribute record its index entry points at (0 if that is not inside).
 * *@fre is the section offset of the first row.
 */
static bool raw_fde_rows(const uint8_t *d, size_t size,
			 const struct rawhdr *h, uint64_t at, uint64_t *fre,
			 uint32_t *num, uint8_t *info, uint8_t *info2,
			 uint8_t *rep)
{
	uint64_t attr;

	if (h->version != 3) {
		*fre = h->hdr_size + h->freoff + rd32(d + at + 8);
		*num = rd32(d + at + 12);
		*info = d[at + 16];
		*info2 = 0;
		*rep = h->version == 1 ? 16 : d[at + 17];
		return true;
	}
	attr = h->hdr_size + h->freoff + rd32(d + at + 12);
	if (attr + 5 > size)
		return false;
	*fre = attr + 5;
	*num = d[attr] | d[attr + 1] << 8;
	*info = d[attr + 2];
	*info2 = d[attr + 3];
	*rep = d[attr + 4];
	return true;
}

static uint32_t raw_fde_size(const uint8_t *d, const struct rawhdr *h,
			     uint64_t at)
{
	return rd32(d + at + (h->version == 3 ? 8 : 4));
}

static unsigned int raw_addr_size(uint8_t info)
{
	switch (info & 0xf) {
	case 0: return 1;
	case 1: return 2;
	case 2: return 4;
	}
	return 0;
}

size_t derive_pcs(const uint8_t *d, size_t size, uint64_t sec,
		  uint64_t *pcs, size_t max)
{
	struct rawhdr h;
	size_t n = 0;
	uint64_t i;

#define ADD(v) do { if (n < max) pcs[n++] = (v); } while (0)
	if (!raw_header(d, size, &h))
		return 0;
	for (i = 0; i < h.num_fdes && n < max; i++) {
		uint64_t at = raw_fde_at(&h, size, i), start, fre = 0;
		uint8_t info = 0xf, info2, rep;
		uint32_t fsize, num = 0, j;
		unsigned int as;

		if (!at)
			break;
		start = raw_fde_start(d, &h, sec, at);
		fsize = raw_fde_size(d, &h, at);
		raw_fde_rows(d, size, &h, at, &fre, &num, &info, &info2, &rep);
		as = raw_addr_size(info);
		ADD(start - 1);
		ADD(start);
		ADD(start + 1);
		ADD(start + fsize / 2);
		ADD(start + fsize - 1);
		ADD(start + fsize);
		/* FRE starts, as far as they can be parsed. */
		for (j = 0; as && j < num && j < 64 && n < max; j++) {
			uint32_t s = 0;
			unsigned int k, cnt, osz;

			if (fre + as + 1 > size)
				break;
			for (k = 0; k < as; k++)
				s |= (uint32_t)d[fre + k] << (8 * k);
			ADD(start + s);
			ADD(start + s - 1);
			cnt = (d[fre + as] >> 1) & 0xf;
			osz = 1u << ((d[fre + as] >> 5) & 3);
			fre += as + 1 + cnt * osz;
		}
	}
#undef ADD
	return n;
}

/*
 * The reference model, for sections the decoder validated: the spec's
 * lookup, written as plainly as possible over the raw bytes.
 */
static int model_find(const uint8_t *d, size_t size, uint64_t sec,
		      uint64_t tlo, uint64_t thi, uint64_t pc,
		      struct unwind_user_frame *f)
{
	struct rawhdr h;
	uint64_t i, best_at = 0, best_start = 0, fre, pc_off;
	uint32_t fsize, num, j;
	int32_t off[15];
	bool found = false;
	uint8_t info, info2, rep, finfo = 0;
	unsigned int as, cnt = 0, k, idx = 1;

	memset(f, 0, sizeof(*f));
	if (pc < tlo || pc >= thi || !raw_header(d, size, &h))
		return -ENOENT;
	if (h.num_fdes > MAX_MODEL_FDES)
		return -E2BIG;		/* not checked */
	for (i = 0; i < h.num_fdes; i++) {
		uint64_t at = raw_fde_at(&h, size, i), start;

		if (!at)
			return -EINVAL;
		start = raw_fde_start(d, &h, sec, at);
		if (start <= pc) {
			best_at = at;
			best_start = start;
		}
	}
	if (!best_at)
		return -ENOENT;
	fsize = raw_fde_size(d, &h, best_at);
	if (pc - best_start >= fsize)
		return -ENOENT;
	if (!raw_fde_rows(d, size, &h, best_at, &fre, &num, &info, &info2,
			  &rep))
		return -EINVAL;
	/* v3 FLEX rows: checked against readelf 2.46 (v3_test), not here */
	if (info2)
		return -E2BIG;
	/* v3: a signal trampoline, whatever its rows; no rows: outermost */
	if (h.version == 3 && ((info & 0x80) || !num)) {
		f->signal = info & 0x80;
		f->outermost = !f->signal;
		return 0;
	}
	pc_off = pc - best_start;
	if ((info >> 4) & 1) {
		if (!rep)
			return -EINVAL;
		pc_off %= rep;
	}
	as = raw_addr_size(info);
	if (!as)
		return -EINVAL;
	for (j = 0; j < num; j++) {
		uint32_t s = 0;
		uint8_t fi;
		unsigned int n, osz;

		if (fre + as + 1 > size)
			return -EINVAL;
		for (k = 0; k < as; k++)
			s |= (uint32_t)d[fre + k] << (8 * k);
		fi = d[fre + as];
		n = (fi >> 1) & 0xf;
		osz = 1u << ((fi >> 5) & 3);
		if (fre + as + 1 + n * osz > size)
			return -EINVAL;
		if (s <= pc_off) {
			found = true;
			finfo = fi;
			cnt = n;
			for (k = 0; k < n; k++) {
				const uint8_t *p = d + fre + as + 1 + k * osz;

				off[k] = osz == 1 ? (int8_t)p[0] :
					 osz == 2 ? (int16_t)(p[0] | p[1] << 8) :
					 (int32_t)rd32(p);
			}
		}
		fre += as + 1 + n * osz;
	}
	if (!found)
		return -ENOENT;
	/*
	 * No offset at all: the outermost frame (SFrame v2 erratum). The
	 * rest of the frame stays 0, whatever the other bits of the info
	 * byte say.
	 */
	if (!cnt) {
		f->outermost = true;
		return 0;
	}
	f->cfa_off = off[0];
	f->use_fp = !(finfo & 1);
	f->ra_signed = finfo >> 7;
	if (h.fixed_ra) {
		f->ra_saved = true;
		f->ra_off = h.fixed_ra;
	} else if (cnt > idx) {
		f->ra_saved = true;
		f->ra_off = off[idx++];
	}
	if (h.fixed_fp) {
		f->fp_saved = true;
		f->fp_off = h.fixed_fp;
	} else if (cnt > idx) {
		f->fp_saved = true;
		f->fp_off = off[idx];
	}
	return 0;
}

static bool frame_eq(const struct unwind_user_frame *a,
		     const struct unwind_user_frame *b)
{
	return a->cfa_off == b->cfa_off && a->ra_off == b->ra_off &&
	       a->fp_off == b->fp_off && a->use_fp == b->use_fp &&
	       a->ra_saved == b->ra_saved && a->fp_saved == b->fp_saved &&
	       a->ra_signed == b->ra_signed && a->outermost == b->outermost &&
	       a->signal == b->signal &&
	       a->flags == b->flags && a->cfa_reg == b->cfa_reg &&
	       a->ra_reg == b->ra_reg && a->fp_reg == b->fp_reg;
}

static void __attribute__((format(printf, 1, 2))) fail(const char *fmt, ...)
{
	va_list ap;

	exercise_stats.failures++;
	fprintf(stderr, "exercise: INVARIANT: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
}

/*
 * The header's num_fres, from the raw bytes of a section init accepted: at
 * most fre_len / 2 (init); at least the rows of all FDEs together if
 * validate accepted; and it bounds the validation's work: the header, each
 * FDE and at most num_fres rows, one read each.
 */
static void check_num_fres(const uint8_t *d, size_t size, int vrc,
			   unsigned long reads)
{
	struct rawhdr h;
	uint64_t i, sum = 0, per_row;

	if (!raw_header(d, size, &h))
		return;
	/* v3: an attribute record per FDE, and FLEX data words, read too */
	per_row = h.version == 3 ? 2 : 1;
	if (h.num_fres > h.fre_len / 2)
		fail("sframe_table_init() accepted num_fres %llu > fre_len %llu / 2",
		     (unsigned long long)h.num_fres,
		     (unsigned long long)h.fre_len);
	if (reads > 1 + per_row * (h.num_fdes + h.num_fres))
		fail("sframe_table_validate() = %d after %lu reads, more than 1 + %llu * (num_fdes %llu + num_fres %llu)",
		     vrc, reads, (unsigned long long)per_row,
		     (unsigned long long)h.num_fdes,
		     (unsigned long long)h.num_fres);
	if (vrc)
		return;
	for (i = 0; i < h.num_fdes; i++) {
		uint64_t at = raw_fde_at(&h, size, i), fre;
		uint8_t info, info2, rep;
		uint32_t num;

		if (!at || !raw_fde_rows(d, size, &h, at, &fre, &num, &info,
					 &info2, &rep)) {
			fail("sframe_table_validate() accepted FDE %llu outside the section",
			     (unsigned long long)i);
			return;
		}
		sum += num;
	}
	if (sum > h.num_fres)
		fail("sframe_table_validate() accepted FDEs with %llu rows, header num_fres %llu",
		     (unsigned long long)sum, (unsigned long long)h.num_fres);
}

/*
 * Look @ip up in the table @r built for @t, with the walk's lookup
 * (sframe_rules_lookup()), copying the rule to @f. Return: 0 or -ENOENT.
 */
static int find(const struct sframe_table *t, const struct sframe_rules *r,
		unsigned long ip, struct unwind_user_frame *f)
{
	const struct unwind_user_frame *rule = NULL;
	int ret = -ENOENT;

	/* A pattern, so a field a successful lookup leaves alone shows. */
	memset(f, 0x5a, sizeof(*f));
	/* The table alone: a read of the section would be a violation. */
	hostshim_allow_none();
	hostshim_set_atomic(true);
	if (ip >= t->text_start)
		rule = sframe_rules_lookup(r, ip - t->text_start);
	if (rule) {
		*f = *rule;
		ret = 0;
	}
	hostshim_set_atomic(false);
	exercise_stats.lookups++;
	return ret;
}

/*
 * Build the table of the validated section @t, as the kernel does, into
 * *@mem (freed by the caller) and @r.
 */
static int build(struct sframe_table *t, const uint8_t *buf, size_t size,
		 struct sframe_rules *r, void **mem)
{
	struct sframe_build b = { 0 };
	u32 nr_blocks;
	u8 shift;
	int ret = -ENOMEM;

	*mem = NULL;
	hostshim_allow(buf, buf + size);
	ret = sframe_table_rows(t, &b.max_rows);
	hostshim_allow_none();
	if (ret == -EINVAL || ret == -EFAULT)
		fail("sframe_table_rows() = %d on a validated section", ret);
	if (ret)
		return ret;
	ret = -ENOMEM;
	b.hash_bits = sframe_hash_bits(b.max_rows);
	b.pc = calloc(b.max_rows + 1, sizeof(*b.pc));
	b.rule = calloc(b.max_rows + 1, sizeof(*b.rule));
	b.rules = calloc(b.max_rows + 1, sizeof(*b.rules));
	b.hash = calloc((size_t)1 << b.hash_bits, sizeof(*b.hash));
	b.funcs = calloc(t->num_fdes + 1, sizeof(*b.funcs));
	if (b.pc && b.rule && b.rules && b.hash && b.funcs) {
		hostshim_allow(buf, buf + size);
		ret = sframe_table_build(t, &b);
		hostshim_allow_none();
	}
	if (!ret) {
		size_t len = sframe_rules_size(&b, &nr_blocks, &shift);

		*mem = malloc(len ? len : 1);
		if (*mem) {
			sframe_rules_fill(r, *mem, t->text_end - t->text_start,
					  &b, nr_blocks, shift);
			if (b.nr_rows > b.max_rows || b.asked > b.max_rows ||
			    b.nr_rules > SFRAME_RULES_MAX)
				fail("table of %u rows (%llu asked), %u rules: more than %u",
				     b.nr_rows, (unsigned long long)b.asked,
				     b.nr_rules, b.max_rows);
		} else {
			ret = -ENOMEM;
		}
	}
	free(b.pc);
	free(b.rule);
	free(b.rules);
	free(b.hash);
	free(b.funcs);
	return ret;
}

int exercise(const uint8_t *data, size_t size)
{
	static uint64_t pcs[MAX_PCS];
	unsigned long before = exercise_stats.failures;
	uint8_t hdr[28], *buf;
	struct sframe_table tbl;
	struct sframe_rules rules;
	void *mem = NULL;
	unsigned long sec, tlo, thi;
	size_t hdr_len = size < sizeof(hdr) ? size : sizeof(hdr), npcs, i;
	int rc, vrc, vrc2;
	unsigned long reads;
	uint8_t abi = size > 4 ? data[4] : 3;

	exercise_stats.inputs++;
	if (size > (1u << 24))
		return 0;
	buf = malloc(size ? size : 1);
	memcpy(buf, data, size);
	memcpy(hdr, data, hdr_len);
	sec = (unsigned long)buf;
	/* Text around the section, as large as a table can describe. */
	tlo = sec - 0x80000000ul;
	thi = sec + 0x7fff0000ul;

	hostshim_fault_none();
	hostshim_allow(buf, buf + size);
	memset(&tbl, 0x6b, sizeof(tbl));
	rc = sframe_table_init(&tbl, hdr, hdr_len, sec, size, tlo, thi, abi);
	if (rc) {
		if (rc != -EINVAL && rc != -EOPNOTSUPP)
			fail("sframe_table_init() = %d", rc);
		goto out;
	}
	exercise_stats.init_ok++;
	hostshim_allow(buf, buf + size);
	reads = hostshim_stats.reads;
	vrc = sframe_table_validate(&tbl);
	reads = hostshim_stats.reads - reads;
	if (vrc && vrc != -EINVAL && vrc != -EOPNOTSUPP)
		fail("sframe_table_validate() = %d", vrc);
	if (!vrc)
		exercise_stats.validate_ok++;
	check_num_fres(buf, size, vrc, reads);
	if (vrc)
		goto out;

	/* A valid section gets a table, or is too large for one. */
	rc = build(&tbl, buf, size, &rules, &mem);
	if (rc == -E2BIG)
		goto out;
	if (rc) {
		fail("sframe_table_build() = %d, validation 0", rc);
		goto out;
	}

	npcs = derive_pcs(buf, size, sec, pcs,
			  exercise_max_pcs < MAX_PCS ? exercise_max_pcs : MAX_PCS);
	for (i = 0; i < npcs; i++) {
		struct unwind_user_frame f, f2, fm;
		int r, r2, mrc;

		r = find(&tbl, &rules, pcs[i], &f);
		if (r && r != -ENOENT)
			fail("sframe_find(section%+ld) = %d on a validated section",
			     (long)(pcs[i] - sec), r);
		if (!r)
			exercise_stats.frames++;
		r2 = find(&tbl, &rules, pcs[i], &f2);
		if (r2 != r || (!r2 && !frame_eq(&f2, &f)))
			fail("sframe_find(section%+ld) not deterministic: %d then %d",
			     (long)(pcs[i] - sec), r, r2);
		mrc = model_find(buf, size, sec, tlo, thi, pcs[i], &fm);
		if (mrc == -E2BIG)
			continue;
		exercise_stats.model_checked++;
		if (mrc != r || (!mrc && !frame_eq(&fm, &f)))
			fail("sframe_find(section%+ld) = %d, reference model %d",
			     (long)(pcs[i] - sec), r, mrc);
		if (!mrc && !r && !frame_eq(&fm, &f))
			fprintf(stderr,
				"exercise:   cfa %d/%d ra %d/%d fp %d/%d use_fp %d/%d saved %d%d/%d%d signed %d/%d outermost %d/%d\n",
				f.cfa_off, fm.cfa_off, f.ra_off,
				fm.ra_off, f.fp_off, fm.fp_off,
				f.use_fp, fm.use_fp, f.ra_saved,
				f.fp_saved, fm.ra_saved, fm.fp_saved,
				f.ra_signed, fm.ra_signed,
				f.outermost, fm.outermost);
	}

	/* Fault from some input-derived offset to the end. */
	if (size) {
		size_t cut = (size_t)((data[size - 1] * 257u + size * 31u) % size);

		hostshim_allow(buf, buf + size);
		hostshim_fault_range(buf + cut, buf + size);
		vrc2 = sframe_table_validate(&tbl);
		if (vrc2 != vrc && vrc2 != -EFAULT)
			fail("sframe_table_validate() = %d with a fault from offset %zu, %d without",
			     vrc2, cut, vrc);
		hostshim_fault_none();
	}
out:
	hostshim_allow_none();
	free(mem);
	free(buf);
	return (int)(exercise_stats.failures - before);
}
