// SPDX-License-Identifier: GPL-2.0
/*
 * Demo and test workload for user-space stack unwinding:
 * main -> a -> b -> c, with the time spent in a busy loop in c.
 *
 * Built with -O2 -fomit-frame-pointer -Wa,--gsframe: no frame pointers, so
 * a frame-pointer walk cannot find b, a and main; the .sframe section can.
 *
 * Usage: demo [SECONDS]   (default 2; wall-clock time, so it also takes
 * about that long under QEMU/TCG)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/*
 * noipa: no inlining, cloning or inter-procedural shortcuts. Each caller
 * uses the callee's result after the call, so no call becomes a tail call
 * (a tail call would remove the caller from the stack).
 */
#define FRAME __attribute__((noipa))

static volatile unsigned long sink;

FRAME unsigned long c(unsigned long n)
{
	unsigned long x = n;

	for (unsigned long i = 0; i < 200000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
	return x;
}

FRAME unsigned long b(unsigned long n)
{
	return c(n + 1) ^ n;
}

FRAME unsigned long a(unsigned long n)
{
	return b(n + 2) + 3 * n;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2.0;
	double end = now() + seconds;
	unsigned long total = 0, calls = 0;

	while (now() < end) {
		total += a(calls);
		calls++;
	}
	printf("demo: %lu calls of a() in %.1f s (checksum %lx)\n", calls, seconds, total);
	return 0;
}
