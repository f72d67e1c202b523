// SPDX-License-Identifier: GPL-2.0
/*
 * Host implementation of copy_from_user() and copy_from_user_nofault() for
 * the SFrame decoder host tests: range checking, fault injection and
 * statistics. See hostshim.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/uaccess.h>

#include "hostshim.h"

struct hostshim_stats hostshim_stats;

static enum hostshim_mode mode = HOSTSHIM_ABORT;
static uintptr_t allow_lo, allow_hi;	/* empty when lo == hi */
static uintptr_t fault_lo, fault_hi;	/* empty when lo == hi */
static bool atomic_ctx;
static bool quiet;
static unsigned long reported;

int hostshim_fatal_countdown = -1;

void hostshim_set_mode(enum hostshim_mode m)
{
	mode = m;
}

void hostshim_allow(const void *lo, const void *hi)
{
	allow_lo = (uintptr_t)lo;
	allow_hi = (uintptr_t)hi;
}

void hostshim_allow_none(void)
{
	allow_lo = allow_hi = 0;
}

void hostshim_fault_range(const void *lo, const void *hi)
{
	fault_lo = (uintptr_t)lo;
	fault_hi = (uintptr_t)hi;
}

void hostshim_fault_all(void)
{
	fault_lo = 0;
	fault_hi = UINTPTR_MAX;
}

void hostshim_fault_none(void)
{
	fault_lo = fault_hi = 0;
}

void hostshim_set_atomic(bool a)
{
	atomic_ctx = a;
}

void hostshim_reset_stats(void)
{
	memset(&hostshim_stats, 0, sizeof(hostshim_stats));
}

void hostshim_set_quiet(bool q)
{
	quiet = q;
}

static void violation(const char *fn, uintptr_t src, size_t len,
		      const char *why)
{
	hostshim_stats.violations++;
	if (mode == HOSTSHIM_ABORT) {
		fprintf(stderr,
			"hostshim: %s(src=%#lx, len=%zu): %s; allowed [%#lx, %#lx) = section offsets [%ld, %ld)\n",
			fn, (unsigned long)src, len, why,
			(unsigned long)allow_lo, (unsigned long)allow_hi,
			(long)(src - allow_lo), (long)(src + len - allow_lo));
		abort();
	}
	if (!quiet && reported++ < 10)
		fprintf(stderr,
			"# hostshim: VIOLATION %s(section offset %ld, len %zu): %s\n",
			fn, (long)(src - allow_lo), len, why);
}

/* 0 if the copy is in range, else it has been reported as a violation. */
static int check(const char *fn, uintptr_t src, size_t len)
{
	if (allow_lo == allow_hi)
		violation(fn, src, len, "no readable range registered");
	else if (src < allow_lo || src > allow_hi || len > allow_hi - src)
		violation(fn, src, len, "read outside the registered section");
	else
		return 0;
	return -1;
}

/* Number of bytes readable from @src before the injected fault, or @len. */
static size_t readable(uintptr_t src, size_t len)
{
	if (fault_lo == fault_hi || src + len <= fault_lo || src >= fault_hi)
		return len;
	if (src >= fault_lo)
		return 0;
	return fault_lo - src;
}

unsigned long copy_from_user(void *to, const void __user *from,
			     unsigned long n)
{
	uintptr_t src = (uintptr_t)from;
	size_t ok;

	hostshim_stats.reads++;
	hostshim_stats.reads_fault++;
	if (atomic_ctx)
		violation("copy_from_user", src, n,
			  "faulting copy in atomic (lookup) context");
	if (check("copy_from_user", src, n)) {
		memset(to, 0, n);
		return n;
	}
	ok = readable(src, n);
	memcpy(to, from, ok);
	memset((char *)to + ok, 0, n - ok);	/* like the kernel */
	hostshim_stats.bytes += ok;
	if (ok != n)
		hostshim_stats.faults++;
	return n - ok;
}

long copy_from_user_nofault(void *dst, const void __user *src, size_t size)
{
	uintptr_t s = (uintptr_t)src;
	size_t ok;

	hostshim_stats.reads++;
	hostshim_stats.reads_nofault++;
	if (check("copy_from_user_nofault", s, size)) {
		memset(dst, 0xa5, size);
		return -EFAULT;
	}
	ok = readable(s, size);
	memcpy(dst, src, ok);
	hostshim_stats.bytes += ok;
	if (ok != size) {
		/* The kernel leaves the rest undefined: make that visible. */
		memset((char *)dst + ok, 0xa5, size - ok);
		hostshim_stats.faults++;
		return -EFAULT;
	}
	return 0;
}

int hostshim_sframe_copy(void *dst, unsigned long addr, size_t len)
{
	return copy_from_user(dst, (const void __user *)addr, len) ? -EFAULT : 0;
}
