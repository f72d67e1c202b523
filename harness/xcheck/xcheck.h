/* SPDX-License-Identifier: GPL-2.0 */
/*
 * File format written by xcheck-record and read by xcheck-report.
 *
 *   struct xcheck_header
 *   struct perf_event_attr       (attr_size bytes, as passed to the kernel)
 *   vDSO image                   (vdso_size bytes, padded to 8 bytes)
 *   perf records                 (struct perf_event_header + body), in the
 *                                order the kernel wrote them to the ring
 *                                buffer, up to the end of the file
 *
 * The sample records are the kernel's, except that the user stack copy of
 * each sample is cut to the bytes the kernel actually copied (its dyn_size,
 * rounded up to 8): "size" is lowered accordingly, dyn_size is unchanged.
 * All values are in the byte order of the recording machine (little endian
 * for both supported architectures).
 */
#ifndef XCHECK_H
#define XCHECK_H

#include <stdint.h>

#define XCHECK_MAGIC		"XCHKREC1"
#define XCHECK_VERSION		1

struct xcheck_header {
	char		magic[8];
	uint32_t	version;
	uint32_t	e_machine;	/* EM_X86_64 or EM_AARCH64 */
	uint32_t	attr_size;
	uint32_t	vdso_size;	/* 0: no vDSO image */
	uint64_t	sample_regs_user;
	/* Filled in when recording ends (zero if the recorder was killed). */
	uint64_t	samples;	/* PERF_RECORD_SAMPLE records written */
	uint64_t	lost;		/* samples the kernel reported lost */
	uint32_t	complete;	/* 1: the recorder finished normally */
	int32_t		status;		/* the program's wait() status */
};

#endif /* XCHECK_H */
