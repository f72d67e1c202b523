// SPDX-License-Identifier: GPL-2.0
/* Shared helpers of the SFrame decoder host tests; see common.h. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

/* ---- TAP ---------------------------------------------------------------- */

int tap_failures;

void tap_result(bool ok, const char *fmt, ...)
{
	va_list ap;

	if (!ok)
		tap_failures++;
	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

void tap_skip(const char *fmt, ...)
{
	va_list ap;

	printf("ok - # SKIP ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static const char *watchdog_what;

static void watchdog_fired(int sig)
{
	char msg[256];
	int n;

	(void)sig;
	n = snprintf(msg, sizeof(msg), "not ok - %s: timed out (hang?)\n",
		     watchdog_what);
	if (write(1, msg, n) < 0)
		_exit(3);
	_exit(2);
}

void watchdog(unsigned int secs, const char *what)
{
	watchdog_what = what;
	signal(SIGALRM, watchdog_fired);
	alarm(secs);
}

/* ---- PRNG --------------------------------------------------------------- */

void rng_seed(struct rng *r, uint64_t seed)
{
	r->s = seed ? seed : 0x9e3779b97f4a7c15ull;
}

uint64_t rng_next(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dull;
}

uint64_t rng_below(struct rng *r, uint64_t n)
{
	return rng_next(r) % n;
}

/* ---- sections ------------------------------------------------------------ */

int section_load_elf(struct section *s, const char *path, const char *name)
{
	Elf *e = NULL;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t shstrndx, nph, i;
	int fd, ret = -1;
	bool found = false;

	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -1;
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || !gelf_getehdr(e, &eh) || elf_getshdrstrndx(e, &shstrndx) ||
	    elf_getphdrnum(e, &nph)) {
		fprintf(stderr, "%s: not an ELF file: %s\n", path,
			elf_errmsg(-1));
		goto out;
	}
	s->text_lo = UINT64_MAX;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, i, &ph))
			goto out;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (ph.p_vaddr < s->text_lo)
			s->text_lo = ph.p_vaddr;
		if (ph.p_vaddr + ph.p_memsz > s->text_hi)
			s->text_hi = ph.p_vaddr + ph.p_memsz;
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		const char *sn;

		if (!gelf_getshdr(scn, &sh))
			goto out;
		sn = elf_strptr(e, shstrndx, sh.sh_name);
		if (!sn || strcmp(sn, ".sframe"))
			continue;
		d = elf_rawdata(scn, NULL);
		if (!d || d->d_size != sh.sh_size) {
			fprintf(stderr, "%s: cannot read .sframe\n", path);
			goto out;
		}
		s->data = malloc(sh.sh_size);
		memcpy(s->data, d->d_buf, sh.sh_size);
		s->size = sh.sh_size;
		s->vaddr = sh.sh_addr;
		found = true;
		break;
	}
	if (!found) {
		fprintf(stderr, "%s: no .sframe section\n", path);
		goto out;
	}
	if (s->text_lo >= s->text_hi) {
		fprintf(stderr, "%s: no executable PT_LOAD\n", path);
		goto out;
	}
	s->abi = s->size > 4 ? s->data[4] : 0;
	ret = 0;
out:
	if (e)
		elf_end(e);
	close(fd);
	if (ret)
		section_free(s);
	return ret;
}

int section_load_raw(struct section *s, const char *path, uint64_t vaddr)
{
	struct stat st;
	FILE *f;

	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", path);
	f = fopen(path, "rb");
	if (!f || fstat(fileno(f), &st)) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	s->size = st.st_size;
	s->data = malloc(s->size ? s->size : 1);
	if (fread(s->data, 1, s->size, f) != s->size) {
		fclose(f);
		section_free(s);
		return -1;
	}
	fclose(f);
	s->vaddr = vaddr;
	s->text_lo = vaddr - 0x80000000ull;
	s->text_hi = vaddr + 0x100000000ull;
	s->abi = s->size > 4 ? s->data[4] : 0;
	return 0;
}

void section_free(struct section *s)
{
	free(s->data);
	s->data = NULL;
	s->size = 0;
}

int write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(buf, 1, len, f) != len) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	return fclose(f);
}

/* ---- the kernel decoder --------------------------------------------------- */

int kt_init(struct ktable *kt, const void *data, size_t size, uint64_t vaddr,
	    uint64_t text_lo, uint64_t text_hi, int abi)
{
	uint8_t hdr[HDR_SIZE];
	size_t hdr_len = size < sizeof(hdr) ? size : sizeof(hdr);

	memset(kt, 0, sizeof(*kt));
	kt->buf = malloc(size ? size : 1);
	memcpy(kt->buf, data, size);
	kt->size = size;
	kt->vaddr = vaddr;
	/* The caller copies the fixed header into the kernel first. */
	memcpy(hdr, data, hdr_len);
	hostshim_allow(kt->buf, kt->buf + size);
	kt->init_rc = sframe_table_init(&kt->tbl, hdr, hdr_len,
					(unsigned long)kt->buf, size,
					kt_host(kt, text_lo),
					kt_host(kt, text_hi), abi);
	return kt->init_rc;
}

int kt_init_section(struct ktable *kt, const struct section *s)
{
	return kt_init(kt, s->data, s->size, s->vaddr, s->text_lo, s->text_hi,
		       s->abi);
}

struct kt_stats kt_stats;

/* Free what an earlier kt_validate() left. */
static void kt_drop_validation(struct ktable *kt)
{
	free(kt->rules_mem);
	kt->rules_mem = NULL;
	free(kt->funcs);
	kt->funcs = NULL;
	kt->nr_funcs = 0;
	kt->built = false;
	memset(&kt->rules, 0, sizeof(kt->rules));
}

/* A usual rule's saved word must lie within SFRAME_SLOT_REACH of the CFA. */
static bool slot_near(int32_t off)
{
	return off >= -SFRAME_SLOT_REACH && off + 8 <= SFRAME_SLOT_REACH;
}

struct kt_row {
	uint64_t start;
	uint16_t rule;
};

static int kt_row_cmp(const void *a, const void *b)
{
	const struct kt_row *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * The rows a table of the build @b must have: the build's, and one at
 * each 64 KiB window's start up to the last row where none starts, the
 * text start included, with the rule of the row before it (none before
 * the first). Sorted; returns their number, *@out to be freed.
 */
static uint32_t kt_expected_rows(const struct sframe_build *b,
				 struct kt_row **out)
{
	uint64_t last = b->nr_rows ? b->pc[b->nr_rows - 1] : 0, w;
	uint16_t rule = SFRAME_RULE_NONE;
	uint32_t n = 0, i, j = 0;
	struct kt_row *rows;

	rows = calloc(b->nr_rows + (last >> 16) + 1, sizeof(*rows));
	if (!rows)
		abort();
	for (i = 0; i < b->nr_rows; i++) {
		rows[n].start = b->pc[i];
		rows[n++].rule = b->rule[i];
	}
	for (w = 0; b->nr_rows && w <= last; w += 1ULL << 16) {
		while (j < b->nr_rows && b->pc[j] < w)
			rule = b->rule[j++];
		if (j < b->nr_rows && b->pc[j] == w)
			continue;
		rows[n].start = w;
		rows[n++].rule = rule;
	}
	qsort(rows, n, sizeof(*rows), kt_row_cmp);
	*out = rows;
	return n;
}

/*
 * What the walk's fast path takes for granted of every table: its rows
 * are the build's and the windows' (kt_expected_rows()), each kept as the
 * low 16 bits of its start less one; blocks count the rows at or below
 * their start, are at most a window, and those that start more than
 * SFRAME_ROW_SCAN rows are marked to be searched (and no others); a row
 * without SFRAME_RULE_GENERAL has a usual rule whose saved words are near
 * the CFA (one range check covers both reads).
 * Aborts: a table that breaks them is a bug of the decoder.
 */
static void kt_check_table(const struct sframe_rules *r,
			   const struct sframe_build *b)
{
	uint64_t last = b->nr_rows ? b->pc[b->nr_rows - 1] : 0;
	struct kt_row *want;
	uint32_t i, j, room, nr = kt_expected_rows(b, &want);

	if (r->nr_rows != nr || r->rows[nr].pc != 0xffff) {
		fprintf(stderr, "table: %u rows (end entry %#x), %u expected\n",
			r->nr_rows, r->rows[r->nr_rows].pc, nr);
		abort();
	}
	for (i = 0; i < nr; i++) {
		uint16_t rule = r->rows[i].rule == SFRAME_RULE_NONE ? r->rows[i].rule :
				r->rows[i].rule & ~SFRAME_RULE_GENERAL;

		if (r->rows[i].pc != (uint16_t)(want[i].start - 1) ||
		    rule != want[i].rule) {
			fprintf(stderr, "table: row %u at %#x rule %#x, expected start %#llx rule %#x\n",
				i, r->rows[i].pc, r->rows[i].rule,
				(unsigned long long)want[i].start, want[i].rule);
			abort();
		}
	}
	for (i = 0; i <= r->nr_blocks; i++) {
		for (j = 0; j < nr && want[j].start <= (uint64_t)i << r->block_shift; j++)
			;
		if (i == r->nr_blocks)
			j = nr;
		if ((r->blocks[i] & ~SFRAME_BLOCK_SEARCH) != j) {
			fprintf(stderr, "table: block %u counts %u rows, %u expected\n",
				i, (unsigned int)(r->blocks[i] & ~SFRAME_BLOCK_SEARCH), j);
			abort();
		}
	}
	free(want);

	/*
	 * Blocks as small as keep the index no longer than half the rows or
	 * the functions, whichever are more, but at most a window.
	 */
	room = (nr + 1) / 2 > b->nr_funcs ? (nr + 1) / 2 : b->nr_funcs;
	if (r->block_shift > 16 ||
	    (b->nr_rows &&
	     (((last >> r->block_shift) >= room && r->block_shift < 16) ||
	      (r->block_shift > SFRAME_BLOCK_MIN_SHIFT &&
	       (last >> (r->block_shift - 1)) < room)))) {
		fprintf(stderr, "table: block shift %u for %u rows, %u functions, last row at %#llx\n",
			r->block_shift, nr, b->nr_funcs,
			(unsigned long long)last);
		abort();
	}

	for (i = 0; i < r->nr_blocks; i++) {
		uint32_t n = (r->blocks[i + 1] & ~SFRAME_BLOCK_SEARCH) -
			     (r->blocks[i] & ~SFRAME_BLOCK_SEARCH);

		if (!!(r->blocks[i] & SFRAME_BLOCK_SEARCH) != (n > SFRAME_ROW_SCAN)) {
			fprintf(stderr, "table: block %u of %u rows %s marked to be searched\n",
				i, n, n > SFRAME_ROW_SCAN ? "not" : "wrongly");
			abort();
		}
	}
	for (i = 0; i < r->nr_rows; i++) {
		const struct unwind_user_frame *f;

		if (r->rows[i].rule & SFRAME_RULE_GENERAL)
			continue;
		f = &r->rules[r->rows[i].rule];
		if (!f->ra_saved || f->flags || f->outermost || f->signal ||
		    !slot_near(f->ra_off) || (f->fp_saved && !slot_near(f->fp_off))) {
			fprintf(stderr, "table: row %u has rule %u marked usual: cfa %d ra %d fp %d (saved %d) flags %#x\n",
				i, r->rows[i].rule, f->cfa_off, f->ra_off, f->fp_off,
				f->fp_saved, f->flags);
			abort();
		}
	}
}

/*
 * Validated and built as the kernel does (sframe_shared_build()), with
 * room for the largest table; a valid section keeps its table.
 */
int kt_validate(struct ktable *kt)
{
	struct sframe_build b = { 0 };
	u32 nr_blocks;
	size_t size;
	u8 shift;
	int ret = -ENOMEM;

	kt_drop_validation(kt);
	hostshim_allow(kt->buf, kt->buf + kt->size);
	ret = sframe_table_rows(&kt->tbl, &b.max_rows);
	hostshim_allow_none();
	if (ret) {
		kt->build_rc = ret;
		return ret;
	}
	ret = -ENOMEM;
	b.hash_bits = sframe_hash_bits(b.max_rows);
	b.pc = calloc(b.max_rows + 1, sizeof(*b.pc));
	b.rule = calloc(b.max_rows + 1, sizeof(*b.rule));
	b.rules = calloc(b.max_rows + 1, sizeof(*b.rules));
	b.hash = calloc((size_t)1 << b.hash_bits, sizeof(*b.hash));
	b.funcs = calloc(kt->tbl.num_fdes + 1, sizeof(*b.funcs));
	if (b.pc && b.rule && b.rules && b.hash && b.funcs) {
		hostshim_allow(kt->buf, kt->buf + kt->size);
		ret = sframe_table_build(&kt->tbl, &b);
		hostshim_allow_none();
	}
	if (!ret) {
		size = sframe_rules_size(&b, &nr_blocks, &shift);
		kt->rules_mem = malloc(size ? size : 1);
		if (!kt->rules_mem) {
			ret = -ENOMEM;
		} else {
			sframe_rules_fill(&kt->rules, kt->rules_mem,
					  kt->tbl.text_end - kt->tbl.text_start,
					  &b, nr_blocks, shift);
			kt_check_table(&kt->rules, &b);
			kt->funcs = b.funcs;
			kt->nr_funcs = b.nr_funcs;
			b.funcs = NULL;
			kt->built = true;
			kt_stats.tables++;
			kt_stats.rows += b.nr_rows;
			kt_stats.rules += b.nr_rules;
		}
	}
	free(b.pc);
	free(b.rule);
	free(b.rules);
	free(b.hash);
	free(b.funcs);
	kt->build_rc = ret;
	return ret;
}

/*
 * Look up the text offset @off in @kt's table with the walk's lookup
 * (sframe_rules_lookup()), copying the rule to @f. Return: 0 or -ENOENT.
 */
static int kt_lookup(const struct ktable *kt, unsigned long off,
		     struct unwind_user_frame *f)
{
	const struct unwind_user_frame *rule;

	rule = sframe_rules_lookup(&kt->rules, off);
	if (!rule)
		return -ENOENT;
	*f = *rule;
	return 0;
}

int kt_find(struct ktable *kt, uint64_t pc, struct unwind_user_frame *f)
{
	int ret;

	if (kt->init_rc)
		return kt->init_rc;
	if (!kt->built && !kt->build_rc)
		kt_validate(kt);
	if (!kt->built)
		return kt->build_rc;
	/* The table alone: no read of the section may happen. */
	hostshim_allow_none();
	hostshim_set_atomic(true);
	ret = kt_lookup(kt, kt_host(kt, pc) - kt->tbl.text_start, f);
	hostshim_set_atomic(false);
	kt_stats.lookups++;
	return ret;
}

int kt_func(const struct ktable *kt, uint64_t off, unsigned long *start)
{
	struct unwind_user_frame frame;
	uint32_t lo = 0, hi = kt->nr_funcs;

	if (!kt->built || kt_lookup(kt, off, &frame))
		return -ENOENT;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (kt->funcs[mid] <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -ENOENT;
	*start = kt->funcs[lo - 1];
	return 0;
}

void kt_free(struct ktable *kt)
{
	free(kt->buf);
	kt->buf = NULL;
	kt_drop_validation(kt);
}

bool res_eq(const struct res *a, const struct res *b)
{
	if (a->rc != b->rc)
		return false;
	if (a->rc)
		return true;
	return a->f.cfa_off == b->f.cfa_off && a->f.ra_off == b->f.ra_off &&
	       a->f.fp_off == b->f.fp_off && a->f.use_fp == b->f.use_fp &&
	       a->f.ra_saved == b->f.ra_saved &&
	       a->f.fp_saved == b->f.fp_saved &&
	       a->f.ra_signed == b->f.ra_signed &&
	       a->f.outermost == b->f.outermost;
}

const char *res_str(const struct res *r)
{
	static char bufs[4][128];
	static int n;
	char *b = bufs[n++ & 3];

	if (r->rc) {
		snprintf(b, 128, "rc=%d (%s)", r->rc,
			 r->rc == -ENOENT ? "ENOENT" :
			 r->rc == -EINVAL ? "EINVAL" :
			 r->rc == -EFAULT ? "EFAULT" : "?");
		return b;
	}
	snprintf(b, 128, "%sCFA=%s%+d RA=%s%+d FP=%s%+d%s",
		 r->f.outermost ? "OUTERMOST " : "",
		 r->f.use_fp ? "fp" : "sp", r->f.cfa_off,
		 r->f.ra_saved ? "c" : "u", r->f.ra_off,
		 r->f.fp_saved ? "c" : "u", r->f.fp_off,
		 r->f.ra_signed ? " [signed]" : "");
	return b;
}

void kt_find_res(struct ktable *kt, uint64_t pc, struct res *r)
{
	/* A pattern, so a field the decoder leaves alone shows. */
	memset(r, 0x5a, sizeof(*r));
	r->rc = kt_find(kt, pc, &r->f);
}

/* ---- writer and model ------------------------------------------------------ */

static unsigned int addr_size(uint8_t func_info)
{
	switch (func_info & 0xf) {
	case 0: return 1;
	case 1: return 2;
	case 2: return 4;
	}
	return 4;	/* invalid types: written as 4 bytes */
}

static unsigned int off_size(uint8_t fre_info)
{
	static const unsigned int sz[4] = { 1, 2, 4, 4 };

	return sz[(fre_info >> 5) & 3];
}

unsigned int gen_off_size_code(int32_t v)
{
	if (v >= INT8_MIN && v <= INT8_MAX)
		return 0;
	if (v >= INT16_MIN && v <= INT16_MAX)
		return 1;
	return 2;
}

static uint8_t *put_le(uint8_t *p, uint32_t v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		*p++ = v >> (8 * i);
	return p;
}

uint8_t *gen_write(const struct gen *g, const struct gen_layout *l,
		   uint64_t vaddr, size_t *size)
{
	size_t hdr_size = HDR_SIZE + l->auxhdr_len;
	size_t fde_size = l->version == 1 ? FDE_V1_SIZE : FDE_V2_SIZE;
	size_t fdes_len = g->num_fdes * fde_size, fre_len = 0, total;
	uint32_t fdeoff, freoff, i, j, k;
	uint8_t *buf, *p, *fre_p;

	for (i = 0; i < g->num_fdes; i++) {
		const struct gen_fde *fd = &g->fdes[i];

		for (j = 0; j < fd->num_fres; j++)
			fre_len += addr_size(fd->info) + 1 +
				   ((fd->fres[j].info >> 1) & 0xf) *
				   off_size(fd->fres[j].info);
	}
	total = hdr_size + fdes_len + l->gap + fre_len;
	if (l->fres_first) {
		freoff = 0;
		fdeoff = fre_len + l->gap;
	} else {
		fdeoff = 0;
		freoff = fdes_len + l->gap;
	}
	buf = calloc(1, total ? total : 1);
	put_u16(buf, 0xdee2);
	buf[2] = l->version;
	buf[3] = F_SORTED | g->flags | (l->pcrel ? F_PCREL : 0);
	buf[4] = g->abi;
	buf[5] = (uint8_t)g->fixed_fp;
	buf[6] = (uint8_t)g->fixed_ra;
	buf[7] = l->auxhdr_len;
	put_u32(buf + 8, g->num_fdes);
	put_u32(buf + 16, fre_len);
	put_u32(buf + 20, fdeoff);
	put_u32(buf + 24, freoff);
	memset(buf + HDR_SIZE, 0xaa, l->auxhdr_len);
	memset(buf + hdr_size + (l->fres_first ? fre_len : fdes_len), 0x55,
	       l->gap);

	fre_p = buf + hdr_size + freoff;
	for (i = 0, k = 0; i < g->num_fdes; i++) {
		const struct gen_fde *fd = &g->fdes[i];
		size_t fde_at = hdr_size + fdeoff + i * fde_size;
		int64_t base = l->pcrel ? (int64_t)(vaddr + fde_at) :
					  (int64_t)vaddr;

		p = buf + fde_at;
		put_u32(p, (uint32_t)(int32_t)(fd->start - base));
		put_u32(p + 4, fd->size);
		put_u32(p + 8, fre_p - (buf + hdr_size + freoff));
		put_u32(p + 12, fd->num_fres);
		p[16] = fd->info;
		if (l->version != 1) {
			p[17] = (fd->info >> 4) & 1 ? fd->rep_size :
						      l->rep_size_pcinc;
			p[18] = p[19] = 0;
		}
		for (j = 0; j < fd->num_fres; j++, k++) {
			const struct gen_fre *fr = &fd->fres[j];
			unsigned int n = (fr->info >> 1) & 0xf, m;

			fre_p = put_le(fre_p, fr->start, addr_size(fd->info));
			*fre_p++ = fr->info;
			for (m = 0; m < n; m++)
				fre_p = put_le(fre_p, m < 3 ? fr->off[m] : 0,
					       off_size(fr->info));
		}
	}
	/*
	 * num_fres: the FREs of all functions together, as binutils writes
	 * it; the decoder rejects descriptors that claim more.
	 */
	put_u32(buf + 12, k);
	*size = total;
	return buf;
}

void gen_model(const struct gen *g, int version, uint64_t pc, struct res *r)
{
	const struct gen_fde *fd = NULL;
	const struct gen_fre *fr = NULL;
	uint32_t i, n, idx = 1, lo = 0, hi = g->num_fdes;
	uint64_t pc_off;

	memset(r, 0, sizeof(*r));
	/* The last function starting at or below @pc (starts increase). */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if ((int64_t)pc >= g->fdes[mid].start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo)
		fd = &g->fdes[lo - 1];
	if (!fd || pc - fd->start >= fd->size) {
		r->rc = -ENOENT;
		return;
	}
	pc_off = pc - fd->start;
	if ((fd->info >> 4) & 1) {
		unsigned int rep = version == 1 ? 16 : fd->rep_size;

		if (!rep) {
			r->rc = -EINVAL;
			return;
		}
		pc_off %= rep;
	}
	for (i = 0; i < fd->num_fres; i++)
		if (fd->fres[i].start <= pc_off)
			fr = &fd->fres[i];
	if (!fr) {
		r->rc = -ENOENT;
		return;
	}
	n = (fr->info >> 1) & 0xf;
	/* No offset: the outermost frame (SFrame v2 erratum), nothing else. */
	if (!n) {
		r->f.outermost = true;
		return;
	}
	r->f.cfa_off = fr->off[0];
	r->f.use_fp = !(fr->info & 1);
	r->f.ra_signed = fr->info >> 7;
	if (g->fixed_ra) {
		r->f.ra_saved = true;
		r->f.ra_off = g->fixed_ra;
	} else if (n > idx) {
		r->f.ra_saved = true;
		r->f.ra_off = fr->off[idx++];
	}
	if (g->fixed_fp) {
		r->f.fp_saved = true;
		r->f.fp_off = g->fixed_fp;
	} else if (n > idx) {
		r->f.fp_saved = true;
		r->f.fp_off = fr->off[idx];
	}
}

/* ---- converter ------------------------------------------------------------ */

uint8_t *convert_v1(const uint8_t *v1, size_t v1_size, uint64_t vaddr,
		    const struct gen_layout *l, size_t *size)
{
	size_t hdr1, hdr2 = HDR_SIZE + l->auxhdr_len, fde2, fdes_len, total;
	uint32_t n, fre_len, fdeoff1, freoff1, fdeoff2, freoff2, i;
	uint8_t *buf;

	if (v1_size < HDR_SIZE || get_u16(v1) != 0xdee2 || v1[2] != 1)
		return NULL;
	hdr1 = HDR_SIZE + v1[7];
	n = get_u32(v1 + 8);
	fre_len = get_u32(v1 + 16);
	fdeoff1 = get_u32(v1 + 20);
	freoff1 = get_u32(v1 + 24);
	if (hdr1 + fdeoff1 + (uint64_t)n * FDE_V1_SIZE > v1_size ||
	    hdr1 + freoff1 + (uint64_t)fre_len > v1_size)
		return NULL;
	fde2 = l->version == 1 ? FDE_V1_SIZE : FDE_V2_SIZE;
	fdes_len = n * fde2;
	if (l->fres_first) {
		freoff2 = 0;
		fdeoff2 = fre_len + l->gap;
	} else {
		fdeoff2 = 0;
		freoff2 = fdes_len + l->gap;
	}
	total = hdr2 + fdes_len + l->gap + fre_len;
	buf = calloc(1, total);
	memcpy(buf, v1, HDR_SIZE);	/* num_fres and fre_len unchanged */
	buf[2] = l->version;
	buf[3] = (v1[3] & ~F_PCREL) | (l->pcrel ? F_PCREL : 0);
	buf[7] = l->auxhdr_len;
	put_u32(buf + 20, fdeoff2);
	put_u32(buf + 24, freoff2);
	memset(buf + HDR_SIZE, 0xaa, l->auxhdr_len);
	memset(buf + hdr2 + (l->fres_first ? fre_len : fdes_len), 0x55,
	       l->gap);
	memcpy(buf + hdr2 + freoff2, v1 + hdr1 + freoff1, fre_len);
	for (i = 0; i < n; i++) {
		const uint8_t *o = v1 + hdr1 + fdeoff1 + i * FDE_V1_SIZE;
		size_t at = hdr2 + fdeoff2 + i * fde2;
		uint8_t *p = buf + at;
		int64_t start = (int64_t)vaddr + (int32_t)get_u32(o);

		memcpy(p, o, FDE_V1_SIZE);
		if (l->pcrel)
			put_u32(p, (uint32_t)(int32_t)(start -
						       (int64_t)(vaddr + at)));
		if (l->version != 1) {
			p[17] = (o[16] >> 4) & 1 ? 16 : l->rep_size_pcinc;
			p[18] = 0x12;	/* padding: must be ignored */
			p[19] = 0x34;
		}
	}
	*size = total;
	return buf;
}
