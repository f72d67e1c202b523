// SPDX-License-Identifier: GPL-2.0
/*
 * Workload of the perf.data comparison: main -> w1 -> ... -> w16, spinning
 * in w16 for N iterations. Prints its own run time (CLOCK_MONOTONIC).
 *
 *   perfwl N
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOI __attribute__((noinline, noclone))
#define BARRIER() __asm__ __volatile__("" ::: "memory")

static volatile unsigned long sink;

/*
 * The leaf keeps a local array on its stack: a real frame, so that
 * -mno-omit-leaf-frame-pointer gives it a frame pointer as well.
 */
NOI void w16(unsigned long n)
{
	char frame[16];
	unsigned long i;

	for (i = 0; i < n; i++) {
		sink += i;
		__asm__ __volatile__("" : : "r"(frame) : "memory");
	}
}

#define W(f, g) NOI void f(unsigned long n) { g(n); BARRIER(); }
W(w15, w16) W(w14, w15) W(w13, w14) W(w12, w13) W(w11, w12) W(w10, w11)
W(w9, w10) W(w8, w9) W(w7, w8) W(w6, w7) W(w5, w6) W(w4, w5) W(w3, w4)
W(w2, w3) W(w1, w2)

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	char *end;
	unsigned long n;

	if (argc != 2 || !(n = strtoul(argv[1], &end, 10)) || *end) {
		fprintf(stderr, "usage: perfwl ITERATIONS\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	w1(n);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("perfwl ns=%lld\n", (t1.tv_sec - t0.tv_sec) * 1000000000LL +
	       (t1.tv_nsec - t0.tv_nsec));
	return 0;
}
