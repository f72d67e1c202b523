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
 *  - an FRE without offsets is valid and gives the outermost frame;
 *  - the header's num_fres is checked: at most fre_len / 2 (init), and
 *    at least the rows all FDEs claim, summed in order (validate), which
 *    bounds the validation's work by the section size;
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
		if (!rc_refused(ri)) {
			snprintf(det, sizeof(det), "init returned %d", ri);
			group_fail(g, s->name, what, det);
		}
	} else {
		rv = kt_validate(&kt);
		if (rv)
			g->by_validate++;
		else
			g->accepted++;
		if (rv && !rc_refused(rv)) {
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
		if (!rc_refused(ri))
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
	uint32_t num_fdes, num_fres, fre_len;
};

static void parse(const struct section *s, struct layout *l)
{
	const uint8_t *d = s->data;

	l->version = d[2];
	l->fde_size = l->version == 1 ? FDE_V1_SIZE : FDE_V2_SIZE;
	l->hdr_size = HDR_SIZE + d[7];
	l->num_fdes = get_u32(d + 8);
	l->num_fres = get_u32(d + 12);
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
				/* a v1/v2 layout read as v3: 16-byte index entries */
				{ "version 3", 2, 1, 3, 0, EXP_REJECT },
				{ "version 4", 2, 1, 4, 0, EXP_INIT },
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
				/*
				 * num_fres bounds the rows of all FDEs together
				 * (validate) and needs 2 bytes of FRE data per
				 * row (init).
				 */
				{ "num_fres 0", 12, 4, 0, 0, l.num_fres ? EXP_REJECT : EXP_VALID },
				{ "num_fres - 1", 12, 4, (uint32_t)-1, 1, l.num_fres ? EXP_REJECT : EXP_INIT },
				{ "num_fres + 1", 12, 4, 1, 1, l.num_fres < l.fre_len / 2 ? EXP_VALID : EXP_INIT },
				{ "num_fres = fre_len / 2", 12, 4, l.fre_len / 2, 0, l.num_fres <= l.fre_len / 2 ? EXP_VALID : EXP_REJECT },
				{ "num_fres = fre_len / 2 + 1", 12, 4, l.fre_len / 2 + 1, 0, EXP_INIT },
				{ "num_fres 0x7fffffff", 12, 4, 0x7fffffff, 0, EXP_INIT },
				{ "num_fres 0xffffffff", 12, 4, 0xffffffff, 0, EXP_INIT },
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

/* Target address of the function of the FDE at @fde. */
static uint64_t fde_func(const struct section *s, size_t fde)
{
	uint64_t base = s->vaddr + (s->data[3] & F_PCREL ? fde : 0);

	return base + (int64_t)(int32_t)get_u32(s->data + fde);
}

static uint32_t fre_start(const uint8_t *d, size_t fre, unsigned int as)
{
	uint32_t v = 0;
	unsigned int b;

	for (b = 0; b < as; b++)
		v |= (uint32_t)d[fre + b] << (8 * b);
	return v;
}

/*
 * Into @d (a copy of @s, FDE table before the FREs): FRE @f1 of the FDE at
 * @fde made an outermost row the way an assembler would write it, offset
 * count 0 and no offset bytes; fre_len and the later FDEs' fres_off follow.
 * Returns the new section size.
 */
static size_t outermost_fre(const struct section *s, const struct layout *l,
			    size_t fde, uint8_t *d, size_t f1)
{
	unsigned int as = fre_addr_size(s->data[fde + 16]);
	uint8_t info = s->data[f1 + as];
	size_t cut = f1 + as + 1;
	size_t gone = ((info >> 1) & 0xf) * (1u << ((info >> 5) & 3));
	uint32_t i;

	if (l->fdes >= l->fres)
		return s->size;
	memcpy(d, s->data, cut);
	memcpy(d + cut, s->data + cut + gone, s->size - cut - gone);
	d[f1 + as] = info & ~0x1e;
	put_u32(d + 16, l->fre_len - gone);
	for (i = 0; i < l->num_fdes; i++) {
		size_t at = fde_at(l, i);

		if (l->fres + get_u32(d + at + 8) > f1)
			put_u32(d + at + 8, get_u32(d + at + 8) - gone);
	}
	return s->size - gone;
}

/*
 * On the section outermost_fre() made: FRE 1's rows are the outermost
 * frame, FRE 0's and FRE 2's are what they were.
 */
static void check_outermost_fre(struct group *g, const struct section *s,
				const struct layout *l, size_t fde,
				const uint8_t *d, size_t size, const char *what)
{
	unsigned int as = fre_addr_size(s->data[fde + 16]), j;
	uint64_t func = fde_func(s, fde);
	struct ktable ko, kn;
	char det[200];
	int ro, rn;

	hostshim_reset_stats();
	ro = kt_init_section(&ko, s);
	ro = ro ? ro : kt_validate(&ko);
	rn = kt_init(&kn, d, size, s->vaddr, s->text_lo, s->text_hi, s->abi);
	rn = rn ? rn : kt_validate(&kn);
	if (ro || rn) {
		snprintf(det, sizeof(det),
			 "original: init/validate %d, rewritten: %d", ro, rn);
		group_fail(g, s->name, what, det);
	}
	for (j = 0; !ro && !rn && j < 3; j++) {
		uint64_t pc = func + fre_start(s->data,
					       fre_at(s->data, l, fde, j), as);
		struct res o, n, want = { .rc = 0, .f.outermost = true };

		g->lookups += 2;
		kt_find_res(&ko, pc, &o);
		kt_find_res(&kn, pc, &n);
		if (!res_eq(&n, j == 1 ? &want : &o)) {
			snprintf(det, sizeof(det),
				 "lookup of FRE %u at %#llx: %s, expected %s",
				 j, (unsigned long long)pc, res_str(&n),
				 res_str(j == 1 ? &want : &o));
			group_fail(g, s->name, what, det);
		}
	}
	g->violations += hostshim_stats.violations;
	kt_free(&ko);
	kt_free(&kn);
}

static void test_fres(void)
{
	struct group g = { .title = "corrupted FREs (out of order, past the function, bad encodings): rejected; an outermost FRE (no offsets) accepted" };
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
					/* Its offsets now parse as the next FREs. */
					{ "FRE 1 offset count 0 (misparse)", 4, EXP_ANY },
					{ "FRE 1 offset count 4", 5, EXP_REJECT },
					{ "FRE 1 offset count 15", 6, EXP_REJECT },
					{ "FRE 1 offset size code 3", 7, EXP_REJECT },
					{ "FRE 1 offset count 3 (misparse)", 8, EXP_ANY },
					{ "FRE 1 mangled-RA bit", 9, EXP_VALID },
					{ "FRE 1 outermost (offset count 0, offsets removed)", 10,
					  l.fdes < l.fres ? EXP_VALID : EXP_ANY },
					{ "FRE 1 offset count 0, offset size code 3", 11, EXP_REJECT },
				};

				for (ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
					uint8_t *d = malloc(s->size), tmp[4];
					size_t size = s->size;
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
					case 10:
						size = outermost_fre(s, &l, at, d, f1);
						break;
					case 11:
						d[f1 + as] = (info1 & ~0x1e) | 0x60;
						break;
					}
					snprintf(what, sizeof(what), "FDE %u: %s",
						 i, cases[ci].what);
					run_case(&g, s, sec_pcs[si],
						 sec_npcs[si], d, size,
						 cases[ci].exp, what);
					if (cases[ci].kind == 10 && l.fdes < l.fres)
						check_outermost_fre(&g, s, &l, at, d,
								    size, what);
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
 * @nfdes v2 FDEs that all describe the same function at @func with the same
 * @nrows FREs (2-byte starts 0, 2, 4, ...; one 1-byte CFA offset each),
 * and @pad bytes after the FREs inside the FRE sub-section. Header
 * num_fres: @num_fres.
 */
static uint8_t *shared_fres(uint32_t nfdes, uint32_t nrows, uint32_t pad,
			    uint32_t num_fres, uint64_t vaddr, uint64_t func,
			    size_t *size)
{
	size_t fre_len = (size_t)nrows * 4 + pad;
	size_t total = HDR_SIZE + (size_t)nfdes * FDE_V2_SIZE + fre_len;
	uint8_t *b = calloc(1, total), *p;
	uint32_t i;

	put_u16(b, 0xdee2);
	b[2] = 2;
	b[3] = F_SORTED;
	b[4] = 3;
	b[6] = (uint8_t)-8;
	put_u32(b + 8, nfdes);
	put_u32(b + 12, num_fres);
	put_u32(b + 16, fre_len);
	put_u32(b + 20, 0);
	put_u32(b + 24, nfdes * FDE_V2_SIZE);
	for (i = 0; i < nfdes; i++) {
		p = b + HDR_SIZE + i * FDE_V2_SIZE;
		/* one function after the other */
		put_u32(p, (uint32_t)(func + (uint64_t)i * 2 * nrows - vaddr));
		put_u32(p + 4, 2 * nrows);
		put_u32(p + 8, 0);			/* same FREs */
		put_u32(p + 12, nrows);
		p[16] = 1;
	}
	p = b + HDR_SIZE + nfdes * FDE_V2_SIZE;
	for (i = 0; i < nrows; i++, p += 4) {
		put_u16(p, 2 * i);
		p[2] = 1 | 1 << 1;
		p[3] = 8;
	}
	*size = total;
	return b;
}

/*
 * The work sframe_table_validate() does must be bounded by the size of the
 * section: it reads the header, each FDE once and each row the FDEs claim
 * once, and the rows claimed may not exceed the header's num_fres, itself
 * at most fre_len / 2 (an FRE without offsets takes 2 bytes). So at most
 * 1 + num_fdes + fre_len / 2 reads; building the table reads each row
 * twice more (start and offsets). FDEs that share rows are allowed but
 * pay for each use with the header's count, so with fre_len:
 *  - 2000 FDEs sharing one function's 8192 FREs (73 KB of section), the
 *    header counting the 8192 rows there are: rejected at the second FDE;
 *  - the same with the header claiming every use (2000 * 8192): rejected
 *    by init, the FRE data cannot hold that many rows;
 *  - 2000 FDEs sharing 8 FREs, the FRE sub-section padded to hold the
 *    16000 rows the header claims: valid, within the bound.
 */
static void test_validate_work(void)
{
	static const struct {
		uint32_t nfdes, nrows, pad, num_fres;
		int init, validate;
	} c[] = {
		{ 2000, 8192, 0, 8192, 0, -EINVAL },
		{ 2000, 8192, 0, 2000 * 8192, -EINVAL, 0 },
		{ 2000, 8, 2 * 16000 - 8 * 4, 16000, 0, 0 },
	};
	uint64_t vaddr = 0x800000, func = 0x400000;
	unsigned long worst = 0;
	unsigned int i;
	bool ok = true;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		size_t size, fre_len = (size_t)c[i].nrows * 4 + c[i].pad;
		uint8_t *b = shared_fres(c[i].nfdes, c[i].nrows, c[i].pad,
					 c[i].num_fres, vaddr, func, &size);
		/*
		 * the descriptors read once to size the table, validated
		 * once, and the rows put in the table read twice
		 */
		unsigned long bound = 1 + 2 * c[i].nfdes + 3 * (fre_len / 2) + 16;
		struct ktable kt;
		int ri, rv = 0;

		ri = kt_init(&kt, b, size, vaddr, func,
			     func + 2ull * c[i].nrows * c[i].nfdes, 3);
		hostshim_reset_stats();
		if (!ri)
			rv = kt_validate(&kt);
		diag("validation work: %zu-byte section, %u FDEs sharing %u FREs, header num_fres %u: init %d, validate %d after %lu reads (bound %lu)",
		     size, c[i].nfdes, c[i].nrows, c[i].num_fres, ri, rv,
		     hostshim_stats.reads, bound);
		if (ri != c[i].init || rv != c[i].validate ||
		    hostshim_stats.reads > bound || hostshim_stats.violations) {
			ok = false;
			diag("  FAIL: expected init %d, validate %d, at most %lu reads",
			     c[i].init, c[i].validate, bound);
		}
		if (hostshim_stats.reads > worst)
			worst = hostshim_stats.reads;
		kt_free(&kt);
		free(b);
	}
	tap_result(ok, "validation work bounded by the section size: FDEs sharing rows pay with num_fres, itself bounded by fre_len (at most %lu reads)",
		   worst);
}

/*
 * The validation stops where its copy of the section fails (a fault in the
 * middle of the descriptor table stops it there), and at the next check
 * for a fatal signal: between descriptors, or between rows of one
 * function.
 */
static void test_validate_stops(void)
{
	struct group g = { .title = "validation stops at a read that fails, and on a fatal signal" };
	struct sframe_build v;
	unsigned int si;
	uint8_t *b;
	size_t size;
	struct ktable kt;
	unsigned long full;
	int rv;

	for (si = 0; si < nsecs; si++) {
		struct section *s = &secs[si];
		struct layout l;
		uint32_t k;
		char det[128];

		parse(s, &l);
		if (l.num_fdes < 4 || kt_init_section(&kt, s))
			continue;
		k = l.num_fdes / 2;
		g.cases++;
		memset(&v, 0, sizeof(v));
		hostshim_allow(kt.buf, kt.buf + kt.size);
		hostshim_fault_range(kt.buf + fde_at(&l, k),
				     kt.buf + fde_at(&l, k) + l.fde_size);
		rv = sframe_table_build(&kt.tbl, &v);
		if (rv != -EFAULT || v.next_fde != k) {
			snprintf(det, sizeof(det), "validate %d at FDE %u, expected -EFAULT at %u",
				 rv, v.next_fde, k);
			group_fail(&g, s->name, "fault at FDE k", det);
		}
		hostshim_fault_none();

		/* A fatal signal pending from the start, then gone. */
		memset(&v, 0, sizeof(v));
		hostshim_fatal_countdown = 0;
		rv = sframe_table_build(&kt.tbl, &v);
		hostshim_fatal_countdown = -1;
		if (rv != -EINTR || v.next_fde) {
			snprintf(det, sizeof(det), "validate %d at FDE %u", rv,
				 v.next_fde);
			group_fail(&g, s->name, "fatal signal", det);
		}
		rv = sframe_table_validate(&kt.tbl);
		if (rv) {
			snprintf(det, sizeof(det), "validate %d after the signal", rv);
			group_fail(&g, s->name, "fatal signal gone", det);
		}
		hostshim_allow_none();
		kt_free(&kt);
	}

	/* One function of 8192 rows: the signal stops it between rows. */
	b = many_fres(8192, 0x800000, 0x400000, &size);
	g.cases++;
	if (kt_init(&kt, b, size, 0x800000, 0x400000, 0x400000 + 2 * 8192, 3)) {
		group_fail(&g, "8192 rows", "init", "failed");
	} else {
		hostshim_reset_stats();
		rv = kt_validate(&kt);
		full = hostshim_stats.reads;
		memset(&v, 0, sizeof(v));
		hostshim_reset_stats();
		/* the check before the descriptor passes, the next one not */
		hostshim_fatal_countdown = 1;
		hostshim_allow(kt.buf, kt.buf + kt.size);
		rv = sframe_table_build(&kt.tbl, &v) ?: rv;
		hostshim_allow_none();
		hostshim_fatal_countdown = -1;
		diag("validation of 8192 rows: %lu reads; stopped by a fatal signal after %lu (%d)",
		     full, hostshim_stats.reads, rv);
		if (rv != -EINTR || v.next_fde || hostshim_stats.reads * 4 > full)
			group_fail(&g, "8192 rows", "fatal signal between rows",
				   "not stopped within the first quarter");
		kt_free(&kt);
	}
	free(b);

	/*
	 * 3000 functions of 8 rows each: the signal stops it between
	 * functions within 1024 rows, not only every 1024 functions.
	 */
	b = shared_fres(3000, 8, 48000, 24000, 0x800000, 0x400000, &size);
	g.cases++;
	if (kt_init(&kt, b, size, 0x800000, 0x400000, 0x400000 + 3000 * 16, 3)) {
		group_fail(&g, "3000 functions", "init", "failed");
	} else {
		memset(&v, 0, sizeof(v));
		hostshim_fatal_countdown = 1;
		hostshim_allow(kt.buf, kt.buf + kt.size);
		rv = sframe_table_build(&kt.tbl, &v);
		hostshim_allow_none();
		hostshim_fatal_countdown = -1;
		diag("validation of 3000 functions of 8 rows: stopped by a fatal signal at function %u, row %llu (%d)",
		     v.next_fde, (unsigned long long)v.fres, rv);
		if (rv != -EINTR || v.fres > 1024 + 8)
			group_fail(&g, "3000 functions", "fatal signal between functions",
				   "not stopped within 1024 rows");
		kt_free(&kt);
	}
	free(b);
	group_end(&g);
}

/*
 * An FRE without offsets (offset count 0, SFrame v2 erratum) marks the
 * outermost frame: validation accepts it (its size is address size + 1),
 * a lookup in its rows returns 0 with only @outermost set -- not the
 * header's fixed RA/FP offsets, not the info byte's base register or
 * mangled-RA bit. Offset size code 3 stays invalid, even without offsets.
 */
static void test_outermost(void)
{
	static const struct gen_layout layouts[] = {
		{ .version = 1 },
		{ .version = 2 },
		{ .version = 2, .pcrel = true, .auxhdr_len = 3,
		  .fres_first = true, .gap = 1 },
	};
	/* info: count << 1 | size code << 5 | base reg SP (1) | mangled RA */
	const uint8_t out_noisy = 0 << 1 | 2 << 5 | 1 | 0x80;
	const uint64_t vaddr = 0x10000, a = 0x400000, m = 0x400100;
	struct gen g = { .abi = 3, .fixed_ra = -8, .fixed_fp = 0, .num_fdes = 2 };
	struct gen_fde *fd = calloc(2, sizeof(*fd));
	struct res want_out = { .rc = 0, .f.outermost = true };
	unsigned long checked = 0, outer = 0;
	unsigned int li, k;
	bool ok = true;
	char det[200];

	g.fdes = fd;
	/* A: ADDR1 PCINC, 0x40 bytes: outermost, sp+16, outermost, fp+16. */
	fd[0].start = a;
	fd[0].size = 0x40;
	fd[0].info = 0;
	fd[0].num_fres = 4;
	fd[0].fres[0] = (struct gen_fre){ 0x00, 0 << 1, { 0 } };
	fd[0].fres[1] = (struct gen_fre){ 0x04, 1 | 1 << 1, { 16 } };
	fd[0].fres[2] = (struct gen_fre){ 0x10, out_noisy, { 0 } };
	fd[0].fres[3] = (struct gen_fre){ 0x20, 0 | 2 << 1, { 16, -16 } };
	/* M: ADDR2 PCMASK, blocks of 16 bytes: sp+8, outermost from 8 on. */
	fd[1].start = m;
	fd[1].size = 0x40;
	fd[1].info = 1 | 0x10;
	fd[1].rep_size = 16;
	fd[1].num_fres = 2;
	fd[1].fres[0] = (struct gen_fre){ 0, 1 | 1 << 1, { 8 } };
	fd[1].fres[1] = (struct gen_fre){ 8, 0 << 1 | 1 << 5, { 0 } };

	hostshim_reset_stats();
	for (li = 0; li < sizeof(layouts) / sizeof(layouts[0]); li++) {
		struct ktable kt;
		size_t size;
		uint8_t *b = gen_write(&g, &layouts[li], vaddr, &size);
		int ri, rv;
		uint64_t pc;

		ri = kt_init(&kt, b, size, vaddr, a, m + 0x40, g.abi);
		rv = ri ? ri : kt_validate(&kt);
		if (ri || rv) {
			ok = false;
			diag("  FAIL layout %u: init %d, validate %d", li, ri, rv);
		}
		for (pc = a - 1; !rv && pc <= m + 0x40; pc++) {
			struct res got, exp = { .rc = -ENOENT };
			uint64_t o = pc - a, mo = (pc - m) % 16;

			if (pc >= a && pc < a + 0x40) {
				exp.rc = 0;
				if (o < 0x04 || (o >= 0x10 && o < 0x20)) {
					exp = want_out;
				} else if (o < 0x10) {
					exp.f = (struct unwind_user_frame){
						.cfa_off = 16, .ra_off = -8,
						.ra_saved = true };
				} else {
					exp.f = (struct unwind_user_frame){
						.cfa_off = 16, .ra_off = -8,
						.fp_off = -16, .use_fp = true,
						.ra_saved = true,
						.fp_saved = true };
				}
			} else if (pc >= m && pc < m + 0x40) {
				if (mo >= 8)
					exp = want_out;
				else
					exp.f = (struct unwind_user_frame){
						.cfa_off = 8, .ra_off = -8,
						.ra_saved = true };
				exp.rc = 0;
			}
			/* The independent model says the same. */
			{
				struct res mod;

				gen_model(&g, layouts[li].version, pc, &mod);
				if (!res_eq(&mod, &exp)) {
					ok = false;
					diag("  FAIL model at %#llx: %s, expected %s",
					     (unsigned long long)pc,
					     res_str(&mod), res_str(&exp));
				}
			}
			kt_find_res(&kt, pc, &got);
			checked++;
			outer += !got.rc && got.f.outermost;
			if (!res_eq(&got, &exp)) {
				ok = false;
				diag("  FAIL layout %u: lookup at %#llx: %s, expected %s",
				     li, (unsigned long long)pc, res_str(&got),
				     res_str(&exp));
				break;
			}
		}
		kt_free(&kt);
		free(b);
	}

	/*
	 * Offset size code 3 without offsets, and more than 3 offsets, stay
	 * invalid: validate and a lookup reaching the row reject them.
	 */
	for (k = 0; k < 3; k++) {
		static const uint8_t bad[] = { 0 << 1 | 3 << 5, 4 << 1,
					       15 << 1 | 3 << 5 };
		struct gen_layout l2 = { .version = 2 };
		struct ktable kt;
		struct res got;
		size_t size;
		uint8_t *b, save = fd[0].fres[2].info;
		int ri, rv;

		fd[0].fres[2].info = bad[k];
		b = gen_write(&g, &l2, vaddr, &size);
		fd[0].fres[2].info = save;
		ri = kt_init(&kt, b, size, vaddr, a, m + 0x40, g.abi);
		rv = ri ? ri : kt_validate(&kt);
		kt_find_res(&kt, a + 0x10, &got);
		if (ri || rv != -EINVAL || got.rc != -EINVAL) {
			ok = false;
			snprintf(det, sizeof(det),
				 "FRE info %#x: init %d, validate %d (expected -EINVAL), lookup %s (expected -EINVAL)",
				 bad[k], ri, rv, res_str(&got));
			diag("  FAIL %s", det);
		}
		kt_free(&kt);
		free(b);
	}
	diag("outermost FREs: %lu lookups on v1, v2, v2 PCREL (other layout), %lu of them outermost",
	     checked, outer);
	tap_result(ok && outer && !hostshim_stats.violations,
		   "an FRE without offsets is the outermost frame (valid; lookup: only outermost set); offset size 3 or count > 3 still rejected");
	free(fd);
}

/*
 * Three functions with 2, 3 and 4 FREs (9 in all): text at 0x400000, each
 * function 0x100 bytes, 1-byte starts 0, 0x10, 0x20, ...
 */
static uint8_t *nine_rows(uint64_t vaddr, uint32_t num_fres, size_t *size,
			  size_t *fres, size_t *fre2)
{
	struct gen g = { .abi = 3, .fixed_ra = -8, .num_fdes = 3 };
	struct gen_layout l = { .version = 2 };
	uint8_t *b;
	uint32_t i, j;

	g.fdes = calloc(3, sizeof(*g.fdes));
	for (i = 0; i < 3; i++) {
		struct gen_fde *fd = &g.fdes[i];

		fd->start = 0x400000 + 0x100 * i;
		fd->size = 0x100;
		fd->num_fres = 2 + i;
		for (j = 0; j < fd->num_fres; j++)
			fd->fres[j] = (struct gen_fre){ 0x10 * j, 1 | 1 << 1,
							{ 8 + 8 * j } };
	}
	b = gen_write(&g, &l, vaddr, size);
	put_u32(b + 12, num_fres);
	/* FREs: 3 bytes each; FDE 2's start after FDE 0's 2 and FDE 1's 3. */
	*fres = HDR_SIZE + get_u32(b + 24);
	*fre2 = *fres + get_u32(b + HDR_SIZE + 2 * FDE_V2_SIZE + 8);
	free(g.fdes);
	return b;
}

/*
 * sframe_table_init() rejects a header whose num_fres cannot fit in
 * fre_len (2 bytes at least per FRE): the exact boundary.
 */
static void test_num_fres_init(void)
{
	const uint64_t vaddr = 0x10000, lo = 0x400000, hi = 0x400300;
	size_t size, fres, fre2;
	uint8_t *b = nine_rows(vaddr, 9, &size, &fres, &fre2);
	uint32_t fre_len = get_u32(b + 16);
	const struct {
		const char *what;
		uint32_t num_fres;
		int init, validate;
	} c[] = {
		{ "num_fres = rows (9)", 9, 0, 0 },
		{ "num_fres = fre_len / 2", fre_len / 2, 0, 0 },
		{ "num_fres = fre_len / 2 + 1", fre_len / 2 + 1, -EINVAL, 0 },
		{ "num_fres = fre_len", fre_len, -EINVAL, 0 },
		{ "num_fres 0x80000000", 0x80000000, -EINVAL, 0 },
		{ "num_fres 0xffffffff", 0xffffffff, -EINVAL, 0 },
	};
	unsigned int i;
	bool ok = true;

	hostshim_reset_stats();
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct ktable kt;
		int ri, rv = 0;

		put_u32(b + 12, c[i].num_fres);
		ri = kt_init(&kt, b, size, vaddr, lo, hi, 3);
		if (!ri)
			rv = kt_validate(&kt);
		if (ri != c[i].init || rv != c[i].validate) {
			ok = false;
			diag("  FAIL %s (fre_len %u): init %d, validate %d; expected %d, %d",
			     c[i].what, fre_len, ri, rv, c[i].init,
			     c[i].validate);
		}
		kt_free(&kt);
	}

	/* Header rows only: 5 outermost FREs of 2 bytes, fre_len 10. */
	{
		struct gen g = { .abi = 3, .num_fdes = 1 };
		struct gen_layout l = { .version = 2 };
		struct gen_fde *fd = calloc(1, sizeof(*fd));
		struct ktable kt;
		uint8_t *t;
		size_t ts;
		int ri, rv = 0;
		uint32_t j;

		fd->start = lo;
		fd->size = 0x50;
		fd->num_fres = 5;
		for (j = 0; j < 5; j++)
			fd->fres[j] = (struct gen_fre){ 0x10 * j, 0, { 0 } };
		g.fdes = fd;
		t = gen_write(&g, &l, vaddr, &ts);
		for (j = 5; j <= 6; j++) {
			put_u32(t + 12, j);
			ri = kt_init(&kt, t, ts, vaddr, lo, hi, 3);
			if (!ri)
				rv = kt_validate(&kt);
			if (get_u32(t + 16) != 10 || (j == 5 && (ri || rv)) ||
			    (j == 6 && ri != -EINVAL)) {
				ok = false;
				diag("  FAIL 5 two-byte FREs, fre_len %u, num_fres %u: init %d, validate %d",
				     get_u32(t + 16), j, ri, rv);
			}
			kt_free(&kt);
		}
		free(t);
		free(fd);
	}
	tap_result(ok && !hostshim_stats.violations,
		   "init: num_fres > fre_len / 2 rejected (boundary exact; 2-byte outermost FREs at the bound valid)");
	free(b);
}

/*
 * sframe_table_validate() adds up fres_num over the FDEs in order and
 * rejects the section as soon as the sum exceeds the header's num_fres,
 * before it reads that FDE's rows (so an unreadable row does not turn the
 * rejection into -EFAULT).
 */
static void test_num_fres_sum(void)
{
	const uint64_t vaddr = 0x10000, lo = 0x400000, hi = 0x400300;
	const struct {
		const char *what;
		uint32_t num_fres;
		int fault;	/* 1: FDE 2's rows, 2: all rows unreadable */
		int validate;
	} c[] = {
		{ "rows = num_fres", 9, 0, 0 },
		{ "rows < num_fres", 10, 0, 0 },
		{ "the last FDE's rows exceed num_fres by 1", 8, 0, -EINVAL },
		{ "the first FDE's rows exceed num_fres", 1, 0, -EINVAL },
		{ "num_fres 0", 0, 0, -EINVAL },
		{ "exceeded at the last FDE, its rows unreadable", 8, 1, -EINVAL },
		{ "exceeded at the first FDE, no row readable", 1, 2, -EINVAL },
		{ "not exceeded, the last FDE's rows unreadable", 9, 1, -EFAULT },
	};
	unsigned int i;
	bool ok = true;

	hostshim_reset_stats();
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		size_t size, fres, fre2;
		uint8_t *b = nine_rows(vaddr, c[i].num_fres, &size, &fres,
				       &fre2);
		struct ktable kt;
		unsigned long faults;
		int ri, rv = 0;

		ri = kt_init(&kt, b, size, vaddr, lo, hi, 3);
		if (c[i].fault)
			hostshim_fault_range(kt.buf + (c[i].fault == 1 ? fre2 : fres),
					     kt.buf + size);
		faults = hostshim_stats.faults;
		if (!ri)
			rv = kt_validate(&kt);
		hostshim_fault_none();
		faults = hostshim_stats.faults - faults;
		if (ri || rv != c[i].validate ||
		    (rv == -EINVAL && c[i].fault && faults)) {
			ok = false;
			diag("  FAIL %s (num_fres %u): init %d, validate %d after %lu faulting reads; expected validate %d%s",
			     c[i].what, c[i].num_fres, ri, rv, faults,
			     c[i].validate,
			     rv == -EINVAL && faults ?
			     " before reading the rows" : "");
		}
		kt_free(&kt);
		free(b);
	}

	tap_result(ok && !hostshim_stats.violations,
		   "validate: FDEs claiming more rows than num_fres rejected, before their rows are read");
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
 * The table depends on the copy of the section it was built from alone:
 * changes of the section after the validation change no lookup, and no
 * lookup reads the section.
 */
static void test_changed_after_check(uint64_t seed)
{
	struct group g = { .title = "section changed after validation: the table's answers do not change" };
	unsigned int si, it;
	struct rng r;

	rng_seed(&r, seed);
	for (si = 0; si < nsecs; si++) {
		struct section *s = &secs[si];
		struct res *base;
		struct ktable kt;
		char det[160];
		size_t i;

		hostshim_reset_stats();
		if (kt_init_section(&kt, s) || kt_validate(&kt)) {
			group_fail(&g, s->name, "baseline", "not valid");
			free(kt.buf);
			continue;
		}
		base = calloc(sec_npcs[si] + 1, sizeof(*base));
		for (i = 0; i < sec_npcs[si]; i++)
			kt_find_res(&kt, sec_pcs[si][i], &base[i]);
		for (it = 0; it < 100; it++) {
			unsigned int n = 1 + rng_below(&r, 8), j;

			g.cases++;
			memcpy(kt.buf, s->data, s->size);
			for (j = 0; j < n; j++) {
				size_t pos = rng_below(&r, s->size);

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
				if (!res_eq(&res, &base[i])) {
					snprintf(det, sizeof(det),
						 "lookup at %#llx: %s, before %s",
						 (unsigned long long)sec_pcs[si][i],
						 res_str(&res), res_str(&base[i]));
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
		free(base);
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

/* ---- tables merged: SFrame rows, .eh_frame rows where SFrame has none ---- */

static uint64_t merge_rng;

static uint32_t merge_rnd(uint32_t n)
{
	merge_rng = merge_rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(merge_rng >> 33) % n;
}

static void merge_build_alloc(struct sframe_build *b, uint32_t rows,
			      uint32_t funcs)
{
	memset(b, 0, sizeof(*b));
	b->max_rows = rows;
	b->max_funcs = funcs;
	b->hash_bits = sframe_hash_bits(rows);
	b->pc = calloc(rows + 1, sizeof(*b->pc));
	b->rule = calloc(rows + 1, sizeof(*b->rule));
	b->rules = calloc(rows + 1, sizeof(*b->rules));
	b->hash = calloc((size_t)1 << b->hash_bits, sizeof(*b->hash));
	b->funcs = calloc(funcs + 1, sizeof(*b->funcs));
}

static void merge_build_free(struct sframe_build *b)
{
	free(b->pc);
	free(b->rule);
	free(b->rules);
	free(b->hash);
	free(b->funcs);
}

/*
 * A random build of @text bytes: functions of 1-32 bytes with gaps of
 * 0-15 bytes (or @gap_bias times longer), rows every 1-8 bytes, one of
 * @nrules rules each, marked with @mark so that the two builds' rules
 * differ.
 */
static int merge_build_random(struct sframe_build *b, uint32_t text,
			      uint32_t nrules, int32_t mark, uint32_t gap_bias)
{
	uint32_t off = merge_rnd(8);
	int ret = 0;

	merge_build_alloc(b, 2 * text + 2, text + 1);
	while (off < text && !ret) {
		uint32_t len = 1 + merge_rnd(32), pc;

		if (len > text - off)
			len = text - off;
		ret = sframe_build_func(b, off, off + len);
		for (pc = off; pc < off + len && !ret; pc += 1 + merge_rnd(8)) {
			struct unwind_user_frame f = { 0 };

			f.cfa_off = 8 * (1 + merge_rnd(nrules));
			f.ra_off = mark;
			f.ra_saved = true;
			f.outermost = !merge_rnd(16);
			ret = sframe_build_row(b, pc, &f);
		}
		off += len + merge_rnd(16) * gap_bias;
	}
	return ret ?: sframe_build_end(b);
}

/* The rule a finished build gives @off, by a linear search, or NULL. */
static const struct unwind_user_frame *
merge_rule_at(const struct sframe_build *b, uint32_t off)
{
	uint32_t i, n = 0;

	for (i = 0; i < b->nr_rows && b->pc[i] <= off; i++)
		n = i + 1;
	if (!n || b->rule[n - 1] == SFRAME_RULE_NONE)
		return NULL;
	return &b->rules[b->rule[n - 1]];
}

static bool merge_same(const struct unwind_user_frame *x,
		       const struct unwind_user_frame *y)
{
	if (!x || !y)
		return x == y;
	return !memcmp(x, y, sizeof(*x));
}

/*
 * sframe_build_merge() and sframe_build_no_rule() against a brute force
 * reading of random builds: at every text offset the merged table (and
 * the lookup table made of it) gives the first build's rule, else the
 * second's, else none; its functions are the first's and those of the
 * second that start where the first has no rule.
 */
static void test_merge(uint64_t seed)
{
	unsigned int round, bad = 0, nr_rows = 0, nr_no_rule = 0;

	merge_rng = seed;
	for (round = 0; round < 200 && !bad; round++) {
		uint32_t text = 64 + merge_rnd(1024), x, i, j, nf = 0;
		struct sframe_build a, b, m;
		struct sframe_rules r;
		uint32_t nr_blocks, *want;
		void *mem;
		uint8_t shift;
		int ret;

		ret = merge_build_random(&a, text, 4, -8, 1 + round % 3) ?:
		      merge_build_random(&b, text, 4, -16, 1 + round % 3);
		merge_build_alloc(&m, a.nr_rows + b.nr_rows,
				  a.nr_funcs + b.nr_funcs);
		ret = ret ?: sframe_build_merge(&m, &a, &b);
		if (ret) {
			diag("round %u: build or merge failed: %d", round, ret);
			bad++;
			goto next;
		}
		mem = calloc(1, sframe_rules_size(&m, &nr_blocks, &shift));
		sframe_rules_fill(&r, mem, text + 64, &m, nr_blocks, shift);
		for (x = 0; x < text + 64; x++) {
			const struct unwind_user_frame *w = merge_rule_at(&a, x);

			w = w ?: merge_rule_at(&b, x);
			if (!merge_same(merge_rule_at(&m, x), w) ||
			    !merge_same(sframe_rules_lookup(&r, x), w)) {
				diag("round %u: offset %u: merged rule differs",
				     round, x);
				bad++;
				break;
			}
		}
		nr_rows += m.nr_rows;
		free(mem);

		/* The functions: the first's, and the second's in its gaps. */
		want = calloc(a.nr_funcs + b.nr_funcs + 1, sizeof(*want));
		for (i = 0, j = 0; i < a.nr_funcs || j < b.nr_funcs;) {
			if (j == b.nr_funcs ||
			    (i < a.nr_funcs && a.funcs[i] <= b.funcs[j]))
				want[nf++] = a.funcs[i++];
			else if (!merge_rule_at(&a, b.funcs[j++]))
				want[nf++] = b.funcs[j - 1];
		}
		if (nf != m.nr_funcs ||
		    memcmp(want, m.funcs, nf * sizeof(*want))) {
			diag("round %u: %u functions merged, %u expected",
			     round, m.nr_funcs, nf);
			bad++;
		}
		free(want);

		/* No rule in [s, e): no offset there with a rule. */
		for (i = 0; i < 64; i++) {
			uint32_t s0 = merge_rnd(text), e = s0 + 1 + merge_rnd(48);
			bool none = true;

			for (x = s0; x < e; x++)
				none &= !merge_rule_at(&a, x);
			nr_no_rule += none;
			if (sframe_build_no_rule(&a, s0, e) != none) {
				diag("round %u: [%u, %u): no_rule %d, expected %d",
				     round, s0, e, !none, none);
				bad++;
				break;
			}
		}
next:
		merge_build_free(&a);
		merge_build_free(&b);
		merge_build_free(&m);
	}
	tap_result(!bad, "merged tables: at every offset the first build's rule, else the second's (%u rounds, %u merged rows, %u ranges without rule)",
		   round, nr_rows, nr_no_rule);
}

/*
 * Functions side by side, each of one row of one rule, as .eh_frame gives
 * a run of one-instruction functions: the build merges them into one row,
 * and the table's block index stays as fine as the functions, so that the
 * rows of the other functions are scanned, not searched.
 */
static void test_blocks_of_functions(void)
{
	const struct unwind_user_frame f = { .cfa_off = 8, .ra_off = -8,
					     .ra_saved = true };
	const struct unwind_user_frame g = { .cfa_off = 16, .ra_off = -8,
					     .ra_saved = true };
	const uint32_t nfill = 65536, tail = 64;
	struct sframe_build b;
	struct sframe_rules r;
	uint32_t i, nr_blocks, pc = 0, searched = 0;
	void *mem;
	size_t size;
	uint8_t shift;
	int ret = 0;

	merge_build_alloc(&b, nfill + 4 * tail + 2, nfill + tail);
	for (i = 0; i < nfill && !ret; i++, pc++)
		ret = sframe_build_func(&b, pc, pc + 1) ?:
		      sframe_build_row(&b, pc, &f);
	/* Then functions of four rows in 32 bytes. */
	for (i = 0; i < tail && !ret; i++, pc += 32)
		ret = sframe_build_func(&b, pc, pc + 32) ?:
		      sframe_build_row(&b, pc, &f) ?:
		      sframe_build_row(&b, pc + 1, &g) ?:
		      sframe_build_row(&b, pc + 24, &f) ?:
		      sframe_build_row(&b, pc + 25, &g);
	ret = ret ?: sframe_build_end(&b);
	size = ret ? 0 : sframe_rules_size(&b, &nr_blocks, &shift);
	mem = size ? malloc(size) : NULL;
	if (mem) {
		sframe_rules_fill(&r, mem, pc, &b, nr_blocks, shift);
		for (i = 0; i < r.nr_blocks; i++)
			searched += !!(r.blocks[i] & SFRAME_BLOCK_SEARCH);
	}
	tap_result(!ret && mem && b.nr_rows < 4 * tail + 4 && !searched,
		   "%u one-row functions of one rule, then %u of four rows: %u rows, block shift %u, %u of %u blocks searched",
		   nfill, tail, b.nr_rows, mem ? r.block_shift : 0, searched,
		   mem ? r.nr_blocks : 0);
	free(mem);
	merge_build_free(&b);
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
	test_outermost();
	test_num_fres_init();
	test_num_fres_sum();
	test_validate_work();
	test_validate_stops();
	test_changed_after_check(seed);
	test_merge(seed);
	test_blocks_of_functions();
	test_mutations(seed, mutations);
	return tap_failures ? 1 : 0;
}
