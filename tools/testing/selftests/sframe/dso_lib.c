// SPDX-License-Identifier: GPL-2.0
/*
 * DT_NEEDED library of unwind_pie_dso, built with -fomit-frame-pointer and
 * --gsframe: calls back into the executable.
 */
#include "workload.h"

noinline __noclone void dso_entry(void (*cb)(void))
{
	char frame[40];

	wl_use(frame);
	cb();
	wl_use(frame);
}
