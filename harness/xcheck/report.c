// SPDX-License-Identifier: GPL-2.0
/*
 * xcheck-report: compare, sample by sample, the kernel's user call chain
 * with an unwind of the same sample's copied user stack by elfutils' libdw
 * (DWARF CFI: .eh_frame, or .debug_frame when the file has it).
 *
 *   xcheck-report [options] FILE          (FILE written by xcheck-record)
 *
 * Mappings are rebuilt from the MMAP2 records of each process, in time
 * order (an exec empties the address space, a fork copies it, a new mapping
 * replaces what it overlaps). Guest paths are turned into host paths with
 * --map GUEST=HOST (longest prefix wins; without a match the path is used as
 * it is); when the kernel recorded a build ID, the host file must have the
 * same one, otherwise it is not used. The vDSO image comes from the file.
 *
 * The comparison, per sample (K: kernel chain, D: libdw chain; entry 0 is
 * the sampled PC, entry i > 0 the return address of frame i; on arm64 both
 * are masked to 48 bits, as the kernel strips pointer authentication codes):
 *
 *  - libdw's chain ends where it ends naturally (the CFI of the outermost
 *    frame has no return address), or is cut: after a frame for which no
 *    CFI exists (libdw would go on with its own frame pointer heuristic,
 *    which is not DWARF), when a read falls outside the stack copy, on a
 *    libdw error, or where libdw stops although the CFI of its last frame
 *    has a return address.
 *  - m is the first index at which K and D differ (a different address, or
 *    one chain has ended and the other has not). No m: the chains are
 *    identical.
 *  - u is the first index whose frame is not described by SFrame in the
 *    file (looked up, as the kernel does, at the PC for frame 0 and at the
 *    return address - 1 above it). Frames 0..u are the part the kernel
 *    obtained with SFrame; from frame u on it unwinds with the frame
 *    pointer, which is not expected to give right results in code built
 *    without frame pointers (Debian's glibc has no .sframe).
 *  - identical chains: agree (whether or not SFrame was involved).
 *  - u == 0 and m > 0: excluded: the sampled PC has no SFrame, so the
 *    kernel's chain is a frame pointer walk from the start; there is no
 *    SFrame step to check.
 *  - m > u > 0: agree within SFrame coverage ("equal up to where SFrame
 *    coverage ends"): the first difference comes after the kernel left
 *    SFrame coverage. With --strict these count as mismatches.
 *  - libdw's chain was cut (not a natural end) and m == len(D): excluded,
 *    with the reason (stack did not fit the copy, no CFI, libdw error).
 *  - kernel chain cut at its sample_max_stack limit and m == len(K): agree.
 *  - otherwise: mismatch, listed with m and both addresses symbolised, and
 *    with the time since the process's first sample with a frame in that
 *    object's SFrame coverage; those within 10 ms are also counted apart
 *    (the kernel's documented cold-start fallback looks like that). They
 *    still count as mismatches.
 *
 * Agreement = agreed / compared, compared = samples - excluded. Exit
 * status 0 if it is at least --threshold percent (default 99), at least
 * --min-samples samples (default 200) were compared, of which at least
 * --min-sframe (default 0) had the sampled PC in SFrame-described code, and
 * the recording is complete; 1 if not; 2 on bad input.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <linux/perf_event.h>

#include <sframe-api.h>

#include "xcheck.h"

#define MAX_FRAMES		512
#define MAX_MAPS_ARGS		32
#define ARM64_VA_MASK		((1ULL << 48) - 1)
/* Mismatches this soon after an object's first SFrame use are counted apart. */
#define COLD_NS			10000000ULL

#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID	(1 << 14)
#endif

static const char *prog = "xcheck-report";

static void __attribute__((noreturn, format(printf, 1, 2))) fatal(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: error: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		fatal("out of memory");
	return p;
}

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		fatal("out of memory");
	return p;
}

/* ------------------------------------------------------------ options */

static struct {
	const char *guest, *host;
} path_map[MAX_MAPS_ARGS];
static int nr_path_maps;
static double threshold = 99.0;
static unsigned long min_samples = 200, min_sframe;
static unsigned long list_max = 20;
static bool strict, verbose;
static const char *label;

/* ------------------------------------------------------------ SFrame */

/*
 * Which PCs SFrame describes is decided by libsframe (binutils), not by a
 * copy of the kernel's decoder: an independent reading of the section.
 */

/* A .sframe section (PT_GNU_SFRAME) of a file, at its ELF address. */
struct sframe_sec {
	sframe_decoder_ctx *ctx;
	uint64_t	vaddr;
};

enum sf_cover { SF_NONE, SF_COVERED, SF_OUTERMOST };

static bool sframe_init(struct sframe_sec *s, const uint8_t *d, size_t size,
			uint64_t vaddr)
{
	int err = 0;

	s->ctx = sframe_decode((const char *)d, size, &err);
	s->vaddr = vaddr;
	return s->ctx && !err;
}

/* libsframe's lookup (the PC relative to the start of the section). */
static enum sf_cover sframe_lookup(const struct sframe_sec *s, uint64_t ip)
{
	sframe_frame_row_entry fre;
	int64_t rel = (int64_t)(ip - s->vaddr);

	if (rel < INT32_MIN || rel > INT32_MAX)
		return SF_NONE;
	memset(&fre, 0, sizeof(fre));
	if (sframe_find_fre(s->ctx, (int32_t)rel, &fre))
		return SF_NONE;
	/* a row without offsets marks the outermost frame */
	return SFRAME_V1_FRE_OFFSET_COUNT(fre.fre_info) ? SF_COVERED :
							  SF_OUTERMOST;
}

/* ------------------------------------------------------------ files */

struct file {
	struct file	*next;
	char		*guest;
	uint8_t		bid[20];
	int		bid_size;	/* 0: the record had no build ID */
	char		*host;		/* NULL: not usable, see problem */
	char		*problem;
	int		fd;
	Elf		*elf;
	bool		has_sframe;
	struct sframe_sec sf;
	bool		warned;
	bool		unverified;
};

static struct file *files;
static char *vdso_path;
static unsigned long nr_unverified;

static const char *map_path(const char *guest, char *buf, size_t len)
{
	size_t best = 0;
	int bi = -1;

	if (!strcmp(guest, "[vdso]"))
		return vdso_path;
	for (int i = 0; i < nr_path_maps; i++) {
		size_t n = strlen(path_map[i].guest);

		if (!strncmp(guest, path_map[i].guest, n) &&
		    (guest[n] == '/' || !guest[n] || path_map[i].guest[n - 1] == '/') &&
		    n > best) {
			best = n;
			bi = i;
		}
	}
	if (bi < 0)
		return guest;
	snprintf(buf, len, "%s%s", path_map[bi].host, guest + best);
	return buf;
}

static struct file *get_file(const char *guest, const uint8_t *bid, int bid_size)
{
	char buf[4096], msg[4096 + 256];
	const char *host;
	const void *hbid;
	struct file *f;
	size_t nph;
	ssize_t n;

	for (f = files; f; f = f->next)
		if (!strcmp(f->guest, guest) && f->bid_size == bid_size &&
		    !memcmp(f->bid, bid, bid_size))
			return f;
	f = xcalloc(1, sizeof(*f));
	f->guest = xstrdup(guest);
	memcpy(f->bid, bid, bid_size);
	f->bid_size = bid_size;
	f->fd = -1;
	f->next = files;
	files = f;

	host = map_path(guest, buf, sizeof(buf));
	if (!host) {
		f->problem = xstrdup("no vDSO image in the recording");
		return f;
	}
	f->fd = open(host, O_RDONLY);
	if (f->fd < 0) {
		snprintf(msg, sizeof(msg), "no host file %s for %s (use --map GUEST=HOST)",
			 host, guest);
		f->problem = xstrdup(msg);
		return f;
	}
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
		snprintf(msg, sizeof(msg), "host file %s for %s is not ELF", host, guest);
		f->problem = xstrdup(msg);
		return f;
	}
	n = dwelf_elf_gnu_build_id(f->elf, &hbid);
	if (bid_size) {
		if (n != bid_size || memcmp(hbid, bid, bid_size)) {
			snprintf(msg, sizeof(msg),
				 "host file %s differs from the guest's %s (build ID)",
				 host, guest);
			f->problem = xstrdup(msg);
			return f;
		}
	} else {
		nr_unverified++;
		f->unverified = true;
	}
	f->host = xstrdup(host);

	if (!elf_getphdrnum(f->elf, &nph)) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			Elf_Data *d;

			if (!gelf_getphdr(f->elf, i, &ph) || ph.p_type != 0x6474e554)
				continue;	/* PT_GNU_SFRAME */
			d = elf_getdata_rawchunk(f->elf, ph.p_offset, ph.p_filesz,
						 ELF_T_BYTE);
			if (d && sframe_init(&f->sf, d->d_buf, d->d_size, ph.p_vaddr))
				f->has_sframe = true;
		}
	}
	return f;
}

/* Load bias of a file mapped at @start from file offset @pgoff. */
static bool file_bias(struct file *f, uint64_t start, uint64_t pgoff, uint64_t *bias)
{
	size_t nph;
	uint64_t best = UINT64_MAX;

	if (!f->elf || elf_getphdrnum(f->elf, &nph))
		return false;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(f->elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		/* the segment whose page-aligned start is at pgoff */
		if (ph.p_offset >= pgoff && ph.p_offset - pgoff < best &&
		    ph.p_offset - pgoff < 0x10000) {
			best = ph.p_offset - pgoff;
			*bias = start - (ph.p_vaddr - (ph.p_offset - pgoff));
		}
	}
	return best != UINT64_MAX;
}

/* ------------------------------------------------------------ processes */

struct map {
	uint64_t	start, end, pgoff;
	struct file	*file;
	uint64_t	sf_first;	/* time of the first sample with a frame
					   in its SFrame coverage (0: none yet) */
};

struct proc {
	struct proc	*next;
	int		pid;
	struct map	*maps;
	int		nr_maps, cap;
	unsigned int	gen;
	Dwfl		*dwfl;
	unsigned int	dwfl_gen;
	bool		dwfl_failed;
};

static struct proc *procs;

static struct proc *get_proc(int pid, bool create)
{
	struct proc *p;

	for (p = procs; p; p = p->next)
		if (p->pid == pid)
			return p;
	if (!create)
		return NULL;
	p = xcalloc(1, sizeof(*p));
	p->pid = pid;
	p->gen = 1;
	p->next = procs;
	procs = p;
	return p;
}

static void add_map(struct proc *p, uint64_t start, uint64_t len, uint64_t pgoff,
		    struct file *f)
{
	uint64_t end = start + len;
	int i = 0;

	/* Drop or cut what the new mapping covers. */
	while (i < p->nr_maps) {
		struct map *m = &p->maps[i];

		if (m->end <= start || m->start >= end) {
			i++;
			continue;
		}
		if (m->start < start && m->end > end) {
			/* split: keep the tail as a new map */
			struct map tail = *m;

			tail.pgoff += end - m->start;
			tail.start = end;
			m->end = start;
			add_map(p, tail.start, tail.end - tail.start, tail.pgoff, tail.file);
			i++;
			continue;
		}
		if (m->start < start) {
			m->end = start;
			i++;
		} else if (m->end > end) {
			m->pgoff += end - m->start;
			m->start = end;
			i++;
		} else {
			*m = p->maps[--p->nr_maps];
		}
	}
	if (p->nr_maps == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 16;
		p->maps = realloc(p->maps, p->cap * sizeof(*p->maps));
		if (!p->maps)
			fatal("out of memory");
	}
	p->maps[p->nr_maps++] = (struct map){ start, end, pgoff, f, 0 };
	p->gen++;
}

static struct map *find_map(struct proc *p, uint64_t addr)
{
	for (int i = 0; i < p->nr_maps; i++)
		if (addr >= p->maps[i].start && addr < p->maps[i].end)
			return &p->maps[i];
	return NULL;
}

/* ------------------------------------------------------------ libdw */

static unsigned int e_machine, sample_max_stack;
static uint64_t regs_mask;

/* The sample being unwound. */
static struct {
	int		tid;
	const uint64_t	*regs;
	uint64_t	sp;
	const uint8_t	*stack;
	uint64_t	stack_len;
	bool		outside;
	uint64_t	outside_addr;
} cur;

static uint64_t reg(unsigned int bit)
{
	if (!(regs_mask & (1ULL << bit)))
		return 0;
	return cur.regs[__builtin_popcountll(regs_mask & ((1ULL << bit) - 1))];
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)arg;
	if (*thread_argp)
		return 0;
	*thread_argp = &cur;
	return cur.tid;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	(void)dwfl;
	(void)arg;
	if (addr < cur.sp || addr + 8 < addr || addr + 8 > cur.sp + cur.stack_len) {
		if (!cur.outside) {
			cur.outside = true;
			cur.outside_addr = addr;
		}
		return false;
	}
	memcpy(result, cur.stack + (addr - cur.sp), 8);
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	Dwarf_Word r[33];

	(void)arg;
	if (e_machine == EM_X86_64) {
		/* DWARF order: ax dx cx bx si di bp sp r8-r15 ip (rip = 16) */
		static const unsigned int perf[17] = {
			0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8,
		};

		for (int i = 0; i < 17; i++)
			r[i] = reg(perf[i]);
		return dwfl_thread_state_registers(thread, 0, 17, r);
	}
	/* arm64: x0-x30, sp are DWARF 0-31; perf's order is the same */
	for (int i = 0; i < 32; i++)
		r[i] = reg(i);
	if (!dwfl_thread_state_registers(thread, 0, 32, r))
		return false;
	dwfl_thread_state_register_pc(thread, reg(32));
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread		= next_thread,
	.memory_read		= memory_read,
	.set_initial_registers	= set_initial_registers,
};

static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			Dwarf_Addr base, const char *file_name,
			const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	(void)mod; (void)userdata; (void)modname; (void)base; (void)file_name;
	(void)debuglink_file; (void)debuglink_crc; (void)debuginfo_file_name;
	return -1;	/* .eh_frame and .symtab/.dynsym of the file itself */
}

static char *debuginfo_path;
static const Dwfl_Callbacks dwfl_callbacks = {
	.find_debuginfo		= no_debuginfo,
	.section_address	= dwfl_offline_section_address,
	.debuginfo_path		= &debuginfo_path,
};

static Dwfl *proc_dwfl(struct proc *p)
{
	if (p->dwfl && p->dwfl_gen == p->gen)
		return p->dwfl;
	if (!p->dwfl && p->dwfl_failed && p->dwfl_gen == p->gen)
		return NULL;
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->dwfl = dwfl_begin(&dwfl_callbacks);
	p->dwfl_gen = p->gen;
	p->dwfl_failed = false;
	if (!p->dwfl)
		fatal("dwfl_begin: %s", dwfl_errmsg(-1));
	dwfl_report_begin(p->dwfl);
	for (int i = 0; i < p->nr_maps; i++) {
		struct map *m = &p->maps[i];
		uint64_t bias;
		bool dup = false;
		const char *base;

		if (!m->file || !m->file->host)
			continue;
		for (int j = 0; j < i; j++)
			if (p->maps[j].file == m->file)
				dup = true;
		if (dup || !file_bias(m->file, m->start, m->pgoff, &bias))
			continue;
		base = strrchr(m->file->guest, '/');
		base = base ? base + 1 : m->file->guest;
		if (!dwfl_report_elf(p->dwfl, base, m->file->host, -1, bias, true) &&
		    !m->file->warned) {
			m->file->warned = true;
			fprintf(stderr, "%s: warning: libdw cannot use %s: %s\n", prog,
				m->file->host, dwfl_errmsg(-1));
		}
	}
	dwfl_report_end(p->dwfl, NULL, NULL);
	if (!dwfl_attach_state(p->dwfl, NULL, p->pid, &thread_callbacks, NULL)) {
		dwfl_end(p->dwfl);
		p->dwfl = NULL;
		p->dwfl_failed = true;
	}
	return p->dwfl;
}

/*
 * "func+0x12 (file)" for @addr, or "file+0x2724a" (ELF address) without a
 * symbol; @ret: a return address (the function is the one at addr - 1).
 * @func, if not NULL, gets the same without the address and offset.
 */
static void symbolise2(Dwfl *dwfl, struct proc *p, uint64_t addr, bool ret,
		       char *buf, size_t len, char *func, size_t flen)
{
	uint64_t look = ret && addr ? addr - 1 : addr, bias;
	Dwfl_Module *mod = dwfl ? dwfl_addrmodule(dwfl, look) : NULL;
	const char *name = NULL, *modname = NULL;
	struct map *m = p ? find_map(p, look) : NULL;
	GElf_Off off = 0;
	GElf_Sym sym;

	if (mod) {
		modname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
		name = dwfl_module_addrinfo(mod, look, &off, &sym, NULL, NULL, NULL);
		if (name)
			off += addr - look;
	}
	if (!modname && m && m->file) {
		modname = strrchr(m->file->guest, '/');
		modname = modname ? modname + 1 : m->file->guest;
	}
	if (name) {
		snprintf(buf, len, "%#" PRIx64 " %s+%#" PRIx64 " (%s)", addr, name,
			 (uint64_t)off, modname);
		if (func)
			snprintf(func, flen, "%s (%s)", name, modname);
	} else if (modname) {
		if (m && m->file && file_bias(m->file, m->start, m->pgoff, &bias))
			snprintf(buf, len, "%#" PRIx64 " ? (%s+%#" PRIx64 ")", addr,
				 modname, addr - bias);
		else
			snprintf(buf, len, "%#" PRIx64 " ? (%s)", addr, modname);
		if (func)
			snprintf(func, flen, "? (%s)", modname);
	} else {
		snprintf(buf, len, "%#" PRIx64 " ? (not mapped)", addr);
		if (func)
			snprintf(func, flen, "? (not mapped)");
	}
}

static void symbolise(Dwfl *dwfl, struct proc *p, uint64_t addr, bool ret,
		      char *buf, size_t len)
{
	symbolise2(dwfl, p, addr, ret, buf, len, NULL, 0);
}

struct frame_ctx {
	Dwfl		*dwfl;
	struct proc	*proc;
	uint64_t	*d;
	int		nd;
	const char	*cut;
};

static bool has_cfi(Dwfl_Module *mod, Dwarf_Addr look)
{
	Dwarf_Frame *fr = NULL;
	Dwarf_Addr bias;
	Dwarf_CFI *cfi;

	cfi = dwfl_module_eh_cfi(mod, &bias);
	if (cfi && !dwarf_cfi_addrframe(cfi, look - bias, &fr)) {
		free(fr);
		return true;
	}
	cfi = dwfl_module_dwarf_cfi(mod, &bias);
	if (cfi && !dwarf_cfi_addrframe(cfi, look - bias, &fr)) {
		free(fr);
		return true;
	}
	return false;
}

/* Does the CFI at @look in @mod leave the return address undefined? */
static bool cfi_ra_undefined(Dwarf_CFI *cfi, Dwarf_Addr look)
{
	Dwarf_Op ops_mem[3], *ops;
	Dwarf_Frame *fr = NULL;
	size_t nops;
	bool undef;
	int ra;

	if (!cfi || dwarf_cfi_addrframe(cfi, look, &fr))
		return false;
	ra = dwarf_frame_info(fr, NULL, NULL, NULL);
	/* undefined: no operations, and *ops set to ops_mem (libdw.h) */
	undef = ra >= 0 && !dwarf_frame_register(fr, ra, ops_mem, &ops, &nops) &&
		!nops && ops == ops_mem;
	free(fr);
	return undef;
}

/*
 * Is @pc (a return address if @ret) in an outermost frame: one whose CFI
 * leaves the return address undefined?
 */
static bool ra_undefined(Dwfl *dwfl, Dwarf_Addr pc, bool ret)
{
	Dwarf_Addr look = ret ? pc - 1 : pc, bias;
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, look);
	Dwarf_CFI *cfi;

	if (!mod)
		return false;
	cfi = dwfl_module_eh_cfi(mod, &bias);
	if (cfi_ra_undefined(cfi, look - bias))
		return true;
	cfi = dwfl_module_dwarf_cfi(mod, &bias);
	return cfi_ra_undefined(cfi, look - bias);
}

/*
 * Collect libdw's frames. Stop after a frame without CFI: libdw would
 * continue with its architecture's frame pointer heuristic, not DWARF.
 */
static int frame_cb(Dwfl_Frame *state, void *arg)
{
	static char nocfi[1200];
	struct frame_ctx *c = arg;
	Dwarf_Addr pc, look;
	Dwfl_Module *mod;
	struct map *mm;
	char buf[512];
	bool act;

	/*
	 * A CFI step that failed (here: on a read outside the copy) is retried
	 * by libdw with its frame pointer heuristic: such a frame is not
	 * DWARF's and is dropped.
	 */
	if (cur.outside) {
		c->cut = "stack did not fit the copy";
		return DWARF_CB_ABORT;
	}
	if (!dwfl_frame_pc(state, &pc, &act))
		return DWARF_CB_ABORT;
	c->d[c->nd++] = pc;
	if (c->nd >= MAX_FRAMES) {
		c->cut = "more than 512 frames";
		return DWARF_CB_ABORT;
	}
	look = act ? pc : pc - 1;
	mod = dwfl_addrmodule(c->dwfl, look);
	if (mod && has_cfi(mod, look))
		return DWARF_CB_OK;

	mm = find_map(c->proc, look);
	if (mod) {
		symbolise(c->dwfl, c->proc, pc, !act, buf, sizeof(buf));
		snprintf(nocfi, sizeof(nocfi), "no CFI for %s", strchr(buf, ' ') + 1);
	} else if (mm && mm->file && mm->file->problem) {
		snprintf(nocfi, sizeof(nocfi), "%s", mm->file->problem);
	} else if (mm && mm->file) {
		snprintf(nocfi, sizeof(nocfi), "libdw has no module for %s", mm->file->guest);
	} else {
		snprintf(nocfi, sizeof(nocfi), "pc in anonymous or unknown memory");
	}
	c->cut = nocfi;
	return DWARF_CB_ABORT;
}

/* ------------------------------------------------------------ statistics */

struct count {
	struct count	*next;
	char		*what;
	unsigned long	n;
};

static void count_add(struct count **list, const char *what)
{
	struct count *c;

	for (c = *list; c; c = c->next) {
		if (!strcmp(c->what, what)) {
			c->n++;
			return;
		}
	}
	c = xcalloc(1, sizeof(*c));
	c->what = xstrdup(what);
	c->n = 1;
	c->next = *list;
	*list = c;
}

static int count_cmp(const void *a, const void *b)
{
	const struct count *x = *(struct count *const *)a, *y = *(struct count *const *)b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : strcmp(x->what, y->what);
}

static void count_print(struct count *list, const char *indent, int max)
{
	struct count **v;
	int n = 0, i;

	for (struct count *c = list; c; c = c->next)
		n++;
	if (!n)
		return;
	v = xcalloc(n, sizeof(*v));
	i = 0;
	for (struct count *c = list; c; c = c->next)
		v[i++] = c;
	qsort(v, n, sizeof(*v), count_cmp);
	for (i = 0; i < n && i < max; i++)
		printf("%s%6lu  %s\n", indent, v[i]->n, v[i]->what);
	if (n > max)
		printf("%s        (%d more)\n", indent, n - max);
	free(v);
}

static unsigned long nr_samples, nr_excluded, nr_identical, nr_fp_tail,
		     nr_truncated, nr_mismatch, nr_kernel_samples,
		     nr_mismatch_first_use, nr_sf_pc;
static struct count *excl_reasons, *fp_tail_where, *mismatch_kinds;

/*
 * Frame by frame, for every sample with both chains (any sampled PC, SFrame
 * or not): is the kernel's chain libdw's, libdw's with frames left out
 * (frames without SFrame that the kernel skipped), shorter, or does it hold
 * a frame that libdw's complete chain does not have (a wrong frame)?
 */
static unsigned long nr_judged, nr_j_identical, nr_j_skips, nr_j_short,
	nr_j_wrong, nr_j_unjudged, nr_k_main, nr_d_main;
static struct count *wrong_kinds, *unjudged_kinds, *nomain_kinds;
static double max_wrong = 0.1;
static unsigned long min_judged;
static uint64_t first_time;
static bool have_first_time;

/* ------------------------------------------------------------ samples */

static void exclude(const char *why, int pid, int tid, uint64_t time)
{
	nr_excluded++;
	count_add(&excl_reasons, why);
	if (verbose)
		printf("sample %lu pid %d tid %d t=%.6f excluded: %s\n", nr_samples,
		       pid, tid, (time - first_time) / 1e9, why);
}

static void print_chain(const char *what, Dwfl *dwfl, struct proc *p,
			const uint64_t *c, int n, int from)
{
	char buf[512];
	int i;

	for (i = from; i < n && i < from + 8; i++) {
		symbolise(dwfl, p, c[i], i > 0, buf, sizeof(buf));
		printf("      %-6s #%-2d %s\n", i == from ? what : "", i, buf);
	}
	if (i < n)
		printf("      %-6s     ... %d more\n", "", n - i);
	if (from >= n)
		printf("      %-6s #%-2d (end of chain)\n", what, from);
}

/* Is @addr (a return address if @ret) in a function called main? */
static bool in_main(Dwfl *dwfl, uint64_t addr, bool ret)
{
	uint64_t look = ret && addr ? addr - 1 : addr;
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, look);
	const char *name = mod ? dwfl_module_addrname(mod, look) : NULL;

	return name && !strcmp(name, "main");
}

static bool chain_has_main(Dwfl *dwfl, const uint64_t *c, int n)
{
	for (int i = 0; i < n; i++)
		if (in_main(dwfl, c[i], i > 0))
			return true;
	return false;
}

static bool proc_has_sframe(const struct proc *proc)
{
	for (int i = 0; i < proc->nr_maps; i++)
		if (proc->maps[i].file && proc->maps[i].file->has_sframe)
			return true;
	return false;
}

static void judge(Dwfl *dwfl, struct proc *proc, const uint64_t *k, int nk,
		  const uint64_t *d, int nd, bool natural, const char *cut_why)
{
	char buf[512], func[512], kind[1200];
	bool skipped = false;
	int i, j = 0;
	bool k_main = chain_has_main(dwfl, k, nk);
	bool d_main = chain_has_main(dwfl, d, nd);

	nr_judged++;
	/*
	 * In a process without SFrame data the kernel walks frame pointers
	 * only, as it does without this series: nothing of it to judge.
	 */
	if (!proc_has_sframe(proc)) {
		nr_j_unjudged++;
		count_add(&unjudged_kinds, "process without SFrame data (frame pointer walk)");
		return;
	}
	nr_k_main += k_main;
	nr_d_main += d_main;
	if (d_main && !k_main) {
		/* where the kernel's chain ended, and in what */
		symbolise2(dwfl, proc, k[nk - 1], nk > 1, buf, sizeof(buf),
			   func, sizeof(func));
		snprintf(kind, sizeof(kind), "frame %d: %s", nk - 1, func);
		count_add(&nomain_kinds, kind);
	}
	/* each kernel frame must be in libdw's chain, in order */
	for (i = 0; i < nk; i++) {
		int f = j;

		while (f < nd && d[f] != k[i])
			f++;
		if (f == nd)
			break;
		skipped |= f != j;
		j = f + 1;
	}
	if (i == nk) {
		if (skipped)
			nr_j_skips++;
		else if (nk == nd)
			nr_j_identical++;
		else
			nr_j_short++;
		return;
	}
	symbolise2(dwfl, proc, k[i], i > 0, buf, sizeof(buf), func, sizeof(func));
	if (!natural) {
		nr_j_unjudged++;
		snprintf(kind, sizeof(kind), "%s", cut_why ? cut_why : "libdw's chain cut");
		count_add(&unjudged_kinds, kind);
		return;
	}
	nr_j_wrong++;
	snprintf(kind, sizeof(kind), "frame %d: %s", i, func);
	count_add(&wrong_kinds, kind);
	if (verbose || nr_j_wrong <= list_max) {
		printf("  wrong frame %lu: sample %lu, frame %d %s not in libdw's chain\n",
		       nr_j_wrong, nr_samples, i, buf);
		print_chain("kernel", dwfl, proc, k, nk, 0);
		print_chain("libdw", dwfl, proc, d, nd, 0);
	}
}

static void do_sample(const uint8_t *rec, const uint8_t *end)
{
	const struct perf_event_header *h = (const void *)rec;
	const uint64_t *p = (const void *)(h + 1), *chain, *regs = NULL;
	uint64_t nr, abi, size = 0, dyn = 0, time, k[MAX_FRAMES], d[MAX_FRAMES];
	int pid, tid, nk = 0, nd = 0, m, u, max_stack;
	const char *first_use;
	uint64_t first_time_in = 0;
	const uint8_t *stack = NULL;
	bool natural = false, cut_max = false, sf_pc;
	const char *cut_why = NULL;
	char why[1024], buf[512];
	struct proc *proc;
	Dwfl *dwfl;
	int rc;

	nr_samples++;
	pid = (int)(p[1] & 0xffffffff);
	tid = (int)(p[1] >> 32);
	time = p[2];
	if (!have_first_time) {
		first_time = time;
		have_first_time = true;
	}
	/* Bounds: every part must lie inside the record. */
#define ROOM(ptr, bytes) ((uint64_t)(end - (const uint8_t *)(ptr)) >= (uint64_t)(bytes))
	nr = p[3];
	chain = p + 4;
	if (!ROOM(chain, 8) || nr > (uint64_t)(end - (const uint8_t *)chain) / 8 - 1) {
		exclude("malformed sample record", pid, tid, time);
		return;
	}
	p = chain + nr;
	abi = *p++;
	if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
		regs = p;
		p += __builtin_popcountll(regs_mask);
	}
	if (!ROOM(p, 8)) {
		exclude("malformed sample record", pid, tid, time);
		return;
	}
	size = *p++;
	if (size) {
		stack = (const void *)p;
		if (size > (uint64_t)(end - stack) || !ROOM(stack + size, 8)) {
			exclude("malformed sample record", pid, tid, time);
			return;
		}
		memcpy(&dyn, stack + size, 8);
		if (dyn > size)
			dyn = size;
	}
#undef ROOM

	/* The kernel's user chain: the entries after PERF_CONTEXT_USER. */
	{
		bool user = false;

		for (uint64_t i = 0; i < nr; i++) {
			if (chain[i] >= (uint64_t)PERF_CONTEXT_MAX) {
				user = chain[i] == (uint64_t)PERF_CONTEXT_USER;
				continue;
			}
			if (user && nk < MAX_FRAMES)
				k[nk++] = chain[i];
			if (!user)
				nr_kernel_samples++;
		}
	}
	/* The limit counts the PERF_CONTEXT_USER entry too. */
	max_stack = sample_max_stack ? sample_max_stack : 127;
	if (nk + 1 >= max_stack)
		cut_max = true;

	if (abi != PERF_SAMPLE_REGS_ABI_64 || !regs) {
		exclude(abi == PERF_SAMPLE_REGS_ABI_32 ? "32-bit task (not unwound)" :
			"no user registers (kernel-mode sample?)", pid, tid, time);
		return;
	}
	if (!nk) {
		exclude("no user call chain from the kernel", pid, tid, time);
		return;
	}
	if (!stack || !dyn) {
		exclude("no user stack copy (the kernel copied 0 bytes)", pid, tid, time);
		return;
	}
	proc = get_proc(pid, false);
	if (!proc || !proc->nr_maps) {
		exclude("no mappings known for the process", pid, tid, time);
		return;
	}
	dwfl = proc_dwfl(proc);
	if (!dwfl) {
		exclude("libdw: no usable ELF file in the process", pid, tid, time);
		return;
	}

	/* libdw's unwind of the copy. */
	memset(&cur, 0, sizeof(cur));
	cur.tid = tid;
	cur.regs = regs;
	cur.sp = e_machine == EM_X86_64 ? reg(7) : reg(31);
	cur.stack = stack;
	cur.stack_len = dyn;
	{
		struct frame_ctx fc = { dwfl, proc, d, 0, NULL };

		rc = dwfl_getthread_frames(dwfl, tid, frame_cb, &fc);
		nd = fc.nd;
		cut_why = fc.cut;
		if (!cut_why) {
			if (cur.outside)
				cut_why = "stack did not fit the copy";
			else if (rc == 0)
				natural = true;
			else if (rc < 0) {
				snprintf(why, sizeof(why), "libdw: %s", dwfl_errmsg(-1));
				cut_why = why;
			} else {
				cut_why = "libdw: frame without PC";
			}
		}
		/*
		 * libdw also stops, without an error, where it computes a
		 * return address of 0 or cannot go on (seen in ld.so's lazy
		 * binding trampolines): a natural end is only one whose CFI
		 * leaves the return address undefined.
		 */
		if (natural && nd > 0 && !ra_undefined(dwfl, d[nd - 1], nd > 1)) {
			natural = false;
			cut_why = "libdw: ended where the CFI has a return address";
		}
	}

	if (e_machine == EM_AARCH64) {
		for (int i = 0; i < nk; i++)
			k[i] &= ARM64_VA_MASK;
		for (int i = 0; i < nd; i++)
			d[i] &= ARM64_VA_MASK;
	}

	judge(dwfl, proc, k, nk, d, nd, natural, cut_why);

	/* First difference m and first frame without SFrame u. */
	for (m = 0; m < nk && m < nd && k[m] == d[m]; m++)
		;
	u = -1;
	first_use = NULL;
	for (int i = 0; i < m && i < nk; i++) {
		uint64_t look = i ? k[i] - 1 : k[i];
		struct map *mm = find_map(proc, look);
		uint64_t bias;
		enum sf_cover c = SF_NONE;

		if (mm && mm->file && mm->file->has_sframe &&
		    file_bias(mm->file, mm->start, mm->pgoff, &bias))
			c = sframe_lookup(&mm->file->sf, look - bias);
		if (c == SF_NONE) {
			u = i;
			break;
		}
		if (!mm->sf_first)
			mm->sf_first = time;
		/* the most recently started coverage among the frames */
		if (!first_use || mm->sf_first > first_time_in) {
			first_use = mm->file->guest;
			first_time_in = mm->sf_first;
		}
	}

	/* Is the sampled PC itself described by SFrame? */
	{
		struct map *mm = find_map(proc, k[0]);
		uint64_t bias;

		sf_pc = mm && mm->file && mm->file->has_sframe &&
			file_bias(mm->file, mm->start, mm->pgoff, &bias) &&
			sframe_lookup(&mm->file->sf, k[0] - bias) != SF_NONE;
	}

	if (verbose) {
		printf("sample %lu pid %d tid %d t=%.6f nk=%d nd=%d m=%d u=%d%s%s\n",
		       nr_samples, pid, tid, (time - first_time) / 1e9, nk, nd, m, u,
		       cut_why ? " cut: " : "", cut_why ? cut_why : "");
		print_chain("kernel", dwfl, proc, k, nk, 0);
		print_chain("libdw", dwfl, proc, d, nd, 0);
	}

	if (m == nk && m == nd) {
		nr_identical++;
		nr_sf_pc += sf_pc;
		return;
	}
	if (u == 0 && m > u) {
		exclude("sampled PC without SFrame, chains differ above it",
			pid, tid, time);
		return;
	}
	if (u >= 0 && m > u && !strict) {
		nr_fp_tail++;
		nr_sf_pc += sf_pc;
		char func[512];

		symbolise2(dwfl, proc, k[u], u > 0, buf, sizeof(buf), func, sizeof(func));
		count_add(&fp_tail_where, func);
		return;
	}
	if (!natural && m == nd) {
		exclude(cut_why, pid, tid, time);
		return;
	}
	if (cut_max && m == nk) {
		nr_truncated++;
		nr_sf_pc += sf_pc;
		return;
	}

	nr_mismatch++;
	nr_sf_pc += sf_pc;
	if (first_use && time - first_time_in <= COLD_NS)
		nr_mismatch_first_use++;
	{
		char kb[512], db[512], kf[512], df[512], kind[1200];

		if (m < nk)
			symbolise2(dwfl, proc, k[m], m > 0, kb, sizeof(kb), kf, sizeof(kf));
		else
			snprintf(kf, sizeof(kf), "(chain ends)");
		if (m < nd)
			symbolise2(dwfl, proc, d[m], m > 0, db, sizeof(db), df, sizeof(df));
		else
			snprintf(df, sizeof(df), "(chain ends)");
		snprintf(kind, sizeof(kind), "frame %d: kernel %s | libdw %s", m, kf, df);
		count_add(&mismatch_kinds, kind);
		if (nr_mismatch == 1 && list_max)
			printf("  mismatches (the first %lu in full):\n", list_max);
		if (nr_mismatch <= list_max) {
			printf("  mismatch %lu: sample %lu, pid %d tid %d, t=%.6f s: first difference at frame %d%s\n",
			       nr_mismatch, nr_samples, pid, tid, (time - first_time) / 1e9, m,
			       u >= 0 ? "" : " (all common frames have SFrame)");
			if (m > 0) {
				symbolise(dwfl, proc, k[m - 1], m - 1 > 0, buf, sizeof(buf));
				printf("      common #0..#%d, last: %s\n", m - 1, buf);
			}
			print_chain("kernel", dwfl, proc, k, nk, m);
			print_chain("libdw", dwfl, proc, d, nd, m);
			if (!natural && cut_why)
				printf("      (libdw's chain was cut: %s)\n", cut_why);
			if (first_use)
				printf("      (%.3f ms after the process's first sample with a frame in %s's SFrame coverage)\n",
				       (time - first_time_in) / 1e6, first_use);
		}
	}
}

/* ------------------------------------------------------------ records */

struct rec {
	const uint8_t	*p;
	uint64_t	time;
	size_t		idx;
};

static int rec_cmp(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void do_mmap2(const uint8_t *rec)
{
	const struct perf_event_header *h = (const void *)rec;
	const uint8_t *b = (const uint8_t *)(h + 1);
	uint32_t pid, prot;
	uint64_t addr, len, pgoff;
	const char *name;
	uint8_t bid[20] = { 0 };
	int bid_size = 0;
	struct proc *p;

	if (h->size < sizeof(*h) + 64 + 8)
		fatal("malformed MMAP2 record");
	memcpy(&pid, b, 4);
	memcpy(&addr, b + 8, 8);
	memcpy(&len, b + 16, 8);
	memcpy(&pgoff, b + 24, 8);
	if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		bid_size = b[32];
		if (bid_size > 20)
			bid_size = 20;
		memcpy(bid, b + 36, bid_size);
	}
	memcpy(&prot, b + 56, 4);
	name = (const char *)b + 64;
	if (!memchr(name, 0, rec + h->size - (const uint8_t *)name))
		fatal("malformed MMAP2 record");
	p = get_proc(pid, true);
	if (!(prot & PROT_EXEC) || (name[0] != '/' && strcmp(name, "[vdso]"))) {
		/* anonymous or special: no file to unwind with */
		add_map(p, addr, len, pgoff, NULL);
		return;
	}
	add_map(p, addr, len, pgoff, get_file(name, bid, bid_size));
}

static void remove_vdso(void)
{
	if (vdso_path)
		unlink(vdso_path);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: %s [options] FILE\n"
		"  --map GUEST=HOST    guest path prefix GUEST is HOST on this machine (repeatable)\n"
		"  --threshold PCT     minimum agreement in percent (default 99)\n"
		"  --min-samples N     minimum number of compared samples (default 200)\n"
		"  --min-sframe N      of which at least N with the sampled PC in SFrame-described\n"
		"                      code (default 0)\n"
		"  --list N            mismatches listed in full (default 20)\n"
		"  --strict            differences after the kernel left SFrame coverage are mismatches\n"
		"  --max-wrong PCT     most samples, in percent, whose chain has a frame libdw's\n"
		"                      complete chain lacks (default 0.1)\n"
		"  --min-judged N      minimum number of samples judged frame by frame (default 0)\n"
		"  --label NAME        name shown in the result line\n"
		"  -v, --verbose       print both chains of every sample\n",
		prog);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "map", required_argument, NULL, 'M' },
		{ "threshold", required_argument, NULL, 't' },
		{ "min-samples", required_argument, NULL, 'n' },
		{ "min-sframe", required_argument, NULL, 'F' },
		{ "list", required_argument, NULL, 'l' },
		{ "strict", no_argument, NULL, 'S' },
		{ "max-wrong", required_argument, NULL, 'W' },
		{ "min-judged", required_argument, NULL, 'J' },
		{ "label", required_argument, NULL, 'L' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct perf_event_attr *attr;
	struct xcheck_header hdr;
	unsigned long nr_recs = 0, cap = 0, compared, agreed;
	struct rec *recs = NULL;
	const uint8_t *data, *p, *end;
	static char tmpl[] = "/tmp/xcheck-vdso-XXXXXX";
	char *eq, *endp;
	struct stat st;
	double pct;
	size_t off;
	int fd, opt;
	bool pass;

	while ((opt = getopt_long(argc, argv, "vh", lopts, NULL)) != -1) {
		switch (opt) {
		case 'M':
			eq = strchr(optarg, '=');
			if (!eq || eq == optarg || nr_path_maps == MAX_MAPS_ARGS)
				usage();
			*eq = 0;
			path_map[nr_path_maps].guest = optarg;
			path_map[nr_path_maps].host = eq + 1;
			nr_path_maps++;
			break;
		case 't':
			threshold = strtod(optarg, &endp);
			if (*endp || threshold < 0 || threshold > 100)
				usage();
			break;
		case 'n':
			min_samples = strtoul(optarg, &endp, 10);
			if (*endp)
				usage();
			break;
		case 'F':
			min_sframe = strtoul(optarg, &endp, 10);
			if (*endp)
				usage();
			break;
		case 'l':
			list_max = strtoul(optarg, &endp, 10);
			if (*endp)
				usage();
			break;
		case 'S':
			strict = true;
			break;
		case 'W':
			max_wrong = strtod(optarg, &endp);
			if (*endp || max_wrong < 0 || max_wrong > 100)
				usage();
			break;
		case 'J':
			min_judged = strtoul(optarg, &endp, 10);
			if (*endp)
				usage();
			break;
		case 'L':
			label = optarg;
			break;
		case 'v':
			verbose = true;
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1)
		usage();

	fd = open(argv[optind], O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		fatal("cannot open %s: %s", argv[optind], strerror(errno));
	if ((size_t)st.st_size < sizeof(hdr))
		fatal("%s: too short for a recording (%lld bytes)", argv[optind],
		      (long long)st.st_size);
	data = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (data == MAP_FAILED)
		fatal("cannot map %s: %s", argv[optind], strerror(errno));
	memcpy(&hdr, data, sizeof(hdr));
	if (memcmp(hdr.magic, XCHECK_MAGIC, 8))
		fatal("%s: not an xcheck-record file", argv[optind]);
	if (hdr.version != XCHECK_VERSION)
		fatal("%s: unsupported version %u", argv[optind], hdr.version);
	if (hdr.e_machine != EM_X86_64 && hdr.e_machine != EM_AARCH64)
		fatal("%s: unsupported machine %u", argv[optind], hdr.e_machine);
	if (hdr.attr_size < PERF_ATTR_SIZE_VER5 ||
	    sizeof(hdr) + hdr.attr_size + (uint64_t)hdr.vdso_size > (uint64_t)st.st_size)
		fatal("%s: truncated header", argv[optind]);
	e_machine = hdr.e_machine;
	attr = (const void *)(data + sizeof(hdr));
	regs_mask = attr->sample_regs_user;
	sample_max_stack = attr->sample_max_stack;
	if (attr->sample_type != (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				  PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
				  PERF_SAMPLE_STACK_USER) || !attr->sample_id_all)
		fatal("%s: unexpected sample_type %#llx", argv[optind],
		      (unsigned long long)attr->sample_type);
	off = sizeof(hdr) + hdr.attr_size;
	if (hdr.vdso_size) {
		int vfd = mkstemp(tmpl);

		if (vfd < 0)
			fatal("cannot create %s: %s", tmpl, strerror(errno));
		vdso_path = tmpl;
		atexit(remove_vdso);
		if (write(vfd, data + off, hdr.vdso_size) != (ssize_t)hdr.vdso_size)
			fatal("cannot write the vDSO image to %s", tmpl);
		close(vfd);
	}
	off += hdr.vdso_size + (-hdr.vdso_size & 7);

	/* Index the records and put them in time order. */
	end = data + st.st_size;
	for (p = data + off; p < end;) {
		const struct perf_event_header *h = (const void *)p;
		uint64_t t = 0;

		if ((size_t)(end - p) < sizeof(*h) || h->size < sizeof(*h) ||
		    h->size > end - p || h->size % 8) {
			fprintf(stderr, "%s: warning: %s: truncated or corrupt record at offset %zu; ignoring the rest\n",
				prog, argv[optind], (size_t)(p - data));
			break;
		}
		if (h->type == PERF_RECORD_SAMPLE) {
			if (h->size < 8 + 5 * 8)
				fatal("malformed sample at offset %zu", (size_t)(p - data));
			memcpy(&t, p + 8 + 16, 8);
		} else if (h->size >= 8 + 16) {
			memcpy(&t, p + h->size - 8, 8);	/* sample_id: pid/tid, time */
		}
		if (nr_recs == cap) {
			cap = cap ? 2 * cap : 4096;
			recs = realloc(recs, cap * sizeof(*recs));
			if (!recs)
				fatal("out of memory");
		}
		recs[nr_recs] = (struct rec){ p, t, nr_recs };
		nr_recs++;
		p += h->size;
	}
	qsort(recs, nr_recs, sizeof(*recs), rec_cmp);

	elf_version(EV_CURRENT);
	printf("xcheck-report: %s%s%s\n", label ? label : "", label ? ": " : "", argv[optind]);
	printf("  %s, cpu-clock period %llu ns, user stack copy %u bytes\n",
	       e_machine == EM_X86_64 ? "x86_64" : "arm64",
	       (unsigned long long)attr->sample_period, attr->sample_stack_user);

	for (unsigned long i = 0; i < nr_recs; i++) {
		const uint8_t *r = recs[i].p;
		const struct perf_event_header *h = (const void *)r;
		const uint32_t *b = (const void *)(h + 1);
		struct proc *pp, *parent;

		if ((h->type == PERF_RECORD_COMM || h->type == PERF_RECORD_FORK) &&
		    h->size < sizeof(*h) + 16)
			fatal("malformed record of type %u", h->type);
		switch (h->type) {
		case PERF_RECORD_SAMPLE:
			do_sample(r, r + h->size);
			break;
		case PERF_RECORD_MMAP2:
			do_mmap2(r);
			break;
		case PERF_RECORD_COMM:
			if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
				pp = get_proc(b[0], true);
				pp->nr_maps = 0;
				pp->gen++;
			}
			break;
		case PERF_RECORD_FORK:
			/* pid, ppid, tid, ptid: a new process copies its parent */
			if (b[0] != b[1]) {
				parent = get_proc(b[1], false);
				pp = get_proc(b[0], true);
				if (parent && parent != pp) {
					for (int j = 0; j < parent->nr_maps; j++)
						add_map(pp, parent->maps[j].start,
							parent->maps[j].end - parent->maps[j].start,
							parent->maps[j].pgoff, parent->maps[j].file);
				}
			}
			break;
		default:
			break;
		}
	}

	compared = nr_samples - nr_excluded;
	agreed = nr_identical + nr_fp_tail + nr_truncated;
	pct = compared ? 100.0 * agreed / compared : 0;
	if (nr_mismatch > list_max)
		printf("  (%lu more mismatches not listed)\n", nr_mismatch - list_max);
	if (nr_mismatch) {
		printf("  mismatches by first differing frame:\n");
		count_print(mismatch_kinds, "    ", 15);
	}
	printf("  samples          %8lu   (lost by the kernel: %llu%s)\n", nr_samples,
	       (unsigned long long)hdr.lost,
	       hdr.complete ? "" : "; recording incomplete");
	printf("  excluded         %8lu\n", nr_excluded);
	count_print(excl_reasons, "      ", 10);
	printf("  compared         %8lu   (%lu with the sampled PC in SFrame-described code)\n",
	       compared, nr_sf_pc);
	printf("  agreed           %8lu   (%.2f%%)\n", agreed, pct);
	printf("      identical chains                        %8lu\n", nr_identical);
	printf("      equal up to where SFrame coverage ends  %8lu%s\n", nr_fp_tail,
	       strict ? "   (--strict: counted as mismatches)" : "");
	count_print(fp_tail_where, "          left SFrame at: ", 5);
	if (nr_truncated)
		printf("      kernel chain cut at max_stack           %8lu\n", nr_truncated);
	printf("  mismatched       %8lu\n", nr_mismatch);
	if (nr_mismatch_first_use)
		printf("      within %d ms of the first sample in an object's SFrame coverage\n"
		       "      (the kernel's cold-start fallback?)     %8lu\n",
		       (int)(COLD_NS / 1000000), nr_mismatch_first_use);
	for (struct file *f = files; f; f = f->next)
		if (f->unverified)
			printf("  note: %s used without a build ID check (none recorded)\n",
			       f->guest);
	for (struct file *f = files; f; f = f->next)
		if (f->problem)
			printf("  note: %s\n", f->problem);
	if (nr_kernel_samples)
		printf("  note: %lu kernel chain entries ignored\n", nr_kernel_samples);

#define SHARE(n) (nr_judged ? 100.0 * (n) / nr_judged : 0.0)
	printf("  frame by frame, every sample with both chains (any sampled PC):\n");
	printf("    judged           %8lu\n", nr_judged);
	printf("    reach main       %8lu   (%.2f%%; libdw: %lu, %.2f%%)\n",
	       nr_k_main, SHARE(nr_k_main), nr_d_main, SHARE(nr_d_main));
	count_print(nomain_kinds, "        libdw's reaches main, the kernel's ends at ", 5);
	printf("    identical        %8lu   (%.2f%%)\n", nr_j_identical, SHARE(nr_j_identical));
	printf("    libdw's, frames left out %lu   (%.2f%%)\n", nr_j_skips, SHARE(nr_j_skips));
	printf("    libdw's, ends earlier    %lu   (%.2f%%)\n", nr_j_short, SHARE(nr_j_short));
	printf("    not judged (libdw's chain cut before the frame, or no SFrame) %lu   (%.2f%%)\n",
	       nr_j_unjudged, SHARE(nr_j_unjudged));
	count_print(unjudged_kinds, "        ", 5);
	printf("    wrong frame      %8lu   (%.3f%%, at most %.3f%%)\n", nr_j_wrong,
	       SHARE(nr_j_wrong), max_wrong);
	count_print(wrong_kinds, "        ", 10);

	pass = compared >= min_samples && nr_sf_pc >= min_sframe && pct >= threshold &&
	       hdr.complete && SHARE(nr_j_wrong) <= max_wrong && nr_judged >= min_judged;
	printf("%s%s%s: %lu/%lu samples agree (%.2f%%), %lu excluded, %lu mismatched, %llu lost; %s (threshold %.2f%%, at least %lu compared)\n",
	       pass ? "PASS" : "FAIL", label ? " " : "", label ? label : "",
	       agreed, compared, pct, nr_excluded, nr_mismatch,
	       (unsigned long long)hdr.lost,
	       !hdr.complete ? "recording incomplete" :
	       compared < min_samples ? "too few samples compared" :
	       nr_sf_pc < min_sframe ? "too few samples in SFrame-described code" :
	       pct < threshold ? "agreement below the threshold" :
	       SHARE(nr_j_wrong) > max_wrong ? "too many wrong frames" :
	       nr_judged < min_judged ? "too few samples judged" : "ok",
	       threshold, min_samples);
	return pass ? 0 : 1;
}
