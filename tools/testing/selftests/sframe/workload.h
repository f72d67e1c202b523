/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Workload side of the SFrame unwinding selftests: each test binary re-execs
 * itself with WL_ARG to become the sampled workload.  The leaf function
 * spins until SIGUSR1 sets workload_stop.
 *
 * Declarations and static inline helpers only: the libraries and the
 * freestanding static workload use it too.
 */
#ifndef __SFRAME_SELFTEST_WORKLOAD_H
#define __SFRAME_SELFTEST_WORKLOAD_H

#include <signal.h>

#define WL_ARG		"--workload"

/*
 * Attribute shorthands as in tools/include/linux/compiler.h, which these
 * tests do not include.  Every workload function is noinline __noclone:
 * a real frame of its own, under its own name (no specialised clone).
 */
#define __wl_attr(...)	__attribute__((__VA_ARGS__))
#ifndef noinline
#define noinline	__wl_attr(__noinline__)
#endif
#ifndef __noclone
#define __noclone	__wl_attr(__noclone__)
#endif

/*
 * Set by the SIGUSR1 handler.  Not volatile: the loop in wl_spin() reads it
 * again after every wl_use(), whose memory clobber is a compiler barrier.
 */
extern sig_atomic_t workload_stop;

const char *wl_mode(int argc, char **argv);
void wl_init(void);
void wl_wait_stop(void);

/* main -> a -> b -> c, spinning in c; its chain, leaf first */
#define WL_CHAIN	"c", "b", "a", "main"
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

/* Spin until told to stop; *stop is read on every iteration. */
static inline void wl_spin(sig_atomic_t *stop, void *frame)
{
	while (!*stop)
		wl_use(frame);
}

#endif /* __SFRAME_SELFTEST_WORKLOAD_H */
