// SPDX-License-Identifier: GPL-2.0
/*
 * Cold start: call chains of the first samples of a freshly exec'd SFrame
 * program (main -> a -> b -> c, spinning in c), sampled with cpu-clock from
 * its first instruction (enable_on_exec), with the sampler of the SFrame
 * selftests. The program is linked with many filler functions, so its
 * .sframe spans many pages and is not resident in the new process's page
 * tables when the first samples come.
 *
 *   cold RUNS PERIOD_NS RUN_MS
 *
 * Per run prints how many samples came before the program's own code ran
 * (ld.so, libc start-up), then the sequence of the next FIRST samples:
 * C complete chain in the leaf (c b a main), x incomplete chain in
 * the leaf, . a sample in a, b or main, - any other sample
 * (ld.so, libc, start-up code). Then, over the first FIRST leaf samples: complete
 * ones, the index of the first incomplete one (the miss) and the number of
 * leaf samples after it until the first complete one.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sampler.h"
#include "workload.h"

#define FIRST 20

static const char *const expect[] = { "c", "b", "a", "main" };

static int is(const char *sym, const char *name)
{
	return sym && !strcmp(sym, name);
}

static int complete(const struct sample *s)
{
	unsigned int i;

	if (s->nr < 4)
		return 0;
	for (i = 0; i < 4; i++)
		if (!is(s->sym[i], expect[i]))
			return 0;
	return 1;
}

static bool never(struct wl_run *w, void *arg)
{
	return false;
}

int main(int argc, char **argv)
{
	unsigned long runs_ok = 0, leaf_all = 0, complete_all = 0;
	unsigned long with_miss = 0, recover_sum = 0, recover_max = 0;
	char exe[PATH_MAX];
	struct sampler_opts o;
	int runs, r;

	if (wl_mode(argc, argv)) {
		wl_init();
		a();
		return 0;
	}
	if (argc != 4 || (runs = atoi(argv[1])) < 1 || runs > 1000 ||
	    atol(argv[2]) < 10000 || atoi(argv[3]) < 1) {
		fprintf(stderr, "usage: cold RUNS PERIOD_NS(>=10000) RUN_MS\n");
		return 2;
	}
	if (self_path(exe, sizeof(exe))) {
		fprintf(stderr, "cold: cannot find my own path\n");
		return 2;
	}
	sampler_get_opts(&o);
	o.period_ns = atol(argv[2]);
	o.run_ms = atoi(argv[3]);

	for (r = 0; r < runs; r++) {
		char *const wargv[] = { exe, WL_ARG, NULL };
		char seq[FIRST + 1];
		int nseq = 0, leaf = 0, done = 0, miss = -1, rec = -1, pre = 0;
		struct wl_run w;
		size_t i;

		/* a run of RUN_MS: wl_run_until()'s bound */
		if (wl_start(&w, exe, wargv, &o) ||
		    wl_run_until(&w, o.run_ms, never, NULL) != -ETIMEDOUT ||
		    wl_finish(&w)) {
			fprintf(stderr, "cold: run %d: sampling failed\n", r);
			wl_cleanup(&w);
			return 1;
		}
		for (i = 0; i < w.s.nr_samples; i++) {
			const struct sample *s = &w.s.samples[i];
			int in_exe = s->nr && (is(s->sym[0], "a") ||
					       is(s->sym[0], "b") ||
					       is(s->sym[0], "main"));

			if (s->pid != w.pid || s->gen < 1)
				continue;
			if (s->nr && is(s->sym[0], "c")) {
				int ok = complete(s);

				if (leaf < FIRST) {
					complete_all += ok;
					done += ok;
					if (!ok && miss < 0)
						miss = leaf;
					if (ok && miss >= 0 && rec < 0)
						rec = leaf - miss;
				}
				leaf++;
				if (nseq < FIRST)
					seq[nseq++] = ok ? 'C' : 'x';
			} else if (!nseq && !in_exe) {
				pre++;	/* before the program's own code runs */
			} else if (nseq < FIRST) {
				seq[nseq++] = in_exe ? '.' : '-';
			}
		}
		seq[nseq] = 0;
		if (leaf > FIRST)
			leaf = FIRST;
		leaf_all += leaf;
		if (miss >= 0) {
			with_miss++;
			if (rec > 0) {
				recover_sum += rec;
				if ((unsigned long)rec > recover_max)
					recover_max = rec;
			}
		}
		printf("cold run=%d before=%d samples=%s leaf=%d complete_first=%d first_miss=%d recovered_after=%d\n",
		       r, pre, nseq ? seq : "none", leaf, done, miss, rec);
		if (leaf)
			runs_ok++;
		wl_cleanup(&w);
	}
	printf("cold-summary runs=%d runs_with_leaf=%lu leaf=%lu complete=%lu runs_with_miss=%lu recover_mean=%.2f recover_max=%lu\n",
	       runs, runs_ok, leaf_all, complete_all, with_miss,
	       with_miss ? (double)recover_sum / with_miss : 0.0, recover_max);
	return 0;
}
