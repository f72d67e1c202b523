/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOSTTEST_PROGS_LIB_H
#define HOSTTEST_PROGS_LIB_H
int lib_work(int n);
#endif
