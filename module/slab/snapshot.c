// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace: "print", a copy of one cache's records taken at one moment,
 * which reading ctl then formats (dump.c), and reading folded and
 * folded_bytes too (folded.c).  The records are filtered as they are
 * copied (older-than, since-mark) and grouped by backtrace once copied
 * (aggregate.c), whichever view was asked for.
 *
 * The copy is made of page-sized chunks found through an xarray, so a
 * cache with millions of records needs no large contiguous allocation;
 * a record is copied whole, 40 bytes.  The snapshot belongs to the file,
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
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include <slabtrace/slabtrace.h>

static struct slabtrace_snapshot *current_snap;

static void snapshot_free(struct kref *kref)
{
	struct slabtrace_snapshot *snap =
		container_of(kref, struct slabtrace_snapshot, kref);
	unsigned long i;
	void *chunk;

	slabtrace_groups_free(snap);
	xa_for_each(&snap->chunks, i, chunk)
		free_page((unsigned long)chunk);
	xa_destroy(&snap->chunks);
	kfree(snap);
}

/* An empty snapshot; slabtrace_snapshot_put() frees it. */
struct slabtrace_snapshot *slabtrace_snapshot_alloc(void)
{
	struct slabtrace_snapshot *snap = kzalloc(sizeof(*snap), GFP_KERNEL);

	if (snap) {
		kref_init(&snap->kref);
		xa_init(&snap->chunks);
	}
	return snap;
}

void slabtrace_snapshot_put(struct slabtrace_snapshot *snap)
{
	kref_put(&snap->kref, snapshot_free);
}

/**
 * slabtrace_snapshot_seq - the snapshot a seq_file reader is showing
 * @m: the reader, whose ->private holds a reference on it
 * @pos: where it reads
 *
 * A reader starting from offset 0 moves to the newest snapshot, so that
 * "echo print X > ctl; cat ctl" shows X; one reading further on keeps the
 * snapshot it started with.  Its release puts m->private.
 *
 * Return: the snapshot, or NULL before the first print.
 */
struct slabtrace_snapshot *slabtrace_snapshot_seq(struct seq_file *m,
						  loff_t pos)
{
	struct slabtrace_snapshot *snap;

	if (!pos) {
		snap = slabtrace_snapshot_get();
		if (m->private)
			slabtrace_snapshot_put(m->private);
		m->private = snap;
	}
	return m->private;
}

/* The current snapshot, not referenced.  Called with slabtrace_mutex. */
struct slabtrace_snapshot *slabtrace_snapshot_current(void)
{
	lockdep_assert_held(&slabtrace_mutex);
	return current_snap;
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

/* Allocations of the snapshot's cache not recorded at all. */
long slabtrace_snapshot_dropped(const struct slabtrace_snapshot *snap)
{
	long n = 0;
	int i;

	for (i = 0; i < SLABTRACE_DROP_LOST_MAX; i++)
		n += snap->drops[i];
	return n;
}

/* How old @rec was when @snap was taken, in ms. */
u32 slabtrace_snapshot_age(const struct slabtrace_snapshot *snap,
			   const struct slabtrace_record *rec)
{
	u64 now = div_u64(snap->taken - snap->epoch, NSEC_PER_MSEC);

	return now > rec->stamp ? min_t(u64, now - rec->stamp, U32_MAX) : 0;
}

static bool wanted(const struct slabtrace_snapshot *snap,
		   const struct slabtrace_record *rec)
{
	if (rec->owner != snap->owner)
		return false;
	if (snap->opts.since_mark && rec->stamp < snap->mark)
		return false;
	return slabtrace_snapshot_age(snap, rec) >= snap->opts.older_than;
}

/* Add a copy of @rec to @snap, not yet published. */
int slabtrace_snapshot_add(struct slabtrace_snapshot *snap,
			   const struct slabtrace_record *rec)
{
	unsigned long c = snap->nr / SLABTRACE_SNAP_PER_CHUNK;
	struct slabtrace_record *chunk;
	int ret;

	if (snap->nr % SLABTRACE_SNAP_PER_CHUNK) {
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
	chunk[snap->nr % SLABTRACE_SNAP_PER_CHUNK] = *rec;
	chunk[snap->nr % SLABTRACE_SNAP_PER_CHUNK].next = NULL;
	snap->nr++;
	snap->bytes += snap->object_size;
	return 0;
}

static int fill_one(const struct slabtrace_record *rec, void *snap)
{
	return wanted(snap, rec) ? slabtrace_snapshot_add(snap, rec) : 0;
}

/**
 * slabtrace_print - take the snapshot that reading ctl shows next
 * @name: the cache, as the user names it
 * @opts: the view and the filters
 *
 * Called with slabtrace_mutex held.
 *
 * Return: 0, -ENOENT for an unknown cache, -ENODATA for a cache that is
 * not traced, -EINVAL for since-mark without a mark, -ENOMEM (the copy is
 * made with __GFP_NORETRY: it fails rather than wake the OOM killer),
 * -EINTR if the caller was killed.
 */
int slabtrace_print(const char *name, const struct slabtrace_print_opts *opts)
{
	struct slabtrace_snapshot *snap;
	struct slabtrace_traced *tr;
	int i, ret;

	lockdep_assert_held(&slabtrace_mutex);
	tr = slabtrace_traced_find("print", name);
	if (IS_ERR(tr))
		return PTR_ERR(tr);
	if (opts->since_mark && !tr->mark) {
		pr_warn("print: since-mark: %s has no mark\n", name);
		return -EINVAL;
	}
	/* Backtraces the depot had no room for when they were taken. */
	slabtrace_stack_flush();
	snap = slabtrace_snapshot_alloc();
	if (!snap)
		return -ENOMEM;
	strscpy(snap->name, name, sizeof(snap->name));
	snap->opts = *opts;
	snap->mark = tr->mark;
	snap->taken = ktime_get_mono_fast_ns();
	snap->epoch = tr->epoch;
	snap->traced_ns = slabtrace_traced_time(tr, snap->taken);
	snap->tracing = tr->tracing;
	snap->object_size = tr->object_size;
	for (i = 0; i < SLABTRACE_DROP_MAX; i++)
		snap->drops[i] = atomic_long_read(&tr->drops[i]);
	snap->owner = tr->id;
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
	ret = slabtrace_table_for_each(&slabtrace_records, fill_one, snap);
	if (!ret)
		ret = slabtrace_aggregate(snap);
	if (ret) {
		if (ret == -ENOMEM)
			pr_warn_ratelimited("print: no memory for a copy of %lu records of %s\n",
					    slabtrace_traced_count(tr), tr->name);
		slabtrace_snapshot_put(snap);
		return ret;
	}
	slabtrace_snapshot_publish(snap);
	return 0;
}

/* Make @snap what the files show, taking over its reference. */
void slabtrace_snapshot_publish(struct slabtrace_snapshot *snap)
{
	lockdep_assert_held(&slabtrace_mutex);
	if (current_snap)
		slabtrace_snapshot_put(current_snap);
	current_snap = snap;
}

/* At module exit: no reader is left, the module is pinned while open. */
void slabtrace_snapshot_exit(void)
{
	lockdep_assert_held(&slabtrace_mutex);
	if (current_snap)
		slabtrace_snapshot_put(current_snap);
	current_snap = NULL;
}
