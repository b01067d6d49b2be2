/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab_trace's following (follow.c): "start all" starts the caches
 * created after it too.
 */
#ifndef _SLABTRACE_SLAB_FOLLOW_H
#define _SLABTRACE_SLAB_FOLLOW_H

#include <linux/hash.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "traced.h"

struct kmem_cache;
struct seq_file;

/*
 * What the probes read of following, published with RCU, NULL while it is
 * off: the caches left out (slabtrace's own, and those a "reset" forgot),
 * a hash table with open addressing, at most half full.
 */
struct leak_skip {
	struct rcu_head rcu;
	unsigned int mask;			/* slots - 1 */
	const struct kmem_cache *slot[];	/* NULL: an empty slot */
};

extern struct leak_skip __rcu *leak_follow_skip;

void leak_follow_kick(void);

/*
 * An allocation from cache @s, not in the traced set: if "all" is
 * followed and @s is not left out, @s is new.  Any context, under RCU
 * (the probes').
 */
static __always_inline void leak_follow_miss(const struct kmem_cache *s)
{
	const struct leak_skip *skip = rcu_dereference_sched(leak_follow_skip);
	unsigned int i, n;

	if (likely(!skip))
		return;
	i = hash_ptr(s, 32) & skip->mask;
	for (n = 0; n <= skip->mask; n++, i = (i + 1) & skip->mask) {
		if (skip->slot[i] == s)
			return;
		if (!skip->slot[i])
			break;
	}
	leak_follow_kick();
}

void leak_follow_start(struct leak_filter *filter,
		       u32 sample_every, u32 sample_bytes,
		       int (*attach)(void));
void leak_follow_stop(void);
void leak_follow_leave_out(const struct slabtrace_cache_ref *ref);
void leak_follow_update(void);
void leak_follow_status(struct seq_file *m);
/* The scan's job and the module notifier (slab.c loads them). */
extern const struct leak_part leak_follow_part;

#endif /* _SLABTRACE_SLAB_FOLLOW_H */
