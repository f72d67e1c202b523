// SPDX-License-Identifier: GPL-2.0
/*
 * Code without SFrame still unwinds with frame pointers: this program is
 * built with -fno-omit-frame-pointer and without --gsframe, and its chains
 * main -> a -> b -> c must be complete, with SFrame unwinding on or off.
 */
#include <limits.h>

#include "kselftest_harness.h"
#include "sampler.h"
#include "workload.h"

static const char *const expect[] = { WL_CHAIN };

TEST(frame_pointer)
{
	char exe[PATH_MAX];
	char *const argv[] = { exe, WL_ARG, NULL };

	ASSERT_EQ(0, self_path(exe, sizeof(exe)));
	diag_env(exe);
	ASSERT_EQ(0, elf_has_sframe(exe));
	ASSERT_TRUE(wl_chain_test("frame pointers", argv, expect,
				  ARRAY_SIZE(expect)));
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
