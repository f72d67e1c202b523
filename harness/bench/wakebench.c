// SPDX-License-Identifier: GPL-2.0
/*
 * How late a sleeping task wakes up while another one has a large, valid
 * but adversarial SFrame section validated and decoded.
 *
 *   wakebench ROUNDS [FILE...]
 *
 * Each round writes a new file (nobody else maps it, so its table is
 * built anew) whose section has 512 functions of 8,192 rows each, all
 * sharing one block of rows (4,194,304 rows, the header claiming as many:
 * the largest valid section of this shape), and maps its text with a
 * collector open, while a child sleeps 1 ms at a time and records how much
 * later than asked it woke up. The same child runs as long without the
 * mapping first. Prints
 *   wakebench rows=R map_ms=M max_late_ms=L idle_max_late_ms=I
 * (M and L: the worst round).
 *
 * With FILEs (harness/safety/mkelf.py's hostile.so and valid.so: a
 * .eh_frame of overlapping records, and a valid one of the same size),
 * the same for each FILE: ROUNDS times a fresh copy of it (no table kept
 * for it) has its executable segment mapped, the sleeper running as
 * another user (uid 1001, where the guest has it). Prints
 *   wakebench file=NAME map_ms=M max_late_ms=L idle_max_late_ms=I
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
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FDES	512
#define ROWS	8192

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* A child that sleeps 1 ms at a time and sends its worst lateness. */
static pid_t sleeper(int wfd)
{
	pid_t pid = fork();
	double worst = 0, t, late;
	struct timespec d = { 0, 1000000 };

	if (pid)
		return pid;
	/* another user's task (root may become any uid) */
	if (!getuid() && (setresgid(1001, 1001, 1001) ||
			  setresuid(1001, 1001, 1001)))
		_exit(1);
	for (;;) {
		t = now_ms();
		nanosleep(&d, NULL);
		late = now_ms() - t - 1;
		if (late > worst) {
			worst = late;
			if (write(wfd, &worst, sizeof(worst)) != sizeof(worst))
				_exit(1);
		}
	}
}

/* The worst lateness the sleeper sent, after stopping it. */
static double stop(pid_t pid, int rfd)
{
	double v, worst = 0;

	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	while (read(rfd, &v, sizeof(v)) == sizeof(v))
		worst = v;
	return worst;
}

/* The file: headers, the section at 4096, then FDES * ROWS bytes of text. */
static int make_file(size_t *size)
{
	const size_t fdes_len = FDES * 20, block = ROWS * 3;
	const uint32_t num_fres = FDES * ROWS, fre_len = 2 * num_fres;
	size_t sec_len = 28 + fdes_len + fre_len, text_off, i;
	unsigned char *s = calloc(1, 28 + fdes_len + block);
	char path[] = "/tmp/wakebench.XXXXXX";
	Elf64_Ehdr eh = { 0 };
	Elf64_Phdr ph[2] = { { 0 } };
	uint32_t v[5] = { FDES, num_fres, fre_len, 0, fdes_len };
	int fd;

	text_off = (4096 + sec_len + 4095) & ~(size_t)4095;
	*size = text_off + (size_t)FDES * ROWS;
	s[0] = 0xe2;
	s[1] = 0xde;
	s[2] = 2;
	s[3] = 1;
#ifdef __aarch64__
	s[4] = 2;
#else
	s[4] = 3;
	s[6] = (unsigned char)-8;
#endif
	memcpy(s + 8, v, sizeof(v));
	for (i = 0; i < FDES; i++) {
		unsigned char *f = s + 28 + i * 20;
		int32_t start = text_off - 4096 + i * ROWS;
		uint32_t fsize = ROWS, fres_off = 0, fres_num = ROWS;

		memcpy(f, &start, 4);
		memcpy(f + 4, &fsize, 4);
		memcpy(f + 8, &fres_off, 4);
		memcpy(f + 12, &fres_num, 4);
		f[16] = 1;	/* 2-byte row starts */
	}
	for (i = 0; i < ROWS; i++) {
		uint16_t start = i;

		memcpy(s + 28 + fdes_len + i * 3, &start, 2);
		s[28 + fdes_len + i * 3 + 2] = 0;	/* outermost */
	}
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_DYN;
#ifdef __aarch64__
	eh.e_machine = EM_AARCH64;
#else
	eh.e_machine = EM_X86_64;
#endif
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(eh);
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(ph[0]);
	eh.e_phnum = 2;
	ph[0].p_type = PT_LOAD;
	ph[0].p_flags = PF_R | PF_X;
	ph[0].p_filesz = ph[0].p_memsz = *size;
	ph[0].p_align = 4096;
	ph[1].p_type = 0x6474e554;	/* PT_GNU_SFRAME */
	ph[1].p_flags = PF_R;
	ph[1].p_offset = ph[1].p_vaddr = 4096;
	ph[1].p_filesz = ph[1].p_memsz = sec_len;
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	unlink(path);
	if (pwrite(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    pwrite(fd, ph, sizeof(ph), sizeof(eh)) != sizeof(ph) ||
	    pwrite(fd, s, 28 + fdes_len + block, 4096) !=
	    (ssize_t)(28 + fdes_len + block) || ftruncate(fd, *size)) {
		close(fd);
		fd = -1;
	}
	free(s);
	return fd;
}

/*
 * One round: map [@off, @off + @len) of @fd executable while the sleeper
 * runs, then close @fd; raise *@map_ms and *@late to this round's mmap
 * time and worst lateness. Returns the mmap's errno, or 0.
 */
static int round_map(int fd, off_t off, size_t len, int p[2],
		     double *map_ms, double *late)
{
	pid_t pid = sleeper(p[1]);
	double t, ms, l;
	void *m;
	int err;

	usleep(20000);
	t = now_ms();
	m = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, off);
	ms = now_ms() - t;
	err = m == MAP_FAILED ? errno : 0;
	usleep(20000);
	l = stop(pid, p[0]);
	if (!err)
		munmap(m, len);
	close(fd);
	if (ms > *map_ms)
		*map_ms = ms;
	if (l > *late)
		*late = l;
	return err;
}

/* The sleeper's worst lateness as long as the mappings took, no mapping. */
static double idle_late(double map_ms, int p[2])
{
	pid_t pid = sleeper(p[1]);

	usleep((useconds_t)(map_ms * 1000) + 40000);
	return stop(pid, p[0]);
}

/*
 * A fresh copy of @path in /tmp (no table kept for it): *@off and *@len
 * are set to its executable segment, page-aligned.
 */
static int copy_file(const char *path, off_t *off, size_t *len)
{
	char tmp[] = "/tmp/wakebench-file.XXXXXX", buf[65536];
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	ssize_t n;
	int in, fd, i;

	in = open(path, O_RDONLY);
	fd = mkstemp(tmp);
	if (in < 0 || fd < 0)
		return -1;
	unlink(tmp);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, n) != n)
			return -1;
	close(in);
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		return -1;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) !=
		    sizeof(ph))
			return -1;
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			*off = ph.p_offset & ~(off_t)4095;
			*len = ph.p_filesz + (ph.p_offset & 4095);
			return fd;
		}
	}
	return -1;
}

/* wakebench ROUNDS FILE...: see the top of this file. */
static int files(int rounds, int nfiles, char **paths, int p[2])
{
	double map_ms, late, idle;
	const char *name;
	int f, r, fd;
	size_t len;
	off_t off;

	for (f = 0; f < nfiles; f++) {
		map_ms = late = 0;
		for (r = 0; r < rounds; r++) {
			fd = copy_file(paths[f], &off, &len);
			if (fd < 0) {
				perror(paths[f]);
				return 2;
			}
			/* a refused table is no failed mmap */
			round_map(fd, off, len, p, &map_ms, &late);
		}
		idle = idle_late(map_ms, p);
		name = strrchr(paths[f], '/') ? strrchr(paths[f], '/') + 1 :
		       paths[f];
		printf("wakebench file=%s map_ms=%.1f max_late_ms=%.1f idle_max_late_ms=%.1f\n",
		       name, map_ms, late, idle);
		fflush(stdout);
	}
	return 0;
}

int main(int argc, char **argv)
{
	double map_ms = 0, late = 0, idle;
	struct perf_event_attr attr;
	int rounds, r, p[2], ev, fd;
	size_t size;

	if (argc < 2 || (rounds = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: wakebench ROUNDS [FILE...]\n");
		return 2;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.sample_type = PERF_SAMPLE_CALLCHAIN;
	ev = syscall(__NR_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (ev < 0 || pipe(p) || fcntl(p[0], F_SETFL, O_NONBLOCK)) {
		perror("wakebench");
		return 2;
	}
	if (argc > 2)
		return files(rounds, argc - 2, argv + 2, p);
	for (r = 0; r < rounds; r++) {
		fd = make_file(&size);
		if (fd < 0) {
			perror("file");
			return 2;
		}
		errno = round_map(fd, 0, size, p, &map_ms, &late);
		if (errno) {
			perror("mmap");
			return 2;
		}
	}
	/* the same time without the mapping */
	idle = idle_late(map_ms, p);
	printf("wakebench rows=%d map_ms=%.1f max_late_ms=%.1f idle_max_late_ms=%.1f\n",
	       FDES * ROWS, map_ms, late, idle);
	close(ev);
	return 0;
}
