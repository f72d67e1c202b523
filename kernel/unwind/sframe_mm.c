// SPDX-License-Identifier: GPL-2.0
/*
 * Per-process SFrame registration.
 *
 * The kernel finds user space SFrame sections by itself: whenever a regular
 * ELF file is mapped executable (the program and its interpreter at execve,
 * shared objects when ld.so maps them, dlopen() included), its program
 * headers are read from the file and a PT_GNU_SFRAME segment, if any, is
 * registered for the text of that mapping. Unmapping any part of that text,
 * whatever the mapping's flags by then, drops the registration; fork shares
 * the registrations of the text the child inherits; threads share them
 * through the mm; exec and exit drop them with the mm.
 *
 * A section is read from the page cache, never through the task's mapping,
 * validated, and decoded into a table (struct sframe_rules) when it is
 * registered, in the task's context, before the task returns to user space
 * from the mmap or execve. The table then depends on the file alone: the
 * mappings of one file's section in every process share it while any of
 * them exists, and the last one to go frees it. Its memory is charged to
 * the memory cgroup of the task that built it. A section whose table
 * cannot be had (too large, no memory) is registered without one, and a
 * walk ends at its frames.
 *
 * Registrations live in a maple tree in RCU mode keyed by text range, so
 * that the unwinder can look them up from any context without locks. The
 * tree is changed only under the tree's own lock, with mmap_lock held for
 * write (munmap, fork) or for read and the mm's SFRAME_MM_REGISTERING bit
 * lock (a registration), and registrations and tables are freed after an
 * RCU grace period.
 * A file mapped in pieces (adjacent mappings of the same executable
 * segment) is one registration. A process has at most vm.max_map_count of
 * them; the memory they take is charged to its memory cgroup.
 */
#define pr_fmt(fmt) "sframe: " fmt

#include <linux/dcache.h>
#include <linux/debugfs.h>
#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/list_lru.h>
#include <linux/maple_tree.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/sframe.h>
#include <linux/shmem_fs.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/task_work.h>
#include <linux/workqueue.h>

#include <linux/unwind_user.h>

#include "eh_frame.h"
#include "sframe.h"
#include "sframe_table.h"
#include "../../mm/internal.h"

/*
 * Limits on what a file may ask of the kernel, whatever it holds. Unwind
 * sections of real files take a few MiB at most (the largest .eh_frame of
 * Debian's programs and libraries; a synthetic program of a million
 * functions has 24 MiB of .eh_frame and 8 MiB of .eh_frame_hdr): sections
 * of up to 64 MiB are read, and tables of up to 2^24 rows built (a
 * million functions take 3-8 rows each). A process's registrations use
 * at most SFRAME_MM_MAX_BYTES of tables: beyond, a file is registered
 * without one, and a walk ends at its frames.
 */
#define SFRAME_MAX_PHNUM		128
#define SFRAME_MAX_SHNUM		256
#define SFRAME_MAX_SECTION_SIZE		(64UL << 20)
#define SFRAME_MAX_ROWS			BIT(24)
#define SFRAME_MM_MAX_BYTES		(512UL << 20)

/* mm_struct.sframe_flags bits */
#define SFRAME_MM_REGISTERING		0	/* a task changes sframe_mt */
#define SFRAME_MM_UNDISCOVERED		1	/* text mapped, not looked at */
#define SFRAME_MM_DISCOVERING		2	/* a task is looking at it */
#define SFRAME_MM_COLLECTED		3	/* a perf event samples it */

/* task_struct.sframe_work_pending bit */
#define SFRAME_WORK_PENDING		0

/**
 * struct sframe_file_key - a .sframe section of a file in a given state
 * @dev:	device of the file, as stat() gives it (a btrfs subvolume
 *		has its own)
 * @gen:	inode generation
 * @ino:	inode number
 * @size:	file size
 * @ctime_sec:	last change of the inode (data or metadata), seconds
 * @ctime_nsec:	and nanoseconds
 * @cookie:	the file system's change attribute (i_version), where it
 *		has one: changes at every write, whatever the clock says
 * @variant:	which table of the section: 0, of its rows alone
 *		(1: with .eh_frame's rows where the section has none)
 * @off:	file offset of the section
 * @len:	its size
 * @text_off:	offset of the section from the start of the text it
 *		describes (the lowest executable segment), in the file's
 *		address space
 * @text_size:	size of that text
 *
 * Without padding, so that keys compare with memcmp(). A file written
 * since has a new change attribute, or change time; a new file on a
 * reused inode number has another change time and generation too.
 */
struct sframe_file_key {
	u32	dev;
	u32	gen;
	u64	ino;
	s64	size;
	s64	ctime_sec;
	u32	ctime_nsec;
	u32	variant;
	u64	cookie;
	u64	off;
	u64	len;
	u64	text_off;
	u64	text_size;
};

/**
 * struct sframe_shared - the table of one file's section, shared
 * @node:	in sframe_tables, under sframe_tables_lock
 * @key:	the file and section it was built from
 * @ref:	references: the registrations that use it; 0 while kept
 * @lru:	in sframe_kept while kept, under sframe_tables_lock
 * @size:	bytes allocated for it, the table included
 * @mem:	the table's arrays
 * @rcu:	for freeing after lookups are done
 * @rules:	the table
 *
 * A slab object apart from its arrays, so that sframe_kept finds the
 * memory cgroup both are charged to.
 */
struct sframe_shared {
	struct hlist_node	node;
	struct sframe_file_key	key;
	refcount_t		ref;
	struct list_head	lru;
	size_t			size;
	void			*mem;
	struct rcu_head		rcu;
	struct sframe_rules	rules;
};

/**
 * struct sframe_section - one registration: a table where a file's text is
 * @shared:	the table, or NULL: the section has none, and a walk ends
 *		at its frames
 * @base:	user address of the table's text offset 0
 * @inode:	the file it was read from, to recognize more of its text;
 *		only compared, never dereferenced
 * @ref:	references: the trees that hold it (fork shares it)
 * @rcu:	for freeing after lookups are done
 *
 * Never changes once registered: the parent and children share it.
 */
struct sframe_section {
	struct sframe_shared	*shared;
	unsigned long		base;
	const struct inode	*inode;
	refcount_t		ref;
	struct rcu_head		rcu;
};

/*
 * The tables in memory, by file: a mapping of a file whose table another
 * mapping uses shares it. Holds no reference: a table leaves it when it
 * is freed. Changed under sframe_tables_lock; a table in use is found
 * under RCU alone.
 */
#define SFRAME_TABLES_BITS		8
static DEFINE_HASHTABLE(sframe_tables, SFRAME_TABLES_BITS);
static DEFINE_SPINLOCK(sframe_tables_lock);

/*
 * The tables whose last registration went, kept for the next mapping of
 * their file: a process started again and again does not build the table
 * of its C library at every start. At most SFRAME_KEPT_MAX of them, of
 * SFRAME_KEPT_MAX_BYTES together (a table of a file deleted since is
 * never used again, and goes when newer ones come); a shrinker frees
 * them under memory pressure, in the memory cgroup that each is charged
 * to. The list's lock nests inside sframe_tables_lock.
 */
#define SFRAME_KEPT_MAX			1024
#define SFRAME_KEPT_MAX_BYTES		(32UL << 20)
static struct list_lru sframe_kept;
static bool sframe_keep;	/* sframe_kept and its shrinker are set up */
/*
 * Tables are allocated from a cache of their own with kmem_cache_alloc_lru(),
 * which sets up sframe_kept's list of the cgroup a table is charged to: a
 * table first built in a task of another cgroup than the root one goes to
 * that list when its last registration goes.
 */
static struct kmem_cache *sframe_shared_cache;

/* What the registry did, for debugfs: see sframe_stats_show(). */
enum sframe_stat {
	SFRAME_STAT_FILES_READ,
	SFRAME_STAT_REGISTERED,
	SFRAME_STAT_VALIDATED,
	SFRAME_STAT_VALIDATION_SHARED,
	SFRAME_STAT_DISCOVERIES,
	SFRAME_STAT_TABLES,
	SFRAME_STAT_TABLE_BYTES,
	SFRAME_STAT_TABLE_ROWS,
	SFRAME_STAT_KEPT,
	SFRAME_STAT_KEPT_BYTES,
	SFRAME_STAT_EH_FRAME_CONVERTED,
	SFRAME_STAT_EH_FRAME_STOPS,
	SFRAME_STAT_EH_FRAME_FILLED,
	SFRAME_STAT_EH_FRAME_BYTES,
	SFRAME_STAT_EH_FRAME_FP,
	SFRAME_STAT_REFUSED,
	SFRAME_STAT_NR
};

static const char *const sframe_stat_names[SFRAME_STAT_NR] = {
	[SFRAME_STAT_FILES_READ]	= "files_read",
	[SFRAME_STAT_REGISTERED]	= "registered",
	[SFRAME_STAT_VALIDATED]		= "validated",
	[SFRAME_STAT_VALIDATION_SHARED]	= "validation_shared",
	[SFRAME_STAT_DISCOVERIES]	= "discoveries",
	[SFRAME_STAT_TABLES]		= "tables",
	[SFRAME_STAT_TABLE_BYTES]	= "table_bytes",
	[SFRAME_STAT_TABLE_ROWS]	= "table_rows",
	[SFRAME_STAT_KEPT]		= "kept",
	[SFRAME_STAT_KEPT_BYTES]	= "kept_bytes",
	[SFRAME_STAT_EH_FRAME_CONVERTED] = "eh_frame_converted",
	[SFRAME_STAT_EH_FRAME_STOPS]	= "eh_frame_stop_rows",
	[SFRAME_STAT_EH_FRAME_FILLED]	= "eh_frame_filled",
	[SFRAME_STAT_EH_FRAME_BYTES]	= "eh_frame_bytes",
	[SFRAME_STAT_EH_FRAME_FP]	= "eh_frame_fp",
	[SFRAME_STAT_REFUSED]		= "refused",
};

static atomic_long_t sframe_stats[SFRAME_STAT_NR];

/*
 * Users of the call chains of every process: perf events that sample them
 * CPU-wide or for a privileged user (perfmon_capable()), BPF programs that
 * ask for stacks, and trace instances with the userstacktrace option set.
 * While there are none, mapping a file reads nothing from it, but in a
 * process that a perf event samples (SFRAME_MM_COLLECTED); the text a
 * process maps meanwhile is looked at when an unwind first needs it.
 */
static atomic_t sframe_collectors;

/**
 * sframe_collector_get() - note a new user of every process's call chains
 *
 * Called when a CPU-wide or privileged perf event that samples call
 * chains, or a BPF program that takes stacks, is set up, and when a trace
 * instance starts to record user stacks. From then on, SFrame sections
 * are found when their files are mapped, so that new processes have them
 * from their first sample.
 */
void sframe_collector_get(void)
{
	atomic_inc(&sframe_collectors);
}

/**
 * sframe_collector_put() - drop a user noted by sframe_collector_get()
 *
 * A put without its get is a bug of the caller: it warns, and the count
 * stays at zero rather than go negative and count as a user.
 */
void sframe_collector_put(void)
{
	WARN_ON_ONCE(atomic_dec_if_positive(&sframe_collectors) < 0);
}

/**
 * sframe_collector_task() - note a perf event that samples one task
 * @task:	the task it samples (and the tasks it will start)
 *
 * Called when a perf event of an unprivileged user that samples call
 * chains is set up for @task: from then on, the files that @task's mm and
 * the mms of its children and of the programs they exec map are read at
 * mmap, and those of no other process. What @task mapped before is looked
 * at when an unwind first needs it.
 */
void sframe_collector_task(struct task_struct *task)
{
	struct mm_struct *mm = get_task_mm(task);

	if (!mm)
		return;
	set_bit(SFRAME_MM_COLLECTED, &mm->sframe_flags);
	mmput(mm);
}

static void sframe_stat_add(enum sframe_stat stat, long n)
{
	atomic_long_add(n, &sframe_stats[stat]);
}

static void sframe_stat_inc(enum sframe_stat stat)
{
	sframe_stat_add(stat, 1);
}

/*
 * Files whose section is in an SFrame version this kernel does not know,
 * as far as they fit the table: said once per file, not at every mapping.
 */
static struct sframe_file_key sframe_unknown[1 << SFRAME_TABLES_BITS];

static u32 sframe_key_hash(const struct sframe_file_key *key)
{
	return hash_64(key->ino ^ key->off ^ ((u64)key->dev << 32),
		       SFRAME_TABLES_BITS);
}

static bool sframe_unknown_first(const struct sframe_file_key *key)
{
	struct sframe_file_key *slot;
	bool first;

	spin_lock(&sframe_tables_lock);
	slot = &sframe_unknown[sframe_key_hash(key)];
	first = memcmp(slot, key, sizeof(*key));
	*slot = *key;
	spin_unlock(&sframe_tables_lock);
	return first;
}

/*
 * The key of the section [@off, @off + @len) of @file, as stat() sees the
 * file: its device is that of its btrfs subvolume, say, not the super
 * block's.
 */
static int sframe_file_key(struct sframe_file_key *key, struct file *file,
			   u64 off, u64 len, u64 text_off, u64 text_size)
{
	struct kstat st;
	int ret;

	ret = vfs_getattr_nosec(&file->f_path, &st,
				STATX_BASIC_STATS | STATX_CHANGE_COOKIE,
				AT_STATX_SYNC_AS_STAT);
	if (ret)
		return ret;
	memset(key, 0, sizeof(*key));
	key->dev = st.dev;
	key->gen = file_inode(file)->i_generation;
	key->ino = st.ino;
	key->size = st.size;
	key->ctime_sec = st.ctime.tv_sec;
	key->ctime_nsec = st.ctime.tv_nsec;
	if (st.result_mask & STATX_CHANGE_COOKIE)
		key->cookie = st.change_cookie;
	key->off = off;
	key->len = len;
	key->text_off = text_off;
	key->text_size = text_size;
	return 0;
}

static void sframe_shared_free(struct sframe_shared *t)
{
	kvfree(t->mem);
	kmem_cache_free(sframe_shared_cache, t);
}

static void sframe_shared_free_rcu(struct rcu_head *rcu)
{
	sframe_shared_free(container_of(rcu, struct sframe_shared, rcu));
}

/* A reference to @t, in sframe_tables: a kept table is in use again. */
static void sframe_shared_get_locked(struct sframe_shared *t)
{
	lockdep_assert_held(&sframe_tables_lock);
	if (refcount_read(&t->ref)) {
		refcount_inc(&t->ref);
		return;
	}
	list_lru_del_obj(&sframe_kept, &t->lru);
	refcount_set(&t->ref, 1);
	sframe_stat_add(SFRAME_STAT_KEPT, -1);
	sframe_stat_add(SFRAME_STAT_KEPT_BYTES, -(long)t->size);
	sframe_stat_inc(SFRAME_STAT_TABLES);
	sframe_stat_add(SFRAME_STAT_TABLE_BYTES, t->size);
	sframe_stat_add(SFRAME_STAT_TABLE_ROWS, t->rules.nr_rows);
}

/* The table of @key in use or kept, with a reference, or NULL. */
static struct sframe_shared *sframe_shared_find(const struct sframe_file_key *key)
{
	struct sframe_shared *t;

	/* In use: no lock. Kept (no reference) or none: under the lock. */
	rcu_read_lock();
	hash_for_each_possible_rcu(sframe_tables, t, node,
				   sframe_key_hash(key)) {
		if (!memcmp(&t->key, key, sizeof(*key)) &&
		    refcount_inc_not_zero(&t->ref)) {
			rcu_read_unlock();
			return t;
		}
	}
	rcu_read_unlock();

	spin_lock(&sframe_tables_lock);
	hash_for_each_possible(sframe_tables, t, node, sframe_key_hash(key)) {
		if (!memcmp(&t->key, key, sizeof(*key))) {
			sframe_shared_get_locked(t);
			goto out;
		}
	}
	t = NULL;
out:
	spin_unlock(&sframe_tables_lock);
	return t;
}

/*
 * Offer the new table @t for sharing; if a table of the same file was
 * added meanwhile, return that one (with a reference) and free @t.
 */
static struct sframe_shared *sframe_shared_add(struct sframe_shared *t)
{
	struct sframe_shared *old;

	spin_lock(&sframe_tables_lock);
	hash_for_each_possible(sframe_tables, old, node,
			       sframe_key_hash(&t->key)) {
		if (!memcmp(&old->key, &t->key, sizeof(t->key))) {
			sframe_shared_get_locked(old);
			spin_unlock(&sframe_tables_lock);
			sframe_shared_free(t);
			return old;
		}
	}
	hash_add_rcu(sframe_tables, &t->node, sframe_key_hash(&t->key));
	sframe_stat_inc(SFRAME_STAT_TABLES);
	sframe_stat_add(SFRAME_STAT_TABLE_BYTES, t->size);
	sframe_stat_add(SFRAME_STAT_TABLE_ROWS, t->rules.nr_rows);
	spin_unlock(&sframe_tables_lock);
	return t;
}

/* More tables kept than SFRAME_KEPT_MAX and _MAX_BYTES allow? */
static bool sframe_kept_over(void)
{
	return list_lru_count(&sframe_kept) > SFRAME_KEPT_MAX ||
	       atomic_long_read(&sframe_stats[SFRAME_STAT_KEPT_BYTES]) >
	       SFRAME_KEPT_MAX_BYTES;
}

/*
 * Free the kept table @item, unless a mapping is taking it (or a table is
 * being kept) right now, or @bound is set and the kept tables are within
 * their bounds: called with the list's lock held.
 */
static enum lru_status sframe_kept_isolate(struct list_head *item,
					   struct list_lru_one *list,
					   void *bound)
{
	struct sframe_shared *t = container_of(item, struct sframe_shared, lru);

	if (bound && !sframe_kept_over()) {
		/* Stopping the walk drops the list's lock. */
		spin_unlock(&list->lock);
		return LRU_STOP;
	}
	if (!spin_trylock(&sframe_tables_lock))
		return LRU_SKIP;
	list_lru_isolate(list, item);
	hash_del_rcu(&t->node);
	sframe_stat_add(SFRAME_STAT_KEPT, -1);
	sframe_stat_add(SFRAME_STAT_KEPT_BYTES, -(long)t->size);
	spin_unlock(&sframe_tables_lock);
	/* Lookups that found it before its last registration went. */
	call_rcu(&t->rcu, sframe_shared_free_rcu);
	return LRU_REMOVED;
}

/* Free the oldest kept tables while there are too many. */
static void sframe_kept_trim(struct work_struct *work)
{
	list_lru_walk(&sframe_kept, sframe_kept_isolate, &sframe_kept,
		      list_lru_count(&sframe_kept));
}

static DECLARE_WORK(sframe_kept_trim_work, sframe_kept_trim);

static void sframe_shared_put(struct sframe_shared *t)
{
	bool kept;

	if (!t || !refcount_dec_and_lock(&t->ref, &sframe_tables_lock))
		return;
	sframe_stat_add(SFRAME_STAT_TABLES, -1);
	sframe_stat_add(SFRAME_STAT_TABLE_BYTES, -(long)t->size);
	sframe_stat_add(SFRAME_STAT_TABLE_ROWS, -(long)t->rules.nr_rows);
	kept = READ_ONCE(sframe_keep) &&
	       list_lru_add_obj(&sframe_kept, &t->lru);
	if (kept) {
		sframe_stat_inc(SFRAME_STAT_KEPT);
		sframe_stat_add(SFRAME_STAT_KEPT_BYTES, t->size);
	} else {
		hash_del_rcu(&t->node);
	}
	spin_unlock(&sframe_tables_lock);
	if (!kept) {
		call_rcu(&t->rcu, sframe_shared_free_rcu);
		return;
	}
	/* Not here: munmap puts tables under the mm's tree lock. */
	if (sframe_kept_over())
		schedule_work(&sframe_kept_trim_work);
}

static unsigned long sframe_kept_count(struct shrinker *shrink,
				       struct shrink_control *sc)
{
	return list_lru_shrink_count(&sframe_kept, sc);
}

static unsigned long sframe_kept_scan(struct shrinker *shrink,
				      struct shrink_control *sc)
{
	return list_lru_shrink_walk(&sframe_kept, sc, sframe_kept_isolate,
				    NULL);
}

static int __init sframe_kept_init(void)
{
	struct shrinker *shrink;

	sframe_shared_cache = KMEM_CACHE(sframe_shared,
					 SLAB_PANIC | SLAB_ACCOUNT);

	shrink = shrinker_alloc(SHRINKER_MEMCG_AWARE | SHRINKER_NUMA_AWARE,
				"sframe-tables");
	if (!shrink)
		return -ENOMEM;
	if (list_lru_init_memcg(&sframe_kept, shrink)) {
		shrinker_free(shrink);
		return -ENOMEM;
	}
	shrink->count_objects = sframe_kept_count;
	shrink->scan_objects = sframe_kept_scan;
	shrinker_register(shrink);
	WRITE_ONCE(sframe_keep, true);
	return 0;
}
subsys_initcall(sframe_kept_init);

static void sframe_put(struct sframe_section *sec)
{
	if (!refcount_dec_and_test(&sec->ref))
		return;
	/* Lookups that found @sec hold the table until the grace period. */
	sframe_shared_put(sec->shared);
	kfree_rcu(sec, rcu);
}

/*
 * Generations of the mms' registrations: each mm takes a range of 2^32
 * of them, and another when it used that up, so that no two mms ever
 * have the same one (a task's cached lookup is one of its mm's).
 */
static atomic64_t sframe_gens = ATOMIC64_INIT(0);

static u64 sframe_gen_new(void)
{
	return atomic64_add_return(BIT_ULL(32), &sframe_gens) + 1;
}

/*
 * The registrations of @mm changed: lookups cached before are stale. After
 * the change of the tree, before a section that left it is put: a walk
 * that still finds the old generation holds rcu_read_lock() from before
 * it was put.
 *
 * Context: the tree's writer (mmap_lock held for write, or for read with
 * SFRAME_MM_REGISTERING).
 */
static void sframe_gen_bump(struct mm_struct *mm)
{
	u64 gen = mm->sframe_gen + 1;

	if (!lower_32_bits(gen))
		gen = sframe_gen_new();
	/* After the tree: pairs with sframe_hint_user()'s load. */
	smp_store_release(&mm->sframe_gen, gen);
}

/*
 * Read from the page cache, as the mapping sees the file, and as uprobes
 * reads text: not a read of the file (that was checked at mmap), so no
 * permission hook, no access event, no atime or I/O accounting. Stops on
 * a fatal signal (-EINTR), and reschedules between pages.
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
		if (fatal_signal_pending(current))
			return -EINTR;
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
		cond_resched();
	}
	return 0;
}

/* Every allocation a file asks for: charged, and no warning if too big. */
#define SFRAME_GFP	(GFP_KERNEL_ACCOUNT | __GFP_NOWARN)

/*
 * Room for a table of @max_rows rows and @max_funcs functions: -E2BIG
 * beyond SFRAME_MAX_ROWS, whatever the section says.
 */
static int sframe_build_alloc(struct sframe_build *b, u32 max_rows,
			      u32 max_funcs)
{
	if (max_rows > SFRAME_MAX_ROWS || max_funcs > SFRAME_MAX_ROWS)
		return -E2BIG;
	b->max_rows = max_rows;
	b->max_funcs = max_funcs;
	b->hash_bits = sframe_hash_bits(max_rows);
	b->pc = kvmalloc_array(max_rows, sizeof(*b->pc), SFRAME_GFP);
	b->rule = kvmalloc_array(max_rows, sizeof(*b->rule), SFRAME_GFP);
	b->rules = kvmalloc_array(min_t(u32, max_rows, SFRAME_RULES_MAX),
				  sizeof(*b->rules), SFRAME_GFP);
	b->hash = kvcalloc(1U << b->hash_bits, sizeof(*b->hash), SFRAME_GFP);
	b->funcs = kvmalloc_array(max_t(u32, max_funcs, 1), sizeof(*b->funcs),
				  SFRAME_GFP);
	if (!b->pc || !b->rule || !b->rules || !b->hash || !b->funcs)
		return -ENOMEM;
	return 0;
}

static void sframe_build_free(struct sframe_build *b)
{
	kvfree(b->pc);
	kvfree(b->rule);
	kvfree(b->rules);
	kvfree(b->hash);
	kvfree(b->funcs);
}

/* The shared table, for @key, of what the build @b left. */
static int sframe_shared_new(const struct sframe_build *b,
			     const struct sframe_file_key *key,
			     u64 text_size, struct sframe_shared **tp)
{
	struct sframe_shared *t;
	u32 nr_blocks;
	size_t size;
	u8 shift;

	size = sframe_rules_size(b, &nr_blocks, &shift);
	/* With the kept list of the memory cgroup it is charged to. */
	t = kmem_cache_alloc_lru(sframe_shared_cache, &sframe_kept,
				 GFP_KERNEL_ACCOUNT);
	if (!t)
		return -ENOMEM;
	t->mem = kvmalloc(size, SFRAME_GFP);
	if (!t->mem) {
		kmem_cache_free(sframe_shared_cache, t);
		return -ENOMEM;
	}
	t->key = *key;
	refcount_set(&t->ref, 1);
	INIT_LIST_HEAD(&t->lru);
	t->size = size_add(size, sizeof(*t));
	sframe_rules_fill(&t->rules, t->mem, text_size, b, nr_blocks, shift);
	t->rules.fp_only = b->fp_only;
	*tp = t;
	return 0;
}

/*
 * Where a file's .eh_frame is: its program headers, the PT_GNU_EH_FRAME
 * one (@ph), or where there is none (static programs), the .eh_frame
 * section (@eh_off, @eh_addr, @eh_size: file offset, address, size), and
 * the text of the file's address space [@lo, @hi).
 */
struct sframe_eh_src {
	const struct elf64_phdr	*phdrs;
	unsigned int		phnum;
	const struct elf64_phdr	*ph;
	u64			eh_off;
	u64			eh_addr;
	u64			eh_size;
	u64			lo;
	u64			hi;
};

#ifdef CONFIG_UNWIND_USER_EH_FRAME

/*
 * The conversion of an .eh_frame into the build @b, as text offsets from
 * @lo, but for the functions that the table @base gives rules, if any.
 * It also finds whether every row has a rule that code keeping frame
 * pointers may have (@not_fp clear: see sframe_eh_fp_kept()).
 */
struct sframe_eh_pass {
	struct sframe_build		*b;
	const struct sframe_build	*base;
	u64				lo;
	bool				not_fp;
};

/*
 * Room in the build @b for two more rows (one may close a function) and,
 * with @func, one more function: the room doubles when full, up to
 * %SFRAME_MAX_ROWS of each, so that a conversion needs no pass to count
 * them first. The rules' hash table grows with the room (sframe_hash_bits()).
 */
static int sframe_build_room(struct sframe_build *b, bool func)
{
	u32 max, rules;
	u8 bits;
	void *p;

	if (func && b->nr_funcs >= b->max_funcs) {
		max = min_t(u32, 2 * b->max_funcs, SFRAME_MAX_ROWS);
		if (max <= b->nr_funcs)
			return -E2BIG;
		p = kvrealloc(b->funcs, max * sizeof(*b->funcs), SFRAME_GFP);
		if (!p)
			return -ENOMEM;
		b->funcs = p;
		b->max_funcs = max;
	}
	if (b->asked + 2 <= b->max_rows)
		return 0;
	max = min_t(u32, 2 * b->max_rows, SFRAME_MAX_ROWS);
	/* The bound on the work: sframe_row_add() fails beyond it. */
	if (max <= b->max_rows)
		return 0;
	p = kvrealloc(b->pc, max * sizeof(*b->pc), SFRAME_GFP);
	if (!p)
		return -ENOMEM;
	b->pc = p;
	p = kvrealloc(b->rule, max * sizeof(*b->rule), SFRAME_GFP);
	if (!p)
		return -ENOMEM;
	b->rule = p;
	rules = min_t(u32, max, SFRAME_RULES_MAX);
	p = kvrealloc(b->rules, rules * sizeof(*b->rules), SFRAME_GFP);
	if (!p)
		return -ENOMEM;
	b->rules = p;
	bits = sframe_hash_bits(max);
	if (bits != b->hash_bits) {
		p = kvcalloc(1U << bits, sizeof(*b->hash), SFRAME_GFP);
		if (!p)
			return -ENOMEM;
		kvfree(b->hash);
		b->hash = p;
		b->hash_bits = bits;
		sframe_build_rehash(b);
	}
	b->max_rows = max;
	return 0;
}

/*
 * May code that keeps frame pointers have the rule @f: the frame pointer
 * walk's, or one of where such code makes no call, the CFA at the stack
 * pointer plus at most three words and the frame pointer, if saved, where
 * a frame record keeps it (a function's first and last instructions,
 * before its frame record is made and after it is left; .plt entries),
 * or the outermost frame's (at a program's entry)? A file of functions
 * that call with no more than two words on the stack and no frame record
 * would pass too: its callers' frames then get the frame pointer walk's
 * rule, as perf's frame pointer walk gives them.
 * Only where a call pushes the return address (x86): elsewhere the frame
 * record's place in a frame varies.
 */
static bool sframe_eh_fp_kept(const struct unwind_user_frame *f)
{
	static const struct unwind_user_frame fp = {
		ARCH_INIT_USER_FP_FRAME((int)sizeof(long))
	};

	if (!ARCH_UNWIND_USER_CALL_PUSHES_RA)
		return false;
	if (f->outermost)
		return true;
	if (f->signal || f->flags || f->ra_signed || !f->ra_saved ||
	    f->ra_off != fp.ra_off || (f->fp_saved && f->fp_off != fp.fp_off))
		return false;
	if (f->use_fp)
		return f->cfa_off == fp.cfa_off && f->fp_saved;
	return f->cfa_off > 0 && f->cfa_off <= 3 * (s32)sizeof(long);
}

static int sframe_eh_func(void *ctx, u64 start, u64 end)
{
	struct sframe_eh_pass *p = ctx;

	if (p->base && !sframe_build_no_rule(p->base, start - p->lo,
					     end - p->lo))
		return EH_FRAME_SKIP;
	return sframe_build_room(p->b, true) ?:
	       sframe_build_func(p->b, start - p->lo, end - p->lo);
}

static int sframe_eh_row(void *ctx, u64 pc,
			 const struct unwind_user_frame *frame)
{
	/* A rule the table cannot hold ends the walk there: no guess. */
	static const struct unwind_user_frame stop = { .outermost = true };
	struct sframe_eh_pass *p = ctx;

	if (!frame || !sframe_eh_fp_kept(frame))
		p->not_fp = true;
	return sframe_build_room(p->b, false) ?:
	       sframe_build_row(p->b, pc - p->lo, frame ?: &stop);
}

/* Rows and functions a conversion's build has room for at first. */
#define SFRAME_EH_ROWS_FIRST		256

/*
 * Convert the .eh_frame that @in describes into the build @b, which it
 * allocates, but for the functions the finished build @base gives rules,
 * if @base is set, in one pass: the build's room grows as rows come. A
 * table of code that keeps frame pointers is marked so (see struct
 * sframe_rules).
 */
static int sframe_eh_convert(const struct eh_frame_input *in,
			     const struct sframe_build *base,
			     struct sframe_build *b)
{
	struct sframe_eh_pass pass = {
		.b = b, .base = base, .lo = in->text_start,
	};
	struct eh_frame_sink sink = {
		.func = sframe_eh_func,
		.row = sframe_eh_row,
		.ctx = &pass,
	};
	struct eh_frame_stats stats;
	int ret;

	ret = sframe_build_alloc(b, SFRAME_EH_ROWS_FIRST,
				 SFRAME_EH_ROWS_FIRST);
	if (ret)
		return ret;
	ret = eh_frame_convert(in, &sink, &stats);
	sframe_stat_add(SFRAME_STAT_EH_FRAME_BYTES, stats.bytes);
	if (!ret)
		ret = sframe_build_end(b);
	if (!ret)
		sframe_stat_add(SFRAME_STAT_EH_FRAME_STOPS, stats.bad_rows);
	if (!ret && !base && b->nr_funcs && !pass.not_fp) {
		b->fp_only = true;
		sframe_stat_inc(SFRAME_STAT_EH_FRAME_FP);
	}
	return ret;
}

/*
 * Give the text that the finished build @b of a .sframe section gives no
 * rule the rows of the FDEs of @in there: @b is replaced by the merged
 * build. Code the assembler was not asked for SFrame data of (the C
 * run-time's start files, hand-written assembly) has .eh_frame all the
 * same.
 */
static int sframe_eh_fill(const struct eh_frame_input *in,
			  struct sframe_build *b)
{
	struct sframe_build e = {}, m = {};
	int ret;

	ret = sframe_eh_convert(in, b, &e);
	if (!ret && e.nr_funcs) {
		ret = sframe_build_alloc(&m, b->nr_rows + e.nr_rows,
					 b->nr_funcs + e.nr_funcs) ?:
		      sframe_build_merge(&m, b, &e);
		if (!ret) {
			swap(*b, m);
			sframe_stat_inc(SFRAME_STAT_EH_FRAME_FILLED);
		}
	}
	sframe_build_free(&m);
	sframe_build_free(&e);
	return ret;
}

/*
 * Set up @in for the .eh_frame_hdr that @src says, but for the pointers
 * to the sections' copies: where .eh_frame starts, from @hdr's first 8
 * bytes, and its size, to the end of the read-only segment that holds it
 * (its FDEs are found through the index), and set *@off to its file
 * offset.
 */
static int sframe_eh_locate(const struct sframe_eh_src *src, const u8 *hdr,
			    struct eh_frame_input *in, u64 *off)
{
	const struct elf64_phdr *ph = src->ph, *load = NULL;
	unsigned int i;
	s32 rel;

	*in = (struct eh_frame_input) {
		.hdr_size = ph->p_filesz,
		.hdr_addr = ph->p_vaddr,
		.text_start = src->lo,
		.text_end = src->hi,
		.arch = ARCH_SFRAME_ELF_MACHINE,
	};
	/* eh_frame_ptr, pc-relative sdata4: eh_frame_convert() checks it. */
	memcpy(&rel, hdr + 4, sizeof(rel));
	in->eh_addr = ph->p_vaddr + 4 + rel;
	for (i = 0; i < src->phnum; i++) {
		const struct elf64_phdr *l = &src->phdrs[i];

		if (l->p_type == PT_LOAD && !(l->p_flags & PF_W) &&
		    in->eh_addr >= l->p_vaddr &&
		    in->eh_addr - l->p_vaddr < l->p_filesz)
			load = l;
	}
	if (!load)
		return -EINVAL;
	in->eh_size = min_t(u64, load->p_vaddr + load->p_filesz - in->eh_addr,
			    SFRAME_MAX_SECTION_SIZE);
	*off = load->p_offset + (in->eh_addr - load->p_vaddr);
	return 0;
}

/*
 * Read the .eh_frame_hdr and .eh_frame of @file that @src says into
 * @in, allocated here (sframe_eh_release() frees them).
 */
static int sframe_eh_read(struct file *file, const struct sframe_eh_src *src,
			  struct eh_frame_input *in)
{
	const struct elf64_phdr *ph = src->ph;
	u8 *hdr, *eh;
	u64 off;
	int ret;

	if (src->hi - src->lo > U32_MAX)
		return -EINVAL;
	if (!ph) {
		if (src->eh_size > SFRAME_MAX_SECTION_SIZE)
			return -E2BIG;
		/* No .eh_frame_hdr: index the section's records. */
		*in = (struct eh_frame_input) {
			.eh_size = src->eh_size,
			.eh_addr = src->eh_addr,
			.text_start = src->lo,
			.text_end = src->hi,
			.arch = ARCH_SFRAME_ELF_MACHINE,
		};
		eh = kvmalloc(in->eh_size, SFRAME_GFP);
		if (!eh)
			return -ENOMEM;
		in->eh = eh;
		return sframe_file_read(file, eh, in->eh_size, src->eh_off) ?:
		       eh_frame_index(in);
	}
	if (ph->p_filesz < 8)
		return -EINVAL;
	if (ph->p_filesz > SFRAME_MAX_SECTION_SIZE)
		return -E2BIG;
	hdr = kvmalloc(ph->p_filesz, SFRAME_GFP);
	if (!hdr)
		return -ENOMEM;
	ret = sframe_file_read(file, hdr, ph->p_filesz, ph->p_offset) ?:
	      sframe_eh_locate(src, hdr, in, &off);
	in->hdr = hdr;
	if (ret)
		return ret;
	eh = kvmalloc(in->eh_size, SFRAME_GFP);
	if (!eh)
		return -ENOMEM;
	in->eh = eh;
	return sframe_file_read(file, eh, in->eh_size, off);
}

static void sframe_eh_release(struct eh_frame_input *in)
{
	kvfree(in->eh);
	kvfree(in->hdr);
	in->eh = NULL;
	in->hdr = NULL;
}

/*
 * The table of the .eh_frame of @file that @src says, for @key: one in
 * use, shared, or a new one, converted from copies of its sections read
 * from the page cache.
 */
static int sframe_eh_shared_get(struct file *file,
				const struct sframe_eh_src *src,
				const struct sframe_file_key *key,
				struct sframe_shared **tp)
{
	struct eh_frame_input in = {};
	struct sframe_build b = {};
	struct sframe_shared *t;
	int ret;

	t = sframe_shared_find(key);
	if (t) {
		sframe_stat_inc(SFRAME_STAT_VALIDATION_SHARED);
		*tp = t;
		return 0;
	}
	ret = sframe_eh_read(file, src, &in) ?:
	      sframe_eh_convert(&in, NULL, &b) ?:
	      sframe_shared_new(&b, key, src->hi - src->lo, &t);
	sframe_build_free(&b);
	sframe_eh_release(&in);
	if (ret)
		return ret;
	sframe_stat_inc(SFRAME_STAT_VALIDATED);
	sframe_stat_inc(SFRAME_STAT_EH_FRAME_CONVERTED);
	*tp = sframe_shared_add(t);
	return 0;
}

#ifdef arch_unwind_user_vdso_base

/*
 * The table of the vDSO's .eh_frame, converted once at boot from the
 * kernel's image of it: the same for every task that maps it. The vDSO
 * is no file, so it is never registered: sframe_hint_user() finds it
 * where a task has its vDSO (arch_unwind_user_vdso_base()). Never freed.
 */
static const struct sframe_rules *sframe_vdso_rules __ro_after_init;
/* The vDSO's text offset 0, from the start of its image. */
static unsigned long sframe_vdso_lo __ro_after_init;

static int __init sframe_vdso_init(void)
{
	const struct elf64_phdr *phdrs, *ph;
	struct sframe_eh_src src = { .lo = U64_MAX };
	struct eh_frame_input in = {};
	const struct elf64_hdr *ehdr;
	struct sframe_file_key key = {};
	struct sframe_build b = {};
	struct sframe_shared *t;
	const u8 *image;
	size_t size;
	unsigned int i;
	u64 off;
	int ret;

	arch_unwind_user_vdso_image((const void **)&image, &size);
	ehdr = (const void *)image;
	if (size < sizeof(*ehdr) || memcmp(ehdr->e_ident, ELFMAG, SELFMAG) ||
	    ehdr->e_phentsize != sizeof(*phdrs) || ehdr->e_phoff > size ||
	    ehdr->e_phnum > (size - ehdr->e_phoff) / sizeof(*phdrs))
		return -EINVAL;
	phdrs = (const void *)(image + ehdr->e_phoff);
	for (i = 0; i < ehdr->e_phnum; i++) {
		ph = &phdrs[i];
		if (ph->p_type == PT_GNU_EH_FRAME)
			src.ph = ph;
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		src.lo = min(src.lo, ph->p_vaddr);
		src.hi = max(src.hi, ph->p_vaddr + ph->p_memsz);
	}
	src.phdrs = phdrs;
	src.phnum = ehdr->e_phnum;
	ph = src.ph;
	if (!ph || src.lo >= src.hi || src.hi - src.lo > size ||
	    ph->p_filesz < 8 || ph->p_offset > size ||
	    ph->p_filesz > size - ph->p_offset)
		return -EINVAL;
	ret = sframe_eh_locate(&src, image + ph->p_offset, &in, &off);
	if (ret)
		return ret;
	if (off > size || in.eh_size > size - off)
		return -EINVAL;
	in.hdr = image + ph->p_offset;
	in.eh = image + off;
	ret = sframe_eh_convert(&in, NULL, &b) ?:
	      sframe_shared_new(&b, &key, src.hi - src.lo, &t);
	sframe_build_free(&b);
	if (ret) {
		pr_warn("vDSO: .eh_frame not converted (%d), its frames are unwound with frame pointers\n",
			ret);
		return ret;
	}
	sframe_vdso_lo = src.lo;
	sframe_vdso_rules = &t->rules;
	return 0;
}
late_initcall(sframe_vdso_init);

/*
 * The vDSO's table, and in *@base where its text is, if @ip is in the
 * current task's vDSO; else NULL.
 */
static const struct sframe_rules *sframe_vdso_table(struct mm_struct *mm,
						    unsigned long ip,
						    unsigned long *base)
{
	const struct sframe_rules *r = sframe_vdso_rules;

	if (!r || !sframe_eh_frame_enabled() ||
	    !arch_unwind_user_vdso_base(mm, base))
		return NULL;
	*base += sframe_vdso_lo;
	return ip - *base < r->text_size ? r : NULL;
}

#endif /* arch_unwind_user_vdso_base */

#else /* !CONFIG_UNWIND_USER_EH_FRAME */

static int sframe_eh_fill(const struct eh_frame_input *in,
			  struct sframe_build *b)
{
	return 0;
}

static int sframe_eh_read(struct file *file, const struct sframe_eh_src *src,
			  struct eh_frame_input *in)
{
	return -EOPNOTSUPP;
}

static void sframe_eh_release(struct eh_frame_input *in)
{
}

static int sframe_eh_shared_get(struct file *file,
				const struct sframe_eh_src *src,
				const struct sframe_file_key *key,
				struct sframe_shared **tp)
{
	return -EOPNOTSUPP;
}

#endif /* CONFIG_UNWIND_USER_EH_FRAME */

#if !defined(CONFIG_UNWIND_USER_EH_FRAME) || !defined(arch_unwind_user_vdso_base)
static const struct sframe_rules *sframe_vdso_table(struct mm_struct *mm,
						    unsigned long ip,
						    unsigned long *base)
{
	return NULL;
}
#endif

/*
 * Build the table of the section @data, @key->len bytes long: validate it
 * and decode its rules. The text is placed relative to the copy as the
 * file places it relative to the section.
 * With @eh, the text the section does not describe takes the rows of
 * that .eh_frame, where it can.
 */
static int sframe_shared_build(const void *data,
			       const struct sframe_file_key *key,
			       const struct eh_frame_input *eh,
			       struct sframe_shared **tp)
{
	unsigned long sec = (unsigned long)data;
	struct sframe_build b = {};
	struct sframe_table tbl;
	u32 max_rows;
	int ret;

	ret = sframe_table_init(&tbl, data, key->len, sec, key->len,
				sec - key->text_off,
				sec - key->text_off + key->text_size,
				ARCH_SFRAME_ABI);
	if (ret)
		return ret;
	/* Room for the rows the descriptors say, bounded by the section. */
	ret = sframe_table_rows(&tbl, &max_rows) ?:
	      sframe_build_alloc(&b, max_rows, tbl.num_fdes) ?:
	      sframe_table_build(&tbl, &b);
	/* The section alone if .eh_frame cannot fill it (but for a kill). */
	if (!ret && eh && sframe_eh_fill(eh, &b) == -EINTR)
		ret = -EINTR;
	if (!ret)
		ret = sframe_shared_new(&b, key, tbl.text_end - tbl.text_start,
					tp);
	sframe_build_free(&b);
	return ret;
}

/*
 * The table of the section @ph of @file, whose key is @key: one in use,
 * shared, or a new one, built from a copy of the section read from the
 * page cache (freed once the table is built).
 * With @eh, from the .eh_frame that it says too.
 */
static int sframe_shared_get(struct file *file, const struct elf64_phdr *ph,
			     const struct sframe_file_key *key,
			     const struct sframe_eh_src *eh,
			     struct sframe_shared **tp)
{
	struct eh_frame_input in = {};
	struct sframe_shared *t;
	void *data;
	int ret;

	t = sframe_shared_find(key);
	if (t) {
		sframe_stat_inc(SFRAME_STAT_VALIDATION_SHARED);
		*tp = t;
		return 0;
	}

	data = kvmalloc(key->len, SFRAME_GFP);
	if (!data)
		return -ENOMEM;
	ret = sframe_file_read(file, data, key->len, ph->p_offset);
	/* Without .eh_frame if it cannot be read (but for a kill). */
	if (!ret && eh) {
		ret = sframe_eh_read(file, eh, &in);
		if (ret)
			sframe_eh_release(&in);
		if (ret != -EINTR)
			ret = 0;
	}
	if (!ret)
		ret = sframe_shared_build(data, key, in.eh ? &in : NULL, &t);
	sframe_eh_release(&in);
	kvfree(data);
	if (ret)
		return ret;
	sframe_stat_inc(SFRAME_STAT_VALIDATED);
	*tp = sframe_shared_add(t);
	return 0;
}

/*
 * Is [start, start + size) inside a read-only PT_LOAD segment? If so, set
 * *@off, if given, to its file offset.
 */
static bool sframe_in_readonly_load(const struct elf64_phdr *phdrs,
				    unsigned int phnum, u64 start, u64 size,
				    u64 *off)
{
	unsigned int i;

	for (i = 0; i < phnum; i++) {
		const struct elf64_phdr *ph = &phdrs[i];

		if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W))
			continue;
		if (start >= ph->p_vaddr && size <= ph->p_filesz &&
		    start - ph->p_vaddr <= ph->p_filesz - size) {
			if (off)
				*off = ph->p_offset + (start - ph->p_vaddr);
			return true;
		}
	}
	return false;
}

/* A table not built for a bound (-E2BIG): said, rate-limited. */
static void sframe_refused(struct file *file, const char *what, int err)
{
	sframe_stat_inc(SFRAME_STAT_REFUSED);
	pr_warn_ratelimited("%s[%d]: %pD: %s too large for a table (%d), its frames end call chains\n",
			    current->comm, task_pid_nr(current), file, what,
			    err);
}

/*
 * Find .eh_frame through the section headers of @file, read from the page
 * cache like its program headers, where no PT_GNU_EH_FRAME says where it
 * is: gcc links static programs without .eh_frame_hdr. Sets @src's
 * eh_off, eh_addr and eh_size. It must lie in a read-only PT_LOAD.
 */
static int sframe_eh_section(struct file *file, const struct elf64_hdr *ehdr,
			     struct sframe_eh_src *src)
{
	static const char want[] = ".eh_frame";
	const struct elf64_shdr *str, *sh;
	struct elf64_shdr *shdrs;
	char name[sizeof(want)];
	unsigned int i;
	int ret;

	if (ehdr->e_shentsize != sizeof(*shdrs) || !ehdr->e_shnum ||
	    ehdr->e_shnum > SFRAME_MAX_SHNUM ||
	    ehdr->e_shstrndx >= ehdr->e_shnum)
		return -ENOENT;
	shdrs = kmalloc_array(ehdr->e_shnum, sizeof(*shdrs), GFP_KERNEL);
	if (!shdrs)
		return -ENOMEM;
	ret = sframe_file_read(file, shdrs, ehdr->e_shnum * sizeof(*shdrs),
			       ehdr->e_shoff);
	if (ret)
		goto out;
	str = &shdrs[ehdr->e_shstrndx];
	ret = -ENOENT;
	for (i = 0; i < ehdr->e_shnum; i++) {
		sh = &shdrs[i];
		if (!(sh->sh_flags & SHF_ALLOC) || sh->sh_type == SHT_NOBITS ||
		    sh->sh_name >= str->sh_size ||
		    str->sh_size - sh->sh_name < sizeof(name) ||
		    str->sh_offset > S64_MAX - sh->sh_name ||
		    sframe_file_read(file, name, sizeof(name),
				     str->sh_offset + sh->sh_name) ||
		    memcmp(name, want, sizeof(want)))
			continue;
		if (!sh->sh_size ||
		    !sframe_in_readonly_load(src->phdrs, src->phnum,
					     sh->sh_addr, sh->sh_size,
					     &src->eh_off))
			break;
		src->eh_addr = sh->sh_addr;
		src->eh_size = sh->sh_size;
		ret = 0;
		break;
	}
out:
	kfree(shdrs);
	return ret;
}

/*
 * Read the ELF program headers of @file and set up a registration for its
 * PT_GNU_SFRAME segment, as mapped by the text mapping [@addr, @addr + @len)
 * at file page @pgoff, with the section's table. The section may describe
 * every executable segment of the file; @start and @end are set to the
 * part of the mapping that holds the one it maps.
 */
static struct sframe_section *
sframe_section_from_file(struct file *file, unsigned long addr,
			 unsigned long len, unsigned long pgoff,
			 unsigned long *start, unsigned long *end)
{
	const struct elf64_phdr *sframe = NULL, *text = NULL;
	const struct elf64_phdr *eh = NULL;
	u64 eh_off = 0, eh_len = 0, eh_addr = 0;
	struct sframe_eh_src src;
	bool have_eh;
	unsigned long bias, text_start, text_end;
	u64 off = (u64)pgoff << PAGE_SHIFT, lo = U64_MAX, hi = 0;
	struct sframe_shared *shared = NULL;
	struct sframe_section *sec = NULL;
	struct sframe_file_key key;
	struct sframe_header hdr;
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
		if (ph->p_type == PT_GNU_EH_FRAME)
			eh = ph;
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
	if (!text)
		goto out;
	src = (struct sframe_eh_src) {
		.phdrs = phdrs, .phnum = ehdr.e_phnum, .ph = eh,
		.lo = lo, .hi = hi,
	};
	if (!sframe_eh_frame_enabled()) {
		have_eh = false;
	} else if (eh) {
		have_eh = true;
		eh_off = eh->p_offset;
		eh_len = eh->p_filesz;
		eh_addr = eh->p_vaddr;
	} else {
		/* A static program: .eh_frame without .eh_frame_hdr. */
		have_eh = !sframe_eh_section(file, &ehdr, &src);
		eh_off = src.eh_off;
		eh_len = src.eh_size;
		eh_addr = src.eh_addr;
	}
	if (!sframe && !have_eh)
		goto out;

	/* The load bias that puts file offset @off at @addr. */
	bias = addr - off + text->p_offset - text->p_vaddr;
	text_start = max(addr, (unsigned long)(bias + text->p_vaddr));
	text_end = min(addr + len,
		       (unsigned long)(bias + text->p_vaddr + text->p_memsz));
	if (text_start >= text_end)
		goto out;

	/* .eh_frame alone where there is no .sframe */
	if (!sframe) {
		ret = sframe_file_key(&key, file, eh_off, eh_len,
				      eh_addr - lo, hi - lo) ?:
		      sframe_eh_shared_get(file, &src, &key, &shared);
		if (ret == -E2BIG) {
			sframe_refused(file, ".eh_frame", ret);
		} else if (ret == -ENOMEM) {
			pr_warn_ratelimited("%s[%d]: %pD: no table for .eh_frame (%d), its frames end call chains\n",
					    current->comm, task_pid_nr(current),
					    file, ret);
		} else if (ret) {
			if (ret != -EINTR)
				pr_warn_ratelimited("%s[%d]: %pD: .eh_frame not converted (%d), ignored\n",
						    current->comm,
						    task_pid_nr(current), file,
						    ret);
			goto out;
		}
		goto add;
	}

	ret = -EINVAL;
	if (sframe->p_filesz != sframe->p_memsz ||
	    sframe->p_memsz < sizeof(hdr) ||
	    !sframe_in_readonly_load(phdrs, ehdr.e_phnum, sframe->p_vaddr,
				     sframe->p_memsz, NULL))
		goto bad;
	if (sframe->p_memsz > SFRAME_MAX_SECTION_SIZE) {
		sframe_refused(file, "SFrame section", -E2BIG);
		goto add;
	}

	ret = sframe_file_read(file, &hdr, sizeof(hdr), sframe->p_offset);
	if (ret)
		goto bad;

	ret = sframe_file_key(&key, file, sframe->p_offset, sframe->p_filesz,
			      sframe->p_vaddr - lo, hi - lo);
	if (ret)
		goto out;
	key.variant = have_eh;
	ret = sframe_shared_get(file, sframe, &key, have_eh ? &src : NULL,
				&shared);
	/* Too large for a table, or no memory: walks end at its frames. */
	if (ret == -E2BIG)
		sframe_refused(file, "SFrame section", ret);
	else if (ret == -ENOMEM)
		pr_warn_ratelimited("%s[%d]: %pD: no table for the SFrame section (%d), its frames end call chains\n",
				    current->comm, task_pid_nr(current), file,
				    ret);
	else if (ret)
		goto bad;

add:
	sec = kzalloc_obj(*sec, GFP_KERNEL_ACCOUNT);
	if (!sec) {
		sframe_shared_put(shared);
		goto out;
	}
	sec->shared = shared;
	sec->base = bias + lo;
	sec->inode = file_inode(file);
	refcount_set(&sec->ref, 1);
	*start = text_start;
	*end = text_end;
	goto out;

bad:
	/* A newer format is not an error of the file's: said once. */
	if (ret == -EOPNOTSUPP) {
		if (!sframe_file_key(&key, file, sframe->p_offset,
				     sframe->p_filesz, 0, 0) &&
		    sframe_unknown_first(&key))
			pr_info("%pD: SFrame version %u not supported, ignored\n",
				file, hdr.preamble.version);
	} else if (ret != -EINTR) {
		pr_warn_ratelimited("%s[%d]: %pD: invalid PT_GNU_SFRAME (%d), ignored\n",
				    current->comm, task_pid_nr(current), file,
				    ret);
	}
out:
	kfree(phdrs);
	return sec;
}

/* Two registrations for the same text of the same file, at one place. */
static bool sframe_same(const struct sframe_section *a,
			const struct sframe_section *b)
{
	return a->inode == b->inode && a->shared == b->shared &&
	       a->base == b->base;
}

/* The bytes of the table of @sec, for its mm's SFRAME_MM_MAX_BYTES. */
static size_t sframe_section_bytes(const struct sframe_section *sec)
{
	return sec->shared ? sec->shared->size : 0;
}

/* Is @sec's table of code that keeps frame pointers (struct sframe_rules)? */
static bool sframe_section_fp(const struct sframe_section *sec)
{
	return sec->shared && sec->shared->rules.fp_only;
}

/*
 * Register @sec for the text [@start, @end), or extend the registration of
 * an adjacent piece of the same text to it. Returns the section now
 * registered there, or an ERR_PTR(); @sec is the caller's to put unless it
 * is returned. A new registration whose table would take the mm's
 * tables over SFRAME_MM_MAX_BYTES is made without it (*@over set).
 *
 * Context: mmap_lock held for read, and SFRAME_MM_REGISTERING: no other
 * task changes the tree (munmap and fork hold mmap_lock for write).
 */
static struct sframe_section *
sframe_mm_insert(struct mm_struct *mm, struct sframe_section *sec,
		 unsigned long start, unsigned long end, bool *over)
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
	    mm->sframe_nr >= (unsigned int)get_sysctl_max_map_count()) {
		reg = ERR_PTR(-ENOSPC);
		goto unlock;
	}
	if (reg == sec && sframe_section_bytes(sec) >
	    SFRAME_MM_MAX_BYTES - min(mm->sframe_bytes, SFRAME_MM_MAX_BYTES)) {
		/* Not seen by anyone yet: a walk ends at its frames. */
		sframe_shared_put(sec->shared);
		sec->shared = NULL;
		*over = true;
	}

	mas_set_range(&mas, lo, hi);
	ret = mas_store_gfp(&mas, reg, GFP_KERNEL_ACCOUNT);
	if (ret) {
		/* Nothing was stored: the tree is as it was. */
		reg = ERR_PTR(ret);
		goto unlock;
	}
	sframe_gen_bump(mm);
	if (reg == sec) {
		mm->sframe_nr++;
		mm->sframe_bytes += sframe_section_bytes(sec);
		if (sframe_section_fp(sec))
			mm->sframe_nr_fp++;
	}
	/* The text between two registrations of one section joined them. */
	if (left && right && right != left) {
		mm->sframe_nr--;
		mm->sframe_bytes -= sframe_section_bytes(right);
		if (sframe_section_fp(right))
			mm->sframe_nr_fp--;
		sframe_put(right);
	}
unlock:
	mtree_unlock(&mm->sframe_mt);
	return reg;
}

/*
 * Read the ELF program headers of @file and, if they have a PT_GNU_SFRAME
 * segment, register it, with its table, for the part of the current
 * task's mapping [@addr, @addr + @len) at file page @pgoff that holds an
 * executable segment, if that is still the file's mapping.
 */
static void sframe_register(struct file *file, unsigned long addr,
			    unsigned long len, unsigned long pgoff)
{
	struct mm_struct *mm = current->mm;
	struct sframe_section *sec, *reg;
	struct vm_area_struct *vma;
	unsigned long start, end;
	unsigned int nr;
	bool over = false;

	if (!S_ISREG(file_inode(file)->i_mode))
		return;

	sec = sframe_section_from_file(file, addr, len, pgoff, &start, &end);
	if (!sec)
		return;

	/*
	 * mmap_lock for read keeps the mapping, and the tree's other writers
	 * (munmap, fork), away; the bit keeps other registrations away.
	 */
	if (mmap_read_lock_killable(mm)) {
		sframe_put(sec);
		return;
	}
	if (wait_on_bit_lock(&mm->sframe_flags, SFRAME_MM_REGISTERING,
			     TASK_KILLABLE)) {
		mmap_read_unlock(mm);
		sframe_put(sec);
		return;
	}
	/* Another thread may have replaced the mapping meanwhile. */
	reg = ERR_PTR(-ENOENT);
	vma = vma_lookup(mm, start);
	if (vma && (vma->vm_flags & VM_EXEC) && vma->vm_file &&
	    file_inode(vma->vm_file) == sec->inode && end <= vma->vm_end &&
	    vma->vm_pgoff + ((start - vma->vm_start) >> PAGE_SHIFT) ==
	    pgoff + ((start - addr) >> PAGE_SHIFT))
		reg = sframe_mm_insert(mm, sec, start, end, &over);
	if (reg == sec)
		sframe_stat_inc(SFRAME_STAT_REGISTERED);
	nr = mm->sframe_nr;
	clear_and_wake_up_bit(SFRAME_MM_REGISTERING, &mm->sframe_flags);
	mmap_read_unlock(mm);

	if (reg == ERR_PTR(-ENOSPC))
		pr_warn_ratelimited("%s[%d]: %pD: more than %u SFrame sections (vm.max_map_count), not registered\n",
				    current->comm, task_pid_nr(current), file,
				    nr);
	if (over) {
		sframe_stat_inc(SFRAME_STAT_REFUSED);
		pr_warn_ratelimited("%s[%d]: %pD: the process's tables would take more than %lu MiB, its frames end call chains\n",
				    current->comm, task_pid_nr(current), file,
				    SFRAME_MM_MAX_BYTES >> 20);
	}
	if (reg != sec)
		sframe_put(sec);
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

/* Runs as task_work when the task returns to user space. */
static void sframe_work_fn(struct callback_head *head)
{
	struct task_struct *curr = current;

	if (curr->mm && !(curr->flags & PF_EXITING) &&
	    test_bit(SFRAME_MM_UNDISCOVERED, &curr->mm->sframe_flags))
		sframe_discover(curr->mm);

	clear_bit_unlock(SFRAME_WORK_PENDING, &curr->sframe_work_pending);
}

/*
 * Have the current task look at its text (sframe_discover()) before it
 * returns to user space.
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
			  in_nmi() ? TWA_NMI_CURRENT : TWA_RESUME))
		clear_bit_unlock(SFRAME_WORK_PENDING,
				 &curr->sframe_work_pending);
}

/*
 * The current task's last lookup, if it was made in its registrations of
 * generation @gen and its range covers @ip: then *@hint is it, and the
 * section it found is still registered, its table alive until the caller's
 * rcu_read_lock() ends.
 */
static bool sframe_hint_cached(u64 gen, unsigned long ip,
			       struct sframe_hint *hint)
{
	struct sframe_hint_cache *c = &current->sframe_cache;
	unsigned int seq = READ_ONCE(c->seq);

	if (seq & 1)
		return false;
	barrier();
	if (c->gen != gen || ip - c->hint.start >= c->hint.size)
		return false;
	/* Field by field: not a string copy, for each sample's first lookup. */
	hint->rules = c->hint.rules;
	hint->base = c->hint.base;
	hint->start = c->hint.start;
	hint->size = c->hint.size;
	hint->err = c->hint.err;
	barrier();
	return READ_ONCE(c->seq) == seq;
}

/*
 * Keep @hint, found in the current task's registrations of generation
 * @gen, for its next lookup. Not from within another write of the cache,
 * which this one interrupted: that one is left unfinished, and stays
 * unused.
 */
static void sframe_hint_cache(u64 gen, const struct sframe_hint *hint)
{
	struct sframe_hint_cache *c = &current->sframe_cache;
	unsigned int seq = READ_ONCE(c->seq);

	if (seq & 1)
		return;
	WRITE_ONCE(c->seq, seq + 1);
	barrier();
	c->hint = *hint;
	c->gen = gen;
	barrier();
	WRITE_ONCE(c->seq, seq + 2);
}

/* The registration of @mm for @ip, if any, and the range it covers. */
static struct sframe_section *sframe_walk(struct mm_struct *mm,
					  unsigned long ip,
					  unsigned long *first,
					  unsigned long *last)
{
	MA_STATE(mas, &mm->sframe_mt, ip, ip);
	struct sframe_section *sec;

	sec = mas_walk(&mas);
	*first = mas.index;
	*last = mas.last;
	return sec;
}

/*
 * Set @hint to the table @r (or none: lookups answer @err) of text at
 * @base, for the addresses [@first, @last] that the tree gives it; with a
 * table, only for the text its rows describe.
 */
static void sframe_hint_set(struct sframe_hint *hint,
			    const struct sframe_rules *r, unsigned long base,
			    unsigned long first, unsigned long last, int err)
{
	hint->rules = r;
	hint->base = base;
	hint->err = err;
	if (r) {
		first = max(first, base);
		last = min(last, base + r->text_size - 1);
	}
	hint->start = first;
	hint->size = last >= first ? last - first + 1 : 0;
}

/*
 * sframe_hint_user() where the task's last lookup does not answer: the
 * registrations of @mm, of generation @gen, in its tree. Out of line, so
 * that the lookup the cache answers takes no stack frame.
 */
static noinline int sframe_hint_find(struct mm_struct *mm, unsigned long ip,
				     struct sframe_hint *hint, u64 gen)
{
	struct sframe_section *sec;
	unsigned long first, last;

	sec = sframe_walk(mm, ip, &first, &last);
	if (!sec) {
		const struct sframe_rules *r;
		unsigned long base;

		/*
		 * Text not looked at yet, or being looked at (and not
		 * registered yet, maybe): it may have SFrame.
		 */
		if (READ_ONCE(mm->sframe_flags) &
		    (BIT(SFRAME_MM_UNDISCOVERED) | BIT(SFRAME_MM_DISCOVERING))) {
			sframe_queue_work();
			return -EAGAIN;
		}
		/* The vDSO, which no registration covers: its own table. */
		r = sframe_vdso_table(mm, ip, &base);
		if (r) {
			sframe_hint_set(hint, r, base, first, last, -ENOENT);
			return 0;
		}
		/* The rest of the walk's frames in the gap need no lookup. */
		sframe_hint_set(hint, NULL, 0, first, last, -ENOENT);
		sframe_hint_cache(gen, hint);
		return 0;
	}
	sframe_hint_set(hint, sec->shared ? &sec->shared->rules : NULL,
			sec->base, first, last, -ENOMEM);
	sframe_hint_cache(gen, hint);
	return 0;
}

/**
 * sframe_hint_user() - find the section registered for a user address
 * @ip:		user address of the current task
 * @hint:	set to that section, or to the range around @ip that no
 *		section is registered for
 *
 * The out-of-line part of sframe_find_user(): @hint covers @ip afterwards
 * unless @ip is in no section's text (sframe_hint_lookup() then answers
 * -ENOENT all the same).
 *
 * Context: as sframe_find_user().
 * Return: 0; -ENOENT if the task has no address space (@hint is then
 * left as it was).
 * -EAGAIN if the task's text was not looked at yet.
 */
int sframe_hint_user(unsigned long ip, struct sframe_hint *hint)
{
	struct mm_struct *mm = current->mm;
	u64 gen;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "no rcu_read_lock()");
	if (!mm)
		return -ENOENT;
	/*
	 * Before the tree (pairs with sframe_gen_bump()): a change meanwhile
	 * makes the answer stale.
	 */
	gen = smp_load_acquire(&mm->sframe_gen);
	/* A gap may hold text not looked at yet: see sframe_hint_find(). */
	if (!(READ_ONCE(mm->sframe_flags) & (BIT(SFRAME_MM_UNDISCOVERED) |
					     BIT(SFRAME_MM_DISCOVERING))) &&
	    sframe_hint_cached(gen, ip, hint))
		return 0;
	return sframe_hint_find(mm, ip, hint, gen);
}

/**
 * sframe_possible_user() - may a lookup for the current task find SFrame?
 *
 * Context: any context, including NMI.
 * Return: true if at least one section is registered for the task's mm
 * whose table is not of code that keeps frame pointers: where all are,
 * the frame pointer walk does what the tables would, but for the
 * innermost frame. Also true if its text was not looked at yet (a lookup
 * has it looked at), or is being looked at.
 */
bool sframe_possible_user(void)
{
	struct mm_struct *mm = current->mm;

	/* Racy with a registration: the answer is for this walk only. */
	return mm && (data_race(mm->sframe_nr > mm->sframe_nr_fp) ||
		      (READ_ONCE(mm->sframe_flags) &
		       (BIT(SFRAME_MM_UNDISCOVERED) |
			BIT(SFRAME_MM_DISCOVERING))));
}

/**
 * sframe_mmap_file() - register the SFrame section of a new text mapping
 * @file:	the file just mapped
 * @addr:	start of the new mapping
 * @len:	length of the new mapping
 * @pgoff:	file offset of the mapping, in pages
 *
 * Called after a successful executable mmap of a file, for the program and
 * its interpreter at execve as for every later mmap. Registers the file's
 * SFrame section for the new text at once, with its table, so that the
 * first samples in it are complete.
 * Nothing is registered while sframe_enabled() is false.
 * Then, and while nothing collects the call chains of this process (see
 * sframe_collector_get() and sframe_collector_task()), it reads nothing
 * and leaves the text to be looked at when an unwind of this process
 * first needs it.
 *
 * The file read is the one the new mapping maps: a stacked file system
 * (overlayfs) maps the file of the layer below, whose page cache holds
 * the data; @file may have none.
 *
 * Context: process context, mmap_lock not held. May sleep.
 */
void sframe_mmap_file(struct file *file, unsigned long addr,
		      unsigned long len, unsigned long pgoff)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;

	if (!mm)
		return;
	if (!sframe_enabled() || (!atomic_read(&sframe_collectors) &&
				  !test_bit(SFRAME_MM_COLLECTED,
					    &mm->sframe_flags))) {
		set_bit(SFRAME_MM_UNDISCOVERED, &mm->sframe_flags);
		return;
	}
	if (mmap_read_lock_killable(mm))
		return;
	vma = vma_lookup(mm, addr);
	file = vma && vma->vm_start == addr && vma->vm_file ?
	       get_file(vma->vm_file) : NULL;
	mmap_read_unlock(mm);
	if (!file)
		return;
	sframe_register(file, addr, len, pgoff);
	fput(file);
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
		sframe_gen_bump(mm);
		mm->sframe_nr--;
		mm->sframe_bytes -= sframe_section_bytes(sec);
		if (sframe_section_fp(sec))
			mm->sframe_nr_fp--;
		sframe_put(sec);
		if (last >= end - 1)
			break;
		mas_set(&mas, last + 1);
	}
	/*
	 * Also where nothing was registered: a lookup may have found the
	 * vDSO there, which no registration covers.
	 */
	sframe_gen_bump(mm);
	mtree_unlock(&mm->sframe_mt);
}

/**
 * sframe_mm_init() - initialize the SFrame registrations of a new mm
 * @mm:		the new address space, of a fork child or for an exec of
 *		the current task
 */
void sframe_mm_init(struct mm_struct *mm)
{
	struct mm_struct *old = current->mm;

	mt_init_flags(&mm->sframe_mt, MT_FLAGS_USE_RCU);
	mm->sframe_nr = 0;
	mm->sframe_nr_fp = 0;
	mm->sframe_bytes = 0;
	mm->sframe_flags = 0;
	mm->sframe_gen = sframe_gen_new();
	/* A sampled process's children and the programs they exec too. */
	if (old && test_bit(SFRAME_MM_COLLECTED, &old->sframe_flags))
		set_bit(SFRAME_MM_COLLECTED, &mm->sframe_flags);
}

/* Copy the registrations of @oldmm to @mm one by one. */
static void sframe_mm_copy(struct mm_struct *mm, struct mm_struct *oldmm)
{
	MA_STATE(mas, &oldmm->sframe_mt, 0, 0);
	struct sframe_section *sec;

	rcu_read_lock();
	mas_for_each(&mas, sec, ULONG_MAX) {
		unsigned long start = mas.index, last = mas.last;

		/* The tree does not change: its writers hold mmap_lock. */
		mas_pause(&mas);
		rcu_read_unlock();
		if (mtree_store_range(&mm->sframe_mt, start, last, sec,
				      GFP_KERNEL_ACCOUNT))
			return;
		refcount_inc(&sec->ref);
		mm->sframe_nr++;
		mm->sframe_bytes += sframe_section_bytes(sec);
		mm->sframe_nr_fp += sframe_section_fp(sec);
		cond_resched();
		rcu_read_lock();
	}
	rcu_read_unlock();
}

/**
 * sframe_mm_dup() - share the SFrame registrations at fork
 * @mm:		the child's address space, empty
 * @oldmm:	the parent's address space
 *
 * The child shares the parent's registrations, which never change: its
 * tree is a copy of the parent's (a copy of the nodes, or entry by entry
 * if that cannot allocate without waiting), and each registration gains a
 * reference. The text the child does not inherit (MADV_DONTFORK) then
 * loses its registration. Best effort: a registration that cannot be
 * copied is left out, and the child's frames in that text fall back to
 * frame pointers.
 *
 * Context: mmap_lock of @oldmm held for write. May sleep.
 */
void sframe_mm_dup(struct mm_struct *mm, struct mm_struct *oldmm)
{
	MA_STATE(mas, &mm->sframe_mt, 0, 0);
	VMA_ITERATOR(vmi, oldmm, 0);
	struct sframe_section *sec;
	struct vm_area_struct *vma;

	/* What the parent has not looked at, the child has not either. */
	if (oldmm->sframe_flags & (BIT(SFRAME_MM_UNDISCOVERED) |
				   BIT(SFRAME_MM_DISCOVERING)))
		set_bit(SFRAME_MM_UNDISCOVERED, &mm->sframe_flags);
	if (mtree_empty(&oldmm->sframe_mt))
		return;

	if (mtree_dup(&oldmm->sframe_mt, &mm->sframe_mt,
		      GFP_NOWAIT | __GFP_ACCOUNT | __GFP_NOWARN)) {
		sframe_mm_copy(mm, oldmm);
	} else {
		/* Nothing else sees the child's tree yet. */
		mtree_lock(&mm->sframe_mt);
		mas_for_each(&mas, sec, ULONG_MAX)
			refcount_inc(&sec->ref);
		mtree_unlock(&mm->sframe_mt);
		mm->sframe_nr = oldmm->sframe_nr;
		mm->sframe_bytes = oldmm->sframe_bytes;
		mm->sframe_nr_fp = oldmm->sframe_nr_fp;
	}

	for_each_vma(vmi, vma) {
		if (vma->vm_flags & VM_DONTCOPY)
			sframe_munmap(mm, vma->vm_start, vma->vm_end);
	}
}

/**
 * sframe_mm_free() - drop all SFrame registrations of a dying mm
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
	mt_for_each(&mm->sframe_mt, sec, index, ULONG_MAX) {
		sframe_put(sec);
		cond_resched();
	}
	mtree_destroy(&mm->sframe_mt);
}

/**
 * sframe_task_init() - reset the SFrame state of a new task
 * @p:		the new task, a copy of its parent
 */
void sframe_task_init(struct task_struct *p)
{
	p->sframe_work_pending = 0;
	memset(&p->sframe_cache, 0, sizeof(p->sframe_cache));
}

#ifdef CONFIG_DEBUG_FS
static int sframe_stats_show(struct seq_file *m, void *v)
{
	unsigned int i;

	for (i = 0; i < SFRAME_STAT_NR; i++)
		seq_printf(m, "%s %ld\n", sframe_stat_names[i],
			   atomic_long_read(&sframe_stats[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sframe_stats);

static int __init sframe_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("unwind_user", NULL);

	debugfs_create_file("sframe_stats", 0444, dir, NULL,
			    &sframe_stats_fops);
	return 0;
}
late_initcall(sframe_debugfs_init);
#endif /* CONFIG_DEBUG_FS */
