// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame data is shared by threads: four threads run
 * thread_fn -> a -> b -> c (-fomit-frame-pointer, --gsframe) and the chains
 * of every one of them must be complete.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>

#include "sampled.h"
#include "workload.h"

#define NR_THREADS	4

static const char *const expect[] = {
	"c", "b", "a", "thread_fn", CHAIN_END
};

static noinline __noclone void *thread_fn(void *arg)
{
	char frame[56];

	wl_use(frame);
	a();
	wl_use(frame);
	return NULL;
}

TEST_F(sampled, sframe_threads)
{
	pid_t tids[NR_THREADS + 1];
	struct phase_goal g = {
		.leaf = expect[0],
		.threads = NR_THREADS,
	};
	char label[64];
	char *const argv[] = { self->exe, WL_ARG, NULL };
	int i, n;

	diag_env(self->exe);
	ASSERT_EQ(1, elf_has_sframe(self->exe));

	ASSERT_EQ(0, sampled_start(self, argv));
	/* enough samples in every thread */
	g.f = self->f;
	EXPECT_EQ(0, sampled_until(self, &g, 1));
	EXPECT_EQ(0, sampled_finish(self));

	n = chain_tids(&self->w.s, self->w.pid, expect[0], tids,
		       ARRAY_SIZE(tids));
	diag("%d threads with %s samples\n", n, expect[0]);
	EXPECT_EQ(NR_THREADS, n);
	for (i = 0; i < n; i++) {
		self->f.tid = tids[i];
		snprintf(label, sizeof(label), "thread %d", i);
		EXPECT_TRUE(sampled_check(self, label, expect,
					  ARRAY_SIZE(expect), CHAINS_COMPLETE));
	}
}

int main(int argc, char **argv)
{
	pthread_t th[NR_THREADS];
	int i;

	if (!wl_mode(argc, argv))
		return test_harness_run(argc, argv);

	wl_init();
	for (i = 0; i < NR_THREADS; i++)
		if (pthread_create(&th[i], NULL, thread_fn, NULL))
			return 1;
	for (i = 0; i < NR_THREADS; i++)
		pthread_join(th[i], NULL);
	return 0;
}
