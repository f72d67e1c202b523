// SPDX-License-Identifier: GPL-2.0
/*
 * Per-sample cost of the kernel's user stack unwinder, measured from inside
 * the sampled program.
 *
 * The program opens a software page-fault event on itself (sample_period 1,
 * user call chain only). One iteration drops an anonymous page with
 * madvise(MADV_DONTNEED) (or maps a new page over it where the kernel has no
 * madvise) and calls a chain of generated functions whose leaf
 * stores to that page: exactly one page fault, so exactly one sample taken
 * with the user registers in the leaf. The loop is timed with
 * CLOCK_MONOTONIC twice: with PERF_SAMPLE_CALLCHAIN ("chain") and without
 * ("none"); the difference per iteration is the cost of one user call
 * chain. With sample_max_stack = depth + 1 the unwinder stops after exactly
 * depth frames, whatever lies above the chain.
 *
 * Before timing, every (chains, depth) point checks the sampled call chains
 * entry by entry against the return addresses the chain functions record
 * (gen.py): a cost measured on a wrong chain would mean nothing.
 *
 *   ubench [-D depths] [-C chains] [-n iters] [-r reps] [-t label]
 *          [-l nlibs -L lib.so [-x]] [-v verify-iters] [-N] [-g lib.so]
 *
 *   -D 4,16,64,128   chain depths (<= the generated depth)
 *   -C 1,64          number of distinct chain copies cycled over
 *   -l N -L lib.so   first copy lib.so to N files in /tmp and dlopen them all
 *   -x               measure the chain of the last library loaded instead
 *   -N               chains are expected to be broken (report, don't fail)
 *   -g lib.so        before each repetition, dlopen() and dlclose() lib.so
 *                    (new SFrame registrations: see new_generation())
 *   -c lib.so        before each iteration, map the executable segment of
 *                    lib.so and unmap it (see churn()): no lookup result
 *                    the kernel cached for an earlier sample is used
 *                    (the file's text stays mapped once more for the
 *                    whole run: hold_text())
 *
 * Prints one "cost key=value ..." line per point (medians over the reps,
 * nanoseconds per iteration: none, chain, their difference "unwind", and
 * "paired", the median of the per-repetition differences) and "raw ..."
 * lines with every repetition.
 * Exit status 1 if a chain check failed, 2 on bad usage or setup errors.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The chains generated into this program (gen.py chain ch ...). */
extern void *ch_ra[];
extern void (*const ch_fn[])(volatile char *);
extern const int ch_nchains, ch_depth, ch_pad;

struct chainset {
	const char *name;
	void (*const *fn)(volatile char *);	/* [nchains][depth] */
	void **ra;				/* [nchains][depth] */
	int nchains, depth;
	int pad;	/* stack pointer moves before each call (gen.py --pad) */
};

#define RB_PAGES	128
#define MAX_POINTS	16

static long page_size;
static char *page;

static void die(const char *what)
{
	fprintf(stderr, "ubench: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ubench [-D d1,d2..] [-C c1,c2..] [-n iters] [-r reps] [-t label]\n"
		"              [-v verify-iters] [-l nlibs -L lib.so [-x]] [-N] [-g lib.so]\n"
		"              [-c lib.so]\n");
	exit(2);
}

static int parse_list(const char *s, int *v, int max)
{
	int n = 0;
	char *end;

	while (*s) {
		long x = strtol(s, &end, 10);

		if (end == s || x < 1 || x > 1000000 || n == max)
			usage();
		v[n++] = x;
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			usage();
	}
	if (!n)
		usage();
	return n;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

struct event {
	int fd;
	struct perf_event_mmap_page *m;
	char *data;
	size_t data_size;
};

static void ev_open(struct event *e, int callchain, int max_stack)
{
	struct perf_event_attr a;
	size_t len = (1 + RB_PAGES) * page_size;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			(callchain ? PERF_SAMPLE_CALLCHAIN : 0);
	a.sample_max_stack = max_stack;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.exclude_callchain_kernel = 1;
	a.disabled = 1;
	e->fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (e->fd < 0)
		die("perf_event_open (root? kernel.perf_event_max_stack >= depth + 1?)");
	e->m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, e->fd, 0);
	if (e->m == MAP_FAILED)
		die("mmap of the ring buffer");
	e->data = (char *)e->m + page_size;
	e->data_size = RB_PAGES * page_size;
	/*
	 * The ring buffer is mapped on demand: fault every page in now, while
	 * the event is disabled, not when verify() first reads it.
	 */
	for (size_t off = 0; off < len; off += page_size)
		(void)*(volatile char *)((char *)e->m + off);
}

static void ev_close(struct event *e)
{
	munmap(e->m, (1 + RB_PAGES) * page_size);
	close(e->fd);
}

static uint64_t ev_count(struct event *e)
{
	uint64_t v = 0;

	if (read(e->fd, &v, sizeof(v)) != sizeof(v))
		die("read of the event count");
	return v;
}

/* Throw away everything in the ring buffer. */
static inline void ev_skip(struct event *e)
{
	uint64_t head = __atomic_load_n(&e->m->data_head, __ATOMIC_ACQUIRE);

	__atomic_store_n(&e->m->data_tail, head, __ATOMIC_RELEASE);
}

/* Copy the next record out of the ring buffer; 0 if there is none. */
static int ev_next(struct event *e, void *buf, size_t cap)
{
	uint64_t head = __atomic_load_n(&e->m->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = e->m->data_tail;
	struct perf_event_header h;
	size_t i;

	if (tail == head)
		return 0;
	for (i = 0; i < sizeof(h); i++)
		((char *)&h)[i] = e->data[(tail + i) % e->data_size];
	if (h.size > cap || h.size < sizeof(h)) {
		fprintf(stderr, "ubench: bad record size %u\n", h.size);
		exit(2);
	}
	for (i = 0; i < h.size; i++)
		((char *)buf)[i] = e->data[(tail + i) % e->data_size];
	__atomic_store_n(&e->m->data_tail, tail + h.size, __ATOMIC_RELEASE);
	return 1;
}

/*
 * Drop the page so that the next store faults: madvise(MADV_DONTNEED), or,
 * on kernels without it (CONFIG_ADVISE_SYSCALLS=n), a new anonymous mapping
 * over it.
 */
static int use_madvise;

static inline void drop_page(void)
{
	if (use_madvise)
		madvise(page, page_size, MADV_DONTNEED);
	else if (mmap(page, page_size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != page)
		die("mmap MAP_FIXED");
}

/*
 * Churn (-c): the executable segment of an SFrame file, mapped and
 * unmapped before every iteration. Each of the two moves the mm's SFrame
 * registrations to a new generation, which the kernel's per-CPU lookup
 * cache is indexed by: every lookup of the next sample misses, as under a
 * task that maps and unmaps to defeat the cache.
 */
static int churn_fd = -1;
static off_t churn_off;
static size_t churn_len;

/*
 * Open @path, find its executable segment (*@off, *@len: the mapping of
 * it), and map it once more for the rest of the run, with a perf event
 * that takes call chains open (from then on): the mapping registers the
 * file, and its table lives as long as the program. The churn's mappings
 * then share that table, as they change the mm's registrations, instead
 * of building it again each time. Returns the fd.
 */
static int hold_text(const char *path, off_t *off, size_t *len)
{
	struct perf_event_attr a;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd, i;

	/* disabled, and left open */
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000000;
	a.sample_type = PERF_SAMPLE_CALLCHAIN;
	a.disabled = 1;
	a.exclude_kernel = 1;
	if (syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC) < 0)
		die("perf_event_open");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_phentsize != sizeof(ph)) {
		fprintf(stderr, "ubench: %s: not a 64-bit ELF file\n", path);
		exit(2);
	}
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) !=
		    sizeof(ph))
			die(path);
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			*off = ph.p_offset & ~(page_size - 1);
			*len = ph.p_offset + ph.p_filesz - *off;
			if (mmap(NULL, *len, PROT_READ | PROT_EXEC, MAP_PRIVATE,
				 fd, *off) == MAP_FAILED)
				die(path);
			return fd;
		}
	}
	fprintf(stderr, "ubench: %s: no executable segment\n", path);
	exit(2);
}

static inline void churn(void)
{
	void *p;

	if (churn_fd < 0)
		return;
	p = mmap(NULL, churn_len, PROT_READ | PROT_EXEC, MAP_PRIVATE, churn_fd,
		 churn_off);
	if (p == MAP_FAILED)
		die("mmap of the churn file");
	munmap(p, churn_len);
}

static inline void one(const struct chainset *cs, int c, int level)
{
	churn();
	drop_page();
	cs->fn[c * cs->depth + level](page);
}

static uint64_t timed(const struct chainset *cs, struct event *e, int nch,
		      int level, int n)
{
	uint64_t t0, t1;
	int i, c = 0;

	ioctl(e->fd, PERF_EVENT_IOC_ENABLE, 0);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		one(cs, c, level);
		if (++c == nch)
			c = 0;
		if ((i & 15) == 15)
			ev_skip(e);
	}
	t1 = now_ns();
	ioctl(e->fd, PERF_EVENT_IOC_DISABLE, 0);
	ev_skip(e);
	return t1 - t0;
}

/* Record buffer of verify(), touched up front: no page faults of its own. */
static uint64_t buf[8192];

struct check {
	int ok, total, other, nr;
	char why[200];
};

/*
 * One iteration at a time: exactly one sample, in the leaf, and (with a
 * call chain) the leaf address followed by the depth return addresses the
 * chain functions stored.
 */
static void verify(const struct chainset *cs, struct event *e, int callchain,
		   int nch, int level, int n, struct check *k)
{
	int depth = cs->depth - level, i;

	memset(k, 0, sizeof(*k));
	ev_skip(e);
	ioctl(e->fd, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < n; i++) {
		int c = i % nch, samples = 0, good = 0;

		one(cs, c, level);
		while (ev_next(e, buf, sizeof(buf))) {
			struct perf_event_header *h = (void *)buf;
			uint64_t *p = (uint64_t *)(h + 1), ip, nr, *ips;
			uintptr_t leaf = (uintptr_t)cs->fn[c * cs->depth + cs->depth - 1];
			int j;

			if (h->type != PERF_RECORD_SAMPLE) {
				k->other++;
				continue;
			}
			samples++;
			ip = p[0];
			/* The leaf's store follows its padding (8 bytes a step). */
			if (ip - leaf >= 256 + 8 * (uintptr_t)cs->pad) {
				snprintf(k->why, sizeof(k->why),
					 "sample ip %#llx not in the leaf %#lx",
					 (unsigned long long)ip, (unsigned long)leaf);
				continue;
			}
			if (!callchain) {
				good = 1;
				continue;
			}
			nr = p[2];
			ips = p + 3;
			k->nr = nr;
			if (nr != (uint64_t)depth + 2 || ips[0] != PERF_CONTEXT_USER ||
			    ips[1] != ip) {
				snprintf(k->why, sizeof(k->why),
					 "chain of %llu entries, want %d (context + leaf + %d frames)",
					 (unsigned long long)nr, depth + 2, depth);
				continue;
			}
			for (j = 1; j <= depth; j++)
				if (ips[1 + j] != (uintptr_t)cs->ra[c * cs->depth + cs->depth - j])
					break;
			if (j <= depth) {
				snprintf(k->why, sizeof(k->why),
					 "frame %d of %d is %#llx, want %#lx", j, depth,
					 (unsigned long long)ips[1 + j],
					 (unsigned long)cs->ra[c * cs->depth + cs->depth - j]);
				continue;
			}
			good = 1;
		}
		k->total++;
		if (samples != 1 && !k->why[0])
			snprintf(k->why, sizeof(k->why), "%d samples in one iteration", samples);
		if (samples == 1 && good)
			k->ok++;
	}
	ioctl(e->fd, PERF_EVENT_IOC_DISABLE, 0);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double median(uint64_t *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median_d(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/*
 * Map and unmap an SFrame library: the mm's SFrame registrations change, so
 * per-IP lookup results cached by the kernel start afresh (and, if the
 * cache is indexed by the registration generation, in a new layout: each
 * repetition then samples another placement of the chain's IPs).
 */
static void new_generation(const char *lib)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, "ubench: dlopen %s: %s\n", lib, dlerror());
		exit(2);
	}
	dlclose(h);
}

static void load_libs(const char *lib, int nlibs, struct chainset *lc)
{
	static char cbuf[1 << 16];
	void *h = NULL;
	int i;

	for (i = 0; i < nlibs; i++) {
		char path[64];
		int in, out;
		ssize_t r;

		snprintf(path, sizeof(path), "/tmp/ubench-lib-%d-%d.so", (int)getpid(), i);
		in = open(lib, O_RDONLY);
		if (in < 0)
			die(lib);
		out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
		if (out < 0)
			die(path);
		while ((r = read(in, cbuf, sizeof(cbuf))) > 0)
			if (write(out, cbuf, r) != r)
				die(path);
		close(in);
		close(out);
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		/* the mapping stays; the file need not */
		unlink(path);
		if (!h) {
			fprintf(stderr, "ubench: dlopen %s: %s\n", path, dlerror());
			exit(2);
		}
	}
	lc->name = "lib";
	lc->fn = dlsym(h, "lc_fn");
	lc->ra = dlsym(h, "lc_ra");
	if (!lc->fn || !lc->ra || !dlsym(h, "lc_nchains") || !dlsym(h, "lc_depth")) {
		fprintf(stderr, "ubench: %s has no lc_* chain\n", lib);
		exit(2);
	}
	lc->nchains = *(const int *)dlsym(h, "lc_nchains");
	lc->depth = *(const int *)dlsym(h, "lc_depth");
	lc->pad = 0;
}

int main(int argc, char **argv)
{
	int depths[MAX_POINTS], chains[MAX_POINTS], nd = 0, nc = 0;
	int n = 1000, reps = 3, nverify = 0, nlibs = 0, uselib = 0, broken = 0;
	const char *label = "run", *lib = NULL, *regen = NULL, *churn_lib = NULL;
	struct chainset main_cs = { "main", ch_fn, ch_ra, ch_nchains, ch_depth,
				    ch_pad };
	struct chainset lib_cs, *cs = &main_cs;
	int opt, di, ci, failed = 0;

	depths[nd++] = 16;
	chains[nc++] = 1;
	while ((opt = getopt(argc, argv, "D:C:n:r:t:v:l:L:xNg:c:")) != -1) {
		switch (opt) {
		case 'D': nd = parse_list(optarg, depths, MAX_POINTS); break;
		case 'C': nc = parse_list(optarg, chains, MAX_POINTS); break;
		case 'n': n = atoi(optarg); break;
		case 'r': reps = atoi(optarg); break;
		case 't': label = optarg; break;
		case 'v': nverify = atoi(optarg); break;
		case 'l': nlibs = atoi(optarg); break;
		case 'L': lib = optarg; break;
		case 'x': uselib = 1; break;
		case 'N': broken = 1; break;
		case 'g': regen = optarg; break;
		case 'c': churn_lib = optarg; break;
		default: usage();
		}
	}
	if (optind != argc || n < 16 || reps < 1 || reps > 99 || nverify < 0 ||
	    nlibs < 0 || nlibs > 100000 || (nlibs && !lib) || (uselib && !nlibs))
		usage();
	page_size = sysconf(_SC_PAGESIZE);
	page = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		die("mmap");
	memset(buf, 1, sizeof(buf));
	use_madvise = !madvise(page, page_size, MADV_DONTNEED);
	printf("drop=%s\n", use_madvise ? "madvise" : "mmap");
	if (churn_lib)
		churn_fd = hold_text(churn_lib, &churn_off, &churn_len);
	if (nlibs) {
		load_libs(lib, nlibs, &lib_cs);
		if (uselib)
			cs = &lib_cs;
	}
	for (ci = 0; ci < nc; ci++) {
		if (chains[ci] > cs->nchains) {
			fprintf(stderr, "ubench: %d chains asked, %s has %d\n",
				chains[ci], cs->name, cs->nchains);
			exit(2);
		}
	}
	for (di = 0; di < nd; di++) {
		if (depths[di] > cs->depth) {
			fprintf(stderr, "ubench: depth %d asked, %s chains have %d\n",
				depths[di], cs->name, cs->depth);
			exit(2);
		}
	}

	for (ci = 0; ci < nc; ci++) {
		for (di = 0; di < nd; di++) {
			int nch = chains[ci], d = depths[di], level = cs->depth - d;
			int nv = nverify ? nverify : (2 * nch > 32 ? 2 * nch : 32);
			uint64_t tn[100], tc[100], f0, f1;
			struct event en, ec;
			struct check kn, kc;
			double mn, mc, md, td[100];
			int r;

			ev_open(&en, 0, d + 1);
			ev_open(&ec, 1, d + 1);
			/* warm up: text and .sframe pages in, caches filled */
			timed(cs, &ec, nch, level, 4 * nch > n ? 4 * nch : n / 4);
			timed(cs, &en, nch, level, n / 4);
			verify(cs, &en, 0, nch, level, nv, &kn);
			verify(cs, &ec, 1, nch, level, nv, &kc);
			f0 = ev_count(&ec);
			for (r = 0; r < reps; r++) {
				if (regen)
					new_generation(regen);
				tn[r] = timed(cs, &en, nch, level, n);
				tc[r] = timed(cs, &ec, nch, level, n);
			}
			f1 = ev_count(&ec);
			printf("raw label=%s lib=%s libs=%d chains=%d depth=%d none=", label,
			       cs->name, nlibs, nch, d);
			for (r = 0; r < reps; r++)
				printf("%s%.1f", r ? "," : "", (double)tn[r] / n);
			printf(" chain=");
			for (r = 0; r < reps; r++)
				printf("%s%.1f", r ? "," : "", (double)tc[r] / n);
			printf("\n");
			/*
			 * Each repetition times "none" and then "chain" back to
			 * back: the median of these paired differences resists
			 * slow drifts of the host's speed (wall clock under TCG).
			 */
			for (r = 0; r < reps; r++)
				td[r] = (double)tc[r] - (double)tn[r];
			md = median_d(td, reps) / n;	/* td[] sorted now */
			mn = median(tn, reps) / n;
			mc = median(tc, reps) / n;
			printf("cost label=%s lib=%s libs=%d chains=%d depth=%d n=%d reps=%d "
			       "none=%.1f chain=%.1f unwind=%.1f per_frame=%.2f "
			       "paired=%.1f paired_per_frame=%.2f "
			       "paired_min_per_frame=%.2f paired_max_per_frame=%.2f "
			       "faults_per_iter=%.3f verified=%d/%d nr=%d none_verified=%d/%d\n",
			       label, cs->name, nlibs, nch, d, n, reps, mn, mc, mc - mn,
			       (mc - mn) / d, md, md / d, td[0] / n / d,
			       td[reps - 1] / n / d,
			       (double)(f1 - f0) / ((uint64_t)n * reps),
			       kc.ok, kc.total, kc.nr, kn.ok, kn.total);
			if (kc.ok != kc.total || kn.ok != kn.total) {
				printf("%s label=%s chains=%d depth=%d: %s\n",
				       broken ? "broken-as-expected" : "CHAIN-CHECK-FAILED",
				       label, nch, d, kc.why[0] ? kc.why : kn.why);
				if (!broken)
					failed = 1;
			} else if (broken) {
				printf("CHAIN-CHECK-FAILED label=%s chains=%d depth=%d: complete chains where broken ones were expected\n",
				       label, nch, d);
				failed = 1;
			}
			fflush(stdout);
			ev_close(&en);
			ev_close(&ec);
		}
	}
	return failed;
}
