/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interface of libsf_h.so, the library unwind_hostile damages: see
 * hostile_lib.c.
 */
#ifndef __SFRAME_SELFTEST_HOSTILE_LIB_H
#define __SFRAME_SELFTEST_HOSTILE_LIB_H

#include <signal.h>

/* Room for a copy of the library's .sframe section in its writable data. */
#define HL_WBUF_SIZE	8192

/* hl_entry() frame pointer value: a frame that is its own caller. */
#define HL_FP_CYCLE	1UL
/*
 * hl_entry() frame pointer value: a frame whose saved return address is
 * HL_RA_KERNEL, an address in the kernel image.
 */
#define HL_FP_RA_KERNEL	2UL

#if defined(__x86_64__)
#define HL_RA_KERNEL	0xffffffff81000000UL
#elif defined(__aarch64__)
#define HL_RA_KERNEL	0xffff800080000000UL
#endif

void hl_entry(sig_atomic_t *stop, unsigned long fp);
void hl_good_entry(sig_atomic_t *stop);
void hl_work(unsigned long n);

#endif /* __SFRAME_SELFTEST_HOSTILE_LIB_H */
