// SPDX-License-Identifier: GPL-2.0
/*
 * Freestanding static workload for unwind_static: no libc, no start files,
 * its own _start with CFI so that --gsframe covers it too.  The expected
 * chain is c <- b <- a <- main <- _start.  It spins until killed (SIGUSR1
 * is not handled, its default action ends the process).
 *
 * Built with -DWL_SLIDE=<n> (static_wl_s2k, static_wl_s4k), c() runs through
 * n jumps to the next instruction on each turn of its loop, so that its
 * samples fall on that many addresses (each jump ends a block, which is
 * where an emulator such as QEMU's TCG takes interrupts): two images of
 * different sizes loaded at the same address, for unwind_static's second
 * test.
 */
#include "workload.h"

#ifdef WL_SLIDE
#define WL_STR_(x)	#x
#define WL_STR(x)	WL_STR_(x)
#if defined(__x86_64__)
#define WL_JUMP		"jmp 1f"
#else
#define WL_JUMP		"b 1f"
#endif
#endif

static inline void wl_slide(void)
{
#ifdef WL_SLIDE
	asm volatile(".rept " WL_STR(WL_SLIDE) "\n\t" WL_JUMP "\n1:\n\t.endr");
#endif
}

/*
 * _start: call main directly with the ABI stack alignment, then exit_group.
 * The frame-pointer register is cleared as the psABI asks.
 */
#if defined(__x86_64__)
asm(".text\n"
	".globl _start\n"
	".type _start, @function\n"
	"_start:\n"
	".cfi_startproc\n"
	"	xor %ebp, %ebp\n"
	"	call main\n"
	"	mov %eax, %edi\n"
	"	mov $231, %eax\n"
	"	syscall\n"
	"	hlt\n"
	".cfi_endproc\n"
	".size _start, . - _start\n");
#elif defined(__aarch64__)
asm(".text\n"
	".globl _start\n"
	".type _start, @function\n"
	"_start:\n"
	".cfi_startproc\n"
	"	mov x29, xzr\n"
	"	mov x30, xzr\n"
	"	bl main\n"
	"	mov x8, #94\n"
	"	svc #0\n"
	"	brk #0\n"
	".cfi_endproc\n"
	".size _start, . - _start\n");
#else
#error "unsupported architecture"
#endif

/* never set here: the spin loop only ends with the process */
sig_atomic_t workload_stop;

/* a local array on the stack of each function: every one has a real frame */
noinline __noclone void c(void)
{
	char frame[24];

	while (!workload_stop) {
		wl_slide();
		wl_use(frame);
	}
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

int main(void)
{
	a();
	return 0;
}
