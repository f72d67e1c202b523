// SPDX-License-Identifier: GPL-2.0
/*
 * User call chains that cross a DT_NEEDED shared library and come back:
 * main -> dso_entry (libsf_dso.so) -> exe_callback -> exe_leaf, everything
 * built with -fomit-frame-pointer and --gsframe.
 */
#include <limits.h>

#include "sampled.h"
#include "workload.h"

void dso_entry(void (*cb)(void));

static const char *const expect[] = {
	"exe_leaf", "exe_callback", "dso_entry", "main", CHAIN_END
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

TEST_F(sampled, sframe_pie_dso)
{
	char lib[PATH_MAX];
	char *const argv[] = { self->exe, WL_ARG, NULL };

	ASSERT_EQ(0, self_dir_file(lib, sizeof(lib), "libsf_dso.so"));
	diag_env(self->exe);
	diag_elf(lib);
	ASSERT_EQ(1, elf_has_sframe(self->exe));
	ASSERT_EQ(1, elf_has_sframe(lib));
	ASSERT_TRUE(sampled_chains(self, "pie_dso", argv, expect,
				   ARRAY_SIZE(expect), CHAINS_COMPLETE));
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
