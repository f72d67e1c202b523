/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Workload side of the SFrame unwinding selftests: each test binary re-execs
 * itself with WL_ARG to become the sampled workload.  The leaf function
 * spins until SIGUSR1 sets workload_stop.
 */
#ifndef __SFRAME_SELFTEST_WORKLOAD_H
#define __SFRAME_SELFTEST_WORKLOAD_H

#include <signal.h>

#define WL_ARG		"--workload"

/* Keep every workload function a real frame of its own. */
#define __wl_func	__attribute__((noinline, noclone))

extern volatile sig_atomic_t workload_stop;

const char *wl_mode(int argc, char **argv);
void wl_init(void);

/* main -> a -> b -> c, spinning in c */
void a(void);
void b(void);
void c(void);

/*
 * Make the caller keep "frame" (a local array) on its own stack, so that
 * every workload function has a real stack frame and the unwinder has to
 * get its CFA offset right.
 */
static inline void wl_use(void *frame)
{
	asm volatile("" : : "r"(frame) : "memory");
}

/* Spin until told to stop. */
static inline void wl_spin(volatile sig_atomic_t *stop, void *frame)
{
	while (!*stop)
		wl_use(frame);
}

#endif /* __SFRAME_SELFTEST_WORKLOAD_H */
