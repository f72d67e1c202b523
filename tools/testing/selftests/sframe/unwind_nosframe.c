// SPDX-License-Identifier: GPL-2.0
/*
 * Code without SFrame still unwinds with frame pointers: this program is
 * built with -fno-omit-frame-pointer and without --gsframe, and its chains
 * main -> a -> b -> c must be complete, with SFrame unwinding on or off.
 */
#include <limits.h>

#include "sampled.h"
#include "workload.h"

static const char *const expect[] = { WL_CHAIN };

TEST_F(sampled, frame_pointer)
{
	char *const argv[] = { self->exe, WL_ARG, NULL };

	diag_env(self->exe);
	ASSERT_EQ(0, elf_has_sframe(self->exe));
	ASSERT_TRUE(sampled_chains(self, "frame pointers", argv, expect,
				   ARRAY_SIZE(expect), CHAINS_COMPLETE));
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
