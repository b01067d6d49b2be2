// SPDX-License-Identifier: GPL-2.0
/*
 * slab_trace: "print", a copy of one cache's records taken at one moment,
 * which reading ctl then formats (dump.c), and reading folded and
 * folded_bytes too (folded.c).  The records are filtered as they are
 * copied (older-than, since-mark) and grouped by backtrace once copied
 * (aggregate.c), whichever view was asked for.
 *
 * The copy is made of page-sized chunks found through an xarray, so a
 * cache with millions of records needs no large contiguous allocation;
 * a record is copied whole, 40 bytes, with __GFP_NORETRY: a print that
 * does not fit fails with -ENOMEM rather than wake the OOM killer, and a
 * print whose caller is killed stops.
 *
 * Each session (the shell and what it runs) has its own snapshot: "echo
 * print X > ctl; cat ctl" in one terminal shows X whatever another
 * terminal prints meanwhile.  A snapshot is kept while a task of its
 * session is alive, and goes:
 * - when its session prints again, or its cache is reset (or stops being
 *   traced), or at rmmod;
 * - soon after its session has ended: the sweep (slab_trace_snapshot_sweep())
 *   drops the snapshots of sessions with no task left, and runs when any
 *   reader of ctl, stacks or folded closes, at each print, and from a
 *   delayed work every SWEEP_PERIOD while any snapshot is kept;
 * - at most SNAP_SESSIONS are kept (the oldest goes first).
 * Readers hold a reference on the one they started on, dropped when they
 * close: so a snapshot outlives its session by at most SWEEP_PERIOD, or by
 * the life of a file someone keeps open on it.  The stats show what they
 * hold ("snapshots").
 *
 * A print copies with slab_trace_mutex dropped; a reset of its cache
 * meanwhile waits for the copy, then drops the cache's records: the copy
 * is then of records that no longer exist, and the print fails (EBUSY)
 * rather than publish it.
 *
 * Notes on locking
 * ----------------
 * - slab_trace_mutex: sessions[], owner_purges[], and the (re)arming of
 *   sweep_work.  A snapshot never changes once published; its kref says
 *   when it can go.
 * - slab_trace_print_sem: held for reading while records are copied, with
 *   slab_trace_mutex dropped so that other commands go on; held for
 *   writing (traced.c) while a cache's records are purged, so that a copy
 *   never sees a record of an owner id given out again.  Taken after
 *   slab_trace_mutex, never before it.
 * - snapshots_lock (mutex): snapshots_alive, every snapshot not yet freed,
 *   the ones readers still hold too (the context sweep needs them all).
 *   Taken after slab_trace_mutex and slab_trace_print_sem.
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
#include <linux/workqueue.h>

#include "slab.h"

/* Copies of records in progress (read) against purges (write). */
DECLARE_RWSEM(slab_trace_print_sem);
/* snapshots_alive: every snapshot not yet freed. */
static DEFINE_MUTEX(snapshots_lock);
static LIST_HEAD(snapshots_alive);

/* Sessions whose snapshot is kept, at most. */
#define SNAP_SESSIONS	8

static struct {
	struct pid *sid;
	struct slab_trace_snapshot *snap;
} sessions[SNAP_SESSIONS];

/* How often the sweep runs while any snapshot is kept. */
#define SWEEP_PERIOD	HZ

static void sweep_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(sweep_work, sweep_fn);
static bool sweep_off;		/* rmmod: not again */

/* Per record owner: how many times its records were dropped. */
static unsigned long owner_purges[SLAB_TRACE_MAX_OWNERS];

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/* Run by a print once it has copied, before it takes the mutex again. */
void (*slab_trace_test_after_copy)(void);
#endif

static void snapshot_free(struct kref *kref)
{
	struct slab_trace_snapshot *snap =
		container_of(kref, struct slab_trace_snapshot, kref);
	unsigned long i;
	void *chunk;

	mutex_lock(&snapshots_lock);
	list_del(&snap->alive);
	mutex_unlock(&snapshots_lock);
	slab_trace_groups_free(snap);
	xa_for_each(&snap->chunks, i, chunk)
		free_page((unsigned long)chunk);
	xa_destroy(&snap->chunks);
	kfree(snap);
}

/* An empty snapshot; slab_trace_snapshot_put() frees it. */
struct slab_trace_snapshot *slab_trace_snapshot_alloc(void)
{
	struct slab_trace_snapshot *snap = kzalloc(sizeof(*snap), GFP_KERNEL);

	if (snap) {
		kref_init(&snap->kref);
		xa_init(&snap->chunks);
		mutex_lock(&snapshots_lock);
		list_add(&snap->alive, &snapshots_alive);
		mutex_unlock(&snapshots_lock);
	}
	return snap;
}

void slab_trace_snapshot_put(struct slab_trace_snapshot *snap)
{
	kref_put(&snap->kref, snapshot_free);
}

/**
 * slab_trace_snapshot_seq - the snapshot a seq_file reader is showing
 * @m: the reader, whose ->private holds a reference on it
 * @pos: where it reads
 *
 * A reader starting from offset 0 moves to the newest snapshot, so that
 * "echo print X > ctl; cat ctl" shows X; one reading further on keeps the
 * snapshot it started with.  Its release puts m->private.
 *
 * Return: the snapshot, or NULL before the first print.
 */
struct slab_trace_snapshot *slab_trace_snapshot_seq(struct seq_file *m,
						    loff_t pos)
{
	struct slab_trace_reader *r = m->private;
	struct slab_trace_snapshot *snap;

	if (!pos) {
		snap = slab_trace_snapshot_get();
		if (r->snap)
			slab_trace_snapshot_put(r->snap);
		r->snap = snap;
	}
	return r->snap;
}

/**
 * slab_trace_reader_open - open a file that shows the snapshot
 * @file: ctl (opened to read), stacks, folded or folded_bytes
 * @ops: its seq_file operations; m->private is a struct slab_trace_reader
 *
 * Return: 0 or -ENOMEM.
 */
int slab_trace_reader_open(struct file *file, const struct seq_operations *ops)
{
	return seq_open_private(file, ops, sizeof(struct slab_trace_reader));
}

/* What a reader holds goes: its snapshot, its cached text. */
void slab_trace_reader_clear(struct slab_trace_reader *r)
{
	if (r->snap)
		slab_trace_snapshot_put(r->snap);
	r->snap = NULL;
	slab_trace_stack_texts_free(r->texts);
	r->texts = NULL;
}

/* A reader closes: what it holds goes, then any ended session's snapshot. */
int slab_trace_reader_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;

	slab_trace_reader_clear(m->private);
	slab_trace_snapshot_sweep();
	return seq_release_private(inode, file);
}

/* The slot of the session of current, or -1.  Called with slab_trace_mutex. */
static int session_slot(void)
{
	struct pid *sid = task_session(current);
	int i;

	lockdep_assert_held(&slab_trace_mutex);
	for (i = 0; i < SNAP_SESSIONS; i++)
		if (sessions[i].snap && sessions[i].sid == sid)
			return i;
	return -1;
}

static void slot_free(int i)
{
	slab_trace_snapshot_put(sessions[i].snap);
	put_pid(sessions[i].sid);
	sessions[i].snap = NULL;
	sessions[i].sid = NULL;
}

/* Whether any task is left in the session of slot @i. */
static bool session_alive(int i)
{
	bool alive;

	rcu_read_lock();
	alive = pid_task(sessions[i].sid, PIDTYPE_SID);
	rcu_read_unlock();
	return alive;
}

/*
 * Drop the snapshots of ended sessions; run again later if any is left.
 * Called with slab_trace_mutex held.
 */
static void sweep_locked(void)
{
	bool kept = false;
	int i;

	lockdep_assert_held(&slab_trace_mutex);
	for (i = 0; i < SNAP_SESSIONS; i++) {
		if (sessions[i].snap && !session_alive(i))
			slot_free(i);
		kept |= !!sessions[i].snap;
	}
	if (kept && !sweep_off)
		mod_delayed_work(system_wq, &sweep_work, SWEEP_PERIOD);
}

/**
 * slab_trace_snapshot_sweep - free the snapshots of sessions that ended
 *
 * May sleep.
 */
void slab_trace_snapshot_sweep(void)
{
	mutex_lock(&slab_trace_mutex);
	sweep_locked();
	mutex_unlock(&slab_trace_mutex);
}

static void sweep_fn(struct work_struct *work)
{
	slab_trace_snapshot_sweep();
}

struct snap_mem {
	unsigned long alive;
	size_t bytes;
};

static void add_mem(struct slab_trace_snapshot *snap, void *arg)
{
	struct snap_mem *sm = arg;

	sm->alive++;
	sm->bytes += sizeof(*snap) +
		     DIV_ROUND_UP(snap->nr, SLAB_TRACE_SNAP_PER_CHUNK) *
		     PAGE_SIZE +
		     snap->nr_groups * (sizeof(*snap->groups) +
					sizeof(**snap->groups));
}

/**
 * slab_trace_snapshot_stats - what the snapshots hold, for the stats
 * @kept: snapshots kept for sessions
 * @alive: snapshots not freed (the kept ones, and those readers still hold)
 * @mem: about how many bytes those hold: records, groups, headers
 *
 * May sleep.
 */
void slab_trace_snapshot_stats(unsigned long *kept, unsigned long *alive,
			       size_t *mem)
{
	struct slab_trace_snapshot *snap;
	struct snap_mem sm = { };
	int i;

	*kept = 0;
	mutex_lock(&slab_trace_mutex);
	for (i = 0; i < SNAP_SESSIONS; i++)
		*kept += !!sessions[i].snap;
	mutex_unlock(&slab_trace_mutex);
	mutex_lock(&snapshots_lock);
	list_for_each_entry(snap, &snapshots_alive, alive)
		add_mem(snap, &sm);
	mutex_unlock(&snapshots_lock);
	*alive = sm.alive;
	*mem = sm.bytes;
}

/**
 * slab_trace_snapshots_alive - call @fn on every snapshot not freed
 * @fn: the function; it may not put a snapshot
 * @arg: passed to @fn
 *
 * The kept ones, and those only readers still hold.  Called with
 * slab_trace_print_sem held for writing: none is being filled.
 */
void slab_trace_snapshots_alive(void (*fn)(struct slab_trace_snapshot *snap,
					   void *arg), void *arg)
{
	struct slab_trace_snapshot *snap;

	lockdep_assert_held_write(&slab_trace_print_sem);
	mutex_lock(&snapshots_lock);
	list_for_each_entry(snap, &snapshots_alive, alive)
		fn(snap, arg);
	mutex_unlock(&snapshots_lock);
}

/* The snapshot of current's session, referenced; NULL if there is none. */
struct slab_trace_snapshot *slab_trace_snapshot_get(void)
{
	struct slab_trace_snapshot *snap = NULL;
	int i;

	mutex_lock(&slab_trace_mutex);
	i = session_slot();
	if (i >= 0) {
		snap = sessions[i].snap;
		kref_get(&snap->kref);
	}
	mutex_unlock(&slab_trace_mutex);
	return snap;
}

/**
 * slab_trace_snapshot_drop_owner - forget the snapshots of a cache
 * @owner: its records' owner id
 *
 * For "reset": the memory goes now (readers keep theirs until they close),
 * and a print copying the cache's records will not publish.  Called with
 * slab_trace_mutex held.
 */
void slab_trace_snapshot_drop_owner(u8 owner)
{
	int i;

	lockdep_assert_held(&slab_trace_mutex);
	owner_purges[owner]++;
	for (i = 0; i < SNAP_SESSIONS; i++)
		if (sessions[i].snap && sessions[i].snap->owner == owner)
			slot_free(i);
}

struct slab_trace_record *
slab_trace_snapshot_entry(struct slab_trace_snapshot *snap, unsigned long i)
{
	struct slab_trace_record *chunk;

	if (i >= snap->nr)
		return NULL;
	chunk = xa_load(&snap->chunks, i / SLAB_TRACE_SNAP_PER_CHUNK);
	return &chunk[i % SLAB_TRACE_SNAP_PER_CHUNK];
}

/* Allocations of the snapshot's cache not recorded at all. */
long slab_trace_snapshot_dropped(const struct slab_trace_snapshot *snap)
{
	long n = 0;
	int i;

	for (i = 0; i < SLAB_TRACE_DROP_LOST_MAX; i++)
		n += snap->drops[i];
	return n;
}

/* How old @rec was when @snap was taken, in ms. */
u32 slab_trace_snapshot_age(const struct slab_trace_snapshot *snap,
			    const struct slab_trace_record *rec)
{
	u64 now = div_u64(snap->taken - snap->epoch, NSEC_PER_MSEC);

	return now > rec->stamp ? min_t(u64, now - rec->stamp, U32_MAX) : 0;
}

static bool snapshot_takes(const struct slab_trace_snapshot *snap,
			   const struct slab_trace_record *rec)
{
	if (rec->owner != snap->owner)
		return false;
	if (snap->opts.since_mark && rec->stamp < snap->mark)
		return false;
	return slab_trace_snapshot_age(snap, rec) >= snap->opts.older_than;
}

/* Add a copy of @rec to @snap, not yet published. */
int slab_trace_snapshot_add(struct slab_trace_snapshot *snap,
			    const struct slab_trace_record *rec)
{
	unsigned long c = snap->nr / SLAB_TRACE_SNAP_PER_CHUNK;
	struct slab_trace_record *chunk;
	int ret;

	if (snap->nr % SLAB_TRACE_SNAP_PER_CHUNK) {
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
	chunk[snap->nr % SLAB_TRACE_SNAP_PER_CHUNK] = *rec;
	chunk[snap->nr % SLAB_TRACE_SNAP_PER_CHUNK].next = NULL;
	snap->nr++;
	snap->bytes += snap->object_size;
	return 0;
}

static int fill_one(const struct slab_trace_record *rec, void *snap)
{
	return snapshot_takes(snap, rec) ? slab_trace_snapshot_add(snap, rec) : 0;
}

/**
 * slab_trace_print - take the snapshot that reading ctl shows next
 * @name: the cache, as the user names it
 * @opts: the view and the filters
 *
 * Called with slab_trace_mutex held; drops it while it copies the records.
 *
 * Return: 0, -ENOENT for an unknown cache, -ENODATA for a cache that is
 * not traced, -EINVAL for since-mark without a mark, -ENOMEM (the copy is
 * made with __GFP_NORETRY: it fails rather than wake the OOM killer),
 * -EINTR if the caller was killed, -EBUSY if the cache was reset while
 * its records were being copied.
 */
int slab_trace_print(const char *name, const struct slab_trace_print_opts *opts)
{
	struct slab_trace_snapshot *snap = NULL;
	struct slabtrace_cache_ref ref;
	struct slab_trace_traced *tr;
	unsigned long purges;
	int i, ret;

	lockdep_assert_held(&slab_trace_mutex);
	tr = slab_trace_traced_find("print", name, &ref);
	if (IS_ERR(tr))
		return PTR_ERR(tr);
	ret = -EINVAL;
	if (opts->since_mark && !tr->mark) {
		pr_warn_ratelimited("print: since-mark: %*pE has no mark\n", (int)strlen(name),
				    name);
		goto put;
	}
	/* Backtraces the depot had no room for when they were taken. */
	slab_trace_stack_flush();
	ret = -ENOMEM;
	snap = slab_trace_snapshot_alloc();
	if (!snap)
		goto put;
	strscpy(snap->name, name, sizeof(snap->name));
	snap->opts = *opts;
	snap->mark = tr->mark;
	snap->taken = ktime_get_mono_fast_ns();
	snap->epoch = tr->epoch;
	snap->traced_ns = slab_trace_traced_time(tr, snap->taken);
	snap->tracing = tr->tracing;
	snap->object_size = tr->object_size;
	for (i = 0; i < SLAB_TRACE_DROP_MAX; i++)
		snap->drops[i] = atomic_long_read(&tr->drops[i]);
	snap->owner = tr->id;
	snap->grow_failed = atomic_long_read(&slab_trace_records.grow_failed);
	snap->replaced = atomic_long_read(&tr->replaced);
	if (ref.merged > 0) {
		strscpy(snap->aliases, ref.aliases, sizeof(snap->aliases));
		if (ref.aliases_more)
			scnprintf(snap->aliases + strlen(snap->aliases),
				  sizeof(snap->aliases) - strlen(snap->aliases),
				  " and %d more", ref.aliases_more);
	}
	slabtrace_cache_put(&ref);
	/*
	 * The copy, with the mutex dropped: other commands go on, and a reset
	 * of this cache waits for it (slab_trace_print_sem).  Taken again
	 * after the rwsem is released, in the order the others take them.
	 */
	purges = owner_purges[snap->owner];
	down_read(&slab_trace_print_sem);
	mutex_unlock(&slab_trace_mutex);
	ret = slab_trace_table_for_each(&slab_trace_records, fill_one, snap);
	if (!ret)
		ret = slab_trace_aggregate(snap);
	up_read(&slab_trace_print_sem);
#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
	if (slab_trace_test_after_copy)
		slab_trace_test_after_copy();
#endif
	mutex_lock(&slab_trace_mutex);
	if (!ret && owner_purges[snap->owner] != purges) {
		pr_warn_ratelimited("print: %*pE was reset while its records were copied: print again\n",
				    (int)strlen(snap->name), snap->name);
		ret = -EBUSY;
	}
	if (ret) {
		if (ret == -ENOMEM)
			pr_warn_ratelimited("print: no memory for a copy of %lu records of %*pE\n",
					    snap->nr, (int)strlen(snap->name),
					    snap->name);
		slab_trace_snapshot_put(snap);
		return ret;
	}
	slab_trace_snapshot_publish(snap);
	return 0;

put:
	slabtrace_cache_put(&ref);
	return ret;
}

/*
 * Make @snap what the files show to current's session, taking over its
 * reference.  Called with slab_trace_mutex held.
 */
void slab_trace_snapshot_publish(struct slab_trace_snapshot *snap)
{
	int i, slot = -1, oldest = -1;

	lockdep_assert_held(&slab_trace_mutex);
	for (i = 0; i < SNAP_SESSIONS; i++) {
		if (sessions[i].snap && !session_alive(i))
			slot_free(i);
		if (!sessions[i].snap) {
			if (slot < 0)
				slot = i;
			continue;
		}
		if (sessions[i].sid == task_session(current)) {
			slot_free(i);
			slot = i;
			break;
		}
		if (oldest < 0 ||
		    sessions[i].snap->taken < sessions[oldest].snap->taken)
			oldest = i;
	}
	if (slot < 0) {
		slot = oldest;
		slot_free(slot);
	}
	sessions[slot].sid = get_pid(task_session(current));
	sessions[slot].snap = snap;
	sweep_locked();
}

/*
 * At module exit: no reader is left, the module is pinned while open.
 * Called with slab_trace_mutex held; slab_trace_snapshot_exit_work() follows,
 * once it is released.
 */
void slab_trace_snapshot_exit(void)
{
	int i;

	lockdep_assert_held(&slab_trace_mutex);
	sweep_off = true;
	for (i = 0; i < SNAP_SESSIONS; i++)
		if (sessions[i].snap)
			slot_free(i);
}

/* The sweep's work, which takes slab_trace_mutex, is not left queued. */
void slab_trace_snapshot_exit_work(void)
{
	cancel_delayed_work_sync(&sweep_work);
}
