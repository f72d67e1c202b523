// SPDX-License-Identifier: GPL-2.0
/*
 * Shared library of the dso test program, built with -Wa,--gsframe:
 * lib_entry -> lib_mid -> lib_leaf, the time spent in lib_leaf.
 */
#include "xc_common.h"

static volatile unsigned long lib_sink;

FRAME unsigned long lib_leaf(unsigned long n)
{
	unsigned long x = n;

	for (unsigned long i = 0; i < 100000; i++)
		x = x * 2862933555777941757UL + 3037000493UL;
	lib_sink = x;
	return x;
}

FRAME unsigned long lib_mid(unsigned long n)
{
	return lib_leaf(n + 1) ^ n;
}

FRAME unsigned long lib_entry(unsigned long n)
{
	return lib_mid(n + 2) + n;
}
