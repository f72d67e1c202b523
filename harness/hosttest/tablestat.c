// SPDX-License-Identifier: GPL-2.0
/*
 * tablestat: the table the kernel builds for the .sframe section of each
 * ELF file given, by the kernel's own decoder (kernel/unwind/sframe.c):
 * its rows, distinct rules and functions, and its bytes against the
 * section's. One Markdown row per file.
 *
 *   tablestat FILE...
 *
 * Exits non-zero if a file has no usable section or no table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

int main(int argc, char **argv)
{
	int i, bad = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE...\n", argv[0]);
		return 2;
	}
	hostshim_set_mode(HOSTSHIM_RECORD);
	printf("| file | section bytes | functions | rows | distinct rules | table bytes | bytes per row | table / section |\n");
	printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
	for (i = 1; i < argc; i++) {
		struct section s;
		struct ktable kt;
		size_t bytes;
		u32 nr_blocks;
		u8 shift;
		int rc;

		if (section_load_elf(&s, argv[i], argv[i])) {
			bad = 1;
			continue;
		}
		rc = kt_init_section(&kt, &s);
		if (!rc)
			rc = kt_validate(&kt);
		if (rc) {
			fprintf(stderr, "%s: no table (%d)\n", argv[i], rc);
			bad = 1;
			kt_free(&kt);
			section_free(&s);
			continue;
		}
		/* what sframe_shared_build() allocates, header included */
		bytes = (kt.rules.nr_rows + 1) * sizeof(struct sframe_row) +
			(kt.rules.nr_blocks + 1) * sizeof(u32) +
			kt.rules.nr_rules * sizeof(struct unwind_user_frame) + 128;
		(void)nr_blocks;
		(void)shift;
		printf("| %s | %zu | %u | %u | %u | %zu | %.2f | %.2f |\n",
		       strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i],
		       s.size, kt.nr_funcs, kt.rules.nr_rows,
		       kt.rules.nr_rules, bytes,
		       kt.rules.nr_rows ? (double)bytes / kt.rules.nr_rows : 0,
		       (double)bytes / s.size);
		kt_free(&kt);
		section_free(&s);
	}
	return bad;
}
