// SPDX-License-Identifier: GPL-2.0
/*
 * Complete chains from a process's first sample: the workload starts 100
 * short processes one after the other (fork, exec of this SFrame program,
 * 10 ms of CPU time in main -> a -> b -> c, exit), all sampled from their
 * start, without any warm-up exclusion.
 *
 * At least 99.9 % of the samples in c must have the whole chain, and no
 * chain may have a frame that is not in it: a chain that cannot be
 * completed must end early, not continue through a wrong frame.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sampled.h"
#include "workload.h"

#define PROCESSES	100
#define CPU_MS		10

static const char *const expect[] = { WL_CHAIN, CHAIN_END };

static bool never(struct wl_run *w, void *arg)
{
	return false;
}

/*
 * 100 execs take minutes on a debug kernel under emulation: the guest's
 * per-test limit (settings, scaled for such kernels) ends a hung run.
 */
TEST_F_TIMEOUT(sampled, cold_start, 450)
{
	unsigned long leaf = 0, complete = 0, truncated = 0, wrong = 0;
	unsigned long procs = 0, first_complete = 0;
	struct { pid_t pid; uint64_t time; int class; } first[PROCESSES * 2];
	char *const argv[] = { self->exe, WL_ARG, "parent", NULL };
	struct wl_run *w = &self->w;
	unsigned long i, j;

	diag_env(self->exe);
	ASSERT_EQ(1, elf_has_sframe(self->exe));

	ASSERT_EQ(0, sampled_start(self, argv));
	/* until the workload is done with its children: it exits */
	EXPECT_EQ(-ECHILD, wl_run_until(w, 300000, never, NULL));
	EXPECT_EQ(0, sampled_finish(self));

	for (i = 0; i < w->s.nr_samples; i++) {
		const struct sample *smp = &w->s.samples[i];
		int class;

		if (smp->pid == w->pid || !smp->nr || !smp->sym[0] ||
		    strcmp(smp->sym[0], expect[0]))
			continue;
		leaf++;
		class = chain_match(smp, expect, ARRAY_SIZE(expect));
		complete += class == CHAIN_COMPLETE;
		truncated += class == CHAIN_SHORT;
		wrong += class == CHAIN_WRONG;
		for (j = 0; j < procs; j++)
			if (first[j].pid == smp->pid)
				break;
		if (j == procs) {
			if (procs == ARRAY_SIZE(first))
				continue;
			first[procs++] = (typeof(first[0])){ smp->pid, smp->time, class };
		} else if (smp->time < first[j].time) {
			first[j].time = smp->time;
			first[j].class = class;
		}
	}
	for (j = 0; j < procs; j++)
		first_complete += first[j].class == CHAIN_COMPLETE;

	diag("%lu processes sampled in c; their first sample complete in %lu\n",
	     procs, first_complete);
	diag("samples in c: %lu, complete %lu (%.2f%%), ended early %lu, with a wrong frame %lu\n",
	     leaf, complete, leaf ? 100.0 * complete / leaf : 0.0, truncated,
	     wrong);
	EXPECT_LE(PROCESSES * 9 / 10, procs);
	EXPECT_LE(self->o.min_leaf, leaf);
	EXPECT_EQ(0, wrong);
	EXPECT_LE(leaf * 999, complete * 1000);
}

static void stop(int sig)
{
	workload_stop = 1;
}

int main(int argc, char **argv)
{
	const char *mode = wl_mode(argc, argv);
	char exe[PATH_MAX];
	char *const args[] = { exe, WL_ARG, "child", NULL };
	struct itimerval it = { .it_value.tv_usec = CPU_MS * 1000 };
	int i, status;
	pid_t pid;

	if (!mode)
		return test_harness_run(argc, argv);

	wl_init();
	if (!strcmp(mode, "child")) {
		signal(SIGPROF, stop);
		setitimer(ITIMER_PROF, &it, NULL);
		a();
		return 0;
	}
	if (self_path(exe, sizeof(exe)))
		return 1;
	for (i = 0; i < PROCESSES; i++) {
		pid = fork();
		if (pid < 0)
			return 1;
		if (!pid) {
			execv(exe, args);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			return 1;
	}
	return 0;
}
