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

#include "record.h"

struct kmem_cache;

/*
 * pool.c: records, preallocated.  The probes take and give back records
 * per CPU and never call the slab allocator; a work item refills.
 */
struct slab_trace_pool_cpu {
	raw_spinlock_t lock;			/* @head and @nr (irq-safe) */
	struct slab_trace_record *head;
	unsigned int nr;
};

struct slab_trace_pool {
	struct kmem_cache *cache;
	struct slab_trace_pool_cpu __percpu *cpu;
	unsigned int size;		/* records per CPU, refilled to */
	atomic_long_t allocated;	/* from the cache, not yet freed */
	bool draining;			/* refill nothing */
	struct mutex refill_mutex;	/* size, draining, refills */
};

/* Records per CPU: the default, and what "pool N" accepts. */
#define SLAB_TRACE_POOL_DEFAULT	4096U
#define SLAB_TRACE_POOL_MIN	16U
#define SLAB_TRACE_POOL_MAX	1048576U	/* 2^20 */
/* What a record costs, table included (the default limit's unit). */
#define SLAB_TRACE_RECORD_BYTES	72

extern struct slab_trace_pool slab_trace_pool;
/* The slab cache of records (slab.c makes it, the pool's). */
extern struct kmem_cache *slab_trace_record_cache;
/* The record limit, all caches together; changed by "limit" (slab.c). */
extern unsigned long slab_trace_record_limit;

int slab_trace_pool_init(struct slab_trace_pool *p, struct kmem_cache *cache,
			 unsigned int size);
void slab_trace_pool_destroy(struct slab_trace_pool *p);
struct slab_trace_record *slab_trace_pool_get(struct slab_trace_pool *p);
void slab_trace_pool_put(struct slab_trace_pool *p, struct slab_trace_record *rec);
int slab_trace_pool_fill(struct slab_trace_pool *p);
int slab_trace_pool_resize(struct slab_trace_pool *p, unsigned int size);
void slab_trace_pool_drain(struct slab_trace_pool *p);
unsigned long slab_trace_pool_free_count(struct slab_trace_pool *p);
void slab_trace_record_free(struct slab_trace_record *rec);

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/* A failure hook of the KUnit suites: the Nth allocation from now fails. */
extern unsigned int slab_trace_fail_refill;
#endif

#endif /* _SLABTRACE_SLAB_POOL_H */
