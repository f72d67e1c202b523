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

static const char *const expect[] = { "c", "b", "a", "main" };

TEST(frame_pointer)
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
	ASSERT_EQ(0, elf_has_sframe(exe));

	ASSERT_EQ(0, wl_start(&w, exe, argv, &o));
	f.pid = w.pid;
	EXPECT_EQ(0, wl_phase_leaf(&w, &o, &f, expect[0]));
	EXPECT_EQ(0, wl_finish(&w));
	EXPECT_TRUE(wl_exit_ok(&w));

	f.pid = w.pid;
	ok = chain_report("frame pointers", &w.s, &f, expect,
			  ARRAY_SIZE(expect), &o, &st);
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
