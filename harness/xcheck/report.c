// SPDX-License-Identifier: GPL-2.0
/*
 * xcheck-report: compare, sample by sample and frame by frame, the kernel's
 * user call chain with an unwind of the same sample's copied user stack by
 * elfutils' libdw (DWARF CFI: .eh_frame, or .debug_frame when the file has
 * it).
 *
 *   xcheck-report [options] FILE          (FILE written by xcheck-record)
 *
 * Mappings are rebuilt from the MMAP2 records of each process, in time
 * order (an exec empties the address space, a fork copies it, a new mapping
 * replaces what it overlaps). Guest paths are turned into host paths with
 * --map GUEST=HOST (longest prefix first; several HOSTs for one GUEST are
 * tried in the order given; without a match the path is used as it is);
 * when the kernel recorded a build ID, the host file must have the same
 * one, otherwise it is not used. The vDSO image comes from the file.
 *
 * Per sample, K is the kernel's chain and D libdw's (entry 0 the sampled
 * PC, entry i > 0 the return address of frame i; on arm64 both masked to
 * 48 bits, as the kernel strips pointer authentication codes). libdw's
 * chain ends naturally (the CFI of the outermost frame has no return
 * address), or is cut: after a frame for which no CFI exists (libdw would
 * go on with its own frame pointer heuristic, which is not DWARF), when a
 * read falls outside the stack copy, on a libdw error, or where libdw stops
 * although the CFI of its last frame has a return address.
 *
 * Each kernel frame i + 1 is attributed to the source the kernel took it
 * from, decided as the kernel decides from the PC of frame i (the sampled
 * PC for i = 0, the return address - 1 above): its file has a
 * PT_GNU_SFRAME segment and libsframe finds the PC in it: "sframe"; the
 * file has no PT_GNU_SFRAME, has PT_GNU_EH_FRAME (or, a static program,
 * an allocated .eh_frame section) and an FDE of its .eh_frame covers the PC, and kernel.unwind_user_eh_frame was 1:
 * "eh_frame"; otherwise the frame pointer ("fp"), or "recovery" where
 * kernel.unwind_user_recover was 1 and the process has any table (the
 * kernel then recovers the caller instead of taking the frame record).
 * kernel.unwind_user_sframe=0: "fp" everywhere. The vDSO has no table.
 * The sysctl values come from --sysctl (the guest scripts print them).
 *
 * Frames are compared at the same depth, from frame 1 on, until the first
 * difference:
 *  - both chains have frame j: compared; equal: agree, else wrong (the
 *    sample's later frames are not counted);
 *  - only libdw's has it: the kernel's chain is shorter (unless it was cut
 *    at its sample_max_stack limit);
 *  - only the kernel's has it: libdw's chain ended naturally: wrong (the
 *    kernel goes on past the outermost frame); libdw's was cut: this frame
 *    and the kernel's further ones are unjudged.
 * A sample agrees if none of its frames is wrong or missing: its chain is
 * libdw's, or libdw's up to the kernel's max_stack cut, or libdw's up to
 * where libdw's was cut (the rest unjudged). The first judged sample of
 * each process is "complete" if it agrees.
 *
 * Exit status 0 if the recording is complete, at least --min-samples
 * samples (default 200) were judged, of which at least --min-sframe
 * (default 0) had the sampled PC in SFrame-described code, at least
 * --threshold percent of them (default 99.9) agree, at most --max-wrong
 * percent of the compared frames (default 0.01) are wrong and at most
 * --max-first-incomplete (default 0) first samples of processes are not
 * complete; 1 if not; 2 on bad input.
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

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <linux/perf_event.h>

#include <sframe-api.h>

#include "xcheck.h"

#define MAX_FRAMES		512
#define MAX_MAPS_ARGS		64
#define ARM64_VA_MASK		((1ULL << 48) - 1)

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
static double threshold = 99.9, max_wrong = 0.01;
static unsigned long min_samples = 200, min_sframe, max_first_incomplete;
/* most wrong frames from the tables (SFrame, .eh_frame); -1: no bound */
static long max_table_wrong = -1;
static unsigned long list_max = 20, classes_max = 10;
static bool verbose;
static const char *label;

/* The kernel's sysctls during the recording (--sysctl NAME=VALUE). */
static struct {
	const char	*name;
	int		value;
	bool		given;
} sysctls[] = {
	{ "unwind_user_sframe", 1, false },
	{ "unwind_user_eh_frame", 1, false },
	{ "unwind_user_recover", 0, false },
};
#define K_SFRAME	(sysctls[0].value)
#define K_EH_FRAME	(sysctls[1].value)
#define K_RECOVER	(sysctls[2].value)

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
	bool		sframe_phdr;	/* PT_GNU_SFRAME */
	bool		has_sframe;	/* ... and libsframe decoded it */
	struct sframe_sec sf;
	bool		eh_phdr;	/* PT_GNU_EH_FRAME, or .eh_frame alone */
	uint64_t	entry;		/* e_entry */
	bool		is_vdso;
	Dwarf_CFI	*eh_cfi;	/* .eh_frame, at ELF addresses */
	bool		eh_cfi_done;
	bool		warned;
	bool		unverified;
};

static struct file *files;
static char *vdso_path;
static unsigned long nr_unverified;

/*
 * The host paths to try for @guest, best first: the --map entries whose
 * GUEST prefix matches, longest first, in the order given among equally
 * long ones; the guest path itself if none matches. Returns their number.
 */
static int map_paths(const char *guest, char (*out)[4096], int max)
{
	size_t best = SIZE_MAX;
	int n = 0;

	for (;;) {
		size_t len = 0;

		/* the longest matching prefix shorter than the last one */
		for (int i = 0; i < nr_path_maps; i++) {
			size_t l = strlen(path_map[i].guest);

			if (l < best && l > len && !strncmp(guest, path_map[i].guest, l) &&
			    (guest[l] == '/' || !guest[l] || path_map[i].guest[l - 1] == '/'))
				len = l;
		}
		if (!len)
			break;
		for (int i = 0; i < nr_path_maps && n < max; i++)
			if (strlen(path_map[i].guest) == len &&
			    !strncmp(guest, path_map[i].guest, len))
				snprintf(out[n++], sizeof(out[0]), "%s%s",
					 path_map[i].host, guest + len);
		best = len;
	}
	if (!n)
		snprintf(out[n++], sizeof(out[0]), "%s", guest);
	return n;
}

/* Open @host for @f: 0, or -1 with @msg set. */
static int open_host(struct file *f, const char *host, char *msg, size_t len)
{
	const void *hbid;
	ssize_t n;

	f->fd = open(host, O_RDONLY);
	if (f->fd < 0) {
		snprintf(msg, len, "no host file %.2000s for %.2000s (use --map GUEST=HOST)",
			 host, f->guest);
		return -1;
	}
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
		snprintf(msg, len, "host file %.2000s for %.2000s is not ELF", host, f->guest);
		goto fail;
	}
	n = dwelf_elf_gnu_build_id(f->elf, &hbid);
	if (f->bid_size && (n != f->bid_size || memcmp(hbid, f->bid, f->bid_size))) {
		snprintf(msg, len, "host file %.2000s differs from the guest's %.2000s (build ID)",
			 host, f->guest);
		goto fail;
	}
	return 0;
fail:
	if (f->elf)
		elf_end(f->elf);
	f->elf = NULL;
	close(f->fd);
	f->fd = -1;
	return -1;
}

static struct file *get_file(const char *guest, const uint8_t *bid, int bid_size)
{
	static char cand[8][4096];
	char msg[4096 + 256], first[sizeof(msg)] = "";
	struct file *f;
	size_t nph;
	int nc, i;

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

	if (!strcmp(guest, "[vdso]")) {
		f->is_vdso = true;
		if (!vdso_path) {
			f->problem = xstrdup("no vDSO image in the recording");
			return f;
		}
		nc = 1;
		snprintf(cand[0], sizeof(cand[0]), "%s", vdso_path);
	} else {
		nc = map_paths(guest, cand, 8);
	}
	for (i = 0; i < nc; i++) {
		if (!open_host(f, cand[i], msg, sizeof(msg)))
			break;
		if (!i)
			snprintf(first, sizeof(first), "%s", msg);
	}
	if (i == nc) {
		f->problem = xstrdup(first);
		return f;
	}
	if (!bid_size) {
		nr_unverified++;
		f->unverified = true;
	}
	f->host = xstrdup(cand[i]);

	{
		GElf_Ehdr eh;

		if (gelf_getehdr(f->elf, &eh))
			f->entry = eh.e_entry;
	}
	if (!elf_getphdrnum(f->elf, &nph)) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			Elf_Data *d;

			if (!gelf_getphdr(f->elf, i, &ph))
				continue;
			if (ph.p_type == PT_GNU_EH_FRAME)
				f->eh_phdr = true;
			if (ph.p_type != 0x6474e554)
				continue;	/* PT_GNU_SFRAME */
			f->sframe_phdr = true;
			d = elf_getdata_rawchunk(f->elf, ph.p_offset, ph.p_filesz,
						 ELF_T_BYTE);
			if (d && sframe_init(&f->sf, d->d_buf, d->d_size, ph.p_vaddr))
				f->has_sframe = true;
		}
	}
	/* Static programs: the kernel finds .eh_frame by its section header. */
	if (!f->eh_phdr) {
		Elf_Scn *scn = NULL;
		size_t shstrndx;

		while (!elf_getshdrstrndx(f->elf, &shstrndx) &&
		       (scn = elf_nextscn(f->elf, scn))) {
			GElf_Shdr sh;
			const char *name;

			if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
			    !sh.sh_size)
				continue;
			name = elf_strptr(f->elf, shstrndx, sh.sh_name);
			if (name && !strcmp(name, ".eh_frame"))
				f->eh_phdr = true;
		}
	}
	return f;
}

/* The file's .eh_frame CFI (ELF addresses), or NULL. */
static Dwarf_CFI *file_eh_cfi(struct file *f)
{
	if (!f->eh_cfi_done && f->elf) {
		f->eh_cfi_done = true;
		f->eh_cfi = dwarf_getcfi_elf(f->elf);
	}
	return f->eh_cfi;
}

/* Does an FDE of @f's .eh_frame cover ELF address @a? Its start: *@start. */
static bool eh_covers(struct file *f, uint64_t a, uint64_t *start)
{
	Dwarf_CFI *cfi = file_eh_cfi(f);
	Dwarf_Frame *fr = NULL;
	Dwarf_Addr s;

	if (!cfi || dwarf_cfi_addrframe(cfi, a, &fr))
		return false;
	if (start && dwarf_frame_info(fr, &s, NULL, NULL) >= 0)
		*start = s;
	free(fr);
	return true;
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
	char		comm[16];
	/* the first judged sample: its number, and did it agree? */
	unsigned long	first_sample;
	bool		first_ok;
	char		*first_what;	/* why not */
	char		first_comm[16];
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
	p->maps[p->nr_maps++] = (struct map){ start, end, pgoff, f };
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
		uint64_t bias, bias2;
		bool dup = false;
		const char *base;

		if (!m->file || !m->file->host ||
		    !file_bias(m->file, m->start, m->pgoff, &bias))
			continue;
		/* each file once, at the bias of its first usable mapping */
		for (int j = 0; j < i; j++)
			if (p->maps[j].file == m->file &&
			    file_bias(m->file, p->maps[j].start, p->maps[j].pgoff, &bias2))
				dup = true;
		if (dup)
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
		uint64_t start;

		if (m && m->file && file_bias(m->file, m->start, m->pgoff, &bias)) {
			snprintf(buf, len, "%#" PRIx64 " ? (%s+%#" PRIx64 ")", addr,
				 modname, addr - bias);
			/* no symbol: the function is named by its FDE's start */
			if (func && eh_covers(m->file, look - bias, &start))
				snprintf(func, flen, "?@%#" PRIx64 " (%s)", start, modname);
			else if (func)
				snprintf(func, flen, "? (%s)", modname);
		} else {
			snprintf(buf, len, "%#" PRIx64 " ? (%s)", addr, modname);
			if (func)
				snprintf(func, flen, "? (%s)", modname);
		}
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
	Dwarf_Word	sp;		/* of the last frame */
	bool		have_sp;
	bool		ra_above;	/* the last frame's row: RA at or above its CFA */
	bool		sp_wrong;	/* the last frame's stack pointer is not known */
	bool		entry;		/* ended at the program's entry point */
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

/* Does the CFI row at @look in @cfi save the return address at CFA + N, N >= 0? */
static bool cfi_ra_above(Dwarf_CFI *cfi, Dwarf_Addr look)
{
	Dwarf_Op mem[3], *ops;
	Dwarf_Frame *fr = NULL;
	bool above = false;
	size_t n;
	int ra;

	if (!cfi || dwarf_cfi_addrframe(cfi, look, &fr))
		return false;
	ra = dwarf_frame_info(fr, NULL, NULL, NULL);
	if (ra >= 0 && !dwarf_frame_register(fr, ra, mem, &ops, &n) && n >= 1 &&
	    ops[0].atom == DW_OP_call_frame_cfa)
		above = n == 1 || (n == 2 && ops[1].atom == DW_OP_plus_uconst &&
				   (int64_t)ops[1].number >= 0);
	free(fr);
	return above;
}

static bool ra_above(Dwfl_Module *mod, Dwarf_Addr look)
{
	Dwarf_Addr bias;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);
	Dwarf_Frame *fr = NULL;

	/* the CFI libdw takes: .eh_frame if it covers @look */
	if (cfi && !dwarf_cfi_addrframe(cfi, look - bias, &fr)) {
		free(fr);
		return cfi_ra_above(cfi, look - bias);
	}
	cfi = dwfl_module_dwarf_cfi(mod, &bias);
	return cfi_ra_above(cfi, look - bias);
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
	Dwarf_Word sp = 0;
	Dwfl_Module *mod;
	struct map *mm;
	char buf[512];
	bool act, have_sp;

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
	if (e_machine == EM_AARCH64)
		pc &= ARM64_VA_MASK;
	look = act ? pc : pc - 1;
	mm = find_map(c->proc, look);
	/*
	 * Frames libdw computes from wrong CFI are not DWARF's answer but
	 * garbage: a return address outside every mapping, or the frame it
	 * already had (the same PC and stack pointer: no progress).
	 */
	have_sp = !dwfl_frame_reg(state, e_machine == EM_X86_64 ? 7 : 31, &sp);
	if (c->nd && !mm) {
		c->cut = "libdw: a return address outside every mapping";
		return DWARF_CB_ABORT;
	}
	if (c->nd && pc == c->d[c->nd - 1] && have_sp && c->have_sp && sp == c->sp) {
		c->cut = "libdw: the same frame again";
		return DWARF_CB_ABORT;
	}
	/*
	 * A row that has the return address at or above the CFA (arm64
	 * ld.so's _dl_runtime_resolve: the CFA leaves out the 16 bytes its
	 * PLT pushed) gives its caller a wrong stack pointer: the caller's
	 * return address is right, what is computed from its stack pointer
	 * is not.
	 */
	if (c->sp_wrong) {
		c->cut = "libdw: stack pointer not known (a callee's CFI has the return address above its CFA)";
		return DWARF_CB_ABORT;
	}
	c->sp_wrong = c->ra_above;
	c->sp = sp;
	c->have_sp = have_sp;
	c->d[c->nd++] = pc;
	/*
	 * The sampled PC at a file's ELF entry point (the program's _start,
	 * entered by a jump): the outermost frame, whatever its CFI says
	 * (arm64's crt1 marks the return address undefined only from the
	 * second instruction on; the link register holds a stale address).
	 */
	if (c->nd == 1 && mm && mm->file && mm->file->entry) {
		uint64_t bias;

		if (file_bias(mm->file, mm->start, mm->pgoff, &bias) &&
		    pc - bias == mm->file->entry) {
			c->entry = true;
			return DWARF_CB_ABORT;
		}
	}
	if (c->nd >= MAX_FRAMES) {
		c->cut = "more than 512 frames";
		return DWARF_CB_ABORT;
	}
	mod = dwfl_addrmodule(c->dwfl, look);
	if (mod && has_cfi(mod, look)) {
		c->ra_above = ra_above(mod, look);
		return DWARF_CB_OK;
	}

	if (mod) {
		symbolise(c->dwfl, c->proc, pc, !act, buf, sizeof(buf));
		snprintf(nocfi, sizeof(nocfi), "no CFI for %s", strchr(buf, ' ') + 1);
	} else if (mm && mm->file && mm->file->problem) {
		snprintf(nocfi, sizeof(nocfi), "%s", mm->file->problem);
	} else if (mm && mm->file) {
		snprintf(nocfi, sizeof(nocfi), "libdw has no module for %s", mm->file->guest);
	} else {
		snprintf(nocfi, sizeof(nocfi), "pc in anonymous memory");
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

static unsigned long nr_samples, nr_excluded, nr_kernel_samples;
static struct count *excl_reasons;
static uint64_t first_time;
static bool have_first_time;

/* ------------------------------------------------------------ sources */

enum src { SRC_SFRAME, SRC_EH_FRAME, SRC_FP, SRC_RECOVERY, SRC_NOFILE, SRC_PC, SRC_NR };

static const char *const src_names[SRC_NR] = {
	"sframe", "eh_frame", "fp", "recovery", "no file", "sampled PC",
};

/* Frames, by the source of the step that gave them. */
static struct {
	unsigned long	compared, agree, wrong, shorter, unjudged;
} src_stats[SRC_NR];

/*
 * Does the kernel have a table for @f (with the sysctls as given)? The
 * x86-64 vDSO's comes from its .eh_frame, converted at boot; it is used
 * in a task that has tables of files (registrations) only.
 */
static bool file_has_table(const struct file *f)
{
	if (!K_SFRAME || !f || !f->host)
		return false;
	if (f->is_vdso)
		return K_EH_FRAME && f->eh_phdr && e_machine == EM_X86_64;
	return f->sframe_phdr || (K_EH_FRAME && f->eh_phdr);
}

static bool proc_has_tables(const struct proc *p)
{
	for (int i = 0; i < p->nr_maps; i++)
		if (p->maps[i].file && !p->maps[i].file->is_vdso &&
		    file_has_table(p->maps[i].file))
			return true;
	return false;
}

/*
 * The kernel's choice for the step from a frame at @look (the sampled PC,
 * or a return address - 1): its file's SFrame, its file's .eh_frame
 * table (which also fills the functions SFrame does not describe in a
 * file with both), or neither (the frame pointer, or the recovery).
 */
static enum src step_source(struct proc *proc, uint64_t look)
{
	struct map *mm = find_map(proc, look);
	struct file *f = mm ? mm->file : NULL;
	uint64_t bias;

	if (f && !f->host && !f->is_vdso)
		return SRC_NOFILE;
	if (file_has_table(f) && (!f->is_vdso || proc_has_tables(proc)) &&
	    file_bias(f, mm->start, mm->pgoff, &bias)) {
		if (f->sframe_phdr && f->has_sframe &&
		    sframe_lookup(&f->sf, look - bias) != SF_NONE)
			return SRC_SFRAME;
		if (K_EH_FRAME && f->eh_phdr && eh_covers(f, look - bias, NULL))
			return SRC_EH_FRAME;
	}
	return K_RECOVER && proc_has_tables(proc) ? SRC_RECOVERY : SRC_FP;
}

static const char *dw_reg_name(unsigned int r)
{
	static const char *const x86[17] = {
		"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8", "r9",
		"r10", "r11", "r12", "r13", "r14", "r15", "rip",
	};
	static char b[16];

	if (e_machine == EM_X86_64 && r < 17)
		return x86[r];
	if (e_machine == EM_AARCH64 && r == 31)
		return "sp";
	snprintf(b, sizeof(b), e_machine == EM_AARCH64 && r < 31 ? "x%u" : "r%u", r);
	return b;
}

/* A DWARF expression of CFI, shortly: "rsp+8", "CFA-8", "... deref". */
static void ops_text(const Dwarf_Op *ops, size_t n, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	for (size_t i = 0; i < n && o < len; i++) {
		unsigned int a = ops[i].atom;
		const char *sep = i ? " " : "";

		if (a >= DW_OP_breg0 && a <= DW_OP_breg31)
			o += snprintf(buf + o, len - o, "%s%s%+" PRId64, sep,
				      dw_reg_name(a - DW_OP_breg0), (int64_t)ops[i].number);
		else if (a >= DW_OP_reg0 && a <= DW_OP_reg31)
			o += snprintf(buf + o, len - o, "%s%s", sep, dw_reg_name(a - DW_OP_reg0));
		else if (a == DW_OP_bregx)
			o += snprintf(buf + o, len - o, "%s%s%+" PRId64, sep,
				      dw_reg_name(ops[i].number), (int64_t)ops[i].number2);
		else if (a == DW_OP_regx)
			o += snprintf(buf + o, len - o, "%s%s", sep, dw_reg_name(ops[i].number));
		else if (a == DW_OP_call_frame_cfa)
			o += snprintf(buf + o, len - o, "%sCFA", sep);
		else if (a == DW_OP_plus_uconst)
			o += snprintf(buf + o, len - o, "%+" PRId64, (int64_t)ops[i].number);
		else if (a >= DW_OP_lit0 && a <= DW_OP_lit31)
			o += snprintf(buf + o, len - o, "%s%u", sep, a - DW_OP_lit0);
		else if (a == DW_OP_consts || a == DW_OP_constu)
			o += snprintf(buf + o, len - o, "%s%" PRId64, sep, (int64_t)ops[i].number);
		else if (a == DW_OP_deref)
			o += snprintf(buf + o, len - o, "%sderef", sep);
		else if (a == DW_OP_stack_value)
			o += snprintf(buf + o, len - o, "%s(value)", sep);
		else if (a == DW_OP_plus || a == DW_OP_minus || a == DW_OP_and ||
			 a == DW_OP_ge || a == DW_OP_shl)
			o += snprintf(buf + o, len - o, "%s%s", sep,
				      a == DW_OP_plus ? "plus" : a == DW_OP_minus ? "minus" :
				      a == DW_OP_and ? "and" : a == DW_OP_ge ? "ge" : "shl");
		else
			o += snprintf(buf + o, len - o, "%sop%#x", sep, a);
	}
}

/* The rule of register @r in @fr: "undefined", "same", "[CFA-8]"... */
static void reg_text(Dwarf_Frame *fr, int r, char *buf, size_t len)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	char t[120];

	if (dwarf_frame_register(fr, r, mem, &ops, &n))
		snprintf(buf, len, "?");
	else if (!n)
		snprintf(buf, len, "%s", ops ? "undefined" : "same");
	else if (ops[n - 1].atom == DW_OP_stack_value)
		ops_text(ops, n, buf, len);
	else {
		ops_text(ops, n, t, sizeof(t));
		snprintf(buf, len, "[%s]", t);
	}
}

/* Is the rule of register @r in @fr unchanged, or saved at CFA + N? */
static bool reg_plain(Dwarf_Frame *fr, int r)
{
	Dwarf_Op mem[3], *ops;
	size_t n;

	if (dwarf_frame_register(fr, r, mem, &ops, &n))
		return false;
	return (!n && !ops) || (n >= 1 && n <= 2 && ops[0].atom == DW_OP_call_frame_cfa &&
				(n == 1 || ops[1].atom == DW_OP_plus_uconst));
}

/*
 * The .eh_frame row of @f at ELF address @a, as "CFA rsp+16, RA [CFA-8],
 * FP same", and *@plain: the CFA is the stack or frame pointer plus an
 * offset, the return address and frame pointer are unchanged or saved at
 * the CFA plus an offset (what every converter expresses).
 */
static void eh_row_text(struct file *f, uint64_t a, char *buf, size_t len, bool *plain)
{
	Dwarf_CFI *cfi = file_eh_cfi(f);
	unsigned int sp = e_machine == EM_X86_64 ? 7 : 31, fpr = e_machine == EM_X86_64 ? 6 : 29;
	Dwarf_Frame *fr = NULL;
	Dwarf_Op *ops;
	char cfa[128], ra[128], fp[128];
	size_t n;
	bool sig = false;
	int rac;

	*plain = false;
	if (!cfi || dwarf_cfi_addrframe(cfi, a, &fr)) {
		snprintf(buf, len, "no FDE");
		return;
	}
	rac = dwarf_frame_info(fr, NULL, NULL, &sig);
	if (dwarf_frame_cfa(fr, &ops, &n) || !n) {
		snprintf(cfa, sizeof(cfa), "?");
	} else {
		ops_text(ops, n, cfa, sizeof(cfa));
		*plain = n == 1 &&
			 ((ops[0].atom == DW_OP_bregx && (ops[0].number == sp || ops[0].number == fpr)) ||
			  ops[0].atom == DW_OP_breg0 + sp || ops[0].atom == DW_OP_breg0 + fpr);
	}
	reg_text(fr, rac, ra, sizeof(ra));
	reg_text(fr, fpr, fp, sizeof(fp));
	*plain = *plain && !sig && reg_plain(fr, rac) && reg_plain(fr, fpr);
	snprintf(buf, len, "CFA %s, RA %s, FP %s%s", cfa, ra, fp,
		 sig ? ", signal frame" : "");
	free(fr);
}

/* ------------------------------------------------------------ samples */

/* Outcomes of a sample. */
enum outcome {
	OUT_EQUAL,		/* the same chain */
	OUT_EQUAL_MAX,		/* libdw's, up to the kernel's max_stack cut */
	OUT_EQUAL_CUT,		/* libdw's up to its cut, the rest unjudged */
	OUT_SHORTER,		/* the kernel stopped where libdw went on */
	OUT_WRONG,		/* a frame differs */
	OUT_NR,
};

static unsigned long nr_judged, nr_outcome[OUT_NR], nr_sf_pc, nr_leaf[SRC_NR];
static unsigned long nr_unjudged_samples, nr_wrong_reported, nr_listed;
/* mismatch classes (wrong and shorter), unjudged reasons */
static struct count *classes, *unjudged_kinds;

/* Per command name (the process's comm when sampled). */
struct cmd_stat {
	struct cmd_stat	*next;
	char		comm[16];
	unsigned long	samples, agree, procs, first_ok;
};
static struct cmd_stat *cmds;

/* The statistics of @comm; new ones go last (the order of first samples). */
static struct cmd_stat *get_cmd(const char *comm)
{
	struct cmd_stat *c, **pp;

	for (pp = &cmds; (c = *pp); pp = &c->next)
		if (!strcmp(c->comm, comm))
			return c;
	c = xcalloc(1, sizeof(*c));
	snprintf(c->comm, sizeof(c->comm), "%s", comm);
	*pp = c;
	return c;
}

static void exclude(const char *why, int pid, int tid, uint64_t time)
{
	nr_excluded++;
	count_add(&excl_reasons, why);
	if (verbose)
		printf("sample %lu pid %d tid %d t=%.6f excluded: %s\n", nr_samples,
		       pid, tid, (time - first_time) / 1e9, why);
}

/*
 * Frames @from.. of chain @c (up to 8); with @src, each kernel frame
 * i > 0 with the source of the step that gave it.
 */
static void print_chain(const char *what, Dwfl *dwfl, struct proc *p,
			const uint64_t *c, int n, int from, bool src)
{
	char buf[512];
	int i;

	if (from > 0 && from < n)
		printf("      %-6s     ... %d frames before\n", what, from);
	for (i = from; i < n && i < from + 8; i++) {
		symbolise(dwfl, p, c[i], i > 0, buf, sizeof(buf));
		printf("      %-6s #%-2d %s", i == from && !from ? what : "", i, buf);
		if (src && i > 0)
			printf("  [%s]", src_names[step_source(p, i > 1 ? c[i - 1] - 1 : c[i - 1])]);
		printf("\n");
	}
	if (i < n)
		printf("      %-6s     ... %d more\n", "", n - i);
	if (from >= n)
		printf("      %-6s #%-2d (end of chain)\n", what, from);
}

/* "func (file)" of @addr (a return address if @ret). */
static void func_of(Dwfl *dwfl, struct proc *p, uint64_t addr, bool ret,
		    char *func, size_t len)
{
	char buf[512];

	symbolise2(dwfl, p, addr, ret, buf, sizeof(buf), func, len);
}

/*
 * Judge the kernel's chain @k against libdw's @d frame by frame; count
 * per source; return the sample's outcome, with its description in @what
 * for OUT_SHORTER and OUT_WRONG.
 */
static enum outcome judge(Dwfl *dwfl, struct proc *proc, const uint64_t *k, int nk,
			  const uint64_t *d, int nd, bool natural, bool cut_max,
			  const char *cut_why, unsigned long sample, int *at,
			  char *what, size_t wlen)
{
	char sf[512], kf[512], df[512], row[520];
	enum src s;
	int j;

	*at = 0;
	if (k[0] != d[0]) {
		src_stats[SRC_PC].compared++;
		src_stats[SRC_PC].wrong++;
		snprintf(what, wlen, "wrong sampled PC");
		return OUT_WRONG;
	}
	for (j = 1; j < nk || j < nd; j++) {
		uint64_t look = j > 1 ? k[j - 1] - 1 : k[j - 1];

		*at = j;
		s = step_source(proc, look);
		if (j < nk && j < nd) {
			src_stats[s].compared++;
			if (k[j] == d[j]) {
				src_stats[s].agree++;
				continue;
			}
			src_stats[s].wrong++;
			func_of(dwfl, proc, k[j - 1], j > 1, sf, sizeof(sf));
			func_of(dwfl, proc, k[j], true, kf, sizeof(kf));
			func_of(dwfl, proc, d[j], true, df, sizeof(df));
			snprintf(what, wlen, "wrong frame, %s step from %s: kernel %s, libdw %s",
				 src_names[s], sf, kf, df);
			return OUT_WRONG;
		}
		if (j < nd) {
			/* the kernel's chain ended here */
			if (cut_max)
				return OUT_EQUAL_MAX;
			src_stats[s].shorter++;
			func_of(dwfl, proc, k[j - 1], j > 1, sf, sizeof(sf));
			row[0] = 0;
			if (s == SRC_EH_FRAME) {
				struct map *mm = find_map(proc, look);
				uint64_t bias;
				char r[500];
				bool plain;

				if (mm && file_bias(mm->file, mm->start, mm->pgoff, &bias)) {
					eh_row_text(mm->file, look - bias, r, sizeof(r), &plain);
					snprintf(row, sizeof(row), " [%s]", plain ? "a plain row" : r);
				}
			}
			/*
			 * On arm64 a frame record gives no stack pointer: after a
			 * frame pointer step only rules based on the frame
			 * pointer apply (the kernel's documented limit).
			 */
			if (e_machine == EM_AARCH64 && j > 1 && s != SRC_FP && s != SRC_RECOVERY &&
			    step_source(proc, j > 2 ? k[j - 2] - 1 : k[j - 2]) == SRC_FP)
				snprintf(row + strlen(row), sizeof(row) - strlen(row),
					 " after a frame pointer step");
			snprintf(what, wlen, "kernel chain ends, %s step from %s%s",
				 src_names[s], sf, row);
			return OUT_SHORTER;
		}
		/* libdw's chain ended here, the kernel's goes on */
		if (natural) {
			src_stats[s].compared++;
			src_stats[s].wrong++;
			func_of(dwfl, proc, k[j - 1], j > 1, sf, sizeof(sf));
			func_of(dwfl, proc, k[j], true, kf, sizeof(kf));
			snprintf(what, wlen, "wrong frame, %s step from %s: kernel %s past libdw's outermost frame",
				 src_names[s], sf, kf);
			return OUT_WRONG;
		}
		for (int i = j; i < nk; i++)
			src_stats[step_source(proc, i > 1 ? k[i - 1] - 1 : k[i - 1])].unjudged++;
		nr_unjudged_samples++;
		count_add(&unjudged_kinds, cut_why ? cut_why : "libdw's chain cut");
		if (verbose)
			printf("  sample %lu: %d kernel frames beyond libdw's end unjudged (%s)\n",
			       sample, nk - j, cut_why ? cut_why : "libdw's chain cut");
		return OUT_EQUAL_CUT;
	}
	return OUT_EQUAL;
}

static void do_sample(const uint8_t *rec, const uint8_t *end)
{
	const struct perf_event_header *h = (const void *)rec;
	const uint64_t *p = (const void *)(h + 1), *chain, *regs = NULL;
	uint64_t nr, abi, size = 0, dyn = 0, time, k[MAX_FRAMES], d[MAX_FRAMES];
	int pid, tid, nk = 0, nd = 0, max_stack, at;
	const uint8_t *stack = NULL;
	bool natural = false, cut_max = false;
	const char *cut_why = NULL;
	char why[1024], what[2048];
	enum outcome out;
	struct cmd_stat *cmd;
	struct proc *proc;
	enum src leaf;
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
		struct frame_ctx fc = { dwfl, proc, d, 0, NULL, 0, false, false, false, false };

		rc = dwfl_getthread_frames(dwfl, tid, frame_cb, &fc);
		nd = fc.nd;
		cut_why = fc.cut;
		if (fc.entry) {
			natural = true;
		} else if (!cut_why) {
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
		if (natural && !fc.entry && nd > 0 && !ra_undefined(dwfl, d[nd - 1], nd > 1)) {
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

	nr_judged++;
	leaf = step_source(proc, k[0]);
	nr_leaf[leaf]++;
	nr_sf_pc += leaf == SRC_SFRAME;
	out = judge(dwfl, proc, k, nk, d, nd, natural, cut_max, cut_why, nr_samples,
		    &at, what, sizeof(what));
	nr_outcome[out]++;
	cmd = get_cmd(proc->comm);
	cmd->samples++;
	cmd->agree += out < OUT_SHORTER;
	if (!proc->first_sample) {
		proc->first_sample = nr_samples;
		proc->first_ok = out < OUT_SHORTER;
		memcpy(proc->first_comm, proc->comm, sizeof(proc->comm));
		if (!proc->first_ok)
			proc->first_what = xstrdup(what);
		cmd->procs++;
		cmd->first_ok += proc->first_ok;
	}

	if (verbose) {
		printf("sample %lu pid %d tid %d t=%.6f nk=%d nd=%d%s%s%s%s\n",
		       nr_samples, pid, tid, (time - first_time) / 1e9, nk, nd,
		       cut_why ? " cut: " : "", cut_why ? cut_why : "",
		       out >= OUT_SHORTER ? ": " : "", out >= OUT_SHORTER ? what : "");
		print_chain("kernel", dwfl, proc, k, nk, 0, true);
		print_chain("libdw", dwfl, proc, d, nd, 0, false);
	}
	if (out < OUT_SHORTER)
		return;
	/* the class: the kind, the step's source and function, the frames */
	count_add(&classes, what);
	/*
	 * The first list_max samples that differ, and the first list_max
	 * with a wrong frame wherever they come, are listed in full.
	 */
	++nr_wrong_reported;
	if (verbose || (nr_wrong_reported > list_max &&
			(out != OUT_WRONG || nr_outcome[OUT_WRONG] > list_max)))
		return;
	if (++nr_listed == 1)
		printf("  samples that differ (the first %lu in full, and the first %lu with a wrong frame):\n",
		       list_max, list_max);
	printf("  sample %lu, pid %d tid %d (%s), t=%.6f s%s: at frame %d: %s\n",
	       nr_samples, pid, tid, proc->comm, (time - first_time) / 1e9,
	       proc->first_sample == nr_samples ? ", the process's first" : "", at, what);
	print_chain("kernel", dwfl, proc, k, nk, at > 3 ? at - 3 : 0, true);
	print_chain("libdw", dwfl, proc, d, nd, at > 3 ? at - 3 : 0, false);
	if (!natural && cut_why)
		printf("      (libdw's chain was cut: %s)\n", cut_why);
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
		"  --map GUEST=HOST    guest path prefix GUEST is HOST on this machine (repeatable;\n"
		"                      several HOSTs for one GUEST are tried in turn)\n"
		"  --sysctl NAME=V     the kernel's kernel.NAME during the recording: unwind_user_sframe\n"
		"                      (default 1), unwind_user_eh_frame (1), unwind_user_recover (0);\n"
		"                      V \"absent\" counts as 0\n"
		"  --threshold PCT     minimum share of judged samples that agree frame by frame\n"
		"                      (default 99.9)\n"
		"  --max-wrong PCT     most wrong frames, in percent of the compared ones (default 0.01)\n"
		"  --max-table-wrong N most wrong frames unwound with a table (SFrame or .eh_frame)\n"
		"                      (default: no bound of its own)\n"
		"  --max-first-incomplete N\n"
		"                      most processes whose first judged sample does not agree\n"
		"                      (default 0)\n"
		"  --min-samples N     minimum number of judged samples (default 200)\n"
		"  --min-sframe N      of which at least N with the sampled PC in SFrame-described\n"
		"                      code (default 0)\n"
		"  --list N            the first N samples that differ shown in full, and the\n"
		"                      first N with a wrong frame (default 20)\n"
		"  --classes N         mismatch classes and unjudged reasons listed (default 10)\n"
		"  --label NAME        name shown in the result line\n"
		"  -v, --verbose       print both chains of every sample\n",
		prog);
	exit(2);
}

static void set_sysctl(char *arg)
{
	char *eq = strchr(arg, '='), *name = arg, *endp;
	long v;

	if (!eq)
		usage();
	*eq = 0;
	if (!strncmp(name, "kernel.", 7))
		name += 7;
	if (!strcmp(eq + 1, "absent")) {
		v = 0;
	} else {
		v = strtol(eq + 1, &endp, 10);
		if (!eq[1] || *endp || v < 0)
			usage();
	}
	for (size_t i = 0; i < sizeof(sysctls) / sizeof(sysctls[0]); i++) {
		if (!strcmp(sysctls[i].name, name)) {
			sysctls[i].value = v != 0;
			sysctls[i].given = true;
			return;
		}
	}
	fprintf(stderr, "%s: unknown sysctl %s\n", prog, name);
	usage();
}

static unsigned long parse_ulong(const char *s)
{
	char *endp;
	unsigned long v = strtoul(s, &endp, 10);

	if (!*s || *endp)
		usage();
	return v;
}

static double parse_pct(const char *s)
{
	char *endp;
	double v = strtod(s, &endp);

	if (!*s || *endp || v < 0 || v > 100)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "map", required_argument, NULL, 'M' },
		{ "sysctl", required_argument, NULL, 'K' },
		{ "threshold", required_argument, NULL, 't' },
		{ "max-wrong", required_argument, NULL, 'W' },
		{ "max-table-wrong", required_argument, NULL, 'T' },
		{ "max-first-incomplete", required_argument, NULL, 'I' },
		{ "min-samples", required_argument, NULL, 'n' },
		{ "min-sframe", required_argument, NULL, 'F' },
		{ "list", required_argument, NULL, 'l' },
		{ "classes", required_argument, NULL, 'C' },
		{ "label", required_argument, NULL, 'L' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct perf_event_attr *attr;
	struct xcheck_header hdr;
	unsigned long nr_recs = 0, cap = 0, agreed, compared = 0, wrong = 0;
	unsigned long nr_procs = 0, nr_first_ok = 0, table_wrong;
	struct rec *recs = NULL;
	const uint8_t *data, *p, *end;
	static char tmpl[] = "/tmp/xcheck-vdso-XXXXXX";
	char *eq;
	struct stat st;
	double pct, wrong_pct;
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
		case 'K':
			set_sysctl(optarg);
			break;
		case 't':
			threshold = parse_pct(optarg);
			break;
		case 'W':
			max_wrong = parse_pct(optarg);
			break;
		case 'T':
			max_table_wrong = parse_ulong(optarg);
			break;
		case 'I':
			max_first_incomplete = parse_ulong(optarg);
			break;
		case 'n':
			min_samples = parse_ulong(optarg);
			break;
		case 'F':
			min_sframe = parse_ulong(optarg);
			break;
		case 'l':
			list_max = parse_ulong(optarg);
			break;
		case 'C':
			classes_max = parse_ulong(optarg);
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
	printf("  kernel:");
	for (size_t i = 0; i < sizeof(sysctls) / sizeof(sysctls[0]); i++)
		printf(" %s=%d%s", sysctls[i].name, sysctls[i].value,
		       sysctls[i].given ? "" : " (not given: assumed)");
	printf("\n");

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
			/* pid, tid, comm */
			pp = get_proc(b[0], true);
			if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
				pp->nr_maps = 0;
				pp->gen++;
			}
			if (b[0] == b[1])
				snprintf(pp->comm, sizeof(pp->comm), "%.*s",
					 (int)(h->size - sizeof(*h) - 8), (const char *)(b + 2));
			break;
		case PERF_RECORD_FORK:
			/* pid, ppid, tid, ptid: a new process copies its parent */
			if (b[0] != b[1]) {
				parent = get_proc(b[1], false);
				pp = get_proc(b[0], true);
				if (parent && parent != pp) {
					memcpy(pp->comm, parent->comm, sizeof(pp->comm));
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

	agreed = nr_outcome[OUT_EQUAL] + nr_outcome[OUT_EQUAL_MAX] + nr_outcome[OUT_EQUAL_CUT];
	pct = nr_judged ? 100.0 * agreed / nr_judged : 0;
	for (int s = 0; s < SRC_NR; s++) {
		compared += src_stats[s].compared;
		wrong += src_stats[s].wrong;
	}
	wrong_pct = compared ? 100.0 * wrong / compared : 0;
	for (struct proc *pp = procs; pp; pp = pp->next) {
		nr_procs += !!pp->first_sample;
		nr_first_ok += pp->first_sample && pp->first_ok;
	}

	if (nr_wrong_reported > nr_listed)
		printf("  (%lu more samples that differ not shown)\n", nr_wrong_reported - nr_listed);
	printf("  samples          %8lu   (lost by the kernel: %llu%s)\n", nr_samples,
	       (unsigned long long)hdr.lost,
	       hdr.complete ? "" : "; recording incomplete");
	printf("  excluded         %8lu\n", nr_excluded);
	count_print(excl_reasons, "      ", classes_max);
	printf("  judged           %8lu   (sampled PC: %lu with SFrame, %lu in .eh_frame tables, %lu without a table)\n",
	       nr_judged, nr_leaf[SRC_SFRAME], nr_leaf[SRC_EH_FRAME],
	       nr_judged - nr_leaf[SRC_SFRAME] - nr_leaf[SRC_EH_FRAME]);
	printf("  agree            %8lu   (%.3f%%)\n", agreed, pct);
	printf("      identical chains                         %8lu\n", nr_outcome[OUT_EQUAL]);
	if (nr_outcome[OUT_EQUAL_MAX])
		printf("      equal up to the kernel's max_stack cut   %8lu\n",
		       nr_outcome[OUT_EQUAL_MAX]);
	printf("      equal up to where libdw's chain was cut  %8lu   (later kernel frames unjudged)\n",
	       nr_outcome[OUT_EQUAL_CUT]);
	printf("  kernel chain shorter %4lu\n", nr_outcome[OUT_SHORTER]);
	printf("  wrong frame      %8lu\n", nr_outcome[OUT_WRONG]);
	if (classes) {
		printf("  mismatch classes (samples):\n");
		count_print(classes, "    ", classes_max);
	}
	if (unjudged_kinds) {
		printf("  unjudged beyond libdw's end, by where libdw stopped (samples):\n");
		count_print(unjudged_kinds, "    ", classes_max);
	}
	printf("  frames by the source of the step that gave them (frame 0 is the sampled PC):\n");
	printf("    %-12s %10s %10s %8s %10s %10s\n", "source", "compared", "agree",
	       "wrong", "k.shorter", "unjudged");
	{
		unsigned long t[5] = { 0 };

		for (int s = 0; s < SRC_NR; s++) {
			unsigned long v[5] = {
				src_stats[s].compared, src_stats[s].agree, src_stats[s].wrong,
				src_stats[s].shorter, src_stats[s].unjudged,
			};

			for (int i = 0; i < 5; i++)
				t[i] += v[i];
			if (s > SRC_FP && !(s == SRC_RECOVERY && K_RECOVER) &&
			    !v[0] && !v[3] && !v[4])
				continue;
			printf("    %-12s %10lu %10lu %8lu %10lu %10lu\n", src_names[s],
			       v[0], v[1], v[2], v[3], v[4]);
		}
		printf("    %-12s %10lu %10lu %8lu %10lu %10lu\n", "all",
		       t[0], t[1], t[2], t[3], t[4]);
	}
	printf("  by command: samples, agree, processes, first sample complete\n");
	for (struct cmd_stat *c = cmds; c; c = c->next)
		printf("    %-16s %8lu %8lu (%.3f%%) %6lu %6lu\n", c->comm, c->samples,
		       c->agree, c->samples ? 100.0 * c->agree / c->samples : 0.0,
		       c->procs, c->first_ok);
	printf("  first sample per process complete: %lu of %lu\n", nr_first_ok, nr_procs);
	for (struct proc *pp = procs; pp; pp = pp->next)
		if (pp->first_sample && !pp->first_ok)
			printf("      pid %d (%s), sample %lu: %s\n", pp->pid, pp->first_comm,
			       pp->first_sample, pp->first_what);
	for (struct file *f = files; f; f = f->next)
		if (f->unverified)
			printf("  note: %s used without a build ID check (none recorded)\n",
			       f->guest);
	for (struct file *f = files; f; f = f->next)
		if (f->problem)
			printf("  note: %s\n", f->problem);
	if (nr_kernel_samples)
		printf("  note: %lu kernel chain entries ignored\n", nr_kernel_samples);

	table_wrong = src_stats[SRC_SFRAME].wrong + src_stats[SRC_EH_FRAME].wrong;
	pass = hdr.complete && nr_judged >= min_samples && nr_sf_pc >= min_sframe &&
	       pct >= threshold && wrong_pct <= max_wrong &&
	       (max_table_wrong < 0 || table_wrong <= (unsigned long)max_table_wrong) &&
	       nr_procs - nr_first_ok <= max_first_incomplete;
	printf("%s%s%s: %lu/%lu samples agree frame by frame (%.3f%%), %lu/%lu frames wrong (%.4f%%), "
	       "first samples complete %lu/%lu, %lu excluded, %llu lost; %s "
	       "(threshold %.2f%%, wrong at most %.3f%%, at least %lu judged)\n",
	       pass ? "PASS" : "FAIL", label ? " " : "", label ? label : "",
	       agreed, nr_judged, pct, wrong, compared, wrong_pct, nr_first_ok, nr_procs,
	       nr_excluded, (unsigned long long)hdr.lost,
	       !hdr.complete ? "recording incomplete" :
	       nr_judged < min_samples ? "too few samples judged" :
	       nr_sf_pc < min_sframe ? "too few samples in SFrame-described code" :
	       pct < threshold ? "agreement below the threshold" :
	       wrong_pct > max_wrong ? "too many wrong frames" :
	       max_table_wrong >= 0 && table_wrong > (unsigned long)max_table_wrong ?
			"too many wrong frames from the tables" :
	       nr_procs - nr_first_ok > max_first_incomplete ?
			"first samples of processes incomplete" : "ok",
	       threshold, max_wrong, min_samples);
	return pass ? 0 : 1;
}
