/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Force-included (-include) into every host-test compilation, like the
 * kernel's include/linux/kconfig.h + autoconf.h: kernel/unwind/sframe.c is
 * only ever compiled with CONFIG_USERSPACE_UNWINDER_SFRAME=y, so
 * kernel/unwind/sframe_table.h must be seen with it set (otherwise the !CONFIG
 * stubs would be compiled in, which the kernel build never does).
 */
#ifndef _HOSTSHIM_KCONFIG_H
#define _HOSTSHIM_KCONFIG_H

#define CONFIG_USERSPACE_UNWINDER_SFRAME 1
#define CONFIG_64BIT 1

/*
 * The decoder reads its copy of a section with memcpy() in the kernel; here
 * every read goes through the shim's checked copy, which can also fail
 * (fault injection): see shim/uaccess.c.
 */
#define sframe_copy(dst, addr, len) hostshim_sframe_copy((dst), (addr), (len))

#endif /* _HOSTSHIM_KCONFIG_H */
