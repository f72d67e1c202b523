/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_SFRAME_H
#define _LINUX_SFRAME_H

#include <linux/types.h>

struct file;
struct mm_struct;
struct sframe_rules;
struct task_struct;

/**
 * struct sframe_hint - the section a walk found last
 * @rules:	its table, or NULL if it has none
 * @base:	the address its table's text offsets start from
 * @start:	first text address it is registered for
 * @size:	bytes registered from @start; 0 before the first section
 * @err:	without @rules, what a lookup in the range returns: -ENOMEM
 *		for a section without a table, -ENOENT for a range that no
 *		section is registered for
 *
 * With a table, the range lies within the text its rows describe, so an
 * address in the range needs no other bound to be looked up in it.
 * Valid while the walk holds rcu_read_lock(): a table is not freed
 * before a grace period after its last registration left.
 */
struct sframe_hint {
	const struct sframe_rules	*rules;
	unsigned long			base;
	unsigned long			start;
	unsigned long			size;
	int				err;
};

/**
 * struct sframe_hint_cache - the section a task's last lookup found
 * @hint:	that lookup's answer
 * @gen:	the generation of the task's registrations it was found in
 *		(see sframe_hint_user())
 * @seq:	odd while the cache is written
 *
 * Only the task itself reads and writes it, in any context: an interrupt
 * or NMI may come in the middle of a read or write of another context.
 */
struct sframe_hint_cache {
	struct sframe_hint		hint;
	u64				gen;
	unsigned int			seq;
};

#ifdef CONFIG_USERSPACE_UNWINDER_SFRAME

void sframe_mm_init(struct mm_struct *mm);
void sframe_mm_dup(struct mm_struct *mm, struct mm_struct *oldmm);
void sframe_mm_free(struct mm_struct *mm);
void sframe_mmap_file(struct file *file, unsigned long addr,
		      unsigned long len, unsigned long pgoff);
void sframe_munmap(struct mm_struct *mm, unsigned long start,
		   unsigned long end);
void sframe_task_init(struct task_struct *p);
void sframe_collector_get(void);
void sframe_collector_put(void);
void sframe_collector_task(struct task_struct *task);

#else /* !CONFIG_USERSPACE_UNWINDER_SFRAME */

static inline void sframe_mm_init(struct mm_struct *mm) {}
static inline void sframe_mm_dup(struct mm_struct *mm,
				 struct mm_struct *oldmm) {}
static inline void sframe_mm_free(struct mm_struct *mm) {}
static inline void sframe_mmap_file(struct file *file, unsigned long addr,
				    unsigned long len, unsigned long pgoff) {}
static inline void sframe_munmap(struct mm_struct *mm, unsigned long start,
				 unsigned long end) {}
static inline void sframe_task_init(struct task_struct *p) {}

static inline void sframe_collector_get(void) {}
static inline void sframe_collector_put(void) {}
static inline void sframe_collector_task(struct task_struct *task) {}

#endif /* CONFIG_USERSPACE_UNWINDER_SFRAME */

#endif /* _LINUX_SFRAME_H */
