/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal perf sampler and call-chain checker for the SFrame user space
 * unwinding selftests.
 *
 * A workload process is forked, a software cpu-clock sampling event is
 * attached to it (enable-on-exec, inherited by its threads and children)
 * and the workload is exec'ed.  Samples carry the user call chain only.
 * Executable mappings are tracked from PERF_RECORD_MMAP2/COMM/FORK records,
 * so addresses are symbolized against the mapping that was live when the
 * sample was taken (dlclose()d libraries included), using the .symtab (or
 * .dynsym) of each mapped ELF file.
 *
 * Run time parameters (environment):
 *   UNWIND_PERIOD_NS  sample period in ns of cpu-clock (default 100000)
 *   UNWIND_RUN_MS     shortest sampled workload phase (default 0)
 *   UNWIND_MAX_MS     longest phase (default 30000): a phase collects until
 *                     each of its goals has UNWIND_MIN_LEAF leaf samples
 *   UNWIND_MIN_LEAF   minimum number of leaf samples per check (default 200)
 */
#ifndef __SFRAME_SELFTEST_SAMPLER_H
#define __SFRAME_SELFTEST_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/perf_event.h>

#include "kselftest.h"

/*
 * A sampled test collects until it has enough samples, each phase for
 * UNWIND_MAX_MS at most: on a slow (emulated, debug) kernel that is longer
 * than the harness's default 30 s alarm.  The runner's limit for the whole
 * program (settings) still ends a hang.
 */
#ifdef TEST_TIMEOUT_DEFAULT
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT	600
#endif

#define UNWIND_SYSCTL		"/proc/sys/kernel/unwind_user_sframe"
#define EH_FRAME_SYSCTL		"/proc/sys/kernel/unwind_user_eh_frame"
#define UNWIND_COMPLETE_PCT	99

/* Frames kept per sample: enough for the expected chains plus context. */
#define SAMPLE_MAX_FRAMES	16

struct sampler_opts {
	/* the sampled event: cpu-clock unless changed after sampler_get_opts() */
	uint32_t ev_type;
	uint64_t ev_config;
	uint64_t period_ns;	/* sample period (a tracepoint: every hit) */
	unsigned int run_ms;
	unsigned int max_ms;
	unsigned long min_leaf;
	/* track mappings only: no call chains, so not a collector itself */
	bool no_callchain;
};

struct sample {
	pid_t pid;
	pid_t tid;
	unsigned int gen;		/* execs of pid seen so far */
	unsigned int nr;		/* frames stored below */
	unsigned int depth;		/* frames in the recorded chain */
	uint64_t time;
	const char *sym[SAMPLE_MAX_FRAMES];	/* NULL: no symbol */
	/* mapped file (or NULL) and file offset (or address) */
	const char *obj[SAMPLE_MAX_FRAMES];
	uint64_t addr[SAMPLE_MAX_FRAMES];
};

/*
 * A sample record as the sampler asks for it: PERF_SAMPLE_IP |
 * PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN.
 */
struct rec_sample {
	struct perf_event_header header;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t nr;
	uint64_t ips[];
};

struct sampler_buf;
struct sampler_rec;
struct sampler_proc;
struct sampler_elf;
struct sampler_mmap;

struct sampler {
	int nr_bufs;
	struct sampler_buf *bufs;

	/* raw records, copied out of the ring buffers */
	char *raw;
	size_t raw_len, raw_cap;
	struct sampler_rec *recs;
	size_t nr_recs, cap_recs;

	/* decoded state */
	struct sampler_proc *procs;
	struct sampler_elf *elfs;
	struct sample *samples;
	size_t nr_samples;
	struct sampler_mmap *mmaps;	/* every executable mapping seen */
	size_t nr_mmaps, cap_mmaps;
	uint64_t lost;
};

/* Address range of an executable mapping, for reports. */
struct sampler_mapping {
	uint64_t start;
	uint64_t end;
};

struct sample_filter {
	pid_t pid;		/* only this process, 0: any */
	pid_t not_pid;		/* not this process, 0: none excluded */
	pid_t tid;		/* only this thread, 0: any */
	int gen;		/* only this exec generation, -1: any */
	/* if leaf_end: only leaves at these file offsets of a mapped file */
	uint64_t leaf_off, leaf_end;
};

#define SAMPLE_FILTER_ANY ((struct sample_filter){ .gen = -1 })

struct chain_stats {
	unsigned long leaf;	/* samples whose leaf is the expected leaf */
	unsigned long complete;	/* ... starting with the whole sequence */
	unsigned long truncated; /* ... shorter, but right as far as it goes */
	unsigned long total;	/* samples matching the filter */
	uint64_t first_complete; /* time of the first complete one, or 0 */
	uint64_t last_truncated; /* time of the last truncated one, or 0 */
};

void sampler_get_opts(struct sampler_opts *o);
/* Decode the records read so far into samples: 0 or -errno. */
int sampler_decode(struct sampler *s);
/*
 * After sampler_decode(): add a sample of @pid with the user call chain
 * @ips (leaf first) that another consumer (ftrace, a BPF program) reported,
 * symbolized against the process's mappings as last recorded.
 */
int sampler_add_chain(struct sampler *s, pid_t pid, const uint64_t *ips,
		      unsigned int nr);
int sampler_find_mapping(const struct sampler *s, const char *file_suffix,
			 unsigned int index, struct sampler_mapping *m);

/*
 * Expected chains are given leaf first: { "c", "b", "a", "main" }; an entry
 * "@libc.so" stands for one or more frames in a file whose name starts
 * with "libc.so".  A last entry CHAIN_END makes it a whole chain: after
 * the other entries only the C library's entry frames (frames in libc.so,
 * then _start) may follow, and the chain must end there.
 */
#define CHAIN_END		"$"

enum chain_match { CHAIN_WRONG, CHAIN_SHORT, CHAIN_COMPLETE };

/*
 * CHAIN_COMPLETE: @smp's frames are @expect; CHAIN_SHORT: its chain ended
 * early, right as far as it went; CHAIN_WRONG: anything else.
 */
enum chain_match chain_match(const struct sample *smp,
			     const char *const *expect, unsigned int depth);
/* diag() one line: the sample's pid and its symbolized chain. */
void sample_print(const struct sample *smp);
void chain_count(const struct sampler *s, const struct sample_filter *f,
		 const char *const *expect, unsigned int depth,
		 struct chain_stats *st);
bool chain_report(const char *label, const struct sampler *s,
		  const struct sample_filter *f, const char *const *expect,
		  unsigned int depth, const struct sampler_opts *o,
		  struct chain_stats *st);
bool chain_is_complete(const struct chain_stats *st,
		       const struct sampler_opts *o);
int chain_tids(const struct sampler *s, pid_t pid, const char *leaf,
	       pid_t *tids, int max);

/* A sampled workload process. */
struct wl_run {
	pid_t pid;
	int status;
	bool exited;
	struct sampler s;
};

/*
 * Start @path sampled.  Where perf_event_open() is not permitted, the test
 * (a harness test's own process) exits with KSFT_SKIP.
 */
int wl_start(struct wl_run *w, const char *path, char *const argv[],
	     const struct sampler_opts *o);
/*
 * What a phase collects before it ends: min_leaf samples whose leaf is
 * @leaf among those @f selects, in each of @threads threads (0 or 1: in
 * all of them together).  A sample whose leaf is @or_leaf counts too.
 */
struct phase_goal {
	struct sample_filter f;
	const char *leaf;
	const char *or_leaf;
	unsigned int threads;
};

/*
 * Collect until each of @goals has o->min_leaf leaf samples, for o->run_ms
 * at least and o->max_ms at most; then tell the workload to go on
 * (SIGUSR1).  0, or -ECHILD if the workload exited.
 */
int wl_phase_until(struct wl_run *w, const struct sampler_opts *o,
		   const struct phase_goal *goals, unsigned int nr_goals);
/*
 * Collect until @enough(@w, @arg) says so, asked every 200 ms, or for
 * @max_ms; then stop the workload (SIGUSR1).  0, -ETIMEDOUT or -ECHILD
 * (the workload exited).
 */
int wl_run_until(struct wl_run *w, unsigned int max_ms,
		 bool (*enough)(struct wl_run *w, void *arg), void *arg);
/* Wait for the workload's exit (killed after a bound), decode its samples. */
int wl_finish(struct wl_run *w);
void wl_cleanup(struct wl_run *w);
bool wl_exit_ok(const struct wl_run *w);

/* Helpers */
int self_path(char *buf, size_t len);
int self_dir_file(char *buf, size_t len, const char *name);
int elf_has_sframe(const char *path);
/* The format version of an ELF file's PT_GNU_SFRAME segment, or -1. */
int elf_sframe_version(const char *path);
/* An integer in a file (a sysctl): its value or -errno; 0 or -errno. */
int sysctl_int_read(const char *path);
int sysctl_int_write(const char *path, int val);

static inline int unwind_sysctl_read(void)
{
	return sysctl_int_read(UNWIND_SYSCTL);
}

static inline int unwind_sysctl_write(int val)
{
	return sysctl_int_write(UNWIND_SYSCTL, val);
}

/*
 * A perf event that would sample user call chains, disabled: while one
 * exists, the kernel finds SFrame sections when files are mapped.  Returns
 * its fd or -errno.
 */
int collector_open(void);
/* A counter of debugfs unwind_user/sframe_stats (mounted if need be). */
long sframe_stat(const char *name);
/* /dev/kmsg, opened after the records logged so far (or -errno). */
int kmsg_open(void);
/* Does a kernel log message report an oops, warning, sanitizer or stall? */
bool kmsg_is_splat(const char *msg);
/*
 * Read the records logged since kmsg_open() or the last call; print and
 * count the messages that @match (with @arg).
 */
int kmsg_count(int fd, bool (*match)(const char *msg, void *arg),
	       void *arg);
__printf(1, 2) void diag(const char *fmt, ...);
void diag_env(const char *path);
void diag_elf(const char *path);

#endif /* __SFRAME_SELFTEST_SAMPLER_H */
