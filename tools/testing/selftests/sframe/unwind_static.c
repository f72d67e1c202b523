// SPDX-License-Identifier: GPL-2.0
/*
 * User call chains of a static, freestanding executable with its own _start
 * (static_wl), built with -fomit-frame-pointer and --gsframe.  The chain
 * must be complete up to and including _start.
 */
#include <limits.h>

#include "kselftest_harness.h"
#include "sampler.h"
#include "workload.h"

static const char *const expect[] = { "c", "b", "a", "main", "_start" };

TEST(sframe_static)
{
	char exe[PATH_MAX];
	char *const argv[] = { exe, NULL };

	ASSERT_EQ(0, self_dir_file(exe, sizeof(exe), "static_wl"));
	diag_env(exe);
	ASSERT_EQ(1, elf_has_sframe(exe));
	ASSERT_TRUE(wl_chain_test("static", argv, expect, ARRAY_SIZE(expect)));
}

TEST_HARNESS_MAIN
