// SPDX-License-Identifier: GPL-2.0
/*
 * A program built without frame pointers and without SFrame, as most
 * programs of a distribution are: its chains main -> a -> b -> c must be
 * complete from its .eh_frame, and from every process's first samples on,
 * while kernel.unwind_user_eh_frame is 1; with 0 none may be: the walk
 * then follows a frame pointer register the code uses for other things.
 * The sysctl is restored afterwards.
 */
#include <limits.h>

#include "kselftest_harness.h"
#include "sampler.h"
#include "workload.h"

static const char *const expect[] = { WL_CHAIN, CHAIN_END };

FIXTURE(eh_frame) {
	int saved;
};

FIXTURE_VARIANT(eh_frame) {
	int on;
};

FIXTURE_VARIANT_ADD(eh_frame, on) { .on = 1 };
FIXTURE_VARIANT_ADD(eh_frame, off) { .on = 0 };

FIXTURE_SETUP(eh_frame)
{
	if (unwind_sysctl_read() != 1)
		SKIP(return, "kernel.unwind_user_sframe is not 1");
	self->saved = sysctl_int_read(EH_FRAME_SYSCTL);
	ASSERT_LE(0, self->saved);
	ASSERT_EQ(0, sysctl_int_write(EH_FRAME_SYSCTL, variant->on));
}

FIXTURE_TEARDOWN(eh_frame)
{
	if (self->saved >= 0)
		EXPECT_EQ(0, sysctl_int_write(EH_FRAME_SYSCTL, self->saved));
}

TEST_F(eh_frame, chain)
{
	struct sample_filter f = SAMPLE_FILTER_ANY;
	char exe[PATH_MAX];
	char *const argv[] = { exe, WL_ARG, NULL };
	struct sampler_opts o;
	struct chain_stats st;
	long converted;
	struct wl_run w;

	ASSERT_EQ(0, self_path(exe, sizeof(exe)));
	diag_env(exe);
	ASSERT_EQ(0, elf_has_sframe(exe));
	converted = sframe_stat("eh_frame_converted");
	EXPECT_EQ(0, wl_sample(&w, argv, expect[0], &f, &o));
	chain_report("eh_frame", &w.s, &f, expect, ARRAY_SIZE(expect), &o,
		     &st);
	wl_cleanup(&w);
	if (converted >= 0) {
		converted = sframe_stat("eh_frame_converted") - converted;
		diag(".eh_frame sections converted: %ld\n", converted);
		/* the program's own, at least: no other process maps it */
		EXPECT_EQ(variant->on, converted > 0);
	}
	ASSERT_GE(st.leaf, o.min_leaf);
	ASSERT_TRUE(variant->on ? chain_is_complete(&st, &o) : !st.complete);
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
