// SPDX-License-Identifier: GPL-2.0
/*
 * Workload of the perf.data comparison: main -> w1 -> ... -> wDEPTH,
 * spinning in wDEPTH for N iterations (DEPTH 16 unless given, at most
 * 128). Prints its own run time (CLOCK_MONOTONIC); with DEPTH given, also
 * its thread's CPU time over the same loop (CLOCK_THREAD_CPUTIME_ID: the
 * interrupts that hit the task and the work on its return to user space
 * included, other tasks not) and the depth.
 *
 *   perfwl N [DEPTH]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOI __attribute__((noinline, noclone))
#define BARRIER() __asm__ __volatile__("" ::: "memory")
#define MAX_DEPTH 128

static volatile unsigned long sink;

/*
 * The spinning function keeps a local array on its stack: a real frame,
 * so that the frame-pointer build has a frame pointer in it whichever
 * function spins.
 */
static inline __attribute__((always_inline)) void spin(unsigned long n)
{
	char frame[16];
	unsigned long i;

	for (i = 0; i < n; i++) {
		sink += i;
		__asm__ __volatile__("" : : "r"(frame) : "memory");
	}
}

/* w128 always spins; wI spins when it is at depth D, or calls wI+1. */
NOI void w128(unsigned long n, unsigned long d)
{
	(void)d;
	spin(n);
}

#define W(i, j) NOI void w##i(unsigned long n, unsigned long d) \
	{ if (d == i) spin(n); else w##j(n, d); BARRIER(); }
W(127, 128) W(126, 127) W(125, 126) W(124, 125) W(123, 124) W(122, 123) W(121, 122) W(120, 121)
W(119, 120) W(118, 119) W(117, 118) W(116, 117) W(115, 116) W(114, 115) W(113, 114) W(112, 113)
W(111, 112) W(110, 111) W(109, 110) W(108, 109) W(107, 108) W(106, 107) W(105, 106) W(104, 105)
W(103, 104) W(102, 103) W(101, 102) W(100, 101) W(99, 100) W(98, 99) W(97, 98) W(96, 97)
W(95, 96) W(94, 95) W(93, 94) W(92, 93) W(91, 92) W(90, 91) W(89, 90) W(88, 89)
W(87, 88) W(86, 87) W(85, 86) W(84, 85) W(83, 84) W(82, 83) W(81, 82) W(80, 81)
W(79, 80) W(78, 79) W(77, 78) W(76, 77) W(75, 76) W(74, 75) W(73, 74) W(72, 73)
W(71, 72) W(70, 71) W(69, 70) W(68, 69) W(67, 68) W(66, 67) W(65, 66) W(64, 65)
W(63, 64) W(62, 63) W(61, 62) W(60, 61) W(59, 60) W(58, 59) W(57, 58) W(56, 57)
W(55, 56) W(54, 55) W(53, 54) W(52, 53) W(51, 52) W(50, 51) W(49, 50) W(48, 49)
W(47, 48) W(46, 47) W(45, 46) W(44, 45) W(43, 44) W(42, 43) W(41, 42) W(40, 41)
W(39, 40) W(38, 39) W(37, 38) W(36, 37) W(35, 36) W(34, 35) W(33, 34) W(32, 33)
W(31, 32) W(30, 31) W(29, 30) W(28, 29) W(27, 28) W(26, 27) W(25, 26) W(24, 25)
W(23, 24) W(22, 23) W(21, 22) W(20, 21) W(19, 20) W(18, 19) W(17, 18) W(16, 17)
W(15, 16) W(14, 15) W(13, 14) W(12, 13) W(11, 12) W(10, 11) W(9, 10) W(8, 9)
W(7, 8) W(6, 7) W(5, 6) W(4, 5) W(3, 4) W(2, 3) W(1, 2)

static long long ns(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
	long long t0, t1, c0, c1;
	unsigned long n, d = 16;
	char *end;

	if (argc < 2 || argc > 3 || !(n = strtoul(argv[1], &end, 10)) || *end ||
	    (argc == 3 && (!(d = strtoul(argv[2], &end, 10)) || *end || d > MAX_DEPTH))) {
		fprintf(stderr, "usage: perfwl ITERATIONS [DEPTH (1..%d, default 16)]\n",
			MAX_DEPTH);
		return 2;
	}
	c0 = ns(CLOCK_THREAD_CPUTIME_ID);
	t0 = ns(CLOCK_MONOTONIC);
	w1(n, d);
	t1 = ns(CLOCK_MONOTONIC);
	c1 = ns(CLOCK_THREAD_CPUTIME_ID);
	if (argc == 3)
		printf("perfwl ns=%lld cpu_ns=%lld depth=%lu\n", t1 - t0, c1 - c0, d);
	else
		printf("perfwl ns=%lld\n", t1 - t0);
	return 0;
}
