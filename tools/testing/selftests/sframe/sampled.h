/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fixture of the sampled SFrame selftests.  TEST_F(sampled, name) runs
 * a workload (usually this program, in the mode its arguments name) under
 * the sampler of sampler.h and judges the call chains of its samples.
 *
 * Setup reads the sampler's options into self->o (a test may change them
 * before sampled_start()) and opens the kernel log.  Teardown, whatever the
 * test's outcome, stops the workload and its children, restores every
 * sysctl changed through sampled_sysctl() and removes the files of
 * sampled_tmpdir(); the test fails if the kernel logged an oops, a warning,
 * a sanitizer report or a stall while it ran.
 *
 * A test file may declare FIXTURE_VARIANT(sampled) and add variants.
 */
#ifndef __SFRAME_SELFTEST_SAMPLED_H
#define __SFRAME_SELFTEST_SAMPLED_H

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "sampler.h"

#define SAMPLED_SYSCTLS		4

FIXTURE(sampled) {
	struct sampler_opts o;
	struct sample_filter f;	/* the workload's samples (pid: its pid) */
	struct wl_run w;
	struct chain_stats st;	/* of the last sampled_check() */
	char exe[PATH_MAX];	/* this program */
	char tmp[PATH_MAX];	/* sampled_tmpdir(), or "" */
	int kmsg;
	unsigned int nr_saved;
	struct {
		const char *path;
		int val;
	} saved[SAMPLED_SYSCTLS];
};

FIXTURE_SETUP(sampled)
{
	sampler_get_opts(&self->o);
	self->f = SAMPLE_FILTER_ANY;
	self->kmsg = kmsg_open();
	ASSERT_EQ(0, self_path(self->exe, sizeof(self->exe)));
}

static inline bool sampled_splat(const char *msg, void *arg)
{
	return kmsg_is_splat(msg);
}

FIXTURE_TEARDOWN(sampled)
{
	struct dirent *de;
	char path[PATH_MAX * 2];
	DIR *d;

	wl_cleanup(&self->w);
	while (self->nr_saved) {
		self->nr_saved--;
		EXPECT_EQ(0, sysctl_int_write(self->saved[self->nr_saved].path,
					      self->saved[self->nr_saved].val));
	}
	if (self->tmp[0]) {
		d = opendir(self->tmp);
		while (d && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", self->tmp,
				 de->d_name);
			unlink(path);
		}
		if (d)
			closedir(d);
		EXPECT_EQ(0, rmdir(self->tmp));
	}
	if (self->kmsg >= 0) {
		EXPECT_EQ(0, kmsg_count(self->kmsg, sampled_splat, NULL));
		close(self->kmsg);
	} else {
		diag("/dev/kmsg: %s: kernel log not checked\n",
		     strerror(-self->kmsg));
	}
}

/*
 * The helpers below take the fixture's data, FIXTURE_DATA(sampled), by its
 * struct's name.
 */

/* Set the sysctl @path to @val until the test's end: 0 or -errno. */
static inline int sampled_sysctl(struct _test_data_sampled *self,
				 const char *path, int val)
{
	int old = sysctl_int_read(path);

	if (old < 0)
		return old;
	if (self->nr_saved == SAMPLED_SYSCTLS)
		return -ENOSPC;
	self->saved[self->nr_saved].path = path;
	self->saved[self->nr_saved].val = old;
	self->nr_saved++;
	diag("%s: %d -> %d\n", path, old, val);
	return sysctl_int_write(path, val);
}

/* A directory for the test's files, removed with them at its end. */
static inline const char *sampled_tmpdir(struct _test_data_sampled *self)
{
	const char *t = getenv("TMPDIR");

	if (!self->tmp[0]) {
		snprintf(self->tmp, sizeof(self->tmp), "%s/sframe-XXXXXX",
			 t && *t ? t : "/tmp");
		if (!mkdtemp(self->tmp))
			self->tmp[0] = 0;
	}
	return self->tmp[0] ? self->tmp : NULL;
}

/* Start the workload @argv (argv[0]: its path) sampled; 0 or -errno. */
static inline int sampled_start(struct _test_data_sampled *self,
				char *const argv[])
{
	int ret = wl_start(&self->w, argv[0], argv, &self->o);

	if (ret)
		diag("cannot start %s: %s\n", argv[0], strerror(-ret));
	else
		self->f.pid = self->w.pid;
	return ret;
}

/*
 * Collect until each of @goals has enough leaf samples, or the phase's
 * bound, then tell the workload to go on (SIGUSR1): 0 or -ECHILD.
 */
static inline int sampled_until(struct _test_data_sampled *self,
				const struct phase_goal *goals,
				unsigned int nr_goals)
{
	return wl_phase_until(&self->w, &self->o, goals, nr_goals);
}

/* sampled_until() for the samples of self->f whose leaf is @leaf. */
static inline int sampled_phase(struct _test_data_sampled *self,
				const char *leaf)
{
	struct phase_goal g = { .f = self->f, .leaf = leaf };

	return sampled_until(self, &g, 1);
}

/*
 * Wait for the workload's exit and decode its samples: 0 if it exited
 * cleanly and every record was read.
 */
static inline int sampled_finish(struct _test_data_sampled *self)
{
	int ret = wl_finish(&self->w) ? -EIO : 0;

	if (!wl_exit_ok(&self->w)) {
		diag("workload did not exit cleanly (status %#x)\n",
		     self->w.status);
		ret = ret ?: -ECHILD;
	}
	return ret;
}

/*
 * The usual run: start @argv, collect until its samples have enough leaves
 * @leaf, stop it and decode: 0 if all of it went well.
 */
static inline int sampled_run(struct _test_data_sampled *self,
			      char *const argv[], const char *leaf)
{
	int ret = sampled_start(self, argv);

	if (ret)
		return ret;
	ret = sampled_phase(self, leaf);
	return sampled_finish(self) ?: ret;
}

enum sampled_want {
	CHAINS_COMPLETE,	/* chain_is_complete() */
	CHAINS_NONE,		/* enough leaf samples, not one complete */
	CHAINS_REPORT,		/* no judgement: the caller's */
};

/*
 * Report the chains of self->f's samples whose leaf is @expect[0] under
 * @label (their counts in self->st) and judge them as @want says.
 */
static inline bool sampled_check(struct _test_data_sampled *self,
				 const char *label, const char *const *expect,
				 unsigned int depth, enum sampled_want want)
{
	bool complete = chain_report(label, &self->w.s, &self->f, expect,
				     depth, &self->o, &self->st);

	switch (want) {
	case CHAINS_COMPLETE:
		return complete;
	case CHAINS_NONE:
		return self->st.leaf >= self->o.min_leaf && !self->st.complete;
	default:
		return true;
	}
}

/* sampled_run(), then sampled_check() of all of its samples. */
static inline bool sampled_chains(struct _test_data_sampled *self,
				  const char *label, char *const argv[],
				  const char *const *expect, unsigned int depth,
				  enum sampled_want want)
{
	bool ran = !sampled_run(self, argv, expect[0]);

	return sampled_check(self, label, expect, depth, want) && ran;
}

#endif /* __SFRAME_SELFTEST_SAMPLED_H */
