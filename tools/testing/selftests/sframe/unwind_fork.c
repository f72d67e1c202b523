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

#include "sampled.h"
#include "workload.h"

static const char *const expect[] = { WL_CHAIN, CHAIN_END };

TEST_F(sampled, sframe_fork)
{
	char *const argv[] = { self->exe, WL_ARG, NULL };
	long reg, val;

	diag_env(self->exe);
	ASSERT_EQ(1, elf_has_sframe(self->exe));

	reg = sframe_stat("registered");
	val = sframe_stat("validated") + sframe_stat("validation_shared");
	ASSERT_EQ(0, sampled_start(self, argv));
	/* samples of the forked child only */
	self->f.not_pid = self->f.pid;
	self->f.pid = 0;
	EXPECT_EQ(0, sampled_phase(self, expect[0]));
	EXPECT_EQ(0, sampled_finish(self));
	if (reg >= 0) {
		reg = sframe_stat("registered") - reg;
		val = sframe_stat("validated") +
		      sframe_stat("validation_shared") - val;
		diag("sections registered %ld, validated or taken over %ld\n",
		     reg, val);
		EXPECT_LT(0, reg);
		EXPECT_EQ(reg, val);
	}

	ASSERT_TRUE(sampled_check(self, "fork child", expect,
				  ARRAY_SIZE(expect), CHAINS_COMPLETE));
	/*
	 * A chain that is not complete ends where the kernel could not use
	 * SFrame (the child's first lookups, before its pages of the section
	 * are mapped): it never goes on by frame pointers, which here would
	 * skip from c to main's caller (main keeps a frame pointer).
	 */
	EXPECT_EQ(self->st.leaf, self->st.complete + self->st.truncated);
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
