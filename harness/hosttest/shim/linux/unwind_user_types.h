/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Not a shim: the series' version of mainline's header, from the patched
 * kernel tree (UNWIND_USER_TYPES_H, set by the Makefile).
 */
#include <linux/bits.h>
#include UNWIND_USER_TYPES_H
