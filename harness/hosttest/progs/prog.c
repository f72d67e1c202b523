// SPDX-License-Identifier: GPL-2.0
/*
 * Test program for the SFrame host tests: built with -Wa,--gsframe at several
 * optimisation levels; only its .sframe section is used. The functions
 * exercise the CFA rules gas emits: recursion, alloca and a variable-length
 * array (CFA based on the frame pointer), a big switch (jump table), calls
 * through the PLT, a function with many callee-saved registers.
 */
#include <alloca.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib.h"

volatile int sink;

__attribute__((noinline)) long fib(long n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) int ackermann(int m, int n)
{
	if (!m)
		return n + 1;
	if (!n)
		return ackermann(m - 1, 1);
	return ackermann(m - 1, ackermann(m, n - 1));
}

__attribute__((noinline)) int with_vla(int n)
{
	char buf[n];
	int i, s = 0;

	memset(buf, n & 0x7f, n);
	for (i = 0; i < n; i++)
		s += buf[i] * (i + 1);
	return s;
}

__attribute__((noinline)) int with_alloca(int n)
{
	int *p = alloca(n * sizeof(*p));
	int i, s = 0;

	for (i = 0; i < n; i++)
		p[i] = i * n;
	for (i = 0; i < n; i++)
		s ^= p[i] + sink;
	return s;
}

__attribute__((noinline)) int big_switch(int x)
{
	switch (x) {
	case 0: return fib(3);
	case 1: return with_vla(x + 10) + 1;
	case 2: return with_alloca(x + 5) * 3;
	case 3: return ackermann(1, x);
	case 4: return x * x * x;
	case 5: return puts("five");
	case 6: return (int)strlen("six") + x;
	case 7: return abs(x - 100);
	case 8: return big_switch(x - 3) + 8;
	case 9: return sink + 9;
	case 10: return printf("%d\n", x);
	case 11: return x << 11;
	case 12: return big_switch(0) * 12;
	case 13: return rand() & 13;
	case 14: return x ^ 0x1414;
	case 15: return with_vla(15);
	case 16: return with_alloca(16);
	case 17: return (int)fib(17 % 7);
	case 18: return x / 3 + 18;
	case 19: return ackermann(2, 1) + 19;
	default: return -1;
	}
}

/* Many live values across calls: pushes of callee-saved registers. */
__attribute__((noinline)) long many_regs(long a, long b, long c, long d)
{
	long e = a * b, f = c * d, g = a + d, h = b - c, i = a ^ c, j = b | d;

	sink = (int)fib(a & 3);
	e += fib(b & 3);
	f -= with_vla((int)(c & 15) + 1);
	sink = (int)(g + h + i + j);
	return e * f + g * h + i * j + ackermann(1, (int)(d & 3));
}

static int cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) int callback(int n)
{
	int v[32], i;

	for (i = 0; i < 32; i++)
		v[i] = (i * 7919 + n) % 101;
	qsort(v, 32, sizeof(v[0]), cmp);
	return v[n & 31];
}

int main(int argc, char **argv)
{
	long r = 0;
	int i;

	(void)argv;
	for (i = 0; i < 21; i++)
		r += big_switch(i + argc - 1);
	r += many_regs(argc, 2, 3, 4) + callback(argc);
	r += lib_work(argc + 3);
	printf("%ld\n", r);
	return 0;
}
