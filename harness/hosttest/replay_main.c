// SPDX-License-Identifier: GPL-2.0
/*
 * Replay driver for fuzz_sframe.c without libFuzzer: runs every file given
 * (directories: every file in them) through LLVMFuzzerTestOneInput() and
 * prints one TAP line per argument. A crash aborts the process; the shell
 * driver reports that.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "exercise.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	struct stat st;
	uint8_t *buf;
	FILE *f;
	size_t n;

	f = fopen(path, "rb");
	if (!f || fstat(fileno(f), &st)) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	buf = malloc(st.st_size ? st.st_size : 1);
	n = fread(buf, 1, st.st_size, f);
	fclose(f);
	fprintf(stderr, "replay: %s (%zu bytes)\n", path, n);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	int i, bad = 0;

	/* Every derived PC, not the fuzzer's faster subset. */
	setenv("FUZZ_SFRAME_ALL_PCS", "1", 1);

	for (i = 1; i < argc; i++) {
		struct stat st;
		unsigned long files = 0, before = exercise_stats.inputs;
		unsigned long ok0 = exercise_stats.init_ok;
		unsigned long v0 = exercise_stats.validate_ok;
		unsigned long l0 = exercise_stats.lookups;

		if (stat(argv[i], &st)) {
			printf("not ok - replay %s: %s\n", argv[i],
			       strerror(errno));
			bad++;
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			DIR *d = opendir(argv[i]);
			struct dirent *e;
			char **names = NULL;
			size_t n = 0, k;

			while (d && (e = readdir(d))) {
				if (e->d_name[0] == '.' ||
				    !strcmp(e->d_name, "README"))
					continue;
				names = realloc(names, (n + 1) * sizeof(*names));
				names[n] = malloc(strlen(argv[i]) +
						  strlen(e->d_name) + 2);
				sprintf(names[n++], "%s/%s", argv[i],
					e->d_name);
			}
			if (d)
				closedir(d);
			if (n)
				qsort(names, n, sizeof(*names), cmp);
			for (k = 0; k < n; k++) {
				files += !run_file(names[k]);
				free(names[k]);
			}
			free(names);
		} else {
			files += !run_file(argv[i]);
		}
		printf("ok - replay %s: %lu inputs, %lu accepted by init, %lu by validate, %lu lookups\n",
		       argv[i], exercise_stats.inputs - before,
		       exercise_stats.init_ok - ok0,
		       exercise_stats.validate_ok - v0,
		       exercise_stats.lookups - l0);
		(void)files;
		fflush(stdout);
	}
	return bad ? 1 : 0;
}
