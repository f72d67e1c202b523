// SPDX-License-Identifier: GPL-2.0
/*
 * Frames the kernel makes: a signal handler's, and the vDSO's.
 *
 * signal_handler: SIGPROF interrupts main -> s_mid -> s_leaf every 2 ms of
 * CPU time; the handler runs sig_handler -> h_mid -> h_leaf for a while.
 * A sample in h_leaf must unwind through the signal trampoline the handler
 * returns to (the C library's __restore_rt on x86-64, the vDSO's
 * __kernel_rt_sigreturn on arm64) into the interrupted code, with the
 * registers the kernel saved in the signal frame, and on to main.
 */
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "sampled.h"
#include "workload.h"

#if defined(__aarch64__)
#define SIGTRAMP	"@[vdso]"
#else
#define SIGTRAMP	"@libc.so"
#endif

static const char *const sig_expect[] = {
	"h_leaf", "h_mid", "sig_handler", SIGTRAMP, "s_leaf", "s_mid", "main",
	CHAIN_END
};

noinline __noclone void h_leaf(void)
{
	char frame[24];
	unsigned int i;

	for (i = 0; i < 20000 && !workload_stop; i++)
		wl_use(frame);
}

noinline __noclone void h_mid(void)
{
	char frame[40];

	wl_use(frame);
	h_leaf();
	wl_use(frame);
}

noinline __noclone void sig_handler(int sig)
{
	char frame[32];

	wl_use(frame);
	h_mid();
	wl_use(frame);
}

noinline __noclone void s_leaf(void)
{
	char frame[24];

	wl_spin(&workload_stop, frame);
}

noinline __noclone void s_mid(void)
{
	char frame[56];

	wl_use(frame);
	s_leaf();
	wl_use(frame);
}

static void signal_workload(void)
{
	struct itimerval it = { { 0, 2000 }, { 0, 2000 } };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sig_handler;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
	s_mid();
}

noinline __noclone void v_leaf(void)
{
	struct timespec ts;

	while (!workload_stop) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		wl_use(&ts);
	}
}

noinline __noclone void v_mid(void)
{
	char frame[40];

	wl_use(frame);
	v_leaf();
	wl_use(frame);
}

TEST_F(sampled, signal_handler)
{
	char *const argv[] = { self->exe, WL_ARG, "signal", NULL };

	diag_env(self->exe);
	ASSERT_TRUE(sampled_chains(self, "signal", argv, sig_expect,
				   ARRAY_SIZE(sig_expect), CHAINS_COMPLETE));
}

int main(int argc, char **argv)
{
	const char *mode = wl_mode(argc, argv);

	if (mode) {
		wl_init();
		if (!strcmp(mode, "signal"))
			signal_workload();
		else
			v_mid();
		return 0;
	}
	return test_harness_run(argc, argv);
}
