// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame decoder host test: malformed and hostile sections.
 *
 *   malformed_test [--seed N] [--mutations N] NAME=ELF...
 *
 * Starting from the real .sframe sections of the given ELF files (as v1 and
 * rewritten as v2 with PCREL function starts), checks that:
 *  - a section truncated at every length is rejected by
 *    sframe_table_init() or sframe_table_validate();
 *  - with the section unreadable from every offset on (fault injection),
 *    sframe_table_validate() returns -EFAULT and every lookup returns its
 *    normal result or -EFAULT (and lookups only use the _nofault copy);
 *  - corrupted header fields, function descriptors (FDEs) and frame row
 *    entries (FREs) are rejected where the format says they must be
 *    (huge counts, offsets past the end, unsorted FDEs, FREs out of order,
 *    unknown encodings, ...), and lookups on them fail cleanly;
 *  - random mutations keep every invariant of exercise.c;
 * and throughout, that the decoder never reads outside the section (the
 * shim records it) and never hangs (a watchdog).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/uaccess.h>

#include "common.h"
#include "exercise.h"

#define MAX_PCS		8192
#define MAX_REPORT	10

enum expect {
	EXP_INIT,	/* sframe_table_init() must return -EINVAL */
	EXP_REJECT,	/* init or sframe_table_validate() must fail */
	EXP_VALID,	/* both must succeed */
	EXP_ANY,	/* only: no out-of-section read, sane error codes */
};

static const char *const expect_str[] = {
	"init rejects", "rejected", "valid", "anything sane",
};

/* Results of one group over all sections. */
struct group {
	const char *title;
	unsigned long cases, bad, violations;
	unsigned long by_init, by_validate, accepted, lookups;
};

static struct section *secs;
static unsigned int nsecs;
static uint64_t **sec_pcs;
static size_t *sec_npcs;

static void group_fail(struct group *g, const char *sec, const char *what,
		       const char *detail)
{
	if (g->bad++ < MAX_REPORT)
		diag("  FAIL %s: %s: %s", sec, what, detail);
}

static void group_end(struct group *g)
{
	diag("%s: %lu cases (%lu rejected by init, %lu by validate, %lu accepted), %lu lookups, %lu failures, %lu out-of-section reads",
	     g->title, g->cases, g->by_init, g->by_validate, g->accepted,
	     g->lookups, g->bad, g->violations);
	tap_result(!g->bad && !g->violations, "%s", g->title);
}

static bool rc_sane(int rc)
{
	return !rc || rc == -ENOENT || rc == -EINVAL || rc == -EFAULT;
}

/*
 * Run init, validate and lookups at the section's PCs on @data; check
 * @exp. Returns the validate result (or the init one).
 */
static int run_case(struct group *g, const struct section *s,
		    const uint64_t *pcs, size_t npcs, const uint8_t *data,
		    size_t size, enum expect exp, const char *what)
{
	struct ktable kt;
	int ri, rv = 0;
	size_t i;
	char det[160];

	g->cases++;
	hostshim_reset_stats();
	ri = kt_init(&kt, data, size, s->vaddr, s->text_lo, s->text_hi,
		     s->abi);
	if (ri) {
		g->by_init++;
		if (ri != -EINVAL) {
			snprintf(det, sizeof(det), "init returned %d", ri);
			group_fail(g, s->name, what, det);
		}
	} else {
		rv = kt_validate(&kt);
		if (rv)
			g->by_validate++;
		else
			g->accepted++;
		if (rv && rv != -EINVAL) {
			snprintf(det, sizeof(det), "validate returned %d", rv);
			group_fail(g, s->name, what, det);
		}
		for (i = 0; i < npcs; i++) {
			struct res r;

			kt_find_res(&kt, pcs[i], &r);
			g->lookups++;
			if (!rc_sane(r.rc) || r.rc == -EFAULT ||
			    (!rv && r.rc && r.rc != -ENOENT)) {
				snprintf(det, sizeof(det),
					 "lookup at %#llx: %s (validate %d)",
					 (unsigned long long)pcs[i],
					 res_str(&r), rv);
				group_fail(g, s->name, what, det);
				break;
			}
		}
	}
	switch (exp) {
	case EXP_INIT:
		if (ri != -EINVAL)
			goto unexpected;
		break;
	case EXP_REJECT:
		if (!ri && !rv)
			goto unexpected;
		break;
	case EXP_VALID:
		if (ri || rv)
			goto unexpected;
		break;
	case EXP_ANY:
		break;
	}
	goto out;
unexpected:
	snprintf(det, sizeof(det), "expected: %s; got init %d, validate %d",
		 expect_str[exp], ri, rv);
	group_fail(g, s->name, what, det);
out:
	g->violations += hostshim_stats.violations;
	if (hostshim_stats.violations)
		group_fail(g, s->name, what, "read outside the section");
	if (!ri)
		kt_free(&kt);
	else
		free(kt.buf);
	return ri ? ri : rv;
}

/* ---- parsing the (well-formed) originals ---------------------------------- */

struct layout {
	unsigned int version, fde_size;
	size_t hdr_size, fdes, fres;	/* offsets in the section */
	uint32_t num_fdes, fre_len;
};

static void parse(const struct section *s, struct layout *l)
{
	const uint8_t *d = s->data;

	l->version = d[2];
	l->fde_size = l->version == 1 ? FDE_V1_SIZE : FDE_V2_SIZE;
	l->hdr_size = HDR_SIZE + d[7];
	l->num_fdes = get_u32(d + 8);
	l->fre_len = get_u32(d + 16);
	l->fdes = l->hdr_size + get_u32(d + 20);
	l->fres = l->hdr_size + get_u32(d + 24);
}

static size_t fde_at(const struct layout *l, uint32_t i)
{
	return l->fdes + (size_t)i * l->fde_size;
}

static unsigned int fre_addr_size(uint8_t func_info)
{
	return 1u << (func_info & 0xf);	/* 0, 1, 2 -> 1, 2, 4 */
}

/* Offset of FRE @j of the FDE at @fde. */
static size_t fre_at(const uint8_t *d, const struct layout *l, size_t fde,
		     uint32_t j)
{
	size_t at = l->fres + get_u32(d + fde + 8);
	unsigned int as = fre_addr_size(d[fde + 16]);

	while (j--) {
		uint8_t info = d[at + as];

		at += as + 1 + ((info >> 1) & 0xf) * (1u << ((info >> 5) & 3));
	}
	return at;
}

/* ---- the groups --------------------------------------------------------------- */

static void test_truncation(void)
{
	struct group g = { .title = "truncated at every length: rejected, no read outside" };
	unsigned int si;

	for (si = 0; si < nsecs; si++) {
		struct section *s = &secs[si];
		size_t len;
		char what[64];

		for (len = 0; len < s->size; len++) {
			snprintf(what, sizeof(what), "truncated to %zu of %zu",
				 len, s->size);
			run_case(&g, s, sec_pcs[si], sec_npcs[si], s->data, len,
				 EXP_REJECT, what);
		}
		run_case(&g, s, sec_pcs[si], sec_npcs[si], s->data, s->size,
			 EXP_VALID, "whole section");
	}
	group_end(&g);
}

/* End of the last byte sframe_table_validate() has to read. */
static size_t validate_reads_up_to(const struct section *s)
{
	struct layout l;
	size_t end = HDR_SIZE, at;
	uint32_t i, n;

	parse(s, &l);
	if (l.num_fdes)
		end = fde_at(&l, l.num_fdes - 1) + l.fde_size;
	for (i = 0; i < l.num_fdes; i++) {
		at = fde_at(&l, i);
		n = get_u32(s->data + at + 12);
		if (!n)
			continue;
		at = fre_at(s->data, &l, at, n - 1) +
		     fre_addr_size(s->data[at + 16]) + 1;
		if (at > end)
			end = at;
	}
	return end;
}

static void test_faults(void)
{
	struct group g = { .title = "unreadable from every offset on: validate -EFAULT, lookups unchanged or -EFAULT" };
	unsigned long faulted = 0;
	unsigned int si;

	for (si = 0; si < nsecs; si++) {
		struct section *s = &secs[si];
		const uint64_t *pcs = sec_pcs[si];
		size_t npcs = sec_npcs[si], cut, i;
		size_t step = s->size > 4096 ? s->size / 4096 : 1;
		struct res *base = calloc(npcs + 1, sizeof(*base));
		struct ktable kt;
		char what[96], det[160];
		size_t needed;

		/* A sample of the PCs is enough here: one per FDE and FRE. */
		if (npcs > 256)
			npcs = 256;
		hostshim_reset_stats();
		if (kt_init_section(&kt, s) || kt_validate(&kt)) {
			group_fail(&g, s->name, "baseline", "not valid");
			free(base);
			continue;
		}
		for (i = 0; i < npcs; i++)
			kt_find_res(&kt, pcs[i], &base[i]);
		needed = validate_reads_up_to(s);
		/* Cuts 0, step, 2 * step, ... and finally: nothing readable. */
		for (cut = 0; cut <= s->size;
		     cut = cut < s->size && cut + step > s->size ? s->size :
								   cut + step) {
			int rv;

			g.cases++;
			snprintf(what, sizeof(what), "fault from offset %zu",
				 cut);
			if (cut == s->size)
				hostshim_fault_all();
			else
				hostshim_fault_range(kt.buf + cut,
						     kt.buf + s->size);
			rv = kt_validate(&kt);
			/*
			 * The validation reads each FRE's start address and
			 * info byte, and only bounds-checks the offsets after
			 * them: a fault in the offsets of the last FRE alone
			 * goes unnoticed, as it may.
			 */
			if (rv != -EFAULT && !(cut >= needed && !rv)) {
				snprintf(det, sizeof(det),
					 "validate returned %d", rv);
				group_fail(&g, s->name, what, det);
			}
			for (i = 0; i < npcs; i++) {
				struct res r;

				kt_find_res(&kt, pcs[i], &r);
				g.lookups++;
				faulted += r.rc == -EFAULT;
				if (r.rc != -EFAULT && !res_eq(&r, &base[i])) {
					snprintf(det, sizeof(det),
						 "lookup at %#llx: %s, without fault %s",
						 (unsigned long long)pcs[i],
						 res_str(&r), res_str(&base[i]));
					group_fail(&g, s->name, what, det);
				}
				if (cut == s->size && r.rc != -EFAULT &&
				    r.rc != -ENOENT) {
					snprintf(det, sizeof(det),
						 "lookup at %#llx with every read failing: %s",
						 (unsigned long long)pcs[i],
						 res_str(&r));
					group_fail(&g, s->name, what, det);
				}
			}
			hostshim_fault_none();
			if (cut == s->size)
				break;
		}
		if (hostshim_stats.violations)
			group_fail(&g, s->name, "fault injection",
				   "read outside the section or faulting read in a lookup");
		g.violations += hostshim_stats.violations;
		kt_free(&kt);
		free(base);
	}
	diag("fault injection: %lu lookups returned -EFAULT", faulted);
	group_end(&g);
}

struct hdr_case {
	const char *what;
	unsigned int off, width;	/* width 0: value is OR'ed into a byte */
	uint32_t val;
	int rel;			/* 1: val is added, 0: set */
	enum expect exp;
};

static void test_header(void)
{
	struct group g = { .title = "corrupted header fields: rejected as required" };
	unsigned int si, ci;

	for (si = 0; si < nsecs; si++) {
		struct section *s = &secs[si];
		struct layout l;
		uint32_t data_size;
		unsigned int version = s->data[2];

		parse(s, &l);
		data_size = s->size - l.hdr_size;
		{
			const struct hdr_case cases[] = {
				{ "magic byte-swapped", 0, 2, 0xe2de, 0, EXP_INIT },
				{ "magic 0", 0, 2, 0, 0, EXP_INIT },
				{ "version 0", 2, 1, 0, 0, EXP_INIT },
				{ "version 3", 2, 1, 3, 0, EXP_INIT },
				{ "version 255", 2, 1, 255, 0, EXP_INIT },
				{ "other version (FDE size changes)", 2, 1, version == 1 ? 2 : 1, 0, EXP_ANY },
				{ "flags 0 (not sorted)", 3, 1, 0, 0, EXP_INIT },
				{ "unknown flag 0x8", 3, 0, 0x8, 0, EXP_INIT },
				{ "unknown flag 0x80", 3, 0, 0x80, 0, EXP_INIT },
				{ "PCREL flag on v1", 3, 0, 0x4, 0, version == 1 ? EXP_INIT : EXP_VALID },
				{ "FRAME_POINTER flag", 3, 0, 0x2, 0, EXP_VALID },
				{ "other ABI", 4, 1, s->abi == 3 ? 2 : 3, 0, EXP_INIT },
				{ "ABI 0", 4, 1, 0, 0, EXP_INIT },
				{ "fixed RA offset changed", 6, 1, 0xf0, 0, EXP_VALID },
				{ "fixed FP offset set", 5, 1, 0xf0, 0, EXP_VALID },
				{ "auxhdr_len 1", 7, 1, 1, 0, EXP_INIT },
				{ "auxhdr_len 255", 7, 1, 255, 0, EXP_INIT },
				{ "num_fdes 0", 8, 4, 0, 0, EXP_VALID },
				{ "num_fdes - 1", 8, 4, (uint32_t)-1, 1, EXP_VALID },
				{ "num_fdes + 1", 8, 4, 1, 1, EXP_ANY },
				{ "num_fdes 0x0fffffff", 8, 4, 0x0fffffff, 0, EXP_INIT },
				{ "num_fdes 0x7fffffff", 8, 4, 0x7fffffff, 0, EXP_INIT },
				{ "num_fdes 0xffffffff", 8, 4, 0xffffffff, 0, EXP_INIT },
				{ "num_fres 0 (unused)", 12, 4, 0, 0, EXP_VALID },
				{ "num_fres 0xffffffff (unused)", 12, 4, 0xffffffff, 0, EXP_VALID },
				{ "fre_len + 1", 16, 4, 1, 1, EXP_INIT },
				{ "fre_len - 1", 16, 4, (uint32_t)-1, 1, EXP_REJECT },
				{ "fre_len 0", 16, 4, 0, 0, l.num_fdes ? EXP_REJECT : EXP_VALID },
				{ "fre_len 0xffffffff", 16, 4, 0xffffffff, 0, EXP_INIT },
				{ "fdes_off = data size", 20, 4, data_size, 0, EXP_INIT },
				{ "fdes_off + 1", 20, 4, 1, 1, EXP_ANY },
				{ "fdes_off 0xffffffff", 20, 4, 0xffffffff, 0, EXP_INIT },
				{ "fdes_off 0xfffffff0 (wraps)", 20, 4, 0xfffffff0, 0, EXP_INIT },
				{ "fres_off + 1", 24, 4, 1, 1, EXP_INIT },
				{ "fres_off = data size", 24, 4, data_size, 0, l.fre_len ? EXP_INIT : EXP_ANY },
				{ "fres_off 0xffffffff", 24, 4, 0xffffffff, 0, EXP_INIT },
				{ "fres_off 0", 24, 4, 0, 0, EXP_ANY },
			};

			for (ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
				const struct hdr_case *c = &cases[ci];
				uint8_t *d = malloc(s->size);
				uint32_t v = c->val;

				memcpy(d, s->data, s->size);
				if (c->rel)
					v += c->width == 4 ? get_u32(d + c->off) :
						       d[c->off];
				if (!c->width)
					d[c->off] |= v;
				else if (c->width == 1)
					d[c->off] = v;
				else if (c->width == 2)
					put_u16(d + c->off, v);
				else
					put_u32(d + c->off, v);
				run_case(&g, s, sec_pcs[si], sec_npcs[si], d,
					 s->size, c->exp, c->what);
				free(d);
			}
		}
	}

	/* The API's own arguments, on the first section. */
	if (nsecs) {
		struct section *s = &secs[0];
		struct sframe_table t;
		unsigned long sec = (unsigned long)s->data;
		struct {
			const char *what;
			size_t hdr_len;
			unsigned long start, size, tlo, thi;
			int abi;
		} a[] = {
			{ "hdr_len 27", 27, sec, s->size, sec - 0x100000, sec + 0x100000, s->abi },
			{ "hdr_len 0", 0, sec, s->size, sec - 0x100000, sec + 0x100000, s->abi },
			{ "sec_size 27", 28, sec, 27, sec - 0x100000, sec + 0x100000, s->abi },
			{ "sec_size 0", 28, sec, 0, sec - 0x100000, sec + 0x100000, s->abi },
			{ "section wraps the address space", 28, -16ul, s->size, 0x1000, 0x2000, s->abi },
			{ "text_start == text_end", 28, sec, s->size, sec, sec, s->abi },
			{ "text_start > text_end", 28, sec, s->size, sec + 1, sec, s->abi },
			{ "wrong ABI", 28, sec, s->size, sec - 0x100000, sec + 0x100000, s->abi ^ 1 },
		};
		unsigned int i;

		hostshim_reset_stats();
		hostshim_allow_none();	/* init must not read user memory */
		for (i = 0; i < sizeof(a) / sizeof(a[0]); i++) {
			int rc = sframe_table_init(&t, s->data, a[i].hdr_len,
						   a[i].start, a[i].size,
						   a[i].tlo, a[i].thi,
						   a[i].abi);
			char det[64];

			g.cases++;
			if (rc != -EINVAL) {
				snprintf(det, sizeof(det), "init returned %d",
					 rc);
				group_fail(&g, "sframe_table_init()", a[i].what,
					   det);
			} else {
				g.by_init++;
			}
		}
		g.violations += hostshim_stats.violations;
	}
	group_end(&g);
}

static bool is_pcmask(const uint8_t *d, size_t fde)
{
	return (d[fde + 16] >> 4) & 1;
}

static void test_fdes(void)
{
	struct group g = { .title = "corrupted FDEs (offsets past the end, huge counts, unsorted, bad types): rejected" };
	unsigned int si, k, ci;

	for (si = 0; si < nsecs; si++) {
		struct section *s = &secs[si];
		struct layout l;
		uint32_t idx[3];

		parse(s, &l);
		if (!l.num_fdes)
			continue;
		idx[0] = 0;
		idx[1] = l.num_fdes / 2;
		idx[2] = l.num_fdes - 1;
		for (k = 0; k < 3; k++) {
			uint32_t i = idx[k];
			size_t at = fde_at(&l, i);
			bool pcmask = is_pcmask(s->data, at);
			uint32_t fsize = get_u32(s->data + at + 4);
			struct {
				const char *what;
				unsigned int off, width;
				uint32_t val;
				enum expect exp;
			} cases[] = {
				{ "start INT32_MIN", 0, 4, 0x80000000, EXP_REJECT },
				{ "start INT32_MAX", 0, 4, 0x7fffffff, EXP_REJECT },
				{ "start + 1", 0, 4, get_u32(s->data + at) + 1, EXP_ANY },
				{ "size 0xffffffff", 4, 4, 0xffffffff, EXP_REJECT },
				{ "size 0", 4, 4, 0, pcmask ? EXP_ANY : EXP_REJECT },
				{ "size + 0x10000000", 4, 4, fsize + 0x10000000, EXP_REJECT },
				{ "fres_off = fre_len", 8, 4, l.fre_len, EXP_REJECT },
				{ "fres_off = fre_len - 1", 8, 4, l.fre_len - 1, EXP_REJECT },
				{ "fres_off 0xffffffff", 8, 4, 0xffffffff, EXP_REJECT },
				{ "fres_off 0x80000000", 8, 4, 0x80000000, EXP_REJECT },
				{ "fres_num 0", 12, 4, 0, EXP_REJECT },
				{ "fres_num 8193", 12, 4, 8193, EXP_REJECT },
				{ "fres_num 0xffffffff", 12, 4, 0xffffffff, EXP_REJECT },
				{ "fres_num + 1", 12, 4, get_u32(s->data + at + 12) + 1, EXP_REJECT },
				{ "FRE type 3", 16, 1, (s->data[at + 16] & ~0xf) | 3, EXP_REJECT },
				{ "FRE type 15", 16, 1, s->data[at + 16] | 0xf, EXP_REJECT },
				{ "FDE type flipped", 16, 1, s->data[at + 16] ^ 0x10, EXP_ANY },
				{ "unused info bits", 16, 1, s->data[at + 16] | 0xc0, EXP_ANY },
				{ "v2 rep_size 0", 17, 1, 0, l.version == 2 && pcmask ? EXP_REJECT : EXP_ANY },
				{ "v2 rep_size 255", 17, 1, 255, l.version == 2 ? EXP_ANY : EXP_ANY },
			};

			for (ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
				uint8_t *d;
				char what[96];

				if (cases[ci].off == 17 && l.version != 2)
					continue;
				/* "fres_num + 1" is valid if the next FRE happens to fit. */
				d = malloc(s->size);
				memcpy(d, s->data, s->size);
				if (cases[ci].width == 1)
					d[at + cases[ci].off] = cases[ci].val;
				else
					put_u32(d + at + cases[ci].off,
						cases[ci].val);
				snprintf(what, sizeof(what), "FDE %u: %s", i,
					 cases[ci].what);
				run_case(&g, s, sec_pcs[si], sec_npcs[si], d,
					 s->size, cases[ci].exp, what);
				free(d);
			}
			/* Unsorted: swap with the next descriptor. */
			if (i + 1 < l.num_fdes &&
			    get_u32(s->data + at) != get_u32(s->data + at + l.fde_size)) {
				uint8_t *d = malloc(s->size), tmp[FDE_V2_SIZE];
				char what[64];
				size_t nx = at + l.fde_size;

				memcpy(d, s->data, s->size);
				memcpy(tmp, d + at, l.fde_size);
				memcpy(d + at, d + nx, l.fde_size);
				memcpy(d + nx, tmp, l.fde_size);
				/* Keep PCREL starts pointing at the same functions. */
				if (s->data[3] & F_PCREL) {
					put_u32(d + at, get_u32(d + at) + l.fde_size);
					put_u32(d + nx, get_u32(d + nx) - l.fde_size);
				}
				snprintf(what, sizeof(what),
					 "FDEs %u and %u swapped (unsorted)", i,
					 i + 1);
				run_case(&g, s, sec_pcs[si], sec_npcs[si], d,
					 s->size, EXP_REJECT, what);
				free(d);
			}
		}
		/* Every FDE pointing at the same FREs: valid if they fit. */
		{
			uint8_t *d = malloc(s->size);
			uint32_t i;

			memcpy(d, s->data, s->size);
			for (i = 0; i < l.num_fdes; i++)
				put_u32(d + fde_at(&l, i) + 8, 0);
			run_case(&g, s, sec_pcs[si], sec_npcs[si], d, s->size,
				 EXP_ANY, "all FDEs share the first FREs");
			free(d);
		}
	}
	group_end(&g);
}

static void test_fres(void)
{
	struct group g = { .title = "corrupted FREs (out of order, past the function, bad encodings): rejected" };
	unsigned int si, ci;

	for (si = 0; si < nsecs; si++) {
		struct section *s = &secs[si];
		struct layout l;
		uint32_t i, done = 0;

		parse(s, &l);
		/* Up to 3 PCINC functions with at least 3 FREs. */
		for (i = 0; i < l.num_fdes && done < 3; i++) {
			size_t at = fde_at(&l, i), f0, f1, fl;
			uint32_t n = get_u32(s->data + at + 12);
			uint32_t fsize = get_u32(s->data + at + 4);
			unsigned int as = fre_addr_size(s->data[at + 16]);
			uint8_t info1;

			if (is_pcmask(s->data, at) || n < 3)
				continue;
			done++;
			f0 = fre_at(s->data, &l, at, 0);
			f1 = fre_at(s->data, &l, at, 1);
			fl = fre_at(s->data, &l, at, n - 1);
			info1 = s->data[f1 + as];
			{
				struct {
					const char *what;
					int kind;
					enum expect exp;
				} cases[] = {
					{ "FREs 0 and 1 start swapped", 0, EXP_REJECT },
					{ "FRE 1 start = FRE 0 start", 1, EXP_REJECT },
					{ "last FRE start = function size", 2,
					  fsize < (1ull << (8 * as)) ? EXP_REJECT : EXP_ANY },
					{ "last FRE start = max", 3, EXP_REJECT },
					{ "FRE 1 offset count 0", 4, EXP_REJECT },
					{ "FRE 1 offset count 4", 5, EXP_REJECT },
					{ "FRE 1 offset count 15", 6, EXP_REJECT },
					{ "FRE 1 offset size code 3", 7, EXP_REJECT },
					{ "FRE 1 offset count 3 (misparse)", 8, EXP_ANY },
					{ "FRE 1 mangled-RA bit", 9, EXP_VALID },
				};

				for (ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
					uint8_t *d = malloc(s->size), tmp[4];
					char what[96];
					unsigned int b;

					memcpy(d, s->data, s->size);
					switch (cases[ci].kind) {
					case 0:
						memcpy(tmp, d + f0, as);
						memcpy(d + f0, d + f1, as);
						memcpy(d + f1, tmp, as);
						break;
					case 1:
						memcpy(d + f1, d + f0, as);
						break;
					case 2:
						for (b = 0; b < as; b++)
							d[fl + b] = fsize >> (8 * b);
						break;
					case 3:
						memset(d + fl, 0xff, as);
						break;
					case 4:
						d[f1 + as] = info1 & ~0x1e;
						break;
					case 5:
						d[f1 + as] = (info1 & ~0x1e) | 4 << 1;
						break;
					case 6:
						d[f1 + as] = info1 | 0x1e;
						break;
					case 7:
						d[f1 + as] = info1 | 0x60;
						break;
					case 8:
						d[f1 + as] = (info1 & ~0x1e) | 3 << 1;
						break;
					case 9:
						d[f1 + as] = info1 ^ 0x80;
						break;
					}
					snprintf(what, sizeof(what), "FDE %u: %s",
						 i, cases[ci].what);
					run_case(&g, s, sec_pcs[si],
						 sec_npcs[si], d, s->size,
						 cases[ci].exp, what);
					free(d);
				}
			}
		}
	}
	group_end(&g);
}

static void test_mutations(uint64_t seed, unsigned int per_section)
{
	static const uint32_t interesting[] = {
		0, 1, 2, 16, 17, 20, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000,
		0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xfffffffe,
		0xffffffff,
	};
	unsigned long runs = 0, before = exercise_stats.failures;
	unsigned long init0 = exercise_stats.init_ok;
	unsigned long val0 = exercise_stats.validate_ok;
	unsigned long look0 = exercise_stats.lookups;
	unsigned long model0 = exercise_stats.model_checked;
	struct rng r;
	unsigned int si, it;

	rng_seed(&r, seed);
	hostshim_reset_stats();
	for (si = 0; si < nsecs; si++) {
		struct section *s = &secs[si];

		for (it = 0; it < per_section; it++) {
			size_t size = s->size, k, nmut = 1 + rng_below(&r, 4);
			uint8_t *d = malloc(size + 64);

			memcpy(d, s->data, size);
			for (k = 0; k < nmut; k++) {
				size_t pos;

				switch (rng_below(&r, 8)) {
				case 0:	/* bit flip anywhere */
					pos = rng_below(&r, size);
					d[pos] ^= 1u << rng_below(&r, 8);
					break;
				case 1:	/* random byte in the header */
					d[rng_below(&r, HDR_SIZE)] = rng_next(&r);
					break;
				case 2:	/* interesting u32 anywhere */
					pos = rng_below(&r, size - 3);
					put_u32(d + pos, interesting[rng_below(&r,
						sizeof(interesting) / sizeof(interesting[0]))]);
					break;
				case 3:	/* interesting u32 in a header field */
					pos = 8 + 4 * rng_below(&r, 5);
					put_u32(d + pos, interesting[rng_below(&r,
						sizeof(interesting) / sizeof(interesting[0]))]);
					break;
				case 4:	/* truncate */
					size = rng_below(&r, size) + 1;
					if (size < HDR_SIZE + 4)
						size = HDR_SIZE + 4 < s->size ?
						       HDR_SIZE + 4 : s->size;
					break;
				case 5:	/* random byte anywhere */
					d[rng_below(&r, size)] = rng_next(&r);
					break;
				case 6:	/* small delta to a u32 anywhere */
					pos = rng_below(&r, size - 3);
					put_u32(d + pos, get_u32(d + pos) +
						(uint32_t)rng_below(&r, 9) - 4);
					break;
				case 7:	/* copy a chunk over another */
					{
						size_t a = rng_below(&r, size),
						       b = rng_below(&r, size),
						       n = rng_below(&r, 24);

						if (a + n > size)
							n = size - a;
						if (b + n > size)
							n = size - b;
						memmove(d + b, d + a, n);
					}
					break;
				}
			}
			exercise(d, size);
			runs++;
			free(d);
		}
	}
	diag("random mutations: %lu sections run (seed %llu): %lu accepted by init, %lu by validate, %lu lookups, %lu compared with the model, %lu invariant failures, %lu out-of-section reads",
	     runs, (unsigned long long)seed, exercise_stats.init_ok - init0,
	     exercise_stats.validate_ok - val0, exercise_stats.lookups - look0,
	     exercise_stats.model_checked - model0,
	     exercise_stats.failures - before, hostshim_stats.violations);
	tap_result(exercise_stats.failures == before &&
		   !hostshim_stats.violations,
		   "random mutations: every invariant holds, no read outside the section");
}

/*
 * One v2 function with @n FREs (2-byte start addresses 0, 2, 4, ...; one
 * 1-byte CFA offset each: sp + (j & 0x7f)).
 */
static uint8_t *many_fres(uint32_t n, uint64_t vaddr, uint64_t func,
			  size_t *size)
{
	size_t fre_len = (size_t)n * 4, total = HDR_SIZE + FDE_V2_SIZE + fre_len;
	uint8_t *b = calloc(1, total), *p;
	uint32_t j;

	put_u16(b, 0xdee2);
	b[2] = 2;
	b[3] = F_SORTED;
	b[4] = 3;
	b[6] = (uint8_t)-8;
	put_u32(b + 8, 1);
	put_u32(b + 12, n);
	put_u32(b + 16, fre_len);
	put_u32(b + 20, 0);
	put_u32(b + 24, FDE_V2_SIZE);
	p = b + HDR_SIZE;
	put_u32(p, (uint32_t)(func - vaddr));
	put_u32(p + 4, 2 * n);
	put_u32(p + 8, 0);
	put_u32(p + 12, n);
	p[16] = 1;		/* ADDR2, PCINC */
	p = b + HDR_SIZE + FDE_V2_SIZE;
	for (j = 0; j < n; j++, p += 4) {
		put_u16(p, 2 * j);
		p[2] = 1 | 1 << 1;	/* SP, 1 offset, 1 byte */
		p[3] = j & 0x7f;
	}
	*size = total;
	return b;
}

/*
 * The work sframe_table_validate() does must be bounded by the size of the
 * section: each FRE takes at least 3 bytes (start, info, one offset), so a
 * well-formed section needs at most 1 + num_fdes + fre_len / 3 reads. FDEs
 * that all point at the same FREs must not multiply that: here 2000 FDEs
 * share one function's 8192 FREs (73 KB of section).
 */
static void test_validate_work(void)
{
	const uint32_t nfdes = 2000, nfres = 8192;
	uint64_t vaddr = 0x800000, func = 0x400000;
	size_t fre_len = (size_t)nfres * 4;
	size_t size = HDR_SIZE + (size_t)nfdes * FDE_V2_SIZE + fre_len;
	uint8_t *b = calloc(1, size), *p;
	unsigned long bound = 1 + nfdes + fre_len / 3 + 16;
	struct ktable kt;
	uint32_t i;
	int ri, rv;

	put_u16(b, 0xdee2);
	b[2] = 2;
	b[3] = F_SORTED;
	b[4] = 3;
	b[6] = (uint8_t)-8;
	put_u32(b + 8, nfdes);
	put_u32(b + 12, nfres);
	put_u32(b + 16, fre_len);
	put_u32(b + 20, 0);
	put_u32(b + 24, nfdes * FDE_V2_SIZE);
	for (i = 0; i < nfdes; i++) {
		p = b + HDR_SIZE + i * FDE_V2_SIZE;
		put_u32(p, (uint32_t)(func - vaddr));	/* same function */
		put_u32(p + 4, 2 * nfres);
		put_u32(p + 8, 0);			/* same FREs */
		put_u32(p + 12, nfres);
		p[16] = 1;
	}
	p = b + HDR_SIZE + nfdes * FDE_V2_SIZE;
	for (i = 0; i < nfres; i++, p += 4) {
		put_u16(p, 2 * i);
		p[2] = 1 | 1 << 1;
		p[3] = 8;
	}
	ri = kt_init(&kt, b, size, vaddr, func, func + 2 * nfres, 3);
	hostshim_reset_stats();
	rv = ri ? ri : kt_validate(&kt);
	diag("validation work: %zu-byte section, %u FDEs sharing %u FREs: init %d, validate %d after %lu reads (bound %lu)",
	     size, nfdes, nfres, ri, rv, hostshim_stats.reads, bound);
	tap_result(!ri && hostshim_stats.reads <= bound &&
		   !hostshim_stats.violations,
		   "validation work bounded by the section size (%lu reads for %zu bytes; at most %lu)",
		   hostshim_stats.reads, size, bound);
	kt_free(&kt);
	free(b);
}

/* The validation's cap on FREs per function (8192) bounds every lookup. */
static void test_fre_limit(void)
{
	static const struct {
		uint32_t n;
		int validate, last;
	} c[] = {
		{ 8191, 0, 0 }, { 8192, 0, 0 }, { 8193, -EINVAL, -EINVAL },
		{ 100000, -EINVAL, -EINVAL },
	};
	uint64_t vaddr = 0x800000, func = 0x400000;
	unsigned int i;
	bool ok = true;

	hostshim_reset_stats();
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct ktable kt;
		struct res r;
		size_t size;
		uint8_t *b = many_fres(c[i].n, vaddr, func, &size);
		int ri, rv;

		ri = kt_init(&kt, b, size, vaddr, func, func + 2 * c[i].n,
			     3);
		rv = ri ? ri : kt_validate(&kt);
		kt_find_res(&kt, func + 2 * (c[i].n - 1), &r);
		if (ri || rv != c[i].validate || r.rc != c[i].last ||
		    (!r.rc && r.f.cfa_off != (int)((c[i].n - 1) & 0x7f))) {
			ok = false;
			diag("  FAIL %u FREs in one function: init %d, validate %d (expected %d), lookup of the last row %s (expected rc %d)",
			     c[i].n, ri, rv, c[i].validate, res_str(&r),
			     c[i].last);
		}
		kt_free(&kt);
		free(b);
	}
	tap_result(ok && !hostshim_stats.violations,
		   "FREs per function: 8192 accepted, 8193 and more rejected by validate and lookup");
}

/*
 * User space owns the section and can change it at any time: after
 * sframe_table_init() (the validation must notice a changed header) and
 * after sframe_table_validate() (lookups must stay inside the section and
 * fail cleanly).
 */
static void test_changed_after_check(uint64_t seed)
{
	struct group g = { .title = "section changed after init / after validation: detected or safe" };
	static const unsigned int hdr_fields[] = { 2, 3, 5, 6, 7, 8, 16, 20, 24 };
	unsigned int si, k, it;
	struct rng r;

	rng_seed(&r, seed);
	for (si = 0; si < nsecs; si++) {
		struct section *s = &secs[si];
		struct ktable kt;
		char what[96], det[160];
		int rv;

		/* Each header field the table depends on, changed after init. */
		for (k = 0; k < sizeof(hdr_fields) / sizeof(hdr_fields[0]); k++) {
			unsigned int off = hdr_fields[k];

			g.cases++;
			hostshim_reset_stats();
			if (kt_init_section(&kt, s)) {
				group_fail(&g, s->name, "init", "failed");
				free(kt.buf);
				continue;
			}
			if (off < 8)
				kt.buf[off] ^= off == 3 ? 0x2 : 0x1;
			else
				put_u32(kt.buf + off, get_u32(kt.buf + off) - 1);
			rv = kt_validate(&kt);
			snprintf(what, sizeof(what),
				 "header byte %u changed after init", off);
			if (rv != -EINVAL) {
				snprintf(det, sizeof(det),
					 "validate returned %d, expected -EINVAL",
					 rv);
				group_fail(&g, s->name, what, det);
			} else {
				g.by_validate++;
			}
			g.violations += hostshim_stats.violations;
			kt_free(&kt);
		}

		/* Random changes after a successful validation. */
		hostshim_reset_stats();
		if (kt_init_section(&kt, s) || kt_validate(&kt)) {
			group_fail(&g, s->name, "baseline", "not valid");
			free(kt.buf);
			continue;
		}
		for (it = 0; it < 100; it++) {
			unsigned int n = 1 + rng_below(&r, 8), j;
			size_t i;

			g.cases++;
			memcpy(kt.buf, s->data, s->size);
			for (j = 0; j < n; j++) {
				size_t pos = HDR_SIZE + rng_below(&r, s->size - HDR_SIZE);

				if (rng_below(&r, 2) && pos + 4 <= s->size)
					put_u32(kt.buf + pos, (uint32_t)rng_next(&r) >>
						(rng_below(&r, 4) * 8));
				else
					kt.buf[pos] = rng_next(&r);
			}
			for (i = 0; i < sec_npcs[si]; i++) {
				struct res res;

				kt_find_res(&kt, sec_pcs[si][i], &res);
				g.lookups++;
				if (!rc_sane(res.rc) || res.rc == -EFAULT) {
					snprintf(det, sizeof(det),
						 "lookup at %#llx: %s",
						 (unsigned long long)sec_pcs[si][i],
						 res_str(&res));
					group_fail(&g, s->name,
						   "changed after validation", det);
					break;
				}
			}
		}
		if (hostshim_stats.violations)
			group_fail(&g, s->name, "changed after validation",
				   "read outside the section");
		g.violations += hostshim_stats.violations;
		kt_free(&kt);
	}
	group_end(&g);
}

/* The shim itself: out-of-range reads, faults and atomic mode are caught. */
static void test_shim(void)
{
	uint8_t buf[64], dst[16];
	bool ok = true;
	unsigned int i;
	long r;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = i;
	hostshim_reset_stats();
	hostshim_set_quiet(true);
	hostshim_allow(buf + 8, buf + 40);
	ok &= copy_from_user(dst, buf + 8, 16) == 0 && dst[0] == 8 &&
	      dst[15] == 23;
	ok &= copy_from_user_nofault(dst, buf + 32, 8) == 0 && dst[7] == 39;
	ok &= hostshim_stats.violations == 0;
	ok &= copy_from_user(dst, buf + 4, 8) == 8;		/* before */
	ok &= copy_from_user_nofault(dst, buf + 36, 8) == -EFAULT; /* across end */
	ok &= copy_from_user_nofault(dst, buf + 40, 1) == -EFAULT; /* at end */
	ok &= hostshim_stats.violations == 3;
	hostshim_fault_range(buf + 20, buf + 40);
	memset(dst, 0xee, sizeof(dst));
	r = copy_from_user(dst, buf + 16, 8);
	ok &= r == 4 && dst[3] == 19 && dst[4] == 0 && dst[7] == 0;
	ok &= copy_from_user_nofault(dst, buf + 16, 8) == -EFAULT;
	ok &= copy_from_user_nofault(dst, buf + 8, 12) == 0;
	hostshim_fault_all();
	ok &= copy_from_user_nofault(dst, buf + 8, 1) == -EFAULT;
	hostshim_fault_none();
	ok &= hostshim_stats.faults == 3 && hostshim_stats.violations == 3;
	hostshim_set_atomic(true);
	ok &= copy_from_user_nofault(dst, buf + 8, 4) == 0;
	ok &= hostshim_stats.violations == 3;
	(void)!copy_from_user(dst, buf + 8, 4);		/* forbidden here */
	ok &= hostshim_stats.violations == 4;
	hostshim_set_atomic(false);
	hostshim_allow_none();
	(void)!copy_from_user_nofault(dst, buf + 8, 4);
	ok &= hostshim_stats.violations == 5;
	hostshim_set_quiet(false);
	tap_result(ok, "shim self-test: out-of-section reads, injected faults and faulting copies in lookups are caught");
}

int main(int argc, char **argv)
{
	uint64_t seed = 20240602;
	unsigned int mutations = 300;
	int opt, i;

	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "mutations", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'm':
			mutations = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [--seed N] [--mutations N] NAME=ELF...\n",
				argv[0]);
			return 2;
		}
	}
	watchdog(900, "malformed_test");
	hostshim_set_mode(HOSTSHIM_RECORD);

	/* Each ELF's section as v1, and rewritten as v2 with PCREL starts. */
	secs = calloc(2 * (argc + 1), sizeof(*secs));
	for (i = optind; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		struct section *s = &secs[nsecs];
		struct gen_layout l2 = { .version = 2, .pcrel = true };
		size_t size2;
		uint8_t *b2;

		if (!eq) {
			fprintf(stderr, "argument %s: expected NAME=ELF\n",
				argv[i]);
			return 2;
		}
		*eq = 0;
		if (section_load_elf(s, eq + 1, argv[i])) {
			tap_result(false, "%s: load .sframe", argv[i]);
			continue;
		}
		nsecs++;
		b2 = convert_v1(s->data, s->size, s->vaddr, &l2, &size2);
		if (b2) {
			struct section *v2 = &secs[nsecs++];

			*v2 = *s;
			snprintf(v2->name, sizeof(v2->name), "%s.v2pcrel",
				 argv[i]);
			v2->data = b2;
			v2->size = size2;
		}
	}
	sec_pcs = calloc(nsecs + 1, sizeof(*sec_pcs));
	sec_npcs = calloc(nsecs + 1, sizeof(*sec_npcs));
	for (i = 0; i < (int)nsecs; i++) {
		sec_pcs[i] = malloc(MAX_PCS * sizeof(uint64_t));
		sec_npcs[i] = derive_pcs(secs[i].data, secs[i].size,
					 secs[i].vaddr, sec_pcs[i], MAX_PCS);
	}
	diag("%u sections (v1 and v2-PCREL of each ELF)", nsecs);

	test_shim();
	test_truncation();
	test_faults();
	test_header();
	test_fdes();
	test_fres();
	test_fre_limit();
	test_validate_work();
	test_changed_after_check(seed);
	test_mutations(seed, mutations);
	return tap_failures ? 1 : 0;
}
