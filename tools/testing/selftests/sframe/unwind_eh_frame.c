// SPDX-License-Identifier: GPL-2.0
/*
 * A program built without frame pointers and without SFrame, as most
 * programs of a distribution are: its chains main -> a -> b -> c must be
 * complete from its .eh_frame, and from every process's first samples on,
 * while kernel.unwind_user_eh_frame is 1; with 0 none may be: the walk
 * then follows a frame pointer register the code uses for other things.
 * The sysctl is restored afterwards.
 *
 * fill: eh_fill_wl, the same program built with SFrame but for its
 * workload functions a, b and c, which have .eh_frame only (as code of an
 * SFrame-built program that was assembled without it, such as the C
 * run-time's start files): the table of its SFrame section takes their
 * rows from .eh_frame, so its chains are complete with
 * kernel.unwind_user_eh_frame 1 and none is with 0.
 *
 * csr (x86_64): main -> csr_a -> csr_tramp -> csr_mid -> c, where csr_tramp
 * has the shape of glibc's lazy binding trampoline (the stack realigned,
 * the CFA on RBX) and csr_mid saves RBX and uses it: its chains must be
 * complete too, from where csr_mid saved the trampoline's RBX.
 *
 * vdso (x86_64): main -> vdso_c -> clock_gettime() in the C library ->
 * the vDSO, whose .eh_frame the kernel converts at boot: the chains of the
 * samples in the vDSO must be complete, at its functions' first
 * instructions too, where its frame pointer is not set up yet.
 */
#include <limits.h>
#include <string.h>
#include <time.h>

#include "sampled.h"
#include "workload.h"

/* Calls fn with the stack realigned and the CFA on RBX (x86_64 only). */
void csr_tramp(void (*fn)(void));

static const char *const expect[] = { WL_CHAIN, CHAIN_END };

#ifdef __x86_64__
static const char *const expect_csr[] = {
	"c", "csr_mid", "csr_tramp", "csr_a", "main", CHAIN_END
};

asm(".pushsection .text\n"
	".globl csr_tramp\n"
	".type csr_tramp, @function\n"
	"csr_tramp:\n"
	".cfi_startproc\n"
	"push %rbx\n"
	".cfi_adjust_cfa_offset 8\n"
	".cfi_rel_offset %rbx, 0\n"
	"mov %rsp, %rbx\n"
	".cfi_def_cfa_register %rbx\n"
	"and $-64, %rsp\n"
	"sub $64, %rsp\n"
	"call *%rdi\n"
	"mov %rbx, %rsp\n"
	".cfi_def_cfa_register %rsp\n"
	"pop %rbx\n"
	".cfi_adjust_cfa_offset -8\n"
	".cfi_restore %rbx\n"
	"ret\n"
	".cfi_endproc\n"
	".size csr_tramp, .-csr_tramp\n"
	".popsection\n");

/* Saves RBX, and changes it around the call. */
noinline __noclone void csr_mid(void)
{
	char frame[32];

	wl_use(frame);
	asm volatile("xor %%ebx, %%ebx" : : : "rbx", "memory");
	c();
	wl_use(frame);
}

static const char *const expect_vdso[] = {
	"@[vdso]", "@libc.so", "vdso_c", "main", CHAIN_END
};

/* Reads the clock through the vDSO until told to stop. */
noinline __noclone void vdso_c(void)
{
	struct timespec ts;

	while (!workload_stop)
		clock_gettime(CLOCK_MONOTONIC, &ts);
}

noinline __noclone void csr_a(void)
{
	char frame[16];

	wl_use(frame);
	csr_tramp(csr_mid);
	wl_use(frame);
}
#endif

FIXTURE_VARIANT(sampled) {
	int on;
	const char *mode;	/* of the workload: "" or "csr" */
	const char *exe;	/* the workload's program: NULL, this one */
};

FIXTURE_VARIANT_ADD(sampled, on) { .on = 1, .mode = "" };
FIXTURE_VARIANT_ADD(sampled, off) { .on = 0, .mode = "" };
FIXTURE_VARIANT_ADD(sampled, fill_on) { .on = 1, .mode = "", .exe = "eh_fill_wl" };
FIXTURE_VARIANT_ADD(sampled, fill_off) { .on = 0, .mode = "", .exe = "eh_fill_wl" };
#ifdef __x86_64__
FIXTURE_VARIANT_ADD(sampled, csr) { .on = 1, .mode = "csr" };
FIXTURE_VARIANT_ADD(sampled, vdso) { .on = 1, .mode = "vdso" };
#endif

TEST_F(sampled, eh_frame)
{
	char exe[PATH_MAX];
	char *const argv[] = { exe, WL_ARG, (char *)variant->mode, NULL };
	const char *const *ex = expect;
	unsigned int depth = ARRAY_SIZE(expect);
	long converted;

	if (unwind_sysctl_read() != 1)
		SKIP(return, "kernel.unwind_user_sframe is not 1");
	ASSERT_EQ(0, sampled_sysctl(self, EH_FRAME_SYSCTL, variant->on));
	ASSERT_EQ(0, variant->exe ?
		     self_dir_file(exe, sizeof(exe), variant->exe) :
		     self_path(exe, sizeof(exe)));
	diag_env(exe);
	ASSERT_EQ(!!variant->exe, elf_has_sframe(exe));
#ifdef __x86_64__
	if (!strcmp(variant->mode, "csr")) {
		ex = expect_csr;
		depth = ARRAY_SIZE(expect_csr);
	} else if (!strcmp(variant->mode, "vdso")) {
		ex = expect_vdso;
		depth = ARRAY_SIZE(expect_vdso);
	}
#endif
	converted = sframe_stat("eh_frame_converted");
	EXPECT_TRUE(sampled_chains(self, "eh_frame", argv, ex, depth,
				   variant->on ? CHAINS_COMPLETE :
				   CHAINS_NONE));
	/*
	 * csr runs after on: the program's table may be kept from it. The
	 * SFrame program of fill has a table of its own.
	 */
	if (converted >= 0 && !*variant->mode && !variant->exe) {
		converted = sframe_stat("eh_frame_converted") - converted;
		diag(".eh_frame sections converted: %ld\n", converted);
		/* the program's own, at least: no other process maps it */
		EXPECT_EQ(variant->on, converted > 0);
	}
}

int main(int argc, char **argv)
{
	const char *mode = wl_mode(argc, argv);

	if (mode) {
		wl_init();
#ifdef __x86_64__
		if (!strcmp(mode, "csr")) {
			csr_a();
			return 0;
		}
		if (!strcmp(mode, "vdso")) {
			vdso_c();
			return 0;
		}
#endif
		a();
		return 0;
	}
	return test_harness_run(argc, argv);
}
