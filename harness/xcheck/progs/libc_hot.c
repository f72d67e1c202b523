// SPDX-License-Identifier: GPL-2.0
/*
 * Hot paths through the C library, which has no SFrame data: memcpy(),
 * strlen(), malloc()/free(), a qsort() callback in the program, snprintf(),
 * and an assembly routine with CFI but no SFrame data (xc_asm_sum, in
 * libc_hot_asm.S, assembled without --gsframe). Each runs under its own
 * chain main -> run -> work_X.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xc_common.h"

#define BUF (32 << 10)

static char src[BUF], dst[BUF];
static long ints[BUF / sizeof(long)];
size_t len = BUF;

long xc_asm_sum(const long *v, size_t n);

FRAME static int work_memcpy(void)
{
	for (int i = 0; i < 8; i++)
		memcpy(dst, src, len);
	return dst[len / 2];
}

FRAME static int work_strlen(void)
{
	size_t n = 0;

	for (int i = 0; i < 8; i++)
		n += strlen(src);
	return (int)n;
}

FRAME static int work_malloc(void)
{
	void *p[64];
	int r = 0;

	for (int i = 0; i < 64; i++)
		p[i] = malloc(16 + i * 24);
	for (int i = 0; i < 64; i++) {
		r += p[i] != NULL;
		free(p[i]);
	}
	return r;
}

FRAME static int cmp(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

FRAME static int work_qsort(void)
{
	long v[256];

	for (int i = 0; i < 256; i++)
		v[i] = (i * 7919L) % 256;
	qsort(v, 256, sizeof(v[0]), cmp);
	return (int)v[7];
}

FRAME static int work_printf(void)
{
	char buf[256];
	int n = 0;

	for (int i = 0; i < 16; i++)
		n += snprintf(buf, sizeof(buf), "%d %s %.3f %lx", i, "word",
			      i * 1.5, (unsigned long)i * 7919);
	return n;
}

FRAME static int work_asm(void)
{
	return (int)xc_asm_sum(ints, BUF / sizeof(long));
}

FRAME static int run(double end)
{
	int r = 0;

	while (xc_now() < end) {
		r += work_memcpy();
		r += work_strlen();
		r += work_malloc();
		r += work_qsort();
		r += work_printf();
		r += work_asm();
	}
	return r;
}

int main(int argc, char **argv)
{
	memset(src, 'x', BUF - 1);
	for (size_t i = 0; i < BUF / sizeof(long); i++)
		ints[i] = i;
	return run(xc_now() + xc_seconds(argc, argv)) == 42;
}
