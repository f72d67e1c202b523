// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame data of dlopen()ed libraries, and its removal at dlclose():
 *
 * 1. dlopen libsf_a.so (SFrame, no frame pointers), sample inside it: the
 *    chain sfa_leaf <- sfa_mid <- sfa_entry <- main must be complete.
 * 2. dlclose it, dlopen libfp_b.so (frame pointers, no SFrame), which is
 *    usually mapped over the range libsf_a.so used.  Its chains must be the
 *    correct frame-pointer chains: stale SFrame data of the old range would
 *    break them.  On arm64 a frame record does not say where its caller's
 *    frame is: main, the SFrame caller of frame-pointer code, is found
 *    with the table of the library's .eh_frame, which the test has the
 *    kernel convert there (kernel.unwind_user_eh_frame).
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>

#include "sampled.h"
#include "workload.h"

typedef void (*entry_fn)(sig_atomic_t *stop);

static const char *const expect_a[] = {
	"sfa_leaf", "sfa_mid", "sfa_entry", "main", CHAIN_END
};

static const char *const expect_b[] = {
	"fpb_leaf", "fpb_mid", "fpb_entry", "main", CHAIN_END
};

static noinline __noclone entry_fn load(const char *name, const char *sym,
					    void **h)
{
	char path[PATH_MAX];
	entry_fn fn;

	if (self_dir_file(path, sizeof(path), name))
		return NULL;
	*h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!*h) {
		fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
		return NULL;
	}
	fn = (entry_fn)dlsym(*h, sym);
	if (!fn)
		fprintf(stderr, "dlsym %s: %s\n", sym, dlerror());
	return fn;
}

TEST_F(sampled, sframe_dlopen)
{
	struct sampler_mapping ma, mb;
	char lib[PATH_MAX];
	char *const argv[] = { self->exe, WL_ARG, NULL };

#ifdef __aarch64__
	ASSERT_EQ(0, sampled_sysctl(self, EH_FRAME_SYSCTL, 1));
#endif
	diag_env(self->exe);
	ASSERT_EQ(1, elf_has_sframe(self->exe));
	ASSERT_EQ(0, self_dir_file(lib, sizeof(lib), "libsf_a.so"));
	diag_elf(lib);
	ASSERT_EQ(1, elf_has_sframe(lib));
	ASSERT_EQ(0, self_dir_file(lib, sizeof(lib), "libfp_b.so"));
	diag_elf(lib);
	ASSERT_EQ(0, elf_has_sframe(lib));

	ASSERT_EQ(0, sampled_start(self, argv));
	EXPECT_EQ(0, sampled_phase(self, expect_a[0]));
	EXPECT_EQ(0, sampled_phase(self, expect_b[0]));
	EXPECT_EQ(0, sampled_finish(self));

	if (!sampler_find_mapping(&self->w.s, "/libsf_a.so", 0, &ma) &&
	    !sampler_find_mapping(&self->w.s, "/libfp_b.so", 0, &mb))
		diag("text of libsf_a.so %#llx-%#llx, libfp_b.so %#llx-%#llx: %s\n",
		     (unsigned long long)ma.start, (unsigned long long)ma.end,
		     (unsigned long long)mb.start, (unsigned long long)mb.end,
		     ma.start == mb.start && ma.end == mb.end ? "same range" :
		     ma.start < mb.end && mb.start < ma.end ? "overlapping" :
		     "disjoint (stale range not exercised)");
	else
		diag("executable mappings of the libraries not seen\n");

	EXPECT_TRUE(sampled_check(self, "dlopen sframe lib", expect_a,
				  ARRAY_SIZE(expect_a), CHAINS_COMPLETE));
	EXPECT_TRUE(sampled_check(self, "dlopen fp lib after dlclose",
				  expect_b, ARRAY_SIZE(expect_b),
				  CHAINS_COMPLETE));
}

int main(int argc, char **argv)
{
	entry_fn fn;
	void *h;

	if (!wl_mode(argc, argv))
		return test_harness_run(argc, argv);

	wl_init();
	fn = load("libsf_a.so", "sfa_entry", &h);
	if (!fn)
		return 1;
	fn(&workload_stop);
	dlclose(h);

	workload_stop = 0;
	fn = load("libfp_b.so", "fpb_entry", &h);
	if (!fn)
		return 1;
	fn(&workload_stop);
	dlclose(h);
	return 0;
}
