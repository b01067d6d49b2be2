/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab_trace's table of records (table.c), by object address.
 */
#ifndef _SLABTRACE_SLAB_TABLE_H
#define _SLABTRACE_SLAB_TABLE_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/cache.h>
#include <linux/hash.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "part.h"
#include "record.h"

/*
 * table.c: the records of every traced cache in one table, by object
 * address.  An address belongs to one live object at a time, so one lookup
 * answers a free whatever cache it is in, and finds the stale record of a
 * reused address whatever cache held it.
 */
#define LEAK_TABLE_LOCKS	128

struct leak_buckets {
	unsigned long mask;		/* number of buckets - 1 */
	u16 *sig;			/* per bucket: see table.c */
	struct leak_record *head[];
};

/* One stripe of the table, on a cacheline of its own. */
struct leak_stripe {
	/* The chains of the buckets b with b % LEAK_TABLE_LOCKS == i. */
	raw_spinlock_t lock;
	struct leak_buckets *old;	/* where the stripe's records are */
	struct leak_buckets *new;	/* during a grow: where they go */
	unsigned long moved;		/* buckets of old moved to new */
} ____cacheline_aligned_in_smp;

struct leak_table {
	struct leak_stripe stripe[LEAK_TABLE_LOCKS];
	struct leak_buckets __rcu *cur;	/* for the lockless check */
	/*
	 * The buckets leak_table_full() counts: cur's, but the smaller
	 * array's while a resize moves records (a shrink moves every
	 * record, the new ones too, to the small one, which cur is not
	 * yet).  Written under grow_mutex.
	 */
	unsigned long load_buckets;
	atomic_long_t nr;
	atomic_long_t owned[LEAK_MAX_OWNERS];	/* by record owner */
	atomic_long_t grow_failed;
	/* After a failed grow, none is tried before this (jiffies). */
	unsigned long grow_retry;
	unsigned long grow_backoff;	/* how long the last wait was */
	unsigned long shrinks;		/* resizes to fewer buckets */
	/* Resize steps (one bucket each, under its lock): count, time, most moved. */
	unsigned long grow_steps;
	u64 grow_hold_ns;
	unsigned int grow_most_moved;
	/* Moving records between arrays; iterating.  Before a stripe lock. */
	struct mutex grow_mutex;
	/* An insert found the table too full: grow it (bit 0). */
	unsigned long grow_asked;
#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
	/* Called by a resize between rows of moves, with no lock held. */
	void (*grow_step)(struct leak_table *t);
#endif
};

extern struct leak_table leak_records;
/* leak_records (slab.c loads it); its stats line. */
extern const struct leak_part leak_table_part;

/*
 * Hash bits 24-27 and 28-31 pick a record's two signature bits (a Bloom
 * filter of 16 bits, k = 2): no bucket index uses them.  At 1 to 2 records
 * a bucket, a few % of absent keys pass the check (make bench: 5.5 % at
 * 2).
 */
#define LEAK_TABLE_SIG_SHIFT	24

/* An object's hash: its bucket in the low bits, its signature above. */
static inline u32 leak_table_hash(const void *obj)
{
	return hash_ptr(obj, 32);
}

/* The signature bits of a hash. */
static inline u16 leak_table_sig(u32 hash)
{
	return BIT((hash >> LEAK_TABLE_SIG_SHIFT) & 15) |
	       BIT(hash >> (LEAK_TABLE_SIG_SHIFT + 4));
}

/**
 * leak_table_maybe - whether the table may hold a record of @obj
 * @t: the table
 * @obj: the object
 *
 * False means no record of @obj was inserted before the call and is still
 * there; true means take the lock and look.  Inline: every kmem event of
 * a cache no one traces asks it, while a probe is attached.
 *
 * Context: Any context (a probe); no lock: preemption disabled or
 * rcu_read_lock_sched() held.
 */
static __always_inline bool leak_table_maybe(struct leak_table *t,
					     const void *obj)
{
	struct leak_buckets *b;
	u32 hash;

	if (!atomic_long_read(&t->nr))
		return false;
	hash = leak_table_hash(obj);
	b = rcu_dereference_sched(t->cur);
	return (READ_ONCE(b->sig[hash & b->mask]) & leak_table_sig(hash)) ==
	       leak_table_sig(hash);
}

struct leak_record *leak_table_insert(struct leak_table *t,
				      struct leak_record *rec);
struct leak_record *leak_table_remove(struct leak_table *t,
				      const void *obj);
bool leak_table_holds(struct leak_table *t, const void *obj,
		      u16 owner);
unsigned long leak_table_purge_owners(struct leak_table *t,
				      const unsigned long *owners,
				      void (*free_rec)(struct leak_record *rec));
bool leak_table_set_stack(struct leak_table *t, const void *obj,
			  u16 owner, u32 stamp, u16 tag,
			  depot_stack_handle_t stack);

void leak_table_ask_grow(struct leak_table *t, long nr, unsigned long size);

static inline long leak_table_count(struct leak_table *t)
{
	return atomic_long_read(&t->nr);
}

/* Records a bucket, on average, past which a probe inserts no more. */
#define LEAK_TABLE_LOAD_MAX	64

/**
 * leak_table_full - whether the table holds LEAK_TABLE_LOAD_MAX records a
 *		     bucket
 * @t: the table
 *
 * It grows at 2 a bucket; this many means its grow found no memory (and
 * waits, table.c) or has not run yet.  Inserting more would lengthen
 * every chain a probe walks under a raw lock, the frees of untraced
 * objects' too (their signatures all set): the probes drop instead, and
 * ask for the grow no insert will ask for now (once its wait is over).
 *
 * It counts the buckets of the smaller array while a resize runs: a
 * shrink moves every record, those inserted meanwhile too, to the small
 * array, and a grow it would ask for waits for the shrink (and for a
 * print after it).
 *
 * Context: Any context but NMI (a probe); no lock.
 */
static __always_inline bool leak_table_full(struct leak_table *t)
{
	unsigned long size = READ_ONCE(t->load_buckets);
	long nr = atomic_long_read(&t->nr);

	if (likely(nr < LEAK_TABLE_LOAD_MAX * (long)size))
		return false;
	leak_table_ask_grow(t, nr, size);
	return true;
}

static inline long leak_table_owned(struct leak_table *t, u16 owner)
{
	return atomic_long_read(&t->owned[owner]);
}

long leak_table_count_except(struct leak_table *t, int owner);

struct leak_table_iter {
	struct leak_table *t;
	unsigned long bucket;
	unsigned int need;		/* room the last bucket wanted */
};

int leak_table_for_each(struct leak_table *t,
			int (*fn)(const struct leak_record *rec,
				  void *arg),
			void *arg, bool killable);

/*
 * Global only for the KUnit suites: static in the module
 * (VISIBLE_IF_KUNIT, <kunit/visibility.h>).
 */
#if IS_ENABLED(CONFIG_KUNIT)
int leak_table_init(struct leak_table *t);
void leak_table_destroy(struct leak_table *t,
			void (*free_rec)(struct leak_record *rec));
unsigned long leak_table_buckets(struct leak_table *t);
void leak_table_flush(struct leak_table *t);
int leak_table_iter_next(struct leak_table_iter *it,
			 struct leak_record *buf, unsigned int room);
void leak_table_iter_start(struct leak_table_iter *it,
			   struct leak_table *t);
void leak_table_iter_stop(struct leak_table_iter *it);
#endif

#if LEAK_TESTS
/* For the KUnit suites and the benchmarks. */
raw_spinlock_t *leak_table_lock_of(struct leak_table *t,
				   const void *obj);
unsigned long leak_table_purge(struct leak_table *t, u16 owner,
			       void (*free_rec)(struct leak_record *rec));
#endif

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/* Failure hooks of the KUnit suites. */
extern bool leak_fail_grow;
extern unsigned long leak_grow_tries;
#endif

#endif /* _SLABTRACE_SLAB_TABLE_H */
