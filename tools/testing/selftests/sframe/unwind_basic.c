// SPDX-License-Identifier: GPL-2.0
/*
 * User call chains of a PIE built with -fomit-frame-pointer and --gsframe:
 * main -> a -> b -> c, sampled while spinning in c.  Frame pointers cannot
 * unwind this code; with SFrame every sample must show the whole chain.
 */
#include <limits.h>

#include "kselftest_harness.h"
#include "sampler.h"
#include "workload.h"

static const char *const expect[] = { WL_CHAIN, CHAIN_END };

TEST(sframe_pie)
{
	char exe[PATH_MAX];
	char *const argv[] = { exe, WL_ARG, NULL };

	ASSERT_EQ(0, self_path(exe, sizeof(exe)));
	diag_env(exe);
	ASSERT_EQ(1, elf_has_sframe(exe));
	ASSERT_TRUE(wl_chain_test("pie", argv, expect, ARRAY_SIZE(expect)));
}

int main(int argc, char **argv)
{
	if (wl_mode(argc, argv)) {
		wl_init();
		a();
		return 0;
	}
	return test_harness_run(argc, argv);
}
