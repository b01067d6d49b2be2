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

#define SLAB_TRACE_SNAP_PER_CHUNK \
	(PAGE_SIZE / sizeof(struct slab_trace_record))

/* What "print" was asked for (slab.c parses it). */
struct slab_trace_print_opts {
	bool stacks;			/* the aggregated view */
	bool since_mark;		/* only records made after "mark" */
	u32 top;			/* stacks shown; 0: all */
	u32 older_than;			/* ms; 0: any age */
};

/* The records of a snapshot grouped by backtrace (aggregate.c). */
#define SLAB_TRACE_GROUP_WHO	4	/* contexts listed per group */

struct slab_trace_group {
	struct slab_trace_group *next;	/* same stack, other system call */
	depot_stack_handle_t stack;
	s16 syscall;			/* as slab_trace_record.syscall */
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
	struct slab_trace_who who[SLAB_TRACE_GROUP_WHO];
	u32 rank;			/* "Stack N" of the stacks view */
	struct slab_trace_verdict_in *in;	/* while grouping */
	struct slab_trace_verdict verdict;
};

struct slab_trace_snapshot {
	struct kref kref;
	struct list_head alive;		/* snapshot.c's list of them all */
	/*
	 * A print of a word ("print all"): a snapshot of no records, @name
	 * the word, whose @next are the parts, one per cache holding objects,
	 * most bytes first; each part is the snapshot of a cache, held by the
	 * print.  NULL for a print of one cache.
	 */
	struct slab_trace_snapshot *next;
	bool word;
	unsigned int nr_caches;		/* a word's: the caches it stands for */
	unsigned int nr_parts;		/* those with objects: @next's */
	unsigned long purges;		/* slab_trace_purges[@owner], copied */
	char name[SLABTRACE_NAME_MAX + 1];
	char aliases[256];		/* "" unless the cache is shared */
	struct slab_trace_print_opts opts;
	u32 mark;			/* the mark since-mark used */
	struct slab_trace_group **groups; /* most bytes first */
	unsigned long nr_groups;
	struct xarray by_stack;		/* stack handle -> its groups */
	unsigned long verdicts[SLABTRACE_VERDICTS];	/* groups judged so */
	u64 taken;			/* ns */
	u64 epoch;			/* of the records' stamps, ns */
	u64 traced_ns;
	bool tracing;
	unsigned int object_size;	/* 0: by record (slab_trace_bytes()) */
	u8 kind;			/* enum slab_trace_kind */
	u16 owner;			/* the records copied */
	long drops[SLAB_TRACE_DROP_MAX];
	unsigned long filtered;		/* left out by the filter */
	u32 sample_every;		/* records stand for this many */
	u32 sample_bytes;		/* or sampled by bytes: B; 0: not */
	u64 est_q16;			/* objects estimated (slab_trace_weight()) */
	u64 est_bytes;			/* bytes estimated */
	char filter[SLAB_TRACE_FILTER_TEXT];	/* "": none */
	long grow_failed;		/* the table's, all caches' */
	long replaced;
	unsigned long nr;
	unsigned long bytes;
	struct xarray chunks;		/* index -> page of records */
};

/*
 * Add what a record of an object of @bytes stands for to the estimates
 * @est_q16 and @est_bytes of a snapshot or group: the record itself
 * unsampled, N or 1 / p objects sampled (slab_trace_weight()).
 */
static inline void slab_trace_estimate(const struct slab_trace_snapshot *snap,
				       unsigned long bytes, u64 *est_q16,
				       u64 *est_bytes)
{
	u64 w = slab_trace_weight(snap->sample_every, snap->sample_bytes, bytes);

	*est_q16 += w;
	*est_bytes += (bytes * w) >> 16;
}

/* Whether the records of @snap stand for more objects than themselves. */
static inline bool slab_trace_sampled(const struct slab_trace_snapshot *snap)
{
	return snap->sample_every > 1 || snap->sample_bytes;
}

struct slab_trace_snapshot *slab_trace_snapshot_alloc(void);
void slab_trace_snapshot_put(struct slab_trace_snapshot *snap);
int slab_trace_snapshot_add(struct slab_trace_snapshot *snap,
			    const struct slab_trace_record *rec);
struct slab_trace_record *
slab_trace_snapshot_entry(struct slab_trace_snapshot *snap, unsigned long i);
u32 slab_trace_snapshot_age(const struct slab_trace_snapshot *snap,
			    const struct slab_trace_record *rec);
long slab_trace_snapshot_dropped(const struct slab_trace_snapshot *snap);
void slab_trace_groups_free(struct slab_trace_snapshot *snap);
void slab_trace_snapshots_alive(void (*fn)(struct slab_trace_snapshot *snap,
					   void *arg), void *arg);
void slab_trace_snapshot_mem(unsigned long *alive, size_t *mem);

#endif /* _SLABTRACE_SLAB_SNAPSHOT_H */
