// SPDX-License-Identifier: GPL-2.0
/*
 * Oracle test of kernel/unwind/eh_frame.c: for each ELF file, convert its
 * .eh_frame with eh_frame_convert() and compare every row of every FDE
 * with what GNU readelf computes (readelf -wN --debug-dump=frames-interp),
 * the DWARF expressions and DW_CFA_undefined rules taken from
 * --debug-dump=frames. The expected rule of a row is derived from
 * readelf's text only (see expect()), not from the converter.
 *
 * Usage: ehtest_oracle [-v] FILE...   (TAP on stdout; exit 1 on failure)
 */
#include <ctype.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eh_frame.h"

int hostshim_fatal_countdown = -1;	/* shim/linux/sched.h */

static int verbose;

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		perror("realloc");
		exit(2);
	}
	return p;
}

#define PUSH(arr, n, cap, val) do {					\
	if ((n) == (cap)) {						\
		(cap) = (cap) ? 2 * (cap) : 64;				\
		(arr) = xrealloc((arr), (cap) * sizeof(*(arr)));	\
	}								\
	(arr)[(n)++] = (val);						\
} while (0)

/* ---- what the converter produced ---------------------------------- */

struct crow {
	u64 pc;
	int has;
	struct unwind_user_frame f;
};

struct cfde {
	u64 start, end;
	size_t first, n;	/* rows */
};

struct conv {
	struct cfde *fdes;
	size_t nfdes, capfdes;
	struct crow *rows;
	size_t nrows, caprows;
	int order_err;
};

static int c_func(void *ctx, u64 start, u64 end)
{
	struct conv *c = ctx;
	struct cfde f = { start, end, c->nrows, 0 };

	PUSH(c->fdes, c->nfdes, c->capfdes, f);
	return 0;
}

static int c_row(void *ctx, u64 pc, const struct unwind_user_frame *frame)
{
	struct conv *c = ctx;
	struct crow r = { .pc = pc, .has = !!frame };
	struct cfde *f;

	if (!c->nfdes) {
		c->order_err++;
		return 0;
	}
	f = &c->fdes[c->nfdes - 1];
	if (pc < f->start || pc >= f->end ||
	    (f->n && pc <= c->rows[c->nrows - 1].pc) ||
	    (!f->n && pc != f->start))
		c->order_err++;
	if (frame)
		r.f = *frame;
	PUSH(c->rows, c->nrows, c->caprows, r);
	f->n++;
	return 0;
}

/* ---- readelf's view --------------------------------------------------- */

struct event {
	u64 loc;
	int col;		/* DW_CFA_undefined on this column */
	char *expr;		/* or a DW_CFA_def_cfa_expression */
};

struct rrow {
	u64 loc;
	char cfa[48], ra[48], fp[48], sp[48], csr[48];
};

struct entry {
	u32 off;
	int is_cie;
	u32 cie;
	u64 lo, hi;
	char aug[16];
	int ra_col;		/* a CIE's return address column, or -1 */
	struct event *ev;
	size_t nev, capev;
	struct rrow *rows;
	size_t nrows, caprows;
};

struct dump {
	struct entry *e;
	size_t n, cap;
};

static struct entry *find_entry(struct dump *d, u32 off)
{
	size_t lo = 0, hi = d->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (d->e[mid].off == off)
			return &d->e[mid];
		if (d->e[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static FILE *run_readelf(const char *what, const char *file)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd),
		 "readelf -wN --debug-dump=%s '%s' 2>/dev/null", what, file);
	return popen(cmd, "r");
}

/*
 * An entry header: "00000018 0000000000000024 0000001c FDE cie=00000000
 * pc=0000000000026000..0000000000026360" or "... CIE ...".
 */
static int parse_header(const char *l, struct entry *e)
{
	unsigned int off, id, cie;
	unsigned long long len, lo, hi;
	int n = 0;

	memset(e, 0, sizeof(*e));
	e->ra_col = -1;
	if (sscanf(l, "%8x %16llx %8x %n", &off, &len, &id, &n) != 3 || !n)
		return 0;
	e->off = off;
	l += n;
	if (!strncmp(l, "CIE", 3)) {
		const char *q = strchr(l, '"');

		e->is_cie = 1;
		if (q) {
			size_t k = 0;

			for (q++; *q && *q != '"' && k < sizeof(e->aug) - 1; q++)
				e->aug[k++] = *q;
		}
		return 1;
	}
	if (sscanf(l, "FDE cie=%8x pc=%llx..%llx", &cie, &lo, &hi) == 3) {
		e->cie = cie;
		e->lo = lo;
		e->hi = hi;
		return 1;
	}
	return 0;
}

static int regnum(int x86, const char *name)
{
	static const char *const x86n[] = {
		"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip",
	};
	unsigned int i;

	if (x86) {
		for (i = 0; i < sizeof(x86n) / sizeof(x86n[0]); i++)
			if (!strcmp(name, x86n[i]))
				return i;
		return -1;
	}
	if (!strcmp(name, "sp"))
		return 31;
	if (name[0] == 'x' && isdigit((unsigned char)name[1])) {
		i = atoi(name + 1);
		if (i <= 30)
			return i;
	}
	return -1;
}

/* Parse the raw dump: expressions and DW_CFA_undefined, by location. */
static int parse_raw(FILE *fp, struct dump *d)
{
	struct entry *cur = NULL, e;
	char *line = NULL;
	size_t cap = 0;
	u64 loc = 0;

	while (getline(&line, &cap, fp) > 0) {
		char *p;

		line[strcspn(line, "\n")] = 0;
		if (isxdigit((unsigned char)line[0])) {
			if (parse_header(line, &e)) {
				PUSH(d->e, d->n, d->cap, e);
				cur = &d->e[d->n - 1];
				loc = cur->lo;
			} else {
				cur = NULL;
			}
			continue;
		}
		if (!cur)
			continue;
		p = line;
		while (*p == ' ')
			p++;
		if (!strncmp(p, "DW_CFA_advance_loc", 18) ||
		    !strncmp(p, "DW_CFA_set_loc", 14)) {
			char *to = strstr(p, " to ");

			if (to)
				loc = strtoull(to + 4, NULL, 16);
			else if (!strncmp(p, "DW_CFA_set_loc: ", 16))
				loc = strtoull(p + 16, NULL, 16);
		} else if (!strncmp(p, "DW_CFA_def_cfa_expression (", 27)) {
			struct event ev = { .loc = loc, .col = -1 };
			size_t l;

			ev.expr = strdup(p + 27);
			l = strlen(ev.expr);
			if (l && ev.expr[l - 1] == ')')
				ev.expr[l - 1] = 0;
			PUSH(cur->ev, cur->nev, cur->capev, ev);
		} else if (cur->is_cie && !strncmp(p, "Augmentation:", 13) &&
			   strchr(p, '"')) {
			char *q = strchr(p, '"') + 1;
			size_t k = 0;

			while (*q && *q != '"' && k < sizeof(cur->aug) - 1)
				cur->aug[k++] = *q++;
			cur->aug[k] = 0;
		} else if (cur->is_cie &&
			   !strncmp(p, "Return address column:", 22)) {
			cur->ra_col = atoi(p + 22);
		} else if (!strncmp(p, "DW_CFA_undefined: r", 19)) {
			struct event ev = { .loc = loc };

			ev.col = atoi(p + 19);
			PUSH(cur->ev, cur->nev, cur->capev, ev);
		}
	}
	free(line);
	return 0;
}

/*
 * Split a row of frames-interp into cells; "r15 (x15)" is one cell.
 * Return the number of cells.
 */
static int split_cells(char *l, char **cells, int max)
{
	int n = 0;
	char *tok = strtok(l, " \t");

	while (tok && n < max) {
		if (tok[0] == '(' && n > 0 && cells[n - 1][0] == 'r' &&
		    isdigit((unsigned char)cells[n - 1][1])) {
			/* glue to the previous cell */
			tok = strtok(NULL, " \t");
			continue;
		}
		cells[n++] = tok;
		tok = strtok(NULL, " \t");
	}
	return n;
}

static int parse_interp(FILE *fp, struct dump *d, int x86)
{
	const char *fpname = x86 ? "rbp" : "x29", *spname = x86 ? "rsp" : "sp";
	const char *csrname = x86 ? "rbx" : "";	/* arm64 follows none */
	struct entry *cur = NULL, e;
	int ci_ra = -1, ci_fp = -1, ci_cfa = -1, ci_sp = -1, ci_csr = -1;
	char *line = NULL, *cells[256];
	size_t cap = 0;

	while (getline(&line, &cap, fp) > 0) {
		int n, i;

		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "   LOC", 6)) {
			n = split_cells(line, cells, 256);
			ci_ra = ci_fp = ci_cfa = ci_sp = ci_csr = -1;
			for (i = 0; i < n; i++) {
				if (!strcmp(cells[i], "CFA"))
					ci_cfa = i;
				else if (!strcmp(cells[i], "ra"))
					ci_ra = i;
				else if (!strcmp(cells[i], fpname))
					ci_fp = i;
				else if (!strcmp(cells[i], spname))
					ci_sp = i;
				else if (!strcmp(cells[i], csrname))
					ci_csr = i;
			}
			continue;
		}
		if (strlen(line) > 17 && line[16] == ' ' && cur &&
		    strspn(line, "0123456789abcdef") == 16) {
			struct rrow r;

			memset(&r, 0, sizeof(r));
			n = split_cells(line, cells, 256);
			r.loc = strtoull(cells[0], NULL, 16);
			if (ci_cfa < 0 || ci_cfa >= n)
				return -1;
			snprintf(r.cfa, sizeof(r.cfa), "%s", cells[ci_cfa]);
			snprintf(r.ra, sizeof(r.ra), "%s",
				 ci_ra >= 0 && ci_ra < n ? cells[ci_ra] : "-");
			snprintf(r.fp, sizeof(r.fp), "%s",
				 ci_fp >= 0 && ci_fp < n ? cells[ci_fp] : "-");
			snprintf(r.sp, sizeof(r.sp), "%s",
				 ci_sp >= 0 && ci_sp < n ? cells[ci_sp] : "-");
			snprintf(r.csr, sizeof(r.csr), "%s",
				 ci_csr >= 0 && ci_csr < n ? cells[ci_csr] : "-");
			PUSH(cur->rows, cur->nrows, cur->caprows, r);
			continue;
		}
		if (isxdigit((unsigned char)line[0]) && parse_header(line, &e)) {
			struct entry *x = find_entry(d, e.off);

			if (!x || x->is_cie != e.is_cie || x->lo != e.lo ||
			    x->hi != e.hi)
				return -1;
			cur = x;
			ci_ra = ci_fp = ci_cfa = ci_sp = ci_csr = -1;
		}
	}
	free(line);
	return 0;
}

/* ---- the expected rule of a readelf row ------------------------------ */

enum exp_kind { EXP_FRAME, EXP_PLT, EXP_BAD };

static const char *const bad_names[] = {
	"cfa_expr", "cfa_reg", "ra", "fp", "offset", "fde", "plt", "sp",
};

#define PLT_TEXT "DW_OP_breg7 (rsp): 8; DW_OP_breg16 (rip): 0; " \
	"DW_OP_lit15; DW_OP_and; DW_OP_lit11; DW_OP_ge; DW_OP_lit3; " \
	"DW_OP_shl; DW_OP_plus"

struct ctx {
	int x86;
	int sp, fp, ra, csr, max_gpr;	/* csr: -1 where none is followed */
	struct dump raw;
};

static int fits32(long long v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* "c-8", "c+16" */
static int cell_cfa_off(const char *s, long long *off)
{
	char *end;

	if (s[0] != 'c' || (s[1] != '+' && s[1] != '-'))
		return 0;
	*off = strtoll(s + 1, &end, 10);
	return !*end;
}

/* "r5 (rdi)" (glued as "r5") */
static int cell_reg(const char *s, int *reg)
{
	char *end;

	if (s[0] != 'r' || !isdigit((unsigned char)s[1]))
		return 0;
	*reg = strtol(s + 1, &end, 10);
	return !*end;
}

/* Latest event of @e, @col (or expression if col < 0), at loc <= @loc. */
static struct event *last_event(struct entry *e, int col, u64 loc)
{
	struct event *best = NULL;

	for (size_t i = 0; e && i < e->nev; i++) {
		struct event *ev = &e->ev[i];

		if ((col < 0 ? !ev->expr : ev->col != col || !!ev->expr))
			continue;
		if (!e->is_cie && ev->loc > loc)
			continue;
		best = ev;
	}
	return best;
}

static int undefined_at(struct entry *fde, struct entry *cie, int col,
			u64 loc)
{
	return last_event(fde, col, loc) || last_event(cie, col, loc);
}

/*
 * The rule readelf shows for the row at @loc of @fde, as a frame
 * (EXP_FRAME), the .plt expression (EXP_PLT: the frame holds the RA and
 * FP rules) or something no frame expresses (EXP_BAD, *why set).
 */
static int expect(struct ctx *cx, struct entry *fde, struct entry *cie,
		  const struct rrow *r, struct unwind_user_frame *f,
		  const char **why)
{
	int plt = 0, base, reg;
	long long off;

	memset(f, 0, sizeof(*f));
	if (strchr(cie->aug, 'S')) {
		f->signal = true;
		return EXP_FRAME;
	}
	/* glibc's arm64 rawmemchr: a CIE with column 15 for the RA */
	if (cie->ra_col >= 0 && cie->ra_col != cx->ra) {
		*why = "ra(column)";
		return EXP_BAD;
	}
	/*
	 * A function that makes its return address undefined anywhere is
	 * outermost at every row (the kernel's choice: arm64's _start says
	 * so only after its first instruction).
	 */
	if (undefined_at(fde, cie, cx->ra, ~0ULL)) {
		f->outermost = true;
		return EXP_FRAME;
	}

	if (!strcmp(r->cfa, "exp")) {
		struct event *ev = last_event(fde, -1, r->loc);
		char name[16];
		int n = 0;

		if (!ev)
			ev = last_event(cie, -1, r->loc);
		if (!ev) {
			*why = "cfa_expr(unknown)";
			return EXP_BAD;
		}
		if (cx->x86 && !strcmp(ev->expr, PLT_TEXT)) {
			plt = 1;
			base = cx->sp;
			off = 8;
		} else if (sscanf(ev->expr, "DW_OP_breg%d (%15[^)]): %lld; "
				  "DW_OP_deref%n", &base, name, &off, &n) == 3 &&
			   n && !ev->expr[n]) {
			f->flags |= UNWIND_USER_F_CFA_DEREF;
		} else {
			*why = "cfa_expr";
			return EXP_BAD;
		}
	} else {
		char *pm = strpbrk(r->cfa, "+-");
		char name[16];

		if (!pm || pm - r->cfa >= (long)sizeof(name)) {
			*why = "cfa_reg(text)";
			return EXP_BAD;
		}
		memcpy(name, r->cfa, pm - r->cfa);
		name[pm - r->cfa] = 0;
		base = regnum(cx->x86, name);
		off = strtoll(pm, NULL, 10);
		if (base < 0) {
			*why = "cfa_reg";
			return EXP_BAD;
		}
	}
	if (!fits32(off)) {
		*why = "offset";
		return EXP_BAD;
	}
	f->cfa_off = off;
	if (base == cx->fp) {
		f->use_fp = true;
	} else if (base != cx->sp) {
		if (base > cx->max_gpr) {
			*why = "cfa_reg";
			return EXP_BAD;
		}
		f->flags |= UNWIND_USER_F_CFA_REG;
		f->cfa_reg = base;
	}

	/* the caller's stack pointer: the CFA, unless a rule says otherwise */
	if (strcmp(r->sp, "-") && strcmp(r->sp, "v+0") &&
	    (strcmp(r->sp, "u") || undefined_at(fde, cie, cx->sp, r->loc))) {
		*why = "sp";
		return EXP_BAD;
	}

	if (cell_cfa_off(r->ra, &off)) {
		if (!fits32(off)) {
			*why = "offset";
			return EXP_BAD;
		}
		f->ra_saved = true;
		f->ra_off = off;
	} else if (cell_reg(r->ra, &reg)) {
		if (!(reg == cx->ra && !cx->x86)) {
			if (reg > cx->max_gpr || reg == cx->ra) {
				*why = "ra";
				return EXP_BAD;
			}
			f->flags |= UNWIND_USER_F_RA_REG;
			f->ra_reg = reg;
		}
	} else if (!strcmp(r->ra, "u") || !strcmp(r->ra, "s") ||
		   !strcmp(r->ra, "-")) {
		if (cx->x86) {
			*why = "ra";
			return EXP_BAD;
		}
	} else {
		*why = "ra";
		return EXP_BAD;
	}

	if (cell_cfa_off(r->fp, &off)) {
		if (!fits32(off)) {
			*why = "offset";
			return EXP_BAD;
		}
		f->fp_saved = true;
		f->fp_off = off;
	} else if (cell_reg(r->fp, &reg)) {
		if (reg != cx->fp) {
			if (reg > cx->max_gpr) {
				*why = "fp";
				return EXP_BAD;
			}
			f->flags |= UNWIND_USER_F_FP_REG;
			f->fp_reg = reg;
		}
	} else if (!strcmp(r->fp, "u")) {
		if (undefined_at(fde, cie, cx->fp, r->loc)) {
			*why = "fp";
			return EXP_BAD;
		}
	} else if (strcmp(r->fp, "s") && strcmp(r->fp, "-")) {
		*why = "fp";
		return EXP_BAD;
	}

	/* the followed callee-saved register: kept, saved, or lost */
	if (cx->csr >= 0) {
		if (cell_cfa_off(r->csr, &off)) {
			if (fits32(off)) {
				f->csr = UNWIND_USER_CSR_SAVED;
				f->csr_off = off;
			}
		} else if ((cell_reg(r->csr, &reg) && reg == cx->csr) ||
			   !strcmp(r->csr, "s") || !strcmp(r->csr, "-") ||
			   (!strcmp(r->csr, "u") &&
			    !undefined_at(fde, cie, cx->csr, r->loc))) {
			f->csr = UNWIND_USER_CSR_SAME;
		}
	}
	return plt ? EXP_PLT : EXP_FRAME;
}

static int same_frame(const struct unwind_user_frame *a,
		      const struct unwind_user_frame *b)
{
	return a->cfa_off == b->cfa_off && a->ra_off == b->ra_off &&
	       a->fp_off == b->fp_off && a->use_fp == b->use_fp &&
	       a->ra_saved == b->ra_saved && a->fp_saved == b->fp_saved &&
	       a->ra_signed == b->ra_signed && a->outermost == b->outermost &&
	       a->signal == b->signal && a->flags == b->flags &&
	       a->cfa_reg == b->cfa_reg && a->ra_reg == b->ra_reg &&
	       a->fp_reg == b->fp_reg && a->csr == b->csr &&
	       a->csr_off == b->csr_off;
}

static void show_frame(char *buf, size_t n, const struct crow *c)
{
	const struct unwind_user_frame *f = &c->f;

	if (!c->has) {
		snprintf(buf, n, "NULL");
		return;
	}
	snprintf(buf, n, "cfa=%s%s%d%s ra=%s%d%s fp=%s%d flags=%#x cr=%u rr=%u "
		 "fr=%u csr=%u/%d%s%s", f->use_fp ? "fp" : "sp",
		 f->cfa_off >= 0 ? "+" : "", f->cfa_off,
		 f->flags & UNWIND_USER_F_CFA_DEREF ? "(deref)" : "",
		 f->ra_saved ? "c" : "-", f->ra_off,
		 f->ra_signed ? "(signed)" : "", f->fp_saved ? "c" : "-",
		 f->fp_off, f->flags, f->cfa_reg, f->ra_reg, f->fp_reg, f->csr,
		 f->csr_off, f->outermost ? " outermost" : "", f->signal ? " signal" : "");
}

/* ---- one file ------------------------------------------------------ */

struct result {
	long fdes, rows, equal, bad, differ, fde_mismatch;
	long bad_by[16];
};

static int load_elf(const char *path, struct eh_frame_input *in,
		    u8 **hdr, u8 **eh, char *err, size_t errn)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh_;
	size_t shstrndx;
	u64 tlo = ~0ULL, thi = 0;
	int got = 0;

	if (fd < 0) {
		snprintf(err, errn, "cannot open");
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || !gelf_getehdr(elf, &eh_) ||
	    elf_getshdrstrndx(elf, &shstrndx)) {
		snprintf(err, errn, "not an ELF file");
		return -1;
	}
	memset(in, 0, sizeof(*in));
	if (eh_.e_machine == EM_X86_64)
		in->arch = EH_FRAME_ARCH_X86_64;
	else if (eh_.e_machine == EM_AARCH64)
		in->arch = EH_FRAME_ARCH_ARM64;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if ((sh.sh_flags & SHF_EXECINSTR) && sh.sh_size) {
			if (sh.sh_addr < tlo)
				tlo = sh.sh_addr;
			if (sh.sh_addr + sh.sh_size > thi)
				thi = sh.sh_addr + sh.sh_size;
		}
		if (!name || sh.sh_type != SHT_PROGBITS)
			continue;
		if (!strcmp(name, ".eh_frame_hdr") || !strcmp(name, ".eh_frame")) {
			int is_hdr = !strcmp(name, ".eh_frame_hdr");
			u8 *copy;

			d = elf_getdata(scn, NULL);
			if (!d || d->d_size != sh.sh_size)
				continue;
			copy = malloc(d->d_size ? d->d_size : 1);
			memcpy(copy, d->d_buf, d->d_size);
			if (is_hdr) {
				*hdr = copy;
				in->hdr = copy;
				in->hdr_size = d->d_size;
				in->hdr_addr = sh.sh_addr;
				got |= 1;
			} else {
				*eh = copy;
				in->eh = copy;
				in->eh_size = d->d_size;
				in->eh_addr = sh.sh_addr;
				got |= 2;
			}
		}
	}
	in->text_start = tlo;
	in->text_end = thi;
	elf_end(elf);
	close(fd);
	if (!in->arch) {
		snprintf(err, errn, "neither x86_64 nor aarch64");
		return -1;
	}
	/* Without .eh_frame_hdr (static programs): eh_frame_index() */
	if (!(got & 2)) {
		snprintf(err, errn, "no .eh_frame");
		return -1;
	}
	return 0;
}

/*
 * The same conversion through the table eh_frame_index() makes from the
 * records of .eh_frame alone: the same FDEs and rows as through the
 * file's .eh_frame_hdr. Returns the number of differences, or -1.
 */
static long index_differs(const struct eh_frame_input *file,
			  const struct conv *want)
{
	struct eh_frame_input in = *file;
	struct eh_frame_sink sink;
	struct eh_frame_stats st;
	struct conv cv;
	long diff = 0;
	size_t i;

	in.hdr = NULL;
	in.hdr_size = 0;
	in.hdr_addr = 0;
	if (eh_frame_index(&in))
		return -1;
	memset(&cv, 0, sizeof(cv));
	sink.func = c_func;
	sink.row = c_row;
	sink.ctx = &cv;
	if (eh_frame_convert(&in, &sink, &st)) {
		free((void *)in.hdr);
		return -1;
	}
	free((void *)in.hdr);
	if (cv.nfdes != want->nfdes || cv.nrows != want->nrows)
		diff++;
	for (i = 0; !diff && i < cv.nfdes; i++)
		diff += cv.fdes[i].start != want->fdes[i].start ||
			cv.fdes[i].end != want->fdes[i].end ||
			cv.fdes[i].n != want->fdes[i].n;
	for (i = 0; !diff && i < cv.nrows; i++)
		diff += cv.rows[i].pc != want->rows[i].pc ||
			cv.rows[i].has != want->rows[i].has ||
			(cv.rows[i].has &&
			 !same_frame(&cv.rows[i].f, &want->rows[i].f));
	free(cv.fdes);
	free(cv.rows);
	return diff;
}

static int check_file(const char *path, int *tap, int *failed)
{
	struct eh_frame_input in;
	struct eh_frame_stats st;
	struct eh_frame_sink sink;
	struct conv cv;
	struct dump d;
	struct ctx cx;
	struct result res;
	u8 *hdr = NULL, *eh = NULL;
	char err[128];
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	FILE *fp;
	int ret, shown = 0, indexed = 0;
	long index_diff = 0;
	size_t i, k;

	(*tap)++;
	if (access(path, R_OK)) {
		printf("ok %d - %s # SKIP not present\n", *tap, path);
		return 0;
	}
	if (load_elf(path, &in, &hdr, &eh, err, sizeof(err))) {
		printf("ok %d - %s # SKIP %s\n", *tap, path, err);
		return 0;
	}
	memset(&cv, 0, sizeof(cv));
	sink.func = c_func;
	sink.row = c_row;
	sink.ctx = &cv;
	/* A static program: the table from .eh_frame's records. */
	if (!in.hdr) {
		ret = eh_frame_index(&in);
		if (ret) {
			printf("not ok %d - %s: eh_frame_index() = %d\n",
			       *tap, path, ret);
			(*failed)++;
			return 0;
		}
		hdr = (u8 *)in.hdr;
		indexed = 1;
	}
	ret = eh_frame_convert(&in, &sink, &st);
	if (ret) {
		printf("not ok %d - %s: eh_frame_convert() = %d\n", *tap, path,
		       ret);
		(*failed)++;
		return 0;
	}

	memset(&cx, 0, sizeof(cx));
	cx.x86 = in.arch == EH_FRAME_ARCH_X86_64;
	cx.sp = cx.x86 ? 7 : 31;
	cx.fp = cx.x86 ? 6 : 29;
	cx.csr = cx.x86 ? 3 : -1;
	cx.ra = cx.x86 ? 16 : 30;
	cx.max_gpr = cx.x86 ? 15 : 31;
	memset(&d, 0, sizeof(d));
	fp = run_readelf("frames", path);
	if (!fp || parse_raw(fp, &d) || pclose(fp)) {
		printf("not ok %d - %s: readelf --debug-dump=frames failed\n",
		       *tap, path);
		(*failed)++;
		return 0;
	}
	fp = run_readelf("frames-interp", path);
	if (!fp || parse_interp(fp, &d, cx.x86) || pclose(fp)) {
		printf("not ok %d - %s: readelf frames-interp failed or did not "
		       "parse\n", *tap, path);
		(*failed)++;
		return 0;
	}

	memset(&res, 0, sizeof(res));
	res.fde_mismatch = cv.order_err;
	/* Each readelf FDE with a range must be a converted FDE. */
	k = 0;
	for (i = 0; i < d.n; i++) {
		struct entry *e = &d.e[i], *cie;
		struct cfde *cf = NULL;
		struct rrow cierow;
		size_t lo = 0, hi = cv.nfdes, ri;

		if (e->is_cie || e->lo == e->hi)
			continue;
		k++;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (cv.fdes[mid].start == e->lo) {
				cf = &cv.fdes[mid];
				break;
			}
			if (cv.fdes[mid].start < e->lo)
				lo = mid + 1;
			else
				hi = mid;
		}
		cie = find_entry(&d, e->cie);
		if (!cf || cf->end != e->hi || !cie || !cie->is_cie ||
		    (!e->nrows && !cie->nrows)) {
			res.fde_mismatch++;
			if (verbose || shown++ < 5)
				printf("# %s: FDE %#x %llx..%llx: not converted "
				       "alike\n", base, e->off,
				       (unsigned long long)e->lo,
				       (unsigned long long)e->hi);
			continue;
		}
		res.fdes++;
		if (!e->nrows) {
			/* No instructions: the CIE's row. */
			cierow = cie->rows[0];
			cierow.loc = e->lo;
			PUSH(e->rows, e->nrows, e->caprows, cierow);
		}
		for (ri = 0; ri < e->nrows; ri++) {
			struct rrow *r = &e->rows[ri];
			u64 a = r->loc < e->lo ? e->lo : r->loc;
			u64 b = ri + 1 < e->nrows ? e->rows[ri + 1].loc : e->hi;
			struct unwind_user_frame xf;
			const char *why = "?";
			int kind, ok = 1, allnull = 1;
			size_t j;

			if (b > e->hi)
				b = e->hi;
			if (a >= b)
				continue;
			res.rows++;
			kind = expect(&cx, e, cie, r, &xf, &why);
			/* converted rows overlapping [a, b) */
			for (j = 0; j < cf->n; j++) {
				struct crow *c = &cv.rows[cf->first + j];
				u64 cs = c->pc;
				u64 ce = j + 1 < cf->n ? c[1].pc : cf->end;

				if (ce <= a || cs >= b)
					continue;
				if (cs < a)
					cs = a;
				if (c->has)
					allnull = 0;
				if (kind == EXP_BAD) {
					ok &= !c->has;
				} else if (kind == EXP_PLT) {
					u64 ph = cs & 15;
					u64 lim = (cs & ~15ULL) +
						  (ph < 11 ? 11 : 16);

					xf.cfa_off = ph < 11 ? 8 : 16;
					ok &= c->has && same_frame(&c->f, &xf) &&
					      (ce > b ? b : ce) <= lim;
				} else {
					ok &= c->has && same_frame(&c->f, &xf);
				}
				if (!ok && (verbose || shown++ < 10)) {
					char buf[200];

					show_frame(buf, sizeof(buf), c);
					printf("# %s: DIFF at %llx (readelf row "
					       "%llx: CFA %s RA %s FP %s, expected "
					       "%s) converter: %s\n", base,
					       (unsigned long long)cs,
					       (unsigned long long)r->loc, r->cfa,
					       r->ra, r->fp,
					       kind == EXP_BAD ? why : "frame",
					       buf);
					break;
				}
			}
			if (!ok)
				res.differ++;
			else if (kind == EXP_BAD && allnull)
				res.bad++;
			else
				res.equal++;
		}
	}
	/* Through the table eh_frame_index() makes, the same rows. */
	if (!indexed)
		index_diff = index_differs(&in, &cv);
	if (index_diff)
		printf("# %s: through eh_frame_index(): %s\n", base,
		       index_diff < 0 ? "not converted" : "other rows");
	if (k != cv.nfdes) {
		res.fde_mismatch++;
		printf("# %s: readelf has %zu FDEs with a range, the converter "
		       "%zu\n", base, k, cv.nfdes);
	}

	printf("# %-24s %-6s fdes %6ld rows %7ld equal %7ld inexpr %4ld "
	       "differ %ld fde_mismatch %ld\n", base,
	       cx.x86 ? "x86_64" : "arm64", res.fdes, res.rows, res.equal,
	       res.bad, res.differ, res.fde_mismatch);
	printf("#   converter: fdes %u rows %u plt_rows %u signal_fdes %u "
	       "empty_fdes %u null_rows %u", st.fdes, st.rows, st.plt_rows,
	       st.signal_fdes, st.empty_fdes, st.bad_rows);
	for (i = 0; i < EH_FRAME_BAD_NR; i++)
		if (st.bad[i])
			printf(" %s=%u", bad_names[i], st.bad[i]);
	printf("\n");
	if (res.differ || res.fde_mismatch || !res.rows || index_diff) {
		printf("not ok %d - %s\n", *tap, path);
		(*failed)++;
	} else {
		printf("ok %d - %s: %ld rows, %ld equal, %ld inexpressible%s\n",
		       *tap, path, res.rows, res.equal, res.bad,
		       indexed ? " (no .eh_frame_hdr: eh_frame_index())" :
		       ", the same through eh_frame_index()");
	}
	for (i = 0; i < d.n; i++) {
		for (k = 0; k < d.e[i].nev; k++)
			free(d.e[i].ev[k].expr);
		free(d.e[i].ev);
		free(d.e[i].rows);
	}
	free(d.e);
	free(cv.fdes);
	free(cv.rows);
	free(hdr);
	free(eh);
	return 0;
}

int main(int argc, char **argv)
{
	int tap = 0, failed = 0, i, n = 0;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return 2;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else
			n++;
	}
	printf("1..%d\n", n);
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "-v"))
			check_file(argv[i], &tap, &failed);
	return failed ? 1 : 0;
}
