// SPDX-License-Identifier: GPL-2.0
/*
 * dlopen()ed library of unwind_dlopen.  Built twice from this file:
 * libsf_a.so (LIB_PREFIX=sfa, -fomit-frame-pointer, --gsframe) and
 * libfp_b.so (LIB_PREFIX=fpb, frame pointers, no SFrame), so that both have
 * the same layout and the second one tends to be mapped where the first
 * one was.
 */
#include <signal.h>

#define __CAT(a, b)	a##_##b
#define CAT(a, b)	__CAT(a, b)
#define FN(name)	CAT(LIB_PREFIX, name)

/* keep a local array on the stack: every function gets a real frame */
static inline void use(void *frame)
{
	asm volatile("" : : "r"(frame) : "memory");
}

__attribute__((noinline, noclone)) void FN(leaf)(volatile sig_atomic_t *stop)
{
	char frame[24];

	while (!*stop)
		use(frame);
}

__attribute__((noinline, noclone)) void FN(mid)(volatile sig_atomic_t *stop)
{
	char frame[40];

	use(frame);
	FN(leaf)(stop);
	use(frame);
}

__attribute__((noinline, noclone)) void FN(entry)(volatile sig_atomic_t *stop)
{
	char frame[72];

	use(frame);
	FN(mid)(stop);
	use(frame);
}
