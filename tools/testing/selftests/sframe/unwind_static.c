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
	struct sample_filter f = SAMPLE_FILTER_ANY;
	struct sampler_opts o;
	struct chain_stats st;
	char exe[PATH_MAX];
	char *const argv[] = { exe, NULL };
	struct wl_run w;
	bool ok;

	sampler_get_opts(&o);
	ASSERT_EQ(0, self_dir_file(exe, sizeof(exe), "static_wl"));
	diag_env(exe);
	ASSERT_EQ(1, elf_has_sframe(exe));

	ASSERT_EQ(0, wl_start(&w, exe, argv, &o));
	f.pid = w.pid;
	EXPECT_EQ(0, wl_phase_leaf(&w, &o, &f, expect[0]));
	EXPECT_EQ(0, wl_finish(&w));
	EXPECT_TRUE(wl_exit_ok(&w));

	f.pid = w.pid;
	ok = chain_report("static", &w.s, &f, expect, ARRAY_SIZE(expect), &o,
			  &st);
	wl_cleanup(&w);
	ASSERT_TRUE(ok);
}

TEST_HARNESS_MAIN
