// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame data follows exec(): the workload runs main -> a -> b -> c
 * (-fomit-frame-pointer, --gsframe), then re-execs itself and runs it again.
 * The chains of both images must be complete.
 */
#include <limits.h>

#include "sampled.h"
#include "workload.h"

static const char *const expect[] = { WL_CHAIN, CHAIN_END };

TEST_F(sampled, sframe_exec)
{
	char *const argv[] = { self->exe, WL_ARG, "exec", NULL };

	diag_env(self->exe);
	ASSERT_EQ(1, elf_has_sframe(self->exe));

	/* generation 1: the image started by the test, 2: after re-exec */
	ASSERT_EQ(0, sampled_start(self, argv));
	self->f.gen = 1;
	EXPECT_EQ(0, sampled_phase(self, expect[0]));
	self->f.gen = 2;
	EXPECT_EQ(0, sampled_phase(self, expect[0]));
	EXPECT_EQ(0, sampled_finish(self));

	self->f.gen = 1;
	EXPECT_TRUE(sampled_check(self, "before exec", expect,
				  ARRAY_SIZE(expect), CHAINS_COMPLETE));
	self->f.gen = 2;
	EXPECT_TRUE(sampled_check(self, "after exec", expect,
				  ARRAY_SIZE(expect), CHAINS_COMPLETE));
}

int main(int argc, char **argv)
{
	const char *mode = wl_mode(argc, argv);
	char exe[PATH_MAX];
	char *const args[] = { exe, WL_ARG, "exec2", NULL };

	if (!mode)
		return test_harness_run(argc, argv);

	wl_init();
	a();
	if (strcmp(mode, "exec"))
		return 0;
	if (self_path(exe, sizeof(exe)))
		return 1;
	execv(exe, args);
	return 1;
}
