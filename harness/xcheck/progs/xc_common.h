/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the cross-check test programs: noipa keeps every function a
 * real frame (no inlining, cloning or tail calls: each caller uses the
 * callee's result after the call).
 */
#ifndef XC_COMMON_H
#define XC_COMMON_H

#include <stdlib.h>
#include <time.h>

#define FRAME __attribute__((noipa))

static inline double xc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline double xc_seconds(int argc, char **argv)
{
	return argc > 1 ? atof(argv[1]) : 1.5;
}

#endif
