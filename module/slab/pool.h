/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab_trace's pool of records (pool.c), preallocated per CPU.
 */
#ifndef _SLABTRACE_SLAB_POOL_H
#define _SLABTRACE_SLAB_POOL_H

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "part.h"
#include "record.h"

struct kmem_cache;

/*
 * pool.c: records, preallocated.  The probes take and give back records
 * per CPU and never call the slab allocator; a work item refills.
 */
struct leak_pool_cpu {
	raw_spinlock_t lock;			/* @head and @nr (irq-safe) */
	struct leak_record *head;
	unsigned int nr;
};

struct leak_pool {
	struct kmem_cache *cache;
	struct leak_pool_cpu __percpu *cpu;
	unsigned int size;		/* records per CPU, refilled to */
	atomic_long_t allocated;	/* from the cache, not yet freed */
	bool draining;			/* refill nothing */
	struct mutex refill_mutex;	/* size, draining, refills */
};

/* Records per CPU: the default, and what "pool N" accepts. */
#define LEAK_POOL_DEFAULT	4096U
#define LEAK_POOL_MIN	16U
#define LEAK_POOL_MAX	1048576U	/* 2^20 */
/* What a record costs, table included (the default limit's unit). */
#define LEAK_RECORD_BYTES	72

extern struct leak_pool leak_pool;
/* The slab cache of records, the pool's. */
extern struct kmem_cache *leak_record_cache;
/* The record limit, all caches together; changed by "limit" (slab.c). */
extern unsigned long leak_record_limit;

struct leak_record *leak_pool_get(struct leak_pool *p);
void leak_pool_put(struct leak_pool *p, struct leak_record *rec);
int leak_pool_fill(struct leak_pool *p);
int leak_pool_resize(struct leak_pool *p, unsigned int size);
void leak_pool_drain(struct leak_pool *p);
void leak_record_free(struct leak_record *rec);

/* The record cache and the pool (slab.c loads them); their stats line. */
extern const struct leak_part leak_pool_part;

#if IS_ENABLED(CONFIG_KUNIT)
/* Static in the module (VISIBLE_IF_KUNIT, <kunit/visibility.h>). */
unsigned long leak_pool_free_count(struct leak_pool *p);
#endif

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/* A failure hook of the KUnit suites: the Nth allocation from now fails. */
extern unsigned int leak_fail_refill;
extern unsigned long leak_refill_tries;
extern void (*leak_test_in_refill)(void);
#endif

#endif /* _SLABTRACE_SLAB_POOL_H */
