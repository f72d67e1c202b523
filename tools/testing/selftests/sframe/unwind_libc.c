// SPDX-License-Identifier: GPL-2.0
/*
 * Samples that land in the C library, which has no SFrame data here, keep
 * their callers: main -> lc_a -> lc_work -> memcpy/strlen (a leaf in libc),
 * and main -> lc_a -> lc_work -> qsort -> ... -> lc_cmp (a callback of the
 * program called from libc).  The chains must be complete when libc's
 * .eh_frame is converted (kernel.unwind_user_eh_frame=1); without it,
 * none may be: the walk then stops at the first frame in libc, or goes
 * on with a frame pointer that does not lead to lc_work.
 * The sysctls are restored afterwards.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sampled.h"
#include "workload.h"

#define LC_BUF		(64 << 10)
#define LC_SORT_NR	32
/* Leaf samples counted: within this many bytes of the function's entry. */
#define LC_FN_SPAN	0x2000

/* Initialised data: no memset() at start-up, next to memcpy() in libc. */
static char lc_src[LC_BUF] = { [0 ... LC_BUF - 2] = 'x' };
static char lc_dst[LC_BUF];
/* Not constants: the calls stay calls into libc. */
size_t lc_len = LC_BUF;
unsigned int lc_spin = 200;

static noinline __noclone void lc_memcpy(void)
{
	memcpy(lc_dst, lc_src, lc_len);
}

static noinline __noclone void lc_strlen(void)
{
	lc_len = strlen(lc_src) + 1;
}

/* The callback: most of the sort's time is spent here. */
static noinline __noclone int lc_cmp(const void *a, const void *b)
{
	unsigned int i;

	for (i = 0; i < lc_spin; i++)
		wl_use(&i);
	return *(const int *)a - *(const int *)b;
}

static noinline __noclone void lc_qsort(void)
{
	int v[LC_SORT_NR];
	unsigned int i;

	for (i = 0; i < LC_SORT_NR; i++)
		v[i] = (i * 7919) % LC_SORT_NR;
	qsort(v, LC_SORT_NR, sizeof(v[0]), lc_cmp);
	wl_use(v);
}

/* What lc_work() calls in its loop, for the mode of the run. */
static void (*lc_fn)(void);

noinline __noclone void lc_work(void)
{
	char frame[40];

	while (!workload_stop) {
		lc_fn();
		wl_use(frame);
	}
}

noinline __noclone void lc_a(void)
{
	char frame[72];

	wl_use(frame);
	lc_work();
	wl_use(frame);
}

struct lc_case {
	const char *mode;
	void (*fn)(void);
	/* libc function where the leaf samples must be, or NULL */
	const char *libc_fn;
	/* expected chain, leaf first */
	const char *expect[7];
	unsigned int depth;
};

static const struct lc_case lc_cases[] = {
	{ "memcpy", lc_memcpy, "memcpy",
	  { "@libc.so", "lc_memcpy", "lc_work", "lc_a", "main", CHAIN_END }, 6 },
	{ "strlen", lc_strlen, "strlen",
	  { "@libc.so", "lc_strlen", "lc_work", "lc_a", "main", CHAIN_END }, 6 },
	{ "qsort", lc_qsort, NULL,
	  { "lc_cmp", "@libc.so", "lc_qsort", "lc_work", "lc_a", "main",
	    CHAIN_END }, 7 },
};

static const struct lc_case *lc_find(const char *mode)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lc_cases); i++)
		if (!strcmp(lc_cases[i].mode, mode))
			return &lc_cases[i];
	return NULL;
}

/*
 * The file offset of the code that a call of libc's @name runs (for an
 * IFUNC, dlsym() gives the implementation chosen for this CPU, the same in
 * the workload): startup and exit samples elsewhere in libc are not leaf
 * samples of the workload.
 */
static int libc_fn_offset(const char *name, uint64_t *off)
{
	unsigned long start, end, pgoff, addr;
	char line[512], path[256];
	int ret = -1;
	FILE *f;

	addr = (unsigned long)dlsym(RTLD_DEFAULT, name);
	f = fopen("/proc/self/maps", "re");
	if (!addr || !f)
		goto out;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %255s", &start, &end,
			   &pgoff, path) != 4 || addr < start || addr >= end)
			continue;
		if (strstr(path, "/libc.so")) {
			*off = addr - start + pgoff;
			ret = 0;
		}
		break;
	}
out:
	if (f)
		fclose(f);
	return ret;
}

FIXTURE_VARIANT(sampled) {
	const char *mode;
	int eh_frame;
};

FIXTURE_VARIANT_ADD(sampled, memcpy) { .mode = "memcpy", .eh_frame = 1 };
FIXTURE_VARIANT_ADD(sampled, strlen) { .mode = "strlen", .eh_frame = 1 };
FIXTURE_VARIANT_ADD(sampled, qsort) { .mode = "qsort", .eh_frame = 1 };
FIXTURE_VARIANT_ADD(sampled, memcpy_off) { .mode = "memcpy" };
FIXTURE_VARIANT_ADD(sampled, strlen_off) { .mode = "strlen" };
FIXTURE_VARIANT_ADD(sampled, qsort_off) { .mode = "qsort" };

TEST_F(sampled, libc)
{
	const struct lc_case *c = lc_find(variant->mode);
	char *const argv[] = { self->exe, WL_ARG, (char *)variant->mode, NULL };
	/* a table for libc: complete chains; none: not one */
	bool complete = variant->eh_frame;

	ASSERT_EQ(0, sampled_sysctl(self, EH_FRAME_SYSCTL, variant->eh_frame));
	diag_env(self->exe);
	ASSERT_EQ(1, elf_has_sframe(self->exe));
	if (c->libc_fn) {
		ASSERT_EQ(0, libc_fn_offset(c->libc_fn, &self->f.leaf_off));
		self->f.leaf_end = self->f.leaf_off + LC_FN_SPAN;
		diag("leaf samples: libc.so+0x%llx..0x%llx (%s)\n",
		     (unsigned long long)self->f.leaf_off,
		     (unsigned long long)self->f.leaf_end, c->libc_fn);
	}
	ASSERT_TRUE(sampled_chains(self, variant->mode, argv, c->expect,
				   c->depth, complete ? CHAINS_COMPLETE :
				   CHAINS_NONE));
}

int main(int argc, char **argv)
{
	const char *mode = wl_mode(argc, argv);
	const struct lc_case *c;

	if (mode) {
		c = lc_find(mode);
		if (!c)
			return 2;
		lc_fn = c->fn;
		wl_init();
		lc_a();
		return 0;
	}
	return test_harness_run(argc, argv);
}
