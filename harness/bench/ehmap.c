// SPDX-License-Identifier: GPL-2.0
/*
 * What converting a file's .eh_frame into an unwind table costs, and the
 * kernel memory the table holds.
 *
 *   ehmap map REPS FILE...
 *   ehmap watch MS
 *   ehmap sections FILE...
 *
 * map: with a perf event open that takes call chains (so that executable
 * mappings register their tables), each FILE is read once (page cache
 * warm), then its executable segment is mapped (PROT_READ | PROT_EXEC,
 * MAP_PRIVATE, at its file offset, as ld.so maps text) and unmapped, REPS
 * times, the mmap() call alone timed (CLOCK_MONOTONIC: under -icount a
 * nanosecond is a guest instruction), in five settings:
 *   first    kernel.unwind_user_sframe=1, kernel.unwind_user_eh_frame=1,
 *            and 2 written to /proc/sys/vm/drop_caches before each
 *            mapping (untimed: the shrinkers free the tables the kernel
 *            keeps after the last mapping of their file): the mapping
 *            converts .eh_frame into a new table (or, for a file with
 *            SFrame, validates .sframe into one)
 *   kept     the same without the drop, after a mapping that went: the
 *            table kept from it, if the kernel keeps tables (else as
 *            first)
 *   second   while another mapping of the segment exists: the new one
 *            shares its table
 *   eh_off   unwind_user_sframe=1, unwind_user_eh_frame=0: the kernel
 *            reads the ELF headers and finds nothing to register
 *   off      unwind_user_sframe=0: the kernel reads nothing
 * The debugfs counters (unwind_user/sframe_stats) are read around every
 * timed mmap(): "tables" and "table_bytes" give the table the mapping
 * added, "eh_frame_converted" and "eh_frame_stop_rows" what the
 * conversion did. Prints per file
 *   ehmap file=PATH name=BASENAME size=B sframe=B eh_frame=B
 *         eh_frame_hdr=B fdes=N text=B first_ns=X kept_ns=X second_ns=X
 *         eh_off_ns=X off_ns=X tables=N table_bytes=B table_rows=N
 *         converted=N stop_rows=N kept_converted=N second_tables=N
 *         second_shared=N
 * (medians over REPS; sframe: PT_GNU_SFRAME bytes, 0 without; eh_frame,
 * eh_frame_hdr: section sizes; fdes: the .eh_frame_hdr count; tables,
 * table_bytes, table_rows, converted, stop_rows: counter changes of the first
 * "first" mapping; kept_converted, second_*: of the first "kept" and
 * "second" ones) and "ehmap-raw" lines with every repetition. The sysctls
 * are restored at the end.
 *
 * watch: reads the counters every MS milliseconds until SIGINT or SIGTERM,
 * then prints
 *   ehwatch polls=N tables_first=N tables_max=N tables_last=N
 *           bytes_first=B bytes_max=B bytes_last=B kept_first=N
 *           kept_max=N kept_last=N kept_bytes_first=B kept_bytes_max=B
 *           kept_bytes_last=B sum_max=B
 * (kept: tables the kernel keeps after their last mapping, if it does;
 * sum: table_bytes + kept_bytes).
 *
 * sections: the ELF headers of each FILE only (nothing mapped, no
 * counters read), one line each:
 *   ehsec file=PATH size=B sframe=B eh_frame=B eh_frame_hdr=B fdes=N
 * or "ehsec file=PATH error=..." for a file that is not a 64-bit ELF file
 * with an executable segment.
 *
 * Exit status 1 if a step failed (the line says which), 2 on bad usage.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define STATS		"/sys/kernel/debug/unwind_user/sframe_stats"
#define SYS_SFRAME	"/proc/sys/kernel/unwind_user_sframe"
#define SYS_EH		"/proc/sys/kernel/unwind_user_eh_frame"
#define MAX_REPS	99
#define DROP		"/proc/sys/vm/drop_caches"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

enum {
	ST_TABLES, ST_BYTES, ST_CONVERTED, ST_STOPS, ST_SHARED, ST_KEPT,
	ST_KEPT_BYTES, ST_ROWS, ST_NR
};
static const char *const st_names[ST_NR] = {
	"tables", "table_bytes", "eh_frame_converted", "eh_frame_stop_rows",
	"validation_shared", "kept", "kept_bytes", "table_rows",
};

static int stats_fd = -1;

/* The counters named in st_names[]; 0 for one the kernel does not have. */
static void stats_read(long *v)
{
	char buf[4096], *p;
	ssize_t n;
	int i;

	memset(v, 0, ST_NR * sizeof(*v));
	n = pread(stats_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return;
	buf[n] = 0;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		for (i = 0; i < ST_NR; i++) {
			size_t l = strlen(st_names[i]);

			if (!strncmp(p, st_names[i], l) && p[l] == ' ')
				v[i] = strtol(p + l + 1, NULL, 10);
		}
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int sysctl_get(const char *path)
{
	char b[16] = "";
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	if (read(fd, b, sizeof(b) - 1) <= 0)
		b[0] = 0;
	close(fd);
	return b[0] ? atoi(b) : -1;
}

static int sysctl_set(const char *path, int v)
{
	char b[16];
	int fd = open(path, O_WRONLY), n, ok;

	if (fd < 0)
		return -1;
	n = snprintf(b, sizeof(b), "%d\n", v);
	ok = write(fd, b, n) == n;
	close(fd);
	return ok ? 0 : -1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(const uint64_t *v, int n)
{
	uint64_t s[MAX_REPS];

	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_u64);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

struct elfinfo {
	off_t text_off;		/* page-aligned file offset of the text */
	size_t text_len;	/* mapping length from there */
	uint64_t text_size;	/* p_filesz of the executable segment */
	uint64_t eh, eh_hdr;	/* section sizes (0: no section headers) */
	long fdes;		/* .eh_frame_hdr fde_count, -1 if unknown */
	uint64_t sframe;	/* PT_GNU_SFRAME size, 0 if none */
};

static int elf_info(int fd, long pg, struct elfinfo *e)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	Elf64_Shdr sh, strsh;
	unsigned char hdr[12];
	int i, found = 0;

	memset(e, 0, sizeof(*e));
	e->fdes = -1;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph))
		return -1;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) != sizeof(ph))
			return -1;
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && !found) {
			e->text_off = ph.p_offset & ~(pg - 1);
			e->text_len = ph.p_offset + ph.p_filesz - e->text_off;
			e->text_size = ph.p_filesz;
			found = 1;
		}
		if (ph.p_type == PT_GNU_SFRAME)
			e->sframe = ph.p_filesz;
		/* version 1, eh_frame_ptr sdata4, fde_count udata4 or sdata4 */
		if (ph.p_type == PT_GNU_EH_FRAME && ph.p_filesz >= 12 &&
		    pread(fd, hdr, 12, ph.p_offset) == 12 && hdr[0] == 1 &&
		    (hdr[1] & 0x0f) == 0x0b && (hdr[2] == 0x03 || hdr[2] == 0x0b)) {
			uint32_t c;

			memcpy(&c, hdr + 8, 4);
			e->fdes = c;
		}
	}
	if (!found)
		return -1;
	/* Section sizes, where there are section headers. */
	if (!eh.e_shoff || eh.e_shentsize != sizeof(sh) || eh.e_shstrndx >= eh.e_shnum ||
	    pread(fd, &strsh, sizeof(strsh), eh.e_shoff + eh.e_shstrndx * sizeof(sh)) !=
	    sizeof(strsh))
		return 0;
	for (i = 0; i < eh.e_shnum; i++) {
		char name[16] = "";

		if (pread(fd, &sh, sizeof(sh), eh.e_shoff + i * sizeof(sh)) != sizeof(sh))
			break;
		if (pread(fd, name, sizeof(name) - 1, strsh.sh_offset + sh.sh_name) <= 0)
			continue;
		if (!strcmp(name, ".eh_frame"))
			e->eh = sh.sh_size;
		else if (!strcmp(name, ".eh_frame_hdr"))
			e->eh_hdr = sh.sh_size;
	}
	return 0;
}

/* Every page of the file read once: the page cache is warm. */
static void warm(int fd)
{
	static char buf[1 << 16];
	off_t off = 0;
	ssize_t n;

	while ((n = pread(fd, buf, sizeof(buf), off)) > 0)
		off += n;
}

static void *map_text(int fd, const struct elfinfo *e)
{
	return mmap(NULL, e->text_len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd,
		    e->text_off);
}

/*
 * REPS timed mmap()s of the text (each unmapped again), in *ns; the
 * counter changes of the first in *d. With @hold, another mapping of the
 * text exists meanwhile; with @drop, the kept tables are freed before
 * each; with @pre, one untimed mapping comes first.
 */
static int timed_maps(int fd, const struct elfinfo *e, int reps, int hold,
		      int drop, int pre, uint64_t *ns, long *d)
{
	long a[ST_NR], b[ST_NR];
	void *h = NULL, *p;
	uint64_t t0, t1;
	int r, i;

	if (hold) {
		h = map_text(fd, e);
		if (h == MAP_FAILED)
			return -1;
	}
	if (pre) {
		p = map_text(fd, e);
		if (p == MAP_FAILED)
			return -1;
		munmap(p, e->text_len);
	}
	for (r = 0; r < reps; r++) {
		if (drop && sysctl_set(DROP, 2))
			return -1;
		stats_read(a);
		t0 = now_ns();
		p = map_text(fd, e);
		t1 = now_ns();
		stats_read(b);
		if (p == MAP_FAILED)
			return -1;
		munmap(p, e->text_len);
		ns[r] = t1 - t0;
		if (!r)
			for (i = 0; i < ST_NR; i++)
				d[i] = b[i] - a[i];
	}
	if (h)
		munmap(h, e->text_len);
	return 0;
}

#define NSET	5

static int do_map(int reps, char **files, int nfiles, long pg)
{
	int old_s = sysctl_get(SYS_SFRAME), old_e = sysctl_get(SYS_EH);
	int status = 0, f;

	if (old_s < 0 || old_e < 0) {
		printf("FAILED: ehmap: no %s or %s\n", SYS_SFRAME, SYS_EH);
		return 1;
	}
	for (f = 0; f < nfiles; f++) {
		static const struct {
			const char *name;
			int s, e, hold, drop, pre;
		} set[NSET] = {
			{ "first", 1, 1, 0, 1, 0 }, { "kept", 1, 1, 0, 0, 1 },
			{ "second", 1, 1, 1, 0, 0 }, { "eh_off", 1, 0, 0, 0, 0 },
			{ "off", 0, 0, 0, 0, 0 },
		};
		uint64_t ns[NSET][MAX_REPS];
		long d[NSET][ST_NR];
		const char *base = strrchr(files[f], '/');
		struct elfinfo e;
		struct stat st;
		int fd, k, r;

		base = base ? base + 1 : files[f];
		fd = open(files[f], O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) || elf_info(fd, pg, &e)) {
			printf("FAILED: ehmap: %s: cannot read its ELF headers (%s)\n",
			       files[f], strerror(errno));
			status = 1;
			if (fd >= 0)
				close(fd);
			continue;
		}
		warm(fd);
		for (k = 0; k < NSET; k++) {
			if (sysctl_set(SYS_SFRAME, set[k].s) || sysctl_set(SYS_EH, set[k].e) ||
			    timed_maps(fd, &e, reps, set[k].hold, set[k].drop, set[k].pre,
				       ns[k], d[k])) {
				printf("FAILED: ehmap: %s (%s): %s\n", files[f], set[k].name,
				       strerror(errno));
				status = 1;
				break;
			}
			printf("ehmap-raw name=%s setting=%s ns=", base, set[k].name);
			for (r = 0; r < reps; r++)
				printf("%s%llu", r ? "," : "", (unsigned long long)ns[k][r]);
			printf("\n");
		}
		close(fd);
		if (k < NSET)
			continue;
		printf("ehmap file=%s name=%s size=%lld sframe=%llu eh_frame=%llu "
		       "eh_frame_hdr=%llu fdes=%ld text=%llu first_ns=%llu kept_ns=%llu "
		       "second_ns=%llu eh_off_ns=%llu off_ns=%llu tables=%ld "
		       "table_bytes=%ld table_rows=%ld converted=%ld stop_rows=%ld "
		       "kept_converted=%ld second_tables=%ld second_shared=%ld\n",
		       files[f], base, (long long)st.st_size,
		       (unsigned long long)e.sframe,
		       (unsigned long long)e.eh, (unsigned long long)e.eh_hdr, e.fdes,
		       (unsigned long long)e.text_size,
		       (unsigned long long)median(ns[0], reps),
		       (unsigned long long)median(ns[1], reps),
		       (unsigned long long)median(ns[2], reps),
		       (unsigned long long)median(ns[3], reps),
		       (unsigned long long)median(ns[4], reps),
		       d[0][ST_TABLES], d[0][ST_BYTES], d[0][ST_ROWS], d[0][ST_CONVERTED],
		       d[0][ST_STOPS],
		       d[1][ST_CONVERTED], d[2][ST_TABLES], d[2][ST_SHARED]);
		fflush(stdout);
	}
	if (sysctl_set(SYS_SFRAME, old_s) || sysctl_set(SYS_EH, old_e)) {
		printf("FAILED: ehmap: cannot restore the sysctls\n");
		status = 1;
	}
	return status;
}

static int do_sections(char **files, int nfiles, long pg)
{
	int status = 0, f, fd;
	struct elfinfo e;
	struct stat st;

	for (f = 0; f < nfiles; f++) {
		fd = open(files[f], O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st)) {
			printf("ehsec file=%s error=%s\n", files[f],
			       fd < 0 ? "cannot-open" : "cannot-stat");
			status = 1;
		} else if (elf_info(fd, pg, &e)) {
			printf("ehsec file=%s error=not-an-elf64-file-with-text\n", files[f]);
			status = 1;
		} else {
			printf("ehsec file=%s size=%lld sframe=%llu eh_frame=%llu "
			       "eh_frame_hdr=%llu fdes=%ld\n", files[f],
			       (long long)st.st_size, (unsigned long long)e.sframe,
			       (unsigned long long)e.eh, (unsigned long long)e.eh_hdr,
			       e.fdes);
		}
		if (fd >= 0)
			close(fd);
	}
	return status;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int do_watch(long ms)
{
	static const int w[] = { ST_TABLES, ST_BYTES, ST_KEPT, ST_KEPT_BYTES };
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	long v[ST_NR], first[4], max[4], sum, sum_max, polls = 0;
	struct sigaction sa;
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	stats_read(v);
	for (i = 0; i < 4; i++)
		first[i] = max[i] = v[w[i]];
	sum_max = v[ST_BYTES] + v[ST_KEPT_BYTES];
	while (!stop) {
		nanosleep(&ts, NULL);
		stats_read(v);
		polls++;
		for (i = 0; i < 4; i++)
			if (v[w[i]] > max[i])
				max[i] = v[w[i]];
		sum = v[ST_BYTES] + v[ST_KEPT_BYTES];
		if (sum > sum_max)
			sum_max = sum;
	}
	stats_read(v);
	printf("ehwatch polls=%ld tables_first=%ld tables_max=%ld tables_last=%ld "
	       "bytes_first=%ld bytes_max=%ld bytes_last=%ld kept_first=%ld "
	       "kept_max=%ld kept_last=%ld kept_bytes_first=%ld kept_bytes_max=%ld "
	       "kept_bytes_last=%ld sum_max=%ld\n", polls,
	       first[0], max[0], v[ST_TABLES], first[1], max[1], v[ST_BYTES],
	       first[2], max[2], v[ST_KEPT], first[3], max[3], v[ST_KEPT_BYTES],
	       sum_max);
	return 0;
}

int main(int argc, char **argv)
{
	long pg = sysconf(_SC_PAGESIZE);

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 3 && !strcmp(argv[1], "sections"))
		return do_sections(argv + 2, argc - 2, pg);
	stats_fd = open(STATS, O_RDONLY | O_CLOEXEC);
	if (stats_fd < 0) {
		printf("FAILED: ehmap: %s: %s (debugfs mounted?)\n", STATS, strerror(errno));
		return 1;
	}
	if (argc == 3 && !strcmp(argv[1], "watch") && atol(argv[2]) > 0)
		return do_watch(atol(argv[2]));
	if (argc >= 4 && !strcmp(argv[1], "map")) {
		struct perf_event_attr attr;
		int reps = atoi(argv[2]);

		if (reps < 1 || reps > MAX_REPS)
			goto usage;
		/* a collector of call chains: mappings register their tables */
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_CPU_CLOCK;
		attr.sample_period = 1000000;
		attr.sample_type = PERF_SAMPLE_CALLCHAIN;
		attr.disabled = 1;
		attr.exclude_kernel = 1;
		if (syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0) < 0) {
			printf("FAILED: ehmap: perf_event_open: %s\n", strerror(errno));
			return 1;
		}
		return do_map(reps, argv + 3, argc - 3, pg);
	}
usage:
	fprintf(stderr, "usage: ehmap map REPS FILE... | ehmap watch MS | "
		"ehmap sections FILE...\n");
	return 2;
}
