// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin (QEMU 7.2's plugin API, version 1): guest instructions
 * executed per translation block start address, for kernel addresses
 * only. At exit it writes "VADDR INSNS EXECS" lines (hex address, decimal
 * counts) to the file given as "out=FILE", summed over the translations
 * of the same address. harness/bench/profile.sh attributes them to the
 * kernel's functions.
 *
 *   qemu-system-x86_64 ... -plugin tbprof.so,out=FILE
 *
 * The plugin API header is not packaged on Debian 12: the few entry
 * points used are declared here as QEMU 7.2 exports them.
 */
#include <pthread.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

struct tb {
	uint64_t vaddr;
	uint64_t insns;
	uint64_t execs;
	struct tb *next;
};

static struct tb *tbs;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static size_t nr_tbs;
static char *out_path;

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *qtb)
{
	uint64_t va = qemu_plugin_tb_vaddr(qtb);
	struct tb *t;

	if (va < 0xffff000000000000ull)
		return;
	t = calloc(1, sizeof(*t));
	if (!t)
		return;
	t->vaddr = va;
	t->insns = qemu_plugin_tb_n_insns(qtb);
	pthread_mutex_lock(&lock);
	t->next = tbs;
	tbs = t;
	nr_tbs++;
	pthread_mutex_unlock(&lock);
	qemu_plugin_register_vcpu_tb_exec_inline(qtb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &t->execs, 1);
}

static int by_vaddr(const void *a, const void *b)
{
	const struct tb *x = *(struct tb *const *)a, *y = *(struct tb *const *)b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	struct tb **v = calloc(nr_tbs ? nr_tbs : 1, sizeof(*v)), *t;
	FILE *f = fopen(out_path, "w");
	size_t i = 0, j;

	if (!f || !v)
		return;
	for (t = tbs; t && i < nr_tbs; t = t->next)
		v[i++] = t;
	qsort(v, i, sizeof(*v), by_vaddr);
	for (j = 0; j < i;) {
		uint64_t va = v[j]->vaddr, insns = 0, execs = 0;

		for (; j < i && v[j]->vaddr == va; j++) {
			insns += v[j]->insns * v[j]->execs;
			execs += v[j]->execs;
		}
		if (execs)
			fprintf(f, "%" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
				va, insns, execs);
	}
	fclose(f);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out_path = strdup(argv[i] + 4);
	if (!out_path) {
		fprintf(stderr, "tbprof: out=FILE is required\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
