// SPDX-License-Identifier: GPL-2.0
/*
 * DT_NEEDED library of unwind_pie_dso, built with -fomit-frame-pointer and
 * --gsframe: calls back into the executable.
 */

__attribute__((noinline, noclone)) void dso_entry(void (*cb)(void))
{
	char frame[40];

	asm volatile("" : : "r"(frame) : "memory");
	cb();
	asm volatile("" : : "r"(frame) : "memory");
}
