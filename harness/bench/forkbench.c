// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of fork() (and the child's exit) in a process with many
 * registered SFrame sections, against as many mappings without SFrame.
 *
 *   forkbench LIB MAPPINGS FORKS
 *
 * Opens a perf event that takes call chains (so that mappings register
 * their sections), maps LIB's executable segment MAPPINGS times, each a
 * mapping of its own, then times FORKS fork()s whose child exits at once,
 * each waited for. Prints
 *   forkbench lib=NAME mappings=N forks=F ns_per_fork=X
 * In a guest booted with -icount, a nanosecond is an instruction.
 */
#include <elf.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr;
	long pg = sysconf(_SC_PAGESIZE), n, forks, i;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	off_t off = -1;
	size_t len = 0, slot;
	uint64_t t0, t1;
	char *area;
	int fd, ev;

	if (argc != 4 || (n = atol(argv[2])) < 1 || (forks = atol(argv[3])) < 1) {
		fprintf(stderr, "usage: forkbench LIB MAPPINGS FORKS\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh)) {
		perror(argv[1]);
		return 2;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) !=
		    sizeof(ph))
			break;
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			off = ph.p_offset & ~(pg - 1);
			len = ph.p_offset + ph.p_filesz - off;
			break;
		}
	}
	if (off < 0) {
		fprintf(stderr, "%s: no executable segment\n", argv[1]);
		return 2;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.sample_type = PERF_SAMPLE_CALLCHAIN;
	ev = syscall(__NR_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (ev < 0) {
		perror("perf_event_open");
		return 2;
	}
	/* a page of gap after each mapping: no two of them merge */
	slot = (len + pg - 1) / pg * pg + pg;
	area = mmap(NULL, slot * n, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (area == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	for (i = 0; i < n; i++) {
		if (mmap(area + i * slot, len, PROT_READ | PROT_EXEC,
			 MAP_PRIVATE | MAP_FIXED, fd, off) == MAP_FAILED) {
			perror("mmap text");
			return 2;
		}
	}
	t0 = now_ns();
	for (i = 0; i < forks; i++) {
		pid_t pid = fork();

		if (!pid)
			_exit(0);
		if (pid < 0 || waitpid(pid, NULL, 0) != pid) {
			perror("fork");
			return 2;
		}
	}
	t1 = now_ns();
	printf("forkbench lib=%s mappings=%ld forks=%ld ns_per_fork=%llu\n",
	       strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1],
	       n, forks, (unsigned long long)((t1 - t0) / forks));
	close(ev);
	return 0;
}
