// SPDX-License-Identifier: GPL-2.0
/*
 * Per-process SFrame registration.
 *
 * The kernel finds user space SFrame sections by itself: whenever a regular
 * ELF file is mapped executable (the program and its interpreter at execve,
 * shared objects when ld.so maps them, dlopen() included), its program
 * headers are read from the file and a PT_GNU_SFRAME segment, if any, is
 * registered for the text range of that mapping. Unmapping the text drops
 * the registration, fork copies them, threads share them through the mm,
 * and exec and exit free them with the mm.
 *
 * Registrations live in a maple tree in RCU mode keyed by text range, so
 * that the unwinder can look them up from any context without locks.
 * Writers hold mmap_lock (for write when removing) and the tree's own lock.
 * Sections are freed after an RCU grace period.
 *
 * The section data stays in user memory. It is validated once in full, from
 * task context, before its first use; until then, and whenever a lookup
 * cannot read it without faulting, the unwinder falls back to frame pointers
 * for the frame and asks the task to fault the section in (task_work) when
 * it next returns to user space.
 */
#define pr_fmt(fmt) "sframe: " fmt

#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/maple_tree.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sframe.h>
#include <linux/slab.h>
#include <linux/task_work.h>

#include <asm/unwind_user.h>

#include "sframe.h"

/* Sanity limits on what a file may ask the kernel to register. */
#define SFRAME_MAX_PHNUM		128
#define SFRAME_MAX_SECTION_SIZE		(512UL << 20)
/* Validation attempts that may fault before a section is given up. */
#define SFRAME_MAX_FAULT_TRIES		8

/* sframe_section.state bits */
#define SFRAME_SEC_CHECKED		0	/* validated, usable */
#define SFRAME_SEC_BAD			1	/* rejected, never used */
#define SFRAME_SEC_FAULTIN		2	/* a lookup hit a missing page */

/* task_struct.sframe_work_pending bit */
#define SFRAME_WORK_PENDING		0

/**
 * struct sframe_section - one registered .sframe section
 * @tbl:	the decoder's view of the section
 * @ref:	references: the tree holds one, a running task_work another
 * @state:	SFRAME_SEC_* bits
 * @fault_tries: validation attempts that faulted
 * @rcu:	for freeing after readers are done
 * @name:	file name, for messages
 */
struct sframe_section {
	struct sframe_table	tbl;
	refcount_t		ref;
	unsigned long		state;
	atomic_t		fault_tries;
	struct rcu_head		rcu;
	char			name[32];
};

/*
 * Per-CPU cache of lookup results, so that the frames of hot code need no
 * section lookup. An entry is valid for one instruction pointer in one
 * generation of one mm's registrations: every change of the registrations
 * (a section added or removed) moves the mm to a new, globally unique
 * generation, which invalidates its entries without touching the caches.
 * A cached rule is what the section said when it was read; a later change
 * of the section data by the task is seen once the entry is replaced.
 */
#define SFRAME_CACHE_SET_BITS		8
#define SFRAME_CACHE_WAYS		2

/* sframe_cache_entry.flags */
#define SFRAME_CACHE_NOENT		BIT(0)	/* no usable section: -ENOENT */
#define SFRAME_CACHE_USE_FP		BIT(1)
#define SFRAME_CACHE_RA_SAVED		BIT(2)
#define SFRAME_CACHE_FP_SAVED		BIT(3)
#define SFRAME_CACHE_RA_SIGNED		BIT(4)
#define SFRAME_CACHE_OUTERMOST		BIT(5)

/* A lookup result, packed into 32 bytes. */
struct sframe_cache_entry {
	unsigned long	ip;
	u64		key;
	s32		cfa_off;
	s32		ra_off;
	s32		fp_off;
	u8		flags;
};

/*
 * Sets of SFRAME_CACHE_WAYS entries: a new entry goes to way 0 and moves the
 * entry there to the next way, so a set keeps the last ones stored.
 */
struct sframe_cache {
	struct sframe_cache_entry
			set[1 << SFRAME_CACHE_SET_BITS][SFRAME_CACHE_WAYS];
	unsigned int	busy;
};

static struct sframe_cache __percpu *sframe_cache __read_mostly;

/* Generations start at 1: a zeroed cache entry matches no mm. */
static atomic64_t sframe_gen_seq = ATOMIC64_INIT(0);

static void sframe_mm_new_gen(struct mm_struct *mm)
{
	/*
	 * Publish the tree change before the new generation: a lookup that
	 * reads the new generation also sees the change.
	 */
	smp_store_release(&mm->sframe_gen,
			  atomic64_inc_return(&sframe_gen_seq));
}

static int __init sframe_cache_init(void)
{
	sframe_cache = alloc_percpu(struct sframe_cache);
	if (!sframe_cache)
		pr_warn("no memory for the lookup cache, lookups not cached\n");
	return 0;
}
late_initcall(sframe_cache_init);

static void sframe_put(struct sframe_section *sec)
{
	if (refcount_dec_and_test(&sec->ref))
		kfree_rcu(sec, rcu);
}

/* Validate a new section, or bring in pages a lookup could not read. */
static void sframe_section_work(struct sframe_section *sec)
{
	unsigned long size = sec->tbl.sec_end - sec->tbl.sec_start;
	int ret;

	clear_bit(SFRAME_SEC_FAULTIN, &sec->state);
	fault_in_readable((const char __user *)sec->tbl.sec_start, size);

	if (test_bit(SFRAME_SEC_CHECKED, &sec->state) ||
	    test_bit(SFRAME_SEC_BAD, &sec->state))
		return;

	ret = sframe_table_validate(&sec->tbl);
	if (!ret) {
		set_bit(SFRAME_SEC_CHECKED, &sec->state);
		return;
	}
	if (ret == -EFAULT &&
	    atomic_inc_return(&sec->fault_tries) < SFRAME_MAX_FAULT_TRIES)
		return;

	set_bit(SFRAME_SEC_BAD, &sec->state);
	pr_warn_ratelimited("%s[%d]: %s: invalid .sframe section (%d), not used\n",
			    current->comm, task_pid_nr(current), sec->name, ret);
}

static bool sframe_section_needs_work(struct sframe_section *sec)
{
	if (test_bit(SFRAME_SEC_BAD, &sec->state))
		return false;
	return !test_bit(SFRAME_SEC_CHECKED, &sec->state) ||
	       test_bit(SFRAME_SEC_FAULTIN, &sec->state);
}

/* Runs as task_work when the task returns to user space. */
static void sframe_work_fn(struct callback_head *head)
{
	struct task_struct *curr = current;
	struct mm_struct *mm = curr->mm;
	struct sframe_section *sec;
	unsigned long index = 0;

	while (mm && !(curr->flags & PF_EXITING)) {
		rcu_read_lock();
		do {
			sec = mt_find(&mm->sframe_mt, &index, ULONG_MAX);
		} while (sec && (!sframe_section_needs_work(sec) ||
				 !refcount_inc_not_zero(&sec->ref)));
		rcu_read_unlock();
		if (!sec)
			break;

		sframe_section_work(sec);
		sframe_put(sec);
		cond_resched();
	}

	clear_bit_unlock(SFRAME_WORK_PENDING, &curr->sframe_work_pending);
}

/* Ask the current task to run sframe_work_fn() before it returns to user. */
static void sframe_request_work(void)
{
	struct task_struct *curr = current;

	if (curr->flags & PF_EXITING)
		return;
	if (test_and_set_bit_lock(SFRAME_WORK_PENDING,
				  &curr->sframe_work_pending))
		return;

	init_task_work(&curr->sframe_work, sframe_work_fn);
	if (task_work_add(curr, &curr->sframe_work,
			  in_nmi() ? TWA_NMI_CURRENT : TWA_RESUME))
		clear_bit_unlock(SFRAME_WORK_PENDING,
				 &curr->sframe_work_pending);
}

/* Look up @ip in the current task's registered sections. */
static int sframe_lookup(struct mm_struct *mm, unsigned long ip,
			 struct unwind_user_frame *frame)
{
	struct sframe_section *sec;
	int ret = -ENOENT;

	rcu_read_lock();
	sec = mtree_load(&mm->sframe_mt, ip);
	if (!sec || test_bit(SFRAME_SEC_BAD, &sec->state))
		goto out;

	if (!test_bit(SFRAME_SEC_CHECKED, &sec->state)) {
		sframe_request_work();
		ret = -EAGAIN;
		goto out;
	}

	ret = sframe_find(&sec->tbl, ip, frame);
	if (ret == -EFAULT) {
		set_bit(SFRAME_SEC_FAULTIN, &sec->state);
		sframe_request_work();
	}
out:
	rcu_read_unlock();
	return ret;
}

static void sframe_cache_put(struct sframe_cache_entry *e, unsigned long ip,
			     u64 key, int ret,
			     const struct unwind_user_frame *frame)
{
	e->ip = ip;
	e->key = key;
	if (ret) {
		e->flags = SFRAME_CACHE_NOENT;
		return;
	}
	e->cfa_off = frame->cfa_off;
	e->ra_off = frame->ra_off;
	e->fp_off = frame->fp_off;
	e->flags = (frame->use_fp ? SFRAME_CACHE_USE_FP : 0) |
		   (frame->ra_saved ? SFRAME_CACHE_RA_SAVED : 0) |
		   (frame->fp_saved ? SFRAME_CACHE_FP_SAVED : 0) |
		   (frame->ra_signed ? SFRAME_CACHE_RA_SIGNED : 0) |
		   (frame->outermost ? SFRAME_CACHE_OUTERMOST : 0);
}

static int sframe_cache_get(const struct sframe_cache_entry *e,
			    struct unwind_user_frame *frame)
{
	if (e->flags & SFRAME_CACHE_NOENT)
		return -ENOENT;
	frame->cfa_off = e->cfa_off;
	frame->ra_off = e->ra_off;
	frame->fp_off = e->fp_off;
	frame->use_fp = e->flags & SFRAME_CACHE_USE_FP;
	frame->ra_saved = e->flags & SFRAME_CACHE_RA_SAVED;
	frame->fp_saved = e->flags & SFRAME_CACHE_FP_SAVED;
	frame->ra_signed = e->flags & SFRAME_CACHE_RA_SIGNED;
	frame->outermost = e->flags & SFRAME_CACHE_OUTERMOST;
	return 0;
}

/**
 * sframe_find_user() - look up the SFrame rule for a user address
 * @ip:		user instruction pointer of the current task
 * @frame:	filled with the rule on success
 *
 * Answers from the per-CPU cache when it can, else looks @ip up in the
 * task's sections and caches the answer if it is final (a rule, or no
 * usable section).
 *
 * Context: any context, including NMI. Takes no locks and does not fault.
 * Return: 0 on success; -ENOENT if no usable section describes @ip;
 * -EAGAIN if the section is not validated yet; -EFAULT if its data is not
 * resident (it is brought in before the task returns to user space);
 * -EINVAL if the data read is malformed.
 */
int sframe_find_user(unsigned long ip, struct unwind_user_frame *frame)
{
	struct sframe_cache __percpu *cache = sframe_cache;
	struct sframe_cache_entry *set = NULL;
	struct mm_struct *mm = current->mm;
	unsigned int i;
	u64 key;
	int ret;

	if (!mm)
		return -ENOENT;

	preempt_disable();
	/* Pairs with the release in sframe_mm_new_gen(). */
	key = smp_load_acquire(&mm->sframe_gen);

	/* A lookup that interrupted another one on this CPU goes uncached. */
	if (cache && this_cpu_inc_return(cache->busy) == 1) {
		set = *this_cpu_ptr(&cache->set[hash_64(ip ^ key,
						       SFRAME_CACHE_SET_BITS)]);
		for (i = 0; i < SFRAME_CACHE_WAYS; i++) {
			if (set[i].ip == ip && set[i].key == key) {
				ret = sframe_cache_get(&set[i], frame);
				goto out;
			}
		}
	}

	ret = sframe_lookup(mm, ip, frame);
	if (set && (!ret || ret == -ENOENT)) {
		for (i = SFRAME_CACHE_WAYS - 1; i > 0; i--)
			set[i] = set[i - 1];
		sframe_cache_put(&set[0], ip, key, ret, frame);
	}
out:
	if (cache)
		this_cpu_dec(cache->busy);
	preempt_enable();
	return ret;
}

static int sframe_kernel_read(struct file *file, void *buf, size_t len,
			      loff_t pos)
{
	ssize_t n = kernel_read(file, buf, len, &pos);

	return n == len ? 0 : -EIO;
}

/* Is [start, start + size) inside a read-only PT_LOAD segment? */
static bool sframe_in_readonly_load(const struct elf64_phdr *phdrs,
				    unsigned int phnum, u64 start, u64 size)
{
	unsigned int i;

	for (i = 0; i < phnum; i++) {
		const struct elf64_phdr *ph = &phdrs[i];

		if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W))
			continue;
		if (start >= ph->p_vaddr && size <= ph->p_filesz &&
		    start - ph->p_vaddr <= ph->p_filesz - size)
			return true;
	}
	return false;
}

static struct sframe_section *
sframe_section_from_file(struct file *file, unsigned long addr,
			 unsigned long len, unsigned long pgoff)
{
	const struct elf64_phdr *sframe = NULL, *text = NULL;
	unsigned long bias, text_start, text_end, sec_start;
	struct sframe_header hdr;
	struct sframe_section *sec = NULL;
	u64 off = (u64)pgoff << PAGE_SHIFT;
	struct elf64_phdr *phdrs;
	struct elf64_hdr ehdr;
	unsigned int i;
	int ret;

	if (sframe_kernel_read(file, &ehdr, sizeof(ehdr), 0))
		return NULL;
	if (memcmp(ehdr.e_ident, ELFMAG, SELFMAG) ||
	    ehdr.e_ident[EI_CLASS] != ELFCLASS64 ||
	    ehdr.e_machine != ARCH_SFRAME_ELF_MACHINE ||
	    (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN) ||
	    ehdr.e_phentsize != sizeof(*phdrs) ||
	    !ehdr.e_phnum || ehdr.e_phnum > SFRAME_MAX_PHNUM)
		return NULL;

	phdrs = kmalloc_array(ehdr.e_phnum, sizeof(*phdrs), GFP_KERNEL);
	if (!phdrs)
		return NULL;
	if (sframe_kernel_read(file, phdrs, ehdr.e_phnum * sizeof(*phdrs),
			       ehdr.e_phoff))
		goto out;

	for (i = 0; i < ehdr.e_phnum; i++) {
		const struct elf64_phdr *ph = &phdrs[i];

		if (ph->p_type == PT_GNU_SFRAME)
			sframe = ph;
		/* The executable segment this mapping comes from. */
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
		    round_down(ph->p_offset, PAGE_SIZE) <= off &&
		    off < ph->p_offset + ph->p_filesz)
			text = ph;
	}
	if (!sframe || !text)
		goto out;

	/* The load bias that puts file offset @off at @addr. */
	bias = addr - off + text->p_offset - text->p_vaddr;
	text_start = max(addr, (unsigned long)(bias + text->p_vaddr));
	text_end = min(addr + len,
		       (unsigned long)(bias + text->p_vaddr + text->p_memsz));
	if (text_start >= text_end)
		goto out;

	ret = -EINVAL;
	if (sframe->p_filesz != sframe->p_memsz ||
	    sframe->p_memsz < sizeof(hdr) ||
	    sframe->p_memsz > SFRAME_MAX_SECTION_SIZE ||
	    !sframe_in_readonly_load(phdrs, ehdr.e_phnum, sframe->p_vaddr,
				     sframe->p_memsz))
		goto bad;

	ret = sframe_kernel_read(file, &hdr, sizeof(hdr), sframe->p_offset);
	if (ret)
		goto bad;

	sec = kzalloc(sizeof(*sec), GFP_KERNEL);
	if (!sec)
		goto out;

	sec_start = bias + sframe->p_vaddr;
	ret = sframe_table_init(&sec->tbl, &hdr, sizeof(hdr), sec_start,
				sframe->p_memsz, text_start, text_end,
				ARCH_SFRAME_ABI);
	if (ret) {
		kfree(sec);
		sec = NULL;
		goto bad;
	}
	refcount_set(&sec->ref, 1);
	snprintf(sec->name, sizeof(sec->name), "%pD", file);
	goto out;

bad:
	pr_warn_ratelimited("%s[%d]: %pD: invalid PT_GNU_SFRAME (%d), ignored\n",
			    current->comm, task_pid_nr(current), file, ret);
out:
	kfree(phdrs);
	return sec;
}

/**
 * sframe_mmap_file() - register the SFrame section of a new text mapping
 * @file:	the file just mapped
 * @addr:	start of the new mapping
 * @len:	length of the new mapping
 * @pgoff:	file offset of the mapping, in pages
 *
 * Called after a successful executable mmap of a file, for the program and
 * its interpreter at execve as for every later mmap. Reads the file's ELF
 * program headers and, if they have a PT_GNU_SFRAME segment, registers it
 * for the part of [@addr, @addr + @len) that holds the executable segment.
 *
 * Context: process context, mmap_lock not held. May sleep.
 */
void sframe_mmap_file(struct file *file, unsigned long addr,
		      unsigned long len, unsigned long pgoff)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct sframe_section *sec;
	int ret = -ENOENT;

	if (!mm || !S_ISREG(file_inode(file)->i_mode))
		return;

	sec = sframe_section_from_file(file, addr, len, pgoff);
	if (!sec)
		return;

	/* Another thread may have replaced the mapping meanwhile. */
	mmap_read_lock(mm);
	vma = vma_lookup(mm, sec->tbl.text_start);
	if (vma && (vma->vm_flags & VM_EXEC) &&
	    sec->tbl.text_end <= vma->vm_end)
		ret = mtree_insert_range(&mm->sframe_mt, sec->tbl.text_start,
					 sec->tbl.text_end - 1, sec,
					 GFP_KERNEL);
	if (!ret)
		sframe_mm_new_gen(mm);
	mmap_read_unlock(mm);

	if (ret)
		kfree(sec);
}

/**
 * sframe_munmap() - drop the sections describing an unmapped text range
 * @mm:		the address space
 * @start:	start of the unmapped range
 * @end:	end of the unmapped range (exclusive)
 *
 * Context: mmap_lock held for write.
 */
void sframe_munmap(struct mm_struct *mm, unsigned long start,
		   unsigned long end)
{
	struct sframe_section *sec;
	unsigned long index = start;
	bool removed = false;

	if (start >= end)
		return;

	while ((sec = mt_find(&mm->sframe_mt, &index, end - 1))) {
		mtree_erase(&mm->sframe_mt, sec->tbl.text_start);
		sframe_put(sec);
		removed = true;
	}
	if (removed)
		sframe_mm_new_gen(mm);
}

/**
 * sframe_mm_init() - initialize the SFrame registrations of a new mm
 * @mm:		the new address space
 */
void sframe_mm_init(struct mm_struct *mm)
{
	mt_init_flags(&mm->sframe_mt, MT_FLAGS_USE_RCU);
	sframe_mm_new_gen(mm);
}

/**
 * sframe_mm_dup() - copy the SFrame registrations at fork
 * @mm:		the child's address space
 * @oldmm:	the parent's address space
 *
 * Best effort: a registration that cannot be copied is left out, and the
 * child's frames in that text fall back to frame pointers.
 *
 * Context: mmap_lock of @oldmm held for write. May sleep.
 */
void sframe_mm_dup(struct mm_struct *mm, struct mm_struct *oldmm)
{
	struct sframe_section *sec, *copy;
	unsigned long index = 0;

	mt_for_each(&oldmm->sframe_mt, sec, index, ULONG_MAX) {
		copy = kzalloc(sizeof(*copy), GFP_KERNEL);
		if (!copy)
			break;
		copy->tbl = sec->tbl;
		memcpy(copy->name, sec->name, sizeof(copy->name));
		refcount_set(&copy->ref, 1);
		if (test_bit(SFRAME_SEC_CHECKED, &sec->state))
			set_bit(SFRAME_SEC_CHECKED, &copy->state);
		if (test_bit(SFRAME_SEC_BAD, &sec->state))
			set_bit(SFRAME_SEC_BAD, &copy->state);
		if (mtree_insert_range(&mm->sframe_mt, copy->tbl.text_start,
				       copy->tbl.text_end - 1, copy,
				       GFP_KERNEL)) {
			kfree(copy);
			break;
		}
	}
}

/**
 * sframe_mm_free() - free all SFrame registrations of a dying mm
 * @mm:		the address space, with no users left
 */
void sframe_mm_free(struct mm_struct *mm)
{
	struct sframe_section *sec;
	unsigned long index = 0;

	mt_for_each(&mm->sframe_mt, sec, index, ULONG_MAX)
		sframe_put(sec);
	mtree_destroy(&mm->sframe_mt);
}

/**
 * sframe_task_init() - reset the SFrame task_work state of a new task
 * @p:		the new task, a copy of its parent
 */
void sframe_task_init(struct task_struct *p)
{
	p->sframe_work_pending = 0;
}
