// SPDX-License-Identifier: GPL-2.0
/*
 * dlopen()ed library of unwind_hostile, built as libsf_h.so with SFrame and
 * without frame pointers.  unwind_hostile copies it, damages the copy's
 * SFrame data (or its PT_GNU_SFRAME program header) and runs these
 * functions in the copy while the process is sampled:
 *
 *   hl_good_entry -> hl_good_mid -> hl_good_leaf
 *	never damaged on purpose: its chains are complete if and only if the
 *	kernel uses the copy's section.
 *   hl_entry -> hl_mid -> hl_leaf -> hl_step
 *	hl_leaf's rows are the ones rewritten for the CFA cases; hl_leaf loads
 *	the frame pointer register with a value chosen by the test, so that a
 *	rule based on it points where the test wants.
 *   hl_work -> hl_work_mid -> hl_work_leaf
 *	a short burst of work, for a library that is mapped and unmapped at
 *	a high rate.
 *
 * hl_wbuf is writable data that can hold a copy of the section.
 */
#include <signal.h>

#include "workload.h"
#include "hostile_lib.h"

char hl_wbuf[HL_WBUF_SIZE] = { 1 };

#define HL_STEP_SPINS	4096

#if defined(__x86_64__)
#define HL_FP_REG	"rbp"
#define HL_MOV_FROM_FP	"mov %%rbp, %0"
#define HL_MOV_TO_FP	"mov %0, %%rbp"
#elif defined(__aarch64__)
#define HL_FP_REG	"x29"
#define HL_MOV_FROM_FP	"mov %0, x29"
#define HL_MOV_TO_FP	"mov x29, %0"
#else
#error "unsupported architecture"
#endif

static inline unsigned long hl_get_fp(void)
{
	unsigned long v;

	asm volatile(HL_MOV_FROM_FP : "=r"(v));
	return v;
}

/* The caller's frame pointer is restored by hl_leaf itself. */
static inline void hl_set_fp(unsigned long v)
{
	asm volatile(HL_MOV_TO_FP : : "r"(v) : HL_FP_REG, "memory");
}

/*
 * Where the hostile thread spends nearly all its time, so that the samples
 * the hostile-rule cases count come at nearly the sampling rate.
 */
static noinline __noclone void hl_step(sig_atomic_t *stop)
{
	unsigned int i;

	for (i = 0; i < HL_STEP_SPINS && !*stop; i++)
		wl_use(stop);
}

/*
 * Spin with the frame pointer register set to @fp.  HL_FP_CYCLE: to a pair
 * of words in this frame that say "the caller's frame pointer is this very
 * pair, the return address is in hl_leaf": a frame-pointer rule then
 * describes a frame that is its own caller. HL_FP_RA_KERNEL: to such a
 * pair that says "no caller's frame pointer, the return address is
 * HL_RA_KERNEL".
 */
static noinline __noclone void hl_leaf(sig_atomic_t *stop, unsigned long fp)
{
	unsigned long pair[2] = { 0, 0 };
	unsigned long saved = hl_get_fp();

	if (fp == HL_FP_CYCLE) {
		pair[0] = (unsigned long)pair;
		pair[1] = (unsigned long)&hl_leaf + 8;
		fp = (unsigned long)pair;
	} else if (fp == HL_FP_RA_KERNEL) {
		pair[1] = HL_RA_KERNEL;
		fp = (unsigned long)pair;
	}
	wl_use(pair);
	while (!*stop) {
		hl_set_fp(fp);
		hl_step(stop);
	}
	hl_set_fp(saved);
	wl_use(pair);
}

static noinline __noclone void hl_mid(sig_atomic_t *stop, unsigned long fp)
{
	char frame[40] = { 0 };

	wl_use(frame);
	hl_leaf(stop, fp);
	wl_use(frame);
}

noinline __noclone void hl_entry(sig_atomic_t *stop, unsigned long fp)
{
	char frame[72] = { 0 };

	wl_use(frame);
	hl_mid(stop, fp);
	wl_use(frame);
}

static noinline __noclone void hl_good_leaf(sig_atomic_t *stop)
{
	char frame[24] = { 0 };

	wl_spin(stop, frame);
}

static noinline __noclone void hl_good_mid(sig_atomic_t *stop)
{
	char frame[40] = { 0 };

	wl_use(frame);
	hl_good_leaf(stop);
	wl_use(frame);
}

noinline __noclone void hl_good_entry(sig_atomic_t *stop)
{
	char frame[72] = { 0 };

	wl_use(frame);
	hl_good_mid(stop);
	wl_use(frame);
}

static noinline __noclone void hl_work_leaf(unsigned long n)
{
	char frame[24] = { 0 };

	while (n--)
		wl_use(frame);
}

static noinline __noclone void hl_work_mid(unsigned long n)
{
	char frame[40] = { 0 };

	wl_use(frame);
	hl_work_leaf(n);
	wl_use(frame);
}

noinline __noclone void hl_work(unsigned long n)
{
	char frame[72] = { 0 };

	wl_use(frame);
	hl_work_mid(n);
	wl_use(frame);
}
