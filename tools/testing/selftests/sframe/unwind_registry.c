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
 * failslab: every slab allocation along registration, fork and unmap made
 *	to fail in turn (fault injection): no oops, no warning, no leak of a
 *	freed section into the tree.
 * tables_freed: TABLES_FILES distinct files mapped at once have a table
 *	each; once the last mapping is gone, none is in use, and at most
 *	SFRAME_KEPT_MAX are kept for another mapping.
 * tables_kept: a file mapped again takes its kept table; after
 *	drop_caches (the shrinker) its table is built again.
 * fp_table (x86_64): the table of a file whose .eh_frame shows code that
 *	keeps frame pointers is marked so (its callers' frames take the frame
 *	pointer walk's rule); those of the same code built without frame
 *	pointers and of the C library are not.
 * cached_lookup_unmapped (x86_64): a task's walks keep the section their
 *	last lookup found; once its text is unmapped, code mapped there
 *	without a table (here, code written at run time that keeps a frame
 *	pointer) is unwound by its frame pointer, not by the old table.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <dlfcn.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include <linux/elf.h>
#include <linux/perf_event.h>

#include "kselftest_harness.h"
#include "sampler.h"
#include "workload.h"

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

static bool is_refusal(const char *msg, void *arg)
{
	return strstr(msg, LIMIT_MSG) ||
	       (strstr(msg, SUPPRESSED_MSG) && strstr(msg, "suppressed"));
}

/* Kernel log records since kmsg_open() that say a registration was refused. */
static int kmsg_refusals(int fd)
{
	return kmsg_count(fd, is_refusal, NULL);
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
	void *p;

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
	/*
	 * The process started before the collector: its first registration
	 * also finds (and validates) the text it already has.  Have that done
	 * now, so that the tests count only what they do.
	 */
	p = text_map(&self->t, NULL, 0, PROT_READ | PROT_EXEC, 0);
	ASSERT_NE(MAP_FAILED, p);
	munmap(p, page);
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
 * A crafted ELF file of @size bytes with the @phnum program headers @ph,
 * and @len bytes of @sec at offset 4096 (where PT_GNU_SFRAME says): an
 * unlinked file in /tmp, sparse but for what is written.  Returns its fd
 * or -1.
 */
static int crafted_file(size_t size, const struct elf64_phdr *ph,
			unsigned int phnum, const void *sec, size_t len)
{
	struct elf64_hdr eh = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64,
			     ELFDATA2LSB, EV_CURRENT },
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
		.e_phnum = phnum,
	};
	size_t ph_len = phnum * sizeof(*ph);
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "/tmp/unwind_registry.%d", getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
	if (fd < 0)
		return -1;
	unlink(path);
	if (pwrite(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    pwrite(fd, ph, ph_len, sizeof(eh)) != (ssize_t)ph_len ||
	    pwrite(fd, sec, len, 4096) != (ssize_t)len ||
	    ftruncate(fd, size)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * A file of @size bytes made of one read-execute segment, whose SFrame
 * section is @sec_len bytes at offset 4096, of which the first @len are
 * @sec.  Returns its fd or -1.
 */
static int sframe_file(size_t size, const void *sec, size_t len,
		       size_t sec_len)
{
	const struct elf64_phdr ph[2] = {
		{ .p_type = PT_LOAD, .p_flags = PF_R | PF_X,
		  .p_filesz = size, .p_memsz = size, .p_align = 4096 },
		{ .p_type = PT_GNU_SFRAME, .p_flags = PF_R,
		  .p_offset = 4096, .p_vaddr = 4096,
		  .p_filesz = sec_len, .p_memsz = sec_len, .p_align = 8 },
	};

	return crafted_file(size, ph, 2, sec, len);
}

/*
 * An SFrame version 2 header, sorted descriptors, this machine's ABI:
 * @num_fdes descriptors at the start of the data, then the rows, which
 * count @num_fres and take @fre_len bytes.
 */
static void sframe_header_v2(unsigned char hdr[28], uint32_t num_fdes,
			     uint32_t num_fres, uint32_t fre_len)
{
	uint32_t v[5] = { num_fdes, num_fres, fre_len, 0, num_fdes * 20 };

	memset(hdr, 0, 28);
	hdr[0] = 0xe2;		/* magic */
	hdr[1] = 0xde;
	hdr[2] = 2;		/* version 2 */
	hdr[3] = 1;		/* SFRAME_F_FDE_SORTED */
#ifdef __aarch64__
	hdr[4] = 2;		/* AArch64, little endian */
#else
	hdr[4] = 3;		/* AMD64, little endian */
#endif
	memcpy(hdr + 8, v, sizeof(v));
}

/*
 * One file's text mapped page by page at consecutive addresses: one
 * mapping after merging, and one registration.  A sparse file of 1 MiB
 * whose single read-execute segment holds a minimal valid SFrame header.
 */
TEST_F(registry, page_by_page)
{
	const size_t size = 1 << 20;
	unsigned char hdr[28];
	struct text_file big;
	char *area;
	size_t off;
	int fd;

	sframe_header_v2(hdr, 0, 0, 0);
	fd = sframe_file(size, hdr, sizeof(hdr), sizeof(hdr));
	ASSERT_LE(0, fd);
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

static long long memcg_current(const char *cg)
{
	char path[PATH_MAX];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.current", cg);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/*
 * The growth of memory.current of a new cgroup @cg from mapping @n pages
 * of @t's text, each a mapping of its own, in a child that is the cgroup's
 * only task and runs on one CPU.  A cgroup of its own per measurement:
 * what an earlier child frees after its exit (RCU-freed VMAs) is not
 * uncharged from this one.  The CPU's charge batch still makes the figure
 * move by up to 64 pages either way.  Returns false if the measurement could not be made.
 */
static bool charged_for(const char *cg, const struct text_file *t, int n,
			long long *delta)
{
	int p[2], i, status;
	char path[PATH_MAX];
	bool ok;
	pid_t pid;

	rmdir(cg);
	if (mkdir(cg, 0755) || pipe(p))
		return false;
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	pid = fork();
	if (pid < 0)
		return false;
	if (!pid) {
		long long before, d;
		cpu_set_t one;
		char me[32];

		CPU_ZERO(&one);
		CPU_SET(sched_getcpu(), &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			_exit(1);
		snprintf(me, sizeof(me), "%d", getpid());
		if (file_write(path, me))
			_exit(1);
		before = memcg_current(cg);
		for (i = 0; i < n; i++)
			if (text_map(t, NULL, 0, PROT_READ | PROT_EXEC, 0) ==
			    MAP_FAILED)
				_exit(2);
		d = memcg_current(cg) - before;
		if (before < 0 ||
		    write(p[1], &d, sizeof(d)) != sizeof(d))
			_exit(3);
		_exit(0);
	}
	close(p[1]);
	ok = read(p[0], delta, sizeof(*delta)) == sizeof(*delta);
	close(p[0]);
	ok &= waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      !WEXITSTATUS(status);
	rmdir(cg);
	return ok;
}

/*
 * Mapping text pages of an SFrame library costs its registrations more
 * than mapping as many pages of a library without SFrame, and the cgroup
 * sees it.  A registration is 48 bytes (64 allocated) plus its share of
 * the tree's nodes; the bound asks for 48 less what the charge batches can
 * hide: the child runs on one CPU, so each of the two figures is off by at
 * most one batch (MEMCG_CHARGE_BATCH, 64 pages).  With MEMCG_N
 * registrations that margin is a quarter of the bound, and a debug kernel
 * (KASAN, lockdep) under TCG still maps them within the time limit.
 */
#define MEMCG_N		24000
#define MEMCG_BATCH	64

TEST_F_TIMEOUT(registry, memcg_charged, 900)
{
	const long long n = MEMCG_N;
	const long long margin = 2LL * MEMCG_BATCH * page;
	char lib[PATH_MAX];
	struct text_file plain;
	long long with, without;
	int saved_eh;

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
	rmdir(CGDIR);
	ASSERT_EQ(0, self_dir_file(lib, sizeof(lib), "libfp_b.so"));
	ASSERT_EQ(0, elf_has_sframe(lib));
	ASSERT_EQ(0, text_open(&plain, lib));
	ASSERT_EQ(0, quota(MEMCG_N + 64));

	/* Otherwise the library without SFrame gets a table of .eh_frame. */
	saved_eh = sysctl_int_read(EH_FRAME_SYSCTL);
	ASSERT_LE(0, saved_eh);
	ASSERT_EQ(0, sysctl_int_write(EH_FRAME_SYSCTL, 0));
	ASSERT_TRUE(charged_for(CGDIR "_with", &self->t, n, &with));
	ASSERT_TRUE(charged_for(CGDIR "_without", &plain, n, &without));
	sysctl_int_write(EH_FRAME_SYSCTL, saved_eh);
	close(plain.fd);
	diag("memory.current: %lld text mappings with SFrame %+lld bytes, without %+lld\n",
	     n, with, without);
	diag("%lld bytes a registration\n", (with - without) / n);
	EXPECT_LE(48 * n - margin, with - without);
}

int main(int argc, char **argv)
{
	if (geteuid()) {
		ksft_print_msg("needs root (vm.max_map_count, /dev/kmsg)\n");
		return KSFT_SKIP;
	}
	return test_harness_run(argc, argv);
}

/*
 * failslab: the n-th slab allocation of a task fails, for n = 1, 2, ...
 * along one registration (mmap of SFrame text), its copy at fork, the
 * child's exit and the removal at munmap, until that path makes fewer than
 * n allocations.  Every round runs in a process of its own, which must end
 * normally; the kernel log must stay free of oopses, warnings and KASAN
 * reports; and some round must have lost a registration while its mmap
 * succeeded, or no failure reached the registry.
 */
#define FAILSLAB	"/sys/kernel/debug/failslab/"
#define FAIL_NTH_MAX	4000

enum round_end {
	ROUND_DONE = 10,	/* the path made fewer than n allocations */
	ROUND_KEPT,		/* mapped and registered */
	ROUND_LOST,		/* mapped, registration failed */
	ROUND_NOMAP,		/* the mmap itself failed */
	ROUND_ERR,		/* the test could not run the round */
};

static bool is_splat(const char *msg, void *arg)
{
	return kmsg_is_splat(msg);
}

/* A splat, or a message about an SFrame section (an invalid one, say). */
static bool is_splat_or_sframe(const char *msg, void *arg)
{
	return kmsg_is_splat(msg) || strcasestr(msg, "sframe");
}

/* One round in the calling process: the status to _exit() with. */
static enum round_end failslab_round(const struct text_file *t, unsigned int n)
{
	long before = sframe_stat("registered");
	int fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	char buf[32];
	void *p;
	int len;

	if (fd < 0 || before < 0)
		return ROUND_ERR;
	len = snprintf(buf, sizeof(buf), "%u", n);
	if (write(fd, buf, len) != len)
		return ROUND_ERR;
	/* from here on, the n-th slab allocation of this thread fails */
	p = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, t->fd, t->off);
	if (p != MAP_FAILED) {
		pid_t pid = fork();

		if (!pid)
			_exit(0);
		if (pid > 0)
			waitpid(pid, NULL, 0);
		munmap(p, page);
	}
	len = pread(fd, buf, sizeof(buf) - 1, 0);
	if (write(fd, "0", 1) != 1 || len <= 0)
		return ROUND_ERR;
	buf[len] = 0;
	if (strtoul(buf, NULL, 10))
		return ROUND_DONE;
	if (p == MAP_FAILED)
		return ROUND_NOMAP;
	return sframe_stat("registered") > before ? ROUND_KEPT : ROUND_LOST;
}

static int failslab_set(const char *name, const char *val, char *old)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), FAILSLAB "%s", name);
	if (old) {
		f = fopen(path, "r");
		if (!f || !fgets(old, 16, f)) {
			if (f)
				fclose(f);
			return -1;
		}
		fclose(f);
		old[strcspn(old, "\n")] = 0;
	}
	return file_write(path, val);
}

TEST_F_TIMEOUT(registry, failslab, 600)
{
	int counts[ROUND_ERR + 1] = { 0 };
	char gfp_wait[16], verbose[16];
	struct timespec t0;
	unsigned int n;
	int status;
	pid_t pid;

	/* sframe_stat() mounts debugfs if need be */
	ASSERT_LE(0, sframe_stat("registered"));
	if (access(FAILSLAB, F_OK) || access("/proc/thread-self/fail-nth", F_OK))
		SKIP(return, "no failslab (CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS)");
	/* GFP_KERNEL allocations too; no stack dump per injected failure */
	ASSERT_EQ(0, failslab_set("ignore-gfp-wait", "N", gfp_wait));
	ASSERT_EQ(0, failslab_set("verbose", "0", verbose));
	kmsg_count(self->kmsg, is_splat, NULL);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (n = 1; n <= FAIL_NTH_MAX; n++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid)
			_exit(failslab_round(&self->t, n));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		if (!WIFEXITED(status) || WEXITSTATUS(status) < ROUND_DONE ||
		    WEXITSTATUS(status) > ROUND_ERR) {
			TH_LOG("round %u: status %#x", n, status);
			break;
		}
		counts[WEXITSTATUS(status)]++;
		if (WEXITSTATUS(status) == ROUND_DONE ||
		    WEXITSTATUS(status) == ROUND_ERR)
			break;
	}
	failslab_set("ignore-gfp-wait", gfp_wait, NULL);
	failslab_set("verbose", verbose, NULL);

	diag("failslab: %u rounds, %.0f ms: registered %d, not registered %d, mmap failed %d\n",
	     n - 1, ms_since(&t0), counts[ROUND_KEPT], counts[ROUND_LOST],
	     counts[ROUND_NOMAP]);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, counts[ROUND_ERR]);
	/* the path ended: an n past its last allocation was reached */
	ASSERT_EQ(1, counts[ROUND_DONE]);
	ASSERT_LT(0, counts[ROUND_LOST]);
	EXPECT_EQ(0, kmsg_count(self->kmsg, is_splat, NULL));
}

/*
 * validation_killable: a valid section whose validation takes long (every
 * descriptor, of a function of its own, has SFRAME_MAX_FRES_PER_FDE rows,
 * the most the decoder accepts, and all share one block of rows: the
 * header counts each of them, so the section is as large as they are),
 * validated when its text is mapped.  A task maps it and lets the validation finish (the section
 * is valid, and that is how long it takes); another task maps a fresh copy
 * and is killed when it has spent an eighth of that system time in the
 * kernel: it must die, without its validation counted as done.  How long
 * the kill took is reported.
 */
#define KILL_FDES	512
#define KILL_ROWS	8192	/* per descriptor, ADDR2 rows of 3 bytes */

/* System time of @pid in clock ticks, from /proc/PID/stat, or -1. */
static long task_stime(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long stime;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strrchr(buf, ')');
	/* after the name: state, then 10 fields, then utime and stime */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %lu",
			 &stime) != 1)
		return -1;
	return stime;
}

/* The big section: header, descriptors, one block of rows. */
static void *kill_section(size_t *len, size_t *sec_len, size_t *text_off)
{
	const size_t fdes_len = KILL_FDES * 20, block = KILL_ROWS * 3;
	const uint32_t num_fres = KILL_FDES * KILL_ROWS;
	const uint32_t fre_len = 2 * num_fres;	/* the least it may claim */
	unsigned char *s;
	size_t i;

	*len = 28 + fdes_len + block;
	*sec_len = 28 + fdes_len + fre_len;
	*text_off = (4096 + *sec_len + 4095) & ~(size_t)4095;
	s = calloc(1, *len);
	if (!s)
		return NULL;
	sframe_header_v2(s, KILL_FDES, num_fres, fre_len);
	for (i = 0; i < KILL_FDES; i++) {
		unsigned char *fde = s + 28 + i * 20;
		/* a function each: its start relative to the section */
		int32_t start = *text_off - 4096 + i * KILL_ROWS;
		uint32_t size = KILL_ROWS, fres_off = 0, fres_num = KILL_ROWS;

		memcpy(fde, &start, 4);
		memcpy(fde + 4, &size, 4);
		memcpy(fde + 8, &fres_off, 4);
		memcpy(fde + 12, &fres_num, 4);
		fde[16] = 1;	/* SFRAME_FRE_TYPE_ADDR2, PCINC */
	}
	for (i = 0; i < KILL_ROWS; i++) {
		unsigned char *fre = s + 28 + fdes_len + i * 3;
		uint16_t start = i;

		memcpy(fre, &start, 2);
		fre[2] = 0;	/* no offsets: the outermost frame */
	}
	return s;
}

/* Map @fd's text in a child that then reports on @wfd and waits. */
static pid_t kill_child(int fd, size_t size, int wfd)
{
	pid_t pid = fork();
	char c;

	if (pid)
		return pid;
	c = 'm';
	if (write(wfd, &c, 1) != 1)
		_exit(1);
	c = mmap(NULL, size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) ==
	    MAP_FAILED ? 'f' : 'r';
	if (write(wfd, &c, 1) != 1)
		_exit(1);
	pause();
	_exit(0);
}

/* Wait for the byte a kill_child() sends: it, or -1 (the child is gone). */
static int kill_child_says(int rfd)
{
	char c;

	return read(rfd, &c, 1) == 1 ? c : -1;
}

TEST_F_TIMEOUT(registry, validation_killable, 600)
{
	size_t len, sec_len, text_off, size;
	long validated, s0, s, full;
	struct timespec t0, t1;
	int fd, pfd[2], status;
	unsigned char *sec;
	pid_t pid;

	sec = kill_section(&len, &sec_len, &text_off);
	ASSERT_NE(NULL, sec);
	/* the text: KILL_FDES functions of KILL_ROWS bytes */
	size = text_off + (((size_t)KILL_FDES * KILL_ROWS + page - 1) &
			   ~(page - 1));
	fd = sframe_file(size, sec, len, sec_len);
	ASSERT_LE(0, fd);
	validated = sframe_stat("validated");
	ASSERT_LE(0, validated);
	ASSERT_EQ(0, pipe(pfd));

	/* validated to the end */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = kill_child(fd, size, pfd[1]);
	ASSERT_LT(0, pid);
	ASSERT_EQ('m', kill_child_says(pfd[0]));
	s0 = task_stime(pid);
	ASSERT_EQ('r', kill_child_says(pfd[0]));
	full = task_stime(pid) - s0;
	diag("validation_killable: mmap validating %u rows: %.0f ms, %ld ticks of system time\n",
	     KILL_FDES * KILL_ROWS, ms_since(&t0), full);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(fd);
	ASSERT_EQ(validated + 1, sframe_stat("validated"));
	/* too fast a machine for the rest: the kill could not land inside */
	if (full < 16) {
		free(sec);
		SKIP(return, "the validation took %ld ticks of system time", full);
	}

	/*
	 * A fresh copy (not known validated), killed an eighth of the way
	 * in: on an emulated CPU beside other work the ticks of the first
	 * run can count double, and the kill must still land inside.
	 */
	fd = sframe_file(size, sec, len, sec_len);
	free(sec);
	ASSERT_LE(0, fd);
	pid = kill_child(fd, size, pfd[1]);
	ASSERT_LT(0, pid);
	ASSERT_EQ('m', kill_child_says(pfd[0]));
	s0 = task_stime(pid);
	ASSERT_LE(0, s0);
	ASSERT_EQ(0, fcntl(pfd[0], F_SETFL, O_NONBLOCK));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		/* still in mmap (its validation)? */
		ASSERT_EQ(-1, kill_child_says(pfd[0]))
			kill(pid, SIGKILL);
		s = task_stime(pid);
		ASSERT_LE(0, s);
		if (s - s0 >= full / 8)
			break;
		ASSERT_GT(120e3, ms_since(&t0))
			kill(pid, SIGKILL);
		usleep(2000);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	diag("validation_killable: killed after %ld of %ld ticks; dead %.1f ms after SIGKILL\n",
	     s - s0, full,
	     (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
	ASSERT_TRUE(WIFSIGNALED(status));
	ASSERT_EQ(SIGKILL, WTERMSIG(status));
	/* it never returned from mmap, and the validation did not finish */
	EXPECT_EQ(-1, kill_child_says(pfd[0]));
	EXPECT_EQ(validated + 1, sframe_stat("validated"));
	close(pfd[0]);
	close(pfd[1]);
	close(fd);
}

/*
 * two_text_segments: one .sframe section describing functions in two
 * executable segments of a file (as a linker script may make them), mapped
 * as ld.so maps a library: the whole file read-only, then each segment at
 * its place.  Both text mappings register the section, and it validates:
 * each function lies in one of the file's executable segments.
 */
#define TABLES_FILES	10000

/*
 * A file of three pages: headers, an SFrame section of one function of 16
 * bytes with one row, and the function's page of text.
 */
static int one_function_file(void)
{
	unsigned char sec[28 + 20 + 3] = { 0 };
	int32_t start = 8192 - 4096;	/* from the section */
	uint32_t size = 16;

	sframe_header_v2(sec, 1, 1, 3);
	sec[6] = (unsigned char)-8;	/* RA at CFA - 8 (unused on arm64) */
	memcpy(sec + 28, &start, 4);
	memcpy(sec + 28 + 4, &size, 4);
	sec[28 + 16] = 0;		/* one row, 1-byte starts */
	memcpy(sec + 28 + 12, &(uint32_t){ 1 }, 4);
	sec[48] = 0;			/* start 0 */
	sec[49] = 1 | 1 << 1;		/* CFA = SP + 1-byte offset */
	sec[50] = 8;
	return sframe_file(3 * 4096, sec, sizeof(sec), sizeof(sec));
}

TEST_F_TIMEOUT(registry, tables_freed, 600)
{
	long tables = sframe_stat("tables"), bytes = sframe_stat("table_bytes");
	long reg = sframe_stat("registered"), peak;
	void **maps;
	int i, fd;

	ASSERT_LE(0, tables);
	ASSERT_LE(0, bytes);
	maps = calloc(TABLES_FILES, sizeof(*maps));
	ASSERT_NE(NULL, maps);
	for (i = 0; i < TABLES_FILES; i++) {
		fd = one_function_file();
		ASSERT_LE(0, fd);
		maps[i] = mmap(NULL, 3 * 4096, PROT_READ | PROT_EXEC,
			       MAP_PRIVATE, fd, 0);
		close(fd);
		ASSERT_NE(MAP_FAILED, maps[i]);
	}
	peak = sframe_stat("table_bytes") - bytes;
	diag("%d files mapped: %ld registered, %ld tables, %ld bytes (%ld a table)\n",
	     TABLES_FILES, sframe_stat("registered") - reg,
	     sframe_stat("tables") - tables, peak, peak / TABLES_FILES);
	/* other processes may register or drop a few meanwhile */
	EXPECT_LE(TABLES_FILES, sframe_stat("registered") - reg);
	EXPECT_LE(TABLES_FILES - 8, sframe_stat("tables") - tables);
	for (i = 0; i < TABLES_FILES; i++)
		ASSERT_EQ(0, munmap(maps[i], 3 * 4096));
	free(maps);
	diag("all unmapped: %+ld tables, %+ld bytes\n",
	     sframe_stat("tables") - tables,
	     sframe_stat("table_bytes") - bytes);
	EXPECT_GT(8, sframe_stat("tables") - tables);
	EXPECT_GT(peak / 100, sframe_stat("table_bytes") - bytes);
	EXPECT_EQ(0, kmsg_refusals(self->kmsg));
}

/*
 * A table outlives its last mapping, for the next mapping of its file:
 * mapped again, the file's section is not validated again, and the table
 * is in use again. The shrinker frees the tables kept (drop_caches runs
 * it), and at most SFRAME_KEPT_MAX stay without it: tables_freed above
 * left up to that many of its 10,000.
 */
#define KEPT_MAX	1024

TEST_F(registry, tables_kept)
{
	long val, shared, kept;
	int fd, i;
	void *p;

	/*
	 * Beyond SFRAME_KEPT_MAX, the list is trimmed from a work item:
	 * the last test's tables may have gone over just now.
	 */
	for (i = 0; i < 500; i++) {
		kept = sframe_stat("kept");
		if (kept <= KEPT_MAX)
			break;
		usleep(10000);
	}
	ASSERT_LE(0, kept);
	EXPECT_GE(KEPT_MAX, kept);
	/*
	 * Counted below, the list must not be trimmed meanwhile: the
	 * shrinker empties it first, far below SFRAME_KEPT_MAX.
	 */
	ASSERT_EQ(0, file_write("/proc/sys/vm/drop_caches", "2"));
	fd = one_function_file();
	ASSERT_LE(0, fd);
	val = sframe_stat("validated");
	shared = sframe_stat("validation_shared");
	p = mmap(NULL, 3 * 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(val + 1, sframe_stat("validated"));
	ASSERT_EQ(0, munmap(p, 3 * 4096));
	kept = sframe_stat("kept");
	diag("unmapped: %ld tables kept, %ld bytes\n", kept,
	     sframe_stat("kept_bytes"));
	ASSERT_LE(1, kept);

	p = mmap(NULL, 3 * 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(val + 1, sframe_stat("validated"));
	EXPECT_EQ(shared + 1, sframe_stat("validation_shared"));
	EXPECT_EQ(kept - 1, sframe_stat("kept"));
	ASSERT_EQ(0, munmap(p, 3 * 4096));

	/*
	 * Freed by the shrinker, the file's table is built again at its
	 * next mapping. Other tables may be kept meanwhile (an exiting
	 * process's), and the shrinker skips a table it cannot lock.
	 */
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, file_write("/proc/sys/vm/drop_caches", "2"));
		p = mmap(NULL, 3 * 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE,
			 fd, 0);
		ASSERT_NE(MAP_FAILED, p);
		ASSERT_EQ(0, munmap(p, 3 * 4096));
		if (sframe_stat("validated") == val + 2)
			break;
	}
	diag("after drop_caches: %ld tables kept, %ld bytes\n",
	     sframe_stat("kept"), sframe_stat("kept_bytes"));
	EXPECT_EQ(val + 2, sframe_stat("validated"));
	close(fd);
	EXPECT_EQ(0, kmsg_refusals(self->kmsg));
}

/* Copy @from to a new file in /tmp; its path goes to @to. */
static int copy_file(const char *from, char *to, size_t len)
{
	static int n;
	char buf[65536];
	int in, out = -1;
	ssize_t r = 0;

	snprintf(to, len, "/tmp/sframe-copy-%d-%d", getpid(), n++);
	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in >= 0)
		out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	while (out >= 0 && (r = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, r) != r)
			r = -1;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return in < 0 || out < 0 || r < 0 ? -1 : 0;
}

/*
 * Map the text of a new copy of @from: its .eh_frame's conversions that
 * found code keeping frame pointers go to *@fp, the bytes its table takes
 * to *@bytes.
 */
static int fp_table_of(const char *from, long *fp, long *bytes)
{
	long fp0 = sframe_stat("eh_frame_fp");
	long conv = sframe_stat("eh_frame_converted");
	long bytes0 = sframe_stat("table_bytes");
	struct text_file t;
	char path[PATH_MAX];
	void *p;
	int ret = -1;

	if (copy_file(from, path, sizeof(path)))
		return -1;
	if (!text_open(&t, path)) {
		p = text_map(&t, NULL, 0, PROT_READ | PROT_EXEC, 0);
		*fp = sframe_stat("eh_frame_fp") - fp0;
		*bytes = sframe_stat("table_bytes") - bytes0;
		if (p != MAP_FAILED) {
			ret = sframe_stat("eh_frame_converted") == conv + 1 ?
			      0 : -1;
			munmap(p, page);
		}
	}
	close(t.fd);
	unlink(path);
	return ret;
}

/* The path of the C library this process maps. */
static int libc_path(char *path, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[PATH_MAX + 128], *p;
	int ret = -1;

	while (f && ret && fgets(line, sizeof(line), f)) {
		p = strchr(line, '/');
		if (!p || !strstr(p, "/libc.so"))
			continue;
		p[strcspn(p, "\n")] = 0;
		snprintf(path, len, "%s", p);
		ret = 0;
	}
	if (f)
		fclose(f);
	return ret;
}

TEST_F(registry, fp_table)
{
#ifdef __x86_64__
	/* dl_lib.c built with frame pointers, and without */
	static const struct {
		const char *name;
		long fp;
	} libs[] = { { "libfp_b.so", 1 }, { "libeh_c.so", 0 } };
	char lib[PATH_MAX], libc[PATH_MAX];
	long fp, bytes;
	int i;

	if (sysctl_int_read(EH_FRAME_SYSCTL) != 1)
		SKIP(return, "kernel.unwind_user_eh_frame is not 1");
	for (i = 0; i < ARRAY_SIZE(libs); i++) {
		ASSERT_EQ(0, self_dir_file(lib, sizeof(lib), libs[i].name));
		ASSERT_EQ(0, elf_has_sframe(lib));
		ASSERT_EQ(0, fp_table_of(lib, &fp, &bytes));
		diag("%s: %ld frame pointer tables, %ld bytes\n",
		     libs[i].name, fp, bytes);
		EXPECT_EQ(libs[i].fp, fp);
		EXPECT_LT(0, bytes);
	}

	ASSERT_EQ(0, libc_path(libc, sizeof(libc)));
	ASSERT_EQ(0, fp_table_of(libc, &fp, &bytes));
	diag("%s: %ld frame pointer tables, %ld bytes\n", libc, fp, bytes);
	EXPECT_EQ(0, fp);
	EXPECT_LE(16384, bytes);
#else
	SKIP(return, "x86_64 only: elsewhere a frame record's place varies");
#endif
}

TEST_F(registry, two_text_segments)
{
	const size_t t1 = 2 * 4096, t2 = 4 * 4096, size = 5 * 4096;
	struct elf64_phdr ph[4];
	/* header, two descriptors, one row each: CFA = SP + 8 */
	unsigned char sec[28 + 2 * 20 + 2 * 3];
	long reg, val;
	int32_t start;
	char *base;
	int fd, i;

	sframe_header_v2(sec, 2, 2, 6);
	for (i = 0; i < 2; i++) {
		unsigned char *fde = sec + 28 + i * 20;
		uint32_t size = 64, fres_off = i * 3, fres_num = 1;

		memset(fde, 0, 20);
		/* the function at the start of segment i, from the section */
		start = (i ? t2 : t1) - 4096;
		memcpy(fde, &start, 4);
		memcpy(fde + 4, &size, 4);
		memcpy(fde + 8, &fres_off, 4);
		memcpy(fde + 12, &fres_num, 4);
		fde[16] = 0;			/* ADDR1 rows, PCINC */
		sec[28 + 40 + i * 3] = 0;	/* from the first byte */
		sec[28 + 40 + i * 3 + 1] = 0x03; /* SP-based, 1 offset */
		sec[28 + 40 + i * 3 + 2] = 8;
	}
	ph[0] = (struct elf64_phdr){
		.p_type = PT_LOAD, .p_flags = PF_R,
		.p_filesz = t1, .p_memsz = t1, .p_align = 4096 };
	ph[1] = (struct elf64_phdr){
		.p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = t1,
		.p_vaddr = t1, .p_filesz = 4096, .p_memsz = 4096,
		.p_align = 4096 };
	ph[2] = (struct elf64_phdr){
		.p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = t2,
		.p_vaddr = t2, .p_filesz = 4096, .p_memsz = 4096,
		.p_align = 4096 };
	ph[3] = (struct elf64_phdr){
		.p_type = PT_GNU_SFRAME, .p_flags = PF_R, .p_offset = 4096,
		.p_vaddr = 4096, .p_filesz = sizeof(sec),
		.p_memsz = sizeof(sec), .p_align = 8 };

	fd = crafted_file(size, ph, 4, sec, sizeof(sec));
	ASSERT_LE(0, fd);
	reg = sframe_stat("registered");
	val = sframe_stat("validated") + sframe_stat("validation_shared");
	ASSERT_LE(0, reg);

	base = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, base);
	ASSERT_EQ(base + t1, mmap(base + t1, 4096, PROT_READ | PROT_EXEC,
				  MAP_PRIVATE | MAP_FIXED, fd, t1));
	ASSERT_EQ(base + t2, mmap(base + t2, 4096, PROT_READ | PROT_EXEC,
				  MAP_PRIVATE | MAP_FIXED, fd, t2));
	/* the validation ran on the way back from the first mmap */
	EXPECT_EQ(2, sframe_stat("registered") - reg);
	EXPECT_EQ(2, sframe_stat("validated") +
		     sframe_stat("validation_shared") - val);
	EXPECT_EQ(0, kmsg_count(self->kmsg, is_splat_or_sframe, NULL));
	munmap(base, size);
	close(fd);
}

#ifdef __x86_64__
/*
 * Code written at run time, with a frame record: records its return
 * address at *@ra (%rsi), then reads *@p (%rdi), a page not touched yet,
 * at JIT_READ bytes from its start.
 *	push %rbp; mov %rsp,%rbp; mov 0x8(%rbp),%rax; mov %rax,(%rsi);
 *	movzbl (%rdi),%eax; pop %rbp; ret
 */
static const unsigned char jit_code[] = {
	0x55, 0x48, 0x89, 0xe5, 0x48, 0x8b, 0x45, 0x08, 0x48, 0x89, 0x06,
	0x0f, 0xb6, 0x07, 0x5d, 0xc3,
};

#define JIT_READ	11

/* Where the code records its return address: not on the stack. */
static uintptr_t jit_ra;

typedef void (*jit_fn)(const char *p, uintptr_t *ra);
typedef void (*entry_fn)(const char *stop);

static noinline void call_jit(jit_fn fn, const char *p, uintptr_t *ra)
{
	fn(p, ra);
	asm volatile("" ::: "memory");
}

/* A page fault event of this task whose samples carry the user chain. */
static int fault_event(void **ring, size_t *len)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN,
		.exclude_kernel = 1,
		.exclude_callchain_kernel = 1,
		/* the sampled frame and its caller: one lookup, one step */
		.sample_max_stack = 2,
		.disabled = 1,
	};
	int fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return -errno;
	*len = 9 * page;
	*ring = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (*ring == MAP_FAILED) {
		close(fd);
		return -ENOMEM;
	}
	return fd;
}

/*
 * The callchain of the last sample at @ip in @ring (after @tail), into
 * @ips (at most @max, the context marker left out); its length, or -1.
 */
static int chain_at(void *ring, uint64_t *tail, uint64_t ip, uint64_t *ips,
		    int max)
{
	struct perf_event_mmap_page *m = ring;
	uint64_t head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE);
	char *data = (char *)ring + page;
	uint64_t size = m->data_size;
	int found = -1;

	while (*tail < head) {
		struct perf_event_header h;
		uint64_t rec[64];
		uint64_t i, n, k = 0;

		for (i = 0; i < sizeof(h); i++)
			((char *)&h)[i] = data[(*tail + i) % size];
		for (i = 0; i < sizeof(rec) && i < h.size; i++)
			((char *)rec)[i] = data[(*tail + i) % size];
		*tail += h.size;
		/* header, ip, nr, chain */
		if (h.type != PERF_RECORD_SAMPLE || h.size < 24 || rec[1] != ip)
			continue;
		n = rec[2];
		for (i = 0; i < n && 3 + i < 64; i++)
			if (rec[3 + i] < PERF_CONTEXT_MAX && k < (uint64_t)max)
				ips[k++] = rec[3 + i];
		found = k;
	}
	__atomic_store_n(&m->data_tail, *tail, __ATOMIC_RELEASE);
	return found;
}

/* A private, untouched mapping of a page of @fd: its first read faults. */
static const char *fresh_page(int fd)
{
	void *p = mmap(NULL, page, PROT_READ, MAP_PRIVATE, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

TEST(cached_lookup_unmapped)
{
	entry_fn entry;
	jit_fn jit;
	const char *p1, *p2, *p0;
	char lib[PATH_MAX], *at;
	uint64_t ips[4], tail = 0;
	size_t len = 0;
	void *ring = NULL, *h;
	int fd, exe, n;

	page = sysconf(_SC_PAGESIZE);
	if (unwind_sysctl_read() != 1)
		SKIP(return, "kernel.unwind_user_sframe is not 1");
	/* Before the library: its section is registered at its mmap. */
	fd = fault_event(&ring, &len);
	if (fd < 0)
		SKIP(return, "perf_event_open: %s", strerror(-fd));
	exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, exe);
	p0 = fresh_page(exe);
	p1 = fresh_page(exe);
	p2 = fresh_page(exe);
	ASSERT_TRUE(p0 && p1 && p2);

	/* A first sample has this process's text looked at, if need be. */
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	(void)__atomic_load_n(p0, __ATOMIC_RELAXED);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);

	ASSERT_EQ(0, self_dir_file(lib, sizeof(lib), "libsf_a.so"));
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	ASSERT_NE(NULL, h);
	entry = (entry_fn)dlsym(h, "sfa_entry");
	ASSERT_NE(NULL, entry);
	/*
	 * A sample in the library (*p1 is the ELF magic: sfa_leaf()'s loop
	 * reads it once and stops), whose one lookup finds its section.
	 */
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	entry(p1);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	chain_at(ring, &tail, 0, ips, 0);

	/*
	 * The library goes; code without a table comes at the place of its
	 * sfa_entry(), whose read falls past the function's first three
	 * instructions (push, sub, mov: 13 bytes, as gcc builds it): where its
	 * table has a rule for a frame that is not this code's.
	 */
	ASSERT_EQ(0, dlclose(h));
	if (dlopen(lib, RTLD_NOW | RTLD_NOLOAD))
		SKIP(return, "libsf_a.so still loaded after dlclose()");
	at = (char *)entry + 2;
	h = mmap((void *)((uintptr_t)at & ~(page - 1)), 2 * page,
		 PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE | MAP_POPULATE,
		 -1, 0);
	if (h == MAP_FAILED)
		SKIP(return, "the library's text was mapped again: %s",
		     strerror(errno));
	memcpy(at, jit_code, sizeof(jit_code));
	ASSERT_EQ(0, mprotect(h, 2 * page, PROT_READ | PROT_EXEC));
	jit = (jit_fn)at;

	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	call_jit(jit, p2, &jit_ra);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	n = chain_at(ring, &tail, (uintptr_t)at + JIT_READ, ips, 4);
	ASSERT_LE(1, n);
	/* The leaf, then its caller: call_jit(), by the frame record. */
	ASSERT_LE(2, n) TH_LOG("the walk stopped at the leaf");
	EXPECT_EQ((uint64_t)(uintptr_t)at + JIT_READ, ips[0]);
	EXPECT_EQ((uint64_t)jit_ra, ips[1]) {
		TH_LOG("caller %#llx, want %#lx: the old table's rule",
		       (unsigned long long)ips[1], (unsigned long)jit_ra);
	}
	munmap(h, 2 * page);
	munmap(ring, len);
	close(fd);
	close(exe);
}
#endif
