// SPDX-License-Identifier: GPL-2.0
/*
 * xcheck-record: sample a program with perf_event_open() and keep, for
 * every sample, both the kernel's user call chain (PERF_SAMPLE_CALLCHAIN)
 * and the user registers and a copy of the user stack (PERF_SAMPLE_REGS_USER,
 * PERF_SAMPLE_STACK_USER), so that xcheck-report can unwind the same sample
 * with DWARF CFI on the host and compare.
 *
 *   xcheck-record -o FILE [-p PERIOD_NS] [-s STACK_BYTES] [-m BUF_PAGES] \
 *                 -- PROGRAM [ARGS...]
 *
 * The event is cpu-clock (PERF_TYPE_SOFTWARE), user mode only, on the
 * program and everything it forks or clones (inherit), enabled at its
 * execve(). Exits with the program's exit status; 128+N if it was killed
 * by signal N; 127 if it could not be started; 1 on a recording error.
 * File format: xcheck.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <elf.h>

#include "xcheck.h"

#if defined(__x86_64__)
#define XC_MACHINE	EM_X86_64
/*
 * AX BX CX DX SI DI BP SP IP FLAGS CS SS (bits 0-11) and R8-R15 (16-23);
 * DS ES FS GS (12-15) are rejected for 64-bit tasks.
 */
#define XC_REGS_MASK	0x00ff0fffULL
#elif defined(__aarch64__)
#define XC_MACHINE	EM_AARCH64
/* X0-X28, X29 (FP), LR, SP, PC */
#define XC_REGS_MASK	((1ULL << 33) - 1)
#else
#error "unsupported architecture (x86_64 and arm64 only)"
#endif

#define DEFAULT_PERIOD_NS	100000
#define DEFAULT_STACK		16384
#define DEFAULT_PAGES		4096	/* 16 MiB of ring buffer */
#define MAX_CPUS		1024

static const char *prog = "xcheck-record";

static void usage(void)
{
	fprintf(stderr,
		"usage: %s -o FILE [-p PERIOD_NS] [-s STACK_BYTES] [-m BUF_PAGES] -- PROGRAM [ARGS...]\n"
		"  -p  cpu-clock sample period in ns (default %d)\n"
		"  -s  user stack bytes copied per sample (default %d, multiple of 8)\n"
		"  -m  ring buffer pages per CPU (power of two, default %d, less with many CPUs)\n",
		prog, DEFAULT_PERIOD_NS, DEFAULT_STACK, DEFAULT_PAGES);
	exit(2);
}

static FILE *out;
static const char *out_path;
static uint64_t nr_samples, nr_lost, nr_records;
static unsigned int nr_regs;

static void write_out(const void *buf, size_t len)
{
	if (len && fwrite(buf, 1, len, out) != len) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, out_path,
			strerror(errno));
		exit(1);
	}
}

static bool parse_num(const char *s, unsigned long long *val)
{
	char *end;

	errno = 0;
	*val = strtoull(s, &end, 0);
	return !errno && end != s && !*end && s[0] != '-';
}

/* The vDSO of this process: the guest's, the same in the program. */
static void vdso_image(const void **img, uint32_t *size)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	unsigned long start, end;
	char line[512];
	FILE *f;

	*img = NULL;
	*size = 0;
	if (!base)
		return;
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "[vdso]"))
			continue;
		if (sscanf(line, "%lx-%lx", &start, &end) == 2 && start == base) {
			*img = (const void *)start;
			*size = end - start;
		}
		break;
	}
	fclose(f);
}

/*
 * Write one record. A sample's stack copy is cut to the bytes the kernel
 * copied (dyn_size), which is usually much less than the requested size.
 */
static void put_record(uint8_t *rec, const struct perf_event_attr *attr)
{
	struct perf_event_header *h = (struct perf_event_header *)rec;
	uint64_t *p, nr, size, dyn, keep;
	uint8_t *data;

	nr_records++;
	if (h->type == PERF_RECORD_LOST)
		nr_lost += ((uint64_t *)(h + 1))[1];
	if (h->type != PERF_RECORD_SAMPLE) {
		write_out(rec, h->size);
		return;
	}
	nr_samples++;

	/* IP, TID, TIME, CALLCHAIN, REGS_USER, STACK_USER (see main()) */
	p = (uint64_t *)(h + 1) + 3;
	nr = *p++;
	p += nr;
	if (*p++ != PERF_SAMPLE_REGS_ABI_NONE)
		p += nr_regs;
	size = *p++;
	if ((uint8_t *)p + size + 8 > rec + h->size || !size ||
	    !(attr->sample_type & PERF_SAMPLE_STACK_USER)) {
		write_out(rec, h->size);
		return;
	}
	data = (uint8_t *)p;
	memcpy(&dyn, data + size, 8);
	keep = (dyn + 7) & ~7ULL;
	if (keep >= size) {
		write_out(rec, h->size);
		return;
	}
	p[-1] = keep;
	memmove(data + keep, data + size, 8);
	h->size -= size - keep;
	write_out(rec, h->size);
}

struct ring {
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	uint64_t mask;
};

static uint8_t *tmp;

static void drain(struct ring *rb, const struct perf_event_attr *attr)
{
	uint64_t head = __atomic_load_n(&rb->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = rb->meta->data_tail;

	while (tail < head) {
		struct perf_event_header h;
		uint64_t off = tail & rb->mask;
		uint8_t *rec;

		/* The header may wrap too. */
		for (size_t i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = rb->data[(off + i) & rb->mask];
		if (h.size < sizeof(h) || tail + h.size > head) {
			fprintf(stderr, "%s: corrupt ring buffer record (size %u)\n",
				prog, h.size);
			exit(1);
		}
		if (off + h.size <= rb->mask + 1) {
			rec = rb->data + off;
			/* put_record() edits samples: work on a copy */
			memcpy(tmp, rec, h.size);
		} else {
			uint64_t first = rb->mask + 1 - off;

			memcpy(tmp, rb->data + off, first);
			memcpy(tmp + first, rb->data, h.size - first);
		}
		put_record(tmp, attr);
		tail += h.size;
	}
	__atomic_store_n(&rb->meta->data_tail, tail, __ATOMIC_RELEASE);
}

int main(int argc, char **argv)
{
	unsigned long long period = DEFAULT_PERIOD_NS, stack = DEFAULT_STACK;
	unsigned long long pages = DEFAULT_PAGES;
	int go[2], err[2], opt, status = 0, e, ncpus, nr_rings = 0;
	static struct ring rb[MAX_CPUS];
	static struct pollfd pfd[MAX_CPUS];
	struct xcheck_header hdr;
	struct perf_event_attr attr;
	const void *vdso;
	uint32_t vdso_size;
	size_t map_len;
	bool exited = false;
	pid_t pid;
	ssize_t n;

	while ((opt = getopt(argc, argv, "+o:p:s:m:h")) != -1) {
		switch (opt) {
		case 'o':
			out_path = optarg;
			break;
		case 'p':
			if (!parse_num(optarg, &period) || !period)
				usage();
			break;
		case 's':
			if (!parse_num(optarg, &stack) || !stack || stack % 8 ||
			    stack > 65000)
				usage();
			break;
		case 'm':
			if (!parse_num(optarg, &pages) || !pages ||
			    (pages & (pages - 1)) || pages > (1 << 20))
				usage();
			break;
		default:
			usage();
		}
	}
	if (!out_path || optind >= argc)
		usage();

	out = fopen(out_path, "w");
	if (!out) {
		fprintf(stderr, "%s: cannot create %s: %s\n", prog, out_path,
			strerror(errno));
		return 1;
	}

	if (pipe2(go, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		perror("pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (!pid) {
		char c;

		close(go[1]);
		close(err[0]);
		/* Wait until the event is set up (or the parent gives up). */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[optind], argv + optind);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);

	/*
	 * Drain the buffers as soon as the kernel wakes us up, even when the
	 * program keeps every CPU busy: a real-time priority for the recorder
	 * only (the program was forked before). Best effort.
	 */
	{
		struct sched_param sp = { .sched_priority = 1 };

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			(void)!nice(-10);
	}

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = period;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			   PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
			   PERF_SAMPLE_STACK_USER;
	attr.sample_regs_user = XC_REGS_MASK;
	attr.sample_stack_user = stack;
	attr.disabled = 1;
	attr.inherit = 1;
	attr.enable_on_exec = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.exclude_callchain_kernel = 1;
	attr.mmap = 1;
	attr.mmap2 = 1;
	attr.build_id = 1;
	attr.comm = 1;
	attr.comm_exec = 1;
	attr.task = 1;
	attr.sample_id_all = 1;
	/* the kernel's limit, recorded so that xcheck-report knows it */
	{
		FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "r");
		unsigned int ms = 127;

		if (f) {
			if (fscanf(f, "%u", &ms) != 1)
				ms = 127;
			fclose(f);
		}
		attr.sample_max_stack = ms;
	}
	attr.watermark = 1;
	nr_regs = __builtin_popcountll(XC_REGS_MASK);

	/*
	 * An inherited per-task event cannot be mmap()ed: one event per CPU,
	 * each with its own ring buffer; xcheck-report orders the records of
	 * all buffers by time.
	 */
	ncpus = sysconf(_SC_NPROCESSORS_CONF);
	if (ncpus < 1)
		ncpus = 1;
	if (ncpus > MAX_CPUS)
		ncpus = MAX_CPUS;
	while (pages > 64 && pages * ncpus > DEFAULT_PAGES * 4)
		pages /= 2;
	attr.wakeup_watermark = pages * 4096 / 4;
	map_len = (pages + 1) * 4096;
	for (int cpu = 0; cpu < ncpus; cpu++) {
		int fd = syscall(SYS_perf_event_open, &attr, pid, cpu, -1,
				 PERF_FLAG_FD_CLOEXEC);
		struct ring *r = &rb[nr_rings];

		if (fd < 0 && (errno == ENODEV || errno == EINVAL) && cpu)
			continue;	/* offline or absent CPU */
		if (fd < 0) {
			e = errno;
			fprintf(stderr, "%s: perf_event_open (cpu %d): %s%s\n",
				prog, cpu, strerror(e),
				e == EACCES || e == EPERM ?
				" (needs root or kernel.perf_event_paranoid <= 1)" : "");
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return 1;
		}
		r->meta = mmap(NULL, map_len, PROT_READ | PROT_WRITE,
			       MAP_SHARED, fd, 0);
		if (r->meta == MAP_FAILED) {
			fprintf(stderr, "%s: mmap of %llu ring buffer pages: %s\n",
				prog, pages, strerror(errno));
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return 1;
		}
		r->data = (uint8_t *)r->meta + 4096;
		r->mask = pages * 4096 - 1;
		pfd[nr_rings].fd = fd;
		pfd[nr_rings].events = POLLIN;
		nr_rings++;
	}
	tmp = malloc(65536);
	if (!tmp) {
		perror("malloc");
		return 1;
	}

	vdso_image(&vdso, &vdso_size);
	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.magic, XCHECK_MAGIC, sizeof(hdr.magic));
	hdr.version = XCHECK_VERSION;
	hdr.e_machine = XC_MACHINE;
	hdr.attr_size = sizeof(attr);
	hdr.vdso_size = vdso_size;
	hdr.sample_regs_user = XC_REGS_MASK;
	write_out(&hdr, sizeof(hdr));
	write_out(&attr, sizeof(attr));
	if (vdso_size) {
		static const uint8_t zero[8];

		write_out(vdso, vdso_size);
		write_out(zero, -vdso_size & 7);
	}

	/* Start the program. */
	if (write(go[1], "g", 1) != 1) {
		perror("write");
		return 1;
	}
	close(go[1]);
	n = read(err[0], &e, sizeof(e));
	close(err[0]);
	if (n == sizeof(e)) {
		fprintf(stderr, "%s: cannot run %s: %s\n", prog, argv[optind],
			strerror(e));
		waitpid(pid, NULL, 0);
		return 127;
	}

	while (!exited) {
		if (poll(pfd, nr_rings, 50) < 0 && errno != EINTR) {
			perror("poll");
			return 1;
		}
		for (int i = 0; i < nr_rings; i++)
			drain(&rb[i], &attr);
		if (waitpid(pid, &status, WNOHANG) == pid)
			exited = true;
	}
	/* Records written while the program exited. */
	for (int i = 0; i < nr_rings; i++)
		drain(&rb[i], &attr);

	hdr.samples = nr_samples;
	hdr.lost = nr_lost;
	hdr.complete = 1;
	hdr.status = status;
	if (fflush(out) || fseek(out, 0, SEEK_SET)) {
		perror(out_path);
		return 1;
	}
	write_out(&hdr, sizeof(hdr));
	if (fclose(out)) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, out_path,
			strerror(errno));
		return 1;
	}
	fprintf(stderr, "%s: %llu samples, %llu lost, %llu records -> %s\n",
		prog, (unsigned long long)nr_samples,
		(unsigned long long)nr_lost, (unsigned long long)nr_records,
		out_path);

	if (WIFSIGNALED(status)) {
		fprintf(stderr, "%s: %s was killed by signal %d (%s)\n", prog,
			argv[optind], WTERMSIG(status), strsignal(WTERMSIG(status)));
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}
