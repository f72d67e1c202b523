// SPDX-License-Identifier: GPL-2.0
/*
 * deep test program: main -> walk -> rec -> rec -> ... -> leaf, with a
 * recursion depth that cycles from 1 to 240, so that some chains are longer
 * than the kernel's perf_event_max_stack (127 by default) and some stacks
 * are larger than the 16 KiB the recorder copies. Built with -Wa,--gsframe
 * and without frame pointers.
 *
 * Usage: deep [SECONDS]   (default 1.5)
 */
#include <stdio.h>

#include "xc_common.h"

static volatile unsigned long sink;

FRAME unsigned long leaf(unsigned long n)
{
	unsigned long x = n;

	for (unsigned long i = 0; i < 20000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
	return x;
}

/* About 64 bytes of stack per level. */
FRAME unsigned long rec(unsigned long depth, unsigned long n)
{
	volatile unsigned long pad[4] = { n, depth, n ^ depth, 0 };

	if (!depth)
		return leaf(n);
	return rec(depth - 1, n + 1) + pad[2];
}

FRAME unsigned long walk(unsigned long i)
{
	return rec(1 + i % 240, i) ^ i;
}

int main(int argc, char **argv)
{
	double end = xc_now() + xc_seconds(argc, argv);
	unsigned long total = 0, i = 0;

	while (xc_now() < end)
		total += walk(i++);
	printf("deep: %lu walks (checksum %lx)\n", i, total);
	return 0;
}
