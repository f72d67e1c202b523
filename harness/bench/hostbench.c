// SPDX-License-Identifier: GPL-2.0
/*
 * Host micro-benchmark of the kernel's SFrame decoder (kernel/unwind/sframe.c
 * built in user space with the host test shims, -O2, no sanitizers).
 *
 *   hostbench [-n lookups] [-r reps] ELF...
 *
 * For each ELF file's .sframe, validated and decoded into its table as the
 * kernel does: the table's rows, distinct rules and bytes, and
 * sframe_rules_lookup() time per lookup for random IPs (a pool of 4096 addresses in
 * the text that have an FDE, visited in random order) and for one repeated
 * IP. Prints
 *   host file=NAME fdes=N bytes=B rows=R rules=U table_bytes=T
 *        random_ns=X repeated_ns=Y
 * (medians over the reps). Exit status 2 on bad input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

#define POOL	4096

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static volatile long sink;

static double run(struct ktable *kt, const unsigned long *ips, unsigned int mask,
		  long n)
{
	const struct unwind_user_frame *f;
	double t0 = now_ns();
	long i, acc = 0;

	for (i = 0; i < n; i++) {
		f = sframe_rules_lookup(&kt->rules,
					ips[i & mask] - kt->tbl.text_start);
		acc += f ? f->cfa_off : -1;
	}
	sink = acc;
	return (now_ns() - t0) / n;
}

int main(int argc, char **argv)
{
	long n = 2000000;
	int reps = 5, opt, a, rc = 0;

	while ((opt = getopt(argc, argv, "n:r:")) != -1) {
		if (opt == 'n')
			n = atol(optarg);
		else if (opt == 'r')
			reps = atoi(optarg);
		else
			goto usage;
	}
	if (optind >= argc || n < 1 || reps < 1 || reps > 99)
		goto usage;
	hostshim_set_mode(HOSTSHIM_ABORT);
	for (a = optind; a < argc; a++) {
		static unsigned long pool[POOL], same[POOL];
		double tr[100], ts[100];
		struct section s;
		struct ktable kt;
		struct rng rng;
		const char *name = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
		unsigned int got = 0, i;
		long tries = 0;
		size_t tbytes;
		int r;

		if (section_load_elf(&s, argv[a], name)) {
			rc = 2;
			continue;
		}
		if (kt_init_section(&kt, &s)) {
			fprintf(stderr, "%s: sframe_table_init failed\n", argv[a]);
			section_free(&s);
			rc = 2;
			continue;
		}
		/* Validated, and its table built, as the kernel does. */
		if (kt_validate(&kt)) {
			fprintf(stderr, "%s: sframe_table_validate failed\n", argv[a]);
			rc = 2;
			goto next;
		}
		/* lookups read the table alone */
		hostshim_allow_none();
		hostshim_set_atomic(true);
		rng_seed(&rng, 42);
		while (got < POOL && tries < 100L * POOL) {
			unsigned long ip = kt_host(&kt, s.text_lo +
						   rng_below(&rng, s.text_hi - s.text_lo));

			tries++;
			if (sframe_rules_lookup(&kt.rules, ip - kt.tbl.text_start))
				pool[got++] = ip;
		}
		if (got < POOL) {
			fprintf(stderr, "%s: too few text addresses with an FDE\n", argv[a]);
			rc = 2;
			goto next;
		}
		for (i = 0; i < POOL; i++)
			same[i] = pool[0];
		for (r = 0; r < reps; r++) {
			tr[r] = run(&kt, pool, POOL - 1, n);
			ts[r] = run(&kt, same, POOL - 1, n);
		}
		qsort(tr, reps, sizeof(double), cmp_d);
		qsort(ts, reps, sizeof(double), cmp_d);
		/* as sframe_rules_size(), and the allocation's header */
		tbytes = (size_t)(kt.rules.nr_blocks + 1) * sizeof(u32) +
			 (size_t)kt.rules.nr_rules * sizeof(struct unwind_user_frame) +
			 (size_t)(kt.rules.nr_rows + 1) * sizeof(struct sframe_row) + 128;
		printf("host file=%s fdes=%u bytes=%zu rows=%u rules=%u table_bytes=%zu random_ns=%.1f repeated_ns=%.1f\n",
		       name, kt.tbl.num_fdes, s.size, kt.rules.nr_rows,
		       kt.rules.nr_rules, tbytes, tr[reps / 2], ts[reps / 2]);
		fflush(stdout);
next:
		hostshim_set_atomic(false);
		hostshim_allow_none();
		kt_free(&kt);
		section_free(&s);
	}
	return rc;
usage:
	fprintf(stderr, "usage: hostbench [-n lookups] [-r reps] ELF...\n");
	return 2;
}
