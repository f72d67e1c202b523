// SPDX-License-Identifier: GPL-2.0
/*
 * User call chains that cross a DT_NEEDED shared library and come back:
 * main -> dso_entry (libsf_dso.so) -> exe_callback -> exe_leaf, everything
 * built with -fomit-frame-pointer and --gsframe.
 */
#include <limits.h>

#include "kselftest_harness.h"
#include "sampler.h"
#include "workload.h"

void dso_entry(void (*cb)(void));

static const char *const expect[] = {
	"exe_leaf", "exe_callback", "dso_entry", "main"
};

noinline __noclone void exe_leaf(void)
{
	char frame[24];

	wl_spin(&workload_stop, frame);
}

noinline __noclone void exe_callback(void)
{
	char frame[56];

	wl_use(frame);
	exe_leaf();
	wl_use(frame);
}

TEST(sframe_pie_dso)
{
	struct sample_filter f = SAMPLE_FILTER_ANY;
	struct sampler_opts o;
	struct chain_stats st;
	char exe[PATH_MAX], lib[PATH_MAX];
	char *const argv[] = { exe, WL_ARG, NULL };
	struct wl_run w;
	bool ok;

	sampler_get_opts(&o);
	ASSERT_EQ(0, self_path(exe, sizeof(exe)));
	ASSERT_EQ(0, self_dir_file(lib, sizeof(lib), "libsf_dso.so"));
	diag_env(exe);
	diag_elf(lib);
	ASSERT_EQ(1, elf_has_sframe(exe));
	ASSERT_EQ(1, elf_has_sframe(lib));

	ASSERT_EQ(0, wl_start(&w, exe, argv, &o));
	f.pid = w.pid;
	EXPECT_EQ(0, wl_phase_leaf(&w, &o, &f, expect[0]));
	EXPECT_EQ(0, wl_finish(&w));
	EXPECT_TRUE(wl_exit_ok(&w));

	f.pid = w.pid;
	ok = chain_report("pie_dso", &w.s, &f, expect, ARRAY_SIZE(expect), &o,
			  &st);
	wl_cleanup(&w);
	ASSERT_TRUE(ok);
}

int main(int argc, char **argv)
{
	if (wl_mode(argc, argv)) {
		wl_init();
		dso_entry(exe_callback);
		return 0;
	}
	return test_harness_run(argc, argv);
}
