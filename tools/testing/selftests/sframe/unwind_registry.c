// SPDX-License-Identifier: GPL-2.0
/*
 * Lifetimes and bounds of the kernel's per-process SFrame registrations.
 *
 * Every executable mapping of a file with PT_GNU_SFRAME registers its
 * section; the registration must end with the text, whatever the path, and
 * a process may hold at most vm.max_map_count of them ("more than N SFrame
 * sections" in the kernel log when a registration is refused).
 *
 * teardown_at_scale: thousands of registrations, copied by fork and freed
 *	at exit of the child and of the process: the kernel must survive.
 * The other tests lower vm.max_map_count to a little above what the
 * process maps and repeat a map/unmap path many more times than that,
 * each round at a new address (a registration left where text is mapped
 * again only keeps the new text from registering, silently): a
 * registration left behind by the path fills the quota, and the kernel
 * says so.  Paths: text mapped writable, text made non-executable before
 * munmap, text moved by mremap, text replaced by MAP_FIXED, MADV_DONTFORK
 * text in a forked child, and one file's text mapped page by page (one
 * registration, not one per page).
 * memcg_charged: the registrations' memory is charged to the process's
 *	memory cgroup.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/elf.h>

#include "kselftest_harness.h"
#include "sampler.h"

#define MAX_MAP_COUNT	"/proc/sys/vm/max_map_count"
#define LIMIT_MSG	"SFrame sections (vm.max_map_count)"
#define SUPPRESSED_MSG	"sframe_mmap_file: "
#define ROUNDS		512

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

/* The executable segment of an SFrame library, as a file range. */
struct text_file {
	int fd;
	off_t off;	/* page aligned */
	size_t len;	/* whole pages inside the segment */
};

static size_t page;

static int text_open(struct text_file *t, const char *path)
{
	struct elf64_hdr eh;
	struct elf64_phdr ph;
	int i;

	t->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (t->fd < 0 || pread(t->fd, &eh, sizeof(eh), 0) != sizeof(eh))
		return -1;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(t->fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) !=
		    sizeof(ph))
			return -1;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		t->off = ph.p_offset & ~(page - 1);
		t->len = (ph.p_offset + ph.p_filesz - t->off) & ~(page - 1);
		if (!t->len)
			t->len = page;
		return 0;
	}
	return -1;
}

static void *text_map(const struct text_file *t, void *at, size_t off,
		      int prot, int flags)
{
	return mmap(at, page, prot, MAP_PRIVATE | flags, t->fd, t->off + off);
}

/* An address range nobody else uses, for MAP_FIXED. */
static char *reserve(size_t len)
{
	void *p = mmap(NULL, len, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int map_count(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	int c, n = 0;

	if (!f)
		return -1;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static int sysctl_read(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static int sysctl_write(const char *path, int v)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fprintf(f, "%d\n", v) < 0;
	return fclose(f) || ret ? -1 : 0;
}

static int file_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -1;
	ret = write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -1;
	close(fd);
	return ret;
}

/* The kernel log from now on. */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* Kernel log records since kmsg_open() that say a registration was refused. */
static int kmsg_refusals(int fd)
{
	char rec[1024];
	ssize_t n;
	int hits = 0;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records */
		if (n <= 0)
			break;
		rec[n] = 0;
		if (strstr(rec, LIMIT_MSG) ||
		    (strstr(rec, SUPPRESSED_MSG) && strstr(rec, "suppressed"))) {
			diag("kernel: %s", strchr(rec, ';') ? strchr(rec, ';') + 1 : rec);
			hits++;
		}
	}
	return hits;
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1e3 + (t.tv_nsec - t0->tv_nsec) / 1e6;
}

FIXTURE(registry) {
	struct text_file t;
	int saved_max;
	int kmsg;
	int collector;
};

FIXTURE_SETUP(registry)
{
	char lib[PATH_MAX];

	/* without registrations every check here would pass */
	if (unwind_sysctl_read() != 1)
		SKIP(return, "no SFrame registrations (kernel.unwind_user_sframe not 1)");
	/* sections are registered at mmap while call chains are collected */
	self->collector = collector_open();
	if (self->collector < 0)
		SKIP(return, "perf_event_open: %s", strerror(-self->collector));
	page = sysconf(_SC_PAGESIZE);
	ASSERT_EQ(0, self_dir_file(lib, sizeof(lib), "libsf_a.so"));
	ASSERT_EQ(1, elf_has_sframe(lib));
	ASSERT_EQ(0, text_open(&self->t, lib));
	self->saved_max = sysctl_read(MAX_MAP_COUNT);
	ASSERT_LT(0, self->saved_max);
	self->kmsg = kmsg_open();
	ASSERT_LE(0, self->kmsg);
}

FIXTURE_TEARDOWN(registry)
{
	sysctl_write(MAX_MAP_COUNT, self->saved_max);
	close(self->collector);
	close(self->kmsg);
	close(self->t.fd);
}

/* Allow @extra mappings more than the process has now. */
static int quota(int extra)
{
	int n = map_count();

	if (n < 0)
		return -1;
	diag("vm.max_map_count %d (%d mappings now)\n", n + extra, n);
	return sysctl_write(MAX_MAP_COUNT, n + extra);
}

/* Thousands of registrations, copied at fork, freed at exit. */
/* Unreclaimable slab in kB, from /proc/meminfo. */
static long slab_kb(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SUnreclaim: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * Ask every slab cache to give back what it holds freed: objects in the
 * KASAN quarantine and empty slabs.  Without SLUB's sysfs files, nothing.
 */
static void slab_shrink_all(void)
{
	DIR *d = opendir("/sys/kernel/slab");
	struct dirent *e;
	char path[PATH_MAX];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
			 e->d_name);
		file_write(path, "1");
	}
	closedir(d);
}

/*
 * Thousands of registrations, copied at fork, freed at exit; the kernel
 * memory they took is given back (kfree_rcu(): after a grace period; on a
 * KASAN kernel out of its quarantine when the caches are shrunk).
 */
TEST_F_TIMEOUT(registry, teardown_at_scale, 300)
{
	int n = 8000, i, status, p[2];
	long before, during = -1, after, slack;
	struct timespec t0;
	pid_t pid;

	if (n > self->saved_max / 2)
		n = self->saved_max / 2;

	ASSERT_EQ(0, pipe(p));
	slab_shrink_all();
	before = slab_kb();
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* one mapping, one registration each */
		for (i = 0; i < n; i++)
			if (text_map(&self->t, NULL, 0, PROT_READ | PROT_EXEC,
				     0) == MAP_FAILED)
				_exit(10);
		during = slab_kb();
		clock_gettime(CLOCK_MONOTONIC, &t0);
		pid = fork();
		if (pid < 0)
			_exit(11);
		if (!pid)
			_exit(0);
		if (waitpid(pid, &status, 0) != pid || status)
			_exit(12);
		diag("%d registrations: fork and exit of a child %.1f ms\n",
		     n, ms_since(&t0));
		if (write(p[1], &during, sizeof(during)) != sizeof(during))
			_exit(13);
		_exit(0);
	}
	close(p[1]);
	ASSERT_EQ(sizeof(during), read(p[0], &during, sizeof(during)));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	diag("exit of the process with %d registrations: %.1f ms\n", n,
	     ms_since(&t0));
	close(p[0]);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	/*
	 * Freed after an RCU grace period: wait for it, 10 s at most.  At
	 * least three quarters of what they took must come back (the rest:
	 * whatever else the system allocated meanwhile).
	 */
	slack = (during - before) / 4;
	for (i = 0; i < 100; i++) {
		slab_shrink_all();
		after = slab_kb();
		if (after <= before + slack)
			break;
		usleep(100000);
	}
	diag("unreclaimable slab: %ld kB before, %ld kB with them, %ld kB after exit\n",
	     before, during, after);
	ASSERT_LT(before + 1024, during) {
		diag("the mappings took less kernel memory than expected\n");
	}
	EXPECT_LE(after, before + slack);
	EXPECT_EQ(0, kmsg_refusals(self->kmsg));
}

/* How a round ends the text it maps. */
enum text_end {
	END_WRITABLE,		/* mapped read-write-execute, unmapped */
	END_MPROTECT,		/* made non-executable, then unmapped */
	END_MREMAP,		/* moved by mremap: its old range is gone */
	END_MAP_FIXED,		/* replaced by an anonymous MAP_FIXED mapping */
};

/*
 * ROUNDS rounds of mapping one text page and ending it the @how way, each
 * at a new address: 0, or -1 if a step failed.
 */
static int text_rounds(const struct text_file *t, enum text_end how)
{
	char *area = reserve(2 * ROUNDS * page), *at;
	int prot = PROT_READ | PROT_EXEC;
	int i;

	if (!area)
		return -1;
	if (how == END_WRITABLE)
		prot |= PROT_WRITE;
	/* rounds side by side: the holes they leave join, no VMA is split */
	for (i = 0; i < ROUNDS; i++) {
		at = area + (how == END_MREMAP ? 2 : 1) * i * page;
		if (text_map(t, at, 0, prot, MAP_FIXED) != at)
			return -1;
		switch (how) {
		case END_MPROTECT:
			if (mprotect(at, page, PROT_READ))
				return -1;
			break;
		case END_MREMAP:
			if (mremap(at, page, page, MREMAP_MAYMOVE | MREMAP_FIXED,
				   at + page) != at + page)
				return -1;
			at += page;
			break;
		case END_MAP_FIXED:
			if (mmap(at, page, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
				 0) != at)
				return -1;
			break;
		default:
			break;
		}
		if (munmap(at, page))
			return -1;
	}
	return 0;
}

TEST_F(registry, writable_text)
{
	ASSERT_EQ(0, quota(64));
	ASSERT_EQ(0, text_rounds(&self->t, END_WRITABLE));
	EXPECT_EQ(0, kmsg_refusals(self->kmsg));
}

TEST_F(registry, mprotect_then_munmap)
{
	ASSERT_EQ(0, quota(64));
	ASSERT_EQ(0, text_rounds(&self->t, END_MPROTECT));
	EXPECT_EQ(0, kmsg_refusals(self->kmsg));
}

TEST_F(registry, mremap_text)
{
	ASSERT_EQ(0, quota(64));
	ASSERT_EQ(0, text_rounds(&self->t, END_MREMAP));
	EXPECT_EQ(0, kmsg_refusals(self->kmsg));
}

TEST_F(registry, map_fixed_over_text)
{
	ASSERT_EQ(0, quota(64));
	ASSERT_EQ(0, text_rounds(&self->t, END_MAP_FIXED));
	EXPECT_EQ(0, kmsg_refusals(self->kmsg));
}

/*
 * MADV_DONTFORK text is not the child's: neither are its registrations.
 * The parent holds @k of them and may map 8 pages more; the child, which
 * has @k mappings fewer, maps @k + 4 pages, which a child that had
 * inherited the parent's registrations could not register.
 */
TEST_F(registry, dontfork_text)
{
	const int k = 200;
	char *child_area = reserve((k + 4) * page);
	int i, status;
	pid_t pid;

	ASSERT_NE(NULL, child_area);
	for (i = 0; i < k; i++) {
		void *p = text_map(&self->t, NULL, 0, PROT_READ | PROT_EXEC, 0);

		ASSERT_NE(MAP_FAILED, p);
		ASSERT_EQ(0, madvise(p, page, MADV_DONTFORK));
	}
	ASSERT_EQ(0, quota(8));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		for (i = 0; i < k + 4; i++)
			if (text_map(&self->t, child_area + i * page, 0,
				     PROT_READ | PROT_EXEC, MAP_FIXED) ==
			    MAP_FAILED)
				_exit(10);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, kmsg_refusals(self->kmsg));
}

/*
 * One file's text mapped page by page at consecutive addresses: one
 * mapping after merging, and one registration.  A sparse file of 1 MiB
 * whose single read-execute segment holds a minimal valid SFrame header.
 */
TEST_F(registry, page_by_page)
{
	const size_t size = 1 << 20;
	char path[PATH_MAX];
	struct text_file big;
	unsigned char hdr[28] = {
		0xe2, 0xde,	/* magic */
		2,		/* version 2 */
		1,		/* SFRAME_F_FDE_SORTED */
#ifdef __aarch64__
		2,		/* AArch64, little endian */
#else
		3,		/* AMD64, little endian */
#endif
	};
	struct {
		struct elf64_hdr eh;
		struct elf64_phdr ph[2];
	} elf = {
		.eh = {
			.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3,
				     ELFCLASS64, ELFDATA2LSB, EV_CURRENT },
			.e_type = ET_DYN,
#ifdef __aarch64__
			.e_machine = EM_AARCH64,
#else
			.e_machine = EM_X86_64,
#endif
			.e_version = EV_CURRENT,
			.e_phoff = sizeof(struct elf64_hdr),
			.e_ehsize = sizeof(struct elf64_hdr),
			.e_phentsize = sizeof(struct elf64_phdr),
			.e_phnum = 2,
		},
		.ph = {
			{ .p_type = PT_LOAD, .p_flags = PF_R | PF_X,
			  .p_filesz = size, .p_memsz = size, .p_align = 4096 },
			{ .p_type = PT_GNU_SFRAME, .p_flags = PF_R,
			  .p_offset = 4096, .p_vaddr = 4096,
			  .p_filesz = sizeof(hdr), .p_memsz = sizeof(hdr),
			  .p_align = 8 },
		},
	};
	char *area;
	size_t off;
	int fd;

	snprintf(path, sizeof(path), "/tmp/unwind_registry.%d", getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0700);
	ASSERT_LE(0, fd);
	unlink(path);
	ASSERT_EQ(sizeof(elf), pwrite(fd, &elf, sizeof(elf), 0));
	ASSERT_EQ(sizeof(hdr), pwrite(fd, hdr, sizeof(hdr), 4096));
	ASSERT_EQ(0, ftruncate(fd, size));
	big = (struct text_file){ .fd = fd, .off = 0, .len = size };

	area = reserve(size);
	ASSERT_NE(NULL, area);
	ASSERT_EQ(0, quota(64));
	for (off = 0; off < size; off += page)
		ASSERT_EQ(area + off, text_map(&big, area + off, off,
					       PROT_READ | PROT_EXEC,
					       MAP_FIXED));
	EXPECT_EQ(0, kmsg_refusals(self->kmsg));
	close(fd);
}

#define CGROOT	"/sys/fs/cgroup"
#define CGDIR	CGROOT "/unwind_registry"

static long long memcg_current(void)
{
	FILE *f = fopen(CGDIR "/memory.current", "r");
	long long v = -1;

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/*
 * In a child inside the test cgroup: the growth of memory.current from
 * mapping @n pages of @t's text, each a mapping of its own.
 */
static long long charged_for(const struct text_file *t, int n)
{
	long long delta = -1;
	int p[2], i;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		char me[32];
		long long before;

		snprintf(me, sizeof(me), "%d", getpid());
		if (file_write(CGDIR "/cgroup.procs", me))
			_exit(1);
		before = memcg_current();
		for (i = 0; i < n; i++)
			if (text_map(t, NULL, 0, PROT_READ | PROT_EXEC, 0) ==
			    MAP_FAILED)
				_exit(2);
		delta = memcg_current() - before;
		if (write(p[1], &delta, sizeof(delta)) != sizeof(delta))
			_exit(3);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &delta, sizeof(delta)) != sizeof(delta))
		delta = -1;
	close(p[0]);
	waitpid(pid, NULL, 0);
	return delta;
}

/*
 * Mapping text pages of an SFrame library costs its registrations more
 * than mapping as many pages of a library without SFrame, and the cgroup
 * sees it: at least 100 bytes a registration (a section is about 200).
 */
TEST_F_TIMEOUT(registry, memcg_charged, 300)
{
	const int n = 8000;
	char lib[PATH_MAX];
	struct text_file plain;
	long long with, without;

	if (access(CGROOT "/cgroup.controllers", F_OK))
		mount("none", CGROOT, "cgroup2", 0, NULL);
	if (file_write(CGROOT "/cgroup.subtree_control", "+memory") &&
	    access(CGROOT "/cgroup.subtree_control", F_OK))
		SKIP(return, "no cgroup2 with the memory controller");
	rmdir(CGDIR);
	ASSERT_EQ(0, mkdir(CGDIR, 0755));
	if (access(CGDIR "/memory.current", F_OK)) {
		rmdir(CGDIR);
		SKIP(return, "no memory controller in %s", CGDIR);
	}
	ASSERT_EQ(0, self_dir_file(lib, sizeof(lib), "libfp_b.so"));
	ASSERT_EQ(0, elf_has_sframe(lib));
	ASSERT_EQ(0, text_open(&plain, lib));

	with = charged_for(&self->t, n);
	without = charged_for(&plain, n);
	close(plain.fd);
	rmdir(CGDIR);
	diag("memory.current: %d text mappings with SFrame +%lld bytes, without +%lld\n",
	     n, with, without);
	diag("%lld bytes a registration\n", (with - without) / n);
	ASSERT_LE(0, with);
	ASSERT_LE(0, without);
	EXPECT_LE(100LL * n, with - without);
}

int main(int argc, char **argv)
{
	if (geteuid()) {
		ksft_print_msg("needs root (vm.max_map_count, /dev/kmsg)\n");
		return KSFT_SKIP;
	}
	return test_harness_run(argc, argv);
}
