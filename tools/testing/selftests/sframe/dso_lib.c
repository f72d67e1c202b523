// SPDX-License-Identifier: GPL-2.0
/*
 * DT_NEEDED library of unwind_pie_dso, built with -fomit-frame-pointer and
 * --gsframe: calls back into the executable.
 */

__attribute__((noinline, noclone)) void dso_entry(void (*cb)(void))
{
	cb();
	asm volatile("" ::: "memory");
}
