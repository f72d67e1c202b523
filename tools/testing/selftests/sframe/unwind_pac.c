// SPDX-License-Identifier: GPL-2.0
/*
 * Pointer authentication: on arm64 the workload main -> a -> b -> c is
 * built with -mbranch-protection=pac-ret+leaf as well as -fomit-frame-pointer
 * and --gsframe.  Every function signs its return address (PACIASP) before
 * it saves it on the stack or, in the leaf c, while it stays in the link
 * register, and the SFrame rows mark these return addresses as mangled.  The
 * unwinder must strip the pointer authentication code (PAC) of each one, or
 * the chain breaks there and the reported addresses point nowhere.
 *
 * Checked over the leaf samples: the whole chain in at
 * least UNWIND_COMPLETE_PCT percent of them, and every return address of
 * every one of them inside an executable mapping the sampler saw (so no PAC
 * bits left) and, in the program itself, inside a function.  Needs
 * CONFIG_ARM64_PTR_AUTH and a CPU with pointer authentication; other
 * architectures skip.
 */
#include <limits.h>
#include <stdint.h>
#include <string.h>
#ifdef __aarch64__
#include <sys/auxv.h>
#endif

#include "sampled.h"
#include "workload.h"

#ifdef __aarch64__

#ifdef __ARM_FEATURE_PAC_DEFAULT
#define PAC_BUILD_FLAGS		__ARM_FEATURE_PAC_DEFAULT
#else
#define PAC_BUILD_FLAGS		0
#endif

/* Bad return addresses shown in detail */
#define BAD_SHOW		5

static const char *const expect[] = { WL_CHAIN, CHAIN_END };

struct ra_stats {
	unsigned long samples;	/* leaf samples looked at */
	unsigned long addrs;	/* return addresses in them */
	unsigned long nosym;	/* in a library, outside its symbols */
	unsigned long bad;	/* outside every mapping or function */
};

/*
 * Sign ptr with instruction key A and modifier mod: PACIA1716, in the hint
 * space, so a NOP where pointer authentication is off.
 */
static uint64_t pac_sign(uint64_t ptr, uint64_t mod)
{
	register uint64_t x17 asm("x17") = ptr;
	register uint64_t x16 asm("x16") = mod;

	asm volatile("hint #8" : "+r" (x17) : "r" (x16));
	return x17;
}

static void ra_check(const struct sampler *s, pid_t pid, const char *prog,
		     struct ra_stats *st)
{
	unsigned int i;
	size_t k;

	memset(st, 0, sizeof(*st));
	for (k = 0; k < s->nr_samples; k++) {
		const struct sample *smp = &s->samples[k];

		if (smp->pid != pid || !smp->nr || !smp->sym[0] ||
		    strcmp(smp->sym[0], expect[0]))
			continue;
		st->samples++;
		/*
		 * Frame 0 is the interrupted PC.  A frame in a mapped file
		 * carries the file (symbolized or not); others none.
		 */
		for (i = 1; i < smp->nr; i++) {
			const char *why = NULL;

			st->addrs++;
			if (!smp->obj[i])
				why = "outside every executable mapping";
			else if (!smp->sym[i] && !strcmp(smp->obj[i], prog))
				why = "in the program, in no function";
			else if (!smp->sym[i])
				st->nosym++;
			if (!why)
				continue;
			if (++st->bad <= BAD_SHOW)
				diag("frame %u: %s%s0x%llx %s\n", i,
				     smp->obj[i] ? smp->obj[i] : "",
				     smp->obj[i] ? "+" : "",
				     (unsigned long long)smp->addr[i], why);
		}
	}
}

TEST_F(sampled, pac_ret)
{
	uint64_t ptr = (uint64_t)(uintptr_t)&c, s1, s2;
	struct ra_stats ra;
	char *const argv[] = { self->exe, WL_ARG, NULL };
	const char *prog;

	if (!(getauxval(AT_HWCAP) & HWCAP_PACA))
		SKIP(return, "no pointer authentication (HWCAP_PACA)");
	s1 = pac_sign(ptr, 1);
	s2 = pac_sign(ptr, 2);
	diag("pointer authentication: %#llx signs to %#llx, %#llx\n",
	     (unsigned long long)ptr, (unsigned long long)s1,
	     (unsigned long long)s2);
	ASSERT_TRUE(s1 != ptr || s2 != ptr)
		TH_LOG("HWCAP_PACA is set, but PACIA1716 does not sign");
	ASSERT_NE(0, PAC_BUILD_FLAGS)
		TH_LOG("not built with -mbranch-protection=pac-ret");
	diag("built with -mbranch-protection: __ARM_FEATURE_PAC_DEFAULT %#x\n",
	     PAC_BUILD_FLAGS);

	diag_env(self->exe);
	ASSERT_EQ(1, elf_has_sframe(self->exe));
	prog = strrchr(self->exe, '/') + 1;
	EXPECT_TRUE(sampled_chains(self, "pac", argv, expect,
				   ARRAY_SIZE(expect), CHAINS_COMPLETE));
	ra_check(&self->w.s, self->w.pid, prog, &ra);
	diag("pac: %lu return addresses in %lu leaf samples, %lu bad\n",
	     ra.addrs, ra.samples, ra.bad);
	diag("pac: (bad: outside every mapping, or in the program in no function)\n");
	diag("pac: %lu in a library, outside its symbols (no .symtab)\n",
	     ra.nosym);
	ASSERT_LT(0UL, ra.addrs);
	ASSERT_EQ(0UL, ra.bad);
}

#else /* !__aarch64__ */

TEST_F(sampled, pac_ret)
{
	SKIP(return, "pointer authentication is an arm64 feature");
}

#endif /* __aarch64__ */

int main(int argc, char **argv)
{
	if (wl_mode(argc, argv)) {
		wl_init();
		a();
		return 0;
	}
	return test_harness_run(argc, argv);
}
