// SPDX-License-Identifier: GPL-2.0
/*
 * What SFrame discovery and the .eh_frame conversion add to execve() and
 * dlopen():
 *   execloop [-H] exec N PROG    fork + execve PROG (with the argument
 *                                "nop") and wait, N times
 *   execloop [-H] dlopen N LIB   dlopen(RTLD_NOW) + dlclose, N times
 *   execloop nop                 exit at once (the program exec'd above)
 * prints "execloop op=exec|dlopen n=N ns=... file=... hold=0|1"
 * (CLOCK_MONOTONIC).
 *
 * It holds a (disabled) perf event that samples user call chains, as a
 * profiler would: the kernel then looks for SFrame sections (and, without
 * one, converts .eh_frame) at every executable mmap while
 * kernel.unwind_user_sframe is 1. A table lives while a mapping of its
 * file does: without -H, nothing else maps execloop's C library and
 * ld.so, so every child converts theirs again. -H maps, before the loop,
 * every executable file mapping execloop has (itself, ld.so, the C
 * library) once more, with the event open: their tables exist for the
 * whole loop and the children share them, as they would while a sampled
 * long-lived process (the profiler, a shell) maps the same files.
 */
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/*
 * Map the executable file mappings of this process once more (-H): with
 * the collector open, each registers its file's table, held until exit.
 */
static int hold_own_text(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512], path[400], perms[8];
	unsigned long lo, hi, off;
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		int fd;

		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %399s", &lo, &hi, perms,
			   &off, path) != 5 || perms[2] != 'x' || path[0] != '/')
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || mmap(NULL, hi - lo, PROT_READ | PROT_EXEC, MAP_PRIVATE,
				   fd, off) == MAP_FAILED) {
			perror(path);
			fclose(f);
			return -1;
		}
		close(fd);
		n++;
	}
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	long long t0;
	int i, n, st, hold = 0;
	pid_t pid;
	void *h;

	if (argc == 2 && !strcmp(argv[1], "nop"))
		return 0;
	if (argc == 5 && !strcmp(argv[1], "-H")) {
		hold = 1;
		argc--;
		argv++;
	}
	if (argc != 4 || (n = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: execloop [-H] exec|dlopen N FILE | execloop nop\n");
		return 2;
	}
	{
		struct perf_event_attr attr = {
			.size = sizeof(attr),
			.type = PERF_TYPE_SOFTWARE,
			.config = PERF_COUNT_SW_CPU_CLOCK,
			.sample_period = 1000000,
			.sample_type = PERF_SAMPLE_CALLCHAIN,
			.disabled = 1,
			.exclude_kernel = 1,
		};

		if (syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0) < 0) {
			perror("execloop: perf_event_open");
			return 1;
		}
	}
	if (hold && hold_own_text() <= 0) {
		fprintf(stderr, "execloop: -H: no executable file mapping held\n");
		return 1;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		if (!strcmp(argv[1], "exec")) {
			pid = fork();
			if (pid < 0)
				return 1;
			if (!pid) {
				execl(argv[3], argv[3], "nop", (char *)NULL);
				_exit(127);
			}
			if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
			    WEXITSTATUS(st)) {
				fprintf(stderr, "execloop: %s failed\n", argv[3]);
				return 1;
			}
		} else if (!strcmp(argv[1], "dlopen")) {
			h = dlopen(argv[3], RTLD_NOW | RTLD_LOCAL);
			if (!h) {
				fprintf(stderr, "execloop: %s\n", dlerror());
				return 1;
			}
			dlclose(h);
		} else {
			return 2;
		}
	}
	printf("execloop op=%s n=%d ns=%lld file=%s hold=%d\n", argv[1], n,
	       now_ns() - t0, argv[3], hold);
	return 0;
}
