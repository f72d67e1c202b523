// SPDX-License-Identifier: GPL-2.0
/*
 * User call chains of a static, freestanding executable with its own _start
 * (static_wl), built with -fomit-frame-pointer and --gsframe.  The chain
 * must be complete up to and including _start; also where the same
 * program has only .eh_frame, without .eh_frame_hdr (static_wl_eh).
 */
#include <limits.h>
#include <sched.h>
#include <sys/prctl.h>

#include "sampled.h"
#include "workload.h"

static const char *const expect[] = { WL_CHAIN, "_start", CHAIN_END };

TEST_F(sampled, sframe_static)
{
	char exe[PATH_MAX];
	char *const argv[] = { exe, NULL };

	ASSERT_EQ(0, self_dir_file(exe, sizeof(exe), "static_wl"));
	diag_env(exe);
	ASSERT_EQ(1, elf_has_sframe(exe));
	ASSERT_TRUE(sampled_chains(self, "static", argv, expect,
				   ARRAY_SIZE(expect), CHAINS_COMPLETE));
}

/*
 * The same program built without SFrame, linked as gcc links static
 * programs: .eh_frame and no .eh_frame_hdr (static_wl_eh). The kernel
 * finds .eh_frame through the section headers: the chain must be complete
 * up to and including _start from it too.
 */
TEST_F(sampled, eh_frame_static)
{
	char exe[PATH_MAX];
	char *const argv[] = { exe, NULL };

	if (unwind_sysctl_read() != 1)
		SKIP(return, "kernel.unwind_user_sframe is not 1");
	ASSERT_EQ(0, sampled_sysctl(self, EH_FRAME_SYSCTL, 1));
	ASSERT_EQ(0, self_dir_file(exe, sizeof(exe), "static_wl_eh"));
	diag_env(exe);
	ASSERT_EQ(0, elf_has_sframe(exe));
	ASSERT_TRUE(sampled_chains(self, "static_eh", argv, expect,
				   ARRAY_SIZE(expect), CHAINS_COMPLETE));
}

/*
 * Two processes on one CPU, each running a different image at the same
 * addresses: static_wl_s2k, and static_wl_s4k whose text covers all of the
 * other's.  Their leaves spin over thousands of addresses, more than the
 * per-CPU lookup cache holds, so that lookups keep missing it.  What the
 * kernel remembers per CPU about one process's sections (cached rows, the
 * last section found) must never answer a lookup of the other: the chains
 * of both must be complete.
 */
TEST_F(sampled, sframe_static_pair)
{
	struct phase_goal g[2] = {
		{ .f = SAMPLE_FILTER_ANY, .leaf = expect[0] },
		{ .f = SAMPLE_FILTER_ANY, .leaf = expect[0] },
	};
	char *const argv[] = { self->exe, WL_ARG, "pair", NULL };

	diag_env(self->exe);
	ASSERT_EQ(0, sampled_start(self, argv));
	g[0].f.pid = self->w.pid;	/* static_wl_s2k */
	g[1].f.not_pid = self->w.pid;	/* static_wl_s4k, its child */
	EXPECT_EQ(0, sampled_until(self, g, ARRAY_SIZE(g)));
	EXPECT_EQ(0, sampled_finish(self));

	self->f = g[0].f;
	EXPECT_TRUE(sampled_check(self, "static_wl_s2k", expect,
				  ARRAY_SIZE(expect), CHAINS_COMPLETE));
	self->f = g[1].f;
	EXPECT_TRUE(sampled_check(self, "static_wl_s4k", expect,
				  ARRAY_SIZE(expect), CHAINS_COMPLETE));
}

/*
 * The workload of sframe_static_pair: stay on this CPU, fork, run
 * static_wl_s4k in the child and static_wl_s2k here.  SIGUSR1 goes to the
 * whole process group and ends both.
 */
static int run_pair(void)
{
	char s2k[PATH_MAX], s4k[PATH_MAX];
	char *const s2k_argv[] = { s2k, NULL };
	char *const s4k_argv[] = { s4k, NULL };
	cpu_set_t set;
	int cpu;
	pid_t pid;

	cpu = sched_getcpu();
	if (cpu < 0)
		return 1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) ||
	    self_dir_file(s2k, sizeof(s2k), "static_wl_s2k") ||
	    self_dir_file(s4k, sizeof(s4k), "static_wl_s4k"))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execv(s4k, s4k_argv);
		_exit(1);
	}
	execv(s2k, s2k_argv);
	return 1;
}

int main(int argc, char **argv)
{
	if (!wl_mode(argc, argv))
		return test_harness_run(argc, argv);
	return run_pair();
}
