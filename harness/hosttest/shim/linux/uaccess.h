/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim for <linux/uaccess.h>. "User memory" is the host's memory: a user
 * address is a host pointer. The implementation (shim/uaccess.c) only copies
 * from the range the test registered with hostshim_allow() and treats any
 * other read as a decoder bug; see shim/hostshim.h for the controls.
 */
#ifndef _HOSTSHIM_LINUX_UACCESS_H
#define _HOSTSHIM_LINUX_UACCESS_H

#include <linux/types.h>

/* Kernel semantics: returns the number of bytes NOT copied (0 = success). */
unsigned long __must_check copy_from_user(void *to, const void __user *from,
					  unsigned long n);

/* Kernel semantics: 0 on success, -EFAULT if any byte could not be read. */
long copy_from_user_nofault(void *dst, const void __user *src, size_t size);

/*
 * User access windows: no window state to keep on the host; each
 * unsafe_get_user() is a checked copy_from_user_nofault().
 */
static inline void pagefault_disable(void) {}
static inline void pagefault_enable(void) {}
static inline bool user_read_access_begin(const void __user *ptr, size_t len)
{
	(void)ptr;
	(void)len;
	return true;
}
static inline void user_read_access_end(void) {}
#define unsafe_get_user(x, ptr, label)					\
	do {								\
		if (copy_from_user_nofault(&(x), (ptr), sizeof(*(ptr))))	\
			goto label;					\
	} while (0)

#endif /* _HOSTSHIM_LINUX_UACCESS_H */
