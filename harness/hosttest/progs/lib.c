// SPDX-License-Identifier: GPL-2.0
/* Shared library (or object linked in) for the SFrame host tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib.h"

static int depth(int n, char *acc)
{
	char local[64];

	if (!n)
		return (int)strlen(acc);
	snprintf(local, sizeof(local), "%s%d", acc, n % 10);
	return depth(n - 1, local) + 1;
}

__attribute__((noinline)) static long mix(long a, long b)
{
	long *buf = malloc(sizeof(*buf) * (size_t)(a + b + 1));
	long i, s = 0;

	if (!buf)
		return -1;
	for (i = 0; i <= a + b; i++)
		buf[i] = i * a - b;
	for (i = 0; i <= a + b; i++)
		s += buf[i];
	free(buf);
	return s;
}

int lib_work(int n)
{
	char acc[64] = "";

	return depth(n % 20, acc) + (int)mix(n, n + 1);
}
