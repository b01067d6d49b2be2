// SPDX-License-Identifier: GPL-2.0
/*
 * The "slabtrace_probe_path" suite proves what a probe does when it cannot
 * do its job, through the real tracepoints: an empty record pool is a
 * counted drop (never a wait, never an allocation) and the refill work
 * fills it again, also while another job of the worker waits for
 * leak_mutex, and a "pool N" whose refill fails gives back what it
 * took and keeps its size; the record limit is a counted drop; in NMI
 * (simulated) the probes only count; a full stack depot defers the
 * backtrace to a work item, and past its slots keeps the record without
 * one, counted, and a walk longer than LEAK_STACK_DEPTH frames keeps its
 * record, counted; the work running before the record is in the table
 * does not lose it, nor gives it to another record of the same cache made
 * at its address in the same millisecond; a kfree() of an object no cache holds takes no lock
 * (it would deadlock here if it did); "pool" and "limit" refuse bad
 * numbers; however many names tasks take, each record keeps its own; and
 * a stamp read a moment before its cache's epoch (the fast clock may read
 * behind another CPU's) is 0, not the saturated maximum.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <trace/events/kmem.h>

#include "st_slab_kunit.h"

#define POOL_CACHE	"st_kunit_pool"

static struct kmem_cache *pool_cache;

static void pool_ctor(void *obj)
{
}

static struct leak_traced *traced(struct kunit *test)
{
	struct leak_set *set;

	set = rcu_dereference_protected(leak_active, true);
	KUNIT_ASSERT_NOT_NULL(test, set);
	KUNIT_ASSERT_EQ(test, set->nr, 1);
	return set->traced[0];
}

/* POOL_CACHE traced, with a depot that has no room for the probes. */
static struct leak_traced *start_depot_full(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, st_cmd("start " POOL_CACHE "\n"), 0);
	WRITE_ONCE(leak_fail_depot, true);
	return traced(test);
}

/* Wait for the pool's refill work, as if the CPU had gone idle. */
static void pool_settle(void)
{
	leak_work_flush();
}

/*
 * @n allocations with preemption disabled: the refill work cannot run
 * before the last one, whatever the scheduler does.
 */
static noinline void alloc_atomic(void **objs, unsigned int n)
{
	unsigned int i;

	preempt_disable();
	for (i = 0; i < n; i++)
		objs[i] = kmem_cache_alloc(pool_cache, GFP_ATOMIC);
	preempt_enable();
}

static void free_all(void **objs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		kmem_cache_free(pool_cache, objs[i]);
}

/* An empty pool drops, counted; the refill work fills it again. */
static void slabtrace_probe_path_pool_empty(struct kunit *test)
{
	struct leak_traced *tr;
	void *objs[100];
	long rec, dropped;

	KUNIT_ASSERT_EQ(test, st_cmd("pool 16\n"), 0);
	KUNIT_ASSERT_EQ(test, st_cmd("start " POOL_CACHE "\n"), 0);
	tr = traced(test);
	alloc_atomic(objs, ARRAY_SIZE(objs));
	rec = leak_traced_count(tr);
	dropped = atomic_long_read(&tr->drops[LEAK_DROP_POOL]);
	KUNIT_EXPECT_EQ(test, rec + dropped, ARRAY_SIZE(objs));
	KUNIT_EXPECT_GE(test, rec, 16);
	KUNIT_EXPECT_GT(test, dropped, 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(st_read_ctl_of(test, POOL_CACHE),
					   "drops: pool empty "));
	free_all(objs, ARRAY_SIZE(objs));
	KUNIT_EXPECT_EQ(test, leak_traced_count(tr), 0);

	/* Refilled: the next 16 all have records. */
	pool_settle();
	KUNIT_EXPECT_GE(test, leak_pool_free_count(&leak_pool), 16);
	alloc_atomic(objs, 16);
	KUNIT_EXPECT_EQ(test, leak_traced_count(tr), 16);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&tr->drops[LEAK_DROP_POOL]),
			dropped);
	free_all(objs, 16);
}

/*
 * The refill runs while the job that detaches idle probes waits for
 * leak_mutex, as it does behind a long print: each job has its own
 * work item (worker.c).  Behind that job in one work item, the pool
 * would stay empty until the mutex is free, every allocation a drop.
 */
static void slabtrace_probe_path_refill_beside_mutex(struct kunit *test)
{
	unsigned long deadline;
	bool refilled = false;
	void *objs[100];

	KUNIT_ASSERT_EQ(test, st_cmd("pool 16\n"), 0);
	KUNIT_ASSERT_EQ(test, st_cmd("start " POOL_CACHE "\n"), 0);
	pool_settle();
	mutex_lock(&leak_mutex);
	leak_work_kick(LEAK_JOB_IDLE);
	/* The idle job runs, and waits for the mutex. */
	msleep(100);
	alloc_atomic(objs, ARRAY_SIZE(objs));
	deadline = jiffies + 5 * HZ;
	while (!refilled && time_before(jiffies, deadline)) {
		msleep(20);
		refilled = leak_pool_free_count(&leak_pool) >= 16;
	}
	mutex_unlock(&leak_mutex);
	KUNIT_EXPECT_TRUE(test, refilled);
	free_all(objs, ARRAY_SIZE(objs));
}

/* A refill that finds no memory fails the command, and nothing breaks. */
static void slabtrace_probe_path_refill_fails(struct kunit *test)
{
	struct leak_traced *tr;
	void *objs[40];

	KUNIT_ASSERT_EQ(test, st_cmd("pool 16\n"), 0);
	KUNIT_ASSERT_EQ(test, st_cmd("start " POOL_CACHE "\n"), 0);
	tr = traced(test);
	WRITE_ONCE(leak_fail_refill, 1);
	KUNIT_EXPECT_EQ(test, st_cmd("pool 64\n"), -ENOMEM);
	alloc_atomic(objs, ARRAY_SIZE(objs));
	pool_settle();
	WRITE_ONCE(leak_fail_refill, 0);
	KUNIT_EXPECT_EQ(test, leak_traced_count(tr) +
			atomic_long_read(&tr->drops[LEAK_DROP_POOL]),
			ARRAY_SIZE(objs));
	KUNIT_EXPECT_GT(test, atomic_long_read(&tr->drops[LEAK_DROP_POOL]),
			0);
	free_all(objs, ARRAY_SIZE(objs));
	KUNIT_EXPECT_EQ(test, st_cmd("pool 64\n"), 0);
}

/*
 * A refill that finds no memory is not tried again at every record the
 * probes take: one try, and one more a second at most, however many
 * allocations ask.  It was one a kick: about 30 here, 20 ms apart.
 */
static void slabtrace_probe_path_refill_backs_off(struct kunit *test)
{
	unsigned long start, tries, elapsed;
	void *objs[40];
	unsigned int i;

	KUNIT_ASSERT_EQ(test, st_cmd("pool 16\n"), 0);
	KUNIT_ASSERT_EQ(test, st_cmd("start " POOL_CACHE "\n"), 0);
	pool_settle();
	WRITE_ONCE(leak_fail_refill, 1);
	leak_refill_tries = 0;
	start = jiffies;
	/* From the 9th on, a list below half: each allocation asks. */
	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		alloc_atomic(objs + i, 1);
		msleep(20);
	}
	tries = leak_refill_tries;
	elapsed = jiffies - start;
	WRITE_ONCE(leak_fail_refill, 0);
	KUNIT_EXPECT_GE(test, tries, 1);
	KUNIT_EXPECT_LE(test, tries, 1 + elapsed / HZ);
	free_all(objs, ARRAY_SIZE(objs));
	pool_settle();
}

/*
 * A probe's kick, as its irq_work then handles it while the refill has
 * not asked to wait yet: queued to run at once.  (UML runs an irq_work at
 * the next tick, when the refill is over: the kick alone would not show
 * it.)
 */
static void kick_refill(void)
{
	leak_work_kick(LEAK_JOB_REFILL);
	leak_work_job(LEAK_JOB_REFILL, NULL, 0);
}

/*
 * Nor when a probe asks while the failing refill runs (here: at its
 * allocation): that kick queued it again at once, and the run after
 * asked again, back to back, thousands of tries a second.
 */
static void slabtrace_probe_path_refill_kicked_meanwhile(struct kunit *test)
{
	unsigned long start, tries, elapsed;
	void *objs[12];

	KUNIT_ASSERT_EQ(test, st_cmd("pool 16\n"), 0);
	KUNIT_ASSERT_EQ(test, st_cmd("start " POOL_CACHE "\n"), 0);
	pool_settle();
	WRITE_ONCE(leak_fail_refill, 1);
	leak_refill_tries = 0;
	leak_test_in_refill = kick_refill;
	start = jiffies;
	/* The 9th leaves the list below half: it asks. */
	alloc_atomic(objs, ARRAY_SIZE(objs));
	msleep(500);
	tries = leak_refill_tries;
	elapsed = jiffies - start;
	leak_test_in_refill = NULL;
	WRITE_ONCE(leak_fail_refill, 0);
	KUNIT_EXPECT_GE(test, tries, 1);
	KUNIT_EXPECT_LE(test, tries, 1 + elapsed / HZ);
	free_all(objs, ARRAY_SIZE(objs));
	pool_settle();
}

/*
 * A record table that cannot grow takes LEAK_TABLE_LOAD_MAX records a
 * bucket, no more: past that, the probes drop, counted as the limit's.
 * Filled here with records of no traced cache, keyed by odd addresses
 * (their own, plus one) that no object has.
 */
static void slabtrace_probe_path_table_full(struct kunit *test)
{
	struct leak_record **fill, *rec;
	unsigned long i, n, made;
	struct leak_traced *tr;
	void *obj = NULL;

	KUNIT_ASSERT_EQ(test, st_cmd("limit 100000000\n"), 0);
	KUNIT_ASSERT_EQ(test, st_cmd("start " POOL_CACHE "\n"), 0);
	tr = traced(test);
	pool_settle();
	n = LEAK_TABLE_LOAD_MAX * leak_table_buckets(&leak_records) -
	    leak_table_count(&leak_records);
	if (n > (1UL << 18))
		kunit_skip(test, "the table has grown: %lu records to fill", n);
	fill = kvcalloc(n, sizeof(*fill), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fill);
	WRITE_ONCE(leak_fail_grow, true);
	for (i = 0; i < n; i++) {
		fill[i] = kmem_cache_zalloc(leak_record_cache, GFP_KERNEL);
		if (!fill[i])
			break;
		fill[i]->obj = (char *)fill[i] + 1;
		fill[i]->owner = LEAK_MAX_OWNERS - 1;
		leak_table_insert(&leak_records, fill[i]);
	}
	made = i;
	if (made == n)
		alloc_atomic(&obj, 1);
	for (i = 0; i < made; i++) {
		rec = leak_table_remove(&leak_records, fill[i]->obj);
		KUNIT_EXPECT_PTR_EQ(test, rec, fill[i]);
		kmem_cache_free(leak_record_cache, fill[i]);
	}
	kvfree(fill);
	WRITE_ONCE(leak_fail_grow, false);
	WRITE_ONCE(leak_records.grow_retry, jiffies);
	KUNIT_ASSERT_EQ(test, made, n);
	KUNIT_EXPECT_EQ(test, leak_traced_count(tr), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&tr->drops[LEAK_DROP_LIMIT]), 1);
	if (obj)
		kmem_cache_free(pool_cache, obj);
}

/* A "pool N" that runs out of memory keeps its size and takes nothing. */
static void slabtrace_probe_path_resize_gives_back(struct kunit *test)
{
	long before;

	KUNIT_ASSERT_EQ(test, st_cmd("pool 16\n"), 0);
	KUNIT_ASSERT_EQ(test, st_cmd("start " POOL_CACHE "\n"), 0);
	pool_settle();
	before = atomic_long_read(&leak_pool.allocated);
	/* 39 records more, then no memory. */
	WRITE_ONCE(leak_fail_refill, 40);
	KUNIT_EXPECT_EQ(test, st_cmd("pool 1024\n"), -ENOMEM);
	WRITE_ONCE(leak_fail_refill, 0);
	KUNIT_EXPECT_EQ(test, leak_pool.size, 16);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&leak_pool.allocated),
			before);
	KUNIT_EXPECT_EQ(test, st_cmd("pool 1024\n"), 0);
	KUNIT_EXPECT_EQ(test, leak_pool.size, 1024);
}

/* The record limit: what is past it is dropped, counted. */
static void slabtrace_probe_path_limit(struct kunit *test)
{
	struct leak_traced *tr;
	void *objs[10];

	KUNIT_ASSERT_EQ(test, st_cmd("limit 4\n"), 0);
	KUNIT_ASSERT_EQ(test, st_cmd("start " POOL_CACHE "\n"), 0);
	tr = traced(test);
	alloc_atomic(objs, ARRAY_SIZE(objs));
	KUNIT_EXPECT_EQ(test, leak_traced_count(tr), 4);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&tr->drops[LEAK_DROP_LIMIT]),
			6);
	KUNIT_EXPECT_NOT_NULL(test, strstr(st_read_ctl_of(test, POOL_CACHE),
					   ", 4 outstanding (800 bytes), 6 records dropped\n"
					   "drops: limit reached 6\n"));
	free_all(objs, ARRAY_SIZE(objs));
	KUNIT_EXPECT_EQ(test, leak_traced_count(tr), 0);
}

/* An allocation @depth calls deep (not tail calls: the result is used). */
static noinline void *alloc_deep(unsigned int depth)
{
	void *obj;

	if (!depth)
		return kmem_cache_alloc(pool_cache, GFP_KERNEL);
	obj = alloc_deep(depth - 1);
	OPTIMIZER_HIDE_VAR(obj);
	return obj;
}

/*
 * A walk with more than LEAK_STACK_DEPTH frames was cut: the record keeps
 * what the first LEAK_STACK_DEPTH give, counted as "stack truncated"; a
 * shallow one is not.
 */
static void slabtrace_probe_path_deep_stack(struct kunit *test)
{
	struct leak_traced *tr;
	void *shallow, *deep;

	KUNIT_ASSERT_EQ(test, st_cmd("start " POOL_CACHE "\n"), 0);
	tr = traced(test);
	shallow = alloc_deep(0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&tr->drops[LEAK_DROP_DEEP]), 0);
	deep = alloc_deep(LEAK_STACK_DEPTH + 8);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&tr->drops[LEAK_DROP_DEEP]), 1);
	KUNIT_EXPECT_EQ(test, leak_traced_count(tr), 2);
	KUNIT_EXPECT_NOT_NULL(test, strstr(st_read_ctl_of(test, POOL_CACHE),
					   ", 2 outstanding (400 bytes), 0 records dropped\n"
					   "drops: stack truncated 1\n"));
	kmem_cache_free(pool_cache, shallow);
	kmem_cache_free(pool_cache, deep);
}

/* In NMI a probe takes no lock: allocations are counted, frees wait. */
static void slabtrace_probe_path_nmi(struct kunit *test)
{
	struct leak_traced *tr;
	void *objs[3], *obj;

	KUNIT_ASSERT_EQ(test, st_cmd("start " POOL_CACHE "\n"), 0);
	tr = traced(test);
	obj = kmem_cache_alloc(pool_cache, GFP_KERNEL);
	WRITE_ONCE(leak_fake_nmi, true);
	alloc_atomic(objs, ARRAY_SIZE(objs));
	/* Its free is not seen: the record stays until the address is reused. */
	kmem_cache_free(pool_cache, obj);
	WRITE_ONCE(leak_fake_nmi, false);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&tr->drops[LEAK_DROP_NMI]),
			3);
	KUNIT_EXPECT_EQ(test, leak_traced_count(tr), 1);
	free_all(objs, ARRAY_SIZE(objs));
}

/*
 * A full depot: the backtrace is saved later, from process context, and
 * given to the records waiting for it; past its slot's room it is lost,
 * counted, and the record is kept without it.
 */
static void slabtrace_probe_path_depot_full(struct kunit *test)
{
	const unsigned int n = LEAK_STACK_WAITERS + 4;
	struct leak_snapshot *snap;
	struct leak_record *rec;
	unsigned int i, with = 0;
	struct leak_traced *tr;
	void *objs[LEAK_STACK_WAITERS + 4];
	long deferred = leak_stack_deferred();

	tr = start_depot_full(test);
	alloc_atomic(objs, n);
	WRITE_ONCE(leak_fail_depot, false);
	/* One trace, one slot: its waiters, then losses. */
	KUNIT_EXPECT_EQ(test, leak_stack_deferred() - deferred,
			LEAK_STACK_WAITERS);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&tr->drops[LEAK_DROP_STACK]),
			n - LEAK_STACK_WAITERS);
	/* print waits for the deferred saves. */
	snap = st_print(test, POOL_CACHE);
	KUNIT_EXPECT_EQ(test, snap->nr, n);
	KUNIT_EXPECT_EQ(test, leak_snapshot_dropped(snap), 0);
	for (i = 0; i < n; i++) {
		rec = st_find(snap, objs[i]);
		KUNIT_ASSERT_NOT_NULL(test, rec);
		if (rec->stack) {
			with++;
			KUNIT_EXPECT_TRUE(test, st_first_frame_is(rec, alloc_atomic));
		}
	}
	KUNIT_EXPECT_EQ(test, with, LEAK_STACK_WAITERS);
	leak_snapshot_put(snap);
	KUNIT_EXPECT_NOT_NULL(test, strstr(st_read_ctl(test),
					   "(backtrace not saved)"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(st_read_ctl(test),
					   "drops: stack store full 4"));
	free_all(objs, n);
}

/*
 * A deferred trace the depot cannot save later either (the work's save
 * fails too): the record keeps no backtrace, and the drop is counted, so
 * that the print's drops say why its line has none.
 */
static void slabtrace_probe_path_depot_full_drain(struct kunit *test)
{
	struct leak_snapshot *snap;
	struct leak_record *rec;
	struct leak_traced *tr;
	void *obj;

	WRITE_ONCE(leak_fail_drain, true);
	tr = start_depot_full(test);
	alloc_atomic(&obj, 1);
	WRITE_ONCE(leak_fail_depot, false);
	/* Waits for the work's drain, if it runs; both fail. */
	leak_stack_flush();
	WRITE_ONCE(leak_fail_drain, false);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&tr->drops[LEAK_DROP_STACK]),
			1);
	snap = st_print(test, POOL_CACHE);
	rec = st_find(snap, obj);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	KUNIT_EXPECT_EQ(test, rec->stack, 0);
	leak_snapshot_put(snap);
	KUNIT_EXPECT_NOT_NULL(test, strstr(st_read_ctl(test),
					   "drops: stack store full 1"));
	free_all(&obj, 1);
}

/*
 * A deferred trace the work cannot save either is no drop for a record
 * that is gone: its object freed before the drain (or its cache reset,
 * its owner id perhaps another cache's by then).
 */
static void slabtrace_probe_path_depot_full_drain_freed(struct kunit *test)
{
	struct leak_traced *tr;
	void *obj;

	WRITE_ONCE(leak_fail_drain, true);
	tr = start_depot_full(test);
	/* Freed before the work can run on this CPU. */
	preempt_disable();
	alloc_atomic(&obj, 1);
	free_all(&obj, 1);
	preempt_enable();
	WRITE_ONCE(leak_fail_depot, false);
	leak_stack_flush();
	WRITE_ONCE(leak_fail_drain, false);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&tr->drops[LEAK_DROP_STACK]),
			0);
	KUNIT_EXPECT_EQ(test, leak_traced_count(tr), 0);
}

/*
 * The work that saves deferred backtraces may run on another CPU while a
 * probe is between saving its trace and inserting its record: here it
 * runs there (a test hook), and the record still gets its backtrace.
 */
static void slabtrace_probe_path_depot_full_work_first(struct kunit *test)
{
	struct leak_snapshot *snap;
	struct leak_record *rec;
	struct leak_traced *tr;
	void *obj;

	tr = start_depot_full(test);
	leak_test_before_insert = leak_stack_drain_now;
	alloc_atomic(&obj, 1);
	leak_test_before_insert = NULL;
	WRITE_ONCE(leak_fail_depot, false);
	snap = st_print(test, POOL_CACHE);
	rec = st_find(snap, obj);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	KUNIT_EXPECT_NE(test, rec->stack, 0);
	KUNIT_EXPECT_TRUE(test, st_first_frame_is(rec, alloc_atomic));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&tr->drops[LEAK_DROP_STACK]),
			0);
	leak_snapshot_put(snap);
	free_all(&obj, 1);
}

/* The allocator, as the probes see it: its caller is the call site. */
static noinline void fake_alloc(void *obj)
{
	trace_kmem_cache_alloc(_RET_IP_, obj, pool_cache, GFP_ATOMIC,
			       NUMA_NO_NODE);
}

/* Wait for a millisecond to begin: its stamp. */
static u32 next_ms(const struct leak_traced *tr)
{
	u32 stamp = leak_stamp(tr, ktime_get_mono_fast_ns()), now;

	while ((now = leak_stamp(tr, ktime_get_mono_fast_ns())) == stamp)
		cpu_relax();
	return now;
}

/*
 * Allocations of @objs[0..@n-1], one call site (one backtrace).  Just
 * before the last, at a millisecond's start, its address is allocated
 * from another call site and freed.  The events are the tracepoints' own:
 * KASAN's quarantine keeps SLUB from handing an address out again at once.
 *
 * Return: whether the last two had one stamp.
 */
static noinline bool alloc_reused(const struct leak_traced *tr, void **objs,
				  unsigned int n)
{
	unsigned int i;
	u32 stamp = 0;
	bool same;

	preempt_disable();
	for (i = 0; i < n; i++) {
		if (i == n - 1) {
			stamp = next_ms(tr);
			fake_alloc(objs[i]);
			trace_kmem_cache_free(_THIS_IP_, objs[i], pool_cache);
		}
		fake_alloc(objs[i]);
	}
	same = leak_stamp(tr, ktime_get_mono_fast_ns()) == stamp;
	preempt_enable();
	return same;
}

/*
 * A deferred record's object is freed and its address allocated again by
 * the same cache in the same millisecond: the new record (B) is not the
 * one waiting (A).  A's trace is in the newer slot, drained first; B
 * waits in the older one, with P, a record of its own backtrace, and
 * gets that, never A's.
 */
static void slabtrace_probe_path_depot_full_reused(struct kunit *test)
{
	struct leak_record *p, *b;
	struct leak_snapshot *snap;
	struct leak_traced *tr;
	unsigned int tries;
	void *objs[2];

	/* Before "start": only the events below are traced. */
	objs[0] = kmem_cache_alloc(pool_cache, GFP_KERNEL);
	objs[1] = kmem_cache_alloc(pool_cache, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs[0]);
	KUNIT_ASSERT_NOT_NULL(test, objs[1]);
	tr = start_depot_full(test);
	for (tries = 1; !alloc_reused(tr, objs, ARRAY_SIZE(objs)); tries++) {
		/* Another millisecond began meanwhile: again. */
		KUNIT_ASSERT_LT(test, tries, 5);
		leak_stack_drain_now();
	}
	WRITE_ONCE(leak_fail_depot, false);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&tr->drops[LEAK_DROP_STACK]),
			0);
	snap = st_print(test, POOL_CACHE);
	p = st_find(snap, objs[0]);
	b = st_find(snap, objs[1]);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_NE(test, p->stack, 0);
	KUNIT_EXPECT_TRUE(test, st_first_frame_is(p, alloc_reused));
	KUNIT_EXPECT_EQ(test, b->stack, p->stack);
	leak_snapshot_put(snap);
	free_all(objs, ARRAY_SIZE(objs));
}

/*
 * The free of an object no cache holds checks the table without a lock:
 * with the lock its record would be under held here, kfree() returns.
 * (Were it to take the lock, this CPU would spin on it forever.)
 */
static void slabtrace_probe_path_free_untraced_no_lock(struct kunit *test)
{
	void *objs[64], *kept[16], *victim = NULL;
	unsigned long flags;
	raw_spinlock_t *lock;
	unsigned int i;
	bool maybe;

	KUNIT_ASSERT_EQ(test, st_cmd("start " POOL_CACHE "\n"), 0);
	alloc_atomic(kept, ARRAY_SIZE(kept));
	KUNIT_ASSERT_EQ(test, st_cmd("stop " POOL_CACHE "\n"), 0);
	/* kmalloc-64 objects, untraced, that the lockless check rules out. */
	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		objs[i] = kmalloc(64, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
		rcu_read_lock_sched();
		maybe = leak_table_maybe(&leak_records, objs[i]);
		rcu_read_unlock_sched();
		if (!victim && !maybe)
			victim = objs[i];
	}
	KUNIT_ASSERT_NOT_NULL(test, victim);
	lock = leak_table_lock_of(&leak_records, victim);
	raw_spin_lock_irqsave(lock, flags);
	kfree(victim);
	raw_spin_unlock_irqrestore(lock, flags);
	for (i = 0; i < ARRAY_SIZE(objs); i++)
		if (objs[i] != victim)
			kfree(objs[i]);
	free_all(kept, ARRAY_SIZE(kept));
	KUNIT_EXPECT_EQ(test, leak_table_count(&leak_records), 0);
}

/* "pool N" and "limit N" refuse what they cannot do, with an errno. */
static void slabtrace_probe_path_bad_numbers(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, st_cmd("pool 0\n"), -ERANGE);
	KUNIT_EXPECT_EQ(test, st_cmd("pool 15\n"), -ERANGE);
	KUNIT_EXPECT_EQ(test, st_cmd("pool 1048577\n"), -ERANGE);
	KUNIT_EXPECT_EQ(test, st_cmd("pool 18446744073709551616\n"), -ERANGE);
	KUNIT_EXPECT_EQ(test, st_cmd("pool 12k\n"), -EINVAL);
	KUNIT_EXPECT_EQ(test, st_cmd("pool 0x100\n"), -EINVAL);
	KUNIT_EXPECT_EQ(test, st_cmd("pool -5\n"), -EINVAL);
	KUNIT_EXPECT_EQ(test, st_cmd("pool\n"), -EINVAL);
	KUNIT_EXPECT_EQ(test, st_cmd("pool 16 32\n"), -EINVAL);
	KUNIT_EXPECT_EQ(test, st_cmd("limit 0\n"), -EINVAL);
	KUNIT_EXPECT_EQ(test, st_cmd("limit 0x10\n"), -EINVAL);
	KUNIT_EXPECT_EQ(test, st_cmd("limit 99999999999999999999\n"), -ERANGE);
	KUNIT_EXPECT_EQ(test, leak_pool.size, LEAK_POOL_DEFAULT);
}

/* Allocate from the pool's cache as a task called "@prefix@i". */
static void *alloc_as(const char *prefix, unsigned int i)
{
	char name[TASK_COMM_LEN];

	/* The pool is refilled in time: every allocation has its record. */
	if (!(i % 512))
		pool_settle();
	snprintf(name, sizeof(name), "%s%u", prefix, i);
	set_task_comm(current, name);
	return kmem_cache_alloc(pool_cache, GFP_KERNEL);
}

/* Whether a record of @snap was made by a task called @comm. */
static bool snap_has_comm(struct leak_snapshot *snap, const char *comm)
{
	const struct leak_record *rec;
	unsigned long i;

	for (i = 0; (rec = leak_snapshot_entry(snap, i)); i++)
		if (!strcmp(rec->who.comm, comm))
			return true;
	return false;
}

/*
 * Any user can make new names (prctl(PR_SET_NAME)): however many, each
 * record keeps its own, with nothing to reclaim and no drop.  70,000
 * names: more than the 65,533 a table of interned names held.
 */
#define NAMES	70000

static void slabtrace_probe_path_names(struct kunit *test)
{
	struct leak_snapshot *snap;
	char saved[TASK_COMM_LEN];
	struct leak_traced *tr;
	unsigned int i;
	void **kept;

	kept = kvcalloc(NAMES, sizeof(*kept), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, kept);
	get_task_comm(saved, current);
	KUNIT_ASSERT_EQ(test, st_cmd("pool 4096\n"), 0);
	KUNIT_ASSERT_EQ(test, st_cmd("limit %u\n", 2 * NAMES), 0);
	KUNIT_ASSERT_EQ(test, st_cmd("start " POOL_CACHE "\n"), 0);
	tr = traced(test);
	for (i = 0; i < NAMES; i++)
		kept[i] = alloc_as("st_name", i);
	set_task_comm(current, saved);
	KUNIT_EXPECT_EQ(test, leak_traced_count(tr), NAMES);
	KUNIT_EXPECT_EQ(test, leak_traced_dropped(tr), 0);
	snap = st_print(test, POOL_CACHE);
	KUNIT_EXPECT_TRUE(test, snap_has_comm(snap, "st_name0"));
	KUNIT_EXPECT_TRUE(test, snap_has_comm(snap, "st_name65600"));
	KUNIT_EXPECT_TRUE(test, snap_has_comm(snap, "st_name69999"));
	leak_snapshot_put(snap);
	free_all(kept, NAMES);
	kvfree(kept);
}

static unsigned long saved_limit;

static int slabtrace_probe_path_init(struct kunit *test)
{
	saved_limit = leak_record_limit;
	return 0;
}

/* Leave nothing traced, and the defaults, for the next case. */
static void slabtrace_probe_path_exit(struct kunit *test)
{
	WRITE_ONCE(leak_fail_refill, 0);
	leak_test_in_refill = NULL;
	WRITE_ONCE(leak_fail_depot, false);
	WRITE_ONCE(leak_fail_drain, false);
	WRITE_ONCE(leak_fake_nmi, false);
	leak_test_before_insert = NULL;
	st_cmd("stop " POOL_CACHE "\n");
	st_cmd("reset " POOL_CACHE "\n");
	st_cmd("pool %u\n", LEAK_POOL_DEFAULT);
	st_cmd("limit %lu\n", saved_limit);
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(leak_active));
	st_expect_lockdep_clean(test);
}

static int slabtrace_probe_path_suite_init(struct kunit_suite *suite)
{
	pool_cache = kmem_cache_create(POOL_CACHE, 200, 0, 0, pool_ctor);
	return pool_cache ? 0 : -ENOMEM;
}

static void slabtrace_probe_path_suite_exit(struct kunit_suite *suite)
{
	kmem_cache_destroy(pool_cache);
}

static void slabtrace_probe_path_stamp(struct kunit *test)
{
	struct leak_traced *tr = kunit_kzalloc(test, sizeof(*tr), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tr);
	tr->epoch = 1000ULL * NSEC_PER_SEC;
	KUNIT_EXPECT_EQ(test, leak_stamp(tr, tr->epoch - 1), 0U);
	KUNIT_EXPECT_EQ(test, leak_stamp(tr, tr->epoch - 5 * NSEC_PER_MSEC), 0U);
	KUNIT_EXPECT_EQ(test, leak_stamp(tr, tr->epoch), 0U);
	KUNIT_EXPECT_EQ(test, leak_stamp(tr, tr->epoch + 7 * NSEC_PER_MSEC + 1),
			7U);
	KUNIT_EXPECT_EQ(test, leak_stamp(tr, tr->epoch +
					 2ULL * U32_MAX * NSEC_PER_MSEC), U32_MAX);
}

static struct kunit_case slabtrace_probe_path_cases[] = {
	KUNIT_CASE(slabtrace_probe_path_pool_empty),
	KUNIT_CASE(slabtrace_probe_path_refill_beside_mutex),
	KUNIT_CASE(slabtrace_probe_path_refill_fails),
	KUNIT_CASE(slabtrace_probe_path_refill_backs_off),
	KUNIT_CASE(slabtrace_probe_path_refill_kicked_meanwhile),
	KUNIT_CASE(slabtrace_probe_path_table_full),
	KUNIT_CASE(slabtrace_probe_path_resize_gives_back),
	KUNIT_CASE(slabtrace_probe_path_limit),
	KUNIT_CASE(slabtrace_probe_path_nmi),
	KUNIT_CASE(slabtrace_probe_path_deep_stack),
	KUNIT_CASE(slabtrace_probe_path_depot_full),
	KUNIT_CASE(slabtrace_probe_path_depot_full_drain),
	KUNIT_CASE(slabtrace_probe_path_depot_full_drain_freed),
	KUNIT_CASE(slabtrace_probe_path_depot_full_work_first),
	KUNIT_CASE(slabtrace_probe_path_depot_full_reused),
	KUNIT_CASE(slabtrace_probe_path_free_untraced_no_lock),
	KUNIT_CASE(slabtrace_probe_path_bad_numbers),
	KUNIT_CASE(slabtrace_probe_path_names),
	KUNIT_CASE(slabtrace_probe_path_stamp),
	{}
};

static struct kunit_suite slabtrace_probe_path_suite = {
	.name = "slabtrace_probe_path",
	.init = slabtrace_probe_path_init,
	.exit = slabtrace_probe_path_exit,
	.suite_init = slabtrace_probe_path_suite_init,
	.suite_exit = slabtrace_probe_path_suite_exit,
	.test_cases = slabtrace_probe_path_cases,
};

kunit_test_suite(slabtrace_probe_path_suite);

MODULE_LICENSE("GPL");
