// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the SFrame decoder (kernel/unwind/sframe.c built with
 * the host shim): the input is a whole .sframe section. It is run through
 * sframe_table_init(), sframe_table_validate() and sframe_rules_lookup() at PCs
 * derived from its FDE table (every function start, +1, -1, middle, end-1,
 * end, and FRE starts), see exercise.c for the invariants.
 *
 * A read outside the section aborts in the shim (HOSTSHIM_ABORT), a broken
 * invariant aborts here, and ASan/UBSan report the rest: libFuzzer saves
 * the input. Built by "make -C harness/hosttest fuzz" with clang
 * -fsanitize=fuzzer,address,undefined; the same file without libFuzzer is
 * the replay driver (replay_main.c) that "make check" runs on regress/ and
 * the seed corpus.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "exercise.h"
#include "shim/hostshim.h"

/* Each input is one whole section, so this also bounds memory per run. */
#define MAX_INPUT	(1 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int once;

	if (!once) {
		once = 1;
		hostshim_set_mode(HOSTSHIM_ABORT);
		/* Speed over breadth: the first PCs cover the first FDEs. */
		if (!getenv("FUZZ_SFRAME_ALL_PCS"))
			exercise_max_pcs = 512;
	}
	if (size > MAX_INPUT)
		return -1;	/* not added to the corpus */
	if (exercise(data, size)) {
		fprintf(stderr, "fuzz_sframe: invariant violated (see above)\n");
		abort();
	}
	return 0;
}
