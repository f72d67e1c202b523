// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile SFrame sections.  Each case copies libsf_h.so (SFrame, no frame
 * pointers, see hostile_lib.c) to a temporary file, damages the copy's
 * .sframe data or its PT_GNU_SFRAME program header, and runs a workload
 * that dlopen()s the copy while the process is sampled at a high rate:
 *
 *   control   main binary: c <- b <- a, must stay complete
 *   good      hl_good_leaf <- hl_good_mid <- hl_good_entry in the copy
 *   hostile   [hl_step <-] hl_leaf <- hl_mid <- hl_entry in the copy
 *
 * Static damage, which the kernel must refuse, saying so in a message that
 * names the file (the copy's "good" chains then fall back to frame
 * pointers, which this code has not, so they are not complete; with the
 * undamaged copy they are):
 *   truncated section, num_fdes or num_fres huge, FDE or FRE sub-section
 *   offsets past the end, FDE row offsets past the end, unsorted FDEs, FRE
 *   start addresses out of order, PT_GNU_SFRAME outside any mapping of the
 *   file (the workload puts a valid copy of the section there) or in its
 *   writable segment (the file holds a valid copy there).
 *
 * Valid structure, hostile rules for hl_leaf (the kernel uses the section:
 * the "good" chains are complete; every chain of a sample in hl_step, which
 * hl_leaf calls with the frame pointer register set, must stop at hl_leaf):
 *   CFA at a kernel address, at 0, below SP, at SP, a saved return address
 *   in the kernel image, and a frame that is its own caller.
 *
 * Concurrency: another thread rewrites the section with garbage while
 * samples are taken (the kernel keeps the rules it validated: the good
 * chains stay complete); a thread dlopen()s/dlclose()s copies of the
 * library and mmap()s/munmap()s their text at a high rate, sampled every
 * 10 us.
 *
 * Every case asserts: the workload exits normally, no user chain entry is an
 * address in the kernel image, the control chains are complete,
 * /proc/sys/kernel/tainted is unchanged and the kernel log has no BUG,
 * WARNING, KASAN, lockdep or RCU report.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/elf.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "sampled.h"
#include "workload.h"
#include "hostile_lib.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME		0x6474e554
#endif

/*
 * USER_ADDR_END: end of user space.  KERNEL_ADDR: an address in the kernel
 * image.  KERNEL_IMAGE_*: where the kernel image may be, for when
 * /proc/kallsyms does not tell.
 */
#define KERNEL_ADDR		HL_RA_KERNEL
#if defined(__x86_64__)
#define USER_ADDR_END		0x800000000000UL
#define KERNEL_IMAGE_START	0xffffffff80000000UL
#define KERNEL_IMAGE_END	0xffffffffff000000UL
#elif defined(__aarch64__)
#define USER_ADDR_END		0x1000000000000UL
#define KERNEL_IMAGE_START	0xffff800000000000UL
#define KERNEL_IMAGE_END	0xfffffc0000000000UL
#else
#error "unsupported architecture"
#endif

/* Shortest sampling time of the rewrite and churn cases, their period. */
#define HOSTILE_RUN_MS		2000
#define CHURN_RUN_MS		2500
#define CHURN_MIN_LEAF		100
#define CHURN_PERIOD_NS		10000
#define CHURN_COPIES		4
#define HOSTILE_OUTSIDE_GAP	0x200000ULL
#define CHURN_WORK		100000
#define CHURN_MAPS		4
#define REWRITE_HOLD_US		1000
#define REWRITE_DELAY_US	200000

/* ------------------------------------------------------------------ */
/* SFrame and ELF editing                                              */
/* ------------------------------------------------------------------ */

#define SF_MAGIC		0xdee2
#define SF_F_FDE_FUNC_START_PCREL 0x4

struct sf_header {
	uint16_t magic;
	uint8_t version;
	uint8_t flags;
	uint8_t abi_arch;
	int8_t cfa_fixed_fp_offset;
	int8_t cfa_fixed_ra_offset;
	uint8_t auxhdr_len;
	uint32_t num_fdes;
	uint32_t num_fres;
	uint32_t fre_len;
	uint32_t fdes_off;
	uint32_t fres_off;
};

/*
 * Function descriptors: 17 bytes in v1, 20 in v2 (the same fields, then
 * rep_size and padding), unaligned.  Offsets of the fields used here:
 */
#define SF_FDE_START		0
#define SF_FDE_FRES_OFF		8
#define SF_FDE_FRES_NUM		12
#define SF_FDE_INFO		16
#define SF_FDE_MAX_SIZE		20

/* A file loaded in memory, and its SFrame section. */
struct hfile {
	char *buf;
	size_t len;
	struct elf64_hdr *eh;
	struct elf64_phdr *ph;
	struct elf64_phdr *sf_ph;
	/* the section: at buf + sec_off, user address sec_vaddr */
	size_t sec_off;
	uint64_t sec_vaddr;
	uint64_t sec_size;
	size_t fde_size;
};

static int hfile_load(struct hfile *f, const char *path)
{
	struct stat st;
	int fd, i;

	memset(f, 0, sizeof(*f));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(struct elf64_hdr)) {
		close(fd);
		return -EINVAL;
	}
	f->len = st.st_size;
	f->buf = malloc(f->len);
	if (!f->buf || read(fd, f->buf, f->len) != (ssize_t)f->len) {
		close(fd);
		free(f->buf);
		return -EIO;
	}
	close(fd);
	f->eh = (struct elf64_hdr *)f->buf;
	if (memcmp(f->eh->e_ident, ELFMAG, SELFMAG) ||
	    f->eh->e_phentsize != sizeof(struct elf64_phdr) ||
	    f->eh->e_phoff + f->eh->e_phnum * sizeof(struct elf64_phdr) > f->len)
		return -EINVAL;
	f->ph = (struct elf64_phdr *)(f->buf + f->eh->e_phoff);
	for (i = 0; i < f->eh->e_phnum; i++)
		if (f->ph[i].p_type == PT_GNU_SFRAME)
			f->sf_ph = &f->ph[i];
	if (!f->sf_ph || f->sf_ph->p_offset + f->sf_ph->p_filesz > f->len)
		return -ENOENT;
	f->sec_off = f->sf_ph->p_offset;
	f->sec_vaddr = f->sf_ph->p_vaddr;
	f->sec_size = f->sf_ph->p_filesz;
	return 0;
}

static int hfile_save(const struct hfile *f, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, f->buf, f->len);
	close(fd);
	return n == (ssize_t)f->len ? 0 : -EIO;
}

static struct sf_header *sf_hdr(const struct hfile *f)
{
	return (struct sf_header *)(f->buf + f->sec_off);
}

static int sf_check(struct hfile *f)
{
	struct sf_header *h = sf_hdr(f);

	if (f->sec_size < sizeof(*h) || h->magic != SF_MAGIC)
		return -EINVAL;
	f->fde_size = h->version == 1 ? 17 : 20;
	if (h->version != 1 && h->version != 2)
		return -EINVAL;
	if (sizeof(*h) + h->auxhdr_len + h->fdes_off +
	    (uint64_t)h->num_fdes * f->fde_size > f->sec_size ||
	    sizeof(*h) + h->auxhdr_len + h->fres_off + h->fre_len > f->sec_size)
		return -EINVAL;
	return 0;
}

static size_t sf_fde_off(const struct hfile *f, uint32_t i)
{
	const struct sf_header *h = sf_hdr(f);

	return sizeof(*h) + h->auxhdr_len + h->fdes_off + i * f->fde_size;
}

static char *sf_fde(const struct hfile *f, uint32_t i)
{
	return f->buf + f->sec_off + sf_fde_off(f, i);
}

static uint32_t sf_fde_get(const struct hfile *f, uint32_t i,
			   unsigned int field)
{
	uint32_t v;

	memcpy(&v, sf_fde(f, i) + field, sizeof(v));
	return v;
}

static void sf_fde_set(const struct hfile *f, uint32_t i, unsigned int field,
		       uint32_t v)
{
	memcpy(sf_fde(f, i) + field, &v, sizeof(v));
}

static uint8_t sf_fde_info(const struct hfile *f, uint32_t i)
{
	return sf_fde(f, i)[SF_FDE_INFO];
}

static uint64_t sf_func_start(const struct hfile *f, uint32_t i)
{
	uint64_t base = f->sec_vaddr;

	if (sf_hdr(f)->flags & SF_F_FDE_FUNC_START_PCREL)
		base += sf_fde_off(f, i);
	return base + (int32_t)sf_fde_get(f, i, SF_FDE_START);
}

static void sf_set_func_start(const struct hfile *f, uint32_t i,
			      uint64_t start)
{
	uint64_t base = f->sec_vaddr;

	if (sf_hdr(f)->flags & SF_F_FDE_FUNC_START_PCREL)
		base += sf_fde_off(f, i);
	sf_fde_set(f, i, SF_FDE_START, (uint32_t)(start - base));
}

static int sf_find_fde(const struct hfile *f, uint64_t vaddr)
{
	uint32_t i;

	for (i = 0; i < sf_hdr(f)->num_fdes; i++)
		if (sf_func_start(f, i) == vaddr)
			return i;
	return -1;
}

static unsigned int sf_addr_size(uint8_t fde_info)
{
	switch (fde_info & 0xf) {
	case 0:
		return 1;
	case 1:
		return 2;
	case 2:
		return 4;
	}
	return 0;
}

/* Byte offset in the file of FDE i's first row. */
static size_t sf_fres_pos(const struct hfile *f, uint32_t i)
{
	const struct sf_header *h = sf_hdr(f);

	return f->sec_off + sizeof(*h) + h->auxhdr_len + h->fres_off +
	       sf_fde_get(f, i, SF_FDE_FRES_OFF);
}

/* Size of the row at p: start address, info byte, offsets. */
static size_t sf_fre_size(const uint8_t *p, unsigned int addr_size)
{
	uint8_t info = p[addr_size];
	unsigned int count = (info >> 1) & 0xf;
	unsigned int osize = 1u << ((info >> 5) & 0x3);

	return addr_size + 1 + count * osize;
}

static uint64_t elf_sym(const struct hfile *f, const char *name)
{
	const struct elf64_shdr *sh = (const struct elf64_shdr *)(f->buf + f->eh->e_shoff);
	unsigned int i, j;

	if (!f->eh->e_shoff ||
	    f->eh->e_shoff + f->eh->e_shnum * sizeof(*sh) > f->len)
		return 0;
	for (i = 0; i < f->eh->e_shnum; i++) {
		const struct elf64_sym *sym;
		const char *str;

		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= f->eh->e_shnum)
			continue;
		sym = (const struct elf64_sym *)(f->buf + sh[i].sh_offset);
		str = f->buf + sh[sh[i].sh_link].sh_offset;
		for (j = 0; j < sh[i].sh_size / sizeof(*sym); j++)
			if (sym[j].st_name &&
			    !strcmp(str + sym[j].st_name, name))
				return sym[j].st_value;
	}
	return 0;
}

/* File offset of a user address, through the PT_LOAD holding it. */
static int64_t elf_vaddr_off(const struct hfile *f, uint64_t vaddr,
			     uint64_t size, bool writable)
{
	unsigned int i;

	for (i = 0; i < f->eh->e_phnum; i++) {
		const struct elf64_phdr *p = &f->ph[i];

		if (p->p_type != PT_LOAD || !(p->p_flags & PF_W) != !writable)
			continue;
		if (vaddr >= p->p_vaddr &&
		    vaddr + size <= p->p_vaddr + p->p_filesz)
			return vaddr - p->p_vaddr + p->p_offset;
	}
	return -1;
}

/*
 * Copy the section to file offset @off (growing the file if needed), to be
 * mapped at @vaddr: descriptors are adjusted so that they still describe
 * the same functions.  The program header then points at the copy.
 */
static int sf_move(struct hfile *f, size_t off, uint64_t vaddr)
{
	uint64_t starts[64];
	uint32_t i, n = sf_hdr(f)->num_fdes;
	char *buf;

	if (n > 64)
		return -E2BIG;
	for (i = 0; i < n; i++)
		starts[i] = sf_func_start(f, i);
	if (off + f->sec_size > f->len) {
		buf = realloc(f->buf, off + f->sec_size);
		if (!buf)
			return -ENOMEM;
		memset(buf + f->len, 0, off + f->sec_size - f->len);
		f->len = off + f->sec_size;
		f->buf = buf;
		f->eh = (struct elf64_hdr *)buf;
		f->ph = (struct elf64_phdr *)(buf + f->eh->e_phoff);
		for (i = 0; i < f->eh->e_phnum; i++)
			if (f->ph[i].p_type == PT_GNU_SFRAME)
				f->sf_ph = &f->ph[i];
	}
	memmove(f->buf + off, f->buf + f->sec_off, f->sec_size);
	f->sec_off = off;
	f->sec_vaddr = vaddr;
	for (i = 0; i < n; i++)
		sf_set_func_start(f, i, starts[i]);
	f->sf_ph->p_offset = off;
	f->sf_ph->p_vaddr = vaddr;
	f->sf_ph->p_paddr = vaddr;
	return 0;
}

enum hpatch {
	HP_NONE,
	HP_TRUNCATE,		/* PT_GNU_SFRAME: half the section */
	HP_NUM_FDES,		/* num_fdes = ~0 */
	HP_NUM_FRES,		/* num_fres = ~0 */
	HP_FDES_OFF,		/* FDE sub-section offset past the end */
	HP_FRES_OFF,		/* FRE sub-section offset past the end */
	HP_FDE_FRES_OFF,	/* every FDE's rows past the end */
	HP_UNSORTED,		/* first and last FDE swapped */
	HP_FRE_ORDER,		/* hl_leaf's first two row starts swapped */
	HP_RULE,		/* hl_leaf's rows: the variant's rule */
	HP_OUTSIDE,		/* PT_GNU_SFRAME outside every PT_LOAD */
	HP_WRITABLE,		/* PT_GNU_SFRAME in the writable PT_LOAD */
};

/* Rule written into every row of hl_leaf (HP_RULE). */
struct hrule {
	bool fp_base;		/* CFA from the frame pointer, else from SP */
	int8_t cfa;
	int8_t ra;		/* where the ABI has no fixed RA offset */
	int8_t fp;		/* where the row saves the frame pointer */
};

static int sf_patch_rule(struct hfile *f, int fde, const struct hrule *r)
{
	const struct sf_header *h = sf_hdr(f);
	unsigned int addr_size = sf_addr_size(sf_fde_info(f, fde));
	size_t pos = sf_fres_pos(f, fde);
	uint32_t i;

	for (i = 0; i < sf_fde_get(f, fde, SF_FDE_FRES_NUM); i++) {
		uint8_t *p = (uint8_t *)f->buf + pos;
		uint8_t *info = p + addr_size;
		unsigned int count = (*info >> 1) & 0xf, k = 1;
		int8_t *off = (int8_t *)(info + 1);

		/* one-byte offsets are what the assembler emits here */
		if (((*info >> 5) & 0x3) || !count)
			return -EINVAL;
		*info = (*info & ~1) | (r->fp_base ? 0 : 1);
		off[0] = r->cfa;
		if (!h->cfa_fixed_ra_offset && count > k)
			off[k++] = r->ra;
		if (!h->cfa_fixed_fp_offset && count > k)
			off[k++] = r->fp;
		pos += sf_fre_size(p, addr_size);
	}
	return 0;
}

static uint64_t round_up_u64(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static int hpatch_apply(struct hfile *f, enum hpatch patch,
			const struct hrule *rule)
{
	struct sf_header *h = sf_hdr(f);
	uint64_t leaf = elf_sym(f, "hl_leaf"), first, last, wbuf;
	char tmp[SF_FDE_MAX_SIZE];
	unsigned int i, as;
	int64_t woff;
	int fde;
	uint8_t *p, *q, t[4];

	if (sf_check(f))
		return -EINVAL;
	fde = leaf ? sf_find_fde(f, leaf) : -1;

	switch (patch) {
	case HP_NONE:
		return 0;
	case HP_TRUNCATE:
		f->sf_ph->p_filesz /= 2;
		f->sf_ph->p_memsz = f->sf_ph->p_filesz;
		return 0;
	case HP_NUM_FDES:
		h->num_fdes = UINT32_MAX;
		return 0;
	case HP_NUM_FRES:
		h->num_fres = UINT32_MAX;
		return 0;
	case HP_FDES_OFF:
		h->fdes_off = f->sec_size;
		return 0;
	case HP_FRES_OFF:
		h->fres_off = f->sec_size;
		return 0;
	case HP_FDE_FRES_OFF:
		for (i = 0; i < h->num_fdes; i++)
			sf_fde_set(f, i, SF_FDE_FRES_OFF, h->fre_len + 0x1000);
		return 0;
	case HP_UNSORTED:
		if (h->num_fdes < 2)
			return -EINVAL;
		first = sf_func_start(f, 0);
		last = sf_func_start(f, h->num_fdes - 1);
		memcpy(tmp, sf_fde(f, 0), f->fde_size);
		memcpy(sf_fde(f, 0), sf_fde(f, h->num_fdes - 1), f->fde_size);
		memcpy(sf_fde(f, h->num_fdes - 1), tmp, f->fde_size);
		sf_set_func_start(f, 0, last);
		sf_set_func_start(f, h->num_fdes - 1, first);
		return 0;
	case HP_FRE_ORDER:
		if (fde < 0 || sf_fde_get(f, fde, SF_FDE_FRES_NUM) < 2)
			return -EINVAL;
		as = sf_addr_size(sf_fde_info(f, fde));
		p = (uint8_t *)f->buf + sf_fres_pos(f, fde);
		q = p + sf_fre_size(p, as);
		memcpy(t, p, as);
		memcpy(p, q, as);
		memcpy(q, t, as);
		return 0;
	case HP_RULE:
		if (fde < 0)
			return -ENOENT;
		return sf_patch_rule(f, fde, rule);
	case HP_OUTSIDE:
		/*
		 * 2 MiB below the load address, page offset kept: free
		 * address space right after dlopen() (mappings are placed
		 * top-down), where the workload can map a copy.
		 */
		return sf_move(f, round_up_u64(f->len, 0x1000) +
			       (f->sec_vaddr & 0xfff),
			       -HOSTILE_OUTSIDE_GAP + (f->sec_vaddr & 0xfff));
	case HP_WRITABLE:
		wbuf = elf_sym(f, "hl_wbuf");
		if (!wbuf || f->sec_size > HL_WBUF_SIZE)
			return -ENOENT;
		woff = elf_vaddr_off(f, wbuf, f->sec_size, true);
		if (woff < 0)
			return -ENOENT;
		return sf_move(f, woff, wbuf);
	}
	return -EINVAL;
}

/* ------------------------------------------------------------------ */
/* Workload                                                            */
/* ------------------------------------------------------------------ */

/*
 * argv: exe WL_ARG mode lib fp
 * mode: "plain" (control, good and hostile threads), "refused" (control and
 * good), "outside" (the same, after mapping a copy of the section where
 * PT_GNU_SFRAME says, outside the file's mappings), "rewrite" (all three
 * and a rewriter) or "churn" (control, good and a churning thread).
 */
struct wl_ctx {
	const char *mode;
	const char *lib;
	unsigned long fp;
	void *handle;
	uintptr_t base;
	struct hfile file;
	unsigned long rounds;
	int err;
};

/* CPU time of the calling thread, for the report. */
static void wl_thread_times(const char *name)
{
	unsigned long utime = 0, stime = 0;
	char buf[1024], *p;
	ssize_t n;
	int fd;

	fd = open("/proc/thread-self/stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	/* fields 14 and 15, counted after the ")" that ends the name */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			 &utime, &stime) != 2)
		return;
	printf("# %s thread: user %lu, system %lu clock ticks\n", name, utime,
	       stime);
}

static void *wl_control_thread(void *arg)
{
	a();
	wl_thread_times("control");
	return NULL;
}

static void *wl_good_thread(void *arg)
{
	void (*fn)(sig_atomic_t *stop) = arg;

	fn(&workload_stop);
	wl_thread_times("good");
	return NULL;
}

static void *wl_hostile_thread(void *arg)
{
	struct wl_ctx *c = arg;
	void (*fn)(sig_atomic_t *stop, unsigned long fp);

	fn = (void (*)(sig_atomic_t *, unsigned long))dlsym(c->handle,
							      "hl_entry");
	if (fn)
		fn(&workload_stop, c->fp);
	return NULL;
}

/*
 * Map the text segment of @path on its own, as a loader would, and unmap it
 * again: the kernel registers and drops its SFrame section (whose data is
 * not mapped), which also ends the validity of the rules it has cached for
 * the process.
 */
static int wl_map_text(const struct hfile *f, const char *path)
{
	long page = sysconf(_SC_PAGESIZE);
	const struct elf64_phdr *text = NULL;
	size_t off, len;
	unsigned int i;
	void *m;
	int fd;

	for (i = 0; i < f->eh->e_phnum; i++)
		if (f->ph[i].p_type == PT_LOAD && (f->ph[i].p_flags & PF_X))
			text = &f->ph[i];
	if (!text)
		return -ENOENT;
	off = text->p_offset & ~(page - 1);
	len = text->p_offset + text->p_filesz - off;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	m = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, off);
	close(fd);
	if (m == MAP_FAILED)
		return -errno;
	return munmap(m, len) ? -errno : 0;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Rewrite the mapped section while it is in use: in turn the original with
 * a few random bytes changed, random garbage, and the original, each left
 * for a moment for the other threads to be sampled with.
 */
static void *wl_rewrite_thread(void *arg)
{
	struct wl_ctx *c = arg;
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t start = c->base + c->file.sec_vaddr;
	uintptr_t pstart = start & ~(page - 1);
	size_t size = c->file.sec_size, plen, i;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	char *sec = (char *)start;
	char *orig;

	plen = round_up_u64(start + size, page) - pstart;
	orig = malloc(size);
	if (!orig) {
		c->err = -ENOMEM;
		return NULL;
	}
	memcpy(orig, sec, size);
	/* let the kernel validate the section before it changes */
	usleep(REWRITE_DELAY_US);
	/* executable too: on arm64 the section shares pages with text */
	if (mprotect((void *)pstart, plen, PROT_READ | PROT_WRITE | PROT_EXEC)) {
		c->err = -errno;
		free(orig);
		return NULL;
	}
	while (!workload_stop) {
		unsigned long n = xorshift(&seed) % 8 + 1;

		memcpy(sec, orig, size);
		switch (c->rounds % 3) {
		case 0:
			while (n--) {
				i = xorshift(&seed) % size;
				sec[i] = xorshift(&seed);
			}
			break;
		case 1:
			for (i = 0; i < size; i++)
				sec[i] = xorshift(&seed);
			break;
		}
		c->rounds++;
		/* the kernel must read the section again */
		c->err = wl_map_text(&c->file, c->lib);
		if (c->err)
			break;
		usleep(REWRITE_HOLD_US);
	}
	memcpy(sec, orig, size);
	free(orig);
	return NULL;
}

static void churn_path(char *buf, size_t len, const char *lib, int i)
{
	int n = snprintf(buf, len, "%s.%d", lib, i);

	if (n < 0 || (size_t)n >= len)
		buf[0] = 0;
}

/*
 * Map and unmap SFrame libraries at a high rate: dlopen() a copy, run a
 * short burst in it, dlclose() it; and map just its text with mmap() and
 * unmap it again.
 */
static void *wl_churn_thread(void *arg)
{
	struct wl_ctx *c = arg;
	char path[PATH_MAX];
	unsigned int i;

	while (!workload_stop) {
		void (*work)(unsigned long n);
		void *h;

		churn_path(path, sizeof(path), c->lib,
			   c->rounds % CHURN_COPIES);
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			c->err = -ENOENT;
			break;
		}
		work = (void (*)(unsigned long))dlsym(h, "hl_work");
		if (work)
			work(CHURN_WORK);
		dlclose(h);

		for (i = 0; i < CHURN_MAPS && !c->err; i++)
			c->err = wl_map_text(&c->file, path);
		if (c->err)
			break;
		c->rounds++;
	}
	return NULL;
}

/* HP_OUTSIDE: put a valid copy of the section where the header says. */
static int wl_map_outside(struct wl_ctx *c)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t start = c->base + c->file.sec_vaddr;
	uintptr_t pstart = start & ~(page - 1);
	size_t plen = round_up_u64(start + c->file.sec_size, page) - pstart;
	void *m;

	m = mmap((void *)pstart, plen, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (m != (void *)pstart)
		return -EEXIST;
	memcpy((void *)start, c->file.buf + c->file.sec_off, c->file.sec_size);
	return mprotect(m, plen, PROT_READ) ? -errno : 0;
}

static int workload_main(int argc, char **argv)
{
	pthread_t t_ctl, t_good, t_host, t_extra;
	struct wl_ctx c = { 0 };
	void *good;
	bool extra = false, host;

	if (argc < 5)
		return 2;
	c.mode = argv[2];
	c.lib = argv[3];
	c.fp = strtoul(argv[4], NULL, 0);
	wl_init();

	if (hfile_load(&c.file, c.lib))
		return 3;
	c.handle = dlopen(c.lib, RTLD_NOW | RTLD_LOCAL);
	if (!c.handle) {
		fprintf(stderr, "dlopen %s: %s\n", c.lib, dlerror());
		return 4;
	}
	good = dlsym(c.handle, "hl_good_entry");
	if (!good)
		return 5;
	/* the load bias */
	if (!elf_sym(&c.file, "hl_good_entry"))
		return 6;
	c.base = (uintptr_t)good - elf_sym(&c.file, "hl_good_entry");
	if (!strcmp(c.mode, "outside") && wl_map_outside(&c))
		return 7;

	/* no hostile thread where it has nothing to show: more samples */
	host = !strcmp(c.mode, "plain") || !strcmp(c.mode, "rewrite");
	if (pthread_create(&t_ctl, NULL, wl_control_thread, NULL) ||
	    pthread_create(&t_good, NULL, wl_good_thread, good) ||
	    (host && pthread_create(&t_host, NULL, wl_hostile_thread, &c)))
		return 8;
	if (!strcmp(c.mode, "rewrite")) {
		if (pthread_create(&t_extra, NULL, wl_rewrite_thread, &c))
			return 8;
		extra = true;
	} else if (!strcmp(c.mode, "churn")) {
		if (pthread_create(&t_extra, NULL, wl_churn_thread, &c))
			return 8;
		extra = true;
	}
	pthread_join(t_ctl, NULL);
	pthread_join(t_good, NULL);
	if (host)
		pthread_join(t_host, NULL);
	if (extra) {
		pthread_join(t_extra, NULL);
		printf("# %s: %lu rounds%s\n", c.mode, c.rounds,
		       c.err ? ", failed" : "");
		fflush(stdout);
		if (c.err || !c.rounds)
			return 9;
	}
	dlclose(c.handle);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Kernel log and taint                                                */
/* ------------------------------------------------------------------ */

static long read_tainted(void)
{
	char buf[32] = "";
	ssize_t n;
	int fd;

	fd = open("/proc/sys/kernel/tainted", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? strtol(buf, NULL, 0) : -1;
}

struct kmsg_hostile {
	const char *name;
	int splats;
	int about;
};

/* A splat, or an sframe message about the file (each counted). */
static bool kmsg_hostile(const char *msg, void *arg)
{
	struct kmsg_hostile *h = arg;

	if (kmsg_is_splat(msg)) {
		h->splats++;
		return true;
	}
	if (!strstr(msg, "sframe") || !strstr(msg, h->name))
		return false;
	h->about++;
	return true;
}

/*
 * Scan the records logged since kmsg_open(): print the splats and the
 * sframe messages about @name, count them in @h.
 */
static void kmsg_scan(int fd, const char *name, struct kmsg_hostile *h)
{
	*h = (struct kmsg_hostile){ .name = name };
	kmsg_count(fd, kmsg_hostile, h);
}

/* ------------------------------------------------------------------ */
/* Chains                                                              */
/* ------------------------------------------------------------------ */

/* The kernel image, [_text, _end), from /proc/kallsyms. */
static void kernel_image(uint64_t *start, uint64_t *end)
{
	unsigned long long addr;
	char line[256], name[128], type;
	FILE *f;

	*start = 0;
	*end = 0;
	f = fopen("/proc/kallsyms", "re");
	while (f && fgets(line, sizeof(line), f) && !(*start && *end)) {
		if (sscanf(line, "%llx %c %127s", &addr, &type, name) != 3)
			continue;
		if (!strcmp(name, "_text"))
			*start = addr;
		else if (!strcmp(name, "_end"))
			*end = addr;
	}
	if (f)
		fclose(f);
	if (!*start || *end <= *start) {
		*start = KERNEL_IMAGE_START;
		*end = KERNEL_IMAGE_END;
	}
}

/*
 * Count the user chain entries of @pid that are addresses in the kernel
 * image, over the whole recorded chains (the decoded samples keep only the
 * first frames).  Kernel memory that reached a chain would show its return
 * addresses and function pointers there.
 *
 * @odd counts the other entries beyond user space (the direct map,
 * vmalloc, a stack guard or mangled pointer that a frame-pointer walk took
 * for a return address): none may reach a chain either, as the unwinder
 * ends the walk at a return address that is not a user address.
 */
static unsigned long kernel_entries(const struct sampler *s, pid_t pid,
				    unsigned long *samples, unsigned long *odd)
{
	uint64_t i, kstart, kend;
	unsigned long bad = 0;
	size_t off = 0;

	kernel_image(&kstart, &kend);
	*samples = 0;
	*odd = 0;
	while (off + sizeof(struct perf_event_header) <= s->raw_len) {
		const struct rec_sample *r = (const void *)(s->raw + off);

		if (r->header.size < sizeof(r->header))
			break;
		off += r->header.size;
		if (r->header.type != PERF_RECORD_SAMPLE ||
		    r->header.size < sizeof(*r) || r->pid != (uint32_t)pid ||
		    r->nr > (r->header.size - sizeof(*r)) / sizeof(uint64_t))
			continue;
		(*samples)++;
		for (i = 0; i < r->nr; i++) {
			uint64_t ip = r->ips[i];

			if (ip >= (uint64_t)PERF_CONTEXT_MAX || ip < USER_ADDR_END)
				continue;
			if (ip < kstart || ip >= kend) {
				if (!*odd)
					diag("tid %u entry %llu: %#llx is no user address\n",
					     r->tid, (unsigned long long)i,
					     (unsigned long long)ip);
				(*odd)++;
				continue;
			}
			if (!bad)
				diag("tid %u entry %llu: %#llx is in the kernel image\n",
				     r->tid, (unsigned long long)i,
				     (unsigned long long)ip);
			bad++;
		}
	}
	return bad;
}

/*
 * Samples taken in hl_step, called by hl_leaf with the frame pointer
 * register at the test's value (unlike samples in hl_leaf's own prologue
 * and epilogue): how many, and how many of them end at hl_leaf or at most
 * @extra frames after it.
 */
static void leaf_stop_count(const struct sampler *s, pid_t pid,
			    unsigned int extra, unsigned long *seen,
			    unsigned long *stopped)
{
	size_t k;

	*seen = 0;
	*stopped = 0;
	for (k = 0; k < s->nr_samples; k++) {
		const struct sample *smp = &s->samples[k];

		if (smp->pid != pid || !smp->nr || !smp->sym[0] ||
		    strcmp(smp->sym[0], "hl_step"))
			continue;
		(*seen)++;
		if (smp->nr > 1 && smp->sym[1] &&
		    !strcmp(smp->sym[1], "hl_leaf") && smp->depth <= 2 + extra)
			(*stopped)++;
	}
}

/* ------------------------------------------------------------------ */
/* Cases                                                               */
/* ------------------------------------------------------------------ */

enum hexpect {
	HE_USED,	/* section used: good and hostile chains complete */
	HE_REFUSED,	/* section not used: good chains not complete */
	HE_STOP,	/* section used, hl_leaf's chains stop there */
	HE_REWRITE,	/* good chains complete: the rewrite was not seen */
	HE_CHURN,	/* good chains complete, churned copies: no check */
};

static const char *const expect_ctl[] = { "c", "b", "a" };
static const char *const expect_good[] = {
	"hl_good_leaf", "hl_good_mid", "hl_good_entry"
};

static const char *const expect_host[] = { "hl_leaf", "hl_mid", "hl_entry" };

static const char *const expect_step[] = {
	"hl_step", "hl_leaf", "hl_mid", "hl_entry"
};

static const char *const expect_work[] = {
	"hl_work_leaf", "hl_work_mid", "hl_work"
};

/*
 * The hostile thread's samples land in hl_leaf's loop or in hl_step: both
 * chains are reported, and judged together.
 */
static bool host_report(const struct sampler *s, const struct sample_filter *f,
			const struct sampler_opts *o)
{
	struct chain_stats leaf, step;

	chain_report("hostile", s, f, expect_host, ARRAY_SIZE(expect_host), o,
		     &leaf);
	chain_report("hostile", s, f, expect_step, ARRAY_SIZE(expect_step), o,
		     &step);
	leaf.leaf += step.leaf;
	leaf.complete += step.complete;
	return chain_is_complete(&leaf, o);
}

FIXTURE_VARIANT(sampled) {
	const char *name;
	enum hpatch patch;
	struct hrule rule;
	const char *mode;
	unsigned long fp;
	enum hexpect expect;
	unsigned int extra;	/* HE_STOP: frames allowed after hl_leaf */
	uint64_t period_ns;	/* 0: UNWIND_PERIOD_NS */
};

FIXTURE_VARIANT_ADD(sampled, pristine) {
	.name = "pristine", .patch = HP_NONE, .mode = "plain",
	.expect = HE_USED,
};

FIXTURE_VARIANT_ADD(sampled, truncated) {
	.name = "truncated", .patch = HP_TRUNCATE, .mode = "refused",
	.expect = HE_REFUSED,
};

FIXTURE_VARIANT_ADD(sampled, num_fdes_huge) {
	.name = "num_fdes_huge", .patch = HP_NUM_FDES, .mode = "refused",
	.expect = HE_REFUSED,
};

FIXTURE_VARIANT_ADD(sampled, num_fres_huge) {
	.name = "num_fres_huge", .patch = HP_NUM_FRES, .mode = "refused",
	.expect = HE_REFUSED,
};

FIXTURE_VARIANT_ADD(sampled, fdes_off_past_end) {
	.name = "fdes_off_past_end", .patch = HP_FDES_OFF, .mode = "refused",
	.expect = HE_REFUSED,
};

FIXTURE_VARIANT_ADD(sampled, fres_off_past_end) {
	.name = "fres_off_past_end", .patch = HP_FRES_OFF, .mode = "refused",
	.expect = HE_REFUSED,
};

FIXTURE_VARIANT_ADD(sampled, fde_rows_past_end) {
	.name = "fde_rows_past_end", .patch = HP_FDE_FRES_OFF,
	.mode = "refused", .expect = HE_REFUSED,
};

FIXTURE_VARIANT_ADD(sampled, unsorted_fdes) {
	.name = "unsorted_fdes", .patch = HP_UNSORTED, .mode = "refused",
	.expect = HE_REFUSED,
};

FIXTURE_VARIANT_ADD(sampled, fre_order) {
	.name = "fre_order", .patch = HP_FRE_ORDER, .mode = "refused",
	.expect = HE_REFUSED,
};

FIXTURE_VARIANT_ADD(sampled, cfa_kernel) {
	.name = "cfa_kernel", .patch = HP_RULE, .mode = "plain",
	.rule = { .fp_base = true, .cfa = 16, .ra = -8, .fp = -16 },
	.fp = KERNEL_ADDR, .expect = HE_STOP, .extra = 0,
};

FIXTURE_VARIANT_ADD(sampled, cfa_zero) {
	.name = "cfa_zero", .patch = HP_RULE, .mode = "plain",
	.rule = { .fp_base = true, .cfa = 0, .ra = -8, .fp = -16 },
	.fp = 0, .expect = HE_STOP, .extra = 0,
};

FIXTURE_VARIANT_ADD(sampled, cfa_below_sp) {
	.name = "cfa_below_sp", .patch = HP_RULE, .mode = "plain",
	.rule = { .fp_base = false, .cfa = -16, .ra = -8, .fp = -16 },
	.expect = HE_STOP, .extra = 0,
};

FIXTURE_VARIANT_ADD(sampled, cfa_at_sp) {
	.name = "cfa_at_sp", .patch = HP_RULE, .mode = "plain",
	.rule = { .fp_base = false, .cfa = 0, .ra = -8, .fp = -16 },
	.expect = HE_STOP, .extra = 0,
};

/*
 * hl_leaf's saved return address is in the kernel image: the chain stops
 * at hl_leaf, without it
 */
FIXTURE_VARIANT_ADD(sampled, ra_kernel) {
	.name = "ra_kernel", .patch = HP_RULE, .mode = "plain",
	.rule = { .fp_base = true, .cfa = 16, .ra = -8, .fp = -16 },
	.fp = HL_FP_RA_KERNEL, .expect = HE_STOP, .extra = 0,
};

/* hl_leaf's caller is hl_leaf, with the same CFA: one repeat at most */
FIXTURE_VARIANT_ADD(sampled, cfa_cycle) {
	.name = "cfa_cycle", .patch = HP_RULE, .mode = "plain",
	.rule = { .fp_base = true, .cfa = 16, .ra = -8, .fp = -16 },
	.fp = HL_FP_CYCLE, .expect = HE_STOP, .extra = 1,
};

FIXTURE_VARIANT_ADD(sampled, sframe_outside) {
	.name = "sframe_outside", .patch = HP_OUTSIDE, .mode = "outside",
	.expect = HE_REFUSED,
};

FIXTURE_VARIANT_ADD(sampled, sframe_writable) {
	.name = "sframe_writable", .patch = HP_WRITABLE, .mode = "refused",
	.expect = HE_REFUSED,
};

FIXTURE_VARIANT_ADD(sampled, rewrite) {
	.name = "rewrite", .patch = HP_NONE, .mode = "rewrite",
	.expect = HE_REWRITE,
};

FIXTURE_VARIANT_ADD(sampled, churn) {
	.name = "churn", .patch = HP_NONE, .mode = "churn",
	.expect = HE_CHURN, .period_ns = CHURN_PERIOD_NS,
};

TEST_F(sampled, hostile)
{
	struct sampler_opts *o = &self->o;
	struct sample_filter *f = &self->f;
	struct chain_stats *st = &self->st;
	struct wl_run *w = &self->w;
	char lib[PATH_MAX], copy[PATH_MAX], fp[32];
	char *const argv[] = { self->exe, WL_ARG, (char *)variant->mode, copy,
			       fp, NULL };
	unsigned long nsamples, nkernel, nodd, seen, stopped;
	struct phase_goal goals[3];
	unsigned int nr_goals;
	char name[64];
	struct kmsg_hostile km;
	struct hfile hf;
	long tainted;
	bool good;
	int i;

	/* the damaged copy of the library (and the churn's copies) */
	ASSERT_EQ(0, self_dir_file(lib, sizeof(lib), "libsf_h.so"));
	ASSERT_EQ(1, elf_has_sframe(lib));
	ASSERT_NE(NULL, sampled_tmpdir(self));
	snprintf(copy, sizeof(copy), "%s/sframe-hostile-%d-%s.so", self->tmp,
		 getpid(), variant->name);
	ASSERT_EQ(0, hfile_load(&hf, lib));
	ASSERT_EQ(0, hpatch_apply(&hf, variant->patch, &variant->rule));
	ASSERT_EQ(0, hfile_save(&hf, copy));
	free(hf.buf);
	for (i = 0; !strcmp(variant->mode, "churn") && i < CHURN_COPIES; i++) {
		char path[PATH_MAX];

		ASSERT_EQ(0, hfile_load(&hf, lib));
		churn_path(path, sizeof(path), copy, i);
		ASSERT_EQ(0, hfile_save(&hf, path));
		free(hf.buf);
	}
	tainted = read_tainted();

	/* the rewriter and the churning thread need time for their rounds */
	if (variant->expect == HE_REWRITE && o->run_ms < HOSTILE_RUN_MS)
		o->run_ms = HOSTILE_RUN_MS;
	/*
	 * At a 10 us period an emulated CPU spends most of its time taking
	 * samples: fewer samples required.
	 */
	if (variant->period_ns) {
		o->period_ns = variant->period_ns;
		if (o->run_ms < CHURN_RUN_MS)
			o->run_ms = CHURN_RUN_MS;
		if (o->min_leaf > CHURN_MIN_LEAF)
			o->min_leaf = CHURN_MIN_LEAF;
	}
	snprintf(fp, sizeof(fp), "%#lx", variant->fp);
	diag_env(NULL);
	diag("%s: %s\n", variant->name, copy);
	/* the kernel's messages keep the first 31 characters of the name */
	snprintf(name, sizeof(name), "sframe-hostile-%d-", getpid());

	ASSERT_EQ(0, sampled_start(self, argv));
	goals[0] = (struct phase_goal){ .f = *f, .leaf = expect_ctl[0] };
	goals[1] = (struct phase_goal){ .f = *f, .leaf = expect_good[0] };
	/* what the checks below count of the hostile thread's samples */
	goals[2] = (struct phase_goal){ .f = *f, .leaf = expect_host[0] };
	if (variant->expect == HE_USED)
		goals[2].or_leaf = expect_step[0];
	if (variant->expect == HE_STOP)
		goals[2].leaf = expect_step[0];
	nr_goals = variant->expect == HE_USED || variant->expect == HE_STOP ?
		   3 : 2;
	EXPECT_EQ(0, sampled_until(self, goals, nr_goals));
	EXPECT_EQ(0, sampled_finish(self));

	nkernel = kernel_entries(&w->s, w->pid, &nsamples, &nodd);
	diag("%lu samples; chain entries in the kernel image: %lu, other non-user: %lu\n",
	     nsamples, nkernel, nodd);
	EXPECT_EQ(0, nkernel);
	EXPECT_EQ(0, nodd);

	EXPECT_TRUE(sampled_check(self, "control", expect_ctl,
				  ARRAY_SIZE(expect_ctl), CHAINS_COMPLETE));
	good = sampled_check(self, "good", expect_good, ARRAY_SIZE(expect_good),
			     CHAINS_COMPLETE);
	switch (variant->expect) {
	case HE_USED:
		EXPECT_TRUE(good);
		EXPECT_TRUE(host_report(&w->s, f, o));
		break;
	case HE_CHURN:
		EXPECT_TRUE(good);
		chain_report("churned copies", &w->s, f, expect_work,
			     ARRAY_SIZE(expect_work), o, st);
		break;
	case HE_REFUSED:
		/* enough samples, but the section did not help */
		EXPECT_GE(st->leaf, o->min_leaf);
		EXPECT_FALSE(good) {
			diag("the damaged section was used\n");
		}
		break;
	case HE_STOP:
		EXPECT_TRUE(good) {
			diag("the section was not used\n");
		}
		leaf_stop_count(&w->s, w->pid, variant->extra, &seen, &stopped);
		diag("hostile: %lu/%lu samples in hl_step end within %u frame(s) after hl_leaf\n",
		     stopped, seen, variant->extra);
		host_report(&w->s, f, o);
		EXPECT_GE(seen, o->min_leaf);
		EXPECT_EQ(stopped, seen);
		break;
	case HE_REWRITE:
		/*
		 * The rules come from the row table the validation left,
		 * before the rewriter started: no sample may see the
		 * rewritten section.
		 */
		EXPECT_GE(st->leaf, o->min_leaf);
		EXPECT_EQ(st->complete, st->leaf) {
			diag("a sample saw the rewritten section\n");
		}
		host_report(&w->s, f, o);
		break;
	}
	wl_cleanup(w);

	EXPECT_EQ(tainted, read_tainted());
	/* the kernel says so when it refuses a section: name the file */
	ASSERT_LE(0, self->kmsg) {
		diag("/dev/kmsg unreadable, kernel log not checked\n");
	}
	kmsg_scan(self->kmsg, name, &km);
	EXPECT_EQ(0, km.splats);
	if (variant->expect == HE_REFUSED) {
		EXPECT_LT(0, km.about) {
			diag("no kernel message refusing %s\n", copy);
		}
	}
}

int main(int argc, char **argv)
{
	if (wl_mode(argc, argv))
		return workload_main(argc, argv);
	return test_harness_run(argc, argv);
}
