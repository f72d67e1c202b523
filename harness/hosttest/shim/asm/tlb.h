/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim for <asm/tlb.h>: user memory is always the current task's. */
#ifndef _HOSTSHIM_ASM_TLB_H
#define _HOSTSHIM_ASM_TLB_H

#define nmi_uaccess_okay()	true

#endif /* _HOSTSHIM_ASM_TLB_H */
