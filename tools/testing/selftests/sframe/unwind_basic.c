// SPDX-License-Identifier: GPL-2.0
/*
 * User call chains of a PIE built with -fomit-frame-pointer and --gsframe:
 * main -> a -> b -> c, sampled while spinning in c.  Frame pointers cannot
 * unwind this code; with SFrame every sample must show the whole chain.
 *
 * fp_cfa: main -> fa -> fb -> fc, spinning in fc.  fa allocates a stack
 * buffer of a size the compiler does not know, so its CFA is based on the
 * frame pointer register; fb saves that register and puts something else
 * in it while it calls fc.  fa's caller is found only if fb's saved frame
 * pointer is restored by the step from fb to fa.
 */
#include <limits.h>
#include <string.h>

#include "sampled.h"
#include "workload.h"

static const char *const expect[] = { WL_CHAIN, CHAIN_END };
static const char *const expect_fp[] = { "fc", "fb", "fa", "main",
					 CHAIN_END };

noinline __noclone void fc(void)
{
	char frame[64];

	wl_spin(&workload_stop, frame);
}

noinline __noclone void fb(void)
{
	char frame[64];

#if defined(__x86_64__) && !defined(WL_FRAME_POINTERS)
	/* The frame pointer register, as a general one: saved, then used. */
	asm volatile("mov %0, %%rbp" : : "r"(frame + 1) : "rbp");
#endif
	fc();
	wl_use(frame);
}

noinline __noclone void fa(unsigned int n)
{
	char *buf = __builtin_alloca(n);

	memset(buf, 0, n);
	wl_use(buf);
	fb();
	wl_use(buf);
}

TEST_F(sampled, sframe_pie)
{
	char *const argv[] = { self->exe, WL_ARG, NULL };

	diag_env(self->exe);
	ASSERT_EQ(1, elf_has_sframe(self->exe));
	ASSERT_TRUE(sampled_chains(self, "pie", argv, expect,
				   ARRAY_SIZE(expect), CHAINS_COMPLETE));
}

TEST_F(sampled, fp_cfa)
{
	char *const argv[] = { self->exe, WL_ARG, "fp_cfa", NULL };

	ASSERT_TRUE(sampled_chains(self, "fp_cfa", argv, expect_fp,
				   ARRAY_SIZE(expect_fp), CHAINS_COMPLETE));
}

int main(int argc, char **argv)
{
	const char *mode = wl_mode(argc, argv);

	if (mode) {
		wl_init();
		if (!strcmp(mode, "fp_cfa"))
			fa(64 + argc);
		else
			a();
		return 0;
	}
	return test_harness_run(argc, argv);
}
