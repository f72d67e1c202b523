// SPDX-License-Identifier: GPL-2.0
/*
 * dlopen()ed library of unwind_dlopen.  Built twice from this file:
 * libsf_a.so (LIB_PREFIX=sfa, -fomit-frame-pointer, --gsframe) and
 * libfp_b.so (LIB_PREFIX=fpb, frame pointers, no SFrame), so that both have
 * the same layout and the second one tends to be mapped where the first
 * one was.
 */
#include <signal.h>

#include "workload.h"

#define __CAT(a, b)	a##_##b
#define CAT(a, b)	__CAT(a, b)
#define FN(name)	CAT(LIB_PREFIX, name)

/* a local array on the stack of each function: every one has a real frame */
noinline __noclone void FN(leaf)(sig_atomic_t *stop)
{
	char frame[24];

	wl_spin(stop, frame);
}

noinline __noclone void FN(mid)(sig_atomic_t *stop)
{
	char frame[40];

	wl_use(frame);
	FN(leaf)(stop);
	wl_use(frame);
}

noinline __noclone void FN(entry)(sig_atomic_t *stop)
{
	char frame[72];

	wl_use(frame);
	FN(mid)(stop);
	wl_use(frame);
}
