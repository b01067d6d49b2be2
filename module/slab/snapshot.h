/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab_trace's snapshots (snapshot.c): a copy of one cache's records, taken
 * by a print, and its records grouped by backtrace.
 */
#ifndef _SLABTRACE_SLAB_SNAPSHOT_H
#define _SLABTRACE_SLAB_SNAPSHOT_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include <uapi/slabtrace/dump.h>

#include "lifetime.h"
#include "record.h"
#include "traced.h"

#define LEAK_SNAP_PER_CHUNK \
	(PAGE_SIZE / sizeof(struct leak_record))

/* What "print" was asked for (slab.c parses it). */
struct leak_print_opts {
	bool stacks;			/* the aggregated view */
	bool since_mark;		/* only records made after "mark" */
	u32 top;			/* stacks shown; 0: all */
	u32 older_than;			/* ms; 0: any age */
};

/* The records of a snapshot grouped by backtrace (aggregate.c). */
#define LEAK_GROUP_WHO	4	/* contexts listed per group */

struct leak_group {
	struct leak_group *next;	/* same stack, other system call */
	depot_stack_handle_t stack;
	s16 syscall;			/* as leak_record.syscall */
	u8 nwho;
	u32 count;
	u32 more_who;			/* contexts beyond who[] */
	u64 bytes;
	u64 requested;
	u64 est_q16;			/* objects estimated, 16-bit fixed point */
	u64 est_bytes;			/* bytes estimated */
	u32 age_min;			/* ms */
	u32 age_max;
	u64 age_sum;
	struct leak_who who[LEAK_GROUP_WHO];
	u32 rank;			/* "Stack N" of the stacks view */
	struct leak_verdict_in *in;	/* while grouping */
	struct leak_verdict verdict;
};

struct leak_snapshot {
	struct kref kref;
	struct list_head alive;		/* snapshot.c's list of them all */
	/*
	 * A print of a word ("print all"): a snapshot of no records, @name
	 * the word, whose @next are the parts, one per cache holding objects,
	 * most bytes first; each part is the snapshot of a cache, held by the
	 * print.  NULL for a print of one cache.
	 */
	struct leak_snapshot *next;
	bool word;
	unsigned int nr_caches;		/* a word's: the caches it stands for */
	unsigned int nr_parts;		/* those with objects: @next's */
	unsigned long purges;		/* leak_purges[@owner], copied */
	char name[SLABTRACE_NAME_MAX + 1];
	/* "" unless the cache is shared: its ref's names, " and N more" */
	char aliases[sizeof_field(struct slabtrace_cache_ref, aliases) +
		     sizeof(" and 2147483647 more")];
	struct leak_print_opts opts;
	u32 mark;			/* the mark since-mark used */
	struct leak_group **groups; /* most bytes first */
	unsigned long nr_groups;
	struct xarray by_stack;		/* stack handle -> its groups */
	unsigned long verdicts[SLABTRACE_VERDICTS];	/* groups judged so */
	/* Its owner's frees, all stacks, by lifetime: filled before grouping. */
	u64 cache_freed[LEAK_LIFE_BUCKETS];
	u64 taken;			/* ns */
	u64 epoch;			/* of the records' stamps, ns */
	u64 traced_ns;
	bool tracing;
	/*
	 * ms since the trace stopped (0: tracing): nothing was recorded
	 * since, so the youngest bins' emptiness is the stop's, not a sign
	 * that arrivals stopped (aggregate.c).
	 */
	u32 stopped_ms;
	unsigned int object_size;	/* 0: by record (leak_bytes()) */
	u8 kind;			/* enum leak_kind */
	u16 owner;			/* the records copied */
	long drops[LEAK_DROP_MAX];
	unsigned long filtered;		/* left out by the filter */
	u32 sample_every;		/* records stand for this many */
	u32 sample_bytes;		/* or sampled by bytes: B; 0: not */
	u64 est_q16;			/* objects estimated (leak_weight()) */
	u64 est_bytes;			/* bytes estimated */
	char filter[LEAK_FILTER_TEXT];	/* "": none */
	long grow_failed;		/* the table's, all caches' */
	long replaced;
	unsigned long nr;
	unsigned long bytes;
	struct xarray chunks;		/* index -> page of records */
};

/*
 * Add what a record of an object of @bytes stands for to the estimates
 * @est_q16 and @est_bytes of a snapshot or group: the record itself
 * unsampled, N or 1 / p objects sampled (leak_weight()).
 */
static inline void leak_estimate(const struct leak_snapshot *snap,
				 unsigned long bytes, u64 *est_q16,
				 u64 *est_bytes)
{
	u64 w = leak_weight(snap->sample_every, snap->sample_bytes, bytes);

	*est_q16 += w;
	*est_bytes += (bytes * w) >> 16;
}

/* Whether the records of @snap stand for more objects than themselves. */
static inline bool leak_sampled(const struct leak_snapshot *snap)
{
	return snap->sample_every > 1 || snap->sample_bytes;
}

struct leak_snapshot *leak_snapshot_alloc(void);
void leak_snapshot_put(struct leak_snapshot *snap);
int leak_snapshot_add(struct leak_snapshot *snap,
		      const struct leak_record *rec);
struct leak_record *
leak_snapshot_entry(struct leak_snapshot *snap, unsigned long i);
u32 leak_snapshot_age(const struct leak_snapshot *snap,
		      const struct leak_record *rec);
long leak_snapshot_dropped(const struct leak_snapshot *snap);
void leak_groups_free(struct leak_snapshot *snap);
void leak_snapshots_alive(void (*fn)(struct leak_snapshot *snap,
				     void *arg), void *arg);
void leak_snapshot_mem(unsigned long *alive, size_t *mem);

#endif /* _SLABTRACE_SLAB_SNAPSHOT_H */
