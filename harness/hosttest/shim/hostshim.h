/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Controls of the host uaccess shim (shim/uaccess.c).
 *
 * The decoder must bounds-check every access against the registered section
 * before it copies. The tests register the section with hostshim_allow();
 * a copy that reaches outside it is a decoder bug: by default the shim
 * prints it and aborts (what the fuzzer wants); in HOSTSHIM_RECORD mode it
 * counts it, copies nothing and fails the copy, so a test can report it and
 * go on.
 *
 * Fault injection: reads that touch [fault_lo, fault_hi) fail as if that
 * range were not mapped (copy_from_user() copies the bytes before it and
 * zeroes the rest, like the kernel; copy_from_user_nofault() fails whole and
 * leaves garbage in the destination).
 *
 * "Atomic" mode models NMI/IRQ context: a call of the faulting
 * copy_from_user() then is a bug as well (sframe_rules_lookup() must use the
 * _nofault variant only).
 */
#ifndef _HOSTSHIM_H
#define _HOSTSHIM_H

#include <stdbool.h>
#include <stddef.h>

enum hostshim_mode {
	HOSTSHIM_ABORT,		/* print and abort() on a violation */
	HOSTSHIM_RECORD,	/* count, print the first few, fail the copy */
};

struct hostshim_stats {
	unsigned long reads;		/* all copies attempted */
	unsigned long reads_fault;	/* via copy_from_user() */
	unsigned long reads_nofault;	/* via copy_from_user_nofault() */
	unsigned long bytes;
	unsigned long faults;		/* injected faults returned */
	unsigned long violations;	/* out-of-range or forbidden copies */
};

extern struct hostshim_stats hostshim_stats;

void hostshim_set_mode(enum hostshim_mode mode);
/* Register the readable range [lo, hi) (usually the whole section). */
void hostshim_allow(const void *lo, const void *hi);
/* No readable range: every copy is a violation. */
void hostshim_allow_none(void);
/* Reads touching [lo, hi) fault; hostshim_fault_none() ends that. */
/* fatal_signal_pending(): see shim/linux/sched.h */
extern int hostshim_fatal_countdown;
void hostshim_fault_range(const void *lo, const void *hi);
void hostshim_fault_all(void);
void hostshim_fault_none(void);
/* While set, copy_from_user() (the faulting variant) is a violation. */
void hostshim_set_atomic(bool atomic);
void hostshim_reset_stats(void);
/* Print violations in RECORD mode (default on, at most a few per run). */
void hostshim_set_quiet(bool quiet);

#endif /* _HOSTSHIM_H */
