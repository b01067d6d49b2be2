// SPDX-License-Identifier: GPL-2.0
/*
 * slab_trace: the records of a snapshot grouped by where they were made,
 * one group per (backtrace, system call), with the objects' count, bytes,
 * ages and who made them, and its leak verdict (verdict.c: from the ages
 * gathered here and the lifetimes lifetime.c counted); most bytes first.
 * The views show these groups (dump.c, folded.c).
 *
 * The stack depot stores each distinct trace once, so a trace's handle is
 * the key.  Groups are found through an xarray indexed by handle (32 bits:
 * an index on every architecture), the groups of one handle chained by
 * system call, which the per-object view looks its objects' groups up in
 * too; and kept in an array sorted with sort(): a group costs 520 bytes
 * (its 448 in kmalloc-512, and its pointer), whatever the number of
 * objects in it (and 512 more while it is built).
 *
 * No locks: it works on a snapshot nobody else sees yet.
 */
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/xarray.h>

#include "aggregate.h"
#include "lifetime.h"
#include "record.h"
#include "snapshot.h"
#include "traced.h"

/* The group of @rec's (stack, system call) in the chain @first, or NULL. */
static struct leak_group *group_find(struct leak_group *first,
				     const struct leak_record *rec)
{
	struct leak_group *g;

	for (g = first; g; g = g->next)
		if (g->syscall == rec->syscall)
			return g;
	return NULL;
}

static void add_who(struct leak_group *g,
		    const struct leak_record *rec)
{
	unsigned int i;

	for (i = 0; i < g->nwho; i++)
		if (!memcmp(&g->who[i], &rec->who, LEAK_WHO_SIZE))
			return;
	if (g->nwho == LEAK_GROUP_WHO) {
		g->more_who++;	/* an estimate: repeats are not told apart */
		return;
	}
	g->who[g->nwho++] = rec->who;
}

static void add(const struct leak_snapshot *snap,
		struct leak_group *g, const struct leak_record *rec,
		u32 age, unsigned long bytes)
{
	g->in->ages[leak_life_bucket(age)]++;
	g->in->born[leak_verdict_bin(g->in->window, age)]++;
	if (!g->count || age < g->age_min)
		g->age_min = age;
	g->age_max = max(g->age_max, age);
	g->age_sum += age;
	g->count++;
	g->bytes += bytes;
	g->requested += rec->bytes_req;
	leak_estimate(snap, bytes, &g->est_q16, &g->est_bytes);
	add_who(g, rec);
}

/*
 * Most bytes first; then most objects, oldest object, and the handle and
 * the system call, so that the order of equals is the same in every view
 * of the snapshot.
 */
static int cmp_groups(const void *a, const void *b)
{
	const struct leak_group *x = *(const struct leak_group **)a;
	const struct leak_group *y = *(const struct leak_group **)b;

	/* Sampled, what the records stand for (unsampled, their bytes). */
	if (x->est_bytes != y->est_bytes)
		return x->est_bytes > y->est_bytes ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->age_max != y->age_max)
		return x->age_max > y->age_max ? -1 : 1;
	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	return x->syscall - y->syscall;
}

/* How long the records' clock of @snap ran, in ms, for what it shows. */
static u32 window(const struct leak_snapshot *snap)
{
	u64 now = snap->taken > snap->epoch ?
		  div_u64(snap->taken - snap->epoch, NSEC_PER_MSEC) : 0;
	u64 from = snap->opts.since_mark ? snap->mark : 0;

	return now > from ? min_t(u64, now - from, U32_MAX) : 0;
}

/* Each group's verdict, from its ages and its stack's lifetimes. */
static void judge(struct leak_snapshot *snap)
{
	struct leak_group *g;
	unsigned long i;

	for (i = 0; i < snap->nr_groups; i++) {
		g = snap->groups[i];
		g->in->n = g->count;
		g->in->age_max = g->age_max;
		leak_lifetime_get(g->stack, g->syscall, snap->owner,
				  g->in->freed);
		g->in->cache_freed = snap->cache_freed;
		g->in->freed_lost = leak_lifetime_key_lost(g->stack, g->syscall,
							   snap->owner);
		g->in->no_stack = !g->stack;
		leak_judge(g->in, &g->verdict);
		snap->verdicts[g->verdict.word]++;
		kfree(g->in);
		g->in = NULL;
	}
}

/**
 * leak_group_of - the group of a record of a snapshot
 * @snap: the snapshot, grouped
 * @rec: one of its records
 *
 * Return: its group, or NULL if @snap has no groups.
 */
const struct leak_group *
leak_group_of(struct leak_snapshot *snap,
	      const struct leak_record *rec)
{
	return group_find(xa_load(&snap->by_stack, rec->stack), rec);
}

/**
 * leak_aggregate - group a snapshot's records
 * @snap: the snapshot, filled but not published, its cache_freed too
 *	  (leak_lifetime_owner_get(), or _owners_get() for many)
 *
 * Return: 0, or -ENOMEM (no group is left behind).
 */
int leak_aggregate(struct leak_snapshot *snap)
{
	struct xarray *xa = &snap->by_stack;
	struct leak_group *g, *first;
	struct leak_record *rec;
	unsigned long i, key;
	u32 win = window(snap);
	int ret = 0;

	for (i = 0; (rec = leak_snapshot_entry(snap, i)); i++) {
		first = xa_load(xa, rec->stack);
		g = group_find(first, rec);
		if (!g) {
			g = kzalloc(sizeof(*g), SLABTRACE_GFP_BIG);
			if (g)
				g->in = kzalloc(sizeof(*g->in), SLABTRACE_GFP_BIG);
			if (!g || !g->in) {
				kfree(g);
				ret = -ENOMEM;
				break;
			}
			g->in->window = win;
			g->in->hidden = max(snap->opts.older_than,
					    snap->stopped_ms);
			g->stack = rec->stack;
			g->syscall = rec->syscall;
			g->next = first;
			ret = xa_err(xa_store(xa, rec->stack, g,
					      SLABTRACE_GFP_BIG));
			if (ret) {
				kfree(g->in);
				kfree(g);
				break;
			}
			snap->nr_groups++;
		}
		add(snap, g, rec, leak_snapshot_age(snap, rec),
		    leak_bytes(snap->kind, snap->object_size, rec));
		if (!(i % 4096)) {
			cond_resched();
			if (fatal_signal_pending(current)) {
				ret = -EINTR;
				break;
			}
		}
	}

	if (!ret) {
		snap->groups = kvmalloc_array(snap->nr_groups,
					      sizeof(*snap->groups),
					      SLABTRACE_GFP_BIG);
		if (!snap->groups)
			ret = -ENOMEM;
	}
	i = 0;
	if (!ret)
		xa_for_each(xa, key, first)
			for (g = first; g; g = g->next)
				snap->groups[i++] = g;
	if (ret) {
		leak_groups_free(snap);
		return ret;
	}
	judge(snap);
	sort(snap->groups, snap->nr_groups, sizeof(*snap->groups), cmp_groups,
	     NULL);
	for (i = 0; i < snap->nr_groups; i++)
		snap->groups[i]->rank = i + 1;
	return 0;
}
