// SPDX-License-Identifier: GPL-2.0
/*
 * threads test program: 4 threads, each t_top -> t_mid -> t_leaf, plus
 * the main thread in main -> m_leaf; built with -Wa,--gsframe and without
 * frame pointers.
 *
 * Usage: threads [SECONDS]   (default 1.5)
 */
#include <pthread.h>
#include <stdio.h>

#include "xc_common.h"

#define NR_THREADS 4

static volatile unsigned long sink;
static double end;

FRAME unsigned long t_leaf(unsigned long n)
{
	unsigned long x = n;

	for (unsigned long i = 0; i < 50000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
	return x;
}

FRAME unsigned long t_mid(unsigned long n)
{
	return t_leaf(n + 1) ^ n;
}

FRAME void *t_top(void *arg)
{
	unsigned long n = (unsigned long)arg, total = 0;

	while (xc_now() < end)
		total += t_mid(n++);
	return (void *)total;
}

FRAME unsigned long m_leaf(unsigned long n)
{
	unsigned long x = n;

	for (unsigned long i = 0; i < 50000; i++)
		x = x * 2862933555777941757UL + 3037000493UL;
	sink = x;
	return x;
}

int main(int argc, char **argv)
{
	pthread_t th[NR_THREADS];
	unsigned long total = 0;
	void *ret;
	int i;

	end = xc_now() + xc_seconds(argc, argv);
	for (i = 0; i < NR_THREADS; i++) {
		if (pthread_create(&th[i], NULL, t_top, (void *)(unsigned long)i)) {
			perror("pthread_create");
			return 1;
		}
	}
	while (xc_now() < end)
		total += m_leaf(total);
	for (i = 0; i < NR_THREADS; i++) {
		pthread_join(th[i], &ret);
		total += (unsigned long)ret;
	}
	printf("threads: checksum %lx\n", total);
	return 0;
}
