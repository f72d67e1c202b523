// SPDX-License-Identifier: GPL-2.0
/*
 * A uretprobe on b() replaces b's return address on the stack with the
 * uprobe trampoline while b runs.  The walk must put the saved return
 * address back and go on: samples in c (main -> a -> b -> c, SFrame, no
 * frame pointers) must have the whole chain c <- b <- a <- main.
 *
 * The uretprobe is a perf event of the uprobe PMU, on every CPU, attached
 * before the workload starts; its count shows that it fired.
 */
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sampled.h"
#include "workload.h"

#define UPROBE_PMU	"/sys/bus/event_source/devices/uprobe"

static const char *const expect[] = { WL_CHAIN, CHAIN_END };

struct text_addr {
	unsigned long addr;	/* run-time address */
	unsigned long off;	/* file offset, once found */
};

/* The file offset of an address in the main program. */
static int main_prog_off(struct dl_phdr_info *info, size_t size, void *data)
{
	struct text_addr *t = data;
	unsigned long rel = t->addr - info->dlpi_addr;
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		typeof(info->dlpi_phdr) ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && rel >= ph->p_vaddr &&
		    rel < ph->p_vaddr + ph->p_filesz) {
			t->off = rel - ph->p_vaddr + ph->p_offset;
			return 1;
		}
	}
	return 1;	/* the main program comes first: stop either way */
}

static int read_int(const char *path, const char *fmt, int *v)
{
	FILE *f = fopen(path, "r");
	int ret;

	if (!f)
		return -1;
	ret = fscanf(f, fmt, v) == 1 ? 0 : -1;
	fclose(f);
	return ret;
}

TEST_F(sampled, chain_through_trampoline)
{
	struct text_addr t = { .addr = (unsigned long)b };
	struct perf_event_attr attr = { .size = sizeof(attr) };
	int type, bit, cpu, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	char *const argv[] = { self->exe, WL_ARG, NULL };
	unsigned long long hits = 0, n;
	int fds[64], nfds = 0, i;

	if (read_int(UPROBE_PMU "/type", "%d", &type) ||
	    read_int(UPROBE_PMU "/format/retprobe", "config:%d", &bit))
		SKIP(return, "no uprobe PMU (%s)", UPROBE_PMU);
	dl_iterate_phdr(main_prog_off, &t);
	ASSERT_NE(0, t.off);

	/* the events end with the test's process */
	attr.type = type;
	attr.config = 1ULL << bit;
	attr.config1 = (unsigned long)self->exe;	/* uprobe_path */
	attr.config2 = t.off;				/* probe_offset */
	for (cpu = 0; cpu < ncpu && cpu < ARRAY_SIZE(fds); cpu++) {
		int fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1,
				 PERF_FLAG_FD_CLOEXEC);

		ASSERT_LE(0, fd) TH_LOG("uretprobe at %s+%#lx on CPU %d: %s",
					self->exe, t.off, cpu, strerror(errno));
		fds[nfds++] = fd;
	}
	diag("uretprobe on b at %s+%#lx, %d CPUs\n", self->exe, t.off, nfds);

	diag_env(self->exe);
	ASSERT_EQ(1, elf_has_sframe(self->exe));
	EXPECT_EQ(0, sampled_run(self, argv, expect[0]));

	/* b returned once the workload was told to stop */
	for (i = 0; i < nfds; i++)
		if (read(fds[i], &n, sizeof(n)) == sizeof(n))
			hits += n;
	diag("uretprobe on b fired %llu times\n", hits);
	EXPECT_LE(1, hits);
	ASSERT_TRUE(sampled_check(self, "through the uretprobe trampoline",
				  expect, ARRAY_SIZE(expect), CHAINS_COMPLETE));
}

int main(int argc, char **argv)
{
	if (wl_mode(argc, argv)) {
		wl_init();
		a();
		return 0;
	}
	return test_harness_run(argc, argv);
}
