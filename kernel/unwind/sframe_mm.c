// SPDX-License-Identifier: GPL-2.0
/*
 * Per-process SFrame registration.
 *
 * The kernel finds user space SFrame sections by itself: whenever a regular
 * ELF file is mapped executable (the program and its interpreter at execve,
 * shared objects when ld.so maps them, dlopen() included), its program
 * headers are read from the file and a PT_GNU_SFRAME segment, if any, is
 * registered for the text of that mapping. Unmapping any part of that text,
 * whatever the mapping's flags by then, drops the registration; fork copies
 * the registrations of the text the child inherits; threads share them
 * through the mm; exec and exit free them with the mm.
 *
 * Registrations live in a maple tree in RCU mode keyed by text range, so
 * that the unwinder can look them up from any context without locks. The
 * tree is changed only with mmap_lock held for write (and the tree's own
 * lock), and sections are freed after an RCU grace period. A file mapped
 * in pieces (adjacent mappings of the same executable segment) is one
 * registration. A process has at most vm.max_map_count registrations; the
 * memory they take is charged to its memory cgroup.
 *
 * The section data stays in user memory. It is validated in full, in task
 * context, before the task returns to user space from the mmap (or execve)
 * that registered it, so that its first samples already use it. A
 * validation that meets a page that is not mapped yet, or a fatal signal,
 * stops and goes on from where it was when a lookup next needs the section.
 * Until it is validated, and whenever a lookup cannot read it without
 * faulting, a lookup fails and the walk ends at that frame; a lookup that
 * met a missing page asks the task to fault the section in (task_work)
 * before it next returns to user space.
 */
#define pr_fmt(fmt) "sframe: " fmt

#include <linux/dcache.h>
#include <linux/debugfs.h>
#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/llist.h>
#include <linux/maple_tree.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/sframe.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/task_work.h>

#include <asm/unwind_user.h>

#include "sframe.h"

/* Sanity limits on what a file may ask the kernel to register. */
#define SFRAME_MAX_PHNUM		128
#define SFRAME_MAX_SECTION_SIZE		(512UL << 20)

/* sframe_section.state bits */
#define SFRAME_SEC_CHECKED		0	/* validated, usable */
#define SFRAME_SEC_BAD			1	/* rejected, never used */
#define SFRAME_SEC_WANTED		2	/* validate it, or fault it in */
#define SFRAME_SEC_BUSY			3	/* a task is working on it */

/* task_struct.sframe_work_pending bit */
#define SFRAME_WORK_PENDING		0

/* mm_struct.sframe_flags bits */
#define SFRAME_MM_UNDISCOVERED		0	/* text mapped, not looked at */
#define SFRAME_MM_DISCOVERING		1	/* a task is looking at it */

/**
 * struct sframe_file_key - a .sframe section of a file in a given state
 * @dev:	device of the file system
 * @gen:	inode generation
 * @ino:	inode number
 * @size:	file size
 * @ctime_sec:	last change of the inode (data or metadata), seconds
 * @ctime_nsec:	and nanoseconds
 * @pad:	zero
 * @off:	file offset of the section
 * @len:	its size
 *
 * Without padding, so that keys compare with memcmp().
 */
struct sframe_file_key {
	u32	dev;
	u32	gen;
	u64	ino;
	s64	size;
	s64	ctime_sec;
	u32	ctime_nsec;
	u32	pad;
	u64	off;
	u64	len;
};

/**
 * struct sframe_marks - the row marks, function index and row table of a
 *			 validated section
 * @ref:	references: each section that uses them, and the table of
 *		sections validated lately
 * @index:	the function index, in the same allocation after @m, or NULL
 * @nr_index:	number of @index entries
 * @index_shift: as struct sframe_table's
 * @rows:	the row table, in the same allocation after @index, or NULL
 * @nr_rows:	number of @rows
 * @blocks:	its block index, in the same allocation after @rows
 * @nr_blocks:	number of @blocks
 * @block_shift: as struct sframe_table's
 * @nr:		number of marks
 * @m:		the marks, as struct sframe_table expects them
 *
 * Marks, index and rows depend on the section's contents only: the
 * sections of one file, in every process and at every address, share
 * them.
 */
struct sframe_marks {
	refcount_t		ref;
	s32			*index;
	u32			nr_index;
	u8			index_shift;
	struct sframe_row	*rows;
	u32			nr_rows;
	u32			*blocks;
	u32			nr_blocks;
	u8			block_shift;
	u32			nr;
	struct sframe_row_mark	m[] __counted_by(nr);
};

/**
 * struct sframe_section - one registered .sframe section
 * @tbl:	the decoder's view of the section; its text range spans the
 *		file's executable segments, the tree range the mapped text
 * @valid:	progress of the validation (under SFRAME_SEC_BUSY); its
 *		marks and index buffers are the section's until the
 *		validation ends
 * @marks:	the marks @tbl uses once SFRAME_SEC_CHECKED is set, or NULL
 * @inode:	the file it was read from, to recognize more of its text;
 *		only compared, never dereferenced
 * @key:	the file and section, as they were when it was registered
 * @wanted:	in mm->sframe_wanted while SFRAME_SEC_WANTED is set
 * @ref:	references: the tree holds one, mm->sframe_wanted another
 * @state:	SFRAME_SEC_* bits
 * @rcu:	for freeing after readers are done
 * @name:	file name, for messages
 */
struct sframe_section {
	struct sframe_table	tbl;
	struct sframe_validation valid;
	struct sframe_marks	*marks;
	const struct inode	*inode;
	struct sframe_file_key	key;
	struct llist_node	wanted;
	refcount_t		ref;
	unsigned long		state;
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

/*
 * A lookup result in 32 bytes: the rule as a row of a row table would
 * hold it, %SFRAME_ROW_NONE for -ENOENT (no usable section).
 */
struct sframe_cache_entry {
	unsigned long		ip;
	u64			key;
	struct sframe_row	rule;
};

/*
 * The section the last lookup on a CPU found, and the range of the tree it
 * is registered for: valid in one generation of one mm, like the entries.
 * It holds no reference. Every change of the tree moves the mm to a new
 * generation before a section it removed can be put (sframe_mm_new_gen()),
 * so a lookup that reads the old generation runs before the RCU grace
 * period of that put ends, and the section is not freed under it.
 */
struct sframe_cache_sec {
	u64			key;
	unsigned long		first;
	unsigned long		last;
	struct sframe_section	*sec;
};

/*
 * Sets of SFRAME_CACHE_WAYS entries: a new entry goes to way 0 and moves the
 * entry there to the next way, so a set keeps the last ones stored.
 */
struct sframe_cache {
	struct sframe_cache_entry
			set[1 << SFRAME_CACHE_SET_BITS][SFRAME_CACHE_WAYS];
	struct sframe_cache_sec	sec;
	unsigned int	busy;
	unsigned long	rows;
	unsigned long	hits;
	unsigned long	misses;
};

static struct sframe_cache __percpu *sframe_cache __read_mostly;

/* Generations start at 1: a zeroed cache entry matches no mm. */
static atomic64_t sframe_gen_seq = ATOMIC64_INIT(0);

/*
 * Called after every change of @mm's tree, before a section the change
 * removed is put: see struct sframe_cache_sec.
 */
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

/* What the registry did, for debugfs: see sframe_stats_show(). */
enum sframe_stat {
	SFRAME_STAT_FILES_READ,
	SFRAME_STAT_REGISTERED,
	SFRAME_STAT_VALIDATED,
	SFRAME_STAT_VALIDATION_SHARED,
	SFRAME_STAT_DISCOVERIES,
	SFRAME_STAT_NR
};

static const char *const sframe_stat_names[SFRAME_STAT_NR] = {
	[SFRAME_STAT_FILES_READ]	= "files_read",
	[SFRAME_STAT_REGISTERED]	= "registered",
	[SFRAME_STAT_VALIDATED]		= "validated",
	[SFRAME_STAT_VALIDATION_SHARED]	= "validation_shared",
	[SFRAME_STAT_DISCOVERIES]	= "discoveries",
};

static atomic_long_t sframe_stats[SFRAME_STAT_NR];

/*
 * Users of call chains: perf events that sample them and BPF programs that
 * ask for stacks (both take the perf call chain buffers). While there are
 * none, mapping a file reads nothing from it; the text a process maps
 * meanwhile is looked at when an unwind first needs it.
 */
static atomic_t sframe_collectors;

/**
 * sframe_collector_get() - note a new user of user space call chains
 *
 * Called when a perf event that samples call chains, or a BPF program
 * that takes stacks, is set up. From then on, SFrame sections are found
 * when their files are mapped, so that new processes have them from their
 * first sample.
 */
void sframe_collector_get(void)
{
	atomic_inc(&sframe_collectors);
}

/**
 * sframe_collector_put() - drop a user noted by sframe_collector_get()
 */
void sframe_collector_put(void)
{
	atomic_dec(&sframe_collectors);
}

static void sframe_stat_inc(enum sframe_stat stat)
{
	atomic_long_inc(&sframe_stats[stat]);
}

/*
 * Sections validated lately, by file and state of the file: a new
 * registration of a file that has not changed since takes the validation
 * over instead of reading every row again. A slot taken by another file
 * only costs a validation. A file written since has a new change time;
 * a new file on a reused inode number has another change time too.
 */
#define SFRAME_VALID_BITS		8

struct sframe_valid_slot {
	struct sframe_file_key	key;
	struct sframe_marks	*marks;
};

static struct sframe_valid_slot sframe_valid[1 << SFRAME_VALID_BITS];
static DEFINE_SPINLOCK(sframe_valid_lock);

static struct sframe_marks *sframe_marks_get(struct sframe_marks *marks)
{
	if (marks)
		refcount_inc(&marks->ref);
	return marks;
}

static void sframe_marks_put(struct sframe_marks *marks)
{
	if (marks && refcount_dec_and_test(&marks->ref))
		kvfree(marks);
}

static struct sframe_valid_slot *
sframe_valid_slot(const struct sframe_file_key *key)
{
	return &sframe_valid[hash_64(key->ino ^ key->off ^ ((u64)key->dev << 32),
				     SFRAME_VALID_BITS)];
}

/* Was the file validated lately? *@marks: a reference to its marks. */
static bool sframe_valid_known(const struct sframe_file_key *key,
			       struct sframe_marks **marks)
{
	struct sframe_valid_slot *slot;
	bool known;

	spin_lock(&sframe_valid_lock);
	slot = sframe_valid_slot(key);
	known = !memcmp(&slot->key, key, sizeof(*key));
	*marks = known ? sframe_marks_get(slot->marks) : NULL;
	spin_unlock(&sframe_valid_lock);
	return known;
}

static void sframe_valid_remember(const struct sframe_file_key *key,
				  struct sframe_marks *marks)
{
	struct sframe_valid_slot *slot;
	struct sframe_marks *old;

	spin_lock(&sframe_valid_lock);
	slot = sframe_valid_slot(key);
	old = slot->marks;
	slot->key = *key;
	slot->marks = sframe_marks_get(marks);
	spin_unlock(&sframe_valid_lock);
	sframe_marks_put(old);
}

/*
 * Files whose section is in an SFrame version this kernel does not know,
 * as far as they fit the table: said once per file, not at every mapping.
 */
static struct sframe_file_key sframe_unknown[1 << SFRAME_VALID_BITS];

static bool sframe_unknown_first(const struct sframe_file_key *key)
{
	struct sframe_file_key *slot;
	bool first;

	spin_lock(&sframe_valid_lock);
	slot = &sframe_unknown[hash_64(key->ino ^ key->off ^
				       ((u64)key->dev << 32),
				       SFRAME_VALID_BITS)];
	first = memcmp(slot, key, sizeof(*key));
	*slot = *key;
	spin_unlock(&sframe_valid_lock);
	return first;
}

static void sframe_file_key(struct sframe_file_key *key,
			    const struct inode *inode,
			    const struct elf64_phdr *ph)
{
	struct timespec64 ctime = inode_get_ctime(inode);

	memset(key, 0, sizeof(*key));
	key->dev = inode->i_sb->s_dev;
	key->gen = inode->i_generation;
	key->ino = inode->i_ino;
	key->size = i_size_read(inode);
	key->ctime_sec = ctime.tv_sec;
	key->ctime_nsec = ctime.tv_nsec;
	key->off = ph->p_offset;
	key->len = ph->p_filesz;
}

/*
 * Did the task validate what the file holds? Only if the section is
 * mapped from that file at its offset and no page of that mapping was
 * ever copied on write.
 */
static bool sframe_section_is_file(struct mm_struct *mm,
				   const struct sframe_section *sec)
{
	unsigned long start = sec->tbl.sec_start;
	struct vm_area_struct *vma;
	bool ret = false;

	if (mmap_read_lock_killable(mm))
		return false;
	vma = vma_lookup(mm, start);
	if (vma && vma->vm_file && !vma->anon_vma &&
	    d_real_inode(vma->vm_file->f_path.dentry) == sec->inode &&
	    sec->tbl.sec_end <= vma->vm_end &&
	    ((u64)vma->vm_pgoff << PAGE_SHIFT) + (start - vma->vm_start) ==
	    sec->key.off)
		ret = true;
	mmap_read_unlock(mm);
	return ret;
}

static void sframe_free_rcu(struct rcu_head *head)
{
	struct sframe_section *sec = container_of(head, struct sframe_section,
						  rcu);

	sframe_marks_put(sec->marks);
	kvfree(sec->valid.marks);
	kvfree(sec->valid.index);
	kvfree(sec->valid.rows);
	kfree(sec);
}

static void sframe_put(struct sframe_section *sec)
{
	if (refcount_dec_and_test(&sec->ref))
		call_rcu(&sec->rcu, sframe_free_rcu);
}

/*
 * Give the validated section @sec its marks and index (a reference) and
 * make it usable: lookups that see SFRAME_SEC_CHECKED see them too.
 */
static void sframe_publish(struct sframe_section *sec,
			   struct sframe_marks *marks)
{
	sec->marks = marks;
	if (marks) {
		sec->tbl.marks = marks->nr ? marks->m : NULL;
		sec->tbl.nr_marks = marks->nr;
		sec->tbl.index = marks->index;
		sec->tbl.nr_index = marks->nr_index;
		sec->tbl.index_shift = marks->index_shift;
		sec->tbl.rows = marks->rows;
		sec->tbl.nr_rows = marks->nr_rows;
		sec->tbl.blocks = marks->blocks;
		sec->tbl.nr_blocks = marks->nr_blocks;
		sec->tbl.block_shift = marks->block_shift;
	}
	/* Pairs with test_bit_acquire() in sframe_lookup(). */
	smp_mb__before_atomic();
	set_bit(SFRAME_SEC_CHECKED, &sec->state);
}

/*
 * Room for the marks, the index and the row table the validation of @sec
 * leaves, before it starts; and once it is done, what it left, in a
 * struct sframe_marks of its own size (NULL if there is nothing). Without
 * memory for the row table, the section goes without it.
 */
static int sframe_marks_alloc(struct sframe_section *sec)
{
	u32 max = sframe_max_marks(&sec->tbl);
	u32 nr_index = sframe_index_size(&sec->tbl);
	u32 max_rows = sframe_max_rows(&sec->tbl);

	if (max && !sec->valid.marks) {
		sec->valid.marks = kvmalloc_array(max, sizeof(*sec->valid.marks),
						  GFP_KERNEL_ACCOUNT |
						  __GFP_NOWARN);
		if (!sec->valid.marks)
			return -ENOMEM;
		sec->valid.max_marks = max;
	}
	/* The validation goes on where it stopped: the index must be there. */
	if (nr_index && !sec->valid.index && !sec->valid.next_fde) {
		sec->valid.index = kvmalloc_array(nr_index,
						  sizeof(*sec->valid.index),
						  GFP_KERNEL_ACCOUNT |
						  __GFP_NOWARN);
		if (!sec->valid.index)
			return -ENOMEM;
	}
	if (max_rows && !sec->valid.rows && !sec->valid.next_fde)
		sec->valid.rows = kvmalloc_array(max_rows,
						 sizeof(*sec->valid.rows),
						 GFP_KERNEL_ACCOUNT |
						 __GFP_NOWARN);
	return 0;
}

static int sframe_marks_take(struct sframe_section *sec,
			     struct sframe_marks **marksp)
{
	struct sframe_validation *v = &sec->valid;
	u32 nr_index = 0, nr = v->nr_marks, nr_rows = 0, nr_blocks = 0;
	struct sframe_marks *marks = NULL;
	u8 block_shift = 0;
	size_t size;

	if (v->index && !v->index_bad)
		nr_index = sframe_index_size(&sec->tbl);
	if (v->rows && !v->rows_bad && v->nr_rows) {
		nr_rows = v->nr_rows;
		nr_blocks = sframe_row_blocks(v->rows, nr_rows, &block_shift);
	}
	if (nr || nr_index || nr_rows) {
		size = struct_size(marks, m, nr);
		size = size_add(size, array_size(nr_index,
						 sizeof(*marks->index)));
		size = size_add(size, array_size(nr_rows,
						 sizeof(*marks->rows)));
		size = size_add(size, array_size(nr_blocks,
						 sizeof(*marks->blocks)));
		marks = kvmalloc(size, GFP_KERNEL_ACCOUNT);
		if (!marks)
			return -ENOMEM;
		refcount_set(&marks->ref, 1);
		marks->nr = nr;
		memcpy(marks->m, v->marks, nr * sizeof(*marks->m));
		marks->index = NULL;
		marks->nr_index = nr_index;
		marks->index_shift = sframe_index_shift(&sec->tbl);
		if (nr_index) {
			marks->index = (s32 *)&marks->m[nr];
			memcpy(marks->index, v->index,
			       nr_index * sizeof(*marks->index));
		}
		/* Rows are 4-byte aligned, as marks and index entries. */
		marks->rows = NULL;
		marks->nr_rows = nr_rows;
		marks->blocks = NULL;
		marks->nr_blocks = nr_blocks;
		marks->block_shift = block_shift;
		if (nr_rows) {
			marks->rows = (struct sframe_row *)
				      ((s32 *)&marks->m[nr] + nr_index);
			memcpy(marks->rows, v->rows,
			       nr_rows * sizeof(*marks->rows));
			marks->blocks = (u32 *)&marks->rows[nr_rows];
			sframe_row_index(marks->rows, nr_rows, marks->blocks,
					 nr_blocks, block_shift);
		}
	}
	kvfree(v->marks);
	kvfree(v->index);
	kvfree(v->rows);
	v->rows = NULL;
	v->nr_rows = 0;
	v->rows_end = 0;
	v->rows_bad = false;
	v->marks = NULL;
	v->nr_marks = 0;
	v->max_marks = 0;
	v->index = NULL;
	v->index_bad = false;
	*marksp = marks;
	return 0;
}

/* Validate a new section, or bring in pages a lookup could not read. */
static void sframe_section_work(struct sframe_section *sec)
{
	unsigned long size = sec->tbl.sec_end - sec->tbl.sec_start;
	struct sframe_marks *marks;
	int ret;

	/* Another thread of the process is at it already. */
	if (test_and_set_bit_lock(SFRAME_SEC_BUSY, &sec->state))
		return;
	if (test_bit(SFRAME_SEC_BAD, &sec->state))
		goto out;

	if (test_bit(SFRAME_SEC_CHECKED, &sec->state)) {
		fault_in_readable((const char __user *)sec->tbl.sec_start, size);
		goto out;
	}

	/*
	 * All of the section first: the validation then reads only pages
	 * that are there, and a section that claims more than the file
	 * holds waits (cheaply) for the rest to be mapped.
	 */
	if (fault_in_readable((const char __user *)sec->tbl.sec_start, size))
		ret = -EFAULT;
	else
		ret = sframe_marks_alloc(sec) ?:
		      sframe_table_validate_resume(&sec->tbl, &sec->valid);
	/* Out of memory for the marks: the next try only takes them. */
	if (!ret)
		ret = sframe_marks_take(sec, &marks);
	if (!ret) {
		sframe_publish(sec, marks);
		sframe_stat_inc(SFRAME_STAT_VALIDATED);
		if (sframe_section_is_file(current->mm, sec))
			sframe_valid_remember(&sec->key, marks);
	} else if (ret != -EFAULT && ret != -EINTR && ret != -ENOMEM) {
		/* -EFAULT, -EINTR, -ENOMEM: go on when a lookup needs it. */
		set_bit(SFRAME_SEC_BAD, &sec->state);
		pr_warn_ratelimited("%s[%d]: %s: invalid .sframe section (%d), not used\n",
				    current->comm, task_pid_nr(current),
				    sec->name, ret);
	}
out:
	clear_bit_unlock(SFRAME_SEC_BUSY, &sec->state);
}

/*
 * Work on the sections of @mm that asked for it, or only drop them if
 * @work is false. Each holds a reference taken by sframe_request_work().
 */
static void sframe_do_wanted(struct mm_struct *mm, bool work)
{
	struct llist_node *list = llist_del_all(&mm->sframe_wanted);
	struct sframe_section *sec, *next;

	llist_for_each_entry_safe(sec, next, list, wanted) {
		/* From here on, a new request queues it again. */
		clear_bit(SFRAME_SEC_WANTED, &sec->state);
		if (work && !fatal_signal_pending(current))
			sframe_section_work(sec);
		sframe_put(sec);
		if (work)
			cond_resched();
	}
}

static void sframe_discover(struct mm_struct *mm);

/* Runs as task_work when the task returns to user space. */
static void sframe_work_fn(struct callback_head *head)
{
	struct task_struct *curr = current;

	if (curr->mm && !(curr->flags & PF_EXITING)) {
		/* The sections it finds are validated right after. */
		if (test_bit(SFRAME_MM_UNDISCOVERED, &curr->mm->sframe_flags))
			sframe_discover(curr->mm);
		sframe_do_wanted(curr->mm, true);
	}

	clear_bit_unlock(SFRAME_WORK_PENDING, &curr->sframe_work_pending);
}

/*
 * Have the current task run sframe_work_fn() before it returns to user
 * space.
 *
 * Context: any context, including NMI.
 */
static void sframe_queue_work(void)
{
	struct task_struct *curr = current;

	if (curr->flags & (PF_EXITING | PF_KTHREAD))
		return;
	if (test_and_set_bit_lock(SFRAME_WORK_PENDING,
				  &curr->sframe_work_pending))
		return;

	init_task_work(&curr->sframe_work, sframe_work_fn);
	if (task_work_add(curr, &curr->sframe_work,
			  in_nmi() ? TWA_NMI_CURRENT :
				     TWA_RESUME | TWAF_NO_ALLOC))
		clear_bit_unlock(SFRAME_WORK_PENDING,
				 &curr->sframe_work_pending);
}

/*
 * Ask the current task to validate @sec, or to fault it in, before it
 * returns to user space. @sec must be in the current mm's tree, and the
 * caller in an RCU read-side section or holding mmap_lock.
 *
 * Context: any context, including NMI.
 */
static void sframe_request_work(struct sframe_section *sec)
{
	if (current->flags & (PF_EXITING | PF_KTHREAD))
		return;
	if (!test_and_set_bit(SFRAME_SEC_WANTED, &sec->state)) {
		/* A section on its way out of the tree is not worked on. */
		if (!refcount_inc_not_zero(&sec->ref)) {
			clear_bit(SFRAME_SEC_WANTED, &sec->state);
			return;
		}
		llist_add(&sec->wanted, &current->mm->sframe_wanted);
	}
	sframe_queue_work();
}

/*
 * The section of @mm registered for @ip, if any, under rcu_read_lock();
 * @hint, if not NULL, takes it and its range. Not inlined: the walk state,
 * which the kernel may clear on every call (CONFIG_INIT_STACK_ALL_ZERO),
 * is only set up when the hint does not answer.
 */
static noinline struct sframe_section *
sframe_walk(struct mm_struct *mm, unsigned long ip, u64 key,
	    struct sframe_cache_sec *hint)
{
	MA_STATE(mas, &mm->sframe_mt, ip, ip);
	struct sframe_section *sec;

	sec = mas_walk(&mas);
	if (sec && hint) {
		hint->key = key;
		hint->first = mas.index;
		hint->last = mas.last;
		hint->sec = sec;
	}
	return sec;
}

/*
 * Look up @ip in the row table of the CPU's last section found, @hint, if
 * it is registered for @ip in generation @key: the lookup then needs
 * neither the tree nor the cache.
 *
 * Return: as sframe_find_row(): 0 with the rule in *@frame, -ENOENT, or 1
 * if the lookup has to go on elsewhere.
 */
static int sframe_hint_find(const struct sframe_cache_sec *hint,
			    unsigned long ip, u64 key,
			    struct unwind_user_frame *frame)
{
	const struct sframe_row *row;
	struct sframe_section *sec;
	int ret = 1;

	rcu_read_lock();
	sec = hint->sec;
	/* Pairs with sframe_publish(): the row table comes with the bit. */
	if (hint->key == key && ip >= hint->first && ip <= hint->last &&
	    test_bit_acquire(SFRAME_SEC_CHECKED, &sec->state) &&
	    sec->tbl.rows) {
		ret = sframe_find_row(&sec->tbl, ip, &row);
		if (!ret)
			sframe_row_unpack(row, frame);
	}
	rcu_read_unlock();
	return ret;
}

/*
 * Look up @ip in the current task's registered sections, of generation
 * @key. @hint, if not NULL, is the CPU's last section found (under its
 * busy count): used if it is there, updated if not.
 *
 * Return: 0 with the rule in *@rule (from a row table); 2 with the rule in
 * *@frame and in *@rule (read from the section); 1 with the rule in
 * *@frame only (a row cannot hold it); else an error of
 * sframe_find_user().
 */
static int sframe_lookup(struct mm_struct *mm, unsigned long ip, u64 key,
			 struct sframe_cache_sec *hint, struct sframe_row *rule,
			 struct unwind_user_frame *frame)
{
	const struct sframe_row *row;
	struct sframe_section *sec;
	int ret = -ENOENT;

	rcu_read_lock();
	if (hint && hint->key == key && ip >= hint->first && ip <= hint->last)
		sec = hint->sec;
	else
		sec = sframe_walk(mm, ip, key, hint);
	if (!sec) {
		/* Text of this mm was not looked at yet: it may have SFrame. */
		if (test_bit(SFRAME_MM_UNDISCOVERED, &mm->sframe_flags)) {
			sframe_queue_work();
			ret = -EAGAIN;
		}
		goto out;
	}
	if (test_bit(SFRAME_SEC_BAD, &sec->state))
		goto out;

	/* Pairs with sframe_publish(): the marks come with the bit. */
	if (!test_bit_acquire(SFRAME_SEC_CHECKED, &sec->state)) {
		sframe_request_work(sec);
		ret = -EAGAIN;
		goto out;
	}

	/* The row table first: most rules are there. */
	if (sec->tbl.rows) {
		ret = sframe_find_row(&sec->tbl, ip, &row);
		if (!ret)
			*rule = *row;
		if (ret <= 0)
			goto out;
	}
	ret = sframe_find(&sec->tbl, ip, frame);
	/* Only a missing page needs the fault-in; -EBUSY is not one. */
	if (ret == -EFAULT)
		sframe_request_work(sec);
	if (!ret)
		ret = sframe_row_pack(frame, rule) ? 2 : 1;
out:
	rcu_read_unlock();
	return ret;
}

/**
 * sframe_find_user() - look up the SFrame rule for a user address
 * @ip:		user instruction pointer of the current task
 * @frame:	filled with the rule on success
 * @hit:	if not NULL, set to whether the lookup read no section: a row
 *		table or the per-CPU cache answered
 *
 * Answers from the row table of the section the CPU found last when @ip
 * is in it, else from the per-CPU cache when it can, else looks @ip up in
 * the task's sections and caches the answer if it is final (a rule, or no
 * usable section).
 *
 * Context: any context, including NMI. Takes no locks and does not fault.
 * Return: 0 on success; -ENOENT if no usable section describes @ip;
 * -EAGAIN if the section is not validated yet; -EFAULT if its data is not
 * resident (it is brought in before the task returns to user space);
 * -EBUSY if user memory cannot be read here; -EINVAL if the data read is
 * malformed.
 */
int sframe_find_user(unsigned long ip, struct unwind_user_frame *frame,
		     bool *hit)
{
	struct sframe_cache __percpu *cache = sframe_cache;
	struct sframe_row rule __uninitialized;
	struct sframe_cache_entry *set = NULL;
	struct sframe_cache_sec *hint = NULL;
	struct mm_struct *mm = current->mm;
	bool answered = true;
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
		hint = this_cpu_ptr(&cache->sec);
		ret = sframe_hint_find(hint, ip, key, frame);
		if (ret <= 0) {
			this_cpu_inc(cache->rows);
			goto out;
		}
		set = *this_cpu_ptr(&cache->set[hash_64(ip ^ key,
						       SFRAME_CACHE_SET_BITS)]);
		for (i = 0; i < SFRAME_CACHE_WAYS; i++) {
			if (set[i].ip == ip && set[i].key == key) {
				this_cpu_inc(cache->hits);
				ret = -ENOENT;
				if (!(set[i].rule.flags & SFRAME_ROW_NONE)) {
					sframe_row_unpack(&set[i].rule, frame);
					ret = 0;
				}
				goto out;
			}
		}
		this_cpu_inc(cache->misses);
	}

	answered = false;
	ret = sframe_lookup(mm, ip, key, hint, &rule, frame);
	/* Rules a row cannot hold (rare, ret 1) are not cached. */
	if (set && (!ret || ret == 2 || ret == -ENOENT)) {
		for (i = SFRAME_CACHE_WAYS - 1; i > 0; i--)
			set[i] = set[i - 1];
		set[0].ip = ip;
		set[0].key = key;
		if (ret < 0)
			set[0].rule.flags = SFRAME_ROW_NONE;
		else
			set[0].rule = rule;
	}
	if (!ret)
		sframe_row_unpack(&rule, frame);
	/* Read from the section: *frame has the rule already. */
	else if (ret > 0)
		ret = 0;
out:
	if (hit)
		*hit = answered;
	if (cache)
		this_cpu_dec(cache->busy);
	preempt_enable();
	return ret;
}

/**
 * sframe_possible_user() - may a lookup for the current task find SFrame?
 *
 * Context: any context, including NMI.
 * Return: true if at least one section is registered for the task's mm,
 * or if its text was not looked at yet (a lookup has it looked at).
 */
bool sframe_possible_user(void)
{
	struct mm_struct *mm = current->mm;

	return mm && (!mtree_empty(&mm->sframe_mt) ||
		      test_bit(SFRAME_MM_UNDISCOVERED, &mm->sframe_flags));
}

/**
 * sframe_text_user() - is a user address in text with usable SFrame data?
 * @ip:		user address of the current task
 *
 * A quick test for a word that may be a return address: it lies in the
 * mapped text of one of the task's validated sections. Whether a function
 * descriptor covers it is for sframe_find_user() to say. Nothing is cached
 * and no work is requested: most words tested are not addresses at all.
 *
 * Context: any context, including NMI. Takes no locks and does not fault.
 * Return: true if @ip is in the text of a usable section.
 */
bool sframe_text_user(unsigned long ip)
{
	struct mm_struct *mm = current->mm;
	struct sframe_section *sec;
	bool ret;

	if (!mm)
		return false;
	rcu_read_lock();
	sec = mtree_load(&mm->sframe_mt, ip);
	ret = sec && test_bit(SFRAME_SEC_CHECKED, &sec->state) &&
	      !test_bit(SFRAME_SEC_BAD, &sec->state);
	rcu_read_unlock();
	return ret;
}

/**
 * sframe_func_start_user() - start of the function a user address is in
 * @ip:		user text address of the current task
 * @start:	set to the start of the function descriptor covering @ip
 *
 * Not cached: for the few addresses whose function must be known.
 *
 * Context: any context, including NMI. Takes no locks and does not fault.
 * Return: 0 on success, -ENOENT if no validated section's descriptor
 * covers @ip, another negative error if the section cannot be read here.
 */
int sframe_func_start_user(unsigned long ip, unsigned long *start)
{
	struct mm_struct *mm = current->mm;
	struct sframe_section *sec;
	int ret = -ENOENT;

	if (!mm)
		return ret;
	rcu_read_lock();
	sec = mtree_load(&mm->sframe_mt, ip);
	if (sec && test_bit(SFRAME_SEC_CHECKED, &sec->state) &&
	    !test_bit(SFRAME_SEC_BAD, &sec->state))
		ret = sframe_find_func(&sec->tbl, ip, start);
	rcu_read_unlock();
	return ret;
}

/*
 * Read from the page cache, as the mapping sees the file, and as uprobes
 * reads text: not a read of the file (that was checked at mmap), so no
 * permission hook, no access event, no atime or I/O accounting.
 */
static int sframe_file_read(struct file *file, void *buf, size_t len,
			    loff_t pos)
{
	struct address_space *mapping = file->f_mapping;
	loff_t size = i_size_read(mapping->host);
	struct page *page;
	size_t n;

	if (pos < 0 || len > size || pos > size - len)
		return -EIO;
	if (!mapping->a_ops->read_folio && !shmem_mapping(mapping))
		return -EIO;

	while (len) {
		if (mapping->a_ops->read_folio)
			page = read_mapping_page(mapping, pos >> PAGE_SHIFT,
						 file);
		else
			page = shmem_read_mapping_page(mapping,
						       pos >> PAGE_SHIFT);
		if (IS_ERR(page))
			return PTR_ERR(page);
		n = min_t(size_t, len, PAGE_SIZE - offset_in_page(pos));
		memcpy_from_page(buf, page, offset_in_page(pos), n);
		put_page(page);
		buf += n;
		pos += n;
		len -= n;
	}
	return 0;
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

/*
 * Read the ELF program headers of @file and set up a section for its
 * PT_GNU_SFRAME segment, as mapped by the text mapping [@addr, @addr + @len)
 * at file page @pgoff. The section may describe every executable segment
 * of the file; @start and @end are set to the part of the mapping that
 * holds the one it maps.
 */
static struct sframe_section *
sframe_section_from_file(struct file *file, unsigned long addr,
			 unsigned long len, unsigned long pgoff,
			 unsigned long *start, unsigned long *end)
{
	const struct elf64_phdr *sframe = NULL, *text = NULL;
	unsigned long bias, text_start, text_end, sec_start;
	u64 off = (u64)pgoff << PAGE_SHIFT, lo = U64_MAX, hi = 0;
	struct sframe_file_key key;
	struct sframe_header hdr;
	struct sframe_section *sec = NULL;
	struct elf64_phdr *phdrs;
	struct elf64_hdr ehdr;
	unsigned int i;
	int ret;

	sframe_stat_inc(SFRAME_STAT_FILES_READ);
	if (sframe_file_read(file, &ehdr, sizeof(ehdr), 0))
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
	if (sframe_file_read(file, phdrs, ehdr.e_phnum * sizeof(*phdrs),
			     ehdr.e_phoff))
		goto out;

	for (i = 0; i < ehdr.e_phnum; i++) {
		const struct elf64_phdr *ph = &phdrs[i];

		if (ph->p_type == PT_GNU_SFRAME)
			sframe = ph;
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		/* Every executable segment the section may describe. */
		if (ph->p_vaddr + ph->p_memsz < ph->p_vaddr)
			goto out;
		lo = min(lo, ph->p_vaddr);
		hi = max(hi, ph->p_vaddr + ph->p_memsz);
		/* The one this mapping comes from. */
		if (round_down(ph->p_offset, PAGE_SIZE) <= off &&
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

	ret = sframe_file_read(file, &hdr, sizeof(hdr), sframe->p_offset);
	if (ret)
		goto bad;

	sec = kzalloc(sizeof(*sec), GFP_KERNEL_ACCOUNT);
	if (!sec)
		goto out;

	sec_start = bias + sframe->p_vaddr;
	ret = sframe_table_init(&sec->tbl, &hdr, sizeof(hdr), sec_start,
				sframe->p_memsz, bias + lo, bias + hi,
				ARCH_SFRAME_ABI);
	if (ret) {
		kfree(sec);
		sec = NULL;
		goto bad;
	}
	/* The file of the mapping: a stacked file system maps its lower one. */
	sec->inode = d_real_inode(file->f_path.dentry);
	sframe_file_key(&sec->key, sec->inode, sframe);
	refcount_set(&sec->ref, 1);
	snprintf(sec->name, sizeof(sec->name), "%pD", file);
	*start = text_start;
	*end = text_end;
	goto out;

bad:
	/* A newer format is not an error of the file's: said once. */
	if (ret == -EOPNOTSUPP) {
		sframe_file_key(&key, d_real_inode(file->f_path.dentry), sframe);
		if (sframe_unknown_first(&key))
			pr_info("%pD: SFrame version %u not supported, ignored\n",
				file, hdr.preamble.version);
	} else {
		pr_warn_ratelimited("%s[%d]: %pD: invalid PT_GNU_SFRAME (%d), ignored\n",
				    current->comm, task_pid_nr(current), file,
				    ret);
	}
out:
	kfree(phdrs);
	return sec;
}

/* Two sections for the same text of the same file, at the same place. */
static bool sframe_same(const struct sframe_section *a,
			const struct sframe_section *b)
{
	return a->inode == b->inode &&
	       a->tbl.sec_start == b->tbl.sec_start &&
	       a->tbl.sec_end == b->tbl.sec_end &&
	       a->tbl.text_start == b->tbl.text_start &&
	       a->tbl.text_end == b->tbl.text_end;
}

/*
 * Register @sec for the text [@start, @end), or extend the registration of
 * an adjacent piece of the same text to it. Returns the section now
 * registered there, or an ERR_PTR(); @sec is the caller's to free unless it
 * is returned.
 *
 * Context: mmap_lock held for write.
 */
static struct sframe_section *
sframe_mm_insert(struct mm_struct *mm, struct sframe_section *sec,
		 unsigned long start, unsigned long end)
{
	MA_STATE(mas, &mm->sframe_mt, start, end - 1);
	struct sframe_section *left = NULL, *right = NULL, *reg;
	unsigned long lo = start, hi = end - 1;
	int ret;

	mtree_lock(&mm->sframe_mt);
	/* Nothing may be registered there: its text was unmapped. */
	if (mas_find(&mas, end - 1)) {
		reg = ERR_PTR(-EEXIST);
		goto unlock;
	}
	if (start) {
		mas_set(&mas, start - 1);
		left = mas_walk(&mas);
		if (left && sframe_same(left, sec))
			lo = mas.index;
		else
			left = NULL;
	}
	if (end) {
		mas_set(&mas, end);
		right = mas_walk(&mas);
		if (right && sframe_same(right, sec))
			hi = mas.last;
		else
			right = NULL;
	}

	reg = left ?: right ?: sec;
	if (reg == sec &&
	    mm->sframe_nr >= (unsigned int)READ_ONCE(sysctl_max_map_count)) {
		reg = ERR_PTR(-ENOSPC);
		goto unlock;
	}

	mas_set_range(&mas, lo, hi);
	ret = mas_store_gfp(&mas, reg, GFP_KERNEL_ACCOUNT);
	if (ret) {
		/* Nothing was stored: the tree is as it was. */
		reg = ERR_PTR(ret);
		goto unlock;
	}
	if (reg == sec)
		mm->sframe_nr++;
	sframe_mm_new_gen(mm);
	/* The text between two registrations of one section joined them. */
	if (left && right && right != left) {
		mm->sframe_nr--;
		sframe_put(right);
	}
unlock:
	mtree_unlock(&mm->sframe_mt);
	return reg;
}

/*
 * Read the ELF program headers of @file and, if they have a PT_GNU_SFRAME
 * segment, register it for the part of the current task's mapping
 * [@addr, @addr + @len) at file page @pgoff that holds an executable
 * segment, if that is still the file's mapping. The section is validated
 * (or, if a task validated the unchanged file before, brought in) before
 * the task returns to user space.
 */
static void sframe_register(struct file *file, unsigned long addr,
			    unsigned long len, unsigned long pgoff)
{
	struct mm_struct *mm = current->mm;
	struct sframe_section *sec, *reg;
	struct sframe_marks *marks;
	struct vm_area_struct *vma;
	unsigned long start, end;
	unsigned int nr;

	if (!S_ISREG(file_inode(file)->i_mode))
		return;

	sec = sframe_section_from_file(file, addr, len, pgoff, &start, &end);
	if (!sec)
		return;

	if (mmap_write_lock_killable(mm)) {
		kfree(sec);
		return;
	}
	/* Another thread may have replaced the mapping meanwhile. */
	reg = ERR_PTR(-ENOENT);
	vma = vma_lookup(mm, start);
	if (vma && (vma->vm_flags & VM_EXEC) && vma->vm_file &&
	    file_inode(vma->vm_file) == sec->inode && end <= vma->vm_end &&
	    vma->vm_pgoff + ((start - vma->vm_start) >> PAGE_SHIFT) ==
	    pgoff + ((start - addr) >> PAGE_SHIFT))
		reg = sframe_mm_insert(mm, sec, start, end);
	if (reg == sec) {
		sframe_stat_inc(SFRAME_STAT_REGISTERED);
		/* The file has not changed since a task validated it. */
		if (sframe_valid_known(&sec->key, &marks)) {
			sframe_publish(sec, marks);
			sframe_stat_inc(SFRAME_STAT_VALIDATION_SHARED);
		}
	}
	/*
	 * Validate a new section, or bring its pages in, before the task
	 * runs the code it describes.
	 */
	if (!IS_ERR(reg) &&
	    (reg == sec || !test_bit(SFRAME_SEC_CHECKED, &reg->state)))
		sframe_request_work(reg);
	nr = mm->sframe_nr;
	mmap_write_unlock(mm);

	if (reg == ERR_PTR(-ENOSPC))
		pr_warn_ratelimited("%s[%d]: %pD: more than %u SFrame sections (vm.max_map_count), not registered\n",
				    current->comm, task_pid_nr(current), file,
				    nr);
	if (reg != sec)
		kfree(sec);
}

/*
 * Look at the text of @mm that was mapped while nobody collected call
 * chains: register the SFrame sections of its executable file mappings.
 * Stops on a fatal signal, to go on when an unwind next asks.
 */
static void sframe_discover(struct mm_struct *mm)
{
	unsigned long addr = 0, start, len, pgoff;
	struct vm_area_struct *vma;
	struct file *file;

	if (test_and_set_bit_lock(SFRAME_MM_DISCOVERING, &mm->sframe_flags))
		return;
	/* Text mapped from now on registers itself, or sets it again. */
	clear_bit(SFRAME_MM_UNDISCOVERED, &mm->sframe_flags);
	sframe_stat_inc(SFRAME_STAT_DISCOVERIES);

	for (;;) {
		VMA_ITERATOR(vmi, mm, addr);

		if (fatal_signal_pending(current) ||
		    mmap_read_lock_killable(mm)) {
			set_bit(SFRAME_MM_UNDISCOVERED, &mm->sframe_flags);
			break;
		}
		file = NULL;
		for_each_vma(vmi, vma) {
			if (!(vma->vm_flags & VM_EXEC) || !vma->vm_file ||
			    mtree_load(&mm->sframe_mt, vma->vm_start))
				continue;
			file = get_file(vma->vm_file);
			start = vma->vm_start;
			len = vma->vm_end - start;
			pgoff = vma->vm_pgoff;
			break;
		}
		mmap_read_unlock(mm);
		if (!file)
			break;

		sframe_register(file, start, len, pgoff);
		fput(file);
		addr = start + len;
		cond_resched();
	}
	clear_bit_unlock(SFRAME_MM_DISCOVERING, &mm->sframe_flags);
}

/**
 * sframe_mmap_file() - register the SFrame section of a new text mapping
 * @file:	the file just mapped
 * @addr:	start of the new mapping
 * @len:	length of the new mapping
 * @pgoff:	file offset of the mapping, in pages
 *
 * Called after a successful executable mmap of a file, for the program and
 * its interpreter at execve as for every later mmap. While something
 * collects user call chains and sframe_enabled() is true, registers the
 * file's SFrame section for the new text at once, so that the first
 * samples in it are complete. Otherwise reads nothing, and leaves the text
 * to be looked at when an unwind of this process first needs it.
 *
 * Context: process context, mmap_lock not held. May sleep.
 */
void sframe_mmap_file(struct file *file, unsigned long addr,
		      unsigned long len, unsigned long pgoff)
{
	struct mm_struct *mm = current->mm;

	if (!mm)
		return;
	if (!sframe_enabled() || !atomic_read(&sframe_collectors)) {
		set_bit(SFRAME_MM_UNDISCOVERED, &mm->sframe_flags);
		return;
	}
	sframe_register(file, addr, len, pgoff);
}

/**
 * sframe_mmap_data() - note a new mapping of registered SFrame data
 * @file:	the file just mapped, not executable
 * @addr:	start of the new mapping
 * @len:	length of the new mapping
 *
 * A loader maps a library's text before the segment that holds its
 * .sframe (ld.so maps the whole file first, so the section could be
 * validated already), and that mapping replaces the pages the validation
 * brought in. Bring them in again before the task returns to user space,
 * so that the first lookups find them. The section is the registration
 * just below the new mapping, as linkers place the data after the text.
 *
 * Context: process context, mmap_lock not held.
 */
void sframe_mmap_data(struct file *file, unsigned long addr,
		      unsigned long len)
{
	struct mm_struct *mm = current->mm;
	struct sframe_section *sec;

	if (!mm || !addr || mtree_empty(&mm->sframe_mt))
		return;

	rcu_read_lock();
	sec = mt_prev(&mm->sframe_mt, addr, 0);
	if (sec && sec->inode == d_real_inode(file->f_path.dentry) &&
	    sec->tbl.sec_start < addr + len && addr < sec->tbl.sec_end)
		sframe_request_work(sec);
	rcu_read_unlock();
}

/**
 * sframe_munmap() - drop the sections describing an unmapped range
 * @mm:		the address space
 * @start:	start of the unmapped range
 * @end:	end of the unmapped range (exclusive)
 *
 * Every registration that overlaps the range is dropped whole, whatever
 * the flags of the mappings were: its text is no longer all there.
 *
 * Context: mmap_lock held for write.
 */
void sframe_munmap(struct mm_struct *mm, unsigned long start,
		   unsigned long end)
{
	MA_STATE(mas, &mm->sframe_mt, start, start);
	struct sframe_section *sec;

	if (start >= end || mtree_empty(&mm->sframe_mt))
		return;

	mtree_lock(&mm->sframe_mt);
	while ((sec = mas_find(&mas, end - 1))) {
		unsigned long last = mas.last;

		/*
		 * Clearing a range of an RCU tree needs a node: wait for
		 * one rather than leave a section in the tree that is freed.
		 */
		mas_store_gfp(&mas, NULL, GFP_KERNEL | __GFP_NOFAIL);
		mm->sframe_nr--;
		sframe_mm_new_gen(mm);
		sframe_put(sec);
		if (last >= end - 1)
			break;
		mas_set(&mas, last + 1);
	}
	mtree_unlock(&mm->sframe_mt);
}

/**
 * sframe_mm_init() - initialize the SFrame registrations of a new mm
 * @mm:		the new address space
 */
void sframe_mm_init(struct mm_struct *mm)
{
	mt_init_flags(&mm->sframe_mt, MT_FLAGS_USE_RCU);
	init_llist_head(&mm->sframe_wanted);
	mm->sframe_nr = 0;
	mm->sframe_flags = 0;
	sframe_mm_new_gen(mm);
}

/* Is every page of [@start, @end) in @mm inherited by a child? */
static bool sframe_text_copied(struct mm_struct *mm, unsigned long start,
			       unsigned long end)
{
	struct vm_area_struct *vma;
	struct vma_iterator vmi;

	vma_iter_init(&vmi, mm, start);
	for_each_vma_range(vmi, vma, end) {
		if (vma->vm_flags & VM_DONTCOPY)
			return false;
	}
	return true;
}

/**
 * sframe_mm_dup() - copy the SFrame registrations at fork
 * @mm:		the child's address space
 * @oldmm:	the parent's address space
 *
 * Copies the registrations of the text the child inherits, with their
 * validation state. Best effort: a registration that cannot be copied is
 * left out, and the child's frames in that text fall back to frame
 * pointers.
 *
 * Context: mmap_lock of @oldmm held for write. May sleep.
 */
void sframe_mm_dup(struct mm_struct *mm, struct mm_struct *oldmm)
{
	MA_STATE(mas, &oldmm->sframe_mt, 0, 0);
	struct sframe_section *sec, *copy;
	bool checked;

	/* What the parent has not looked at, the child has not either. */
	if (oldmm->sframe_flags & (BIT(SFRAME_MM_UNDISCOVERED) |
				   BIT(SFRAME_MM_DISCOVERING)))
		set_bit(SFRAME_MM_UNDISCOVERED, &mm->sframe_flags);

	rcu_read_lock();
	mas_for_each(&mas, sec, ULONG_MAX) {
		unsigned long start = mas.index, last = mas.last;

		/* The tree does not change: its writers hold mmap_lock. */
		mas_pause(&mas);
		rcu_read_unlock();
		cond_resched();

		if (sframe_text_copied(oldmm, start, last + 1)) {
			/*
			 * A thread of the parent may be validating it: only
			 * a section seen validated is copied as such, with
			 * its marks, which are set before the bit and never
			 * change after. Another one is validated again.
			 */
			checked = test_bit_acquire(SFRAME_SEC_CHECKED,
						   &sec->state);
			copy = kmemdup(sec, sizeof(*copy), GFP_KERNEL_ACCOUNT);
			if (!copy)
				return;
			refcount_set(&copy->ref, 1);
			/* Not busy in the child, whatever the parent does. */
			copy->state &= BIT(SFRAME_SEC_BAD);
			memset(&copy->valid, 0, sizeof(copy->valid));
			copy->marks = NULL;
			copy->tbl.marks = NULL;
			copy->tbl.nr_marks = 0;
			copy->tbl.index = NULL;
			copy->tbl.nr_index = 0;
			copy->tbl.rows = NULL;
			copy->tbl.nr_rows = 0;
			copy->tbl.blocks = NULL;
			copy->tbl.nr_blocks = 0;
			if (checked)
				sframe_publish(copy,
					       sframe_marks_get(sec->marks));
			if (mtree_store_range(&mm->sframe_mt, start, last, copy,
					      GFP_KERNEL_ACCOUNT)) {
				sframe_put(copy);
				return;
			}
			mm->sframe_nr++;
		}
		rcu_read_lock();
	}
	rcu_read_unlock();
}

/**
 * sframe_mm_free() - free all SFrame registrations of a dying mm
 * @mm:		the address space, with no users left
 */
void sframe_mm_free(struct mm_struct *mm)
{
	struct sframe_section *sec;
	unsigned long index = 0;

	/*
	 * No task runs on @mm any more, so no lookup can be in the tree:
	 * leave RCU mode, as exit_mmap() does for the mm's own tree, so that
	 * the tree is destroyed at once rather than node by node from RCU
	 * callbacks.
	 */
	mt_clear_in_rcu(&mm->sframe_mt);
	sframe_do_wanted(mm, false);
	mt_for_each(&mm->sframe_mt, sec, index, ULONG_MAX) {
		sframe_put(sec);
		cond_resched();
	}
	mtree_destroy(&mm->sframe_mt);
}

#ifdef CONFIG_DEBUG_FS
static int sframe_stats_show(struct seq_file *m, void *v)
{
	unsigned long rows = 0, hits = 0, misses = 0;
	unsigned int i;
	int cpu;

	for (i = 0; i < SFRAME_STAT_NR; i++)
		seq_printf(m, "%s %ld\n", sframe_stat_names[i],
			   atomic_long_read(&sframe_stats[i]));
	if (sframe_cache) {
		for_each_possible_cpu(cpu) {
			rows += per_cpu_ptr(sframe_cache, cpu)->rows;
			hits += per_cpu_ptr(sframe_cache, cpu)->hits;
			misses += per_cpu_ptr(sframe_cache, cpu)->misses;
		}
	}
	seq_printf(m, "row_table_hits %lu\ncache_hits %lu\ncache_misses %lu\n",
		   rows, hits, misses);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sframe_stats);

static int __init sframe_debugfs_init(void)
{
	debugfs_create_file("sframe_stats", 0444, NULL, NULL,
			    &sframe_stats_fops);
	return 0;
}
late_initcall(sframe_debugfs_init);
#endif /* CONFIG_DEBUG_FS */

/**
 * sframe_task_init() - reset the SFrame task_work state of a new task
 * @p:		the new task, a copy of its parent
 */
void sframe_task_init(struct task_struct *p)
{
	p->sframe_work_pending = 0;
}
