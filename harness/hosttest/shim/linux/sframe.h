/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Not a shim: forwards to the kernel series' own header, so the host build
 * uses the real struct sframe_table and prototypes. Only this header and
 * <linux/unwind_user_types.h> are taken from the repository's include/.
 */
#include "../../../../include/linux/sframe.h"
