/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the SFrame decoder host tests: TAP output, ELF loading,
 * running the kernel decoder on a host copy of a section, an independent
 * section writer (v1/v2/v2-PCREL) with a reference model, and a PRNG.
 */
#ifndef HOSTTEST_COMMON_H
#define HOSTTEST_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/unwind_user_types.h>

#include "shim/hostshim.h"
#include "sframe_table.h"

/* ---- TAP ---------------------------------------------------------------- */

/*
 * Test programs print unnumbered "ok - ..." / "not ok - ..." lines and "#"
 * diagnostics; run-check.sh numbers them into one TAP stream.
 */
extern int tap_failures;
void tap_result(bool ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tap_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Abort the program with a "not ok" line if it runs longer than @secs. */
void watchdog(unsigned int secs, const char *what);

/* ---- PRNG (xorshift64*) ------------------------------------------------- */

struct rng {
	uint64_t s;
};
void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
/* Uniform in [0, n) (n > 0). */
uint64_t rng_below(struct rng *r, uint64_t n);

/* ---- a section and where it sits in the target's address space ---------- */

struct section {
	char name[128];
	uint8_t *data;		/* the bytes (malloc'ed, @size long) */
	size_t size;
	uint64_t vaddr;		/* address of the section in the target */
	uint64_t text_lo;	/* executable code, [text_lo, text_hi) */
	uint64_t text_hi;
	int abi;		/* abi_arch byte of the header */
};

/* Load .sframe of an ELF file; 0 on success, else prints why. */
int section_load_elf(struct section *s, const char *path, const char *name);
/* Load a raw section file; text range: everything an s32 can reach. */
int section_load_raw(struct section *s, const char *path, uint64_t vaddr);
void section_free(struct section *s);
int write_file(const char *path, const void *buf, size_t len);

/* ---- the kernel decoder on a host copy ---------------------------------- */

/*
 * The section is copied into a buffer of exactly its size (so a sanitizer
 * also sees an overread) and "mapped" so that target address V is at host
 * address buf + (V - vaddr). Every call registers the buffer with the shim
 * as the only readable range, and lookups run in shim "atomic" mode.
 */
struct ktable {
	uint8_t *buf;
	size_t size;
	uint64_t vaddr;
	struct sframe_table tbl;
	int init_rc;
	int build_rc;			/* of the last kt_validate() */
	bool built;			/* kt_validate() left a table */
	struct sframe_rules rules;	/* the table, in @rules_mem */
	void *rules_mem;
	uint32_t *funcs;		/* the build's function starts */
	uint32_t nr_funcs;
};

/* What kt_validate() built: tables, and rows and rules in them. */
struct kt_stats {
	unsigned long tables;
	unsigned long rows;
	unsigned long rules;
	unsigned long lookups;
};
extern struct kt_stats kt_stats;

/* Copies @data; text range in target addresses. Returns init's result. */
int kt_init(struct ktable *kt, const void *data, size_t size, uint64_t vaddr,
	    uint64_t text_lo, uint64_t text_hi, int abi);
int kt_init_section(struct ktable *kt, const struct section *s);
/* Validated and built as the kernel does; the table is kept. */
int kt_validate(struct ktable *kt);
/*
 * A lookup in the table kt_validate() left (validated first if it was not
 * yet): the error of the validation if it failed, as the kernel then does
 * not use the section.
 */
int kt_find(struct ktable *kt, uint64_t pc, struct unwind_user_frame *f);
/*
 * The start of the function text offset @off is in, by the function
 * starts of the build kt_validate() did, where the table has a rule.
 */
int kt_func(const struct ktable *kt, uint64_t off, unsigned long *start);
void kt_free(struct ktable *kt);
static inline unsigned long kt_host(const struct ktable *kt, uint64_t v)
{
	return (unsigned long)kt->buf + (unsigned long)(v - kt->vaddr);
}

/* A lookup result: rc and, when rc == 0, the frame. */
struct res {
	int rc;
	struct unwind_user_frame f;
};
bool res_eq(const struct res *a, const struct res *b);
/* Human readable, into a static rotating buffer. */
const char *res_str(const struct res *r);
void kt_find_res(struct ktable *kt, uint64_t pc, struct res *r);

/* ---- an independent section writer and reference model ----------------- */

#define GEN_MAX_FRES	64

struct gen_fre {
	uint32_t start;
	uint8_t info;		/* fre_info byte, as written (count 0: outermost) */
	int32_t off[3];
};

struct gen_fde {
	int64_t start;		/* target address of the function */
	uint32_t size;
	uint8_t info;		/* func_info byte, as written */
	uint8_t rep_size;	/* v2 only */
	uint32_t num_fres;
	struct gen_fre fres[GEN_MAX_FRES];
};

struct gen {
	int abi;
	int8_t fixed_fp, fixed_ra;
	uint8_t flags;		/* besides SORTED / PCREL */
	uint32_t num_fdes;
	struct gen_fde *fdes;	/* sorted by start */
};

struct gen_layout {
	int version;		/* 1 or 2 */
	bool pcrel;		/* v2 SFRAME_F_FDE_FUNC_START_PCREL */
	uint8_t auxhdr_len;	/* filled with 0xaa */
	bool fres_first;	/* FRE sub-section before the FDE table */
	uint32_t gap;		/* padding bytes between the two (0x55) */
	uint8_t rep_size_pcinc;	/* v2 rep_size written for PCINC FDEs */
};

/*
 * Serialise @g for a section at target address @vaddr; returns a malloc'ed
 * buffer and its size in @size.
 */
uint8_t *gen_write(const struct gen *g, const struct gen_layout *l,
		   uint64_t vaddr, size_t *size);
/* Offset size code (0/1/2) needed for @v. */
unsigned int gen_off_size_code(int32_t v);
/*
 * The reference model: what a lookup of @pc must give, from the spec (v1
 * PCMASK: pc_off % 16; v2: pc_off % rep_size; an FRE without offsets is
 * the outermost frame: rc 0, outermost set, every other field 0).
 */
void gen_model(const struct gen *g, int version, uint64_t pc, struct res *r);

/* ---- v1 section converter ------------------------------------------------ */

/*
 * Rewrite a v1 section (bytes of a real binary's .sframe at @vaddr) into
 * the layout @l (v1 or v2, PCREL or not, other layout), placed at the same
 * target address @vaddr. PCMASK FDEs get rep_size 16, the v1 block size.
 * Returns NULL if @v1 is not a well-formed v1 section.
 */
uint8_t *convert_v1(const uint8_t *v1, size_t v1_size, uint64_t vaddr,
		    const struct gen_layout *l, size_t *size);

/* Little-endian field access. */
static inline uint32_t get_u32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint16_t get_u16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}
static inline void put_u32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}
static inline void put_u16(uint8_t *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

/* On-disk constants, independent of both decoders' headers. */
#define HDR_SIZE	28
#define FDE_V1_SIZE	17
#define FDE_V2_SIZE	20
#define F_SORTED	0x1
#define F_PCREL		0x4

/*
 * A section the decoder refuses: malformed (-EINVAL), or of a format
 * version it does not know (-EOPNOTSUPP, from sframe_table_init()).
 */
static inline int rc_refused(int rc)
{
	return rc == -EINVAL || rc == -EOPNOTSUPP;
}

#endif /* HOSTTEST_COMMON_H */
