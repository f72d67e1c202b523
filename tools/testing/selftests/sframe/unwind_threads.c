// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame data is shared by threads: four threads run
 * thread_fn -> a -> b -> c (-fomit-frame-pointer, --gsframe) and the chains
 * of every one of them must be complete.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>

#include "kselftest_harness.h"
#include "sampler.h"
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

TEST(sframe_threads)
{
	struct sample_filter f = SAMPLE_FILTER_ANY;
	pid_t tids[NR_THREADS + 1];
	struct phase_goal g = {
		.f = SAMPLE_FILTER_ANY,
		.leaf = expect[0],
		.threads = NR_THREADS,
	};
	struct sampler_opts o;
	struct chain_stats st;
	char exe[PATH_MAX], label[64];
	char *const argv[] = { exe, WL_ARG, NULL };
	struct wl_run w;
	int i, n, bad = 0;

	sampler_get_opts(&o);
	ASSERT_EQ(0, self_path(exe, sizeof(exe)));
	diag_env(exe);
	ASSERT_EQ(1, elf_has_sframe(exe));

	ASSERT_EQ(0, wl_start(&w, exe, argv, &o));
	/* enough samples in every thread */
	g.f.pid = w.pid;
	EXPECT_EQ(0, wl_phase_until(&w, &o, &g, 1));
	EXPECT_EQ(0, wl_finish(&w));
	EXPECT_TRUE(wl_exit_ok(&w));

	n = chain_tids(&w.s, w.pid, expect[0], tids, ARRAY_SIZE(tids));
	diag("%d threads with %s samples\n", n, expect[0]);
	f.pid = w.pid;
	for (i = 0; i < n; i++) {
		f.tid = tids[i];
		snprintf(label, sizeof(label), "thread %d", i);
		if (!chain_report(label, &w.s, &f, expect, ARRAY_SIZE(expect),
				  &o, &st))
			bad++;
	}
	wl_cleanup(&w);
	ASSERT_EQ(NR_THREADS, n);
	ASSERT_EQ(0, bad);
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
