// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame data is inherited across fork(): the workload forks and only the
 * child runs main -> a -> b -> c (-fomit-frame-pointer, --gsframe).  The
 * child's chains must be complete, and the child inherits the validation
 * of its parent's sections: over the whole run, the kernel validates (or
 * takes over the validation of) as many sections as it registered, none
 * again for the child.
 */
#include <limits.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "sampler.h"
#include "workload.h"

static const char *const expect[] = { WL_CHAIN, CHAIN_END };

TEST(sframe_fork)
{
	struct sample_filter f = SAMPLE_FILTER_ANY;
	struct sampler_opts o;
	struct chain_stats st;
	char exe[PATH_MAX];
	char *const argv[] = { exe, WL_ARG, NULL };
	long reg, val;
	struct wl_run w;
	bool ok;

	sampler_get_opts(&o);
	ASSERT_EQ(0, self_path(exe, sizeof(exe)));
	diag_env(exe);
	ASSERT_EQ(1, elf_has_sframe(exe));

	reg = sframe_stat("registered");
	val = sframe_stat("validated") + sframe_stat("validation_shared");
	ASSERT_EQ(0, wl_start(&w, exe, argv, &o));
	f.not_pid = w.pid;
	EXPECT_EQ(0, wl_phase_leaf(&w, &o, &f, expect[0]));
	EXPECT_EQ(0, wl_finish(&w));
	EXPECT_TRUE(wl_exit_ok(&w));
	if (reg >= 0) {
		reg = sframe_stat("registered") - reg;
		val = sframe_stat("validated") +
		      sframe_stat("validation_shared") - val;
		diag("sections registered %ld, validated or taken over %ld\n",
		     reg, val);
		EXPECT_LT(0, reg);
		EXPECT_EQ(reg, val);
	}

	/* samples of the forked child only */
	f.not_pid = w.pid;
	ok = chain_report("fork child", &w.s, &f, expect, ARRAY_SIZE(expect),
			  &o, &st);
	wl_cleanup(&w);
	ASSERT_TRUE(ok);
	/*
	 * A chain that is not complete ends where the kernel could not use
	 * SFrame (the child's first lookups, before its pages of the section
	 * are mapped): it never goes on by frame pointers, which here would
	 * skip from c to main's caller (main keeps a frame pointer).
	 */
	EXPECT_EQ(st.leaf, st.complete + st.truncated);
}

/*
 * main keeps a frame pointer, and a, b and c leave the register alone: a
 * frame-pointer walk from c would go straight to main's caller.
 */
__attribute__((optimize("no-omit-frame-pointer")))
int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (!wl_mode(argc, argv))
		return test_harness_run(argc, argv);

	wl_init();
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		a();
		return 0;
	}
	/* SIGUSR1 goes to the whole process group, the child included */
	while (waitpid(pid, &status, 0) != pid)
		if (errno != EINTR)
			return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
