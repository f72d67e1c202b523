/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run the kernel decoder on arbitrary bytes taken as a whole .sframe
 * section and check the invariants that must hold for ANY input. Shared by
 * the libFuzzer target, its replay driver and malformed_test. Needs only the
 * decoder and the shim (no libelf, no libsframe).
 */
#ifndef HOSTTEST_EXERCISE_H
#define HOSTTEST_EXERCISE_H

#include <stddef.h>
#include <stdint.h>

struct exercise_stats {
	unsigned long inputs;
	unsigned long init_ok;		/* sframe_table_init() accepted */
	unsigned long validate_ok;	/* sframe_table_validate() accepted */
	unsigned long lookups;
	unsigned long frames;		/* lookups that returned a frame */
	unsigned long model_checked;	/* lookups compared with the model */
	unsigned long failures;		/* invariant violations */
};

extern struct exercise_stats exercise_stats;

/* Lookups per input are capped at this many PCs (default 4096). */
extern unsigned int exercise_max_pcs;

/*
 * @data/@size: the section. The section is copied to a buffer of exactly
 * @size bytes at some host address SEC; the text range given to the
 * decoder is [SEC - 2 GiB, SEC + 4 GiB), which every s32 function start
 * can reach.
 *
 * Checked, besides "no read outside the section" (the shim) and "no
 * sanitizer report":
 *  - sframe_table_init(), sframe_table_validate() and the lookup return
 *    only the documented error codes (no -EFAULT without injected faults);
 *  - the lookup (sframe_rules_lookup()) is deterministic;
 *  - the header's num_fres, read from the bytes: at most fre_len / 2 if
 *    sframe_table_init() accepted, at least the sum of the FDEs' fres_num
 *    if sframe_table_validate() accepted, and the validation made at most
 *    1 + num_fdes + num_fres reads (header, FDEs, rows);
 *  - on a section sframe_table_validate() accepted, the lookup returns
 *    only 0 or -ENOENT and agrees with an independent reference model;
 *  - with a fault injected from some offset to the end of the section,
 *    each result is either the fault-free one or -EFAULT, and
 *    sframe_rules_lookup() never uses the faulting copy_from_user().
 *
 * Returns the number of violations found (each one printed to stderr).
 */
int exercise(const uint8_t *data, size_t size);

/*
 * PCs (target addresses, section at @sec) worth looking up in @data:
 * derived from the FDE table as the header describes it, bounds-checked:
 * start - 1, start, start + 1, middle, end - 1 and end of each function,
 * and each FRE start. Returns the number stored in @pcs (at most @max).
 */
size_t derive_pcs(const uint8_t *data, size_t size, uint64_t sec,
		  uint64_t *pcs, size_t max);

#endif /* HOSTTEST_EXERCISE_H */
