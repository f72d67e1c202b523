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

static const char *const expect[] = { "c", "b", "a", "main" };

TEST(sframe_pie)
{
	struct sample_filter f = SAMPLE_FILTER_ANY;
	struct sampler_opts o;
	struct chain_stats st;
	char exe[PATH_MAX];
	char *const argv[] = { exe, WL_ARG, NULL };
	struct wl_run w;
	bool ok;

	sampler_get_opts(&o);
	ASSERT_EQ(0, self_path(exe, sizeof(exe)));
	diag_env(exe);
	ASSERT_EQ(1, elf_has_sframe(exe));

	ASSERT_EQ(0, wl_start(&w, exe, argv, &o));
	f.pid = w.pid;
	EXPECT_EQ(0, wl_phase_leaf(&w, &o, &f, expect[0]));
	EXPECT_EQ(0, wl_finish(&w));
	EXPECT_TRUE(wl_exit_ok(&w));

	f.pid = w.pid;
	ok = chain_report("pie", &w.s, &f, expect, ARRAY_SIZE(expect), &o, &st);
	wl_cleanup(&w);
	ASSERT_TRUE(ok);
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
