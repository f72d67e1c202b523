// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.unwind_user_sframe=0 turns SFrame unwinding off: the chains of
 * main -> a -> b -> c (-fomit-frame-pointer, --gsframe) must then be
 * incomplete again, as with the plain frame-pointer unwinder.  The sysctl is
 * restored afterwards.
 */
#include <limits.h>

#include "kselftest_harness.h"
#include "sampler.h"
#include "workload.h"

static const char *const expect[] = { WL_CHAIN };

FIXTURE(sysctl_off) {
	int saved;
};

FIXTURE_SETUP(sysctl_off)
{
	int ret;

	self->saved = unwind_sysctl_read();
	if (self->saved < 0)
		SKIP(return, "%s: %s (kernel without SFrame user unwinding?)",
		     UNWIND_SYSCTL, strerror(-self->saved));
	ret = unwind_sysctl_write(0);
	if (ret) {
		self->saved = -1;
		SKIP(return, "cannot write %s: %s", UNWIND_SYSCTL,
		     strerror(-ret));
	}
	diag("%s: %d -> 0\n", UNWIND_SYSCTL, self->saved);
}

FIXTURE_TEARDOWN(sysctl_off)
{
	if (self->saved >= 0) {
		EXPECT_EQ(0, unwind_sysctl_write(self->saved));
		diag("%s restored to %d\n", UNWIND_SYSCTL, self->saved);
	}
}

TEST_F(sysctl_off, sframe_switched_off)
{
	struct sample_filter f = SAMPLE_FILTER_ANY;
	struct sampler_opts o;
	struct chain_stats st;
	char exe[PATH_MAX];
	char *const argv[] = { exe, WL_ARG, NULL };
	struct wl_run w;

	ASSERT_EQ(0, self_path(exe, sizeof(exe)));
	diag_env(exe);
	ASSERT_EQ(1, elf_has_sframe(exe));
	EXPECT_EQ(0, wl_sample(&w, argv, expect[0], &f, &o));
	chain_report("sframe off", &w.s, &f, expect, ARRAY_SIZE(expect), &o,
		     &st);
	wl_cleanup(&w);
	/* enough samples, and no chain complete: SFrame was not used */
	ASSERT_GE(st.leaf, o.min_leaf);
	ASSERT_EQ(0, st.complete);
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
