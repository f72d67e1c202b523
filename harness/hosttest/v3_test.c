// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame version 3 host test: the kernel decoder (kernel/unwind/sframe.c,
 * built with the shim) against what GNU readelf 2.46 prints for the same
 * file, PC by PC.
 *
 *   v3_test [--corpus DIR] ELF=DUMP...
 *
 * ELF is a file linked by binutils 2.46 (harness/fixtures/sframe-v3/),
 * DUMP the output of its `readelf --sframe`, committed beside it. For
 * every function of the dump, at every PC from its start to its end: the
 * rule sframe_rules_lookup() returns, written the way readelf writes a row (CFA
 * "sp+16", "fp+16", "r10+0", "(fp-8)" for a load; FP and RA "u" unchanged,
 * "c-16" saved at the CFA, "f" or "U" at the header's fixed offset,
 * "r3+0" in a register, "(fp+0)" loaded through one; "RA undefined"),
 * equals the dump's row for that PC. A signal trampoline (attr "S") is
 * reported as one, whatever its rows; another function without rows is
 * the outermost frame. PCs between the functions must have no rule. PCMASK functions
 * (PLT entries, "STARTPC[m]") repeat every 16 bytes: readelf does not
 * print the block size, and 16 is the PLT entry size of both ABIs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define MAX_ROWS	64
#define MAX_REPORT	10
#define PLT_ENTRY	16

static const char *corpus_dir;

struct drow {
	uint64_t start;		/* address, or offset in a PCMASK block */
	char cfa[32], fp[32], ra[32];
	bool undefined;		/* "RA undefined" */
};

struct dfunc {
	uint64_t pc;
	uint32_t size;
	bool mask, signal, flex;
	unsigned int nr;
	struct drow rows[MAX_ROWS];
};

struct dump {
	struct dfunc *f;
	unsigned int nr;
};

static int parse_dump(const char *path, struct dump *d)
{
	char line[512], attr[16];
	struct dfunc *cur = NULL;
	unsigned long long pc;
	unsigned int idx, size;
	FILE *f = fopen(path, "r");

	memset(d, 0, sizeof(*d));
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		struct drow *r;
		char *p = line;

		while (*p == ' ')
			p++;
		attr[0] = 0;
		if (sscanf(p, "func idx [%u]: pc = %llx, size = %u bytes, attr = \"%15[^\"]\"",
			   &idx, &pc, &size, attr) >= 3) {
			d->f = realloc(d->f, (d->nr + 1) * sizeof(*d->f));
			cur = &d->f[d->nr++];
			memset(cur, 0, sizeof(*cur));
			cur->pc = pc;
			cur->size = size;
			cur->signal = strchr(attr, 'S');
			cur->flex = strchr(attr, 'F');
			continue;
		}
		if (!cur)
			continue;
		if (!strncmp(p, "STARTPC", 7)) {
			cur->mask = !strncmp(p, "STARTPC[m]", 10);
			continue;
		}
		if (*p < '0' || *p > 'f' || (*p > '9' && *p < 'a'))
			continue;
		if (cur->nr == MAX_ROWS) {
			fprintf(stderr, "%s: more than %d rows\n", path, MAX_ROWS);
			fclose(f);
			return -1;
		}
		r = &cur->rows[cur->nr];
		memset(r, 0, sizeof(*r));
		if (sscanf(p, "%llx RA undefined", &pc) == 1 &&
		    strstr(p, "RA undefined")) {
			r->start = pc;
			r->undefined = true;
			cur->nr++;
			continue;
		}
		if (sscanf(p, "%llx %31s %31s %31s", &pc, r->cfa, r->fp,
			   r->ra) != 4) {
			fprintf(stderr, "%s: cannot read row: %s", path, line);
			fclose(f);
			return -1;
		}
		r->start = pc;
		cur->nr++;
	}
	fclose(f);
	return d->nr ? 0 : -1;
}

static const char *reg_name(int abi, unsigned int reg, char *buf, size_t len)
{
	unsigned int sp = abi == 3 ? 7 : 31, fp = abi == 3 ? 6 : 29;

	if (reg == sp)
		return "sp";
	if (reg == fp)
		return "fp";
	snprintf(buf, len, "r%u", reg);
	return buf;
}

/* "base+off" or, for a load, "(base+off)". */
static void fmt_rule(char *out, size_t len, const char *base, int32_t off,
		     bool load)
{
	snprintf(out, len, load ? "(%s%+d)" : "%s%+d", base, off);
}

/* One entity through a register, or at the CFA, or unchanged. */
static void fmt_value(char *out, size_t len, int abi, bool in_reg,
		      unsigned int reg, bool saved, int32_t off)
{
	char rb[16];

	if (in_reg)
		fmt_rule(out, len, reg_name(abi, reg, rb, sizeof(rb)), off, saved);
	else if (saved)
		snprintf(out, len, "c%+d", off);
	else
		snprintf(out, len, "u");
}

/* A decoder result written as a readelf row. */
static void fmt_frame(const struct unwind_user_frame *f, int abi,
		      int8_t fixed_ra, struct drow *r)
{
	const char *base;
	char rb[16];

	memset(r, 0, sizeof(*r));
	if (f->outermost) {
		r->undefined = true;
		return;
	}
	if (f->flags & UNWIND_USER_F_CFA_REG)
		base = reg_name(abi, f->cfa_reg, rb, sizeof(rb));
	else
		base = f->use_fp ? "fp" : "sp";
	fmt_rule(r->cfa, sizeof(r->cfa), base, f->cfa_off,
		 f->flags & UNWIND_USER_F_CFA_DEREF);
	fmt_value(r->fp, sizeof(r->fp), abi, f->flags & UNWIND_USER_F_FP_REG,
		  f->fp_reg, f->fp_saved, f->fp_off);
	if (!(f->flags & UNWIND_USER_F_RA_REG) && f->ra_saved && fixed_ra &&
	    f->ra_off == fixed_ra)
		snprintf(r->ra, sizeof(r->ra), "f");
	else
		fmt_value(r->ra, sizeof(r->ra), abi,
			  f->flags & UNWIND_USER_F_RA_REG, f->ra_reg,
			  f->ra_saved, f->ra_off);
	/* A signed return address, as readelf marks it. */
	if (f->ra_signed)
		strncat(r->ra, "[s]", sizeof(r->ra) - strlen(r->ra) - 1);
}

/* The dump's row, normalised: a FLEX row's RA padding ("U") is the fixed offset. */
static void norm(char *s)
{
	if (!strcmp(s, "U"))
		strcpy(s, "f");
}

static bool row_eq(struct drow *a, struct drow *b)
{
	if (a->undefined || b->undefined)
		return a->undefined == b->undefined;
	norm(a->cfa);
	norm(a->fp);
	norm(a->ra);
	return !strcmp(a->cfa, b->cfa) && !strcmp(a->fp, b->fp) &&
	       !strcmp(a->ra, b->ra);
}

static const char *row_str(const struct drow *r)
{
	static char buf[4][112];
	static unsigned int n;
	char *b = buf[n++ % 4];

	if (r->undefined)
		snprintf(b, 112, "RA undefined");
	else
		snprintf(b, 112, "CFA %s FP %s RA %s", r->cfa, r->fp, r->ra);
	return b;
}

static void test_file(const char *name, const char *elf, const char *dump)
{
	unsigned long pcs = 0, rows = 0, bad = 0, gaps = 0, flex = 0;
	unsigned long outermost = 0, signal = 0, masks = 0;
	struct unwind_user_frame f;
	struct section s;
	struct ktable kt;
	struct dump d;
	unsigned int i, j;
	uint64_t pc, prev_end = 0;
	int8_t fixed_ra;
	int rc;

	if (section_load_elf(&s, elf, name) || parse_dump(dump, &d)) {
		tap_result(false, "%s: cannot read the file or its dump", name);
		return;
	}
	if (corpus_dir) {
		char path[512], *p;

		snprintf(path, sizeof(path), "%s/v3-%s.sframe", corpus_dir, name);
		for (p = path + strlen(corpus_dir) + 1; *p; p++)
			if (*p == '/')
				*p = '_';
		write_file(path, s.data, s.size);
	}
	fixed_ra = (int8_t)s.data[6];
	rc = kt_init_section(&kt, &s);
	if (rc || s.data[2] != 3) {
		tap_result(false, "%s: version %u section, sframe_table_init() = %d",
			   name, s.data[2], rc);
		goto out;
	}
	rc = kt_validate(&kt);
	tap_result(!rc, "%s: sframe_table_validate() accepts the 2.46 section (%u functions)",
		   name, d.nr);

	for (i = 0; i < d.nr; i++) {
		struct dfunc *fn = &d.f[i];

		flex += fn->flex;
		masks += fn->mask;
		rows += fn->nr;
		/* The gap before the function has no rule. */
		for (pc = prev_end; i && pc < fn->pc && pc < prev_end + 64; pc++) {
			gaps++;
			if (kt_find(&kt, pc, &f) != -ENOENT && bad++ < MAX_REPORT)
				diag("%s: %#llx between functions has a rule",
				     name, (unsigned long long)pc);
		}
		prev_end = fn->pc + fn->size;

		for (pc = fn->pc; pc < fn->pc + fn->size; pc++) {
			struct drow want, got;
			uint64_t off = pc - fn->pc;
			int rc2;

			pcs++;
			if (fn->mask)
				off %= PLT_ENTRY;
			else
				off = pc;
			memset(&want, 0, sizeof(want));
			for (j = 0; j < fn->nr && fn->rows[j].start <= off; j++)
				want = fn->rows[j];
			rc2 = kt_find(&kt, pc, &f);
			/*
			 * A signal trampoline's caller is in the signal frame,
			 * whatever its rows say; no rows: the outermost frame.
			 */
			if (fn->signal || !fn->nr) {
				bool ok = !rc2 && (fn->signal ? f.signal && !f.outermost :
						   f.outermost && !f.signal);

				fn->signal ? signal++ : outermost++;
				if (!ok && bad++ < MAX_REPORT)
					diag("%s: %#llx in a %s function: sframe_rules_lookup() = %d, signal %d, outermost %d",
					     name, (unsigned long long)pc,
					     fn->signal ? "signal" : "rowless",
					     rc2, f.signal, f.outermost);
				continue;
			}
			if (!j) {
				if (rc2 != -ENOENT && bad++ < MAX_REPORT)
					diag("%s: %#llx before the first row: %d",
					     name, (unsigned long long)pc, rc2);
				continue;
			}
			if (rc2) {
				if (bad++ < MAX_REPORT)
					diag("%s: %#llx: sframe_rules_lookup() = %d, readelf: %s",
					     name, (unsigned long long)pc, rc2,
					     row_str(&want));
				continue;
			}
			if (want.undefined)
				outermost++;
			fmt_frame(&f, s.abi, fixed_ra, &got);
			if (!row_eq(&want, &got) && bad++ < MAX_REPORT)
				diag("%s: %#llx: kernel %s, readelf %s", name,
				     (unsigned long long)pc, row_str(&got),
				     row_str(&want));
		}
	}
	tap_result(!bad,
		   "%s: kernel decoder == readelf 2.46 at %lu PCs (%u functions, %lu FLEX, %lu PCMASK, %lu rows; %lu PCs outermost, %lu in signal trampolines, %lu between functions): %lu differences",
		   name, pcs, d.nr, flex, masks, rows, outermost, signal, gaps,
		   bad);
	kt_free(&kt);
out:
	section_free(&s);
	free(d.f);
}

int main(int argc, char **argv)
{
	int i;

	watchdog(300, "v3_test");
	if (argc > 2 && !strcmp(argv[1], "--corpus")) {
		corpus_dir = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc < 2) {
		tap_skip("SFrame v3 fixtures: none given");
		return 0;
	}
	for (i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '='), name[128];
		const char *base;

		if (!eq) {
			fprintf(stderr, "usage: v3_test ELF=DUMP...\n");
			return 2;
		}
		*eq = 0;
		base = strrchr(argv[i], '/');
		base = base ? base + 1 : argv[i];
		snprintf(name, sizeof(name), "%s", base);
		if (strstr(argv[i], "/arm64/"))
			snprintf(name, sizeof(name), "arm64/%s", base);
		else if (strstr(argv[i], "/x86_64/"))
			snprintf(name, sizeof(name), "x86_64/%s", base);
		test_file(name, argv[i], eq + 1);
	}
	return tap_failures ? 1 : 0;
}
