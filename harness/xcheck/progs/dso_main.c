// SPDX-License-Identifier: GPL-2.0
/*
 * dso test program: main -> work (program) -> lib_entry -> lib_mid ->
 * lib_leaf (libxcdso.so), everything built with -Wa,--gsframe and without
 * frame pointers.
 *
 * Usage: dso [SECONDS]   (default 1.5)
 */
#include <stdio.h>

#include "xc_common.h"

unsigned long lib_entry(unsigned long n);

FRAME unsigned long work(unsigned long n)
{
	return lib_entry(n * 3) + 1;
}

int main(int argc, char **argv)
{
	double end = xc_now() + xc_seconds(argc, argv);
	unsigned long total = 0, calls = 0;

	while (xc_now() < end) {
		total += work(calls);
		calls++;
	}
	printf("dso: %lu calls (checksum %lx)\n", calls, total);
	return 0;
}
