// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace: "print", a copy of one cache's records taken at one moment,
 * which reading ctl then formats (dump.c).
 *
 * The copy is made of page-sized chunks found through an xarray, so a
 * cache with millions of records needs no large contiguous allocation;
 * a record is copied whole, 48 bytes.  The snapshot belongs to the file,
 * not to an open file descriptor: "print" replaces the current one, and
 * readers hold a reference on the one they started on.
 *
 * Notes on locking
 * ----------------
 * - slabtrace_mutex: current.  A snapshot never changes once published;
 *   its kref says when it can go.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include <slabtrace/slabtrace.h>

/* Records copied out under one lock hold: a bucket's chain, usually 0-3. */
#define SPILL	32

static struct slabtrace_snapshot *current_snap;

static void snapshot_free(struct kref *kref)
{
	struct slabtrace_snapshot *snap =
		container_of(kref, struct slabtrace_snapshot, kref);
	unsigned long i;
	void *chunk;

	xa_for_each(&snap->chunks, i, chunk)
		free_page((unsigned long)chunk);
	xa_destroy(&snap->chunks);
	kfree(snap);
}

void slabtrace_snapshot_put(struct slabtrace_snapshot *snap)
{
	kref_put(&snap->kref, snapshot_free);
}

/* The current snapshot, referenced; NULL before the first print. */
struct slabtrace_snapshot *slabtrace_snapshot_get(void)
{
	struct slabtrace_snapshot *snap;

	mutex_lock(&slabtrace_mutex);
	snap = current_snap;
	if (snap)
		kref_get(&snap->kref);
	mutex_unlock(&slabtrace_mutex);
	return snap;
}

struct slabtrace_record *
slabtrace_snapshot_entry(struct slabtrace_snapshot *snap, unsigned long i)
{
	struct slabtrace_record *chunk;

	if (i >= snap->nr)
		return NULL;
	chunk = xa_load(&snap->chunks, i / SLABTRACE_SNAP_PER_CHUNK);
	return &chunk[i % SLABTRACE_SNAP_PER_CHUNK];
}

static int append(struct slabtrace_snapshot *snap,
		  const struct slabtrace_record *rec)
{
	unsigned long c = snap->nr / SLABTRACE_SNAP_PER_CHUNK;
	struct slabtrace_record *chunk;
	int ret;

	if (snap->nr % SLABTRACE_SNAP_PER_CHUNK) {
		chunk = xa_load(&snap->chunks, c);
	} else {
		chunk = (void *)__get_free_page(GFP_KERNEL);
		if (!chunk)
			return -ENOMEM;
		ret = xa_err(xa_store(&snap->chunks, c, chunk, GFP_KERNEL));
		if (ret) {
			free_page((unsigned long)chunk);
			return ret;
		}
	}
	chunk[snap->nr % SLABTRACE_SNAP_PER_CHUNK] = *rec;
	chunk[snap->nr % SLABTRACE_SNAP_PER_CHUNK].next = NULL;
	snap->nr++;
	snap->bytes += snap->object_size;
	return 0;
}

static int fill(struct slabtrace_snapshot *snap, struct slabtrace_traced *tr)
{
	struct slabtrace_record *spill, *bigger;
	struct slabtrace_table_iter it;
	unsigned int room = SPILL;
	int i, n, ret = 0;

	spill = kmalloc_array(room, sizeof(*spill), GFP_KERNEL);
	if (!spill)
		return -ENOMEM;
	slabtrace_table_iter_start(&it, &tr->table);
	while ((n = slabtrace_table_iter_next(&it, spill, room)) != -ENOENT) {
		if (n == -ENOSPC) {
			/* A long chain: the table has not grown yet. */
			room = it.need + SPILL;
			bigger = krealloc_array(spill, room, sizeof(*spill),
						GFP_KERNEL);
			if (!bigger) {
				ret = -ENOMEM;
				break;
			}
			spill = bigger;
			continue;
		}
		for (i = 0; i < n && !ret; i++)
			ret = append(snap, &spill[i]);
		if (ret)
			break;
		if (!(it.bucket % 1024))
			cond_resched();
	}
	slabtrace_table_iter_stop(&it);
	kfree(spill);
	return ret;
}

/**
 * slabtrace_print - take the snapshot that reading ctl shows next
 * @name: the cache, as the user names it
 *
 * Called with slabtrace_mutex held.
 *
 * Return: 0, -ENOENT for an unknown cache, -ENODATA for a cache that is
 * not traced, -ENOMEM.
 */
int slabtrace_print(const char *name)
{
	struct slabtrace_snapshot *snap;
	struct slabtrace_traced *tr;
	int ret;

	lockdep_assert_held(&slabtrace_mutex);
	tr = slabtrace_traced_find(name);
	if (IS_ERR(tr))
		return PTR_ERR(tr);
	if (!tr) {
		pr_warn("print: %s is not traced\n", name);
		return -ENODATA;
	}
	snap = kzalloc(sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return -ENOMEM;
	kref_init(&snap->kref);
	xa_init(&snap->chunks);
	strscpy(snap->name, name, sizeof(snap->name));
	snap->taken = ktime_get_ns();
	snap->epoch = tr->epoch;
	snap->traced_ns = slabtrace_traced_time(tr, snap->taken);
	snap->tracing = tr->tracing;
	snap->object_size = tr->object_size;
	snap->dropped = atomic_long_read(&tr->dropped);
	snap->replaced = atomic_long_read(&tr->replaced);
	if (slabtrace_cache_merged(&tr->ref)) {
		ret = slabtrace_cache_aliases(&tr->ref, name, snap->aliases,
					      sizeof(snap->aliases));
		if (ret < 0)
			scnprintf(snap->aliases, sizeof(snap->aliases),
				  "other caches (names unavailable: %d)", ret);
		else if (ret)
			scnprintf(snap->aliases + strlen(snap->aliases),
				  sizeof(snap->aliases) - strlen(snap->aliases),
				  " and %d more", ret);
	}
	ret = fill(snap, tr);
	if (ret) {
		slabtrace_snapshot_put(snap);
		return ret;
	}
	if (current_snap)
		slabtrace_snapshot_put(current_snap);
	current_snap = snap;
	return 0;
}

/* At module exit: no reader is left, the module is pinned while open. */
void slabtrace_snapshot_exit(void)
{
	lockdep_assert_held(&slabtrace_mutex);
	if (current_snap)
		slabtrace_snapshot_put(current_snap);
	current_snap = NULL;
}
