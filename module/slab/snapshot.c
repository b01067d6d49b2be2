// SPDX-License-Identifier: GPL-2.0
/*
 * slab_trace: a snapshot, a copy of one cache's records taken at one
 * moment (print.c takes them, dump.c and folded.c show them), with its
 * records grouped by backtrace (aggregate.c groups them).
 *
 * The copy is made of page-sized chunks found through an xarray, so a
 * cache with millions of records needs no large contiguous allocation;
 * a record is copied whole, with __GFP_NORETRY: a copy that does not fit
 * fails with -ENOMEM rather than wake the OOM killer.  A snapshot never
 * changes once published; its kref says when it can go.
 *
 * Notes on locking
 * ----------------
 * - snapshots_lock (mutex): snapshots_alive, every snapshot not yet freed,
 *   the ones readers still hold too (modsyms.c walks them all).  Taken
 *   after leak_mutex and leak_print_sem.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "record.h"
#include "snapshot.h"
#include "traced.h"

/* snapshots_alive: every snapshot not yet freed. */
static DEFINE_MUTEX(snapshots_lock);
static LIST_HEAD(snapshots_alive);

static void snapshot_free(struct kref *kref);

void leak_snapshot_put(struct leak_snapshot *snap)
{
	kref_put(&snap->kref, snapshot_free);
}

/* Every group of @snap, found through its xarray, goes. */
void leak_groups_free(struct leak_snapshot *snap)
{
	struct leak_group *g, *first;
	unsigned long key;

	xa_for_each(&snap->by_stack, key, first) {
		while ((g = first)) {
			first = g->next;
			kfree(g->in);
			kfree(g);
		}
	}
	xa_destroy(&snap->by_stack);
	kvfree(snap->groups);
	snap->groups = NULL;
	snap->nr_groups = 0;
	memset(snap->verdicts, 0, sizeof(snap->verdicts));
}

static void snapshot_free(struct kref *kref)
{
	struct leak_snapshot *snap =
		container_of(kref, struct leak_snapshot, kref);
	struct leak_snapshot *part = snap->next, *next;
	unsigned long i;
	void *chunk;

	/* A word's parts, one by one: no recursion. */
	for (; part; part = next) {
		next = part->next;
		part->next = NULL;
		leak_snapshot_put(part);
	}

	mutex_lock(&snapshots_lock);
	list_del(&snap->alive);
	mutex_unlock(&snapshots_lock);
	leak_groups_free(snap);
	xa_for_each(&snap->chunks, i, chunk)
		free_page((unsigned long)chunk);
	xa_destroy(&snap->chunks);
	kfree(snap);
}

/* An empty snapshot; leak_snapshot_put() frees it. */
struct leak_snapshot *leak_snapshot_alloc(void)
{
	struct leak_snapshot *snap = kzalloc(sizeof(*snap), SLABTRACE_GFP_BIG);

	if (snap) {
		kref_init(&snap->kref);
		xa_init(&snap->chunks);
		xa_init(&snap->by_stack);
		mutex_lock(&snapshots_lock);
		list_add(&snap->alive, &snapshots_alive);
		mutex_unlock(&snapshots_lock);
	}
	return snap;
}

struct snap_mem {
	unsigned long alive;
	size_t bytes;
};

static void add_mem(struct leak_snapshot *snap, void *arg)
{
	struct snap_mem *sm = arg;

	sm->alive++;
	sm->bytes += sizeof(*snap) +
		     DIV_ROUND_UP(snap->nr, LEAK_SNAP_PER_CHUNK) *
		     PAGE_SIZE +
		     snap->nr_groups * (sizeof(*snap->groups) +
					sizeof(**snap->groups));
}

/**
 * leak_snapshot_mem - the snapshots not freed, for the stats
 * @alive: how many (the kept ones, files' own prints, and those readers
 *	   still hold)
 * @mem: about how many bytes they hold: records, groups, headers
 *
 * May sleep.
 */
void leak_snapshot_mem(unsigned long *alive, size_t *mem)
{
	struct leak_snapshot *snap;
	struct snap_mem sm = { };

	mutex_lock(&snapshots_lock);
	list_for_each_entry(snap, &snapshots_alive, alive)
		add_mem(snap, &sm);
	mutex_unlock(&snapshots_lock);
	*alive = sm.alive;
	*mem = sm.bytes;
}

/**
 * leak_snapshots_alive - call @fn on every snapshot not freed
 * @fn: the function; it may not put a snapshot
 * @arg: passed to @fn
 *
 * The kept ones, and those only readers still hold.  Called with
 * leak_print_sem held for writing: none is being filled.
 */
void leak_snapshots_alive(void (*fn)(struct leak_snapshot *snap,
				     void *arg), void *arg)
{
	struct leak_snapshot *snap;

	lockdep_assert_held_write(&leak_print_sem);
	mutex_lock(&snapshots_lock);
	list_for_each_entry(snap, &snapshots_alive, alive)
		fn(snap, arg);
	mutex_unlock(&snapshots_lock);
}

struct leak_record *
leak_snapshot_entry(struct leak_snapshot *snap, unsigned long i)
{
	struct leak_record *chunk;

	if (i >= snap->nr)
		return NULL;
	chunk = xa_load(&snap->chunks, i / LEAK_SNAP_PER_CHUNK);
	return &chunk[i % LEAK_SNAP_PER_CHUNK];
}

/* Allocations of the snapshot's cache not recorded at all. */
long leak_snapshot_dropped(const struct leak_snapshot *snap)
{
	long n = 0;
	int i;

	for (i = 0; i < LEAK_DROP_LOST_MAX; i++)
		n += snap->drops[i];
	return n;
}

/* How old @rec was when @snap was taken, in ms. */
u32 leak_snapshot_age(const struct leak_snapshot *snap,
		      const struct leak_record *rec)
{
	u64 now = snap->taken > snap->epoch ?
		  div_u64(snap->taken - snap->epoch, NSEC_PER_MSEC) : 0;

	return now > rec->stamp ? min_t(u64, now - rec->stamp, U32_MAX) : 0;
}

/* Add a copy of @rec to @snap, not yet published. */
int leak_snapshot_add(struct leak_snapshot *snap,
		      const struct leak_record *rec)
{
	unsigned long c = snap->nr / LEAK_SNAP_PER_CHUNK;
	struct leak_record *chunk;
	unsigned long bytes;
	int ret;

	if (snap->nr % LEAK_SNAP_PER_CHUNK) {
		chunk = xa_load(&snap->chunks, c);
	} else {
		chunk = (void *)__get_free_page(SLABTRACE_GFP_BIG);
		if (!chunk)
			return -ENOMEM;
		ret = xa_err(xa_store(&snap->chunks, c, chunk,
				      SLABTRACE_GFP_BIG));
		if (ret) {
			free_page((unsigned long)chunk);
			return ret;
		}
	}
	chunk[snap->nr % LEAK_SNAP_PER_CHUNK] = *rec;
	chunk[snap->nr % LEAK_SNAP_PER_CHUNK].next = NULL;
	snap->nr++;
	bytes = leak_bytes(snap->kind, snap->object_size, rec);
	snap->bytes += bytes;
	leak_estimate(snap, bytes, &snap->est_q16, &snap->est_bytes);
	return 0;
}
