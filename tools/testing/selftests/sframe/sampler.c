// SPDX-License-Identifier: GPL-2.0
/*
 * Minimal perf sampler, symbolizer and call-chain checker for the SFrame
 * user space unwinding selftests.  See sampler.h.  SFrame exists for 64-bit
 * targets only, so only ELFCLASS64 files are read.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/elf.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "sampler.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME		0x6474e554
#endif
#ifndef STT_GNU_IFUNC
#define STT_GNU_IFUNC		10
#endif

#define MAX_CPUS		1024
#define BUF_BUDGET_PAGES	1024	/* data pages over all CPUs */
#define BUF_MAX_PAGES		256
#define BUF_MIN_PAGES		8
#define POLL_MS			10
#define EXIT_WAIT_MS		10000
/* how often a phase looks at what it has collected */
#define GOAL_CHECK_MS		200
#define GOAL_THREADS		64
#define HIST_KEYS		32
#define HIST_SHOW		3

struct sampler_buf {
	int fd;
	int cpu;
	void *base;
	size_t map_len;
	const char *data;
	uint64_t data_size;
};

struct sampler_rec {
	uint64_t time;
	size_t seq;
	size_t off;
};

struct sampler_sym {
	uint64_t start;
	uint64_t size;
	const char *name;
};

struct sampler_elf {
	struct sampler_elf *next;
	char *path;
	void *map;
	size_t len;
	const struct elf64_phdr *phdr;
	unsigned int phnum;
	struct sampler_sym *syms;
	size_t nr_syms;
};

struct sampler_map {
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	struct sampler_elf *elf;
};

struct sampler_proc {
	struct sampler_proc *next;
	pid_t pid;
	unsigned int gen;
	struct sampler_map *maps;
	size_t nr_maps;
	size_t cap_maps;
};

struct sampler_mmap {
	pid_t pid;
	uint64_t start;
	uint64_t end;
	const char *path;
};

/* PERF_RECORD_MMAP2 without build id */
struct rec_mmap2 {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t addr;
	uint64_t len;
	uint64_t pgoff;
	uint32_t maj, min;
	uint64_t ino;
	uint64_t ino_generation;
	uint32_t prot, flags;
	char filename[];
};

struct rec_comm {
	struct perf_event_header header;
	uint32_t pid, tid;
	char comm[];
};

struct rec_fork {
	struct perf_event_header header;
	uint32_t pid, ppid;
	uint32_t tid, ptid;
	uint64_t time;
};

struct rec_lost {
	struct perf_event_header header;
	uint64_t id;
	uint64_t lost;
};

void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("# ", stdout);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

static unsigned long env_ulong(const char *name, unsigned long def,
			       unsigned long min)
{
	const char *v = getenv(name);
	unsigned long val;
	char *end;

	if (!v || !*v)
		return def;
	errno = 0;
	val = strtoul(v, &end, 0);
	if (errno || *end || val < min)
		return def;
	return val;
}

void sampler_get_opts(struct sampler_opts *o)
{
	o->ev_type = PERF_TYPE_SOFTWARE;
	o->ev_config = PERF_COUNT_SW_CPU_CLOCK;
	o->period_ns = env_ulong("UNWIND_PERIOD_NS", 100000, 1000);
	o->run_ms = env_ulong("UNWIND_RUN_MS", 0, 0);
	o->max_ms = env_ulong("UNWIND_MAX_MS", 30000, 1000);
	o->min_leaf = env_ulong("UNWIND_MIN_LEAF", 200, 1);
	o->no_callchain = false;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (ms % 1000) * 1000000L,
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ------------------------------------------------------------------ */
/* ELF symbols                                                         */
/* ------------------------------------------------------------------ */

static int sym_cmp(const void *a, const void *b)
{
	const struct sampler_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* larger symbols first, so that sized symbols win over aliases */
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return 0;
}

static bool elf_range_ok(size_t len, uint64_t off, uint64_t size)
{
	return off <= len && size <= len - off;
}

static void elf_read_syms(struct sampler_elf *e, const struct elf64_hdr *eh)
{
	const struct elf64_shdr *sh, *symsh = NULL, *strsh;
	const struct elf64_sym *sym;
	const char *str;
	size_t i, n;

	if (!eh->e_shoff || eh->e_shentsize != sizeof(*sh) ||
	    !elf_range_ok(e->len, eh->e_shoff,
			  (uint64_t)eh->e_shnum * sizeof(*sh)))
		return;
	sh = (const struct elf64_shdr *)((const char *)e->map + eh->e_shoff);

	for (i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB)
			symsh = &sh[i];
	if (!symsh)
		for (i = 0; i < eh->e_shnum; i++)
			if (sh[i].sh_type == SHT_DYNSYM)
				symsh = &sh[i];
	if (!symsh || symsh->sh_link >= eh->e_shnum ||
	    symsh->sh_entsize != sizeof(*sym) ||
	    !elf_range_ok(e->len, symsh->sh_offset, symsh->sh_size))
		return;
	strsh = &sh[symsh->sh_link];
	if (!elf_range_ok(e->len, strsh->sh_offset, strsh->sh_size) ||
	    !strsh->sh_size)
		return;

	sym = (const struct elf64_sym *)((const char *)e->map +
					 symsh->sh_offset);
	str = (const char *)e->map + strsh->sh_offset;
	n = symsh->sh_size / sizeof(*sym);

	e->syms = calloc(n, sizeof(*e->syms));
	if (!e->syms)
		return;
	for (i = 1; i < n; i++) {
		unsigned int type = ELF64_ST_TYPE(sym[i].st_info);

		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		if (sym[i].st_shndx == SHN_UNDEF || !sym[i].st_value)
			continue;
		if (sym[i].st_name >= strsh->sh_size ||
		    !memchr(str + sym[i].st_name, 0,
			    strsh->sh_size - sym[i].st_name))
			continue;
		e->syms[e->nr_syms].start = sym[i].st_value;
		e->syms[e->nr_syms].size = sym[i].st_size;
		e->syms[e->nr_syms].name = str + sym[i].st_name;
		e->nr_syms++;
	}
	qsort(e->syms, e->nr_syms, sizeof(*e->syms), sym_cmp);
}

static void elf_load(struct sampler_elf *e)
{
	const struct elf64_hdr *eh;
	struct stat st;
	void *map;
	int fd;

	fd = open(e->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(*eh)) {
		close(fd);
		return;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return;
	e->map = map;
	e->len = st.st_size;

	eh = map;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phentsize != sizeof(struct elf64_phdr) ||
	    !elf_range_ok(e->len, eh->e_phoff,
			  (uint64_t)eh->e_phnum * sizeof(struct elf64_phdr)))
		return;
	e->phdr = (const struct elf64_phdr *)((const char *)map + eh->e_phoff);
	e->phnum = eh->e_phnum;
	elf_read_syms(e, eh);
}

static struct sampler_elf *elf_get(struct sampler *s, const char *path)
{
	struct sampler_elf *e;

	for (e = s->elfs; e; e = e->next)
		if (!strcmp(e->path, path))
			return e;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->path = strdup(path);
	if (!e->path) {
		free(e);
		return NULL;
	}
	e->next = s->elfs;
	s->elfs = e;
	/* "[vdso]", "//anon" and friends are not files */
	if (path[0] == '/' && path[1] != '/')
		elf_load(e);
	return e;
}

static void elf_free(struct sampler_elf *e)
{
	if (e->map)
		munmap(e->map, e->len);
	free(e->syms);
	free(e->path);
	free(e);
}

static const char *elf_symbol(const struct sampler_elf *e, uint64_t file_off)
{
	const struct elf64_phdr *ph = NULL;
	uint64_t vaddr;
	size_t lo, hi, i;
	unsigned int k;

	for (k = 0; k < e->phnum; k++) {
		if (e->phdr[k].p_type != PT_LOAD)
			continue;
		if (file_off >= e->phdr[k].p_offset &&
		    file_off < e->phdr[k].p_offset + e->phdr[k].p_filesz) {
			ph = &e->phdr[k];
			break;
		}
	}
	if (!ph || !e->nr_syms)
		return NULL;
	vaddr = file_off - ph->p_offset + ph->p_vaddr;

	/* last symbol starting at or below vaddr */
	lo = 0;
	hi = e->nr_syms;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (e->syms[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* a few steps back in case of overlapping or nested symbols */
	for (i = lo; i > 0 && lo - i < 8; i--) {
		const struct sampler_sym *sym = &e->syms[i - 1];

		if (vaddr < sym->start + (sym->size ? sym->size : 1))
			return sym->name;
	}
	return NULL;
}

/* 1 with a PT_GNU_SFRAME segment, 0 without; *@version: its format */
static int elf_sframe(const char *path, int *version)
{
	struct sampler_elf e = { .path = (char *)path };
	const struct elf64_phdr *ph;
	const unsigned char *sec;
	unsigned int i;
	int ret = -1;

	elf_load(&e);
	if (e.phdr) {
		ret = 0;
		for (i = 0; i < e.phnum; i++) {
			ph = &e.phdr[i];
			if (ph->p_type != PT_GNU_SFRAME)
				continue;
			ret = 1;
			sec = (const unsigned char *)e.map + ph->p_offset;
			if (ph->p_filesz >= 4 &&
			    elf_range_ok(e.len, ph->p_offset, ph->p_filesz))
				*version = sec[2];
		}
	}
	if (e.map)
		munmap(e.map, e.len);
	free(e.syms);
	return ret;
}

int elf_has_sframe(const char *path)
{
	int version;

	return elf_sframe(path, &version);
}

int elf_sframe_version(const char *path)
{
	int version = -1;

	return elf_sframe(path, &version) == 1 ? version : -1;
}

/* ------------------------------------------------------------------ */
/* Processes and their executable mappings                            */
/* ------------------------------------------------------------------ */

static struct sampler_proc *proc_get(struct sampler *s, pid_t pid)
{
	struct sampler_proc *p;

	for (p = s->procs; p; p = p->next)
		if (p->pid == pid)
			return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->next = s->procs;
	s->procs = p;
	return p;
}

static int proc_reserve(struct sampler_proc *p, size_t n)
{
	struct sampler_map *m;
	size_t cap;

	if (p->nr_maps + n <= p->cap_maps)
		return 0;
	cap = (p->cap_maps ? p->cap_maps * 2 : 32) + n;
	m = realloc(p->maps, cap * sizeof(*m));
	if (!m)
		return -ENOMEM;
	p->maps = m;
	p->cap_maps = cap;
	return 0;
}

/* A new mapping replaces whatever it overlaps. */
static int proc_add_map(struct sampler_proc *p, uint64_t start, uint64_t end,
			uint64_t pgoff, struct sampler_elf *elf)
{
	size_t i;

	if (proc_reserve(p, 2))
		return -ENOMEM;
	for (i = 0; i < p->nr_maps; ) {
		struct sampler_map *m = &p->maps[i];

		if (m->end <= start || m->start >= end) {
			i++;
			continue;
		}
		if (start <= m->start && end >= m->end) {
			p->maps[i] = p->maps[--p->nr_maps];
			continue;
		}
		if (start > m->start && end < m->end) {
			struct sampler_map *tail = &p->maps[p->nr_maps++];

			*tail = *m;
			tail->pgoff += end - m->start;
			tail->start = end;
			m->end = start;
		} else if (start <= m->start) {
			m->pgoff += end - m->start;
			m->start = end;
		} else {
			m->end = start;
		}
		i++;
	}
	p->maps[p->nr_maps].start = start;
	p->maps[p->nr_maps].end = end;
	p->maps[p->nr_maps].pgoff = pgoff;
	p->maps[p->nr_maps].elf = elf;
	p->nr_maps++;
	return 0;
}

/*
 * Symbolize addr (ip - 1 for return addresses).  For reports, *obj and
 * *off are set to the mapped file and the file offset of ip when there is
 * no symbol.
 */
static const char *proc_symbol(const struct sampler_proc *p, uint64_t addr,
			       uint64_t ip, const char **obj, uint64_t *off)
{
	const struct sampler_map *m;
	const char *sym, *slash;
	size_t i;

	*obj = NULL;
	*off = ip;
	for (i = 0; i < p->nr_maps; i++) {
		m = &p->maps[i];
		if (addr < m->start || addr >= m->end || !m->elf)
			continue;
		sym = elf_symbol(m->elf, addr - m->start + m->pgoff);
		slash = strrchr(m->elf->path, '/');
		*obj = slash ? slash + 1 : m->elf->path;
		*off = ip - m->start + m->pgoff;
		return sym;
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* perf events and ring buffers                                        */
/* ------------------------------------------------------------------ */

static int online_cpus(int *cpus, int max)
{
	char buf[4096], *p, *end;
	int n = 0, fd;
	ssize_t len;
	long i;

	fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len > 0) {
			buf[len] = 0;
			for (p = buf; *p && *p != '\n'; ) {
				long lo = strtol(p, &end, 10), hi = lo;

				if (end == p)
					break;
				p = end;
				if (*p == '-') {
					hi = strtol(p + 1, &end, 10);
					p = end;
				}
				for (i = lo; i <= hi && n < max; i++)
					cpus[n++] = i;
				if (*p == ',')
					p++;
			}
		}
	}
	if (!n) {
		long nr = sysconf(_SC_NPROCESSORS_ONLN);

		for (i = 0; i < nr && n < max; i++)
			cpus[n++] = i;
	}
	return n;
}

static int buf_mmap(struct sampler_buf *b, unsigned int pages)
{
	long page = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *pg;

	for (; pages >= BUF_MIN_PAGES; pages /= 2) {
		b->map_len = (pages + 1) * page;
		b->base = mmap(NULL, b->map_len, PROT_READ | PROT_WRITE,
			       MAP_SHARED, b->fd, 0);
		if (b->base != MAP_FAILED)
			break;
		b->base = NULL;
		if (errno != EPERM && errno != ENOMEM)
			return -errno;
	}
	if (!b->base)
		return -EPERM;
	pg = b->base;
	if (pg->data_offset && pg->data_size) {
		b->data = (const char *)b->base + pg->data_offset;
		b->data_size = pg->data_size;
	} else {
		b->data = (const char *)b->base + page;
		b->data_size = (uint64_t)pages * page;
	}
	return 0;
}

static void sampler_close(struct sampler *s);

static int sampler_open(struct sampler *s, pid_t pid,
			const struct sampler_opts *o)
{
	struct perf_event_attr attr;
	unsigned int pages;
	int cpus[MAX_CPUS];
	int i, n, ret;

	memset(s, 0, sizeof(*s));
	n = online_cpus(cpus, MAX_CPUS);
	if (n <= 0)
		return -ENODEV;
	s->bufs = calloc(n, sizeof(*s->bufs));
	if (!s->bufs)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		s->bufs[i].fd = -1;
	s->nr_bufs = n;

	pages = BUF_BUDGET_PAGES / n;
	if (pages > BUF_MAX_PAGES)
		pages = BUF_MAX_PAGES;
	if (pages < BUF_MIN_PAGES)
		pages = BUF_MIN_PAGES;
	while (pages & (pages - 1))
		pages &= pages - 1;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = o->ev_type;
	attr.config = o->ev_config;
	attr.sample_period = o->period_ns;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	if (!o->no_callchain)
		attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	/* threads and children; needs one event per CPU */
	attr.inherit = 1;
	/* a tracepoint is hit in the kernel, on behalf of user code */
	attr.exclude_kernel = o->ev_type != PERF_TYPE_TRACEPOINT;
	attr.exclude_hv = 1;
	attr.exclude_callchain_kernel = 1;
	attr.mmap = 1;
	attr.mmap2 = 1;
	attr.comm = 1;
	attr.comm_exec = 1;
	attr.task = 1;
	attr.sample_id_all = 1;

	for (i = 0; i < n; i++) {
		struct sampler_buf *b = &s->bufs[i];

		b->cpu = cpus[i];
		b->fd = syscall(__NR_perf_event_open, &attr, pid, b->cpu, -1,
				PERF_FLAG_FD_CLOEXEC);
		if (b->fd < 0) {
			ret = -errno;
			diag("perf_event_open(type %u config %llu, pid %d, cpu %d): %s\n",
			     o->ev_type, (unsigned long long)o->ev_config, pid,
			     b->cpu, strerror(errno));
			goto err;
		}
		ret = buf_mmap(b, pages);
		if (ret) {
			diag("mmap of perf ring buffer: %s\n", strerror(-ret));
			goto err;
		}
	}
	return 0;
err:
	sampler_close(s);
	return ret;
}

static char *raw_reserve(struct sampler *s, size_t len)
{
	struct sampler_rec *r;
	size_t cap;
	char *p;

	if (s->raw_len + len > s->raw_cap) {
		cap = s->raw_cap ? s->raw_cap * 2 : 1 << 20;
		while (cap < s->raw_len + len)
			cap *= 2;
		p = realloc(s->raw, cap);
		if (!p)
			return NULL;
		s->raw = p;
		s->raw_cap = cap;
	}
	if (s->nr_recs == s->cap_recs) {
		cap = s->cap_recs ? s->cap_recs * 2 : 16384;
		r = realloc(s->recs, cap * sizeof(*r));
		if (!r)
			return NULL;
		s->recs = r;
		s->cap_recs = cap;
	}
	return s->raw + s->raw_len;
}

static void ring_copy(const struct sampler_buf *b, uint64_t pos, void *dst,
		      size_t len)
{
	uint64_t off = pos & (b->data_size - 1);
	size_t first = len;

	if (off + len > b->data_size)
		first = b->data_size - off;
	memcpy(dst, b->data + off, first);
	if (first < len)
		memcpy((char *)dst + first, b->data, len - first);
}

static void buf_drain(struct sampler *s, struct sampler_buf *b)
{
	struct perf_event_mmap_page *pg = b->base;
	struct perf_event_header hdr;
	uint64_t head, tail;

	/* Pairs with the kernel's barrier before it publishes data_head. */
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	tail = pg->data_tail;

	while (tail < head) {
		struct sampler_rec *rec;
		char *dst;

		ring_copy(b, tail, &hdr, sizeof(hdr));
		if (hdr.size < sizeof(hdr) || hdr.size > head - tail)
			break;
		dst = raw_reserve(s, hdr.size);
		if (!dst)
			break;
		ring_copy(b, tail, dst, hdr.size);

		rec = &s->recs[s->nr_recs];
		rec->off = s->raw_len;
		rec->seq = s->nr_recs;
		if (hdr.type == PERF_RECORD_SAMPLE) {
			const struct rec_sample *smp = (const void *)dst;

			rec->time = hdr.size >= sizeof(*smp) ? smp->time : 0;
		} else if (hdr.size >= sizeof(hdr) + sizeof(uint64_t)) {
			/* sample_id_all: time is the last field */
			memcpy(&rec->time, dst + hdr.size - sizeof(uint64_t),
			       sizeof(uint64_t));
		} else {
			rec->time = 0;
		}
		s->raw_len += hdr.size;
		s->nr_recs++;
		tail += hdr.size;
	}

	/* The reads above must complete before the space is handed back. */
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
}

static void sampler_drain(struct sampler *s)
{
	int i;

	for (i = 0; i < s->nr_bufs; i++)
		if (s->bufs[i].base)
			buf_drain(s, &s->bufs[i]);
}

static int rec_cmp(const void *a, const void *b)
{
	const struct sampler_rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The frames of @smp from the call chain @ips of process @p. */
static void sample_fill(const struct sampler_proc *p, struct sample *smp,
			const uint64_t *ips, uint64_t nr)
{
	bool first = true;
	uint64_t i;

	smp->gen = p->gen;
	for (i = 0; i < nr; i++) {
		uint64_t ip = ips[i], addr = ip;
		unsigned int n = smp->nr;

		if (ip >= (uint64_t)PERF_CONTEXT_MAX)
			continue;
		/* return addresses point after the call */
		if (!first && addr)
			addr--;
		first = false;
		if (n < SAMPLE_MAX_FRAMES) {
			smp->sym[n] = proc_symbol(p, addr, ip, &smp->obj[n],
						  &smp->addr[n]);
			smp->nr++;
		}
		smp->depth++;
	}
}

static void decode_sample(struct sampler *s, const struct rec_sample *r)
{
	struct sampler_proc *p;
	struct sample *smp;

	if (r->header.size < sizeof(*r) ||
	    r->nr > (r->header.size - sizeof(*r)) / sizeof(uint64_t))
		return;
	p = proc_get(s, r->pid);
	if (!p)
		return;

	smp = &s->samples[s->nr_samples++];
	memset(smp, 0, sizeof(*smp));
	smp->pid = r->pid;
	smp->tid = r->tid;
	smp->time = r->time;
	sample_fill(p, smp, r->ips, r->nr);
}

int sampler_add_chain(struct sampler *s, pid_t pid, const uint64_t *ips,
		      unsigned int nr)
{
	struct sampler_proc *p = proc_get(s, pid);
	struct sample *smp;

	if (!p)
		return -ENOMEM;
	smp = realloc(s->samples, (s->nr_samples + 1) * sizeof(*smp));
	if (!smp)
		return -ENOMEM;
	s->samples = smp;
	smp = &s->samples[s->nr_samples++];
	memset(smp, 0, sizeof(*smp));
	smp->pid = pid;
	smp->tid = pid;
	sample_fill(p, smp, ips, nr);
	return 0;
}

static void decode_mmap2(struct sampler *s, const struct rec_mmap2 *r)
{
	struct sampler_proc *p;
	struct sampler_elf *elf;
	char path[PATH_MAX];
	size_t max;

	if (r->header.size <= sizeof(*r) || !(r->prot & PROT_EXEC) ||
	    (r->header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
		return;
	max = r->header.size - sizeof(*r);
	if (max >= sizeof(path))
		max = sizeof(path) - 1;
	memcpy(path, r->filename, max);
	path[max] = 0;

	p = proc_get(s, r->pid);
	elf = elf_get(s, path);
	if (!p)
		return;
	proc_add_map(p, r->addr, r->addr + r->len, r->pgoff, elf);

	if (s->nr_mmaps == s->cap_mmaps) {
		size_t cap = s->cap_mmaps ? s->cap_mmaps * 2 : 64;
		struct sampler_mmap *m = realloc(s->mmaps, cap * sizeof(*m));

		if (!m)
			return;
		s->mmaps = m;
		s->cap_mmaps = cap;
	}
	s->mmaps[s->nr_mmaps].pid = r->pid;
	s->mmaps[s->nr_mmaps].start = r->addr;
	s->mmaps[s->nr_mmaps].end = r->addr + r->len;
	s->mmaps[s->nr_mmaps].path = elf ? elf->path : "";
	s->nr_mmaps++;
}

static void decode_fork(struct sampler *s, const struct rec_fork *r)
{
	struct sampler_proc *parent, *child;

	if (r->header.size < sizeof(*r) || r->pid == r->ppid)
		return;
	parent = proc_get(s, r->ppid);
	child = proc_get(s, r->pid);
	if (!parent || !child || proc_reserve(child, parent->nr_maps))
		return;
	memcpy(child->maps, parent->maps,
	       parent->nr_maps * sizeof(*parent->maps));
	child->nr_maps = parent->nr_maps;
	child->gen = parent->gen;
}

static void decode_comm(struct sampler *s, const struct rec_comm *r)
{
	struct sampler_proc *p;

	if (r->header.size < sizeof(*r) ||
	    !(r->header.misc & PERF_RECORD_MISC_COMM_EXEC))
		return;
	p = proc_get(s, r->pid);
	if (!p)
		return;
	/* a new image: nothing of the old mm survives */
	p->gen++;
	p->nr_maps = 0;
}

static void procs_free(struct sampler *s)
{
	struct sampler_proc *p;

	while ((p = s->procs)) {
		s->procs = p->next;
		free(p->maps);
		free(p);
	}
}

int sampler_decode(struct sampler *s)
{
	size_t i, nr = 0;

	sampler_drain(s);
	qsort(s->recs, s->nr_recs, sizeof(*s->recs), rec_cmp);

	/* from the first record again: a phase decodes while it runs */
	procs_free(s);
	s->nr_mmaps = 0;
	s->lost = 0;

	for (i = 0; i < s->nr_recs; i++) {
		const struct perf_event_header *h =
			(const void *)(s->raw + s->recs[i].off);

		nr += h->type == PERF_RECORD_SAMPLE;
	}
	free(s->samples);
	s->nr_samples = 0;
	s->samples = calloc(nr ? nr : 1, sizeof(*s->samples));
	if (!s->samples)
		return -ENOMEM;

	for (i = 0; i < s->nr_recs; i++) {
		const void *r = s->raw + s->recs[i].off;
		const struct perf_event_header *h = r;

		switch (h->type) {
		case PERF_RECORD_SAMPLE:
			decode_sample(s, r);
			break;
		case PERF_RECORD_MMAP2:
			decode_mmap2(s, r);
			break;
		case PERF_RECORD_COMM:
			decode_comm(s, r);
			break;
		case PERF_RECORD_FORK:
			decode_fork(s, r);
			break;
		case PERF_RECORD_LOST:
			if (h->size >= sizeof(struct rec_lost))
				s->lost += ((const struct rec_lost *)r)->lost;
			break;
		default:
			break;
		}
	}
	return 0;
}

static void sampler_close(struct sampler *s)
{
	struct sampler_elf *e;
	int i;

	for (i = 0; i < s->nr_bufs; i++) {
		if (s->bufs[i].base)
			munmap(s->bufs[i].base, s->bufs[i].map_len);
		if (s->bufs[i].fd >= 0)
			close(s->bufs[i].fd);
	}
	free(s->bufs);
	procs_free(s);
	while ((e = s->elfs)) {
		s->elfs = e->next;
		elf_free(e);
	}
	free(s->raw);
	free(s->recs);
	free(s->samples);
	free(s->mmaps);
	memset(s, 0, sizeof(*s));
}

int sampler_find_mapping(const struct sampler *s, const char *file_suffix,
			 unsigned int index, struct sampler_mapping *m)
{
	size_t i, len = strlen(file_suffix);

	for (i = 0; i < s->nr_mmaps; i++) {
		const char *path = s->mmaps[i].path;
		size_t plen = strlen(path);

		if (plen < len || strcmp(path + plen - len, file_suffix))
			continue;
		if (index--)
			continue;
		m->start = s->mmaps[i].start;
		m->end = s->mmaps[i].end;
		return 0;
	}
	return -ENOENT;
}

/* ------------------------------------------------------------------ */
/* Chain checks                                                        */
/* ------------------------------------------------------------------ */

static bool filter_match(const struct sample_filter *f, const struct sample *smp)
{
	if (f->pid && smp->pid != f->pid)
		return false;
	if (f->not_pid && smp->pid == f->not_pid)
		return false;
	if (f->tid && smp->tid != f->tid)
		return false;
	if (f->gen >= 0 && smp->gen != (unsigned int)f->gen)
		return false;
	if (f->leaf_end && (!smp->nr || !smp->obj[0] ||
			    smp->addr[0] < f->leaf_off ||
			    smp->addr[0] >= f->leaf_end))
		return false;
	return true;
}

static bool sym_is(const char *sym, const char *name)
{
	return sym && !strcmp(sym, name);
}

/* Frame @i is @name, or in a file whose name starts with @name + 1 ('@'). */
static bool frame_is(const struct sample *smp, unsigned int i,
		     const char *name)
{
	if (name[0] == '@')
		return smp->obj[i] &&
		       !strncmp(smp->obj[i], name + 1, strlen(name + 1));
	return sym_is(smp->sym[i], name);
}

/*
 * After the frames of a whole chain: the C library's entry frames, then
 * _start (unless the chain named it), then nothing.
 */
static enum chain_match chain_end(const struct sample *smp, unsigned int i,
				  const char *last)
{
	while (i < smp->nr && frame_is(smp, i, "@libc.so"))
		i++;
	if (i < smp->nr && strcmp(last, "_start") &&
	    sym_is(smp->sym[i], "_start"))
		i++;
	return i == smp->nr && smp->depth == smp->nr ? CHAIN_COMPLETE :
						       CHAIN_WRONG;
}

/*
 * Compare the frames of @smp with @expect: a name is one frame of that
 * symbol, "@file" one or more frames in that file, CHAIN_END the end.
 */
enum chain_match chain_match(const struct sample *smp,
			     const char *const *expect, unsigned int depth)
{
	unsigned int i = 0, k;

	for (k = 0; k < depth; k++) {
		if (!strcmp(expect[k], CHAIN_END))
			return chain_end(smp, i, k ? expect[k - 1] : "");
		if (i >= smp->nr)
			return smp->depth == smp->nr ? CHAIN_SHORT : CHAIN_WRONG;
		if (!frame_is(smp, i++, expect[k]))
			return CHAIN_WRONG;
		while (expect[k][0] == '@' && i < smp->nr &&
		       frame_is(smp, i, expect[k]))
			i++;
	}
	return CHAIN_COMPLETE;
}

void chain_count(const struct sampler *s, const struct sample_filter *f,
		 const char *const *expect, unsigned int depth,
		 struct chain_stats *st)
{
	size_t i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < s->nr_samples; i++) {
		const struct sample *smp = &s->samples[i];

		if (!filter_match(f, smp))
			continue;
		st->total++;
		if (!smp->nr || !frame_is(smp, 0, expect[0]))
			continue;
		st->leaf++;
		switch (chain_match(smp, expect, depth)) {
		case CHAIN_COMPLETE:
			st->complete++;
			if (!st->first_complete || smp->time < st->first_complete)
				st->first_complete = smp->time;
			break;
		case CHAIN_SHORT:
			st->truncated++;
			if (smp->time > st->last_truncated)
				st->last_truncated = smp->time;
			break;
		default:
			break;
		}
	}
}

bool chain_is_complete(const struct chain_stats *st,
		       const struct sampler_opts *o)
{
	return st->leaf >= o->min_leaf &&
	       st->complete * 100 >= st->leaf * UNWIND_COMPLETE_PCT;
}

static void chain_format(const struct sample *smp, unsigned int depth,
			 char *buf, size_t len)
{
	unsigned int i;
	size_t off = 0;

	buf[0] = 0;
	for (i = 0; i < smp->nr && i < depth && off < len; i++) {
		const char *sep = i ? " <- " : "";

		if (smp->sym[i])
			off += snprintf(buf + off, len - off, "%s%s", sep,
					smp->sym[i]);
		else if (smp->obj[i])
			off += snprintf(buf + off, len - off, "%s%s+0x%llx", sep,
					smp->obj[i],
					(unsigned long long)smp->addr[i]);
		else
			off += snprintf(buf + off, len - off, "%s0x%llx", sep,
					(unsigned long long)smp->addr[i]);
	}
	if (off < len && smp->depth > i)
		snprintf(buf + off, len - off, " <- ... (%u frames)",
			 smp->depth);
	else if (off < len)
		snprintf(buf + off, len - off, " (end)");
}

void sample_print(const struct sample *smp)
{
	char buf[512];

	chain_format(smp, SAMPLE_MAX_FRAMES, buf, sizeof(buf));
	diag("pid %d: %s\n", smp->pid, buf);
}

struct hist_entry {
	char chain[256];
	unsigned long count;
};

/*
 * Print the most frequent chains of the leaf samples,
 * complete ones included: they show what lies beyond the expected part.
 */
static void chain_hist(const struct sampler *s, const struct sample_filter *f,
		       const char *const *expect, unsigned int depth)
{
	struct hist_entry *h;
	unsigned int nr = 0, i, j, shown;
	unsigned long other = 0;
	char buf[256];
	size_t k;

	h = calloc(HIST_KEYS, sizeof(*h));
	if (!h)
		return;
	for (k = 0; k < s->nr_samples; k++) {
		const struct sample *smp = &s->samples[k];

		if (!filter_match(f, smp) || !smp->nr ||
		    !frame_is(smp, 0, expect[0]))
			continue;
		chain_format(smp, depth + 2, buf, sizeof(buf));
		for (i = 0; i < nr; i++)
			if (!strcmp(h[i].chain, buf))
				break;
		if (i == nr) {
			if (nr == HIST_KEYS) {
				other++;
				continue;
			}
			snprintf(h[nr++].chain, sizeof(h->chain), "%s", buf);
		}
		h[i].count++;
	}
	for (shown = 0; shown < HIST_SHOW && shown < nr; shown++) {
		for (i = shown, j = shown + 1; j < nr; j++)
			if (h[j].count > h[i].count)
				i = j;
		if (i != shown) {
			struct hist_entry t = h[i];

			h[i] = h[shown];
			h[shown] = t;
		}
		diag("  %6lu x %s\n", h[shown].count, h[shown].chain);
	}
	if (nr > shown || other)
		diag("  (and %s%u more distinct chains)\n", other ? "over " : "",
		     nr - shown);
	free(h);
}

bool chain_report(const char *label, const struct sampler *s,
		  const struct sample_filter *f, const char *const *expect,
		  unsigned int depth, const struct sampler_opts *o,
		  struct chain_stats *st)
{
	char want[256];
	size_t off = 0;
	unsigned int i;
	bool ok;

	chain_count(s, f, expect, depth, st);
	ok = chain_is_complete(st, o);

	for (i = 0; i < depth && off < sizeof(want); i++)
		off += snprintf(want + off, sizeof(want) - off, "%s%s",
				i ? " <- " : "",
				strcmp(expect[i], CHAIN_END) ? expect[i] :
				"[C library entry frames, _start] (end)");
	diag("%s: expect %s\n", label, want);
	diag("%s: %lu/%lu complete (%.1f%%) [%lu samples, %llu lost]%s\n",
	     label, st->complete, st->leaf,
	     st->leaf ? 100.0 * st->complete / st->leaf : 0.0,
	     st->total, (unsigned long long)s->lost,
	     st->leaf < o->min_leaf ? " (too few leaf samples)" : "");
	if (st->leaf)
		chain_hist(s, f, expect, depth);
	return ok;
}

int chain_tids(const struct sampler *s, pid_t pid, const char *leaf,
	       pid_t *tids, int max)
{
	int n = 0, i;
	size_t k;

	for (k = 0; k < s->nr_samples; k++) {
		const struct sample *smp = &s->samples[k];

		if ((pid && smp->pid != pid) || !smp->nr ||
		    !frame_is(smp, 0, leaf))
			continue;
		for (i = 0; i < n; i++)
			if (tids[i] == smp->tid)
				break;
		if (i == n && n < max)
			tids[n++] = smp->tid;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* Workload processes                                                  */
/* ------------------------------------------------------------------ */

int wl_start(struct wl_run *w, const char *path, char *const argv[],
	     const struct sampler_opts *o)
{
	pid_t parent = getpid();
	char c = 0;
	int p[2], ret;

	memset(w, 0, sizeof(*w));
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	fflush(stdout);
	fflush(stderr);
	w->pid = fork();
	if (w->pid < 0) {
		ret = -errno;
		close(p[0]);
		close(p[1]);
		return ret;
	}
	if (!w->pid) {
		close(p[1]);
		/* never outlive the test, whatever happens to it */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		/* own group: SIGUSR1 reaches the workload's children too */
		setpgid(0, 0);
		if (read(p[0], &c, 1) != 1)
			_exit(127);
		execv(path, argv);
		_exit(127);
	}
	close(p[0]);
	setpgid(w->pid, w->pid);
	ret = sampler_open(&w->s, w->pid, o);
	if (ret) {
		close(p[1]);
		waitpid(w->pid, NULL, 0);
		w->pid = 0;
		/* not allowed to sample here (perf_event_paranoid): skip */
		if (ret == -EACCES || ret == -EPERM) {
			diag("SKIP: sampling not permitted (kernel.perf_event_paranoid)\n");
			fflush(stdout);
			_exit(KSFT_SKIP);
		}
		return ret;
	}
	if (write(p[1], &c, 1) != 1) {
		ret = -errno;
		close(p[1]);
		wl_cleanup(w);
		return ret;
	}
	close(p[1]);
	return 0;
}

static bool wl_reap(struct wl_run *w)
{
	if (w->exited)
		return true;
	if (waitpid(w->pid, &w->status, WNOHANG) == w->pid)
		w->exited = true;
	return w->exited;
}

/* Leaf samples of @g so far: in all threads, or in the @g->threads-th best. */
static unsigned long goal_count(const struct sampler *s,
				const struct phase_goal *g)
{
	struct { pid_t tid; unsigned long n; } t[GOAL_THREADS];
	unsigned long total = 0, best;
	unsigned int nr = 0, i, j, k;
	size_t n;

	for (n = 0; n < s->nr_samples; n++) {
		const struct sample *smp = &s->samples[n];

		if (!filter_match(&g->f, smp) || !smp->nr ||
		    (!frame_is(smp, 0, g->leaf) &&
		     (!g->or_leaf || !frame_is(smp, 0, g->or_leaf))))
			continue;
		total++;
		for (i = 0; i < nr; i++)
			if (t[i].tid == smp->tid)
				break;
		if (i == nr && nr < GOAL_THREADS)
			t[nr++] = (typeof(t[0])){ smp->tid, 0 };
		if (i < nr)
			t[i].n++;
	}
	if (g->threads <= 1)
		return total;
	if (g->threads > nr)
		return 0;
	/* the g->threads-th largest per-thread count */
	for (k = 0, best = 0; k < g->threads; k++) {
		for (i = 0, j = 0; i < nr; i++)
			if (t[i].n > t[j].n)
				j = i;
		best = t[j].n;
		t[j].n = 0;
	}
	return best;
}

/* One poll of a phase: wait, drain; -ECHILD if the workload has exited. */
static int wl_poll(struct wl_run *w)
{
	sleep_ms(POLL_MS);
	sampler_drain(&w->s);
	if (wl_reap(w)) {
		diag("workload exited early (status 0x%x)\n", w->status);
		return -ECHILD;
	}
	return 0;
}

/*
 * Drain the buffers until @enough() (asked every GOAL_CHECK_MS, after
 * @min_ms) says so or @max_ms have passed; then send the workload SIGUSR1.
 */
static int wl_collect(struct wl_run *w, unsigned int min_ms,
		      unsigned int max_ms,
		      bool (*enough)(struct wl_run *w, void *arg), void *arg)
{
	uint64_t start = now_ms(), next = start + (min_ms ?: GOAL_CHECK_MS);
	uint64_t now;
	int ret = -ETIMEDOUT;

	for (;;) {
		if (wl_poll(w))
			return -ECHILD;
		now = now_ms();
		if (now < next)
			continue;
		next = now + GOAL_CHECK_MS;
		if (enough(w, arg)) {
			diag("enough samples after %llu ms\n",
			     (unsigned long long)(now - start));
			ret = 0;
			break;
		}
		if (now - start >= max_ms) {
			diag("ended at the bound, %u ms, without enough samples\n",
			     max_ms);
			break;
		}
	}
	sampler_drain(&w->s);
	kill(-w->pid, SIGUSR1);
	return ret;
}

struct goals {
	const struct phase_goal *g;
	unsigned int nr;
	unsigned long min_leaf;
};

static bool goals_met(struct wl_run *w, void *arg)
{
	const struct goals *gs = arg;
	unsigned int i;

	if (sampler_decode(&w->s))
		return false;
	for (i = 0; i < gs->nr; i++)
		if (goal_count(&w->s, &gs->g[i]) < gs->min_leaf)
			return false;
	return true;
}

int wl_phase_until(struct wl_run *w, const struct sampler_opts *o,
		   const struct phase_goal *goals, unsigned int nr_goals)
{
	struct goals gs = { goals, nr_goals, o->min_leaf };
	int ret = wl_collect(w, o->run_ms, o->max_ms, goals_met, &gs);

	/* a phase that ended at its bound is judged by the checks */
	return ret == -ETIMEDOUT ? 0 : ret;
}

int wl_run_until(struct wl_run *w, unsigned int max_ms,
		 bool (*enough)(struct wl_run *w, void *arg), void *arg)
{
	return wl_collect(w, 0, max_ms, enough, arg);
}

int wl_finish(struct wl_run *w)
{
	uint64_t end = now_ms() + EXIT_WAIT_MS;

	while (!wl_reap(w) && now_ms() < end) {
		sampler_drain(&w->s);
		sleep_ms(POLL_MS);
	}
	if (!w->exited) {
		diag("workload did not exit, killing it\n");
		kill(-w->pid, SIGKILL);
		if (waitpid(w->pid, &w->status, 0) == w->pid)
			w->exited = true;
	}
	return sampler_decode(&w->s);
}

bool wl_exit_ok(const struct wl_run *w)
{
	if (!w->exited)
		return false;
	if (WIFEXITED(w->status))
		return WEXITSTATUS(w->status) == 0;
	/* a workload without a SIGUSR1 handler dies of it */
	return WIFSIGNALED(w->status) && WTERMSIG(w->status) == SIGUSR1;
}

void wl_cleanup(struct wl_run *w)
{
	if (w->pid > 0 && !w->exited) {
		kill(-w->pid, SIGKILL);
		kill(w->pid, SIGKILL);
		waitpid(w->pid, &w->status, 0);
		w->exited = true;
	}
	sampler_close(&w->s);
}

/* ------------------------------------------------------------------ */
/* Misc                                                                */
/* ------------------------------------------------------------------ */

int self_path(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	if (n < 0)
		return -errno;
	if ((size_t)n >= len - 1)
		return -ENAMETOOLONG;
	buf[n] = 0;
	return 0;
}

int self_dir_file(char *buf, size_t len, const char *name)
{
	char *slash;
	int ret;

	ret = self_path(buf, len);
	if (ret)
		return ret;
	slash = strrchr(buf, '/');
	if (!slash)
		return -EINVAL;
	slash[1] = 0;
	if (strlen(buf) + strlen(name) >= len)
		return -ENAMETOOLONG;
	strcat(buf, name);
	return 0;
}

int sysctl_int_read(const char *path)
{
	char buf[32];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n ? -errno : -EINVAL;
	buf[n] = 0;
	return atoi(buf);
}

int collector_open(void)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = 1000000;
	attr.sample_type = PERF_SAMPLE_CALLCHAIN;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1,
		     PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

long sframe_stat(const char *name)
{
	static const char path[] = "/sys/kernel/debug/unwind_user/sframe_stats";
	char key[64];
	long val, ret = -ENOENT;
	FILE *f;

	f = fopen(path, "r");
	if (!f && errno == ENOENT &&
	    !mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL))
		f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fscanf(f, "%63s %ld", key, &val) == 2) {
		if (!strcmp(key, name)) {
			ret = val;
			break;
		}
	}
	fclose(f);
	return ret;
}

int sysctl_int_write(const char *path, int val)
{
	char buf[32];
	int fd, len;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%d\n", val);
	if (write(fd, buf, len) != len) {
		int ret = errno ? -errno : -EIO;

		close(fd);
		return ret;
	}
	close(fd);
	return 0;
}

void diag_elf(const char *path)
{
	int v = elf_has_sframe(path);

	diag("%s: %s\n", path,
	     v > 0 ? "PT_GNU_SFRAME" :
	     v == 0 ? "no PT_GNU_SFRAME" : "unreadable ELF");
}

void diag_env(const char *path)
{
	struct sampler_opts o;
	struct utsname u;
	int v = unwind_sysctl_read();
	char sysctl[32];

	sampler_get_opts(&o);
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	if (v >= 0)
		snprintf(sysctl, sizeof(sysctl), "%d", v);
	else
		snprintf(sysctl, sizeof(sysctl), "absent");
	diag("kernel %s, unwind_user_sframe=%s, period %llu ns, phase %u-%u ms, %lu leaf samples\n",
	     u.release, sysctl, (unsigned long long)o.period_ns, o.run_ms,
	     o.max_ms, o.min_leaf);
	if (path)
		diag_elf(path);
}

int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	lseek(fd, 0, SEEK_END);
	return fd;
}

bool kmsg_is_splat(const char *msg)
{
	static const char *const splats[] = {
		"BUG:", "WARNING:", "KASAN", "UBSAN", "KFENCE", "Oops",
		"general protection", "Call Trace", "refcount_t:", "corruption",
		"lockdep", "possible circular locking",
		"possible recursive locking", "inconsistent lock state",
		"suspicious RCU usage", "rcu_sched", "rcu_preempt", "RCU stall",
		"rcu: INFO", "hung_task", "soft lockup", "hard LOCKUP",
		"sleeping function called from invalid context",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(splats); i++)
		if (strstr(msg, splats[i]))
			return true;
	return false;
}

int kmsg_count(int fd, bool (*match)(const char *msg, void *arg),
	       void *arg)
{
	char rec[2048];
	int hits = 0;

	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);
		char *msg;

		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten meanwhile */
		if (n <= 0)
			break;
		rec[n] = 0;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		msg[strcspn(msg, "\n")] = 0;
		if (match(msg, arg)) {
			diag("kernel log: %s\n", msg);
			hits++;
		}
	}
	return hits;
}
