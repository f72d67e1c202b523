// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame decoder host test: the kernel decoder (kernel/unwind/sframe.c, built
 * with the shim) against libsframe 2.40 from binutils, an independent
 * decoder, PC by PC.
 *
 *   oracle_test [--corpus DIR] [--seed N] [--sections N] NAME=ELF...
 *
 * For every ELF (built with -Wa,--gsframe):
 *  - sframe_table_init() and sframe_table_validate() accept the section;
 *  - sframe_rules_lookup() equals libsframe's sframe_find_fre() + getters at every
 *    PC of the executable segments (so at every FRE boundary, just before
 *    it and everywhere in between) and a margin around them; PCs outside
 *    every function must be -ENOENT in both;
 *  - each FRE, read with sframe_decoder_get_fre(), is what sframe_rules_lookup()
 *    returns at its start address, and its predecessor just before;
 *  - PCMASK FDEs (.plt) are checked against the v1 rule the kernel
 *    implements (pc_off % 16); what libsframe 2.40 says there is reported;
 *  - the section rewritten as v2, v2 with SFRAME_F_FDE_FUNC_START_PCREL and
 *    in other layouts (aux header, FREs before FDEs, padding) gives the
 *    same result as v1 at every PC.
 * Then generated sections:
 *  - v1 sections from libsframe's encoder with 1/2/4-byte FRE start
 *    addresses and 1/2/4-byte offsets, amd64 and aarch64, and FREs
 *    without offsets (outermost frame; for those, libsframe 2.40 only
 *    finds the FRE, see lib_frame()): kernel == libsframe == reference
 *    model; the encoder's bytes == this test's own writer's bytes (which
 *    validates the writer used for v2);
 *  - v2 and v2-PCREL sections with PCMASK FDEs of several rep_size values:
 *    kernel == reference model.
 * With --corpus, every section is also written there (fuzzer seeds).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sframe-api.h>

#include "common.h"

#define MAX_REPORT	15

static const char *corpus_dir;

/* Lookups that found an FRE without offsets (outermost frame). */
static unsigned long lib_outermost;

static void corpus_write(const char *name, const char *suffix,
			 const void *buf, size_t len)
{
	char path[512], clean[256];
	size_t i;

	if (!corpus_dir)
		return;
	for (i = 0; name[i] && i < sizeof(clean) - 1; i++)
		clean[i] = (name[i] == '/' || name[i] == ' ') ? '_' : name[i];
	clean[i] = 0;
	snprintf(path, sizeof(path), "%s/%s%s.sframe", corpus_dir, clean,
		 suffix);
	write_file(path, buf, len);
}

/* ---- libsframe side --------------------------------------------------------- */

static void lib_frame(sframe_decoder_ctx *d, sframe_frame_row_entry *fre,
		      struct res *r)
{
	int8_t fixed_fp = sframe_decoder_get_fixed_fp_offset(d);
	int8_t fixed_ra = sframe_decoder_get_fixed_ra_offset(d);
	int err = 0;
	int32_t v;

	memset(r, 0, sizeof(*r));
	/*
	 * An FRE without offsets marks the outermost frame (SFrame v2
	 * erratum). libsframe 2.40 predates that: it decodes and finds
	 * such an FRE, but its getters fail for the missing CFA offset.
	 * binutils 2.40 never writes one; the generated sections do, and
	 * the FRE libsframe found is taken as "outermost", nothing else.
	 */
	if (!SFRAME_V1_FRE_OFFSET_COUNT(fre->fre_info)) {
		r->f.outermost = true;
		lib_outermost++;
		return;
	}
	r->f.cfa_off = sframe_fre_get_cfa_offset(d, fre, &err);
	if (err) {
		r->rc = -EINVAL;	/* libsframe: no CFA offset */
		return;
	}
	r->f.use_fp = sframe_fre_get_base_reg_id(fre, &err) ==
		      SFRAME_BASE_REG_FP;
	r->f.ra_signed = sframe_fre_get_ra_mangled_p(d, fre, &err);
	/*
	 * libsframe 2.40 reports a fixed RA or FP offset as "not present"
	 * and leaves it to the caller to use the header's value.
	 */
	if (fixed_ra) {
		r->f.ra_saved = true;
		r->f.ra_off = fixed_ra;
	} else {
		err = 0;
		v = sframe_fre_get_ra_offset(d, fre, &err);
		if (!err) {
			r->f.ra_saved = true;
			r->f.ra_off = v;
		}
	}
	if (fixed_fp) {
		r->f.fp_saved = true;
		r->f.fp_off = fixed_fp;
	} else {
		err = 0;
		v = sframe_fre_get_fp_offset(d, fre, &err);
		if (!err) {
			r->f.fp_saved = true;
			r->f.fp_off = v;
		}
	}
}

/* libsframe 2.40 takes the PC relative to the start of the section. */
static void lib_find(sframe_decoder_ctx *d, uint64_t sec_vaddr, uint64_t pc,
		     struct res *r)
{
	sframe_frame_row_entry fre;

	memset(&fre, 0, sizeof(fre));
	if (sframe_find_fre(d, (int32_t)(pc - sec_vaddr), &fre)) {
		memset(r, 0, sizeof(*r));
		r->rc = -ENOENT;
		return;
	}
	lib_frame(d, &fre, r);
}

struct lfde {
	uint64_t start;		/* target address */
	uint32_t size, num_fres;
	unsigned char info;
};

static struct lfde *lib_fdes(sframe_decoder_ctx *d, uint64_t vaddr,
			     unsigned int *n)
{
	struct lfde *f;
	unsigned int i;

	*n = sframe_decoder_get_num_fidx(d);
	f = calloc(*n + 1, sizeof(*f));
	for (i = 0; i < *n; i++) {
		int32_t start;

		sframe_decoder_get_funcdesc(d, i, &f[i].num_fres, &f[i].size,
					    &start, &f[i].info);
		f[i].start = vaddr + start;
	}
	return f;
}

/* Index of the last FDE starting at or below @pc, or -1. */
static int lfde_prev(const struct lfde *f, unsigned int n, uint64_t pc)
{
	int lo = 0, hi = n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (f[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

/* Index of the FDE covering @pc, or -1. */
static int lfde_lookup(const struct lfde *f, unsigned int n, uint64_t pc)
{
	int i = lfde_prev(f, n, pc);

	if (i < 0 || pc - f[i].start >= f[i].size)
		return -1;
	return i;
}

/*
 * The v1 PCMASK rule the kernel implements: the FRE with the greatest start
 * <= (pc - func_start) % 16, FREs read through libsframe.
 */
static void pcmask_model(sframe_decoder_ctx *d, unsigned int idx,
			 const struct lfde *fd, uint64_t pc, struct res *r)
{
	sframe_frame_row_entry fre, best;
	uint32_t off = (pc - fd->start) % 16, j;
	bool found = false;

	for (j = 0; j < fd->num_fres; j++) {
		if (sframe_decoder_get_fre(d, idx, j, &fre))
			break;
		if (fre.fre_start_addr <= off) {
			best = fre;
			found = true;
		}
	}
	if (!found) {
		memset(r, 0, sizeof(*r));
		r->rc = -ENOENT;
		return;
	}
	lib_frame(d, &best, r);
}

/* ---- real binaries ------------------------------------------------------------ */

struct counts {
	unsigned long pcs, in_func, outside, mismatches, boundaries;
	unsigned long pcmask_pcs, pcmask_lib_agree, lib_pcmask_gap;
};

static void report(unsigned long *n, const char *what, uint64_t pc,
		   const char *fn, const struct res *exp, const struct res *got)
{
	if ((*n)++ < MAX_REPORT)
		diag("  MISMATCH %s at pc %#llx (%s): expected %s, got %s", what,
		     (unsigned long long)pc, fn, res_str(exp), res_str(got));
}

static void test_binary(const char *name, const char *path)
{
	struct counts c = { 0 };
	struct section s;
	struct ktable kt;
	sframe_decoder_ctx *d;
	struct lfde *fdes;
	unsigned int nfdes, i, j, nfres = 0, npcmask = 0;
	unsigned long first_pcmask_disagree = 0;
	uint64_t pc, lo, hi;
	int err = 0, rc_init, rc_val;
	char fn[64];

	if (section_load_elf(&s, path, name)) {
		tap_result(false, "%s: load .sframe from %s", name, path);
		return;
	}
	corpus_write(name, "", s.data, s.size);
	d = sframe_decode((const char *)s.data, s.size, &err);
	if (!d) {
		tap_result(false, "%s: libsframe cannot decode it: %s", name,
			   sframe_errmsg(err));
		section_free(&s);
		return;
	}
	fdes = lib_fdes(d, s.vaddr, &nfdes);
	for (i = 0; i < nfdes; i++) {
		nfres += fdes[i].num_fres;
		npcmask += (fdes[i].info >> 4) & 1;
	}

	hostshim_reset_stats();
	rc_init = kt_init_section(&kt, &s);
	rc_val = rc_init ? -1 : kt_validate(&kt);
	diag("%s: .sframe v%u at %#llx, %zu bytes, abi %d, text [%#llx, %#llx): %u FDEs (%u PCMASK), %u FREs",
	     name, s.data[2], (unsigned long long)s.vaddr, s.size, s.abi,
	     (unsigned long long)s.text_lo, (unsigned long long)s.text_hi,
	     nfdes, npcmask, nfres);
	tap_result(!rc_init && !rc_val && !hostshim_stats.violations,
		   "%s: sframe_table_init() = %d, sframe_table_validate() = %d",
		   name, rc_init, rc_val);
	if (rc_init) {
		sframe_decoder_free(&d);
		free(fdes);
		section_free(&s);
		return;
	}

	/* Every PC of the text, and a margin around it. */
	hostshim_reset_stats();
	lo = s.text_lo > 64 ? s.text_lo - 64 : 0;
	hi = s.text_hi + 64;
	for (pc = lo; pc < hi; pc++) {
		struct res exp, got, lib;
		int idx = lfde_lookup(fdes, nfdes, pc);

		kt_find_res(&kt, pc, &got);
		c.pcs++;
		if (idx >= 0 && (fdes[idx].info >> 4) & 1) {
			pcmask_model(d, idx, &fdes[idx], pc, &exp);
			lib_find(d, s.vaddr, pc, &lib);
			c.pcmask_pcs++;
			if (res_eq(&lib, &exp))
				c.pcmask_lib_agree++;
			else if (!first_pcmask_disagree)
				first_pcmask_disagree = pc;
		} else if (idx >= 0) {
			lib_find(d, s.vaddr, pc, &exp);
		} else {
			/*
			 * No FDE covers @pc: -ENOENT by definition. libsframe
			 * 2.40 takes the last FDE starting at or below @pc
			 * without a size check; a PCINC one then fails, but
			 * its masked compare for a PCMASK one can succeed and
			 * give a .plt row for code after the .plt: counted
			 * as a libsframe quirk, not a kernel mismatch.
			 */
			exp.rc = -ENOENT;
			lib_find(d, s.vaddr, pc, &lib);
			if (lib.rc != -ENOENT) {
				int prev = lfde_prev(fdes, nfdes, pc);

				if (prev >= 0 && (fdes[prev].info >> 4) & 1) {
					c.lib_pcmask_gap++;
				} else {
					snprintf(fn, sizeof(fn), "no FDE");
					report(&c.mismatches,
					       "libsframe outside any FDE", pc,
					       fn, &exp, &lib);
				}
			}
		}
		if (idx >= 0) {
			c.in_func++;
			snprintf(fn, sizeof(fn), "FDE %d+%#llx", idx,
				 (unsigned long long)(pc - fdes[idx].start));
		} else {
			c.outside++;
			snprintf(fn, sizeof(fn), "no FDE");
		}
		if (!res_eq(&exp, &got))
			report(&c.mismatches, "kernel vs libsframe", pc, fn,
			       &exp, &got);
	}
	/* Far outside: the kernel alone (libsframe takes an s32). */
	{
		uint64_t far[] = { 0, 1, s.text_hi + 0x100000, s.vaddr,
				   s.vaddr + s.size, UINT64_MAX, 1ull << 63 };

		for (i = 0; i < sizeof(far) / sizeof(far[0]); i++) {
			struct res got, exp = { .rc = -ENOENT };

			if (far[i] >= s.text_lo && far[i] < s.text_hi)
				continue;
			kt_find_res(&kt, far[i], &got);
			c.pcs++;
			c.outside++;
			if (!res_eq(&exp, &got))
				report(&c.mismatches, "far PC", far[i],
				       "outside", &exp, &got);
		}
	}
	/* Each FRE at its start address, its predecessor just before. */
	for (i = 0; i < nfdes; i++) {
		struct res prev = { .rc = -ENOENT };

		if ((fdes[i].info >> 4) & 1)
			continue;
		for (j = 0; j < fdes[i].num_fres; j++) {
			sframe_frame_row_entry fre;
			struct res exp, got;

			if (sframe_decoder_get_fre(d, i, j, &fre)) {
				diag("  libsframe: cannot read FRE %u of FDE %u", j, i);
				c.mismatches++;
				break;
			}
			pc = fdes[i].start + fre.fre_start_addr;
			lib_frame(d, &fre, &exp);
			kt_find_res(&kt, pc, &got);
			snprintf(fn, sizeof(fn), "FDE %u FRE %u", i, j);
			if (!res_eq(&exp, &got))
				report(&c.mismatches, "FRE start", pc, fn,
				       &exp, &got);
			if (j) {
				kt_find_res(&kt, pc - 1, &got);
				if (!res_eq(&prev, &got))
					report(&c.mismatches, "before FRE",
					       pc - 1, fn, &prev, &got);
			}
			c.boundaries++;
			prev = exp;
		}
	}
	diag("%s: %lu PCs compared (%lu in %u functions, %lu outside any), %lu FRE boundaries, %lu mismatches, %lu out-of-section reads",
	     name, c.pcs, c.in_func, nfdes, c.outside, c.boundaries,
	     c.mismatches, hostshim_stats.violations);
	if (c.pcmask_pcs) {
		diag("%s: PCMASK: %lu PCs checked against pc_off %% 16; libsframe 2.40's sframe_find_fre() agrees on %lu of them%s",
		     name, c.pcmask_pcs, c.pcmask_lib_agree,
		     first_pcmask_disagree ? "" : " (all)");
		if (c.lib_pcmask_gap)
			diag("%s: libsframe 2.40 also returns a .plt (PCMASK) row for %lu PCs after the PCMASK FDE that no FDE covers (kernel and spec: -ENOENT)",
			     name, c.lib_pcmask_gap);
		if (first_pcmask_disagree) {
			struct res a, b;
			int idx = lfde_lookup(fdes, nfdes,
					      first_pcmask_disagree);

			pcmask_model(d, idx, &fdes[idx],
				     first_pcmask_disagree, &a);
			lib_find(d, s.vaddr, first_pcmask_disagree, &b);
			diag("%s: first disagreement at pc %#lx (FDE %d+%#lx): pc_off%%16 rule %s, libsframe %s",
			     name, first_pcmask_disagree, idx,
			     (unsigned long)(first_pcmask_disagree -
					     fdes[idx].start),
			     res_str(&a), res_str(&b));
		}
	}
	tap_result(!c.mismatches && !hostshim_stats.violations,
		   "%s: sframe_rules_lookup() == libsframe at every PC (%lu PCs, %u FDEs, %lu mismatches, %lu bad reads)",
		   name, c.pcs, nfdes, c.mismatches, hostshim_stats.violations);

	/* The same section as v2, v2-PCREL and in other layouts. */
	{
		static const struct gen_layout layouts[] = {
			{ .version = 2 },
			{ .version = 2, .pcrel = true },
			{ .version = 2, .pcrel = true, .auxhdr_len = 7,
			  .fres_first = true, .gap = 5,
			  .rep_size_pcinc = 0x33 },
			{ .version = 2, .auxhdr_len = 1, .gap = 3,
			  .rep_size_pcinc = 16 },
			{ .version = 1, .auxhdr_len = 3, .fres_first = true,
			  .gap = 2 },
		};
		static const char *const lname[] = {
			".v2", ".v2pcrel", ".v2pcrel-fresfirst-aux7",
			".v2-aux1-gap3", ".v1-fresfirst-aux3",
		};
		unsigned long conv_pcs = 0, conv_bad = 0;
		unsigned int l;
		bool all_ok = true;

		hostshim_reset_stats();
		for (l = 0; l < sizeof(layouts) / sizeof(layouts[0]); l++) {
			struct ktable k2;
			size_t size2;
			uint8_t *b2 = convert_v1(s.data, s.size, s.vaddr,
						 &layouts[l], &size2);
			int r1, r2;

			if (!b2) {
				all_ok = false;
				diag("  cannot convert to %s", lname[l]);
				continue;
			}
			corpus_write(name, lname[l], b2, size2);
			r1 = kt_init(&k2, b2, size2, s.vaddr, s.text_lo,
				     s.text_hi, s.abi);
			r2 = r1 ? -1 : kt_validate(&k2);
			if (r1 || r2) {
				all_ok = false;
				diag("  %s%s: init %d, validate %d", name,
				     lname[l], r1, r2);
			}
			for (pc = lo; !r1 && pc < hi; pc++) {
				struct res a, b;

				kt_find_res(&kt, pc, &a);
				kt_find_res(&k2, pc, &b);
				conv_pcs++;
				if (!res_eq(&a, &b)) {
					all_ok = false;
					snprintf(fn, sizeof(fn), "%s", lname[l]);
					report(&conv_bad, "v1 vs converted",
					       pc, fn, &a, &b);
				}
			}
			kt_free(&k2);
			free(b2);
		}
		diag("%s: %lu lookups on 5 rewritten sections (v2, v2 PCREL, 3 other layouts), %lu differ from v1",
		     name, conv_pcs, conv_bad);
		tap_result(all_ok && !hostshim_stats.violations,
			   "%s: rewritten as v2 / v2 PCREL / other layouts: same lookups as v1",
			   name);
	}

	kt_free(&kt);
	sframe_decoder_free(&d);
	free(fdes);
	section_free(&s);
}

/* ---- generated sections ----------------------------------------------------- */

static int32_t rand_off(struct rng *r, unsigned int code)
{
	switch (code) {
	case 0:
		return (int32_t)rng_below(r, 256) - 128;
	case 1:
		return (int32_t)rng_below(r, 65536) - 32768;
	default:
		return (int32_t)(uint32_t)rng_next(r);
	}
}

/*
 * A random section description: functions at @text, sorted, with gaps;
 * @pcmask: also PCMASK FDEs with various rep_size (v2 only unless 16).
 */
static void gen_random(struct gen *g, struct rng *r, uint64_t text,
		       int pcmask)
{
	uint32_t i, j;
	uint64_t at = text;

	memset(g, 0, sizeof(*g));
	g->abi = rng_below(r, 2) ? 3 : 2;
	g->fixed_ra = g->abi == 3 ? -8 : 0;
	g->fixed_fp = rng_below(r, 4) ? 0 : -16;
	g->num_fdes = 1 + rng_below(r, 40);
	g->fdes = calloc(g->num_fdes, sizeof(*g->fdes));
	for (i = 0; i < g->num_fdes; i++) {
		struct gen_fde *fd = &g->fdes[i];
		unsigned int type, min_type, cls = rng_below(r, 10);
		uint32_t nf, span;

		at += rng_below(r, 4) ? rng_below(r, 40) : 0;
		fd->start = at;
		if (pcmask && !rng_below(r, 3)) {
			static const uint8_t reps[] = { 1, 4, 8, 16, 16, 32,
							64, 255 };

			fd->rep_size = pcmask == 16 ? 16 :
				       reps[rng_below(r, sizeof(reps))];
			fd->size = fd->rep_size * (1 + rng_below(r, 6));
			span = fd->rep_size;
		} else {
			fd->size = cls < 5 ? 1 + rng_below(r, 255) :
				   cls < 8 ? 256 + rng_below(r, 65280) :
				   65536 + rng_below(r, 300000);
			span = fd->size;
		}
		min_type = fd->size <= 256 ? 0 : fd->size <= 65536 ? 1 : 2;
		type = min_type + rng_below(r, 3 - min_type);
		fd->info = type | (fd->rep_size ? 0x10 : 0);
		if (g->abi == 2 && rng_below(r, 2))
			fd->info |= 0x20;	/* PAC key B: ignored */
		nf = 1 + rng_below(r, span < GEN_MAX_FRES ? span :
						     GEN_MAX_FRES);
		/* Strictly increasing starts below span; maybe not at 0. */
		{
			uint32_t cur = rng_below(r, 8) ? 0 :
				       rng_below(r, span);

			for (j = 0; j < nf && cur < span; j++) {
				struct gen_fre *fr = &fd->fres[j];
				unsigned int code = rng_below(r, 3), n, k;
				uint32_t left = span - cur;

				fr->start = cur;
				n = g->abi == 3 ? 1 + rng_below(r, 2) :
						  1 + rng_below(r, 3);
				if (!rng_below(r, 10))
					n = 3;
				/* Outermost frame: no offsets (v2 erratum). */
				if (!rng_below(r, 12))
					n = 0;
				for (k = 0; k < n; k++)
					fr->off[k] = rand_off(r, code);
				fr->info = (rng_below(r, 2)) |
					   n << 1 | code << 5 |
					   (rng_below(r, 4) ? 0 : 0x80);
				fd->num_fres = j + 1;
				cur += 1 + (left > 1 ?
					    rng_below(r, left / (nf - j) + 1) :
					    0);
			}
		}
		at += fd->size;
	}
}

/* PCs worth asking about: around every function and FRE boundary. */
static uint64_t *gen_pcs(const struct gen *g, struct rng *r, size_t *n)
{
	size_t cap = 64, k = 0;
	uint64_t *pcs = malloc(cap * sizeof(*pcs));
	uint32_t i, j;

#define ADD(v) do { if (k == cap) pcs = realloc(pcs, (cap *= 2) * sizeof(*pcs)); \
		    pcs[k++] = (v); } while (0)
	for (i = 0; i < g->num_fdes; i++) {
		const struct gen_fde *fd = &g->fdes[i];
		uint64_t s = fd->start, e = s + fd->size;
		int d;

		for (d = -2; d <= 2; d++) {
			ADD(s + d);
			ADD(e + d);
		}
		if (fd->size <= 4096) {
			uint64_t pc;

			for (pc = s; pc < e; pc++)
				ADD(pc);
			continue;
		}
		for (j = 0; j < fd->num_fres; j++) {
			uint64_t b = s + fd->fres[j].start;
			uint64_t nb = j + 1 < fd->num_fres ?
				      s + fd->fres[j + 1].start : e;

			ADD(b - 1);
			ADD(b);
			ADD(b + 1);
			ADD(b + (nb - b) / 2);
			ADD(nb - 1);
		}
		for (j = 0; j < 16; j++)
			ADD(s + rng_below(r, fd->size));
	}
#undef ADD
	*n = k;
	return pcs;
}

static void gen_text_range(const struct gen *g, uint64_t *lo, uint64_t *hi)
{
	const struct gen_fde *last = &g->fdes[g->num_fdes - 1];

	*lo = g->fdes[0].start;
	*hi = last->start + last->size;
}

/* Encode @g (v1, PCINC only) with libsframe's encoder. */
static char *lib_encode(const struct gen *g, uint64_t vaddr, size_t *size)
{
	sframe_encoder_ctx *e;
	char *buf, *copy;
	int err = 0;
	uint32_t i, j;

	e = sframe_encode(SFRAME_VERSION_1, SFRAME_F_FDE_SORTED, g->abi,
			  g->fixed_fp, g->fixed_ra, &err);
	if (!e)
		return NULL;
	for (i = 0; i < g->num_fdes; i++) {
		const struct gen_fde *fd = &g->fdes[i];

		if (sframe_encoder_add_funcdesc(e, (int32_t)(fd->start - vaddr),
						fd->size, fd->info,
						fd->num_fres))
			goto fail;
		for (j = 0; j < fd->num_fres; j++) {
			const struct gen_fre *fr = &fd->fres[j];
			sframe_frame_row_entry fre;
			unsigned int n = (fr->info >> 1) & 0xf, k, b;
			unsigned int sz = 1u << ((fr->info >> 5) & 3);

			memset(&fre, 0, sizeof(fre));
			fre.fre_start_addr = fr->start;
			fre.fre_info = fr->info;
			for (k = 0; k < n; k++)
				for (b = 0; b < sz; b++)
					fre.fre_offsets[k * sz + b] =
						(uint32_t)fr->off[k] >> (8 * b);
			if (sframe_encoder_add_fre(e, i, &fre))
				goto fail;
		}
	}
	buf = sframe_encoder_write(e, size, &err);
	if (!buf || err)
		goto fail;
	/* The buffer belongs to the encoder. */
	copy = malloc(*size);
	memcpy(copy, buf, *size);
	sframe_encoder_free(&e);
	return copy;
fail:
	sframe_encoder_free(&e);
	return NULL;
}

static void test_encoder(uint64_t seed, unsigned int nsec)
{
	unsigned long pcs = 0, bad = 0, bytes_differ = 0, enc_fail = 0;
	unsigned long addr_types[3] = { 0 }, off_sizes[3] = { 0 };
	unsigned long with_frame = 0, abis[4] = { 0 };
	unsigned long outer_fres = 0, outer_pcs = 0, lib_outer0 = lib_outermost;
	struct rng r;
	unsigned int si;

	rng_seed(&r, seed);
	hostshim_reset_stats();
	for (si = 0; si < nsec; si++) {
		uint64_t text = 0x400000, vaddr, lo, hi, *pcv;
		struct gen_layout l1 = { .version = 1 };
		struct ktable kt;
		sframe_decoder_ctx *d;
		size_t esize, wsize, npc, k;
		uint8_t *mine;
		char *enc, nm[64];
		struct gen g;
		int err = 0, ri, rv;
		uint32_t i, j;

		gen_random(&g, &r, text, 0);
		gen_text_range(&g, &lo, &hi);
		/* Section before or after the text: s32 of both signs. */
		vaddr = rng_below(&r, 2) ? hi + rng_below(&r, 0x10000) :
					   text - 0x100000;
		abis[g.abi]++;
		for (i = 0; i < g.num_fdes; i++) {
			addr_types[g.fdes[i].info & 0xf]++;
			for (j = 0; j < g.fdes[i].num_fres; j++) {
				uint8_t fi = g.fdes[i].fres[j].info;

				off_sizes[(fi >> 5) & 3]++;
				outer_fres += !((fi >> 1) & 0xf);
			}
		}
		enc = lib_encode(&g, vaddr, &esize);
		if (!enc) {
			enc_fail++;
			free(g.fdes);
			continue;
		}
		mine = gen_write(&g, &l1, vaddr, &wsize);
		if (wsize != esize || memcmp(mine, enc, esize)) {
			if (bytes_differ++ < 3)
				diag("  section %u: libsframe encoder and test writer differ (%zu vs %zu bytes)",
				     si, esize, wsize);
		}
		snprintf(nm, sizeof(nm), "enc-%u", si);
		corpus_write(nm, "", enc, esize);

		d = sframe_decode(enc, esize, &err);
		ri = kt_init(&kt, enc, esize, vaddr, lo, hi, g.abi);
		rv = ri ? -1 : kt_validate(&kt);
		if (!d || ri || rv) {
			diag("  section %u: libsframe decode %s, init %d, validate %d",
			     si, d ? "ok" : "FAILED", ri, rv);
			bad++;
		}
		pcv = gen_pcs(&g, &r, &npc);
		for (k = 0; d && !ri && k < npc; k++) {
			struct res exp, got, model;

			lib_find(d, vaddr, pcv[k], &exp);
			gen_model(&g, 1, pcv[k], &model);
			kt_find_res(&kt, pcv[k], &got);
			pcs++;
			with_frame += !got.rc;
			outer_pcs += !got.rc && got.f.outermost;
			snprintf(nm, sizeof(nm), "section %u", si);
			if (!res_eq(&exp, &got))
				report(&bad, "kernel vs libsframe", pcv[k], nm,
				       &exp, &got);
			else if (!res_eq(&model, &got))
				report(&bad, "kernel vs model", pcv[k], nm,
				       &model, &got);
		}
		free(pcv);
		if (!ri)
			kt_free(&kt);
		else
			free(kt.buf);
		sframe_decoder_free(&d);
		free(mine);
		free(enc);
		free(g.fdes);
	}
	diag("libsframe encoder: %u sections (%lu amd64, %lu aarch64); FDEs by FRE address size 1/2/4 bytes: %lu/%lu/%lu; FREs by offset size 1/2/4 bytes: %lu/%lu/%lu",
	     nsec, abis[3], abis[2], addr_types[0], addr_types[1],
	     addr_types[2], off_sizes[0], off_sizes[1], off_sizes[2]);
	diag("libsframe encoder: %lu PCs compared (%lu with a frame), %lu mismatches, %lu sections where the test writer's bytes differ, %lu encoder failures",
	     pcs, with_frame, bad, bytes_differ, enc_fail);
	diag("libsframe encoder: %lu FREs without offsets (outermost), %lu PCs resolved to one; libsframe 2.40 found an FRE without offsets for %lu lookups (compared as outermost: its getters cannot read it)",
	     outer_fres, outer_pcs, lib_outermost - lib_outer0);
	tap_result(!bad && !enc_fail && !hostshim_stats.violations,
		   "libsframe-encoded v1 sections (1/2/4-byte addresses and offsets, outermost FREs): kernel == libsframe == model");
	tap_result(!bytes_differ && !enc_fail,
		   "test section writer produces the libsframe encoder's bytes for v1");
}

static void test_generated_v2(uint64_t seed, unsigned int nsec)
{
	static const struct gen_layout layouts[] = {
		{ .version = 2 },
		{ .version = 2, .pcrel = true },
		{ .version = 2, .pcrel = true, .auxhdr_len = 4,
		  .fres_first = true, .gap = 3, .rep_size_pcinc = 7 },
		{ .version = 1 },	/* only with rep_size 16 */
	};
	unsigned long pcs[4] = { 0 }, bad[4] = { 0 }, pcmask_fdes = 0;
	unsigned long pcmask_pcs = 0, outer_pcs = 0;
	struct rng r;
	unsigned int si, l;

	rng_seed(&r, seed ^ 0x5a5a5a5a);
	hostshim_reset_stats();
	for (si = 0; si < nsec; si++) {
		uint64_t text = 0x7f0000000000ull + rng_below(&r, 1 << 20);
		uint64_t lo, hi, *pcv;
		int pcmask = si % 4 == 3 ? 16 : 1;
		size_t npc, k;
		struct gen g;
		uint32_t i;

		gen_random(&g, &r, text, pcmask);
		gen_text_range(&g, &lo, &hi);
		for (i = 0; i < g.num_fdes; i++)
			pcmask_fdes += !!g.fdes[i].rep_size;
		pcv = gen_pcs(&g, &r, &npc);
		for (l = 0; l < 4; l++) {
			uint64_t vaddr = rng_below(&r, 2) ?
					 hi + rng_below(&r, 1 << 16) :
					 lo - (1 << 20);
			struct ktable kt;
			size_t size;
			uint8_t *b;
			char nm[64];
			int ri, rv;

			if (l == 3 && pcmask != 16)
				continue;
			b = gen_write(&g, &layouts[l], vaddr, &size);
			snprintf(nm, sizeof(nm), "gen-%u-l%u", si, l);
			corpus_write(nm, "", b, size);
			ri = kt_init(&kt, b, size, vaddr, lo, hi, g.abi);
			rv = ri ? -1 : kt_validate(&kt);
			if (ri || rv) {
				diag("  %s: init %d, validate %d", nm, ri, rv);
				bad[l]++;
			}
			for (k = 0; !ri && k < npc; k++) {
				struct res exp, got;

				gen_model(&g, layouts[l].version, pcv[k], &exp);
				kt_find_res(&kt, pcv[k], &got);
				pcs[l]++;
				outer_pcs += !got.rc && got.f.outermost;
				if (!got.rc && l == 0) {
					int idx = -1;

					for (i = 0; i < g.num_fdes; i++)
						if (pcv[k] >= (uint64_t)g.fdes[i].start)
							idx = i;
					pcmask_pcs += idx >= 0 &&
						      g.fdes[idx].rep_size;
				}
				if (!res_eq(&exp, &got))
					report(&bad[l], "kernel vs model",
					       pcv[k], nm, &exp, &got);
			}
			kt_free(&kt);
			free(b);
		}
		free(pcv);
		free(g.fdes);
	}
	diag("generated: %u sections, %lu PCMASK FDEs (rep_size 1..255), %lu PCs resolved inside PCMASK FDEs, %lu lookups (all layouts) resolved to an outermost FRE",
	     nsec, pcmask_fdes, pcmask_pcs, outer_pcs);
	tap_result(!bad[0] && !hostshim_stats.violations,
		   "generated v2 sections: kernel == model (%lu PCs, %lu mismatches)",
		   pcs[0], bad[0]);
	tap_result(!bad[1] && !hostshim_stats.violations,
		   "generated v2 PCREL sections: kernel == model (%lu PCs, %lu mismatches)",
		   pcs[1], bad[1]);
	tap_result(!bad[2] && !hostshim_stats.violations,
		   "generated v2 PCREL, FREs first, aux header: kernel == model (%lu PCs, %lu mismatches)",
		   pcs[2], bad[2]);
	tap_result(!bad[3] && !hostshim_stats.violations,
		   "generated v1 with PCMASK FDEs (block 16): kernel == model (%lu PCs, %lu mismatches)",
		   pcs[3], bad[3]);
}

/*
 * Many functions, some with gaps between them: the table (kt_find()) and
 * the model agree at every function boundary, and the table's function
 * starts are those of the functions that have a size.
 */
static void test_many_functions(uint64_t seed)
{
	static const struct gen_layout layouts[] = {
		{ .version = 1 },
		{ .version = 2, .pcrel = true },
	};
	unsigned long pcs = 0, bad = 0;
	uint64_t text = 0x7f0000000000ull, at = text, lo, hi, *pcv;
	unsigned int l;
	struct gen g = { .abi = 3, .fixed_ra = -8 };
	struct rng r;
	size_t npc, k;
	uint32_t i;

	rng_seed(&r, seed ^ 0xa5a5);
	hostshim_reset_stats();
	g.num_fdes = 3 * 16384 + 7;
	g.fdes = calloc(g.num_fdes, sizeof(*g.fdes));
	for (i = 0; i < g.num_fdes; i++) {
		struct gen_fde *fd = &g.fdes[i];

		at += rng_below(&r, 2) ? rng_below(&r, 8) : 0;
		fd->start = at;
		fd->size = 2 + rng_below(&r, 30);
		fd->num_fres = 1 + rng_below(&r, 2);
		fd->fres[0].info = 1 << 1 | 1;		/* CFA = SP + off */
		fd->fres[0].off[0] = 8;
		fd->fres[1].start = 1;
		fd->fres[1].info = 1 << 1 | 1;
		fd->fres[1].off[0] = 16 + 8 * rng_below(&r, 8);
		at += fd->size;
	}
	gen_text_range(&g, &lo, &hi);
	pcv = gen_pcs(&g, &r, &npc);
	for (l = 0; l < 2; l++) {
		struct ktable kt;
		size_t size;
		uint8_t *b;
		int ri, rv;

		b = gen_write(&g, &layouts[l], hi + 4096, &size);
		ri = kt_init(&kt, b, size, hi + 4096, lo, hi, g.abi);
		rv = ri ? -1 : kt_validate(&kt);
		if (ri || rv || kt.nr_funcs != g.num_fdes) {
			diag("  v%d: init %d, validate %d, %u function starts of %u",
			     layouts[l].version, ri, rv, kt.nr_funcs,
			     g.num_fdes);
			bad++;
		}
		for (i = 0; !ri && !rv && i < g.num_fdes; i++) {
			unsigned long start;
			uint64_t off = g.fdes[i].start + g.fdes[i].size - 1 - lo;

			if (kt_func(&kt, off, &start) ||
			    start != g.fdes[i].start - lo) {
				diag("  v%d: function %u at %#llx: start %#lx",
				     layouts[l].version, i,
				     (unsigned long long)g.fdes[i].start, start);
				bad++;
				break;
			}
		}
		for (k = 0; !ri && k < npc; k++) {
			struct res exp, got;

			gen_model(&g, layouts[l].version, pcv[k], &exp);
			kt_find_res(&kt, pcv[k], &got);
			pcs++;
			if (!res_eq(&exp, &got))
				report(&bad, "kernel vs model", pcv[k],
				       "many functions", &exp, &got);
		}
		kt_free(&kt);
		free(b);
	}
	free(pcv);
	free(g.fdes);
	tap_result(!bad && !hostshim_stats.violations,
		   "%u functions (v1, v2 PCREL): table == model at %lu PCs, function starts (%lu mismatches)",
		   g.num_fdes, pcs, bad);
}

int main(int argc, char **argv)
{
	uint64_t seed = 20240601;
	unsigned int nsec = 60;
	int opt, i;

	static const struct option opts[] = {
		{ "corpus", required_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, 's' },
		{ "sections", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			corpus_dir = optarg;
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			nsec = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [--corpus DIR] [--seed N] [--sections N] NAME=ELF...\n",
				argv[0]);
			return 2;
		}
	}
	watchdog(900, "oracle_test");
	hostshim_set_mode(HOSTSHIM_RECORD);
	for (i = optind; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq) {
			fprintf(stderr, "argument %s: expected NAME=ELF\n",
				argv[i]);
			return 2;
		}
		*eq = 0;
		test_binary(argv[i], eq + 1);
	}
	diag("generated sections: seed %llu", (unsigned long long)seed);
	test_encoder(seed, nsec);
	test_generated_v2(seed, nsec);
	test_many_functions(seed);
	/* Every lookup read the table alone, none the section. */
	tap_result(kt_stats.tables && kt_stats.lookups &&
		   !hostshim_stats.violations,
		   "tables: %lu built (%lu rows, %lu distinct rules), %lu lookups, no section read by a lookup (%lu reads outside the allowed range)",
		   kt_stats.tables, kt_stats.rows, kt_stats.rules,
		   kt_stats.lookups, hostshim_stats.violations);
	return tap_failures ? 1 : 0;
}
