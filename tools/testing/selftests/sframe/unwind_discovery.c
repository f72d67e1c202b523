// SPDX-License-Identifier: GPL-2.0
/*
 * When the kernel looks for SFrame sections, and what it costs the files.
 *
 * no_reads_without_collector: while nothing collects user call chains,
 *	mapping an SFrame library's text reads nothing from it; with a perf
 *	event that samples call chains, the same mapping is registered.
 * no_access_events: the kernel's reads of a mapped file are not reads of
 *	the file: no IN_ACCESS event for an inotify watch on it.
 * validation_shared: a process that maps a library while another one
 *	maps it, unchanged, shares its table; once the file is written to,
 *	it gets a table of its own; a table outlives the last mapping of
 *	its file (kept), and the next mapper takes it.
 * late_segment: a library's text mapped before the segment that holds its
 *	.sframe (libsf_sep.so: a segment of its own) is registered and
 *	validated at once, from the file; mapping that segment changes
 *	nothing.
 * on_demand: a process whose text was mapped while SFrame was off gets its
 *	sections when SFrame is turned on: its chains are complete from the
 *	first samples on, and the few before that are cut short, not wrong.
 *
 * The counters come from debugfs, unwind_user/sframe_stats; nothing else
 * may map files meanwhile (a quiet guest).  This program itself starts before
 * any collector: its own text is looked at once the kernel first works
 * for it with a collector open (collector_settle()), which the counts of
 * a test must not include.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/elf.h>

#include "sampled.h"
#include "workload.h"

static const char *const expect[] = { WL_CHAIN, CHAIN_END };

/* Offset of the first executable segment of @fd, or -1. */
static off_t text_offset(int fd)
{
	struct elf64_hdr eh;
	struct elf64_phdr ph;
	int i;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		return -1;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) !=
		    sizeof(ph))
			return -1;
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
			return ph.p_offset & ~(sysconf(_SC_PAGESIZE) - 1);
	}
	return -1;
}

/* Map one page of @fd's text (at @off) executable, and unmap it. */
static int map_text(int fd, off_t off)
{
	void *p;

	p = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ | PROT_EXEC,
		 MAP_PRIVATE, fd, off);
	if (p == MAP_FAILED)
		return -1;
	return munmap(p, sysconf(_SC_PAGESIZE));
}

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

/* The load segments of an ELF file that matter here, page aligned. */
struct lib_layout {
	uint64_t span;			/* end of the highest segment */
	uint64_t text_vaddr, text_off, text_len;
	uint64_t sf_vaddr, sf_off, sf_len;	/* the segment with .sframe */
};

static int lib_layout(int fd, struct lib_layout *l)
{
	uint64_t pg = sysconf(_SC_PAGESIZE), sframe = 0, end;
	struct elf64_phdr ph[32];
	struct elf64_hdr eh;
	int i, n;

	memset(l, 0, sizeof(*l));
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || eh.e_phnum > 32)
		return -1;
	n = eh.e_phnum;
	if (pread(fd, ph, n * sizeof(ph[0]), eh.e_phoff) != n * sizeof(ph[0]))
		return -1;
	for (i = 0; i < n; i++)
		if (ph[i].p_type == PT_GNU_SFRAME)
			sframe = ph[i].p_vaddr;
	for (i = 0; i < n; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		end = ph[i].p_vaddr + ph[i].p_memsz;
		if (end > l->span)
			l->span = (end + pg - 1) & ~(pg - 1);
		if ((ph[i].p_flags & PF_X) && !l->text_len) {
			l->text_vaddr = ph[i].p_vaddr & ~(pg - 1);
			l->text_off = ph[i].p_offset & ~(pg - 1);
			l->text_len = ph[i].p_offset + ph[i].p_filesz - l->text_off;
		}
		if (!(ph[i].p_flags & (PF_X | PF_W)) && sframe >= ph[i].p_vaddr &&
		    sframe < ph[i].p_vaddr + ph[i].p_filesz) {
			l->sf_vaddr = ph[i].p_vaddr & ~(pg - 1);
			l->sf_off = ph[i].p_offset & ~(pg - 1);
			l->sf_len = ph[i].p_offset + ph[i].p_filesz - l->sf_off;
		}
	}
	/* the .sframe segment must come after the text (mapped over later) */
	return l->text_len && l->sf_len && l->sf_vaddr > l->text_vaddr ? 0 : -1;
}

/* Copy @from to @to, a new file. */
static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in, out, ret = -1;
	ssize_t n;

	in = open(from, O_RDONLY | O_CLOEXEC);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (in < 0 || out < 0)
		goto out;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			goto out;
	ret = n ? -1 : 0;
out:
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out))
		ret = -1;
	return ret;
}

/* dlopen() @path in a child process, which then exits. */
static int dlopen_child(const char *path)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid)
		_exit(dlopen(path, RTLD_NOW) ? 0 : 1);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

/*
 * Open a collector and let the kernel look at this process's own text
 * (the work that registers the mapping does it), before counting.
 */
static int collector_settle(int fd, off_t off)
{
	int collector = collector_open();

	if (collector >= 0 && map_text(fd, off)) {
		close(collector);
		return -EIO;
	}
	return collector;
}

/* Full validations and validations taken over by one dlopen_child(). */
static int dlopen_counted(const char *path, long *validated, long *shared)
{
	long val = sframe_stat("validated");
	long sh = sframe_stat("validation_shared");

	if (dlopen_child(path))
		return -1;
	*validated = sframe_stat("validated") - val;
	*shared = sframe_stat("validation_shared") - sh;
	return 0;
}

FIXTURE(discovery) {
	char lib[PATH_MAX];
	int fd;
	off_t text;
	int collector;
};

FIXTURE_SETUP(discovery)
{
	self->collector = -1;
	if (unwind_sysctl_read() != 1)
		SKIP(return, "kernel.unwind_user_sframe is not 1");
	if (sframe_stat("files_read") < 0)
		SKIP(return, "no /sys/kernel/debug/unwind_user/sframe_stats");
	ASSERT_EQ(0, self_dir_file(self->lib, sizeof(self->lib),
				   "libsf_a.so"));
	ASSERT_EQ(1, elf_has_sframe(self->lib));
	self->fd = open(self->lib, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	self->text = text_offset(self->fd);
	ASSERT_LE(0, self->text);
}

FIXTURE_TEARDOWN(discovery)
{
	if (self->collector >= 0)
		close(self->collector);
	close(self->fd);
}

/* Files read and sections registered by one map_text(). */
struct map_counts {
	long read;
	long registered;
};

static int map_counted(int fd, off_t off, struct map_counts *c)
{
	long read = sframe_stat("files_read");
	long registered = sframe_stat("registered");

	if (map_text(fd, off))
		return -1;
	c->read = sframe_stat("files_read") - read;
	c->registered = sframe_stat("registered") - registered;
	return 0;
}

TEST_F(discovery, no_reads_without_collector)
{
	struct map_counts c;

	ASSERT_EQ(0, map_counted(self->fd, self->text, &c));
	diag("no collector: files read %ld, registered %ld\n", c.read,
	     c.registered);
	EXPECT_EQ(0, c.read);
	EXPECT_EQ(0, c.registered);

	/* this program's own text is looked at too: at least one more */
	self->collector = collector_open();
	if (self->collector < 0)
		SKIP(return, "perf_event_open: %s", strerror(-self->collector));
	ASSERT_EQ(0, map_counted(self->fd, self->text, &c));
	diag("with a collector: files read %ld, registered %ld\n", c.read,
	     c.registered);
	EXPECT_LT(0, c.read);
	EXPECT_LT(0, c.registered);

	/* and then exactly this mapping */
	ASSERT_EQ(0, map_counted(self->fd, self->text, &c));
	diag("once more: files read %ld, registered %ld\n", c.read,
	     c.registered);
	EXPECT_EQ(1, c.read);
	EXPECT_EQ(1, c.registered);
}

TEST_F(discovery, no_access_events)
{
	struct inotify_event ev[16];
	char byte;
	int in;

	self->collector = collector_settle(self->fd, self->text);
	if (self->collector < 0)
		SKIP(return, "perf_event_open: %s", strerror(-self->collector));
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	ASSERT_LE(0, in);
	ASSERT_LE(0, inotify_add_watch(in, self->lib, IN_ACCESS));

	ASSERT_EQ(0, map_text(self->fd, self->text));
	EXPECT_EQ(-1, read(in, ev, sizeof(ev)));
	EXPECT_EQ(EAGAIN, errno);

	/* the watch works: a read of the file is seen */
	ASSERT_EQ(1, pread(self->fd, &byte, 1, 0));
	EXPECT_LT(0, read(in, ev, sizeof(ev)));
	close(in);
}

TEST_F(discovery, validation_shared)
{
	char copy[] = "/tmp/libsf_copy_XXXXXX";
	long val, sh, tables;
	off_t off;
	void *p;
	int fd;

	self->collector = collector_settle(self->fd, self->text);
	if (self->collector < 0)
		SKIP(return, "perf_event_open: %s", strerror(-self->collector));
	/* a file no process has mapped yet */
	fd = mkstemp(copy);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, copy_file(self->lib, copy));
	tables = sframe_stat("tables");

	ASSERT_EQ(0, dlopen_counted(copy, &val, &sh));
	diag("first process: validated %ld, shared %ld\n", val, sh);
	EXPECT_EQ(1, val);
	EXPECT_EQ(0, sh);

	/* its table is no longer in use, but kept for the next process */
	EXPECT_EQ(tables, sframe_stat("tables"));
	ASSERT_EQ(0, dlopen_counted(copy, &val, &sh));
	diag("next process: validated %ld, shared %ld\n", val, sh);
	EXPECT_EQ(0, val);
	EXPECT_EQ(1, sh);

	/* while this process maps it, the next one shares its table */
	fd = open(copy, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	off = text_offset(fd);
	ASSERT_LE(0, off);
	p = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ | PROT_EXEC,
		 MAP_PRIVATE, fd, off);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(tables + 1, sframe_stat("tables"));
	ASSERT_EQ(0, dlopen_counted(copy, &val, &sh));
	diag("while mapped here: validated %ld, shared %ld\n", val, sh);
	EXPECT_EQ(0, val);
	EXPECT_EQ(1, sh);

	/* written to (the same bytes): a table of its own */
	ASSERT_EQ(0, copy_file(self->lib, copy));
	ASSERT_EQ(0, dlopen_counted(copy, &val, &sh));
	diag("after a write: validated %ld, shared %ld\n", val, sh);
	EXPECT_EQ(1, val);
	EXPECT_EQ(0, sh);

	/* the last mapping gone, no table of the file is in use */
	ASSERT_EQ(0, munmap(p, sysconf(_SC_PAGESIZE)));
	close(fd);
	EXPECT_EQ(tables, sframe_stat("tables"));
	unlink(copy);
}

TEST_F(discovery, late_segment)
{
	char copy[] = "/tmp/libsf_late_XXXXXX";
	char lib[PATH_MAX];
	struct lib_layout l;
	long val0, val1, val2;
	char *base;
	int fd;

	/* a new file: no validation of it to take over */
	ASSERT_EQ(0, self_dir_file(lib, sizeof(lib), "libsf_sep.so"));
	fd = mkstemp(copy);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, copy_file(lib, copy));
	fd = open(copy, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, lib_layout(fd, &l));
	self->collector = collector_settle(self->fd, self->text);
	if (self->collector < 0)
		SKIP(return, "perf_event_open: %s", strerror(-self->collector));

	base = mmap(NULL, l.span, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, base);
	val0 = sframe_stat("validated");
	/* the text alone: registered, validated from the file */
	ASSERT_NE(MAP_FAILED, mmap(base + l.text_vaddr, l.text_len,
				   PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED,
				   fd, l.text_off));
	val1 = sframe_stat("validated");
	/* then the segment that holds it */
	ASSERT_NE(MAP_FAILED, mmap(base + l.sf_vaddr, l.sf_len, PROT_READ,
				   MAP_PRIVATE | MAP_FIXED, fd, l.sf_off));
	val2 = sframe_stat("validated");
	diag("validated: %ld with the text alone, %ld once .sframe is mapped\n",
	     val1 - val0, val2 - val1);
	EXPECT_EQ(val0 + 1, val1);
	EXPECT_EQ(val1, val2);
	munmap(base, l.span);
	close(fd);
	unlink(copy);
}

TEST_F(sampled, on_demand)
{
	char *const argv[] = { self->exe, WL_ARG, "on", NULL };
	struct chain_stats *st = &self->st;
	long disc0;

	if (unwind_sysctl_read() != 1)
		SKIP(return, "kernel.unwind_user_sframe is not 1");
	disc0 = sframe_stat("discoveries");
	if (disc0 < 0)
		SKIP(return, "no /sys/kernel/debug/unwind_user/sframe_stats");
	ASSERT_EQ(1, elf_has_sframe(self->exe));

	/* the workload is exec'ed with SFrame off, and turns it on */
	ASSERT_EQ(0, sampled_sysctl(self, UNWIND_SYSCTL, 0));
	EXPECT_EQ(0, sampled_run(self, argv, expect[0]));
	EXPECT_EQ(1, unwind_sysctl_read());

	sampled_check(self, "on demand", expect, ARRAY_SIZE(expect),
		      CHAINS_REPORT);
	diag("discoveries: %ld; cut short %lu, wrong %lu of %lu\n",
	     sframe_stat("discoveries") - disc0, st->truncated,
	     st->leaf - st->complete - st->truncated, st->leaf);
	ASSERT_GE(st->leaf, self->o.min_leaf);
	EXPECT_LT(disc0, sframe_stat("discoveries"));
	/*
	 * The first samples may end early, until the text is looked at and
	 * its section validated; none after that, and no sample is wrong.
	 */
	EXPECT_EQ(st->leaf, st->complete + st->truncated);
	ASSERT_LT(0, st->complete);
	if (st->truncated)
		EXPECT_LT(st->last_truncated, st->first_complete);
}

/*
 * main keeps a frame pointer, and a, b and c leave the register alone: a
 * frame-pointer walk from c, where on_demand's chains must end early,
 * would go straight to main's caller.
 */
__attribute__((optimize("no-omit-frame-pointer")))
int main(int argc, char **argv)
{
	const char *mode = wl_mode(argc, argv);

	if (mode) {
		wl_init();
		if (!strcmp(mode, "on") && unwind_sysctl_write(1))
			return 1;
		a();
		return 0;
	}
	return test_harness_run(argc, argv);
}
