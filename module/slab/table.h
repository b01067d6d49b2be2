/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab_trace's table of records (table.c), by object address.
 */
#ifndef _SLABTRACE_SLAB_TABLE_H
#define _SLABTRACE_SLAB_TABLE_H

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "record.h"

/*
 * table.c: the records of every traced cache in one table, by object
 * address.  An address belongs to one live object at a time, so one lookup
 * answers a free whatever cache it is in, and finds the stale record of a
 * reused address whatever cache held it.
 */
#define SLAB_TRACE_TABLE_LOCKS	128

struct slab_trace_buckets {
	unsigned long mask;		/* number of buckets - 1 */
	u16 *sig;			/* per bucket: see table.c */
	struct slab_trace_record *head[];
};

/* One stripe of the table, on a cacheline of its own. */
struct slab_trace_stripe {
	/* The chains of the buckets b with b % SLAB_TRACE_TABLE_LOCKS == i. */
	raw_spinlock_t lock;
	struct slab_trace_buckets *old;	/* where the stripe's records are */
	struct slab_trace_buckets *new;	/* during a grow: where they go */
	unsigned long moved;		/* buckets of old moved to new */
} ____cacheline_aligned_in_smp;

struct slab_trace_table {
	struct slab_trace_stripe stripe[SLAB_TRACE_TABLE_LOCKS];
	struct slab_trace_buckets __rcu *cur;	/* for the lockless check */
	atomic_long_t nr;
	atomic_long_t owned[SLAB_TRACE_MAX_OWNERS];	/* by record owner */
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
	void (*grow_step)(struct slab_trace_table *t);
#endif
};

extern struct slab_trace_table slab_trace_records;

int slab_trace_table_init(struct slab_trace_table *t);
void slab_trace_table_destroy(struct slab_trace_table *t,
			      void (*free_rec)(struct slab_trace_record *rec));
bool slab_trace_table_maybe(struct slab_trace_table *t, const void *obj);
struct slab_trace_record *slab_trace_table_insert(struct slab_trace_table *t,
						  struct slab_trace_record *rec);
struct slab_trace_record *slab_trace_table_remove(struct slab_trace_table *t,
						  const void *obj);
bool slab_trace_table_holds(struct slab_trace_table *t, const void *obj,
			    u16 owner);
unsigned long slab_trace_table_purge_owners(struct slab_trace_table *t,
					    const unsigned long *owners,
					    void (*free_rec)(struct slab_trace_record *rec));
unsigned long slab_trace_table_buckets(struct slab_trace_table *t);
bool slab_trace_table_set_stack(struct slab_trace_table *t, const void *obj,
				u16 owner, u32 stamp, depot_stack_handle_t stack);

static inline long slab_trace_table_count(struct slab_trace_table *t)
{
	return atomic_long_read(&t->nr);
}

static inline long slab_trace_table_owned(struct slab_trace_table *t, u16 owner)
{
	return atomic_long_read(&t->owned[owner]);
}

struct slab_trace_table_iter {
	struct slab_trace_table *t;
	unsigned long bucket;
	unsigned int need;		/* room the last bucket wanted */
};

int slab_trace_table_for_each(struct slab_trace_table *t,
			      int (*fn)(const struct slab_trace_record *rec,
					void *arg),
			      void *arg);

/*
 * Global only for the KUnit suites: static in the module
 * (VISIBLE_IF_KUNIT, <kunit/visibility.h>).
 */
#if IS_ENABLED(CONFIG_KUNIT)
void slab_trace_table_flush(struct slab_trace_table *t);
int slab_trace_table_iter_next(struct slab_trace_table_iter *it,
			       struct slab_trace_record *buf, unsigned int room);
void slab_trace_table_iter_start(struct slab_trace_table_iter *it,
				 struct slab_trace_table *t);
void slab_trace_table_iter_stop(struct slab_trace_table_iter *it);
#endif

#if SLAB_TRACE_TESTS
/* For the KUnit suites and the benchmarks. */
raw_spinlock_t *slab_trace_table_lock_of(struct slab_trace_table *t,
					 const void *obj);
unsigned long slab_trace_table_purge(struct slab_trace_table *t, u16 owner,
				     void (*free_rec)(struct slab_trace_record *rec));
#endif

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/* Failure hooks of the KUnit suites. */
extern bool slab_trace_fail_grow;
extern unsigned long slab_trace_grow_tries;
#endif

#endif /* _SLABTRACE_SLAB_TABLE_H */
