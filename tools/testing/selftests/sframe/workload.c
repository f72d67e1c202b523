// SPDX-License-Identifier: GPL-2.0
/*
 * Workload side of the SFrame unwinding selftests, see workload.h.
 */
#include <signal.h>
#include <stddef.h>
#include <string.h>

#include "workload.h"

sig_atomic_t workload_stop;

/* NULL: not a workload run; "" or the mode string otherwise. */
const char *wl_mode(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], WL_ARG))
		return NULL;
	return argc > 2 ? argv[2] : "";
}

static void wl_on_usr1(int sig)
{
	workload_stop = 1;
}

void wl_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = wl_on_usr1;
	/*
	 * Every signal blocked while it runs: a test's own handler must not
	 * run on top of it (delivered with SIGUSR1, before the stop is set),
	 * or the test's chains through that handler gain its frame.
	 */
	sigfillset(&sa.sa_mask);
	/* no SA_RESTART: blocking calls return EINTR */
	sigaction(SIGUSR1, &sa, NULL);
}

/*
 * Wait for the stop signal. With SIGUSR1 blocked between the check and the
 * wait (sigsuspend() unblocks it atomically), a stop that comes just after
 * the check cannot be missed, as it can be with pause().
 */
void wl_wait_stop(void)
{
	sigset_t usr1, old;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old);
	while (!workload_stop)
		sigsuspend(&old);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

noinline __noclone void c(void)
{
	char frame[24];

	wl_spin(&workload_stop, frame);
}

noinline __noclone void b(void)
{
	char frame[40];

	wl_use(frame);
	c();
	wl_use(frame);
}

noinline __noclone void a(void)
{
	char frame[88];

	wl_use(frame);
	b();
	wl_use(frame);
}
