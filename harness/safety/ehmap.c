// SPDX-License-Identifier: GPL-2.0
/*
 * Guest helper of harness/guest/safety.sh (built on the host by
 * harness/check.sh, as the demo is).
 *
 *   ehmap map [-u UID] [-s STATS] [-m] FILE
 *	Map the executable (PF_X) PT_LOAD segment of the ELF file FILE with
 *	PROT_READ|PROT_EXEC, at its file offset, as ld.so maps text: that is
 *	when the kernel reads the file's program headers and builds (or
 *	refuses) a table from its .eh_frame or SFrame section. Prints
 *	key=value lines: mmap_ms (the system call's duration, CLOCK_MONOTONIC),
 *	mmap_rc (0, or the errno), and with -s, "stat NAME BEFORE AFTER DELTA"
 *	for each line "NAME VALUE" of STATS (the debugfs file sframe_stats),
 *	read just before and just after the mmap: the deltas are those of
 *	this mapping alone, not of the program's own start. STATS is opened
 *	before -u drops privileges (debugfs is root's) and read again through
 *	the same descriptor. -u UID: run as UID (gid UID, no supplementary
 *	groups) from before FILE is opened. -m: MemAvailable (kB) of
 *	/proc/meminfo before and after the mmap, and its lowest value seen by
 *	a child polling it every 10 ms meanwhile. "mmap-start" is printed
 *	(and flushed) right before the call.
 *
 *   ehmap kill PID OUTFILE PATTERN SECONDS
 *	As root: wait until the process PID (an "ehmap map" whose output goes
 *	to OUTFILE) is in its mmap, send it SIGKILL and measure how long it
 *	takes to die (polling /proc/PID/stat every 10 ms: gone, or a zombie).
 *	"In its mmap": OUTFILE has "mmap-start" but no "mmap_ms=", and
 *	/proc/PID/stack shows one of the '|'-separated function names of
 *	PATTERN (the conversion, not the read of the file), or, if it never
 *	does within SECONDS, /proc/PID/syscall names the mmap system call or
 *	the stack shows the mmap path. Prints key=value lines: in_syscall
 *	(1/0), why, waited_ms (from "mmap-start" to the kill), died_ms (from
 *	the kill to its death, or "never" after SECONDS), syscall, wchan, and
 *	the stack lines as "stack: ...".
 *	First it pins itself and PID to one CPU: /proc/PID/stack of a task
 *	running on another CPU is empty, and on a guest with more than one
 *	CPU the conversion would otherwise never be seen; on PID's CPU the
 *	poller's wake-up preempts it, and its stack can be read.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The whole of a (small) file, NUL-terminated; "" if it cannot be read. */
static char *slurp(const char *path, char *buf, size_t size)
{
	ssize_t n, got = 0;
	int fd = open(path, O_RDONLY);

	buf[0] = 0;
	if (fd < 0)
		return buf;
	while ((size_t)got < size - 1 &&
	       (n = read(fd, buf + got, size - 1 - got)) > 0)
		got += n;
	buf[got > 0 ? got : 0] = 0;
	close(fd);
	return buf;
}

/* ---------------------------------------------------------------- map */

#define MAX_STATS 64
struct stats {
	int n;
	char name[MAX_STATS][48];
	long long val[MAX_STATS];
};

static int read_stats(int fd, struct stats *s)
{
	char buf[8192], *line, *save;
	ssize_t n, got = 0;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -1;
	while ((size_t)got < sizeof(buf) - 1 &&
	       (n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	buf[got > 0 ? got : 0] = 0;
	s->n = 0;
	for (line = strtok_r(buf, "\n", &save); line && s->n < MAX_STATS;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%47s %lld", s->name[s->n], &s->val[s->n]) == 2)
			s->n++;
	}
	return 0;
}

static long memavail_kb(void)
{
	char buf[4096], *p;

	slurp("/proc/meminfo", buf, sizeof(buf));
	p = strstr(buf, "MemAvailable:");
	return p ? strtol(p + 13, NULL, 10) : -1;
}

static int do_map(int argc, char **argv)
{
	const char *stats_path = NULL, *file;
	int opt, fd, sfd = -1, mem = 0, pfd[2] = { -1, -1 }, i, j;
	long uid = -1, mem_before = 0, mem_after;
	struct stats before = { 0 }, after = { 0 };
	Elf64_Ehdr eh;
	Elf64_Phdr ph, text = { 0 };
	long page = sysconf(_SC_PAGESIZE);
	pid_t sampler = -1;
	double t0, t1;
	void *p;
	int err;

	optind = 1;
	while ((opt = getopt(argc, argv, "u:s:m")) != -1) {
		switch (opt) {
		case 'u': uid = strtol(optarg, NULL, 10); break;
		case 's': stats_path = optarg; break;
		case 'm': mem = 1; break;
		default: return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: ehmap map [-u UID] [-s STATS] [-m] FILE\n");
		return 2;
	}
	file = argv[optind];
	if (stats_path) {
		sfd = open(stats_path, O_RDONLY);
		if (sfd < 0)
			printf("stats_error=%s: %s\n", stats_path, strerror(errno));
	}
	if (uid >= 0) {
		if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
		    setresuid(uid, uid, uid)) {
			printf("error=cannot become uid %ld: %s\n", uid, strerror(errno));
			return 1;
		}
	}
	printf("uid=%d\n", (int)getuid());

	fd = open(file, O_RDONLY);
	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_phentsize != sizeof(ph)) {
		printf("error=%s: cannot read its ELF header\n", file);
		return 1;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) != sizeof(ph))
			break;
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			text = ph;
			break;
		}
	}
	if (!text.p_filesz) {
		printf("error=%s: no executable PT_LOAD segment\n", file);
		return 1;
	}

	if (mem) {
		mem_before = memavail_kb();
		if (pipe(pfd) == 0)
			sampler = fork();
		if (sampler == 0) {
			/* Poll MemAvailable until the parent closes the pipe. */
			struct pollfd pl = { .fd = pfd[0], .events = POLLIN };
			long low = memavail_kb(), m;

			close(pfd[1]);
			while (poll(&pl, 1, 10) == 0) {
				m = memavail_kb();
				if (m >= 0 && m < low)
					low = m;
			}
			printf("memavail_min_kb=%ld\n", low);
			fflush(stdout);
			_exit(0);
		}
		close(pfd[0]);
	}

	if (sfd >= 0 && read_stats(sfd, &before))
		printf("stats_error=cannot read %s\n", stats_path);
	printf("mmap-start\n");
	fflush(stdout);
	t0 = now_ms();
	p = mmap(NULL, text.p_filesz + text.p_offset % page,
		 PROT_READ | PROT_EXEC, MAP_PRIVATE, fd,
		 text.p_offset - text.p_offset % page);
	err = p == MAP_FAILED ? errno : 0;
	t1 = now_ms();
	if (sfd >= 0)
		read_stats(sfd, &after);
	printf("mmap_ms=%.1f\n", t1 - t0);
	printf("mmap_rc=%d%s%s\n", err, err ? " " : "", err ? strerror(err) : "");

	if (mem) {
		mem_after = memavail_kb();
		fflush(stdout);
		close(pfd[1]);
		if (sampler > 0)
			waitpid(sampler, NULL, 0);
		printf("memavail_before_kb=%ld\nmemavail_after_kb=%ld\n",
		       mem_before, mem_after);
	}
	for (i = 0; i < after.n; i++) {
		long long b = 0;

		for (j = 0; j < before.n; j++)
			if (!strcmp(before.name[j], after.name[i]))
				b = before.val[j];
		printf("stat %s %lld %lld %lld\n", after.name[i], b,
		       after.val[i], after.val[i] - b);
	}
	if (!err)
		munmap(p, text.p_filesz + text.p_offset % page);
	return err ? 1 : 0;
}

/* ---------------------------------------------------------------- kill */

/* Does @s contain one of the '|'-separated names of @pattern? */
static int matches(const char *s, const char *pattern)
{
	char buf[512], *tok, *save;

	snprintf(buf, sizeof(buf), "%s", pattern);
	for (tok = strtok_r(buf, "|", &save); tok; tok = strtok_r(NULL, "|", &save))
		if (*tok && strstr(s, tok))
			return 1;
	return 0;
}

/* Gone, or a zombie: its memory and tables are freed by then. */
static int dead(pid_t pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	slurp(path, buf, sizeof(buf));
	if (!buf[0])
		return 1;
	p = strrchr(buf, ')');
	return p && (p[2] == 'Z' || p[2] == 'X');
}

static int do_kill(int argc, char **argv)
{
	char path[64], out[4096], sc[256], stack[4096], wchan[128], *l;
	double start, marker, killed, limit;
	const char *why = NULL;
	int in_syscall = 0, cpu;
	cpu_set_t one;
	long nr;
	pid_t pid;

	if (argc != 5) {
		fprintf(stderr, "usage: ehmap kill PID OUTFILE PATTERN SECONDS\n");
		return 2;
	}
	pid = strtol(argv[1], NULL, 10);
	limit = strtod(argv[4], NULL) * 1e3;
	cpu = sched_getcpu();
	CPU_ZERO(&one);
	CPU_SET(cpu < 0 ? 0 : cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) ||
	    sched_setaffinity(pid, sizeof(one), &one)) {
		printf("in_syscall=0\nwhy=cannot pin PID %d and the poller to one CPU: %s\n",
		       pid, strerror(errno));
		return 1;
	}
	start = now_ms();
	while (!strstr(slurp(argv[2], out, sizeof(out)), "mmap-start")) {
		if (now_ms() - start > limit || dead(pid)) {
			printf("in_syscall=0\nwhy=the process never reached its mmap (%s)\n",
			       dead(pid) ? "it ended" : "timeout");
			return 1;
		}
		sleep_ms(10);
	}
	marker = now_ms();
	for (;;) {
		snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
		slurp(path, sc, sizeof(sc));
		snprintf(path, sizeof(path), "/proc/%d/stack", pid);
		slurp(path, stack, sizeof(stack));
		snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
		slurp(path, wchan, sizeof(wchan));
		if (strstr(slurp(argv[2], out, sizeof(out)), "mmap_ms=") || dead(pid)) {
			printf("in_syscall=0\nwhy=the mmap returned before the kill (%s) and its stack never showed the conversion\nwaited_ms=%.0f\n",
			       strstr(out, "mmap_ms=") ?: "the process ended", now_ms() - marker);
			return 1;
		}
		nr = strtol(sc, &l, 10);
		if (matches(stack, argv[3])) {
			in_syscall = 1;
			why = "its kernel stack is in the conversion";
			break;
		}
		if (now_ms() - marker > limit) {
			if (l != sc && nr == SYS_mmap) {
				in_syscall = 1;
				why = "/proc/PID/syscall names mmap";
			} else if (matches(stack, "vm_mmap_pgoff|ksys_mmap_pgoff|sys_mmap")) {
				in_syscall = 1;
				why = "its kernel stack is in mmap";
			} else {
				why = "neither /proc/PID/syscall nor its stack shows the mmap";
			}
			break;
		}
		sleep_ms(20);
	}
	printf("in_syscall=%d\nwhy=%s\n", in_syscall, why);
	printf("syscall=%s", sc[0] ? sc : "?\n");
	printf("wchan=%s\n", wchan[0] ? wchan : "?");
	for (l = strtok(stack, "\n"); l; l = strtok(NULL, "\n"))
		printf("stack: %s\n", l);
	killed = now_ms();
	printf("waited_ms=%.0f\n", killed - marker);
	fflush(stdout);
	kill(pid, SIGKILL);
	while (!dead(pid)) {
		if (now_ms() - killed > limit) {
			printf("died_ms=never\n");
			return 1;
		}
		sleep_ms(10);
	}
	printf("died_ms=%.0f\n", now_ms() - killed);
	return in_syscall ? 0 : 1;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "map"))
		return do_map(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "kill"))
		return do_kill(argc - 1, argv + 1);
	fprintf(stderr, "usage: ehmap map [-u UID] [-s STATS] [-m] FILE\n"
			"       ehmap kill PID OUTFILE PATTERN SECONDS\n");
	return 2;
}
