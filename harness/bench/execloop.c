// SPDX-License-Identifier: GPL-2.0
/*
 * What SFrame discovery and the .eh_frame conversion add to execve() and
 * dlopen():
 *   execloop [-D] exec N PROG [ARG...]
 *                                fork + execve PROG (with the arguments
 *                                ARG..., or "nop" without any) and wait,
 *                                N times; PROG must exit with status 0
 *   execloop [-D] dlopen N LIB   dlopen(RTLD_NOW) + dlclose, N times
 *   execloop nop                 exit at once (the program exec'd above)
 * prints "execloop op=exec|dlopen n=N ns=... median_ns=... file=...
 * drop=0|1": the operations' total and median time (CLOCK_MONOTONIC, each
 * operation timed on its own).
 *
 * It holds a (disabled) perf event that samples user call chains, as a
 * profiler would: the kernel then looks for SFrame sections (and, without
 * one, converts .eh_frame) at every executable mmap while
 * kernel.unwind_user_sframe is 1. A file's table is shared while a
 * mapping of the file exists, and the kernel may keep it after the last
 * one goes, for the next. -D writes 2 to /proc/sys/vm/drop_caches before
 * each operation (untimed): the shrinkers free the tables kept, and each
 * operation builds the tables of the files it maps that no other mapping
 * holds (the program, ld.so, the C library, the library).
 */
#include <linux/perf_event.h>
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

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static int drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, "2\n", 2) == 2;
	close(fd);
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	long long t0, total = 0, *t;
	int i, n, st, drop = 0;
	pid_t pid;
	void *h;

	if (argc == 2 && !strcmp(argv[1], "nop"))
		return 0;
	if (argc >= 5 && !strcmp(argv[1], "-D")) {
		drop = 1;
		argc--;
		argv++;
	}
	if (argc < 4 || (n = atoi(argv[2])) <= 0 ||
	    (strcmp(argv[1], "exec") && (strcmp(argv[1], "dlopen") || argc != 4))) {
		fprintf(stderr, "usage: execloop [-D] exec N PROG [ARG...] | "
			"execloop [-D] dlopen N LIB | execloop nop\n");
		return 2;
	}
	t = calloc(n, sizeof(*t));
	if (!t)
		return 1;
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
	for (i = 0; i < n; i++) {
		if (drop && drop_caches()) {
			perror("execloop: /proc/sys/vm/drop_caches");
			return 1;
		}
		t0 = now_ns();
		if (!strcmp(argv[1], "exec")) {
			pid = fork();
			if (pid < 0)
				return 1;
			if (!pid) {
				if (argc > 4)
					execv(argv[3], argv + 3);
				else
					execl(argv[3], argv[3], "nop", (char *)NULL);
				_exit(127);
			}
			if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
			    WEXITSTATUS(st)) {
				fprintf(stderr, "execloop: %s failed\n", argv[3]);
				return 1;
			}
		} else {
			h = dlopen(argv[3], RTLD_NOW | RTLD_LOCAL);
			if (!h) {
				fprintf(stderr, "execloop: %s\n", dlerror());
				return 1;
			}
			dlclose(h);
		}
		t[i] = now_ns() - t0;
		total += t[i];
	}
	qsort(t, n, sizeof(*t), cmp_ll);
	printf("execloop op=%s n=%d ns=%lld median_ns=%lld file=%s drop=%d\n",
	       argv[1], n, total, n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2,
	       argv[3], drop);
	return 0;
}
