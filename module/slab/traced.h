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
#include <linux/time64.h>
#include <linux/types.h>

#include <slabtrace/core.h>
/* The sampler's divisions, as a 32-bit kernel can make them. */
#define slabtrace_div_u64(dividend, divisor)	div_u64(dividend, divisor)
#define slabtrace_div64_u64(dividend, divisor)	div64_u64(dividend, divisor)
#include <uapi/slabtrace/sample.h>

#include "part.h"
#include "record.h"
#include "sets.h"
#include "table.h"

struct cgroup;
struct kmem_cache;

/*
 * The commands' mutex: the set of traced caches and everything a command
 * changes are written under it (the order of all locks: main.c).
 */
extern struct mutex leak_mutex;
/*
 * A print's copy of records (read) against the purge of a cache's records
 * (write, traced.c), so that a copy never sees a record of an owner id
 * given out again; and, per owner, how many purges there were, which a
 * print compares before and after its copy.  Taken after leak_mutex.
 */
extern struct rw_semaphore leak_print_sem;
extern unsigned long leak_purges[LEAK_MAX_OWNERS];

/* Why an allocation of a traced cache has no record, or an incomplete one.
 */
enum leak_drop {
	LEAK_DROP_POOL,		/* the pool was empty */
	LEAK_DROP_LIMIT,		/* the record limit was reached */
	LEAK_DROP_NMI,		/* allocated in NMI context */
	LEAK_DROP_STACK,		/* kept, no backtrace: depot full */
	LEAK_DROP_WALK,		/* kept, no backtrace: empty walk */
	LEAK_DROP_DEEP,		/* kept, walk cut at LEAK_STACK_DEPTH */
	LEAK_DROP_MAX,
};

/* Drops that mean no record at all; the others only lose a detail. */
#define LEAK_DROP_LOST_MAX	(LEAK_DROP_NMI + 1)

extern const char *const leak_drop_names[LEAK_DROP_MAX];

/*
 * The cache pointer standing for a kind that has no cache: the address of
 * a byte of leak_pseudo[], never a struct kmem_cache.
 */
extern const char leak_pseudo[LEAK_KINDS];

static inline struct kmem_cache *leak_pseudo_cache(enum leak_kind kind)
{
	return (struct kmem_cache *)&leak_pseudo[kind];
}

/*
 * The bytes an object of @kind holds, @object_size for a cache's:
 * kmalloc-large takes whole pages, a percpu object its size on every
 * possible CPU.
 */
static inline unsigned long leak_obj_bytes(u8 kind, unsigned int object_size,
					   u32 bytes_req)
{
	switch (kind) {
	case LEAK_KIND_LARGE:
		return PAGE_SIZE << get_order(bytes_req);
	case LEAK_KIND_PERCPU:
		return (unsigned long)bytes_req * num_possible_cpus();
	default:
		return object_size;
	}
}

static inline unsigned long leak_bytes(u8 kind, unsigned int object_size,
				       const struct leak_record *rec)
{
	return leak_obj_bytes(kind, object_size, rec->bytes_req);
}

/* The range of "sample-bytes B": a record per B bytes allocated. */
#define LEAK_SAMPLE_BYTES_MIN	64U
#define LEAK_SAMPLE_BYTES_MAX	1073741824U

/*
 * "sample-bytes B": the chance, in 32-bit fixed point (1..2^32), that an
 * object of @bytes is recorded, p = 1 - exp(-bytes / B), as the slabtrace
 * command computes it too (<uapi/slabtrace/sample.h>).  The probe
 * (probes.c) and the estimates (leak_weight()) take this same value,
 * so the estimates are unbiased whatever the approximation's error.
 */
static inline u64 leak_sample_p(unsigned long bytes, u32 mean)
{
	return slabtrace_sample_p(bytes, mean);
}

/*
 * How many objects a record of an object of @bytes stands for, in 16-bit
 * fixed point: 1 unsampled, N sampled 1 in N, 1 / p sampled by bytes
 * (@mean B): Go's runtime/pprof scaleHeapSample() weighs a sample of a
 * heap profile by 1 / (1 - exp(-size / rate)) the same way.
 */
static inline u64 leak_weight(u32 every, u32 mean, unsigned long bytes)
{
	if (!mean)
		return (u64)max(every, 1U) << 16;
	return slabtrace_sample_weight(leak_sample_p(bytes, mean));
}

/*
 * What "start CACHE pid PID...|comm NAME|cgroup PATH" records: the
 * allocations of these processes (thread groups), of tasks of this name,
 * or of tasks in this cgroup (v2) or below it; never an interrupt's.
 * Published with RCU (leak_traced.filter), freed after a grace
 * period (traced.c).
 */
#define LEAK_MAX_PIDS	8
#define LEAK_CGROUP_MAX	256	/* a cgroup path's bytes */

enum leak_filter_kind {
	LEAK_FILTER_PID,
	LEAK_FILTER_COMM,
	LEAK_FILTER_CGROUP,
};

struct leak_filter {
	struct rcu_head rcu;
	/* Caches that have it ("start kmalloc|all FILTER" shares one). */
	refcount_t ref;
	u8 kind;			/* enum leak_filter_kind */
	u8 npids;
	pid_t tgid[LEAK_MAX_PIDS];
	char comm[TASK_COMM_LEN];	/* NUL-padded, as task->comm is */
	struct cgroup *cgroup;		/* referenced */
	char path[LEAK_CGROUP_MAX];	/* the cgroup's, as given */
};

/* The text of a filter, escaped: "pid 5 6", "comm NAME", "cgroup PATH". */
#define LEAK_FILTER_TEXT	(4 * LEAK_CGROUP_MAX + 16)
struct leak_filter *leak_filter_alloc(void);
void leak_filter_put(struct leak_filter *f);
void leak_filter_text(char *buf, size_t size,
		      const struct leak_filter *f);

struct leak_traced {
	struct slabtrace_cache_ref ref;
	/* NULL: every allocation; written under leak_mutex. */
	struct leak_filter __rcu *filter;
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
	unsigned int object_size;	/* 0 but for LEAK_KIND_CACHE */
	u8 kind;			/* enum leak_kind */
	bool kmalloc;		/* a kmalloc cache, or kmalloc-large */
	u16 id;			/* its records' owner in leak_records */
	bool tracing;		/* written under leak_mutex */
	u64 epoch;		/* ns: record stamps count from here */
	u64 started;		/* when tracing last started, ns */
	u64 stopped;		/* when it last stopped, ns, if stopped */
	u64 traced_ns;		/* tracing time before @started */
	atomic_long_t drops[LEAK_DROP_MAX];
	atomic_long_t replaced;	/* records of objects freed untraced */
	atomic_long_t own;	/* slabtrace's own allocations: not recorded */
	u32 mark;		/* "mark": records stamped >= mark; 0: none */
};

static inline long leak_traced_count(const struct leak_traced *tr)
{
	return leak_table_owned(&leak_records, tr->id);
}

/*
 * The published set, read by the probes under RCU, replaced whole
 * (traced.c).  A probe finds an event's traced cache in @by_cache, a hash
 * table of the caches' addresses with open addressing, at most half full,
 * so a lookup ends at the first empty slot after a probe or two, however
 * many caches are traced; and a record's cache in @by_id.  A cache in
 * none, while "start all" is followed, may be new (follow.h).
 */
struct leak_set {
	struct rcu_head rcu;
	unsigned int nr;
	unsigned int mask;			/* slots of @by_cache - 1 */
	struct leak_traced **traced;	/* @nr, in the order started */
	struct leak_traced **by_cache;	/* NULL: an empty slot */
	struct leak_traced *by_id[LEAK_MAX_OWNERS];
	struct leak_traced *mem[];	/* @traced, then @by_cache */
};

extern struct leak_set __rcu *leak_active;

/* The traced cache of cache @s (a pseudo cache too), or NULL; any context. */
static __always_inline struct leak_traced *
leak_traced_of(const struct leak_set *set, const struct kmem_cache *s)
{
	unsigned int i = hash_ptr(s, 32) & set->mask, n;
	struct leak_traced *tr;

	for (n = 0; n <= set->mask; n++, i = (i + 1) & set->mask) {
		tr = set->by_cache[i];
		if (!tr || tr->ref.cache == s)
			return tr;
	}
	return NULL;
}

/* The traced cache whose records have owner @id, or NULL if it left the set. */
static __always_inline struct leak_traced *
leak_traced_of_id(const struct leak_set *set, u16 id)
{
	return id < LEAK_MAX_OWNERS ? set->by_id[id] : NULL;
}

/**
 * leak_stamp - a record's stamp
 * @tr: the record's traced cache
 * @now: the time, ns (ktime_get_mono_fast_ns())
 *
 * Inline: the probes take one at every traced allocation.
 *
 * Context: Any context (a probe); no lock.
 * Return: ms since @tr's epoch, saturated; 0 for a time before it (the
 * fast clock may read a little behind a read on another CPU while the
 * timekeeper updates).
 */
static __always_inline u32 leak_stamp(const struct leak_traced *tr, u64 now)
{
	if ((s64)(now - tr->epoch) <= 0)
		return 0;
	return min_t(u64, div_u64(now - tr->epoch, NSEC_PER_MSEC), U32_MAX);
}

/* The most "sample N" takes: a record stands for N allocations. */
#define LEAK_SAMPLE_MAX	1000000U
int leak_start(const char *name, struct leak_filter *filter,
	       u32 sample_every, u32 sample_bytes, int (*attach)(void));
unsigned long leak_traced_filtered(const struct leak_traced *tr);
int leak_traced_word(enum leak_word word,
		     struct leak_traced ***trs);
int leak_stop(const char *name);
int leak_reset(const char *name,
	       void (*forget)(const struct slabtrace_cache_ref *ref));
int leak_mark(const char *name);
struct leak_traced *leak_traced_find(const char *cmd,
				     const char *name,
				     struct slabtrace_cache_ref *ref);
u64 leak_traced_time(const struct leak_traced *tr, u64 now);
unsigned int leak_traced_sweep(void);
struct leak_filter *leak_filter_get(struct leak_filter *f);
int leak_start_new(struct leak_filter *filter, u32 sample_every,
		   u32 sample_bytes,
		   bool (*left_out)(const struct kmem_cache *s),
		   int (*attach)(void));

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/* A helper of the KUnit suites alone, and a failure hook. */
long leak_traced_dropped(const struct leak_traced *tr);
extern bool leak_fail_set;
#endif

/* The traced caches (slab.c unloads them). */
extern const struct leak_part leak_traced_part;

#endif /* _SLABTRACE_SLAB_TRACED_H */
