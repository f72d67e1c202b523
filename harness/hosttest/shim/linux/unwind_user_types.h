/* SPDX-License-Identifier: GPL-2.0 */
/* Not a shim: forwards to the kernel series' own header (see sframe.h). */
#include "../../../../include/linux/unwind_user_types.h"
