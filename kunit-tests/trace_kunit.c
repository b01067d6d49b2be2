// SPDX-License-Identifier: GPL-2.0
/*
 * The "slabtrace_trace" suite proves the core semantics through the real
 * tracepoints: a traced cache has exactly one record per outstanding
 * object (a stale one goes, counted, when its address is allocated or
 * freed by another cache), whose backtrace starts at the allocating
 * function and whose context is right in task, softirq and hardirq
 * context; stop keeps
 * records and frees still drop them; reset empties; kmalloc() lands in its
 * kmalloc-N cache; the probes are detached when nothing needs them, and a
 * record an alloc probe inserts while "stop" detaches them still has its
 * free seen; a print whose cache is reset while it copies publishes
 * nothing; and a cache destroyed while traced is dropped without its
 * address being able to match a new cache.  Each record has the
 * allocation's GFP flags and its memory's node.  "kmalloc-large" holds
 * exactly the kmalloc() objects the page allocator serves, of either path
 * (a size known at compile time or not), "percpu" the alloc_percpu()
 * ones, and their frees drop them.  A filter on start records only the
 * allocations of its processes, command name or cgroup, counts the
 * others, is replaced by the next start, survives a reset, and bad
 * filters are refused.  "sample N" records about 1 in N allocations, its
 * estimate within a stated bound of the truth.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/hardirq.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <trace/events/kmem.h>

#include "st_slab_kunit.h"

#define OBJ_CACHE	"st_kunit_obj"
#define OBJ_SIZE	200

static struct kmem_cache *obj_cache;

/* A constructor keeps the cache from being merged with any other. */
static void obj_ctor(void *obj)
{
}

/* Not inlined, not a tail call: each is one frame, the allocator's caller. */
static noinline void *alloc_obj(gfp_t gfp)
{
	void *p = kmem_cache_alloc(obj_cache, gfp);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

static noinline void *kmalloc_50(void)
{
	void *p = kmalloc(50, GFP_KERNEL);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

/* Past the biggest kmalloc cache: the page allocator's. */
#define LARGE_SIZE	(KMALLOC_MAX_CACHE_SIZE * 2)
/* Seen by the compiler as unknown: __kmalloc(), not kmalloc_large(). */
static size_t large_var_size = KMALLOC_MAX_CACHE_SIZE + 1;

static noinline void *kmalloc_large_const(void)
{
	void *p = kmalloc(LARGE_SIZE, GFP_KERNEL);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

static noinline void *kmalloc_large_var(void)
{
	void *p = kmalloc(READ_ONCE(large_var_size), GFP_KERNEL | __GFP_ZERO);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

static noinline u64 __percpu *alloc_percpu_u64(void)
{
	u64 __percpu *p = alloc_percpu(u64);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

/* start, allocate N, free M: exactly N - M records, the right ones. */
static void slabtrace_trace_outstanding(struct kunit *test)
{
	struct leak_snapshot *snap;
	void *objs[10];
	unsigned int i;

	KUNIT_ASSERT_EQ(test, st_cmd("start " OBJ_CACHE "\n"), 0);
	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		objs[i] = alloc_obj(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
	}
	for (i = 0; i < 4; i++)
		kmem_cache_free(obj_cache, objs[i]);

	snap = st_print(test, OBJ_CACHE);
	KUNIT_EXPECT_EQ(test, snap->nr, 6);
	KUNIT_EXPECT_EQ(test, snap->bytes, 6 * OBJ_SIZE);
	KUNIT_EXPECT_EQ(test, snap->object_size, OBJ_SIZE);
	for (i = 0; i < ARRAY_SIZE(objs); i++)
		KUNIT_EXPECT_EQ_MSG(test, !!st_find(snap, objs[i]), i >= 4,
				    "object %u", i);
	leak_snapshot_put(snap);

	for (; i-- > 4;)
		kmem_cache_free(obj_cache, objs[i]);
	KUNIT_EXPECT_EQ(test, st_outstanding(test, OBJ_CACHE), 0);
}

/*
 * Frame #01 is the function that called the allocator, and the walk goes
 * on past it: #02 is its caller, this case.
 */
static void slabtrace_trace_first_frame(struct kunit *test)
{
	struct leak_snapshot *snap;
	const struct leak_record *rec;
	void *obj;

	KUNIT_ASSERT_EQ(test, st_cmd("start " OBJ_CACHE "\n"), 0);
	obj = alloc_obj(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	snap = st_print(test, OBJ_CACHE);
	rec = st_find(snap, obj);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	KUNIT_EXPECT_TRUE(test, st_first_frame_is(rec, alloc_obj));
	KUNIT_EXPECT_TRUE(test, st_frame_is(rec, 1, slabtrace_trace_first_frame));
	/* The context of a KUnit case: its kthread. */
	KUNIT_EXPECT_EQ(test, rec->who.ctx, LEAK_CTX_KTHREAD);
	KUNIT_EXPECT_STREQ(test, rec->who.comm, current->comm);
	KUNIT_EXPECT_EQ(test, rec->who.pid, task_pid_nr(current));
	KUNIT_EXPECT_EQ(test, rec->bytes_req, OBJ_SIZE);
	leak_snapshot_put(snap);
	kmem_cache_free(obj_cache, obj);
}

/* After stop, nothing new is recorded and frees still drop records. */
static void slabtrace_trace_stop_then_free(struct kunit *test)
{
	void *objs[3], *late;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, st_cmd("start " OBJ_CACHE "\n"), 0);
	for (i = 0; i < ARRAY_SIZE(objs); i++)
		objs[i] = alloc_obj(GFP_KERNEL);
	KUNIT_ASSERT_EQ(test, st_cmd("stop " OBJ_CACHE "\n"), 0);
	late = alloc_obj(GFP_KERNEL);
	kmem_cache_free(obj_cache, objs[0]);
	KUNIT_EXPECT_EQ(test, st_outstanding(test, OBJ_CACHE), 2);
	/* kfree() of a kmem_cache object drops it too. */
	kfree(objs[1]);
	KUNIT_EXPECT_EQ(test, st_outstanding(test, OBJ_CACHE), 1);
	kmem_cache_free(obj_cache, objs[2]);
	kmem_cache_free(obj_cache, late);
	KUNIT_EXPECT_EQ(test, st_outstanding(test, OBJ_CACHE), 0);
}

/* reset empties; a traced cache stays traced, a stopped one is forgotten. */
static void slabtrace_trace_reset(struct kunit *test)
{
	void *objs[3], *after;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, st_cmd("start " OBJ_CACHE "\n"), 0);
	for (i = 0; i < ARRAY_SIZE(objs); i++)
		objs[i] = alloc_obj(GFP_KERNEL);
	KUNIT_EXPECT_EQ(test, st_cmd("print " OBJ_CACHE "\n"), 0);
	KUNIT_ASSERT_EQ(test, st_cmd("reset " OBJ_CACHE "\n"), 0);
	/* The reset took the snapshot's memory with the records. */
	KUNIT_EXPECT_NULL(test, leak_print_get(NULL));
	KUNIT_EXPECT_EQ(test, st_outstanding(test, OBJ_CACHE), 0);
	after = alloc_obj(GFP_KERNEL);
	KUNIT_EXPECT_EQ(test, st_outstanding(test, OBJ_CACHE), 1);

	KUNIT_ASSERT_EQ(test, st_cmd("stop " OBJ_CACHE "\n"), 0);
	KUNIT_ASSERT_EQ(test, st_cmd("reset " OBJ_CACHE "\n"), 0);
	KUNIT_EXPECT_EQ(test, st_cmd("print " OBJ_CACHE "\n"), -ENODATA);
	for (i = 0; i < ARRAY_SIZE(objs); i++)
		kmem_cache_free(obj_cache, objs[i]);
	kmem_cache_free(obj_cache, after);
}

/*
 * A reset that cannot publish its fresh tables undoes itself: every cache
 * goes on being traced with the records it had, and frees still drop them.
 */
static void slabtrace_trace_reset_fails(struct kunit *test)
{
	struct leak_snapshot *snap;
	void *objs[3], *p;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, st_cmd("start " OBJ_CACHE "\n"), 0);
	KUNIT_ASSERT_EQ(test, st_cmd("start kmalloc-64\n"), 0);
	for (i = 0; i < ARRAY_SIZE(objs); i++)
		objs[i] = alloc_obj(GFP_KERNEL);
	p = kmalloc_50();
	KUNIT_ASSERT_NOT_NULL(test, p);

	WRITE_ONCE(leak_fail_set, true);
	KUNIT_EXPECT_EQ(test, st_cmd("reset all\n"), -ENOMEM);
	WRITE_ONCE(leak_fail_set, false);
	KUNIT_EXPECT_EQ(test, st_outstanding(test, OBJ_CACHE), 3);
	snap = st_print(test, "kmalloc-64");
	KUNIT_EXPECT_NOT_NULL(test, st_find(snap, p));
	leak_snapshot_put(snap);
	kmem_cache_free(obj_cache, objs[0]);
	KUNIT_EXPECT_EQ(test, st_outstanding(test, OBJ_CACHE), 2);
	objs[0] = alloc_obj(GFP_KERNEL);
	KUNIT_EXPECT_EQ(test, st_outstanding(test, OBJ_CACHE), 3);

	KUNIT_ASSERT_EQ(test, st_cmd("reset all\n"), 0);
	KUNIT_EXPECT_EQ(test, st_outstanding(test, OBJ_CACHE), 0);
	for (i = 0; i < ARRAY_SIZE(objs); i++)
		kmem_cache_free(obj_cache, objs[i]);
	kfree(p);
}

/* kmalloc(50) is a kmalloc-64 object, 50 bytes requested. */
static void slabtrace_trace_kmalloc(struct kunit *test)
{
	struct leak_snapshot *snap;
	const struct leak_record *rec;
	void *p;

	KUNIT_ASSERT_EQ(test, st_cmd("start kmalloc-64\n"), 0);
	p = kmalloc_50();
	KUNIT_ASSERT_NOT_NULL(test, p);
	snap = st_print(test, "kmalloc-64");
	KUNIT_EXPECT_EQ(test, snap->object_size, 64);
	rec = st_find(snap, p);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	KUNIT_EXPECT_EQ(test, rec->bytes_req, 50);
	KUNIT_EXPECT_TRUE(test, st_first_frame_is(rec, kmalloc_50));
	KUNIT_EXPECT_EQ(test, rec->gfp, (__force u32)GFP_KERNEL);
	KUNIT_EXPECT_EQ(test, rec->node, page_to_nid(virt_to_page(p)));
	leak_snapshot_put(snap);

	kfree(p);
	snap = st_print(test, "kmalloc-64");
	KUNIT_EXPECT_NULL(test, st_find(snap, p));
	leak_snapshot_put(snap);

	/* Not kmalloc-128's: a 50-byte kmalloc is never there. */
	KUNIT_ASSERT_EQ(test, st_cmd("start kmalloc-128\n"), 0);
	p = kmalloc_50();
	snap = st_print(test, "kmalloc-128");
	KUNIT_EXPECT_NULL(test, st_find(snap, p));
	leak_snapshot_put(snap);
	kfree(p);
	st_cmd("stop kmalloc-128\n");
	st_cmd("reset kmalloc-128\n");
}

/*
 * kmalloc-large: both ways to a page allocator kmalloc() are recorded
 * once each (v6.12 fires the tracepoint twice for the second), with the
 * pages they take, and kfree() drops them.
 */
static void slabtrace_trace_kmalloc_large(struct kunit *test)
{
	struct leak_snapshot *snap;
	const struct leak_record *rec;
	void *c, *v;

	KUNIT_ASSERT_EQ(test, st_cmd("start kmalloc-large\n"), 0);
	c = kmalloc_large_const();
	v = kmalloc_large_var();
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, v);
	snap = st_print(test, "kmalloc-large");
	KUNIT_EXPECT_EQ(test, snap->kind, LEAK_KIND_LARGE);
	KUNIT_EXPECT_EQ(test, snap->replaced, 0);
	rec = st_find(snap, c);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	KUNIT_EXPECT_EQ(test, rec->bytes_req, LARGE_SIZE);
	KUNIT_EXPECT_EQ(test, leak_bytes(snap->kind, snap->object_size, rec),
			LARGE_SIZE);
	KUNIT_EXPECT_TRUE(test, st_first_frame_is(rec, kmalloc_large_const));
	KUNIT_EXPECT_EQ(test, rec->gfp, (__force u32)GFP_KERNEL);
	KUNIT_EXPECT_EQ(test, rec->node, page_to_nid(virt_to_page(c)));
	rec = st_find(snap, v);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	KUNIT_EXPECT_EQ(test, rec->bytes_req, large_var_size);
	KUNIT_EXPECT_EQ(test, leak_bytes(snap->kind, snap->object_size, rec),
			PAGE_SIZE << get_order(large_var_size));
	KUNIT_EXPECT_TRUE(test, st_first_frame_is(rec, kmalloc_large_var));
	KUNIT_EXPECT_EQ(test, rec->gfp, (__force u32)(GFP_KERNEL | __GFP_ZERO));
	leak_snapshot_put(snap);

	kfree(c);
	kfree(v);
	snap = st_print(test, "kmalloc-large");
	KUNIT_EXPECT_NULL(test, st_find(snap, c));
	KUNIT_EXPECT_NULL(test, st_find(snap, v));
	leak_snapshot_put(snap);
}

/*
 * kmalloc-large at the record limit: v6.12's second event of an object
 * whose first was recorded (a size the compiler cannot see) finds the
 * limit reached.  The first event's record stays, neither a drop nor a
 * replacement: the object is recorded, once.
 */
static void slabtrace_trace_kmalloc_large_at_limit(struct kunit *test)
{
	unsigned long limit = READ_ONCE(leak_record_limit);
	struct leak_snapshot *snap;
	void *v;

	KUNIT_ASSERT_EQ(test, st_cmd("start kmalloc-large\n"), 0);
	KUNIT_ASSERT_EQ(test, st_cmd("limit %ld\n",
				     leak_table_count(&leak_records) + 1),
			0);
	v = kmalloc_large_var();
	KUNIT_EXPECT_EQ(test, st_cmd("limit %lu\n", limit), 0);
	KUNIT_ASSERT_NOT_NULL(test, v);
	snap = st_print(test, "kmalloc-large");
	KUNIT_EXPECT_NOT_NULL(test, st_find(snap, v));
	KUNIT_EXPECT_EQ(test, snap->replaced, 0);
	KUNIT_EXPECT_EQ(test, snap->drops[LEAK_DROP_LIMIT], 0);
	leak_snapshot_put(snap);
	kfree(v);
	st_cmd("stop kmalloc-large\n");
	st_cmd("reset kmalloc-large\n");
}

/*
 * kmalloc-large sampled 1 in 2: v6.12's two events of one object (a size
 * the compiler cannot see) agree, so each object is drawn once: no
 * record of the inner event is left to be evicted, counted as replaced,
 * by an unsampled outer one, and a record has the caller's backtrace.
 * 200 objects: the records are Binomial(200, 1/2), 100 +- 28 at 4 sigma
 * (sigma 7.1; a correct sampler fails once in about 16,000 runs).
 */
static void slabtrace_trace_kmalloc_large_sampled(struct kunit *test)
{
	struct leak_snapshot *snap;
	const struct leak_record *rec;
	unsigned int i, nr = 0, wrong = 0;
	void **objs;

	objs = kunit_kcalloc(test, 200, sizeof(*objs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs);
	KUNIT_ASSERT_EQ(test, st_cmd("start kmalloc-large sample 2\n"), 0);
	for (i = 0; i < 200; i++) {
		objs[i] = kmalloc_large_var();
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
	}
	snap = st_print(test, "kmalloc-large");
	KUNIT_EXPECT_EQ(test, snap->replaced, 0);
	for (i = 0; i < 200; i++) {
		rec = st_find(snap, objs[i]);
		if (!rec)
			continue;
		nr++;
		wrong += !st_first_frame_is(rec, kmalloc_large_var);
	}
	leak_snapshot_put(snap);
	for (i = 0; i < 200; i++)
		kfree(objs[i]);
	KUNIT_EXPECT_EQ(test, wrong, 0);
	KUNIT_EXPECT_LE(test, abs((int)nr - 100), 28);
}

/*
 * percpu: alloc_percpu() is recorded, on no node; free_percpu() drops it.
 * (Its bytes on every possible CPU: UML has one, the VM test bigleak two.)
 */
static void slabtrace_trace_percpu(struct kunit *test)
{
	struct leak_snapshot *snap;
	const struct leak_record *rec;
	u64 __percpu *p;

	KUNIT_ASSERT_EQ(test, st_cmd("start percpu\n"), 0);
	p = alloc_percpu_u64();
	KUNIT_ASSERT_NOT_NULL(test, p);
	snap = st_print(test, "percpu");
	rec = st_find(snap, (__force const void *)p);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	KUNIT_EXPECT_EQ(test, rec->bytes_req, sizeof(u64));
	KUNIT_EXPECT_EQ(test, leak_bytes(snap->kind, snap->object_size, rec),
			sizeof(u64) * num_possible_cpus());
	KUNIT_EXPECT_TRUE(test, st_first_frame_is(rec, alloc_percpu_u64));
	KUNIT_EXPECT_EQ(test, rec->node, NUMA_NO_NODE);
	leak_snapshot_put(snap);

	free_percpu(p);
	snap = st_print(test, "percpu");
	KUNIT_EXPECT_NULL(test, st_find(snap, (__force const void *)p));
	leak_snapshot_put(snap);
	/* Stopped and reset, it is gone, and so are its probes. */
	KUNIT_EXPECT_EQ(test, st_cmd("stop percpu\n"), 0);
	KUNIT_EXPECT_EQ(test, st_cmd("reset percpu\n"), 0);
	KUNIT_EXPECT_EQ(test, st_cmd("print percpu\n"), -ENODATA);
}

/* Allocated and kept: whether @snap has it, then freed. */
static bool filtered_in(struct kunit *test, const char *start)
{
	struct leak_snapshot *snap;
	bool in;
	void *obj;

	KUNIT_EXPECT_EQ_MSG(test, st_cmd("%s\n", start), 0, "%s", start);
	obj = alloc_obj(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	snap = st_print(test, OBJ_CACHE);
	in = st_find(snap, obj);
	leak_snapshot_put(snap);
	kmem_cache_free(obj_cache, obj);
	return in;
}

/* The filters of "start CACHE pid|comm|cgroup ...". */
static void slabtrace_trace_filter(struct kunit *test)
{
	struct leak_snapshot *snap;
	char cmd[96];

	/* Another process's: this kthread's allocation is left out, counted. */
	KUNIT_EXPECT_FALSE(test, filtered_in(test, "start " OBJ_CACHE " pid 1"));
	snap = st_print(test, OBJ_CACHE);
	KUNIT_EXPECT_STREQ(test, snap->filter, "pid 1");
	KUNIT_EXPECT_EQ(test, snap->filtered, 1);
	KUNIT_EXPECT_EQ(test, snap->nr, 0);
	leak_snapshot_put(snap);

	snprintf(cmd, sizeof(cmd), "start " OBJ_CACHE " pid 1 %d", current->tgid);
	KUNIT_EXPECT_TRUE(test, filtered_in(test, cmd));
	snprintf(cmd, sizeof(cmd), "start " OBJ_CACHE " comm %s", current->comm);
	KUNIT_EXPECT_TRUE(test, filtered_in(test, cmd));
	KUNIT_EXPECT_FALSE(test, filtered_in(test, "start " OBJ_CACHE " comm no_such_comm"));
	/* A reset keeps the filter; a start without one drops it. */
	KUNIT_EXPECT_EQ(test, st_cmd("reset " OBJ_CACHE "\n"), 0);
	snap = st_print(test, OBJ_CACHE);
	KUNIT_EXPECT_STREQ(test, snap->filter, "comm no_such_comm");
	KUNIT_EXPECT_EQ(test, snap->filtered, 0);
	leak_snapshot_put(snap);
	KUNIT_EXPECT_TRUE(test, filtered_in(test, "start " OBJ_CACHE));
	snap = st_print(test, OBJ_CACHE);
	KUNIT_EXPECT_STREQ(test, snap->filter, "");
	leak_snapshot_put(snap);

	/* Bad filters: refused, the cache's own left as it was. */
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE " pid\n"), -EINVAL);
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE " pid 0\n"), -EINVAL);
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE " pid +5\n"), -EINVAL);
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE " pid 1 2 3 4 5 6 7 8 9\n"),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE " comm\n"), -EINVAL);
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE " comm a b\n"), -EINVAL);
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE " comm 0123456789abcdef\n"),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE " cgroup lk\n"), -EINVAL);
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE " uid 0\n"), -EINVAL);
	/* The UML kernel of the runner has no cgroups. */
	if (!IS_ENABLED(CONFIG_CGROUPS))
		KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE " cgroup /\n"),
				-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, st_cmd("start no_such_cache pid 1\n"), -ENOENT);
	KUNIT_EXPECT_TRUE(test, filtered_in(test, "start " OBJ_CACHE));
}

/*
 * "sample 10" over 20000 outstanding objects: the records are Binomial(n =
 * 20000, p = 1/10), mean 2000, sigma = sqrt(n p (1 - p)) = 42.4.  The
 * check allows 4 sigma either way (170 records, so the estimate 10 x
 * records is within 1700 of 20000): a correct sampler fails it with
 * probability 2 * (1 - Phi(4)) = 6.3e-5, once in about 16,000 runs.  A
 * sampler that recorded every allocation, or none, or 1 in 9 or 11 (mean
 * 2222 or 1818) fails it.
 */
#define SAMPLE_N	10
#define SAMPLE_OBJS	20000
#define SAMPLE_SLACK	170

static void slabtrace_trace_sample(struct kunit *test)
{
	struct leak_snapshot *snap;
	char expect[96], *text;
	void **objs;
	unsigned int i;
	long nr;

	objs = kunit_kcalloc(test, SAMPLE_OBJS, sizeof(*objs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs);
	KUNIT_ASSERT_EQ(test, st_cmd("start " OBJ_CACHE " sample %u\n", SAMPLE_N), 0);
	for (i = 0; i < SAMPLE_OBJS; i++) {
		objs[i] = alloc_obj(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
	}
	snap = st_print(test, OBJ_CACHE);
	nr = snap->nr;
	KUNIT_EXPECT_EQ(test, snap->sample_every, SAMPLE_N);
	KUNIT_EXPECT_EQ(test, leak_snapshot_dropped(snap), 0);
	leak_snapshot_put(snap);
	kunit_info(test, "%ld records of %u objects, 1 in %u sampled\n", nr,
		   SAMPLE_OBJS, SAMPLE_N);
	KUNIT_EXPECT_LE(test, abs(nr - SAMPLE_OBJS / SAMPLE_N), SAMPLE_SLACK);
	/* The header's estimate, on a dump small enough to read whole. */
	for (i = 100; i < SAMPLE_OBJS; i++)
		kmem_cache_free(obj_cache, objs[i]);
	snap = st_print(test, OBJ_CACHE);
	nr = snap->nr;
	leak_snapshot_put(snap);
	text = st_read_ctl(test);
	snprintf(expect, sizeof(expect),
		 "\nsampled 1 in %u: estimated %ld outstanding (%ld bytes); ",
		 SAMPLE_N, nr * SAMPLE_N, nr * SAMPLE_N * OBJ_SIZE);
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, expect));
	/* Another rate while records are kept is refused; bad rates too. */
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE "\n"), -EBUSY);
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE " sample 1\n"), -ERANGE);
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE " sample 1000001\n"), -ERANGE);
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE " sample x\n"), -EINVAL);
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE " pid 1 sample\n"), -EINVAL);
	/* sample-bytes: the same, and not with sample N. */
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE " sample-bytes 8192\n"), -EBUSY);
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE " sample-bytes 63\n"), -ERANGE);
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE " sample-bytes 1073741825\n"),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE " sample-bytes x\n"), -EINVAL);
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE " sample 10 sample-bytes 8192\n"),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE " sample-bytes 8192 sample 10\n"),
			-EINVAL);
	/* Each once: a second would silently lose to the first. */
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE " sample 10 sample 20\n"), -EINVAL);
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE " sample-bytes 8192 sample-bytes 4096\n"),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE " comm x sample-bytes\n"), -EINVAL);
	for (i = 0; i < 100; i++)
		kmem_cache_free(obj_cache, objs[i]);
	KUNIT_EXPECT_EQ(test, st_outstanding(test, OBJ_CACHE), 0);
	/* No records, but traced: the rate stays; stopped, it may change. */
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE "\n"), -EBUSY);
	KUNIT_EXPECT_EQ(test, st_cmd("stop " OBJ_CACHE "\n"), 0);
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE "\n"), 0);
}

/*
 * "sample-bytes 8192" over 20000 objects of 64 bytes and 1000 of 4096, in
 * two caches: an object of s bytes is recorded with p = 1 - exp(-s / B),
 * 0.0077821 and 0.39347, so about 155.6 and 393.5 records, each standing
 * for s / p bytes, 8224.0 and 10410.0.  The estimated bytes are unbiased,
 * 5376000 in all, with variance sum n s^2 (1 - p) / p = 3.631e10, sigma
 * 190544; the check allows 4 sigma, 762175 (14%): a correct sampler fails
 * it with probability 2 * (1 - Phi(4)) = 6.3e-5, once in about 16,000
 * runs.  Records not weighed (1.6 MB) or weighed as 1 in N fail it.  The
 * large are sampled 50 times as often as the small; the check asks for 10
 * (it fails by chance less than once in 10^20 runs).
 */
#define SB_MEAN		8192
#define SB_SMALL	64
#define SB_NSMALL	20000
#define SB_LARGE	4096
#define SB_NLARGE	1000
#define SB_EXPECT	(SB_SMALL * SB_NSMALL + SB_LARGE * SB_NLARGE)
#define SB_SLACK	762175

static noinline void *alloc_from(struct kmem_cache *c)
{
	void *p = kmem_cache_alloc(c, GFP_KERNEL);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

/* Records and estimates of @cache's @n objects, sampled by bytes; freed. */
static void sample_bytes_one(struct kunit *test, struct kmem_cache *c,
			     const char *name, unsigned int n, long *records,
			     u64 *est_bytes, unsigned int *object_size)
{
	struct leak_snapshot *snap;
	char expect[128], *text;
	unsigned int i, kept;
	void **objs;

	objs = kunit_kcalloc(test, n, sizeof(*objs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs);
	KUNIT_ASSERT_EQ(test, st_cmd("start %s sample-bytes %u\n", name, SB_MEAN), 0);
	for (i = 0; i < n; i++) {
		objs[i] = alloc_from(c);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
	}
	snap = st_print(test, name);
	*records = snap->nr;
	*est_bytes = snap->est_bytes;
	*object_size = snap->object_size;
	KUNIT_EXPECT_EQ(test, snap->sample_bytes, SB_MEAN);
	KUNIT_EXPECT_EQ(test, snap->sample_every, 1);
	KUNIT_EXPECT_EQ(test, leak_snapshot_dropped(snap), 0);
	leak_snapshot_put(snap);
	/* The header's estimate, on a dump small enough to read whole. */
	for (i = 100; i < n; i++)
		kmem_cache_free(c, objs[i]);
	snap = st_print(test, name);
	snprintf(expect, sizeof(expect),
		 "\nsampled 1 per %u bytes: estimated %llu outstanding (%llu bytes); ",
		 SB_MEAN, (snap->est_q16 + (1U << 15)) >> 16, snap->est_bytes);
	kept = snap->nr;
	leak_snapshot_put(snap);
	text = st_read_ctl(test);
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, expect));
	/*
	 * Another rate while records are kept is refused.  The 100 small
	 * objects left may hold no record (about 1 in 114 is sampled); the
	 * 100 large ones hold about 39.
	 */
	if (kept) {
		KUNIT_EXPECT_EQ(test, st_cmd("start %s sample 10\n", name), -EBUSY);
		KUNIT_EXPECT_EQ(test, st_cmd("start %s\n", name), -EBUSY);
	}
	for (i = 0; i < 100; i++)
		kmem_cache_free(c, objs[i]);
	KUNIT_EXPECT_EQ(test, st_outstanding(test, name), 0);
	/* Traced, with no record: still its rate (a probe may be drawing). */
	KUNIT_EXPECT_EQ(test, st_cmd("start %s sample 10\n", name), -EBUSY);
	KUNIT_EXPECT_EQ(test, st_cmd("stop %s\n", name), 0);
	KUNIT_EXPECT_EQ(test, st_cmd("reset %s\n", name), 0);
	/* Stopped and reset: forgotten, any rate. */
	KUNIT_EXPECT_EQ(test, st_cmd("start %s sample 10\n", name), 0);
	KUNIT_EXPECT_EQ(test, st_cmd("stop %s\n", name), 0);
	KUNIT_EXPECT_EQ(test, st_cmd("reset %s\n", name), 0);
}

static void slabtrace_trace_sample_bytes(struct kunit *test)
{
	unsigned int size_s = 0, size_l = 0;
	struct kmem_cache *small, *large;
	long rec_s = 0, rec_l = 0;
	u64 est_s = 0, est_l = 0;
	s64 est;

	small = kmem_cache_create("st_kunit_sb64", SB_SMALL, 0, 0, obj_ctor);
	KUNIT_ASSERT_NOT_NULL(test, small);
	large = kmem_cache_create("st_kunit_sb4k", SB_LARGE, 0, 0, obj_ctor);
	if (!large)
		kmem_cache_destroy(small);
	KUNIT_ASSERT_NOT_NULL(test, large);
	sample_bytes_one(test, small, "st_kunit_sb64", SB_NSMALL, &rec_s,
			 &est_s, &size_s);
	sample_bytes_one(test, large, "st_kunit_sb4k", SB_NLARGE, &rec_l,
			 &est_l, &size_l);
	kmem_cache_destroy(small);
	kmem_cache_destroy(large);
	est = est_s + est_l;
	kunit_info(test, "%ld of %u %u-byte, %ld of %u %u-byte objects sampled, estimated %lld bytes of %u\n",
		   rec_s, SB_NSMALL, size_s, rec_l, SB_NLARGE, size_l, est,
		   SB_EXPECT);
	KUNIT_EXPECT_EQ(test, size_s, SB_SMALL);
	KUNIT_EXPECT_EQ(test, size_l, SB_LARGE);
	KUNIT_EXPECT_LE(test, abs(est - SB_EXPECT), SB_SLACK);
	/* Large objects sampled far more often: rec_l / NLARGE > 10 rec_s / NSMALL. */
	KUNIT_EXPECT_GT(test, (s64)rec_l * SB_NSMALL, 10LL * rec_s * SB_NLARGE);
	KUNIT_EXPECT_GT(test, rec_s, 0);
}

struct irq_alloc {
	struct hrtimer hrtimer;
	struct timer_list timer;
	void *obj;
	bool free;
	bool in_irq;
	struct completion done;
};

static noinline void irq_alloc_or_free(struct irq_alloc *a)
{
	a->in_irq = in_hardirq() || in_serving_softirq();
	if (a->free)
		kmem_cache_free(obj_cache, a->obj);
	else
		a->obj = alloc_obj(GFP_ATOMIC);
	complete(&a->done);
}

static enum hrtimer_restart hardirq_fn(struct hrtimer *t)
{
	irq_alloc_or_free(container_of(t, struct irq_alloc, hrtimer));
	return HRTIMER_NORESTART;
}

static void softirq_fn(struct timer_list *t)
{
	irq_alloc_or_free(container_of(t, struct irq_alloc, timer));
}

static void run_in_irq(struct kunit *test, struct irq_alloc *a, bool hard)
{
	init_completion(&a->done);
	if (hard) {
		hrtimer_init(&a->hrtimer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_HARD);
		a->hrtimer.function = hardirq_fn;
		hrtimer_start(&a->hrtimer, ns_to_ktime(100000),
			      HRTIMER_MODE_REL_HARD);
	} else {
		timer_setup(&a->timer, softirq_fn, 0);
		mod_timer(&a->timer, jiffies + 1);
	}
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&a->done, 10 * HZ));
	if (hard)
		hrtimer_cancel(&a->hrtimer);
	else
		del_timer_sync(&a->timer);
	KUNIT_EXPECT_TRUE(test, a->in_irq);
}

static void check_irq(struct kunit *test, bool hard)
{
	struct leak_snapshot *snap;
	const struct leak_record *rec;
	struct irq_alloc *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_EQ(test, st_cmd("start " OBJ_CACHE "\n"), 0);
	run_in_irq(test, a, hard);
	KUNIT_ASSERT_NOT_NULL(test, a->obj);

	snap = st_print(test, OBJ_CACHE);
	rec = st_find(snap, a->obj);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	KUNIT_EXPECT_EQ(test, rec->who.ctx,
			hard ? LEAK_CTX_HARDIRQ : LEAK_CTX_SOFTIRQ);
	KUNIT_EXPECT_EQ(test, rec->who.pid, 0);
	KUNIT_EXPECT_TRUE(test, st_first_frame_is(rec, alloc_obj));
	leak_snapshot_put(snap);

	a->free = true;
	run_in_irq(test, a, hard);
	KUNIT_EXPECT_EQ(test, st_outstanding(test, OBJ_CACHE), 0);
}

static void slabtrace_trace_hardirq(struct kunit *test)
{
	check_irq(test, true);
}

static void slabtrace_trace_softirq(struct kunit *test)
{
	check_irq(test, false);
}

/*
 * Many records: the snapshot spans many chunks and holds each once, and no
 * allocation of its own is large.
 */
static void slabtrace_trace_many(struct kunit *test)
{
	const unsigned long n = 20000;
	struct leak_snapshot *snap;
	unsigned long i;
	void **objs;

	objs = kunit_kcalloc(test, n, sizeof(*objs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs);
	/* A pool that holds them all: the refill work may not run meanwhile. */
	KUNIT_ASSERT_EQ(test, st_cmd("pool %lu\n", n), 0);
	KUNIT_ASSERT_EQ(test, st_cmd("start " OBJ_CACHE "\n"), 0);
	for (i = 0; i < n; i++)
		objs[i] = alloc_obj(GFP_KERNEL);
	snap = st_print(test, OBJ_CACHE);
	/* Every allocation has a record or was counted as dropped. */
	KUNIT_EXPECT_EQ(test, snap->nr + leak_snapshot_dropped(snap), n);
	KUNIT_EXPECT_GT(test, snap->nr / LEAK_SNAP_PER_CHUNK, 100);
	KUNIT_EXPECT_NOT_NULL(test, xa_load(&snap->chunks,
					    (snap->nr - 1) / LEAK_SNAP_PER_CHUNK));
	KUNIT_EXPECT_NOT_NULL(test, leak_snapshot_entry(snap, snap->nr - 1));
	KUNIT_EXPECT_NULL(test, leak_snapshot_entry(snap, snap->nr));
	if (!leak_snapshot_dropped(snap))
		for (i = 0; i < n; i += n / 50)
			KUNIT_EXPECT_NOT_NULL(test, st_find(snap, objs[i]));
	leak_snapshot_put(snap);
	for (i = 0; i < n; i++)
		kmem_cache_free(obj_cache, objs[i]);
	KUNIT_EXPECT_EQ(test, st_outstanding(test, OBJ_CACHE), 0);
}

/* @n objects from one call site (a loop the compiler cannot unroll). */
static noinline void alloc_objs(void **objs, unsigned int n)
{
	unsigned int i;

	OPTIMIZER_HIDE_VAR(n);
	for (i = 0; i < n; i++)
		objs[i] = alloc_obj(GFP_KERNEL);
}

/* since-mark and older-than pick exactly the objects they should. */
static void slabtrace_trace_filters(struct kunit *test)
{
	struct leak_snapshot *snap, *all;
	const struct leak_record *rec;
	void *old[2], *young[3];
	unsigned int i, want;

	KUNIT_ASSERT_EQ(test, st_cmd("start " OBJ_CACHE "\n"), 0);
	KUNIT_EXPECT_EQ(test, st_cmd("print " OBJ_CACHE " since-mark\n"),
			-EINVAL);
	alloc_objs(old, ARRAY_SIZE(old));
	msleep(1000);
	KUNIT_ASSERT_EQ(test, st_cmd("mark " OBJ_CACHE "\n"), 0);
	alloc_objs(young, ARRAY_SIZE(young));

	KUNIT_ASSERT_EQ(test, st_cmd("print " OBJ_CACHE " since-mark\n"), 0);
	snap = leak_print_get(NULL);
	KUNIT_EXPECT_EQ(test, snap->nr, ARRAY_SIZE(young));
	for (i = 0; i < ARRAY_SIZE(young); i++)
		KUNIT_EXPECT_NOT_NULL(test, st_find(snap, young[i]));
	KUNIT_EXPECT_TRUE(test, snap->opts.since_mark);
	leak_snapshot_put(snap);

	/*
	 * older-than 500: the old objects, 1000 ms older than the young, are
	 * in; a young one is in only if the scheduler kept this thread away
	 * for 500 ms.  The records' own stamps and the print's own time say
	 * which: the expectation is exact whatever the machine's load.
	 */
	all = st_print(test, OBJ_CACHE);
	KUNIT_ASSERT_EQ(test, st_cmd("print " OBJ_CACHE " older-than 500\n"), 0);
	snap = leak_print_get(NULL);
	for (i = 0, want = 0; i < ARRAY_SIZE(young); i++) {
		rec = st_find(all, young[i]);
		KUNIT_ASSERT_NOT_NULL(test, rec);
		if (leak_snapshot_age(snap, rec) >= 500) {
			KUNIT_EXPECT_NOT_NULL(test, st_find(snap, young[i]));
			want++;
		} else {
			KUNIT_EXPECT_NULL(test, st_find(snap, young[i]));
		}
	}
	KUNIT_EXPECT_EQ(test, snap->nr, ARRAY_SIZE(old) + want);
	for (i = 0; i < ARRAY_SIZE(old); i++)
		KUNIT_EXPECT_NOT_NULL(test, st_find(snap, old[i]));
	leak_snapshot_put(snap);
	leak_snapshot_put(all);

	/* Grouped: one backtrace, alloc_objs() calling alloc_obj(). */
	KUNIT_ASSERT_EQ(test, st_cmd("print " OBJ_CACHE " stacks since-mark\n"),
			0);
	snap = leak_print_get(NULL);
	KUNIT_EXPECT_EQ(test, snap->nr_groups, 1);
	KUNIT_EXPECT_EQ(test, snap->groups[0]->count, ARRAY_SIZE(young));
	leak_snapshot_put(snap);

	/* reset forgets the mark with the records. */
	KUNIT_ASSERT_EQ(test, st_cmd("reset " OBJ_CACHE "\n"), 0);
	KUNIT_EXPECT_EQ(test, st_cmd("print " OBJ_CACHE " since-mark\n"),
			-EINVAL);
	for (i = 0; i < ARRAY_SIZE(old); i++)
		kmem_cache_free(obj_cache, old[i]);
	for (i = 0; i < ARRAY_SIZE(young); i++)
		kmem_cache_free(obj_cache, young[i]);
}

/*
 * An allocation with a command name never seen before, under a lock that
 * interrupt context takes too: the probes' locks (the context table's, the
 * pool's, the table's) must be taken with irqs off, or lockdep reports an
 * irq-safe -> irq-unsafe inversion (a real deadlock: an interrupt waiting
 * for the caller's lock while the caller waits for slabtrace's).  The timer
 * is a softirq one: a spinlock_t taken in hardirq is itself wrong on
 * PREEMPT_RT (PROVE_RAW_LOCK_NESTING says so); hardirq allocations are
 * check_irq()'s.
 */
static DEFINE_SPINLOCK(irq_safe_lock);

static enum hrtimer_restart take_irq_safe_lock(struct hrtimer *t)
{
	spin_lock(&irq_safe_lock);
	spin_unlock(&irq_safe_lock);
	complete(&container_of(t, struct irq_alloc, hrtimer)->done);
	return HRTIMER_NORESTART;
}

static void slabtrace_trace_under_irq_safe_lock(struct kunit *test)
{
	struct irq_alloc *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	char comm[TASK_COMM_LEN], saved[TASK_COMM_LEN];
	unsigned long flags;
	void *obj, *obj2;

	KUNIT_ASSERT_NOT_NULL(test, a);
	init_completion(&a->done);
	hrtimer_init(&a->hrtimer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	a->hrtimer.function = take_irq_safe_lock;
	hrtimer_start(&a->hrtimer, ns_to_ktime(100000), HRTIMER_MODE_REL_SOFT);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&a->done, 10 * HZ));
	hrtimer_cancel(&a->hrtimer);

	KUNIT_ASSERT_EQ(test, st_cmd("start " OBJ_CACHE "\n"), 0);
	/* Interned with irqs on, then under the irq-safe lock. */
	get_task_comm(saved, current);
	snprintf(comm, sizeof(comm), "st_irq_%u", (unsigned int)get_random_u32());
	set_task_comm(current, comm);
	obj = alloc_obj(GFP_KERNEL);
	snprintf(comm, sizeof(comm), "st_lck_%u", (unsigned int)get_random_u32());
	set_task_comm(current, comm);
	spin_lock_irqsave(&irq_safe_lock, flags);
	obj2 = alloc_obj(GFP_ATOMIC);
	spin_unlock_irqrestore(&irq_safe_lock, flags);
	set_task_comm(current, saved);
	KUNIT_EXPECT_EQ(test, st_outstanding(test, OBJ_CACHE), 2);
	kmem_cache_free(obj_cache, obj);
	kmem_cache_free(obj_cache, obj2);
	KUNIT_EXPECT_TRUE(test, debug_locks);
}

/*
 * An object freed with no tracepoint (kmem_cache_free_bulk(), as kfree_rcu()
 * batches do) leaves a stale record, even in a stopped cache: the next
 * allocation of its address drops it, counted as replaced.  And a record
 * some other cache holds for an address is replaced by the new one.
 */
static void slabtrace_trace_evict_stale(struct kunit *test)
{
	struct leak_record *rec;
	struct leak_set *set;
	struct leak_traced *a;
	bool alloc, free;
	void *obj;

	KUNIT_ASSERT_EQ(test, st_cmd("start " OBJ_CACHE "\n"), 0);
	obj = alloc_obj(GFP_KERNEL);
	kmem_cache_free_bulk(obj_cache, 1, &obj);
	KUNIT_ASSERT_EQ(test, st_cmd("stop " OBJ_CACHE "\n"), 0);
	KUNIT_EXPECT_EQ(test, st_outstanding(test, OBJ_CACHE), 1);
	/* Stopped, with a record: the alloc probes stay, to evict it. */
	leak_probes_state(&alloc, &free);
	KUNIT_EXPECT_TRUE(test, alloc);

	/*
	 * The address is allocated again.  KASAN's quarantine keeps SLUB
	 * from handing it out at once here, so the event is the tracepoint's
	 * own, as the allocator would fire it (the VM suite reuses it for
	 * real).
	 */
	trace_kmem_cache_alloc(_THIS_IP_, obj, obj_cache, GFP_KERNEL,
			       NUMA_NO_NODE);
	set = rcu_dereference_protected(leak_active, true);
	KUNIT_ASSERT_NOT_NULL(test, set);
	a = set->traced[0];
	KUNIT_EXPECT_EQ(test, leak_traced_count(a), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&a->replaced), 1);

	/* A record of kmalloc-128 at an address OBJ_CACHE allocates. */
	KUNIT_ASSERT_EQ(test, st_cmd("start " OBJ_CACHE "\n"), 0);
	KUNIT_ASSERT_EQ(test, st_cmd("start kmalloc-128\n"), 0);
	set = rcu_dereference_protected(leak_active, true);
	KUNIT_ASSERT_EQ(test, set->nr, 2);
	obj = alloc_obj(GFP_KERNEL);
	rec = leak_pool_get(&leak_pool);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	memset(rec, 0, sizeof(*rec));
	rec->obj = obj;
	rec->owner = set->traced[1]->id;
	rec = leak_table_insert(&leak_records, rec);
	/* It replaced OBJ_CACHE's record... */
	KUNIT_ASSERT_NOT_NULL(test, rec);
	KUNIT_EXPECT_EQ(test, rec->owner, set->traced[0]->id);
	leak_pool_put(&leak_pool, rec);
	KUNIT_EXPECT_EQ(test, leak_traced_count(set->traced[0]), 0);
	KUNIT_EXPECT_EQ(test, leak_traced_count(set->traced[1]), 1);
	/* ...and the free of the object drops it, whoever holds it. */
	kmem_cache_free(obj_cache, obj);
	KUNIT_EXPECT_EQ(test, leak_traced_count(set->traced[1]), 0);
}

/* Both probes while tracing or while records remain (the alloc probes evict). */
static void slabtrace_trace_probes_detach(struct kunit *test)
{
	bool alloc, free;
	void *obj;

	leak_probes_state(&alloc, &free);
	KUNIT_EXPECT_FALSE(test, alloc);
	KUNIT_EXPECT_FALSE(test, free);

	KUNIT_ASSERT_EQ(test, st_cmd("start " OBJ_CACHE "\n"), 0);
	leak_probes_state(&alloc, &free);
	KUNIT_EXPECT_TRUE(test, alloc);
	KUNIT_EXPECT_TRUE(test, free);

	obj = alloc_obj(GFP_KERNEL);
	KUNIT_ASSERT_EQ(test, st_cmd("stop " OBJ_CACHE "\n"), 0);
	leak_probes_state(&alloc, &free);
	KUNIT_EXPECT_TRUE(test, alloc);
	KUNIT_EXPECT_TRUE(test, free);

	/* The last record goes: the free probes follow, from a work item. */
	kmem_cache_free(obj_cache, obj);
	leak_probes_idle();
	leak_probes_state(&alloc, &free);
	KUNIT_EXPECT_FALSE(test, alloc);
	KUNIT_EXPECT_FALSE(test, free);
	/* Stopped and empty, it still prints. */
	KUNIT_EXPECT_EQ(test, st_outstanding(test, OBJ_CACHE), 0);
}

/*
 * A stale record whose address another cache allocated with no tracepoint
 * (a bulk allocation, as the maple tree's) goes when that object is freed,
 * counted as replaced: kmem_cache_free() names the other cache.
 */
static void slabtrace_trace_stale_freed_by_other_cache(struct kunit *test)
{
	struct leak_set *set;
	struct leak_traced *a;
	void *obj;

	KUNIT_ASSERT_EQ(test, st_cmd("start " OBJ_CACHE "\n"), 0);
	obj = alloc_obj(GFP_KERNEL);
	kmem_cache_free_bulk(obj_cache, 1, &obj);
	KUNIT_ASSERT_EQ(test, st_cmd("stop " OBJ_CACHE "\n"), 0);
	set = rcu_dereference_protected(leak_active, true);
	KUNIT_ASSERT_NOT_NULL(test, set);
	a = set->traced[0];
	KUNIT_EXPECT_EQ(test, leak_traced_count(a), 1);
	/* The event the allocator fires when the other cache frees it. */
	trace_kmem_cache_free(_THIS_IP_, obj, leak_record_cache);
	KUNIT_EXPECT_EQ(test, leak_traced_count(a), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&a->replaced), 1);
}

static void *late_obj;

/*
 * "stop"'s window: an alloc probe that read the cache as traced before
 * stop cleared it inserts its record after stop counted the records.
 * Run by leak_probes_update(), with leak_mutex held.
 */
static void insert_late(void)
{
	struct leak_set *set;
	struct leak_traced *tr;

	set = rcu_dereference_protected(leak_active,
					lockdep_is_held(&leak_mutex));
	tr = set->traced[0];
	WRITE_ONCE(tr->tracing, true);
	late_obj = alloc_obj(GFP_KERNEL);
	WRITE_ONCE(tr->tracing, false);
}

/* A record made in stop's window keeps the free probes: its free is seen. */
static void slabtrace_trace_stop_late_insert(struct kunit *test)
{
	bool alloc, free;

	KUNIT_ASSERT_EQ(test, st_cmd("start " OBJ_CACHE "\n"), 0);
	leak_test_before_detach = insert_late;
	KUNIT_EXPECT_EQ(test, st_cmd("stop " OBJ_CACHE "\n"), 0);
	leak_test_before_detach = NULL;
	KUNIT_ASSERT_NOT_NULL(test, late_obj);
	leak_probes_state(&alloc, &free);
	KUNIT_EXPECT_FALSE(test, alloc);
	KUNIT_EXPECT_TRUE(test, free);
	KUNIT_EXPECT_EQ(test, st_outstanding(test, OBJ_CACHE), 1);
	kmem_cache_free(obj_cache, late_obj);
	KUNIT_EXPECT_EQ(test, st_outstanding(test, OBJ_CACHE), 0);
	/* Then the free probes go too. */
	leak_probes_idle();
	leak_probes_state(&alloc, &free);
	KUNIT_EXPECT_FALSE(test, free);
}

/* A reset while a print copies: run between the copy and its publishing. */
static void reset_now(void)
{
	st_cmd("reset " OBJ_CACHE "\n");
}

/* A print whose cache was reset while it copied publishes nothing. */
static void slabtrace_trace_reset_during_print(struct kunit *test)
{
	void *obj;

	KUNIT_ASSERT_EQ(test, st_cmd("start " OBJ_CACHE "\n"), 0);
	obj = alloc_obj(GFP_KERNEL);
	leak_test_after_copy = reset_now;
	KUNIT_EXPECT_EQ(test, st_cmd("print " OBJ_CACHE "\n"), -EBUSY);
	leak_test_after_copy = NULL;
	KUNIT_EXPECT_NULL(test, leak_print_get(NULL));
	/* Traced still, from an empty table. */
	KUNIT_EXPECT_EQ(test, st_outstanding(test, OBJ_CACHE), 0);
	kmem_cache_free(obj_cache, obj);
}

/*
 * Objects freed by kmem_cache_free_bulk() pass no tracepoint: their records
 * stay (a documented limit).  The cache is then destroyed while traced:
 * the next command drops it, and until then no new cache can take its
 * address, so nothing of a new cache is recorded as the old one's.
 */
static void slabtrace_trace_destroyed(struct kunit *test)
{
	struct kmem_cache *gone, *next;
	struct leak_set *set;
	void *objs[3], *obj;

	gone = kmem_cache_create("st_kunit_gone", OBJ_SIZE, 0, 0, obj_ctor);
	KUNIT_ASSERT_NOT_NULL(test, gone);
	KUNIT_ASSERT_EQ(test, st_cmd("start st_kunit_gone\n"), 0);
	KUNIT_ASSERT_EQ(test, kmem_cache_alloc_bulk(gone, GFP_KERNEL, 1,
						    objs), 1);
	objs[1] = kmem_cache_alloc(gone, GFP_KERNEL);
	objs[2] = kmem_cache_alloc(gone, GFP_KERNEL);
	/* The bulk allocation passed no tracepoint either. */
	KUNIT_EXPECT_EQ(test, st_outstanding(test, "st_kunit_gone"), 2);
	kmem_cache_free_bulk(gone, 3, objs);
	KUNIT_EXPECT_EQ(test, st_outstanding(test, "st_kunit_gone"), 2);

	kmem_cache_destroy(gone);
	next = kmem_cache_create("st_kunit_next", OBJ_SIZE, 0, 0, obj_ctor);
	KUNIT_ASSERT_NOT_NULL(test, next);
	KUNIT_EXPECT_PTR_NE(test, next, gone);
	obj = kmem_cache_alloc(next, GFP_KERNEL);

	/* Still in the set, still holding exactly the two stale records. */
	set = rcu_dereference_protected(leak_active, true);
	KUNIT_ASSERT_NOT_NULL(test, set);
	KUNIT_EXPECT_EQ(test, set->nr, 1);
	KUNIT_EXPECT_EQ(test, leak_traced_count(set->traced[0]), 2);

	/* Any command sweeps it away; its name is gone. */
	KUNIT_EXPECT_EQ(test, st_cmd("print st_kunit_gone\n"), -ENOENT);
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(leak_active));
	KUNIT_EXPECT_EQ(test, st_cmd("print st_kunit_next\n"), -ENODATA);
	kmem_cache_free(next, obj);
	kmem_cache_destroy(next);
}

/*
 * A print of a cache that was destroyed goes at its user's next read,
 * though no command swept the cache: follow.c's scans sweep too.
 */
static void slabtrace_trace_destroyed_print(struct kunit *test)
{
	struct leak_snapshot *snap;
	struct kmem_cache *gone;
	void *obj;

	gone = kmem_cache_create("st_kunit_gone", OBJ_SIZE, 0, 0, obj_ctor);
	KUNIT_ASSERT_NOT_NULL(test, gone);
	KUNIT_ASSERT_EQ(test, st_cmd("start st_kunit_gone\n"), 0);
	obj = kmem_cache_alloc(gone, GFP_KERNEL);
	KUNIT_ASSERT_EQ(test, st_cmd("print st_kunit_gone\n"), 0);
	snap = leak_print_get(NULL);
	KUNIT_ASSERT_NOT_NULL(test, snap);
	KUNIT_EXPECT_EQ(test, snap->nr, 1);
	leak_snapshot_put(snap);
	kmem_cache_free(gone, obj);
	kmem_cache_destroy(gone);

	/* The sweep of a scan for new caches, not a command. */
	mutex_lock(&leak_mutex);
	KUNIT_EXPECT_EQ(test, leak_traced_sweep(), 1);
	mutex_unlock(&leak_mutex);
	KUNIT_EXPECT_NULL(test, leak_print_get(NULL));
}

/*
 * A start whose probes cannot attach undoes itself: the cache it added
 * leaves the set, one it restarted is stopped again, and no probe stays
 * that nothing needs.
 */
static void slabtrace_trace_attach_fails(struct kunit *test)
{
	struct leak_set *set;
	bool alloc, free, tracing;
	void *obj;

	WRITE_ONCE(leak_fail_attach, true);
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE "\n"), -ENOMEM);
	WRITE_ONCE(leak_fail_attach, false);
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(leak_active));
	leak_probes_state(&alloc, &free);
	KUNIT_EXPECT_FALSE(test, alloc);
	KUNIT_EXPECT_FALSE(test, free);

	/* Stopped (empty, still in the set): started again, it stops again. */
	KUNIT_ASSERT_EQ(test, st_cmd("start " OBJ_CACHE "\n"), 0);
	KUNIT_ASSERT_EQ(test, st_cmd("stop " OBJ_CACHE "\n"), 0);
	leak_probes_state(&alloc, &free);
	KUNIT_ASSERT_FALSE(test, alloc);
	WRITE_ONCE(leak_fail_attach, true);
	KUNIT_EXPECT_EQ(test, st_cmd("start " OBJ_CACHE "\n"), -ENOMEM);
	WRITE_ONCE(leak_fail_attach, false);
	set = rcu_dereference_protected(leak_active, true);
	KUNIT_ASSERT_NOT_NULL(test, set);
	tracing = READ_ONCE(set->traced[0]->tracing);
	KUNIT_EXPECT_FALSE(test, tracing);
	/* And starts for good once they can. */
	KUNIT_ASSERT_EQ(test, st_cmd("start " OBJ_CACHE "\n"), 0);
	obj = alloc_obj(GFP_KERNEL);
	KUNIT_EXPECT_EQ(test, st_outstanding(test, OBJ_CACHE), 1);
	kmem_cache_free(obj_cache, obj);
	KUNIT_EXPECT_EQ(test, st_outstanding(test, OBJ_CACHE), 0);
}

static int slabtrace_trace_suite_init(struct kunit_suite *suite)
{
	obj_cache = kmem_cache_create(OBJ_CACHE, OBJ_SIZE, 0, 0, obj_ctor);
	return obj_cache ? 0 : -ENOMEM;
}

static void slabtrace_trace_suite_exit(struct kunit_suite *suite)
{
	kmem_cache_destroy(obj_cache);
}

/* Leave nothing traced for the next case. */
static void slabtrace_trace_exit(struct kunit *test)
{
	leak_test_before_detach = NULL;
	leak_test_after_copy = NULL;
	WRITE_ONCE(leak_fail_attach, false);
	WRITE_ONCE(leak_fail_set, false);
	st_cmd("pool %u\n", LEAK_POOL_DEFAULT);
	st_cmd("stop " OBJ_CACHE "\n");
	st_cmd("reset " OBJ_CACHE "\n");
	st_cmd("stop kmalloc-64\n");
	st_cmd("reset kmalloc-64\n");
	st_cmd("stop kmalloc-128\n");
	st_cmd("reset kmalloc-128\n");
	st_cmd("stop kmalloc-large\n");
	st_cmd("reset kmalloc-large\n");
	st_cmd("stop percpu\n");
	st_cmd("reset percpu\n");
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(leak_active));
	st_expect_lockdep_clean(test);
}

static struct kunit_case slabtrace_trace_cases[] = {
	KUNIT_CASE(slabtrace_trace_outstanding),
	KUNIT_CASE(slabtrace_trace_first_frame),
	KUNIT_CASE(slabtrace_trace_stop_then_free),
	KUNIT_CASE(slabtrace_trace_reset),
	KUNIT_CASE(slabtrace_trace_reset_fails),
	KUNIT_CASE(slabtrace_trace_kmalloc),
	KUNIT_CASE(slabtrace_trace_kmalloc_large),
	KUNIT_CASE(slabtrace_trace_kmalloc_large_at_limit),
	KUNIT_CASE(slabtrace_trace_percpu),
	KUNIT_CASE(slabtrace_trace_hardirq),
	KUNIT_CASE(slabtrace_trace_softirq),
	KUNIT_CASE(slabtrace_trace_filters),
	KUNIT_CASE(slabtrace_trace_under_irq_safe_lock),
	KUNIT_CASE(slabtrace_trace_evict_stale),
	KUNIT_CASE(slabtrace_trace_stale_freed_by_other_cache),
	KUNIT_CASE(slabtrace_trace_many),
	KUNIT_CASE(slabtrace_trace_probes_detach),
	KUNIT_CASE(slabtrace_trace_stop_late_insert),
	KUNIT_CASE(slabtrace_trace_reset_during_print),
	KUNIT_CASE(slabtrace_trace_destroyed),
	KUNIT_CASE(slabtrace_trace_destroyed_print),
	KUNIT_CASE(slabtrace_trace_attach_fails),
	KUNIT_CASE(slabtrace_trace_filter),
	/*
	 * Last: its 20000 objects leave SLUB's per-CPU slab so that the
	 * next allocation takes SLUB's slow path, whose local lock lockdep
	 * does not allow in the hardirq case (a SLUB matter, not slabtrace's).
	 */
	KUNIT_CASE(slabtrace_trace_sample),
	KUNIT_CASE(slabtrace_trace_kmalloc_large_sampled),
	KUNIT_CASE(slabtrace_trace_sample_bytes),
	{}
};

static struct kunit_suite slabtrace_trace_suite = {
	.name = "slabtrace_trace",
	.suite_init = slabtrace_trace_suite_init,
	.suite_exit = slabtrace_trace_suite_exit,
	.exit = slabtrace_trace_exit,
	.test_cases = slabtrace_trace_cases,
};

kunit_test_suite(slabtrace_trace_suite);

MODULE_LICENSE("GPL");
