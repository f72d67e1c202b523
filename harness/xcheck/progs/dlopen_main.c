// SPDX-License-Identifier: GPL-2.0
/*
 * dlopen test program: four rounds of dlopen("libxcdso.so") (from the
 * program's directory), lib_entry -> lib_mid -> lib_leaf for a quarter of
 * the run time, dlclose(). Each round maps the library anew. Built with
 * -Wa,--gsframe and without frame pointers, as is the library.
 *
 * Usage: dlopen [SECONDS]   (default 1.5)
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "xc_common.h"

#define ROUNDS 4

typedef unsigned long (*entry_fn)(unsigned long);

FRAME unsigned long round_work(entry_fn fn, double end)
{
	unsigned long total = 0, n = 0;

	while (xc_now() < end)
		total += fn(n++);
	return total;
}

int main(int argc, char **argv)
{
	double secs = xc_seconds(argc, argv);
	unsigned long total = 0;
	char path[PATH_MAX];
	const char *slash = strrchr(argv[0], '/');
	int len = slash ? (int)(slash - argv[0]) : 1;

	snprintf(path, sizeof(path), "%.*s/libxcdso.so", len, slash ? argv[0] : ".");
	for (int r = 0; r < ROUNDS; r++) {
		void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		entry_fn fn;

		if (!h) {
			fprintf(stderr, "dlopen: %s\n", dlerror());
			return 1;
		}
		fn = (entry_fn)dlsym(h, "lib_entry");
		if (!fn) {
			fprintf(stderr, "dlsym: %s\n", dlerror());
			return 1;
		}
		total += round_work(fn, xc_now() + secs / ROUNDS);
		dlclose(h);
	}
	printf("dlopen: %d rounds (checksum %lx)\n", ROUNDS, total);
	return 0;
}
