// SPDX-License-Identifier: GPL-2.0
/*
 * What SFrame discovery adds to execve() and dlopen():
 *   execloop exec N PROG     fork + execve PROG (with the argument "nop")
 *                            and wait, N times
 *   execloop dlopen N LIB    dlopen(RTLD_NOW) + dlclose, N times
 *   execloop nop             exit at once (the program exec'd above)
 * prints "execloop op=exec|dlopen n=N ns=... file=..." (CLOCK_MONOTONIC).
 *
 * It holds a (disabled) perf event that samples user call chains, as a
 * profiler would: the kernel then looks for SFrame sections at every
 * executable mmap while kernel.unwind_user_sframe is 1.
 */
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <dlfcn.h>
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

int main(int argc, char **argv)
{
	long long t0;
	int i, n, st;
	pid_t pid;
	void *h;

	if (argc == 2 && !strcmp(argv[1], "nop"))
		return 0;
	if (argc != 4 || (n = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: execloop exec|dlopen N FILE | execloop nop\n");
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
	printf("execloop op=%s n=%d ns=%lld file=%s\n", argv[1], n,
	       now_ns() - t0, argv[3]);
	return 0;
}
