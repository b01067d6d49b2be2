// SPDX-License-Identifier: GPL-2.0
/*
 * slab_trace: the records of a snapshot grouped by where they were made,
 * one group per (backtrace, system call), with the objects' count, bytes,
 * ages and who made them; most bytes first.  The "stacks" view and the
 * folded stacks (folded.c) show these groups.
 *
 * The stack depot stores each distinct trace once, so a trace's handle is
 * the key.  Groups are found through an xarray indexed by handle (32 bits:
 * an index on every architecture), the groups of one handle chained by
 * system call, while they are built; then kept in an array sorted with
 * sort(): a group costs 120 bytes, whatever the number of objects in it.
 *
 * No locks: it works on a snapshot nobody else sees yet.
 */
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/xarray.h>

#include "slab.h"

/* The group of @rec's (stack, system call) in the chain @first, or NULL. */
static struct slab_trace_group *group_find(struct slab_trace_group *first,
					   const struct slab_trace_record *rec)
{
	struct slab_trace_group *g;

	for (g = first; g; g = g->next)
		if (g->syscall == rec->syscall)
			return g;
	return NULL;
}

static void add_who(struct slab_trace_group *g,
		    const struct slab_trace_record *rec)
{
	unsigned int i;

	for (i = 0; i < g->nwho; i++)
		if (!memcmp(&g->who[i], &rec->who, sizeof(rec->who)))
			return;
	if (g->nwho == SLAB_TRACE_GROUP_WHO) {
		g->more_who++;	/* an estimate: repeats are not told apart */
		return;
	}
	g->who[g->nwho++] = rec->who;
}

static void add(const struct slab_trace_snapshot *snap,
		struct slab_trace_group *g, const struct slab_trace_record *rec,
		u32 age, unsigned long bytes)
{
	if (!g->count || age < g->age_min)
		g->age_min = age;
	g->age_max = max(g->age_max, age);
	g->age_sum += age;
	g->count++;
	g->bytes += bytes;
	g->requested += rec->bytes_req;
	slab_trace_estimate(snap, bytes, &g->est_q16, &g->est_bytes);
	add_who(g, rec);
}

/*
 * Most bytes first; then most objects, oldest object, and the handle and
 * the system call, so that the order of equals is the same in every view
 * of the snapshot.
 */
static int cmp_groups(const void *a, const void *b)
{
	const struct slab_trace_group *x = *(const struct slab_trace_group **)a;
	const struct slab_trace_group *y = *(const struct slab_trace_group **)b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->age_max != y->age_max)
		return x->age_max > y->age_max ? -1 : 1;
	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	return x->syscall - y->syscall;
}

/**
 * slab_trace_aggregate - group a snapshot's records
 * @snap: the snapshot, filled but not published
 *
 * Return: 0, or -ENOMEM (no group is left behind).
 */
int slab_trace_aggregate(struct slab_trace_snapshot *snap)
{
	struct slab_trace_group *g, *first;
	struct slab_trace_record *rec;
	unsigned long i, key;
	struct xarray xa;
	int ret = 0;

	xa_init(&xa);
	for (i = 0; (rec = slab_trace_snapshot_entry(snap, i)); i++) {
		first = xa_load(&xa, rec->stack);
		g = group_find(first, rec);
		if (!g) {
			g = kzalloc(sizeof(*g), SLABTRACE_GFP_BIG);
			if (!g) {
				ret = -ENOMEM;
				break;
			}
			g->stack = rec->stack;
			g->syscall = rec->syscall;
			g->next = first;
			ret = xa_err(xa_store(&xa, rec->stack, g,
					      SLABTRACE_GFP_BIG));
			if (ret) {
				kfree(g);
				break;
			}
			snap->nr_groups++;
		}
		add(snap, g, rec, slab_trace_snapshot_age(snap, rec),
		    slab_trace_bytes(snap->kind, snap->object_size, rec));
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
					      GFP_KERNEL_ACCOUNT |
					      __GFP_RETRY_MAYFAIL |
					      __GFP_NOWARN);
		if (!snap->groups)
			ret = -ENOMEM;
	}
	i = 0;
	xa_for_each(&xa, key, first) {
		while ((g = first)) {
			first = g->next;
			g->next = NULL;
			if (ret)
				kfree(g);
			else
				snap->groups[i++] = g;
		}
	}
	xa_destroy(&xa);
	if (ret) {
		kvfree(snap->groups);
		snap->groups = NULL;
		snap->nr_groups = 0;
		return ret;
	}
	sort(snap->groups, snap->nr_groups, sizeof(*snap->groups), cmp_groups,
	     NULL);
	return 0;
}

void slab_trace_groups_free(struct slab_trace_snapshot *snap)
{
	unsigned long i;

	for (i = 0; i < snap->nr_groups; i++)
		kfree(snap->groups[i]);
	kvfree(snap->groups);
	snap->groups = NULL;
	snap->nr_groups = 0;
}
