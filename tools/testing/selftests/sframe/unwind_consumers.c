// SPDX-License-Identifier: GPL-2.0
/*
 * The consumers of user call chains other than perf sampling get the same
 * SFrame chains: a system-call tracepoint opened with perf_event_open(),
 * ftrace's userstacktrace on a system-call event and on a kprobe event
 * (and, with no other collector, on the first event of new processes),
 * and BPF programs calling bpf_get_stack() or bpf_get_stackid() from a
 * perf event and from a tracepoint.
 *
 * The "writer" workload writes from two call paths, through libc's write(),
 * which has no SFrame data:
 *	main -> wr_a -> wr_a2 -> emit -> write()
 *	main -> wr_b -> emit -> write()
 * Every event of the workload must show one of the two whole chains, both
 * paths must be seen, and with kernel.unwind_user_sframe=0 no event may.
 * The BPF perf event programs sample the main -> a -> b -> c spin.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/bpf.h>
#include <linux/perf_event.h>

#include "sampled.h"
#include "workload.h"

#define TRACEFS		"/sys/kernel/tracing"
#define INSTANCE	TRACEFS "/instances/sframe_consumers"
#define KPROBE_GROUP	"sframe_consumers"
#define MIN_EVENTS	400
#define MAX_MS		60000
#define COMPLETE_PERMILLE 990
#define MAX_FRAMES	16

static const char *const path_a[] = {
	"@libc.so", "emit", "wr_a2", "wr_a", "main", CHAIN_END
};

static const char *const path_b[] = {
	"@libc.so", "emit", "wr_b", "main", CHAIN_END
};

static const char *const spin[] = { WL_CHAIN, CHAIN_END };

/* ---- the writer workload ---- */

static int wr_fd = -1;

noinline __noclone void emit(void)
{
	char frame[32] = "x";

	wl_use(frame);
	if (write(wr_fd, frame, 1) != 1)
		workload_stop = 1;
	wl_use(frame);
}

noinline __noclone void wr_a2(void)
{
	char frame[48];

	wl_use(frame);
	emit();
	wl_use(frame);
}

noinline __noclone void wr_a(void)
{
	char frame[64];

	wl_use(frame);
	wr_a2();
	wl_use(frame);
}

noinline __noclone void wr_b(void)
{
	char frame[80];

	wl_use(frame);
	emit();
	wl_use(frame);
}

static void stop_on_prof(int sig)
{
	workload_stop = 1;
}

/* ---- helpers ---- */

static int put(const char *path, const char *val, int flags)
{
	int fd = open(path, O_WRONLY | flags), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static bool tracefs_ready(void)
{
	if (access(TRACEFS "/events", F_OK))
		mount("tracefs", TRACEFS, "tracefs", 0, NULL);
	return !access(TRACEFS "/events/syscalls/sys_enter_write/id", R_OK);
}

/* The id of tracepoint @name ("group/event"), or -errno. */
static long tracepoint_id(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), TRACEFS "/events/%s/id", name);
	return sysctl_int_read(path);
}

static int perf_open(uint32_t type, uint64_t config, uint64_t period,
		     pid_t pid)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.sample_period = period;
	attr.disabled = 1;
	return syscall(__NR_perf_event_open, &attr, pid, -1, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

/* Start the workload in @mode, the sampler tracking its mappings only. */
/*
 * Start the workload in @mode.  The sampler's event (self->o) tracks its
 * mappings; unless the test changed it, it is a dummy event and the
 * consumer under test reports the chains.
 */
static int start(struct _test_data_sampled *self, const char *mode)
{
	char *const argv[] = { self->exe, WL_ARG, (char *)mode, NULL };

	return sampled_start(self, argv);
}

/*
 * The unwinder on or off as @sframe says.  The writes go through write()
 * of a C library without SFrame data: its callers come from the table of
 * its .eh_frame.
 */
static int unwinder(struct _test_data_sampled *self, int sframe)
{
	self->o.ev_config = PERF_COUNT_SW_DUMMY;
	return sampled_sysctl(self, UNWIND_SYSCTL, sframe) ?:
	       sampled_sysctl(self, EH_FRAME_SYSCTL, 1);
}

/*
 * The verdict on the workload's events (in self->w.s): with the unwinder
 * on, at least 99% of them show one of the expected chains whole (each of
 * the two writer paths in at least a quarter); off, none does.
 */
static bool judge(struct _test_data_sampled *self, const char *label, bool on,
		  bool writer)
{
	unsigned long total, complete, a;
	/* off: no chain may even begin with the whole path (no CHAIN_END) */
	unsigned int cut = !on;
	bool ok;

	/* every event counts: the leaf is in libc or c, however many */
	self->o.min_leaf = 1;
	if (writer) {
		sampled_check(self, "path a", path_a, ARRAY_SIZE(path_a) - cut,
			      CHAINS_REPORT);
		a = self->st.complete;
		sampled_check(self, "path b", path_b, ARRAY_SIZE(path_b) - cut,
			      CHAINS_REPORT);
		total = self->st.total;
		complete = a + self->st.complete;
		ok = on ? a * 4 >= total && self->st.complete * 4 >= total :
			  true;
	} else {
		sampled_check(self, "spin", spin, ARRAY_SIZE(spin) - cut,
			      CHAINS_REPORT);
		total = self->st.leaf;
		complete = self->st.complete;
		ok = true;
	}
	diag("%s: %lu of %lu events with a whole chain (unwinder %s)\n",
	     label, complete, total, on ? "on" : "off");
	if (total < MIN_EVENTS)
		return false;
	if (on)
		return ok && complete * 1000 >= total * COMPLETE_PERMILLE;
	return complete == 0;
}

FIXTURE_VARIANT(sampled) {
	int sframe;
};

FIXTURE_VARIANT_ADD(sampled, on) {
	.sframe = 1,
};

FIXTURE_VARIANT_ADD(sampled, off) {
	.sframe = 0,
};

/* ---- perf_event_open() on a system-call tracepoint ---- */

static bool enough_samples(struct wl_run *w, void *arg)
{
	return !sampler_decode(&w->s) && w->s.nr_samples >= MIN_EVENTS;
}

TEST_F_TIMEOUT(sampled, perf_tracepoint, 300)
{
	long id;

	ASSERT_EQ(0, unwinder(self, variant->sframe));
	if (!tracefs_ready())
		SKIP(return, "no syscalls:sys_enter_write tracepoint");
	id = tracepoint_id("syscalls/sys_enter_write");
	ASSERT_LE(0, id);
	self->o.ev_type = PERF_TYPE_TRACEPOINT;
	self->o.ev_config = id;
	self->o.period_ns = 1;
	ASSERT_EQ(0, start(self, "writer"));
	EXPECT_EQ(0, wl_run_until(&self->w, MAX_MS, enough_samples, NULL));
	EXPECT_EQ(0, sampled_finish(self));
	EXPECT_TRUE(judge(self, "perf_event_open(syscalls:sys_enter_write)",
			  variant->sframe, true));
}

/* ---- ftrace userstacktrace ---- */

struct ftrace_run {
	pid_t pid;
	unsigned long events;
	/* parsed chains: frames[i * MAX_FRAMES ...], nr[i] */
	uint64_t *frames;
	unsigned int *nr;
	size_t cap;
};

/*
 * Read the instance's trace: every "<user stack trace>" entry of @r->pid
 * and its " => <address>" lines.
 */
static void ftrace_read(struct ftrace_run *r)
{
	char line[512];
	bool in = false;
	FILE *f;

	r->events = 0;
	f = fopen(INSTANCE "/trace", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "<user stack trace>");
		unsigned long long ip;
		char *dash;

		if (p) {
			in = false;
			/* "comm-PID [cpu] ...": the last '-' before '[' */
			p = strchr(line, '[');
			if (!p)
				continue;
			*p = 0;
			dash = strrchr(line, '-');
			if (!dash || atoi(dash + 1) != r->pid)
				continue;
			in = true;
			if (r->events == r->cap) {
				r->cap = r->cap ? r->cap * 2 : 1024;
				r->frames = realloc(r->frames, r->cap *
						    MAX_FRAMES * sizeof(uint64_t));
				r->nr = realloc(r->nr, r->cap * sizeof(unsigned int));
				if (!r->frames || !r->nr)
					break;
			}
			r->nr[r->events] = 0;
			r->events++;
			continue;
		}
		if (!in || strncmp(line, " => ", 4))
			continue;
		p = strchr(line, '<');
		if (!p || sscanf(p + 1, "%llx", &ip) != 1)
			continue;
		if (r->nr[r->events - 1] < MAX_FRAMES)
			r->frames[(r->events - 1) * MAX_FRAMES +
				  r->nr[r->events - 1]++] = ip;
	}
	fclose(f);
}

static bool enough_ftrace(struct wl_run *w, void *arg)
{
	struct ftrace_run *r = arg;

	ftrace_read(r);
	return r->events >= MIN_EVENTS;
}

/* Trace @event (enabled under the instance) with user stacks. */
static void ftrace_case(struct __test_metadata *_metadata,
			struct _test_data_sampled *self, const char *event, bool on)
{
	struct ftrace_run r = { 0 };
	char path[PATH_MAX], filter[64];
	struct wl_run *w = &self->w;
	size_t i;

	rmdir(INSTANCE);
	ASSERT_EQ(0, mkdir(INSTANCE, 0755));
	ASSERT_EQ(0, put(INSTANCE "/options/userstacktrace", "1", 0));
	/* a few thousand events: cheap to read again at every poll */
	ASSERT_EQ(0, put(INSTANCE "/buffer_size_kb", "512", 0));
	ASSERT_EQ(0, start(self, "writer"));
	/*
	 * The workload's events only, by the event's own filter (not by
	 * set_event_pid, which hooks the scheduler's tracepoints and patches
	 * their call sites while other CPUs run them).
	 */
	r.pid = w->pid;
	snprintf(filter, sizeof(filter), "common_pid == %d", w->pid);
	snprintf(path, sizeof(path), INSTANCE "/events/%s/filter", event);
	EXPECT_EQ(0, put(path, filter, 0));
	snprintf(path, sizeof(path), INSTANCE "/events/%s/enable", event);
	EXPECT_EQ(0, put(path, "1", 0));
	EXPECT_EQ(0, wl_run_until(w, MAX_MS, enough_ftrace, &r));
	put(INSTANCE "/tracing_on", "0", 0);
	put(path, "0", 0);
	EXPECT_EQ(0, sampled_finish(self));
	ftrace_read(&r);
	for (i = 0; i < r.events; i++)
		sampler_add_chain(&w->s, w->pid, &r.frames[i * MAX_FRAMES],
				  r.nr[i]);
	snprintf(path, sizeof(path), "ftrace userstacktrace (%s)", event);
	EXPECT_TRUE(judge(self, path, on, true));
	free(r.frames);
	free(r.nr);
	rmdir(INSTANCE);
}

TEST_F_TIMEOUT(sampled, ftrace_syscall, 300)
{
	ASSERT_EQ(0, unwinder(self, variant->sframe));
	if (!tracefs_ready())
		SKIP(return, "no syscalls:sys_enter_write event");
	ftrace_case(_metadata, self, "syscalls/sys_enter_write",
		    variant->sframe);
}

/*
 * A trace instance recording user stacks collects call chains by itself:
 * with no perf event or BPF program taking them (the workload's mappings
 * are tracked by an event without call chains), the first event of each
 * of FIRST_PROCS processes started afterwards ("writer:1", whose first
 * write is from path a) has the whole chain.
 */
#define FIRST_PROCS	20

struct first_run {
	pid_t self;
	unsigned int nr;
	pid_t pid[FIRST_PROCS];
	uint64_t frames[FIRST_PROCS][MAX_FRAMES];
	unsigned int depth[FIRST_PROCS];
};

/* The first user stack of each process other than this one, in order. */
static void first_read(struct first_run *r)
{
	char line[512];
	int cur = -1;
	unsigned int i;
	FILE *f;

	r->nr = 0;
	f = fopen(INSTANCE "/trace", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long ip;
		char *p = strstr(line, "<user stack trace>"), *dash;
		pid_t pid;

		if (p) {
			cur = -1;
			p = strchr(line, '[');
			if (!p)
				continue;
			*p = 0;
			dash = strrchr(line, '-');
			pid = dash ? atoi(dash + 1) : 0;
			if (pid <= 0 || pid == r->self)
				continue;
			for (i = 0; i < r->nr && r->pid[i] != pid; i++)
				;
			if (i < r->nr || r->nr == FIRST_PROCS)
				continue;
			cur = r->nr++;
			r->pid[cur] = pid;
			r->depth[cur] = 0;
			continue;
		}
		if (cur < 0 || strncmp(line, " => ", 4))
			continue;
		p = strchr(line, '<');
		if (p && sscanf(p + 1, "%llx", &ip) == 1 &&
		    r->depth[cur] < MAX_FRAMES)
			r->frames[cur][r->depth[cur]++] = ip;
	}
	fclose(f);
}

static bool enough_first(struct wl_run *w, void *arg)
{
	struct first_run *r = arg;

	first_read(r);
	return r->nr >= FIRST_PROCS;
}

TEST_F_TIMEOUT(sampled, ftrace_first_event, 300)
{
	struct first_run r = { .self = getpid() };
	unsigned int i, complete = 0;
	struct wl_run *w = &self->w;
	char arg[32];

	ASSERT_EQ(0, unwinder(self, variant->sframe));
	if (!tracefs_ready())
		SKIP(return, "no syscalls:sys_enter_write event");
	rmdir(INSTANCE);
	ASSERT_EQ(0, mkdir(INSTANCE, 0755));
	ASSERT_EQ(0, put(INSTANCE "/options/userstacktrace", "1", 0));
	ASSERT_EQ(0, put(INSTANCE "/events/syscalls/sys_enter_write/enable",
			 "1", 0));
	self->o.no_callchain = true;
	snprintf(arg, sizeof(arg), "spawn:%d", FIRST_PROCS);
	ASSERT_EQ(0, start(self, arg));
	EXPECT_EQ(0, wl_run_until(w, MAX_MS, enough_first, &r));
	put(INSTANCE "/tracing_on", "0", 0);
	EXPECT_EQ(0, sampled_finish(self));
	first_read(&r);
	for (i = 0; i < r.nr; i++) {
		const struct sample *smp;
		enum chain_match m;

		if (sampler_add_chain(&w->s, r.pid[i], r.frames[i], r.depth[i]))
			continue;
		smp = &w->s.samples[w->s.nr_samples - 1];
		m = chain_match(smp, path_a, ARRAY_SIZE(path_a));
		complete += m == CHAIN_COMPLETE;
		if (m != CHAIN_COMPLETE || i == 0)
			sample_print(smp);
	}
	diag("ftrace first events: %u of %u with the whole chain (unwinder %s)\n",
	     complete, r.nr, variant->sframe ? "on" : "off");
	EXPECT_EQ(FIRST_PROCS, r.nr);
	EXPECT_EQ(variant->sframe ? r.nr : 0, complete);
	rmdir(INSTANCE);
}

TEST_F_TIMEOUT(sampled, ftrace_kprobe, 300)
{
	ASSERT_EQ(0, unwinder(self, variant->sframe));
	if (!tracefs_ready() || access(TRACEFS "/kprobe_events", W_OK))
		SKIP(return, "no kprobe events");
	put(TRACEFS "/kprobe_events", "-:" KPROBE_GROUP "/vfs_write", O_APPEND);
	ASSERT_EQ(0, put(TRACEFS "/kprobe_events",
			 "p:" KPROBE_GROUP "/vfs_write vfs_write", O_APPEND));
	ftrace_case(_metadata, self, KPROBE_GROUP "/vfs_write",
		    variant->sframe);
	put(TRACEFS "/kprobe_events", "-:" KPROBE_GROUP "/vfs_write", O_APPEND);
}

/* ---- BPF ---- */

#define INSN(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), \
			     .src_reg = (s), .off = (o), .imm = (i) })
#define MOV_REG(d, s)	INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV_IMM(d, i)	INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define ADD_IMM(d, i)	INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define STX_DW(d, s, o)	INSN(BPF_STX | BPF_DW | BPF_MEM, d, s, o, 0)
#define CALL(f)		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT()		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
/* a map's address: two instructions, MAP_FD then IMM64_HI */
#define MAP_FD(d, fd)	INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd)
#define IMM64_HI()	INSN(0, 0, 0, 0, 0)

#define STACK_BYTES	(MAX_FRAMES * 8)
#define QUEUE_ENTRIES	8192
#define MAX_KEEP	200000

/* The kernel has the bpf() system call (its sysctl comes with it). */
static bool bpf_ready(void)
{
	return !access("/proc/sys/kernel/unprivileged_bpf_disabled", F_OK);
}

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int map_create(uint32_t type, uint32_t key, uint32_t value,
		      uint32_t entries)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = key;
	a.value_size = value;
	a.max_entries = entries;
	return sys_bpf(BPF_MAP_CREATE, &a);
}

static int prog_load(uint32_t type, const struct bpf_insn *insns,
		     unsigned int nr)
{
	static char log[65536];
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	a.insns = (uintptr_t)insns;
	a.insn_cnt = nr;
	a.license = (uintptr_t)"GPL";
	a.log_buf = (uintptr_t)log;
	a.log_size = sizeof(log);
	a.log_level = 1;
	fd = sys_bpf(BPF_PROG_LOAD, &a);
	if (fd < 0)
		diag("BPF_PROG_LOAD: %s\n%s\n", strerror(errno), log);
	return fd;
}

static int map_pop(int fd, void *value)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.value = (uintptr_t)value;
	return sys_bpf(BPF_MAP_LOOKUP_AND_DELETE_ELEM, &a);
}

static int map_lookup(int fd, const void *key, void *value)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (uintptr_t)key;
	a.value = (uintptr_t)value;
	return sys_bpf(BPF_MAP_LOOKUP_ELEM, &a);
}

struct bpf_run {
	int queue;		/* events, in order */
	int stackmap;		/* -1: the queue holds the stacks */
	bool writer;		/* the writer workload, or the spin */
	unsigned long events;
	uint64_t (*stacks)[1 + MAX_FRAMES];	/* length (or id), frames */
	size_t cap;
};

/* Pop what the program pushed (a queue's worth at most: it keeps coming). */
static void bpf_drain(struct bpf_run *r)
{
	uint64_t v[1 + MAX_FRAMES];
	unsigned int n = 0;

	memset(v, 0, sizeof(v));
	while (n++ < QUEUE_ENTRIES && !map_pop(r->queue, v)) {
		if (r->events == MAX_KEEP)
			continue;
		if (r->events == r->cap) {
			r->cap = r->cap ? r->cap * 2 : 1024;
			r->stacks = realloc(r->stacks, r->cap * sizeof(*r->stacks));
			if (!r->stacks)
				return;
		}
		memcpy(r->stacks[r->events++], v, sizeof(v));
		memset(v, 0, sizeof(v));
	}
}

/* The events' chains as samples of the workload (again from the start). */
static void bpf_symbolize(struct bpf_run *r, struct wl_run *w)
{
	unsigned long i;

	sampler_decode(&w->s);
	for (i = 0; i < r->events; i++) {
		uint64_t ips[MAX_FRAMES] = { 0 }, *v = r->stacks[i];
		unsigned int n = 0;

		if (r->stackmap >= 0) {
			uint32_t id = v[0];

			/*
			 * Another stack in the same bucket: the helper said
			 * so (-EEXIST), the event has no stack to judge.
			 */
			if ((int64_t)v[0] == -EEXIST)
				continue;
			if ((int64_t)v[0] >= 0)
				map_lookup(r->stackmap, &id, ips);
		} else if ((int64_t)v[0] > 0) {
			memcpy(ips, v + 1, v[0] < STACK_BYTES ? v[0] : STACK_BYTES);
		}
		while (n < MAX_FRAMES && ips[n])
			n++;
		sampler_add_chain(&w->s, w->pid, ips, n);
	}
}

/* Enough events: of the writer, or of the spin with its leaf in c. */
static bool enough_bpf(struct wl_run *w, void *arg)
{
	struct sample_filter f = SAMPLE_FILTER_ANY;
	struct bpf_run *r = arg;
	struct chain_stats st;

	bpf_drain(r);
	bpf_symbolize(r, w);
	f.pid = w->pid;
	chain_count(&w->s, &f, spin, ARRAY_SIZE(spin), &st);
	return (r->writer ? st.total : st.leaf) >= MIN_EVENTS;
}

/* Run @prog on @type/@config events of the workload in @mode. */
static void bpf_case(struct __test_metadata *_metadata,
		     struct _test_data_sampled *self, struct bpf_run *r,
		     int prog, uint32_t type, uint64_t config, uint64_t period,
		     const char *mode, const char *label, bool on)
{
	int ev;

	ASSERT_LE(0, prog);
	r->writer = !strcmp(mode, "writer");
	ASSERT_EQ(0, start(self, mode));
	ev = perf_open(type, config, period, self->w.pid);
	ASSERT_LE(0, ev);
	ASSERT_EQ(0, ioctl(ev, PERF_EVENT_IOC_SET_BPF, prog));
	ASSERT_EQ(0, ioctl(ev, PERF_EVENT_IOC_ENABLE, 0));
	EXPECT_EQ(0, wl_run_until(&self->w, MAX_MS, enough_bpf, r));
	close(ev);
	EXPECT_EQ(0, sampled_finish(self));
	bpf_drain(r);
	bpf_symbolize(r, &self->w);
	EXPECT_TRUE(judge(self, label, on, r->writer));
	free(r->stacks);
}

/*
 * bpf_get_stack(ctx, buf, size, BPF_F_USER_STACK) and the length it
 * returned, pushed to @queue as { length, frames }.  The same code for a
 * perf event and a tracepoint program: only the context differs.
 */
static int get_stack_prog(uint32_t type, int queue)
{
	const struct bpf_insn insns[] = {
		MOV_REG(BPF_REG_2, BPF_REG_10),
		ADD_IMM(BPF_REG_2, -STACK_BYTES),
		MOV_IMM(BPF_REG_3, STACK_BYTES),
		MOV_IMM(BPF_REG_4, BPF_F_USER_STACK),
		CALL(BPF_FUNC_get_stack),
		STX_DW(BPF_REG_10, BPF_REG_0, -STACK_BYTES - 8),
		MAP_FD(BPF_REG_1, queue),
		IMM64_HI(),
		MOV_REG(BPF_REG_2, BPF_REG_10),
		ADD_IMM(BPF_REG_2, -STACK_BYTES - 8),
		MOV_IMM(BPF_REG_3, 0),
		CALL(BPF_FUNC_map_push_elem),
		MOV_IMM(BPF_REG_0, 0),
		EXIT(),
	};

	return prog_load(type, insns, ARRAY_SIZE(insns));
}

/*
 * bpf_get_stackid(ctx, @stackmap, BPF_F_USER_STACK), the id (or error)
 * pushed to @queue.
 */
static int get_stackid_prog(uint32_t type, int stackmap, int queue)
{
	const struct bpf_insn insns[] = {
		MAP_FD(BPF_REG_2, stackmap),
		IMM64_HI(),
		MOV_IMM(BPF_REG_3, BPF_F_USER_STACK),
		CALL(BPF_FUNC_get_stackid),
		STX_DW(BPF_REG_10, BPF_REG_0, -8),
		MAP_FD(BPF_REG_1, queue),
		IMM64_HI(),
		MOV_REG(BPF_REG_2, BPF_REG_10),
		ADD_IMM(BPF_REG_2, -8),
		MOV_IMM(BPF_REG_3, 0),
		CALL(BPF_FUNC_map_push_elem),
		MOV_IMM(BPF_REG_0, 0),
		EXIT(),
	};

	return prog_load(type, insns, ARRAY_SIZE(insns));
}

/*
 * A BPF program taking user stacks with bpf_get_stackid() (@stackid) or
 * bpf_get_stack(): on sys_enter_write of the writer (@tracepoint), or on
 * cpu-clock samples of the spin.
 */
static void bpf_test(struct __test_metadata *_metadata,
		     struct _test_data_sampled *self, bool stackid,
		     bool tracepoint, bool on)
{
	struct bpf_run r = { .stackmap = -1 };
	char label[128];
	long id = 0;
	int prog;

	if (tracepoint && !tracefs_ready())
		SKIP(return, "no syscalls:sys_enter_write tracepoint");
	if (!bpf_ready())
		SKIP(return, "no bpf() (CONFIG_BPF_SYSCALL)");
	if (tracepoint) {
		id = tracepoint_id("syscalls/sys_enter_write");
		ASSERT_LE(0, id);
	}
	r.queue = map_create(BPF_MAP_TYPE_QUEUE, 0,
			     stackid ? 8 : 8 + STACK_BYTES, QUEUE_ENTRIES);
	ASSERT_LE(0, r.queue);
	if (stackid) {
		/* buckets: two stacks rarely share one (that is -EEXIST) */
		r.stackmap = map_create(BPF_MAP_TYPE_STACK_TRACE, 4,
					STACK_BYTES, 16384);
		ASSERT_LE(0, r.stackmap);
	}
	snprintf(label, sizeof(label), "%s from a %s program",
		 stackid ? "bpf_get_stackid()" : "bpf_get_stack()",
		 tracepoint ? "sys_enter_write tracepoint" :
			      "cpu-clock perf event");
	if (stackid)
		prog = get_stackid_prog(tracepoint ? BPF_PROG_TYPE_TRACEPOINT :
						     BPF_PROG_TYPE_PERF_EVENT,
					r.stackmap, r.queue);
	else
		prog = get_stack_prog(tracepoint ? BPF_PROG_TYPE_TRACEPOINT :
						   BPF_PROG_TYPE_PERF_EVENT,
				      r.queue);
	if (tracepoint)
		bpf_case(_metadata, self, &r, prog, PERF_TYPE_TRACEPOINT, id, 1,
			 "writer", label, on);
	else
		bpf_case(_metadata, self, &r, prog, PERF_TYPE_SOFTWARE,
			 PERF_COUNT_SW_CPU_CLOCK, 100000, "", label, on);
	close(prog);
	if (r.stackmap >= 0)
		close(r.stackmap);
	close(r.queue);
}

TEST_F_TIMEOUT(sampled, bpf_perf_event_stack, 300)
{
	ASSERT_EQ(0, unwinder(self, variant->sframe));
	bpf_test(_metadata, self, false, false, variant->sframe);
}

TEST_F_TIMEOUT(sampled, bpf_tracepoint_stack, 300)
{
	ASSERT_EQ(0, unwinder(self, variant->sframe));
	bpf_test(_metadata, self, false, true, variant->sframe);
}

TEST_F_TIMEOUT(sampled, bpf_tracepoint_stackid, 300)
{
	ASSERT_EQ(0, unwinder(self, variant->sframe));
	bpf_test(_metadata, self, true, true, variant->sframe);
}

/*
 * The writer: "writer" writes until SIGUSR1; "writer:N" N times from each
 * path, then exits; "writer:N:wait" then waits for a signal (a tracer that
 * symbolizes when it ends needs the process alive).  "spin:MS" spins in c
 * for MS ms of CPU time.  "spawn:N" runs "writer:1" in N new processes,
 * one after the other, then waits for a signal.
 */
/*
 * Run "writer:1" in @n new processes, one after the other, then wait for
 * a signal. Not inlined, so that workload() stays inside main().
 */
static noinline void spawn(unsigned long n)
{
	char exe[PATH_MAX];
	char *const argv[] = { exe, WL_ARG, "writer:1", NULL };
	unsigned long i;

	if (self_path(exe, sizeof(exe)))
		exit(1);
	for (i = 0; i < n && !workload_stop; i++) {
		pid_t pid = fork(), w;

		if (!pid) {
			execv(exe, argv);
			_exit(127);
		}
		if (pid < 0)
			exit(1);
		/* the stop signal may interrupt the wait */
		do {
			w = waitpid(pid, NULL, 0);
		} while (w < 0 && errno == EINTR);
		if (w != pid)
			exit(1);
	}
	wl_wait_stop();
}

static void workload(const char *mode)
{
	unsigned long n = 0, i;
	char wait[8] = "";

	wl_init();
	/* for a tracer that reports bare addresses: where everything is */
	if (getenv("WL_MAPS")) {
		FILE *in = fopen("/proc/self/maps", "r");
		FILE *out = fopen(getenv("WL_MAPS"), "w");
		int ch;

		while (in && out && (ch = fgetc(in)) != EOF)
			fputc(ch, out);
		if (in)
			fclose(in);
		if (out)
			fclose(out);
	}
	if (sscanf(mode, "spin:%lu", &n) == 1) {
		struct itimerval it = { .it_value = {
			.tv_sec = n / 1000, .tv_usec = (n % 1000) * 1000 } };
		/* CPU time: the same samples however busy the machine is */
		signal(SIGPROF, stop_on_prof);
		setitimer(ITIMER_PROF, &it, NULL);
	}
	if (sscanf(mode, "spawn:%lu", &n) == 1) {
		spawn(n);
		return;
	}
	if (strncmp(mode, "writer", 6)) {
		a();
		return;
	}
	sscanf(mode, "writer:%lu:%7s", &n, wait);
	wr_fd = open("/dev/null", O_WRONLY);
	for (i = 0; !workload_stop && (!n || i < n); i++) {
		wr_a();
		wr_b();
	}
	if (!strcmp(wait, "wait"))
		wl_wait_stop();
}

int main(int argc, char **argv)
{
	const char *mode = wl_mode(argc, argv);

	if (mode) {
		workload(mode);
		return 0;
	}
	if (geteuid()) {
		ksft_print_msg("needs root (tracefs, bpf(), the sysctl)\n");
		return KSFT_SKIP;
	}
	return test_harness_run(argc, argv);
}
