/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab_trace's traced caches (traced.c): the caches being traced, or
 * holding records, their filters and rates, the set the probes read,
 * and what the probes could not do for them.
 */
#ifndef _SLABTRACE_SLAB_TRACED_H
#define _SLABTRACE_SLAB_TRACED_H

#include <linux/hash.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/types.h>

#include <slabtrace/core.h>
/* The sampler's divisions, as a 32-bit kernel can make them. */
#define slabtrace_div_u64(dividend, divisor)	div_u64(dividend, divisor)
#define slabtrace_div64_u64(dividend, divisor)	div64_u64(dividend, divisor)
#include <uapi/slabtrace/sample.h>

#include "record.h"
#include "sets.h"
#include "table.h"

struct cgroup;
struct kmem_cache;

/*
 * The commands' mutex: the set of traced caches and everything a command
 * changes are written under it (the order of all locks: main.c).
 */
extern struct mutex slab_trace_mutex;
/*
 * A print's copy of records (read) against the purge of a cache's records
 * (write, traced.c), so that a copy never sees a record of an owner id
 * given out again; and, per owner, how many purges there were, which a
 * print compares before and after its copy.  Taken after slab_trace_mutex.
 */
extern struct rw_semaphore slab_trace_print_sem;
extern unsigned long slab_trace_purges[SLAB_TRACE_MAX_OWNERS];

/* Why an allocation of a traced cache has no record, or an incomplete one.
 */
enum slab_trace_drop {
	SLAB_TRACE_DROP_POOL,		/* the pool was empty */
	SLAB_TRACE_DROP_LIMIT,		/* the record limit was reached */
	SLAB_TRACE_DROP_NMI,		/* allocated in NMI context */
	SLAB_TRACE_DROP_STACK,		/* kept, no backtrace: depot full */
	SLAB_TRACE_DROP_WALK,		/* kept, no backtrace: empty walk */
	SLAB_TRACE_DROP_MAX,
};

/* Drops that mean no record at all; the others only lose a detail. */
#define SLAB_TRACE_DROP_LOST_MAX	(SLAB_TRACE_DROP_NMI + 1)

extern const char *const slab_trace_drop_names[SLAB_TRACE_DROP_MAX];

/*
 * The cache pointer standing for a kind that has no cache: the address of
 * a byte of slab_trace_pseudo[], never a struct kmem_cache.
 */
extern const char slab_trace_pseudo[SLAB_TRACE_KINDS];

static inline struct kmem_cache *slab_trace_pseudo_cache(enum slab_trace_kind kind)
{
	return (struct kmem_cache *)&slab_trace_pseudo[kind];
}

/*
 * The bytes an object of @kind holds, @object_size for a cache's:
 * kmalloc-large takes whole pages, a percpu object its size on every
 * possible CPU.
 */
static inline unsigned long slab_trace_obj_bytes(u8 kind, unsigned int object_size,
						 u32 bytes_req)
{
	switch (kind) {
	case SLAB_TRACE_KIND_LARGE:
		return PAGE_SIZE << get_order(bytes_req);
	case SLAB_TRACE_KIND_PERCPU:
		return (unsigned long)bytes_req * num_possible_cpus();
	default:
		return object_size;
	}
}

static inline unsigned long slab_trace_bytes(u8 kind, unsigned int object_size,
					     const struct slab_trace_record *rec)
{
	return slab_trace_obj_bytes(kind, object_size, rec->bytes_req);
}

/* The range of "sample-bytes B": a record per B bytes allocated. */
#define SLAB_TRACE_SAMPLE_BYTES_MIN	64U
#define SLAB_TRACE_SAMPLE_BYTES_MAX	1073741824U

/*
 * "sample-bytes B": the chance, in 32-bit fixed point (1..2^32), that an
 * object of @bytes is recorded, p = 1 - exp(-bytes / B), as the slabtrace
 * command computes it too (<uapi/slabtrace/sample.h>).  The probe
 * (probes.c) and the estimates (slab_trace_weight()) take this same value,
 * so the estimates are unbiased whatever the approximation's error.
 */
static inline u64 slab_trace_sample_p(unsigned long bytes, u32 mean)
{
	return slabtrace_sample_p(bytes, mean);
}

/*
 * How many objects a record of an object of @bytes stands for, in 16-bit
 * fixed point: 1 unsampled, N sampled 1 in N, 1 / p sampled by bytes
 * (@mean B): Go's runtime/pprof scaleHeapSample() weighs a sample of a
 * heap profile by 1 / (1 - exp(-size / rate)) the same way.
 */
static inline u64 slab_trace_weight(u32 every, u32 mean, unsigned long bytes)
{
	if (!mean)
		return (u64)max(every, 1U) << 16;
	return slabtrace_sample_weight(slab_trace_sample_p(bytes, mean));
}

/*
 * What "start CACHE pid PID...|comm NAME|cgroup PATH" records: the
 * allocations of these processes (thread groups), of tasks of this name,
 * or of tasks in this cgroup (v2) or below it; never an interrupt's.
 * Published with RCU (slab_trace_traced.filter), freed after a grace
 * period (traced.c).
 */
#define SLAB_TRACE_MAX_PIDS	8
#define SLAB_TRACE_CGROUP_MAX	256	/* a cgroup path's bytes */

enum slab_trace_filter_kind {
	SLAB_TRACE_FILTER_PID,
	SLAB_TRACE_FILTER_COMM,
	SLAB_TRACE_FILTER_CGROUP,
};

struct slab_trace_filter {
	struct rcu_head rcu;
	/* Caches that have it ("start kmalloc|all FILTER" shares one). */
	refcount_t ref;
	u8 kind;			/* enum slab_trace_filter_kind */
	u8 npids;
	pid_t tgid[SLAB_TRACE_MAX_PIDS];
	char comm[TASK_COMM_LEN];	/* NUL-padded, as task->comm is */
	struct cgroup *cgroup;		/* referenced */
	char path[SLAB_TRACE_CGROUP_MAX];	/* the cgroup's, as given */
};

/* The text of a filter, escaped: "pid 5 6", "comm NAME", "cgroup PATH". */
#define SLAB_TRACE_FILTER_TEXT	(4 * SLAB_TRACE_CGROUP_MAX + 16)
struct slab_trace_filter *slab_trace_filter_alloc(void);
void slab_trace_filter_put(struct slab_trace_filter *f);
void slab_trace_filter_text(char *buf, size_t size,
			    const struct slab_trace_filter *f);

struct slab_trace_traced {
	struct slabtrace_cache_ref ref;
	/* NULL: every allocation; written under slab_trace_mutex. */
	struct slab_trace_filter __rcu *filter;
	/* Allocations the filter left out, per CPU (probes.c). */
	unsigned long __percpu *filtered;
	/* "start CACHE sample N": 1 in N allocations recorded; 1: all. */
	u32 sample_every;
	/* Per CPU: the sampler's xorshift32 state, never 0 (probes.c). */
	u32 __percpu *rng;
	/* kmalloc-large's sampler: a draw per address (probes.c). */
	u64 sample_seed;
	/* "start CACHE sample-bytes B": B, a record per B bytes; 0: none. */
	u32 sample_bytes;
	char name[SLABTRACE_NAME_MAX + 1];	/* as the user wrote it */
	unsigned int object_size;	/* 0 but for SLAB_TRACE_KIND_CACHE */
	u8 kind;			/* enum slab_trace_kind */
	bool kmalloc;		/* a kmalloc cache, or kmalloc-large */
	u16 id;			/* its records' owner in slab_trace_records */
	bool tracing;		/* written under slab_trace_mutex */
	u64 epoch;		/* ns: record stamps count from here */
	u64 started;		/* when tracing last started, ns */
	u64 traced_ns;		/* tracing time before @started */
	atomic_long_t drops[SLAB_TRACE_DROP_MAX];
	atomic_long_t replaced;	/* records of objects freed untraced */
	atomic_long_t own;	/* slabtrace's own allocations: not recorded */
	u32 mark;		/* "mark": records stamped >= mark; 0: none */
};

static inline long slab_trace_traced_count(const struct slab_trace_traced *tr)
{
	return slab_trace_table_owned(&slab_trace_records, tr->id);
}

/*
 * The published set, read by the probes under RCU, replaced whole
 * (traced.c).  A probe finds an event's traced cache in @by_cache, a hash
 * table of the caches' addresses with open addressing, at most half full,
 * so a lookup ends at the first empty slot after a probe or two, however
 * many caches are traced; and a record's cache in @by_id.  A cache in
 * none, while "start all" is followed, may be new (follow.h).
 */
struct slab_trace_set {
	struct rcu_head rcu;
	unsigned int nr;
	unsigned int mask;			/* slots of @by_cache - 1 */
	struct slab_trace_traced **traced;	/* @nr, in the order started */
	struct slab_trace_traced **by_cache;	/* NULL: an empty slot */
	struct slab_trace_traced *by_id[SLAB_TRACE_MAX_OWNERS];
	struct slab_trace_traced *mem[];	/* @traced, then @by_cache */
};

extern struct slab_trace_set __rcu *slab_trace_active;

/* The traced cache of cache @s (a pseudo cache too), or NULL; any context. */
static __always_inline struct slab_trace_traced *
slab_trace_traced_of(const struct slab_trace_set *set, const struct kmem_cache *s)
{
	unsigned int i = hash_ptr(s, 32) & set->mask, n;
	struct slab_trace_traced *tr;

	for (n = 0; n <= set->mask; n++, i = (i + 1) & set->mask) {
		tr = set->by_cache[i];
		if (!tr || tr->ref.cache == s)
			return tr;
	}
	return NULL;
}

/* The traced cache whose records have owner @id, or NULL if it left the set. */
static __always_inline struct slab_trace_traced *
slab_trace_traced_of_id(const struct slab_trace_set *set, u16 id)
{
	return id < SLAB_TRACE_MAX_OWNERS ? set->by_id[id] : NULL;
}

/* The most "sample N" takes: a record stands for N allocations. */
#define SLAB_TRACE_SAMPLE_MAX	1000000U
int slab_trace_start(const char *name, struct slab_trace_filter *filter,
		     u32 sample_every, u32 sample_bytes, int (*attach)(void));
unsigned long slab_trace_traced_filtered(const struct slab_trace_traced *tr);
int slab_trace_traced_word(enum slab_trace_word word,
			   struct slab_trace_traced ***trs);
int slab_trace_stop(const char *name);
int slab_trace_reset(const char *name,
		     void (*forget)(const struct slabtrace_cache_ref *ref));
int slab_trace_mark(const char *name);
struct slab_trace_traced *slab_trace_traced_find(const char *cmd,
						 const char *name,
						 struct slabtrace_cache_ref *ref);
u64 slab_trace_traced_time(const struct slab_trace_traced *tr, u64 now);
u32 slab_trace_stamp(const struct slab_trace_traced *tr, u64 now);
unsigned int slab_trace_traced_sweep(void);
void slab_trace_traced_exit(void);
struct slab_trace_filter *slab_trace_filter_get(struct slab_trace_filter *f);
int slab_trace_start_new(struct slab_trace_filter *filter, u32 sample_every,
			 u32 sample_bytes,
			 bool (*left_out)(const struct kmem_cache *s),
			 int (*attach)(void));

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/* A helper of the KUnit suites alone. */
long slab_trace_traced_dropped(const struct slab_trace_traced *tr);
#endif

#endif /* _SLABTRACE_SLAB_TRACED_H */
