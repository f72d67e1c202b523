// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame version 3, as GNU binutils 2.46 and later write it: user call
 * chains through a program and a DT_NEEDED library whose .sframe sections
 * are version 3, and through a function that realigns its stack and keeps
 * eight arguments (on x86-64 gcc then addresses the frame through a copy
 * of the CFA, a "flexible" function whose CFA is loaded through the frame
 * pointer): main -> v3_outer -> v3_realign -> dso_entry (libsf_v3.so) ->
 * v3_callback -> v3_leaf.
 *
 * Built only when SFRAME_V3_BINUTILS names a directory holding the as and
 * ld of binutils 2.46 or later (see the Makefile).
 */
#include <limits.h>
#include <string.h>

#include "sampled.h"
#include "workload.h"

void dso_entry(void (*cb)(void));

static const char *const expect[] = {
	"v3_leaf", "v3_callback", "dso_entry", "v3_realign", "v3_outer", "main",
	CHAIN_END
};

noinline __noclone void v3_leaf(void)
{
	char frame[24];

	wl_spin(&workload_stop, frame);
}

noinline __noclone void v3_callback(void)
{
	char frame[56];

	wl_use(frame);
	v3_leaf();
	wl_use(frame);
}

noinline __noclone int v3_realign(int n, int a1, int a2, int a3, int a4,
				  int a5, int a6, int a7)
{
	char buf[64] __wl_attr(__aligned__(64));
	char *p = __builtin_alloca(n);

	memset(buf, a7, sizeof(buf));
	memset(p, a6, n);
	wl_use(buf);
	wl_use(p);
	dso_entry(v3_callback);
	wl_use(buf);
	wl_use(p);
	return buf[1] + p[0] + a1 + a2 + a3 + a4 + a5;
}

noinline __noclone int v3_outer(int n)
{
	char frame[40];
	int ret;

	wl_use(frame);
	ret = v3_realign(n, 1, 2, 3, 4, 5, 6, 7);
	wl_use(frame);
	return ret;
}

TEST_F(sampled, sframe_v3)
{
	char lib[PATH_MAX];
	char *const argv[] = { self->exe, WL_ARG, NULL };

	ASSERT_EQ(0, self_dir_file(lib, sizeof(lib), "libsf_v3.so"));
	diag_env(self->exe);
	diag_elf(lib);
	ASSERT_EQ(3, elf_sframe_version(self->exe));
	ASSERT_EQ(3, elf_sframe_version(lib));
	ASSERT_TRUE(sampled_chains(self, "v3", argv, expect,
				   ARRAY_SIZE(expect), CHAINS_COMPLETE));
}

int main(int argc, char **argv)
{
	if (wl_mode(argc, argv)) {
		wl_init();
		v3_outer(argc + 30);
		return 0;
	}
	return test_harness_run(argc, argv);
}
