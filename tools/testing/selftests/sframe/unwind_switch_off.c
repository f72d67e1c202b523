// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.unwind_user_sframe=0 turns SFrame unwinding off: the chains of
 * main -> a -> b -> c (-fomit-frame-pointer, --gsframe) must then be
 * incomplete again, as with the plain frame-pointer unwinder.  The sysctl is
 * restored afterwards.
 */
#include <limits.h>

#include "sampled.h"
#include "workload.h"

static const char *const expect[] = { WL_CHAIN };

TEST_F(sampled, sframe_switched_off)
{
	char *const argv[] = { self->exe, WL_ARG, NULL };
	int ret = sampled_sysctl(self, UNWIND_SYSCTL, 0);

	if (ret)
		SKIP(return, "%s: %s (kernel without SFrame user unwinding?)",
		     UNWIND_SYSCTL, strerror(-ret));
	diag_env(self->exe);
	ASSERT_EQ(1, elf_has_sframe(self->exe));
	/* enough samples, and no chain complete: SFrame was not used */
	ASSERT_TRUE(sampled_chains(self, "sframe off", argv, expect,
				   ARRAY_SIZE(expect), CHAINS_NONE));
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
