// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame data follows exec(): the workload runs main -> a -> b -> c
 * (-fomit-frame-pointer, --gsframe), then re-execs itself and runs it again.
 * The chains of both images must be complete.
 */
#include <limits.h>

#include "kselftest_harness.h"
#include "sampler.h"
#include "workload.h"

static const char *const expect[] = { WL_CHAIN, CHAIN_END };

TEST(sframe_exec)
{
	struct sample_filter f = SAMPLE_FILTER_ANY;
	struct sampler_opts o;
	struct chain_stats st;
	char exe[PATH_MAX];
	char *const argv[] = { exe, WL_ARG, "exec", NULL };
	struct wl_run w;
	bool ok1, ok2;

	sampler_get_opts(&o);
	ASSERT_EQ(0, self_path(exe, sizeof(exe)));
	diag_env(exe);
	ASSERT_EQ(1, elf_has_sframe(exe));

	ASSERT_EQ(0, wl_start(&w, exe, argv, &o));
	f.pid = w.pid;
	f.gen = 1;
	EXPECT_EQ(0, wl_phase_leaf(&w, &o, &f, expect[0]));
	f.gen = 2;
	EXPECT_EQ(0, wl_phase_leaf(&w, &o, &f, expect[0]));
	EXPECT_EQ(0, wl_finish(&w));
	EXPECT_TRUE(wl_exit_ok(&w));

	/* generation 1: the image started by the test, 2: after re-exec */
	f.pid = w.pid;
	f.gen = 1;
	ok1 = chain_report("before exec", &w.s, &f, expect,
			   ARRAY_SIZE(expect), &o, &st);
	f.gen = 2;
	ok2 = chain_report("after exec", &w.s, &f, expect, ARRAY_SIZE(expect),
			   &o, &st);
	wl_cleanup(&w);
	EXPECT_TRUE(ok1);
	ASSERT_TRUE(ok2);
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
