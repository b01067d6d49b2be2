/* SPDX-License-Identifier: GPL-2.0 */
/*
 * make bench's measure of raw spinlock holds (pool.c, table.c).
 */
#ifndef _SLABTRACE_SLAB_HOLD_H
#define _SLABTRACE_SLAB_HOLD_H

#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/types.h>

/*
 * CONFIG_SLABTRACE_BENCH only: how long raw spinlocks were
 * held with interrupts off, by the code that held them, and how much
 * each hold did (records or ids).
 */
enum leak_hold {
	LEAK_HOLD_POOL,		/* pool.c: a refill's batch */
	LEAK_HOLD_PURGE,		/* table.c: a purge's bucket */
	LEAK_HOLD_GROW,		/* table.c: a resize's bucket */
	LEAK_HOLDS,
};

struct leak_hold_stat {
	u64 holds;
	u64 by_log2_ns[40];	/* holds of 2^i to 2^(i+1) - 1 ns */
	u64 longest_ns;
	unsigned int most_items;	/* in one hold */
};

#if IS_ENABLED(CONFIG_SLABTRACE_BENCH)
extern struct leak_hold_stat leak_holds[LEAK_HOLDS];

static inline u64 leak_hold_start(void)
{
	return ktime_get_ns();
}

/* A hold that began at @start ends, having done @items. */
static inline void leak_hold_end(enum leak_hold h, u64 start,
				 unsigned int items)
{
	struct leak_hold_stat *s = &leak_holds[h];
	u64 ns = ktime_get_ns() - start;

	s->holds++;
	s->by_log2_ns[min(ns ? ilog2(ns) : 0, 39)]++;
	s->longest_ns = max(s->longest_ns, ns);
	s->most_items = max(s->most_items, items);
}
#else
static inline u64 leak_hold_start(void)
{
	return 0;
}

static inline void leak_hold_end(enum leak_hold h, u64 start,
				 unsigned int items)
{
}
#endif

#endif /* _SLABTRACE_SLAB_HOLD_H */
